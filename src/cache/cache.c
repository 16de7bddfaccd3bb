/* cache: tag array, MSHRs and the access/fill paths, following GPGPU-Sim's gpu-cache.cc
 * (tag_array::probe/access/fill, baseline_cache::send_read_request, data_cache's rd/wr
 * hit/miss handlers) per 32-byte sector request. Differences are noted where they are.
 *
 * Line state is kept as three sector masks per line: valid, dirty (subset of valid: GPGPU-Sim
 * MODIFIED) and reserved (fill outstanding: RESERVED); a line with a valid or reserved sector
 * is in use, and only lines in use can be found by tag (a scan of the set's ways in use, or
 * an index for wide sets: find_line). A line cache uses the whole-line mask for every
 * request, so the same code serves both kinds.
 *
 * Victim choice touches no other way of the set: per-set counts of pinned lines say whether
 * there is a victim, a bit per way finds the last free one, and under LRU/FIFO the set's
 * lines in use are kept in victim order (stamp, then way). A refused request costs a lookup
 * at most, and its retry with nothing changed in between none (see refusal).
 *
 * MSHR entries are keyed by sector (sectored caches) or line (GPGPU-Sim m_atom_sz) and found
 * through an open-addressing table; waiting requests form a list per entry, the first beside
 * the entry and the rest in a pool, with a sequence number, so a fill can hand them back
 * oldest first. */
#include "cache_int.h"

#include "../trace/trace.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if BASE_AVX2
#include <immintrin.h>
#endif

#define NIL UINT32_MAX
/* Bound on the waiters held: mshr_entries x mshr_merge, but at most this many (streaming L1s
 * have tens of thousands of entries x 64 merges; reaching it is an MSHR/merge fail). */
#define POOL_CAP (1u << 15)
#define STREAM_MERGE 64u /* GPGPU-Sim MAX_WARP_PER_SM for streaming caches */

/* ---- statistics: the layout is a struct, so slots are compile-time constants ---------- */

static const char *const cache_fail_bins[CACHE_NFAIL - 1] = {"line", "mshr", "merge", "missq"};

struct cs_layout {
#define STAT_COUNTER(n, h) uint64_t n;
#define STAT_DIST(n, b, nb, h) uint64_t n[nb];
#define STAT_RATIO(n, a, b, h)
#include "cache_stats.def"
#undef STAT_COUNTER
#undef STAT_DIST
#undef STAT_RATIO
};
#define CS(n) ((int)(offsetof(struct cs_layout, n) / sizeof(uint64_t)))

static const stat_desc cs_descs[] = {
#define STAT_DEF_FILE "cache/cache_stats.def"
#include "../stat/stat_descs.inc"
};

/* Never written; not const only because stat_set's fields are plain pointers. */
static int cs_slot[] = {
#define STAT_COUNTER(n, h) CS(n),
#define STAT_DIST(n, b, nb, h) CS(n),
#define STAT_RATIO(n, a, b, h) -1,
#include "cache_stats.def"
#undef STAT_COUNTER
#undef STAT_DIST
#undef STAT_RATIO
};
static int cs_num[] = {
#define STAT_COUNTER(n, h) -1,
#define STAT_DIST(n, b, nb, h) -1,
#define STAT_RATIO(n, a, b, h) CS(a),
#include "cache_stats.def"
#undef STAT_COUNTER
#undef STAT_DIST
#undef STAT_RATIO
};
static int cs_den[] = {
#define STAT_COUNTER(n, h) -1,
#define STAT_DIST(n, b, nb, h) -1,
#define STAT_RATIO(n, a, b, h) CS(b),
#include "cache_stats.def"
#undef STAT_COUNTER
#undef STAT_DIST
#undef STAT_RATIO
};

static const stat_set cs_set = {
    .name = "cache",
    .descs = cs_descs,
    .ndescs = (int)(sizeof cs_descs / sizeof cs_descs[0]),
    .slot = cs_slot,
    .num_slot = cs_num,
    .den_slot = cs_den,
    .nslots = (int)(sizeof(struct cs_layout) / sizeof(uint64_t)),
};

const stat_set *cache_stats_set(void) { return &cs_set; }

void cache_fail_slots(int fail, uint32_t slot[2])
{
    slot[0] = CS(res_fails);
    slot[1] = (uint32_t)(CS(res_fail_reason) + fail - 1); /* as count() does */
}

/* ---- the cache ----------------------------------------------------------------------- */

/* An open-addressing index from 64-bit keys to small values v, whose keys live in an
 * array the owner keeps (keys[v * stride], so a key may sit in its value's record); linear
 * probing, deletion by backward shift (no
 * tombstones), so lookups stay short and the order is deterministic. Values are stored plus
 * one, 0 marking a free slot, so a new table is calloc'd. Each slot also keeps the top 32
 * bits of its key's hash: a probe compares those first and reads keys[] (a host-cache miss
 * in a large cache) only on a match, and a deletion finds a slot's home from them alone. */
/* Sets of at most this many ways are scanned to find a line (find_line). */
#define CACHE_SCAN_ASSOC 32u
/* Lines a wide-set cache's index is first sized for (it doubles as lines come into use). */
#define TIX_FIRST 64u

typedef struct hidx_slot {
    uint32_t hash;  /* top 32 bits of the key's hash (the home is its top bits) */
    uint32_t val;   /* value + 1, or 0 */
} hidx_slot;

typedef struct hidx {
    hidx_slot *s;
    uint32_t mask;
    unsigned shift; /* 32 - log2(slots), below 32: hash >> shift is the home */
    uint32_t n;     /* values held; the table doubles past half full */
} hidx;

/* An entry is one aligned half of a host cache line with its key, which a fill, a merge and
 * the index all read. */
typedef struct mshr_ent {
    uint64_t key;        /* sector number (sectored) or line number */
    uint32_t head, tail; /* waiting requests in the pool, oldest first */
    uint32_t line;       /* the line the miss reserved, or NIL: a hint for the fill */
    uint32_t nreq;       /* requests counted against mshr_merge (write-allocate fetches too) */
    uint8_t pending;     /* sectors still to arrive (a line cache may be filled by sectors) */
    uint8_t used;
} mshr_ent;
#define ENT_STRIDE (sizeof(mshr_ent) / sizeof(uint64_t)) /* keys' stride in the index */
_Static_assert(sizeof(mshr_ent) == 32, "two MSHR entries per host cache line");

/* A waiting request in the pool: what a fill hands back, its order and its list link on one
 * host cache line. */
typedef struct waiter {
    _Alignas(64) mem_req r;
    uint64_t seq;
    uint32_t next;
} waiter;

/* Per line, together: one access reads or changes most of it. A line in use (F_USED: some
 * sector valid or reserved) has its tag indexed and, under LRU or FIFO, sits in its set's
 * age order by its stamp. The order and the stamp share the state's host line: a victim's
 * eviction reads all three, and kept apart they were three random lines (gather). */
typedef struct line_st {
    /* per sector (a line cache: [0]), its MSHR entry + 1, or 0 (line_mshr caches only) */
    _Alignas(32) uint16_t ment[4];
    uint8_t valid, dirty, resv; /* sector masks: dirty within valid; resv: fill outstanding */
    uint8_t fill_dirty;         /* reserved sectors that become dirty when filled */
    uint8_t flags;              /* F_*: what victim selection reads */
    uint32_t prev, next;        /* neighbours in the set's age order (stamp policies) */
    uint64_t stamp;             /* LRU: last use; FIFO: allocation (stamp policies) */
} line_st;
_Static_assert(sizeof(line_st) == 32, "two lines' state per host cache line");

/* Per set: counts that say at once whether a victim exists (reservation fails are retried
 * every cycle, so they must not scan), and for LRU/FIFO the lines in use by age. */
typedef struct set_st {
    uint32_t head, tail;  /* oldest, newest line in use by (stamp, way); NIL: none */
    uint32_t used;        /* lines in use */
    uint32_t resv, dirty; /* lines in use reserved; dirty and not reserved */
} set_st;

/* The last refused request and why. Refusing changes nothing, so until the state changes
 * the owner's retry of the same request (the contract: it stays at the head of its queue) is
 * refused for the same reason, and is answered without a lookup. */
typedef struct refusal {
    uint64_t ver, addr;   /* ver 0: none */
    uint32_t room;        /* missq_room it was refused under */
    uint8_t op, space, fail;
} refusal;

/* Laid out by use: what an access, a fill and their prefetches read of every cache comes
 * first, on host lines of its own (the struct starts on one), because a gather-like run
 * touches its SMs' and slices' caches at random (78 on the default GPU), and each line of
 * this struct it reads is then a miss of its own. */
struct cache {
    /* -- host line 0: the arrays, the version, the sizes a hint is checked against */
    uint64_t ver;            /* changes with every change of state (not with refusals) */
    line_st *ls;
    uint64_t *tag;           /* tag array, line i = set * assoc + way: line number (in use) */
    uint64_t *busy;          /* per set, wps words: a bit per way in use */
    set_st *set;
    mshr_ent *ent;
    waiter *ent_w;           /* per entry, its first waiter (W_FIRST) */
    uint32_t nlines, ent_next;
    /* -- host line 1 */
    cache_cfg cfg;           /* effective (streaming MSHR sizes) */
    /* -- host line 2 */
    stat_block st;
    refusal refused;
    uint32_t missq_room;
    unsigned line_log2, set_log2;
    int assoc_log2;          /* -1: ways not a power of two */
    int linear_mask;         /* set = line number & (sets - 1) (linear index, no hook) */
    uint32_t wps;
    /* -- the rest */
    int stamped;             /* LRU or FIFO: line_st.stamp and the age order; else victim() */
    int lru;                 /* the stamp is the last use (else the allocation) */
    int alloc;               /* CACHE_AL_ON_MISS or CACHE_AL_ON_FILL (streaming) */
    int sectored;
    /* Allocate on miss: each MSHR entry belongs to the line its miss reserved, which stays
     * put until the entry closes (reserved lines are never evicted; invalidation keeps
     * them), so the line names its entries (line_st.ment) and the index mix is not kept.
     * It spares a random index slot on open, on every lookup and on close. */
    int line_mshr;
    int scan_sets;           /* lines are found by a scan of their set, not by tix */
    int simd_scan;           /* ... four ways to a vector (scan_set_avx2) */
    uint8_t full;            /* sector mask of a whole line */
    hidx mix;                /* key -> entry */
    uint8_t ipoly[5][16];    /* the IPOLY index by table (cache_ipoly_table) */
    uint64_t (*index_fn)(const void *ctx, uint64_t addr);
    const void *index_ctx;
    const cache_repl_ops *repl;
    uint32_t dirty_lines;
    uint32_t flush_pos;
    /* a prefill run (cache_prefill_begin .. cache_prefill_end): per set, the line a prefill
     * put in its victim way only on paper (see defer), and the sets that have one */
    struct pf_pend *pend;
    uint32_t *pend_sets, npend;
    int pf_run;
    uint64_t deferred;       /* prefills never written (for tests) */
    uint64_t *last_use, *alloc_time; /* for victim(); NULL under a stamp policy */
    line_st *ls_block;       /* the allocation ls sits in, on a host-line boundary */
    hidx tix;                /* line number -> line (wide sets only, see find_line) */
    uint64_t *cand;          /* victim candidates of one set (assoc bits) */
    /* MSHRs */
    uint32_t *ent_free, nent_free; /* freed entries (a stack), and all free entries */
    uint32_t nent_stack, ent_alloc;
    waiter *w;               /* the pool: every later waiter */
    uint64_t seq;
    uint32_t wfree, wbump, wcap;    /* freed pool slots (a list), never-used ones, bound */
    uint32_t walloc, wused;  /* pool slots allocated; waiters held, first ones included */
};

enum { F_RESV = 1, F_DIRTY = 2, F_USED = 4 };

typedef struct pf_pend {
    uint64_t ln;      /* the line the set's victim way holds on paper */
    uint64_t now;     /* the run's stamp */
    uint64_t skipped; /* lines that held it on paper before, each evicted by the next */
    uint8_t mask, on, listed; /* listed: in pend_sets (once per run) */
} pf_pend;

/* Probe results and access outcomes (GPGPU-Sim cache_request_status). */
enum { R_HIT, R_HIT_RES, R_MISS, R_SECTOR_MISS, R_FAIL };

/* Sized for n values; a table that may hold many more (streaming MSHRs: up to a million)
 * starts small and grows, so memory follows what is in flight, not the worst case. */
static void hidx_init(hidx *h, uint32_t n)
{
    unsigned bits = 1;
    while ((1ull << bits) < 2ull * n)
        bits++;
    h->mask = (uint32_t)((1ull << bits) - 1);
    h->shift = 32 - bits;
    h->n = 0;
    h->s = base_calloc((size_t)h->mask + 1, sizeof *h->s);
}

static uint32_t hidx_hash(uint64_t key) { return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32); }

static uint32_t hidx_home(const hidx *h, uint32_t hash) { return hash >> h->shift; }

/* The slot holding key, or the free slot where it would go. */
static uint32_t hidx_find(const hidx *h, const uint64_t *keys, size_t stride, uint64_t key,
                          uint32_t hash)
{
    uint32_t i = hidx_home(h, hash), v;
    while ((v = h->s[i].val) && (h->s[i].hash != hash || keys[(v - 1) * stride] != key))
        i = (i + 1) & h->mask;
    return i;
}

static uint32_t hidx_get(const hidx *h, const uint64_t *keys, size_t stride, uint64_t key)
{
    return h->s[hidx_find(h, keys, stride, key, hidx_hash(key))].val - 1; /* free slot: NIL */
}

static void hidx_grow(hidx *h)
{
    hidx old = *h;
    hidx_init(h, old.mask + 1);
    for (uint32_t i = 0; i <= old.mask; i++) {
        if (!old.s[i].val)
            continue;
        uint32_t j = hidx_home(h, old.s[i].hash);
        while (h->s[j].val) /* every key in the old table is distinct */
            j = (j + 1) & h->mask;
        h->s[j] = old.s[i];
    }
    h->n = old.n;
    free(old.s);
}

static void hidx_put(hidx *h, const uint64_t *keys, size_t stride, uint64_t key, uint32_t v)
{
    if (2 * (h->n + 1) > h->mask + 1)
        hidx_grow(h);
    uint32_t hash = hidx_hash(key), i = hidx_find(h, keys, stride, key, hash);
    h->n += !h->s[i].val;
    h->s[i] = (hidx_slot){hash, v + 1};
}

static void hidx_del(hidx *h, const uint64_t *keys, size_t stride, uint64_t key)
{
    uint32_t i = hidx_find(h, keys, stride, key, hidx_hash(key)), j = i;
    if (!h->s[i].val)
        return;
    for (;;) {
        j = (j + 1) & h->mask;
        if (!h->s[j].val)
            break;
        uint32_t home = hidx_home(h, h->s[j].hash);
        int stays = j > i ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            h->s[i] = h->s[j];
            i = j;
        }
    }
    h->s[i] = (hidx_slot){0, 0};
    h->n--;
}

/* Only what says "empty" is zeroed (line state, way bits, index values): tags and victim()
 * stamps are read only for lines in use. calloc clears even fresh memory on the huge-page
 * heap (glibc counts its padded top as used), so the index starts small and grows with the
 * lines in use (TIX_FIRST): the short runs of an H100 or A100 preset made 128 KB indexes for
 * slices that saw a few lines (altcpu: 5-9% of their CPU). */
static void tags_alloc(cache *c)
{
    uint32_t sets = c->cfg.sets, assoc = c->cfg.assoc;
    c->nlines = sets * assoc;
    size_t n = c->nlines;
    c->tag = base_malloc(n * sizeof *c->tag);
    /* two records a host line: aligned by hand, calloc has no aligned form */
    c->ls_block = base_calloc(n + 2, sizeof *c->ls);
    c->ls = (line_st *)(((uintptr_t)c->ls_block + BASE_LINE - 1) & ~(uintptr_t)(BASE_LINE - 1));
    c->set = base_malloc(sets * sizeof *c->set);
    for (uint32_t s = 0; s < sets; s++)
        c->set[s] = (set_st){NIL, NIL, 0, 0, 0};
    c->wps = (assoc + 63) / 64;
    c->busy = base_calloc((size_t)sets * c->wps, sizeof *c->busy);
    c->scan_sets = assoc <= CACHE_SCAN_ASSOC;
    c->simd_scan = c->cfg.simd && c->scan_sets && assoc % 4 == 0 && base_host_avx2();
    c->tix.s = NULL;
    if (!c->scan_sets)
        hidx_init(&c->tix, c->nlines < TIX_FIRST ? c->nlines : TIX_FIRST);
    c->cand = base_calloc(c->wps, sizeof *c->cand);
    c->assoc_log2 = (assoc & (assoc - 1)) ? -1 : (int)cache_log2(assoc);
    c->dirty_lines = 0;
    c->flush_pos = 0;
    /* LRU and FIFO read one stamp each, kept with the line; victim() gets both arrays.
     * Only lines in use are linked, and each is linked before it is read. */
    int k = cache_repl_stamp(c->repl);
    c->stamped = k == 0 || k == 1;
    c->lru = k == 0;
    c->last_use = c->stamped ? NULL : base_malloc(n * sizeof *c->last_use);
    c->alloc_time = c->stamped ? NULL : base_malloc(n * sizeof *c->alloc_time);
}

static void tags_free(cache *c)
{
    free(c->tag);
    free(c->last_use);
    free(c->alloc_time);
    free(c->ls_block);
    free(c->set);
    free(c->busy);
    free(c->tix.s);
    c->tix.s = NULL;
    free(c->cand);
    c->ls = c->ls_block = NULL;
    c->stamped = 0;
    c->nlines = 0;
}

/* The tag arrays are allocated by the first call that needs them (ls NULL until then): an
 * L1D is reshaped for its first kernel before any access, and an SM that never gets a CTA
 * never uses it, so neither pays for arrays it would throw away. Until then the cache is
 * empty: nlines 0 makes invalidate and flush no-ops, and probes miss. */
static void tags_need(cache *c)
{
    if (!c->ls)
        tags_alloc(c);
}

/* MSHR entries and waiter-pool slots are allocated as they are first needed (doubling up to
 * the configured bounds), so the possibly huge streaming bounds cost no memory; freed ones
 * are reused first, most recently freed first, as a preallocated free stack would. */
static void mshr_alloc(cache *c)
{
    uint32_t n = c->cfg.mshr_entries;
    c->nent_free = n;
    c->nent_stack = 0;
    c->ent_next = 0;
    c->ent_alloc = 0;
    hidx_init(&c->mix, n < 64 ? n : 64);
    uint64_t pool = (uint64_t)n * c->cfg.mshr_merge;
    c->wcap = pool < POOL_CAP ? (uint32_t)pool : POOL_CAP;
    c->wfree = NIL;
    c->wbump = 0;
    c->walloc = 0;
    c->wused = 0;
}

static uint32_t grown(uint32_t have, uint32_t bound)
{
    uint64_t n = have ? 2ull * have : 64;
    return n < bound ? (uint32_t)n : bound;
}

static uint32_t mshr_take(cache *c)
{
    if (c->nent_stack)
        return c->ent_free[--c->nent_stack];
    if (c->ent_next == c->ent_alloc) {
        uint32_t n = grown(c->ent_alloc, c->cfg.mshr_entries);
        c->ent = base_realloc_lines(c->ent, (size_t)c->ent_alloc * sizeof *c->ent,
                                    (size_t)n * sizeof *c->ent);
        c->ent_w = base_realloc_lines(c->ent_w, (size_t)c->ent_alloc * sizeof *c->ent_w,
                                      (size_t)n * sizeof *c->ent_w);
        c->ent_free = base_realloc(c->ent_free, (size_t)n * sizeof *c->ent_free);
        c->ent_alloc = n;
    }
    return c->ent_next++;
}

/* A waiter's index: a pool slot, or W_FIRST | e for entry e's first waiter (entries are
 * fewer than 2^31; NIL is tested before). Beside its entry, the first waiter is reached by
 * the fill's prefetch from the entry hint; a pool slot is only known once the entry is read,
 * and waited for there: gather spent about 8% of its time on that load. */
#define W_FIRST 0x80000000u

static waiter *wat(const cache *c, uint32_t w)
{
    return w & W_FIRST ? &c->ent_w[w & ~W_FIRST] : &c->w[w];
}

static uint32_t pool_take(cache *c)
{
    uint32_t w = c->wfree;
    if (w != NIL) {
        c->wfree = c->w[w].next;
        return w;
    }
    if (c->wbump == c->walloc) {
        uint32_t n = grown(c->walloc, c->wcap);
        c->w = base_realloc_lines(c->w, (size_t)c->walloc * sizeof *c->w, (size_t)n * sizeof *c->w);
        c->walloc = n;
    }
    return c->wbump++;
}

/* Whether lines may name their MSHR entries (line_mshr): only an allocate-on-miss cache's
 * entries each have a line, and a name must fit line_st.ment. */
static int line_mshr_ok(const cache *c)
{
    return c->alloc == CACHE_AL_ON_MISS && c->cfg.mshr_entries < UINT16_MAX;
}

cache *cache_new(const cache_cfg *cfg)
{
    base_err e = {0};
    if (cache_cfg_check(cfg, &e))
        base_panic("cache_new: %s", e.msg);
    cache *c = base_calloc_lines(sizeof *c); /* its host lines as laid out */
    c->cfg = *cfg;
    c->repl = cache_repl_find(cfg->repl);
    c->sectored = cfg->kind == CACHE_SECTOR;
    c->line_log2 = cache_log2(cfg->line);
    c->set_log2 = cache_log2(cfg->sets);
    c->full = (uint8_t)((1u << (cfg->line >= 32 ? cfg->line / 32 : 1)) - 1);
    c->alloc = cfg->alloc == CACHE_AL_STREAMING ? CACHE_AL_ON_FILL : cfg->alloc;
    if (cfg->alloc == CACHE_AL_STREAMING) {
        /* GPGPU-Sim: the tag doubles as an MSHR entry, so MSHRs do not limit misses */
        uint64_t n = (uint64_t)cfg->sets * cfg->assoc * 4 * (c->sectored ? 4 : 1);
        c->cfg.mshr_entries = n < (1u << 20) ? (uint32_t)n : (1u << 20);
        c->cfg.mshr_merge = STREAM_MERGE;
    }
    c->missq_room = CACHE_MISSQ_UNLIMITED;
    c->ver = 1;
    c->linear_mask = (cfg->index == CACHE_IDX_LINEAR || cfg->index == CACHE_IDX_CUSTOM) &&
                     !(cfg->sets & (cfg->sets - 1));
    if (cfg->index == CACHE_IDX_IPOLY)
        cache_ipoly_table(cfg->sets, c->ipoly);
    mshr_alloc(c);
    c->line_mshr = line_mshr_ok(c);
    stat_block_init(&c->st, &cs_set);
    return c;
}

void cache_free(cache *c)
{
    if (!c)
        return;
    tags_free(c);
    free(c->ent);
    free(c->ent_w);
    free(c->ent_free);
    free(c->mix.s);
    free(c->w);
    free(c->pend);
    free(c->pend_sets);
    stat_block_free(&c->st);
    free(c);
}

const cache_cfg *cache_config(const cache *c) { return &c->cfg; }
stat_block *cache_stats(cache *c) { return &c->st; }
uint32_t cache_mshr_used(const cache *c) { return c->cfg.mshr_entries - c->nent_free; }
uint32_t cache_waiting(const cache *c) { return c->wused; }
void cache_set_missq_room(cache *c, uint32_t room) { c->missq_room = room; }

void cache_reshape(cache *c, uint32_t assoc, int alloc)
{
    c->ver++;
    if (cache_mshr_used(c))
        base_panic("cache %s: reshaped with %u MSHR entries outstanding", c->cfg.name,
                   cache_mshr_used(c));
    cache_cfg t = c->cfg;
    t.assoc = assoc;
    t.alloc = alloc;
    base_err e = {0};
    if (cache_cfg_check(&t, &e))
        base_panic("cache_reshape: %s", e.msg);
    tags_free(c); /* the next access allocates them in the new shape */
    c->cfg = t; /* MSHR sizes stay as built (GPGPU-Sim sizes streaming MSHRs once) */
    c->alloc = alloc == CACHE_AL_STREAMING ? CACHE_AL_ON_FILL : alloc;
    c->line_mshr = line_mshr_ok(c); /* no entry is outstanding, in either form */
}

void cache_set_index_addr(cache *c, uint64_t (*fn)(const void *ctx, uint64_t addr),
                          const void *ctx)
{
    c->ver++;
    c->index_fn = fn;
    c->index_ctx = ctx;
    c->linear_mask = 0;
}

uint64_t cache_line_addr(const cache *c, uint64_t addr)
{
    return addr & ~(((uint64_t)1 << c->line_log2) - 1);
}

uint32_t cache_set_of(const cache *c, uint64_t addr)
{
    if (c->linear_mask) /* the same set as ln % sets, without a division */
        return (uint32_t)(addr >> c->line_log2) & (c->cfg.sets - 1);
    uint64_t a = c->index_fn ? c->index_fn(c->index_ctx, addr) : addr;
    if (c->cfg.index != CACHE_IDX_IPOLY)
        return cache_index_hash(&c->cfg, c->line_log2, c->set_log2, a);
    uint64_t ln = a >> c->line_log2, hi = ln >> c->set_log2;
    const uint8_t(*t)[16] = c->ipoly;
    return ((uint32_t)ln & (c->cfg.sets - 1)) ^ t[0][hi & 15] ^ t[1][(hi >> 4) & 15] ^
           t[2][(hi >> 8) & 15] ^ t[3][(hi >> 12) & 15] ^ t[4][(hi >> 16) & 15];
}

static uint8_t req_mask(const cache *c, uint64_t addr)
{
    return c->sectored ? (uint8_t)(1u << cache_sector_of(addr)) : c->full;
}

/* ---- tag array ----------------------------------------------------------------------- */

/* What probe finds out about one request, and where the line went once it is placed. */
typedef struct look {
    uint64_t ln;  /* line number */
    uint32_t i;   /* the line (hit, reserved, sector miss; a miss once placed), else NIL */
    uint32_t set; /* a miss that allocates: its set, whose victim is chosen when placed */
    int p;        /* R_* */
    uint8_t m;    /* sectors asked for */
} look;

/* Line ln's set is scanned when it has few ways (an L2 slice's 16): its tags are one or two
 * host cache lines, next to each other, and most finds need the set anyway (a miss takes a
 * victim there), where an index costs a line of its own, read at random, plus its upkeep at
 * every install and eviction. A wide set (an L1D's 256 ways) has one index over the whole
 * tag array instead. Either way: the line in use that holds ln, or NIL. */
static uint32_t scan_set(const cache *c, uint32_t set, uint64_t ln)
{
    const uint64_t *tag = &c->tag[(size_t)set * c->cfg.assoc];
    for (uint64_t bits = c->busy[set]; bits; bits &= bits - 1) { /* one word: assoc <= 64 */
        uint32_t w = (uint32_t)__builtin_ctzll(bits);
        if (tag[w] == ln)
            return set * c->cfg.assoc + w;
    }
    return NIL;
}

#if BASE_AVX2
/* scan_set four ways at a time: every way's tag is compared, and the ways in use (busy) keep
 * their matches; the lowest is the way the plain scan stops at. The tags of ways not in use
 * are stale or never written, and masked out. */
__attribute__((target("avx2"))) static uint32_t scan_set_avx2(const cache *c, uint32_t set,
                                                             uint64_t ln)
{
    uint32_t assoc = c->cfg.assoc;
    const uint64_t *tag = &c->tag[(size_t)set * assoc];
    const __m256i key = _mm256_set1_epi64x((long long)ln);
    uint64_t hit = 0;
    for (uint32_t w = 0; w < assoc; w += 4) {
        __m256i eq = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)&tag[w]), key);
        hit |= (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(eq)) << w;
    }
    hit &= c->busy[set];
    return hit ? set * assoc + (uint32_t)__builtin_ctzll(hit) : NIL;
}
#endif

/* find_line that also leaves the set in *set when it worked it out (a scanned cache; *set
 * is untouched otherwise), for a caller that needs the set next. */
static uint32_t find_line_set(const cache *c, uint64_t ln, uint32_t *set)
{
    if (!c->scan_sets)
        return hidx_get(&c->tix, c->tag, 1, ln);
    *set = cache_set_of(c, ln << c->line_log2);
#if BASE_AVX2
    if (c->simd_scan)
        return scan_set_avx2(c, *set, ln);
#endif
    return scan_set(c, *set, ln);
}

static uint32_t find_line(const cache *c, uint64_t ln)
{
    uint32_t set;
    return find_line_set(c, ln, &set);
}

static uint32_t set_of_line(const cache *c, uint32_t i)
{
    return c->assoc_log2 >= 0 ? i >> c->assoc_log2 : i / c->cfg.assoc;
}

/* Victim order of two lines of one set: the smaller stamp, then the lower way (line order
 * is way order within a set), as the policies' '<' scans from way 0 choose. */
static int older(const cache *c, uint32_t a, uint32_t b)
{
    uint64_t sa = c->ls[a].stamp, sb = c->ls[b].stamp;
    return sa < sb || (sa == sb && a < b);
}

/* Stamps mostly grow (new and touched lines go last); equal stamps of one cycle and the
 * lower ways a prefill fills in one go may go first. */
static void age_link(cache *c, set_st *s, uint32_t i)
{
    uint32_t at = s->tail; /* i goes after at; NIL: first */
    if (at != NIL && older(c, i, s->head))
        at = NIL;
    else if (at != NIL)
        while (older(c, i, at))
            at = c->ls[at].prev;
    uint32_t nx = at == NIL ? s->head : c->ls[at].next;
    c->ls[i].prev = at;
    c->ls[i].next = nx;
    *(at == NIL ? &s->head : &c->ls[at].next) = i;
    *(nx == NIL ? &s->tail : &c->ls[nx].prev) = i;
}

static void age_unlink(cache *c, set_st *s, uint32_t i)
{
    uint32_t pv = c->ls[i].prev, nx = c->ls[i].next;
    *(pv == NIL ? &s->head : &c->ls[pv].next) = nx;
    *(nx == NIL ? &s->tail : &c->ls[nx].prev) = pv;
    /* nx is now the oldest line: the set's next victim. Its eviction will unlink it, writing
     * its neighbour's line state, and drop its tag from the index: host cache misses by then
     * unless fetched now, while nx's own state is at hand. That pays in a wide set (an
     * L1D's), whose misses come in bursts (gather 1.5% faster, session 68); a scanned set's
     * next eviction is usually far off. */
    if (pv == NIL && nx != NIL && !c->scan_sets) {
        uint32_t n2 = c->ls[nx].next;
        if (n2 != NIL)
            __builtin_prefetch(&c->ls[n2]);
        __builtin_prefetch(&c->tag[nx]);
    }
}

/* Every last-use update of a line in use goes through here, to keep LRU's age order. */
static void touch(cache *c, uint32_t i, uint64_t now)
{
    if (!c->stamped) {
        c->last_use[i] = now;
        return;
    }
    if (!c->lru)
        return; /* FIFO: the last use is not kept */
    uint64_t old = c->ls[i].stamp;
    if (old == now)
        return;
    c->ls[i].stamp = now;
    set_st *s = &c->set[set_of_line(c, i)];
    if (now > old && s->tail == i)
        return;
    age_unlink(c, s, i);
    age_link(c, s, i);
}

static uint32_t *pin_count(set_st *s, uint8_t f)
{
    return (f & F_RESV) ? &s->resv : (f & F_DIRTY) ? &s->dirty : NULL;
}

/* Line i, in use and now empty, leaves the index, its set's counts and the age order. */
static void line_drop(cache *c, set_st *s, uint32_t i)
{
    uint32_t w = i - (uint32_t)(s - c->set) * c->cfg.assoc;
    if (!c->scan_sets)
        hidx_del(&c->tix, c->tag, 1, c->tag[i]);
    c->ls[i].fill_dirty = 0;
    c->busy[(size_t)(s - c->set) * c->wps + w / 64] &= ~(1ull << (w % 64));
    s->used--;
    if (c->stamped)
        age_unlink(c, s, i);
}

/* Every state change goes through here, so the dirty-line count, the per-set counts and the
 * index hold. */
static void line_set(cache *c, uint32_t i, uint8_t valid, uint8_t dirty, uint8_t resv)
{
    line_st *l = &c->ls[i];
    if (l->dirty && !dirty)
        c->dirty_lines--;
    else if (!l->dirty && dirty)
        c->dirty_lines++;
    l->valid = valid;
    l->dirty = dirty;
    l->resv = resv;
    uint8_t old = l->flags, f = (uint8_t)((resv ? F_RESV : 0) | (dirty ? F_DIRTY : 0) |
                                          (valid | resv ? F_USED : 0));
    if (f == old)
        return;
    l->flags = f;
    set_st *s = &c->set[set_of_line(c, i)];
    uint32_t *n = pin_count(s, old);
    if (n)
        (*n)--;
    if ((n = pin_count(s, f)))
        (*n)++;
    if ((old & F_USED) && !(f & F_USED))
        line_drop(c, s, i);
}

/* Flags that keep a line from being evicted now. */
static uint8_t pinned(const cache *c)
{
    int dirty_ok = (uint64_t)c->dirty_lines * 100 >= (uint64_t)c->cfg.write_ratio * c->nlines;
    return dirty_ok ? F_RESV : F_RESV | F_DIRTY;
}

/* Whether pick_victim would find a line, without looking at the ways. */
static int evictable(const cache *c, uint32_t set)
{
    const set_st *s = &c->set[set];
    uint32_t pins = s->resv + ((pinned(c) & F_DIRTY) ? s->dirty : 0);
    return pins < c->cfg.assoc;
}

/* The highest way not in use (the set has one). */
static uint32_t last_free_way(const cache *c, uint32_t set)
{
    const uint64_t *b = c->busy + (size_t)set * c->wps;
    uint32_t assoc = c->cfg.assoc;
    for (uint32_t k = c->wps; k-- > 0;) {
        uint64_t free_w = ~b[k];
        if (k == c->wps - 1 && assoc % 64)
            free_w &= (1ull << (assoc % 64)) - 1;
        if (free_w)
            return set * assoc + k * 64 + 63 - (uint32_t)__builtin_clzll(free_w);
    }
    return NIL;
}

/* A full set under a policy without stamps: its victim() among the unpinned ways. */
static uint32_t pick_by_policy(cache *c, uint32_t set, uint8_t pin)
{
    uint32_t assoc = c->cfg.assoc, base = set * assoc;
    memset(c->cand, 0, (size_t)c->wps * sizeof *c->cand);
    for (uint32_t w = 0; w < assoc; w++)
        if (!(c->ls[base + w].flags & pin))
            c->cand[w / 64] |= 1ull << (w % 64);
    return base + c->repl->victim(c->last_use + base, c->alloc_time + base, assoc, c->cand);
}

/* GPGPU-Sim tag_array::probe's choice: lines with a fill outstanding are never evicted;
 * modified lines only once they are write_ratio percent of all lines; then the LAST invalid
 * way, else the replacement policy among the valid candidates (LRU/FIFO: the oldest
 * unpinned line of the age order). NIL: nothing evictable. */
static uint32_t pick_victim(cache *c, uint32_t set)
{
    const set_st *s = &c->set[set];
    if (s->used < c->cfg.assoc)
        return last_free_way(c, set);
    if (!evictable(c, set))
        return NIL;
    uint8_t pin = pinned(c);
    if (!c->stamped)
        return pick_by_policy(c, set, pin);
    uint32_t i = s->head;
    while (i != NIL && (c->ls[i].flags & pin))
        i = c->ls[i].next;
    return i;
}

static int missq_room(const cache *c, uint32_t n)
{
    return c->missq_room == CACHE_MISSQ_UNLIMITED || c->missq_room >= n;
}

static void missq_use(cache *c)
{
    if (c->missq_room != CACHE_MISSQ_UNLIMITED && c->missq_room)
        c->missq_room--;
}

/* Removes line i. Its dirty sectors are written back unless the cache is write-through
 * (GPGPU-Sim: wb && policy != WRITE_THROUGH); wb_addr NULL drops them (prefill). */
static void evict(cache *c, uint32_t i, uint64_t *wb_addr, uint8_t *wb_mask)
{
    if (!(c->ls[i].flags & F_USED))
        return;
    c->st.v[CS(evictions)]++;
    if (wb_addr && c->ls[i].dirty && c->cfg.write != CACHE_WR_WT) {
        *wb_addr = c->tag[i] << c->line_log2;
        *wb_mask = c->ls[i].dirty;
        c->st.v[CS(writebacks)]++;
        missq_use(c);
    }
    line_set(c, i, 0, 0, 0);
}

/* Line i (empty) takes line ln; the caller's line_set gives it its sectors at once. */
static void install(cache *c, uint32_t i, uint64_t ln, uint64_t now)
{
    uint32_t set = set_of_line(c, i), w = i - set * c->cfg.assoc;
    set_st *s = &c->set[set];
    c->tag[i] = ln;
    if (!c->scan_sets)
        hidx_put(&c->tix, c->tag, 1, ln, i);
    if (!c->stamped) {
        c->alloc_time[i] = now;
        c->last_use[i] = now;
    }
    /* the victim held no entry: it was not reserved */
    c->ls[i] = (line_st){.flags = F_USED, .stamp = now};
    c->busy[(size_t)set * c->wps + w / 64] |= 1ull << (w % 64);
    s->used++;
    if (c->stamped)
        age_link(c, s, i);
}

/* An allocating miss takes its set's victim now (nothing changed the set since probe). */
static void place(cache *c, look *l, uint64_t now, uint64_t *wb_addr, uint8_t *wb_mask)
{
    l->i = pick_victim(c, l->set);
    evict(c, l->i, wb_addr, wb_mask);
    install(c, l->i, l->ln, now);
}

/* R_HIT, R_HIT_RES or R_SECTOR_MISS with l->i the line; R_MISS (l->set its set when
 * need_victim); R_FAIL when no line may be evicted. The victim itself is chosen only once
 * the miss is accepted: a refused request is retried, and must cost little. */
static int probe(cache *c, uint64_t addr, look *l, int need_victim)
{
    l->ln = addr >> c->line_log2;
    l->m = req_mask(c, addr);
    uint32_t set = NIL;
    l->i = find_line_set(c, l->ln, &set);
    l->set = NIL;
    if (l->i != NIL) {
        const line_st *x = &c->ls[l->i];
        l->p = (x->resv & l->m) ? R_HIT_RES : (x->valid & l->m) ? R_HIT : R_SECTOR_MISS;
        return l->p;
    }
    l->p = R_MISS;
    if (need_victim) {
        l->set = set != NIL ? set : cache_set_of(c, addr);
        if (!evictable(c, l->set))
            l->p = R_FAIL;
    }
    return l->p;
}

/* GPGPU-Sim tag_array::access once a request is accepted: LRU update, and with allocate on
 * miss the line (evicting) or sector is reserved. */
static void tag_access(cache *c, look *l, uint64_t now, cache_result *out)
{
    if (l->p == R_HIT || l->p == R_HIT_RES) {
        touch(c, l->i, now);
    } else if (c->alloc == CACHE_AL_ON_MISS && l->p == R_MISS) {
        place(c, l, now, &out->wb_addr, &out->wb_mask);
        line_set(c, l->i, 0, 0, l->m);
    } else if (c->alloc == CACHE_AL_ON_MISS && l->p == R_SECTOR_MISS) {
        const line_st *x = &c->ls[l->i];
        touch(c, l->i, now);
        line_set(c, l->i, x->valid, x->dirty, x->resv | l->m);
    }
}

/* ---- MSHR table ---------------------------------------------------------------------- */

static uint64_t mshr_key(const cache *c, uint64_t addr)
{
    return c->sectored ? addr >> 5 : addr >> c->line_log2;
}

/* The entries' keys as the index reads them (none before the first entry). */
static const uint64_t *ent_keys(const cache *c) { return c->ent ? &c->ent->key : NULL; }

/* Where key's entry is named in its line's state (line_mshr). */
static uint16_t *ment_of(const cache *c, uint32_t line, uint64_t key)
{
    return &c->ls[line].ment[c->sectored ? key & 3u : 0];
}

/* The entry of key, or NIL. `line` is the line in use holding key's line, NIL when there
 * is none: a line_mshr cache reads the entry there, and without a line there is none. */
static uint32_t mshr_find(const cache *c, uint64_t key, uint32_t line)
{
    if (!c->line_mshr)
        return hidx_get(&c->mix, ent_keys(c), ENT_STRIDE, key);
    return line == NIL ? NIL : (uint32_t)*ment_of(c, line, key) - 1;
}

static uint32_t mshr_open(cache *c, uint64_t key, uint8_t pending, uint32_t line)
{
    uint32_t e = mshr_take(c);
    c->nent_free--;
    c->ent[e] = (mshr_ent){key, NIL, NIL, line, 0, pending, 1};
    if (c->line_mshr)
        *ment_of(c, line, key) = (uint16_t)(e + 1);
    else
        hidx_put(&c->mix, ent_keys(c), ENT_STRIDE, key, e);
    return e;
}

/* r NULL: a write-allocate fetch, counted against the merge limit but handed back to no one.
 * An entry's first waiter sits beside it (W_FIRST), later ones in the pool. */
static void mshr_add(cache *c, uint32_t e, const mem_req *r)
{
    mshr_ent *x = &c->ent[e];
    x->nreq++;
    if (!r)
        return;
    uint32_t w = x->head == NIL ? W_FIRST | e : pool_take(c);
    waiter *p = wat(c, w);
    p->r = *r;
    p->seq = c->seq++;
    p->next = NIL;
    if (x->tail == NIL)
        x->head = w;
    else
        wat(c, x->tail)->next = w;
    x->tail = w;
    c->wused++;
}

static void mshr_close(cache *c, uint32_t e)
{
    if (c->line_mshr)
        *ment_of(c, c->ent[e].line, c->ent[e].key) = 0;
    else
        hidx_del(&c->mix, ent_keys(c), ENT_STRIDE, c->ent[e].key);
    c->ent[e].used = 0;
    c->ent_free[c->nent_stack++] = e;
    c->nent_free++;
}

/* CACHE_FAIL_NONE if a request on key could be merged or given an entry now. */
static int mshr_can(const cache *c, uint64_t key, const look *l)
{
    uint32_t e = mshr_find(c, key, l->i);
    if (e != NIL)
        return c->ent[e].nreq < c->cfg.mshr_merge ? CACHE_FAIL_NONE : CACHE_FAIL_MERGE;
    return c->nent_free ? CACHE_FAIL_NONE : CACHE_FAIL_MSHR;
}

/* GPGPU-Sim send_read_request: merge into the outstanding entry (MSHR_HIT) or open one and
 * fetch. Nothing changes unless it returns CACHE_FAIL_NONE. */
static int mshr_request(cache *c, const mem_req *r, uint64_t key, look *l, uint64_t now,
                        cache_result *out)
{
    uint32_t e = mshr_find(c, key, l->i);
    int pool_ok = !r || c->wused < c->wcap;
    if (e != NIL) {
        if (c->ent[e].nreq >= c->cfg.mshr_merge || !pool_ok)
            return CACHE_FAIL_MERGE;
        tag_access(c, l, now, out);
        mshr_add(c, e, r);
        c->st.v[CS(mshr_hits)]++;
        return CACHE_FAIL_NONE;
    }
    if (!c->nent_free || !pool_ok)
        return CACHE_FAIL_MSHR;
    if (!missq_room(c, 1))
        return CACHE_FAIL_MISSQ;
    tag_access(c, l, now, out);
    e = mshr_open(c, key, l->m, l->i);
    mshr_add(c, e, r);
    out->fetch_mask = l->m;
    out->hint = e + 1;
    missq_use(c);
    c->st.v[CS(fetches)]++;
    return CACHE_FAIL_NONE;
}

/* ---- access -------------------------------------------------------------------------- */

static int fail(cache_result *out, int why)
{
    out->fail = why;
    return R_FAIL;
}

static void send_write(cache *c, cache_result *out)
{
    out->send_write = 1;
    missq_use(c);
    c->st.v[CS(writes_sent)]++;
}

/* GPGPU-Sim select_stats_status. */
static int outcome(int probe_res, int access_res)
{
    if (probe_res == R_HIT_RES && access_res != R_FAIL)
        return R_HIT_RES;
    if (probe_res == R_SECTOR_MISS && access_res == R_MISS)
        return R_SECTOR_MISS;
    return access_res;
}

/* Atomics are reads here; like GPGPU-Sim they leave the sector modified. */
static int do_read(cache *c, const mem_req *r, uint64_t now, cache_result *out)
{
    int atom_dirty = r->op == MEM_ATOM && c->cfg.write != CACHE_WR_RO;
    look l;
    int p = probe(c, r->addr, &l, c->alloc == CACHE_AL_ON_MISS);
    if (p == R_HIT) {
        const line_st *x = &c->ls[l.i];
        touch(c, l.i, now);
        if (atom_dirty)
            line_set(c, l.i, x->valid, x->dirty | l.m, x->resv);
        return R_HIT;
    }
    if (p == R_FAIL)
        return fail(out, CACHE_FAIL_LINE);
    /* a data cache keeps room for the fetch and a writeback (miss_queue_full(1)) */
    if (!missq_room(c, c->cfg.write == CACHE_WR_RO ? 1 : 2))
        return fail(out, CACHE_FAIL_MISSQ);
    int f = mshr_request(c, r, mshr_key(c, r->addr), &l, now, out);
    if (f)
        return fail(out, f);
    if (atom_dirty && l.i != NIL && c->tag[l.i] == l.ln)
        c->ls[l.i].fill_dirty |= l.m;
    return outcome(p, R_MISS);
}

/* GPGPU-Sim wr_hit_wb / wr_hit_wt / wr_hit_we (write-through and write-evict need a slot). */
static int write_hit(cache *c, int pol, uint32_t i, uint8_t m, uint64_t now, cache_result *out)
{
    if (pol != CACHE_WR_WB && !missq_room(c, 1))
        return fail(out, CACHE_FAIL_MISSQ);
    const line_st *x = &c->ls[i];
    if (pol == CACHE_WR_WE) {
        send_write(c, out);
        line_set(c, i, x->valid & (uint8_t)~m, x->dirty & (uint8_t)~m, x->resv);
        return R_HIT;
    }
    touch(c, i, now);
    line_set(c, i, x->valid, x->dirty | m, x->resv);
    if (pol == CACHE_WR_WT)
        send_write(c, out);
    return R_HIT;
}

/* GPGPU-Sim wr_miss_wa_lazy_fetch_on_read: the sector becomes valid and modified at once
 * (requests carry no byte mask, so every write counts as a whole sector: readable). A write
 * on a sector being fetched marks it modified-on-fill; the sector stays reserved (GPGPU-Sim
 * marks it MODIFIED at once, which lets the line be evicted under its own fill). */
static int lazy_write(cache *c, uint64_t key, look *l, uint64_t now, cache_result *out)
{
    if (c->cfg.write == CACHE_WR_WT) {
        if (!missq_room(c, 2))
            return fail(out, CACHE_FAIL_MISSQ);
        int f = mshr_can(c, key, l);
        if (f)
            return fail(out, f);
        send_write(c, out);
    }
    if (l->p == R_HIT_RES) {
        touch(c, l->i, now);
        c->ls[l->i].fill_dirty |= l->m;
    } else if (l->p == R_SECTOR_MISS) {
        const line_st *x = &c->ls[l->i];
        touch(c, l->i, now);
        line_set(c, l->i, x->valid | l->m, x->dirty | l->m, x->resv);
    } else {
        place(c, l, now, &out->wb_addr, &out->wb_mask);
        line_set(c, l->i, l->m, l->m, 0);
    }
    return R_MISS;
}

/* Write misses by write-allocate policy (GPGPU-Sim wr_miss_*). */
static int write_miss(cache *c, const mem_req *r, look *l, uint64_t now, cache_result *out)
{
    uint64_t key = mshr_key(c, r->addr);
    int f;
    switch (c->cfg.walloc) {
    case CACHE_WA_NONE:
        if (!missq_room(c, 1))
            return fail(out, CACHE_FAIL_MISSQ);
        send_write(c, out);
        return R_MISS;
    case CACHE_WA_WRITE: /* write through and fetch the sector (room for write+fetch+wb) */
        if (!missq_room(c, 3))
            return fail(out, CACHE_FAIL_MISSQ);
        if ((f = mshr_can(c, key, l)))
            return fail(out, f);
        send_write(c, out);
        mshr_request(c, NULL, key, l, now, out);
        return R_MISS;
    case CACHE_WA_FETCH: /* fetch, and the sector is modified once filled */
        if (!missq_room(c, 2))
            return fail(out, CACHE_FAIL_MISSQ);
        if ((f = mshr_request(c, NULL, key, l, now, out)))
            return fail(out, f);
        if (l->i != NIL && c->tag[l->i] == l->ln)
            c->ls[l->i].fill_dirty |= l->m;
        return R_MISS;
    default:
        return lazy_write(c, key, l, now, out);
    }
}

static int do_write(cache *c, const mem_req *r, uint64_t now, cache_result *out)
{
    if (c->cfg.write == CACHE_WR_RO)
        base_panic("cache %s: write to a read-only cache (address 0x%llx)", c->cfg.name,
                   (unsigned long long)r->addr);
    /* only write-allocating caches place a line on a write miss */
    int need_victim = c->alloc == CACHE_AL_ON_MISS && c->cfg.walloc != CACHE_WA_NONE;
    look l;
    int p = probe(c, r->addr, &l, need_victim);
    int pol = c->cfg.write;
    if (pol == CACHE_WR_LWB_GWT) /* GPGPU-Sim wr_hit_global_we_local_wb */
        pol = r->space == TRACE_SPACE_LOCAL ? CACHE_WR_WB : CACHE_WR_WE;
    if (p == R_HIT)
        return write_hit(c, pol, l.i, l.m, now, out);
    if (p == R_FAIL && c->cfg.walloc != CACHE_WA_NONE)
        return fail(out, CACHE_FAIL_LINE);
    return outcome(p, write_miss(c, r, &l, now, out));
}

static void count(cache *c, int o, int wr, cache_result *out)
{
    uint64_t *v = c->st.v;
    if (o == R_FAIL) {
        v[CS(res_fails)]++;
        v[CS(res_fail_reason) + out->fail - 1]++;
        out->status = CACHE_RES_FAIL;
        return;
    }
    v[CS(accesses)]++;
    v[wr ? CS(write_accesses) : CS(read_accesses)]++;
    if (o == R_HIT) {
        v[CS(hits)]++;
        out->status = CACHE_HIT;
    } else if (o == R_HIT_RES) {
        v[CS(hit_reserved)]++;
        out->status = CACHE_HIT_RESERVED;
    } else {
        v[CS(misses)]++;
        v[wr ? CS(write_misses) : CS(read_misses)]++;
        if (o == R_SECTOR_MISS)
            v[CS(sector_misses)]++;
        out->status = CACHE_MISS;
    }
}

void cache_access(cache *c, const mem_req *r, uint64_t now, cache_result *out)
{
    memset(out, 0, sizeof *out);
    tags_need(c);
    int wr = r->op == MEM_WR;
    refusal *x = &c->refused;
    if (x->ver == c->ver && x->addr == r->addr && x->op == r->op && x->space == r->space &&
        x->room == c->missq_room) {
        out->fail = x->fail;
        count(c, R_FAIL, wr, out);
        return;
    }
    int o = wr ? do_write(c, r, now, out) : do_read(c, r, now, out);
    if (o == R_FAIL)
        *x = (refusal){c->ver, r->addr, c->missq_room, r->op, r->space, (uint8_t)out->fail};
    else
        c->ver++;
    count(c, o, wr, out);
}

/* ---- fill, prefill, invalidate, flush ------------------------------------------------ */

/* Line ln, found from a hint (a line index) when it holds ln: a line number is in one line
 * at most, so that is the line find_line would return. */
static uint32_t line_at(const cache *c, uint64_t ln, uint32_t hint)
{
    if (hint < c->nlines && (c->ls[hint].flags & F_USED) && c->tag[hint] == ln)
        return hint;
    return find_line(c, ln);
}

/* The filled sectors become valid (dirty where a write or atomic waited on them). A line
 * not present (allocate on fill) takes a victim; with none evictable the data passes by
 * uncached, as GPGPU-Sim's tag_array::fill does. */
static void fill_line(cache *c, uint64_t ln, uint8_t got, uint32_t hint, uint64_t now,
                      uint64_t *wb_addr, uint8_t *wb_mask)
{
    uint32_t i = line_at(c, ln, hint);
    if (i == NIL) {
        i = pick_victim(c, cache_set_of(c, ln << c->line_log2));
        if (i == NIL)
            return;
        evict(c, i, wb_addr, wb_mask);
        install(c, i, ln, now);
    } else if (c->alloc != CACHE_AL_ON_MISS) {
        touch(c, i, now);
    }
    line_st *x = &c->ls[i];
    uint8_t fd = x->fill_dirty & got;
    x->fill_dirty &= (uint8_t)~got;
    line_set(c, i, x->valid | got, x->dirty | fd, x->resv & (uint8_t)~got);
}

/* Hands back the waiters of entries done[0..n) merged oldest first, and frees the entries. */
static size_t drain(cache *c, const uint32_t *done, unsigned n, mem_req *out, size_t max)
{
    uint32_t head[4];
    size_t k = 0;
    for (unsigned j = 0; j < n; j++)
        head[j] = c->ent[done[j]].head;
    for (;;) {
        int best = -1;
        for (unsigned j = 0; j < n; j++)
            if (head[j] != NIL && (best < 0 || wat(c, head[j])->seq < wat(c, head[best])->seq))
                best = (int)j;
        if (best < 0)
            break;
        uint32_t w = head[best];
        if (k >= max)
            base_panic("cache %s: cache_fill got room for %zu waiting requests, more are "
                       "waiting", c->cfg.name, max);
        const waiter *p = wat(c, w);
        out[k++] = p->r;
        head[best] = p->next;
        c->wused--;
        if (!(w & W_FIRST)) {
            c->w[w].next = c->wfree;
            c->wfree = w;
        }
    }
    for (unsigned j = 0; j < n; j++)
        mshr_close(c, done[j]);
    return k;
}

/* The fill reads the hinted entry and its first waiter first. The MSHR index slot is left
 * out, here and for an access: gather ran no faster with it. (It used to sit in a void
 * function of its own, and gcc drops calls to a function whose only effect is a prefetch.) */
void cache_prefetch_fill(const cache *c, uint64_t addr, uint32_t hint)
{
    if (hint && hint - 1 < c->ent_next) {
        __builtin_prefetch(&c->ent[hint - 1]);
        __builtin_prefetch(&c->ent_w[hint - 1]);
    } else if (c->ls && !c->scan_sets) {
        __builtin_prefetch(&c->tix.s[hidx_home(&c->tix, hidx_hash(addr >> c->line_log2))]);
    }
}

void cache_prefetch_fill_line(const cache *c, uint32_t hint)
{
    if (!hint || hint - 1 >= c->ent_next)
        return;
    uint32_t line = c->ent[hint - 1].line;
    if (line < c->nlines) {
        __builtin_prefetch(&c->ls[line]);
        __builtin_prefetch(&c->tag[line]);
    }
}

/* A scanned set would need its index worked out twice; its few tags are usually at hand. */
void cache_prefetch_access(const cache *c, uint64_t addr)
{
    if (c->ls && !c->scan_sets) /* no tag arrays yet: nothing to fetch */
        __builtin_prefetch(&c->tix.s[hidx_home(&c->tix, hidx_hash(addr >> c->line_log2))]);
}

/* The entry of key: the hinted one (entry + 1) when it is in use for key, as mshr_find
 * would answer (one entry per key), else mshr_find's answer. */
static uint32_t mshr_at(const cache *c, uint64_t ln, uint64_t key, uint32_t hint)
{
    uint32_t e = hint - 1;
    if (hint && e < c->ent_next && c->ent[e].used && c->ent[e].key == key)
        return e;
    return mshr_find(c, key, c->line_mshr ? find_line(c, ln) : NIL);
}

int cache_fill_may_evict(const cache *c, uint64_t line_addr, uint32_t hint)
{
    return line_at(c, line_addr >> c->line_log2, hint) == NIL;
}

size_t cache_fill(cache *c, uint64_t line_addr, uint8_t mask, uint32_t hint, uint64_t now,
                  mem_req *out, size_t max, uint64_t *wb_addr, uint8_t *wb_mask)
{
    c->ver++;
    tags_need(c);
    uint64_t ln = line_addr >> c->line_log2;
    uint32_t done[4];
    unsigned n = 0;
    uint8_t got = 0;
    *wb_addr = 0;
    *wb_mask = 0;
    if (c->sectored) {
        for (unsigned s = 0; s < 4; s++) {
            uint32_t e = (mask >> s) & 1u ? mshr_at(c, ln, (ln << 2) + s, hint) : NIL;
            if (e != NIL) {
                done[n++] = e;
                got |= (uint8_t)(1u << s);
            }
        }
    } else {
        uint32_t e = mshr_at(c, ln, ln, hint);
        if (e == NIL)
            return 0;
        c->ent[e].pending &= (uint8_t)~mask;
        if (c->ent[e].pending)
            return 0; /* a line fetched as sectors completes with its last sector */
        done[n++] = e;
        got = c->full;
    }
    if (!n)
        return 0;
    /* the line's state is fetched while the waiters are handed back (neither reads the
     * other's data), rather than after */
    uint32_t line = c->ent[done[0]].line;
    if (line < c->nlines) {
        __builtin_prefetch(&c->ls[line]);
        __builtin_prefetch(&c->tag[line]);
    }
    size_t k = drain(c, done, n, out, max);
    fill_line(c, ln, got, line, now, wb_addr, wb_mask);
    c->st.v[CS(fills)] += (uint64_t)base_popcount32(got);
    return k;
}

/* GPGPU-Sim force_tag_access: an on-fill style allocation whose victim is dropped. Line
 * ln (index i, NIL: not present) of `set` (NIL: not worked out yet). */
static void prefill_now(cache *c, uint64_t line_addr, uint64_t ln, uint8_t m, uint32_t i,
                        uint32_t set, uint64_t now)
{
    if (i == NIL) {
        i = pick_victim(c, set != NIL ? set : cache_set_of(c, line_addr));
        if (i == NIL)
            return;
        evict(c, i, NULL, NULL);
        install(c, i, ln, now);
        line_set(c, i, m, 0, 0);
        return;
    }
    const line_st *x = &c->ls[i];
    touch(c, i, now);
    line_set(c, i, x->valid | (m & (uint8_t)~x->resv), x->dirty, x->resv);
}

/* Whether a full set's victim carries this prefill's stamp. That victim is the lowest way
 * among the unpinned lines with that stamp (none is older), and a line put there with the
 * same stamp is the victim again. With no dirty line in the cache (prefill makes none) only
 * reserved lines are pinned, and they stay so (no fill comes during a run); the set is alone:
 * other sets' changes cannot alter its choices. */
static int churning(cache *c, uint32_t set, uint64_t now)
{
    const set_st *s = &c->set[set];
    if (!c->stamped || c->dirty_lines || s->used != c->cfg.assoc)
        return 0;
    uint32_t i = pick_victim(c, set); /* only reads, under a stamp policy */
    return i != NIL && c->ls[i].stamp == now;
}

/* The line `set` holds on paper, written for real: it evicts the head as the first line of
 * its run would have; the lines of the run after that each evicted the one before. */
static void settle(cache *c, uint32_t set)
{
    pf_pend *p = &c->pend[set];
    p->on = 0;
    prefill_now(c, p->ln << c->line_log2, p->ln, p->mask, NIL, set, p->now);
    c->st.v[CS(evictions)] += p->skipped;
}

/* In a churning set, a run of missing lines only replaces one another in the victim way: the
 * last is kept on paper and written when the run ends, each one before it counted as an
 * eviction. A hit ends the run first (touching a line may reorder the set), as does another
 * stamp. *setp is the line's set when known, else NIL. Returns 1 when the prefill was taken
 * so; else *i is the line's index now, and *setp its set. */
static int defer(cache *c, uint64_t line_addr, uint64_t ln, uint8_t m, uint32_t *i,
                 uint32_t *setp, uint64_t now)
{
    uint32_t set = *setp = *setp != NIL ? *setp : cache_set_of(c, line_addr);
    pf_pend *p = &c->pend[set];
    if (p->on) {
        if (*i == NIL && now == p->now) {
            if (p->ln != ln) {
                *p = (pf_pend){ln, now, p->skipped + 1, 0, 1, 1};
                c->deferred++;
            }
            p->mask |= m;
            return 1;
        }
        settle(c, set); /* a hit (touching may reorder the set), the victim's old line, or
                         * another stamp: first the run so far for real */
        *i = find_line_set(c, ln, &set);
    }
    if (*i != NIL || !churning(c, set, now))
        return 0;
    if (!p->listed)
        c->pend_sets[c->npend++] = set;
    *p = (pf_pend){ln, now, 0, m, 1, 1};
    return 1;
}

void cache_prefill(cache *c, uint64_t line_addr, uint8_t mask, uint64_t now)
{
    c->ver++;
    tags_need(c);
    uint8_t m = c->sectored ? (uint8_t)(mask & c->full) : c->full;
    if (!m)
        return;
    uint64_t ln = line_addr >> c->line_log2;
    uint32_t set = NIL, i = find_line_set(c, ln, &set);
    if (c->pf_run && defer(c, line_addr, ln, m, &i, &set, now))
        return;
    prefill_now(c, line_addr, ln, m, i, set, now);
}

void cache_prefill_begin(cache *c)
{
    tags_need(c);
    if (!c->stamped)
        return; /* without stamps no set churns (churning): nothing is ever held back */
    if (!c->pend) {
        c->pend = base_calloc(c->cfg.sets, sizeof *c->pend);
        c->pend_sets = base_malloc(c->cfg.sets * sizeof *c->pend_sets);
    }
    c->pf_run = 1;
}

uint64_t cache_prefill_deferred(const cache *c) { return c->deferred; }

int cache_has_tags(const cache *c) { return c->ls != NULL; }

int cache_prefill_churns(cache *c, uint64_t now)
{
    if (!c->ls || c->pf_run)
        return 0;
    for (uint32_t set = 0; set < c->cfg.sets; set++)
        if (!churning(c, set, now))
            return 0;
    return 1;
}

int cache_holds_lines(const cache *c, uint64_t lo_line_addr, uint64_t hi_line_addr)
{
    uint64_t lo = lo_line_addr >> c->line_log2, hi = hi_line_addr >> c->line_log2;
    for (uint32_t i = 0; c->ls && i < c->nlines; i++)
        if ((c->ls[i].flags & F_USED) && c->tag[i] >= lo && c->tag[i] < hi)
            return 1;
    return 0;
}

void cache_prefill_skip(cache *c, uint64_t n)
{
    c->ver++;
    c->st.v[CS(evictions)] += n;
    c->deferred += n;
}

void cache_prefill_end(cache *c)
{
    for (uint32_t k = 0; k < c->npend; k++) {
        pf_pend *p = &c->pend[c->pend_sets[k]];
        if (p->on)
            settle(c, c->pend_sets[k]);
        p->listed = 0;
    }
    c->npend = 0;
    c->pf_run = 0;
}

void cache_invalidate(cache *c)
{
    c->ver++;
    for (uint32_t i = 0; i < c->nlines; i++) {
        if (!(c->ls[i].flags & F_USED))
            continue;
        c->ls[i].fill_dirty = 0;
        line_set(c, i, 0, 0, c->ls[i].resv);
    }
    c->flush_pos = 0;
}

int cache_flush_next(cache *c, uint64_t *line_addr, uint8_t *mask)
{
    c->ver++;
    for (uint32_t k = 0; k < c->nlines; k++) {
        uint32_t i = (c->flush_pos + k) % c->nlines;
        uint8_t d = c->ls[i].dirty;
        if (!d)
            continue;
        line_set(c, i, c->ls[i].valid, 0, c->ls[i].resv);
        if (c->cfg.write == CACHE_WR_WT)
            continue; /* written through already */
        *line_addr = c->tag[i] << c->line_log2;
        *mask = d;
        c->flush_pos = (i + 1) % c->nlines;
        return 1;
    }
    return 0;
}

int cache_probe(const cache *c, uint64_t addr)
{
    if (!c->ls)
        return 0;
    uint32_t i = find_line(c, addr >> c->line_log2);
    uint8_t m = req_mask(c, addr);
    return i != NIL && (c->ls[i].valid & m) == m;
}

void cache_mshr_foreach(const cache *c, void (*fn)(void *ctx, const mem_req *r), void *ctx)
{
    for (uint32_t e = 0; e < c->ent_next; e++)
        if (c->ent[e].used)
            for (uint32_t w = c->ent[e].head; w != NIL; w = wat(c, w)->next)
                fn(ctx, &wat(c, w)->r);
}
