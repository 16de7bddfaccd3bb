/* Instruction-line parser (A.5, A.6) and opcode facts (A.7, A.8). This is the hot path of
 * every trace read: no allocation once trace_line.regs has grown, one pass over the text. */
#include "trace.h"
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end;
    const char *file;
    uint64_t lineno;
    base_err *e;
} cursor;

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Next blank-separated token; 0 at end of line. */
static int tok(cursor *c, const char **s, size_t *n)
{
    while (c->p < c->end && is_blank(*c->p))
        c->p++;
    if (c->p == c->end)
        return 0;
    *s = c->p;
    while (c->p < c->end && !is_blank(*c->p))
        c->p++;
    *n = (size_t)(c->p - *s);
    return 1;
}

static int expected(cursor *c, const char *what, const char *s, size_t n)
{
    return trace_fail_found(c->e, c->file, c->lineno, what, s, n);
}

/* Hex with optional 0x, any width; decimal; both strict, overflow is an error. */
static int parse_hex(const char *s, size_t n, uint64_t *out) { return base_parse_hex_u64(s, n, out); }
static int parse_dec(const char *s, size_t n, uint64_t *out) { return base_parse_dec_u64(s, n, out); }

static int parse_sdec(const char *s, size_t n, int64_t *out)
{
    int neg = n > 0 && s[0] == '-';
    uint64_t u;
    if (parse_dec(s + neg, n - (size_t)neg, &u))
        return -1;
    if (u > (uint64_t)INT64_MAX + (uint64_t)neg)
        return -1;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}

/* Skips blanks to the next token: its first character, and *s (NULL at the end of the line)
 * and *n = 0 for a message; NULL at the end of the line. */
static const char *token_start(cursor *c, const char **s, size_t *n)
{
    const char *p = c->p;
    while (p < c->end && is_blank(*p))
        p++;
    *s = p == c->end ? NULL : p;
    *n = 0;
    return *s;
}

/* The next token read as a decimal in the same pass that finds its end: 0 with its value,
 * -1 with the token (NULL at the end of the line) when it is not one. */
static int scan_dec(cursor *c, uint64_t *v, const char **s, size_t *n)
{
    const char *p = token_start(c, s, n), *e = c->end;
    if (!p)
        return -1;
    uint64_t x = 0;
    int ok = 1;
    for (; p < e && !is_blank(*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9 || __builtin_mul_overflow(x, 10u, &x) || __builtin_add_overflow(x, d, &x))
            ok = 0;
    }
    c->p = p;
    *n = (size_t)(p - *s);
    *v = x;
    return ok ? 0 : -1;
}

/* The common case of a signed decimal token, at most 18 digits (no overflow possible), in
 * one tight pass: 0 with the value and the cursor past it; -1 with the cursor unmoved for
 * anything else, which get_sdec then reads (or reports) in full. Lane-address deltas make
 * these the most frequent tokens of a trace. */
static int short_sdec(cursor *c, int64_t *out)
{
    const char *q = c->p, *e = c->end;
    while (q < e && is_blank(*q))
        q++;
    int neg = q < e && *q == '-';
    q += neg;
    const char *d0 = q;
    int64_t x = 0;
    while (q < e && (unsigned)(*q - '0') <= 9 && q - d0 < 18)
        x = x * 10 + (*q++ - '0');
    if (q == d0 || (q < e && !is_blank(*q)))
        return -1;
    c->p = q;
    *out = neg ? -x : x;
    return 0;
}

/* Hex digit values; HX_END for a blank (a token's end); anything else is 0xff (hex_of). */
enum { HX_END = 0x40 };
#define HX(c, v) [c] = (v) + 1
static const unsigned char hex1[256] = {
    HX('0', 0), HX('1', 1), HX('2', 2), HX('3', 3), HX('4', 4), HX('5', 5), HX('6', 6),
    HX('7', 7), HX('8', 8), HX('9', 9), HX('a', 10), HX('b', 11), HX('c', 12), HX('d', 13),
    HX('e', 14), HX('f', 15), HX('A', 10), HX('B', 11), HX('C', 12), HX('D', 13), HX('E', 14),
    HX('F', 15), [' '] = HX_END + 1, ['\t'] = HX_END + 1,
};
#undef HX

/* hex1 holds value + 1 so that the unlisted bytes (0) come out as 0xff after the - 1. */
static unsigned hex_of(char ch) { return (unsigned)(hex1[(unsigned char)ch] - 1) & 0xffu; }

/* The next token read as hex (optional 0x) in the same pass that finds its end, as
 * scan_dec: PCs, masks and addresses are most of a line's characters, and reading each
 * token twice (find its end, then convert) was a fifth of a text trace's parse. */
static int scan_hex(cursor *c, uint64_t *v, const char **s, size_t *n)
{
    const char *p = token_start(c, s, n), *e = c->end;
    if (!p)
        return -1;
    if (e - p >= 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
        p += 2;
    const char *d0 = p;
    uint64_t x = 0, over = 0;
    unsigned d = HX_END;
    for (; p < e && (d = hex_of(*p)) < 16; p++) {
        over |= x >> 60;
        x = x << 4 | d;
    }
    int ok = p > d0 && !over && (p == e || d == HX_END);
    while (p < e && !is_blank(*p)) /* the rest of a bad token, for the message */
        p++;
    c->p = p;
    *n = (size_t)(p - *s);
    *v = x;
    return ok ? 0 : -1;
}

typedef int scan_fn(cursor *c, uint64_t *v, const char **s, size_t *n);

/* A number in [0, max] read by `scan`, or the "expected" error naming the token. */
static inline int get_num(cursor *c, scan_fn *scan, const char *what, uint64_t max,
                          uint64_t *out)
{
    const char *s;
    size_t n;
    if (scan(c, out, &s, &n) || *out > max)
        return expected(c, what, s, n);
    return 0;
}

static int get_hex(cursor *c, const char *what, uint64_t max, uint64_t *out)
{
    return get_num(c, scan_hex, what, max, out);
}

static int get_dec(cursor *c, const char *what, uint64_t max, uint64_t *out)
{
    return get_num(c, scan_dec, what, max, out);
}

static int get_sdec_full(cursor *c, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    const char *s = NULL;
    size_t n = 0;
    if (!tok(c, &s, &n) || parse_sdec(s, n, out) || *out < lo || *out > hi)
        return expected(c, what, s, n);
    return 0;
}

/* A signed decimal in [lo, hi]: the short form inline, anything else read (or reported) in
 * full. */
static inline int get_sdec(cursor *c, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    const char *at = c->p;
    if (short_sdec(c, out) == 0 && *out >= lo && *out <= hi)
        return 0;
    c->p = at;
    return get_sdec_full(c, what, lo, hi, out);
}

/* "R<n>", n = 0..255: up to three digits in one pass, anything else (leading zeros, an
 * error) the long way. */
static int get_reg(cursor *c, uint16_t *out)
{
    const char *p = c->p, *e = c->end;
    while (p < e && is_blank(*p))
        p++;
    if (p < e && *p == 'R') {
        const char *q = p + 1;
        unsigned v = 0;
        while (q < e && q - p <= 3 && (unsigned)(*q - '0') <= 9)
            v = v * 10 + (unsigned)(*q++ - '0');
        if (q > p + 1 && (q == e || is_blank(*q)) && v <= 255) {
            c->p = q;
            *out = (uint16_t)v;
            return 0;
        }
    }
    const char *s = NULL;
    size_t n = 0;
    uint64_t v;
    if (!tok(c, &s, &n) || n < 2 || s[0] != 'R' || parse_dec(s + 1, n - 1, &v) || v > 255)
        return expected(c, "a register R0..R255", s, n);
    *out = (uint16_t)v;
    return 0;
}

static int get_regs(cursor *c, trace_line *l, unsigned at, unsigned count)
{
    base_grow(&l->regs, &l->regs_cap, (size_t)at + count, sizeof *l->regs);
    for (unsigned i = 0; i < count; i++)
        if (get_reg(c, &l->regs[at + i]))
            return -1;
    return 0;
}

static int valid_opcode(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
        return 0;
    for (size_t i = 1; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.'))
            return 0;
    }
    return 1;
}

static int get_prefix(cursor *c, const trace_fmt *fmt, trace_line *l)
{
    uint64_t v;
    if (fmt->tracer_version < 3) {
        static const char *const what[4] = {"a CTA x index (tracer version < 3 prefix)",
                                            "a CTA y index", "a CTA z index",
                                            "a warp index"};
        for (int i = 0; i < 4; i++) {
            if (get_dec(c, what[i], UINT32_MAX, &v))
                return -1;
            l->prefix[i] = (uint32_t)v;
        }
    }
    if (fmt->lineinfo && get_dec(c, "a source line number (lineinfo)", UINT64_MAX, &l->line_num))
        return -1;
    return 0;
}

static int get_mode1(cursor *c, trace_line *l)
{
    uint64_t base = 0; /* set on success; gcc -O3 cannot see that a failure returns non-zero */
    int64_t stride;
    if (get_hex(c, "a hex base address (mode 1)", UINT64_MAX, &base) ||
        get_sdec(c, "a 32-bit stride (mode 1)", INT32_MIN, INT32_MAX, &stride))
        return -1;
    uint32_t m = l->mask;
    if (m == 0)
        return 0;  /* "1 0x0 0": no access */
    uint32_t run = m >> __builtin_ctz(m);
    if (run & (run + 1))
        return trace_fail(c->e, "%s:%llu: expected one contiguous run of active lanes for "
                          "address mode 1, found mask %08x", c->file,
                          (unsigned long long)c->lineno, m);
    unsigned p = base_popcount32(m);
    for (unsigned i = 0; i < p; i++)
        l->addr[i] = base + (uint64_t)stride * i;  /* wraps like the tracer's arithmetic */
    l->naddr = p;
    return 0;
}

static int get_addrs(cursor *c, trace_line *l)
{
    uint64_t mode = 0; /* as in get_mode1 */
    if (get_dec(c, "an address mode 0, 1 or 2", 2, &mode))
        return -1;
    l->addr_mode = (int)mode;
    unsigned p = base_popcount32(l->mask);
    if (mode == 1)
        return get_mode1(c, l);
    if (mode == 0) {
        for (unsigned i = 0; i < p; i++)
            if (get_hex(c, "a hex address (mode 0, one per active lane)", UINT64_MAX, &l->addr[i]))
                return -1;
        l->naddr = p;
        return 0;
    }
    if (p == 0)
        return trace_fail(c->e, "%s:%llu: expected an active lane for address mode 2, found "
                          "mask 00000000", c->file, (unsigned long long)c->lineno);
    if (get_hex(c, "a hex base address (mode 2)", UINT64_MAX, &l->addr[0]))
        return -1;
    for (unsigned i = 1; i < p; i++) {
        int64_t d;
        if (get_sdec(c, "an address delta (mode 2, popcount-1 of them)", INT64_MIN, INT64_MAX,
                     &d))
            return -1;
        l->addr[i] = l->addr[i - 1] + (uint64_t)d;
    }
    l->naddr = p;
    return 0;
}

static int get_imm(cursor *c, trace_line *l)
{
    if (short_sdec(c, &l->imm) == 0) /* the usual short one in one pass */
        return 0;
    const char *s = NULL;
    size_t n = 0;
    uint64_t u;
    if (!tok(c, &s, &n))
        return expected(c, "an immediate (tracer version >= 5)", s, n);
    if (parse_sdec(s, n, &l->imm) == 0)
        return 0;
    if (parse_dec(s, n, &u) == 0) {  /* above INT64_MAX: keep the bits */
        l->imm = (int64_t)u;
        return 0;
    }
    return expected(c, "a decimal immediate", s, n);
}

/* Tracer v6 tail: "<imm2> NoVal" or "<imm2> Val <v>..." (destination values, decimal or hex;
 * counted, not kept: nothing in lockstep uses values yet). */
static int get_v6_tail(cursor *c, trace_line *l)
{
    const char *s = NULL;
    size_t n = 0;
    int64_t imm = l->imm;
    if (get_imm(c, l))
        return -1;
    l->imm2 = l->imm;
    l->imm = imm;
    if (!tok(c, &s, &n) || !((n == 5 && !memcmp(s, "NoVal", 5)) || (n == 3 && !memcmp(s, "Val", 3))))
        return expected(c, "'NoVal' or 'Val' (tracer version 6)", s, n);
    if (n == 5)
        return 0;
    uint64_t v;
    while (tok(c, &s, &n)) {
        if (parse_dec(s, n, &v) && parse_hex(s, n, &v))
            return expected(c, "a destination value (decimal or hex)", s, n);
        l->nvals++;
    }
    return 0;
}

/* A line's span from after its mask to the end of its memory width (registers, opcode,
 * counts) is the same text every time its static instruction runs, and parsing it was half
 * of a text trace's parse. So the last span parsed at each PC slot is kept with its result:
 * the same bytes, followed by a token boundary, parse the same way, and are copied instead.
 * Spans too long or with too many registers are parsed every time. */
#define SPAN_SLOTS 256
#define SPAN_TEXT 64
#define SPAN_REGS 8

typedef struct span_slot {
    uint8_t len;            /* 0: empty */
    uint8_t ndst, nsrc, op_off, op_len;
    uint32_t mem_width;
    uint16_t regs[SPAN_REGS];
    char text[SPAN_TEXT];
} span_slot;

struct trace_span_memo {
    span_slot s[SPAN_SLOTS];
};

static span_slot *span_slot_of(trace_line *l, uint64_t pc)
{
    if (!l->memo)
        l->memo = base_calloc(1, sizeof *l->memo);
    return &l->memo->s[(pc >> 3 ^ pc >> 11) & (SPAN_SLOTS - 1)];
}

static int span_hit(cursor *c, trace_line *l, const span_slot *m)
{
    const char *at = c->p;
    size_t n = m->len;
    if (!n || (size_t)(c->end - at) < n || memcmp(at, m->text, n) ||
        (at + n < c->end && !is_blank(at[n])))
        return 0;
    unsigned nr = (unsigned)m->ndst + m->nsrc;
    if (nr) {
        base_grow(&l->regs, &l->regs_cap, nr, sizeof *l->regs);
        memcpy(l->regs, m->regs, nr * sizeof *l->regs);
    }
    l->ndst = m->ndst;
    l->nsrc = m->nsrc;
    l->opcode = at + m->op_off;
    l->opcode_len = m->op_len;
    l->mem_width = m->mem_width;
    c->p = at + n;
    return 1;
}

static void span_keep(span_slot *m, const char *at, const char *end, const trace_line *l)
{
    size_t n = (size_t)(end - at);
    unsigned nr = l->ndst + l->nsrc;
    if (n == 0 || n > SPAN_TEXT || nr > SPAN_REGS) {
        m->len = 0;
        return;
    }
    memcpy(m->text, at, n);
    m->len = (uint8_t)n;
    m->ndst = (uint8_t)l->ndst;
    m->nsrc = (uint8_t)l->nsrc;
    m->op_off = (uint8_t)(l->opcode - at);
    m->op_len = (uint8_t)l->opcode_len;
    m->mem_width = l->mem_width;
    if (nr)
        memcpy(m->regs, l->regs, nr * sizeof *l->regs);
}

static int get_span(cursor *c, trace_line *l);

static int get_body(cursor *c, trace_line *l)
{
    uint64_t v = 0; /* as in get_mode1 */
    if (get_hex(c, "a hex PC", UINT64_MAX, &l->pc) ||
        get_hex(c, "a hex active mask (at most 8 digits of value)", UINT32_MAX, &v))
        return -1;
    l->mask = (uint32_t)v;
    span_slot *m = span_slot_of(l, l->pc);
    if (span_hit(c, l, m))
        return 0;
    const char *at = c->p;
    if (get_span(c, l))
        return -1;
    span_keep(m, at, c->p, l);
    return 0;
}

static int get_span(cursor *c, trace_line *l)
{
    uint64_t v = 0;
    const char *s = NULL;
    size_t n = 0;
    if (get_dec(c, "a destination count", TRACE_MAX_REGS, &v))
        return -1;
    l->ndst = (unsigned)v;
    if (get_regs(c, l, 0, l->ndst))
        return -1;
    if (!tok(c, &s, &n) || !valid_opcode(s, n))
        return expected(c, "an opcode", s, n);
    l->opcode = s;
    l->opcode_len = n;
    if (get_dec(c, "a source count", TRACE_MAX_REGS, &v))
        return -1;
    l->nsrc = (unsigned)v;
    if (get_regs(c, l, l->ndst, l->nsrc))
        return -1;
    if (get_dec(c, "a memory width", UINT32_MAX, &v))
        return -1;
    l->mem_width = (uint32_t)v;
    return 0;
}

int trace_parse_line(const trace_fmt *fmt, const char *s, size_t len, trace_line *l,
                     const char *file, uint64_t lineno, base_err *e)
{
    cursor c = {s, s + len, file, lineno, e};
    l->line_num = 0;
    l->imm = l->imm2 = 0;
    l->nvals = 0;
    l->naddr = 0;
    l->addr_mode = -1;
    if (get_prefix(&c, fmt, l) || get_body(&c, l))
        return -1;
    if (l->mem_width > 0 && get_addrs(&c, l))
        return -1;
    if (fmt->tracer_version >= 5 && get_imm(&c, l))
        return -1;
    if (fmt->tracer_version >= 6 && get_v6_tail(&c, l))
        return -1;
    const char *t = NULL;
    size_t n = 0;
    if (tok(&c, &t, &n))
        return expected(&c, "the end of the line", t, n);
    return 0;
}

void trace_line_free(trace_line *l)
{
    free(l->memo);
    l->memo = NULL;
    free(l->regs);
    l->regs = NULL;
    l->regs_cap = 0;
}

/* ---- opcode facts ---- */

static size_t first_token_len(const char *op, size_t len)
{
    const char *dot = memchr(op, '.', len);
    return dot ? (size_t)(dot - op) : len;
}

static int tok_is(const char *s, size_t n, const char *z)
{
    return strlen(z) == n && memcmp(s, z, n) == 0;
}

/* Calls fn on each non-empty '.'-separated token until it returns nonzero. */
static int each_token(const char *op, size_t len, int (*fn)(const char *, size_t, void *),
                      void *arg)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && op[j] != '.')
            j++;
        if (j > i && fn(op + i, j - i, arg))
            return 1;
        i = j + 1;
    }
    return 0;
}

/* A.7: the first token made only of digits, or 'U' + digits, decides (bits / 8). */
static int width_token(const char *s, size_t n, void *arg)
{
    size_t skip = s[0] == 'U' ? 1 : 0;
    if (n == skip)
        return 0;
    for (size_t i = skip; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    uint64_t v;
    unsigned *w = arg;
    int ok = n - skip <= 9 && parse_dec(s + skip, n - skip, &v) == 0 && v / 8 <= 65535;
    *w = ok ? (unsigned)(v / 8) : 0;
    return 1;
}

unsigned trace_opcode_width(const char *op, size_t len)
{
    if (tok_is(op, first_token_len(op, len), "LDC"))
        return 4;
    unsigned w = 4;
    each_token(op, len, width_token, &w);
    return w;
}

typedef struct {
    const char *name;
    unsigned char space, kind;
} space_row;

static const space_row space_rows[] = {
    {"ATOM", TRACE_SPACE_GLOBAL, TRACE_KIND_ATOMIC},  {"ATOMG", TRACE_SPACE_GLOBAL, TRACE_KIND_ATOMIC},
    {"ATOMS", TRACE_SPACE_SHARED, TRACE_KIND_ATOMIC}, {"LD", TRACE_SPACE_GENERIC, TRACE_KIND_LOAD},
    {"LDC", TRACE_SPACE_CONST, TRACE_KIND_LOAD},      {"LDG", TRACE_SPACE_GLOBAL, TRACE_KIND_LOAD},
    {"LDGSTS", TRACE_SPACE_GLOBAL, TRACE_KIND_LOAD},  {"LDL", TRACE_SPACE_LOCAL, TRACE_KIND_LOAD},
    {"LDS", TRACE_SPACE_SHARED, TRACE_KIND_LOAD},     {"LDSM", TRACE_SPACE_SHARED, TRACE_KIND_LOAD},
    {"RED", TRACE_SPACE_GLOBAL, TRACE_KIND_ATOMIC},   {"REDG", TRACE_SPACE_GLOBAL, TRACE_KIND_ATOMIC},
    {"ST", TRACE_SPACE_GENERIC, TRACE_KIND_STORE},    {"STG", TRACE_SPACE_GLOBAL, TRACE_KIND_STORE},
    {"STL", TRACE_SPACE_LOCAL, TRACE_KIND_STORE},     {"STS", TRACE_SPACE_SHARED, TRACE_KIND_STORE},
    {"STSM", TRACE_SPACE_SHARED, TRACE_KIND_STORE},
};

static int strong_gpu(const char *s, size_t n, void *arg)
{
    int *f = arg;
    if (tok_is(s, n, "STRONG"))
        *f |= 1;
    if (tok_is(s, n, "GPU"))
        *f |= 2;
    return 0;
}

void trace_opcode_space(const char *op, size_t len, trace_space *space, trace_kind *kind,
                        int *bypass_l1)
{
    size_t n = first_token_len(op, len);
    *space = TRACE_SPACE_NONE;
    *kind = TRACE_KIND_NONE;
    *bypass_l1 = 0;
    for (size_t i = 0; i < BASE_ARRAY_LEN(space_rows); i++) {
        if (tok_is(op, n, space_rows[i].name)) {
            *space = (trace_space)space_rows[i].space;
            *kind = (trace_kind)space_rows[i].kind;
            break;
        }
    }
    if (*space == TRACE_SPACE_GLOBAL) {
        int f = 0;
        each_token(op, len, strong_gpu, &f);
        *bypass_l1 = f == 3;
    }
}

trace_space trace_generic_space(uint64_t shmem_base, uint64_t local_base, uint64_t addr)
{
    if (shmem_base == 0 || local_base == 0)
        return TRACE_SPACE_SHARED;
    if (addr >= shmem_base && addr < local_base)
        return TRACE_SPACE_SHARED;
    if (addr >= local_base && addr - local_base < 16384)
        return TRACE_SPACE_LOCAL;
    return TRACE_SPACE_GLOBAL;
}

const char *trace_space_name(trace_space s)
{
    static const char *const names[TRACE_NSPACE] = {"none", "global", "local", "shared",
                                                    "const", "generic"};
    return (unsigned)s < TRACE_NSPACE ? names[s] : "?";
}

const char *trace_kind_name(trace_kind k)
{
    static const char *const names[TRACE_NKIND] = {"none", "load", "store", "atomic"};
    return (unsigned)k < TRACE_NKIND ? names[k] : "?";
}
