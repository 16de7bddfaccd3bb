/* MacSim binary records (FORMATS.md D.5): opcode names, and decoding from a byte buffer.
 * Fields are read byte by byte as little-endian values, never through a struct cast, so the
 * decoder does not depend on the host's layout or alignment. */
#include "macsim_int.h"

#include <stdarg.h>
#include <string.h>

static const char *const PTX_NAMES[] = {
    "INVALID", "ABS", "ABS64", "ADD", "ADD64", "ADDC", "AND", "AND64", "ATOM_GM", "ATOM_SM",
    "ATOM64_GM", "ATOM64_SM", "BAR_ARRIVE", "BAR_SYNC", "BAR_RED", "BFE", "BFE64", "BFI",
    "BFI64", "BFIND", "BFIND64", "BRA", "BREV", "BREV64", "BRKPT", "CALL", "CLZ", "CLZ64",
    "CNOT", "CNOT64", "COPYSIGN", "COPYSIGN64", "COS", "CVT", "CVT64", "CVTA", "CVTA64", "DIV",
    "DIV64", "EX2", "EXIT", "FMA", "FMA64", "ISSPACEP", "LD", "LD64", "LDU", "LDU64", "LG2",
    "MAD24", "MAD", "MAD64", "MADC", "MADC64", "MAX", "MAX64", "MEMBAR_CTA", "MEMBAR_GL",
    "MEMBAR_SYS", "MIN", "MIN64", "MOV", "MOV64", "MUL24", "MUL", "MUL64", "NEG", "NEG64", "NOT",
    "NOT64", "OR", "OR64", "PMEVENT", "POPC", "POPC64", "PREFETCH", "PREFETCHU", "PRMT", "RCP",
    "RCP64", "RED_GM", "RED_SM", "RED64_GM", "RED64_SM", "REM", "REM64", "RET", "RSQRT",
    "RSQRT64", "SAD", "SAD64", "SELP", "SELP64", "SET", "SET64", "SETP", "SETP64", "SHFL",
    "SHFL64", "SHL", "SHL64", "SHR", "SHR64", "SIN", "SLCT", "SLCT64", "SQRT", "SQRT64", "ST",
    "ST64", "SUB", "SUB64", "SUBC", "SULD", "SULD64", "SURED", "SURED64", "SUST", "SUST64",
    "SUQ", "TESTP", "TESTP64", "TEX", "TLD4", "TXQ", "TRAP", "VABSDIFF", "VADD", "VMAD", "VMAX",
    "VMIN", "VSET", "VSHL", "VSHR", "VSUB", "VOTE", "XOR", "XOR64", "RECONVERGE", "PHI",
    "MEM_LD_GM", "MEM_LD_LM", "MEM_LD_SM", "MEM_LD_CM", "MEM_LD_TM", "MEM_LD_PM", "MEM_LDU_GM",
    "MEM_ST_GM", "MEM_ST_LM", "MEM_ST_SM", "DATA_XFER_GM", "DATA_XFER_LM", "DATA_XFER_SM",
};

static const char *const NVBIT_NAMES[] = {
    "FADD", "FADD32I", "FCHK", "FFMA32I", "FFMA", "FMNMX", "FMUL", "FMUL32I", "FSEL", "FSET",
    "FSETP", "FSWZADD", "MUFU", "HADD2", "HADD2_32I", "HFMA2", "HFMA2_32I", "HMMA", "HMUL2",
    "HMUL2_32I", "HSET2", "HSETP2", "DADD", "DFMA", "DMUL", "DSETP", "BMMA", "BMSK", "BREV",
    "FLO", "IABS", "IADD", "IADD3", "IADD32I", "IDP", "IDP4A", "IMAD", "IMMA", "IMNMX", "IMUL",
    "IMUL32I", "ISCADD", "ISCADD32I", "ISETP", "LEA", "LOP", "LOP3", "LOP32I", "POPC", "SHF",
    "SHL", "SHR", "VABSDIFF", "VABSDIFF4", "F2F", "F2I", "I2F", "I2I", "I2IP", "FRND", "MOV",
    "MOV32I", "MOVM", "PRMT", "SEL", "SGXT", "SHFL", "PLOP3", "PSETP", "P2R", "R2P", "LD", "LDC",
    "LDG", "LDL", "LDS", "LDSM", "ST", "STG", "STL", "STS", "MATCH", "QSPC", "ATOM", "ATOMS",
    "ATOMG", "RED", "CCTL", "CCTLL", "ERRBAR", "MEMBAR", "CCTLT", "R2UR", "S2UR", "UBMSK",
    "UBREV", "UCLEA", "UFLO", "UIADD3", "UIADD3_64", "UIMAD", "UISETP", "ULDC", "ULEA", "ULOP",
    "ULOP3", "ULOP32I", "UMOV", "UP2UR", "UPLOP3", "UPOPC", "UPRMT", "UPSETP", "UR2UP", "USEL",
    "USGXT", "USHF", "USHL", "USHR", "VOTEU", "TEX", "TLD", "TLD4", "TMML", "TXD", "TXQ",
    "SUATOM", "SULD", "SURED", "SUST", "BMOV", "BPT", "BRA", "BREAK", "BRX", "BRXU", "BSSY",
    "BSYNC", "CALL", "EXIT", "JMP", "JMX", "JMXU", "KILL", "NANOSLEEP", "RET", "RPCMOV", "RTT",
    "WARPSYNC", "YIELD", "B2R", "BAR", "CS2R", "DEPBAR", "GETLMEMBASE", "LEPC", "NOP", "PMTRIG",
    "R2B", "S2R", "SETCTAID", "SETLMEMBASE", "VOTE",
};

static const char *const CPU_NAMES[] = {
    "INVALID", "3DNOW", "ADOX_ADCX", "AES", "AVX", "AVX2", "AVX2GATHER", "AVX512",
    "AVX512_4FMAPS", "AVX512_4VNNIW", "AVX512_BITALG", "AVX512_VBMI", "AVX512_VP2INTERSECT",
    "BINARY", "BITBYTE", "BLEND", "BMI1", "BMI2", "BROADCAST", "CALL", "CET", "CLDEMOTE",
    "CLFLUSHOPT", "CLWB", "CLZERO", "CMOV", "COMPRESS", "COND_BR", "CONFLICT", "CONVERT",
    "DATAXFER", "DECIMAL", "ENQCMD", "EXPAND", "FCMOV", "FLAGOP", "FMA4", "GATHER", "GFNI", "IFMA",
    "INTERRUPT", "IO", "IOSTRINGOP", "KMASK", "LOGICAL", "LOGICAL_FP", "LZCNT", "MISC", "MMX",
    "MOVDIR", "MPX", "NOP", "PCLMULQDQ", "PCONFIG", "PKU", "POP", "PREFETCH", "PREFETCHWT1", "PT",
    "PUSH", "RDPID", "RDPRU", "RDRAND", "RDSEED", "RDWRFSGS", "RET", "ROTATE", "SCATTER", "SEGOP",
    "SEMAPHORE", "SETCC", "SGX", "SHA", "SHIFT", "SMAP", "SSE", "STRINGOP", "STTNI", "SYSCALL",
    "SYSRET", "SYSTEM", "TBM", "UNCOND_BR", "VAES", "VBMI2", "VFMA", "VIA_PADLOCK", "VPCLMULQDQ",
    "VTX", "WAITPKG", "WIDENOP", "X87_ALU", "XOP", "XSAVE", "XSAVEOPT", "TR_MUL", "TR_DIV",
    "TR_FMUL", "TR_FDIV", "TR_NOP", "PREFETCH_NTA", "PREFETCH_T0", "PREFETCH_T1", "PREFETCH_T2",
    "GPU_EN",
};

#define BINS(s) s "_ld", s "_st", s "_atomic"
const char *const macsim_mem_bin_names[MACSIM_NSPACE * MACSIM_NKIND] = {
    BINS("none"), BINS("const"), BINS("global"), BINS("local"),
    BINS("param"), BINS("shared"), BINS("texture"), BINS("generic"),
};
#undef BINS

const char *macsim_type_name(macsim_type t)
{
    static const char *const names[] = {"ptx", "newptx", "nvbit", "x86", "a64", "igpu"};
    return (unsigned)t < MACSIM_NTYPE ? names[t] : "?";
}

int macsim_type_is_gpu(macsim_type t)
{
    return t == MACSIM_PTX || t == MACSIM_NEWPTX || t == MACSIM_NVBIT;
}

unsigned macsim_opcode_limit(const macsim_fmt *f)
{
    switch (f->type) {
    case MACSIM_PTX:
    case MACSIM_NEWPTX: return f->version == 131 ? 149 : BASE_ARRAY_LEN(PTX_NAMES);
    case MACSIM_NVBIT: return BASE_ARRAY_LEN(NVBIT_NAMES);
    case MACSIM_X86: return BASE_ARRAY_LEN(CPU_NAMES);
    default: return 65536;
    }
}

const char *macsim_opcode_name(macsim_type t, unsigned op)
{
    if ((t == MACSIM_PTX || t == MACSIM_NEWPTX) && op < BASE_ARRAY_LEN(PTX_NAMES))
        return PTX_NAMES[op];
    if (t == MACSIM_NVBIT && op < BASE_ARRAY_LEN(NVBIT_NAMES))
        return NVBIT_NAMES[op];
    if (t == MACSIM_X86 && op < BASE_ARRAY_LEN(CPU_NAMES))
        return CPU_NAMES[op];
    return NULL;
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static int rec_fail(base_err *e, const char *file, uint64_t off, unsigned rs, const char *fmt,
                    ...) __attribute__((format(printf, 5, 6)));

static int rec_fail(base_err *e, const char *file, uint64_t off, unsigned rs, const char *fmt,
                    ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return base_fail(e, BASE_EXIT_INPUT, "%s: byte offset %llu (record %llu): %s", file,
                     (unsigned long long)off, (unsigned long long)(off / rs), msg);
}

/* v1.31 -> v1.4: MADC, MADC64 were inserted after MAD64 (51) and SHFL, SHFL64 after SETP64. */
static uint8_t remap_v131(uint8_t op)
{
    return op <= 51 ? op : op <= 94 ? (uint8_t)(op + 2) : (uint8_t)(op + 4);
}

/* Space of a ptx memory instruction: its opcode where that says, else the space byte. */
static uint8_t ptx_space(uint8_t op, uint8_t byte)
{
    static const uint8_t mem_ops[] = {
        MACSIM_SPACE_GLOBAL, MACSIM_SPACE_LOCAL, MACSIM_SPACE_SHARED, MACSIM_SPACE_CONST,
        MACSIM_SPACE_TEXTURE, MACSIM_SPACE_PARAM, MACSIM_SPACE_GLOBAL, /* MEM_LD_* 140..146 */
        MACSIM_SPACE_GLOBAL, MACSIM_SPACE_LOCAL, MACSIM_SPACE_SHARED,  /* MEM_ST_* 147..149 */
    };
    if (op >= MACSIM_PTX_MEM_LD_GM && op <= MACSIM_PTX_MEM_ST_GM + 2)
        return mem_ops[op - MACSIM_PTX_MEM_LD_GM];
    if (op == 8 || op == 10 || op == 80 || op == 82)   /* ATOM_GM ATOM64_GM RED_GM RED64_GM */
        return MACSIM_SPACE_GLOBAL;
    if (op == 9 || op == 11 || op == 81 || op == 83)   /* the _SM forms */
        return MACSIM_SPACE_SHARED;
    return byte > 0 && byte < MACSIM_NSPACE ? byte : MACSIM_SPACE_GENERIC;
}

static void ptx_classify(const macsim_fmt *f, macsim_ginst *g)
{
    uint8_t raw = g->raw_opcode;
    int store = f->version == 131 ? raw >= 143 && raw <= 145 : raw >= 147 && raw <= 149;
    g->opcode = f->version == 131 ? remap_v131(raw) : raw;
    g->is_mem = g->is_load || store;
    uint8_t op = g->opcode;
    int atomic = (op >= MACSIM_PTX_ATOM_GM && op <= MACSIM_PTX_ATOM_GM + 3) ||
                 (op >= MACSIM_PTX_RED_GM && op <= MACSIM_PTX_RED_GM + 3);
    g->kind = atomic ? MACSIM_ATOMIC : store ? MACSIM_STORE : MACSIM_LOAD;
    g->space = g->is_mem ? ptx_space(op, g->space_byte) : MACSIM_SPACE_NONE;
}

static void nvbit_classify(macsim_ginst *g)
{
    uint8_t op = g->opcode;
    int store = op >= 77 && op <= 80;   /* ST, STG, STL, STS */
    g->is_mem = g->is_load || store;
    g->kind = op >= 83 && op <= 86 ? MACSIM_ATOMIC : store ? MACSIM_STORE : MACSIM_LOAD;
    uint8_t sp = MACSIM_SPACE_GENERIC;
    if (op == MACSIM_NVBIT_LDC)
        sp = MACSIM_SPACE_CONST;
    else if (op == 73 || op == 78 || op == 85 || op == 86)   /* LDG STG ATOMG RED */
        sp = MACSIM_SPACE_GLOBAL;
    else if (op == 74 || op == 79)                           /* LDL STL */
        sp = MACSIM_SPACE_LOCAL;
    else if (op == 75 || op == 76 || op == 80 || op == 84)   /* LDS LDSM STS ATOMS */
        sp = MACSIM_SPACE_SHARED;
    g->space = g->is_mem ? sp : MACSIM_SPACE_NONE;
}

/* Field offsets of the 72-byte ptx and the 64-byte nvbit record; the taken mask follows the
 * active mask, the branch target the PC, cache level and operator the space byte. */
typedef struct layout {
    uint8_t src, nsrc, dst, size, mask, pc, addr, msize, bar, space;
} layout;
static const layout PTX_LAYOUT = {6, 5, 16, 24, 28, 40, 56, 64, 66, 68};
static const layout NVBIT_LAYOUT = {6, 4, 14, 22, 24, 32, 48, 56, 58, 60};

static void gpu_fields(const uint8_t *d, const layout *l, macsim_ginst *g)
{
    g->raw_opcode = g->opcode = d[0];
    g->is_fp = d[1] != 0;
    g->is_load = d[2] != 0;
    g->cf_type = d[3];
    g->nsrc = d[4];
    g->ndst = d[5];
    for (int i = 0; i < 5; i++)
        g->src[i] = i < l->nsrc ? rd16(d + l->src + 2 * i) : 0;
    for (int i = 0; i < 4; i++)
        g->dst[i] = rd16(d + l->dst + 2 * i);
    g->inst_size = d[l->size];
    g->mask = rd32(d + l->mask);
    g->taken_mask = rd32(d + l->mask + 4);
    g->pc = rd64(d + l->pc);
    g->target = rd64(d + l->pc + 8);
    g->addr = rd64(d + l->addr);
    g->mem_size = d[l->msize];
    g->bar_threads = rd16(d + l->bar);
    g->space_byte = d[l->space];
    g->cache_level = d[l->space + 1];
    g->cache_op = d[l->space + 2];
}

/* Lanes 1..31 of a ptx memory instruction: slots 0..30 of the continuation records, read as
 * one array of u64 (u32 with addr32) slots; slots 31.. are stale filler. */
static int ptx_continuation(const macsim_fmt *f, const uint8_t *d, size_t n, uint64_t off,
                            const char *file, macsim_ginst *g, base_err *e)
{
    unsigned ncont = f->addr32 ? 2 : 4;
    if (n < (size_t)(1 + ncont) * MACSIM_PTX_REC)
        return rec_fail(e, file, off, MACSIM_PTX_REC, "memory instruction %s needs %u "
                        "address-continuation records, found %zu before the end of the file",
                        PTX_NAMES[g->opcode], ncont, n / MACSIM_PTX_REC - 1);
    g->lane_addr[0] = g->addr;
    for (int i = 0; i < MACSIM_WARP_SIZE - 1; i++)
        g->lane_addr[i + 1] = f->addr32 ? rd32(d + MACSIM_PTX_REC + 4 * i)
                                        : rd64(d + MACSIM_PTX_REC + 8 * i);
    g->nrec = 1 + ncont;
    return 0;
}

/* Child records (D.5): up to 32 following records with the same opcode and is-fp set. Only
 * whole records count: a truncated tail is reported by the next call. */
static void nvbit_children(const uint8_t *d, size_t n, macsim_ginst *g)
{
    g->nchild = 0;
    size_t o = MACSIM_NVBIT_REC;
    for (; o + MACSIM_NVBIT_REC <= n && g->nchild < MACSIM_MAX_CHILDREN; o += MACSIM_NVBIT_REC) {
        if (d[o] != g->raw_opcode || d[o + 1] == 0)
            break;
        g->child_addr[g->nchild] = rd64(d + o + 48);
        g->child_size[g->nchild++] = d[o + 56];
    }
    g->nrec = 1 + g->nchild;
}

static int gpu_checks(const macsim_fmt *f, macsim_ginst *g, uint64_t off, const char *file,
                      base_err *e)
{
    unsigned rs = f->type == MACSIM_NVBIT ? MACSIM_NVBIT_REC : MACSIM_PTX_REC;
    unsigned lim = macsim_opcode_limit(f), maxsrc = f->type == MACSIM_NVBIT ? 4 : 5;
    if (g->raw_opcode >= lim)
        return rec_fail(e, file, off, rs, "expected an opcode below %u (%s v%d), found %u", lim,
                        macsim_type_name(f->type), f->version, g->raw_opcode);
    if (g->nsrc > maxsrc || g->ndst > 4)
        return rec_fail(e, file, off, rs, "expected at most %u source and 4 destination "
                        "registers, found %u and %u", maxsrc, g->nsrc, g->ndst);
    if (g->cf_type > 9)
        return rec_fail(e, file, off, rs, "expected a control-flow type 0..9, found %u",
                        g->cf_type);
    return 0;
}

int macsim_decode_gpu(const macsim_fmt *f, const uint8_t *d, size_t n, uint64_t off,
                      const char *file, macsim_ginst *g, base_err *e)
{
    int nv = f->type == MACSIM_NVBIT;
    unsigned rs = nv ? MACSIM_NVBIT_REC : MACSIM_PTX_REC;
    if (n == 0)
        return 0;
    if (n < rs)
        return rec_fail(e, file, off, rs, "truncated record: %zu bytes left, records are %u "
                        "bytes (the file size is not a multiple of %u)", n, rs, rs);
    g->offset = off;
    g->nrec = 1;
    g->nchild = 0;
    gpu_fields(d, nv ? &NVBIT_LAYOUT : &PTX_LAYOUT, g);
    if (gpu_checks(f, g, off, file, e))
        return -1;
    if (nv)
        nvbit_classify(g);
    else
        ptx_classify(f, g);
    if (!g->is_mem)
        return (int)rs;
    if (g->mem_size == 0)
        return rec_fail(e, file, off, rs, "memory instruction %s with access size 0",
                        macsim_opcode_name(f->type, g->opcode));
    if (nv)
        nvbit_children(d, n, g);
    else if (ptx_continuation(f, d, n, off, file, g, e))
        return -1;
    return (int)(g->nrec * rs);
}

int macsim_decode_cpu(const macsim_fmt *f, const uint8_t *d, size_t n, uint64_t off,
                      const char *file, macsim_cinst *c, base_err *e)
{
    const unsigned rs = MACSIM_CPU_REC;
    if (n == 0)
        return 0;
    if (n < rs)
        return rec_fail(e, file, off, rs, "truncated record: %zu bytes left, records are %u "
                        "bytes (the file size is not a multiple of %u)", n, rs, rs);
    int a64 = f->type == MACSIM_A64;   /* a u16 opcode at 20 moves the next five bytes by 2 */
    const uint8_t *p = d + (a64 ? 22 : 20);
    c->offset = off;
    c->nsrc = d[0];
    c->ndst = d[1];
    memcpy(c->src, d + 2, 9);
    memcpy(c->dst, d + 11, 6);
    c->cf_type = d[17];
    c->has_imm = d[18];
    c->opcode = a64 ? rd16(d + 20) : d[19];
    c->has_store = p[0] != 0;
    c->is_fp = p[1];
    c->write_flag = p[2];
    c->num_loads = p[3];
    c->inst_size = p[4];
    c->ld_addr[0] = rd64(d + 32);
    c->ld_addr[1] = rd64(d + 40);
    c->st_addr = rd64(d + 48);
    c->pc = rd64(d + 56);
    c->target = rd64(d + 64);
    c->rd_size = d[72];
    c->wr_size = d[73];
    c->rep_dir = d[74];
    c->taken = d[75];
    if (c->opcode >= macsim_opcode_limit(f))
        return rec_fail(e, file, off, rs, "expected an opcode below %u (%s), found %u",
                        macsim_opcode_limit(f), macsim_type_name(f->type), c->opcode);
    if (c->nsrc > 9 || c->ndst > 6)
        return rec_fail(e, file, off, rs, "expected at most 9 source and 6 destination "
                        "registers, found %u and %u", c->nsrc, c->ndst);
    if (c->cf_type > 9)
        return rec_fail(e, file, off, rs, "expected a control-flow type 0..9, found %u",
                        c->cf_type);
    if (c->num_loads > 2)
        return rec_fail(e, file, off, rs, "expected at most 2 loads, found %u", c->num_loads);
    if ((c->num_loads && !c->rd_size) || (c->has_store && !c->wr_size))
        return rec_fail(e, file, off, rs, "memory instruction %s with access size 0",
                        a64 ? "(a64)" : CPU_NAMES[c->opcode]);
    return (int)rs;
}

void macsim_lane_addrs(const macsim_fmt *f, const macsim_ginst *g,
                       uint64_t addr[MACSIM_WARP_SIZE])
{
    if (f->type != MACSIM_NVBIT) {
        memcpy(addr, g->lane_addr, sizeof g->lane_addr);
        return;
    }
    unsigned m = base_popcount32(g->mask), r = 0;
    for (int i = 0; i < MACSIM_WARP_SIZE; i++) {
        addr[i] = 0;
        if (!(g->mask >> i & 1))
            continue;
        addr[i] = g->nchild ? g->child_addr[(uint64_t)r * g->nchild / m]
                            : g->addr + (uint64_t)r * g->mem_size;
        r++;
    }
}

const char *const *macsim_opcode_names(macsim_type t, unsigned *n)
{
    switch (t) {
    case MACSIM_PTX:
    case MACSIM_NEWPTX: *n = BASE_ARRAY_LEN(PTX_NAMES); return PTX_NAMES;
    case MACSIM_NVBIT: *n = BASE_ARRAY_LEN(NVBIT_NAMES); return NVBIT_NAMES;
    case MACSIM_X86: *n = BASE_ARRAY_LEN(CPU_NAMES); return CPU_NAMES;
    default: *n = 0; return NULL;
    }
}
