/* sm ldst: the LD/ST unit — coalescing into 32-byte sectors, shared memory with bank
 * conflicts, the constant path, the L1D, the outbound request queue and replies.
 *
 * One memory instruction is in the unit at a time (GPGPU-Sim's ldst_unit). Global and local
 * accesses are split into the distinct sectors the active lanes touch, in address order, and
 * up to l1d_banks sectors are presented to the L1D (or sent around it) per cycle. A load's
 * registers are released when its last sector has arrived; a store leaves the unit when its
 * last sector was sent and the warp then counts acknowledgements. */
#include "sm_int.h"
#include <stdlib.h>
#include <string.h>


int sm_ldst_can_take(const sm *s) { return s->lq_n < s->lq_cap; }

void sm_ldst_push(sm *s, uint32_t warp, uint32_t dyn, uint64_t ready)
{
    sm_ldst_entry *e = &s->lq[(s->lq_head + s->lq_n++) % s->lq_cap];
    e->warp = warp;
    e->dyn = dyn;
    e->ready = ready;
    /* a CTA's address records are read once, at start, from memory that no cache holds any
     * more (a resident wave's records are tens of MB): fetched while the entry waits */
    const trace_cta *c = &s->cta[s->w[warp].cta].tc;
    uint32_t a = c->insts[dyn].addr;
    if (a != TRACE_NO_ADDR) {
        const uint64_t *r = c->addrs + (a & TRACE_A_INDEX);
        __builtin_prefetch(r);
        if (a >> TRACE_A_SHIFT == TRACE_A_LIST || a >> TRACE_A_SHIFT == TRACE_A_OFF32)
            __builtin_prefetch(r + 8);
    }
}

/* ---- pending table -------------------------------------------------------------------- */

static uint32_t pend_alloc(sm *s, uint32_t warp, uint32_t sidx)
{
    for (uint32_t i = 0; i < s->pend_cap; i++) {
        uint32_t j = (s->pend_free_hint + i) % s->pend_cap;
        if (!s->pend[j].used) {
            s->pend[j] = (sm_pend){warp, sidx, 0, 0, 1, 1};  /* used, open */
            s->pend_free_hint = (j + 1) % s->pend_cap;
            s->npend++;
            return j;
        }
    }
    return UINT32_MAX;
}

/* The instruction of slot p has every sector: write its registers back at the latest
 * completion among them (through the event heap, so the release happens at that cycle). */
static void pend_finish(sm *s, uint32_t p, uint64_t now)
{
    sm_pend *e = &s->pend[p];
    uint64_t t = e->ready > now + 1 ? e->ready : now + 1;
    sm_event_push(s, t, e->warp, e->sidx);
    e->used = 0;
    s->npend--;
}

static void pend_answer(sm *s, uint32_t p, uint64_t ready, uint64_t now)
{
    sm_pend *e = &s->pend[p];
    if (!e->used)
        base_panic("sm %u: reply for a free pending slot %u", s->id, p);
    if (ready > e->ready)
        e->ready = ready;
    if (--e->remaining == 0 && !e->open)
        pend_finish(s, p, now);
}

/* ---- request creation ------------------------------------------------------------------ */

static mem_req *send(sm *s, uint64_t addr, int op, uint32_t slot, int space, int flags,
                     uint64_t now)
{
    uint64_t a = addr & ~(uint64_t)(MEM_SECTOR - 1);
    uint32_t part = mem_map_sub_partition(s->ctx->map, a);
    mem_req *r = mem_q_push_slot(&s->out); /* written in place (mem_q_push_slot) */
    *r = (mem_req){.addr = a,
                   .t_start = now,
                   .part = part,
                   .sm = (uint16_t)s->id,
                   .slot = (uint16_t)slot,
                   .op = (uint8_t)op,
                   .flags = (uint8_t)flags,
                   .loc = MEM_AT_L1_MISSQ,
                   .space = (uint8_t)space};
    SMST(s, mem_requests)++;
    return r;
}

/* Lane addresses mostly ascend already, so insertion sort is close to one pass (qsort's
 * merge sort was a tenth of the run time on shared-memory-heavy kernels). */
static void sort_u64(uint64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        uint64_t x = v[i];
        unsigned j = i;
        while (j && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Lane i (of the active lanes, first the first of its group) has the address of the lane
 * before it or of the lane a half-warp before it: a broadcast, or both half-warps on one
 * row. Its sectors and words are already listed, and listing them again costs the sort. */
static int repeats(const uint64_t *addr, unsigned i, unsigned first)
{
    return i > first && (addr[i] == addr[i - 1] || (i >= first + 16 && addr[i] == addr[i - 16]));
}

/* The distinct sectors the active lanes touch, ascending. */
static void coalesce(sm *s, const trace_dinst *di, const uint64_t *addr, unsigned width)
{
    unsigned n = base_popcount32(di->mask), m = 0;
    /* repeated lanes are skipped only where the full list could not reach its cap, so any
     * cut stays where it was */
    int skip = n * ((width + 31) / 32 + 1) <= SM_MAX_SECTORS;
    for (unsigned i = 0; i < n; i++) {
        if (skip && repeats(addr, i, 0))
            continue;
        uint64_t a = addr[i] & ~(uint64_t)31, last = (addr[i] + width - 1) & ~(uint64_t)31;
        /* without a cut, the sector the list ends with need not be listed again (lanes of
         * one sector in a row: the usual case), which spares the sort most of its work */
        if (skip && m && s->sectors[m - 1] == a)
            a += 32;
        for (; a <= last && m < SM_MAX_SECTORS; a += 32)
            s->sectors[m++] = a;
    }
    sort_u64(s->sectors, m);
    unsigned u = 0;
    for (unsigned i = 0; i < m; i++)
        if (!u || s->sectors[u - 1] != s->sectors[i])
            s->sectors[u++] = s->sectors[i];
    s->nsect = u;
    s->next_sect = 0;
}

/* Whether all lanes' words together stay within the word list's cap. */
static int words_below_cap(const uint64_t *addr, unsigned n, unsigned width)
{
    unsigned all = 0;
    for (unsigned i = 0; i < n; i++)
        all += (unsigned)(((addr[i] + width - 1) >> 2) - (addr[i] >> 2) + 1);
    return all <= SM_MAX_SECTORS;
}

/* Shared memory: cycles the access needs = the largest number of distinct 4-byte words any
 * bank must deliver (equal words are broadcast), summed over the warp's parts. */
static unsigned smem_cycles(sm *s, const trace_dinst *di, const uint64_t *addr, unsigned width)
{
    unsigned nb = (unsigned)s->k->smem_banks, parts = (unsigned)s->k->smem_warp_parts;
    unsigned n = base_popcount32(di->mask), total = 0, ai = 0, lane = 0;
    unsigned per = (32 + parts - 1) / parts;
    uint64_t *words = s->sectors; /* scratch: the unit is not coalescing now */
    uint32_t cnt[128];
    int skip = -1; /* as in coalesce; decided at the first repeated lane */
    for (unsigned p = 0; p < parts; p++) {
        unsigned nw = 0, worst = 0, first = ai;
        for (; lane < (p + 1) * per && lane < 32; lane++) {
            if (!((di->mask >> lane) & 1u) || ai >= n)
                continue;
            int rep = repeats(addr, ai, first);
            if (rep && skip < 0)
                skip = words_below_cap(addr, n, width);
            if (!rep || !skip)
                for (uint64_t a = addr[ai] >> 2; a <= (addr[ai] + width - 1) >> 2 && nw < SM_MAX_SECTORS; a++)
                    words[nw++] = a;
            ai++;
        }
        sort_u64(words, nw);
        memset(cnt, 0, sizeof cnt);
        for (unsigned i = 0; i < nw; i++)
            if (i == 0 || words[i] != words[i - 1]) {
                unsigned c = ++cnt[words[i] % nb % 128];
                worst = c > worst ? c : worst;
            }
        total += worst;
    }
    return total ? total : 1;
}

/* ---- the unit ---------------------------------------------------------------------------- */

static int l1_path(const sm *s, const sm_inst *d, int space)
{
    if (!s->l1d || d->bypass_l1 || d->op == SM_OP_ATOMIC)
        return 0;
    return space == TRACE_SPACE_LOCAL || !s->k->gmem_skip_l1d;
}

/* Free slots of the outbound queue's modelled size (it may hold more: sm.out_cap). */
static uint32_t out_free(const sm *s) { return s->out.n < s->out_cap ? s->out_cap - s->out.n : 0; }

/* The sectors of a fill of the L1D: the fetch's reads, each carrying the MSHR entry hint. */
static void send_fetches(sm *s, uint64_t addr, const cache_result *res, int space, uint64_t now)
{
    uint64_t line = addr & ~(uint64_t)(MEM_LINE - 1);
    uint16_t hint = mem_hint16(res->hint);
    for (unsigned i = 0; i < 4; i++)
        if (res->fetch_mask >> i & 1)
            send(s, line + 32 * i, MEM_RD, SLOT_FILL, space, 0, now)->hint[0] = hint;
}

/* Presents one sector; 0 if the unit must stall (retry the same sector next cycle). */
static int do_sector(sm *s, const sm_inst *d, int space, uint64_t addr, uint64_t now)
{
    uint32_t p = s->cur_pend, w = s->cur.warp;
    int op = d->op == SM_OP_STORE ? MEM_WR : d->op == SM_OP_ATOMIC ? MEM_ATOM : MEM_RD;
    if (out_free(s) < 5) { /* room for 4 fetches and a writeback (sm.out_cap) */
        SMST(s, outq_full_cycles)++;
        s->refused_fail = CACHE_FAIL_NONE;
        return 0;
    }
    if (!l1_path(s, d, space)) {
        if (op == MEM_WR) {
            s->w[w].stores++;
            sm_warp_touch(s, w);
        } else
            s->pend[p].remaining++;
        send(s, addr, op, op == MEM_WR ? w : p, space, MEM_F_BYPASS_L1, now);
        return 1;
    }
    mem_req r = {0};
    r.addr = addr;
    r.t_start = now;
    r.sm = (uint16_t)s->id;
    r.slot = (uint16_t)(op == MEM_WR ? w : p);
    r.op = (uint8_t)op;
    r.space = (uint8_t)space;
    r.loc = MEM_AT_SM;
    cache_result res;
    cache_access(s->l1d, &r, now, &res);
    if (res.status == CACHE_RES_FAIL) {
        s->refused_fail = (uint8_t)res.fail;
        return 0;
    }
    if (res.wb_mask)
        for (unsigned i = 0; i < 4; i++)
            if (res.wb_mask >> i & 1)
                send(s, res.wb_addr + 32 * i, MEM_WR, SLOT_FILL, space, MEM_F_WRITEBACK | MEM_F_NO_REPLY, now);
    if (op == MEM_WR) {
        if (res.send_write) {
            s->w[w].stores++;
            sm_warp_touch(s, w);
            send(s, addr, MEM_WR, w, space, 0, now);
        }
        send_fetches(s, addr, &res, space, now); /* a write-allocating L1D's fetch */
        return 1;
    }
    if (res.status == CACHE_HIT) {
        uint64_t t = now + (uint64_t)s->k->l1d_latency;
        if (t > s->pend[p].ready)
            s->pend[p].ready = t;
    } else {
        s->pend[p].remaining++;
    }
    send_fetches(s, addr, &res, space, now);
    return 1;
}

/* The instruction leaves the unit: a load waits in the pending table for its sectors, every
 * other instruction writes back now. */
static void leave(sm *s, uint64_t done_at, uint64_t now)
{
    s->busy = 0;
    s->changed = 1;
    if (s->cur_pend != UINT32_MAX) {
        sm_pend *e = &s->pend[s->cur_pend];
        e->open = 0;
        if (e->remaining == 0)
            pend_finish(s, s->cur_pend, now);
        s->cur_pend = UINT32_MAX;
        return;
    }
    sm_event_push(s, done_at > now + 1 ? done_at : now + 1, s->cur.warp, s->cur_sidx);
}

static int resolve_space(const sm_kernel *kk, const sm_inst *d, const trace_dinst *di,
                         const uint64_t *addr)
{
    if (d->space != TRACE_SPACE_GENERIC)
        return d->space;
    if (!di->mask || !addr)
        return TRACE_SPACE_GLOBAL;
    return (int)trace_generic_space(kk->shmem_base, kk->local_base, addr[0]);
}

/* Starts the instruction at the head of the queue; 0 if it cannot start yet. */
static int start(sm *s, uint64_t now)
{
    sm_ldst_entry *e = &s->lq[s->lq_head];
    if (e->ready > now)
        return 0;
    const sm_kernel *kk = sm_warp_kernel(s, e->warp);
    const trace_dinst *di = sm_warp_dinst(s, e->warp, e->dyn);
    const sm_inst *d = &kk->insts[di->sidx];
    uint64_t buf[32];
    const uint64_t *addr = trace_cta_addrs(&s->cta[s->w[e->warp].cta].tc, di, buf);
    int space = resolve_space(kk, d, di, addr);
    unsigned lanes = base_popcount32(di->mask);
    int mem = d->op == SM_OP_LOAD || d->op == SM_OP_STORE || d->op == SM_OP_ATOMIC;
    if (mem && (space == TRACE_SPACE_GLOBAL || space == TRACE_SPACE_LOCAL) &&
        d->op != SM_OP_STORE) {
        s->cur_pend = pend_alloc(s, e->warp, di->sidx);
        if (s->cur_pend == UINT32_MAX)
            return 0;
    } else {
        s->cur_pend = UINT32_MAX;
    }
    s->cur = *e;
    s->cur_inst = *d;
    s->cur_sidx = di->sidx;
    s->lq_head = (s->lq_head + 1) % s->lq_cap;
    s->lq_n--;
    s->busy = 1;
    s->nsect = s->next_sect = 0;
    s->cur_space = space;
    if (!mem || !lanes || !addr) {
        s->busy_until = now;
        s->cur_done = now + 1;
    } else if (space == TRACE_SPACE_SHARED) {
        unsigned k = smem_cycles(s, di, addr, d->width);
        SMST(s, shmem_insn) += lanes;
        SMST(s, shmem_bank_conflict_cycles) += k - 1;
        s->busy_until = now + k - 1;
        s->cur_done = now + k - 1 + (uint64_t)s->k->smem_latency;
    } else if (space == TRACE_SPACE_CONST || space == TRACE_SPACE_NONE) {
        s->busy_until = now;
        s->cur_done = now + (uint64_t)s->k->l1c_latency;
    } else {
        if (d->op == SM_OP_LOAD)
            SMST(s, load_insn) += lanes;
        else if (d->op == SM_OP_STORE)
            SMST(s, store_insn) += lanes;
        else
            SMST(s, atomic_insn) += lanes;
        coalesce(s, di, addr, d->width);
        SMST(s, sectors_global) += s->nsect;
    }
    return 1;
}

void sm_ldst_cycle(sm *s, uint64_t now)
{
    if (!s->busy) {
        if (!s->lq_n || !start(s, now))
            return;
        s->progress = 1;
    }
    const sm_inst *d = &s->cur_inst;
    if (s->nsect == 0) { /* shared, constant, or nothing to access */
        if (now >= s->busy_until)
            leave(s, s->cur_done, now);
        return;
    }
    unsigned per = (unsigned)s->k->l1d_banks, done = 0;
    s->refused = 0;
    while (s->next_sect < s->nsect && done < per) {
        if (!do_sector(s, d, s->cur_space, s->sectors[s->next_sect], now)) {
            SMST(s, ldst_stall_cycles)++;
            s->refused = 1;
            break;
        }
        s->next_sect++;
        done++;
        s->progress = 1;
    }
    if (s->next_sect == s->nsect) {
        leave(s, now + 1, now);
        return;
    }
    /* next cycle's sectors: where their L1D lookups start is fetched meanwhile */
    if (l1_path(s, d, s->cur_space))
        for (unsigned k = s->next_sect; k < s->nsect && k < s->next_sect + per; k++)
            cache_prefetch_access(s->l1d, s->sectors[k]);
}

/* ---- replies ----------------------------------------------------------------------------- */

static void reply(sm *s, const mem_req *r, uint64_t now)
{
    SMST(s, mem_replies)++;
    if (r->op == MEM_WR) {
        sm_warp *x = &s->w[r->slot];
        x->stores--;
        sm_warp_touch(s, r->slot);
        sm_warp_check_done(s, r->slot);
        return;
    }
    SMST(s, mem_latency_sum) += now - r->t_start;
    SMST(s, mem_latency_n)++;
    if (r->slot != SLOT_FILL) {
        pend_answer(s, r->slot, now + 1, now);
        return;
    }
    uint64_t wb_addr = 0;
    uint8_t wb_mask = 0;
    uint64_t line = r->addr & ~(uint64_t)(MEM_LINE - 1);
    size_t n = cache_fill(s->l1d, line, (uint8_t)(1u << ((r->addr >> 5) & 3)), r->hint[0], now,
                          s->waiters, s->nwaiters, &wb_addr, &wb_mask);
    for (size_t i = 0; i < n; i++)
        pend_answer(s, s->waiters[i].slot, now + 1, now);
    for (unsigned i = 0; i < 4 && wb_mask; i++)
        if (wb_mask >> i & 1) /* room was checked by sm_reply_cycle */
            send(s, wb_addr + 32 * i, MEM_WR, SLOT_FILL, TRACE_SPACE_LOCAL,
                 MEM_F_WRITEBACK | MEM_F_NO_REPLY, now);
}

/* Whether reply r may send a writeback: a fill that allocates its line now (an L1D that
 * allocates on fill) may evict a dirty one. One that allocated on the miss cannot, nor can
 * an acknowledgement or a reply past the L1D. */
static int reply_may_write_back(const sm *s, const mem_req *r)
{
    return r->slot == SLOT_FILL && r->op != MEM_WR && s->l1d &&
           cache_fill_may_evict(s->l1d, r->addr & ~(uint64_t)(MEM_LINE - 1), r->hint[0]);
}

/* One reply per cycle from the inbound queue (the L1D has one fill port). A reply that may
 * send a writeback waits while the outbound queue lacks room for it; the others never wait
 * for the outbound queue (waiting there regardless deadlocked a GPU whose interconnect
 * buffers hold one packet: SMs whose requests could not leave stopped taking replies, so
 * the L2s' replies could not leave either, and the L2s stopped taking requests). */
void sm_reply_cycle(sm *s, uint64_t now)
{
    if (mem_q_empty(&s->in) ||
        (out_free(s) < 4 && reply_may_write_back(s, mem_q_front(&s->in))))
        return;
    mem_req r = mem_q_pop(&s->in);
    reply(s, &r, now);
    s->progress = 1;
}
