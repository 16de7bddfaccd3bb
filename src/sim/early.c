/* sim early SM cycles: the helpers' work while the main thread runs the serial phases.
 *
 * Between an edge's phase B and the next core edge's, the main thread runs phase C (the SMs'
 * requests into the interconnect, CTA retire and issue) and the next phase A (replies into
 * the SMs' inboxes), and the helpers used to wait (vectoradd 1M on two threads: a fifth of
 * the loop). An SM that those phases cannot touch runs its next cycle on exactly the state it
 * has now, so a helper runs that cycle then. Such an SM's task (on that helper) left no
 * request to send, no finished CTA and no park, and work inside, so it runs next cycle
 * (sim_sm_report puts it on the helper's list); at the go the main thread adds that it has no
 * reply in the interconnect's outputs (with the interconnect on the core clock nothing
 * reaches them before the next phase A) and that no CTA may be issued to it (its sm_open bit
 * clear). Its report goes to the other flag bank, phase C's at the next cycle, and that
 * cycle's phase B skips it (early_ran).
 *
 * Nothing else may look at such an SM before then. The edges whose phase C may end or launch
 * a kernel (sim_kernels_may_end), a fast-forward's probe, max_cycles' last cycle and the
 * progress line's get no early cycles; max_insts turns them off; whatever else may touch an
 * SM first ends them (sim_early_join: a decode that grows the kernel's table, a team job,
 * the next phase B, the end of the loop, the watchdog's diagnosis).
 *
 * The main thread says go with one word (team.early = epoch << 1) and stop with its low bit.
 * A helper marks itself running, then reads the word again; the main thread writes stop, then
 * reads the helper's mark (all four sequentially consistent): either the helper sees stop and
 * runs nothing, or the main thread sees it running and waits for its end. A helper reads the
 * word between SMs too and leaves the rest to phase B. Which SMs ran early never changes a
 * result: each runs the same cycle on the same state, as the tests check at 1-4 threads. */
#include "sim_int.h"

#include <stdlib.h>
#include <string.h>

static inline void pause_cpu(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

void sim_early_init(sim *g)
{
    sim_team *t = &g->team;
    g->early_ok = g->k.team_early && t->threads > 1 && !g->k.max_insts &&
                  g->n_sm <= 64 * SIM_EARLY_WORDS &&
                  g->period[CLK_ICNT] == g->period[CLK_CORE] &&
                  g->next[CLK_ICNT] == g->next[CLK_CORE];
    if (!g->early_ok)
        return;
    t->early_st = aligned_alloc(64, t->threads * sizeof *t->early_st);
    t->early_thr = aligned_alloc(64, t->threads * sizeof *t->early_thr);
    if (!t->early_st || !t->early_thr)
        base_panic("out of memory (early SM cycles)");
    for (uint32_t i = 0; i < t->threads; i++) {
        atomic_init(&t->early_st[i].w, 0);
        memset(t->early_st[i].ran, 0, sizeof t->early_st[i].ran);
        sim_early_thr *h = &t->early_thr[i];
        h->fill = 0;
        h->t_go = 0;
        h->serial = UINT64_MAX; /* unmeasured: no budget yet */
        h->task = UINT64_MAX;
        for (int k = 0; k < 2; k++)
            h->l[k] = (sim_early_list){UINT64_MAX, 0, base_calloc(g->n_sm, sizeof(uint32_t))};
    }
    g->early_allow = base_calloc(SIM_EARLY_WORDS, sizeof *g->early_allow);
    g->early_ran = base_calloc(SIM_EARLY_WORDS, sizeof *g->early_ran);
}

void sim_early_free(sim *g)
{
    sim_team *t = &g->team;
    if (t->early_thr)
        for (uint32_t i = 0; i < t->threads; i++)
            for (int k = 0; k < 2; k++)
                free(t->early_thr[i].l[k].sm);
    free(t->early_thr);
    free(t->early_st);
    t->early_thr = NULL;
    t->early_st = NULL;
    free(g->early_allow);
    free(g->early_ran);
    g->early_allow = g->early_ran = NULL;
    g->early_ok = 0;
}

void sim_early_go(sim *g)
{
    if (!g->early_ok || !g->edge_team || g->ff_armed || g->ff_hold)
        return;
    if (g->k.max_cycles && g->cycle + 1 >= (uint64_t)g->k.max_cycles)
        return;
    if (g->progress && ((g->cycle + 1) & 1023) == 0)
        return;
    if (sim_kernels_may_end(g))
        return;
    for (uint32_t w = 0; w < (g->n_sm + 63) / 64; w++)
        g->early_allow[w] = ~g->sm_open[w];
    if (icnt_subnet_busy(g->net, ICNT_REP))
        for (uint32_t s = icnt_next_held(g->net, ICNT_REP, 0); s < g->n_sm;
             s = icnt_next_held(g->net, ICNT_REP, s + 1))
            g->early_allow[s / 64] &= ~(1ull << (s % 64));
    g->early_cycle = g->cycle;
    g->early_smf = g->smf == g->smf_bank[0] ? g->smf_bank[1] : g->smf_bank[0];
    g->early_e = g->team.epoch;
    atomic_store_explicit(&g->team.early, (uint64_t)g->early_e << 1, memory_order_release);
}

/* Helper i's early cycles of epoch e have ended, or will never begin: 1 if it ran some. */
static int join_one(sim *g, uint32_t i, uint32_t e, int *stopped)
{
    sim_team *t = &g->team;
    _Atomic uint64_t *w = &t->early_st[i].w;
    uint64_t done = (uint64_t)e << 2 | SIM_EARLY_DONE;
    uint64_t v = atomic_load_explicit(w, memory_order_acquire);
    if (v != done) {
        if (!*stopped) {
            atomic_store_explicit(&t->early, (uint64_t)e << 1 | 1, memory_order_seq_cst);
            *stopped = 1;
        }
        v = atomic_load_explicit(w, memory_order_seq_cst);
        if (v != done && v != ((uint64_t)e << 2 | SIM_EARLY_RUNNING))
            return 0; /* it has not begun, and will see stop when it does */
        while (atomic_load_explicit(w, memory_order_acquire) != done)
            pause_cpu();
    }
    int any = 0;
    for (uint32_t k = 0; k < (g->n_sm + 63) / 64; k++) {
        uint64_t r = t->early_st[i].ran[k];
        g->early_ran[k] |= r;
        g->early_total += (uint64_t)__builtin_popcountll(r);
        any |= r != 0;
    }
    return any;
}

int sim_early_join(sim *g)
{
    if (!g->early_e)
        return g->early_any;
    uint32_t e = g->early_e;
    int stopped = 0;
    g->early_e = 0;
    for (uint32_t i = 1; i < g->team.threads; i++)
        g->early_any |= join_one(g, i, e, &stopped);
    return g->early_any;
}

/* A running mean (1/8 weight) of tick counts; one sample counts at most 4 times the mean
 * and 2000 ticks: a moment the host took the core away is neither a task nor a phase. */
static void mean_add(uint64_t *m, uint64_t x)
{
    if (*m == UINT64_MAX) {
        *m = x;
        return;
    }
    if (x > 4 * *m + 2000)
        x = 4 * *m + 2000;
    *m = (uint64_t)((int64_t)*m + ((int64_t)x - (int64_t)*m) / 8);
}

/* The helper saw the main thread's next step (a stop, or a new epoch) at `now`. */
static void seen_at(sim_early_thr *h, uint64_t now)
{
    if (h->t_go) {
        mean_add(&h->serial, now - h->t_go);
        h->t_go = 0;
    }
}

void sim_early_seen(sim *g, uint32_t me)
{
    sim_early_thr *h = &g->team.early_thr[me];
    if (h->t_go)
        seen_at(h, sim_ticks());
}

void sim_early_run(sim *g, uint32_t me, uint32_t e)
{
    sim_team *t = &g->team;
    sim_early_st *st = &t->early_st[me];
    sim_early_thr *h = &t->early_thr[me];
    uint64_t go = (uint64_t)e << 1, ran[SIM_EARLY_WORDS] = {0};
    atomic_store_explicit(&st->w, (uint64_t)e << 2 | SIM_EARLY_RUNNING, memory_order_seq_cst);
    if (atomic_load_explicit(&t->early, memory_order_seq_cst) == go) {
        sim_early_list *l = &h->l[h->fill];
        h->fill ^= 1; /* the cycles run now fill the other list */
        uint64_t c = g->early_cycle + 1, t0 = sim_ticks(), now = t0;
        h->t_go = t0;
        for (uint32_t i = 0; l->cyc == g->early_cycle && i < l->n; i++) {
            uint32_t s = l->sm[i];
            if (!(g->early_allow[s / 64] >> (s % 64) & 1))
                continue;
            uint64_t task = h->task == UINT64_MAX ? 0 : h->task;
            if (h->serial != UINT64_MAX && now - t0 + task > h->serial / 10 * 7)
                break; /* the main thread is due: ending first spares it the stop */
            if (atomic_load_explicit(&t->early, memory_order_relaxed) != go) {
                seen_at(h, now);
                break; /* the main thread waits: phase B runs the rest */
            }
            sim_sm_report(g, s, me, sm_cycle(g->sm[s], c), g->early_smf, c);
            ran[s / 64] |= 1ull << (s % 64);
            uint64_t t1 = sim_ticks();
            mean_add(&h->task, t1 - now);
            now = t1;
        }
        l->cyc = UINT64_MAX;
        l->n = 0;
    }
    memcpy(st->ran, ran, sizeof ran);
    atomic_store_explicit(&st->w, (uint64_t)e << 2 | SIM_EARLY_DONE, memory_order_release);
}
