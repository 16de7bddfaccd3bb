/* lockstep run: resolve the GPU, read the trace, place each kernel's CTAs.
 *
 * Until the timing model lands (issue 4) a run does everything that does not need cycles:
 * it echoes every knob, validates and streams every kernel of the trace, computes each
 * kernel's occupancy on the configured GPU, and reports the trace statistics per kernel and
 * in total (text on stdout, everything in JSON with --stats-json). It says plainly that no
 * cycle counts are produced yet. */
#include "cli.h"

#include "cta/occupancy.h"
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cli_opt OPTS[] = {
    {"stats-json", 1, "FILE", "write every statistic and the knob table as JSON (atomically)"},
    {NULL, 0, NULL, NULL},
};

/* The bundled sample: in the working directory (a checkout), else beside the binary. */
static const char *default_trace(char *buf, size_t n)
{
    snprintf(buf, n, "samples/synth/sgemm-tiled");
    if (access(buf, R_OK) == 0)
        return buf;
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(buf, n, "%s/../samples/synth/sgemm-tiled", exe);
        }
    }
    return buf;
}

typedef struct kernel_result {
    trace_header h;
    char *name, *path;
    cta_occupancy occ;
    stat_block stats;
} kernel_result;

static int run_kernel(cli_args *a, const char *path, const stat_set *set, kernel_result *r,
                      base_err *e)
{
    trace_kernel *k = trace_kernel_open(path, e);
    if (!k)
        return -1;
    r->h = *trace_kernel_header(k);
    r->name = base_strdup(r->h.name);
    r->path = base_strdup(path);
    r->h.name = r->name;
    r->h.nvbit_version = NULL;
    stat_block_init(&r->stats, set);
    int rc = cta_occupancy_compute(&a->knobs.v, r->h.threads_per_cta, r->h.nregs, (int64_t)r->h.shmem,
                                   (int64_t)r->h.ctas_in_grid, &r->occ, e);
    if (rc == 0)
        rc = trace_kernel_stats(k, &r->stats, e);
    if (rc && e->msg[0] && !strstr(e->msg, path)) {
        base_err inner = *e;
        base_err_clear(e);
        base_fail(e, inner.code, "%s: %s", path, inner.msg);
    }
    trace_kernel_close(k);
    return rc;
}

static void print_kernel(FILE *f, const knobs *kn, int i, const kernel_result *r)
{
    const trace_header *h = &r->h;
    char p[32], why[128];
    snprintf(p, sizeof p, "kernel%d", i + 1);
    fprintf(f, "\n# kernel %d: %s (%s)\n", i + 1, h->name, r->path);
    fprintf(f, "%s.grid = (%u,%u,%u)\n%s.block = (%u,%u,%u)\n%s.nregs = %u\n%s.shmem = %llu\n",
            p, h->grid[0], h->grid[1], h->grid[2], p, h->block[0], h->block[1], h->block[2], p,
            h->nregs, p, (unsigned long long)h->shmem);
    fprintf(f, "%s.binary_version = %d\n%s.cuda_stream_id = %llu\n", p, h->binary_version, p,
            (unsigned long long)h->stream_id);
    int64_t sms = kn->n_clusters * kn->cores_per_cluster;
    fprintf(f, "%s.ctas_per_sm = %lld\n%s.ctas_per_sm_limited_by = %s\n", p,
            (long long)r->occ.ctas, p, cta_binding_text(&r->occ, why, sizeof why));
    fprintf(f, "%s.cta_waves = %.4f\n", p,
            (double)h->ctas_in_grid / (double)(r->occ.ctas * sms));
    if (r->occ.carveout_kb >= 0)
        fprintf(f, "%s.smem_carveout_kb = %lld\n", p, (long long)r->occ.carveout_kb);
    stat_write_text(f, &r->stats, p, 0);
}

static void write_json(FILE *f, cli_args *a, kernel_result *res, int n, const stat_block *total)
{
    base_json j;
    base_json_init(&j, f);
    base_json_obj_begin(&j);
    base_json_kv_str(&j, "lockstep_version", LOCKSTEP_VERSION);
    base_json_kv_str(&j, "timing_model", "not implemented yet: no cycle statistics");
    base_json_key(&j, "knobs");
    knob_echo_json(&j, &a->knobs);
    base_json_key(&j, "kernels");
    base_json_arr_begin(&j);
    for (int i = 0; i < n; i++) {
        base_json_obj_begin(&j);
        base_json_kv_str(&j, "name", res[i].h.name);
        base_json_kv_str(&j, "file", res[i].path);
        base_json_key(&j, "occupancy");
        cta_occupancy_json(&j, &a->knobs.v, res[i].h.threads_per_cta, res[i].h.nregs,
                           (int64_t)res[i].h.shmem, &res[i].occ);
        base_json_key(&j, "stats");
        base_json_obj_begin(&j);
        stat_write_json(&j, &res[i].stats);
        base_json_obj_end(&j);
        base_json_obj_end(&j);
    }
    base_json_arr_end(&j);
    base_json_key(&j, "total");
    base_json_obj_begin(&j);
    stat_write_json(&j, total);
    base_json_obj_end(&j);
    base_json_obj_end(&j);
}

static int simulate(cli_args *a, const trace_list *l, const stat_set *set, kernel_result *res,
                    int *nres, base_err *e)
{
    for (size_t i = 0; i < l->ncmds; i++) {
        const trace_cmd *c = &l->cmds[i];
        if (c->kind == TRACE_CMD_KERNEL) {
            if (run_kernel(a, c->path, set, &res[*nres], e))
                return -1;
            (*nres)++;
        }
    }
    return 0;
}

static int run(cli_args *a)
{
    char buf[1200];
    const char *path = a->npos ? a->pos[0] : default_trace(buf, sizeof buf);
    base_err e = {0};
    trace_list l;
    if (trace_list_open(path, &l, &e))
        return cli_error(&e);
    cli_warn_unmodelled(&a->knobs);
    stat_set set;
    trace_stats_init(&set);
    kernel_result *res = base_calloc(l.nkernels + 1, sizeof *res);
    stat_block total;
    stat_block_init(&total, &set);
    trace_stats_add_list(&total, &l);
    int n = 0, rc = simulate(a, &l, &set, res, &n, &e);
    base_out out = {0};
    const char *json = cli_get(a, "stats-json");
    if (rc == 0 && json)
        rc = base_out_open(&out, json, &e);
    if (rc == 0) {
        cli_echo_header(stdout, a);
        printf("\n# trace %s: %zu kernels, %zu memcpys (%llu bytes), %zu other commands\n", path,
               l.nkernels, l.nmemcpy, (unsigned long long)l.memcpy_bytes, l.nother);
        printf("# timing model: not implemented yet (issue 4); reporting trace statistics and "
               "CTA placement only, no cycle counts\n");
        for (int i = 0; i < n; i++) {
            print_kernel(stdout, &a->knobs.v, i, &res[i]);
            stat_block_add(&total, &res[i].stats);
        }
        printf("\n# all kernels\n");
        stat_write_text(stdout, &total, "total", 0);
        if (json) {
            write_json(out.f, a, res, n, &total);
            rc = base_out_commit(&out, &e);
        }
    }
    /* res[n] may hold a kernel that failed half-way; unused entries are zero */
    for (size_t i = 0; i <= (size_t)n && i <= l.nkernels; i++) {
        free(res[i].name);
        free(res[i].path);
        stat_block_free(&res[i].stats);
    }
    free(res);
    stat_block_free(&total);
    stat_set_free(&set);
    trace_list_free(&l);
    return rc ? cli_error(&e) : 0;
}

const cli_cmd cli_cmd_run = {
    "run",
    "lockstep run [--preset=P | --config=F...] [--KNOB=V...] [--stats-json=FILE] [TRACE]",
    "simulate a trace on the configured GPU (default: the bundled sample)",
    "TRACE is an Accel-Sim trace directory, its kernelslist.g, or one kernel file. The timing\n"
    "model is not implemented yet: a run resolves and echoes the GPU configuration, reads and\n"
    "validates every kernel, computes each kernel's occupancy and reports trace statistics.",
    OPTS, 1, 0, 1, run, 0,
};
