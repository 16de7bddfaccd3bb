/* cache configuration: from knobs, validity rules, set index functions, replacement policies.
 * The index hashes are GPGPU-Sim's (gpu-cache.cc hash_function, hashing.cc), FORMATS.md B.4. */
#include "cache_int.h"

#include <string.h>

/* ---- from knobs ---------------------------------------------------------------------- */

static const char *const repl_names[] = {"lru", "fifo"};

/* The knob fields are named by prefix, so each prefix is spelled out once here. */
#define CACHE_FROM_KNOBS(p)                                                                 \
    do {                                                                                    \
        c->name = #p;                                                                       \
        c->kind = k->p##_type;                                                              \
        c->sets = (uint32_t)k->p##_sets;                                                    \
        c->line = (uint32_t)k->p##_line;                                                    \
        c->assoc = (uint32_t)k->p##_assoc;                                                  \
        c->repl = k->p##_repl >= 0 && k->p##_repl < 2 ? repl_names[k->p##_repl] : "?";     \
        c->write = k->p##_write;                                                            \
        c->alloc = k->p##_alloc;                                                            \
        c->walloc = k->p##_write_alloc;                                                     \
        c->index = k->p##_set_index;                                                        \
        c->mshr_entries = (uint32_t)k->p##_mshr_entries;                                    \
        c->mshr_merge = (uint32_t)k->p##_mshr_merge;                                        \
        c->miss_queue = (uint32_t)k->p##_miss_queue;                                        \
    } while (0)

void cache_cfg_from_knobs(cache_cfg *c, const knobs *k, const char *prefix)
{
    memset(c, 0, sizeof *c);
    if (strcmp(prefix, "l1d") == 0) {
        CACHE_FROM_KNOBS(l1d);
        c->write_ratio = (uint32_t)k->l1d_write_ratio; /* GPGPU-Sim applies it to L1D only */
    } else if (strcmp(prefix, "l2") == 0) {
        CACHE_FROM_KNOBS(l2);
    } else if (strcmp(prefix, "l1i") == 0) {
        CACHE_FROM_KNOBS(l1i);
    } else if (strcmp(prefix, "l1c") == 0) {
        CACHE_FROM_KNOBS(l1c);
    } else if (strcmp(prefix, "l1t") == 0) {
        CACHE_FROM_KNOBS(l1t);
    } else {
        base_panic("cache_cfg_from_knobs: no cache knobs with prefix '%s'", prefix);
    }
    c->simd = k->host_simd != 0;
}

/* ---- validity ------------------------------------------------------------------------ */

unsigned cache_log2(uint64_t v)
{
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

static int pow2(uint64_t v) { return v && !(v & (v - 1)); }

static int check_index(const cache_cfg *c, base_err *e)
{
    if (c->index == CACHE_IDX_LINEAR || c->index == CACHE_IDX_CUSTOM)
        return 0;
    if (!pow2(c->sets))
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: a hashed set index needs a power-of-two "
                         "set count, not %u", c->name, c->sets);
    if (c->index == CACHE_IDX_FERMI && c->sets != 32 && c->sets != 64)
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: the fermi set index needs 32 or 64 sets, "
                         "not %u", c->name, c->sets);
    if (c->index == CACHE_IDX_IPOLY && c->sets != 16 && c->sets != 32 && c->sets != 64)
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: the ipoly set index needs 16, 32 or 64 "
                         "sets, not %u", c->name, c->sets);
    return 0;
}

static int check_policies(const cache_cfg *c, base_err *e)
{
    if (c->kind < CACHE_NORMAL || c->kind > CACHE_SECTOR || c->write < 0 ||
        c->write > CACHE_WR_LWB_GWT || c->alloc < 0 || c->alloc > CACHE_AL_STREAMING ||
        c->walloc < 0 || c->walloc > CACHE_WA_LAZY_FETCH || c->index < 0 ||
        c->index > CACHE_IDX_CUSTOM)
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: a policy field is out of range", c->name);
    if (!c->repl || !cache_repl_find(c->repl))
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: unknown replacement policy '%s'",
                         c->name, c->repl ? c->repl : "(null)");
    /* GPGPU-Sim's rules (streaming is allocate-on-fill there); they name WRITE_BACK only:
     * Volta's L1 is lwb_gwt and streaming */
    int fill = c->alloc != CACHE_AL_ON_MISS;
    if (c->write == CACHE_WR_WB && fill)
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: a write-back cache must allocate on "
                         "miss", c->name);
    if ((c->walloc == CACHE_WA_FETCH || c->walloc == CACHE_WA_LAZY_FETCH) && fill)
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: fetch-on-write and lazy fetch need "
                         "allocate-on-miss", c->name);
    return 0;
}

int cache_cfg_check(const cache_cfg *c, base_err *e)
{
    if (!c->name)
        return base_fail(e, BASE_EXIT_INPUT, "cache: no name");
    if (c->sets < 1 || c->assoc < 1 || c->mshr_entries < 1 || c->mshr_merge < 1)
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: sets, ways, MSHR entries and merges "
                         "must be at least 1", c->name);
    if (!pow2(c->line) || c->line < 8 || c->line > 256)
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: line size must be a power of two "
                         "from 8 to 256 bytes, not %u", c->name, c->line);
    if (c->kind == CACHE_SECTOR && c->line != 128)
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: a sectored cache needs 128-byte lines "
                         "(4 sectors of 32 B), not %u", c->name, c->line);
    if ((uint64_t)c->sets * c->assoc > (1u << 28))
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: too many lines (%u sets x %u ways; "
                         "at most 2^28)", c->name, c->sets, c->assoc);
    if (c->write_ratio > 100)
        return base_fail(e, BASE_EXIT_INPUT, "cache %s: write ratio %u is not a percentage",
                         c->name, c->write_ratio);
    if (check_policies(c, e) || check_index(c, e))
        return -1;
    return 0;
}

/* ---- set index ----------------------------------------------------------------------- */

/* IPOLY (Rau, ISCA 1991; equations of GPGPU-Sim hashing.cc for 16/32/64 sets): new index bit
 * k = index bit k XOR the parity of the higher address bits a (= line address >> log2 sets)
 * selected by mask k. FORMATS.md B.6 lists the same bits. */
static const uint32_t ipoly16[4] = {0x00f59, 0x011eb, 0x003d6, 0x007ac};
static const uint32_t ipoly32[5] = {0x03e69, 0x07cd2, 0x047cd, 0x00f9a, 0x01f34};
static const uint32_t ipoly64[6] = {0x79461, 0x0bca3, 0x17946, 0x2f28c, 0x5e518, 0x3ca30};

static uint32_t ipoly(uint64_t hi, uint32_t idx, uint32_t sets)
{
    const uint32_t *m = sets == 16 ? ipoly16 : sets == 32 ? ipoly32 : ipoly64;
    unsigned bits = sets == 16 ? 4 : sets == 32 ? 5 : 6;
    uint32_t r = 0;
    /* the masks stay below bit 20, so a 32-bit parity (a few instructions) will do */
    for (unsigned k = 0; k < bits; k++)
        r |= (uint32_t)__builtin_parity((uint32_t)(hi & m[k])) << k;
    return idx ^ r;
}

/* Nugteren et al., HPCA 2014, as GPGPU-Sim: line-address bits 0-4 XOR address bits 13, 14,
 * 15, 17, 19; with 64 sets address bit 12 becomes index bit 5. */
static uint32_t fermi(uint64_t addr, unsigned line_log2, uint32_t sets)
{
    uint32_t lower = (uint32_t)(addr >> line_log2) & 0x1f;
    uint32_t upper = (uint32_t)((addr & 0xe000) >> 13);
    upper |= (uint32_t)((addr & 0x20000) >> 14);
    upper |= (uint32_t)((addr & 0x80000) >> 15);
    uint32_t set = lower ^ upper;
    if (sets == 64)
        set |= (uint32_t)((addr & 0x1000) >> 7);
    return set;
}

void cache_ipoly_table(uint32_t sets, uint8_t tab[5][16])
{
    for (unsigned j = 0; j < 5; j++)
        for (unsigned v = 0; v < 16; v++)
            tab[j][v] = (uint8_t)ipoly((uint64_t)v << (4 * j), 0, sets);
}

uint32_t cache_index_hash(const cache_cfg *c, unsigned line_log2, unsigned set_log2,
                          uint64_t addr)
{
    uint64_t ln = addr >> line_log2;
    switch (c->index) {
    case CACHE_IDX_FERMI:
        return fermi(addr, line_log2, c->sets);
    case CACHE_IDX_IPOLY:
        return ipoly(ln >> set_log2, (uint32_t)ln & (c->sets - 1), c->sets);
    case CACHE_IDX_XOR:
        return ((uint32_t)ln ^ (uint32_t)(ln >> set_log2)) & (c->sets - 1);
    default: /* linear; "custom" has no definition in GPGPU-Sim either: linear here */
        return (uint32_t)(ln % c->sets);
    }
}

/* ---- replacement policies ------------------------------------------------------------ */

/* The candidate with the smallest stamp; ties go to the lowest way, as GPGPU-Sim's strict
 * '<' scan does. */
static unsigned min_stamp(const uint64_t *stamp, uint32_t assoc, const uint64_t *cand)
{
    unsigned best = UINT32_MAX;
    for (uint32_t w0 = 0; w0 < assoc; w0 += 64) {
        uint64_t bits = cand[w0 / 64];
        while (bits) {
            unsigned w = w0 + (unsigned)__builtin_ctzll(bits);
            bits &= bits - 1;
            if (w < assoc && (best == UINT32_MAX || stamp[w] < stamp[best]))
                best = w;
        }
    }
    if (best == UINT32_MAX)
        base_panic("cache replacement: no candidate way");
    return best;
}

static unsigned lru_victim(const uint64_t *last_use, const uint64_t *alloc_time, uint32_t assoc,
                           const uint64_t *cand)
{
    (void)alloc_time;
    return min_stamp(last_use, assoc, cand);
}

static unsigned fifo_victim(const uint64_t *last_use, const uint64_t *alloc_time, uint32_t assoc,
                            const uint64_t *cand)
{
    (void)last_use;
    return min_stamp(alloc_time, assoc, cand);
}

static const cache_repl_ops repl_lru = {"lru", "least recently used line", lru_victim};
static const cache_repl_ops repl_fifo = {"fifo", "oldest allocated line", fifo_victim};

const cache_repl_ops *const cache_repl_registry[] = {&repl_lru, &repl_fifo, NULL};

int cache_repl_stamp(const cache_repl_ops *o)
{
    return o == &repl_lru ? 0 : o == &repl_fifo ? 1 : -1;
}

const cache_repl_ops *cache_repl_find(const char *name)
{
    for (int i = 0; cache_repl_registry[i]; i++)
        if (strcmp(cache_repl_registry[i]->name, name) == 0)
            return cache_repl_registry[i];
    return NULL;
}
