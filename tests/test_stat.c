/* Statistics core: layout, ordered reduction, ratios, text and JSON writers. */
#include "test.h"

#include "stat/stat.h"

#include <math.h>
#include <stdlib.h>

static const char *const BINS[] = {"alu", "mem", "ctrl"};
#define DEMO_STATS(X_C, X_D, X_R)                                      \
    X_C(insts, "warp instructions")                                    \
    X_D(mix, BINS, 3, "instruction mix")                               \
    X_C(cycles, "core cycles")                                         \
    X_R(ipc, insts, cycles, "instructions per cycle")
static const stat_desc DEMO[] = {DEMO_STATS(STAT_DESC_COUNTER, STAT_DESC_DIST, STAT_DESC_RATIO)};

static char *capture(void (*fn)(FILE *, const stat_block *), const stat_block *b)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    fn(f, b);
    fclose(f);
    return buf;
}

static void text_all(FILE *f, const stat_block *b) { stat_write_text(f, b, "sm0", 1); }
static void text_some(FILE *f, const stat_block *b) { stat_write_text(f, b, "", 0); }
static void json(FILE *f, const stat_block *b)
{
    base_json j;
    base_json_init(&j, f);
    base_json_obj_begin(&j);
    stat_write_json(&j, b);
    base_json_obj_end(&j);
}

TEST(stat_layout_reduce_and_write)
{
    stat_set s = {"demo", DEMO, 4, NULL, NULL, NULL, 0};
    stat_set_init(&s);
    CHECK_EQ(s.nslots, 5); /* 1 + 3 bins + 1, the ratio stores nothing */
    stat_block units[3], total;
    for (int i = 0; i < 3; i++) {
        stat_block_init(&units[i], &s);
        stat_inc(&units[i], s.slot[0], 10 * (uint64_t)(i + 1));        /* insts */
        stat_inc(&units[i], s.slot[1] + 1, (uint64_t)i);               /* mix[mem] */
        stat_inc(&units[i], s.slot[2], 20);                            /* cycles */
    }
    stat_block_init(&total, &s);
    stat_inc(&total, s.slot[0], 999); /* stale contents are replaced, not added to */
    stat_reduce(&total, units, 3);
    CHECK_EQ(stat_get(&total, "insts"), 60);
    CHECK_EQ(stat_get(&total, "mix"), 3);
    CHECK_EQ(stat_get(&total, "mix[mem]"), 3); /* one bin by name */
    CHECK_EQ(stat_get(&total, "mix[alu]"), 0);
    CHECK_EQ(stat_bin_slot(&s, "mix[ctrl]"), s.slot[1] + 2);
    CHECK_EQ(stat_bin_slot(&s, "mix[fp]"), -1);
    CHECK_EQ(stat_bin_slot(&s, "insts[alu]"), -1); /* a counter has no bins */
    CHECK_EQ(stat_bin_slot(&s, "mix[mem"), -1);
    CHECK_EQ(stat_get(&total, "cycles"), 60);
    CHECK(fabs(stat_ratio(&total, 3) - 1.0) < 1e-12);

    char *t = capture(text_all, &total);
    CHECK_STR(t, "sm0.insts = 60\nsm0.mix[alu] = 0\nsm0.mix[mem] = 3\nsm0.mix[ctrl] = 0\n"
                 "sm0.cycles = 60\nsm0.ipc = 1.0000\n");
    free(t);
    t = capture(text_some, &units[0]); /* zero bins skipped; undefined ratio is nan */
    CHECK_STR(t, "insts = 10\ncycles = 20\nipc = 0.5000\n");
    free(t);
    stat_block_zero(&units[0]);
    t = capture(text_some, &units[0]);
    CHECK_HAS(t, "ipc = nan");
    free(t);
    t = capture(json, &total);
    CHECK_HAS(t, "\"insts\": 60");
    CHECK_HAS(t, "\"mix\": {");
    CHECK_HAS(t, "\"mem\": 3");
    CHECK_HAS(t, "\"ipc\": 1");
    free(t);
    t = capture(json, &units[0]);
    CHECK_HAS(t, "\"ipc\": null"); /* JSON has no NaN */
    free(t);
    for (int i = 0; i < 3; i++)
        stat_block_free(&units[i]);
    stat_block_free(&total);
    stat_set_free(&s);
}
