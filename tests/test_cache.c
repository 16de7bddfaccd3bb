/* cache: hand-computed sequences for lookup, replacement, MSHRs, write policies, fills,
 * set index hashes (GPGPU-Sim hashing.cc equations) and statistics. */
#include "test.h"

#include "cache/cache.h"
#include "knob/knob.h"
#include "trace/trace.h"

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
    return cache_fill(c, line, mask, now, fill_out, 64, &fill_wb_addr, &fill_wb_mask);
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
    uint8_t m;
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
    model_run(0, CACHE_IDX_LINEAR);
    model_run(1, CACHE_IDX_LINEAR);
    model_run(0, CACHE_IDX_IPOLY);
    model_run(1, CACHE_IDX_XOR);
}
