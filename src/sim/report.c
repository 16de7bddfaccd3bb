/* sim report: reduced statistics, Accel-Sim-named headline lines, text and JSON. */
#include "sim_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sim_totals_init(sim_totals *t)
{
    t->cycle = 0;
    stat_block_init(&t->sm, sm_stats_set());
    stat_block_init(&t->l1d, cache_stats_set());
    stat_block_init(&t->l2, cache_stats_set());
    stat_block_init(&t->dram, dram_stats_set());
    stat_block_init(&t->icnt, icnt_stats_set());
    stat_block_init(&t->part, mem_part_stats_set());
}

void sim_totals_free(sim_totals *t)
{
    if (!t->sm.v)
        return;
    stat_block_free(&t->sm);
    stat_block_free(&t->l1d);
    stat_block_free(&t->l2);
    stat_block_free(&t->dram);
    stat_block_free(&t->icnt);
    stat_block_free(&t->part);
}

/* Sums every unit's block in index order (the one reduction order, whatever the threads). */
void sim_snapshot(sim *g, sim_totals *t)
{
    sim_sync_channels(g);
    for (uint32_t i = 0; i < g->n_sm; i++)
        sm_park_settle(g->sm[i], g->sm_upto);
    t->cycle = g->cycle;
    stat_block_zero(&t->sm);
    stat_block_zero(&t->l1d);
    stat_block_zero(&t->l2);
    stat_block_zero(&t->dram);
    stat_block_zero(&t->icnt);
    stat_block_zero(&t->part);
    for (uint32_t i = 0; i < g->n_sm; i++) {
        stat_block_add(&t->sm, sm_stats(g->sm[i]));
        stat_block_add(&t->l1d, sm_l1d_stats(g->sm[i]));
    }
    for (uint32_t c = 0; c < g->n_chan; c++) {
        for (uint32_t s = 0; s < g->n_sub; s++)
            stat_block_add(&t->l2, mem_part_l2_stats(g->part[c], s));
        stat_block_add(&t->dram, dram_stats(mem_part_dram(g->part[c])));
        stat_block_add(&t->part, mem_part_stats(g->part[c]));
    }
    stat_block_add(&t->icnt, icnt_stats(g->net));
}

static void block_sub(stat_block *d, const stat_block *a, const stat_block *b)
{
    for (int i = 0; i < d->set->nslots; i++)
        d->v[i] = a->v[i] - b->v[i];
}

void sim_totals_sub(sim_totals *d, const sim_totals *a, const sim_totals *b)
{
    d->cycle = a->cycle - b->cycle;
    block_sub(&d->sm, &a->sm, &b->sm);
    block_sub(&d->l1d, &a->l1d, &b->l1d);
    block_sub(&d->l2, &a->l2, &b->l2);
    block_sub(&d->dram, &a->dram, &b->dram);
    block_sub(&d->icnt, &a->icnt, &b->icnt);
    block_sub(&d->part, &a->part, &b->part);
}

/* ---- headline statistics ---------------------------------------------------------------- */

typedef struct headline {
    const char *name;
    double v;
    int is_int;
} headline;

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : NAN; }

/* Accel-Sim's names (FORMATS.md C) for what lockstep also measures. seg: the kernel's
 * segment; cum: cumulative at its end (the gpu_tot_* lines). */
static size_t headlines(const sim_totals *seg, const sim_totals *cum, headline *h)
{
    size_t n = 0;
#define HI(nm, val) h[n++] = (headline){nm, (double)(val), 1}
#define HF(nm, val) h[n++] = (headline){nm, (val), 0}
    uint64_t insn = stat_get(&seg->sm, "thread_insts"), tinsn = stat_get(&cum->sm, "thread_insts");
    HI("gpu_sim_cycle", seg->cycle);
    HI("gpu_sim_insn", insn);
    HF("gpu_ipc", ratio(insn, seg->cycle));
    HI("gpu_tot_sim_cycle", cum->cycle);
    HI("gpu_tot_sim_insn", tinsn);
    HF("gpu_tot_ipc", ratio(tinsn, cum->cycle));
    HI("gpgpu_n_tot_w_icount", stat_get(&seg->sm, "warp_insts"));
    HI("gpu_tot_issued_cta", stat_get(&cum->sm, "ctas"));
    HI("gpgpu_n_load_insn", stat_get(&seg->sm, "load_insn"));
    HI("gpgpu_n_store_insn", stat_get(&seg->sm, "store_insn"));
    HI("gpgpu_n_shmem_insn", stat_get(&seg->sm, "shmem_insn"));
    const struct { const char *p; const stat_block *b; } c[2] = {{"L1D", &seg->l1d}, {"L2", &seg->l2}};
    for (int i = 0; i < 2; i++) {
        char nm[4][64];
        uint64_t acc = stat_get(c[i].b, "accesses"), miss = stat_get(c[i].b, "misses");
        snprintf(nm[0], 64, "%s_total_cache_accesses", c[i].p);
        snprintf(nm[1], 64, "%s_total_cache_misses", c[i].p);
        snprintf(nm[2], 64, "%s_total_cache_miss_rate", c[i].p);
        snprintf(nm[3], 64, "%s_total_cache_reservation_fails", c[i].p);
        h[n++] = (headline){base_strdup(nm[0]), (double)acc, 1};
        h[n++] = (headline){base_strdup(nm[1]), (double)miss, 1};
        h[n++] = (headline){base_strdup(nm[2]), ratio(miss, acc), 0};
        h[n++] = (headline){base_strdup(nm[3]), (double)stat_get(c[i].b, "res_fails"), 1};
    }
    HI("total_dram_reads", stat_get(&seg->dram, "reads"));
    HI("total_dram_writes", stat_get(&seg->dram, "writes"));
    HF("dram_row_buffer_locality", ratio(stat_get(&seg->dram, "row_hits"),
                                         stat_get(&seg->dram, "reads") + stat_get(&seg->dram, "writes")));
    HF("dram_bw_util", ratio(stat_get(&seg->dram, "busy_cycles"), stat_get(&seg->dram, "cmd_cycles")));
    HF("averagemflatency", ratio(stat_get(&cum->sm, "mem_latency_sum"), stat_get(&cum->sm, "mem_latency_n")));
#undef HI
#undef HF
    return n;
}

static int owned(const char *name) { return strstr(name, "_total_cache_") != NULL; }

static void print_block(FILE *f, const sim_totals *seg, const sim_totals *cum, const char *p)
{
    headline h[40];
    size_t n = headlines(seg, cum, h);
    for (size_t i = 0; i < n; i++) {
        const char *part[] = {p, h[i].name};
        if (h[i].is_int && h[i].v >= 0 && h[i].v < 0x1p63 && h[i].v == floor(h[i].v))
            base_put_u64_line(f, part, 2, (uint64_t)h[i].v); /* as %.0f prints it */
        else if (h[i].is_int)
            fprintf(f, "%s%s = %.0f\n", p, h[i].name, h[i].v);
        else if (isnan(h[i].v))
            fprintf(f, "%s%s = nan\n", p, h[i].name);
        else
            fprintf(f, "%s%s = %.4f\n", p, h[i].name, h[i].v);
        if (owned(h[i].name))
            free((char *)h[i].name);
    }
}

static void print_detail(FILE *f, const sim_totals *t, const char *p)
{
    char b[64];
    const struct { const char *n; const stat_block *s; } sets[] = {
        {"sm", &t->sm}, {"l1d", &t->l1d}, {"l2", &t->l2}, {"dram", &t->dram}, {"icnt", &t->icnt},
        {"mem", &t->part}};
    for (size_t i = 0; i < BASE_ARRAY_LEN(sets); i++) {
        snprintf(b, sizeof b, "%s%s", p, sets[i].n);
        stat_write_text(f, sets[i].s, b, 0);
    }
}

void sim_print_kernel(FILE *f, const sim_kernel_result *k, size_t idx, size_t n)
{
    char why[128];
    fprintf(f, "\n# kernel %zu/%zu: %s (uid %u, stream %llu, %s)\n", idx + 1, n, k->name, k->uid,
            (unsigned long long)k->stream, k->path);
    fprintf(f, "kernel_name = %s\nkernel_launch_uid = %u\n", k->name, k->uid);
    fprintf(f, "grid = (%u,%u,%u)\nblock = (%u,%u,%u)\n", k->grid[0], k->grid[1], k->grid[2],
            k->block[0], k->block[1], k->block[2]);
    fprintf(f, "ctas_per_sm = %lld (limited by %s)\n", (long long)k->occ.ctas,
            cta_binding_text(&k->occ, why, sizeof why));
    fprintf(f, "launch_cycle = %llu\nend_cycle = %llu\n", (unsigned long long)k->launch_cycle,
            (unsigned long long)k->end_cycle);
    print_block(f, &k->delta, &k->cum, "");
    print_detail(f, &k->delta, "kernel.");
}

void sim_print_totals(FILE *f, const sim_result *r)
{
    fprintf(f, "\n# all kernels%s\n", r->stopped ? " (stopped early by max_cycles/max_insts)" : "");
    print_block(f, &r->total, &r->total, "total.");
    print_detail(f, &r->total, "total.");
    if (r->ledger < 0) {
        fprintf(f, "# ledger: the statistics do not balance: %s\n", r->ledger_why);
        return;
    }
    fprintf(f, "# ledger: %d identities between the units' statistics hold", r->ledger);
    if (r->ledger_eq)
        fprintf(f, ", the %d of a request's way as equalities (nothing was in flight at the end)",
                r->ledger_eq);
    fprintf(f, ", and %d on single SMs, L2 slices and DRAM channels (docs/TIMING.md, \"The "
               "ledger\")\n", r->ledger_units);
}

/* ---- JSON --------------------------------------------------------------------------------- */

static void json_totals(base_json *j, const sim_totals *seg, const sim_totals *cum)
{
    headline h[40];
    size_t n = headlines(seg, cum, h);
    base_json_obj_begin(j);
    for (size_t i = 0; i < n; i++) {
        if (h[i].is_int)
            base_json_kv_u64(j, h[i].name, (uint64_t)h[i].v);
        else
            base_json_kv_double(j, h[i].name, h[i].v);
        if (owned(h[i].name))
            free((char *)h[i].name);
    }
    const struct { const char *n; const stat_block *s; } sets[] = {
        {"sm", &seg->sm}, {"l1d", &seg->l1d}, {"l2", &seg->l2}, {"dram", &seg->dram},
        {"icnt", &seg->icnt}, {"mem", &seg->part}};
    for (size_t i = 0; i < BASE_ARRAY_LEN(sets); i++) {
        base_json_key(j, sets[i].n);
        base_json_obj_begin(j);
        stat_write_json(j, sets[i].s);
        base_json_obj_end(j);
    }
    base_json_obj_end(j);
}

static void json_units(base_json *j, const char *key, const stat_block *b, uint32_t n,
                       const stat_block *b2, const char *k2)
{
    base_json_key(j, key);
    base_json_arr_begin(j);
    for (uint32_t i = 0; i < n; i++) {
        base_json_obj_begin(j);
        base_json_kv_u64(j, "id", i);
        stat_write_json(j, &b[i]);
        if (b2) {
            base_json_key(j, k2);
            base_json_obj_begin(j);
            stat_write_json(j, &b2[i]);
            base_json_obj_end(j);
        }
        base_json_obj_end(j);
    }
    base_json_arr_end(j);
}

void sim_json_result(base_json *j, const sim_result *r)
{
    base_json_key(j, "kernels");
    base_json_arr_begin(j);
    for (size_t i = 0; i < r->nk; i++) {
        const sim_kernel_result *k = &r->k[i];
        base_json_obj_begin(j);
        base_json_kv_str(j, "name", k->name);
        base_json_kv_str(j, "file", k->path);
        base_json_kv_u64(j, "uid", k->uid);
        base_json_kv_u64(j, "stream", k->stream);
        base_json_kv_u64(j, "ctas", k->ctas);
        base_json_kv_u64(j, "ctas_per_sm", (uint64_t)k->occ.ctas);
        base_json_kv_u64(j, "launch_cycle", k->launch_cycle);
        base_json_kv_u64(j, "end_cycle", k->end_cycle);
        base_json_key(j, "stats");
        json_totals(j, &k->delta, &k->cum);
        base_json_obj_end(j);
    }
    base_json_arr_end(j);
    base_json_kv_bool(j, "stopped_early", r->stopped);
    base_json_key(j, "ledger");
    base_json_obj_begin(j);
    base_json_kv_bool(j, "holds", r->ledger >= 0);
    base_json_kv_bool(j, "drained", r->drained);
    if (r->ledger >= 0) {
        base_json_kv_u64(j, "identities", (uint64_t)r->ledger);
        base_json_kv_u64(j, "unit_checks", (uint64_t)r->ledger_units);
    }
    else
        base_json_kv_str(j, "failed", r->ledger_why);
    base_json_obj_end(j);
    base_json_key(j, "total");
    json_totals(j, &r->total, &r->total);
    json_units(j, "per_sm", r->per_sm, r->n_sm, r->per_sm_l1d, "l1d");
    json_units(j, "per_l2_slice", r->per_sub_l2, r->n_sub, NULL, NULL);
    json_units(j, "per_dram_channel", r->per_chan_dram, r->n_chan, NULL, NULL);
}

void sim_result_free(sim_result *r)
{
    if (r->prof) {
        free(r->prof->busy_s);
        free(r->prof->tasks);
        free(r->prof);
        r->prof = NULL;
    }
    free(r->lprof);
    r->lprof = NULL;
    if (r->wprof) {
        free(r->wprof->busy_s);
        free(r->wprof->tasks);
        free(r->wprof);
        r->wprof = NULL;
    }
    for (size_t i = 0; i < r->nk; i++) {
        free(r->k[i].name);
        free(r->k[i].path);
        sim_totals_free(&r->k[i].delta);
        sim_totals_free(&r->k[i].cum);
    }
    free(r->k);
    sim_totals_free(&r->total);
    for (uint32_t i = 0; r->per_sm && i < r->n_sm; i++) {
        stat_block_free(&r->per_sm[i]);
        stat_block_free(&r->per_sm_l1d[i]);
    }
    for (uint32_t i = 0; r->per_sub_l2 && i < r->n_sub; i++)
        stat_block_free(&r->per_sub_l2[i]);
    for (uint32_t i = 0; r->per_chan_dram && i < r->n_chan; i++)
        stat_block_free(&r->per_chan_dram[i]);
    free(r->per_sm);
    free(r->per_sm_l1d);
    free(r->per_sub_l2);
    free(r->per_chan_dram);
    memset(r, 0, sizeof *r);
}
