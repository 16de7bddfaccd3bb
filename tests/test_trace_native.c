/* The native binary trace format (docs/NATIVE.md): CTA-for-CTA equality with the text
 * reader on every sample and shared trace, random access by CTA, text -> native -> text ->
 * native identity, corrupt and truncated files, and identical simulator statistics. */
#include "test.h"

#include "trace/trace.h"
#include "trace/trace_native.h"
#include "trace_util.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

/* ---- comparisons ---- */

/* Both kernels deliver the same header, CTAs (one by one) and dictionary. */
static void compare_kernels(const char *text, const char *native)
{
    base_err e = {0};
    trace_kernel *a = trace_kernel_open(text, &e), *b = trace_kernel_open(native, &e);
    CHECK(a && b);
    if (!a || !b) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        trace_kernel_close(a);
        trace_kernel_close(b);
        return;
    }
    CHECK(!trace_kernel_is_native(a) && trace_kernel_is_native(b));
    CHECK(tu_same_header(trace_kernel_header(a), trace_kernel_header(b)));
    trace_cta ca = {0}, cb = {0};
    int ra, rb;
    uint64_t n = 0;
    while ((ra = trace_next_cta(a, &ca, &e)) == 1 && (rb = trace_next_cta(b, &cb, &e)) == 1) {
        if (!tu_same_cta(&ca, &cb) || trace_kernel_nsinst(a) != trace_kernel_nsinst(b)) {
            test_fail_at(__FILE__, __LINE__, "%s: CTA %llu differs from the text's", native,
                         (unsigned long long)n);
            break;
        }
        n++;
    }
    if (ra == 0)
        rb = trace_next_cta(b, &cb, &e);
    CHECK_EQ(ra, 0);
    CHECK_EQ(rb, 0);
    CHECK_EQ(trace_kernel_nctas(b), n);
    CHECK_EQ(trace_kernel_nsinst(a), trace_kernel_nsinst(b));
    for (uint32_t i = 0; i < trace_kernel_nsinst(a); i++)
        if (!tu_same_sinst(a, b, i)) {
            test_fail_at(__FILE__, __LINE__, "%s: dictionary entry %u differs", native, i);
            break;
        }
    trace_cta_free(&ca);
    trace_cta_free(&cb);
    trace_kernel_close(a);
    trace_kernel_close(b);
}

/* Converts a trace directory and compares every kernel with its source. */
static void check_trace(const char *src, const char *tag)
{
    base_err e = {0};
    char *dir = base_sprintf("%s/nat-%s", test_tmpdir(), tag);
    trace_convert_summary s = {0};
    if (trace_convert_native(src, dir, 19, &s, &e)) {
        test_fail_at(__FILE__, __LINE__, "%s: %s", src, e.msg);
        free(dir);
        return;
    }
    trace_list la, lb;
    CHECK_EQ(trace_list_open(src, &la, &e), 0);
    CHECK_EQ(trace_list_open(dir, &lb, &e), 0);
    CHECK_EQ(la.ncmds, lb.ncmds);
    for (size_t i = 0; i < la.ncmds && i < lb.ncmds; i++) {
        CHECK_EQ(la.cmds[i].kind, lb.cmds[i].kind);
        if (la.cmds[i].kind == TRACE_CMD_KERNEL)
            compare_kernels(la.cmds[i].path, lb.cmds[i].path);
        else
            CHECK_STR(la.cmds[i].text, lb.cmds[i].text);
    }
    trace_summary ta, tb;
    CHECK_EQ(trace_summarize(src, &ta, &e), 0);
    CHECK_EQ(trace_summarize(dir, &tb, &e), 0);
    CHECK(!memcmp(&ta, &tb, sizeof ta));
    CHECK_EQ(s.warp_insts, ta.warp_insts);
    trace_list_free(&la);
    trace_list_free(&lb);
    free(dir);
}

/* Calls fn on every trace directory under root. */
static int each_dir(const char *root, void (*fn)(const char *path, const char *name))
{
    DIR *d = opendir(root);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char *p = base_sprintf("%s/%s", root, de->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            fn(p, de->d_name);
            n++;
        }
        free(p);
    }
    closedir(d);
    return n;
}

static void check_one(const char *path, const char *name) { check_trace(path, name); }

/* The split reader (pools of 1 and 7 chunks) against trace_next_cta on every kernel of a
 * trace directory. */
static void check_split(const char *src, const char *name)
{
    base_err e = {0};
    trace_list l;
    if (trace_list_open(src, &l, &e)) {
        test_fail_at(__FILE__, __LINE__, "%s: %s", src, e.msg);
        return;
    }
    for (size_t i = 0; i < l.ncmds; i++) {
        if (l.cmds[i].kind != TRACE_CMD_KERNEL)
            continue;
        for (unsigned pool = 1; pool <= 7; pool += 6) {
            trace_kernel *a = trace_kernel_open(l.cmds[i].path, &e);
            trace_kernel *b = trace_kernel_open(l.cmds[i].path, &e);
            CHECK(a && b);
            if (a && b)
                CHECK(tu_check_split(a, b, pool, pool, name) > 0);
            trace_kernel_close(a);
            trace_kernel_close(b);
        }
    }
    trace_list_free(&l);
}

TEST(split_reader_matches_text_on_samples_and_shared_traces)
{
    CHECK(each_dir("samples/synth", check_split) >= 10);
    check_split("samples/vecadd_sm80", "vecadd_sm80");
    const char *p = test_shared_path("traces/accelsim");
    if (p)
        CHECK(each_dir(p, check_split) >= 5);
}

TEST(native_matches_text_on_samples)
{
    CHECK(each_dir("samples/synth", check_one) >= 10);
    check_trace("samples/vecadd_sm80", "vecadd_sm80");
}

TEST(native_matches_text_on_shared_traces)
{
    const char *p = test_shared_path("traces/accelsim");
    if (p)
        CHECK(each_dir(p, check_one) >= 5);
}

/* ---- text -> native -> text -> native ---- */

static char *slurp(const char *path, size_t *n)
{
    char *s = test_read_file(path, n);
    if (!s)
        test_fail_at(__FILE__, __LINE__, "cannot read %s", path);
    return s;
}

static void check_identity(const char *src, const char *name)
{
    base_err e = {0};
    char *n1 = base_sprintf("%s/id1-%s", test_tmpdir(), name);
    char *t1 = base_sprintf("%s/idt-%s", test_tmpdir(), name);
    char *n2 = base_sprintf("%s/id2-%s", test_tmpdir(), name);
    int rc = trace_convert_native(src, n1, 19, NULL, &e) ||
             trace_convert_accelsim(n1, t1, 0, NULL, &e) ||
             trace_convert_native(t1, n2, 19, NULL, &e);
    if (rc)
        test_fail_at(__FILE__, __LINE__, "%s: %s", src, e.msg);
    trace_list l;
    if (rc == 0 && trace_list_open(n1, &l, &e) == 0) {
        for (size_t i = 0; i < l.ncmds; i++) {
            if (l.cmds[i].kind != TRACE_CMD_KERNEL)
                continue;
            char *other = base_sprintf("%s/%s", n2, l.cmds[i].text);
            size_t na, nb;
            char *a = slurp(l.cmds[i].path, &na), *b = slurp(other, &nb);
            if (!a || !b || na != nb || memcmp(a, b, na))
                test_fail_at(__FILE__, __LINE__, "%s: %s differs after a text round trip",
                             name, l.cmds[i].text);
            free(a);
            free(b);
            free(other);
        }
        trace_list_free(&l);
        trace_summary a, b;
        CHECK_EQ(trace_summarize(src, &a, &e), 0);
        CHECK_EQ(trace_summarize(t1, &b, &e), 0);
        CHECK(!memcmp(&a, &b, sizeof a));
    }
    free(n1);
    free(t1);
    free(n2);
}

TEST(native_text_round_trip_is_identical)
{
    CHECK(each_dir("samples/synth", check_identity) >= 10);
    check_identity("samples/vecadd_sm80", "vecadd_sm80");
    const char *p = test_shared() ? test_shared_path("traces/accelsim") : NULL;
    if (p)
        each_dir(p, check_identity);
}

/* ---- random access and streaming ---- */

/* A native copy of one sample kernel with blocks of about `target` raw bytes. */
static char *small_blocks(const char *src, const char *name, uint64_t target, int level)
{
    base_err e = {0};
    char *dst = base_sprintf("%s/%s", test_tmpdir(), name);
    if (trace_nat_write(src, dst, level, target, NULL, &e)) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        free(dst);
        return NULL;
    }
    return dst;
}

typedef struct ctas {
    trace_cta *c;
    size_t n;
} ctas;

static void read_all(trace_kernel *k, ctas *all)
{
    base_err e = {0};
    all->c = base_calloc(trace_kernel_nctas(k) + 1, sizeof *all->c);
    all->n = 0;
    while (trace_next_cta(k, &all->c[all->n], &e) == 1)
        all->n++;
    CHECK_EQ(all->n, trace_kernel_nctas(k));
}

static void free_all(ctas *all)
{
    for (size_t i = 0; i <= all->n; i++)
        trace_cta_free(&all->c[i]);
    free(all->c);
}

TEST(native_seek_by_cta)
{
    char *p = small_blocks("samples/synth/stencil2d/kernel-1.traceg.xz", "seek.lsn", 512, 19);
    base_err e = {0};
    trace_kernel *k = p ? trace_kernel_open(p, &e) : NULL;
    CHECK(k != NULL);
    if (!k) {
        free(p);
        return;
    }
    ctas all;
    read_all(k, &all);
    CHECK(all.n > 100);
    trace_cta c = {0};
    uint64_t order[] = {0, 5, 6, 5, 127, 64, 3, 100, 101, 102, 1, 0, 127};
    for (size_t i = 0; i < BASE_ARRAY_LEN(order) && order[i] < all.n; i++) {
        CHECK_EQ(trace_kernel_seek_cta(k, order[i], &e), 0);
        CHECK_EQ(trace_next_cta(k, &c, &e), 1);
        CHECK(tu_same_cta(&c, &all.c[order[i]]));
    }
    CHECK_EQ(trace_kernel_seek_cta(k, all.n, &e), 0);  /* the end */
    CHECK_EQ(trace_next_cta(k, &c, &e), 0);
    CHECK_EQ(trace_kernel_seek_cta(k, all.n + 1, &e), -1);
    CHECK_HAS(e.msg, "CTA index");
    trace_cta_free(&c);
    free_all(&all);
    trace_kernel_close(k);
    free(p);
}

TEST(native_seek_on_text_is_an_error)
{
    base_err e = {0};
    trace_kernel *k = trace_kernel_open("samples/vecadd_sm80/kernel-1.traceg", &e);
    CHECK(k != NULL);
    if (!k)
        return;
    CHECK_EQ(trace_kernel_seek_cta(k, 1, &e), -1);
    CHECK_HAS(e.msg, "native");
    CHECK_EQ(trace_kernel_nctas(k), UINT64_MAX);
    trace_kernel_close(k);
}

TEST(native_streams_block_by_block)
{
    char *p = small_blocks("samples/synth/stencil2d/kernel-1.traceg.xz", "stream.lsn", 512, 19);
    base_err e = {0};
    trace_kernel *k = p ? trace_kernel_open(p, &e) : NULL;
    CHECK(k != NULL);
    if (!k) {
        free(p);
        return;
    }
    struct stat st;
    CHECK_EQ(stat(p, &st), 0);
    trace_cta c = {0};
    CHECK_EQ(trace_next_cta(k, &c, &e), 1);
    CHECK(trace_kernel_bytes(k) < (uint64_t)st.st_size / 2);  /* tail + first block only */
    while (trace_next_cta(k, &c, &e) == 1)
        ;
    CHECK(trace_kernel_bytes(k) >= (uint64_t)st.st_size - 32);
    trace_cta_free(&c);
    trace_kernel_close(k);
    free(p);
}

/* ---- corrupt input ---- */

/* Opens and reads all of data: 0 when it all read, -1 with e set otherwise. */
static int read_mem(const uint8_t *data, size_t n, const trace_native_opts *o, base_err *e)
{
    base_err_clear(e);
    trace_kernel *k = o ? trace_nat_open("mem.lsn", data, n, o, e)
                        : trace_kernel_open_mem("mem.lsn", data, n, e);
    if (!k)
        return -1;
    trace_cta c = {0};
    int rc;
    while ((rc = trace_next_cta(k, &c, e)) == 1)
        ;
    if (rc == 0 && o && trace_kernel_nctas(k) > 1 &&
        (trace_kernel_seek_cta(k, 1, e) || trace_next_cta(k, &c, e) < 0))
        rc = -1;
    trace_cta_free(&c);
    trace_kernel_close(k);
    return rc;
}

static uint8_t *load(const char *p, size_t *n)
{
    char *s = p ? test_read_file(p, n) : NULL;
    CHECK(s != NULL);
    return (uint8_t *)s;
}

TEST(native_every_corrupt_byte_is_an_error)
{
    static const int levels[] = {19, 0};
    for (int li = 0; li < 2; li++) {
        char *p = small_blocks("samples/vecadd_sm80/kernel-1.traceg", "corrupt.lsn", 64,
                               levels[li]);
        size_t n;
        uint8_t *d = load(p, &n);
        base_err e = {0};
        if (!d) {
            free(p);
            return;
        }
        CHECK_EQ(read_mem(d, n, NULL, &e), 0);
        for (size_t i = 0; i < n; i++) {
            static const uint8_t flips[] = {0x01, 0x80, 0xff};
            for (int f = 0; f < 3; f++) {
                d[i] ^= flips[f];
                if (read_mem(d, n, NULL, &e) != -1 || !e.msg[0])
                    test_fail_at(__FILE__, __LINE__, "byte %zu ^ %02x of %zu read without "
                                 "error", i, flips[f], n);
                d[i] ^= flips[f];
            }
        }
        free(d);
        free(p);
    }
}

TEST(native_every_truncation_is_an_error)
{
    char *p = small_blocks("samples/vecadd_sm80/kernel-1.traceg", "trunc.lsn", 64, 19);
    size_t n;
    uint8_t *d = load(p, &n);
    base_err e = {0};
    for (size_t len = 0; d && len < n; len++) {
        uint8_t *t = base_malloc(len + 1);  /* exact size, so ASan sees any overread */
        memcpy(t, d, len);
        if (read_mem(t, len, NULL, &e) != -1)
            test_fail_at(__FILE__, __LINE__, "truncated at %zu of %zu read without error", len,
                         n);
        free(t);
    }
    free(d);
    free(p);
}

/* Without checksums every corruption reaches the decoders: errors, never a crash. */
TEST(native_unchecked_corruption_never_crashes)
{
    trace_native_opts o = {1, 1u << 20, 1u << 16};
    static const int levels[] = {0, 19};
    for (int li = 0; li < 2; li++) {
        char *p = small_blocks("samples/synth/branchy/kernel-1.traceg.xz", "unchecked.lsn",
                               4096, levels[li]);
        size_t n;
        uint8_t *d = load(p, &n);
        base_err e = {0};
        if (d)
            CHECK_EQ(read_mem(d, n, &o, &e), 0);
        for (size_t i = 0; d && i < n; i += 1 + n / 512) {
            for (int v = 1; v < 256; v += 37) {
                d[i] ^= (uint8_t)v;
                read_mem(d, n, &o, &e);
                d[i] ^= (uint8_t)v;
            }
        }
        free(d);
        free(p);
    }
}

TEST(native_bad_footer_offsets)
{
    char *p = small_blocks("samples/vecadd_sm80/kernel-1.traceg", "offsets.lsn", 64, 19);
    size_t n;
    uint8_t *d = load(p, &n);
    trace_native_opts o = {1, 0, 0};
    base_err e = {0};
    if (!d) {
        free(p);
        return;
    }
    uint8_t *f = d + n - TRACE_NAT_FOOTER;
    uint32_t len = trace_nat_get32(f);
    trace_nat_put32(f, UINT32_MAX);   /* tail beyond the start of the file */
    CHECK_EQ(read_mem(d, n, &o, &e), -1);
    CHECK_HAS(e.msg, "byte offset");
    CHECK_HAS(e.msg, "tail");
    trace_nat_put32(f, len - 1);      /* tail one byte short: its decoding fails */
    CHECK_EQ(read_mem(d, n, &o, &e), -1);
    trace_nat_put32(f, len);
    trace_nat_put32(f + 8, 7);        /* unknown method */
    CHECK_EQ(read_mem(d, n, &o, &e), -1);
    CHECK_HAS(e.msg, "method");
    trace_nat_put32(f + 8, TRACE_NAT_ZSTD);
    CHECK_EQ(read_mem(d, n, &o, &e), 0);
    /* a checksum mismatch is reported as such */
    d[TRACE_NAT_HEADER] ^= 0x55;
    CHECK_EQ(read_mem(d, n, NULL, &e), -1);
    CHECK_HAS(e.msg, "mem.lsn: byte offset 8: expected the block checksum");
    free(d);
    free(p);
}

/* ---- the command line ---- */

/* The stats file without the lines that name the trace. */
static char *stats_without_paths(const char *path)
{
    size_t n;
    char *s = test_read_file(path, &n);
    if (!s)
        return NULL;
    size_t o = 0;
    for (char *line = s; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
        if (!strstr(line, "\"trace\":") && !strstr(line, "\"file\":")) {
            memmove(s + o, line, len);
            o += len;
        }
        line += len;
        if (line >= s + n)
            break;
    }
    s[o] = 0;
    return s;
}

TEST(native_sim_stats_identical_to_text)
{
    const char *t = test_tmpdir();
    test_proc p = test_lockstep("trace convert --to native samples/synth/reduce --out %s/simn", t);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "wrote 1 kernels");
    p = test_lockstep("run --stats-json=%s/text.json samples/synth/reduce", t);
    CHECK_EQ(p.status, 0);
    p = test_lockstep("run --stats-json=%s/native.json %s/simn", t, t);
    CHECK_EQ(p.status, 0);
    char *a = base_sprintf("%s/text.json", t), *b = base_sprintf("%s/native.json", t);
    char *sa = stats_without_paths(a), *sb = stats_without_paths(b);
    CHECK(sa && sb && strlen(sa) > 1000);
    if (sa && sb && strcmp(sa, sb) != 0)
        test_fail_at(__FILE__, __LINE__, "statistics differ between %s and %s", a, b);
    free(sa);
    free(sb);
    free(a);
    free(b);
}

TEST(native_cli_convert_info_check)
{
    const char *t = test_tmpdir();
    test_proc p = test_lockstep("trace convert --to native samples/synth/multi --out %s/cli "
                                "--level=3", t);
    CHECK_EQ(p.status, 0);
    p = test_lockstep("trace check %s/cli", t);
    CHECK_EQ(p.status, 0);
    test_proc q = test_lockstep("trace check samples/synth/multi");
    CHECK_STR(strchr(p.out, ':'), strchr(q.out, ':'));
    p = test_lockstep("trace info %s/cli/kernel-2%s", t, TRACE_NATIVE_SUFFIX);
    CHECK_EQ(p.status, 0);
    CHECK_HAS(p.out, "kernel1.warp_insts");
    p = test_lockstep("trace convert --to accelsim %s/cli --out %s/back --xz", t, t);
    CHECK_EQ(p.status, 0);
    p = test_lockstep("trace check %s/back", t);
    CHECK_EQ(p.status, 0);
    CHECK_STR(strchr(p.out, ':'), strchr(q.out, ':'));
    p = test_lockstep("trace convert --to native samples/synth/multi --out %s/x --level=23", t);
    CHECK_EQ(p.status, 2);
    p = test_lockstep("trace convert --to native samples/synth/multi --out %s/x --xz", t);
    CHECK_EQ(p.status, 2);
    /* a corrupt kernel: one line naming the file and the byte offset, exit status 3 */
    char *k = base_sprintf("%s/cli/kernel-1%s", t, TRACE_NATIVE_SUFFIX);
    size_t n;
    char *d = test_read_file(k, &n);
    CHECK(d && n > 40);
    if (d && n > 40) {
        d[n / 2] ^= 0x20;
        test_write_file("bad/kernel-1.lsn.traceg", d, n);
        p = test_lockstep("trace check %s/bad/kernel-1.lsn.traceg", t);
        CHECK_EQ(p.status, 3);
        CHECK_HAS(p.err, "kernel-1.lsn.traceg: byte offset");
    }
    free(d);
    free(k);
}

/* ---- formats the samples do not have ---- */

/* Tracer v6 with lineinfo and clusters, warps out of order and missing, an instruction that
 * has addresses only sometimes, masked-off and scattered accesses; tracer v2 with the CTA/warp
 * prefix and mode-0 addresses; a kernel without CTAs; memcpy and other commands. */
static const char *const V6 =
    "-kernel name = handmade\n-kernel id = 7\n-grid dim = (2,2,1)\n-block dim = (96,1,1)\n"
    "-shmem = 1024\n-nregs = 32\n-binary version = 90\n-cuda stream id = 5\n"
    "-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007e0000000000\n"
    "-nvbit version = 1.8\n-accelsim tracer version = 6\n-enable lineinfo = 1\n\n"
    "#traces format = anything\n"
    "#BEGIN_TB\nthread block = 1,0,0\ncluster id = 0,0,0\ncluster cta = 1,0,0\n"
    "cluster rank = 1\n\nwarp = 2\ninsts = 5\n"
    "12 0000 ffffffff 1 R1 IMAD 2 R2 R3 0 5 0 NoVal\n"
    "13 0010 0000ffff 1 R4 LDG.E 1 R2 4 1 0x7f0000001000 4 0 0 NoVal\n"
    "14 0020 00000000 1 R4 LDG.E 1 R2 4 1 0x0 0 0 0 NoVal\n"
    "16 0040 0000000f 1 R5 LDG.E.64 1 R6 8 0 0x7f3300001230 0x7f0000450008 0x7f0001000000 "
    "0x7f0000000008 -3 0 NoVal\n"
    "17 0050 00000055 1 R7 LD.E 1 R6 4 2 0x7f0000000100 8 8 8 0 0 NoVal\n"
    "warp = 0\ninsts = 3\n"
    "12 0000 ffffffff 1 R1 IMAD 2 R2 R3 0 5 0 NoVal\n"
    "13 0010 0000ffff 1 R4 LDG.E 1 R2 0 0 0 NoVal\n"
    "15 0030 00000005 0 ST.E 2 R2 R4 4 2 0x7e0000000010 32 0 0 Val 1 0x2\n"
    "#END_TB\n\n\n"
    "#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\ninsts = 0\n#END_TB\n";

static const char *const V2 =
    "-kernel name = old\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n"
    "-nregs = 8\n-binary version = 61\n-accelsim tracer version = 2\n"
    "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
    "0 0 0 0 0008 ffffffff 1 R1 IADD 2 R2 R3 0\n"
    "0 0 0 0 0010 00000003 1 R4 LDG.E 1 R2 4 0 0x0000000000001000 0x0000000000001008\n"
    "0 0 0 0 0018 00000000 0 EXIT 0 0\n#END_TB\n"
    "#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n"
    "1 0 0 0 0018 ffffffff 0 EXIT 0 0\n#END_TB\n";

static const char *const EMPTY =
    "-kernel name = nothing\n-grid dim = (1,1,1)\n-block dim = (1,1,1)\n-shmem = 0\n"
    "-nregs = 1\n-binary version = 80\n";

TEST(native_handmade_formats)
{
    test_write_text("hand/kernel-1.traceg", V6);
    test_write_text("hand/kernel-2.traceg", V2);
    test_write_text("hand/kernel-3.traceg", EMPTY);
    test_write_text("hand/kernelslist.g", "MemcpyHtoD,0x00007f0000000000,4096\nkernel-1.traceg\n"
                                          "MemcpyDtoH,0x1,2\nkernel-2.traceg\nkernel-3.traceg\n");
    char *src = base_sprintf("%s/hand", test_tmpdir());
    base_err e = {0};
    trace_summary s;
    if (trace_summarize(src, &s, &e))
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
    CHECK_EQ(s.ctas, 4);
    check_trace(src, "hand");
    check_identity(src, "hand");
    free(src);
}
