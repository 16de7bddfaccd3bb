/* Internals of lockstep's native binary trace format (docs/NATIVE.md), shared by the reader
 * (trace_native_rd.c), the writer (trace_native_wr.c), tests and the fuzz target. Not part of
 * the public API: trace.h has that.
 *
 * The instruction stream is coded against predictions that reader and writer must update in
 * exactly the same way; they live here (trace_nat_pred) so that both sides share one copy. */
#ifndef LOCKSTEP_TRACE_NATIVE_H
#define LOCKSTEP_TRACE_NATIVE_H

#include <stdint.h>
#include <string.h>
#include <zstd.h>

#include "trace.h"

struct trace_native;

#define TRACE_NAT_MAGIC "LSTRACE"        /* then one version byte */
#define TRACE_NAT_END_MAGIC "LSTE"
#define TRACE_NAT_VERSION 1u
#define TRACE_NAT_HEADER 8u              /* magic and version */
#define TRACE_NAT_FOOTER 20u             /* fixed footer at the end of the file */
#define TRACE_NAT_BLOCK_TARGET (1u << 20) /* writer closes a block at this many raw bytes */
#define TRACE_NAT_MAX_RAW (1ull << 30)   /* largest decoded block or tail */
#define TRACE_NAT_MAX_STR (1u << 20)     /* kernel name and NVBit version */

/* File: "LSTRACE" + version byte; the blocks; the tail (meta, dictionary and index, stored
 * whole, zstd-compressed when that is smaller); the footer: u32 tail bytes as stored, u32
 * tail bytes decoded, u32 method, u32 CRC-32 of the stored tail and the footer's first 12
 * bytes, "LSTE". Little-endian. Index entries (varints): stored bytes, decoded bytes, CTAs,
 * method, zigzag difference of the first CTA's line from the previous block's, then the
 * CRC-32 of the stored block as 4 bytes. */

enum { TRACE_NAT_RAW = 0, TRACE_NAT_ZSTD = 1 };                      /* section methods */
enum { TRACE_NAT_ANEVER = 0, TRACE_NAT_AALWAYS = 1, TRACE_NAT_AVARIES = 2 }; /* address flags */
enum {                                                              /* CTA flags */
    TRACE_NAT_C_ID = 1, TRACE_NAT_C_CLUSTER = 2, TRACE_NAT_C_ORDER = 4, TRACE_NAT_C_LINE = 8,
    TRACE_NAT_C_ALL = 15
};
/* Warp header: instruction count << 2 | these (copy from the previous warp of the CTA). */
enum { TRACE_NAT_W_SIDX = 1, TRACE_NAT_W_MASK = 2 };
/* Address-mode token for two or more active lanes; a larger value is TRACE_NAT_STRIDE +
 * zigzag(lane stride). */
enum {
    TRACE_NAT_SAME_STRIDE = 0, TRACE_NAT_DELTAS = 1, TRACE_NAT_PACKED = 2, TRACE_NAT_PATTERN = 3,
    TRACE_NAT_STRIDE = 4
};

/* One block of the index (offset and first CTA follow from the entries before it). */
typedef struct trace_nat_block {
    uint64_t offset, first_cta, first_line;
    uint32_t csize, rsize, nctas, crc, method;
} trace_nat_block;

/* ---- little-endian fixed fields and varints ---- */

static inline void trace_nat_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void trace_nat_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t trace_nat_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t trace_nat_get64(const uint8_t *p)
{
    return (uint64_t)trace_nat_get32(p) | (uint64_t)trace_nat_get32(p + 4) << 32;
}

static inline uint64_t trace_nat_zz(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t trace_nat_unzz(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* ---- predictions (reset at the start of every block) ---- */

typedef struct trace_nat_pred {
    uint32_t ns;          /* dictionary size; succ[ns] is the start of a warp */
    uint32_t *succ;       /* the static instruction that followed each one last time */
    uint32_t *mask;       /* last active mask of each static instruction */
    uint64_t *base;       /* last first-lane address of each */
    int64_t *stride;      /* last lane stride of each */
    uint32_t *pslot;      /* each one's lane pattern in pool, UINT32_MAX: none yet */
    uint64_t *pool;       /* patterns: lane count, then each lane's offset from lane 0 */
    size_t npool, pool_cap;
    uint64_t id[3];       /* predicted "thread block" of the next CTA */
    uint64_t line;        /* predicted line of the next #BEGIN_TB */
} trace_nat_pred;

void trace_nat_pred_init(trace_nat_pred *p, uint32_t ns);
void trace_nat_pred_free(trace_nat_pred *p);
/* The lane pattern of static instruction s (33 words: count, offsets), NULL when none. */
static inline uint64_t *trace_nat_pattern(const trace_nat_pred *p, uint32_t s)
{
    return p->pslot[s] == UINT32_MAX ? NULL : p->pool + (size_t)p->pslot[s] * 33;
}
/* Remembers the p addresses a as the lane pattern of s. */
void trace_nat_pattern_set(trace_nat_pred *p, uint32_t s, const uint64_t *a, unsigned n);
/* Block start: dictionary order, full masks, lane stride = access width (widths[ns]). */
void trace_nat_pred_reset(trace_nat_pred *p, const uint16_t *widths, const trace_header *h,
                          uint64_t first_cta, uint64_t first_line);
/* After a CTA: the next one is expected at the following grid position, and at the line
 * where the Accel-Sim post-processor's layout would put it. */
void trace_nat_pred_next_cta(trace_nat_pred *p, const trace_header *h, const trace_cta *c);

/* Seen warps in the order their sections appear (by first instruction; an empty warp
 * before a non-empty one that starts at the same index; else by warp number). Returns
 * the count; order has room for c->nwarps entries. */
uint32_t trace_nat_warp_order(const trace_cta *c, uint32_t *order);

/* ---- reader (trace_native_rd.c: the container; trace_native_dec.c: the CTAs) ---- */

typedef struct trace_native_opts {
    int skip_crc;               /* 1: ignore checksums, to reach the decoders when fuzzing */
    uint64_t max_raw;           /* cap on a decoded block or tail (default and most 1 GiB) */
    uint64_t max_cta_insts;     /* cap on instructions per CTA (addresses: 32 times that) */
} trace_native_opts;

/* A cursor over decoded bytes; a varint that runs past the end or overflows sets bad (the
 * first such place) and reads as 0, so loops check once per group. */
typedef struct trace_nat_cur {
    const uint8_t *p, *end, *start;
    const uint8_t *bad;
} trace_nat_cur;

struct trace_native {
    char *name;
    int fd;                    /* -1 when reading memory */
    const uint8_t *mem;
    uint64_t size, tail_off;
    trace_native_opts o;
    uint64_t nctas, nblocks, max_insts, max_addrs, max_raw, max_comp;
    trace_nat_block *blocks;
    uint8_t *cbuf, *rbuf;
    ZSTD_DCtx *dctx;           /* made at the first zstd frame (trace_nat_drop_dctx) */
    uint8_t *aflag;            /* per static instruction: TRACE_NAT_A* */
    uint16_t *width;
    uint32_t *order;           /* warps_per_cta */
    trace_nat_pred pred;
    uint64_t blk;              /* block loaded, UINT64_MAX when none */
    trace_nat_cur c;           /* in the loaded block's decoded data */
    uint64_t next, left;       /* next CTA's index; CTAs left in the block */
    uint32_t maxs;             /* largest sidx of the CTA just decoded */
    trace_dinst *lastw;        /* the last warp decoded in this block (of an earlier CTA) */
    size_t lastw_cap, lastw_n;
    int lastw_ok;
    uint32_t *mpos;            /* positions of the last warp's instructions with addresses */
    size_t mpos_cap, nmpos;
    int mpos_ok;               /* mpos is usable (that warp had no address-flag bytes) */
    /* Per lane-pattern slot (pred.pslot): the address record its pattern gives with base 0,
     * under the mask it was made for. A record's form and every word but its addresses
     * depend only on the lanes' offsets from the first, so a later use of the pattern
     * copies it and adds the base (form TRACE_NAT_TMPL_NONE: none). */
    struct trace_nat_tmpl *tmpl;
    size_t tmpl_cap;
    int failed;
    uint64_t bytes, last_line;
    trace_cta scratch;         /* CTAs skipped by a seek */
};

#define TRACE_NAT_TMPL_NONE 0xffu
struct trace_nat_tmpl {
    uint32_t mask;
    uint8_t form, n;           /* TRACE_A_* and the record's words */
    uint64_t w[32];
};

uint64_t trace_nat_var_slow(trace_nat_cur *c);

/* With 10 bytes left no byte needs a bounds check. */
static inline uint64_t trace_nat_var_fast(trace_nat_cur *c)
{
    const uint8_t *p = c->p;
    uint64_t v = 0;
    for (int sh = 0; sh < 63; sh += 7) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << sh;
        if (b < 0x80) {
            c->p = p;
            return v;
        }
    }
    if (*p > 1)
        return trace_nat_var_slow(c);
    v |= (uint64_t)*p++ << 63;
    c->p = p;
    return v;
}

static inline uint64_t trace_nat_var(trace_nat_cur *c)
{
    if (c->p < c->end && *c->p < 0x80)
        return *c->p++;
    return c->end - c->p >= 10 ? trace_nat_var_fast(c) : trace_nat_var_slow(c);
}

/* A varint that must be <= max; -1 (bad set) otherwise. */
int trace_nat_var_max(trace_nat_cur *c, uint64_t max, uint64_t *v);

/* "NAME: byte offset OFF: expected WHAT": -1. */
int trace_nat_fail_at(const struct trace_native *n, uint64_t off, base_err *e, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
/* Reads len bytes at off: into buf from a file, or a pointer into memory. */
int trace_nat_read(struct trace_native *n, uint64_t off, uint64_t len, uint8_t *buf,
                   const uint8_t **out, base_err *e);
/* Decodes a stored section or block (method) of rsize <= cap bytes into n->rbuf, or points
 * at it when stored raw. */
int trace_nat_unpack(struct trace_native *n, const uint8_t *src, uint64_t csize, uint64_t rsize,
                     uint32_t method, uint64_t cap, uint64_t at, const uint8_t **out,
                     base_err *e);
/* Frees the zstd context trace_nat_unpack made, if any (the next zstd frame makes another). */
void trace_nat_drop_dctx(struct trace_native *n);

/* Opens a native kernel from a file (mem NULL) or from memory (kept by the caller until
 * close); name is used in messages. o may be NULL (defaults). */
trace_kernel *trace_nat_open(const char *name, const void *mem, size_t n,
                             const trace_native_opts *o, base_err *e);
int trace_nat_next_cta(trace_kernel *k, trace_cta *c, base_err *e);
int trace_nat_seek(trace_kernel *k, uint64_t cta, base_err *e);
void trace_nat_free(struct trace_native *n);
uint64_t trace_nat_bytes(const trace_kernel *k);
uint64_t trace_nat_lines(const trace_kernel *k);
uint64_t trace_nat_nctas(const trace_kernel *k);

/* trace_native_write_kernel with blocks closed at block_target raw bytes (0: the default);
 * tests use small blocks to exercise the index. */
int trace_nat_write(const char *src, const char *dst, int level, uint64_t block_target,
                    trace_convert_summary *s, base_err *e);

/* CRC-32 (zlib's) of n more bytes after c (0 to start). */
uint32_t trace_nat_crc(uint32_t c, const void *p, uint64_t n);

/* mkdir -p. 0, or -1 with e set. */
int trace_nat_mkdirs(const char *dir, base_err *e);
/* The name a converted kernel file gets: the source's file name without directory and
 * without its .traceg, .traceg.xz or native suffix, then `suffix`. */
char *trace_nat_out_name(const char *src, const char *suffix);

#endif
