/* trace: kernel headers (A.3), thread-block structure (A.4), decoding, and bad input. */
#include "test.h"

#include "isa/isa.h"
#include "trace/trace.h"
#include "trace_util.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#define HDR80                                                                      \
    "-kernel name = _Z3addPf\n-kernel id = 3\n-grid dim = (2,1,1)\n"                \
    "-block dim = (40,1,1)\n-shmem = 0\n-nregs = 8\n-binary version = 80\n"       \
    "-cuda stream id = 94827364\n-shmem base_addr = 0x00007f0000000000\n"          \
    "-local mem base_addr = 0x00007f0100000000\n-nvbit version = 1.7\n"            \
    "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n#traces format = ...\n\n"

/* Two CTAs of two warps (40 threads: warp 1 has 8 lanes). */
#define BODY80                                                                     \
    "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 3\n"                     \
    "0000 ffffffff 1 R1 MOV 0 0 0 \n"                                               \
    "00a0 ffffffff 1 R4 LDG.E.64 1 R4 8 1 0x7f0200000000 8 0 \n"                    \
    "00b0 ffffffff 0 EXIT 0 0 0 \n"                                                 \
    "\nwarp = 1\ninsts = 3\n"                                                       \
    "0000 000000ff 1 R1 MOV 0 0 0 \n"                                               \
    "00a0 00000016 1 R4 LDG.E.64 1 R4 8 2 0x1000 4 -20 0 \n"                        \
    "00b0 000000ff 0 EXIT 0 0 0 \n\n#END_TB\n\n"                                    \
    "#BEGIN_TB\nthread block = 1,0,0\nwarp = 1\ninsts = 1\n"                        \
    "00c0 00000001 0 ST.E 2 R2 R3 4 0 0x00007f0100000010 0\n"                       \
    "warp = 0\ninsts = 0\n#END_TB\n"

static trace_kernel *open_text(const char *text, base_err *e)
{
    base_err_clear(e);
    base_rd *r = base_rd_open_mem("mem.traceg", text, strlen(text), e);
    return r ? trace_kernel_open_rd(r, e) : NULL;
}

/* Reads every CTA; returns the first error's rc (-1) or 0, with totals. */
static int read_all(const char *text, uint64_t *ctas, uint64_t *insts, base_err *e)
{
    trace_kernel *k = open_text(text, e);
    if (!k)
        return -1;
    trace_cta c = {0};
    int rc;
    *ctas = *insts = 0;
    while ((rc = trace_next_cta(k, &c, e)) == 1) {
        (*ctas)++;
        *insts += c.ninsts;
    }
    trace_cta_free(&c);
    trace_kernel_close(k);
    return rc;
}

TEST(trace_header_fields)
{
    base_err e = {0};
    trace_kernel *k = open_text(HDR80 BODY80, &e);
    CHECK(k != NULL);
    if (!k)
        return;
    const trace_header *h = trace_kernel_header(k);
    CHECK_STR(h->name, "_Z3addPf");
    CHECK_EQ(h->kernel_id, 3);
    CHECK(h->grid[0] == 2 && h->grid[1] == 1 && h->grid[2] == 1);
    CHECK_EQ(h->threads_per_cta, 40);
    CHECK_EQ(h->warps_per_cta, 2);
    CHECK_EQ(h->ctas_in_grid, 2);
    CHECK_EQ(h->nregs, 8);
    CHECK_EQ(h->binary_version, 80);
    CHECK_EQ(h->family, ISA_AMPERE);
    CHECK(h->stream_id == 94827364);
    CHECK(h->shmem_base == 0x7f0000000000ull && h->local_base == 0x7f0100000000ull);
    CHECK_STR(h->nvbit_version, "1.7");
    CHECK_EQ(h->tracer_version, 5);
    CHECK_EQ(h->lineinfo, 0);
    trace_kernel_close(k);
}

TEST(trace_header_defaults)
{
    base_err e = {0};
    trace_kernel *k = open_text("-grid dim = ( 1, 1 ,1 )\n-block dim = (32,1,1)\n-shmem = 0\n"
                                "-nregs = 4\n-binary version = 61\n-future key = 7\n-odd line\n"
                                "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                                "0 0 0 0 0008 ffffffff 0 EXIT 0 0\n#END_TB\n", &e);
    CHECK(k != NULL);
    if (!k) {
        printf("  %s\n", e.msg);
        return;
    }
    const trace_header *h = trace_kernel_header(k);
    CHECK_STR(h->name, "mem.traceg");  /* absent: the file path */
    CHECK_EQ(h->kernel_id, -1);
    CHECK_EQ(h->tracer_version, 0);    /* 4-number line prefix */
    CHECK_EQ(h->lineinfo, 0);
    CHECK(h->shmem_base == 0 && h->local_base == 0 && h->stream_id == 0);
    CHECK_STR(h->nvbit_version, "");
    CHECK_EQ(h->family, ISA_PASCAL);
    trace_cta c = {0};
    CHECK_EQ(trace_next_cta(k, &c, &e), 1);
    CHECK_EQ(c.ninsts, 1);
    CHECK_EQ(trace_next_cta(k, &c, &e), 0);
    trace_cta_free(&c);
    trace_kernel_close(k);
    k = open_text("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 4\n"
                  "-binary version = 70\n-accelsim tracer version = 1.2\n#\n", &e);
    CHECK(k && trace_kernel_header(k)->tracer_version == 1);
    trace_kernel_close(k);
}

TEST(trace_cta_structure_and_decoding)
{
    base_err e = {0};
    trace_kernel *k = open_text(HDR80 BODY80, &e);
    if (!k) {
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
        return;
    }
    trace_cta c = {0};
    CHECK_EQ(trace_next_cta(k, &c, &e), 1);
    CHECK_EQ(c.index, 0);
    CHECK_EQ(c.nwarps, 2);
    CHECK_EQ(c.ninsts, 6);
    CHECK(c.warps[1].first == 3 && c.warps[1].n == 3);
    const trace_dinst *d = &c.insts[c.warps[1].first + 1];
    CHECK(d->mask == 0x16);
    uint64_t buf[32];
    const uint64_t *a = trace_cta_addrs(&c, d, buf);
    CHECK(a && a[0] == 0x1000 && a[1] == 0x1004 && a[2] == 0x0ff0);
    CHECK(trace_cta_addrs(&c, &c.insts[0], buf) == NULL);
    CHECK_EQ(c.naddrs, 32 + 3);
    /* same PC, opcode, registers and immediate: one static instruction for both warps */
    CHECK_EQ(c.insts[1].sidx, c.insts[4].sidx);
    CHECK_EQ(trace_kernel_nsinst(k), 3);
    const trace_sinst *s = trace_kernel_sinst(k, c.insts[1].sidx);
    CHECK_STR(trace_sinst_opcode(k, s), "LDG.E.64");
    CHECK(s->width == 8 && s->space == TRACE_SPACE_GLOBAL && s->kind == TRACE_KIND_LOAD);
    CHECK(s->cls == ISA_LOAD && s->cat == ISA_CAT_LOAD && (s->flags & TRACE_F_REF));
    CHECK(s->ndst == 1 && s->nsrc == 1 && trace_sinst_regs(k, s)[1] == 4);
    CHECK_EQ(trace_next_cta(k, &c, &e), 1);
    CHECK(c.index == 1 && c.id[0] == 1 && c.ninsts == 1 && c.nwarps_seen == 2);
    CHECK(c.warps[1].first == 0 && c.warps[1].n == 1 && c.warps[0].n == 0);
    s = trace_kernel_sinst(k, c.insts[0].sidx);
    CHECK(s->space == TRACE_SPACE_GENERIC && s->kind == TRACE_KIND_STORE && s->width == 4);
    CHECK(trace_cta_addrs(&c, &c.insts[0], buf)[0] == 0x7f0100000010ull);
    CHECK_EQ(trace_next_cta(k, &c, &e), 0);
    CHECK_EQ(trace_next_cta(k, &c, &e), 0);
    trace_cta_free(&c);
    trace_kernel_close(k);
}

/* Every record form gives back the lane addresses it was given, in the fewest words. */
static void put_back(trace_cta *c, uint32_t mask, const uint64_t *a, int kind, size_t words)
{
    base_grow(&c->insts, &c->insts_cap, c->ninsts + 1, sizeof *c->insts);
    trace_dinst *d = &c->insts[c->ninsts++];
    *d = (trace_dinst){7, mask, TRACE_NO_ADDR};
    size_t w0 = c->nwords, n0 = c->naddrs;
    unsigned p = (unsigned)__builtin_popcount(mask);
    CHECK_EQ(trace_cta_put_addrs(c, d, a, p), 0);
    CHECK_EQ(d->addr >> TRACE_A_SHIFT, (unsigned)kind);
    CHECK_EQ(c->nwords - w0, words);
    CHECK_EQ(c->naddrs - n0, p);
    uint64_t buf[32];
    const uint64_t *b = trace_cta_addrs(c, d, buf);
    CHECK(b && !memcmp(a, b, p * sizeof *a));
}

TEST(trace_cta_address_records_round_trip)
{
    trace_cta c = {0};
    uint64_t a[32];
    for (int l = 0; l < 32; l++)
        a[l] = 0x7f0000001000ull + 4u * (unsigned)l;
    put_back(&c, UINT32_MAX, a, TRACE_A_STRIDE, 2);           /* unit stride */
    for (int l = 0; l < 32; l++)
        a[l] = 0x2000;
    put_back(&c, UINT32_MAX, a, TRACE_A_STRIDE, 2);           /* a broadcast */
    uint32_t gaps = 0x80000122u;                                /* lanes 1, 5, 8, 31 */
    uint64_t g[4] = {0x9000 - 8 * 1, 0x9000 - 8 * 5, 0x9000 - 8 * 8, 0x9000 - 8 * 31};
    for (int q = 0; q < 4; q++)
        g[q] += 8;                                            /* stride -8 by lane, from lane 1 */
    put_back(&c, gaps, g, TRACE_A_STRIDE, 2);
    for (int l = 0; l < 32; l++)                              /* two rows of a 16-wide tile */
        a[l] = (l < 16 ? 0x40000 : 0x80000) + 4u * (unsigned)(l % 16);
    put_back(&c, UINT32_MAX, a, TRACE_A_HALVES, 2);
    for (int l = 0; l < 32; l++)                              /* second row first, stride -8 */
        a[l] = (l < 16 ? 0x7f0000090000ull : 0x7f0000010000ull) - 8u * (unsigned)(l % 16);
    put_back(&c, UINT32_MAX, a, TRACE_A_HALVES, 2);
    for (int l = 0; l < 32; l++)                              /* rows 4 GiB apart: no halves */
        a[l] = (l < 16 ? 0x40000 : 0x100040000ull) + 4u * (unsigned)(l % 16);
    put_back(&c, UINT32_MAX, a, TRACE_A_LIST, 32);
    for (int l = 0; l < 32; l++)
        a[l] = 0x100000000ull + (uint64_t)((l * 7919) % 1000) * 64 - (l == 3 ? 0x10000000u : 0);
    put_back(&c, UINT32_MAX, a, TRACE_A_OFF32, 1 + 16);       /* scattered within 2 GiB */
    put_back(&c, 0x7u, a, TRACE_A_LIST, 3);                    /* three lanes: a list is smaller */
    a[9] = 0xffff000000000000ull;
    put_back(&c, UINT32_MAX, a, TRACE_A_LIST, 32);            /* beyond 32-bit offsets */
    put_back(&c, 0x10u, a, TRACE_A_LIST, 1);                   /* one lane */
    uint64_t odd[2] = {0x1000, 0x1003};                        /* lanes 0 and 2: no whole stride */
    put_back(&c, 0x5u, odd, TRACE_A_LIST, 2);
    trace_cta_free(&c);
}

TEST(trace_cta_fit_keeps_what_it_holds_in_buffers_of_its_size)
{
    trace_cta c = {0};
    uint64_t a[32];
    for (int l = 0; l < 32; l++)
        a[l] = 0x10000 + (uint64_t)((l * 7919) % 1000) * 64; /* 17 words each */
    for (int i = 0; i < 40; i++) {
        base_grow(&c.insts, &c.insts_cap, c.ninsts + 1, sizeof *c.insts);
        trace_dinst *d = &c.insts[c.ninsts++];
        *d = (trace_dinst){(uint32_t)i, UINT32_MAX, TRACE_NO_ADDR};
        a[0] = (uint64_t)i;
        CHECK_EQ(trace_cta_put_addrs(&c, d, a, 32), 0);
    }
    CHECK_EQ(c.insts_cap, 64);      /* grown by doubling past 40 */
    CHECK_EQ(c.addrs_cap, 1024);    /* 680 words */
    trace_cta_fit(&c);
    CHECK_EQ(c.insts_cap, 40);
    CHECK_EQ(c.addrs_cap, 680);
    uint64_t buf[32];
    for (int i = 0; i < 40; i++) {
        const uint64_t *b = trace_cta_addrs(&c, &c.insts[i], buf);
        CHECK_EQ(c.insts[i].sidx, (uint32_t)i);
        CHECK(b && b[0] == (uint64_t)i && b[31] == a[31]);
    }
    c.ninsts = 38;                  /* within an eighth: left as it is */
    trace_cta_fit(&c);
    CHECK_EQ(c.insts_cap, 40);
    trace_cta_free(&c);
}

TEST(trace_stats_of_a_small_kernel)
{
    base_err e = {0};
    trace_kernel *k = open_text(HDR80 BODY80, &e);
    stat_set set;
    trace_stats_init(&set);
    stat_block b;
    stat_block_init(&b, &set);
    CHECK_EQ(trace_kernel_stats(k, &b, &e), 0);
    CHECK_EQ(stat_get(&b, "ctas"), 2);
    CHECK_EQ(stat_get(&b, "warps"), 4);
    CHECK_EQ(stat_get(&b, "warp_insts"), 7);
    CHECK_EQ(stat_get(&b, "thread_insts"), 32 * 3 + 8 + 3 + 8 + 1);
    CHECK_EQ(stat_get(&b, "generic_warp_insts"), 1);
    CHECK_EQ(stat_get(&b, "addresses"), 36);
    CHECK_EQ(stat_get(&b, "mem_warp"), 3);
    int i = stat_find(&set, "mem_thread");
    CHECK_EQ(b.v[set.slot[i] + TRACE_MEM_GLOBAL_LD], 35);
    CHECK_EQ(b.v[set.slot[i] + TRACE_MEM_LOCAL_ST], 1);  /* generic ST at local_base + 16 */
    i = stat_find(&set, "class_warp");
    CHECK_EQ(b.v[set.slot[i] + ISA_EXIT], 2);
    stat_block_free(&b);
    stat_set_free(&set);
    trace_kernel_close(k);
}

/* Reading `n` bytes of kernel text split into chunks (pools of 1, 3 and 5, batches of 1, 2
 * and 5) must give what trace_next_cta gives: CTAs, dictionary, outcome and message. */
static void split_agrees(const void *text, size_t n, const char *name)
{
    static const unsigned pool[][2] = {{1, 1}, {3, 2}, {5, 5}};
    for (size_t i = 0; i < BASE_ARRAY_LEN(pool); i++) {
        base_err e = {0};
        base_rd *ra = base_rd_open_mem(name, text, n, &e);
        base_rd *rb = base_rd_open_mem(name, text, n, &e);
        trace_kernel *a = ra ? trace_kernel_open_rd(ra, &e) : NULL;
        trace_kernel *b = rb ? trace_kernel_open_rd(rb, &e) : NULL;
        if (a && b)
            tu_check_split(a, b, pool[i][0], pool[i][1], name);
        trace_kernel_close(a);
        trace_kernel_close(b);
    }
}

/* CTAs of over 256 KB of text: a chunk lets go of its text once adopted (trace_chunk_done)
 * and, reused for the next CTAs, still reads what trace_next_cta reads. */
TEST(trace_split_large_ctas_release_their_text)
{
    base_buf b = {0};
    base_buf_puts(&b, "-kernel name = k\n-grid dim = (4,1,1)\n-block dim = (32,1,1)\n"
                      "-shmem = 0\n-nregs = 8\n-binary version = 80\n"
                      "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n");
    for (int c = 0; c < 4; c++) {
        base_buf_printf(&b, "#BEGIN_TB\nthread block = %d,0,0\nwarp = 0\ninsts = 9000\n", c);
        for (int k = 0; k < 8999; k++)
            base_buf_printf(&b, "%04x ffffffff 1 R%d %s 1 R%d 0 0\n", 16 * (k % 97),
                            1 + (k + c) % 5, (k + c) % 3 ? "IADD3" : "MOV", 1 + k % 4);
        base_buf_puts(&b, "0ff0 ffffffff 0 EXIT 0 0 0\n#END_TB\n");
    }
    CHECK(b.len > 4 * (256u << 10));
    split_agrees(b.s, b.len, "large.traceg");
    base_err e = {0};
    base_rd *r = base_rd_open_mem("large.traceg", b.s, b.len, &e);
    trace_kernel *k = r ? trace_kernel_open_rd(r, &e) : NULL;
    trace_chunk *ch = trace_chunk_new();
    trace_cta c = {0};
    CHECK(k && trace_split_cta(k, ch, &e) == 1);
    CHECK(trace_chunk_bytes(ch) > (256u << 10));
    trace_parse_chunk(k, ch, &c);
    CHECK_EQ(trace_adopt_cta(k, ch, &c, &e), 0);
    trace_chunk_done(ch);
    CHECK_EQ(trace_chunk_bytes(ch), 0);
    CHECK_EQ(c.ninsts, 9000);
    trace_cta_free(&c);
    trace_chunk_free(ch);
    trace_kernel_close(k);
    base_buf_free(&b);
}

/* Expects reading `text` to fail with a message containing `what`, serially and split. */
static void bad_kernel(const char *text, const char *what, int line)
{
    base_err e = {0};
    uint64_t ctas, insts;
    if (read_all(text, &ctas, &insts, &e) == 0)
        test_fail_at(__FILE__, line, "accepted input (%llu CTAs)", (unsigned long long)ctas);
    else if (!strstr(e.msg, what))
        test_fail_at(__FILE__, line, "message \"%s\" lacks \"%s\"", e.msg, what);
    else if (strncmp(e.msg, "mem.traceg", 10) != 0)
        test_fail_at(__FILE__, line, "message \"%s\" does not start with the file", e.msg);
    split_agrees(text, strlen(text), "mem.traceg");
}
#define BAD_K(text, what) bad_kernel(text, what, __LINE__)

#define W0 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"

TEST(trace_kernel_rejects_bad_headers)
{
    BAD_K("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-binary version = 80\n#\n",
          "mem.traceg:5: expected a '-nregs = <count>' header line");
    BAD_K("-block dim = (32,1,1)\n-shmem = 0\n-nregs = 1\n-binary version = 80\n#\n", "-grid dim");
    BAD_K("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-nregs = 1\n-binary version = 80\n#\n",
          "-shmem");
    BAD_K("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 1\n#\n",
          "-binary version");
    BAD_K("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 1\n"
          "-binary version = 0\n#\n", "known '-binary version'");
    BAD_K("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 1\n"
          "-binary version = 100\n#\n", "found 100");
    BAD_K("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 1\n"
          "-binary version = 90\n-accelsim tracer version = 7\n#\n", "tracer version' 0..6");
    BAD_K("-grid dim = (196,1)\n", "mem.traceg:1: expected '(x,y,z)' for '-grid dim', found '(196,1)'");
    BAD_K("-grid dim = (0,1,1)\n", "sizes 1..4294967295");
    BAD_K("-grid dim = (4294967296,1,1)\n", "sizes 1..4294967295");
    BAD_K("-block dim = (1024,1024,1)\n-grid dim = (1,1,1)\n-shmem = 0\n-nregs = 1\n"
          "-binary version = 80\n#\n", "at most 65536 threads per block");
    BAD_K("-shmem = 99999999999999999999\n", "mem.traceg:1: expected a decimal number for '-shmem'");
    BAD_K("-shmem base_addr = 0xZZ\n", "expected a hex number");
    BAD_K("-accelsim tracer version = v5\n", "version number");
    BAD_K("-enable lineinfo = 2\n", "lineinfo");
    BAD_K("kernel-1.traceg\n", "mem.traceg:1: expected a header line");
    BAD_K("", "found an empty file");
    BAD_K("\n  \n", "found only blank lines");
}

TEST(trace_kernel_rejects_bad_structure)
{
    /* insts = n larger than the lines that follow */
    BAD_K(HDR80 W0 "insts = 3\n0000 ffffffff 1 R1 MOV 0 0 0 \n0010 ffffffff 0 EXIT 0 0 0\n"
                   "#END_TB\n",
          "mem.traceg:23: expected instruction line 3 of 3 for warp 0 ('insts = 3' at line 20), "
          "found '#END_TB'");
    /* insts = n smaller */
    BAD_K(HDR80 W0 "insts = 1\n0000 ffffffff 1 R1 MOV 0 0 0 \n0010 ffffffff 0 EXIT 0 0 0\n"
                   "#END_TB\n",
          "mem.traceg:22: expected 'warp = <k>' or '#END_TB' (more lines than 'insts = n'?)");
    BAD_K(HDR80 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\ninsts = 0\n#END_TB\n",
          "mem.traceg:19: expected a warp index below 2");
    BAD_K(HDR80 W0 "insts = 0\nwarp = 0\ninsts = 0\n#END_TB\n", "found warp 0 again");
    BAD_K(HDR80 W0 "insts = 2\n0000 ffffffff 1 R1 MOV 0 0 0 \n",
          "mem.traceg:21: expected 1 more instruction lines for warp 0 ('insts = 2' at line 20), "
          "found the end of the file");
    BAD_K(HDR80 W0 "insts = 1\n0000 ffffffff 1 R1 MOV 0 0 0 \n\n",
          "expected '#END_TB' closing the thread block of line 17, found the end of the file");
    BAD_K(HDR80 W0, "expected 'insts = <n>' after 'warp = 0', found the end of the file");
    BAD_K(HDR80 W0 "inst = 1\n", "mem.traceg:20: expected 'insts = <n>' after 'warp = <k>', found "
                                 "'inst = 1'");
    BAD_K(HDR80 W0 "insts = 99999999999999999999\n", "mem.traceg:20: expected a number <= ");
    BAD_K(HDR80 W0 "insts = 1\n0000 ffffffff 1 R1 FOO.BAR 0 0 0\n#END_TB\n",
          "mem.traceg:21: expected an opcode of the ampere ISA (binary version 80), found 'FOO'");
    BAD_K(HDR80 W0 "insts = 1\n0000 fffffffg 1 R1 MOV 0 0 0\n#END_TB\n",
          "mem.traceg:21: expected a hex active mask");
    BAD_K(HDR80 "thread block = 0,0,0\n", "mem.traceg:17: expected '#BEGIN_TB'");
    BAD_K(HDR80 "#BEGIN_TB\nthread block = 0,0\n", "expected 'thread block = x,y,z'");
    BAD_K(HDR80 "#BEGIN_TB\n", "expected 'thread block = x,y,z', found the end of the file");
    BAD_K(HDR80 "#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n#BEGIN_TB\nthread block = 1,0,0\n"
                "#END_TB\n#BEGIN_TB\nthread block = 2,0,0\n#END_TB\n",
          "expected at most 2 thread blocks (the grid)");
    BAD_K(HDR80 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 1 R1 MOV 0 0 0 "
                "\nbogus\n#END_TB\n", "expected 'warp = <k>' or '#END_TB', found 'bogus'");
}

TEST(trace_kernel_rejects_binary_data)
{
    static const char bin[] = "-grid dim = (1,1,1)\n\x7f" "ELF\x02\x01\x01\x00\x00\x00garbage";
    base_err e = {0};
    base_rd *r = base_rd_open_mem("mem.traceg", bin, sizeof bin - 1, &e);
    trace_kernel *k = r ? trace_kernel_open_rd(r, &e) : NULL;
    CHECK(k == NULL);
    CHECK_HAS(e.msg, "mem.traceg: byte offset 27");
    CHECK_HAS(e.msg, "binary data");
    static const char noise[] = "\x89PNG\r\n\x1a\n garbage";
    BAD_K(noise, "mem.traceg:1: expected a header line '-<key> = <value>' or '#', found "
                 "'\\x89PNG'");
}

TEST(trace_cta_buffers_are_reused)
{
    /* 50 identical CTAs: capacities stay those of one CTA. */
    base_buf b = {0};
    base_buf_puts(&b, "-grid dim = (50,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 4\n"
                      "-binary version = 86\n-accelsim tracer version = 4\n#\n");
    for (int i = 0; i < 50; i++)
        base_buf_printf(&b, "#BEGIN_TB\nthread block = %d,0,0\nwarp = 0\ninsts = 2\n"
                            "00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x%x 4\n0010 ffffffff 0 EXIT 0 0\n"
                            "#END_TB\n", i, 0x1000 * i);
    base_err e = {0};
    trace_kernel *k = open_text(b.s, &e);
    trace_cta c = {0};
    size_t icap = 0, acap = 0;
    int n = 0;
    while (trace_next_cta(k, &c, &e) == 1) {
        if (n++ == 0) {
            icap = c.insts_cap;
            acap = c.addrs_cap;
        }
        CHECK(c.insts_cap == icap && c.addrs_cap == acap);
    }
    CHECK_EQ(n, 50);
    CHECK_EQ(trace_kernel_nsinst(k), 2);
    trace_cta_free(&c);
    trace_kernel_close(k);
    base_buf_free(&b);
}

/* Tracer v6 (newer Accel-Sim, NVBit 1.8): several destinations, two immediates, NoVal/Val
 * tails, and cluster lines after "thread block" (FORMATS.md A.4, A.11). */
TEST(trace_v6_lines_and_cluster_ids)
{
    static const char text[] =
        "-kernel name = k6\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n"
        "-nregs = 32\n-binary version = 90\n-nvbit version = 1.8\n"
        "-accelsim tracer version = 6\n-enable lineinfo = 0\n\n#traces format = ...\n\n"
        "#BEGIN_TB\nthread block = 0,0,0\ncluster id = 0,0,0\ncluster cta = 0,0,0\n"
        "cluster rank = 0\nwarp = 0\ninsts = 3\n"
        "0000 ffffffff 1 R1 MOV 0 0 0 0 NoVal\n"
        "0010 ffffffff 4 R20 R21 R22 R23 HMMA.16816.F32 3 R20 R24 R26 0 0 0 NoVal\n"
        "0020 0000000f 1 R4 LDG.E 1 R2 4 1 0x7f0000001000 4 7 -1 Val 0x1 2 0x3 4\n"
        "#END_TB\n"
        "#BEGIN_TB\nthread block = 1,0,0\ncluster id = 0,0,0\ncluster cta = 1,0,0\n"
        "cluster rank = 1\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 0 0 NoVal\n#END_TB\n";
    base_err e = {0};
    base_rd *r = base_rd_open_mem("v6.traceg", text, sizeof text - 1, &e);
    trace_kernel *k = trace_kernel_open_rd(r, &e);
    CHECK(k != NULL);
    if (!k) {
        printf("  %s\n", e.msg);
        return;
    }
    trace_cta c = {0};
    CHECK_EQ(trace_next_cta(k, &c, &e), 1);
    CHECK_EQ(c.ninsts, 3);
    CHECK_EQ(c.naddrs, 4);
    const trace_sinst *hmma = trace_kernel_sinst(k, c.insts[1].sidx);
    CHECK_EQ(hmma->ndst, 4);
    CHECK_EQ(trace_next_cta(k, &c, &e), 1);
    CHECK_EQ(c.id[0], 1);
    CHECK_EQ(c.cluster_cta[0], 1);
    CHECK_EQ(c.cluster_rank, 1);
    CHECK_EQ(trace_next_cta(k, &c, &e), 0);
    trace_cta_free(&c);
    trace_kernel_close(k);

    trace_fmt f6 = {6, 0};
    trace_line l = {0};
    CHECK_EQ(trace_parse_line(&f6, "0020 00000003 1 R4 LDG.E 1 R2 4 2 0x1000 8 5 9 Val 1 2", strlen("0020 00000003 1 R4 LDG.E 1 R2 4 2 0x1000 8 5 9 Val 1 2"),
                              &l, "x", 1, &e), 0);
    CHECK_EQ(l.imm, 5);
    CHECK_EQ(l.imm2, 9);
    CHECK_EQ(l.nvals, 2);
    CHECK(l.addr[1] == 0x1008);
    CHECK_EQ(trace_parse_line(&f6, "0000 ffffffff 1 R1 MOV 0 0 0 0", strlen("0000 ffffffff 1 R1 MOV 0 0 0 0"), &l, "x.traceg", 7, &e), -1);
    CHECK_HAS(e.msg, "x.traceg:7: expected 'NoVal' or 'Val'");
    base_err_clear(&e);
    CHECK_EQ(trace_parse_line(&f6, "0000 ffffffff 1 R1 MOV 0 0 0 0 Val zz", strlen("0000 ffffffff 1 R1 MOV 0 0 0 0 Val zz"), &l, "x", 1, &e), -1);
    CHECK_HAS(e.msg, "destination value");
    trace_line_free(&l);
}

/* The split reader on well-formed kernels, on CRLF lines and trailing blanks, on blocks that
 * meet dictionary entries in different orders (a chunk's own numbering must be mapped), and
 * on an xz stream cut or corrupted inside a thread block (the read error is the block's). */
TEST(trace_split_reader_matches_next_cta)
{
    split_agrees(HDR80 BODY80, strlen(HDR80 BODY80), "mem.traceg");
    base_buf b = {0};
    base_buf_puts(&b, "-grid dim = (40,1,1)\r\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 4\n"
                      "-binary version = 86\n-accelsim tracer version = 4\n#\n");
    static const char *const ops[] = {"MOV", "IADD3", "FFMA", "LDG.E", "STG.E", "EXIT"};
    for (int c = 0; c < 40; c++) {
        base_buf_printf(&b, "#BEGIN_TB  \r\nthread block = %d,0,0\n", c);
        for (int w = 1; w >= 0; w--) {
            int n = 1 + (c * 7 + w) % 5;
            base_buf_printf(&b, "warp = %d\ninsts = %d\n", w, n);
            for (int i = 0; i < n; i++) {
                int op = (c * 3 + w + i * 5) % 6, mem = op == 3 || op == 4;
                char dst[16] = "0";
                if (op != 4)
                    snprintf(dst, sizeof dst, "1 R%d", c % 4);
                base_buf_printf(&b, "%04x ffffffff %s %s 1 R%d%s\n", (op * 2 + c % 3) * 16, dst,
                                ops[op], (c + i) % 9, mem ? " 4 1 0x7f0000001000 4" : " 0");
            }
        }
        base_buf_puts(&b, c % 2 ? "#END_TB\t\r\n\n" : "#END_TB\n");
    }
    split_agrees(b.s, b.len, "many.traceg");

    size_t cap = b.len + 4096, n = 0;
    uint8_t *xz = malloc(cap);
    CHECK_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)b.s, b.len,
                                     xz, &n, cap), LZMA_OK);
    split_agrees(xz, n, "many.traceg.xz");
    split_agrees(xz, n * 2 / 3, "cut.traceg.xz");
    xz[n / 2] ^= 0x55;
    split_agrees(xz, n, "bad.traceg.xz");
    free(xz);
    base_buf_free(&b);
}

TEST(trace_tracez_is_named)
{
    base_err e = {0};
    CHECK(trace_kernel_open("/tmp/kernel-1.tracez", &e) == NULL);
    CHECK_HAS(e.msg, "kernel-1.tracez: the .tracez container");
}
