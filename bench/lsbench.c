/*
 * lsbench: the simulation-speed benchmark of `lockstep run` (issue 5). Run by `make bench`;
 * never part of `make check`, because wall-clock figures depend on the host.
 *
 * Every run is a child process (fork/execv), so the figures include start-up and trace
 * reading exactly as a user sees them, and wait4's rusage gives CPU time and peak RSS
 * without instrumenting the simulator. Each workload x thread count is repeated and the
 * median reported, because a shared 2-core host is noisy. The statistics of every run are
 * compared with the first one: results must not depend on the thread count, so the
 * benchmark doubles as a determinism check.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

enum { MAX_THREADS = 32, MAX_EXTRA = 32, MAX_ARGV = 64, MAX_NOTES = 32, NOTE_LEN = 320 };
enum { CFG_LEN = PATH_MAX + 64, LABEL_LEN = 128 };
enum { MAX_CORES = 64 };

/* Shortest time we divide by: runs faster than the clock's useful resolution. */
static const double MIN_SECONDS = 1e-6;
/* user time is accounted in clock ticks: below this a run's own figure is unusable
 * (user_series) */
static const double USER_TICK_S = 0.01;
static const double USER_SERIES_S = 0.5; /* CPU seconds the series spans, at least */
enum { USER_SERIES_MAX = 2000 };

/* A peer simulator's rate to compare with: an Accel-Sim run (per user CPU second), the
 * Accel-Sim paper's figure, or a MacSim run (per wall second, all that was recorded). */
struct accel_ref {
    const char *name;  /* reference run, or the paper */
    double warp_insts; /* 0: the paper's figure, a rate only */
    double user_s;     /* a MacSim run: its wall s */
    double rate;       /* warp instructions per user CPU second (MacSim: per wall second) */
    double rss_mb;     /* 0: not recorded */
    bool macsim;
};

/*
 * Facts from ../shared/reference/README.md, section "Accel-Sim simulation rate and memory":
 * single-threaded Accel-Sim (accel-sim-framework 73f9fac, release build), user CPU seconds
 * and peak RSS from /usr/bin/time -v on the same kind of 2-core machine (the README says
 * treat them as +-30%). The rate is gpgpu_n_tot_w_icount / user seconds, as there.
 */
static const struct accel_ref ACCEL_REFS[] = {
    {"vectoradd_sm80_RTX3070", 26601, 2.20, 26601 / 2.20, 249, false},
    {"ffma_sm90as86_RTX3070", 1328, 1.08, 1328 / 1.08, 188, false},
    {"vectoradd100_sm61_TITANX", 344, 0.13, 344 / 0.13, 70, false},
    {"vectoradd100_gtx1080_reconstructed", 344, 0.04, 344 / 0.04, 49, false},
    {"matrixmul32_sm61_TITANX", 4416, 0.20, 4416 / 0.20, 72, false},
    {"vecadd_sm61_TITANX", 71974, 5.86, 71974 / 5.86, 142, false},
};

/* The same README quotes the Accel-Sim paper (ISCA 2020) for its trace-driven mode; the
 * synth samples have no recorded Accel-Sim run, so they are compared with this. */
static const struct accel_ref PAPER_REF = {"Accel-Sim paper (ISCA 2020)", 0, 0, 12500, 0, false};

/*
 * MacSim runs of the shared MacSim GPU traces (../shared/reference/README.md, section 2, and
 * macsim/key_stats.tsv): INST_COUNT_TOT (MacSim's warp instructions, one fewer a warp than
 * traced), wall s and peak RSS (kB / 1024) from /usr/bin/time, single-threaded, on the same
 * kind of 2-core machine. Of the two ptx_vectoradd runs the faster (GTX 580 params) is taken.
 */
static const struct accel_ref MACSIM_REFS[] = {
    {"MacSim ptx_vectoradd_gtx580", 2208, 0.18, 2208 / 0.18, 119580 / 1024.0, true},
    {"MacSim nvbit_vma4096_default", 4992, 0.33, 4992 / 0.33, 371004 / 1024.0, true},
};

/* The MacSim GPU traces, run the way a user would (`lockstep run DIR`: read in place, each
 * kernel's CTAs built from its records): ptx_vectoradd on the Fermi preset nearest
 * the GTX 465/580 of its MacSim runs, nvbit_vectormultadd on the default GPU. binary_version:
 * what that run converts for (the GPU's, or the nearest with an opcode table), so that the
 * native copy, converted in two steps, holds the same instructions. */
struct macsim_trace {
    const char *trace;
    const char *preset; /* NULL: the default */
    int binary_version;
    const struct accel_ref *ref;
};

static const struct macsim_trace MACSIM_TRACES[] = {
    {"ptx_vectoradd", "gtx480", 30, &MACSIM_REFS[0]},
    {"nvbit_vectormultadd_4096", NULL, 86, &MACSIM_REFS[1]},
};

/* The shared traces with the config each reference rate was measured with ("Runs" in the
 * same README). Default launch latency: the rates are for those exact runs, not *_nolat. */
struct shared_trace {
    const char *trace;
    const char *cfg_dir;
    bool trace_config; /* the reconstructed GTX1080 config holds the trace options itself */
    const char *ref;
};

static const struct shared_trace SHARED_TRACES[] = {
    {"vectoradd_sm80_v5", "SM86_RTX3070", true, "vectoradd_sm80_RTX3070"},
    {"ffma_sm90_v5", "SM86_RTX3070", true, "ffma_sm90as86_RTX3070"},
    {"vectoradd100_sm61_v4", "SM6_TITANX", true, "vectoradd100_sm61_TITANX"},
    {"vectoradd100_sm61_v4", "GTX1080_microgpusim_reconstructed", false,
     "vectoradd100_gtx1080_reconstructed"},
    {"matrixmul32_sm61_v4", "SM6_TITANX", true, "matrixmul32_sm61_TITANX"},
    {"vecadd_sm61_v3", "SM6_TITANX", true, "vecadd_sm61_TITANX"},
};

struct opts {
    int repeats;
    int threads[MAX_THREADS];
    int n_threads;
    const char *json;
    const char *bin;
    const char *shared;
    const char *only;
    bool native;
    bool native_only; /* run the native copies alone (a short lease's minutes) */
    bool large;
    int scale; /* reduce and vectoradd of --large take --n=scale M */
    bool core_check; /* time one workload pinned to each core every round */
    char *extra[MAX_EXTRA]; /* pieces of --extra, split at blanks */
    int n_extra;
};

struct workload {
    char label[LABEL_LEN];
    char trace[PATH_MAX];
    char cfg[2][CFG_LEN]; /* "--config=FILE" arguments */
    int n_cfg;
    const struct accel_ref *ref;
    int source;  /* a native copy: index of the workload it was converted from, or -1 */
    int macsim_bv; /* a MacSim trace: the binary version its run converts for; else 0 */
    bool extra;    /* not one of issue 5's workloads (a shared trace or synth sample): the
                      hand-made format sample, shown but kept out of the targets' count */
    char *stats; /* statistics of its first good run: what every other run must print */
};

struct sample {
    double wall, user, sys;
    long rss_kb;
};

struct row {
    int w, threads, n; /* n: good samples */
    struct sample *s;
    uint64_t winsts, cycles;
    bool failed;
    double wall, cpu, user; /* medians */
    long rss_kb;      /* maximum */
    double speedup, x_accel, x_accel_user, rss_ratio; /* NAN: not applicable */
    double speedup_even; /* the same over the rounds whose cores were even */
    int n_even;
    /* a row whose median user time is below the tick accounting's resolution: the means
     * over a series of extra runs (user_series) */
    int series_n;
    double series_user, series_sys;
};

struct bench {
    struct opts o;
    char tmpdir[64];
    char out_path[PATH_MAX], err_path[PATH_MAX];
    struct workload *wl;
    int n_wl, cap_wl;
    struct row *rows;
    int n_rows;
    int errors;
    char notes[MAX_NOTES][NOTE_LEN];
    int n_notes;
    char cpu_model[192], date[64], git[64], command[1024];
    long cores;
    /* the core check: each round's CPU s of the check workload pinned to each core
     * (core_round[round * n_core + i]), each core's median and its speed relative to the
     * fastest (1.0), and each round's slowest core relative to its fastest */
    cpu_set_t cpus;
    int n_core, core_id[MAX_CORES];
    double *core_round, *round_even, *round_trip; /* round_trip: ns, first two cores */
    double *pace; /* per round, PACE_N figures in ns (host_pace) */
    double core_s[MAX_CORES], core_rel[MAX_CORES];
    double load_start, load_end; /* 1-minute load average: others' work skews the timings */
};

/* ---------------------------------------------------------------- small helpers */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "lsbench: out of memory\n");
        exit(1);
    }
    return p;
}

static double clamp_s(double s)
{
    return s < MIN_SECONDS ? MIN_SECONDS : s;
}

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Notes (skipped workloads, missing features) go on stdout before the table and into the
 * JSON, so a reader of either sees what was not measured. */
static void note(struct bench *b, const char *fmt, ...)
{
    char buf[NOTE_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("note: %s\n", buf);
    fflush(stdout);
    if (b->n_notes < MAX_NOTES)
        snprintf(b->notes[b->n_notes++], NOTE_LEN, "%s", buf);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = xmalloc(cap + 1);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, 2 * cap + 1);
            if (!bigger) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---------------------------------------------------------------- options */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: build/lsbench [OPTIONS]       (normally: make bench BENCHFLAGS=\"...\")\n"
        "\n"
        "Times `lockstep run` on every shared Accel-Sim trace (with the config its Accel-Sim\n"
        "reference rate was measured with), the shared MacSim GPU traces (against MacSim's\n"
        "runs) and every bundled sample, at each thread count;\n"
        "prints a markdown table and writes JSON. Exit status 1 when a run fails or the\n"
        "statistics differ between runs, 2 on a usage error.\n"
        "\n"
        "  --repeats N       runs per workload and thread count, in rounds over all of them;\n"
        "                    medians reported (default 5)\n"
        "  --threads LIST    thread counts, e.g. 1,2,4 (default: 1, 2, 4, ... up to the\n"
        "                    online cores, plus the core count itself)\n"
        "  --json FILE       JSON output (default bench/results.json)\n"
        "  --bin PATH        the simulator (default build/lockstep)\n"
        "  --shared DIR      shared data (default $LOCKSTEP_SHARED or ../shared)\n"
        "  --only SUBSTR     only workloads whose label contains SUBSTR\n"
        "  --native          also run a copy of each trace converted with\n"
        "                    `lockstep trace convert --to native` (skipped if unsupported)\n"
        "  --native-only     the native copies alone, without their sources' rows\n"
        "  --large           also generate and run the scaling workloads (`lockstep synth`:\n"
        "                    reduce --n=1M, sgemm-tiled --n=256, vectoradd --n=1M; each at\n"
        "                    least 4 CTAs per pair of SMs on the default GPU)\n"
        "  --scale K         with --large: reduce and vectoradd take --n=K M instead (more\n"
        "                    work an edge and a longer run, for many threads; default 1)\n"
        "  --extra ARGS      more arguments for every run, split at blanks; repeatable\n"
        "                    (e.g. --extra=--fast_forward=0)\n"
        "  --no-core-check   do not time synth/gather pinned to each core at the start of\n"
        "                    every round (done when a thread count above 1 is asked for: a\n"
        "                    shared host's cores can differ in speed, and that caps any\n"
        "                    parallel speedup; the table adds the speedup over the rounds\n"
        "                    whose cores were even)\n"
        "  --help            this text\n"
        "\n"
        "Every round also times the host's pace (under the table; the JSON's host_pace): one\n"
        "dependent load over random 2, 8 and 64 MB working sets, an iteration of six\n"
        "independent ALU chains (the share of the physical core this one gets), one of a\n"
        "multiply chain (the clock), a CPUID instruction (a trip to the hypervisor in a\n"
        "virtual machine, and the C library runs dozens as every process starts), the first\n"
        "touch of a new 2 MB huge page and of a 4 KB page (every run's model sits in at\n"
        "least one huge page) and the start-up floor (the CPU time of `lockstep --version`:\n"
        "no row costs less). A shared host is faster in some minutes than in others, and the\n"
        "rows move with it.\n");
}

static int parse_threads(struct opts *o, const char *list)
{
    o->n_threads = 0;
    for (const char *p = list; *p;) {
        char *end;
        long t = strtol(p, &end, 10);
        if (end == p || t < 1 || t > 1024 || o->n_threads == MAX_THREADS)
            return -1;
        o->threads[o->n_threads++] = (int)t;
        p = end + strspn(end, ", ");
    }
    return o->n_threads ? 0 : -1;
}

/* Powers of two up to the core count, plus the core count itself: the speedup curve a
 * user of this host can get. */
static void default_threads(struct opts *o, long cores)
{
    o->n_threads = 0;
    for (long t = 1; t <= cores && o->n_threads < MAX_THREADS - 1; t *= 2)
        o->threads[o->n_threads++] = (int)t;
    if (o->threads[o->n_threads - 1] != cores)
        o->threads[o->n_threads++] = (int)cores;
}

static int add_extra(struct opts *o, char *args)
{
    for (char *tok = strtok(args, " \t"); tok; tok = strtok(NULL, " \t")) {
        if (o->n_extra == MAX_EXTRA)
            return -1;
        o->extra[o->n_extra++] = tok;
    }
    return 0;
}

/* Accepts --name=value and --name value. Returns the value or NULL when absent. */
static char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int parse_one(struct opts *o, int argc, char **argv, int *i)
{
    char *v;
    if ((v = opt_value(argc, argv, i, "--repeats"))) {
        o->repeats = atoi(v);
        return o->repeats >= 1 ? 0 : -1;
    }
    if ((v = opt_value(argc, argv, i, "--threads")))
        return parse_threads(o, v);
    if ((v = opt_value(argc, argv, i, "--json")))
        return o->json = v, 0;
    if ((v = opt_value(argc, argv, i, "--bin")))
        return o->bin = v, 0;
    if ((v = opt_value(argc, argv, i, "--shared")))
        return o->shared = v, 0;
    if ((v = opt_value(argc, argv, i, "--only")))
        return o->only = v, 0;
    if ((v = opt_value(argc, argv, i, "--extra")))
        return add_extra(o, v);
    if ((v = opt_value(argc, argv, i, "--scale"))) {
        char *end;
        long k = strtol(v, &end, 10);
        return *end || k < 1 || k > 64 ? -1 : (o->scale = (int)k, 0);
    }
    if (strcmp(argv[*i], "--native") == 0)
        return o->native = true, 0;
    if (strcmp(argv[*i], "--native-only") == 0)
        return o->native = o->native_only = true, 0;
    if (strcmp(argv[*i], "--large") == 0)
        return o->large = true, 0;
    if (strcmp(argv[*i], "--no-core-check") == 0)
        return o->core_check = false, 0;
    return -1;
}

/* Returns 0 to go on, otherwise the exit status (0 after --help). */
static int parse_opts(struct opts *o, int argc, char **argv, long cores, int *exit_code)
{
    const char *env = getenv("LOCKSTEP_SHARED");
    *o = (struct opts){.repeats = 5, .json = "bench/results.json", .bin = "build/lockstep",
                       .shared = env && *env ? env : "../shared", .scale = 1, .core_check = true};
    default_threads(o, cores);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return *exit_code = 0, -1;
        }
        if (parse_one(o, argc, argv, &i) != 0) {
            fprintf(stderr, "lsbench: bad option or value: %s\n", argv[i]);
            usage(stderr);
            return *exit_code = 2, -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- host facts */

/* The model name, then the family and model numbers: a guest often sees only "AMD EPYC",
 * and the development VM has been three different processors under two names. */
static void cpu_model(char *buf, size_t n)
{
    snprintf(buf, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256], name[128] = "", family[16] = "", model[16] = "";
    while (fgets(line, sizeof line, f) && strcmp(line, "\n") != 0) { /* the first CPU only */
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        size_t k = (size_t)(colon - line);
        while (k > 0 && (line[k - 1] == ' ' || line[k - 1] == '\t'))
            k--;
        char *v = colon + 1 + strspn(colon + 1, " \t");
        v[strcspn(v, "\n")] = '\0';
        if (k == 10 && strncmp(line, "model name", 10) == 0)
            snprintf(name, sizeof name, "%s", v);
        else if (k == 10 && strncmp(line, "cpu family", 10) == 0)
            snprintf(family, sizeof family, "%s", v);
        else if (k == 5 && strncmp(line, "model", 5) == 0)
            snprintf(model, sizeof model, "%s", v);
    }
    fclose(f);
    if (name[0] && family[0] && model[0])
        snprintf(buf, n, "%s (family %s, model %s)", name, family, model);
    else if (name[0])
        snprintf(buf, n, "%s", name);
}

/* The commit only (no --dirty: that refreshes the index, and others share this tree). */
static void git_describe(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *p = popen("git describe --always --tags 2>/dev/null", "r");
    if (!p)
        return;
    if (fgets(buf, (int)n, p))
        buf[strcspn(buf, "\n")] = '\0';
    else
        snprintf(buf, n, "unknown");
    pclose(p);
}

static double load_average(void)
{
    double load = NAN;
    return getloadavg(&load, 1) == 1 ? load : NAN;
}

static void host_facts(struct bench *b)
{
    b->load_start = load_average();
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(b->date, sizeof b->date, "%Y-%m-%d %H:%M UTC", &tm);
    cpu_model(b->cpu_model, sizeof b->cpu_model);
    git_describe(b->git, sizeof b->git);
}

/* Taken before the options are parsed: --extra is split in place. */
static void command_line(struct bench *b, int argc, char **argv)
{
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof b->command; i++)
        used += (size_t)snprintf(b->command + used, sizeof b->command - used, "%s%s",
                                 i ? " " : "", argv[i]);
}

static void print_header(const struct bench *b)
{
    printf("host: %ld cores, %s, load average %.2f; %s; lockstep HEAD %s (working tree may "
           "differ)\n", b->cores, b->cpu_model, b->load_start, b->date, b->git);
    printf("command: %s (repeats %d; medians; bin %s)\n", b->command, b->o.repeats, b->o.bin);
    fflush(stdout);
}

/* ---------------------------------------------------------------- child processes */

extern char **environ;

/* Runs argv with stdout and stderr in files; fills the sample from wait4's rusage.
 * Returns the wait status, or -1 when the child could not be started.
 * posix_spawn, not fork: a forked child first copies this process's page tables and is
 * charged for undoing them at exec. From this small harness that was 3-6% of a 1.5 ms run's
 * CPU time (GTX1080 vectoradd100); a larger parent (a Python harness) doubled it. */
static int run_child(char *const argv[], const char *out, const char *err, struct sample *s)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa))
        return -1;
    int ok = !posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) &&
             !posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600) &&
             !posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    double t0 = now_s();
    pid_t pid;
    int rc = ok ? posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) : -1;
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        if (ok)
            fprintf(stderr, "lsbench: cannot execute %s: %s\n", argv[0], strerror(rc));
        return -1;
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            return -1;
    s->wall = now_s() - t0;
    s->user = tv_s(ru.ru_utime);
    s->sys = tv_s(ru.ru_stime);
    s->rss_kb = ru.ru_maxrss;
    return status;
}

static void describe_status(int status, char *buf, size_t n)
{
    if (status == -1)
        snprintf(buf, n, "could not start");
    else if (WIFSIGNALED(status))
        snprintf(buf, n, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(buf, n, "exit status %d", WEXITSTATUS(status));
}

/* The end of a failed run's stderr: the diagnosis is at the end. */
static void show_stderr_tail(const char *err_path)
{
    char *text = read_file(err_path);
    if (!text)
        return;
    size_t n = strlen(text), from = n > 2000 ? n - 2000 : 0;
    while (from > 0 && text[from - 1] != '\n')
        from++;
    fprintf(stderr, "---- stderr (last %zu bytes) ----\n%s%s----\n", n - from, text + from,
            n && text[n - 1] != '\n' ? "\n" : "");
    free(text);
}

/* ---------------------------------------------------------------- workloads */

static struct workload *new_workload(struct bench *b, const char *label, const char *trace)
{
    if (b->n_wl == b->cap_wl) {
        b->cap_wl = b->cap_wl ? 2 * b->cap_wl : 16;
        struct workload *bigger = realloc(b->wl, (size_t)b->cap_wl * sizeof *bigger);
        if (!bigger) {
            fprintf(stderr, "lsbench: out of memory\n");
            exit(1);
        }
        b->wl = bigger;
    }
    struct workload *w = &b->wl[b->n_wl++];
    *w = (struct workload){.source = -1, .ref = &PAPER_REF};
    snprintf(w->label, sizeof w->label, "%s", label);
    snprintf(w->trace, sizeof w->trace, "%s", trace);
    return w;
}

static bool wanted(const struct bench *b, const char *label)
{
    return !b->o.only || strstr(label, b->o.only);
}

static const struct accel_ref *find_ref(const char *name)
{
    for (size_t i = 0; i < sizeof ACCEL_REFS / sizeof ACCEL_REFS[0]; i++)
        if (strcmp(ACCEL_REFS[i].name, name) == 0)
            return &ACCEL_REFS[i];
    return &PAPER_REF;
}

static void add_shared_trace(struct bench *b, const struct shared_trace *st)
{
    char label[LABEL_LEN], trace[PATH_MAX], cfg[PATH_MAX];
    snprintf(label, sizeof label, "%s %s", st->trace, st->cfg_dir);
    if (!wanted(b, label))
        return;
    snprintf(trace, sizeof trace, "%s/traces/accelsim/%s", b->o.shared, st->trace);
    snprintf(cfg, sizeof cfg, "%s/reference/accelsim-configs/%s", b->o.shared, st->cfg_dir);
    if (!is_dir(trace) || !is_dir(cfg)) {
        note(b, "%s skipped: %s or %s missing", label, trace, cfg);
        return;
    }
    struct workload *w = new_workload(b, label, trace);
    w->ref = find_ref(st->ref);
    snprintf(w->cfg[w->n_cfg++], CFG_LEN, "--config=%s/gpgpusim.config", cfg);
    if (st->trace_config)
        snprintf(w->cfg[w->n_cfg++], CFG_LEN, "--config=%s/trace.config", cfg);
}

static void add_shared_traces(struct bench *b)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/traces/accelsim", b->o.shared);
    if (!is_dir(dir)) {
        note(b, "shared traces skipped: %s not found (set --shared or LOCKSTEP_SHARED)", dir);
        return;
    }
    for (size_t i = 0; i < sizeof SHARED_TRACES / sizeof SHARED_TRACES[0]; i++)
        add_shared_trace(b, &SHARED_TRACES[i]);
}

static void add_macsim_traces(struct bench *b)
{
    for (size_t i = 0; i < sizeof MACSIM_TRACES / sizeof MACSIM_TRACES[0]; i++) {
        const struct macsim_trace *mt = &MACSIM_TRACES[i];
        char label[LABEL_LEN], trace[PATH_MAX];
        snprintf(label, sizeof label, "macsim/%s %s", mt->trace,
                 mt->preset ? mt->preset : "default");
        if (!wanted(b, label))
            continue;
        snprintf(trace, sizeof trace, "%s/traces/macsim/%s", b->o.shared, mt->trace);
        if (!is_dir(trace)) {
            note(b, "%s skipped: %s missing", label, trace);
            continue;
        }
        struct workload *w = new_workload(b, label, trace);
        w->ref = mt->ref;
        w->macsim_bv = mt->binary_version;
        if (mt->preset)
            snprintf(w->cfg[w->n_cfg++], CFG_LEN, "--preset=%s", mt->preset);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, so the table's order does not depend on the directory's. */
static int synth_names(char *names[], int max)
{
    DIR *d = opendir("samples/synth");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "samples/synth/%s", e->d_name);
        if (e->d_name[0] != '.' && is_dir(path))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    return n;
}

static void add_samples(struct bench *b)
{
    char *names[128];
    int n = synth_names(names, 128);
    if (n == 0)
        note(b, "samples/synth not found: run from the repository root");
    for (int i = 0; i < n; i++) {
        char label[LABEL_LEN], trace[PATH_MAX];
        if (!names[i])
            continue;
        snprintf(label, sizeof label, "synth/%s", names[i]);
        snprintf(trace, sizeof trace, "samples/synth/%s", names[i]);
        if (wanted(b, label))
            new_workload(b, label, trace);
        free(names[i]);
    }
    if (is_dir("samples/vecadd_sm80") && wanted(b, "samples/vecadd_sm80"))
        new_workload(b, "samples/vecadd_sm80", "samples/vecadd_sm80")->extra = true;
}

/* Runs a preparing command (not a timed run): 0 when it exited with 0, else -1 after
 * printing the command, how it ended and the tail of its stderr. */
static int run_tool(struct bench *b, char *const argv[])
{
    struct sample s;
    int status = run_child(argv, b->out_path, b->err_path, &s);
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char why[64];
    describe_status(status, why, sizeof why);
    fprintf(stderr, "lsbench: FAILED:");
    for (size_t i = 0; argv[i]; i++)
        fprintf(stderr, " %s", argv[i]);
    fprintf(stderr, ": %s\n", why);
    show_stderr_tail(b->err_path);
    return -1;
}

/* ---------------------------------------------------------------- large workloads */

/* The workloads of the 2-thread scaling criterion: the bundled samples run a few thousand
 * cycles, where start-up dominates; these run for seconds with thousands of CTAs. --scale
 * multiplies the element counts of the two streaming kernels (sgemm's CTAs are all resident
 * at once already; a larger n would multiply its text by n^3). */
static const struct {
    const char *kernel, *unit; /* synth kernel; suffix of its --n */
    int n, scales;             /* --n before the unit; whether --scale multiplies it */
} LARGE[] = {
    {"reduce", "M", 1, 1},
    {"sgemm-tiled", "", 256, 0},
    {"vectoradd", "M", 1, 1},
};

static void add_large(struct bench *b)
{
    if (!b->o.large)
        return;
    for (size_t i = 0; i < sizeof LARGE / sizeof LARGE[0]; i++) {
        char n[32], label[LABEL_LEN];
        snprintf(n, sizeof n, "--n=%d%s", LARGE[i].n * (LARGE[i].scales ? b->o.scale : 1),
                 LARGE[i].unit);
        snprintf(label, sizeof label, "large/%s %s", LARGE[i].kernel, n);
        if (!wanted(b, label))
            continue;
        char dst[PATH_MAX], out[PATH_MAX + 8];
        snprintf(dst, sizeof dst, "%s/large-%zu", b->tmpdir, i);
        snprintf(out, sizeof out, "--out=%s", dst);
        char *argv[] = {(char *)b->o.bin, "synth", (char *)LARGE[i].kernel, n, out, NULL};
        if (run_tool(b, argv)) {
            b->errors++;
            continue;
        }
        new_workload(b, label, dst);
    }
}

/* ---------------------------------------------------------------- native copies */

/* The converter is being written alongside this harness: look for it in the help text
 * rather than assume it. */
static bool native_supported(struct bench *b)
{
    char *argv[] = {(char *)b->o.bin, "trace", "--help", NULL};
    struct sample s;
    run_child(argv, b->out_path, b->err_path, &s);
    char *out = read_file(b->out_path), *err = read_file(b->err_path);
    bool yes = (out && strstr(out, "native")) || (err && strstr(err, "native"));
    free(out);
    free(err);
    return yes;
}

/* A MacSim trace (bv > 0) goes to Accel-Sim text first, for the binary version its run
 * converts for, as the converter asks. */
static int convert_native(struct bench *b, const char *src, const char *dst, int bv)
{
    char text[PATH_MAX + 8], bva[32];
    if (bv > 0) {
        snprintf(text, sizeof text, "%s.text", dst);
        snprintf(bva, sizeof bva, "--binary-version=%d", bv);
        char *argv[] = {(char *)b->o.bin, "trace", "convert", "--to", "accelsim", (char *)src,
                        "--out", text, bva, NULL};
        if (run_tool(b, argv))
            return -1;
        src = text;
    }
    char *argv[] = {(char *)b->o.bin, "trace", "convert", "--to", "native", (char *)src,
                    "--out", (char *)dst, NULL};
    return run_tool(b, argv);
}

/* Each native copy follows its source, so the table shows the two side by side; its
 * statistics must equal the source's (a lossless conversion). */
static void add_native_copies(struct bench *b)
{
    if (!b->o.native)
        return;
    if (!native_supported(b)) {
        note(b, "--native skipped: `%s trace convert --to native` is not available", b->o.bin);
        return;
    }
    int n = b->n_wl;
    struct workload *src = xmalloc((size_t)n * sizeof *src);
    memcpy(src, b->wl, (size_t)n * sizeof *src);
    b->n_wl = 0;
    for (int i = 0; i < n; i++) {
        int at = -1;
        if (!b->o.native_only) {
            at = b->n_wl;
            *new_workload(b, src[i].label, src[i].trace) = src[i];
        }
        char label[LABEL_LEN + 8], dst[PATH_MAX];
        snprintf(label, sizeof label, "%s native", src[i].label);
        snprintf(dst, sizeof dst, "%s/native-%d", b->tmpdir, i);
        if (convert_native(b, src[i].trace, dst, src[i].macsim_bv) != 0) {
            b->errors++;
            continue;
        }
        struct workload *w = new_workload(b, label, dst);
        memcpy(w->cfg, src[i].cfg, sizeof w->cfg);
        w->n_cfg = src[i].n_cfg;
        w->ref = src[i].ref;
        w->extra = src[i].extra;
        w->source = at;
    }
    free(src);
}

/* ---------------------------------------------------------------- one run */

static int build_argv(const struct bench *b, const struct workload *w, char *threads_arg,
                      char *argv[])
{
    int n = 0;
    argv[n++] = (char *)b->o.bin;
    argv[n++] = "run";
    argv[n++] = threads_arg;
    for (int i = 0; i < w->n_cfg; i++)
        argv[n++] = (char *)w->cfg[i];
    for (int i = 0; i < b->o.n_extra; i++)
        argv[n++] = b->o.extra[i];
    argv[n++] = (char *)w->trace;
    argv[n] = NULL;
    return n;
}

/* The statistics of a run: stdout without comment lines (command line, timing) and the
 * knob echo of --threads, the only lines that may differ between thread counts. */
static char *stats_body(const char *text)
{
    char *body = xmalloc(strlen(text) + 1), *o = body;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);
        if (*p != '#' && strncmp(p, "knob threads ", 13) != 0) {
            memcpy(o, p, len);
            o += len;
        }
        p += len;
    }
    *o = '\0';
    return body;
}

static uint64_t stat_value(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, name, n) == 0 && strncmp(p + n, " = ", 3) == 0)
            return strtoull(p + n + 3, NULL, 10);
    return UINT64_MAX;
}

static void show_first_difference(const char *want, const char *got)
{
    const char *start = want;
    int line = 1;
    while (*want && *want == *got) {
        line += *want == '\n';
        want++;
        got++;
    }
    while (want > start && want[-1] != '\n')
        want--, got--;
    fprintf(stderr, "  first difference at statistics line %d:\n  expected: %.*s\n"
            "  got:      %.*s\n", line, (int)strcspn(want, "\n"), want,
            (int)strcspn(got, "\n"), got);
}

/* Every run must print the statistics of the workload's first run (and a native copy
 * those of its source). Takes ownership of body. */
static int check_stats(struct bench *b, struct workload *w, char *body, int threads, int rep)
{
    const char *want = w->stats;
    const char *what = "its first run";
    if (!want && w->source >= 0 && b->wl[w->source].stats) {
        want = b->wl[w->source].stats;
        what = b->wl[w->source].label;
    }
    if (want && strcmp(want, body) != 0) {
        fprintf(stderr, "lsbench: MISMATCH: %s, %d threads, run %d: statistics differ from "
                "those of %s\n", w->label, threads, rep + 1, what);
        show_first_difference(want, body);
        free(body);
        return -1;
    }
    if (!w->stats)
        w->stats = body;
    else
        free(body);
    return 0;
}

/* Parses and checks one finished run; -1 marks the row failed. */
static int take_output(struct bench *b, struct workload *w, struct row *r, int rep)
{
    char *text = read_file(b->out_path);
    if (!text) {
        fprintf(stderr, "lsbench: cannot read %s\n", b->out_path);
        return -1;
    }
    uint64_t wi = stat_value(text, "total.gpgpu_n_tot_w_icount");
    uint64_t cyc = stat_value(text, "total.gpu_tot_sim_cycle");
    char *body = stats_body(text);
    free(text);
    if (wi == UINT64_MAX || cyc == UINT64_MAX) {
        fprintf(stderr, "lsbench: FAILED: %s: no total.gpgpu_n_tot_w_icount or "
                "total.gpu_tot_sim_cycle in the output\n", w->label);
        free(body);
        return -1;
    }
    r->winsts = wi;
    r->cycles = cyc;
    return check_stats(b, w, body, r->threads, rep);
}

static int one_run(struct bench *b, struct workload *w, struct row *r, int rep)
{
    char threads_arg[32], *argv[MAX_ARGV];
    snprintf(threads_arg, sizeof threads_arg, "--threads=%d", r->threads);
    build_argv(b, w, threads_arg, argv);
    struct sample *s = &r->s[r->n];
    int status = run_child(argv, b->out_path, b->err_path, s);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char why[64];
        describe_status(status, why, sizeof why);
        fprintf(stderr, "lsbench: FAILED: %s, %d threads: %s\n", w->label, r->threads, why);
        show_stderr_tail(b->err_path);
        return -1;
    }
    if (take_output(b, w, r, rep) != 0)
        return -1;
    fprintf(stderr, "lsbench: %-44s %2d thr  run %d/%d  %8.3f s wall %8.3f s cpu\n",
            w->label, r->threads, rep + 1, b->o.repeats, s->wall, s->user + s->sys);
    r->n++;
    return 0;
}

/* ---------------------------------------------------------------- core check */

/* A shared host's virtual cores need not be equally fast, nor stay so: on the 2-core host of
 * sessions 21-22 one core ran lockstep at 0.69-0.72 of the other's speed for minutes at a
 * time (another tenant on its sibling thread, most likely), then at 0.97-1.0 again. T threads
 * can gain at most the sum of the T fastest cores' speeds over the fastest one, whatever the
 * simulator does. So each round of runs starts by timing the check workload pinned to each
 * core (the harness pins itself; a spawned child inherits the affinity), and each row's
 * speedup is reported over all rounds and over the rounds whose cores were even. */
static const char CORE_CHECK_TRACE[] = "samples/synth/gather";
static const double EVEN_CORES = 0.9; /* slowest core's speed over the fastest's */

static int core_time(struct bench *b, int cpu, double *cpu_s)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return -1;
    char *argv[] = {(char *)b->o.bin, "run", (char *)CORE_CHECK_TRACE, NULL};
    struct sample s;
    int st = run_child(argv, b->out_path, b->err_path, &s);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    *cpu_s = s.user + s.sys;
    return 0;
}

static bool wants_parallel(const struct bench *b)
{
    for (int t = 0; t < b->o.n_threads; t++)
        if (b->o.threads[t] > 1)
            return true;
    return false;
}

/* The cores to check (this process's affinity), unless the check is off or pointless. */
static void core_list(struct bench *b)
{
    if (!b->o.core_check || !wants_parallel(b) || sched_getaffinity(0, sizeof b->cpus, &b->cpus) != 0 ||
        CPU_COUNT(&b->cpus) < 2)
        return;
    if (!is_dir(CORE_CHECK_TRACE)) {
        note(b, "core check skipped: %s not found", CORE_CHECK_TRACE);
        return;
    }
    for (int c = 0; c < CPU_SETSIZE && b->n_core < MAX_CORES; c++)
        if (CPU_ISSET(c, &b->cpus))
            b->core_id[b->n_core++] = c;
    b->core_round = xmalloc((size_t)b->o.repeats * (size_t)b->n_core * sizeof *b->core_round);
}

/* The round trip of one cache line between the first two cores, in ns: the team of a
 * parallel run hands over a few lines per clock edge, and on the development host this took
 * 500-660 ns in the hours the 2-thread speedups were 1.3-1.5x. */
enum { PINGS = 20000 };

struct ping {
    _Atomic long flag;
    int cpu;
};

static void pin_self(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

static void *pong(void *arg)
{
    struct ping *p = arg;
    pin_self(p->cpu);
    for (long i = 1; i <= PINGS; i++) {
        while (atomic_load_explicit(&p->flag, memory_order_acquire) != 2 * i - 1)
            ;
        atomic_store_explicit(&p->flag, 2 * i, memory_order_release);
    }
    return NULL;
}

static double round_trip_ns(const struct bench *b)
{
    static struct ping p; /* one line of its own is not needed: nothing else is touched */
    atomic_store(&p.flag, 0);
    p.cpu = b->core_id[1];
    pthread_t t;
    pin_self(b->core_id[0]);
    if (pthread_create(&t, NULL, pong, &p) != 0)
        return NAN;
    double t0 = now_s();
    for (long i = 1; i <= PINGS; i++) {
        atomic_store_explicit(&p.flag, 2 * i - 1, memory_order_release);
        while (atomic_load_explicit(&p.flag, memory_order_acquire) != 2 * i)
            ;
    }
    double dt = now_s() - t0;
    pthread_join(t, NULL);
    return dt / PINGS * 1e9;
}

/* The host's pace, in a few figures a round: one dependent load over a random cycle through
 * working sets of 2, 8 and 64 MB; an iteration of six independent shift-add chains (12 ALU
 * operations that may run 4 at a time: what the core's issue width gives, 3 cycles or more on
 * a core of its own); an iteration of one dependent multiply-add (4 cycles at any load: the
 * clock). On the development host a memory-bound run (synth/gather) took 0.12-0.14 s of
 * CPU in some minutes and 0.21-0.33 s in others, the same instructions: the other tenants of
 * the machine take a share of its caches and memory, and of the physical core itself (a
 * sibling hardware thread the guest cannot see). Printed per round under the
 * table: they say what the host gave in the minutes of the table. They do not time any one
 * run: the pace changes within a second (session 58, bench/SESSIONS.md). */
enum { PACE_SIZES = 3, PACE_LOADS = 1 << 20, PACE_ALU = PACE_SIZES, PACE_CLOCK, PACE_CPUID,
       PACE_HUGE, PACE_PAGE, PACE_START, PACE_N, PACE_ITERS = 50000000, PACE_CPUIDS = 200,
       PACE_STARTS = 9, PACE_TOUCH_MB = 8 };
static const size_t pace_kb[PACE_SIZES] = {2048, 8192, 65536};

static double chase_ns(size_t kb)
{
    size_t n = kb * 1024 / 64;
    uint64_t *a = aligned_alloc(64, n * 64);
    uint32_t *perm = malloc(n * sizeof *perm);
    if (!a || !perm) {
        free(a);
        free(perm);
        return NAN;
    }
    uint64_t x = 0x9E3779B97F4A7C15ull; /* fixed: every round walks the same cycle */
    for (size_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = (size_t)(x % (i + 1));
        uint32_t t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (size_t i = 0; i < n; i++) /* one 64-byte line per element: a load is a line */
        a[(size_t)perm[i] * 8] = (uint64_t)perm[(i + 1) % n] * 8;
    volatile uint64_t sink;
    uint64_t q = 0;
    for (size_t i = 0; i < n; i++) /* warm: the pages are faulted in, the TLB is not timed cold */
        q = a[q];
    double t0 = now_s();
    for (long i = 0; i < PACE_LOADS; i++)
        q = a[q];
    double dt = now_s() - t0;
    sink = q;
    (void)sink;
    free(a);
    free(perm);
    return dt / PACE_LOADS * 1e9;
}

static double thread_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The empty asm keeps every chain in a register of its own, so nothing is vectorised or
 * folded. Timed in this thread's CPU time: another process on the same virtual core does
 * not count, another thread on the physical core does. */
static void core_ns(double *alu, double *clock)
{
    uint64_t a0 = 1, a1 = 2, a2 = 3, a3 = 4, a4 = 5, a5 = 6, x = 1;
    double t0 = thread_cpu_s();
    for (long i = 0; i < PACE_ITERS; i++) {
        a0 += a0 >> 3, a1 += a1 >> 3, a2 += a2 >> 3, a3 += a3 >> 3, a4 += a4 >> 3, a5 += a5 >> 3;
        __asm__ volatile("" : "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3), "+r"(a4), "+r"(a5));
    }
    double t1 = thread_cpu_s();
    for (long i = 0; i < PACE_ITERS; i++) {
        x = x * 6364136223846793005ull + (uint64_t)i;
        __asm__ volatile("" : "+r"(x));
    }
    double t2 = thread_cpu_s();
    volatile uint64_t sink = a0 + a1 + a2 + a3 + a4 + a5 + x;
    (void)sink;
    *alu = (t1 - t0) / PACE_ITERS * 1e9;
    *clock = (t2 - t1) / PACE_ITERS * 1e9;
}

/* One CPUID instruction, in microseconds (NAN off x86). In a virtual machine it is a trip to
 * the hypervisor: 11.4 us each on session 60's Intel guest, where the C library's start-up
 * runs 68 of them (glibc 2.36 reads the cache sizes from leaves 2 and 4, one query at a time)
 * before main, static binary or dynamic: 0.78 ms of CPU in every process, a third of a small
 * trace's run (bench/SESSIONS.md, "Session 60"). */
static double cpuid_us(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    double t0 = thread_cpu_s();
    for (int i = 0; i < PACE_CPUIDS; i++) {
        __cpuid_count(4, (unsigned)i & 3u, a, b, c, d);
        __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
    }
    return (thread_cpu_s() - t0) / PACE_CPUIDS * 1e6;
#else
    return NAN;
#endif
}

/* The kB of transparent huge pages this process holds (smaps_rollup), or -1. */
static long anon_huge_kb(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

/* The first touch of fresh anonymous memory, in us of this thread's CPU time (user + sys) a
 * page: a 2 MB huge page (MADV_HUGEPAGE; NAN where the kernel gave small pages instead) or a
 * 4 KB page. The kernel allocates and clears the page: on session 72's guest a huge page took
 * 260-560 us, where a memset of 2 MB already mapped took 200-290 us out of the caches and
 * 70-110 us in them, and a 4 KB page 2-3 us; memory the guest had not used for a while cost
 * far more (6.8 ms a huge page, 64 in a row), as a hypervisor backs it only when first
 * touched. Every `lockstep run`
 * holds its model in huge pages (base_heap), at least one, so a small trace's run pays this
 * beside the start-up floor. Timed in a new process (touch_probe): in the harness's forked
 * child, after the chase arrays, the same pages cost 2-10 times as much, and varied more. */
static double first_touch_us(int huge)
{
    size_t hp = (size_t)2 << 20, span = (size_t)PACE_TOUCH_MB << 20;
    char *m = mmap(NULL, span + hp, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NAN;
    volatile char *a = (char *)(((uintptr_t)m + hp - 1) & ~(uintptr_t)(hp - 1));
    double us = NAN;
    long kb0 = huge ? anon_huge_kb() : 0;
    if (madvise((void *)a, span, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0) {
        size_t step = huge ? hp : 4096, n = span / step;
        double t0 = thread_cpu_s();
        for (size_t i = 0; i < n; i++)
            a[i * step] = 1;
        double dt = thread_cpu_s() - t0;
        if (!huge || (kb0 >= 0 && anon_huge_kb() - kb0 >= (long)(span >> 10)))
            us = dt / (double)n * 1e6;
    }
    munmap(m, span + hp);
    return us;
}

/* `lsbench --touch-probe` (internal): the two first-touch figures on one line. */
static int touch_probe_main(void)
{
    printf("%.3f %.3f\n", first_touch_us(1), first_touch_us(0));
    return 0;
}

/* The medians of PACE_STARTS runs of touch_probe_main, each a process as new as a run's. */
static void touch_probe(struct bench *b, double *huge, double *page)
{
    char *argv[] = {"/proc/self/exe", "--touch-probe", NULL};
    double h[PACE_STARTS], p[PACE_STARTS];
    int n = 0;
    for (int i = 0; i < PACE_STARTS; i++) {
        struct sample s;
        int st = run_child(argv, b->out_path, b->err_path, &s);
        FILE *f = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? fopen(b->out_path, "r")
                                                                     : NULL;
        if (f && fscanf(f, "%lf %lf", &h[n], &p[n]) == 2)
            n++;
        if (f)
            fclose(f);
    }
    *huge = n ? median(h, n) : NAN;
    *page = n ? median(p, n) : NAN;
}

/* The start-up floor: the median CPU time (ms) of `lockstep --version`, a process that starts,
 * prints one line and exits. No run of any workload costs less; a row whose CPU time is
 * near it is mostly process start-up, not simulation. */
static double startup_ms(struct bench *b)
{
    char *argv[] = {(char *)b->o.bin, "--version", NULL};
    double v[PACE_STARTS];
    int n = 0;
    for (int i = 0; i < PACE_STARTS; i++) {
        struct sample s;
        int st = run_child(argv, b->out_path, b->err_path, &s);
        if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            v[n++] = (s.user + s.sys) * 1e3;
    }
    return n ? median(v, n) : NAN;
}

/* In a child of its own: a child run's peak RSS (wait4) starts from the harness's own, since
 * posix_spawn execs from the parent's address space and Linux carries that space's
 * high-water mark into the child; 70 MB of chase arrays once made every row's RSS 0.4-2 of
 * Accel-Sim's. */
static void host_pace(struct bench *b, int rep)
{
    double *v = b->pace + (size_t)rep * PACE_N, w[PACE_N];
    int fd[2];
    for (int i = 0; i < PACE_N; i++)
        v[i] = NAN;
    fflush(NULL);
    if (pipe(fd) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        for (int i = 0; i < PACE_SIZES; i++)
            w[i] = chase_ns(pace_kb[i]);
        core_ns(&w[PACE_ALU], &w[PACE_CLOCK]);
        w[PACE_CPUID] = cpuid_us();
        w[PACE_HUGE] = w[PACE_PAGE] = w[PACE_START] = NAN; /* the parent's, below */
        _exit(write(fd[1], w, sizeof w) == (ssize_t)sizeof w ? 0 : 1);
    }
    close(fd[1]);
    if (pid > 0) {
        if (read(fd[0], w, sizeof w) == (ssize_t)sizeof w)
            memcpy(v, w, sizeof w);
        waitpid(pid, NULL, 0);
    }
    close(fd[0]);
    touch_probe(b, &v[PACE_HUGE], &v[PACE_PAGE]);
    v[PACE_START] = startup_ms(b);
    fprintf(stderr, "lsbench: host pace, round %d: a dependent load over", rep + 1);
    for (int i = 0; i < PACE_SIZES; i++)
        fprintf(stderr, "%s %zu MB %.0f ns", i ? "," : "", pace_kb[i] / 1024, v[i]);
    fprintf(stderr, "; ALU chains %.2f ns, clock chain %.2f ns an iteration; CPUID %.2f us; "
            "a new huge page %.0f us, a new 4 KB page %.2f us; start-up %.3f ms\n", v[PACE_ALU],
            v[PACE_CLOCK], v[PACE_CPUID], v[PACE_HUGE], v[PACE_PAGE], v[PACE_START]);
}

/* Round rep's check: one pinned run per core; round_even[rep] is the slowest core's speed
 * over the fastest's (NAN when a core could not be timed). */
static void core_round(struct bench *b, int rep)
{
    double *t = b->core_round + (size_t)rep * (size_t)b->n_core, lo = INFINITY, hi = 0;
    b->round_even[rep] = b->round_trip[rep] = NAN;
    if (b->n_core < 2)
        return;
    for (int i = 0; i < b->n_core; i++) {
        if (core_time(b, b->core_id[i], &t[i]) != 0) {
            note(b, "core check: cpu%d could not be timed", b->core_id[i]);
            t[i] = NAN;
            continue;
        }
        lo = t[i] < lo ? t[i] : lo;
        hi = t[i] > hi ? t[i] : hi;
    }
    b->round_trip[rep] = round_trip_ns(b);
    if (sched_setaffinity(0, sizeof b->cpus, &b->cpus) != 0)
        note(b, "core check: could not restore the affinity: runs stay on one core");
    if (hi > 0 && isfinite(lo))
        b->round_even[rep] = clamp_s(lo) / clamp_s(hi);
    fprintf(stderr, "lsbench: core check, round %d: slowest core at %.2f of the fastest; round "
            "trip cpu%d-cpu%d %.0f ns\n", rep + 1, b->round_even[rep], b->core_id[0],
            b->core_id[1], b->round_trip[rep]);
}

/* Each core's median time over the rounds, and its speed relative to the fastest. */
static void core_summary(struct bench *b)
{
    double v[64], best = INFINITY;
    int n = b->o.repeats < 64 ? b->o.repeats : 64;
    for (int i = 0; i < b->n_core; i++) {
        int m = 0;
        for (int k = 0; k < n; k++) {
            double x = b->core_round[(size_t)k * (size_t)b->n_core + (size_t)i];
            if (!isnan(x))
                v[m++] = x;
        }
        b->core_s[i] = m ? median(v, m) : NAN;
        if (m && b->core_s[i] < best)
            best = b->core_s[i];
    }
    for (int i = 0; i < b->n_core; i++)
        b->core_rel[i] = clamp_s(best) / clamp_s(b->core_s[i]);
}

/* The most `threads` threads can gain over one thread on the fastest core: the sum of the
 * largest relative speeds, one per thread. NAN without a core check. */
static double core_ceiling(const struct bench *b, int threads)
{
    if (b->n_core < 2)
        return NAN;
    double rel[MAX_CORES], sum = 0;
    memcpy(rel, b->core_rel, (size_t)b->n_core * sizeof *rel);
    qsort(rel, (size_t)b->n_core, sizeof *rel, cmp_double);
    for (int i = 0; i < threads && i < b->n_core; i++)
        sum += rel[b->n_core - 1 - i];
    return sum;
}

/* ---------------------------------------------------------------- rows */

static void summarise(struct row *r)
{
    double *v = xmalloc((size_t)r->n * sizeof *v);
    for (int i = 0; i < r->n; i++)
        v[i] = r->s[i].wall;
    r->wall = clamp_s(median(v, r->n));
    for (int i = 0; i < r->n; i++)
        v[i] = r->s[i].user + r->s[i].sys;
    r->cpu = clamp_s(median(v, r->n));
    for (int i = 0; i < r->n; i++)
        v[i] = r->s[i].user;
    r->user = clamp_s(median(v, r->n));
    free(v);
    for (int i = 0; i < r->n; i++)
        if (r->s[i].rss_kb > r->rss_kb)
            r->rss_kb = r->s[i].rss_kb;
}

static void row_init(struct bench *b, int w, int threads, struct row *r)
{
    *r = (struct row){.w = w, .threads = threads, .speedup = NAN, .x_accel = NAN, .x_accel_user = NAN,
                      .rss_ratio = NAN, .speedup_even = NAN};
    r->s = xmalloc((size_t)b->o.repeats * sizeof *r->s);
}

static const struct row *one_thread_row(const struct bench *b, int w)
{
    for (int i = 0; i < b->n_rows; i++)
        if (b->rows[i].w == w && b->rows[i].threads == 1 && !b->rows[i].failed)
            return &b->rows[i];
    return NULL;
}

/* Speedup: the median over rounds of the 1-thread run's wall time over this row's in the
 * same round (adjacent runs see the same host, where the host's speed drifts between
 * rounds), and the same over the rounds whose cores were even (core check). */
static void paired_speedup(const struct bench *b, const struct row *one, struct row *r)
{
    int n = one->n < r->n ? one->n : r->n, m = 0;
    double *all = xmalloc((size_t)(n + 1) * sizeof *all), *even = xmalloc((size_t)(n + 1) * sizeof *even);
    for (int k = 0; k < n; k++) {
        all[k] = clamp_s(one->s[k].wall) / clamp_s(r->s[k].wall);
        if (b->round_even[k] >= EVEN_CORES)
            even[m++] = all[k];
    }
    r->speedup = n ? median(all, n) : NAN;
    r->speedup_even = m ? median(even, m) : NAN;
    r->n_even = m;
    free(all);
    free(even);
}

/* Accel-Sim is single-threaded and its rate is per user CPU second: the ratio is taken from
 * our 1-thread run, once per CPU (user+sys) second, the stricter figure since our start-up
 * is mostly page faults, and once per user second, the reference's own definition. Memory
 * compares at every thread count. */
static void derive(struct bench *b, struct row *r)
{
    if (r->failed)
        return;
    const struct row *one = one_thread_row(b, r->w);
    const struct accel_ref *ref = b->wl[r->w].ref;
    if (one)
        paired_speedup(b, one, r);
    if (r->threads == 1 && ref->macsim) {
        r->x_accel = (double)r->winsts / r->wall / ref->rate; /* its wall s is all there is */
    } else if (r->threads == 1) {
        r->x_accel = (double)r->winsts / r->cpu / ref->rate;
        if (r->user >= USER_TICK_S)
            r->x_accel_user = (double)r->winsts / r->user / ref->rate;
        else if (r->series_n > 0 && r->series_user > 0)
            r->x_accel_user = (double)r->winsts / r->series_user / ref->rate;
    }
    if (ref->rss_mb > 0)
        r->rss_ratio = (double)r->rss_kb / 1024.0 / ref->rss_mb;
}

/* rusage splits a run's exact CPU time between user and sys by the clock ticks that landed
 * in each (4 ms apart on the development host), so a 4 ms run reads as all user, all sys or
 * half each, and the median says nothing. Over a series of runs the split evens out: the
 * mean user time of enough runs to span many ticks is a fair figure (a run that saw no tick
 * is all user, which can only make ours look slower). Used for the 1-thread rows under
 * USER_TICK_S of median user time, the only ones whose "x (user s)" needs it. */
static void user_series(struct bench *b, struct row *r)
{
    char threads_arg[32], *argv[MAX_ARGV];
    snprintf(threads_arg, sizeof threads_arg, "--threads=%d", r->threads);
    build_argv(b, &b->wl[r->w], threads_arg, argv);
    double user = 0, sys = 0;
    int n = 0;
    while (n < USER_SERIES_MAX && user + sys < USER_SERIES_S) {
        struct sample s;
        int st = run_child(argv, b->out_path, b->err_path, &s);
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return; /* the timed runs passed: leave the column empty rather than guess */
        user += s.user;
        sys += s.sys;
        n++;
    }
    r->series_n = n;
    r->series_user = user / n;
    r->series_sys = sys / n;
    fprintf(stderr, "lsbench: %-44s user time over %d more runs: %.3f ms user, %.3f ms sys\n",
            b->wl[r->w].label, n, r->series_user * 1e3, r->series_sys * 1e3);
}

static void measure_all(struct bench *b)
{
    b->rows = xmalloc((size_t)b->n_wl * (size_t)b->o.n_threads * sizeof *b->rows);
    for (int w = 0; w < b->n_wl; w++)
        for (int t = 0; t < b->o.n_threads; t++)
            row_init(b, w, b->o.threads[t], &b->rows[b->n_rows++]);
    /* Each round runs every row once. A shared host's speed drifts by tens of percent over
     * minutes; with a row's repeats back to back, whichever row ran in a slow spell looked
     * slow (a trace and its native copy once differed by 40% that way). */
    b->round_even = xmalloc((size_t)b->o.repeats * sizeof *b->round_even);
    b->round_trip = xmalloc((size_t)b->o.repeats * sizeof *b->round_trip);
    b->pace = xmalloc((size_t)b->o.repeats * PACE_N * sizeof *b->pace);
    core_list(b);
    for (int rep = 0; rep < b->o.repeats; rep++) {
        core_round(b, rep);
        host_pace(b, rep);
        for (int i = 0; i < b->n_rows; i++) {
            struct row *r = &b->rows[i];
            if (!r->failed)
                r->failed = one_run(b, &b->wl[r->w], r, rep) != 0;
        }
    }
    if (b->n_core >= 2)
        core_summary(b);
    for (int i = 0; i < b->n_rows; i++) {
        struct row *r = &b->rows[i];
        if (r->failed)
            b->errors++;
        else
            summarise(r);
        if (!r->failed && r->threads == 1 && r->user < USER_TICK_S)
            user_series(b, r);
    }
    for (int i = 0; i < b->n_rows; i++)
        derive(b, &b->rows[i]);
}

/* ---------------------------------------------------------------- table */

static const char *fmt_count(uint64_t v, char *buf)
{
    char raw[32];
    int n = snprintf(raw, sizeof raw, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
    return buf;
}

/* Three significant digits with a K/M/G suffix: rates span six orders of magnitude. */
static const char *fmt_rate(double v, char *buf)
{
    static const char suffix[] = " KMG";
    int k = 0;
    while (v >= 1000 && k < 3)
        v /= 1000, k++;
    int prec = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    if (k == 0)
        snprintf(buf, 32, "%.0f", v);
    else
        snprintf(buf, 32, "%.*f%c", prec, v, suffix[k]);
    return buf;
}

static const char *fmt_opt(double v, const char *fmt, char *buf)
{
    if (isnan(v))
        snprintf(buf, 32, "–");
    else
        snprintf(buf, 32, fmt, v);
    return buf;
}

static const char *fmt_ref(const struct accel_ref *ref, char *buf)
{
    char rate[32];
    fmt_rate(ref->rate, rate);
    snprintf(buf, 64, "%s%s", rate,
             ref->macsim ? " (MacSim, wall)" : ref->warp_insts > 0 ? "" : " (paper)");
    return buf;
}

static void print_row(const struct bench *b, const struct row *r)
{
    const struct workload *w = &b->wl[r->w];
    char wi[32], cy[32], wr[32], cr[32], sp[32], ef[32], se[32], xa[32], xu[32], rr[32], ref[64];
    if (r->failed) {
        printf("| %s | %d | FAILED | | | | | | | | | | | | | |\n", w->label, r->threads);
        return;
    }
    printf("| %s | %d | %s | %s | %.3f | %.3f | %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s |\n",
           w->label, r->threads, fmt_count(r->winsts, wi), fmt_count(r->cycles, cy), r->wall,
           r->cpu, fmt_rate((double)r->winsts / r->wall, wr),
           fmt_rate((double)r->cycles / r->wall, cr), (double)r->rss_kb / 1024.0,
           fmt_opt(r->speedup, "%.2f", sp), fmt_opt(r->speedup / r->threads * 100, "%.0f%%", ef),
           fmt_opt(r->threads > 1 ? r->speedup_even : NAN, "%.2f", se),
           fmt_ref(w->ref, ref), fmt_opt(r->x_accel, "%.1f", xa),
           fmt_opt(r->x_accel_user, "%.1f", xu), fmt_opt(r->rss_ratio, "%.2f", rr));
}

/* The core check under the table: each core's time and speed, and the ceiling per thread
 * count asked for. */
static void print_cores(const struct bench *b)
{
    if (b->n_core < 2)
        return;
    int even = 0;
    for (int k = 0; k < b->o.repeats; k++)
        even += b->round_even[k] >= EVEN_CORES;
    printf("core check (%s pinned to each core at the start of every round; median CPU s):",
           CORE_CHECK_TRACE);
    for (int i = 0; i < b->n_core; i++)
        printf("%s cpu%d %.3f s (%.2f)", i ? "," : "", b->core_id[i], b->core_s[i], b->core_rel[i]);
    printf("\nslowest core over the fastest, per round:");
    for (int k = 0; k < b->o.repeats; k++)
        printf(" %.2f", b->round_even[k]);
    printf(" (%d of %d rounds at %.2f or more: \"even\")\nround trip of a cache line, cpu%d-cpu%d, "
           "per round (ns):", even, b->o.repeats, EVEN_CORES, b->core_id[0], b->core_id[1]);
    for (int k = 0; k < b->o.repeats; k++)
        printf(" %.0f", b->round_trip[k]);
    printf("\nwith the median speeds, no run can beat, over one thread on the fastest core:");
    for (int t = 0, first = 1; t < b->o.n_threads; t++)
        if (b->o.threads[t] > 1) {
            printf("%s %d threads %.2fx", first ? "" : ",", b->o.threads[t],
                   core_ceiling(b, b->o.threads[t]));
            first = 0;
        }
    printf("\n");
}

/* The host's pace per round (host_pace): the loads, the core's share, the clock. */
static void print_pace(const struct bench *b)
{
    static const char *const label[PACE_N - PACE_SIZES] = {
        "an iteration of 6 shift-add chains (3 cycles or more: 12 ALU operations, 4 ALUs)",
        "an iteration of a multiply-add chain (4 cycles)",
        "a CPUID instruction, in us (a trip to the hypervisor in a virtual machine; the C "
        "library's start-up runs dozens)",
        "the first touch of a new 2 MB huge page, in us (nan: the kernel gave none; every "
        "run's model sits in at least one)",
        "the first touch of a new 4 KB page, in us",
        "the start-up floor, in ms of CPU: `lockstep --version`, a process that only starts "
        "and exits (no row can cost less)"};
    printf("host pace, ns per round: one dependent load over a random cycle of 64-byte lines of");
    for (int i = 0; i < PACE_N; i++) {
        if (i < PACE_SIZES)
            printf("%s %zu MB", i ? ";" : "", pace_kb[i] / 1024);
        else
            printf("; %s", label[i - PACE_SIZES]);
        for (int k = 0; k < b->o.repeats; k++)
            printf(i < PACE_SIZES || i == PACE_HUGE ? " %.0f"
                   : i == PACE_START                ? " %.3f"
                                                    : " %.2f",
                   b->pace[(size_t)k * PACE_N + (size_t)i]);
    }
    printf("\n");
}

/* Issue 5's targets, read off the table: which one-thread rows are under 20x the peer's rate
 * (per CPU s, the user s figure beside it) or over a fifth of its peak RSS, and the large
 * workloads' speedup at two threads against 1.8x; so a reader need not scan 40 rows. */
static const double TARGET_X = 20, TARGET_RSS = 0.2, TARGET_TWO = 1.8;

static bool large_two(const struct bench *b, const struct row *r)
{
    return !r->failed && r->threads == 2 && !isnan(r->speedup) &&
           strncmp(b->wl[r->w].label, "large/", 6) == 0;
}

/* A one-thread row with a peer's rate to compare with. */
static bool rated(const struct row *r)
{
    return !r->failed && r->threads == 1 && !isnan(r->x_accel);
}

static bool compared(const struct bench *b, const struct row *r)
{
    return rated(r) && !b->wl[r->w].extra;
}

/* Rows outside the targets' set (the hand-made sample) still get their figure, apart; n: the
 * rows the targets line counted (none: no line before this one). */
static void print_extra(const struct bench *b, int n)
{
    int k = 0;
    for (int i = 0; i < b->n_rows; i++) {
        const struct row *r = &b->rows[i];
        if (!rated(r) || !b->wl[r->w].extra)
            continue;
        char xu[32];
        if (k++ == 0)
            printf("%snot one of issue 5's workloads (a hand-made format sample, neither a "
                   "shared trace nor a synth sample):", n ? "" : "\n");
        else
            printf(";");
        printf(" %s %.1f (%s per user s)", b->wl[r->w].label, r->x_accel,
               fmt_opt(r->x_accel_user, "%.1f", xu));
    }
    if (k)
        printf("\n");
}

static void print_targets(const struct bench *b)
{
    int n = 0, under = 0, rss_n = 0, rss_over = 0, two_n = 0;
    double rss_max = 0;
    for (int i = 0; i < b->n_rows; i++) {
        const struct row *r = &b->rows[i];
        n += compared(b, r);
        two_n += large_two(b, r);
        if (compared(b, r) && !isnan(r->rss_ratio)) {
            rss_n++;
            rss_over += r->rss_ratio > TARGET_RSS;
            rss_max = r->rss_ratio > rss_max ? r->rss_ratio : rss_max;
        }
    }
    if (n) {
        printf("\ntargets (issue 5): one thread at %.0fx the reference rate or more; under it:",
               TARGET_X);
        for (int i = 0; i < b->n_rows; i++) {
            const struct row *r = &b->rows[i];
            char xu[32];
            if (compared(b, r) && r->x_accel < TARGET_X)
                printf("%s %s %.1f (%s per user s)", under++ ? ";" : "", b->wl[r->w].label,
                       r->x_accel, fmt_opt(r->x_accel_user, "%.1f", xu));
        }
        printf("%s (%d of %d rows at %.0fx or more)\n", under ? "" : " none", n - under, n,
               TARGET_X);
    }
    print_extra(b, n);
    if (rss_n)
        printf("peak RSS at most %.1f of the reference's: %d of %d rows (largest %.2f)\n",
               TARGET_RSS, rss_n - rss_over, rss_n, rss_max);
    if (!two_n)
        return;
    printf("%stwo threads on the large workloads, against %.1fx:", n ? "" : "\n", TARGET_TWO);
    for (int i = 0, k = 0; i < b->n_rows; i++) {
        const struct row *r = &b->rows[i];
        if (large_two(b, r))
            printf("%s %s %.2f%s", k++ ? ";" : "", b->wl[r->w].label, r->speedup,
                   r->speedup >= TARGET_TWO ? "" : " (under)");
    }
    printf("\n");
}

static void print_table(const struct bench *b)
{
    printf("\n| workload | threads | warp insts | cycles | wall s | CPU s | warp-inst/s | "
           "cycles/s | peak RSS MB | speedup | efficiency | speedup, even cores | "
           "Accel-Sim warp-inst/s | × Accel-Sim rate | × (user s) | RSS ÷ Accel-Sim RSS |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < b->n_rows; i++)
        print_row(b, &b->rows[i]);
    printf("\nwall and CPU (user+sys) s: medians of %d runs; rates per median wall second; "
           "peak RSS: maximum over the runs.\nspeedup: median over rounds of the 1-thread wall "
           "time over this row's in the same round; even cores: the same over the rounds whose "
           "core check found the cores even.\n× Accel-Sim rate: 1-thread warp insts / median "
           "CPU s, divided by Accel-Sim's warp insts / user s (single-threaded;\n"
           "× (user s): the same per median user s, the reference's own definition; "
           "../shared/reference/README.md, +-30%%); synth samples against the paper's "
           "12.5K; MacSim traces against MacSim's runs of them, per wall s (our median wall s, "
           "their INST_COUNT_TOT / wall s, RSS against theirs).\n× (user s) of a run under %.0f ms of user time (ticks; JSON user_series): per "
           "the mean user s of more runs, together %.1f CPU s or more.\nload average at the "
           "end: %.2f (a busy host slows multi-thread runs most)\n",
           b->o.repeats, USER_TICK_S * 1e3, USER_SERIES_S, b->load_end);
    print_targets(b);
    print_cores(b);
    print_pace(b);
}

/* ---------------------------------------------------------------- JSON */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

/* n numbers, every stride-th of v, comma-separated (a JSON list's inside). */
static void json_nums(FILE *f, const double *v, int n, size_t stride)
{
    for (int k = 0; k < n; k++) {
        fputs(k ? ", " : "", f);
        json_num(f, v[(size_t)k * stride]);
    }
}

static void json_kv_num(FILE *f, const char *key, double v, const char *sep)
{
    fprintf(f, "\"%s\": ", key);
    json_num(f, v);
    fputs(sep, f);
}

static void json_host(FILE *f, const struct bench *b)
{
    fprintf(f, "  \"host\": {\"cores\": %ld, \"cpu\": ", b->cores);
    json_str(f, b->cpu_model);
    fputs(", \"date\": ", f);
    json_str(f, b->date);
    fputs(", \"git_head\": ", f);
    json_str(f, b->git);
    fputs(", ", f);
    json_kv_num(f, "load_average_start", b->load_start, ", ");
    json_kv_num(f, "load_average_end", b->load_end, "},\n  \"command\": ");
    json_str(f, b->command);
    fprintf(f, ",\n  \"repeats\": %d,\n  \"core_check\": {\"workload\": ", b->o.repeats);
    json_str(f, CORE_CHECK_TRACE);
    fputs(", \"cores\": [", f);
    for (int i = 0; i < b->n_core; i++) {
        fprintf(f, "%s{\"cpu\": %d, \"median_cpu_s\": %.6f, \"relative_speed\": %.4f, \"cpu_s\": [",
                i ? ", " : "", b->core_id[i], b->core_s[i], b->core_rel[i]);
        json_nums(f, b->core_round + i, b->o.repeats, (size_t)b->n_core);
        fputs("]}", f);
    }
    int checked = b->n_core >= 2 ? b->o.repeats : 0;
    fputs("], \"round_slowest_over_fastest\": [", f);
    json_nums(f, b->round_even, checked, 1);
    fputs("], \"round_trip_ns\": [", f);
    json_nums(f, b->round_trip, checked, 1);
    fprintf(f, "]},\n  \"host_pace\": {\"loads\": %d, \"sizes_kb\": [", PACE_LOADS);
    for (int i = 0; i < PACE_SIZES; i++)
        fprintf(f, "%s%zu", i ? ", " : "", pace_kb[i]);
    fputs("], \"load_ns_per_round\": [", f);
    for (int k = 0; k < b->o.repeats; k++) {
        fputs(k ? ", [" : "[", f);
        json_nums(f, b->pace + (size_t)k * PACE_N, PACE_SIZES, 1);
        fputs("]", f);
    }
    fputs("], \"alu_chains_ns_per_round\": [", f);
    json_nums(f, b->pace + PACE_ALU, b->o.repeats, PACE_N);
    fputs("], \"clock_chain_ns_per_round\": [", f);
    json_nums(f, b->pace + PACE_CLOCK, b->o.repeats, PACE_N);
    fputs("], \"cpuid_us_per_round\": [", f);
    json_nums(f, b->pace + PACE_CPUID, b->o.repeats, PACE_N);
    fputs("], \"huge_page_touch_us_per_round\": [", f);
    json_nums(f, b->pace + PACE_HUGE, b->o.repeats, PACE_N);
    fputs("], \"page_touch_us_per_round\": [", f);
    json_nums(f, b->pace + PACE_PAGE, b->o.repeats, PACE_N);
    fputs("], \"startup_cpu_ms_per_round\": [", f);
    json_nums(f, b->pace + PACE_START, b->o.repeats, PACE_N);
    fputs("]},\n  \"notes\": [", f);
    for (int i = 0; i < b->n_notes; i++) {
        fputs(i ? ", " : "", f);
        json_str(f, b->notes[i]);
    }
    fputs("],\n", f);
}

static void json_workload(FILE *f, const struct bench *b, const struct workload *w)
{
    char threads_arg[] = "--threads=N", *argv[MAX_ARGV];
    int n = build_argv(b, w, threads_arg, argv);
    fputs("\"workload\": ", f);
    json_str(f, w->label);
    fputs(", \"argv\": [", f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        json_str(f, argv[i]);
    }
    fprintf(f, "], \"in_issue5_targets\": %s, \"accelsim\": {\"ref\": ", w->extra ? "false" : "true");
    json_str(f, w->ref->name);
    bool run = w->ref->warp_insts > 0; /* a recorded run, not the paper's rate */
    fputs(", \"simulator\": ", f);
    json_str(f, w->ref->macsim ? "MacSim" : "Accel-Sim");
    fputs(", ", f);
    json_kv_num(f, "warp_insts", run ? w->ref->warp_insts : NAN, ", ");
    json_kv_num(f, w->ref->macsim ? "wall_s" : "user_s", run ? w->ref->user_s : NAN, ", ");
    json_kv_num(f, "warp_inst_per_s", w->ref->rate, ", ");
    json_kv_num(f, "peak_rss_mb", w->ref->rss_mb > 0 ? w->ref->rss_mb : NAN, "},\n     ");
}

static void json_runs(FILE *f, const struct row *r)
{
    fputs("\"runs\": [", f);
    for (int i = 0; i < r->n; i++) {
        const struct sample *s = &r->s[i];
        fprintf(f, "%s{\"wall_s\": %.6f, \"user_s\": %.6f, \"sys_s\": %.6f, \"rss_kb\": %ld}",
                i ? ", " : "", s->wall, s->user, s->sys, s->rss_kb);
    }
    fputs("]}", f);
}

static void json_row(FILE *f, const struct bench *b, const struct row *r)
{
    fputs("    {", f);
    json_workload(f, b, &b->wl[r->w]);
    fprintf(f, "\"threads\": %d, \"ok\": %s, ", r->threads, r->failed ? "false" : "true");
    if (!r->failed) {
        fprintf(f, "\"warp_insts\": %llu, \"cycles\": %llu, \"peak_rss_kb\": %ld, ",
                (unsigned long long)r->winsts, (unsigned long long)r->cycles, r->rss_kb);
        json_kv_num(f, "median_wall_s", r->wall, ", ");
        json_kv_num(f, "median_cpu_s", r->cpu, ", ");
        json_kv_num(f, "warp_inst_per_s", (double)r->winsts / r->wall, ", ");
        json_kv_num(f, "cycles_per_s", (double)r->cycles / r->wall, ", ");
        json_kv_num(f, "speedup", r->speedup, ", ");
        json_kv_num(f, "efficiency", r->speedup / r->threads, ", ");
        json_kv_num(f, "speedup_even_cores", r->threads > 1 ? r->speedup_even : NAN, ", ");
        fprintf(f, "\"rounds_even_cores\": %d, ", r->threads > 1 ? r->n_even : 0);
        json_kv_num(f, "core_ceiling", r->threads > 1 ? core_ceiling(b, r->threads) : NAN, ", ");
        json_kv_num(f, "x_accelsim_rate", r->x_accel, ", ");
        json_kv_num(f, "x_accelsim_rate_user", r->x_accel_user, ", ");
        if (r->series_n > 0) {
            fprintf(f, "\"user_series\": {\"runs\": %d, ", r->series_n);
            json_kv_num(f, "mean_user_s", r->series_user, ", ");
            json_kv_num(f, "mean_sys_s", r->series_sys, "}, ");
        }
        json_kv_num(f, "rss_over_accelsim", r->rss_ratio, ",\n     ");
    }
    json_runs(f, r);
}

/* Written under a temporary name and renamed, so a reader never sees half a file. */
static int write_json(const struct bench *b)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", b->o.json, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "lsbench: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    fputs("{\n", f);
    json_host(f, b);
    fprintf(f, "  \"ok\": %s,\n  \"rows\": [\n", b->errors ? "false" : "true");
    for (int i = 0; i < b->n_rows; i++) {
        json_row(f, b, &b->rows[i]);
        fputs(i + 1 < b->n_rows ? ",\n" : "\n", f);
    }
    fputs("  ]\n}\n", f);
    if (fclose(f) != 0 || rename(tmp, b->o.json) != 0) {
        fprintf(stderr, "lsbench: cannot write %s: %s\n", b->o.json, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- main */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void cleanup(struct bench *b)
{
    nftw(b->tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    for (int i = 0; i < b->n_wl; i++)
        free(b->wl[i].stats);
    for (int i = 0; i < b->n_rows; i++)
        free(b->rows[i].s);
    free(b->wl);
    free(b->rows);
    free(b->core_round);
    free(b->round_even);
    free(b->round_trip);
    free(b->pace);
}

static int setup(struct bench *b)
{
    if (access(b->o.bin, X_OK) != 0) {
        fprintf(stderr, "lsbench: %s is not executable (build it: make build/lockstep)\n",
                b->o.bin);
        return -1;
    }
    snprintf(b->tmpdir, sizeof b->tmpdir, "/tmp/lsbench.XXXXXX");
    if (!mkdtemp(b->tmpdir)) {
        fprintf(stderr, "lsbench: mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    snprintf(b->out_path, sizeof b->out_path, "%s/stdout", b->tmpdir);
    snprintf(b->err_path, sizeof b->err_path, "%s/stderr", b->tmpdir);
    return 0;
}

int main(int argc, char **argv)
{
    struct bench b = {0};
    int code = 0;
    if (argc == 2 && strcmp(argv[1], "--touch-probe") == 0)
        return touch_probe_main();
    b.cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (b.cores < 1)
        b.cores = 1;
    command_line(&b, argc, argv);
    if (parse_opts(&b.o, argc, argv, b.cores, &code) != 0)
        return code;
    if (setup(&b) != 0)
        return 2;
    host_facts(&b);
    print_header(&b);
    add_shared_traces(&b);
    add_macsim_traces(&b);
    add_samples(&b);
    add_large(&b);
    add_native_copies(&b);
    if (b.n_wl == 0)
        note(&b, "no workload to run");
    measure_all(&b);
    b.load_end = load_average();
    print_table(&b);
    if (write_json(&b) == 0)
        printf("JSON: %s\n", b.o.json);
    else
        b.errors++;
    if (b.errors)
        printf("\nlsbench: %d FAILURE(S): see the messages above (stderr)\n", b.errors);
    cleanup(&b);
    return b.errors ? 1 : 0;
}
