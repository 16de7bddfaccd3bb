/* Test helpers for synth workloads: generate into a temporary directory, then profile the
 * trace per static instruction (PC) through the Accel-Sim reader, so tests check properties a
 * user can compute by hand (counts, sectors per access, footprints) on what was written. */
#ifndef LOCKSTEP_TEST_SYNTH_UTIL_H
#define LOCKSTEP_TEST_SYNTH_UTIL_H

#include <stdint.h>

#include "synth/synth.h"

/* Generates workload `name` with "k=v k=v" parameters (may be "") into a new directory under
 * test_tmpdir(). Returns the directory (static buffer, valid until the next call) or NULL after
 * recording a test failure. */
const char *sy_gen(const char *name, const char *params, int xz, synth_result *r);

typedef struct sy_pc {
    uint64_t pc;
    char op[64];
    uint64_t execs;          /* warp executions */
    uint64_t threads;        /* active lanes summed */
    uint64_t sectors;        /* distinct 32-byte sectors per execution, summed */
    uint64_t sectors_min, sectors_max;
    uint64_t lines;          /* distinct 128-byte lines per execution, summed */
} sy_pc;

typedef struct sy_prof {
    sy_pc *pcs;              /* by first appearance */
    size_t n;
    uint64_t ctas, warps, warp_insts, thread_insts;
    uint64_t *addrs;         /* every active lane address of memory instructions whose opcode
                                starts with the profile's addr_prefix (if given) */
    size_t naddrs;
    char name[256];          /* kernel name */
    uint32_t grid[3], block[3];
    uint64_t shmem;
} sy_prof;

/* Profiles kernel k (1-based) of trace directory dir. addr_prefix: collect addresses of opcodes
 * starting with it (NULL: none). 0, or -1 after recording a failure. */
int sy_profile(const char *dir, int k, const char *addr_prefix, sy_prof *p);
void sy_prof_free(sy_prof *p);
/* The n-th (0-based) static instruction whose opcode starts with prefix, or NULL. */
const sy_pc *sy_find(const sy_prof *p, const char *prefix, int nth);
/* Sum of execs over static instructions whose opcode starts with prefix. */
uint64_t sy_count(const sy_prof *p, const char *prefix);
/* Generates twice with the same parameters: kernelslist.g and every kernel file must be
 * byte-identical. seeded: a third run with another seed must change kernel-1.traceg. */
void sy_check_deterministic(const char *name, const char *params, int seeded);

/* Number of distinct values among p->addrs (sorts them). */
uint64_t sy_distinct_addrs(sy_prof *p);

#endif
