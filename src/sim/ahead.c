/* sim ahead: CTAs read from the trace ahead of their issue.
 *
 * Reading a CTA (text parsing, or decompression of a native block) is the largest serial cost
 * of a parallel run when it happens at issue time. With more than one thread, each running
 * kernel keeps a ring of CTAs read in advance; issue swaps a ready CTA into the SM's slot.
 *
 * With the thread team the ring is filled in the background: the main thread posts a job at a
 * core edge, one helper takes it and reads until the rings are full or a new edge opened (it
 * then takes its tasks of that edge; the job is posted again at the next core edge), while
 * the edges go on without it (an edge waits for its own tasks only, and one long read inside
 * an edge would hold every thread up). The ring is then single-producer single-consumer: the
 * producer owns the tail and the consumer the head, and the count is the only word both
 * change. The main thread touches a reader (or its dictionary) only while no job runs: before
 * a direct read, before decoding static instructions a CTA added, and before a kernel's end,
 * it cancels a job not yet taken or waits for the running one (asking it to stop after its
 * current CTA).
 * Without the team the ring is filled by one phase-B task, which never overlaps issue.
 * When issue finds the ring empty (a kernel's first wave, or a helper that fell behind), a
 * text kernel's ring is refilled by the whole team at once (read_batch, trace_par.c).
 *
 * A CTA's content does not depend on when or by whom it was read, so results are unchanged;
 * a read error is kept and reported when issue reaches that CTA, as a direct read would. The
 * ring holds at most one CTA per SM, so memory still does not grow with the trace. */
#include "sim_int.h"
#include <sched.h>
#include <stdlib.h>

static int wants_more(const run_kernel *rk)
{
    return rk->state == RK_RUN && rk->ahead_cap && !rk->eof && !rk->ahead_end &&
           atomic_load_explicit(&rk->ahead_n, memory_order_acquire) < rk->ahead_cap;
}

void sim_ahead_start(sim *g, run_kernel *rk)
{
    if (g->k.threads <= 1)
        return;
    rk->ahead_cap = g->n_sm;
    rk->ahead = base_calloc(rk->ahead_cap, sizeof *rk->ahead);
    rk->ahead_need = base_calloc(rk->ahead_cap, sizeof *rk->ahead_need);
    if (g->use_team && trace_kernel_is_text(rk->kk.tk))
        rk->ahead_chunk = base_calloc(rk->ahead_cap, sizeof *rk->ahead_chunk);
}

int sim_ahead_wanted(const sim *g)
{
    for (size_t i = 0; i < g->nrk; i++)
        if (wants_more(&g->rk[i]))
            return 1;
    return 0;
}

/* An edge newer than `epoch` opened (UINT32_MAX: the phase-B task, which never yields). */
static int new_edge(sim *g, uint32_t epoch)
{
    return epoch != UINT32_MAX && atomic_load_explicit(&g->team.open, memory_order_relaxed) != epoch;
}

/* The producer: reads into rk's ring while it has room, the file goes on, no stop is asked
 * and no edge after `epoch` opened. */
static void fill(sim *g, run_kernel *rk, uint32_t epoch)
{
    while (!rk->ahead_end && atomic_load_explicit(&rk->ahead_n, memory_order_acquire) < rk->ahead_cap &&
           !atomic_load_explicit(&g->team.bg_stop, memory_order_relaxed) && !new_edge(g, epoch)) {
        uint32_t t = rk->ahead_tail;
        int rc = trace_next_cta(rk->kk.tk, &rk->ahead[t], &rk->ahead_err);
        if (rc <= 0) {
            rk->ahead_end = rc == 0 ? 1 : -1;
            break;
        }
        rk->ahead_need[t] = (uint32_t)trace_kernel_nsinst(rk->kk.tk);
        rk->ahead_tail = (t + 1) % rk->ahead_cap;
        atomic_fetch_add_explicit(&rk->ahead_n, 1, memory_order_release);
    }
}

/* The phase-B task of the OpenMP schedules: fills every ring. */
void sim_ahead_task(sim *g)
{
    for (size_t i = 0; i < g->nrk; i++)
        if (wants_more(&g->rk[i]))
            fill(g, &g->rk[i], UINT32_MAX);
}

/* Main thread, team schedule: a background job for the kernels that want CTAs. */
void sim_ahead_post(sim *g)
{
    sim_team *t = &g->team;
    if (atomic_load_explicit(&t->bg, memory_order_acquire) != SIM_BG_IDLE)
        return;
    int any = 0;
    for (size_t i = 0; i < g->nrk; i++)
        any |= g->rk[i].ahead_go = wants_more(&g->rk[i]);
    if (!any)
        return;
    t->bg_nrk = g->nrk;
    atomic_store_explicit(&t->bg_stop, 0, memory_order_relaxed);
    atomic_store_explicit(&t->bg, SIM_BG_POSTED, memory_order_release);
}

/* A helper thread: runs the posted job, if no other thread took it first. */
void sim_ahead_bg(sim *g)
{
    sim_team *t = &g->team;
    int want = SIM_BG_POSTED;
    if (!atomic_compare_exchange_strong_explicit(&t->bg, &want, SIM_BG_RUNNING, memory_order_acq_rel,
                                                 memory_order_relaxed))
        return;
    /* the edges come first: the job ends at the first CTA read after a new edge opened (the
     * main thread posts it again at its next core edge) */
    uint32_t epoch = atomic_load_explicit(&t->open, memory_order_relaxed);
    for (size_t i = 0; i < t->bg_nrk; i++)
        if (g->rk[i].ahead_go)
            fill(g, &g->rk[i], epoch);
    atomic_store_explicit(&t->bg, SIM_BG_IDLE, memory_order_release);
}

/* Main thread: no job runs when this returns (a posted one is withdrawn, a running one asked
 * to stop after its current CTA and waited for). */
static void quiesce(sim *g)
{
    sim_team *t = &g->team;
    int want = SIM_BG_POSTED;
    if (atomic_compare_exchange_strong_explicit(&t->bg, &want, SIM_BG_IDLE, memory_order_acq_rel,
                                                memory_order_acquire) ||
        want == SIM_BG_IDLE)
        return;
    atomic_store_explicit(&t->bg_stop, 1, memory_order_relaxed);
    while (atomic_load_explicit(&t->bg, memory_order_acquire) != SIM_BG_IDLE)
        sched_yield();
}

/* A batch stops at this much text (besides a ring's worth of CTAs): memory stays bounded
 * whatever the size of a CTA. */
#define BATCH_BYTES ((size_t)8 << 20)
/* Before the helpers start, a batch of this much text is parsed by a parallel region of its
 * own (some ms of parsing against a fraction of one for the region): a first wave that holds
 * the whole kernel (sgemm 256: 118 MB of text) was read by the main thread alone. */
#define SOLO_BATCH_BYTES ((size_t)1 << 20)

typedef struct batch {
    run_kernel *rk;
    uint32_t first;
} batch;

static void parse_job(sim *g, void *ctx, uint32_t i)
{
    (void)g;
    const batch *b = ctx;
    run_kernel *rk = b->rk;
    uint32_t s = (b->first + i) % rk->ahead_cap;
    trace_parse_chunk(rk->kk.tk, rk->ahead_chunk[s], &rk->ahead[s]);
}

/* Main thread, no job running, ring empty (issue wants a CTA the helper has not read): fills
 * the ring with the whole team. The lines of the next CTAs are split off the file here, the
 * team parses them, and they are adopted in file order; a CTA that failed ends the ring with
 * its error, ahead of any error or end of file the split met after it. */
static void read_batch(sim *g, run_kernel *rk)
{
    trace_kernel *tk = rk->kk.tk;
    uint32_t t = rk->ahead_tail, n = 0;
    size_t bytes = 0;
    int split = 1;
    base_err split_err = {0};
    while (n < rk->ahead_cap && bytes < BATCH_BYTES) {
        uint32_t s = (t + n) % rk->ahead_cap;
        if (!rk->ahead_chunk[s])
            rk->ahead_chunk[s] = trace_chunk_new();
        split = trace_split_cta(tk, rk->ahead_chunk[s], &split_err);
        if (split <= 0)
            break;
        bytes += trace_chunk_bytes(rk->ahead_chunk[s]);
        n++;
    }
    batch b = {rk, t};
    if (!g->team_deferred) {
        sim_team_jobs(g, n, parse_job, &b);
    } else if (bytes >= SOLO_BATCH_BYTES) {
        sim_solo_jobs(g, n, parse_job, &b);
        g->res->solo_batch_ctas += n;
    } else {
        for (uint32_t i = 0; i < n; i++)
            parse_job(g, &b, i);
    }
    uint32_t ok = 0;
    for (; ok < n; ok++) {
        uint32_t s = (t + ok) % rk->ahead_cap;
        if (trace_adopt_cta(tk, rk->ahead_chunk[s], &rk->ahead[s], &rk->ahead_err)) {
            rk->ahead_end = -1;
            break;
        }
        trace_chunk_done(rk->ahead_chunk[s]);
        rk->ahead_need[s] = (uint32_t)trace_kernel_nsinst(tk);
    }
    if (ok == n && split <= 0) {
        rk->ahead_end = split == 0 ? 1 : -1;
        if (split < 0)
            rk->ahead_err = split_err;
    }
    rk->ahead_tail = (t + ok) % rk->ahead_cap;
    atomic_fetch_add_explicit(&rk->ahead_n, ok, memory_order_release);
}

/* trace_next_cta for issue: 1 with the next CTA in *slot, 0 at the end, -1 on error. *need is
 * how many static instructions the reader knew after that CTA; when it is more than the
 * kernel has decoded, no job runs on return, so the caller may decode them. */
int sim_ahead_take(sim *g, run_kernel *rk, trace_cta *slot, uint32_t *need, base_err *e)
{
    while (rk->ahead_cap) {
        if (atomic_load_explicit(&rk->ahead_n, memory_order_acquire)) {
            trace_cta t = *slot; /* the slot's buffers go back to the ring for reuse */
            *slot = rk->ahead[rk->ahead_head];
            rk->ahead[rk->ahead_head] = t;
            *need = rk->ahead_need[rk->ahead_head];
            rk->ahead_head = (rk->ahead_head + 1) % rk->ahead_cap;
            atomic_fetch_sub_explicit(&rk->ahead_n, 1, memory_order_release);
            if (*need > rk->kk.ninsts)
                quiesce(g);
            return 1;
        }
        quiesce(g);
        if (atomic_load_explicit(&rk->ahead_n, memory_order_acquire))
            continue;
        if (!rk->ahead_chunk || rk->ahead_end)
            break; /* no job runs and the ring is empty: read here */
        read_batch(g, rk);
    }
    if (rk->ahead_end > 0)
        return 0;
    if (rk->ahead_end < 0) {
        *e = rk->ahead_err;
        return -1;
    }
    int rc = trace_next_cta(rk->kk.tk, slot, e);
    *need = (uint32_t)trace_kernel_nsinst(rk->kk.tk);
    return rc;
}

void sim_ahead_free(sim *g, run_kernel *rk)
{
    if (rk->ahead_cap)
        quiesce(g);
    for (uint32_t i = 0; i < rk->ahead_cap; i++) {
        trace_cta_free(&rk->ahead[i]);
        if (rk->ahead_chunk)
            trace_chunk_free(rk->ahead_chunk[i]);
    }
    free(rk->ahead_chunk);
    rk->ahead_chunk = NULL;
    free(rk->ahead);
    free(rk->ahead_need);
    rk->ahead = NULL;
    rk->ahead_need = NULL;
    rk->ahead_cap = 0;
    atomic_store_explicit(&rk->ahead_n, 0, memory_order_relaxed);
}
