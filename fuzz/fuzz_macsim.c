/* libFuzzer target for the MacSim record decoders: the first byte picks the format (ptx v1.4,
 * newptx v1.31, ptx with 32-bit address slots, nvbit, x86, a64), the rest is one warp's or
 * thread's decompressed record stream; with the first byte's top bit set, the rest is a
 * record file as stored (gzip or plain), written to a file and read through macsim_stream
 * (the whole-file path for a small gzip member, zlib's reader for the rest). Every input must
 * decode to its end or stop at one error message: never a crash, a leak, a hang or a read
 * outside the buffer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static char path[64];

static void remove_file(void) { remove(path); }

/* The records of a stored file, through the reader the simulator uses. */
static void file_stream(const macsim_fmt *f, const uint8_t *d, size_t n)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fuzz_macsim.%ld.raw", (long)getpid());
        atexit(remove_file);
    }
    FILE *o = fopen(path, "wb");
    if (!o)
        return;
    size_t w = fwrite(d, 1, n, o);
    if (fclose(o) != 0 || w != n)
        return;
    base_err e = {0};
    macsim_stream *s = macsim_stream_open(path, f, NULL, &e);
    if (!s)
        return;
    macsim_ginst g;
    macsim_cinst c;
    int k;
    long recs = 0;
    while ((k = macsim_type_is_gpu(f->type) ? macsim_stream_gpu(s, &g, &e)
                                             : macsim_stream_cpu(s, &c, &e)) == 1)
        recs++;
    if (k < 0 && !e.msg[0])
        abort(); /* an error must say what it is */
    macsim_stream_close(s);
    (void)recs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const macsim_fmt *f = &FORMATS[(data[0] & 0x7f) % (sizeof FORMATS / sizeof FORMATS[0])];
    if (data[0] & 0x80) {
        file_stream(f, data + 1, size - 1);
        return 0;
    }
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
