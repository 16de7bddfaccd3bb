/* synth internals shared by the workload files (k_*.c): the generation context, kernel
 * launches, device allocation and the per-warp SASS emitter.
 *
 * Writing a workload: its emit function allocates buffers with synth_malloc, records copies
 * with synth_memcpy and launches kernels with synth_launch_kernel. A launch names a warp
 * function that is called once per (CTA, warp) in file order and emits that warp's dynamic
 * instructions with synth_op / synth_mem. The PC advances 16 bytes per emitted instruction;
 * loops rewind it with synth_goto so every iteration reuses the same static instructions.
 * Masks are "active AND guard predicate" as the Accel-Sim tracer writes them: a predicated-off
 * instruction is still emitted, with the lanes whose predicate is false removed (mask 0 is
 * legal). Registers are numbers 0..254, 255 is RZ; dst -1 means no destination. */
#ifndef LOCKSTEP_SYNTH_INT_H
#define LOCKSTEP_SYNTH_INT_H

#include "synth.h"

#define SY_RZ 255
#define SY_NONE (-1)
#define SY_FULL 0xffffffffu

/* Generic-address windows written in every header (values of the same form as real sm_80
 * traces); shared-memory instructions themselves carry window offsets from 0. */
#define SYNTH_SHMEM_BASE 0x00007f2e39000000ull
#define SYNTH_LOCAL_BASE 0x00007f2e37000000ull

struct synth_warp {
    uint32_t ctaid[3], nctaid[3], ntid[3];
    uint32_t warp;          /* warp index inside the CTA */
    uint32_t exists;        /* lanes whose thread exists (partial last warp) */
    uint64_t cta_linear;    /* x + y*gx + z*gx*gy */
    uint64_t pc;
    int64_t imm;            /* immediate of the next instruction, then reset to 0 */
    base_buf text;          /* formatted lines of this warp */
    uint64_t n, thread_insts;
};

typedef struct synth_launch {
    const char *name;       /* mangled kernel name */
    uint32_t grid[3], block[3];
    uint32_t shmem, nregs;
    uint64_t stream;        /* CUDA stream handle value (0: default stream) */
    void (*warp)(synth_warp *w, const void *args);
    const void *args;
} synth_launch;

int synth_launch_kernel(synth_gen *g, const synth_launch *l, base_err *e);
/* The common case: one thread per element of n, 1D blocks of the workload's "block" parameter
 * (grid = ceil(n / block)), no shared memory. */
int synth_launch_1d(synth_gen *g, const char *name, uint64_t n, uint32_t nregs, uint64_t stream,
                    void (*warp)(synth_warp *w, const void *args), const void *args,
                    base_err *e);
/* cudaMalloc-like: 512-byte aligned, never overlapping, addresses of the usual 0x7f.. form. */
uint64_t synth_malloc(synth_gen *g, uint64_t bytes);
void synth_memcpy(synth_gen *g, uint64_t addr, uint64_t bytes);
/* Parameter value by name (a name missing from the workload's table is a bug: panics). */
int64_t synth_p(const synth_gen *g, const char *name);
uint64_t synth_seed(const synth_gen *g);

/* A well-mixed 64-bit hash: the workloads' only source of randomness, so data-dependent
 * values are functions of (seed, index), independent of emission order. */
uint64_t synth_hash(uint64_t seed, uint64_t i);

/* threadIdx.{x,y,z} (dim 0..2) and the linear thread index of a lane of this warp. */
uint32_t synth_tid(const synth_warp *w, unsigned lane, int dim);
static inline uint32_t synth_ltid(const synth_warp *w, unsigned lane)
{
    return w->warp * 32u + lane;
}

/* Emits "op" with optional destination and nsrc source registers (variadic ints). */
void synth_op(synth_warp *w, uint32_t mask, const char *op, int dst, int nsrc, ...);
/* A memory instruction: addr[lane] for each lane in mask; the width comes from the opcode
 * (FORMATS.md A.7), as the tracer computes it. */
void synth_mem(synth_warp *w, uint32_t mask, const char *op, int dst, const uint64_t *addr,
               int nsrc, ...);
static inline void synth_imm(synth_warp *w, int64_t imm) { w->imm = imm; }
static inline uint64_t synth_pc(const synth_warp *w) { return w->pc; }
static inline void synth_goto(synth_warp *w, uint64_t pc) { w->pc = pc; }

/* The workloads (one ops table each, listed by the registry in synth.c). */
extern const synth_def synth_vectoradd, synth_saxpy_stride, synth_reduce, synth_sgemm_tiled,
    synth_stencil2d, synth_gather, synth_histogram, synth_branchy, synth_pchase, synth_hmma,
    synth_multi;

#endif
