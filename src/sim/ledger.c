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
 * scaled by a named factor of the configuration ("sched*sm.active_cycles"). Each rule says
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
    {L_L1D, "l1d.mshr_hits <= l1d.hit_reserved"}, /* a write on a pending line merges not */
    {L_L1D, "l1d.res_fails = l1d.res_fail_reason"},
    {L_L2, "l2.accesses = l2.hits + l2.hit_reserved + l2.misses"},
    {L_L2, "l2.accesses = l2.read_accesses + l2.write_accesses"},
    {L_L2, "l2.misses = l2.read_misses + l2.write_misses"},
    {L_L2, "l2.mshr_hits <= l2.hit_reserved"}, /* a write on a pending line merges not */
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

static const stat_block *block(const sim_totals *t, const char *name, size_t len)
{
    const struct { const char *n; const stat_block *b; } s[] = {
        {"sm", &t->sm}, {"l1d", &t->l1d}, {"l2", &t->l2},
        {"dram", &t->dram}, {"icnt", &t->icnt}, {"mem", &t->part},
    };
    for (size_t i = 0; i < BASE_ARRAY_LEN(s); i++)
        if (strlen(s[i].n) == len && !strncmp(s[i].n, name, len))
            return s[i].b;
    base_panic("ledger: no statistics set %.*s", (int)len, name);
}

/* One term, "[factor*]set.name", of length len. */
static uint64_t term(const knobs *k, const sim_totals *t, const char *p, size_t len)
{
    uint64_t f = 1;
    const char *star = memchr(p, '*', len);
    if (star) {
        f = factor(k, p, (size_t)(star - p));
        len -= (size_t)(star + 1 - p);
        p = star + 1;
    }
    const char *dot = memchr(p, '.', len);
    if (!dot)
        base_panic("ledger: term %.*s names no set", (int)len, p);
    char name[64];
    size_t n = len - (size_t)(dot + 1 - p);
    if (n >= sizeof name)
        base_panic("ledger: term %.*s too long", (int)len, p);
    memcpy(name, dot + 1, n);
    name[n] = 0;
    return f * stat_get(block(t, p, (size_t)(dot - p)), name);
}

/* The sum of the terms in [p, end), separated by " + ". */
static uint64_t side(const knobs *k, const sim_totals *t, const char *p, const char *end)
{
    uint64_t sum = 0;
    for (;;) {
        const char *plus = strstr(p, " + ");
        const char *e = plus && plus < end ? plus : end;
        sum += term(k, t, p, (size_t)(e - p));
        if (e == end)
            return sum;
        p = e + 3;
    }
}

/* Whether rule r holds on t; its two sides in *l and *r. */
/* Whether rule ru holds on t (its "<=" as "=" with eq); its two sides in *l and *r. */
static int holds(const knobs *k, const sim_totals *t, const rule *ru, int eq, uint64_t *l,
                 uint64_t *r)
{
    const char *s = ru->text, *op = strstr(s, " = "), *le = strstr(s, " <= ");
    const char *mid = op ? op : le;
    if (!mid)
        base_panic("ledger: rule \"%s\" has no = or <=", s);
    *l = side(k, t, s, mid);
    *r = side(k, t, mid + (op ? 3 : 4), s + strlen(s));
    return op || eq ? *l == *r : *l <= *r;
}

static int applies(const knobs *k, const rule *r, int total)
{
    return (!(r->when & L_L1D) || k->l1d_enabled) && (!(r->when & L_L2) || k->l2_enabled) &&
           (total || !(r->when & L_TOTAL));
}

/* Rules that apply to t (the total or, with total = 0, a kernel's segment; drained: the
 * flows as equalities), or -1 with the first that fails described in why. */
static int check(const knobs *k, const sim_totals *t, int total, int drained, const char *where,
                 char *why, size_t n)
{
    int used = 0;
    for (size_t i = 0; i < BASE_ARRAY_LEN(RULES); i++) {
        uint64_t l, r;
        if (!applies(k, &RULES[i], total))
            continue;
        used++;
        int eq = drained && (RULES[i].when & L_FLOW);
        if (!holds(k, t, &RULES[i], eq, &l, &r)) {
            snprintf(why, n, "%s: %s does not hold%s (%llu against %llu)", where, RULES[i].text,
                     eq ? " as an equality (nothing was in flight at the end)" : "",
                     (unsigned long long)l, (unsigned long long)r);
            return -1;
        }
    }
    return used;
}

int sim_ledger_flows(const knobs *k)
{
    int n = 0;
    for (size_t i = 0; i < BASE_ARRAY_LEN(RULES); i++)
        n += (RULES[i].when & L_FLOW) && applies(k, &RULES[i], 1);
    return n;
}

int sim_ledger_check(const knobs *k, const sim_result *r, char *why, size_t n)
{
    char where[160];
    for (size_t i = 0; i < r->nk; i++) {
        snprintf(where, sizeof where, "kernel %u (%s)", r->k[i].uid, r->k[i].name);
        if (check(k, &r->k[i].delta, 0, 0, where, why, n) < 0)
            return -1;
    }
    return check(k, &r->total, 1, r->drained, "the total", why, n);
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
