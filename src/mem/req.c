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

void mem_q_misuse(const mem_q *q, const char *what)
{
    base_panic("mem_q: %s (cap %u)", what, q->cap);
}
