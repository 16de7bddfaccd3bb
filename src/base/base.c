/* base: errors, allocation, buffers, number parsing. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "base.h"
#include "heap.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#if BASE_AVX2
#include <sys/platform/x86.h>
#endif

int base_vfail(base_err *e, int code, const char *fmt, va_list ap)
{
    if (e && e->code == 0) {
        e->code = code;
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    }
    return -1;
}

int base_fail(base_err *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    base_vfail(e, code, fmt, ap);
    va_end(ap);
    return -1;
}

void base_err_clear(base_err *e)
{
    e->code = 0;
    e->msg[0] = 0;
}

void base_panic(const char *fmt, ...)
{
    va_list ap;
    fputs("lockstep: internal error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void *base_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        base_panic("out of memory (%zu bytes)", n);
    return p;
}

void *base_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        base_panic("out of memory (%zu x %zu bytes)", n, size);
    return p;
}

void *base_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        base_panic("out of memory (%zu bytes)", n);
    return q;
}

void *base_realloc_lines(void *p, size_t keep, size_t n)
{
    size_t sz = (n + BASE_LINE - 1) / BASE_LINE * BASE_LINE;
    void *q = aligned_alloc(BASE_LINE, sz ? sz : BASE_LINE);
    if (!q)
        base_panic("out of memory (%zu bytes)", n);
    if (p && keep)
        memcpy(q, p, keep < n ? keep : n);
    free(p);
    return q;
}

void *base_calloc_lines(size_t n)
{
    void *q = base_realloc_lines(NULL, 0, n);
    memset(q, 0, n);
    return q;
}

/* The n strings of part, joined into line while they end within room bytes: their length, or
 * SIZE_MAX when they do not fit (the caller then writes them one by one). */
static size_t join_parts(char *line, size_t room, const char *const *part, size_t n)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(part[i]);
        if (len > room - at)
            return SIZE_MAX;
        memcpy(line + at, part[i], len);
        at += len;
    }
    return at;
}

static void put_parts(FILE *f, const char *const *part, size_t n)
{
    for (size_t j = 0; j < n; j++)
        fputs(part[j], f);
}

void base_put_line(FILE *f, const char *const *part, size_t n)
{
    char line[1024];
    size_t at = join_parts(line, sizeof line - 1, part, n);
    if (at == SIZE_MAX) { /* a long source path: as it comes */
        put_parts(f, part, n);
        putc('\n', f);
        return;
    }
    line[at++] = '\n';
    fwrite(line, 1, at, f);
}

void base_put_u64_line(FILE *f, const char *const *part, size_t n, uint64_t v)
{
    char line[256];
    size_t at = join_parts(line, sizeof line - 32, part, n); /* 32: " = ", 20 digits, "\n" */
    if (at == SIZE_MAX) { /* not seen: names are short */
        put_parts(f, part, n);
        fprintf(f, " = %llu\n", (unsigned long long)v);
        return;
    }
    char digits[20];
    size_t k = sizeof digits;
    do {
        digits[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(line + at, " = ", 3);
    memcpy(line + at + 3, digits + k, sizeof digits - k);
    at += 3 + sizeof digits - k;
    line[at++] = '\n';
    fwrite(line, 1, at, f);
}

char *base_strndup(const char *s, size_t n)
{
    char *d = base_malloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *base_strdup(const char *s) { return base_strndup(s, strlen(s)); }

/* Formats into a stack buffer first: most strings fit, and gcc's sanitizer builds warn about
 * the vsnprintf(NULL, 0, ...) sizing idiom. */
static char *vsprintf_alloc(const char *fmt, va_list ap, size_t *len)
{
    char tmp[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    char *s = base_malloc((size_t)n + 1);
    if ((size_t)n < sizeof tmp)
        memcpy(s, tmp, (size_t)n + 1);
    else
        vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    *len = (size_t)n;
    return s;
}

char *base_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

char *base_sprintf(const char *fmt, ...)
{
    va_list ap;
    size_t n;
    va_start(ap, fmt);
    char *s = vsprintf_alloc(fmt, ap, &n);
    va_end(ap);
    return s;
}

void base_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
    void **p = pp;
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    *p = base_realloc(*p, c * elem);
    *cap = c;
}

void base_buf_put(base_buf *b, const char *s, size_t n)
{
    base_grow(&b->s, &b->cap, b->len + n + 1, 1);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void base_buf_putc(base_buf *b, char c) { base_buf_put(b, &c, 1); }

void base_buf_put_dec(base_buf *b, uint64_t v)
{
    char t[24];
    int n = 0;
    do {
        t[23 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    base_buf_put(b, t + 24 - n, (size_t)n);
}

void base_buf_put_sdec(base_buf *b, int64_t v)
{
    char t[BASE_I64_CHARS];
    base_buf_put(b, t, base_fmt_i64(t, v));
}

void base_buf_put_hex(base_buf *b, uint64_t v, int digits)
{
    static const char hx[] = "0123456789abcdef";
    char t[16];
    int n = 0;
    do {
        t[15 - n++] = hx[v & 15];
        v >>= 4;
    } while (v);
    while (n < digits && n < 16)
        t[15 - n++] = '0';
    base_buf_put(b, t + 16 - n, (size_t)n);
}
void base_buf_puts(base_buf *b, const char *s) { base_buf_put(b, s, strlen(s)); }

/* Formats straight into the buffer's spare room (grown and formatted again when short): no
 * allocation per call, for writers that append many short pieces. */
void base_buf_printf(base_buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    base_grow(&b->s, &b->cap, b->len + 128, 1);
    int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    if (n >= 0 && (size_t)n >= b->cap - b->len) {
        base_grow(&b->s, &b->cap, b->len + (size_t)n + 1, 1);
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap2);
    }
    va_end(ap2);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
    b->s[b->len] = 0;
}

#define POOL_BLOCK 8192u

struct base_pool_blk {
    base_pool_blk *next;
    size_t used, cap;
    char data[];
};

char *base_pool_alloc(base_pool *p, size_t n)
{
    base_pool_blk *b = p->blk;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > POOL_BLOCK ? n : POOL_BLOCK;
        b = base_malloc(sizeof *b + cap);
        b->next = p->blk;
        b->used = 0;
        b->cap = cap;
        p->blk = b;
    }
    char *s = b->data + b->used;
    b->used += n;
    return s;
}

char *base_pool_strndup(base_pool *p, const char *s, size_t n)
{
    char *d = base_pool_alloc(p, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *base_pool_strdup(base_pool *p, const char *s) { return base_pool_strndup(p, s, strlen(s)); }

void base_pool_free(base_pool *p)
{
    while (p->blk) {
        base_pool_blk *next = p->blk->next;
        free(p->blk);
        p->blk = next;
    }
}

size_t base_fmt_i64(char *buf, int64_t v)
{
    char tmp[BASE_I64_CHARS];
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t len = 0;
    if (v < 0)
        buf[len++] = '-';
    while (n)
        buf[len++] = tmp[--n];
    buf[len] = 0;
    return len;
}

void base_buf_free(base_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* base 16 accepts an optional 0x prefix; base 0 means "0x" -> 16, else 10. */
int base_parse_u64(const char *s, size_t n, int base, uint64_t *out)
{
    int hex = base == 16 || (base == 0 && n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'));
    if (!hex && base != 10 && base != 0)
        base_panic("base_parse_u64: base %d is not supported", base);
    return hex ? base_parse_hex_u64(s, n, out) : base_parse_dec_u64(s, n, out);
}

int base_parse_i64(const char *s, size_t n, int base, int64_t *out)
{
    int neg = 0;
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s++;
        n--;
    }
    uint64_t u;
    if (base_parse_u64(s, n, base, &u))
        return -1;
    if (neg) {
        if (u > (uint64_t)INT64_MAX + 1)
            return -1;
        *out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
    } else {
        if (u > (uint64_t)INT64_MAX)
            return -1;
        *out = (int64_t)u;
    }
    return 0;
}

int base_parse_double(const char *s, size_t n, double *out)
{
    char tmp[128];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    if (isspace((unsigned char)tmp[0]))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int base_levenshtein(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int *row = base_malloc((lb + 1) * sizeof *row);
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int v = diag + cost;
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
        }
    }
    int d = row[lb];
    free(row);
    return d;
}

void base_nearest_init(base_nearest *n, const char *name)
{
    n->name = name;
    for (int k = 0; k < 3; k++) {
        n->best[k] = NULL;
        n->dist[k] = 1 << 30;
    }
}

void base_nearest_add(base_nearest *n, const char *candidate)
{
    int d = base_levenshtein(n->name, candidate);
    if (strlen(n->name) >= 3 && strstr(candidate, n->name) && d > 3)
        d = 3;
    for (int k = 0; k < 3; k++) {
        if (d < n->dist[k]) {
            for (int m = 2; m > k; m--) {
                n->dist[m] = n->dist[m - 1];
                n->best[m] = n->best[m - 1];
            }
            n->dist[k] = d;
            n->best[k] = candidate;
            return;
        }
    }
}

void base_nearest_format(const base_nearest *n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k < 3 && n->best[k] && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "", n->best[k]);
}

/* ---- base_slab ---------------------------------------------------------------------- */

#if defined(MAP_ANONYMOUS)
#define SLAB_MAP_ANON MAP_ANONYMOUS
#elif defined(MAP_ANON)
#define SLAB_MAP_ANON MAP_ANON
#endif

/* Smaller slabs come from the heap: a mapping and its removal cost about as much as
 * faulting in a few pages. On a heap of huge pages (base_heap) the heap takes slabs up to a
 * larger size; the largest are queues sized for a worst case that a short run never reaches,
 * and as mappings touched a page at a time they do not fill huge pages with unused slots. */
#define SLAB_MAP_MIN (16u * 1024)
#define SLAB_MAP_MIN_HUGE (256u * 1024)
/* Every array starts on its own cache line. */
#define SLAB_ALIGN 64u

#if BASE_ASAN
#include <sanitizer/asan_interface.h>
/* Under AddressSanitizer the arrays are kept apart by poisoned gaps, so an overrun into the
 * next array is still caught. */
#define SLAB_GAP SLAB_ALIGN
#else
#define SLAB_GAP 0u
#endif

static size_t round_up(size_t n) { return (n + SLAB_ALIGN - 1) / SLAB_ALIGN * SLAB_ALIGN; }

void *base_slab_take(base_slab *s, size_t n, size_t size)
{
    if (size && n > (SIZE_MAX / 2) / size)
        base_panic("base_slab_take: %zu x %zu bytes overflows", n, size);
    size_t bytes = round_up(n * size) + SLAB_GAP;
    if (!s->p) {
        s->size += bytes;
        return NULL;
    }
    if (bytes > s->size - s->used)
        base_panic("base_slab_take: the carving pass asks for more than the sizing pass "
                   "(%zu bytes left, %zu asked)", s->size - s->used, bytes);
    char *p = s->p + s->used;
    s->used += bytes;
#if BASE_ASAN
    ASAN_POISON_MEMORY_REGION(p + bytes - SLAB_GAP, SLAB_GAP);
#endif
    return p;
}

void base_slab_alloc(base_slab *s)
{
    s->used = 0;
    s->mapped = 0;
    if (s->size == 0)
        s->size = SLAB_ALIGN;
#ifdef SLAB_MAP_ANON
    if (s->size >= (base_heap_is_huge() ? SLAB_MAP_MIN_HUGE : SLAB_MAP_MIN)) {
        void *p = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | SLAB_MAP_ANON, -1, 0);
        if (p != MAP_FAILED) {
            s->p = p;
            s->mapped = 1;
            return;
        }
    }
#endif
    s->p = aligned_alloc(SLAB_ALIGN, s->size); /* size: a multiple of SLAB_ALIGN */
    if (!s->p)
        base_panic("out of memory (%zu bytes)", s->size);
    memset(s->p, 0, s->size);
}

void base_slab_free(base_slab *s)
{
    if (!s->p)
        return;
#if BASE_ASAN
    ASAN_UNPOISON_MEMORY_REGION(s->p, s->size);
#endif
    if (s->mapped)
        munmap(s->p, s->size);
    else
        free(s->p);
    s->p = NULL;
    s->size = s->used = 0;
    s->mapped = 0;
}

double base_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int base_host_avx2(void)
{
#if BASE_AVX2
    return CPU_FEATURE_ACTIVE(AVX2);
#else
    return 0;
#endif
}
