/* cache: hand-computed sequences for lookup, replacement, MSHRs, write policies, fills,
 * set index hashes (GPGPU-Sim hashing.cc equations) and statistics. */
#include "test.h"

#include "cache/cache.h"
#include "cache/cache_int.h"
#include "knob/knob.h"
#include "trace/trace.h"

#include <stdlib.h>

/* host_simd for the caches cfg_base makes: the model tests run with each (a set-scanned
 * cache of 4, 8, ... ways scans four ways a vector on an AVX2 host). */
static int cfg_simd;

/* A small write-back, lazy-fetch sectored cache; tests change what they exercise. */
static cache_cfg cfg_base(void)
{
    cache_cfg c;
    memset(&c, 0, sizeof c);
    c.name = "t";
    c.kind = CACHE_SECTOR;
    c.sets = 1;
    c.line = 128;
    c.assoc = 2;
    c.repl = "lru";
    c.write = CACHE_WR_WB;
    c.alloc = CACHE_AL_ON_MISS;
    c.walloc = CACHE_WA_LAZY_FETCH;
    c.index = CACHE_IDX_LINEAR;
    c.mshr_entries = 8;
    c.mshr_merge = 4;
    c.miss_queue = 8;
    c.simd = cfg_simd;
    return c;
}

static mem_req req(uint64_t addr, int op, uint16_t slot)
{
    mem_req r;
    memset(&r, 0, sizeof r);
    r.addr = addr;
    r.op = (uint8_t)op;
    r.slot = slot;
    r.space = TRACE_SPACE_GLOBAL;
    return r;
}

static cache_result rd(cache *c, uint64_t addr, uint16_t slot, uint64_t now)
{
    mem_req r = req(addr, MEM_RD, slot);
    cache_result o;
    cache_access(c, &r, now, &o);
    return o;
}

static cache_result wr(cache *c, uint64_t addr, uint64_t now)
{
    mem_req r = req(addr, MEM_WR, 0);
    cache_result o;
    cache_access(c, &r, now, &o);
    return o;
}

static mem_req fill_out[64];
static uint64_t fill_wb_addr;
static uint8_t fill_wb_mask;

static size_t fill(cache *c, uint64_t line, uint8_t mask, uint64_t now)
{
    return cache_fill(c, line, mask, 0, now, fill_out, 64, &fill_wb_addr, &fill_wb_mask);
}

static uint64_t st(cache *c, const char *name) { return stat_get(cache_stats(c), name); }

static uint64_t fail_bin(cache *c, int why)
{
    const stat_set *s = cache_stats_set();
    return cache_stats(c)->v[s->slot[stat_find(s, "res_fail_reason")] + why - 1];
}

TEST(cache_hit_after_fill)
{
    cache_cfg cf = cfg_base();
    cache *c = cache_new(&cf);
    cache_result o = rd(c, 0x1000, 7, 1);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.fetch_mask, 0x1);
    CHECK_EQ(o.wb_mask, 0);
    CHECK_EQ(cache_probe(c, 0x1000), 0);
    CHECK_EQ(cache_mshr_used(c), 1);
    CHECK_EQ(fill(c, 0x1000, 0x1, 5), 1);
    CHECK_EQ(fill_out[0].slot, 7);
    CHECK_EQ(fill_wb_mask, 0);
    CHECK_EQ(cache_mshr_used(c), 0);
    CHECK_EQ(cache_probe(c, 0x1000), 1);
    CHECK_EQ(cache_probe(c, 0x1020), 0);
    o = rd(c, 0x1000, 8, 6);
    CHECK_EQ(o.status, CACHE_HIT);
    CHECK_EQ(o.fetch_mask, 0);
    CHECK_EQ(st(c, "hits"), 1);
    CHECK_EQ(st(c, "misses"), 1);
    CHECK_EQ(st(c, "fills"), 1);
    cache_free(c);
}

TEST(cache_sector_miss_fetches_one_sector)
{
    cache_cfg cf = cfg_base();
    cache *c = cache_new(&cf);
    rd(c, 0x1000, 1, 1);
    fill(c, 0x1000, 0x1, 2);
    cache_result o = rd(c, 0x1060, 2, 3); /* sector 3 of the present line */
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.fetch_mask, 0x8);
    CHECK_EQ(o.wb_mask, 0);
    CHECK_EQ(st(c, "sector_misses"), 1);
    CHECK_EQ(st(c, "evictions"), 0);
    CHECK_EQ(cache_probe(c, 0x1000), 1); /* the line was not replaced */
    cache_free(c);

    /* a line cache fetches the whole line and merges the other sectors into its entry */
    cf.kind = CACHE_NORMAL;
    c = cache_new(&cf);
    o = rd(c, 0x1020, 1, 1);
    CHECK_EQ(o.fetch_mask, 0xf);
    o = rd(c, 0x1040, 2, 1);
    CHECK_EQ(o.status, CACHE_HIT_RESERVED);
    CHECK_EQ(o.fetch_mask, 0);
    CHECK_EQ(cache_mshr_used(c), 1);
    cache_free(c);
}

/* 1 set, 2 ways: A, B filled, A touched again, then C must replace B under LRU but A (the
 * first allocated) under FIFO. */
static void abac(cache *c)
{
    rd(c, 0x0000, 1, 1);
    fill(c, 0x0000, 0x1, 2);
    rd(c, 0x1000, 2, 3);
    fill(c, 0x1000, 0x1, 4);
    CHECK_EQ(rd(c, 0x0000, 3, 5).status, CACHE_HIT);
    cache_result o = rd(c, 0x2000, 4, 6);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(st(c, "evictions"), 1);
}

TEST(cache_lru_eviction_order)
{
    cache_cfg cf = cfg_base();
    cache *c = cache_new(&cf);
    abac(c);
    CHECK_EQ(cache_probe(c, 0x0000), 1);
    CHECK_EQ(cache_probe(c, 0x1000), 0);
    fill(c, 0x2000, 0x1, 7);
    /* now A (used at 5) is older than C (allocated at 6): D replaces A */
    rd(c, 0x3000, 5, 8);
    CHECK_EQ(cache_probe(c, 0x0000), 0);
    CHECK_EQ(cache_probe(c, 0x2000), 1);
    cache_free(c);
}

TEST(cache_fifo_differs_from_lru)
{
    cache_cfg cf = cfg_base();
    cf.repl = "fifo";
    cache *c = cache_new(&cf);
    abac(c);
    CHECK_EQ(cache_probe(c, 0x0000), 0);
    CHECK_EQ(cache_probe(c, 0x1000), 1);
    cache_free(c);
    CHECK(cache_repl_find("lru") != NULL);
    CHECK(cache_repl_find("fifo") != NULL);
    CHECK(cache_repl_find("random") == NULL);
}

TEST(cache_mshr_merge_limit)
{
    cache_cfg cf = cfg_base();
    cf.mshr_merge = 3;
    cache *c = cache_new(&cf);
    CHECK_EQ(rd(c, 0x40, 1, 1).status, CACHE_MISS);
    CHECK_EQ(rd(c, 0x40, 2, 1).status, CACHE_HIT_RESERVED);
    CHECK_EQ(rd(c, 0x40, 3, 2).status, CACHE_HIT_RESERVED);
    cache_result o = rd(c, 0x40, 4, 2);
    CHECK_EQ(o.status, CACHE_RES_FAIL);
    CHECK_EQ(o.fail, CACHE_FAIL_MERGE);
    CHECK_EQ(st(c, "accesses"), 3);
    CHECK_EQ(st(c, "hit_reserved"), 2);
    CHECK_EQ(st(c, "mshr_hits"), 2);
    CHECK_EQ(st(c, "misses"), 1);
    CHECK_EQ(st(c, "res_fails"), 1);
    CHECK_EQ(fail_bin(c, CACHE_FAIL_MERGE), 1);
    CHECK_EQ(fill(c, 0x00, 0x4, 3), 3);
    CHECK_EQ(fill_out[0].slot, 1);
    CHECK_EQ(fill_out[1].slot, 2);
    CHECK_EQ(fill_out[2].slot, 3);
    CHECK_EQ(rd(c, 0x40, 4, 4).status, CACHE_HIT); /* the retry now hits */
    cache_free(c);
}

TEST(cache_mshr_full)
{
    cache_cfg cf = cfg_base();
    cf.mshr_entries = 2;
    cf.assoc = 4;
    cache *c = cache_new(&cf);
    CHECK_EQ(rd(c, 0x00, 1, 1).status, CACHE_MISS);
    CHECK_EQ(rd(c, 0x20, 2, 1).status, CACHE_MISS); /* sectored: one entry per sector */
    cache_result o = rd(c, 0x1000, 3, 1);
    CHECK_EQ(o.status, CACHE_RES_FAIL);
    CHECK_EQ(o.fail, CACHE_FAIL_MSHR);
    CHECK_EQ(cache_probe(c, 0x1000), 0);
    CHECK_EQ(fail_bin(c, CACHE_FAIL_MSHR), 1);
    CHECK_EQ(rd(c, 0x20, 4, 2).status, CACHE_HIT_RESERVED); /* merging still works */
    cache_free(c);
}

TEST(cache_line_alloc_fail)
{
    cache_cfg cf = cfg_base();
    cf.assoc = 1;
    cache *c = cache_new(&cf);
    rd(c, 0x0, 1, 1);
    cache_result o = rd(c, 0x1000, 2, 2); /* the only way has a fill outstanding */
    CHECK_EQ(o.status, CACHE_RES_FAIL);
    CHECK_EQ(o.fail, CACHE_FAIL_LINE);
    fill(c, 0x0, 0x1, 3);
    CHECK_EQ(rd(c, 0x1000, 2, 4).status, CACHE_MISS);
    cache_free(c);
}

TEST(cache_writeback_eviction_mask)
{
    cache_cfg cf = cfg_base();
    cf.assoc = 1;
    cache *c = cache_new(&cf);
    cache_result o = wr(c, 0x2000, 1); /* lazy fetch: allocated, valid and dirty */
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.fetch_mask, 0);
    CHECK_EQ(o.send_write, 0);
    o = wr(c, 0x2040, 2);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(st(c, "sector_misses"), 1);
    CHECK_EQ(wr(c, 0x2040, 3).status, CACHE_HIT);
    o = rd(c, 0x5000, 1, 4);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.wb_addr, 0x2000);
    CHECK_EQ(o.wb_mask, 0x5);
    CHECK_EQ(st(c, "writebacks"), 1);
    CHECK_EQ(st(c, "write_misses"), 2);
    CHECK_EQ(st(c, "write_accesses"), 3);
    cache_free(c);
}

TEST(cache_write_through_always_sends)
{
    cache_cfg cf = cfg_base();
    cf.write = CACHE_WR_WT;
    cf.assoc = 1;
    cache *c = cache_new(&cf);
    cache_result o = wr(c, 0x100, 1);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.send_write, 1);
    CHECK_EQ(o.fetch_mask, 0);
    CHECK_EQ(cache_probe(c, 0x100), 1); /* lazy fetch allocated it */
    o = wr(c, 0x100, 2);
    CHECK_EQ(o.status, CACHE_HIT);
    CHECK_EQ(o.send_write, 1);
    o = rd(c, 0x3000, 1, 3); /* evicting the written line writes nothing back */
    CHECK_EQ(o.wb_mask, 0);
    CHECK_EQ(st(c, "writebacks"), 0);
    uint64_t la;
    uint8_t m;
    CHECK_EQ(cache_flush_next(c, &la, &m), 0);
    cache_free(c);

    cf.walloc = CACHE_WA_NONE;
    c = cache_new(&cf);
    o = wr(c, 0x100, 1);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.send_write, 1);
    CHECK_EQ(cache_probe(c, 0x100), 0);
    cache_free(c);
}

TEST(cache_lazy_fetch_write_does_not_fetch)
{
    cache_cfg cf = cfg_base();
    cache *c = cache_new(&cf);
    cache_result o = wr(c, 0x4060, 1);
    CHECK_EQ(o.fetch_mask, 0);
    CHECK_EQ(o.send_write, 0);
    CHECK_EQ(cache_mshr_used(c), 0);
    CHECK_EQ(cache_probe(c, 0x4060), 1);
    CHECK_EQ(rd(c, 0x4060, 1, 2).status, CACHE_HIT);
    CHECK_EQ(rd(c, 0x4000, 2, 3).fetch_mask, 0x1); /* other sectors are still absent */
    cache_free(c);
}

TEST(cache_write_evict_and_lwb_gwt)
{
    cache_cfg cf = cfg_base();
    cf.write = CACHE_WR_WE;
    cf.walloc = CACHE_WA_NONE;
    cache *c = cache_new(&cf);
    rd(c, 0x0, 1, 1);
    fill(c, 0x0, 0x1, 2);
    cache_result o = wr(c, 0x0, 3);
    CHECK_EQ(o.status, CACHE_HIT);
    CHECK_EQ(o.send_write, 1);
    CHECK_EQ(cache_probe(c, 0x0), 0);
    cache_free(c);

    cf.write = CACHE_WR_LWB_GWT;
    c = cache_new(&cf);
    rd(c, 0x0, 1, 1);
    rd(c, 0x20, 2, 1);
    fill(c, 0x0, 0x3, 2);
    mem_req r = req(0x0, MEM_WR, 0);
    r.space = TRACE_SPACE_LOCAL;
    cache_access(c, &r, 3, &o);
    CHECK_EQ(o.status, CACHE_HIT);
    CHECK_EQ(o.send_write, 0); /* local: written back later */
    CHECK_EQ(cache_probe(c, 0x0), 1);
    o = wr(c, 0x20, 4); /* global: written through, sector evicted */
    CHECK_EQ(o.send_write, 1);
    CHECK_EQ(cache_probe(c, 0x20), 0);
    uint64_t la = 1;
    uint8_t m = 0;
    CHECK_EQ(cache_flush_next(c, &la, &m), 1);
    CHECK_EQ(la, 0x0);
    CHECK_EQ(m, 0x1);
    CHECK_EQ(cache_flush_next(c, &la, &m), 0);
    cache_free(c);
}

TEST(cache_read_only_line_cache_on_fill)
{
    cache_cfg cf = cfg_base();
    cf.kind = CACHE_NORMAL;
    cf.line = 64;
    cf.write = CACHE_WR_RO;
    cf.alloc = CACHE_AL_ON_FILL;
    cf.walloc = CACHE_WA_NONE;
    cache *c = cache_new(&cf);
    cache_result o = rd(c, 0x100, 1, 1);
    CHECK_EQ(o.fetch_mask, 0x3); /* a 64-byte line is two sectors */
    /* allocate on fill: the line is not reserved, a second read merges as a miss */
    o = rd(c, 0x120, 2, 2);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.fetch_mask, 0);
    CHECK_EQ(st(c, "misses"), 2);
    CHECK_EQ(st(c, "mshr_hits"), 1);
    CHECK_EQ(cache_probe(c, 0x100), 0);
    CHECK_EQ(fill(c, 0x100, 0x1, 3), 0); /* first sector: the line is not complete */
    CHECK_EQ(fill(c, 0x100, 0x2, 4), 2);
    CHECK_EQ(cache_probe(c, 0x120), 1);
    cache_free(c);
}

/* A fill evicts only a line it has to place: an allocate-on-miss cache placed the line at
 * the miss (its dirty victim written back then), so its fill never evicts and may go ahead
 * while the miss queue is full (the L2's fill waits on it only when it may evict); an
 * allocate-on-fill cache places the line at the fill, evicting the way's line. */
TEST(cache_fill_may_evict_only_on_fill)
{
    for (int al = 0; al < 2; al++) {
        cache_cfg cf = cfg_base();
        cf.assoc = 1;
        if (al) {
            cf.kind = CACHE_NORMAL;
            cf.write = CACHE_WR_RO;
            cf.alloc = CACHE_AL_ON_FILL;
            cf.walloc = CACHE_WA_NONE;
        }
        cache *c = cache_new(&cf);
        cache_result o;
        if (al) { /* the one way holds a clean line */
            o = rd(c, 0x1000, 1, 1);
            CHECK_EQ(fill(c, 0x1000, o.fetch_mask, 2), 1);
        } else { /* the one way holds a dirty line (write-allocate, lazy: no fetch) */
            wr(c, 0x1000, 1);
        }
        CHECK_EQ(cache_probe(c, 0x1000), 1);
        o = rd(c, 0x2000, 3, 3);
        CHECK_EQ(o.status, CACHE_MISS);
        CHECK_EQ(o.wb_mask != 0, !al); /* on miss: the dirty victim leaves at the miss */
        CHECK_EQ(cache_fill_may_evict(c, 0x2000, o.hint), al);
        CHECK_EQ(cache_probe(c, 0x1000), al); /* on fill: the victim is still there */
        CHECK_EQ(fill(c, 0x2000, o.fetch_mask, 4), 1);
        CHECK_EQ(fill_wb_mask, 0);
        CHECK_EQ(cache_probe(c, 0x1000), 0);
        CHECK_EQ(cache_probe(c, 0x2000), 1);
        cache_free(c);
    }
}

TEST(cache_fill_returns_waiters_oldest_first)
{
    cache_cfg cf = cfg_base();
    cache *c = cache_new(&cf);
    rd(c, 0x820, 1, 1);
    rd(c, 0x800, 2, 1);
    rd(c, 0x820, 3, 2);
    rd(c, 0x800, 4, 2);
    rd(c, 0x840, 5, 2);
    CHECK_EQ(cache_mshr_used(c), 3);
    CHECK_EQ(fill(c, 0x800, 0x3, 5), 4);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(fill_out[i].slot, i + 1);
    CHECK_EQ(cache_mshr_used(c), 1);
    CHECK_EQ(fill(c, 0x800, 0x4, 6), 1);
    CHECK_EQ(fill_out[0].slot, 5);
    CHECK_EQ(cache_mshr_used(c), 0);
    cache_free(c);
}

static void count_req(void *ctx, const mem_req *r)
{
    (void)r;
    ++*(int *)ctx;
}

TEST(cache_mshr_foreach_and_invalidate)
{
    cache_cfg cf = cfg_base();
    cache *c = cache_new(&cf);
    rd(c, 0x0, 1, 1);
    rd(c, 0x0, 2, 1);
    rd(c, 0x1000, 3, 1);
    fill(c, 0x1000, 0x1, 2);
    int n = 0;
    cache_mshr_foreach(c, count_req, &n);
    CHECK_EQ(n, 2);
    cache_invalidate(c);
    CHECK_EQ(cache_probe(c, 0x1000), 0);
    CHECK_EQ(fill(c, 0x0, 0x1, 3), 2); /* the outstanding fill still completes */
    CHECK_EQ(cache_probe(c, 0x0), 1);
    cache_free(c);
}

/* The published IPOLY equations (FORMATS.md B.6): a = line address >> log2(sets). */
TEST(cache_ipoly_set_index)
{
    cache_cfg cf = cfg_base();
    cf.index = CACHE_IDX_IPOLY;
    cf.sets = 64;
    cache *c = cache_new(&cf);
    CHECK_EQ(cache_set_of(c, 0x0), 0);
    CHECK_EQ(cache_set_of(c, 5 * 128), 5);         /* no higher bits: the linear index */
    CHECK_EQ(cache_set_of(c, 1ull << 13), 3);      /* a0 feeds bits 0 and 1 */
    CHECK_EQ(cache_set_of(c, 1ull << 18), 35);     /* a5 feeds bits 0, 1 and 5 */
    CHECK_EQ(cache_set_of(c, 1ull << 25), 15);     /* a12 feeds bits 0-3 */
    CHECK_EQ(cache_set_of(c, (1ull << 13) + 5 * 128), 6); /* 0b000011 ^ 0b000101 */
    cache_free(c);
    cf.sets = 32;
    c = cache_new(&cf);
    CHECK_EQ(cache_set_of(c, 1ull << 12), 5);      /* a0 feeds bits 0 and 2 */
    CHECK_EQ(cache_set_of(c, 1ull << 26), 6);      /* a14 feeds bits 1 and 2 */
    cache_free(c);
    cf.sets = 16;
    c = cache_new(&cf);
    CHECK_EQ(cache_set_of(c, 1ull << 11), 3);      /* a0 feeds bits 0 and 1 */
    CHECK_EQ(cache_set_of(c, 1ull << 23), 2);      /* a12 feeds bit 1 */
    cache_free(c);
}

/* cache_set_of takes IPOLY from a table, four address bits at a time: the equations agree. */
TEST(cache_ipoly_table_matches_equations)
{
    static const uint32_t sets[3] = {16, 32, 64};
    for (int k = 0; k < 3; k++) {
        cache_cfg cf = cfg_base();
        cf.index = CACHE_IDX_IPOLY;
        cf.sets = sets[k];
        cache *c = cache_new(&cf);
        unsigned sl = k + 4, bad = 0;
        uint64_t x = 7;
        for (int n = 0; n < 20000; n++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t addr = n < 64 ? 1ull << n : x;
            bad += cache_set_of(c, addr) != cache_index_hash(&cf, 7, sl, addr);
        }
        CHECK_EQ(bad, 0);
        cache_free(c);
    }
}

TEST(cache_other_set_indexes)
{
    cache_cfg cf = cfg_base();
    cf.index = CACHE_IDX_FERMI;
    cf.sets = 32;
    cache *c = cache_new(&cf);
    CHECK_EQ(cache_set_of(c, 3 * 128), 3);
    CHECK_EQ(cache_set_of(c, 1ull << 13), 1);
    CHECK_EQ(cache_set_of(c, 1ull << 17), 8);
    CHECK_EQ(cache_set_of(c, (1ull << 19) + 16 * 128), 0); /* bit 19 -> 16, cancelled */
    cache_free(c);
    cf.sets = 64;
    c = cache_new(&cf);
    CHECK_EQ(cache_set_of(c, 1ull << 12), 32);
    cache_free(c);
    cf.index = CACHE_IDX_XOR;
    cf.sets = 4;
    c = cache_new(&cf);
    CHECK_EQ(cache_set_of(c, 1ull << 9), 1);
    CHECK_EQ(cache_set_of(c, (1ull << 9) + 128), 0);
    cache_free(c);
    cf.index = CACHE_IDX_LINEAR;
    cf.sets = 3; /* linear allows any set count */
    c = cache_new(&cf);
    CHECK_EQ(cache_set_of(c, 4 * 128), 1);
    cache_free(c);
}

static uint64_t index_by_shift(const void *ctx, uint64_t addr)
{
    return addr >> *(const unsigned *)ctx;
}

TEST(cache_index_address_hook)
{
    cache_cfg cf = cfg_base();
    cf.sets = 4;
    cache *c = cache_new(&cf);
    static const unsigned shift = 1;
    CHECK_EQ(cache_set_of(c, 2 * 128), 2);
    cache_set_index_addr(c, index_by_shift, &shift);
    CHECK_EQ(cache_set_of(c, 2 * 128), 1);
    rd(c, 2 * 128, 1, 1);
    fill(c, 2 * 128, 0x1, 2);
    CHECK_EQ(cache_probe(c, 2 * 128), 1);
    cache_free(c);
}

TEST(cache_write_ratio_protects_dirty_lines)
{
    cache_cfg cf = cfg_base();
    cf.write_ratio = 60;
    cache *c = cache_new(&cf);
    wr(c, 0x0000, 1); /* dirty A: 1 of 2 lines = 50% < 60% */
    rd(c, 0x1000, 1, 2);
    fill(c, 0x1000, 0x1, 3);
    rd(c, 0x2000, 2, 4); /* LRU would take A; the ratio keeps it */
    CHECK_EQ(cache_probe(c, 0x0000), 1);
    CHECK_EQ(cache_probe(c, 0x1000), 0);
    cache_free(c);
    cf.write_ratio = 0;
    c = cache_new(&cf);
    wr(c, 0x0000, 1);
    rd(c, 0x1000, 1, 2);
    fill(c, 0x1000, 0x1, 3);
    cache_result o = rd(c, 0x2000, 2, 4);
    CHECK_EQ(cache_probe(c, 0x0000), 0);
    CHECK_EQ(o.wb_mask, 0x1);
    cache_free(c);
}

/* 2 sets x 2 ways, write ratio 50%: set 0 holds dirty A (protected while it is the only
 * dirty line) and B being fetched, so a read of C in set 0 is refused for want of a line. */
static cache *refusing_cache(void)
{
    cache_cfg cf = cfg_base();
    cf.sets = 2;
    cf.write_ratio = 50;
    cache *c = cache_new(&cf);
    wr(c, 0x0000, 1);
    rd(c, 0x0100, 1, 2);
    for (int k = 0; k < 2; k++)
        CHECK_EQ(rd(c, 0x0200, 2, 3 + k).fail, CACHE_FAIL_LINE);
    CHECK_EQ(fail_bin(c, CACHE_FAIL_LINE), 2);
    return c;
}

/* A refused request retried unchanged is answered from the last refusal; anything that
 * changes the cache in between must be seen by the retry. */
TEST(cache_retry_sees_every_change)
{
    cache *c = refusing_cache();
    wr(c, 0x0080, 5); /* a second dirty line (set 1): dirty lines may now be evicted */
    cache_result o = rd(c, 0x0200, 2, 6);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.wb_addr, 0x0000);
    cache_free(c);
    c = refusing_cache();
    uint64_t line;
    uint8_t mask;
    CHECK_EQ(cache_flush_next(c, &line, &mask), 1); /* A is clean now */
    CHECK_EQ(rd(c, 0x0200, 2, 6).status, CACHE_MISS);
    cache_free(c);
    c = refusing_cache();
    cache_invalidate(c); /* A is gone, B stays reserved */
    CHECK_EQ(rd(c, 0x0200, 2, 6).status, CACHE_MISS);
    cache_free(c);
    cache_cfg cf = cfg_base();
    cf.mshr_entries = 1;
    c = cache_new(&cf);
    rd(c, 0x0000, 1, 1);
    CHECK_EQ(rd(c, 0x1000, 2, 2).fail, CACHE_FAIL_MSHR);
    cache_prefill(c, 0x1000, 0x1, 3);
    CHECK_EQ(rd(c, 0x1000, 2, 4).status, CACHE_HIT);
    cache_set_missq_room(c, 1); /* the room is part of what was refused */
    CHECK_EQ(rd(c, 0x2000, 3, 5).fail, CACHE_FAIL_MISSQ);
    cache_set_missq_room(c, 2);
    CHECK_EQ(rd(c, 0x2000, 3, 5).fail, CACHE_FAIL_MSHR);
    CHECK_EQ(wr(c, 0x2000, 5).status, CACHE_MISS); /* and so is the operation */
    cache_free(c);
}

TEST(cache_miss_queue_room)
{
    cache_cfg cf = cfg_base();
    cache *c = cache_new(&cf);
    cache_set_missq_room(c, 1);
    cache_result o = rd(c, 0x0, 1, 1); /* a read miss keeps room for a writeback too */
    CHECK_EQ(o.status, CACHE_RES_FAIL);
    CHECK_EQ(o.fail, CACHE_FAIL_MISSQ);
    CHECK_EQ(cache_mshr_used(c), 0);
    cache_set_missq_room(c, 2);
    CHECK_EQ(rd(c, 0x0, 1, 2).status, CACHE_MISS);
    CHECK_EQ(rd(c, 0x20, 2, 2).status, CACHE_RES_FAIL); /* the fetch used one */
    CHECK_EQ(wr(c, 0x1000, 3).status, CACHE_MISS);     /* write-back lazy: needs none */
    cache_set_missq_room(c, CACHE_MISSQ_UNLIMITED);
    CHECK_EQ(rd(c, 0x20, 2, 4).status, CACHE_MISS);
    CHECK_EQ(fail_bin(c, CACHE_FAIL_MISSQ), 2);
    cache_free(c);
}

TEST(cache_streaming_allocates_on_fill)
{
    cache_cfg cf = cfg_base();
    cf.write = CACHE_WR_WT;
    cf.alloc = CACHE_AL_STREAMING;
    cf.walloc = CACHE_WA_NONE;
    cf.mshr_entries = 1;
    cf.mshr_merge = 1;
    cache *c = cache_new(&cf);
    CHECK_EQ(cache_config(c)->mshr_entries, 1 * 2 * 4 * 4);
    CHECK_EQ(cache_config(c)->mshr_merge, 64);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(rd(c, 0x1000 * (uint64_t)i, 1, 1).status, CACHE_MISS); /* > 2 ways */
    cache_result o = rd(c, 0x0, 2, 1);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.fetch_mask, 0);
    CHECK_EQ(st(c, "mshr_hits"), 1);
    CHECK_EQ(st(c, "hit_reserved"), 0);
    CHECK_EQ(fill(c, 0x0, 0x1, 2), 2);
    CHECK_EQ(cache_probe(c, 0x0), 1);
    for (int i = 1; i < 4; i++)
        CHECK_EQ(fill(c, 0x1000 * (uint64_t)i, 0x1, 3), 1);
    CHECK_EQ(st(c, "evictions"), 2); /* 4 lines through 2 ways */
    cache_reshape(c, 4, CACHE_AL_ON_MISS); /* no shared memory: allocate on miss */
    CHECK_EQ(cache_config(c)->assoc, 4);
    CHECK_EQ(cache_probe(c, 0x3000), 0);
    CHECK_EQ(rd(c, 0x0, 1, 4).status, CACHE_MISS);
    CHECK_EQ(rd(c, 0x0, 2, 4).status, CACHE_HIT_RESERVED);
    cache_free(c);
}

TEST(cache_atomic_marks_dirty)
{
    cache_cfg cf = cfg_base();
    cf.assoc = 1;
    cache *c = cache_new(&cf);
    mem_req a = req(0x0, MEM_ATOM, 1);
    cache_result o;
    cache_access(c, &a, 1, &o);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(st(c, "read_accesses"), 1);
    fill(c, 0x0, 0x1, 2);
    o = rd(c, 0x1000, 2, 3);
    CHECK_EQ(o.wb_addr, 0x0);
    CHECK_EQ(o.wb_mask, 0x1);
    cache_free(c);
}

TEST(cache_write_allocate_policies)
{
    cache_cfg cf = cfg_base();
    cf.kind = CACHE_NORMAL;
    cf.walloc = CACHE_WA_WRITE; /* GPGPU-Sim naive: write through and fetch the line */
    cache *c = cache_new(&cf);
    cache_result o = wr(c, 0x40, 1);
    CHECK_EQ(o.status, CACHE_MISS);
    CHECK_EQ(o.send_write, 1);
    CHECK_EQ(o.fetch_mask, 0xf);
    CHECK_EQ(fill(c, 0x0, 0xf, 2), 0); /* nobody waits for a write-allocate fetch */
    CHECK_EQ(cache_probe(c, 0x40), 1);
    uint64_t la;
    uint8_t m = 0;
    CHECK_EQ(cache_flush_next(c, &la, &m), 0); /* filled clean */
    cache_free(c);

    cf.kind = CACHE_SECTOR;
    cf.walloc = CACHE_WA_FETCH; /* fetch, then modified */
    c = cache_new(&cf);
    o = wr(c, 0x40, 1);
    CHECK_EQ(o.send_write, 0);
    CHECK_EQ(o.fetch_mask, 0x4);
    CHECK_EQ(fill(c, 0x0, 0x4, 2), 0);
    CHECK_EQ(cache_flush_next(c, &la, &m), 1);
    CHECK_EQ(m, 0x4);
    cache_free(c);
}

/* Accel-Sim's vectoradd on RTX3070: every L1D sector misses, reads and writes alike, the
 * first sector of a line as MISS and the others as SECTOR_MISS; pending hits are not
 * misses. Same shape here for 3 arrays x 4 lines x 4 sectors, run twice identically. */
static void vectoradd(cache *c)
{
    uint64_t now = 0;
    for (uint64_t s = 0; s < 16; s++) {
        rd(c, 0x100000 + 32 * s, 1, now++);
        rd(c, 0x200000 + 32 * s, 2, now++);
        wr(c, 0x300000 + 32 * s, now++);
    }
}

TEST(cache_stats_vectoradd_shape_deterministic)
{
    cache_cfg cf = cfg_base();
    cf.write = CACHE_WR_WT;
    cf.sets = 4;
    cf.assoc = 64;
    cf.mshr_entries = 384;
    cf.mshr_merge = 48;
    cache *a = cache_new(&cf), *b = cache_new(&cf);
    vectoradd(a);
    vectoradd(b);
    CHECK_EQ(st(a, "accesses"), 48);
    CHECK_EQ(st(a, "misses"), 48);
    CHECK_EQ(st(a, "sector_misses"), 36);
    CHECK_EQ(st(a, "read_misses"), 32);
    CHECK_EQ(st(a, "write_misses"), 16);
    CHECK_EQ(st(a, "writes_sent"), 16);
    CHECK_EQ(st(a, "fetches"), 32);
    CHECK_EQ(st(a, "hits"), 0);
    const stat_set *s = cache_stats_set();
    CHECK_EQ(stat_ratio(cache_stats(a), stat_find(s, "miss_rate")) == 1.0, 1);
    for (int i = 0; i < s->nslots; i++)
        CHECK_EQ(cache_stats(a)->v[i], cache_stats(b)->v[i]);
    cache_free(a);
    cache_free(b);
}

TEST(cache_cfg_from_knobs_and_check)
{
    knob_cfg k;
    knob_init(&k);
    cache_cfg c;
    cache_cfg_from_knobs(&c, &k.v, "l1d");
    CHECK_STR(c.name, "l1d");
    CHECK_EQ(c.kind, CACHE_SECTOR);
    CHECK_EQ(c.sets, 4);
    CHECK_EQ(c.assoc, 256);
    CHECK_STR(c.repl, "lru");
    CHECK_EQ(c.write, CACHE_WR_WT);
    CHECK_EQ(c.walloc, CACHE_WA_LAZY_FETCH);
    CHECK_EQ(c.mshr_entries, 384);
    CHECK_EQ(c.mshr_merge, 48);
    CHECK_EQ(c.write_ratio, 25);
    base_err e = {0};
    CHECK_EQ(cache_cfg_check(&c, &e), 0);
    cache_cfg_from_knobs(&c, &k.v, "l2");
    CHECK_EQ(c.index, CACHE_IDX_IPOLY);
    CHECK_EQ(c.write, CACHE_WR_WB);
    CHECK_EQ(c.write_ratio, 0);
    CHECK_EQ(cache_cfg_check(&c, &e), 0);
    c.sets = 8;
    CHECK_EQ(cache_cfg_check(&c, &e), -1);
    CHECK_HAS(e.msg, "ipoly");
    const char *pre[] = {"l1i", "l1c", "l1t"};
    for (int i = 0; i < 3; i++) {
        cache_cfg_from_knobs(&c, &k.v, pre[i]);
        CHECK_EQ(c.write, CACHE_WR_RO);
        base_err_clear(&e);
        CHECK_EQ(cache_cfg_check(&c, &e), 0);
    }
    knob_free(&k);
}

TEST(cache_repl_ops_pick_oldest_candidate)
{
    const uint64_t use[3] = {5, 2, 2}, alloc[3] = {1, 3, 4};
    uint64_t all = 0x7, not1 = 0x5;
    const cache_repl_ops *lru = cache_repl_find("lru"), *fifo = cache_repl_find("fifo");
    CHECK_EQ(lru->victim(use, alloc, 3, &all), 1); /* tie 2/2: the lower way */
    CHECK_EQ(lru->victim(use, alloc, 3, &not1), 2);
    CHECK_EQ(fifo->victim(use, alloc, 3, &all), 0);
    CHECK_EQ(fifo->victim(use, alloc, 3, &not1), 0);
    CHECK_STR(cache_repl_registry[0]->name, "lru");
}

/* A plain model (per set: lines with their sectors and stamps, the oldest replaced) against
 * the cache on a random read stream with each miss filled at once and distinct times, so
 * no two stamps tie: the set of resident lines, and so every outcome, must agree. */
typedef struct model_line {
    uint64_t ln, use, alloc;
    uint8_t valid;
} model_line;

static int model_access(model_line *set, uint32_t assoc, uint64_t ln, unsigned sec, uint64_t now,
                        int fifo)
{
    uint32_t free_w = assoc, old = 0;
    for (uint32_t w = 0; w < assoc; w++) {
        if (set[w].valid && set[w].ln == ln) {
            set[w].use = now;
            int hit = (set[w].valid >> sec) & 1;
            set[w].valid |= (uint8_t)(1u << sec);
            return hit ? CACHE_HIT : CACHE_MISS;
        }
        if (!set[w].valid)
            free_w = w;
        else if ((fifo ? set[w].alloc : set[w].use) < (fifo ? set[old].alloc : set[old].use) ||
                 !set[old].valid)
            old = w;
    }
    uint32_t w = free_w < assoc ? free_w : old;
    set[w] = (model_line){ln, now, now, (uint8_t)(1u << sec)};
    return CACHE_MISS;
}

static void model_run(int fifo, int index)
{
    cache_cfg cf = cfg_base();
    cf.sets = 16;
    cf.assoc = 8;
    cf.index = index;
    cf.repl = fifo ? "fifo" : "lru";
    cache *c = cache_new(&cf);
    static model_line sets[16][8];
    memset(sets, 0, sizeof sets);
    uint64_t x = 99;
    for (uint64_t now = 1; now <= 20000; now++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t addr = ((x >> 33) % 256) * 32 * 4 * 3 + ((x >> 20) & 3) * 32;
        cache_result o = rd(c, addr, 0, now);
        uint32_t s = cache_set_of(c, addr);
        int want = model_access(sets[s], 8, addr >> 7, cache_sector_of(addr), now, fifo);
        if (o.status != want) {
            test_fail_at(__FILE__, __LINE__, "access %llu (0x%llx): status %d, model %d",
                         (unsigned long long)now, (unsigned long long)addr, o.status, want);
            break;
        }
        if (o.fetch_mask)
            fill(c, addr & ~127ull, o.fetch_mask, now);
    }
    CHECK_EQ(st(c, "accesses"), 20000);
    CHECK(st(c, "hits") > 1000);
    CHECK(st(c, "evictions") > 1000);
    cache_free(c);
}

TEST(cache_matches_plain_model_on_random_reads)
{
    for (cfg_simd = 0; cfg_simd < 2; cfg_simd++) {
        model_run(0, CACHE_IDX_LINEAR);
        model_run(1, CACHE_IDX_LINEAR);
        model_run(0, CACHE_IDX_IPOLY);
        model_run(1, CACHE_IDX_XOR);
    }
    cfg_simd = 0;
}

/* A reference model of victim choice under everything that constrains it: ties of stamps
 * (several accesses per cycle), reserved lines (fills arrive late), dirty lines under the
 * write ratio, prefills on a second clock (stamps that go back), invalidation and flushes,
 * and sets wider than 64 ways. Writebacks name each evicted dirty line, and statuses show
 * which lines stayed, so a different victim shows up. Write-back, lazy fetch, sectored. */
typedef struct vm_line {
    uint64_t ln, use, alloc;
    uint8_t valid, dirty, resv, fd, used;
} vm_line;

typedef struct vm {
    vm_line *l;
    uint32_t sets, assoc, ratio, dirty_lines, flush_pos;
    int fifo;
    int refused, refused_wr; /* the last access was refused: the owner retries it */
    uint64_t refused_addr;
    uint32_t wr_from;        /* ops from here up write (of 100) */
    int runs;                /* ops 96..98: a run of prefills (cache_prefill_begin .. end) */
    uint64_t evictions, run_calls;
} vm;

static void vm_set(vm *m, vm_line *x, uint8_t valid, uint8_t dirty, uint8_t resv)
{
    m->dirty_lines += (dirty != 0) - (x->dirty != 0);
    x->valid = valid;
    x->dirty = dirty;
    x->resv = resv;
    if (!(valid | resv))
        x->used = 0, x->fd = 0;
}

static vm_line *vm_find(vm *m, uint32_t set, uint64_t ln)
{
    for (uint32_t w = 0; w < m->assoc; w++)
        if (m->l[set * m->assoc + w].used && m->l[set * m->assoc + w].ln == ln)
            return &m->l[set * m->assoc + w];
    return NULL;
}

/* The last free way, else the unpinned line with the smallest stamp, the lowest way first. */
static vm_line *vm_victim(vm *m, uint32_t set)
{
    int dirty_ok = (uint64_t)m->dirty_lines * 100 >= (uint64_t)m->ratio * m->sets * m->assoc;
    vm_line *best = NULL, *s = &m->l[set * m->assoc];
    for (uint32_t w = 0; w < m->assoc; w++)
        if (!s[w].used)
            best = &s[w];
    if (best)
        return best;
    for (uint32_t w = 0; w < m->assoc; w++) {
        if (s[w].resv || (s[w].dirty && !dirty_ok))
            continue;
        if (!best || (m->fifo ? s[w].alloc < best->alloc : s[w].use < best->use))
            best = &s[w];
    }
    return best;
}

/* Evicts x (if in use) and installs ln: the writeback the cache must report, if any. */
static void vm_place(vm *m, vm_line *x, uint64_t ln, uint64_t now, uint64_t *wb, uint8_t *wbm)
{
    *wb = 0;
    *wbm = 0;
    if (x->used && x->dirty) {
        *wb = x->ln << 7;
        *wbm = x->dirty;
    }
    if (x->used) {
        vm_set(m, x, 0, 0, 0);
        m->evictions++;
    }
    *x = (vm_line){ln, now, now, 0, 0, 0, 0, 1};
}

/* Expected status of an access; *fetch the sector to fetch (reads). */
static int vm_access(vm *m, uint32_t set, uint64_t addr, int write, uint64_t now, uint8_t *fetch,
                     uint64_t *wb, uint8_t *wbm)
{
    uint64_t ln = addr >> 7;
    uint8_t s = (uint8_t)(1u << cache_sector_of(addr));
    vm_line *x = vm_find(m, set, ln);
    *fetch = 0;
    *wb = 0;
    *wbm = 0;
    if (x) {
        x->use = now;
        if (x->resv & s) {
            if (write)
                x->fd |= s;
            return CACHE_HIT_RESERVED;
        }
        if (!(x->valid & s)) {
            if (write) {
                vm_set(m, x, x->valid | s, x->dirty | s, x->resv);
            } else {
                vm_set(m, x, x->valid, x->dirty, x->resv | s);
                *fetch = s;
            }
            return CACHE_MISS;
        }
        if (write)
            vm_set(m, x, x->valid, x->dirty | s, x->resv);
        return CACHE_HIT;
    }
    if (!(x = vm_victim(m, set)))
        return CACHE_RES_FAIL;
    vm_place(m, x, ln, now, wb, wbm);
    if (write) {
        vm_set(m, x, s, s, 0);
    } else {
        vm_set(m, x, 0, 0, s);
        *fetch = s;
    }
    return CACHE_MISS;
}

static void vm_fill(vm *m, uint32_t set, uint64_t ln, uint8_t got)
{
    vm_line *x = vm_find(m, set, ln);
    uint8_t fd = x->fd & got;
    x->fd &= (uint8_t)~got;
    vm_set(m, x, x->valid | got, x->dirty | fd, x->resv & (uint8_t)~got);
}

static void vm_prefill(vm *m, uint32_t set, uint64_t ln, uint8_t s, uint64_t now)
{
    vm_line *x = vm_find(m, set, ln);
    uint64_t wb;
    uint8_t wbm;
    if (x) {
        x->use = now;
        vm_set(m, x, x->valid | (s & (uint8_t)~x->resv), x->dirty, x->resv);
    } else if ((x = vm_victim(m, set))) {
        vm_place(m, x, ln, now, &wb, &wbm);
        vm_set(m, x, s, 0, 0);
    }
}

static void vm_invalidate(vm *m)
{
    for (uint32_t i = 0; i < m->sets * m->assoc; i++)
        if (m->l[i].used) {
            m->l[i].fd = 0;
            vm_set(m, &m->l[i], 0, 0, m->l[i].resv);
        }
    m->flush_pos = 0;
}

/* The next dirty line from flush_pos on, now clean: 0 when none. */
static int vm_flush(vm *m, uint64_t *addr, uint8_t *mask)
{
    uint32_t n = m->sets * m->assoc;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (m->flush_pos + k) % n;
        vm_line *x = &m->l[i];
        if (!x->dirty)
            continue;
        *addr = x->ln << 7;
        *mask = x->dirty;
        vm_set(m, x, x->valid, 0, x->resv);
        m->flush_pos = (i + 1) % n;
        return 1;
    }
    return 0;
}

typedef struct vm_pend {
    uint64_t line;
    uint8_t s;
} vm_pend;

static uint64_t vm_rand(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

/* Every sector the model holds valid is valid in the cache, and the counts agree. */
static int vm_same_lines(const cache *c, const vm *m)
{
    uint32_t held = 0;
    for (uint32_t i = 0; i < m->sets * m->assoc; i++) {
        const vm_line *x = &m->l[i];
        for (unsigned k = 0; x->used && k < 4; k++) {
            held += (x->valid >> k) & 1;
            if (((x->valid >> k) & 1) != cache_probe(c, (x->ln << 7) + 32 * k))
                return 0;
        }
    }
    return held > 0;
}

/* A memcpy's prefills as one run, one stamp: mostly new lines in a row, up to six times
 * the cache, some repeated (another sector), some anywhere (hits), a few on the next stamp. */
static void vm_prefill_run(cache *c, vm *m, uint64_t *x, uint64_t t)
{
    uint64_t nl = (uint64_t)m->sets * m->assoc, range = nl * 3 / 2 + 2;
    uint64_t start = vm_rand(x) % range, len = vm_rand(x) % (6 * nl + 4);
    cache_prefill_begin(c);
    for (uint64_t k = 0; k < len; k++) {
        uint64_t r = vm_rand(x), ln = start + k, tk = t;
        if (r % 32 == 0)
            ln = vm_rand(x) % range;
        else if (r % 32 == 1 && k)
            ln = start + k - 1;
        else if (r % 64 == 2)
            tk = t + 1;
        uint8_t s = (r >> 8) % 4 ? (uint8_t)(1u << ((r >> 10) & 3)) : 0xF;
        cache_prefill(c, ln << 7, s, tk);
        vm_prefill(m, cache_set_of(c, ln << 7), ln, s, tk);
        m->run_calls++;
    }
    cache_prefill_end(c);
}

static int vm_step(cache *c, vm *m, uint64_t *x, uint64_t now, vm_pend *pend, uint32_t *npend)
{
    uint64_t r = vm_rand(x), nlines = (uint64_t)m->sets * m->assoc * 3 / 2 + 2;
    uint64_t addr = (vm_rand(x) % nlines) * 128 + (r & 3) * 32;
    uint32_t set = cache_set_of(c, addr), op = (uint32_t)(r >> 2) % 100;
    if (op < 25 && *npend) { /* a fill of a random outstanding sector */
        uint32_t k = (uint32_t)(vm_rand(x) % *npend);
        vm_pend p = pend[k];
        pend[k] = pend[--*npend];
        fill(c, p.line, p.s, now);
        vm_fill(m, cache_set_of(c, p.line), p.line >> 7, p.s);
        return 1;
    }
    if (op < 30) { /* a prefill on a clock of its own, behind the cache's */
        uint8_t s = (uint8_t)(1u << (r & 3));
        cache_prefill(c, addr & ~127ull, s, now / 3);
        vm_prefill(m, set, addr >> 7, s, now / 3);
        return 1;
    }
    if (op >= 96 && op < 99 && m->runs) {
        vm_prefill_run(c, m, x, now / 3);
        return st(c, "evictions") == m->evictions && vm_same_lines(c, m);
    }
    uint64_t wb, fwb = 0;
    uint8_t fetch, wbm, fwm = 0;
    if (op == 99 && !*npend) { /* a kernel boundary: flush and invalidate */
        int n = 0;
        while (cache_flush_next(c, &fwb, &fwm) && n++ < 1000) {
            uint64_t a;
            uint8_t mk;
            if (!vm_flush(m, &a, &mk) || a != fwb || mk != fwm)
                return 0;
        }
        if (vm_flush(m, &fwb, &fwm))
            return 0;
        cache_invalidate(c);
        vm_invalidate(m);
        return 1;
    }
    int write = op >= m->wr_from;
    if (m->refused && (r & 0x30)) { /* mostly the refused request again, as an owner does */
        addr = m->refused_addr;
        write = m->refused_wr;
        set = cache_set_of(c, addr);
    }
    int want = vm_access(m, set, addr, write, now, &fetch, &wb, &wbm);
    cache_result o = write ? wr(c, addr, now) : rd(c, addr, 1, now);
    if (o.status != want || o.fetch_mask != fetch || o.wb_mask != wbm || o.wb_addr != wb)
        return 0;
    m->refused = want == CACHE_RES_FAIL;
    m->refused_addr = addr;
    m->refused_wr = write;
    if (fetch)
        pend[(*npend)++] = (vm_pend){addr & ~127ull, fetch};
    return 1;
}

static cache *vm_go(uint32_t sets, uint32_t assoc, int fifo, uint32_t ratio, int index,
                    uint32_t wr_from, int runs, uint64_t *run_calls)
{
    cache_cfg cf = cfg_base();
    cf.sets = sets;
    cf.assoc = assoc;
    cf.repl = fifo ? "fifo" : "lru";
    cf.write_ratio = ratio;
    cf.index = index;
    cf.mshr_entries = 4096;
    cf.mshr_merge = 8; /* pending sectors are filled long before 8 requests merge */
    cache *c = cache_new(&cf);
    vm m = {calloc((size_t)sets * assoc, sizeof(vm_line)), sets, assoc, ratio, 0, 0, fifo, 0, 0,
            0, wr_from, runs, 0, 0};
    vm_pend *pend = calloc(4096, sizeof *pend);
    uint32_t npend = 0;
    uint64_t x = sets * 1000003ull + assoc * 7 + ratio;
    for (uint64_t step = 0; step < 30000; step++) {
        uint64_t now = 10 + step / 3; /* three accesses per cycle: stamps tie */
        if (!vm_step(c, &m, &x, now, pend, &npend)) {
            test_fail_at(__FILE__, __LINE__, "%u sets x %u ways %s ratio %u: step %llu differs",
                         sets, assoc, cf.repl, ratio, (unsigned long long)step);
            break;
        }
    }
    CHECK(st(c, "evictions") > 1000);
    CHECK(st(c, "hits") > 500);
    CHECK_EQ(st(c, "res_fails"), fail_bin(c, CACHE_FAIL_LINE)); /* the only limit reached */
    CHECK_EQ(st(c, "evictions"), m.evictions);
    if (run_calls)
        *run_calls = m.run_calls;
    free(m.l);
    free(pend);
    return c;
}

static void vm_run(uint32_t sets, uint32_t assoc, int fifo, uint32_t ratio, int index)
{
    cache_free(vm_go(sets, assoc, fifo, ratio, index, 70, 0, NULL));
}

/* Runs of prefills, some with dirty lines about (nothing is held back then): the cache that
 * holds back what a run only churns through a victim way must end where the model does,
 * line for line and eviction for eviction, and must have held back at least `pct` percent of
 * the run's prefills. */
static void vm_runs(uint32_t sets, uint32_t assoc, int fifo, uint32_t wr_from, int index,
                    unsigned pct)
{
    uint64_t calls = 0;
    cache *c = vm_go(sets, assoc, fifo, 0, index, wr_from, 1, &calls);

    if (cache_prefill_deferred(c) * 100 < calls * pct)
        test_fail_at(__FILE__, __LINE__, "%u sets x %u ways: %llu of %llu prefills held back",
                     sets, assoc, (unsigned long long)cache_prefill_deferred(c),
                     (unsigned long long)calls);
    cache_free(c);
}

TEST(cache_victims_match_model_with_ties_pins_and_prefills)
{
    for (cfg_simd = 0; cfg_simd < 2; cfg_simd++) {
        vm_run(1, 2, 0, 0, CACHE_IDX_LINEAR);
        vm_run(2, 5, 0, 40, CACHE_IDX_LINEAR);
        vm_run(3, 6, 1, 20, CACHE_IDX_LINEAR); /* neither count a power of two */
        vm_run(4, 16, 0, 25, CACHE_IDX_XOR);
        vm_run(16, 8, 1, 0, CACHE_IDX_IPOLY);
        vm_run(16, 32, 0, 20, CACHE_IDX_IPOLY); /* the widest sets found by a scan (find_line) */
        vm_run(2, 33, 1, 20, CACHE_IDX_LINEAR); /* the narrowest found by the index */
        vm_run(2, 65, 0, 25, CACHE_IDX_LINEAR); /* a way beyond the first 64-bit word */
        vm_run(1, 256, 1, 30, CACHE_IDX_LINEAR);
        vm_run(1, 256, 0, 10, CACHE_IDX_LINEAR);
    }
    cfg_simd = 0;
}

TEST(cache_prefill_runs_match_model)
{
    vm_runs(4, 4, 0, 100, CACHE_IDX_LINEAR, 30);
    vm_runs(8, 16, 0, 97, CACHE_IDX_LINEAR, 0); /* writes: dirty lines stop holding back */
    vm_runs(3, 6, 1, 100, CACHE_IDX_LINEAR, 30);
    vm_runs(16, 8, 0, 100, CACHE_IDX_IPOLY, 30);
    vm_runs(4, 20, 1, 100, CACHE_IDX_LINEAR, 30);
    vm_runs(2, 40, 0, 99, CACHE_IDX_LINEAR, 0);
    vm_runs(8, 32, 0, 100, CACHE_IDX_LINEAR, 30); /* a scan finds lines (find_line) */
    vm_runs(2, 33, 0, 100, CACHE_IDX_LINEAR, 30); /* the index does */
}

/* A fill's hint saves lookups and nothing else: twin caches fed the same accesses, one
 * filled with each fetch's own hint, the other with none, another fetch's, a freed entry's
 * or garbage, agree on every fill's waiters and writeback and on every statistic. */
typedef struct hint_fetch {
    uint64_t line;
    uint8_t mask;
    uint32_t hint;
} hint_fetch;

static void twins(cache_cfg ca, cache_cfg cb, int wrong_hints)
{
    cache *a = cache_new(&ca), *b = cache_new(&cb);
    hint_fetch q[256];
    unsigned n = 0;
    uint64_t x = 88172645463325252ull;
    mem_req out_a[64], out_b[64];
    for (uint64_t now = 1; now < 4000; now++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (n && (x % 3 == 0 || n == 256)) { /* fill a random outstanding fetch */
            unsigned k = (unsigned)(x >> 8) % n;
            hint_fetch f = q[k];
            q[k] = q[--n];
            uint32_t wrong[4] = {0, n ? q[(x >> 20) % n].hint : 7, f.hint + 1,
                                 (uint32_t)(x >> 32)};
            uint64_t wa_a, wa_b;
            uint8_t wm_a, wm_b;
            size_t na = cache_fill(a, f.line, f.mask, f.hint, now, out_a, 64, &wa_a, &wm_a);
            uint32_t hb = wrong_hints ? wrong[(x >> 40) & 3] : f.hint;
            size_t nb = cache_fill(b, f.line, f.mask, hb, now, out_b, 64, &wa_b, &wm_b);
            CHECK_EQ(na, nb);
            for (size_t i = 0; i < na && i < nb; i++)
                CHECK_EQ(out_a[i].slot, out_b[i].slot);
            CHECK_EQ(wa_a, wa_b);
            CHECK_EQ(wm_a, wm_b);
            continue;
        }
        mem_req r = req(0x1000 * ((x >> 16) % 24) + 32 * ((x >> 30) & 3),
                        (x >> 34) % 4 ? MEM_RD : MEM_WR, (uint16_t)now);
        cache_result ra, rb;
        cache_access(a, &r, now, &ra);
        cache_access(b, &r, now, &rb);
        CHECK_EQ(ra.status, rb.status);
        CHECK_EQ(ra.fetch_mask, rb.fetch_mask);
        CHECK_EQ(ra.hint, rb.hint);
        if (ra.fetch_mask && n < 256)
            q[n++] = (hint_fetch){r.addr & ~(uint64_t)(ca.line - 1), ra.fetch_mask, ra.hint};
    }
    const stat_block *sa = cache_stats(a), *sb = cache_stats(b);
    for (int i = 0; i < sa->set->nslots; i++)
        CHECK_EQ(sa->v[i], sb->v[i]);
    CHECK(st(a, "fills") > 100);
    cache_free(a);
    cache_free(b);
}

static void hint_twins(cache_cfg cf) { twins(cf, cf, 1); }

TEST(cache_fill_hints_change_nothing)
{
    cache_cfg cf = cfg_base();
    cf.sets = 4;
    cf.assoc = 4;
    cf.mshr_entries = 16;
    hint_twins(cf); /* sectored, allocate on miss, lazy fetch on write */
    cf.walloc = CACHE_WA_FETCH;
    hint_twins(cf);
    cf.kind = CACHE_NORMAL; /* line cache: one entry per line, filled sector by sector */
    hint_twins(cf);
    cf.alloc = CACHE_AL_STREAMING;
    cf.write = CACHE_WR_WT;
    cf.walloc = CACHE_WA_NONE;
    hint_twins(cf);
}

/* An allocate-on-miss cache's lines name their MSHR entries, unless there are too many
 * entries for a name, when the entries are indexed as other caches' are: twins just either
 * side of that bound (both far more entries than a run uses) agree on everything. */
TEST(cache_mshr_named_by_line_or_indexed_alike)
{
    cache_cfg cf = cfg_base();
    cf.sets = 4;
    cf.assoc = 4;
    cf.mshr_merge = 3; /* merge refusals happen */
    for (int k = 0; k < 3; k++) {
        cf.kind = k == 2 ? CACHE_NORMAL : CACHE_SECTOR;
        cf.walloc = k == 1 ? CACHE_WA_FETCH : CACHE_WA_LAZY_FETCH;
        cache_cfg by_line = cf, indexed = cf;
        by_line.mshr_entries = UINT16_MAX - 1;
        indexed.mshr_entries = UINT16_MAX;
        twins(by_line, indexed, 0);
    }
}

/* The tag arrays come with the first call that needs them: before it the cache is empty to
 * every reader, a reshape only changes the shape, and the first access or prefill works as
 * on a cache that always had them. */
TEST(cache_tags_allocated_on_first_use)
{
    cache_cfg cf = cfg_base();
    cache *c = cache_new(&cf);
    uint64_t a;
    uint8_t m;
    CHECK_EQ(cache_probe(c, 0x40), 0);
    cache_invalidate(c);
    CHECK_EQ(cache_flush_next(c, &a, &m), 0);
    cache_reshape(c, 4, CACHE_AL_ON_MISS);
    CHECK_EQ(cache_config(c)->assoc, 4);
    for (uint64_t i = 0; i < 4; i++) { /* four lines of one set: all stay with 4 ways */
        CHECK_EQ(rd(c, 0x1000 * i, (uint16_t)i, 1).status, CACHE_MISS);
        CHECK_EQ(fill(c, 0x1000 * i, 0x1, 2), 1);
    }
    for (uint64_t i = 0; i < 4; i++)
        CHECK_EQ(cache_probe(c, 0x1000 * i), 1);
    cache_free(c);

    c = cache_new(&cf); /* a prefill run as the first use */
    cache_prefill_begin(c);
    for (uint64_t i = 0; i < 5; i++)
        cache_prefill(c, 0x1000 * i, 0xF, 1);
    cache_prefill_end(c);
    /* 2 ways, one stamp: the first line stays, each later one replaces the one before it
     * (as on a cache that had its arrays from the start) */
    CHECK_EQ(cache_probe(c, 0x0), 1);
    CHECK_EQ(cache_probe(c, 0x4000), 1);
    CHECK_EQ(cache_probe(c, 0x1000) + cache_probe(c, 0x2000) + cache_probe(c, 0x3000), 0);
    cache_free(c);
}

/* The middle of a large copy, skipped: twin caches take the same older lines and the same
 * copy (head, middle, tail, one stamp), one prefilling every line of the middle, the other
 * only counting it (cache_prefill_skip) once cache_prefill_churns says every set churns.
 * Every tail covers every set. They must agree on every statistic and every line, then and
 * after a later copy that replaces part of the cache (so the age order agrees too). A dirty
 * line stops the churn. */
static int pf_twins(uint32_t sets, uint32_t assoc, const char *repl, int index, int sectored)
{
    cache_cfg cf = cfg_base();
    cf.sets = sets;
    cf.assoc = assoc;
    cf.repl = repl;
    cf.index = index;
    cf.kind = sectored ? CACHE_SECTOR : CACHE_NORMAL;
    cache *a = cache_new(&cf), *b = cache_new(&cf);
    uint64_t lines = (uint64_t)sets * assoc, head = 3 * lines, mid = 10 * lines;
    uint64_t tail = 4 * lines, base = 1ull << 30, bad = 0;
    for (uint64_t i = 0; i < lines / 2; i++) /* older lines at another stamp */
        for (cache *c = a; c; c = c == a ? b : NULL)
            cache_prefill(c, (7ull << 32) + i * 384, 0xF, 5);
    for (int part = 0; part < 3; part++) {
        uint64_t from = part == 0 ? 0 : part == 1 ? head : head + mid;
        uint64_t n = part == 0 ? head : part == 1 ? mid : tail;
        if (part == 1) {
            bad += !cache_prefill_churns(a, 10) || !cache_prefill_churns(b, 10);
            bad += cache_holds_lines(b, base + from * 128, base + (from + n) * 128);
            cache_prefill_skip(b, n);
        }
        for (cache *c = a; c; c = c == a ? b : NULL) {
            if (part == 1 && c == b)
                continue;
            cache_prefill_begin(c);
            for (uint64_t i = from; i < from + n; i++)
                cache_prefill(c, base + i * 128, 0xF, 10);
            cache_prefill_end(c);
        }
    }
    for (int round = 0; round < 2; round++) {
        static const char *const names[] = {"evictions", "writebacks", "accesses", "misses"};
        for (size_t k = 0; k < sizeof names / sizeof *names; k++)
            bad += st(a, names[k]) != st(b, names[k]);
        for (uint64_t i = 0; i < head + mid + tail; i++)
            bad += cache_probe(a, base + i * 128) != cache_probe(b, base + i * 128);
        for (uint64_t i = 0; i < lines / 2; i++)
            bad += cache_probe(a, (7ull << 32) + i * 384) != cache_probe(b, (7ull << 32) + i * 384);
        for (cache *c = a; c; c = c == a ? b : NULL) /* half a cache more, at a later stamp */
            for (uint64_t i = 0; i < lines / 2; i++)
                cache_prefill(c, (9ull << 32) + i * 128, 0xF, 20 + round);
    }
    CHECK(st(a, "evictions") > mid);
    cache_free(a);
    cache_free(b);
    return (int)bad;
}

TEST(cache_prefill_skip_matches_prefilling_the_middle)
{
    CHECK_EQ(pf_twins(4, 4, "lru", CACHE_IDX_LINEAR, 1), 0);
    CHECK_EQ(pf_twins(16, 16, "lru", CACHE_IDX_IPOLY, 1), 0);
    CHECK_EQ(pf_twins(16, 8, "fifo", CACHE_IDX_IPOLY, 0), 0);
    CHECK_EQ(pf_twins(2, 40, "lru", CACHE_IDX_LINEAR, 1), 0); /* sets found by the index */
    cache_cfg cf = cfg_base();
    cf.sets = 2;
    cache *c = cache_new(&cf);
    for (uint64_t i = 0; i < 4; i++)
        cache_prefill(c, i * 128, 0xF, 3);
    CHECK(cache_prefill_churns(c, 3));
    CHECK(!cache_prefill_churns(c, 4)); /* the victims carry another stamp */
    cache_result o;
    cache_access(c, &(mem_req){.addr = 0, .op = MEM_WR}, 3, &o); /* a write hit: dirty */
    CHECK(!cache_prefill_churns(c, 3));
    cache_free(c);
}
