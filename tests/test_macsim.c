/* macsim: the three MacSim traces in ../shared against SOURCE.txt, their conversion to
 * Accel-Sim, and small traces written here (records built byte by byte, gzip via zlib) for
 * decoding details and every error class. */
#include "test.h"

#include "isa/isa.h"
#include "macsim/macsim.h"
#include "trace/trace.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ---- record builders ---- */

typedef struct grec {
    uint8_t op, fp, ld, cf, nsrc, ndst, size, space;
    uint16_t src[5], dst[4];
    uint32_t mask;
    uint64_t pc, addr;
} grec;

static void put(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

static void ptx_rec(base_buf *b, const grec *r)
{
    uint8_t d[72] = {0};
    d[0] = r->op, d[1] = r->fp, d[2] = r->ld, d[3] = r->cf, d[4] = r->nsrc, d[5] = r->ndst;
    for (int i = 0; i < 5; i++)
        put(d + 6 + 2 * i, r->src[i], 2);
    for (int i = 0; i < 4; i++)
        put(d + 16 + 2 * i, r->dst[i], 2);
    d[24] = 8;
    put(d + 28, r->mask, 4);
    put(d + 40, r->pc, 8);
    put(d + 56, r->addr, 8);
    d[64] = r->size, d[68] = r->space;
    base_buf_put(b, (const char *)d, sizeof d);
}

/* Lanes 1..31 in slots 0..30; slots 31..35 hold filler as in the samples. */
static void ptx_cont(base_buf *b, const uint64_t lane[32], int addr32)
{
    uint8_t d[288];
    memset(d, 0xab, sizeof d);
    for (int i = 0; i < 31; i++)
        put(d + (addr32 ? 4 : 8) * i, lane[i + 1], addr32 ? 4 : 8);
    base_buf_put(b, (const char *)d, addr32 ? 144 : 288);
}

static void nvbit_rec(base_buf *b, const grec *r)
{
    uint8_t d[64] = {0};
    d[0] = r->op, d[1] = r->fp, d[2] = r->ld, d[3] = r->cf, d[4] = r->nsrc, d[5] = r->ndst;
    for (int i = 0; i < 4; i++) {
        put(d + 6 + 2 * i, r->src[i], 2);
        put(d + 14 + 2 * i, r->dst[i], 2);
    }
    d[22] = 16;
    put(d + 24, r->mask, 4);
    put(d + 32, r->pc, 8);
    put(d + 48, r->addr, 8);
    d[56] = r->size, d[60] = r->space;
    base_buf_put(b, (const char *)d, sizeof d);
}

static void write_gz(const char *name, const void *data, size_t n)
{
    char *p = base_sprintf("%s/%s", test_tmpdir(), name);
    gzFile gz = gzopen(p, "wb");
    CHECK(gz != NULL);
    if (gz) {
        CHECK_EQ(gzwrite(gz, data, (unsigned)n), (long long)n);
        gzclose(gz);
    }
    free(p);
}

/* DIR/kernel_config.txt naming DIR/K0/Trace.txt through a generator-style absolute path,
 * with the warps listed in Trace.txt and record data per warp (NULL: no file). Returns
 * DIR's full path (caller frees). */
static char *gpu_trace(const char *dir, const char *type, int version, uint32_t nwarps,
                       const uint32_t *ids, const base_buf *recs)
{
    char name[256], *text;
    text = base_sprintf("%s\n%d\n-1\n/gen/%s/K0/Trace.txt\n", type, version, dir);
    snprintf(name, sizeof name, "%s/kernel_config.txt", dir);
    test_write_text(name, text);
    free(text);
    base_buf t = {0};
    base_buf_printf(&t, "%s\n%d\n%s%u\n", type, version, strcmp(type, "ptx") ? "6\n" : "",
                    nwarps);
    for (uint32_t i = 0; i < nwarps; i++)
        base_buf_printf(&t, "%u 0\n", ids[i]);
    snprintf(name, sizeof name, "%s/K0/Trace.txt", dir);
    test_write_text(name, t.s);
    base_buf_free(&t);
    for (uint32_t i = 0; i < nwarps; i++) {
        snprintf(name, sizeof name, "%s/K0/Trace_%u.raw", dir, ids[i]);
        if (recs && recs[i].s)
            write_gz(name, recs[i].s, recs[i].len);
    }
    return base_sprintf("%s/%s", test_tmpdir(), dir);
}

static int summarize(const char *path, macsim_summary *s, base_err *e)
{
    base_err_clear(e);
    return macsim_summarize(path, NULL, s, e);
}

/* ---- ../shared ---- */

/* INST_COUNT_TOT of one run in ../shared/reference/macsim/key_stats.tsv (-1 if absent). */
static long long reference_insts(const char *run)
{
    const char *path = test_shared_path("reference/macsim/key_stats.tsv");
    char *text = path ? test_read_file(path, NULL) : NULL;
    long long v = -1;
    int col = -1;
    for (char *save = NULL, *l = text ? strtok_r(text, "\n", &save) : NULL; l;
         l = strtok_r(NULL, "\n", &save)) {
        char *f[64], *s2 = NULL;
        int n = 0;
        for (char *t = strtok_r(l, "\t", &s2); t && n < 64; t = strtok_r(NULL, "\t", &s2))
            f[n++] = t;
        for (int i = 0; col < 0 && i < n; i++)
            if (strcmp(f[i], "INST_COUNT_TOT") == 0)
                col = i;
        if (col >= 0 && col < n && n > 0 && strcmp(f[0], run) == 0)
            v = strtoll(f[col], NULL, 10);
    }
    free(text);
    return v;
}

/* MacSim retires every record but each warp's (thread's) last: what `trace info` reports as
 * retired must equal the reference runs' INST_COUNT_TOT. */
TEST(macsim_retired_matches_reference_runs)
{
    static const struct { const char *trace, *run; } cases[] = {
        {"traces/macsim/ptx_vectoradd", "ptx_vectoradd_gtx465"},
        {"traces/macsim/nvbit_vectormultadd_4096", "nvbit_vma4096_default"},
        {"traces/macsim/x86_mergesort", "x86_mergesort_x86"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = test_shared_path(cases[i].trace);
        if (!p)
            return;
        char *path = base_strdup(p);
        macsim_summary s;
        base_err e = {0};
        CHECK_EQ(summarize(path, &s, &e), 0);
        long long want = reference_insts(cases[i].run);
        CHECK(want > 0);
        CHECK_EQ(s.retired, want);
        free(path);
    }
}

TEST(macsim_shared_counts)
{
    const char *p = test_shared_path("traces/macsim/ptx_vectoradd");
    if (!p)
        return;
    char *ptx = base_strdup(p);
    char *nvbit = base_strdup(test_shared_path("traces/macsim/nvbit_vectormultadd_4096"));
    char *x86 = base_strdup(test_shared_path("traces/macsim/x86_mergesort"));
    macsim_summary s;
    base_err e = {0};
    CHECK_EQ(summarize(ptx, &s, &e), 0);
    CHECK_EQ(s.kernels, 1);
    CHECK_EQ(s.ctas, 12);
    CHECK_EQ(s.warps, 96);
    CHECK_EQ(s.records, 4992);
    CHECK_EQ(s.insts, 2304);
    CHECK_EQ(s.thread_insts, 73728);
    CHECK_EQ(s.mem_insts, 672);
    CHECK_EQ(s.retired, 2208);
    CHECK_EQ(summarize(nvbit, &s, &e), 0);
    CHECK_EQ(s.kernels, 3);
    CHECK_EQ(s.warps, 384);
    CHECK_EQ(s.insts, 5376);
    CHECK_EQ(s.thread_insts, 172032);
    CHECK_EQ(s.mem_insts, 1152);
    CHECK_EQ(s.retired, 4992);
    CHECK_EQ(summarize(x86, &s, &e), 0);
    CHECK_EQ(s.cpu, 1);
    CHECK_EQ(s.threads, 1);
    CHECK_EQ(s.insts, 348157);
    CHECK_EQ(s.retired, 348156);
    test_proc pr = test_lockstep("trace info %s", nvbit);
    CHECK_EQ(pr.status, 0);
    CHECK_HAS(pr.out, "total.top_opcodes = IMAD 1536, MOV 768, LDG 768, S2R 768");
    CHECK_HAS(pr.out, "kernel1.warps_per_cta = 32\n");
    pr = test_lockstep("trace check %s/mergesort.txt", x86);
    CHECK_HAS(pr.out, "ok: macsim x86 1.3, 1 threads, 348157 instructions");
    free(ptx);
    free(nvbit);
    free(x86);
}

/* Memory warp instructions of an Accel-Sim trace, from its statistics. */
static uint64_t accelsim_mem_insts(const char *dir)
{
    trace_list l;
    base_err e = {0};
    uint64_t n = 0;
    if (trace_list_open(dir, &l, &e)) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        return 0;
    }
    stat_set set;
    trace_stats_init(&set);
    for (size_t i = 0; i < l.ncmds; i++) {
        trace_kernel *k = l.cmds[i].kind == TRACE_CMD_KERNEL ? trace_kernel_open(l.cmds[i].path, &e)
                                                             : NULL;
        if (!k)
            continue;
        stat_block b;
        stat_block_init(&b, &set);
        CHECK_EQ(trace_kernel_stats(k, &b, &e), 0);
        n += stat_get(&b, "mem_warp");
        stat_block_free(&b);
        trace_kernel_close(k);
    }
    stat_set_free(&set);
    trace_list_free(&l);
    return n;
}

static void check_conversion(const char *src, const char *out, int xz, size_t keep)
{
    macsim_opts o = {.binary_version = 80, .xz = xz, .keep_bytes = keep};
    macsim_summary m;
    trace_summary a;
    base_err e = {0};
    char *dir = base_sprintf("%s/%s", test_tmpdir(), out);
    if (macsim_to_accelsim(src, dir, &o, &m, &e)) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        free(dir);
        return;
    }
    CHECK_EQ(trace_check(dir, NULL, &e), 0);
    CHECK_EQ(trace_summarize(dir, &a, &e), 0);
    CHECK_EQ(a.kernels, m.kernels);
    CHECK_EQ(a.ctas, m.ctas);
    CHECK_EQ(a.warps, m.warps);
    CHECK_EQ(a.warp_insts, m.insts);
    CHECK_EQ(a.thread_insts, m.thread_insts);
    CHECK_EQ(accelsim_mem_insts(dir), m.mem_insts);
    free(dir);
}

TEST(macsim_shared_convert_to_accelsim)
{
    const char *p = test_shared_path("traces/macsim/ptx_vectoradd");
    if (!p)
        return;
    char *ptx = base_strdup(p);
    char *nvbit = base_strdup(test_shared_path("traces/macsim/nvbit_vectormultadd_4096"));
    check_conversion(ptx, "conv_ptx", 0, 0);
    check_conversion(nvbit, "conv_nvbit", 1, 0);
    /* the checking pass keeps the records for the writing pass; with a budget of one byte it
     * keeps the first warp file alone and the writer reads the rest again: the same text */
    check_conversion(nvbit, "conv_nvbit0", 0, 0);
    check_conversion(nvbit, "conv_nvbit1", 0, 1);
    for (int k = 1; k <= 3; k++) {
        size_t na = 0, nb = 0;
        char *a = base_sprintf("%s/conv_nvbit0/kernel-%d.traceg", test_tmpdir(), k);
        char *b = base_sprintf("%s/conv_nvbit1/kernel-%d.traceg", test_tmpdir(), k);
        char *x = test_read_file(a, &na), *y = test_read_file(b, &nb);
        CHECK(x && y && na > 0 && na == nb && memcmp(x, y, na) == 0);
        free(x);
        free(y);
        free(a);
        free(b);
    }
    test_proc pr = test_lockstep("trace convert --to accelsim %s --out %s/conv_cli "
                                 "--binary-version=70", ptx, test_tmpdir());
    CHECK_EQ(pr.status, 0);
    CHECK_HAS(pr.out, "2304 warp instructions, 73728 thread instructions, 672 memory");
    pr = test_lockstep("trace check %s/conv_cli", test_tmpdir());
    CHECK_EQ(pr.status, 0);
    CHECK_HAS(pr.out, "ok: 1 kernels, 12 CTAs, 2304 warp instructions, 73728 thread");
    free(ptx);
    free(nvbit);
}

/* ---- synthetic traces ---- */

/* A ptx warp: a global load with lane 0 and lane 5 inactive, then EXIT. */
static void ptx_warp(base_buf *b, uint64_t lane[32], int addr32)
{
    grec ld = {.op = 140, .ld = 1, .ndst = 1, .dst = {7}, .nsrc = 1, .src = {201},
               .mask = 0xffffffdeu, .pc = 0x100, .size = 4, .space = 2};
    for (int i = 0; i < 32; i++)
        lane[i] = ld.mask >> i & 1 ? 0x1000 + 0x40u * (uint64_t)(31 - i) : 0;
    ld.addr = lane[0];
    ptx_rec(b, &ld);
    ptx_cont(b, lane, addr32);
    grec ex = {.op = 40, .cf = 8, .mask = 0xffffffffu, .pc = 0x108};
    ptx_rec(b, &ex);
}

TEST(macsim_ptx_continuation_lane_addresses)
{
    for (int addr32 = 0; addr32 < 2; addr32++) {
        base_buf b = {0};
        uint64_t lane[32];
        ptx_warp(&b, lane, addr32);
        macsim_fmt f = {MACSIM_NEWPTX, 14, addr32};
        macsim_ginst g;
        base_err e = {0};
        int n = macsim_decode_gpu(&f, (const uint8_t *)b.s, b.len, 0, "w.raw", &g, &e);
        CHECK_EQ(n, addr32 ? 3 * 72 : 5 * 72);
        CHECK(g.is_mem && g.space == MACSIM_SPACE_GLOBAL && g.kind == MACSIM_LOAD);
        for (int i = 0; i < 32; i++)
            CHECK_EQ(g.lane_addr[i], lane[i]);
        CHECK_EQ(macsim_decode_gpu(&f, (const uint8_t *)b.s + n, b.len - n, n, "w.raw", &g, &e),
                 72);
        CHECK_EQ(g.opcode, MACSIM_PTX_EXIT);
        CHECK(!g.is_mem);
        base_buf_free(&b);
    }
    /* through files, a converted trace keeps the exact addresses of the active lanes */
    base_buf w = {0};
    uint64_t lane[32];
    ptx_warp(&w, lane, 0);
    uint32_t id = 0;
    char *dir = gpu_trace("ptx1", "newptx", 14, 1, &id, &w);
    macsim_summary s;
    base_err e = {0};
    CHECK_EQ(summarize(dir, &s, &e), 0);
    CHECK_EQ(s.insts, 2);
    CHECK_EQ(s.records, 6);
    CHECK_EQ(s.mem_insts, 1);
    CHECK_EQ(s.thread_insts, 30 + 32);
    char *out = base_sprintf("%s/ptx1_conv", test_tmpdir());
    CHECK_EQ(macsim_to_accelsim(dir, out, NULL, NULL, &e), 0);
    trace_list l;
    if (trace_list_open(out, &l, &e) == 0) {
        trace_kernel *k = trace_kernel_open(l.cmds[0].path, &e);
        trace_cta c = {0};
        CHECK(k != NULL);
        CHECK_EQ(k ? trace_next_cta(k, &c, &e) : -1, 1);
        uint64_t buf[32];
        const uint64_t *a = c.ninsts ? trace_cta_addrs(&c, &c.insts[0], buf) : NULL;
        CHECK(a != NULL);
        for (int i = 0, r = 0; a && i < 32; i++)
            if (lane[i])
                CHECK_EQ(a[r++], lane[i]);
        CHECK_STR(k ? trace_sinst_opcode(k, trace_kernel_sinst(k, c.insts[0].sidx)) : "",
                  "LDG.E");
        trace_cta_free(&c);
        trace_kernel_close(k);
        trace_list_free(&l);
    }
    free(out);
    free(dir);
    base_buf_free(&w);
}

TEST(macsim_nvbit_child_records)
{
    base_buf b = {0};
    grec ld = {.op = MACSIM_NVBIT_LDG, .ld = 1, .ndst = 1, .dst = {4}, .mask = 0xffff,
               .pc = 0x10, .addr = 0x5000, .size = 4};
    nvbit_rec(&b, &ld);
    grec child = ld;
    child.fp = 1;
    child.addr = 0x9000;
    nvbit_rec(&b, &child);
    child.addr = 0xa000;
    nvbit_rec(&b, &child);
    grec dmul = {.op = 24, .fp = 1, .mask = 0xffff, .pc = 0x20};  /* FP, but not a child */
    nvbit_rec(&b, &dmul);
    macsim_fmt f = {MACSIM_NVBIT, 14, 0};
    macsim_ginst g;
    base_err e = {0};
    CHECK_EQ(macsim_decode_gpu(&f, (const uint8_t *)b.s, b.len, 0, "n.raw", &g, &e), 3 * 64);
    CHECK_EQ(g.nchild, 2);
    CHECK_EQ(g.child_addr[0], 0x9000);
    CHECK_EQ(g.child_addr[1], 0xa000);
    uint64_t a[32];
    macsim_lane_addrs(&f, &g, a);
    CHECK_EQ(a[0], 0x9000);
    CHECK_EQ(a[7], 0x9000);
    CHECK_EQ(a[8], 0xa000);
    CHECK_EQ(a[15], 0xa000);
    CHECK_EQ(a[16], 0);
    CHECK_EQ(macsim_decode_gpu(&f, (const uint8_t *)b.s + 192, 64, 192, "n.raw", &g, &e), 64);
    CHECK_EQ(g.opcode, 24);
    /* without children: a unit-stride access from the record's address */
    CHECK_EQ(macsim_decode_gpu(&f, (const uint8_t *)b.s, 64, 0, "n.raw", &g, &e), 64);
    macsim_lane_addrs(&f, &g, a);
    CHECK_EQ(a[3], 0x5000 + 3 * 4);
    uint32_t ids[2] = {0, 1};
    base_buf recs[2] = {b, b};
    char *dir = gpu_trace("nv1", "nvbit", 14, 2, ids, recs);
    macsim_summary s;
    CHECK_EQ(summarize(dir, &s, &e), 0);
    CHECK_EQ(s.insts, 4);
    CHECK_EQ(s.records, 8);
    CHECK_EQ(s.mem_insts, 2);
    check_conversion(dir, "nv1_conv", 0, 0);
    free(dir);
    base_buf_free(&b);
}

TEST(macsim_v131_remaps_opcodes)
{
    /* v1.31: 143 is MEM_ST_GM (147 in v1.4), so 4 continuation records follow it; 95 is
     * SHL (99). Read as v1.4, 143 would be a non-memory MEM_LD_CM and the next record junk. */
    base_buf b = {0};
    uint64_t lane[32] = {0};
    for (int i = 0; i < 32; i++)
        lane[i] = 0x2000 + 4u * (uint64_t)i;
    grec st = {.op = 143, .nsrc = 2, .src = {1, 2}, .mask = 0xffffffffu, .addr = 0x2000,
               .size = 4, .space = 2};
    ptx_rec(&b, &st);
    ptx_cont(&b, lane, 0);
    grec shl = {.op = 95, .mask = 0xffffffffu, .pc = 8};
    ptx_rec(&b, &shl);
    macsim_fmt f = {MACSIM_NEWPTX, 131, 0};
    macsim_ginst g;
    base_err e = {0};
    CHECK_EQ(macsim_decode_gpu(&f, (const uint8_t *)b.s, b.len, 0, "v.raw", &g, &e), 360);
    CHECK_EQ(g.opcode, MACSIM_PTX_MEM_ST_GM);
    CHECK(g.is_mem && g.kind == MACSIM_STORE);
    CHECK_EQ(g.lane_addr[31], 0x2000 + 4 * 31);
    CHECK_EQ(macsim_decode_gpu(&f, (const uint8_t *)b.s + 360, 72, 360, "v.raw", &g, &e), 72);
    CHECK_STR(macsim_opcode_name(MACSIM_NEWPTX, g.opcode), "SHL");
    uint32_t id = 0;
    char *dir = gpu_trace("v131", "newptx", 131, 1, &id, &b);
    macsim_summary s;
    CHECK_EQ(summarize(dir, &s, &e), 0);
    CHECK_EQ(s.insts, 2);
    CHECK_EQ(s.mem_insts, 1);
    CHECK_EQ(s.stores, 1);
    free(dir);
    base_buf_free(&b);
}

static void cpu_rec(uint8_t d[80], int a64)
{
    memset(d, 0, 80);
    d[0] = 2, d[1] = 1, d[2] = 5, d[3] = 6, d[11] = 7, d[17] = 0;
    if (a64) {
        put(d + 20, 300, 2);
        d[22] = 1, d[25] = 1, d[26] = 4;
    } else {
        d[19] = 59, d[20] = 1, d[23] = 1, d[24] = 1;
    }
    put(d + 32, 0x7fff0000, 8);
    put(d + 48, 0x7fff0008, 8);
    put(d + 56, 0x400000, 8);
    d[72] = 8, d[73] = 8;
}

TEST(macsim_cpu_records)
{
    uint8_t d[80];
    cpu_rec(d, 0);
    macsim_fmt f = {MACSIM_X86, 0, 0};
    macsim_cinst c;
    base_err e = {0};
    CHECK_EQ(macsim_decode_cpu(&f, d, 80, 0, "t.raw", &c, &e), 80);
    CHECK_EQ(c.opcode, 59);
    CHECK_STR(macsim_opcode_name(MACSIM_X86, c.opcode), "PUSH");
    CHECK_EQ(c.nsrc, 2);
    CHECK_EQ(c.src[1], 6);
    CHECK_EQ(c.dst[0], 7);
    CHECK(c.has_store && c.num_loads == 1 && c.inst_size == 1);
    CHECK_EQ(c.ld_addr[0], 0x7fff0000);
    CHECK_EQ(c.st_addr, 0x7fff0008);
    CHECK_EQ(c.pc, 0x400000);
    cpu_rec(d, 1);
    f.type = MACSIM_A64;
    CHECK_EQ(macsim_decode_cpu(&f, d, 80, 0, "t.raw", &c, &e), 80);
    CHECK_EQ(c.opcode, 300);
    CHECK(c.has_store && c.num_loads == 1 && c.inst_size == 4);
    /* a two-thread x86 trace through its config file */
    cpu_rec(d, 0);
    uint8_t two[160];
    memcpy(two, d, 80);
    memcpy(two + 80, d, 80);
    test_write_text("cpu/app.txt", "x86 1.3\n2\n0 0\n1 100\n");
    write_gz("cpu/app_0.raw", two, 160);
    write_gz("cpu/app_1.raw", d, 80);
    char *cfg = base_sprintf("%s/cpu", test_tmpdir());
    macsim_summary s;
    CHECK_EQ(summarize(cfg, &s, &e), 0);
    CHECK_EQ(s.threads, 2);
    CHECK_EQ(s.insts, 3);
    CHECK_EQ(s.retired, 1);
    CHECK_EQ(s.loads, 3);
    test_proc p = test_lockstep("trace info %s --json", cfg);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "\"type\": \"x86\"");
    p = test_lockstep("trace convert --to accelsim %s --out %s/cpu_conv", cfg, test_tmpdir());
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "only GPU traces");
    p = test_lockstep("run %s", cfg); /* said as what it is for a run: not a word of converting */
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "only GPU traces run or convert");
    free(cfg);
}

/* ---- errors ---- */

typedef struct bad_rec {
    const char *name;
    int cut;            /* bytes removed from the end of the record data */
    grec r;             /* the first record (ptx); a plain EXIT follows */
    const char *expect;
} bad_rec;

static const bad_rec BAD_RECS[] = {
    {"truncated", 10, {.op = 40, .mask = 1}, "byte offset 72 (record 1): truncated record"},
    {"no_continuation", 0, {.op = 140, .ld = 1, .size = 4, .mask = 1}, "needs 4 address"},
    {"opcode", 0, {.op = 153, .mask = 1}, "expected an opcode below 153 (newptx v14), found 153"},
    {"nsrc", 0, {.op = 3, .nsrc = 6, .mask = 1}, "at most 5 source and 4 destination"},
    {"ndst", 0, {.op = 3, .ndst = 5, .mask = 1}, "found 0 and 5"},
    {"cf", 0, {.op = 21, .cf = 10, .mask = 1}, "control-flow type 0..9, found 10"},
    {"size0", 0, {.op = 147, .size = 0, .mask = 1}, "MEM_ST_GM with access size 0"},
};

TEST(macsim_bad_records_name_file_and_offset)
{
    for (size_t i = 0; i < sizeof BAD_RECS / sizeof BAD_RECS[0]; i++) {
        const bad_rec *c = &BAD_RECS[i];
        base_buf b = {0};
        ptx_rec(&b, &c->r);
        if (strcmp(c->name, "no_continuation") == 0) {
            static const char zeros[2 * 72];
            base_buf_put(&b, zeros, sizeof zeros);   /* 2 of the 4 continuation records */
        } else {
            grec ex = {.op = 40, .mask = 1, .pc = 8};
            ptx_rec(&b, &ex);
            b.len -= (size_t)c->cut;
        }
        char dir[64]; /* not bad_%s: test_bad_input's Accel-Sim cases use those names */
        snprintf(dir, sizeof dir, "macsim_bad_%s", c->name);
        uint32_t id = 0;
        char *path = gpu_trace(dir, "newptx", 14, 1, &id, &b);
        macsim_summary s;
        base_err e = {0};
        CHECK_EQ(summarize(path, &s, &e), -1);
        CHECK_HAS(e.msg, "/K0/Trace_0.raw: byte offset ");
        CHECK_HAS(e.msg, c->expect);
        test_proc p = test_lockstep("trace check %s", path);
        CHECK_EQ(p.status, 3);
        CHECK_HAS(p.err, c->expect);
        free(path);
        base_buf_free(&b);
    }
}

typedef struct bad_text {
    const char *name, *trace_txt;   /* Trace.txt of a 2-warp kernel (ids 0, 1 have files) */
    const char *expect;
} bad_text;

static const bad_text BAD_TEXTS[] = {
    {"missing_warp", "newptx\n14\n6\n3\n0 0\n1 0\n2 0\n",
     "Trace.txt:7: expected the record file of id 2, found no file"},
    {"fewer_lines", "newptx\n14\n6\n3\n0 0\n1 0\n",
     "Trace.txt:7: expected a warp id, found the end of the file"},
    {"more_lines", "newptx\n14\n6\n1\n0 0\n1 0\n",
     "Trace.txt:6: expected the end of the file after 1 id lines (the count on line 4), found '1'"},
    {"cta0_not_first", "newptx\n14\n6\n2\n65536 0\n0 0\n",
     "Trace.txt:5: expected CTA 0's warps first"},
    {"cta0_late", "newptx\n14\n6\n3\n0 0\n65536 0\n1 0\n",
     "Trace.txt:7: expected CTA 0's warps before any other CTA's"},
    {"over_100", "newptx\n14\n6\n2\n0 0\n100 0\n",
     "Trace.txt:6: expected at most 100 warps per CTA"},
    {"index", "newptx\n14\n6\n3\n0 0\n65536 0\n65537 0\n",
     "Trace.txt:7: expected a warp index below the warps per CTA"},
    {"duplicate", "newptx\n14\n6\n2\n0 0\n0 0\n",
     "Trace.txt:6: expected each warp id once, found warp id 0 again"},
    {"version", "newptx\n15\n6\n2\n0 0\n1 0\n",
     "Trace.txt:2: expected 14 (the trace version), found '15'"},
    {"type", "nvbit\n14\n6\n2\n0 0\n1 0\n",
     "Trace.txt:1: expected 'newptx' (the trace type), found 'nvbit'"},
    {"number", "newptx\n14\n6\nlots\n0 0\n1 0\n",
     "Trace.txt:4: expected the number of warps (> 0), found 'lots'"},
    {"zero", "newptx\n14\n6\n0\n", "Trace.txt:4: expected the number of warps (> 0), found '0'"},
    {"huge", "newptx\n14\n6\n4000000000\n0 0\n",
     "Trace.txt:4: expected the number of warps (> 0), at most 6 (the bytes left in the file), "
     "found '4000000000'"},
};

TEST(macsim_bad_text_files_name_file_and_line)
{
    base_buf b = {0};
    grec ex = {.op = 40, .mask = 1};
    ptx_rec(&b, &ex);
    for (size_t i = 0; i < sizeof BAD_TEXTS / sizeof BAD_TEXTS[0]; i++) {
        const bad_text *c = &BAD_TEXTS[i];
        char dir[64], name[128];
        snprintf(dir, sizeof dir, "badt_%s", c->name);
        uint32_t ids[2] = {0, 1};
        base_buf recs[2] = {b, b};
        char *path = gpu_trace(dir, "newptx", 14, 2, ids, recs);
        snprintf(name, sizeof name, "%s/K0/Trace.txt", dir);
        test_write_text(name, c->trace_txt);
        macsim_summary s;
        base_err e = {0};
        CHECK_EQ(summarize(path, &s, &e), -1);
        CHECK_HAS(e.msg, c->expect);
        free(path);
    }
    /* kernel_config.txt itself: version, type, the "-1" list, and a missing Trace.txt */
    static const char *const cfgs[][2] = {
        {"newptx\n13\n-1\nK0/Trace.txt\n",
         "kernel_config.txt:2: expected trace version 14 or 131, found '13'"},
        {"nvbit\n131\n-1\nK0/Trace.txt\n",
         "kernel_config.txt:2: expected trace version 14, found '131'"},
        {"newptx\n14\n-1\n",
         "kernel_config.txt:4: expected a kernel's Trace.txt path, found the end"},
        {"newptx\n14\n-1\nK9/Trace.txt\n", "kernel_config.txt:4: kernel "},
        {"newptx\n14\n-1\nK0/Trace\n", "expected a path with an extension"},
        {"gpu\n14\n-1\nK0/Trace.txt\n",
         "kernel_config.txt:1: expected a trace type (newptx, nvbit, ptx, x86 or a64), found 'gpu'"},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        uint32_t ids[1] = {0};
        char *path = gpu_trace("badcfg", "newptx", 14, 1, ids, &b);
        test_write_text("badcfg/kernel_config.txt", cfgs[i][0]);
        macsim_summary s;
        base_err e = {0};
        CHECK_EQ(summarize(path, &s, &e), -1);
        CHECK_HAS(e.msg, cfgs[i][1]);
        free(path);
    }
    base_buf_free(&b);
}

/* Record files are found by listing their directory once: a name that only reads as the id
 * (a leading zero), or a directory of the right name, is no record file; a link to one is. */
TEST(macsim_record_files_found_by_listing)
{
    base_buf b = {0};
    grec ex = {.op = 40, .mask = 1};
    ptx_rec(&b, &ex);
    uint32_t ids[3] = {0, 1, 2};
    base_buf recs[3] = {b, b, {0}};
    char name[256], target[256];
    static const char *const kinds[] = {"padded", "dir", "link"};
    for (size_t i = 0; i < 3; i++) {
        char dir[64];
        snprintf(dir, sizeof dir, "list_%s", kinds[i]);
        char *path = gpu_trace(dir, "newptx", 14, 3, ids, recs);
        snprintf(name, sizeof name, "%s/K0/Trace_%s.raw", path, i == 0 ? "02" : "2");
        snprintf(target, sizeof target, "%s/K0/Trace_1.raw", path);
        if (i == 0)
            test_write_file(name + strlen(test_tmpdir()) + 1, b.s, b.len);
        else if (i == 1)
            CHECK_EQ(mkdir(name, 0700), 0);
        else
            CHECK_EQ(symlink(target, name), 0);
        macsim_summary s;
        base_err e = {0};
        int rc = summarize(path, &s, &e);
        if (i < 2) {
            CHECK_EQ(rc, -1);
            CHECK_HAS(e.msg, "Trace.txt:7: expected the record file of id 2, found no file");
        } else {
            CHECK_EQ(rc, 0);
            CHECK_EQ(s.warps, 3);
        }
        free(path);
    }
    base_buf_free(&b);
}

/* n full-warp records of ALU opcodes at consecutive PCs (no memory instruction). */
static void plain_recs(base_buf *b, int n)
{
    for (int i = 0; i < n; i++) {
        grec r = {.op = (uint8_t)(3 + i % 7), .mask = 0xffffffffu, .pc = 8u * (uint64_t)i};
        ptx_rec(b, &r);
    }
}

/* A one-warp newptx trace in dir of n plain records (kept in b); *raw: its record file. */
static char *one_warp_trace(const char *dir, int n, base_buf *b, char **raw)
{
    uint32_t id = 0;
    plain_recs(b, n);
    char *path = gpu_trace(dir, "newptx", 14, 1, &id, b);
    *raw = base_sprintf("%s/K0/Trace_0.raw", path);
    return path;
}

TEST(macsim_bad_streams_and_cpu_records)
{
    /* a gzip stream cut short, and bytes that are not gzip at all (read as plain records) */
    base_buf b = {0};
    char *raw, *path = one_warp_trace("cutgz", 200, &b, &raw);
    FILE *f = fopen(raw, "rb");
    char gz[4096];
    size_t n = f ? fread(gz, 1, sizeof gz, f) : 0;
    if (f)
        fclose(f);
    test_write_file("cutgz/K0/Trace_0.raw", gz, n / 2);
    macsim_summary s;
    base_err e = {0};
    CHECK_EQ(summarize(path, &s, &e), -1);
    CHECK_HAS(e.msg, "Trace_0.raw: byte offset ");
    CHECK_HAS(e.msg, "truncated");
    test_write_file("cutgz/K0/Trace_0.raw", b.s, 72 * 3 + 1);   /* plain data passes through */
    CHECK_EQ(summarize(path, &s, &e), -1);
    CHECK_HAS(e.msg, "byte offset 216 (record 3): truncated record: 1 bytes left");
    /* CPU records */
    uint8_t d[80];
    cpu_rec(d, 0);
    d[23] = 3;
    test_write_text("badcpu/app.txt", "x86 1.3\n1\n0 0\n");
    write_gz("badcpu/app_0.raw", d, 80);
    char *cfg = base_sprintf("%s/badcpu/app.txt", test_tmpdir());
    CHECK_EQ(summarize(cfg, &s, &e), -1);
    CHECK_HAS(e.msg, "app_0.raw: byte offset 0 (record 0): expected at most 2 loads, found 3");
    cpu_rec(d, 0);
    d[19] = 105;
    write_gz("badcpu/app_0.raw", d, 80);
    CHECK_EQ(summarize(cfg, &s, &e), -1);
    CHECK_HAS(e.msg, "expected an opcode below 105 (x86), found 105");
    test_write_text("badcpu/app.txt", "x86 1.3\n2\n0 0\n");
    CHECK_EQ(summarize(cfg, &s, &e), -1);
    CHECK_HAS(e.msg, "app.txt:4: expected a thread id, found the end of the file");
    test_write_text("badcpu/app.txt", "igpu\n1\n0 0\n");
    CHECK_EQ(summarize(cfg, &s, &e), -1);
    CHECK_HAS(e.msg, "igpu records are not supported");
    test_write_text("badcpu/app.txt", "sparc 1.3\n1\n0 0\n");
    CHECK_EQ(summarize(cfg, &s, &e), -1);
    CHECK_HAS(e.msg, "expected a MacSim trace");
    free(cfg);
    free(raw);
    free(path);
    base_buf_free(&b);
}

/* The converter keeps what the checking pass read, or reads the files again: the same text.
 * tag names the two output folders. */
static void converts_alike_kept_or_reread(const char *path, const char *tag)
{
    base_err e = {0};
    char *o1 = base_sprintf("%s/%s_keep", test_tmpdir(), tag);
    char *o2 = base_sprintf("%s/%s_again", test_tmpdir(), tag);
    macsim_opts keep = {.keep_bytes = 0}, again = {.keep_bytes = 1};
    CHECK_EQ(macsim_to_accelsim(path, o1, &keep, NULL, &e), 0);
    CHECK_EQ(macsim_to_accelsim(path, o2, &again, NULL, &e), 0);
    char *k1 = base_sprintf("%s/kernel-1.traceg", o1), *k2 = base_sprintf("%s/kernel-1.traceg", o2);
    size_t n1 = 0, n2 = 0;
    char *t1 = test_read_file(k1, &n1), *t2 = test_read_file(k2, &n2);
    CHECK(t1 && t2 && n1 > 0 && n1 == n2 && memcmp(t1, t2, n1) == 0);
    free(t1), free(t2), free(k1), free(k2), free(o1), free(o2);
}

/* A record file is read whole when it is small and one gzip member, and by zlib's reader
 * otherwise; both read the same records. Warps: one member (read whole, inflating to 56x its
 * size: the buffer grows), two members, one member with bytes after it (zlib ignores them),
 * plain records, and a file too large to read whole; each file holds the same records but
 * the last, whose 2,000 records of random addresses do not compress. */
TEST(macsim_record_files_read_whole_or_streamed)
{
    base_buf b = {0}, big = {0};
    plain_recs(&b, 200);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        grec r = {.op = 3, .mask = (uint32_t)x, .pc = 8u * (uint64_t)i, .addr = x};
        ptx_rec(&big, &r);
    }
    uint32_t ids[5] = {0, 1, 2, 3, 4};
    base_buf recs[5] = {b, b, b, {0}, big};
    char *path = gpu_trace("whole", "newptx", 14, 5, ids, recs);
    char *p1 = base_sprintf("%s/K0/Trace_1.raw", path), *p2 = base_sprintf("%s/K0/Trace_2.raw",
                                                                               path);
    gzFile gz = gzopen(p1, "wb"); /* two members: the first and second halves */
    CHECK(gz && gzwrite(gz, b.s, 100 * 72) == 100 * 72);
    gzclose(gz);
    gz = gzopen(p1, "ab");
    CHECK(gz && gzwrite(gz, b.s + 100 * 72, 100 * 72) == 100 * 72);
    gzclose(gz);
    FILE *f = fopen(p2, "ab");
    CHECK(f && fwrite("\0\1\2", 1, 3, f) == 3);
    if (f)
        fclose(f);
    test_write_file("whole/K0/Trace_3.raw", b.s, b.len);
    struct stat st;
    char *p4 = base_sprintf("%s/K0/Trace_4.raw", path);
    CHECK(stat(p4, &st) == 0 && st.st_size > 16 * 1024);
    macsim_summary s;
    base_err e = {0};
    CHECK_EQ(summarize(path, &s, &e), 0);
    CHECK_EQ(s.warps, 5);
    CHECK_EQ(s.insts, 4 * 200 + 2000);
    CHECK_EQ(s.records, 4 * 200 + 2000);
    converts_alike_kept_or_reread(path, "whole");
    free(p1), free(p2), free(p4), free(path);
    base_buf_free(&b);
    base_buf_free(&big);
}

/* Record files are opened relative to their kernel's directory, opened once
 * (macsim_kernel_dir_open): the file's own name starts where *skip says in every path
 * macsim_warp_file makes, a bare base means the working directory, and a directory that
 * cannot be opened leaves the caller the whole path (-1, skip 0). Either way a file reads
 * the same as by its whole path. */
TEST(macsim_record_files_opened_in_their_directory)
{
    base_buf b = {0};
    plain_recs(&b, 3);
    uint32_t id = 7;
    char *path = gpu_trace("atdir", "newptx", 14, 1, &id, &b);
    char *base = base_sprintf("%s/K0/Trace", path);
    macsim_kernel k = {.base = base};
    size_t skip = 99;
    int fd = macsim_kernel_dir_open(&k, &skip);
    CHECK(fd >= 0);
    char *file = macsim_warp_file(&k, 7);
    CHECK_STR(file + skip, "Trace_7.raw");
    macsim_fmt f = {MACSIM_NEWPTX, 14, 0};
    base_err e = {0};
    macsim_stream *s = macsim_stream_open_at(fd, file + skip, file, &f, NULL, &e),
                  *t = macsim_stream_open(file, &f, NULL, &e);
    CHECK(s != NULL && t != NULL);
    int n = 0, rs = 1, rt = 1;
    macsim_ginst gs, gt;
    while (s && t && rs == 1 && rt == 1) {
        rs = macsim_stream_gpu(s, &gs, &e);
        rt = macsim_stream_gpu(t, &gt, &e);
        CHECK_EQ(rs, rt);
        if (rs == 1 && rt == 1) {
            CHECK_EQ(gs.pc, gt.pc);
            CHECK_EQ(gs.addr, gt.addr);
            n++;
        }
    }
    CHECK_EQ(n, 3);
    macsim_stream_close(s);
    macsim_stream_close(t);
    s = macsim_stream_open_at(fd, "Trace_8.raw", "the/whole/Trace_8.raw", &f, NULL, &e);
    CHECK(s == NULL);
    CHECK_HAS(e.msg, "the/whole/Trace_8.raw: cannot open");
    if (fd >= 0)
        close(fd);
    k.base = (char *)"Trace"; /* in the working directory */
    fd = macsim_kernel_dir_open(&k, &skip);
    CHECK(fd >= 0);
    CHECK_EQ(skip, 0);
    if (fd >= 0)
        close(fd);
    k.base = (char *)"/no/such/dir/Trace";
    CHECK_EQ(macsim_kernel_dir_open(&k, &skip), -1);
    CHECK_EQ(skip, 0);
    free(file), free(base), free(path);
    base_buf_free(&b);
}

/* One inflater serves every file of a pass: a file it refuses (one member and bytes after
 * it, which zlib's reader then takes) leaves it fit for the next, which it inflates whole,
 * and the converter's second pass, reading the files again, gets the same text. */
TEST(macsim_inflater_reused_after_a_refused_file)
{
    base_buf b = {0};
    plain_recs(&b, 120);
    uint32_t ids[3] = {0, 1, 2};
    base_buf recs[3] = {b, b, b};
    char *path = gpu_trace("reuse", "newptx", 14, 3, ids, recs);
    char *p0 = base_sprintf("%s/K0/Trace_0.raw", path);
    FILE *f = fopen(p0, "ab");
    CHECK(f && fwrite("\0\1\2", 1, 3, f) == 3);
    if (f)
        fclose(f);
    macsim_summary s;
    base_err e = {0};
    CHECK_EQ(summarize(path, &s, &e), 0);
    CHECK_EQ(s.warps, 3);
    CHECK_EQ(s.insts, 3 * 120);
    converts_alike_kept_or_reread(path, "reuse");
    free(p0), free(path);
    base_buf_free(&b);
}

/* The whole-file path (libdeflate) takes a small one-member file only as zlib would: a
 * member whose header carries a CRC (FLG.FHCRC, which libdeflate skips and zlib checks) goes
 * to zlib's reader and reads the same records, a wrong header CRC is zlib's error, and a
 * member whose trailer gives the wrong size is an error either way, naming the file. */
TEST(macsim_record_file_header_crc_and_size)
{
    base_buf b = {0};
    char *raw, *path = one_warp_trace("hcrc", 50, &b, &raw);
    size_t n = 0;
    char *gz = test_read_file(raw, &n);
    CHECK(gz && n > 18 && (unsigned char)gz[0] == 0x1f && (gz[3] & 0x1f) == 0);
    macsim_summary s;
    base_err e = {0};
    if (gz && n > 18) {
        /* the same member with a header CRC: the 10-byte header, FHCRC set, then the low 16
         * bits of the header's CRC-32 */
        char *h = malloc(n + 2);
        memcpy(h, gz, 10);
        h[3] |= 0x02;
        uint32_t c = (uint32_t)crc32(0, (const Bytef *)h, 10);
        h[10] = (char)(c & 0xff), h[11] = (char)(c >> 8 & 0xff);
        memcpy(h + 12, gz + 10, n - 10);
        test_write_file("hcrc/K0/Trace_0.raw", h, n + 2);
        CHECK_EQ(summarize(path, &s, &e), 0);
        CHECK_EQ(s.insts, 50);
        h[10] ^= 1; /* a wrong header CRC */
        test_write_file("hcrc/K0/Trace_0.raw", h, n + 2);
        CHECK_EQ(summarize(path, &s, &e), -1);
        CHECK_HAS(e.msg, "Trace_0.raw");
        /* a trailer whose size is one more than the records' */
        memcpy(h, gz, n);
        h[n - 4] = (char)(h[n - 4] + 1);
        test_write_file("hcrc/K0/Trace_0.raw", h, n);
        CHECK_EQ(summarize(path, &s, &e), -1);
        CHECK_HAS(e.msg, "Trace_0.raw");
        free(h);
    }
    free(gz);
    free(raw);
    free(path);
    base_buf_free(&b);
}

/* ---- opcode mapping ---- */

TEST(macsim_sass_mapping_valid_in_every_family)
{
    static const unsigned sizes[] = {1, 2, 4, 8, 16};
    macsim_fmt ptx = {MACSIM_NEWPTX, 14, 0}, nv = {MACSIM_NVBIT, 14, 0};
    char op[64];
    for (int fam = 0; fam < ISA_NFAMILY; fam++) {
        for (unsigned o = 0; o < macsim_opcode_limit(&ptx); o++) {
            for (int fp = 0; fp < 2; fp++) {
                macsim_ginst g = {.opcode = (uint8_t)o, .is_fp = (uint8_t)fp};
                if (macsim_sass_opcode(&ptx, &g, fam, op, sizeof op) != 0)
                    test_fail_at(__FILE__, __LINE__, "ptx %s fp=%d in %s",
                                 macsim_opcode_name(MACSIM_PTX, o), fp, isa_family_name(fam));
            }
        }
        for (int sp = 1; sp < MACSIM_NSPACE; sp++)
            for (int kind = 0; kind < MACSIM_NKIND; kind++)
                for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                    macsim_ginst g = {.opcode = 140, .is_mem = 1, .space = (uint8_t)sp,
                                      .kind = (uint8_t)kind, .mem_size = (uint8_t)sizes[i]};
                    int w = macsim_sass_opcode(&ptx, &g, fam, op, sizeof op);
                    trace_space s;
                    trace_kind k;
                    int byp;
                    trace_opcode_space(op, strlen(op), &s, &k, &byp);
                    CHECK(s != TRACE_SPACE_NONE);
                    if (w != 0 && (unsigned)w != trace_opcode_width(op, strlen(op)))
                        test_fail_at(__FILE__, __LINE__, "%s: width %d", op, w);
                    CHECK(w == 0 ? strncmp(op, "LDC", 3) == 0 : w == (int)sizes[i]);
                }
    }
    for (unsigned o = 0; o < macsim_opcode_limit(&nv); o++) {
        macsim_ginst g = {.opcode = (uint8_t)o};
        if (macsim_sass_opcode(&nv, &g, ISA_AMPERE, op, sizeof op) != 0)
            test_fail_at(__FILE__, __LINE__, "nvbit %s", macsim_opcode_name(MACSIM_NVBIT, o));
    }
    macsim_ginst ldg = {.opcode = MACSIM_NVBIT_LDG, .is_mem = 1, .space = MACSIM_SPACE_GLOBAL,
                        .mem_size = 8};
    CHECK_EQ(macsim_sass_opcode(&nv, &ldg, ISA_AMPERE, op, sizeof op), 8);
    CHECK_STR(op, "LDG.E.64");
    macsim_ginst lds = {.opcode = 75};   /* LDS without is-load: not memory for MacSim */
    CHECK_EQ(macsim_sass_opcode(&nv, &lds, ISA_AMPERE, op, sizeof op), 0);
    CHECK_STR(op, "NOP");
}

/* A ptx trace of one kernel, one warp and one instruction (an EXIT), in test dir `name`. */
static char *one_exit_trace(const char *name, base_buf *b)
{
    grec ex = {.op = 40, .mask = 1};
    ptx_rec(b, &ex);
    uint32_t id = 0;
    return gpu_trace(name, "ptx", 14, 1, &id, b);
}

/* Removes, in place, every line of `text` that contains `needle`. */
static void drop_lines_with(char *text, const char *needle)
{
    char *w = text, *r = text;
    while (*r) {
        char *nl = strchr(r, '\n');
        if (nl)
            *nl = 0;
        int keep = strstr(r, needle) == NULL;
        size_t len = strlen(r);
        if (keep) {
            memmove(w, r, len);
            w += len;
            if (nl)
                *w++ = '\n';
        }
        r += len + (nl != NULL);
    }
    *w = 0;
}

TEST(macsim_cli_detection_and_usage)
{
    base_buf b = {0};
    char *dir = one_exit_trace("cli1", &b);
    test_proc p = test_lockstep("trace check %s", dir);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "ok: macsim ptx v14, 1 kernels, 1 CTAs, 1 warps, 1 warp instructions");
    p = test_lockstep("trace check %s/K0/Trace.txt", dir);   /* one kernel's Trace.txt */
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "1 thread instructions, 0 memory instructions, 0 retired by MacSim\n");
    p = test_lockstep("trace info %s/kernel_config.txt --json", dir);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "\"format\": \"macsim\"");
    /* to native in one step (through Accel-Sim text beside the output, removed after): the
     * same run as the source read in place, and nothing left but the output */
    char *nat = base_sprintf("%s/cli1-native", test_tmpdir());
    p = test_lockstep("trace convert --to native %s --out %s --binary-version=86", dir, nat);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "wrote 1 kernels, 1 CTAs, 1 warp instructions");
    char *js1 = base_sprintf("%s/cli1-native.json", test_tmpdir());
    char *js2 = base_sprintf("%s/cli1-in-place.json", test_tmpdir());
    CHECK_EQ(test_lockstep("run --threads=1 --stats-json=%s %s", js1, nat).status, 0);
    CHECK_EQ(test_lockstep("run --threads=1 --stats-json=%s %s", js2, dir).status, 0);
    char *j1 = test_read_file(js1, NULL), *j2 = test_read_file(js2, NULL);
    CHECK(j1 && j2);
    if (j1 && j2) { /* equal but for the lines naming the trace's files */
        drop_lines_with(j1, test_tmpdir());
        drop_lines_with(j2, test_tmpdir());
        CHECK_HAS(j1, "\"gpu_tot_sim_insn\": 1,");
        CHECK(!strcmp(j1, j2));
    }
    free(j1);
    free(j2);
    free(js1);
    free(js2);
    DIR *d = opendir(test_tmpdir());
    CHECK(d != NULL);
    for (struct dirent *de; d && (de = readdir(d));)
        CHECK(!strstr(de->d_name, "accelsim-"));
    if (d)
        closedir(d);
    free(nat);
    p = test_lockstep("trace convert %s", dir);
    CHECK_EQ(p.status, 2);
    p = test_lockstep("trace check %s --xz", dir);
    CHECK_EQ(p.status, 2);
    p = test_lockstep("trace convert --to accelsim %s --out %s/x --binary-version=12", dir,
                      test_tmpdir());
    CHECK_EQ(p.status, 2);
    p = test_lockstep("trace check samples/vecadd_sm80");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "ok: 1 kernels, 4 CTAs, 128 warp instructions");
    free(dir);
    base_buf_free(&b);
}

/* `run` reads a MacSim trace in place (no temporary directory), and a GPU whose compute
 * capability has no opcode table (the Fermi preset's 20) takes the nearest. */
TEST(macsim_run_in_place_and_takes_the_nearest_table)
{
    base_buf b = {0};
    char *dir = one_exit_trace("run1", &b);
    /* nothing is written: a TMPDIR that does not exist is never needed */
    const char *was = getenv("TMPDIR");
    char *old = was ? base_strdup(was) : NULL;
    char *gone = base_sprintf("%s/no such dir", test_tmpdir());
    setenv("TMPDIR", gone, 1);
    test_proc p = test_lockstep("run --threads=1 %s", dir);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "gpu_tot_sim_insn = 1\n");
    CHECK_HAS(p.err, "read in place (1 kernels, 1 warp instructions) for compute capability 86\n");
    /* the output names the source and each kernel's Trace.txt */
    char *head = base_sprintf("# trace %s: 1 kernels", dir);
    CHECK_HAS(p.out, head);
    free(head);
    head = base_sprintf(", %s/K0/Trace.txt)\n", dir);
    CHECK_HAS(p.out, head);
    free(head);
    CHECK(!strstr(p.err, "warning"));
    p = test_lockstep("run --threads=1 --preset=gtx480 %s", dir);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.err, "for compute capability 20 (with the kepler opcode table of 30)\n");
    if (old)
        setenv("TMPDIR", old, 1);
    else
        unsetenv("TMPDIR");
    free(old);
    free(gone);
    free(dir);
    base_buf_free(&b);
}
