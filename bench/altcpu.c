/* altcpu: CPU time of short commands, measured in alternation.
 *
 *   build/altcpu [--core C] N CMD1 ... [;; CMD2 ...] ...
 *
 * Runs the commands one after another, N rounds, each as a child process (posix_spawn, its
 * output to /dev/null) pinned to core C (default 1), and prints per command the median CPU
 * time (user + sys, from wait4) and the mean user time. Made for runs of a few milliseconds,
 * where the host's pace drifts by tens of percent from one minute to the next: alternating puts
 * every command in the same minutes, and a small parent spawns its children in microseconds
 * (a Python harness's children took 7 ms more each). Exit status 1 when a child fails.
 *
 *   build/altcpu --busy N CMD ...
 *
 * What running on every core at once costs CMD: each of N rounds runs it pinned to each core
 * of this process's affinity alone, one after another, then a copy pinned to every core at
 * the same time, and prints per core the median CPU time alone and busy, and the median over
 * the rounds of the sum, over the cores, of the round's fastest time alone over each core's
 * time busy: what a parallel run of CMD's work on all those cores could gain at most over
 * one thread on the fastest, before any cost of its own. Cores alone at full speed can slow
 * each other through what the host shares between them (memory bandwidth, the last-level
 * cache, a hypervisor's other tenants), a memory-bound run most. */

#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

#define MAX_CMDS 32

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double ms(struct timeval t) { return (double)t.tv_sec * 1e3 + (double)t.tv_usec / 1e3; }

/* Starts argv with its output to /dev/null, on the cores this process may use; its pid, or
 * -1. */
static pid_t spawn_quiet(char **argv)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa))
        return -1;
    pid_t pid;
    int ok = !posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) &&
             !posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0) &&
             !posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return ok ? pid : -1;
}

/* Waits for pid; its CPU and user ms into *cpu, *user. Returns 0, or -1 if it failed. */
static int wait_times(pid_t pid, double *cpu, double *user)
{
    int st;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
        return -1;
    *user = ms(ru.ru_utime);
    *cpu = *user + ms(ru.ru_stime);
    return 0;
}

/* One run of argv; its CPU and user ms into *cpu, *user. Returns 0, or -1 if it failed. */
static int run_one(char **argv, double *cpu, double *user)
{
    return wait_times(spawn_quiet(argv), cpu, user);
}

/* Starts argv pinned to core; its pid, or -1. */
static pid_t spawn_on(char **argv, int core)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    return sched_setaffinity(0, sizeof set, &set) ? -1 : spawn_quiet(argv);
}

/* pid's CPU ms (user + sys), or -1 when it failed. */
static double wait_cpu(pid_t pid)
{
    double cpu, user;
    return wait_times(pid, &cpu, &user) ? -1 : cpu;
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_CORES 256

/* One round of --busy: alone[i] and busy[i] for each of the nc cores, and the round's
 * ceiling (its fastest time alone over each core's busy time, summed). -1 on a failure. */
static double busy_round(char **argv, const int *cores, int nc, double *alone, double *busy)
{
    double best = INFINITY, sum = 0;
    pid_t pid[MAX_CORES];
    for (int i = 0; i < nc; i++) {
        if ((alone[i] = wait_cpu(spawn_on(argv, cores[i]))) <= 0)
            return -1;
        best = alone[i] < best ? alone[i] : best;
    }
    for (int i = 0; i < nc; i++)
        pid[i] = spawn_on(argv, cores[i]);
    int bad = 0;
    for (int i = 0; i < nc; i++) /* every child is waited for, failed or not */
        bad |= (busy[i] = wait_cpu(pid[i])) <= 0;
    for (int i = 0; i < nc && !bad; i++)
        sum += best / busy[i];
    return bad ? -1 : sum;
}

static int busy_main(int n, char **argv)
{
    cpu_set_t set;
    int cores[MAX_CORES], nc = 0;
    if (sched_getaffinity(0, sizeof set, &set))
        return perror("altcpu: sched_getaffinity"), 2;
    for (int c = 0; c < CPU_SETSIZE && nc < MAX_CORES; c++)
        if (CPU_ISSET(c, &set))
            cores[nc++] = c;
    double *alone = calloc((size_t)n * nc, sizeof *alone), *busy = calloc((size_t)n * nc, sizeof *busy);
    double *ceil = calloc((size_t)n, sizeof *ceil), *v = calloc((size_t)n, sizeof *v);
    if (!alone || !busy || !ceil || !v)
        return 2;
    for (int r = 0; r < n; r++)
        if ((ceil[r] = busy_round(argv, cores, nc, alone + (size_t)r * nc, busy + (size_t)r * nc)) < 0) {
            fprintf(stderr, "altcpu: %s failed in round %d\n", argv[0], r + 1);
            return 1;
        }
    for (int i = 0; i < nc; i++) {
        for (int r = 0; r < n; r++)
            v[r] = alone[(size_t)r * nc + i];
        double a = median_of(v, n);
        for (int r = 0; r < n; r++)
            v[r] = busy[(size_t)r * nc + i];
        printf("cpu%d: %8.3f ms CPU alone, %8.3f ms with every core busy (medians)\n", cores[i], a,
               median_of(v, n));
    }
    double c = median_of(ceil, n);
    printf("%d cores busy at once: each round's fastest time alone over each core's time busy, "
           "summed: %.2f (median of %d rounds, range %.2f-%.2f)\n", nc, c, n, ceil[0], ceil[n - 1]);
    free(alone);
    free(busy);
    free(ceil);
    free(v);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 3 && !strcmp(argv[1], "--busy") && atoi(argv[2]) > 0)
        return busy_main(atoi(argv[2]), &argv[3]);
    int a = 1, core = 1;
    if (a + 1 < argc && !strcmp(argv[a], "--core"))
        core = atoi(argv[a + 1]), a += 2;
    int n = a < argc ? atoi(argv[a++]) : 0;
    if (n < 1 || a >= argc) {
        fprintf(stderr, "usage: altcpu [--core C] N CMD1 ARGS... [;; CMD2 ARGS...] ...\n"
                        "       altcpu --busy N CMD ARGS...\n");
        return 2;
    }
    char **cmd[MAX_CMDS];
    int nc = 0;
    cmd[nc++] = &argv[a];
    for (int i = a; i < argc; i++)
        if (!strcmp(argv[i], ";;") && nc < MAX_CMDS) {
            argv[i] = NULL;
            cmd[nc++] = &argv[i + 1];
        }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    if (sched_setaffinity(0, sizeof set, &set))
        perror("altcpu: sched_setaffinity (running unpinned)");
    double *cpu = calloc((size_t)n * nc, sizeof *cpu), *user = calloc((size_t)n * nc, sizeof *user);
    if (!cpu || !user)
        return 2;
    for (int r = 0; r < n; r++)
        for (int k = 0; k < nc; k++)
            if (!cmd[k][0] || run_one(cmd[k], &cpu[k * n + r], &user[k * n + r])) {
                fprintf(stderr, "altcpu: command %d failed (%s)\n", k + 1,
                        cmd[k][0] ? cmd[k][0] : "empty");
                return 1;
            }
    for (int k = 0; k < nc; k++) {
        double sum = 0;
        for (int r = 0; r < n; r++)
            sum += user[k * n + r];
        qsort(cpu + (size_t)k * n, (size_t)n, sizeof *cpu, cmp_double);
        printf("%8.3f ms CPU (median)  %8.3f ms user (mean)  ", cpu[k * n + n / 2], sum / n);
        for (char **p = cmd[k]; *p; p++)
            printf(" %s", *p);
        printf("\n");
    }
    free(cpu);
    free(user);
    return 0;
}
