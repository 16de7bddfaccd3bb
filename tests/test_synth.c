/* synth: the framework (parameters, writer, determinism, CLI) and the streaming workloads,
 * checked against counts computed by hand and against a real nvcc trace. */
#include "test.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base.h"
#include "synth_util.h"
#include "trace/trace.h"
#include "trace/write.h"

static int same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *x = test_read_file(a, &na), *y = test_read_file(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

TEST(synth_format_line_address_modes)
{
    uint64_t a[32] = {0};
    for (int i = 0; i < 32; i++)
        a[i] = 0x7f0000001000ull + 4u * (unsigned)i;
    base_buf b = {0};
    trace_wline l = {0x90, 0xffffffffu, 1, 0, 4, {2, 0, 0, 0, 0}, "LDG.E", 4, a, 0};
    l.nsrc = 1;
    trace_format_line(&b, &l);
    CHECK_STR(b.s, "0090 ffffffff 1 R4 LDG.E 1 R2 4 1 0x7f0000001000 4 0 \n");
    b.len = 0;
    l.mask = 0; /* fully predicated off: the tracer's "1 0x0 0" */
    trace_format_line(&b, &l);
    CHECK_STR(b.s, "0090 00000000 1 R4 LDG.E 1 R2 4 1 0x0 0 0 \n");
    b.len = 0;
    l.mask = 0x4; /* one lane: mode 2 without deltas */
    trace_format_line(&b, &l);
    CHECK_STR(b.s, "0090 00000004 1 R4 LDG.E 1 R2 4 2 0x7f0000001008 0 \n");
    b.len = 0;
    l.mask = 0x16; /* lanes 1, 2, 4: not one run, so mode 2 with deltas from the previous lane */
    trace_format_line(&b, &l);
    CHECK_STR(b.s, "0090 00000016 1 R4 LDG.E 1 R2 4 2 0x7f0000001004 4 8 0 \n");
    b.len = 0;
    for (int i = 0; i < 32; i++)
        a[i] = 0x7f0000100000ull - 128u * (unsigned)i; /* negative stride still mode 1 */
    l.mask = 0xff;
    l.ndst = 0;
    l.opcode = "STG.E";
    l.imm = 0x80000000ll; /* printed as the tracer's 32-bit signed conversion */
    trace_format_line(&b, &l);
    CHECK_STR(b.s, "0090 000000ff 0 STG.E 1 R2 4 1 0x7f0000100000 -128 -2147483648 \n");
    base_buf_free(&b);
}

/* The line format with printf, as the tracer's own writer spells it: what the hand-built
 * trace_format_line must equal byte for byte. */
static void printf_line(base_buf *b, const trace_wline *l)
{
    base_buf_printf(b, "%04" PRIx64 " %08" PRIx32 " %u", l->pc, l->mask, (unsigned)l->ndst);
    if (l->ndst)
        base_buf_printf(b, " R%u", (unsigned)l->dst);
    base_buf_printf(b, " %s %u", l->opcode, (unsigned)l->nsrc);
    for (unsigned i = 0; i < l->nsrc; i++)
        base_buf_printf(b, " R%u", (unsigned)l->src[i]);
    base_buf_printf(b, " %" PRIu32, l->width);
    if (l->width && !l->mask) {
        base_buf_puts(b, " 1 0x0 0");
    } else if (l->width) {
        int first = __builtin_ctz(l->mask), last = 31 - __builtin_clz(l->mask), one = 0;
        uint32_t run = l->mask >> first;
        int64_t d = first < 31 ? (int64_t)(l->addr[first + 1] - l->addr[first]) : 0;
        if ((run & (run + 1)) == 0 && run >= 3 && d >= INT32_MIN && d <= INT32_MAX) {
            one = 1;
            for (int i = first + 1; i <= last; i++)
                one &= (int64_t)(l->addr[i] - l->addr[i - 1]) == d;
        }
        if (one) {
            base_buf_printf(b, " 1 0x%" PRIx64 " %" PRId64, l->addr[first], d);
        } else {
            base_buf_printf(b, " 2 0x%" PRIx64, l->addr[first]);
            for (int i = first + 1, prev = first; i < 32; i++)
                if (l->mask >> i & 1) {
                    base_buf_printf(b, " %" PRId64, (int64_t)(l->addr[i] - l->addr[prev]));
                    prev = i;
                }
        }
    }
    base_buf_printf(b, " %" PRId32 " \n", (int32_t)(uint32_t)l->imm);
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random lines, appended one after another (the writers reuse one buffer), each field over
 * its whole range: strides that fit 32 bits and ones that do not, lanes in runs and not,
 * large pcs and registers, negative immediates. */
TEST(synth_format_line_equals_printf)
{
    static const char *const ops[] = {"LDG.E.128.SYS", "IMAD", "ATOMG.E.ADD.F32.FTZ.RN", "X"};
    base_buf got = {0}, want = {0};
    uint64_t seed = 0x9e3779b97f4a7c15ull, a[32];
    for (int n = 0; n < 3000; n++) {
        trace_wline l = {0};
        uint64_t r = rnd(&seed);
        l.pc = r % 3 == 0 ? rnd(&seed) : rnd(&seed) & 0xfff;
        l.mask = r >> 8 & 1 ? 0xffffffffu << (r >> 16 & 31) >> (r >> 24 & 15) : (uint32_t)rnd(&seed);
        l.mask = r >> 32 & 7 ? l.mask : 0;
        l.ndst = r >> 36 & 1;
        l.dst = (uint16_t)rnd(&seed);
        l.nsrc = (uint8_t)(r >> 40) % 6;
        for (int i = 0; i < 5; i++)
            l.src[i] = (uint16_t)(rnd(&seed) >> (r >> 44 & 1 ? 0 : 56));
        l.opcode = ops[r >> 48 & 3];
        l.width = r >> 50 & 1 ? (uint32_t)(r >> 51 & 3) * 4 : (r >> 53 & 1 ? 0 : UINT32_MAX);
        static const int64_t edge[] = {INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1,
                                       (int64_t)INT32_MIN - 1};
        uint64_t base = rnd(&seed), step = r >> 54 & 1 ? rnd(&seed) : rnd(&seed) % 512 - 256;
        if ((r >> 56 & 3) == 0)
            step = (uint64_t)edge[r >> 58 & 3];
        for (int i = 0; i < 32; i++)
            a[i] = r >> 55 & 1 ? base + step * (uint64_t)i : rnd(&seed);
        l.addr = a;
        l.imm = (int64_t)rnd(&seed);
        trace_format_line(&got, &l);
        printf_line(&want, &l);
    }
    CHECK_EQ(got.len, want.len);
    CHECK(got.len == want.len && memcmp(got.s, want.s, got.len) == 0);
    base_buf_free(&got);
    base_buf_free(&want);
}

TEST(synth_vectoradd_counts_by_hand)
{
    synth_result r;
    const char *dir = sy_gen("vectoradd", "n=1000 block=256", 0, &r);
    if (!dir)
        return;
    /* 4 CTAs x 8 warps; every warp has a lane below n, so all run the 17-instruction body.
     * Threads: 31 full warps x (16 x 32) (the guard EXIT has mask 0) + the last warp:
     * 5 x 32 prologue + 24 exiting lanes + 11 x 8 lanes (elements 992..999). */
    CHECK_EQ(r.kernels, 1);
    CHECK_EQ(r.memcpys, 2);
    CHECK_EQ(r.ctas, 4);
    CHECK_EQ(r.warps, 32);
    CHECK_EQ(r.warp_insts, 32 * 17);
    CHECK_EQ(r.thread_insts, 31 * 16 * 32 + 5 * 32 + 24 + 11 * 8);
    sy_prof p;
    if (sy_profile(dir, 1, NULL, &p))
        return;
    CHECK_EQ(p.warp_insts, r.warp_insts);
    CHECK_EQ(p.thread_insts, r.thread_insts);
    const sy_pc *ld = sy_find(&p, "LDG.E", 0);
    CHECK(ld != NULL);
    if (ld) { /* full warps: 32 lanes x 4 bytes = one 128-byte line, 4 sectors */
        CHECK_EQ(ld->sectors_max, 4);
        CHECK_EQ(ld->sectors_min, 1); /* the last warp: 8 lanes = 32 bytes */
        CHECK_EQ(ld->lines, 32);
    }
    trace_summary s;
    base_err e = {0};
    CHECK_EQ(trace_summarize(dir, &s, &e), 0);
    CHECK_EQ(s.memcpy_bytes, 8000);
    sy_prof_free(&p);
}

/* Addresses become offsets from the first memcpy destination, so traces that differ only in
 * where the allocator put the buffers compare equal. Header lines are skipped. */
static char *normalise(const char *text, const char *list)
{
    uint64_t base = 0;
    const char *m = strstr(list, "MemcpyHtoD,0x");
    if (m)
        base = strtoull(m + 13, NULL, 16);
    base_buf b = {0};
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (*s != '-') {
            for (size_t i = 0; i < n; i++) {
                if (s[i] == '0' && i + 3 < n && s[i + 1] == 'x' && s[i + 2] == '7') {
                    char *end;
                    uint64_t v = strtoull(s + i + 2, &end, 16);
                    base_buf_printf(&b, "@%" PRIx64, v - base);
                    i = (size_t)(end - s) - 1;
                } else {
                    base_buf_putc(&b, s[i]);
                }
            }
            base_buf_putc(&b, '\n');
        }
        s += n + (nl != NULL);
    }
    return b.s;
}

TEST(synth_vectoradd_matches_real_nvcc_trace)
{
    const char *real = test_shared_path("traces/accelsim/vectoradd_sm80_v5");
    if (!real)
        return;
    char rk[600], rl[600];
    snprintf(rk, sizeof rk, "%s/kernel-1.traceg", real);
    snprintf(rl, sizeof rl, "%s/kernelslist.g", real);
    char *rt = test_read_file(rk, NULL), *rlist = test_read_file(rl, NULL);
    const char *dir = sy_gen("vectoradd", "n=50000 block=256", 0, NULL);
    if (!dir || !rt || !rlist) {
        CHECK(0);
        return;
    }
    char ok[600], ol[600];
    snprintf(ok, sizeof ok, "%s/kernel-1.traceg", dir);
    snprintf(ol, sizeof ol, "%s/kernelslist.g", dir);
    char *ot = test_read_file(ok, NULL), *olist = test_read_file(ol, NULL);
    char *a = normalise(rt, rlist), *b = normalise(ot, olist);
    /* Same CTAs, warps, masks, registers, opcodes and per-lane address offsets, line for line:
     * the real trace is the CUDA sample vectorAdd on 50,000 elements. */
    CHECK(a && b && strcmp(a, b) == 0);
    free(a), free(b), free(rt), free(rlist), free(ot), free(olist);
}

TEST(synth_saxpy_sectors_per_stride)
{
    static const struct { int stride, sectors, lines; } cases[] = {
        {1, 4, 1}, {2, 8, 2}, {4, 16, 4}, {8, 32, 8}, {32, 32, 32}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char params[64];
        snprintf(params, sizeof params, "n=2048 block=128 stride=%d", cases[i].stride);
        const char *dir = sy_gen("saxpy-stride", params, 0, NULL);
        sy_prof p;
        if (!dir || sy_profile(dir, 1, NULL, &p))
            return;
        /* 32 lanes x 4 bytes at a stride of s elements: 32 sectors at most, 4 per line. */
        for (int k = 0; k < 3; k++) {
            const sy_pc *m = sy_find(&p, k < 2 ? "LDG.E" : "STG.E", k < 2 ? k : 0);
            CHECK(m != NULL);
            if (!m)
                continue;
            CHECK_EQ(m->execs, 2048 / 32);
            CHECK_EQ(m->sectors_min, cases[i].sectors);
            CHECK_EQ(m->sectors_max, cases[i].sectors);
            CHECK_EQ(m->lines, (uint64_t)cases[i].lines * (2048 / 32));
        }
        CHECK_EQ(p.warp_insts, (2048 / 32) * 16); /* 6 prologue + 10 body instructions */
        sy_prof_free(&p);
    }
}

TEST(synth_output_is_deterministic)
{
    const char *d1 = sy_gen("saxpy-stride", "n=3000 stride=2", 1, NULL);
    char a[600];
    snprintf(a, sizeof a, "%s/kernel-1.traceg.xz", d1 ? d1 : "");
    const char *d2 = sy_gen("saxpy-stride", "n=3000 stride=2", 1, NULL);
    char b[600];
    snprintf(b, sizeof b, "%s/kernel-1.traceg.xz", d2 ? d2 : "");
    CHECK(d1 && d2 && same_file(a, b));
    char la[600], lb[600];
    snprintf(la, sizeof la, "%s/synth.txt", d1 ? d1 : "");
    snprintf(lb, sizeof lb, "%s/synth.txt", d2 ? d2 : "");
    CHECK(same_file(la, lb));
    trace_summary s;
    base_err e = {0};
    CHECK_EQ(trace_summarize(d2, &s, &e), 0);
    /* 12 CTAs x 8 warps: ceil(3000 / 32) = 94 warps run all 16 instructions, the last two
     * only the 6 of the prologue (their guard EXIT retires every lane) */
    CHECK_EQ(s.warp_insts, 94 * 16 + 2 * 6);
}

TEST(synth_parameters)
{
    synth_values sv;
    base_err e = {0};
    synth_values_init(&sv, synth_find("saxpy-stride"));
    CHECK_EQ(synth_values_set(&sv, "n", "64K", &e), 0);
    CHECK_EQ(sv.v[0], 65536);
    CHECK_EQ(synth_values_set(&sv, "block", "0x80", &e), 0);
    CHECK_EQ(sv.v[1], 128);
    CHECK(synth_values_set(&sv, "strid", "2", &e) != 0);
    CHECK_HAS(e.msg, "unknown parameter --strid (closest: stride");
    base_err_clear(&e);
    CHECK(synth_values_set(&sv, "stride", "0", &e) != 0);
    CHECK_HAS(e.msg, "out of range [1, 1024]");
    base_err_clear(&e);
    CHECK(synth_values_set(&sv, "n", "12x", &e) != 0);
    CHECK_HAS(e.msg, "expected an integer, found '12x'");
    CHECK(synth_values_set(&sv, "n", "9999999999G", &e) != 0);
    CHECK_EQ(synth_values_count(&sv), 4);
    CHECK_STR(synth_values_name(&sv, 3), "seed");
    CHECK(synth_find("nosuch") == NULL);
}

TEST(synth_rewrite_removes_stale_kernels)
{
    const char *dir = sy_gen("vectoradd", "n=64", 0, NULL);
    if (!dir)
        return;
    char stale[600], list[600];
    snprintf(stale, sizeof stale, "%s/kernel-7.traceg", dir);
    snprintf(list, sizeof list, "%s/kernelslist.g", dir);
    FILE *f = fopen(stale, "w");
    if (f)
        fclose(f);
    synth_values sv;
    base_err e = {0};
    synth_values_init(&sv, synth_find("vectoradd"));
    CHECK_EQ(synth_write(&sv, dir, 0, NULL, &e), 0);
    struct stat st;
    CHECK(stat(stale, &st) != 0);
    char *l = test_read_file(list, NULL);
    CHECK_STR(l, "MemcpyHtoD,0x00007f2e3c000000,65536\nMemcpyHtoD,0x00007f2e3c010000,65536\n"
                 "kernel-1.traceg\n");
    free(l);
    /* a path that cannot be a directory: a clear error, nothing written */
    char file[600];
    snprintf(file, sizeof file, "%s/synth.txt/sub", dir);
    CHECK(synth_write(&sv, file, 0, NULL, &e) != 0);
    CHECK_HAS(e.msg, "cannot create directory");
}

TEST(synth_cli)
{
    test_proc p = test_lockstep("synth --list");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "vectoradd");
    CHECK_HAS(p.out, "saxpy-stride");
    p = test_lockstep("synth vectoradd --help");
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "--n "); /* the workload's parameters, as the general help promises */
    CHECK_HAS(p.out, "--block ");
    p = test_lockstep("synth gather --help");
    CHECK_HAS(p.out, "--footprint");
    p = test_lockstep("synth --help");
    CHECK_HAS(p.out, "WORKLOAD --help' lists");
    p = test_lockstep("synth vectoradd --n=300 --block 128 --out %s/cli --xz", test_tmpdir());
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "1 kernel, 2 memcpys, 3 CTAs, 12 warps");
    p = test_lockstep("trace check %s/cli", test_tmpdir());
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "ok: 1 kernels, 3 CTAs");
    p = test_lockstep("run %s/cli", test_tmpdir()); /* the run totals count the copies too */
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "1 kernels, 2 memcpys (2400 bytes)");
    CHECK_HAS(p.out, "gpgpu_n_tot_w_icount = ");
    p = test_lockstep("synth vectorad --out %s/x", test_tmpdir());
    CHECK_EQ(p.status, 2);
    CHECK_HAS(p.err, "unknown workload 'vectorad' (closest: vectoradd");
    p = test_lockstep("synth vectoradd --n=0 --out %s/x", test_tmpdir());
    CHECK_EQ(p.status, 2);
    CHECK_HAS(p.err, "--n=0 is out of range");
    p = test_lockstep("synth vectoradd --n=10");
    CHECK_EQ(p.status, 2);
    CHECK_HAS(p.err, "--out DIR is required");
}
