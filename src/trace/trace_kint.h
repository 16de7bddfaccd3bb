/* The kernel reader's state, shared by trace_kernel.c (header) and trace_cta.c (body). */
#ifndef LOCKSTEP_TRACE_KINT_H
#define LOCKSTEP_TRACE_KINT_H

#include "trace.h"
#include "write.h"

struct trace_kernel {
    base_rd *r;
    trace_header h;
    trace_fmt fmt;
    char *line;          /* current line (owned by r) */
    size_t len;
    int pending;         /* 1: the current line was pushed back */
    int done;
    uint64_t ctas;       /* CTAs read so far */
    trace_line tl;       /* scratch for the line parser */
    /* static instruction dictionary */
    trace_sinst *sinst;
    uint64_t *shash;     /* hash of each entry, for growing the table */
    size_t nsinst, sinst_cap, shash_cap;
    uint32_t *table;     /* open addressing: sidx + 1, 0 = empty */
    uint32_t *memo;      /* by PC bits: sidx + 1 of the entry last found there, 0 = none */
    size_t table_cap;    /* power of two */
    char *str;           /* opcode texts, NUL-terminated */
    size_t str_len, str_cap;
    uint16_t *regs;
    size_t nregs, regs_cap;
    /* native kernels (trace_native_rd.c): r is then an empty reader that only names the
     * file; nshown = dictionary entries used by the CTAs delivered so far, which is what the
     * text reader's dictionary holds at the same point */
    struct trace_native *nat;
    size_t nshown;
    /* kernels built from lines (trace_kernel_from_lines): r is then an empty reader that
     * only names the kernel, and the producer fills each CTA */
    trace_lines_src lines;
    /* a reader over one thread block's lines taken off the file beforehand (trace_par.c):
     * r is then NULL, lines come from cur (each NUL-terminated) up to cur_end, numbered after
     * cur_lineno; at cur_end, cur_err (a read error the lines stopped at) or the end of file */
    int chunked;
    const char *cur, *cur_end, *cur_name;
    uint64_t cur_lineno;
    const base_err *cur_err;
};

/* The file name and the number of the line last read, for messages (either reader). */
static inline const char *trace_k_name(const trace_kernel *k)
{
    return k->chunked ? k->cur_name : base_rd_name(k->r);
}
static inline uint64_t trace_k_lineno(const trace_kernel *k)
{
    return k->chunked ? k->cur_lineno : base_rd_lineno(k->r);
}

/* 1: a line in k->line; 0: end of file; -1: error. Honours k->pending. */
int trace_k_line(trace_kernel *k, base_err *e);
/* As trace_k_line, skipping lines that are empty or blank. */
int trace_k_nonblank(trace_kernel *k, base_err *e);
/* Empties *c for CTA `index` of a kernel with `nwarps` warps per CTA (both readers). */
void trace_k_cta_reset(trace_cta *c, uint64_t index, uint32_t nwarps);
/* Matches "KEY = <decimal>" (blanks optional around '='): 1 and *v set; 0 when the line does
 * not start with KEY; -1 (error set) when it does but the value is not a number <= max. */
int trace_k_keynum(trace_kernel *k, const char *key, uint64_t max, uint64_t *v, base_err *e);

/* Index of the line's static instruction in k's dictionary, adding (and decoding) it when
 * new: the same entries for text and native kernels. -1 with e set on an opcode the
 * kernel's ISA family does not have. */
int64_t trace_k_dict_index(trace_kernel *k, const trace_line *l, base_err *e);

/* Appends the instruction of line l to c (its dictionary entry found or added): what a text
 * kernel does with each parsed line, and a kernel built from lines with each line given. */
int trace_k_add_line(trace_kernel *k, trace_cta *c, const trace_line *l, base_err *e);

/* Frees the line scratch and the dictionary (all a chunk's reader owns). */
void trace_k_parser_free(trace_kernel *k);

/* The start of the next thread block: 1 with its "#BEGIN_TB" line current (the grid not yet
 * exceeded), 0 at the end of the file (k->done set), -1 on error. */
int trace_k_begin_cta(trace_kernel *k, base_err *e);
/* Whether the current line is w, trailing blanks aside. */
int trace_k_is_word(const trace_kernel *k, const char *w);

#endif
