/* The lockstep binary: exit codes, option syntax, knob precedence and errors. */
#include "test.h"

#include "base/base.h"

#include <stdlib.h>

TEST(cli_help_and_usage_exit_codes)
{
    test_proc p = test_lockstep("--help");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "occupancy");
    p = test_lockstep("%s", "");
    CHECK_EQ(p.status, 2);
    p = test_lockstep("frobnicate");
    CHECK_EQ(p.status, 2);
    CHECK_HAS(p.err, "unknown command");
    static const char *cmds[] = {"run", "occupancy", "trace", "config"};
    for (int i = 0; i < 4; i++) {
        p = test_lockstep("%s --help", cmds[i]);
        CHECK_EQ(p.status, 0);
        CHECK_HAS(p.out, "usage: lockstep");
    }
    p = test_lockstep("occupancy --help");
    CHECK_HAS(p.out, "--warp_scheduler=lrr|gto|two_level"); /* policy knobs list choices */
}

TEST(cli_occupancy_worked_example)
{
    /* OCCUPANCY.md example through the command line, both option spellings */
    test_proc p = test_lockstep(
        "occupancy --max_threads_per_sm=2048 --smem_per_sm 49152 --smem_per_cta=49152 "
        "--max_ctas_per_sm=8 --threads=128 --regs 32 --smem=12288");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "occupancy: 4 CTAs per SM");
    CHECK_HAS(p.out, "limited by shared memory");
    p = test_lockstep("occupancy --max_threads_per_sm=2048 --smem_per_sm=49152 "
                      "--smem_per_cta=49152 --max_ctas_per_sm=8 --threads=128 --regs=32 "
                      "--smem=12288 --json");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "\"ctas_per_sm\": 4");
}

/* A knob value accepted but run as something else (a BookSim network as the crossbar, the
 * random partition indexing as a fixed hash) is said in one warning line by `run`, never
 * silently, and only there: occupancy runs neither. */
TEST(cli_approximated_knob_values_are_said_in_a_warning)
{
    test_proc p = test_lockstep("run --threads=1 --icnt_model=booksim samples/vecadd_sm80");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.err, "warning: icnt_model = booksim");
    CHECK_HAS(p.err, "modelled by the built-in crossbar");
    p = test_lockstep("run --threads=1 samples/vecadd_sm80");
    CHECK(!strstr(p.err, "warning"));
    p = test_lockstep("run --threads=1 --partition_indexing=random samples/vecadd_sm80");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.err, "warning: partition_indexing = random");
    CHECK(!strstr(p.err, "booksim"));
    p = test_lockstep("occupancy --threads=128 --icnt_model=booksim");
    CHECK_EQ(p.status, 0);
    CHECK(!strstr(p.err, "warning"));
}

TEST(cli_unknown_knob_and_bad_values)
{
    test_proc p = test_lockstep("occupancy --threads=128 --n_clusterz=4");
    CHECK_EQ(p.status, 2);
    CHECK_HAS(p.err, "n_clusterz");
    CHECK_HAS(p.err, "n_clusters");
    p = test_lockstep("occupancy --threads=128 --n_clusters=0");
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "--n_clusters");
    CHECK_HAS(p.err, "out of range");
    p = test_lockstep("occupancy --threads=128 --warp_scheduler=fifo");
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "lrr|gto|two_level");
    p = test_lockstep("occupancy --threads=abc");
    CHECK_EQ(p.status, 2);
    p = test_lockstep("occupancy --threads=128 --preset=nosuchgpu");
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "unknown preset");
    p = test_lockstep("occupancy --threads=128 --config=/nonexistent/x.cfg");
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "/nonexistent/x.cfg");
}

TEST(cli_params_file_errors_name_file_and_line)
{
    const char *cfg = test_write_text("typo.cfg", "# a params file\nn_clusters = 8\n"
                                                  "l2_asoc = 4\n");
    test_proc p = test_lockstep("config show --config=%s", cfg);
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "typo.cfg:3");
    CHECK_HAS(p.err, "l2_asoc");
    CHECK_HAS(p.err, "l2_assoc");
}

TEST(cli_knob_precedence_and_echo)
{
    const char *a = test_write_text("a.cfg", "n_clusters = 10\nn_mem = 4\n");
    char pa[512];
    snprintf(pa, sizeof pa, "%s", a);
    const char *b = test_write_text("b.cfg", "n_clusters = 20\n");
    /* later file wins over earlier; --knob wins over every file wherever it stands */
    test_proc p = test_lockstep("config show --n_clusters=30 --config %s --config=%s", pa, b);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "n_clusters = 30   # --n_clusters");
    CHECK_HAS(p.out, "n_mem = 4   # ");
    CHECK_HAS(p.out, "a.cfg:2");
    p = test_lockstep("config show --config %s --config=%s", pa, b);
    CHECK_HAS(p.out, "n_clusters = 20   # ");
    CHECK_HAS(p.out, "b.cfg:1");
    p = test_lockstep("config show --json");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "\"n_clusters\": 46");
}

/* Every statistics line of a run's output (the knob echo's source comments cut: a rerun
 * names other sources; the lines under '#' are host notes and the command). */
static void stats_of(const char *out, base_buf *b)
{
    for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        size_t n = strcspn(l, "\n");
        if (*l == '#')
            continue;
        const char *c = strstr(l, "   # ");
        if (strncmp(l, "knob ", 5) == 0 && c && (size_t)(c - l) < n)
            n = (size_t)(c - l);
        base_buf_printf(b, "%.*s\n", (int)n, l);
    }
}

/* "A run is reproducible from its output alone": the output given back as --config, with
 * only the trace, runs with every knob the first run used (its echo is read, the rest of
 * the output skipped), also when stderr's warnings were captured ahead of it; so does its
 * --stats-json file. A string value the params syntax would cut (a '#', outer blanks) is
 * echoed in quotes. Running another trace than the one the output names is said. */
TEST(cli_a_run_output_is_a_config_for_running_it_again)
{
    test_proc p = test_lockstep("run --threads=1 --preset=gtx480 --l2_repl=fifo --n_mem=3 "
                                "--icnt_model=booksim \"--gpu_name= odd # name\" "
                                "samples/vecadd_sm80");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "knob gpu_name = \" odd # name\"   # --gpu_name");
    base_buf first = {0}, again = {0};
    stats_of(p.out, &first);
    base_buf both = {0};
    base_buf_printf(&both, "%s%s", p.err, p.out); /* 2>&1: the warning first */
    char path[512];
    snprintf(path, sizeof path, "%s", test_write_text("run1.out", both.s));
    test_proc q = test_lockstep("run --config=%s samples/vecadd_sm80", path);
    CHECK_EQ(q.status, 0);
    stats_of(q.out, &again);
    CHECK_STR(again.s, first.s);
    CHECK_HAS(q.out, "knob n_mem = 3   # ");
    CHECK_HAS(q.out, "run1.out:");
    /* and so is its --stats-json file (the host knobs, which change no statistic, are not
     * in it) */
    char json[512];
    snprintf(json, sizeof json, "%s", test_write_text("run1.json", ""));
    q = test_lockstep("run --threads=1 --preset=gtx480 --l2_repl=fifo --n_mem=3 "
                      "\"--gpu_name= odd # name\" --stats-json=%s samples/vecadd_sm80", json);
    CHECK_EQ(q.status, 0);
    q = test_lockstep("run --config=%s samples/vecadd_sm80", json);
    CHECK_EQ(q.status, 0);
    base_buf_free(&again);
    stats_of(q.out, &again);
    CHECK_STR(again.s, first.s);
    CHECK_HAS(q.out, "knob n_mem = 3   # ");
    CHECK_HAS(q.out, "run1.json (knobs.n_mem)");
    /* the same trace however named: no word; another one (the default sample here) is said */
    CHECK(!strstr(q.err, "is from a run of"));
    q = test_lockstep("run --config=%s ./samples/vecadd_sm80", path);
    CHECK(!strstr(q.err, "is from a run of"));
    q = test_lockstep("run --config=%s --max_cycles=10 samples/synth/reduce", json);
    CHECK_EQ(q.status, 0);
    CHECK_HAS(q.err, "run1.json is from a run of samples/vecadd_sm80; this run is of "
                     "samples/synth/reduce");
    q = test_lockstep("run --config=%s --max_cycles=10", path);
    CHECK_HAS(q.err, "run1.out is from a run of samples/vecadd_sm80; this run is of ");
    /* a params file that only mentions lockstep in a comment is read line by line */
    const char *cfg = test_write_text("note.cfg", "# lockstep params for a small GPU\n"
                                                  "n_mem = 2\nknob n_clusters = 4\nl2_asoc = 4\n");
    q = test_lockstep("config show --config=%s", cfg);
    CHECK_EQ(q.status, 3);
    CHECK_HAS(q.err, "note.cfg:4");
    base_buf_free(&first);
    base_buf_free(&again);
    base_buf_free(&both);
}

/* b without its line that starts with `head` (one). */
static void drop_line(base_buf *b, const char *head)
{
    char *l = strstr(b->s, head);
    if (!l || (l != b->s && l[-1] != '\n'))
        return;
    char *end = strchr(l, '\n');
    end = end ? end + 1 : l + strlen(l);
    b->len -= (size_t)(end - l);
    memmove(l, end, strlen(end) + 1);
}

/* --threads=0 is one thread per core this process may run on: the echo names the count (so
 * the output, given back, runs as many) and where the 0 came from; the statistics are those
 * of one thread. */
TEST(cli_threads_zero_is_one_per_core)
{
    test_proc p = test_lockstep("run --threads=1 samples/vecadd_sm80");
    CHECK_EQ(p.status, 0);
    base_buf one = {0}, all = {0};
    stats_of(p.out, &one);
    p = test_lockstep("run --threads=0 samples/vecadd_sm80");
    CHECK_EQ(p.status, 0);
    const char *k = strstr(p.out, "knob threads = ");
    CHECK(k != NULL);
    if (k) {
        long n = strtol(k + strlen("knob threads = "), NULL, 10);
        char want[96];
        snprintf(want, sizeof want, "knob threads = %ld   # --threads: 0, the %ld core", n, n);
        CHECK(n >= 1);
        CHECK_HAS(p.out, want);
    }
    stats_of(p.out, &all);
    drop_line(&one, "knob threads = ");
    drop_line(&all, "knob threads = ");
    CHECK_STR(all.s, one.s);
    base_buf_free(&one);
    base_buf_free(&all);
    p = test_lockstep("run --threads=-1 samples/vecadd_sm80");
    CHECK_EQ(p.status, 3);
}

TEST(cli_config_docs_are_current)
{
    test_proc p = test_lockstep("config docs");
    CHECK_EQ(p.status, 0);
    FILE *f = fopen("docs/KNOBS.md", "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    if (strcmp(buf, p.out) != 0)
        test_fail_at(__FILE__, __LINE__, "docs/KNOBS.md is stale: run 'make docs'");
}

TEST(cli_presets_list_and_load)
{
    test_proc p = test_lockstep("config presets");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "rtx3070");
    CHECK_HAS(p.out, "[default]");
}
