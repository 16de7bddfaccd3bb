/* base_rd: a streaming line reader over a plain or xz-compressed file.
 *
 * Compression is detected from the file's magic bytes (not its name), decoded with liblzma
 * in fixed-size chunks, so memory stays bounded whatever the file size. Lines may end in
 * "\n" or "\r\n"; the terminator is stripped. A NUL byte anywhere is reported as binary
 * data with its byte offset: a binary file posing as text never reaches a parser. */
#ifndef LOCKSTEP_BASE_RD_H
#define LOCKSTEP_BASE_RD_H

#include "base.h"

typedef struct base_rd base_rd;

/* Max line length accepted before the file is rejected as malformed. */
#define BASE_RD_MAX_LINE (1u << 20)

base_rd *base_rd_open(const char *path, base_err *e);
/* Reads from memory (no copy; data must outlive the reader). `name` is used in messages. */
base_rd *base_rd_open_mem(const char *name, const void *data, size_t n, base_err *e);
void base_rd_close(base_rd *r);

/* 1: a line was read into *line (NUL-terminated, valid until the next call), length *len;
 * 0: end of file; -1: error (message in e, naming file and line or byte offset). */
int base_rd_line(base_rd *r, char **line, size_t *len, base_err *e);

const char *base_rd_name(const base_rd *r);
uint64_t base_rd_lineno(const base_rd *r);   /* number of the line last returned (1-based) */
uint64_t base_rd_offset(const base_rd *r);   /* decompressed byte offset of the next line */
int base_rd_compressed(const base_rd *r);
uint64_t base_rd_raw_bytes(const base_rd *r); /* bytes consumed from the underlying file */

/* Reads a whole text file (plain or xz) into one NUL-terminated string, lines joined with
 * "\n"; the same checks as base_rd_line. For small files such as configs. NULL on error. */
char *base_read_text(const char *path, base_err *e);

#endif
