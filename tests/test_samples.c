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

/* SIMT sanity of one CTA: every warp has instructions, every existing thread exits exactly
 * once and runs nothing after its EXIT, and all warps execute the same number of barriers
 * (what Accel-Sim needs to run the trace without deadlock or assertion). */
static int check_cta_liveness(const trace_kernel *k, const trace_cta *c, uint32_t threads)
{
    int bars = -1;
    for (uint32_t w = 0; w < c->nwarps; w++) {
        const trace_warp *tw = &c->warps[w];
        uint32_t left = threads - w * 32, exists = left >= 32 ? 0xffffffffu : (1u << left) - 1;
        uint32_t alive = exists;
        int nbar = 0;
        if (tw->n == 0)
            return -1;
        for (uint32_t i = tw->first; i < tw->first + tw->n; i++) {
            const trace_dinst *d = &c->insts[i];
            const trace_sinst *si = trace_kernel_sinst(k, d->sidx);
            const char *op = trace_sinst_opcode(k, si);
            if (d->mask & ~alive)
                return -2;
            if (strncmp(op, "EXIT", 4) == 0)
                alive &= ~d->mask;
            nbar += strncmp(op, "BAR", 3) == 0;
        }
        if (alive != 0)
            return -3;
        if (bars >= 0 && nbar != bars)
            return -4;
        bars = nbar;
    }
    return 0;
}

TEST(samples_threads_exit_once_and_barriers_match)
{
    static const char *const why[] = {"", "a warp without instructions",
                                      "a lane runs after its EXIT or beyond the block",
                                      "a thread never exits", "warps disagree on barriers"};
    for (size_t i = 0; i < synth_count(); i++) {
        char dir[300];
        snprintf(dir, sizeof dir, SAMPLES "/%s", synth_at(i)->name);
        base_err e = {0};
        trace_list l;
        if (trace_list_open(dir, &l, &e) != 0) {
            test_fail_at(__FILE__, __LINE__, "%s", e.msg);
            continue;
        }
        for (size_t j = 0; j < l.ncmds; j++) {
            if (l.cmds[j].kind != TRACE_CMD_KERNEL)
                continue;
            trace_kernel *k = trace_kernel_open(l.cmds[j].path, &e);
            trace_cta c = {0};
            int rc = 0;
            while (k && rc == 0 && trace_next_cta(k, &c, &e) == 1) {
                rc = check_cta_liveness(k, &c, trace_kernel_header(k)->threads_per_cta);
                if (rc)
                    test_fail_at(__FILE__, __LINE__, "%s CTA %" PRIu64 ": %s", l.cmds[j].path,
                                 c.index, why[-rc]);
            }
            CHECK(k != NULL);
            trace_cta_free(&c);
            trace_kernel_close(k);
        }
        trace_list_free(&l);
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
