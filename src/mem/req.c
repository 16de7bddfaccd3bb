#include "req.h"
#include "../base/base.h"
#include <stdlib.h>

const char *const mem_loc_names[MEM_NLOC] = {
    "sm", "l1d miss queue", "interconnect (request)", "rop", "l2 input queue", "l2 mshr",
    "dram latency queue", "dram scheduler queue", "dram return queue", "l2 output queue",
    "interconnect (reply)", "sm reply queue",
};

void mem_q_init(mem_q *q, uint32_t cap)
{
    q->cap = cap ? cap : 1;
    q->head = q->n = 0;
    q->v = base_calloc(q->cap, sizeof *q->v);
}

void mem_q_carve(mem_q *q, uint32_t cap, base_slab *s)
{
    q->cap = cap ? cap : 1;
    q->head = q->n = 0;
    q->v = base_slab_take(s, q->cap, sizeof *q->v);
}

void mem_q_free(mem_q *q)
{
    free(q->v);
    q->v = NULL;
    q->cap = q->n = q->head = 0;
}

void mem_q_push(mem_q *q, const mem_req *r)
{
    if (q->n >= q->cap)
        base_panic("mem_q_push: queue full (cap %u)", q->cap);
    q->v[(q->head + q->n) % q->cap] = *r;
    q->n++;
}

mem_req mem_q_pop(mem_q *q)
{
    if (!q->n)
        base_panic("mem_q_pop: queue empty");
    mem_req r = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return r;
}
