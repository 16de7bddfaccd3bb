/* Warp scheduler policies: each is a const ops table in the registry, chosen by the knob
 * warp_scheduler. A policy only orders the candidate warps of one scheduler; the issue
 * logic takes the first that can issue (GPGPU-Sim's scheduler_unit::order_warps contract). */
#include "sm_int.h"
#include <string.h>

/* Loose round-robin: start after the warp that issued last. */
static void lrr_order(const sm_sched_state *st, const uint32_t *cand, const sm_warp_view *v,
                      uint32_t n, uint32_t active_n, uint32_t *keep, int fresh, uint32_t *out)
{
    (void)v, (void)active_n, (void)keep, (void)fresh;
    uint32_t start = 0;
    if (st->last != UINT32_MAX)
        for (uint32_t i = 0; i < n; i++)
            if (cand[i] > st->last) {
                start = i;
                break;
            }
    memcpy(out, cand + start, (n - start) * sizeof *out);
    memcpy(out + (n - start), cand, start * sizeof *out);
}

/* Sorts out[0..n) by age, oldest first (insertion sort: n is at most a few dozen). */
static void by_age(uint32_t *out, const uint32_t *cand, const sm_warp_view *v, uint32_t n,
                   uint32_t *pos)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        while (j && v[pos[j - 1]].age > v[i].age) {
            out[j] = out[j - 1];
            pos[j] = pos[j - 1];
            j--;
        }
        out[j] = cand[i];
        pos[j] = i;
    }
}

/* Greedy-then-oldest: the warp that issued last keeps priority, then the oldest. The age
 * order (keep) changes only with the candidates; a new last issuer only moves to the front. */
static void gto_order(const sm_sched_state *st, const uint32_t *cand, const sm_warp_view *v,
                      uint32_t n, uint32_t active_n, uint32_t *keep, int fresh, uint32_t *out)
{
    (void)active_n;
    uint32_t pos[256];
    if (n > 256)
        n = 256;
    if (fresh)
        by_age(keep, cand, v, n, pos);
    uint32_t i = 0;
    while (i < n && keep[i] != st->last)
        i++;
    if (i == n) {
        memcpy(out, keep, n * sizeof *out);
        return;
    }
    out[0] = st->last;
    memcpy(out + 1, keep, i * sizeof *out);
    memcpy(out + 1 + i, keep + i + 1, (n - i - 1) * sizeof *out);
}

/* Two-level: the oldest `active_n` warps not waiting on memory form the active set,
 * scheduled round-robin; warps waiting on memory (and the rest) follow, oldest first. */
static void two_level_order(const sm_sched_state *st, const uint32_t *cand,
                            const sm_warp_view *v, uint32_t n, uint32_t active_n,
                            uint32_t *keep, int fresh, uint32_t *out)
{
    (void)keep, (void)fresh;
    uint32_t pos[256], aged[256], act[256] = {0}, na = 0, k = 0;
    if (n > 256)
        n = 256;
    by_age(aged, cand, v, n, pos);
    for (uint32_t i = 0; i < n && na < active_n; i++)
        if (!v[pos[i]].waiting_mem)
            act[na++] = aged[i];
    lrr_order(st, act, v, na, 0, NULL, 1, out);
    k = na;
    for (uint32_t i = 0; i < n; i++) {
        int in = 0;
        for (uint32_t j = 0; j < na; j++)
            in |= act[j] == aged[i];
        if (!in)
            out[k++] = aged[i];
    }
}

static const sm_sched_ops LRR = {"lrr", "loose round-robin from the warp after the last issuer",
                                 lrr_order, 0};
static const sm_sched_ops GTO = {"gto", "greedy-then-oldest", gto_order, SM_SCHED_AGE};
static const sm_sched_ops TWO = {"two_level",
                                 "two-level: round-robin active set, memory-waiting warps demoted",
                                 two_level_order, SM_SCHED_AGE | SM_SCHED_MEM};

const sm_sched_ops *const sm_sched_registry[] = {&LRR, &GTO, &TWO, NULL};

const sm_sched_ops *sm_sched_find(const char *name)
{
    for (int i = 0; sm_sched_registry[i]; i++)
        if (strcmp(sm_sched_registry[i]->name, name) == 0)
            return sm_sched_registry[i];
    return NULL;
}
