/* base: number parsing, the streaming reader (plain and xz), safe output, JSON escaping. */
#include "test.h"

#include "base/base.h"
#include "base/heap.h"
#include "base/rd.h"

#include <lzma.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(base_parse_numbers_strictly)
{
    uint64_t u = 0;
    int64_t i = 0;
    double d = 0;
    CHECK_EQ(base_parse_u64("18446744073709551615", 20, 10, &u), 0);
    CHECK(u == UINT64_MAX);
    CHECK_EQ(base_parse_u64("18446744073709551616", 20, 10, &u), -1); /* overflow */
    CHECK_EQ(base_parse_u64("0x7fb0fc430e00", 14, 16, &u), 0);
    CHECK(u == 0x7fb0fc430e00ull);
    CHECK_EQ(base_parse_u64("7fb0g", 5, 16, &u), -1);
    CHECK_EQ(base_parse_u64("", 0, 10, &u), -1);
    CHECK_EQ(base_parse_u64("0x", 2, 16, &u), -1);
    CHECK_EQ(base_parse_u64("-1", 2, 10, &u), -1);
    CHECK_EQ(base_parse_i64("-9223372036854775808", 20, 10, &i), 0);
    CHECK(i == INT64_MIN);
    CHECK_EQ(base_parse_i64("9223372036854775808", 19, 10, &i), -1);
    CHECK_EQ(base_parse_i64("12a", 3, 10, &i), -1);
    CHECK_EQ(base_parse_double("3500.5", 6, &d), 0);
    CHECK(d == 3500.5);
    CHECK_EQ(base_parse_double("1e999", 5, &d), -1);
    CHECK_EQ(base_parse_double("nan", 3, &d), -1);
    CHECK_EQ(base_parse_double("1.5x", 4, &d), -1);
    CHECK_EQ(base_levenshtein("n_clusterz", "n_clusters"), 1);
}

TEST(base_small_helpers)
{
    char b[BASE_I64_CHARS];
    CHECK_EQ(base_fmt_i64(b, 0), 1);
    CHECK_STR(b, "0");
    CHECK_EQ(base_fmt_i64(b, INT64_MIN), 20);
    CHECK_STR(b, "-9223372036854775808");
    CHECK_EQ(base_fmt_i64(b, INT64_MAX), 19);
    CHECK_STR(b, "9223372036854775807");
    base_pool p = {0};
    char *first = base_pool_strdup(&p, "first");
    char big[20000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    char *copy = base_pool_strdup(&p, big); /* larger than a block */
    char *last = base_pool_strndup(&p, "last-one", 4);
    CHECK_STR(first, "first");
    CHECK(strcmp(copy, big) == 0);
    CHECK_STR(last, "last");
    base_pool_free(&p);
    CHECK(p.blk == NULL);
}

/* Two passes hand out the same layout; small slabs come from calloc, large ones are mapped,
 * and both are zeroed. */
static void carve(base_slab *s, size_t n, uint64_t **a, char **b)
{
    *a = base_slab_take(s, n, sizeof **a);
    *b = base_slab_take(s, 3, 1);
}

TEST(base_slab_two_passes)
{
    size_t sizes[] = {5, 100000};
    for (size_t k = 0; k < 2; k++) {
        base_slab s = {0};
        uint64_t *a;
        char *b;
        carve(&s, sizes[k], &a, &b);
        CHECK(a == NULL && b == NULL);
        CHECK(s.size >= sizes[k] * sizeof *a + 3);
        base_slab_alloc(&s);
        carve(&s, sizes[k], &a, &b);
        CHECK(a != NULL && b != NULL);
        CHECK(s.used <= s.size);
        CHECK((uintptr_t)a % 64 == 0 && (uintptr_t)b % 64 == 0);
        CHECK((char *)b >= (char *)(a + sizes[k]));
        CHECK(a[0] == 0 && a[sizes[k] - 1] == 0 && b[0] == 0 && b[2] == 0);
        a[sizes[k] - 1] = 7;
        b[2] = 1;
        base_slab_free(&s);
        CHECK(s.p == NULL);
    }
}

/* The mapping of /proc/self/smaps that holds p is marked for huge pages ("hg"). */
static int marked_huge(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in = 0, hg = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (in && !strncmp(line, "VmFlags:", 8))
            hg = strstr(line, " hg") != NULL;
    }
    if (f)
        fclose(f);
    return hg;
}

/* Runs in a child process, since it retunes the process's malloc: 0 when all is well, else
 * the number of the failed step. */
static int heap_child(void)
{
    int huge = base_heap_hugepages();
    if (base_heap_is_huge() != huge || base_heap_hugepages() != huge)
        return 1;
    static const size_t sizes[] = {24, 1000, 100000, 3u << 20, 40u << 20};
    unsigned char *blk[5];
    for (int i = 0; i < 5; i++) {
        blk[i] = base_malloc(sizes[i]);
        memset(blk[i], 0x40 + i, sizes[i]);
    }
    for (int i = 0; i < 5; i++)
        if (blk[i][0] != 0x40 + i || blk[i][sizes[i] - 1] != 0x40 + i)
            return 2;
    if (huge && !marked_huge(blk[3] + (2u << 20)))
        return 3; /* a mid-sized block comes from the marked heap */
    base_slab s = {0};
    base_slab_take(&s, 100000, 1);
    base_slab_alloc(&s);
    char *a = base_slab_take(&s, 100000, 1);
    if (a[0] || a[99999])
        return 4;
    base_slab_free(&s);
    for (int i = 0; i < 5; i++)
        free(blk[i]);
    return 0;
}

/* Best effort by contract (0 where the host or a sanitizer does not allow it); either way
 * malloc and the slabs keep working, and a "yes" means the heap really is marked. */
TEST(base_heap_hugepages_keeps_malloc_working)
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(heap_child());
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    CHECK_EQ(base_heap_is_huge(), 0); /* the parent is untouched */
}

static int count_lines(base_rd *r, base_err *e, char *last, size_t n)
{
    char *line;
    size_t len;
    int rc, lines = 0;
    while ((rc = base_rd_line(r, &line, &len, e)) == 1) {
        lines++;
        snprintf(last, n, "%s", line);
    }
    return rc < 0 ? -1 : lines;
}

TEST(base_rd_plain_crlf_and_binary)
{
    base_err e = {0};
    char last[64];
    base_rd *r = base_rd_open_mem("mem", "a\r\nbb\n\nlast-no-newline", 22, &e);
    CHECK_EQ(count_lines(r, &e, last, sizeof last), 4);
    CHECK_STR(last, "last-no-newline");
    CHECK_EQ(base_rd_lineno(r), 4);
    base_rd_close(r);
    static const char bin[] = "text\nmore\0binary\n";
    r = base_rd_open_mem("blob.traceg", bin, sizeof bin - 1, &e);
    CHECK_EQ(count_lines(r, &e, last, sizeof last), -1);
    CHECK_HAS(e.msg, "blob.traceg: byte offset 9 (line 2): binary data");
    base_rd_close(r);
    base_err_clear(&e);
    CHECK(base_rd_open("/nonexistent/file", &e) == NULL);
    CHECK_HAS(e.msg, "/nonexistent/file: cannot open");
}

TEST(base_rd_xz_stream_and_truncation)
{
    /* 20,000 lines through a reader whose chunk is far smaller than the text */
    base_buf text = {0};
    for (int i = 0; i < 20000; i++)
        base_buf_printf(&text, "line %d of the xz test\n", i);
    size_t cap = text.len + 1024, n = 0;
    uint8_t *xz = malloc(cap);
    CHECK_EQ(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text.s, text.len,
                                     xz, &n, cap),
             LZMA_OK);
    base_err e = {0};
    char last[64];
    base_rd *r = base_rd_open_mem("t.xz", xz, n, &e);
    CHECK(base_rd_compressed(r));
    CHECK_EQ(count_lines(r, &e, last, sizeof last), 20000);
    CHECK_STR(last, "line 19999 of the xz test");
    base_rd_close(r);
    r = base_rd_open_mem("cut.xz", xz, n / 2, &e); /* truncated stream: error, not EOF */
    CHECK_EQ(count_lines(r, &e, last, sizeof last), -1);
    CHECK_HAS(e.msg, "cut.xz: xz:");
    base_rd_close(r);
    base_err_clear(&e);
    xz[n / 2] ^= 0x55; /* corrupt data */
    r = base_rd_open_mem("bad.xz", xz, n, &e);
    CHECK_EQ(count_lines(r, &e, last, sizeof last), -1);
    CHECK_HAS(e.msg, "bad.xz: xz:");
    base_rd_close(r);
    free(xz);
    base_buf_free(&text);
}

TEST(base_out_is_atomic)
{
    base_err e = {0};
    base_out o;
    char path[512];
    snprintf(path, sizeof path, "%s/out.json", test_tmpdir());
    CHECK_EQ(base_out_open(&o, path, &e), 0);
    fputs("partial", o.f);
    CHECK(access(path, F_OK) != 0); /* nothing visible under the final name yet */
    base_out_abort(&o);
    CHECK(access(path, F_OK) != 0);
    CHECK_EQ(base_out_open(&o, path, &e), 0);
    fputs("done\n", o.f);
    CHECK_EQ(base_out_commit(&o, &e), 0);
    CHECK(access(path, F_OK) == 0);
    CHECK_EQ(base_out_open(&o, "/nonexistent/dir/x.json", &e), -1);
    CHECK_HAS(e.msg, "cannot write");
}

TEST(base_json_escapes_and_nests)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    base_json j;
    base_json_init(&j, f);
    base_json_obj_begin(&j);
    base_json_key(&j, "s");
    base_json_str(&j, "a\"b\\c\n\x01");
    base_json_key(&j, "a");
    base_json_arr_begin(&j);
    base_json_i64(&j, -3);
    base_json_double(&j, 0.5);
    base_json_arr_end(&j);
    base_json_key(&j, "e");
    base_json_obj_begin(&j);
    base_json_obj_end(&j);
    base_json_obj_end(&j);
    fclose(f);
    CHECK_STR(buf, "{\n  \"s\": \"a\\\"b\\\\c\\n\\u0001\",\n  \"a\": [\n    -3,\n    0.5\n  ],\n"
                   "  \"e\": {}\n}\n");
    free(buf);
}

/* One line of parts, as fputs of each would write it: in the buffer up to 1 KB (the last
 * byte for the newline), written piecewise past it. */
TEST(base_put_line_joins_parts_at_any_length)
{
    static const size_t lens[] = {0, 1, 1000, 1022, 1023, 1024, 3000};
    for (size_t k = 0; k < BASE_ARRAY_LEN(lens); k++) {
        char *body = malloc(lens[k] + 1);
        memset(body, 'x', lens[k]);
        body[lens[k]] = 0;
        const char *part[] = {"knob ", "", body, " # src"};
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        base_put_line(f, part, BASE_ARRAY_LEN(part));
        base_put_line(f, part, 1);
        fclose(f);
        CHECK_EQ(n, 5 + lens[k] + 6 + 1 + 5 + 1);
        CHECK(strncmp(buf, "knob ", 5) == 0);
        CHECK(strspn(buf + 5, "x") == lens[k]);
        CHECK_STR(buf + 5 + lens[k], " # src\nknob \n");
        free(buf);
        free(body);
    }
}
