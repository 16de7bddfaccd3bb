/* base_wr: a buffered output file, plain or xz-compressed, written atomically.
 *
 * Bytes go to "<path>.tmp.<pid>" (base_out) and reach <path> only on base_wr_commit, so a
 * failed or interrupted run never leaves a half-written file under the final name. xz output
 * uses liblzma's single-threaded encoder at a fixed preset, so equal input gives
 * byte-identical files. Errors are sticky: writes after a failure are dropped and the first
 * problem is reported by base_wr_commit. */
#ifndef LOCKSTEP_BASE_WR_H
#define LOCKSTEP_BASE_WR_H

#include "base.h"

typedef struct base_wr base_wr;

/* xz: 0 plain, 1 xz (preset 6). NULL with e set when the temporary cannot be created. */
base_wr *base_wr_open(const char *path, int xz, base_err *e);
void base_wr_write(base_wr *w, const void *data, size_t n);
void base_wr_puts(base_wr *w, const char *s);
void base_wr_printf(base_wr *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flushes, finishes the xz stream, renames into place and frees w. 0, or -1 with e set (the
 * temporary is removed). */
int base_wr_commit(base_wr *w, base_err *e);
/* Drops the temporary and frees w (NULL is allowed). */
void base_wr_abort(base_wr *w);
/* Uncompressed bytes written so far. */
uint64_t base_wr_bytes(const base_wr *w);

#endif
