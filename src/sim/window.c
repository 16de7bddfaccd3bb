/* sim window: the windowed mode (sync_window = W > 0).
 *
 * The exact loop hands every core cycle to the threads and back, because a reply or a
 * request may cross between an SM, the interconnect and a memory channel in the very next
 * cycle (the crossbar adds no latency, docs/TIMING.md "Threads"). Here the model gets the
 * latency that lets them run apart: a link of W core cycles each way sits between each SM and
 * the interconnect, and between the interconnect and each L2 sub-partition. A link is a ring
 * of entries stamped with the core cycle they may leave it: a request an SM sends in cycle c
 * may enter the crossbar from cycle c + W on, and so on for every crossing. So within a window
 * of W core cycles nothing one unit does reaches another, and every SM, every memory channel
 * and the crossbar (one task per subnet: requests and replies share nothing) each run the
 * window as one task, all at once on any threads.
 *
 * Each link has one producer and one consumer, and each reads the other's index only as it
 * stood at the window's start (the *_seen copies, set serially between windows): room and
 * content never depend on how far the other task has got, so results depend on W, never on
 * threads or the order tasks run in. A link holds 2W entries (rounded up to a power of two):
 * at full rate, one entry a cycle, the consumer drains the previous window's W while the
 * producer adds this window's, so credits seen a window late never throttle a flowing link.
 *
 * A window is every clock edge after the previous window's last core edge up to and including
 * the core edge of its last cycle; the edges are listed once, serially, for the crossbar and
 * channel tasks that walk them (an SM's task needs only the window's cycles). After it,
 * serially: CTAs retire and issue (so a CTA starts up to W - 1 cycles later than in the exact
 * loop, and a kernel's end is seen at a window's end), kernels launch, and the watchdog, the
 * stop knobs and the progress line are looked at. Windows end with core cycles that are
 * multiples of W. A parked SM skips its cycles inside its task, a quiet channel side only
 * counts its edges, a quiet or dormant channel and a quiet crossbar have no task at all, the
 * serial part visits only the links in use, and with fast_forward the windows in which no
 * unit would act are jumped over between windows (skip_quiet). */
#include "sim_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum { LK_OUT, LK_IN };       /* an SM's links: requests out, replies in */
enum { LK_REQ, LK_REP };      /* a sub-partition's: requests in, replies out */

static mem_req *sm_req(const sim *g, uint32_t s, int k, uint32_t i)
{
    return &g->w.req[((size_t)2 * s + (size_t)k) * g->w.cap + (i & (g->w.cap - 1))];
}
static uint64_t *sm_at(const sim *g, uint32_t s, int k, uint32_t i)
{
    return &g->w.at[((size_t)2 * s + (size_t)k) * g->w.cap + (i & (g->w.cap - 1))];
}
static mem_req *sub_req(const sim *g, uint32_t i, int k, uint32_t j)
{
    return &g->w.preq[((size_t)2 * i + (size_t)k) * g->w.cap + (j & (g->w.cap - 1))];
}
static uint64_t *sub_at(const sim *g, uint32_t i, int k, uint32_t j)
{
    return &g->w.pat[((size_t)2 * i + (size_t)k) * g->w.cap + (j & (g->w.cap - 1))];
}

static void win_init(sim *g)
{
    sim_window *w = &g->w;
    uint32_t len = (uint32_t)g->k.sync_window, cap = 1;
    while (cap < 2 * len)
        cap *= 2;
    w->len = len;
    w->cap = cap;
    w->req = base_calloc((size_t)2 * g->n_sm * cap, sizeof *w->req);
    w->at = base_calloc((size_t)2 * g->n_sm * cap, sizeof *w->at);
    w->sm = base_calloc_lines((size_t)g->n_sm * sizeof *w->sm);
    w->xs = base_calloc_lines((size_t)g->n_sm * sizeof *w->xs);
    w->out_bits = base_calloc_lines((g->n_sm + 63) / 64 * sizeof *w->out_bits);
    w->rep_bits = base_calloc_lines((g->n_sub_total + 63) / 64 * sizeof *w->rep_bits);
    w->in_bits = base_calloc_lines((g->n_sm + 63) / 64 * sizeof *w->in_bits);
    w->req_bits = base_calloc_lines((g->n_sub_total + 63) / 64 * sizeof *w->req_bits);
    for (int k = 0; k < 2; k++) {
        w->xdirty_sm[k] = base_calloc_lines((g->n_sm + 63) / 64 * sizeof *w->xdirty_sm[k]);
        w->xdirty_sub[k] =
            base_calloc_lines((g->n_sub_total + 63) / 64 * sizeof *w->xdirty_sub[k]);
    }
    w->preq = base_calloc((size_t)2 * g->n_sub_total * cap, sizeof *w->preq);
    w->pat = base_calloc((size_t)2 * g->n_sub_total * cap, sizeof *w->pat);
    w->xp = base_calloc_lines((size_t)g->n_sub_total * sizeof *w->xp);
    w->cp = base_calloc_lines((size_t)g->n_sub_total * sizeof *w->cp);
    w->ch = base_calloc_lines((size_t)g->n_chan * sizeof *w->ch);
    w->chan_task = base_calloc(g->n_chan, sizeof *w->chan_task);
    w->awake = base_calloc_lines((g->n_chan + 63) / 64 * sizeof *w->awake);
    w->reqch = base_calloc_lines((g->n_chan + 63) / 64 * sizeof *w->reqch);
    for (uint32_t c = 0; c < g->n_chan; c++) {
        w->ch[c].busy = 3; /* a new channel has not yet found itself idle */
        sim_bit_set(w->awake, c);
    }
    w->range = base_calloc_lines((size_t)g->k.threads * sizeof *w->range);
    w->nx = icnt_subnets(g->net) == 2 ? 2 : 1;
    if (g->k.team_profile)
        w->prof = base_calloc_lines((size_t)g->k.threads * sizeof *w->prof);
    g->windowed = 1;
}

void sim_window_free(sim *g)
{
    sim_window *w = &g->w;
    free(w->req);
    free(w->at);
    free(w->sm);
    free(w->xs);
    free(w->out_bits);
    free(w->rep_bits);
    free(w->in_bits);
    free(w->req_bits);
    for (int k = 0; k < 2; k++) {
        free(w->xdirty_sm[k]);
        free(w->xdirty_sub[k]);
    }
    free(w->preq);
    free(w->pat);
    free(w->xp);
    free(w->cp);
    free(w->ch);
    free(w->chan_task);
    free(w->awake);
    free(w->reqch);
    free(w->edge);
    free(w->xact[0]);
    free(w->xact[1]);
    free(w->range);
    free(w->sm_first);
    free(w->home_sm);
    free(w->home_chan);
    free(w->order);
    free(w->dur);
    free(w->load);
    free(w->prof);
}

/* ---- the SMs --------------------------------------------------------------------------- */

/* The first cycle SM s's inbound link has a reply for (UINT64_MAX: none this window). */
static uint64_t in_due(const sim *g, uint32_t s)
{
    const sim_wsm *ws = &g->w.sm[s];
    return ws->in_head == ws->in_tail_seen ? UINT64_MAX : *sm_at(g, s, LK_IN, ws->in_head);
}

/* Cycles [from, end) of SM s: like the exact loop's tasks, the SM runs a cycle when it has
 * work inside, a request not yet on its link, or a reply due; a parked SM sleeps until its
 * park ends or a reply is due. */
static void sm_window(sim *g, uint32_t s, uint64_t from, uint64_t end, uint32_t me)
{
    sm *u = g->sm[s];
    sim_wsm *ws = &g->w.sm[s];
    mem_q *out = sm_outbound(u);
    int prog = 0;
    sm_cta_launch_pending(u); /* a CTA issued between the windows (its progress counted then) */
    /* the replies due in the window: their MSHR entries and first waiters fetched now, as
     * the exact loop does when a reply enters the crossbar (each fill costs host misses) */
    for (uint32_t j = ws->in_head; j != ws->in_tail_seen && *sm_at(g, s, LK_IN, j) < end; j++)
        sm_prefetch_reply_early(u, sm_req(g, s, LK_IN, j));
    for (uint64_t c = from; c < end; c++) {
        uint64_t due = in_due(g, s);
        if (sm_parked(u)) {
            uint64_t t = sm_park_until(u) < due ? sm_park_until(u) : due;
            if (t >= end)
                break;
            if (t > c)
                c = t;
            sm_unpark(u, c);
        }
        if (due <= c && sm_inbound_room(u)) {
            sm_inbound_push(u, sm_req(g, s, LK_IN, ws->in_head));
            ws->in_head++;
            if (ws->in_head != ws->in_tail_seen) /* the next one's line, meanwhile */
                sm_prefetch_reply(u, sm_req(g, s, LK_IN, ws->in_head));
        } else if (!sm_active_inside(u) && mem_q_empty(out)) {
            if (due >= end)
                break;
            c = due - 1; /* nothing to do before the reply */
            continue;
        }
        prog |= sm_cycle(u, c);
        if (!mem_q_empty(out) && ws->out_tail - ws->out_head_seen < g->w.cap) {
            *sm_req(g, s, LK_OUT, ws->out_tail) = *mem_q_front(out);
            *sm_at(g, s, LK_OUT, ws->out_tail) = c + g->w.len;
            ws->out_tail++;
            (void)mem_q_pop(out);
        }
    }
    /* finished CTAs retire here, at the window's end, for the serial part to count */
    uint32_t retired = sm_ctas_done(u) ? sm_cta_retire_keep(u, end) : 0;
    uint64_t *f = sim_sm_task_end(g, s, me, prog), bit = 1ull << (s % 64);
    if (sm_active(u))
        f[SMF_ACT * g->smf_words] |= bit;
    if (retired)
        f[SMF_DONE * g->smf_words] |= bit;
}

/* ---- the crossbar ---------------------------------------------------------------------- */

/* Core edge: replies the crossbar holds for SMs go onto their links, one per SM, while the
 * link has room as seen at the window's start. */
static uint32_t replies_to_sms(sim *g, uint64_t cyc)
{
    uint32_t moved = 0;
    if (!icnt_subnet_busy(g->net, ICNT_REP))
        return 0;
    for (uint32_t s = icnt_next_held(g->net, ICNT_REP, 0); s < g->n_sm;
         s = icnt_next_held(g->net, ICNT_REP, s + 1)) {
        sim_wxs *x = &g->w.xs[s];
        mem_req *r = sm_req(g, s, LK_IN, x->in_tail);
        if (x->in_tail - x->in_head_seen >= g->w.cap || !icnt_try_pop(g->net, ICNT_REP, s, r))
            continue;
        r->loc = MEM_AT_SM_REPLY;
        *sm_at(g, s, LK_IN, x->in_tail) = cyc + g->w.len;
        x->in_tail++;
        sim_bit_set(g->w.xdirty_sm[ICNT_REP], s);
        moved++;
    }
    return moved;
}

/* Core edge: each SM's oldest request whose link time is over enters the crossbar if it has
 * room, SMs in index order (as phase C sends them). */
static uint32_t requests_from_sms(sim *g, uint64_t cyc)
{
    uint32_t moved = 0;
    for (uint32_t wd = 0; wd < (g->n_sm + 63) / 64; wd++)
        for (uint64_t bits = g->w.out_bits[wd]; bits; bits &= bits - 1) {
            uint32_t s = wd * 64 + (uint32_t)__builtin_ctzll(bits);
            sim_wxs *x = &g->w.xs[s];
            if (*sm_at(g, s, LK_OUT, x->out_head) > cyc)
                continue;
            const mem_req *r = sm_req(g, s, LK_OUT, x->out_head);
            if (!icnt_try_push(g->net, ICNT_REQ, s, r->part, r, mem_req_bytes(r, 0)))
                continue;
            moved++;
            sim_bit_set(g->w.xdirty_sm[ICNT_REQ], s);
            if (++x->out_head == x->out_tail_seen)
                g->w.out_bits[wd] &= ~(bits & -bits);
        }
    return moved;
}

/* Interconnect edge: each sub-partition's oldest reply whose link time is over enters the
 * crossbar if it has room, sub-partitions in index order. */
static uint32_t replies_from_subs(sim *g, uint64_t cyc)
{
    uint32_t moved = 0;
    for (uint32_t wd = 0; wd < (g->n_sub_total + 63) / 64; wd++)
        for (uint64_t bits = g->w.rep_bits[wd]; bits; bits &= bits - 1) {
            uint32_t i = wd * 64 + (uint32_t)__builtin_ctzll(bits);
            sim_wxp *x = &g->w.xp[i];
            if (*sub_at(g, i, LK_REP, x->rep_head) > cyc)
                continue;
            const mem_req *r = sub_req(g, i, LK_REP, x->rep_head);
            if (!icnt_try_push(g->net, ICNT_REP, i, r->sm, r, mem_req_bytes(r, 1)))
                continue;
            moved++;
            sim_bit_set(g->w.xdirty_sub[ICNT_REP], i);
            if (++x->rep_head == x->rep_tail_seen)
                g->w.rep_bits[wd] &= ~(bits & -bits);
        }
    return moved;
}

/* L2 edge: requests leave the crossbar onto their sub-partitions' links while a link has
 * room as seen at the window's start (one per sub-partition, as the ROP queue takes them). */
static uint32_t requests_to_subs(sim *g, uint64_t cyc)
{
    uint32_t moved = 0;
    if (!icnt_subnet_busy(g->net, ICNT_REQ))
        return 0;
    for (uint32_t i = icnt_next_held(g->net, ICNT_REQ, 0); i < g->n_sub_total;
         i = icnt_next_held(g->net, ICNT_REQ, i + 1)) {
        sim_wxp *x = &g->w.xp[i];
        mem_req *r = sub_req(g, i, LK_REQ, x->req_tail);
        if (x->req_tail - x->req_head_seen >= g->w.cap || !icnt_try_pop(g->net, ICNT_REQ, i, r))
            continue;
        *sub_at(g, i, LK_REQ, x->req_tail) = cyc + g->w.len;
        x->req_tail++;
        sim_bit_set(g->w.xdirty_sub[ICNT_REQ], i);
        moved++;
    }
    return moved;
}

/* One subnet (both directions share a crossbar): the crossbar's window as one task, in the
 * exact loop's order of each edge. */
static void xbar_window(sim *g)
{
    const sim_wedge *e = g->w.edge;
    uint64_t moved = 0;
    icnt_prefetch(g->net, 0); /* both directions: one crossbar */
    for (uint32_t k = 0; k < g->w.nedge; k++) {
        unsigned m = e[k].m;
        uint64_t cyc = e[k].cycle;
        if (m & 1u << CLK_CORE)
            moved += replies_to_sms(g, cyc);
        if (m & 1u << CLK_ICNT)
            moved += replies_from_subs(g, cyc);
        if (m & 1u << CLK_L2)
            moved += requests_to_subs(g, cyc);
        if (m & 1u << CLK_ICNT) {
            uint32_t n = icnt_cycle_begin(g->net);
            for (uint32_t i = 0; i < n; i++)
                icnt_subnet_cycle(g->net, i);
            icnt_cycle_end(g->net);
        }
        if (m & 1u << CLK_CORE)
            moved += requests_from_sms(g, cyc);
    }
    g->w.xb_moved[0][0] = moved; /* once: other tasks read the lines around it */
}

/* Two subnets: the request crossbar's window (from the SMs' links to the sub-partitions')
 * and the reply crossbar's are tasks of their own. Each keeps the exact loop's order of its
 * own steps within an edge, and nothing one does reaches the other (icnt_subnet_step), so
 * the two together do what xbar_window does. Each notes, per edge, whether its crossbar held
 * a packet as the interconnect cycle began: the network's active cycles, made between
 * windows (count_icnt). */
static void xreq_window(sim *g)
{
    const sim_wedge *e = g->w.edge;
    uint8_t *act = g->w.xact[ICNT_REQ];
    uint64_t moved = 0;
    icnt_prefetch(g->net, ICNT_REQ); /* its lines went cold in the window before */
    for (uint32_t k = 0; k < g->w.nedge; k++) {
        unsigned m = e[k].m;
        if (m & 1u << CLK_L2)
            moved += requests_to_subs(g, e[k].cycle);
        if (m & 1u << CLK_ICNT)
            act[k] = (uint8_t)icnt_subnet_step(g->net, ICNT_REQ);
        if (m & 1u << CLK_CORE)
            moved += requests_from_sms(g, e[k].cycle);
    }
    g->w.xb_moved[ICNT_REQ][0] = moved;
}

static void xrep_window(sim *g)
{
    const sim_wedge *e = g->w.edge;
    uint8_t *act = g->w.xact[ICNT_REP];
    uint64_t moved = 0;
    icnt_prefetch(g->net, ICNT_REP);
    for (uint32_t k = 0; k < g->w.nedge; k++) {
        unsigned m = e[k].m;
        if (m & 1u << CLK_CORE)
            moved += replies_to_sms(g, e[k].cycle);
        if (m & 1u << CLK_ICNT) {
            moved += replies_from_subs(g, e[k].cycle);
            act[k] = (uint8_t)icnt_subnet_step(g->net, ICNT_REP);
        }
    }
    g->w.xb_moved[ICNT_REP][0] = moved;
}

/* The subnet's task (either one's with one subnet). */
static void xbar_task(sim *g, uint32_t i)
{
    if (g->w.nx == 1)
        xbar_window(g);
    else if (i == ICNT_REQ)
        xreq_window(g);
    else
        xrep_window(g);
}

static int any_bit(const uint64_t *b, uint32_t n)
{
    for (uint32_t wd = 0; wd < (n + 63) / 64; wd++)
        if (b[wd])
            return 1;
    return 0;
}

/* Serial, before a window: its crossbar tasks. A crossbar (a subnet, when there are two)
 * that holds no packet, with nothing on the links it takes from that it may take in the
 * window, would only count idle cycles: it gets no task, and count_icnt moves its clock. */
static void plan_xbar(sim *g)
{
    sim_window *w = &g->w;
    int req = any_bit(w->out_bits, g->n_sm), rep = any_bit(w->rep_bits, g->n_sub_total);
    w->nxt = 0;
    if (w->nx == 1) {
        if (req || rep || icnt_busy(g->net))
            w->xtask[w->nxt++] = 0;
        return;
    }
    if (req || icnt_subnet_busy(g->net, ICNT_REQ))
        w->xtask[w->nxt++] = ICNT_REQ;
    if (rep || icnt_subnet_busy(g->net, ICNT_REP))
        w->xtask[w->nxt++] = ICNT_REP;
}

/* Serial, after a window: a crossbar without a task idles through its interconnect edges
 * (icnt_skip, as xbar_window's cycles would count them); with two subnets, the interconnect
 * cycles, and of them those in which a subnet held a packet, as icnt_cycle_begin counts. */
static void count_icnt(sim *g)
{
    const sim_window *w = &g->w;
    if (w->nx != 2) {
        if (!w->nxt)
            icnt_skip(g->net, w->nicnt);
        return;
    }
    uint64_t active = 0;
    for (uint32_t k = 0; k < w->nedge && w->nxt; k++)
        if (w->edge[k].m & 1u << CLK_ICNT) {
            uint8_t a = 0;
            for (uint32_t j = 0; j < w->nxt; j++)
                a |= w->xact[w->xtask[j]][k];
            active += a != 0;
        }
    icnt_count_cycles(g->net, w->nicnt, active);
    for (uint32_t s = 0; s < 2; s++)
        if (!(w->nxt > 0 && w->xtask[0] == s) && !(w->nxt > 1 && w->xtask[1] == s))
            icnt_subnet_skip(g->net, s, w->nicnt);
}

/* ---- the memory channels --------------------------------------------------------------- */

/* Interconnect edge: replies leave channel c's sub-partitions onto their links. */
static void chan_replies_out(sim *g, uint32_t c, uint64_t cyc)
{
    mem_part *p = g->part[c];
    for (uint32_t s = 0; s < g->n_sub; s++) {
        uint32_t i = c * g->n_sub + s;
        sim_wcp *x = &g->w.cp[i];
        if (!mem_part_reply_peek(p, s) || x->rep_tail - x->rep_head_seen >= g->w.cap)
            continue;
        *sub_req(g, i, LK_REP, x->rep_tail) = mem_part_reply_pop(p, s);
        *sub_at(g, i, LK_REP, x->rep_tail) = cyc + g->w.len;
        x->rep_tail++;
        g->w.ch[c].moved++;
    }
}

/* L2 edge: each sub-partition's oldest request whose link time is over enters its ROP queue
 * if it has room. */
static void chan_requests_in(sim *g, uint32_t c, uint64_t cyc)
{
    mem_part *p = g->part[c];
    for (uint32_t s = 0; s < g->n_sub; s++) {
        uint32_t i = c * g->n_sub + s;
        sim_wcp *x = &g->w.cp[i];
        if (x->req_head == x->req_tail_seen || *sub_at(g, i, LK_REQ, x->req_head) > cyc ||
            !mem_part_can_accept(p, s))
            continue;
        mem_req r = *sub_req(g, i, LK_REQ, x->req_head);
        r.loc = MEM_AT_ROP;
        mem_part_push(p, s, &r, cyc);
        x->req_head++;
        sim_wchan *h = &g->w.ch[c];
        if (!h->wake) {
            h->busy |= 2;
        } else { /* asleep: the request adds a head, maybe before the one it waits for */
            uint64_t t = cyc + mem_part_rop_latency(p);
            h->wake = t < h->wake ? t : h->wake;
        }
        h->moved++;
    }
}

/* Channel c's window. As the exact loop's channel books do (chan.c), a quiet DRAM side's
 * edges are only counted, handed over as one mem_part_skip before its next cycle, a quiet L2
 * side is not cycled (its time is set at the window's end), and a channel whose requests all
 * wait out a delay timed in core cycles sleeps until the first leaves it (chan_sleep). */
static void chan_window(sim *g, uint32_t c)
{
    mem_part *p = g->part[c];
    sim_wchan *h = &g->w.ch[c];
    const sim_wedge *e = g->w.edge;
    uint64_t l2_cyc = 0;
    for (uint32_t k = 0; k < g->w.nedge; k++) {
        unsigned m = e[k].m;
        uint64_t cyc = e[k].cycle;
        if ((m & 1u << CLK_ICNT) && mem_part_replies(p))
            chan_replies_out(g, c, cyc);
        if (m & 1u << CLK_L2) {
            chan_requests_in(g, c, cyc);
            l2_cyc = cyc;
        }
        /* a task, as the exact loop's plan gives it (chan.c): then both of the edge's cycles
         * run, for the DRAM cycle may wake the L2 side within the edge */
        int on_dram = (m & 1u << CLK_DRAM) != 0, on_l2 = (m & 1u << CLK_L2) != 0;
        if (h->wake && cyc >= h->wake) {
            h->wake = 0;
            h->busy = 3;
        }
        if (!((on_dram && (h->busy & 1)) || (on_l2 && (h->busy & 2)))) {
            h->skip += on_dram;
            continue;
        }
        if (h->skip) {
            mem_part_skip(p, h->skip);
            h->skip = 0;
        }
        if (on_dram)
            mem_part_dram_cycle(p, cyc);
        if (on_l2)
            mem_part_l2_cycle(p, cyc);
        unsigned idle = mem_part_idle(p);
        h->busy = (idle & MEM_PART_DRAM_IDLE ? 0 : 1) | (idle & MEM_PART_L2_IDLE ? 0 : 2);
        uint64_t w = h->busy && g->k.chan_sleep ? mem_part_sleep(p) : 0;
        if (w > cyc + 1) {
            h->wake = w;
            h->busy = 0;
        }
    }
    if (h->skip) {
        mem_part_skip(p, h->skip);
        h->skip = 0;
    }
    h->now = 0;
    if (!(h->busy & 2) && l2_cyc)
        mem_part_set_now(p, l2_cyc); /* as the L2 edges it was not cycled on would */
    /* asleep with no wake (nothing held): a request wakes it, as it wakes a quiet one */
    h->quiet = !h->busy && (!h->wake || h->wake == UINT64_MAX) && !mem_part_replies(p);
}

/* A quiet channel's edges since it went quiet (or was last caught up) into its own books:
 * the DRAM edges to hand over, the last L2 edge's cycle. */
static void chan_catch_up(sim_window *w, uint32_t c)
{
    sim_wchan *h = &w->ch[c];
    h->skip += w->dram_edges - h->qdram;
    if (w->l2_wins != h->ql2)
        h->now = w->l2_last;
    h->qdram = w->dram_edges;
    h->ql2 = w->l2_wins;
}

/* Serial, after a window or a skip: its DRAM edges and last L2 edge (0: none) into the quiet
 * channels' books. */
static void books_add(sim_window *w, uint64_t ndram, uint64_t l2_cycle)
{
    w->dram_edges += ndram;
    if (l2_cycle) {
        w->l2_wins++;
        w->l2_last = l2_cycle;
    }
}

/* Serial, before a reader of the channels: their counted edges handed over. */
void sim_window_sync_channels(sim *g)
{
    for (uint32_t c = 0; c < g->n_chan; c++) {
        sim_wchan *h = &g->w.ch[c];
        if (!sim_bit_get(g->w.awake, c))
            chan_catch_up(&g->w, c);
        if (h->skip)
            mem_part_skip(g->part[c], h->skip);
        if (h->now)
            mem_part_set_now(g->part[c], h->now);
        h->skip = h->now = 0;
    }
}

/* Channel c, awake, sleeps through the window that ends with core cycle end - 1 with no
 * reply to send and no request on its links: its task would only count the window's edges
 * and hand them over (chan_window). */
static int dormant(const sim *g, uint32_t c, uint64_t end)
{
    const sim_wchan *h = &g->w.ch[c];
    return !h->busy && h->wake >= end && !sim_bit_get(g->w.reqch, c) &&
           !mem_part_replies(g->part[c]);
}

/* The channels with a task in the window, in index order: all but the quiet ones that no
 * request reaches, whose edges the books count (books_add), and the dormant ones, which
 * count theirs themselves as a quiet one's books would. A quiet one a request reaches takes
 * its edges from the books first. */
static void collect_chans(sim *g, uint64_t end)
{
    sim_window *w = &g->w;
    uint32_t words = (g->n_chan + 63) / 64;
    for (uint32_t wd = 0; wd < (g->n_sub_total + 63) / 64; wd++)
        for (uint64_t b = w->req_bits[wd]; b; b &= b - 1)
            sim_bit_set(w->reqch, (wd * 64 + (uint32_t)__builtin_ctzll(b)) / g->n_sub);
    w->nchan_task = 0;
    for (uint32_t wd = 0; wd < words; wd++) {
        for (uint64_t b = w->awake[wd] | w->reqch[wd]; b; b &= b - 1) {
            uint32_t c = wd * 64 + (uint32_t)__builtin_ctzll(b);
            if (!sim_bit_get(w->awake, c)) {
                chan_catch_up(w, c);
            } else if (dormant(g, c, end)) {
                w->ch[c].skip += w->ndram;
                if (w->last_l2)
                    w->ch[c].now = w->last_l2;
                continue;
            }
            w->chan_task[w->nchan_task++] = c;
        }
        w->reqch[wd] = 0;
    }
}

/* Serial (the hang diagnosis): the links that hold entries, between windows, where every
 * index is settled. */
void sim_window_diagnose(const sim *g, FILE *f)
{
    const sim_window *w = &g->w;
    for (uint32_t s = 0; s < g->n_sm; s++) {
        uint32_t out = w->sm[s].out_tail - w->xs[s].out_head;
        uint32_t in = w->xs[s].in_tail - w->sm[s].in_head;
        if (out || in)
            fprintf(f, "  links of sm %u: %u requests to the crossbar, %u replies to the SM\n",
                    s, out, in);
    }
    for (uint32_t i = 0; i < g->n_sub_total; i++) {
        uint32_t req = w->xp[i].req_tail - w->cp[i].req_head;
        uint32_t rep = w->cp[i].rep_tail - w->xp[i].rep_head;
        if (req || rep)
            fprintf(f, "  links of sub-partition %u: %u requests to it, %u replies from it\n",
                    i, req, rep);
    }
}

/* ---- windows --------------------------------------------------------------------------- */

/* Clock domain d's edges at or before fs time t. */
static uint64_t edges_upto(const sim *g, int d, uint64_t t)
{
    return t >= g->next[d] ? (t - g->next[d]) / g->period[d] + 1 : 0;
}

/* Clock domain d ticks at the core's edges from clocks `next` on: the same period, its next
 * edge the core's. */
static int with_core(const sim *g, const uint64_t *next, int d)
{
    return g->period[d] == g->period[CLK_CORE] && next[d] == next[CLK_CORE];
}

/* The clocks move over every edge up to the core edge of cycle end - 1 (a window's or a
 * skip's): n[d] is domain d's count of them; returns the core cycle its last L2 edge sees
 * (the core edges before it; 0: none). A clock in step with the core's has the core's count,
 * without a division (most configs run the interconnect and the L2 at the core's clock). */
static uint64_t clocks_to(sim *g, uint64_t end, uint64_t n[CLK_N])
{
    uint64_t tend = g->next[CLK_CORE] + (end - 1 - g->cycle) * g->period[CLK_CORE], l2 = 0;
    for (int d = 0; d < CLK_N; d++)
        n[d] = d == CLK_CORE || with_core(g, g->next, d) ? end - g->cycle
                                                         : edges_upto(g, d, tend);
    if (with_core(g, g->next, CLK_L2)) {
        l2 = end - 1;
    } else if (n[CLK_L2]) {
        uint64_t tl = g->next[CLK_L2] + (n[CLK_L2] - 1) * g->period[CLK_L2];
        l2 = g->cycle + (tl > g->next[CLK_CORE] ? edges_upto(g, CLK_CORE, tl - 1) : 0);
    }
    for (int d = 0; d < CLK_N; d++)
        g->next[d] += n[d] * g->period[d];
    return l2;
}

/* Room for n edges in the window's lists. */
static void edge_room(sim_window *w, uint64_t n)
{
    if (n <= w->edge_cap)
        return;
    while (w->edge_cap < n)
        w->edge_cap = w->edge_cap ? 2 * w->edge_cap : 64;
    w->edge = base_realloc(w->edge, w->edge_cap * sizeof *w->edge);
    for (uint32_t s = 0; s < w->nx && w->nx == 2; s++)
        w->xact[s] = base_realloc(w->xact[s], w->edge_cap);
}

/* The window that ends with core cycle end - 1: the clocks advance past its edges (every
 * domain's edges up to the core edge of that cycle, after the last window's), and its
 * counts of DRAM and interconnect edges and its last L2 edge's core cycle are made
 * (clocks_to, as for a skip); the edges themselves are listed only for tasks that walk them
 * (list_edges): an SM's task needs only the window's cycles, and in a latency-bound run most
 * windows have only SM tasks. */
static void window_clocks(sim *g, uint64_t end)
{
    sim_window *w = &g->w;
    uint64_t n[CLK_N];
    memcpy(w->next0, g->next, sizeof w->next0);
    w->cycle0 = g->cycle;
    w->end = end;
    w->nedge = 0;
    w->last_l2 = clocks_to(g, end, n);
    w->most = 0;
    for (int d = 0; d < CLK_N; d++)
        w->most += n[d];
    w->ndram = n[CLK_DRAM];
    w->nicnt = n[CLK_ICNT];
}

/* list_edges when the clocks in step with the core's (`lock`, its own bit among them) and one
 * other, d, are all: a merge of two. */
static uint32_t list_two(sim *g, unsigned lock, int d)
{
    sim_window *w = &g->w;
    uint64_t nc = w->next0[CLK_CORE], nd = w->next0[d], cyc = w->cycle0;
    const uint64_t pc = g->period[CLK_CORE], pd = g->period[d];
    const unsigned bd = 1u << d;
    sim_wedge *e = w->edge;
    uint32_t k = 0;
    for (;;) {
        if (nd < nc) {
            e[k++] = (sim_wedge){cyc, bd};
            nd += pd;
            continue;
        }
        unsigned m = lock;
        if (nd == nc) {
            m |= bd;
            nd += pd;
        }
        e[k++] = (sim_wedge){cyc, m};
        nc += pc;
        if (++cyc == w->end)
            return k;
    }
}

/* The window's edges, from the clocks as it began (sim_next_edges' merge, on a copy, with
 * room for them all made first). The clocks in step with the core's at the window's start
 * stay so through it: they tick with it, and when one other clock is left (the usual: the
 * DRAM's) the merge is of two. */
static void list_edges(sim *g)
{
    sim_window *w = &g->w;
    edge_room(w, w->most);
    unsigned lock = 1u << CLK_CORE;
    int other = -1, nother = 0;
    for (int d = 0; d < CLK_N; d++) {
        if (d == CLK_CORE)
            continue;
        if (with_core(g, w->next0, d)) {
            lock |= 1u << d;
        } else {
            other = d;
            nother++;
        }
    }
    if (nother == 1) {
        w->nedge = list_two(g, lock, other);
        return;
    }
    uint64_t n[CLK_N], cyc = w->cycle0;
    memcpy(n, w->next0, sizeof n);
    sim_wedge *e = w->edge;
    uint32_t k = 0;
    for (;;) {
        uint64_t t = n[0];
        for (int i = 1; i < CLK_N; i++)
            t = n[i] < t ? n[i] : t;
        unsigned m = 0;
        for (int i = 0; i < CLK_N; i++)
            if (n[i] == t) {
                m |= 1u << i;
                n[i] += g->period[i];
            }
        e[k++] = (sim_wedge){cyc, m};
        if ((m & 1u << CLK_CORE) && ++cyc == w->end)
            break;
    }
    w->nedge = k;
}

typedef struct win_ctx {
    uint64_t from, end;
    uint32_t ahead; /* 1: the last thread fills the CTA read-ahead rings first */
} win_ctx;

/* Task i of the window: the crossbar's (nxt), the channels', the SMs' with work. */
static void win_task(sim *g, const win_ctx *x, uint32_t i, uint32_t me)
{
    uint32_t nx = g->w.nxt;
    if (i < nx)
        xbar_task(g, g->w.xtask[i]);
    else if (i < nx + g->w.nchan_task)
        chan_window(g, g->w.chan_task[i - nx]);
    else
        sm_window(g, g->active[i - nx - g->w.nchan_task], x->from, x->end, me);
}

/* team_profile: task i's seconds to thread me's tallies (the crossbar's are kept apart). */
static void prof_task(sim *g, uint32_t i, uint32_t me, double s, int stolen)
{
    sim_wprof *p = &g->w.prof[me];
    p->busy += s;
    p->tasks++;
    p->stolen += stolen != 0;
    if (i < g->w.nxt)
        p->xbar_s += s;
    else if (i < g->w.nxt + g->w.nchan_task)
        p->chan_s += s;
    else
        p->sm_s += s;
}

/* The SMs with something to do in [from, end): work as their last task left it, a CTA
 * given since, or a reply on the link; a parked one only if it wakes before `end`. */
static void collect(sim *g, uint64_t end)
{
    uint32_t n = 0;
    for (uint32_t wd = 0; wd < (g->n_sm + 63) / 64; wd++) {
        uint64_t ran = 0;
        for (uint64_t bits = g->maybe_active[wd] | g->w.in_bits[wd]; bits; bits &= bits - 1) {
            uint32_t s = wd * 64 + (uint32_t)__builtin_ctzll(bits);
            int reply = in_due(g, s) < end;
            int act = (g->maybe_active[wd] >> (s % 64)) & 1;
            if (!reply && (!act || (g->park_at[s] && g->park_at[s] >= end)))
                continue;
            g->active[n++] = s;
            ran |= 1ull << (s % 64);
        }
        g->ran[wd] = ran;
    }
    g->nactive = n;
}

#ifdef _OPENMP
/* Homes (the team's idea, team.c): each channel and each SM belongs to a thread, channels in
 * equal blocks, SMs in contiguous blocks whose borders move as the threads' loads ask
 * (rebalance). A thread takes its own tasks first, then the others', so a unit stays in one
 * core's cache window after window, and the steals even out what the borders do not. */
static void homes_init(sim *g, uint32_t threads)
{
    sim_window *w = &g->w;
    w->sm_first = base_calloc(threads + 1, sizeof *w->sm_first);
    w->home_sm = base_calloc(g->n_sm, sizeof *w->home_sm);
    w->home_chan = base_calloc(g->n_chan, sizeof *w->home_chan);
    w->order = base_calloc(2 + (size_t)g->n_chan + g->n_sm, sizeof *w->order);
    w->dur = base_calloc(2 + (size_t)g->n_chan + g->n_sm, sizeof *w->dur);
    w->load = base_calloc(threads, sizeof *w->load);
    for (uint32_t t = 0; t <= threads; t++)
        w->sm_first[t] = (uint32_t)((uint64_t)t * g->n_sm / threads);
    for (uint32_t t = 0, s = 0; t < threads; t++)
        for (; s < w->sm_first[t + 1]; s++)
            w->home_sm[s] = t;
    for (uint32_t c = 0; c < g->n_chan; c++)
        w->home_chan[c] = (uint32_t)((uint64_t)c * threads / g->n_chan);
}

/* The window's tasks (the crossbar's aside) grouped by home into the threads' ranges. */
static void plan(sim *g, uint32_t threads)
{
    sim_window *w = &g->w;
    uint32_t pos = 0, kc = 0, ks = 0;
    /* homes are blocks in index order, and so are both lists: one pass */
    for (uint32_t t = 0; t < threads; t++) {
        atomic_store_explicit(&w->range[t].next, pos, memory_order_relaxed);
        for (; kc < w->nchan_task && w->home_chan[w->chan_task[kc]] == t; kc++)
            w->order[pos++] = w->nxt + kc;
        for (; ks < g->nactive && w->home_sm[g->active[ks]] == t; ks++)
            w->order[pos++] = w->nxt + w->nchan_task + ks;
        w->range[t].end = pos;
    }
    if (kc < w->nchan_task || ks < g->nactive)
        base_panic("window plan: homes out of index order");
}

/* Tasks from thread v's range while it has any; each one's time in dur[] (host timing, which
 * moves homes, never a result). */
static void take(sim *g, const win_ctx *x, sim_wrange *v, uint32_t me)
{
    for (;;) {
        uint32_t i = atomic_fetch_add_explicit(&v->next, 1, memory_order_relaxed);
        if (i >= v->end)
            return;
        double t0 = base_now_s();
        win_task(g, x, g->w.order[i], me);
        g->w.dur[i] = base_now_s() - t0;
        if (g->w.prof)
            prof_task(g, g->w.order[i], me, g->w.dur[i], v != &g->w.range[me]);
    }
}

/* team_profile, on thread me as its crossbar task ends: was every other task taken by then
 * (so a crossbar bounded the window)? */
static void prof_xbar_end(sim *g, uint32_t threads, uint32_t me, double t_start, double t_end)
{
    sim_window *w = &g->w;
    sim_wprof *p = &w->prof[me];
    p->busy += t_end - t_start;
    p->xbar_s += t_end - t_start;
    p->tasks++;
    for (uint32_t t = 0; t < threads; t++)
        if (atomic_load_explicit(&w->range[t].next, memory_order_relaxed) < w->range[t].end)
            return;
    p->xlast++;
    p->xlast_s += t_end - w->p_t0;
}

/* Every 8 windows, each border between two threads' SMs moves by one SM towards the thread
 * whose homed work (its range's tasks wherever they ran, and a crossbar on threads 0 and 1)
 * took less time, when the difference is over one and a half SM tasks. */
static void rebalance(sim *g, uint32_t threads, const double *xbar_s)
{
    sim_window *w = &g->w;
    double sm_s = 0;
    uint32_t nsm = 0;
    for (uint32_t t = 0; t < threads; t++) {
        double own = t < w->nxt ? xbar_s[t] : 0;
        for (uint32_t i = t ? w->range[t - 1].end : 0; i < w->range[t].end; i++) {
            own += w->dur[i];
            if (w->order[i] >= w->nxt + w->nchan_task) {
                sm_s += w->dur[i];
                nsm++;
            }
        }
        w->load[t] = 0.75 * w->load[t] + 0.25 * own;
    }
    if (++w->windows % 8 || !nsm)
        return;
    double slack = 1.5 * sm_s / nsm;
    for (uint32_t t = 0; t + 1 < threads; t++) {
        uint32_t *b = &w->sm_first[t + 1];
        if (w->load[t] - w->load[t + 1] > slack && *b > w->sm_first[t])
            w->home_sm[--*b] = t + 1;
        else if (w->load[t + 1] - w->load[t] > slack && *b < w->sm_first[t + 2])
            w->home_sm[(*b)++] = t;
    }
}

static void run_team(sim *g, const win_ctx *x, uint32_t threads)
{
    sim_window *w = &g->w;
    double xbar_s[2] = {0, 0};
    if (!w->sm_first)
        homes_init(g, threads);
    plan(g, threads);
    if (w->prof)
        w->p_t0 = base_now_s();
    sim_omp_fork(g);
#pragma omp parallel num_threads((int)threads)
    {
        sim_omp_enter(g);
        uint32_t me = (uint32_t)omp_get_thread_num();
        if (me < w->nxt) { /* the crossbar's tasks first, on threads 0 and 1 */
            double t0 = base_now_s();
            xbar_task(g, w->xtask[me]);
            double t1 = base_now_s();
            xbar_s[me] = t1 - t0;
            if (w->prof)
                prof_xbar_end(g, threads, me, t0, t1);
        }
        if (me == threads - 1 && x->ahead)
            sim_ahead_task(g);
        for (uint32_t k = 0; k < threads; k++)
            take(g, x, &w->range[(me + k) % threads], me);
        sim_omp_leave(g);
    }
    sim_omp_join(g);
    if (w->prof)
        w->p_region += base_now_s() - w->p_t0;
    rebalance(g, threads, xbar_s);
}
#endif

static void run_window(sim *g, uint64_t end)
{
    win_ctx x = {g->cycle, end, 0};
    window_clocks(g, end);
    collect(g, end);
    collect_chans(g, end);
    plan_xbar(g);
    if (g->w.nxt || g->w.nchan_task)
        list_edges(g);
    uint32_t n = g->w.nxt + g->w.nchan_task + g->nactive;
#ifdef _OPENMP
    uint32_t threads = (uint32_t)g->k.threads;
    if (threads > 1 && !g->adapt.solo) {
        x.ahead = sim_ahead_wanted(g);
        run_team(g, &x, threads);
        return;
    }
#endif
    g->res->windows_alone += g->k.threads > 1;
    for (uint32_t i = 0; i < n; i++) {
        double t0 = g->w.prof ? base_now_s() : 0;
        win_task(g, &x, i, 0);
        if (g->w.prof) {
            double s = base_now_s() - t0;
            prof_task(g, i, 0, s, 0);
            g->w.p_region += s;
        }
    }
}

/* SM s's links: each side sees the other's indices; which links hold entries. */
static void exchange_sm(sim_window *w, uint32_t s)
{
    sim_wsm *a = &w->sm[s];
    sim_wxs *b = &w->xs[s];
    a->out_head_seen = b->out_head;
    a->in_tail_seen = b->in_tail;
    b->in_head_seen = a->in_head;
    b->out_tail_seen = a->out_tail;
    if (b->out_head != b->out_tail_seen)
        sim_bit_set(w->out_bits, s);
    sim_bit_put(w->in_bits, s, a->in_head != a->in_tail_seen);
}

static void exchange_sub(sim_window *w, uint32_t i)
{
    sim_wxp *a = &w->xp[i];
    sim_wcp *b = &w->cp[i];
    a->req_head_seen = b->req_head;
    a->rep_tail_seen = b->rep_tail;
    b->req_tail_seen = a->req_tail;
    b->rep_head_seen = a->rep_head;
    if (a->rep_head != a->rep_tail_seen)
        sim_bit_set(w->rep_bits, i);
    sim_bit_put(w->req_bits, i, b->req_head != b->req_tail_seen);
}

/* The links whose indices moved in the window: of the SMs that ran, the channels that ran,
 * and those the crossbar tasks marked. (Exchanging a link twice changes nothing.) */
static void exchange_links(sim *g)
{
    sim_window *w = &g->w;
    for (uint32_t wd = 0; wd < (g->n_sm + 63) / 64; wd++) {
        uint64_t bits = g->ran[wd] | w->xdirty_sm[0][wd] | w->xdirty_sm[1][wd];
        w->xdirty_sm[0][wd] = w->xdirty_sm[1][wd] = 0;
        for (; bits; bits &= bits - 1)
            exchange_sm(w, wd * 64 + (uint32_t)__builtin_ctzll(bits));
    }
    for (uint32_t k = 0; k < w->nchan_task; k++)
        for (uint32_t i = w->chan_task[k] * g->n_sub; i < (w->chan_task[k] + 1) * g->n_sub; i++)
            exchange_sub(w, i);
    for (uint32_t wd = 0; wd < (g->n_sub_total + 63) / 64; wd++) {
        uint64_t bits = w->xdirty_sub[0][wd] | w->xdirty_sub[1][wd];
        w->xdirty_sub[0][wd] = w->xdirty_sub[1][wd] = 0;
        for (; bits; bits &= bits - 1)
            exchange_sub(w, wd * 64 + (uint32_t)__builtin_ctzll(bits));
    }
}

/* Serial, between windows: each side now sees the other's indices, and the units' reports. */
static void exchange(sim *g)
{
    sim_window *w = &g->w;
    exchange_links(g);
    count_icnt(g);
    g->moved += w->xb_moved[0][0] + w->xb_moved[1][0];
    w->xb_moved[0][0] = w->xb_moved[1][0] = 0;
    books_add(w, w->ndram, w->last_l2);
    for (uint32_t k = 0; k < w->nchan_task; k++) {
        uint32_t c = w->chan_task[k];
        sim_wchan *h = &w->ch[c];
        g->moved += h->moved;
        h->moved = 0;
        sim_bit_put(w->awake, c, !h->quiet);
        h->qdram = w->dram_edges; /* from now on, if quiet, the books count its edges */
        h->ql2 = w->l2_wins;
    }
    for (uint32_t wd = 0; wd < g->smf_words; wd++) {
        g->moved += sim_smf_take(g, SMF_PROG, wd) != 0;
        uint64_t act = sim_smf_take(g, SMF_ACT, wd);
        if (wd < (g->n_sm + 63) / 64)
            g->maybe_active[wd] = (g->maybe_active[wd] & ~g->ran[wd]) | act;
    }
}

/* After the window that ended with core cycle end - 1: what the exact loop does after each
 * core cycle, at that cycle. 0, -1 (error) or 1 (a stop knob). */
static int between(sim *g, uint64_t end, base_err *e, FILE *diag)
{
    double t0 = g->w.prof ? base_now_s() : 0;
    exchange(g);
    double t1 = g->w.prof ? base_now_s() : 0;
    g->cycle = end - 1;
    g->sm_upto = end;
    sim_retire(g);
    int rc = sim_kernels_advance(g, e) || sim_issue_ctas(g, e) ? -1 : 0;
    if (g->w.prof) {
        g->w.p_exchange += t1 - t0;
        g->w.p_ctas += base_now_s() - t1;
    }
    g->cycle = end;
    if (rc || sim_watchdog(g, e, diag))
        return -1;
    if (sim_stop_now(g)) {
        g->res->stopped = 1;
        return 1;
    }
    if (g->progress && (end / g->w.len) % 64 == 0)
        sim_progress(g, 0);
    return 0;
}

/* ---- quiet windows (fast_forward) ------------------------------------------------------ */

/* Between windows: the first core cycle any unit may act without new input (g->cycle: now,
 * UINT64_MAX: never). A parked SM acts at its park's end, a link's consumer at its oldest
 * entry's time, a sleeping channel at its wake; a crossbar holding a packet, an SM that is not
 * parked or a channel that is awake acts now. The kernels are skip_limit's. */
static uint64_t win_wake(const sim *g)
{
    const sim_window *w = &g->w;
    uint64_t now = g->cycle, t = UINT64_MAX;
    if (icnt_busy(g->net))
        return now;
    for (uint32_t wd = 0; wd < (g->n_sm + 63) / 64; wd++)
        for (uint64_t bits = g->maybe_active[wd]; bits; bits &= bits - 1) {
            uint32_t s = wd * 64 + (uint32_t)__builtin_ctzll(bits);
            if (!g->park_at[s]) /* not parked: busy, or given a CTA its task launches */
                return now;
            t = sim_min_u64(t, g->park_at[s]);
        }
    /* the links that hold entries (every index settled, so the bits say exactly which) */
    for (uint32_t wd = 0; wd < (g->n_sm + 63) / 64; wd++) {
        for (uint64_t b = w->out_bits[wd]; b; b &= b - 1) {
            uint32_t s = wd * 64 + (uint32_t)__builtin_ctzll(b);
            t = sim_min_u64(t, *sm_at(g, s, LK_OUT, w->xs[s].out_head));
        }
        for (uint64_t b = w->in_bits[wd]; b; b &= b - 1) {
            uint32_t s = wd * 64 + (uint32_t)__builtin_ctzll(b);
            t = sim_min_u64(t, *sm_at(g, s, LK_IN, w->sm[s].in_head));
        }
    }
    for (uint32_t wd = 0; wd < (g->n_sub_total + 63) / 64; wd++) {
        for (uint64_t b = w->req_bits[wd]; b; b &= b - 1) {
            uint32_t i = wd * 64 + (uint32_t)__builtin_ctzll(b);
            t = sim_min_u64(t, *sub_at(g, i, LK_REQ, w->cp[i].req_head));
        }
        for (uint64_t b = w->rep_bits[wd]; b; b &= b - 1) {
            uint32_t i = wd * 64 + (uint32_t)__builtin_ctzll(b);
            t = sim_min_u64(t, *sub_at(g, i, LK_REP, w->xp[i].rep_head));
        }
    }
    for (uint32_t wd = 0; wd < (g->n_chan + 63) / 64 && t > now; wd++)
        for (uint64_t b = w->awake[wd]; b && t > now; b &= b - 1) {
            uint32_t c = wd * 64 + (uint32_t)__builtin_ctzll(b);
            const sim_wchan *h = &w->ch[c];
            if (h->busy || !h->wake || mem_part_replies(g->part[c]))
                return now;
            t = sim_min_u64(t, h->wake);
        }
    return t;
}

/* The last core cycle a skipped window may end with (g->cycle: none): before any unit may act
 * (wake) and before a kernel event (a CTA issues between windows at the cycle before a
 * window's end, so a launch latency ending at cycle x lets windows end up to x - 1), and
 * before the watchdog or max_cycles would stop the run. Only with no SM waiting to launch a
 * CTA (win_wake is now then): sm_cta_fits may not ask such an SM. */
static uint64_t skip_limit(const sim *g, uint64_t wake)
{
    uint64_t lim = wake, k = sim_kernels_wake(g);
    if (k <= g->cycle)
        return g->cycle;
    if (k != UINT64_MAX)
        lim = sim_min_u64(lim, k - 1);
    if (g->k.watchdog_cycles && !sim_kernels_launching(g))
        lim = sim_min_u64(lim, g->last_progress_cycle + (uint64_t)g->k.watchdog_cycles - 1);
    if (g->k.max_cycles)
        lim = sim_min_u64(lim, (uint64_t)g->k.max_cycles - 1);
    return lim;
}

/* The skipped edges handed to the channels as their windows would: the quiet ones' to the
 * books (collect_chans), a sleeping one's given now (its task would, chan_window). */
static void skip_channels(sim *g, uint64_t ndram, uint64_t l2_cycle)
{
    sim_window *w = &g->w;
    for (uint32_t wd = 0; wd < (g->n_chan + 63) / 64; wd++)
        for (uint64_t b = w->awake[wd]; b; b &= b - 1) {
            uint32_t c = wd * 64 + (uint32_t)__builtin_ctzll(b);
            sim_wchan *h = &w->ch[c];
            if (h->skip + ndram)
                mem_part_skip(g->part[c], h->skip + ndram);
            uint64_t now = l2_cycle ? l2_cycle : h->now; /* a dormant one's (collect_chans) */
            h->skip = h->now = 0;
            if (now)
                mem_part_set_now(g->part[c], now);
        }
    books_add(w, ndram, l2_cycle);
}

/* Between windows: jumps over the whole windows in which no unit would act, leaving the state
 * and statistics as running them would (tests/test_sim_ref.c compares the two): the
 * interconnect counts its idle cycles, the channels their edges, and a parked SM counts its
 * cycles when it wakes, as it does when its task skips them. */
static void skip_quiet(sim *g)
{
    uint64_t len = g->w.len, wake = win_wake(g);
    if (wake < g->cycle + len)
        return;
    uint64_t lim = skip_limit(g, wake);
    if (lim == UINT64_MAX || lim < g->cycle + len)
        return;
    uint64_t k = (lim - g->cycle) / len, end = g->cycle + k * len;
    /* the last skipped core edge, cycle end - 1, and every edge up to it */
    uint64_t n[CLK_N], l2_cycle = clocks_to(g, end, n);
    skip_channels(g, n[CLK_DRAM], l2_cycle);
    icnt_skip(g->net, n[CLK_ICNT]);
    g->ff_skipped += end - g->cycle;
    g->res->windows += k;
    g->cycle = g->sm_upto = end;
    if (sim_kernels_launching(g))
        g->last_progress_cycle = end;
    if (g->progress)
        sim_progress(g, 0);
}

/* team_profile: the tallies into the result (after the last window, every thread stopped). */
static void prof_keep(sim *g, double loop_s)
{
    sim_window *w = &g->w;
    if (!w->prof)
        return;
    uint32_t threads = (uint32_t)g->k.threads;
    sim_window_profile *p = base_calloc(1, sizeof *p);
    *p = (sim_window_profile){.threads = threads, .windows = g->res->windows,
                              .loop_s = loop_s, .region_s = w->p_region,
                              .exchange_s = w->p_exchange, .ctas_s = w->p_ctas,
                              .first_s = w->p_first};
    p->busy_s = base_calloc(threads, sizeof *p->busy_s);
    p->tasks = base_calloc(2 * (size_t)threads, sizeof *p->tasks);
    p->stolen = p->tasks + threads;
    for (uint32_t t = 0; t < threads; t++) {
        p->busy_s[t] = w->prof[t].busy;
        p->tasks[t] = w->prof[t].tasks;
        p->stolen[t] = w->prof[t].stolen;
        p->xbar_s += w->prof[t].xbar_s;
        p->chan_s += w->prof[t].chan_s;
        p->sm_s += w->prof[t].sm_s;
        p->xbar_last += w->prof[t].xlast;
        p->xbar_last_s += w->prof[t].xlast_s;
    }
    g->res->wprof = p;
}

/* Solo windows, as the exact mode's team has them (team.c, sim_adapt_window), with one
 * window for one core edge: a window's tasks run on the main thread alone while that is
 * faster. Where a window holds a few microseconds of work (a pointer chase: one SM, one
 * channel awake), handing it to the team and back cost more than the work: two threads ran
 * synth pchase at W = 1 7.4 times slower than one, and past 300 s where the host's two cores
 * had other work too; there even a busy run's window waits a scheduler slice for a helper
 * (vectoradd 1M, W = 16, two threads beside two busy loops: 14 s, against under 1 s on the
 * main thread alone). A busy run's window takes hundreds of microseconds, so a span of 256
 * of them made each try of the main thread alone a tenth of vectoradd 1M's run: a span
 * lasts about WIN_ADAPT_SPAN_S instead, the chosen way stays SIM_ADAPT_STAY_MAX spans from
 * the start, and a try that loses ends early (below). Which thread runs a task never
 * changes a result, so neither does this. */
#define WIN_ADAPT_SPAN_S 1e-3
#define WIN_ADAPT_SPAN_MIN 4u
#define WIN_ADAPT_GIVEUP 1.25
#define WIN_ADAPT_FIRST_TRY 4u /* spans before the first try: a kernel's first windows cost most */

static void adapt_window(sim *g)
{
    sim_adapt *a = &g->adapt;
    int w = sim_adapt_edge(a);
    if (!w && a->phase != 1)
        return;
    /* a try is looked at after every window, and from its second on ends once it runs
     * WIN_ADAPT_GIVEUP times slower than the span before it: on a host whose cores had other
     * work one window with the team took 0.75 ms where the main thread alone took 1 us,
     * and in a busy run each window alone cost half as much again and left the team's
     * caches cold (gather, W = 16: 10% lost to tries of whole spans) */
    double now = base_now_s(), took = now - a->t0;
    int behind = a->edges >= 2 && took > WIN_ADAPT_GIVEUP * a->before * a->edges;
    if (w != SIM_ADAPT_FULL && !(a->phase == 1 && (behind || sim_adapt_lost(a, now))))
        return;
    double per = took / a->edges, n = per > 0 ? WIN_ADAPT_SPAN_S / per : SIM_ADAPT_EDGES;
    sim_adapt_window(a, now);
    a->span = n >= SIM_ADAPT_EDGES      ? SIM_ADAPT_EDGES
              : n <= WIN_ADAPT_SPAN_MIN ? WIN_ADAPT_SPAN_MIN
                                        : (uint32_t)n;
}

int sim_run_windowed(sim *g, base_err *e, FILE *diag)
{
    double t0 = base_now_s();
    int adapt = g->k.threads > 1 && g->k.team_adapt;
    sim_adapt_init(&g->adapt, t0, (uint32_t)g->k.threads); /* the team first: solo 0 */
    g->adapt.span = WIN_ADAPT_SPAN_MIN; /* the first span, the run's start, is not timed */
    g->adapt.stay = SIM_ADAPT_STAY_MAX;
    g->adapt.left = WIN_ADAPT_FIRST_TRY;
    win_init(g);
    g->res->window_rop = g->k.l2_rop_latency;
    g->loop_began = 1;
    int rc = sim_kernels_advance(g, e);
    g->w.p_first = base_now_s() - t0;
    while (rc == 0 && !sim_all_done(g)) {
        /* cycle 0 alone (CTAs issue at its end), then windows ending with cycles kW */
        uint64_t w = g->w.len, end = g->cycle ? (g->cycle - 1) / w * w + w + 1 : 1;
        run_window(g, end);
        g->loop_edges++;
        g->res->windows++;
        rc = between(g, end, e, diag);
        if (rc == 0 && g->k.fast_forward && !sim_all_done(g))
            skip_quiet(g);
        if (adapt)
            adapt_window(g);
    }
    g->sm_upto = g->cycle;
    for (uint32_t s = 0; s < g->n_sm; s++) /* a stop knob ended the run after an issue */
        sm_cta_launch_pending(g->sm[s]);
    prof_keep(g, base_now_s() - t0);
    return rc < 0 ? -1 : 0;
}
