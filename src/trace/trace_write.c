/* Accel-Sim trace directory writer (see write.h). */
#include "write.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/wr.h"

/* ---- lines ---- */

/* Lines are built by hand, not with printf: a MacSim conversion or a large synth workload
 * formats millions of them, and printf's parsing was most of their cost (callgrind, a MacSim
 * trace run: the formatting 24% of the run's instructions). Each writer returns the end. */

static char *put_str(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

/* Lowercase hex of v, at least `width` digits (printf's %0*x). */
static char *put_hexw(char *p, uint64_t v, int width)
{
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (n < width)
        tmp[n++] = '0';
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_dec(char *p, int64_t v)
{
    char tmp[BASE_I64_CHARS];
    size_t n = base_fmt_i64(tmp, v);
    return put_str(p, tmp, n);
}

static char *put_hex(char *p, uint64_t v)
{
    *p++ = '0';
    *p++ = 'x';
    return put_hexw(p, v, 1);
}

/* The tracer's mode-1 test (A.6): active lanes one contiguous run of at least two, with one
 * stride that fits a signed 32-bit integer. */
static int mode1_stride(uint32_t mask, const uint64_t *a, int32_t *stride)
{
    int first = __builtin_ctz(mask);
    uint32_t run = mask >> first;
    if ((run & (run + 1)) != 0 || run < 3)
        return 0;
    int last = 31 - __builtin_clz(mask);
    int64_t d = (int64_t)(a[first + 1] - a[first]);
    if (d < INT32_MIN || d > INT32_MAX)
        return 0;
    for (int i = first + 1; i <= last; i++)
        if ((int64_t)(a[i] - a[i - 1]) != d)
            return 0;
    *stride = (int32_t)d;
    return 1;
}

static char *put_addrs(char *p, uint32_t mask, const uint64_t *a)
{
    int32_t stride;
    if (mask == 0)
        return put_str(p, " 1 0x0 0", 8);
    if (mode1_stride(mask, a, &stride)) {
        p = put_hex(put_str(p, " 1 ", 3), a[__builtin_ctz(mask)]);
        *p++ = ' ';
        return put_dec(p, stride);
    }
    p = put_str(p, " 2 ", 3);
    int prev = -1;
    for (int i = 0; i < 32; i++) {
        if (!(mask >> i & 1))
            continue;
        if (prev < 0) {
            p = put_hex(p, a[i]);
        } else {
            *p++ = ' ';
            p = put_dec(p, (int64_t)(a[i] - a[prev]));
        }
        prev = i;
    }
    return p;
}

static char *put_reg(char *p, unsigned r)
{
    p = put_str(p, " R", 2);
    return put_dec(p, r);
}

/* The longest line apart from its opcode: pc, mask and counts, a register each, the width,
 * 32 addresses (the first in hex, 31 signed differences) and the immediate, with blanks. */
#define LINE_MAX_FIXED (16 + 1 + 8 + 4 + 7 + 4 + 5 * 7 + 11 + 3 + 18 + 31 * 21 + 13 + 2)

void trace_format_line(base_buf *b, const trace_wline *l)
{
    size_t op = strlen(l->opcode);
    base_grow(&b->s, &b->cap, b->len + op + LINE_MAX_FIXED + 1, 1);
    char *p = b->s + b->len;
    p = put_hexw(p, l->pc, 4);
    *p++ = ' ';
    p = put_hexw(p, l->mask, 8);
    *p++ = ' ';
    p = put_dec(p, l->ndst);
    if (l->ndst)
        p = put_reg(p, l->dst);
    *p++ = ' ';
    p = put_str(p, l->opcode, op);
    *p++ = ' ';
    p = put_dec(p, l->nsrc);
    for (unsigned i = 0; i < l->nsrc; i++)
        p = put_reg(p, l->src[i]);
    *p++ = ' ';
    p = put_dec(p, l->width);
    if (l->width)
        p = put_addrs(p, l->mask, l->addr);
    *p++ = ' ';
    p = put_dec(p, (int32_t)(uint32_t)l->imm);
    p = put_str(p, " \n", 2);
    b->len = (size_t)(p - b->s);
    b->s[b->len] = 0;
}

/* ---- directory ---- */

typedef struct wfile {
    char *tmp, *final;   /* full paths */
    char *listed;        /* name as written in kernelslist.g */
} wfile;

struct trace_wdir {
    char *dir;
    int xz;
    base_buf list;       /* kernelslist.g text */
    wfile *files;
    size_t nfiles, cap;
    base_wr *k;          /* open kernel file */
    uint64_t kernels, warp_insts, bytes;
};

/* mkdir -p: creates the missing parents of dir, then dir. */
static int make_dirs(const char *dir)
{
    char *p = base_strdup(dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    free(p);
    return mkdir(dir, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

trace_wdir *trace_wdir_open(const char *dir, int xz, base_err *e)
{
    struct stat st;
    if (make_dirs(dir) != 0) {
        base_fail(e, BASE_EXIT_INPUT, "%s: cannot create directory: %s", dir, strerror(errno));
        return NULL;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        base_fail(e, BASE_EXIT_INPUT, "%s: exists and is not a directory", dir);
        return NULL;
    }
    trace_wdir *d = base_calloc(1, sizeof *d);
    d->dir = base_strdup(dir);
    d->xz = xz;
    return d;
}

void trace_wdir_memcpy(trace_wdir *d, uint64_t addr, uint64_t bytes)
{
    base_buf_printf(&d->list, "MemcpyHtoD,0x%016" PRIx64 ",%" PRIu64 "\n", addr, bytes);
}

static void write_header(base_wr *w, uint64_t id, const trace_wheader *h)
{
    base_wr_printf(w, "-kernel name = %s\n-kernel id = %" PRIu64 "\n", h->name, id);
    base_wr_printf(w, "-grid dim = (%u,%u,%u)\n", h->grid[0], h->grid[1], h->grid[2]);
    base_wr_printf(w, "-block dim = (%u,%u,%u)\n", h->block[0], h->block[1], h->block[2]);
    base_wr_printf(w, "-shmem = %" PRIu64 "\n-nregs = %u\n", h->shmem, h->nregs);
    base_wr_printf(w, "-binary version = %d\n-cuda stream id = %" PRIu64 "\n",
                   h->binary_version, h->stream_id);
    base_wr_printf(w, "-shmem base_addr = 0x%016" PRIx64 "\n", h->shmem_base);
    base_wr_printf(w, "-local mem base_addr = 0x%016" PRIx64 "\n", h->local_base);
    base_wr_printf(w, "-nvbit version = %s\n",
                   h->nvbit_version && *h->nvbit_version ? h->nvbit_version : "1.7");
    base_wr_printf(w, "-accelsim tracer version = %d\n-enable lineinfo = 0\n\n",
                   TRACE_WRITE_VERSION);
    base_wr_puts(w, "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
                    "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n\n");
}

int trace_wdir_kernel_begin(trace_wdir *d, const trace_wheader *h, base_err *e)
{
    if (d->k)
        return base_fail(e, BASE_EXIT_INTERNAL, "trace writer: kernel already open");
    uint64_t id = d->kernels + 1;
    wfile f;
    f.listed = base_sprintf("kernel-%" PRIu64 ".traceg%s", id, d->xz ? ".xz" : "");
    f.final = base_sprintf("%s/%s", d->dir, f.listed);
    f.tmp = base_sprintf("%s/.partial-%ld-%s", d->dir, (long)getpid(), f.listed);
    d->k = base_wr_open(f.tmp, d->xz, e);
    if (!d->k) {
        free(f.listed);
        free(f.final);
        free(f.tmp);
        return -1;
    }
    base_grow(&d->files, &d->cap, d->nfiles + 1, sizeof *d->files);
    d->files[d->nfiles++] = f;
    d->kernels = id;
    write_header(d->k, id, h);
    base_buf_printf(&d->list, "%s\n", f.listed);
    return 0;
}

void trace_wdir_cta_begin(trace_wdir *d, uint32_t x, uint32_t y, uint32_t z)
{
    base_wr_printf(d->k, "\n#BEGIN_TB\n\nthread block = %u,%u,%u\n", x, y, z);
}

void trace_wdir_warp(trace_wdir *d, uint32_t warp, uint64_t n, const char *text, size_t len)
{
    base_wr_printf(d->k, "\nwarp = %u\ninsts = %" PRIu64 "\n", warp, n);
    base_wr_write(d->k, text, len);
    d->warp_insts += n;
}

void trace_wdir_cta_end(trace_wdir *d)
{
    base_wr_puts(d->k, "\n#END_TB\n");
}

int trace_wdir_kernel_end(trace_wdir *d, base_err *e)
{
    d->bytes += base_wr_bytes(d->k);
    int rc = base_wr_commit(d->k, e);
    d->k = NULL;
    return rc;
}

/* kernel-<digits>.traceg or kernel-<digits>.traceg.xz */
static int is_kernel_file(const char *n)
{
    if (strncmp(n, "kernel-", 7) != 0)
        return 0;
    n += 7;
    if (*n < '0' || *n > '9')
        return 0;
    while (*n >= '0' && *n <= '9')
        n++;
    return strcmp(n, ".traceg") == 0 || strcmp(n, ".traceg.xz") == 0;
}

static void remove_stale(trace_wdir *d)
{
    DIR *dp = opendir(d->dir);
    if (!dp)
        return;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (!is_kernel_file(de->d_name))
            continue;
        int ours = 0;
        for (size_t i = 0; i < d->nfiles && !ours; i++)
            ours = strcmp(d->files[i].listed, de->d_name) == 0;
        if (!ours) {
            char *p = base_sprintf("%s/%s", d->dir, de->d_name);
            remove(p);
            free(p);
        }
    }
    closedir(dp);
}

static void free_dir(trace_wdir *d)
{
    for (size_t i = 0; i < d->nfiles; i++) {
        free(d->files[i].tmp);
        free(d->files[i].final);
        free(d->files[i].listed);
    }
    free(d->files);
    base_buf_free(&d->list);
    free(d->dir);
    free(d);
}

int trace_wdir_commit(trace_wdir *d, base_err *e)
{
    if (d->k) {
        trace_wdir_abort(d);
        return base_fail(e, BASE_EXIT_INTERNAL, "trace writer: kernel not ended");
    }
    char *lp = base_sprintf("%s/kernelslist.g", d->dir);
    base_wr *w = base_wr_open(lp, 0, e);
    free(lp);
    if (!w) {
        trace_wdir_abort(d);
        return -1;
    }
    base_wr_write(w, d->list.s ? d->list.s : "", d->list.len);
    for (size_t i = 0; i < d->nfiles; i++) {
        if (rename(d->files[i].tmp, d->files[i].final) != 0) {
            base_fail(e, BASE_EXIT_INPUT, "%s: cannot rename into place: %s",
                      d->files[i].final, strerror(errno));
            base_wr_abort(w);
            trace_wdir_abort(d);
            return -1;
        }
    }
    int rc = base_wr_commit(w, e);
    if (rc == 0)
        remove_stale(d);
    free_dir(d);
    return rc;
}

void trace_wdir_abort(trace_wdir *d)
{
    if (!d)
        return;
    base_wr_abort(d->k);
    for (size_t i = 0; i < d->nfiles; i++)
        remove(d->files[i].tmp);
    free_dir(d);
}

uint64_t trace_wdir_kernels(const trace_wdir *d) { return d->kernels; }
uint64_t trace_wdir_warp_insts(const trace_wdir *d) { return d->warp_insts; }
uint64_t trace_wdir_bytes(const trace_wdir *d) { return d->bytes; }
