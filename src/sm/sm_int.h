/* sm internals shared by sm.c, issue.c, ldst.c, sched.c. */
#ifndef LOCKSTEP_SM_INT_H
#define LOCKSTEP_SM_INT_H
#include "sm.h"

/* Statistic slots of the "sm" set: counters first, in sm_stats.def order, then DISTs. */
enum {
#define STAT_COUNTER(n, h) SMS_##n,
#define STAT_DIST(n, b, nb, h)
#define STAT_RATIO(n, a, b, h)
#include "sm_stats.def"
#undef STAT_COUNTER
#undef STAT_DIST
#undef STAT_RATIO
    SMS_NCOUNTERS
};
typedef enum sm_stall {
    SM_ST_ISSUED, SM_ST_IDLE, SM_ST_IBUFFER, SM_ST_SCOREBOARD, SM_ST_PIPE, SM_ST_MEM,
    SM_ST_BARRIER, SM_ST_MEMBAR, SM_NSTALL
} sm_stall;
extern const char *const sm_stall_names[SM_NSTALL];
#define SMS_STALL SMS_NCOUNTERS  /* first slot of the DIST "issue" */

#define SM_OUT_SPILL 4    /* see sm.out_cap */
#define SLOT_FILL 0xFFFFu /* a request that fills the L1D: its waiters are in the MSHR */

enum { SM_W_FREE, SM_W_ACTIVE, SM_W_BARRIER, SM_W_EXITED, SM_W_DONE };

typedef struct sm_warp {
    /* what the schedulers read of every warp each cycle first, on the warp's first host
     * line as often as the 80-byte stride allows; the scoreboard after */
    uint64_t age;          /* launch sequence (GTO: older first) */
    uint64_t ib_t;         /* cycle the buffered instructions become issuable */
    uint8_t state, ib_n;   /* SM_W_*, instructions in the buffer */
    uint8_t sched;
    uint8_t membar;        /* waiting for its stores before a MEMBAR issues */
    uint8_t code;          /* SM_CODE_*: cached issue check of the next instruction */
    uint16_t cta;          /* CTA slot */
    uint32_t loads, stores;/* outstanding load instructions, store sectors awaiting acks */
    uint32_t inflight;     /* issued instructions not yet written back */
    uint32_t pos, end;     /* next instruction (index into the CTA's insts) and end */
    uint64_t sb[4];        /* registers with a write in flight */
} sm_warp;

/* sm_warp.code: what stops the buffered next instruction apart from time and pipeline
 * occupancy. It depends on pos, sb and stores only, so it is computed once and cleared
 * (SM_CODE_NONE) whenever one of them changes, instead of re-decoding every cycle. */
enum { SM_CODE_NONE, SM_CODE_MEMBAR, SM_CODE_SB, SM_CODE_UNIT /* + unit */ };

typedef struct sm_cta {
    trace_cta tc;
    const sm_kernel *kk;
    uint32_t first_warp, nwarps, live, at_barrier;
    uint8_t used, done;
} sm_cta;

/* A register-release event: at cycle t, instruction sidx of warp w writes back. */
typedef struct sm_event {
    uint64_t t;
    uint32_t warp, sidx;
} sm_event;

/* An entry of the pending table: a memory instruction waiting for sectors. */
typedef struct sm_pend {
    uint32_t warp, sidx;
    uint32_t remaining;    /* sectors not yet answered */
    uint64_t ready;        /* latest hit-completion cycle among answered sectors */
    uint8_t used, open;   /* open: the LD/ST unit is still sending its sectors */
} sm_pend;

/* An instruction between issue and the LD/ST unit. */
typedef struct sm_ldst_entry {
    uint64_t ready;        /* operands collected */
    uint32_t warp, dyn;    /* dyn: index into the CTA's insts */
} sm_ldst_entry;

typedef struct sm_unitq {   /* one execution pipeline of a sub-core */
    uint64_t free;          /* first cycle a new instruction may start */
} sm_unitq;

#define SM_MAX_SECTORS 128

typedef struct sm_subcore {
    /* Read every cycle (the repeated-cycle test, the park's horizon): first, so that a cycle
     * that repeats touches one host line of the sub-core.
     * order[0..norder) stays valid (order_ok) until the candidate set, the last issuer or a
     * view field the policy reads (sm_sched_ops.reads) changes: the policy sees the same
     * input, so gives the same order. cand[0..norder) and the views stay valid (cand_ok)
     * until the candidate set or such a field changes: a new last issuer only reorders. */
    uint32_t norder;
    uint8_t order_ok, cand_ok;
    uint8_t keep_ok;           /* the policy's keep[] matches cand[] and the views */
    /* A cycle without issue repeats (memo_why) while no warp of the sub-core changes
     * (sm_warp_touch), no buffered instruction or busy pipeline comes due (memo_until) and,
     * if memo_mem, the LD/ST queue stays full. */
    uint8_t memo_ok, memo_why, memo_mem;
    uint64_t memo_until;
    uint32_t *warps, nwarps;   /* warp slots of this scheduler (ascending) */
    uint32_t *order, *cand;    /* scratch for the policy */
    uint32_t *keep;            /* the policy's own (sm_sched_ops.order) */
    sm_warp_view *views;       /* scratch */
    sm_sched_state st;
    sm_unitq unit[SM_NUNIT][4];
    uint32_t nunit[SM_NUNIT];  /* parallel pipelines of each unit type (0 = borrow SP) */
    uint64_t *bank_free;       /* register banks of this sub-core */
    uint32_t nbanks;
} sm_subcore;

enum { SM_PARK_NONE, SM_PARK_ARMED, SM_PARK_PARKED, SM_PARK_DRAIN, SM_PARK_OWED };

struct sm {
    const sm_ctx *ctx;
    const knobs *k;
    const sm_sched_ops *sched_ops;
    uint32_t id;
    stat_block st;
    cache *l1d;
    cache *l1i;               /* NULL: perfect instruction cache */
    stat_block l1d_hold;      /* all zero: the L1D block of an SM without L1D */
    int l1d_assoc;

    sm_warp *w;
    uint32_t nwarps_max;
    sm_cta *cta;
    uint32_t ncta_max, nctas, pending_slot;
    const sm_kernel *defer_kk; /* sm_cta_launch_defer: the launch to do, at defer_at */
    uint64_t defer_at;
    uint32_t *kept, nkept;     /* sm_cta_retire_keep: uids of the kernels of CTAs retired */
    uint32_t cta_hw;          /* slots [0, cta_hw) have held a CTA; the rest were never touched */
    uint64_t next_age;
    int64_t threads_used, regs_used, smem_used;

    sm_subcore *sub;
    uint32_t nsub;
    uint32_t fetch_next;
    uint64_t *fetchable;      /* bit per warp slot: ACTIVE, buffer empty, instructions left */
    uint64_t *running;        /* bit per warp slot: ACTIVE (same allocation, after fetchable) */
    uint32_t ndone;           /* CTAs whose warps all finished, not yet retired */

    sm_event *ev;             /* min-heap on (t, warp, sidx) */
    uint32_t nev;
    size_t evcap;

    sm_ldst_entry *lq;        /* LD/ST input FIFO */
    uint32_t lq_head, lq_n, lq_cap;
    /* the instruction in the LD/ST unit */
    int busy;
    uint64_t busy_until;
    sm_ldst_entry cur;
    sm_inst cur_inst;         /* its decoded instruction (a copy: kernel tables may grow) */
    uint32_t cur_sidx;
    uint32_t cur_pend;
    int cur_space;
    uint64_t cur_done;      /* shared/constant: cycle the data is written back */
    uint64_t sectors[SM_MAX_SECTORS];
    uint32_t nsect, next_sect;
    int refused;            /* its last cycle ended on a sector the L1D refused */
    uint8_t refused_fail;   /* ... and why (cache_fail; CACHE_FAIL_NONE: the outbound queue) */

    sm_pend *pend;
    uint32_t npend, pend_free_hint, pend_cap;
    /* The outbound queue's modelled size (l1d_miss_queue + 4). A sector is presented only
     * with 5 of it free, yet one access may push a write, a line's 4 fetches and 4 sectors
     * written back; the ring holds SM_OUT_SPILL slots more so such an access never
     * overflows it, and the check, not the ring, decides when the unit stalls. */
    uint32_t out_cap;

    /* On a host line of their own, away from the fields the SM's task writes every cycle: both
     * are pushed and popped by the SM's own task (replies come through the simulator's inbox,
     * requests leave as a copy of `out`'s head in its outbox), but a serial reader may still
     * pop a sent head here (sim_sm_sync_pop). */
    _Alignas(BASE_LINE) mem_q out, in; /* out's ring: out_cap + SM_OUT_SPILL slots */
    _Alignas(BASE_LINE) mem_req *waiters; /* cache_fill output: room for every merge of a line */
    size_t nwaiters;
    uint32_t req_seq;
    int progress;
    /* parking (park.c): a state change this cycle that `progress` does not report; the
     * state (SM_PARK_*); while parked, the first cycle not yet counted and the first that
     * may differ (once unparked with cycles owed, the first not owed); the statistics copy
     * (SM block, then L1D) and, while parked, the slots one cycle moves and by how much
     * (park_n of them) */
    uint8_t changed;
    uint8_t park;
    uint64_t park_from, park_until;
    uint64_t *park_snap, *park_delta;
    uint16_t *park_slot;
    uint32_t park_n;
    uint64_t park_skipped;
    uint32_t check_n;         /* host_park_check: 1 + pairs predicted for the cycle measured */
    base_slab slab;           /* w, cta, sub (and their arrays), lq, pend, out, in, waiters */
};

/* issue.c */
void sm_issue_cycle(sm *s, uint64_t now);
void sm_events_run(sm *s, uint64_t now);
void sm_event_push(sm *s, uint64_t t, uint32_t warp, uint32_t sidx);
void sm_warp_check_done(sm *s, uint32_t w);
void sm_fetch_cycle(sm *s, uint64_t now);
/* ldst.c */
void sm_ldst_cycle(sm *s, uint64_t now);
void sm_reply_cycle(sm *s, uint64_t now);
int sm_ldst_can_take(const sm *s);
void sm_ldst_push(sm *s, uint32_t warp, uint32_t dyn, uint64_t ready);
/* park.c */
void sm_park_step(sm *s, uint64_t now);
int sm_park_drain(sm *s, uint64_t now);
void sm_park_pay_owed(sm *s);
/* The skipped cycles of an unparked SM counted, where they are still owed (sm_unpark). */
static inline void sm_park_pay(sm *s)
{
    if (s->park == SM_PARK_OWED)
        sm_park_pay_owed(s);
}
void sm_park_outside(sm *s, const char *what);

static inline const sm_kernel *sm_warp_kernel(const sm *s, uint32_t w)
{
    return s->cta[s->w[w].cta].kk;
}
static inline const trace_dinst *sm_warp_dinst(const sm *s, uint32_t w, uint32_t dyn)
{
    return &s->cta[s->w[w].cta].tc.insts[dyn];
}
/* A warp's sb, stores or loads changed: its cached check and its sub-core's memo are stale. */
static inline void sm_warp_touch(sm *s, uint32_t w)
{
    s->w[w].code = SM_CODE_NONE;
    s->sub[s->w[w].sched].memo_ok = 0;
}

/* A warp's state, pos or ib_n changed: also refresh its bits. */
static inline void sm_warp_changed(sm *s, uint32_t w)
{
    const sm_warp *x = &s->w[w];
    uint64_t bit = 1ull << (w & 63);
    if (x->state == SM_W_ACTIVE && !x->ib_n && x->pos < x->end)
        s->fetchable[w >> 6] |= bit;
    else
        s->fetchable[w >> 6] &= ~bit;
    if (x->state == SM_W_ACTIVE)
        s->running[w >> 6] |= bit;
    else
        s->running[w >> 6] &= ~bit;
    sm_warp_touch(s, w);
}

/* Warp w's waiting_mem view changed (its first load left or its last returned). */
static inline void sm_warp_mem_view(sm *s, uint32_t w)
{
    if (s->sched_ops->reads & SM_SCHED_MEM)
        s->sub[s->w[w].sched].order_ok = s->sub[s->w[w].sched].cand_ok = 0;
}

static inline int sm_warp_schedulable(int state)
{
    return state == SM_W_ACTIVE || state == SM_W_BARRIER;
}

static inline void sm_warp_set_state(sm *s, uint32_t w, uint8_t state)
{
    sm_warp *x = &s->w[w];
    if (sm_warp_schedulable(x->state) != sm_warp_schedulable(state))
        s->sub[x->sched].order_ok = s->sub[x->sched].cand_ok = 0;
    x->state = state;
    sm_warp_changed(s, w);
}

#define SMST(s, name) ((s)->st.v[SMS_##name])

#endif
