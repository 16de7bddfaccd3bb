/* dram scheduler plug-ins: which queued request a bank works on next.
 *
 * A plug-in is a pure function of the queue (arrival order, index 0 oldest) and the bank's
 * open row, so the controller may ask again every cycle and get the same answer until the
 * queue or the row changes. */
#include "dram.h"

#include <string.h>

/* GPGPU-Sim's FIFO (scheduler_fifo) moves the head of its queue into the head's bank as
 * soon as that bank holds no request, one request per bank at a time. Stated without that
 * per-bank slot: a request is being served iff it is the oldest of its bank and every older
 * request is the oldest of a different bank. A second request to an already seen bank
 * blocks everything behind it (head-of-line blocking), so the scan stops there. */
static int fcfs_pick(const mem_req *const *queue, const uint32_t *banks, const uint64_t *rows,
                     size_t n, uint32_t bank, int64_t open_row)
{
    (void)queue;
    (void)rows;
    (void)open_row;
    uint64_t seen[4] = {0}; /* banks < 256 (knob dram_banks) */
    for (size_t i = 0; i < n; i++) {
        uint32_t b = banks[i];
        if (b == bank)
            return (int)i;
        if (seen[b >> 6 & 3] >> (b & 63) & 1)
            return -1;
        seen[b >> 6 & 3] |= (uint64_t)1 << (b & 63);
    }
    return -1;
}

/* First-ready FCFS: the oldest request of the bank that hits the open row, else the oldest
 * request of the bank. GPGPU-Sim's frfcfs_scheduler gets the same order from its per-row
 * bins (it also commits a bank to the chosen request; see dram.c for that difference). */
static int frfcfs_pick(const mem_req *const *queue, const uint32_t *banks, const uint64_t *rows,
                       size_t n, uint32_t bank, int64_t open_row)
{
    (void)queue;
    int oldest = -1;
    for (size_t i = 0; i < n; i++) {
        if (banks[i] != bank)
            continue;
        if (open_row >= 0 && rows[i] == (uint64_t)open_row)
            return (int)i;
        if (oldest < 0)
            oldest = (int)i;
    }
    return oldest;
}

/* A newcomer is the bank's youngest request: it is picked only if it hits the open row and
 * the pick does not (the pick is then the oldest, and no older request hits). The pick also
 * stands across its own activate and precharge (keeps_pick): a pick that needs either is the
 * bank's oldest request (a closed bank, or no request hits the open row), and the oldest stays
 * the pick once the row is closed, and once its own row is open, which it hits. */
static int frfcfs_pushed(uint64_t pick_row, uint64_t new_row, int64_t open_row)
{
    return open_row >= 0 && new_row == (uint64_t)open_row && pick_row != (uint64_t)open_row;
}

static const dram_sched_ops sched_fcfs = {
    "fcfs", "in order: requests enter their bank in arrival order (GPGPU-Sim FIFO)", fcfs_pick,
    0, NULL, 0, 0};
static const dram_sched_ops sched_frfcfs = {
    "frfcfs", "first-ready FCFS: open-row hits first, then the oldest", frfcfs_pick, 1,
    frfcfs_pushed, 1, 1};

/* Order matches the choices of knob dram_scheduler. */
const dram_sched_ops *const dram_sched_registry[] = {&sched_fcfs, &sched_frfcfs, NULL};

const dram_sched_ops *dram_sched_find(const char *name)
{
    for (size_t i = 0; dram_sched_registry[i]; i++)
        if (strcmp(dram_sched_registry[i]->name, name) == 0)
            return dram_sched_registry[i];
    return NULL;
}
