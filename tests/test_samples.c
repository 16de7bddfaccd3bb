/* The bundled synth samples: every one passes trace check, and regenerating it from the
 * parameters recorded in its synth.txt gives the same trace text, so a committed sample can
 * never drift from the generator. The fresh copy is written uncompressed and compared with the
 * decompressed sample, so an xz library that compresses differently does not matter. */
#include "test.h"

#include <dirent.h>
#include <stdlib.h>

#include "base/base.h"
#include "base/rd.h"
#include "synth/synth.h"
#include "trace/trace.h"

#define SAMPLES "samples/synth"

/* Parses "name = value" lines of synth.txt into sv. */
static int load_params(const char *path, synth_values *sv)
{
    base_err e = {0};
    char *text = base_read_text(path, &e);
    if (!text) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        return -1;
    }
    int rc = -1;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *eq = strstr(l, " = ");
        if (l[0] == '#' || !eq)
            continue;
        *eq = 0;
        if (strcmp(l, "workload") == 0) {
            const synth_def *d = synth_find(eq + 3);
            if (!d)
                break;
            synth_values_init(sv, d);
            rc = 0;
        } else if (rc != 0 || synth_values_set(sv, l, eq + 3, &e) != 0) {
            test_fail_at(__FILE__, __LINE__, "%s: %s", path, e.msg);
            rc = -1;
            break;
        }
    }
    free(text);
    return rc;
}

/* Equal texts once every ".xz" of a is dropped (kernel names in the compressed list). */
static int same_text(const char *a, const char *b)
{
    base_err e = {0};
    char *x = base_read_text(a, &e), *y = base_read_text(b, &e);
    for (char *p = x; p && (p = strstr(p, ".xz")) != NULL;)
        memmove(p, p + 3, strlen(p + 3) + 1);
    int same = x && y && strcmp(x, y) == 0;
    if (!same)
        test_fail_at(__FILE__, __LINE__, "%s and %s differ", a, b);
    free(x);
    free(y);
    return same;
}

static void check_sample(const char *name)
{
    char dir[512], path[600], fresh[600], a[700], b[700];
    snprintf(dir, sizeof dir, SAMPLES "/%s", name);
    snprintf(path, sizeof path, "%s/synth.txt", dir);
    base_err e = {0};
    if (trace_check(dir, NULL, &e) != 0)
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
    synth_values sv;
    if (load_params(path, &sv) != 0)
        return;
    snprintf(fresh, sizeof fresh, "%s/sample-%s", test_tmpdir(), name);
    synth_result r;
    if (synth_write(&sv, fresh, 0, &r, &e) != 0) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        return;
    }
    snprintf(a, sizeof a, "%s/kernelslist.g", dir);
    snprintf(b, sizeof b, "%s/kernelslist.g", fresh);
    same_text(a, b);
    for (uint64_t k = 1; k <= r.kernels; k++) {
        snprintf(a, sizeof a, "%s/kernel-%" PRIu64 ".traceg.xz", dir, k);
        snprintf(b, sizeof b, "%s/kernel-%" PRIu64 ".traceg", fresh, k);
        same_text(a, b);
    }
}

TEST(samples_regenerate_identically)
{
    DIR *d = opendir(SAMPLES);
    CHECK(d != NULL);
    if (!d)
        return;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        check_sample(de->d_name);
        n++;
    }
    closedir(d);
    CHECK_EQ(n, (long long)synth_count()); /* one sample per workload */
}
