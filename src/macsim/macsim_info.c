/* Whole MacSim traces: one pass over every record, `trace info`, `trace check`. */
#include "macsim_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GPU_STATS(C, D, R)                                                                     \
    C(kernels, "kernel launches")                                                              \
    C(ctas, "CTAs (distinct warp id >> 16)")                                                   \
    C(warps, "warps (lines of Trace.txt)")                                                     \
    C(records, "records in the warp files, continuation and child records included")          \
    C(warp_insts, "warp instructions (records that are instructions)")                        \
    C(thread_insts, "thread instructions: sum of popcount(active mask)")                       \
    R(lanes_per_warp_inst, thread_insts, warp_insts, "mean active lanes per warp instruction") \
    C(mem_insts, "memory warp instructions (is-load set, or a store opcode)")                 \
    D(mem_warp, macsim_mem_bin_names, MACSIM_NSPACE * MACSIM_NKIND,                            \
      "memory warp instructions by space and kind")                                            \
    C(continuation_records, "ptx address-continuation records (4, or 2 with 32-bit slots)")   \
    C(child_records, "nvbit child records (one request each)")                                 \
    C(barriers, "barrier warp instructions")                                                   \
    C(branches, "control-flow warp instructions (control-flow type > 0)")                      \
    C(retired_by_macsim, "warp instructions MacSim retires: it never executes a warp's last "   \
                         "record (compare with INST_COUNT_TOT)")                               \
    D(opcode, NULL, 0, "warp instructions by opcode")

static const char *const CF_NAMES[] = {"none", "br", "cbr", "call", "ibr",
                                       "icall", "ico", "ret", "sys", "icbr"};

#define CPU_STATS(C, D, R)                                                                     \
    C(threads, "threads")                                                                      \
    C(insts, "instructions (records)")                                                         \
    C(load_insts, "instructions with at least one load")                                       \
    C(loads, "load accesses (at most 2 per instruction)")                                      \
    C(stores, "instructions with a store")                                                     \
    C(branches, "control-flow instructions (control-flow type > 0)")                           \
    D(cf, CF_NAMES, 10, "instructions by control-flow type")                                   \
    C(fp_insts, "floating-point instructions")                                                 \
    C(retired_by_macsim, "instructions MacSim retires: it never executes a thread's last "      \
                         "record (compare with INST_COUNT_TOT)")                               \
    D(opcode, NULL, 0, "instructions by opcode category")

#define E_C(n, h) G_##n,
#define E_D(n, b, nb, h) G_##n,
#define E_R(n, a, b, h) G_##n,
enum { GPU_STATS(E_C, E_D, E_R) G_COUNT };
#undef E_C
#undef E_D
#undef E_R
#define E_C(n, h) C_##n,
#define E_D(n, b, nb, h) C_##n,
#define E_R(n, a, b, h) C_##n,
enum { CPU_STATS(E_C, E_D, E_R) C_COUNT };
#undef E_C
#undef E_D
#undef E_R

static const stat_desc GPU_DESCS[] = {
    GPU_STATS(STAT_DESC_COUNTER, STAT_DESC_DIST, STAT_DESC_RATIO)};
static const stat_desc CPU_DESCS[] = {
    CPU_STATS(STAT_DESC_COUNTER, STAT_DESC_DIST, STAT_DESC_RATIO)};

#define GS(b, n) ((b)->set->slot[G_##n])
#define CS(b, n) ((b)->set->slot[C_##n])

/* The opcode DIST takes the trace type's names; a64 has none and drops it. */
static void init_set(macsim_run *r)
{
    int gpu = macsim_type_is_gpu(r->t.fmt.type);
    size_t n = gpu ? G_COUNT : C_COUNT;
    memcpy(r->descs, gpu ? GPU_DESCS : CPU_DESCS, n * sizeof *r->descs);
    unsigned nops;
    const char *const *names = macsim_opcode_names(r->t.fmt.type, &nops);
    r->descs[n - 1].bins = names;
    r->descs[n - 1].nbins = (int)nops;
    r->set.name = "macsim";
    r->set.descs = r->descs;
    r->set.ndescs = (int)(names ? n : n - 1);
    stat_set_init(&r->set);
    stat_block_init(&r->total, &r->set);
}

static void count_ginst(const macsim_fmt *f, const macsim_ginst *g, macsim_unit *u)
{
    stat_block *b = &u->b;
    stat_inc(b, GS(b, records), g->nrec);
    stat_inc(b, GS(b, warp_insts), 1);
    stat_inc(b, GS(b, thread_insts), (uint64_t)base_popcount32(g->mask));
    stat_inc(b, GS(b, opcode) + g->opcode, 1);
    stat_inc(b, GS(b, branches), g->cf_type != 0);
    stat_inc(b, GS(b, barriers), f->type == MACSIM_NVBIT ? g->opcode == MACSIM_NVBIT_BAR
                                     : g->opcode >= MACSIM_PTX_BAR_ARRIVE &&
                                           g->opcode <= MACSIM_PTX_BAR_ARRIVE + 2);
    if (g->pc < u->min_pc)
        u->min_pc = g->pc;
    if (!g->is_mem)
        return;
    stat_inc(b, GS(b, mem_insts), 1);
    stat_inc(b, GS(b, mem_warp) + g->space * MACSIM_NKIND + g->kind, 1);
    stat_inc(b, GS(b, child_records), g->nchild);
    stat_inc(b, GS(b, continuation_records), f->type == MACSIM_NVBIT ? 0 : g->nrec - 1);
    if (g->space == MACSIM_SPACE_SHARED) {
        uint64_t a[MACSIM_WARP_SIZE];
        macsim_lane_addrs(f, g, a);
        for (int i = 0; i < MACSIM_WARP_SIZE; i++)
            if (g->mask >> i & 1 && a[i] + g->mem_size > u->shmem_end)
                u->shmem_end = a[i] + g->mem_size;
    }
}

static void count_cinst(const macsim_cinst *c, stat_block *b)
{
    stat_inc(b, CS(b, insts), 1);
    stat_inc(b, CS(b, load_insts), c->num_loads > 0);
    stat_inc(b, CS(b, loads), c->num_loads);
    stat_inc(b, CS(b, stores), c->has_store);
    stat_inc(b, CS(b, branches), c->cf_type != 0);
    stat_inc(b, CS(b, cf) + c->cf_type, 1);
    stat_inc(b, CS(b, fp_insts), c->is_fp != 0);
    if (b->set->ndescs == C_COUNT)
        stat_inc(b, CS(b, opcode) + c->opcode, 1);
}

/* One warp or thread file, start to end: instructions read, or -1. */
static int64_t read_file(const macsim_run *r, int dirfd, const char *name, const char *path,
                         macsim_unit *u, base_buf *keep, macsim_inflater *z, base_err *e)
{
    macsim_stream *s = macsim_stream_open_at(dirfd, name, path, &r->t.fmt, z, e);
    if (!s)
        return -1;
    if (keep) {
        base_buf_put(keep, "", 0); /* kept, even when empty: s is set */
        macsim_stream_keep(s, keep);
    }
    int gpu = macsim_type_is_gpu(r->t.fmt.type), rc;
    int64_t n = 0;
    macsim_ginst g;
    macsim_cinst c;
    memset(&g, 0, sizeof g); /* filled by the stream; cleared so that no inlining of the */
    memset(&c, 0, sizeof c); /* readers makes a compiler think otherwise (-flto) */
    while ((rc = gpu ? macsim_stream_gpu(s, &g, e) : macsim_stream_cpu(s, &c, e)) == 1) {
        if (gpu)
            count_ginst(&r->t.fmt, &g, u);
        else
            count_cinst(&c, &u->b);
        n++;
    }
    macsim_stream_close(s);
    return rc ? -1 : n;
}

/* Warp by warp, so one gzip stream is open at a time (E.23). */
static int read_unit(macsim_run *r, size_t i, macsim_inflater *z, base_err *e)
{
    macsim_unit *u = &r->u[i];
    stat_block *b = &u->b;
    stat_block_init(b, &r->set);
    u->min_pc = UINT64_MAX;
    int gpu = macsim_type_is_gpu(r->t.fmt.type);
    const macsim_kernel *k = gpu ? &r->t.kernels[i] : NULL;
    uint32_t nfiles = gpu ? k->nwarps : 1;
    if (gpu && r->keep_left)
        u->kept = base_calloc(nfiles, sizeof *u->kept);
    size_t skip = 0;
    int dirfd = gpu ? macsim_kernel_dir_open(k, &skip) : -1, rc = 0;
    for (uint32_t w = 0; w < nfiles; w++) {
        char *p = gpu ? macsim_warp_file(k, k->warp_ids[w]) : macsim_thread_file(&r->t,
                                                                                 r->t.tids[i]);
        base_buf *keep = u->kept && r->keep_left ? &u->kept[w] : NULL;
        int64_t n = read_file(r, dirfd, p + skip, p, u, keep, z, e);
        free(p);
        if ((rc = n < 0))
            break;
        if (keep)
            r->keep_left -= keep->len < r->keep_left ? keep->len : r->keep_left;
        stat_inc(b, gpu ? GS(b, retired_by_macsim) : CS(b, retired_by_macsim),
                 n ? (uint64_t)n - 1 : 0);
    }
    if (dirfd >= 0)
        close(dirfd);
    if (rc)
        return -1;
    if (gpu) {
        stat_inc(b, GS(b, kernels), 1);
        stat_inc(b, GS(b, ctas), k->nctas);
        stat_inc(b, GS(b, warps), k->nwarps);
    } else {
        stat_inc(b, CS(b, threads), 1);
    }
    stat_block_add(&r->total, b);
    return 0;
}

int macsim_run_trace(macsim_run *r, const char *path, const macsim_opts *o, base_err *e)
{
    return macsim_run_trace_keep(r, path, o, 0, e);
}

int macsim_run_trace_keep(macsim_run *r, const char *path, const macsim_opts *o, size_t budget,
                          base_err *e)
{
    memset(r, 0, sizeof *r);
    r->keep_left = budget;
    if (macsim_open(path, o ? o->addr32 : 0, &r->t, e))
        return -1;
    if (o && o->gpu_only && !macsim_type_is_gpu(r->t.fmt.type))
        return base_fail(e, BASE_EXIT_INPUT, "%s: a MacSim %s (CPU) trace: only GPU traces "
                         "run or convert (the CPU side is not modelled yet; trace info and "
                         "check read it)", r->t.path, macsim_type_name(r->t.fmt.type));
    init_set(r);
    size_t n = macsim_type_is_gpu(r->t.fmt.type) ? r->t.nkernels : r->t.nthreads;
    r->u = base_calloc(n, sizeof *r->u);
    macsim_inflater *z = macsim_inflater_new();
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        r->nu = i + 1;
        rc = read_unit(r, i, z, e);
    }
    macsim_inflater_free(z);
    return rc;
}

void macsim_run_free(macsim_run *r)
{
    for (size_t i = 0; i < r->nu; i++) {
        stat_block_free(&r->u[i].b);
        if (r->u[i].kept) {
            uint32_t nw = r->t.kernels[i].nwarps;
            for (uint32_t w = 0; w < nw; w++)
                base_buf_free(&r->u[i].kept[w]);
            free(r->u[i].kept);
        }
    }
    free(r->u);
    if (r->set.slot) {
        stat_block_free(&r->total);
        stat_set_free(&r->set);
    }
    macsim_close(&r->t);
}

void macsim_run_summary(const macsim_run *r, macsim_summary *s)
{
    const stat_block *b = &r->total;
    memset(s, 0, sizeof *s);
    s->cpu = !macsim_type_is_gpu(r->t.fmt.type);
    if (s->cpu) {
        s->threads = b->v[CS(b, threads)];
        s->records = s->insts = b->v[CS(b, insts)];
        s->loads = b->v[CS(b, load_insts)];
        s->stores = b->v[CS(b, stores)];
        s->branches = b->v[CS(b, branches)];
        s->retired = b->v[CS(b, retired_by_macsim)];
        return;
    }
    s->kernels = b->v[GS(b, kernels)];
    s->ctas = b->v[GS(b, ctas)];
    s->warps = b->v[GS(b, warps)];
    s->records = b->v[GS(b, records)];
    s->insts = b->v[GS(b, warp_insts)];
    s->thread_insts = b->v[GS(b, thread_insts)];
    s->mem_insts = b->v[GS(b, mem_insts)];
    for (int sp = 0; sp < MACSIM_NSPACE; sp++) {
        s->loads += b->v[GS(b, mem_warp) + sp * MACSIM_NKIND + MACSIM_LOAD];
        s->stores += b->v[GS(b, mem_warp) + sp * MACSIM_NKIND + MACSIM_STORE];
    }
    s->branches = b->v[GS(b, branches)];
    s->barriers = b->v[GS(b, barriers)];
    s->retired = b->v[GS(b, retired_by_macsim)];
}

int macsim_summarize(const char *path, const macsim_opts *o, macsim_summary *s, base_err *e)
{
    macsim_run r;
    int rc = macsim_run_trace(&r, path, o, e);
    if (rc == 0)
        macsim_run_summary(&r, s);
    macsim_run_free(&r);
    return rc;
}

int macsim_check(const char *path, const macsim_opts *o, FILE *out, base_err *e)
{
    macsim_run r;
    int rc = macsim_run_trace(&r, path, o, e);
    if (rc == 0 && out) {
        macsim_summary s;
        macsim_run_summary(&r, &s);
        const macsim_fmt *f = &r.t.fmt;
        fprintf(out, "%s: ok: macsim %s ", path, macsim_type_name(f->type));
        if (s.cpu)
            fprintf(out, "%s, %llu threads, %llu instructions, %llu loads, %llu stores, %llu "
                    "branches", r.t.version_text, (unsigned long long)s.threads,
                    (unsigned long long)s.insts, (unsigned long long)s.loads,
                    (unsigned long long)s.stores, (unsigned long long)s.branches);
        else
            fprintf(out, "v%d, %llu kernels, %llu CTAs, %llu warps, %llu warp instructions, "
                    "%llu thread instructions, %llu memory instructions", f->version,
                    (unsigned long long)s.kernels, (unsigned long long)s.ctas,
                    (unsigned long long)s.warps, (unsigned long long)s.insts,
                    (unsigned long long)s.thread_insts, (unsigned long long)s.mem_insts);
        fprintf(out, ", %llu retired by MacSim\n", (unsigned long long)s.retired);
    }
    macsim_run_free(&r);
    return rc;
}

/* ---- printing ---- */

#define TOP_OPCODES 8

/* The opcode DIST of a block: its names and counts, or 0 when the set has none (a64). */
static unsigned opcode_dist(const stat_block *b, int gpu, const char *const **names,
                            const uint64_t **v)
{
    int d = gpu ? G_opcode : C_opcode;
    *names = NULL;
    *v = NULL;
    if (d >= b->set->ndescs)
        return 0;
    *names = b->set->descs[d].bins;
    *v = b->v + b->set->slot[d];
    return (unsigned)b->set->descs[d].nbins;
}

/* The most frequent opcodes, most frequent first (ties: lower opcode first). */
static int top_opcodes(const stat_block *b, int gpu, unsigned top[TOP_OPCODES])
{
    const char *const *names = NULL;
    const uint64_t *v = NULL;
    unsigned nb = opcode_dist(b, gpu, &names, &v);
    unsigned char used[256] = {0};
    int n = 0;
    for (; n < TOP_OPCODES; n++) {
        int best = -1;
        for (unsigned op = 0; op < nb && op < sizeof used; op++)
            if (v[op] && !used[op] && (best < 0 || v[op] > v[best]))
                best = (int)op;
        if (best < 0)
            break;
        used[best] = 1;
        top[n] = (unsigned)best;
    }
    return n;
}

static void text_top(FILE *f, const char *p, const stat_block *b, int gpu)
{
    const char *const *names = NULL;
    const uint64_t *v = NULL;
    unsigned top[TOP_OPCODES];
    int n = top_opcodes(b, gpu, top);
    if (n == 0)
        return;
    opcode_dist(b, gpu, &names, &v);
    fprintf(f, "%s.top_opcodes =", p);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %s %llu", i ? "," : "", names[top[i]], (unsigned long long)v[top[i]]);
    fputc('\n', f);
}

static void print_text(FILE *f, const macsim_run *r)
{
    const macsim_trace *t = &r->t;
    int gpu = macsim_type_is_gpu(t->fmt.type);
    fprintf(f, "trace.path = %s\ntrace.format = macsim\ntrace.type = %s\n", t->path,
            macsim_type_name(t->fmt.type));
    if (gpu)
        fprintf(f, "trace.version = %d\n", t->fmt.version);
    else
        fprintf(f, "trace.version = %s\n", t->version_text);
    for (size_t i = 0; i < r->nu; i++) {
        char p[32];
        if (gpu) {
            const macsim_kernel *k = &t->kernels[i];
            snprintf(p, sizeof p, "kernel%zu", i + 1);
            fprintf(f, "%s.file = %s\n%s.name = %s\n", p, k->file, p, k->name);
            fprintf(f, "%s.type = %s\n%s.version = %d\n", p, macsim_type_name(t->fmt.type), p,
                    t->fmt.version);
            fprintf(f, "%s.max_ctas_per_sm = %u\n%s.warps_per_cta = %u\n", p, k->max_ctas, p,
                    k->warps_per_cta);
            fprintf(f, "%s.info_file = %s\n", p, k->has_info ? "present (counts not used)"
                                                               : "missing");
        } else {
            snprintf(p, sizeof p, "thread%u", t->tids[i]);
            char *file = macsim_thread_file(t, t->tids[i]);
            fprintf(f, "%s.file = %s\n%s.start_inst = %llu\n", p, file, p,
                    (unsigned long long)t->starts[i]);
            free(file);
        }
        stat_write_text(f, &r->u[i].b, p, 0);
        text_top(f, p, &r->u[i].b, gpu);
    }
    stat_write_text(f, &r->total, "total", 0);
    text_top(f, "total", &r->total, gpu);
}

static void json_stats(base_json *j, const stat_block *b)
{
    base_json_key(j, "stats");
    base_json_obj_begin(j);
    stat_write_json(j, b);
    base_json_obj_end(j);
}

static void json_unit(base_json *j, const macsim_run *r, size_t i, int gpu)
{
    base_json_obj_begin(j);
    if (gpu) {
        const macsim_kernel *k = &r->t.kernels[i];
        base_json_kv_str(j, "file", k->file);
        base_json_kv_str(j, "name", k->name);
        base_json_kv_str(j, "type", macsim_type_name(r->t.fmt.type));
        base_json_kv_i64(j, "version", r->t.fmt.version);
        base_json_kv_u64(j, "max_ctas_per_sm", k->max_ctas);
        base_json_kv_u64(j, "warps_per_cta", k->warps_per_cta);
        base_json_kv_bool(j, "info_file", k->has_info);
    } else {
        char *file = macsim_thread_file(&r->t, r->t.tids[i]);
        base_json_kv_str(j, "file", file);
        free(file);
        base_json_kv_u64(j, "tid", r->t.tids[i]);
        base_json_kv_u64(j, "start_inst", r->t.starts[i]);
    }
    json_stats(j, &r->u[i].b);
    base_json_obj_end(j);
}

static void print_json(FILE *f, const macsim_run *r)
{
    int gpu = macsim_type_is_gpu(r->t.fmt.type);
    base_json j;
    base_json_init(&j, f);
    base_json_obj_begin(&j);
    base_json_kv_str(&j, "path", r->t.path);
    base_json_kv_str(&j, "format", "macsim");
    base_json_kv_str(&j, "type", macsim_type_name(r->t.fmt.type));
    if (gpu)
        base_json_kv_i64(&j, "version", r->t.fmt.version);
    else
        base_json_kv_str(&j, "version", r->t.version_text);
    base_json_key(&j, gpu ? "kernels" : "threads");
    base_json_arr_begin(&j);
    for (size_t i = 0; i < r->nu; i++)
        json_unit(&j, r, i, gpu);
    base_json_arr_end(&j);
    base_json_key(&j, "total");
    base_json_obj_begin(&j);
    json_stats(&j, &r->total);
    base_json_obj_end(&j);
    base_json_obj_end(&j);
    fputc('\n', f);
}

int macsim_info(const char *path, const macsim_opts *o, FILE *out, int json, base_err *e)
{
    macsim_run r;
    int rc = macsim_run_trace(&r, path, o, e);
    if (rc == 0) {
        if (json)
            print_json(out, &r);
        else
            print_text(out, &r);
    }
    macsim_run_free(&r);
    return rc;
}
