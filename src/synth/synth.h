/* synth: a library of synthetic CUDA workloads written as Accel-Sim trace directories.
 *
 * Each workload is a const ops table (synth_def) found by name in a registry. Its emit
 * function allocates device buffers, records MemcpyHtoD commands and launches kernels; each
 * kernel supplies a per-warp function that walks the kernel's SASS program for one warp and
 * emits the dynamic instruction stream: opcodes, registers, active masks and per-lane addresses
 * as nvcc -arch=sm_80 would produce for the equivalent CUDA code, so the same trace also runs
 * in Accel-Sim. The warp functions compute everything from (parameters, CTA id, warp id), never
 * from emission order, so output is a pure function of the parameters and the seed: equal
 * commands write byte-identical directories.
 *
 * Parameters are per workload: a table of integer parameters (name, default, range, help);
 * every workload also takes "seed". Values accept K/M/G suffixes (powers of 1024). */
#ifndef LOCKSTEP_SYNTH_H
#define LOCKSTEP_SYNTH_H

#include <stdint.h>
#include <stdio.h>

#include "../base/base.h"

typedef struct synth_param_def {
    const char *name;
    int64_t def, min, max;
    const char *help;
} synth_param_def;

typedef struct synth_gen synth_gen;    /* one generation run */
typedef struct synth_warp synth_warp;  /* emission state of one warp */

typedef struct synth_def {
    const char *name;
    const char *summary;               /* one line: what the workload is for */
    const synth_param_def *params;     /* terminated by {NULL}; "seed" is added by synth */
    int (*emit)(synth_gen *g, base_err *e);
} synth_def;

/* ---- registry ---- */
size_t synth_count(void);
const synth_def *synth_at(size_t i);
const synth_def *synth_find(const char *name);

/* ---- running a workload ---- */

#define SYNTH_MAX_PARAMS 16

typedef struct synth_values {
    const synth_def *def;
    int64_t v[SYNTH_MAX_PARAMS];      /* per entry of def->params, then seed */
    int set[SYNTH_MAX_PARAMS];        /* 1: given by the user */
} synth_values;

/* Defaults of every parameter. */
void synth_values_init(synth_values *sv, const synth_def *d);
/* Sets one parameter from text ("4096", "64K", "0x100"); error names the parameter, its range
 * and, for an unknown name, the closest ones. */
int synth_values_set(synth_values *sv, const char *name, const char *text, base_err *e);
/* Number of parameters including seed, and the name/value of the i-th. */
size_t synth_values_count(const synth_values *sv);
const char *synth_values_name(const synth_values *sv, size_t i);

typedef struct synth_result {
    uint64_t kernels, memcpys, ctas, warps, warp_insts, thread_insts, bytes;
} synth_result;

/* Writes the workload into dir (Accel-Sim layout; xz: kernel files compressed) and a
 * synth.txt that records every parameter value and the command that reproduces it.
 * Nothing is left under a final name on failure. */
int synth_write(const synth_values *sv, const char *dir, int xz, synth_result *r, base_err *e);

/* Prints the workload list, or one workload's parameters, as help text. */
void synth_print_list(FILE *f);
void synth_print_params(FILE *f, const synth_def *d);

#endif
