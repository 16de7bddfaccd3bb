/* Test helpers for whole-simulation tests: hand-built one-kernel traces and runs. */
#ifndef LOCKSTEP_TEST_SIM_UTIL_H
#define LOCKSTEP_TEST_SIM_UTIL_H
#include "knob/knob.h"
#include "sim/sim.h"
#include "trace/write.h"

/* A kernel being built: ctas x warps, each warp a list of lines. */
typedef struct su_kernel {
    base_buf text[64];      /* per warp of the CTA being built */
    uint64_t n[64];
    uint32_t warps, threads;
    uint32_t ctas;
    trace_wdir *d;
    char dir[256];
} su_kernel;

/* Knobs for timing tests: RTX 3070 defaults, no launch latency, watchdog on. */
void su_knobs(knob_cfg *c);
/* Starts a trace in a fresh temporary directory: one kernel of `ctas` CTAs (added with
 * su_cta_begin/su_cta_end) of `threads` threads. */
void su_begin(su_kernel *k, const char *tag, uint32_t ctas, uint32_t threads, uint64_t shmem);
void su_cta_begin(su_kernel *k);
/* Ends the current kernel and starts another (same directory) on CUDA stream `stream`. */
void su_next_kernel(su_kernel *k, uint32_t ctas, uint32_t threads, uint64_t stream);
/* Appends one line to warp w of the open CTA. dst = -1: none; srcs terminated by -1. */
void su_line(su_kernel *k, uint32_t w, uint32_t mask, int dst, const char *op, const int *srcs,
             uint32_t width, const uint64_t *addr);
void su_alu(su_kernel *k, uint32_t w, const char *op, int dst, int s1, int s2);
void su_exit(su_kernel *k, uint32_t w);
void su_cta_end(su_kernel *k);
/* Finishes the trace (optionally a memcpy before the kernel is not supported here). */
void su_end(su_kernel *k);
/* Runs it; returns 0 and fills r, or -1 with e. */
int su_run(const char *dir, const knob_cfg *c, sim_result *r, base_err *e);
/* Counter of the whole run: set "sm", "l1d", "l2", "dram"; name. */
uint64_t su_total(const sim_result *r, const char *set, const char *name);
void su_rmdir(const char *dir);
/* The `threads` entries "I: S/T/N" after "stolen:" in a run's "# team profile: thread: ..."
 * or "# window profile: thread: ..." line, each checked (ids in order, stolen no more than
 * run); the tasks run, summed. */
unsigned long long su_profile_tasks(const char *line, unsigned threads);
/* The value of statistic `name` in a run's text output, its first line (UINT64_MAX: not
 * there). */
uint64_t su_out_stat(const char *out, const char *name);
/* The N of "N cycles fast-forwarded" on a run's "# simulation rate" line, or -1. */
long long su_ff_cycles(const char *out);
#endif
