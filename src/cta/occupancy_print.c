/* Printers for the occupancy report (kept apart from the computation, as stats printers are). */
#include "occupancy.h"

static void print_limit(FILE *f, const cta_occupancy *o, int lim, const char *how)
{
    char v[32];
    if (o->limit[lim] == CTA_UNLIMITED)
        snprintf(v, sizeof v, "-");
    else
        snprintf(v, sizeof v, "%lld", (long long)o->limit[lim]);
    fprintf(f, "  %-14s %6s  %s%s\n", cta_limit_name(lim), v, how,
            (o->binding & (1u << lim)) ? "   <- limits" : "");
}

void cta_occupancy_print(FILE *f, const knobs *k, int64_t threads, int64_t regs, int64_t smem,
                         const cta_occupancy *o)
{
    char how[256], why[128];
    int cuda = k->occupancy_mode == 1;
    fprintf(f, "occupancy: %lld CTAs per SM (%lld warps, %.1f%% of %lld warp slots), limited by %s%s\n",
            (long long)o->ctas, (long long)o->warps_resident, 100.0 * o->occupancy,
            (long long)(k->max_threads_per_sm / k->warp_size), cta_binding_text(o, why, sizeof why),
            o->forced ? " (0 fit; forced to 1 by ignore_resource_limits)" : "");
    fprintf(f, "  mode %s; kernel: %lld threads (%lld warps), %lld registers/thread, %lld bytes shared memory per CTA\n",
            cuda ? "cuda" : "gpgpusim", (long long)threads, (long long)o->warps_per_cta,
            (long long)regs, (long long)smem);
    snprintf(how, sizeof how, "%lld threads per SM / %lld padded threads per CTA",
             (long long)k->max_threads_per_sm, (long long)o->padded_threads);
    print_limit(f, o, CTA_LIM_THREADS, how);
    if (regs == 0)
        snprintf(how, sizeof how, "no registers used");
    else if (cuda)
        snprintf(how, sizeof how,
                 "%lld regs per warp (%lld x %lld rounded to %lld), warps rounded down to %lld; "
                 "%lld per SM, %lld per CTA",
                 (long long)o->regs_per_warp_alloc, (long long)regs, (long long)k->warp_size,
                 (long long)k->occ_reg_alloc_unit, (long long)k->occ_warp_alloc_granularity,
                 (long long)k->regs_per_sm, (long long)k->regs_per_cta);
    else
        snprintf(how, sizeof how, "%lld regs per SM / (%lld threads x %lld regs rounded to 4)",
                 (long long)k->regs_per_sm, (long long)o->padded_threads,
                 (long long)o->regs_per_thread_alloc);
    print_limit(f, o, CTA_LIM_REGS, how);
    if (o->smem_per_cta_alloc == 0)
        snprintf(how, sizeof how, "no shared memory used");
    else if (cuda) {
        char carve[48] = "no carve-out";
        if (o->carveout_kb >= 0)
            snprintf(carve, sizeof carve, "carve-out %lld KB", (long long)o->carveout_kb);
        snprintf(how, sizeof how,
                 "%lld bytes per SM (%s) / %lld bytes per CTA (%lld + %lld reserved, rounded to "
                 "%lld)",
                 (long long)o->smem_available, carve, (long long)o->smem_per_cta_alloc,
                 (long long)smem, (long long)k->occ_smem_reserved_per_cta,
                 (long long)k->occ_smem_alloc_unit);
    }
    else
        snprintf(how, sizeof how, "%lld bytes per SM / %lld bytes per CTA",
                 (long long)o->smem_available, (long long)smem);
    print_limit(f, o, CTA_LIM_SMEM, how);
    print_limit(f, o, CTA_LIM_CAP, "max_ctas_per_sm");
    if (o->limit[CTA_LIM_GRID] != CTA_UNLIMITED)
        print_limit(f, o, CTA_LIM_GRID, "grid CTAs spread over all SMs");
    if (o->carveout_kb >= 0)
        fprintf(f, "  L1/shared carve-out: %lld KB shared memory, %lld KB left for L1D\n",
                (long long)o->carveout_kb,
                (long long)(k->l1d_unified_kb > o->carveout_kb ? k->l1d_unified_kb - o->carveout_kb : 0));
}

void cta_occupancy_json(base_json *j, const knobs *k, int64_t threads, int64_t regs,
                        int64_t smem, const cta_occupancy *o)
{
    base_json_obj_begin(j);
    base_json_kv_str(j, "mode", k->occupancy_mode ? "cuda" : "gpgpusim");
    base_json_kv_i64(j, "threads", threads);
    base_json_kv_i64(j, "regs", regs);
    base_json_kv_i64(j, "smem", smem);
    base_json_kv_i64(j, "ctas_per_sm", o->ctas);
    base_json_kv_i64(j, "warps_per_sm", o->warps_resident);
    base_json_kv_double(j, "occupancy", o->occupancy);
    base_json_kv_bool(j, "forced", o->forced);
    base_json_key(j, "limits");
    base_json_obj_begin(j);
    for (int i = 0; i < CTA_NLIMITS; i++) {
        base_json_key(j, cta_limit_name(i));
        if (o->limit[i] == CTA_UNLIMITED)
            base_json_null(j);
        else
            base_json_i64(j, o->limit[i]);
    }
    base_json_obj_end(j);
    base_json_key(j, "binding");
    base_json_arr_begin(j);
    for (int i = 0; i < CTA_NLIMITS; i++)
        if (o->binding & (1u << i))
            base_json_str(j, cta_limit_name(i));
    base_json_arr_end(j);
    base_json_kv_i64(j, "smem_per_cta_alloc", o->smem_per_cta_alloc);
    base_json_kv_i64(j, "regs_per_cta_alloc", o->regs_per_cta_alloc);
    base_json_kv_i64(j, "carveout_kb", o->carveout_kb);
    base_json_obj_end(j);
}
