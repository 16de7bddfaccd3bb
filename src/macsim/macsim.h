/* macsim: the MacSim trace reader (GPU "ptx"/"newptx"/"nvbit", CPU "x86"/"a64"), its checks,
 * `trace info`/`trace check` for it, and conversion to an Accel-Sim trace directory.
 *
 * Formats are in /work/shared/docs/FORMATS.md D.2-D.6 and pitfalls E.18-E.23. Errors follow
 * base.h: one line, "FILE:LINE: expected X, found 'Y'" for the text files and
 * "FILE: byte offset N (record K): ..." for the binary records; nothing here exits or prints
 * to stderr.
 *
 * Reading model: macsim_open() reads the small text files only (kernel_config.txt, every
 * Trace.txt, or a CPU config). Records are then read one warp (or CPU thread) at a time with
 * a macsim_stream, which keeps one gzip stream and a fixed buffer: memory does not grow with
 * the trace, and at most one file is open per stream (E.23). The record decoders work on a
 * byte buffer, so the fuzz target and the stream share them. */
#ifndef LOCKSTEP_MACSIM_H
#define LOCKSTEP_MACSIM_H

#include <stdint.h>
#include <stdio.h>

#include "../base/base.h"

#define MACSIM_WARP_SIZE 32
#define MACSIM_PTX_REC 72      /* trace_info_gpu_small_s on disk */
#define MACSIM_NVBIT_REC 64    /* trace_info_nvbit_small_s on disk */
#define MACSIM_CPU_REC 80      /* trace_info_cpu_s / trace_info_a64_s on disk */
#define MACSIM_MAX_CHILDREN 32
/* The longest instruction: an nvbit record and 32 child records. A decoder given fewer bytes
 * than this takes them to be the rest of the stream. */
#define MACSIM_MAX_INST_BYTES ((1 + MACSIM_MAX_CHILDREN) * MACSIM_NVBIT_REC)

typedef enum macsim_type {
    MACSIM_PTX, MACSIM_NEWPTX, MACSIM_NVBIT, MACSIM_X86, MACSIM_A64, MACSIM_IGPU, MACSIM_NTYPE
} macsim_type;

const char *macsim_type_name(macsim_type t);  /* "ptx", "newptx", ... */
int macsim_type_is_gpu(macsim_type t);

typedef struct macsim_fmt {
    macsim_type type;
    int version;  /* GPU: 14, or 131 (v1.31 newptx: opcodes are remapped to v1.4); CPU: 0 */
    int addr32;   /* ptx/newptx written with trace_uses_64_bit_addr = 0: 2 continuation
                     records of 18 u32 slots instead of 4 of 9 u64 slots */
} macsim_fmt;

/* Memory spaces: the values of the ptx record's address-space byte. */
typedef enum macsim_space {
    MACSIM_SPACE_NONE, MACSIM_SPACE_CONST, MACSIM_SPACE_GLOBAL, MACSIM_SPACE_LOCAL,
    MACSIM_SPACE_PARAM, MACSIM_SPACE_SHARED, MACSIM_SPACE_TEXTURE, MACSIM_SPACE_GENERIC,
    MACSIM_NSPACE
} macsim_space;

typedef enum macsim_kind { MACSIM_LOAD, MACSIM_STORE, MACSIM_ATOMIC, MACSIM_NKIND } macsim_kind;

/* Names of the (space, kind) bins, index space * MACSIM_NKIND + kind: "global_ld", ... */
extern const char *const macsim_mem_bin_names[MACSIM_NSPACE * MACSIM_NKIND];

/* Opcode numbering in decoded instructions: v1.4 for ptx/newptx (v1.31 traces remapped),
 * the NVBIT enum for nvbit, the CPU enum for x86. Some well-known values: */
enum {
    MACSIM_PTX_ATOM_GM = 8,      /* ..11: ATOM_SM, ATOM64_GM, ATOM64_SM */
    MACSIM_PTX_BAR_ARRIVE = 12,  /* ..14: BAR_SYNC, BAR_RED */
    MACSIM_PTX_EXIT = 40,
    MACSIM_PTX_RED_GM = 80,      /* ..83: RED_SM, RED64_GM, RED64_SM */
    MACSIM_PTX_MEM_LD_GM = 140,  /* ..146: MEM_LD_{GM,LM,SM,CM,TM,PM}, MEM_LDU_GM */
    MACSIM_PTX_MEM_ST_GM = 147,  /* ..149: MEM_ST_{GM,LM,SM} */
    MACSIM_NVBIT_LDC = 72, MACSIM_NVBIT_LDG = 73, MACSIM_NVBIT_RED = 86, MACSIM_NVBIT_BAR = 151,
};

/* Number of valid opcodes of a format (ptx 153, v1.31 149, nvbit 163, x86 105; a64 65536). */
unsigned macsim_opcode_limit(const macsim_fmt *f);
/* Name of a decoded opcode ("MEM_LD_GM", "LDG", "PUSH"); NULL when unnamed (a64, range). */
const char *macsim_opcode_name(macsim_type t, unsigned opcode);

/* One GPU warp instruction with its continuation or child records. */
typedef struct macsim_ginst {
    uint64_t offset;        /* byte offset of its first record in the decompressed stream */
    uint32_t nrec;          /* records it spans: 1 + continuation or child records */
    uint8_t opcode;         /* see "Opcode numbering" above */
    uint8_t raw_opcode;     /* as written (differs for v1.31) */
    uint8_t is_fp, is_load, cf_type, nsrc, ndst, inst_size;
    uint16_t src[5], dst[4];        /* ptx: 5 and 4; nvbit: 4 and 4 */
    uint32_t mask, taken_mask;
    uint64_t pc, target;
    uint64_t addr;          /* memory: address (ptx: lane 0's); branches: reconvergence PC */
    uint8_t mem_size;       /* memory: bytes per access; barriers: barrier id */
    uint16_t bar_threads;
    uint8_t space_byte, cache_level, cache_op;
    /* derived by the decoder */
    uint8_t is_mem;         /* a memory instruction by MacSim's rule (D.5) */
    uint8_t space, kind;    /* macsim_space, macsim_kind (memory instructions) */
    uint64_t lane_addr[MACSIM_WARP_SIZE];   /* ptx memory: lane i's address (0: inactive) */
    uint32_t nchild;        /* nvbit memory: child records (0: one access at addr) */
    uint64_t child_addr[MACSIM_MAX_CHILDREN];
    uint8_t child_size[MACSIM_MAX_CHILDREN];
} macsim_ginst;

/* One CPU instruction (x86, or a64 where the opcode is 16 bits). */
typedef struct macsim_cinst {
    uint64_t offset;
    uint16_t opcode;
    uint8_t nsrc, ndst, src[9], dst[6];
    uint8_t cf_type, has_imm, has_store, is_fp, write_flag, num_loads, inst_size;
    uint64_t ld_addr[2], st_addr, pc, target;
    uint8_t rd_size, wr_size, rep_dir, taken;
} macsim_cinst;

/* Decode the instruction at data[0..n), which must hold the rest of the stream or at least
 * MACSIM_MAX_INST_BYTES. offset (the stream offset of data[0]) and file only go into
 * messages. Returns the bytes consumed (> 0), 0 when n == 0 (end of stream), or -1 with e
 * set. Checked: whole records, continuation records present, opcode range, register counts,
 * control-flow type <= 9, access size > 0 on memory instructions, loads <= 2 (CPU). Padding
 * and fields the reader does not use are not checked (the samples carry stale bytes there). */
int macsim_decode_gpu(const macsim_fmt *f, const uint8_t *data, size_t n, uint64_t offset,
                      const char *file, macsim_ginst *g, base_err *e);
int macsim_decode_cpu(const macsim_fmt *f, const uint8_t *data, size_t n, uint64_t offset,
                      const char *file, macsim_cinst *c, base_err *e);

/* Lane addresses of a memory instruction as lockstep models them (docs/MACSIM.md): ptx, the
 * recorded ones (inactive lanes 0); nvbit without children, a unit-stride access from addr
 * (active lane of rank r at addr + r * size); nvbit with k children, the active lanes split
 * in order into k runs of nearly equal length, run j at child j's address. */
void macsim_lane_addrs(const macsim_fmt *f, const macsim_ginst *g,
                       uint64_t addr[MACSIM_WARP_SIZE]);

/* ---- files ---- */

typedef struct macsim_kernel {
    char *file;             /* its Trace.txt (trace.txt), resolved by the D.3 path rule */
    char *name;             /* the name of the directory holding it */
    char *base;             /* file without extension: warp w is <base>_<w>.raw */
    uint32_t max_ctas;      /* newptx/nvbit: the generator's CTAs per SM; ptx: 0 */
    uint32_t nwarps, warps_per_cta, nctas;
    uint32_t *warp_ids;     /* Trace.txt order; CTA = id >> 16, warp in CTA = id & 0xffff */
    int has_info;           /* <base>_info.txt exists (its counts are not used, D.3) */
} macsim_kernel;

typedef struct macsim_trace {
    char *path;             /* the config file read */
    macsim_fmt fmt;
    char *version_text;     /* CPU: the generator version ("1.3"), "" when absent */
    macsim_kernel *kernels; /* GPU */
    size_t nkernels;
    char *base;             /* CPU: thread t is <base>_<t>.raw */
    uint32_t nthreads;
    uint32_t *tids;
    uint64_t *starts;       /* instruction count at which each thread starts */
} macsim_trace;

/* 1 when path is a MacSim trace: a directory holding kernel_config.txt or exactly one CPU
 * config (*.txt whose first token is x86, a64 or igpu), a file named kernel_config.txt, or a
 * file whose first token is newptx, nvbit, ptx, x86, a64 or igpu. Never fails: anything else
 * is 0 (and goes to the Accel-Sim reader). */
int macsim_detect(const char *path);

/* Reads the configuration of the trace at path (as for macsim_detect): a GPU
 * kernel_config.txt and every kernel's Trace.txt, a single Trace.txt (a one-kernel trace), or
 * a CPU config. Checks the text files, the version (14, or 131 for newptx), warp ids (CTA 0's
 * warps first, at most 100 per CTA, each warp's index below warps per CTA, no duplicates) and
 * that every warp's (thread's) record file exists. addr32: see macsim_fmt. On error *t is
 * left empty. */
int macsim_open(const char *path, int addr32, macsim_trace *t, base_err *e);
void macsim_close(macsim_trace *t);

/* Record file of a warp or thread (allocated). */
char *macsim_warp_file(const macsim_kernel *k, uint32_t warp_id);
/* The directory of kernel k's record files, opened for macsim_stream_open_at, and in *skip
 * the offset of the file's own name in every macsim_warp_file path of k; -1 (and *skip 0)
 * when it cannot be opened, for the caller to open the files by their whole paths. */
int macsim_kernel_dir_open(const macsim_kernel *k, size_t *skip);
char *macsim_thread_file(const macsim_trace *t, uint32_t tid);

typedef struct macsim_stream macsim_stream;

/* The inflater of small record files, made once for all the files one reader opens: it is
 * tens of KB, cleared when made, and made per file it cost a nvbit_vectormultadd_4096 run a
 * fifteenth of its instructions (384 files). One thread at a time. */
typedef struct macsim_inflater macsim_inflater;
/* NULL when out of memory: record files then go to zlib's reader. */
macsim_inflater *macsim_inflater_new(void);
void macsim_inflater_free(macsim_inflater *z);

/* Opens a record file (gzip or plain, as zlib's gzread decides); z inflates a small file
 * whole (NULL: one is made for this file). */
macsim_stream *macsim_stream_open(const char *path, const macsim_fmt *f, macsim_inflater *z,
                                  base_err *e);
/* The same for the file `name` of the directory open as dirfd (a negative dirfd: `path`
 * itself is opened); `path` names it in messages. A reader of hundreds of record files in
 * one directory so has the kernel resolve that directory's path once, not per file. */
macsim_stream *macsim_stream_open_at(int dirfd, const char *name, const char *path,
                                     const macsim_fmt *f, macsim_inflater *z, base_err *e);
/* 1: the next instruction was decoded into *g (*c); 0: end of file; -1: error. */
int macsim_stream_gpu(macsim_stream *s, macsim_ginst *g, base_err *e);
int macsim_stream_cpu(macsim_stream *s, macsim_cinst *c, base_err *e);
void macsim_stream_close(macsim_stream *s);
/* Appends every byte the stream decompresses to b; called right after macsim_stream_open (a
 * converter's first pass keeps them for its second, which then reads them with
 * macsim_stream_mem). */
void macsim_stream_keep(macsim_stream *s, base_buf *b);
/* A stream over data[0..n), the records of file `path` (named in errors); data must outlive
 * the stream. */
macsim_stream *macsim_stream_mem(const char *path, const macsim_fmt *f, const void *data,
                                 size_t n);

/* ---- whole traces ---- */

typedef struct macsim_opts {
    int addr32;             /* see macsim_fmt */
    int binary_version;     /* conversion: Accel-Sim "-binary version" (0: 80) */
    int xz;                 /* conversion: write kernel-N.traceg.xz */
    uint32_t nregs;         /* conversion: "-nregs" (0: 32; MacSim traces do not record it) */
    size_t keep_bytes;      /* conversion: decompressed records its checking pass keeps for
                             * its writing pass, whole files until this many (0: 64 MB) */
    int gpu_only;           /* conversion: a CPU trace is an error before its records are read */
} macsim_opts;

typedef struct macsim_summary {
    int cpu;                /* 1: a CPU trace (threads/insts/loads/stores/branches apply) */
    uint64_t kernels, ctas, warps, threads, records;
    uint64_t insts;         /* GPU: warp instructions; CPU: instructions */
    uint64_t thread_insts, mem_insts, loads, stores, branches, barriers;
    uint64_t retired;       /* what MacSim's INST_COUNT_TOT reports: insts - warps (threads) */
} macsim_summary;

/* Reads and checks every record of the trace. opts may be NULL. */
int macsim_summarize(const char *path, const macsim_opts *o, macsim_summary *s, base_err *e);

/* `lockstep trace info PATH [--json]` for MacSim traces: per kernel and in total, type and
 * version, CTAs, warps per CTA, warps, warp and thread instructions, memory instructions by
 * space and kind, barriers, branches, the opcode mix and the count MacSim retires; for CPU
 * traces threads, instructions, loads, stores, branches and the opcode-category mix. Reads
 * everything before printing: on error nothing is written. */
int macsim_info(const char *path, const macsim_opts *o, FILE *out, int json, base_err *e);

/* `lockstep trace check PATH`: one "PATH: ok: ..." line on success. */
int macsim_check(const char *path, const macsim_opts *o, FILE *out, base_err *e);

/* The Accel-Sim opcode for a decoded instruction (docs/MACSIM.md has the mapping) in the ISA
 * family fam (isa_family): writes it to buf and returns the bytes per lane to put on the line
 * (0: no address block, e.g. LDC), or -1 when the family has no such mnemonic. */
int macsim_sass_opcode(const macsim_fmt *f, const macsim_ginst *g, int fam, char *buf,
                       size_t cap);

/* `lockstep trace convert --to accelsim SRC --out DIR`: writes the MacSim GPU trace src as an
 * Accel-Sim trace directory (kernelslist.g + kernel-N.traceg[.xz]) with the same warp, thread
 * and memory instruction counts. The whole trace is checked before anything is written. */
int macsim_to_accelsim(const char *src, const char *dir, const macsim_opts *o,
                       macsim_summary *s, base_err *e);

/* The trace read in place (`lockstep run`): open reads and checks every record (NULL on
 * error); list hands the trace to the simulator as it is, each kernel read in place
 * (trace_kernel_from_lines: the CTAs, lines and statistics of the converted text, without the
 * text), and the list owns m from then on (trace_list_free closes it). */
typedef struct macsim_conv macsim_conv;
struct trace_list;
macsim_conv *macsim_conv_open(const char *src, const macsim_opts *o, base_err *e);
void macsim_conv_list(macsim_conv *m, struct trace_list *l);
void macsim_conv_summary(const macsim_conv *m, macsim_summary *s);
void macsim_conv_close(macsim_conv *m);

#endif
