/* sim: the whole GPU and the top loop (ARCHITECTURE.md section 2).
 *
 * Every step of the loop advances to the next clock edge among the four clock domains
 * (core, interconnect, L2, DRAM; periods kept in femtoseconds so ratios like
 * 1132:3500.5 MHz do not drift) and runs, for the domains that tick:
 *   A. serial   : interconnect -> SM inbound queues; sub-partitions -> interconnect;
 *                 DRAM cycle; interconnect -> sub-partitions and L2 cycle; interconnect cycle
 *   B. parallel : sm_cycle() of every SM with work (OpenMP, schedule by knob)
 *   C. serial   : SM outbound queues -> interconnect in SM order; CTA retirement; kernel
 *                 completion and launch (streams, launch latency, memcpys); CTA issue through
 *                 the placement policy; watchdog; progress line
 * Phase B touches only per-SM state, so results are identical for any thread count.
 *
 * Kernels and streams: commands run in list order. A kernel starts when the previous
 * kernel of its stream has finished and (unless concurrent_kernels) every earlier kernel
 * has finished; its CTAs issue kernel_launch_latency core cycles later. MemcpyHtoD commands
 * are applied when reached (L2 prefill per memcpy_l2_prefill). */
#ifndef LOCKSTEP_SIM_H
#define LOCKSTEP_SIM_H
#include "../base/base.h"
#include "../cta/occupancy.h"
#include "../knob/knob.h"
#include "../stat/stat.h"
#include "../trace/trace.h"
#include <stdio.h>

/* Reduced statistics of the whole GPU at one moment (sums over units in index order). */
typedef struct sim_totals {
    uint64_t cycle;          /* core cycles since the start of the run */
    stat_block sm, l1d, l2, dram, icnt, part;
} sim_totals;

typedef struct sim_kernel_result {
    char *name, *path;
    uint32_t uid;
    uint64_t stream;
    uint32_t grid[3], block[3], nregs;
    uint64_t shmem, ctas;
    cta_occupancy occ;
    uint64_t launch_cycle, first_cta_cycle, end_cycle;
    sim_totals delta;        /* counters of the kernel's segment [launch, end] */
    sim_totals cum;          /* cumulative at its end */
} sim_kernel_result;

/* Where a team's time went (knob team_profile; host-side, seconds of the main thread's
 * loop). Per thread: time in tasks, tasks run, and of those taken from another's range. */
typedef struct sim_team_profile {
    uint32_t threads;
    uint64_t team_edges, mem_edges; /* edges handed to the team, of them memory-only */
    uint64_t solo_edges;            /* edges the main thread ran alone while the team lived */
    double loop_s, team_s, publish_s, wait_s;
    double *busy_s;
    uint64_t *tasks, *stolen;
} sim_team_profile;

/* Where the windowed mode's time went (knob team_profile with sync_window > 0; host-side):
 * the loop split into the windows' parallel part (or, on one thread, its tasks) and the serial
 * rest (the first kernel's launch before the first window, then between windows), and of
 * that the launch, the links' index exchange and the CTAs' retiring and issuing (with later
 * kernels' launches); the task seconds by kind; the crossbar tasks that ended after every
 * other task had been taken (they bounded their window) and their seconds from the window's
 * start; per thread, seconds in tasks, tasks run, and of those taken from another's range. */
typedef struct sim_window_profile {
    uint32_t threads;
    uint64_t windows, xbar_last;
    double loop_s, region_s, first_s, exchange_s, ctas_s, xbar_s, chan_s, sm_s, xbar_last_s;
    double *busy_s;
    uint64_t *tasks, *stolen;
} sim_window_profile;

/* Where the exact mode's loop went (knob team_profile; host-side, seconds scaled from the
 * main thread's clock ticks): each serial phase; phase B's own books (the active list, the
 * channels' plan and their flags, the crossbar's edge); phase B's tasks, by kind where the
 * main thread ran them alone (seconds and tasks), and in one sum where it handed them to a
 * team or to OpenMP (sim_team_profile splits those); and the rest of the loop (the first
 * kernel's launch, choosing the next clock edges, fast-forward, the watchdog, the stops). */
enum {
    SIM_LP_REPLIES_IN,   /* phase A: replies out of the crossbar into the SMs */
    SIM_LP_REPLIES_OUT,  /* phase A: replies out of the channels into the crossbar */
    SIM_LP_REQUESTS_IN,  /* phase A: requests out of the crossbar into the channels */
    SIM_LP_PHASE_B,      /* phase B's books (while it runs, all of phase B) */
    SIM_LP_REQUESTS_OUT, /* phase C: requests out of the SMs into the crossbar */
    SIM_LP_RETIRE,       /* phase C: finished CTAs retired */
    SIM_LP_CTAS,         /* phase C: kernels ended and launched, CTAs issued */
    SIM_LP_AHEAD,        /* tasks run alone: the CTA read-ahead */
    SIM_LP_XBAR,         /* tasks run alone: the crossbar's subnets */
    SIM_LP_CHAN,         /* tasks run alone: memory channels */
    SIM_LP_SM,           /* tasks run alone: SMs */
    SIM_LP_TEAM,         /* phase B's tasks handed to other threads */
    SIM_LP_N
};
typedef struct sim_loop_profile {
    uint64_t edges, core_edges, alone_edges, team_edges;
    uint64_t tasks[SIM_LP_N]; /* SIM_LP_AHEAD to SIM_LP_SM */
    double loop_s, s[SIM_LP_N];
} sim_loop_profile;

typedef struct sim_result {
    sim_kernel_result *k;
    size_t nk;
    sim_totals total;
    stat_block *per_sm, *per_sm_l1d;    /* cumulative per unit */
    stat_block *per_sub_l2, *per_chan_dram;
    uint32_t n_sm, n_sub, n_chan;
    int stopped;             /* 1: max_cycles / max_insts ended the run early */
    /* the ledger (sim_ledger_check) on a run that ended: identities checked on the total,
     * or -1 with the first that failed in ledger_why (a simulator bug) */
    int ledger;
    char ledger_why[400];
    int drained;   /* nothing in flight at the end: the ledger's flows hold as equalities */
    int ledger_eq; /* those flows (0 unless drained) */
    int ledger_units; /* checks of a unit's own identities on its blocks (SMs, slices, channels) */
    double wall_s;           /* not part of any deterministic output */
    uint64_t ff_cycles;      /* core cycles fast-forwarded (host-side figure, like wall_s) */
    uint64_t park_cycles;    /* SM cycles not run while parked (host-side figure) */
    /* host-side too: with a team (team_threads > 1), when its helpers started, seconds into
     * the run (-1: never), and of the last solo period judged the mean core edge (us; 0:
     * none was) and the solo time it left the run by estimate (ms; -1: none made) */
    int team_threads;
    double team_start_s, solo_edge_us, solo_left_ms;
    uint64_t solo_batch_ctas; /* text CTAs parsed by a parallel region before they started */
    sim_team_profile *prof;   /* knob team_profile and a team that started: else NULL */
    /* windowed mode (sync_window > 0): windows run, and the ROP latency the run used */
    uint64_t windows;
    uint64_t windows_alone; /* with threads > 1: windows run on the main thread (team_adapt) */
    int64_t window_rop;
    sim_window_profile *wprof; /* team_profile in the windowed mode: else NULL */
    sim_loop_profile *lprof;   /* team_profile in the exact mode: else NULL */
} sim_result;

typedef struct sim sim;

/* Builds the GPU described by the knobs. Errors: inconsistent configuration. */
sim *sim_new(const knobs *k, base_err *e);
void sim_free(sim *g);

/* Runs every command of the list. diag receives the hang diagnosis (stderr by default);
 * progress: a stream for the progress line or NULL. Errors: bad trace input (code
 * BASE_EXIT_INPUT) or a hang / internal stop (code BASE_EXIT_INTERNAL, message names the
 * cause; the diagnosis was written to diag). */
int sim_run(sim *g, const trace_list *l, sim_result *r, FILE *diag, FILE *progress, base_err *e);
void sim_result_free(sim_result *r);
/* The identities between the statistics of different units (docs/TIMING.md "The ledger") on
 * every kernel's segment, every SM's, L2 slice's and DRAM channel's own blocks (their count
 * in r->ledger_units) and the total of r (with r->drained, the flows as equalities: their
 * count in r->ledger_eq): the number that applied to the total, or -1 with the first that
 * does not hold described in why. */
int sim_ledger_check(const knobs *k, sim_result *r, char *why, size_t n);

/* The statistics sets behind sim_totals (for printing). */
void sim_totals_init(sim_totals *t);
void sim_totals_free(sim_totals *t);

/* Output: Accel-Sim-named headline statistics, then lockstep's detailed sets. */
void sim_print_kernel(FILE *f, const sim_kernel_result *k, size_t idx, size_t n);
void sim_print_totals(FILE *f, const sim_result *r);
void sim_json_result(base_json *j, const sim_result *r);

/* CTA placement policies (plug-ins, knob cta_placement): pick the next SM to try, given
 * the previous pick; the caller tries every SM once per cycle in that order. */
typedef struct sim_place_ops {
    const char *name, *help;
    uint32_t (*first)(uint32_t last_sm, uint32_t n_sm);
} sim_place_ops;
const sim_place_ops *sim_place_find(const char *name);
extern const sim_place_ops *const sim_place_registry[];

#endif
