/* dram: the timing-rule table (each rule "blocked at t-1, allowed at t"), latency of a single
 * access, FR-FCFS against FCFS, back-pressure, the data bus, bank indexing and statistics.
 *
 * Test timing (command cycles), chosen so that no two delays coincide:
 *   tCCD 3, tCCDL 5, tRRD 7, tRCD 11, tRAS 23, tRP 13, tRC 50 (> tRAS + tRP, so it binds),
 *   tCL 17, tWL 5, tCDLR 4, tWR 9, tRTPL 6, burst 8/4 = 2
 *   derived: tRCDWR 11-(5+1) = 5, tRTW 17+2+2-5 = 16, tWTR 5+2+4 = 11, tWTP 5+2+9 = 16.
 * 16 banks in 4 groups, "lower" group indexing: bank b is in group b % 4, so banks 0 and 4
 * share a group and banks 0 and 1 do not. */
#include "test.h"

#include "dram/dram.h"
#include "knob/knob.h"
#include "mem/addrmap.h"

#include <math.h>
#include <string.h>

typedef struct fx {
    knobs k;
    mem_addrmap map;
    dram *d;
} fx;

static void test_knobs(knobs *k)
{
    knob_cfg c;
    knob_init(&c);
    *k = c.v;
    knob_free(&c);
    k->n_mem = 1;
    k->n_sub_partitions = 1;
    k->dram_banks = 16;
    k->dram_bank_groups = 4;
    k->dram_bankgroup_indexing = 1; /* lower */
    k->dram_bank_indexing = 0;
    k->dram_scheduler = 1;          /* frfcfs */
    k->dram_sched_queue = 64;
    k->dram_return_queue = 64;
    k->dram_dual_bus = 0;
    k->dram_no_rw_turnaround = 0;
    k->dram_tCCD = 3;
    k->dram_tCCDL = 5;
    k->dram_tRRD = 7;
    k->dram_tRCD = 11;
    k->dram_tRAS = 23;
    k->dram_tRP = 13;
    k->dram_tRC = 50;
    k->dram_tCL = 17;
    k->dram_tWL = 5;
    k->dram_tCDLR = 4;
    k->dram_tWR = 9;
    k->dram_tRTPL = 6;
    k->dram_burst_length = 8;
    k->dram_data_cmd_ratio = 4;
}

static void fx_open(fx *f)
{
    base_err e = {0};
    if (mem_addrmap_parse(&f->map, f->k.dram_addr_map, &e))
        test_fail_at(__FILE__, __LINE__, "map: %s", e.msg);
    f->d = dram_new(&f->k, &f->map, 0);
}

static void fx_close(fx *f)
{
    dram_free(f->d);
    f->d = NULL;
}

/* Inverse of mem_pack_bits: spreads the low bits of v over the set bits of mask. */
static uint64_t deposit(uint64_t v, uint64_t mask)
{
    uint64_t out = 0;
    int k = 0;
    for (int b = 0; b < 64; b++)
        if (mask >> b & 1)
            out |= (v >> k++ & 1) << b;
    return out;
}

static uint64_t addr_of(const fx *f, uint32_t bank, uint64_t row)
{
    uint64_t mk[5];
    mem_addrmap_masks(&f->map, (uint32_t)f->k.n_mem, mk);
    return deposit(bank, mk[1]) | deposit(row, mk[0]);
}

static void push(fx *f, int op, uint32_t bank, uint64_t row, uint16_t slot)
{
    mem_req r;
    memset(&r, 0, sizeof r);
    r.addr = addr_of(f, bank, row);
    r.op = (uint8_t)op;
    r.slot = slot;
    CHECK(dram_can_accept(f->d));
    dram_push(f->d, &r);
}

static uint64_t st(fx *f, const char *name) { return stat_get(dram_stats(f->d), name); }

static void run(fx *f, int n)
{
    for (int i = 0; i < n; i++)
        dram_cycle(f->d);
}

/* Steps until `counter` grows; returns the cycle the command issued in (-1: never). */
static int64_t step_until(fx *f, const char *counter, int max)
{
    uint64_t before = st(f, counter);
    for (int i = 0; i < max; i++) {
        dram_cycle(f->d);
        if (st(f, counter) != before)
            return (int64_t)dram_now(f->d) - 1;
    }
    return -1;
}

static void drain(fx *f)
{
    while (dram_ret_ready(f->d))
        dram_ret_pop(f->d);
}

TEST(dram_addr_helper_roundtrip)
{
    fx f;
    test_knobs(&f.k);
    fx_open(&f);
    mem_addr a;
    mem_addrmap_decode(&f.map, 1, 1, addr_of(&f, 5, 77), &a);
    CHECK_EQ(a.bank, 5);
    CHECK_EQ(a.row, 77);
    fx_close(&f);
}

TEST(dram_timing_rtx3070_defaults)
{
    knob_cfg c;
    knob_init(&c);
    dram_timing t;
    dram_timing_from_knobs(&t, &c.v);
    /* FORMATS.md B.7: RTX3070 tRCDWR 15, tRTW 22, tWTR 22, tWTP 36; burst 16 / 4 */
    CHECK_EQ(t.burst, 4);
    CHECK_EQ(t.tRCDWR, 15);
    CHECK_EQ(t.tRTW, 22);
    CHECK_EQ(t.tWTR, 22);
    CHECK_EQ(t.tWTP, 36);
    dram_rule r[DRAM_MAX_RULES];
    CHECK_EQ(dram_rules(&t, r, DRAM_MAX_RULES), 19);
    c.v.dram_no_rw_turnaround = 1;
    dram_timing_from_knobs(&t, &c.v);
    CHECK_EQ(t.tRTW, 0);
    CHECK_EQ(t.tWTR, 0);
    CHECK_EQ(dram_rules(&t, r, DRAM_MAX_RULES), 17); /* zero-delay rows are left out */
    CHECK_EQ(dram_rules(&t, r, 4), 4);
    knob_free(&c);
}

/* The table for the test timing, row by row (GPGPU-Sim's counters, see dram_timing.c). */
TEST(dram_rule_table_contents)
{
    static const struct { int first, then, scope; const char *name; uint32_t delay; } want[] = {
        {DRAM_ACT, DRAM_ACT, DRAM_SAME_BANK, "tRC", 50},
        {DRAM_ACT, DRAM_ACT, DRAM_ANY_BANK, "tRRD", 7},
        {DRAM_ACT, DRAM_RD, DRAM_SAME_BANK, "tRCD", 11},
        {DRAM_ACT, DRAM_WR, DRAM_SAME_BANK, "tRCDWR", 5},
        {DRAM_ACT, DRAM_PRE, DRAM_SAME_BANK, "tRAS", 23},
        {DRAM_PRE, DRAM_ACT, DRAM_SAME_BANK, "tRP", 13},
        {DRAM_RD, DRAM_RD, DRAM_ANY_BANK, "tCCD", 3},
        {DRAM_RD, DRAM_WR, DRAM_ANY_BANK, "tCCD", 3},
        {DRAM_WR, DRAM_RD, DRAM_ANY_BANK, "tCCD", 3},
        {DRAM_WR, DRAM_WR, DRAM_ANY_BANK, "tCCD", 3},
        {DRAM_RD, DRAM_RD, DRAM_SAME_GROUP, "tCCDL", 5},
        {DRAM_RD, DRAM_WR, DRAM_SAME_GROUP, "tCCDL", 5},
        {DRAM_WR, DRAM_RD, DRAM_SAME_GROUP, "tCCDL", 5},
        {DRAM_WR, DRAM_WR, DRAM_SAME_GROUP, "tCCDL", 5},
        {DRAM_RD, DRAM_WR, DRAM_ANY_BANK, "tRTW", 16},
        {DRAM_WR, DRAM_RD, DRAM_ANY_BANK, "tWTR", 11},
        {DRAM_RD, DRAM_PRE, DRAM_SAME_BANK, "tRTP", 2},
        {DRAM_RD, DRAM_PRE, DRAM_SAME_GROUP, "tRTPL", 6},
        {DRAM_WR, DRAM_PRE, DRAM_SAME_BANK, "tWTP", 16},
    };
    knobs k;
    test_knobs(&k);
    dram_timing t;
    dram_timing_from_knobs(&t, &k);
    dram_rule rs[DRAM_MAX_RULES];
    size_t n = dram_rules(&t, rs, DRAM_MAX_RULES);
    CHECK_EQ(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n && i < sizeof want / sizeof want[0]; i++) {
        CHECK_EQ(rs[i].first, want[i].first);
        CHECK_EQ(rs[i].then, want[i].then);
        CHECK_EQ(rs[i].scope, want[i].scope);
        CHECK_STR(rs[i].name, want[i].name);
        CHECK_EQ(rs[i].delay, want[i].delay);
    }
}

/* ---- every rule: blocked at t0 + D - 1, allowed at t0 + D ---- */

static uint32_t group_of(uint32_t b) { return b % 4; }

/* The first command goes to bank 5 (group 1): neither bank nor group index is 0, so a mix-up
 * of the per-bank and per-group histories cannot pass by accident. */
#define BANK_A 5u

static uint32_t second_bank(int scope)
{
    switch (scope) {
    case DRAM_SAME_BANK: return BANK_A;
    case DRAM_SAME_GROUP: return BANK_A + 4; /* 9: group 1 */
    default: return BANK_A + 1;              /* 6: group 2 */
    }
}

static int scope_applies(int scope, uint32_t a, uint32_t b)
{
    switch (scope) {
    case DRAM_SAME_BANK: return a == b;
    case DRAM_SAME_GROUP: return group_of(a) == group_of(b);
    case DRAM_OTHER_GROUP: return group_of(a) != group_of(b);
    default: return 1;
    }
}

/* Knob changes that make `r` the only binding rule between its two commands. */
static void isolate(knobs *k, const dram_rule *r)
{
    int col_a = r->first == DRAM_RD || r->first == DRAM_WR;
    int col_b = r->then == DRAM_RD || r->then == DRAM_WR;
    if (col_a && col_b && r->first != r->then &&
        (!strcmp(r->name, "tCCD") || !strcmp(r->name, "tCCDL")))
        k->dram_no_rw_turnaround = 1; /* else tRTW / tWTR dominate the cross pairs */
    if (!strcmp(r->name, "tRTP"))
        k->dram_tRTPL = 1;            /* else tRTPL (6) hides the same-bank burst (2) */
}

/* Issues `cmd` on bank a long after any other command; returns its cycle. */
static int64_t issue_first(fx *f, int cmd, uint32_t a)
{
    push(f, MEM_RD, a, 1, 0);
    if (cmd == DRAM_ACT)
        return step_until(f, "activates", 10);
    run(f, 300);
    drain(f);
    switch (cmd) {
    case DRAM_PRE: push(f, MEM_RD, a, 2, 0); return step_until(f, "precharges", 10);
    case DRAM_RD: push(f, MEM_RD, a, 1, 0); return step_until(f, "reads", 10);
    default: push(f, MEM_WR, a, 1, 0); return step_until(f, "writes", 10);
    }
}

static void check_rule(const dram_rule *r0)
{
    static const char *const cmd_names[] = {"ACT", "PRE", "RD", "WR"};
    fx f;
    test_knobs(&f.k);
    isolate(&f.k, r0);
    dram_timing t;
    dram_timing_from_knobs(&t, &f.k);
    dram_rule rs[DRAM_MAX_RULES];
    size_t n = dram_rules(&t, rs, DRAM_MAX_RULES);
    uint32_t a = BANK_A, b = second_bank(r0->scope);
    uint32_t delay = 0;
    for (size_t i = 0; i < n; i++)
        if (rs[i].first == r0->first && rs[i].then == r0->then && rs[i].scope == r0->scope &&
            !strcmp(rs[i].name, r0->name))
            delay = rs[i].delay;
    for (size_t i = 0; i < n; i++) /* premise: every other applicable rule is shorter */
        if (rs[i].first == r0->first && rs[i].then == r0->then &&
            scope_applies(rs[i].scope, a, b) && rs[i].delay >= delay &&
            strcmp(rs[i].name, r0->name))
            test_fail_at(__FILE__, __LINE__, "%s hides %s", rs[i].name, r0->name);
    if (delay < 2) {
        test_fail_at(__FILE__, __LINE__, "rule %s: delay %u too short to test", r0->name, delay);
        return;
    }
    fx_open(&f);
    int64_t t0 = issue_first(&f, r0->first, a);
    CHECK(t0 >= 0);
    while ((int64_t)dram_now(f.d) < t0 + delay - 1)
        dram_cycle(f.d);
    if (dram_rule_allows(f.d, r0->then, b))
        test_fail_at(__FILE__, __LINE__, "%s -> %s (%s): allowed at t0 + %u - 1",
                     cmd_names[r0->first], cmd_names[r0->then], r0->name, delay);
    dram_cycle(f.d);
    if (!dram_rule_allows(f.d, r0->then, b))
        test_fail_at(__FILE__, __LINE__, "%s -> %s (%s): blocked at t0 + %u",
                     cmd_names[r0->first], cmd_names[r0->then], r0->name, delay);
    fx_close(&f);
}

TEST(dram_every_rule_blocked_then_allowed)
{
    knobs k;
    test_knobs(&k);
    dram_timing t;
    dram_timing_from_knobs(&t, &k);
    dram_rule rs[DRAM_MAX_RULES];
    size_t n = dram_rules(&t, rs, DRAM_MAX_RULES);
    CHECK_EQ(n, 19);
    for (size_t i = 0; i < n; i++)
        check_rule(&rs[i]);
}

/* ---- whole accesses ---- */

static int calls_until_ready(fx *f, int max)
{
    for (int i = 1; i <= max; i++) {
        dram_cycle(f->d);
        if (dram_ret_ready(f->d))
            return i;
    }
    return -1;
}

/* No scheduling overhead: a request pushed before cycle 0 is activated in cycle 0. */
TEST(dram_single_access_latency)
{
    fx f;
    test_knobs(&f.k);
    fx_open(&f);
    push(&f, MEM_RD, 3, 9, 0);
    CHECK_EQ(calls_until_ready(&f, 200), 11 + 17 + 2); /* tRCD + tCL + burst */
    mem_req r = dram_ret_pop(f.d);
    CHECK_EQ(r.loc, MEM_AT_DRAM_RET);
    CHECK(!dram_busy(f.d));
    fx_close(&f);

    fx_open(&f);
    push(&f, MEM_WR, 3, 9, 0);
    CHECK_EQ(calls_until_ready(&f, 200), 5 + 5 + 2); /* tRCDWR + tWL + burst */
    fx_close(&f);

    knob_cfg c; /* RTX3070 defaults: 24 + 24 + 4 */
    knob_init(&c);
    f.k = c.v;
    knob_free(&c);
    fx_open(&f);
    push(&f, MEM_RD, 0, 1, 0);
    CHECK_EQ(calls_until_ready(&f, 200), 52);
    fx_close(&f);
}

/* dram_cycle names the request of the cycle's column command, and only then: a read to an
 * idle bank is sent in call tRCD + 1 (its RD at cycle tRCD), tCL + burst calls before it is
 * ready; a write to another bank follows; the activates are not named. */
TEST(dram_cycle_names_what_it_sends)
{
    fx f;
    test_knobs(&f.k);
    fx_open(&f);
    push(&f, MEM_RD, 3, 9, 7);
    push(&f, MEM_WR, 5, 2, 8);
    int sent_at[2] = {-1, -1}, nsent = 0, ready_at = -1;
    uint16_t slots[2] = {0, 0};
    for (int i = 1; i <= 200 && ready_at < 0; i++) {
        const mem_req *r = dram_cycle(f.d);
        if (r) {
            CHECK(nsent < 2);
            sent_at[nsent] = i;
            slots[nsent++] = r->slot;
        }
        while (dram_ret_ready(f.d)) {
            if (dram_ret_pop(f.d).slot == 7)
                ready_at = i;
        }
    }
    CHECK_EQ(nsent, 2); /* two column commands named, not their activates */
    CHECK_EQ(st(&f, "activates"), 2);
    CHECK_EQ(slots[0], 7);
    CHECK_EQ(sent_at[0], 11 + 1);
    CHECK_EQ(slots[1], 8);
    CHECK(sent_at[1] > sent_at[0]);
    CHECK_EQ(ready_at, 11 + 17 + 2);
    for (int i = 0; i < 50; i++)
        CHECK(dram_cycle(f.d) == NULL);
    fx_close(&f);
}

/* Bank 0 has row 1 open; then an older miss (row 2) and a younger hit (row 1) arrive. */
static void order_of(int sched, uint16_t out[2], uint64_t *hits)
{
    fx f;
    test_knobs(&f.k);
    f.k.dram_scheduler = sched;
    fx_open(&f);
    push(&f, MEM_RD, 0, 1, 9);
    run(&f, 200);
    drain(&f);
    push(&f, MEM_RD, 0, 2, 1);
    push(&f, MEM_RD, 0, 1, 2);
    int got = 0;
    for (int i = 0; i < 500 && got < 2; i++) {
        dram_cycle(f.d);
        while (dram_ret_ready(f.d) && got < 2)
            out[got++] = dram_ret_pop(f.d).slot;
    }
    CHECK_EQ(got, 2);
    *hits = st(&f, "row_hits");
    fx_close(&f);
}

TEST(dram_frfcfs_reorders_row_hit)
{
    uint16_t o[2] = {0, 0};
    uint64_t hits = 0;
    order_of(1, o, &hits); /* frfcfs */
    CHECK_EQ(o[0], 2);
    CHECK_EQ(o[1], 1);
    CHECK_EQ(hits, 1);
    order_of(0, o, &hits); /* fcfs */
    CHECK_EQ(o[0], 1);
    CHECK_EQ(o[1], 2);
    CHECK_EQ(hits, 0);
}

/* FCFS keeps banks parallel (GPGPU-Sim FIFO) but a second request to a busy bank blocks
 * every younger request. */
TEST(dram_fcfs_bank_parallel_and_head_of_line)
{
    fx f;
    test_knobs(&f.k);
    f.k.dram_scheduler = 0;
    fx_open(&f);
    push(&f, MEM_RD, 0, 1, 0);
    push(&f, MEM_RD, 1, 1, 0);
    CHECK_EQ(step_until(&f, "activates", 5), 0);
    CHECK_EQ(step_until(&f, "activates", 20), 7); /* tRRD after the first */
    fx_close(&f);

    fx_open(&f);
    push(&f, MEM_RD, 0, 1, 0);
    push(&f, MEM_RD, 0, 2, 0);
    push(&f, MEM_RD, 1, 1, 0);
    CHECK_EQ(step_until(&f, "activates", 5), 0);
    CHECK_EQ(step_until(&f, "reads", 50), 11);     /* the head is served at tRCD */
    CHECK_EQ(step_until(&f, "activates", 50), 12); /* only then may bank 1 start */
    fx_close(&f);
}

TEST(dram_return_queue_backpressure)
{
    fx f;
    test_knobs(&f.k);
    f.k.dram_return_queue = 2;
    fx_open(&f);
    for (uint16_t i = 0; i < 4; i++)
        push(&f, MEM_RD, 0, 1, i);
    run(&f, 300);
    CHECK_EQ(st(&f, "reads"), 2);
    CHECK_EQ(dram_queue_len(f.d), 2);
    CHECK(dram_busy(f.d));
    CHECK_EQ(dram_ret_pop(f.d).slot, 0);
    run(&f, 300);
    CHECK_EQ(st(&f, "reads"), 3);
    CHECK_EQ(dram_ret_pop(f.d).slot, 1);
    CHECK_EQ(dram_ret_pop(f.d).slot, 2);
    run(&f, 300);
    CHECK_EQ(dram_ret_pop(f.d).slot, 3);
    CHECK(!dram_busy(f.d));
    fx_close(&f);
}

TEST(dram_sched_queue_full)
{
    fx f;
    test_knobs(&f.k);
    f.k.dram_sched_queue = 2;
    fx_open(&f);
    push(&f, MEM_RD, 0, 1, 0);
    push(&f, MEM_RD, 1, 1, 0);
    CHECK(!dram_can_accept(f.d));
    CHECK(step_until(&f, "reads", 100) >= 0);
    CHECK(dram_can_accept(f.d));
    fx_close(&f);
}

/* Row 1 read three times (one activate, two hits), then row 2 (precharge, activate). */
TEST(dram_stats_row_buffer_locality)
{
    fx f;
    test_knobs(&f.k);
    fx_open(&f);
    uint64_t rows[4] = {1, 1, 1, 2};
    for (int i = 0; i < 4; i++) {
        push(&f, MEM_RD, 0, rows[i], 0);
        run(&f, 120);
        drain(&f);
    }
    stat_block *s = dram_stats(f.d);
    const stat_set *set = dram_stats_set();
    CHECK_EQ(st(&f, "requests"), 4);
    CHECK_EQ(st(&f, "reads"), 4);
    CHECK_EQ(st(&f, "accesses"), 4);
    CHECK_EQ(st(&f, "activates"), 2);
    CHECK_EQ(st(&f, "precharges"), 1);
    CHECK_EQ(st(&f, "row_hits"), 2);
    CHECK_EQ(st(&f, "cmd_cycles"), 480);
    CHECK_EQ(st(&f, "busy_cycles"), 8);
    CHECK(fabs(stat_ratio(s, stat_find(set, "row_buffer_locality")) - 0.5) < 1e-12);
    CHECK(fabs(stat_ratio(s, stat_find(set, "bw_util")) - 8.0 / 480) < 1e-12);
    CHECK(st(&f, "queue_sum") > 0);
    fx_close(&f);
}

/* A write after a read: tRTW normally; with the turnaround ignored, the data bus still
 * keeps the write burst (tWL after WR) behind the read burst (tCL + burst after RD). */
static int64_t read_then_write_gap(int no_turnaround)
{
    fx f;
    test_knobs(&f.k);
    f.k.dram_no_rw_turnaround = no_turnaround;
    fx_open(&f);
    push(&f, MEM_RD, 0, 1, 0);
    push(&f, MEM_RD, 1, 1, 0);
    run(&f, 300);
    drain(&f);
    push(&f, MEM_RD, 0, 1, 0);
    int64_t t0 = step_until(&f, "reads", 10);
    push(&f, MEM_WR, 1, 1, 0);
    int64_t t1 = step_until(&f, "writes", 100);
    fx_close(&f);
    return t1 - t0;
}

TEST(dram_data_bus_and_turnaround)
{
    CHECK_EQ(read_then_write_gap(0), 16);          /* tRTW */
    CHECK_EQ(read_then_write_gap(1), 17 + 2 - 5); /* bursts do not overlap */
}

/* One column and one row command in the same cycle only with the dual bus. */
static void dual_bus_cycle(int dual, uint64_t *reads, uint64_t *acts)
{
    fx f;
    test_knobs(&f.k);
    f.k.dram_dual_bus = dual;
    fx_open(&f);
    push(&f, MEM_RD, 0, 1, 0);
    run(&f, 300);
    drain(&f);
    uint64_t r0 = st(&f, "reads"), a0 = st(&f, "activates");
    push(&f, MEM_RD, 0, 1, 0);
    push(&f, MEM_RD, 1, 1, 0);
    run(&f, 1);
    *reads = st(&f, "reads") - r0;
    *acts = st(&f, "activates") - a0;
    fx_close(&f);
}

TEST(dram_dual_bus)
{
    uint64_t rd, act;
    dual_bus_cycle(1, &rd, &act);
    CHECK_EQ(rd, 1);
    CHECK_EQ(act, 1);
    dual_bus_cycle(0, &rd, &act);
    CHECK_EQ(rd + act, 1);
}

/* XOR indexing: (bank 0, row 1) and (bank 1, row 0) both land in bank 1. */
static uint64_t precharges_for(int xor_index)
{
    fx f;
    test_knobs(&f.k);
    f.k.dram_bank_indexing = xor_index;
    fx_open(&f);
    push(&f, MEM_RD, 0, 1, 0);
    push(&f, MEM_RD, 1, 0, 0);
    run(&f, 400);
    uint64_t n = st(&f, "precharges");
    fx_close(&f);
    return n;
}

TEST(dram_bank_xor_indexing)
{
    CHECK_EQ(precharges_for(0), 0);
    CHECK_EQ(precharges_for(1), 1);
}

/* "higher": group = bank >> log2(16 / 4), so banks 0 and 1 share a group (tCCDL). */
static int ccd_allows_bank1(int lower)
{
    fx f;
    test_knobs(&f.k);
    f.k.dram_bankgroup_indexing = lower;
    fx_open(&f);
    int64_t t0 = issue_first(&f, DRAM_RD, 0);
    while ((int64_t)dram_now(f.d) < t0 + 3)
        dram_cycle(f.d);
    int ok = dram_rule_allows(f.d, DRAM_RD, 1);
    fx_close(&f);
    return ok;
}

TEST(dram_bank_group_indexing)
{
    CHECK_EQ(ccd_allows_bank1(1), 1);
    CHECK_EQ(ccd_allows_bank1(0), 0);
}

TEST(dram_sched_registry_matches_knob)
{
    CHECK(dram_sched_find("fcfs") != NULL);
    CHECK(dram_sched_find("frfcfs") != NULL);
    CHECK(dram_sched_find("nope") == NULL);
    char buf[32];
    int n = 0;
    for (; dram_sched_registry[n]; n++)
        CHECK_STR(dram_sched_registry[n]->name,
                  knob_enum_name(KNOB_ID_dram_scheduler, n, buf, sizeof buf));
    CHECK_EQ(n, 2);
}

/* A plug-in with keeps_pick is not asked again after its pick's activate or precharge, so its
 * pick must be the same with the row opened onto it or closed under it. Every plug-in that
 * makes the promise, on random bank queues of up to 8 requests over 4 rows: whenever the pick
 * needs a row command (the bank is closed, or the pick misses the open row), the pick with
 * the row that command leaves is the pick again. */
TEST(dram_keeps_pick_promise_holds)
{
    uint64_t seed = 11;
    int checked = 0, broken = 0;
    for (size_t s = 0; dram_sched_registry[s]; s++) {
        const dram_sched_ops *o = dram_sched_registry[s];
        if (!o->keeps_pick)
            continue;
        CHECK(o->bank_local); /* the controller honours it only there */
        for (int t = 0; t < 5000; t++) {
            mem_req q[8];
            const mem_req *qp[8];
            uint32_t banks[8];
            uint64_t rows[8];
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t n = 1 + (seed >> 40) % 8;
            for (size_t i = 0; i < n; i++) {
                memset(&q[i], 0, sizeof q[i]);
                qp[i] = &q[i];
                banks[i] = 3;
                rows[i] = (seed >> (3 * i + 1)) % 4;
            }
            int64_t open = (int64_t)((seed >> 30) % 5) - 1; /* -1: closed */
            int p = o->pick(qp, banks, rows, n, 3, open);
            if (p < 0)
                continue;
            if (open < 0) /* activate: the pick's row opens */
                broken += o->pick(qp, banks, rows, n, 3, (int64_t)rows[p]) != p;
            else if ((uint64_t)open != rows[p]) /* precharge: the row closes */
                broken += o->pick(qp, banks, rows, n, 3, -1) != p;
            else
                continue;
            checked++;
        }
    }
    CHECK_EQ(broken, 0);
    CHECK(checked > 1000);
}

static void count_req(void *ctx, const mem_req *r)
{
    (void)r;
    ++*(int *)ctx;
}

TEST(dram_foreach_sees_every_request)
{
    fx f;
    test_knobs(&f.k);
    fx_open(&f);
    for (uint16_t i = 0; i < 5; i++)
        push(&f, MEM_RD, i, 1, i);
    int n = 0;
    for (int c = 0; c < 200; c++) {
        n = 0;
        dram_foreach(f.d, count_req, &n);
        CHECK_EQ(n, 5); /* queued, in flight or returned, never lost or doubled */
        dram_cycle(f.d);
    }
    CHECK_EQ(dram_queue_len(f.d), 0);
    fx_close(&f);
}

/* Drives two controllers with the same random stream for 20,000 cycles and returns how often
 * they differed: in room, in returns (which request, when) and in their counters. Reads and
 * writes over few rows of `banks` banks (hits, misses, conflicts), pushed every cycle or
 * every `every` cycles, and returns popped at random (so column commands wait for room when
 * the return queue is small). */
static int twin_mismatches(fx *a, fx *b, uint64_t *seed, uint32_t every, uint32_t banks)
{
    int mismatches = 0;
    for (int t = 0; t < 20000; t++) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(*seed >> 33);
        mismatches += dram_can_accept(a->d) != dram_can_accept(b->d);
        if (r % every == 0 && dram_can_accept(a->d) && dram_can_accept(b->d)) {
            int op = (r >> 2) % 4 == 0 ? MEM_WR : MEM_RD;
            push(a, op, (r >> 4) % banks, (r >> 12) % 3, (uint16_t)t);
            push(b, op, (r >> 4) % banks, (r >> 12) % 3, (uint16_t)t);
        }
        dram_cycle(a->d);
        dram_cycle(b->d);
        if ((r >> 16) % 4 == 0)
            while (dram_ret_ready(a->d)) {
                mismatches += !dram_ret_ready(b->d);
                if (!dram_ret_ready(b->d))
                    break;
                mismatches += dram_ret_pop(a->d).slot != dram_ret_pop(b->d).slot;
            }
        mismatches += dram_ret_ready(a->d) != dram_ret_ready(b->d);
    }
    static const char *const names[] = {"reads",    "writes",      "activates", "precharges",
                                        "row_hits", "busy_cycles", "queue_sum"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        mismatches += st(a, names[i]) != st(b, names[i]);
    return mismatches;
}

/* The controller skips scans until a command can issue, remembers picks per bank and, with one
 * command bus, decides each command when the one before it issues; an eager twin that scans
 * and asks the scheduler every cycle must issue the same commands at the same cycles
 * (twin_mismatches), pushed every cycle or every third one (pushes that do and do not
 * overturn a decision), both schedulers, one and two command buses, and a return queue of 3
 * or 64 entries. */
TEST(dram_skipped_scans_change_nothing)
{
    uint64_t seed = 7;
    int cases = 0, mismatches = 0;
    for (int sch = 0; sch < 2; sch++)
        for (int dual = 0; dual < 2; dual++)
            for (int retq = 0; retq < 4; retq++) {
                fx a, b;
                test_knobs(&a.k);
                a.k.dram_scheduler = sch;
                a.k.dram_dual_bus = dual;
                a.k.dram_return_queue = retq % 2 ? 3 : 64;
                a.k.dram_sched_queue = 16;
                b.k = a.k;
                fx_open(&a);
                fx_open(&b);
                dram_set_eager(b.d, 1);
                mismatches += twin_mismatches(&a, &b, &seed, retq < 2 ? 3 : 1, 16);
                cases += st(&a, "precharges") > 100 && st(&a, "row_hits") > 100;
                fx_close(&a);
                fx_close(&b);
            }
    CHECK_EQ(mismatches, 0);
    CHECK_EQ(cases, 16); /* every configuration saw misses and hits */
}

/* The vector scan (host_simd, on an AVX2 host) issues the same commands at the same cycles as
 * the plain one: 8, 16 and 64 banks (two, four and sixteen vectors; 64 fills the occupancy
 * word), both schedulers, one and two command buses (the dual bus scans for one class of
 * command at a time), eager or not, and a return queue of 3 entries (column commands wait,
 * their time unknown) or 64. Skipped on a host without AVX2. */
TEST(dram_simd_scan_matches_plain)
{
    static const struct { uint32_t banks; const char *map; } geo[] = {
        {8, "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RRBBCCCC.BCCSSSSS"},
        {16, NULL},
        {64, "dramid@8;00000000.00000000.00000000.00000000.00RRRRRR.RRRRRRRB.BBBBBCCC.CCCSSSSS"},
    };
    uint64_t seed = 19;
    int cases = 0, mismatches = 0, vector = 0;
    for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++)
        for (int v = 0; v < 16; v++) {
            fx a, b;
            test_knobs(&a.k);
            a.k.dram_banks = (int64_t)geo[g].banks;
            if (geo[g].map)
                snprintf(a.k.dram_addr_map, sizeof a.k.dram_addr_map, "%s", geo[g].map);
            a.k.dram_scheduler = v & 1;
            a.k.dram_dual_bus = v >> 1 & 1;
            a.k.dram_return_queue = v >> 3 & 1 ? 3 : 64;
            a.k.dram_sched_queue = geo[g].banks > 16 ? 64 : 16;
            a.k.host_simd = 1;
            b.k = a.k;
            b.k.host_simd = 0;
            fx_open(&a);
            fx_open(&b);
            vector += dram_uses_simd(a.d);
            CHECK_EQ(dram_uses_simd(b.d), 0);
            if (v >> 2 & 1) {
                dram_set_eager(a.d, 1);
                dram_set_eager(b.d, 1);
            }
            mismatches += twin_mismatches(&a, &b, &seed, 1 + (uint32_t)(v & 2), geo[g].banks);
            cases += st(&a, "precharges") > 100 && st(&a, "row_hits") > 100;
            fx_close(&a);
            fx_close(&b);
        }
    CHECK_EQ(mismatches, 0);
    CHECK_EQ(cases, 48);
    if (!vector)
        test_skip("no AVX2 on this host (or no glibc CPU record): the vector scan never ran");
    else
        CHECK_EQ(vector, 48);
}

/* Banks are scanned round-robin from the one after the last command's bank, over every bank
 * index (here 128 banks, 7 bank bits in the address map: two words of the controller's
 * bitmask of banks with requests). Each
 * bank's first command is an activate, and tRRD keeps them one at a time, so the activates,
 * and with them the returns, follow the scan order: from bank 101 (after bank 100's read) up,
 * then round from 0. */
TEST(dram_round_robin_spans_every_bank)
{
    fx f;
    test_knobs(&f.k);
    f.k.dram_banks = 128;
    snprintf(f.k.dram_addr_map, sizeof f.k.dram_addr_map, "%s",
             "dramid@8;00000000.00000000.00000000.00000000.00RRRRRR.RRRRRRRB.BBBBBBCC.CCCSSSSS");
    fx_open(&f);
    push(&f, MEM_RD, 100, 1, 9);
    run(&f, 200);
    drain(&f);
    static const uint32_t banks[] = {5, 127, 64, 101, 0};
    for (uint16_t i = 0; i < 5; i++)
        push(&f, MEM_RD, banks[i], 1, i);
    static const uint16_t want[] = {3, 1, 4, 0, 2}; /* banks 101, 127, 0, 5, 64 */
    int got = 0;
    for (int c = 0; c < 1000 && got < 5; c++) {
        dram_cycle(f.d);
        while (dram_ret_ready(f.d) && got < 5) {
            CHECK_EQ(dram_ret_pop(f.d).slot, want[got]);
            got++;
        }
    }
    CHECK_EQ(got, 5);
    fx_close(&f);
}
