/* Statistics over whole traces: `trace info`, `trace check`, trace_summarize. */
#include "trace.h"
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>

#include "../isa/isa.h"

const char *const trace_mem_bin_names[TRACE_NMEM] = {
    "global_ld", "global_st", "global_atomic", "local_ld", "local_st",
    "shared_ld", "shared_st", "shared_atomic", "const_ld", "generic",
};

static const stat_desc trace_descs[] = {
#define STAT_DEF_FILE "trace/trace_stats.def"
#include "../stat/stat_descs.inc"
};

enum {
#define STAT_COUNTER(n, h) TS_##n,
#define STAT_DIST(n, b, nb, h) TS_##n,
#define STAT_RATIO(n, a, b, h) TS_##n,
#include "trace_stats.def"
#undef STAT_COUNTER
#undef STAT_DIST
#undef STAT_RATIO
    TS_COUNT
};

#define SLOT(b, name) ((b)->set->slot[TS_##name])

void trace_stats_init(stat_set *s)
{
    memset(s, 0, sizeof *s);
    s->name = "trace";
    s->descs = trace_descs;
    s->ndescs = TS_COUNT;
    stat_set_init(s);
}

static int mem_bin(trace_space sp, trace_kind kd)
{
    switch (sp) {
    case TRACE_SPACE_GLOBAL:
        return kd == TRACE_KIND_LOAD    ? TRACE_MEM_GLOBAL_LD
               : kd == TRACE_KIND_STORE ? TRACE_MEM_GLOBAL_ST
                                        : TRACE_MEM_GLOBAL_ATOMIC;
    case TRACE_SPACE_LOCAL:
        return kd == TRACE_KIND_LOAD ? TRACE_MEM_LOCAL_LD : TRACE_MEM_LOCAL_ST;
    case TRACE_SPACE_SHARED:
        return kd == TRACE_KIND_LOAD    ? TRACE_MEM_SHARED_LD
               : kd == TRACE_KIND_STORE ? TRACE_MEM_SHARED_ST
                                        : TRACE_MEM_SHARED_ATOMIC;
    case TRACE_SPACE_CONST: return TRACE_MEM_CONST_LD;
    case TRACE_SPACE_GENERIC: return TRACE_MEM_GENERIC;
    default: return -1;
    }
}

typedef struct {
    uint64_t *warp, *thread;  /* per static instruction */
    size_t cap;
} sinst_counts;

/* Generic LD/ST: the space of each execution depends on its first active lane (A.8). */
static void count_generic(const trace_header *h, const trace_sinst *s, const trace_cta *c,
                          const trace_dinst *d, stat_block *b)
{
    uint64_t buf[32];
    const uint64_t *a = trace_cta_addrs(c, d, buf);
    int bin = a ? mem_bin(trace_generic_space(h->shmem_base, h->local_base, a[0]),
                          (trace_kind)s->kind)
                : TRACE_MEM_GENERIC;
    stat_inc(b, SLOT(b, mem_warp) + bin, 1);
    stat_inc(b, SLOT(b, mem_thread) + bin, (uint64_t)base_popcount32(d->mask));
    stat_inc(b, SLOT(b, generic_warp_insts), 1);
}

static void count_cta(trace_kernel *k, const trace_cta *c, sinst_counts *sc, stat_block *b)
{
    size_t ns = trace_kernel_nsinst(k);
    if (ns > sc->cap) {
        size_t old = sc->cap, cap2 = old;
        base_grow(&sc->warp, &sc->cap, ns, sizeof *sc->warp);
        base_grow(&sc->thread, &cap2, ns, sizeof *sc->thread);
        memset(sc->warp + old, 0, (sc->cap - old) * sizeof *sc->warp);
        memset(sc->thread + old, 0, (sc->cap - old) * sizeof *sc->thread);
    }
    stat_inc(b, SLOT(b, ctas), 1);
    stat_inc(b, SLOT(b, warps), c->nwarps_seen);
    uint64_t addrs = 0;
    for (size_t i = 0; i < c->ninsts; i++) {
        const trace_dinst *d = &c->insts[i];
        uint64_t lanes = (uint64_t)base_popcount32(d->mask);
        sc->warp[d->sidx]++;
        sc->thread[d->sidx] += lanes;
        if (d->addr != TRACE_NO_ADDR)
            addrs += lanes;
        const trace_sinst *s = trace_kernel_sinst(k, d->sidx);
        if (s->space == TRACE_SPACE_GENERIC)
            count_generic(trace_kernel_header(k), s, c, d, b);
    }
    stat_inc(b, SLOT(b, addresses), addrs);
}

/* Per-static-instruction counts into the per-class and per-space totals. */
static void fold(const trace_kernel *k, const sinst_counts *sc, stat_block *b)
{
    size_t ns = trace_kernel_nsinst(k);
    for (size_t i = 0; i < ns; i++) {
        const trace_sinst *s = trace_kernel_sinst(k, (uint32_t)i);
        uint64_t w = sc->warp[i], t = sc->thread[i];
        stat_inc(b, SLOT(b, warp_insts), w);
        stat_inc(b, SLOT(b, thread_insts), t);
        stat_inc(b, SLOT(b, class_warp) + s->cls, w);
        stat_inc(b, SLOT(b, cat_warp) + s->cat, w);
        int bin = mem_bin((trace_space)s->space, (trace_kind)s->kind);
        if (bin >= 0 && s->space != TRACE_SPACE_GENERIC) {
            stat_inc(b, SLOT(b, mem_warp) + bin, w);
            stat_inc(b, SLOT(b, mem_thread) + bin, t);
        }
    }
    stat_inc(b, SLOT(b, static_insts), ns);
}

int trace_kernel_stats(trace_kernel *k, stat_block *b, base_err *e)
{
    trace_cta c = {0};
    sinst_counts sc = {0};
    int rc;
    stat_inc(b, SLOT(b, kernels), 1);
    stat_inc(b, SLOT(b, ctas_grid), trace_kernel_header(k)->ctas_in_grid);
    while ((rc = trace_next_cta(k, &c, e)) == 1)
        count_cta(k, &c, &sc, b);
    if (rc == 0)
        fold(k, &sc, b);
    trace_cta_free(&c);
    free(sc.warp);
    free(sc.thread);
    return rc;
}

/* ---- whole traces ---- */

typedef struct {
    char *file, *name, *nvbit;
    trace_header h;  /* name/nvbit_version point to the copies above */
    stat_block b;
} kernel_result;

typedef struct {
    trace_list list;
    stat_set set;
    stat_block total;
    kernel_result *k;
    size_t nk;
} trace_run;

static int run_kernel(trace_run *run, const trace_cmd *cmd, base_err *e)
{
    trace_kernel *k = trace_kernel_open(cmd->path, e);
    if (!k) {
        if (cmd->line)
            trace_err_prefix(e, "%s:%llu", run->list.path, (unsigned long long)cmd->line);
        return -1;
    }
    kernel_result *r = &run->k[run->nk++];
    r->h = *trace_kernel_header(k);
    r->file = base_strdup(cmd->path);
    r->name = r->h.name = base_strdup(r->h.name);
    r->nvbit = r->h.nvbit_version = base_strdup(r->h.nvbit_version);
    stat_block_init(&r->b, &run->set);
    int rc = trace_kernel_stats(k, &r->b, e);
    trace_kernel_close(k);
    if (rc == 0)
        stat_block_add(&run->total, &r->b);
    return rc;
}

static void run_free(trace_run *run)
{
    for (size_t i = 0; i < run->nk; i++) {
        free(run->k[i].file);
        free(run->k[i].name);
        free(run->k[i].nvbit);
        stat_block_free(&run->k[i].b);
    }
    free(run->k);
    if (run->total.v)
        stat_block_free(&run->total);
    if (run->set.slot)
        stat_set_free(&run->set);
    trace_list_free(&run->list);
}

void trace_stats_add_list(stat_block *b, const trace_list *l)
{
    stat_inc(b, SLOT(b, memcpys), l->nmemcpy);
    stat_inc(b, SLOT(b, memcpy_bytes), l->memcpy_bytes);
    stat_inc(b, SLOT(b, other_commands), l->nother);
}

static int run_trace(trace_run *run, const char *path, base_err *e)
{
    memset(run, 0, sizeof *run);
    if (trace_list_open(path, &run->list, e))
        return -1;
    trace_stats_init(&run->set);
    stat_block_init(&run->total, &run->set);
    trace_stats_add_list(&run->total, &run->list);
    run->k = base_calloc(run->list.nkernels, sizeof *run->k);
    for (size_t i = 0; i < run->list.ncmds; i++)
        if (run->list.cmds[i].kind == TRACE_CMD_KERNEL && run_kernel(run, &run->list.cmds[i], e))
            return -1;
    return 0;
}

int trace_summarize(const char *path, trace_summary *s, base_err *e)
{
    trace_run run;
    memset(s, 0, sizeof *s);
    int rc = run_trace(&run, path, e);
    if (rc == 0) {
        const stat_block *t = &run.total;
        s->kernels = stat_get(t, "kernels");
        s->ctas = stat_get(t, "ctas");
        s->warps = stat_get(t, "warps");
        s->warp_insts = stat_get(t, "warp_insts");
        s->thread_insts = stat_get(t, "thread_insts");
        s->memcpys = stat_get(t, "memcpys");
        s->memcpy_bytes = stat_get(t, "memcpy_bytes");
        s->others = stat_get(t, "other_commands");
    }
    run_free(&run);
    return rc;
}

int trace_check(const char *path, FILE *out, base_err *e)
{
    trace_summary s;
    if (trace_summarize(path, &s, e))
        return -1;
    if (out)
        fprintf(out, "%s: ok: %llu kernels, %llu CTAs, %llu warp instructions, %llu thread "
                "instructions, %llu memcpys (%llu bytes), %llu other commands\n", path,
                (unsigned long long)s.kernels, (unsigned long long)s.ctas,
                (unsigned long long)s.warp_insts, (unsigned long long)s.thread_insts,
                (unsigned long long)s.memcpys, (unsigned long long)s.memcpy_bytes,
                (unsigned long long)s.others);
    return 0;
}

/* ---- printing ---- */

static void print_header_text(FILE *f, const char *p, const kernel_result *r)
{
    const trace_header *h = &r->h;
    fprintf(f, "%s.file = %s\n%s.name = %s\n", p, r->file, p, h->name);
    fprintf(f, "%s.kernel_id = %lld\n", p, (long long)h->kernel_id);
    fprintf(f, "%s.grid = (%u,%u,%u)\n", p, h->grid[0], h->grid[1], h->grid[2]);
    fprintf(f, "%s.block = (%u,%u,%u)\n", p, h->block[0], h->block[1], h->block[2]);
    fprintf(f, "%s.nregs = %u\n%s.shmem = %llu\n", p, h->nregs, p, (unsigned long long)h->shmem);
    fprintf(f, "%s.binary_version = %d\n%s.family = %s\n", p, h->binary_version, p,
            isa_family_name(h->family));
    fprintf(f, "%s.binary_version_in_reference = %d\n", p,
            isa_version_in_reference(h->binary_version));
    fprintf(f, "%s.tracer_version = %d\n%s.lineinfo = %d\n%s.nvbit_version = %s\n", p,
            h->tracer_version, p, h->lineinfo, p, h->nvbit_version);
    fprintf(f, "%s.cuda_stream_id = %llu\n", p, (unsigned long long)h->stream_id);
}

static void print_text(FILE *f, const trace_run *run)
{
    fprintf(f, "trace.path = %s\n", run->list.path);
    for (size_t i = 0; i < run->list.ncmds; i++) {
        const trace_cmd *c = &run->list.cmds[i];
        if (c->kind == TRACE_CMD_MEMCPY)
            fprintf(f, "memcpy.line%llu = 0x%016llx %llu\n", (unsigned long long)c->line,
                    (unsigned long long)c->addr, (unsigned long long)c->bytes);
        else if (c->kind == TRACE_CMD_OTHER)
            fprintf(f, "other.line%llu = %s\n", (unsigned long long)c->line, c->text);
    }
    for (size_t i = 0; i < run->nk; i++) {
        char p[32];
        snprintf(p, sizeof p, "kernel%zu", i + 1);
        print_header_text(f, p, &run->k[i]);
        stat_write_text(f, &run->k[i].b, p, 0);
    }
    stat_write_text(f, &run->total, "total", 0);
}

static void json_dim3(base_json *j, const char *key, const uint32_t d[3])
{
    base_json_key(j, key);
    base_json_arr_begin(j);
    for (int i = 0; i < 3; i++)
        base_json_u64(j, d[i]);
    base_json_arr_end(j);
}

static void json_kernel(base_json *j, const kernel_result *r)
{
    const trace_header *h = &r->h;
    base_json_obj_begin(j);
    base_json_kv_str(j, "file", r->file);
    base_json_kv_str(j, "name", h->name);
    base_json_kv_i64(j, "kernel_id", h->kernel_id);
    json_dim3(j, "grid", h->grid);
    json_dim3(j, "block", h->block);
    base_json_kv_u64(j, "nregs", h->nregs);
    base_json_kv_u64(j, "shmem", h->shmem);
    base_json_kv_i64(j, "binary_version", h->binary_version);
    base_json_kv_str(j, "family", isa_family_name(h->family));
    base_json_kv_bool(j, "binary_version_in_reference", isa_version_in_reference(h->binary_version));
    base_json_kv_i64(j, "tracer_version", h->tracer_version);
    base_json_kv_i64(j, "lineinfo", h->lineinfo);
    base_json_kv_str(j, "nvbit_version", h->nvbit_version);
    base_json_kv_u64(j, "cuda_stream_id", h->stream_id);
    base_json_key(j, "stats");
    base_json_obj_begin(j);
    stat_write_json(j, &r->b);
    base_json_obj_end(j);
    base_json_obj_end(j);
}

static void json_commands(base_json *j, const trace_list *l)
{
    base_json_key(j, "commands");
    base_json_arr_begin(j);
    static const char *const kinds[] = {"memcpy", "kernel", "other"};
    for (size_t i = 0; i < l->ncmds; i++) {
        const trace_cmd *c = &l->cmds[i];
        base_json_obj_begin(j);
        base_json_kv_u64(j, "line", c->line);
        base_json_kv_str(j, "kind", kinds[c->kind]);
        base_json_kv_str(j, "text", c->text);
        if (c->kind == TRACE_CMD_MEMCPY) {
            base_json_kv_u64(j, "addr", c->addr);
            base_json_kv_u64(j, "bytes", c->bytes);
        }
        base_json_obj_end(j);
    }
    base_json_arr_end(j);
}

static void print_json(FILE *f, const trace_run *run)
{
    base_json j;
    base_json_init(&j, f);
    base_json_obj_begin(&j);
    base_json_key(&j, "path");
    base_json_str(&j, run->list.path);
    json_commands(&j, &run->list);
    base_json_key(&j, "kernels");
    base_json_arr_begin(&j);
    for (size_t i = 0; i < run->nk; i++)
        json_kernel(&j, &run->k[i]);
    base_json_arr_end(&j);
    base_json_key(&j, "total");
    base_json_obj_begin(&j);
    stat_write_json(&j, &run->total);
    base_json_obj_end(&j);
    base_json_obj_end(&j);
    fputc('\n', f);
}

int trace_info(const char *path, FILE *out, int json, base_err *e)
{
    trace_run run;
    int rc = run_trace(&run, path, e);
    if (rc == 0) {
        if (json)
            print_json(out, &run);
        else
            print_text(out, &run);
    }
    run_free(&run);
    return rc;
}
