/* trace: the instruction-line parser (A.5, A.6), opcode facts (A.7, A.8), kernelslist.g (A.2). */
#include "test.h"

#include "trace/trace.h"
#include "trace/write.h"

#include <stdlib.h>
#include <string.h>

static const trace_fmt V3 = {3, 0}, V4L = {4, 1}, V5 = {5, 0}, V0 = {0, 0};

static int parse(const trace_fmt *f, const char *s, trace_line *l, base_err *e)
{
    base_err_clear(e);
    return trace_parse_line(f, s, strlen(s), l, "k.traceg", 12, e);
}

/* Expects a parse error whose message starts with the location and contains `what`. */
static void bad(const trace_fmt *f, const char *s, const char *what, int line)
{
    trace_line l = {0};
    base_err e = {0};
    if (parse(f, s, &l, &e) == 0)
        test_fail_at(__FILE__, line, "accepted '%s'", s);
    else if (strncmp(e.msg, "k.traceg:12: ", 13) != 0 || !strstr(e.msg, what))
        test_fail_at(__FILE__, line, "'%s': message \"%s\" lacks \"%s\"", s, e.msg, what);
    CHECK_EQ(e.code, BASE_EXIT_INPUT);
    trace_line_free(&l);
}
#define BAD(f, s, what) bad(f, s, what, __LINE__)

TEST(trace_line_v5_mode1)
{
    trace_line l = {0};
    base_err e = {0};
    CHECK_EQ(parse(&V5, "00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x7fb0fc430e00 4 0 ", &l, &e), 0);
    CHECK(l.pc == 0xa0);
    CHECK(l.mask == 0xffffffffu);
    CHECK_EQ(l.ndst, 1);
    CHECK_EQ(l.regs[0], 4);
    CHECK_EQ(l.nsrc, 1);
    CHECK_EQ(l.regs[1], 4);
    CHECK(l.opcode_len == 5 && memcmp(l.opcode, "LDG.E", 5) == 0);
    CHECK_EQ(l.mem_width, 4);
    CHECK_EQ(l.addr_mode, 1);
    CHECK_EQ(l.naddr, 32);
    CHECK(l.addr[0] == 0x7fb0fc430e00ull);
    CHECK(l.addr[31] == 0x7fb0fc430e00ull + 31 * 4);
    CHECK_EQ(l.imm, 0);
    CHECK_EQ(parse(&V5, "0060 ffffffff 1 R0 MOV 0 0 1073742663", &l, &e), 0);
    CHECK_EQ(l.imm, 1073742663);
    CHECK_EQ(l.addr_mode, -1);
    CHECK_EQ(parse(&V5, "0060 ffffffff 1 R0 MOV 0 0 -5 \t ", &l, &e), 0);
    CHECK_EQ(l.imm, -5);
    /* predicated off, stride 0, negative stride, partial contiguous run */
    CHECK_EQ(parse(&V5, "0050 00000000 0 EXIT 0 0 0 ", &l, &e), 0);
    CHECK_EQ(l.mask, 0);
    CHECK_EQ(parse(&V5, "0278 ffffffff 1 R12 LDS.U.128 1 R2 16 1 0x0 0 0", &l, &e), 0);
    CHECK(l.naddr == 32 && l.addr[31] == 0);
    CHECK_EQ(parse(&V5, "0278 0000fff0 1 R12 LDS 1 R2 4 1 0x100 -4 0", &l, &e), 0);
    CHECK(l.naddr == 12 && l.addr[0] == 0x100 && l.addr[11] == 0x100 - 44);
    trace_line_free(&l);
}

TEST(trace_line_every_tracer_version)
{
    trace_line l = {0};
    base_err e = {0};
    /* v3: no immediate */
    CHECK_EQ(parse(&V3, "0098 ffffffff 1 R4 LDG.E.64 1 R4 8 1 0x7f32c5500000 8", &l, &e), 0);
    CHECK(l.addr[1] == 0x7f32c5500008ull);
    CHECK_EQ(parse(&V3, "0058 00000000 0 EXIT 0 0 ", &l, &e), 0);
    BAD(&V3, "0058 00000000 0 EXIT 0 0 7", "expected the end of the line, found '7'");
    /* v4 with lineinfo */
    CHECK_EQ(parse(&V4L, "17 0248 ffffffff 0 STS 2 R0 R25 4 1 0x0 4", &l, &e), 0);
    CHECK(l.line_num == 17 && l.pc == 0x248 && l.nsrc == 2 && l.regs[1] == 25);
    BAD(&V4L, "0248 ffffffff 0 STS 2 R0 R25 4 1 0x0 4", "expected a destination count, found 'STS'");
    /* pre-3: CTA and warp prefix, zero-padded base */
    CHECK_EQ(parse(&V0, "1 2 3 4 0290 ffff0000 1 R8 LDG.E.SYS 1 R2 4 1 0x00007fe033702880 4",
                   &l, &e), 0);
    CHECK(l.prefix[0] == 1 && l.prefix[3] == 4 && l.mask == 0xffff0000u);
    CHECK(l.naddr == 16 && l.addr[0] == 0x7fe033702880ull && l.addr[15] == 0x7fe033702880ull + 60);
    BAD(&V0, "0290 ffff0000 1 R8 LDG.E.SYS 1 R2 4 1 0x0 4", "expected");
    /* v5 requires the immediate */
    BAD(&V5, "0050 00000000 0 EXIT 0 0", "expected an immediate");
    /* any number of registers */
    CHECK_EQ(parse(&V5, "0010 ffffffff 1 R2 IMAD 6 R1 R2 R3 R4 R5 R255 0 0", &l, &e), 0);
    CHECK(l.nsrc == 6 && l.regs[6] == 255);
    trace_line_free(&l);
}

TEST(trace_line_address_modes_0_and_2)
{
    trace_line l = {0};
    base_err e = {0};
    CHECK_EQ(parse(&V5, "0010 00000005 1 R2 LDG.E 1 R4 4 0 0x0000000000001000 0x2000 0", &l, &e), 0);
    CHECK(l.addr_mode == 0 && l.naddr == 2 && l.addr[0] == 0x1000 && l.addr[1] == 0x2000);
    /* A.6's constructed example: lanes 1, 2, 4 at 0x1000, 0x1004, 0x0ff0; then immediate 7 */
    CHECK_EQ(parse(&V5, "0010 00000016 1 R2 LDG.E 1 R4 4 2 0x1000 4 -20 7", &l, &e), 0);
    CHECK(l.addr_mode == 2 && l.naddr == 3);
    CHECK(l.addr[0] == 0x1000 && l.addr[1] == 0x1004 && l.addr[2] == 0x0ff0);
    CHECK_EQ(l.imm, 7);
    CHECK_EQ(parse(&V5, "0010 00000010 1 R2 LDG.E 1 R4 4 2 0x1000 9", &l, &e), 0);
    CHECK(l.naddr == 1 && l.addr[0] == 0x1000 && l.imm == 9);
    CHECK_EQ(parse(&V3, "0010 00000003 1 R2 LDG.E 1 R4 4 2 0x10 -16", &l, &e), 0);
    CHECK(l.addr[1] == 0);
    /* mode 1 with mask 0: no access */
    CHECK_EQ(parse(&V3, "0010 00000000 1 R7 LDG.E 1 R4 4 1 0x0 0", &l, &e), 0);
    CHECK(l.addr_mode == 1 && l.naddr == 0);
    trace_line_free(&l);
}

TEST(trace_line_rejects_malformed_input)
{
    BAD(&V5, "0010 00000005 1 R2 LDG.E 1 R4 4 1 0x1000 4 0", "contiguous run");
    BAD(&V3, "0010 00000016 1 R2 LDG.E 1 R4 4 2 0x1000 4", "expected an address delta");
    BAD(&V3, "0010 00000016 1 R2 LDG.E 1 R4 4 2 0x1000 4 -20 7", "expected the end of the line");
    BAD(&V5, "0010 00000000 1 R2 LDG.E 1 R4 4 2 0x1000 0", "active lane for address mode 2");
    BAD(&V3, "0010 00000005 1 R2 LDG.E 1 R4 4 0 0x1000", "expected a hex address");
    BAD(&V3, "0010 00000001 1 R2 LDG.E 1 R4 4 0 0x1000 0x2000", "expected the end of the line");
    BAD(&V5, "0010 00000001 1 R2 LDG.E 1 R4 4 3 0x1000 0", "address mode 0, 1 or 2, found '3'");
    BAD(&V5, "0010 ffffffzz 0 EXIT 0 0 0", "expected a hex active mask (at most 8 digits of value), "
        "found 'ffffffzz'");
    BAD(&V5, "0010 1ffffffff 0 EXIT 0 0 0", "hex active mask");
    BAD(&V5, "0x 00000000 0 EXIT 0 0 0", "expected a hex PC");
    BAD(&V5, "10000000000000000 00000000 0 EXIT 0 0 0", "expected a hex PC");
    BAD(&V5, "0010 ffffffff 1 R256 MOV 0 0 0", "register R0..R255, found 'R256'");
    BAD(&V5, "0010 ffffffff 1 UR4 MOV 0 0 0", "register");
    BAD(&V5, "0010 ffffffff 1 R4 MOV 2 R1 0 0", "expected a register");
    BAD(&V5, "0010 ffffffff 1 R4 MOV 256 R1 0 0", "source count");
    BAD(&V5, "0010 ffffffff 1 R4 4MOV 0 0 0", "expected an opcode, found '4MOV'");
    BAD(&V5, "0010 ffffffff 1 R4 MO-V 0 0 0", "expected an opcode");
    BAD(&V5, "0010 ffffffff 1 R4 LDG.E 1 R4 4 1 0x100 2147483648 0", "32-bit stride");
    BAD(&V5, "0010 ffffffff 1 R4 LDG.E 1 R4 4 1 0x100 -2147483649 0", "32-bit stride");
    BAD(&V5, "0010 00000003 1 R4 LDG.E 1 R4 4 2 0x100 9223372036854775808 0", "address delta");
    BAD(&V5, "0010 ffffffff 1 R4 LDG.E 1 R4 99999999999 1 0x100 4 0", "memory width");
    BAD(&V5, "0010 ffffffff 0 EXIT 0 0 99999999999999999999", "decimal immediate");
    BAD(&V5, "0010 ffffffff 0 EXIT 0 0 0x10", "decimal immediate");
    BAD(&V5, "", "expected a hex PC, found the end of the line");
    BAD(&V5, "0010", "digits of value), found the end of the line");
    BAD(&V5, "0010 ffffffff 0 EX\x01IT 0 0 0", "found 'EX\\x01IT'");
}

/* The parser remembers recent lines' register and opcode spans (by PC) and copies them on
 * the same bytes: a warm parser must give what a fresh one gives, line by line, errors too,
 * also where a remembered span is a prefix of a different one ("8" then "80"). */
static int same_parse(const trace_line *a, const trace_line *b)
{
    if (a->pc != b->pc || a->mask != b->mask || a->ndst != b->ndst || a->nsrc != b->nsrc ||
        a->opcode_len != b->opcode_len || memcmp(a->opcode, b->opcode, a->opcode_len) ||
        a->mem_width != b->mem_width || a->addr_mode != b->addr_mode || a->naddr != b->naddr ||
        a->imm != b->imm)
        return 0;
    for (unsigned i = 0; i < a->ndst + a->nsrc; i++)
        if (a->regs[i] != b->regs[i])
            return 0;
    for (unsigned i = 0; i < a->naddr; i++)
        if (a->addr[i] != b->addr[i])
            return 0;
    return 1;
}

TEST(trace_line_span_memo_parses_as_fresh)
{
    static const char *const lines[] = {
        "0098 ffffffff 1 R4 LDG.E.64 1 R4 8 1 0x7f32c5500000 8 0",
        "0098 0000ffff 1 R4 LDG.E.64 1 R4 8 1 0x7f32c5500000 8 0",
        "0098 ffffffff 1 R4 LDG.E.64 1 R4 80 1 0x7f32c5500000 8 0",
        "0098 ffffffff 1 R4 LDG.E.64 1 R4 8",
        "0098 ffffffff 1 R4 LDG.E.64 1 R4 8x 1 0x1000 8 0",
        "0098 ffffffff 1 R4 LDG.E.64 1 R4\t8\t1 0x1000 8 0",
        ("0898 ffffffff 1 R4 LDG.E.64 1 R4 8 2 0x2000 4 -4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 "
         "4 4 4 4 4 4 4 4 4 4 4 4 4 7"),
        "0098 ffffffff 2 R4 R5 IMAD.WIDE 3 R2 R3 R255 0 -12",
        "0098 ffffffff 2 R4 R5 IMAD.WIDE 3 R2 R3 R255 0 -12 junk",
        "0098 ffffffff 2 R4 R5 IMAD.WIDE 3 R2 R3 R2555 0 -12",
        "0098 ffffffff 0 EXIT 0 0 0",
        "0098 ffffffff 0 EXIT 0 0 0 ",
        "0098 ffffffff 9 R1 R2 R3 R4 R5 R6 R7 R8 R9 MOV 0 0 0",
        "0098 ffffffff 9 R1 R2 R3 R4 R5 R6 R7 R8 R9 MOV 0 0 0",
    };
    trace_line warm = {0};
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
            const char *s = lines[i];
            size_t n = strlen(s);
            trace_line fresh = {0};
            base_err e1 = {0}, e2 = {0};
            int a = trace_parse_line(&V5, s, n, &warm, "k", 1, &e1);
            int b = trace_parse_line(&V5, s, n, &fresh, "k", 1, &e2);
            CHECK_EQ(a, b);
            if (a == 0 && !same_parse(&warm, &fresh))
                test_fail_at(__FILE__, __LINE__, "round %d line %zu parsed differently", round, i);
            if (a != 0)
                CHECK_STR(e1.msg, e2.msg);
            trace_line_free(&fresh);
        }
    CHECK(warm.memo != NULL);
    trace_line_free(&warm);
}

TEST(trace_opcode_width_table)
{
    static const struct { const char *op; unsigned w; } rows[] = {
        {"LDG.E", 4}, {"STG.E", 4}, {"LDS", 4}, {"STS", 4}, {"LDL", 4},
        {"ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU", 4}, {"LDG.E.64", 8}, {"STG.E.64", 8},
        {"ATOMG.E.EXCH.64.STRONG.GPU", 8}, {"LDG.E.128", 16}, {"LDS.U.128", 16},
        {"LDGSTS.E.BYPASS.128", 16}, {"LDG.E.U8", 1}, {"STG.E.U8", 1}, {"LDG.E.U16", 2},
        {"LDS.U16", 2}, {"LDG.E.S8", 4}, {"LDG.E.S16", 4}, {"LDSM.16.M88.4", 2}, {"LDC", 4},
        {"LDC.64", 4}, {"LDG..64", 8}, {"LDS.U.32", 4}, {"STG.E.999999999999", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (trace_opcode_width(rows[i].op, strlen(rows[i].op)) != rows[i].w)
            test_fail_at(__FILE__, __LINE__, "%s: width %u, expected %u", rows[i].op,
                         trace_opcode_width(rows[i].op, strlen(rows[i].op)), rows[i].w);
}

static void space_is(const char *op, trace_space s, trace_kind k, int bypass, int line)
{
    trace_space gs;
    trace_kind gk;
    int gb;
    trace_opcode_space(op, strlen(op), &gs, &gk, &gb);
    if (gs != s || gk != k || gb != bypass)
        test_fail_at(__FILE__, line, "%s: %s/%s/%d", op, trace_space_name(gs), trace_kind_name(gk),
                     gb);
}
#define SPACE(op, s, k, b) space_is(op, TRACE_SPACE_##s, TRACE_KIND_##k, b, __LINE__)

TEST(trace_opcode_space_table)
{
    SPACE("LDG.E", GLOBAL, LOAD, 0);
    SPACE("LDG.E.STRONG.GPU", GLOBAL, LOAD, 1);
    SPACE("LDG.E.STRONG.SYS", GLOBAL, LOAD, 0);
    SPACE("LDGSTS.E.BYPASS.128", GLOBAL, LOAD, 0);
    SPACE("LDL.64", LOCAL, LOAD, 0);
    SPACE("STG.E", GLOBAL, STORE, 0);
    SPACE("STL", LOCAL, STORE, 0);
    SPACE("ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU", GLOBAL, ATOMIC, 1);
    SPACE("RED.E.ADD", GLOBAL, ATOMIC, 0);
    SPACE("ATOM.E.ADD", GLOBAL, ATOMIC, 0);
    SPACE("LDS.U.128", SHARED, LOAD, 0);
    SPACE("STS", SHARED, STORE, 0);
    SPACE("ATOMS.ADD", SHARED, ATOMIC, 0);
    SPACE("LDSM.16.M88.4", SHARED, LOAD, 0);
    SPACE("LDC.64", CONST, LOAD, 0);
    SPACE("LD.E", GENERIC, LOAD, 0);
    SPACE("ST.E.64", GENERIC, STORE, 0);
    SPACE("FADD", NONE, NONE, 0);
    SPACE("LDGX", NONE, NONE, 0);
    SPACE("ULDC.64", NONE, NONE, 0);
    const uint64_t sh = 0x7f0000000000ull, lo = 0x7f0100000000ull;
    CHECK_EQ(trace_generic_space(0, lo, sh + 4), TRACE_SPACE_SHARED);
    CHECK_EQ(trace_generic_space(sh, 0, 12), TRACE_SPACE_SHARED);
    CHECK_EQ(trace_generic_space(sh, lo, sh), TRACE_SPACE_SHARED);
    CHECK_EQ(trace_generic_space(sh, lo, lo - 1), TRACE_SPACE_SHARED);
    CHECK_EQ(trace_generic_space(sh, lo, lo), TRACE_SPACE_LOCAL);
    CHECK_EQ(trace_generic_space(sh, lo, lo + 16383), TRACE_SPACE_LOCAL);
    CHECK_EQ(trace_generic_space(sh, lo, lo + 16384), TRACE_SPACE_GLOBAL);
    CHECK_EQ(trace_generic_space(sh, lo, sh - 1), TRACE_SPACE_GLOBAL);
}

/* ---- kernelslist.g ---- */

static int list_mem(const char *text, trace_list *l, base_err *e)
{
    memset(l, 0, sizeof *l);
    base_err_clear(e);
    base_rd *r = base_rd_open_mem("t/kernelslist.g", text, strlen(text), e);
    int rc = r ? trace_list_read(r, "t", l, e) : -1;
    base_rd_close(r);
    return rc;
}

TEST(trace_list_commands)
{
    trace_list l;
    base_err e = {0};
    CHECK_EQ(list_mem("MemcpyHtoD,0x00007f32c5500000,800000\n\nkernel-1.traceg\r\n"
                      "MemcpyDtoH,0x00007f32c5500000,800000\nkernel-2-ctx_0x55e3a796e730.traceg  \n"
                      "MemcpyHtoD, 0x10 , 16\nkernel-3.traceg.xz\n", &l, &e), 0);
    CHECK_EQ(l.ncmds, 6);
    CHECK_EQ(l.nkernels, 3);
    CHECK_EQ(l.nmemcpy, 2);
    CHECK_EQ(l.nother, 1);
    CHECK(l.memcpy_bytes == 800016);
    CHECK_EQ(l.cmds[0].kind, TRACE_CMD_MEMCPY);
    CHECK(l.cmds[0].addr == 0x7f32c5500000ull && l.cmds[0].bytes == 800000);
    CHECK_EQ(l.cmds[1].kind, TRACE_CMD_KERNEL);
    CHECK_EQ(l.cmds[1].line, 3);
    CHECK_STR(l.cmds[1].path, "t/kernel-1.traceg");
    CHECK_EQ(l.cmds[2].kind, TRACE_CMD_OTHER);
    CHECK_STR(l.cmds[2].text, "MemcpyDtoH,0x00007f32c5500000,800000");
    CHECK_STR(l.cmds[3].path, "t/kernel-2-ctx_0x55e3a796e730.traceg");
    CHECK(l.cmds[4].addr == 0x10 && l.cmds[4].bytes == 16);
    CHECK_STR(l.cmds[5].path, "t/kernel-3.traceg.xz");
    trace_list_free(&l);
}

static void bad_list(const char *text, const char *what, int line)
{
    trace_list l;
    base_err e = {0};
    if (list_mem(text, &l, &e) == 0)
        test_fail_at(__FILE__, line, "accepted \"%s\"", text);
    else if (!strstr(e.msg, what) || strncmp(e.msg, "t/kernelslist.g", 15) != 0)
        test_fail_at(__FILE__, line, "message \"%s\" lacks \"%s\"", e.msg, what);
    trace_list_free(&l);
}
#define BAD_LIST(t, w) bad_list(t, w, __LINE__)

TEST(trace_list_rejects_malformed_lines)
{
    BAD_LIST("MemcpyHtoD,0x10\nkernel-1.traceg\n", "t/kernelslist.g:1: expected 'MemcpyHtoD,0x");
    BAD_LIST("kernel-1.traceg\nMemcpyHtoD,0x10,4,5\n", ":2: expected 'MemcpyHtoD");
    BAD_LIST("MemcpyHtoD,0x1g,4\nkernel-1.traceg\n", "hex device address 0x..., found '0x1g'");
    BAD_LIST("MemcpyHtoD,16,4\nkernel-1.traceg\n", "hex device address");
    BAD_LIST("MemcpyHtoD,0x10,18446744073709551616\nkernel-1.traceg\n", "decimal byte count");
    BAD_LIST("MemcpyHtoD,0x10,-4\nkernel-1.traceg\n", "decimal byte count");
    BAD_LIST("MemcpyHtoD,0xffffffffffffff00,512\nkernel-1.traceg\n", "64-bit address space");
    BAD_LIST("MemcpyHtoD,0x10000000000000000,4\nkernel-1.traceg\n", "hex device address");
    BAD_LIST("kernel-1.trace\n", "post-traces-processing");
    BAD_LIST("MemcpyHtoD,0x10,4\n", "at least one kernel line");
    BAD_LIST("", "at least one kernel line");
}

TEST(trace_list_open_paths)
{
    trace_list l;
    base_err e = {0};
    const char *t = test_write_file("d/kernelslist.g", "kernel-1.traceg\n", 16);
    char *dir = strdup(t);
    *strrchr(dir, '/') = 0;
    CHECK_EQ(trace_list_open(dir, &l, &e), 0);
    CHECK_EQ(l.nkernels, 1);
    CHECK(strstr(l.cmds[0].path, "/d/kernel-1.traceg") != NULL);
    trace_list_free(&l);
    char *file = base_sprintf("%s/kernelslist.g", dir);
    CHECK_EQ(trace_list_open(file, &l, &e), 0);
    CHECK_STR(l.dir, dir);
    trace_list_free(&l);
    CHECK_EQ(trace_list_open("x/y/kernel-7.traceg.xz", &l, &e), 0);  /* single kernel file */
    CHECK(l.nkernels == 1 && l.ncmds == 1 && strcmp(l.cmds[0].path, "x/y/kernel-7.traceg.xz") == 0);
    trace_list_free(&l);
    CHECK_EQ(trace_list_open("/nonexistent/dir/kernelslist.g", &l, &e), -1);
    CHECK_HAS(e.msg, "/nonexistent/dir/kernelslist.g: cannot open");
    CHECK(l.cmds == NULL);
    free(dir);
    free(file);
}

/* The lines of one warp: loads whose addresses take each of the writer's forms (a stride, a
 * list of deltas, no active lane), a store, a negative immediate, registers up to R255. */
static int test_lines(uint32_t w, trace_wline *l, uint64_t a[][32])
{
    static const char *const ops[] = {"LDG.E", "LDG.E.64", "STG.E", "IADD3", "EXIT"};
    int n = 0;
    for (int i = 0; i < 5; i++) {
        trace_wline *x = &l[n];
        *x = (trace_wline){.pc = 0x10u * (uint64_t)i, .mask = 0xffffffffu >> (w + i),
                           .opcode = ops[i], .imm = i == 3 ? -5 : 0};
        if (i < 3) {
            x->width = i == 1 ? 8 : 4;
            x->addr = a[n];
            for (int k = 0; k < 32; k++)
                a[n][k] = 0x7f0000001000ull + (i == 0 ? (uint64_t)k * 4 : (uint64_t)(k * k) * 8);
            if (i == 2 && w == 1)
                x->mask = 0;
        }
        if (i != 4) {
            x->ndst = i == 2 ? 0 : 1;
            x->dst = (uint16_t)(w == 0 ? 255 : 4 + i);
            x->nsrc = 2;
            x->src[0] = (uint16_t)(2 + w);
            x->src[1] = 255;
        }
        n++;
    }
    return n;
}

typedef struct lines_ctx {
    uint32_t cta, nctas;
} lines_ctx;

static int lines_cta(void *ctx, trace_kernel *k, trace_cta *c, base_err *e)
{
    lines_ctx *x = ctx;
    if (x->cta == x->nctas)
        return 0;
    c->id[0] = x->cta++;
    trace_wline l[8];
    uint64_t a[8][32];
    for (uint32_t w = 0; w < 2; w++) {
        int n = test_lines(w, l, a);
        if (trace_lines_warp(k, c, w, e))
            return -1;
        for (int i = 0; i < n; i++)
            if (trace_lines_inst(k, c, w, &l[i], e))
                return -1;
    }
    return 1;
}

/* A kernel built from lines reads as the text trace_wdir writes from the same lines: the same
 * header, CTAs, instructions, dictionary entries and addresses. */
TEST(trace_kernel_from_lines_reads_as_its_text)
{
    base_err e = {0};
    trace_wheader h = {.name = "lines", .grid = {3, 1, 1}, .block = {64, 1, 1}, .shmem = 512,
                       .nregs = 32, .binary_version = 80};
    char *dir = base_sprintf("%s/lines_text", test_tmpdir());
    trace_wdir *d = trace_wdir_open(dir, 0, &e);
    CHECK(d != NULL);
    CHECK_EQ(trace_wdir_kernel_begin(d, &h, &e), 0);
    for (uint32_t c = 0; c < 3; c++) {
        trace_wdir_cta_begin(d, c, 0, 0);
        for (uint32_t w = 0; w < 2; w++) {
            trace_wline l[8];
            uint64_t a[8][32];
            int n = test_lines(w, l, a);
            base_buf t = {0};
            for (int i = 0; i < n; i++)
                trace_format_line(&t, &l[i]);
            trace_wdir_warp(d, w, (uint64_t)n, t.s, t.len);
            base_buf_free(&t);
        }
        trace_wdir_cta_end(d);
    }
    CHECK_EQ(trace_wdir_kernel_end(d, &e), 0);
    CHECK_EQ(trace_wdir_commit(d, &e), 0);
    char *file = base_sprintf("%s/kernel-1.traceg", dir);
    trace_kernel *t = trace_kernel_open(file, &e);
    lines_ctx x = {0, 3};
    trace_kernel *k = trace_kernel_from_lines("made", &h, 1, (trace_lines_src){lines_cta, NULL, &x},
                                              &e);
    CHECK(t != NULL && k != NULL);
    if (!t || !k)
        return;
    const trace_header *ht = trace_kernel_header(t), *hk = trace_kernel_header(k);
    CHECK_STR(hk->name, ht->name);
    CHECK_EQ(hk->kernel_id, ht->kernel_id);
    CHECK_EQ(hk->ctas_in_grid, ht->ctas_in_grid);
    CHECK_EQ(hk->warps_per_cta, ht->warps_per_cta);
    CHECK_EQ(hk->family, ht->family);
    CHECK_EQ(hk->shmem, ht->shmem);
    CHECK_EQ(hk->tracer_version, ht->tracer_version);
    CHECK_STR(hk->nvbit_version, ht->nvbit_version);
    CHECK(!trace_kernel_is_text(k) && trace_kernel_is_text(t));
    trace_cta ct = {0}, ck = {0};
    int ctas = 0;
    for (;;) {
        int rt = trace_next_cta(t, &ct, &e), rk = trace_next_cta(k, &ck, &e);
        CHECK_EQ(rk, rt);
        if (rt != 1 || rk != 1)
            break;
        ctas++;
        CHECK_EQ(ck.index, ct.index);
        CHECK_EQ(ck.id[0], ct.id[0]);
        CHECK_EQ(ck.ninsts, ct.ninsts);
        CHECK_EQ(ck.nwords, ct.nwords);
        CHECK_EQ(ck.nwarps_seen, ct.nwarps_seen);
        for (uint32_t w = 0; w < ct.nwarps; w++)
            CHECK(!memcmp(&ck.warps[w], &ct.warps[w], sizeof ct.warps[w]));
        CHECK(ck.ninsts == ct.ninsts && !memcmp(ck.insts, ct.insts, ct.ninsts * sizeof *ct.insts));
        CHECK(ck.nwords == ct.nwords && !memcmp(ck.addrs, ct.addrs, ct.nwords * sizeof *ct.addrs));
    }
    CHECK_EQ(ctas, 3);
    CHECK_EQ(trace_kernel_nsinst(k), trace_kernel_nsinst(t));
    for (uint32_t i = 0; i < trace_kernel_nsinst(t); i++) {
        const trace_sinst *a = trace_kernel_sinst(t, i), *b = trace_kernel_sinst(k, i);
        CHECK(a && b);
        if (!a || !b)
            break;
        CHECK_STR(trace_sinst_opcode(k, b), trace_sinst_opcode(t, a));
        CHECK_EQ(b->pc, a->pc);
        CHECK_EQ(b->imm, a->imm);
        CHECK_EQ(b->width, a->width);
        CHECK_EQ(b->cls, a->cls);
        CHECK_EQ(b->flags, a->flags);
        CHECK_EQ(b->ndst + b->nsrc, a->ndst + a->nsrc);
        CHECK(!memcmp(trace_sinst_regs(k, b), trace_sinst_regs(t, a),
                      (a->ndst + a->nsrc) * sizeof(uint16_t)));
    }
    trace_cta_free(&ct);
    trace_cta_free(&ck);
    trace_kernel_close(t);
    trace_kernel_close(k);
    /* a grid of 3 given a fourth CTA, a warp twice, an opcode the ISA lacks: errors */
    x = (lines_ctx){0, 4};
    k = trace_kernel_from_lines("made", &h, 1, (trace_lines_src){lines_cta, NULL, &x}, &e);
    int rc;
    while ((rc = trace_next_cta(k, &ck, &e)) == 1)
        ;
    CHECK_EQ(rc, -1);
    CHECK_HAS(e.msg, "made: expected at most 3 thread blocks");
    trace_kernel_close(k);
    base_err_clear(&e);
    x = (lines_ctx){0, 1};
    k = trace_kernel_from_lines("made", &h, 1, (trace_lines_src){lines_cta, NULL, &x}, &e);
    CHECK_EQ(trace_next_cta(k, &ck, &e), 1);
    CHECK_EQ(trace_lines_warp(k, &ck, 1, &e), -1);
    CHECK_HAS(e.msg, "found 1 again");
    base_err_clear(&e);
    trace_wline bad = {.pc = 0, .mask = 1, .opcode = "NOTANOP"};
    CHECK_EQ(trace_lines_inst(k, &ck, 0, &bad, &e), -1);
    CHECK_HAS(e.msg, "NOTANOP");
    trace_cta_free(&ck);
    trace_kernel_close(k);
    free(file);
    free(dir);
}
