/* GPGPU-Sim address mapping: parse, validate, decode (FORMATS.md B.6). */
#include "addrmap.h"

#include "../knob/knob.h"

#include <string.h>

/* One contiguous run of mask bits per step: address maps have a handful of runs, and this
 * is on every request's path. */
uint64_t mem_pack_bits(uint64_t v, uint64_t mask)
{
    uint64_t out = 0;
    unsigned k = 0;
    while (mask) {
        unsigned lo = (unsigned)__builtin_ctzll(mask);
        uint64_t rest = ~(mask >> lo);
        unsigned n = rest ? (unsigned)__builtin_ctzll(rest) : 64 - lo;
        uint64_t run = n >= 64 ? ~0ull : (1ull << n) - 1;
        out |= ((v >> lo) & run) << k;
        k += n;
        mask = n + lo >= 64 ? 0 : mask & ~(run << lo);
    }
    return out;
}

static int log2_exact(uint32_t n)
{
    if (n == 0 || (n & (n - 1)))
        return -1;
    int k = 0;
    while ((1u << k) < n)
        k++;
    return k;
}

/* "dramid@S;" prefix: sets m->chip_start and returns the rest of the string. */
static const char *parse_dramid(mem_addrmap *m, const char *s, base_err *e)
{
    m->chip_start = -1;
    if (strncmp(s, "dramid@", 7) != 0)
        return s;
    const char *p = s + 7, *semi = strchr(p, ';');
    int64_t v;
    if (!semi || base_parse_i64(p, (size_t)(semi - p), 10, &v) || v < 0 || v > 63) {
        base_fail(e, BASE_EXIT_INPUT,
                  "address map: expected 'dramid@<bit 0..63>;' before the bit map");
        return NULL;
    }
    m->chip_start = (int)v;
    return semi + 1;
}

int mem_addrmap_parse(mem_addrmap *m, const char *s, base_err *e)
{
    memset(m, 0, sizeof *m);
    const char *p = parse_dramid(m, s, e);
    if (!p)
        return -1;
    int bit = 63, n = 0;
    for (; *p; p++) {
        if (*p == '.' || *p == ' ' || *p == '|')
            continue;
        if (n == 64)
            return base_fail(e, BASE_EXIT_INPUT,
                             "address map: more than 64 mapping characters");
        uint64_t b = (uint64_t)1 << bit;
        switch (*p) {
        case 'R': m->row |= b; break;
        case 'B': m->bank |= b; break;
        case 'C': m->col |= b; break;
        case 'S': m->burst |= b; m->col |= b; break;
        case 'D': m->chan |= b; break;
        case '0': break;
        default:
            return base_fail(e, BASE_EXIT_INPUT,
                             "address map: bad character '%c', expected one of R B C S D 0 "
                             "(or '.', ' ', '|' as separators)", *p);
        }
        bit--;
        n++;
    }
    if (n != 64)
        return base_fail(e, BASE_EXIT_INPUT,
                         "address map: %d mapping characters, expected exactly 64", n);
    if (m->chip_start >= 0 && m->chan)
        return base_fail(e, BASE_EXIT_INPUT,
                         "address map: D (channel) bits are not allowed together with dramid@");
    return 0;
}

int knob_check_addr_map(const char *value, base_err *e)
{
    mem_addrmap m;
    return mem_addrmap_parse(&m, value, e);
}

/* Moves every mask bit at or above `at` up by `k`. */
static uint64_t insert_gap(uint64_t mask, int at, int k)
{
    uint64_t low = at >= 64 ? mask : mask & (((uint64_t)1 << at) - 1);
    uint64_t high = mask & ~low;
    return low | (k >= 64 ? 0 : high << k);
}

void mem_addrmap_masks(const mem_addrmap *m, uint32_t n_mem, uint64_t out[5])
{
    out[0] = m->row;
    out[1] = m->bank;
    out[2] = m->col;
    out[3] = m->burst;
    out[4] = m->chan;
    int k = log2_exact(n_mem);
    if (m->chip_start < 0 || k < 0)
        return;
    for (int i = 0; i < 4; i++)
        out[i] = insert_gap(out[i], m->chip_start, k);
    out[4] = k == 0 ? 0 : (((uint64_t)1 << k) - 1) << m->chip_start;
}

void mem_addrmap_bind(mem_addrmap *m, uint32_t n_mem)
{
    m->bound_n_mem = n_mem ? n_mem : 1;
    mem_addrmap_masks(m, m->bound_n_mem, m->bound);
    m->bound_plain = m->chip_start < 0 || log2_exact(m->bound_n_mem) >= 0;
}

/* The address the row, bank, column and burst masks apply to, and those masks (mk[0..3]);
 * the channel too when chan is not NULL. */
static uint64_t split(const mem_addrmap *m, uint32_t n_mem, uint64_t addr, uint64_t mk[5],
                      uint64_t *chan)
{
    if (m->chip_start >= 0 && log2_exact(n_mem) < 0) {
        /* non-power-of-two channels: mod/div at bit S, the masks stay as written */
        int s = m->chip_start;
        uint64_t hi = addr >> s, low = addr & (((uint64_t)1 << s) - 1);
        if (chan)
            *chan = hi % n_mem;
        mk[0] = m->row;
        mk[1] = m->bank;
        mk[2] = m->col;
        mk[3] = m->burst;
        return (hi / n_mem) << s | low;
    }
    if (n_mem == m->bound_n_mem)
        memcpy(mk, m->bound, 5 * sizeof *mk);
    else
        mem_addrmap_masks(m, n_mem, mk);
    if (chan)
        *chan = mem_pack_bits(addr, mk[4]) % n_mem;
    return addr;
}

void mem_addrmap_bank_row(const mem_addrmap *m, uint32_t n_mem, uint64_t addr, uint32_t *bank,
                          uint64_t *row)
{
    if (n_mem == m->bound_n_mem && m->bound_plain) { /* every request of a channel */
        *row = mem_pack_bits(addr, m->bound[0]);
        *bank = (uint32_t)mem_pack_bits(addr, m->bound[1]);
        return;
    }
    uint64_t mk[5], a = split(m, n_mem ? n_mem : 1, addr, mk, NULL);
    *row = mem_pack_bits(a, mk[0]);
    *bank = (uint32_t)mem_pack_bits(a, mk[1]);
}

void mem_addrmap_decode(const mem_addrmap *m, uint32_t n_mem, uint32_t n_sub, uint64_t addr,
                        mem_addr *out)
{
    uint64_t mk[5], chan;
    if (n_mem == 0)
        n_mem = 1;
    if (n_sub == 0)
        n_sub = 1;
    uint64_t a = split(m, n_mem, addr, mk, &chan);
    out->channel = (uint32_t)chan;
    out->row = mem_pack_bits(a, mk[0]);
    out->bank = (uint32_t)mem_pack_bits(a, mk[1]);
    out->col = mem_pack_bits(a, mk[2]);
    out->burst = mem_pack_bits(a, mk[3]);
    out->sub_partition = out->channel * n_sub + out->bank % n_sub;
}
