/* cache: tag array, MSHRs and the access/fill paths, following GPGPU-Sim's gpu-cache.cc
 * (tag_array::probe/access/fill, baseline_cache::send_read_request, data_cache's rd/wr
 * hit/miss handlers) per 32-byte sector request. Differences are noted where they are.
 *
 * Line state is kept as three sector masks per line: valid, dirty (subset of valid: GPGPU-Sim
 * MODIFIED) and reserved (fill outstanding: RESERVED). A line whose valid|reserved mask is
 * empty has tag EMPTY, so a lookup is one compare per way. A line cache uses the whole-line
 * mask for every request, so the same code serves both kinds.
 *
 * MSHR entries are keyed by sector (sectored caches) or line (GPGPU-Sim m_atom_sz) and found
 * through an open-addressing table; waiting requests live in a preallocated pool as lists
 * with a sequence number, so a fill can hand them back oldest first. */
#include "cache_int.h"

#include "../trace/trace.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
#define EMPTY UINT64_MAX
/* Waiter pool bound: mshr_entries x mshr_merge, but at most this many (streaming L1s have
 * tens of thousands of entries x 64 merges; an exhausted pool is an MSHR/merge fail). */
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

/* ---- the cache ----------------------------------------------------------------------- */

/* An open-addressing index from 64-bit keys to small values v, whose keys live in an
 * array the owner keeps (keys[v]); linear probing, deletion by backward shift (no
 * tombstones), so lookups stay short and the order is deterministic. */
typedef struct hidx {
    uint32_t *slot; /* value or NIL */
    uint32_t mask;
    unsigned shift;
    uint32_t n;     /* values held; the table doubles past half full */
} hidx;

typedef struct mshr_ent {
    uint32_t head, tail; /* waiting requests in the pool, oldest first */
    uint32_t nreq;       /* requests counted against mshr_merge (write-allocate fetches too) */
    uint8_t pending;     /* sectors still to arrive (a line cache may be filled by sectors) */
    uint8_t used;
} mshr_ent;

struct cache {
    cache_cfg cfg;           /* effective (streaming MSHR sizes) */
    const cache_repl_ops *repl;
    const uint64_t *stamp;   /* last_use or alloc_time for LRU/FIFO; NULL: repl->victim */
    int alloc;               /* CACHE_AL_ON_MISS or CACHE_AL_ON_FILL (streaming) */
    int sectored;
    uint8_t full;            /* sector mask of a whole line */
    unsigned line_log2, set_log2;
    uint32_t nlines, dirty_lines;
    uint64_t (*index_fn)(const void *ctx, uint64_t addr);
    const void *index_ctx;
    uint32_t missq_room;
    uint32_t flush_pos;
    /* tag array, line i = set * assoc + way */
    uint64_t *tag;           /* line number, EMPTY when nothing is valid or reserved */
    uint64_t *last_use, *alloc_time;
    uint8_t *valid, *dirty, *resv;
    uint8_t *fill_dirty;     /* reserved sectors that become dirty when filled */
    uint8_t *flags;          /* F_*: what victim selection reads, one byte per way */
    hidx tix;                /* line number -> line (keys: tag) */
    uint64_t *cand;          /* victim candidates of one set (assoc bits) */
    /* MSHRs */
    mshr_ent *ent;
    uint64_t *ent_key;       /* sector number (sectored) or line number of each entry */
    uint32_t *ent_free, nent_free; /* freed entries (a stack), and all free entries */
    uint32_t nent_stack, ent_next, ent_alloc;
    hidx mix;                /* key -> entry (keys: ent_key) */
    mem_req *wreq;
    uint32_t *wnext;
    uint64_t *wseq, seq;
    uint32_t wfree, wbump, wcap;    /* freed pool slots (a list), never-used ones, bound */
    uint32_t walloc;
    stat_block st;
};

enum { F_RESV = 1, F_DIRTY = 2, F_EMPTY = 4 };

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
    h->shift = 64 - bits;
    h->n = 0;
    h->slot = base_malloc(((size_t)h->mask + 1) * sizeof *h->slot);
    memset(h->slot, 0xff, ((size_t)h->mask + 1) * sizeof *h->slot);
}

static uint32_t hidx_home(const hidx *h, uint64_t key)
{
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> h->shift);
}

/* The slot holding key, or the free slot where it would go. */
static uint32_t hidx_slot(const hidx *h, const uint64_t *keys, uint64_t key)
{
    uint32_t i = hidx_home(h, key);
    while (h->slot[i] != NIL && keys[h->slot[i]] != key)
        i = (i + 1) & h->mask;
    return i;
}

static uint32_t hidx_get(const hidx *h, const uint64_t *keys, uint64_t key)
{
    return h->slot[hidx_slot(h, keys, key)];
}

static void hidx_grow(hidx *h, const uint64_t *keys)
{
    hidx old = *h;
    hidx_init(h, old.mask + 1);
    for (uint32_t i = 0; i <= old.mask; i++)
        if (old.slot[i] != NIL)
            h->slot[hidx_slot(h, keys, keys[old.slot[i]])] = old.slot[i];
    h->n = old.n;
    free(old.slot);
}

static void hidx_put(hidx *h, const uint64_t *keys, uint64_t key, uint32_t v)
{
    if (2 * (h->n + 1) > h->mask + 1)
        hidx_grow(h, keys);
    uint32_t i = hidx_slot(h, keys, key);
    h->n += h->slot[i] == NIL;
    h->slot[i] = v;
}

static void hidx_del(hidx *h, const uint64_t *keys, uint64_t key)
{
    uint32_t i = hidx_slot(h, keys, key), j = i;
    if (h->slot[i] == NIL)
        return;
    for (;;) {
        j = (j + 1) & h->mask;
        if (h->slot[j] == NIL)
            break;
        uint32_t home = hidx_home(h, keys[h->slot[j]]);
        int stays = j > i ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            h->slot[i] = h->slot[j];
            i = j;
        }
    }
    h->slot[i] = NIL;
    h->n--;
}

static void tags_alloc(cache *c)
{
    c->nlines = c->cfg.sets * c->cfg.assoc;
    size_t n = c->nlines;
    c->tag = base_malloc(n * sizeof *c->tag);
    for (size_t i = 0; i < n; i++)
        c->tag[i] = EMPTY;
    c->last_use = base_calloc(n, sizeof *c->last_use);
    c->alloc_time = base_calloc(n, sizeof *c->alloc_time);
    c->valid = base_calloc(n, 1);
    c->dirty = base_calloc(n, 1);
    c->resv = base_calloc(n, 1);
    c->fill_dirty = base_calloc(n, 1);
    c->flags = base_malloc(n);
    memset(c->flags, F_EMPTY, n);
    hidx_init(&c->tix, c->nlines);
    c->cand = base_calloc((c->cfg.assoc + 63) / 64, sizeof *c->cand);
    c->dirty_lines = 0;
    c->flush_pos = 0;
    int k = cache_repl_stamp(c->repl);
    c->stamp = k == 0 ? c->last_use : k == 1 ? c->alloc_time : NULL;
}

static void tags_free(cache *c)
{
    free(c->tag);
    free(c->last_use);
    free(c->alloc_time);
    free(c->valid);
    free(c->dirty);
    free(c->resv);
    free(c->fill_dirty);
    free(c->flags);
    free(c->tix.slot);
    free(c->cand);
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
        c->ent = base_realloc(c->ent, (size_t)n * sizeof *c->ent);
        c->ent_key = base_realloc(c->ent_key, (size_t)n * sizeof *c->ent_key);
        c->ent_free = base_realloc(c->ent_free, (size_t)n * sizeof *c->ent_free);
        c->ent_alloc = n;
    }
    return c->ent_next++;
}

static uint32_t pool_take(cache *c)
{
    uint32_t w = c->wfree;
    if (w != NIL) {
        c->wfree = c->wnext[w];
        return w;
    }
    if (c->wbump == c->walloc) {
        uint32_t n = grown(c->walloc, c->wcap);
        c->wreq = base_realloc(c->wreq, (size_t)n * sizeof *c->wreq);
        c->wnext = base_realloc(c->wnext, (size_t)n * sizeof *c->wnext);
        c->wseq = base_realloc(c->wseq, (size_t)n * sizeof *c->wseq);
        c->walloc = n;
    }
    return c->wbump++;
}

cache *cache_new(const cache_cfg *cfg)
{
    base_err e = {0};
    if (cache_cfg_check(cfg, &e))
        base_panic("cache_new: %s", e.msg);
    cache *c = base_calloc(1, sizeof *c);
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
    tags_alloc(c);
    mshr_alloc(c);
    stat_block_init(&c->st, &cs_set);
    return c;
}

void cache_free(cache *c)
{
    if (!c)
        return;
    tags_free(c);
    free(c->ent);
    free(c->ent_free);
    free(c->ent_key);
    free(c->mix.slot);
    free(c->wreq);
    free(c->wnext);
    free(c->wseq);
    stat_block_free(&c->st);
    free(c);
}

const cache_cfg *cache_config(const cache *c) { return &c->cfg; }
stat_block *cache_stats(cache *c) { return &c->st; }
uint32_t cache_mshr_used(const cache *c) { return c->cfg.mshr_entries - c->nent_free; }
void cache_set_missq_room(cache *c, uint32_t room) { c->missq_room = room; }

void cache_reshape(cache *c, uint32_t assoc, int alloc)
{
    if (cache_mshr_used(c))
        base_panic("cache %s: reshaped with %u MSHR entries outstanding", c->cfg.name,
                   cache_mshr_used(c));
    cache_cfg t = c->cfg;
    t.assoc = assoc;
    t.alloc = alloc;
    base_err e = {0};
    if (cache_cfg_check(&t, &e))
        base_panic("cache_reshape: %s", e.msg);
    tags_free(c);
    c->cfg = t; /* MSHR sizes stay as built (GPGPU-Sim sizes streaming MSHRs once) */
    c->alloc = alloc == CACHE_AL_STREAMING ? CACHE_AL_ON_FILL : alloc;
    tags_alloc(c);
}

void cache_set_index_addr(cache *c, uint64_t (*fn)(const void *ctx, uint64_t addr),
                          const void *ctx)
{
    c->index_fn = fn;
    c->index_ctx = ctx;
}

uint64_t cache_line_addr(const cache *c, uint64_t addr)
{
    return addr & ~(((uint64_t)1 << c->line_log2) - 1);
}

uint32_t cache_set_of(const cache *c, uint64_t addr)
{
    uint64_t a = c->index_fn ? c->index_fn(c->index_ctx, addr) : addr;
    return cache_index_hash(&c->cfg, c->line_log2, c->set_log2, a);
}

static uint8_t req_mask(const cache *c, uint64_t addr)
{
    return c->sectored ? (uint8_t)(1u << cache_sector_of(addr)) : c->full;
}

/* ---- tag array ----------------------------------------------------------------------- */

/* A line maps to one set, so one index over the whole tag array finds it: O(1) instead of
 * a scan of up to 256 ways. */
static uint32_t find_line(const cache *c, uint64_t ln) { return hidx_get(&c->tix, c->tag, ln); }

/* Every state change goes through here, so the dirty-line count and EMPTY tags hold. */
static void line_set(cache *c, uint32_t i, uint8_t valid, uint8_t dirty, uint8_t resv)
{
    if (c->dirty[i] && !dirty)
        c->dirty_lines--;
    else if (!c->dirty[i] && dirty)
        c->dirty_lines++;
    c->valid[i] = valid;
    c->dirty[i] = dirty;
    c->resv[i] = resv;
    c->flags[i] = (uint8_t)((resv ? F_RESV : 0) | (dirty ? F_DIRTY : 0) |
                            (valid | resv ? 0 : F_EMPTY));
    if (!(valid | resv) && c->tag[i] != EMPTY) {
        hidx_del(&c->tix, c->tag, c->tag[i]);
        c->tag[i] = EMPTY;
        c->fill_dirty[i] = 0;
    }
}

/* Flags that keep a line from being evicted now. */
static uint8_t pinned(const cache *c)
{
    int dirty_ok = (uint64_t)c->dirty_lines * 100 >= (uint64_t)c->cfg.write_ratio * c->nlines;
    return dirty_ok ? F_RESV : F_RESV | F_DIRTY;
}

/* LRU/FIFO in one pass from the highest way down: the first invalid way met is the last
 * one, and '<=' leaves the lowest way among equal stamps, as the ascending scan would. */
static uint32_t pick_by_stamp(const cache *c, uint32_t base, uint8_t pin)
{
    uint32_t best = NIL;
    uint64_t best_s = UINT64_MAX;
    for (uint32_t w = c->cfg.assoc; w-- > 0;) {
        uint32_t i = base + w;
        uint8_t f = c->flags[i];
        if (f & pin)
            continue;
        if (f & F_EMPTY)
            return i;
        if (c->stamp[i] <= best_s) {
            best_s = c->stamp[i];
            best = i;
        }
    }
    return best;
}

/* GPGPU-Sim tag_array::probe's choice: lines with a fill outstanding are never evicted;
 * modified lines only once they are write_ratio percent of all lines; then the LAST invalid
 * way, else the replacement policy among the valid candidates. NIL: nothing evictable. */
static uint32_t pick_victim(cache *c, uint32_t set)
{
    uint32_t assoc = c->cfg.assoc, base = set * assoc, invalid = NIL;
    uint8_t pin = pinned(c);
    if (c->stamp)
        return pick_by_stamp(c, base, pin);
    int any = 0;
    memset(c->cand, 0, (size_t)((assoc + 63) / 64) * sizeof *c->cand);
    for (uint32_t w = 0; w < assoc; w++) {
        uint32_t i = base + w;
        if (c->flags[i] & pin)
            continue;
        if (c->flags[i] & F_EMPTY) {
            invalid = i;
        } else {
            c->cand[w / 64] |= 1ull << (w % 64);
            any = 1;
        }
    }
    if (invalid != NIL)
        return invalid;
    if (!any)
        return NIL;
    return base + c->repl->victim(c->last_use + base, c->alloc_time + base, assoc, c->cand);
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
    if (c->tag[i] == EMPTY)
        return;
    c->st.v[CS(evictions)]++;
    if (wb_addr && c->dirty[i] && c->cfg.write != CACHE_WR_WT) {
        *wb_addr = c->tag[i] << c->line_log2;
        *wb_mask = c->dirty[i];
        c->st.v[CS(writebacks)]++;
        missq_use(c);
    }
    line_set(c, i, 0, 0, 0);
}

static void install(cache *c, uint32_t i, uint64_t ln, uint64_t now)
{
    c->tag[i] = ln;
    hidx_put(&c->tix, c->tag, ln, i);
    c->alloc_time[i] = now;
    c->last_use[i] = now;
    c->fill_dirty[i] = 0;
}

/* R_HIT, R_HIT_RES or R_SECTOR_MISS with *idx the line; R_MISS with *idx the victim (NIL
 * when !need_victim); R_FAIL when no line may be evicted. */
static int probe(cache *c, uint64_t addr, uint64_t ln, uint8_t m, int need_victim, uint32_t *idx)
{
    uint32_t i = find_line(c, ln);
    if (i != NIL) {
        *idx = i;
        return (c->resv[i] & m) ? R_HIT_RES : (c->valid[i] & m) ? R_HIT : R_SECTOR_MISS;
    }
    *idx = need_victim ? pick_victim(c, cache_set_of(c, addr)) : NIL;
    return need_victim && *idx == NIL ? R_FAIL : R_MISS;
}

/* GPGPU-Sim tag_array::access once a request is accepted: LRU update, and with allocate on
 * miss the line (evicting) or sector is reserved. */
static void tag_access(cache *c, int p, uint32_t i, uint64_t ln, uint8_t m, uint64_t now,
                       cache_result *out)
{
    if (p == R_HIT || p == R_HIT_RES) {
        c->last_use[i] = now;
    } else if (c->alloc == CACHE_AL_ON_MISS && p == R_MISS) {
        evict(c, i, &out->wb_addr, &out->wb_mask);
        install(c, i, ln, now);
        line_set(c, i, 0, 0, m);
    } else if (c->alloc == CACHE_AL_ON_MISS && p == R_SECTOR_MISS) {
        c->last_use[i] = now;
        line_set(c, i, c->valid[i], c->dirty[i], c->resv[i] | m);
    }
}

/* ---- MSHR table ---------------------------------------------------------------------- */

static uint64_t mshr_key(const cache *c, uint64_t addr)
{
    return c->sectored ? addr >> 5 : addr >> c->line_log2;
}

static uint32_t mshr_find(const cache *c, uint64_t key)
{
    return hidx_get(&c->mix, c->ent_key, key);
}

static uint32_t mshr_open(cache *c, uint64_t key, uint8_t pending)
{
    uint32_t e = mshr_take(c);
    c->nent_free--;
    c->ent[e] = (mshr_ent){NIL, NIL, 0, pending, 1};
    c->ent_key[e] = key;
    hidx_put(&c->mix, c->ent_key, key, e);
    return e;
}

/* r NULL: a write-allocate fetch, counted against the merge limit but handed back to no one. */
static void mshr_add(cache *c, uint32_t e, const mem_req *r)
{
    mshr_ent *x = &c->ent[e];
    x->nreq++;
    if (!r)
        return;
    uint32_t w = pool_take(c);
    c->wreq[w] = *r;
    c->wseq[w] = c->seq++;
    c->wnext[w] = NIL;
    if (x->tail == NIL)
        x->head = w;
    else
        c->wnext[x->tail] = w;
    x->tail = w;
}

static void mshr_close(cache *c, uint32_t e)
{
    hidx_del(&c->mix, c->ent_key, c->ent_key[e]);
    c->ent[e].used = 0;
    c->ent_free[c->nent_stack++] = e;
    c->nent_free++;
}

/* CACHE_FAIL_NONE if a request on key could be merged or given an entry now. */
static int mshr_can(const cache *c, uint64_t key)
{
    uint32_t e = mshr_find(c, key);
    if (e != NIL)
        return c->ent[e].nreq < c->cfg.mshr_merge ? CACHE_FAIL_NONE : CACHE_FAIL_MERGE;
    return c->nent_free ? CACHE_FAIL_NONE : CACHE_FAIL_MSHR;
}

/* GPGPU-Sim send_read_request: merge into the outstanding entry (MSHR_HIT) or open one and
 * fetch. Nothing changes unless it returns CACHE_FAIL_NONE. */
static int mshr_request(cache *c, const mem_req *r, uint64_t key, int p, uint32_t i, uint64_t ln,
                        uint8_t m, uint64_t now, cache_result *out)
{
    uint32_t e = mshr_find(c, key);
    int pool_ok = !r || c->wfree != NIL || c->wbump < c->wcap;
    if (e != NIL) {
        if (c->ent[e].nreq >= c->cfg.mshr_merge || !pool_ok)
            return CACHE_FAIL_MERGE;
        tag_access(c, p, i, ln, m, now, out);
        mshr_add(c, e, r);
        c->st.v[CS(mshr_hits)]++;
        return CACHE_FAIL_NONE;
    }
    if (!c->nent_free || !pool_ok)
        return CACHE_FAIL_MSHR;
    if (!missq_room(c, 1))
        return CACHE_FAIL_MISSQ;
    tag_access(c, p, i, ln, m, now, out);
    mshr_add(c, mshr_open(c, key, m), r);
    out->fetch_mask = m;
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
    uint64_t ln = r->addr >> c->line_log2;
    uint8_t m = req_mask(c, r->addr);
    int atom_dirty = r->op == MEM_ATOM && c->cfg.write != CACHE_WR_RO;
    uint32_t i;
    int p = probe(c, r->addr, ln, m, c->alloc == CACHE_AL_ON_MISS, &i);
    if (p == R_HIT) {
        c->last_use[i] = now;
        if (atom_dirty)
            line_set(c, i, c->valid[i], c->dirty[i] | m, c->resv[i]);
        return R_HIT;
    }
    if (p == R_FAIL)
        return fail(out, CACHE_FAIL_LINE);
    /* a data cache keeps room for the fetch and a writeback (miss_queue_full(1)) */
    if (!missq_room(c, c->cfg.write == CACHE_WR_RO ? 1 : 2))
        return fail(out, CACHE_FAIL_MISSQ);
    int f = mshr_request(c, r, mshr_key(c, r->addr), p, i, ln, m, now, out);
    if (f)
        return fail(out, f);
    if (atom_dirty && i != NIL && c->tag[i] == ln)
        c->fill_dirty[i] |= m;
    return outcome(p, R_MISS);
}

/* GPGPU-Sim wr_hit_wb / wr_hit_wt / wr_hit_we (write-through and write-evict need a slot). */
static int write_hit(cache *c, int pol, uint32_t i, uint8_t m, uint64_t now, cache_result *out)
{
    if (pol != CACHE_WR_WB && !missq_room(c, 1))
        return fail(out, CACHE_FAIL_MISSQ);
    if (pol == CACHE_WR_WE) {
        send_write(c, out);
        line_set(c, i, c->valid[i] & (uint8_t)~m, c->dirty[i] & (uint8_t)~m, c->resv[i]);
        return R_HIT;
    }
    c->last_use[i] = now;
    line_set(c, i, c->valid[i], c->dirty[i] | m, c->resv[i]);
    if (pol == CACHE_WR_WT)
        send_write(c, out);
    return R_HIT;
}

/* GPGPU-Sim wr_miss_wa_lazy_fetch_on_read: the sector becomes valid and modified at once
 * (requests carry no byte mask, so every write counts as a whole sector: readable). A write
 * on a sector being fetched marks it modified-on-fill; the sector stays reserved (GPGPU-Sim
 * marks it MODIFIED at once, which lets the line be evicted under its own fill). */
static int lazy_write(cache *c, uint64_t key, int p, uint32_t i, uint64_t ln, uint8_t m,
                      uint64_t now, cache_result *out)
{
    if (c->cfg.write == CACHE_WR_WT) {
        if (!missq_room(c, 2))
            return fail(out, CACHE_FAIL_MISSQ);
        int f = mshr_can(c, key);
        if (f)
            return fail(out, f);
        send_write(c, out);
    }
    if (p == R_HIT_RES) {
        c->last_use[i] = now;
        c->fill_dirty[i] |= m;
    } else if (p == R_SECTOR_MISS) {
        c->last_use[i] = now;
        line_set(c, i, c->valid[i] | m, c->dirty[i] | m, c->resv[i]);
    } else {
        evict(c, i, &out->wb_addr, &out->wb_mask);
        install(c, i, ln, now);
        line_set(c, i, m, m, 0);
    }
    return R_MISS;
}

/* Write misses by write-allocate policy (GPGPU-Sim wr_miss_*). */
static int write_miss(cache *c, const mem_req *r, int p, uint32_t i, uint64_t ln, uint8_t m,
                      uint64_t now, cache_result *out)
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
        if ((f = mshr_can(c, key)))
            return fail(out, f);
        send_write(c, out);
        mshr_request(c, NULL, key, p, i, ln, m, now, out);
        return R_MISS;
    case CACHE_WA_FETCH: /* fetch, and the sector is modified once filled */
        if (!missq_room(c, 2))
            return fail(out, CACHE_FAIL_MISSQ);
        if ((f = mshr_request(c, NULL, key, p, i, ln, m, now, out)))
            return fail(out, f);
        if (i != NIL && c->tag[i] == ln)
            c->fill_dirty[i] |= m;
        return R_MISS;
    default:
        return lazy_write(c, key, p, i, ln, m, now, out);
    }
}

static int do_write(cache *c, const mem_req *r, uint64_t now, cache_result *out)
{
    if (c->cfg.write == CACHE_WR_RO)
        base_panic("cache %s: write to a read-only cache (address 0x%llx)", c->cfg.name,
                   (unsigned long long)r->addr);
    uint64_t ln = r->addr >> c->line_log2;
    uint8_t m = req_mask(c, r->addr);
    /* only write-allocating caches place a line on a write miss */
    int need_victim = c->alloc == CACHE_AL_ON_MISS && c->cfg.walloc != CACHE_WA_NONE;
    uint32_t i;
    int p = probe(c, r->addr, ln, m, need_victim, &i);
    int pol = c->cfg.write;
    if (pol == CACHE_WR_LWB_GWT) /* GPGPU-Sim wr_hit_global_we_local_wb */
        pol = r->space == TRACE_SPACE_LOCAL ? CACHE_WR_WB : CACHE_WR_WE;
    if (p == R_HIT)
        return write_hit(c, pol, i, m, now, out);
    if (p == R_FAIL && c->cfg.walloc != CACHE_WA_NONE)
        return fail(out, CACHE_FAIL_LINE);
    return outcome(p, write_miss(c, r, p, i, ln, m, now, out));
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
    int wr = r->op == MEM_WR;
    int o = wr ? do_write(c, r, now, out) : do_read(c, r, now, out);
    count(c, o, wr, out);
}

/* ---- fill, prefill, invalidate, flush ------------------------------------------------ */

/* The filled sectors become valid (dirty where a write or atomic waited on them). A line
 * not present (allocate on fill) takes a victim; with none evictable the data passes by
 * uncached, as GPGPU-Sim's tag_array::fill does. */
static void fill_line(cache *c, uint64_t ln, uint8_t got, uint64_t now, uint64_t *wb_addr,
                      uint8_t *wb_mask)
{
    uint32_t i = find_line(c, ln);
    if (i == NIL) {
        i = pick_victim(c, cache_set_of(c, ln << c->line_log2));
        if (i == NIL)
            return;
        evict(c, i, wb_addr, wb_mask);
        install(c, i, ln, now);
    } else if (c->alloc != CACHE_AL_ON_MISS) {
        c->last_use[i] = now;
    }
    uint8_t fd = c->fill_dirty[i] & got;
    c->fill_dirty[i] &= (uint8_t)~got;
    line_set(c, i, c->valid[i] | got, c->dirty[i] | fd, c->resv[i] & (uint8_t)~got);
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
            if (head[j] != NIL && (best < 0 || c->wseq[head[j]] < c->wseq[head[best]]))
                best = (int)j;
        if (best < 0)
            break;
        uint32_t w = head[best];
        if (k >= max)
            base_panic("cache %s: cache_fill got room for %zu waiting requests, more are "
                       "waiting", c->cfg.name, max);
        out[k++] = c->wreq[w];
        head[best] = c->wnext[w];
        c->wnext[w] = c->wfree;
        c->wfree = w;
    }
    for (unsigned j = 0; j < n; j++)
        mshr_close(c, done[j]);
    return k;
}

size_t cache_fill(cache *c, uint64_t line_addr, uint8_t mask, uint64_t now, mem_req *out,
                  size_t max, uint64_t *wb_addr, uint8_t *wb_mask)
{
    uint64_t ln = line_addr >> c->line_log2;
    uint32_t done[4];
    unsigned n = 0;
    uint8_t got = 0;
    *wb_addr = 0;
    *wb_mask = 0;
    if (c->sectored) {
        for (unsigned s = 0; s < 4; s++) {
            uint32_t e = (mask >> s) & 1u ? mshr_find(c, (ln << 2) + s) : NIL;
            if (e != NIL) {
                done[n++] = e;
                got |= (uint8_t)(1u << s);
            }
        }
    } else {
        uint32_t e = mshr_find(c, ln);
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
    fill_line(c, ln, got, now, wb_addr, wb_mask);
    c->st.v[CS(fills)] += (uint64_t)__builtin_popcount(got);
    return drain(c, done, n, out, max);
}

/* GPGPU-Sim force_tag_access: an on-fill style allocation whose victim is dropped. */
void cache_prefill(cache *c, uint64_t line_addr, uint8_t mask, uint64_t now)
{
    uint8_t m = c->sectored ? (uint8_t)(mask & c->full) : c->full;
    if (!m)
        return;
    uint64_t ln = line_addr >> c->line_log2;
    uint32_t i = find_line(c, ln);
    if (i == NIL) {
        i = pick_victim(c, cache_set_of(c, line_addr));
        if (i == NIL)
            return;
        evict(c, i, NULL, NULL);
        install(c, i, ln, now);
        line_set(c, i, m, 0, 0);
        return;
    }
    c->last_use[i] = now;
    line_set(c, i, c->valid[i] | (m & (uint8_t)~c->resv[i]), c->dirty[i], c->resv[i]);
}

void cache_invalidate(cache *c)
{
    for (uint32_t i = 0; i < c->nlines; i++) {
        if (c->tag[i] == EMPTY)
            continue;
        c->fill_dirty[i] = 0;
        line_set(c, i, 0, 0, c->resv[i]);
    }
    c->flush_pos = 0;
}

int cache_flush_next(cache *c, uint64_t *line_addr, uint8_t *mask)
{
    for (uint32_t k = 0; k < c->nlines; k++) {
        uint32_t i = (c->flush_pos + k) % c->nlines;
        uint8_t d = c->dirty[i];
        if (!d)
            continue;
        line_set(c, i, c->valid[i], 0, c->resv[i]);
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
    uint32_t i = find_line(c, addr >> c->line_log2);
    uint8_t m = req_mask(c, addr);
    return i != NIL && (c->valid[i] & m) == m;
}

void cache_mshr_foreach(const cache *c, void (*fn)(void *ctx, const mem_req *r), void *ctx)
{
    for (uint32_t e = 0; e < c->ent_next; e++)
        if (c->ent[e].used)
            for (uint32_t w = c->ent[e].head; w != NIL; w = c->wnext[w])
                fn(ctx, &c->wreq[w]);
}
