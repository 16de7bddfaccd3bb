/* Buffered plain/xz atomic writer (see wr.h). */
#include "wr.h"

#include <errno.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WR_BUF (256u * 1024u)

struct base_wr {
    base_out out;
    int xz, failed;
    char *path;
    char why[128];
    lzma_stream lz;
    uint64_t bytes;
    size_t n;                 /* bytes pending in buf */
    unsigned char buf[WR_BUF];
    unsigned char zbuf[WR_BUF];
};

static void wr_failed(base_wr *w, const char *why)
{
    if (!w->failed) {
        w->failed = 1;
        snprintf(w->why, sizeof w->why, "%s", why);
    }
}

static void wr_raw(base_wr *w, const void *p, size_t n)
{
    if (!w->failed && fwrite(p, 1, n, w->out.f) != n)
        wr_failed(w, strerror(errno));
}

/* Pushes buf through the encoder (or straight out); finish ends the xz stream. */
static void wr_flush(base_wr *w, int finish)
{
    if (!w->xz) {
        wr_raw(w, w->buf, w->n);
        w->n = 0;
        return;
    }
    w->lz.next_in = w->buf;
    w->lz.avail_in = w->n;
    for (;;) {
        w->lz.next_out = w->zbuf;
        w->lz.avail_out = sizeof w->zbuf;
        lzma_ret rc = lzma_code(&w->lz, finish ? LZMA_FINISH : LZMA_RUN);
        wr_raw(w, w->zbuf, sizeof w->zbuf - w->lz.avail_out);
        if (rc == LZMA_STREAM_END)
            break;
        if (rc != LZMA_OK) {
            wr_failed(w, "xz encoder error");
            break;
        }
        if (!finish && w->lz.avail_in == 0)
            break;
    }
    w->n = 0;
}

base_wr *base_wr_open(const char *path, int xz, base_err *e)
{
    base_wr *w = base_calloc(1, sizeof *w);
    if (base_out_open(&w->out, path, e) != 0) {
        free(w);
        return NULL;
    }
    w->xz = xz;
    w->path = base_strdup(path);
    if (xz) {
        lzma_stream init = LZMA_STREAM_INIT;
        w->lz = init;
        if (lzma_easy_encoder(&w->lz, 6, LZMA_CHECK_CRC64) != LZMA_OK) {
            base_out_abort(&w->out);
            free(w->path);
            free(w);
            base_fail(e, BASE_EXIT_INTERNAL, "%s: cannot start the xz encoder", path);
            return NULL;
        }
    }
    return w;
}

void base_wr_write(base_wr *w, const void *data, size_t n)
{
    const unsigned char *p = data;
    w->bytes += n;
    while (n > 0) {
        size_t k = sizeof w->buf - w->n;
        if (k > n)
            k = n;
        memcpy(w->buf + w->n, p, k);
        w->n += k;
        p += k;
        n -= k;
        if (w->n == sizeof w->buf)
            wr_flush(w, 0);
    }
}

void base_wr_puts(base_wr *w, const char *s)
{
    base_wr_write(w, s, strlen(s));
}

void base_wr_printf(base_wr *w, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        wr_failed(w, "formatting error");
        return;
    }
    if ((size_t)n < sizeof small) {
        base_wr_write(w, small, (size_t)n);
        return;
    }
    char *big = base_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    base_wr_write(w, big, (size_t)n);
    free(big);
}

static void wr_free(base_wr *w)
{
    if (w->xz)
        lzma_end(&w->lz);
    free(w->path);
    free(w);
}

int base_wr_commit(base_wr *w, base_err *e)
{
    wr_flush(w, 1);
    if (w->failed) {
        base_fail(e, BASE_EXIT_INPUT, "%s: write failed: %s", w->path, w->why);
        base_out_abort(&w->out);
        wr_free(w);
        return -1;
    }
    int rc = base_out_commit(&w->out, e);
    wr_free(w);
    return rc;
}

void base_wr_abort(base_wr *w)
{
    if (!w)
        return;
    base_out_abort(&w->out);
    wr_free(w);
}

uint64_t base_wr_bytes(const base_wr *w)
{
    return w->bytes;
}
