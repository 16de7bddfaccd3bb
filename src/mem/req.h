/* mem/req: the memory request every unit below the SM passes around.
 *
 * A request is one 32-byte sector (Accel-Sim counts L1D, L2 and DRAM traffic per sector, so
 * lockstep splits every warp access into sectors at the coalescer). It travels BY VALUE
 * through ring queues (mem_q) owned by the sender, so nothing on the memory path allocates
 * per request and no pointer is shared between an SM thread and the serial phases. */
#ifndef LOCKSTEP_MEM_REQ_H
#define LOCKSTEP_MEM_REQ_H
#include "../base/base.h"
#include <stdint.h>

#define MEM_SECTOR 32u
#define MEM_LINE 128u

typedef enum mem_op {
    MEM_RD,     /* load: a reply with data comes back */
    MEM_WR,     /* store: a write acknowledgement comes back (unless MEM_F_NO_REPLY) */
    MEM_ATOM,   /* atomic, performed at the L2: reply with data */
} mem_op;

/* Where a request sits (for the hang diagnosis; updated by each unit as it moves it). */
typedef enum mem_loc {
    MEM_AT_SM, MEM_AT_L1_MISSQ, MEM_AT_ICNT_REQ, MEM_AT_ROP, MEM_AT_L2_IN, MEM_AT_L2_MSHR,
    MEM_AT_DRAM_LATQ, MEM_AT_DRAM_Q, MEM_AT_DRAM_RET, MEM_AT_L2_OUT, MEM_AT_ICNT_REP,
    MEM_AT_SM_REPLY, MEM_NLOC
} mem_loc;
extern const char *const mem_loc_names[MEM_NLOC];

#define MEM_F_WRITEBACK 1u  /* an eviction from a write-back cache: no reply to an SM */
#define MEM_F_NO_REPLY 2u   /* the sender does not wait for this request */
#define MEM_F_BYPASS_L1 4u  /* the access did not go through L1D (skip or .STRONG.GPU) */
#define MEM_F_L2_HIT 8u     /* set on the reply path when the L2 hit (stats) */

typedef struct mem_req {
    uint64_t addr;      /* byte address of the sector (32-byte aligned) */
    uint64_t t_start;   /* core cycle the SM created it (memory latency statistics) */
    uint32_t part;      /* global sub-partition it goes to (filled by the SM side) */
    uint16_t sm;        /* source SM (reply destination) */
    uint16_t slot;      /* SM-private tag: which pending load/store waits for it */
    uint8_t op;         /* mem_op */
    uint8_t flags;      /* MEM_F_* */
    uint8_t loc;        /* mem_loc */
    uint8_t space;      /* trace_space of the access (global, local, const) */
    uint16_t hint[2];   /* fetches: the L1D's [0] and the L2's [1] cache_fill hint (0: none);
                         * only time depends on them */
} mem_req;

/* A cache_result hint in a request's 16 bits (0, no hint, where it does not fit). */
static inline uint16_t mem_hint16(uint32_t hint) { return hint <= 0xFFFFu ? (uint16_t)hint : 0; }

/* Bytes a request occupies on the interconnect: requests carrying data (writes, atomics on
 * the way down; read and atomic replies on the way up) carry a sector plus a header; others
 * carry only the header. */
#define MEM_HEADER_BYTES 8u
static inline unsigned mem_req_bytes(const mem_req *r, int reply)
{
    int data = reply ? (r->op != MEM_WR) : (r->op != MEM_RD);
    return MEM_HEADER_BYTES + (data ? MEM_SECTOR : 0u);
}

/* A bounded FIFO of requests, by value. cap is fixed at init; push on a full queue is a
 * simulator bug (callers check mem_q_full first, which is what makes back-pressure real). */
typedef struct mem_q {
    mem_req *v;
    uint32_t cap, head, n;
} mem_q;
void mem_q_init(mem_q *q, uint32_t cap);
void mem_q_free(mem_q *q);
/* mem_q_init with the ring carved from a base_slab, run in both of its passes; the
 * ring goes with the slab, never through mem_q_free. */
void mem_q_carve(mem_q *q, uint32_t cap, base_slab *s);
static inline int mem_q_full(const mem_q *q) { return q->n >= q->cap; }
static inline int mem_q_empty(const mem_q *q) { return q->n == 0; }
static inline uint32_t mem_q_len(const mem_q *q) { return q->n; }
/* Slot i of a ring of cap slots starting at head (head < cap, i <= cap): the queues sit
 * on every hop of every request, and a subtraction is cheaper than a division. */
static inline uint32_t mem_ring_slot(uint32_t head, uint32_t i, uint32_t cap)
{
    uint32_t k = head + i;
    return k >= cap ? k - cap : k;
}
/* Push on a full queue and pop on an empty one are simulator bugs: they panic. */
_Noreturn void mem_q_misuse(const mem_q *q, const char *what);
static inline void mem_q_push(mem_q *q, const mem_req *r)
{
    if (q->n >= q->cap)
        mem_q_misuse(q, "push on a full queue");
    q->v[mem_ring_slot(q->head, q->n, q->cap)] = *r;
    q->n++;
}
/* A push whose request the caller then writes in place: a request put together field by
 * field in a local and then copied would be read back in 16-byte pieces over its narrow
 * stores, which the host cannot forward (the copy waits for the stores to retire). */
static inline mem_req *mem_q_push_slot(mem_q *q)
{
    if (q->n >= q->cap)
        mem_q_misuse(q, "push on a full queue");
    return &q->v[mem_ring_slot(q->head, q->n++, q->cap)];
}
/* A push of a copy of r, returned for in-place edits (mem_q_push_slot's reason). */
static inline mem_req *mem_q_push_copy(mem_q *q, const mem_req *r)
{
    mem_req *x = mem_q_push_slot(q);
    *x = *r;
    return x;
}
static inline mem_req *mem_q_front(mem_q *q) { return &q->v[q->head]; }
static inline mem_req *mem_q_at(mem_q *q, uint32_t i)
{
    return &q->v[mem_ring_slot(q->head, i, q->cap)];
}
/* The head dropped (after a copy of it was taken from mem_q_front). */
static inline void mem_q_drop(mem_q *q)
{
    if (!q->n)
        mem_q_misuse(q, "pop on an empty queue");
    /* an emptied ring starts over at slot 0: a queue that drains keeps reusing its first
     * host cache lines instead of walking its whole capacity (a cold line every other push) */
    q->head = --q->n ? mem_ring_slot(q->head, 1, q->cap) : 0;
    /* the next pop is in a later cycle, by when the slot written long ago is at hand */
    __builtin_prefetch(&q->v[q->head]);
}
static inline mem_req mem_q_pop(mem_q *q)
{
    if (!q->n)
        mem_q_misuse(q, "pop on an empty queue");
    mem_req r = q->v[q->head];
    mem_q_drop(q);
    return r;
}

#endif
