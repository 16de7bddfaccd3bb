/* Test helpers for trace readers: field-by-field comparisons of headers, CTAs and dictionary
 * entries, and the check that reading a kernel split into chunks (trace_split_cta,
 * trace_parse_chunk, trace_adopt_cta) gives what trace_next_cta gives. */
#ifndef LOCKSTEP_TEST_TRACE_UTIL_H
#define LOCKSTEP_TEST_TRACE_UTIL_H

#include "trace/trace.h"

int tu_same_header(const trace_header *a, const trace_header *b);
int tu_same_cta(const trace_cta *a, const trace_cta *b);
/* Entry i of both dictionaries (0 when either has none). */
int tu_same_sinst(const trace_kernel *ka, const trace_kernel *kb, uint32_t i);

/* Reads two readers of the same text kernel to the end: `serial` with trace_next_cta, `split`
 * in batches of `batch` thread blocks taken from a pool of `nchunks` chunks used round-robin
 * (batch <= nchunks), each batch parsed last block first and adopted in order, as the
 * simulator's read-ahead does. Records a failure (naming `what`) unless every CTA, the return
 * codes, any error message and the final dictionaries agree. Returns the CTAs read. */
uint64_t tu_check_split(trace_kernel *serial, trace_kernel *split, unsigned nchunks,
                        unsigned batch, const char *what);

#endif
