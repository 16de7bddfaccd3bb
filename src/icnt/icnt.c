/* icnt: crossbars between SMs and sub-partitions, after GPGPU-Sim's "local crossbar"
 * (network_mode 2, local_interconnect.cc: xbar_router).
 *
 * Followed from GPGPU-Sim: one crossbar per subnet (requests on 0, replies on 1, or both on
 * one), FIFO input buffers (only the head packet of an input competes), an output accepts one
 * input per cycle, in/out buffer limits, the two arbiters:
 * - "fifo" (-icnt_arbiter_algo 0, NAIVE_RR): one priority pointer over the inputs that moves
 *   on by one every cycle; inputs in that order take their head's output if it is free.
 * - "islip" (-icnt_arbiter_algo 1): every output grants the requesting input nearest at or
 *   after its grant pointer, which then moves past the winner (held for icnt_grant_cycles
 *   active cycles, as GPGPU-Sim does). With FIFO inputs each input requests exactly one output,
 *   so iSLIP's accept step always accepts the single grant and needs no accept pointer.
 * Differences:
 * - Flits: GPGPU-Sim's local crossbar moves whole packets in one cycle (buffer limits count
 *   packets). Here a packet is ceil(bytes / icnt_flit_size) flits, each input sends and each
 *   output takes one flit per cycle, and a packet keeps its output until its last flit
 *   (limits count flits). The output space of the whole packet is reserved at its first
 *   flit, so a started packet never stalls. A packet larger than a buffer limit may still
 *   enter an empty buffer (otherwise it could never move).
 * - islip: GPGPU-Sim searches from the first input strictly after the pointer (upper_bound),
 *   which skips the input the pointer names and can starve it; here the search includes it.
 * - fifo: GPGPU-Sim's pointer runs over all n_shader + n_mem node ids, so for the cycles it
 *   names a node that is no input of the subnet the scan starts at input 0; here it runs
 *   over the subnet's inputs only.
 * - icnt_latency: extra cycles between a packet's last flit and the moment it can be popped.
 * - in_full counts input-port cycles whose buffer could not take a largest (40-byte) packet
 *   (GPGPU-Sim counts refused has-buffer queries; icnt_can_push is const here).
 */
#include "icnt.h"

#include <stdlib.h>
#include <string.h>

/* Counters first, ratios after: a counter's slot is its index. */
enum {
#define STAT_COUNTER(n, h) IS_##n,
#define STAT_DIST(n, b, nb, h) IS_##n,
#define STAT_RATIO(n, a, b, h) IS_##n,
#include "icnt/icnt_stats.def"
#undef STAT_COUNTER
#undef STAT_DIST
#undef STAT_RATIO
};

static const stat_desc icnt_set_descs[] = {
#define STAT_DEF_FILE "icnt/icnt_stats.def"
#include "../stat/stat_descs.inc"
};
static stat_set icnt_set = {"icnt", icnt_set_descs, (int)BASE_ARRAY_LEN(icnt_set_descs), NULL, NULL, NULL, 0};

/* Serial setup: the layout is computed on the first call, before any thread starts. */
const stat_set *icnt_stats_set(void)
{
    return stat_set_lazy(&icnt_set);
}

typedef struct pkt {
    mem_req r;
    uint64_t t_push;  /* icnt cycle of injection */
    uint64_t t_ready; /* first cycle it can be popped; UINT64_MAX while flits are missing */
    uint32_t dst;     /* output port */
    uint32_t flits;
    int subnet;
} pkt;
_Static_assert(sizeof(pkt) == 64, "a packet, a host line, where its ring's array starts on one");

/* A FIFO of packets by value, with the flits it holds (reserved flits for outputs). It may
 * hold up to max packets (one per flit of its buffer, plus one). Its array starts at
 * RING_FIRST packets in the icnt's slab and doubles on the heap when full: a ring's head
 * walks its whole array, so a full-size array would cost a page fault per 64 packets of
 * every ring in every run, in the serial hand-offs; most rings never hold more than a few. */
typedef struct ring {
    pkt *v;
    uint32_t cap, max, head, n, flits;
} ring;

#define RING_FIRST 8u
#define NO_DST UINT32_MAX

/* Each crossbar on host lines of its own, with its own clock and counters: in the windowed
 * mode the two subnets run as tasks of their own (icnt_subnet_step). */
typedef struct xbar {
    _Alignas(64) uint64_t now; /* icnt cycles run */
    uint32_t nin, nout;
    ring *in, *out;
    uint32_t *sent;      /* per input: flits of its head packet already sent */
    int32_t *lock;       /* per output: the input whose packet holds it, -1 when free */
    uint32_t *gptr;      /* per output: islip grant pointer */
    uint32_t rr;         /* fifo: the input with the highest priority this cycle */
    uint32_t grant_left; /* islip: active cycles before the pointers may move */
    uint8_t *in_busy, *out_busy; /* this cycle: input sent / output took a flit */
    int32_t *cand;       /* islip scratch: per output, the input it grants */
    uint32_t *cand_dist;
    uint64_t *held;      /* per output, a bit: its ring holds a packet (whole or arriving) */
    uint64_t *filled;    /* per input, a bit: its ring holds a packet (a cycle visits only
                          * these inputs, in index order) */
    uint64_t *asked;     /* islip scratch: per output, a bit: some input asks for it */
    /* per output, its head packet's t_ready (UINT64_MAX: none, or flits missing): the serial
     * phases peek at every held output each cycle, mostly before its head is ready, and this
     * answers them from one small array instead of a ring and a packet each */
    uint64_t *head_ready;
    /* per input, its head packet's output (NO_DST: not looked up yet): the arbiter asks it of
     * every waiting input every cycle, and a small array answers from a few lines where the
     * packets' own (a ring slot each) missed the host's cache. A new head's line is fetched
     * as the packet before it leaves, and its output read a cycle later, when it is there. */
    uint32_t *head_dst;
    uint32_t npkts;      /* packets anywhere in this crossbar */
    stat_block st;       /* what its pushes and cycles count: subnets may cycle on different
                          * threads */
} xbar;

struct icnt {
    uint32_t n_sm, n_sub, nsubnets;
    uint32_t flit_size, in_limit, out_limit, latency, grant_cycles, max_flits, flits_hdr;
    int islip;
    xbar x[2];
    base_slab slab;      /* every array of both crossbars */
    stat_block st;       /* cycles, cycles with a packet anywhere */
    stat_block sum;      /* st plus the crossbars', made by icnt_stats */
};

/* q is NULL in the sizing pass (the ring array itself is not carved yet). */
static void ring_carve(ring *q, uint32_t max, base_slab *b)
{
    uint32_t cap = max < RING_FIRST ? max : RING_FIRST;
    pkt *v = base_slab_take(b, cap, sizeof *v);
    if (q)
        *q = (ring){v, cap, max, 0, 0, 0};
}

/* The array doubles (up to max), its packets moved to the front in order. Slots are found
 * by index, never kept as pointers across a push, so the move is invisible. */
static void ring_grow(ring *q)
{
    uint32_t cap = q->cap * 2 < q->max ? q->cap * 2 : q->max;
    pkt *v = base_realloc_lines(NULL, 0, (size_t)cap * sizeof *v); /* a packet, a host line */
    uint32_t first = q->cap - q->head < q->n ? q->cap - q->head : q->n;
    memcpy(v, &q->v[q->head], first * sizeof *v);
    memcpy(&v[first], q->v, (q->n - first) * sizeof *v);
    if (q->cap > RING_FIRST)
        free(q->v);
    q->v = v;
    q->cap = cap;
    q->head = 0;
}

static void ring_free(ring *q)
{
    if (q->cap > RING_FIRST)
        free(q->v);
}

static pkt *ring_at(const ring *q, uint32_t i) { return &q->v[mem_ring_slot(q->head, i, q->cap)]; }

/* p is copied into the new tail slot; NULL: the caller fills the slot returned. */
static pkt *ring_push(ring *q, const pkt *p)
{
    if (q->n >= q->max)
        base_panic("icnt: packet ring full (%u packets)", q->max);
    if (q->n == q->cap)
        ring_grow(q);
    pkt *slot = ring_at(q, q->n);
    if (p)
        *slot = *p;
    q->n++;
    /* the next push's slot: a ring that holds many packets (gather's requests wait 159 deep
     * on average at a sub-partition's output) has walked away from its last-used lines, so
     * each push would otherwise wait for one */
    if (q->n < q->cap)
        __builtin_prefetch(ring_at(q, q->n), 1);
    return slot;
}

/* An emptied ring starts over at slot 0 (as mem_q_pop does). */
static void ring_drop_head(ring *q)
{
    q->head = --q->n ? mem_ring_slot(q->head, 1, q->cap) : 0;
}

/* Every array of a crossbar; run in both passes of the icnt's slab. */
static void xbar_carve(xbar *x, uint32_t nin, uint32_t nout, const icnt *n, base_slab *b)
{
    x->nin = nin;
    x->nout = nout;
    x->in = base_slab_take(b, nin, sizeof *x->in);
    x->out = base_slab_take(b, nout, sizeof *x->out);
    for (uint32_t i = 0; i < nin; i++)
        ring_carve(x->in ? &x->in[i] : NULL, n->in_limit + 1, b);
    for (uint32_t o = 0; o < nout; o++)
        ring_carve(x->out ? &x->out[o] : NULL, n->out_limit + 1, b);
    x->sent = base_slab_take(b, nin, sizeof *x->sent);
    x->lock = base_slab_take(b, nout, sizeof *x->lock);
    x->gptr = base_slab_take(b, nout, sizeof *x->gptr);
    x->in_busy = base_slab_take(b, nin, 1);
    x->out_busy = base_slab_take(b, nout, 1);
    x->cand = base_slab_take(b, nout, sizeof *x->cand);
    x->cand_dist = base_slab_take(b, nout, sizeof *x->cand_dist);
    x->held = base_slab_take(b, (nout + 63) / 64, sizeof *x->held);
    x->filled = base_slab_take(b, (nin + 63) / 64, sizeof *x->filled);
    x->asked = base_slab_take(b, (nout + 63) / 64, sizeof *x->asked);
    x->head_ready = base_slab_take(b, nout, sizeof *x->head_ready);
    x->head_dst = base_slab_take(b, nin, sizeof *x->head_dst);
}

static void xbar_init(xbar *x, const icnt *n)
{
    for (uint32_t o = 0; o < x->nout; o++) {
        x->lock[o] = -1;
        x->cand[o] = -1;
        x->head_ready[o] = UINT64_MAX;
    }
    x->grant_left = n->grant_cycles;
}

/* Both crossbars' arrays, in each pass of the slab. */
static void icnt_carve(icnt *n, uint32_t n_sm, uint32_t n_sub_total)
{
    if (n->nsubnets == 2) {
        xbar_carve(&n->x[ICNT_REQ], n_sm, n_sub_total, n, &n->slab);
        xbar_carve(&n->x[ICNT_REP], n_sub_total, n_sm, n, &n->slab);
    } else {
        xbar_carve(&n->x[0], n_sm + n_sub_total, n_sm + n_sub_total, n, &n->slab);
    }
}

static uint32_t flits_div(const icnt *n, unsigned bytes)
{
    uint32_t f = (bytes + n->flit_size - 1) / n->flit_size;
    return f ? f : 1;
}

/* Every packet is a header or a header and a sector: both counts are known at build. */
static uint32_t flits_of(const icnt *n, unsigned bytes)
{
    return bytes == MEM_HEADER_BYTES ? n->flits_hdr
           : bytes == MEM_HEADER_BYTES + MEM_SECTOR ? n->max_flits
                                                    : flits_div(n, bytes);
}

icnt *icnt_new(const knobs *k, uint32_t n_sm, uint32_t n_sub_total)
{
    icnt *n = base_calloc_lines(sizeof *n); /* its crossbars start on host lines */
    n->n_sm = n_sm;
    n->n_sub = n_sub_total;
    n->nsubnets = k->icnt_subnets >= 2 ? 2 : 1;
    n->flit_size = (uint32_t)k->icnt_flit_size;
    n->in_limit = (uint32_t)k->icnt_in_buffer;
    n->out_limit = (uint32_t)k->icnt_out_buffer;
    n->latency = (uint32_t)k->icnt_latency;
    n->grant_cycles = (uint32_t)k->icnt_grant_cycles;
    n->islip = k->icnt_arbiter == 1;
    n->max_flits = flits_div(n, MEM_HEADER_BYTES + MEM_SECTOR);
    n->flits_hdr = flits_div(n, MEM_HEADER_BYTES);
    icnt_carve(n, n_sm, n_sub_total);
    base_slab_alloc(&n->slab);
    icnt_carve(n, n_sm, n_sub_total);
    for (uint32_t s = 0; s < n->nsubnets; s++)
        xbar_init(&n->x[s], n);
    stat_block_init(&n->st, icnt_stats_set());
    stat_block_init(&n->sum, icnt_stats_set());
    for (uint32_t s = 0; s < n->nsubnets; s++)
        stat_block_init(&n->x[s].st, icnt_stats_set());
    return n;
}

void icnt_free(icnt *n)
{
    if (!n)
        return;
    for (uint32_t s = 0; s < n->nsubnets; s++) {
        xbar *x = &n->x[s];
        for (uint32_t i = 0; i < x->nin; i++)
            ring_free(&x->in[i]);
        for (uint32_t o = 0; o < x->nout; o++)
            ring_free(&x->out[o]);
        stat_block_free(&x->st);
    }
    base_slab_free(&n->slab);
    stat_block_free(&n->st);
    stat_block_free(&n->sum);
    free(n);
}

/* With one subnet, SMs are ports 0..n_sm-1 and sub-partitions follow (GPGPU-Sim's node map). */
static xbar *xb(const icnt *n, int subnet) { return (xbar *)&n->x[n->nsubnets == 2 ? subnet : 0]; }

static uint32_t in_port(const icnt *n, int subnet, uint32_t src)
{
    uint32_t lim = subnet == ICNT_REQ ? n->n_sm : n->n_sub;
    if (src >= lim)
        base_panic("icnt: source %u out of range (subnet %d, %u nodes)", src, subnet, lim);
    return n->nsubnets == 2 || subnet == ICNT_REQ ? src : n->n_sm + src;
}

static uint32_t out_port(const icnt *n, int subnet, uint32_t dst)
{
    uint32_t lim = subnet == ICNT_REQ ? n->n_sub : n->n_sm;
    if (dst >= lim)
        base_panic("icnt: destination %u out of range (subnet %d, %u nodes)", dst, subnet, lim);
    return n->nsubnets == 2 || subnet == ICNT_REP ? dst : n->n_sm + dst;
}

static int room(const ring *q, uint32_t flits, uint32_t limit)
{
    if (q->n >= q->max)
        return 0;
    return q->flits == 0 || q->flits + flits <= limit;
}

int icnt_can_push(const icnt *n, int subnet, uint32_t src, unsigned bytes)
{
    const xbar *x = xb(n, subnet);
    return room(&x->in[in_port(n, subnet, src)], flits_of(n, bytes), n->in_limit);
}

/* The packet of r built in input i's ring slot (the ring has room). */
static void push_at(icnt *n, xbar *x, int subnet, uint32_t i, uint32_t dst, const mem_req *r,
                    uint32_t flits)
{
    ring *q = &x->in[i];
    uint32_t o = out_port(n, subnet, dst);
    if (!q->n)
        x->head_dst[i] = o;
    pkt *p = ring_push(q, NULL);
    *p = (pkt){*r, x->now, UINT64_MAX, o, flits, subnet};
    p->r.loc = subnet == ICNT_REQ ? MEM_AT_ICNT_REQ : MEM_AT_ICNT_REP;
    x->filled[i / 64] |= 1ull << (i % 64);
    q->flits += flits;
    x->npkts++;
    stat_inc(&x->st, subnet == ICNT_REQ ? IS_req_packets : IS_rep_packets, 1);
    stat_inc(&x->st, subnet == ICNT_REQ ? IS_req_flits : IS_rep_flits, flits);
}

void icnt_push(icnt *n, int subnet, uint32_t src, uint32_t dst, const mem_req *r, unsigned bytes)
{
    if (!icnt_try_push(n, subnet, src, dst, r, bytes))
        base_panic("icnt_push: input %u of subnet %d is full (call icnt_can_push first)", src,
                   subnet);
}

int icnt_try_push(icnt *n, int subnet, uint32_t src, uint32_t dst, const mem_req *r,
                  unsigned bytes)
{
    xbar *x = xb(n, subnet);
    uint32_t i = in_port(n, subnet, src), flits = flits_of(n, bytes);
    if (!room(&x->in[i], flits, n->in_limit))
        return 0;
    push_at(n, x, subnet, i, dst, r, flits);
    return 1;
}

/* Input i sends one flit of its head packet; the last one delivers it. */
static void send_flit(icnt *n, xbar *x, uint32_t i)
{
    ring *q = &x->in[i];
    pkt *p = ring_at(q, 0);
    x->sent[i]++;
    q->flits--;
    x->in_busy[i] = 1;
    x->out_busy[p->dst] = 1;
    if (x->sent[i] < p->flits)
        return;
    ring *o = &x->out[p->dst];
    pkt *d = ring_at(o, o->n - 1); /* the packet holding an output is its newest */
    d->t_ready = x->now + 1 + n->latency;
    if (o->n == 1)
        x->head_ready[p->dst] = d->t_ready;
    int req = p->subnet == ICNT_REQ;
    stat_inc(&x->st, req ? IS_req_delivered : IS_rep_delivered, 1);
    stat_inc(&x->st, req ? IS_req_latency_sum : IS_rep_latency_sum, d->t_ready - p->t_push);
    x->lock[p->dst] = -1;
    x->sent[i] = 0;
    ring_drop_head(q);
    x->head_dst[i] = NO_DST;
    if (!q->n)
        x->filled[i / 64] &= ~(1ull << (i % 64));
    else
        __builtin_prefetch(ring_at(q, 0));
}

/* Input i's head packet takes its output: reserve the whole packet there, send a flit. */
static void start(icnt *n, xbar *x, uint32_t i)
{
    const pkt *p = ring_at(&x->in[i], 0);
    ring *o = &x->out[p->dst];
    ring_push(o, p);
    o->flits += p->flits;
    x->held[p->dst / 64] |= 1ull << (p->dst % 64);
    x->lock[p->dst] = (int32_t)i;
    send_flit(n, x, i);
}

/* 0: output free this cycle; counts the reason otherwise. */
static int blocked(icnt *n, xbar *x, uint32_t o, uint32_t flits)
{
    if (x->lock[o] >= 0 || x->out_busy[o]) {
        stat_inc(&x->st, IS_conflicts, 1);
        return 1;
    }
    if (!room(&x->out[o], flits, n->out_limit)) {
        stat_inc(&x->st, IS_out_full, 1);
        return 1;
    }
    return 0;
}

static void arbitrate_rr(icnt *n, xbar *x)
{
    for (uint32_t k = 0; k < x->nin; k++) {
        uint32_t i = (x->rr + k) % x->nin;
        if (x->in_busy[i] || !x->in[i].n)
            continue;
        const pkt *p = ring_at(&x->in[i], 0);
        if (!blocked(n, x, p->dst, p->flits))
            start(n, x, i);
    }
    x->rr = (x->rr + 1) % x->nin;
}

/* cand[] is -1 for every output between cycles: the grant resets the outputs asked for. */
static void arbitrate_islip(icnt *n, xbar *x)
{
    /* request: each idle input asks for its head's output; grant: nearest at/after pointer */
    for (uint32_t i = base_next_bit(x->filled, 0, x->nin); i < x->nin;
         i = base_next_bit(x->filled, i + 1, x->nin)) {
        if (x->in_busy[i])
            continue;
        uint32_t o = x->head_dst[i];
        if (o == NO_DST)
            o = x->head_dst[i] = ring_at(&x->in[i], 0)->dst;
        if (x->lock[o] >= 0 || x->out_busy[o]) {
            stat_inc(&x->st, IS_conflicts, 1);
            continue;
        }
        uint32_t d = i >= x->gptr[o] ? i - x->gptr[o] : i + x->nin - x->gptr[o]; /* no division */
        if (x->cand[o] >= 0) {
            stat_inc(&x->st, IS_conflicts, 1);
            if (d >= x->cand_dist[o])
                continue;
        }
        x->cand[o] = (int32_t)i;
        x->cand_dist[o] = d;
        x->asked[o / 64] |= 1ull << (o % 64);
    }
    int move = x->grant_left == 1;
    for (uint32_t w = 0; w < (x->nout + 63) / 64; w++) {
        for (uint64_t bits = x->asked[w]; bits; bits &= bits - 1) {
            uint32_t o = w * 64 + (uint32_t)__builtin_ctzll(bits), in = (uint32_t)x->cand[o];
            x->cand[o] = -1;
            const pkt *p = ring_at(&x->in[in], 0);
            if (!room(&x->out[o], p->flits, n->out_limit)) {
                stat_inc(&x->st, IS_out_full, 1);
                continue;
            }
            start(n, x, in);
            if (move)
                x->gptr[o] = in + 1 < x->nin ? in + 1 : 0;
        }
        x->asked[w] = 0;
    }
    x->grant_left = move ? n->grant_cycles : x->grant_left - 1;
}

static uint32_t filled_inputs(const xbar *x)
{
    uint32_t k = 0;
    for (uint32_t w = 0; w < (x->nin + 63) / 64; w++)
        k += base_popcount64(x->filled[w]);
    return k;
}

static void xbar_cycle(icnt *n, xbar *x)
{
    if (!x->npkts)
        return;
    memset(x->in_busy, 0, x->nin);
    memset(x->out_busy, 0, x->nout);
    /* an empty input counts as full only when a packet exceeds the whole buffer */
    if (n->max_flits > n->in_limit)
        stat_inc(&x->st, IS_in_full, x->nin - filled_inputs(x));
    for (uint32_t i = base_next_bit(x->filled, 0, x->nin); i < x->nin;
         i = base_next_bit(x->filled, i + 1, x->nin)) {
        if (x->sent[i])
            send_flit(n, x, i); /* a started packet keeps its output */
        if (x->in[i].flits + n->max_flits > n->in_limit)
            stat_inc(&x->st, IS_in_full, 1);
    }
    if (n->islip)
        arbitrate_islip(n, x);
    else
        arbitrate_rr(n, x);
}

uint32_t icnt_cycle_begin(icnt *n)
{
    stat_inc(&n->st, IS_cycles, 1);
    if (icnt_busy(n))
        stat_inc(&n->st, IS_active_cycles, 1);
    return n->nsubnets;
}

void icnt_subnet_cycle(icnt *n, uint32_t s) { xbar_cycle(n, &n->x[s]); }

void icnt_cycle_end(icnt *n)
{
    for (uint32_t s = 0; s < n->nsubnets; s++)
        n->x[s].now++;
}

int icnt_subnet_step(icnt *n, uint32_t s)
{
    xbar *x = &n->x[s];
    int held = x->npkts != 0;
    xbar_cycle(n, x);
    x->now++;
    return held;
}

void icnt_count_cycles(icnt *n, uint64_t cycles, uint64_t active)
{
    stat_inc(&n->st, IS_cycles, cycles);
    stat_inc(&n->st, IS_active_cycles, active);
}

uint32_t icnt_subnets(const icnt *n) { return n->nsubnets; }

void icnt_prefetch(const icnt *n, int subnet)
{
    const xbar *x = xb(n, subnet);
    for (uint32_t i = base_next_bit(x->filled, 0, x->nin); i < x->nin;
         i = base_next_bit(x->filled, i + 1, x->nin))
        __builtin_prefetch(ring_at(&x->in[i], 0));
    for (uint32_t o = base_next_bit(x->held, 0, x->nout); o < x->nout;
         o = base_next_bit(x->held, o + 1, x->nout))
        __builtin_prefetch(ring_at(&x->out[o], 0));
}

void icnt_cycle(icnt *n)
{
    uint32_t ns = icnt_cycle_begin(n);
    for (uint32_t s = 0; s < ns; s++)
        icnt_subnet_cycle(n, s);
    icnt_cycle_end(n);
}

int icnt_subnet_busy(const icnt *n, int subnet) { return xb(n, subnet)->npkts != 0; }

uint32_t icnt_next_held(const icnt *n, int subnet, uint32_t dst)
{
    const xbar *x = xb(n, subnet);
    uint32_t lim = subnet == ICNT_REQ ? n->n_sub : n->n_sm;
    uint32_t base = out_port(n, subnet, 0);
    return base_next_bit(x->held, base + dst, base + lim) - base;
}

void icnt_subnet_skip(icnt *n, uint32_t s, uint64_t cycles) { n->x[s].now += cycles; }

void icnt_skip(icnt *n, uint64_t cycles)
{
    stat_inc(&n->st, IS_cycles, cycles);
    for (uint32_t s = 0; s < n->nsubnets; s++)
        n->x[s].now += cycles;
}

const mem_req *icnt_peek(const icnt *n, int subnet, uint32_t dst)
{
    const xbar *x = xb(n, subnet);
    uint32_t port = out_port(n, subnet, dst);
    if (x->head_ready[port] > x->now)
        return NULL;
    return &ring_at(&x->out[port], 0)->r;
}

mem_req icnt_pop(icnt *n, int subnet, uint32_t dst)
{
    mem_req r;
    if (!icnt_try_pop(n, subnet, dst, &r))
        base_panic("icnt_pop: nothing ready at output %u of subnet %d", dst, subnet);
    return r;
}

int icnt_try_pop(icnt *n, int subnet, uint32_t dst, mem_req *r)
{
    xbar *x = xb(n, subnet);
    uint32_t port = out_port(n, subnet, dst);
    ring *o = &x->out[port];
    if (x->head_ready[port] > x->now)
        return 0;
    const pkt *p = ring_at(o, 0);
    *r = p->r;
    o->flits -= p->flits;
    ring_drop_head(o);
    x->npkts--;
    x->head_ready[port] = o->n ? ring_at(o, 0)->t_ready : UINT64_MAX;
    if (!o->n)
        x->held[port / 64] &= ~(1ull << (port % 64));
    else if (o->n > 1) /* the next pop reads the packet after its own at once (head_ready) */
        __builtin_prefetch(ring_at(o, 1));
    return 1;
}

int icnt_busy(const icnt *n)
{
    for (uint32_t s = 0; s < n->nsubnets; s++)
        if (n->x[s].npkts)
            return 1;
    return 0;
}

void icnt_foreach(const icnt *n, void (*fn)(void *ctx, int subnet, const mem_req *r), void *ctx)
{
    for (uint32_t s = 0; s < n->nsubnets; s++) {
        const xbar *x = &n->x[s];
        for (uint32_t i = 0; i < x->nin; i++)
            for (uint32_t k = 0; k < x->in[i].n; k++) {
                const pkt *p = ring_at(&x->in[i], k);
                if (k > 0 || x->sent[i] == 0) /* a started packet is listed at its output */
                    fn(ctx, p->subnet, &p->r);
            }
        for (uint32_t o = 0; o < x->nout; o++)
            for (uint32_t k = 0; k < x->out[o].n; k++) {
                const pkt *p = ring_at(&x->out[o], k);
                fn(ctx, p->subnet, &p->r);
            }
    }
}

uint32_t icnt_in_flits(const icnt *n, int subnet, uint32_t src)
{
    return xb(n, subnet)->in[in_port(n, subnet, src)].flits;
}

uint32_t icnt_out_flits(const icnt *n, int subnet, uint32_t dst)
{
    return xb(n, subnet)->out[out_port(n, subnet, dst)].flits;
}

stat_block *icnt_stats(icnt *n)
{
    stat_block_zero(&n->sum);
    stat_block_add(&n->sum, &n->st);
    for (uint32_t s = 0; s < n->nsubnets; s++)
        stat_block_add(&n->sum, &n->x[s].st);
    return &n->sum;
}
