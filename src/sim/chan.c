/* sim chan: which memory channels an edge must cycle, and the books of those it skips.
 *
 * A channel whose edge would only count (mem_part_idle: a quiet DRAM side only adds to its
 * DRAM's lag, a quiet L2 side only sets its time) gets no phase-B task. Its skipped DRAM
 * cycles are the DRAM edges since its last task (`last` against the edge count), handed over
 * as one mem_part_skip before its next task or before a serial reader (sim_sync_channels);
 * its time is set then too. Busy channels and channels with replies are kept as bitmaps,
 * updated serially from the channels that ran, so a memory edge costs nothing per idle
 * channel.
 *
 * An edge of the DRAM clock alone (two of every three on a GDDR6 part) is not run when it
 * comes: it is counted (sim_chans_defer), and the busy channels run their deferred DRAM
 * cycles at the start of their next task. That is exact: no serial phase touches a channel on
 * such an edge, the deferred cycles all see the same core cycle (the core does not tick in
 * between), and what the serial phases of the next edge do to a channel (requests into the
 * ROP queue, replies out of the reply queue) touches nothing a DRAM cycle reads or writes.
 * The busy set cannot change in between either, as only L2 cycles wake a DRAM side. So a run
 * hands its threads one edge per core cycle, not three.
 *
 * A channel whose requests all wait out a delay timed in core cycles, the ROP delay before
 * the L2 or the DRAM latency queue, sleeps until the first of them leaves it
 * (mem_part_sleep): its L2 cycles before then would only set its time and its DRAM-side calls
 * only count, so it gets no task until then, and its task after the wake counts the DRAM
 * edges it slept through in one go before it runs the deferred ones, which saw the wake's
 * cycle. That is exact, as nothing can reach a sleeping channel but a push
 * (sim_chans_pushed), which can only add a later head, every request waiting the same delay;
 * a push into an idle L2 side puts it to sleep in the same way. Waiting out those delays is
 * most of what a channel does in a latency-bound kernel: it took nvbit_vectormultadd_4096
 * from 51,369 channel tasks to 13,182 and its DRAM-side cycles from 39,088 to the 9,125 that
 * act. chan_sleep=0 turns it off (the determinism test compares). */
#include "sim_int.h"
#include <stdlib.h>

/* A channel's slots after its `last` (SIM_PAD/2 apart): the wake its task found, and the DRAM
 * edge count up to which it slept (written serially when it wakes). */
enum { SLOT_WAKE = 1, SLOT_SKIP = 2 };

void sim_chans_init(sim *g)
{
    sim_chans *h = &g->ch;
    h->nw = (g->n_chan + 63) / 64;
    h->busy_dram = base_calloc(h->nw, sizeof *h->busy_dram);
    h->busy_l2 = base_calloc(h->nw, sizeof *h->busy_l2);
    h->has_rep = base_calloc(h->nw, sizeof *h->has_rep);
    h->sleep = base_calloc(h->nw, sizeof *h->sleep);
    h->wake = base_calloc(g->n_chan, sizeof *h->wake);
    h->next_wake = UINT64_MAX;
    h->task = base_calloc(g->n_chan, sizeof *h->task);
    h->last = base_calloc((size_t)g->n_chan * (SIM_PAD / 2), sizeof *h->last);
    for (uint32_t c = 0; c < g->n_chan; c++) { /* a new channel has not yet found itself idle */
        sim_bit_put(h->busy_dram, c, 1);
        sim_bit_put(h->busy_l2, c, 1);
    }
}

void sim_chans_free(sim *g)
{
    sim_chans *h = &g->ch;
    free(h->busy_dram);
    free(h->busy_l2);
    free(h->has_rep);
    free(h->sleep);
    free(h->wake);
    free(h->task);
    free(h->last);
}

/* Sleeping channels whose wake has come join the busy ones. Their DRAM edges up to the
 * deferred ones saw earlier core cycles and only count (SLOT_SKIP); the deferred ones saw
 * this edge's cycle, so they run. */
static void wake_sleepers(sim_chans *h)
{
    uint64_t next = UINT64_MAX;
    for (uint32_t w = 0; w < h->nw; w++)
        for (uint64_t bits = h->sleep[w]; bits; bits &= bits - 1) {
            uint32_t b = (uint32_t)__builtin_ctzll(bits), c = w * 64 + b;
            if (h->wake[c] <= h->now) {
                h->sleep[w] &= ~(1ull << b);
                h->busy_l2[w] |= 1ull << b;
                h->busy_dram[w] |= 1ull << b;
                h->last[c * (SIM_PAD / 2) + SLOT_SKIP] = h->dram_edges - h->pend;
            } else if (h->wake[c] < next) {
                next = h->wake[c];
            }
        }
    h->next_wake = next;
}

/* The channels edge `m` must cycle, in index order; returns how many. */
uint32_t sim_chans_plan(sim *g, unsigned m)
{
    sim_chans *h = &g->ch;
    int on_dram = (m & 1u << CLK_DRAM) != 0, on_l2 = (m & 1u << CLK_L2) != 0;
    uint32_t n = 0;
    h->now = g->cycle;
    if (h->now >= h->next_wake)
        wake_sleepers(h);
    if (on_dram)
        h->dram_edges++;
    int dram_due = on_dram || h->pend;
    h->pend = 0;
    for (uint32_t w = 0; w < h->nw; w++) {
        uint64_t bits = (dram_due ? h->busy_dram[w] : 0) | (on_l2 ? h->busy_l2[w] : 0);
        while (bits) {
            h->task[n++] = w * 64 + (uint32_t)__builtin_ctzll(bits);
            bits &= bits - 1;
        }
    }
    return n;
}

static int is_set(const uint64_t *b, uint32_t i) { return (b[i / 64] >> (i % 64)) & 1; }

/* The DRAM edges of channel c up to `edges`: those it slept through counted, then the rest
 * cycled one by one while its DRAM side is busy (deferred edges; once quiet a cycle only
 * counts), counted in one go while it is quiet. */
static void catch_up(sim_chans *h, mem_part *p, uint32_t c, uint64_t edges, uint64_t cycle)
{
    uint64_t *last = &h->last[c * (SIM_PAD / 2)], slept = last[SLOT_SKIP];
    if (*last < slept) {
        mem_part_skip(p, slept - *last);
        *last = slept;
    }
    if (is_set(h->busy_dram, c) && *last < edges)
        *last += mem_part_dram_cycles(p, edges - *last, cycle);
    if (edges > *last)
        mem_part_skip(p, edges - *last);
    *last = edges;
}

/* Task i of the plan: the channel's deferred or counted DRAM edges, then this edge's DRAM and
 * L2 cycles. */
void sim_chans_task(sim *g, uint32_t i, unsigned m, uint32_t me)
{
    sim_chans *h = &g->ch;
    uint32_t c = h->task[i];
    mem_part *p = g->part[c];
    int on_dram = (m & 1u << CLK_DRAM) != 0;
    catch_up(h, p, c, h->dram_edges - (uint64_t)on_dram, g->cycle);
    if (on_dram)
        mem_part_dram_cycle(p, g->cycle);
    if (m & 1u << CLK_L2)
        mem_part_l2_cycle(p, g->cycle);
    h->last[c * (SIM_PAD / 2)] = h->dram_edges;
    /* for sim_chans_after, in this thread's bitmaps */
    uint64_t *f = g->smf + (size_t)me * g->smf_stride + c / 64, bit = 1ull << (c % 64);
    unsigned idle = mem_part_idle(p);
    f[SMF_CH_RAN * g->smf_words] |= bit;
    uint64_t w = !g->k.chan_sleep || idle == (MEM_PART_DRAM_IDLE | MEM_PART_L2_IDLE)
                     ? 0
                     : mem_part_sleep(p);
    if (w > g->cycle + 1) { /* the next edge would find it asleep too */
        h->last[c * (SIM_PAD / 2) + SLOT_WAKE] = w;
        f[SMF_CH_SLEEP * g->smf_words] |= bit;
    } else {
        if (!(idle & MEM_PART_DRAM_IDLE))
            f[SMF_CH_DRAM * g->smf_words] |= bit;
        if (!(idle & MEM_PART_L2_IDLE))
            f[SMF_CH_L2 * g->smf_words] |= bit;
    }
    if (mem_part_replies(p))
        f[SMF_CH_REP * g->smf_words] |= bit;
}

/* An edge of the DRAM clock alone: run later (see the top of this file). */
void sim_chans_defer(sim *g)
{
    sim_chans *h = &g->ch;
    h->now = g->cycle;
    h->dram_edges++;
    h->pend++;
}

/* Serial, after phase B: what the channels that ran now need. They left it in their threads'
 * bitmaps: reading those costs a few lines, where reading the channels would cost a line of
 * each (written on another core). */
void sim_chans_after(sim *g, uint32_t ntask)
{
    sim_chans *h = &g->ch;
    if (!ntask)
        return;
    for (uint32_t w = 0; w < h->nw; w++) {
        uint64_t ran = sim_smf_take(g, SMF_CH_RAN, w), slept = sim_smf_take(g, SMF_CH_SLEEP, w);
        h->busy_dram[w] = (h->busy_dram[w] & ~ran) | sim_smf_take(g, SMF_CH_DRAM, w);
        h->busy_l2[w] = (h->busy_l2[w] & ~ran) | sim_smf_take(g, SMF_CH_L2, w);
        h->has_rep[w] = (h->has_rep[w] & ~ran) | sim_smf_take(g, SMF_CH_REP, w);
        h->sleep[w] = (h->sleep[w] & ~ran) | slept;
        for (; slept; slept &= slept - 1) {
            uint32_t c = w * 64 + (uint32_t)__builtin_ctzll(slept);
            h->wake[c] = h->last[c * (SIM_PAD / 2) + SLOT_WAKE];
            if (h->wake[c] < h->next_wake)
                h->next_wake = h->wake[c];
        }
    }
}

void sim_chans_pushed(sim *g, uint32_t c, uint64_t ready)
{
    sim_chans *h = &g->ch;
    uint64_t bit = 1ull << (c % 64);
    if (h->busy_l2[c / 64] & bit)
        return;
    if (!g->k.chan_sleep) {
        h->busy_l2[c / 64] |= bit;
        return;
    }
    if (!(h->sleep[c / 64] & bit) || ready < h->wake[c])
        h->wake[c] = ready;
    h->sleep[c / 64] |= bit;
    if (h->wake[c] < h->next_wake)
        h->next_wake = h->wake[c];
}

/* Idle on both sides with no replies waiting, a channel cannot act without new input. */
int sim_chans_may_act(const sim *g, uint32_t c)
{
    const sim_chans *h = &g->ch;
    uint64_t bit = 1ull << (c % 64);
    return ((h->busy_dram[c / 64] | h->busy_l2[c / 64] | h->sleep[c / 64] | h->has_rep[c / 64]) &
            bit) != 0;
}

/* Replies leave their sub-partitions into the interconnect, sub-partitions in index order. */
void sim_chans_replies_out(sim *g)
{
    sim_chans *h = &g->ch;
    if (sim_spread(g))
        for (uint32_t w = 0; w < h->nw; w++)
            for (uint64_t b = h->has_rep[w]; b; b &= b - 1)
                for (uint32_t s = 0, c = w * 64 + (uint32_t)__builtin_ctzll(b); s < g->n_sub; s++)
                    mem_part_prefetch_out(g->part[c], s);
    for (uint32_t w = 0; w < h->nw; w++) {
        uint64_t bits = h->has_rep[w];
        while (bits) {
            uint32_t c = w * 64 + (uint32_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            mem_part *p = g->part[c];
            for (uint32_t s = 0; s < g->n_sub; s++) {
                uint32_t i = c * g->n_sub + s;
                const mem_req *r = mem_part_reply_peek(p, s);
                if (!r)
                    continue;
                if (!icnt_try_push(g->net, ICNT_REP, i, r->sm, r, mem_req_bytes(r, 1)))
                    continue;
                mem_req x = mem_part_reply_pop(p, s);
                if (sim_sm_here(g, x.sm))
                    sm_prefetch_reply_early(g->sm[x.sm], &x);
                g->moved++;
            }
            sim_bit_put(h->has_rep, c, mem_part_replies(p) != 0);
        }
    }
}

void sim_sync_channels(sim *g)
{
    if (g->windowed) {
        sim_window_sync_channels(g);
        return;
    }
    for (uint32_t c = 0; c < g->n_chan; c++) {
        catch_up(&g->ch, g->part[c], c, g->ch.dram_edges, g->ch.now);
        mem_part_set_now(g->part[c], g->ch.now);
    }
}
