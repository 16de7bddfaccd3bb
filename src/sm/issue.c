/* sm issue: fetch into the instruction buffers, scoreboard, warp scheduling, operand
 * collection and execution-unit timing, register writeback events. */
#include "sm_int.h"
#include <string.h>

#define IBUFFER 2u /* instructions a fetch puts in a warp's buffer (GPGPU-Sim's ibuffer) */

/* ---- writeback events: a binary min-heap on (t, warp, sidx) --------------------------- */

static int ev_less(const sm_event *a, const sm_event *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->warp != b->warp)
        return a->warp < b->warp;
    return a->sidx < b->sidx;
}

void sm_event_push(sm *s, uint64_t t, uint32_t warp, uint32_t sidx)
{
    if (s->nev == s->evcap)
        base_grow(&s->ev, &s->evcap, s->nev + 1, sizeof *s->ev); /* rare: SM-private */
    uint32_t i = s->nev++;
    sm_event e = {t, warp, sidx};
    while (i && ev_less(&e, &s->ev[(i - 1) / 2])) {
        s->ev[i] = s->ev[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->ev[i] = e;
}

static sm_event ev_pop(sm *s)
{
    sm_event top = s->ev[0], last = s->ev[--s->nev];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= s->nev)
            break;
        if (c + 1 < s->nev && ev_less(&s->ev[c + 1], &s->ev[c]))
            c++;
        if (!ev_less(&s->ev[c], &last))
            break;
        s->ev[i] = s->ev[c];
        i = c;
    }
    if (s->nev)
        s->ev[i] = last;
    return top;
}

static inline void sb_set(uint64_t *sb, unsigned r) { sb[r >> 6] |= 1ull << (r & 63); }
static inline void sb_clr(uint64_t *sb, unsigned r) { sb[r >> 6] &= ~(1ull << (r & 63)); }
static inline int sb_has(const uint64_t *sb, unsigned r) { return (sb[r >> 6] >> (r & 63)) & 1; }

/* An instruction wrote back: release its destinations and retire it from the warp. */
void sm_events_run(sm *s, uint64_t now)
{
    while (s->nev && s->ev[0].t <= now) {
        sm_event e = ev_pop(s);
        sm_warp *x = &s->w[e.warp];
        const sm_inst *d = &sm_warp_kernel(s, e.warp)->insts[e.sidx];
        for (unsigned i = 0; i < d->ndst; i++)
            sb_clr(x->sb, d->dst[i]);
        if ((d->op == SM_OP_LOAD || d->op == SM_OP_ATOMIC) && --x->loads == 0)
            sm_warp_mem_view(s, e.warp);
        x->inflight--;
        sm_warp_touch(s, e.warp);
        s->progress = 1;
        sm_warp_check_done(s, e.warp);
    }
}

/* ---- fetch --------------------------------------------------------------------------- */

/* Cycle the fetched instructions can issue. With a modelled L1I, the line of the warp's next
 * PC (per kernel: PCs of different kernels are told apart by the kernel uid in the high bits)
 * is looked up; a miss delays this warp by icache_miss_latency and installs the line, so the
 * instruction path below L1 is a fixed latency rather than interconnect traffic. */
static uint64_t fetch_ready(sm *s, uint32_t w, uint64_t now)
{
    if (!s->l1i)
        return now + 1;
    const sm_kernel *kk = sm_warp_kernel(s, w);
    const trace_dinst *di = sm_warp_dinst(s, w, s->w[w].pos);
    uint64_t pc = kk->pcs[di->sidx];
    uint64_t addr = ((uint64_t)kk->uid << 48) | (pc & ((1ull << 48) - 1));
    SMST(s, icache_accesses)++;
    if (cache_probe(s->l1i, addr & ~(uint64_t)(MEM_SECTOR - 1)))
        return now + 1;
    SMST(s, icache_misses)++;
    cache_prefill(s->l1i, cache_line_addr(s->l1i, addr), 0xF, now);
    return now + 1 + (uint64_t)s->k->icache_miss_latency;
}

static void fetch_one(sm *s, uint32_t w, uint64_t now)
{
    sm_warp *x = &s->w[w];
    s->changed = 1;
    uint32_t left = x->end - x->pos;
    x->ib_n = (uint8_t)(left < IBUFFER ? left : IBUFFER);
    x->ib_t = fetch_ready(s, w, now);
    sm_warp_changed(s, w);
    s->fetch_next = (w + 1) % s->nwarps_max;
}

/* Up to inst_fetch_throughput warps per cycle, round-robin over warp slots, refill an empty
 * buffer; the instructions are issuable from the next cycle (GPGPU-Sim fetches and decodes
 * after issuing within a cycle), later after an L1I miss. Only the slots of the fetchable
 * bitmap are visited, in the order a scan of every slot from fetch_next would take. */
void sm_fetch_cycle(sm *s, uint64_t now)
{
    uint32_t n = s->nwarps_max, fetched = 0, limit = (uint32_t)s->k->inst_fetch_throughput;
    uint32_t first = s->fetch_next;
    if (!s->fetchable)
        return;
    for (uint32_t w = base_next_bit(s->fetchable, first, n); w < n && fetched < limit;
         w = base_next_bit(s->fetchable, w + 1, n), fetched++)
        fetch_one(s, w, now);
    for (uint32_t w = base_next_bit(s->fetchable, 0, first); w < first && fetched < limit;
         w = base_next_bit(s->fetchable, w + 1, first), fetched++)
        fetch_one(s, w, now);
}

/* ---- issue --------------------------------------------------------------------------- */

/* Operand collection: each source register is read from its bank one cycle at a time; a
 * bank busy with another read delays it. Returns the cycle all operands are collected. */
static uint64_t collect(sm *s, sm_subcore *c, uint32_t w, const sm_inst *d, uint64_t now)
{
    uint64_t start = now + (uint64_t)s->k->pipe_oc_cycles, done = start;
    uint32_t wid = s->k->reg_bank_use_warp_id ? w : 0;
    for (unsigned i = 0; i < d->nsrc; i++) {
        uint32_t b = (d->src[i] + wid) % c->nbanks;
        uint64_t t = c->bank_free[b] > start ? c->bank_free[b] : start;
        c->bank_free[b] = t + 1;
        if (t > start)
            SMST(s, bank_conflict_cycles) += t - start;
        if (t + 1 > done)
            done = t + 1;
    }
    return done;
}

static sm_unitq *pick_unit(sm_subcore *c, int u)
{
    sm_unitq *best = &c->unit[u][0];
    for (uint32_t i = 1; i < c->nunit[u]; i++)
        if (c->unit[u][i].free < best->free)
            best = &c->unit[u][i];
    return best;
}

static int unit_of(const sm_subcore *c, const sm_inst *d)
{
    int u = d->fallback ? SM_U_INT : d->unit;
    if (u != SM_U_MEM && c->nunit[u] == 0)
        u = c->nunit[SM_U_INT] ? SM_U_INT : SM_U_SP;
    return u;
}

static int hazard(const sm_warp *x, const sm_inst *d)
{
    for (unsigned i = 0; i < d->nsrc; i++)
        if (sb_has(x->sb, d->src[i]))
            return 1;
    for (unsigned i = 0; i < d->ndst; i++)
        if (sb_has(x->sb, d->dst[i]))
            return 1;
    return 0;
}

static void barrier_arrive(sm *s, uint32_t w)
{
    sm_warp *x = &s->w[w];
    sm_cta *c = &s->cta[x->cta];
    sm_warp_set_state(s, w, SM_W_BARRIER);
    if (++c->at_barrier < c->live)
        return;
    for (uint32_t i = 0; i < s->nwarps_max; i++)
        if (s->w[i].state == SM_W_BARRIER && s->w[i].cta == x->cta)
            sm_warp_set_state(s, i, SM_W_ACTIVE);
    c->at_barrier = 0;
}

static void execute(sm *s, sm_subcore *c, uint32_t w, const sm_inst *d, uint32_t sidx,
                    uint64_t now)
{
    sm_warp *x = &s->w[w];
    int u = unit_of(c, d);
    uint64_t ready = collect(s, c, w, d, now);
    if (u == SM_U_MEM) {
        x->inflight++;
        if ((d->op == SM_OP_LOAD || d->op == SM_OP_ATOMIC) && x->loads++ == 0)
            sm_warp_mem_view(s, w);
        for (unsigned i = 0; i < d->ndst; i++)
            sb_set(x->sb, d->dst[i]);
        sm_ldst_push(s, w, x->pos, ready);
        return;
    }
    sm_unitq *q = pick_unit(c, u);
    uint64_t start = ready > q->free ? ready : q->free;
    q->free = start + d->init;
    for (unsigned i = 0; i < d->ndst; i++)
        sb_set(x->sb, d->dst[i]);
    x->inflight++;
    sm_event_push(s, start + d->lat + (uint64_t)s->k->pipe_wb_cycles, w, sidx);
}

static const sm_inst *next_inst(const sm *s, uint32_t w, uint32_t *sidx)
{
    const trace_dinst *di = sm_warp_dinst(s, w, s->w[w].pos);
    *sidx = di->sidx;
    return &sm_warp_kernel(s, w)->insts[di->sidx];
}

static uint8_t warp_code(const sm *s, const sm_subcore *c, uint32_t w)
{
    const sm_warp *x = &s->w[w];
    uint32_t sidx;
    const sm_inst *d = next_inst(s, w, &sidx);
    if (d->op == SM_OP_MEMBAR && x->stores)
        return SM_CODE_MEMBAR;
    if (hazard(x, d))
        return SM_CODE_SB;
    return (uint8_t)(SM_CODE_UNIT + unit_of(c, d));
}

/* Why warp w (ACTIVE or BARRIER) cannot issue now (SM_ST_ISSUED if it can). A unit accepts
 * a new instruction while its backlog (cycles until it can start one more) stays within the
 * operand-collector stage: instructions queue in the collector, not in the scheduler. Lowers
 * *until to the cycle a time-bound reason ends; sets *mem when the LD/ST queue decided. */
static int check_warp(sm *s, sm_subcore *c, uint32_t w, uint64_t now, uint64_t *until, int *mem)
{
    sm_warp *x = &s->w[w];
    if (x->state == SM_W_BARRIER)
        return SM_ST_BARRIER;
    if (!x->ib_n)
        return SM_ST_IBUFFER;
    if (x->ib_t > now) {
        *until = x->ib_t < *until ? x->ib_t : *until;
        return SM_ST_IBUFFER;
    }
    if (x->code == SM_CODE_NONE)
        x->code = warp_code(s, c, w);
    if (x->code == SM_CODE_MEMBAR) {
        x->membar = 1;
        return SM_ST_MEMBAR;
    }
    if (x->code == SM_CODE_SB)
        return SM_ST_SCOREBOARD;
    int u = x->code - SM_CODE_UNIT;
    if (u == SM_U_MEM) {
        if (sm_ldst_can_take(s))
            return SM_ST_ISSUED;
        *mem = 1;
        return SM_ST_MEM;
    }
    uint64_t free = pick_unit(c, u)->free, oc = (uint64_t)s->k->pipe_oc_cycles + 1;
    if (free <= now + oc)
        return SM_ST_ISSUED;
    *until = free - oc < *until ? free - oc : *until;
    return SM_ST_PIPE;
}

static void issue_one(sm *s, sm_subcore *c, uint32_t w, uint64_t now)
{
    sm_warp *x = &s->w[w];
    uint32_t sidx;
    const sm_inst *d = next_inst(s, w, &sidx);
    unsigned lanes = base_popcount32(sm_warp_dinst(s, w, x->pos)->mask);
    SMST(s, warp_insts)++;
    SMST(s, thread_insts) += lanes;
    SMST(s, spec_fallback) += d->fallback;
    x->membar = 0;
    execute(s, c, w, d, sidx, now);
    x->pos++;
    x->ib_n--;
    sm_warp_changed(s, w);
    /* EXIT needs no special case: a warp ends when its trace does (an EXIT predicated off
     * for every lane, as traces contain, must not end it) */
    if (d->op == SM_OP_BAR) {
        barrier_arrive(s, w);
    }
    if (c->st.last != w) {
        c->st.last = w;
        c->order_ok = 0;
    }
    s->progress = 1;
    if (x->state == SM_W_ACTIVE && x->pos >= x->end)
        sm_warp_set_state(s, w, SM_W_EXITED);
    sm_warp_check_done(s, w);
}

/* The candidates (ACTIVE or BARRIER warps, ascending) and the view fields the policy reads. */
static void cand_rebuild(sm *s, sm_subcore *c)
{
    uint32_t n = 0;
    unsigned reads = s->sched_ops->reads;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        uint32_t w = c->warps[i];
        if (sm_warp_schedulable(s->w[w].state)) {
            c->cand[n] = w;
            if (reads) {
                c->views[n].age = s->w[w].age;
                c->views[n].waiting_mem = s->w[w].loads != 0;
            }
            n++;
        }
    }
    c->norder = n;
    c->cand_ok = 1;
    c->keep_ok = 0;
}

/* The candidates in the policy's order. */
static void order_rebuild(sm *s, sm_subcore *c)
{
    if (!c->cand_ok)
        cand_rebuild(s, c);
    if (c->norder) {
        s->sched_ops->order(&c->st, c->cand, c->views, c->norder,
                            (uint32_t)s->k->two_level_active, c->keep, !c->keep_ok, c->order);
        c->keep_ok = 1;
    }
    c->order_ok = 1;
}

/* The first warp in order that can issue does; otherwise the cycle's stall reason is the
 * first one in order other than an empty instruction buffer. */
/* The scan of a sub-core's warps in policy order: the first ready warp issues; otherwise the
 * cycle's stall reason and how long it holds are remembered (memo_*). */
static void schedule_scan(sm *s, sm_subcore *c, uint64_t now)
{
    stat_block *st = &s->st;
    int why = SM_ST_IDLE, mem = 0;
    uint64_t until = UINT64_MAX;
    for (uint32_t i = 0; i < c->norder; i++) {
        uint32_t w = c->order[i];
        int r = check_warp(s, c, w, now, &until, &mem);
        if (r == SM_ST_ISSUED) {
            issue_one(s, c, w, now);
            st->v[SMS_STALL + SM_ST_ISSUED]++;
            return;
        }
        if (why == SM_ST_IDLE || (why == SM_ST_IBUFFER && r != SM_ST_IDLE))
            why = r;
    }
    st->v[SMS_STALL + why]++;
    c->memo_ok = 1;
    c->memo_why = (uint8_t)why;
    c->memo_mem = (uint8_t)mem;
    c->memo_until = until;
}

/* Most cycles of a busy SM repeat the last scan's stall (memo_*): that test stays inline, in
 * front of the call to the scan. */
static inline void schedule(sm *s, sm_subcore *c, uint64_t now)
{
    if (!c->order_ok) {
        order_rebuild(s, c);
        c->memo_ok = 0;
    }
    if (!c->norder) {
        if (s->nctas)
            s->st.v[SMS_STALL + SM_ST_IDLE]++;
        return;
    }
    if (c->memo_ok && now < c->memo_until && !(c->memo_mem && sm_ldst_can_take(s))) {
        s->st.v[SMS_STALL + c->memo_why]++;
        return;
    }
    schedule_scan(s, c, now);
}

void sm_issue_cycle(sm *s, uint64_t now)
{
    for (uint32_t i = 0; i < s->nsub; i++)
        schedule(s, &s->sub[i], now);
}

/* ---- fast-forward ------------------------------------------------------------------------ */

/* An ACTIVE warp's next cycle of its own: UINT64_MAX when only a reply or another warp can
 * move it (membar, a scoreboard hazard on a register a load or an event will release), `now`
 * when it may fetch or issue. */
static uint64_t warp_wake(const sm *s, uint32_t w, uint64_t now)
{
    const sm_warp *x = &s->w[w];
    if (!x->ib_n)
        return x->pos < x->end ? now : UINT64_MAX;
    if (x->ib_t > now)
        return x->ib_t;
    /* the cached check of the same instruction, or that check made now */
    uint8_t code = x->code != SM_CODE_NONE ? x->code : warp_code(s, &s->sub[x->sched], w);
    return code < SM_CODE_UNIT ? UINT64_MAX : now;
}

uint64_t sm_next_wake(const sm *s, uint64_t now)
{
    if (s->in.n || s->out.n || s->busy || s->lq_n)
        return now;
    uint64_t t = s->nev ? s->ev[0].t : UINT64_MAX;
    if (t <= now)
        return now;
    if (s->ndone)
        return now; /* a CTA retires this cycle */
    if (!s->running)
        return t;
    /* only ACTIVE warps have a cycle of their own */
    for (uint32_t w = base_next_bit(s->running, 0, s->nwarps_max); w < s->nwarps_max && t > now;
         w = base_next_bit(s->running, w + 1, s->nwarps_max)) {
        uint64_t x = warp_wake(s, w, now);
        if (x < t)
            t = x;
    }
    return t;
}
