/* dram: one channel's controller at command-clock granularity (contract in dram.h).
 *
 * Each cycle:
 *  1. the scheduler queue length is added to queue_sum;
 *  2. command issue. Banks are scanned round-robin, starting after the bank of the last
 *     issued command. For each bank with queued requests the plug-in picks a request; the
 *     bank state gives the command it needs: bank idle -> ACT; its row open -> RD or WR;
 *     another row open -> PRE (under FR-FCFS the pick is a miss only when no queued request
 *     hits the open row, so an open row is never closed under a pending hit). The command
 *     issues if every timing rule allows it; a column command also needs the data bus
 *     (its burst may start only after the previous burst ended, so bursts leave the bus in
 *     command order and never overlap) and a reserved return-queue entry (in flight +
 *     returned < return queue capacity: back-pressure stops column commands, as GPGPU-Sim
 *     stops them when its rwq is full because the return queue does not drain).
 *     Single command bus: the first issuable command of the scan, at most one per cycle.
 *     Dual bus: one scan for a column command, then one for a row command.
 *  3. the cycle ends; requests whose data has fully transferred move to the return queue:
 *     a read tCL + burst cycles after its RD, a write tWL + burst after its WR. So a read to
 *     an idle bank pushed before cycle 0 is ready after exactly tRCD + tCL + burst calls.
 *
 * Differences from GPGPU-Sim (dram.cc, dram_sched.cc), all deliberate simplifications:
 *  - GPGPU-Sim commits a bank to one request (bk->mrq) and assigns at most one request per
 *    cycle; here the plug-in is asked every cycle, so a row hit that arrives while the bank
 *    waits to precharge for an older miss is served first.
 *  - GPGPU-Sim's single-bus loop can issue a row command on one bank and then a column
 *    command on a later bank in the same cycle; here a single bus carries one command.
 *  - GPGPU-Sim returns a read CL cycles after its RD (rwq delay line) and has no data-bus
 *    occupancy check; the contract here is tCL + burst and non-overlapping bursts (with the
 *    derived turnarounds the bus check never binds; with dram_no_rw_turnaround it does).
 *  - The round-robin start moves after every command (GPGPU-Sim: after ACT/PRE and after
 *    each request assignment).
 *  - The separate write queue (dram_separate_write_queue and its watermarks) is not modelled.
 */
#include "dram.h"

#include <stdlib.h>
#include <string.h>
#if BASE_AVX2
#include <immintrin.h>
#endif

#define NEVER (INT64_MIN / 2)       /* "never issued": t - NEVER exceeds every delay */
#define SCHED_Q_UNLIMITED 4096u     /* dram_sched_queue = 0 */
#define RETURN_Q_UNLIMITED 1024u    /* dram_return_queue = 0 (GPGPU-Sim uses 1024 too) */
#define ROW_CMDS ((1u << DRAM_ACT) | (1u << DRAM_PRE))
#define COL_CMDS ((1u << DRAM_RD) | (1u << DRAM_WR))

static const stat_desc dram_descs[] = {
#define STAT_DEF_FILE "dram/dram_stats.def"
#include "../stat/stat_descs.inc"
};

enum {
#define STAT_COUNTER(n, h) DS_##n,
#define STAT_DIST(n, b, nb, h) DS_##n,
#define STAT_RATIO(n, a, b, h) DS_##n,
#include "dram_stats.def"
#undef STAT_COUNTER
#undef STAT_DIST
#undef STAT_RATIO
    DS_COUNT
};

#define BUMP(d, name, n) stat_inc(&(d)->st, (d)->st.set->slot[DS_##name], (n))

/* The plug-in's pick is a pure function of the queue and the open row (dram.h), so it is
 * remembered per bank, with the command it needs, until either changes (dram.stale): most
 * cycles only wait on timing rules. A bank-local plug-in's pick goes stale only when its own
 * bank's entries change; another plug-in's when any entry does. */
typedef struct dram_bank {
    int64_t open_row; /* -1: idle (precharged) */
    int used;         /* a column command went to the open row since its activate */
    uint32_t group;
    uint32_t nq;      /* queued requests for this bank */
    uint32_t head, tail; /* its requests in arrival order (slots, NIL: none) */
    uint32_t pick;    /* the remembered pick (slot) or NIL */
    int8_t want;      /* the command it needs (dram_cmd), -1 with no pick */
} dram_bank;

#define NIL UINT32_MAX

typedef struct dram_flight {
    mem_req r;
    uint64_t done; /* cycle its data transfer ends */
} dram_flight;

struct dram {
    /* First what every cycle and every wait reads (dram_cycle, dram_wait, dram_can_accept,
     * dram_ret_ready), on two host lines: the channel's state is out of the core's L1 by the
     * time the next cycle comes back to it, so each line it spans costs a miss. */
    uint64_t now;
    /* No command can issue before this cycle while nothing is pushed or popped (see
     * try_issue); the scans before it would find nothing, so they are skipped. With a single
     * command bus, `decided` is the bank whose command issues at quiet_until, as the scan
     * then would choose it (NIL: not known, scan). Both are worked out right after a command
     * issues, from the state it leaves, and hold until a push or a pop. */
    uint64_t quiet_until;
    dram_flight *fl; /* in flight, a ring in completion order */
    /* the oldest flight's done (UINT64_MAX: none), here so that a wait need not read the
     * ring's head line */
    uint64_t fl_done;
    mem_q ret;
    uint32_t qn, qcap;
    uint32_t fl_head, fl_n;
    stat_block st;
    uint32_t decided;
    int eager;       /* dram_set_eager */
    uint32_t prio;
    uint64_t bus_end;
    dram_timing t;
    mem_addrmap map;
    uint32_t n_mem, n_sub, channel;
    int xor_bank, dual_bus;
    const dram_sched_ops *sched;
    /* The rules by first command and scope, as (second command, delay) pairs, one per pair
     * (its longest delay: a ready time only ever moves to the latest of its pushes). */
    struct dram_then { uint32_t then, delay; } plan[DRAM_NCMD][4][DRAM_NCMD];
    uint8_t nplan[DRAM_NCMD][4];
    dram_bank *bk;
    /* What the scan reads of each bank, in arrays of their own (a scan of all banks reads
     * few host lines, and the vector scan loads four banks at a time): while the pick is
     * fresh, the first cycle the same-bank rules allow its command (sc_own, INT64_MAX with
     * no pick) and the index of that command's rdy_grp entry for the bank's group (sc_gc,
     * group * DRAM_NCMD + command; DRAM_ACT with no pick). Only a command on this bank moves
     * its same-bank rules, and every command leaves its bank stale (issue, entries_changed),
     * so sc_own cannot go out of date while the pick is fresh. A bank without requests has
     * INT64_MAX there, whatever its last pick was, so a scan of every bank passes it over. */
    int64_t *sc_own;
    uint32_t *sc_gc;
    int64_t *gtab;   /* vector scan: per rdy_grp entry, it or the scan's base if later */
    int simd;        /* the vector scan (dram_uses_simd) */
    /* The first cycle the rules allow a command, kept by scope: [bank][cmd] for same-bank
     * rules, [group][cmd] for same- and other-group rules, [cmd] for any-bank rules; a bank
     * may issue cmd from the largest of its three. Issue times only grow, so the latest
     * issue of each rule's first command decides, and one update per rule when a command
     * issues keeps them exact (record). */
    int64_t *rdy_bank, *rdy_grp;
    int64_t rdy_any[DRAM_NCMD];
    /* The scheduler queue. A request keeps its slot until it is served, so a remembered
     * pick stays valid and a removal moves nothing. The slots are linked in arrival order
     * twice: all of them (next/prev) and each bank's (bnext/bprev, dram_bank.head/tail). */
    mem_req *q;
    uint64_t *qrow;
    uint32_t *qbank;
    uint32_t *next, *prev, *bnext, *bprev;
    uint32_t head, tail;
    uint32_t *freed, nfreed, fresh; /* slots to reuse (a stack), then the never used */
    /* what the plug-in is shown, oldest first: the bank's requests or the whole queue */
    const mem_req **vq;
    uint32_t *vbank, *vslot;
    uint64_t *vrow;
    uint64_t occ[4];   /* banks with queued requests (dram_banks <= 256) */
    uint64_t stale[4]; /* banks whose remembered pick must be asked for again */
    uint32_t occ_words;
    base_slab slab;  /* every array above */
};

/* The layout is computed by the first call, which must come from serial code (dram_new is
 * called while the simulator is built); afterwards the set is only read. */
const stat_set *dram_stats_set(void)
{
    static stat_set set;
    static int ready;
    if (!ready) {
        set.name = "dram";
        set.descs = dram_descs;
        set.ndescs = DS_COUNT;
        stat_set_init(&set);
        ready = 1;
    }
    return &set;
}

stat_block *dram_stats(dram *d) { return &d->st; }

/* GPGPU-Sim get_bankgrp_number: "higher" takes the high bank bits (b >> log2(nbk/nbkgrp)),
 * "lower" the low ones (b & (nbkgrp-1)); written with / and % for any counts. */
static uint32_t bank_group(const dram_timing *t, int lower, uint32_t b)
{
    if (lower)
        return b % t->nbkgrp;
    uint32_t per = t->nbk / t->nbkgrp ? t->nbk / t->nbkgrp : 1;
    uint32_t g = b / per;
    return g < t->nbkgrp ? g : t->nbkgrp - 1;
}

static void index_rules(dram *d)
{
    dram_rule rules[DRAM_MAX_RULES];
    size_t n = dram_rules(&d->t, rules, DRAM_MAX_RULES);
    for (size_t i = 0; i < n; i++) {
        const dram_rule *r = &rules[i];
        struct dram_then *v = d->plan[r->first][r->scope];
        uint8_t *nv = &d->nplan[r->first][r->scope], j = 0;
        while (j < *nv && v[j].then != r->then)
            j++;
        if (j == *nv)
            v[(*nv)++] = (struct dram_then){r->then, r->delay};
        else if (r->delay > v[j].delay)
            v[j].delay = r->delay;
    }
}

/* The per-bank state and the queues, in both passes of the slab; the queues are sized for
 * the worst case (4096 entries when dram_sched_queue = 0) and mostly never touched. */
static void carve_state(dram *d, uint32_t qcap, uint32_t retcap, base_slab *b)
{
    uint32_t nbk = d->t.nbk;
    d->bk = base_slab_take(b, nbk, sizeof *d->bk);
    d->sc_own = base_slab_take(b, nbk, sizeof *d->sc_own);
    d->sc_gc = base_slab_take(b, nbk, sizeof *d->sc_gc);
    d->gtab = base_slab_take(b, (size_t)d->t.nbkgrp * DRAM_NCMD, sizeof *d->gtab);
    d->rdy_bank = base_slab_take(b, (size_t)nbk * DRAM_NCMD, sizeof *d->rdy_bank);
    d->rdy_grp = base_slab_take(b, (size_t)d->t.nbkgrp * DRAM_NCMD, sizeof *d->rdy_grp);
    d->qcap = qcap;
    d->q = base_slab_take(b, qcap, sizeof *d->q);
    d->qrow = base_slab_take(b, qcap, sizeof *d->qrow);
    d->vrow = base_slab_take(b, qcap, sizeof *d->vrow);
    d->vq = base_slab_take(b, qcap, sizeof *d->vq);
    uint32_t **u32[] = {&d->qbank, &d->next,  &d->prev,  &d->bnext,
                        &d->bprev, &d->freed, &d->vbank, &d->vslot};
    for (size_t i = 0; i < sizeof u32 / sizeof *u32; i++)
        *u32[i] = base_slab_take(b, qcap, sizeof **u32[i]);
    mem_q_carve(&d->ret, retcap, b);
    d->fl = base_slab_take(b, retcap, sizeof *d->fl);
}

static void alloc_state(dram *d, uint32_t qcap, uint32_t retcap)
{
    carve_state(d, qcap, retcap, &d->slab);
    base_slab_alloc(&d->slab);
    carve_state(d, qcap, retcap, &d->slab);
    for (size_t i = 0; i < (size_t)d->t.nbk * DRAM_NCMD; i++)
        d->rdy_bank[i] = NEVER;
    for (size_t i = 0; i < (size_t)d->t.nbkgrp * DRAM_NCMD; i++)
        d->rdy_grp[i] = NEVER;
    for (int c = 0; c < DRAM_NCMD; c++)
        d->rdy_any[c] = NEVER;
    for (uint32_t b = 0; b < d->t.nbk; b++)
        d->sc_own[b] = INT64_MAX;
    d->head = d->tail = NIL;
    d->decided = NIL;
    d->occ_words = (d->t.nbk + 63) / 64;
}

static int simd_ok(const dram *d, const knobs *k);

dram *dram_new(const knobs *k, const mem_addrmap *map, uint32_t channel)
{
    dram *d = base_calloc(1, sizeof *d);
    dram_timing_from_knobs(&d->t, k);
    d->map = *map;
    mem_addrmap_bind(&d->map, (uint32_t)k->n_mem);
    d->n_mem = (uint32_t)k->n_mem;
    d->n_sub = (uint32_t)k->n_sub_partitions;
    d->channel = channel;
    d->xor_bank = k->dram_bank_indexing == 1;
    d->dual_bus = k->dram_dual_bus != 0;
    char name[64];
    knob_enum_name(KNOB_ID_dram_scheduler, k->dram_scheduler, name, sizeof name);
    d->sched = dram_sched_find(name);
    if (!d->sched)
        base_panic("dram %u: no scheduler plug-in named '%s'", channel, name);
    index_rules(d);
    d->simd = simd_ok(d, k);
    alloc_state(d, k->dram_sched_queue ? (uint32_t)k->dram_sched_queue : SCHED_Q_UNLIMITED,
                k->dram_return_queue ? (uint32_t)k->dram_return_queue : RETURN_Q_UNLIMITED);
    for (uint32_t b = 0; b < d->t.nbk; b++) {
        d->bk[b].open_row = -1;
        d->bk[b].head = d->bk[b].tail = d->bk[b].pick = NIL;
        d->bk[b].group = bank_group(&d->t, k->dram_bankgroup_indexing == 1, b);
    }
    memset(d->stale, 0xff, sizeof d->stale);
    d->fl_done = UINT64_MAX;
    stat_block_init(&d->st, dram_stats_set());
    return d;
}

void dram_free(dram *d)
{
    if (!d)
        return;
    base_slab_free(&d->slab);
    stat_block_free(&d->st);
    free(d);
}

int dram_can_accept(const dram *d) { return d->qn < d->qcap; }
int dram_ret_ready(const dram *d) { return !mem_q_empty(&d->ret); }

mem_req dram_ret_pop(dram *d)
{
    if (d->fl_n + mem_q_len(&d->ret) >= d->ret.cap) {
        d->quiet_until = 0; /* a column command may have waited for the room */
        d->decided = NIL;
    }
    return mem_q_pop(&d->ret);
}
int dram_busy(const dram *d) { return d->qn || d->fl_n || !mem_q_empty(&d->ret); }
uint64_t dram_now(const dram *d) { return d->now; }
uint32_t dram_queue_len(const dram *d) { return d->qn; }

/* Bank and row of an address. XOR indexing is GPGPU-Sim's bitwise_hash_function: the bank
 * XOR the low row bits (row & (nbk - 1)); the modulo only matters for bank counts that are
 * not powers of two or maps with more bank bits than banks. */
static void decode(const dram *d, uint64_t addr, uint32_t *bank, uint64_t *row)
{
    uint32_t b;
    mem_addrmap_bank_row(&d->map, d->n_mem, addr, &b, row);
    if (d->xor_bank)
        b ^= (uint32_t)(*row & (uint64_t)(d->t.nbk - 1));
    *bank = b % d->t.nbk;
}

static void mark_stale(dram *d, uint32_t b) { d->stale[b / 64] |= 1ull << (b % 64); }
static void clear_stale(dram *d, uint32_t b) { d->stale[b / 64] &= ~(1ull << (b % 64)); }
static int is_stale(const dram *d, uint32_t b) { return d->stale[b / 64] >> (b % 64) & 1; }

static void entries_changed(dram *d, uint32_t b)
{
    if (d->sched->bank_local)
        mark_stale(d, b);
    else
        memset(d->stale, 0xff, sizeof d->stale);
}

static void occ_set(dram *d, uint32_t b, int on)
{
    uint64_t bit = 1ull << (b % 64);
    d->occ[b / 64] = on ? d->occ[b / 64] | bit : d->occ[b / 64] & ~bit;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The first cycle every timing rule allows cmd on bank b. */
static int64_t rules_ready(const dram *d, int cmd, uint32_t b)
{
    int64_t t = d->rdy_bank[(size_t)b * DRAM_NCMD + (size_t)cmd];
    t = max64(t, d->rdy_grp[(size_t)d->bk[b].group * DRAM_NCMD + (size_t)cmd]);
    return max64(t, d->rdy_any[cmd]);
}

static int rules_allow(const dram *d, int cmd, uint32_t b)
{
    return (int64_t)d->now >= rules_ready(d, cmd, b);
}

void dram_set_eager(dram *d, int on)
{
    d->eager = on;
    d->quiet_until = 0;
    d->decided = NIL;
}

int dram_rule_allows(const dram *d, int cmd, uint32_t bank)
{
    if (cmd < 0 || cmd >= DRAM_NCMD || bank >= d->t.nbk)
        return 0;
    return rules_allow(d, cmd, bank);
}

static uint64_t burst_start(const dram *d, int cmd)
{
    return d->now + (cmd == DRAM_RD ? d->t.tCL : d->t.tWL);
}

/* The first cycle a command may issue to a bank as things stand is the latest of its timing
 * rules and, for a column command, a free data bus at its burst and room in the return queue
 * (never while full). All but the bank's and its group's rules are the same for every bank
 * (base_of): a scan works them out once (scan_base), then each bank adds its own
 * (bank_ready). The scan's test and its bound both come from these, so the bound cannot
 * drift from the test. */
static int64_t base_of(const dram *d, int c)
{
    if (c != DRAM_RD && c != DRAM_WR)
        return d->rdy_any[c];
    if (d->fl_n + mem_q_len(&d->ret) >= d->ret.cap)
        return INT64_MAX;
    int64_t bus = (int64_t)d->bus_end - (int64_t)(c == DRAM_RD ? d->t.tCL : d->t.tWL);
    return max64(d->rdy_any[c], bus);
}

static void scan_base(const dram *d, int64_t base[DRAM_NCMD])
{
    for (int c = 0; c < DRAM_NCMD; c++)
        base[c] = base_of(d, c);
}

/* Bank b's wanted command: its fresh pick's own and group rules, and the scan's base. */
static int64_t bank_ready(const dram *d, uint32_t b, int64_t base)
{
    return max64(max64(d->sc_own[b], d->rdy_grp[d->sc_gc[b]]), base);
}

/* The command bank b needs for the request in slot qi. */
static int needed_cmd(const dram *d, uint32_t b, uint32_t qi)
{
    int64_t open = d->bk[b].open_row;
    if (open < 0)
        return DRAM_ACT;
    if ((uint64_t)open != d->qrow[qi])
        return DRAM_PRE;
    return d->q[qi].op == MEM_WR ? DRAM_WR : DRAM_RD;
}

static void push_to(int64_t *x, int64_t t) { *x = max64(*x, t); }

/* cmd issues on bank b now: every rule it starts pushes the ready time of its second command
 * in its scope. */
static void record(dram *d, int cmd, uint32_t b)
{
    int64_t now = (int64_t)d->now;
    uint32_t g = d->bk[b].group;
    const uint8_t *n = d->nplan[cmd];
    const struct dram_then(*p)[DRAM_NCMD] = d->plan[cmd];
    int64_t *rb = &d->rdy_bank[(size_t)b * DRAM_NCMD], *rg = &d->rdy_grp[(size_t)g * DRAM_NCMD];
    for (unsigned i = 0; i < n[DRAM_SAME_BANK]; i++)
        push_to(&rb[p[DRAM_SAME_BANK][i].then], now + p[DRAM_SAME_BANK][i].delay);
    for (unsigned i = 0; i < n[DRAM_SAME_GROUP]; i++)
        push_to(&rg[p[DRAM_SAME_GROUP][i].then], now + p[DRAM_SAME_GROUP][i].delay);
    for (unsigned i = 0; i < n[DRAM_ANY_BANK]; i++)
        push_to(&d->rdy_any[p[DRAM_ANY_BANK][i].then], now + p[DRAM_ANY_BANK][i].delay);
    for (unsigned i = 0; i < n[DRAM_OTHER_GROUP]; i++) {
        int64_t t = now + p[DRAM_OTHER_GROUP][i].delay;
        for (uint32_t o = 0; o < d->t.nbkgrp; o++)
            if (o != g)
                push_to(&d->rdy_grp[(size_t)o * DRAM_NCMD + p[DRAM_OTHER_GROUP][i].then], t);
    }
}

static void queue_remove(dram *d, uint32_t i)
{
    uint32_t b = d->qbank[i];
    dram_bank *k = &d->bk[b];
    *(d->prev[i] == NIL ? &d->head : &d->next[d->prev[i]]) = d->next[i];
    *(d->next[i] == NIL ? &d->tail : &d->prev[d->next[i]]) = d->prev[i];
    *(d->bprev[i] == NIL ? &k->head : &d->bnext[d->bprev[i]]) = d->bnext[i];
    *(d->bnext[i] == NIL ? &k->tail : &d->bprev[d->bnext[i]]) = d->bprev[i];
    d->freed[d->nfreed++] = i;
    d->qn--;
    if (!--k->nq) {
        occ_set(d, b, 0);
        d->sc_own[b] = INT64_MAX; /* the vector scan reads every bank (sc_own) */
    }
    entries_changed(d, b);
}

static void set_pick(dram *d, uint32_t b, uint32_t pick);

/* After a column command served bank b's fresh pick of a hits_first plug-in (its oldest
 * request hitting the open row), the next pick without a walk over the older requests: the
 * first from `younger` on that hits, else the oldest. Not in the eager test mode, which asks
 * the plug-in every time (test_dram compares the two). */
static void served_pick(dram *d, uint32_t b, uint32_t younger)
{
    uint64_t open = (uint64_t)d->bk[b].open_row;
    uint32_t i = younger;
    while (i != NIL && d->qrow[i] != open)
        i = d->bnext[i];
    set_pick(d, b, i != NIL ? i : d->bk[b].head);
}

/* Column command: the request leaves the queue and is in flight until its burst ends. */
static void serve(dram *d, int cmd, uint32_t b, uint32_t qi)
{
    uint32_t younger = d->bnext[qi];
    int fast = d->sched->hits_first && !d->eager && !is_stale(d, b);
    uint64_t done = burst_start(d, cmd) + d->t.burst;
    dram_flight *f = &d->fl[mem_ring_slot(d->fl_head, d->fl_n, d->ret.cap)];
    f->r = d->q[qi];
    f->done = done;
    if (!d->fl_n++)
        d->fl_done = done;
    d->bus_end = done;
    queue_remove(d, qi);
    if (fast && d->bk[b].nq)
        served_pick(d, b, younger);
    if (cmd == DRAM_RD)
        BUMP(d, reads, 1);
    else
        BUMP(d, writes, 1);
    BUMP(d, accesses, 1);
    BUMP(d, row_hits, d->bk[b].used ? 1u : 0u);
    BUMP(d, busy_cycles, d->t.burst);
    d->bk[b].used = 1;
}

/* A row command leaves bank b's pick (qi) where the plug-in promises it (keeps_pick): only its
 * wanted command and ready time move, worked out now instead of a walk at the next scan. */
static void row_moved(dram *d, uint32_t b, uint32_t qi)
{
    if (d->sched->keeps_pick && d->sched->bank_local)
        set_pick(d, b, qi);
    else
        mark_stale(d, b);
}

static void issue(dram *d, int cmd, uint32_t b, uint32_t qi)
{
    record(d, cmd, b);
    switch (cmd) {
    case DRAM_ACT:
        d->bk[b].open_row = (int64_t)d->qrow[qi];
        d->bk[b].used = 0;
        row_moved(d, b, qi);
        BUMP(d, activates, 1);
        break;
    case DRAM_PRE:
        d->bk[b].open_row = -1;
        row_moved(d, b, qi);
        BUMP(d, precharges, 1);
        break;
    default: serve(d, cmd, b, qi); break;
    }
    d->prio = b + 1 < d->t.nbk ? b + 1 : 0;
}

/* The plug-in is shown, oldest first, the bank's own requests when it is bank-local (it
 * promises to read no others), else the whole queue. Kept out of line: inlined into the
 * scan, its registers spill the scan's loop state to the stack. */
__attribute__((noinline)) static void repick(dram *d, uint32_t b)
{
    dram_bank *k = &d->bk[b];
    int local = d->sched->bank_local;
    uint32_t n = 0;
    if (local) { /* every entry is bank b's */
        for (uint32_t i = k->head; i != NIL; i = d->bnext[i]) {
            d->vq[n] = &d->q[i];
            d->vbank[n] = b;
            d->vrow[n] = d->qrow[i];
            d->vslot[n++] = i;
        }
    } else {
        for (uint32_t i = d->head; i != NIL; i = d->next[i]) {
            d->vq[n] = &d->q[i];
            d->vbank[n] = d->qbank[i];
            d->vrow[n] = d->qrow[i];
            d->vslot[n++] = i;
        }
    }
    int v = d->sched->pick(d->vq, d->vbank, d->vrow, n, b, k->open_row);
    if (v >= 0 && ((uint32_t)v >= n || d->vbank[v] != b))
        base_panic("dram %u: scheduler %s picked entry %d for bank %u", d->channel,
                   d->sched->name, v, b);
    set_pick(d, b, v < 0 ? NIL : d->vslot[v]);
}

/* Bank b works on queue slot `pick` (NIL: none) next: its wanted command and own ready time. */
static void set_pick(dram *d, uint32_t b, uint32_t pick)
{
    dram_bank *k = &d->bk[b];
    k->pick = pick;
    int cmd = pick == NIL ? -1 : needed_cmd(d, b, pick);
    k->want = (int8_t)cmd;
    clear_stale(d, b);
    d->sc_gc[b] = k->group * DRAM_NCMD + (uint32_t)(cmd < 0 ? DRAM_ACT : cmd);
    d->sc_own[b] = cmd < 0 ? INT64_MAX : d->rdy_bank[(size_t)b * DRAM_NCMD + (size_t)cmd];
}

/* Whether the decision survives a push onto bank b (its pick was `was`; it may now issue
 * from cycle `at`). Only b changed: the decided bank still issues unless it is b and its
 * pick moved, or b may issue before the decided cycle, or at it and ahead of the decided
 * bank in round-robin order. */
static int decision_stands(const dram *d, uint32_t b, uint32_t was, uint64_t at)
{
    uint32_t x = d->decided, n = d->t.nbk;
    if (x == NIL || b == x)
        return x != NIL && d->bk[b].pick == was;
    if (at != d->quiet_until)
        return at > d->quiet_until;
    return (b + n - d->prio) % n > (x + n - d->prio) % n;
}

/* A push into slot `slot` of bank b. A bank-local plug-in's other banks keep their picks and
 * times, so the scans stay skipped up to the first cycle b's new pick may issue (an earlier
 * bound than the true one only costs a scan that finds nothing). Otherwise the next cycle
 * scans. Where b's pick stood before the push (`stood`), a plug-in with `pushed` says
 * whether the newcomer takes it, which spares the walk over b's queue. */
static void pushed_wake(dram *d, uint32_t b, uint32_t slot, int stood)
{
    if (!d->sched->bank_local || d->eager) {
        d->quiet_until = 0;
        d->decided = NIL;
        return;
    }
    uint32_t was = d->bk[b].pick;
    if (stood && was != NIL && d->sched->pushed) {
        if (d->sched->pushed(d->qrow[was], d->qrow[slot], d->bk[b].open_row))
            set_pick(d, b, slot);
        else
            clear_stale(d, b);
    } else {
        repick(d, b);
    }
    if (d->bk[b].want < 0)
        return;
    int64_t t = bank_ready(d, b, base_of(d, d->bk[b].want));
    uint64_t at = t > (int64_t)d->now ? (uint64_t)t : d->now;
    if (!decision_stands(d, b, was, at))
        d->decided = NIL;
    d->quiet_until = at < d->quiet_until ? at : d->quiet_until;
}

void dram_push(dram *d, const mem_req *r)
{
    if (d->qn >= d->qcap)
        base_panic("dram %u: push on a full scheduler queue (%u entries)", d->channel, d->qcap);
    uint32_t i = d->nfreed ? d->freed[--d->nfreed] : d->fresh++, b;
    d->qn++;
    d->q[i] = *r;
    d->q[i].loc = MEM_AT_DRAM_Q;
    decode(d, r->addr, &b, &d->qrow[i]);
    d->qbank[i] = b;
    d->next[i] = NIL;
    d->prev[i] = d->tail;
    *(d->tail == NIL ? &d->head : &d->next[d->tail]) = i;
    d->tail = i;
    dram_bank *k = &d->bk[b];
    d->bnext[i] = NIL;
    d->bprev[i] = k->tail;
    *(k->tail == NIL ? &k->head : &d->bnext[k->tail]) = i;
    k->tail = i;
    if (!k->nq++)
        occ_set(d, b, 1);
    int stood = !is_stale(d, b); /* b's pick was fresh */
    entries_changed(d, b);
    pushed_wake(d, b, i, stood);
    BUMP(d, requests, 1);
}

/* Asks the plug-in again for each bank with queued requests whose pick is stale (each such
 * bank when eager). Asking before a scan rather than as the scan reaches the bank changes no
 * pick: picks are pure functions of what a command leaves stale. */
static void refresh_picks(dram *d)
{
    for (uint32_t w = 0; w < d->occ_words; w++) {
        uint64_t bits = d->occ[w] & (d->eager ? ~0ull : d->stale[w]);
        for (; bits; bits &= bits - 1)
            repick(d, w * 64 + (uint32_t)__builtin_ctzll(bits));
    }
}

/* One round-robin scan for cycle `at`: the first bank whose wanted command, of a class in
 * `classes`, the rules allow at `at`; or NIL, having lowered *bound to the first cycle any
 * bank's wanted command (of any class) may issue, and set *first to the first bank in
 * round-robin order that may issue then. That bound holds until a push or a return-queue
 * pop: each bank's pick, its command and the rules' last-issue times stay as they are until
 * a command issues, and a column command blocked by a full return queue stays blocked until
 * a pop (retiring moves a burst into the queue without changing the sum). So a scan that
 * finds nothing also tells how many cycles the next scans would find nothing, and which
 * bank the first of them that finds one would choose. */
static uint32_t scan_plain(dram *d, int64_t at, unsigned classes, int64_t *bound,
                           uint32_t *first)
{
    int64_t best = *bound, base[DRAM_NCMD];
    scan_base(d, base);
    refresh_picks(d);
    /* the banks with queued requests from prio up, then below it: word pw from bit p, the
     * words after it round to it again, and word pw below bit p */
    uint32_t nw = d->occ_words, p = d->prio % 64, pw = d->prio / 64;
    for (uint32_t j = 0; j <= nw; j++) {
        uint32_t w = pw + j < nw ? pw + j : pw + j - nw;
        uint64_t bits = d->occ[w];
        if (j == 0)
            bits &= ~0ull << p;
        else if (j == nw)
            bits &= (1ull << p) - 1;
        for (; bits; bits &= bits - 1) {
            uint32_t b = w * 64 + (uint32_t)__builtin_ctzll(bits), gc = d->sc_gc[b];
            int64_t t = max64(max64(d->sc_own[b], d->rdy_grp[gc]), base[gc % DRAM_NCMD]);
            if (t <= at && (classes >> gc % DRAM_NCMD & 1u))
                return b;
            if (t < best) {
                best = t;
                *first = b;
            }
        }
    }
    *bound = best;
    return NIL;
}

#if BASE_AVX2
_Static_assert(DRAM_NCMD == 4, "a group's rdy_grp entries make one vector");

/* AVX2 has no 64-bit max or min: a compare and a blend. */
__attribute__((target("avx2"))) static inline __m256i max4(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a));
}

__attribute__((target("avx2"))) static inline __m256i min4(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}

/* The first set bit of `bits` in round-robin order from bit p (p < 64). */
static uint32_t rr_first(uint64_t bits, uint32_t p)
{
    uint64_t from_p = bits & (~0ull << p);
    return (uint32_t)__builtin_ctzll(from_p ? from_p : bits);
}

/* A vector's 4-bit lane mask as bank bits: bank 4v + i is lane i of vector v. */
static uint64_t lanes_to_bits(int mask4, uint32_t v) { return (uint64_t)(mask4 & 0xF) << (4 * v); }

/* The same scan four banks at a time, for up to 64 banks in fours (one occupancy word). Each
 * bank's time is the later of its own and gtab's entry for its group and command (that
 * entry's rdy_grp or the command's base, whichever is later: worked out once a scan for
 * every group); a bank without requests reads INT64_MAX (sc_own). The banks the rules allow
 * make a mask, and round-robin order is a rotation of it. Where none may issue, the bound is
 * the least time of any bank, and *first the first bank in round-robin order with it: what
 * the plain scan's strict `t < best` keeps (test_dram: dram_simd_scan_matches_plain). */
__attribute__((target("avx2"), always_inline)) static inline uint32_t
scan_vectors(dram *d, int64_t at, unsigned classes, int64_t *bound, uint32_t *first,
             uint32_t nv, uint32_t ngrp)
{
    /* from registers: four scalar stores read back as one vector would wait for the stores
     * to retire (no store forwarding into a wider load) */
    const __m256i bv =
        _mm256_set_epi64x(base_of(d, 3), base_of(d, 2), base_of(d, 1), base_of(d, 0));
    refresh_picks(d);
    for (uint32_t g = 0; g < ngrp; g++) {
        const __m256i *r = (const __m256i *)&d->rdy_grp[(size_t)g * DRAM_NCMD];
        _mm256_storeu_si256((__m256i *)&d->gtab[(size_t)g * DRAM_NCMD],
                            max4(_mm256_loadu_si256(r), bv));
    }
    const __m256i atv = _mm256_set1_epi64x(at);
    __m256i t[16];
    uint64_t ready = 0;
    for (uint32_t v = 0; v < nv; v++) {
        __m256i own = _mm256_loadu_si256((const __m256i *)&d->sc_own[4 * v]);
        __m128i gc = _mm_loadu_si128((const __m128i *)&d->sc_gc[4 * v]);
        t[v] = max4(own, _mm256_i32gather_epi64((const long long *)d->gtab, gc, 8));
        int later = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(t[v], atv)));
        ready |= lanes_to_bits(~later, v);
    }
    if (classes != (ROW_CMDS | COL_CMDS))
        for (uint64_t r = ready; r; r &= r - 1) {
            uint32_t b = (uint32_t)__builtin_ctzll(r);
            if (!(classes >> d->sc_gc[b] % DRAM_NCMD & 1u))
                ready &= ~(1ull << b);
        }
    if (ready)
        return rr_first(ready, d->prio);
    __m256i lo = _mm256_set1_epi64x(INT64_MAX);
    for (uint32_t v = 0; v < nv; v++)
        lo = min4(lo, t[v]);
    lo = min4(lo, _mm256_permute4x64_epi64(lo, 0x4E));
    lo = min4(lo, _mm256_shuffle_epi32(lo, 0x4E));
    int64_t best = _mm_cvtsi128_si64(_mm256_castsi256_si128(lo));
    if (best < *bound) {
        __m256i bestv = _mm256_set1_epi64x(best);
        uint64_t at_best = 0;
        for (uint32_t v = 0; v < nv; v++)
            at_best |= lanes_to_bits(
                _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(t[v], bestv))), v);
        *first = rr_first(at_best, d->prio);
        *bound = best;
    }
    return NIL;
}

/* GDDR's 16 banks in 4 groups, the common case, with constant trip counts. */
__attribute__((target("avx2"))) static uint32_t scan_avx2(dram *d, int64_t at, unsigned classes,
                                                         int64_t *bound, uint32_t *first)
{
    if (d->t.nbk == 16 && d->t.nbkgrp == 4)
        return scan_vectors(d, at, classes, bound, first, 4, 4);
    return scan_vectors(d, at, classes, bound, first, d->t.nbk / 4, d->t.nbkgrp);
}
#endif

/* Whether this controller's scans may run on vectors: the knob allows it, the host has AVX2,
 * and the banks fill whole vectors of one occupancy word. */
static int simd_ok(const dram *d, const knobs *k)
{
#if BASE_AVX2
    uint32_t n = d->t.nbk;
    return k->host_simd && n % 4 == 0 && n <= 64 && base_host_avx2();
#else
    (void)d;
    (void)k;
    return 0;
#endif
}

int dram_uses_simd(const dram *d) { return d->simd; }

static uint32_t scan(dram *d, int64_t at, unsigned classes, int64_t *bound, uint32_t *first)
{
#if BASE_AVX2
    if (d->simd)
        return scan_avx2(d, at, classes, bound, first);
#endif
    return scan_plain(d, at, classes, bound, first);
}

/* Issues the first allowed command of a class in `classes` and returns 1, or returns 0
 * having lowered *bound (scan). */
static int try_issue(dram *d, unsigned classes, int64_t *bound)
{
    uint32_t first = NIL, b = scan(d, (int64_t)d->now, classes, bound, &first);
    if (b == NIL)
        return 0;
    issue(d, (int)(d->sc_gc[b] % DRAM_NCMD), b, d->bk[b].pick);
    return 1;
}

static void quiet_to(dram *d, int64_t bound)
{
    d->quiet_until = bound == INT64_MAX ? UINT64_MAX
                     : bound > (int64_t)d->now ? (uint64_t)bound : d->now;
}

/* Single bus: the decided bank issues (or a scan finds the one that may), then a scan of the
 * state that leaves, for the next cycle, decides the next command and its cycle: each issue
 * costs one scan, and the cycles up to the next one none. */
static void single_bus_cycle(dram *d)
{
    uint32_t b = d->decided, first = NIL;
    int64_t bound = INT64_MAX;
    if (b == NIL)
        b = scan(d, (int64_t)d->now, ROW_CMDS | COL_CMDS, &bound, &first);
    if (b != NIL) {
        issue(d, (int)(d->sc_gc[b] % DRAM_NCMD), b, d->bk[b].pick);
        bound = INT64_MAX;
        b = scan(d, (int64_t)d->now + 1, ROW_CMDS | COL_CMDS, &bound, &first);
    }
    if (b != NIL) {
        d->quiet_until = d->now + 1;
        d->decided = b;
    } else {
        quiet_to(d, bound);
        d->decided = bound == INT64_MAX ? NIL : first;
    }
}

static void retire(dram *d)
{
    while (d->fl_done <= d->now) {
        /* room was reserved when the column command issued */
        mem_q_push_copy(&d->ret, &d->fl[d->fl_head].r)->loc = MEM_AT_DRAM_RET;
        d->fl_head = --d->fl_n ? mem_ring_slot(d->fl_head, 1, d->ret.cap) : 0; /* as mem_q */
        d->fl_done = d->fl_n ? d->fl[d->fl_head].done : UINT64_MAX;
    }
}

/* Two command buses (or the eager test mode): after a cycle that issued, the next is scanned
 * again (its scan finds the new bound). */
static void issue_cycle(dram *d)
{
    if (!d->dual_bus && !d->eager) {
        single_bus_cycle(d);
        return;
    }
    int64_t bound = INT64_MAX;
    int issued = d->dual_bus ? try_issue(d, COL_CMDS, &bound) | try_issue(d, ROW_CMDS, &bound)
                             : try_issue(d, ROW_CMDS | COL_CMDS, &bound);
    if (issued)
        d->quiet_until = d->now + 1;
    else
        quiet_to(d, bound);
}

const mem_req *dram_cycle(dram *d)
{
    BUMP(d, queue_sum, d->qn);
    uint32_t fl_n = d->fl_n;
    if (d->qn && (d->now >= d->quiet_until || d->eager))
        issue_cycle(d);
    /* a column command adds one flight; the retire below only takes older ones */
    const mem_req *sent =
        d->fl_n != fl_n ? &d->fl[mem_ring_slot(d->fl_head, d->fl_n - 1, d->ret.cap)].r : NULL;
    d->now++;
    BUMP(d, cmd_cycles, 1);
    retire(d);
    return sent;
}

uint64_t dram_wake(const dram *d)
{
    if (d->qn || !mem_q_empty(&d->ret))
        return d->now;
    /* the call made with now = done - 1 retires the oldest burst */
    return d->fl_n ? d->fl_done - 1 : UINT64_MAX;
}

uint64_t dram_wait(const dram *d)
{
    uint64_t w = UINT64_MAX;
    if (d->qn)
        w = d->eager || d->quiet_until <= d->now ? 0 : d->quiet_until - d->now;
    if (d->fl_n) { /* the call made with now = done - 1 retires the oldest burst */
        uint64_t r = d->fl_done - 1, k = r > d->now ? r - d->now : 0;
        w = k < w ? k : w;
    }
    return w;
}

void dram_skip(dram *d, uint64_t n)
{
    d->now += n;
    BUMP(d, cmd_cycles, n);
    BUMP(d, queue_sum, (uint64_t)d->qn * n);
}

void dram_foreach(const dram *d, void (*fn)(void *ctx, const mem_req *r), void *ctx)
{
    for (uint32_t i = d->head; i != NIL; i = d->next[i])
        fn(ctx, &d->q[i]);
    for (uint32_t i = 0; i < d->fl_n; i++)
        fn(ctx, &d->fl[(d->fl_head + i) % d->ret.cap].r);
    for (uint32_t i = 0; i < mem_q_len(&d->ret); i++)
        fn(ctx, &d->ret.v[(d->ret.head + i) % d->ret.cap]);
}
