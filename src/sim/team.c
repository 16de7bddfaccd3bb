/* sim team: the threads of a parallel run, kept for the whole run.
 *
 * Forking an OpenMP team per clock edge costs a wake-up and a full barrier every core cycle,
 * and a barrier waits for every thread, so one thread descheduled by the host stalls all the
 * others for a time slice. Here the helper threads stay alive and poll; the main thread
 * publishes the tasks of an edge and takes tasks itself; it then waits only for tasks some
 * thread has claimed, never for a thread that has not woken up yet.
 *
 * Each unit has a home thread (sim_task_owner: SMs and channels in contiguous blocks), and the
 * tasks of an edge are laid out grouped by home. A thread takes its own tasks from the front
 * of its range and, when that is empty, steals from the back of the others' (except the last
 * two tasks of a thread that has begun its range: work). An SM so runs on the same core edge
 * after edge and its state stays in that core's cache; with a shared task counter every SM
 * wandered between cores, which cost a third more time in the SM code itself on two threads,
 * and every claim fought over one cache line. Each thread counts the tasks it took from its
 * neighbours (and, with two threads, the main thread the edges it waited for the helper), and
 * every SIM_REBALANCE_EDGES edges the SM blocks' borders move toward the takers
 * (sim_homes_rebalance): cores of unequal speed get unequal blocks.
 *
 * A range is one word per thread (epoch, end, next), on its own cache line, changed by
 * compare-and-swap: a claim can only succeed on the epoch it read, so a late helper never takes
 * a task of a newer edge with a stale view. A helper reports the tasks it finished in an edge
 * on a line of its own (helpers_done). Which thread runs a task never matters: each task
 * writes only its own unit (sim.c, sim_run_task), so results are the same for every thread
 * count and interleaving. */
#include "sim_int.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define TEAM_BITS 16u
#define TEAM_MASK ((1u << TEAM_BITS) - 1)
#define TEAM_SPINS_BEFORE_YIELD 2000u
#define TEAM_SPINS_BEFORE_STEAL 64u
#define TEAM_STEAL_KEEP 2u

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static inline uint64_t pack(uint32_t epoch, uint32_t end, uint32_t next)
{
    return (uint64_t)epoch << (2 * TEAM_BITS) | (uint64_t)end << TEAM_BITS | next;
}

static inline uint32_t r_epoch(uint64_t v) { return (uint32_t)(v >> (2 * TEAM_BITS)); }
static inline uint32_t r_end(uint64_t v) { return (uint32_t)(v >> TEAM_BITS) & TEAM_MASK; }
static inline uint32_t r_next(uint64_t v) { return (uint32_t)v & TEAM_MASK; }

uint32_t sim_team_max_tasks(void) { return TEAM_MASK; }

void sim_team_init(sim_team *t, uint32_t threads, uint32_t max_tasks, int profile)
{
    t->tick = NULL;
    t->p_publish = t->p_wait = t->p_team = t->p_edges = t->p_mem = t->p_solo = 0;
    if (profile) {
        t->tick = aligned_alloc(64, (size_t)threads * sizeof *t->tick);
        if (!t->tick)
            base_panic("out of memory (thread team profile)");
        memset(t->tick, 0, (size_t)threads * sizeof *t->tick);
    }
    t->threads = threads;
    t->range = aligned_alloc(64, (size_t)threads * sizeof *t->range);
    t->steals = aligned_alloc(64, (size_t)threads * sizeof *t->steals);
    t->fin = aligned_alloc(64, (size_t)threads * sizeof *t->fin);
    if (!t->range || !t->steals || !t->fin)
        base_panic("out of memory (thread team ranges)");
    for (uint32_t i = 0; i < threads; i++) {
        atomic_init(&t->range[i].w, 0);
        atomic_init(&t->range[i].first, 0);
        atomic_init(&t->fin[i].w, 0);
        atomic_init(&t->steals[i].prev, 0);
        atomic_init(&t->steals[i].next, 0);
    }
    t->edges = 0;
    t->max_tasks = max_tasks;
    t->order = base_calloc(max_tasks, sizeof *t->order);
    t->home = base_calloc(max_tasks, sizeof *t->home);
    t->count = base_calloc((size_t)threads + 1, sizeof *t->count);
    atomic_init(&t->stop, 0);
    atomic_init(&t->keep, TEAM_STEAL_KEEP);
    atomic_init(&t->bg, 0);
    atomic_init(&t->bg_stop, 0);
    t->epoch = 0;
}

void sim_team_free(sim_team *t)
{
    free(t->range);
    free(t->fin);
    t->fin = NULL;
    free(t->tick);
    t->tick = NULL;
    free(t->steals);
    t->steals = NULL;
    free(t->order);
    free(t->home);
    free(t->count);
    t->range = NULL;
    t->order = t->home = t->count = NULL;
}

/* A task of range r in epoch e, from its front (its home thread) or its back (a thief). A
 * thief leaves the last `keep` tasks to a home thread that has begun its range. */
static int take(sim_team *t, uint32_t r, uint32_t e, int back, uint32_t keep, uint32_t *task)
{
    _Atomic uint64_t *w = &t->range[r].w;
    uint64_t v = atomic_load_explicit(w, memory_order_acquire);
    for (;;) {
        uint32_t next = r_next(v), end = r_end(v);
        if (r_epoch(v) != e || next >= end)
            return 0;
        if (back && end - next <= keep &&
            next != atomic_load_explicit(&t->range[r].first, memory_order_relaxed))
            return 0;
        uint64_t nv = back ? v - (1ull << TEAM_BITS) : v + 1;
        if (atomic_compare_exchange_weak_explicit(w, &v, nv, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *task = back ? end - 1 : next;
            return 1;
        }
    }
}

static void run_one(sim *g, sim_team *t, uint32_t task, uint32_t me)
{
    if (!t->tick) {
        sim_run_task(g, task, t->mask, me);
        return;
    }
    uint64_t t0 = sim_ticks();
    sim_run_task(g, task, t->mask, me);
    t->tick[me].busy += sim_ticks() - t0;
    t->tick[me].tasks++;
}

/* Thread `me` takes tasks of the others' ranges in epoch e, leaving each home thread that
 * has begun its last `keep`. Returns the tasks it ran. */
static uint32_t steal(sim *g, sim_team *t, uint32_t me, uint32_t e, uint32_t keep)
{
    uint32_t ran = 0, j;
    for (uint32_t k = 1; k < t->threads; k++) {
        uint32_t r = (me + k) % t->threads, took = 0;
        while (take(t, r, e, 1, keep, &j)) {
            run_one(g, t, t->order[j], me);
            took++;
        }
        if (took && t->tick)
            t->tick[me].stolen += took;
        if (took && (r == me + 1 || r + 1 == me))
            atomic_fetch_add_explicit(r > me ? &t->steals[me].next : &t->steals[me].prev, took,
                                      memory_order_relaxed);
        ran += took;
    }
    return ran;
}

/* Thread `me` works on epoch e: its own range, then the others' (stealing). A stolen SM runs
 * on a core whose cache does not hold it, and leaves its home's cache cold for the next edge:
 * on sixteen threads, whose ranges hold two to four tasks, threads that woke a little early
 * took 40% of all tasks from the others and every thread spent 1.8 times as long in tasks as
 * two threads did. So a thief leaves the last TEAM_STEAL_KEEP tasks to a home thread that has
 * begun (it is running and will get to them); one that has not begun may be descheduled, and
 * loses any. Jobs (sim_team_jobs) are stolen to the last. Returns the tasks it ran. */
static uint32_t work(sim *g, sim_team *t, uint32_t me, uint32_t e)
{
    uint32_t ran = 0, j;
    while (take(t, me, e, 0, 0, &j)) {
        if (j + 1 < t->max_tasks) /* most likely this thread's next task */
            sim_task_prefetch(g, t->order[j + 1]);
        run_one(g, t, t->order[j], me);
        ran++;
    }
    /* read atomically: a late helper gets here after its edge ended, while the main thread
     * may be setting up the next (a stale value then steals from nothing) */
    return ran + steal(g, t, me, e, atomic_load_explicit(&t->keep, memory_order_relaxed));
}

/* The edge's tasks grouped by home thread (a counting sort that keeps task order within a
 * home), and each thread's range opened under the new epoch. */
static void publish(sim *g, sim_team *t, uint32_t n)
{
    uint32_t T = t->threads, *c = t->count;
    for (uint32_t i = 0; i <= T; i++)
        c[i] = 0;
    for (uint32_t i = 0; i < n; i++)
        c[(t->home[i] = sim_task_owner(g, i, T)) + 1]++;
    for (uint32_t i = 0; i < T; i++)
        c[i + 1] += c[i];
    uint32_t e = ++t->epoch;
    for (uint32_t i = 0; i < T; i++) {
        atomic_store_explicit(&t->range[i].first, c[i], memory_order_relaxed);
        atomic_store_explicit(&t->range[i].w, pack(e, c[i + 1], c[i]), memory_order_relaxed);
    }
    for (uint32_t i = 0; i < n; i++)
        t->order[c[t->home[i]]++] = i;
    /* the ranges above carry the new epoch before the order is complete, but a thread claims
     * in an epoch only after it read that epoch here (acquire), which publishes order, mask
     * and ranges together; a thread still in the old epoch fails on the epoch check */
    atomic_store_explicit(&t->open, e, memory_order_release);
}

/* Tasks the helpers finished in epoch e. Each reports on its own line once an edge, so the
 * main thread reads up to threads-1 lines at once (independent loads) where a shared counter
 * took one locked add per helper, each waiting for the line to come from the last adder. */
static uint32_t helpers_done(sim_team *t, uint32_t e)
{
    uint32_t sum = 0;
    for (uint32_t i = 1; i < t->threads; i++) {
        uint64_t v = atomic_load_explicit(&t->fin[i].w, memory_order_acquire);
        if ((uint32_t)(v >> 32) == e)
            sum += (uint32_t)v;
    }
    return sum;
}

void sim_team_run(sim *g, uint32_t n, unsigned mask)
{
    sim_team *t = &g->team;
    if (!g->job && ++t->edges == SIM_REBALANCE_EDGES) {
        sim_homes_rebalance(g);
        t->edges = 0;
    }
    t->mask = mask;
    /* a job (a CTA's text, a channel's prefill) belongs to no core's cache: any thread takes
     * any of them */
    atomic_store_explicit(&t->keep, g->job ? 0 : TEAM_STEAL_KEEP, memory_order_relaxed);
    uint64_t t0 = t->tick ? sim_ticks() : 0, t1 = 0, t2 = 0;
    publish(g, t, n);
    if (t->tick)
        t1 = sim_ticks();
    uint32_t mine = work(g, t, 0, t->epoch);
    if (t->tick)
        t2 = sim_ticks();
    /* with two threads, waiting for the helper's last task counts as taking one from it: it
     * holds more than its share. (With more, the one waited for is any of them, and sixteen
     * threads so moved SMs onto the main thread until it ran twice the tasks of a helper.) */
    uint32_t e = t->epoch;
    if (!g->job && t->threads == 2 && helpers_done(t, e) + mine < n)
        atomic_fetch_add_explicit(&t->steals[0].next, 1, memory_order_relaxed);
    /* a helper holds a task: spin briefly, then yield, in case it shares our core */
    for (uint32_t k = 0; helpers_done(t, e) + mine < n; k++) {
        if (k == TEAM_SPINS_BEFORE_STEAL) /* a home thread that began may have been stopped */
            mine += steal(g, t, 0, e, 0);
        if (k < TEAM_SPINS_BEFORE_YIELD)
            relax();
        else
            sched_yield();
    }
    if (t->tick && !g->job) {
        uint64_t t3 = sim_ticks();
        t->p_publish += t1 - t0;
        t->p_wait += t3 - t2;
        t->p_team += t3 - t0;
        t->p_edges++;
        t->p_mem += !(mask & 1u << CLK_CORE);
    }
}

/* A helper thread's life: wait for a new edge, help with it, until the run stops. */
void sim_team_work(sim *g, uint32_t me)
{
    sim_team *t = &g->team;
    uint32_t seen = 0, idle = 0;
    while (!atomic_load_explicit(&t->stop, memory_order_acquire)) {
        uint32_t e = atomic_load_explicit(&t->open, memory_order_acquire);
        if (e != seen) {
            seen = e;
            uint32_t ran = work(g, t, me, e);
            if (ran) /* a helper that ran nothing leaves the main thread's copy of its line */
                atomic_store_explicit(&t->fin[me].w, (uint64_t)e << 32 | ran,
                                      memory_order_release);
            idle = 0;
        } else if (atomic_load_explicit(&t->bg, memory_order_relaxed) == SIM_BG_POSTED) {
            sim_ahead_bg(g); /* between edges, so no edge waits for it */
            idle = 0;
        } else if (++idle < TEAM_SPINS_BEFORE_YIELD) {
            relax();
        } else {
            sched_yield(); /* the main thread is in a serial phase, or the host is busy */
        }
    }
}

void sim_team_stop(sim_team *t) { atomic_store_explicit(&t->stop, 1, memory_order_release); }

/* ---- solo windows ------------------------------------------------------------------------
 * A team edge hands a few cache lines between cores. On a host where that takes 500-700 ns
 * (the 2-core development host, for tens of minutes at a time) a run of small edges (gather:
 * 9 us of work an edge) ran slower on two threads than on one. So the main thread times
 * windows of SIM_ADAPT_EDGES core edges and now and then runs one window the other way (alone,
 * while the helpers still read CTAs ahead, or with the team). The try is set against the mean
 * of the windows before and after it, which cancels most of a drift in the host's speed or
 * the workload's; the other way wins by 3% or more. The chosen way then runs SIM_ADAPT_STAY
 * windows, twice as many after each try that changed nothing, up to SIM_ADAPT_STAY_MAX (or
 * more after a try that lost by far, so tries cost at most 1/SIM_ADAPT_TRY_SHARE of the time:
 * sixteen threads ran reduce 1M four times faster than one, and each try of a window alone
 * cost three windows' time), or
 * until a window runs SIM_ADAPT_DRIFT times slower or faster than the chosen way did when it
 * was chosen: then the workload changed (reduce 1M went from 13 to 39 us an edge alone, 17 to
 * 29 with the team, and ran 18 windows alone at the slower pace before the next try). A try
 * that falls far behind ends early (sim_adapt_lost).
 * Which thread runs a task never changes a result, so neither does this. */

void sim_adapt_init(sim_adapt *a, double now, uint32_t threads)
{
    *a = (sim_adapt){.left = 1, .stay = SIM_ADAPT_STAY, .t0 = now, .span = SIM_ADAPT_EDGES};
    a->giveup = threads > 2 ? SIM_ADAPT_GIVEUP : SIM_ADAPT_GIVEUP_PAIR;
}

int sim_adapt_edge(sim_adapt *a)
{
    if (++a->edges >= a->span)
        return SIM_ADAPT_FULL;
    return a->phase == 1 && a->edges >= SIM_ADAPT_LOOK_MIN && a->edges % SIM_ADAPT_LOOK == 0
               ? SIM_ADAPT_CHECK
               : 0;
}

/* A try that has already taken `giveup` times what the window before it took for as
 * many edges has lost (it must win by 3%), and its ending is decided: on sixteen threads a
 * window alone cost as much as four or five with the team, and a short run of 30-40 windows
 * lost a tenth of its time to the tries. The window closes early, and its time per edge
 * still spaces the next try. A try that loses by less runs its whole window, so a noisy
 * start of the try (the other way's caches are cold for a few edges) decides nothing. */
int sim_adapt_lost(const sim_adapt *a, double now)
{
    return a->phase == 1 && now - a->t0 > a->giveup * a->before * a->edges;
}

void sim_adapt_window(sim_adapt *a, double now)
{
    double per = (now - a->t0) / a->edges;
    a->edges = 0;
    a->t0 = now;
    if (a->windows++ == 0) /* the run's start: launches, copies, first reads */
        return;
    if (a->phase == 0) {
        /* the workload's pace changed (a new kernel, the memory side filling up): which way
         * is faster may have too. Heavier edges favour the team and lighter ones the main
         * thread alone, so after a try that lost by far only a change toward the other way
         * is worth another (reduce on sixteen threads tried five times in 30 windows). */
        int slower = per > SIM_ADAPT_DRIFT * a->ref, faster = per * SIM_ADAPT_DRIFT < a->ref;
        if (a->ref > 0 && (a->far ? (a->solo ? slower : faster) : slower || faster))
            a->left = 1;
        if (--a->left == 0) {
            a->before = per;
            a->phase = 1;
            a->solo = !a->solo;
        }
    } else if (a->phase == 1) {
        a->other = per;
        a->phase = 2;
        a->solo = !a->solo;
    } else {
        /* the try must beat both windows around it: against their mean, one slow window
         * beside it (the host's, not the workload's: vectoradd 1M's windows ran 13-40 us an
         * edge with the team) sent two threads alone for 16 windows, twice in one run */
        double mean = (a->before + per) / 2, near = a->before < per ? a->before : per;
        int change = a->other < 0.97 * near;
        a->stay = change ? SIM_ADAPT_STAY : a->stay < SIM_ADAPT_STAY_MAX ? 2 * a->stay : a->stay;
        /* a try that lost by far cost as much: the next waits until it is a small share */
        double cost = SIM_ADAPT_TRY_SHARE * (a->other / mean - 1);
        if (!change && cost > a->stay)
            a->stay = cost < SIM_ADAPT_STAY_LONG ? (uint32_t)cost + 1 : SIM_ADAPT_STAY_LONG;
        a->far = !change && a->other >= a->giveup * mean;
        a->solo ^= change;
        a->ref = change ? a->other : per;
        a->left = a->stay;
        a->phase = 0;
    }
}
