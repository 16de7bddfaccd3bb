/* Record files (FORMATS.md D.6): one gzip stream (or plain data: zlib passes it through) per
 * warp or CPU thread, decoded through a fixed buffer that always holds a whole instruction
 * (MACSIM_MAX_INST_BYTES) unless the file ends first.
 *
 * Most record files are small (a warp of nvbit_vectormultadd_4096: 222 bytes, 896 once
 * inflated; of ptx_vectoradd: 570 bytes, 3.7 KB inflated), and for them zlib's file reader costs
 * more than the inflating: its buffers and state are set up and freed per file, and the file
 * is read in several calls. A small file that is one whole gzip member is therefore read with
 * one call and inflated in one go by libdeflate, a whole-buffer inflater, into a buffer of the
 * size its trailer gives (`whole`); anything else (a larger file, plain data, several
 * members, trailing bytes, a header CRC, anything libdeflate refuses) is read again from its
 * start by zlib's reader, as before. */
#include "macsim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>

#define STREAM_BUF (64u * 1024u)
#define WHOLE_IN (16u * 1024u)      /* the largest file read whole */
#define WHOLE_OUT (4u * 1024u * 1024u) /* and the most it may inflate to */

struct macsim_stream {
    gzFile gz;              /* NULL: all of it in buf (borrowed, or owned when `own`) */
    base_buf *keep;
    char *path;
    macsim_fmt fmt;
    uint8_t *buf;
    size_t pos, len;
    uint64_t off;   /* stream offset of buf[pos] */
    int eof, own;
};

struct macsim_inflater {
    struct libdeflate_decompressor *d;
};

macsim_inflater *macsim_inflater_new(void)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    macsim_inflater *z = d ? malloc(sizeof *z) : NULL;
    if (z)
        z->d = d;
    else if (d)
        libdeflate_free_decompressor(d);
    return z;
}

void macsim_inflater_free(macsim_inflater *z)
{
    if (!z)
        return;
    libdeflate_free_decompressor(z->d);
    free(z);
}

/* Reads the file at fd whole when it is small and one whole gzip member, inflated into a
 * new s->buf (1); otherwise 0, having changed nothing in s (the caller reads it again).
 *
 * One read: Linux returns less than asked of a regular file only at its end, so a member that
 * ends where the read did is the whole file, and the read that would see the end (one more
 * system call a file, 384 files a run of nvbit_vectormultadd) is not made. libdeflate checks
 * the member's CRC-32 and size as zlib does, but skips a header CRC, which zlib checks: such a
 * header goes to zlib. It may take a malformed DEFLATE stream that zlib refuses (so its
 * documentation says); the CRC-32 still vouches for every byte it gives. Against zlib's
 * inflate here, ptx_vectoradd's 96 files took 3.2M fewer instructions (22.7M -> 19.4M a
 * run), mostly its CRC and Huffman table work. */
static int whole(macsim_stream *s, int fd, macsim_inflater *z)
{
    uint8_t in[WHOLE_IN];
    ssize_t got = read(fd, in, sizeof in);
    if (got < 18 || got == (ssize_t)sizeof in || in[0] != 0x1f || in[1] != 0x8b || (in[3] & 0x02))
        return 0; /* large, not gzip (a member is at least 18 bytes), or FHCRC set */
    size_t n = (size_t)got;
    uint32_t size = (uint32_t)in[n - 4] | (uint32_t)in[n - 3] << 8 | (uint32_t)in[n - 2] << 16 |
                    (uint32_t)in[n - 1] << 24; /* ISIZE: the inflated size, mod 2^32 */
    if (size > WHOLE_OUT)
        return 0;
    macsim_inflater *own = z ? NULL : macsim_inflater_new();
    if (!z && !(z = own))
        return 0;
    uint8_t *out = base_malloc(size ? size : 1);
    size_t used = 0, made = 0;
    enum libdeflate_result rc =
        libdeflate_gzip_decompress_ex(z->d, in, n, out, size, &used, &made);
    macsim_inflater_free(own);
    if (rc != LIBDEFLATE_SUCCESS || used != n || made != size) {
        free(out);
        return 0;
    }
    s->buf = out;
    s->len = made;
    s->own = s->eof = 1;
    return 1;
}

macsim_stream *macsim_stream_open(const char *path, const macsim_fmt *f, macsim_inflater *z,
                                  base_err *e)
{
    return macsim_stream_open_at(-1, path, path, f, z, e);
}

macsim_stream *macsim_stream_open_at(int dirfd, const char *name, const char *path,
                                     const macsim_fmt *f, macsim_inflater *z, base_err *e)
{
    errno = 0;
    int fd = dirfd < 0 ? open(path, O_RDONLY | O_CLOEXEC)
                       : openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    macsim_stream *s = fd < 0 ? NULL : base_calloc(1, sizeof *s);
    if (s && whole(s, fd, z)) {
        close(fd);
    } else if (s) {
        gzFile gz = lseek(fd, 0, SEEK_SET) == 0 ? gzdopen(fd, "rb") : NULL;
        if (!gz) {
            int err = errno;
            close(fd);
            free(s);
            s = NULL;
            errno = err;
        } else {
            s->gz = gz;
            s->buf = base_malloc(STREAM_BUF);
        }
    }
    if (!s) {
        base_fail(e, BASE_EXIT_INPUT, "%s: cannot open: %s", path,
                  errno ? strerror(errno) : "out of memory");
        return NULL;
    }
    s->path = base_strdup(path);
    s->fmt = *f;
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

void macsim_stream_keep(macsim_stream *s, base_buf *b)
{
    s->keep = b;
    if (s->own) /* all of it is in, none of it read yet */
        base_buf_put(b, (const char *)s->buf, s->len);
}

void macsim_stream_close(macsim_stream *s)
{
    if (!s)
        return;
    if (s->gz)
        gzclose(s->gz);
    if (s->gz || s->own)
        free(s->buf);
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
