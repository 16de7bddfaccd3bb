/* trace: the Accel-Sim SASS trace reader (kernelslist.g + kernel-N.traceg[.xz]).
 *
 * Formats are in /work/shared/docs/FORMATS.md A.1-A.8 ("A.x" below). Every parse error is one
 * line, "FILE:LINE: expected X, found 'Y'" (or a byte offset for binary data), set with
 * base_fail(e, BASE_EXIT_INPUT, ...); nothing here exits or prints to stderr.
 *
 * Reading model: trace_list_open() reads the command list; trace_kernel_open() reads one
 * kernel's header; trace_next_cta() then materialises ONE thread block at a time into a
 * caller-owned trace_cta whose buffers are reused, so memory does not grow with file size
 * (a timing model keeps one trace_cta per resident CTA slot). Instruction lines are decoded
 * once into a per-kernel dictionary of static instructions (trace_sinst, keyed by PC, opcode
 * text, registers, immediate and line number); a dynamic instruction (trace_dinst) is only a
 * dictionary index, an active mask and an offset into the CTA's address pool. */
#ifndef LOCKSTEP_TRACE_H
#define LOCKSTEP_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "../base/base.h"
#include "../base/rd.h"
#include "../stat/stat.h"

#define TRACE_WARP_SIZE 32
#define TRACE_NO_ADDR UINT32_MAX      /* trace_dinst.addr of an instruction without addresses */
#define TRACE_MAX_REGS 255            /* per line, destinations and sources each */
#define TRACE_MAX_CTA_THREADS 65536u  /* larger "-block dim" products are rejected */

/* ---- opcode facts (A.7, A.8) ---- */

typedef enum trace_space {
    TRACE_SPACE_NONE, TRACE_SPACE_GLOBAL, TRACE_SPACE_LOCAL, TRACE_SPACE_SHARED,
    TRACE_SPACE_CONST, TRACE_SPACE_GENERIC, /* LD/ST: resolved per access by address */
    TRACE_NSPACE
} trace_space;

typedef enum trace_kind {
    TRACE_KIND_NONE, TRACE_KIND_LOAD, TRACE_KIND_STORE, TRACE_KIND_ATOMIC, TRACE_NKIND
} trace_kind;

const char *trace_space_name(trace_space s);  /* "none", "global", ... */
const char *trace_kind_name(trace_kind k);    /* "none", "load", "store", "atomic" */

/* Per-lane access width in bytes from the opcode text (A.7, reference behaviour: first token
 * that is all digits or 'U'+digits gives bits/8, else 4; LDC is always 4). Widths above
 * 65535 bytes are reported as 0 (never produced by a real opcode). */
unsigned trace_opcode_width(const char *op, size_t len);

/* Memory space and kind from the opcode's first token (A.8). *bypass_l1 = 1 for global
 * accesses whose tokens include both STRONG and GPU. LDSM is a shared load, STSM a shared
 * store; Hopper REDG is a global atomic (lockstep extensions of the A.8 table). */
void trace_opcode_space(const char *op, size_t len, trace_space *space, trace_kind *kind,
                        int *bypass_l1);

/* Space of a generic LD/ST access from its first active lane's address (A.8): shared when
 * either base is 0 or addr is in [shmem_base, local_base); local in [local_base, +16 KiB);
 * else global. */
trace_space trace_generic_space(uint64_t shmem_base, uint64_t local_base, uint64_t addr);

/* ---- one instruction line (A.5, A.6) ---- */

typedef struct trace_fmt {
    int tracer_version; /* < 3: 4-number CTA/warp prefix; >= 5: trailing immediate;
                           6: two immediates then "NoVal" or "Val" and destination values */
    int lineinfo;       /* 1: a source line number precedes the PC */
} trace_fmt;

typedef struct trace_line {
    uint32_t prefix[4];   /* tracer version < 3: cta x, y, z, warp (not used otherwise) */
    uint64_t line_num;    /* lineinfo only */
    uint64_t pc;
    uint32_t mask;
    const char *opcode;   /* points into the parsed text */
    size_t opcode_len;
    unsigned ndst, nsrc;
    uint16_t *regs;       /* ndst destination then nsrc source register numbers (R255 = RZ) */
    size_t regs_cap;      /* regs is grown on demand and reused: free with trace_line_free */
    uint32_t mem_width;   /* as written; the decoder uses trace_opcode_width instead */
    int addr_mode;        /* -1: no address block; else 0, 1 or 2 */
    unsigned naddr;       /* popcount(mask) addresses, or 0 (no block, or mode 1 with mask 0) */
    uint64_t addr[TRACE_WARP_SIZE]; /* addresses of the active lanes, in lane order */
    int64_t imm;          /* tracer version >= 5, else 0 */
    int64_t imm2;         /* tracer version 6: the second immediate, else 0 */
    unsigned nvals;       /* tracer version 6: destination values after "Val" (not kept) */
    struct trace_span_memo *memo; /* the parser's own (recent lines' register/opcode spans) */
} trace_line;

/* Parses one instruction line s[0..len) (no newline; need not be NUL-terminated). Strict:
 * numbers must fit their fields, hex must be hex, mode 2 has exactly popcount-1 deltas, a
 * mode-1 block needs one contiguous run of active lanes, nothing may follow the last field
 * but blanks. On error: -1 with "FILE:LINE: expected X, found 'Y'" in e. */
int trace_parse_line(const trace_fmt *fmt, const char *s, size_t len, trace_line *out,
                     const char *file, uint64_t lineno, base_err *e);
void trace_line_free(trace_line *l);

/* ---- kernelslist.g (A.2) ---- */

typedef enum trace_cmd_kind { TRACE_CMD_MEMCPY, TRACE_CMD_KERNEL, TRACE_CMD_OTHER } trace_cmd_kind;

typedef struct trace_cmd {
    trace_cmd_kind kind;
    uint64_t line;        /* line number in the list file */
    char *text;           /* the line as written, trailing blanks removed */
    char *path;           /* KERNEL: the kernel file, joined with the list's directory */
    uint64_t addr, bytes; /* MEMCPY (MemcpyHtoD,0x<addr>,<bytes>) */
} trace_cmd;

typedef struct trace_list {
    char *path;           /* the list file (or the single kernel file) */
    char *dir;            /* directory kernel paths are relative to */
    trace_cmd *cmds;
    size_t ncmds, cap;
    size_t nkernels, nmemcpy, nother;
    uint64_t memcpy_bytes;
    /* kernels a producer opens instead of files (a MacSim trace run in place): open_kernel
     * opens command cmd's kernel; src_free(src) runs in trace_list_free */
    struct trace_kernel *(*open_kernel)(void *src, size_t cmd, base_err *e);
    void (*src_free)(void *src);
    void *src;
} trace_list;

/* path: a directory (reads DIR/kernelslist.g), a list file, or a single .traceg/.traceg.xz
 * file (a one-kernel list). Commands keep file order; lines that are neither MemcpyHtoD nor
 * kernel lines are kept as TRACE_CMD_OTHER. A list without kernel lines is an error. On
 * error *l is left empty (no need to free). */
int trace_list_open(const char *path, trace_list *l, base_err *e);
/* Parses a list from an open reader (which stays the caller's) into a zeroed *l; dir prefixes
 * kernel paths. On error *l may hold the commands read so far: free it with trace_list_free. */
int trace_list_read(base_rd *r, const char *dir, trace_list *l, base_err *e);
void trace_list_free(trace_list *l);
/* Appends a kernel command whose line and path are `path` (a list a producer builds). */
void trace_list_add_kernel(trace_list *l, const char *path);

/* ---- one kernel file (A.3, A.4) ---- */

typedef struct trace_header {
    char *name;               /* "-kernel name"; the file path when absent */
    int64_t kernel_id;        /* -1 when absent */
    uint32_t grid[3], block[3];
    uint64_t shmem;
    uint32_t nregs;
    int binary_version;
    int family;               /* isa_family, from binary_version */
    uint64_t stream_id;
    uint64_t shmem_base, local_base; /* 0 when absent */
    char *nvbit_version;      /* "" when absent */
    int tracer_version;       /* 0 when absent; "1.2" reads as 1 */
    int lineinfo;
    uint32_t threads_per_cta, warps_per_cta;
    uint64_t ctas_in_grid;
} trace_header;

/* Decoded static instruction. `cat` is the effective GPGPU-Sim category (atomics become
 * LOAD_OP as in the reference, A.8); `table_cat` is the opcode table's. */
typedef struct trace_sinst {
    uint64_t pc;
    int64_t imm;
    uint64_t line_num;
    uint32_t opcode;      /* offset of the NUL-terminated opcode text: trace_sinst_opcode() */
    uint32_t regs;        /* offset of ndst + nsrc register numbers: trace_sinst_regs() */
    uint16_t opcode_len, width;  /* width: bytes per lane (A.7) */
    uint8_t ndst, nsrc;
    uint8_t cls, cat, table_cat; /* isa_class, isa_cat, isa_cat */
    uint8_t space, kind;  /* trace_space, trace_kind */
    uint8_t flags;        /* TRACE_F_* */
} trace_sinst;

#define TRACE_F_BYPASS_L1 1u  /* global access with STRONG and GPU modifiers */
#define TRACE_F_HALF_II 2u    /* HADD2, HFMA2, ...: half the initiation interval (A.8) */
#define TRACE_F_REF 4u        /* the reference's opcode map has this mnemonic */

typedef struct trace_dinst {
    uint32_t sidx;  /* index into the kernel's static dictionary */
    uint32_t mask;  /* active lanes that execute */
    uint32_t addr;  /* its addresses' record in trace_cta.addrs (TRACE_A_*), or TRACE_NO_ADDR */
} trace_dinst;

/* A CTA keeps each instruction's popcount(mask) lane addresses in one of four record forms
 * in trace_cta.addrs, the form in the top two bits of trace_dinst.addr and the record's first
 * word in the rest. A warp's lanes mostly step by a constant (one stride: 2 words instead of
 * 32), or do so in each half (2 words), or stay within 2 GiB of the first lane (32-bit
 * offsets: half the words), so a resident
 * CTA takes a fraction of the memory, and reading and copying CTAs move less of it. */
enum {
    TRACE_A_LIST = 0,   /* the addresses, one word each */
    TRACE_A_STRIDE = 1, /* base, stride: lane l has base + stride * (l - first active lane) */
    TRACE_A_OFF32 = 2,  /* base, then int32 offsets from it, two per word (lowest half first) */
    TRACE_A_HALVES = 3  /* all 32 lanes; base0, then base1 - base0 and the stride as int32s
                         * (low half first): lane l has base(l / 16) + stride * (l % 16) (a
                         * 16-wide 2-D block: two rows of a tile) */
};
#define TRACE_A_SHIFT 30
#define TRACE_A_INDEX ((1u << TRACE_A_SHIFT) - 1)

typedef struct trace_warp {
    uint32_t first, n;  /* the warp's instructions are insts[first .. first+n) */
    uint32_t seen;      /* 1 if the file had a "warp = k" section for this slot */
} trace_warp;

/* One thread block. Zero-initialise before first use; buffers are reused by later calls. */
typedef struct trace_cta {
    uint64_t index;       /* 0-based position in the file (the reference's CTA order) */
    uint32_t id[3];       /* "thread block = x,y,z" (informational; the reference ignores it) */
    uint32_t cluster_id[3], cluster_cta[3], cluster_rank; /* tracer v6 cluster lines, else 0 */
    uint64_t line;        /* line of its #BEGIN_TB */
    uint32_t nwarps;      /* warps per CTA (from -block dim); warps[0..nwarps) */
    uint32_t nwarps_seen;
    trace_warp *warps;
    trace_dinst *insts;
    uint64_t *addrs;      /* address records (TRACE_A_*) */
    size_t ninsts, naddrs; /* naddrs: lane addresses the records hold */
    size_t nwords;        /* words of addrs in use */
    size_t warps_cap, insts_cap, addrs_cap;
} trace_cta;

void trace_cta_free(trace_cta *c);
/* Shrinks c's instruction and address buffers to what it holds (when they hold an eighth or
 * more unused): for a CTA kept resident. A later CTA read into c grows them again. */
void trace_cta_fit(trace_cta *c);

/* Appends the p = popcount(d->mask) >= 1 lane addresses a[] of instruction d in the smallest
 * record form; 0, or -1 when the CTA would need more than 2^30 words (no change then). */
int trace_cta_put_addrs(trace_cta *c, trace_dinst *d, const uint64_t *a, unsigned p);
/* Appends a stride record: lane l of d's mask has base + stride * (l - first active lane). */
int trace_cta_put_stride(trace_cta *c, trace_dinst *d, uint64_t base, int64_t stride, unsigned p);
/* The lane addresses of d in lane order (NULL when it has none): the record itself for a list,
 * else expanded into buf, which must hold 32. */
const uint64_t *trace_cta_addrs_slow(const trace_cta *c, const trace_dinst *d, uint64_t *buf);

static inline const uint64_t *trace_cta_addrs(const trace_cta *c, const trace_dinst *d,
                                              uint64_t *buf)
{
    if (d->addr == TRACE_NO_ADDR)
        return NULL;
    if (d->addr >> TRACE_A_SHIFT == TRACE_A_LIST)
        return c->addrs + d->addr;
    return trace_cta_addrs_slow(c, d, buf);
}

typedef struct trace_kernel trace_kernel;

/* Opens a kernel file (plain or xz, detected by content) and reads its header. Required:
 * -grid dim, -block dim, -shmem, -nregs, -binary version (a known one, A.9); tracer
 * versions above 6 are rejected, and .tracez files are named as unsupported. NULL on error. */
trace_kernel *trace_kernel_open(const char *path, base_err *e);
/* Same over an open reader, which the kernel owns from now on (closed also on failure). */
trace_kernel *trace_kernel_open_rd(base_rd *r, base_err *e);
void trace_kernel_close(trace_kernel *k);

const trace_header *trace_kernel_header(const trace_kernel *k);
const char *trace_kernel_path(const trace_kernel *k);

/* Reads the next thread block into *cta: 1 when one was read, 0 at the end of the file, -1
 * on error. Checks: "#BEGIN_TB ... #END_TB" structure, warp index < warps per CTA and not
 * repeated, exactly n instruction lines after "insts = n", every opcode known to the
 * kernel's ISA family, no more CTAs than the grid. After -1 the reader does not resynchronise:
 * later calls return 0, and the kernel should be closed. */
int trace_next_cta(trace_kernel *k, trace_cta *cta, base_err *e);

/* Reading thread blocks on several threads (text kernels only). trace_split_cta takes the
 * next thread block's lines off the file, in file order, on the thread that owns the kernel;
 * trace_parse_chunk decodes them on any thread, reading the kernel but changing nothing in it
 * (a chunk keeps a dictionary of its own); trace_adopt_cta, called in file order again,
 * merges that dictionary into the kernel's and renumbers the CTA's instructions. The CTA, the
 * kernel's dictionary and any error message are then exactly those that trace_next_cta would
 * have given, whatever the order or the threads of the parses. A chunk may be reused for
 * later thread blocks of the same kernel (its dictionary then carries over, so instructions
 * are decoded once per chunk, not once per CTA); the CTAs of one chunk must be adopted in
 * file order. */
typedef struct trace_chunk trace_chunk;

trace_chunk *trace_chunk_new(void);
void trace_chunk_free(trace_chunk *ch);
/* 1: the next thread block's lines are in ch (up to its "#END_TB", or up to the end of the
 * file or a read error, which its parse will then report); 0 at the end of the file; -1 on
 * error (no "#BEGIN_TB" where one is due, more thread blocks than the grid, a read error). */
int trace_split_cta(trace_kernel *k, trace_chunk *ch, base_err *e);
/* Text bytes ch holds (to bound how many chunks are read ahead at once). */
size_t trace_chunk_bytes(const trace_chunk *ch);
/* Decodes ch into *cta; its outcome is kept in ch for trace_adopt_cta. */
void trace_parse_chunk(const trace_kernel *k, trace_chunk *ch, trace_cta *cta);
/* 0, or -1 with the parse's error (or one of merging) in e. */
int trace_adopt_cta(trace_kernel *k, trace_chunk *ch, trace_cta *cta, base_err *e);
/* After its adoption: a chunk lets go of a large text buffer (its dictionary stays). */
void trace_chunk_done(trace_chunk *ch);

/* The static dictionary so far (it grows as CTAs are read: pointers stay valid only until the
 * next trace_next_cta; indices stay valid for the kernel's lifetime). */
size_t trace_kernel_nsinst(const trace_kernel *k);
const trace_sinst *trace_kernel_sinst(const trace_kernel *k, uint32_t sidx);
const char *trace_sinst_opcode(const trace_kernel *k, const trace_sinst *s);
const uint16_t *trace_sinst_regs(const trace_kernel *k, const trace_sinst *s);

/* Decompressed bytes and lines consumed so far (for progress and speed reports). */
uint64_t trace_kernel_bytes(const trace_kernel *k);
uint64_t trace_kernel_lines(const trace_kernel *k);

/* ---- statistics, `trace info` and `trace check` ---- */

/* Memory bins of the mem_warp / mem_thread DISTs (generic LD/ST resolved by address;
 * "generic" = generic access with no active lane, so nothing to resolve). */
typedef enum trace_mem_bin {
    TRACE_MEM_GLOBAL_LD, TRACE_MEM_GLOBAL_ST, TRACE_MEM_GLOBAL_ATOMIC, TRACE_MEM_LOCAL_LD,
    TRACE_MEM_LOCAL_ST, TRACE_MEM_SHARED_LD, TRACE_MEM_SHARED_ST, TRACE_MEM_SHARED_ATOMIC,
    TRACE_MEM_CONST_LD, TRACE_MEM_GENERIC, TRACE_NMEM
} trace_mem_bin;
extern const char *const trace_mem_bin_names[TRACE_NMEM];

/* Initialises the "trace" statistics set declared in trace_stats.def (free it with
 * stat_set_free). Counter names include kernels, ctas, warps, warp_insts, thread_insts,
 * static_insts, memcpys, memcpy_bytes, other_commands; DISTs class_warp, cat_warp,
 * mem_warp, mem_thread. */
void trace_stats_init(stat_set *s);

/* Adds the list's command counts (memcpys, memcpy_bytes, other_commands) to b. */
void trace_stats_add_list(stat_block *b, const trace_list *l);

/* Reads the rest of kernel k and adds its statistics to b (a block of trace_stats_init's
 * set). 0, or -1 with e set (b then holds the counts of the CTAs read before the error). */
int trace_kernel_stats(trace_kernel *k, stat_block *b, base_err *e);

/* Totals of a whole trace (all kernels, all lines validated). */
typedef struct trace_summary {
    uint64_t kernels, ctas, warps, warp_insts, thread_insts, memcpys, memcpy_bytes, others;
} trace_summary;
int trace_summarize(const char *path, trace_summary *s, base_err *e);

/* `lockstep trace info PATH [--json]`: per kernel and in total, the header facts (name, grid,
 * block, registers, shared memory, binary version and family, tracer version) and the
 * statistics above; then memcpy count/bytes and every "other" command. Reads everything
 * before printing, so on error nothing is written to out. path as for trace_list_open.
 * Returns 0, or -1 with e set (first problem, as file:line). */
int trace_info(const char *path, FILE *out, int json, base_err *e);

/* `lockstep trace check PATH`: validates every command, kernel header and line. On success
 * prints one line to out (if not NULL):
 *   "PATH: ok: K kernels, C CTAs, W warp instructions, T thread instructions, M memcpys
 *    (B bytes), O other commands"
 * and returns 0; on the first problem returns -1 with e set (file:line) and prints nothing. */
int trace_check(const char *path, FILE *out, base_err *e);

/* ---- lockstep's native binary form (docs/NATIVE.md) ----
 *
 * One file per kernel: the header fields, the static instruction dictionary and the thread
 * blocks as zstd-compressed blocks of predicted, delta-coded warp streams, with an index by
 * CTA. trace_kernel_open() recognises it by content, so everything that reads kernels
 * (trace_next_cta, stats, info, check, the simulator) reads it unchanged and gets exactly
 * the CTAs, header and dictionary the text reader gives for the text it came from. */

/* File-name suffix of native kernels; it ends in ".traceg" so that kernelslist.g readers
 * which accept only .traceg[.xz] names list them (the content decides the format). */
#define TRACE_NATIVE_SUFFIX ".lsn.traceg"

/* 1 when path is a file that starts with the native magic. */
int trace_is_native(const char *path);
/* A kernel (native or text, by content) from memory that must outlive it; name is used in
 * messages. */
trace_kernel *trace_kernel_open_mem(const char *name, const void *data, size_t n, base_err *e);
int trace_kernel_is_native(const trace_kernel *k);
/* Read from Accel-Sim text (not native, not built from lines): what trace_split_cta takes. */
int trace_kernel_is_text(const trace_kernel *k);
/* Number of CTAs in a native kernel; UINT64_MAX for text (unknown before reading). */
uint64_t trace_kernel_nctas(const trace_kernel *k);
/* Native kernels: the next trace_next_cta delivers CTA `index` (0-based file order; index
 * == trace_kernel_nctas() positions at the end). Decodes from the start of the block that
 * holds it (a block is about 1 MiB of decoded data). Also clears an earlier read error.
 * 0, or -1 with e set (text kernels: not supported; index out of range; corrupt block). */
int trace_kernel_seek_cta(trace_kernel *k, uint64_t index, base_err *e);

typedef struct trace_convert_summary {
    uint64_t kernels, ctas, warp_insts;
    uint64_t in_bytes, out_bytes;  /* kernel files read (as stored) and written */
} trace_convert_summary;

/* Writes kernel file src (text or native) as native file dst (a temporary renamed when
 * complete). level: zstd level 1..22, or 0 to store blocks uncompressed. Adds to *s when
 * not NULL. 0, or -1 with e set (dst is then not created). */
int trace_native_write_kernel(const char *src, const char *dst, int level,
                              trace_convert_summary *s, base_err *e);
/* `lockstep trace convert --to native SRC --out DIR`: SRC as for trace_list_open (text or
 * native). DIR gets one native file per kernel (kernel-N.lsn.traceg) and kernelslist.g
 * with the other commands verbatim, written last. */
int trace_convert_native(const char *src, const char *dir, int level,
                         trace_convert_summary *s, base_err *e);
/* `lockstep trace convert --to accelsim` of an Accel-Sim or native trace: text kernel files
 * (kernel-N.traceg, or .traceg.xz with xz) in the kernel's own tracer version and line
 * format, which read back to the same header, CTAs and instructions. CTAs land on their
 * original #BEGIN_TB lines where the layout allows, so text -> native -> text -> native
 * gives identical native files. */
int trace_convert_accelsim(const char *src, const char *dir, int xz, trace_convert_summary *s,
                           base_err *e);

#endif
