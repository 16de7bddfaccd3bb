/* cache: a generic set-associative cache, line-granular or 32-byte sectored, with MSHRs,
 * a miss queue, write and allocation policies and pluggable replacement. The L1 data cache,
 * the L1 instruction and constant caches and every L2 slice are instances of it, configured
 * exactly as a GPGPU-Sim cache string describes (FORMATS.md B.4, knob group "cache").
 *
 * Contract
 * - The cache is passive: the owner calls cache_access() for each sector request, sends the
 *   fetches/writes the result asks for, and calls cache_fill() when data comes back. The cache
 *   never sends anything itself and keeps no clock except the `now` it is given (LRU stamps).
 * - Waiters are mem_req values kept in the MSHR entry (by value: nothing points outside).
 *   cache_fill() hands back every request merged on the filled sectors, oldest first.
 * - A CACHE_RES_FAIL result changes nothing except the res-fail statistics: the owner retries
 *   the same request later (it stays at the head of its queue, as in GPGPU-Sim). Whether a
 *   request is refused, and why, depends only on the cache's state, never on `now`: until
 *   the next call that changes the state (fill, access accepted, prefill, flush, invalidate,
 *   reshape), a retry is refused again for the same reason, and the cache answers it from
 *   a memo without a lookup. Tests in test_cache.c hold the cache to this.
 * - Deterministic: no pointers in ordering decisions, no randomness.
 */
#ifndef LOCKSTEP_CACHE_H
#define LOCKSTEP_CACHE_H
#include "../knob/knob.h"
#include "../mem/req.h"
#include "../stat/stat.h"
#include <stdint.h>

typedef enum { CACHE_NORMAL, CACHE_SECTOR } cache_kind;
/* Index orders match the knob ENUM choices of knobs.def (KNOB_CACHE), so a knob value is a
 * valid cache_cfg field as is. */
typedef enum { CACHE_WR_RO, CACHE_WR_WB, CACHE_WR_WT, CACHE_WR_WE, CACHE_WR_LWB_GWT } cache_write;
typedef enum { CACHE_AL_ON_MISS, CACHE_AL_ON_FILL, CACHE_AL_STREAMING } cache_alloc;
typedef enum { CACHE_WA_NONE, CACHE_WA_WRITE, CACHE_WA_FETCH, CACHE_WA_LAZY_FETCH } cache_walloc;
typedef enum { CACHE_IDX_LINEAR, CACHE_IDX_FERMI, CACHE_IDX_IPOLY, CACHE_IDX_XOR, CACHE_IDX_CUSTOM } cache_index;

typedef struct cache_cfg {
    const char *name;        /* "l1d", "l2", ... (messages, stats prefix) */
    int kind;                /* cache_kind */
    uint32_t sets, line, assoc;
    const char *repl;        /* replacement policy name: "lru" | "fifo" (registry) */
    int write, alloc, walloc, index; /* cache_write, cache_alloc, cache_walloc, cache_index */
    uint32_t mshr_entries;   /* lines (or sectors for sector MSHRs) with outstanding misses */
    uint32_t mshr_merge;     /* requests per MSHR entry, the first included */
    uint32_t miss_queue;     /* misses that may wait to be sent below at once */
    uint32_t write_ratio;    /* percent: modified lines may not be evicted while fewer than
                                this share of all lines is modified (GPGPU-Sim
                                -gpgpu_l1_cache_write_ratio; 0 = no protection) */
    int simd;                /* host_simd: AVX2 where the host has it (same results) */
} cache_cfg;

/* From the knobs of a KNOB_CACHE row: prefix "l1d", "l2", "l1i", "l1c". */
void cache_cfg_from_knobs(cache_cfg *c, const knobs *k, const char *prefix);
/* 0, or -1 with a message for a configuration cache_new would refuse (cache_new panics). */
int cache_cfg_check(const cache_cfg *c, base_err *e);

typedef enum {
    CACHE_HIT,          /* data present (read) / write absorbed */
    CACHE_HIT_RESERVED, /* sector already being fetched: merged into its MSHR entry */
    CACHE_MISS,         /* MSHR entry allocated (reads) or write forwarded: see fields. A read
                           MISS with fetch_mask 0 merged into a fetch already outstanding
                           (allocate-on-fill/streaming caches: GPGPU-Sim counts it as a miss) */
    CACHE_RES_FAIL,     /* no MSHR entry, merge slot, miss-queue slot or free line: retry */
} cache_status;

typedef enum { CACHE_FAIL_NONE, CACHE_FAIL_LINE, CACHE_FAIL_MSHR, CACHE_FAIL_MERGE,
               CACHE_FAIL_MISSQ, CACHE_NFAIL } cache_fail;

typedef struct cache_result {
    int status;          /* cache_status */
    int fail;            /* cache_fail when CACHE_RES_FAIL */
    uint8_t fetch_mask;  /* sectors of the line to read from below (0: nothing to fetch).
                            A normal (line) cache fetches every sector of the line
                            (0xf for 128 B lines, 0x3 for 64 B). */
    uint8_t send_write;  /* 1: forward this write below (write-through, write-evict, no-alloc,
                            lwb_gwt on global data, read-only caches never see writes) */
    uint8_t wb_mask;     /* dirty sectors of an evicted line to write back (0: none) */
    uint64_t wb_addr;    /* line address of that eviction */
    uint32_t hint;       /* with a fetch: pass it to cache_fill with the data (0: none) */
} cache_result;

typedef struct cache cache;

/* cfg strings (name, repl) must outlive the cache. Streaming caches get GPGPU-Sim's MSHR
 * sizes (sets x assoc x 4 entries, x4 again when sectored; 64 merged), which cache_config
 * then reports. */
cache *cache_new(const cache_cfg *cfg);
void cache_free(cache *c);
const cache_cfg *cache_config(const cache *c);
/* Per-kernel L1 reconfiguration (adaptive carve-out, streaming on_miss/on_fill switch):
 * new associativity and allocation policy; everything is invalidated, statistics kept.
 * No MSHR entry may be outstanding. Call between kernels only: the next access allocates
 * the tag arrays in the new shape (a new cache allocates them at its first access, too). */
void cache_reshape(cache *c, uint32_t assoc, int alloc);

/* Optional: the address the set index is computed from (GPGPU-Sim's L2 indexes by the
 * partition address, channel and sub-partition bits squeezed out). Tags always keep the
 * full line address. NULL (the default): the address itself. */
void cache_set_index_addr(cache *c, uint64_t (*fn)(const void *ctx, uint64_t addr),
                          const void *ctx);
uint32_t cache_set_of(const cache *c, uint64_t addr);

/* Optional miss-queue model (GPGPU-Sim m_miss_queue): `room` is how many more requests the
 * owner's outgoing queue takes now (miss_queue minus its occupancy). cache_access then fails
 * with CACHE_FAIL_MISSQ where GPGPU-Sim would (a read miss needs 2, a write-through 1, ...),
 * and every fetch, write and writeback it asks for uses one. Default: unlimited. */
#define CACHE_MISSQ_UNLIMITED UINT32_MAX
void cache_set_missq_room(cache *c, uint32_t room);

/* Line address of a byte address; sector index (0..3) within its line. */
uint64_t cache_line_addr(const cache *c, uint64_t addr);
static inline unsigned cache_sector_of(uint64_t addr) { return (unsigned)(addr >> 5) & 3u; }

/* One request r (a single sector: r->addr; r->op read/write/atomic; r->space used by
 * lwb_gwt: local data is written back, a global write hit evicts the sector and is sent on,
 * GPGPU-Sim's wr_hit_global_we_local_wb). `now` orders LRU.
 * Reads that miss keep r in the MSHR until cache_fill. Writes never wait in the MSHR: their
 * status only classifies them (statistics); what to do is in send_write/fetch_mask/wb_*.
 * Atomics are treated as reads by the cache (the L2 owner performs them); like GPGPU-Sim
 * they leave the sector dirty. Requests carry no byte mask, so every write counts as a
 * whole sector (lazy fetch leaves it readable; fetch-on-write always fetches). */
void cache_access(cache *c, const mem_req *r, uint64_t now, cache_result *out);

/* Read-only probe without side effects or stats: 1 if the sector is present and valid. */
int cache_probe(const cache *c, uint64_t addr);

/* Whether a fill of line `line_addr` may evict another line (and so write one back): the
 * line is not in the cache. An allocate-on-miss cache reserved it at the miss, so its fills
 * never evict. `hint` as for cache_fill. */
int cache_fill_may_evict(const cache *c, uint64_t line_addr, uint32_t hint);

/* Data for `mask` sectors of line `line_addr` arrived. The sectors become valid (allocating
 * the line first for on_fill/streaming caches, which may evict: the writeback, if any, is
 * returned in *wb_addr and *wb_mask). Every request waiting on those sectors is appended to
 * out[0..max) oldest first; returns how many (at most mshr_merge per entry, so a caller
 * that passes max >= mshr_merge * 4 never loses one; more waiters than max: panic). A line
 * cache's entry completes when all its fetched sectors have arrived (one call with the
 * whole mask, or one per sector). Sectors without an MSHR entry are ignored. */
/* `hint` is the cache_result hint of the access whose fetch brought the data (0: none). It
 * names the MSHR entry and the line, so the fill need not look them up; it is checked, never
 * trusted, so a wrong or stale one changes nothing but the time. */
size_t cache_fill(cache *c, uint64_t line_addr, uint8_t mask, uint32_t hint, uint64_t now,
                  mem_req *out, size_t max, uint64_t *wb_addr, uint8_t *wb_mask);
/* No effect on the cache: the sector at addr will soon be filled with this hint, so what the
 * fill reads first is fetched into the host cache meanwhile. */
void cache_prefetch_fill(const cache *c, uint64_t addr, uint32_t hint);
/* The second stage, some time after cache_prefetch_fill and before the fill: the line the
 * hinted entry names (read from the entry, which the first stage fetched). */
void cache_prefetch_fill_line(const cache *c, uint32_t hint);
/* No effect on the cache: an access to addr comes soon, so where its line lookup starts (the
 * tag index slot, where lines are indexed) is fetched into the host cache meanwhile. */
void cache_prefetch_access(const cache *c, uint64_t addr);

/* Marks `mask` sectors of a line valid without any request (memcpy L2 prefill). */
void cache_prefill(cache *c, uint64_t line_addr, uint8_t mask, uint64_t now);
/* A run of prefills (one memcpy's share): between begin and end only cache_prefill may be
 * called. The cache may hold back what a run of prefills into one set only churns through its
 * victim way (a copy larger than the cache), and settles it at the end: the state and the
 * statistics after end are those of the same prefills made one by one. */
void cache_prefill_begin(cache *c);
void cache_prefill_end(cache *c);
/* Prefills a run never wrote because the next replaced them on paper (tests). */
uint64_t cache_prefill_deferred(const cache *c);
/* Whether the tag arrays exist yet: the first call that needs them makes them (tests). */
int cache_has_tags(const cache *c);

/* Skipping the middle of a large copy (outside a run). While cache_prefill_churns(c, now),
 * every set is full and a prefill stamped `now` that misses takes the same victim way (one
 * that already holds a line stamped `now`), so a stretch of such prefills, as long as each
 * set gets a later one of its own, changes nothing but the eviction count: one per prefill,
 * which cache_prefill_skip(c, n) adds for n of them. The caller makes sure none of them
 * would hit (cache_holds_lines says whether any line in [lo, hi) is present). */
int cache_prefill_churns(cache *c, uint64_t now);
int cache_holds_lines(const cache *c, uint64_t lo_line_addr, uint64_t hi_line_addr);
void cache_prefill_skip(cache *c, uint64_t n);

/* Invalidates everything (kernel-boundary L1 flush): dirty data is dropped, so a write-back
 * cache uses cache_flush_next first. Sectors with a fill outstanding stay reserved (their
 * MSHR entries are kept and filled normally). */
void cache_invalidate(cache *c);
/* Write-back flush: returns 1 and one dirty line (addr, mask) per call until none is left;
 * the line stays valid, now clean. Write-through caches report nothing (already written). */
int cache_flush_next(cache *c, uint64_t *line_addr, uint8_t *mask);

/* Outstanding MSHR entries (for the hang diagnosis and tests). */
uint32_t cache_mshr_used(const cache *c);
/* Requests waiting in the MSHRs, all entries together: no fill hands back more, so a
 * cache_fill buffer of this many (or of mshr_merge * 4) always suffices. */
uint32_t cache_waiting(const cache *c);
/* Visits every request waiting in the MSHRs (hang diagnosis). */
void cache_mshr_foreach(const cache *c, void (*fn)(void *ctx, const mem_req *r), void *ctx);

/* Statistics, per instance (Accel-Sim names where they exist; counts are per sector request):
 * accesses, hits, hit_reserved, misses, res_fails, read_*, write_*, res_fail_reason DIST,
 * evictions, writebacks (list and meanings: cache_stats.def). The set is shared by all
 * caches (cache_stats_set); its layout is a compile-time constant, so it is safe to call
 * from any thread and needs no init or free. */
const stat_set *cache_stats_set(void);
stat_block *cache_stats(cache *c);
/* The two slots of the set that one reservation fail of cause `fail` (not CACHE_FAIL_NONE)
 * counts in: what a refused access repeated on an unchanged cache adds, for an owner that
 * works that out instead of making the access (sm park). */
void cache_fail_slots(int fail, uint32_t slot[2]);

/* Replacement policies: a registry of const ops tables, chosen by name (knob <prefix>_repl).
 * victim() picks a way among candidate ways of one set (bitmask `cand`, at least one bit). */
typedef struct cache_repl_ops {
    const char *name, *help;
    /* per-way state is two uint64 stamps the cache keeps: last use and allocation time */
    unsigned (*victim)(const uint64_t *last_use, const uint64_t *alloc_time, uint32_t assoc,
                       const uint64_t *cand_bits);
} cache_repl_ops;
const cache_repl_ops *cache_repl_find(const char *name);
extern const cache_repl_ops *const cache_repl_registry[];

#endif
