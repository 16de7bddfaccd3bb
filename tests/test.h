/* A tiny test harness: TEST(name) registers itself; CHECK* record failures and continue.
 * The runner prints one line per failure and ends with "N passed, N failed, N skipped". */
#ifndef LOCKSTEP_TEST_H
#define LOCKSTEP_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, const char *file, test_fn fn);
void test_fail_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void test_skip(const char *why);

#define TEST(name)                                                        \
    static void name(void);                                               \
    __attribute__((constructor)) static void test_reg_##name(void)        \
    {                                                                     \
        test_register(#name, __FILE__, name);                             \
    }                                                                     \
    static void name(void)

#define CHECK(c)                                                          \
    do {                                                                  \
        if (!(c))                                                         \
            test_fail_at(__FILE__, __LINE__, "CHECK(%s)", #c);            \
    } while (0)

#define CHECK_EQ(a, b)                                                    \
    do {                                                                  \
        long long a_ = (long long)(a), b_ = (long long)(b);               \
        if (a_ != b_)                                                     \
            test_fail_at(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a, a_, #b, b_); \
    } while (0)

#define CHECK_STR(a, b)                                                   \
    do {                                                                  \
        const char *a_ = (a), *b_ = (b);                                  \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                            \
            test_fail_at(__FILE__, __LINE__, "%s is \"%s\", expected \"%s\"", #a, \
                         a_ ? a_ : "(null)", b_ ? b_ : "(null)");         \
    } while (0)

/* Substring check, e.g. for error messages. */
#define CHECK_HAS(hay, needle)                                            \
    do {                                                                  \
        const char *h_ = (hay), *n_ = (needle);                           \
        if (!h_ || !strstr(h_, n_))                                       \
            test_fail_at(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", \
                         h_ ? h_ : "(null)", n_);                         \
    } while (0)

/* ../shared beside the checkout (or $LOCKSTEP_SHARED); NULL when absent. */
const char *test_shared(void);
/* A path under test_shared(); the returned string lives until the next call. Skips the
 * test (and returns NULL) when ../shared is absent. */
const char *test_shared_path(const char *rel);
/* The lockstep binary under test ($LOCKSTEP_BIN, default build/lockstep). */
const char *test_bin(void);
/* A fresh temporary directory for this test (removed at exit). */
const char *test_tmpdir(void);
/* Writes a file (creating it) under test_tmpdir(); returns its path (static buffer). */
const char *test_write_file(const char *name, const void *data, size_t n);
/* The same for a NUL-terminated text. */
const char *test_write_text(const char *name, const char *text);
/* A whole file, NUL-terminated (malloc'd; *n = its length if n is not NULL); NULL if it
 * cannot be read. */
char *test_read_file(const char *path, size_t *n);

/* Runs `lockstep ARGS` through /bin/sh; captures stdout and stderr (freed by the harness at
 * the end of the test). Returns the exit status (128+signal if killed). */
typedef struct test_proc {
    int status;
    char *out, *err;
} test_proc;
test_proc test_lockstep(const char *args_fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
