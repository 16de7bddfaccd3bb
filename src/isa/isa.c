#include "isa.h"

#include <string.h>

#define ISA_OP(name, cat, cls, ref) {name, ISA_CAT_##cat, ISA_##cls, ref},

static const isa_op kepler_ops[] = {
#include "isa_kepler.def"
};
static const isa_op pascal_ops[] = {
#include "isa_pascal.def"
};
static const isa_op volta_ops[] = {
#include "isa_volta.def"
};
static const isa_op turing_ops[] = {
#include "isa_turing.def"
};
static const isa_op ampere_ops[] = {
#include "isa_ampere.def"
};
static const isa_op hopper_ops[] = {
#include "isa_hopper.def"
};

typedef struct {
    const char *name;
    const isa_op *own, *base;
    size_t nown, nbase;
} isa_fam_desc;

#define TAB(t) t, NULL, NELEM(t), 0
#define NELEM(t) (sizeof(t) / sizeof((t)[0]))

static const isa_fam_desc families[ISA_NFAMILY] = {
    [ISA_KEPLER] = {"kepler", TAB(kepler_ops)},
    [ISA_PASCAL] = {"pascal", TAB(pascal_ops)},
    [ISA_VOLTA] = {"volta", TAB(volta_ops)},
    [ISA_TURING] = {"turing", TAB(turing_ops)},
    [ISA_AMPERE] = {"ampere", TAB(ampere_ops)},
    /* No Ada-only mnemonic is known (FP8 shows up as modifiers of HMMA/F2FP). */
    [ISA_ADA] = {"ada", ampere_ops, NULL, NELEM(ampere_ops), 0},
    [ISA_HOPPER] = {"hopper", hopper_ops, ampere_ops, NELEM(hopper_ops), NELEM(ampere_ops)},
};

const char *const isa_class_names[ISA_NCLASS] = {
    "sp", "dp", "sfu", "int", "alu", "tensor", "uniform", "branch", "tex",
    "load", "store", "atomic", "barrier", "membar", "exit", "other",
};

const char *const isa_cat_names[ISA_NCAT] = {
    "ALU_OP", "SP_OP", "DP_OP", "SFU_OP", "INTP_OP", "TENSOR_CORE_OP",
    "LOAD_OP", "STORE_OP", "BRANCH_OP", "CALL_OPS", "RET_OPS", "BARRIER_OP",
    "MEMORY_BARRIER_OP", "EXIT_OPS", "SPECIALIZED_UNIT_1_OP", "SPECIALIZED_UNIT_2_OP",
    "SPECIALIZED_UNIT_3_OP", "SPECIALIZED_UNIT_4_OP",
};

const char *isa_class_name(isa_class c)
{
    return (unsigned)c < ISA_NCLASS ? isa_class_names[c] : "?";
}

const char *isa_cat_name(isa_cat c) { return (unsigned)c < ISA_NCAT ? isa_cat_names[c] : "?"; }

const char *isa_family_name(int fam)
{
    return fam >= 0 && fam < ISA_NFAMILY ? families[fam].name : "?";
}

int isa_family_for_version(int v)
{
    switch (v) {
    case 30: case 32: case 35: case 37: return ISA_KEPLER;
    case 50: case 52: case 53: case 60: case 61: case 62: return ISA_PASCAL;
    case 70: case 72: return ISA_VOLTA;
    case 75: return ISA_TURING;
    case 80: case 86: case 87: return ISA_AMPERE;
    case 89: return ISA_ADA;
    case 90: return ISA_HOPPER;
    default: return -1;
    }
}

int isa_nearest_version(int v)
{
    int best = -1;
    for (int u = 30; u <= 99; u++)
        if (isa_family_for_version(u) >= 0 && (best < 0 || u <= v))
            best = u;
    return best;
}

int isa_version_in_reference(int v)
{
    return v == 35 || v == 60 || v == 61 || v == 70 || v == 75 || v == 80 || v == 86;
}

/* Compares a counted string with a NUL-terminated one in strcmp order. */
static int cmp_n(const char *s, size_t len, const char *z)
{
    size_t zl = strlen(z);
    int c = memcmp(s, z, len < zl ? len : zl);
    if (c)
        return c;
    return len < zl ? -1 : len > zl;
}

static const isa_op *search(const isa_op *t, size_t n, const char *s, size_t len)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_n(s, len, t[mid].name);
        if (c == 0)
            return &t[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const isa_op *isa_lookup_op(int fam, const char *s, size_t len)
{
    if (fam < 0 || fam >= ISA_NFAMILY || len == 0)
        return NULL;
    const isa_fam_desc *f = &families[fam];
    const isa_op *op = search(f->own, f->nown, s, len);
    if (!op && f->base)
        op = search(f->base, f->nbase, s, len);
    return op;
}

int isa_lookup(int fam, const char *mnemonic, size_t len, isa_class *cls)
{
    const isa_op *op = isa_lookup_op(fam, mnemonic, len);
    if (!op)
        return -1;
    if (cls)
        *cls = (isa_class)op->cls;
    return 0;
}

const char *isa_cat_latency_key(isa_cat c)
{
    switch (c) {
    case ISA_CAT_ALU: case ISA_CAT_INTP: case ISA_CAT_BRANCH: case ISA_CAT_CALL:
    case ISA_CAT_RET: return "int";
    case ISA_CAT_SP: return "sp";
    case ISA_CAT_DP: return "dp";
    case ISA_CAT_SFU: return "sfu";
    case ISA_CAT_TENSOR: return "tensor";
    case ISA_CAT_SPEC1: return "spec_op_1";
    case ISA_CAT_SPEC2: return "spec_op_2";
    case ISA_CAT_SPEC3: return "spec_op_3";
    case ISA_CAT_SPEC4: return "spec_op_4";
    default: return NULL;
    }
}

int isa_cat_spec_unit(isa_cat c)
{
    return c >= ISA_CAT_SPEC1 && c <= ISA_CAT_SPEC4 ? (int)(c - ISA_CAT_SPEC1) + 1 : 0;
}

const isa_op *isa_table(int fam, int part, size_t *n)
{
    *n = 0;
    if (fam < 0 || fam >= ISA_NFAMILY || part < 0 || part > 1)
        return NULL;
    const isa_fam_desc *f = &families[fam];
    *n = part == 0 ? f->nown : f->nbase;
    return part == 0 ? f->own : f->base;
}
