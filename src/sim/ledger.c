/* sim ledger: identities every run's statistics must satisfy, checked at the end of each run.
 *
 * Each unit counts its own events, so one event is often counted in two places (a request
 * the SM sends and the interconnect carries; an L2 access and the hit or miss it became). A
 * change that loses or doubles one of those counts, in one code path only (a fast path, a
 * rare configuration), keeps every run deterministic and every fast path equal to its slow
 * one, so no other check sees it; these identities do.
 *
 * The rules are data, one per line, written as they read in the output: each side a sum of
 * terms "set.name" (a counter, a distribution's total, or "set.name[bin]"), optionally
 * scaled by a named factor of the configuration ("sched*sm.active_cycles"), decoded into
 * slot ranges once a run (a trace of many kernels checks each one). Each rule says
 * where it holds:
 *   - every kernel's segment and the total: one unit counts the event both ways at the same
 *     moment, so the identity holds at every instant and hence for any difference of two;
 *   - the total only ("<=" rules, a request's way through the units): each unit counts a
 *     request when it gets there, so requests may be between two units when a run stops
 *     (max_cycles) and even when it ends (a write's L2 writeback, a fetch-on-write's fill: a
 *     kernel ends when its CTAs retire, as in Accel-Sim), and a kernel's segment may see the
 *     tail of an earlier kernel's traffic; but from the start of the run no unit can have
 *     counted more than the unit before it. */
#include "sim_int.h"

#include <stdlib.h>
#include <string.h>

enum {
    L_L1D = 1,   /* the SMs have an L1D */
    L_L2 = 2,    /* the sub-partitions have an L2 */
    L_TOTAL = 4, /* the run's total only */
    L_FLOW = 8,  /* a "<=" of a request's way: "=" when nothing was in flight at the end */
    /* the rule's cache (L_L1D or L_L2) reserves a line on a miss (alloc on_miss), so a merge
     * into an MSHR entry is a hit_reserved; or (on_fill, streaming) it reserves nothing, and
     * a merge is a miss */
    L_RESV = 16,
    L_NORESV = 32,
};

typedef struct rule {
    unsigned when;
    const char *text;
} rule;

static const rule RULES[] = {
    /* one unit's own counts of one event */
    {L_L1D, "l1d.accesses = l1d.hits + l1d.hit_reserved + l1d.misses"},
    {L_L1D, "l1d.accesses = l1d.read_accesses + l1d.write_accesses"},
    {L_L1D, "l1d.misses = l1d.read_misses + l1d.write_misses"},
    {L_L1D | L_RESV, "l1d.mshr_hits <= l1d.hit_reserved"}, /* a write on one: no merge */
    {L_L1D | L_NORESV, "l1d.mshr_hits <= l1d.misses"},
    {L_L1D, "l1d.res_fails = l1d.res_fail_reason"},
    {L_L2, "l2.accesses = l2.hits + l2.hit_reserved + l2.misses"},
    {L_L2, "l2.accesses = l2.read_accesses + l2.write_accesses"},
    {L_L2, "l2.misses = l2.read_misses + l2.write_misses"},
    {L_L2 | L_RESV, "l2.mshr_hits <= l2.hit_reserved"}, /* a write on one: no merge */
    {L_L2 | L_NORESV, "l2.mshr_hits <= l2.misses"},
    {L_L2, "l2.res_fails = l2.res_fail_reason"},
    {0, "sm.issue = sched*sm.active_cycles"},
    {0, "sm.issue[issued] = sm.warp_insts"},
    {0, "dram.accesses = dram.reads + dram.writes"},
    /* a request's way, each stage counted after the one before: SM, interconnect, L2 side,
     * L2, DRAM, and the reply's way back */
    {L_TOTAL | L_FLOW, "icnt.req_packets <= sm.mem_requests"},
    {L_TOTAL | L_FLOW, "icnt.req_delivered <= icnt.req_packets"},
    {L_TOTAL | L_FLOW, "mem.reads + mem.writes + mem.atomics <= icnt.req_delivered"},
    {L_TOTAL | L_FLOW | L_L2, "l2.accesses <= mem.reads + mem.writes + mem.atomics"},
    {L_TOTAL | L_FLOW | L_L2, "l2.read_accesses <= mem.reads + mem.atomics"},
    {L_TOTAL | L_L2, "mem.replies_l2_hit <= l2.hits + l2.hit_reserved"},
    {L_TOTAL | L_FLOW | L_L2, "mem.dram_reads <= l2_sectors*l2.fetches"},
    {L_TOTAL | L_FLOW, "dram.accesses <= dram.requests"},
    {L_TOTAL | L_FLOW, "dram.accesses <= dram.activates + dram.row_hits"}, /* a row opened first */
    {L_TOTAL | L_FLOW, "dram.reads <= mem.dram_reads"},
    {L_TOTAL | L_FLOW | L_L2, "l2.fills <= dram.reads"},
    {L_TOTAL, "mem.replies <= mem.reads + mem.writes + mem.atomics"}, /* L1D writebacks: none */
    {L_TOTAL | L_FLOW, "icnt.rep_packets <= mem.replies"},
    {L_TOTAL | L_FLOW, "icnt.rep_delivered <= icnt.rep_packets"},
    {L_TOTAL | L_FLOW, "sm.mem_replies <= icnt.rep_delivered"},
    {L_TOTAL | L_FLOW | L_L1D, "l1d.fills <= l1d_sectors*l1d.fetches"},
};

/* The sectors one fetch brings into a cache: its line for a line-granular one. */
static uint64_t fetch_sectors(int type, int64_t line)
{
    return type == 1 ? 1 : (uint64_t)line / 32; /* knob *_type: normal|sector */
}

static uint64_t factor(const knobs *k, const char *name, size_t len)
{
    const struct { const char *n; uint64_t v; } f[] = {
        {"sched", (uint64_t)k->schedulers_per_sm},
        {"l1d_sectors", fetch_sectors(k->l1d_type, k->l1d_line)},
        {"l2_sectors", fetch_sectors(k->l2_type, k->l2_line)},
    };
    for (size_t i = 0; i < BASE_ARRAY_LEN(f); i++)
        if (strlen(f[i].n) == len && !strncmp(f[i].n, name, len))
            return f[i].v;
    base_panic("ledger: no factor %.*s", (int)len, name);
}

enum { S_SM, S_L1D, S_L2, S_DRAM, S_ICNT, S_MEM, S_N };
static const char *const SETS[S_N] = {"sm", "l1d", "l2", "dram", "icnt", "mem"};

static const stat_block *block(const sim_totals *t, int set)
{
    const stat_block *b[S_N] = {&t->sm, &t->l1d, &t->l2, &t->dram, &t->icnt, &t->part};
    return b[set];
}

#define MAX_TERMS 6

/* A rule decoded once a run: each term a set, a slot range (a counter, a bin, or a
 * distribution's bins) and a factor; terms [0, nl) on the left. */
typedef struct term {
    uint8_t set;
    int slot, nslots;
    uint64_t f;
} term;

typedef struct decoded {
    const rule *r;
    int le;        /* "<=" */
    unsigned sets; /* a bit per set its terms name */
    int nl, n;
    term t[MAX_TERMS];
} decoded;

/* The term "[factor*]set.name" of length len; sets as in t (any segment: same layout). */
static term decode_term(const knobs *k, const sim_totals *t, const char *p, size_t len)
{
    term x = {0, 0, 1, 1};
    const char *star = memchr(p, '*', len);
    if (star) {
        x.f = factor(k, p, (size_t)(star - p));
        len -= (size_t)(star + 1 - p);
        p = star + 1;
    }
    const char *dot = memchr(p, '.', len);
    size_t n = dot ? len - (size_t)(dot + 1 - p) : 0;
    char name[64];
    if (!dot || n >= sizeof name)
        base_panic("ledger: bad term %.*s", (int)len, p);
    memcpy(name, dot + 1, n);
    name[n] = 0;
    while (x.set < S_N && (strlen(SETS[x.set]) != (size_t)(dot - p) ||
                           strncmp(SETS[x.set], p, (size_t)(dot - p))))
        x.set++;
    if (x.set == S_N)
        base_panic("ledger: no statistics set in %.*s", (int)len, p);
    const stat_set *s = block(t, x.set)->set;
    int d = stat_find(s, name);
    if (d >= 0 && s->descs[d].type != STAT_T_RATIO) {
        x.slot = s->slot[d];
        x.nslots = s->descs[d].type == STAT_T_DIST ? s->descs[d].nbins : 1;
    } else {
        x.slot = stat_bin_slot(s, name); /* "name[bin]" */
        if (x.slot < 0)
            base_panic("ledger: no statistic %s.%s", SETS[x.set], name);
    }
    return x;
}

/* Terms of [p, end), separated by " + ", appended to d. */
static void decode_side(const knobs *k, const sim_totals *t, decoded *d, const char *p,
                        const char *end)
{
    for (;;) {
        const char *plus = strstr(p, " + ");
        const char *e = plus && plus < end ? plus : end;
        if (d->n == MAX_TERMS)
            base_panic("ledger: rule \"%s\" has too many terms", d->r->text);
        d->t[d->n] = decode_term(k, t, p, (size_t)(e - p));
        d->sets |= 1u << d->t[d->n++].set;
        if (e == end)
            return;
        p = e + 3;
    }
}

static void decode(const knobs *k, const sim_totals *t, const rule *r, decoded *d)
{
    const char *s = r->text, *op = strstr(s, " = "), *le = strstr(s, " <= ");
    const char *mid = op ? op : le;
    if (!mid)
        base_panic("ledger: rule \"%s\" has no = or <=", s);
    d->r = r;
    d->le = !op;
    d->sets = 0;
    d->n = 0;
    decode_side(k, t, d, s, mid);
    d->nl = d->n;
    decode_side(k, t, d, mid + (op ? 3 : 4), s + strlen(s));
}

static uint64_t value(const sim_totals *t, const term *x)
{
    const uint64_t *v = block(t, x->set)->v + x->slot;
    uint64_t sum = 0;
    for (int i = 0; i < x->nslots; i++)
        sum += v[i];
    return x->f * sum;
}

/* Whether d holds on t (its "<=" as "=" with eq); its two sides in *l and *r. */
static int holds(const sim_totals *t, const decoded *d, int eq, uint64_t *l, uint64_t *r)
{
    *l = *r = 0;
    for (int i = 0; i < d->n; i++)
        *(i < d->nl ? l : r) += value(t, &d->t[i]);
    return d->le && !eq ? *l <= *r : *l == *r;
}

static int applies(const knobs *k, const rule *r, int total)
{
    unsigned w = r->when;
    int alloc = (w & L_L1D) ? k->l1d_alloc : k->l2_alloc; /* knob *_alloc: on_miss|... */
    return (!(w & L_L1D) || k->l1d_enabled) && (!(w & L_L2) || k->l2_enabled) &&
           (total || !(w & L_TOTAL)) && !((w & L_RESV) && alloc != 0) &&
           !((w & L_NORESV) && alloc == 0);
}

/* The rules of d[0, n) that apply to t (the total or, with total = 0, a kernel's segment or
 * one unit's blocks) and name only sets in `sets`; drained: the flows as equalities. Their
 * number, or -1 with the first that fails described in why. */
static int check(const knobs *k, const decoded *d, size_t n, const sim_totals *t, int total,
                 int drained, unsigned sets, const char *where, char *why, size_t wn)
{
    int used = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t l, r;
        if (!applies(k, d[i].r, total) || (d[i].sets & ~sets))
            continue;
        used++;
        int eq = drained && (d[i].r->when & L_FLOW);
        if (!holds(t, &d[i], eq, &l, &r)) {
            snprintf(why, wn, "%s: %s does not hold%s (%llu against %llu)", where, d[i].r->text,
                     eq ? " as an equality (nothing was in flight at the end)" : "",
                     (unsigned long long)l, (unsigned long long)r);
            return -1;
        }
    }
    return used;
}

#define ALL_SETS ((1u << S_N) - 1)

/* A unit's own rules on its cumulative blocks: each SM's (its sm and l1d sets), L2 slice's
 * and DRAM channel's, which a count credited to the wrong unit breaks though the totals
 * balance. Their number in all, or -1 as check. */
static int check_units(const knobs *k, const decoded *d, size_t n, const sim_result *r,
                       char *why, size_t wn)
{
    sim_totals v = r->total; /* a view: one unit's blocks in place of the totals' */
    char where[64];
    int used = 0, u;
    for (uint32_t i = 0; i < r->n_sm; i++, used += u) {
        v.sm = r->per_sm[i];
        v.l1d = r->per_sm_l1d[i];
        snprintf(where, sizeof where, "SM %u", i);
        if ((u = check(k, d, n, &v, 0, 0, 1u << S_SM | 1u << S_L1D, where, why, wn)) < 0)
            return -1;
    }
    for (uint32_t i = 0; i < r->n_sub; i++, used += u) {
        v.l2 = r->per_sub_l2[i];
        snprintf(where, sizeof where, "L2 slice %u", i);
        if ((u = check(k, d, n, &v, 0, 0, 1u << S_L2, where, why, wn)) < 0)
            return -1;
    }
    for (uint32_t i = 0; i < r->n_chan; i++, used += u) {
        v.dram = r->per_chan_dram[i];
        snprintf(where, sizeof where, "DRAM channel %u", i);
        if ((u = check(k, d, n, &v, 0, 0, 1u << S_DRAM, where, why, wn)) < 0)
            return -1;
    }
    return used;
}

int sim_ledger_check(const knobs *k, sim_result *r, char *why, size_t n)
{
    decoded d[BASE_ARRAY_LEN(RULES)];
    size_t nd = BASE_ARRAY_LEN(RULES);
    for (size_t i = 0; i < nd; i++)
        decode(k, &r->total, &RULES[i], &d[i]);
    char where[160];
    for (size_t i = 0; i < r->nk; i++) {
        snprintf(where, sizeof where, "kernel %u (%s)", r->k[i].uid, r->k[i].name);
        if (check(k, d, nd, &r->k[i].delta, 0, 0, ALL_SETS, where, why, n) < 0)
            return -1;
    }
    if ((r->ledger_units = check_units(k, d, nd, r, why, n)) < 0)
        return -1;
    r->ledger_eq = 0;
    for (size_t i = 0; i < nd && r->drained; i++)
        r->ledger_eq += (RULES[i].when & L_FLOW) && applies(k, &RULES[i], 1);
    return check(k, d, nd, &r->total, 1, r->drained, ALL_SETS, "the total", why, n);
}

/* Conservative: 1 only when no request or reply is left anywhere, from an SM's queues and
 * pending loads through the links, the interconnect, the L2 side's queues and MSHRs to the
 * DRAM's queues (mem_part_busy). Serial, at the end of a run. */
int sim_drained(sim *g)
{
    sim_sync_channels(g);
    sim_sync_sms(g);
    if (icnt_busy(g->net))
        return 0;
    /* (a reply phase A leaves in an inbox is taken by the SM's task of the same cycle) */
    for (uint32_t s = 0; s < g->n_sm; s++)
        if (sm_active(g->sm[s]))
            return 0;
    for (uint32_t c = 0; c < g->n_chan; c++)
        if (mem_part_busy(g->part[c]))
            return 0;
    if (!g->windowed)
        return 1;
    for (uint32_t s = 0; s < g->n_sm; s++)
        if (sim_bit_get(g->w.out_bits, s) || sim_bit_get(g->w.in_bits, s))
            return 0;
    for (uint32_t i = 0; i < g->n_sub_total; i++)
        if (sim_bit_get(g->w.rep_bits, i) || sim_bit_get(g->w.req_bits, i))
            return 0;
    return 1;
}
