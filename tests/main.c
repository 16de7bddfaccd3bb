/* Test runner: runs every registered test (or those whose name contains argv[1]). */
#define _GNU_SOURCE
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    const char *name, *file;
    test_fn fn;
} test_case;

static test_case *cases;
static int ncases, capcases;
static int cur_failed, cur_skipped;
static char *garbage[1024]; /* outputs of test_lockstep, freed after each test */
static int ngarbage;
static char tmpdir[256];

void test_register(const char *name, const char *file, test_fn fn)
{
    if (ncases == capcases) {
        capcases = capcases ? capcases * 2 : 64;
        cases = realloc(cases, (size_t)capcases * sizeof *cases);
    }
    cases[ncases++] = (test_case){name, file, fn};
}

void test_fail_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "  %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    cur_failed++;
}

void test_skip(const char *why)
{
    if (!cur_skipped)
        printf("  skipped: %s\n", why);
    cur_skipped = 1;
}

const char *test_shared(void)
{
    static char path[512];
    const char *env = getenv("LOCKSTEP_SHARED");
    snprintf(path, sizeof path, "%s", env && *env ? env : "../shared");
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    return path;
}

const char *test_shared_path(const char *rel)
{
    static char path[1024];
    const char *s = test_shared();
    if (!s) {
        test_skip("../shared is not beside the checkout");
        return NULL;
    }
    snprintf(path, sizeof path, "%s/%s", s, rel);
    return path;
}

const char *test_bin(void)
{
    const char *env = getenv("LOCKSTEP_BIN");
    return env && *env ? env : "build/lockstep";
}

const char *test_tmpdir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/lockstep-test.XXXXXX");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(1);
        }
    }
    return tmpdir;
}

const char *test_write_file(const char *name, const void *data, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
    char *slash = strrchr(path, '/');
    if (slash && slash > path + strlen(tmpdir)) {
        char dir[512];
        snprintf(dir, sizeof dir, "mkdir -p '%.*s'", (int)(slash - path), path);
        if (system(dir) != 0)
            test_fail_at(__FILE__, __LINE__, "cannot create directory for %s", path);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n) {
        test_fail_at(__FILE__, __LINE__, "cannot write %s", path);
    }
    if (f)
        fclose(f);
    return path;
}

const char *test_write_text(const char *name, const char *text)
{
    return test_write_file(name, text, strlen(text));
}

char *test_read_file(const char *path, size_t *n)
{
    if (n)
        *n = 0; /* also on failure, so callers' lengths are always set */
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, got;
    char *s = malloc(cap + 1);
    while ((got = fread(s + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap)
            s = realloc(s, (cap *= 2) + 1);
    }
    fclose(f);
    s[len] = 0;
    if (n)
        *n = len;
    return s;
}

static char *slurp(const char *path)
{
    char *s = test_read_file(path, NULL);
    return s ? s : strdup("");
}

test_proc test_lockstep(const char *fmt, ...)
{
    char args[4096], cmd[8192], outp[600], errp[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(outp, sizeof outp, "%s/.stdout", test_tmpdir());
    snprintf(errp, sizeof errp, "%s/.stderr", test_tmpdir());
    snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s </dev/null", test_bin(), args, outp, errp);
    int st = system(cmd);
    test_proc p;
    p.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    p.out = slurp(outp);
    p.err = slurp(errp);
    if (ngarbage + 2 <= (int)(sizeof garbage / sizeof garbage[0])) {
        garbage[ngarbage++] = p.out;
        garbage[ngarbage++] = p.err;
    }
    return p;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < ncases; i++) {
        if (filter && !strstr(cases[i].name, filter))
            continue;
        cur_failed = cur_skipped = 0;
        printf("%s\n", cases[i].name);
        fflush(stdout);
        cases[i].fn();
        for (int k = 0; k < ngarbage; k++)
            free(garbage[k]);
        ngarbage = 0;
        if (cur_failed) {
            printf("FAIL %s\n", cases[i].name);
            failed++;
        } else if (cur_skipped) {
            skipped++;
        } else {
            passed++;
        }
        fflush(stdout);
    }
    if (tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "cannot remove %s\n", tmpdir);
    }
    free(cases);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
