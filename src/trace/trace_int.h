/* Internal helpers shared by the trace module's files (not part of the public API). */
#ifndef LOCKSTEP_TRACE_INT_H
#define LOCKSTEP_TRACE_INT_H

#include "../base/base.h"

/* base_fail with BASE_EXIT_INPUT. */
int trace_fail(base_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "FILE:LINE: expected WHAT, found 'TOKEN'" (or "found the end of the line" when s is NULL);
 * the token is shortened and non-printable bytes escaped so the message stays one line. */
int trace_fail_found(base_err *e, const char *file, uint64_t line, const char *what,
                     const char *s, size_t n);

/* Writes s[0..n) into dst (size cap) with at most `max` source bytes, escaping bytes outside
 * printable ASCII as \xNN and appending "..." when shortened. */
void trace_quote(char *dst, size_t cap, const char *s, size_t n, size_t max);

/* Puts "PREFIX: " in front of an error message already in e. */
void trace_err_prefix(base_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
