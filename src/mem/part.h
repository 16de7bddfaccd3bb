/* mem/part: one memory channel = its DRAM controller + n_sub_partitions sub-partitions, each
 * with a ROP delay stage and an L2 slice, as in GPGPU-Sim's memory_partition_unit /
 * memory_sub_partition.
 *
 * Flow of a request (all queues bounded by the q_* knobs; a full queue stalls its producer):
 *   icnt --push--> ROP (ready rop_latency core cycles later; ROP->L2 queue q_icnt_to_l2)
 *   L2 slice: hit -> reply to the L2->icnt queue (q_l2_to_icnt); read miss -> MSHR + a DRAM
 *     read (L2->DRAM queue q_l2_to_dram); merged miss -> waits in the MSHR; write (wb, lazy
 *     fetch) -> absorbed, acknowledged; evicted dirty sectors -> DRAM writes.
 *     Atomics are performed here: an L2 access like a read, replied with data.
 *   DRAM side: L2->DRAM queue -> latency queue (ready dram_latency core cycles later) ->
 *     controller; completed reads -> DRAM->L2 queue (q_dram_to_l2) -> L2 fill -> replies for
 *     every merged request.
 * Timing: mem_part_l2_cycle at the L2 clock, mem_part_dram_cycle at the DRAM clock; both get
 * the current core cycle, which the fixed ROP and DRAM latencies are counted in (as GPGPU-Sim
 * counts them).
 * Statistics: one L2 cache stat block per sub-partition (cache_stats) and the DRAM channel's
 * block (dram_stats); plus partition counters (reads/writes/atomics received, replies sent,
 * memory latency sum of replies).
 */
#ifndef LOCKSTEP_MEM_PART_H
#define LOCKSTEP_MEM_PART_H
#include "../cache/cache.h"
#include "../dram/dram.h"
#include "../knob/knob.h"
#include "addrmap.h"
#include "req.h"

typedef struct mem_part mem_part;

mem_part *mem_part_new(const knobs *k, const mem_addrmap *map, uint32_t channel);
void mem_part_free(mem_part *p);
uint32_t mem_part_nsub(const mem_part *p);
/* How often sub-partition `sub` allocated its fill buffer or reply ring, which grow on
 * demand to their bounds and never per request (for tests). */
uint32_t mem_part_grows(const mem_part *p, uint32_t sub);
/* Whether sub-partition `sub` has an L2 with its tag arrays made (for tests). */
int mem_part_l2_has_tags(const mem_part *p, uint32_t sub);

/* Sub-partition `sub` is local to this channel (0..n_sub-1). */
int mem_part_can_accept(const mem_part *p, uint32_t sub);
/* A request pushed at core cycle x leaves the ROP delay at x + mem_part_rop_latency. */
void mem_part_push(mem_part *p, uint32_t sub, const mem_req *r, uint64_t core_cycle);
uint64_t mem_part_rop_latency(const mem_part *p);
void mem_part_l2_cycle(mem_part *p, uint64_t core_cycle);
void mem_part_dram_cycle(mem_part *p, uint64_t core_cycle);
/* Up to n DRAM cycles in a row at one core cycle, stopping before the first that would only
 * count (MEM_PART_DRAM_IDLE); returns how many ran. */
uint64_t mem_part_dram_cycles(mem_part *p, uint64_t n, uint64_t core_cycle);
const mem_req *mem_part_reply_peek(const mem_part *p, uint32_t sub);
/* Hints, no effect on the model: start fetching the host lines that mem_part_can_accept and
 * mem_part_push (in), or mem_part_reply_peek and mem_part_reply_pop (out) read first. */
void mem_part_prefetch_in(const mem_part *p, uint32_t sub);
void mem_part_prefetch_out(const mem_part *p, uint32_t sub);
mem_req mem_part_reply_pop(mem_part *p, uint32_t sub);
uint32_t mem_part_replies(const mem_part *p); /* replies waiting in all its sub-partitions */
/* What its next cycles would only count: MEM_PART_DRAM_IDLE (a DRAM cycle only adds to the
 * DRAM's lag, as mem_part_skip does), MEM_PART_L2_IDLE (an L2 cycle only sets the time, as
 * mem_part_set_now does). Changes only in its own cycles, and by mem_part_push (L2 side). */
enum { MEM_PART_DRAM_IDLE = 1, MEM_PART_L2_IDLE = 2 };
unsigned mem_part_idle(const mem_part *p);
/* The first core cycle at which the channel may act without new input, when until then its
 * L2 cycles would only set the time and its DRAM-side calls only count (what mem_part_skip
 * does): its L2 side holds nothing but requests in their ROP delay, and its DRAM side is
 * quiet or holds nothing but requests in its latency queue. UINT64_MAX when it holds none; 0
 * when it may act at its next edge. A push (new input) only adds a later ROP head. */
uint64_t mem_part_sleep(const mem_part *p);
int mem_part_busy(const mem_part *p);

/* Fast-forward. mem_part_wake: -1 when the partition may act at its next clock edge;
 * otherwise 0 with the core cycle at which a timed queue's head becomes ready (*core_t) and
 * the number of DRAM-clock calls before the one in which the DRAM acts (*dram_t), each
 * UINT64_MAX for never
 * (without new input). mem_part_skip: that many idle DRAM-clock calls at once. */
int mem_part_wake(const mem_part *p, uint64_t *core_t, uint64_t *dram_t);
void mem_part_skip(mem_part *p, uint64_t dram_calls);
void mem_part_set_now(mem_part *p, uint64_t core_cycle); /* as the skipped edges would */

/* memcpy L2 prefill of one sector (owner applies the truncation rule). */
void mem_part_prefill(mem_part *p, uint32_t sub, uint64_t addr);
/* The same for the sectors `mask` (bit i: addr's 128-byte block + 32 i), in sector order;
 * one lookup when the L2 line is that block. */
void mem_part_prefill_block(mem_part *p, uint32_t sub, uint64_t addr, uint8_t mask);
/* Brackets a run of prefills of sub-partition sub with nothing else in between
 * (cache_prefill_begin, _end). */
void mem_part_prefill_run(mem_part *p, uint32_t sub, int begin);
/* Sub-partition sub's L2 would churn a prefill now (cache_prefill_churns at this channel's
 * time): the condition for skipping prefills with cache_prefill_skip. 0 without an L2. */
int mem_part_prefill_churns(mem_part *p, uint32_t sub);
/* Kernel end with flush_l2_per_kernel: writes back and invalidates (returns DRAM writes).
 * As in GPGPU-Sim the flush takes no time and sends no DRAM traffic; the dirty sectors are
 * counted (stat flush_writebacks) and returned. */
uint32_t mem_part_flush_l2(mem_part *p);

cache *mem_part_l2(mem_part *p, uint32_t sub);
/* Its L2 statistics; an all-zero block when l2_enabled = 0 (mem_part_l2 is NULL then). */
stat_block *mem_part_l2_stats(mem_part *p, uint32_t sub);
dram *mem_part_dram(mem_part *p);
const stat_set *mem_part_stats_set(void);
stat_block *mem_part_stats(mem_part *p);
void mem_part_diagnose(const mem_part *p, FILE *f);

/* Global sub-partition of an address: channel from the DRAM address map and the partition
 * hashing (knob partition_indexing), then the bank's sub-partition within it. */
typedef struct mem_map {
    mem_addrmap map;
    uint32_t n_mem, n_sub;
    int indexing;   /* knob partition_indexing choice index */
    /* derived by mem_map_init */
    int chip_s;        /* channel field start (dramid@S, else the lowest D bit) */
    int gap;           /* non-power-of-two channel count with dramid@ (mod/div decode) */
    int high_shift;    /* GPGPU-Sim's rest_of_addr_high_bits = addr >> high_shift (no gap) */
    uint32_t hash_n;   /* ipoly/pae index space: nextpow2(n_mem) * n_sub */
    uint64_t hmask[16]; /* ipoly: per index bit, the higher address bits XORed into it */
    int grain;          /* every aligned 2^grain bytes map to one sub-partition */
    /* Power-of-two counts without random indexing make the sub-partition a GF(2)-linear
     * function of the address bits (bit fields and XORs): it is then the XOR of one table
     * entry per address byte, lin[j][byte j]. 0: decode each time. */
    int linear;
    uint32_t lin[8][256];
} mem_map;
int mem_map_init(mem_map *m, const knobs *k, base_err *e);
uint32_t mem_map_sub_partition(const mem_map *m, uint64_t addr);
/* log2 of the largest aligned block that is certain to lie in one sub-partition (bits below
 * it never reach the decode's channel, bank or hash inputs): walks over a range can map one
 * address per block. */
int mem_map_grain(const mem_map *m);
/* Adds to n[s] the number of 128-byte blocks of [lo, hi) (multiples of 128) whose first byte
 * maps to sub-partition s; n has n_mem * n_sub entries. A long range costs one lookup per
 * 64 KB when the map is linear. */
void mem_map_count_blocks(const mem_map *m, uint64_t lo, uint64_t hi, uint64_t *n);

#endif
