/* trace: whole traces. The bundled sample (counted by hand), an xz round trip, bad kernel lists,
 * and every Accel-Sim trace in ../shared against the reference totals in summary.tsv. */
#include "test.h"

#include "trace/trace.h"

#include <lzma.h>
#include <stdlib.h>

TEST(trace_sample_counts)
{
    trace_summary s;
    base_err e = {0};
    if (trace_summarize("samples/vecadd_sm80", &s, &e)) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        return;
    }
    /* 7 full warps x 16 lines + the partial warp's 16; threads: 7 x (15 x 32) + 5 x 32 + 6
     * (early EXIT) + 10 x 26 (see samples/README.md) */
    CHECK_EQ(s.kernels, 1);
    CHECK_EQ(s.ctas, 4);
    CHECK_EQ(s.warps, 8);
    CHECK_EQ(s.warp_insts, 128);
    CHECK_EQ(s.thread_insts, 7 * 15 * 32 + 5 * 32 + 6 + 10 * 26);
    CHECK_EQ(s.memcpys, 2);
    CHECK_EQ(s.memcpy_bytes, 2000);
    CHECK_EQ(s.others, 0);
}

TEST(trace_xz_round_trip)
{
    size_t n;
    char *plain = test_read_file("samples/vecadd_sm80/kernel-1.traceg", &n);
    CHECK(plain != NULL);
    if (!plain)
        return;
    size_t cap = n + n / 2 + 4096, out = 0;
    uint8_t *xz = malloc(cap);
    CHECK_EQ(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, (const uint8_t *)plain, n, xz,
                                     &out, cap), LZMA_OK);
    test_write_file("xz/kernel-1.traceg.xz", xz, out);
    const char *list = "MemcpyHtoD,0x00007f1a2c000000,1000\nkernel-1.traceg.xz\n";
    const char *lp = test_write_file("xz/kernelslist.g", list, strlen(list));
    trace_summary a, b;
    base_err e = {0};
    CHECK_EQ(trace_summarize("samples/vecadd_sm80", &a, &e), 0);
    CHECK_EQ(trace_summarize(lp, &b, &e), 0);
    CHECK_EQ(b.warp_insts, a.warp_insts);
    CHECK_EQ(b.thread_insts, a.thread_insts);
    CHECK_EQ(b.ctas, a.ctas);
    /* truncated xz stream: an error with the file name, not a crash */
    const char *tp = test_write_file("xz/kernel-2.traceg.xz", xz, out / 2);
    CHECK_EQ(trace_summarize(tp, &b, &e), -1);
    CHECK_HAS(e.msg, "kernel-2.traceg.xz");
    free(xz);
    free(plain);
}

TEST(trace_info_and_check_output)
{
    char *path = base_sprintf("%s/info.txt", test_tmpdir());
    FILE *f = fopen(path, "w+");
    base_err e = {0};
    CHECK_EQ(trace_info("samples/vecadd_sm80", f, 0, &e), 0);
    CHECK_EQ(trace_info("samples/vecadd_sm80", f, 1, &e), 0);
    CHECK_EQ(trace_check("samples/vecadd_sm80", f, &e), 0);
    fflush(f);
    size_t n;
    char *s = test_read_file(path, &n);
    CHECK_HAS(s, "kernel1.name = _Z6vecAddPKfS0_Pfi\n");
    CHECK_HAS(s, "kernel1.grid = (4,1,1)\n");
    CHECK_HAS(s, "kernel1.family = ampere\n");
    CHECK_HAS(s, "total.warp_insts = 128\n");
    CHECK_HAS(s, "total.thread_insts = 3786\n");
    CHECK_HAS(s, "total.class_warp[uniform] = 8\n");
    CHECK_HAS(s, "total.mem_thread[global_ld] = 500\n");
    CHECK_HAS(s, "total.mem_thread[global_st] = 250\n");
    CHECK_HAS(s, "memcpy.line1 = 0x00007f1a2c000000 1000\n");
    CHECK_HAS(s, "\"warp_insts\"");
    CHECK_HAS(s, "samples/vecadd_sm80: ok: 1 kernels, 4 CTAs, 128 warp instructions, 3786 thread "
                 "instructions, 2 memcpys (2000 bytes), 0 other commands\n");
    fclose(f);
    free(s);
    free(path);
}

TEST(trace_list_with_missing_kernel_and_other_commands)
{
    const char *list = "MemcpyDtoH,0x10,4\nkernel-1.traceg\nkernel-9.traceg\n";
    size_t n = 0;
    char *k = test_read_file("samples/vecadd_sm80/kernel-1.traceg", &n);
    test_write_file("miss/kernel-1.traceg", k, n);
    const char *lp = test_write_file("miss/kernelslist.g", list, strlen(list)); /* static buffer */
    trace_summary s;
    base_err e = {0};
    CHECK_EQ(trace_summarize(lp, &s, &e), -1);
    CHECK_HAS(e.msg, "miss/kernelslist.g:3: ");
    CHECK_HAS(e.msg, "miss/kernel-9.traceg: cannot open");
    list = "MemcpyDtoH,0x10,4\nkernel-1.traceg\n";
    lp = test_write_file("miss/kernelslist.g", list, strlen(list));
    CHECK_EQ(trace_summarize(lp, &s, &e), 0);
    CHECK_EQ(s.others, 1);
    CHECK_EQ(s.warp_insts, 128);
    free(k);
}

/* ---- ../shared ---- */

typedef struct {
    const char *dir, *run;  /* trace directory, summary.tsv run name */
} shared_trace;

static const shared_trace SHARED[] = {
    {"vectoradd_sm80_v5", "vectoradd_sm80_RTX3070"},
    {"ffma_sm90_v5", "ffma_sm90as86_RTX3070"},
    {"vectoradd100_sm61_v4", "vectoradd100_sm61_TITANX"},
    {"matrixmul32_sm61_v4", "matrixmul32_sm61_TITANX"},
    {"vecadd_sm61_v3", "vecadd_sm61_TITANX"},
};

/* Value of column `col` in the TOTAL row of run `run` of summary.tsv; -1 when absent. */
static long long tsv_value(const char *tsv, const char *run, const char *col)
{
    FILE *f = fopen(tsv, "r");
    if (!f)
        return -1;
    char line[8192], *hdr[64], *cell[64];
    char head[8192];
    int nh = 0, want = -1;
    long long v = -1;
    if (fgets(head, sizeof head, f)) {
        for (char *t = strtok(head, "\t\n"); t && nh < 64; t = strtok(NULL, "\t\n"))
            hdr[nh++] = t;
    }
    for (int i = 0; i < nh; i++)
        if (!strcmp(hdr[i], col))
            want = i;
    while (want >= 0 && fgets(line, sizeof line, f)) {
        int nc = 0;
        cell[nc++] = line;
        for (char *q = line; *q && nc < 64; q++) {
            if (*q == '\t' || *q == '\n') {
                *q = 0;
                cell[nc++] = q + 1;
            }
        }
        if (nc > want && nc > 2 && !strcmp(cell[0], run) && !strcmp(cell[2], "TOTAL")) {
            v = atoll(cell[want]);
            break;
        }
    }
    fclose(f);
    return v;
}

/* Independent count: sum of "insts = n" lines and popcount of each instruction line's mask,
 * with sscanf instead of the reader. */
static void hand_count(const char *path, int mask_field, uint64_t *w, uint64_t *t)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    *w = *t = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long long n;
        char a[64], b[64];
        if (sscanf(line, "insts = %llu", &n) == 1)
            *w += n;
        else if (line[0] >= '0' && line[0] <= '9' && sscanf(line, "%63s %63s", a, b) == 2)
            *t += (uint64_t)__builtin_popcountll(strtoull(mask_field == 1 ? b : a, NULL, 16));
    }
    if (f)
        fclose(f);
}

static void check_shared(const shared_trace *st)
{
    char dir[600], tsv[600];
    const char *p = test_shared_path("traces/accelsim");
    if (!p)
        return;
    snprintf(dir, sizeof dir, "%s/%s", p, st->dir);
    snprintf(tsv, sizeof tsv, "%s/reference/accelsim/summary.tsv", test_shared());
    trace_summary s;
    base_err e = {0};
    if (trace_summarize(dir, &s, &e)) {
        test_fail_at(__FILE__, __LINE__, "%s: %s", st->dir, e.msg);
        return;
    }
    long long w = tsv_value(tsv, st->run, "warp_insts");
    long long t = tsv_value(tsv, st->run, "gpu_tot_sim_insn");
    long long c = tsv_value(tsv, st->run, "gpu_tot_issued_cta");
    CHECK(w > 0 && t > 0);
    if ((long long)s.warp_insts != w || (long long)s.thread_insts != t)
        test_fail_at(__FILE__, __LINE__, "%s: %llu/%llu, reference %lld/%lld", st->dir,
                     (unsigned long long)s.warp_insts, (unsigned long long)s.thread_insts, w, t);
    CHECK_EQ(s.ctas, c);
    trace_list l;
    CHECK_EQ(trace_list_open(dir, &l, &e), 0);
    uint64_t hw, ht;
    hand_count(l.cmds[l.ncmds - 1].path, 1, &hw, &ht);
    CHECK_EQ(hw, s.warp_insts);
    CHECK_EQ(ht, s.thread_insts);
    trace_list_free(&l);
}

TEST(trace_shared_totals_match_reference)
{
    for (size_t i = 0; i < sizeof SHARED / sizeof SHARED[0]; i++)
        check_shared(&SHARED[i]);
}

/* The per-thread memory counts equal the reference's gpgpu_n_load/store/shmem_insn. */
TEST(trace_shared_memory_counts_match_reference)
{
    const char *p = test_shared_path("traces/accelsim");
    if (!p)
        return;
    char tsv[600];
    snprintf(tsv, sizeof tsv, "%s/reference/accelsim/summary.tsv", test_shared());
    for (size_t i = 0; i < sizeof SHARED / sizeof SHARED[0]; i++) {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/%s", p, SHARED[i].dir);
        trace_list l;
        base_err e = {0};
        if (trace_list_open(dir, &l, &e)) {
            test_fail_at(__FILE__, __LINE__, "%s", e.msg);
            continue;
        }
        stat_set set;
        trace_stats_init(&set);
        stat_block b;
        stat_block_init(&b, &set);
        trace_kernel *k = trace_kernel_open(l.cmds[l.ncmds - 1].path, &e);
        CHECK(k && trace_kernel_stats(k, &b, &e) == 0);
        const uint64_t *m = b.v + set.slot[stat_find(&set, "mem_thread")];
        long long ld = (long long)(m[TRACE_MEM_GLOBAL_LD] + m[TRACE_MEM_LOCAL_LD]);
        long long st = (long long)(m[TRACE_MEM_GLOBAL_ST] + m[TRACE_MEM_LOCAL_ST]);
        long long sh = (long long)(m[TRACE_MEM_SHARED_LD] + m[TRACE_MEM_SHARED_ST]);
        if (ld != tsv_value(tsv, SHARED[i].run, "load_insn") ||
            st != tsv_value(tsv, SHARED[i].run, "store_insn") ||
            sh != tsv_value(tsv, SHARED[i].run, "shmem_insn"))
            test_fail_at(__FILE__, __LINE__, "%s: ld/st/shmem %lld/%lld/%lld", SHARED[i].dir, ld,
                         st, sh);
        trace_kernel_close(k);
        stat_block_free(&b);
        stat_set_free(&set);
        trace_list_free(&l);
    }
}
