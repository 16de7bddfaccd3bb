/* The parallel run's machinery (src/sim/team.c, ahead.c): CTAs read ahead during phase B must
 * not change results or error reports, whatever the thread count and schedule. */
#include "test.h"

#include "base/base.h"
#include "sim/sim_int.h"
#include "sim_util.h"

#include <stdlib.h>
#include <string.h>

#define NCTA 300
#define BAD_CTA 250

/* A one-kernel list in dir and the kernel's header (ncta CTAs of one warp) into *b. */
static void start_grid(const char *dir, int ncta, base_buf *b)
{
    char path[256];
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    test_write_text(path, "kernel-1.traceg\n");
    base_buf_printf(b, "-kernel name = k\n-grid dim = (%d,1,1)\n-block dim = (32,1,1)\n"
                       "-shmem = 0\n-nregs = 8\n-binary version = 80\n"
                       "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n", ncta);
}

/* Writes *b as the kernel's file in dir and frees it. */
static void end_grid(const char *dir, base_buf *b)
{
    char path[256];
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    test_write_file(path, b->s, b->len);
    base_buf_free(b);
}

/* A 1-warp-per-CTA kernel of NCTA CTAs; CTA `bad` (if < NCTA) has a malformed line. With
 * more than one thread the CTAs are read ahead, in batches parsed on the team (ahead.c). */
static void write_grid(const char *dir, int bad)
{
    base_buf b = {0};
    start_grid(dir, NCTA, &b);
    for (int i = 0; i < NCTA; i++) {
        base_buf_printf(&b, "#BEGIN_TB\nthread block = %d,0,0\nwarp = 0\ninsts = 3\n", i);
        /* static instructions that first appear in later CTAs, in an order of their own: a
         * block parsed apart from the others must still get the serial numbering */
        base_buf_printf(&b, "0000 ffffffff 1 R%d %s 0 0 0\n", i % 7 == 4 ? 3 : 1,
                        i % 5 == 3 ? "IADD3" : "MOV");
        base_buf_printf(&b, "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x%llx 4 0\n",
                        0x7f0000000000ull + 128ull * (unsigned)i);
        base_buf_printf(&b, i == bad ? "00g0 ffffffff 0 EXIT 0 0 0\n" : "0020 ffffffff 0 EXIT 0 0 0\n");
        base_buf_printf(&b, "#END_TB\n");
    }
    end_grid(dir, &b);
}

TEST(sim_team_read_ahead_error_matches_serial)
{
    write_grid("bad_grid", BAD_CTA);
    const char *runs[] = {"--threads=1", "--threads=2 --team_start_ms=0",
                          "--threads=4 --team_start_ms=0", "--threads=2",
                          "--threads=2 --omp_schedule=static", "--threads=3 --omp_schedule=dynamic"};
    char *first = NULL;
    for (size_t i = 0; i < BASE_ARRAY_LEN(runs); i++) {
        char json[512];
        snprintf(json, sizeof json, "%s/bad-%zu.json", test_tmpdir(), i);
        test_proc p = test_lockstep("run %s --stats-json=%s %s/bad_grid", runs[i], json,
                                    test_tmpdir());
        if (p.status != 3)
            test_fail_at(__FILE__, __LINE__, "%s: exit %d, expected 3 (%s)", runs[i], p.status,
                         p.err);
        CHECK_HAS(p.err, "kernel-1.traceg:");
        char *j = test_read_file(json, NULL);
        CHECK(j == NULL); /* no statistics from a failed run */
        free(j);
        if (!first)
            first = base_strdup(p.err);
        else if (strcmp(first, p.err))
            test_fail_at(__FILE__, __LINE__, "%s reports\n%s, 1 thread\n%s", runs[i], p.err, first);
    }
    free(first);
}

/* The first run's JSON is kept in *first; every later one must equal it (and is freed). */
static void same_as_first(char **first, char *j, const char *run)
{
    if (!*first) {
        *first = j;
        return;
    }
    if (strcmp(*first, j))
        test_fail_at(__FILE__, __LINE__, "JSON differs with %s", run);
    free(j);
}

/* Runs the grid in `dir` once per entry of runs (each with `extra` too): every run succeeds,
 * its JSON holds `want1` and `want2`, and all JSONs are the same. */
static void same_json(const char *dir, const char *const *runs, size_t n, const char *extra,
                      const char *want1, const char *want2)
{
    char *first = NULL;
    for (size_t i = 0; i < n; i++) {
        char json[512];
        snprintf(json, sizeof json, "%s/%s-%zu.json", test_tmpdir(), dir, i);
        test_proc p = test_lockstep("run %s %s --stats-json=%s %s/%s", runs[i], extra, json,
                                    test_tmpdir(), dir);
        CHECK_EQ(p.status, 0);
        char *j = test_read_file(json, NULL);
        CHECK(j != NULL);
        if (!j)
            break;
        CHECK_HAS(j, want1);
        CHECK_HAS(j, want2);
        same_as_first(&first, j, runs[i]);
    }
    free(first);
}

/* 64 CTAs of one warp with 1,100 instructions each (about 38 KB of text a CTA; CTA `bad`, if
 * below 64, has a malformed line near its end): the first wave's ring of 46 CTAs is over 1 MB
 * of text, which is parsed by a parallel region of its own before the team starts. */
static void write_wide(const char *dir, int bad)
{
    base_buf b = {0};
    start_grid(dir, 64, &b);
    for (int i = 0; i < 64; i++) {
        base_buf_printf(&b, "#BEGIN_TB\nthread block = %d,0,0\nwarp = 0\ninsts = 1100\n", i);
        for (int k = 0; k < 1099; k++)
            base_buf_printf(&b, "%04x ffffffff 1 R%d %s 1 R%d 0 0\n", 16 * (k % 64), 1 + k % 5,
                            (k + i) % 3 ? "IADD3" : "MOV", 1 + (k + i) % 4);
        base_buf_printf(&b, i == bad ? "0g00 ffffffff 0 EXIT 0 0 0\n#END_TB\n"
                                     : "0ff0 ffffffff 0 EXIT 0 0 0\n#END_TB\n");
    }
    end_grid(dir, &b);
}

TEST(sim_first_wave_parsed_in_parallel_before_the_team)
{
    write_wide("wide_grid", 64);
    write_wide("wide_bad", 40);
    const char *runs[] = {"--threads=1", "--threads=2", "--threads=2 --team_start_ms=0"};
    char *first = NULL, *first_err = NULL;
    for (size_t i = 0; i < BASE_ARRAY_LEN(runs); i++) {
        char json[512];
        snprintf(json, sizeof json, "%s/wide-%zu.json", test_tmpdir(), i);
        test_proc p = test_lockstep("run %s --stats-json=%s %s/wide_grid", runs[i], json,
                                    test_tmpdir());
        CHECK_EQ(p.status, 0);
        if (i == 1) /* the helpers wait for 10 ms periods: the first wave is read before */
            CHECK_HAS(p.out, "CTAs parsed in parallel batches outside it");
        char *j = test_read_file(json, NULL);
        CHECK(j != NULL);
        if (j) {
            CHECK_HAS(j, "\"gpu_tot_issued_cta\": 64");
            same_as_first(&first, j, runs[i]);
        }
        p = test_lockstep("run %s %s/wide_bad", runs[i], test_tmpdir());
        CHECK_EQ(p.status, 3);
        CHECK_HAS(p.err, "kernel-1.traceg:");
        if (!first_err)
            first_err = base_strdup(p.err);
        else if (strcmp(first_err, p.err))
            test_fail_at(__FILE__, __LINE__, "%s reports\n%s, 1 thread\n%s", runs[i], p.err,
                         first_err);
    }
    free(first);
    free(first_err);
}

TEST(sim_team_many_ctas_same_json)
{
    write_grid("good_grid", NCTA);
    const char *runs[] = {"--threads=1", "--threads=2 --team_start_ms=0",
                          "--threads=5 --team_start_ms=0", "--threads=2",
                          "--threads=2 --omp_schedule=static",
                          "--threads=2 --fast_forward=0 --team_start_ms=0", "--host_hugepages=0",
                          "--threads=2 --team_adapt=0 --team_start_ms=0",
                          "--threads=2 --team_chan_home=spread --team_start_ms=0",
                          "--threads=4 --team_chan_home=main --team_start_ms=0",
                          "--threads=8 --team_start_ms=0 --team_profile=1",
                          "--team_profile=1"};
    same_json("good_grid", runs, BASE_ARRAY_LEN(runs), "", "\"gpu_tot_issued_cta\": 300",
              "\"gpu_tot_issued_cta\": 300");
}

/* team_profile prints where the team's time went, as # lines after the rate: the main
 * thread's loop, then every thread's tasks; the tasks the threads ran add up to at least one
 * per SM cycle run with the team. Without a team it prints nothing. */
TEST(sim_team_profile_lines)
{
    write_grid("prof_grid", NCTA);
    test_proc p = test_lockstep("run --threads=3 --team_start_ms=0 --team_profile=1 %s/prof_grid",
                                test_tmpdir());
    CHECK_EQ(p.status, 0);
    const char *loop = strstr(p.out, "# team profile: loop ");
    CHECK(loop != NULL);
    const char *th = strstr(p.out, "# team profile: thread: s in tasks / tasks / stolen: 0: ");
    CHECK(th != NULL);
    if (th)
        CHECK(su_profile_tasks(th, 3) >= NCTA);
    p = test_lockstep("run --threads=1 --team_profile=1 %s/prof_grid", test_tmpdir());
    CHECK_EQ(p.status, 0);
    CHECK(strstr(p.out, "# team profile") == NULL);
}

/* team_profile in the exact mode prints the loop's phases, as two # lines after the rate.
 * Every core edge the loop ran is counted once: with the cycles fast-forward jumped, they make
 * the run's cycles (five kernels). On one thread no edge goes to other threads, the parts do
 * not add up to more than the loop, and the profile changes no statistic (the JSON test of
 * good_grid runs it too). */
TEST(sim_loop_profile_lines)
{
    test_proc p = test_lockstep("run --threads=1 --team_profile=1 samples/synth/multi");
    CHECK_EQ(p.status, 0);
    const char *l1 = strstr(p.out, "# loop profile: loop ");
    const char *l2 = strstr(p.out, "# loop profile: phase B's tasks ");
    long long ff = su_ff_cycles(p.out);
    CHECK(l1 && l2 && ff >= 0);
    if (!l1 || !l2 || ff < 0)
        return;
    double loop = 0, serial = 0, rest = -1, tasks = 0, sm_s = 0, team_s = -1;
    unsigned long long edges = 0, core = 0, alone = 0, ntask = 0, team = 1;
    CHECK(sscanf(l1, "# loop profile: loop %lf s, %llu edges (%llu core); serial phases %lf s",
                 &loop, &edges, &core, &serial) == 4);
    const char *rest_at = "; the rest (first launch, next edges, fast-forward, checks) ";
    const char *r = strstr(l1, rest_at);
    CHECK(r && sscanf(r + strlen(rest_at), "%lf", &rest) == 1);
    CHECK(sscanf(l2, "# loop profile: phase B's tasks %lf s: %llu edges alone", &tasks,
                 &alone) == 2);
    const char *sms = strstr(l2, ", SMs ");
    CHECK(sms && sscanf(sms, ", SMs %lf/%llu), %llu edges handed to other threads %lf", &sm_s,
                        &ntask, &team, &team_s) == 4);
    uint64_t cycles = su_out_stat(p.out, "total.gpu_tot_sim_cycle");
    CHECK_EQ(core + (unsigned long long)ff, (unsigned long long)cycles);
    CHECK(core > 0 && core <= edges && alone <= edges && ntask > 0 && sm_s > 0);
    CHECK_EQ(team, 0ull);
    CHECK(team_s == 0 && rest >= -0.0005 && serial + tasks <= loop + 0.0005);
    p = test_lockstep("run --threads=1 samples/synth/multi");
    CHECK(strstr(p.out, "# loop profile") == NULL);
    p = test_lockstep("run --threads=1 --team_profile=1 --sync_window=8 samples/synth/multi");
    CHECK(strstr(p.out, "# loop profile") == NULL);
}

/* A copy twice the L2's size ahead of the kernel: its prefill runs per channel on the team, and
 * its sets churn (held back on paper, cache_prefill_begin); the kernel's loads fall in the
 * copy's tail, which stays, so they hit in L2 (with the copy's 64-bit addresses: Accel-Sim's
 * 32-bit truncation would put it elsewhere). Same JSON for every thread count. */
/* A copy 8.5 times the L2 (under Accel-Sim's 32-bit truncation, at 0): the middle of its
 * prefill is counted, not written (memcpy_prefill_skip); the JSON is the same as with every
 * line written, on one thread and on two. */
TEST(sim_memcpy_prefill_skip_same_json)
{
    write_grid("big_copy", NCTA);
    test_write_text("big_copy/kernelslist.g",
                    "MemcpyHtoD,0x00007eff00000000,35651584\nkernel-1.traceg\n");
    const char *runs[] = {"--memcpy_prefill_skip=0", "--memcpy_prefill_skip=1",
                          "--memcpy_prefill_skip=1 --threads=2 --team_start_ms=0"};
    same_json("big_copy", runs, BASE_ARRAY_LEN(runs), "", "\"gpu_tot_issued_cta\": 300",
              "\"L2_total_cache_accesses\": 1200,");
}

TEST(sim_team_memcpy_prefill_same_json)
{
    write_grid("copy_grid", NCTA);
    test_write_text("copy_grid/kernelslist.g",
                    "MemcpyHtoD,0x00007effff800000,8454144\nkernel-1.traceg\n");
    const char *runs[] = {"--threads=1", "--threads=2 --team_start_ms=0",
                          "--threads=5 --team_start_ms=0", "--threads=2"};
    same_json("copy_grid", runs, BASE_ARRAY_LEN(runs), "--memcpy_truncate_32bit=0",
              "\"L2_total_cache_accesses\": 1200,", "\"L2_total_cache_misses\": 0,");
}

/* A copy of one 128-byte block reaches one L2 slice: only that slice's tag arrays are made
 * (a slice makes them when first needed; the copy's prefill used to make them in every
 * slice of every channel it walked, which a short trace paid for at start-up). */
TEST(sim_memcpy_gives_tags_only_to_the_slices_it_reaches)
{
    base_buf b = {0};
    start_grid("one_block", 1, &b);
    base_buf_printf(&b, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                        "0000 ffffffff 1 R1 MOV 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n");
    end_grid("one_block", &b);
    test_write_text("one_block/kernelslist.g",
                    "MemcpyHtoD,0x00007f0000000000,128\nkernel-1.traceg\n");
    base_err e = {0};
    trace_list l;
    knob_cfg c;
    knob_init(&c);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/one_block", test_tmpdir());
    if (trace_list_open(dir, &l, &e)) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        knob_free(&c);
        return;
    }
    sim *g = sim_new(&c.v, &e);
    if (!g) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        trace_list_free(&l);
        knob_free(&c);
        return;
    }
    sim_result r;
    CHECK_EQ(sim_run(g, &l, &r, NULL, NULL, &e), 0);
    uint32_t with = 0;
    for (uint32_t ch = 0; ch < g->n_chan; ch++)
        for (uint32_t s = 0; s < g->n_sub; s++)
            with += (uint32_t)mem_part_l2_has_tags(g->part[ch], s);
    CHECK_EQ(with, 1);
    CHECK(g->n_chan * g->n_sub > 1);
    sim_result_free(&r);
    sim_free(g);
    trace_list_free(&l);
    knob_free(&c);
}

/* The helpers start after the solo periods only where the edges are long enough for a team
 * (team_min_edge_us): never with an impossible bound, after the second 1 ms period with none,
 * at once with team_start_ms=0; the statistics are the same every way, also under a bound on
 * the work left that may or may not hold it back (team_min_left_ms). pchase runs tens of ms
 * in edges of well under 1 us. */
TEST(sim_team_starts_only_on_edges_worth_it)
{
    const char *runs[] = {"--threads=1",
                          "--threads=2 --team_start_ms=1 --team_min_edge_us=1e6",
                          "--threads=2 --team_start_ms=1 --team_min_edge_us=0 --team_min_left_ms=0",
                          "--threads=2 --team_start_ms=0",
                          "--threads=2 --team_start_ms=1 --team_min_edge_us=0 --team_min_left_ms=5"};
    const char *want[] = {NULL,
                          "# team of 2 threads: helpers never started (last solo period judged: ",
                          "# team of 2 threads: helpers started ",
                          "# team of 2 threads: helpers started 0.0",
                          "# team of 2 threads: helpers "};
    char *first = NULL;
    for (size_t i = 0; i < BASE_ARRAY_LEN(runs); i++) {
        char json[512];
        snprintf(json, sizeof json, "%s/edges-%zu.json", test_tmpdir(), i);
        test_proc p = test_lockstep("run %s --stats-json=%s samples/synth/pchase", runs[i], json);
        CHECK_EQ(p.status, 0);
        if (want[i])
            CHECK_HAS(p.out, want[i]);
        else
            CHECK(strstr(p.out, "# team of") == NULL);
        char *j = test_read_file(json, NULL);
        CHECK(j != NULL);
        if (!j)
            break;
        same_as_first(&first, j, runs[i]);
    }
    free(first);
}

/* The work-left estimate (sim_work_left): CTAs not done, each kernel not yet launched counted
 * as the mean launched one, at the judged period's CTA rate, against team_min_left_ms. */
TEST(sim_team_waits_for_work_worth_starting_it)
{
    sim *g = base_calloc(1, sizeof *g);
    sim_result r = {0};
    trace_list l = {0};
    g->res = &r;
    g->list = &l;
    l.nkernels = 4;
    g->nrk = 2;                /* two launched, of 100 CTAs each: 400 by estimate */
    g->ctas_total_est = 200;
    g->ctas_done_all = 150;    /* 250 left */
    g->k.team_min_left_ms = 20;
    CHECK(sim_work_left(g, 0.010, 100));      /* 10 ms for 100 CTAs: 25 ms left */
    CHECK(r.solo_left_ms > 24.99 && r.solo_left_ms < 25.01);
    CHECK(!sim_work_left(g, 0.010, 200));     /* twice the rate: 12.5 ms left */
    CHECK(r.solo_left_ms > 12.49 && r.solo_left_ms < 12.51);
    CHECK(sim_work_left(g, 0.010, 0));        /* no CTA done: no estimate */
    CHECK(r.solo_left_ms < 0);
    g->ctas_done_all = 500;                   /* past the estimate: nothing left */
    CHECK(!sim_work_left(g, 0.010, 100));
    CHECK(r.solo_left_ms == 0);
    g->k.team_min_left_ms = 0;                /* the bound off */
    CHECK(sim_work_left(g, 0.010, 100));
    free(g);
}

/* The team's SM homes (sim_homes_rebalance): a thread that keeps taking its neighbour's
 * tasks gets the SM on their border, one per look, never its neighbour's last; steals under
 * the slack move nothing; every look starts the counts again. */
static void steal(sim *g, uint32_t thief, uint32_t fwd, uint32_t back)
{
    atomic_store(&g->team.steals[thief].next, fwd);
    atomic_store(&g->team.steals[thief + 1].prev, back);
}

TEST(sim_homes_follow_the_steals)
{
    enum { NSM = 5 };
    sim *g = base_calloc(1, sizeof *g);
    uint32_t home[NSM] = {0, 0, 0, 1, 1}, first[3] = {0, 3, NSM};
    g->n_sm = NSM;
    g->home_sm = home;
    g->sm_first = first;
    sim_team_init(&g->team, 2, 16, 0);
    steal(g, 0, SIM_REBALANCE_SLACK, 0); /* not more than the slack */
    sim_homes_rebalance(g);
    CHECK_EQ(first[1], 3);
    steal(g, 0, 40, 3); /* thread 0 took thread 1's tasks: SM 3 moves to it */
    sim_homes_rebalance(g);
    CHECK_EQ(first[1], 4);
    CHECK_EQ(home[3], 0);
    CHECK_EQ(atomic_load(&g->team.steals[0].next), 0);
    steal(g, 0, 40, 0); /* thread 1 keeps its last SM */
    sim_homes_rebalance(g);
    CHECK_EQ(first[1], 4);
    CHECK_EQ(home[4], 1);
    for (int i = 0; i < 3; i++) { /* the other way: back to thread 1, one SM a look */
        steal(g, 0, 0, 100);
        sim_homes_rebalance(g);
    }
    CHECK_EQ(first[1], 1);
    CHECK(home[0] == 0 && home[1] == 1 && home[2] == 1 && home[3] == 1 && home[4] == 1);
    sim_team_free(&g->team);
    free(g);
}

/* Solo windows (sim_adapt_edge, sim_adapt_window), fed the time of each core edge from a cost per way: most
 * edges run the cheaper way, the other is tried now and then, and a change of costs half way
 * through is followed. */
/* What the simulator does after each core edge (sim.c, adapt_edge), at the time `now`. */
static void adapt_after_edge(sim_adapt *a, double now)
{
    int w = sim_adapt_edge(a);
    if (w == SIM_ADAPT_FULL || (w == SIM_ADAPT_CHECK && sim_adapt_lost(a, now)))
        sim_adapt_window(a, now);
}

static double adapt_solo_share(sim_adapt *a, double *now, double team, double solo, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        *now += a->solo ? solo : team;
        k += (uint32_t)a->solo;
        adapt_after_edge(a, *now);
    }
    return (double)k / n;
}

TEST(sim_adapt_runs_the_faster_way)
{
    const uint32_t n = 100 * SIM_ADAPT_STAY_MAX * SIM_ADAPT_EDGES;
    const double probes = 1.0 / SIM_ADAPT_STAY_MAX + 0.01;
    sim_adapt a;
    double now = 0;
    sim_adapt_init(&a, now, 16);
    double share = adapt_solo_share(&a, &now, 1e-6, 2e-6, n); /* the team is faster */
    CHECK(share > 0 && share < probes);
    share = adapt_solo_share(&a, &now, 2e-6, 1e-6, n); /* now alone is faster */
    CHECK(share > 1 - probes && share < 1);
    CHECK(a.stay >= SIM_ADAPT_STAY_MAX);
}

/* Where the other way is far slower (sixteen threads against one), its tries are spaced so
 * they cost about 1/SIM_ADAPT_TRY_SHARE of the run, not 1/SIM_ADAPT_STAY_MAX. */
TEST(sim_adapt_tries_a_far_slower_way_seldom)
{
    const uint32_t n = 2000 * SIM_ADAPT_EDGES;
    sim_adapt a;
    double now = 0, team = 1e-6, solo = 5e-6;
    sim_adapt_init(&a, now, 16);
    double share = adapt_solo_share(&a, &now, team, solo, n);
    CHECK(!a.solo);
    CHECK(a.stay > SIM_ADAPT_STAY_MAX);
    double extra = share * n * (solo - team); /* what the tries cost over the team alone */
    CHECK(extra < 1.5 * n * team / SIM_ADAPT_TRY_SHARE);
    CHECK(share > 0);
}

/* Edges the first try of the other way runs, each way costing what it says. */
static uint32_t adapt_try_edges(double team, double solo)
{
    sim_adapt a;
    double now = 0;
    sim_adapt_init(&a, now, 16);
    uint32_t k = 0;
    for (uint32_t i = 0; i < 8 * SIM_ADAPT_EDGES && a.phase != 2; i++) {
        now += a.solo ? solo : team;
        k += a.phase == 1;
        adapt_after_edge(&a, now);
    }
    return a.phase == 2 ? k : 0;
}

/* A try that falls far behind (one thread against sixteen) ends once it has run
 * SIM_ADAPT_LOOK_MIN edges; one that loses by less, or wins, runs its whole window. */
TEST(sim_adapt_ends_a_far_slower_try_early)
{
    CHECK_EQ(adapt_try_edges(1e-6, 5e-6), SIM_ADAPT_LOOK_MIN);
    CHECK_EQ(adapt_try_edges(1e-6, 1.9e-6), SIM_ADAPT_EDGES);
    CHECK_EQ(adapt_try_edges(2e-6, 1e-6), SIM_ADAPT_EDGES);
}

/* After a try that lost by far (one thread against the team of sixteen), heavier edges, which
 * favour the team still more, start no try; lighter ones do. */
TEST(sim_adapt_after_a_far_loss_tries_only_toward_the_other_way)
{
    sim_adapt a;
    double now = 0;
    sim_adapt_init(&a, now, 16);
    adapt_solo_share(&a, &now, 1e-6, 5e-6, 40 * SIM_ADAPT_EDGES);
    CHECK(!a.solo && a.far);
    CHECK_EQ(adapt_solo_share(&a, &now, 2e-6, 10e-6, 10 * SIM_ADAPT_EDGES), 0.0);
    CHECK(adapt_solo_share(&a, &now, 0.3e-6, 0.4e-6, 4 * SIM_ADAPT_EDGES) > 0);
}

/* A workload whose pace changes is tried again at once: alone was faster while edges were
 * cheap (long enough for the stay between tries to reach SIM_ADAPT_STAY_MAX windows), the
 * team is once they cost six times as much alone and three times with the team. */
TEST(sim_adapt_tries_again_when_the_pace_changes)
{
    sim_adapt a;
    double now = 0;
    sim_adapt_init(&a, now, 16);
    adapt_solo_share(&a, &now, 2e-6, 1e-6, 100 * SIM_ADAPT_STAY_MAX * SIM_ADAPT_EDGES);
    CHECK_EQ(a.stay, SIM_ADAPT_STAY_MAX);
    /* a window at the new pace, a try of the team, a window alone to compare: then the team
     * runs, where waiting out the stay would have kept it alone for up to 64 windows */
    double share = adapt_solo_share(&a, &now, 6e-6, 12e-6, 10 * SIM_ADAPT_EDGES);
    CHECK(!a.solo);
    CHECK(share <= 0.3);
}

/* One slow window beside a try (the host's, not the workload's) does not make a try that
 * loses to the other neighbour win: the team stays, where a mean of the two neighbours let a
 * single slow window send two threads alone for SIM_ADAPT_STAY windows. */
TEST(sim_adapt_a_slow_window_beside_a_try_decides_nothing)
{
    sim_adapt a;
    double now = 0, team = 15e-6, solo = 19e-6;
    sim_adapt_init(&a, now, 2);
    while (a.phase != 1 || a.windows < 2) { /* to the first try after the run's start */
        double edge = a.solo ? solo : team;
        if (a.left == 1 && a.phase == 0 && a.windows >= 1)
            edge = 40e-6; /* the window just before the try: a slow host */
        now += edge;
        adapt_after_edge(&a, now);
    }
    CHECK(a.solo);
    CHECK(adapt_solo_share(&a, &now, team, solo, 20 * SIM_ADAPT_EDGES) < 0.1);
    CHECK(!a.solo);
}

/* With two threads a try of the other way loses twofold at most: one 1.7 times slower (a
 * solo try of reduce 1M) ends early and counts as far, so heavier edges start no new try. */
TEST(sim_adapt_two_threads_end_a_clearly_slower_try_early)
{
    sim_adapt a;
    double now = 0;
    sim_adapt_init(&a, now, 2);
    uint32_t k = 0;
    for (uint32_t i = 0; i < 8 * SIM_ADAPT_EDGES && a.phase != 2; i++) {
        now += a.solo ? 1.7e-6 : 1e-6;
        k += a.phase == 1;
        adapt_after_edge(&a, now);
    }
    CHECK_EQ(k, SIM_ADAPT_LOOK_MIN);
    adapt_solo_share(&a, &now, 1e-6, 1.7e-6, 2 * SIM_ADAPT_EDGES);
    CHECK(!a.solo && a.far);
    CHECK_EQ(adapt_solo_share(&a, &now, 2e-6, 3.4e-6, 10 * SIM_ADAPT_EDGES), 0.0);
}
