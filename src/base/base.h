/* base: errors, checked allocation, growable buffers, string helpers, safe output.
 *
 * Error contract used by every module: a function that can fail on bad input takes a
 * `base_err *` as its last argument, fills it with one line (location first:
 * "file:line: what was expected") and returns -1 (or NULL). Library code never exits;
 * only the CLI turns an error into a message and an exit code. This keeps parsers usable
 * from fuzz targets and tests. */
#ifndef LOCKSTEP_BASE_H
#define LOCKSTEP_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Process exit codes (documented in README.md). */
enum { BASE_EXIT_OK = 0, BASE_EXIT_INTERNAL = 1, BASE_EXIT_USAGE = 2, BASE_EXIT_INPUT = 3 };

/* 1 in AddressSanitizer builds (gcc and clang announce it differently), else 0. */
#if defined(__SANITIZE_ADDRESS__)
#define BASE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BASE_ASAN 1
#endif
#endif
#ifndef BASE_ASAN
#define BASE_ASAN 0
#endif

/* 1 where vector code for AVX2 may be built (x86-64, gcc or clang) and the C library keeps a
 * record of the CPU's features (glibc 2.33 and later); modules guard their AVX2 code with it
 * and take that path only where base_host_avx2() says the host has it. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#define BASE_AVX2 1
#endif
#endif
#ifndef BASE_AVX2
#define BASE_AVX2 0
#endif
/* Whether the host can run AVX2 (CPU and operating system), from glibc's record: no CPUID of
 * our own, which in a virtual machine traps to the hypervisor (about 10 us each). 0 where
 * BASE_AVX2 is 0. */
int base_host_avx2(void);

typedef struct base_err {
    int code;        /* one of BASE_EXIT_*; 0 while no error was set */
    char msg[1024];  /* one line, no trailing newline */
} base_err;

/* Records the first error only (later calls keep the original cause); returns -1. */
int base_fail(base_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int base_vfail(base_err *e, int code, const char *fmt, va_list ap);
void base_err_clear(base_err *e);

/* Simulator bugs: print and abort. Never used for bad input. */
_Noreturn void base_panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Checked allocation: out of memory is a panic, not a silent NULL. */
void *base_malloc(size_t n);
void *base_calloc(size_t n, size_t size);
void *base_realloc(void *p, size_t n);
/* On BASE_LINE (64-byte) boundaries, for arrays whose elements should not straddle host
 * cache lines; the first `keep` bytes of p are copied, and p is freed (free() frees it). */
#define BASE_LINE 64
void *base_realloc_lines(void *p, size_t keep, size_t n);
void *base_calloc_lines(size_t n); /* n zero bytes from a host-line boundary */
char *base_strdup(const char *s);
/* Writes the n strings of part, then " = <v>\n", with one fwrite: statistics are hundreds
 * of such lines, and printf's format parsing made them a tenth of a short run's time. */
void base_put_u64_line(FILE *f, const char *const *part, size_t n, uint64_t v);
/* Writes the n strings of part, then "\n", with one fwrite where they fit in 1 KB. */
void base_put_line(FILE *f, const char *const *part, size_t n);
char *base_strndup(const char *s, size_t n);
char *base_sprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array `*p` of `*cap` elements of `elem` bytes so that it holds at least `need`. */
void base_grow(void *pp, size_t *cap, size_t need, size_t elem);

/* A growable byte string (always NUL-terminated). */
typedef struct base_buf {
    char *s;
    size_t len, cap;
} base_buf;
void base_buf_putc(base_buf *b, char c);
void base_buf_puts(base_buf *b, const char *s);
void base_buf_put(base_buf *b, const char *s, size_t n);
void base_buf_printf(base_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Numbers appended without printf (writers of millions of trace lines): decimal, signed
 * decimal, and lowercase hex of at least `digits` digits (printf's %0*x). */
void base_buf_put_dec(base_buf *b, uint64_t v);
void base_buf_put_sdec(base_buf *b, int64_t v);
void base_buf_put_hex(base_buf *b, uint64_t v, int digits);
void base_buf_free(base_buf *b);

/* Decimal text of v, NUL-terminated, into buf (at least BASE_I64_CHARS bytes); returns its
 * length. The same text as "%lld", for tables printed value by value. */
#define BASE_I64_CHARS 21
size_t base_fmt_i64(char *buf, int64_t v);

/* A string pool: copies that live until the pool is freed, without a malloc and a free each
 * (a config import keeps over a thousand short strings). Zero-initialise; free once. */
typedef struct base_pool_blk base_pool_blk;
typedef struct base_pool {
    base_pool_blk *blk;
} base_pool;
char *base_pool_alloc(base_pool *p, size_t n); /* n bytes, char-aligned */
char *base_pool_strndup(base_pool *p, const char *s, size_t n);
char *base_pool_strdup(base_pool *p, const char *s);
void base_pool_free(base_pool *p);

/* base_slab: one zeroed block carved into the arrays of one object (queues sized for the
 * worst case, packet rings), so a run pays only for the pages it touches.
 *
 * calloc gives zeroed memory but writes it: a block from glibc's heap is cleared with
 * memset, faulting in every page of arrays a short run never uses, and whether a block of
 * ~128 KB comes from the heap or from its own mapping depends on the heap's state. A large
 * slab is mapped straight from the kernel (zero pages, touched only when used, one mapping
 * per object); a small one comes from the heap.
 *
 * Use: a carve function that calls base_slab_take for every array, run twice: first on an
 * empty slab (it only adds up the sizes and hands out NULL), then after base_slab_alloc
 * (it hands out the arrays, in the same order). The arrays are freed together by
 * base_slab_free, never one by one. */
typedef struct base_slab {
    char *p;       /* NULL during the sizing pass */
    size_t size;   /* bytes: the sum of the sizing pass, then the block's size */
    size_t used;   /* bytes handed out by the carving pass */
    int mapped;    /* 1: from mmap, 0: from the heap */
} base_slab;

/* n elements of `size` bytes, on a cache line of their own; NULL during the sizing pass. */
void *base_slab_take(base_slab *s, size_t n, size_t size);
/* Allocates the zeroed block sized by the sizing pass (panics when out of memory). */
void base_slab_alloc(base_slab *s);
void base_slab_free(base_slab *s);

/* Strips leading and trailing whitespace in place; returns the first non-blank character. */
char *base_trim(char *s);
double base_now_s(void); /* a monotonic clock, seconds (for the host's own timing, never results) */
/* The first set bit at or after `from` and below `lim` in a bitmap of 64-bit words, or lim. */
static inline uint32_t base_next_bit(const uint64_t *b, uint32_t from, uint32_t lim)
{
    while (from < lim) {
        uint64_t v = b[from >> 6] >> (from & 63);
        if (v) {
            uint32_t i = from + (uint32_t)__builtin_ctzll(v);
            return i < lim ? i : lim;
        }
        from = (from | 63) + 1;
    }
    return lim;
}

/* Set bits of a mask. Without -mpopcnt (the baseline x86-64 target), __builtin_popcount is
 * a library call, and the hot paths count lanes and sectors on every instruction. */
static inline unsigned base_popcount32(uint32_t m)
{
    if (m == UINT32_MAX)
        return 32;
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}
static inline unsigned base_popcount64(uint64_t m)
{
    return base_popcount32((uint32_t)m) + base_popcount32((uint32_t)(m >> 32));
}

/* A string's hash, eight bytes a step: for name tables looked up many times (knobs,
 * GPGPU-Sim options), whose names run to 20-40 characters; a byte at a time, hashing the
 * option tables took a quarter of a config import's instructions. Any bits of it may serve
 * as a slot number. */
static inline uint32_t base_str_hash(const char *s)
{
    size_t n = strlen(s);
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (n) {
        w = 0;
        memcpy(&w, s, n);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    h *= 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* Strict number parsing of a whole string: no sign where unsigned, no trailing junk,
 * overflow is an error. Return 0 on success, -1 otherwise (no message: callers add context). */
int base_parse_u64(const char *s, size_t n, int base, uint64_t *out);

/* The decimal and hex cases of base_parse_u64, inline because the trace reader parses
 * several numbers per instruction line with them. Hex takes an optional 0x prefix. */
static inline int base_parse_dec_u64(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9 || __builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, d, &v))
            return -1;
    }
    *out = v;
    return 0;
}

static inline int base_parse_hex_u64(const char *s, size_t n, uint64_t *out)
{
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n == 0)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d > 15 || v > (UINT64_MAX >> 4))
            return -1;
        v = (v << 4) | d;
    }
    *out = v;
    return 0;
}
int base_parse_i64(const char *s, size_t n, int base, int64_t *out);
int base_parse_double(const char *s, size_t n, double *out);

/* Edit distance (for "did you mean" suggestions). */
int base_levenshtein(const char *a, const char *b);

/* The three candidates closest to a mistyped name: feed every valid name to
 * base_nearest_add, then format them as "a, b, c". A candidate containing the typed text
 * (3+ characters) ranks as if at distance 3 at most, so "l2_asoc" finds "l2_assoc" and
 * "assoc" finds the long "*_assoc" names. */
typedef struct base_nearest {
    const char *name;
    const char *best[3];
    int dist[3];
} base_nearest;
void base_nearest_init(base_nearest *n, const char *name);
void base_nearest_add(base_nearest *n, const char *candidate);
void base_nearest_format(const base_nearest *n, char *buf, size_t size);

/* Safe output: writes go to "<path>.tmp.<pid>", renamed over <path> by base_out_commit.
 * base_out_abort removes the temporary. path "-" means stdout (no rename). */
typedef struct base_out {
    FILE *f;
    char *path, *tmp;
} base_out;
int base_out_open(base_out *o, const char *path, base_err *e);
int base_out_commit(base_out *o, base_err *e);
void base_out_abort(base_out *o);

/* Minimal streaming JSON writer with correct escaping and comma handling. */
typedef struct base_json {
    FILE *f;
    int depth;
    int first[64];   /* per nesting level: no element written yet */
    int after_key;
} base_json;
void base_json_init(base_json *j, FILE *f);
void base_json_obj_begin(base_json *j);
void base_json_obj_end(base_json *j);
void base_json_arr_begin(base_json *j);
void base_json_arr_end(base_json *j);
void base_json_key(base_json *j, const char *k);
void base_json_str(base_json *j, const char *s);
void base_json_u64(base_json *j, uint64_t v);
void base_json_i64(base_json *j, int64_t v);
void base_json_double(base_json *j, double v);  /* non-finite values are written as null */
void base_json_bool(base_json *j, int v);
void base_json_null(base_json *j);
/* "key": value members, for the common case of an object field. */
void base_json_kv_str(base_json *j, const char *k, const char *v);
void base_json_kv_u64(base_json *j, const char *k, uint64_t v);
void base_json_kv_i64(base_json *j, const char *k, int64_t v);
void base_json_kv_double(base_json *j, const char *k, double v);
void base_json_kv_bool(base_json *j, const char *k, int v);

#define BASE_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
