/* sim team: the threads of a parallel run, kept for the whole run.
 *
 * Forking an OpenMP team per clock edge costs a wake-up and a full barrier every core cycle,
 * and a barrier waits for every thread, so one thread descheduled by the host stalls all the
 * others for a time slice. Here the helper threads stay alive and poll a ticket; the main
 * thread publishes the tasks of an edge and takes tasks itself; it then waits only for tasks
 * some thread has claimed, never for a thread that has not woken up yet. A helper that wakes
 * late finds an exhausted ticket and goes back to polling.
 *
 * The ticket packs (epoch, task count, next task) in one word, so a claim (a compare-and-swap
 * taking a chunk of tasks) can only succeed on the epoch it read: a late helper cannot take a task of a newer edge
 * with a stale count. Which thread runs a task never matters: each task writes only its own
 * unit (sim.c, run_task), so results are the same for every thread count and interleaving. */
#include "sim_int.h"
#include <sched.h>

#define TEAM_BITS 16u
#define TEAM_MASK ((1u << TEAM_BITS) - 1)
#define TEAM_SPINS_BEFORE_YIELD 2000u

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static inline uint64_t pack(uint64_t epoch, uint32_t n, uint32_t next)
{
    return epoch << (2 * TEAM_BITS) | (uint64_t)n << TEAM_BITS | next;
}

static inline uint32_t ticket_n(uint64_t v) { return (uint32_t)(v >> TEAM_BITS) & TEAM_MASK; }
static inline uint32_t ticket_next(uint64_t v) { return (uint32_t)v & TEAM_MASK; }

uint32_t sim_team_max_tasks(void) { return TEAM_MASK; }

void sim_team_init(sim_team *t, uint32_t threads)
{
    t->threads = threads;
    atomic_init(&t->ticket, 0);
    atomic_init(&t->done, 0);
    atomic_init(&t->stop, 0);
    t->epoch = 0;
}

/* Claims a chunk [*first, *first + return) of the ticket's epoch; 0 when none is left. The
 * chunk shrinks as the edge runs out (a guided schedule): few claims, so little traffic on
 * the ticket's line, and neighbouring units stay on one thread, yet the last tasks still
 * spread. */
static uint32_t claim(sim_team *t, uint32_t *first)
{
    uint64_t v = atomic_load_explicit(&t->ticket, memory_order_acquire);
    for (;;) {
        uint32_t n = ticket_n(v), next = ticket_next(v);
        if (next >= n)
            return 0;
        uint32_t k = (n - next) / (2 * t->threads);
        k = k ? k : 1;
        if (atomic_compare_exchange_weak_explicit(&t->ticket, &v, v + k, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *first = next;
            return k;
        }
    }
}

static void run_claimed(sim *g, sim_team *t)
{
    uint32_t first, k;
    while ((k = claim(t, &first)) > 0) {
        for (uint32_t i = first; i < first + k; i++)
            sim_run_task(g, i, t->mask);
        atomic_fetch_add_explicit(&t->done, k, memory_order_release);
    }
}

void sim_team_run(sim *g, uint32_t n, unsigned mask)
{
    sim_team *t = &g->team;
    t->mask = mask;
    atomic_store_explicit(&t->done, 0, memory_order_relaxed);
    atomic_store_explicit(&t->ticket, pack(++t->epoch, n, 0), memory_order_release);
    run_claimed(g, t);
    /* a helper holds a task: spin briefly, then yield, in case it shares our core */
    for (uint32_t k = 0; atomic_load_explicit(&t->done, memory_order_acquire) < n; k++) {
        if (k < TEAM_SPINS_BEFORE_YIELD)
            relax();
        else
            sched_yield();
    }
}

/* A helper thread's life: poll, help with any edge it finds open, until the run stops. */
void sim_team_work(sim *g)
{
    sim_team *t = &g->team;
    uint32_t idle = 0;
    while (!atomic_load_explicit(&t->stop, memory_order_acquire)) {
        uint64_t v = atomic_load_explicit(&t->ticket, memory_order_acquire);
        if (ticket_next(v) < ticket_n(v)) {
            run_claimed(g, t);
            idle = 0;
        } else if (++idle < TEAM_SPINS_BEFORE_YIELD) {
            relax();
        } else {
            sched_yield(); /* the main thread is in a serial phase, or the host is busy */
        }
    }
}

void sim_team_stop(sim_team *t) { atomic_store_explicit(&t->stop, 1, memory_order_release); }
