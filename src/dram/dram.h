/* dram: one DRAM channel (controller + its chips as one rank) at command-clock granularity.
 *
 * Contract
 * - The owner (memory partition) calls dram_cycle() once per DRAM command-clock edge, pushes
 *   requests with dram_push() when dram_can_accept() says so, and pops completed requests from
 *   the return queue. Each request is one 32-byte sector (MEM_SECTOR); a read completes tCL +
 *   burst cycles after its column command, a write when its data has been sent (tWL + burst).
 *   Writes (MEM_WR, also MEM_F_WRITEBACK) are returned too: the owner drops those it need not
 *   acknowledge.
 * - Timing rules are data (dram_rule rows: command A then command B at scope S must be at
 *   least D cycles apart); a command may issue at cycle t iff every rule whose earlier command
 *   was issued at t0 has t - t0 >= D. Tests check each rule "blocked at t-1, allowed at t".
 * - At most one command per cycle on the shared command bus (two with dram_dual_bus: one row
 *   command and one column command). The data bus carries one burst at a time.
 * - Scheduling is a plug-in (dram_sched_ops, registry by name, knob dram_scheduler): it only
 *   picks which queued request to serve next for a bank; the controller enforces the timing.
 * - Deterministic: ties break by arrival order, then bank index.
 */
#ifndef LOCKSTEP_DRAM_H
#define LOCKSTEP_DRAM_H
#include "../knob/knob.h"
#include "../mem/addrmap.h"
#include "../mem/req.h"
#include "../stat/stat.h"
#include <stdint.h>

typedef enum { DRAM_ACT, DRAM_PRE, DRAM_RD, DRAM_WR, DRAM_NCMD } dram_cmd;
typedef enum { DRAM_SAME_BANK, DRAM_SAME_GROUP, DRAM_OTHER_GROUP, DRAM_ANY_BANK } dram_scope;

typedef struct dram_rule {
    uint8_t first, then; /* dram_cmd */
    uint8_t scope;       /* dram_scope: relation of the second command's bank to the first's */
    const char *name;    /* "tRCD", ... */
    uint32_t delay;      /* command cycles */
} dram_rule;

typedef struct dram_timing {
    uint32_t nbk, nbkgrp;
    uint32_t tCCD, tCCDL, tRRD, tRCD, tRAS, tRP, tRC, tCL, tWL, tCDLR, tWR, tRTPL;
    uint32_t burst;      /* data-bus command cycles per request: BL / data_cmd_ratio */
    uint32_t tRTW, tWTR; /* derived turnarounds (0 with dram_no_rw_turnaround) */
    uint32_t tRCDWR;     /* derived: activate to write, tRCD - (tWL + 1), floored at 0 */
    uint32_t tWTP;       /* derived: write to precharge, tWL + burst + tWR */
} dram_timing;

/* Enough rows for any timing (dram_rules writes at most this many). */
#define DRAM_MAX_RULES 32

void dram_timing_from_knobs(dram_timing *t, const knobs *k);
/* The rule table for a timing (n rows written to out, at most max; returns n). */
size_t dram_rules(const dram_timing *t, dram_rule *out, size_t max);

typedef struct dram dram;

/* channel: this controller's index (for messages); map/n_mem/n_sub decode bank and row. */
dram *dram_new(const knobs *k, const mem_addrmap *map, uint32_t channel);
void dram_free(dram *d);

int dram_can_accept(const dram *d);             /* scheduler queue has room */
void dram_push(dram *d, const mem_req *r);      /* r->loc becomes MEM_AT_DRAM_Q */
/* One command-clock cycle. Returns the request a column command sent on its way this cycle
 * (valid until the next call), or NULL: it returns tCL + burst cycles later, time enough
 * for the owner to fetch into the host cache what it will read then. */
const mem_req *dram_cycle(dram *d);
int dram_ret_ready(const dram *d);              /* a completed request is waiting */
mem_req dram_ret_pop(dram *d);
int dram_busy(const dram *d);                   /* anything queued or in flight */
uint64_t dram_now(const dram *d);               /* command cycles simulated */

/* Test hook: scan every bank every cycle and ask the scheduler afresh each time, with none of
 * the skipped scans or remembered picks, so tests can check that those change nothing. */
void dram_set_eager(dram *d, int on);
/* Whether the bank scans run on the host's vector unit (knob host_simd, an AVX2 host, and the
 * banks in fours up to 64); the results are the same either way. */
int dram_uses_simd(const dram *d);

/* Test hook: issue time check for command c to bank b at the current cycle: 1 if every timing
 * rule allows it now (bank state aside). */
int dram_rule_allows(const dram *d, int cmd, uint32_t bank);

/* Visits queued and in-flight requests (hang diagnosis). */
void dram_foreach(const dram *d, void (*fn)(void *ctx, const mem_req *r), void *ctx);
uint32_t dram_queue_len(const dram *d);

/* Statistics per channel: reads, writes (requests), activates, precharges, row_hits (column
 * commands without an activate since the previous one to that row), cmd_cycles, busy_cycles
 * (data bus busy), queue occupancy sum; ratios row_buffer_locality, bw_util. */
const stat_set *dram_stats_set(void);
stat_block *dram_stats(dram *d);

/* Scheduler plug-ins. pick() returns the index into the queue it is shown (0 = oldest) of the
 * request to work on for `bank`, or -1 if none; `open_row` is the bank's open row or -1.
 * bank_local promises that the pick reads only the bank's own entries (their order, rows and
 * requests): such a plug-in is shown only those, and is asked again only when they or the
 * bank's row change. Any other is shown the whole queue, and asked again after any change.
 * pushed (optional, bank-local plug-ins only) answers without a walk what pick would say after
 * a request arrives at a bank whose pick stands: 1 if the newcomer (row new_row, the bank's
 * youngest) becomes the pick, 0 if the pick (row pick_row) stays. Without it, pick is asked.
 * keeps_pick (bank-local plug-ins only) promises that a bank's pick stands when the bank opens
 * the pick's row (an activate for it) or closes a row the pick misses (a precharge for it), so
 * only a column command, which takes the pick from the queue, asks pick again.
 * hits_first (bank-local plug-ins only) promises that pick is first-ready FCFS: the oldest
 * request hitting the open row, else the oldest. A column command serves such a pick (the
 * oldest hit), so the controller finds the next pick itself, without asking: the first
 * younger request that hits the row, else the bank's oldest. */
typedef struct dram_sched_ops {
    const char *name, *help;
    int (*pick)(const mem_req *const *queue, const uint32_t *banks, const uint64_t *rows,
                size_t n, uint32_t bank, int64_t open_row);
    int bank_local;
    int (*pushed)(uint64_t pick_row, uint64_t new_row, int64_t open_row);
    int keeps_pick;
    int hits_first;
} dram_sched_ops;
const dram_sched_ops *dram_sched_find(const char *name);
extern const dram_sched_ops *const dram_sched_registry[];

/* Fast-forward. dram_wake: the first value of the command clock (dram_now) at which
 * dram_cycle may change anything but its cycle counters, assuming nothing is pushed:
 * dram_now() itself when requests are queued or returned, UINT64_MAX when idle.
 * dram_wait: how many of the next dram_cycle calls would only count themselves (no command,
 * no burst ending), assuming nothing is pushed or popped: 0 when the next one may act,
 * UINT64_MAX when nothing is queued or in flight. It looks past queued requests, which
 * dram_wake does not.
 * dram_skip: n such calls at once (n at most dram_wait, or below the wake). */
uint64_t dram_wake(const dram *d);
uint64_t dram_wait(const dram *d);
void dram_skip(dram *d, uint64_t n);

#endif
