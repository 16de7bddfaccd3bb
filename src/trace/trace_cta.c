/* Kernel body (A.4): thread blocks, warps, and the static instruction dictionary. */
#include "trace_kint.h"
#include "trace_int.h"
#include "trace_native.h"

#include <stdlib.h>
#include <string.h>

#include "../isa/isa.h"

#define FILE_LINE(k) trace_k_name(k), (unsigned long long)trace_k_lineno(k)

/* ---- dictionary ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t line_hash(const trace_line *l)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < l->opcode_len; i++)
        h = (h ^ (unsigned char)l->opcode[i]) * 0x100000001b3ull;
    h = mix(h, l->pc);
    h = mix(h, (uint64_t)l->imm);
    h = mix(h, l->line_num);
    h = mix(h, (uint64_t)l->ndst << 16 | l->nsrc);
    for (unsigned i = 0; i < l->ndst + l->nsrc; i++)
        h = mix(h, l->regs[i]);
    return h ^ (h >> 29);
}

static int same(const trace_kernel *k, const trace_sinst *s, const trace_line *l)
{
    unsigned nr = l->ndst + l->nsrc;
    return s->pc == l->pc && s->imm == l->imm && s->line_num == l->line_num &&
           s->ndst == l->ndst && s->nsrc == l->nsrc && s->opcode_len == l->opcode_len &&
           memcmp(k->str + s->opcode, l->opcode, l->opcode_len) == 0 &&
           (nr == 0 || memcmp(k->regs + s->regs, l->regs, nr * sizeof *l->regs) == 0);
}

static void table_grow(trace_kernel *k)
{
    size_t cap = k->table_cap ? k->table_cap * 2 : 1024;
    uint32_t *t = base_calloc(cap, sizeof *t);
    for (size_t i = 0; i < k->nsinst; i++) {
        size_t j = k->shash[i] & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = (uint32_t)i + 1;
    }
    free(k->table);
    k->table = t;
    k->table_cap = cap;
}

static int is_half_rate(const char *op, size_t n)
{
    static const char *const half[] = {"HADD2", "HADD2_32I", "HFMA2", "HFMA2_32I",
                                       "HMUL2_32I", "HSET2", "HSETP2"};
    for (size_t i = 0; i < BASE_ARRAY_LEN(half); i++)
        if (strlen(half[i]) == n && memcmp(op, half[i], n) == 0)
            return 1;
    return 0;
}

/* Decodes what the simulator needs from the opcode text (A.7, A.8, A.9). */
static int decode(trace_kernel *k, const trace_line *l, trace_sinst *s, base_err *e)
{
    const char *dot = memchr(l->opcode, '.', l->opcode_len);
    size_t n = dot ? (size_t)(dot - l->opcode) : l->opcode_len;
    const isa_op *op = isa_lookup_op(k->h.family, l->opcode, n);
    if (!op) {
        char what[96];
        snprintf(what, sizeof what, "an opcode of the %s ISA (binary version %d)",
                 isa_family_name(k->h.family), k->h.binary_version);
        return trace_fail_found(e, trace_k_name(k), trace_k_lineno(k), what, l->opcode, n);
    }
    trace_space space;
    trace_kind kind;
    int bypass;
    trace_opcode_space(l->opcode, l->opcode_len, &space, &kind, &bypass);
    s->cls = op->cls;
    s->table_cat = op->cat;
    s->cat = kind == TRACE_KIND_ATOMIC ? ISA_CAT_LOAD : op->cat;  /* A.8: atomics load at L2 */
    s->space = (uint8_t)space;
    s->kind = (uint8_t)kind;
    s->width = (uint16_t)trace_opcode_width(l->opcode, l->opcode_len);
    s->flags = (uint8_t)((bypass ? TRACE_F_BYPASS_L1 : 0) |
                         (is_half_rate(l->opcode, n) ? TRACE_F_HALF_II : 0) |
                         (op->ref && isa_version_in_reference(k->h.binary_version) ? TRACE_F_REF : 0));
    return 0;
}

static int store_text(trace_kernel *k, const trace_line *l, trace_sinst *s, base_err *e)
{
    unsigned nr = l->ndst + l->nsrc;
    if (l->opcode_len > 65535 || k->str_len + l->opcode_len + 1 > UINT32_MAX ||
        k->nregs + nr > UINT32_MAX || k->nsinst + 1 >= UINT32_MAX)
        return trace_fail(e, "%s:%llu: expected a kernel of at most 2^32 static instructions and "
                          "opcode bytes, found more", FILE_LINE(k));
    base_grow(&k->str, &k->str_cap, k->str_len + l->opcode_len + 1, 1);
    s->opcode = (uint32_t)k->str_len;
    s->opcode_len = (uint16_t)l->opcode_len;
    memcpy(k->str + k->str_len, l->opcode, l->opcode_len);
    k->str[k->str_len + l->opcode_len] = 0;
    k->str_len += l->opcode_len + 1;
    base_grow(&k->regs, &k->regs_cap, k->nregs + nr, sizeof *k->regs);
    s->regs = (uint32_t)k->nregs;
    if (nr)
        memcpy(k->regs + k->nregs, l->regs, nr * sizeof *l->regs);
    k->nregs += nr;
    return 0;
}

static int64_t dict_add(trace_kernel *k, const trace_line *l, uint64_t h, size_t slot,
                        base_err *e)
{
    trace_sinst s = {.pc = l->pc, .imm = l->imm, .line_num = l->line_num,
                     .ndst = (uint8_t)l->ndst, .nsrc = (uint8_t)l->nsrc};
    if (decode(k, l, &s, e) || store_text(k, l, &s, e))
        return -1;
    base_grow(&k->sinst, &k->sinst_cap, k->nsinst + 1, sizeof *k->sinst);
    base_grow(&k->shash, &k->shash_cap, k->nsinst + 1, sizeof *k->shash);
    uint32_t idx = (uint32_t)k->nsinst++;
    k->sinst[idx] = s;
    k->shash[idx] = h;
    k->table[slot] = idx + 1;
    if (2 * k->nsinst > k->table_cap)
        table_grow(k);
    return idx;
}

/* A PC nearly always carries the same static instruction, so the entry last found for a PC
 * is tried first: one comparison instead of hashing the opcode text and registers. */
#define MEMO_BITS 12
static inline uint32_t *memo_slot(trace_kernel *k, uint64_t pc)
{
    return &k->memo[(pc >> 4 ^ pc >> (4 + MEMO_BITS)) & ((1u << MEMO_BITS) - 1)];
}

int64_t trace_k_dict_index(trace_kernel *k, const trace_line *l, base_err *e)
{
    if (!k->table) {
        table_grow(k);
        k->memo = base_calloc(1u << MEMO_BITS, sizeof *k->memo);
    }
    uint32_t *m = memo_slot(k, l->pc);
    if (*m && same(k, &k->sinst[*m - 1], l))
        return *m - 1;
    uint64_t h = line_hash(l);
    size_t mask = k->table_cap - 1;
    for (size_t j = h & mask;; j = (j + 1) & mask) {
        uint32_t t = k->table[j];
        if (!t) {
            int64_t idx = dict_add(k, l, h, j, e);
            if (idx >= 0)
                *m = (uint32_t)idx + 1;
            return idx;
        }
        if (k->shash[t - 1] == h && same(k, &k->sinst[t - 1], l)) {
            *m = t;
            return t - 1;
        }
    }
}

/* ---- address records (trace.h, TRACE_A_*) ---- */

static uint64_t *words(trace_cta *c, trace_dinst *d, unsigned kind, size_t n)
{
    if (c->nwords + n > TRACE_A_INDEX)
        return NULL;
    if (c->nwords + n > c->addrs_cap)
        base_grow(&c->addrs, &c->addrs_cap, c->nwords + n, sizeof *c->addrs);
    d->addr = (uint32_t)c->nwords | kind << TRACE_A_SHIFT;
    c->nwords += n;
    return c->addrs + c->nwords - n;
}

int trace_cta_put_stride(trace_cta *c, trace_dinst *d, uint64_t base, int64_t stride, unsigned p)
{
    uint64_t *w = words(c, d, TRACE_A_STRIDE, 2);
    if (!w)
        return -1;
    w[0] = base;
    w[1] = (uint64_t)stride;
    c->naddrs += p;
    return 0;
}

/* The stride from the first two active lanes, if every lane follows it. */
static int is_stride(uint32_t mask, const uint64_t *a, int64_t *stride)
{
    unsigned l0 = (unsigned)__builtin_ctz(mask), l1 = (unsigned)__builtin_ctz(mask & (mask - 1));
    uint64_t d = a[1] - a[0], dl = l1 - l0;
    if ((int64_t)d % (int64_t)dl)
        return 0;
    uint64_t st = (uint64_t)((int64_t)d / (int64_t)dl);
    unsigned q = 0;
    for (uint32_t m = mask; m; m &= m - 1, q++)
        if (a[q] != a[0] + st * ((unsigned)__builtin_ctz(m) - l0))
            return 0;
    *stride = (int64_t)st;
    return 1;
}

static int is_i32(uint64_t d) { return (int64_t)d >= INT32_MIN && (int64_t)d <= INT32_MAX; }

/* All 32 lanes, each half one stride (the same for both) from its first lane; the second
 * half's first lane and the stride within 2 GiB, as the record keeps them. */
static int is_halves(uint32_t mask, const uint64_t *a)
{
    if (mask != UINT32_MAX || !is_i32(a[16] - a[0]) || !is_i32(a[1] - a[0]))
        return 0;
    uint64_t st = a[1] - a[0];
    for (unsigned l = 0; l < 16; l++)
        if (a[l] != a[0] + st * l || a[16 + l] != a[16] + st * l)
            return 0;
    return 1;
}

static int fits_off32(const uint64_t *a, unsigned p)
{
    for (unsigned q = 1; q < p; q++) {
        int64_t o = (int64_t)(a[q] - a[0]);
        if (o < INT32_MIN || o > INT32_MAX)
            return 0;
    }
    return 1;
}

int trace_cta_put_addrs(trace_cta *c, trace_dinst *d, const uint64_t *a, unsigned p)
{
    int64_t stride;
    if (p >= 2 && is_stride(d->mask, a, &stride))
        return trace_cta_put_stride(c, d, a[0], stride, p);
    uint64_t *w;
    if (p == 32 && is_halves(d->mask, a)) {
        if (!(w = words(c, d, TRACE_A_HALVES, 2)))
            return -1;
        w[0] = a[0];
        w[1] = (uint32_t)(a[16] - a[0]) | (uint64_t)(uint32_t)(a[1] - a[0]) << 32;
    } else if (p >= 4 && fits_off32(a, p)) {
        if (!(w = words(c, d, TRACE_A_OFF32, 1 + (p + 1) / 2)))
            return -1;
        w[0] = a[0];
        for (unsigned q = 0; q < p; q++) {
            uint64_t o = (uint32_t)(a[q] - a[0]);
            w[1 + q / 2] = q % 2 ? w[1 + q / 2] | o << 32 : o;
        }
    } else {
        if (!(w = words(c, d, TRACE_A_LIST, p)))
            return -1;
        memcpy(w, a, p * sizeof *a);
    }
    c->naddrs += p;
    return 0;
}

const uint64_t *trace_cta_addrs_slow(const trace_cta *c, const trace_dinst *d, uint64_t *buf)
{
    const uint64_t *w = c->addrs + (d->addr & TRACE_A_INDEX);
    unsigned p = base_popcount32(d->mask);
    if (d->addr >> TRACE_A_SHIFT == TRACE_A_STRIDE) {
        unsigned l0 = d->mask ? (unsigned)__builtin_ctz(d->mask) : 0, q = 0;
        for (uint32_t m = d->mask; m; m &= m - 1)
            buf[q++] = w[0] + w[1] * ((unsigned)__builtin_ctz(m) - l0);
        return buf;
    }
    if (d->addr >> TRACE_A_SHIFT == TRACE_A_HALVES) {
        uint64_t b1 = w[0] + (uint64_t)(int64_t)(int32_t)(uint32_t)w[1];
        uint64_t st = (uint64_t)(int64_t)(int32_t)(uint32_t)(w[1] >> 32);
        for (unsigned l = 0; l < 16; l++) {
            buf[l] = w[0] + st * l;
            buf[16 + l] = b1 + st * l;
        }
        return buf;
    }
    for (unsigned q = 0; q < p; q++)
        buf[q] = w[0] + (uint64_t)(int64_t)(int32_t)(uint32_t)(w[1 + q / 2] >> (32 * (q % 2)));
    return buf;
}

/* ---- thread blocks ---- */

static int add_inst(trace_kernel *k, trace_cta *c, base_err *e)
{
    trace_line *l = &k->tl;
    if (trace_parse_line(&k->fmt, k->line, k->len, l, trace_k_name(k), trace_k_lineno(k),
                         e))
        return -1;
    return trace_k_add_line(k, c, l, e);
}

int trace_k_add_line(trace_kernel *k, trace_cta *c, const trace_line *l, base_err *e)
{
    int64_t sidx = trace_k_dict_index(k, l, e);
    if (sidx < 0)
        return -1;
    if (c->ninsts + 1 >= UINT32_MAX || c->naddrs + l->naddr >= UINT32_MAX)
        return trace_fail(e, "%s:%llu: expected a thread block of fewer than 2^32 instructions "
                          "and addresses, found more", FILE_LINE(k));
    base_grow(&c->insts, &c->insts_cap, c->ninsts + 1, sizeof *c->insts);
    trace_dinst *d = &c->insts[c->ninsts++];
    d->sidx = (uint32_t)sidx;
    d->mask = l->mask;
    d->addr = TRACE_NO_ADDR;
    if (l->naddr && trace_cta_put_addrs(c, d, l->addr, (unsigned)l->naddr))
        return trace_fail(e, "%s:%llu: expected a thread block of fewer than 2^30 words of "
                          "addresses, found more", FILE_LINE(k));
    return 0;
}

/* Whether the line looks like an instruction (first token all hex digits), to tell a short
 * warp or an extra instruction line from other malformed lines. */
static int starts_hex(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    size_t b = i;
    while (i < n && s[i] != ' ' && s[i] != '\t') {
        char ch = s[i++];
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')))
            return 0;
    }
    return i > b;
}

static int short_warp(trace_kernel *k, uint64_t w, uint64_t n, uint64_t i, uint64_t at,
                      int eof, base_err *e)
{
    if (eof)
        return trace_fail(e, "%s:%llu: expected %llu more instruction lines for warp %llu "
                          "('insts = %llu' at line %llu), found the end of the file",
                          FILE_LINE(k), (unsigned long long)(n - i), (unsigned long long)w,
                          (unsigned long long)n, (unsigned long long)at);
    char q[200];
    trace_quote(q, sizeof q, k->line, k->len, 48);
    return trace_fail(e, "%s:%llu: expected instruction line %llu of %llu for warp %llu "
                      "('insts = %llu' at line %llu), found '%s'", FILE_LINE(k),
                      (unsigned long long)(i + 1), (unsigned long long)n, (unsigned long long)w,
                      (unsigned long long)n, (unsigned long long)at, q);
}

static int read_warp(trace_kernel *k, trace_cta *c, uint64_t w, base_err *e)
{
    if (w >= c->nwarps)
        return trace_fail(e, "%s:%llu: expected a warp index below %u (block of %u threads), "
                          "found %llu", FILE_LINE(k), c->nwarps, k->h.threads_per_cta,
                          (unsigned long long)w);
    if (c->warps[w].seen)
        return trace_fail(e, "%s:%llu: expected each warp once per thread block, found warp %llu "
                          "again", FILE_LINE(k), (unsigned long long)w);
    uint64_t n = 0;
    int rc = trace_k_line(k, e);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return trace_fail(e, "%s:%llu: expected 'insts = <n>' after 'warp = %llu', found the end "
                          "of the file", FILE_LINE(k), (unsigned long long)w);
    rc = trace_k_keynum(k, "insts", UINT32_MAX - 1, &n, e);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return trace_fail_found(e, trace_k_name(k), trace_k_lineno(k),
                                "'insts = <n>' after 'warp = <k>'", k->line, k->len);
    uint64_t at = trace_k_lineno(k);
    c->warps[w] = (trace_warp){(uint32_t)c->ninsts, 0, 1};
    c->nwarps_seen++;
    for (uint64_t i = 0; i < n; i++) {
        rc = trace_k_line(k, e);
        if (rc < 0)
            return -1;
        if (rc == 0 || !starts_hex(k->line, k->len))
            return short_warp(k, w, n, i, at, rc == 0, e);
        if (add_inst(k, c, e))
            return -1;
    }
    c->warps[w].n = (uint32_t)n;
    return 0;
}

void trace_k_cta_reset(trace_cta *c, uint64_t index, uint32_t nwarps)
{
    c->index = index;
    c->id[0] = c->id[1] = c->id[2] = 0;
    c->nwarps = nwarps;
    c->nwarps_seen = 0;
    c->ninsts = c->naddrs = c->nwords = 0;
    memset(c->cluster_id, 0, sizeof c->cluster_id);
    memset(c->cluster_cta, 0, sizeof c->cluster_cta);
    c->cluster_rank = 0;
    base_grow(&c->warps, &c->warps_cap, c->nwarps, sizeof *c->warps);
    memset(c->warps, 0, c->nwarps * sizeof *c->warps);
}

/* "<key> = x,y,z" on the current line: 1 if it matched, 0 if the line has another key,
 * -1 on a malformed value. */
static int read_xyz(trace_kernel *k, const char *key, uint32_t out[3], base_err *e)
{
    const char *p = k->line, *end = k->line + k->len;
    size_t i = strlen(key);
    if (k->len < i || memcmp(p, key, i) != 0)
        return 0;
    while (i < k->len && p[i] == ' ')
        i++;
    if (i == k->len || p[i++] != '=')
        return 0;
    for (int d = 0; d < 3; d++) {
        while (p + i < end && p[i] == ' ')
            i++;
        size_t s = i;
        while (p + i < end && p[i] >= '0' && p[i] <= '9')
            i++;
        uint64_t v;
        if (base_parse_u64(p + s, i - s, 10, &v) || v > UINT32_MAX)
            goto bad;
        out[d] = (uint32_t)v;
        if (d < 2 && (p + i == end || p[i++] != ','))
            goto bad;
    }
    while (p + i < end && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (p + i == end)
        return 1;
bad:;
    char what[64];
    snprintf(what, sizeof what, "'%s = x,y,z'", key);
    return trace_fail_found(e, trace_k_name(k), trace_k_lineno(k), what, k->line, k->len);
}

/* "thread block = x,y,z" */
static int read_cta_id(trace_kernel *k, trace_cta *c, base_err *e)
{
    int rc = trace_k_nonblank(k, e);
    if (rc <= 0)
        return rc < 0 ? -1
                      : trace_fail(e, "%s:%llu: expected 'thread block = x,y,z', found the end of "
                                   "the file", FILE_LINE(k));
    rc = read_xyz(k, "thread block", c->id, e);
    if (rc == 0)
        return trace_fail_found(e, trace_k_name(k), trace_k_lineno(k),
                                "'thread block = x,y,z'", k->line, k->len);
    return rc < 0 ? -1 : 0;
}

/* Tracer v6 (Hopper thread-block clusters) adds "cluster id = x,y,z", "cluster cta = x,y,z"
 * and "cluster rank = n" after the thread block line: 1 if the line was one, 0 if not. */
static int read_cluster_line(trace_kernel *k, trace_cta *c, base_err *e)
{
    int rc = read_xyz(k, "cluster id", c->cluster_id, e);
    if (rc == 0)
        rc = read_xyz(k, "cluster cta", c->cluster_cta, e);
    if (rc == 0) {
        uint64_t v = 0; /* set when rc > 0; gcc cannot always see it (PGO builds) */
        rc = trace_k_keynum(k, "cluster rank", UINT32_MAX, &v, e);
        if (rc > 0)
            c->cluster_rank = (uint32_t)v;
    }
    return rc;
}

int trace_k_is_word(const trace_kernel *k, const char *w)
{
    size_t n = strlen(w), len = k->len;
    while (len > n && (k->line[len - 1] == ' ' || k->line[len - 1] == '\t'))
        len--;
    return len == n && memcmp(k->line, w, n) == 0;
}

static int read_warps(trace_kernel *k, trace_cta *c, base_err *e)
{
    for (;;) {
        int rc = trace_k_nonblank(k, e);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return trace_fail(e, "%s:%llu: expected '#END_TB' closing the thread block of line "
                              "%llu, found the end of the file", FILE_LINE(k),
                              (unsigned long long)c->line);
        if (trace_k_is_word(k, "#END_TB"))
            return 0;
        rc = read_cluster_line(k, c, e);
        if (rc != 0) {
            if (rc < 0)
                return -1;
            continue;
        }
        uint64_t w = 0;
        rc = trace_k_keynum(k, "warp", UINT32_MAX, &w, e);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return trace_fail_found(e, trace_k_name(k), trace_k_lineno(k),
                                    starts_hex(k->line, k->len)
                                        ? "'warp = <k>' or '#END_TB' (more lines than 'insts = n'?)"
                                        : "'warp = <k>' or '#END_TB'",
                                    k->line, k->len);
        if (read_warp(k, c, w, e))
            return -1;
    }
}

int trace_k_begin_cta(trace_kernel *k, base_err *e)
{
    if (k->done)
        return 0;
    int rc = trace_k_nonblank(k, e);
    if (rc <= 0) {
        k->done = rc == 0;
        return rc;
    }
    if (!trace_k_is_word(k, "#BEGIN_TB"))
        return trace_fail_found(e, trace_k_name(k), trace_k_lineno(k), "'#BEGIN_TB'",
                                k->line, k->len);
    if (k->ctas >= k->h.ctas_in_grid)
        return trace_fail(e, "%s:%llu: expected at most %llu thread blocks (the grid), found "
                          "another", FILE_LINE(k), (unsigned long long)k->h.ctas_in_grid);
    return 1;
}

/* ---- kernels built from lines (write.h) ---- */

int trace_lines_warp(trace_kernel *k, trace_cta *c, uint32_t w, base_err *e)
{
    if (w >= c->nwarps || c->warps[w].seen)
        return trace_fail(e, "%s: expected a warp index below %u, once per thread block, "
                          "found %u%s", trace_k_name(k), c->nwarps, w,
                          w < c->nwarps ? " again" : "");
    c->warps[w] = (trace_warp){(uint32_t)c->ninsts, 0, 1};
    c->nwarps_seen++;
    return 0;
}

/* The line the text of l reads back as (trace_format_line, then trace_parse_line). */
static void line_of_wline(const trace_wline *w, trace_line *l)
{
    l->line_num = 0;
    l->pc = w->pc;
    l->mask = w->mask;
    l->opcode = w->opcode;
    l->opcode_len = strlen(w->opcode);
    l->ndst = w->ndst;
    l->nsrc = w->nsrc;
    base_grow(&l->regs, &l->regs_cap, 1 + 5, sizeof *l->regs);
    if (w->ndst)
        l->regs[0] = w->dst;
    for (unsigned i = 0; i < w->nsrc; i++)
        l->regs[w->ndst + i] = w->src[i];
    l->mem_width = w->width;
    l->addr_mode = w->width ? (w->mask ? 2 : 1) : -1;
    l->naddr = 0;
    if (w->width)
        for (unsigned i = 0; i < 32; i++)
            if (w->mask >> i & 1)
                l->addr[l->naddr++] = w->addr[i];
    l->imm = (int32_t)(uint32_t)w->imm;
    l->imm2 = 0;
    l->nvals = 0;
}

int trace_lines_inst(trace_kernel *k, trace_cta *c, uint32_t w, const trace_wline *l,
                     base_err *e)
{
    line_of_wline(l, &k->tl);
    if (trace_k_add_line(k, c, &k->tl, e))
        return -1;
    c->warps[w].n++;
    return 0;
}

static int lines_next_cta(trace_kernel *k, trace_cta *c, base_err *e)
{
    if (k->done)
        return 0;
    trace_k_cta_reset(c, k->ctas, k->h.warps_per_cta);
    int rc = k->lines.next_cta(k->lines.ctx, k, c, e);
    if (rc == 1 && k->ctas >= k->h.ctas_in_grid)
        rc = trace_fail(e, "%s: expected at most %llu thread blocks (the grid), found another",
                        trace_k_name(k), (unsigned long long)k->h.ctas_in_grid);
    if (rc <= 0) {
        k->done = 1;
        return rc;
    }
    k->ctas++;
    return 1;
}

int trace_next_cta(trace_kernel *k, trace_cta *c, base_err *e)
{
    if (k->nat)
        return trace_nat_next_cta(k, c, e);
    if (k->lines.next_cta)
        return lines_next_cta(k, c, e);
    int rc = trace_k_begin_cta(k, e);
    if (rc <= 0)
        return rc;
    trace_k_cta_reset(c, k->ctas, k->h.warps_per_cta);
    c->line = trace_k_lineno(k);
    if (read_cta_id(k, c, e) || read_warps(k, c, e)) {
        k->done = 1;  /* no resynchronising after malformed input */
        return -1;
    }
    k->ctas++;
    return 1;
}

/* A buffer grown by doubling holds up to twice what it needs. It moves to a block of its
 * size, so that the whole grown block, not just its tail, serves the next CTA's growth (a
 * tail shrunk in place left holes too small for it). */
static void fit(void *pp, size_t *cap, size_t need, size_t elem)
{
    void **p = pp;
    if (!*p || need < 8 || *cap - need <= *cap / 8)
        return;
    void *q = base_malloc(need * elem);
    memcpy(q, *p, need * elem);
    free(*p);
    *p = q;
    *cap = need;
}

void trace_cta_fit(trace_cta *c)
{
    fit(&c->insts, &c->insts_cap, c->ninsts, sizeof *c->insts);
    fit(&c->addrs, &c->addrs_cap, c->nwords, sizeof *c->addrs);
}

void trace_cta_free(trace_cta *c)
{
    free(c->warps);
    free(c->insts);
    free(c->addrs);
    memset(c, 0, sizeof *c);
}
