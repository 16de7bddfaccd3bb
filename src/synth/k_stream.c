/* Streaming workloads: vectoradd (fully coalesced) and saxpy-stride (coalescing degrades with
 * the element stride). SASS follows nvcc 11+ for sm_80 (compare vectoradd_sm80_v5 in
 * ../shared/traces: the same 17-instruction body). */
#include "synth_int.h"

/* Lanes of w whose global index blockIdx.x*blockDim.x+threadIdx.x is below n. */
static uint32_t lanes_below(const synth_warp *w, uint64_t n)
{
    uint32_t m = 0;
    for (unsigned l = 0; l < 32; l++) {
        uint64_t i = (uint64_t)w->ctaid[0] * w->ntid[0] + synth_tid(w, l, 0);
        if ((w->exists >> l & 1) && i < n)
            m |= 1u << l;
    }
    return m;
}

static void lane_addrs(const synth_warp *w, uint64_t base, uint64_t scale, uint64_t *a)
{
    for (unsigned l = 0; l < 32; l++) {
        uint64_t i = (uint64_t)w->ctaid[0] * w->ntid[0] + synth_tid(w, l, 0);
        a[l] = base + i * scale;
    }
}

/* Prologue shared by both kernels: i = blockIdx.x*blockDim.x+threadIdx.x; if (i >= n) exit.
 * Returns the lanes that stay. */
static uint32_t guard_prologue(synth_warp *w, uint64_t n)
{
    uint32_t all = w->exists, in = lanes_below(w, n);
    synth_op(w, all, "MOV", 1, 0);                 /* stack pointer from c[0x0][0x28] */
    synth_op(w, all, "S2R", 6, 0);                 /* SR_CTAID.X */
    synth_op(w, all, "S2R", 3, 0);                 /* SR_TID.X */
    synth_op(w, all, "IMAD", 6, 2, 6, 3);
    synth_op(w, all, "ISETP.GE.AND", SY_NONE, 1, 6);
    synth_op(w, all & ~in, "EXIT", SY_NONE, 0);    /* @P0 EXIT */
    return in;
}

/* ---- vectoradd: C[i] = A[i] + B[i] + 0.0f (the CUDA sample's body) ---- */

typedef struct va_args {
    uint64_t a, b, c, n;
} va_args;

static void vectoradd_warp(synth_warp *w, const void *p)
{
    const va_args *v = p;
    uint64_t addr[32];
    uint32_t m = guard_prologue(w, v->n);
    if (!m)
        return;
    synth_op(w, m, "HFMA2.MMA", 7, 2, SY_RZ, SY_RZ);  /* R7 = 4, the element size */
    synth_op(w, m, "ULDC.64", SY_NONE, 0);
    synth_op(w, m, "IMAD.WIDE", 4, 2, 6, 7);
    synth_op(w, m, "IMAD.WIDE", 2, 2, 6, 7);
    lane_addrs(w, v->b, 4, addr);
    synth_mem(w, m, "LDG.E", 4, addr, 1, 4);
    lane_addrs(w, v->a, 4, addr);
    synth_mem(w, m, "LDG.E", 3, addr, 1, 2);
    synth_op(w, m, "IMAD.WIDE", 6, 2, 6, 7);
    synth_op(w, m, "FADD", 0, 2, 4, 3);
    synth_op(w, m, "FADD", 9, 2, SY_RZ, 0);
    lane_addrs(w, v->c, 4, addr);
    synth_mem(w, m, "STG.E", SY_NONE, addr, 2, 6, 9);
    synth_op(w, m, "EXIT", SY_NONE, 0);
}

static int vectoradd_emit(synth_gen *g, base_err *e)
{
    va_args v;
    uint64_t n = (uint64_t)synth_p(g, "n");
    v.n = n;
    v.a = synth_malloc(g, n * 4);
    v.b = synth_malloc(g, n * 4);
    v.c = synth_malloc(g, n * 4);
    synth_memcpy(g, v.a, n * 4);
    synth_memcpy(g, v.b, n * 4);
    return synth_launch_1d(g, "_Z9vectorAddPKfS0_Pfi", n, 12, 0, vectoradd_warp, &v, e);
}

static const synth_param_def VECTORADD_P[] = {
    {"n", 16384, 1, 1 << 28, "elements per vector"},
    {"block", 256, 32, 1024, "threads per block"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_vectoradd = {
    "vectoradd", "C = A + B: streaming, every access fully coalesced (4 sectors per warp)",
    VECTORADD_P, vectoradd_emit,
};

/* ---- saxpy-stride: y[i*s] = a*x[i*s] + y[i*s] ---- */

typedef struct sx_args {
    uint64_t x, y, n, stride;
} sx_args;

static void saxpy_warp(synth_warp *w, const void *p)
{
    const sx_args *s = p;
    uint64_t addr[32];
    uint32_t m = guard_prologue(w, s->n);
    if (!m)
        return;
    synth_op(w, m, "HFMA2.MMA", 5, 2, SY_RZ, SY_RZ);  /* R5 = 4 */
    synth_op(w, m, "IMAD", 0, 1, 6);                  /* j = i * stride (c[0x0][0x178]) */
    synth_op(w, m, "ULDC.64", SY_NONE, 0);
    synth_op(w, m, "IMAD.WIDE", 2, 2, 0, 5);
    synth_op(w, m, "IMAD.WIDE", 4, 2, 0, 5);
    lane_addrs(w, s->x, 4 * s->stride, addr);
    synth_mem(w, m, "LDG.E", 2, addr, 1, 2);
    lane_addrs(w, s->y, 4 * s->stride, addr);
    synth_mem(w, m, "LDG.E", 7, addr, 1, 4);
    synth_op(w, m, "FFMA", 7, 2, 2, 7);
    synth_mem(w, m, "STG.E", SY_NONE, addr, 2, 4, 7);
    synth_op(w, m, "EXIT", SY_NONE, 0);
}

static int saxpy_emit(synth_gen *g, base_err *e)
{
    sx_args s;
    uint64_t n = (uint64_t)synth_p(g, "n");
    s.n = n;
    s.stride = (uint64_t)synth_p(g, "stride");
    s.x = synth_malloc(g, n * s.stride * 4);
    s.y = synth_malloc(g, n * s.stride * 4);
    synth_memcpy(g, s.x, n * s.stride * 4);
    synth_memcpy(g, s.y, n * s.stride * 4);
    return synth_launch_1d(g, "_Z12saxpy_strideifPKfPfi", n, 10, 0, saxpy_warp, &s, e);
}

static const synth_param_def SAXPY_P[] = {
    {"n", 16384, 1, 1 << 26, "elements updated"},
    {"block", 256, 32, 1024, "threads per block"},
    {"stride", 1, 1, 1024, "element stride: 1, 2, 4, 8, 32 give 4, 8, 16, 32, 32 sectors per warp access"},
    {NULL, 0, 0, 0, NULL},
};

const synth_def synth_saxpy_stride = {
    "saxpy-stride", "y = a*x + y at an element stride: coalescing degrades step by step",
    SAXPY_P, saxpy_emit,
};
