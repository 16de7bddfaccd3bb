/* knob core: defaults, set/range/enum errors, params syntax, presets, cross-knob rules. */
#include "test.h"

#include "knob/knob.h"
#include "knob/preset.h"

TEST(knob_defaults_validate)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_validate(&c, &e), 0);
    if (e.code)
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
    CHECK_STR(c.origin[KNOB_ID_n_clusters], "default");
    knob_free(&c);
}

TEST(knob_name_index_finds_every_knob)
{
    knob_cfg c;
    knob_init(&c);
    for (int i = 0; i < KNOB_COUNT; i++)
        CHECK_EQ(knob_cfg_find(&c, knob_defs[i].name), i);
    CHECK_EQ(knob_cfg_find(&c, "no_such_knob"), -1);
    CHECK_EQ(knob_cfg_find(&c, ""), -1);
    knob_free(&c);
}

TEST(knob_set_errors_name_knob_place_and_range)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_set(&c, "n_clusters", "0", "my.cfg:7", &e), -1);
    CHECK_HAS(e.msg, "my.cfg:7");
    CHECK_HAS(e.msg, "n_clusters");
    CHECK_HAS(e.msg, "[1, 4096]");
    CHECK_EQ(c.v.n_clusters, 46); /* a rejected value leaves the old one */
    base_err_clear(&e);
    CHECK_EQ(knob_set(&c, "warp_scheduler", "fifo", "my.cfg:8", &e), -1);
    CHECK_HAS(e.msg, "my.cfg:8");
    CHECK_HAS(e.msg, "lrr|gto|two_level");
    base_err_clear(&e);
    CHECK_EQ(knob_set(&c, "clock_core_mhz", "abc", "--clock_core_mhz", &e), -1);
    CHECK_HAS(e.msg, "a number in");
    base_err_clear(&e);
    CHECK_EQ(knob_set(&c, "n_cluster", "4", "x.cfg:1", &e), -1);
    CHECK_HAS(e.msg, "unknown knob 'n_cluster'");
    CHECK_HAS(e.msg, "n_clusters");
    base_err_clear(&e);
    CHECK_EQ(knob_set(&c, "smem_carveouts_kb", "0,8,", "x.cfg:2", &e), -1);
    CHECK_HAS(e.msg, "smem_carveouts_kb");
    base_err_clear(&e);
    CHECK_EQ(knob_set(&c, "gmem_skip_l1d", "2", "x.cfg:3", &e), -1);
    CHECK_HAS(e.msg, "0 or 1");
    knob_free(&c);
}

TEST(knob_params_syntax)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    const char *text = "# comment\n"
                       "  n_clusters = 12   # trailing comment\n"
                       "gpu_name = \"My # GPU\"\n"
                       "\n"
                       "smem_carveouts_kb = 0, 16 ,32\n"
                       "clock_core_mhz=1500.5\n";
    CHECK_EQ(knob_load_params_text(&c, "p.cfg", text, &e), 0);
    CHECK_EQ(c.v.n_clusters, 12);
    CHECK_STR(c.v.gpu_name, "My # GPU");
    CHECK_EQ(c.v.smem_carveouts_kb.n, 3);
    CHECK_EQ(c.v.smem_carveouts_kb.v[2], 32);
    CHECK(c.v.clock_core_mhz == 1500.5);
    CHECK_STR(c.origin[KNOB_ID_n_clusters], "p.cfg:2");
    base_err_clear(&e);
    CHECK_EQ(knob_load_params_text(&c, "q.cfg", "n_clusters 12\n", &e), -1);
    CHECK_HAS(e.msg, "q.cfg:1");
    CHECK_HAS(e.msg, "expected 'name = value'");
    base_err_clear(&e);
    CHECK_EQ(knob_load_params_text(&c, "q.cfg", "\ngpu_name = \"abc\n", &e), -1);
    CHECK_HAS(e.msg, "q.cfg:2");
    CHECK_HAS(e.msg, "unterminated quote");
    base_err_clear(&e);
    CHECK_EQ(knob_load_params_text(&c, "q.cfg", "preset = nosuch\n", &e), -1);
    CHECK_HAS(e.msg, "unknown preset 'nosuch'");
    CHECK_HAS(e.msg, "rtx3070");
    knob_free(&c);
}

TEST(knob_later_source_wins)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    /* a preset include first, then a line that overrides it */
    CHECK_EQ(knob_load_params_text(&c, "a.cfg", "preset = qv100\nn_clusters = 7\n", &e), 0);
    CHECK_EQ(c.v.n_clusters, 7);
    CHECK_EQ(c.v.n_mem, 32); /* from the preset */
    CHECK_HAS(c.origin[KNOB_ID_n_mem], "configs/qv100.cfg:");
    CHECK_EQ(knob_load_params_text(&c, "b.cfg", "n_mem = 12\n", &e), 0);
    CHECK_EQ(c.v.n_mem, 12);
    CHECK_STR(c.origin[KNOB_ID_n_mem], "b.cfg:1");
    CHECK_EQ(knob_set(&c, "n_mem", "16", "--n_mem", &e), 0);
    CHECK_STR(c.origin[KNOB_ID_n_mem], "--n_mem");
    knob_free(&c);
}

TEST(knob_every_preset_loads_and_validates)
{
    CHECK(knob_npresets >= 8);
    for (int i = 0; i < knob_npresets; i++) {
        knob_cfg c;
        knob_init(&c);
        base_err e = {0};
        if (knob_load_preset(&c, knob_presets[i].name, &e))
            test_fail_at(__FILE__, __LINE__, "preset %s: %s", knob_presets[i].name, e.msg);
        else if (knob_validate(&c, &e))
            test_fail_at(__FILE__, __LINE__, "preset %s: %s", knob_presets[i].name, e.msg);
        /* cuda occupancy data: sm_80+ reserve 1 KB per CTA, older GPUs nothing */
        if (c.v.compute_capability >= 80)
            CHECK_EQ(c.v.occ_smem_reserved_per_cta, 1024);
        else
            CHECK_EQ(c.v.occ_smem_reserved_per_cta, 0);
        knob_free(&c);
    }
}

TEST(knob_preset_spot_values)
{
    static const struct {
        const char *preset, *knob, *value;
    } v[] = {
        {"qv100", "n_clusters", "80"},      {"qv100", "compute_capability", "70"},
        {"titanx", "n_clusters", "28"},     {"titanx", "partition_indexing", "random"},
        {"titanx", "compute_capability", "61"}, {"gtx480", "n_clusters", "15"},
        {"gtx480", "compute_capability", "20"}, {"a100", "n_clusters", "108"},
        {"a100", "compute_capability", "80"},   {"h100", "n_clusters", "132"},
        {"h100", "compute_capability", "90"},   {"p100", "n_clusters", "56"},
        {"p100", "compute_capability", "60"},   {"rtx3080ti", "n_clusters", "80"},
        {"rtx3080ti", "compute_capability", "86"}, {"rtx3070", "n_clusters", "46"},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        knob_cfg c;
        knob_init(&c);
        base_err e = {0};
        CHECK_EQ(knob_load_preset(&c, v[i].preset, &e), 0);
        char buf[256];
        knob_format(&c, knob_find(v[i].knob), buf, sizeof buf);
        if (strcmp(buf, v[i].value) != 0)
            test_fail_at(__FILE__, __LINE__, "preset %s: %s = %s, expected %s", v[i].preset,
                         v[i].knob, buf, v[i].value);
        knob_free(&c);
    }
}

TEST(knob_validate_rules)
{
    static const struct {
        const char *knob, *value, *want;
    } cases[] = {
        {"l1d_line", "64", "sectored cache needs 128-byte lines"},
        {"l2_sets", "128", "ipoly set index needs 16, 32 or 64 sets"},
        {"dram_banks", "15", "multiple of n_sub_partitions"},
        {"max_threads_per_sm", "1000", "multiple of warp_size"},
        {"warp_size", "64", "the model runs 32-thread warps"},
        {"smem_per_cta", "200000", "exceeds smem_per_sm"},
        {"partition_indexing", "pae", "pae hashing is not supported"},
        {"oc_units", "0", "generic operand collectors"},
        {"l2_miss_queue", "1", "a read miss keeps room for its fetch and a writeback"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        knob_cfg c;
        knob_init(&c);
        base_err e = {0};
        CHECK_EQ(knob_set(&c, cases[i].knob, cases[i].value, "r.cfg:3", &e), 0);
        CHECK_EQ(knob_validate(&c, &e), -1);
        CHECK_HAS(e.msg, cases[i].want);
        CHECK_HAS(e.msg, "r.cfg:3");
        knob_free(&c);
    }
    /* the data caches' lines are 128 bytes, line-granular or sectored (randsweep: any other
     * size ran to the watchdog); the instruction cache takes any power of two */
    static const char *const line_rules[][3] = {
        {"l1d_type", "l1d_line", "64"},
        {"l2_type", "l2_line", "256"},
        {"l1i_type", "l1i_line", "64"},
    };
    for (int i = 0; i < 3; i++) {
        knob_cfg c;
        knob_init(&c);
        base_err e = {0};
        CHECK_EQ(knob_set(&c, line_rules[i][0], "normal", "r.cfg:1", &e), 0);
        CHECK_EQ(knob_validate(&c, &e), 0);
        CHECK_EQ(knob_set(&c, line_rules[i][1], line_rules[i][2], "r.cfg:2", &e), 0);
        CHECK_EQ(knob_validate(&c, &e), i < 2 ? -1 : 0);
        if (i < 2) {
            CHECK_HAS(e.msg, "r.cfg:2");
            CHECK_HAS(e.msg, "128-byte lines of four 32-byte sectors");
        }
        knob_free(&c);
    }
    /* lazy fetch-on-read with a streaming L1 is rejected like GPGPU-Sim does */
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_set(&c, "l1d_alloc", "streaming", "s.cfg:1", &e), 0);
    CHECK_EQ(knob_validate(&c, &e), -1);
    CHECK_HAS(e.msg, "need allocate-on-miss");
    CHECK_HAS(e.msg, "(with l1d_write_alloc = lazy_fetch, the default)");
    knob_free(&c);
    /* a rule between two knobs names both and where each was set: a preset's line alone
     * does not say that the --knob given on the command line is what conflicts with it */
    static const struct {
        const char *set[2][3], *want; /* knob, value, origin; twice */
    } pairs[] = {
        {{{"l1d_alloc", "streaming", "configs/x.cfg:53"},
          {"l1d_write_alloc", "fetch", "--l1d_write_alloc"}},
         "configs/x.cfg:53: knob l1d_alloc = streaming: fetch-on-write and lazy fetch-on-read "
         "need allocate-on-miss (with l1d_write_alloc = fetch, from --l1d_write_alloc)"},
        {{{"smem_per_sm", "16384", "p.cfg:7"}, {"smem_per_cta", "49152", "--smem_per_cta"}},
         "--smem_per_cta: knob smem_per_cta = 49152: exceeds smem_per_sm (with smem_per_sm = "
         "16384, from p.cfg:7)"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        knob_init(&c);
        e = (base_err){0};
        for (int j = 0; j < 2; j++)
            CHECK_EQ(knob_set(&c, pairs[i].set[j][0], pairs[i].set[j][1], pairs[i].set[j][2], &e),
                     0);
        CHECK_EQ(knob_validate(&c, &e), -1);
        CHECK_HAS(e.msg, pairs[i].want);
        knob_free(&c);
    }
    /* an L2 that allocates on write misses keeps room for three (the write, its fetch and a
     * writeback): a miss queue of 2 never takes one, of 3 does; a read-only L2 needs 1 */
    static const struct {
        const char *wa, *wp, *mq;
        int ok;
    } l2[] = {{"write", "wb", "2", 0}, {"write", "wb", "3", 1}, {"none", "ro", "1", 1}};
    for (size_t i = 0; i < sizeof l2 / sizeof *l2; i++) {
        knob_init(&c);
        e = (base_err){0};
        CHECK_EQ(knob_set(&c, "l2_write_alloc", l2[i].wa, "w.cfg:1", &e), 0);
        CHECK_EQ(knob_set(&c, "l2_write", l2[i].wp, "w.cfg:2", &e), 0);
        CHECK_EQ(knob_set(&c, "l2_miss_queue", l2[i].mq, "w.cfg:3", &e), 0);
        CHECK_EQ(knob_validate(&c, &e), l2[i].ok ? 0 : -1);
        if (!l2[i].ok)
            CHECK_HAS(e.msg, "the write, its fetch and a writeback (3 entries)");
        knob_free(&c);
    }
}

/* A run's knob echo, under its header and among other lines, reads back as every value. */
TEST(knob_echo_reads_back_as_params)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_load_preset(&c, "qv100", &e), 0);
    CHECK_EQ(knob_set(&c, "gpu_name", " A # \"B\"", "x", &e), 0);
    CHECK_EQ(knob_set(&c, "clock_dram_mhz", "3500.1234567890123", "x", &e), 0);
    CHECK_EQ(knob_set(&c, "smem_carveouts_kb", "0,16,48", "x", &e), 0);
    CHECK_EQ(knob_set(&c, "icnt_config_file", "", "x", &e), 0);
    char path[512];
    snprintf(path, sizeof path, "%s", test_write_file("echo.out", "", 0));
    FILE *f = fopen(path, "w");
    fprintf(f, "lockstep: warning: one\n# lockstep 0\n%s\n", KNOB_ECHO_HEADER);
    knob_echo_text(f, &c, KNOB_ECHO_PREFIX);
    fprintf(f, "\n# trace odd: dir: 1 kernels, 2 memcpys (2000 bytes), 0 other commands\n"
               "gpu_sim_cycle = 12\n# kernel 1/1: k\nnot a params line\n"
               "# trace second: 1 kernels, 0 memcpys (0 bytes), 0 other commands\n");
    fclose(f);
    knob_cfg d;
    knob_init(&d);
    CHECK_EQ(knob_load_file(&d, path, &e), 0);
    CHECK_STR(d.run_trace.s, "odd: dir"); /* the first trace line, up to its counts */
    CHECK_STR(d.run_file.s, path);
    char a[512], b[512];
    for (int i = 0; i < KNOB_COUNT; i++) {
        knob_format(&c, i, a, sizeof a);
        knob_format(&d, i, b, sizeof b);
        CHECK_STR(b, a);
    }
    knob_free(&d);
    knob_free(&c);
}

/* A --stats-json file as a params file: its "knobs" object, each member set (strings with
 * escapes, numbers as written, booleans, lists), every other member skipped; bad JSON is an
 * error naming the byte. */
TEST(knob_json_knobs_object_reads_as_params)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    const char *ok =
        " {\"lockstep_version\": \"0\", \"per_sm\": [{\"a\": [1, 2.5e3, {}]}, null],\n"
        "  \"trace\": \"t/\\u00e9\",\n"
        "  \"knobs\": {\"gpu_name\": \"A \\\"q\\\" \\u00e9 \\ud83d\\ude00 # \\/\\t\",\n"
        "   \"n_mem\": 3, \"clock_dram_mhz\": 3500.25, \"perfect_icache\": true,\n"
        "   \"smem_carveouts_kb\": [0, 16, 48], \"warp_scheduler\": \"gto\",\n"
        "   \"icnt_model\": \"xbar\", \"icnt_config_file\": \"\"},\n"
        "  \"total\": {\"x\": -0.5E-2}} \n";
    CHECK_EQ(knob_load_json_text(&c, "s.json", ok, &e), 0);
    CHECK_STR(c.v.gpu_name, "A \"q\" \xc3\xa9 \xf0\x9f\x98\x80 # /\t");
    CHECK_EQ(c.v.n_mem, 3);
    CHECK(c.v.clock_dram_mhz == 3500.25);
    CHECK_EQ(c.v.perfect_icache, 1);
    CHECK_EQ(c.v.smem_carveouts_kb.n, 3);
    CHECK_EQ(c.v.smem_carveouts_kb.v[2], 48);
    CHECK_STR(c.v.icnt_config_file, ""); /* empty after a longer value */
    CHECK_STR(c.origin[KNOB_ID_n_mem], "s.json (knobs.n_mem)");
    CHECK_STR(c.run_trace.s, "t/\xc3\xa9");
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"", "byte 0: expected '{'"},
        {"{\"knobs\": {\"n_mem\": 3}", "byte 22: expected ',' or '}'"},
        {"{\"knobs\": {\"n_mem\": 13x}}", "byte 22: expected ',' or '}'"},
        {"{\"knobs\": {\"gpu_name\": 03}}", "byte 24: expected ',' or '}'"},
        {"{\"knobs\": {\"n_mem\": null}}", "not null"},
        {"{\"knobs\": {\"n_mem\": {}}}", "not an object"},
        {"{\"knobs\": {\"n_mem\": [1, \"a\"]}}", "a number in a knob's list"},
        {"{\"knobs\": {\"gpu_name\": \"a\\u0000\"}}", "no \\u0000"},
        {"{\"knobs\": {\"gpu_name\": \"\\ud800x\"}}", "a low surrogate"},
        {"{\"knobs\": {\"gpu_name\": \"a\\q\"}}", "an escape"},
        {"{\"knobs\": {\"gpu_name\": \"a\nb\"}}", "no control character"},
        {"{\"knobs\": {\"n_mem\": 1.}}", "a digit after '.'"},
        {"{\"knobs\": {\"n_mem\": 1}} x", "the end of the file"},
        {"{\"knobs\": {\"n_mam\": 1}}", "unknown knob 'n_mam'"},
        {"{\"knobs\": {\"n_mem\": 0}}", "out of range"},
        {"{\"total\": {}}", "no \"knobs\" object"},
        {"{\"a\": tru}", "expected a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        base_err_clear(&e);
        CHECK_EQ(knob_load_json_text(&c, "b.json", bad[i].text, &e), -1);
        CHECK_HAS(e.msg, "b.json");
        CHECK_HAS(e.msg, bad[i].msg);
    }
    /* nesting past the bound is an error, not a deep recursion */
    base_buf deep = {0};
    base_buf_puts(&deep, "{\"x\": ");
    for (int i = 0; i < 100000; i++)
        base_buf_putc(&deep, '[');
    base_err_clear(&e);
    CHECK_EQ(knob_load_json_text(&c, "d.json", deep.s, &e), -1);
    CHECK_HAS(e.msg, "nested at most 64 deep");
    base_buf_free(&deep);
    knob_free(&c);
}

TEST(knob_echo_and_write_params)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_set(&c, "gpu_name", "A # B", "x.cfg:1", &e), 0);
    CHECK_EQ(knob_set(&c, "icnt_config_file", "\"q\"", "x.cfg:2", &e), 0); /* outer quotes */
    const char *p = test_write_file("echo.cfg", "", 0);
    char path[512];
    snprintf(path, sizeof path, "%s", p);
    FILE *f = fopen(path, "w");
    knob_write_params(f, &c, 1);
    fclose(f);
    knob_cfg d;
    knob_init(&d);
    CHECK_EQ(knob_load_file(&d, path, &e), 0);
    CHECK_STR(d.v.gpu_name, "A # B");
    CHECK_STR(d.v.icnt_config_file, "\"q\"");
    knob_free(&d);
    knob_free(&c);
}
