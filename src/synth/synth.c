/* synth: registry, parameters and the generation driver (see synth.h). */
#include "synth_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/wr.h"
#include "../trace/write.h"

static const synth_def *const REGISTRY[] = {
    &synth_vectoradd, &synth_saxpy_stride,
    &synth_reduce, &synth_sgemm_tiled, &synth_stencil2d, &synth_hmma,
    &synth_gather, &synth_histogram, &synth_branchy, &synth_pchase, &synth_multi,
};

size_t synth_count(void) { return BASE_ARRAY_LEN(REGISTRY); }
const synth_def *synth_at(size_t i) { return i < synth_count() ? REGISTRY[i] : NULL; }

const synth_def *synth_find(const char *name)
{
    for (size_t i = 0; i < synth_count(); i++)
        if (strcmp(REGISTRY[i]->name, name) == 0)
            return REGISTRY[i];
    return NULL;
}

/* ---- parameters ---- */

static const synth_param_def SEED = {"seed", 1, 0, INT64_MAX, "seed of every random choice"};

static size_t nparams(const synth_def *d)
{
    size_t n = 0;
    while (d->params[n].name)
        n++;
    return n;
}

static const synth_param_def *param_def(const synth_def *d, size_t i)
{
    return i < nparams(d) ? &d->params[i] : &SEED;
}

size_t synth_values_count(const synth_values *sv) { return nparams(sv->def) + 1; }
const char *synth_values_name(const synth_values *sv, size_t i)
{
    return param_def(sv->def, i)->name;
}

void synth_values_init(synth_values *sv, const synth_def *d)
{
    memset(sv, 0, sizeof *sv);
    sv->def = d;
    if (nparams(d) + 1 > SYNTH_MAX_PARAMS)
        abort(); /* a workload table larger than the fixed arrays: a build-time mistake */
    for (size_t i = 0; i < synth_values_count(sv); i++)
        sv->v[i] = param_def(d, i)->def;
}

/* Decimal or 0x hex, with an optional K/M/G suffix (powers of 1024). */
static int parse_scaled(const char *text, int64_t *out)
{
    size_t n = strlen(text);
    int shift = 0;
    if (n > 1) {
        char c = text[n - 1];
        shift = c == 'K' || c == 'k' ? 10 : c == 'M' || c == 'm' ? 20 : c == 'G' || c == 'g' ? 30 : 0;
        if (shift)
            n--;
    }
    int base = n > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') ? 16 : 10;
    int64_t v;
    if (base_parse_i64(base == 16 ? text + 2 : text, base == 16 ? n - 2 : n, base, &v) != 0)
        return -1;
    if (shift && (v > (INT64_MAX >> shift) || v < (INT64_MIN >> shift)))
        return -1;
    *out = v * ((int64_t)1 << shift);
    return 0;
}

int synth_values_set(synth_values *sv, const char *name, const char *text, base_err *e)
{
    for (size_t i = 0; i < synth_values_count(sv); i++) {
        const synth_param_def *p = param_def(sv->def, i);
        if (strcmp(p->name, name) != 0)
            continue;
        int64_t v;
        if (parse_scaled(text, &v) != 0)
            return base_fail(e, BASE_EXIT_USAGE, "%s: --%s: expected an integer, found '%s'",
                             sv->def->name, name, text);
        if (v < p->min || v > p->max)
            return base_fail(e, BASE_EXIT_USAGE,
                             "%s: --%s=%" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]",
                             sv->def->name, name, v, p->min, p->max);
        sv->v[i] = v;
        sv->set[i] = 1;
        return 0;
    }
    base_nearest near;
    char buf[200];
    base_nearest_init(&near, name);
    for (size_t i = 0; i < synth_values_count(sv); i++)
        base_nearest_add(&near, param_def(sv->def, i)->name);
    base_nearest_format(&near, buf, sizeof buf);
    return base_fail(e, BASE_EXIT_USAGE, "%s: unknown parameter --%s (closest: %s)",
                     sv->def->name, name, buf);
}

/* ---- generation context ---- */

struct synth_gen {
    const synth_values *sv;
    trace_wdir *out;
    uint64_t next_addr;
    synth_result r;
    synth_warp w;            /* reused for every warp: its text buffer keeps its capacity */
};

#define SYNTH_HEAP_BASE 0x00007f2e3c000000ull

int64_t synth_p(const synth_gen *g, const char *name)
{
    for (size_t i = 0; i < synth_values_count(g->sv); i++)
        if (strcmp(param_def(g->sv->def, i)->name, name) == 0)
            return g->sv->v[i];
    fprintf(stderr, "lockstep: internal error: workload %s has no parameter '%s'\n",
            g->sv->def->name, name);
    abort();
}

uint64_t synth_seed(const synth_gen *g) { return (uint64_t)synth_p(g, "seed"); }

uint64_t synth_malloc(synth_gen *g, uint64_t bytes)
{
    uint64_t a = g->next_addr;
    g->next_addr += (bytes + 511) & ~(uint64_t)511;
    return a;
}

void synth_memcpy(synth_gen *g, uint64_t addr, uint64_t bytes)
{
    trace_wdir_memcpy(g->out, addr, bytes);
    g->r.memcpys++;
}

uint64_t synth_hash(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + i + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t synth_tid(const synth_warp *w, unsigned lane, int dim)
{
    uint32_t t = synth_ltid(w, lane);
    if (dim == 0)
        return t % w->ntid[0];
    t /= w->ntid[0];
    return dim == 1 ? t % w->ntid[1] : t / w->ntid[1];
}

/* ---- emitter ---- */

static void emit(synth_warp *w, uint32_t mask, const char *op, int dst, const uint64_t *addr,
                 int nsrc, va_list ap)
{
    trace_wline l = {0};
    l.pc = w->pc;
    l.mask = mask;
    l.opcode = op;
    l.imm = w->imm;
    if (dst >= 0) {
        l.ndst = 1;
        l.dst = (uint16_t)dst;
    }
    if (nsrc > TRACE_WRITE_MAX_SRC)
        abort(); /* more sources than Accel-Sim accepts: a workload bug */
    l.nsrc = (uint8_t)nsrc;
    for (int i = 0; i < nsrc; i++)
        l.src[i] = (uint16_t)va_arg(ap, int);
    if (addr) {
        l.width = trace_opcode_width(op, strlen(op));
        l.addr = addr;
    }
    trace_format_line(&w->text, &l);
    w->pc += 16;
    w->imm = 0;
    w->n++;
    w->thread_insts += (uint64_t)base_popcount32(mask);
}

void synth_op(synth_warp *w, uint32_t mask, const char *op, int dst, int nsrc, ...)
{
    va_list ap;
    va_start(ap, nsrc);
    emit(w, mask, op, dst, NULL, nsrc, ap);
    va_end(ap);
}

void synth_mem(synth_warp *w, uint32_t mask, const char *op, int dst, const uint64_t *addr,
               int nsrc, ...)
{
    va_list ap;
    va_start(ap, nsrc);
    emit(w, mask, op, dst, addr, nsrc, ap);
    va_end(ap);
}

/* ---- launches ---- */

static void run_warp(synth_gen *g, const synth_launch *l, const uint32_t cta[3], uint32_t warp,
                     uint32_t threads)
{
    synth_warp *w = &g->w;
    w->text.len = 0;
    if (w->text.s)
        w->text.s[0] = 0;
    w->n = w->thread_insts = 0;
    w->pc = 0;
    w->imm = 0;
    w->warp = warp;
    memcpy(w->ctaid, cta, sizeof w->ctaid);
    memcpy(w->nctaid, l->grid, sizeof w->nctaid);
    memcpy(w->ntid, l->block, sizeof w->ntid);
    w->cta_linear = cta[0] + (uint64_t)cta[1] * l->grid[0] +
                    (uint64_t)cta[2] * l->grid[0] * l->grid[1];
    uint32_t left = threads - warp * 32u;
    w->exists = left >= 32 ? SY_FULL : (1u << left) - 1u;
    l->warp(w, l->args);
    trace_wdir_warp(g->out, warp, w->n, w->text.s ? w->text.s : "", w->text.len);
    g->r.warps++;
    g->r.warp_insts += w->n;
    g->r.thread_insts += w->thread_insts;
}

int synth_launch_kernel(synth_gen *g, const synth_launch *l, base_err *e)
{
    trace_wheader h = {0};
    h.name = l->name;
    memcpy(h.grid, l->grid, sizeof h.grid);
    memcpy(h.block, l->block, sizeof h.block);
    h.shmem = l->shmem;
    h.nregs = l->nregs;
    h.binary_version = 80;
    h.stream_id = l->stream;
    h.shmem_base = SYNTH_SHMEM_BASE;
    h.local_base = SYNTH_LOCAL_BASE;
    if (trace_wdir_kernel_begin(g->out, &h, e) != 0)
        return -1;
    uint32_t threads = l->block[0] * l->block[1] * l->block[2];
    uint32_t nwarps = (threads + 31) / 32;
    uint32_t c[3];
    for (c[2] = 0; c[2] < l->grid[2]; c[2]++)
        for (c[1] = 0; c[1] < l->grid[1]; c[1]++)
            for (c[0] = 0; c[0] < l->grid[0]; c[0]++) {
                trace_wdir_cta_begin(g->out, c[0], c[1], c[2]);
                for (uint32_t k = 0; k < nwarps; k++)
                    run_warp(g, l, c, k, threads);
                trace_wdir_cta_end(g->out);
                g->r.ctas++;
            }
    g->r.kernels++;
    return trace_wdir_kernel_end(g->out, e);
}

int synth_launch_1d(synth_gen *g, const char *name, uint64_t n, uint32_t nregs, uint64_t stream,
                    void (*warp)(synth_warp *w, const void *args), const void *args,
                    base_err *e)
{
    uint64_t block = (uint64_t)synth_p(g, "block");
    synth_launch l = {name, {(uint32_t)((n + block - 1) / block), 1, 1}, {(uint32_t)block, 1, 1},
                      0, nregs, stream, warp, args};
    return synth_launch_kernel(g, &l, e);
}

/* ---- driver ---- */

static int write_params(const synth_values *sv, const char *dir, int xz, base_err *e)
{
    char *path = base_sprintf("%s/synth.txt", dir);
    base_wr *w = base_wr_open(path, 0, e);
    free(path);
    if (!w)
        return -1;
    base_wr_printf(w, "# written by lockstep synth; reproduce with:\n# lockstep synth %s",
                   sv->def->name);
    for (size_t i = 0; i < synth_values_count(sv); i++)
        base_wr_printf(w, " --%s=%" PRId64, synth_values_name(sv, i), sv->v[i]);
    base_wr_printf(w, "%s --out DIR\nworkload = %s\n", xz ? " --xz" : "", sv->def->name);
    for (size_t i = 0; i < synth_values_count(sv); i++)
        base_wr_printf(w, "%s = %" PRId64 "\n", synth_values_name(sv, i), sv->v[i]);
    return base_wr_commit(w, e);
}

int synth_write(const synth_values *sv, const char *dir, int xz, synth_result *r, base_err *e)
{
    synth_gen g;
    memset(&g, 0, sizeof g);
    g.sv = sv;
    g.next_addr = SYNTH_HEAP_BASE;
    g.out = trace_wdir_open(dir, xz, e);
    if (!g.out)
        return -1;
    int rc = sv->def->emit(&g, e);
    base_buf_free(&g.w.text);
    if (rc != 0) {
        trace_wdir_abort(g.out);
        return -1;
    }
    g.r.bytes = trace_wdir_bytes(g.out);
    if (write_params(sv, dir, xz, e) != 0) {
        trace_wdir_abort(g.out);
        return -1;
    }
    if (trace_wdir_commit(g.out, e) != 0)
        return -1;
    if (r)
        *r = g.r;
    return 0;
}

void synth_print_list(FILE *f)
{
    fprintf(f, "workloads (lockstep synth NAME --help lists a workload's parameters):\n");
    for (size_t i = 0; i < synth_count(); i++)
        fprintf(f, "  %-14s %s\n", REGISTRY[i]->name, REGISTRY[i]->summary);
}

void synth_print_params(FILE *f, const synth_def *d)
{
    fprintf(f, "%s: %s\nparameters (--name=value; K/M/G suffixes are powers of 1024):\n",
            d->name, d->summary);
    for (size_t i = 0; i <= nparams(d); i++) {
        const synth_param_def *p = param_def(d, i);
        fprintf(f, "  --%-12s %s (default %" PRId64 ", range %" PRId64 "..%" PRId64 ")\n",
                p->name, p->help, p->def, p->min, p->max);
    }
}
