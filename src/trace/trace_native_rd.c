/* Native trace reader, the container (docs/NATIVE.md): at open, the header, the footer, the
 * tail's checksum, then the meta section, the dictionary and the index, each field checked
 * against a limit before it sizes anything. The CTAs are decoded by trace_native_dec.c.
 * Every problem is one line "FILE: byte offset N: expected X". */
#include "trace_kint.h"
#include "trace_int.h"
#include "trace_native.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../isa/isa.h"

/* ---- errors, input, varints, sections ---- */

int trace_nat_fail_at(const struct trace_native *n, uint64_t off, base_err *e, const char *fmt,
                      ...)
{
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return trace_fail(e, "%s: byte offset %llu: expected %s", n->name, (unsigned long long)off,
                      what);
}

#define FAIL trace_nat_fail_at

int trace_nat_read(struct trace_native *n, uint64_t off, uint64_t len, uint8_t *buf,
                   const uint8_t **out, base_err *e)
{
    if (off > n->size || len > n->size - off)
        return FAIL(n, off, e, "%llu more bytes, found the end of the file at %llu",
                    (unsigned long long)len, (unsigned long long)n->size);
    n->bytes += len;
    if (n->mem) {
        *out = n->mem + off;
        return 0;
    }
    for (uint64_t got = 0; got < len;) {
        ssize_t r = pread(n->fd, buf + got, (size_t)(len - got), (off_t)(off + got));
        if (r <= 0)
            return FAIL(n, off + got, e, "readable data, found %s",
                        r < 0 ? strerror(errno) : "the end of the file");
        got += (uint64_t)r;
    }
    *out = buf;
    return 0;
}

uint64_t trace_nat_var_slow(trace_nat_cur *c)
{
    uint64_t v = 0;
    const uint8_t *p = c->p;
    for (int sh = 0; sh < 64; sh += 7) {
        if (p == c->end || (sh == 63 && *p > 1))
            break;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) {
            c->p = p;
            return v;
        }
    }
    if (!c->bad)
        c->bad = p;
    c->p = c->end;
    return 0;
}

int trace_nat_var_max(trace_nat_cur *c, uint64_t max, uint64_t *v)
{
    const uint8_t *at = c->p;
    *v = trace_nat_var(c);
    if (*v > max && !c->bad)
        c->bad = at;
    return c->bad ? -1 : 0;
}

int trace_nat_unpack(struct trace_native *n, const uint8_t *src, uint64_t csize, uint64_t rsize,
                     uint32_t method, uint64_t cap, uint64_t at, const uint8_t **out,
                     base_err *e)
{
    if (method == TRACE_NAT_RAW) {
        if (csize != rsize)
            return FAIL(n, at, e, "a stored size equal to the decoded size %llu, found %llu",
                        (unsigned long long)rsize, (unsigned long long)csize);
        *out = src;
        return 0;
    }
    if (method != TRACE_NAT_ZSTD)
        return FAIL(n, at, e, "compression method 0 or 1, found %u", method);
    if (rsize > cap)
        return FAIL(n, at, e, "a decoded size <= %llu, found %llu", (unsigned long long)cap,
                    (unsigned long long)rsize);
    unsigned long long fs = ZSTD_getFrameContentSize(src, (size_t)csize);
    if (fs != rsize)
        return FAIL(n, at, e, "a zstd frame of %llu bytes", (unsigned long long)rsize);
    if (!n->dctx && !(n->dctx = ZSTD_createDCtx()))
        base_panic("out of memory (zstd context)");
    size_t r = ZSTD_decompressDCtx(n->dctx, n->rbuf, (size_t)rsize, src, (size_t)csize);
    if (ZSTD_isError(r) || r != rsize)
        return FAIL(n, at, e, "a valid zstd frame (%s)",
                    ZSTD_isError(r) ? ZSTD_getErrorName(r) : "short");
    *out = n->rbuf;
    return 0;
}

/* The zstd context (96 KB) goes once the reader has unpacked its last block: a small run's
 * later allocations then reuse it, where held to the end it took the heap of such a run into
 * one more huge page (session 72). A seek back makes a new one; making one costs two CPUID
 * instructions (zstd's BMI2 check), 25 us in a virtual machine, so not one per frame. */
void trace_nat_drop_dctx(struct trace_native *n)
{
    ZSTD_freeDCtx(n->dctx);
    n->dctx = NULL;
}

#define VAR trace_nat_var
#define VMAX trace_nat_var_max

/* ---- meta section ---- */

static int get_str(trace_nat_cur *c, char **out)
{
    uint64_t len;
    if (VMAX(c, TRACE_NAT_MAX_STR, &len))
        return -1;
    if (len > (uint64_t)(c->end - c->p) || memchr(c->p, 0, (size_t)len) ||
        memchr(c->p, '\n', (size_t)len)) {
        c->bad = c->p;
        return -1;
    }
    *out = base_strndup((const char *)c->p, (size_t)len);
    c->p += len;
    return 0;
}

static int get_u32(trace_nat_cur *c, uint64_t lo, uint64_t hi, uint32_t *out)
{
    uint64_t v;
    const uint8_t *at = c->p;
    if (VMAX(c, hi, &v))
        return -1;
    if (v < lo) {
        c->bad = at;
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int get_header(trace_nat_cur *c, trace_header *h)
{
    uint64_t v;
    if (get_str(c, &h->name) || VMAX(c, UINT64_MAX, &v))
        return -1;
    h->kernel_id = trace_nat_unzz(v);
    for (int i = 0; i < 3; i++)
        if (get_u32(c, 1, UINT32_MAX, &h->grid[i]))
            return -1;
    for (int i = 0; i < 3; i++)
        if (get_u32(c, 1, UINT32_MAX, &h->block[i]))
            return -1;
    uint32_t bv, tv, li;
    if (VMAX(c, UINT64_MAX, &h->shmem) || get_u32(c, 0, 65535, &h->nregs) ||
        get_u32(c, 0, 100000, &bv) || VMAX(c, UINT64_MAX, &h->stream_id) ||
        VMAX(c, UINT64_MAX, &h->shmem_base) || VMAX(c, UINT64_MAX, &h->local_base) ||
        get_str(c, &h->nvbit_version) || get_u32(c, 0, 6, &tv) || get_u32(c, 0, 1, &li))
        return -1;
    h->binary_version = (int)bv;
    h->tracer_version = (int)tv;
    h->lineinfo = (int)li;
    return 0;
}

/* What trace_kernel.c derives from the header lines, with the same limits. */
static int derive(struct trace_native *n, trace_header *h, uint64_t at, base_err *e)
{
    h->family = isa_family_for_version(h->binary_version);
    if (h->family < 0)
        return FAIL(n, at, e, "a known binary version, found %d", h->binary_version);
    uint64_t threads = (uint64_t)h->block[0] * h->block[1] * h->block[2];
    if (h->block[0] > TRACE_MAX_CTA_THREADS || h->block[1] > TRACE_MAX_CTA_THREADS ||
        threads > TRACE_MAX_CTA_THREADS)
        return FAIL(n, at, e, "at most %u threads per block, found %ux%ux%u",
                    TRACE_MAX_CTA_THREADS, h->block[0], h->block[1], h->block[2]);
    h->threads_per_cta = (uint32_t)threads;
    h->warps_per_cta = (uint32_t)((threads + TRACE_WARP_SIZE - 1) / TRACE_WARP_SIZE);
    uint64_t gxy = (uint64_t)h->grid[0] * h->grid[1];
    if (gxy > UINT64_MAX / h->grid[2])
        return FAIL(n, at, e, "a grid of at most 2^64 blocks");
    h->ctas_in_grid = gxy * h->grid[2];
    return 0;
}

static int get_counts(struct trace_native *n, trace_nat_cur *c, uint64_t *nsinst)
{
    uint64_t icap = n->o.max_cta_insts < UINT32_MAX - 2 ? n->o.max_cta_insts : UINT32_MAX - 2;
    uint64_t acap = icap * 32 < UINT32_MAX - 64 ? icap * 32 : UINT32_MAX - 64;
    return VMAX(c, UINT64_MAX, &n->nctas) || VMAX(c, n->nctas, &n->nblocks) ||
                   VMAX(c, UINT32_MAX - 2, nsinst) || VMAX(c, icap, &n->max_insts) ||
                   VMAX(c, acap, &n->max_addrs) || VMAX(c, n->o.max_raw, &n->max_raw) ||
                   VMAX(c, UINT32_MAX, &n->max_comp)
               ? -1 : 0;
}

static int parse_meta(struct trace_native *n, trace_kernel *k, trace_nat_cur *c,
                      uint64_t *nsinst, base_err *e)
{
    uint64_t at = n->tail_off;
    if (get_header(c, &k->h) || get_counts(n, c, nsinst))
        return FAIL(n, at, e, "valid kernel header fields and counts (byte %llu of the decoded "
                    "tail)", (unsigned long long)(c->bad - c->start));
    if (derive(n, &k->h, at, e))
        return -1;
    if (n->nctas > k->h.ctas_in_grid)
        return FAIL(n, at, e, "at most %llu CTAs (the grid), found %llu",
                    (unsigned long long)k->h.ctas_in_grid, (unsigned long long)n->nctas);
    if ((n->nctas == 0) != (n->nblocks == 0))
        return FAIL(n, at, e, "blocks exactly when there are CTAs");
    if (n->max_comp > n->size)
        return FAIL(n, at, e, "a largest stored block within the file's %llu bytes, found %llu",
                    (unsigned long long)n->size, (unsigned long long)n->max_comp);
    return 0;
}

/* ---- dictionary ---- */

static int valid_opcode(const uint8_t *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
        return 0;
    for (size_t i = 1; i < n; i++) {
        uint8_t ch = s[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.'))
            return 0;
    }
    return 1;
}

/* The dictionary's columns, decoded (see put_dict in trace_native_wr.c). */
typedef struct dcols {
    uint64_t *pc, *line;
    int64_t *imm;
    uint32_t *ref;
    const uint8_t **text;   /* distinct opcode texts */
    uint16_t *text_len;
    uint8_t *nreg;          /* ndst, nsrc per entry */
    const uint8_t *regs;
    uint64_t ntext;
} dcols;

static int get_bytes(trace_nat_cur *c, uint64_t n)
{
    if (n > (uint64_t)(c->end - c->p)) {
        c->bad = c->p;
        return -1;
    }
    return 0;
}

static int get_numbers(trace_nat_cur *c, dcols *d, uint64_t ns)
{
    uint64_t pc = 0, line = 0;
    for (uint64_t i = 0; i < ns; i++)
        d->pc[i] = pc += (uint64_t)trace_nat_unzz(VAR(c));
    for (uint64_t i = 0; i < ns; i++)
        d->imm[i] = trace_nat_unzz(VAR(c));
    for (uint64_t i = 0; i < ns; i++)
        d->line[i] = line += (uint64_t)trace_nat_unzz(VAR(c));
    uint64_t v;
    for (uint64_t i = 0; i < ns; i++) {
        if (VMAX(c, d->ntext, &v))  /* a reference to an earlier text, or 0: a new one */
            return -1;
        d->ref[i] = (uint32_t)v;
        d->ntext += v == 0;
    }
    return c->bad ? -1 : 0;
}

static int get_texts(trace_nat_cur *c, dcols *d)
{
    uint64_t len;
    for (uint64_t i = 0; i < d->ntext; i++) {
        if (VMAX(c, 65535, &len) || get_bytes(c, len))
            return -1;
        if (!valid_opcode(c->p, (size_t)len)) {
            c->bad = c->p;
            return -1;
        }
        d->text[i] = c->p;
        d->text_len[i] = (uint16_t)len;
        c->p += len;
    }
    return 0;
}

static int get_regs(trace_nat_cur *c, dcols *d, uint64_t ns, const uint8_t **aflag)
{
    uint64_t v, total = 0;
    for (uint64_t i = 0; i < 2 * ns; i++) {
        if (VMAX(c, TRACE_MAX_REGS, &v))
            return -1;
        d->nreg[i] = (uint8_t)v;
        total += v;
    }
    if (get_bytes(c, total))
        return -1;
    d->regs = c->p;
    c->p += total;
    if (get_bytes(c, ns))
        return -1;
    *aflag = c->p;
    for (uint64_t i = 0; i < ns; i++, c->p++)
        if (*c->p > TRACE_NAT_AVARIES) {
            c->bad = c->p;
            return -1;
        }
    return 0;
}

/* Through the text reader's own dictionary code, so both decode entries alike. */
static int add_entry(struct trace_native *n, trace_kernel *k, const trace_line *l, uint64_t i,
                     base_err *e)
{
    const trace_header *h = &k->h;
    const char *dot = memchr(l->opcode, '.', l->opcode_len);
    size_t mn = dot ? (size_t)(dot - l->opcode) : l->opcode_len;
    if (!isa_lookup_op(h->family, l->opcode, mn))
        return FAIL(n, n->tail_off, e, "an opcode of the %s ISA in dictionary entry %llu",
                    isa_family_name(h->family), (unsigned long long)i);
    if ((h->tracer_version < 5 && l->imm) || (!h->lineinfo && l->line_num))
        return FAIL(n, n->tail_off, e, "no immediate before tracer version 5 and no line "
                    "number without lineinfo, in dictionary entry %llu", (unsigned long long)i);
    int64_t got = trace_k_dict_index(k, l, e);
    if (got < 0)
        return -1;
    if ((uint64_t)got != i)
        return FAIL(n, n->tail_off, e, "distinct dictionary entries, found entry %llu equal to "
                    "%lld", (unsigned long long)i, (long long)got);
    n->width[i] = k->sinst[i].width;
    return 0;
}

static int add_entries(struct trace_native *n, trace_kernel *k, const dcols *d, uint64_t ns,
                       base_err *e)
{
    uint16_t regs[2 * TRACE_MAX_REGS];
    trace_line l = {.regs = regs};
    const uint8_t *r = d->regs;
    uint64_t next_text = 0;
    for (uint64_t i = 0; i < ns; i++) {
        uint64_t t = d->ref[i] ? d->ref[i] - 1 : next_text++;
        l.pc = d->pc[i];
        l.imm = d->imm[i];
        l.line_num = d->line[i];
        l.opcode = (const char *)d->text[t];
        l.opcode_len = d->text_len[t];
        l.ndst = d->nreg[2 * i];
        l.nsrc = d->nreg[2 * i + 1];
        for (unsigned j = 0; j < l.ndst + l.nsrc; j++)
            regs[j] = *r++;
        if (add_entry(n, k, &l, i, e))
            return -1;
    }
    return 0;
}

static void dcols_free(dcols *d)
{
    free(d->pc);
    free(d->line);
    free(d->imm);
    free(d->ref);
    free(d->text);
    free(d->text_len);
    free(d->nreg);
}

static int parse_dict(struct trace_native *n, trace_kernel *k, trace_nat_cur *c,
                      uint64_t ns, base_err *e)
{
    if (ns > (uint64_t)(c->end - c->p) / 7)  /* an entry takes at least 7 bytes */
        return FAIL(n, n->tail_off, e, "a dictionary of %llu entries in the %llu bytes left "
                    "of the tail", (unsigned long long)ns, (unsigned long long)(c->end - c->p));
    dcols d = {base_malloc(ns * 8 + 8), base_malloc(ns * 8 + 8), base_malloc(ns * 8 + 8),
               base_malloc(ns * 4 + 4), base_malloc(ns * sizeof(uint8_t *) + 8),
               base_malloc(ns * 2 + 2), base_malloc(ns * 2 + 2), NULL, 0};
    const uint8_t *aflag = NULL;
    int rc = get_numbers(c, &d, ns) || get_texts(c, &d) || get_regs(c, &d, ns, &aflag) ? -1 : 0;
    if (rc)
        rc = FAIL(n, n->tail_off, e, "a valid dictionary (byte %llu of the decoded tail)",
                  (unsigned long long)(c->bad - c->start));
    if (rc == 0) {
        n->aflag = base_malloc(ns + 1);
        n->width = base_malloc((ns + 1) * sizeof *n->width);
        memcpy(n->aflag, aflag, ns);
        rc = add_entries(n, k, &d, ns, e);
    }
    dcols_free(&d);
    return rc;
}

/* ---- index ---- */

static int get_block(struct trace_native *n, trace_nat_cur *c, trace_nat_block *b,
                     uint64_t prev_line)
{
    uint64_t cs, rs, nc, m, dl;
    if (VMAX(c, n->max_comp, &cs) || VMAX(c, n->max_raw, &rs) || VMAX(c, UINT32_MAX, &nc) ||
        VMAX(c, TRACE_NAT_ZSTD, &m) || VMAX(c, UINT64_MAX, &dl) || get_bytes(c, 4))
        return -1;
    b->csize = (uint32_t)cs;
    b->rsize = (uint32_t)rs;
    b->nctas = (uint32_t)nc;
    b->method = (uint32_t)m;
    b->first_line = prev_line + (uint64_t)trace_nat_unzz(dl);
    b->crc = trace_nat_get32(c->p);
    c->p += 4;
    return 0;
}

static int parse_index(struct trace_native *n, trace_nat_cur *c, base_err *e)
{
    if (n->nblocks > (uint64_t)(c->end - c->p) / 9)  /* an entry takes at least 9 bytes */
        return FAIL(n, n->tail_off, e, "an index of %llu blocks in the %llu bytes left of the "
                    "tail", (unsigned long long)n->nblocks, (unsigned long long)(c->end - c->p));
    n->blocks = base_calloc(n->nblocks + 1, sizeof *n->blocks);
    uint64_t off = TRACE_NAT_HEADER, cta = 0, line = 0;
    for (uint64_t i = 0; i < n->nblocks; i++) {
        trace_nat_block *b = &n->blocks[i];
        if (get_block(n, c, b, line))
            return FAIL(n, n->tail_off, e, "index entry %llu (byte %llu of the decoded tail)",
                        (unsigned long long)i, (unsigned long long)(c->bad - c->start));
        b->offset = off;
        b->first_cta = cta;
        line = b->first_line;
        if (b->nctas == 0 || b->nctas > n->nctas - cta || b->csize == 0 ||
            b->csize > n->tail_off - off || b->rsize < b->nctas)
            return FAIL(n, n->tail_off, e, "index entry %llu for the block at byte %llu to "
                        "hold 1..%llu CTAs in 1..%llu stored bytes and one or more decoded "
                        "bytes per CTA", (unsigned long long)i, (unsigned long long)off,
                        (unsigned long long)(n->nctas - cta),
                        (unsigned long long)(n->tail_off - off));
        off += b->csize;
        cta += b->nctas;
    }
    if (off != n->tail_off || cta != n->nctas)
        return FAIL(n, n->tail_off, e, "blocks covering bytes %u..%llu and %llu CTAs, found "
                    "%llu bytes and %llu CTAs", TRACE_NAT_HEADER,
                    (unsigned long long)n->tail_off, (unsigned long long)n->nctas,
                    (unsigned long long)off, (unsigned long long)cta);
    if (c->p != c->end)
        return FAIL(n, n->tail_off, e, "the end of the tail after the index (byte %llu of the "
                    "decoded tail)", (unsigned long long)(c->p - c->start));
    return 0;
}

/* ---- header, footer, tail ---- */

typedef struct footer {
    uint32_t len, raw, method;
} footer;

static int read_ends(struct trace_native *n, footer *f, base_err *e)
{
    const uint8_t *p;
    uint8_t buf[TRACE_NAT_FOOTER];
    if (n->size < TRACE_NAT_HEADER + TRACE_NAT_FOOTER)
        return FAIL(n, n->size, e, "a native trace of at least %u bytes, found %llu",
                    TRACE_NAT_HEADER + TRACE_NAT_FOOTER, (unsigned long long)n->size);
    if (trace_nat_read(n, 0, TRACE_NAT_HEADER, buf, &p, e))
        return -1;
    if (memcmp(p, TRACE_NAT_MAGIC, 7) != 0)
        return FAIL(n, 0, e, "the native magic 'LSTRACE'");
    if (p[7] != TRACE_NAT_VERSION)
        return FAIL(n, 7, e, "format version %u, found %u", TRACE_NAT_VERSION, p[7]);
    uint64_t at = n->size - TRACE_NAT_FOOTER;
    if (trace_nat_read(n, at, TRACE_NAT_FOOTER, buf, &p, e))
        return -1;
    if (memcmp(p + 16, TRACE_NAT_END_MAGIC, 4) != 0)
        return FAIL(n, at + 16, e, "the end magic 'LSTE' (a truncated file?)");
    *f = (footer){trace_nat_get32(p), trace_nat_get32(p + 4), trace_nat_get32(p + 8)};
    n->tail_off = at - f->len;
    if (f->len > at - TRACE_NAT_HEADER)
        return FAIL(n, at, e, "a tail of at most %llu bytes, found %u",
                    (unsigned long long)(at - TRACE_NAT_HEADER), f->len);
    return 0;
}

/* The tail, checked and decoded; *buf is the caller's to free. */
static int read_tail(struct trace_native *n, const footer *f, uint8_t **buf,
                     const uint8_t **out, base_err *e)
{
    const uint8_t *p, *foot;
    uint8_t fb[TRACE_NAT_FOOTER];
    uint64_t at = n->size - TRACE_NAT_FOOTER;
    *buf = n->mem ? NULL : base_malloc((size_t)f->len + 1);
    if (trace_nat_read(n, n->tail_off, f->len, *buf, &p, e) ||
        trace_nat_read(n, at, TRACE_NAT_FOOTER, fb, &foot, e))
        return -1;
    uint32_t crc = trace_nat_crc(trace_nat_crc(0, p, f->len), foot, 12);
    if (!n->o.skip_crc && crc != trace_nat_get32(foot + 12))
        return FAIL(n, at + 12, e, "the checksum %08x of the tail and footer, found %08x "
                    "(corrupt file)", trace_nat_get32(foot + 12), crc);
    if (f->method == TRACE_NAT_ZSTD && f->raw > n->o.max_raw)
        return FAIL(n, n->tail_off, e, "a tail of <= %llu decoded bytes, found %u",
                    (unsigned long long)n->o.max_raw, f->raw);
    if (f->method == TRACE_NAT_ZSTD && ZSTD_getFrameContentSize(p, f->len) != f->raw)
        return FAIL(n, n->tail_off, e, "a zstd frame of %u bytes", f->raw);
    if (f->method == TRACE_NAT_ZSTD)
        n->rbuf = base_malloc((size_t)f->raw + 1);
    return trace_nat_unpack(n, p, f->len, f->raw, f->method, n->o.max_raw, n->tail_off, out, e);
}

static int load_tail(struct trace_native *n, trace_kernel *k, base_err *e)
{
    footer f = {0};
    uint8_t *buf = NULL;
    const uint8_t *t = NULL;
    uint64_t nsinst = 0;
    int rc = read_ends(n, &f, e) || read_tail(n, &f, &buf, &t, e) ? -1 : 0;
    trace_nat_cur c = {t, t ? t + f.raw : NULL, t, NULL};
    rc = rc ? rc : parse_meta(n, k, &c, &nsinst, e);
    rc = rc ? rc : parse_dict(n, k, &c, nsinst, e);
    rc = rc ? rc : parse_index(n, &c, e);
    free(buf);
    free(n->rbuf);  /* resized for blocks below */
    n->rbuf = NULL;
    return rc;
}

/* ---- open and close ---- */

static int open_src(struct trace_native *n, const void *mem, size_t len, base_err *e)
{
    if (mem) {
        n->mem = mem;
        n->size = len;
        return 0;
    }
    struct stat st;
    n->fd = open(n->name, O_RDONLY);
    if (n->fd < 0 || fstat(n->fd, &st) != 0)
        return trace_fail(e, "%s: cannot open: %s", n->name, strerror(errno));
    n->size = (uint64_t)st.st_size;
    return 0;
}

static void alloc_state(struct trace_native *n, trace_kernel *k)
{
    if (!n->mem)
        n->cbuf = base_malloc(n->max_comp + 1);
    n->rbuf = base_malloc(n->max_raw + 1);
    n->order = base_malloc(((size_t)k->h.warps_per_cta + 1) * sizeof *n->order);
    trace_nat_pred_init(&n->pred, (uint32_t)k->nsinst);
    n->blk = UINT64_MAX;
}

trace_kernel *trace_nat_open(const char *name, const void *mem, size_t len,
                             const trace_native_opts *o, base_err *e)
{
    trace_kernel *k = base_calloc(1, sizeof *k);
    struct trace_native *n = base_calloc(1, sizeof *n);
    k->nat = n;
    n->name = base_strdup(name);
    n->fd = -1;
    if (o)
        n->o = *o;
    if (!n->o.max_raw || n->o.max_raw > TRACE_NAT_MAX_RAW)
        n->o.max_raw = TRACE_NAT_MAX_RAW;
    if (!n->o.max_cta_insts)
        n->o.max_cta_insts = UINT32_MAX;
    k->r = base_rd_open_mem(name, "", 0, e);
    if (!k->r || open_src(n, mem, len, e) || load_tail(n, k, e)) {
        trace_kernel_close(k);
        return NULL;
    }
    alloc_state(n, k);
    return k;
}

void trace_nat_free(struct trace_native *n)
{
    if (!n)
        return;
    if (n->fd >= 0)
        close(n->fd);
    trace_nat_drop_dctx(n);
    trace_nat_pred_free(&n->pred);
    free(n->tmpl);
    trace_cta_free(&n->scratch);
    free(n->name);
    free(n->blocks);
    free(n->cbuf);
    free(n->rbuf);
    free(n->aflag);
    free(n->width);
    free(n->order);
    free(n->mpos);
    free(n->lastw);
    free(n);
}

uint64_t trace_nat_bytes(const trace_kernel *k) { return k->nat->bytes; }
uint64_t trace_nat_lines(const trace_kernel *k) { return k->nat->last_line; }
uint64_t trace_nat_nctas(const trace_kernel *k) { return k->nat->nctas; }
