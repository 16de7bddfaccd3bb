/* stat: counters, distributions and ratios, declared once per statistics set.
 *
 * A set is declared with an X-macro list (see trace/trace_stats.def for an example):
 *     STAT_COUNTER(name, "help")
 *     STAT_DIST(name, bins_array, nbins, "help")   -- one counter per named bin
 *     STAT_RATIO(name, numerator, denominator, "help")  -- derived, never stored
 * From that list come the slot layout, the names, the help and both writers, so a statistic
 * cannot be printed under one name and stored under another.
 *
 * Ownership and determinism: each unit (SM, memory partition, kernel) owns its own
 * stat_block. Totals are made with stat_block_add() called in unit-index order at safe
 * points; values are integers, so the sum does not depend on the order anyway, but ratios
 * are only computed at print time from the reduced integers. */
#ifndef LOCKSTEP_STAT_H
#define LOCKSTEP_STAT_H

#include "../base/base.h"

typedef enum { STAT_T_COUNTER, STAT_T_DIST, STAT_T_RATIO } stat_type;

typedef struct stat_desc {
    const char *name;
    stat_type type;
    const char *const *bins; /* DIST: bin names */
    int nbins;
    const char *num, *den;   /* RATIO: names of two COUNTER stats of the same set */
    const char *help;
} stat_desc;

typedef struct stat_set {
    const char *name;        /* e.g. "trace", "sm", "l2" */
    const stat_desc *descs;
    int ndescs;
    /* layout, filled by stat_set_init */
    int *slot;               /* first slot of each desc (-1 for ratios) */
    int *num_slot, *den_slot;
    int nslots;
} stat_set;

typedef struct stat_block {
    const stat_set *set;
    uint64_t *v;
} stat_block;

/* Computes the layout; fails (panic) on a ratio naming an unknown counter: a coding error. */
void stat_set_init(stat_set *s);
void stat_set_free(stat_set *s);
/* For a set declared as a static with no layout yet: computes the layout on the first call
 * and returns the set. Call it from serial setup code before any thread uses the set. */
const stat_set *stat_set_lazy(stat_set *s);
int stat_find(const stat_set *s, const char *name); /* desc index or -1 */
int stat_bin_slot(const stat_set *s, const char *name); /* "name[bin]": its slot, or -1 */

void stat_block_init(stat_block *b, const stat_set *s);
void stat_block_free(stat_block *b);
void stat_block_zero(stat_block *b);
void stat_block_add(stat_block *dst, const stat_block *src); /* dst += src, slot by slot */
/* dst = sum of units[0..n) in index order: the one way per-unit blocks become totals. */
void stat_reduce(stat_block *dst, const stat_block *units, size_t n);

static inline void stat_inc(stat_block *b, int slot, uint64_t n) { b->v[slot] += n; }
/* A counter's value, a DIST's total, or ("name[bin]") one bin of a DIST. */
uint64_t stat_get(const stat_block *b, const char *name);
double stat_ratio(const stat_block *b, int desc);          /* NaN when the denominator is 0 */

/* Text: one "prefix.name = value" line per counter, DIST bins as "prefix.name[bin] = n",
 * ratios with 4 decimals ("nan" when undefined). Zero DIST bins are skipped unless `all`. */
void stat_write_text(FILE *f, const stat_block *b, const char *prefix, int all);
/* JSON: the members of an object already opened by the caller; DISTs become objects. */
void stat_write_json(base_json *j, const stat_block *b);

/* Helpers for declaring a set from an X-macro list. */
#define STAT_DESC_COUNTER(n, h) {#n, STAT_T_COUNTER, NULL, 0, NULL, NULL, h},
#define STAT_DESC_DIST(n, bins, nb, h) {#n, STAT_T_DIST, bins, nb, NULL, NULL, h},
#define STAT_DESC_RATIO(n, a, b, h) {#n, STAT_T_RATIO, NULL, 0, #a, #b, h},

#endif
