/* cta occupancy: how many CTAs of a kernel fit on one SM, and which resources bind.
 *
 * One function serves the `occupancy` command and (later) the CTA scheduler, so the
 * numbers a user inspects are the numbers the simulation uses. Two rounding modes
 * (knob occupancy_mode):
 *   gpgpusim  GPGPU-Sim's max_cta: CTA size padded to warps, registers per thread rounded
 *             up to a multiple of 4, shared memory unrounded (OCCUPANCY.md).
 *   cuda      the CUDA occupancy calculator: registers allocated per warp in units of
 *             occ_reg_alloc_unit, warps per SM rounded down to occ_warp_alloc_granularity,
 *             shared memory rounded to occ_smem_alloc_unit plus the driver's per-CTA
 *             reservation, and a carve-out chosen from smem_carveouts_kb. */
#ifndef LOCKSTEP_CTA_OCCUPANCY_H
#define LOCKSTEP_CTA_OCCUPANCY_H

#include "../base/base.h"
#include "../knob/knob.h"

enum cta_limit {
    CTA_LIM_THREADS, /* threads / warp slots */
    CTA_LIM_REGS,
    CTA_LIM_SMEM,
    CTA_LIM_CAP,     /* hardware CTA cap */
    CTA_LIM_GRID,    /* the kernel has fewer CTAs than the SMs could hold */
    CTA_NLIMITS
};

#define CTA_UNLIMITED INT64_MAX

typedef struct cta_occupancy {
    int64_t ctas;                 /* resident CTAs per SM (>= 1 unless the kernel cannot run) */
    int64_t limit[CTA_NLIMITS];   /* each limit in CTAs; CTA_UNLIMITED when it does not apply */
    unsigned binding;             /* bit i set: limit i equals `ctas` */
    int forced;                   /* 0 CTAs fitted; ignore_resource_limits forced 1 */
    /* how the limits were computed, for the report */
    int64_t warps_per_cta, padded_threads;
    int64_t regs_per_thread_alloc;   /* gpgpusim: rounded to 4 */
    int64_t regs_per_warp_alloc;     /* cuda: per-warp allocation */
    int64_t regs_per_cta_alloc;      /* registers one CTA holds */
    int64_t smem_per_cta_alloc;      /* bytes one CTA holds (rounded, reservation included) */
    int64_t smem_available;          /* bytes of shared memory per SM used for the limit */
    int64_t carveout_kb;             /* chosen carve-out of the unified array, -1 if none */
    int64_t warps_resident;          /* ctas x warps_per_cta */
    double occupancy;                /* warps_resident / max warps per SM */
} cta_occupancy;

/* threads, regs (per thread), smem (bytes per CTA); grid_ctas = 0 means unknown.
 * Fails with BASE_EXIT_INPUT when the kernel cannot run at all (a CTA larger than the SM,
 * more registers than allowed, ...) unless ignore_resource_limits is set. */
int cta_occupancy_compute(const knobs *k, int64_t threads, int64_t regs, int64_t smem,
                          int64_t grid_ctas, cta_occupancy *o, base_err *e);

const char *cta_limit_name(int lim);
/* "shared memory", "threads and registers", ... written to buf (returned). */
const char *cta_binding_text(const cta_occupancy *o, char *buf, size_t n);

void cta_occupancy_print(FILE *f, const knobs *k, int64_t threads, int64_t regs, int64_t smem,
                         const cta_occupancy *o);
void cta_occupancy_json(base_json *j, const knobs *k, int64_t threads, int64_t regs,
                        int64_t smem, const cta_occupancy *o);

#endif
