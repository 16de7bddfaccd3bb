/* Native trace writer (docs/NATIVE.md). Two passes over the source kernel (text or native,
 * through trace_kernel_open): the first builds the dictionary and learns which static
 * instructions carry addresses; the second codes every CTA against the predictions the
 * reader will make and cuts the stream into zstd blocks. */
#include "trace_int.h"
#include "trace_native.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "../base/wr.h"

/* ---- byte buffer ---- */

typedef struct obuf {
    uint8_t *s;
    size_t len, cap;
} obuf;

static inline void ob_need(obuf *b, size_t n)
{
    if (b->len + n > b->cap)
        base_grow(&b->s, &b->cap, b->len + n, 1);
}

static inline void ob_var(obuf *b, uint64_t v)
{
    ob_need(b, 10);
    while (v >= 0x80) {
        b->s[b->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->s[b->len++] = (uint8_t)v;
}

static void ob_put(obuf *b, const void *p, size_t n)
{
    ob_need(b, n);
    if (n)
        memcpy(b->s + b->len, p, n);
    b->len += n;
}

static void ob_str(obuf *b, const char *s)
{
    ob_var(b, strlen(s));
    ob_put(b, s, strlen(s));
}

/* ---- pass 1: dictionary and address flags ---- */

typedef struct scan {
    trace_header h;          /* name and nvbit_version owned */
    uint64_t nctas, insts, max_insts, max_addrs;
    uint32_t ns;
    uint8_t *seen;           /* per sidx: 1 with addresses, 2 active without */
    size_t seen_cap;
    uint8_t *aflag;
    uint16_t *width;
    obuf dict;
} scan;

static void scan_cta(scan *sc, const trace_kernel *k, const trace_cta *c)
{
    size_t ns = trace_kernel_nsinst(k);
    if (ns > sc->seen_cap) {
        size_t old = sc->seen_cap;
        base_grow(&sc->seen, &sc->seen_cap, ns, 1);
        memset(sc->seen + old, 0, sc->seen_cap - old);
    }
    for (size_t i = 0; i < c->ninsts; i++) {
        const trace_dinst *d = &c->insts[i];
        if (d->mask)
            sc->seen[d->sidx] |= d->addr != TRACE_NO_ADDR ? 1 : 2;
    }
    sc->nctas++;
    sc->insts += c->ninsts;
    sc->max_insts = c->ninsts > sc->max_insts ? c->ninsts : sc->max_insts;
    sc->max_addrs = c->naddrs > sc->max_addrs ? c->naddrs : sc->max_addrs;
}

/* The dictionary in columns (docs/NATIVE.md): PC deltas, immediates, line deltas, opcode
 * references (0: the next new opcode text, r: distinct opcode r - 1), the new texts,
 * register counts, registers, address flags. */
enum { COL_PC, COL_IMM, COL_LINE, COL_OPREF, COL_OPTEXT, COL_NREGS, COL_REGS, COL_AFLAG, NCOL };

typedef struct optab {
    const trace_kernel *k;
    const trace_sinst **distinct;
    uint32_t n, *slot, mask;  /* open addressing: distinct index + 1, 0 = empty */
} optab;

static uint64_t text_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* 0 when s's opcode text is new (then remembered), else its distinct index + 1. */
static uint32_t opcode_ref(optab *t, const trace_sinst *s)
{
    const char *op = trace_sinst_opcode(t->k, s);
    for (uint32_t j = (uint32_t)text_hash(op, s->opcode_len) & t->mask;; j = (j + 1) & t->mask) {
        uint32_t v = t->slot[j];
        if (!v) {
            t->slot[j] = t->n + 1;
            t->distinct[t->n++] = s;
            return 0;
        }
        const trace_sinst *d = t->distinct[v - 1];
        if (d->opcode_len == s->opcode_len &&
            memcmp(trace_sinst_opcode(t->k, d), op, s->opcode_len) == 0)
            return v;
    }
}

static void put_dict(scan *sc, const trace_kernel *k)
{
    obuf col[NCOL] = {{0}};
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)sc->ns)
        cap *= 2;
    optab t = {k, base_malloc(((size_t)sc->ns + 1) * sizeof *t.distinct), 0,
               base_calloc(cap, sizeof *t.slot), cap - 1};
    uint64_t pc = 0, line = 0;
    for (uint32_t i = 0; i < sc->ns; i++) {
        const trace_sinst *s = trace_kernel_sinst(k, i);
        ob_var(&col[COL_PC], trace_nat_zz((int64_t)(s->pc - pc)));
        ob_var(&col[COL_IMM], trace_nat_zz(s->imm));
        ob_var(&col[COL_LINE], trace_nat_zz((int64_t)(s->line_num - line)));
        pc = s->pc;
        line = s->line_num;
        uint32_t ref = opcode_ref(&t, s);
        ob_var(&col[COL_OPREF], ref);
        if (!ref) {
            ob_var(&col[COL_OPTEXT], s->opcode_len);
            ob_put(&col[COL_OPTEXT], trace_sinst_opcode(k, s), s->opcode_len);
        }
        ob_var(&col[COL_NREGS], s->ndst);
        ob_var(&col[COL_NREGS], s->nsrc);
        const uint16_t *r = trace_sinst_regs(k, s);
        for (unsigned j = 0; j < (unsigned)s->ndst + s->nsrc; j++) {
            uint8_t v = (uint8_t)r[j];  /* registers are R0..R255 */
            ob_put(&col[COL_REGS], &v, 1);
        }
        ob_put(&col[COL_AFLAG], &sc->aflag[i], 1);
    }
    for (int c = 0; c < NCOL; c++) {
        ob_put(&sc->dict, col[c].s, col[c].len);
        free(col[c].s);
    }
    free(t.distinct);
    free(t.slot);
}

static void scan_finish(scan *sc, const trace_kernel *k)
{
    const trace_header *h = trace_kernel_header(k);
    sc->h = *h;
    sc->h.name = base_strdup(h->name);
    sc->h.nvbit_version = base_strdup(h->nvbit_version);
    sc->ns = (uint32_t)trace_kernel_nsinst(k);
    sc->aflag = base_calloc((size_t)sc->ns + 1, 1);
    sc->width = base_calloc((size_t)sc->ns + 1, sizeof *sc->width);
    for (uint32_t i = 0; i < sc->ns; i++) {
        uint8_t seen = i < sc->seen_cap ? sc->seen[i] : 0;
        sc->aflag[i] = seen == 1 ? TRACE_NAT_AALWAYS : seen == 3 ? TRACE_NAT_AVARIES
                                                                 : TRACE_NAT_ANEVER;
        sc->width[i] = trace_kernel_sinst(k, i)->width;
    }
    put_dict(sc, k);
}

static int scan_kernel(const char *src, scan *sc, base_err *e)
{
    trace_kernel *k = trace_kernel_open(src, e);
    if (!k)
        return -1;
    trace_cta c = {0};
    int rc;
    while ((rc = trace_next_cta(k, &c, e)) == 1)
        scan_cta(sc, k, &c);
    if (rc == 0)
        scan_finish(sc, k);
    trace_cta_free(&c);
    trace_kernel_close(k);
    return rc;
}

static void scan_free(scan *sc)
{
    free(sc->h.name);
    free(sc->h.nvbit_version);
    free(sc->seen);
    free(sc->aflag);
    free(sc->width);
    free(sc->dict.s);
}

/* ---- pass 2: CTAs into blocks ---- */

typedef struct enc {
    const scan *sc;
    trace_nat_pred pred;
    obuf raw, packed, index;
    uint64_t nblocks, first_cta, first_line, prev_line, ctas, cta_next;
    uint32_t *order;
    trace_dinst *lastw;   /* the last warp coded in this block */
    size_t lastw_cap, lastw_n;
    int lastw_ok;
    FILE *f;
    uint64_t off, max_raw, max_comp;
    ZSTD_CCtx *cctx;
    int level;
    uint64_t target;      /* raw bytes per block */
    const char *path;
} enc;

static void enc_sidx(enc *x, const trace_dinst *d, uint32_t cnt)
{
    uint32_t *succ = x->pred.succ, prev = x->pred.ns;
    for (uint32_t i = 0; i < cnt;) {
        uint32_t j = i;
        while (j < cnt && succ[prev] == d[j].sidx)
            prev = d[j++].sidx;
        ob_var(&x->raw, j - i);
        i = j;
        if (i == cnt)
            break;
        uint32_t s = d[i++].sidx;
        ob_var(&x->raw, trace_nat_zz((int64_t)s - (int64_t)succ[prev]));
        succ[prev] = s;
        prev = s;
    }
}

static void enc_masks(enc *x, const trace_dinst *d, uint32_t cnt)
{
    uint32_t *last = x->pred.mask;
    for (uint32_t i = 0; i < cnt;) {
        uint32_t j = i;
        while (j < cnt && last[d[j].sidx] == d[j].mask)
            j++;
        ob_var(&x->raw, j - i);
        i = j;
        if (i == cnt)
            break;
        uint32_t m = d[i].mask, pm = i ? d[i - 1].mask : UINT32_MAX;
        ob_var(&x->raw, m == pm ? 0 : (uint64_t)m + 1);
        last[d[i++].sidx] = m;
    }
}

/* One stride over lane numbers that gives every active lane's address. */
static int lane_stride(uint32_t mask, const uint64_t *a, int64_t *stride)
{
    unsigned l0 = (unsigned)__builtin_ctz(mask);
    unsigned l1 = (unsigned)__builtin_ctz(mask & (mask - 1));
    int64_t d = (int64_t)(a[1] - a[0]), k = (int64_t)(l1 - l0);
    if (d % k != 0)
        return 0;
    int64_t st = d / k;
    unsigned q = 0;
    for (uint32_t m = mask; m; m &= m - 1, q++)
        if (a[q] != a[0] + (uint64_t)st * ((unsigned)__builtin_ctz(m) - l0))
            return 0;
    *stride = st;
    return 1;
}

static unsigned var_len(uint64_t v)
{
    unsigned n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Bytes of the delta coding, and the packed coding's lowest address and spec (shift * 8 +
 * width - 1) with its size. */
typedef struct acost {
    uint64_t deltas, packed, min;
    unsigned spec;
} acost;

static void addr_costs(const uint64_t *a, unsigned p, acost *k)
{
    uint64_t lo = a[0], bits = 0, hi = 0;
    k->deltas = 0;
    for (unsigned q = 1; q < p; q++) {
        k->deltas += var_len(trace_nat_zz((int64_t)(a[q] - a[q - 1])));
        lo = a[q] < lo ? a[q] : lo;
    }
    for (unsigned q = 0; q < p; q++)
        bits |= a[q] - lo;
    unsigned shift = bits ? (unsigned)__builtin_ctzll(bits) : 0, width = 1;
    for (unsigned q = 0; q < p; q++)
        hi = (a[q] - lo) >> shift > hi ? (a[q] - lo) >> shift : hi;
    while (width < 8 && hi >> (8 * width))
        width++;
    k->min = lo;
    k->spec = shift * 8 + width - 1;
    k->packed = var_len(k->spec) + (uint64_t)p * width;
}

static void put_packed(enc *x, const uint64_t *a, unsigned p, const acost *k)
{
    unsigned shift = k->spec >> 3, width = (k->spec & 7) + 1;
    ob_var(&x->raw, k->spec);
    ob_need(&x->raw, (size_t)p * width);
    for (unsigned q = 0; q < p; q++) {
        uint64_t v = (a[q] - k->min) >> shift;
        for (unsigned b = 0; b < width; b++)
            x->raw.s[x->raw.len++] = (uint8_t)(v >> (8 * b));
    }
}

static int same_pattern(const trace_nat_pred *pr, uint32_t s, const uint64_t *a, unsigned p)
{
    const uint64_t *pat = trace_nat_pattern(pr, s);
    if (!pat || pat[0] != p)
        return 0;
    for (unsigned q = 0; q < p; q++)
        if (a[q] - a[0] != pat[1 + q])
            return 0;
    return 1;
}

/* The mode token for p >= 2 lanes (and the packed coding's figures in k). */
static uint64_t addr_mode(enc *x, uint32_t s, uint32_t mask, const uint64_t *a, unsigned p,
                          acost *k)
{
    int64_t st = 0;
    if (lane_stride(mask, a, &st)) {
        uint64_t t = st == x->pred.stride[s] ? TRACE_NAT_SAME_STRIDE
                                             : TRACE_NAT_STRIDE + trace_nat_zz(st);
        x->pred.stride[s] = st;
        return t;
    }
    if (same_pattern(&x->pred, s, a, p))
        return TRACE_NAT_PATTERN;
    addr_costs(a, p, k);
    trace_nat_pattern_set(&x->pred, s, a, p);
    return k->packed + 8 < k->deltas ? TRACE_NAT_PACKED : TRACE_NAT_DELTAS;
}

static void enc_addr(enc *x, uint32_t s, uint32_t mask, const uint64_t *a)
{
    unsigned p = base_popcount32(mask);
    acost k = {0, 0, a[0], 0};
    uint64_t t = p >= 2 ? addr_mode(x, s, mask, a, p, &k) : TRACE_NAT_SAME_STRIDE;
    uint64_t base = t == TRACE_NAT_PACKED ? k.min : a[0];
    if (p >= 2)
        ob_var(&x->raw, t);
    ob_var(&x->raw, trace_nat_zz((int64_t)(base - x->pred.base[s])));
    x->pred.base[s] = base;
    if (t == TRACE_NAT_PACKED)
        put_packed(x, a, p, &k);
    else if (t == TRACE_NAT_DELTAS)
        for (unsigned q = 1; q < p; q++)
            ob_var(&x->raw, trace_nat_zz((int64_t)(a[q] - a[q - 1])));
}

static void enc_addrs(enc *x, const trace_cta *c, const trace_dinst *d, uint32_t cnt)
{
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t s = d[i].sidx;
        int has = d[i].addr != TRACE_NO_ADDR;
        if (x->sc->aflag[s] == TRACE_NAT_AVARIES)
            ob_var(&x->raw, (uint64_t)has);
        uint64_t buf[32];
        if (has)
            enc_addr(x, s, d[i].mask, trace_cta_addrs(c, &d[i], buf));
    }
}

static int same_field(const trace_dinst *a, const trace_dinst *b, uint32_t n, int mask)
{
    for (uint32_t i = 0; i < n; i++)
        if (mask ? a[i].mask != b[i].mask : a[i].sidx != b[i].sidx)
            return 0;
    return 1;
}

/* has_prev, pd, pn: the previously coded warp of this block (none at its start). */
static void enc_warp(enc *x, const trace_cta *c, uint32_t w, int has_prev, const trace_dinst *pd,
                     uint64_t pn)
{
    const trace_warp *tw = &c->warps[w];
    const trace_dinst *d = tw->n ? c->insts + tw->first : NULL;
    if (!has_prev || pn != tw->n)
        pd = NULL, has_prev = 0;
    uint64_t h = (uint64_t)tw->n << 2;
    if (has_prev && same_field(d, pd, tw->n, 0))
        h |= TRACE_NAT_W_SIDX;
    if (has_prev && same_field(d, pd, tw->n, 1))
        h |= TRACE_NAT_W_MASK;
    ob_var(&x->raw, h);
    if (!tw->n)
        return;
    if (!(h & TRACE_NAT_W_SIDX))
        enc_sidx(x, d, tw->n);
    if (!(h & TRACE_NAT_W_MASK))
        enc_masks(x, d, tw->n);
    enc_addrs(x, c, d, tw->n);
}

static uint64_t cta_flags(const enc *x, const trace_cta *c, uint32_t nseen)
{
    uint64_t fl = 0;
    for (int i = 0; i < 3; i++)
        if (c->id[i] != x->pred.id[i])
            fl |= TRACE_NAT_C_ID;
    if (c->cluster_rank || c->cluster_id[0] || c->cluster_id[1] || c->cluster_id[2] ||
        c->cluster_cta[0] || c->cluster_cta[1] || c->cluster_cta[2])
        fl |= TRACE_NAT_C_CLUSTER;
    int identity = nseen == c->nwarps;
    for (uint32_t i = 0; i < nseen && identity; i++)
        identity = x->order[i] == i;
    if (!identity)
        fl |= TRACE_NAT_C_ORDER;
    if (c->line != x->pred.line)
        fl |= TRACE_NAT_C_LINE;
    return fl;
}

static void enc_cta(enc *x, const trace_cta *c)
{
    uint32_t nseen = trace_nat_warp_order(c, x->order);
    uint64_t fl = cta_flags(x, c, nseen);
    ob_var(&x->raw, fl);
    if (fl & TRACE_NAT_C_ID)
        for (int i = 0; i < 3; i++)
            ob_var(&x->raw, c->id[i]);
    if (fl & TRACE_NAT_C_CLUSTER) {
        for (int i = 0; i < 3; i++)
            ob_var(&x->raw, c->cluster_id[i]);
        for (int i = 0; i < 3; i++)
            ob_var(&x->raw, c->cluster_cta[i]);
        ob_var(&x->raw, c->cluster_rank);
    }
    if (fl & TRACE_NAT_C_LINE)
        ob_var(&x->raw, trace_nat_zz((int64_t)(c->line - x->pred.line)));
    if (fl & TRACE_NAT_C_ORDER) {
        ob_var(&x->raw, nseen);
        for (uint32_t i = 0; i < nseen; i++)
            ob_var(&x->raw, x->order[i]);
    }
    for (uint32_t i = 0; i < nseen; i++) {
        const trace_warp *p = i ? &c->warps[x->order[i - 1]] : NULL;
        if (p)
            enc_warp(x, c, x->order[i], 1, p->n ? c->insts + p->first : NULL, p->n);
        else
            enc_warp(x, c, x->order[i], x->lastw_ok, x->lastw, x->lastw_n);
    }
    if (nseen) {
        const trace_warp *w = &c->warps[x->order[nseen - 1]];
        base_grow(&x->lastw, &x->lastw_cap, (size_t)w->n + 1, sizeof *x->lastw);
        if (w->n)
            memcpy(x->lastw, c->insts + w->first, w->n * sizeof *x->lastw);
        x->lastw_n = w->n;
        x->lastw_ok = 1;
    }
    trace_nat_pred_next_cta(&x->pred, &x->sc->h, c);
}

/* zstd at x->level when that is smaller, else stored: *method and the bytes to write. */
static const uint8_t *pack(enc *x, const uint8_t *p, size_t n, uint32_t *method, size_t *out,
                           base_err *e)
{
    *method = TRACE_NAT_RAW;
    *out = n;
    if (x->level == 0 || n == 0)
        return p;
    x->packed.len = 0;
    ob_need(&x->packed, ZSTD_compressBound(n));
    size_t r = ZSTD_compress2(x->cctx, x->packed.s, x->packed.cap, p, n);
    if (ZSTD_isError(r)) {
        trace_fail(e, "%s: zstd: %s", x->path, ZSTD_getErrorName(r));
        return NULL;
    }
    if (r >= n)
        return p;
    *method = TRACE_NAT_ZSTD;
    *out = r;
    return x->packed.s;
}

static int put_file(enc *x, const void *p, size_t n, base_err *e)
{
    if (n && fwrite(p, 1, n, x->f) != n)
        return trace_fail(e, "%s: cannot write", x->path);
    x->off += n;
    return 0;
}

static int flush_block(enc *x, base_err *e)
{
    if (x->ctas == 0)
        return 0;
    if (x->raw.len > TRACE_NAT_MAX_RAW)
        return trace_fail(e, "%s: CTA %llu needs more than %llu bytes (the native format's "
                          "limit per block)", x->path, (unsigned long long)x->first_cta,
                          (unsigned long long)TRACE_NAT_MAX_RAW);
    uint32_t method;
    size_t n;
    const uint8_t *p = pack(x, x->raw.s, x->raw.len, &method, &n, e);
    if (!p)
        return -1;
    ob_var(&x->index, n);
    ob_var(&x->index, x->raw.len);
    ob_var(&x->index, x->ctas);
    ob_var(&x->index, method);
    ob_var(&x->index, trace_nat_zz((int64_t)(x->first_line - x->prev_line)));
    uint8_t crc[4];
    trace_nat_put32(crc, trace_nat_crc(0, p, n));
    ob_put(&x->index, crc, 4);
    x->prev_line = x->first_line;
    x->nblocks++;
    x->max_raw = x->raw.len > x->max_raw ? x->raw.len : x->max_raw;
    x->max_comp = n > x->max_comp ? n : x->max_comp;
    x->raw.len = 0;
    x->ctas = 0;
    return put_file(x, p, n, e);
}

static int encode_ctas(enc *x, const char *src, base_err *e)
{
    trace_kernel *k = trace_kernel_open(src, e);
    if (!k)
        return -1;
    trace_cta c = {0};
    int rc;
    while ((rc = trace_next_cta(k, &c, e)) == 1) {
        if (x->ctas == 0) {
            x->first_cta = c.index;
            x->first_line = c.line;
            trace_nat_pred_reset(&x->pred, x->sc->width, &x->sc->h, c.index, c.line);
            x->lastw_ok = 0;
        }
        enc_cta(x, &c);
        x->ctas++;
        x->cta_next++;
        if (x->raw.len >= x->target && flush_block(x, e))
            rc = -1;
        if (rc < 0)
            break;
    }
    if (rc == 0 && (x->cta_next != x->sc->nctas || trace_kernel_nsinst(k) != x->sc->ns))
        rc = trace_fail(e, "%s: changed while it was converted", src);
    trace_cta_free(&c);
    trace_kernel_close(k);
    return rc ? -1 : flush_block(x, e);
}

/* ---- sections, footer, header ---- */

static void put_meta(obuf *b, const enc *x)
{
    const trace_header *h = &x->sc->h;
    ob_str(b, h->name);
    ob_var(b, trace_nat_zz(h->kernel_id));
    for (int i = 0; i < 3; i++)
        ob_var(b, h->grid[i]);
    for (int i = 0; i < 3; i++)
        ob_var(b, h->block[i]);
    ob_var(b, h->shmem);
    ob_var(b, h->nregs);
    ob_var(b, (uint64_t)h->binary_version);
    ob_var(b, h->stream_id);
    ob_var(b, h->shmem_base);
    ob_var(b, h->local_base);
    ob_str(b, h->nvbit_version);
    ob_var(b, (uint64_t)h->tracer_version);
    ob_var(b, (uint64_t)h->lineinfo);
    ob_var(b, x->sc->nctas);
    ob_var(b, x->nblocks);
    ob_var(b, x->sc->ns);
    ob_var(b, x->sc->max_insts);
    ob_var(b, x->sc->max_addrs);
    ob_var(b, x->max_raw);
    ob_var(b, x->max_comp);
}

/* The tail (meta, dictionary, index) and the footer. */
static int finish(enc *x, base_err *e)
{
    obuf tail = {0};
    put_meta(&tail, x);
    ob_put(&tail, x->sc->dict.s, x->sc->dict.len);
    ob_put(&tail, x->index.s, x->index.len);

    uint32_t method;
    size_t n;
    const uint8_t *p = pack(x, tail.s, tail.len, &method, &n, e);
    int rc = -1;
    if (p && tail.len > UINT32_MAX)
        trace_fail(e, "%s: dictionary and index larger than 4 GiB", x->path);
    else if (p) {
        uint8_t f[TRACE_NAT_FOOTER];
        trace_nat_put32(f, (uint32_t)n);
        trace_nat_put32(f + 4, (uint32_t)tail.len);
        trace_nat_put32(f + 8, method);
        trace_nat_put32(f + 12, trace_nat_crc(trace_nat_crc(0, p, n), f, 12));
        memcpy(f + 16, TRACE_NAT_END_MAGIC, 4);
        rc = put_file(x, p, n, e) || put_file(x, f, sizeof f, e) ? -1 : 0;
    }
    free(tail.s);
    return rc;
}

static int write_file(enc *x, const char *src, base_err *e)
{
    uint8_t h[TRACE_NAT_HEADER];
    memcpy(h, TRACE_NAT_MAGIC, 7);
    h[7] = TRACE_NAT_VERSION;
    return put_file(x, h, sizeof h, e) || encode_ctas(x, src, e) || finish(x, e) ? -1 : 0;
}

static void enc_init(enc *x, const scan *sc, int level, uint64_t target, const char *path)
{
    memset(x, 0, sizeof *x);
    x->sc = sc;
    x->level = level;
    x->target = target ? target : TRACE_NAT_BLOCK_TARGET;
    x->path = path;
    trace_nat_pred_init(&x->pred, sc->ns);
    x->order = base_malloc(((size_t)sc->h.warps_per_cta + 1) * sizeof *x->order);
    x->cctx = ZSTD_createCCtx();
    if (level > 0)
        ZSTD_CCtx_setParameter(x->cctx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(x->cctx, ZSTD_c_contentSizeFlag, 1);
    ZSTD_CCtx_setParameter(x->cctx, ZSTD_c_checksumFlag, 0);
}

static void enc_free(enc *x)
{
    trace_nat_pred_free(&x->pred);
    free(x->raw.s);
    free(x->packed.s);
    free(x->index.s);
    free(x->order);
    free(x->lastw);
    ZSTD_freeCCtx(x->cctx);
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static int write_kernel(const char *src, const char *dst, const char *tmp, int level,
                        uint64_t target, trace_convert_summary *s, base_err *e)
{
    scan sc = {0};
    enc x;
    if (scan_kernel(src, &sc, e)) {
        scan_free(&sc);
        return -1;
    }
    enc_init(&x, &sc, level, target, tmp);
    x.f = fopen(tmp, "wb");
    int rc = x.f ? write_file(&x, src, e) : trace_fail(e, "%s: cannot create", tmp);
    if (x.f && fclose(x.f) != 0 && rc == 0)
        rc = trace_fail(e, "%s: cannot write", tmp);
    if (rc == 0 && rename(tmp, dst) != 0)
        rc = trace_fail(e, "%s: cannot rename into place", dst);
    if (rc == 0 && s) {
        s->kernels++;
        s->ctas += sc.nctas;
        s->warp_insts += sc.insts;
        s->in_bytes += file_size(src);
        s->out_bytes += x.off;
    }
    enc_free(&x);
    scan_free(&sc);
    return rc;
}

int trace_nat_write(const char *src, const char *dst, int level, uint64_t block_target,
                    trace_convert_summary *s, base_err *e)
{
    if (level < 0 || level > ZSTD_maxCLevel())
        return trace_fail(e, "native trace: expected a zstd level 0..%d, found %d",
                          ZSTD_maxCLevel(), level);
    char *tmp = base_sprintf("%s.tmp.%ld", dst, (long)getpid());
    int rc = write_kernel(src, dst, tmp, level, block_target, s, e);
    if (rc)
        remove(tmp);
    free(tmp);
    return rc;
}

int trace_native_write_kernel(const char *src, const char *dst, int level,
                              trace_convert_summary *s, base_err *e)
{
    return trace_nat_write(src, dst, level, 0, s, e);
}
