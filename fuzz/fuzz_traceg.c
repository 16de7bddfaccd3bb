/* libFuzzer target for the Accel-Sim trace reader: the instruction-line parser under every
 * line format, a whole kernel file read from memory, and a kernelslist. Any input must give
 * a result or one error message: never a crash, a leak or a hang. The kernel is also read
 * split into chunks (trace_split_cta ...), which must give the same CTAs and outcome. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const trace_fmt FORMATS[] = {{0, 0}, {2, 1}, {3, 0}, {4, 0}, {4, 1}, {5, 0}, {5, 1}, {6, 0}, {6, 1}};

static void parse_lines(const char *s, size_t n)
{
    trace_line l = {0};
    base_err e = {0};
    size_t i = 0;
    while (i < n) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
        for (size_t f = 0; f < sizeof FORMATS / sizeof FORMATS[0]; f++) {
            base_err_clear(&e);
            if (trace_parse_line(&FORMATS[f], s + i, len, &l, "fuzz", 1, &e) == 0 &&
                l.naddr > TRACE_WARP_SIZE)
                abort();
        }
        i += len + 1;
    }
    trace_line_free(&l);
}

static int same_cta(const trace_cta *a, const trace_cta *b)
{
    if (a->index != b->index || a->line != b->line || a->ninsts != b->ninsts ||
        a->naddrs != b->naddrs || a->nwords != b->nwords)
        return 0;
    for (size_t i = 0; i < a->ninsts; i++)
        if (a->insts[i].sidx != b->insts[i].sidx || a->insts[i].mask != b->insts[i].mask ||
            a->insts[i].addr != b->insts[i].addr)
            return 0;
    return a->nwords == 0 || memcmp(a->addrs, b->addrs, a->nwords * sizeof *a->addrs) == 0;
}

/* Serial reading against split reading (3 chunks, batches of 2, parsed last first). */
static void split_vs_serial(const char *buf, size_t n)
{
    base_err e = {0};
    base_rd *ra = base_rd_open_mem("fuzz.traceg", buf, n, &e);
    trace_kernel *a = ra ? trace_kernel_open_rd(ra, &e) : NULL;
    base_rd *rb = a ? base_rd_open_mem("fuzz.traceg", buf, n, &e) : NULL;
    trace_kernel *b = rb ? trace_kernel_open_rd(rb, &e) : NULL;
    if (!a || !b) {
        trace_kernel_close(a);
        return;
    }
    trace_chunk *ch[3] = {trace_chunk_new(), trace_chunk_new(), trace_chunk_new()};
    trace_cta ca = {0}, cb[2] = {{0}};
    unsigned next = 0;
    for (int going = 1; going;) {
        base_err es = {0}, ea = {0}, eb = {0};
        unsigned m = 0;
        int sp = 1;
        while (m < 2 && (sp = trace_split_cta(b, ch[(next + m) % 3], &es)) == 1)
            m++;
        for (unsigned i = m; i-- > 0;)
            trace_parse_chunk(b, ch[(next + i) % 3], &cb[i]);
        for (unsigned i = 0; i < m + 1 && going; i++) {
            if (i == m && sp == 1)
                break;
            int rb2 = i < m ? (trace_adopt_cta(b, ch[(next + i) % 3], &cb[i], &eb) ? -1 : 1) : sp;
            int ra2 = trace_next_cta(a, &ca, &ea);
            const base_err *ebp = i < m ? &eb : &es;
            if (ra2 != rb2 || (ra2 < 0 && strcmp(ea.msg, ebp->msg)) ||
                (ra2 == 1 && !same_cta(&ca, &cb[i])))
                abort();
            going = ra2 == 1;
        }
        next = (next + m) % 3;
    }
    for (int i = 0; i < 3; i++)
        trace_chunk_free(ch[i]);
    trace_cta_free(&ca);
    trace_cta_free(&cb[0]);
    trace_cta_free(&cb[1]);
    trace_kernel_close(a);
    trace_kernel_close(b);
}

/* The input as a kernel file; with a valid header prepended too, so the body parser is
 * reached without the fuzzer having to discover a header first. */
static void read_kernel(const char *s, size_t n, const char *prefix)
{
    size_t pl = strlen(prefix);
    char *buf = malloc(pl + n + 1);
    memcpy(buf, prefix, pl);
    memcpy(buf + pl, s, n);
    base_err e = {0};
    base_rd *r = base_rd_open_mem("fuzz.traceg", buf, pl + n, &e);
    trace_kernel *k = r ? trace_kernel_open_rd(r, &e) : NULL;
    if (k) {
        stat_set set;
        trace_stats_init(&set);
        stat_block b;
        stat_block_init(&b, &set);
        trace_kernel_stats(k, &b, &e);
        stat_block_free(&b);
        stat_set_free(&set);
        trace_kernel_close(k);
        split_vs_serial(buf, pl + n);
    }
    free(buf);
}

static void read_list(const char *s, size_t n)
{
    base_err e = {0};
    trace_list l;
    memset(&l, 0, sizeof l);
    base_rd *r = base_rd_open_mem("fuzz/kernelslist.g", s, n, &e);
    if (r)
        trace_list_read(r, "fuzz", &l, &e);
    base_rd_close(r);
    trace_list_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    parse_lines(s, size);
    read_kernel(s, size, "");
    read_kernel(s, size, "-grid dim = (3,1,1)\n-block dim = (70,1,1)\n-shmem = 0\n-nregs = 8\n"
                         "-binary version = 90\n-accelsim tracer version = 5\n"
                         "-shmem base_addr = 0x1000\n-local mem base_addr = 0x100000\n#\n");
    read_kernel(s, size, "-grid dim = (2,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 8\n"
                         "-binary version = 61\n-enable lineinfo = 1\n"
                         "-accelsim tracer version = 4\n#\n");
    read_list(s, size);
    return 0;
}
