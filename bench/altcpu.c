/* altcpu: CPU time of short commands, measured in alternation.
 *
 *   build/altcpu [--core C] N CMD1 ... [;; CMD2 ...] ...
 *
 * Runs the commands one after another, N rounds, each as a child process (posix_spawn, its
 * output to /dev/null) pinned to core C (default 1), and prints per command the median CPU
 * time (user + sys, from wait4) and the mean user time. Made for runs of a few milliseconds,
 * where the host's pace drifts by tens of percent from one minute to the next: alternating puts
 * every command in the same minutes, and a small parent spawns its children in microseconds
 * (a Python harness's children took 7 ms more each). Exit status 1 when a child fails. */

#include <fcntl.h>
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

/* One run of argv; its CPU and user ms into *cpu, *user. Returns 0, or -1 if it failed. */
static int run_one(char **argv, double *cpu, double *user)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) ||
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) ||
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0))
        return -1;
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return -1;
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
        return -1;
    *user = ms(ru.ru_utime);
    *cpu = *user + ms(ru.ru_stime);
    return 0;
}

int main(int argc, char **argv)
{
    int a = 1, core = 1;
    if (a + 1 < argc && !strcmp(argv[a], "--core"))
        core = atoi(argv[a + 1]), a += 2;
    int n = a < argc ? atoi(argv[a++]) : 0;
    if (n < 1 || a >= argc) {
        fprintf(stderr, "usage: altcpu [--core C] N CMD1 ARGS... [;; CMD2 ARGS...] ...\n");
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
