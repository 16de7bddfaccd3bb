/* mem/map (partition hashing) against hand-computed values and GPGPU-Sim's published IPOLY
 * tables; mem/part latencies, merging, write absorption, writebacks and back-pressure. */
#include "test.h"

#include "dram/dram.h"
#include "knob/knob.h"
#include "mem/part.h"

#include <stdlib.h>
#include <string.h>

#define MAP_RTX3070 "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS"

enum { IDX_CONSECUTIVE, IDX_XOR, IDX_IPOLY, IDX_PAE, IDX_RANDOM, IDX_CUSTOM };

static knobs default_knobs(void)
{
    knob_cfg c;
    knob_init(&c);
    knobs k = c.v;
    knob_free(&c);
    return k;
}

static int map_for(mem_map *m, uint32_t n_mem, uint32_t n_sub, int indexing)
{
    knobs k = default_knobs();
    k.n_mem = n_mem;
    k.n_sub_partitions = n_sub;
    k.partition_indexing = indexing;
    base_err e = {0};
    int rc = mem_map_init(m, &k, &e);
    if (rc)
        test_fail_at(__FILE__, __LINE__, "mem_map_init: %s", e.msg);
    return rc;
}

/* FORMATS.md B.6 (GPGPU-Sim hashing.cc): index bit k ^= XOR of these a bits. */
static const int t16[4][9] = {
    {11, 10, 9, 8, 6, 4, 3, 0, -1}, {12, 8, 7, 6, 5, 3, 1, 0, -1},
    {9, 8, 7, 6, 4, 2, 1, -1}, {10, 9, 8, 7, 5, 3, 2, -1}};
static const int t32[5][10] = {
    {13, 12, 11, 10, 9, 6, 5, 3, 0, -1}, {14, 13, 12, 11, 10, 7, 6, 4, 1, -1},
    {14, 10, 9, 8, 7, 6, 3, 2, 0, -1}, {11, 10, 9, 8, 7, 4, 3, 1, -1},
    {12, 11, 10, 9, 8, 5, 4, 2, -1}};
static const int t64[6][10] = {
    {18, 17, 16, 15, 12, 10, 6, 5, 0, -1}, {15, 13, 12, 11, 10, 7, 5, 1, 0, -1},
    {16, 14, 13, 12, 11, 8, 6, 2, 1, -1}, {17, 15, 14, 13, 12, 9, 7, 3, 2, -1},
    {18, 16, 15, 14, 13, 10, 8, 4, 3, -1}, {17, 16, 15, 14, 11, 9, 5, 4, -1}};

static uint64_t row_mask(const int *bits)
{
    uint64_t m = 0;
    for (; *bits >= 0; bits++)
        m |= (uint64_t)1 << *bits;
    return m;
}

TEST(map_ipoly_tables_match_gpgpusim)
{
    mem_map m;
    CHECK_EQ(map_for(&m, 16, 1, IDX_IPOLY), 0);
    CHECK_EQ(m.hash_n, 16);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(m.hmask[k], row_mask(t16[k]));
    CHECK_EQ(map_for(&m, 16, 2, IDX_IPOLY), 0);
    CHECK_EQ(m.hash_n, 32);
    for (int k = 0; k < 5; k++)
        CHECK_EQ(m.hmask[k], row_mask(t32[k]));
    CHECK_EQ(map_for(&m, 32, 2, IDX_IPOLY), 0);
    CHECK_EQ(m.hash_n, 64);
    for (int k = 0; k < 6; k++)
        CHECK_EQ(m.hmask[k], row_mask(t64[k]));
}

/* RTX3070: 16 channels x 2, channel bits 8-11, bank bit 0 = address bit 7, a = addr >> 13;
 * values worked out by hand from the 32-entry table. */
TEST(map_ipoly_rtx3070_by_hand)
{
    mem_map m;
    CHECK_EQ(map_for(&m, 16, 2, IDX_IPOLY), 0);
    CHECK_EQ(m.high_shift, 13);
    CHECK_EQ(mem_map_sub_partition(&m, 0x0), 0);
    CHECK_EQ(mem_map_sub_partition(&m, 0x80), 1);   /* bank bit: index 1, a = 0 */
    CHECK_EQ(mem_map_sub_partition(&m, 0x100), 2);  /* channel 1 */
    CHECK_EQ(mem_map_sub_partition(&m, 0x2000), 5); /* a0 flips index bits 0 and 2 */
    CHECK_EQ(mem_map_sub_partition(&m, 0x4000), 10); /* a1: bits 1 and 3 */
    CHECK_EQ(mem_map_sub_partition(&m, 0x2580), 14); /* index 11 ^ 0b00101 */
    CHECK_EQ(mem_map_sub_partition(&m, 0x80000), 7); /* a6: bits 0, 1, 2 */
    CHECK_EQ(mem_map_sub_partition(&m, 0x10000), 13); /* a3 (bank bit 1 is not in the index) */
    CHECK_EQ(mem_map_sub_partition(&m, 0x12345680), 23);
    CHECK_EQ(mem_map_sub_partition(&m, 0xdeadbeef00ull), 26);
    /* bytes of one 128-byte line stay together */
    CHECK_EQ(mem_map_sub_partition(&m, 0x12345680 + 127), 23);
}

TEST(map_consecutive_rtx3070)
{
    mem_map m;
    CHECK_EQ(map_for(&m, 16, 2, IDX_CONSECUTIVE), 0);
    CHECK_EQ(mem_map_sub_partition(&m, 0x3a80), 21); /* channel 10, bank bit 1 */
    int bad = 0;
    for (uint64_t a = 0; a < (1u << 20); a += 128)
        bad += mem_map_sub_partition(&m, a) != ((a >> 8) & 15) * 2 + ((a >> 7) & 1);
    CHECK_EQ(bad, 0);
    CHECK_EQ(map_for(&m, 16, 2, IDX_CUSTOM), 0);
    CHECK_EQ(mem_map_sub_partition(&m, 0x3a80), 21);
}

TEST(map_xor_permutes_the_channel)
{
    mem_map m;
    CHECK_EQ(map_for(&m, 16, 2, IDX_XOR), 0);
    CHECK_EQ(mem_map_sub_partition(&m, 0x2500), 8);  /* channel 5 ^ a=1 -> 4 */
    CHECK_EQ(mem_map_sub_partition(&m, 0x2580), 9);
    CHECK_EQ(mem_map_sub_partition(&m, 0x1e500), 2 * (5 ^ 15)); /* a = 15 */
}

/* 12 channels (dramid@8, mod/div decode): channel (addr >> 8) % 12, a = (addr >> 8) / 12,
 * ipoly over nextpow2(12) x 2 = 32 entries, then mod 24. */
TEST(map_twelve_channels)
{
    mem_map m;
    CHECK_EQ(map_for(&m, 12, 2, IDX_CONSECUTIVE), 0);
    CHECK_EQ(mem_map_sub_partition(&m, 0xc00), 0);
    CHECK_EQ(mem_map_sub_partition(&m, (107u << 8) | 0x80), 23);
    CHECK_EQ(map_for(&m, 12, 2, IDX_IPOLY), 0);
    CHECK_EQ(mem_map_sub_partition(&m, 0xc00), 5);
    CHECK_EQ(mem_map_sub_partition(&m, 107u << 8), 3);   /* index 22 ^ 0b01101 = 27 */
    CHECK_EQ(mem_map_sub_partition(&m, (107u << 8) | 0x80), 2);
    CHECK_EQ(mem_map_sub_partition(&m, 0x12345680), 22);
    knobs k = default_knobs();
    k.n_mem = 12;
    k.partition_indexing = IDX_XOR;
    base_err e = {0};
    CHECK_EQ(mem_map_init(&m, &k, &e), -1);
    CHECK_HAS(e.msg, "power-of-two n_mem");
}

TEST(map_pae_and_errors)
{
    mem_map m;
    CHECK_EQ(map_for(&m, 16, 2, IDX_PAE), 0);
    CHECK_EQ(mem_map_sub_partition(&m, 0), 0);
    CHECK_EQ(mem_map_sub_partition(&m, 0x80), 16); /* b0 appears once, in bit 4 */
    knobs k = default_knobs();
    k.n_mem = 8;
    k.partition_indexing = IDX_PAE;
    base_err e = {0};
    CHECK_EQ(mem_map_init(&m, &k, &e), -1);
    CHECK_HAS(e.msg, "32 sub-partitions");
    base_err_clear(&e);
    k.n_mem = 16;
    k.n_sub_partitions = 3;
    k.partition_indexing = IDX_IPOLY;
    CHECK_EQ(mem_map_init(&m, &k, &e), -1);
    CHECK_HAS(e.msg, "n_sub_partitions");
}

/* Sizes GPGPU-Sim has no table for use the same construction: still a permutation of the
 * index for each higher-bit value, so every sub-partition is used evenly. */
TEST(map_ipoly_other_sizes_spread_evenly)
{
    mem_map m;
    CHECK_EQ(map_for(&m, 4, 2, IDX_IPOLY), 0);
    int count[8] = {0};
    for (uint64_t a = 0; a < (1u << 20); a += 128)
        count[mem_map_sub_partition(&m, a)]++;
    for (int i = 0; i < 8; i++)
        CHECK_EQ(count[i], (1 << 13) / 8);
    CHECK_EQ(map_for(&m, 1, 1, IDX_IPOLY), 0);
    CHECK_EQ(mem_map_sub_partition(&m, 0xfffff80), 0);
}

TEST(map_random_is_deterministic_per_chunk)
{
    mem_map m;
    CHECK_EQ(map_for(&m, 12, 2, IDX_RANDOM), 0);
    int count[24] = {0};
    for (uint64_t a = 0; a < (1u << 22); a += 128) {
        uint32_t s = mem_map_sub_partition(&m, a);
        CHECK(s < 24);
        CHECK_EQ(mem_map_sub_partition(&m, a + 96), s); /* 128-byte chunks */
        count[s < 24 ? s : 0]++;
    }
    for (int i = 0; i < 24; i++)
        CHECK(count[i] > 32768 / 24 / 2 && count[i] < 32768 / 24 * 2);
}

/* ---- the partition ------------------------------------------------------------------- */

typedef struct fx {
    knobs k;
    mem_addrmap map;
    mem_part *p;
    uint64_t now;
} fx;

/* One channel of 2 sub-partitions; short fixed latencies so loops stay small. */
static void fx_init(fx *f, void (*tweak)(knobs *))
{
    f->k = default_knobs();
    f->k.n_mem = 1;
    f->k.n_sub_partitions = 2;
    f->k.l2_rop_latency = 10;
    f->k.dram_latency = 20;
    if (tweak)
        tweak(&f->k);
    base_err e = {0};
    CHECK_EQ(mem_addrmap_parse(&f->map, f->k.dram_addr_map, &e), 0);
    f->p = mem_part_new(&f->k, &f->map, 0);
    f->now = 0;
}

/* One core cycle with every clock equal, GPGPU-Sim's order: DRAM, then L2. */
static void fx_cycle(fx *f)
{
    mem_part_dram_cycle(f->p, f->now);
    mem_part_l2_cycle(f->p, f->now);
    f->now++;
}

static mem_req rd(uint64_t addr, uint16_t slot, uint64_t now)
{
    mem_req r = {0};
    r.addr = addr;
    r.op = MEM_RD;
    r.slot = slot;
    r.sm = 3;
    r.t_start = now;
    return r;
}

static void fx_push(fx *f, uint32_t sub, const mem_req *r)
{
    CHECK(mem_part_can_accept(f->p, sub));
    mem_part_push(f->p, sub, r, f->now);
}

/* Cycles run until sub's reply queue holds a reply (the cycle it was produced in), or -1. */
static int64_t until_reply(fx *f, uint32_t sub, int limit)
{
    uint64_t start = f->now;
    for (int i = 0; i < limit; i++) {
        fx_cycle(f);
        if (mem_part_reply_peek(f->p, sub))
            return (int64_t)(f->now - 1 - start);
    }
    return -1;
}

static void drain(fx *f, uint32_t sub, int limit)
{
    for (int i = 0; i < limit && mem_part_busy(f->p); i++) {
        fx_cycle(f);
        while (mem_part_reply_peek(f->p, sub))
            mem_part_reply_pop(f->p, sub);
    }
}

static uint32_t dram_t(const knobs *k)
{
    dram_timing t;
    dram_timing_from_knobs(&t, k);
    return t.tRCD + t.tCL + t.burst;
}

/* Push at cycle 0 (before the L2 cycle). ROP ready at R; in the icnt->L2 queue at the end
 * of L2 cycle R; accessed (miss) at R+1; miss queue -> L2->DRAM at R+2; latency queue at DRAM
 * cycle R+3, into the controller at R+3+D; data ready after T more DRAM cycles; returned to
 * DRAM->L2 and filled at R+3+D+T+1; replied at the next L2 cycle: R + D + T + 5. */
TEST(part_read_miss_latency_exact)
{
    fx f;
    fx_init(&f, NULL);
    uint32_t R = 10, D = 20, T = dram_t(&f.k);
    mem_req r = rd(0x4000, 9, 0);
    fx_push(&f, 1, &r);
    CHECK_EQ(until_reply(&f, 1, 1000), R + D + T + 5);
    mem_req got = mem_part_reply_pop(f.p, 1);
    CHECK_EQ(got.slot, 9);
    CHECK_EQ(got.sm, 3);
    CHECK_EQ(got.op, MEM_RD);
    CHECK_EQ(got.loc, MEM_AT_L2_OUT);
    CHECK(!(got.flags & MEM_F_L2_HIT));
    drain(&f, 1, 100);
    CHECK(!mem_part_busy(f.p));
    stat_block *st = mem_part_stats(f.p);
    CHECK_EQ(stat_get(st, "reads"), 1);
    CHECK_EQ(stat_get(st, "replies"), 1);
    CHECK_EQ(stat_get(st, "dram_reads"), 1);
    CHECK_EQ(stat_get(st, "reply_latency_sum"), R + D + T + 5);
    CHECK_EQ(stat_get(dram_stats(mem_part_dram(f.p)), "reads"), 1);
    /* the same sector again: an L2 hit, rop_latency + 1 cycles */
    r = rd(0x4000, 10, f.now);
    fx_push(&f, 1, &r);
    CHECK_EQ(until_reply(&f, 1, 1000), R + 1);
    got = mem_part_reply_pop(f.p, 1);
    CHECK_EQ(got.slot, 10);
    CHECK(got.flags & MEM_F_L2_HIT);
    CHECK_EQ(stat_get(st, "replies_l2_hit"), 1);
    mem_part_free(f.p);
}

/* A push leaves the channel's own cycle state alone (it may come from another core): the
 * L2 side still reads as busy at once, the request counts are there whenever the statistics
 * are read (and only once), and the reply count is what the reply queues hold. */
TEST(part_push_wakes_a_quiet_l2_and_counts)
{
    fx f;
    fx_init(&f, NULL);
    fx_cycle(&f);
    CHECK(mem_part_idle(f.p) & MEM_PART_L2_IDLE);
    mem_req r = rd(0x4000, 1, f.now);
    fx_push(&f, 0, &r);
    CHECK(!(mem_part_idle(f.p) & MEM_PART_L2_IDLE));
    CHECK_EQ(stat_get(mem_part_stats(f.p), "reads"), 1);
    CHECK_EQ(stat_get(mem_part_stats(f.p), "reads"), 1);
    mem_req w = rd(0x8000, 2, f.now), a = rd(0xc000, 3, f.now);
    w.op = MEM_WR;
    a.op = MEM_ATOM;
    fx_push(&f, 1, &w);
    fx_push(&f, 1, &a);
    uint32_t seen = 0;
    for (int i = 0; i < 1000 && seen < 3; i++) {
        fx_cycle(&f);
        uint32_t n = (mem_part_reply_peek(f.p, 0) != NULL) + (mem_part_reply_peek(f.p, 1) != NULL);
        CHECK_EQ(mem_part_replies(f.p) > 0, n > 0);
        for (uint32_t s = 0; s < 2; s++)
            while (mem_part_reply_peek(f.p, s)) {
                mem_part_reply_pop(f.p, s);
                seen++;
            }
        CHECK_EQ(mem_part_replies(f.p), 0);
    }
    CHECK_EQ(seen, 3);
    stat_block *st = mem_part_stats(f.p);
    CHECK_EQ(stat_get(st, "reads"), 1);
    CHECK_EQ(stat_get(st, "writes"), 1);
    CHECK_EQ(stat_get(st, "atomics"), 1);
    CHECK_EQ(stat_get(st, "replies"), 3);
    drain(&f, 0, 100);
    CHECK(!mem_part_busy(f.p));
    mem_part_free(f.p);
}

TEST(part_prefilled_sector_hits)
{
    fx f;
    fx_init(&f, NULL);
    mem_part_prefill(f.p, 0, 0x8000);
    mem_req r = rd(0x8000, 1, 0);
    fx_push(&f, 0, &r);
    CHECK_EQ(until_reply(&f, 0, 1000), 11);
    CHECK_EQ(stat_get(dram_stats(mem_part_dram(f.p)), "requests"), 0);
    mem_part_free(f.p);
}

static void no_l2(knobs *k) { k->l2_enabled = 0; }

/* Without an L2 the access step sends the request straight to L2->DRAM (no miss queue) and
 * the DRAM return passes through DRAM->L2 into the reply queue in the same L2 cycle. */
TEST(part_without_l2)
{
    fx f;
    fx_init(&f, no_l2);
    uint32_t T = dram_t(&f.k);
    mem_req r = rd(0x4000, 2, 0);
    fx_push(&f, 0, &r);
    CHECK_EQ(until_reply(&f, 0, 1000), 10 + 20 + T + 3);
    CHECK(mem_part_l2(f.p, 0) == NULL);
    mem_part_free(f.p);
}

TEST(part_reads_to_one_sector_merge)
{
    fx f;
    fx_init(&f, NULL);
    mem_req a = rd(0x4020, 1, 0), b = rd(0x4020, 2, 0);
    fx_push(&f, 0, &a);
    fx_cycle(&f);
    fx_push(&f, 0, &b);
    int got = 0, order[2] = {0, 0};
    for (int i = 0; i < 1000 && got < 2; i++) {
        fx_cycle(&f);
        while (mem_part_reply_peek(f.p, 0) && got < 2)
            order[got++] = mem_part_reply_pop(f.p, 0).slot;
    }
    CHECK_EQ(got, 2);
    CHECK_EQ(order[0], 1);
    CHECK_EQ(order[1], 2);
    CHECK_EQ(stat_get(mem_part_stats(f.p), "dram_reads"), 1);
    CHECK_EQ(stat_get(dram_stats(mem_part_dram(f.p)), "reads"), 1);
    mem_part_free(f.p);
}

/* a DRAM slow enough that every read below merges before the fill */
static void wide_merge(knobs *k)
{
    k->l2_mshr_merge = 64;
    k->dram_latency = 400;
}

/* n reads into sub-partition 0, read i at base + step x i with slot i + 1, each pushed as
 * soon as there is room, for at most `limit` cycles: the replies taken (*in_order: in slot
 * order). */
static int pump_reads(fx *f, int n, uint64_t base, uint64_t step, int limit, int *in_order)
{
    int pushed = 0, got = 0;
    *in_order = 1;
    for (int i = 0; i < limit && got < n; i++) {
        if (pushed < n && mem_part_can_accept(f->p, 0)) {
            mem_req r = rd(base + step * (uint64_t)pushed, (uint16_t)(pushed + 1), f->now);
            mem_part_push(f->p, 0, &r, f->now);
            pushed++;
        }
        fx_cycle(f);
        while (mem_part_reply_peek(f->p, 0))
            *in_order &= mem_part_reply_pop(f->p, 0).slot == ++got;
    }
    return got;
}

/* One fill that releases more merged reads than the reply queue's and the fill buffer's
 * first sizes (both grow on demand, up to 2 x and 1 x mshr_merge x 4): all come back, in
 * order, from one DRAM read, none before the fill. */
TEST(part_one_fill_releases_many_merged_reads)
{
    enum { N = 60 };
    fx f;
    fx_init(&f, wide_merge);
    int in_order;
    int got = pump_reads(&f, N, 0x4020, 0, 5000, &in_order);
    CHECK_EQ(got, N);
    CHECK(in_order);
    CHECK_EQ(stat_get(mem_part_stats(f.p), "dram_reads"), 1);
    CHECK_EQ(stat_get(cache_stats(mem_part_l2(f.p, 0)), "mshr_hits"), N - 1);
    mem_part_free(f.p);
}

TEST(part_write_absorbed_then_read_hits)
{
    fx f;
    fx_init(&f, NULL);
    mem_req w = rd(0x6000, 4, 0);
    w.op = MEM_WR;
    fx_push(&f, 0, &w);
    CHECK_EQ(until_reply(&f, 0, 1000), 11); /* write-back L2: acknowledged at once */
    mem_req ack = mem_part_reply_pop(f.p, 0);
    CHECK_EQ(ack.op, MEM_WR);
    CHECK_EQ(ack.slot, 4);
    CHECK_EQ(mem_req_bytes(&ack, 1), MEM_HEADER_BYTES);
    mem_req r = rd(0x6000, 5, f.now);
    fx_push(&f, 0, &r);
    CHECK_EQ(until_reply(&f, 0, 1000), 11);
    CHECK(mem_part_reply_pop(f.p, 0).flags & MEM_F_L2_HIT);
    CHECK_EQ(stat_get(dram_stats(mem_part_dram(f.p)), "requests"), 0);
    /* a write nobody waits for is not acknowledged */
    w.flags = MEM_F_NO_REPLY;
    w.addr = 0x6020;
    fx_push(&f, 0, &w);
    CHECK_EQ(until_reply(&f, 0, 100), -1);
    CHECK_EQ(stat_get(mem_part_stats(f.p), "writes"), 2);
    mem_part_free(f.p);
}

/* one waiter a fill (fillmax 4) and a slow DRAM: many more reads wait than one fill frees */
static void narrow_merge(knobs *k)
{
    k->l2_mshr_merge = 1;
    k->dram_latency = 400;
}

/* The fill buffer and the reply ring grow to their bounds and stay: with more reads waiting
 * in the MSHRs than one fill may release, a fill used to free and allocate the buffer anew. */
TEST(part_buffers_do_not_grow_per_fill)
{
    enum { N = 200 };
    fx f;
    fx_init(&f, narrow_merge);
    int in_order;
    CHECK_EQ(pump_reads(&f, N, 0x100000, 4096, 20000, &in_order), N);
    CHECK_EQ(stat_get(mem_part_stats(f.p), "dram_reads"), N);
    CHECK(cache_mshr_used(mem_part_l2(f.p, 0)) == 0);
    CHECK(mem_part_grows(f.p, 0) <= 2); /* 4 entries: at most the first fill's buffer and ring */
    mem_part_free(f.p);
}

static void tiny_l2(knobs *k)
{
    k->l2_sets = 1;
    k->l2_assoc = 2;
    k->l2_set_index = 0; /* linear */
}

/* One set of two ways: the third dirty line evicts the first, whose sector goes to DRAM. */
TEST(part_dirty_eviction_reaches_dram)
{
    fx f;
    fx_init(&f, tiny_l2);
    for (uint16_t i = 0; i < 3; i++) {
        mem_req w = rd(0x10000 + 0x1000u * i, i, f.now);
        w.op = MEM_WR;
        fx_push(&f, 0, &w);
        fx_cycle(&f);
    }
    drain(&f, 0, 2000);
    CHECK(!mem_part_busy(f.p));
    CHECK_EQ(stat_get(mem_part_stats(f.p), "dram_writebacks"), 1);
    CHECK_EQ(stat_get(dram_stats(mem_part_dram(f.p)), "writes"), 1);
    CHECK_EQ(mem_part_flush_l2(f.p), 2); /* the two lines still dirty */
    CHECK_EQ(stat_get(mem_part_stats(f.p), "flush_writebacks"), 2);
    mem_part_free(f.p);
}

static void small_reply_queue(knobs *k) { k->q_l2_to_icnt = 2; }

/* Replies wait for room; nothing is lost and the stall is counted. */
TEST(part_reply_queue_back_pressure)
{
    fx f;
    fx_init(&f, small_reply_queue);
    for (uint16_t i = 0; i < 5; i++) {
        mem_part_prefill(f.p, 0, 0x8000 + 32u * i);
        mem_req r = rd(0x8000 + 32u * i, i, 0);
        fx_push(&f, 0, &r);
    }
    for (int i = 0; i < 50; i++)
        fx_cycle(&f);
    CHECK(stat_get(mem_part_stats(f.p), "l2_stall_reply_full") > 0);
    int got = 0;
    for (int i = 0; i < 100; i++) {
        while (mem_part_reply_peek(f.p, 0)) {
            CHECK_EQ(mem_part_reply_pop(f.p, 0).slot, got);
            got++;
        }
        fx_cycle(&f);
    }
    CHECK_EQ(got, 5);
    char *buf = NULL;
    size_t n = 0;
    FILE *mf = open_memstream(&buf, &n);
    mem_part_diagnose(f.p, mf);
    fclose(mf);
    CHECK_HAS(buf, "sub-partition 1");
    CHECK_HAS(buf, "l2->icnt");
    free(buf);
    mem_part_free(f.p);
}

/* Both sub-partitions miss at once: the DRAM serves them in turn and both complete. */
TEST(part_two_subpartitions_share_the_dram)
{
    fx f;
    fx_init(&f, NULL);
    mem_req a = rd(0x4000, 1, 0), b = rd(0x4080, 2, 0);
    fx_push(&f, 0, &a);
    fx_push(&f, 1, &b);
    int got = 0;
    for (int i = 0; i < 1000 && got < 2; i++) {
        fx_cycle(&f);
        for (uint32_t s = 0; s < 2; s++)
            if (mem_part_reply_peek(f.p, s)) {
                CHECK_EQ(mem_part_reply_pop(f.p, s).slot, s + 1);
                got++;
            }
    }
    CHECK_EQ(got, 2);
    CHECK_EQ(stat_get(dram_stats(mem_part_dram(f.p)), "reads"), 2);
    mem_part_free(f.p);
}

/* The L2 set index uses the partition address: RTX3070 channel bits 8-11 and the
 * sub-partition bank bit 7 are squeezed out, so address bit 12 becomes line bit 0. */
TEST(part_l2_indexes_the_partition_address)
{
    knobs k = default_knobs();
    k.l2_set_index = 0; /* linear: set = partition line address mod 64 */
    mem_addrmap map;
    base_err e = {0};
    CHECK_EQ(mem_addrmap_parse(&map, k.dram_addr_map, &e), 0);
    mem_part *p = mem_part_new(&k, &map, 3);
    cache *c = mem_part_l2(p, 1);
    CHECK_EQ(cache_set_of(c, 0x380), 0);      /* channel 3, bank bit 1: nothing left */
    CHECK_EQ(cache_set_of(c, 0x1380), 1);
    CHECK_EQ(cache_set_of(c, 0x2380 + 31), 2);
    CHECK_EQ(cache_set_of(c, 0x20380), 32);   /* bit 17 -> bit 12 -> line bit 5 */
    mem_part_free(p);
    /* twelve channels: (addr >> 8) / 12 then bit 7 removed */
    k.n_mem = 12;
    p = mem_part_new(&k, &map, 0);
    c = mem_part_l2(p, 0);
    CHECK_EQ(cache_set_of(c, 12u << 8), 1);   /* quotient 1 at bit 8, then bit 7 removed */
    mem_part_free(p);
}

static void tiny_l2_small_queues(knobs *k)
{
    tiny_l2(k);
    k->l2_sets = 2;
    k->l2_mshr_entries = 4;
    k->l2_miss_queue = 2;
    k->q_icnt_to_l2 = 2;
    k->q_l2_to_dram = 2;
    k->q_dram_to_l2 = 2;
    k->q_l2_to_icnt = 2;
    k->dram_sched_queue = 4;
    k->dram_return_queue = 4;
}

/* Random reads, writes and atomics over a few lines: every request that wants a reply gets
 * exactly one, and the partition drains. Run with roomy and with tiny queues. */
static void stress(void (*tweak)(knobs *))
{
    fx f;
    fx_init(&f, tweak);
    enum { N = 3000 };
    static uint8_t replied[N];
    memset(replied, 0, sizeof replied);
    uint64_t x = 99;
    int sent = 0, want = 0, got = 0, dup = 0;
    for (int c = 0; c < 200000 && (sent < N || mem_part_busy(f.p)); c++) {
        for (uint32_t s = 0; s < 2 && sent < N; s++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            if (!mem_part_can_accept(f.p, s) || (x >> 60) < 4)
                continue;
            mem_req r = rd(0x100000 + ((x >> 20) % 24) * 32, (uint16_t)sent, f.now);
            unsigned kind = (unsigned)(x >> 40) % 8;
            r.op = kind < 4 ? MEM_RD : kind < 7 ? MEM_WR : MEM_ATOM;
            if (r.op == MEM_WR && (x >> 50) % 4 == 0)
                r.flags = MEM_F_NO_REPLY;
            else
                want++;
            mem_part_push(f.p, s, &r, f.now);
            sent++;
        }
        fx_cycle(&f);
        for (uint32_t s = 0; s < 2; s++)
            while (mem_part_reply_peek(f.p, s)) {
                mem_req r = mem_part_reply_pop(f.p, s);
                dup += replied[r.slot]++ > 0;
                got++;
            }
    }
    CHECK_EQ(sent, N);
    CHECK_EQ(got, want);
    CHECK_EQ(dup, 0);
    CHECK(!mem_part_busy(f.p));
    stat_block *st = mem_part_stats(f.p);
    CHECK_EQ(stat_get(st, "replies"), want);
    CHECK(stat_get(st, "dram_reads") > 0);
    CHECK(stat_get(dram_stats(mem_part_dram(f.p)), "reads") == stat_get(st, "dram_reads"));
    CHECK(stat_get(dram_stats(mem_part_dram(f.p)), "writes") ==
          stat_get(st, "dram_writes") + stat_get(st, "dram_writebacks"));
    mem_part_free(f.p);
}

TEST(part_stress_roomy) { stress(NULL); }
TEST(part_stress_tiny_l2) { stress(tiny_l2); }
TEST(part_stress_tiny_queues) { stress(tiny_l2_small_queues); }

/* The grain is what lets a memcpy map one address per block: every address of an aligned
 * 2^grain block must give the block's sub-partition, under every indexing, with power-of-two
 * and mod/div channel counts. RTX3070's lowest input is bank bit 0 = address bit 7. */
TEST(map_grain_blocks_map_as_one)
{
    static const int idx[] = {IDX_CONSECUTIVE, IDX_XOR, IDX_IPOLY, IDX_RANDOM};
    static const uint32_t chans[] = {16, 12, 1};
    int bad = 0, checked = 0;
    uint64_t seed = 12345;
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
        for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++) {
            mem_map m;
            if (idx[i] == IDX_XOR && chans[c] == 12)
                continue; /* refused: xor needs a power-of-two channel count */
            if (map_for(&m, chans[c], 2, idx[i]))
                continue;
            int g = mem_map_grain(&m);
            CHECK(g >= 5 && g < 64);
            for (int n = 0; n < 2000; n++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                uint64_t base = (seed >> 20) & ~(((uint64_t)1 << g) - 1);
                uint64_t off = (seed >> 3) & (((uint64_t)1 << g) - 1);
                bad += mem_map_sub_partition(&m, base) != mem_map_sub_partition(&m, base + off);
                checked++;
            }
        }
    }
    CHECK_EQ(bad, 0);
    CHECK(checked >= 8000);
    mem_map m;
    CHECK_EQ(map_for(&m, 16, 2, IDX_IPOLY), 0);
    CHECK_EQ(mem_map_grain(&m), 7);
    CHECK(mem_map_sub_partition(&m, 0) != mem_map_sub_partition(&m, 0x80));
}

/* Every indexing with power-of-two and other channel counts: map i of MAP_VARIANTS (i / 4:
 * the indexing, i % 4: the counts); -1 for one mem_map_init refuses (xor and pae refuse
 * some counts). */
#define MAP_VARIANTS 20
static const int variant_idx[] = {IDX_CONSECUTIVE, IDX_XOR, IDX_IPOLY, IDX_PAE, IDX_RANDOM};
static const uint32_t variant_chans[][2] = {{16, 2}, {8, 4}, {32, 1}, {12, 2}};

static int map_variant(mem_map *m, int i)
{
    knobs k = default_knobs();
    k.n_mem = variant_chans[i % 4][0];
    k.n_sub_partitions = variant_chans[i % 4][1];
    k.partition_indexing = variant_idx[i / 4];
    base_err e = {0};
    return mem_map_init(m, &k, &e);
}

/* The byte tables give the decode's answer for every indexing that uses them (power-of-two
 * counts, not random), and maps they cannot describe are decoded as before. */
TEST(map_linear_tables_equal_the_decode)
{
    int bad = 0, tabled = 0;
    uint64_t seed = 99;
    for (int i = 0; i < MAP_VARIANTS; i++) {
        mem_map m, slow;
        if (map_variant(&m, i))
            continue;
        CHECK_EQ(m.linear, variant_idx[i / 4] != IDX_RANDOM && variant_chans[i % 4][0] != 12);
        tabled += m.linear;
        slow = m;
        slow.linear = 0;
        for (int n = 0; n < 3000; n++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t a = seed >> (n & 31);
            bad += mem_map_sub_partition(&m, a) != mem_map_sub_partition(&slow, a);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK(tabled >= 8);
}

/* Block counts over ranges: the span shortcut of linear maps gives what one lookup per
 * 2^grain bytes gives, for ranges that start and end anywhere (128-aligned), short or long. */
TEST(map_count_blocks_equals_the_walk)
{
    int bad = 0, linear = 0;
    uint64_t seed = 7;
    for (int i = 0; i < MAP_VARIANTS; i++) {
        mem_map m;
        if (map_variant(&m, i))
            continue;
        linear += m.linear;
        uint32_t ns = m.n_mem * m.n_sub;
        uint64_t *fast = calloc(ns, sizeof *fast), *walk = calloc(ns, sizeof *walk);
        for (int n = 0; n < 30; n++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t lo = (seed >> 16) & ~127ull;
            uint64_t len = ((seed >> 5) % (n < 20 ? 4096u : 1u << 19)) * 128;
            memset(fast, 0, ns * sizeof *fast);
            memset(walk, 0, ns * sizeof *walk);
            mem_map_count_blocks(&m, lo, lo + len, fast);
            uint64_t total = 0;
            for (uint64_t a = lo; a < lo + len; a += 128)
                walk[mem_map_sub_partition(&m, a)]++;
            for (uint32_t s = 0; s < ns; s++) {
                bad += fast[s] != walk[s];
                total += fast[s];
            }
            bad += total != len / 128;
        }
        free(fast);
        free(walk);
    }
    CHECK_EQ(bad, 0);
    CHECK(linear >= 8);
}
