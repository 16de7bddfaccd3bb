/* icnt: the interconnect between SMs and memory sub-partitions.
 *
 * Model: a crossbar per subnet (subnet 0 carries requests SM -> sub-partition, subnet 1
 * replies sub-partition -> SM; with icnt_subnets = 1 both share one crossbar). A packet is
 * ceil(bytes / flit_size) flits (mem_req_bytes). Every icnt cycle each input port sends at
 * most one flit and each output port accepts at most one flit, inputs chosen per output by
 * the arbiter (knob icnt_arbiter: round-robin "fifo" or "islip" matching); a packet holds its
 * output until its last flit passed. A delivered packet waits in its output (ejection) buffer
 * until the destination pops it; `icnt_latency` extra cycles are added in flight.
 *
 * Contract
 * - Node numbering: SMs are 0..n_sm-1, sub-partitions 0..n_sub_total-1 (separate spaces; the
 *   subnet says which side is the source).
 * - icnt_can_push() before icnt_push(): an input buffer holds at most icnt_in_buffer flits;
 *   an output buffer at most icnt_out_buffer flits (a full output blocks its crossbar port).
 * - Called only from the serial phases (A and C): no locking, no per-thread state. The
 *   exceptions: between icnt_cycle_begin and icnt_cycle_end, icnt_subnet_cycle may run for
 *   different subnets on different threads (each crossbar keeps its own statistics); and with
 *   two subnets, each may be driven by a thread of its own throughout (push, peek, pop,
 *   icnt_subnet_step on that subnet alone), its cycles then counted by icnt_count_cycles.
 * - Deterministic: arbitration depends only on the state, never on pointer values.
 */
#ifndef LOCKSTEP_ICNT_H
#define LOCKSTEP_ICNT_H
#include "../knob/knob.h"
#include "../mem/req.h"
#include "../stat/stat.h"

enum { ICNT_REQ = 0, ICNT_REP = 1 };

typedef struct icnt icnt;

icnt *icnt_new(const knobs *k, uint32_t n_sm, uint32_t n_sub_total);
void icnt_free(icnt *n);

/* subnet ICNT_REQ: src = SM, dst = sub-partition; ICNT_REP: src = sub-partition, dst = SM. */
int icnt_can_push(const icnt *n, int subnet, uint32_t src, unsigned bytes);
void icnt_push(icnt *n, int subnet, uint32_t src, uint32_t dst, const mem_req *r, unsigned bytes);
/* icnt_can_push and icnt_push in one: 0 (nothing done) when the input has no room. */
int icnt_try_push(icnt *n, int subnet, uint32_t src, uint32_t dst, const mem_req *r,
                  unsigned bytes);
void icnt_cycle(icnt *n);                    /* one interconnect-clock cycle, both subnets */
/* icnt_cycle in parts: begin returns the number of subnets; then each subnet's crossbar
 * cycle, in any order or concurrently; then end. */
uint32_t icnt_cycle_begin(icnt *n);
void icnt_subnet_cycle(icnt *n, uint32_t s);
void icnt_cycle_end(icnt *n);
/* With two subnets, subnet s's crossbar alone through one cycle (the windowed mode runs each
 * as a task of its own): returns 1 when it held a packet as the cycle began. The network's
 * cycle counters are left to icnt_count_cycles: a cycle is active when either subnet held a
 * packet at its start, which only the caller of both sees. */
int icnt_subnet_step(icnt *n, uint32_t s);
void icnt_count_cycles(icnt *n, uint64_t cycles, uint64_t active);
uint32_t icnt_subnets(const icnt *n);
/* Host-side only: the head packets of subnet's inputs and outputs fetched towards the host's
 * cache (a windowed task calls it as it starts: its crossbar's lines went cold while the
 * other tasks of the window before ran). Changes nothing the model sees. */
void icnt_prefetch(const icnt *n, int subnet);
/* The first destination >= dst whose output holds a packet (ready or still arriving), or the
 * destination count when none does: a walk over the outputs can skip the empty ones. */
uint32_t icnt_next_held(const icnt *n, int subnet, uint32_t dst);
/* The packet at the head of dst's output buffer, NULL if none (or not arrived yet). */
const mem_req *icnt_peek(const icnt *n, int subnet, uint32_t dst);
mem_req icnt_pop(icnt *n, int subnet, uint32_t dst);
/* icnt_peek and icnt_pop in one: 0 (nothing done) when no packet is ready at dst. */
int icnt_try_pop(icnt *n, int subnet, uint32_t dst, mem_req *r);
int icnt_busy(const icnt *n);                    /* any packet anywhere */
int icnt_subnet_busy(const icnt *n, int subnet); /* a packet in the crossbar carrying subnet */
void icnt_skip(icnt *n, uint64_t cycles);        /* `cycles` calls of icnt_cycle while not busy */
/* `cycles` calls of icnt_subnet_step while subnet s holds nothing: its clock only (the
 * caller counts the interconnect cycles, icnt_count_cycles). */
void icnt_subnet_skip(icnt *n, uint32_t s, uint64_t cycles);
void icnt_foreach(const icnt *n, void (*fn)(void *ctx, int subnet, const mem_req *r), void *ctx);
/* Flits buffered at each input / output of a subnet (diagnosis). */
uint32_t icnt_in_flits(const icnt *n, int subnet, uint32_t src);
uint32_t icnt_out_flits(const icnt *n, int subnet, uint32_t dst);

/* Statistics (whole network): packets and flits per subnet, cycles with traffic, sum of
 * packet latencies (cycles from push to delivery), input-buffer-full stalls. */
const stat_set *icnt_stats_set(void);
stat_block *icnt_stats(icnt *n); /* valid until the next call */

#endif
