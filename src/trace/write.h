/* trace write: produces Accel-Sim trace directories (kernelslist.g + kernel-N.traceg[.xz]).
 *
 * Output is what the Accel-Sim post-processor writes for tracer version 5 (FORMATS.md A.2-A.6),
 * the newest line format the reference simulator reads: header lines, the "#traces format"
 * comment, then per CTA "#BEGIN_TB", "thread block = x,y,z", per warp "warp = k" /
 * "insts = n" and the instruction lines, "#END_TB". Addresses are compressed the way the
 * tracer does with TOOL_COMPRESS=1 (mode 1 when exact, else mode 2), and every line has the
 * tracer's trailing space, so files are indistinguishable in form from real ones.
 *
 * Every file is written under a temporary name and renamed when complete; kernelslist.g is
 * renamed last, so a directory never names a half-written kernel. Deterministic: equal calls
 * give byte-identical files (plain and xz). */
#ifndef LOCKSTEP_TRACE_WRITE_H
#define LOCKSTEP_TRACE_WRITE_H

#include "trace.h"

#define TRACE_WRITE_VERSION 5   /* tracer version of the lines written */
/* The tracer may list 5 sources, but the reference reader asserts at most 4 (FORMATS.md A.5):
 * writers keep to 4 so every file written here also runs in Accel-Sim. */
#define TRACE_WRITE_MAX_SRC 4

/* One instruction line to format. Addresses are indexed by lane; only lanes set in mask are
 * written. A memory line (width > 0) always carries an address block, also with mask 0. */
typedef struct trace_wline {
    uint64_t pc;
    uint32_t mask;
    uint8_t ndst, nsrc;           /* ndst 0 or 1 (the tracer's rule), nsrc <= 5 */
    uint16_t dst;
    uint16_t src[5];
    const char *opcode;
    uint32_t width;               /* bytes per lane; 0: not a memory instruction */
    const uint64_t *addr;         /* 32 lane addresses when width > 0 */
    int64_t imm;                  /* printed as the tracer does: 32-bit signed */
} trace_wline;

/* Appends one line (with trailing space and newline) to b. */
void trace_format_line(base_buf *b, const trace_wline *l);

/* Fields of a kernel header. Unset strings are written as the tracer would: name required;
 * nvbit_version defaults to "1.7". */
typedef struct trace_wheader {
    const char *name;
    uint32_t grid[3], block[3];
    uint64_t shmem;
    uint32_t nregs;
    int binary_version;
    uint64_t stream_id;
    uint64_t shmem_base, local_base;
    const char *nvbit_version;
} trace_wheader;

typedef struct trace_wdir trace_wdir;

/* Starts writing a trace into dir (created with its parents when missing). xz: kernel files
 * are kernel-N.traceg.xz. */
trace_wdir *trace_wdir_open(const char *dir, int xz, base_err *e);
/* A "MemcpyHtoD,0x<16 hex>,<bytes>" command at this point of the list. */
void trace_wdir_memcpy(trace_wdir *d, uint64_t addr, uint64_t bytes);
/* Starts the next kernel (kernel id = 1, 2, ... in call order) and writes its header; the
 * list gets its file name. One kernel at a time. */
int trace_wdir_kernel_begin(trace_wdir *d, const trace_wheader *h, base_err *e);
void trace_wdir_cta_begin(trace_wdir *d, uint32_t x, uint32_t y, uint32_t z);
/* One warp of the open CTA: n lines formatted by trace_format_line in text[0..len). */
void trace_wdir_warp(trace_wdir *d, uint32_t warp, uint64_t n, const char *text, size_t len);
void trace_wdir_cta_end(trace_wdir *d);
int trace_wdir_kernel_end(trace_wdir *d, base_err *e);
/* Writes kernelslist.g, removes kernel-*.traceg[.xz] files of an earlier run that the new list
 * does not name, frees d. 0, or -1 with e set. */
int trace_wdir_commit(trace_wdir *d, base_err *e);
/* Removes what was written and frees d (NULL allowed). */
void trace_wdir_abort(trace_wdir *d);

/* ---- kernels built from lines ----
 *
 * A kernel whose thread blocks a producer hands over line by line instead of a file's text
 * (a MacSim trace run in place): the reader delivers what it would read from the file
 * trace_wdir writes for the same header and lines (the same header, dictionary and CTAs,
 * statistics alike) without formatting or parsing text. next_cta fills thread block c
 * (already emptied, sized for the warps per CTA): for each warp in index order
 * trace_lines_warp, then trace_lines_inst per instruction; it returns 1, 0 at the end, or -1
 * with e set. free (may be NULL) releases ctx when the kernel closes. */
typedef struct trace_lines_src {
    int (*next_cta)(void *ctx, trace_kernel *k, trace_cta *c, base_err *e);
    void (*free)(void *ctx);
    void *ctx;
} trace_lines_src;

/* name: for messages and trace_kernel_path; id: the kernel id trace_wdir would write. The
 * header is checked as a file's would be; NULL on error (src.free called). */
trace_kernel *trace_kernel_from_lines(const char *name, const trace_wheader *h, uint64_t id,
                                      trace_lines_src src, base_err *e);
int trace_lines_warp(trace_kernel *k, trace_cta *c, uint32_t warp, base_err *e);
int trace_lines_inst(trace_kernel *k, trace_cta *c, uint32_t warp, const trace_wline *l,
                     base_err *e);

/* Totals written so far (kernels, warp instructions, uncompressed bytes of kernel files). */
uint64_t trace_wdir_kernels(const trace_wdir *d);
uint64_t trace_wdir_warp_insts(const trace_wdir *d);
uint64_t trace_wdir_bytes(const trace_wdir *d);

#endif
