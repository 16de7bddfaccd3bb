#include "occupancy.h"

#include <string.h>

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t round_up(int64_t a, int64_t u) { return ceil_div(a, u) * u; }
static int64_t round_down(int64_t a, int64_t u) { return a / u * u; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static const char *const LIMIT_NAMES[CTA_NLIMITS] = {"threads", "registers", "shared memory",
                                                     "CTA cap", "grid size"};

const char *cta_limit_name(int lim) { return LIMIT_NAMES[lim]; }

/* Smallest carve-out (KB) whose capacity holds `want` CTAs of `per_cta` bytes; the largest
 * that fits in smem_per_sm if none does. -1 when the knob lists no carve-out above 0 KB: the
 * GTX 480 and TITAN X presets list GPGPU-Sim's default "0" (-gpgpu_shmem_option) for an SM
 * whose shared memory is not carved from the L1D, and all of smem_per_sm is there (the CUDA
 * mode took it for a 0 KB carve-out, where no CTA with shared memory fits). */
static int64_t pick_carveout(const knobs *k, int64_t per_cta, int64_t want)
{
    int64_t best = -1, largest = -1;
    for (int i = 0; i < k->smem_carveouts_kb.n; i++) {
        int64_t kb = k->smem_carveouts_kb.v[i];
        if (kb * 1024 > k->smem_per_sm)
            continue;
        if (kb > largest)
            largest = kb;
        if (kb * 1024 >= per_cta * want && (best < 0 || kb < best))
            best = kb;
    }
    if (largest <= 0)
        return -1;
    return best >= 0 ? best : largest;
}

static void gpgpusim_limits(const knobs *k, int64_t regs, int64_t smem, cta_occupancy *o)
{
    o->regs_per_thread_alloc = round_up(regs, 4);
    o->regs_per_cta_alloc = o->padded_threads * o->regs_per_thread_alloc;
    if (regs > 0)
        o->limit[CTA_LIM_REGS] = k->regs_per_sm / o->regs_per_cta_alloc;
    o->smem_per_cta_alloc = smem;
    o->smem_available = k->smem_per_sm;
    if (smem > 0)
        o->limit[CTA_LIM_SMEM] = k->smem_per_sm / smem;
}

static void cuda_limits(const knobs *k, int64_t regs, int64_t smem, cta_occupancy *o)
{
    if (regs > 0) {
        o->regs_per_warp_alloc = round_up(regs * k->warp_size, k->occ_reg_alloc_unit);
        o->regs_per_cta_alloc = o->regs_per_warp_alloc * o->warps_per_cta;
        /* per-CTA register file limit first, then how many such CTAs the SM holds */
        int64_t warps = round_down(k->regs_per_cta / o->regs_per_warp_alloc,
                                   k->occ_warp_alloc_granularity);
        o->limit[CTA_LIM_REGS] = warps / o->warps_per_cta * (k->regs_per_sm / k->regs_per_cta);
    }
    o->smem_per_cta_alloc = round_up(smem + k->occ_smem_reserved_per_cta, k->occ_smem_alloc_unit);
    int64_t want = min64(o->limit[CTA_LIM_THREADS], min64(o->limit[CTA_LIM_REGS],
                                                          o->limit[CTA_LIM_CAP]));
    o->carveout_kb = pick_carveout(k, o->smem_per_cta_alloc, want);
    o->smem_available = o->carveout_kb >= 0 ? o->carveout_kb * 1024 : k->smem_per_sm;
    if (o->smem_per_cta_alloc > 0)
        o->limit[CTA_LIM_SMEM] = o->smem_available / o->smem_per_cta_alloc;
}

/* A CTA the hardware could never launch, whatever else is resident. */
static int check_launchable(const knobs *k, int64_t threads, int64_t regs, int64_t smem,
                            base_err *e)
{
    if (threads <= 0)
        return base_fail(e, BASE_EXIT_INPUT, "a CTA needs at least one thread");
    if (regs < 0 || smem < 0)
        return base_fail(e, BASE_EXIT_INPUT, "registers and shared memory cannot be negative");
    if (k->occupancy_mode == 1 && regs > k->max_regs_per_thread)
        return base_fail(e, BASE_EXIT_INPUT,
                         "%lld registers per thread exceed max_regs_per_thread = %lld",
                         (long long)regs, (long long)k->max_regs_per_thread);
    if (k->occupancy_mode == 1 && smem > k->smem_per_cta)
        return base_fail(e, BASE_EXIT_INPUT,
                         "%lld bytes of shared memory per CTA exceed smem_per_cta = %lld",
                         (long long)smem, (long long)k->smem_per_cta);
    return 0;
}

static void finish(const knobs *k, int64_t grid_ctas, cta_occupancy *o)
{
    int64_t n = CTA_UNLIMITED;
    for (int i = 0; i < CTA_LIM_GRID; i++)
        n = min64(n, o->limit[i]);
    /* GPGPU-Sim spreads a small grid evenly instead of packing the first SMs */
    int64_t sms = k->n_clusters * k->cores_per_cluster;
    if (grid_ctas > 0 && n > 0 && grid_ctas < n * sms) {
        o->limit[CTA_LIM_GRID] = ceil_div(grid_ctas, sms);
        n = min64(n, o->limit[CTA_LIM_GRID]);
    }
    o->ctas = n;
    o->binding = 0;
    for (int i = 0; i < CTA_NLIMITS; i++)
        if (o->limit[i] == n)
            o->binding |= 1u << i;
    o->warps_resident = o->ctas * o->warps_per_cta;
    o->occupancy = (double)o->warps_resident / (double)(k->max_threads_per_sm / k->warp_size);
}

int cta_occupancy_compute(const knobs *k, int64_t threads, int64_t regs, int64_t smem,
                          int64_t grid_ctas, cta_occupancy *o, base_err *e)
{
    memset(o, 0, sizeof *o);
    if (check_launchable(k, threads, regs, smem, e))
        return -1;
    for (int i = 0; i < CTA_NLIMITS; i++)
        o->limit[i] = CTA_UNLIMITED;
    o->carveout_kb = -1;
    o->warps_per_cta = ceil_div(threads, k->warp_size);
    o->padded_threads = o->warps_per_cta * k->warp_size;
    o->limit[CTA_LIM_THREADS] = k->max_threads_per_sm / o->padded_threads;
    o->limit[CTA_LIM_CAP] = k->max_ctas_per_sm;
    if (k->occupancy_mode == 0)
        gpgpusim_limits(k, regs, smem, o);
    else
        cuda_limits(k, regs, smem, o);
    finish(k, grid_ctas, o);
    if (k->occupancy_mode == 0 && k->l1d_adaptive && o->ctas > 0)
        o->carveout_kb = pick_carveout(k, smem, o->ctas);
    if (o->ctas == 0) {
        char why[128];
        /* forcing one CTA needs a warp slot for each of its warps: an SM has
         * max_threads_per_sm / warp_size of them, and no more to lend */
        int slots = o->padded_threads <= k->max_threads_per_sm;
        if (!k->ignore_resource_limits || !slots)
            return base_fail(e, BASE_EXIT_INPUT,
                             "a CTA of %lld threads, %lld registers/thread, %lld bytes of shared "
                             "memory does not fit on one SM (limited by %s)%s",
                             (long long)threads, (long long)regs, (long long)smem,
                             cta_binding_text(o, why, sizeof why),
                             k->ignore_resource_limits ? ", and ignore_resource_limits cannot run "
                                                         "it: its warps exceed the SM's warp slots"
                                                       : "");
        o->forced = 1;
        o->ctas = 1;
        o->warps_resident = o->warps_per_cta;
    }
    return 0;
}

const char *cta_binding_text(const cta_occupancy *o, char *buf, size_t size)
{
    int n = 0, k = 0;
    size_t used = 0;
    for (int i = 0; i < CTA_NLIMITS; i++)
        n += (o->binding >> i) & 1u;
    buf[0] = 0;
    for (int i = 0; i < CTA_NLIMITS && used < size; i++) {
        if (!(o->binding & (1u << i)))
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                 k == 0 ? "" : k == n - 1 ? " and " : ", ", LIMIT_NAMES[i]);
        k++;
    }
    return buf;
}
