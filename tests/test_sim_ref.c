#define _DEFAULT_SOURCE
/* The shared Accel-Sim traces against the reference runs (../shared/reference/accelsim,
 * the *_nolat runs: kernel launch latency 0), and the determinism of whole runs across
 * thread counts. Independent properties checked alongside the reference numbers: warp and
 * thread instruction counts equal the trace's own totals (trace_summarize). */
#include "sim_util.h"
#include "synth_util.h"
#include "test.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ref_case {
    const char *trace, *config, *run;
} ref_case;

static const ref_case CASES[] = {
    {"vectoradd_sm80_v5", "SM86_RTX3070", "vectoradd_sm80_RTX3070_nolat"},
    {"ffma_sm90_v5", "SM86_RTX3070", "ffma_sm90as86_RTX3070_nolat"},
    {"vectoradd100_sm61_v4", "SM6_TITANX", "vectoradd100_sm61_TITANX_nolat"},
    {"matrixmul32_sm61_v4", "SM6_TITANX", "matrixmul32_sm61_TITANX_nolat"},
    {"vecadd_sm61_v3", "SM6_TITANX", "vecadd_sm61_TITANX_nolat"},
};

/* Column `col` of the TOTAL row of reference/accelsim/<run>.tsv. */
static double ref_value(const char *run, const char *col)
{
    char rel[256];
    snprintf(rel, sizeof rel, "reference/accelsim/%s.tsv", run);
    const char *p = test_shared_path(rel);
    char *text = p ? test_read_file(p, NULL) : NULL;
    if (!text)
        return NAN;
    int idx = -1, i = 0;
    double v = NAN;
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    for (char *t = line, *c; (c = strsep(&t, "\t")); i++)
        if (!strcmp(c, col))
            idx = i;
    while ((line = strtok_r(NULL, "\n", &save)))
        if (strstr(line, "\tTOTAL\t")) {
            i = 0;
            for (char *t = line, *c; (c = strsep(&t, "\t")); i++)
                if (i == idx)
                    v = *c ? atof(c) : NAN;
        }
    free(text);
    return v;
}

static int load_config(knob_cfg *c, const char *cfg)
{
    char rel[256];
    base_err e = {0};
    knob_init(c);
    const char *files[2] = {"gpgpusim.config", "trace.config"};
    for (int i = 0; i < 2; i++) {
        snprintf(rel, sizeof rel, "reference/accelsim-configs/%s/%s", cfg, files[i]);
        const char *p = test_shared_path(rel);
        if (!p)
            return -1;
        if (knob_load_file(c, p, &e)) {
            test_fail_at(__FILE__, __LINE__, "%s", e.msg);
            return -1;
        }
    }
    c->v.kernel_launch_latency = 0;
    return 0;
}

static double rate(const sim_result *r, const char *set)
{
    const stat_block *b = !strcmp(set, "l1d") ? &r->total.l1d : &r->total.l2;
    uint64_t a = stat_get(b, "accesses");
    return a ? (double)stat_get(b, "misses") / (double)a : 0.0;
}

static void check_case(const ref_case *rc)
{
    char rel[256];
    snprintf(rel, sizeof rel, "traces/accelsim/%s", rc->trace);
    const char *tp = test_shared_path(rel);
    if (!tp)
        return;
    char trace[512];
    snprintf(trace, sizeof trace, "%s", tp);
    knob_cfg c;
    if (load_config(&c, rc->config))
        return;
    sim_result r;
    base_err e = {0};
    if (su_run(trace, &c, &r, &e)) {
        test_fail_at(__FILE__, __LINE__, "%s: %s", rc->trace, e.msg);
        knob_free(&c);
        return;
    }
    trace_summary ts;
    CHECK(trace_summarize(trace, &ts, &e) == 0);
    CHECK_EQ(su_total(&r, "sm", "warp_insts"), ts.warp_insts);
    CHECK_EQ(su_total(&r, "sm", "thread_insts"), ts.thread_insts);
    CHECK_EQ(su_total(&r, "sm", "warp_insts"), (uint64_t)ref_value(rc->run, "warp_insts"));
    double cyc = (double)r.total.cycle, ref = ref_value(rc->run, "gpu_tot_sim_cycle");
    if (fabs(cyc - ref) > 0.15 * ref)
        test_fail_at(__FILE__, __LINE__, "%s: %.0f cycles, reference %.0f (%+.1f%%)", rc->trace,
                     cyc, ref, 100 * (cyc - ref) / ref);
    const char *sets[2] = {"l1d", "l2"}, *cols[2][2] = {{"L1D_accesses", "L1D_misses"},
                                                          {"L2_accesses", "L2_misses"}};
    for (int i = 0; i < 2; i++) {
        double acc = ref_value(rc->run, cols[i][0]), miss = ref_value(rc->run, cols[i][1]);
        double want = acc > 0 ? miss / acc : 0.0, got = rate(&r, sets[i]);
        if (fabs(got - want) > 0.05)
            test_fail_at(__FILE__, __LINE__, "%s: %s miss rate %.3f, reference %.3f", rc->trace,
                         sets[i], got, want);
    }
    sim_result_free(&r);
    knob_free(&c);
}

TEST(sim_ref_vectoradd_sm80) { check_case(&CASES[0]); }
TEST(sim_ref_ffma_sm90) { check_case(&CASES[1]); }
TEST(sim_ref_vectoradd100_sm61) { check_case(&CASES[2]); }
TEST(sim_ref_matrixmul32_sm61) { check_case(&CASES[3]); }
TEST(sim_ref_vecadd_sm61) { check_case(&CASES[4]); }

/* Runs `trace` (with the reference config in cfgdir, if any) once per entry of runs[], each
 * after the arguments `common`, and requires the same JSON from all; each run's output must
 * hold `says` (NULL: no check). */
static void same_json_runs(const char *trace, const char *cfgdir, const char *common,
                           const char *const *runs, int n, const char *says)
{
    char cfg[600] = "";
    if (cfgdir)
        snprintf(cfg, sizeof cfg, "--config=%s/gpgpusim.config --config=%s/trace.config "
                 "--kernel_launch_latency=0", cfgdir, cfgdir);
    char *first = NULL;
    for (int i = 0; i < n; i++) {
        char out[512];
        snprintf(out, sizeof out, "%s/det-%d.json", test_tmpdir(), i);
        test_proc p = test_lockstep("run %s %s %s --stats-json=%s %s", cfg, common, runs[i], out,
                                    trace);
        CHECK_EQ(p.status, 0);
        if (says)
            CHECK_HAS(p.out, says);
        char *j = test_read_file(out, NULL);
        CHECK(j != NULL);
        if (!j)
            break;
        if (!first)
            first = j;
        else {
            if (strcmp(first, j))
                test_fail_at(__FILE__, __LINE__, "%s: JSON differs with %s %s", trace, common,
                             runs[i]);
            free(j);
        }
    }
    free(first);
}

/* The JSON of a whole run is byte-identical cycle by cycle and edge by edge with plain C
 * scans (fast_forward=0, dram_defer=0, chan_sleep=0, host_simd=0) and with the fast-forward,
 * deferred DRAM edges, sleeping channels and vector scans (also each alone), for 1 to 4
 * threads, every
 * schedule (the persistent team, OpenMP static and dynamic loops), both homes of the memory
 * channels (team_chan_home) and the team started at once, after two solo periods of 1 ms
 * (mid-run, where the run lasts that long) or by default (periods of 10 ms, and only on edges
 * long enough), and with every park whose statistics were predicted checked against the
 * cycle it skips (host_park_check, which stops the run on a difference): every shared trace
 * (with its reference config) and every bundled synth sample. */
static void same_json(const char *trace, const char *cfgdir)
{
    const char *runs[] = {"--fast_forward=0 --dram_defer=0 --chan_sleep=0 --host_simd=0",
                          "--threads=1",
                          "--fast_forward=0 --dram_defer=0", "--fast_forward=0 --chan_sleep=0",
                          "--threads=2 --team_start_ms=0", "--threads=4 --team_start_ms=0",
                          "--threads=2 --team_start_ms=1 --team_min_edge_us=0 --team_min_left_ms=0",
                          "--threads=2",
                          "--threads=3 --omp_schedule=static", "--threads=4 --omp_schedule=dynamic",
                          "--threads=2 --team_chan_home=spread --team_start_ms=0",
                          "--threads=3 --team_chan_home=main --team_start_ms=0",
                          "--threads=2 --host_park_check=1"};
    same_json_runs(trace, cfgdir, "", runs, (int)BASE_ARRAY_LEN(runs), NULL);
}

/* check(trace, config dir) on every shared trace with its reference config (none when
 * ../shared is absent), and on every bundled synth sample (no config). */
static void each_shared(void (*check)(const char *trace, const char *cfgdir))
{
    for (size_t i = 0; i < BASE_ARRAY_LEN(CASES); i++) {
        char rel[256], trace[512], cfg[512];
        snprintf(rel, sizeof rel, "traces/accelsim/%s", CASES[i].trace);
        const char *p = test_shared_path(rel);
        if (!p)
            return;
        snprintf(trace, sizeof trace, "%s", p);
        snprintf(rel, sizeof rel, "reference/accelsim-configs/%s", CASES[i].config);
        snprintf(cfg, sizeof cfg, "%s", test_shared_path(rel));
        check(trace, cfg);
    }
}

static void each_sample(void (*check)(const char *trace, const char *cfgdir))
{
    const char *w[] = {"vectoradd", "saxpy-stride", "reduce", "sgemm-tiled", "stencil2d", "hmma",
                       "gather", "histogram", "branchy", "pchase", "multi"};
    for (size_t i = 0; i < BASE_ARRAY_LEN(w); i++) {
        char dir[256];
        snprintf(dir, sizeof dir, "samples/synth/%s", w[i]);
        check(dir, NULL);
    }
}

TEST(sim_deterministic_shared_traces) { each_shared(same_json); }
TEST(sim_deterministic_synth_samples) { each_sample(same_json); }

/* The GTX 1080 config's L2 (allocate on miss, a miss queue of 4) under a streaming kernel:
 * a channel's DRAM held a return for a full DRAM->L2 queue whose head, a fill, waited for
 * room in the miss queue, which waited on that DRAM, and the run stopped at the watchdog.
 * GPGPU-Sim's fill waits for the fill port alone, and a line reserved at its miss cannot
 * evict: the run now ends with every instruction of the trace retired, in both modes. */
TEST(sim_l2_fill_does_not_wait_for_the_miss_queue)
{
    char trace[512], cfg[512];
    const char *p = test_shared_path("traces/accelsim/vecadd_sm61_v3");
    if (!p)
        return;
    snprintf(trace, sizeof trace, "%s", p); /* a static buffer, which the next call reuses */
    p = test_shared_path("reference/accelsim-configs/GTX1080_microgpusim_reconstructed/"
                         "gpgpusim.config");
    if (!p)
        return;
    snprintf(cfg, sizeof cfg, "%s", p);
    trace_summary ts;
    base_err e = {0};
    CHECK(trace_summarize(trace, &ts, &e) == 0);
    const char *modes[] = {"", "--sync_window=4 --threads=2"};
    for (size_t i = 0; i < BASE_ARRAY_LEN(modes); i++) {
        test_proc r = test_lockstep("run --config=%s %s %s", cfg, modes[i], trace);
        CHECK_EQ(r.status, 0);
        unsigned long long insn = 0;
        const char *t = strstr(r.out, "\ngpu_tot_sim_insn = ");
        CHECK(t && sscanf(t, "\ngpu_tot_sim_insn = %llu", &insn) == 1);
        CHECK_EQ(insn, ts.thread_insts);
    }
}

/* An interconnect whose buffers hold one packet (GTX 480 preset, 2-flit buffers) under
 * scattered loads: an SM's reply waited for four free slots in its outbound queue, for a
 * writeback its fill might send, even where the L1D allocates on the miss and a fill cannot
 * evict. SMs whose requests could not leave stopped taking replies, the L2s' replies could
 * not leave, the L2s stopped taking requests, and the run stopped at the watchdog (the
 * tiniest DRAM queues did the same). A reply now waits only when its fill may write back:
 * the runs end with every instruction of the trace retired, in both modes. */
TEST(sim_reply_waits_for_outbound_room_only_to_write_back)
{
    const char *trace = "samples/synth/gather";
    trace_summary ts;
    base_err e = {0};
    CHECK(trace_summarize(trace, &ts, &e) == 0);
    const char *variants[] = {"--icnt_in_buffer=2 --icnt_out_buffer=2",
                              "--icnt_in_buffer=2 --icnt_out_buffer=2 --sync_window=4 --threads=2",
                              "--dram_return_queue=2 --q_l2_to_dram=2 --q_dram_to_l2=2"};
    for (size_t i = 0; i < BASE_ARRAY_LEN(variants); i++) {
        test_proc r = test_lockstep("run --preset=gtx480 %s %s", variants[i], trace);
        CHECK_EQ(r.status, 0);
        unsigned long long insn = 0;
        const char *t = strstr(r.out, "\ngpu_tot_sim_insn = ");
        CHECK(t && sscanf(t, "\ngpu_tot_sim_insn = %llu", &insn) == 1);
        CHECK_EQ(insn, ts.thread_insts);
    }
}

/* A write-allocating L1D (l1d_write_alloc fetch or write) opened an MSHR entry for the
 * line a store missed and never sent its fetch: the entry stayed open, and where later
 * accesses to the line reached its merge limit (l1d_mshr_merge=2) the GTX 480 run stopped
 * at the watchdog. The fetches now leave the SM. Hand count for samples/synth/vectoradd
 * (16,384 floats an array, 512 lines of 128 bytes each; the GTX 480's L1D fetches whole
 * lines and merges the 4 sectors of a line): 1,536 fetches (a, b and the stored c), 6,144
 * sector reads, and with write-through allocation (write) the 2,048 stored sectors too. */
TEST(sim_l1d_write_allocate_fetches_leave_the_sm)
{
    const char *trace = "samples/synth/vectoradd";
    trace_summary ts;
    base_err e = {0};
    CHECK(trace_summarize(trace, &ts, &e) == 0);
    const char *walloc[] = {"fetch", "write"};
    const char *modes[] = {"", "--sync_window=4 --threads=2"};
    for (size_t i = 0; i < BASE_ARRAY_LEN(walloc); i++)
        for (size_t m = 0; m < BASE_ARRAY_LEN(modes); m++) {
            test_proc r = test_lockstep("run --preset=gtx480 --l1d_write_alloc=%s %s %s",
                                        walloc[i], modes[m], trace);
            CHECK_EQ(r.status, 0);
            CHECK_EQ(su_out_stat(r.out, "gpu_tot_sim_insn"), ts.thread_insts);
            CHECK_EQ(su_out_stat(r.out, "total.l1d.fetches"), 3 * 512);
            CHECK_EQ(su_out_stat(r.out, "total.sm.mem_requests"), 4 * 3 * 512 + (i ? 2048 : 0));
            r = test_lockstep("run --preset=gtx480 --l1d_write_alloc=%s --l1d_mshr_merge=2 %s %s",
                              walloc[i], modes[m], trace);
            CHECK_EQ(r.status, 0);
            CHECK_EQ(su_out_stat(r.out, "gpu_tot_sim_insn"), ts.thread_insts);
        }
}

/* A write-back L1D of whole lines (GTX 480 preset, l1d_write=wb): a load that missed could
 * evict a line with 4 dirty sectors and fetch the 4 of its own, 8 requests, where the SM
 * checked for 5 free slots of its outbound queue, and the run ended in "push on a full
 * queue". The queue's ring now holds the 4 slots such an access may overshoot by; the
 * check, and so every run that did not overflow, is as it was. */
TEST(sim_l1d_writeback_and_line_fetch_fit_the_outbound_queue)
{
    const char *w[] = {"samples/synth/vectoradd", "samples/synth/gather"};
    for (size_t i = 0; i < BASE_ARRAY_LEN(w); i++) {
        trace_summary ts;
        base_err e = {0};
        CHECK(trace_summarize(w[i], &ts, &e) == 0);
        test_proc r = test_lockstep("run --preset=gtx480 --l1d_write=wb "
                                    "--l1d_write_alloc=lazy_fetch %s", w[i]);
        CHECK_EQ(r.status, 0);
        CHECK_EQ(su_out_stat(r.out, "gpu_tot_sim_insn"), ts.thread_insts);
        CHECK(su_out_stat(r.out, "total.l1d.writebacks") > 0);
    }
}

/* Windowed mode: the JSON is byte-identical for 1 to 4 threads, with and without skipped
 * quiet windows and parking (fast_forward), deferred DRAM edges, sleeping channels and vector
 * scans, with predicted parks checked (results depend on sync_window, never on the host),
 * and the run says it was windowed. */
static void same_json_windowed(const char *trace, const char *cfgdir)
{
    const char *runs[] = {"--threads=1 --host_simd=0 --fast_forward=0 --dram_defer=0 --chan_sleep=0",
                          "--threads=1", "--threads=2", "--threads=3 --fast_forward=0",
                          "--threads=4 --dram_defer=0", "--threads=2 --team_profile=1",
                          "--threads=1 --chan_sleep=0", "--threads=2 --team_adapt=0",
                          "--threads=1 --host_park_check=1"};
    same_json_runs(trace, cfgdir, "--sync_window=16", runs, (int)BASE_ARRAY_LEN(runs),
                   " windows of 16 core cycles; each round trip's links add 64 cycles");
}

TEST(sim_windowed_deterministic)
{
    each_sample(same_json_windowed);
    each_shared(same_json_windowed);
}

/* A latency-bound windowed run (one warp chasing pointers through DRAM) skips most of its
 * windows: every unit waits on a channel's DRAM latency or a parked SM's wake. The skipped
 * cycles are counted in the rate line; without fast_forward none are. The JSON is the same
 * (sim_windowed_deterministic). */
TEST(sim_windowed_skips_quiet_windows)
{
    test_proc p = test_lockstep("run --sync_window=8 --threads=2 samples/synth/pchase");
    CHECK_EQ(p.status, 0);
    unsigned long long cycles = 0, skipped = 0, windows = 0;
    const char *c = strstr(p.out, "\ngpu_tot_sim_cycle = ");
    const char *r = strstr(p.out, "# simulation rate");
    const char *w = strstr(p.out, "# windowed mode: ");
    CHECK(c && r && w);
    if (!c || !r || !w)
        return;
    CHECK(sscanf(c, "\ngpu_tot_sim_cycle = %llu", &cycles) == 1);
    long long ff = su_ff_cycles(p.out);
    CHECK(ff >= 0);
    skipped = ff >= 0 ? (unsigned long long)ff : 0;
    CHECK(sscanf(w, "# windowed mode: %llu windows of 8", &windows) == 1);
    CHECK(skipped > cycles / 2);
    CHECK(skipped < cycles);
    /* every window is counted, skipped or run: one for cycle 0, then one per 8 cycles */
    CHECK_EQ(windows, 1 + (cycles - 1 + 7) / 8);
    /* A crossbar with nothing to move has no task in a window (the quiet crossbar), yet it
     * counts every interconnect cycle (one clock with the core here), and as active exactly
     * those with a packet inside: one packet at a time, each one cycle in the crossbar. */
    unsigned long long icyc = 0, iact = 0, reqp = 0, repp = 0;
    const char *t = strstr(p.out, "\ntotal.icnt.req_packets = ");
    CHECK(t && sscanf(t, "\ntotal.icnt.req_packets = %llu", &reqp) == 1);
    CHECK(t && (t = strstr(t, "\ntotal.icnt.rep_packets = ")) &&
          sscanf(t, "\ntotal.icnt.rep_packets = %llu", &repp) == 1);
    CHECK(t && (t = strstr(t, "\ntotal.icnt.cycles = ")) &&
          sscanf(t, "\ntotal.icnt.cycles = %llu\ntotal.icnt.active_cycles = %llu", &icyc,
                 &iact) == 2);
    CHECK_EQ(icyc, cycles);
    CHECK(reqp > 8000);
    CHECK_EQ(iact, reqp + repp);
    p = test_lockstep("run --sync_window=8 --fast_forward=0 samples/synth/pchase");
    CHECK_HAS(p.out, " 0 cycles fast-forwarded");
}

/* A kernel read and waiting behind the one before it launches at the first window end after
 * that one's end, skipped windows or not. With one CTA a kernel on one SM, the CTA issue after
 * the last CTA retires is what finds the kernel's file at its end, after that window's launch
 * attempt; the quiet-window skip saw nothing due until the watchdog and jumped 100,000 cycles
 * before launching the next kernel (randsweep seed 48173). */
TEST(sim_windowed_skip_stops_for_a_waiting_kernel)
{
    const char *gen = sy_gen("multi", "n=1", 0, NULL);
    if (!gen)
        return;
    char *dir = base_strdup(gen);
    const char *runs[] = {"--fast_forward=0", "--fast_forward=1", "--threads=2"};
    same_json_runs(dir, NULL, "--n_clusters=1 --sync_window=4", runs, (int)BASE_ARRAY_LEN(runs),
                   " windows of 4 core cycles");
    test_proc p = test_lockstep("run --n_clusters=1 --sync_window=4 %s", dir);
    CHECK_EQ(p.status, 0);
    unsigned long long end = 0, launch = 0;
    int kernels = 0;
    for (const char *c = strstr(p.out, "\nlaunch_cycle = "); c;
         c = strstr(c + 1, "\nlaunch_cycle = "), kernels++) {
        CHECK(sscanf(c, "\nlaunch_cycle = %llu", &launch) == 1);
        if (kernels) /* the window after the one the last kernel ended in */
            CHECK(launch > end && launch <= end + 4);
        const char *e = strstr(c, "\nend_cycle = ");
        CHECK(e && sscanf(e, "\nend_cycle = %llu", &end) == 1);
    }
    CHECK(kernels >= 2);
    free(dir);
}

/* With one subnet the crossbar is one task (with two, each subnet is a task of its own): the
 * same independence of threads. */
TEST(sim_windowed_one_subnet_deterministic)
{
    const char *runs[] = {"--threads=1", "--threads=3", "--threads=2 --fast_forward=0"};
    const char *w[] = {"samples/synth/vectoradd", "samples/synth/histogram"};
    for (size_t i = 0; i < BASE_ARRAY_LEN(w); i++)
        same_json_runs(w[i], NULL, "--sync_window=8 --icnt_subnets=1", runs,
                       (int)BASE_ARRAY_LEN(runs), " windows of 8 core cycles");
}

/* team_profile in the windowed mode: after the mode's line, the loop split into the windows'
 * parallel regions and the serial rest, then every thread's tasks; at least two tasks a
 * window (the busy SMs' alone are more), and no thread stole more tasks than it ran. On one thread, the same
 * split of a run without regions. */
TEST(sim_window_profile_lines)
{
    test_proc p = test_lockstep("run --sync_window=16 --threads=3 --team_profile=1 "
                                "samples/synth/vectoradd");
    CHECK_EQ(p.status, 0);
    const char *loop = strstr(p.out, "# window profile: loop ");
    CHECK(loop != NULL);
    unsigned long long windows = 0;
    if (loop) {
        double secs;
        CHECK(sscanf(loop, "# window profile: loop %lf s; %llu windows, their tasks' parallel "
                           "regions", &secs, &windows) == 2);
        CHECK(windows > 0);
        CHECK(strstr(loop, "task s: crossbar ") != NULL);
    }
    const char *th = strstr(p.out, "# window profile: thread: s in tasks / tasks / stolen: 0: ");
    CHECK(th != NULL);
    if (th)
        CHECK(su_profile_tasks(th, 3) >= 2 * windows);
    p = test_lockstep("run --sync_window=16 --threads=1 --team_profile=1 samples/synth/vectoradd");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "windows, their tasks' run ");
    p = test_lockstep("run --sync_window=16 --threads=2 samples/synth/vectoradd");
    CHECK(strstr(p.out, "# window profile") == NULL);
}

/* The windowed mode's solo windows (team_adapt): the run line says how many windows ran on
 * the main thread alone, none without team_adapt, and nothing of it on one thread. Which
 * windows those are depends on the host's timing; the statistics do not
 * (sim_windowed_deterministic runs team_adapt both ways). */
TEST(sim_windowed_solo_windows_reported)
{
    const char *run = "run --sync_window=8 samples/synth/pchase";
    for (int adapt = 0; adapt < 2; adapt++) {
        test_proc p = test_lockstep("%s --threads=2 --team_adapt=%d", run, adapt);
        CHECK_EQ(p.status, 0);
        const char *w = strstr(p.out, "# windowed mode: ");
        const char *a = w ? strstr(w, "l2_rop_latency ran as ") : NULL;
        a = a ? strstr(a, "; ") : NULL;
        unsigned long long windows = 0, alone = ~0ull;
        CHECK(w && sscanf(w, "# windowed mode: %llu windows", &windows) == 1);
        CHECK(a && sscanf(a, "; %llu of them on the main thread alone (team_adapt)", &alone) == 1);
        CHECK(alone <= windows);
        if (!adapt)
            CHECK_EQ(alone, 0);
    }
    test_proc p = test_lockstep("%s --threads=1", run);
    CHECK_EQ(p.status, 0);
    CHECK(strstr(p.out, "(team_adapt)") == NULL);
}

/* Output lines that may differ between a MacSim trace run in place and a run of its
 * converted text: how the run was asked for, where each kernel came from, how fast it went. */
static char *stats_only(const char *out)
{
    base_buf b = {0};
    for (const char *l = out; *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) + 1 : strlen(l);
        if (strncmp(l, "# command:", 10) && strncmp(l, "# trace ", 8) &&
            strncmp(l, "# kernel ", 9) && strncmp(l, "# simulation rate", 17))
            base_buf_put(&b, l, n);
        l += n;
    }
    base_buf_puts(&b, "");
    return b.s;
}

/* MacSim GPU traces run in place: every warp instruction is simulated, with the statistics
 * of a run of the text `trace convert --to accelsim` writes for the same opcode table. */
TEST(sim_runs_macsim_traces)
{
    static const struct {
        const char *trace, *args;
        int bv;
    } runs[] = {{"traces/macsim/nvbit_vectormultadd_4096", "", 86},
                {"traces/macsim/ptx_vectoradd", "--preset=gtx480", 30}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const char *p = test_shared_path(runs[i].trace);
        if (!p)
            return;
        char *src = base_strdup(p), *conv = base_sprintf("%s/conv%zu", test_tmpdir(), i);
        test_proc r = test_lockstep("run --kernel_launch_latency=0 %s %s", runs[i].args, src);
        CHECK_EQ(r.status, 0);
        if (i == 0) {
            CHECK_HAS(r.err, "is a MacSim trace: read in place (3 kernels, 5376 warp "
                             "instructions)");
            CHECK_HAS(r.out, "total.gpgpu_n_tot_w_icount = 5376\n");
            CHECK_HAS(r.out, "# kernel 3/3");
        }
        char *direct = stats_only(r.out);
        r = test_lockstep("trace convert --to accelsim %s --out %s --binary-version=%d", src,
                          conv, runs[i].bv);
        CHECK_EQ(r.status, 0);
        r = test_lockstep("run --kernel_launch_latency=0 %s %s", runs[i].args, conv);
        CHECK_EQ(r.status, 0);
        char *text = stats_only(r.out);
        CHECK(strlen(direct) > 1000 && !strcmp(direct, text));
        free(direct);
        free(text);
        free(src);
        free(conv);
    }
}
