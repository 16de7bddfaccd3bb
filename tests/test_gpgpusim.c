/* knob/gpgpusim.c: importing GPGPU-Sim / Accel-Sim configs (FORMATS.md B.2-B.9). */
#include "test.h"

#include "knob/gpgpusim.h"

#include <stdlib.h>

static const char *const ref_cfgs[] = {"SM86_RTX3070", "SM6_TITANX", "SM7_QV100",
                                       "GTX1080_microgpusim_reconstructed"};

/* Imports CFG/gpgpusim.config (+ trace.config when present) into a fresh cfg.
 * Returns 0, -1 on error (message checked by the caller), or 1 when ../shared is absent. */
static int import_ref(knob_cfg *c, const char *cfg, int with_trace, base_err *e)
{
    knob_init(c);
    char rel[256];
    snprintf(rel, sizeof rel, "reference/accelsim-configs/%s/gpgpusim.config", cfg);
    const char *p = test_shared_path(rel);
    if (!p)
        return 1;
    char path[1024];
    snprintf(path, sizeof path, "%s", p);
    if (knob_load_file(c, path, e))
        return -1;
    if (!with_trace)
        return 0;
    snprintf(rel, sizeof rel, "reference/accelsim-configs/%s/trace.config", cfg);
    p = test_shared_path(rel);
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    fclose(f);
    snprintf(path, sizeof path, "%s", p);
    return knob_load_file(c, path, e);
}

static const char *origin(const knob_cfg *c, const char *knob)
{
    int id = knob_find(knob);
    return id < 0 ? "(no such knob)" : c->origin[id];
}

TEST(gpgpusim_table_selfcheck)
{
    base_err e = {0};
    CHECK_EQ(knob_gpgpusim_selfcheck(&e), 0);
    if (e.code)
        test_fail_at(__FILE__, __LINE__, "%s", e.msg);
}

TEST(gpgpusim_reference_configs_import_and_validate)
{
    for (size_t i = 0; i < sizeof ref_cfgs / sizeof *ref_cfgs; i++) {
        for (int t = 0; t < 2; t++) {
            knob_cfg c;
            base_err e = {0};
            int rc = import_ref(&c, ref_cfgs[i], t, &e);
            if (rc == 1) {
                knob_free(&c);
                return;
            }
            if (rc)
                test_fail_at(__FILE__, __LINE__, "%s (trace %d): %s", ref_cfgs[i], t, e.msg);
            if (knob_validate(&c, &e))
                test_fail_at(__FILE__, __LINE__, "%s (trace %d) validate: %s", ref_cfgs[i],
                             t, e.msg);
            CHECK(c.nunmodelled > 0);
            printf("    %s%s: %d unmodelled options\n", ref_cfgs[i], t ? " + trace.config" : "",
                   c.nunmodelled);
            knob_free(&c);
        }
    }
}

TEST(gpgpusim_rtx3070_values)
{
    char eb[64];
    knob_cfg c;
    base_err e = {0};
    int rc = import_ref(&c, "SM86_RTX3070", 1, &e);
    if (rc == 1)
        goto out;
    CHECK_EQ(rc, 0);
    CHECK_STR(c.v.gpu_name, "SM86_RTX3070");
    CHECK_EQ(c.v.n_clusters, 46);
    CHECK_EQ(c.v.max_threads_per_sm, 1536);
    CHECK_EQ(c.v.compute_capability, 86);
    CHECK(c.v.clock_dram_mhz == 3500.5);
    /* L2 S:64:128:16,L:B:m:L:P,A:192:4,32:0,32 (B.3) */
    CHECK_EQ(c.v.l2_enabled, 1);
    CHECK_STR(knob_enum_name(KNOB_ID_l2_type, c.v.l2_type, eb, sizeof eb), "sector");
    CHECK_EQ(c.v.l2_sets, 64);
    CHECK_EQ(c.v.l2_line, 128);
    CHECK_EQ(c.v.l2_assoc, 16);
    CHECK_STR(knob_enum_name(KNOB_ID_l2_write, c.v.l2_write, eb, sizeof eb), "wb");
    CHECK_STR(knob_enum_name(KNOB_ID_l2_alloc, c.v.l2_alloc, eb, sizeof eb), "on_miss");
    CHECK_STR(knob_enum_name(KNOB_ID_l2_write_alloc, c.v.l2_write_alloc, eb, sizeof eb), "lazy_fetch");
    CHECK_STR(knob_enum_name(KNOB_ID_l2_set_index, c.v.l2_set_index, eb, sizeof eb), "ipoly");
    CHECK_EQ(c.v.l2_mshr_entries, 192);
    CHECK_EQ(c.v.l2_mshr_merge, 4);
    CHECK_EQ(c.v.l2_miss_queue, 32);
    CHECK_EQ(c.v.l2_result_fifo, 0);
    CHECK_EQ(c.v.l2_data_port, 32);
    /* L1D, texture cache (14 fields, sector texture FIFO) */
    CHECK_EQ(c.v.l1d_assoc, 256);
    CHECK_EQ(c.v.l1d_mshr_entries, 384);
    CHECK_STR(knob_enum_name(KNOB_ID_l1t_mshr, c.v.l1t_mshr, eb, sizeof eb), "sector_tex_fifo");
    CHECK_EQ(c.v.l1t_result_fifo, 2);
    CHECK_EQ(c.v.l1i_miss_queue, 4); /* 13-field string */
    CHECK_EQ(c.v.smem_carveouts_kb.n, 6);
    CHECK_EQ(c.v.smem_carveouts_kb.v[5], 100);
    CHECK_EQ(c.v.units_tensor, 4);
    CHECK_STR(knob_enum_name(KNOB_ID_icnt_model, c.v.icnt_model, eb, sizeof eb), "xbar");
    CHECK_STR(knob_enum_name(KNOB_ID_partition_indexing, c.v.partition_indexing, eb, sizeof eb), "ipoly");
    CHECK_EQ(c.v.dram_tRCD, 24);
    CHECK_EQ(c.v.dram_tCCDL, 6);
    CHECK_EQ(c.v.kernel_launch_latency, 5000);
    /* trace.config */
    CHECK_EQ(c.v.lat_sp, 2);
    CHECK_EQ(c.v.init_sp, 1);
    CHECK_EQ(c.v.lat_dp, 64);
    CHECK_EQ(c.v.spec2_enabled, 1);
    CHECK_STR(c.v.spec2_name, "TEX");
    CHECK_EQ(c.v.lat_spec2, 200);
    CHECK_STR(c.v.spec4_name, "UDP");
    CHECK_EQ(c.v.init_spec4, 1);
    CHECK_EQ(c.v.spec5_enabled, 0);
    /* provenance: file:line (-option) */
    CHECK_HAS(origin(&c, "l2_sets"), "gpgpusim.config:");
    CHECK_HAS(origin(&c, "l2_sets"), "(-gpgpu_cache:dl2)");
    CHECK_HAS(origin(&c, "lat_spec3"), "trace.config:");
    CHECK_HAS(origin(&c, "lat_spec3"), "(-trace_opcode_latency_initiation_spec_op_3)");
    /* the built-in defaults are this GPU: the import agrees with them */
    knob_cfg d;
    knob_init(&d);
    static const char *const same[] = {"n_mem", "l1d_sets", "dram_tRC", "smem_per_sm",
                                       "l2_rop_latency", "dram_latency", "icnt_flit_size"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        char a[256], b[256];
        knob_format(&c, knob_find(same[i]), a, sizeof a);
        knob_format(&d, knob_find(same[i]), b, sizeof b);
        CHECK_STR(a, b);
    }
    knob_free(&d);
    /* unmodelled options are listed, each once */
    CHECK_HAS(c.unmodelled.s, "-power_simulation_enabled");
    CHECK_HAS(c.unmodelled.s, "-ptx_opcode_latency_int");
    CHECK(!strstr(c.unmodelled.s, "-gpgpu_n_clusters"));
out:
    knob_free(&c);
}

TEST(gpgpusim_titanx_values)
{
    char eb[64];
    knob_cfg c;
    base_err e = {0};
    int rc = import_ref(&c, "SM6_TITANX", 1, &e);
    if (rc == 1)
        goto out;
    CHECK_EQ(rc, 0);
    CHECK_EQ(c.v.n_clusters, 28);
    CHECK_EQ(c.v.n_mem, 12);
    CHECK_EQ(c.v.compute_capability, 61);
    CHECK_STR(knob_enum_name(KNOB_ID_partition_indexing, c.v.partition_indexing, eb, sizeof eb), "random");
    CHECK_EQ(c.v.ignore_resource_limits, 1);
    CHECK_EQ(c.v.clock_gated_lanes, 1);
    CHECK_EQ(c.v.gmem_skip_l1d, 1);
    CHECK_STR(knob_enum_name(KNOB_ID_warp_scheduler, c.v.warp_scheduler, eb, sizeof eb), "gto");
    CHECK_EQ(c.v.max_issue_per_warp, 2);
    /* streaming L1D S:4:128:96,L:L:s:N:L */
    CHECK_STR(knob_enum_name(KNOB_ID_l1d_alloc, c.v.l1d_alloc, eb, sizeof eb), "streaming");
    CHECK_STR(knob_enum_name(KNOB_ID_l1d_write, c.v.l1d_write, eb, sizeof eb), "lwb_gwt");
    /* options the file leaves out take GPGPU-Sim's defaults, not lockstep's (B.3) */
    CHECK_EQ(c.v.units_dp, 0);
    CHECK_EQ(c.v.units_int, 0);
    CHECK_EQ(c.v.units_tensor, 0);
    CHECK_EQ(c.v.regs_per_cta, 8192);
    CHECK_EQ(c.v.l1d_adaptive, 0);
    CHECK_EQ(c.v.cta_launch_latency, 0);
    CHECK_HAS(origin(&c, "units_dp"), "GPGPU-Sim default (-gpgpu_num_dp_units)");
    /* 11 pipeline widths: the tensor widths become 0 */
    CHECK_EQ(c.v.pipe_id_oc_dp, 0);
    CHECK_EQ(c.v.pipe_ex_wb, 8);
    CHECK_EQ(c.v.pipe_id_oc_tensor, 0);
    /* the two-line quoted DRAM timing string (B.2) */
    CHECK_EQ(c.v.dram_tRC, 52);
    CHECK_EQ(c.v.dram_tCL, 16);
    CHECK_EQ(c.v.dram_tRTPL, 3);
    CHECK_EQ(c.v.dram_bus_width, 4);
    CHECK_EQ(c.v.dram_burst_length, 8);
    /* BookSim interconnect, file resolved next to the config */
    CHECK_STR(knob_enum_name(KNOB_ID_icnt_model, c.v.icnt_model, eb, sizeof eb), "booksim");
    CHECK_HAS(c.v.icnt_config_file, "SM6_TITANX/config_pascal_islip.icnt");
    /* trace.config: sp 4,1 dp 20,8 sfu 20,4 (B.9) */
    CHECK_EQ(c.v.lat_dp, 20);
    CHECK_EQ(c.v.init_dp, 8);
    CHECK_EQ(c.v.lat_sfu, 20);
    CHECK_EQ(c.v.init_sfu, 4);
    CHECK_EQ(c.v.spec1_enabled, 0); /* GPGPU-Sim default: no specialized units */
    CHECK_HAS(c.unmodelled.s, "-gpgpu_cache:dl1PrefL1");
out:
    knob_free(&c);
}

TEST(gpgpusim_qv100_values)
{
    knob_cfg c;
    base_err e = {0};
    int rc = import_ref(&c, "SM7_QV100", 1, &e);
    if (rc == 1)
        goto out;
    CHECK_EQ(rc, 0);
    CHECK_EQ(c.v.n_clusters, 80);
    CHECK_EQ(c.v.n_mem, 32);
    CHECK_EQ(c.v.compute_capability, 70);
    /* "nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40:\n CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:CCDL=2:RTPL=3" */
    CHECK_EQ(c.v.dram_banks, 16);
    CHECK_EQ(c.v.dram_tCCD, 1);
    CHECK_EQ(c.v.dram_tRRD, 3);
    CHECK_EQ(c.v.dram_tRCD, 12);
    CHECK_EQ(c.v.dram_tRAS, 28);
    CHECK_EQ(c.v.dram_tRP, 12);
    CHECK_EQ(c.v.dram_tRC, 40);
    CHECK_EQ(c.v.dram_tCL, 12);
    CHECK_EQ(c.v.dram_tWL, 2);
    CHECK_EQ(c.v.dram_tCDLR, 3);
    CHECK_EQ(c.v.dram_tWR, 10);
    CHECK_EQ(c.v.dram_bank_groups, 4);
    CHECK_EQ(c.v.dram_tCCDL, 2);
    CHECK_EQ(c.v.dram_tRTPL, 3);
    CHECK_EQ(c.v.dram_dual_bus, 1);
    CHECK_EQ(c.v.dram_bus_width, 16);
    CHECK_EQ(c.v.dram_burst_length, 2);
    CHECK_EQ(c.v.dram_data_cmd_ratio, 2);
    CHECK_EQ(c.v.l2_sets, 32);
    CHECK_EQ(c.v.l2_assoc, 24);
    CHECK_EQ(c.v.smem_per_cta, 65536);
    CHECK(c.v.clock_dram_mhz == 850.0);
    /* trace.config: tensor unit max latency 8, latency 2,2 */
    CHECK_EQ(c.v.spec3_max_latency, 8);
    CHECK_EQ(c.v.lat_spec3, 2);
    CHECK_EQ(c.v.spec4_enabled, 0);
    CHECK_EQ(c.v.lat_tensor, 2);
out:
    knob_free(&c);
}

TEST(gpgpusim_gtx1080_full_dump)
{
    char eb[64];
    knob_cfg c;
    base_err e = {0};
    int rc = import_ref(&c, "GTX1080_microgpusim_reconstructed", 0, &e);
    if (rc == 1)
        goto out;
    CHECK_EQ(rc, 0);
    CHECK_EQ(c.v.n_clusters, 20);
    CHECK_EQ(c.v.oc_specialized, 1);
    CHECK_EQ(c.v.oc_units, 0);
    CHECK_EQ(c.v.oc_sp_units, 20);
    CHECK_EQ(c.v.oc_mem_units, 8);
    CHECK_STR(knob_enum_name(KNOB_ID_l1d_set_index, c.v.l1d_set_index, eb, sizeof eb), "fermi");
    CHECK_EQ(c.v.dram_bank_groups, 1);
    CHECK_EQ(c.v.dram_tCCDL, 0);
    CHECK_EQ(c.v.icnt_in_buffer, 64);
    CHECK_EQ(c.v.kernel_launch_latency, 0);
    CHECK_EQ(c.v.units_tensor, 0); /* tensor_core_avail 0 */
    CHECK_EQ(c.v.spec4_enabled, 1);
    CHECK_EQ(c.v.lat_spec4, 4);
out:
    knob_free(&c);
}

TEST(gpgpusim_fragment_applies_on_top)
{
    /* no -gpgpu_n_clusters: a fragment, applied over the current values */
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_import_gpgpusim_text(&c, "frag.config",
                                       "-gpgpu_l1_latency 20\n-trace_opcode_latency_initiation_sp 5,3\n",
                                       &e), 0);
    CHECK_EQ(c.v.l1d_latency, 20);
    CHECK_EQ(c.v.lat_sp, 5);
    CHECK_EQ(c.v.init_sp, 3);
    CHECK_EQ(c.v.units_dp, 4);     /* untouched lockstep default */
    CHECK_EQ(c.v.n_clusters, 46);
    CHECK_STR(origin(&c, "l1d_latency"), "frag.config:1 (-gpgpu_l1_latency)");
    CHECK_STR(origin(&c, "units_dp"), "default");
    knob_free(&c);
}

TEST(gpgpusim_typo_is_an_error_with_suggestion)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_import_gpgpusim_text(&c, "t.config",
                                       "# header\n-gpgpu_n_mem 8\n\n-gpgpu_n_cluster 20\n", &e),
             -1);
    CHECK_HAS(e.msg, "t.config:4");
    CHECK_HAS(e.msg, "unknown GPGPU-Sim option '-gpgpu_n_cluster'");
    CHECK_HAS(e.msg, "-gpgpu_n_clusters");
    knob_free(&c);
}

TEST(gpgpusim_syntax_errors)
{
    static const struct {
        const char *text, *want1, *want2;
    } cases[] = {
        {"-gpgpu_n_mem 8\n-gpgpu_l1_latency\n", "s.config:2", "has no value"},
        {"-gpgpu_n_mem 8 stray\n", "s.config:1", "expected an option name"},
        {"-gpgpu_dram_timing_opt \"nbk=16:CCD=2\n", "s.config:1", "unterminated quote"},
        {"-gpgpu_n_mem x\n", "s.config:1 (-gpgpu_n_mem)", "knob n_mem"},
        {"-gpgpu_n_mem 0\n", "s.config:1 (-gpgpu_n_mem)", "out of range"},
        {"-gpgpu_scheduler rrr\n", "s.config:1 (-gpgpu_scheduler)", "two_level_active"},
        {"-gpgpu_clock_domains 1:2:3\n", "(-gpgpu_clock_domains)", "4 values"},
        {"-gpgpu_pipeline_widths 1,2,3\n", "(-gpgpu_pipeline_widths)", "11 to 13 values"},
        {"-gpgpu_memory_partition_indexing 7\n", "(-gpgpu_memory_partition_indexing)", "4 (random)"},
        {"-network_mode 0\n", "(-network_mode)", "1 (booksim) 2 (xbar)"},
        {"-gpgpu_dram_timing_opt nbk=16:CCD=2:XX=3\n", "(-gpgpu_dram_timing_opt)", "keys nbk"},
        {"-gpgpu_dram_timing_opt nbk=16:CCD=2\n", "(-gpgpu_dram_timing_opt)", "a value for RRD"},
        {"-gpgpu_dram_timing_opt 16:2:3\n", "(-gpgpu_dram_timing_opt)", "nbk:tCCD"},
        {"-l2_ideal 1\n", "(-l2_ideal)", "implements only -l2_ideal 0"},
        {"-gpgpu_compute_capability_minor 12\n", "(-gpgpu_compute_capability_minor)", "0..9"},
        {"-gpgpu_mem_addr_mapping dramid@8;RRR\n", "(-gpgpu_mem_addr_mapping)", "exactly 64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        knob_cfg c;
        knob_init(&c);
        base_err e = {0};
        CHECK_EQ(knob_import_gpgpusim_text(&c, "s.config", cases[i].text, &e), -1);
        CHECK_HAS(e.msg, cases[i].want1);
        CHECK_HAS(e.msg, cases[i].want2);
        knob_free(&c);
    }
}

TEST(gpgpusim_cache_string_errors)
{
    static const struct {
        const char *value, *want;
    } cases[] = {
        {"S:4:128:256,L:T:m:L:Q,A:384:48,16:0,32", "set index function: expected one of L H P X C, found 'Q'"},
        {"S:4:64:256,L:T:m:L:L,A:384:48,16:0,32", "line size: expected 128 for a sectored"},
        {"N:64:128:16,L:B:f:N:L,A:2:48,4", "allocation policy: expected m (allocate on miss) for a write-back"},
        {"N:64:128:16,L:T:s:L:L,A:2:48,4", "lazy fetch-on-read"},
        {"N:4:128:256,L:R:m:N:L,T:512:8,128", "exactly 14 fields"},
        {"N:4:128:256,L:R:m:N:L,A:512:8,128,32", "result FIFO depth before it"},
        {"N:4:128:256,L:R:m:N,A:512:8,128", "group 2"},
        {"N:4:128,L:R:m:N:L,A:512:8,128", "group 1"},
        {"N:4:x:8,L:R:m:N:L,A:512:8,128", "line size: expected an unsigned integer, found 'x'"},
        {"N:4:128:8,L:R:m:N:L,A:512:8,16:0,48", "data port width: expected a divisor"},
        {"N:4:128:8", "3 to 5 ','-separated groups"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        knob_cfg c;
        knob_init(&c);
        base_err e = {0};
        char text[256];
        snprintf(text, sizeof text, "\n-gpgpu_cache:dl1 %s\n", cases[i].value);
        CHECK_EQ(knob_import_gpgpusim_text(&c, "c.config", text, &e), -1);
        CHECK_HAS(e.msg, "c.config:2 (-gpgpu_cache:dl1)");
        CHECK_HAS(e.msg, cases[i].want);
        knob_free(&c);
    }
}

TEST(gpgpusim_cache_none_and_twelve_fields)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_import_gpgpusim_text(&c, "n.config", "-gpgpu_cache:dl1 none\n"
                                       "-gpgpu_const_cache:l1 N:64:64:2,L:R:f:N:L,A:2:32\n", &e), 0);
    CHECK_EQ(c.v.l1d_enabled, 0);
    CHECK_EQ(c.v.l1c_sets, 64);
    CHECK_EQ(c.v.l1c_miss_queue, 4); /* absent: the knob default */
    CHECK_EQ(c.v.l1c_data_port, 0);
    knob_free(&c);
}

TEST(gpgpusim_last_assignment_wins_and_quotes)
{
    char eb[64];
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    const char *text =
        "-gpgpu_l1_latency 10 -gpgpu_l1_latency 11\n"
        "-gpgpu_dram_timing_opt \"nbk=16:CCD=2:RRD=8:RCD=16:RAS=37:RP=16:RC=52:   # comment \"\n"
        "      CL=16:WL=6:CDLR=7:WR=16:nbkgrp=4:CCDL=4:RTPL=3\"\n"
        "-gpgpu_l1_latency 12 # later wins\n"
        "-gpgpu_scheduler two_level_active:6:0:1\n"
        "-gpgpu_dram_write_queue_size_x 1\n";
    /* the last line is a typo: everything before it applied, then the error */
    CHECK_EQ(knob_import_gpgpusim_text(&c, "q.config", text, &e), -1);
    CHECK_HAS(e.msg, "q.config:6");
    CHECK_EQ(c.v.l1d_latency, 12);
    CHECK_STR(origin(&c, "l1d_latency"), "q.config:4 (-gpgpu_l1_latency)");
    CHECK_EQ(c.v.dram_tRC, 52);
    CHECK_EQ(c.v.dram_tCL, 16);
    CHECK_EQ(c.v.dram_tRTPL, 3);
    CHECK_STR(origin(&c, "dram_tCL"), "q.config:2 (-gpgpu_dram_timing_opt)");
    CHECK_STR(knob_enum_name(KNOB_ID_warp_scheduler, c.v.warp_scheduler, eb, sizeof eb), "two_level");
    CHECK_EQ(c.v.two_level_active, 6);
    /* positional DRAM timing, 11 values */
    base_err_clear(&e);
    CHECK_EQ(knob_import_gpgpusim_text(&c, "p.config",
                                       "-gpgpu_dram_timing_opt 8:2:8:12:21:13:34:9:4:5:13\n", &e), 0);
    CHECK_EQ(c.v.dram_banks, 8);
    CHECK_EQ(c.v.dram_tWR, 13);
    CHECK_EQ(c.v.dram_bank_groups, 1);
    CHECK_EQ(c.v.dram_tCCDL, 0);
    knob_free(&c);
}

TEST(gpgpusim_compute_capability_and_tensor)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_import_gpgpusim_text(&c, "cc.config",
                                       "-gpgpu_compute_capability_minor 5\n"
                                       "-gpgpu_compute_capability_major 7\n"
                                       "-gpgpu_num_tensor_core_units 8\n"
                                       "-gpgpu_tensor_core_avail 0\n", &e), 0);
    CHECK_EQ(c.v.compute_capability, 75);
    CHECK_EQ(c.v.units_tensor, 0);
    CHECK_HAS(origin(&c, "units_tensor"), "(-gpgpu_tensor_core_avail)");
    CHECK_EQ(knob_import_gpgpusim_text(&c, "cc2.config",
                                       "-gpgpu_tensor_core_avail 1\n"
                                       "-gpgpu_num_tensor_core_units 2\n", &e), 0);
    CHECK_EQ(c.v.units_tensor, 2);
    knob_free(&c);
}

TEST(gpgpusim_compute_capability_sets_cuda_occupancy_rules)
{
    /* a Pascal config must not keep the sm_86 preset's 1 KB per-CTA reservation */
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(c.v.occ_smem_reserved_per_cta, 1024);
    CHECK_EQ(knob_import_gpgpusim_text(&c, "p.config",
                                       "-gpgpu_compute_capability_major 6\n"
                                       "-gpgpu_compute_capability_minor 1\n", &e), 0);
    CHECK_EQ(c.v.compute_capability, 61);
    CHECK_EQ(c.v.occ_smem_reserved_per_cta, 0);
    CHECK_EQ(c.v.occ_smem_alloc_unit, 256);
    CHECK_HAS(origin(&c, "occ_smem_alloc_unit"), "p.config:2");
    CHECK_EQ(knob_import_gpgpusim_text(&c, "f.config", "-gpgpu_compute_capability_major 2\n"
                                                       "-gpgpu_compute_capability_minor 0\n", &e), 0);
    CHECK_EQ(c.v.occ_reg_alloc_unit, 64);
    CHECK_EQ(c.v.occ_warp_alloc_granularity, 2);
    knob_free(&c);
}

TEST(gpgpusim_unmodelled_listed_once)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_import_gpgpusim_text(&c, "u.config",
                                       "-power_simulation_enabled 0\n-visualizer_enabled 0\n"
                                       "-power_simulation_enabled 1\n", &e), 0);
    CHECK_STR(c.unmodelled.s, "-power_simulation_enabled, -visualizer_enabled");
    CHECK_EQ(c.nunmodelled, 2);
    knob_free(&c);
}

TEST(gpgpusim_config_include)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    const char *inner = "-gpgpu_l1_latency 33\n-gpgpu_smem_latency 7\n";
    test_write_file("inc/sub/inner.config", inner, strlen(inner));
    const char *outer_text = "-gpgpu_l1_latency 1\n-config sub/inner.config\n-gpgpu_smem_latency 8\n";
    const char *outer = test_write_file("inc/outer.config", outer_text, strlen(outer_text));
    char path[512];
    snprintf(path, sizeof path, "%s", outer);
    CHECK_EQ(knob_load_file(&c, path, &e), 0);
    CHECK_EQ(c.v.l1d_latency, 33);   /* the include replaced line 2, after line 1 */
    CHECK_EQ(c.v.smem_latency, 8);   /* line 3 comes after the include */
    CHECK_HAS(origin(&c, "l1d_latency"), "inc/sub/inner.config:1 (-gpgpu_l1_latency)");
    /* a missing include names the including line */
    const char *bad_text = "-config nope.config\n";
    const char *badp = test_write_file("inc/bad.config", bad_text, strlen(bad_text));
    snprintf(path, sizeof path, "%s", badp);
    base_err_clear(&e);
    CHECK_EQ(knob_load_file(&c, path, &e), -1);
    CHECK_HAS(e.msg, "bad.config:1: -config nope.config");
    /* a config including itself stops at the nesting limit */
    const char *self_text = "-config self.config\n";
    const char *selfp = test_write_file("inc/self.config", self_text, strlen(self_text));
    snprintf(path, sizeof path, "%s", selfp);
    base_err_clear(&e);
    CHECK_EQ(knob_load_file(&c, path, &e), -1);
    CHECK_HAS(e.msg, "nested more than");
    CHECK_EQ(c.depth, 0);
    /* includes are refused when the depth is already at the limit (fuzz targets) */
    c.depth = KNOB_GPGPUSIM_MAX_DEPTH;
    base_err_clear(&e);
    CHECK_EQ(knob_import_gpgpusim_text(&c, "f", "-config /etc/passwd\n", &e), -1);
    CHECK_HAS(e.msg, "includes are disabled");
    c.depth = 0;
    knob_free(&c);
}

/* Import -> knob_write_params -> load into a fresh cfg: every knob equal. */
TEST(gpgpusim_write_params_round_trip)
{
    for (size_t i = 0; i < sizeof ref_cfgs / sizeof *ref_cfgs; i++) {
        knob_cfg a, b;
        base_err e = {0};
        int rc = import_ref(&a, ref_cfgs[i], 1, &e);
        if (rc == 1) {
            knob_free(&a);
            return;
        }
        CHECK_EQ(rc, 0);
        char name[128];
        snprintf(name, sizeof name, "rt_%zu.cfg", i);
        const char *p = test_write_file(name, "", 0);
        char path[512];
        snprintf(path, sizeof path, "%s", p);
        FILE *f = fopen(path, "w");
        knob_write_params(f, &a, 0);
        fclose(f);
        knob_init(&b);
        if (knob_load_file(&b, path, &e))
            test_fail_at(__FILE__, __LINE__, "%s: %s", ref_cfgs[i], e.msg);
        for (int k = 0; k < KNOB_COUNT; k++) {
            char va[512], vb[512];
            knob_format(&a, k, va, sizeof va);
            knob_format(&b, k, vb, sizeof vb);
            if (strcmp(va, vb) != 0)
                test_fail_at(__FILE__, __LINE__, "%s: knob %s: %s became %s", ref_cfgs[i],
                             knob_defs[k].name, va, vb);
        }
        knob_free(&a);
        knob_free(&b);
    }
}
