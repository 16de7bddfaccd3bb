/* Shared-memory workloads: reduce (tree reduction with halving divergence and a barrier per
 * step), sgemm-tiled (shared-memory tiles, FFMA-bound, optional bank conflicts), stencil2d
 * (Jacobi sweep, halo reuse through L1 or a shared tile) and hmma (cp.async pipeline feeding
 * ldmatrix + mma.sync m16n8k16). Each kernel's CUDA source is written above its warp function;
 * the emitted SASS follows what nvcc -O3 -arch=sm_80 produces for it (register numbers and
 * scheduling are plausible rather than byte-exact). */
#include "synth_int.h"

#include <stdio.h>

#define SY_BAR "BAR.SYNC.DEFER_BLOCKING"

/* Advances the PC over n static instructions that no lane of this warp executes. */
static void skip(synth_warp *w, unsigned n) { synth_goto(w, synth_pc(w) + 16u * n); }

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* ======================================================================================== */
/* reduce: the CUDA samples' reduction kernels with sequential addressing.
 *
 *   template <class T> __global__ void reduce2(T *g_idata, T *g_odata, unsigned n) {
 *     T *sdata = SharedMemory<T>();                   // blockDim.x floats, dynamic
 *     unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
 *     sdata[tid] = (i < n) ? g_idata[i] : 0;
 *     __syncthreads();
 *     for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
 *       if (tid < s) sdata[tid] += sdata[tid + s];
 *       __syncthreads();
 *     }
 *     if (tid == 0) g_odata[blockIdx.x] = sdata[0];
 *   }
 *   reduce3 (first_add=1): i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
 *     T mySum = (i < n) ? g_idata[i] : 0;
 *     if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
 *     sdata[tid] = mySum; __syncthreads();
 *     ... if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s]; ...
 *     if (tid == 0) g_odata[blockIdx.x] = mySum;
 *   reduce4<T, blockSize> (unroll_last_warp=1): the loop stops at s > 32, then
 *     if (tid < 32) { mySum += sdata[tid + 32];          // blockSize >= 64
 *       for (int off = 16; off > 0; off /= 2) mySum += __shfl_down_sync(~0u, mySum, off); }
 *     if (tid == 0) g_odata[blockIdx.x] = mySum;
 *
 * Registers: R7 blockIdx.x, R9 tid, R3 the thread's value, R2 s. */

typedef struct rd_args {
    uint64_t in, out, n;
    int first_add, unroll;
} rd_args;

static void reduce_load(synth_warp *w, const rd_args *a)
{
    uint32_t all = w->exists, bd = w->ntid[0], in0 = 0, in1 = 0;
    uint64_t a0[32], a1[32];
    uint64_t base = (uint64_t)w->ctaid[0] * bd * (a->first_add ? 2u : 1u);
    for (unsigned l = 0; l < 32; l++) {
        uint64_t i = base + synth_ltid(w, l);
        a0[l] = a->in + i * 4;
        a1[l] = a->in + (i + bd) * 4;
        in0 |= (uint32_t)((all >> l & 1) && i < a->n) << l;
        in1 |= (uint32_t)((all >> l & 1) && i + bd < a->n) << l;
    }
    synth_op(w, all, "MOV", 1, 0);
    synth_op(w, all, "S2R", 7, 0);                    /* SR_CTAID.X */
    synth_op(w, all, "S2R", 9, 0);                    /* SR_TID.X */
    synth_op(w, all, "ULDC", SY_NONE, 0);             /* UR4 = blockDim.x */
    if (!a->first_add) {
        synth_op(w, all, "HFMA2.MMA", 3, 2, SY_RZ, SY_RZ);   /* 0.0f for i >= n */
        synth_op(w, all, "IMAD", 0, 2, 7, 9);
        synth_op(w, all, "ISETP.GE.U32.AND", SY_NONE, 1, 0);
        synth_op(w, all, "ULDC.64", SY_NONE, 0);
        synth_op(w, in0, "IMAD.WIDE.U32", 4, 1, 0);
        synth_mem(w, in0, "LDG.E", 3, a0, 1, 4);
        return;
    }
    synth_op(w, all, "USHF.L.U32", SY_NONE, 0);       /* UR5 = blockDim.x * 2 */
    synth_op(w, all, "HFMA2.MMA", 3, 2, SY_RZ, SY_RZ);
    synth_op(w, all, "HFMA2.MMA", 6, 2, SY_RZ, SY_RZ);
    synth_op(w, all, "IMAD", 0, 2, 7, 9);
    synth_op(w, all, "IADD3", 2, 2, 0, SY_RZ);         /* i + blockDim.x */
    synth_op(w, all, "ISETP.GE.U32.AND", SY_NONE, 1, 0);
    synth_op(w, all, "ISETP.GE.U32.AND", SY_NONE, 1, 2);
    synth_op(w, all, "ULDC.64", SY_NONE, 0);
    synth_op(w, in0, "IMAD.WIDE.U32", 4, 1, 0);
    synth_op(w, in1, "IMAD.WIDE.U32", 10, 1, 2);
    synth_mem(w, in0, "LDG.E", 3, a0, 1, 4);
    synth_mem(w, in1, "LDG.E", 6, a1, 1, 10);
    synth_op(w, all, "FADD", 3, 2, 3, 6);
}

/* One `if (tid < s)` body: msum keeps the running sum in R3 (reduce3/4), otherwise both
 * operands come from shared memory (reduce2). */
static void reduce_body(synth_warp *w, uint32_t lt, uint32_t s, int msum)
{
    uint64_t hi[32], me[32];
    for (unsigned l = 0; l < 32; l++) {
        me[l] = synth_ltid(w, l) * 4ull;
        hi[l] = me[l] + s * 4ull;
    }
    synth_op(w, lt, "IADD3", 4, 3, 9, 2, SY_RZ);
    synth_mem(w, lt, "LDS", 4, hi, 1, 4);
    if (msum) {
        synth_op(w, lt, "FADD", 3, 2, 3, 4);
        synth_mem(w, lt, "STS", SY_NONE, me, 2, 9, 3);
        return;
    }
    synth_mem(w, lt, "LDS", 5, me, 1, 9);
    synth_op(w, lt, "FADD", 5, 2, 4, 5);
    synth_mem(w, lt, "STS", SY_NONE, me, 2, 9, 5);
}

/* sdata[tid] = value; the barrier; then the halving loop down to s > stop. The loop test is
 * CTA-uniform, so every warp executes the same barriers. */
static void reduce_tree(synth_warp *w, uint32_t stop, int msum)
{
    uint32_t all = w->exists, bd = w->ntid[0];
    const char *cond = stop ? "ISETP.GT.U32.AND" : "ISETP.NE.AND";
    unsigned nbody = msum ? 4 : 5;
    uint64_t me[32];
    for (unsigned l = 0; l < 32; l++)
        me[l] = synth_ltid(w, l) * 4ull;
    synth_op(w, all, "ULDC", SY_NONE, 0);
    synth_op(w, all, "USHF.R.U32.HI", SY_NONE, 0);    /* UR4 = blockDim.x / 2 */
    synth_mem(w, all, "STS", SY_NONE, me, 2, 9, 3);
    synth_op(w, all, "MOV", 2, 0);                    /* s = UR4 */
    synth_op(w, all, cond, SY_NONE, 1, 2);
    synth_op(w, all, SY_BAR, SY_NONE, 0);
    synth_op(w, bd / 2 > stop ? 0 : all, "BRA", SY_NONE, 0);   /* @!P0 BRA past the loop */
    uint64_t top = synth_pc(w), after = top + 16u * (8 + nbody);
    for (uint32_t s = bd / 2; s > stop; s >>= 1) {
        uint32_t lt = 0;
        for (unsigned l = 0; l < 32; l++)
            lt |= (uint32_t)((all >> l & 1) && synth_ltid(w, l) < s) << l;
        synth_goto(w, top);
        synth_op(w, all, "ISETP.GE.U32.AND", SY_NONE, 2, 9, 2);
        synth_op(w, all, "BSSY", SY_NONE, 0);
        synth_op(w, all & ~lt, "BRA", SY_NONE, 0);   /* @P0 BRA to the BSYNC */
        if (lt)
            reduce_body(w, lt, s, msum);
        else
            skip(w, nbody);
        synth_op(w, all, "BSYNC", SY_NONE, 0);
        synth_op(w, all, "SHF.R.U32.HI", 2, 2, SY_RZ, 2);
        synth_op(w, all, SY_BAR, SY_NONE, 0);
        synth_op(w, all, cond, SY_NONE, 1, 2);
        synth_op(w, s / 2 > stop ? all : 0, "BRA", SY_NONE, 0);
    }
    synth_goto(w, after);
}

/* The last warp's shuffle reduction of reduce4: warps other than 0 branch over it. */
static void reduce_last_warp(synth_warp *w)
{
    uint32_t all = w->exists;
    uint64_t hi[32];
    synth_op(w, all, "ISETP.GT.U32.AND", SY_NONE, 1, 9);
    synth_op(w, all, "BSSY", SY_NONE, 0);
    synth_op(w, w->warp ? all : 0, "BRA", SY_NONE, 0);
    if (w->warp) {
        skip(w, 12);
    } else {
        for (unsigned l = 0; l < 32; l++)
            hi[l] = (synth_ltid(w, l) + 32) * 4ull;
        synth_mem(w, all, "LDS", 4, hi, 1, 9);        /* sdata[tid + 32] */
        synth_op(w, all, "FADD", 3, 2, 3, 4);
        for (int off = 16; off > 0; off /= 2) {
            synth_op(w, all, "SHFL.DOWN", 4, 1, 3);
            synth_op(w, all, "FADD", 3, 2, 3, 4);
        }
    }
    synth_op(w, all, "BSYNC", SY_NONE, 0);
}

static void reduce_warp(synth_warp *w, const void *p)
{
    const rd_args *a = p;
    int msum = a->first_add || a->unroll;
    uint64_t out[32];
    reduce_load(w, a);
    reduce_tree(w, a->unroll ? 32 : 0, msum);
    if (a->unroll)
        reduce_last_warp(w);
    uint32_t lane0 = w->warp == 0 ? 1u : 0u;
    synth_op(w, w->exists, "ISETP.NE.AND", SY_NONE, 1, 9);
    synth_op(w, w->exists & ~lane0, "EXIT", SY_NONE, 0);
    if (!lane0)
        return;
    for (unsigned l = 0; l < 32; l++)
        out[l] = a->out + w->ctaid[0] * 4ull;
    if (!msum) {
        uint64_t zero[32] = {0};
        synth_mem(w, lane0, "LDS", 3, zero, 1, SY_RZ);    /* sdata[0] */
    }
    synth_op(w, lane0, "IMAD.WIDE.U32", 4, 1, 7);
    synth_mem(w, lane0, "STG.E", SY_NONE, out, 2, 4, 3);
    synth_op(w, lane0, "EXIT", SY_NONE, 0);
}

static int reduce_emit(synth_gen *g, base_err *e)
{
    rd_args a;
    uint64_t block = (uint64_t)synth_p(g, "block");
    if (!is_pow2(block))
        return base_fail(e, BASE_EXIT_USAGE, "reduce: --block=%llu must be a power of two",
                         (unsigned long long)block);
    a.n = (uint64_t)synth_p(g, "n");
    a.first_add = (int)synth_p(g, "first_add");
    a.unroll = (int)synth_p(g, "unroll_last_warp");
    uint64_t per_cta = block * (a.first_add ? 2 : 1), grid = (a.n + per_cta - 1) / per_cta;
    a.in = synth_malloc(g, a.n * 4);
    a.out = synth_malloc(g, grid * 4);
    synth_memcpy(g, a.in, a.n * 4);
    char name[64];
    if (a.unroll)
        snprintf(name, sizeof name, "_Z7reduce4IfLj%lluEEvPT_S1_j", (unsigned long long)block);
    else
        snprintf(name, sizeof name, "_Z7reduce%cIfEvPT_S1_j", a.first_add ? '3' : '2');
    synth_launch l = {name, {(uint32_t)grid, 1, 1}, {(uint32_t)block, 1, 1},
                      (uint32_t)block * 4, 16, 0, reduce_warp, &a};
    return synth_launch_kernel(g, &l, e);
}

static const synth_param_def REDUCE_P[] = {
    {"n", 32768, 1, 1 << 26, "elements summed"},
    {"block", 256, 64, 1024, "threads per block (a power of two)"},
    {"first_add", 1, 0, 1, "1: each thread adds two elements while loading (reduce3), 0: one (reduce2)"},
    {"unroll_last_warp", 0, 0, 1, "1: stop the shared-memory loop at 64 and finish with SHFL.DOWN (reduce4)"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_reduce = {
    "reduce", "shared-memory tree reduction: halving divergence, a barrier per step, LDS/STS",
    REDUCE_P, reduce_emit,
};

/* ======================================================================================== */
/* sgemm-tiled: C = A * B, n x n row-major floats, TILE x TILE threads per block.
 *
 *   template <int TILE, bool CONFLICT, int PAD>
 *   __global__ void sgemm_tiled(const float *A, const float *B, float *C, int n) {
 *     __shared__ float As[TILE][TILE], Bs[TILE][TILE + PAD];
 *     int tx = threadIdx.x, ty = threadIdx.y;
 *     int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
 *     float acc = 0.0f;
 *     for (int t = 0; t < n; t += TILE) {
 *       As[ty][tx] = A[row * n + t + tx];
 *       if (CONFLICT) Bs[tx][ty] = B[(t + ty) * n + col];   // B tile stored transposed
 *       else          Bs[ty][tx] = B[(t + ty) * n + col];
 *       __syncthreads();
 *   #pragma unroll
 *       for (int k = 0; k < TILE; k++)
 *         acc += As[ty][k] * (CONFLICT ? Bs[tx][k] : Bs[k][tx]);
 *       __syncthreads();
 *     }
 *     C[row * n + col] = acc;
 *   }
 *
 * nvcc fully unrolls the k loop and reads As[ty][k..k+3] with one LDS.128 (all lanes of a row
 * read the same 16 bytes: a broadcast). CONFLICT without padding makes Bs[tx][k..k+3]
 * contiguous too, so it becomes LDS.128 at a row stride of TILE*4 bytes: every lane of the
 * warp lands on the same four banks. PAD=1 breaks both the vectorization and the conflict.
 *
 * Registers: R2 ty, R0 tx, R3 row, R5 col, R4/R6 A/B element indices, R7 As row offset,
 * R8/R9 STS offsets, R10 Bs read offset, R11 t, R15 = 4, R16 acc. */

typedef struct sg_args {
    uint64_t a, b, c;
    uint32_t n, tile, conflict, pad;
} sg_args;

/* One k-tile of the main loop for tile origin t. */
static void sgemm_tile(synth_warp *w, const sg_args *g, uint32_t t, const uint64_t *top)
{
    uint32_t all = w->exists, T = g->tile, rowb = (T + g->pad) * 4, bbase = T * T * 4;
    int vecb = g->conflict && !g->pad;
    uint64_t ga[32], gb[32], sa[32], sb[32];
    for (unsigned l = 0; l < 32; l++) {
        uint64_t tx = synth_tid(w, l, 0), ty = synth_tid(w, l, 1);
        uint64_t row = (uint64_t)w->ctaid[1] * T + ty, col = (uint64_t)w->ctaid[0] * T + tx;
        ga[l] = g->a + (row * g->n + t + tx) * 4;
        gb[l] = g->b + ((t + ty) * g->n + col) * 4;
        sa[l] = ty * T * 4 + tx * 4;
        sb[l] = bbase + (g->conflict ? tx * rowb + ty * 4 : ty * rowb + tx * 4);
    }
    synth_goto(w, *top);
    synth_op(w, all, "IMAD.WIDE", 12, 2, 4, 15);
    synth_op(w, all, "IMAD.WIDE", 18, 2, 6, 15);
    synth_mem(w, all, "LDG.E", 12, ga, 1, 12);
    synth_mem(w, all, "LDG.E", 18, gb, 1, 18);
    synth_op(w, all, "IADD3", 11, 2, 11, SY_RZ);       /* t += TILE */
    synth_op(w, all, "IADD3", 4, 2, 4, SY_RZ);         /* A index += TILE */
    synth_op(w, all, "IADD3", 6, 2, 6, SY_RZ);         /* B index += TILE * n (UR5) */
    synth_op(w, all, "ISETP.GE.AND", SY_NONE, 1, 11);
    synth_mem(w, all, "STS", SY_NONE, sa, 2, 8, 12);
    synth_mem(w, all, "STS", SY_NONE, sb, 2, 9, 18);
    synth_op(w, all, SY_BAR, SY_NONE, 0);
    for (uint32_t k0 = 0; k0 < T; k0 += 4) {
        for (unsigned l = 0; l < 32; l++)
            sa[l] = synth_tid(w, l, 1) * T * 4 + k0 * 4;
        synth_mem(w, all, "LDS.128", 20, sa, 1, 7);
        for (uint32_t j = 0; j < 4 && !vecb; j++) {
            for (unsigned l = 0; l < 32; l++) {
                uint64_t tx = synth_tid(w, l, 0), k = k0 + j;
                sb[l] = bbase + (g->conflict ? tx * rowb + k * 4 : k * rowb + tx * 4);
            }
            synth_mem(w, all, "LDS", 24 + (int)j, sb, 1, 10);
        }
        if (vecb) {
            for (unsigned l = 0; l < 32; l++)
                sb[l] = bbase + synth_tid(w, l, 0) * rowb + k0 * 4;
            synth_mem(w, all, "LDS.128", 24, sb, 1, 10);
        }
        for (int j = 0; j < 4; j++)
            synth_op(w, all, "FFMA", 16, 3, 20 + j, 24 + j, 16);
    }
    synth_op(w, all, SY_BAR, SY_NONE, 0);
    synth_op(w, t + T < g->n ? all : 0, "BRA", SY_NONE, 0);   /* @!P0 BRA top */
}

static void sgemm_warp(synth_warp *w, const void *p)
{
    const sg_args *g = p;
    uint32_t all = w->exists;
    uint64_t cad[32];
    synth_op(w, all, "MOV", 1, 0);
    synth_op(w, all, "S2R", 3, 0);                    /* SR_CTAID.Y */
    synth_op(w, all, "HFMA2.MMA", 16, 2, SY_RZ, SY_RZ);  /* acc = 0 */
    synth_op(w, all, "S2R", 2, 0);                    /* SR_TID.Y */
    synth_op(w, all, "ULDC", SY_NONE, 0);             /* UR4 = n */
    synth_op(w, all, "S2R", 0, 0);                    /* SR_TID.X */
    synth_op(w, all, "S2R", 5, 0);                    /* SR_CTAID.X */
    synth_op(w, all, "HFMA2.MMA", 15, 2, SY_RZ, SY_RZ);  /* 4: element size */
    synth_op(w, all, "UISETP.GE.AND", SY_NONE, 0);    /* UP0 = n >= TILE */
    synth_op(w, all, "LEA", 3, 2, 3, 2);              /* row */
    synth_op(w, all, "LEA", 5, 2, 5, 0);              /* col */
    synth_op(w, 0, "BRA", SY_NONE, 0);                /* @!UP0 BRA to the store */
    synth_op(w, all, "IMAD", 4, 2, 3, 0);             /* row * n + tx */
    synth_op(w, all, "IMAD", 6, 2, 2, 5);             /* ty * n + col */
    synth_op(w, all, "USHF.L.U32", SY_NONE, 0);       /* UR5 = TILE * n */
    synth_op(w, all, "IMAD.SHL.U32", 7, 2, 2, SY_RZ); /* ty * TILE * 4 */
    synth_op(w, all, "LEA", 8, 2, 0, 7);
    synth_op(w, all, "IMAD", 9, 2, g->conflict ? 0 : 2, SY_RZ);
    synth_op(w, all, "LEA", 9, 2, g->conflict ? 2 : 0, 9);
    synth_op(w, all, g->conflict ? "IMAD" : "IMAD.SHL.U32", 10, 2, 0, SY_RZ);
    synth_op(w, all, "MOV", 11, 1, SY_RZ);
    synth_op(w, all, "ULDC.64", SY_NONE, 0);
    uint64_t top = synth_pc(w);
    for (uint32_t t = 0; t < g->n; t += g->tile)
        sgemm_tile(w, g, t, &top);
    for (unsigned l = 0; l < 32; l++) {
        uint64_t row = (uint64_t)w->ctaid[1] * g->tile + synth_tid(w, l, 1);
        uint64_t col = (uint64_t)w->ctaid[0] * g->tile + synth_tid(w, l, 0);
        cad[l] = g->c + (row * g->n + col) * 4;
    }
    synth_op(w, all, "IMAD", 3, 2, 3, 5);
    synth_op(w, all, "IMAD.WIDE", 2, 2, 3, 15);
    synth_mem(w, all, "STG.E", SY_NONE, cad, 2, 2, 16);
    synth_op(w, all, "EXIT", SY_NONE, 0);
}

static int sgemm_emit(synth_gen *g, base_err *e)
{
    sg_args s;
    s.n = (uint32_t)synth_p(g, "n");
    s.tile = (uint32_t)synth_p(g, "tile");
    s.conflict = (uint32_t)synth_p(g, "conflict");
    s.pad = (uint32_t)synth_p(g, "pad");
    if (s.tile != 16 && s.tile != 32)
        return base_fail(e, BASE_EXIT_USAGE, "sgemm-tiled: --tile=%u must be 16 or 32", s.tile);
    if (s.n % s.tile)
        return base_fail(e, BASE_EXIT_USAGE, "sgemm-tiled: --n=%u is not a multiple of --tile=%u",
                         s.n, s.tile);
    uint64_t bytes = (uint64_t)s.n * s.n * 4;
    s.a = synth_malloc(g, bytes);
    s.b = synth_malloc(g, bytes);
    s.c = synth_malloc(g, bytes);
    synth_memcpy(g, s.a, bytes);
    synth_memcpy(g, s.b, bytes);
    char name[64];
    snprintf(name, sizeof name, "_Z11sgemm_tiledILi%uELb%uELi%uEEvPKfS1_Pfi", s.tile, s.conflict,
             s.pad);
    uint32_t gd = s.n / s.tile, shmem = (s.tile * s.tile + s.tile * (s.tile + s.pad)) * 4;
    synth_launch l = {name, {gd, gd, 1}, {s.tile, s.tile, 1}, shmem, 32, 0, sgemm_warp, &s};
    return synth_launch_kernel(g, &l, e);
}

static const synth_param_def SGEMM_P[] = {
    {"n", 64, 16, 2048, "matrix dimension M = N = K (a multiple of tile)"},
    {"tile", 16, 16, 32, "tile edge and block edge: 16 or 32"},
    {"conflict", 0, 0, 1, "1: B tile stored transposed and read along rows (bank conflicts)"},
    {"pad", 0, 0, 1, "extra column in the B tile (removes the conflicts of conflict=1)"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_sgemm_tiled = {
    "sgemm-tiled", "shared-memory tiled SGEMM: FFMA-bound, LDS.128 broadcasts, optional bank conflicts",
    SGEMM_P, sgemm_emit,
};

/* ======================================================================================== */
/* stencil2d: one Jacobi sweep per launch over an nx x ny float grid, boundaries fixed.
 *
 *   template <int P>   // 5 or 9 points
 *   __global__ void stencil2d(const float *__restrict__ in, float *__restrict__ out,
 *                             int nx, int ny) {
 *     int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
 *     if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
 *     int i = y * nx + x;
 *     float s = in[i] + in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx];
 *     if (P == 9) s += in[i - nx - 1] + in[i - nx + 1] + in[i + nx - 1] + in[i + nx + 1];
 *     out[i] = s * (1.0f / P);
 *   }
 *
 *   template <int P, int BX, int BY>
 *   __global__ void stencil2d_smem(const float *__restrict__ in, float *__restrict__ out,
 *                                  int nx, int ny) {
 *     __shared__ float t[BY + 2][BX + 2];
 *     int tx = threadIdx.x, ty = threadIdx.y;
 *     int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty, i = y * nx + x;
 *     if (x < nx && y < ny) {
 *       t[ty + 1][tx + 1] = in[i];
 *       // halo: a thread on the tile edge facing (dx, dy) also loads that neighbour
 *       for each (dx, dy) of the other P-1 points:
 *         if ((dx == 0 || tx == (dx < 0 ? 0 : BX - 1) && x + dx >= 0 && x + dx < nx) &&
 *             (dy == 0 || ty == (dy < 0 ? 0 : BY - 1) && y + dy >= 0 && y + dy < ny))
 *           t[ty + 1 + dy][tx + 1 + dx] = in[i + dy * nx + dx];
 *     }
 *     __syncthreads();
 *     if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
 *     out[i] = (1.0f / P) * (sum of t[ty + 1 + dy][tx + 1 + dx] over the P points);
 *   }
 *
 * The halo ifs are short, so nvcc predicates them (@!Pn LDG / @!Pn STS) inside one BSSY
 * region for the x < nx && y < ny test. Launches ping-pong between two buffers. */

typedef struct st_args {
    uint64_t in, out;
    uint32_t nx, ny, points;
} st_args;

/* (dx, dy) of the points in source order: centre, left, right, up, down, then corners. */
static const int ST_DX[9] = {0, -1, 1, 0, 0, -1, 1, -1, 1};
static const int ST_DY[9] = {0, 0, 0, -1, 1, -1, -1, 1, 1};

static void st_xy(const synth_warp *w, unsigned l, int64_t *x, int64_t *y)
{
    *x = (int64_t)w->ctaid[0] * w->ntid[0] + synth_tid(w, l, 0);
    *y = (int64_t)w->ctaid[1] * w->ntid[1] + synth_tid(w, l, 1);
}

/* &in[(y + dy) * nx + x + dx] of point k for each lane. */
static void st_point_addrs(const synth_warp *w, const st_args *s, unsigned k, uint64_t *a)
{
    for (unsigned l = 0; l < 32; l++) {
        int64_t x, y;
        st_xy(w, l, &x, &y);
        a[l] = s->in + (uint64_t)((y + ST_DY[k]) * s->nx + x + ST_DX[k]) * 4;
    }
}

static uint32_t st_interior(const synth_warp *w, const st_args *s)
{
    uint32_t m = 0;
    for (unsigned l = 0; l < 32; l++) {
        int64_t x, y;
        st_xy(w, l, &x, &y);
        m |= (uint32_t)((w->exists >> l & 1) && x >= 1 && y >= 1 && x + 1 < (int64_t)s->nx &&
                        y + 1 < (int64_t)s->ny) << l;
    }
    return m;
}

/* The boundary test and predicated EXIT; returns the lanes that stay. */
static uint32_t st_guard(synth_warp *w, const st_args *s, int rx, int ry)
{
    uint32_t in = st_interior(w, s);
    synth_op(w, w->exists, "UIADD3", SY_NONE, 0);     /* nx - 1 */
    synth_op(w, w->exists, "UIADD3", SY_NONE, 0);     /* ny - 1 */
    synth_op(w, w->exists, "ISETP.GE.AND", SY_NONE, 1, rx);
    synth_op(w, w->exists, "ISETP.LT.OR", SY_NONE, 1, rx);
    synth_op(w, w->exists, "ISETP.LT.OR", SY_NONE, 1, ry);
    synth_op(w, w->exists, "ISETP.GE.OR", SY_NONE, 1, ry);
    synth_op(w, w->exists & ~in, "EXIT", SY_NONE, 0);
    return in;
}

/* s = sum of the loaded values R<r0>.., out[i] = s / P (i from R<ri>, R<rfour> = 4). */
static void st_finish(synth_warp *w, const st_args *s, uint32_t m, int r0, int ri, int rfour)
{
    uint64_t addr[32];
    for (unsigned k = 1; k < s->points; k++)
        synth_op(w, m, "FADD", r0, 2, r0, r0 + (int)k);
    for (unsigned l = 0; l < 32; l++) {
        int64_t x, y;
        st_xy(w, l, &x, &y);
        addr[l] = s->out + (uint64_t)(y * s->nx + x) * 4;
    }
    synth_op(w, m, "IMAD.WIDE", 2, 2, ri, rfour);
    synth_op(w, m, "FMUL", r0 + 1, 1, r0);
    synth_mem(w, m, "STG.E", SY_NONE, addr, 2, 2, r0 + 1);
    synth_op(w, m, "EXIT", SY_NONE, 0);
}

static void st_global_warp(synth_warp *w, const void *p)
{
    const st_args *s = p;
    uint32_t all = w->exists;
    uint64_t addr[32];
    synth_op(w, all, "MOV", 1, 0);
    synth_op(w, all, "S2R", 0, 0);                    /* SR_CTAID.X */
    synth_op(w, all, "S2R", 3, 0);                    /* SR_TID.X */
    synth_op(w, all, "S2R", 2, 0);                    /* SR_CTAID.Y */
    synth_op(w, all, "S2R", 5, 0);                    /* SR_TID.Y */
    synth_op(w, all, "IMAD", 0, 2, 0, 3);             /* x */
    synth_op(w, all, "IMAD", 2, 2, 2, 5);             /* y */
    synth_op(w, all, "ULDC.64", SY_NONE, 0);          /* nx, ny */
    uint32_t m = st_guard(w, s, 0, 2);
    if (!m)
        return;
    synth_op(w, m, "HFMA2.MMA", 9, 2, SY_RZ, SY_RZ);  /* 4 */
    synth_op(w, m, "MOV", 7, 0);                      /* nx */
    synth_op(w, m, "ULDC.64", SY_NONE, 0);
    synth_op(w, m, "IMAD", 0, 2, 2, 0);               /* i = y * nx + x */
    synth_op(w, m, "IADD3", 8, 2, 0, SY_RZ);          /* i - nx */
    synth_op(w, m, "IMAD.WIDE", 2, 2, 0, 9);          /* &in[i] */
    synth_op(w, m, "IMAD.WIDE", 4, 2, 7, 2);          /* &in[i + nx] */
    synth_op(w, m, "IMAD.WIDE", 6, 2, 8, 9);          /* &in[i - nx] */
    for (unsigned k = 0; k < s->points; k++) {
        st_point_addrs(w, s, k, addr);
        int base = ST_DY[k] < 0 ? 6 : ST_DY[k] > 0 ? 4 : 2;
        synth_mem(w, m, "LDG.E.CONSTANT", 10 + (int)k, addr, 1, base);
    }
    st_finish(w, s, m, 10, 0, 9);
}

/* Lanes inside the grid whose tile-edge position makes them load halo point k. */
static uint32_t st_halo_lanes(const synth_warp *w, const st_args *s, uint32_t inside, unsigned k)
{
    uint32_t m = 0;
    int64_t bx = w->ntid[0], by = w->ntid[1];
    for (unsigned l = 0; l < 32; l++) {
        int64_t x, y, tx = synth_tid(w, l, 0), ty = synth_tid(w, l, 1);
        st_xy(w, l, &x, &y);
        int okx = ST_DX[k] == 0 ||
                  (tx == (ST_DX[k] < 0 ? 0 : bx - 1) && x + ST_DX[k] >= 0 &&
                   x + ST_DX[k] < (int64_t)s->nx);
        int oky = ST_DY[k] == 0 ||
                  (ty == (ST_DY[k] < 0 ? 0 : by - 1) && y + ST_DY[k] >= 0 &&
                   y + ST_DY[k] < (int64_t)s->ny);
        m |= (uint32_t)(okx && oky) << l;
    }
    return m & inside;
}

/* Shared offset of t[ty + 1 + dy][tx + 1 + dx] for each lane. */
static void st_tile_addrs(const synth_warp *w, unsigned k, uint64_t *a)
{
    uint64_t pitch = w->ntid[0] + 2;
    for (unsigned l = 0; l < 32; l++)
        a[l] = ((synth_tid(w, l, 1) + 1 + ST_DY[k]) * pitch + synth_tid(w, l, 0) + 1 + ST_DX[k]) * 4;
}

/* Halo predicates: two ISETPs per edge (plus the x+1 / y+1 adds), PLOP3 per corner. */
static void st_halo_predicates(synth_warp *w, uint32_t m, unsigned points)
{
    synth_op(w, m, "ISETP.NE.AND", SY_NONE, 1, 0);    /* left: tx != 0 || x < 1 */
    synth_op(w, m, "ISETP.LT.OR", SY_NONE, 1, 2);
    synth_op(w, m, "IADD3", 10, 2, 2, SY_RZ);         /* right */
    synth_op(w, m, "ISETP.NE.AND", SY_NONE, 1, 0);
    synth_op(w, m, "ISETP.GE.OR", SY_NONE, 1, 10);
    synth_op(w, m, "ISETP.NE.AND", SY_NONE, 1, 3);    /* up */
    synth_op(w, m, "ISETP.LT.OR", SY_NONE, 1, 4);
    synth_op(w, m, "IADD3", 11, 2, 4, SY_RZ);         /* down */
    synth_op(w, m, "ISETP.NE.AND", SY_NONE, 1, 3);
    synth_op(w, m, "ISETP.GE.OR", SY_NONE, 1, 11);
    for (unsigned k = 5; k < points; k++)
        synth_op(w, m, "PLOP3.LUT", SY_NONE, 0);
}

/* Inside the x < nx && y < ny region: the centre load and the predicated halo loads, then
 * their shared stores. */
static void st_smem_fill(synth_warp *w, const st_args *s, uint32_t inside)
{
    uint64_t addr[32];
    uint32_t lanes[9];
    synth_op(w, inside, "ULDC.64", SY_NONE, 0);
    synth_op(w, inside, "IMAD.WIDE", 8, 2, 5, 7);     /* &in[i] */
    synth_op(w, inside, "MOV", 12, 0);                /* nx */
    synth_op(w, inside, "IADD3", 13, 2, 5, SY_RZ);    /* i - nx */
    synth_op(w, inside, "IMAD.WIDE", 14, 2, 12, 8);   /* &in[i + nx] */
    synth_op(w, inside, "IMAD.WIDE", 16, 2, 13, 7);   /* &in[i - nx] */
    st_halo_predicates(w, inside, s->points);
    for (unsigned k = 0; k < s->points; k++) {
        lanes[k] = k ? st_halo_lanes(w, s, inside, k) : inside;
        st_point_addrs(w, s, k, addr);
        int base = ST_DY[k] < 0 ? 16 : ST_DY[k] > 0 ? 14 : 8;
        synth_mem(w, lanes[k], "LDG.E.CONSTANT", 18 + (int)k, addr, 1, base);
    }
    for (unsigned k = 0; k < s->points; k++) {
        st_tile_addrs(w, k, addr);
        synth_mem(w, lanes[k], "STS", SY_NONE, addr, 2, 6, 18 + (int)k);
    }
}

static void st_smem_warp(synth_warp *w, const void *p)
{
    const st_args *s = p;
    uint32_t all = w->exists, inside = 0;
    uint64_t addr[32];
    for (unsigned l = 0; l < 32; l++) {
        int64_t x, y;
        st_xy(w, l, &x, &y);
        inside |= (uint32_t)((all >> l & 1) && x < (int64_t)s->nx && y < (int64_t)s->ny) << l;
    }
    synth_op(w, all, "MOV", 1, 0);
    synth_op(w, all, "S2R", 0, 0);                    /* SR_TID.X */
    synth_op(w, all, "S2R", 2, 0);                    /* SR_CTAID.X */
    synth_op(w, all, "S2R", 3, 0);                    /* SR_TID.Y */
    synth_op(w, all, "S2R", 4, 0);                    /* SR_CTAID.Y */
    synth_op(w, all, "ULDC.64", SY_NONE, 0);          /* nx, ny */
    synth_op(w, all, "HFMA2.MMA", 7, 2, SY_RZ, SY_RZ);  /* 4 */
    synth_op(w, all, "IMAD", 2, 2, 2, 0);             /* x = blockIdx.x * BX + tx */
    synth_op(w, all, "IMAD", 4, 2, 4, 3);             /* y */
    synth_op(w, all, "IMAD", 6, 2, 3, 0);             /* ty * (BX + 2) + tx */
    synth_op(w, all, "ISETP.GE.AND", SY_NONE, 1, 2);
    synth_op(w, all, "ISETP.GE.OR", SY_NONE, 1, 4);
    synth_op(w, all, "IMAD", 5, 2, 4, 2);             /* i */
    synth_op(w, all, "BSSY", SY_NONE, 0);
    synth_op(w, all & ~inside, "BRA", SY_NONE, 0);
    unsigned nregion = 16 + (s->points - 5) + 2 * s->points;
    if (inside) {
        st_smem_fill(w, s, inside);
    } else {
        skip(w, nregion);
    }
    synth_op(w, all, "BSYNC", SY_NONE, 0);
    synth_op(w, all, SY_BAR, SY_NONE, 0);
    uint32_t m = st_guard(w, s, 2, 4);
    if (!m)
        return;
    for (unsigned k = 0; k < s->points; k++) {
        st_tile_addrs(w, k, addr);
        synth_mem(w, m, "LDS", 18 + (int)k, addr, 1, 6);
    }
    synth_op(w, m, "ULDC.64", SY_NONE, 0);
    st_finish(w, s, m, 18, 5, 7);
}

static int stencil_emit(synth_gen *g, base_err *e)
{
    st_args s;
    s.nx = (uint32_t)synth_p(g, "nx");
    s.ny = (uint32_t)synth_p(g, "ny");
    s.points = (uint32_t)synth_p(g, "points");
    uint32_t bx = (uint32_t)synth_p(g, "bx"), by = (uint32_t)synth_p(g, "by");
    int smem = (int)synth_p(g, "smem");
    int64_t iters = synth_p(g, "iters");
    if (s.points != 5 && s.points != 9)
        return base_fail(e, BASE_EXIT_USAGE, "stencil2d: --points=%u must be 5 or 9", s.points);
    if ((uint64_t)bx * by > 1024)
        return base_fail(e, BASE_EXIT_USAGE, "stencil2d: --bx=%u --by=%u exceeds 1024 threads",
                         bx, by);
    /* at most 1026 x 3 floats: always below the 48 KiB of static shared memory */
    uint32_t shmem = smem ? (bx + 2) * (by + 2) * 4 : 0;
    uint64_t bytes = (uint64_t)s.nx * s.ny * 4;
    uint64_t buf[2] = {synth_malloc(g, bytes), synth_malloc(g, bytes)};
    /* both buffers hold the fixed boundary */
    synth_memcpy(g, buf[0], bytes);
    synth_memcpy(g, buf[1], bytes);
    char name[80];
    if (smem)
        snprintf(name, sizeof name, "_Z14stencil2d_smemILi%uELi%uELi%uEEvPKfPfii", s.points, bx,
                 by);
    else
        snprintf(name, sizeof name, "_Z9stencil2dILi%uEEvPKfPfii", s.points);
    for (int64_t it = 0; it < iters; it++) {
        s.in = buf[it & 1];
        s.out = buf[(it + 1) & 1];
        synth_launch l = {name, {(s.nx + bx - 1) / bx, (s.ny + by - 1) / by, 1}, {bx, by, 1},
                          shmem, smem ? 28 : 20, 0, smem ? st_smem_warp : st_global_warp, &s};
        if (synth_launch_kernel(g, &l, e) != 0)
            return -1;
    }
    return 0;
}

static const synth_param_def STENCIL_P[] = {
    {"nx", 256, 3, 1 << 16, "grid width (floats per row)"},
    {"ny", 128, 3, 1 << 16, "grid height (rows)"},
    {"bx", 32, 1, 1024, "block width in threads"},
    {"by", 8, 1, 1024, "block height in threads"},
    {"points", 5, 5, 9, "stencil points: 5 (cross) or 9 (with corners)"},
    {"smem", 0, 0, 1, "0: neighbours read from global memory (L1 reuse), 1: staged in a shared tile with halo"},
    {"iters", 1, 1, 64, "sweeps: kernel launches ping-ponging two buffers"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_stencil2d = {
    "stencil2d", "Jacobi 5/9-point stencil: neighbour reuse through L1 or a shared tile, masked boundaries",
    STENCIL_P, stencil_emit,
};

/* ======================================================================================== */
/* hmma: FP16 GEMM on tensor cores, C (fp32, m x n) = A (m x k) * B (k x n), row-major halves.
 * Warp tile 32x32 (2 x 4 mma tiles of 16x8), CTA tile (32*WM) x (32*WN), BK = 32, a
 * STAGES-deep cp.async ring (the CUDA programming guide's pipeline pattern):
 *
 *   template <int WM, int WN, int STAGES>
 *   __global__ void hmma_gemm(const __half *A, const __half *B, float *C, int M, int N, int K) {
 *     __shared__ __align__(128) __half As[STAGES][BM][BK + 8], Bs[STAGES][BK][BN + 8];
 *     float acc[2][4][4] = {};
 *     int KT = K / BK;
 *     for (int s = 0; s < STAGES - 1; s++) { if (s < KT) load_tile(s, s); cp_async_commit(); }
 *     for (int kt = 0; kt < KT; kt++) {
 *       cp_async_wait<STAGES - 2>();               // DEPBAR.LE SB0, STAGES-2
 *       __syncthreads();
 *       int nk = kt + STAGES - 1;
 *       if (nk < KT) load_tile(nk % STAGES, nk);   // 16-byte cp.async.cg: LDGSTS.E.BYPASS.128
 *       cp_async_commit();                         // LDGDEPBAR (possibly an empty group)
 *       for (int kk = 0; kk < BK; kk += 16) {
 *         ldmatrix_x4(a[i], &As[kt % STAGES][wm * 32 + i * 16 + lane % 16][kk + lane / 16 * 8]);
 *         ldmatrix_x4_trans(b[j], &Bs[kt % STAGES][kk + lane % 16][wn * 32 + j * 16 + lane / 16 * 8]);
 *         for i < 2, j < 4: mma_m16n8k16(acc[i][j], a[i], b[j / 2] half j % 2);  // HMMA.16816.F32
 *       }
 *     }
 *     C[...] = acc as float2 stores (STG.E.64), rows lane / 4 and lane / 4 + 8 of each tile;
 *   }
 *   load_tile: thread t copies 16-byte chunks c = t + r * threads of the A tile (4 per row)
 *   and of the B tile (BN / 8 per row), row-major, so a warp reads 64 (A) or 2*BN (B)
 *   contiguous bytes per row.
 *
 * Registers: R12:R13 / R14:R15 global A / B tile pointers, R16 / R17 per-thread STS offsets,
 * R20 / R23 ldmatrix offsets, R24-R31 A fragments, R32-R39 B fragments, R40-R71 accumulators,
 * R76 kt, R77 nk, R88 / R89 write / read stage, R90-R93 stage addresses, R94 KT, R95 32*N. */

typedef struct hm_args {
    uint64_t a, b, c;
    uint32_t m, n, k, wm, wn, stages;
} hm_args;

typedef struct hm_geo {
    uint32_t bm, bn, threads, rowa, rowb, stage_a, stage_b, bbase, kt;
} hm_geo;

static hm_geo hm_geometry(const hm_args *h)
{
    hm_geo g;
    g.bm = 32 * h->wm;
    g.bn = 32 * h->wn;
    g.threads = 32 * h->wm * h->wn;
    g.rowa = (32 + 8) * 2;
    g.rowb = (g.bn + 8) * 2;
    g.stage_a = g.bm * g.rowa;
    g.stage_b = 32 * g.rowb;
    g.bbase = h->stages * g.stage_a;
    g.kt = h->k / 32;
    return g;
}

/* The cp.async copies of k-tile kt into stage st (mask m: all lanes, or 0 when skipped). */
static void hm_load_tile(synth_warp *w, const hm_args *h, const hm_geo *g, uint32_t kt,
                         uint32_t m, int ra, int rb)
{
    uint64_t addr[32];
    uint32_t per_a = g->bm * 4 / g->threads, per_b = 4 * g->bn / g->threads, cpr = g->bn / 8;
    for (uint32_t r = 0; r < per_a; r++) {
        for (unsigned l = 0; l < 32; l++) {
            uint64_t c = synth_ltid(w, l) + (uint64_t)r * g->threads;
            uint64_t row = (uint64_t)w->ctaid[1] * g->bm + c / 4;
            addr[l] = h->a + (row * h->k + kt * 32ull + (c % 4) * 8) * 2;
        }
        synth_mem(w, m, "LDGSTS.E.BYPASS.128", SY_NONE, addr, 2, ra, 12);
    }
    for (uint32_t r = 0; r < per_b; r++) {
        for (unsigned l = 0; l < 32; l++) {
            uint64_t c = synth_ltid(w, l) + (uint64_t)r * g->threads;
            uint64_t row = kt * 32ull + c / cpr;
            addr[l] = h->b + (row * h->n + (uint64_t)w->ctaid[0] * g->bn + (c % cpr) * 8) * 2;
        }
        synth_mem(w, m, "LDGSTS.E.BYPASS.128", SY_NONE, addr, 2, rb, 14);
    }
    synth_op(w, w->exists, "LDGDEPBAR", SY_NONE, 0);
    synth_op(w, w->exists, "IADD3", 12, 2, 12, SY_RZ);   /* A += BK halves */
    synth_op(w, w->exists, "IADD3.X", 13, 3, SY_RZ, 13, SY_RZ);
    synth_op(w, w->exists, "LEA", 14, 2, 95, 14);        /* B += BK rows */
    synth_op(w, w->exists, "LEA.HI.X", 15, 3, 95, 15, SY_RZ);
}

/* Two k16 steps over stage st: 2 A + 2 B ldmatrix.x4, 8 HMMA each. */
static void hm_compute(synth_warp *w, const hm_args *h, const hm_geo *g, uint32_t st)
{
    uint64_t addr[32];
    uint32_t warp_m = w->warp / h->wn, warp_n = w->warp % h->wn;
    for (uint32_t kk = 0; kk < 32; kk += 16) {
        for (int i = 0; i < 2; i++) {
            for (unsigned l = 0; l < 32; l++)
                addr[l] = st * g->stage_a + (warp_m * 32 + i * 16 + l % 16) * g->rowa +
                          (kk + l / 16 * 8) * 2;
            synth_mem(w, w->exists, "LDSM.16.M88.4", 24 + 4 * i, addr, 1, 92);
        }
        for (int jp = 0; jp < 2; jp++) {
            for (unsigned l = 0; l < 32; l++)
                addr[l] = g->bbase + st * g->stage_b + (kk + l % 16) * g->rowb +
                          (warp_n * 32 + jp * 16 + l / 16 * 8) * 2;
            synth_mem(w, w->exists, "LDSM.16.MT88.4", 32 + 4 * jp, addr, 1, 93);
        }
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 4; j++)
                synth_op(w, w->exists, "HMMA.16816.F32", 40 + 4 * (i * 4 + j), 3, 24 + 4 * i,
                         32 + 2 * j, 40 + 4 * (i * 4 + j));
    }
}

static void hm_prologue(synth_warp *w)
{
    uint32_t all = w->exists;
    synth_op(w, all, "MOV", 1, 0);
    synth_op(w, all, "S2R", 0, 0);                    /* SR_TID.X */
    synth_op(w, all, "S2R", 2, 0);                    /* SR_CTAID.X */
    synth_op(w, all, "S2R", 3, 0);                    /* SR_CTAID.Y */
    synth_op(w, all, "ULDC", SY_NONE, 0);             /* K */
    synth_op(w, all, "HFMA2.MMA", 96, 2, SY_RZ, SY_RZ);  /* 2: sizeof(__half) */
    synth_op(w, all, "USHF.R.S32.HI", SY_NONE, 0);    /* KT = K / 32 */
    synth_op(w, all, "ULDC.64", SY_NONE, 0);
    synth_op(w, all, "SHF.R.U32.HI", 4, 2, SY_RZ, 0); /* A copy row */
    synth_op(w, all, "LOP3.LUT", 5, 2, 0, SY_RZ);     /* A copy chunk */
    synth_op(w, all, "SHF.R.U32.HI", 6, 2, SY_RZ, 0); /* B copy row */
    synth_op(w, all, "LOP3.LUT", 7, 2, 0, SY_RZ);     /* B copy chunk */
    synth_op(w, all, "LEA", 8, 2, 3, 4);
    synth_op(w, all, "LEA", 9, 2, 2, 7);
    synth_op(w, all, "IMAD", 10, 2, 8, SY_RZ);
    synth_op(w, all, "LEA", 10, 2, 5, 10);
    synth_op(w, all, "IMAD", 11, 2, 6, SY_RZ);
    synth_op(w, all, "LEA", 11, 2, 9, 11);
    synth_op(w, all, "IMAD.WIDE", 12, 2, 10, 96);     /* &A[...] */
    synth_op(w, all, "IMAD.WIDE", 14, 2, 11, 96);     /* &B[...] */
    synth_op(w, all, "IMAD", 16, 2, 4, SY_RZ);        /* As store offset */
    synth_op(w, all, "LEA", 16, 2, 5, 16);
    synth_op(w, all, "IMAD", 17, 2, 6, SY_RZ);        /* Bs store offset */
    synth_op(w, all, "LEA", 17, 2, 7, 17);
    synth_op(w, all, "LOP3.LUT", 18, 2, 0, SY_RZ);    /* lane */
    synth_op(w, all, "SHF.R.U32.HI", 19, 2, SY_RZ, 0);  /* warp */
    synth_op(w, all, "LOP3.LUT", 20, 2, 18, SY_RZ);
    synth_op(w, all, "SHF.R.U32.HI", 21, 2, SY_RZ, 18);
    synth_op(w, all, "SHF.R.U32.HI", 22, 2, SY_RZ, 19);  /* warp_m */
    synth_op(w, all, "LOP3.LUT", 25, 2, 19, SY_RZ);      /* warp_n */
    synth_op(w, all, "LEA", 20, 2, 22, 20);
    synth_op(w, all, "IMAD", 20, 2, 20, SY_RZ);
    synth_op(w, all, "LEA", 20, 2, 21, 20);              /* A ldmatrix offset */
    synth_op(w, all, "LOP3.LUT", 23, 2, 18, SY_RZ);
    synth_op(w, all, "LOP3.LUT", 24, 2, 18, SY_RZ);
    synth_op(w, all, "IADD3", 23, 3, 23, 24, SY_RZ);
    synth_op(w, all, "LEA", 25, 2, 25, 21);
    synth_op(w, all, "IMAD", 23, 2, 23, SY_RZ);
    synth_op(w, all, "LEA", 23, 2, 25, 23);              /* B ldmatrix offset */
    synth_op(w, all, "MOV", 95, 0);                      /* N */
    synth_op(w, all, "IMAD.SHL.U32", 95, 2, 95, SY_RZ);  /* 32 * N */
    synth_op(w, all, "MOV", 94, 0);                      /* KT */
    for (int r = 40; r < 72; r += 2)
        synth_op(w, all, "CS2R", r, 0);                  /* acc = 0 */
}

static void hm_epilogue(synth_warp *w, const hm_args *h, const hm_geo *g)
{
    uint32_t all = w->exists, warp_m = w->warp / h->wn, warp_n = w->warp % h->wn;
    uint64_t addr[32];
    synth_op(w, all, "SHF.R.U32.HI", 4, 2, SY_RZ, 18);
    synth_op(w, all, "LOP3.LUT", 5, 2, 18, SY_RZ);
    synth_op(w, all, "SHF.R.U32.HI", 6, 2, SY_RZ, 19);
    synth_op(w, all, "LOP3.LUT", 7, 2, 19, SY_RZ);
    synth_op(w, all, "LEA", 4, 2, 6, 4);
    synth_op(w, all, "IMAD.SHL.U32", 5, 2, 5, SY_RZ);
    synth_op(w, all, "LEA", 5, 2, 7, 5);
    synth_op(w, all, "LEA", 4, 2, 3, 4);                 /* row */
    synth_op(w, all, "LEA", 5, 2, 2, 5);                 /* col */
    synth_op(w, all, "HFMA2.MMA", 9, 2, SY_RZ, SY_RZ);   /* 4 */
    synth_op(w, all, "IMAD", 4, 2, 4, 5);
    synth_op(w, all, "IMAD.WIDE", 4, 2, 4, 9);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            for (int hh = 0; hh < 2; hh++) {
                for (unsigned l = 0; l < 32; l++) {
                    uint64_t row = (uint64_t)w->ctaid[1] * g->bm + warp_m * 32 + i * 16 +
                                   hh * 8 + l / 4;
                    uint64_t col = (uint64_t)w->ctaid[0] * g->bn + warp_n * 32 + j * 8 + l % 4 * 2;
                    addr[l] = h->c + (row * h->n + col) * 4;
                }
                synth_mem(w, all, "STG.E.64", SY_NONE, addr, 2, 4, 40 + 4 * (i * 4 + j) + 2 * hh);
            }
    synth_op(w, all, "EXIT", SY_NONE, 0);
}

static void hmma_warp(synth_warp *w, const void *p)
{
    const hm_args *h = p;
    hm_geo g = hm_geometry(h);
    uint32_t all = w->exists, S = h->stages;
    hm_prologue(w);
    for (uint32_t s = 0; s + 1 < S; s++) {
        synth_op(w, all, "ISETP.GT.AND", SY_NONE, 1, 94);
        hm_load_tile(w, h, &g, s, s < g.kt ? all : 0, 16, 17);
    }
    synth_op(w, all, "IMAD.MOV.U32", 88, 2, SY_RZ, SY_RZ);   /* write stage = S - 1 */
    synth_op(w, all, "MOV", 89, 1, SY_RZ);                    /* read stage = 0 */
    synth_op(w, all, "MOV", 76, 1, SY_RZ);                    /* kt = 0 */
    uint64_t top = synth_pc(w);
    for (uint32_t kt = 0; kt < g.kt; kt++) {
        uint32_t nk = kt + S - 1;
        synth_goto(w, top);
        synth_imm(w, S - 2);
        synth_op(w, all, "DEPBAR.LE", SY_NONE, 0);
        synth_op(w, all, SY_BAR, SY_NONE, 0);
        synth_op(w, all, "IADD3", 77, 2, 76, SY_RZ);
        synth_op(w, all, "ISETP.GE.AND", SY_NONE, 2, 77, 94);
        synth_op(w, all, "IMAD", 90, 2, 88, 16);
        synth_op(w, all, "IMAD", 91, 2, 88, 17);
        hm_load_tile(w, h, &g, nk, nk < g.kt ? all : 0, 90, 91);
        synth_op(w, all, "IMAD", 92, 2, 89, 20);
        synth_op(w, all, "IMAD", 93, 2, 89, 23);
        hm_compute(w, h, &g, kt % S);
        synth_op(w, all, "IADD3", 88, 2, 88, SY_RZ);
        synth_op(w, all, "ISETP.NE.AND", SY_NONE, 1, 88);
        synth_op(w, all, "SEL", 88, 2, 88, SY_RZ);
        synth_op(w, all, "IADD3", 89, 2, 89, SY_RZ);
        synth_op(w, all, "ISETP.NE.AND", SY_NONE, 1, 89);
        synth_op(w, all, "SEL", 89, 2, 89, SY_RZ);
        synth_op(w, all, "IADD3", 76, 2, 76, SY_RZ);
        synth_op(w, all, "ISETP.GE.AND", SY_NONE, 2, 76, 94);
        synth_op(w, kt + 1 < g.kt ? all : 0, "BRA", SY_NONE, 0);
    }
    hm_epilogue(w, h, &g);
}

static int hmma_emit(synth_gen *g, base_err *e)
{
    hm_args h;
    h.m = (uint32_t)synth_p(g, "m");
    h.n = (uint32_t)synth_p(g, "n");
    h.k = (uint32_t)synth_p(g, "k");
    h.stages = (uint32_t)synth_p(g, "stages");
    uint32_t warps = (uint32_t)synth_p(g, "warps");
    if (!is_pow2(warps))
        return base_fail(e, BASE_EXIT_USAGE, "hmma: --warps=%u must be 1, 2, 4 or 8", warps);
    h.wm = warps >= 4 ? warps / 2 : warps;          /* 1x1, 2x1, 2x2, 4x2 warps */
    h.wn = warps / h.wm;
    hm_geo geo = hm_geometry(&h);
    if (h.m % geo.bm || h.n % geo.bn || h.k % 32)
        return base_fail(e, BASE_EXIT_USAGE,
                         "hmma: --m=%u --n=%u --k=%u must be multiples of the %ux%u CTA tile "
                         "and of 32", h.m, h.n, h.k, geo.bm, geo.bn);
    uint32_t shmem = h.stages * (geo.stage_a + geo.stage_b);
    if (shmem > 48 * 1024)
        return base_fail(e, BASE_EXIT_USAGE, "hmma: %u stages of %ux%u tiles need %u bytes of "
                         "shared memory (static limit 48 KiB)", h.stages, geo.bm, geo.bn, shmem);
    uint64_t abytes = (uint64_t)h.m * h.k * 2, bbytes = (uint64_t)h.k * h.n * 2;
    h.a = synth_malloc(g, abytes);
    h.b = synth_malloc(g, bbytes);
    h.c = synth_malloc(g, (uint64_t)h.m * h.n * 4);
    synth_memcpy(g, h.a, abytes);
    synth_memcpy(g, h.b, bbytes);
    char name[80];
    snprintf(name, sizeof name, "_Z9hmma_gemmILi%uELi%uELi%uEEvPK6__halfS2_Pfiii", h.wm, h.wn,
             h.stages);
    synth_launch l = {name, {h.n / geo.bn, h.m / geo.bm, 1}, {geo.threads, 1, 1}, shmem, 128, 0,
                      hmma_warp, &h};
    return synth_launch_kernel(g, &l, e);
}

static const synth_param_def HMMA_P[] = {
    {"m", 256, 32, 16384, "rows of A and C (a multiple of the CTA tile, 32 * warp rows)"},
    {"n", 256, 32, 16384, "columns of B and C (a multiple of the CTA tile)"},
    {"k", 256, 32, 65536, "inner dimension (a multiple of 32)"},
    {"warps", 4, 1, 8, "warps per CTA: 1, 2, 4, 8 (1x1, 2x1, 2x2, 4x2 warp tiles of 32x32)"},
    {"stages", 3, 2, 4, "cp.async pipeline depth (DEPBAR.LE waits for stages-2 groups)"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_hmma = {
    "hmma", "tensor-core GEMM: cp.async (LDGSTS) pipeline, ldmatrix, HMMA.16816.F32",
    HMMA_P, hmma_emit,
};
