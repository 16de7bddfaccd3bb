/* sim internals shared by sim.c, kern.c, report.c, watch.c. */
#ifndef LOCKSTEP_SIM_INT_H
#define LOCKSTEP_SIM_INT_H
#include "sim.h"
#include "../icnt/icnt.h"
#include "../mem/part.h"
#include "../sm/sm.h"
#include <stdatomic.h>

enum { CLK_CORE, CLK_ICNT, CLK_L2, CLK_DRAM, CLK_N };
/* Per-unit slots that phase-B tasks write are this many ints apart: a cache line each, so
 * threads working on neighbouring units do not share one. */
#define SIM_PAD 16
/* Edges between two looks at the team's steals, and the excess of steals one way over the
 * other at which an SM changes home (sim_homes_rebalance). */
#define SIM_REBALANCE_EDGES 128u
#define SIM_REBALANCE_SLACK 16u
enum { RK_WAIT, RK_RUN, RK_DONE };
enum { SIM_BG_IDLE, SIM_BG_POSTED, SIM_BG_RUNNING }; /* the read-ahead job (ahead.c) */

/* The persistent threads of a parallel run (team.c). */
typedef struct sim_team_range {
    _Alignas(64) _Atomic uint64_t w; /* epoch, end and next task of one thread's range */
    _Atomic uint32_t first; /* where the range began: thieves read it with w, on its line */
} sim_team_range;

/* Tasks one thread took from its neighbours' ranges (the threads before and after it), since
 * the main thread last read them (sim_homes_rebalance). */
typedef struct sim_team_steals {
    _Alignas(64) _Atomic uint32_t prev, next;
} sim_team_steals;

/* Solo windows (team.c, sim_adapt_window): which way the next core edges run. */
typedef struct sim_adapt {
    int solo;          /* the current window runs on the main thread alone */
    int phase;         /* 0: the chosen way, 1: a window the other way, 2: the window after it */
    uint32_t edges;    /* core edges in the current window */
    uint32_t span;     /* edges a window: SIM_ADAPT_EDGES (the windowed mode sets fewer) */
    uint32_t windows;  /* windows ended (the first, the run's start, is not timed) */
    uint32_t left;     /* windows of the chosen way before the next try of the other */
    uint32_t stay;     /* the same after a try: doubles while tries change nothing */
    double t0;         /* the window's start, s */
    double before, other; /* s per core edge: the window before the try, the try */
    double ref;        /* s per core edge of the chosen way when last chosen; 0: not yet */
    int far;           /* the last try lost by `giveup` or more */
    double giveup;     /* SIM_ADAPT_GIVEUP, or SIM_ADAPT_GIVEUP_PAIR with two threads */
} sim_adapt;

/* One thread's tallies under team_profile, on its own line: written by that thread alone. */
typedef struct sim_team_tick {
    _Alignas(64) uint64_t busy, tasks, stolen; /* ticks in tasks, tasks run, of them stolen */
} sim_team_tick;

/* A cheap host clock for team_profile: the time-stamp counter where there is one. */
static inline uint64_t sim_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return (uint64_t)(base_now_s() * 1e9);
#endif
}

/* The exact mode's loop profile as it runs (team_profile): ticks and counts by the
 * SIM_LP_* phases, written by the main thread alone; sim_loop_profile is what the result
 * keeps. */
typedef struct sim_lprof {
    uint64_t t[SIM_LP_N], n[SIM_LP_N];
    uint64_t edges, core_edges, alone_edges, team_edges, loop_ticks;
    double loop_s;
} sim_lprof;

/* team_profile: the ticks since t go to phase k; returns now. */
static inline uint64_t sim_lap(sim_lprof *p, int k, uint64_t t)
{
    uint64_t now = sim_ticks();
    p->t[k] += now - t;
    return now;
}

typedef struct sim_team {
    /* the open epoch, the stop word, the job word and the rest each on their own cache line
     * (padded: the sim is not allocated over-aligned): helpers poll the first every edge */
    _Atomic uint32_t open;      /* the epoch of the edge whose ranges are open */
    char pad0[60];
    _Atomic int stop;
    char pad2[60];
    /* the background read-ahead job (ahead.c): idle, posted or running; stop: end it soon */
    _Atomic int bg;
    _Atomic int bg_stop;
    char pad3[56];
    size_t bg_nrk;              /* the kernels the job looks at */
    uint32_t threads;
    uint32_t epoch;             /* main thread only */
    unsigned mask;              /* the edge's clock domains, set before the ranges open */
    _Atomic uint32_t keep;      /* the tasks a thief leaves a begun range in the open edge */
    sim_team_range *range;      /* per thread */
    sim_team_range *fin;        /* per thread: (epoch, tasks finished in it), helpers only */
    sim_team_steals *steals;    /* per thread */
    uint32_t edges;             /* edges run since the homes were last rebalanced */
    uint32_t *order;            /* the edge's task numbers, grouped by home thread */
    uint32_t *home;             /* per task of the edge: its home thread */
    uint32_t max_tasks;         /* what order and home hold */
    uint32_t *count;            /* threads + 1: range bounds while grouping */
    sim_team_tick *tick;        /* per thread with team_profile, else NULL */
    /* team_profile, main thread only: ticks publishing, waiting for helpers, in team edges;
     * edges handed to the team, of them memory-only, and edges run alone by the adaptation */
    uint64_t p_publish, p_wait, p_team, p_edges, p_mem, p_solo;
} sim_team;

/* Memory channels' books (chan.c). */
typedef struct sim_chans {
    uint32_t nw;                 /* 64-bit words of each bitmap */
    uint64_t *busy_dram, *busy_l2, *has_rep;
    uint64_t *sleep;             /* L2 sides waiting only on their ROP delay (not in busy_l2) */
    uint64_t *wake;              /* a sleeping L2 side's first core cycle that may act */
    uint64_t next_wake;          /* the earliest of those (UINT64_MAX: none) */
    uint32_t *task;              /* the channels with a task this edge */
    /* per channel, SIM_PAD/2 apart (written by its task): dram_edges at its last task or
     * sync, then the wake its task found */
    uint64_t *last;
    uint64_t dram_edges;         /* DRAM edges so far */
    uint32_t pend;               /* DRAM-only edges deferred since the last channel tasks */
    uint64_t now;                /* the core cycle the last memory edge saw */
} sim_chans;

/* Windowed mode (window.c). Links: rings of cap entries, each stamped with the core cycle it
 * may leave the link; SM s's at 2s (requests out) and 2s + 1 (replies in), sub-partition i's
 * at 2i (requests in) and 2i + 1 (replies out). Each link's producer and consumer keep their
 * indices on host lines of their own, with copies of the other side's (the *_seen fields,
 * written serially between windows), which is all a task reads of the other side. */
typedef struct sim_wsm {      /* SM s's side, written by its task */
    _Alignas(64) uint32_t out_tail, in_head;
    uint32_t out_head_seen, in_tail_seen;
} sim_wsm;
/* The crossbar's sides, each half on a line of its own: with two subnets the request and the
 * reply crossbar are tasks of their own, which write one half each. */
typedef struct sim_wxs {      /* the crossbar's side of SM s's links */
    _Alignas(64) uint32_t out_head, out_tail_seen;
    _Alignas(64) uint32_t in_tail, in_head_seen;
} sim_wxs;
typedef struct sim_wxp {      /* the crossbar's side of sub-partition i's links */
    _Alignas(64) uint32_t req_tail, req_head_seen;
    _Alignas(64) uint32_t rep_head, rep_tail_seen;
} sim_wxp;
typedef struct sim_wcp {      /* sub-partition i's side, written by its channel's task */
    _Alignas(64) uint32_t req_head, rep_tail;
    uint32_t req_tail_seen, rep_head_seen;
} sim_wcp;
typedef struct sim_wchan {    /* a channel's books, written by its task or, between, serially */
    _Alignas(64) unsigned busy; /* 1: DRAM side busy, 2: L2 side busy (mem_part_idle) */
    int quiet;                /* nothing busy, no reply waiting: no task until a request comes */
    uint64_t skip;            /* quiet DRAM edges not yet handed over (mem_part_skip) */
    uint64_t now;             /* a quiet L2 side's last edge not yet handed over (set_now) */
    uint64_t moved;           /* hand-overs in the window, for the watchdog */
    uint64_t wake;            /* asleep (busy 0) until this core cycle (mem_part_sleep); 0: not */
    uint64_t qdram, ql2;      /* quiet: the window books' dram_edges and l2_wins when it went */
} sim_wchan;
typedef struct sim_wedge {    /* one clock edge of the window */
    uint64_t cycle;           /* the core cycle it sees (g->cycle in the exact loop) */
    unsigned m;               /* its clock domains */
} sim_wedge;
/* One thread's range of a window's tasks: it takes them from `next` up, and so do the other
 * threads once theirs is empty. */
typedef struct sim_wrange {
    _Alignas(64) _Atomic uint32_t next;
    uint32_t end;
} sim_wrange;
/* One thread's tallies for the windowed profile (team_profile), written by that thread alone:
 * seconds in tasks (and of them in crossbar, channel and SM tasks), tasks run, of them
 * stolen; crossbar tasks that ended after every other task was taken, and their seconds from
 * the parallel region's start. */
typedef struct sim_wprof {
    _Alignas(64) double busy, xbar_s, chan_s, sm_s, xlast_s;
    uint64_t tasks, stolen, xlast;
} sim_wprof;
typedef struct sim_window {
    uint32_t len, cap;        /* W core cycles; entries a link holds (a power of two, >= 2W) */
    mem_req *req, *preq;      /* the SMs' links, the sub-partitions' */
    uint64_t *at, *pat;
    sim_wsm *sm;
    sim_wxs *xs;
    sim_wxp *xp;
    sim_wcp *cp;
    sim_wchan *ch;
    uint64_t *out_bits;       /* the crossbar's: SMs whose request link has entries it may take */
    uint64_t *rep_bits;       /* and sub-partitions whose reply link has (each on lines apart) */
    /* Serial, between windows: SMs whose reply link and sub-partitions whose request link
     * hold entries (as out_bits and rep_bits do for the other two), so that the exchange, the
     * window's SMs and the quiet windows' wake look at the links in use, not at every link */
    uint64_t *in_bits, *req_bits;
    /* per subnet (its crossbar task writes them): the SMs and sub-partitions whose link
     * indices it moved in the window, exchanged after it with those whose tasks ran */
    uint64_t *xdirty_sm[2], *xdirty_sub[2];
    sim_wedge *edge;          /* listed only when a crossbar or channel task walks them */
    uint32_t nedge, edge_cap;
    uint64_t next0[CLK_N], cycle0, end; /* the clocks and the core cycles of the window */
    uint64_t most;            /* its edges of all domains (the most it lists: some coincide) */
    uint64_t ndram, last_l2; /* the window's DRAM edges; its last L2 edge's cycle (0: none) */
    uint32_t *chan_task, nchan_task; /* the channels with a task in the window */
    uint64_t *awake, *reqch;  /* channels not quiet; channels a request reaches (collect_chans) */
    /* the books of the quiet channels, kept once for all of them: DRAM edges and windows
     * with an L2 edge up to the last window or skip, and that L2 edge's cycle */
    uint64_t dram_edges, l2_wins, l2_last;
    uint32_t nx;              /* crossbar tasks: 2 with two subnets (one each), else 1 */
    uint32_t nxt, xtask[2];   /* the window's crossbar tasks (a quiet crossbar has none) */
    uint64_t nicnt;           /* the window's interconnect edges */
    uint8_t *xact[2];         /* per edge of the window, split crossbar: subnet held a packet */
    uint64_t xb_moved[2][8];  /* each crossbar task's hand-overs, written once as it ends */
    sim_wrange *range;        /* per thread: its slice of order[] */
    /* homes (threads > 1): thread t's SMs are sm_first[t] .. sm_first[t+1]-1 */
    uint32_t *sm_first, *home_sm, *home_chan;
    uint32_t *order;          /* the window's task numbers, grouped by home */
    double *dur;              /* each one's seconds, by its place in order[] */
    double *load;             /* per thread: running mean of its homed work's seconds */
    uint32_t windows;
    sim_wprof *prof;          /* per thread with team_profile, else NULL */
    double p_t0, p_region;    /* team_profile: the region's start, the regions' sum, */
    double p_exchange, p_ctas; /* between windows: the links' indices, CTAs retired, issued */
    double p_first;           /* the first kernel's launch, before the first window */
} sim_window;

typedef struct run_kernel {
    sm_kernel kk;
    int state;              /* RK_* */
    int eof;                /* every CTA of the file has been issued */
    size_t cmd;             /* index in the command list */
    size_t res;             /* index in sim_result.k */
    uint64_t launch, first_cta;
    uint64_t issued, done;
    sim_totals start;
    /* CTAs read ahead of issue (ahead.c): a ring, with how the file went on after it; the
     * producer owns the tail, ahead_end/err and the slots it fills, the main thread the head */
    trace_cta *ahead;
    uint32_t *ahead_need;      /* per slot: static instructions the reader knew after it */
    uint32_t ahead_cap, ahead_head, ahead_tail;
    _Atomic uint32_t ahead_n;  /* CTAs ready */
    int ahead_go;              /* the posted job fills this kernel's ring */
    int ahead_end;             /* 1: the file ended; -1: reading failed with ahead_err */
    base_err ahead_err;
    trace_chunk **ahead_chunk; /* per slot, text kernels on the team: its lines for parsing */
} run_kernel;

struct sim {
    knobs k;
    mem_map map;
    sm_ctx ctx;
    sm **sm;
    uint32_t n_sm, n_chan, n_sub, n_sub_total;
    uint32_t *sub_chan;        /* per global sub-partition: its channel (no division per request) */
    mem_part **part;
    icnt *net;
    uint64_t period[CLK_N], next[CLK_N];  /* femtoseconds */
    uint64_t cycle;                        /* core cycles */
    /* The first core cycle whose phase B has not run yet: the count a parked SM's skipped
     * cycles run up to (sm_unpark). g->cycle until phase B of a core edge, then g->cycle + 1
     * until core_cycle increments g->cycle. */
    uint64_t sm_upto;
    /* What each SM's or channel's task left for the serial phase, one bit per unit in
     * bitmaps of the thread that ran it (SMF_* kinds, smf_words words each, smf_stride words
     * per thread, a whole number of cache lines): the serial phase then visits only the units
     * with something to hand over, and reads threads' lines instead of every unit's. */
    uint64_t *smf;
    uint32_t smf_words, smf_stride, smf_threads;
    uint32_t *active, nactive;
    /* Per SM: the cycle its park ends (sm_park_until) while it is parked, else 0. Written by
     * the SM's own task right after its cycle (one slot per SM, no other writer in phase B),
     * so the serial phase tests parks without touching the SMs' state. */
    uint64_t *park_at;
    /* The exact loop's parked SMs (bitmap, from their tasks' SMF_PARK in phase C) and, per
     * word, a cycle no earlier than the first of their parks' ends: collect_active looks at
     * each one only when that cycle comes, or when a request of its waits to be offered. */
    uint64_t *parked, *park_min;
    /* Bitmap: SMs with work, as their tasks left them (SMF_ACT, and the outbound queue after
     * phase C), or given some since (sim_mark_active), or parked. Kept from what the tasks
     * report and the serial phase does, not by asking each SM (a host line from another
     * core per SM and cycle). */
    uint64_t *maybe_active;
    uint64_t *ran;           /* bitmap: the SMs of this core cycle's active list */
    /* Replies on their way in: phase A leaves SM s's reply in inbox[s] (a host line each)
     * and sets its bit, and the SM's own task pushes it into its inbound queue before its
     * cycle, on the core that owns the queue; inroom: the queue had room when the SM's task
     * last ended, which holds until its next task (one reply per SM and cycle). */
    mem_req *inbox;
    uint64_t *inbox_bits, *inroom;
    /* Requests on their way out, the other way round: an SM's task leaves a copy of its
     * outbound queue's head in outbox[s] (SMF_OUT; SMF_OUT2 when more wait behind it), so
     * phase C reads one line per SM that the SM's core wrote, not the queue's header and then
     * its slot. A head phase C sends is popped by the SM's own task before its next cycle
     * (its popq bit), where that task is sure to come next cycle (the SM has work left); a
     * parked SM's by collect_active, which also offers its next head; else phase C pops it
     * itself (sim_sm_sync_pop). */
    mem_req *outbox;
    uint64_t *popq;
    /* the SMs phase C left with requests queued (a head not sent, or more behind the one
     * sent): where a parked one's next head is offered from (collect_active) */
    uint64_t *outq_left;
    const sim_place_ops *place;
    uint32_t last_sm;
    /* a bit per SM, clear while no waiting kernel's CTA fits it (until it retires one or a
     * kernel launches): CTA issue visits only the SMs with their bit set */
    uint64_t *sm_open;
    /* kernels */
    const trace_list *list;
    size_t next_cmd;
    trace_kernel *pending_tk;  /* the next kernel, opened, waiting for its stream */
    run_kernel *rk;
    size_t nrk;
    uint64_t *done_by_uid;
    uint64_t ctas_total_est, ctas_done_all;
    /* fast-forward (ff.c) */
    int ff_armed;              /* this core cycle is a probe: SM statistics saved */
    stat_block *ff_snap;
    uint64_t ff_skipped;       /* core cycles jumped over */
    sim_team team;
    int use_team;              /* phase B goes to the team (threads > 1, team schedule) */
    int team_deferred;         /* with use_team: the helpers have not started yet (sim.c) */
    int loop_began;            /* run_loop made its first kernel advance */
    uint64_t loop_edges;       /* core edges run_loop has run (a fast-forward's jump is one) */
    sim_adapt adapt;           /* with the team and team_adapt: solo windows */
    uint32_t *home_sm, *home_chan; /* with the team: each SM's and channel's home thread */
    uint32_t *sm_first;        /* threads + 1: thread t's SMs are sm_first[t] .. sm_first[t+1]-1 */
    uint32_t task_ahead, task_icnt, task_chan; /* phase B's tasks before the SMs' (sim.c) */
    /* a serial phase's own parallel job (sim_team_jobs): while set, the team's tasks are its */
    void (*job)(struct sim *g, void *ctx, uint32_t i);
    void *job_ctx;
    uint32_t job_n;
    sim_chans ch;
    int windowed;              /* sync_window > 0: the run goes window by window (window.c) */
    sim_window w;
    /* watchdog */
    uint64_t moved, last_progress_cycle;
    /* progress line */
    FILE *progress;
    double t0, last_print;
    sim_result *res;
    sim_lprof *lp;             /* team_profile in the exact mode, else NULL */
    base_err *err;
    char omp_fork, omp_join; /* addresses only: sim_omp_fork and the like */
};

/* ThreadSanitizer (make tsan) sees atomics and pthread_create, but not how libgomp forks
 * and joins a parallel region with its pooled threads: every read after a join of what a
 * task wrote, and every read in a task of what the main thread wrote before the fork, would
 * be reported as a race. The regions state both edges to it: the main thread releases `fork`
 * before a region, each thread acquires it as its work starts and releases `join` as its work
 * ends, and the main thread acquires `join` after the region. Two addresses, so no task
 * appears ordered after another task of the same region (a real race between two tasks is
 * still seen). Nothing in other builds. */
#if defined(__SANITIZE_THREAD__)
#define SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIM_TSAN 1
#endif
#endif
#ifdef SIM_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static inline void sim_omp_fork(sim *g) { __tsan_release(&g->omp_fork); }
static inline void sim_omp_enter(sim *g) { __tsan_acquire(&g->omp_fork); }
static inline void sim_omp_leave(sim *g) { __tsan_release(&g->omp_join); }
static inline void sim_omp_join(sim *g) { __tsan_acquire(&g->omp_join); }
#else
static inline void sim_omp_fork(sim *g) { (void)g; }
static inline void sim_omp_enter(sim *g) { (void)g; }
static inline void sim_omp_leave(sim *g) { (void)g; }
static inline void sim_omp_join(sim *g) { (void)g; }
#endif

/* Serial: SM s's outbound head that phase C sent and its task has not yet popped, popped
 * now, for a serial reader of the SM's queues or a cycle the task will not run. */
static inline void sim_sm_sync_pop(sim *g, uint32_t s)
{
    uint64_t bit = 1ull << (s % 64);
    if (g->popq[s / 64] & bit) {
        g->popq[s / 64] &= ~bit;
        (void)mem_q_pop(sm_outbound(g->sm[s]));
    }
}

/* Every SM's sent head popped: the SMs' queues as a serial reader expects them. */
static inline void sim_sync_sms(sim *g)
{
    for (uint32_t s = 0; s < g->n_sm; s++)
        sim_sm_sync_pop(g, s);
}

static inline uint64_t sim_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Bit i of a bitmap of 64-bit words (the units' sets: channels, SMs, sub-partitions). */
static inline void sim_bit_set(uint64_t *b, uint32_t i) { b[i / 64] |= 1ull << (i % 64); }
static inline void sim_bit_put(uint64_t *b, uint32_t i, int on)
{
    b[i / 64] = (b[i / 64] & ~(1ull << (i % 64))) | (uint64_t)(on != 0) << (i % 64);
}
static inline int sim_bit_get(const uint64_t *b, uint32_t i)
{
    return (int)(b[i / 64] >> (i % 64) & 1);
}

static inline void sim_mark_active(sim *g, uint32_t s)
{
    g->maybe_active[s / 64] |= 1ull << (s % 64);
}

/* Before anything reaches SM s from outside (a reply, a CTA, a kernel start), it runs again:
 * its skipped cycles are counted and it is ticked from the next cycle on. */
static inline void sim_sm_touch(sim *g, uint32_t s)
{
    if (g->park_at[s]) {
        sm_unpark(g->sm[s], g->sm_upto);
        g->park_at[s] = 0;
        g->parked[s / 64] &= ~(1ull << (s % 64));
    }
}

/* Whether units' state may sit in other cores' caches now (a team runs the tasks): then the
 * serial phases first start fetching every line they are about to read from the units, so
 * that the transfers between cores overlap instead of coming one after another. */
static inline int sim_spread(const sim *g)
{
    return g->use_team && !g->adapt.solo; /* solo also while the helpers have not started */
}

/* Whether SM s runs its tasks on the main thread (alone, or its home there): only then does
 * fetching for it in a serial phase warm the cache that will use it. */
static inline int sim_sm_here(const sim *g, uint32_t s)
{
    if (g->windowed) /* the SM's own task is running meanwhile */
        return 0;
    return !sim_spread(g) || !g->home_sm[s];
}

/* chan.c */
void sim_chans_init(sim *g);
void sim_chans_free(sim *g);
uint32_t sim_chans_plan(sim *g, unsigned m);       /* the channel tasks of edge m */
void sim_chans_defer(sim *g);                      /* an edge of the DRAM clock alone */
void sim_chans_task(sim *g, uint32_t i, unsigned m, uint32_t me);
void sim_chans_after(sim *g, uint32_t ntask);      /* serial, after phase B */
/* a request entered channel c, to leave its ROP delay at core cycle `ready` */
void sim_chans_pushed(sim *g, uint32_t c, uint64_t ready);
int sim_chans_may_act(const sim *g, uint32_t c);   /* 0: no wake to ask (ff.c) */
void sim_chans_replies_out(sim *g);                /* replies into the interconnect */
void sim_sync_channels(sim *g); /* before a serial phase reads or prefills a channel */
/* window.c */
int sim_run_windowed(sim *g, base_err *e, FILE *diag); /* sync_window > 0: the whole run */
void sim_window_free(sim *g);
void sim_window_sync_channels(sim *g); /* the counted edges of channels without a task */
void sim_window_diagnose(const sim *g, FILE *f); /* the links holding entries (serial) */
/* sim.c, for window.c: the exact loop's pieces that do not touch the SMs */
unsigned sim_next_edges(sim *g);   /* which clock domains tick next; advances them */
int sim_watchdog(sim *g, base_err *e, FILE *diag);
int sim_stop_now(sim *g);
/* kern.c */
int sim_kernels_advance(sim *g, base_err *e);  /* launches what may launch; 0 or -1 */
int sim_issue_ctas(sim *g, base_err *e);
void sim_retire(sim *g);
int sim_all_done(const sim *g);
int sim_drained(sim *g); /* ledger.c: nothing in flight anywhere (serial, at a run's end) */
int sim_kernels_launching(const sim *g); /* a kernel with CTAs left is in its launch latency */
int sim_kernel_pending_may_launch(const sim *g); /* the kernel waiting open may launch now */
void sim_finish_kernels(sim *g);
/* ff.c */
void sim_ff_after_core(sim *g, int moved);  /* moved: anything moved in the cycle just run */
void sim_ff_free(sim *g);
uint64_t sim_kernels_wake(const sim *g); /* first core cycle a kernel event may come (g->cycle: now) */
/* report.c */
void sim_snapshot(sim *g, sim_totals *t);
void sim_totals_sub(sim_totals *d, const sim_totals *a, const sim_totals *b);
/* ahead.c */
void sim_ahead_start(sim *g, run_kernel *rk);  /* a launch: a ring when threads > 1 */
int sim_ahead_wanted(const sim *g);
void sim_ahead_task(sim *g);                   /* phase B (OpenMP schedules): refill the rings */
void sim_ahead_post(sim *g);                   /* team: a background job refills them */
void sim_ahead_bg(sim *g);                     /* team helper: run the posted job */
int sim_ahead_take(sim *g, run_kernel *rk, trace_cta *slot, uint32_t *need, base_err *e);
void sim_ahead_free(sim *g, run_kernel *rk);
/* sim.c */
void sim_run_task(sim *g, uint32_t i, unsigned m, uint32_t me); /* task i of phase B, on thread me */
void sim_task_prefetch(const sim *g, uint32_t i); /* before task i: fetch what it reads first */
/* whether a solo period of `secs` that saw `done` CTAs end leaves the run enough work for the
 * helpers (team_min_left_ms); sets res->solo_left_ms (-1: no estimate made) */
int sim_work_left(sim *g, double secs, uint64_t done);
/* SMs: progress, a request to send (and more behind it), CTAs to retire, work left inside,
 * room for a reply; channels: ran, and after it their DRAM side busy, their L2 side busy or
 * asleep (its wake in the channel's `last` slot), replies waiting */
enum { SMF_PROG, SMF_OUT, SMF_OUT2, SMF_DONE, SMF_ACT, SMF_INROOM, SMF_PARK,
       SMF_CH_RAN, SMF_CH_DRAM, SMF_CH_L2, SMF_CH_SLEEP, SMF_CH_REP, SMF_KINDS };
/* The end of SM s's task on thread `me` (either loop): its park's end where the serial phase
 * reads it, written only when it changes (eight SMs share a host line, and a store of the same
 * value still takes the line from the cores of its other SMs, every edge for nothing), and its
 * progress bit. Returns its word in the thread's flag bitmaps (kind k at [k * smf_words]). */
static inline uint64_t *sim_sm_task_end(sim *g, uint32_t s, uint32_t me, int prog)
{
    const sm *u = g->sm[s];
    uint64_t park = sm_parked(u) ? sm_park_until(u) : 0;
    if (g->park_at[s] != park)
        g->park_at[s] = park;
    uint64_t *f = g->smf + (size_t)me * g->smf_stride + s / 64;
    if (prog)
        f[SMF_PROG * g->smf_words] |= 1ull << (s % 64);
    return f;
}

uint64_t sim_smf_take(sim *g, int kind, uint32_t word); /* serial: OR of the threads' bits, cleared */
uint32_t sim_task_owner(const sim *g, uint32_t i, uint32_t threads); /* its home thread */
void sim_homes_rebalance(sim *g); /* main thread, between edges: SM homes follow the steals */
#define SIM_ADAPT_EDGES 256u /* core edges a window */
#define SIM_ADAPT_STAY 16u     /* windows the faster way runs before the other is tried */
#define SIM_ADAPT_STAY_MAX 64u /* ... up to this many while the tries confirm it */
#define SIM_ADAPT_TRY_SHARE 32.0 /* a try losing by q-fold waits 32(q-1) windows or more */
#define SIM_ADAPT_STAY_LONG 1024u /* ... up to this many */
#define SIM_ADAPT_DRIFT 1.5    /* a window this much slower or faster than ref: try now */
#define SIM_ADAPT_GIVEUP 2.0   /* a try this much slower than the window before it ends */
/* ... with two threads, whose other way loses twofold at most (a solo try of reduce 1M or
 * sgemm 256: 1.7), so that 2.0 never ended a try early nor marked it far */
#define SIM_ADAPT_GIVEUP_PAIR 1.5
#define SIM_ADAPT_LOOK 16u     /* ... as seen every this many edges of the try */
#define SIM_ADAPT_LOOK_MIN 32u /* ... from this many on */
#define SIM_ADAPT_FULL 1
#define SIM_ADAPT_CHECK 2
void sim_adapt_init(sim_adapt *a, double now, uint32_t threads);
/* After a core edge: SIM_ADAPT_FULL when it ended a window, which sim_adapt_window then closes
 * with the time (the clock is read once a window, not every edge); SIM_ADAPT_CHECK now and
 * then during a try: read the clock, and close the window now if sim_adapt_lost says so;
 * else 0. a->solo says how the next edge runs. */
int sim_adapt_edge(sim_adapt *a);
int sim_adapt_lost(const sim_adapt *a, double now);
void sim_adapt_window(sim_adapt *a, double now);
/* Runs fn(g, ctx, i) for i in 0..n-1, on the team when it runs, else in order here. Each i
 * must write only state of its own that no other i reads. */
void sim_team_jobs(sim *g, uint32_t n, void (*fn)(struct sim *g, void *ctx, uint32_t i),
                   void *ctx);
/* The same jobs on a parallel region of their own (threads knob; one thread: in order),
 * for a serial phase before the team has started (team_deferred). */
void sim_solo_jobs(sim *g, uint32_t n, void (*fn)(struct sim *g, void *ctx, uint32_t i),
                   void *ctx);
/* team.c */
uint32_t sim_team_max_tasks(void);
void sim_team_init(sim_team *t, uint32_t threads, uint32_t max_tasks, int profile);
void sim_team_free(sim_team *t);
void sim_team_run(sim *g, uint32_t n, unsigned mask);  /* main thread: run tasks 0..n-1 */
void sim_team_work(sim *g, uint32_t me);               /* helper thread me, until stopped */
void sim_team_stop(sim_team *t);
/* watch.c */
void sim_diagnose(sim *g, FILE *f);
void sim_progress(sim *g, int final);
double sim_wall(void);

#endif
