/* Whole-trace conversion (`trace convert --to native|accelsim`) and the Accel-Sim text
 * exporter: any kernel trace_kernel_open reads (text or native) written back as .traceg
 * text in its own tracer version, so that it re-reads to the same header, CTAs and
 * instructions. Where the layout allows, every CTA lands on its original #BEGIN_TB line
 * (blank lines pad; the header and CTAs drop optional lines when they would not fit), so
 * the line numbers the reader reports survive the round trip too. */
#include "trace_int.h"
#include "trace_native.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/wr.h"

/* ---- one kernel as text ---- */

typedef struct xport {
    trace_kernel *k;
    const trace_header *h;
    base_wr *w;
    base_buf b;        /* the CTA being formatted */
    uint64_t line;     /* lines written so far */
    uint32_t *order;
} xport;

static const char *format_comment(int v)
{
    if (v < 3)
        return "#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask "
               "dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] "
               "[mem_addresses]";
    if (v < 5)
        return "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
               "[reg_srcs] mem_width [adrrescompress?] [mem_addresses]";
    if (v < 6)
        return "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
               "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate";
    return "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
           "mem_width [adrrescompress?] [mem_addresses] immediate1 immediate2 Val|NoVal "
           "[dest_val_n]";
}

/* The header lines; full: as the tracer writes them, else only what differs from the
 * reader's defaults for absent lines. Returns the number of lines. */
static uint64_t header_text(base_buf *b, const trace_header *h, int full)
{
    base_buf_printf(b, "-kernel name = %s\n", h->name);
    if (h->kernel_id != -1)
        base_buf_printf(b, "-kernel id = %" PRId64 "\n", h->kernel_id);
    base_buf_printf(b, "-grid dim = (%u,%u,%u)\n-block dim = (%u,%u,%u)\n", h->grid[0],
                    h->grid[1], h->grid[2], h->block[0], h->block[1], h->block[2]);
    base_buf_printf(b, "-shmem = %" PRIu64 "\n-nregs = %u\n-binary version = %d\n", h->shmem,
                    h->nregs, h->binary_version);
    if (full || h->stream_id)
        base_buf_printf(b, "-cuda stream id = %" PRIu64 "\n", h->stream_id);
    if (full || h->shmem_base)
        base_buf_printf(b, "-shmem base_addr = 0x%016" PRIx64 "\n", h->shmem_base);
    if (full || h->local_base)
        base_buf_printf(b, "-local mem base_addr = 0x%016" PRIx64 "\n", h->local_base);
    if (*h->nvbit_version)
        base_buf_printf(b, "-nvbit version = %s\n", h->nvbit_version);
    if (h->tracer_version)
        base_buf_printf(b, "-accelsim tracer version = %d\n", h->tracer_version);
    if (h->lineinfo || (full && h->tracer_version >= 4))
        base_buf_printf(b, "-enable lineinfo = %d\n", h->lineinfo);
    uint64_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += b->s[i] == '\n';
    return n;
}

/* Header, format comment and blank lines up to line first - 1 (first = 0: no CTAs). */
static void put_header(xport *x, uint64_t first)
{
    uint64_t n = header_text(&x->b, x->h, 1);
    if (first && n + 1 > first) {
        x->b.len = 0;
        n = header_text(&x->b, x->h, 0);
    }
    uint64_t room = first > n + 1 ? first - 1 - n : first ? 0 : 2;
    if (room >= 2)
        base_buf_printf(&x->b, "\n%s\n", format_comment(x->h->tracer_version));
    else if (room == 1)
        base_buf_printf(&x->b, "%s\n", format_comment(x->h->tracer_version));
    for (uint64_t i = room >= 2 ? 2 : room; i < room; i++)
        base_buf_putc(&x->b, '\n');
    x->line = n + room;
}

static void put_addrs(base_buf *b, int version, uint32_t mask, const uint64_t *a)
{
    unsigned p = base_popcount32(mask);
    if (version < 3) {  /* modes 1 and 2 came with version 3 */
        base_buf_puts(b, " 0");
        for (unsigned i = 0; i < p; i++) {
            base_buf_puts(b, " 0x");
            base_buf_put_hex(b, a[i], 16);
        }
        return;
    }
    uint32_t run = mask >> __builtin_ctz(mask);
    int64_t d = p >= 2 ? (int64_t)(a[1] - a[0]) : 0;
    int mode1 = p >= 2 && (run & (run + 1)) == 0 && d >= INT32_MIN && d <= INT32_MAX;
    for (unsigned i = 1; i < p && mode1; i++)
        mode1 = a[i] - a[i - 1] == (uint64_t)d;
    base_buf_puts(b, mode1 ? " 1 0x" : " 2 0x");
    base_buf_put_hex(b, a[0], 1);
    if (mode1) {
        base_buf_putc(b, ' ');
        base_buf_put_sdec(b, d);
        return;
    }
    for (unsigned i = 1; i < p; i++) {
        base_buf_putc(b, ' ');
        base_buf_put_sdec(b, (int64_t)(a[i] - a[i - 1]));
    }
}

static void put_regs(base_buf *b, const uint16_t *r, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        base_buf_puts(b, " R");
        base_buf_put_dec(b, r[i]);
    }
}

/* The address block (or "0"): memory instructions with no active lane keep an empty block
 * as the tracer writes it; LDC and non-memory instructions have none. */
static void put_mem(xport *x, const trace_sinst *s, const trace_dinst *d, const uint64_t *a)
{
    base_buf *b = &x->b;
    int mem = s->space != TRACE_SPACE_NONE && s->space != TRACE_SPACE_CONST;
    if (!a && !(mem && d->mask == 0)) {
        base_buf_puts(b, " 0");
        return;
    }
    base_buf_putc(b, ' ');
    base_buf_put_dec(b, s->width ? s->width : 4);
    if (a)
        put_addrs(b, x->h->tracer_version, d->mask, a);
    else
        base_buf_puts(b, x->h->tracer_version < 3 ? " 0" : " 1 0x0 0");
}

static void put_inst(xport *x, const trace_cta *c, uint32_t w, const trace_dinst *d)
{
    base_buf *b = &x->b;
    const trace_sinst *s = trace_kernel_sinst(x->k, d->sidx);
    const uint16_t *r = trace_sinst_regs(x->k, s);
    if (x->h->tracer_version < 3)
        base_buf_printf(b, "%u %u %u %u ", c->id[0], c->id[1], c->id[2], w);
    if (x->h->lineinfo) {
        base_buf_put_dec(b, s->line_num);
        base_buf_putc(b, ' ');
    }
    base_buf_put_hex(b, s->pc, 4);
    base_buf_putc(b, ' ');
    base_buf_put_hex(b, d->mask, 8);
    base_buf_putc(b, ' ');
    base_buf_put_dec(b, s->ndst);
    put_regs(b, r, s->ndst);
    base_buf_putc(b, ' ');
    base_buf_put(b, trace_sinst_opcode(x->k, s), s->opcode_len);
    base_buf_putc(b, ' ');
    base_buf_put_dec(b, s->nsrc);
    put_regs(b, r ? r + s->ndst : NULL, s->nsrc);
    uint64_t buf[32];
    put_mem(x, s, d, trace_cta_addrs(c, d, buf));
    if (x->h->tracer_version >= 5) {
        base_buf_putc(b, ' ');
        base_buf_put_sdec(b, s->imm);
    }
    if (x->h->tracer_version >= 6)
        base_buf_puts(b, " 0 NoVal");
    base_buf_puts(b, " \n");
}

static int cluster_lines(const xport *x, const trace_cta *c)
{
    return x->h->tracer_version >= 6 || c->cluster_rank || c->cluster_id[0] ||
           c->cluster_id[1] || c->cluster_id[2] || c->cluster_cta[0] || c->cluster_cta[1] ||
           c->cluster_cta[2];
}

/* Lines from #BEGIN_TB to #END_TB; std: with the post-processor's blank lines. */
static uint64_t body_lines(const trace_cta *c, const uint32_t *order, uint32_t nseen, int cl,
                           int std)
{
    uint64_t n = (std ? 5 : 3) + (cl ? 3 : 0);
    for (uint32_t i = 0; i < nseen; i++)
        n += (std ? 3 : 2) + (uint64_t)c->warps[order[i]].n;
    return n;
}

static void put_cta(xport *x, const trace_cta *c, uint64_t next_line)
{
    base_buf *b = &x->b;
    while (x->line + 1 < c->line) {
        base_buf_putc(b, '\n');
        x->line++;
    }
    uint32_t nseen = trace_nat_warp_order(c, x->order);
    int cl = cluster_lines(x, c);
    int std = !next_line || x->line + body_lines(c, x->order, nseen, cl, 1) < next_line;
    base_buf_printf(b, "#BEGIN_TB\n%sthread block = %u,%u,%u\n", std ? "\n" : "", c->id[0],
                    c->id[1], c->id[2]);
    if (cl)
        base_buf_printf(b, "cluster id = %u,%u,%u\ncluster cta = %u,%u,%u\ncluster rank = %u\n",
                        c->cluster_id[0], c->cluster_id[1], c->cluster_id[2], c->cluster_cta[0],
                        c->cluster_cta[1], c->cluster_cta[2], c->cluster_rank);
    for (uint32_t i = 0; i < nseen; i++) {
        const trace_warp *w = &c->warps[x->order[i]];
        base_buf_printf(b, "%swarp = %u\ninsts = %u\n", std ? "\n" : "", x->order[i], w->n);
        for (uint32_t j = 0; j < w->n; j++)
            put_inst(x, c, x->order[i], &c->insts[w->first + j]);
    }
    base_buf_puts(b, std ? "\n#END_TB\n" : "#END_TB\n");
    x->line += body_lines(c, x->order, nseen, cl, std);
}

static void flush_text(xport *x)
{
    base_wr_write(x->w, x->b.s ? x->b.s : "", x->b.len);
    x->b.len = 0;
}

/* CTAs with one of lookahead, so that each is laid out to end before the next one's line. */
static int put_ctas(xport *x, trace_convert_summary *s, base_err *e)
{
    trace_cta c[2] = {{0}, {0}};
    int cur = 0, rc = trace_next_cta(x->k, &c[0], e);
    put_header(x, rc == 1 ? c[0].line : 0);
    flush_text(x);
    while (rc == 1) {
        int more = trace_next_cta(x->k, &c[!cur], e);
        if (more < 0) {
            rc = -1;
            break;
        }
        put_cta(x, &c[cur], more == 1 ? c[!cur].line : 0);
        flush_text(x);
        if (s) {
            s->ctas++;
            s->warp_insts += c[cur].ninsts;
        }
        cur = !cur;
        rc = more;
    }
    trace_cta_free(&c[0]);
    trace_cta_free(&c[1]);
    return rc;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static int export_kernel(const char *src, const char *dst, int xz, trace_convert_summary *s,
                         base_err *e)
{
    xport x = {0};
    x.k = trace_kernel_open(src, e);
    if (!x.k)
        return -1;
    x.h = trace_kernel_header(x.k);
    x.order = base_malloc(((size_t)x.h->warps_per_cta + 1) * sizeof *x.order);
    x.w = base_wr_open(dst, xz, e);
    int rc = x.w ? put_ctas(&x, s, e) : -1;
    if (rc < 0)
        base_wr_abort(x.w);
    else
        rc = base_wr_commit(x.w, e);
    if (rc == 0 && s) {
        s->kernels++;
        s->in_bytes += file_size(src);
        s->out_bytes += file_size(dst);
    }
    base_buf_free(&x.b);
    free(x.order);
    trace_kernel_close(x.k);
    return rc;
}

/* ---- whole traces ---- */

typedef struct target {
    const char *suffix;
    int level, xz;  /* native: zstd level; accelsim: compress */
    int native;
} target;

static int convert_kernel(const target *t, const char *src, const char *dst,
                          trace_convert_summary *s, base_err *e)
{
    return t->native ? trace_native_write_kernel(src, dst, t->level, s, e)
                     : export_kernel(src, dst, t->xz, s, e);
}

/* Index of an earlier kernel command with the same output name, or -1; -2 (e set) when that
 * one came from another file. */
static long earlier(const trace_list *l, char **names, size_t i, base_err *e)
{
    for (size_t j = 0; j < i; j++) {
        if (!names[j] || strcmp(names[j], names[i]) != 0)
            continue;
        if (strcmp(l->cmds[j].path, l->cmds[i].path) == 0)
            return (long)j;
        trace_fail(e, "%s:%llu: expected kernel files with distinct names, found '%s' again "
                   "(from %s)", l->path, (unsigned long long)l->cmds[i].line, names[i],
                   l->cmds[i].path);
        return -2;
    }
    return -1;
}

static int convert_cmds(const target *t, const trace_list *l, const char *dir, base_buf *list,
                        trace_convert_summary *s, base_err *e)
{
    char **names = base_calloc(l->ncmds + 1, sizeof *names);
    int rc = 0;
    for (size_t i = 0; i < l->ncmds && rc == 0; i++) {
        const trace_cmd *c = &l->cmds[i];
        if (c->kind != TRACE_CMD_KERNEL) {
            base_buf_printf(list, "%s\n", c->text);
            continue;
        }
        names[i] = trace_nat_out_name(c->path, t->suffix);
        base_buf_printf(list, "%s\n", names[i]);
        long j = earlier(l, names, i, e);
        if (j == -2) {
            rc = -1;
        } else if (j == -1) {
            char *dst = base_sprintf("%s/%s", dir, names[i]);
            rc = convert_kernel(t, c->path, dst, s, e);
            if (rc && c->line)
                trace_err_prefix(e, "%s:%llu", l->path, (unsigned long long)c->line);
            free(dst);
        }
    }
    for (size_t i = 0; i < l->ncmds; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int convert_dir(const target *t, const char *src, const char *dir,
                       trace_convert_summary *s, base_err *e)
{
    trace_list l;
    if (trace_list_open(src, &l, e))
        return -1;
    base_buf list = {0};
    int rc = trace_nat_mkdirs(dir, e);
    rc = rc ? rc : convert_cmds(t, &l, dir, &list, s, e);
    if (rc == 0) {
        char *lp = base_sprintf("%s/kernelslist.g", dir);
        base_wr *w = base_wr_open(lp, 0, e);
        free(lp);
        if (w)
            base_wr_write(w, list.s ? list.s : "", list.len);
        rc = w ? base_wr_commit(w, e) : -1;
    }
    base_buf_free(&list);
    trace_list_free(&l);
    return rc;
}

int trace_convert_native(const char *src, const char *dir, int level,
                         trace_convert_summary *s, base_err *e)
{
    target t = {TRACE_NATIVE_SUFFIX, level, 0, 1};
    return convert_dir(&t, src, dir, s, e);
}

int trace_convert_accelsim(const char *src, const char *dir, int xz, trace_convert_summary *s,
                           base_err *e)
{
    target t = {xz ? ".traceg.xz" : ".traceg", 0, xz, 0};
    return convert_dir(&t, src, dir, s, e);
}
