/* sm park: an SM whose cycles only repeat themselves is not run until that can end.
 *
 * A cycle that neither made progress nor changed state otherwise (a fetch, the LD/ST unit
 * freeing itself after a shared or constant access) leaves the SM as it found it, apart from
 * its statistics. With nothing queued in or out and no CTA to retire, the next cycles see the
 * same state and so do the same, until a time-bound reason ends (the first writeback event,
 * the LD/ST unit's or a queued instruction's ready time, a scheduler's remembered stall) or
 * something arrives from outside (a reply, a CTA, a kernel start), which the simulator
 * announces by unparking the SM first. Typical case: a load whose sector the L1D refuses
 * (no MSHR entry) until a fill comes, while every warp waits on its scoreboard.
 *
 * What one such cycle adds to the statistics is what each cycle that repeats it adds. An
 * armed SM has a copy of its statistics from the end of its last cycle; if this cycle is such
 * a cycle, its statistics minus the copy are the per-cycle deltas, and the SM parks from the
 * next one. A cycle that changed nothing arms the SM, and so does one that ended on a sector
 * the L1D refused: that is the cycle before most parks begin, and arming there saves running
 * the first repeated cycle only to measure it (a fifth of gather's SM cycles). Copying after
 * every cycle would cost workloads that seldom park more than it saves (hmma, reduce, pchase:
 * 1.3-1.9% more instructions). Unparking adds the deltas once per skipped cycle, so every
 * counter reads as in a run that ticked the SM each cycle (fast_forward=0, which also turns
 * this off). */
#include "sm_int.h"
#include <stdlib.h>
#include <string.h>

/* Shorter parks cost more (a copy, a difference, a settlement) than the cycles they skip. */
#define PARK_MIN 6

static int l1d_slots(const sm *s) { return s->l1d ? cache_stats_set()->nslots : 0; }

static void snap_take(sm *s)
{
    int ns = s->st.set->nslots, nl = l1d_slots(s);
    if (!s->park_snap) {
        size_t n = (size_t)ns + (size_t)nl;
        s->park_snap = base_malloc(n * (2 * sizeof *s->park_snap + sizeof *s->park_slot));
        s->park_delta = s->park_snap + n;
        s->park_slot = (uint16_t *)(s->park_delta + n);
    }
    memcpy(s->park_snap, s->st.v, (size_t)ns * sizeof *s->park_snap);
    if (nl)
        memcpy(s->park_snap + ns, cache_stats(s->l1d)->v, (size_t)nl * sizeof *s->park_snap);
}

/* What one cycle added: the slots that moved since the snapshot, as (slot, delta) pairs
 * (L1D slots after the SM's), usually a handful. */
static void snap_to_delta(sm *s)
{
    int ns = s->st.set->nslots, nl = l1d_slots(s);
    const uint64_t *v = s->st.v, *l = nl ? cache_stats(s->l1d)->v : NULL, *p = s->park_snap;
    uint32_t n = 0;
    for (int k = 0; k < ns; k++)
        if (v[k] != p[k]) {
            s->park_slot[n] = (uint16_t)k;
            s->park_delta[n++] = v[k] - p[k];
        }
    for (int k = 0; k < nl; k++)
        if (l[k] != p[ns + k]) {
            s->park_slot[n] = (uint16_t)(ns + k);
            s->park_delta[n++] = l[k] - p[ns + k];
        }
    s->park_n = n;
}

/* The first cycle after `now` that may differ from it, assuming nothing arrives; `now` when
 * the SM must run next cycle anyway. Called after a cycle that changed nothing. */
static uint64_t horizon(const sm *s, uint64_t now)
{
    if (s->in.n || s->out.n || s->ndone)
        return now;
    uint64_t h = s->nev ? s->ev[0].t : UINT64_MAX;
    if (s->busy) {
        if (s->nsect == 0 && s->busy_until < h)
            h = s->busy_until; /* else a sector was refused: a fill or room must come */
    } else if (s->lq_n) {
        uint64_t r = s->lq[s->lq_head].ready; /* ready and not started: the pending table is full */
        if (r > now && r < h)
            h = r;
    }
    for (uint32_t i = 0; i < s->nsub; i++) {
        const sm_subcore *c = &s->sub[i];
        if (!c->norder)
            continue;
        if (!c->memo_ok)
            return now;
        if (c->memo_until < h)
            h = c->memo_until;
    }
    return h;
}

void sm_park_step(sm *s, uint64_t now)
{
    int armed = s->park == SM_PARK_ARMED;
    s->park = SM_PARK_NONE;
    if (s->progress || s->changed) {
        if (s->busy && s->nsect && s->refused) {
            snap_take(s);
            s->park = SM_PARK_ARMED;
        }
        return;
    }
    uint64_t h = horizon(s, now);
    if (armed && h >= now + 1 + PARK_MIN) {
        snap_to_delta(s);
        s->park = SM_PARK_PARKED;
        s->park_from = now + 1;
        s->park_until = h;
    } else if (h >= now + 2 + PARK_MIN) { /* the measured cycle, then PARK_MIN skipped at least */
        snap_take(s);
        s->park = SM_PARK_ARMED;
    }
}

int sm_parked(const sm *s) { return s->park == SM_PARK_PARKED; }
uint64_t sm_park_until(const sm *s) { return s->park_until; }

void sm_park_settle(sm *s, uint64_t upto)
{
    if (s->park != SM_PARK_PARKED || upto <= s->park_from)
        return;
    uint64_t n = upto - s->park_from;
    int ns = s->st.set->nslots;
    uint64_t *l = s->l1d ? cache_stats(s->l1d)->v : NULL;
    for (uint32_t i = 0; i < s->park_n; i++) {
        uint32_t k = s->park_slot[i];
        *(k < (uint32_t)ns ? &s->st.v[k] : &l[k - (uint32_t)ns]) += s->park_delta[i] * n;
    }
    s->park_from = upto;
    s->park_skipped += n;
}

uint64_t sm_park_skipped(const sm *s) { return s->park_skipped; }

void sm_unpark(sm *s, uint64_t upto)
{
    sm_park_settle(s, upto);
    s->park = SM_PARK_NONE;
}

void sm_park_disarm(sm *s)
{
    if (s->park == SM_PARK_ARMED)
        s->park = SM_PARK_NONE;
}

/* Something reaches the SM from outside its cycle. It may move statistics (a launch counts
 * the CTA), which would land in an armed SM's measurement, so the arm is dropped. */
void sm_park_outside(sm *s, const char *what)
{
    if (s->park == SM_PARK_PARKED)
        base_panic("sm %u: %s while parked (the simulator must unpark it first)", s->id, what);
    s->park = SM_PARK_NONE;
}
