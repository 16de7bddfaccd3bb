/* lockstep run: simulate a trace on the configured GPU, cycle by cycle.
 *
 * Output: the knob echo, then per kernel and in total the Accel-Sim-named statistics
 * (gpu_sim_cycle, gpu_sim_insn, gpu_ipc, L1D/L2 accesses and misses, DRAM reads and writes,
 * ...) followed by lockstep's detailed sets; --stats-json writes all of it (plus per-SM and
 * per-partition blocks) atomically. The JSON holds nothing that depends on the host or the
 * thread count, so it is byte-identical for every --threads value. */
#include "base/heap.h"
#include "cli.h"
#include "isa/isa.h"
#include "macsim/macsim.h"
#include "sim/sim.h"
#include "trace/trace.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const cli_opt OPTS[] = {
    {"stats-json", 1, "FILE", "write every statistic and the knob table as JSON (atomically)"},
    {NULL, 0, NULL, NULL},
};

/* The bundled sample: in the working directory (a checkout), else beside the binary. */
static const char *default_trace(char *buf, size_t n)
{
    snprintf(buf, n, "samples/synth/sgemm-tiled");
    if (access(buf, R_OK) == 0)
        return buf;
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(buf, n, "%s/../samples/synth/sgemm-tiled", exe);
        }
    }
    return buf;
}

static void write_json(FILE *f, const cli_args *a, const char *path, const sim_result *r)
{
    base_json j;
    base_json_init(&j, f);
    base_json_obj_begin(&j);
    base_json_kv_str(&j, "lockstep_version", LOCKSTEP_VERSION);
    base_json_kv_str(&j, "trace", path);
    base_json_key(&j, "knobs");
    knob_echo_json(&j, &a->knobs);
    sim_json_result(&j, r);
    base_json_obj_end(&j);
    fputc('\n', f);
}

/* team_profile: the main thread's loop split into team edges (publishing, its own and stolen
 * tasks, waiting for helpers) and the rest (serial phases and edges run alone); then every
 * thread's time in tasks. */
static void print_profile(FILE *f, const sim_team_profile *p)
{
    fprintf(f, "# team profile: loop %.3f s; %llu edges with the team (%llu memory-only) took "
               "%.3f s: publishing %.3f, waiting for helpers %.3f; %llu edges alone; the rest "
               "(serial phases, edges alone) %.3f s\n",
            p->loop_s, (unsigned long long)p->team_edges, (unsigned long long)p->mem_edges,
            p->team_s, p->publish_s, p->wait_s, (unsigned long long)p->solo_edges,
            p->loop_s - p->team_s);
    fprintf(f, "# team profile: thread: s in tasks / tasks / stolen:");
    for (uint32_t i = 0; i < p->threads; i++)
        fprintf(f, " %u: %.3f/%llu/%llu", i, p->busy_s[i], (unsigned long long)p->tasks[i],
                (unsigned long long)p->stolen[i]);
    fputc('\n', f);
}

/* team_profile in the windowed mode: the loop split into the windows' parallel part and the
 * serial rest, the tasks' seconds by kind, how often the crossbar bounded a window; then every
 * thread's time in tasks. */
static void print_window_profile(FILE *f, const sim_window_profile *p)
{
    fprintf(f, "# window profile: loop %.3f s; %llu windows, their tasks' %s %.3f s, "
               "serial %.3f s (first launch %.3f, links' indices %.3f, CTAs %.3f); task s: "
               "crossbar %.3f, channels %.3f, SMs %.3f; a crossbar task ended last %llu "
               "times (%.3f s from its window's start)\n",
            p->loop_s, (unsigned long long)p->windows,
            p->threads > 1 ? "parallel regions" : "run", p->region_s, p->loop_s - p->region_s,
            p->first_s, p->exchange_s, p->ctas_s, p->xbar_s, p->chan_s, p->sm_s,
            (unsigned long long)p->xbar_last, p->xbar_last_s);
    fprintf(f, "# window profile: thread: s in tasks / tasks / stolen:");
    for (uint32_t i = 0; i < p->threads; i++)
        fprintf(f, " %u: %.3f/%llu/%llu", i, p->busy_s[i], (unsigned long long)p->tasks[i],
                (unsigned long long)p->stolen[i]);
    fputc('\n', f);
}

/* team_profile in the exact mode: the main thread's loop split into the serial phases one by
 * one and the rest, then phase B's tasks, by kind on the edges it ran them alone. */
static void print_loop_profile(FILE *f, const sim_loop_profile *p)
{
    const double *s = p->s;
    double serial = 0, tasks = 0;
    for (int k = 0; k < SIM_LP_AHEAD; k++)
        serial += s[k];
    for (int k = SIM_LP_AHEAD; k < SIM_LP_N; k++)
        tasks += s[k];
    fprintf(f, "# loop profile: loop %.3f s, %llu edges (%llu core); serial phases %.3f s: "
               "replies into SMs %.3f, replies out of channels %.3f, requests into channels "
               "%.3f, phase B's books %.3f, requests out of SMs %.3f, CTAs retired %.3f, kernels "
               "and CTAs issued %.3f; the rest (first launch, next edges, fast-forward, checks) "
               "%.3f s\n",
            p->loop_s, (unsigned long long)p->edges, (unsigned long long)p->core_edges, serial,
            s[SIM_LP_REPLIES_IN], s[SIM_LP_REPLIES_OUT], s[SIM_LP_REQUESTS_IN],
            s[SIM_LP_PHASE_B], s[SIM_LP_REQUESTS_OUT], s[SIM_LP_RETIRE], s[SIM_LP_CTAS],
            p->loop_s - serial - tasks);
    fprintf(f, "# loop profile: phase B's tasks %.3f s: %llu edges alone (s / tasks: "
               "read-ahead %.3f/%llu, crossbar %.3f/%llu, channels %.3f/%llu, SMs %.3f/%llu), "
               "%llu edges handed to other threads %.3f s\n",
            tasks, (unsigned long long)p->alone_edges, s[SIM_LP_AHEAD],
            (unsigned long long)p->tasks[SIM_LP_AHEAD], s[SIM_LP_XBAR],
            (unsigned long long)p->tasks[SIM_LP_XBAR], s[SIM_LP_CHAN],
            (unsigned long long)p->tasks[SIM_LP_CHAN], s[SIM_LP_SM],
            (unsigned long long)p->tasks[SIM_LP_SM], (unsigned long long)p->team_edges,
            s[SIM_LP_TEAM]);
}

static void print_rate(FILE *f, const sim_result *r, const knobs *k)
{
    uint64_t wi = stat_get(&r->total.sm, "warp_insts");
    double w = r->wall_s > 0 ? r->wall_s : 1e-9;
    fprintf(f, "\n# simulation rate (host-dependent, not part of --stats-json): %.3f s, "
               "%.0f warp-inst/s, %.0f cycles/s, %llu cycles fast-forwarded, %llu SM cycles "
               "parked\n",
            r->wall_s, (double)wi / w, (double)r->total.cycle / w,
            (unsigned long long)r->ff_cycles, (unsigned long long)r->park_cycles);
    if (r->windows) {
        fprintf(f, "# windowed mode: %llu windows of %lld core cycles; each round trip's links "
                   "add %lld cycles, l2_rop_latency ran as %lld",
                (unsigned long long)r->windows, (long long)k->sync_window,
                4 * (long long)k->sync_window, (long long)r->window_rop);
        if (k->threads > 1)
            fprintf(f, "; %llu of them on the main thread alone (team_adapt)",
                    (unsigned long long)r->windows_alone);
        fputc('\n', f);
    }
    if (r->wprof)
        print_window_profile(f, r->wprof);
    if (r->lprof)
        print_loop_profile(f, r->lprof);
    if (r->team_threads < 2)
        return;
    fprintf(f, "# team of %d threads: ", r->team_threads);
    if (r->team_start_s >= 0)
        fprintf(f, "helpers started %.3f s into the run", r->team_start_s);
    else
        fprintf(f, "helpers never started");
    if (r->solo_edge_us > 0 && r->solo_left_ms >= 0)
        fprintf(f, " (last solo period judged: %.2f us a core edge, %.1f ms of solo work left)",
                r->solo_edge_us, r->solo_left_ms);
    else if (r->solo_edge_us > 0)
        fprintf(f, " (last solo period judged: %.2f us a core edge)", r->solo_edge_us);
    if (r->solo_batch_ctas)
        fprintf(f, "; %llu CTAs parsed in parallel batches outside it",
                (unsigned long long)r->solo_batch_ctas);
    fputc('\n', f);
    if (r->prof)
        print_profile(f, r->prof);
}

/* A MacSim GPU trace runs in place: every record read and checked first, then each kernel's
 * CTAs built from its records as the simulator asks for them, with the opcodes of the
 * configured compute capability (the lines and statistics `trace convert --to accelsim`'s
 * text would give, without writing or parsing it). */
static int from_macsim(const cli_args *a, const char *path, trace_list *l, base_err *e)
{
    /* the opcode table follows the GPU; one without a SASS table (a Fermi preset's 20)
     * takes the nearest that exists */
    int cc = (int)a->knobs.v.compute_capability, bv = isa_nearest_version(cc);
    macsim_opts o = {.binary_version = bv};
    macsim_conv *m = macsim_conv_open(path, &o, e);
    if (!m)
        return -1;
    macsim_summary s;
    macsim_conv_summary(m, &s);
    macsim_conv_list(m, l);
    char with[64] = "";
    if (bv != cc)
        snprintf(with, sizeof with, " (with the %s opcode table of %d)",
                 isa_family_name(isa_family_for_version(bv)), bv);
    fprintf(stderr, "lockstep: %s is a MacSim trace: read in place (%llu kernels, %llu warp "
                    "instructions) for compute capability %d%s\n", path,
            (unsigned long long)s.kernels, (unsigned long long)s.insts, cc, with);
    return 0;
}

static int simulate(cli_args *a, trace_list *l, const char *shown);

/* The same file or directory, however it is named from here. */
static int same_path(const char *a, const char *b)
{
    struct stat x, y;
    return strcmp(a, b) == 0 ||
           (stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino);
}

/* A config that was a run's output (or JSON) names that run's trace. The knobs apply to any
 * trace, so another one is said, not refused: most often it is a slip (no TRACE given, and
 * the default sample runs). */
static void warn_other_trace(const knob_cfg *c, const char *path)
{
    if (c->run_trace.len && !same_path(c->run_trace.s, path))
        fprintf(stderr, "lockstep: warning: %s is from a run of %s; this run is of %s\n",
                c->run_file.s, c->run_trace.s, path);
}

static int run(cli_args *a)
{
    char buf[1200];
    const char *path = a->npos ? a->pos[0] : default_trace(buf, sizeof buf);
    warn_other_trace(&a->knobs, path);
    if (a->knobs.v.host_hugepages) /* before a MacSim trace is read: its records too */
        base_heap_hugepages();
    base_err e = {0};
    trace_list l;
    int rc = macsim_detect(path) ? from_macsim(a, path, &l, &e) : trace_list_open(path, &l, &e);
    return rc ? cli_error(&e) : simulate(a, &l, path);
}

/* Runs the trace list l (freed here); shown names the trace in the output. */
static int simulate(cli_args *a, trace_list *l, const char *shown)
{
    base_err e = {0};
    /* A run prints 50-60 KB at its end (the knob table, the statistics): one write instead
     * of a dozen of stdio's default 4 KB. The buffer comes from the heap, after its move to
     * huge pages: a static array took a page fault for each of its 4 KB pages, 13 of them,
     * more time than the writes it saved. Held for the process's life (stdout's buffer). */
    static char *outbuf;
    if (!isatty(1) && (outbuf = malloc(1 << 16)))
        setvbuf(stdout, outbuf, _IOFBF, 1 << 16);
    cli_warn_unmodelled(&a->knobs);
    cli_warn_approximated(&a->knobs);
    sim *g = sim_new(&a->knobs.v, &e);
    if (!g) {
        trace_list_free(l);
        return cli_error(&e);
    }
    FILE *progress = a->knobs.v.progress || isatty(2) ? stderr : NULL;
    sim_result r;
    int rc = sim_run(g, l, &r, stderr, progress, &e);
    base_out out = {0};
    const char *json = cli_get(a, "stats-json");
    if (rc == 0 && json)
        rc = base_out_open(&out, json, &e);
    if (rc == 0) {
        cli_echo_header(stdout, a);
        printf("\n" KNOB_RUN_TRACE "%s: %zu kernels, %zu memcpys (%llu bytes), %zu other "
               "commands\n",
               shown, l->nkernels, l->nmemcpy, (unsigned long long)l->memcpy_bytes, l->nother);
        for (size_t i = 0; i < r.nk; i++)
            sim_print_kernel(stdout, &r.k[i], i, r.nk);
        sim_print_totals(stdout, &r);
        print_rate(stdout, &r, &a->knobs.v);
        if (json) {
            write_json(out.f, a, shown, &r);
            rc = base_out_commit(&out, &e);
        }
        /* the numbers stay printed (a long run's), but the run fails */
        if (rc == 0 && r.ledger < 0)
            rc = base_fail(&e, BASE_EXIT_INTERNAL, "the statistics do not balance (a simulator "
                                                   "bug; please report it): %s", r.ledger_why);
    }
    if (CLI_FREE_AT_EXIT) {
        sim_result_free(&r);
        sim_free(g);
        trace_list_free(l);
    }
    return rc ? cli_error(&e) : 0;
}

const cli_cmd cli_cmd_run = {
    "run",
    "lockstep run [--preset=P | --config=F...] [--KNOB=V...] [--threads=N] [--stats-json=FILE] [TRACE]",
    "simulate a trace cycle by cycle on the configured GPU (default: the bundled sample)",
    "TRACE is an Accel-Sim trace directory, its kernelslist.g, or one kernel file; a MacSim\n"
    "GPU trace is converted on the fly (as `lockstep trace convert --to accelsim`). Every kernel and\n"
    "memcpy runs in list order; statistics are printed per kernel and in total under\n"
    "Accel-Sim's names. --threads=N runs the per-SM phase on N OpenMP threads (0: one per\n"
    "core this process may run on); the results do not depend on N. A run that stops making\n"
    "progress ends with exit code 1 and a diagnosis of what every warp and queue waits for.\n"
    "At the end the statistics are checked against each other (docs/TIMING.md, \"The\n"
    "ledger\"); a run whose statistics do not balance prints them, names the rule that failed\n"
    "and ends with exit code 1.",
    OPTS, 1, 0, 1, run, 0, NULL,
};
