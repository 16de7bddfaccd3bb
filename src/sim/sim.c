/* sim: construction and the top loop (phases A, B, C of sim.h). */
#include "sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static uint64_t period_fs(double mhz) { return (uint64_t)llround(1e9 / mhz); }

/* The caches the SMs and partitions will build, checked first: cache_new panics on a shape
 * it cannot model, and a knob range alone does not rule out every one (sets times ways). */
static int check_caches(const knobs *k, base_err *e)
{
    const struct {
        const char *prefix;
        int built;
    } c[] = {
        {"l1d", (int)k->l1d_enabled},
        {"l1i", k->l1i_enabled && !k->perfect_icache && !k->perfect_inst_const_cache},
        {"l2", (int)k->l2_enabled},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        cache_cfg cfg;
        cache_cfg_from_knobs(&cfg, k, c[i].prefix);
        if (c[i].built && cache_cfg_check(&cfg, e))
            return -1;
    }
    return 0;
}

/* The windowed mode's links carry 4 W cycles of the ROP latency (sync_window_compensate):
 * the L2 side keeps the rest, which must not go below zero. */
static int window_latency(knobs *k, base_err *e)
{
    if (k->sync_window <= 0 || !k->sync_window_compensate)
        return 0;
    if (k->l2_rop_latency < 4 * k->sync_window)
        return base_fail(e, BASE_EXIT_USAGE,
                         "sync_window=%lld needs l2_rop_latency of at least %lld to take its "
                         "links' latency off (it is %lld; or set sync_window_compensate=0)",
                         (long long)k->sync_window, 4 * (long long)k->sync_window,
                         (long long)k->l2_rop_latency);
    k->l2_rop_latency -= 4 * k->sync_window;
    return 0;
}

/* What a run is built on before its units: the knobs, the address map, the CTA placement. */
static sim *sim_base(const knobs *k, base_err *e)
{
    if (check_caches(k, e))
        return NULL;
    sim *g = base_calloc(1, sizeof *g);
    g->k = *k;
    char name[64];
    if (window_latency(&g->k, e) || mem_map_init(&g->map, &g->k, e)) {
        free(g);
        return NULL;
    }
    g->place = sim_place_find(knob_enum_name(KNOB_ID_cta_placement, (int)k->cta_placement, name,
                                             sizeof name));
    if (!g->place) {
        base_fail(e, BASE_EXIT_USAGE, "cta_placement %s has no implementation", name);
        free(g);
        return NULL;
    }
    return g;
}

/* The units: SMs, memory channels (their sub-partitions), the interconnect, and the clocks. */
static void sim_units(sim *g, const knobs *k)
{
    g->ctx = (sm_ctx){&g->k, &g->map, sm_stats_set(), g->k.sync_window <= 0};
    (void)cache_stats_set();
    (void)dram_stats_set();
    (void)icnt_stats_set();
    (void)mem_part_stats_set();
    g->n_sm = (uint32_t)(k->n_clusters * k->cores_per_cluster);
    g->sm = base_calloc(g->n_sm, sizeof *g->sm);
    for (uint32_t i = 0; i < g->n_sm; i++)
        g->sm[i] = sm_new(&g->ctx, i);
    g->n_chan = (uint32_t)k->n_mem;
    g->n_sub = (uint32_t)k->n_sub_partitions;
    g->n_sub_total = g->n_chan * g->n_sub;
    g->sub_chan = base_calloc(g->n_sub_total, sizeof *g->sub_chan);
    for (uint32_t i = 0; i < g->n_sub_total; i++)
        g->sub_chan[i] = i / g->n_sub;
    g->part = base_calloc(g->n_chan, sizeof *g->part);
    for (uint32_t i = 0; i < g->n_chan; i++)
        g->part[i] = mem_part_new(&g->k, &g->map.map, i);
    g->net = icnt_new(&g->k, g->n_sm, g->n_sub_total);
    g->period[CLK_CORE] = period_fs(k->clock_core_mhz);
    g->period[CLK_ICNT] = period_fs(k->clock_icnt_mhz);
    g->period[CLK_L2] = period_fs(k->clock_l2_mhz);
    g->period[CLK_DRAM] = period_fs(k->clock_dram_mhz);
}

/* The serial phases' books of the SMs: task flags per thread, the active list, the boxes. */
static void sim_books(sim *g, const knobs *k)
{
    g->smf_threads = k->threads > 1 ? (uint32_t)k->threads : 1;
    g->smf_words = ((g->n_sm > g->n_chan ? g->n_sm : g->n_chan) + 63) / 64;
    g->smf_stride = (SMF_KINDS * g->smf_words + 7) / 8 * 8; /* whole 64-byte lines */
    g->smf = aligned_alloc(64, (size_t)g->smf_threads * g->smf_stride * sizeof *g->smf);
    if (!g->smf)
        base_panic("out of memory (SM flags)");
    memset(g->smf, 0, (size_t)g->smf_threads * g->smf_stride * sizeof *g->smf);
    size_t words = (g->n_sm + 63) / 64;
    g->active = base_calloc(g->n_sm, sizeof *g->active);
    g->park_at = base_calloc(g->n_sm, sizeof *g->park_at);
    g->parked = base_calloc(2 * (size_t)words, sizeof *g->parked);
    g->park_min = g->parked + words;
    g->maybe_active = base_calloc(words, sizeof *g->maybe_active);
    g->ran = base_calloc(words, sizeof *g->ran);
    g->inbox = base_calloc_lines(g->n_sm * sizeof *g->inbox);
    g->inbox_bits = base_calloc(words, sizeof *g->inbox_bits);
    g->inroom = base_calloc(words, sizeof *g->inroom);
    g->outbox = base_calloc_lines(g->n_sm * sizeof *g->outbox);
    g->popq = base_calloc(words, sizeof *g->popq);
    g->outq_left = base_calloc(words, sizeof *g->outq_left);
    for (uint32_t s = 0; s < g->n_sm; s++)
        if (sm_inbound_room(g->sm[s]))
            g->inroom[s / 64] |= 1ull << (s % 64);
    g->sm_open = base_calloc(words, sizeof *g->sm_open);
}

sim *sim_new(const knobs *k, base_err *e)
{
    sim *g = sim_base(k, e);
    if (!g)
        return NULL;
    sim_units(g, k);
    sim_books(g, k);
    sim_chans_init(g);
    g->last_sm = g->n_sm - 1;
    return g;
}

void sim_free(sim *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->n_sm; i++)
        sm_free(g->sm[i]);
    for (uint32_t i = 0; i < g->n_chan; i++)
        mem_part_free(g->part[i]);
    icnt_free(g->net);
    for (size_t i = 0; i < g->nrk; i++) {
        if (g->rk[i].kk.tk)
            trace_kernel_close(g->rk[i].kk.tk);
        free(g->rk[i].kk.insts);
        free(g->rk[i].kk.pcs);
        sim_ahead_free(g, &g->rk[i]);
        sim_totals_free(&g->rk[i].start);
    }
    free(g->rk);
    if (g->pending_tk)
        trace_kernel_close(g->pending_tk);
    free(g->done_by_uid);
    sim_ff_free(g);
    free(g->sm);
    free(g->part);
    free(g->smf);
    free(g->sub_chan);
    free(g->active);
    free(g->park_at);
    free(g->parked);
    free(g->maybe_active);
    free(g->ran);
    free(g->inbox);
    free(g->inbox_bits);
    free(g->inroom);
    free(g->outbox);
    free(g->popq);
    free(g->outq_left);
    free(g->sm_open);
    sim_chans_free(g);
    sim_window_free(g);
    free(g);
}

/* Which domains tick next (GPGPU-Sim's next_clock_domain): all whose edge is earliest. */
unsigned sim_next_edges(sim *g)
{
    uint64_t t = g->next[0];
    for (int i = 1; i < CLK_N; i++)
        if (g->next[i] < t)
            t = g->next[i];
    unsigned mask = 0;
    for (int i = 0; i < CLK_N; i++)
        if (g->next[i] == t) {
            mask |= 1u << i;
            g->next[i] += g->period[i];
        }
    return mask;
}

/* ---- phase A ----------------------------------------------------------------------------- */

static void replies_to_sms(sim *g)
{
    memset(g->inbox_bits, 0, ((g->n_sm + 63) / 64) * sizeof *g->inbox_bits);
    if (!icnt_subnet_busy(g->net, ICNT_REP))
        return;
    if (sim_spread(g))
        for (uint32_t s = icnt_next_held(g->net, ICNT_REP, 0); s < g->n_sm;
             s = icnt_next_held(g->net, ICNT_REP, s + 1))
            __builtin_prefetch(&g->inbox[s], 1);
    for (uint32_t s = icnt_next_held(g->net, ICNT_REP, 0); s < g->n_sm;
         s = icnt_next_held(g->net, ICNT_REP, s + 1)) {
        if ((g->inroom[s / 64] >> (s % 64) & 1) &&
            icnt_try_pop(g->net, ICNT_REP, s, &g->inbox[s])) {
            g->inbox[s].loc = MEM_AT_SM_REPLY;
            g->inbox_bits[s / 64] |= 1ull << (s % 64);
            if (sim_sm_here(g, s))
                sm_prefetch_reply(g->sm[s], &g->inbox[s]);
            sim_sm_touch(g, s);
            sim_mark_active(g, s);
            g->moved++;
        }
    }
}

/* Requests leave the interconnect into their sub-partitions' ROP queues. This commutes with
 * the DRAM cycle of the same edge (which touches neither the ROP nor the L2 input queue), so
 * it runs first and the partition cycles can all run together in phase B. */
static void icnt_to_parts(sim *g)
{
    if (!icnt_subnet_busy(g->net, ICNT_REQ))
        return;
    if (sim_spread(g))
        for (uint32_t i = icnt_next_held(g->net, ICNT_REQ, 0); i < g->n_sub_total;
             i = icnt_next_held(g->net, ICNT_REQ, i + 1))
            mem_part_prefetch_in(g->part[g->sub_chan[i]], i - g->sub_chan[i] * g->n_sub);
    for (uint32_t i = icnt_next_held(g->net, ICNT_REQ, 0); i < g->n_sub_total;
         i = icnt_next_held(g->net, ICNT_REQ, i + 1)) {
        uint32_t c = g->sub_chan[i], si = i - c * g->n_sub;
        mem_part *p = g->part[c];
        if (!mem_part_can_accept(p, si))
            continue; /* the usual case under load: asked first, it saves the peek */
        mem_req x;
        if (icnt_try_pop(g->net, ICNT_REQ, i, &x)) {
            mem_part_push(p, si, &x, g->cycle);
            sim_chans_pushed(g, c, g->cycle + mem_part_rop_latency(p));
            g->moved++;
        }
    }
}

/* ---- phase B ----------------------------------------------------------------------------- */

/* Parked SMs of word wd whose park ends by this cycle: off the parked bitmap (the caller runs
 * them); park_min becomes the first end among those left. */
static uint64_t parks_ended(sim *g, uint32_t wd)
{
    uint64_t ended = 0, mn = UINT64_MAX;
    for (uint64_t pk = g->parked[wd]; pk; pk &= pk - 1) {
        uint32_t i = wd * 64 + (uint32_t)__builtin_ctzll(pk);
        if (g->cycle < g->park_at[i])
            mn = g->park_at[i] < mn ? g->park_at[i] : mn;
        else
            ended |= pk & -pk;
    }
    g->parked[wd] &= ~ended;
    g->park_min[wd] = mn;
    return ended;
}

/* A parked SM's queued requests, offered as its task would: the head phase C sent is popped,
 * and the next one goes to its outbox (sm_ctx.park_queued). */
static void parked_offer(sim *g, uint32_t wd)
{
    uint64_t pk = g->parked[wd];
    for (uint64_t b = pk & g->popq[wd]; b; b &= b - 1)
        sim_sm_sync_pop(g, wd * 64 + (uint32_t)__builtin_ctzll(b));
    for (uint64_t b = pk & g->outq_left[wd]; b; b &= b - 1) {
        uint32_t i = wd * 64 + (uint32_t)__builtin_ctzll(b);
        const mem_q *out = sm_outbound(g->sm[i]);
        g->outbox[i] = out->v[out->head];
        g->smf[SMF_OUT * g->smf_words + wd] |= b & -b; /* thread 0's flags */
        if (out->n > 1)
            g->smf[SMF_OUT2 * g->smf_words + wd] |= b & -b;
    }
}

/* The SMs with work (maybe_active), so idle SMs cost nothing per cycle; the list stays in
 * SM index order. A parked SM keeps its bit and stays off the list until its park ends (one
 * look at each parked SM of a word once its first park's end comes); requests it has queued
 * out are offered from here. */
static void collect_active(sim *g)
{
    uint32_t n = 0;
    for (uint32_t wd = 0; wd < (g->n_sm + 63) / 64; wd++) {
        uint64_t ended = g->cycle >= g->park_min[wd] ? parks_ended(g, wd) : 0;
        uint64_t bits = g->maybe_active[wd] & ~g->parked[wd], ran = 0;
        if (g->parked[wd])
            parked_offer(g, wd);
        while (bits) {
            uint32_t i = wd * 64 + (uint32_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            if (ended >> (i % 64) & 1)
                sim_sm_touch(g, i); /* a park that ended: its skipped cycles are owed */
            g->active[n++] = i;
            ran |= 1ull << (i % 64);
        }
        g->ran[wd] = ran;
    }
    g->nactive = n;
}

/* Task i of phase B, in this order: the CTA read-ahead if wanted, the interconnect's
 * subnets on an interconnect edge, the memory channels (their DRAM cycle, then their L2
 * cycle, as the edges in `m` ask), the active SMs. Each task writes only its own unit, and
 * none reads another's, so any thread may run any task in any order. (The crossbars only
 * move packets between their own buffers; pushes and pops happen in the serial phases.) */
void sim_run_task(sim *g, uint32_t i, unsigned m, uint32_t me)
{
    if (g->job) {
        g->job(g, g->job_ctx, i);
        return;
    }
    if (i < g->task_ahead) {
        sim_ahead_task(g);
        return;
    }
    i -= g->task_ahead;
    if (i < g->task_icnt) {
        icnt_subnet_cycle(g->net, i);
        return;
    }
    i -= g->task_icnt;
    if (i < g->task_chan) {
        sim_chans_task(g, i, m, me);
        return;
    }
    uint32_t s = g->active[i - g->task_chan];
    sm *u = g->sm[s];
    mem_q *out = sm_outbound(u);
    if (g->popq[s / 64] >> (s % 64) & 1) /* phase C sent it */
        (void)mem_q_pop(out);
    if (g->inbox_bits[s / 64] >> (s % 64) & 1)
        sm_inbound_push(u, &g->inbox[s]);
    uint64_t *f = sim_sm_task_end(g, s, me, sm_cycle(u, g->cycle)), bit = 1ull << (s % 64);
    if (!mem_q_empty(out)) {
        g->outbox[s] = *mem_q_front(out);
        f[SMF_OUT * g->smf_words] |= bit;
        if (out->n > 1)
            f[SMF_OUT2 * g->smf_words] |= bit;
    }
    if (sm_active_inside(u))
        f[SMF_ACT * g->smf_words] |= bit;
    if (g->park_at[s])
        f[SMF_PARK * g->smf_words] |= bit;
    if (sm_inbound_room(u))
        f[SMF_INROOM * g->smf_words] |= bit;
    if (sm_ctas_done(u))
        f[SMF_DONE * g->smf_words] |= bit;
}

/* Before task i runs (the thread's next, most likely): a reply in its SM's inbox was written
 * on the main thread's core, a line the task would otherwise wait for as it starts. Any task
 * number is safe, a stale or stolen one only fetches a line for nothing. */
void sim_task_prefetch(const sim *g, uint32_t i)
{
    uint32_t first = g->task_ahead + g->task_icnt + g->task_chan;
    if (g->job || i < first || i - first >= g->nactive)
        return;
    uint32_t s = g->active[i - first];
    if (g->inbox_bits[s / 64] >> (s % 64) & 1)
        __builtin_prefetch(&g->inbox[s]);
}

/* Serial: kind k's bits of word w from every thread, which are cleared (taken). */
uint64_t sim_smf_take(sim *g, int k, uint32_t w)
{
    uint64_t v = 0;
    for (uint32_t t = 0; t < g->smf_threads; t++) {
        uint64_t *f = &g->smf[(size_t)t * g->smf_stride + (size_t)k * g->smf_words + w];
        v |= *f;
        *f = 0;
    }
    return v;
}

/* The thread a task belongs to when nothing is stolen (team schedule only, which has no
 * read-ahead task: its read-ahead is a background job): SMs and channels in contiguous blocks
 * by index, so a unit's state stays in one core's cache; the interconnect's subnets on the
 * main thread, whose serial phases push into and pop from their rings. Asked for every task
 * of every edge, so the blocks are tables made once (homes), not a division per task. */
uint32_t sim_task_owner(const sim *g, uint32_t i, uint32_t threads)
{
    if (g->job)
        return (uint32_t)((uint64_t)i * threads / g->job_n);
    if (i < g->task_icnt)
        return 0;
    i -= g->task_icnt;
    if (i < g->task_chan)
        return g->home_chan[g->ch.task[i]];
    return g->home_sm[g->active[i - g->task_chan]];
}

#ifdef _OPENMP
/* The home threads of the SMs and channels for a team of `threads`. The serial phases run on
 * the main thread and push into or pop from some channel's queues every cycle: a channel
 * homed on another thread costs host lines from that thread's core each time, where an SM
 * costs one line a message (its inbox or outbox). With team_chan_home=main the channels all
 * live on the main thread, which starts with half a share of the SMs; otherwise the channels
 * are in equal blocks like the SMs. The SM blocks' borders move later (sim_homes_rebalance). */
static void homes_init(sim *g, uint32_t threads)
{
    g->home_sm = base_malloc(((size_t)g->n_sm + g->n_chan + threads + 1) * sizeof *g->home_sm);
    g->home_chan = g->home_sm + g->n_sm;
    g->sm_first = g->home_chan + g->n_chan;
    int chan_main = g->k.team_chan_home == 1 || (g->k.team_chan_home == 0 && threads == 2);
    /* in half shares: thread 0 has 1 with the channels, 2 without; the others 2 each */
    uint64_t halves = 2ull * threads - (uint64_t)chan_main;
    for (uint32_t t = 0; t <= threads; t++) {
        uint64_t before = t ? 2ull * t - (uint64_t)chan_main : 0;
        g->sm_first[t] = (uint32_t)((before * g->n_sm + halves - 1) / halves);
    }
    for (uint32_t t = 0, s = 0; t < threads; t++)
        for (; s < g->sm_first[t + 1]; s++)
            g->home_sm[s] = t;
    for (uint32_t c = 0; c < g->n_chan; c++)
        g->home_chan[c] = chan_main ? 0 : (uint32_t)((uint64_t)c * threads / g->n_chan);
}
#endif

/* Host cores need not be equally fast (a virtual core may share its physical core with
 * another tenant), and a thread on a slower core leaves tasks that a faster one steals. A
 * stolen SM runs on a core whose cache does not hold it. So where a thread keeps taking
 * tasks from a neighbour, the SM on their border moves to the taker: the split follows the
 * cores' speeds and stealing becomes rare. Where each task runs never changes a result. */
void sim_homes_rebalance(sim *g)
{
    sim_team *t = &g->team;
    for (uint32_t k = 1; k < t->threads; k++) {
        uint32_t fwd = atomic_exchange_explicit(&t->steals[k - 1].next, 0, memory_order_relaxed);
        uint32_t back = atomic_exchange_explicit(&t->steals[k].prev, 0, memory_order_relaxed);
        uint32_t *first = &g->sm_first[k];
        if (fwd > back + SIM_REBALANCE_SLACK && *first + 1 < first[1])
            g->home_sm[(*first)++] = k - 1;
        else if (back > fwd + SIM_REBALANCE_SLACK && *first > first[-1] + 1)
            g->home_sm[--*first] = k;
    }
}

void sim_solo_jobs(sim *g, uint32_t n, void (*fn)(sim *g, void *ctx, uint32_t i), void *ctx)
{
#ifdef _OPENMP
    if (g->k.threads > 1 && n > 1) {
        sim_omp_fork(g);
#pragma omp parallel for schedule(dynamic, 1) num_threads((int)g->k.threads)
        for (uint32_t i = 0; i < n; i++) {
            sim_omp_enter(g);
            fn(g, ctx, i);
            sim_omp_leave(g);
        }
        sim_omp_join(g);
        return;
    }
#endif
    for (uint32_t i = 0; i < n; i++)
        fn(g, ctx, i);
}

void sim_team_jobs(sim *g, uint32_t n, void (*fn)(sim *g, void *ctx, uint32_t i), void *ctx)
{
    if (g->windowed) { /* no team in this mode: a parallel loop of its own (a memcpy's L2
                        * prefill of 50 MB took 0.11 s on one thread, 2% of a run) */
        sim_solo_jobs(g, n, fn, ctx);
        return;
    }
    if (!g->use_team || g->team_deferred || n < 2 || n > g->team.max_tasks) {
        for (uint32_t i = 0; i < n; i++)
            fn(g, ctx, i);
        return;
    }
    g->job = fn;
    g->job_ctx = ctx;
    g->job_n = n;
    sim_team_run(g, n, 0); /* publishing the tasks publishes the job with them */
    g->job = NULL;
}

#ifdef _OPENMP
/* Phase B's tasks on OpenMP's threads (omp_schedule static or dynamic). */
static void run_tasks_omp(sim *g, uint32_t n, unsigned m)
{
    sim_omp_fork(g);
    if (g->k.omp_schedule == 2) {
#pragma omp parallel for schedule(dynamic, 1) num_threads((int)g->k.threads)
        for (uint32_t i = 0; i < n; i++) {
            sim_omp_enter(g);
            sim_run_task(g, i, m, (uint32_t)omp_get_thread_num());
            sim_omp_leave(g);
        }
    } else {
#pragma omp parallel for schedule(static) num_threads((int)g->k.threads)
        for (uint32_t i = 0; i < n; i++) {
            sim_omp_enter(g);
            sim_run_task(g, i, m, (uint32_t)omp_get_thread_num());
            sim_omp_leave(g);
        }
    }
    sim_omp_join(g);
}
#endif

/* Phase B's tasks handed to the team or to OpenMP's threads (returns 1), or left for the
 * main thread to run alone (0). */
static int hand_over(sim *g, uint32_t n, unsigned m)
{
    /* memory-only edges (DRAM clocks run faster than the core) go to the team too: its
     * dispatch costs less than a dozen channels' DRAM cycles */
    if (g->use_team && !g->adapt.solo && (g->nactive > 1 || g->task_chan > 1)) {
        sim_team_run(g, n, m);
        return 1;
    }
    g->team.p_solo += g->use_team && !g->team_deferred;
#ifdef _OPENMP
    if (!g->use_team && g->k.threads > 1 && g->nactive > 1) {
        run_tasks_omp(g, n, m);
        return 1;
    }
#endif
    return 0;
}

/* team_profile: the kind of task i of this edge (the order of sim_run_task). */
static int task_kind(const sim *g, uint32_t i)
{
    if (i < g->task_ahead)
        return SIM_LP_AHEAD;
    i -= g->task_ahead;
    if (i < g->task_icnt)
        return SIM_LP_XBAR;
    return i - g->task_icnt < g->task_chan ? SIM_LP_CHAN : SIM_LP_SM;
}

/* run_tasks under team_profile: the same tasks in the same order, their ticks tallied. */
static void run_tasks_timed(sim *g, uint32_t n, unsigned m)
{
    sim_lprof *p = g->lp;
    uint64_t t = sim_ticks();
    if (hand_over(g, n, m)) {
        sim_lap(p, SIM_LP_TEAM, t);
        p->team_edges++;
        return;
    }
    p->alone_edges++;
    for (uint32_t i = 0; i < n; i++) {
        sim_run_task(g, i, m, 0);
        int k = task_kind(g, i);
        t = sim_lap(p, k, t);
        p->n[k]++;
    }
}

static void run_tasks(sim *g, uint32_t n, unsigned m)
{
    if (g->lp) {
        run_tasks_timed(g, n, m);
        return;
    }
    if (!hand_over(g, n, m))
        for (uint32_t i = 0; i < n; i++)
            sim_run_task(g, i, m, 0);
}

/* Phase B, then the interconnect cycle of an interconnect edge (its subnets as tasks). */
static void phase_b(sim *g, unsigned m)
{
    if (m == 1u << CLK_DRAM && g->k.dram_defer) {
        g->nactive = 0;
        sim_chans_defer(g);
        return;
    }
    if (m & 1u << CLK_CORE)
        collect_active(g);
    else
        g->nactive = 0;
    /* any other edge runs the deferred DRAM cycles: none may wait past a serial phase */
    g->task_chan = (m & (1u << CLK_DRAM | 1u << CLK_L2)) || g->ch.pend ? sim_chans_plan(g, m) : 0;
    if (g->use_team) {
        g->task_ahead = 0;
        if ((m & 1u << CLK_CORE) && !g->team_deferred)
            sim_ahead_post(g);
    } else {
        g->task_ahead = g->nactive > 1 && sim_ahead_wanted(g);
    }
    g->task_icnt = (m & 1u << CLK_ICNT) ? icnt_cycle_begin(g->net) : 0;
    run_tasks(g, g->task_ahead + g->task_icnt + g->task_chan + g->nactive, m);
    sim_chans_after(g, g->task_chan);
    if (m & 1u << CLK_ICNT)
        icnt_cycle_end(g->net);
}

/* ---- phase C ----------------------------------------------------------------------------- */

/* Each SM with a request waiting sends its oldest, in SM order (as the active list was),
 * from the copy in its outbox. The SMs that ran keep their maybe_active bit while they have
 * work: inside (their task's SMF_ACT) or in the outbound queue after this. One whose queue is
 * left empty with nothing inside would run no next cycle to pop the head: popped here. */
static void sms_to_icnt(sim *g)
{
    uint32_t sm_words = (g->n_sm + 63) / 64;
    memset(g->popq, 0, sm_words * sizeof *g->popq); /* the SMs' tasks have popped them */
    for (uint32_t w = 0; w < g->smf_words; w++) {
        g->moved += sim_smf_take(g, SMF_PROG, w) != 0;
        uint64_t act = sim_smf_take(g, SMF_ACT, w), bits = sim_smf_take(g, SMF_OUT, w);
        uint64_t more = sim_smf_take(g, SMF_OUT2, w);
        uint64_t room = sim_smf_take(g, SMF_INROOM, w), sent = 0;
        if (w < sm_words)
            g->outq_left[w] = bits;
        act |= bits & more;
        if (sim_spread(g))
            for (uint64_t b = bits; b; b &= b - 1)
                __builtin_prefetch(&g->outbox[w * 64 + (uint32_t)__builtin_ctzll(b)]);
        while (bits) {
            uint32_t s = w * 64 + (uint32_t)__builtin_ctzll(bits);
            uint64_t bit = bits & -bits;
            bits &= bits - 1;
            const mem_req *x = &g->outbox[s];
            if (!icnt_try_push(g->net, ICNT_REQ, s, x->part, x, mem_req_bytes(x, 0))) {
                act |= bit;
                continue;
            }
            g->moved++;
            g->popq[w] |= bit;
            sent |= bit;
            if (!(act & bit))
                sim_sm_sync_pop(g, s);
        }
        if (w < sm_words) {
            uint64_t pk = sim_smf_take(g, SMF_PARK, w);
            g->parked[w] = (g->parked[w] & ~g->ran[w]) | pk;
            for (; pk; pk &= pk - 1) {
                uint64_t t = g->park_at[w * 64 + (uint32_t)__builtin_ctzll(pk)];
                if (t < g->park_min[w])
                    g->park_min[w] = t;
            }
            g->outq_left[w] &= ~sent | more;
            g->maybe_active[w] = (g->maybe_active[w] & ~g->ran[w]) | act;
            g->inroom[w] = (g->inroom[w] & ~g->ran[w]) | room;
        }
    }
}

static void adapt_edge(sim *g)
{
    int w = sim_adapt_edge(&g->adapt);
    if (!w)
        return;
    double now = base_now_s();
    if (w == SIM_ADAPT_FULL || sim_adapt_lost(&g->adapt, now))
        sim_adapt_window(&g->adapt, now);
}

/* team_profile: the ticks since *t go to phase k (nothing without the profile). */
static void lap(sim *g, int k, uint64_t *t)
{
    if (g->lp)
        *t = sim_lap(g->lp, k, *t);
}

/* Phase C; t: the profile's clock as it starts (lap). */
static int core_cycle(sim *g, base_err *e, uint64_t t)
{
    g->sm_upto = g->cycle + 1; /* phase B of this cycle has run */
    sms_to_icnt(g);
    lap(g, SIM_LP_REQUESTS_OUT, &t);
    sim_retire(g);
    lap(g, SIM_LP_RETIRE, &t);
    if (sim_kernels_advance(g, e) || sim_issue_ctas(g, e))
        return -1;
    lap(g, SIM_LP_CTAS, &t);
    g->cycle++;
    if (g->use_team && !g->team_deferred && g->k.team_adapt)
        adapt_edge(g);
    return 0;
}

/* A launch latency counting down is waiting with an end, not a deadlock (a watchdog shorter
 * than kernel_launch_latency used to stop every run at its first launch). */
int sim_watchdog(sim *g, base_err *e, FILE *diag)
{
    if (g->moved || sim_kernels_launching(g)) {
        g->moved = 0;
        g->last_progress_cycle = g->cycle;
        return 0;
    }
    if (!g->k.watchdog_cycles || g->cycle - g->last_progress_cycle < (uint64_t)g->k.watchdog_cycles)
        return 0;
    if (diag)
        sim_diagnose(g, diag);
    return base_fail(e, BASE_EXIT_INTERNAL,
                     "no progress for %lld core cycles at cycle %llu: the simulated GPU is "
                     "deadlocked (diagnosis above; watchdog_cycles sets the limit)",
                     (long long)g->k.watchdog_cycles, (unsigned long long)g->cycle);
}

int sim_stop_now(sim *g)
{
    if (g->k.max_cycles && g->cycle >= (uint64_t)g->k.max_cycles)
        return 1;
    if (g->k.max_insts) {
        uint64_t n = 0;
        for (uint32_t i = 0; i < g->n_sm; i++)
            n += sm_warp_insts(g->sm[i]);
        return n >= (uint64_t)g->k.max_insts;
    }
    return 0;
}

static int step(sim *g, base_err *e)
{
    unsigned m = sim_next_edges(g);
    uint64_t t = 0;
    if (g->lp) {
        t = sim_ticks();
        g->lp->edges++;
        g->lp->core_edges += (m & 1u << CLK_CORE) != 0;
    }
    g->sm_upto = g->cycle;
    if (m & 1u << CLK_CORE) {
        replies_to_sms(g);
        lap(g, SIM_LP_REPLIES_IN, &t);
    }
    if (m & 1u << CLK_ICNT) {
        sim_chans_replies_out(g);
        lap(g, SIM_LP_REPLIES_OUT, &t);
    }
    if (m & 1u << CLK_L2) {
        icnt_to_parts(g);
        lap(g, SIM_LP_REQUESTS_IN, &t);
    }
    phase_b(g, m);
    lap(g, SIM_LP_PHASE_B, &t);
    if (m & 1u << CLK_CORE)
        return core_cycle(g, e, t) ? -1 : 1;
    return 0;
}

/* The simulation proper: edges until every command is done (0), an error (-1), or a stop
 * knob (0); with `until` above 0, also until the host clock passes it, checked every 256
 * core edges (1: call again to go on). */
static int loop_edges(sim *g, base_err *e, FILE *diag, double until)
{
    int rc = 0;
    if (!g->loop_began) {
        g->loop_began = 1;
        rc = sim_kernels_advance(g, e);
    }
    while (rc == 0 && !sim_all_done(g)) {
        int core = step(g, e);
        if (core < 0) {
            rc = -1;
            break;
        }
        if (!core)
            continue;
        int moved = g->moved != 0;
        if (sim_watchdog(g, e, diag)) {
            rc = -1;
            break;
        }
        if (sim_stop_now(g)) {
            g->res->stopped = 1;
            break;
        }
        if (g->progress && (g->cycle & 1023) == 0)
            sim_progress(g, 0);
        sim_ff_after_core(g, moved);
        /* counted, not read off the cycle: a fast-forward jumps over cycles. The clock (30 ns)
         * is read every 16 edges: a period must end near its time even where the first
         * CTAs' reads make edges slow (sgemm 256: 256 edges took 190 ms, not 10) */
        if ((++g->loop_edges & 15) == 0 && until > 0 && base_now_s() > until)
            return 1;
    }
    sim_sync_sms(g);
    return rc;
}

/* loop_edges, under team_profile with its time and ticks counted (the loop profile's scale). */
static int run_loop(sim *g, base_err *e, FILE *diag, double until)
{
    if (!g->lp)
        return loop_edges(g, e, diag, until);
    double s0 = base_now_s();
    uint64_t k0 = sim_ticks();
    int rc = loop_edges(g, e, diag, until);
    g->lp->loop_ticks += sim_ticks() - k0;
    g->lp->loop_s += base_now_s() - s0;
    return rc;
}

/* Whether a solo period's core edges were long enough for a team of the run's threads to
 * beat the main thread alone. Handing an edge over costs the team about h (the threads'
 * wake-up and the last task's end reaching the main thread), so T threads win only where an
 * edge of d takes d/T + h < d, d > h T/(T-1); team_min_edge_us is that bound for two threads,
 * 2h. */
static int team_pays(sim *g, double secs, uint64_t edges)
{
    double t = (double)g->k.threads, min_us = g->k.team_min_edge_us * t / (2.0 * (t - 1.0));
    g->res->solo_edge_us = edges ? secs * 1e6 / (double)edges : 0;
    return secs * 1e6 >= min_us * (double)edges;
}

/* Whether the run has enough solo time left to win back the helpers' start (a few ms on a
 * busy host: multi, five short kernels, ran 0.71-0.77x as fast on two threads as on one when
 * they started 22-34 ms into its 30 ms). The work left is counted in CTAs, a kernel not yet
 * launched as the mean launched one, and timed at the rate of the period just judged (`secs`,
 * `done` CTAs). No CTA done: no estimate, the team may start. */
int sim_work_left(sim *g, double secs, uint64_t done)
{
    g->res->solo_left_ms = -1;
    if (g->k.team_min_left_ms <= 0 || !done || !g->nrk)
        return 1;
    double total = (double)g->ctas_total_est * (double)g->list->nkernels / (double)g->nrk;
    double left = total > (double)g->ctas_done_all ? total - (double)g->ctas_done_all : 0;
    g->res->solo_left_ms = 1e3 * secs * left / (double)done;
    return g->res->solo_left_ms >= g->k.team_min_left_ms;
}

/* Runs the loop alone in periods of team_start_ms until it ends (returns 0 or -1) or a period
 * after the first shows edges a team can speed up and enough work left (1: start the
 * helpers). The first period is not judged: it holds the run's start (first touches of the
 * model's memory, the first CTAs read), which made pchase's first edges cost 2-40 us against
 * 0.1-0.2 later. */
static int run_solo_periods(sim *g, base_err *e, FILE *diag)
{
    for (int first = 1;; first = 0) {
        double t0 = base_now_s();
        uint64_t e0 = g->loop_edges, c0 = g->ctas_done_all;
        int rc = run_loop(g, e, diag, t0 + 1e-3 * (double)g->k.team_start_ms);
        if (rc != 1)
            return rc;
        double secs = base_now_s() - t0;
        if (first)
            continue;
        int pays = team_pays(g, secs, g->loop_edges - e0); /* both judged: both reported */
        if (sim_work_left(g, secs, g->ctas_done_all - c0) && pays)
            return rc;
    }
}

#ifdef _OPENMP
/* team_profile: the tallies into the result, in seconds (ticks scaled by the loop's); called
 * after the parallel region, when every helper has stopped. */
static void profile_keep(sim *g, double loop_s, uint64_t loop_ticks)
{
    sim_team *t = &g->team;
    if (!t->tick || !loop_ticks)
        return;
    double per = loop_s / (double)loop_ticks;
    sim_team_profile *p = base_calloc(1, sizeof *p);
    p->threads = t->threads;
    p->team_edges = t->p_edges;
    p->mem_edges = t->p_mem;
    p->solo_edges = t->p_solo;
    p->loop_s = loop_s;
    p->team_s = per * (double)t->p_team;
    p->publish_s = per * (double)t->p_publish;
    p->wait_s = per * (double)t->p_wait;
    p->busy_s = base_calloc(t->threads, sizeof *p->busy_s);
    p->tasks = base_calloc(2 * (size_t)t->threads, sizeof *p->tasks);
    p->stolen = p->tasks + t->threads;
    for (uint32_t i = 0; i < t->threads; i++) {
        p->busy_s[i] = per * (double)t->tick[i].busy;
        p->tasks[i] = t->tick[i].tasks;
        p->stolen[i] = t->tick[i].stolen;
    }
    g->res->prof = p;
}
#endif

/* With the team schedule and more than one thread, the helper threads live for the whole
 * loop (team.c); the main thread runs the loop and hands phase B to the team. The loop
 * first runs on the main thread alone, as a solo window with no helpers yet
 * (team_deferred), for at least two periods of team_start_ms and for as long as its edges
 * are too short for the team (run_solo_periods): on the 2-core host starting the helpers took
 * 0.5-4 ms and their end up to as much again, where a small trace's whole run takes a few ms
 * (ffma on two threads took 12-14 ms against 6 on one), and on edges of 0.1-3 us the team
 * lost (pchase 0.74-0.78x, hmma 0.85-0.90x). A run that ends sooner never starts them. */
static int run_parallel(sim *g, base_err *e, FILE *diag)
{
    if (g->k.sync_window > 0)
        return sim_run_windowed(g, e, diag);
#ifdef _OPENMP
    /* phase B's most tasks: the read-ahead, two subnets, every channel and SM */
    uint32_t most = 3 + g->n_chan + g->n_sm;
    if (g->k.threads > 1 && g->k.omp_schedule == 0 && most <= sim_team_max_tasks()) {
        sim_team_init(&g->team, (uint32_t)g->k.threads, most, g->k.team_profile);
        homes_init(g, (uint32_t)g->k.threads);
        g->use_team = 1;
        g->team_deferred = 1;
        g->adapt.solo = 1;
        g->res->solo_left_ms = -1;
        int rc = g->k.team_start_ms ? run_solo_periods(g, e, diag) : 1;
        g->team_deferred = 0;
        g->res->team_threads = (int)g->k.threads;
        g->res->team_start_s = rc == 1 ? sim_wall() - g->t0 : -1;
        if (rc == 1) {
            sim_adapt_init(&g->adapt, base_now_s(), (uint32_t)g->k.threads);
            double loop_s = 0;
            uint64_t loop_ticks = 0;
            sim_omp_fork(g);
#pragma omp parallel num_threads((int)g->k.threads)
            {
                sim_omp_enter(g);
                if (omp_get_thread_num() == 0) {
                    double s0 = base_now_s();
                    uint64_t k0 = sim_ticks();
                    rc = run_loop(g, e, diag, 0);
                    sim_team_stop(&g->team);
                    loop_s = base_now_s() - s0;
                    loop_ticks = sim_ticks() - k0;
                } else {
                    sim_team_work(g, (uint32_t)omp_get_thread_num());
                }
                sim_omp_leave(g);
            }
            sim_omp_join(g);
            profile_keep(g, loop_s, loop_ticks); /* the helpers have stopped: their lines hold */
        }
        g->use_team = 0;
        sim_team_free(&g->team);
        free(g->home_sm);
        g->home_sm = g->home_chan = NULL;
        g->sm_first = NULL;
        return rc;
    }
#endif
    return run_loop(g, e, diag, 0);
}

/* team_profile in the exact mode: the loop profile into the result, in seconds (ticks scaled
 * by the loop's); phase B's own books are its time less its tasks'. */
static void lprof_keep(sim *g)
{
    sim_lprof *p = g->lp;
    if (!p)
        return;
    sim_loop_profile *q = base_calloc(1, sizeof *q);
    double per = p->loop_ticks ? p->loop_s / (double)p->loop_ticks : 0;
    q->edges = p->edges;
    q->core_edges = p->core_edges;
    q->alone_edges = p->alone_edges;
    q->team_edges = p->team_edges;
    q->loop_s = p->loop_s;
    for (int k = 0; k < SIM_LP_N; k++) {
        q->s[k] = per * (double)p->t[k];
        q->tasks[k] = p->n[k];
    }
    for (int k = SIM_LP_AHEAD; k <= SIM_LP_TEAM; k++)
        q->s[SIM_LP_PHASE_B] -= q->s[k];
    g->res->lprof = q;
    free(p);
    g->lp = NULL;
}

int sim_run(sim *g, const trace_list *l, sim_result *r, FILE *diag, FILE *progress, base_err *e)
{
    memset(r, 0, sizeof *r);
    g->list = l;
    g->res = r;
    g->progress = progress;
    g->t0 = g->last_print = sim_wall();
    r->k = base_calloc(l->nkernels + 1, sizeof *r->k);
    g->rk = base_calloc(l->nkernels + 1, sizeof *g->rk);
    g->done_by_uid = base_calloc(l->nkernels + 2, sizeof *g->done_by_uid);
    if (g->k.team_profile && g->k.sync_window <= 0)
        g->lp = base_calloc(1, sizeof *g->lp);
    int rc = run_parallel(g, e, diag);
    lprof_keep(g);
    r->drained = rc == 0 && sim_drained(g);
    if (progress)
        sim_progress(g, 1);
    sim_finish_kernels(g);
    r->wall_s = sim_wall() - g->t0;
    r->ff_cycles = g->ff_skipped;
    sim_totals_init(&r->total);
    sim_snapshot(g, &r->total);
    for (uint32_t i = 0; i < g->n_sm; i++)
        r->park_cycles += sm_park_skipped(g->sm[i]);
    r->n_sm = g->n_sm;
    r->n_sub = g->n_sub_total;
    r->n_chan = g->n_chan;
    r->per_sm = base_calloc(g->n_sm, sizeof *r->per_sm);
    r->per_sm_l1d = base_calloc(g->n_sm, sizeof *r->per_sm_l1d);
    for (uint32_t i = 0; i < g->n_sm; i++) {
        stat_block_init(&r->per_sm[i], sm_stats_set());
        stat_block_add(&r->per_sm[i], sm_stats(g->sm[i]));
        stat_block_init(&r->per_sm_l1d[i], cache_stats_set());
        stat_block_add(&r->per_sm_l1d[i], sm_l1d_stats(g->sm[i]));
    }
    r->per_sub_l2 = base_calloc(g->n_sub_total, sizeof *r->per_sub_l2);
    for (uint32_t i = 0; i < g->n_sub_total; i++) {
        stat_block_init(&r->per_sub_l2[i], cache_stats_set());
        stat_block_add(&r->per_sub_l2[i], mem_part_l2_stats(g->part[i / g->n_sub], i % g->n_sub));
    }
    r->per_chan_dram = base_calloc(g->n_chan, sizeof *r->per_chan_dram);
    for (uint32_t i = 0; i < g->n_chan; i++) {
        stat_block_init(&r->per_chan_dram[i], dram_stats_set());
        stat_block_add(&r->per_chan_dram[i], dram_stats(mem_part_dram(g->part[i])));
    }
    if (rc == 0)
        r->ledger = sim_ledger_check(&g->k, r, r->ledger_why, sizeof r->ledger_why);
    return rc;
}
