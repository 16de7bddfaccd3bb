/* Tests of the shared-memory synth workloads (src/synth/k_shared.c): reduce, sgemm-tiled,
 * stencil2d, hmma. Every expected number is arithmetic on the parameters, written next to it. */
#include <stdlib.h>
#include <string.h>

#include "synth_util.h"
#include "test.h"
#include "trace/trace.h"

/* Generates, runs trace_check on the result and profiles kernel k. NULL after a failure. */
static const char *gen_prof(const char *name, const char *params, int k, const char *prefix,
                            synth_result *r, sy_prof *p)
{
    const char *dir = sy_gen(name, params, 0, r);
    if (!dir)
        return NULL;
    base_err e = {0};
    if (trace_check(dir, NULL, &e) != 0) {
        test_fail_at(__FILE__, __LINE__, "trace check %s %s: %s", name, params, e.msg);
        return NULL;
    }
    return sy_profile(dir, k, prefix, p) == 0 ? dir : NULL;
}

/* Parameters inside their ranges that the workload still refuses, with a message naming why. */
static void check_rejects(const char *name, const char *params, const char *msg)
{
    synth_values sv;
    synth_values_init(&sv, synth_find(name));
    base_err e = {0};
    char buf[200];
    snprintf(buf, sizeof buf, "%s", params);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        *eq = 0;
        CHECK(synth_values_set(&sv, tok, eq + 1, &e) == 0);
    }
    char dir[600];
    snprintf(dir, sizeof dir, "%s/rejected", test_tmpdir());
    CHECK(synth_write(&sv, dir, 0, NULL, &e) != 0);
    CHECK_HAS(e.msg, msg);
}

/* Bank-conflict degree of one shared access: the most distinct 4-byte words any of the 32
 * banks (bank = word % 32) must deliver. A lane of width w bytes touches w/4 words. */
static unsigned bank_degree(const uint64_t *addr, unsigned lanes, unsigned width)
{
    uint64_t words[32 * 4];
    unsigned n = 0, worst = 0;
    for (unsigned l = 0; l < lanes; l++)
        for (unsigned j = 0; j < width / 4; j++) {
            uint64_t wd = addr[l] / 4 + j;
            int seen = 0;
            for (unsigned i = 0; i < n; i++)
                seen |= words[i] == wd;
            if (!seen)
                words[n++] = wd;
        }
    for (unsigned b = 0; b < 32; b++) {
        unsigned c = 0;
        for (unsigned i = 0; i < n; i++)
            c += words[i] % 32 == b;
        worst = c > worst ? c : worst;
    }
    return worst;
}

/* ---- reduce ---- */

/* Warp instructions of one CTA, read off the SASS in k_shared.c: prologue (10 for reduce2,
 * 17 with the first add), 7 to store and enter the loop, 8 per loop step plus the body (4
 * with a register sum, 5 for reduce2) in warps that have a lane with tid < s, 2 for the exit
 * test, 3 for warp 0's store (+1 LDS for reduce2); reduce4 adds 4 per warp plus 12 in warp 0
 * (LDS, FADD, 5 x SHFL.DOWN + FADD) and stops the loop at s > 32. */
static uint64_t reduce_cta_insts(uint32_t block, int first_add, int unroll)
{
    int msum = first_add || unroll;
    uint64_t total = 0;
    for (uint32_t w = 0; w < block / 32; w++) {
        uint64_t n = (first_add ? 17 : 10) + 7 + 2;
        for (uint32_t s = block / 2; s > (unroll ? 32u : 0u); s /= 2)
            n += 8 + (w * 32 < s ? (msum ? 4 : 5) : 0);
        if (unroll)
            n += 4 + (w == 0 ? 12 : 0);
        if (w == 0)
            n += 3 + !msum;
        total += n;
    }
    return total;
}

TEST(synth_reduce_counts)
{
    synth_result r;
    sy_prof p;
    /* n = 379, block 64, two elements per thread: ceil(379 / 128) = 3 CTAs of 2 warps */
    if (!gen_prof("reduce", "n=379 block=64 first_add=1", 1, "LDS", &r, &p))
        return;
    CHECK_EQ(p.ctas, 3);
    CHECK_EQ(p.warps, 6);
    /* warp 0: 17 + 7 + 6 * 12 + 2 + 3 = 101, warp 1 never has tid < s: 17 + 7 + 6 * 8 + 2 = 74 */
    CHECK_EQ(reduce_cta_insts(64, 1, 0), 175);
    CHECK_EQ(p.warp_insts, 3 * 175);
    CHECK_EQ(r.warp_insts, 3 * 175);
    CHECK_EQ(r.thread_insts, p.thread_insts);
    /* log2(64) + 1 = 7 barriers in every warp */
    CHECK_EQ(sy_count(&p, "BAR.SYNC"), 7 * 6);
    /* every element is loaded exactly once: 379 lanes over both LDGs */
    CHECK_EQ(sy_find(&p, "LDG.E", 0)->threads + sy_find(&p, "LDG.E", 1)->threads, 379);
    /* one partial sum per CTA, written by one lane */
    CHECK_EQ(sy_count(&p, "STG"), 3);
    CHECK_EQ(sy_find(&p, "STG", 0)->threads, 3);
    /* the loop LDS: s = 32, 16, ..., 1 lanes per CTA, sum 63 = block - 1 */
    const sy_pc *lds = sy_find(&p, "LDS", 0);
    CHECK_EQ(lds->threads, 3 * 63);
    CHECK_EQ(lds->execs, 3 * 6);
    /* active lanes halve: CTA 0 reads sdata[tid + s] for tid < s, s = 32 .. 1 */
    size_t at = 0;
    for (uint32_t s = 32; s > 0; s /= 2)
        for (uint32_t t = 0; t < s; t++, at++)
            CHECK_EQ(p.addrs[at], (t + s) * 4);
    sy_prof_free(&p);
}

TEST(synth_reduce_variants)
{
    synth_result r;
    sy_prof p;
    /* reduce2: n = 1000, block 128: ceil(1000 / 128) = 8 CTAs of 4 warps */
    if (gen_prof("reduce", "n=1000 block=128 first_add=0", 1, "LDS", &r, &p)) {
        CHECK_EQ(p.ctas, 8);
        CHECK_STR(p.name, "_Z7reduce2IfEvPT_S1_j");
        CHECK_EQ(p.shmem, 128 * 4);
        CHECK_EQ(p.warp_insts, 8 * reduce_cta_insts(128, 0, 0));
        CHECK_EQ(sy_count(&p, "BAR.SYNC"), 8 * 4 * (7 + 1));
        /* two LDS per active lane and step (127 per CTA), plus thread 0's sdata[0] */
        CHECK_EQ(sy_find(&p, "LDS", 0)->threads + sy_find(&p, "LDS", 1)->threads, 2 * 8 * 127);
        CHECK_EQ(sy_find(&p, "LDS", 2)->threads, 8);
        CHECK_EQ(sy_find(&p, "LDG.E", 0)->threads, 1000);
        sy_prof_free(&p);
    }
    /* reduce4: block 256, n = 4096 with the first add: 8 CTAs of 8 warps */
    if (gen_prof("reduce", "n=4096 block=256 unroll_last_warp=1", 1, NULL, &r, &p)) {
        CHECK_EQ(p.ctas, 8);
        CHECK_STR(p.name, "_Z7reduce4IfLj256EEvPT_S1_j");
        CHECK_EQ(p.warp_insts, 8 * reduce_cta_insts(256, 1, 1));
        /* 1 + (log2(256) - 6) barriers: s = 128, 64 in shared memory */
        CHECK_EQ(sy_count(&p, "BAR.SYNC"), 8 * 8 * 3);
        /* warp 0 of each CTA: offsets 16, 8, 4, 2, 1 with full masks */
        CHECK_EQ(sy_count(&p, "SHFL.DOWN"), 8 * 5);
        CHECK_EQ(sy_find(&p, "SHFL.DOWN", 0)->threads, 8 * 32);
        sy_prof_free(&p);
    }
}

TEST(synth_reduce_check_determinism_and_errors)
{
    sy_check_deterministic("reduce", "n=5000 block=128", 0);
    sy_check_deterministic("reduce", "n=5000 block=128 unroll_last_warp=1 first_add=0", 0);
    /* not data dependent: another seed writes the same instructions */
    synth_result a, b;
    if (sy_gen("reduce", "n=3000 seed=1", 0, &a) && sy_gen("reduce", "n=3000 seed=9", 0, &b))
        CHECK_EQ(a.thread_insts, b.thread_insts);
    synth_values sv;
    synth_values_init(&sv, synth_find("reduce"));
    base_err e = {0};
    CHECK(synth_values_set(&sv, "block", "32", &e) != 0);   /* below the range */
    check_rejects("reduce", "block=96", "power of two");
}

/* ---- sgemm-tiled ---- */

TEST(synth_sgemm_counts)
{
    synth_result r;
    sy_prof p;
    /* n = 32, tile 16: 2 x 2 CTAs of 16 x 16 threads (8 warps), 2 k-tiles */
    if (!gen_prof("sgemm-tiled", "n=32 tile=16", 1, NULL, &r, &p))
        return;
    CHECK_EQ(p.ctas, 4);
    CHECK_EQ(p.warps, 32);
    CHECK_EQ(p.shmem, 2 * 16 * 16 * 4);
    /* each of the n^2 threads does n FFMAs: n^3 thread instructions, n^3 / 32 warp ones */
    CHECK_EQ(sy_find(&p, "FFMA", 0) ? sy_count(&p, "FFMA") : 0, 32 * 32 * 32 / 32);
    uint64_t ffma_threads = 0;
    for (size_t i = 0; i < p.n; i++)
        if (strcmp(p.pcs[i].op, "FFMA") == 0)
            ffma_threads += p.pcs[i].threads;
    CHECK_EQ(ffma_threads, 32 * 32 * 32);
    /* two barriers per k-tile per warp; one A and one B element per thread and k-tile */
    CHECK_EQ(sy_count(&p, "BAR.SYNC"), 2 * 2 * 32);
    CHECK_EQ(sy_count(&p, "LDG.E"), 2 * 2 * 32);
    CHECK_EQ(sy_count(&p, "STG.E"), 32);
    /* LDS.128 per 4 k, one LDS per k for Bs[k][tx] */
    CHECK_EQ(sy_count(&p, "LDS.128"), 2 * 4 * 32);
    CHECK_EQ(sy_count(&p, "LDS") - sy_count(&p, "LDS.128"), 2 * 16 * 32);
    /* per warp: 22 prologue + 2 k-tiles * (13 + 4 * 9) + 4 epilogue = 124 */
    CHECK_EQ(p.warp_insts, 32 * 124);
    /* a warp reads two 64-byte row segments of A and of B: 4 sectors in 2 lines */
    const sy_pc *lda = sy_find(&p, "LDG.E", 0);
    CHECK_EQ(lda->sectors_min, 4);
    CHECK_EQ(lda->sectors_max, 4);
    CHECK_EQ(lda->lines, 2 * lda->execs);
    sy_prof_free(&p);
    /* tile 32: one 128-byte row per warp, 4 sectors in 1 line */
    if (gen_prof("sgemm-tiled", "n=64 tile=32", 1, NULL, &r, &p)) {
        CHECK_EQ(p.warps, 4 * 32);
        CHECK_EQ(sy_count(&p, "FFMA"), 64 * 64 * 64 / 32);
        CHECK_EQ(sy_find(&p, "LDG.E", 1)->lines, sy_find(&p, "LDG.E", 1)->execs);
        CHECK_EQ(sy_find(&p, "LDG.E", 1)->sectors_max, 4);
        sy_prof_free(&p);
    }
}

/* Worst bank-conflict degree over the shared accesses of prefix op (full masks: 32 lane
 * addresses per execution), split into A-tile (below bbase) and B-tile ones. */
static void sgemm_degrees(const char *params, const char *op, uint32_t tile, unsigned bwidth,
                          unsigned *da, unsigned *db)
{
    synth_result r;
    sy_prof p;
    *da = *db = 0;
    if (!gen_prof("sgemm-tiled", params, 1, op, &r, &p))
        return;
    uint64_t bbase = (uint64_t)tile * tile * 4;
    for (size_t i = 0; i + 32 <= p.naddrs; i += 32) {
        int is_b = p.addrs[i] >= bbase;
        unsigned width = !strcmp(op, "STS") ? 4 : is_b ? bwidth : 16;
        unsigned d = bank_degree(p.addrs + i, 32, width);
        unsigned *slot = is_b ? db : da;
        *slot = d > *slot ? d : *slot;
    }
    CHECK_EQ(p.naddrs % 32, 0);
    sy_prof_free(&p);
}

TEST(synth_sgemm_bank_conflicts)
{
    unsigned a, b;
    /* conflict-free layout: As[ty][k..k+3] is a broadcast, Bs[k][tx] 32 consecutive words */
    sgemm_degrees("n=64 tile=32", "LDS", 32, 4, &a, &b);
    CHECK_EQ(a, 1);
    CHECK_EQ(b, 1);
    /* transposed B, no padding: Bs[tx][k..k+3] at a 128-byte row stride, 32 lanes per bank */
    sgemm_degrees("n=64 tile=32 conflict=1", "LDS", 32, 16, &a, &b);
    CHECK_EQ(a, 1);
    CHECK_EQ(b, 32);
    sgemm_degrees("n=64 tile=32 conflict=1", "STS", 32, 4, &a, &b);
    CHECK_EQ(b, 32);
    /* tile 16: rows of 64 bytes, odd tx fall 16 banks away and the two ty halves share
     * addresses, so 8 distinct words per bank */
    sgemm_degrees("n=32 tile=16 conflict=1", "LDS", 16, 16, &a, &b);
    CHECK_EQ(b, 8);
    sgemm_degrees("n=32 tile=16 conflict=1", "STS", 16, 4, &a, &b);
    CHECK_EQ(b, 8);
    /* one column of padding: row stride 33 (17) words spreads the lanes over all banks */
    sgemm_degrees("n=64 tile=32 conflict=1 pad=1", "LDS", 32, 4, &a, &b);
    CHECK_EQ(b, 1);
    sgemm_degrees("n=64 tile=32 conflict=1 pad=1", "STS", 32, 4, &a, &b);
    CHECK_EQ(b, 1);
    sgemm_degrees("n=32 tile=16 conflict=1 pad=1", "LDS", 16, 4, &a, &b);
    CHECK_EQ(b, 1);
}

TEST(synth_sgemm_check_determinism_and_errors)
{
    sy_check_deterministic("sgemm-tiled", "n=32 tile=16 conflict=1", 0);
    check_rejects("sgemm-tiled", "n=40", "not a multiple");
    check_rejects("sgemm-tiled", "tile=24", "16 or 32");
}

/* ---- stencil2d ---- */

static uint64_t distinct_lines(const sy_prof *p)
{
    uint64_t *l = malloc(p->naddrs * sizeof *l), d = 0;
    for (size_t i = 0; i < p->naddrs; i++)
        l[i] = p->addrs[i] >> 7;
    for (size_t i = 0; i < p->naddrs; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = l[j] == l[i];
        d += !seen;
    }
    free(l);
    return d;
}

static uint64_t sum_field(const sy_prof *p, const char *op, int lines)
{
    uint64_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (strncmp(p->pcs[i].op, op, strlen(op)) == 0)
            n += lines ? p->pcs[i].lines : p->pcs[i].threads;
    return n;
}

TEST(synth_stencil_global)
{
    synth_result r;
    sy_prof p;
    /* 64 x 8 grid, 32 x 8 blocks: 2 CTAs, each warp one row; interior 62 * 6 = 372 points */
    if (!gen_prof("stencil2d", "nx=64 ny=8", 1, "LDG", &r, &p))
        return;
    CHECK_EQ(p.ctas, 2);
    CHECK_EQ(p.warps, 16);
    CHECK_EQ(sum_field(&p, "LDG", 0), 5 * 372);        /* 5 loads per interior point */
    CHECK_EQ(sy_count(&p, "LDG"), 5 * 12);              /* 12 warps hold interior rows */
    CHECK_EQ(sum_field(&p, "STG", 0), 372);
    /* boundary lanes leave at the guard: 512 threads - 372 */
    CHECK_EQ(sy_find(&p, "EXIT", 0)->threads, 512 - 372);
    CHECK_EQ(sum_field(&p, "EXIT", 0), 512);            /* every thread exits once */
    /* line accesses per interior row: 6 in each CTA (the +-1 neighbours cross one 128-byte
     * boundary per row: right in CTA 0, left in CTA 1) -> 12 * 6 rows = 72; distinct lines:
     * the whole 2048-byte grid = 16, reuse 72 / 16 = 4.5 */
    CHECK_EQ(sum_field(&p, "LDG", 1), 72);
    CHECK_EQ(distinct_lines(&p), 16);
    sy_prof_free(&p);
    if (gen_prof("stencil2d", "nx=64 ny=8 points=9", 1, NULL, &r, &p)) {
        CHECK_EQ(sum_field(&p, "LDG", 0), 9 * 372);
        CHECK_EQ(sum_field(&p, "FADD", 0), 8 * 372);
        sy_prof_free(&p);
    }
}

TEST(synth_stencil_smem)
{
    synth_result r;
    sy_prof p;
    /* 64 x 16 grid, 32 x 8 tiles: 2 x 2 CTAs, interior 62 * 14 = 868. Loads: every point once
     * (1024), plus halo columns between the 2 CTA columns (left and right: 2 * 16) and rows
     * between the 2 CTA rows (up and down: 2 * 64) */
    if (!gen_prof("stencil2d", "nx=64 ny=16 smem=1", 1, NULL, &r, &p))
        return;
    CHECK_EQ(p.ctas, 4);
    CHECK_EQ(p.shmem, 34 * 10 * 4);
    CHECK_EQ(sum_field(&p, "LDG", 0), 1024 + 2 * 16 + 2 * 64);
    CHECK_EQ(sum_field(&p, "STS", 0), 1024 + 2 * 16 + 2 * 64);
    CHECK_EQ(sum_field(&p, "LDS", 0), 5 * 868);
    CHECK_EQ(sy_count(&p, "BAR.SYNC"), 32);             /* one per warp */
    CHECK_EQ(sum_field(&p, "STG", 0), 868);
    sy_prof_free(&p);
    /* 9 points add one corner per inner CTA corner and direction: 4 * (2-1) * (2-1) */
    if (gen_prof("stencil2d", "nx=64 ny=16 smem=1 points=9", 1, NULL, &r, &p)) {
        CHECK_EQ(sum_field(&p, "LDG", 0), 1024 + 2 * 16 + 2 * 64 + 4);
        CHECK_EQ(sum_field(&p, "LDS", 0), 9 * 868);
        sy_prof_free(&p);
    }
    /* partial tiles: 50 x 20 with 16 x 16 blocks -> 4 x 2 CTAs, lanes past the grid idle */
    if (gen_prof("stencil2d", "nx=50 ny=20 bx=16 by=16 smem=1", 1, NULL, &r, &p)) {
        CHECK_EQ(p.ctas, 8);
        CHECK_EQ(sum_field(&p, "STG", 0), 48 * 18);
        CHECK_EQ(sy_find(&p, "LDG", 0)->threads, 50 * 20);
        sy_prof_free(&p);
    }
}

TEST(synth_stencil_iters)
{
    synth_result r;
    sy_prof k1, k2;
    const char *dir = gen_prof("stencil2d", "nx=64 ny=8 iters=3", 1, "STG", &r, &k1);
    if (!dir)
        return;
    CHECK_EQ(r.kernels, 3);
    /* sweep 2 reads what sweep 1 wrote: its first read, in[1] (row 0, as the up neighbour),
     * sits one row below sweep 1's first write, out[nx + 1] */
    if (sy_profile(dir, 2, "LDG", &k2) == 0) {
        uint64_t ld = UINT64_MAX, st = UINT64_MAX;
        for (size_t i = 0; i < k2.naddrs; i++)
            ld = k2.addrs[i] < ld ? k2.addrs[i] : ld;
        for (size_t i = 0; i < k1.naddrs; i++)
            st = k1.addrs[i] < st ? k1.addrs[i] : st;
        CHECK_EQ(ld + 64 * 4, st);
        sy_prof_free(&k2);
    }
    sy_prof_free(&k1);
    sy_check_deterministic("stencil2d", "nx=64 ny=16 smem=1 points=9", 0);
    check_rejects("stencil2d", "points=7", "5 or 9");
    check_rejects("stencil2d", "bx=64 by=32", "1024 threads");
}

/* ---- hmma ---- */

/* DEPBAR immediates found in the kernel file: all equal to want (and at least one). */
static void check_depbar(const char *dir, int want)
{
    char path[600];
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    size_t n;
    char *s = test_read_file(path, &n);
    CHECK(s != NULL);
    if (!s)
        return;
    int found = 0;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strstr(line, " DEPBAR.LE "))
            continue;
        char *end = line + strlen(line);
        while (end > line && end[-1] == ' ')
            *--end = 0;
        char *last = strrchr(line, ' ');
        CHECK_EQ(atoi(last ? last + 1 : line), want);
        found++;
    }
    CHECK(found > 0);
    free(s);
}

TEST(synth_hmma_counts)
{
    synth_result r;
    sy_prof p;
    /* m = n = k = 64, 4 warps (2 x 2 warp tiles of 32 x 32): 1 CTA, KT = 2, 3 stages */
    const char *dir = gen_prof("hmma", "m=64 n=64 k=64 warps=4 stages=3", 1, NULL, &r, &p);
    if (!dir)
        return;
    CHECK_EQ(p.ctas, 1);
    CHECK_EQ(p.warps, 4);
    /* (m/16) * (n/8) * (k/16) = 4 * 8 * 4 mma tiles, every HMMA with a full mask */
    CHECK_EQ(sy_count(&p, "HMMA.16816.F32"), 128);
    CHECK_EQ(sum_field(&p, "HMMA", 0), 128 * 32);
    /* LDGSTS moves A and B once: (64*64 + 64*64) halves * 2 bytes = 16 KiB in 16-byte lanes;
     * each warp copy reads 512 contiguous-by-row bytes = 16 sectors */
    CHECK_EQ(sum_field(&p, "LDGSTS", 0) * 16, (64 * 64 + 64 * 64) * 2);
    const sy_pc *cp = sy_find(&p, "LDGSTS", 0);
    CHECK_EQ(cp->sectors_max, 16);
    uint64_t sectors = 0;
    for (size_t i = 0; i < p.n; i++)
        if (strncmp(p.pcs[i].op, "LDGSTS", 6) == 0)
            sectors += p.pcs[i].sectors;
    CHECK_EQ(sectors, sum_field(&p, "LDGSTS", 0) / 32 * 16);
    /* one commit per prologue stage (S - 1 = 2) and per k-tile (2), per warp */
    CHECK_EQ(sy_count(&p, "LDGDEPBAR"), 4 * 4);
    CHECK_EQ(sy_count(&p, "DEPBAR.LE"), 2 * 4);
    CHECK_EQ(sy_count(&p, "BAR.SYNC"), 2 * 4);
    /* per k-tile and warp: 2 k16 steps x (2 A + 2 B) ldmatrix */
    CHECK_EQ(sy_count(&p, "LDSM.16.M88.4"), 2 * 4 * 4);
    CHECK_EQ(sy_count(&p, "LDSM.16.MT88.4"), 2 * 4 * 4);
    /* C as float2: m * n / 2 lane stores, 4 * 16 warp stores of 8 sectors each */
    CHECK_EQ(sum_field(&p, "STG.E.64", 0), 64 * 64 / 2);
    CHECK_EQ(sy_find(&p, "STG.E.64", 0)->sectors_max, 8);
    CHECK_EQ(p.shmem, 3 * (64 * 80 + 32 * 144));
    CHECK_STR(p.name, "_Z9hmma_gemmILi2ELi2ELi3EEvPK6__halfS2_Pfiii");
    check_depbar(dir, 1);
    sy_prof_free(&p);
}

TEST(synth_hmma_shapes)
{
    synth_result r;
    sy_prof p;
    /* 1 warp, 2 stages: 64 x 32 output in 2 x 1 CTAs, k = 96 (KT = 3) */
    const char *dir = gen_prof("hmma", "m=64 n=32 k=96 warps=1 stages=2", 1, NULL, &r, &p);
    if (dir) {
        CHECK_EQ(p.ctas, 2);
        CHECK_EQ(sy_count(&p, "HMMA"), (64 / 16) * (32 / 8) * (96 / 16));
        CHECK_EQ(sum_field(&p, "LDGSTS", 0) * 16, (2 * 32 * 96 + 2 * 96 * 32) * 2);
        check_depbar(dir, 0);
        sy_prof_free(&p);
    }
    /* 8 warps (4 x 2), 4 stages would need 58 KiB of static shared memory: refused; 2 fit */
    dir = gen_prof("hmma", "m=128 n=128 k=64 warps=8 stages=2", 1, NULL, &r, &p);
    if (dir) {
        CHECK_EQ(p.ctas, 2);
        CHECK_EQ(sy_count(&p, "HMMA"), (128 / 16) * (128 / 8) * (64 / 16));
        CHECK_EQ(sum_field(&p, "HMMA", 0), sy_count(&p, "HMMA") * 32);
        sy_prof_free(&p);
    }
    dir = gen_prof("hmma", "m=64 n=64 k=256 warps=4 stages=4", 1, NULL, &r, &p);
    if (dir) {
        check_depbar(dir, 2);
        CHECK_EQ(sy_count(&p, "LDGDEPBAR"), 4 * (3 + 8));
        sy_prof_free(&p);
    }
    check_rejects("hmma", "warps=8 stages=4", "48 KiB");
    check_rejects("hmma", "m=48", "multiples");
    check_rejects("hmma", "warps=3", "1, 2, 4 or 8");
    sy_check_deterministic("hmma", "m=64 n=64 k=64", 0);
}
