/* sm: construction, instruction decoding, CTA residency, the per-cycle driver, diagnosis. */
#include "sm_int.h"
#include "../isa/isa.h"
#include <stdlib.h>
#include <string.h>

const char *const sm_unit_names[SM_NUNIT] = {
    "sp", "dp", "int", "sfu", "tensor", "mem",
    "spec1", "spec2", "spec3", "spec4", "spec5", "spec6", "spec7", "spec8",
};
const char *const sm_stall_names[SM_NSTALL] = {
    "issued", "idle", "ibuffer_empty", "scoreboard", "pipeline_busy", "mem_pipeline_busy",
    "barrier", "membar",
};

static const stat_desc SM_DESCS[] = {
#define STAT_DEF_FILE "sm/sm_stats.def"
#include "../stat/stat_descs.inc"
};
static stat_set sm_set = {"sm", SM_DESCS, (int)BASE_ARRAY_LEN(SM_DESCS), NULL, NULL, NULL, 0};

/* Serial setup: the layout is computed on the first call, before any thread starts. */
const stat_set *sm_stats_set(void)
{
    return stat_set_lazy(&sm_set);
}

/* ---- decoding ------------------------------------------------------------------------ */

typedef struct spec_knobs {
    int enabled;
    int64_t units, lat, init;
} spec_knobs;

static spec_knobs spec_of(const knobs *k, int n)
{
    spec_knobs s = {0, 0, 1, 1};
#define SPEC_CASE(i)                                                                          \
    case i:                                                                                   \
        s.enabled = k->spec##i##_enabled;                                                     \
        s.units = k->spec##i##_units;                                                         \
        s.lat = k->lat_spec##i;                                                               \
        s.init = k->init_spec##i;                                                             \
        break;
    switch (n) {
        SPEC_CASE(1) SPEC_CASE(2) SPEC_CASE(3) SPEC_CASE(4)
        SPEC_CASE(5) SPEC_CASE(6) SPEC_CASE(7) SPEC_CASE(8)
    default: break;
    }
#undef SPEC_CASE
    return s;
}

static void timing_of(const knobs *k, int cat, int64_t *lat, int64_t *init, int *unit)
{
    *lat = *init = 1;
    *unit = k->units_int > 0 ? SM_U_INT : SM_U_SP;
    switch (cat) {
    case ISA_CAT_ALU: case ISA_CAT_INTP: case ISA_CAT_BRANCH: case ISA_CAT_CALL: case ISA_CAT_RET:
        *lat = k->lat_int, *init = k->init_int;
        break;
    case ISA_CAT_SP: *lat = k->lat_sp, *init = k->init_sp, *unit = SM_U_SP; break;
    case ISA_CAT_DP:
        *lat = k->lat_dp, *init = k->init_dp;
        *unit = k->units_dp > 0 ? SM_U_DP : SM_U_SP;
        break;
    case ISA_CAT_SFU: *lat = k->lat_sfu, *init = k->init_sfu, *unit = SM_U_SFU; break;
    case ISA_CAT_TENSOR:
        *lat = k->lat_tensor, *init = k->init_tensor;
        *unit = k->units_tensor > 0 ? SM_U_TENSOR : SM_U_SP;
        break;
    case ISA_CAT_LOAD: case ISA_CAT_STORE: case ISA_CAT_MEMBAR: *unit = SM_U_MEM; break;
    default: break;
    }
}

static void decode_one(const trace_kernel *tk, const trace_sinst *t, const knobs *k, sm_inst *d)
{
    memset(d, 0, sizeof *d);
    int64_t lat, init;
    int unit;
    timing_of(k, t->cat, &lat, &init, &unit);
    int spec = isa_cat_spec_unit((isa_cat)t->cat);
    if (spec) {
        spec_knobs sk = spec_of(k, spec);
        if (sk.enabled && sk.units > 0)
            unit = SM_U_SPEC1 + spec - 1, lat = sk.lat, init = sk.init;
        else
            d->fallback = 1, lat = k->lat_int, init = k->init_int;
    }
    if ((t->flags & TRACE_F_HALF_II) && init > 1)
        init /= 2;
    d->lat = (uint16_t)(lat > 65535 ? 65535 : lat);
    d->init = (uint16_t)(init > 65535 ? 65535 : init);
    d->op = t->kind == TRACE_KIND_LOAD     ? SM_OP_LOAD
            : t->kind == TRACE_KIND_STORE  ? SM_OP_STORE
            : t->kind == TRACE_KIND_ATOMIC ? SM_OP_ATOMIC
            : t->cat == ISA_CAT_BARRIER    ? SM_OP_BAR
            : t->cat == ISA_CAT_MEMBAR     ? SM_OP_MEMBAR
            : t->cat == ISA_CAT_EXIT       ? SM_OP_EXIT
                                           : SM_OP_ALU;
    if (d->op == SM_OP_LOAD || d->op == SM_OP_STORE || d->op == SM_OP_ATOMIC)
        unit = SM_U_MEM;
    d->unit = (uint8_t)unit;
    d->space = t->space;
    d->bypass_l1 = (t->flags & TRACE_F_BYPASS_L1) != 0;
    d->width = t->width ? t->width : 4;
    const uint16_t *r = trace_sinst_regs(tk, t);
    for (unsigned i = 0; i < t->ndst && d->ndst < SM_MAX_DST; i++)
        if (r[i] < SM_NO_REG)
            d->dst[d->ndst++] = (uint8_t)r[i];
    for (unsigned i = 0; i < t->nsrc && d->nsrc < SM_MAX_SRC; i++)
        if (r[t->ndst + i] < SM_NO_REG)
            d->src[d->nsrc++] = (uint8_t)r[t->ndst + i];
}

void sm_kernel_decode(sm_kernel *kk, const knobs *k)
{
    size_t n = trace_kernel_nsinst(kk->tk);
    if (n <= kk->ninsts)
        return;
    base_grow(&kk->insts, &kk->cap, n, sizeof *kk->insts);
    base_grow(&kk->pcs, &kk->pcs_cap, n, sizeof *kk->pcs);
    for (size_t i = kk->ninsts; i < n; i++) {
        const trace_sinst *t = trace_kernel_sinst(kk->tk, (uint32_t)i);
        decode_one(kk->tk, t, k, &kk->insts[i]);
        kk->pcs[i] = t->pc;
    }
    kk->ninsts = n;
}

/* ---- construction ---------------------------------------------------------------------- */

static uint32_t units_per_sub(const knobs *k, int64_t total, uint32_t nsub)
{
    if (total <= 0)
        return 0;
    if (!k->sub_core_model)
        return (uint32_t)(total > 4 ? 4 : total);
    int64_t per = total / nsub;
    return (uint32_t)(per < 1 ? 1 : per > 4 ? 4 : per);
}

static uint32_t banks_per_sub(const sm *s)
{
    const knobs *k = s->k;
    int64_t n = k->sub_core_model ? k->reg_banks / s->nsub : k->reg_banks;
    return n < 1 ? 1u : (uint32_t)n;
}

/* The most warp slots one scheduler holds: sub_init deals them out in turn, so scheduler i
 * gets ceil((nwarps_max - i) / nsub) of them. */
static uint32_t warps_per_sub(const sm *s) { return (s->nwarps_max + s->nsub - 1) / s->nsub; }

static void sub_init(sm *s, uint32_t i)
{
    const knobs *k = s->k;
    sm_subcore *c = &s->sub[i];
    for (uint32_t w = i; w < s->nwarps_max; w += s->nsub) /* at most warps_per_sub */
        c->warps[c->nwarps++] = w;
    c->st.last = UINT32_MAX;
    int64_t tot[SM_NUNIT] = {k->units_sp, k->units_dp, k->units_int, k->units_sfu,
                             k->units_tensor, k->units_mem};
    for (int n = 1; n <= 8; n++) {
        spec_knobs sk = spec_of(k, n);
        tot[SM_U_SPEC1 + n - 1] = sk.enabled ? sk.units : 0;
    }
    for (int u = 0; u < SM_NUNIT; u++)
        c->nunit[u] = units_per_sub(k, tot[u], s->nsub);
    c->nbanks = banks_per_sub(s);
}

/* Every per-SM array but the event heap (which issue.c may grow), in both passes of the
 * slab. Most SMs of a short run never get a CTA: what sm_new writes (the sub-cores and their
 * warp lists) comes first, so such an SM touches one page of it. */
static void sm_carve(sm *s, base_slab *b)
{
    s->sub = base_slab_take(b, s->nsub, sizeof *s->sub);
    sm_subcore sizing; /* stands in for the sub-cores, not carved yet in the sizing pass */
    /* a scheduler's warp slots are fixed (sub_init: every nsub-th), and the policy's arrays
     * hold at most those: sized to the SM's warps they made the slab up to four times as
     * large, and a small run's heap one huge page longer (session 72) */
    uint32_t per = warps_per_sub(s);
    for (uint32_t i = 0; i < s->nsub; i++) {
        sm_subcore *c = s->sub ? &s->sub[i] : &sizing;
        c->warps = base_slab_take(b, per, sizeof *c->warps);
    }
    for (uint32_t i = 0; i < s->nsub; i++) {
        sm_subcore *c = s->sub ? &s->sub[i] : &sizing;
        c->order = base_slab_take(b, per, sizeof *c->order);
        c->cand = base_slab_take(b, per, sizeof *c->cand);
        c->keep = base_slab_take(b, per, sizeof *c->keep);
        c->views = base_slab_take(b, per, sizeof *c->views);
        c->bank_free = base_slab_take(b, banks_per_sub(s), sizeof *c->bank_free);
    }
    s->w = base_slab_take(b, s->nwarps_max, sizeof *s->w);
    s->cta = base_slab_take(b, s->ncta_max, sizeof *s->cta);
    s->kept = base_slab_take(b, s->ncta_max, sizeof *s->kept);
    s->lq = base_slab_take(b, s->lq_cap, sizeof *s->lq);
    s->pend = base_slab_take(b, s->pend_cap, sizeof *s->pend);
    s->out_cap = (uint32_t)s->k->l1d_miss_queue + 4; /* + one line's fetches */
    mem_q_carve(&s->out, s->out_cap + SM_OUT_SPILL, b);
    mem_q_carve(&s->in, (uint32_t)s->k->cluster_ejection_buffer, b);
    s->waiters = base_slab_take(b, s->nwaiters, sizeof *s->waiters);
}

static cache *new_l1d(const knobs *k, int assoc)
{
    cache_cfg cfg;
    cache_cfg_from_knobs(&cfg, k, "l1d");
    if (assoc > 0)
        cfg.assoc = (uint32_t)assoc;
    return cache_new(&cfg);
}

sm *sm_new(const sm_ctx *ctx, uint32_t id)
{
    const knobs *k = ctx->k;
    sm *s = base_calloc_lines(sizeof *s); /* the queues' line (sm_int.h) */
    s->ctx = ctx;
    s->k = k;
    s->id = id;
    char name[32];
    s->sched_ops = sm_sched_find(knob_enum_name(KNOB_ID_warp_scheduler, (int)k->warp_scheduler,
                                                name, sizeof name));
    if (!s->sched_ops)
        base_panic("warp scheduler %s has no implementation", name);
    stat_block_init(&s->st, ctx->stats);
    stat_block_init(&s->l1d_hold, cache_stats_set());
    s->nwarps_max = (uint32_t)((k->max_threads_per_sm + k->warp_size - 1) / k->warp_size);
    s->ncta_max = (uint32_t)k->max_ctas_per_sm;
    s->nsub = (uint32_t)k->schedulers_per_sm;
    s->lq_cap = (uint32_t)(k->pipe_id_oc_mem > 0 ? k->pipe_id_oc_mem : 1) + 1;
    s->pend_cap = s->nwarps_max * 4 + 16;
    s->nwaiters = (size_t)(k->l1d_mshr_merge > 64 ? k->l1d_mshr_merge : 64) * 4;
    sm_carve(s, &s->slab);
    base_slab_alloc(&s->slab);
    sm_carve(s, &s->slab);
    /* Written now, while one thread runs: these are scanned (read) before they are written,
     * and a read of an untouched page maps the shared zero page, so the first write later
     * faults again and the kernel flushes that page from every core running a team thread
     * (an interrupt to each, costly under a hypervisor). */
    memset(s->w, 0, s->nwarps_max * sizeof *s->w);
    memset(s->cta, 0, s->ncta_max * sizeof *s->cta);
    for (uint32_t i = 0; i < s->nsub; i++)
        sub_init(s, i);
    s->evcap = s->nwarps_max * 8 + 64;
    /* a heap: entries past nev are never read, and zeroing would fault in every page */
    s->ev = base_malloc(s->evcap * sizeof *s->ev);
    if (k->l1d_enabled)
        s->l1d = new_l1d(k, 0);
    if (k->l1i_enabled && !k->perfect_icache && !k->perfect_inst_const_cache) {
        cache_cfg cfg;
        cache_cfg_from_knobs(&cfg, k, "l1i");
        s->l1i = cache_new(&cfg);
    }
    return s;
}

void sm_free(sm *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->cta_hw; i++)
        trace_cta_free(&s->cta[i].tc);
    free(s->fetchable);
    free(s->ev);
    free(s->park_snap);
    cache_free(s->l1d);
    cache_free(s->l1i);
    base_slab_free(&s->slab);
    stat_block_free(&s->st);
    stat_block_free(&s->l1d_hold);
    free(s);
}

/* ---- kernels and CTAs (serial) ------------------------------------------------------- */

void sm_kernel_start(sm *s, const sm_kernel *kk, int64_t carveout_kb)
{
    sm_park_outside(s, "a kernel start");
    (void)kk;
    const knobs *k = s->k;
    if (!k->l1d_enabled)
        return;
    int assoc = s->l1d_assoc;
    if (k->l1d_adaptive && carveout_kb >= 0 && k->l1d_unified_kb > carveout_kb) {
        int64_t bytes = (k->l1d_unified_kb - carveout_kb) * 1024;
        assoc = (int)(bytes / (k->l1d_sets * k->l1d_line));
        if (assoc < 1)
            assoc = 1;
    }
    if (assoc != s->l1d_assoc && s->nctas == 0 && s->npend == 0) {
        cache_reshape(s->l1d, (uint32_t)assoc, cache_config(s->l1d)->alloc);
        s->l1d_assoc = assoc;
    } else if (k->flush_l1d_per_kernel) {
        cache_invalidate(s->l1d);
    }
}

int sm_cta_fits(const sm *s, const sm_kernel *kk)
{
    const knobs *k = s->k;
    if (s->defer_kk)
        base_panic("sm %u: CTA placement with a deferred launch pending", s->id);
    uint32_t cap = (uint32_t)kk->max_ctas_per_sm;
    if (s->nctas >= s->ncta_max)
        return 0;
    /* the occupancy check accepted (or forced) at least one CTA */
    if (s->nctas && (s->threads_used + kk->padded_threads > k->max_threads_per_sm ||
                     s->regs_used + kk->regs_alloc > k->regs_per_sm ||
                     s->smem_used + kk->smem_alloc > k->smem_per_sm))
        return 0;
    /* asked every cycle: count the kernel's own CTAs only when all resident ones could be */
    return s->nctas < cap || sm_ctas_of(s, kk->uid) < cap;
}

trace_cta *sm_cta_slot(sm *s)
{
    sm_park_outside(s, "a CTA slot request");
    if (s->defer_kk)
        base_panic("sm %u: a CTA slot asked for with a deferred launch pending", s->id);
    for (uint32_t i = 0; i < s->ncta_max; i++)
        if (!s->cta[i].used) {
            s->pending_slot = i;
            if (i >= s->cta_hw)
                s->cta_hw = i + 1;
            return &s->cta[i].tc;
        }
    return NULL;
}

static void warp_start(sm *s, uint32_t w, uint32_t slot, const trace_warp *tw, uint64_t now)
{
    sm_warp *x = &s->w[w];
    memset(x, 0, sizeof *x);
    x->cta = (uint16_t)slot;
    x->pos = tw->first;
    x->end = tw->first + tw->n;
    x->age = s->next_age++;
    x->sched = (uint8_t)(w % s->nsub);
    x->ib_t = now;
    sm_warp_set_state(s, w, SM_W_ACTIVE);
}

void sm_cta_launch(sm *s, const sm_kernel *kk, uint64_t now)
{
    sm_park_outside(s, "a CTA launch");
    uint32_t slot = s->pending_slot; /* sm_cta_slot raised cta_hw for it */
    sm_cta *c = &s->cta[slot];
    if (!s->fetchable) { /* here, not in sm_new: sized by nwarps_max, needed once warps run */
        uint32_t words = (s->nwarps_max + 63) / 64;
        s->fetchable = base_calloc(2 * (size_t)words, sizeof *s->fetchable);
        s->running = s->fetchable + words;
    }
    c->kk = kk;
    c->used = 1;
    c->done = 0;
    c->nwarps = c->tc.nwarps;
    c->live = c->nwarps;
    c->at_barrier = 0;
    s->ndone += c->live == 0;
    uint32_t got = 0;
    c->first_warp = UINT32_MAX;
    for (uint32_t w = 0; w < s->nwarps_max && got < c->nwarps; w++) {
        if (s->w[w].state != SM_W_FREE)
            continue;
        if (c->first_warp == UINT32_MAX)
            c->first_warp = w;
        warp_start(s, w, slot, &c->tc.warps[got], now);
        got++;
    }
    if (got < c->nwarps)
        base_panic("sm %u: no warp slots for a CTA the occupancy check admitted", s->id);
    for (uint32_t w = 0; w < s->nwarps_max; w++)
        if (s->w[w].state == SM_W_ACTIVE && s->w[w].cta == slot)
            sm_warp_check_done(s, w);
    s->nctas++;
    s->threads_used += kk->padded_threads;
    s->regs_used += kk->regs_alloc;
    s->smem_used += kk->smem_alloc;
}

void sm_cta_launch_defer(sm *s, const sm_kernel *kk, uint64_t now)
{
    s->defer_kk = kk;
    s->defer_at = now;
}

void sm_cta_launch_pending(sm *s)
{
    const sm_kernel *kk = s->defer_kk;
    if (!kk)
        return;
    s->defer_kk = NULL;
    trace_cta_fit(&s->cta[s->pending_slot].tc);
    sm_cta_launch(s, kk, s->defer_at);
}

/* Finished CTAs leave; each one's kernel uid counts in done_by_uid, or is kept (keep). */
static uint32_t retire(sm *s, uint64_t *done_by_uid, int keep)
{
    sm_park_outside(s, "a CTA retirement");
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->cta_hw && s->ndone; i++) {
        sm_cta *c = &s->cta[i];
        if (!c->used || c->live)
            continue;
        for (uint32_t w = 0; w < s->nwarps_max; w++)
            if (s->w[w].state == SM_W_DONE && s->w[w].cta == i)
                sm_warp_set_state(s, w, SM_W_FREE);
        s->ndone--;
        s->threads_used -= c->kk->padded_threads;
        s->regs_used -= c->kk->regs_alloc;
        s->smem_used -= c->kk->smem_alloc;
        if (keep)
            s->kept[s->nkept++] = c->kk->uid;
        else
            done_by_uid[c->kk->uid]++;
        c->used = 0;
        c->kk = NULL;
        s->nctas--;
        SMST(s, ctas)++;
        n++;
    }
    return n;
}

uint32_t sm_cta_retire(sm *s, uint64_t *done_by_uid) { return retire(s, done_by_uid, 0); }

uint32_t sm_cta_retire_keep(sm *s, uint64_t now)
{
    if (sm_parked(s))
        sm_unpark(s, now);
    return retire(s, NULL, 1);
}

uint32_t sm_cta_retired_take(sm *s, uint64_t *done_by_uid)
{
    uint32_t n = s->nkept;
    for (uint32_t i = 0; i < n; i++)
        done_by_uid[s->kept[i]]++;
    s->nkept = 0;
    return n;
}

uint32_t sm_ctas_resident(const sm *s) { return s->nctas; }
int sm_ctas_done(const sm *s) { return s->ndone != 0; }

uint32_t sm_ctas_of(const sm *s, uint32_t uid)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->cta_hw; i++)
        n += s->cta[i].used && s->cta[i].kk->uid == uid;
    return n;
}

int sm_active_inside(const sm *s)
{
    return s->nctas || s->npend || s->in.n || s->busy || s->lq_n || s->nev;
}

int sm_active(const sm *s) { return s->out.n || sm_active_inside(s); }

/* A warp is finished when it executed EXIT (or ran out of instructions), nothing it issued
 * is still in a pipeline and all its stores were acknowledged. */
void sm_warp_check_done(sm *s, uint32_t w)
{
    sm_warp *x = &s->w[w];
    if (x->state == SM_W_ACTIVE && x->pos >= x->end && x->ib_n == 0)
        sm_warp_set_state(s, w, SM_W_EXITED);
    if (x->state != SM_W_EXITED || x->inflight || x->stores || x->loads)
        return;
    sm_warp_set_state(s, w, SM_W_DONE);
    sm_cta *c = &s->cta[x->cta];
    if (--c->live == 0)
        s->ndone++;
    /* a barrier waits only for warps that have not exited */
    if (c->live && c->at_barrier == c->live) {
        for (uint32_t i = 0; i < s->nwarps_max; i++)
            if (s->w[i].state == SM_W_BARRIER && s->w[i].cta == x->cta)
                sm_warp_set_state(s, i, SM_W_ACTIVE);
        c->at_barrier = 0;
    }
}

/* ---- the cycle ------------------------------------------------------------------------- */

int sm_cycle(sm *s, uint64_t now)
{
    sm_park_pay(s);
    if (s->park == SM_PARK_DRAIN && sm_park_drain(s, now))
        return 0;
    s->progress = 0;
    s->changed = 0;
    if (s->nctas)
        SMST(s, active_cycles)++;
    sm_events_run(s, now);
    sm_reply_cycle(s, now);
    sm_ldst_cycle(s, now);
    sm_issue_cycle(s, now);
    sm_fetch_cycle(s, now);
    if (s->k->fast_forward)
        sm_park_step(s, now);
    return s->progress;
}

mem_q *sm_outbound(sm *s) { return &s->out; }
int sm_queued_out(const sm *s) { return !mem_q_empty(&s->out); }
int sm_inbound_room(const sm *s) { return !mem_q_full(&s->in); }
/* The park state is left alone: this cycle takes the reply and makes progress, or, the
 * outbound queue full, finds a reply waiting and does not park (horizon), so an arm from the
 * last cycle is never used. The simulator unparked a parked SM when the reply came. */
void sm_inbound_push(sm *s, const mem_req *r)
{
    s->check_n = 0; /* a reply makes the cycle a prediction had said would repeat differ */
    mem_q_push(&s->in, r);
}

void sm_prefetch_reply(const sm *s, const mem_req *r)
{
    if (s->l1d && r->slot == SLOT_FILL && r->op != MEM_WR)
        cache_prefetch_fill_line(s->l1d, r->hint[0]);
}

void sm_prefetch_reply_early(const sm *s, const mem_req *r)
{
    if (s->l1d && r->slot == SLOT_FILL && r->op != MEM_WR)
        cache_prefetch_fill(s->l1d, r->addr, r->hint[0]);
}
stat_block *sm_stats(sm *s)
{
    sm_park_pay(s);
    return &s->st;
}
uint64_t sm_warp_insts(const sm *s) { return s->st.v[SMS_warp_insts]; }
uint32_t sm_pending_requests(const sm *s) { return s->npend; }

/* The L1D block (an empty one when the config has no L1D). */
stat_block *sm_l1d_stats(sm *s)
{
    sm_park_pay(s);
    return s->l1d ? cache_stats(s->l1d) : &s->l1d_hold;
}

/* ---- diagnosis ------------------------------------------------------------------------- */

static const char *warp_wait(const sm *s, uint32_t w, uint64_t now, char *buf, size_t n)
{
    const sm_warp *x = &s->w[w];
    if (x->state == SM_W_BARRIER)
        return "barrier";
    if (x->state == SM_W_EXITED) {
        snprintf(buf, n, "exited, waiting for %u in-flight instructions, %u loads, %u store acks",
                 x->inflight, x->loads, x->stores);
        return buf;
    }
    if (x->membar)
        snprintf(buf, n, "membar: %u store acks outstanding", x->stores);
    else if (x->ib_n == 0 || x->ib_t > now)
        snprintf(buf, n, "instruction fetch");
    else {
        const sm_kernel *kk = sm_warp_kernel(s, w);
        const trace_dinst *d = sm_warp_dinst(s, w, x->pos);
        const trace_sinst *t = trace_kernel_sinst(kk->tk, d->sidx);
        snprintf(buf, n, "next %s (pc 0x%llx): %u loads outstanding, %u in flight",
                 trace_sinst_opcode(kk->tk, t), (unsigned long long)t->pc, x->loads, x->inflight);
    }
    return buf;
}

void sm_diagnose(const sm *s, FILE *f, uint64_t now)
{
    fprintf(f, "sm %u: %u CTAs, %u pending memory instructions, LD/ST queue %u/%u%s, "
               "outbound %u/%u, inbound %u/%u\n",
            s->id, s->nctas, s->npend, s->lq_n, s->lq_cap, s->busy ? " (unit busy)" : "",
            s->out.n, s->out_cap, s->in.n, s->in.cap);
    char buf[256];
    for (uint32_t w = 0; w < s->nwarps_max; w++) {
        const sm_warp *x = &s->w[w];
        if (x->state == SM_W_FREE || x->state == SM_W_DONE)
            continue;
        fprintf(f, "  warp %u (cta slot %u, inst %u/%u): %s\n", w, x->cta, x->pos, x->end,
                warp_wait(s, w, now, buf, sizeof buf));
    }
    for (uint32_t i = 0; i < s->out.n; i++) {
        const mem_req *r = &s->out.v[(s->out.head + i) % s->out.cap];
        fprintf(f, "  outbound request 0x%llx op %u to sub-partition %u, waiting since cycle %llu\n",
                (unsigned long long)r->addr, r->op, r->part, (unsigned long long)r->t_start);
    }
}
