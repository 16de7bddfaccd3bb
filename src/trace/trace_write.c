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

/* Lines are built piece by piece, not with printf: a MacSim conversion or a large synth
 * workload formats millions of them, and printf's parsing was most of their cost (callgrind,
 * a MacSim trace's run: the formatting 24% of the run's instructions). */

static void put_hex(base_buf *b, uint64_t v)
{
    base_buf_put(b, "0x", 2);
    base_buf_put_hex(b, v, 1);
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

static void put_addrs(base_buf *b, uint32_t mask, const uint64_t *a)
{
    int32_t stride;
    if (mask == 0) {
        base_buf_puts(b, " 1 0x0 0");
        return;
    }
    if (mode1_stride(mask, a, &stride)) {
        base_buf_puts(b, " 1 ");
        put_hex(b, a[__builtin_ctz(mask)]);
        base_buf_putc(b, ' ');
        base_buf_put_sdec(b, stride);
        return;
    }
    base_buf_puts(b, " 2 ");
    int prev = -1;
    for (int i = 0; i < 32; i++) {
        if (!(mask >> i & 1))
            continue;
        if (prev < 0) {
            put_hex(b, a[i]);
        } else {
            base_buf_putc(b, ' ');
            base_buf_put_sdec(b, (int64_t)(a[i] - a[prev]));
        }
        prev = i;
    }
}

static void put_reg(base_buf *b, unsigned r)
{
    base_buf_put(b, " R", 2);
    base_buf_put_dec(b, r);
}

void trace_format_line(base_buf *b, const trace_wline *l)
{
    base_buf_put_hex(b, l->pc, 4);
    base_buf_putc(b, ' ');
    base_buf_put_hex(b, l->mask, 8);
    base_buf_putc(b, ' ');
    base_buf_put_dec(b, l->ndst);
    if (l->ndst)
        put_reg(b, l->dst);
    base_buf_putc(b, ' ');
    base_buf_puts(b, l->opcode);
    base_buf_putc(b, ' ');
    base_buf_put_dec(b, l->nsrc);
    for (unsigned i = 0; i < l->nsrc; i++)
        put_reg(b, l->src[i]);
    base_buf_putc(b, ' ');
    base_buf_put_dec(b, l->width);
    if (l->width)
        put_addrs(b, l->mask, l->addr);
    base_buf_putc(b, ' ');
    base_buf_put_sdec(b, (int32_t)(uint32_t)l->imm);
    base_buf_put(b, " \n", 2);
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
