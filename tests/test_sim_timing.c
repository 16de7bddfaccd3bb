/* Whole-simulation timing tests whose expected cycle counts are computed by hand from the
 * configured latencies and the documented pipeline constants (docs/TIMING.md):
 *   a dependent ALU instruction issues `per` = pipe_oc_cycles + 1 (bank read) + latency +
 *   pipe_wb_cycles cycles after its producer; a warp's first instruction issues at cycle 2
 *   (CTA placed at the end of cycle 0, fetched in cycle 1); gpu_sim_cycle counts the cycles
 *   from launch to the cycle the last CTA retired, both included. */
#include "sim_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"

static uint64_t run_cycles(su_kernel *k, const knob_cfg *c, sim_result *r)
{
    base_err e = {0};
    int rc = su_run(k->dir, c, r, &e);
    if (rc)
        test_fail_at(__FILE__, __LINE__, "run failed: %s", e.msg);
    CHECK_EQ(r->nk, 1);
    return rc || r->nk != 1 ? 0 : r->k[0].delta.cycle;
}

static uint64_t ffma_chain(const knob_cfg *c, int n)
{
    su_kernel k;
    su_begin(&k, "chain", 1, 32, 0);
    su_cta_begin(&k);
    for (int i = 0; i < n; i++)
        su_alu(&k, 0, "FFMA", 1, 1, 2);
    su_exit(&k, 0);
    su_cta_end(&k);
    su_end(&k);
    sim_result r;
    uint64_t cyc = run_cycles(&k, c, &r);
    CHECK_EQ(su_total(&r, "sm", "warp_insts"), n + 1);
    CHECK_EQ(su_total(&r, "sm", "thread_insts"), 32 * (n + 1));
    sim_result_free(&r);
    su_rmdir(k.dir);
    return cyc;
}

TEST(sim_ffma_dependent_chain_cycles)
{
    knob_cfg c;
    su_knobs(&c);
    for (int lat = 2; lat <= 6; lat += 4) {
        c.v.lat_sp = lat;
        uint64_t per = (uint64_t)(c.v.pipe_oc_cycles + 1 + c.v.lat_sp + c.v.pipe_wb_cycles);
        for (int n = 1; n <= 200; n *= 10)
            CHECK_EQ(ffma_chain(&c, n), 2 + per * (uint64_t)n + 1);
    }
    knob_free(&c);
}

static uint64_t independent(const knob_cfg *c, uint32_t warps, int n, const char *op,
                            sim_result *r)
{
    su_kernel k;
    su_begin(&k, "indep", 1, warps * 32, 0);
    su_cta_begin(&k);
    for (uint32_t w = 0; w < warps; w++) {
        for (int i = 0; i < n; i++)
            su_alu(&k, w, op, 10 + i % 16, 2, 3);
        su_exit(&k, w);
    }
    su_cta_end(&k);
    su_end(&k);
    uint64_t cyc = run_cycles(&k, c, r);
    su_rmdir(k.dir);
    return cyc;
}

/* One warp per scheduler: every scheduler issues one FFMA per cycle, so four warps take as
 * long as one (issue width 1 per scheduler, 4 per SM). */
TEST(sim_independent_ffma_issue_width)
{
    knob_cfg c;
    su_knobs(&c);
    int n = 300;
    uint64_t per = (uint64_t)(c.v.pipe_oc_cycles + 1 + c.v.lat_sp + c.v.pipe_wb_cycles);
    sim_result r;
    for (uint32_t warps = 1; warps <= 4; warps *= 4) {
        uint64_t cyc = independent(&c, warps, n, "FFMA", &r);
        CHECK_EQ(cyc, (uint64_t)n + 1 + per + 1);
        CHECK_EQ(su_total(&r, "sm", "warp_insts"), warps * (uint64_t)(n + 1));
        sim_result_free(&r);
    }
    /* two warps per scheduler share its issue slot */
    uint64_t cyc = independent(&c, 8, n, "FFMA", &r);
    CHECK(cyc >= 2 * (uint64_t)(n + 1) && cyc <= 2 * (uint64_t)(n + 1) + per + 2);
    sim_result_free(&r);
    knob_free(&c);
}

/* SFU initiation interval: independent MUFUs of one warp start every init_sfu cycles. */
TEST(sim_sfu_initiation_interval)
{
    knob_cfg c;
    su_knobs(&c);
    int n = 50;
    sim_result r;
    uint64_t cyc = independent(&c, 1, n, "MUFU.EX2", &r);
    /* first MUFU starts at 2 + oc + 1; the n-th init_sfu * (n-1) later; it writes back
     * after lat_sfu + wb */
    uint64_t first = 2 + (uint64_t)c.v.pipe_oc_cycles + 1;
    uint64_t last = first + (uint64_t)c.v.init_sfu * (uint64_t)(n - 1);
    CHECK_EQ(cyc, last + (uint64_t)(c.v.lat_sfu + c.v.pipe_wb_cycles) + 1);
    sim_result_free(&r);
    knob_free(&c);
}

/* Shared memory: a chain of dependent LDS with a k-way bank conflict. Each costs
 * oc + 1 + (k - 1) + smem_latency cycles. */
static uint64_t lds_chain(const knob_cfg *c, unsigned kway, int n)
{
    su_kernel k;
    su_begin(&k, "lds", 1, 32, 4096);
    su_cta_begin(&k);
    uint64_t addr[32];
    unsigned group = 32 / kway;
    for (unsigned l = 0; l < 32; l++)
        addr[l] = 0x7f0000000000ull + (l % group) * 4 + (l / group) * 128;
    int srcs[2] = {2, -1};
    for (int i = 0; i < n; i++)
        su_line(&k, 0, 0xffffffffu, 2, "LDS", srcs, 4, addr);
    su_exit(&k, 0);
    su_cta_end(&k);
    su_end(&k);
    sim_result r;
    uint64_t cyc = run_cycles(&k, c, &r);
    CHECK_EQ(su_total(&r, "sm", "shmem_bank_conflict_cycles"), (uint64_t)n * (kway - 1));
    sim_result_free(&r);
    su_rmdir(k.dir);
    return cyc;
}

TEST(sim_shared_bank_conflict_cycles)
{
    knob_cfg c;
    su_knobs(&c);
    int n = 20;
    for (unsigned kway = 1; kway <= 32; kway *= 2) {
        uint64_t per = (uint64_t)(c.v.pipe_oc_cycles + 1 + (kway - 1) + c.v.smem_latency);
        /* the EXIT issues right after the last LDS and finishes first */
        CHECK_EQ(lds_chain(&c, kway, n), 2 + per * (uint64_t)n + 1);
    }
    knob_free(&c);
}

/* pchase: one thread loads a chain of addresses, each load depending on the previous one.
 * `lines` distinct 128-byte lines, visited `passes` times. */
static uint64_t pchase(const knob_cfg *c, int lines, int passes, uint64_t stride, sim_result *r)
{
    su_kernel k;
    su_begin(&k, "pchase", 1, 32, 0);
    su_cta_begin(&k);
    uint64_t addr[32] = {0};
    int srcs[2] = {2, -1};
    for (int p = 0; p < passes; p++)
        for (int i = 0; i < lines; i++) {
            addr[0] = 0x7f1000000000ull + (uint64_t)i * stride;
            su_line(&k, 0, 1u, 2, "LDG.E", srcs, 4, addr);
        }
    su_exit(&k, 0);
    su_cta_end(&k);
    su_end(&k);
    uint64_t cyc = run_cycles(&k, c, r);
    su_rmdir(k.dir);
    return cyc;
}

/* Cycles per load in steady state: the extra time of one more pass, per load. */
static uint64_t per_load(const knob_cfg *c, int lines, uint64_t stride)
{
    sim_result r1, r2;
    uint64_t a = pchase(c, lines, 2, stride, &r1), b = pchase(c, lines, 3, stride, &r2);
    sim_result_free(&r1);
    sim_result_free(&r2);
    CHECK((b - a) % (uint64_t)lines == 0);
    return (b - a) / (uint64_t)lines;
}

TEST(sim_pchase_l1_hit_latency)
{
    knob_cfg c;
    su_knobs(&c);
    /* 16 lines fit the L1D easily: after the first pass every load hits */
    CHECK_EQ(per_load(&c, 16, 128), (uint64_t)(c.v.pipe_oc_cycles + 1 + c.v.l1d_latency));
    c.v.l1d_latency = 60;
    CHECK_EQ(per_load(&c, 16, 128), (uint64_t)(c.v.pipe_oc_cycles + 1 + 60));
    sim_result r;
    pchase(&c, 16, 3, 128, &r);
    CHECK_EQ(su_total(&r, "l1d", "accesses"), 48);
    CHECK_EQ(su_total(&r, "l1d", "misses"), 16);
    CHECK_EQ(su_total(&r, "l2", "accesses"), 16);
    sim_result_free(&r);
    knob_free(&c);
}

/* A footprint that misses a 2-way, 4-set L1D (1 KB) every time but fits the L2: the time
 * per load moves exactly with the configured ROP latency. */
TEST(sim_pchase_l2_hit_latency)
{
    knob_cfg c;
    su_knobs(&c);
    c.v.l1d_adaptive = 0;
    c.v.l1d_assoc = 2;
    uint64_t base = per_load(&c, 64, 128);
    c.v.l2_rop_latency += 100;
    uint64_t more = per_load(&c, 64, 128);
    CHECK_EQ(more - base, 100);
    /* documented fixed part: oc + 1 + ROP + the constant L2 round trip of docs/TIMING.md */
    CHECK(base > (uint64_t)(c.v.l2_rop_latency - 100));
    sim_result r;
    pchase(&c, 64, 3, 128, &r);
    CHECK_EQ(su_total(&r, "l2", "accesses"), 192);
    CHECK_EQ(su_total(&r, "l2", "misses"), 64);
    sim_result_free(&r);
    knob_free(&c);
}

/* Every load a new line in a new DRAM row: nothing hits; the time per load moves exactly
 * with dram_latency when the DRAM runs at the core clock. With l2 = 0 (l2_enabled) every L1D
 * miss is a DRAM read and the L2 statistics are there, all zero (such a run used to crash
 * reading the missing L2's statistics). */
static void dram_latency_per_load(int l2)
{
    knob_cfg c;
    su_knobs(&c);
    c.v.clock_dram_mhz = c.v.clock_core_mhz;
    c.v.l2_enabled = l2;
    sim_result r1, r2;
    int n = 40;
    uint64_t a = pchase(&c, n, 1, 1 << 20, &r1);
    if (l2) {
        CHECK_EQ(su_total(&r1, "l2", "misses"), n);
    } else {
        CHECK_EQ(su_total(&r1, "l2", "accesses"), 0);
        CHECK_EQ(su_total(&r1, "l1d", "misses"), n);
    }
    CHECK_EQ(su_total(&r1, "dram", "reads"), n);
    c.v.dram_latency += 50;
    uint64_t b = pchase(&c, n, 1, 1 << 20, &r2);
    CHECK_EQ(b - a, 50 * (uint64_t)n);
    sim_result_free(&r1);
    sim_result_free(&r2);
    knob_free(&c);
}

TEST(sim_pchase_dram_latency) { dram_latency_per_load(1); }
TEST(sim_without_l2_reads_dram) { dram_latency_per_load(0); }

static char *totals_text(const sim_result *r)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    sim_print_totals(f, r);
    fclose(f);
    return buf;
}

/* Every statistic of a and b, as printed, is the same. */
static int same_totals(const sim_result *a, const sim_result *b)
{
    char *ta = totals_text(a), *tb = totals_text(b);
    int same = strcmp(ta, tb) == 0;
    free(ta);
    free(tb);
    return same;
}

/* The fast-forward jumps over most of a DRAM-bound pointer chase, and every statistic equals
 * the cycle-by-cycle run's (the shared traces and samples are compared in test_sim_ref.c). */
TEST(sim_fast_forward_is_exact)
{
    knob_cfg c;
    su_knobs(&c);
    sim_result r0, r1;
    c.v.fast_forward = 0;
    uint64_t a = pchase(&c, 40, 1, 1 << 20, &r0);
    c.v.fast_forward = 1;
    uint64_t b = pchase(&c, 40, 1, 1 << 20, &r1);
    CHECK_EQ(a, b);
    CHECK_EQ(r0.ff_cycles, 0);
    CHECK(r1.ff_cycles > a / 2);
    CHECK(same_totals(&r0, &r1));
    sim_result_free(&r0);
    sim_result_free(&r1);
    knob_free(&c);
}

/* Windowed mode (sync_window = W, docs/TIMING.md): a request and its reply cross four links
 * of W cycles (SM to crossbar to sub-partition and back), which the compensation takes off the
 * ROP latency. With every clock at the core's (so the memory side's edges keep their phase to
 * the core's however far a request is moved), a dependent L2 hit then takes exactly as long as
 * in the exact mode, and 4W longer without the compensation; the CTA's end is seen at the end
 * of its window, cycle kW, so a run lasts the exact run's cycles rounded up to a window end. */
TEST(sim_window_link_latency)
{
    knob_cfg c;
    su_knobs(&c);
    c.v.l1d_adaptive = 0;
    c.v.l1d_assoc = 2;
    c.v.clock_icnt_mhz = c.v.clock_l2_mhz = c.v.clock_dram_mhz = c.v.clock_core_mhz;
    uint64_t base = per_load(&c, 64, 128);
    sim_result r0, r1;
    uint64_t whole = pchase(&c, 64, 2, 128, &r0);
    for (int64_t w = 1; w <= 16; w *= 4) {
        c.v.sync_window = w;
        c.v.sync_window_compensate = 1;
        CHECK_EQ(per_load(&c, 64, 128), base);
        uint64_t cyc = pchase(&c, 64, 2, 128, &r1);
        CHECK_EQ(cyc, (whole - 1 + (uint64_t)w - 1) / (uint64_t)w * (uint64_t)w + 1);
        CHECK_EQ(su_total(&r1, "l2", "accesses"), su_total(&r0, "l2", "accesses"));
        CHECK_EQ(su_total(&r1, "l2", "misses"), su_total(&r0, "l2", "misses"));
        sim_result_free(&r1);
        c.v.sync_window_compensate = 0;
        CHECK_EQ(per_load(&c, 64, 128), base + 4 * (uint64_t)w);
    }
    sim_result_free(&r0);
    knob_free(&c);
}

/* The compensation cannot take more than the ROP latency has: a clear error, no run. */
TEST(sim_window_needs_rop_latency)
{
    knob_cfg c;
    su_knobs(&c);
    c.v.l2_rop_latency = 31;
    c.v.sync_window = 8;
    su_kernel k;
    su_begin(&k, "win", 1, 32, 0);
    su_cta_begin(&k);
    su_exit(&k, 0);
    su_cta_end(&k);
    su_end(&k);
    sim_result r;
    base_err e = {0};
    CHECK_EQ(su_run(k.dir, &c, &r, &e), -1);
    CHECK_HAS(e.msg, "sync_window=8 needs l2_rop_latency of at least 32");
    c.v.sync_window_compensate = 0;
    CHECK_EQ(su_run(k.dir, &c, &r, &e), 0);
    CHECK_EQ(su_total(&r, "sm", "warp_insts"), 1);
    sim_result_free(&r);
    su_rmdir(k.dir);
    knob_free(&c);
}

/* Warp w loads R4-R7 from four pages of block `block`, a line per lane, then adds R4 and R5. */
static void scatter_warp(su_kernel *k, uint32_t w, uint64_t block)
{
    uint64_t addr[32];
    int srcs[2] = {2, -1};
    for (int i = 0; i < 4; i++) {
        for (int l = 0; l < 32; l++)
            addr[l] = 0x7f1000000000ull + (block * 4 + (uint64_t)i) * 4096 + (uint64_t)l * 128 +
                      4 * (uint64_t)(l % 8);
        su_line(k, w, 0xffffffffu, 4 + i, "LDG.E", srcs, 4, addr);
    }
    su_alu(k, w, "FADD", 8, 4, 5);
}

/* Scattered loads from 2 CTAs of 4 warps: each load touches 32 lines, and an L1D with 4 MSHR
 * entries refuses most of their sectors until fills come. The LD/ST unit then repeats a
 * refused sector while every warp waits on its scoreboard: the SM parks until a fill arrives.
 * Every statistic equals the cycle-by-cycle run's, whatever the thread count. */
static void scatter(const knob_cfg *c, sim_result *r)
{
    su_kernel k;
    su_begin(&k, "scatter", 2, 128, 0);
    for (uint32_t cta = 0; cta < 2; cta++) {
        su_cta_begin(&k);
        for (uint32_t w = 0; w < 4; w++) {
            scatter_warp(&k, w, (uint64_t)cta * 4 + w);
            su_alu(&k, w, "FADD", 9, 6, 7);
            su_exit(&k, w);
        }
        su_cta_end(&k);
    }
    su_end(&k);
    run_cycles(&k, c, r);
    su_rmdir(k.dir);
}

TEST(sim_parked_sms_are_exact)
{
    knob_cfg c;
    su_knobs(&c);
    c.v.l1d_mshr_entries = 4;
    sim_result r0, r1, r2;
    c.v.fast_forward = 0;
    scatter(&c, &r0);
    c.v.fast_forward = 1;
    scatter(&c, &r1);
    c.v.threads = 2;
    scatter(&c, &r2);
    CHECK_EQ(r0.park_cycles, 0);
    CHECK(r1.park_cycles > r1.total.cycle / 2); /* two SMs, mostly waiting for fills */
    CHECK_EQ(r1.park_cycles, r2.park_cycles);
    CHECK(su_total(&r1, "l1d", "res_fails") > 100);
    CHECK(same_totals(&r0, &r1));
    CHECK(same_totals(&r0, &r2));
    sim_result_free(&r0);
    sim_result_free(&r1);
    sim_result_free(&r2);
    knob_free(&c);
}

/* One SM: CTA 0 scatters loads that the L1D refuses for want of MSHR entries while CTA 1's
 * warps run a chain of adds and exit. The cycle CTA 1 ends in makes progress with a sector
 * refused, which arms the park; the CTA's retirement (counted in the SM's statistics) comes
 * before the next cycle, which only repeats, and must not be counted into the park's
 * per-cycle deltas. */
static void retire_while_refused(const knob_cfg *c, sim_result *r)
{
    su_kernel k;
    su_begin(&k, "retire_refused", 2, 128, 0);
    su_cta_begin(&k);
    for (uint32_t w = 0; w < 4; w++) {
        scatter_warp(&k, w, w);
        su_exit(&k, w);
    }
    su_cta_end(&k);
    su_cta_begin(&k);
    for (uint32_t w = 0; w < 4; w++) {
        for (int i = 0; i < 40; i++)
            su_alu(&k, w, "FADD", 10 + (i + 1) % 2, 10 + i % 2, 3);
        su_exit(&k, w);
    }
    su_cta_end(&k);
    su_end(&k);
    run_cycles(&k, c, r);
    su_rmdir(k.dir);
}

TEST(sim_park_ignores_a_retirement)
{
    knob_cfg c;
    su_knobs(&c);
    c.v.n_clusters = 1;
    c.v.l1d_mshr_entries = 2;
    sim_result r0, r1;
    c.v.fast_forward = 0;
    retire_while_refused(&c, &r0);
    c.v.fast_forward = 1;
    retire_while_refused(&c, &r1);
    CHECK(r1.park_cycles > 0);
    CHECK_EQ(su_total(&r1, "sm", "ctas"), 2);
    CHECK(same_totals(&r0, &r1));
    sim_result_free(&r0);
    sim_result_free(&r1);
    knob_free(&c);
}

/* A configuration where nothing can move for longer than the watchdog allows (a DRAM latency
 * far beyond watchdog_cycles): the run must stop with exit 1 and say what waits for what and
 * where the outstanding request sits, not spin on. */
TEST(sim_watchdog_diagnoses_deadlock)
{
    su_kernel k;
    su_begin(&k, "hang", 1, 32, 0);
    su_cta_begin(&k);
    uint64_t addr[32];
    for (int l = 0; l < 32; l++)
        addr[l] = 0x7f1000000000ull + 4 * (uint64_t)l;
    int srcs[2] = {2, -1};
    su_line(&k, 0, 0xffffffffu, 4, "LDG.E", srcs, 4, addr);
    su_alu(&k, 0, "FFMA", 5, 4, 4);
    su_exit(&k, 0);
    su_cta_end(&k);
    su_end(&k);
    test_proc p = test_lockstep("run --kernel_launch_latency=0 --dram_latency=100000 "
                                "--watchdog_cycles=500 %s", k.dir);
    CHECK_EQ(p.status, 1);
    CHECK_HAS(p.err, "no progress for 500 core cycles");
    CHECK_HAS(p.err, "deadlock diagnosis");
    CHECK_HAS(p.err, "warp 0");
    CHECK_HAS(p.err, "1 loads outstanding");
    CHECK_HAS(p.err, "dram latency");
    /* the fast-forward stops at the same cycle and leaves the same state */
    test_proc q = test_lockstep("run --kernel_launch_latency=0 --dram_latency=100000 "
                                "--watchdog_cycles=500 --fast_forward=0 %s", k.dir);
    CHECK_EQ(q.status, 1);
    CHECK(strcmp(p.err, q.err) == 0);
    /* windowed: the watchdog is looked at window ends, and the diagnosis is the same */
    test_proc w = test_lockstep("run --kernel_launch_latency=0 --dram_latency=100000 "
                                "--watchdog_cycles=500 --sync_window=16 --threads=2 %s", k.dir);
    CHECK_EQ(w.status, 1);
    CHECK_HAS(w.err, "no progress for 500 core cycles");
    CHECK_HAS(w.err, "1 loads outstanding");
    CHECK_HAS(w.err, "dram latency");
    /* its quiet windows skipped (fast_forward) or run, the same stop and diagnosis */
    test_proc v = test_lockstep("run --kernel_launch_latency=0 --dram_latency=100000 "
                                "--watchdog_cycles=500 --sync_window=16 --fast_forward=0 %s",
                                k.dir);
    CHECK_EQ(v.status, 1);
    CHECK(strcmp(w.err, v.err) == 0);
    su_rmdir(k.dir);
}

/* A launch latency longer than the watchdog is waiting with an end, not a deadlock: the run
 * completes (it used to stop at the watchdog before the first CTA), and the latency is as
 * configured. */
TEST(sim_watchdog_waits_out_a_launch_latency)
{
    knob_cfg c;
    su_knobs(&c);
    c.v.kernel_launch_latency = 3000;
    c.v.watchdog_cycles = 500;
    sim_result r;
    pchase(&c, 4, 1, 128, &r);
    CHECK_EQ(r.k[0].first_cta_cycle - r.k[0].launch_cycle, 3000);
    CHECK_EQ(su_total(&r, "l1d", "misses"), 4);
    sim_result_free(&r);
    knob_free(&c);
}

/* A modelled L1I: the first fetch of a kernel misses and delays the warp by exactly
 * icache_miss_latency; the rest of the 128-byte line then hits. */
TEST(sim_icache_miss_latency)
{
    knob_cfg c;
    su_knobs(&c);
    uint64_t perfect = ffma_chain(&c, 4);
    c.v.perfect_inst_const_cache = 0;
    c.v.icache_miss_latency = 150;
    CHECK_EQ(ffma_chain(&c, 4), perfect + 150);
    knob_free(&c);
}

/* Two one-warp kernels of dependent FFMAs. In order (default) the second starts when the first
 * has finished; with concurrent_kernels on different streams they overlap completely; on the
 * same stream they stay in order even with concurrency on. */
static uint64_t two_kernels(const knob_cfg *c, uint64_t stream2, sim_result *r)
{
    su_kernel k;
    su_begin(&k, "streams", 1, 32, 0);
    for (int kn = 0; kn < 2; kn++) {
        if (kn)
            su_next_kernel(&k, 1, 32, stream2);
        su_cta_begin(&k);
        for (int i = 0; i < 50; i++)
            su_alu(&k, 0, "FFMA", 1, 1, 2);
        su_exit(&k, 0);
        su_cta_end(&k);
    }
    su_end(&k);
    base_err e = {0};
    if (su_run(k.dir, c, r, &e))
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
    su_rmdir(k.dir);
    return r->total.cycle;
}

TEST(sim_streams_and_concurrent_kernels)
{
    knob_cfg c;
    su_knobs(&c);
    uint64_t one = ffma_chain(&c, 50);
    sim_result r;
    uint64_t serial = two_kernels(&c, 1, &r);
    CHECK_EQ(r.nk, 2);
    /* the second kernel launches in the cycle the first one ends */
    CHECK_EQ(serial, 2 * one - 1);
    CHECK(r.k[1].launch_cycle > r.k[0].end_cycle - 1);
    sim_result_free(&r);
    c.v.concurrent_kernels = 1;
    CHECK_EQ(two_kernels(&c, 1, &r), one);
    CHECK_EQ(r.k[0].launch_cycle, r.k[1].launch_cycle);
    sim_result_free(&r);
    CHECK_EQ(two_kernels(&c, 0, &r), 2 * one - 1);
    sim_result_free(&r);
    /* launch latency delays each kernel's first CTA */
    c.v.concurrent_kernels = 0;
    c.v.kernel_launch_latency = 100;
    CHECK_EQ(two_kernels(&c, 1, &r), 2 * (one + 100) - 1);
    sim_result_free(&r);
    knob_free(&c);
}

/* Schedulers that do not divide the SM's warp slots: each holds every third slot of 47 (16,
 * 16 and 15), and its policy's arrays are sized to what it holds (sm_carve). One CTA fills
 * all 47 slots with warps of adds: under each policy every warp instruction issues, and two
 * threads give the same totals. */
TEST(sim_uneven_schedulers_run_every_warp)
{
    enum { WARPS = 47, ADDS = 6 };
    su_kernel k;
    su_begin(&k, "uneven", 1, WARPS * 32, 0);
    su_cta_begin(&k);
    for (uint32_t w = 0; w < WARPS; w++) {
        for (int i = 0; i < ADDS; i++)
            su_alu(&k, w, "FADD", 10 + (i + 1) % 2, 10 + i % 2, 3);
        su_exit(&k, w);
    }
    su_cta_end(&k);
    su_end(&k);
    static const char *const policy[] = {"lrr", "gto", "two_level"};
    for (int p = 0; p < 3; p++) {
        knob_cfg c;
        base_err e = {0};
        su_knobs(&c);
        c.v.max_threads_per_sm = WARPS * 32;
        c.v.schedulers_per_sm = 3;
        CHECK_EQ(knob_set(&c, "warp_scheduler", policy[p], "test", &e), 0);
        sim_result r1, r2;
        run_cycles(&k, &c, &r1);
        c.v.threads = 2;
        run_cycles(&k, &c, &r2);
        CHECK_EQ(su_total(&r1, "sm", "warp_insts"), WARPS * (ADDS + 1));
        CHECK(same_totals(&r1, &r2));
        sim_result_free(&r1);
        sim_result_free(&r2);
        knob_free(&c);
    }
    su_rmdir(k.dir);
}
