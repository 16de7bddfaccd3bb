/* isa: opcode tables per family (FORMATS.md A.9). */
#include "test.h"

#include "isa/isa.h"

TEST(isa_tables_are_sorted_and_unique)
{
    for (int f = 0; f < ISA_NFAMILY; f++) {
        for (int part = 0; part < 2; part++) {
            size_t n;
            const isa_op *t = isa_table(f, part, &n);
            for (size_t i = 1; i < n; i++)
                if (strcmp(t[i - 1].name, t[i].name) >= 0)
                    test_fail_at(__FILE__, __LINE__, "%s table %d: %s before %s",
                                 isa_family_name(f), part, t[i - 1].name, t[i].name);
            for (size_t i = 0; i < n; i++) {
                CHECK(t[i].cat < ISA_NCAT);
                CHECK(t[i].cls < ISA_NCLASS);
                CHECK(strchr(t[i].name, '.') == NULL);
            }
        }
    }
}

static size_t ref_rows(int fam)
{
    size_t n, k = 0;
    const isa_op *t = isa_table(fam, 0, &n);
    for (size_t i = 0; i < n; i++)
        k += t[i].ref;
    return k;
}

TEST(isa_reference_maps_have_the_documented_sizes)
{
    /* A.9: Kepler 102, Pascal 152, Volta 127, Turing 165, Ampere 174 entries */
    CHECK_EQ(ref_rows(ISA_KEPLER), 102);
    CHECK_EQ(ref_rows(ISA_PASCAL), 152);
    CHECK_EQ(ref_rows(ISA_VOLTA), 127);
    CHECK_EQ(ref_rows(ISA_TURING), 165);
    CHECK_EQ(ref_rows(ISA_AMPERE), 174);
    CHECK_EQ(ref_rows(ISA_HOPPER), 0);
}

TEST(isa_family_for_binary_version)
{
    CHECK_EQ(isa_family_for_version(35), ISA_KEPLER);
    CHECK_EQ(isa_family_for_version(37), ISA_KEPLER);
    CHECK_EQ(isa_family_for_version(52), ISA_PASCAL);
    CHECK_EQ(isa_family_for_version(61), ISA_PASCAL);
    CHECK_EQ(isa_family_for_version(70), ISA_VOLTA);
    CHECK_EQ(isa_family_for_version(72), ISA_VOLTA);
    CHECK_EQ(isa_family_for_version(75), ISA_TURING);
    CHECK_EQ(isa_family_for_version(80), ISA_AMPERE);
    CHECK_EQ(isa_family_for_version(86), ISA_AMPERE);
    CHECK_EQ(isa_family_for_version(87), ISA_AMPERE);
    CHECK_EQ(isa_family_for_version(89), ISA_ADA);
    CHECK_EQ(isa_family_for_version(90), ISA_HOPPER);
    CHECK_EQ(isa_family_for_version(0), -1);
    CHECK_EQ(isa_family_for_version(10), -1);
    CHECK_EQ(isa_family_for_version(100), -1);
    CHECK_STR(isa_family_name(ISA_HOPPER), "hopper");
    CHECK_STR(isa_family_name(-1), "?");
    CHECK(isa_version_in_reference(86));
    CHECK(!isa_version_in_reference(90));
    CHECK(!isa_version_in_reference(52));
    /* the nearest known version from below, the oldest for what predates them all */
    CHECK_EQ(isa_nearest_version(20), 30);
    CHECK_EQ(isa_nearest_version(0), 30);
    CHECK_EQ(isa_nearest_version(30), 30);
    CHECK_EQ(isa_nearest_version(40), 37);
    CHECK_EQ(isa_nearest_version(61), 61);
    CHECK_EQ(isa_nearest_version(64), 62);
    CHECK_EQ(isa_nearest_version(86), 86);
    CHECK_EQ(isa_nearest_version(100), 90);
}

static void expect(int fam, const char *op, isa_cat cat, isa_class cls)
{
    const isa_op *o = isa_lookup_op(fam, op, strlen(op));
    if (!o) {
        test_fail_at(__FILE__, __LINE__, "%s: %s not found", isa_family_name(fam), op);
        return;
    }
    if (o->cat != cat || o->cls != cls)
        test_fail_at(__FILE__, __LINE__, "%s %s: %s/%s, expected %s/%s", isa_family_name(fam), op,
                     isa_cat_name(o->cat), isa_class_name(o->cls), isa_cat_name(cat),
                     isa_class_name(cls));
}

static int known(int fam, const char *op) { return isa_lookup(fam, op, strlen(op), NULL) == 0; }

TEST(isa_categories_follow_the_reference_maps)
{
    expect(ISA_AMPERE, "FFMA", ISA_CAT_SP, ISA_SP);
    expect(ISA_AMPERE, "MUFU", ISA_CAT_SFU, ISA_SFU);
    expect(ISA_AMPERE, "DADD", ISA_CAT_DP, ISA_DP);
    expect(ISA_AMPERE, "IMAD", ISA_CAT_INTP, ISA_INT);
    expect(ISA_AMPERE, "LDC", ISA_CAT_ALU, ISA_ALU);
    expect(ISA_AMPERE, "ULDC", ISA_CAT_SPEC4, ISA_UNIFORM);
    expect(ISA_AMPERE, "BRA", ISA_CAT_SPEC1, ISA_BRANCH);
    expect(ISA_AMPERE, "TEX", ISA_CAT_SPEC2, ISA_TEX);
    expect(ISA_AMPERE, "HMMA", ISA_CAT_SPEC3, ISA_TENSOR);
    expect(ISA_AMPERE, "KILL", ISA_CAT_SPEC3, ISA_OTHER);
    expect(ISA_AMPERE, "LDGSTS", ISA_CAT_LOAD, ISA_LOAD);
    expect(ISA_AMPERE, "ATOMG", ISA_CAT_STORE, ISA_ATOMIC);
    expect(ISA_AMPERE, "BAR", ISA_CAT_BARRIER, ISA_BARRIER);
    expect(ISA_AMPERE, "MEMBAR", ISA_CAT_MEMBAR, ISA_MEMBAR);
    expect(ISA_AMPERE, "EXIT", ISA_CAT_EXIT, ISA_EXIT);
    expect(ISA_PASCAL, "BRA", ISA_CAT_BRANCH, ISA_BRANCH);
    expect(ISA_PASCAL, "CALL", ISA_CAT_CALL, ISA_BRANCH);
    expect(ISA_PASCAL, "RET", ISA_CAT_RET, ISA_BRANCH);
    expect(ISA_PASCAL, "TEX", ISA_CAT_ALU, ISA_TEX);
    expect(ISA_PASCAL, "XMAD", ISA_CAT_INTP, ISA_INT);
    expect(ISA_VOLTA, "IMMA", ISA_CAT_INTP, ISA_INT);
    expect(ISA_VOLTA, "KILL", ISA_CAT_SPEC1, ISA_OTHER);
    expect(ISA_KEPLER, "LD", ISA_CAT_LOAD, ISA_LOAD);
    expect(ISA_KEPLER, "SSY", ISA_CAT_RET, ISA_BRANCH);
    expect(ISA_HOPPER, "FFMA", ISA_CAT_SP, ISA_SP);      /* from the Ampere base */
    expect(ISA_HOPPER, "HGMMA", ISA_CAT_SPEC3, ISA_TENSOR);
    expect(ISA_HOPPER, "UTMALDG", ISA_CAT_LOAD, ISA_LOAD);
    expect(ISA_HOPPER, "UTMASTG", ISA_CAT_STORE, ISA_STORE);
    expect(ISA_HOPPER, "FENCE", ISA_CAT_MEMBAR, ISA_MEMBAR);
    expect(ISA_ADA, "ULDC", ISA_CAT_SPEC4, ISA_UNIFORM);
    /* family differences of A.9 */
    CHECK(!known(ISA_VOLTA, "SHL"));
    CHECK(!known(ISA_VOLTA, "ULDC"));
    CHECK(!known(ISA_TURING, "LDGSTS"));
    CHECK(!known(ISA_TURING, "HMNMX2"));
    CHECK(!known(ISA_PASCAL, "HADD2_32I"));
    CHECK(!known(ISA_AMPERE, "HGMMA"));
    CHECK(!known(ISA_KEPLER, "STG"));
    for (const char *const *op = (const char *const[]){"SYNCS", "UBLKCP", "WARPGROUP", "ELECT",
                                                        "ENDCOLLECTIVE", "ACQBULK", "UCGABAR_ARV",
                                                        "UCGABAR_WAIT", "R2UR", "UTMACCTL", NULL};
         *op; op++)
        CHECK(known(ISA_HOPPER, *op));
    CHECK(!known(ISA_AMPERE, "FOO"));
    CHECK(!known(ISA_AMPERE, ""));
    CHECK(!known(-1, "FADD"));
    CHECK(!known(ISA_NFAMILY, "FADD"));
}

TEST(isa_lookup_uses_the_given_length)
{
    const char *op = "LDG.E.64";
    const isa_op *o = isa_lookup_op(ISA_AMPERE, op, 3);
    CHECK(o && strcmp(o->name, "LDG") == 0);
    CHECK(isa_lookup_op(ISA_AMPERE, "LDGX", 4) == NULL);
    CHECK(isa_lookup_op(ISA_AMPERE, "LD", 2) != NULL);
    CHECK(isa_lookup_op(ISA_AMPERE, "L", 1) == NULL);
}

TEST(isa_latency_keys)
{
    CHECK_STR(isa_cat_latency_key(ISA_CAT_INTP), "int");
    CHECK_STR(isa_cat_latency_key(ISA_CAT_ALU), "int");
    CHECK_STR(isa_cat_latency_key(ISA_CAT_BRANCH), "int");
    CHECK_STR(isa_cat_latency_key(ISA_CAT_SP), "sp");
    CHECK_STR(isa_cat_latency_key(ISA_CAT_SPEC4), "spec_op_4");
    CHECK(isa_cat_latency_key(ISA_CAT_LOAD) == NULL);
    CHECK(isa_cat_latency_key(ISA_CAT_EXIT) == NULL);
    CHECK_EQ(isa_cat_spec_unit(ISA_CAT_SPEC3), 3);
    CHECK_EQ(isa_cat_spec_unit(ISA_CAT_SP), 0);
    CHECK_STR(isa_cat_name(ISA_CAT_MEMBAR), "MEMORY_BARRIER_OP");
    CHECK_STR(isa_class_name(ISA_UNIFORM), "uniform");
    CHECK_STR(isa_class_name(ISA_NCLASS), "?");
}
