/* Every bad-input case of the foundation issue through the lockstep binary: one clear error
 * line naming the file and line (or byte offset), exit status 3, never a crash or a hang. */
#include "test.h"

#include "base/base.h"

#include <lzma.h>
#include <stdlib.h>

static const char HEADER[] = "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                             "-shmem = 0\n-nregs = 8\n-binary version = 80\n"
                             "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n";
#define TB_OPEN "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"
#define GOOD_LINE "0000 ffffffff 1 R1 MOV 0 0 0\n"

typedef struct bad_case {
    const char *name;   /* the trace directory */
    const char *body;   /* appended to HEADER; NULL: `raw` is the whole kernel file */
    const char *raw;
    size_t raw_len;
    const char *expect; /* substring of stderr, after "kernel-1.traceg:" */
} bad_case;

static const char BINARY[] = "-kernel name = k\n\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0";

static const bad_case CASES[] = {
    {"truncated", TB_OPEN "insts = 3\n" GOOD_LINE GOOD_LINE, NULL, 0, "traceg:15: expected 1 more instruction lines"},
    {"no_end_tb", TB_OPEN "insts = 1\n" GOOD_LINE, NULL, 0, ":"},
    {"insts_too_small", TB_OPEN "insts = 1\n" GOOD_LINE GOOD_LINE "#END_TB\n", NULL, 0, ":"},
    {"bad_hex", TB_OPEN "insts = 1\n00g0 ffffffff 1 R1 MOV 0 0 0\n#END_TB\n", NULL, 0, ":"},
    {"bad_mask", TB_OPEN "insts = 1\n0000 1ffffffff 1 R1 MOV 0 0 0\n#END_TB\n", NULL, 0, ":"},
    {"unknown_opcode", TB_OPEN "insts = 1\n0000 ffffffff 1 R1 FROB 0 0 0\n#END_TB\n", NULL, 0,
     "FROB"},
    {"overflow_insts", TB_OPEN "insts = 99999999999999999999\n", NULL, 0, ":"},
    {"overflow_addr",
     TB_OPEN "insts = 1\n0000 00000001 1 R4 LDG.E 1 R4 4 0 0x1ffffffffffffffff 0\n#END_TB\n",
     NULL, 0, ":"},
    {"binary", NULL, BINARY, sizeof BINARY - 1, "binary data"},
};

static void write_case(const char *dir, const bad_case *c)
{
    char path[256];
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    test_write_text(path, "kernel-1.traceg\n");
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    if (c->body) {
        base_buf b = {0};
        base_buf_puts(&b, HEADER);
        base_buf_puts(&b, c->body);
        test_write_file(path, b.s, b.len);
        base_buf_free(&b);
    } else {
        test_write_file(path, c->raw, c->raw_len);
    }
}

TEST(bad_input_traces_exit_3_with_location)
{
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char dir[128];
        snprintf(dir, sizeof dir, "bad_%s", CASES[i].name);
        write_case(dir, &CASES[i]);
        test_proc p = test_lockstep("trace check %s/%s", test_tmpdir(), dir);
        if (p.status != 3)
            test_fail_at(__FILE__, __LINE__, "case %s: exit %d, expected 3 (%s)", CASES[i].name,
                         p.status, p.err);
        char where[256];
        snprintf(where, sizeof where, "%s/kernel-1.traceg", dir);
        CHECK_HAS(p.err, where);
        CHECK_HAS(p.err, CASES[i].expect);
        if (getenv("LOCKSTEP_TEST_VERBOSE"))
            printf("  %s: %s", CASES[i].name, p.err);
        CHECK_HAS(p.err, "lockstep: error: ");
        /* one line only */
        const char *nl = strchr(p.err, '\n');
        CHECK(nl && nl[1] == 0);
        /* `run` and `trace info` reject it the same way */
        p = test_lockstep("trace info %s/%s", test_tmpdir(), dir);
        CHECK_EQ(p.status, 3);
        CHECK_EQ(strlen(p.out), 0);
    }
}

TEST(bad_input_missing_kernel_file)
{
    test_write_text("missing/kernelslist.g", "MemcpyHtoD,0x00007f0000000000,64\nkernel-7.traceg\n");
    test_proc p = test_lockstep("trace check %s/missing", test_tmpdir());
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "missing/kernelslist.g:2");
    CHECK_HAS(p.err, "kernel-7.traceg");
    p = test_lockstep("run %s/missing", test_tmpdir());
    CHECK_EQ(p.status, 3);
}

TEST(bad_input_truncated_xz)
{
    base_buf b = {0};
    base_buf_puts(&b, HEADER);
    base_buf_puts(&b, TB_OPEN "insts = 1\n" GOOD_LINE "#END_TB\n");
    size_t cap = b.len + 1024, n = 0;
    uint8_t *xz = malloc(cap);
    CHECK_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)b.s, b.len, xz,
                                     &n, cap), LZMA_OK);
    test_write_text("xz/kernelslist.g", "kernel-1.traceg.xz\n");
    test_write_file("xz/kernel-1.traceg.xz", xz, n);
    test_proc p = test_lockstep("trace check %s/xz", test_tmpdir());
    CHECK_EQ(p.status, 0);
    test_write_file("xz/kernel-1.traceg.xz", xz, n - 12); /* cut the stream footer */
    p = test_lockstep("trace check %s/xz", test_tmpdir());
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "kernel-1.traceg.xz");
    CHECK_HAS(p.err, "xz");
    free(xz);
    base_buf_free(&b);
}

TEST(bad_input_config_typos_exit_3_with_location)
{
    const char *gs = test_write_text("typo/gpgpusim.config",
                                     "# a config with a typo\n-gpgpu_n_clusters 4\n"
                                     "-gpgpu_n_clustrs 8\n");
    test_proc p = test_lockstep("config show --config=%s", gs);
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "gpgpusim.config:3");
    CHECK_HAS(p.err, "-gpgpu_n_clustrs");
    CHECK_HAS(p.err, "-gpgpu_n_clusters");
    const char *cache = test_write_text("typo/cache.config", "-gpgpu_cache:dl1 S:4:128:256,L:Q:m:L:L,A:384:48,16:0,32\n");
    p = test_lockstep("config show --config=%s", cache);
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "cache.config:1");
    const char *range = test_write_text("typo/range.cfg", "\n\nl2_assoc = 0\n");
    p = test_lockstep("run --config=%s", range);
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "range.cfg:3");
    CHECK_HAS(p.err, "l2_assoc");
    CHECK_HAS(p.err, "out of range");
}

/* Cache shapes the model cannot build (randsweep: --l1i_line=512 was "internal error" from
 * cache_new, status 134): each is refused before the run, naming the knob or the cache. */
TEST(bad_input_cache_shapes_exit_3)
{
    static const bad_case ok = {"cache_shapes", TB_OPEN "insts = 1\n" GOOD_LINE "#END_TB\n",
                                NULL, 0, NULL};
    write_case(ok.name, &ok);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), ok.name);
    test_proc p = test_lockstep("run --preset=gtx480 %s", dir);
    CHECK_EQ(p.status, 0);
    static const char *const lines[] = {"l1d", "l1i", "l2"};
    for (int i = 0; i < 3; i++) {
        p = test_lockstep("run --preset=gtx480 --%s_type=normal --%s_line=512 %s", lines[i],
                          lines[i], dir);
        CHECK_EQ(p.status, 3);
        CHECK_HAS(p.err, lines[i]);
        CHECK_HAS(p.err, "[8, 256]");
    }
    p = test_lockstep("run --preset=gtx480 --l1d_set_index=linear --l1d_sets=1048576 "
                      "--l1d_assoc=4096 %s", dir);
    CHECK_EQ(p.status, 3);
    CHECK_HAS(p.err, "cache l1d: too many lines");
    CHECK(!strstr(p.err, "internal error"));
}
