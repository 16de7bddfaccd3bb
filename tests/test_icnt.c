/* icnt: flit timing, serialization at an output, round-robin fairness of both arbiters,
 * buffer limits, one shared subnet, determinism. */
#include "test.h"

#include "icnt/icnt.h"
#include "knob/knob.h"

/* Defaults with small packets counted in 8-byte flits: a write request (40 bytes) is 5 flits,
 * a read request (8 bytes) 1 flit. */
static knobs base_knobs(int arbiter)
{
    knob_cfg c;
    knob_init(&c);
    knobs k = c.v;
    knob_free(&c);
    k.icnt_flit_size = 8;
    k.icnt_arbiter = arbiter;
    k.icnt_latency = 0;
    return k;
}

static mem_req req(int op, uint16_t sm, uint16_t slot)
{
    mem_req r = {0};
    r.op = (uint8_t)op;
    r.sm = sm;
    r.slot = slot;
    r.addr = 0x1000u + 32u * slot;
    return r;
}

static void push(icnt *n, int subnet, uint32_t src, uint32_t dst, const mem_req *r)
{
    unsigned b = mem_req_bytes(r, subnet == ICNT_REP);
    CHECK(icnt_can_push(n, subnet, src, b));
    icnt_push(n, subnet, src, dst, r, b);
}

/* Cycles until dst has a packet ready (limit: -1). */
static int cycles_until(icnt *n, int subnet, uint32_t dst, int limit)
{
    for (int c = 0; c <= limit; c++) {
        if (icnt_peek(n, subnet, dst))
            return c;
        icnt_cycle(n);
    }
    return -1;
}

TEST(icnt_packet_of_k_flits_takes_k_cycles)
{
    for (int arb = 0; arb < 2; arb++) {
        knobs k = base_knobs(arb);
        icnt *n = icnt_new(&k, 4, 8);
        mem_req w = req(MEM_WR, 1, 7);
        push(n, ICNT_REQ, 1, 3, &w);
        CHECK_EQ(icnt_in_flits(n, ICNT_REQ, 1), 5);
        CHECK_EQ(cycles_until(n, ICNT_REQ, 3, 100), 5);
        CHECK_EQ(icnt_out_flits(n, ICNT_REQ, 3), 5);
        mem_req got = icnt_pop(n, ICNT_REQ, 3);
        CHECK_EQ(got.slot, 7);
        CHECK_EQ(got.loc, MEM_AT_ICNT_REQ);
        CHECK(!icnt_busy(n));
        /* a read request is one flit; a read reply (40 bytes) five */
        mem_req r = req(MEM_RD, 2, 1);
        push(n, ICNT_REQ, 2, 0, &r);
        CHECK_EQ(cycles_until(n, ICNT_REQ, 0, 100), 1);
        icnt_pop(n, ICNT_REQ, 0);
        push(n, ICNT_REP, 0, 2, &r);
        CHECK_EQ(cycles_until(n, ICNT_REP, 2, 100), 5);
        stat_block *st = icnt_stats(n);
        CHECK_EQ(stat_get(st, "req_packets"), 2);
        CHECK_EQ(stat_get(st, "req_flits"), 6);
        CHECK_EQ(stat_get(st, "rep_flits"), 5);
        CHECK_EQ(stat_get(st, "req_latency_sum"), 6);
        CHECK_EQ(stat_get(st, "rep_latency_sum"), 5);
        icnt_free(n);
    }
}

TEST(icnt_latency_adds_cycles)
{
    knobs k = base_knobs(1);
    k.icnt_latency = 3;
    icnt *n = icnt_new(&k, 2, 2);
    mem_req w = req(MEM_WR, 0, 0);
    push(n, ICNT_REQ, 0, 1, &w);
    CHECK_EQ(cycles_until(n, ICNT_REQ, 1, 100), 8);
    CHECK_EQ(stat_get(icnt_stats(n), "req_latency_sum"), 8);
    icnt_free(n);
}

TEST(icnt_two_inputs_to_one_output_serialize)
{
    for (int arb = 0; arb < 2; arb++) {
        knobs k = base_knobs(arb);
        icnt *n = icnt_new(&k, 2, 2);
        mem_req a = req(MEM_WR, 0, 1), b = req(MEM_WR, 1, 2);
        push(n, ICNT_REQ, 0, 0, &a);
        push(n, ICNT_REQ, 1, 0, &b);
        CHECK_EQ(cycles_until(n, ICNT_REQ, 0, 100), 5);
        mem_req first = icnt_pop(n, ICNT_REQ, 0);
        CHECK_EQ(first.sm, 0); /* both arbiters start with input 0 */
        /* the second packet waited for the whole first one: done at cycle 10 */
        CHECK_EQ(cycles_until(n, ICNT_REQ, 0, 100), 5);
        CHECK_EQ(icnt_pop(n, ICNT_REQ, 0).sm, 1);
        CHECK(stat_get(icnt_stats(n), "conflicts") > 0);
        icnt_free(n);
    }
}

TEST(icnt_different_outputs_in_parallel)
{
    knobs k = base_knobs(1);
    icnt *n = icnt_new(&k, 2, 2);
    mem_req a = req(MEM_WR, 0, 1), b = req(MEM_WR, 1, 2);
    push(n, ICNT_REQ, 0, 0, &a);
    push(n, ICNT_REQ, 1, 1, &b);
    for (int c = 0; c < 5; c++)
        icnt_cycle(n);
    CHECK(icnt_peek(n, ICNT_REQ, 0) != NULL);
    CHECK(icnt_peek(n, ICNT_REQ, 1) != NULL);
    icnt_free(n);
}

/* Four inputs keep one output busy with 1-flit packets; each gets a quarter. */
TEST(icnt_round_robin_is_fair)
{
    for (int arb = 0; arb < 2; arb++) {
        knobs k = base_knobs(arb);
        icnt *n = icnt_new(&k, 4, 1);
        int got[4] = {0}, last = -1, repeats = 0;
        for (int c = 0; c < 400; c++) {
            for (uint16_t s = 0; s < 4; s++) {
                mem_req r = req(MEM_RD, s, (uint16_t)c);
                if (icnt_in_flits(n, ICNT_REQ, s) < 2)
                    push(n, ICNT_REQ, s, 0, &r);
            }
            icnt_cycle(n);
            if (icnt_peek(n, ICNT_REQ, 0)) {
                mem_req r = icnt_pop(n, ICNT_REQ, 0);
                got[r.sm]++;
                repeats += r.sm == last;
                last = r.sm;
            }
        }
        for (int s = 0; s < 4; s++)
            CHECK_EQ(got[s], 100);
        CHECK_EQ(repeats, 0);
        icnt_free(n);
    }
}

/* GPGPU-Sim's iSLIP search starts after the pointer and can serve input 0 forever when inputs
 * 0 and 1 of three compete; here they alternate. */
TEST(icnt_islip_does_not_starve_the_pointed_input)
{
    knobs k = base_knobs(1);
    icnt *n = icnt_new(&k, 3, 1);
    int got[3] = {0};
    for (int c = 0; c < 100; c++) {
        for (uint16_t s = 0; s < 2; s++) {
            mem_req r = req(MEM_RD, s, 0);
            if (icnt_in_flits(n, ICNT_REQ, s) < 2)
                push(n, ICNT_REQ, s, 0, &r);
        }
        icnt_cycle(n);
        if (icnt_peek(n, ICNT_REQ, 0))
            got[icnt_pop(n, ICNT_REQ, 0).sm]++;
    }
    CHECK_EQ(got[0], 50);
    CHECK_EQ(got[1], 50);
    icnt_free(n);
}

TEST(icnt_buffer_limits)
{
    knobs k = base_knobs(1);
    k.icnt_in_buffer = 10;
    k.icnt_out_buffer = 5;
    icnt *n = icnt_new(&k, 3, 1);
    mem_req w = req(MEM_WR, 0, 0);
    unsigned b = mem_req_bytes(&w, 0);
    push(n, ICNT_REQ, 0, 0, &w);
    push(n, ICNT_REQ, 0, 0, &w);
    CHECK(!icnt_can_push(n, ICNT_REQ, 0, b)); /* 10 flits held */
    mem_req w1 = req(MEM_WR, 1, 1), w2 = req(MEM_WR, 2, 2);
    push(n, ICNT_REQ, 1, 0, &w1);
    push(n, ICNT_REQ, 2, 0, &w2);
    for (int c = 0; c < 50; c++) {
        icnt_cycle(n);
        CHECK(icnt_out_flits(n, ICNT_REQ, 0) <= 5);
        CHECK(icnt_in_flits(n, ICNT_REQ, 0) <= 10);
    }
    /* one packet fills the output; the rest wait until it is popped */
    CHECK_EQ(icnt_out_flits(n, ICNT_REQ, 0), 5);
    CHECK(icnt_can_push(n, ICNT_REQ, 0, b)); /* input 0 drained one packet */
    CHECK(stat_get(icnt_stats(n), "out_full") > 0);
    int delivered = 0;
    for (int c = 0; c < 100 && icnt_busy(n); c++) {
        if (icnt_peek(n, ICNT_REQ, 0)) {
            icnt_pop(n, ICNT_REQ, 0);
            delivered++;
        }
        icnt_cycle(n);
    }
    CHECK_EQ(delivered, 4);
    icnt_free(n);
}

/* A ring's array starts small and doubles while it fills: growing while its packets wrap
 * around the array keeps them in order, and the buffer's flit limit still binds. */
TEST(icnt_rings_grow_in_order_up_to_the_buffer)
{
    knobs k = base_knobs(0);
    k.icnt_in_buffer = 40; /* 40 one-flit reads: past the first array of 8, twice over */
    k.icnt_out_buffer = 40;
    icnt *n = icnt_new(&k, 1, 1);
    uint16_t pushed = 0, next = 0;
    for (; pushed < 6; pushed++) {
        mem_req r = req(MEM_RD, 0, pushed);
        push(n, ICNT_REQ, 0, 0, &r);
    }
    for (int c = 0; c < 100 && next < 3; c++) { /* the head moves: later pushes wrap */
        icnt_cycle(n);
        if (icnt_peek(n, ICNT_REQ, 0))
            CHECK_EQ(icnt_pop(n, ICNT_REQ, 0).slot, next++);
    }
    CHECK_EQ(next, 3);
    for (;; pushed++) {
        mem_req r = req(MEM_RD, 0, pushed);
        unsigned b = mem_req_bytes(&r, 0);
        if (!icnt_can_push(n, ICNT_REQ, 0, b))
            break;
        icnt_push(n, ICNT_REQ, 0, 0, &r, b);
    }
    CHECK_EQ(icnt_in_flits(n, ICNT_REQ, 0), 40);
    for (int c = 0; c < 1000 && icnt_busy(n); c++) {
        icnt_cycle(n);
        if (icnt_peek(n, ICNT_REQ, 0))
            CHECK_EQ(icnt_pop(n, ICNT_REQ, 0).slot, next++);
    }
    CHECK_EQ(next, pushed);
    CHECK(!icnt_busy(n));
    icnt_free(n);
}

TEST(icnt_one_subnet_carries_both_directions)
{
    knobs k = base_knobs(1);
    k.icnt_subnets = 1;
    icnt *n = icnt_new(&k, 2, 3);
    mem_req r = req(MEM_RD, 1, 5);
    push(n, ICNT_REQ, 1, 2, &r);
    push(n, ICNT_REP, 2, 1, &r);
    CHECK_EQ(cycles_until(n, ICNT_REQ, 2, 100), 1);
    CHECK_EQ(cycles_until(n, ICNT_REP, 1, 100), 4); /* 5-flit reply, one cycle gone */
    CHECK_EQ(icnt_pop(n, ICNT_REP, 1).loc, MEM_AT_ICNT_REP);
    CHECK_EQ(icnt_pop(n, ICNT_REQ, 2).slot, 5);
    CHECK(!icnt_busy(n));
    icnt_free(n);
}

static void count_pkt(void *ctx, int subnet, const mem_req *r)
{
    (void)r;
    ((int *)ctx)[subnet]++;
}

/* A fixed pseudo-random traffic pattern; returns a digest of every delivery. */
static uint64_t traffic_digest(int arb)
{
    knobs k = base_knobs(arb);
    k.icnt_in_buffer = 16;
    k.icnt_out_buffer = 16;
    icnt *n = icnt_new(&k, 6, 4);
    uint64_t h = 1469598103934665603ull, x = 12345;
    int seen[2] = {0, 0};
    for (int c = 0; c < 2000; c++) {
        for (uint16_t s = 0; s < 6; s++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            mem_req r = req((x >> 40) & 1 ? MEM_WR : MEM_RD, s, (uint16_t)c);
            unsigned b = mem_req_bytes(&r, 0);
            if ((x >> 33) % 3 == 0 && icnt_can_push(n, ICNT_REQ, s, b))
                icnt_push(n, ICNT_REQ, s, (uint32_t)((x >> 50) % 4), &r, b);
        }
        if (c == 1000)
            icnt_foreach(n, count_pkt, seen);
        icnt_cycle(n);
        for (uint32_t d = 0; d < 4; d++)
            if ((c + d) % 2 && icnt_peek(n, ICNT_REQ, d)) {
                mem_req r = icnt_pop(n, ICNT_REQ, d);
                h = (h ^ ((uint64_t)c << 32 | (uint64_t)d << 24 | (uint64_t)r.sm << 16 | r.slot)) *
                    1099511628211ull;
            }
    }
    CHECK(seen[ICNT_REQ] > 0);
    CHECK_EQ(seen[ICNT_REP], 0);
    icnt_free(n);
    return h;
}

TEST(icnt_deterministic)
{
    for (int arb = 0; arb < 2; arb++)
        CHECK(traffic_digest(arb) == traffic_digest(arb));
    CHECK(traffic_digest(0) != traffic_digest(1));
}

/* icnt_next_held names exactly the destinations whose output holds a packet (arriving or
 * whole), in order, for split and shared subnets; a destination leaves once popped empty. */
TEST(icnt_next_held_lists_occupied_outputs)
{
    for (int subnets = 1; subnets <= 2; subnets++) {
        knobs k = base_knobs(1);
        k.icnt_subnets = subnets;
        icnt *n = icnt_new(&k, 70, 80); /* more than 64 of each, to cross a bitmap word */
        CHECK_EQ(icnt_next_held(n, ICNT_REQ, 0), 80);
        CHECK_EQ(icnt_next_held(n, ICNT_REP, 0), 70);
        mem_req r = req(MEM_RD, 3, 1);
        push(n, ICNT_REQ, 3, 66, &r);
        push(n, ICNT_REQ, 4, 66, &r);
        push(n, ICNT_REQ, 5, 2, &r);
        push(n, ICNT_REP, 7, 65, &r); /* a 5-flit reply: held while it arrives */
        icnt_cycle(n);
        CHECK_EQ(icnt_next_held(n, ICNT_REQ, 0), 2);
        CHECK_EQ(icnt_next_held(n, ICNT_REQ, 3), 66);
        CHECK_EQ(icnt_next_held(n, ICNT_REQ, 67), 80);
        CHECK_EQ(icnt_next_held(n, ICNT_REP, 0), 65);
        CHECK(!icnt_peek(n, ICNT_REP, 65));
        icnt_pop(n, ICNT_REQ, 2);
        CHECK_EQ(icnt_next_held(n, ICNT_REQ, 0), 66);
        CHECK_EQ(cycles_until(n, ICNT_REQ, 66, 10) >= 0, 1);
        icnt_pop(n, ICNT_REQ, 66);
        CHECK(cycles_until(n, ICNT_REQ, 66, 10) >= 0); /* the second packet, behind it */
        CHECK_EQ(icnt_next_held(n, ICNT_REQ, 0), 66);
        icnt_pop(n, ICNT_REQ, 66);
        CHECK_EQ(icnt_next_held(n, ICNT_REQ, 0), 80);
        CHECK(cycles_until(n, ICNT_REP, 65, 20) >= 0);
        icnt_pop(n, ICNT_REP, 65);
        CHECK_EQ(icnt_next_held(n, ICNT_REP, 0), 70);
        CHECK(!icnt_busy(n));
        icnt_free(n);
    }
}

/* One side of the comparison below: pseudo-random pushes into a subnet (a stream of its own
 * per subnet), pops into a digest of what left which output in which cycle. */
typedef struct duo {
    icnt *n;
    uint64_t x[2], h[2];
} duo;

static void duo_push(duo *d, int subnet, uint32_t nsrc, uint32_t ndst, int c)
{
    uint64_t *x = &d->x[subnet];
    for (uint32_t s = 0; s < nsrc; s++) {
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        mem_req r = req((*x >> 40) & 1 ? MEM_WR : MEM_RD, (uint16_t)s, (uint16_t)c);
        unsigned b = mem_req_bytes(&r, subnet == ICNT_REP);
        if ((*x >> 33) % 3 == 0 && icnt_can_push(d->n, subnet, s, b))
            icnt_push(d->n, subnet, s, (uint32_t)((*x >> 50) % ndst), &r, b);
    }
}

static void duo_pop(duo *d, int subnet, uint32_t ndst, int c)
{
    for (uint32_t o = 0; o < ndst; o++)
        if ((c + o) % 2 && icnt_peek(d->n, subnet, o)) {
            mem_req r = icnt_pop(d->n, subnet, o);
            uint64_t *h = &d->h[subnet];
            *h = (*h ^ ((uint64_t)c << 32 | (uint64_t)o << 24 | (uint64_t)r.sm << 16 | r.slot)) *
                 1099511628211ull;
        }
}

/* The windowed mode drives each subnet alone (icnt_subnet_step), its cycles counted after
 * (icnt_count_cycles: active when either subnet held a packet as the cycle began). With the
 * same traffic: the same packets leave the same outputs in the same cycles, and every
 * statistic equals icnt_cycle's, the reply subnet run first, for both arbiters. */
TEST(icnt_subnet_steps_equal_whole_cycles)
{
    for (int arb = 0; arb < 2; arb++) {
        knobs k = base_knobs(arb);
        k.icnt_in_buffer = 12;
        k.icnt_out_buffer = 12;
        duo a = {icnt_new(&k, 70, 6), {99, 7}, {1, 1}};
        duo b = {icnt_new(&k, 70, 6), {99, 7}, {1, 1}};
        uint64_t active = 0;
        for (int c = 0; c < 3000; c++) {
            duo_push(&a, ICNT_REQ, 70, 6, c);
            duo_push(&a, ICNT_REP, 6, 70, c);
            icnt_cycle(a.n);
            duo_pop(&a, ICNT_REQ, 6, c);
            duo_pop(&a, ICNT_REP, 70, c);
            duo_push(&b, ICNT_REP, 6, 70, c);
            int held = icnt_subnet_step(b.n, ICNT_REP);
            duo_pop(&b, ICNT_REP, 70, c);
            duo_push(&b, ICNT_REQ, 70, 6, c);
            held |= icnt_subnet_step(b.n, ICNT_REQ);
            duo_pop(&b, ICNT_REQ, 6, c);
            active += (uint64_t)held;
        }
        icnt_count_cycles(b.n, 3000, active);
        CHECK(a.h[ICNT_REQ] == b.h[ICNT_REQ]);
        CHECK(a.h[ICNT_REP] == b.h[ICNT_REP]);
        stat_block *sa = icnt_stats(a.n);
        uint64_t va[13];
        const char *names[] = {"req_packets", "rep_packets", "req_flits", "rep_flits",
                               "req_delivered", "rep_delivered", "req_latency_sum",
                               "rep_latency_sum", "cycles", "active_cycles", "in_full",
                               "out_full", "conflicts"};
        for (size_t i = 0; i < BASE_ARRAY_LEN(names); i++)
            va[i] = stat_get(sa, names[i]);
        stat_block *sb = icnt_stats(b.n);
        for (size_t i = 0; i < BASE_ARRAY_LEN(names); i++)
            CHECK_EQ(stat_get(sb, names[i]), va[i]);
        CHECK(va[4] > 500 && va[5] > 500); /* both subnets carried traffic */
        CHECK(va[12] > 0);                  /* and it contended */
        icnt_free(a.n);
        icnt_free(b.n);
    }
}
