/* mem/map: the sub-partition that owns an address, as GPGPU-Sim's
 * linear_to_raw_address_translation::addrdec_tlx computes it: the DRAM address decode
 * (mem_addrmap_decode) then -gpgpu_memory_partition_indexing (FORMATS.md B.6).
 *
 * The "higher address bits" the hashes mix in are GPGPU-Sim's rest_of_addr_high_bits:
 * addr >> (S + log2(n_mem) + log2(n_sub)) for a power-of-two channel count, and
 * (addr >> S) / n_mem otherwise (S = dramid@S).
 *
 * Differences from GPGPU-Sim, all where GPGPU-Sim aborts or is undefined:
 * - ipoly: GPGPU-Sim has tables only for 16, 32 and 64 indices. Its tables are exactly
 *   "index bit k ^= a_i for every i with bit k of x^(i+n) mod P(x)", P = x^4+x+1, x^5+x^2+1,
 *   x^6+x+1, using a_0..a_12 / a_14 / a_18 (checked in tests/test_part.c). Other power-of-two
 *   sizes use the same construction with a standard primitive polynomial and a_0..a_(3n)
 *   (a lockstep extension, so small test GPUs keep the default indexing).
 * - pae: GPGPU-Sim has PAE_hash_function (32 indices only) but no decoder case for it;
 *   here it is applied to the sub-partition index like ipoly, exactly as that function is
 *   written (its b terms cancel in pairs, so it is not a permutation of the index).
 * - random: GPGPU-Sim draws rand() % n per 2^(S - log2 n_sub)-byte chunk at its first
 *   touch (order-dependent, glibc-dependent). Here the same chunk is hashed (splitmix64)
 *   instead: deterministic and independent of the access order, not bit-identical.
 * - custom: not implemented in GPGPU-Sim either; behaves as consecutive.
 * - With explicit D bits (no dramid@), GPGPU-Sim shifts by S = -1; S is the lowest D bit here.
 */
#include "part.h"

#include <stdlib.h>
#include <string.h>

enum { IDX_CONSECUTIVE, IDX_XOR, IDX_IPOLY, IDX_PAE, IDX_RANDOM, IDX_CUSTOM };

/* x^n + ... for n = 0..16 (primitive polynomials; 4, 5, 6 are GPGPU-Sim's). */
static const uint32_t ipoly_poly[17] = {
    0x1, 0x3, 0x7, 0xb, 0x13, 0x25, 0x43, 0x83, 0x11d,
    0x211, 0x409, 0x805, 0x1053, 0x201b, 0x4443, 0x8003, 0x1100b,
};

static int log2_floor(uint32_t v)
{
    int r = 0;
    while (v >>= 1)
        r++;
    return r;
}

static int is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

static uint32_t next_pow2(uint32_t v)
{
    uint32_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static int parity64(uint64_t v) { return __builtin_parityll(v); }

/* hmask[k]: the a_i that flip index bit k, for an index of n bits. */
static void ipoly_masks(int n, uint64_t hmask[16])
{
    memset(hmask, 0, 16 * sizeof *hmask);
    if (n == 0)
        return;
    int top = n == 4 ? 12 : n == 5 ? 14 : n == 6 ? 18 : 3 * n;
    uint32_t poly = ipoly_poly[n], v = 1; /* v = x^(i+n) mod P, stepped by one degree */
    for (int j = 0; j < n; j++)
        v <<= 1;
    v = v >> n & 1 ? v ^ poly : v;
    for (int i = 0; i <= top; i++) {
        for (int k = 0; k < n; k++)
            if (v >> k & 1)
                hmask[k] |= (uint64_t)1 << i;
        v <<= 1;
        if (v >> n & 1)
            v ^= poly;
    }
}

static uint32_t ipoly_hash(const mem_map *m, uint64_t a, uint32_t index)
{
    int n = log2_floor(m->hash_n);
    for (int k = 0; k < n; k++)
        index ^= (uint32_t)parity64(a & m->hmask[k]) << k;
    return index;
}

/* GPGPU-Sim's PAE_hash_function for 32 indices, term for term (b_i b_i pairs included). */
static uint32_t pae_hash(uint64_t a, uint32_t b)
{
#define A(i) ((uint32_t)(a >> (i)) & 1u)
#define B(i) ((b >> (i)) & 1u)
    uint32_t n0 = A(13) ^ A(10) ^ A(9) ^ A(5) ^ A(0) ^ B(3) ^ B(0) ^ B(0);
    uint32_t n1 = A(12) ^ A(11) ^ A(6) ^ A(1) ^ B(3) ^ B(2) ^ B(1) ^ B(1);
    uint32_t n2 = A(14) ^ A(9) ^ A(8) ^ A(7) ^ A(2) ^ B(1) ^ B(2);
    uint32_t n3 = A(11) ^ A(10) ^ A(8) ^ A(3) ^ B(2) ^ B(3) ^ B(3);
    uint32_t n4 = A(12) ^ A(9) ^ A(8) ^ A(5) ^ A(4) ^ B(1) ^ B(0) ^ B(4);
#undef A
#undef B
    return n0 | n1 << 1 | n2 << 2 | n3 << 3 | n4 << 4;
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int lowest_bit(uint64_t v)
{
    int b = 0;
    while (v && !(v >> b & 1))
        b++;
    return b;
}

static int check_indexing(const mem_map *m, base_err *e)
{
    const char *name = m->indexing == IDX_XOR ? "xor" : m->indexing == IDX_PAE ? "pae" : "ipoly";
    switch (m->indexing) {
    case IDX_XOR:
        if (m->gap)
            return base_fail(e, BASE_EXIT_INPUT,
                             "partition_indexing = xor needs a power-of-two n_mem (got %u), as "
                             "in GPGPU-Sim; use consecutive, ipoly or random",
                             m->n_mem);
        return 0;
    case IDX_IPOLY:
    case IDX_PAE:
        if (!is_pow2(m->n_sub))
            return base_fail(e, BASE_EXIT_INPUT,
                             "partition_indexing = %s needs a power-of-two n_sub_partitions "
                             "(got %u)", name, m->n_sub);
        if (m->hash_n > 65536)
            return base_fail(e, BASE_EXIT_INPUT,
                             "partition_indexing = ipoly: at most 65536 sub-partitions "
                             "(next power of two of n_mem x n_sub_partitions is %u)", m->hash_n);
        if (m->indexing == IDX_PAE && m->hash_n != 32)
            return base_fail(e, BASE_EXIT_INPUT,
                             "partition_indexing = pae is defined for 32 sub-partitions only "
                             "(GPGPU-Sim's PAE table); got nextpow2(n_mem) x n_sub = %u",
                             m->hash_n);
        return 0;
    default:
        return 0;
    }
}

static uint64_t bits_from(int s) { return s <= 0 ? ~0ull : s >= 64 ? 0 : ~0ull << s; }

/* The address bits that can reach the sub-partition: channel and bank fields, the high bits
 * a hash mixes in, and everything from S up where the channel is a mod/div at S. */
static uint64_t sub_inputs(const mem_map *m)
{
    const uint64_t *mk = m->map.bound;
    if (m->indexing == IDX_RANDOM)
        return bits_from(m->chip_s - log2_floor(m->n_sub));
    uint64_t dep = m->gap ? (mk[1] & ~bits_from(m->chip_s)) | bits_from(m->chip_s)
                          : mk[1] | mk[4];
    if (m->indexing == IDX_XOR || m->indexing == IDX_IPOLY || m->indexing == IDX_PAE)
        dep |= m->gap ? bits_from(m->chip_s) : bits_from(m->high_shift);
    return dep;
}

int mem_map_grain(const mem_map *m) { return m->grain; }

static void linear_init(mem_map *m);

int mem_map_init(mem_map *m, const knobs *k, base_err *e)
{
    memset(m, 0, sizeof *m);
    if (mem_addrmap_parse(&m->map, k->dram_addr_map, e))
        return -1;
    m->n_mem = (uint32_t)k->n_mem;
    m->n_sub = (uint32_t)k->n_sub_partitions;
    mem_addrmap_bind(&m->map, m->n_mem);
    m->indexing = k->partition_indexing;
    if (m->map.chip_start < 0 && !is_pow2(m->n_mem))
        return base_fail(e, BASE_EXIT_INPUT,
                         "dram_addr_map with D (channel) bits needs a power-of-two n_mem (got "
                         "%u); use the dramid@S form for other channel counts",
                         m->n_mem);
    m->chip_s = m->map.chip_start >= 0 ? m->map.chip_start : lowest_bit(m->map.chan);
    m->gap = !is_pow2(m->n_mem);
    m->high_shift = m->chip_s + log2_floor(m->n_mem) + log2_floor(m->n_sub);
    m->hash_n = next_pow2(m->n_mem) * m->n_sub;
    if (check_indexing(m, e))
        return -1;
    if (m->indexing == IDX_IPOLY)
        ipoly_masks(log2_floor(m->hash_n), m->hmask);
    uint64_t dep = sub_inputs(m);
    m->grain = dep ? __builtin_ctzll(dep) : 63;
    linear_init(m);
    return 0;
}

static uint64_t high_bits(const mem_map *m, uint64_t addr)
{
    if (m->gap)
        return (addr >> m->chip_s) / m->n_mem;
    return m->high_shift >= 64 ? 0 : addr >> m->high_shift;
}

static uint32_t random_sub(const mem_map *m, uint64_t addr)
{
    int s = m->chip_s - log2_floor(m->n_sub);
    uint64_t chunk = addr >> (s < 0 ? 0 : s);
    return (uint32_t)(splitmix64(chunk) % ((uint64_t)m->n_mem * m->n_sub));
}

static uint32_t sub_partition_decoded(const mem_map *m, uint64_t addr);

uint32_t mem_map_sub_partition(const mem_map *m, uint64_t addr)
{
    if (!m->linear)
        return sub_partition_decoded(m, addr);
    uint32_t v = 0;
    for (int j = 0; addr; j++, addr >>= 8) /* a zero byte adds nothing */
        v ^= m->lin[j][addr & 255];
    return v;
}

/* One lookup per 2^grain bytes (every such chunk maps as one), or per block when the grain
 * is finer (a block counts where its first byte maps). */
static void count_chunks(const mem_map *m, uint64_t lo, uint64_t hi, uint64_t *n)
{
    uint64_t chunk = 1ull << (m->grain > 7 ? m->grain : 7);
    for (uint64_t a = lo; a < hi;) {
        uint64_t next = (a | (chunk - 1)) + 1;
        next = next < hi ? next : hi;
        n[mem_map_sub_partition(m, a)] += (next - a) / 128;
        a = next;
    }
}

/* A linear map f sends b + x, for b aligned to 2^COUNT_SPAN and x below it, to f(b) ^ f(x):
 * so every aligned span holds the blocks of span 0, each moved from s to f(b) ^ s, and a
 * long range costs one lookup per span after one pass over span 0. */
#define COUNT_SPAN 16

void mem_map_count_blocks(const mem_map *m, uint64_t lo, uint64_t hi, uint64_t *n)
{
    uint64_t span = 1ull << COUNT_SPAN;
    uint64_t a0 = (lo + span - 1) & ~(span - 1), a1 = hi & ~(span - 1);
    if (!m->linear || m->grain >= COUNT_SPAN || lo >= hi || a0 >= a1 || a0 < lo) {
        count_chunks(m, lo, hi, n);
        return;
    }
    uint32_t ns = m->n_mem * m->n_sub;
    uint64_t *h = base_calloc(ns, sizeof *h);
    count_chunks(m, 0, span, h);
    count_chunks(m, lo, a0, n);
    for (uint64_t b = a0; b < a1; b += span) {
        uint32_t f = mem_map_sub_partition(m, b);
        for (uint32_t s = 0; s < ns; s++)
            n[f ^ s] += h[s];
    }
    count_chunks(m, a1, hi, n);
    free(h);
}

/* The tables hold the image of each single address bit, XORed over the bits of a byte. */
static void linear_init(mem_map *m)
{
    int pow2 = is_pow2(m->n_mem) && is_pow2(m->n_sub);
    m->linear = pow2 && !m->gap && m->indexing != IDX_RANDOM && sub_partition_decoded(m, 0) == 0;
    if (!m->linear)
        return;
    for (int j = 0; j < 8; j++) {
        uint32_t bit[8];
        for (int b = 0; b < 8; b++)
            bit[b] = sub_partition_decoded(m, (uint64_t)1 << (8 * j + b));
        m->lin[j][0] = 0; /* each byte value: the one without its lowest set bit, and that bit */
        for (uint32_t v = 1; v < 256; v++)
            m->lin[j][v] = m->lin[j][v & (v - 1)] ^ bit[__builtin_ctz(v)];
    }
}

static uint32_t sub_partition_decoded(const mem_map *m, uint64_t addr)
{
    if (m->indexing == IDX_RANDOM) /* the chunk alone: the decode below cost 6x the hash */
        return random_sub(m, addr);
    mem_addr a;
    mem_addrmap_decode(&m->map, m->n_mem, m->n_sub, addr, &a);
    uint32_t total = m->n_mem * m->n_sub, chan = a.channel;
    switch (m->indexing) {
    case IDX_XOR:
        chan ^= (uint32_t)(high_bits(m, addr) & (m->n_mem - 1));
        return chan * m->n_sub + a.bank % m->n_sub;
    case IDX_IPOLY:
    case IDX_PAE: {
        uint32_t idx = chan * m->n_sub + (a.bank & (m->n_sub - 1));
        uint64_t hb = high_bits(m, addr);
        idx = m->indexing == IDX_IPOLY ? ipoly_hash(m, hb, idx) : pae_hash(hb, idx);
        return m->gap ? idx % total : idx;
    }
    default: /* consecutive, custom */
        return a.sub_partition;
    }
}
