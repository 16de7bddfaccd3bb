/* isa: SASS opcode tables per GPU architecture family.
 *
 * A trace names an instruction by its full SASS opcode ("LDG.E.64.SYS"); everything the
 * simulator needs to know about it is keyed by the FIRST token (before the first '.'):
 * the GPGPU-Sim category (which latency/initiation pair and functional unit the reference
 * uses, FORMATS.md A.9) and a coarser lockstep class used for reports. Tables are const data
 * in isa_<family>.def, one row per mnemonic, sorted so lookups are a binary search.
 *
 * class is derived from category, except that atomics are ISA_ATOMIC and texture ops are
 * ISA_TEX in every family (Pascal/Kepler give them ALU_OP), and KILL is ISA_OTHER. */
#ifndef LOCKSTEP_ISA_H
#define LOCKSTEP_ISA_H

#include <stddef.h>

typedef enum isa_family {
    ISA_KEPLER,  /* sm_30..37 */
    ISA_PASCAL,  /* sm_50..62: Maxwell uses the Pascal table */
    ISA_VOLTA,   /* sm_70, 72 */
    ISA_TURING,  /* sm_75 */
    ISA_AMPERE,  /* sm_80, 86, 87 */
    ISA_ADA,     /* sm_89: the Ampere table */
    ISA_HOPPER,  /* sm_90: Hopper additions, then the Ampere table */
    ISA_NFAMILY
} isa_family;

typedef enum isa_class {
    ISA_SP, ISA_DP, ISA_SFU, ISA_INT, ISA_ALU, ISA_TENSOR, ISA_UNIFORM, ISA_BRANCH, ISA_TEX,
    ISA_LOAD, ISA_STORE, ISA_ATOMIC, ISA_BARRIER, ISA_MEMBAR, ISA_EXIT, ISA_OTHER,
    ISA_NCLASS
} isa_class;

/* GPGPU-Sim operation categories (names as in the reference: ALU_OP, SP_OP, ...). */
typedef enum isa_cat {
    ISA_CAT_ALU, ISA_CAT_SP, ISA_CAT_DP, ISA_CAT_SFU, ISA_CAT_INTP, ISA_CAT_TENSOR,
    ISA_CAT_LOAD, ISA_CAT_STORE, ISA_CAT_BRANCH, ISA_CAT_CALL, ISA_CAT_RET, ISA_CAT_BARRIER,
    ISA_CAT_MEMBAR, ISA_CAT_EXIT, ISA_CAT_SPEC1, ISA_CAT_SPEC2, ISA_CAT_SPEC3, ISA_CAT_SPEC4,
    ISA_NCAT
} isa_cat;

typedef struct isa_op {
    const char *name;  /* mnemonic, e.g. "LDG" */
    unsigned char cat; /* isa_cat */
    unsigned char cls; /* isa_class */
    unsigned char ref; /* 1: the reference (Accel-Sim dev) map has it with this category */
} isa_op;

/* Lower-case names, usable as DIST bin names ("sp", "int", ...; "ALU_OP", "SP_OP", ...). */
extern const char *const isa_class_names[ISA_NCLASS];
extern const char *const isa_cat_names[ISA_NCAT];

const char *isa_class_name(isa_class c);   /* "?" when out of range */
const char *isa_cat_name(isa_cat c);
const char *isa_family_name(int fam);      /* "ampere", ...; "?" when out of range */

/* Family for a "-binary version" value (e.g. 61, 80, 90); -1 when unknown (0, 10, 100...). */
int isa_family_for_version(int binary_version);
/* The known binary version nearest to v from below (the newest one at or under it), or the
 * oldest known one when v is older than all (a Fermi GPU's 20: no SASS table, Kepler's is
 * the closest). What a converter that picks a table by the GPU's version falls back to. */
int isa_nearest_version(int binary_version);
/* 1 when the reference simulator accepts this binary version (35, 60, 61, 70, 75, 80, 86). */
int isa_version_in_reference(int binary_version);

/* Looks up the mnemonic s[0..len) (the first opcode token, no '.'). Returns the row or NULL
 * when the family does not know it (an error for the caller: the reference aborts on it). */
const isa_op *isa_lookup_op(int fam, const char *s, size_t len);
/* Same, for callers that only need the class: 0 and *cls set when found, -1 otherwise. */
int isa_lookup(int fam, const char *mnemonic, size_t len, isa_class *cls);

/* trace.config suffix that times this category: "int", "sp", "dp", "sfu", "tensor",
 * "spec_op_1".."spec_op_4"; NULL for categories the reference gives latency 1, initiation 1
 * (loads, stores, barriers, EXIT: their time comes from the memory model). */
const char *isa_cat_latency_key(isa_cat c);
/* Specialized unit number 1..4 for ISA_CAT_SPEC1..4, else 0. */
int isa_cat_spec_unit(isa_cat c);

/* The rows of one table of a family: part 0 = the family's own (or additions) table, part 1 =
 * the base table it falls back to (Ampere for Ada/Hopper), NULL/0 when absent. For tests and
 * `lockstep isa` style listings. */
const isa_op *isa_table(int fam, int part, size_t *n);

#endif
