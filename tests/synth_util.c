/* Test helpers for synth workloads (see synth_util.h). */
#include "synth_util.h"

#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "trace/trace.h"

const char *sy_gen(const char *name, const char *params, int xz, synth_result *r)
{
    static char dir[512];
    static int seq;
    const synth_def *d = synth_find(name);
    if (!d) {
        test_fail_at(__FILE__, __LINE__, "no workload %s", name);
        return NULL;
    }
    synth_values sv;
    synth_values_init(&sv, d);
    base_err e = {0};
    char buf[512];
    snprintf(buf, sizeof buf, "%s", params);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq || (*eq = 0, synth_values_set(&sv, tok, eq + 1, &e) != 0)) {
            test_fail_at(__FILE__, __LINE__, "%s: bad parameter '%s': %s", name, tok, e.msg);
            return NULL;
        }
    }
    snprintf(dir, sizeof dir, "%s/synth-%s-%d", test_tmpdir(), name, seq++);
    synth_result tmp;
    if (synth_write(&sv, dir, xz, r ? r : &tmp, &e) != 0) {
        test_fail_at(__FILE__, __LINE__, "synth %s: %s", name, e.msg);
        return NULL;
    }
    return dir;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct units of `shift` bits touched by the lanes' [addr, addr+width). */
static uint64_t distinct_units(const uint64_t *a, unsigned n, unsigned width, int shift)
{
    uint64_t u[64];
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t lo = a[i] >> shift, hi = (a[i] + (width ? width : 1) - 1) >> shift;
        for (uint64_t x = lo; x <= hi && k < 64; x++)
            u[k++] = x;
    }
    qsort(u, k, sizeof *u, cmp_u64);
    uint64_t d = 0;
    for (unsigned i = 0; i < k; i++)
        d += i == 0 || u[i] != u[i - 1];
    return d;
}

static sy_pc *pc_slot(sy_prof *p, size_t *cap, const trace_sinst *s, const char *op)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->pcs[i].pc == s->pc && strcmp(p->pcs[i].op, op) == 0)
            return &p->pcs[i];
    base_grow(&p->pcs, cap, p->n + 1, sizeof *p->pcs);
    sy_pc *q = &p->pcs[p->n++];
    memset(q, 0, sizeof *q);
    q->pc = s->pc;
    q->sectors_min = UINT64_MAX;
    snprintf(q->op, sizeof q->op, "%s", op);
    return q;
}

static void add_inst(sy_prof *p, size_t *cap, size_t *acap, const trace_kernel *k,
                     const trace_cta *c, const trace_dinst *d, const char *prefix)
{
    const trace_sinst *s = trace_kernel_sinst(k, d->sidx);
    const char *op = trace_sinst_opcode(k, s);
    sy_pc *q = pc_slot(p, cap, s, op);
    unsigned n = (unsigned)__builtin_popcount(d->mask);
    q->execs++;
    q->threads += n;
    uint64_t buf[32];
    const uint64_t *a = trace_cta_addrs(c, d, buf);
    if (!a)
        return;
    uint64_t sec = distinct_units(a, n, s->width, 5);
    q->sectors += sec;
    q->lines += distinct_units(a, n, s->width, 7);
    if (sec < q->sectors_min)
        q->sectors_min = sec;
    if (sec > q->sectors_max)
        q->sectors_max = sec;
    if (prefix && strncmp(op, prefix, strlen(prefix)) == 0) {
        base_grow(&p->addrs, acap, p->naddrs + n, sizeof *p->addrs);
        memcpy(p->addrs + p->naddrs, a, n * sizeof *a);
        p->naddrs += n;
    }
}

int sy_profile(const char *dir, int kn, const char *addr_prefix, sy_prof *p)
{
    memset(p, 0, sizeof *p);
    base_err e = {0};
    trace_list l;
    if (trace_list_open(dir, &l, &e) != 0) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        return -1;
    }
    const char *path = NULL;
    int seen = 0;
    for (size_t i = 0; i < l.ncmds && !path; i++)
        if (l.cmds[i].kind == TRACE_CMD_KERNEL && ++seen == kn)
            path = l.cmds[i].path;
    trace_kernel *k = path ? trace_kernel_open(path, &e) : NULL;
    if (!k) {
        test_fail_at(__FILE__, __LINE__, "kernel %d of %s: %s", kn, dir, path ? e.msg : "none");
        trace_list_free(&l);
        return -1;
    }
    const trace_header *h = trace_kernel_header(k);
    snprintf(p->name, sizeof p->name, "%s", h->name);
    memcpy(p->grid, h->grid, sizeof p->grid);
    memcpy(p->block, h->block, sizeof p->block);
    p->shmem = h->shmem;
    trace_cta c = {0};
    size_t cap = 0, acap = 0;
    int rc;
    while ((rc = trace_next_cta(k, &c, &e)) == 1) {
        p->ctas++;
        p->warps += c.nwarps;
        for (size_t i = 0; i < c.ninsts; i++) {
            add_inst(p, &cap, &acap, k, &c, &c.insts[i], addr_prefix);
            p->warp_insts++;
            p->thread_insts += (uint64_t)__builtin_popcount(c.insts[i].mask);
        }
    }
    if (rc < 0)
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
    trace_cta_free(&c);
    trace_kernel_close(k);
    trace_list_free(&l);
    return rc < 0 ? -1 : 0;
}

void sy_prof_free(sy_prof *p)
{
    free(p->pcs);
    free(p->addrs);
    memset(p, 0, sizeof *p);
}

const sy_pc *sy_find(const sy_prof *p, const char *prefix, int nth)
{
    for (size_t i = 0; i < p->n; i++)
        if (strncmp(p->pcs[i].op, prefix, strlen(prefix)) == 0 && nth-- == 0)
            return &p->pcs[i];
    return NULL;
}

uint64_t sy_count(const sy_prof *p, const char *prefix)
{
    uint64_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (strncmp(p->pcs[i].op, prefix, strlen(prefix)) == 0)
            n += p->pcs[i].execs;
    return n;
}

uint64_t sy_distinct_addrs(sy_prof *p)
{
    qsort(p->addrs, p->naddrs, sizeof *p->addrs, cmp_u64);
    uint64_t d = 0;
    for (size_t i = 0; i < p->naddrs; i++)
        d += i == 0 || p->addrs[i] != p->addrs[i - 1];
    return d;
}

/* 1 when file `name` has the same bytes in both directories. */
static int same_file(const char *d1, const char *d2, const char *name)
{
    char a[700], b[700];
    size_t n1 = 0, n2 = 0;
    snprintf(a, sizeof a, "%s/%s", d1, name);
    snprintf(b, sizeof b, "%s/%s", d2, name);
    char *x = test_read_file(a, &n1), *y = test_read_file(b, &n2);
    int eq = x && y && n1 == n2 && memcmp(x, y, n1) == 0;
    free(x);
    free(y);
    return eq;
}

void sy_check_deterministic(const char *name, const char *params, int seeded)
{
    char d1[512], p[600], kf[64];
    synth_result r;
    const char *d = sy_gen(name, params, 0, &r);
    if (!d)
        return;
    snprintf(d1, sizeof d1, "%s", d);
    if (!(d = sy_gen(name, params, 0, NULL)))
        return;
    CHECK(same_file(d1, d, "kernelslist.g"));
    for (uint64_t k = 1; k <= r.kernels; k++) {
        snprintf(kf, sizeof kf, "kernel-%" PRIu64 ".traceg", k);
        if (!same_file(d1, d, kf))
            test_fail_at(__FILE__, __LINE__, "%s %s: %s differs between runs", name, params, kf);
    }
    if (!seeded)
        return;
    snprintf(p, sizeof p, "%s seed=12345", params);
    if ((d = sy_gen(name, p, 0, NULL)) != NULL)
        CHECK(!same_file(d1, d, "kernel-1.traceg"));
}
