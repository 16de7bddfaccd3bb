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
 * What one such cycle adds to the statistics is what each cycle that repeats it adds, found
 * one of two ways. Mostly it is worked out from the state the last cycle left (predict, tried
 * after every cycle): the schedulers' remembered stalls, the LD/ST unit's refused sector and
 * whether a CTA is resident say every counter the next cycle moves, so the SM parks from the
 * next cycle on (gather: 119,754 SM visits where measuring every park took 203,814). Where
 * they do not (a scheduler must scan its warps to know), the cycle is measured: a cycle that
 * changed nothing arms the SM with a copy of its statistics; if the next one repeats it, its
 * statistics minus the copy are the per-cycle deltas, and the SM parks from the one after.
 * Copying after every cycle would cost workloads that seldom park more than it saves (hmma,
 * reduce, pchase: 1.3-1.9% more instructions). An SM whose requests are still queued out
 * when its cycles were predicted parks all the same where the simulator offers them itself
 * (sm_ctx.park_queued: the exact loop); else it drains them first, one a cycle as its task
 * offers them, adding the predicted statistics in place of each cycle (sm_park_drain), and
 * parks with its queue empty. Unparking adds the deltas once per skipped cycle, so every
 * counter reads as in a run that ticked the SM each cycle (fast_forward=0, which also turns
 * this off); the knob host_park_check runs and measures each predicted cycle as well and
 * stops on a difference (the tests run every sample and shared trace with it). */
#include "sm_int.h"
#include <stdlib.h>
#include <string.h>

/* Shorter parks cost more (a copy, a difference, a settlement) than the cycles they skip. */
#define PARK_MIN 6
/* A park whose statistics were worked out costs a settlement only: after a cycle that changed
 * nothing or ended on a refused sector (the cycles that lead into most parks) two skipped
 * cycles pay. After any other cycle more are asked for: a park that ends at a scheduler's
 * memo brings the SM back for a cycle that may only repeat, and the whole-GPU fast-forward
 * sees a parked SM's end as its wake (histogram: 2.6% slower with 2 here, 1.5% faster with 6;
 * gather the same with either). */
#define PARK_MIN_PREDICTED 2
#define PARK_MIN_PREDICTED_AFTER_PROGRESS 6

static int l1d_slots(const sm *s) { return s->l1d ? cache_stats_set()->nslots : 0; }

/* The copy and the pairs: every slot may move in a measured cycle (n pairs); a predicted one
 * lists at most nsub + 4, which host_park_check keeps after those n. */
static void snap_alloc(sm *s)
{
    if (s->park_snap)
        return;
    size_t n = (size_t)s->st.set->nslots + (size_t)l1d_slots(s), m = n + s->nsub + 4;
    s->park_snap = base_malloc(n * sizeof *s->park_snap + m * (sizeof *s->park_delta +
                                                                sizeof *s->park_slot));
    s->park_delta = s->park_snap + n;
    s->park_slot = (uint16_t *)(s->park_delta + m);
}

static void snap_take(sm *s)
{
    int ns = s->st.set->nslots, nl = l1d_slots(s);
    snap_alloc(s);
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

/* Adds one (slot, delta) pair of the predicted cycle (slots as snap_to_delta numbers them). */
static void pred_add(sm *s, uint32_t *n, uint32_t slot)
{
    s->park_slot[*n] = (uint16_t)slot;
    s->park_delta[(*n)++] = 1;
}

/* What the next cycle adds to the statistics, worked out from the state left by this one, so
 * that the SM parks from the next cycle on without running it to measure. The next cycle
 * repeats this state only if nothing is queued in, no CTA is to retire, no warp waits to
 * fetch, every sub-core's scheduler answers from its remembered stall (not a scan, whose
 * outcome only running it tells), and the LD/ST unit is idle, waiting, or retrying a sector
 * the L1D refused (a refusal its remembered answer repeats while nothing arrives); and it
 * keeps doing so up to *h, where a time-bound reason ends (as in horizon). The cycle then
 * counts an active cycle if a CTA is resident, each sub-core's stall (idle where it has no
 * warps), and for the refused sector a stalled LD/ST cycle and the L1D's reservation fail.
 * Returns 0 (measure instead) where any of that is not so or the park would be shorter than
 * `min` cycles; fills park_slot/park_delta otherwise (free while the SM runs). Tried
 * after every cycle, so the likeliest reasons to fail come first: a writeback due soon, a
 * reply waiting, a scheduler that must scan (it issued this cycle). The knob
 * host_park_check runs the cycle anyway and compares (park_check). */
static int predict(sm *s, uint64_t now, uint64_t *h, uint64_t min, int quiet)
{
    uint64_t t = s->nev ? s->ev[0].t : UINT64_MAX, soon = now + 1 + min;
    if (s->in.n || s->ndone || t < soon)
        return 0;
    if (s->busy) {
        if (s->nsect && (!s->refused || s->refused_fail == CACHE_FAIL_NONE))
            return 0;
        if (!s->nsect && s->busy_until < t)
            t = s->busy_until;
    } else if (s->lq_n) {
        /* ready and not started in a quiet cycle: the pending table is full; after any other
         * the unit may have freed itself only this cycle, and starts next */
        uint64_t r = s->lq[s->lq_head].ready;
        if (r <= now && !quiet)
            return 0;
        if (r > now && r < t)
            t = r;
    }
    for (uint32_t i = 0; i < s->nsub; i++) {
        const sm_subcore *c = &s->sub[i];
        if (!c->order_ok || (c->norder && (!c->memo_ok || (c->memo_mem && sm_ldst_can_take(s)))))
            return 0;
        if (c->norder && c->memo_until < t)
            t = c->memo_until;
    }
    if (t < soon)
        return 0;
    for (uint32_t i = 0, nw = (s->nwarps_max + 63) / 64; s->fetchable && i < nw; i++)
        if (s->fetchable[i])
            return 0;
    snap_alloc(s);
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nsub; i++) {
        const sm_subcore *c = &s->sub[i];
        if (c->norder)
            pred_add(s, &n, SMS_STALL + c->memo_why);
        else if (s->nctas)
            pred_add(s, &n, SMS_STALL + SM_ST_IDLE);
    }
    if (s->nctas)
        pred_add(s, &n, SMS_active_cycles);
    if (s->busy && s->nsect) {
        uint32_t f[2];
        cache_fail_slots(s->refused_fail, f);
        pred_add(s, &n, SMS_ldst_stall_cycles);
        pred_add(s, &n, (uint32_t)s->st.set->nslots + f[0]);
        pred_add(s, &n, (uint32_t)s->st.set->nslots + f[1]);
    }
    s->park_n = n;
    *h = t;
    return 1;
}

static void park_from(sm *s, uint64_t from, uint64_t until)
{
    s->park = SM_PARK_PARKED;
    s->park_from = from;
    s->park_until = until;
}

/* host_park_check: the cycle after a prediction ran all the same, armed; what it measured must
 * be what was predicted, slot by slot (the prediction may list a slot more than once). */
static void park_check(sm *s, uint64_t now, uint32_t np)
{
    if (s->progress || s->changed)
        base_panic("sm %u: cycle %llu was predicted to repeat the last but changed the state",
                   s->id, (unsigned long long)now);
    uint32_t off = (uint32_t)(s->st.set->nslots + l1d_slots(s));
    uint16_t *ps = s->park_slot + off;
    uint64_t *pd = s->park_delta + off;
    memcpy(ps, s->park_slot, np * sizeof *ps); /* snap_to_delta overwrites the front */
    memcpy(pd, s->park_delta, np * sizeof *pd);
    snap_to_delta(s);
    for (uint32_t i = 0; i < s->park_n + np; i++) {
        uint32_t k = i < s->park_n ? s->park_slot[i] : ps[i - s->park_n];
        uint64_t want = 0, got = 0;
        for (uint32_t j = 0; j < np; j++)
            want += ps[j] == k ? pd[j] : 0;
        for (uint32_t j = 0; j < s->park_n; j++)
            got += s->park_slot[j] == k ? s->park_delta[j] : 0;
        if (want != got)
            base_panic("sm %u: cycle %llu: statistics slot %u moved by %llu, predicted %llu",
                       s->id, (unsigned long long)now, k, (unsigned long long)got,
                       (unsigned long long)want);
    }
}

void sm_park_step(sm *s, uint64_t now)
{
    int armed = s->park == SM_PARK_ARMED, check = s->check_n != 0;
    if (check && armed)
        park_check(s, now, s->check_n - 1);
    s->park = SM_PARK_NONE;
    s->check_n = 0;
    int quiet = !s->progress && !s->changed;
    uint64_t h = armed && quiet ? horizon(s, now) : now;
    if (h >= now + 1 + PARK_MIN) {
        if (!check)
            snap_to_delta(s);
        park_from(s, now + 1, h);
        return;
    }
    int refused = s->busy && s->nsect && s->refused;
    if (predict(s, now, &h, quiet || refused ? PARK_MIN_PREDICTED
                                                 : PARK_MIN_PREDICTED_AFTER_PROGRESS, quiet)) {
        if (!s->k->host_park_check) {
            park_from(s, now + 1, h);
            if (s->out.n && !s->ctx->park_queued)
                s->park = SM_PARK_DRAIN; /* parks once its requests have left (sm_park_drain) */
            return;
        }
        s->check_n = s->park_n + 1; /* measure it as well: arm */
        snap_take(s);
        s->park = SM_PARK_ARMED;
        return;
    }
    if (quiet && horizon(s, now) >= now + 2 + PARK_MIN) { /* measured, then PARK_MIN skipped */
        snap_take(s);
        s->park = SM_PARK_ARMED;
    }
}

/* The statistics of n repeated cycles: each (slot, delta) pair n times (L1D slots after the
 * SM's). */
static void deltas_add(sm *s, uint64_t n)
{
    int ns = s->st.set->nslots;
    uint64_t *l = s->l1d ? cache_stats(s->l1d)->v : NULL;
    for (uint32_t i = 0; i < s->park_n; i++) {
        uint32_t k = s->park_slot[i];
        *(k < (uint32_t)ns ? &s->st.v[k] : &l[k - (uint32_t)ns]) += s->park_delta[i] * n;
    }
}

/* A cycle of an SM whose next cycles were predicted but which still has requests to send: it
 * is visited (its task pops a sent request and offers the next) and adds the predicted
 * statistics instead of running the cycle, then parks with its queue empty. Returns 0 where
 * the prediction no longer holds (a reply came in, or its horizon was reached): the cycle
 * runs as usual. */
int sm_park_drain(sm *s, uint64_t now)
{
    if (s->in.n || now >= s->park_until) {
        s->park = SM_PARK_NONE;
        return 0;
    }
    deltas_add(s, 1);
    s->progress = 0;
    s->changed = 0;
    if (!s->out.n)
        park_from(s, now + 1, s->park_until);
    return 1;
}

int sm_parked(const sm *s) { return s->park == SM_PARK_PARKED; }
uint64_t sm_park_until(const sm *s) { return s->park_until; }

void sm_park_settle(sm *s, uint64_t upto)
{
    sm_park_pay(s);
    if (s->park != SM_PARK_PARKED || upto <= s->park_from)
        return;
    uint64_t n = upto - s->park_from;
    deltas_add(s, n);
    s->park_from = upto;
    s->park_skipped += n;
}

uint64_t sm_park_skipped(const sm *s) { return s->park_skipped; }

/* Unparking only notes up to which cycle the skipped ones are owed (SM_PARK_OWED); they are
 * counted at the SM's next cycle, on the thread that runs it, or before anything else reads
 * or changes its statistics (sm_park_pay). The simulator unparks in its serial phases (a
 * reply, a park's end), where counting them wrote the SM's statistics from the main thread,
 * lines the SM's own core then fetched back: two threads, vectoradd 1M, those phases took
 * 20 ms more once most parks came from predictions. */
void sm_unpark(sm *s, uint64_t upto)
{
    sm_park_pay(s);
    if (s->park == SM_PARK_PARKED) {
        s->park = SM_PARK_OWED;
        s->park_until = upto;
        return;
    }
    s->park = SM_PARK_NONE;
}

void sm_park_pay_owed(sm *s)
{
    s->park = SM_PARK_PARKED;
    sm_park_settle(s, s->park_until);
    s->park = SM_PARK_NONE;
}

void sm_park_disarm(sm *s)
{
    sm_park_pay(s);
    if (s->park == SM_PARK_ARMED || s->park == SM_PARK_DRAIN)
        s->park = SM_PARK_NONE;
}

/* Something reaches the SM from outside its cycle. It may move statistics (a launch counts
 * the CTA), which would land in an armed SM's measurement, so the arm is dropped. */
void sm_park_outside(sm *s, const char *what)
{
    sm_park_pay(s);
    if (s->park == SM_PARK_PARKED)
        base_panic("sm %u: %s while parked (the simulator must unpark it first)", s->id, what);
    s->park = SM_PARK_NONE;
}
