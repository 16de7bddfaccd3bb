/* Irregular workloads: gather (uncoalesced random loads), histogram (shared and global
 * atomics with tunable conflicts), branchy (lane- and data-dependent divergence with BSSY/BSYNC
 * reconvergence), pchase (a single-thread dependent-load latency chain) and multi (kernels on
 * two CUDA streams with copies between them). SASS follows nvcc 11+ -O3 for sm_80 in the style
 * of k_stream.c. Branch and BSSY immediates are target PCs (the tracer records BRA so in
 * ffma_sm90_v5; for BSSY, whose label is its last immediate operand, the same is assumed). */
#include "synth_int.h"

#include <stdio.h>

/* blockIdx.x*blockDim.x + threadIdx.x of a lane. */
static uint64_t gidx(const synth_warp *w, unsigned lane)
{
    return (uint64_t)w->ctaid[0] * w->ntid[0] + synth_tid(w, lane, 0);
}

/* Lanes of w whose global index is below n. */
static uint32_t lanes_below(const synth_warp *w, uint64_t n)
{
    uint32_t m = 0;
    for (unsigned l = 0; l < 32; l++)
        if ((w->exists >> l & 1) && gidx(w, l) < n)
            m |= 1u << l;
    return m;
}

/* Lanes of m whose trip count trips[lane] exceeds k: those still inside a loop at iteration k. */
static uint32_t lanes_above(const uint32_t *trips, uint32_t m, uint32_t k)
{
    uint32_t r = 0;
    for (unsigned l = 0; l < 32; l++)
        if ((m >> l & 1) && trips[l] > k)
            r |= 1u << l;
    return r;
}

/* int i = blockIdx.x*blockDim.x + threadIdx.x; if (i >= n) return;  with i in register ri.
 * Returns the lanes that stay. */
static uint32_t guard_prologue(synth_warp *w, uint64_t n, int ri)
{
    uint32_t all = w->exists, in = lanes_below(w, n);
    synth_op(w, all, "MOV", 1, 0);                 /* stack pointer from c[0x0][0x28] */
    synth_op(w, all, "S2R", ri, 0);                /* SR_CTAID.X */
    synth_op(w, all, "S2R", 3, 0);                 /* SR_TID.X */
    synth_op(w, all, "IMAD", ri, 2, ri, 3);
    synth_op(w, all, "ISETP.GE.AND", SY_NONE, 1, ri);
    synth_op(w, all & ~in, "EXIT", SY_NONE, 0);    /* @P0 EXIT */
    return in;
}

/* A branch (or BSSY) whose immediate is its target PC. */
static void branch(synth_warp *w, uint32_t mask, const char *op, uint64_t target)
{
    synth_imm(w, (int64_t)target);
    synth_op(w, mask, op, SY_NONE, 0);
}

/* ==== gather: out[i] = in[idx[i]] ==== */

typedef struct ga_args {
    uint64_t in, idx, out, n, elems, seed;
    unsigned elem;
} ga_args;

/* idx[i] as the host wrote it: a uniformly random element of the footprint. */
static uint64_t gather_index(uint64_t seed, uint64_t i, uint64_t elems)
{
    return synth_hash(seed, i) % elems;
}

/* __global__ void gather(const float *__restrict__ in, const int *__restrict__ idx,
 *                        float *out, int n)
 * { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[idx[i]]; }
 * (double for elem=8). The idx load is coalesced, the in load scatters over the footprint. */
static void gather_warp(synth_warp *w, const void *p)
{
    const ga_args *a = p;
    uint64_t ia[32], da[32], oa[32];
    uint32_t m = guard_prologue(w, a->n, 4);
    if (!m)
        return;
    for (unsigned l = 0; l < 32; l++) {
        uint64_t i = gidx(w, l);
        ia[l] = a->idx + 4 * i;
        da[l] = a->in + a->elem * gather_index(a->seed, i, a->elems);
        oa[l] = a->out + a->elem * i;
    }
    int wide = a->elem == 8, rs = wide ? 7 : 5;
    synth_op(w, m, "HFMA2.MMA", 5, 2, SY_RZ, SY_RZ);      /* R5 = sizeof(int) */
    if (wide)
        synth_op(w, m, "HFMA2.MMA", 7, 2, SY_RZ, SY_RZ);  /* R7 = sizeof(double) */
    synth_op(w, m, "ULDC.64", SY_NONE, 0);
    synth_op(w, m, "IMAD.WIDE", 2, 2, 4, 5);
    synth_mem(w, m, "LDG.E.CONSTANT", 2, ia, 1, 2);
    synth_op(w, m, "IMAD.WIDE", 8, 2, 4, rs);
    synth_op(w, m, "IMAD.WIDE", 2, 2, 2, rs);
    synth_mem(w, m, wide ? "LDG.E.64.CONSTANT" : "LDG.E.CONSTANT", 2, da, 1, 2);
    synth_mem(w, m, wide ? "STG.E.64" : "STG.E", SY_NONE, oa, 2, 8, 2);
    synth_op(w, m, "EXIT", SY_NONE, 0);
}

static int gather_emit(synth_gen *g, base_err *e)
{
    ga_args a;
    uint64_t n = (uint64_t)synth_p(g, "n");
    uint64_t fp = (uint64_t)synth_p(g, "footprint");
    a.elem = (unsigned)synth_p(g, "elem");
    if (a.elem != 4 && a.elem != 8)
        return base_fail(e, BASE_EXIT_USAGE, "gather: --elem must be 4 (float) or 8 (double)");
    if (fp % a.elem)
        return base_fail(e, BASE_EXIT_USAGE, "gather: --footprint must be a multiple of --elem");
    a.n = n;
    a.elems = fp / a.elem;
    a.seed = synth_seed(g);
    a.in = synth_malloc(g, fp);
    a.idx = synth_malloc(g, n * 4);
    a.out = synth_malloc(g, n * a.elem);
    synth_memcpy(g, a.in, fp);
    synth_memcpy(g, a.idx, n * 4);
    return synth_launch_1d(g, a.elem == 8 ? "_Z6gatherPKdPKiPdi" : "_Z6gatherPKfPKiPfi", n, 10,
                           0, gather_warp, &a, e);
}

static const synth_param_def GATHER_P[] = {
    {"n", 65536, 1, 1 << 26, "elements gathered (one per thread)"},
    {"block", 256, 32, 1024, "threads per block"},
    {"footprint", 64 << 20, 64, (int64_t)1 << 32,
     "bytes of the gathered array (indices are uniform over it)"},
    {"elem", 4, 4, 8, "element size: 4 (float) or 8 (double)"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_gather = {
    "gather", "out[i] = in[idx[i]]: random uncoalesced loads (~32 sectors per warp), L2/DRAM bound",
    GATHER_P, gather_emit,
};

/* ==== histogram: per-CTA shared-memory bins, merged with global atomics ==== */

typedef struct hi_args {
    uint64_t data, hist, n, seed;
    uint32_t bins, skew;
} hi_args;

/* The bin of element i: skew percent of the elements land in bin 0, the rest are uniform. */
static uint32_t hist_bin(uint64_t seed, uint64_t i, uint32_t bins, uint32_t skew)
{
    uint64_t h = synth_hash(seed, i);
    return (h >> 32) % 100 < skew ? 0 : (uint32_t)h & (bins - 1);
}

/* for (b = threadIdx.x; b < BINS; b += blockDim.x) s[b] = 0; __syncthreads();
 * zt: trips per lane. */
static void hist_zero(synth_warp *w, const hi_args *a, const uint32_t *zt)
{
    uint32_t all = w->exists, in = lanes_above(zt, all, 0);
    uint64_t sa[32];
    synth_imm(w, a->bins - 1);
    synth_op(w, all, "ISETP.GT.AND", SY_NONE, 1, 0);
    uint64_t end = synth_pc(w) + 16 * 7;               /* BSSY BRA MOV STS IADD3 ISETP BRA */
    branch(w, all, "BSSY", end);
    branch(w, all & ~in, "BRA", end);
    if (in) {
        synth_op(w, in, "MOV", 2, 1, 0);
        uint64_t top = synth_pc(w);
        for (uint32_t k = 0, live = in; live; live = lanes_above(zt, in, ++k)) {
            synth_goto(w, top);
            for (unsigned l = 0; l < 32; l++)
                sa[l] = 4 * ((uint64_t)synth_tid(w, l, 0) + (uint64_t)k * w->ntid[0]);
            synth_mem(w, live, "STS", SY_NONE, sa, 2, 2, SY_RZ);
            synth_op(w, live, "IADD3", 2, 2, 2, SY_RZ);    /* b += blockDim.x */
            synth_imm(w, a->bins);
            synth_op(w, live, "ISETP.GE.AND", SY_NONE, 1, 2);
            branch(w, lanes_above(zt, in, k + 1), "BRA", top);
        }
    }
    synth_goto(w, end);
    synth_op(w, all, "BSYNC", SY_NONE, 0);
    synth_op(w, all, "BAR.SYNC.DEFER_BLOCKING", SY_NONE, 0);
}

/* for (i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += blockDim.x*gridDim.x)
 *     atomicAdd(&s[data[i] % BINS], 1u);
 * __syncthreads();   mt: trips per lane. */
static void hist_main(synth_warp *w, const hi_args *a, const uint32_t *mt)
{
    uint32_t all = w->exists, in = lanes_above(mt, all, 0);
    uint64_t da[32], sa[32], stride = (uint64_t)w->ntid[0] * w->nctaid[0];
    synth_op(w, all, "IMAD", 2, 2, 3, 0);
    synth_op(w, all, "HFMA2.MMA", 9, 2, SY_RZ, SY_RZ);  /* R9 = 4 */
    synth_op(w, all, "ULDC.64", SY_NONE, 0);
    synth_op(w, all, "MOV", 7, 0);                      /* gridDim.x */
    synth_op(w, all, "IMAD", 7, 2, 7, SY_RZ);           /* * blockDim.x */
    synth_op(w, all, "ISETP.GE.AND", SY_NONE, 1, 2);
    uint64_t end = synth_pc(w) + 16 * 9;                /* BSSY BRA + 7 loop instructions */
    branch(w, all, "BSSY", end);
    branch(w, all & ~in, "BRA", end);
    uint64_t top = synth_pc(w);
    for (uint32_t k = 0, live = in; live; live = lanes_above(mt, in, ++k)) {
        synth_goto(w, top);
        for (unsigned l = 0; l < 32; l++) {
            uint64_t i = gidx(w, l) + k * stride;
            da[l] = a->data + 4 * i;
            sa[l] = (live >> l & 1) ? 4 * (uint64_t)hist_bin(a->seed, i, a->bins, a->skew) : 0;
        }
        synth_op(w, live, "IMAD.WIDE", 4, 2, 2, 9);
        synth_op(w, live, "IADD3", 2, 3, 2, 7, SY_RZ);
        synth_mem(w, live, "LDG.E.CONSTANT", 4, da, 1, 4);
        synth_op(w, live, "ISETP.GE.AND", SY_NONE, 1, 2);
        synth_imm(w, a->bins - 1);
        synth_op(w, live, "LOP3.LUT", 6, 2, 4, SY_RZ);  /* data & (BINS-1) */
        synth_mem(w, live, "ATOMS.POPC.INC", SY_RZ, sa, 1, 6);
        branch(w, lanes_above(mt, in, k + 1), "BRA", top);
    }
    synth_goto(w, end);
    synth_op(w, all, "BSYNC", SY_NONE, 0);
    synth_op(w, all, "BAR.SYNC.DEFER_BLOCKING", SY_NONE, 0);
}

/* for (b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], s[b]); */
static void hist_flush(synth_warp *w, const hi_args *a, const uint32_t *zt)
{
    uint32_t all = w->exists, in = lanes_above(zt, all, 0);
    uint64_t sa[32], ga[32];
    synth_imm(w, a->bins - 1);
    synth_op(w, all, "ISETP.GT.AND", SY_NONE, 1, 0);
    synth_op(w, all & ~in, "EXIT", SY_NONE, 0);
    if (!in)
        return;
    uint64_t top = synth_pc(w);
    for (uint32_t k = 0, live = in; live; live = lanes_above(zt, in, ++k)) {
        synth_goto(w, top);
        for (unsigned l = 0; l < 32; l++) {
            sa[l] = 4 * ((uint64_t)synth_tid(w, l, 0) + (uint64_t)k * w->ntid[0]);
            ga[l] = a->hist + sa[l];
        }
        synth_mem(w, live, "LDS", 5, sa, 1, 0);
        synth_op(w, live, "IMAD.WIDE", 2, 2, 0, 9);
        synth_op(w, live, "IADD3", 0, 2, 0, SY_RZ);
        synth_imm(w, a->bins);
        synth_op(w, live, "ISETP.GE.AND", SY_NONE, 1, 0);
        synth_mem(w, live, "RED.E.ADD.STRONG.GPU", SY_NONE, ga, 2, 2, 5);
        branch(w, lanes_above(zt, in, k + 1), "BRA", top);
    }
    synth_op(w, in, "EXIT", SY_NONE, 0);
}

/* template <int BINS> __global__ void histogram(const unsigned *__restrict__ data,
 *                                               unsigned *hist, int n)
 * { __shared__ unsigned s[BINS]; zero s; sync; count into s; sync; merge s into hist; } */
static void histogram_warp(synth_warp *w, const void *p)
{
    const hi_args *a = p;
    uint32_t zt[32] = {0}, mt[32] = {0}, B = w->ntid[0];
    uint64_t stride = (uint64_t)B * w->nctaid[0];
    for (unsigned l = 0; l < 32; l++) {
        uint32_t t = synth_tid(w, l, 0);
        uint64_t i = gidx(w, l);
        if (!(w->exists >> l & 1))
            continue;
        zt[l] = t < a->bins ? (a->bins - t + B - 1) / B : 0;
        mt[l] = i < a->n ? (uint32_t)((a->n - i + stride - 1) / stride) : 0;
    }
    synth_op(w, w->exists, "MOV", 1, 0);
    synth_op(w, w->exists, "S2R", 0, 0);                /* SR_TID.X */
    synth_op(w, w->exists, "S2R", 3, 0);                /* SR_CTAID.X */
    hist_zero(w, a, zt);
    hist_main(w, a, mt);
    hist_flush(w, a, zt);
}

static int histogram_emit(synth_gen *g, base_err *e)
{
    hi_args a;
    uint64_t n = (uint64_t)synth_p(g, "n"), block = (uint64_t)synth_p(g, "block");
    a.bins = (uint32_t)synth_p(g, "bins");
    a.skew = (uint32_t)synth_p(g, "skew");
    if (a.bins & (a.bins - 1))
        return base_fail(e, BASE_EXIT_USAGE, "histogram: --bins must be a power of two");
    a.n = n;
    a.seed = synth_seed(g);
    a.data = synth_malloc(g, n * 4);
    a.hist = synth_malloc(g, a.bins * 4u);
    synth_memcpy(g, a.data, n * 4);                     /* hist: cudaMemset, not traced */
    char name[64];
    snprintf(name, sizeof name, "_Z9histogramILi%uEEvPKjPji", a.bins);
    synth_launch l = {name, {(uint32_t)synth_p(g, "grid"), 1, 1},
                      {(uint32_t)block, 1, 1}, a.bins * 4u, 12, 0, histogram_warp, &a};
    return synth_launch_kernel(g, &l, e);
}

static const synth_param_def HISTOGRAM_P[] = {
    {"n", 65536, 1, 1 << 26, "elements counted (4-byte words)"},
    {"block", 256, 32, 1024, "threads per block"},
    {"bins", 256, 2, 8192, "histogram bins (power of two; the shared array is bins*4 bytes)"},
    {"skew", 0, 0, 100, "percent of elements forced into bin 0 (shared atomic conflicts)"},
    {"grid", 32, 1, 65535, "CTAs of the grid-stride loop"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_histogram = {
    "histogram",
    "shared-memory atomics (ATOMS, tunable same-address conflicts) then global RED merges",
    HISTOGRAM_P, histogram_emit,
};

/* ==== branchy: lane-parity if/else, nested data-dependent ifs, data-dependent loops ==== */

typedef struct br_args {
    uint64_t data, out, n, seed;
    uint32_t maxiter, threshold;
} br_args;

/* data[i] as the host wrote it. */
static uint32_t branchy_data(uint64_t seed, uint64_t i) { return (uint32_t)synth_hash(seed, i); }

/* if (threadIdx.x & 1) {then} else {else}: odd lanes run the fall-through side first. */
static void branchy_parity(synth_warp *w, uint32_t m)
{
    uint32_t odd = 0;
    for (unsigned l = 0; l < 32; l++)
        odd |= (synth_tid(w, l, 0) & 1u) << l;
    odd &= m;
    synth_imm(w, 1);
    synth_op(w, m, "LOP3.LUT", 4, 2, 3, SY_RZ);
    synth_op(w, m, "ISETP.NE.U32.AND", SY_NONE, 2, 4, SY_RZ);
    uint64_t bra = synth_pc(w) + 16, els = bra + 16 * 6, join = bra + 16 * 10;
    branch(w, m, "BSSY", join);
    branch(w, m & ~odd, "BRA", els);                    /* @!P0 BRA else */
    if (odd) {                          /* v = (float)d * 2.f; v = (v*v + .25f) * 1.5f */
        synth_op(w, odd, "I2F.U32", 6, 1, 2);
        synth_op(w, odd, "FMUL", 6, 1, 6);
        synth_op(w, odd, "FFMA", 6, 2, 6, 6);
        synth_op(w, odd, "FMUL", 6, 1, 6);
        branch(w, odd, "BRA", join);
    }
    if (m & ~odd) {                     /* v = (float)d + 1.f; v = v*v - .5f */
        synth_goto(w, els);
        synth_op(w, m & ~odd, "I2F.U32", 6, 1, 2);
        synth_op(w, m & ~odd, "FADD", 6, 1, 6);
        synth_op(w, m & ~odd, "FMUL", 6, 2, 6, 6);
        synth_op(w, m & ~odd, "FADD", 6, 1, 6);
    }
    synth_goto(w, join);
    synth_op(w, m, "BSYNC", SY_NONE, 0);
}

/* if (d % 100 < threshold) { v *= 3.f; if (i % 4 == 0) v = v*v*.5f; } */
static void branchy_data_if(synth_warp *w, const br_args *a, uint32_t m)
{
    uint32_t in = 0, q = 0;
    for (unsigned l = 0; l < 32; l++) {
        uint64_t i = gidx(w, l);
        if (branchy_data(a->seed, i) % 100 < a->threshold)
            in |= 1u << l;
        if (i % 4 == 0)
            q |= 1u << l;
    }
    in &= m;
    q &= in;
    synth_imm(w, 0x51eb851f);                           /* d / 100 by multiply-high */
    synth_op(w, m, "IMAD.HI.U32", 7, 2, 2, SY_RZ);
    synth_imm(w, 5);
    synth_op(w, m, "SHF.R.U32.HI", 7, 2, SY_RZ, 7);
    synth_imm(w, -100);
    synth_op(w, m, "IMAD", 7, 2, 7, 2);
    synth_op(w, m, "ISETP.GE.U32.AND", SY_NONE, 1, 7);
    uint64_t bra = synth_pc(w) + 16, end = bra + 16 * 9;
    branch(w, m, "BSSY", end);
    branch(w, m & ~in, "BRA", end);                     /* @P0 BRA: not taken */
    if (in) {
        synth_op(w, in, "FMUL", 6, 1, 6);
        synth_imm(w, 3);
        synth_op(w, in, "LOP3.LUT", 7, 2, 0, SY_RZ);
        synth_op(w, in, "ISETP.NE.AND", SY_NONE, 2, 7, SY_RZ);
        uint64_t inner = synth_pc(w) + 16 * 4;       /* BSSY BRA FFMA FMUL */
        branch(w, in, "BSSY", inner);
        branch(w, in & ~q, "BRA", inner);
        if (q) {
            synth_op(w, q, "FFMA", 6, 2, 6, 6);
            synth_op(w, q, "FMUL", 6, 1, 6);
        }
        synth_goto(w, inner);
        synth_op(w, in, "BSYNC", SY_NONE, 0);
    }
    synth_goto(w, end);
    synth_op(w, m, "BSYNC", SY_NONE, 0);
}

/* unsigned t = (d >> 16) % MAXITER; for (; t; t--) v = v * .5f + 1.f;
 * A warp runs the body max(t) times over its lanes; lanes drop out of the mask as they finish. */
static void branchy_loop(synth_warp *w, const br_args *a, uint32_t m)
{
    uint32_t trips[32], M = a->maxiter;
    for (unsigned l = 0; l < 32; l++)
        trips[l] = (branchy_data(a->seed, gidx(w, l)) >> 16) % M;
    synth_imm(w, 16);
    synth_op(w, m, "SHF.R.U32.HI", 7, 2, SY_RZ, 2);
    if ((M & (M - 1)) == 0) {
        synth_imm(w, M - 1);
        synth_op(w, m, "LOP3.LUT", 7, 2, 7, SY_RZ);
    } else {                                            /* t - (t * magic >> 32 >> s) * M */
        unsigned s = 0;
        while ((2u << s) <= M)
            s++;
        synth_imm(w, (int64_t)(uint32_t)((((uint64_t)1 << (32 + s)) + M - 1) / M));
        synth_op(w, m, "IMAD.HI.U32", 4, 2, 7, SY_RZ);
        synth_imm(w, s);
        synth_op(w, m, "SHF.R.U32.HI", 4, 2, SY_RZ, 4);
        synth_imm(w, -(int64_t)M);
        synth_op(w, m, "IMAD", 7, 2, 4, 7);
    }
    synth_op(w, m, "ISETP.NE.AND", SY_NONE, 2, 7, SY_RZ);
    uint64_t top = synth_pc(w) + 32, end = top + 16 * 4;
    uint32_t in = lanes_above(trips, m, 0);
    branch(w, m, "BSSY", end);
    branch(w, m & ~in, "BRA", end);                     /* @!P0 BRA: zero trips */
    for (uint32_t k = 0, live = in; live; live = lanes_above(trips, in, ++k)) {
        synth_goto(w, top);
        synth_imm(w, -1);
        synth_op(w, live, "IADD3", 7, 2, 7, SY_RZ);
        synth_op(w, live, "FFMA", 6, 1, 6);
        synth_op(w, live, "ISETP.NE.AND", SY_NONE, 2, 7, SY_RZ);
        branch(w, lanes_above(trips, in, k + 1), "BRA", top);
    }
    synth_goto(w, end);
    synth_op(w, m, "BSYNC", SY_NONE, 0);
}

/* template <unsigned MAXITER> __global__ void branchy(const unsigned *__restrict__ data,
 *                                                     float *out, int n, unsigned threshold)
 * { int i = ...; if (i >= n) return; unsigned d = data[i]; float v;
 *   parity if/else; data if with nested if; data-dependent loop; out[i] = v; }
 * The branch bodies are long enough that nvcc keeps real branches instead of predicating. */
static void branchy_warp(synth_warp *w, const void *p)
{
    const br_args *a = p;
    uint64_t da[32], oa[32];
    uint32_t m = guard_prologue(w, a->n, 0);
    if (!m)
        return;
    for (unsigned l = 0; l < 32; l++) {
        da[l] = a->data + 4 * gidx(w, l);
        oa[l] = a->out + 4 * gidx(w, l);
    }
    synth_op(w, m, "HFMA2.MMA", 5, 2, SY_RZ, SY_RZ);   /* R5 = 4 */
    synth_op(w, m, "ULDC.64", SY_NONE, 0);
    synth_op(w, m, "IMAD.WIDE", 8, 2, 0, 5);
    synth_mem(w, m, "LDG.E.CONSTANT", 2, da, 1, 8);
    branchy_parity(w, m);
    branchy_data_if(w, a, m);
    branchy_loop(w, a, m);
    synth_op(w, m, "IMAD.WIDE", 8, 2, 0, 5);
    synth_mem(w, m, "STG.E", SY_NONE, oa, 2, 8, 6);
    synth_op(w, m, "EXIT", SY_NONE, 0);
}

static int branchy_emit(synth_gen *g, base_err *e)
{
    br_args a;
    uint64_t n = (uint64_t)synth_p(g, "n");
    a.n = n;
    a.seed = synth_seed(g);
    a.maxiter = (uint32_t)synth_p(g, "maxiter");
    a.threshold = (uint32_t)synth_p(g, "threshold");
    a.data = synth_malloc(g, n * 4);
    a.out = synth_malloc(g, n * 4);
    synth_memcpy(g, a.data, n * 4);
    char name[64];
    snprintf(name, sizeof name, "_Z7branchyILj%uEEvPKjPfij", a.maxiter);
    return synth_launch_1d(g, name, n, 12, 0, branchy_warp, &a, e);
}

static const synth_param_def BRANCHY_P[] = {
    {"n", 16384, 1, 1 << 24, "elements (one per thread)"},
    {"block", 256, 32, 1024, "threads per block"},
    {"maxiter", 16, 1, 4096, "data-dependent loop trips are uniform in 0..maxiter-1"},
    {"threshold", 50, 0, 100, "percent of elements taking the data-dependent branch"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_branchy = {
    "branchy", "SIMT divergence: lane-parity and data-dependent branches, BSSY/BSYNC, uneven loops",
    BRANCHY_P, branchy_emit,
};

/* ==== pchase: j = A[j] by one thread, the classic memory-latency microbenchmark ==== */

typedef struct pc_args {
    uint64_t a, out, time, fp, stride, iters, warm;
} pc_args;

/* #pragma unroll 1  for (int k = 0; k < count; k++) j = A[j];
 * A[i] = (i + stride/4) % (footprint/4), so load k of a pass reads byte (k*stride) % footprint;
 * a whole warmup pass ends where it started, at j = 0. */
static void pchase_loop(synth_warp *w, const pc_args *a, uint64_t count)
{
    uint64_t addr[32];
    synth_op(w, 1, "MOV", 4, 0);                        /* count from c[0x0][...] */
    synth_imm(w, 1);
    synth_op(w, 1, "ISETP.GE.AND", SY_NONE, 1, 4);
    uint64_t top = synth_pc(w) + 16, end = top + 16 * 5;
    branch(w, count ? 0 : 1, "BRA", end);               /* @!P0 BRA: empty loop */
    for (uint64_t k = 0; k < count; k++) {
        synth_goto(w, top);
        addr[0] = a->a + (k * a->stride) % a->fp;
        synth_op(w, 1, "IMAD.WIDE.U32", 2, 2, 5, 9);
        synth_imm(w, -1);
        synth_op(w, 1, "IADD3", 4, 2, 4, SY_RZ);
        synth_mem(w, 1, "LDG.E", 5, addr, 1, 2);
        synth_op(w, 1, "ISETP.NE.AND", SY_NONE, 2, 4, SY_RZ);
        branch(w, k + 1 < count, "BRA", top);
    }
    synth_goto(w, end);
}

/* __global__ void pchase(const unsigned *A, unsigned *out, long long *time, int warm, int iters)
 * { if (threadIdx.x != 0) return; unsigned j = 0; warm loop; long long t0 = clock64();
 *   timed loop; long long t1 = clock64(); *out = j; *time = t1 - t0; }   <<<1, 32>>> */
static void pchase_warp(synth_warp *w, const void *p)
{
    const pc_args *a = p;
    uint64_t addr[32] = {0};
    synth_op(w, w->exists, "MOV", 1, 0);
    synth_op(w, w->exists, "S2R", 0, 0);                /* SR_TID.X */
    synth_op(w, w->exists, "ISETP.NE.AND", SY_NONE, 2, 0, SY_RZ);
    synth_op(w, w->exists & ~1u, "EXIT", SY_NONE, 0);
    synth_op(w, 1, "HFMA2.MMA", 9, 2, SY_RZ, SY_RZ);   /* R9 = 4 */
    synth_op(w, 1, "ULDC.64", SY_NONE, 0);
    synth_op(w, 1, "MOV", 5, 1, SY_RZ);                 /* j = 0 */
    pchase_loop(w, a, a->warm);
    synth_op(w, 1, "CS2R", 6, 0);                       /* SR_CLOCKLO */
    pchase_loop(w, a, a->iters);
    synth_op(w, 1, "CS2R", 10, 0);
    synth_op(w, 1, "IADD3", 6, 3, 6, 10, SY_RZ);
    synth_op(w, 1, "IADD3.X", 7, 3, 7, 11, SY_RZ);
    synth_op(w, 1, "MOV", 2, 0);
    synth_op(w, 1, "MOV", 3, 0);
    addr[0] = a->out;
    synth_mem(w, 1, "STG.E", SY_NONE, addr, 2, 2, 5);
    synth_op(w, 1, "MOV", 8, 0);
    synth_op(w, 1, "MOV", 9, 0);
    addr[0] = a->time;
    synth_mem(w, 1, "STG.E.64", SY_NONE, addr, 2, 8, 6);
    synth_op(w, 1, "EXIT", SY_NONE, 0);
}

static int pchase_emit(synth_gen *g, base_err *e)
{
    pc_args a;
    a.fp = (uint64_t)synth_p(g, "footprint");
    a.stride = (uint64_t)synth_p(g, "stride");
    a.iters = (uint64_t)synth_p(g, "iters");
    if (a.stride % 4 || a.fp % a.stride)
        return base_fail(e, BASE_EXIT_USAGE,
                         "pchase: --stride must be a multiple of 4 that divides --footprint");
    a.warm = synth_p(g, "warmup") ? a.fp / a.stride : 0;
    if (a.warm > (1u << 24))
        return base_fail(e, BASE_EXIT_USAGE,
                         "pchase: the warmup pass would take %llu loads (at most 16M): raise "
                         "--stride or lower --footprint", (unsigned long long)a.warm);
    a.a = synth_malloc(g, a.fp);
    a.out = synth_malloc(g, 4);
    a.time = synth_malloc(g, 8);
    synth_memcpy(g, a.a, a.fp);
    synth_launch l = {"_Z6pchasePKjPjPxii", {1, 1, 1}, {32, 1, 1}, 0, 12, 0, pchase_warp, &a};
    return synth_launch_kernel(g, &l, e);
}

static const synth_param_def PCHASE_P[] = {
    {"footprint", 512 << 10, 64, (int64_t)1 << 32,
     "bytes of the chased array (A100: <=128K stays in L1, <=32M in L2, more goes to DRAM)"},
    {"stride", 128, 4, 1 << 24, "bytes between consecutive chain elements (128: one line each)"},
    {"iters", 4096, 1, 1 << 24, "timed dependent loads"},
    {"warmup", 1, 0, 1, "1: one untimed pass over the whole chain first"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_pchase = {
    "pchase", "one thread chasing pointers (j = A[j]): pure load latency at each cache level",
    PCHASE_P, pchase_emit,
};

/* ==== multi: two streams of dependent kernels, then a join on the default stream ==== */

#define MULTI_STREAM_A 0x5618d5f3a2b0ull
#define MULTI_STREAM_B 0x5618d5f3a8c0ull

typedef struct mu_args {
    uint64_t x, y, z, n;     /* inputs x (and y), output z */
} mu_args;

static void lane_addrs(const synth_warp *w, uint64_t base, uint64_t *a)
{
    for (unsigned l = 0; l < 32; l++)
        a[l] = base + 4 * gidx(w, l);
}

/* __global__ void scale(const float *x, float *y, float a, int n) { ... y[i] = a * x[i]; } */
static void scale_warp(synth_warp *w, const void *p)
{
    const mu_args *s = p;
    uint64_t addr[32];
    uint32_t m = guard_prologue(w, s->n, 4);
    if (!m)
        return;
    synth_op(w, m, "HFMA2.MMA", 5, 2, SY_RZ, SY_RZ);
    synth_op(w, m, "ULDC.64", SY_NONE, 0);
    synth_op(w, m, "IMAD.WIDE", 2, 2, 4, 5);
    lane_addrs(w, s->x, addr);
    synth_mem(w, m, "LDG.E", 2, addr, 1, 2);
    synth_op(w, m, "IMAD.WIDE", 4, 2, 4, 5);
    synth_op(w, m, "FMUL", 7, 1, 2);                     /* a from c[0x0][0x170] */
    lane_addrs(w, s->z, addr);
    synth_mem(w, m, "STG.E", SY_NONE, addr, 2, 4, 7);
    synth_op(w, m, "EXIT", SY_NONE, 0);
}

/* __global__ void saxpy(int n, float a, const float *x, float *y) { ... y[i] = a*x[i] + y[i]; } */
static void saxpy_warp(synth_warp *w, const void *p)
{
    const mu_args *s = p;
    uint64_t addr[32];
    uint32_t m = guard_prologue(w, s->n, 4);
    if (!m)
        return;
    synth_op(w, m, "HFMA2.MMA", 5, 2, SY_RZ, SY_RZ);
    synth_op(w, m, "ULDC.64", SY_NONE, 0);
    synth_op(w, m, "IMAD.WIDE", 2, 2, 4, 5);
    synth_op(w, m, "IMAD.WIDE", 4, 2, 4, 5);
    lane_addrs(w, s->x, addr);
    synth_mem(w, m, "LDG.E", 2, addr, 1, 2);
    lane_addrs(w, s->y, addr);
    synth_mem(w, m, "LDG.E", 7, addr, 1, 4);
    synth_op(w, m, "FFMA", 7, 2, 2, 7);
    synth_mem(w, m, "STG.E", SY_NONE, addr, 2, 4, 7);
    synth_op(w, m, "EXIT", SY_NONE, 0);
}

/* __global__ void combine(const float *a, const float *b, float *c, int n) { c[i] = a[i]+b[i]; } */
static void combine_warp(synth_warp *w, const void *p)
{
    const mu_args *s = p;
    uint64_t addr[32];
    uint32_t m = guard_prologue(w, s->n, 6);
    if (!m)
        return;
    synth_op(w, m, "HFMA2.MMA", 7, 2, SY_RZ, SY_RZ);
    synth_op(w, m, "ULDC.64", SY_NONE, 0);
    synth_op(w, m, "IMAD.WIDE", 2, 2, 6, 7);
    synth_op(w, m, "IMAD.WIDE", 4, 2, 6, 7);
    lane_addrs(w, s->x, addr);
    synth_mem(w, m, "LDG.E", 2, addr, 1, 2);
    lane_addrs(w, s->y, addr);
    synth_mem(w, m, "LDG.E", 5, addr, 1, 4);
    synth_op(w, m, "IMAD.WIDE", 6, 2, 6, 7);
    synth_op(w, m, "FADD", 9, 2, 2, 5);
    lane_addrs(w, s->z, addr);
    synth_mem(w, m, "STG.E", SY_NONE, addr, 2, 6, 9);
    synth_op(w, m, "EXIT", SY_NONE, 0);
}

static int multi_launch(synth_gen *g, const char *name, uint64_t stream,
                        void (*warp)(synth_warp *, const void *), const mu_args *a, base_err *e)
{
    return synth_launch_1d(g, name, a->n, 10, stream, warp, a, e);
}

/* Host program, in issue order (kernel j of each stream reads what kernel j-1 wrote):
 *   cudaMemcpyAsync(xa, sA); scale<<<.., sA>>>(xa, a1);
 *   cudaMemcpyAsync(xb, sB); cudaMemcpyAsync(yb, sB); saxpy<<<.., sB>>>(xb, yb);
 *   for j = 2..K: scale<<<.., sA>>>(a[j-1], a[j]); saxpy<<<.., sB>>>(xb, yb);
 *   combine<<<..>>>(a[K], yb, out);   // legacy default stream: waits for both */
static int multi_emit(synth_gen *g, base_err *e)
{
    uint64_t n = (uint64_t)synth_p(g, "n"), K = (uint64_t)synth_p(g, "kernels"), a[17];
    for (uint64_t j = 0; j <= K; j++)
        a[j] = synth_malloc(g, n * 4);
    uint64_t xb = synth_malloc(g, n * 4), yb = synth_malloc(g, n * 4);
    uint64_t out = synth_malloc(g, n * 4);
    mu_args sa = {a[0], 0, a[1], n}, sb = {xb, yb, yb, n}, c = {a[K], yb, out, n};
    synth_memcpy(g, a[0], n * 4);
    if (multi_launch(g, "_Z5scalePKfPffi", MULTI_STREAM_A, scale_warp, &sa, e) != 0)
        return -1;
    synth_memcpy(g, xb, n * 4);
    synth_memcpy(g, yb, n * 4);
    if (multi_launch(g, "_Z5saxpyifPKfPf", MULTI_STREAM_B, saxpy_warp, &sb, e) != 0)
        return -1;
    for (uint64_t j = 2; j <= K; j++) {
        sa.x = a[j - 1];
        sa.z = a[j];
        if (multi_launch(g, "_Z5scalePKfPffi", MULTI_STREAM_A, scale_warp, &sa, e) != 0 ||
            multi_launch(g, "_Z5saxpyifPKfPf", MULTI_STREAM_B, saxpy_warp, &sb, e) != 0)
            return -1;
    }
    return multi_launch(g, "_Z7combinePKfS0_Pfi", 0, combine_warp, &c, e);
}

static const synth_param_def MULTI_P[] = {
    {"n", 16384, 1, 1 << 24, "elements per vector"},
    {"block", 256, 32, 1024, "threads per block"},
    {"kernels", 2, 1, 16, "dependent kernels per stream (plus one joining kernel)"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_multi = {
    "multi", "kernels on two CUDA streams with copies between them, joined on the default stream",
    MULTI_P, multi_emit,
};
