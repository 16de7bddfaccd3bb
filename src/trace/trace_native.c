/* Native trace format: what reader and writer share (predictions, warp order, checksums,
 * output names). Format: docs/NATIVE.md. */
#include "trace_native.h"
#include "trace_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* ---- predictions ---- */

void trace_nat_pred_init(trace_nat_pred *p, uint32_t ns)
{
    memset(p, 0, sizeof *p);
    p->ns = ns;
    p->succ = base_malloc(((size_t)ns + 1) * sizeof *p->succ);
    p->mask = base_malloc(((size_t)ns + 1) * sizeof *p->mask);
    p->base = base_malloc(((size_t)ns + 1) * sizeof *p->base);
    p->stride = base_malloc(((size_t)ns + 1) * sizeof *p->stride);
    p->pslot = base_malloc(((size_t)ns + 1) * sizeof *p->pslot);
}

void trace_nat_pred_free(trace_nat_pred *p)
{
    free(p->succ);
    free(p->mask);
    free(p->base);
    free(p->stride);
    free(p->pslot);
    free(p->pool);
    memset(p, 0, sizeof *p);
}

/* Grid position of the CTA at linear index i (the order the post-processor writes). */
static void linear_id(const trace_header *h, uint64_t i, uint64_t id[3])
{
    id[0] = i % h->grid[0];
    i /= h->grid[0];
    id[1] = i % h->grid[1];
    id[2] = i / h->grid[1];
}

void trace_nat_pred_reset(trace_nat_pred *p, const uint16_t *widths, const trace_header *h,
                          uint64_t first_cta, uint64_t first_line)
{
    for (uint32_t s = 0; s < p->ns; s++) {
        p->succ[s] = s + 1;
        p->mask[s] = UINT32_MAX;
        p->base[s] = 0;
        p->stride[s] = widths[s];
        p->pslot[s] = UINT32_MAX;
    }
    p->npool = 0;
    p->succ[p->ns] = 0;
    linear_id(h, first_cta, p->id);
    p->line = first_line;
}

void trace_nat_pattern_set(trace_nat_pred *p, uint32_t s, const uint64_t *a, unsigned n)
{
    uint64_t *q = trace_nat_pattern(p, s);
    if (!q) {
        base_grow(&p->pool, &p->pool_cap, (p->npool + 1) * 33, sizeof *p->pool);
        p->pslot[s] = (uint32_t)p->npool++;
        q = trace_nat_pattern(p, s);
    }
    q[0] = n;
    for (unsigned i = 0; i < n; i++)
        q[1 + i] = a[i] - a[0];
}

static int has_cluster_lines(const trace_header *h, const trace_cta *c)
{
    return h->tracer_version >= 6 || c->cluster_rank ||
           (c->cluster_id[0] | c->cluster_id[1] | c->cluster_id[2] | c->cluster_cta[0] |
            c->cluster_cta[1] | c->cluster_cta[2]);
}

void trace_nat_pred_next_cta(trace_nat_pred *p, const trace_header *h, const trace_cta *c)
{
    /* "#BEGIN_TB", blank, "thread block", per warp: blank, "warp", "insts", lines; blank,
     * "#END_TB", blank */
    uint64_t lines = 6 + (has_cluster_lines(h, c) ? 3 : 0);
    for (uint32_t w = 0; w < c->nwarps; w++)
        if (c->warps[w].seen)
            lines += 3 + (uint64_t)c->warps[w].n;
    p->line = c->line + lines;
    uint64_t id[3] = {(uint64_t)c->id[0] + 1, c->id[1], c->id[2]};
    if (id[0] >= h->grid[0]) {
        id[0] = 0;
        if (++id[1] >= h->grid[1]) {
            id[1] = 0;
            id[2]++;
        }
    }
    memcpy(p->id, id, sizeof id);
}

uint32_t trace_nat_warp_order(const trace_cta *c, uint32_t *order)
{
    uint32_t n = 0;
    for (uint32_t w = 0; w < c->nwarps; w++) {
        if (!c->warps[w].seen)
            continue;
        /* insertion sort: CTAs are small and nearly always already in order */
        const trace_warp *x = &c->warps[w];
        uint32_t i = n++;
        while (i > 0) {
            const trace_warp *y = &c->warps[order[i - 1]];
            if (y->first < x->first || (y->first == x->first && (y->n == 0 || x->n != 0)))
                break;
            order[i] = order[i - 1];
            i--;
        }
        order[i] = w;
    }
    return n;
}

/* ---- checksums ---- */

uint32_t trace_nat_crc(uint32_t c, const void *p, uint64_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        uInt part = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = (uint32_t)crc32(c, b, part);
        b += part;
        n -= part;
    }
    return c;
}

/* ---- output files ---- */

int trace_nat_mkdirs(const char *dir, base_err *e)
{
    char *p = base_strdup(dir);
    int rc = 0;
    for (char *s = p + 1; *s && rc == 0; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            rc = -1;
        *s = '/';
    }
    if (rc == 0 && mkdir(dir, 0777) != 0 && errno != EEXIST)
        rc = -1;
    free(p);
    struct stat st;
    if (rc != 0)
        return trace_fail(e, "%s: cannot create directory: %s", dir, strerror(errno));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return trace_fail(e, "%s: exists and is not a directory", dir);
    return 0;
}

static int strip(char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n <= m || strcmp(s + n - m, suffix) != 0)
        return 0;
    s[n - m] = 0;
    return 1;
}

char *trace_nat_out_name(const char *src, const char *suffix)
{
    const char *slash = strrchr(src, '/');
    char *b = base_strdup(slash ? slash + 1 : src);
    if (!strip(b, TRACE_NATIVE_SUFFIX) && !strip(b, ".traceg.xz"))
        strip(b, ".traceg");
    char *out = base_sprintf("%s%s", b, suffix);
    free(b);
    return out;
}
