/* Occupancy: the OCCUPANCY.md worked example in both rounding modes, and edge cases. */
#include "test.h"

#include "cta/occupancy.h"

/* The SM of the worked example: warp 32, 2048 threads, 48 KB shared, 64K registers, 8 CTAs. */
static void example_sm(knob_cfg *c)
{
    knob_init(c);
    c->v.warp_size = 32;
    c->v.max_threads_per_sm = 2048;
    c->v.smem_per_sm = 48 * 1024;
    c->v.smem_per_cta = 48 * 1024;
    c->v.regs_per_sm = 65536;
    c->v.regs_per_cta = 65536;
    c->v.max_ctas_per_sm = 8;
    c->v.smem_carveouts_kb.n = 0;
    c->v.l1d_adaptive = 0;
}

TEST(occupancy_worked_example_gpgpusim)
{
    char bt[128];
    knob_cfg c;
    example_sm(&c);
    cta_occupancy o;
    base_err e = {0};
    CHECK_EQ(cta_occupancy_compute(&c.v, 128, 32, 12 * 1024, 0, &o, &e), 0);
    CHECK_EQ(o.limit[CTA_LIM_THREADS], 16); /* 2048 / 128 */
    CHECK_EQ(o.limit[CTA_LIM_SMEM], 4);     /* 48 KB / 12 KB */
    CHECK_EQ(o.limit[CTA_LIM_REGS], 16);    /* 65536 / (128 x 32) */
    CHECK_EQ(o.limit[CTA_LIM_CAP], 8);
    CHECK_EQ(o.ctas, 4);
    CHECK_EQ(o.binding, 1u << CTA_LIM_SMEM);
    CHECK_STR(cta_binding_text(&o, bt, sizeof bt), "shared memory");
    knob_free(&c);
}

/* The CUDA mode with Volta-style rules (cc 7.x): 256-register units, warps in fours,
 * shared memory in 256-byte units, nothing reserved per CTA. */
static void volta_rules(knob_cfg *c)
{
    c->v.occupancy_mode = 1;
    c->v.occ_reg_alloc_unit = 256;
    c->v.occ_warp_alloc_granularity = 4;
    c->v.occ_smem_alloc_unit = 256;
    c->v.occ_smem_reserved_per_cta = 0;
}

TEST(occupancy_worked_example_cuda)
{
    char bt[128];
    knob_cfg c;
    base_err e = {0};
    cta_occupancy o;
    example_sm(&c);
    /* Volta-style rules (cc 7.x): registers per warp = 32 x 32 = 1024, already a multiple of
     * the 256-register unit; 65536 / 1024 = 64 warps, a multiple of the granularity 4, so
     * 64 / 4 warps per CTA = 16 CTAs. Shared memory: 12288 bytes is a multiple of the 256-byte
     * unit and nothing is reserved, so 49152 / 12288 = 4 CTAs: the same answer as GPGPU-Sim,
     * 4 CTAs limited by shared memory. */
    volta_rules(&c);
    CHECK_EQ(cta_occupancy_compute(&c.v, 128, 32, 12 * 1024, 0, &o, &e), 0);
    CHECK_EQ(o.regs_per_warp_alloc, 1024);
    CHECK_EQ(o.limit[CTA_LIM_REGS], 16);
    CHECK_EQ(o.limit[CTA_LIM_THREADS], 16);
    CHECK_EQ(o.limit[CTA_LIM_SMEM], 4);
    CHECK_EQ(o.ctas, 4);
    CHECK_STR(cta_binding_text(&o, bt, sizeof bt), "shared memory");
    /* Ampere-style rules (cc 8.x): the driver reserves 1 KB per CTA and rounds to 128 bytes,
     * so a CTA holds 12288 + 1024 = 13312 bytes and 49152 / 13312 = 3 CTAs. */
    c.v.occ_smem_alloc_unit = 128;
    c.v.occ_smem_reserved_per_cta = 1024;
    CHECK_EQ(cta_occupancy_compute(&c.v, 128, 32, 12 * 1024, 0, &o, &e), 0);
    CHECK_EQ(o.smem_per_cta_alloc, 13312);
    CHECK_EQ(o.ctas, 3);
    CHECK_STR(cta_binding_text(&o, bt, sizeof bt), "shared memory");
    knob_free(&c);
}

/* A carve-out list of "0" alone (the GTX 480 and TITAN X presets, GPGPU-Sim's default
 * -gpgpu_shmem_option) offers no carve-out: the CUDA mode uses all of smem_per_sm, so the
 * worked example's CTA (12 KB) still fits 49152 / 12288 = 4 times. It found no room at all
 * before: every kernel with shared memory was refused on those presets. */
TEST(occupancy_cuda_without_carveouts_uses_the_whole_smem)
{
    knob_cfg c;
    base_err e = {0};
    cta_occupancy o;
    example_sm(&c);
    volta_rules(&c);
    c.v.smem_carveouts_kb.n = 1;
    c.v.smem_carveouts_kb.v[0] = 0;
    CHECK_EQ(cta_occupancy_compute(&c.v, 128, 32, 12 * 1024, 0, &o, &e), 0);
    CHECK_EQ(o.carveout_kb, -1);
    CHECK_EQ(o.smem_available, 48 * 1024);
    CHECK_EQ(o.limit[CTA_LIM_SMEM], 4);
    CHECK_EQ(o.ctas, 4);
    knob_free(&c);
}

TEST(occupancy_rounding_differs_between_modes)
{
    knob_cfg c;
    base_err e = {0};
    cta_occupancy o;
    example_sm(&c);
    /* 33 threads pad to 2 warps; 37 registers: gpgpusim rounds to 40 per thread
     * (64 x 40 = 2560 per CTA -> 25 CTAs), cuda rounds 37 x 32 = 1184 up to 1280 per warp
     * -> 51 warps -> 48 (granularity 4) -> 24 CTAs. */
    CHECK_EQ(cta_occupancy_compute(&c.v, 33, 37, 0, 0, &o, &e), 0);
    CHECK_EQ(o.padded_threads, 64);
    CHECK_EQ(o.limit[CTA_LIM_REGS], 25);
    CHECK_EQ(o.limit[CTA_LIM_SMEM], CTA_UNLIMITED);
    CHECK_EQ(o.ctas, 8);
    c.v.occupancy_mode = 1;
    c.v.occ_smem_reserved_per_cta = 0;
    CHECK_EQ(cta_occupancy_compute(&c.v, 33, 37, 0, 0, &o, &e), 0);
    CHECK_EQ(o.regs_per_warp_alloc, 1280);
    CHECK_EQ(o.limit[CTA_LIM_REGS], 24);
    knob_free(&c);
}

TEST(occupancy_ties_name_every_binding_limit)
{
    char bt[128];
    knob_cfg c;
    base_err e = {0};
    cta_occupancy o;
    example_sm(&c);
    /* 256 threads x 32 regs: threads 2048/256 = 8, regs 65536/8192 = 8, cap 8 */
    CHECK_EQ(cta_occupancy_compute(&c.v, 256, 32, 0, 0, &o, &e), 0);
    CHECK_EQ(o.ctas, 8);
    CHECK_STR(cta_binding_text(&o, bt, sizeof bt), "threads, registers and CTA cap");
    knob_free(&c);
}

TEST(occupancy_small_grid_spreads_over_sms)
{
    knob_cfg c;
    base_err e = {0};
    cta_occupancy o;
    knob_init(&c); /* RTX 3070: 46 SMs */
    CHECK_EQ(cta_occupancy_compute(&c.v, 256, 12, 0, 196, &o, &e), 0);
    /* 1536/256 = 6 per SM would hold 276 CTAs; 196 over 46 SMs -> ceil = 5 */
    CHECK_EQ(o.limit[CTA_LIM_THREADS], 6);
    CHECK_EQ(o.limit[CTA_LIM_GRID], 5);
    CHECK_EQ(o.ctas, 5);
    knob_free(&c);
}

TEST(occupancy_too_big_is_an_error_unless_ignored)
{
    knob_cfg c;
    base_err e = {0};
    cta_occupancy o;
    example_sm(&c);
    CHECK_EQ(cta_occupancy_compute(&c.v, 128, 32, 64 * 1024, 0, &o, &e), -1);
    CHECK_HAS(e.msg, "does not fit");
    CHECK_HAS(e.msg, "shared memory");
    base_err_clear(&e);
    c.v.ignore_resource_limits = 1;
    CHECK_EQ(cta_occupancy_compute(&c.v, 128, 32, 64 * 1024, 0, &o, &e), 0);
    CHECK_EQ(o.ctas, 1);
    CHECK(o.forced);
    CHECK_EQ(cta_occupancy_compute(&c.v, 0, 32, 0, 0, &o, &e), -1);
    knob_free(&c);
}

/* ignore_resource_limits forces one CTA only where the SM has a warp slot for each of its
 * warps: a 1024-thread CTA on an SM of 256 threads (8 warp slots) once passed the check and
 * stopped the run with "no warp slots for a CTA the occupancy check admitted" (TITAN X
 * preset, --max_threads_per_sm=256). It is an input error, as without the knob. */
TEST(occupancy_ignored_limits_still_need_warp_slots)
{
    knob_cfg c;
    base_err e = {0};
    cta_occupancy o;
    example_sm(&c);
    c.v.ignore_resource_limits = 1;
    c.v.max_threads_per_sm = 256;
    CHECK_EQ(cta_occupancy_compute(&c.v, 1024, 8, 0, 0, &o, &e), -1);
    CHECK_EQ(e.code, BASE_EXIT_INPUT);
    CHECK_HAS(e.msg, "limited by threads");
    CHECK_HAS(e.msg, "warp slots");
    base_err_clear(&e);
    CHECK_EQ(cta_occupancy_compute(&c.v, 256, 8, 0, 0, &o, &e), 0); /* exactly the SM's slots */
    CHECK_EQ(o.ctas, 1);
    CHECK(!o.forced);
    knob_free(&c);
}

TEST(occupancy_gpgpusim_adaptive_carveout)
{
    knob_cfg c;
    base_err e = {0};
    cta_occupancy o;
    knob_init(&c); /* RTX 3070: carve-outs 0,8,16,32,64,100 KB of a 128 KB array */
    CHECK_EQ(cta_occupancy_compute(&c.v, 256, 12, 0, 0, &o, &e), 0);
    CHECK_EQ(o.carveout_kb, 0); /* no shared memory: all 128 KB are L1D, as Accel-Sim logs */
    /* matrixmul-like: 1024 threads, 8 KB -> 1 CTA (threads), 8 KB total -> 8 KB carve-out */
    CHECK_EQ(cta_occupancy_compute(&c.v, 1024, 30, 8192, 0, &o, &e), 0);
    CHECK_EQ(o.ctas, 1);
    CHECK_EQ(o.carveout_kb, 8);
    knob_free(&c);
}
