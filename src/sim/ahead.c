/* sim ahead: CTAs read from the trace ahead of their issue, during phase B.
 *
 * Reading a CTA (text parsing, or decompression of a native block) is the largest serial cost
 * of a parallel run when it happens at issue time. With more than one thread, each running
 * kernel keeps a ring of CTAs read in advance, refilled by one phase-B task alongside the SMs;
 * issue then swaps a ready CTA into the SM's slot. The reader is only ever touched by that
 * task or by the serial phases, never both at once, and its output does not depend on when
 * it runs, so results are unchanged. A read error is kept and reported when issue reaches
 * that CTA, as a direct read would. The ring holds at most one CTA per SM, so memory still
 * does not grow with the trace. */
#include "sim_int.h"
#include <stdlib.h>

static int wants_more(const run_kernel *rk)
{
    return rk->state == RK_RUN && rk->ahead_cap && !rk->eof && !rk->ahead_end &&
           rk->ahead_n < rk->ahead_cap;
}

void sim_ahead_start(sim *g, run_kernel *rk)
{
    if (g->k.threads <= 1)
        return;
    rk->ahead_cap = g->n_sm;
    rk->ahead = base_calloc(rk->ahead_cap, sizeof *rk->ahead);
}

int sim_ahead_wanted(const sim *g)
{
    for (size_t i = 0; i < g->nrk; i++)
        if (wants_more(&g->rk[i]))
            return 1;
    return 0;
}

/* The phase-B task: fills every ring. */
void sim_ahead_task(sim *g)
{
    for (size_t i = 0; i < g->nrk; i++) {
        run_kernel *rk = &g->rk[i];
        while (wants_more(rk)) {
            trace_cta *c = &rk->ahead[(rk->ahead_head + rk->ahead_n) % rk->ahead_cap];
            int rc = trace_next_cta(rk->kk.tk, c, &rk->ahead_err);
            if (rc <= 0) {
                rk->ahead_end = rc == 0 ? 1 : -1;
                break;
            }
            rk->ahead_n++;
        }
    }
}

/* trace_next_cta for issue: 1 with the next CTA in *slot, 0 at the end, -1 on error. */
int sim_ahead_take(run_kernel *rk, trace_cta *slot, base_err *e)
{
    if (rk->ahead_n) {
        trace_cta t = *slot; /* the slot's buffers go back to the ring for reuse */
        *slot = rk->ahead[rk->ahead_head];
        rk->ahead[rk->ahead_head] = t;
        rk->ahead_head = (rk->ahead_head + 1) % rk->ahead_cap;
        rk->ahead_n--;
        return 1;
    }
    if (rk->ahead_end > 0)
        return 0;
    if (rk->ahead_end < 0) {
        *e = rk->ahead_err;
        return -1;
    }
    return trace_next_cta(rk->kk.tk, slot, e);
}

void sim_ahead_free(run_kernel *rk)
{
    for (uint32_t i = 0; i < rk->ahead_cap; i++)
        trace_cta_free(&rk->ahead[i]);
    free(rk->ahead);
    rk->ahead = NULL;
    rk->ahead_cap = rk->ahead_n = 0;
}
