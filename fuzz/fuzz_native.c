/* libFuzzer target for the native trace reader (docs/NATIVE.md). The input is read three
 * ways: as a whole native file (checksums on: the container checks), the same with
 * checksums off (so mutations reach the tail and block decoders), and as the decoded
 * payload of one block inside a valid container around a fixed dictionary (so the CTA
 * decoder sees arbitrary bytes at once). Any input must give a result or one error
 * message: never a crash, a leak, a hang or an unbounded allocation. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "trace/trace_native.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_all(trace_kernel *k)
{
    base_err e = {0};
    trace_cta c = {0};
    while (trace_next_cta(k, &c, &e) == 1)
        ;
    uint64_t n = trace_kernel_nctas(k);
    if (n != UINT64_MAX && n > 0) {
        base_err_clear(&e);
        if (trace_kernel_seek_cta(k, n / 2, &e) == 0)
            trace_next_cta(k, &c, &e);
    }
    trace_cta_free(&c);
    trace_kernel_close(k);
}

static void read_file(const uint8_t *data, size_t size, int skip_crc)
{
    trace_native_opts o = {skip_crc, 1u << 24, 1u << 16};
    base_err e = {0};
    trace_kernel *k = trace_nat_open("fuzz.lsn", data, size, &o, &e);
    if (k)
        read_all(k);
}

/* ---- a container around the input as one raw block ---- */

typedef struct buf {
    uint8_t *s;
    size_t len;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    memcpy(b->s + b->len, p, n);
    b->len += n;
}

static void var(buf *b, uint64_t v)
{
    while (v >= 0x80) {
        b->s[b->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->s[b->len++] = (uint8_t)v;
}

static void str(buf *b, const char *s)
{
    var(b, strlen(s));
    put(b, s, strlen(s));
}

/* sm_80, grid (4,1,1), block (70,1,1): 3 warps, a partial one; generic LD/ST resolve by the
 * base addresses. Entries: IMAD, LDG.E (always addresses), ST.E (sometimes), EXIT, BRA. */
static void put_tail(buf *t, uint64_t nctas, uint64_t raw)
{
    str(t, "fuzz");
    var(t, 2);                            /* kernel id 1 */
    var(t, 4), var(t, 1), var(t, 1);
    var(t, 70), var(t, 1), var(t, 1);
    var(t, 0), var(t, 16), var(t, 80), var(t, 0);
    var(t, 0x1000), var(t, 0x100000);
    str(t, "1.7");
    var(t, 5), var(t, 0);
    var(t, nctas), var(t, 1), var(t, 5);  /* CTAs, blocks, dictionary entries */
    var(t, 4096), var(t, 4096 * 32), var(t, raw), var(t, raw);
    static const uint8_t pcs[] = {0, 32, 32, 32, 32}, imms[] = {0, 0, 0, 0, 3};
    for (int i = 0; i < 5; i++)
        var(t, pcs[i]);
    for (int i = 0; i < 5; i++)
        var(t, imms[i]);
    for (int i = 0; i < 5; i++)
        var(t, 0);
    static const char *const ops[] = {"IMAD", "LDG.E", "ST.E", "EXIT", "BRA"};
    for (int i = 0; i < 5; i++)
        var(t, 0);
    for (int i = 0; i < 5; i++)
        str(t, ops[i]);
    static const uint8_t nd[] = {1, 1, 0, 0, 0}, nsr[] = {2, 1, 2, 0, 0};
    for (int i = 0; i < 5; i++)
        var(t, nd[i]), var(t, nsr[i]);
    static const uint8_t regs[] = {4, 1, 2, 6, 8, 2, 3};
    put(t, regs, sizeof regs);
    static const uint8_t af[] = {0, 1, 2, 0, 0};
    put(t, af, sizeof af);
}

static void read_wrapped(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return;
    size_t cap = size + 512;
    buf f = {malloc(cap), 0}, t = {malloc(512), 0};
    put(&f, "LSTRACE\1", 8);
    put(&f, data + 1, size - 1);
    uint64_t nctas = 1 + data[0] % 4;
    put_tail(&t, nctas, size - 1 ? size - 1 : 1);
    var(&t, size - 1), var(&t, size - 1), var(&t, nctas), var(&t, 0), var(&t, 0);
    uint8_t crc[4], foot[TRACE_NAT_FOOTER];
    trace_nat_put32(crc, trace_nat_crc(0, data + 1, size - 1));
    put(&t, crc, 4);
    put(&f, t.s, t.len);
    trace_nat_put32(foot, (uint32_t)t.len);
    trace_nat_put32(foot + 4, (uint32_t)t.len);
    trace_nat_put32(foot + 8, TRACE_NAT_RAW);
    trace_nat_put32(foot + 12, trace_nat_crc(trace_nat_crc(0, t.s, t.len), foot, 12));
    memcpy(foot + 16, TRACE_NAT_END_MAGIC, 4);
    put(&f, foot, sizeof foot);
    read_file(f.s, f.len, 0);
    free(f.s);
    free(t.s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    base_err e = {0};
    trace_kernel *k = trace_kernel_open_mem("fuzz.lsn", data, size, &e);
    if (k)
        read_all(k);
    read_file(data, size, 1);
    read_wrapped(data, size);
    return 0;
}
