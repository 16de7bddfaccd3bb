#include "sim_util.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void su_knobs(knob_cfg *c)
{
    knob_init(c);
    c->v.kernel_launch_latency = 0;
    c->v.watchdog_cycles = 20000;
}

static void header(su_kernel *k, uint32_t ctas, uint32_t threads, uint64_t shmem, uint64_t stream)
{
    base_err e = {0};
    k->threads = threads;
    k->warps = (threads + 31) / 32;
    k->ctas = 0;
    trace_wheader h = {0};
    h.name = "_Z4testv";
    h.grid[0] = ctas, h.grid[1] = h.grid[2] = 1;
    h.block[0] = threads, h.block[1] = h.block[2] = 1;
    h.shmem = shmem;
    h.nregs = 32;
    h.binary_version = 86;
    h.stream_id = stream;
    h.shmem_base = 0x7f0000000000ull;
    h.local_base = 0x7e0000000000ull;
    if (trace_wdir_kernel_begin(k->d, &h, &e))
        base_panic("su_begin: %s", e.msg);
}

void su_begin(su_kernel *k, const char *tag, uint32_t ctas, uint32_t threads, uint64_t shmem)
{
    memset(k, 0, sizeof *k);
    snprintf(k->dir, sizeof k->dir, "/tmp/lockstep-su-%d-%s", (int)getpid(), tag);
    base_err e = {0};
    k->d = trace_wdir_open(k->dir, 0, &e);
    if (!k->d)
        base_panic("su_begin: %s", e.msg);
    header(k, ctas, threads, shmem, 0);
}

void su_next_kernel(su_kernel *k, uint32_t ctas, uint32_t threads, uint64_t stream)
{
    base_err e = {0};
    if (trace_wdir_kernel_end(k->d, &e))
        base_panic("su_next_kernel: %s", e.msg);
    header(k, ctas, threads, 0, stream);
}

void su_cta_begin(su_kernel *k)
{
    trace_wdir_cta_begin(k->d, k->ctas++, 0, 0);
    for (uint32_t w = 0; w < k->warps; w++) {
        k->text[w].len = 0;
        if (k->text[w].s)
            k->text[w].s[0] = 0;
        k->n[w] = 0;
    }
}

void su_line(su_kernel *k, uint32_t w, uint32_t mask, int dst, const char *op, const int *srcs,
             uint32_t width, const uint64_t *addr)
{
    trace_wline l = {0};
    l.pc = k->n[w] * 16;
    l.mask = mask;
    if (dst >= 0)
        l.ndst = 1, l.dst = (uint16_t)dst;
    for (int i = 0; srcs && srcs[i] >= 0 && i < 4; i++)
        l.src[l.nsrc++] = (uint16_t)srcs[i];
    l.opcode = op;
    l.width = width;
    l.addr = addr;
    trace_format_line(&k->text[w], &l);
    k->n[w]++;
}

void su_alu(su_kernel *k, uint32_t w, const char *op, int dst, int s1, int s2)
{
    int srcs[3] = {s1, s2, -1};
    su_line(k, w, 0xffffffffu, dst, op, srcs, 0, NULL);
}

void su_exit(su_kernel *k, uint32_t w) { su_line(k, w, 0xffffffffu, -1, "EXIT", NULL, 0, NULL); }

void su_cta_end(su_kernel *k)
{
    for (uint32_t w = 0; w < k->warps; w++)
        trace_wdir_warp(k->d, w, k->n[w], k->text[w].s ? k->text[w].s : "", k->text[w].len);
    trace_wdir_cta_end(k->d);
}

void su_end(su_kernel *k)
{
    base_err e = {0};
    if (trace_wdir_kernel_end(k->d, &e) || trace_wdir_commit(k->d, &e))
        base_panic("su_end: %s", e.msg);
    for (uint32_t w = 0; w < 64; w++)
        base_buf_free(&k->text[w]);
}

int su_run(const char *dir, const knob_cfg *c, sim_result *r, base_err *e)
{
    trace_list l;
    if (trace_list_open(dir, &l, e))
        return -1;
    sim *g = sim_new(&c->v, e);
    if (!g) {
        trace_list_free(&l);
        return -1;
    }
    FILE *diag = fopen("/dev/null", "w");
    int rc = sim_run(g, &l, r, diag, NULL, e);
    if (rc == 0 && r->ledger < 0) /* every whole-run test checks the ledger too */
        rc = base_fail(e, BASE_EXIT_INTERNAL, "the statistics do not balance: %s", r->ledger_why);
    fclose(diag);
    sim_free(g);
    trace_list_free(&l);
    return rc;
}

uint64_t su_total(const sim_result *r, const char *set, const char *name)
{
    const stat_block *b = !strcmp(set, "sm")     ? &r->total.sm
                          : !strcmp(set, "l1d")  ? &r->total.l1d
                          : !strcmp(set, "l2")   ? &r->total.l2
                          : !strcmp(set, "dram") ? &r->total.dram
                                                 : &r->total.part;
    return stat_get(b, name);
}

void su_rmdir(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
}

unsigned long long su_profile_tasks(const char *line, unsigned threads)
{
    unsigned long long tasks = 0, v, stolen;
    double secs;
    unsigned id;
    int used;
    const char *q = strstr(line, "stolen:");
    CHECK(q != NULL);
    if (!q)
        return 0;
    q += 7;
    for (unsigned i = 0; i < threads; i++, q += used) {
        CHECK(sscanf(q, " %u: %lf/%llu/%llu%n", &id, &secs, &v, &stolen, &used) == 4);
        CHECK_EQ(id, i);
        CHECK(stolen <= v);
        tasks += v;
    }
    return tasks;
}

long long su_ff_cycles(const char *out)
{
    const char *r = strstr(out, "# simulation rate");
    const char *f = r ? strstr(r, " cycles fast-forwarded") : NULL;
    if (!f)
        return -1;
    while (f > r && f[-1] >= '0' && f[-1] <= '9')
        f--;
    long long n = -1;
    return sscanf(f, "%lld", &n) == 1 ? n : -1;
}

uint64_t su_out_stat(const char *out, const char *name)
{
    char key[160];
    unsigned long long v;
    snprintf(key, sizeof key, "\n%s = ", name);
    const char *t = out ? strstr(out, key) : NULL;
    return t && sscanf(t + strlen(key), "%llu", &v) == 1 ? (uint64_t)v : UINT64_MAX;
}
