/* sm: one streaming multiprocessor, cycle by cycle.
 *
 * Structure (Volta+ sub-core model; knob sub_core_model = 0 gives one shared pool):
 *   fetch (one warp per fetch slot and cycle, perfect or modelled I-cache) -> per-warp
 *   instruction buffer -> per-scheduler issue (policy plug-in, scoreboard, pipeline slots)
 *   -> operand collector (register banks per sub-core, bank conflicts) -> execution unit
 *   (latency, initiation interval) -> writeback; memory instructions go through one LD/ST
 *   unit per SM: coalescer (32-byte sectors), shared memory (bank conflicts), L1D (a `cache`
 *   instance), constant path; misses and stores leave through the SM's own outbound queue.
 *
 * Timing of compute instructions is computed at issue from the state of in-order resources
 * (bank free times, unit initiation times), which equals a stage-by-stage simulation of
 * in-order pipelines and costs O(1) per instruction. Register results are released by an
 * event heap private to the SM.
 *
 * Threading contract (ARCHITECTURE.md section 2): sm_cycle() reads the shared kernel tables
 * (sm_kernel, read-only during phase B) and touches only its own sm: its stats, its inbound
 * queue (filled in phase A) and its outbound queue (drained in phase C). Everything else
 * (CTA launch/retire, L1 reconfiguration, statistics reduction) is serial. */
#ifndef LOCKSTEP_SM_H
#define LOCKSTEP_SM_H
#include "../cache/cache.h"
#include "../knob/knob.h"
#include "../mem/part.h"
#include "../mem/req.h"
#include "../stat/stat.h"
#include "../trace/trace.h"
#include <stdio.h>

typedef enum sm_unit {
    SM_U_SP, SM_U_DP, SM_U_INT, SM_U_SFU, SM_U_TENSOR, SM_U_MEM,
    SM_U_SPEC1, /* .. SM_U_SPEC1 + 7 */
    SM_NUNIT = SM_U_SPEC1 + 8
} sm_unit;
extern const char *const sm_unit_names[SM_NUNIT];

typedef enum sm_op {
    SM_OP_ALU,     /* everything timed by a unit's latency only */
    SM_OP_LOAD, SM_OP_STORE, SM_OP_ATOMIC,
    SM_OP_BAR, SM_OP_MEMBAR, SM_OP_EXIT,
} sm_op;

#define SM_MAX_DST 4
#define SM_MAX_SRC 6
#define SM_NO_REG 255

/* A static instruction decoded once (sm_kernel_decode). */
typedef struct sm_inst {
    uint16_t lat, init;  /* core cycles: latency, initiation interval */
    uint16_t width;      /* bytes per lane for memory instructions */
    uint8_t unit, op;    /* sm_unit, sm_op */
    uint8_t space;       /* trace_space */
    uint8_t bypass_l1;   /* .STRONG.GPU global access */
    uint8_t fallback;    /* a specialized unit the config lacks: runs on INT */
    uint8_t ndst, nsrc;
    uint8_t dst[SM_MAX_DST], src[SM_MAX_SRC];
} sm_inst;

/* One running kernel, shared read-only by all SMs during phase B. */
typedef struct sm_kernel {
    uint32_t uid;            /* launch order, from 1 */
    trace_kernel *tk;
    const trace_header *h;
    sm_inst *insts;          /* decoded table, index = trace sidx */
    uint64_t *pcs;           /* each one's PC: SMs must not read the trace dictionary, which
                              * a CTA prefetch may be growing during phase B */
    size_t ninsts, cap, pcs_cap;
    uint64_t shmem_base, local_base;
    int64_t padded_threads, regs_alloc, smem_alloc, max_ctas_per_sm;
} sm_kernel;

/* Decodes every static instruction the trace reader knows and this table does not yet
 * (serial: called after each trace_next_cta). Unknown specialized units fall back to INT. */
void sm_kernel_decode(sm_kernel *kk, const knobs *k);

typedef struct sm sm;

/* Shared, immutable-after-setup context of all SMs. */
typedef struct sm_ctx {
    const knobs *k;
    const mem_map *map;
    const stat_set *stats;   /* sm_stats_set() */
    /* the simulator offers a parked SM's queued requests itself (sm_outbound's head, popped
     * once sent), so an SM may park with requests still queued out; else it drains them
     * first (park.c) */
    int park_queued;
} sm_ctx;

sm *sm_new(const sm_ctx *ctx, uint32_t id);
void sm_free(sm *s);

/* Kernel boundary (serial): reconfigure the L1D for the kernel's shared-memory carve-out
 * (KB; -1 = keep) and flush it if flush_l1d_per_kernel. */
void sm_kernel_start(sm *s, const sm_kernel *kk, int64_t carveout_kb);

/* CTA placement (serial). sm_cta_fits: resources for one more CTA of kk. sm_cta_slot
 * returns the trace_cta buffer of a free CTA slot to read the CTA into (NULL if none);
 * sm_cta_launch then makes its warps runnable. */
int sm_cta_fits(const sm *s, const sm_kernel *kk);
trace_cta *sm_cta_slot(sm *s);
void sm_cta_launch(sm *s, const sm_kernel *kk, uint64_t now);
/* The windowed mode's launch: placement stays serial (sm_cta_fits, sm_cta_slot and the CTA
 * read into the slot), but sm_cta_launch of the slot at `now`, with the slot's buffers fitted,
 * is left to sm_cta_launch_pending, which the SM's own task calls before its first cycle: the
 * warps' state is written on the core that runs them, not in the serial part between windows.
 * The state then is what an immediate launch leaves; nothing reads it in between (a later
 * sm_cta_fits or sm_cta_slot with a launch pending panics). */
void sm_cta_launch_defer(sm *s, const sm_kernel *kk, uint64_t now);
/* The deferred launch, if one is pending. */
void sm_cta_launch_pending(sm *s);
/* The windowed mode's retirement, by the SM's own task after its window's last cycle: a
 * parked SM is unparked at `now` (the window's end, as the serial part did), its finished CTAs
 * retire, and their kernels' uids are kept in the SM (one per CTA slot at most) until the
 * serial part adds them up with sm_cta_retired_take, which returns how many. */
uint32_t sm_cta_retire_keep(sm *s, uint64_t now);
uint32_t sm_cta_retired_take(sm *s, uint64_t *done_by_uid);
/* Retires finished CTAs (serial); returns how many and adds 1 to done_by_uid[kernel uid]
 * for each. */
uint32_t sm_cta_retire(sm *s, uint64_t *done_by_uid);
int sm_ctas_done(const sm *s); /* CTAs finished and waiting for sm_cta_retire */
uint32_t sm_ctas_resident(const sm *s);
uint32_t sm_ctas_of(const sm *s, uint32_t kernel_uid);
int sm_active(const sm *s);  /* anything resident or in flight */
int sm_active_inside(const sm *s); /* the same, its outbound queue left out */

/* Phase B: one core cycle. Returns 1 if it made progress (issued, moved or retired). */
int sm_cycle(sm *s, uint64_t now);
/* Fast-forward: the first cycle >= now at which sm_cycle may change more than its per-cycle
 * statistics, assuming no reply arrives (UINT64_MAX: only a reply can wake it). Until then
 * every sm_cycle adds the same statistics as the one before. */
uint64_t sm_next_wake(const sm *s, uint64_t now);

/* Parking (park.c; only with fast_forward): once its next cycles would change nothing but the
 * statistics, sm_cycle parks the SM until sm_park_until (UINT64_MAX: until something arrives).
 * It may park with requests still queued out where sm_ctx.park_queued says the simulator offers
 * them itself; else it parks once they have left (its cycles meanwhile cost a few additions).
 * The simulator does not run a parked SM; it calls sm_unpark(s, c), c being the first cycle the
 * SM has not been counted in, when that cycle is reached, and before a reply, a CTA or a kernel
 * start reaches the SM (which panic on a parked SM). sm_park_settle adds the skipped cycles'
 * statistics up to c and keeps the SM parked (before statistics are read). sm_park_disarm
 * forgets a half-taken measurement or a park still waiting for its queue (after the statistics
 * were changed from outside, as by the fast-forward's jump). */
int sm_parked(const sm *s);
uint64_t sm_park_until(const sm *s);
void sm_park_settle(sm *s, uint64_t upto);
void sm_unpark(sm *s, uint64_t upto);
void sm_park_disarm(sm *s);
uint64_t sm_park_skipped(const sm *s); /* cycles counted by settling so far */

/* Queues to the memory system. */
mem_q *sm_outbound(sm *s);          /* requests to the interconnect (sent in phase C) */
int sm_queued_out(const sm *s);     /* whether any wait there */
int sm_inbound_room(const sm *s);   /* replies the SM can still accept */
void sm_inbound_push(sm *s, const mem_req *r); /* by the SM's own task, before its cycle */
/* No effect: reply r fills the L1D in the SM's next cycle, on the caller's core, so the line
 * its MSHR entry names is fetched into that core's cache meanwhile (the entry itself was
 * fetched a cycle before, by sm_prefetch_reply_early). */
void sm_prefetch_reply(const sm *s, const mem_req *r);
/* No effect: reply r reaches the SM in a later cycle; its MSHR entry and first waiter are
 * fetched meanwhile. */
void sm_prefetch_reply_early(const sm *s, const mem_req *r);

/* Statistics: the "sm" set, and the SM's L1D cache block. */
const stat_set *sm_stats_set(void);
stat_block *sm_stats(sm *s);
stat_block *sm_l1d_stats(sm *s);
/* Sum of the lockstep progress counters (warp instructions issued so far). */
uint64_t sm_warp_insts(const sm *s);

/* Hang diagnosis: every resident warp and what it waits for; queue occupancies. */
void sm_diagnose(const sm *s, FILE *f, uint64_t now);
/* Visits every request the SM waits for (pending table), for locating them downstream. */
uint32_t sm_pending_requests(const sm *s);

/* Warp scheduler policies (sched.c): order() writes the issue priority of the n warps in
 * cand[] (warp slot numbers of one scheduler, ascending) into out[]. keep[0..n) is the
 * policy's own, kept per scheduler between calls; fresh is 1 when cand[] or a view field
 * the policy reads changed since its previous call for that scheduler (or there was none),
 * 0 when only st did, so keep still holds what that call left (GTO: the age order). */
typedef struct sm_sched_state {
    uint32_t last;          /* warp slot issued last (LRR, GTO) */
    uint32_t active_mask_n; /* two-level: active set size */
} sm_sched_state;
typedef struct sm_warp_view {
    uint64_t age;           /* launch sequence: smaller = older */
    int waiting_mem;        /* has a load outstanding (two-level demotion) */
} sm_warp_view;
/* What a policy reads of the views: the issue stage fills only those fields, and a change of
 * a field no flag names (a warp's first load leaving or its last returning) keeps the order. */
enum { SM_SCHED_AGE = 1, SM_SCHED_MEM = 2 };
typedef struct sm_sched_ops {
    const char *name, *help;
    void (*order)(const sm_sched_state *st, const uint32_t *cand, const sm_warp_view *views,
                  uint32_t n, uint32_t active_n, uint32_t *keep, int fresh, uint32_t *out);
    unsigned reads; /* SM_SCHED_* */
} sm_sched_ops;
const sm_sched_ops *sm_sched_find(const char *name);
extern const sm_sched_ops *const sm_sched_registry[];

#endif
