/* libFuzzer target for the MacSim record decoders: the first byte picks the format (ptx v1.4,
 * newptx v1.31, ptx with 32-bit address slots, nvbit, x86, a64), the rest is one warp's or
 * thread's decompressed record stream. Every input must decode to its end or stop at one
 * error message: never a crash, a leak, a hang or a read outside the buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "macsim/macsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const macsim_fmt FORMATS[] = {
    {MACSIM_NEWPTX, 14, 0}, {MACSIM_NEWPTX, 131, 0}, {MACSIM_PTX, 14, 1},
    {MACSIM_NVBIT, 14, 0},  {MACSIM_X86, 0, 0},      {MACSIM_A64, 0, 0},
};

static void gpu_stream(const macsim_fmt *f, const uint8_t *d, size_t n)
{
    macsim_ginst g;
    base_err e = {0};
    uint64_t a[MACSIM_WARP_SIZE];
    char op[64];
    size_t off = 0;
    for (;;) {
        int k = macsim_decode_gpu(f, d + off, n - off, off, "fuzz.raw", &g, &e);
        if (k <= 0)
            break;
        if ((size_t)k > n - off || g.nchild > MACSIM_MAX_CHILDREN ||
            g.opcode >= macsim_opcode_limit(&(macsim_fmt){f->type, 14, 0}))
            abort();
        macsim_lane_addrs(f, &g, a);
        int w = macsim_sass_opcode(f, &g, ISA_AMPERE, op, sizeof op);
        if (w > 0 && w != g.mem_size)
            abort();
        off += (size_t)k;
    }
}

static void cpu_stream(const macsim_fmt *f, const uint8_t *d, size_t n)
{
    macsim_cinst c;
    base_err e = {0};
    size_t off = 0;
    for (;;) {
        int k = macsim_decode_cpu(f, d + off, n - off, off, "fuzz.raw", &c, &e);
        if (k <= 0)
            break;
        if ((size_t)k != MACSIM_CPU_REC || k > (int)(n - off) || c.num_loads > 2)
            abort();
        off += (size_t)k;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const macsim_fmt *f = &FORMATS[data[0] % (sizeof FORMATS / sizeof FORMATS[0])];
    /* A copy of exactly the record bytes, so ASan sees any read past their end. */
    size_t n = size - 1;
    uint8_t *d = malloc(n ? n : 1);
    memcpy(d, data + 1, n);
    if (macsim_type_is_gpu(f->type))
        gpu_stream(f, d, n);
    else
        cpu_stream(f, d, n);
    free(d);
    return 0;
}
