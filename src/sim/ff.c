/* sim fast-forward: jump over cycles in which no unit can act.
 *
 * After a core cycle, every unit says when it could next act without new input (sm_next_wake,
 * mem_part_wake, the interconnect being empty, kernels waiting for their launch latency).
 * When that is at least FF_MIN core cycles away, the next core cycle runs as a probe with
 * the SMs' statistics saved: if nothing moved in it, every cycle up to the wake is a repeat of
 * it, so the jump adds the probe's SM statistics once per skipped cycle, advances each clock
 * domain by its skipped edges and gives the DRAM and interconnect their idle-cycle counts.
 * The run's statistics are those of the cycle-by-cycle run (fast_forward=0), which the tests
 * check on every workload. */
#include "sim_int.h"

#include <stdlib.h>
#include <string.h>

#define FF_MIN 4 /* core cycles: shorter gaps are not worth a probe */
#define NOW 0    /* a wake time meaning "may act at its next edge" */

/* fs time of the core edge that simulates cycle x (x >= g->cycle). */
static uint64_t core_edge(const sim *g, uint64_t x)
{
    return g->next[CLK_CORE] + (x - g->cycle) * g->period[CLK_CORE];
}

/* The first core cycle the kernels may make something happen: a command still to be read,
 * CTA issue or a kernel end (now: g->cycle), a launch latency's end (first_cta), or never. */
uint64_t sim_kernels_wake(const sim *g)
{
    /* a memcpy or a launch still to be read, or a kernel read that may launch now: the
     * kernel before it ended after this cycle's launch attempt (its file's end was found
     * by the CTA issue that follows), and the next attempt launches it */
    if (g->next_cmd < g->list->ncmds && (!g->pending_tk || sim_kernel_pending_may_launch(g)))
        return g->cycle;
    uint64_t t = UINT64_MAX;
    for (size_t i = 0; i < g->nrk; i++) {
        const run_kernel *rk = &g->rk[i];
        if (rk->state != RK_RUN)
            continue;
        if (rk->eof) {
            if (g->done_by_uid[rk->kk.uid] == rk->issued)
                return g->cycle;
            continue;
        }
        if (g->cycle < rk->first_cta) {
            t = sim_min_u64(t, rk->first_cta);
            continue;
        }
        for (uint32_t s = 0; s < g->n_sm; s++)
            if (sm_cta_fits(g->sm[s], &rk->kk))
                return g->cycle;
    }
    return t;
}

/* The same as an fs time (NOW: the next edge may act). */
static uint64_t kernels_wake(const sim *g)
{
    uint64_t c = sim_kernels_wake(g);
    return c <= g->cycle ? NOW : c == UINT64_MAX ? c : core_edge(g, c);
}

static uint64_t mem_wake(const sim *g)
{
    if (icnt_busy(g->net))
        return NOW;
    uint64_t t = UINT64_MAX;
    for (uint32_t c = 0; c < g->n_chan; c++) {
        if (!sim_chans_may_act(g, c))
            continue;
        uint64_t ct, dt;
        if (mem_part_wake(g->part[c], &ct, &dt))
            return NOW;
        if (ct != UINT64_MAX) {
            if (ct <= g->cycle)
                return NOW;
            t = sim_min_u64(t, core_edge(g, ct - 1)); /* memory edges after it see cycle ct */
        }
        if (dt != UINT64_MAX)
            t = sim_min_u64(t, g->next[CLK_DRAM] + dt * g->period[CLK_DRAM]);
    }
    return t;
}

/* The fs time before which no edge of any domain can act (NOW: the next one may). */
static uint64_t wake_time(const sim *g)
{
    uint64_t t = kernels_wake(g);
    if (t == NOW)
        return NOW;
    /* every SM that may have work, parked ones included (they wake at their park's end) */
    for (uint32_t wd = 0; wd < (g->n_sm + 63) / 64 && t != NOW; wd++) {
        for (uint64_t bits = g->maybe_active[wd]; bits && t != NOW; bits &= bits - 1) {
            const sm *u = g->sm[wd * 64 + (uint32_t)__builtin_ctzll(bits)];
            if (!sm_active(u))
                continue;
            /* a parked SM's queued requests leave one a cycle (collect_active) */
            uint64_t x = sm_parked(u) && !sm_queued_out(u) ? sm_park_until(u)
                                                            : sm_next_wake(u, g->cycle);
            t = x <= g->cycle ? NOW : sim_min_u64(t, x == UINT64_MAX ? x : core_edge(g, x));
        }
    }
    if (t == NOW)
        return NOW;
    return sim_min_u64(t, mem_wake(g));
}

/* The watchdog and max_cycles act at exact core cycles: never jump past them. */
static uint64_t cycle_cap(const sim *g)
{
    uint64_t cap = UINT64_MAX;
    if (g->k.watchdog_cycles)
        cap = g->last_progress_cycle + (uint64_t)g->k.watchdog_cycles - 1;
    if (g->k.max_cycles)
        cap = sim_min_u64(cap, (uint64_t)g->k.max_cycles - 1);
    return cap;
}

static uint64_t edges_before(const sim *g, int d, uint64_t t)
{
    return t > g->next[d] ? (t - g->next[d] + g->period[d] - 1) / g->period[d] : 0;
}

static void snapshot(sim *g)
{
    if (!g->ff_snap) {
        g->ff_snap = base_calloc(g->n_sm, sizeof *g->ff_snap);
        for (uint32_t i = 0; i < g->n_sm; i++)
            stat_block_init(&g->ff_snap[i], sm_stats_set());
    }
    for (uint32_t a = 0; a < g->nactive; a++) {
        uint32_t i = g->active[a];
        if (sm_active(g->sm[i]))
            memcpy(g->ff_snap[i].v, sm_stats(g->sm[i])->v,
                   (size_t)sm_stats_set()->nslots * sizeof *g->ff_snap[i].v);
    }
}

/* The core cycle the L2/DRAM edge at time t sees (core edges at t run after it). */
static uint64_t cycle_seen(const sim *g, uint64_t t) { return g->cycle + edges_before(g, CLK_CORE, t); }

static void jump(sim *g, uint64_t t)
{
    uint64_t n[CLK_N];
    for (int d = 0; d < CLK_N; d++)
        n[d] = edges_before(g, d, t);
    uint64_t last_mem = 0;
    for (int d = CLK_L2; d <= CLK_DRAM; d++)
        if (n[d] && g->next[d] + (n[d] - 1) * g->period[d] > last_mem)
            last_mem = g->next[d] + (n[d] - 1) * g->period[d];
    if (last_mem) {
        g->ch.now = cycle_seen(g, last_mem);
        for (uint32_t c = 0; c < g->n_chan; c++)
            mem_part_set_now(g->part[c], g->ch.now);
    }
    int nslots = sm_stats_set()->nslots;
    for (uint32_t a = 0; a < g->nactive; a++) {
        uint32_t i = g->active[a];
        /* an SM that parked in the probe counts the jumped cycles when it unparks */
        if (!sm_active(g->sm[i]) || sm_parked(g->sm[i]))
            continue;
        sm_park_disarm(g->sm[i]);
        uint64_t *v = sm_stats(g->sm[i])->v;
        for (int k = 0; k < nslots; k++)
            v[k] += (v[k] - g->ff_snap[i].v[k]) * n[CLK_CORE];
    }
    for (uint32_t c = 0; c < g->n_chan; c++)
        mem_part_skip(g->part[c], n[CLK_DRAM]);
    icnt_skip(g->net, n[CLK_ICNT]);
    for (int d = 0; d < CLK_N; d++)
        g->next[d] += n[d] * g->period[d];
    g->cycle += n[CLK_CORE];
    g->sm_upto = g->cycle;
    g->ff_skipped += n[CLK_CORE];
}

void sim_ff_after_core(sim *g, int moved)
{
    if (!g->k.fast_forward)
        return;
    int probed = g->ff_armed;
    g->ff_armed = 0;
    if (moved)
        return;
    uint64_t t = wake_time(g);
    uint64_t cap = cycle_cap(g);
    if (t == NOW || cap <= g->cycle + FF_MIN)
        return;
    t = sim_min_u64(t, core_edge(g, cap));
    if (t < core_edge(g, g->cycle + FF_MIN))
        return;
    if (!probed) {
        snapshot(g);
        g->ff_armed = 1;
        return;
    }
    jump(g, t);
}

void sim_ff_free(sim *g)
{
    if (!g->ff_snap)
        return;
    for (uint32_t i = 0; i < g->n_sm; i++)
        stat_block_free(&g->ff_snap[i]);
    free(g->ff_snap);
    g->ff_snap = NULL;
}
