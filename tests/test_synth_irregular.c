/* synth irregular workloads (k_irregular.c): gather, histogram, branchy, pchase, multi. Every
 * expected number is computed by hand from the parameters, or from synth_hash exactly as the
 * host program would have generated its data. */
#include <stdlib.h>
#include <string.h>

#include "synth/synth_int.h"
#include "synth_util.h"
#include "test.h"
#include "trace/trace.h"

static char *read_in(const char *dir, const char *name, size_t *n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return test_read_file(path, n);
}

static void check_trace(const char *dir)
{
    base_err e = {0};
    CHECK_EQ(trace_check(dir, NULL, &e), 0);
}

/* Address of the k-th (0-based) MemcpyHtoD line of dir's kernelslist.g: the order the
 * workload allocated and copied its inputs. */
static uint64_t memcpy_addr(const char *dir, int k)
{
    size_t n;
    char *s = read_in(dir, "kernelslist.g", &n);
    uint64_t a = 0;
    for (char *l = s ? strtok(s, "\n") : NULL; l; l = strtok(NULL, "\n"))
        if (strncmp(l, "MemcpyHtoD,", 11) == 0 && k-- == 0) {
            a = strtoull(l + 11, NULL, 16);
            break;
        }
    free(s);
    return a;
}

static const sy_pc *pc_at(const sy_prof *p, uint64_t pc)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->pcs[i].pc == pc)
            return &p->pcs[i];
    return NULL;
}

/* ==== gather ==== */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct 32-byte sectors among the 32 gathered addresses of warp w (elements 32w..32w+31). */
static uint64_t gather_sectors(uint64_t in, uint64_t fp, uint64_t seed, uint64_t w)
{
    uint64_t sec[32];
    for (uint64_t l = 0; l < 32; l++)
        sec[l] = (in + 4 * (synth_hash(seed, w * 32 + l) % (fp / 4))) >> 5;
    qsort(sec, 32, sizeof *sec, cmp_u64);
    uint64_t k = 1;
    for (int l = 1; l < 32; l++)
        k += sec[l] != sec[l - 1];
    return k;
}

/* n=4096, block=128: 32 CTAs x 4 full warps = 128 warps of 15 instructions, the predicated-off
 * EXIT has no lanes: 14 * 32 thread instructions per warp. The data load of each warp touches
 * exactly the distinct 32-byte sectors of in + 4 * (hash(seed, i) % (footprint/4)); with an
 * 8 KiB footprint (256 sectors) 32 random lanes share some sectors, so the sum depends on the
 * seed. */
TEST(synth_gather_sectors_and_footprint)
{
    const uint64_t n = 4096, fp = 8192, seed = 7;
    synth_result r;
    const char *dir = sy_gen("gather", "n=4096 block=128 footprint=8K seed=7", 0, &r);
    if (!dir)
        return;
    check_trace(dir);
    CHECK_EQ(r.warps, 128);
    CHECK_EQ(r.warp_insts, 128 * 15);
    CHECK_EQ(r.thread_insts, 128 * 14 * 32);
    uint64_t in = memcpy_addr(dir, 0), idx = memcpy_addr(dir, 1);
    CHECK_EQ(idx - in, fp);                              /* in is footprint bytes, 512-aligned */
    sy_prof p;
    if (sy_profile(dir, 1, "LDG.E.CONSTANT", &p) != 0)
        return;
    const sy_pc *ld_idx = sy_find(&p, "LDG.E.CONSTANT", 0), *ld = sy_find(&p, "LDG.E.CONSTANT", 1);
    CHECK(ld_idx && ld);
    if (ld_idx && ld) {
        CHECK_EQ(ld_idx->sectors, 128 * 4);              /* coalesced: 128 bytes = 4 sectors */
        uint64_t want = 0;
        for (uint64_t w = 0; w < n / 32; w++)
            want += gather_sectors(in, fp, seed, w);
        CHECK_EQ(ld->sectors, want);
        CHECK(want < 128 * 32 && ld->sectors_max <= 32);
    }
    /* the gathered addresses are exactly the host's in + 4*idx[i], all inside [in, in+fp) */
    uint64_t *got = calloc(n, sizeof *got), *exp = calloc(n, sizeof *exp), k = 0, in_idx = 0;
    for (size_t i = 0; i < p.naddrs; i++) {
        if (p.addrs[i] >= in && p.addrs[i] + 4 <= in + fp && k < n)
            got[k++] = p.addrs[i];
        in_idx += p.addrs[i] >= idx && p.addrs[i] < idx + 4 * n;
    }
    for (uint64_t i = 0; i < n; i++)
        exp[i] = in + 4 * (synth_hash(seed, i) % (fp / 4));
    qsort(got, n, sizeof *got, cmp_u64);
    qsort(exp, n, sizeof *exp, cmp_u64);
    CHECK_EQ(k, n);
    CHECK_EQ(in_idx, n);
    CHECK_EQ(k + in_idx, p.naddrs);
    CHECK(memcmp(got, exp, n * sizeof *got) == 0);
    free(got);
    free(exp);
    sy_prof_free(&p);
}

/* The default 64 MiB footprint: 32 random lanes over 2M sectors hardly ever share one, so
 * every warp's gather touches (nearly) 32 sectors, 8x a coalesced access. */
TEST(synth_gather_uncoalesced_at_default_footprint)
{
    const char *dir = sy_gen("gather", "n=2048", 0, NULL);
    sy_prof p;
    if (!dir || sy_profile(dir, 1, NULL, &p) != 0)
        return;
    const sy_pc *ld = sy_find(&p, "LDG.E.CONSTANT", 1);
    CHECK(ld != NULL);
    if (ld) {
        uint64_t want = 0, in = memcpy_addr(dir, 0);
        for (uint64_t w = 0; w < 64; w++)
            want += gather_sectors(in, 64 << 20, 1, w);
        CHECK_EQ(ld->sectors, want);
        CHECK(ld->sectors_min >= 30);
        CHECK_EQ(ld->sectors_max, 32);
    }
    sy_prof_free(&p);
}

/* elem=8: the data load and store become 64-bit (16 instructions per warp with the second
 * HFMA2.MMA constant); indices stay 4 bytes and gathered addresses are 8-byte aligned. */
TEST(synth_gather_double)
{
    synth_result r;
    const char *dir = sy_gen("gather", "n=1000 block=64 footprint=64K elem=8", 0, &r);
    if (!dir)
        return;
    check_trace(dir);
    uint64_t in = memcpy_addr(dir, 0);
    sy_prof p;
    if (sy_profile(dir, 1, "LDG.E.64", &p) != 0)
        return;
    /* 16 CTAs x 2 warps; the last CTA (i = 960..1023) has 40 elements: warp 31 has 8 lanes */
    CHECK_EQ(p.warps, 32);
    CHECK_EQ(sy_count(&p, "LDG.E.64.CONSTANT"), 32);
    CHECK_EQ(sy_count(&p, "STG.E.64"), 32);
    CHECK_EQ(p.naddrs, 1000);
    int ok = 1;
    for (size_t i = 0; i < p.naddrs; i++)
        ok &= p.addrs[i] >= in && p.addrs[i] + 8 <= in + 65536 && (p.addrs[i] - in) % 8 == 0;
    CHECK(ok);
    CHECK_EQ(r.warp_insts, 32 * 16);
    sy_prof_free(&p);
}

TEST(synth_gather_deterministic_and_seeded)
{
    sy_check_deterministic("gather", "n=2048 footprint=4M", 1);
    base_err e = {0};
    synth_values sv;
    synth_values_init(&sv, synth_find("gather"));
    CHECK(synth_values_set(&sv, "elem", "8", &e) == 0);
    CHECK(synth_values_set(&sv, "footprint", "1004", &e) == 0);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/gather-bad", test_tmpdir());
    CHECK(synth_write(&sv, dir, 0, NULL, &e) != 0);      /* footprint not a multiple of 8 */
    CHECK_HAS(e.msg, "multiple of --elem");
}

/* ==== histogram ==== */

static uint32_t bin_of(uint64_t seed, uint64_t i, uint32_t bins, uint32_t skew)
{
    uint64_t h = synth_hash(seed, i);
    return (h >> 32) % 100 < skew ? 0 : (uint32_t)h & (bins - 1);
}

/* n=4096, block=128, grid=4, bins=64: 512 threads, 8 elements each (grid-stride 512).
 * Per CTA: warps 0-1 own the 64 bins (tid < 64), warps 2-3 skip zeroing and merging.
 *   ATOMS: 16 warps x 8 iterations = 128 executions, 4096 lanes = n
 *   STS / LDS / RED: 2 warps x 4 CTAs = 8 executions, 64 x 4 = 256 lanes = bins * CTAs
 *   BAR: 2 per warp = 32 */
TEST(synth_histogram_counts)
{
    const uint64_t n = 4096, seed = 5;
    const char *dir = sy_gen("histogram", "n=4096 block=128 grid=4 bins=64 seed=5", 0, NULL);
    if (!dir)
        return;
    check_trace(dir);
    sy_prof p;
    if (sy_profile(dir, 1, "ATOMS", &p) != 0)
        return;
    CHECK_EQ(p.shmem, 64 * 4);
    const sy_pc *at = sy_find(&p, "ATOMS", 0), *red = sy_find(&p, "RED.E.ADD.STRONG.GPU", 0);
    CHECK(at && red && sy_find(&p, "STS", 0) && sy_find(&p, "LDS", 0));
    if (at && red) {
        CHECK_EQ(at->execs, 128);
        CHECK_EQ(at->threads, n);
        CHECK_EQ(red->execs, 8);
        CHECK_EQ(red->threads, 64 * 4);
        CHECK_EQ(sy_find(&p, "STS", 0)->threads, 64 * 4);
        CHECK_EQ(sy_find(&p, "LDS", 0)->threads, 64 * 4);
    }
    CHECK_EQ(sy_count(&p, "BAR.SYNC"), 32);
    CHECK_EQ(sy_count(&p, "LDG"), 128);
    /* ATOMS carry shared-window offsets 4*bin: the per-bin counts are the host histogram */
    uint64_t want[64] = {0}, got[64] = {0};
    for (uint64_t i = 0; i < n; i++)
        want[bin_of(seed, i, 64, 0)]++;
    int inside = 1;
    for (size_t i = 0; i < p.naddrs; i++) {
        inside &= p.addrs[i] < 64 * 4 && p.addrs[i] % 4 == 0;
        if (p.addrs[i] < 64 * 4)
            got[p.addrs[i] / 4]++;
    }
    CHECK(inside);
    CHECK(memcmp(want, got, sizeof want) == 0);
    sy_prof_free(&p);
    /* RED targets the global histogram (the buffer after data: data is 16K, 512-aligned) */
    if (sy_profile(dir, 1, "RED", &p) != 0)
        return;
    uint64_t hist = memcpy_addr(dir, 0) + n * 4;
    CHECK_EQ(sy_distinct_addrs(&p), 64);
    CHECK_EQ(p.addrs[0], hist);
    CHECK_EQ(p.addrs[p.naddrs - 1], hist + 63 * 4);
    sy_prof_free(&p);
}

/* The decoder's memory spaces for the same run: ATOMS are shared atomics (n lanes), RED global
 * atomics (bins * CTAs lanes), the zeroing STS shared stores, the data loads global. */
TEST(synth_histogram_memory_spaces)
{
    const char *dir = sy_gen("histogram", "n=4096 block=128 grid=4 bins=64 seed=5", 0, NULL);
    if (!dir)
        return;
    char path[600];
    snprintf(path, sizeof path, "%s/histogram-info.txt", test_tmpdir());
    FILE *f = fopen(path, "w");
    base_err e = {0};
    CHECK(f && trace_info(dir, f, 0, &e) == 0);
    if (f)
        fclose(f);
    size_t len;
    char *info = test_read_file(path, &len);
    CHECK_HAS(info, "total.mem_thread[shared_atomic] = 4096\n");
    CHECK_HAS(info, "total.mem_thread[global_atomic] = 256\n");
    CHECK_HAS(info, "total.mem_thread[shared_st] = 256\n");
    CHECK_HAS(info, "total.mem_thread[global_ld] = 4096\n");
    free(info);
}

/* skew=100: every element lands in bin 0, so each ATOMS execution has all its active lanes on
 * one shared address (conflict degree = active lanes = 32, one sector). bins=512 > block=128:
 * each thread zeroes and merges 4 bins, STS runs 4 times per warp. */
TEST(synth_histogram_skew_and_many_bins)
{
    const char *dir =
        sy_gen("histogram", "n=2048 block=128 grid=2 bins=512 skew=100", 0, NULL);
    if (!dir)
        return;
    check_trace(dir);
    sy_prof p;
    if (sy_profile(dir, 1, "ATOMS", &p) != 0)
        return;
    const sy_pc *at = sy_find(&p, "ATOMS", 0);
    CHECK(at != NULL);
    if (at) {
        CHECK_EQ(at->threads, 2048);
        CHECK_EQ(at->threads, 32 * at->execs);          /* full warps, 8 iterations each */
        CHECK_EQ(at->sectors_max, 1);
    }
    CHECK_EQ(sy_distinct_addrs(&p), 1);
    CHECK_EQ(p.addrs[0], 0);
    CHECK_EQ(sy_count(&p, "STS"), 8 * 4);               /* 8 warps x 4 bins per thread */
    CHECK_EQ(sy_find(&p, "RED", 0)->threads, 512 * 2);
    sy_prof_free(&p);
    /* skew=50: about half the lanes conflict; the count is exact from the hash */
    dir = sy_gen("histogram", "n=2048 block=128 grid=2 bins=512 skew=50 seed=9", 0, NULL);
    if (!dir || sy_profile(dir, 1, "ATOMS", &p) != 0)
        return;
    uint64_t zero = 0, want = 0;
    for (size_t i = 0; i < p.naddrs; i++)
        zero += p.addrs[i] == 0;
    for (uint64_t i = 0; i < 2048; i++)
        want += bin_of(9, i, 512, 50) == 0;
    CHECK_EQ(zero, want);
    CHECK(want > 900 && want < 1150);
    sy_prof_free(&p);
}

TEST(synth_histogram_deterministic_and_seeded)
{
    sy_check_deterministic("histogram", "n=4096 grid=4", 1);
    base_err e = {0};
    synth_values sv;
    synth_values_init(&sv, synth_find("histogram"));
    CHECK(synth_values_set(&sv, "bins", "100", &e) == 0);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/histogram-bad", test_tmpdir());
    CHECK(synth_write(&sv, dir, 0, NULL, &e) != 0);
    CHECK_HAS(e.msg, "power of two");
}

/* ==== branchy ==== */

static uint32_t data_of(uint64_t seed, uint64_t i) { return (uint32_t)synth_hash(seed, i); }

/* n=1000, block=128, maxiter=8, threshold=30: 8 CTAs x 4 warps, the last warp has 8 live lanes
 * (i = 992..999). Expected populations, from data[i] = (uint32_t)hash(seed, i):
 *   parity then-side (odd threadIdx.x) = 500 lanes, else-side = 500
 *   data branch: i with data % 100 < 30; nested: those with i % 4 == 0
 *   loop body: per warp max over lanes of (data >> 16) % 8 executions; lanes = sum of trips */
TEST(synth_branchy_path_populations)
{
    const uint64_t n = 1000, seed = 3;
    const char *dir = sy_gen("branchy", "n=1000 block=128 maxiter=8 threshold=30 seed=3", 0, NULL);
    if (!dir)
        return;
    check_trace(dir);
    sy_prof p;
    if (sy_profile(dir, 1, NULL, &p) != 0)
        return;
    const sy_pc *then = sy_find(&p, "I2F.U32", 0), *els = sy_find(&p, "I2F.U32", 1);
    const sy_pc *cmp = sy_find(&p, "ISETP.GE.U32.AND", 0), *loop = sy_find(&p, "IADD3", 0);
    CHECK(then && els && cmp && loop);
    if (!then || !els || !cmp || !loop)
        return;
    CHECK(then->pc < els->pc);
    CHECK_EQ(then->threads, 500);
    CHECK_EQ(els->threads, 500);
    CHECK_EQ(then->execs, 32);
    uint64_t taken = 0, nested = 0, twarps = 0, trips = 0, maxsum = 0;
    for (uint64_t w = 0; w < 32; w++) {
        uint64_t any = 0, mx = 0;
        for (uint64_t i = w * 32; i < w * 32 + 32 && i < n; i++) {
            uint32_t d = data_of(seed, i), t = (d >> 16) % 8;
            if (d % 100 < 30) {
                taken++;
                nested += i % 4 == 0;
                any = 1;
            }
            trips += t;
            mx = t > mx ? t : mx;
        }
        twarps += any;
        maxsum += mx;
    }
    /* data body: BSSY, @P0 BRA, then FMUL 3 instructions after the compare; the nested body
     * (FFMA) follows FMUL LOP3 ISETP BSSY BRA */
    const sy_pc *body = pc_at(&p, cmp->pc + 3 * 16), *inner = pc_at(&p, cmp->pc + 8 * 16);
    CHECK(body && inner);
    if (body && inner) {
        CHECK_STR(body->op, "FMUL");
        CHECK_EQ(body->threads, taken);
        CHECK_EQ(body->execs, twarps);
        CHECK_STR(inner->op, "FFMA");
        CHECK_EQ(inner->threads, nested);
    }
    CHECK_EQ(loop->execs, maxsum);
    CHECK_EQ(loop->threads, trips);
    /* every BSYNC reconverges: the five of them together see the whole live warp or the
     * data branch's lanes (nested BSYNC B1) */
    CHECK_EQ(sy_count(&p, "BSYNC"), 32 * 3 + twarps);
    sy_prof_free(&p);
}

/* threshold=0, maxiter=1: only the parity branch diverges. A full warp then executes 40
 * instructions: 29 with all 32 lanes, 10 with 16 lanes (the @!P0 BRA taken by even lanes, the
 * 5-instruction odd side, the 4-instruction even side) and the predicated-off EXIT:
 * SIMT efficiency = (29*32 + 10*16) / (40*32) = 1088/1280 = 0.85. */
TEST(synth_branchy_lane_only_efficiency)
{
    synth_result r;
    const char *dir = sy_gen("branchy", "n=1024 block=128 maxiter=1 threshold=0", 0, &r);
    if (!dir)
        return;
    check_trace(dir);
    CHECK_EQ(r.warps, 32);
    CHECK_EQ(r.warp_insts, 32 * 40);
    CHECK_EQ(r.thread_insts, 32 * 1088);
    CHECK(r.thread_insts * 100 / (32 * r.warp_insts) == 85);
}

TEST(synth_branchy_deterministic_and_seeded)
{
    sy_check_deterministic("branchy", "n=2048 maxiter=5", 1);
    const char *dir = sy_gen("branchy", "n=300 block=96 maxiter=7 threshold=100", 0, NULL);
    if (dir)
        check_trace(dir);
}

/* ==== pchase ==== */

/* footprint=4K, stride=128: a 32-element chain. warmup=1 adds one whole pass: 100 + 32 loads,
 * all by lane 0 alone. Warp instructions: 7 prologue + 2 x 3 loop guards + 5 per load +
 * 2 CS2R + 9 epilogue = 24 + 5 * 132. */
TEST(synth_pchase_chain)
{
    synth_result r;
    const char *dir = sy_gen("pchase", "footprint=4K stride=128 iters=100 warmup=1", 0, &r);
    if (!dir)
        return;
    check_trace(dir);
    CHECK_EQ(r.warp_insts, 24 + 5 * 132);
    uint64_t base = memcpy_addr(dir, 0);
    sy_prof p;
    if (sy_profile(dir, 1, "LDG", &p) != 0)
        return;
    CHECK_EQ(p.block[0], 32);
    CHECK_EQ(sy_count(&p, "LDG.E"), 132);
    CHECK_EQ(p.naddrs, 132);                            /* one lane per load: mask 0x1 */
    CHECK_EQ(sy_find(&p, "LDG.E", 0)->threads, 32);     /* the warmup loop's static load */
    CHECK_EQ(sy_find(&p, "LDG.E", 1)->threads, 100);    /* the timed loop's */
    CHECK_EQ(sy_count(&p, "CS2R"), 2);
    CHECK_EQ(p.naddrs > 0 ? p.addrs[0] : 1, base);
    int chained = 1;
    for (size_t k = 1; k < p.naddrs; k++)                /* j = A[j]: the chain successor */
        chained &= p.addrs[k] == base + (p.addrs[k - 1] - base + 128) % 4096;
    CHECK(chained);
    CHECK_EQ(sy_distinct_addrs(&p), 4096 / 128);
    sy_prof_free(&p);
}

/* warmup=0 and a chain longer than the run: 100 cold loads, 100 distinct lines; a bad stride
 * is rejected. */
TEST(synth_pchase_cold_and_ranges)
{
    const char *dir = sy_gen("pchase", "footprint=64K stride=256 iters=100 warmup=0", 0, NULL);
    sy_prof p;
    if (!dir || sy_profile(dir, 1, "LDG", &p) != 0)
        return;
    check_trace(dir);
    CHECK_EQ(sy_count(&p, "LDG.E"), 100);
    CHECK_EQ(sy_distinct_addrs(&p), 100);
    const sy_pc *warm = sy_find(&p, "BRA", 0);
    CHECK(warm && warm->threads == 1 && warm->execs == 1);   /* @!P0 BRA skips the warm loop */
    sy_prof_free(&p);
    sy_check_deterministic("pchase", "footprint=8K iters=64", 0);
    base_err e = {0};
    synth_values sv;
    synth_values_init(&sv, synth_find("pchase"));
    CHECK(synth_values_set(&sv, "stride", "96", &e) == 0);
    CHECK(synth_values_set(&sv, "footprint", "4000", &e) == 0);
    char out[600];
    snprintf(out, sizeof out, "%s/pchase-bad", test_tmpdir());
    CHECK(synth_write(&sv, out, 0, NULL, &e) != 0);
    CHECK_HAS(e.msg, "divides --footprint");
}

/* ==== multi ==== */

/* kernels=2, n=1024 (4 KiB vectors), block=128: 8 CTAs x 4 warps per kernel.
 * Per warp: scale 14, saxpy 15, combine 16 instructions. */
TEST(synth_multi_streams)
{
    synth_result r;
    const char *dir = sy_gen("multi", "n=1024 block=128 kernels=2", 0, &r);
    if (!dir)
        return;
    check_trace(dir);
    CHECK_EQ(r.kernels, 5);
    CHECK_EQ(r.memcpys, 3);
    CHECK_EQ(r.warp_insts, 32 * (2 * 14 + 2 * 15 + 16));
    size_t n;
    char *list = read_in(dir, "kernelslist.g", &n);
    char shape[16] = {0};
    int k = 0;
    for (char *l = list ? strtok(list, "\n") : NULL; l && k < 15; l = strtok(NULL, "\n"))
        shape[k++] = strncmp(l, "MemcpyHtoD,", 11) == 0 ? 'M'
                     : strncmp(l, "kernel-", 7) == 0   ? 'K'
                                                       : '?';
    CHECK_STR(shape, "MKMMKKKK");   /* copy A, k1(A), copy B x2, k1(B), k2(A), k2(B), join */
    free(list);
    static const uint64_t stream[5] = {0x5618d5f3a2b0ull, 0x5618d5f3a8c0ull, 0x5618d5f3a2b0ull,
                                       0x5618d5f3a8c0ull, 0};
    static const uint64_t per_warp[5] = {14, 15, 14, 15, 16};
    for (int i = 0; i < 5; i++) {
        char name[64], want[80];
        snprintf(name, sizeof name, "kernel-%d.traceg", i + 1);
        snprintf(want, sizeof want, "\n-cuda stream id = %" PRIu64 "\n", stream[i]);
        char *h = read_in(dir, name, &n);
        CHECK_HAS(h, want);
        free(h);
        sy_prof p;
        if (sy_profile(dir, i + 1, NULL, &p) != 0)
            continue;
        CHECK_EQ(p.warp_insts, 32 * per_warp[i]);
        sy_prof_free(&p);
    }
    /* stream A's second kernel reads what its first wrote */
    sy_prof w1, r3;
    if (sy_profile(dir, 1, "STG", &w1) == 0 && sy_profile(dir, 3, "LDG", &r3) == 0) {
        CHECK_EQ(w1.naddrs, 1024);
        CHECK(w1.naddrs == r3.naddrs &&
              memcmp(w1.addrs, r3.addrs, w1.naddrs * sizeof *w1.addrs) == 0);
        sy_prof_free(&w1);
        sy_prof_free(&r3);
    }
    sy_check_deterministic("multi", "n=512 kernels=3", 0);
}
