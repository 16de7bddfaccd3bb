/* Internal to src/macsim: one pass over a whole trace, shared by info/check and convert. */
#ifndef LOCKSTEP_MACSIM_INT_H
#define LOCKSTEP_MACSIM_INT_H

#include "macsim.h"
#include "../stat/stat.h"

/* Opcode names of a type in decoded numbering (NULL for a64, which has no named enum). */
const char *const *macsim_opcode_names(macsim_type t, unsigned *n);

/* A kernel (GPU) or a thread (CPU) and its counts. */
typedef struct macsim_unit {
    stat_block b;
    uint64_t min_pc;        /* GPU: lowest instruction address (converted PCs start at 0) */
    uint64_t shmem_end;     /* GPU: one past the highest shared-memory byte touched */
    base_buf *kept;         /* GPU, macsim_run_trace_keep: each warp file's records (by
                             * index in warp_ids), s NULL where not kept */
} macsim_unit;

/* Holds the stat set its blocks point to: do not copy a run after macsim_run_trace. */
typedef struct macsim_run {
    macsim_trace t;
    stat_desc descs[16];
    stat_set set;
    stat_block total;
    macsim_unit *u;         /* t.nkernels kernels or t.nthreads threads */
    size_t nu;
    size_t keep_left;       /* bytes of records macsim_run_trace_keep may still keep */
} macsim_run;

/* Opens the trace and reads every record. On error the run still needs macsim_run_free. */
int macsim_run_trace(macsim_run *r, const char *path, const macsim_opts *o, base_err *e);
/* The same, also keeping the decompressed records of GPU warp files, up to `budget` bytes in
 * all (those past it are not kept): a converter's second pass reads them from memory. */
int macsim_run_trace_keep(macsim_run *r, const char *path, const macsim_opts *o, size_t budget,
                          base_err *e);
void macsim_run_free(macsim_run *r);
void macsim_run_summary(const macsim_run *r, macsim_summary *s);

#endif
