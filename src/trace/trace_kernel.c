/* Kernel file: opening, line access, and the header (A.3). */
#include "trace_kint.h"
#include "trace_int.h"
#include "trace_native.h"

#include <stdlib.h>
#include <string.h>

#include "../isa/isa.h"

enum {
    REQ_GRID = 1, REQ_BLOCK = 2, REQ_SHMEM = 4, REQ_NREGS = 8, REQ_BINARY = 16,
    REQ_ALL = 31
};

static int chunk_line(trace_kernel *k, base_err *e)
{
    if (k->cur == k->cur_end) {
        if (!k->cur_err)
            return 0;
        *e = *k->cur_err;
        return -1;
    }
    k->line = (char *)k->cur; /* never written through: the parsers take const text */
    k->len = strlen(k->cur);
    k->cur += k->len + 1;
    k->cur_lineno++;
    return 1;
}

int trace_k_line(trace_kernel *k, base_err *e)
{
    if (k->pending) {
        k->pending = 0;
        return 1;
    }
    if (k->chunked)
        return chunk_line(k, e);
    return base_rd_line(k->r, &k->line, &k->len, e);
}

static int is_blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

int trace_k_nonblank(trace_kernel *k, base_err *e)
{
    int rc;
    while ((rc = trace_k_line(k, e)) == 1 && is_blank_line(k->line, k->len))
        ;
    return rc;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static const char *trim_end(const char *p, const char *end)
{
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    return end;
}

int trace_k_keynum(trace_kernel *k, const char *key, uint64_t max, uint64_t *v, base_err *e)
{
    size_t kl = strlen(key);
    const char *p = k->line, *end = k->line + k->len;
    if (k->len < kl || memcmp(p, key, kl) != 0)
        return 0;
    p = skip_blanks(p + kl, end);
    if (p == end || *p != '=')
        return 0;
    p = skip_blanks(p + 1, end);
    end = trim_end(p, end);
    if (base_parse_u64(p, (size_t)(end - p), 10, v) || *v > max) {
        char what[96];
        snprintf(what, sizeof what, "a number <= %llu after '%s ='", (unsigned long long)max, key);
        return trace_fail_found(e, trace_k_name(k), trace_k_lineno(k), what, p,
                                (size_t)(end - p));
    }
    return 1;
}

typedef struct {
    trace_kernel *k;
    const char *v;  /* value, trimmed */
    size_t n;
    const char *key;
    base_err *e;
} hval;

static int bad_value(const hval *h, const char *what)
{
    char w[160];
    snprintf(w, sizeof w, "%s for '-%s'", what, h->key);
    return trace_fail_found(h->e, base_rd_name(h->k->r), base_rd_lineno(h->k->r), w, h->v, h->n);
}

/* "(x,y,z)", blanks allowed, each 1..2^32-1. */
static int parse_dim3(const hval *h, uint32_t out[3])
{
    const char *p = h->v, *end = h->v + h->n;
    if (p == end || *p++ != '(')
        return bad_value(h, "'(x,y,z)'");
    for (int i = 0; i < 3; i++) {
        p = skip_blanks(p, end);
        const char *s = p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        uint64_t v;
        if (base_parse_u64(s, (size_t)(p - s), 10, &v) || v == 0 || v > UINT32_MAX)
            return bad_value(h, "'(x,y,z)' with sizes 1..4294967295");
        out[i] = (uint32_t)v;
        p = skip_blanks(p, end);
        if (p == end || *p++ != (i < 2 ? ',' : ')'))
            return bad_value(h, "'(x,y,z)'");
    }
    if (skip_blanks(p, end) != end)
        return bad_value(h, "'(x,y,z)'");
    return 0;
}

static int parse_num(const hval *h, int base, uint64_t max, uint64_t *out)
{
    if (base_parse_u64(h->v, h->n, base, out) || *out > max)
        return bad_value(h, base == 16 ? "a hex number" : "a decimal number");
    return 0;
}

/* "-accelsim tracer version": an integer; "1.2" reads as 1 like the reference. */
static int parse_tracer_version(const hval *h, int *out)
{
    size_t i = 0;
    while (i < h->n && h->v[i] >= '0' && h->v[i] <= '9')
        i++;
    uint64_t v, frac;
    if (base_parse_u64(h->v, i, 10, &v) || v > 1000 ||
        (i < h->n && (h->v[i] != '.' || base_parse_u64(h->v + i + 1, h->n - i - 1, 10, &frac))))
        return bad_value(h, "a version number");
    *out = (int)v;
    return 0;
}

static int header_value(trace_kernel *k, const hval *h, unsigned *req)
{
    trace_header *t = &k->h;
    const char *key = h->key;
    uint64_t v = 0;
    int64_t iv;
    if (!strcmp(key, "kernel name")) {
        free(t->name);
        t->name = base_strndup(h->v, h->n);
    } else if (!strcmp(key, "kernel id")) {
        if (base_parse_i64(h->v, h->n, 10, &iv))
            return bad_value(h, "a decimal number");
        t->kernel_id = iv;
    } else if (!strcmp(key, "grid dim")) {
        if (parse_dim3(h, t->grid))
            return -1;
        *req |= REQ_GRID;
    } else if (!strcmp(key, "block dim")) {
        if (parse_dim3(h, t->block))
            return -1;
        *req |= REQ_BLOCK;
    } else if (!strcmp(key, "shmem")) {
        if (parse_num(h, 10, UINT64_MAX, &t->shmem))
            return -1;
        *req |= REQ_SHMEM;
    } else if (!strcmp(key, "nregs")) {
        if (parse_num(h, 10, 65535, &v))
            return -1;
        t->nregs = (uint32_t)v;
        *req |= REQ_NREGS;
    } else if (!strcmp(key, "binary version")) {
        if (parse_num(h, 10, 100000, &v))
            return -1;
        t->binary_version = (int)v;
        *req |= REQ_BINARY;
    } else if (!strcmp(key, "cuda stream id")) {
        return parse_num(h, 10, UINT64_MAX, &t->stream_id);
    } else if (!strcmp(key, "shmem base_addr")) {
        return parse_num(h, 16, UINT64_MAX, &t->shmem_base);
    } else if (!strcmp(key, "local mem base_addr")) {
        return parse_num(h, 16, UINT64_MAX, &t->local_base);
    } else if (!strcmp(key, "nvbit version")) {
        free(t->nvbit_version);
        t->nvbit_version = base_strndup(h->v, h->n);
    } else if (!strcmp(key, "accelsim tracer version")) {
        return parse_tracer_version(h, &t->tracer_version);
    } else if (!strcmp(key, "enable lineinfo")) {
        if (parse_num(h, 10, 1, &v))
            return -1;
        t->lineinfo = (int)v;
    }
    return 0;  /* unknown keys are ignored, as by the reference */
}

/* "-<key words> = <value>"; a '-' line without '=' is ignored like an unknown key. */
static int header_line(trace_kernel *k, unsigned *req, base_err *e)
{
    const char *end = k->line + k->len;
    const char *eq = memchr(k->line, '=', k->len);
    if (!eq)
        return 0;
    const char *ks = skip_blanks(k->line + 1, eq);
    const char *ke = trim_end(ks, eq);
    char key[64];
    if ((size_t)(ke - ks) >= sizeof key)
        return 0;
    memcpy(key, ks, (size_t)(ke - ks));
    key[ke - ks] = 0;
    const char *vs = skip_blanks(eq + 1, end);
    hval h = {k, vs, (size_t)(trim_end(vs, end) - vs), key, e};
    return header_value(k, &h, req);
}

static int missing(trace_kernel *k, unsigned req, base_err *e)
{
    static const char *const what[5] = {"-grid dim = (x,y,z)", "-block dim = (x,y,z)",
                                        "-shmem = <bytes>", "-nregs = <count>",
                                        "-binary version = <n>"};
    for (int i = 0; i < 5; i++)
        if (!(req & (1u << i)))
            return trace_fail(e, "%s:%llu: expected a '%s' header line before the trace body "
                              "(required), found none", base_rd_name(k->r),
                              (unsigned long long)base_rd_lineno(k->r), what[i]);
    return 0;
}

static int header_finish(trace_kernel *k, unsigned req, base_err *e)
{
    trace_header *t = &k->h;
    const char *file = base_rd_name(k->r);
    unsigned long long ln = (unsigned long long)base_rd_lineno(k->r);
    if (req != REQ_ALL)
        return missing(k, req, e);
    t->family = isa_family_for_version(t->binary_version);
    if (t->family < 0)
        return trace_fail(e, "%s: expected a known '-binary version' (30..37, 50..62, 70, 72, 75, "
                          "80, 86, 87, 89, 90), found %d", file, t->binary_version);
    if (t->tracer_version > 6)
        return trace_fail(e, "%s: expected '-accelsim tracer version' 0..6, found %d (newer "
                          "formats are not supported)", file, t->tracer_version);
    uint64_t threads = (uint64_t)t->block[0] * t->block[1] * t->block[2];
    if (t->block[0] > TRACE_MAX_CTA_THREADS || t->block[1] > TRACE_MAX_CTA_THREADS ||
        threads > TRACE_MAX_CTA_THREADS)
        return trace_fail(e, "%s:%llu: expected at most %u threads per block, found %ux%ux%u",
                          file, ln, TRACE_MAX_CTA_THREADS, t->block[0], t->block[1], t->block[2]);
    t->threads_per_cta = (uint32_t)threads;
    t->warps_per_cta = (uint32_t)((threads + TRACE_WARP_SIZE - 1) / TRACE_WARP_SIZE);
    uint64_t gxy = (uint64_t)t->grid[0] * t->grid[1];
    if (gxy > UINT64_MAX / t->grid[2])
        return trace_fail(e, "%s: grid (%u,%u,%u) has more than 2^64 blocks", file, t->grid[0],
                          t->grid[1], t->grid[2]);
    t->ctas_in_grid = gxy * t->grid[2];
    if (!t->name)
        t->name = base_strdup(file);
    if (!t->nvbit_version)
        t->nvbit_version = base_strdup("");
    k->fmt.tracer_version = t->tracer_version;
    k->fmt.lineinfo = t->lineinfo;
    return 0;
}

/* Header lines run up to the first '#' line ("#traces format ..."; a "#BEGIN_TB" is pushed
 * back so a file without the comment still reads). */
static int read_header(trace_kernel *k, base_err *e)
{
    unsigned req = 0;
    int rc;
    while ((rc = trace_k_nonblank(k, e)) == 1) {
        if (k->line[0] == '#') {
            if (k->len >= 9 && memcmp(k->line, "#BEGIN_TB", 9) == 0)
                k->pending = 1;
            break;
        }
        if (k->line[0] != '-')
            return trace_fail_found(e, base_rd_name(k->r), base_rd_lineno(k->r),
                                    "a header line '-<key> = <value>' or '#'", k->line, k->len);
        if (header_line(k, &req, e))
            return -1;
    }
    if (rc < 0)
        return -1;
    if (rc == 0 && req == 0)
        return trace_fail(e, "%s: expected a kernel trace header ('-kernel name = ...'), found "
                          "%s", base_rd_name(k->r), base_rd_lineno(k->r) ? "only blank lines"
                                                                         : "an empty file");
    return header_finish(k, req, e);
}

trace_kernel *trace_kernel_open_rd(base_rd *r, base_err *e)
{
    trace_kernel *k = base_calloc(1, sizeof *k);
    k->r = r;
    k->h.kernel_id = -1;
    if (read_header(k, e)) {
        trace_kernel_close(k);
        return NULL;
    }
    return k;
}

trace_kernel *trace_kernel_from_lines(const char *name, const trace_wheader *h, uint64_t id,
                                      trace_lines_src src, base_err *e)
{
    base_rd *r = base_rd_open_mem(name, "", 0, e);
    if (!r) {
        if (src.free)
            src.free(src.ctx);
        return NULL;
    }
    trace_kernel *k = base_calloc(1, sizeof *k);
    k->r = r;
    k->lines = src;
    trace_header *t = &k->h;
    t->name = base_strdup(h->name);
    t->kernel_id = (int64_t)id;
    memcpy(t->grid, h->grid, sizeof t->grid);
    memcpy(t->block, h->block, sizeof t->block);
    t->shmem = h->shmem;
    t->nregs = h->nregs;
    t->binary_version = h->binary_version;
    t->stream_id = h->stream_id;
    t->shmem_base = h->shmem_base;
    t->local_base = h->local_base;
    t->nvbit_version =
        base_strdup(h->nvbit_version && *h->nvbit_version ? h->nvbit_version : "1.7");
    t->tracer_version = TRACE_WRITE_VERSION;
    if (header_finish(k, REQ_ALL, e)) {
        trace_kernel_close(k);
        return NULL;
    }
    return k;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

trace_kernel *trace_kernel_open(const char *path, base_err *e)
{
    /* The v6 zstd container is binary; name it rather than report a NUL byte. */
    if (ends_with(path, ".tracez")) {
        trace_fail(e, "%s: the .tracez container (Accel-Sim tracer v6) is not supported yet; "
                   "expected a .traceg or .traceg.xz file (the post-processor's --text option "
                   "writes .traceg)", path);
        return NULL;
    }
    if (trace_is_native(path))
        return trace_nat_open(path, NULL, 0, NULL, e);
    base_rd *r = base_rd_open(path, e);
    return r ? trace_kernel_open_rd(r, e) : NULL;
}

static int native_magic(const void *p, size_t n)
{
    return n >= 8 && memcmp(p, TRACE_NAT_MAGIC, 7) == 0;
}

int trace_is_native(const char *path)
{
    unsigned char b[8];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    return native_magic(b, n);
}

trace_kernel *trace_kernel_open_mem(const char *name, const void *data, size_t n, base_err *e)
{
    if (native_magic(data, n))
        return trace_nat_open(name, data, n, NULL, e);
    base_rd *r = base_rd_open_mem(name, data, n, e);
    return r ? trace_kernel_open_rd(r, e) : NULL;
}

int trace_kernel_is_native(const trace_kernel *k) { return k->nat != NULL; }
int trace_kernel_is_text(const trace_kernel *k) { return !k->nat && !k->lines.next_cta; }
uint64_t trace_kernel_nctas(const trace_kernel *k)
{
    return k->nat ? trace_nat_nctas(k) : UINT64_MAX;
}

int trace_kernel_seek_cta(trace_kernel *k, uint64_t index, base_err *e)
{
    if (!k->nat)
        return trace_fail(e, "%s: expected a native trace for random access by CTA, found a "
                          "text one (convert it with 'lockstep trace convert --to native')",
                          base_rd_name(k->r));
    return trace_nat_seek(k, index, e);
}

void trace_kernel_close(trace_kernel *k)
{
    if (!k)
        return;
    base_rd_close(k->r);
    trace_nat_free(k->nat);
    if (k->lines.free)
        k->lines.free(k->lines.ctx);
    free(k->h.name);
    free(k->h.nvbit_version);
    trace_k_parser_free(k);
    free(k);
}

void trace_k_parser_free(trace_kernel *k)
{
    trace_line_free(&k->tl);
    free(k->sinst);
    free(k->shash);
    free(k->table);
    free(k->memo);
    free(k->str);
    free(k->regs);
}

const trace_header *trace_kernel_header(const trace_kernel *k) { return &k->h; }
const char *trace_kernel_path(const trace_kernel *k) { return base_rd_name(k->r); }
uint64_t trace_kernel_bytes(const trace_kernel *k)
{
    return k->nat ? trace_nat_bytes(k) : base_rd_offset(k->r);
}

uint64_t trace_kernel_lines(const trace_kernel *k)
{
    return k->nat ? trace_nat_lines(k) : base_rd_lineno(k->r);
}

size_t trace_kernel_nsinst(const trace_kernel *k) { return k->nat ? k->nshown : k->nsinst; }

const trace_sinst *trace_kernel_sinst(const trace_kernel *k, uint32_t sidx)
{
    return sidx < trace_kernel_nsinst(k) ? &k->sinst[sidx] : NULL;
}

const char *trace_sinst_opcode(const trace_kernel *k, const trace_sinst *s)
{
    return k->str + s->opcode;
}

const uint16_t *trace_sinst_regs(const trace_kernel *k, const trace_sinst *s)
{
    return k->regs ? k->regs + s->regs : NULL;  /* NULL + 0 is undefined */
}
