/* sim kern: kernels, streams, memcpys, CTA issue and placement. */
#include "sim_int.h"
#include <stdlib.h>
#include <string.h>

static uint32_t rr_first(uint32_t last, uint32_t n) { return (last + 1) % n; }

static const sim_place_ops ROUND_ROBIN = {
    "round_robin", "SMs are offered CTAs in turn, starting after the SM that got the last one",
    rr_first};
const sim_place_ops *const sim_place_registry[] = {&ROUND_ROBIN, NULL};

const sim_place_ops *sim_place_find(const char *name)
{
    for (int i = 0; sim_place_registry[i]; i++)
        if (strcmp(sim_place_registry[i]->name, name) == 0)
            return sim_place_registry[i];
    return NULL;
}

static void sm_open_set(sim *g, uint32_t s, int on)
{
    uint64_t bit = 1ull << (s % 64);
    g->sm_open[s / 64] = on ? g->sm_open[s / 64] | bit : g->sm_open[s / 64] & ~bit;
}

/* Prefill calls are gathered and run slice by slice, each slice's in their order: slices
 * are independent, so the result is the same, and one slice's tag arrays stay in the host's
 * cache while its calls run instead of every call landing in another slice. The channels'
 * shares are independent as well, so they run as team jobs. */
typedef struct pf_call {
    uint64_t addr;
    uint32_t sub;
    uint8_t mask;
} pf_call;

typedef struct pf_batch {
    sim *g;
    pf_call *v, *tmp;
    uint32_t *cnt; /* per slice, then its first position, then its end */
    uint32_t n, cap;
} pf_batch;

/* Job c: channel c's calls, in order. Only the sub-partitions with calls start a run: starting
 * one gives its L2 its tag arrays, which a slice that no copy reaches need not have yet (the
 * 400-byte copies of a short trace reach a few of them). */
static void pf_channel(sim *g, void *ctx, uint32_t c)
{
    const pf_batch *b = ctx;
    for (uint32_t s = 0, k = c * g->n_sub; s < g->n_sub; s++, k++) {
        uint32_t from = k ? b->cnt[k - 1] : 0, to = b->cnt[k];
        if (from == to)
            continue;
        mem_part_prefill_run(g->part[c], s, 1);
        for (uint32_t i = from; i < to; i++)
            mem_part_prefill_block(g->part[c], s, b->tmp[i].addr, b->tmp[i].mask);
        mem_part_prefill_run(g->part[c], s, 0);
    }
}

static void pf_flush(pf_batch *b)
{
    sim *g = b->g;
    memset(b->cnt, 0, g->n_sub_total * sizeof *b->cnt);
    for (uint32_t i = 0; i < b->n; i++)
        b->cnt[b->v[i].sub]++;
    for (uint32_t k = 0, at = 0; k < g->n_sub_total; k++) {
        uint32_t c = b->cnt[k];
        b->cnt[k] = at;
        at += c;
    }
    for (uint32_t i = 0; i < b->n; i++)
        b->tmp[b->cnt[b->v[i].sub]++] = b->v[i];
    sim_team_jobs(g, g->n_chan, pf_channel, b);
    b->n = 0;
}

static void pf_put(pf_batch *b, uint32_t sub, uint64_t addr, uint8_t mask)
{
    b->v[b->n++] = (pf_call){addr, sub, mask};
    if (b->n == b->cap)
        pf_flush(b);
}

/* The prefill calls of one range: sectors of one 128-byte block that map to the same slice
 * go in one call. Accel-Sim walks the range with a 32-bit address (FORMATS.md A.2), which
 * memcpy_truncate_32bit reproduces. */
static void memcpy_calls(sim *g, const trace_cmd *c, pf_batch *b)
{
    uint64_t blk = UINT64_MAX, chunk = UINT64_MAX;
    uint32_t bsub = 0, sub = 0;
    uint8_t mask = 0;
    int grain = mem_map_grain(&g->map); /* one decode per block that maps as one */
    for (uint64_t off = 0; off < c->bytes; off += MEM_SECTOR) {
        uint64_t a = c->addr + off;
        if (g->k.memcpy_truncate_32bit)
            a = (uint32_t)a; /* an aligned block never wraps: 2^32 is a multiple of 128 */
        if (a >> grain != chunk) {
            chunk = a >> grain;
            sub = mem_map_sub_partition(&g->map, a);
        }
        if (grain >= 7 && (a & 127) == 0 && c->bytes - off >= 128 && (!mask || a >> 7 != blk)) {
            /* a whole block in one slice: the call the sector steps below would make */
            if (mask)
                pf_put(b, bsub, blk << 7, mask);
            pf_put(b, sub, a, 0xF);
            mask = 0;
            off += 128 - MEM_SECTOR;
            continue;
        }
        if (mask && (a >> 7 != blk || sub != bsub || (mask >> cache_sector_of(a)) & 1)) {
            pf_put(b, bsub, blk << 7, mask);
            mask = 0;
        }
        blk = a >> 7;
        bsub = sub;
        mask |= (uint8_t)(1u << cache_sector_of(a));
    }
    if (mask)
        pf_put(b, bsub, blk << 7, mask);
}

/* The prefill calls of [from, to) of the copy (offsets), in batches. */
static void memcpy_range(sim *g, const trace_cmd *c, uint64_t from, uint64_t to)
{
    trace_cmd part = *c;
    part.addr = c->addr + from;
    part.bytes = to - from;
    /* 64K calls (2 MB with the sort's copy) give each slice of a large GPU a few thousand
     * calls per batch, which pays for bringing its tag arrays into the cache */
    uint64_t most = part.bytes / MEM_SECTOR + 2;
    pf_batch b = {g, NULL, NULL, NULL, 0, most < 65536 ? (uint32_t)most : 65536};
    b.v = base_malloc(2 * (size_t)b.cap * sizeof *b.v);
    b.tmp = b.v + b.cap;
    b.cnt = base_malloc(g->n_sub_total * sizeof *b.cnt);
    memcpy_calls(g, &part, &b);
    pf_flush(&b);
    free(b.v);
    free(b.cnt);
}

/* ---- the middle of a copy much larger than the L2 ------------------------------------
 * Such a copy prefills every line of itself, though each set keeps only its first lines and
 * its last: once the head of the copy has filled every set with lines of this copy, each
 * later line replaces the one before in its set's victim way (cache_prefill_churns). So a
 * stretch in the middle changes only the eviction counts, one per line, provided none of its
 * lines is cached already and every set gets a line of the tail after it. The tail is found
 * first, walking back from the end until every set has one; the head is then prefilled, the
 * conditions checked, the middle counted per slice (cache_prefill_skip), and the tail
 * prefilled. Without the conditions the copy is prefilled whole, as before. */
#define PF_SKIP_COPIES 8u /* copies of at least this many times the L2 are worth the check */

static uint64_t pf_addr(const sim *g, uint64_t a)
{
    return g->k.memcpy_truncate_32bit ? (uint32_t)a : a;
}

static cache *pf_l2(sim *g, uint32_t sub)
{
    uint32_t c = g->sub_chan[sub];
    return mem_part_l2(g->part[c], sub - c * g->n_sub);
}

/* Lines of all slices, and their sets each (*sets); 0 unless every slice has an L2 of
 * 128-byte lines (a block is one prefill) and the same sets. */
static uint64_t pf_l2_lines(sim *g, uint32_t *sets)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < g->n_sub_total; i++) {
        cache *l2 = pf_l2(g, i);
        const cache_cfg *f = l2 ? cache_config(l2) : NULL;
        if (!f || f->line != 128 || (i && f->sets != *sets))
            return 0;
        *sets = f->sets;
        n += (uint64_t)f->sets * f->assoc;
    }
    return n;
}

/* Walking back from block address hi: the first block from which on every set of every
 * slice gets a line, or lo when that takes blocks below lo. */
static uint64_t pf_tail(sim *g, uint64_t lo, uint64_t hi, uint32_t sets)
{
    uint64_t need = (uint64_t)g->n_sub_total * sets, got = 0, a = hi;
    uint8_t *seen = base_calloc(need, 1);
    while (a > lo && got < need) {
        a -= 128;
        uint64_t t = pf_addr(g, a);
        uint32_t sub = mem_map_sub_partition(&g->map, t);
        cache *l2 = pf_l2(g, sub);
        uint64_t k = (uint64_t)sub * sets + cache_set_of(l2, cache_line_addr(l2, t));
        got += !seen[k];
        seen[k] = 1;
    }
    free(seen);
    return got == need ? a : lo;
}

/* A middle worth trying to skip: the shortest head that may fill every set (*head, one L2's
 * worth of lines), the longest one tried (*most, two L2s' worth) and the tail, as offsets with
 * *head < *most < *tail; or 0. */
static int pf_plan(sim *g, const trace_cmd *c, uint64_t *head, uint64_t *most, uint64_t *tail)
{
    uint32_t sets = 0;
    uint64_t lines = mem_map_grain(&g->map) >= 7 ? pf_l2_lines(g, &sets) : 0;
    if (!g->k.memcpy_prefill_skip || !lines || c->bytes / 128 < PF_SKIP_COPIES * lines)
        return 0;
    uint64_t a = pf_addr(g, c->addr); /* no wrap: every line of the copy is distinct */
    if (c->bytes > (g->k.memcpy_truncate_32bit ? (1ull << 32) : UINT64_MAX) - a)
        return 0;
    uint64_t h = (c->addr + lines * 128 + 127) & ~127ull;
    uint64_t m = (c->addr + 2 * lines * 128 + 127) & ~127ull;
    uint64_t t = pf_tail(g, m, (c->addr + c->bytes) & ~127ull, sets);
    *head = h - c->addr;
    *most = m - c->addr;
    *tail = t - c->addr;
    return t > m;
}

/* After the head: every slice churns and holds no line of the middle [lo, hi). */
static int pf_can_skip(sim *g, uint64_t lo, uint64_t hi)
{
    uint64_t tlo = pf_addr(g, lo), thi = tlo + (hi - lo);
    for (uint32_t i = 0; i < g->n_sub_total; i++) {
        uint32_t c = g->sub_chan[i];
        if (!mem_part_prefill_churns(g->part[c], i - c * g->n_sub) ||
            cache_holds_lines(pf_l2(g, i), tlo, thi))
            return 0;
    }
    return 1;
}

/* The middle's lines counted per slice. */
static void pf_skip(sim *g, uint64_t lo, uint64_t hi)
{
    uint64_t *n = base_calloc(g->n_sub_total, sizeof *n), t = pf_addr(g, lo);
    mem_map_count_blocks(&g->map, t, t + (hi - lo), n);
    for (uint32_t i = 0; i < g->n_sub_total; i++)
        if (n[i])
            cache_prefill_skip(pf_l2(g, i), n[i]);
    free(n);
}

/* MemcpyHtoD: mark every sector present in its L2 slice. The head of a large copy grows
 * in eighths of the L2 from one L2's worth until the middle after it may be skipped (with
 * hashed set indices a few sets fill only a little after the rest), up to two L2s' worth. */
static void memcpy_apply(sim *g, const trace_cmd *c)
{
    if (!g->k.memcpy_l2_prefill)
        return;
    sim_sync_channels(g); /* prefill stamps lines with each channel's time */
    uint64_t from = 0, head, most, tail;
    if (pf_plan(g, c, &head, &most, &tail)) {
        uint64_t step = ((head + 7) / 8 + 127) & ~127ull;
        for (;;) {
            memcpy_range(g, c, from, head);
            from = head;
            if (pf_can_skip(g, c->addr + head, c->addr + tail)) {
                pf_skip(g, c->addr + head, c->addr + tail);
                from = tail;
                break;
            }
            if (head == most)
                break;
            head = most - head > step ? head + step : most;
        }
    }
    memcpy_range(g, c, from, c->bytes);
}

static int running(const sim *g, uint64_t *stream_busy, uint64_t stream)
{
    int n = 0;
    *stream_busy = 0;
    for (size_t i = 0; i < g->nrk; i++)
        if (g->rk[i].state == RK_RUN) {
            n++;
            if (g->rk[i].kk.h->stream_id == stream)
                *stream_busy = 1;
        }
    return n;
}

/* Whether a kernel of this stream may launch now (else it waits open: pending_tk). */
static int may_launch(const sim *g, uint64_t stream)
{
    uint64_t busy;
    int n = running(g, &busy, stream);
    return !n || (g->k.concurrent_kernels && !busy && n < g->k.max_concurrent_kernels);
}

int sim_kernel_pending_may_launch(const sim *g)
{
    return g->pending_tk && may_launch(g, trace_kernel_header(g->pending_tk)->stream_id);
}

static int launch(sim *g, size_t cmd, base_err *e)
{
    const trace_cmd *c = &g->list->cmds[cmd];
    /* the header is read once; the kernel waits open until it may launch */
    if (!g->pending_tk &&
        !(g->pending_tk = g->list->open_kernel ? g->list->open_kernel(g->list->src, cmd, e)
                                               : trace_kernel_open(c->path, e)))
        return -1;
    trace_kernel *tk = g->pending_tk;
    const trace_header *h = trace_kernel_header(tk);
    if (!may_launch(g, h->stream_id))
        return 1; /* not yet */
    g->pending_tk = NULL;
    run_kernel *rk = &g->rk[g->nrk];
    sim_kernel_result *res = &g->res->k[g->nrk];
    memset(rk, 0, sizeof *rk);
    rk->kk.uid = (uint32_t)++g->nrk;
    rk->kk.tk = tk;
    rk->kk.h = h;
    rk->kk.shmem_base = h->shmem_base;
    rk->kk.local_base = h->local_base;
    if (cta_occupancy_compute(&g->k, h->threads_per_cta, h->nregs, (int64_t)h->shmem,
                              (int64_t)h->ctas_in_grid, &res->occ, e)) {
        base_err in = *e;
        base_err_clear(e);
        base_fail(e, in.code, "%s: %s", c->path, in.msg);
        return -1;
    }
    rk->kk.padded_threads = res->occ.padded_threads;
    rk->kk.regs_alloc = res->occ.regs_per_cta_alloc;
    rk->kk.smem_alloc = res->occ.smem_per_cta_alloc;
    rk->kk.max_ctas_per_sm = res->occ.ctas > 0 ? res->occ.ctas : 1;
    rk->state = RK_RUN;
    rk->cmd = cmd;
    rk->res = g->nrk - 1;
    rk->launch = g->cycle;
    rk->first_cta = g->cycle + (uint64_t)g->k.kernel_launch_latency;
    sim_totals_init(&rk->start);
    sim_snapshot(g, &rk->start);
    res->name = base_strdup(h->name);
    res->path = base_strdup(c->path);
    res->uid = rk->kk.uid;
    res->stream = h->stream_id;
    memcpy(res->grid, h->grid, sizeof res->grid);
    memcpy(res->block, h->block, sizeof res->block);
    res->nregs = h->nregs;
    res->shmem = h->shmem;
    res->launch_cycle = g->cycle;
    res->first_cta_cycle = rk->first_cta;
    g->ctas_total_est += h->ctas_in_grid;
    for (uint32_t i = 0; i < g->n_sm; i++) {
        sim_sm_touch(g, i);
        sm_kernel_start(g->sm[i], &rk->kk, res->occ.carveout_kb);
    }
    sim_ahead_start(g, rk);
    for (uint32_t s = 0; s < g->n_sm; s++)
        sm_open_set(g, s, 1);
    return 0;
}

/* Applies memcpys and launches kernels in list order until one has to wait. */
int sim_kernels_advance(sim *g, base_err *e)
{
    while (g->next_cmd < g->list->ncmds) {
        const trace_cmd *c = &g->list->cmds[g->next_cmd];
        if (c->kind == TRACE_CMD_MEMCPY) {
            memcpy_apply(g, c);
        } else if (c->kind == TRACE_CMD_KERNEL) {
            int rc = launch(g, g->next_cmd, e);
            if (rc < 0)
                return -1;
            if (rc > 0)
                return 0;
        }
        g->next_cmd++;
    }
    return 0;
}

static void kernel_end(sim *g, run_kernel *rk)
{
    sim_kernel_result *res = &g->res->k[rk->res];
    rk->state = RK_DONE;
    res->end_cycle = g->cycle;
    res->ctas = rk->issued;
    sim_totals_init(&res->cum);
    sim_snapshot(g, &res->cum);
    res->cum.cycle = g->cycle + 1; /* the end cycle is complete */
    sim_totals_init(&res->delta);
    sim_totals_sub(&res->delta, &res->cum, &rk->start);
    res->delta.cycle = g->cycle - rk->launch + 1; /* both ends included */
    sim_ahead_free(g, rk);
    trace_kernel_close(rk->kk.tk);
    rk->kk.tk = NULL;
}

/* The run stopped early (max_cycles, max_insts): close the statistics of unfinished kernels. */
void sim_finish_kernels(sim *g)
{
    for (size_t i = 0; i < g->nrk; i++)
        if (g->rk[i].state == RK_RUN)
            kernel_end(g, &g->rk[i]);
    g->res->nk = g->nrk;
}

/* A kernel ends when every CTA of its file was issued and has retired. */
static void kernels_end(sim *g)
{
    for (size_t i = 0; i < g->nrk; i++) {
        run_kernel *rk = &g->rk[i];
        if (rk->state == RK_RUN && rk->eof && g->done_by_uid[rk->kk.uid] == rk->issued)
            kernel_end(g, rk);
    }
}

void sim_retire(sim *g)
{
    for (uint32_t w = 0; w < g->smf_words; w++) {
        uint64_t bits = sim_smf_take(g, SMF_DONE, w); /* SMs with finished CTAs */
        while (bits) {
            uint32_t s = w * 64 + (uint32_t)__builtin_ctzll(bits), n;
            bits &= bits - 1;
            if (g->windowed) { /* retired by its task (sm_cta_retire_keep), SMF_ACT after */
                n = sm_cta_retired_take(g->sm[s], g->done_by_uid);
            } else {
                sim_sm_touch(g, s);
                sim_sm_sync_pop(g, s); /* sm_active below reads the outbound queue */
                n = sm_cta_retire(g->sm[s], g->done_by_uid);
                if (!sm_active(g->sm[s])) /* its last CTA left (see maybe_active) */
                    g->maybe_active[w] &= ~(1ull << (s % 64));
            }
            if (n) {
                g->ctas_done_all += n;
                sm_open_set(g, s, 1);
            }
        }
    }
    kernels_end(g);
}

int sim_kernels_launching(const sim *g)
{
    for (size_t i = 0; i < g->nrk; i++)
        if (g->rk[i].state == RK_RUN && !g->rk[i].eof && g->cycle < g->rk[i].first_cta)
            return 1;
    return 0;
}

int sim_all_done(const sim *g)
{
    if (g->next_cmd < g->list->ncmds)
        return 0;
    for (size_t i = 0; i < g->nrk; i++)
        if (g->rk[i].state != RK_DONE)
            return 0;
    return 1;
}

/* Offers SM s one CTA of the oldest running kernel that has one and fits. 1 if issued.
 * An SM that no waiting kernel fits is marked full and skipped until it retires a CTA or a
 * kernel launches: only those free room or bring a new shape. */
static int issue_to(sim *g, uint32_t s, base_err *e)
{
    sm *m = g->sm[s];
    int waiting = 0; /* a kernel still in its launch latency may fit later */
    for (size_t i = 0; i < g->nrk; i++) {
        run_kernel *rk = &g->rk[i];
        if (rk->state != RK_RUN || rk->eof)
            continue;
        if (g->cycle < rk->first_cta) {
            waiting = 1;
            continue;
        }
        if (!sm_cta_fits(m, &rk->kk))
            continue;
        sim_sm_touch(g, s);
        trace_cta *slot = sm_cta_slot(m);
        if (!slot)
            break;
        uint32_t need;
        int rc = sim_ahead_take(g, rk, slot, &need, e);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            rk->eof = 1;
            continue;
        }
        if (need > rk->kk.ninsts)
            sm_kernel_decode(&rk->kk, &g->k);
        /* a full first wave keeps every CTA's buffers at once: fresh memory costs a VM's
         * host about 1.6 ms a MB the first time it is touched */
        if (g->windowed) { /* its task launches it (sm_cta_launch_defer) */
            sm_cta_launch_defer(m, &rk->kk, g->cycle);
        } else {
            trace_cta_fit(slot);
            sm_cta_launch(m, &rk->kk, g->cycle);
        }
        sim_mark_active(g, s);
        rk->issued++;
        g->moved++;
        return 1;
    }
    sm_open_set(g, s, waiting);
    return 0;
}

/* Every core cycle each SM may receive one CTA, SMs visited in the placement order. */
/* A kernel past its launch latency with CTAs left to read. */
static int any_to_issue(const sim *g)
{
    for (size_t i = 0; i < g->nrk; i++)
        if (g->rk[i].state == RK_RUN && !g->rk[i].eof && g->cycle >= g->rk[i].first_cta)
            return 1;
    return 0;
}

int sim_issue_ctas(sim *g, base_err *e)
{
    if (!any_to_issue(g)) {
        kernels_end(g);
        return 0;
    }
    uint32_t first = g->place->first(g->last_sm, g->n_sm) % g->n_sm;
    /* the open SMs from first up, then from 0 below it; issue_to changes only s's bit */
    for (int pass = 0; pass < 2; pass++) {
        uint32_t lim = pass ? first : g->n_sm;
        for (uint32_t s = base_next_bit(g->sm_open, pass ? 0 : first, lim); s < lim;
             s = base_next_bit(g->sm_open, s + 1, lim)) {
            int rc = issue_to(g, s, e);
            if (rc < 0)
                return -1;
            if (rc > 0)
                g->last_sm = s;
        }
    }
    /* a kernel whose file ended with nothing resident finishes now */
    kernels_end(g);
    return 0;
}
