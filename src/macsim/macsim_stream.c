/* Record files (FORMATS.md D.6): one gzip stream (or plain data: zlib passes it through) per
 * warp or CPU thread, decoded through a fixed buffer that always holds a whole instruction
 * (MACSIM_MAX_INST_BYTES) unless the file ends first. */
#include "macsim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define STREAM_BUF (64u * 1024u)

struct macsim_stream {
    gzFile gz;              /* NULL: over memory (buf borrowed, all of it there) */
    base_buf *keep;
    char *path;
    macsim_fmt fmt;
    uint8_t *buf;
    size_t pos, len;
    uint64_t off;   /* stream offset of buf[pos] */
    int eof;
};

macsim_stream *macsim_stream_open(const char *path, const macsim_fmt *f, base_err *e)
{
    errno = 0;
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        base_fail(e, BASE_EXIT_INPUT, "%s: cannot open: %s", path,
                  errno ? strerror(errno) : "out of memory");
        return NULL;
    }
    macsim_stream *s = base_calloc(1, sizeof *s);
    s->gz = gz;
    s->path = base_strdup(path);
    s->fmt = *f;
    s->buf = base_malloc(STREAM_BUF);
    return s;
}

macsim_stream *macsim_stream_mem(const char *path, const macsim_fmt *f, const void *data,
                                 size_t n)
{
    macsim_stream *s = base_calloc(1, sizeof *s);
    s->path = base_strdup(path);
    s->fmt = *f;
    s->buf = (uint8_t *)data;
    s->len = n;
    s->eof = 1;
    return s;
}

void macsim_stream_keep(macsim_stream *s, base_buf *b) { s->keep = b; }

void macsim_stream_close(macsim_stream *s)
{
    if (!s)
        return;
    if (s->gz) {
        gzclose(s->gz);
        free(s->buf);
    }
    free(s->path);
    free(s);
}

static int fill(macsim_stream *s, base_err *e)
{
    if (s->eof || s->len - s->pos >= MACSIM_MAX_INST_BYTES)
        return 0;
    memmove(s->buf, s->buf + s->pos, s->len - s->pos);
    s->len -= s->pos;
    s->pos = 0;
    while (!s->eof && s->len < STREAM_BUF) {
        int got = gzread(s->gz, s->buf + s->len, (unsigned)(STREAM_BUF - s->len));
        int err = Z_OK;
        const char *msg = got <= 0 ? gzerror(s->gz, &err) : "";
        /* Z_BUF_ERROR at the end is a gzip stream cut short, not a clean end. */
        if (got < 0 || (got == 0 && err != Z_OK && err != Z_STREAM_END))
            return base_fail(e, BASE_EXIT_INPUT, "%s: byte offset %llu: cannot decompress: %s",
                             s->path, (unsigned long long)(s->off + s->len),
                             err == Z_BUF_ERROR ? "the gzip stream is truncated" : msg);
        s->eof = got == 0;
        if (s->keep && got > 0)
            base_buf_put(s->keep, (const char *)s->buf + s->len, (size_t)got);
        s->len += (size_t)got;
    }
    return 0;
}

int macsim_stream_gpu(macsim_stream *s, macsim_ginst *g, base_err *e)
{
    if (fill(s, e))
        return -1;
    int n = macsim_decode_gpu(&s->fmt, s->buf + s->pos, s->len - s->pos, s->off, s->path, g, e);
    if (n <= 0)
        return n;
    s->pos += (size_t)n;
    s->off += (uint64_t)n;
    return 1;
}

int macsim_stream_cpu(macsim_stream *s, macsim_cinst *c, base_err *e)
{
    if (fill(s, e))
        return -1;
    int n = macsim_decode_cpu(&s->fmt, s->buf + s->pos, s->len - s->pos, s->off, s->path, c, e);
    if (n <= 0)
        return n;
    s->pos += (size_t)n;
    s->off += (uint64_t)n;
    return 1;
}
