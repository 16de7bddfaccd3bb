/* The ledger (sim_ledger_check): the identities between the units' statistics hold on the
 * bundled samples under presets with sectored and line-granular caches, caches that reserve
 * nothing, without an L1D or L2, windowed and stopped early, as equalities where nothing was
 * left in flight; and it is not vacuous: one counter moved, in a kernel's segment, the total
 * or one unit, is reported with the identity it breaks. */
#include "sim_util.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static const char *const SAMPLES[] = {"branchy", "histogram", "hmma", "multi", "pchase",
                                      "reduce", "saxpy-stride", "sgemm-tiled", "stencil2d",
                                      "vectoradd"};

/* Runs samples/synth/<name> with a preset and knobs ("name=value" pairs, NULL-ended);
 * 0 with r filled. */
static int run_sample(const char *name, const char *preset, const char *const *kv,
                      sim_result *r)
{
    knob_cfg c;
    base_err e = {0};
    su_knobs(&c);
    if (preset && knob_load_preset(&c, preset, &e))
        test_fail_at(__FILE__, __LINE__, "%s: %s", preset, e.msg);
    for (; kv && *kv; kv += 2)
        if (knob_set(&c, kv[0], kv[1], "test", &e))
            test_fail_at(__FILE__, __LINE__, "%s: %s", kv[0], e.msg);
    char dir[256];
    snprintf(dir, sizeof dir, "samples/synth/%s", name);
    memset(r, 0, sizeof *r); /* freeable even if the run never starts */
    int rc = su_run(dir, &c, r, &e);
    if (rc)
        test_fail_at(__FILE__, __LINE__, "%s on %s: %s", name, preset ? preset : "defaults",
                     e.msg);
    knob_free(&c);
    return rc;
}

/* Every sample on the preset with the knobs: the ledger holds with `want` identities, of
 * which `eq` as equalities (-1: any number, the run may end with something in flight). */
static void all_samples(const char *preset, const char *const *kv, int want, int eq)
{
    for (size_t i = 0; i < BASE_ARRAY_LEN(SAMPLES); i++) {
        sim_result r;
        if (run_sample(SAMPLES[i], preset, kv, &r) == 0) {
            if (r.ledger != want || (eq >= 0 && (r.ledger_eq != eq || r.drained != (eq > 0))))
                test_fail_at(__FILE__, __LINE__,
                             "%s on %s: ledger %d (%s), %d as equalities, expected %d and %d",
                             SAMPLES[i], preset ? preset : "defaults", r.ledger, r.ledger_why,
                             r.ledger_eq, want, eq);
        }
        sim_result_free(&r);
    }
}

/* 29 identities with both caches: 13 on every segment, 16 more on the total, of which the 14
 * of a request's way hold as equalities when nothing is left in flight (here, after every
 * sample: its stores were acknowledged and no L2 line was written back) */
TEST(ledger_holds_on_sectored_caches) { all_samples(NULL, NULL, 29, 14); }
TEST(ledger_holds_on_line_caches)
{
    /* the GTX 480's L1D is line-granular: a fill is 4 sectors per fetch */
    all_samples("gtx480", NULL, 29, 14);
    const char *kv[] = {"l2_type", "normal", NULL};
    all_samples("titanx", kv, 29, 14);
}

/* Caches that reserve no line on a miss (Pascal's streaming L1D with global loads cached in
 * it, an allocate-on-fill L1D): a request that merges into a pending MSHR entry is a miss, not
 * a hit_reserved (randsweep trial 58114 of session 59, stencil2d on the P100 preset with
 * gmem_skip_l1d=0: 33,312 merges and no hit_reserved broke "mshr_hits <= hit_reserved") */
TEST(ledger_holds_on_caches_that_reserve_nothing)
{
    const char *streaming[] = {"gmem_skip_l1d", "0", "l1t_enabled", "0", NULL};
    all_samples("p100", streaming, 29, 14);
    const char *on_fill[] = {"l1d_alloc", "on_fill", NULL};
    all_samples("gtx480", on_fill, 29, 14);
}

TEST(ledger_holds_without_caches)
{
    const char *no_l1d[] = {"l1d_enabled", "0", NULL};
    all_samples("qv100", no_l1d, 23, 13);
    const char *no_l2[] = {"l2_enabled", "0", NULL};
    all_samples("a100", no_l2, 19, 10);
}

TEST(ledger_holds_windowed_and_stopped)
{
    const char *w[] = {"sync_window", "8", NULL};
    all_samples("h100", w, 29, -1);
    const char *stop[] = {"max_cycles", "700", NULL};
    all_samples(NULL, stop, 29, -1);
}

/* A fetch-on-write L1D (l1d_write_alloc=fetch): a store's line fetch leaves the SM, but the
 * store does not wait for it, so vectoradd (16,384 floats stored: 2,048 sectors of 32 bytes,
 * a fetch each on the sectored L1D) ends with those fetches on their way: the run is not
 * drained, and its flows hold only as inequalities. */
TEST(ledger_with_fetches_in_flight_at_the_end)
{
    const char *kv[] = {"l1d_write_alloc", "fetch", NULL};
    sim_result r;
    if (run_sample("vectoradd", NULL, kv, &r) == 0) {
        CHECK_EQ(r.ledger, 29);
        CHECK_EQ(r.drained, 0);
        CHECK_EQ(r.ledger_eq, 0);
        CHECK_EQ(stat_get(&r.total.l1d, "fetches") - stat_get(&r.total.l1d, "fills"), 2048);
        CHECK(stat_get(&r.total.icnt, "req_delivered") < stat_get(&r.total.sm, "mem_requests"));
    }
    sim_result_free(&r);
}

/* One counter moved by one breaks the identities it is part of, and the report names the
 * segment and the identity. */
TEST(ledger_reports_the_broken_identity)
{
    knob_cfg c;
    su_knobs(&c);
    sim_result r;
    if (run_sample("multi", NULL, NULL, &r)) {
        knob_free(&c);
        return;
    }
    CHECK(r.nk >= 2);
    char why[400];
    CHECK_EQ(sim_ledger_check(&c.v, &r, why, sizeof why), 29);

    stat_block *l2 = &r.k[1].delta.l2;
    int slot = l2->set->slot[stat_find(l2->set, "hits")];
    l2->v[slot]++;
    CHECK_EQ(sim_ledger_check(&c.v, &r, why, sizeof why), -1);
    CHECK_HAS(why, "kernel 2 (");
    CHECK_HAS(why, "l2.accesses = l2.hits + l2.hit_reserved + l2.misses does not hold");
    l2->v[slot]--;

    /* a total-only rule: more replies taken by the SMs than the interconnect delivered */
    stat_block *sm = &r.total.sm;
    slot = sm->set->slot[stat_find(sm->set, "mem_replies")];
    sm->v[slot] += 1 + stat_get(&r.total.icnt, "rep_delivered") - stat_get(sm, "mem_replies");
    CHECK_EQ(sim_ledger_check(&c.v, &r, why, sizeof why), -1);
    CHECK_HAS(why, "the total: sm.mem_replies <= icnt.rep_delivered does not hold");

    /* drained: a request's way holds as equalities, so one more request counted by the SMs
     * than the interconnect took is reported, though the inequality holds */
    sm->v[slot] = stat_get(&r.total.icnt, "rep_delivered");
    CHECK_EQ(r.drained, 1);
    int rq = sm->set->slot[stat_find(sm->set, "mem_requests")];
    sm->v[rq]++;
    CHECK_EQ(sim_ledger_check(&c.v, &r, why, sizeof why), -1);
    CHECK_HAS(why, "the total: icnt.req_packets <= sm.mem_requests does not hold as an equality");
    r.drained = 0;
    CHECK_EQ(sim_ledger_check(&c.v, &r, why, sizeof why), 29);
    sm->v[rq]--;

    /* a count credited to the wrong unit: the totals balance, the two SMs do not */
    stat_block *l1 = &r.per_sm_l1d[0], *l1b = &r.per_sm_l1d[1];
    int miss = l1->set->slot[stat_find(l1->set, "misses")];
    CHECK(l1->v[miss] > 0);
    l1->v[miss]--;
    l1b->v[miss]++;
    CHECK_EQ(sim_ledger_check(&c.v, &r, why, sizeof why), -1);
    CHECK_HAS(why, "SM 0: l1d.accesses = l1d.hits + l1d.hit_reserved + l1d.misses does not hold");
    l1->v[miss]++;
    l1b->v[miss]--;
    stat_block *ch = &r.per_chan_dram[3];
    ch->v[ch->set->slot[stat_find(ch->set, "reads")]]++;
    CHECK_EQ(sim_ledger_check(&c.v, &r, why, sizeof why), -1);
    CHECK_HAS(why, "DRAM channel 3: dram.accesses = dram.reads + dram.writes does not hold");
    ch->v[ch->set->slot[stat_find(ch->set, "reads")]]--;
    CHECK_EQ(sim_ledger_check(&c.v, &r, why, sizeof why), 29);
    /* 46 SMs x 7 (sm 2, l1d 5), 32 L2 slices x 5, 16 DRAM channels x 1 */
    CHECK_EQ(r.ledger_units, 46 * 7 + 32 * 5 + 16);

    /* a scaled term: the issue slots are schedulers x active cycles */
    c.v.schedulers_per_sm++;
    CHECK_EQ(sim_ledger_check(&c.v, &r, why, sizeof why), -1);
    CHECK_HAS(why, "sm.issue = sched*sm.active_cycles does not hold");
    sim_result_free(&r);
    knob_free(&c);
}

/* `lockstep run` says so in its text and JSON outputs. */
TEST(ledger_in_the_run_outputs)
{
    char json[600];
    snprintf(json, sizeof json, "%s/ledger.json", test_tmpdir());
    test_proc p = test_lockstep("run samples/synth/vectoradd --stats-json=%s", json);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "\n# ledger: 29 identities between the units' statistics hold");
    CHECK_HAS(p.out, "and 498 on single SMs, L2 slices and DRAM channels");
    char *j = test_read_file(json, NULL);
    CHECK_HAS(j, "\"ledger\": {");
    CHECK_HAS(j, "\"holds\": true,");
    CHECK_HAS(j, "\"identities\": 29");
    CHECK_HAS(j, "\"unit_checks\": 498");
    free(j);
}
