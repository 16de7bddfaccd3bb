/* MacSim GPU trace -> Accel-Sim trace directory, so the timing model has one input path.
 * docs/MACSIM.md lists the opcode mapping and the assumptions behind addresses. Every choice
 * keeps the counts: each MacSim warp instruction becomes one line with the same active mask,
 * and an instruction is a memory instruction on the Accel-Sim side (A.8) exactly when MacSim
 * counts it as one (D.5). */
#include "macsim_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../isa/isa.h"
#include "../trace/write.h"

#define DEFAULT_BINARY_VERSION 80
#define DEFAULT_NREGS 32
#define SHMEM_GRANULE 256

/* Candidates are tried in order until the target family's table has the first token:
 * "IADD3|IADD" is IADD3 from Pascal on and IADD on Kepler. */
typedef struct ptx_map {
    const char *i, *f;   /* integer, floating-point (NULL: same as integer) */
} ptx_map;

#define IADD "IADD3|IADD"
#define LOGIC "LOP3|LOP"

/* v1.4 numbering. Opcodes that only occur as memory instructions (LD, ST, ATOM, RED,
 * MEM_*) map through mem_opcode(); missing rows are NOP. */
static const ptx_map PTX_MAP[153] = {
    [1] = {"IABS|" IADD, "FADD"}, [2] = {"IABS|" IADD, "DADD"}, [3] = {IADD, "FADD"},
    [4] = {IADD, "DADD"}, [5] = {IADD, 0}, [6] = {LOGIC, 0}, [7] = {LOGIC, 0},
    [12] = {"BAR.ARV", 0}, [13] = {"BAR.SYNC", 0}, [14] = {"BAR.RED.POPC", 0},
    [15] = {"BFE|SHF", 0}, [16] = {"BFE|SHF", 0}, [17] = {"BFI|" LOGIC, 0},
    [18] = {"BFI|" LOGIC, 0}, [19] = {"FLO", 0}, [20] = {"FLO", 0}, [21] = {"BRA", 0},
    [22] = {"BREV|BFE|SHF", 0}, [23] = {"BREV|BFE|SHF", 0}, [24] = {"BPT", 0},
    [25] = {"CALL|JCAL|CAL", 0}, [26] = {"FLO", 0}, [27] = {"FLO", 0}, [28] = {LOGIC, 0},
    [29] = {LOGIC, 0}, [30] = {LOGIC, 0}, [31] = {LOGIC, 0}, [32] = {"MUFU", 0},
    [33] = {"I2I", "I2F"}, [34] = {"I2I", "I2F"}, [35] = {IADD, 0}, [36] = {IADD, 0},
    [37] = {"IMAD", "MUFU"}, [38] = {"IMAD", "DFMA"}, [39] = {"MUFU", 0}, [40] = {"EXIT", 0},
    [41] = {"IMAD", "FFMA"}, [42] = {"IMAD", "DFMA"}, [43] = {"ISETP", 0}, [48] = {"MUFU", 0},
    [49] = {"IMAD", 0}, [50] = {"IMAD", "FFMA"}, [51] = {"IMAD", "DFMA"}, [52] = {"IMAD", 0},
    [53] = {"IMAD", 0}, [54] = {"IMNMX", "FMNMX"}, [55] = {"IMNMX", "DMNMX|DSETP"},
    [56] = {"MEMBAR.CTA", 0}, [57] = {"MEMBAR.GPU", 0}, [58] = {"MEMBAR.SYS", 0},
    [59] = {"IMNMX", "FMNMX"}, [60] = {"IMNMX", "DMNMX|DSETP"}, [61] = {"MOV", 0},
    [62] = {"MOV", 0}, [63] = {"IMAD", 0}, [64] = {"IMAD", "FMUL"}, [65] = {"IMAD", "DMUL"},
    [66] = {IADD, "FADD"}, [67] = {IADD, "DADD"}, [68] = {LOGIC, 0}, [69] = {LOGIC, 0},
    [70] = {LOGIC, 0}, [71] = {LOGIC, 0}, [72] = {"NOP", 0}, [73] = {"POPC", 0},
    [74] = {"POPC", 0}, [75] = {"CCTL", 0}, [76] = {"CCTL", 0}, [77] = {"PRMT", 0},
    [78] = {"MUFU", 0}, [79] = {"MUFU", 0}, [84] = {"IMAD", 0}, [85] = {"IMAD", 0},
    [86] = {"RET", 0}, [87] = {"MUFU", 0}, [88] = {"MUFU", 0}, [89] = {"VABSDIFF|" IADD, 0},
    [90] = {"VABSDIFF|" IADD, 0}, [91] = {"SEL", "FSEL|SEL"}, [92] = {"SEL", "FSEL|SEL"},
    [93] = {"ISETP", "FSETP"}, [94] = {"ISETP", "DSETP"}, [95] = {"ISETP", "FSETP"},
    [96] = {"ISETP", "DSETP"}, [97] = {"SHFL", 0}, [98] = {"SHFL", 0}, [99] = {"SHF", 0},
    [100] = {"SHF", 0}, [101] = {"SHF", 0}, [102] = {"SHF", 0}, [103] = {"MUFU", 0},
    [104] = {"SEL", "FSEL|SEL"}, [105] = {"SEL", "FSEL|SEL"}, [106] = {"MUFU", 0},
    [107] = {"MUFU", 0}, [110] = {IADD, "FADD"}, [111] = {IADD, "DADD"}, [112] = {IADD, 0},
    [113] = {"SULD|TLD", 0}, [114] = {"SULD|TLD", 0}, [115] = {"SURED|TLD", 0},
    [116] = {"SURED|TLD", 0}, [117] = {"SUST|TLD", 0}, [118] = {"SUST|TLD", 0},
    [119] = {"TXQ", 0}, [120] = {"FSETP", 0}, [121] = {"FSETP", 0}, [122] = {"TEX", 0},
    [123] = {"TLD4", 0}, [124] = {"TXQ", 0}, [125] = {"BPT", 0},
    [126] = {"VABSDIFF|" IADD, 0}, [127] = {IADD, 0}, [128] = {"IMAD", 0}, [129] = {"IMNMX", 0},
    [130] = {"IMNMX", 0}, [131] = {"ISETP", 0}, [132] = {"SHF", 0}, [133] = {"SHF", 0},
    [134] = {IADD, 0}, [135] = {"VOTE", 0}, [136] = {LOGIC, 0}, [137] = {LOGIC, 0},
    [138] = {"NOP", 0}, [139] = {"MOV", 0}, [150] = {"MOV", 0}, [151] = {"MOV", 0},
    [152] = {"MOV", 0},
};

/* First candidate of "A.MOD|B|C" whose first token the family knows, into buf. */
static int pick(int fam, const char *cands, char *buf, size_t cap)
{
    for (const char *p = cands; *p;) {
        size_t n = strcspn(p, "|"), tok = strcspn(p, ".|");
        if (isa_lookup_op(fam, p, tok)) {
            snprintf(buf, cap, "%.*s", (int)n, p);
            return 0;
        }
        p += n + (p[n] == '|');
    }
    return -1;
}

/* Width modifier as A.7 reads it back: 1 -> U8, 2 -> U16, 4 -> none, n -> n*8 bits. */
static void add_width(char *buf, size_t cap, unsigned size)
{
    size_t n = strlen(buf);
    if (size == 1 || size == 2)
        snprintf(buf + n, cap - n, ".U%u", size * 8);
    else if (size != 4)
        snprintf(buf + n, cap - n, ".%u", size * 8);
}

/* Memory instructions by (kind, space): generic and texture accesses become global ones (an
 * Accel-Sim generic LD/ST without shared/local windows would count as shared); param and
 * constant loads are LDC; the atomic operation itself is not recorded and is written ADD. */
#define ST_G "STG|ST"
#define AT_G "ATOMG|ATOM"
static const char *const MEM_MAP[MACSIM_NKIND][MACSIM_NSPACE] = {
    /* none, const, global, local, param, shared, texture, generic */
    {"LDG", "LDC", "LDG", "LDL", "LDC", "LDS", "LDG", "LDG"},
    {ST_G, ST_G, ST_G, "STL", ST_G, "STS", ST_G, ST_G},
    {AT_G, AT_G, AT_G, AT_G, AT_G, "ATOMS|ATOM", AT_G, AT_G},
};

static int mem_opcode(const macsim_fmt *f, const macsim_ginst *g, int fam, char *buf,
                      size_t cap)
{
    int red = f->type == MACSIM_NVBIT
                  ? g->opcode == MACSIM_NVBIT_RED
                  : g->opcode >= MACSIM_PTX_RED_GM && g->opcode <= MACSIM_PTX_RED_GM + 3;
    const char *c = MEM_MAP[g->kind % MACSIM_NKIND][g->space % MACSIM_NSPACE];
    if (red && g->kind == MACSIM_ATOMIC && g->space != MACSIM_SPACE_SHARED)
        c = "RED|ATOM";
    if (pick(fam, c, buf, cap))
        return -1;
    if (!strcmp(buf, "LDC"))
        return 0;   /* LDC lines carry no addresses (A.7) */
    static const char *const ext[] = {"LDG", "STG", "ST", "ATOMG", "ATOM", "RED"};
    for (size_t i = 0; i < BASE_ARRAY_LEN(ext); i++)
        if (!strcmp(buf, ext[i]))
            strncat(buf, ".E", cap - strlen(buf) - 1);
    if (g->kind == MACSIM_ATOMIC)
        strncat(buf, ".ADD", cap - strlen(buf) - 1);
    add_width(buf, cap, g->mem_size);
    return g->mem_size;
}

int macsim_sass_opcode(const macsim_fmt *f, const macsim_ginst *g, int fam, char *buf,
                       size_t cap)
{
    if (g->is_mem)
        return mem_opcode(f, g, fam, buf, cap);
    char name[32];
    const char *cands;
    if (f->type == MACSIM_NVBIT) {
        const char *n = macsim_opcode_name(f->type, g->opcode);
        snprintf(name, sizeof name, "%s", g->opcode == MACSIM_NVBIT_BAR ? "BAR.SYNC" : n ? n : "?");
        if (!isa_lookup_op(fam, name, strcspn(name, ".")) && strchr(name, '_'))
            *strchr(name, '_') = '.';   /* UIADD3_64 is UIADD3.64 */
        cands = name;
    } else {
        const ptx_map *m = g->opcode < BASE_ARRAY_LEN(PTX_MAP) ? &PTX_MAP[g->opcode] : NULL;
        cands = !m || !m->i ? "NOP" : g->is_fp && m->f ? m->f : m->i;
    }
    if (pick(fam, cands, buf, cap))
        return -1;
    /* Not a memory instruction for MacSim, so not one here either (e.g. LDS without is-load). */
    trace_space sp;
    trace_kind kd;
    int bypass;
    trace_opcode_space(buf, strlen(buf), &sp, &kd, &bypass);
    return sp == TRACE_SPACE_NONE ? 0 : pick(fam, "NOP", buf, cap);
}

/* The records the checking pass keeps for the writing pass by default: a small trace is
 * decompressed once; a large one's later files are read again, and memory stays bounded. */
#define KEEP_BYTES ((size_t)64 << 20)

/* ---- writing ---- */

/* A kernel has a few dozen static instructions and each becomes the same opcode text on
 * every execution, so the translation (table searches, candidate lists, snprintf: a tenth of
 * a MacSim run) is done once per distinct input and remembered. It is a function of the key
 * alone, so a slot's evictions cannot change what is written. */
#define OP_MEMO_BITS 8
#define OP_MEMO (1u << OP_MEMO_BITS)

typedef struct op_memo {
    uint32_t key;           /* op_key(); 0: empty */
    int width;              /* macsim_sass_opcode's result */
    char op[60];
} op_memo;

typedef struct conv {
    const macsim_run *r;
    trace_wdir *d;
    int fam, binary_version;
    uint32_t nregs;
    base_buf text;          /* one warp's lines */
    macsim_inflater *z;     /* for the files the first pass did not keep; made when needed */
    /* the directory of kernel dir_ki's record files, for those files (macsim_kernel_dir_open;
     * dir_fd -1: none open, or whole paths) */
    int dir_fd;
    size_t dir_ki, dir_skip;
    op_memo memo[OP_MEMO];
} conv;

/* MacSim register ids -> R<n>: ptx ids from 200 up are special registers (tid, ctaid...)
 * and generator ids above 254 are not general registers either, so both are dropped; one
 * destination and at most four sources, what the Accel-Sim reader accepts. */
static void set_regs(const macsim_fmt *f, const macsim_ginst *g, trace_wline *l)
{
    unsigned lim = f->type == MACSIM_NVBIT ? 255 : 200;
    l->ndst = l->nsrc = 0;
    for (unsigned i = 0; i < g->ndst && !l->ndst; i++)
        if (g->dst[i] < lim)
            l->dst = g->dst[i], l->ndst = 1;
    for (unsigned i = 0; i < g->nsrc && l->nsrc < TRACE_WRITE_MAX_SRC; i++)
        if (g->src[i] < lim)
            l->src[l->nsrc++] = g->src[i];
}

/* Everything macsim_sass_opcode reads of an instruction, plus one bit so no key is 0. */
static uint32_t op_key(const macsim_ginst *g)
{
    uint32_t k = 1u << 31 | g->opcode | (uint32_t)(g->is_fp != 0) << 8 |
                 (uint32_t)(g->is_mem != 0) << 9;
    if (g->is_mem)
        k |= (uint32_t)(g->kind % MACSIM_NKIND) << 10 |
             (uint32_t)(g->space % MACSIM_NSPACE) << 12 | (uint32_t)g->mem_size << 16;
    return k;
}

static const op_memo *op_of(conv *c, const macsim_ginst *g)
{
    uint32_t k = op_key(g);
    op_memo *m = &c->memo[(k * 2654435761u) >> (32 - OP_MEMO_BITS)];
    if (m->key != k) {
        m->key = k;
        m->width = macsim_sass_opcode(&c->r->t.fmt, g, c->fam, m->op, sizeof m->op);
    }
    return m;
}

/* The Accel-Sim line of instruction g (addr: room for its 32 lane addresses). */
static int line_of(conv *c, const macsim_ginst *g, uint64_t pc0, const char *file,
                   trace_wline *l, uint64_t *addr, base_err *e)
{
    const macsim_fmt *f = &c->r->t.fmt;
    const op_memo *m = op_of(c, g);
    int w = m->width;
    if (w < 0)
        return base_fail(e, BASE_EXIT_INPUT, "%s: byte offset %llu: %s opcode %s has no "
                         "equivalent in the %s opcode table (binary version %d)", file,
                         (unsigned long long)g->offset, macsim_type_name(f->type),
                         macsim_opcode_name(f->type, g->opcode), isa_family_name(c->fam),
                         c->binary_version);
    *l = (trace_wline){0};
    l->pc = g->pc - pc0;
    l->mask = g->mask;
    l->opcode = m->op;
    l->width = (uint32_t)w;
    set_regs(f, g, l);
    if (w) {
        macsim_lane_addrs(f, g, addr);
        l->addr = addr;
    }
    return 0;
}

/* What becomes of each line of a warp: formatted into text, or handed to a kernel built from
 * lines. */
typedef int (*line_fn)(conv *c, const trace_wline *l, void *arg, base_err *e);

/* Warp w of kernel k (index in warp_ids), line by line: from the records the first pass kept,
 * else from its file again. Returns its instructions, or -1. */
static int64_t each_line(conv *c, size_t ki, uint32_t w, line_fn put, void *arg, base_err *e)
{
    const macsim_kernel *k = &c->r->t.kernels[ki];
    const macsim_unit *u = &c->r->u[ki];
    uint64_t pc0 = u->min_pc == UINT64_MAX ? 0 : u->min_pc, addr[MACSIM_WARP_SIZE];
    char *p = macsim_warp_file(k, k->warp_ids[w]);
    const base_buf *kept = u->kept && u->kept[w].s ? &u->kept[w] : NULL;
    if (!kept && !c->z)
        c->z = macsim_inflater_new();
    if (!kept && c->dir_ki != ki) {
        if (c->dir_fd >= 0)
            close(c->dir_fd);
        c->dir_fd = macsim_kernel_dir_open(k, &c->dir_skip);
        c->dir_ki = ki;
    }
    macsim_stream *s = kept ? macsim_stream_mem(p, &c->r->t.fmt, kept->s, kept->len)
                            : macsim_stream_open_at(c->dir_fd, p + c->dir_skip, p,
                                                    &c->r->t.fmt, c->z, e);
    int rc = s ? 0 : -1;
    int64_t n = 0;
    macsim_ginst g;
    trace_wline l;
    while (rc == 0 && (rc = macsim_stream_gpu(s, &g, e)) == 1) {
        rc = line_of(c, &g, pc0, p, &l, addr, e) || put(c, &l, arg, e) ? -1 : 0;
        n++;
    }
    macsim_stream_close(s);
    free(p);
    return rc ? -1 : n;
}

static int put_text(conv *c, const trace_wline *l, void *arg, base_err *e)
{
    (void)arg;
    (void)e;
    trace_format_line(&c->text, l);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Kernel ki's header: one row of CTAs, the shared memory its records reach. */
static void header_of(const conv *c, size_t ki, trace_wheader *h)
{
    const macsim_kernel *k = &c->r->t.kernels[ki];
    const macsim_unit *u = &c->r->u[ki];
    *h = (trace_wheader){0};
    h->name = k->name;
    h->grid[0] = k->nctas;
    h->block[0] = k->warps_per_cta * MACSIM_WARP_SIZE;
    h->grid[1] = h->grid[2] = h->block[1] = h->block[2] = 1;
    h->shmem = (u->shmem_end + SHMEM_GRANULE - 1) / SHMEM_GRANULE * SHMEM_GRANULE;
    h->nregs = c->nregs;
    h->binary_version = c->binary_version;
}

/* CTAs in id order as "thread block = i,0,0" (i = 0, 1, ...), warps in index order: the warp
 * ids sorted (the CTA in their upper half), each with its index in warp_ids below. */
static uint64_t *warp_order(const macsim_kernel *k)
{
    uint64_t *ord = base_malloc(k->nwarps * sizeof *ord);
    for (uint32_t i = 0; i < k->nwarps; i++)
        ord[i] = (uint64_t)k->warp_ids[i] << 32 | i;
    qsort(ord, k->nwarps, sizeof *ord, cmp_u64);
    return ord;
}

static int write_kernel(conv *c, size_t ki, base_err *e)
{
    const macsim_kernel *k = &c->r->t.kernels[ki];
    trace_wheader h;
    header_of(c, ki, &h);
    if (trace_wdir_kernel_begin(c->d, &h, e))
        return -1;
    uint64_t *ord = warp_order(k);
    int rc = 0;
    for (uint32_t i = 0, cta = 0; i < k->nwarps && rc == 0; cta++) {
        trace_wdir_cta_begin(c->d, cta, 0, 0);
        uint32_t id = (uint32_t)(ord[i] >> 48);
        for (; i < k->nwarps && ord[i] >> 48 == id && rc == 0; i++) {
            c->text.len = 0;
            int64_t n = each_line(c, ki, (uint32_t)ord[i], put_text, NULL, e);
            rc = n < 0 ? -1 : 0;
            if (rc == 0)
                trace_wdir_warp(c->d, k->warp_ids[(uint32_t)ord[i]] & 0xffff, (uint64_t)n,
                                c->text.s ? c->text.s : "", c->text.len);
        }
        trace_wdir_cta_end(c->d);
    }
    free(ord);
    return rc ? -1 : trace_wdir_kernel_end(c->d, e);
}

struct macsim_conv {
    macsim_run run;
    conv c;
};

macsim_conv *macsim_conv_open(const char *src, const macsim_opts *o, base_err *e)
{
    int bv = o && o->binary_version ? o->binary_version : DEFAULT_BINARY_VERSION;
    int fam = isa_family_for_version(bv);
    if (fam < 0) {
        base_fail(e, BASE_EXIT_USAGE, "binary version %d: expected a known one (e.g. 61, 70, "
                  "75, 80, 90)", bv);
        return NULL;
    }
    macsim_conv *m = base_calloc(1, sizeof *m);
    m->c.binary_version = bv;
    m->c.fam = fam;
    m->c.nregs = o && o->nregs ? o->nregs : DEFAULT_NREGS;
    m->c.r = &m->run;
    m->c.dir_fd = -1;
    m->c.dir_ki = SIZE_MAX;
    macsim_opts ro = o ? *o : (macsim_opts){0};
    ro.gpu_only = 1;
    size_t keep = o && o->keep_bytes ? o->keep_bytes : KEEP_BYTES;
    if (macsim_run_trace_keep(&m->run, src, &ro, keep, e)) {
        macsim_conv_close(m);
        return NULL;
    }
    return m;
}

void macsim_conv_summary(const macsim_conv *m, macsim_summary *s)
{
    macsim_run_summary(&m->run, s);
}

void macsim_conv_close(macsim_conv *m)
{
    if (!m)
        return;
    base_buf_free(&m->c.text);
    macsim_inflater_free(m->c.z);
    if (m->c.dir_fd >= 0)
        close(m->c.dir_fd);
    macsim_run_free(&m->run);
    free(m);
}

/* ---- the trace read in place (lockstep run) ---- */

/* Kernel ki read in place: its CTAs as write_kernel writes them, next the position in ord. */
typedef struct kernel_src {
    macsim_conv *m;
    size_t ki;
    uint64_t *ord;
    uint32_t next, cta;
} kernel_src;

typedef struct lines_arg {
    trace_kernel *k;
    trace_cta *c;
    uint32_t w;
} lines_arg;

static int put_lines(conv *c, const trace_wline *l, void *arg, base_err *e)
{
    (void)c;
    const lines_arg *a = arg;
    return trace_lines_inst(a->k, a->c, a->w, l, e);
}

static int src_next_cta(void *ctx, trace_kernel *tk, trace_cta *cta, base_err *e)
{
    kernel_src *ks = ctx;
    conv *c = &ks->m->c;
    const macsim_kernel *k = &c->r->t.kernels[ks->ki];
    if (ks->next >= k->nwarps)
        return 0;
    cta->id[0] = ks->cta++;
    uint32_t id = (uint32_t)(ks->ord[ks->next] >> 48);
    for (; ks->next < k->nwarps && ks->ord[ks->next] >> 48 == id; ks->next++) {
        uint32_t wi = (uint32_t)ks->ord[ks->next];
        lines_arg a = {tk, cta, k->warp_ids[wi] & 0xffff};
        if (trace_lines_warp(tk, cta, a.w, e) || each_line(c, ks->ki, wi, put_lines, &a, e) < 0)
            return -1;
    }
    return 1;
}

static void src_free(void *ctx)
{
    kernel_src *ks = ctx;
    free(ks->ord);
    free(ks);
}

static trace_kernel *open_kernel(void *src, size_t cmd, base_err *e)
{
    macsim_conv *m = src;
    trace_wheader h;
    header_of(&m->c, cmd, &h);
    kernel_src *ks = base_calloc(1, sizeof *ks);
    ks->m = m;
    ks->ki = cmd;
    ks->ord = warp_order(&m->run.t.kernels[cmd]);
    trace_lines_src s = {src_next_cta, src_free, ks};
    return trace_kernel_from_lines(m->run.t.kernels[cmd].file, &h, cmd + 1, s, e);
}

static void conv_free(void *src) { macsim_conv_close(src); }

void macsim_conv_list(macsim_conv *m, trace_list *l)
{
    memset(l, 0, sizeof *l);
    l->path = base_strdup(m->run.t.path);
    l->dir = base_strdup("");
    for (size_t i = 0; i < m->run.t.nkernels; i++)
        trace_list_add_kernel(l, m->run.t.kernels[i].file);
    l->open_kernel = open_kernel;
    l->src = m;
    l->src_free = conv_free;
}

int macsim_to_accelsim(const char *src, const char *dir, const macsim_opts *o,
                       macsim_summary *s, base_err *e)
{
    macsim_conv *m = macsim_conv_open(src, o, e);
    if (!m)
        return -1;
    trace_wdir *d = m->c.d = trace_wdir_open(dir, o && o->xz, e);
    int rc = d ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < m->run.t.nkernels; i++)
        rc = write_kernel(&m->c, i, e);
    if (d)
        rc = rc == 0 ? trace_wdir_commit(d, e) : (trace_wdir_abort(d), -1);
    if (rc == 0 && s)
        macsim_conv_summary(m, s);
    macsim_conv_close(m);
    return rc;
}
