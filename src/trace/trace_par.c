/* Reading thread blocks on several threads: split in order, parse anywhere, adopt in order.
 *
 * Parsing a text thread block (tokenising, hex and decimal fields, dictionary lookups) costs
 * far more than finding where it ends, and only the dictionary ties one block's parse to the
 * blocks before it: an instruction's index is its position among the distinct static
 * instructions in file order. So a chunk parses into a dictionary of its own, through the
 * very code trace_next_cta runs (a reader over the chunk's lines, r NULL), and adoption in
 * file order looks up the chunk's entries that are new to it, in the order the chunk met
 * them, in the kernel's dictionary. An entry new to the kernel is new to the chunk too (the
 * chunk's earlier blocks were adopted before), and the chunk met its new entries in file
 * order, so the kernel's dictionary grows exactly as it would have read serially. */
#include "trace_kint.h"
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>

struct trace_chunk {
    trace_kernel sub;     /* the reader over text, with its own dictionary */
    int bound;            /* sub carries its kernel's header */
    char *text;           /* the block's lines, each NUL-terminated */
    size_t len, cap;
    uint64_t first;       /* number of the first line (its #BEGIN_TB) */
    uint64_t index;       /* the block's position in the file */
    int read_err;         /* the lines stopped at a read error, rerr */
    base_err rerr;
    int parsed;           /* 1: parsed; -1: failed with perr */
    base_err perr;
    uint32_t *map;        /* sub's dictionary index -> the kernel's, for the first nmapped */
    size_t map_cap, nmapped;
    int identity;         /* map[i] == i for all of them */
};

trace_chunk *trace_chunk_new(void)
{
    trace_chunk *ch = base_calloc(1, sizeof *ch);
    ch->identity = 1;
    return ch;
}

void trace_chunk_free(trace_chunk *ch)
{
    if (!ch)
        return;
    trace_k_parser_free(&ch->sub);
    free(ch->text);
    free(ch->map);
    free(ch);
}

size_t trace_chunk_bytes(const trace_chunk *ch) { return ch->len; }

/* Kept, a ring's chunks would each hold the largest CTA's text they ever split: 46 x 462 KB
 * for sgemm 256, where a batch needs at most 8 MB at once. */
#define CHUNK_KEEP_BYTES ((size_t)256 << 10)

void trace_chunk_done(trace_chunk *ch)
{
    if (ch->cap <= CHUNK_KEEP_BYTES)
        return;
    free(ch->text);
    ch->text = NULL;
    ch->len = ch->cap = 0;
}

static void append(trace_chunk *ch, const char *line, size_t n)
{
    base_grow(&ch->text, &ch->cap, ch->len + n + 1, 1);
    memcpy(ch->text + ch->len, line, n);
    ch->text[ch->len + n] = 0;
    ch->len += n + 1;
}

int trace_split_cta(trace_kernel *k, trace_chunk *ch, base_err *e)
{
    if (!trace_kernel_is_text(k) || k->chunked)
        return trace_fail(e, "%s: internal: thread blocks are split from text kernel files only",
                          trace_k_name(k));
    int rc = trace_k_begin_cta(k, e);
    if (rc <= 0)
        return rc;
    ch->index = k->ctas++;
    ch->first = trace_k_lineno(k);
    ch->len = 0;
    ch->read_err = 0;
    ch->parsed = 0;
    append(ch, k->line, k->len);
    base_err_clear(&ch->rerr); /* written only by the read that fails, which ends the loop */
    for (;;) {
        rc = trace_k_line(k, &ch->rerr);
        if (rc < 0) {
            ch->read_err = 1;
            k->done = 1; /* as after any failed block: no resynchronising */
            break;
        }
        if (rc == 0)
            break;
        append(ch, k->line, k->len);
        if (trace_k_is_word(k, "#END_TB"))
            break;
    }
    return 1;
}

void trace_parse_chunk(const trace_kernel *k, trace_chunk *ch, trace_cta *cta)
{
    trace_kernel *s = &ch->sub;
    if (!ch->bound) {
        s->h = k->h; /* its strings stay the kernel's: sub never frees them */
        s->fmt = k->fmt;
        s->chunked = 1;
        s->cur_name = trace_k_name(k);
        ch->bound = 1;
    }
    s->cur = ch->text;
    s->cur_end = ch->text + ch->len;
    s->cur_lineno = ch->first - 1;
    s->cur_err = ch->read_err ? &ch->rerr : NULL;
    s->done = 0;
    s->pending = 0;
    s->ctas = ch->index;
    base_err_clear(&ch->perr);
    int rc = trace_next_cta(s, cta, &ch->perr);
    if (rc == 0)
        trace_fail(&ch->perr, "%s:%llu: internal: a split thread block without its lines",
                   s->cur_name, (unsigned long long)ch->first);
    ch->parsed = rc == 1 ? 1 : -1;
}

int trace_adopt_cta(trace_kernel *k, trace_chunk *ch, trace_cta *cta, base_err *e)
{
    if (ch->parsed <= 0) {
        if (ch->parsed == 0)
            return trace_fail(e, "%s: internal: a thread block adopted before its parse",
                              trace_k_name(k));
        *e = ch->perr;
        return -1;
    }
    const trace_kernel *s = &ch->sub;
    base_grow(&ch->map, &ch->map_cap, s->nsinst, sizeof *ch->map);
    for (size_t i = ch->nmapped; i < s->nsinst; i++) {
        const trace_sinst *si = &s->sinst[i];
        trace_line l = {.pc = si->pc, .imm = si->imm, .line_num = si->line_num,
                        .opcode = s->str + si->opcode, .opcode_len = si->opcode_len,
                        .ndst = si->ndst, .nsrc = si->nsrc,
                        .regs = s->regs ? s->regs + si->regs : NULL};
        int64_t g = trace_k_dict_index(k, &l, e);
        if (g < 0)
            return -1;
        ch->map[i] = (uint32_t)g;
        ch->identity &= g == (int64_t)i;
    }
    ch->nmapped = s->nsinst;
    if (!ch->identity)
        for (size_t i = 0; i < cta->ninsts; i++)
            cta->insts[i].sidx = ch->map[cta->insts[i].sidx];
    return 0;
}
