/* sim window: the windowed mode (sync_window = W > 0).
 *
 * The exact loop hands every core cycle to the threads and back, because a reply or a
 * request may cross between an SM and the interconnect in the very next cycle (the crossbar
 * adds no latency, docs/TIMING.md "Threads"). Here the model gets the latency that lets the
 * two sides run apart: between each SM and the interconnect sits a link of W core cycles
 * each way, a ring of stamped entries (sim_wlink). A request an SM sends in cycle c may enter
 * the crossbar from cycle c + W on; a reply the crossbar hands out in cycle c reaches its SM
 * from cycle c + W on. So within a window of W core cycles nothing one side does reaches the
 * other, and each SM runs its W cycles as one task while one more task runs the memory side
 * (interconnect, L2 slices, DRAM) through the same span, all at once on any threads.
 *
 * Each link has one producer and one consumer, and each reads the other's index only as it
 * stood at the window's start (the *_seen copies, set serially between windows): room and
 * content never depend on how far the other task has got, so results depend on W, never on
 * threads or the order tasks run in. A link holds 2W entries (rounded up to a power of two):
 * at full rate, one entry a cycle, the consumer drains the previous window's W while the
 * producer adds this window's, so credits seen a window late never throttle a flowing link.
 *
 * Between windows, serially: CTAs retire and issue (so a CTA starts up to W - 1 cycles later
 * than in the exact loop, and a kernel's end is seen at a window's end), kernels launch,
 * and the watchdog, the stop knobs and the progress line are looked at. Windows end at core
 * cycles that are multiples of W, where CTAs then issue, as the exact loop would at that
 * cycle. The global fast-forward does not run; a parked SM skips its cycles inside its task,
 * and an idle memory side costs a few instructions an edge. */
#include "sim_int.h"
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static mem_req *link_req(const sim *g, uint32_t s, int in, uint32_t i)
{
    return &g->w.req[((size_t)2 * s + (size_t)in) * g->w.cap + (i & (g->w.cap - 1))];
}
static uint64_t *link_at(const sim *g, uint32_t s, int in, uint32_t i)
{
    return &g->w.at[((size_t)2 * s + (size_t)in) * g->w.cap + (i & (g->w.cap - 1))];
}

static void win_init(sim *g)
{
    uint32_t w = (uint32_t)g->k.sync_window, cap = 1;
    while (cap < 2 * w)
        cap *= 2;
    g->w.len = w;
    g->w.cap = cap;
    g->w.req = base_calloc((size_t)2 * g->n_sm * cap, sizeof *g->w.req);
    g->w.at = base_calloc((size_t)2 * g->n_sm * cap, sizeof *g->w.at);
    g->w.sm = base_calloc_lines((size_t)g->n_sm * sizeof *g->w.sm);
    g->w.mem = base_calloc_lines((size_t)g->n_sm * sizeof *g->w.mem);
    g->w.out_bits = base_calloc((g->n_sm + 63) / 64, sizeof *g->w.out_bits);
    g->w.range = base_calloc_lines((size_t)g->k.threads * sizeof *g->w.range);
    g->windowed = 1;
}

void sim_window_free(sim *g)
{
    free(g->w.req);
    free(g->w.at);
    free(g->w.sm);
    free(g->w.mem);
    free(g->w.out_bits);
    free(g->w.range);
}

/* ---- the SMs' side --------------------------------------------------------------------- */

/* The first cycle SM s's inbound link has a reply for (UINT64_MAX: none this window). */
static uint64_t in_due(const sim *g, uint32_t s)
{
    const sim_wsm *ws = &g->w.sm[s];
    return ws->in_head == ws->in_tail_seen ? UINT64_MAX : *link_at(g, s, 1, ws->in_head);
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
            sm_inbound_push(u, link_req(g, s, 1, ws->in_head));
            ws->in_head++;
        } else if (!sm_active_inside(u) && mem_q_empty(out)) {
            if (due >= end)
                break;
            c = due - 1; /* nothing to do before the reply */
            continue;
        }
        prog |= sm_cycle(u, c);
        if (!mem_q_empty(out) && ws->out_tail - ws->out_head_seen < g->w.cap) {
            *link_req(g, s, 0, ws->out_tail) = *mem_q_front(out);
            *link_at(g, s, 0, ws->out_tail) = c + g->w.len;
            ws->out_tail++;
            (void)mem_q_pop(out);
        }
    }
    uint64_t park = sm_parked(u) ? sm_park_until(u) : 0;
    if (g->park_at[s] != park)
        g->park_at[s] = park;
    uint64_t *f = g->smf + (size_t)me * g->smf_stride + s / 64, bit = 1ull << (s % 64);
    if (prog)
        f[SMF_PROG * g->smf_words] |= bit;
    if (sm_active(u))
        f[SMF_ACT * g->smf_words] |= bit;
    if (sm_ctas_done(u))
        f[SMF_DONE * g->smf_words] |= bit;
}

/* ---- the memory side ------------------------------------------------------------------- */

/* Core edge: replies the crossbar holds for SMs go onto their links, one per SM, while the
 * link has room as seen at the window's start. */
static void replies_in(sim *g)
{
    if (!icnt_subnet_busy(g->net, ICNT_REP))
        return;
    for (uint32_t s = icnt_next_held(g->net, ICNT_REP, 0); s < g->n_sm;
         s = icnt_next_held(g->net, ICNT_REP, s + 1)) {
        sim_wmem *wm = &g->w.mem[s];
        if (!icnt_peek(g->net, ICNT_REP, s) || wm->in_tail - wm->in_head_seen >= g->w.cap)
            continue;
        mem_req *r = link_req(g, s, 1, wm->in_tail);
        *r = icnt_pop(g->net, ICNT_REP, s);
        r->loc = MEM_AT_SM_REPLY;
        *link_at(g, s, 1, wm->in_tail) = g->cycle + g->w.len;
        wm->in_tail++;
        g->moved++;
    }
}

/* Core edge: each SM's oldest request whose link time is over enters the crossbar if it has
 * room, SMs in index order (as phase C sends them). */
static void requests_out(sim *g)
{
    for (uint32_t wd = 0; wd < (g->n_sm + 63) / 64; wd++)
        for (uint64_t bits = g->w.out_bits[wd]; bits; bits &= bits - 1) {
            uint32_t s = wd * 64 + (uint32_t)__builtin_ctzll(bits);
            sim_wmem *wm = &g->w.mem[s];
            if (*link_at(g, s, 0, wm->out_head) > g->cycle)
                continue;
            mem_req x = *link_req(g, s, 0, wm->out_head);
            unsigned bytes = mem_req_bytes(&x, 0);
            if (!icnt_can_push(g->net, ICNT_REQ, s, bytes))
                continue;
            x.loc = MEM_AT_ICNT_REQ;
            icnt_push(g->net, ICNT_REQ, s, x.part, &x, bytes);
            g->moved++;
            if (++wm->out_head == wm->out_tail_seen)
                g->w.out_bits[wd] &= ~(bits & -bits);
        }
}

/* Phase B of the exact loop less the SMs, on this thread: the channels, then the crossbar. */
static void mem_phase_b(sim *g, unsigned m, uint32_t me)
{
    if (m == 1u << CLK_DRAM && g->k.dram_defer) {
        sim_chans_defer(g);
        return;
    }
    uint32_t nch = (m & (1u << CLK_DRAM | 1u << CLK_L2)) || g->ch.pend ? sim_chans_plan(g, m) : 0;
    for (uint32_t i = 0; i < nch; i++)
        sim_chans_task(g, i, m, me);
    sim_chans_after(g, nch);
    if (m & 1u << CLK_ICNT) {
        uint32_t n = icnt_cycle_begin(g->net);
        for (uint32_t i = 0; i < n; i++)
            icnt_subnet_cycle(g->net, i);
        icnt_cycle_end(g->net);
    }
}

/* Every memory edge up to, not including, the core edge of cycle `end`. */
static void mem_window(sim *g, uint64_t end, uint32_t me)
{
    for (;;) {
        if (g->cycle == end) {
            int core_next = 1;
            for (int i = 1; i < CLK_N; i++)
                core_next &= g->next[CLK_CORE] <= g->next[i];
            if (core_next)
                return;
        }
        unsigned m = sim_next_edges(g);
        if (m & 1u << CLK_CORE)
            replies_in(g);
        if (m & 1u << CLK_ICNT)
            sim_chans_replies_out(g);
        if (m & 1u << CLK_L2)
            sim_icnt_to_parts(g);
        mem_phase_b(g, m, me);
        if (m & 1u << CLK_CORE) {
            requests_out(g);
            g->cycle++;
        }
    }
}

/* ---- windows --------------------------------------------------------------------------- */

typedef struct win_ctx {
    uint64_t from, end;
    uint32_t ahead; /* 1: the last thread fills the CTA read-ahead rings first */
} win_ctx;

/* The SMs with something to do in [from, end): work as their last task left it, a CTA
 * given since, or a reply on the link; a parked one only if it wakes before `end`. */
static void collect(sim *g, uint64_t end)
{
    uint32_t n = 0;
    for (uint32_t wd = 0; wd < (g->n_sm + 63) / 64; wd++) {
        uint64_t ran = 0;
        for (uint32_t s = wd * 64; s < g->n_sm && s < wd * 64 + 64; s++) {
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
/* The SM tasks' split: thread 0 runs the memory task first, so it gets fewer SMs, as many
 * as leave every thread the same time by the running means; the others equal blocks. A
 * unit then stays on one core window after window, and the steals even out the rest. */
static void split(sim *g, uint32_t threads)
{
    sim_window *w = &g->w;
    uint32_t n = g->nactive;
    double each = w->sm_s > 0 ? w->sm_s : 1e-9;
    double share = (w->mem_s + each * n) / threads;
    double q = (share - w->mem_s) / each;
    uint32_t q0 = q <= 0 ? 0 : q >= n ? n : (uint32_t)(q + 0.5);
    uint32_t first = 0;
    for (uint32_t t = 0; t < threads; t++) {
        uint32_t last = t == 0 ? q0 : q0 + (uint32_t)((uint64_t)(n - q0) * t / (threads - 1));
        atomic_store_explicit(&w->range[t].next, first, memory_order_relaxed);
        w->range[t].end = last;
        w->range[t].sm_s = 0;
        w->range[t].sm_n = 0;
        first = last;
    }
}

/* SM tasks from thread v's range while it has any. */
static void take(sim *g, const win_ctx *x, sim_wrange *mine, sim_wrange *v, uint32_t me)
{
    for (;;) {
        uint32_t i = atomic_fetch_add_explicit(&v->next, 1, memory_order_relaxed);
        if (i >= v->end)
            return;
        double t0 = base_now_s();
        sm_window(g, g->active[i], x->from, x->end, me);
        mine->sm_s += base_now_s() - t0;
        mine->sm_n++;
    }
}

static void run_team(sim *g, const win_ctx *x, uint32_t threads)
{
    sim_window *w = &g->w;
    double mem_s = 0;
    split(g, threads);
    sim_omp_fork(g);
#pragma omp parallel num_threads((int)threads)
    {
        sim_omp_enter(g);
        uint32_t me = (uint32_t)omp_get_thread_num();
        if (me == 0) {
            double t0 = base_now_s();
            mem_window(g, x->end, me);
            mem_s = base_now_s() - t0;
        }
        if (me == threads - 1 && x->ahead)
            sim_ahead_task(g);
        for (uint32_t k = 0; k < threads; k++)
            take(g, x, &w->range[me], &w->range[(me + k) % threads], me);
        sim_omp_leave(g);
    }
    sim_omp_join(g);
    double sm_s = 0;
    uint32_t sm_n = 0;
    for (uint32_t t = 0; t < threads; t++) {
        sm_s += w->range[t].sm_s;
        sm_n += w->range[t].sm_n;
    }
    /* host timing only: it moves SMs between threads, never a result */
    w->mem_s = 0.75 * w->mem_s + 0.25 * mem_s;
    if (sm_n)
        w->sm_s = 0.75 * w->sm_s + 0.25 * sm_s / sm_n;
}
#endif

static void run_window(sim *g, uint64_t end)
{
    win_ctx x = {g->cycle, end, 0};
    collect(g, end);
#ifdef _OPENMP
    uint32_t threads = (uint32_t)g->k.threads;
    if (threads > 1 && g->nactive > 1) {
        x.ahead = sim_ahead_wanted(g);
        run_team(g, &x, threads);
        return;
    }
#endif
    mem_window(g, end, 0);
    for (uint32_t i = 0; i < g->nactive; i++)
        sm_window(g, g->active[i], x.from, end, 0);
}

/* Serial, between windows: each side now sees the other's indices, and the SMs' reports. */
static void exchange(sim *g)
{
    for (uint32_t s = 0; s < g->n_sm; s++) {
        sim_wsm *ws = &g->w.sm[s];
        sim_wmem *wm = &g->w.mem[s];
        ws->out_head_seen = wm->out_head;
        ws->in_tail_seen = wm->in_tail;
        wm->in_head_seen = ws->in_head;
        wm->out_tail_seen = ws->out_tail;
        if (wm->out_head != wm->out_tail_seen)
            g->w.out_bits[s / 64] |= 1ull << (s % 64);
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
static int between(sim *g, base_err *e, FILE *diag)
{
    exchange(g);
    g->cycle--;
    g->sm_upto = g->cycle + 1;
    sim_retire(g);
    int rc = sim_kernels_advance(g, e) || sim_issue_ctas(g, e) ? -1 : 0;
    g->cycle++;
    if (rc || sim_watchdog(g, e, diag))
        return -1;
    if (sim_stop_now(g)) {
        g->res->stopped = 1;
        return 1;
    }
    if (g->progress && (g->cycle / g->w.len) % 64 == 0)
        sim_progress(g, 0);
    return 0;
}

int sim_run_windowed(sim *g, base_err *e, FILE *diag)
{
    win_init(g);
    g->loop_began = 1;
    int rc = sim_kernels_advance(g, e);
    while (rc == 0 && !sim_all_done(g)) {
        /* cycle 0 alone (CTAs issue at its end), then windows ending with cycles kW */
        uint64_t w = g->w.len, end = g->cycle ? (g->cycle - 1) / w * w + w + 1 : 1;
        run_window(g, end);
        g->loop_edges++;
        rc = between(g, e, diag);
    }
    g->sm_upto = g->cycle;
    return rc < 0 ? -1 : 0;
}
