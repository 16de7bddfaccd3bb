#include "stat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int stat_find(const stat_set *s, const char *name)
{
    for (int i = 0; i < s->ndescs; i++)
        if (strcmp(s->descs[i].name, name) == 0)
            return i;
    return -1;
}

static int counter_slot(stat_set *s, const char *name, const char *ratio)
{
    int i = stat_find(s, name);
    if (i < 0 || s->descs[i].type != STAT_T_COUNTER)
        base_panic("stat set %s: ratio %s names %s, which is not a counter", s->name, ratio,
                   name);
    return s->slot[i];
}

void stat_set_init(stat_set *s)
{
    s->slot = base_malloc((size_t)s->ndescs * sizeof *s->slot);
    s->num_slot = base_malloc((size_t)s->ndescs * sizeof *s->num_slot);
    s->den_slot = base_malloc((size_t)s->ndescs * sizeof *s->den_slot);
    int n = 0;
    for (int i = 0; i < s->ndescs; i++) {
        const stat_desc *d = &s->descs[i];
        for (int k = 0; k < i; k++)
            if (strcmp(s->descs[k].name, d->name) == 0)
                base_panic("stat set %s: %s declared twice", s->name, d->name);
        s->slot[i] = d->type == STAT_T_RATIO ? -1 : n;
        n += d->type == STAT_T_COUNTER ? 1 : d->type == STAT_T_DIST ? d->nbins : 0;
    }
    s->nslots = n;
    for (int i = 0; i < s->ndescs; i++) {
        const stat_desc *d = &s->descs[i];
        s->num_slot[i] = s->den_slot[i] = -1;
        if (d->type == STAT_T_RATIO) {
            s->num_slot[i] = counter_slot(s, d->num, d->name);
            s->den_slot[i] = counter_slot(s, d->den, d->name);
        }
    }
}

const stat_set *stat_set_lazy(stat_set *s)
{
    if (!s->slot)
        stat_set_init(s);
    return s;
}

void stat_set_free(stat_set *s)
{
    free(s->slot);
    free(s->num_slot);
    free(s->den_slot);
    s->slot = s->num_slot = s->den_slot = NULL;
}

void stat_block_init(stat_block *b, const stat_set *s)
{
    b->set = s;
    b->v = base_calloc((size_t)s->nslots, sizeof *b->v);
}

void stat_block_free(stat_block *b)
{
    free(b->v);
    b->v = NULL;
}

void stat_block_zero(stat_block *b) { memset(b->v, 0, (size_t)b->set->nslots * sizeof *b->v); }

void stat_block_add(stat_block *dst, const stat_block *src)
{
    if (dst->set != src->set)
        base_panic("stat_block_add: blocks of different sets");
    for (int i = 0; i < dst->set->nslots; i++)
        dst->v[i] += src->v[i];
}

void stat_reduce(stat_block *dst, const stat_block *units, size_t n)
{
    stat_block_zero(dst);
    for (size_t i = 0; i < n; i++)
        stat_block_add(dst, &units[i]);
}

int stat_bin_slot(const stat_set *s, const char *name)
{
    const char *open = strchr(name, '['), *close = strrchr(name, ']');
    if (!open || !close || close[1] || close < open)
        return -1;
    size_t len = (size_t)(open - name), blen = (size_t)(close - open - 1);
    for (int i = 0; i < s->ndescs; i++) {
        const stat_desc *d = &s->descs[i];
        if (d->type != STAT_T_DIST || strncmp(d->name, name, len) || d->name[len])
            continue;
        for (int k = 0; k < d->nbins; k++)
            if (strlen(d->bins[k]) == blen && !strncmp(d->bins[k], open + 1, blen))
                return s->slot[i] + k;
    }
    return -1;
}

uint64_t stat_get(const stat_block *b, const char *name)
{
    int i = stat_find(b->set, name);
    if (i < 0) {
        int k = stat_bin_slot(b->set, name);
        if (k < 0)
            base_panic("stat %s.%s does not exist", b->set->name, name);
        return b->v[k];
    }
    const stat_desc *d = &b->set->descs[i];
    if (d->type == STAT_T_RATIO)
        base_panic("stat_get on ratio %s", name);
    uint64_t t = 0;
    int n = d->type == STAT_T_DIST ? d->nbins : 1;
    for (int k = 0; k < n; k++)
        t += b->v[b->set->slot[i] + k];
    return t;
}

double stat_ratio(const stat_block *b, int desc)
{
    uint64_t den = b->v[b->set->den_slot[desc]];
    if (den == 0)
        return NAN;
    return (double)b->v[b->set->num_slot[desc]] / (double)den;
}

void stat_write_text(FILE *f, const stat_block *b, const char *prefix, int all)
{
    const stat_set *s = b->set;
    const char *dot = prefix && *prefix ? "." : "";
    if (!prefix)
        prefix = "";
    for (int i = 0; i < s->ndescs; i++) {
        const stat_desc *d = &s->descs[i];
        if (d->type == STAT_T_COUNTER) {
            const char *part[] = {prefix, dot, d->name};
            base_put_u64_line(f, part, 3, b->v[s->slot[i]]);
        } else if (d->type == STAT_T_DIST) {
            for (int k = 0; k < d->nbins; k++) {
                uint64_t v = b->v[s->slot[i] + k];
                const char *part[] = {prefix, dot, d->name, "[", d->bins[k], "]"};
                if (v || all)
                    base_put_u64_line(f, part, 6, v);
            }
        } else {
            double r = stat_ratio(b, i);
            if (isnan(r))
                fprintf(f, "%s%s%s = nan\n", prefix, dot, d->name);
            else
                fprintf(f, "%s%s%s = %.4f\n", prefix, dot, d->name, r);
        }
    }
}

void stat_write_json(base_json *j, const stat_block *b)
{
    const stat_set *s = b->set;
    for (int i = 0; i < s->ndescs; i++) {
        const stat_desc *d = &s->descs[i];
        base_json_key(j, d->name);
        if (d->type == STAT_T_COUNTER) {
            base_json_u64(j, b->v[s->slot[i]]);
        } else if (d->type == STAT_T_DIST) {
            base_json_obj_begin(j);
            for (int k = 0; k < d->nbins; k++) {
                base_json_key(j, d->bins[k]);
                base_json_u64(j, b->v[s->slot[i] + k]);
            }
            base_json_obj_end(j);
        } else {
            base_json_double(j, stat_ratio(b, i));
        }
    }
}
