#include "rd.h"

#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHUNK (256u * 1024u)

struct base_rd {
    char *name;
    FILE *f;                 /* NULL for memory input */
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    int xz;
    lzma_stream lz;
    unsigned char *in;       /* compressed input chunk */
    int in_eof;
    unsigned char *buf;      /* decompressed data */
    size_t beg, end, cap;
    int eof;
    char *line;
    size_t line_cap;
    uint64_t lineno, offset, raw;
};

static const unsigned char XZ_MAGIC[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};

static size_t raw_read(base_rd *r, unsigned char *dst, size_t n)
{
    size_t got;
    if (r->f) {
        got = fread(dst, 1, n, r->f);
    } else {
        got = r->mem_len - r->mem_pos < n ? r->mem_len - r->mem_pos : n;
        memcpy(dst, r->mem + r->mem_pos, got);
        r->mem_pos += got;
    }
    r->raw += got;
    return got;
}

/* `size`: the input's length when known (the buffer grows on demand): a short config or
 * list file needs no 256 KB buffer, which malloc would map and unmap for each file. */
static base_rd *rd_new(const char *name, size_t size)
{
    base_rd *r = base_calloc(1, sizeof *r);
    r->name = base_strdup(name);
    r->cap = size < CHUNK - 64 ? size + 64 : CHUNK;
    r->buf = base_malloc(r->cap);
    return r;
}

static size_t file_size(FILE *f)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0)
        return CHUNK;
    return (size_t)st.st_size;
}

/* Peeks the first bytes to choose plain or xz decoding. */
static int rd_start(base_rd *r, base_err *e)
{
    size_t n = raw_read(r, r->buf, sizeof XZ_MAGIC);
    if (n == sizeof XZ_MAGIC && memcmp(r->buf, XZ_MAGIC, n) == 0) {
        r->xz = 1;
        if (r->cap < CHUNK) { /* decompressed data is larger than the file */
            r->cap = CHUNK;
            r->buf = base_realloc(r->buf, r->cap);
        }
        r->in = base_malloc(CHUNK);
        memcpy(r->in, r->buf, n);
        lzma_stream init = LZMA_STREAM_INIT;
        r->lz = init;
        if (lzma_stream_decoder(&r->lz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
            return base_fail(e, BASE_EXIT_INTERNAL, "%s: cannot start the xz decoder", r->name);
        r->lz.next_in = r->in;
        r->lz.avail_in = n;
        return 0;
    }
    r->end = n;
    return 0;
}

base_rd *base_rd_open(const char *path, base_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        base_fail(e, BASE_EXIT_INPUT, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    base_rd *r = rd_new(path, file_size(f));
    r->f = f;
    if (rd_start(r, e)) {
        base_rd_close(r);
        return NULL;
    }
    return r;
}

base_rd *base_rd_open_mem(const char *name, const void *data, size_t n, base_err *e)
{
    base_rd *r = rd_new(name, n);
    r->mem = data;
    r->mem_len = n;
    if (rd_start(r, e)) {
        base_rd_close(r);
        return NULL;
    }
    return r;
}

void base_rd_close(base_rd *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    if (r->xz)
        lzma_end(&r->lz);
    free(r->in);
    free(r->buf);
    free(r->line);
    free(r->name);
    free(r);
}

/* Decompresses (or reads) more data after r->end; returns bytes added, 0 at EOF, -1 error. */
static long fill_xz(base_rd *r, base_err *e)
{
    r->lz.next_out = r->buf + r->end;
    r->lz.avail_out = r->cap - r->end;
    while (r->lz.avail_out == r->cap - r->end) {
        if (r->lz.avail_in == 0 && !r->in_eof) {
            r->lz.next_in = r->in;
            r->lz.avail_in = raw_read(r, r->in, CHUNK);
            if (r->lz.avail_in == 0) {
                if (r->f && ferror(r->f))
                    return base_fail(e, BASE_EXIT_INPUT, "%s: read error", r->name);
                r->in_eof = 1;
            }
        }
        lzma_ret rc = lzma_code(&r->lz, r->in_eof ? LZMA_FINISH : LZMA_RUN);
        if (rc == LZMA_STREAM_END)
            break;
        if (rc != LZMA_OK) {
            const char *why = rc == LZMA_DATA_ERROR  ? "corrupt data"
                              : rc == LZMA_BUF_ERROR ? "truncated stream"
                              : rc == LZMA_FORMAT_ERROR ? "not an xz stream"
                                                       : "decoder error";
            return base_fail(e, BASE_EXIT_INPUT,
                             "%s: xz: %s near compressed byte offset %llu", r->name, why,
                             (unsigned long long)(r->raw - r->lz.avail_in));
        }
    }
    size_t got = (r->cap - r->end) - r->lz.avail_out;
    r->end += got;
    return (long)got;
}

static long fill(base_rd *r, base_err *e)
{
    if (r->beg > 0) {
        memmove(r->buf, r->buf + r->beg, r->end - r->beg);
        r->end -= r->beg;
        r->beg = 0;
    }
    if (r->end == r->cap)
        base_grow(&r->buf, &r->cap, r->cap * 2, 1);
    if (r->xz)
        return fill_xz(r, e);
    size_t got = raw_read(r, r->buf + r->end, r->cap - r->end);
    if (got == 0 && r->f && ferror(r->f))
        return base_fail(e, BASE_EXIT_INPUT, "%s: read error", r->name);
    r->end += got;
    return (long)got;
}

int base_rd_line(base_rd *r, char **line, size_t *len, base_err *e)
{
    size_t scan = r->beg;
    for (;;) {
        unsigned char *nl = memchr(r->buf + scan, '\n', r->end - scan);
        if (nl || (r->eof && r->end > r->beg)) {
            size_t n = nl ? (size_t)(nl - (r->buf + r->beg)) : r->end - r->beg;
            const unsigned char *p = r->buf + r->beg;
            const unsigned char *z = memchr(p, 0, n);
            if (z)
                return base_fail(e, BASE_EXIT_INPUT,
                                 "%s: byte offset %llu (line %llu): binary data (NUL byte), "
                                 "expected a text file",
                                 r->name, (unsigned long long)(r->offset + (uint64_t)(z - p)),
                                 (unsigned long long)r->lineno + 1);
            size_t adv = n + (nl ? 1 : 0);
            if (n > 0 && p[n - 1] == '\r')
                n--;
            base_grow(&r->line, &r->line_cap, n + 1, 1);
            memcpy(r->line, p, n);
            r->line[n] = 0;
            r->beg += adv;
            r->offset += adv;
            r->lineno++;
            *line = r->line;
            *len = n;
            return 1;
        }
        if (r->eof)
            return 0;
        if (r->end - r->beg > BASE_RD_MAX_LINE)
            return base_fail(e, BASE_EXIT_INPUT,
                             "%s:%llu: line longer than %u bytes, expected a text file", r->name,
                             (unsigned long long)r->lineno + 1, BASE_RD_MAX_LINE);
        scan = r->end - r->beg;
        long got = fill(r, e);
        if (got < 0)
            return -1;
        scan += r->beg;
        if (got == 0)
            r->eof = 1;
    }
}

const char *base_rd_name(const base_rd *r) { return r->name; }
uint64_t base_rd_lineno(const base_rd *r) { return r->lineno; }
uint64_t base_rd_offset(const base_rd *r) { return r->offset; }
int base_rd_compressed(const base_rd *r) { return r->xz; }
uint64_t base_rd_raw_bytes(const base_rd *r) { return r->raw; }

char *base_read_text(const char *path, base_err *e)
{
    base_rd *r = base_rd_open(path, e);
    if (!r)
        return NULL;
    base_buf b = {0};
    char *line;
    size_t len;
    int rc;
    while ((rc = base_rd_line(r, &line, &len, e)) == 1) {
        base_buf_put(&b, line, len);
        base_buf_putc(&b, '\n');
    }
    base_rd_close(r);
    if (rc < 0) {
        base_buf_free(&b);
        return NULL;
    }
    if (!b.s)
        base_buf_puts(&b, "");
    return b.s;
}
