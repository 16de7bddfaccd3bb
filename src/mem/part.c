/* mem/part: a memory channel, after GPGPU-Sim's memory_partition_unit / memory_sub_partition
 * (l2cache.cc).
 *
 * L2 cycle of a sub-partition, in GPGPU-Sim's order (memory_sub_partition::cache_cycle):
 *   1. one request whose fill arrived -> reply queue (GPGPU-Sim: access_ready/next_access)
 *   2. head of DRAM->L2: a fill (cache_fill; its waiters become ready for step 1 of the next
 *      cycles) or a reply passing through (write ack from DRAM, reads without an L2)
 *   3. one L2 miss-queue entry -> L2->DRAM queue (GPGPU-Sim: the L2 cache's cycle())
 *   4. head of icnt->L2: one L2 access, only while L2->DRAM and the reply queue have room
 *   5. ROP head, once ready -> icnt->L2 queue
 * So a hit is in the reply queue rop_latency + 1 L2 cycles after its push, as in GPGPU-Sim.
 * DRAM cycle (memory_partition_unit::dram_cycle): one DRAM return -> its DRAM->L2 queue;
 * dram_cycle; one L2->DRAM head (round-robin over sub-partitions from the last one served,
 * GPGPU-Sim's credit rule) -> latency queue; one ready latency-queue head -> controller.
 *
 * Differences from GPGPU-Sim (reasons in place):
 * - The L2 miss queue lives here (the cache is passive) and holds sectors: the cache is told
 *   its room before each access (cache_set_missq_room) and refuses where GPGPU-Sim would, in
 *   GPGPU-Sim's units (one per fetch, forwarded write or line writeback). The sectors of one
 *   such unit move on to L2->DRAM together, one unit per L2 cycle as in GPGPU-Sim; the ring
 *   has MISSQ_SLACK spare entries because a unit may be up to 4 sectors.
 * - The L2 set index is computed on GPGPU-Sim's partition address (channel bits and the
 *   sub-partition bank bits squeezed out: addrdec.cc partition_address, l2_cache_config).
 * - ROP: GPGPU-Sim's ROP queue is unbounded (pushes are limited by the icnt->L2 check). Here
 *   it holds (rop_latency + 1) x ceil(L2 clock / core clock) + q_icnt_to_l2 entries: enough
 *   never to bind before that check at one push per L2 cycle, but bounded.
 * - Write-through / write-evict L2 (not used by any shipped config): a forwarded write is
 *   acknowledged when DRAM completes it (GPGPU-Sim sends no ack for it).
 * - Fetch-on-write: the write is acknowledged at once, the fetch fills without waiters.
 * - A fill that may evict (a line not reserved at its miss: allocate on fill) waits for room
 *   in the miss queue for its writeback; GPGPU-Sim's fill waits for the fill port alone.
 */
#include "part.h"

#include <stdlib.h>
#include <string.h>

/* Counters first, ratios after: a counter's slot is its index. */
enum {
#define STAT_COUNTER(n, h) PS_##n,
#define STAT_DIST(n, b, nb, h) PS_##n,
#define STAT_RATIO(n, a, b, h) PS_##n,
#include "mem/part_stats.def"
#undef STAT_COUNTER
#undef STAT_DIST
#undef STAT_RATIO
};

static const stat_desc part_set_descs[] = {
#define STAT_DEF_FILE "mem/part_stats.def"
#include "../stat/stat_descs.inc"
};
static stat_set part_set = {"mem", part_set_descs, (int)BASE_ARRAY_LEN(part_set_descs), NULL, NULL, NULL, 0};

/* Serial setup: the layout is computed on the first call, before any thread starts. */
const stat_set *mem_part_stats_set(void)
{
    return stat_set_lazy(&part_set);
}

#define MISSQ_SLACK 12u /* an access adds at most 3 units of at most 4 sectors */
#define NIL UINT32_MAX          /* no sub-partition */

/* A mem_q whose entries carry the core cycle they become ready. */
typedef struct tq {
    mem_q q;
    uint64_t *t;
} tq;

/* What the serial phases touch (pushes into the ROP queue with their counts; the room of
 * the input queue; replies out) has host lines of its own: with threads, a line written on
 * another core comes back to the channel's core at a cost, and no field the channel's task
 * alone uses should pay it (2 threads, vectoradd 1M: the serial phases' visits to the
 * channels took about a twelfth of the main thread's time, six times as long as on one). */
typedef struct sub {
    _Alignas(BASE_LINE) tq rop;
    uint64_t pushed[3];       /* by the serial phase, by op (mem_op): stats, see pushed_fold */
    _Alignas(BASE_LINE) mem_q in, out;
    _Alignas(BASE_LINE) cache *l2; /* NULL with l2_enabled = 0 */
    tq missq;                 /* "ready" field: the unit (GPGPU-Sim request) of each sector */
    mem_q to_dram, from_dram, ready;
    /* A fill may release mshr_merge x 4 waiters (fillmax) and the reply queue holds two
     * fills' worth, 4,096 and 8,192 entries with the GTX 1080's merge of 1,024, 384 KB a
     * sub-partition that a short run touches only the first page of. Sized so, each
     * channel's slab was a mapping of its own and those first pages cost 50 of the 135 page
     * faults of a 900-cycle run (11 us each on the development VM). So both start small and
     * grow on demand, up to those bounds (grow_ready, grow_fillbuf); the reply queue's room
     * is reckoned against its bound, not its size, so nothing the model does changes. */
    mem_req *fillbuf;         /* heap, fillcap entries; NULL before the first fill */
    mem_req *ready_heap;      /* the reply queue's ring once grown off the slab, or NULL */
    uint32_t fillcap;
    uint32_t fillmax;         /* waiters one fill may release (mshr_merge x 4) */
    uint32_t credit;          /* private DRAM credit in use (GPGPU-Sim: limit 1) */
    uint32_t grows;           /* allocations of fillbuf and ready_heap (mem_part_grows) */
} sub;

/* GPGPU-Sim partition_address: the address without its channel and sub-partition bits. */
typedef struct paddr {
    int gap, chip_s;          /* gap: non-power-of-two channels, divide them out at chip_s */
    uint32_t n_mem, nseg;
    struct { uint64_t mask; unsigned shift; } seg[32]; /* kept bit runs, each moved down
                                                        * by the squeezed-out bits below it */
} paddr;

struct mem_part {
    /* First what every DRAM and L2 cycle and every wait reads, on as few host lines as may
     * be: the channel's state is out of the core's L1 when the next cycle comes back to it. */
    dram *d;
    sub *s;
    uint32_t n_sub;
    tq latq;
    uint64_t now;             /* latest core cycle seen */
    uint64_t lag;             /* DRAM cycles counted but not yet given to the DRAM */
    int quiet;                /* nothing below the L2: DRAM cycles are only counted (lag) */
    int l2_quiet;             /* no sub-partition had work for its L2 cycle, as of its end (a
                                 push into a ROP queue since is seen there: rop_pending) */
    int have_ret;             /* ret was popped from the DRAM and waits for queue room */
    uint32_t last_borrower, shared, shared_limit; /* 0: unlimited */
    stat_block st;
    stat_block l2_hold;       /* all zero: the L2 statistics of a sub-partition without L2 */
    mem_req ret;
    uint32_t channel, global0;
    uint64_t unit;            /* miss-queue unit counter */
    uint64_t rop_lat, dram_lat;
    uint32_t missq_lim;
    base_slab slab;           /* every queue of the channel */
    paddr pa;
};

/* Hands the DRAM the idle cycles counted while quiet. Only its cycle counters lag (an idle
 * DRAM's queue length and busy state are current), so only readers of those sync it. */
static dram *dram_of(mem_part *p)
{
    if (p->lag) {
        dram_skip(p->d, p->lag);
        p->lag = 0;
    }
    return p->d;
}

static void wake_dram_side(mem_part *p)
{
    dram_of(p);
    p->quiet = 0;
}

static void tq_carve(tq *q, uint32_t cap, base_slab *b)
{
    mem_q_carve(&q->q, cap, b);
    q->t = base_slab_take(b, q->q.cap, sizeof *q->t);
}

/* A copy of r in a new slot, returned for in-place edits (mem_q_push_slot's reason). */
static mem_req *tq_push(tq *q, const mem_req *r, uint64_t ready)
{
    if (!mem_q_full(&q->q))
        q->t[mem_ring_slot(q->q.head, q->q.n, q->q.cap)] = ready;
    return mem_q_push_copy(&q->q, r);
}

static int tq_ready(const tq *q, uint64_t now) { return q->q.n && q->t[q->q.head] <= now; }

/* The head, whose successor's time is asked for in the next cycle (mem_q_pop's reason). */
static void tq_drop(tq *q)
{
    mem_q_drop(&q->q);
    __builtin_prefetch(&q->t[q->q.head]);
}

static uint64_t partition_addr(const void *ctx, uint64_t addr)
{
    const paddr *q = ctx;
    if (q->gap) {
        uint64_t low = addr & (((uint64_t)1 << q->chip_s) - 1);
        addr = ((addr >> q->chip_s) / q->n_mem) << q->chip_s | low;
    }
    uint64_t out = 0;
    for (uint32_t i = 0; i < q->nseg; i++)
        out |= (addr & q->seg[i].mask) >> q->seg[i].shift;
    return out;
}

/* Channel bits (not with mod/div channels) and the lowest log2(n_sub) bank bits. */
static void paddr_init(paddr *q, const mem_addrmap *map, const knobs *k)
{
    uint64_t mk[5];
    uint32_t n_mem = (uint32_t)k->n_mem, n_sub = (uint32_t)k->n_sub_partitions;
    mem_addrmap_masks(map, n_mem, mk);
    q->n_mem = n_mem;
    q->gap = map->chip_start >= 0 && (n_mem & (n_mem - 1)) != 0;
    q->chip_s = map->chip_start;
    uint64_t strip = q->gap ? 0 : mk[4];
    int want = 0;
    while ((2u << want) <= n_sub)
        want++;
    for (int b = 0; b < 64 && want > 0; b++)
        if (mk[1] >> b & 1) {
            strip |= (uint64_t)1 << b;
            want--;
        }
    q->nseg = 0;
    unsigned below = 0; /* squeezed-out bits below b */
    for (int b = 0; b < 64; b++) {
        if (strip >> b & 1) {
            below++;
            continue;
        }
        if (!q->nseg || q->seg[q->nseg - 1].shift != below) {
            q->seg[q->nseg].mask = 0;
            q->seg[q->nseg++].shift = below;
        }
        q->seg[q->nseg - 1].mask |= (uint64_t)1 << b;
    }
}

static void sub_init(mem_part *p, sub *u, const knobs *k)
{
    u->fillmax = 4;
    if (k->l2_enabled) {
        cache_cfg cfg;
        cache_cfg_from_knobs(&cfg, k, "l2");
        u->l2 = cache_new(&cfg);
        cache_set_index_addr(u->l2, partition_addr, &p->pa);
        u->fillmax = cfg.mshr_merge * 4;
    }
}

#define READY_START 32u /* the reply queue's first ring (grow_ready) */

/* The queues of a sub-partition, sized for the worst case but the reply queue, which starts
 * at READY_START and grows (grow_ready; the fill buffer is on the heap, grow_fillbuf). */
static void sub_carve(const mem_part *p, sub *u, const knobs *k, base_slab *b)
{
    double ratio = k->clock_l2_mhz / k->clock_core_mhz;
    uint64_t per = ratio > 1 ? (uint64_t)ratio + (ratio > (double)(uint64_t)ratio) : 1;
    tq_carve(&u->rop, (uint32_t)((p->rop_lat + 1) * per + (uint64_t)k->q_icnt_to_l2), b);
    mem_q_carve(&u->in, (uint32_t)k->q_icnt_to_l2, b);
    mem_q_carve(&u->to_dram, (uint32_t)k->q_l2_to_dram, b);
    mem_q_carve(&u->from_dram, (uint32_t)k->q_dram_to_l2, b);
    mem_q_carve(&u->out, (uint32_t)k->q_l2_to_icnt, b);
    tq_carve(&u->missq, p->missq_lim + MISSQ_SLACK, b);
    mem_q_carve(&u->ready, 2 * u->fillmax < READY_START ? 2 * u->fillmax : READY_START, b);
}

static void part_carve(mem_part *p, const knobs *k, uint32_t latcap, base_slab *b)
{
    for (uint32_t i = 0; i < p->n_sub; i++)
        sub_carve(p, &p->s[i], k, b);
    tq_carve(&p->latq, latcap, b);
}

/* GPGPU-Sim arbitration_metadata: one private credit per sub-partition plus a shared pool of
 * scheduler + return queue entries; 0 (no limit) when either queue is unlimited. */
static uint32_t shared_credit_limit(const knobs *k)
{
    if (k->dram_sched_queue == 0 || k->dram_return_queue == 0)
        return 0;
    int64_t lim = k->dram_sched_queue + k->dram_return_queue - (k->n_sub_partitions - 1);
    if (k->dram_separate_write_queue)
        lim += k->dram_write_queue;
    return lim > 0 ? (uint32_t)lim : 1;
}

mem_part *mem_part_new(const knobs *k, const mem_addrmap *map, uint32_t channel)
{
    mem_part *p = base_calloc(1, sizeof *p);
    p->channel = channel;
    p->n_sub = (uint32_t)k->n_sub_partitions;
    p->global0 = channel * p->n_sub;
    p->rop_lat = (uint64_t)k->l2_rop_latency;
    p->dram_lat = (uint64_t)k->dram_latency;
    p->missq_lim = k->l2_enabled ? (uint32_t)k->l2_miss_queue : 1;
    paddr_init(&p->pa, map, k);
    p->s = base_calloc_lines(p->n_sub * sizeof *p->s);
    for (uint32_t i = 0; i < p->n_sub; i++)
        sub_init(p, &p->s[i], k);
    p->d = dram_new(k, map, channel);
    p->shared_limit = shared_credit_limit(k);
    uint32_t latcap = p->shared_limit ? p->shared_limit + p->n_sub
                                      : p->n_sub * (uint32_t)k->q_l2_to_dram + 256;
    part_carve(p, k, latcap, &p->slab);
    base_slab_alloc(&p->slab);
    part_carve(p, k, latcap, &p->slab);
    p->last_borrower = p->n_sub - 1;
    stat_block_init(&p->st, mem_part_stats_set());
    stat_block_init(&p->l2_hold, cache_stats_set());
    return p;
}

void mem_part_free(mem_part *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->n_sub; i++) {
        if (p->s[i].l2)
            cache_free(p->s[i].l2);
        free(p->s[i].fillbuf);
        free(p->s[i].ready_heap);
    }
    free(p->s);
    dram_free(p->d);
    base_slab_free(&p->slab);
    stat_block_free(&p->st);
    stat_block_free(&p->l2_hold);
    free(p);
}

uint32_t mem_part_nsub(const mem_part *p) { return p->n_sub; }

uint32_t mem_part_grows(const mem_part *p, uint32_t i)
{
    return i < p->n_sub ? p->s[i].grows : 0;
}

int mem_part_l2_has_tags(const mem_part *p, uint32_t i)
{
    return i < p->n_sub && p->s[i].l2 && cache_has_tags(p->s[i].l2);
}

static sub *sub_at(const mem_part *p, uint32_t i)
{
    if (i >= p->n_sub)
        base_panic("mem_part: sub-partition %u out of range (channel %u has %u)", i, p->channel,
                   p->n_sub);
    return &p->s[i];
}

int mem_part_can_accept(const mem_part *p, uint32_t sub_i)
{
    const sub *u = sub_at(p, sub_i);
    return !mem_q_full(&u->rop.q) && !mem_q_full(&u->in);
}

void mem_part_push(mem_part *p, uint32_t sub_i, const mem_req *r, uint64_t core_cycle)
{
    sub *u = sub_at(p, sub_i);
    if (!mem_part_can_accept(p, sub_i))
        base_panic("mem_part_push: channel %u sub-partition %u is full (call "
                   "mem_part_can_accept first)", p->channel, sub_i);
    mem_req *c = tq_push(&u->rop, r, core_cycle + p->rop_lat);
    c->loc = MEM_AT_ROP;
    c->part = p->global0 + sub_i;
    u->pushed[r->op == MEM_RD ? 0 : r->op == MEM_WR ? 1 : 2]++;
}

uint64_t mem_part_rop_latency(const mem_part *p) { return p->rop_lat; }

/* The serial phase's counts join the statistics when they are read (a safe point). */
static void pushed_fold(mem_part *p)
{
    static const int slot[3] = {PS_reads, PS_writes, PS_atomics};
    for (uint32_t i = 0; i < p->n_sub; i++)
        for (int k = 0; k < 3; k++) {
            stat_inc(&p->st, slot[k], p->s[i].pushed[k]);
            p->s[i].pushed[k] = 0;
        }
}

static int wants_reply(const mem_req *r)
{
    return !(r->flags & (MEM_F_NO_REPLY | MEM_F_WRITEBACK));
}

static void reply(mem_part *p, sub *u, const mem_req *r, uint64_t now, int hit)
{
    mem_req *x = mem_q_push_copy(&u->out, r);
    x->loc = MEM_AT_L2_OUT;
    x->flags = (uint8_t)(hit ? r->flags | MEM_F_L2_HIT : r->flags & ~MEM_F_L2_HIT);
    stat_inc(&p->st, PS_replies, 1);
    if (hit)
        stat_inc(&p->st, PS_replies_l2_hit, 1);
    if (now > r->t_start)
        stat_inc(&p->st, PS_reply_latency_sum, now - r->t_start);
}

/* Requests the L2 sends below: one per sector of `mask` in the line at `line`. */
static void send_below(mem_part *p, sub *u, const mem_req *like, uint64_t line, unsigned mask,
                       int op, uint8_t flags, uint32_t hint)
{
    for (unsigned s = 0; s < 4; s++) {
        if (!(mask >> s & 1))
            continue;
        mem_req *f = tq_push(&u->missq, like, p->unit);
        f->addr = line + s * MEM_SECTOR;
        f->op = (uint8_t)op;
        f->flags = flags;
        f->part = p->global0 + (uint32_t)(u - p->s);
        f->loc = MEM_AT_L2_MSHR;
        f->hint[1] = mem_hint16(hint);
    }
    p->unit++;
}

static void writeback(mem_part *p, sub *u, uint64_t line, unsigned mask, uint64_t now)
{
    if (!mask)
        return;
    mem_req w = {0};
    w.t_start = now;
    send_below(p, u, &w, line, mask, MEM_WR, MEM_F_WRITEBACK | MEM_F_NO_REPLY, 0);
}

static int is_fill(const sub *u, const mem_req *r) { return u->l2 && r->op != MEM_WR; }

/* Room for n more replies in the reply queue's ring (n fits its bound, 2 x fillmax: the
 * caller checked). The ring is copied oldest first into one twice as large, or larger. */
static void grow_ready(sub *u, uint32_t n)
{
    mem_q *q = &u->ready;
    if (q->cap - q->n >= n)
        return;
    uint32_t cap = 2 * q->cap > q->n + n ? 2 * q->cap : q->n + n;
    if (cap > 2 * u->fillmax)
        cap = 2 * u->fillmax;
    mem_req *v = base_malloc((size_t)cap * sizeof *v);
    for (uint32_t i = 0; i < q->n; i++)
        v[i] = q->v[mem_ring_slot(q->head, i, q->cap)];
    free(u->ready_heap);
    u->ready_heap = q->v = v;
    u->grows++;
    q->cap = cap;
    q->head = 0;
}

/* A fill buffer no fill of the L2 can overflow: as many as wait in its MSHRs, at most
 * fillmax, doubling as it grows. (Under load more than fillmax wait: the cap comes first,
 * or every fill would free and allocate the buffer again.) */
static void grow_fillbuf(sub *u)
{
    uint32_t need = cache_waiting(u->l2);
    if (need > u->fillmax)
        need = u->fillmax;
    if (need <= u->fillcap)
        return;
    uint32_t cap = 2 * u->fillcap > need ? 2 * u->fillcap : need;
    u->fillcap = cap < u->fillmax ? cap : u->fillmax;
    free(u->fillbuf);
    u->fillbuf = base_malloc((size_t)u->fillcap * sizeof *u->fillbuf);
    u->grows++;
}

/* Step 2: the head of DRAM->L2. */
static void from_dram(mem_part *p, sub *u, uint64_t now)
{
    if (mem_q_empty(&u->from_dram))
        return;
    mem_req *r = mem_q_front(&u->from_dram);
    if (!is_fill(u, r)) {
        if (!mem_q_full(&u->out)) {
            reply(p, u, mem_q_front(&u->from_dram), now, 0);
            mem_q_drop(&u->from_dram);
        }
        return;
    }
    /* room against the queue's bound, 2 x fillmax (its ring may not have grown that far),
     * and for a writeback when the fill may evict (GPGPU-Sim's fill waits for the fill port
     * alone: with a line reserved at the miss it never evicts, and waiting for the miss
     * queue there deadlocked a channel whose DRAM held a return for this full queue while
     * the miss queue waited on that DRAM) */
    uint64_t line = cache_line_addr(u->l2, r->addr), wb_addr = 0;
    if (mem_q_len(&u->ready) > u->fillmax ||
        (mem_q_len(&u->missq.q) >= p->missq_lim && cache_fill_may_evict(u->l2, line, r->hint[1]))) {
        stat_inc(&p->st, PS_fill_stall, 1);
        return;
    }
    mem_req f = mem_q_pop(&u->from_dram);
    uint8_t wb_mask = 0;
    grow_fillbuf(u);
    size_t n = cache_fill(u->l2, line, (uint8_t)(1u << cache_sector_of(f.addr)), f.hint[1], now,
                          u->fillbuf, u->fillcap, &wb_addr, &wb_mask);
    grow_ready(u, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        if (wants_reply(&u->fillbuf[i]))
            mem_q_push(&u->ready, &u->fillbuf[i]);
    writeback(p, u, wb_addr, wb_mask, now);
}

/* Step 4 without an L2: straight to DRAM (GPGPU-Sim's disabled-L2 path). */
static void bypass_l2(mem_part *p, sub *u)
{
    if (mem_q_full(&u->to_dram)) {
        stat_inc(&p->st, PS_l2_stall_dram_full, 1);
        return;
    }
    mem_q_push_copy(&u->to_dram, mem_q_front(&u->in))->loc = MEM_AT_L2_MSHR;
    mem_q_drop(&u->in);
    wake_dram_side(p);
}

static void after_write(mem_part *p, sub *u, mem_req *r, const cache_result *res, uint64_t now)
{
    if (res->send_write)
        send_below(p, u, r, r->addr & ~(uint64_t)(MEM_SECTOR - 1), 1, MEM_WR, r->flags, 0);
    else if (wants_reply(r))
        reply(p, u, r, now, res->status == CACHE_HIT);
}

/* Step 4: one L2 access. Room is checked first so a refused access changes nothing. */
static void access_l2(mem_part *p, sub *u, uint64_t now)
{
    if (mem_q_empty(&u->in))
        return;
    if (!u->l2) {
        bypass_l2(p, u);
        return;
    }
    if (mem_q_full(&u->out)) {
        stat_inc(&p->st, PS_l2_stall_reply_full, 1);
        return;
    }
    if (mem_q_full(&u->to_dram)) {
        stat_inc(&p->st, PS_l2_stall_dram_full, 1);
        return;
    }
    mem_req r = *mem_q_front(&u->in);
    r.loc = MEM_AT_L2_MSHR; /* the copy a miss leaves in the MSHR */
    cache_result res;
    uint32_t used = mem_q_len(&u->missq.q);
    cache_set_missq_room(u->l2, used < p->missq_lim ? p->missq_lim - used : 0);
    cache_access(u->l2, &r, now, &res);
    if (res.status == CACHE_RES_FAIL) {
        stat_inc(&p->st, PS_l2_stall_res_fail, 1);
        return;
    }
    mem_q_pop(&u->in);
    if (r.op == MEM_WR)
        after_write(p, u, &r, &res, now);
    else if (res.status == CACHE_HIT)
        reply(p, u, &r, now, 1);
    if (res.fetch_mask)
        send_below(p, u, &r, cache_line_addr(u->l2, r.addr), res.fetch_mask, MEM_RD,
                   MEM_F_NO_REPLY, res.hint);
    writeback(p, u, res.wb_addr, res.wb_mask, now);
}

/* Step 3: the sectors of the oldest miss-queue unit, while L2->DRAM has room. */
static void move_unit(mem_part *p, sub *u)
{
    mem_q *q = &u->missq.q;
    if (mem_q_empty(q))
        return;
    wake_dram_side(p);
    uint64_t unit = u->missq.t[q->head];
    while (!mem_q_empty(q) && u->missq.t[q->head] == unit && !mem_q_full(&u->to_dram)) {
        mem_q_push_copy(&u->to_dram, mem_q_front(q));
        tq_drop(&u->missq);
    }
}

static void l2_sub_cycle(mem_part *p, sub *u, uint64_t now)
{
    if (!mem_q_empty(&u->ready) && !mem_q_full(&u->out)) {
        reply(p, u, mem_q_front(&u->ready), now, 0);
        mem_q_drop(&u->ready);
    }
    from_dram(p, u, now);
    move_unit(p, u);
    access_l2(p, u, now);
    if (tq_ready(&u->rop, now) && !mem_q_full(&u->in)) {
        mem_req *r = mem_q_push_copy(&u->in, mem_q_front(&u->rop.q));
        r->loc = MEM_AT_L2_IN;
        tq_drop(&u->rop);
        if (u->l2) /* looked up in a later cycle of this channel */
            cache_prefetch_access(u->l2, r->addr);
    }
}

/* Nothing for an L2 cycle to do in any sub-partition (the output queue is drained by the
 * interconnect, not by the L2 cycle). */
static int l2_side_idle(const mem_part *p)
{
    for (uint32_t i = 0; i < p->n_sub; i++) {
        const sub *u = &p->s[i];
        if (!mem_q_empty(&u->rop.q) || !mem_q_empty(&u->in) || !mem_q_empty(&u->missq.q) ||
            !mem_q_empty(&u->from_dram) || !mem_q_empty(&u->ready))
            return 0;
    }
    return 1;
}

/* A request pushed since the last L2 cycle (the pusher leaves l2_quiet alone: it is read
 * with the channel's every cycle, and a write from the serial phase would cost it a line). */
static int rop_pending(const mem_part *p)
{
    for (uint32_t i = 0; i < p->n_sub; i++)
        if (!mem_q_empty(&p->s[i].rop.q))
            return 1;
    return 0;
}

void mem_part_l2_cycle(mem_part *p, uint64_t core_cycle)
{
    p->now = core_cycle;
    if (p->l2_quiet && !rop_pending(p))
        return;
    for (uint32_t i = 0; i < p->n_sub; i++)
        l2_sub_cycle(p, &p->s[i], core_cycle);
    p->l2_quiet = l2_side_idle(p);
}

static uint64_t l2_wake(const mem_part *p)
{
    if (p->have_ret)
        return 0;
    uint64_t t = UINT64_MAX;
    for (uint32_t i = 0; i < p->n_sub; i++) {
        const sub *u = &p->s[i];
        if (!mem_q_empty(&u->in) || !mem_q_empty(&u->missq.q) || !mem_q_empty(&u->from_dram) ||
            !mem_q_empty(&u->ready))
            return 0;
        if (!mem_q_empty(&u->rop.q) && u->rop.t[u->rop.q.head] < t)
            t = u->rop.t[u->rop.q.head];
    }
    return t;
}

uint64_t mem_part_sleep(const mem_part *p)
{
    /* a DRAM side with work is the usual reason under load, and the cheapest to ask */
    if (!p->quiet && (dram_busy(p->d) || mem_q_empty(&p->latq.q)))
        return 0;
    uint64_t t = l2_wake(p);
    if (!t || p->quiet)
        return t;
    for (uint32_t i = 0; i < p->n_sub; i++)
        if (!mem_q_empty(&p->s[i].to_dram))
            return 0;
    uint64_t d = p->latq.t[p->latq.q.head];
    return d < t ? d : t;
}

/* From the queues themselves: a count kept beside them would be written by both sides. */
uint32_t mem_part_replies(const mem_part *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_sub; i++)
        n += mem_q_len(&p->s[i].out);
    return n;
}

unsigned mem_part_idle(const mem_part *p)
{
    int l2 = p->l2_quiet && !rop_pending(p);
    return (p->quiet ? MEM_PART_DRAM_IDLE : 0u) | (l2 ? MEM_PART_L2_IDLE : 0u);
}

static int has_credit(const mem_part *p, uint32_t i)
{
    return p->s[i].credit < 1 || p->shared_limit == 0 || p->shared < p->shared_limit;
}

static void borrow_credit(mem_part *p, uint32_t i)
{
    if (p->s[i].credit < 1)
        p->s[i].credit++;
    else
        p->shared++;
    p->last_borrower = i;
}

static void return_credit(mem_part *p, uint32_t i)
{
    if (p->s[i].credit > 0)
        p->s[i].credit--;
    else if (p->shared > 0)
        p->shared--;
    else
        base_panic("mem_part: channel %u returned a DRAM credit it did not lend", p->channel);
}

/* One DRAM return to its sub-partition; it stays held while its queue is full. */
static void dram_return(mem_part *p)
{
    if (!p->have_ret && dram_ret_ready(p->d)) {
        p->ret = dram_ret_pop(p->d);
        p->have_ret = 1;
    }
    if (!p->have_ret)
        return;
    uint32_t i = p->ret.part - p->global0;
    if (p->ret.part < p->global0 || i >= p->n_sub)
        base_panic("mem_part: channel %u got a DRAM return for sub-partition %u", p->channel,
                   p->ret.part);
    sub *u = &p->s[i];
    int keep = p->ret.op != MEM_WR || wants_reply(&p->ret);
    if (keep) {
        if (mem_q_full(&u->from_dram))
            return;
        p->ret.loc = MEM_AT_DRAM_RET;
        mem_q_push(&u->from_dram, &p->ret);
        if (is_fill(u, &p->ret)) /* its entry was fetched when the read was sent */
            cache_prefetch_fill_line(u->l2, p->ret.hint[1]);
        p->l2_quiet = 0;
    }
    return_credit(p, i);
    p->have_ret = 0;
}

static void count_sent(mem_part *p, const mem_req *r)
{
    int slot = r->op != MEM_WR                   ? PS_dram_reads
               : (r->flags & MEM_F_WRITEBACK)    ? PS_dram_writebacks
                                                 : PS_dram_writes;
    stat_inc(&p->st, slot, 1);
}

/* The sub-partition whose L2->DRAM head the arbiter moves next, round-robin from the last one
 * served, or NIL when none may move. */
static inline uint32_t arbiter_pick(const mem_part *p)
{
    if (!dram_can_accept(p->d) || mem_q_full(&p->latq.q))
        return NIL; /* whichever head comes first would wait */
    uint32_t i = p->last_borrower;
    for (uint32_t k = 0; k < p->n_sub; k++) {
        i = i + 1 < p->n_sub ? i + 1 : 0; /* last_borrower + 1 + k, wrapped without a division */
        const sub *u = &p->s[i];
        if (!mem_q_empty(&u->to_dram) && has_credit(p, i) && !mem_q_full(&u->from_dram))
            return i;
    }
    return NIL;
}

/* One L2->DRAM head into the latency queue. */
static void arbitrate(mem_part *p, uint64_t now)
{
    uint32_t i = arbiter_pick(p);
    if (i == NIL)
        return;
    mem_req *r = tq_push(&p->latq, mem_q_front(&p->s[i].to_dram), now + p->dram_lat);
    r->loc = MEM_AT_DRAM_LATQ;
    mem_q_drop(&p->s[i].to_dram);
    borrow_credit(p, i);
    count_sent(p, r);
}

/* The latency queue's head has waited out its latency and the DRAM can take it. */
static inline int latq_can_push(const mem_part *p, uint64_t now)
{
    return tq_ready(&p->latq, now) && dram_can_accept(p->d);
}

/* Nothing below the L2 and nothing on its way there: the DRAM cycle only counts itself. */
static int dram_side_idle(const mem_part *p)
{
    if (p->have_ret || !mem_q_empty(&p->latq.q) || dram_wake(p->d) != UINT64_MAX)
        return 0;
    for (uint32_t i = 0; i < p->n_sub; i++)
        if (!mem_q_empty(&p->s[i].to_dram))
            return 0;
    return 1;
}

/* The L2 entry a DRAM read now on its way will fill, and its first waiter: fetched here, tens
 * of cycles ahead, they are at hand when the fill comes. */
static void prefetch_fill(mem_part *p, const mem_req *r)
{
    uint32_t i = r->part - p->global0;
    if (i < p->n_sub && is_fill(&p->s[i], r))
        cache_prefetch_fill(p->s[i].l2, r->addr, r->hint[1]);
}

static inline void dram_side_cycle(mem_part *p, uint64_t core_cycle)
{
    dram_return(p);
    const mem_req *sent = dram_cycle(p->d);
    if (sent)
        prefetch_fill(p, sent);
    arbitrate(p, core_cycle);
    if (latq_can_push(p, core_cycle)) {
        dram_push(p->d, mem_q_front(&p->latq.q));
        tq_drop(&p->latq);
    }
    p->quiet = dram_side_idle(p);
}

/* How many of the next DRAM-side cycles would only count themselves: nothing to return, to
 * arbitrate or to push, and the DRAM itself waiting on a command's time or a burst, or, with
 * nothing queued or in flight, the latency queue's head on a core cycle still to come (then
 * every call at this core cycle: UINT64_MAX). 0 when nothing is queued, in flight or on its
 * way: that cycle goes quiet. Nothing the L2 side does reaches here within a run of deferred
 * cycles. */
static uint64_t dram_side_wait(const mem_part *p, uint64_t core_cycle)
{
    if (p->have_ret || dram_ret_ready(p->d))
        return 0;
    if (dram_can_accept(p->d) && (tq_ready(&p->latq, core_cycle) || arbiter_pick(p) != NIL))
        return 0; /* a push or an arbitration (latq_can_push, arbitrate) */
    uint64_t w = dram_wait(p->d);
    if (w != UINT64_MAX)
        return w;
    return mem_q_empty(&p->latq.q) ? 0 : UINT64_MAX;
}

void mem_part_dram_cycle(mem_part *p, uint64_t core_cycle)
{
    p->now = core_cycle;
    if (p->quiet)
        p->lag++;
    else if (dram_side_wait(p, core_cycle))
        dram_skip(p->d, 1);
    else
        dram_side_cycle(p, core_cycle);
}

uint64_t mem_part_dram_cycles(mem_part *p, uint64_t n, uint64_t core_cycle)
{
    p->now = core_cycle;
    uint64_t k = 0;
    while (k < n && !p->quiet) {
        uint64_t w = dram_side_wait(p, core_cycle);
        if (w) {
            w = w < n - k ? w : n - k;
            dram_skip(p->d, w);
            k += w;
        } else {
            dram_side_cycle(p, core_cycle);
            k++;
        }
    }
    return k;
}

const mem_req *mem_part_reply_peek(const mem_part *p, uint32_t sub_i)
{
    const sub *u = sub_at(p, sub_i);
    return mem_q_empty(&u->out) ? NULL : &u->out.v[u->out.head];
}

void mem_part_prefetch_in(const mem_part *p, uint32_t sub_i)
{
    __builtin_prefetch(&p->s[sub_i].rop.q);
    __builtin_prefetch(&p->s[sub_i].in);
}

void mem_part_prefetch_out(const mem_part *p, uint32_t sub_i)
{
    __builtin_prefetch(&p->s[sub_i].out);
}

mem_req mem_part_reply_pop(mem_part *p, uint32_t sub_i)
{
    return mem_q_pop(&sub_at(p, sub_i)->out);
}

static int sub_busy(const sub *u)
{
    return !mem_q_empty(&u->rop.q) || !mem_q_empty(&u->in) || !mem_q_empty(&u->missq.q) ||
           !mem_q_empty(&u->to_dram) || !mem_q_empty(&u->from_dram) ||
           !mem_q_empty(&u->ready) || !mem_q_empty(&u->out) ||
           (u->l2 && cache_mshr_used(u->l2) > 0);
}

int mem_part_busy(const mem_part *p)
{
    for (uint32_t i = 0; i < p->n_sub; i++)
        if (sub_busy(&p->s[i]))
            return 1;
    return p->have_ret || !mem_q_empty(&p->latq.q) || dram_busy(p->d);
}

/* Only the ROP delay line and the MSHRs (waiting on DRAM) may hold requests. */
static int sub_waiting_only(const sub *u)
{
    return mem_q_empty(&u->in) && mem_q_empty(&u->missq.q) && mem_q_empty(&u->to_dram) &&
           mem_q_empty(&u->from_dram) && mem_q_empty(&u->ready) && mem_q_empty(&u->out);
}

int mem_part_wake(const mem_part *p, uint64_t *core_t, uint64_t *dram_t)
{
    *core_t = *dram_t = UINT64_MAX;
    if (p->have_ret)
        return -1;
    for (uint32_t i = 0; i < p->n_sub; i++) {
        const sub *u = &p->s[i];
        if (!sub_waiting_only(u))
            return -1;
        if (!mem_q_empty(&u->rop.q) && u->rop.t[u->rop.q.head] < *core_t)
            *core_t = u->rop.t[u->rop.q.head];
    }
    if (!mem_q_empty(&p->latq.q) && p->latq.t[p->latq.q.head] < *core_t)
        *core_t = p->latq.t[p->latq.q.head];
    if (p->quiet)
        return 0; /* nothing below the L2: the DRAM cannot act (and its clock lags) */
    uint64_t w = dram_wake(p->d), now = dram_now(p->d);
    if (w == now)
        return -1;
    *dram_t = w == UINT64_MAX ? w : w - now;
    return 0;
}

/* While quiet the skipped cycles join the lag, like counted idle cycles. */
void mem_part_skip(mem_part *p, uint64_t dram_calls)
{
    if (p->quiet)
        p->lag += dram_calls;
    else
        dram_skip(p->d, dram_calls);
}
void mem_part_set_now(mem_part *p, uint64_t core_cycle) { p->now = core_cycle; }

void mem_part_prefill(mem_part *p, uint32_t sub_i, uint64_t addr)
{
    sub *u = sub_at(p, sub_i);
    if (u->l2)
        cache_prefill(u->l2, cache_line_addr(u->l2, addr), (uint8_t)(1u << cache_sector_of(addr)),
                      p->now);
}

int mem_part_prefill_churns(mem_part *p, uint32_t sub_i)
{
    sub *u = sub_at(p, sub_i);
    return u->l2 && cache_prefill_churns(u->l2, p->now);
}

void mem_part_prefill_run(mem_part *p, uint32_t sub_i, int begin)
{
    cache *l2 = sub_at(p, sub_i)->l2;
    if (l2)
        (begin ? cache_prefill_begin : cache_prefill_end)(l2);
}

void mem_part_prefill_block(mem_part *p, uint32_t sub_i, uint64_t addr, uint8_t mask)
{
    sub *u = sub_at(p, sub_i);
    uint64_t base = addr & ~(uint64_t)127;
    if (u->l2 && cache_line_addr(u->l2, base) == cache_line_addr(u->l2, base + 127)) {
        cache_prefill(u->l2, cache_line_addr(u->l2, base), mask, p->now);
        return;
    }
    for (unsigned i = 0; i < 4; i++)
        if (mask >> i & 1)
            mem_part_prefill(p, sub_i, base + 32 * i);
}

uint32_t mem_part_flush_l2(mem_part *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_sub; i++) {
        cache *c = p->s[i].l2;
        if (!c)
            continue;
        uint64_t line;
        uint8_t mask;
        while (cache_flush_next(c, &line, &mask))
            n += base_popcount32(mask);
        cache_invalidate(c);
    }
    stat_inc(&p->st, PS_flush_writebacks, n);
    return n;
}

cache *mem_part_l2(mem_part *p, uint32_t sub_i) { return sub_at(p, sub_i)->l2; }
stat_block *mem_part_l2_stats(mem_part *p, uint32_t sub_i)
{
    cache *l2 = mem_part_l2(p, sub_i);
    return l2 ? cache_stats(l2) : &p->l2_hold;
}
dram *mem_part_dram(mem_part *p) { return dram_of(p); }
stat_block *mem_part_stats(mem_part *p)
{
    pushed_fold(p);
    return &p->st;
}

static const char *const op_names[] = {"read", "write", "atomic"};

static void print_oldest(FILE *f, const char *what, const mem_q *q, const uint64_t *ready)
{
    fprintf(f, "    %-16s %u/%u", what, q->n, q->cap);
    if (q->n) {
        const mem_req *r = &q->v[q->head];
        fprintf(f, ", oldest: %s 0x%llx sm %u slot %u created %llu at %s",
                op_names[r->op < 3 ? r->op : 0], (unsigned long long)r->addr, r->sm, r->slot,
                (unsigned long long)r->t_start,
                r->loc < MEM_NLOC ? mem_loc_names[r->loc] : "?");
        if (ready)
            fprintf(f, ", ready at %llu", (unsigned long long)ready[q->head]);
    }
    fputc('\n', f);
}

void mem_part_diagnose(const mem_part *p, FILE *f)
{
    fprintf(f, "memory channel %u (core cycle %llu):\n", p->channel, (unsigned long long)p->now);
    for (uint32_t i = 0; i < p->n_sub; i++) {
        const sub *u = &p->s[i];
        fprintf(f, "  sub-partition %u (global %u): l2 mshr entries %u, private credit %u\n", i,
                p->global0 + i, u->l2 ? cache_mshr_used(u->l2) : 0, u->credit);
        print_oldest(f, "rop", &u->rop.q, u->rop.t);
        print_oldest(f, "icnt->l2", &u->in, NULL);
        print_oldest(f, "l2 miss queue", &u->missq.q, NULL);
        print_oldest(f, "l2->dram", &u->to_dram, NULL);
        print_oldest(f, "dram->l2", &u->from_dram, NULL);
        print_oldest(f, "filled, to reply", &u->ready, NULL);
        print_oldest(f, "l2->icnt", &u->out, NULL);
    }
    print_oldest(f, "dram latency q", &p->latq.q, p->latq.t);
    fprintf(f, "    held dram return: %s; shared credits %u/%u; dram queue %u, busy %d\n",
            p->have_ret ? "yes" : "no", p->shared, p->shared_limit, dram_queue_len(p->d),
            dram_busy(p->d));
}
