/* Native trace reader, the CTAs (docs/NATIVE.md): one block is decoded at a time into a
 * buffer sized at open, and one CTA per trace_next_cta into the caller's trace_cta. Each
 * count is checked before it is used; a corrupt block is an error naming its offset. */
#include "trace_kint.h"
#include "trace_int.h"
#include "trace_native.h"

#include <stdlib.h>
#include <string.h>

/* Inside a block's decoded data: the block's file offset, then where in its data. */
static int fail_blk(const struct trace_native *n, const uint8_t *at, base_err *e,
                    const char *what)
{
    const trace_nat_block *b = &n->blocks[n->blk];
    return trace_fail(e, "%s: byte offset %llu: expected %s (CTA %llu, byte %llu of the "
                      "decoded block)", n->name, (unsigned long long)b->offset, what,
                      (unsigned long long)n->next, (unsigned long long)(at - n->c.start));
}

/* ---- blocks ---- */

static int load_block(struct trace_native *n, trace_kernel *k, uint64_t b, base_err *e)
{
    const trace_nat_block *x = &n->blocks[b];
    const uint8_t *p, *raw;
    n->blk = UINT64_MAX;
    if (trace_nat_read(n, x->offset, x->csize, n->cbuf, &p, e))
        return -1;
    if (!n->o.skip_crc && trace_nat_crc(0, p, x->csize) != x->crc)
        return trace_nat_fail_at(n, x->offset, e, "the block checksum %08x, found %08x "
                                 "(corrupt block)", x->crc, trace_nat_crc(0, p, x->csize));
    if (trace_nat_unpack(n, p, x->csize, x->rsize, x->method, n->max_raw, x->offset, &raw, e))
        return -1;
    if (b + 1 == n->nblocks)
        trace_nat_drop_dctx(n);
    n->blk = b;
    n->c = (trace_nat_cur){raw, raw + x->rsize, raw, NULL};
    n->next = x->first_cta;
    n->left = x->nctas;
    n->lastw_ok = n->mpos_ok = 0;
    trace_nat_pred_reset(&n->pred, n->width, &k->h, x->first_cta, x->first_line);
    return 0;
}

static uint64_t find_block(const struct trace_native *n, uint64_t cta)
{
    uint64_t lo = 0, hi = n->nblocks;  /* the block holding cta is in [lo, hi) */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (n->blocks[mid].first_cta <= cta)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- one warp ---- */

static int bad_var(struct trace_native *n, const char *what, base_err *e)
{
    return fail_blk(n, n->c.bad ? n->c.bad : n->c.p, e, what);
}

static int dec_sidx(struct trace_native *n, trace_dinst *d, uint64_t cnt, base_err *e)
{
    trace_nat_cur *c = &n->c;
    uint32_t *succ = n->pred.succ, ns = n->pred.ns, prev = ns, maxs = n->maxs;
    for (uint64_t i = 0; i < cnt;) {
        uint64_t r = trace_nat_var(c);
        if (r > cnt - i)
            return bad_var(n, "a run of predicted instructions within the warp", e);
        for (uint64_t end = i + r; i < end; i++) {
            uint32_t s = succ[prev];
            if (s >= ns)
                return fail_blk(n, c->p, e, "a predicted instruction inside the dictionary");
            d[i].sidx = s;
            maxs = s > maxs ? s : maxs;
            prev = s;
        }
        if (i == cnt)
            break;
        uint64_t s = (uint64_t)succ[prev] + (uint64_t)trace_nat_unzz(trace_nat_var(c));
        if (s >= ns || c->bad)
            return bad_var(n, "a static instruction index inside the dictionary", e);
        succ[prev] = (uint32_t)s;
        d[i++].sidx = (uint32_t)s;
        maxs = (uint32_t)s > maxs ? (uint32_t)s : maxs;
        prev = (uint32_t)s;
    }
    n->maxs = maxs;
    return 0;
}

static int dec_masks(struct trace_native *n, trace_dinst *d, uint64_t cnt, base_err *e)
{
    trace_nat_cur *c = &n->c;
    uint32_t *last = n->pred.mask;
    for (uint64_t i = 0; i < cnt;) {
        uint64_t r = trace_nat_var(c);
        if (r > cnt - i)
            return bad_var(n, "a run of predicted masks within the warp", e);
        for (uint64_t end = i + r; i < end; i++)
            d[i].mask = last[d[i].sidx];
        if (i == cnt)
            break;
        uint64_t x = trace_nat_var(c);
        if (x > (uint64_t)UINT32_MAX + 1 || c->bad)
            return bad_var(n, "an active mask", e);
        uint32_t m = x ? (uint32_t)(x - 1) : i ? d[i - 1].mask : UINT32_MAX;
        last[d[i].sidx] = m;
        d[i++].mask = m;
    }
    return 0;
}

/* Offsets from the lowest address, shifted right by a common shift, in `width` bytes each;
 * spec = shift * 8 + width - 1. -1 when the data runs out. */
static int dec_packed(trace_nat_cur *c, uint64_t base, unsigned p, uint64_t *out)
{
    uint64_t spec = trace_nat_var(c);
    unsigned shift = (unsigned)(spec >> 3), width = (unsigned)(spec & 7) + 1;
    if (spec > 63 * 8 + 7 || (uint64_t)(c->end - c->p) < (uint64_t)p * width) {
        if (!c->bad)
            c->bad = c->p;
        return -1;
    }
    for (unsigned q = 0; q < p; q++) {
        uint64_t v = 0;
        for (unsigned b = 0; b < width; b++)
            v |= (uint64_t)c->p[b] << (8 * b);
        c->p += width;
        out[q] = base + (v << shift);
    }
    return 0;
}

/* s has a new lane pattern: its slot's record template no longer holds. */
static void new_pattern(struct trace_native *n, uint32_t s, const uint64_t *a, unsigned p)
{
    trace_nat_pattern_set(&n->pred, s, a, p);
    uint32_t slot = n->pred.pslot[s];
    if (slot < n->tmpl_cap)
        n->tmpl[slot].form = TRACE_NAT_TMPL_NONE;
}

/* Addresses of one instruction with p >= 1 active lanes into out (bad set on a problem); 1
 * instead when they are one stride from *base by lane (p >= 2), with *stride set; 2 when
 * they are s's lane pattern from *base (out untouched: put_pattern makes the record). */
static int dec_addr(struct trace_native *n, uint32_t s, unsigned p, uint64_t *out,
                    uint64_t *first, int64_t *stride)
{
    trace_nat_cur *c = &n->c;
    uint64_t t = p >= 2 ? trace_nat_var(c) : TRACE_NAT_SAME_STRIDE;
    uint64_t base = n->pred.base[s] + (uint64_t)trace_nat_unzz(trace_nat_var(c));
    n->pred.base[s] = base;
    switch (t) {
    case TRACE_NAT_PATTERN: {
        const uint64_t *pat = trace_nat_pattern(&n->pred, s);
        if (!pat || pat[0] != p)
            n->c.bad = n->c.bad ? n->c.bad : n->c.p;
        *first = base;
        return 2;
    }
    case TRACE_NAT_PACKED:
        if (dec_packed(c, base, p, out) == 0)
            new_pattern(n, s, out, p);
        return 0;
    case TRACE_NAT_DELTAS:
        out[0] = base;
        for (unsigned q = 1; q < p; q++)
            out[q] = out[q - 1] + (uint64_t)trace_nat_unzz(trace_nat_var(c));
        new_pattern(n, s, out, p);
        return 0;
    case TRACE_NAT_SAME_STRIDE:
        break;
    default:
        n->pred.stride[s] = trace_nat_unzz(t - TRACE_NAT_STRIDE);
    }
    if (p < 2) {
        out[0] = base;
        return 0;
    }
    *first = base;
    *stride = n->pred.stride[s];
    return 1;
}

static int has_addrs(struct trace_native *n, uint32_t s, uint32_t mask, int *has, base_err *e)
{
    uint8_t f = n->aflag[s];
    if (f != TRACE_NAT_AVARIES) {
        *has = f == TRACE_NAT_AALWAYS && mask != 0;
        return 0;
    }
    uint64_t v = trace_nat_var(&n->c);
    if (v > (mask != 0) || n->c.bad)
        return bad_var(n, "an address flag 0, or 1 with active lanes", e);
    *has = (int)v;
    return 0;
}

/* The record of d's addresses, s's lane pattern from base (checked by dec_addr): from the
 * pattern's template when it was made under d's mask, else made and kept as the template. */
static int put_pattern(struct trace_native *n, trace_cta *c, trace_dinst *d, uint64_t base,
                       unsigned p)
{
    uint32_t slot = n->pred.pslot[d->sidx];
    if (slot >= n->tmpl_cap) {
        size_t had = n->tmpl_cap;
        base_grow(&n->tmpl, &n->tmpl_cap, (size_t)slot + 1, sizeof *n->tmpl);
        for (size_t i = had; i < n->tmpl_cap; i++)
            n->tmpl[i].form = TRACE_NAT_TMPL_NONE;
    }
    struct trace_nat_tmpl *t = &n->tmpl[slot];
    if (t->form == TRACE_NAT_TMPL_NONE || t->mask != d->mask) {
        const uint64_t *pat = trace_nat_pattern(&n->pred, d->sidx);
        uint64_t a[32];
        for (unsigned q = 0; q < p; q++)
            a[q] = pat[1 + q];
        size_t at = c->nwords;
        if (trace_cta_put_addrs(c, d, a, p))
            return -1;
        t->mask = d->mask;
        t->form = (uint8_t)(d->addr >> TRACE_A_SHIFT);
        t->n = (uint8_t)(c->nwords - at);
        memcpy(t->w, c->addrs + at, t->n * sizeof *t->w);
        c->nwords = at; /* written again below, with its base */
        c->naddrs -= p;
    }
    if (c->nwords + t->n > TRACE_A_INDEX)
        return -1;
    if (c->nwords + t->n > c->addrs_cap)
        base_grow(&c->addrs, &c->addrs_cap, c->nwords + t->n, sizeof *c->addrs);
    uint64_t *w = c->addrs + c->nwords;
    memcpy(w, t->w, t->n * sizeof *w);
    /* the words that are addresses: a list's every one, the first lane's in the others */
    for (unsigned i = 0; i < (t->form == TRACE_A_LIST ? t->n : 1u); i++)
        w[i] += base;
    d->addr = (uint32_t)c->nwords | (uint32_t)t->form << TRACE_A_SHIFT;
    c->nwords += t->n;
    c->naddrs += p;
    return 0;
}

static inline __attribute__((always_inline)) int dec_one_addr(struct trace_native *n,
                                                             trace_cta *c, trace_dinst *d,
                                                             base_err *e)
{
    unsigned p = base_popcount32(d->mask);
    if (c->naddrs + p > n->max_addrs)
        return fail_blk(n, n->c.p, e, "at most the meta section's addresses per CTA");
    uint64_t a[32], base = 0;
    int64_t stride = 0;
    int st = dec_addr(n, d->sidx, p, a, &base, &stride);
    if (n->c.bad)
        return 0; /* a[] is incomplete; the caller reports the data */
    if (st == 2 ? put_pattern(n, c, d, base, p)
        : st ? trace_cta_put_stride(c, d, base, stride, p) : trace_cta_put_addrs(c, d, a, p))
        return fail_blk(n, n->c.p, e, "a CTA of fewer than 2^30 words of addresses");
    return 0;
}

/* Also remembers where the addresses were, for a next warp that copies this one. */
static int dec_addrs(struct trace_native *n, trace_cta *c, trace_dinst *d, uint64_t cnt,
                     base_err *e)
{
    if (cnt > n->mpos_cap)
        base_grow(&n->mpos, &n->mpos_cap, cnt, sizeof *n->mpos);
    int varies = 0;
    n->nmpos = 0;
    for (uint64_t i = 0; i < cnt; i++) {
        int has = 0;
        d[i].addr = TRACE_NO_ADDR;
        varies |= n->aflag[d[i].sidx] == TRACE_NAT_AVARIES;
        if (has_addrs(n, d[i].sidx, d[i].mask, &has, e))
            return -1;
        if (!has)
            continue;
        n->mpos[n->nmpos++] = (uint32_t)i;
        if (dec_one_addr(n, c, &d[i], e))
            return -1;
    }
    n->mpos_ok = !varies;
    return n->c.bad ? bad_var(n, "complete address data", e) : 0;
}

/* A warp's instruction records, copied in 32-byte pieces: a copied warp is the common case,
 * and a plain memcpy of its few hundred bytes became a microcoded string move. */
static inline void copy_insts(trace_dinst *d, const trace_dinst *pd, uint64_t cnt)
{
    unsigned char *o = (unsigned char *)d;
    const unsigned char *i = (const unsigned char *)pd;
    size_t n = cnt * sizeof *d;
    if (n < 32) {
        memcpy(o, i, n);
        return;
    }
    for (size_t k = 0; k + 32 <= n; k += 32)
        memcpy(o + k, i + k, 32);
    memcpy(o + n - 32, i + n - 32, 32); /* the tail, overlapping what is done */
}

/* The usual address of a copied warp, decoded in place: 2+ lanes at the stride this static
 * instruction had last time (mode byte 0), its base moved by a zz delta. 0 when it is not
 * that one (nothing read then); the caller has made room for the record. A bad varint is
 * left in n->c.bad, which fails the CTA. */
static inline int dec_same_stride(struct trace_native *n, trace_cta *c, trace_dinst *d,
                                  const trace_dinst *from)
{
    const uint8_t *q = n->c.p;
    unsigned p = base_popcount32(from->mask); /* d's, read where it came from */
    if (q >= n->c.end || *q != TRACE_NAT_SAME_STRIDE || p < 2 ||
        c->nwords + 2 > c->addrs_cap || c->nwords + 2 > TRACE_A_INDEX ||
        c->naddrs + p > n->max_addrs)
        return 0; /* not this form, or a limit: the general path decides */
    uint64_t v;
    if (n->c.end - q >= 3 && q[1] < 0x80) { /* a delta of one or two bytes, the usual */
        v = q[1];
        n->c.p = q + 2;
    } else if (n->c.end - q >= 3 && q[2] < 0x80) {
        v = (q[1] & 0x7fu) | (uint64_t)q[2] << 7;
        n->c.p = q + 3;
    } else {
        n->c.p = q + 1;
        v = trace_nat_var(&n->c);
    }
    uint32_t s = from->sidx;
    uint64_t base = n->pred.base[s] + (uint64_t)trace_nat_unzz(v);
    n->pred.base[s] = base;
    /* the record trace_cta_put_stride writes, in place: the call out to it cost 7% of a
     * regular trace's load */
    uint64_t *w = c->addrs + c->nwords;
    w[0] = base;
    w[1] = (uint64_t)n->pred.stride[s];
    d->addr = (uint32_t)c->nwords | (uint32_t)TRACE_A_STRIDE << TRACE_A_SHIFT;
    c->nwords += 2;
    c->naddrs += p;
    return 1;
}

/* A warp with the previous warp's instructions and masks: its addresses are where that
 * warp's were. The records are copied whole: an instruction without addresses had none in
 * the previous warp either (mpos_ok), and every one with them is decoded again below. */
static int dec_copy(struct trace_native *n, trace_cta *c, trace_dinst *d, const trace_dinst *pd,
                    uint64_t cnt, base_err *e)
{
    copy_insts(d, pd, cnt);
    size_t room = 2 * n->nmpos; /* all stride records, as usual */
    if (c->nwords + room > c->addrs_cap && c->nwords + room <= TRACE_A_INDEX)
        base_grow(&c->addrs, &c->addrs_cap, c->nwords + room, sizeof *c->addrs);
    for (size_t j = 0; j < n->nmpos; j++) {
        trace_dinst *x = &d[n->mpos[j]];
        if (dec_same_stride(n, c, x, &pd[n->mpos[j]]))
            continue;
        if (dec_one_addr(n, c, x, e))
            return -1;
    }
    return n->c.bad ? bad_var(n, "complete address data", e) : 0;
}

/* The previously decoded warp of this block, p in this CTA or else the saved one: 0 when
 * there is none (*pd is NULL when it is empty). */
static int prev_warp(const struct trace_native *n, const trace_cta *c, const trace_warp *p,
                     const trace_dinst **pd, uint64_t *pn)
{
    if (p) {
        *pn = p->n;
        *pd = p->n ? c->insts + p->first : NULL;
        return 1;
    }
    *pn = n->lastw_n;
    *pd = n->lastw_n ? n->lastw : NULL;
    return n->lastw_ok;
}

static int dec_warp(struct trace_native *n, trace_cta *c, uint32_t w, const trace_warp *p,
                    base_err *e)
{
    uint64_t h = trace_nat_var(&n->c), cnt = h >> 2, pn;
    const trace_dinst *pd;
    if (n->c.bad || cnt > n->max_insts - c->ninsts)
        return bad_var(n, "a warp's instruction count within the meta section's limit per "
                       "CTA", e);
    if ((h & (TRACE_NAT_W_SIDX | TRACE_NAT_W_MASK)) && (!prev_warp(n, c, p, &pd, &pn) || pn != cnt))
        return bad_var(n, "a warp copying the previous warp to have as many instructions", e);
    c->warps[w] = (trace_warp){(uint32_t)c->ninsts, (uint32_t)cnt, 1};
    c->nwarps_seen++;
    if (cnt == 0) {  /* the next warp's previous one: no addresses anywhere */
        n->nmpos = 0;
        n->mpos_ok = 1;
        return 0;
    }
    if (c->ninsts + cnt > c->insts_cap)
        base_grow(&c->insts, &c->insts_cap, c->ninsts + cnt, sizeof *c->insts);
    trace_dinst *d = c->insts + c->ninsts;
    prev_warp(n, c, p, &pd, &pn);  /* after the instructions may have moved */
    c->ninsts += cnt;
    if ((h & TRACE_NAT_W_SIDX) && (h & TRACE_NAT_W_MASK) && n->mpos_ok)
        return dec_copy(n, c, d, pd, cnt, e);
    if (h & TRACE_NAT_W_SIDX)
        for (uint64_t i = 0; i < cnt; i++)
            d[i].sidx = pd[i].sidx;
    else if (dec_sidx(n, d, cnt, e))
        return -1;
    if (h & TRACE_NAT_W_MASK)
        for (uint64_t i = 0; i < cnt; i++)
            d[i].mask = pd[i].mask;
    else if (dec_masks(n, d, cnt, e))
        return -1;
    return dec_addrs(n, c, d, cnt, e);
}

/* ---- one CTA ---- */

static int get_u32s(trace_nat_cur *u, uint32_t *out, int count)
{
    uint64_t v;
    for (int i = 0; i < count; i++) {
        if (trace_nat_var_max(u, UINT32_MAX, &v))
            return -1;
        out[i] = (uint32_t)v;
    }
    return 0;
}

static int dec_ids(struct trace_native *n, trace_cta *c, uint64_t fl)
{
    trace_nat_cur *u = &n->c;
    if (fl & TRACE_NAT_C_ID) {
        if (get_u32s(u, c->id, 3))
            return -1;
    } else {
        for (int i = 0; i < 3; i++) {
            if (n->pred.id[i] > UINT32_MAX) {
                u->bad = u->p;
                return -1;
            }
            c->id[i] = (uint32_t)n->pred.id[i];
        }
    }
    if ((fl & TRACE_NAT_C_CLUSTER) &&
        (get_u32s(u, c->cluster_id, 3) || get_u32s(u, c->cluster_cta, 3) ||
         get_u32s(u, &c->cluster_rank, 1)))
        return -1;
    c->line = n->pred.line;
    if (fl & TRACE_NAT_C_LINE)
        c->line += (uint64_t)trace_nat_unzz(trace_nat_var(u));
    return u->bad ? -1 : 0;
}

/* The warps in section order: explicit, or every warp in order. */
static int dec_order(struct trace_native *n, trace_cta *c, uint64_t fl, uint32_t *cnt,
                     base_err *e)
{
    if (!(fl & TRACE_NAT_C_ORDER)) {
        for (uint32_t w = 0; w < c->nwarps; w++)
            n->order[w] = w;
        *cnt = c->nwarps;
        return 0;
    }
    uint64_t v;
    if (trace_nat_var_max(&n->c, c->nwarps, &v))
        return bad_var(n, "a count of warps at most the warps per CTA", e);
    *cnt = (uint32_t)v;
    for (uint32_t i = 0; i < *cnt; i++) {
        uint64_t w;
        if (trace_nat_var_max(&n->c, c->nwarps - 1, &w) || c->warps[w].seen)
            return bad_var(n, "distinct warp indices below the warps per CTA", e);
        c->warps[w].seen = 1;  /* marks duplicates; dec_warp sets it again */
        n->order[i] = (uint32_t)w;
    }
    for (uint32_t i = 0; i < *cnt; i++)
        c->warps[n->order[i]].seen = 0;
    return 0;
}

static void keep_last_warp(struct trace_native *n, const trace_cta *c, uint32_t w)
{
    const trace_warp *x = &c->warps[w];
    if (x->n > n->lastw_cap)
        base_grow(&n->lastw, &n->lastw_cap, x->n, sizeof *n->lastw);
    if (x->n)
        copy_insts(n->lastw, c->insts + x->first, x->n);
    n->lastw_n = x->n;
    n->lastw_ok = 1;
}

static int dec_cta(struct trace_native *n, trace_kernel *k, trace_cta *c, base_err *e)
{
    uint64_t fl;
    n->maxs = 0;
    trace_k_cta_reset(c, n->next, k->h.warps_per_cta);
    if (trace_nat_var_max(&n->c, TRACE_NAT_C_ALL, &fl))
        return bad_var(n, "CTA flags 0..15", e);
    if (dec_ids(n, c, fl))
        return bad_var(n, "a thread block, cluster and line within range", e);
    uint32_t cnt = 0;
    if (dec_order(n, c, fl, &cnt, e))
        return -1;
    for (uint32_t i = 0; i < cnt; i++) {
        if (dec_warp(n, c, n->order[i], i ? &c->warps[n->order[i - 1]] : NULL, e))
            return -1;
    }
    if (cnt && n->left > 1) /* the block's last CTA leaves no warp to a next one */
        keep_last_warp(n, c, n->order[cnt - 1]);
    trace_nat_pred_next_cta(&n->pred, &k->h, c);
    return 0;
}

/* Decodes the next CTA of the file into c, loading its block when needed. */
static int step(struct trace_native *n, trace_kernel *k, trace_cta *c, base_err *e)
{
    if (n->left == 0) {
        uint64_t b = n->blk != UINT64_MAX && n->blk + 1 < n->nblocks &&
                             n->blocks[n->blk + 1].first_cta == n->next
                         ? n->blk + 1 : find_block(n, n->next);
        if (load_block(n, k, b, e))
            return -1;
    }
    if (dec_cta(n, k, c, e))
        return -1;
    n->next++;
    if (--n->left == 0 && n->c.p != n->c.end)
        return fail_blk(n, n->c.p, e, "the end of the block after its last CTA");
    return 0;
}

int trace_nat_next_cta(trace_kernel *k, trace_cta *c, base_err *e)
{
    struct trace_native *n = k->nat;
    if (n->failed || n->next >= n->nctas)
        return 0;
    if (step(n, k, c, e)) {
        n->failed = 1;
        n->left = 0;
        return -1;
    }
    if (n->maxs + (size_t)1 > k->nshown && c->ninsts)
        k->nshown = (size_t)n->maxs + 1;
    n->last_line = c->line;
    return 1;
}

int trace_nat_seek(trace_kernel *k, uint64_t cta, base_err *e)
{
    struct trace_native *n = k->nat;
    if (cta > n->nctas)
        return trace_fail(e, "%s: expected a CTA index <= %llu, found %llu", n->name,
                          (unsigned long long)n->nctas, (unsigned long long)cta);
    n->failed = 0;
    if (n->left == 0 || cta < n->next || cta >= n->next + n->left) {
        n->left = 0;
        n->next = cta;
        if (cta == n->nctas)
            return 0;
        uint64_t b = find_block(n, cta);
        if (load_block(n, k, b, e))
            return n->failed = 1, -1;
    }
    while (n->next < cta)
        if (step(n, k, &n->scratch, e)) {
            n->failed = 1;
            n->left = 0;
            return -1;
        }
    return 0;
}
