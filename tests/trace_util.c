/* Test helpers for trace readers (trace_util.h). */
#include "trace_util.h"
#include "test.h"

#include <stdlib.h>

int tu_same_header(const trace_header *a, const trace_header *b)
{
    return !strcmp(a->name, b->name) && a->kernel_id == b->kernel_id &&
           !memcmp(a->grid, b->grid, sizeof a->grid) &&
           !memcmp(a->block, b->block, sizeof a->block) && a->shmem == b->shmem &&
           a->nregs == b->nregs && a->binary_version == b->binary_version &&
           a->family == b->family && a->stream_id == b->stream_id &&
           a->shmem_base == b->shmem_base && a->local_base == b->local_base &&
           !strcmp(a->nvbit_version, b->nvbit_version) &&
           a->tracer_version == b->tracer_version && a->lineinfo == b->lineinfo &&
           a->threads_per_cta == b->threads_per_cta && a->warps_per_cta == b->warps_per_cta &&
           a->ctas_in_grid == b->ctas_in_grid;
}

int tu_same_cta(const trace_cta *a, const trace_cta *b)
{
    if (a->index != b->index || memcmp(a->id, b->id, sizeof a->id) ||
        memcmp(a->cluster_id, b->cluster_id, sizeof a->cluster_id) ||
        memcmp(a->cluster_cta, b->cluster_cta, sizeof a->cluster_cta) ||
        a->cluster_rank != b->cluster_rank || a->line != b->line || a->nwarps != b->nwarps ||
        a->nwarps_seen != b->nwarps_seen || a->ninsts != b->ninsts || a->naddrs != b->naddrs)
        return 0;
    for (uint32_t w = 0; w < a->nwarps; w++)
        if (a->warps[w].first != b->warps[w].first || a->warps[w].n != b->warps[w].n ||
            a->warps[w].seen != b->warps[w].seen)
            return 0;
    for (size_t i = 0; i < a->ninsts; i++) {
        const trace_dinst *x = &a->insts[i], *y = &b->insts[i];
        uint64_t bx[32], by[32];
        const uint64_t *ax = trace_cta_addrs(a, x, bx), *ay = trace_cta_addrs(b, y, by);
        if (x->sidx != y->sidx || x->mask != y->mask || !ax != !ay ||
            (ax && memcmp(ax, ay, (size_t)__builtin_popcount(x->mask) * sizeof *ax)))
            return 0;
    }
    return 1;
}

int tu_same_sinst(const trace_kernel *ka, const trace_kernel *kb, uint32_t i)
{
    const trace_sinst *a = trace_kernel_sinst(ka, i), *b = trace_kernel_sinst(kb, i);
    if (!a || !b || a->pc != b->pc || a->imm != b->imm || a->line_num != b->line_num ||
        a->opcode_len != b->opcode_len || a->width != b->width || a->ndst != b->ndst ||
        a->nsrc != b->nsrc || a->cls != b->cls || a->cat != b->cat ||
        a->table_cat != b->table_cat || a->space != b->space || a->kind != b->kind ||
        a->flags != b->flags || strcmp(trace_sinst_opcode(ka, a), trace_sinst_opcode(kb, b)))
        return 0;
    unsigned nr = (unsigned)a->ndst + a->nsrc;
    return nr == 0 ||
           !memcmp(trace_sinst_regs(ka, a), trace_sinst_regs(kb, b), nr * sizeof(uint16_t));
}

/* One step of the serial reader against the split reader's outcome rb (and its CTA or error):
 * 0 while they agree and both go on; 1 when both ended, 2 when both failed alike; -1 when
 * they differ. */
static int agree(trace_kernel *serial, trace_kernel *split, trace_cta *ca, const trace_cta *cb,
                 int rb, const base_err *eb, uint64_t n, const char *what)
{
    base_err ea = {0};
    int ra = trace_next_cta(serial, ca, &ea);
    if (ra != rb) {
        test_fail_at(__FILE__, __LINE__, "%s: CTA %llu: trace_next_cta gave %d (%s), the split "
                     "reader %d (%s)", what, (unsigned long long)n, ra, ea.msg, rb, eb->msg);
        return -1;
    }
    if (ra < 0 && strcmp(ea.msg, eb->msg)) {
        test_fail_at(__FILE__, __LINE__, "%s: CTA %llu: messages differ:\n  serial: %s\n  split:  %s",
                     what, (unsigned long long)n, ea.msg, eb->msg);
        return -1;
    }
    if (ra == 1 && (!tu_same_cta(ca, cb) ||
                    trace_kernel_nsinst(serial) != trace_kernel_nsinst(split))) {
        test_fail_at(__FILE__, __LINE__, "%s: CTA %llu differs between the readers", what,
                     (unsigned long long)n);
        return -1;
    }
    return ra == 1 ? 0 : ra == 0 ? 1 : 2;
}

uint64_t tu_check_split(trace_kernel *serial, trace_kernel *split, unsigned nchunks,
                        unsigned batch, const char *what)
{
    trace_chunk **ch = calloc(nchunks, sizeof *ch);
    trace_cta *cb = calloc(batch, sizeof *cb), ca = {0};
    for (unsigned i = 0; i < nchunks; i++)
        ch[i] = trace_chunk_new();
    unsigned next = 0;
    uint64_t n = 0;
    int state = 0; /* as agree() */
    while (state == 0) {
        base_err es = {0};
        unsigned m = 0;
        int sp = 1;
        while (m < batch && (sp = trace_split_cta(split, ch[(next + m) % nchunks], &es)) == 1)
            m++;
        for (unsigned i = m; i-- > 0;)
            trace_parse_chunk(split, ch[(next + i) % nchunks], &cb[i]);
        for (unsigned i = 0; i < m && state == 0; i++, n++) {
            base_err eb = {0};
            int rb = trace_adopt_cta(split, ch[(next + i) % nchunks], &cb[i], &eb) ? -1 : 1;
            if (rb == 1) /* as the simulator's read-ahead: the chunk is reused after it */
                trace_chunk_done(ch[(next + i) % nchunks]);
            state = agree(serial, split, &ca, &cb[i], rb, &eb, n, what);
        }
        next = (next + m) % nchunks;
        if (state == 0 && sp <= 0)
            state = agree(serial, split, &ca, &ca, sp, &es, n, what);
    }
    if (state == 1) { /* after an error, what a reader's dictionary holds does not matter */
        CHECK_EQ(trace_kernel_nsinst(serial), trace_kernel_nsinst(split));
        for (uint32_t i = 0; i < trace_kernel_nsinst(serial); i++)
            if (!tu_same_sinst(serial, split, i)) {
                test_fail_at(__FILE__, __LINE__, "%s: dictionary entry %u differs", what, i);
                break;
            }
    }
    for (unsigned i = 0; i < nchunks; i++)
        trace_chunk_free(ch[i]);
    for (unsigned i = 0; i < batch; i++)
        trace_cta_free(&cb[i]);
    trace_cta_free(&ca);
    free(cb);
    free(ch);
    return n;
}
