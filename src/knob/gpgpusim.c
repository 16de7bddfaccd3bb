/* Import of GPGPU-Sim / Accel-Sim configuration files (gpgpusim.config, trace.config).
 *
 * Syntax and precedence as GPGPU-Sim's option parser (FORMATS.md B.2): '#' comments to end
 * of line (even inside quotes), lines joined, whitespace-separated tokens, "quoted values"
 * joined with single spaces, `-option value` pairs, `-config FILE` replaced in place by the
 * options of FILE, the last assignment wins. Every option is then looked up in one mapping
 * table (gs_map below): it sets lockstep knobs, or is known to GPGPU-Sim but not modelled
 * (collected in knob_cfg.unmodelled, reported by the CLI), or is unknown (an error naming
 * file:line and the closest known names).
 *
 * A config that describes a whole GPU (it sets -gpgpu_n_clusters) and is the first GPGPU-Sim
 * source of a knob_cfg starts from GPGPU-Sim's own option defaults, as GPGPU-Sim does: an
 * option the file leaves out means GPGPU-Sim's default, not lockstep's. Fragments such as
 * trace.config apply on top of whatever is already set. */
#include "gpgpusim.h"

#include "../base/rd.h"

#include <stdlib.h>
#include <string.h>

#define GS_MAX_DEPTH KNOB_GPGPUSIM_MAX_DEPTH

/* ---- every option GPGPU-Sim (pinned build, FORMATS.md section 0) and Accel-Sim's trace
 * driver register: the "Configuration options" dump of a real run, plus -config. -------- */
static const char *const gs_known[] = {
    "-config", "-save_embedded_ptx", "-keep", "-gpgpu_ptx_save_converted_ptxplus",
    "-gpgpu_occupancy_sm_number", "-ptx_opcode_latency_int", "-ptx_opcode_latency_fp",
    "-ptx_opcode_latency_dp", "-ptx_opcode_latency_sfu", "-ptx_opcode_latency_tesnor",
    "-ptx_opcode_initiation_int", "-ptx_opcode_initiation_fp", "-ptx_opcode_initiation_dp",
    "-ptx_opcode_initiation_sfu", "-ptx_opcode_initiation_tensor", "-cdp_latency",
    "-network_mode", "-inter_config_file", "-icnt_in_buffer_limit", "-icnt_out_buffer_limit",
    "-icnt_subnets", "-icnt_arbiter_algo", "-icnt_verbose", "-icnt_grant_cycles",
    "-gpgpu_ptx_use_cuobjdump", "-gpgpu_experimental_lib_support", "-checkpoint_option",
    "-checkpoint_kernel", "-checkpoint_CTA", "-resume_option", "-resume_kernel", "-resume_CTA",
    "-checkpoint_CTA_t", "-checkpoint_insn_Y", "-gpgpu_ptx_convert_to_ptxplus",
    "-gpgpu_ptx_force_max_capability", "-gpgpu_ptx_inst_debug_to_file",
    "-gpgpu_ptx_inst_debug_file", "-gpgpu_ptx_inst_debug_thread_uid", "-gpgpu_simd_model",
    "-gpgpu_shader_core_pipeline", "-gpgpu_tex_cache:l1", "-gpgpu_const_cache:l1",
    "-gpgpu_cache:il1", "-gpgpu_cache:dl1", "-gpgpu_l1_cache_write_ratio", "-gpgpu_l1_banks",
    "-gpgpu_l1_banks_byte_interleaving", "-gpgpu_l1_banks_hashing_function", "-gpgpu_l1_latency",
    "-gpgpu_smem_latency", "-gpgpu_cache:dl1PrefL1", "-gpgpu_cache:dl1PrefShared",
    "-gpgpu_gmem_skip_L1D", "-gpgpu_perfect_mem", "-n_regfile_gating_group",
    "-gpgpu_clock_gated_reg_file", "-gpgpu_clock_gated_lanes", "-gpgpu_shader_registers",
    "-gpgpu_registers_per_block", "-gpgpu_ignore_resources_limitation", "-gpgpu_shader_cta",
    "-gpgpu_num_cta_barriers", "-gpgpu_n_clusters", "-gpgpu_n_cores_per_cluster",
    "-gpgpu_n_cluster_ejection_buffer_size", "-gpgpu_n_ldst_response_buffer_size",
    "-gpgpu_shmem_per_block", "-gpgpu_shmem_size", "-gpgpu_shmem_option",
    "-gpgpu_unified_l1d_size", "-gpgpu_adaptive_cache_config", "-gpgpu_shmem_sizeDefault",
    "-gpgpu_shmem_size_PrefL1", "-gpgpu_shmem_size_PrefShared", "-gpgpu_shmem_num_banks",
    "-gpgpu_shmem_limited_broadcast", "-gpgpu_shmem_warp_parts", "-gpgpu_mem_unit_ports",
    "-gpgpu_warpdistro_shader", "-gpgpu_warp_issue_shader", "-gpgpu_local_mem_map",
    "-gpgpu_num_reg_banks", "-gpgpu_reg_bank_use_warp_id", "-gpgpu_sub_core_model",
    "-gpgpu_enable_specialized_operand_collector", "-gpgpu_operand_collector_num_units_sp",
    "-gpgpu_operand_collector_num_units_dp", "-gpgpu_operand_collector_num_units_sfu",
    "-gpgpu_operand_collector_num_units_int", "-gpgpu_operand_collector_num_units_tensor_core",
    "-gpgpu_operand_collector_num_units_mem", "-gpgpu_operand_collector_num_units_gen",
    "-gpgpu_operand_collector_num_in_ports_sp", "-gpgpu_operand_collector_num_in_ports_dp",
    "-gpgpu_operand_collector_num_in_ports_sfu", "-gpgpu_operand_collector_num_in_ports_int",
    "-gpgpu_operand_collector_num_in_ports_tensor_core",
    "-gpgpu_operand_collector_num_in_ports_mem", "-gpgpu_operand_collector_num_in_ports_gen",
    "-gpgpu_operand_collector_num_out_ports_sp", "-gpgpu_operand_collector_num_out_ports_dp",
    "-gpgpu_operand_collector_num_out_ports_sfu", "-gpgpu_operand_collector_num_out_ports_int",
    "-gpgpu_operand_collector_num_out_ports_tensor_core",
    "-gpgpu_operand_collector_num_out_ports_mem", "-gpgpu_operand_collector_num_out_ports_gen",
    "-gpgpu_coalesce_arch", "-gpgpu_num_sched_per_core", "-gpgpu_max_insn_issue_per_warp",
    "-gpgpu_dual_issue_diff_exec_units", "-gpgpu_simt_core_sim_order", "-gpgpu_pipeline_widths",
    "-gpgpu_tensor_core_avail", "-gpgpu_num_sp_units", "-gpgpu_num_dp_units",
    "-gpgpu_num_int_units", "-gpgpu_num_sfu_units", "-gpgpu_num_tensor_core_units",
    "-gpgpu_num_mem_units", "-gpgpu_scheduler", "-gpgpu_concurrent_kernel_sm",
    "-gpgpu_perfect_inst_const_cache", "-gpgpu_inst_fetch_throughput",
    "-gpgpu_reg_file_port_throughput", "-specialized_unit_1", "-specialized_unit_2",
    "-specialized_unit_3", "-specialized_unit_4", "-specialized_unit_5", "-specialized_unit_6",
    "-specialized_unit_7", "-specialized_unit_8", "-gpgpu_perf_sim_memcpy",
    "-gpgpu_simple_dram_model", "-gpgpu_dram_scheduler", "-gpgpu_dram_partition_queues",
    "-l2_ideal", "-gpgpu_cache:dl2", "-gpgpu_cache:dl2_texture_only", "-gpgpu_n_mem",
    "-gpgpu_n_sub_partition_per_mchannel", "-gpgpu_n_mem_per_ctrlr", "-gpgpu_memlatency_stat",
    "-gpgpu_frfcfs_dram_sched_queue_size", "-gpgpu_dram_return_queue_size",
    "-gpgpu_dram_buswidth", "-gpgpu_dram_burst_length", "-dram_data_command_freq_ratio",
    "-gpgpu_dram_timing_opt", "-gpgpu_l2_rop_latency", "-dram_latency",
    "-dram_dual_bus_interface", "-dram_bnk_indexing_policy", "-dram_bnkgrp_indexing_policy",
    "-dram_seperate_write_queue_enable", "-dram_write_queue_size", "-dram_elimnate_rw_turnaround",
    "-icnt_flit_size", "-gpgpu_mem_addr_mapping", "-gpgpu_mem_addr_test",
    "-gpgpu_mem_address_mask", "-gpgpu_memory_partition_indexing", "-accelwattch_xml_file",
    "-power_simulation_enabled", "-power_per_cycle_dump", "-hw_perf_file_name",
    "-hw_perf_bench_name", "-power_simulation_mode", "-dvfs_enabled", "-aggregate_power_stats",
    "-accelwattch_hybrid_perfsim_L1_RH", "-accelwattch_hybrid_perfsim_L1_RM",
    "-accelwattch_hybrid_perfsim_L1_WH", "-accelwattch_hybrid_perfsim_L1_WM",
    "-accelwattch_hybrid_perfsim_L2_RH", "-accelwattch_hybrid_perfsim_L2_RM",
    "-accelwattch_hybrid_perfsim_L2_WH", "-accelwattch_hybrid_perfsim_L2_WM",
    "-accelwattch_hybrid_perfsim_CC_ACC", "-accelwattch_hybrid_perfsim_SHARED_ACC",
    "-accelwattch_hybrid_perfsim_DRAM_RD", "-accelwattch_hybrid_perfsim_DRAM_WR",
    "-accelwattch_hybrid_perfsim_NOC", "-accelwattch_hybrid_perfsim_PIPE_DUTY",
    "-accelwattch_hybrid_perfsim_NUM_SM_IDLE", "-accelwattch_hybrid_perfsim_CYCLES",
    "-accelwattch_hybrid_perfsim_VOLTAGE", "-power_trace_enabled", "-power_trace_zlevel",
    "-steady_power_levels_enabled", "-steady_state_definition", "-gpgpu_max_cycle",
    "-gpgpu_max_insn", "-gpgpu_max_cta", "-gpgpu_max_completed_cta", "-gpgpu_runtime_stat",
    "-liveness_message_freq", "-gpgpu_compute_capability_major",
    "-gpgpu_compute_capability_minor", "-gpgpu_flush_l1_cache", "-gpgpu_flush_l2_cache",
    "-gpgpu_deadlock_detect", "-gpgpu_ptx_instruction_classification", "-gpgpu_ptx_sim_mode",
    "-gpgpu_clock_domains", "-gpgpu_max_concurrent_kernel", "-gpgpu_cflog_interval",
    "-visualizer_enabled", "-visualizer_outputfile", "-visualizer_zlevel",
    "-gpgpu_stack_size_limit", "-gpgpu_heap_size_limit", "-gpgpu_runtime_sync_depth_limit",
    "-gpgpu_runtime_pending_launch_count_limit", "-trace_enabled", "-trace_components",
    "-trace_sampling_core", "-trace_sampling_memory_partition", "-enable_ptx_file_line_stats",
    "-ptx_line_stats_filename", "-gpgpu_kernel_launch_latency", "-gpgpu_cdp_enabled",
    "-gpgpu_TB_launch_latency", "-trace", "-trace_opcode_latency_initiation_int",
    "-trace_opcode_latency_initiation_sp", "-trace_opcode_latency_initiation_dp",
    "-trace_opcode_latency_initiation_sfu", "-trace_opcode_latency_initiation_tensor",
    "-trace_opcode_latency_initiation_spec_op_1", "-trace_opcode_latency_initiation_spec_op_2",
    "-trace_opcode_latency_initiation_spec_op_3", "-trace_opcode_latency_initiation_spec_op_4",
    "-trace_opcode_latency_initiation_spec_op_5", "-trace_opcode_latency_initiation_spec_op_6",
    "-trace_opcode_latency_initiation_spec_op_7", "-trace_opcode_latency_initiation_spec_op_8",
};

/* ---- tokens and collected options ------------------------------------------------------ */

typedef struct gs_opt {
    char *name, *value;
    char *file;   /* path of the file the option was read from (NULL: GPGPU-Sim default) */
    char *where;  /* "FILE:LINE (-name)" or "GPGPU-Sim default (-name)" */
} gs_opt;

typedef struct gs_list {
    gs_opt *v;
    size_t n, cap;
    base_pool strs;  /* the options' strings and the tokens they came from */
} gs_list;

typedef struct gs_tok {
    char *s;
    unsigned long line;
} gs_tok;

typedef struct gs_toks {
    gs_tok *v;
    size_t n, cap;
} gs_toks;

/* Slots of the per-import option index: a power of two, over twice the known options. */
#define GS_SLOTS 1024

/* Per-import state: the option index, and the one option pair whose meaning depends on the
 * other: -gpgpu_tensor_core_avail 0 means no tensor units whatever
 * -gpgpu_num_tensor_core_units says. */
typedef struct gs_state {
    int tensor_avail;          /* -1: not seen */
    char tensor_units[32];     /* "" : not seen */
    char avail_where[600], units_where[600];
    int16_t by_name[GS_SLOTS]; /* option -> gs_map row + 1, or -(gs_known index + 1); 0 empty */
    size_t unmodelled_before;  /* length of knob_cfg.unmodelled when this import began */
    uint8_t unmodelled_seen[BASE_ARRAY_LEN(gs_known)]; /* reported by this import */
} gs_state;

static void list_free(gs_list *l)
{
    free(l->v);
    base_pool_free(&l->strs);
}

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

/* Splits text into whitespace-separated tokens, each with its line; '#' starts a comment
 * that runs to the end of the line wherever it appears (GPGPU-Sim ignores quotes there). */
static void tokenize(const char *text, gs_toks *t, base_pool *strs)
{
    unsigned long line = 1;
    const char *p = text;
    while (*p) {
        if (*p == '\n') {
            line++;
            p++;
        } else if (is_space(*p)) {
            p++;
        } else if (*p == '#') {
            while (*p && *p != '\n')
                p++;
        } else {
            const char *b = p;
            while (*p && !is_space(*p) && *p != '#')
                p++;
            base_grow(&t->v, &t->cap, t->n + 1, sizeof *t->v);
            t->v[t->n].s = base_pool_strndup(strs, b, (size_t)(p - b));
            t->v[t->n].line = line;
            t->n++;
        }
    }
}

static char *dir_of(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? base_strndup(path, (size_t)(slash - path + 1)) : base_strdup("");
}

/* A path named inside `file`: relative to that file's directory first, then as given. */
static char *resolve_near(const char *file, const char *value)
{
    if (value[0] != '/' && file) {
        char *dir = dir_of(file);
        if (dir[0]) {
            char *joined = base_sprintf("%s%s", dir, value);
            FILE *f = fopen(joined, "rb");
            free(dir);
            if (f) {
                fclose(f);
                return joined;
            }
            free(joined);
        } else {
            free(dir);
        }
    }
    return base_strdup(value);
}

static int collect_text(knob_cfg *c, const char *file, const char *text, gs_list *out,
                        base_err *e);

static int collect_include(knob_cfg *c, const char *file, unsigned long line,
                           const char *value, gs_list *out, base_err *e)
{
    if (c->depth >= GS_MAX_DEPTH)
        return base_fail(e, BASE_EXIT_INPUT,
                         "%s:%lu: -config %s: configs nested more than %d deep (or includes "
                         "are disabled here)", file, line, value, GS_MAX_DEPTH);
    char *path = resolve_near(file, value);
    base_err sub = {0};
    char *text = base_read_text(path, &sub);
    if (!text) {
        base_fail(e, BASE_EXIT_INPUT, "%s:%lu: -config %s: %s", file, line, value, sub.msg);
        free(path);
        return -1;
    }
    c->depth++;
    int rc = collect_text(c, path, text, out, e);
    c->depth--;
    free(text);
    free(path);
    return rc;
}

/* "FILE:LINE (NAME)", assembled by hand: a config has hundreds of options. */
static char *where_of(base_pool *strs, const char *file, unsigned long line, const char *name)
{
    char num[BASE_I64_CHARS];
    size_t nf = strlen(file), nl = base_fmt_i64(num, (int64_t)line), nn = strlen(name);
    char *w = base_pool_alloc(strs, nf + nl + nn + 5), *p = w;
    memcpy(p, file, nf);
    p += nf;
    *p++ = ':';
    memcpy(p, num, nl);
    p += nl;
    *p++ = ' ';
    *p++ = '(';
    memcpy(p, name, nn);
    p += nn;
    *p++ = ')';
    *p = 0;
    return w;
}

/* name and value are kept as they are: strings of out->strs. */
static void add_opt(gs_list *out, char *file, unsigned long line, char *name, char *value)
{
    base_grow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
    gs_opt *o = &out->v[out->n++];
    o->name = name;
    o->value = value;
    o->file = file;
    o->where = where_of(&out->strs, file, line, name);
}

/* Joins a quoted value that starts at token *i; advances *i past its last token. */
static int join_quoted(const gs_toks *t, size_t *i, base_buf *val)
{
    const char *s = t->v[*i].s;
    size_t n = strlen(s);
    if (s[0] != '"') {
        base_buf_puts(val, s);
        return 0;
    }
    base_buf_puts(val, s + 1);
    if (n >= 2 && s[n - 1] == '"') {
        val->s[--val->len] = 0;
        return 0;
    }
    while (++*i < t->n) {
        s = t->v[*i].s;
        n = strlen(s);
        base_buf_putc(val, ' ');
        base_buf_puts(val, s);
        if (s[n - 1] == '"') {
            val->s[--val->len] = 0;
            return 0;
        }
    }
    return -1;
}

static int collect_text(knob_cfg *c, const char *file, const char *text, gs_list *out,
                        base_err *e)
{
    gs_toks t = {0};
    tokenize(text, &t, &out->strs);
    char *file_copy = base_pool_strdup(&out->strs, file);
    int rc = 0;
    for (size_t i = 0; i < t.n && rc == 0; i++) {
        char *name = t.v[i].s;
        unsigned long line = t.v[i].line;
        if (name[0] != '-' || !name[1]) {
            rc = base_fail(e, BASE_EXIT_INPUT, "%s:%lu: expected an option name starting "
                           "with '-', found '%.60s'", file, line, name);
            break;
        }
        if (i + 1 == t.n) {
            rc = base_fail(e, BASE_EXIT_INPUT, "%s:%lu: option %.80s has no value", file,
                           line, name);
            break;
        }
        i++;
        char *value = t.v[i].s;
        if (value[0] == '"') {
            base_buf val = {0};
            base_buf_puts(&val, "");
            if (join_quoted(&t, &i, &val))
                rc = base_fail(e, BASE_EXIT_INPUT, "%s:%lu: unterminated quote in the value "
                               "of %.80s", file, line, name);
            value = base_pool_strdup(&out->strs, val.s);
            base_buf_free(&val);
            if (rc)
                break;
        }
        if (strcmp(name, "-config") == 0)
            rc = collect_include(c, file, line, value, out, e);
        else
            add_opt(out, file_copy, line, name, value);
    }
    free(t.v);
    return rc;
}

/* ---- the mapping table ----------------------------------------------------------------- */

typedef struct gs_row gs_row;
typedef int (*gs_fn)(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st,
                     base_err *e);

struct gs_row {
    const char *opt;   /* GPGPU-Sim option name */
    gs_fn fn;
    const char *knobs; /* knob name(s), comma-separated (a cache prefix for h_cache) */
    const char *aux;   /* handler detail: separator, choices by index, fixed value */
    int min;           /* h_split: fewest values accepted (the rest become 0) */
    const char *gdef;  /* GPGPU-Sim's default value; NULL: not applied */
};

/* Every knob the importer sets goes through here, so later imports know one came first. */
static int gs_set(knob_cfg *c, const char *knob, const char *value, const char *where,
                  base_err *e)
{
    if (knob_set(c, knob, value, where, e))
        return -1;
    c->gpgpusim_set = 1;
    return 0;
}

static int set1(knob_cfg *c, const char *knob, const char *value, const gs_opt *o, base_err *e)
{
    return gs_set(c, knob, value, o->where, e);
}

static int bad(const gs_opt *o, base_err *e, const char *expected)
{
    return base_fail(e, BASE_EXIT_INPUT, "%s: bad value '%.100s', expected %s", o->where,
                     o->value, expected);
}

/* Copies item k (0-based) of a `sep`-separated list into buf; returns the item count. */
static int split(const char *s, char sep, char items[][64], int max)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, sep);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (n < max) {
            size_t k = len < 63 ? len : 63;
            memcpy(items[n], p, k);
            items[n][k] = 0;
            if (len > 63)
                items[n][0] = '\1';  /* too long: never a valid number or name */
            char *tr = base_trim(items[n]);
            memmove(items[n], tr, strlen(tr) + 1);
        }
        n++;
        if (!end)
            return n;
        p = end + 1;
    }
}

static int h_set(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st, base_err *e)
{
    (void)st;
    return set1(c, r->knobs, o->value, o, e);
}

/* One value per knob, separated by aux[0]: "a:b:c:d" -> knobs "k1,k2,k3,k4". */
static int h_split(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st, base_err *e)
{
    (void)st;
    char kn[16][64], vals[16][64];
    int nk = split(r->knobs, ',', kn, 16);
    int nv = split(o->value, r->aux[0], vals, 16);
    if (nv < r->min || nv > nk) {
        char exp[128];
        if (r->min == nk)
            snprintf(exp, sizeof exp, "%d values separated by '%c'", nk, r->aux[0]);
        else
            snprintf(exp, sizeof exp, "%d to %d values separated by '%c'", r->min, nk,
                     r->aux[0]);
        return bad(o, e, exp);
    }
    for (int i = 0; i < nk; i++)
        if (set1(c, kn[i], i < nv ? vals[i] : "0", o, e))
            return -1;
    return 0;
}

/* An integer code -> an ENUM knob's choice. aux lists the choices by code ("|a|b": code 0
 * is invalid); NULL means the knob's own choices in order. */
static int h_index(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st, base_err *e)
{
    (void)st;
    int id = knob_cfg_find(c, r->knobs);
    const char *choices = r->aux ? r->aux : knob_defs[id].choices;
    char items[16][64];
    int n = split(choices, '|', items, 16);
    int64_t v;
    if (base_parse_i64(o->value, strlen(o->value), 10, &v) || v < 0 || v >= n ||
        !items[v][0]) {
        char exp[256];
        size_t used = (size_t)snprintf(exp, sizeof exp, "one of");
        for (int i = 0; i < n && i < 16 && used < sizeof exp; i++)
            if (items[i][0])
                used += (size_t)snprintf(exp + used, sizeof exp - used, " %d (%s)", i,
                                         items[i]);
        return bad(o, e, exp);
    }
    return set1(c, r->knobs, items[v], o, e);
}

/* Accepted only at the one value lockstep implements (e.g. -l2_ideal 0). */
static int h_fixed(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st, base_err *e)
{
    (void)c;
    (void)st;
    if (strcmp(o->value, r->aux) == 0)
        return 0;
    return base_fail(e, BASE_EXIT_INPUT, "%s: value '%.100s' is not modelled; lockstep "
                     "implements only %s %s", o->where, o->value, r->opt, r->aux);
}

static int h_sched(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st, base_err *e)
{
    (void)r;
    (void)st;
    const char *v = o->value;
    if (!strcmp(v, "lrr") || !strcmp(v, "gto"))
        return set1(c, "warp_scheduler", v, o, e);
    char items[8][64];
    int n = split(v, ':', items, 8);
    int64_t x;
    if (strcmp(items[0], "two_level_active") != 0 || n < 2 || n > 4 ||
        base_parse_i64(items[1], strlen(items[1]), 10, &x))
        return bad(o, e, "lrr, gto or two_level_active:<active warps>[:<inner>:<outer>]");
    return set1(c, "warp_scheduler", "two_level", o, e) ||
           set1(c, "two_level_active", items[1], o, e);
}

/* The CUDA occupancy calculator's per-architecture constants ("GPU data" sheet; the 1 KB
 * per-CTA reservation is from the CUDA C Programming Guide, cc 8.0 on). A GPGPU-Sim config
 * names only the compute capability, so the importer derives the cuda-mode rounding rules
 * from it instead of leaving those of whatever preset was loaded before. */
static const struct {
    int64_t cc_min;
    const char *reg_unit, *warp_gran, *smem_unit, *smem_reserved;
} CC_OCCUPANCY[] = {
    {20, "64", "2", "128", "0"},    {30, "256", "4", "256", "0"},
    {60, "256", "2", "256", "0"},   {61, "256", "4", "256", "0"},
    {80, "256", "4", "128", "1024"},
};

static int set_cc_occupancy(knob_cfg *c, int64_t cc, const gs_opt *o, base_err *e)
{
    int row = -1;
    for (size_t i = 0; i < BASE_ARRAY_LEN(CC_OCCUPANCY); i++)
        if (cc >= CC_OCCUPANCY[i].cc_min)
            row = (int)i;
    if (row < 0)
        return 0;
    return set1(c, "occ_reg_alloc_unit", CC_OCCUPANCY[row].reg_unit, o, e) ||
           set1(c, "occ_warp_alloc_granularity", CC_OCCUPANCY[row].warp_gran, o, e) ||
           set1(c, "occ_smem_alloc_unit", CC_OCCUPANCY[row].smem_unit, o, e) ||
           set1(c, "occ_smem_reserved_per_cta", CC_OCCUPANCY[row].smem_reserved, o, e);
}

/* -gpgpu_compute_capability_major / _minor: each replaces its digit of compute_capability,
 * so the order of the two options does not matter. */
static int h_cc(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st, base_err *e)
{
    (void)st;
    int64_t v, cur = c->v.compute_capability;
    int major = strcmp(r->aux, "major") == 0;
    if (base_parse_i64(o->value, strlen(o->value), 10, &v) || v < 0 || v > (major ? 19 : 9))
        return bad(o, e, major ? "a major version 1..19" : "a minor version 0..9");
    if (major && v == 0)
        return bad(o, e, "a major version 1..19");
    char buf[32];
    int64_t cc = major ? v * 10 + cur % 10 : cur / 10 * 10 + v;
    snprintf(buf, sizeof buf, "%lld", (long long)cc);
    return set1(c, "compute_capability", buf, o, e) || set_cc_occupancy(c, cc, o, e);
}

static int h_tensor(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st, base_err *e)
{
    (void)c;
    int64_t v;
    if (base_parse_i64(o->value, strlen(o->value), 10, &v) || v < 0 || v > 64)
        return bad(o, e, "an integer in [0, 64]");
    if (r->aux[0] == 'a') {
        st->tensor_avail = v != 0;
        snprintf(st->avail_where, sizeof st->avail_where, "%s", o->where);
    } else {
        snprintf(st->tensor_units, sizeof st->tensor_units, "%lld", (long long)v);
        snprintf(st->units_where, sizeof st->units_where, "%s", o->where);
    }
    return 0;
}

/* Applied once all options are in: units_tensor = avail ? units : 0. */
static int tensor_resolve(knob_cfg *c, const gs_state *st, base_err *e)
{
    if (st->tensor_avail == 0)
        return gs_set(c, "units_tensor", "0", st->avail_where, e);
    if (st->tensor_units[0])
        return gs_set(c, "units_tensor", st->tensor_units, st->units_where, e);
    return 0;
}

static int h_icnt_file(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st,
                       base_err *e)
{
    (void)st;
    char *path = resolve_near(o->file, o->value);
    if (strlen(path) >= KNOB_STR_MAX) {
        free(path);
        path = base_strdup(o->value);
    }
    int rc = set1(c, r->knobs, path, o, e);
    free(path);
    return rc;
}

/* ---- cache strings (FORMATS.md B.4) ------------------------------------------------------ */

typedef struct gs_cfield {
    const char *label;   /* for messages */
    const char *suffix;  /* knob name after the prefix */
    const char *chars;   /* accepted letters; NULL: an unsigned integer */
    const char *choices; /* knob choice for each letter, '|'-separated */
} gs_cfield;

/* In string order: type:sets:line:assoc, repl:wpol:apol:wapol:setidx, mshr:entries:merge,
 * miss_queue[:result_fifo][,data_port] */
static const gs_cfield gs_cfields[] = {
    {"type", "_type", "NS", "normal|sector"},
    {"sets", "_sets", NULL, NULL},
    {"line size", "_line", NULL, NULL},
    {"associativity", "_assoc", NULL, NULL},
    {"replacement", "_repl", "LF", "lru|fifo"},
    {"write policy", "_write", "RBTEL", "ro|wb|wt|we|lwb_gwt"},
    {"allocation policy", "_alloc", "mfs", "on_miss|on_fill|streaming"},
    {"write-allocate policy", "_write_alloc", "NWFL", "none|write|fetch|lazy_fetch"},
    {"set index function", "_set_index", "LHPXC", "linear|fermi|ipoly|xor|custom"},
    {"MSHR type", "_mshr", "ASFT", "assoc|sector_assoc|tex_fifo|sector_tex_fifo"},
    {"MSHR entries", "_mshr_entries", NULL, NULL},
    {"MSHR max merge", "_mshr_merge", NULL, NULL},
    {"miss queue", "_miss_queue", NULL, NULL},
    {"result FIFO", "_result_fifo", NULL, NULL},
    {"data port width", "_data_port", NULL, NULL},
};
#define GS_NCF ((int)BASE_ARRAY_LEN(gs_cfields))

/* Field counts of the ','-separated groups: 4, 5, 3, then 1-2 and 1 optional. */
static const int gs_cgroup_len[] = {4, 5, 3, 2, 1};

static int cache_bad(const gs_opt *o, base_err *e, const char *field, const char *expected,
                     const char *found)
{
    return base_fail(e, BASE_EXIT_INPUT, "%s: cache string '%.100s': %s: expected %s, found "
                     "'%.40s'", o->where, o->value, field, expected, found);
}

/* Splits a cache string into its fields (text); returns the field count or -1. */
static int cache_fields(const gs_opt *o, char f[][64], base_err *e)
{
    char groups[8][64];
    int ng = split(o->value, ',', groups, 8), nf = 0;
    if (ng < 3 || ng > 5)
        return cache_bad(o, e, "layout", "3 to 5 ','-separated groups "
                         "(type:sets:line:assoc,repl:wp:alloc:walloc:index,mshr:n:merge,"
                         "mq[:fifo][,port])", o->value);
    for (int g = 0; g < ng; g++) {
        char items[8][64];
        int n = split(groups[g], ':', items, 8);
        int want = gs_cgroup_len[g];
        int ok = g == 3 ? (n == 1 || n == 2) : n == want;
        if (g == 4 && nf != 14)
            return cache_bad(o, e, "data port width", "a result FIFO depth before it "
                             "(mq:fifo,port)", groups[g]);
        if (!ok) {
            char exp[64];
            snprintf(exp, sizeof exp, "%s%d ':'-separated fields", g == 3 ? "1 or " : "",
                     want);
            char lbl[32];
            snprintf(lbl, sizeof lbl, "group %d", g + 1);
            return cache_bad(o, e, lbl, exp, groups[g]);
        }
        for (int k = 0; k < n; k++)
            strcpy(f[nf++], items[k]);
    }
    return nf;
}

/* Checks one field's text and converts it to the knob value text. */
static int cache_field(const gs_opt *o, int i, const char *text, char *out, base_err *e)
{
    const gs_cfield *cf = &gs_cfields[i];
    if (!cf->chars) {
        uint64_t v;
        if (base_parse_u64(text, strlen(text), 10, &v))
            return cache_bad(o, e, cf->label, "an unsigned integer", text);
        snprintf(out, 64, "%llu", (unsigned long long)v);
        return 0;
    }
    const char *at = text[0] && !text[1] ? strchr(cf->chars, text[0]) : NULL;
    if (!at) {
        char exp[64] = "one of";
        for (const char *p = cf->chars; *p; p++)
            snprintf(exp + strlen(exp), sizeof exp - strlen(exp), " %c", *p);
        return cache_bad(o, e, cf->label, exp, text);
    }
    char names[8][64];
    split(cf->choices, '|', names, 8);
    strcpy(out, names[at - cf->chars]);
    return 0;
}

/* The combinations GPGPU-Sim rejects (it turns streaming into allocate-on-fill first). */
static int cache_rules(const gs_opt *o, char v[][64], int nf, base_err *e)
{
    int fill = !strcmp(v[6], "on_fill") || !strcmp(v[6], "streaming");
    uint64_t line = strtoull(v[2], NULL, 10), port = strtoull(v[14], NULL, 10);
    if (!strcmp(v[0], "sector") && line != 128)
        return cache_bad(o, e, "line size", "128 for a sectored cache (4 sectors of 32 B)",
                         v[2]);
    if (fill && !strcmp(v[5], "wb"))
        return cache_bad(o, e, "allocation policy", "m (allocate on miss) for a write-back "
                         "cache", v[6]);
    if (fill && (!strcmp(v[7], "fetch") || !strcmp(v[7], "lazy_fetch")))
        return cache_bad(o, e, "allocation policy", "m (allocate on miss) with fetch-on-write "
                         "or lazy fetch-on-read", v[6]);
    if ((!strcmp(v[9], "tex_fifo") || !strcmp(v[9], "sector_tex_fifo")) && nf != 14)
        return cache_bad(o, e, "MSHR type", "exactly 14 fields (mq:fifo, no port) for a "
                         "texture FIFO", v[9]);
    if (port && (line == 0 || line % port))
        return cache_bad(o, e, "data port width", "a divisor of the line size", v[14]);
    return 0;
}

/* a, b and c joined into buf (size bytes, truncated), without vfprintf: a cache string sets
 * 17 knobs, and a whole-GPU import names every mapped option's default. */
static void join3(char *buf, size_t size, const char *a, const char *b, const char *c)
{
    const char *parts[] = {a, b, c};
    size_t used = 0;
    for (int i = 0; i < 3; i++)
        for (const char *q = parts[i]; *q && used + 1 < size; q++)
            buf[used++] = *q;
    buf[used] = 0;
}

static void join_name(char *buf, const char *a, const char *b) { join3(buf, 64, a, b, ""); }

static int h_cache(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st, base_err *e)
{
    (void)st;
    char name[64];
    join_name(name, r->knobs, "_enabled");
    if (!strcmp(o->value, "none"))
        return set1(c, name, "0", o, e);
    char f[16][64], v[16][64];
    int nf = cache_fields(o, f, e);
    if (nf < 0)
        return -1;
    for (int i = 0; i < GS_NCF; i++) {
        if (i < nf) {
            if (cache_field(o, i, f[i], v[i], e))
                return -1;
        } else {
            /* absent tail: miss queue keeps the knob default; FIFO and port are 0 */
            join_name(name, r->knobs, gs_cfields[i].suffix);
            snprintf(v[i], 64, "%s", i == 12 ? knob_defs[knob_cfg_find(c, name)].def : "0");
        }
    }
    if (cache_rules(o, v, nf, e))
        return -1;
    join_name(name, r->knobs, "_enabled");
    if (set1(c, name, "1", o, e))
        return -1;
    for (int i = 0; i < GS_NCF; i++) {
        join_name(name, r->knobs, gs_cfields[i].suffix);
        if (set1(c, name, v[i], o, e))
            return -1;
    }
    return 0;
}

/* ---- DRAM timing string (FORMATS.md B.7) ------------------------------------------------ */

/* Named keys, in the order of the positional (legacy) form. */
static const struct {
    const char *key, *knob, *def; /* def: value when the named form leaves it out */
} gs_dram[] = {
    {"nbk", "dram_banks", NULL},      {"CCD", "dram_tCCD", NULL},
    {"RRD", "dram_tRRD", NULL},       {"RCD", "dram_tRCD", NULL},
    {"RAS", "dram_tRAS", NULL},       {"RP", "dram_tRP", NULL},
    {"RC", "dram_tRC", NULL},         {"CL", "dram_tCL", NULL},
    {"WL", "dram_tWL", NULL},         {"CDLR", "dram_tCDLR", NULL},
    {"WR", "dram_tWR", NULL},         {"nbkgrp", "dram_bank_groups", "1"},
    {"CCDL", "dram_tCCDL", "0"},      {"RTPL", "dram_tRTPL", "0"},
};
#define GS_NDRAM ((int)BASE_ARRAY_LEN(gs_dram))

static int dram_named(const gs_opt *o, char val[][64], base_err *e)
{
    char buf[1024];
    if (strlen(o->value) >= sizeof buf)
        return bad(o, e, "a DRAM timing string shorter than 1024 characters");
    snprintf(buf, sizeof buf, "%s", o->value);
    for (char *p = buf; *p; p++)
        if (*p == ';')
            *p = ':';
    char items[64][64];
    int n = split(buf, ':', items, 64);
    if (n > 64)
        return bad(o, e, "at most 64 key=value fields");
    for (int i = 0; i < GS_NDRAM; i++)
        snprintf(val[i], 64, "%s", gs_dram[i].def ? gs_dram[i].def : "");
    for (int i = 0; i < n; i++) {
        if (!items[i][0])
            continue;
        char *eq = strchr(items[i], '=');
        int k = -1;
        if (eq) {
            *eq = 0;
            char *key = base_trim(items[i]);
            for (int j = 0; j < GS_NDRAM; j++)
                if (!strcmp(key, gs_dram[j].key))
                    k = j;
        }
        if (k < 0)
            return bad(o, e, "key=value fields with keys nbk CCD RRD RCD RAS RP RC CL WL "
                       "CDLR WR nbkgrp CCDL RTPL");
        snprintf(val[k], 64, "%s", base_trim(eq + 1));
    }
    for (int i = 0; i < GS_NDRAM; i++)
        if (!val[i][0]) {
            char exp[64];
            snprintf(exp, sizeof exp, "a value for %s", gs_dram[i].key);
            return bad(o, e, exp);
        }
    return 0;
}

static int h_dram_timing(knob_cfg *c, const gs_row *r, const gs_opt *o, gs_state *st,
                         base_err *e)
{
    (void)r;
    (void)st;
    char val[GS_NDRAM][64];
    if (strchr(o->value, '=')) {
        if (dram_named(o, val, e))
            return -1;
    } else {
        int n = split(o->value, ':', val, GS_NDRAM);
        if (n != 11 && n != GS_NDRAM)
            return bad(o, e, "nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR"
                       "[:nbkgrp:tCCDL:tRTPL] or the key=value form");
        for (int i = n; i < GS_NDRAM; i++)
            strcpy(val[i], gs_dram[i].def);
    }
    for (int i = 0; i < GS_NDRAM; i++)
        if (set1(c, gs_dram[i].knob, val[i], o, e))
            return -1;
    return 0;
}

/* Columns: option, handler, knob(s), detail, fewest values, GPGPU-Sim default. */
static const gs_row gs_map[] = {
    /* GPU organisation, clocks */
    {"-gpgpu_n_clusters", h_set, "n_clusters", NULL, 0, "10"},
    {"-gpgpu_n_cores_per_cluster", h_set, "cores_per_cluster", NULL, 0, "3"},
    {"-gpgpu_compute_capability_major", h_cc, NULL, "major", 0, "7"},
    {"-gpgpu_compute_capability_minor", h_cc, NULL, "minor", 0, "0"},
    {"-gpgpu_clock_domains", h_split, "clock_core_mhz,clock_icnt_mhz,clock_l2_mhz,clock_dram_mhz",
     ":", 4, "500.0:2000.0:2000.0:2000.0"},
    /* per-SM resources */
    {"-gpgpu_shader_core_pipeline", h_split, "max_threads_per_sm,warp_size", ":", 2, "1024:32"},
    {"-gpgpu_shader_cta", h_set, "max_ctas_per_sm", NULL, 0, "32"},
    {"-gpgpu_shader_registers", h_set, "regs_per_sm", NULL, 0, "8192"},
    {"-gpgpu_registers_per_block", h_set, "regs_per_cta", NULL, 0, "8192"},
    {"-gpgpu_shmem_size", h_set, "smem_per_sm", NULL, 0, "16384"},
    {"-gpgpu_shmem_per_block", h_set, "smem_per_cta", NULL, 0, "49152"},
    {"-gpgpu_shmem_option", h_set, "smem_carveouts_kb", NULL, 0, "0"},
    {"-gpgpu_unified_l1d_size", h_set, "l1d_unified_kb", NULL, 0, "0"},
    {"-gpgpu_adaptive_cache_config", h_set, "l1d_adaptive", NULL, 0, "0"},
    {"-gpgpu_ignore_resources_limitation", h_set, "ignore_resource_limits", NULL, 0, "0"},
    /* scheduling and issue */
    {"-gpgpu_num_sched_per_core", h_set, "schedulers_per_sm", NULL, 0, "1"},
    {"-gpgpu_scheduler", h_sched, NULL, NULL, 0, "gto"},
    {"-gpgpu_sub_core_model", h_set, "sub_core_model", NULL, 0, "0"},
    {"-gpgpu_max_insn_issue_per_warp", h_set, "max_issue_per_warp", NULL, 0, "2"},
    {"-gpgpu_dual_issue_diff_exec_units", h_set, "dual_issue_diff_units", NULL, 0, "1"},
    {"-gpgpu_inst_fetch_throughput", h_set, "inst_fetch_throughput", NULL, 0, "1"},
    {"-gpgpu_perfect_inst_const_cache", h_set, "perfect_inst_const_cache", NULL, 0, "0"},
    /* operand collectors and register file */
    {"-gpgpu_num_reg_banks", h_set, "reg_banks", NULL, 0, "8"},
    {"-gpgpu_reg_file_port_throughput", h_set, "reg_port_throughput", NULL, 0, "1"},
    {"-gpgpu_reg_bank_use_warp_id", h_set, "reg_bank_use_warp_id", NULL, 0, "0"},
    {"-gpgpu_enable_specialized_operand_collector", h_set, "oc_specialized", NULL, 0, "1"},
    {"-gpgpu_operand_collector_num_units_gen", h_set, "oc_units", NULL, 0, "0"},
    {"-gpgpu_operand_collector_num_in_ports_gen", h_set, "oc_in_ports", NULL, 0, "0"},
    {"-gpgpu_operand_collector_num_out_ports_gen", h_set, "oc_out_ports", NULL, 0, "0"},
    {"-gpgpu_operand_collector_num_units_sp", h_set, "oc_sp_units", NULL, 0, "4"},
    {"-gpgpu_operand_collector_num_units_dp", h_set, "oc_dp_units", NULL, 0, "0"},
    {"-gpgpu_operand_collector_num_units_sfu", h_set, "oc_sfu_units", NULL, 0, "4"},
    {"-gpgpu_operand_collector_num_units_int", h_set, "oc_int_units", NULL, 0, "0"},
    {"-gpgpu_operand_collector_num_units_tensor_core", h_set, "oc_tensor_units", NULL, 0, "4"},
    {"-gpgpu_operand_collector_num_units_mem", h_set, "oc_mem_units", NULL, 0, "2"},
    {"-gpgpu_operand_collector_num_in_ports_sp", h_set, "oc_sp_in_ports", NULL, 0, "1"},
    {"-gpgpu_operand_collector_num_in_ports_dp", h_set, "oc_dp_in_ports", NULL, 0, "0"},
    {"-gpgpu_operand_collector_num_in_ports_sfu", h_set, "oc_sfu_in_ports", NULL, 0, "1"},
    {"-gpgpu_operand_collector_num_in_ports_int", h_set, "oc_int_in_ports", NULL, 0, "0"},
    {"-gpgpu_operand_collector_num_in_ports_tensor_core", h_set, "oc_tensor_in_ports", NULL, 0, "1"},
    {"-gpgpu_operand_collector_num_in_ports_mem", h_set, "oc_mem_in_ports", NULL, 0, "1"},
    {"-gpgpu_operand_collector_num_out_ports_sp", h_set, "oc_sp_out_ports", NULL, 0, "1"},
    {"-gpgpu_operand_collector_num_out_ports_dp", h_set, "oc_dp_out_ports", NULL, 0, "0"},
    {"-gpgpu_operand_collector_num_out_ports_sfu", h_set, "oc_sfu_out_ports", NULL, 0, "1"},
    {"-gpgpu_operand_collector_num_out_ports_int", h_set, "oc_int_out_ports", NULL, 0, "0"},
    {"-gpgpu_operand_collector_num_out_ports_tensor_core", h_set, "oc_tensor_out_ports", NULL, 0, "1"},
    {"-gpgpu_operand_collector_num_out_ports_mem", h_set, "oc_mem_out_ports", NULL, 0, "1"},
    /* pipeline widths and execution units */
    {"-gpgpu_pipeline_widths", h_split,
     "pipe_id_oc_sp,pipe_id_oc_dp,pipe_id_oc_int,pipe_id_oc_sfu,pipe_id_oc_mem,pipe_oc_ex_sp,"
     "pipe_oc_ex_dp,pipe_oc_ex_int,pipe_oc_ex_sfu,pipe_oc_ex_mem,pipe_ex_wb,pipe_id_oc_tensor,"
     "pipe_oc_ex_tensor", ",", 11, "1,1,1,1,1,1,1,1,1,1,1,1,1"},
    {"-gpgpu_num_sp_units", h_set, "units_sp", NULL, 0, "1"},
    {"-gpgpu_num_dp_units", h_set, "units_dp", NULL, 0, "0"},
    {"-gpgpu_num_int_units", h_set, "units_int", NULL, 0, "0"},
    {"-gpgpu_num_sfu_units", h_set, "units_sfu", NULL, 0, "1"},
    {"-gpgpu_num_mem_units", h_set, "units_mem", NULL, 0, "1"},
    {"-gpgpu_tensor_core_avail", h_tensor, NULL, "avail", 0, "0"},
    {"-gpgpu_num_tensor_core_units", h_tensor, NULL, "units", 0, "0"},
    /* trace-mode latencies and specialized units (trace.config, FORMATS.md B.9) */
    {"-trace_opcode_latency_initiation_int", h_split, "lat_int,init_int", ",", 2, "4,1"},
    {"-trace_opcode_latency_initiation_sp", h_split, "lat_sp,init_sp", ",", 2, "4,1"},
    {"-trace_opcode_latency_initiation_dp", h_split, "lat_dp,init_dp", ",", 2, "4,1"},
    {"-trace_opcode_latency_initiation_sfu", h_split, "lat_sfu,init_sfu", ",", 2, "4,1"},
    {"-trace_opcode_latency_initiation_tensor", h_split, "lat_tensor,init_tensor", ",", 2, "4,1"},
#define GS_SPEC(n)                                                                            \
    {"-specialized_unit_" #n, h_split,                                                        \
     "spec" #n "_enabled,spec" #n "_units,spec" #n "_max_latency,spec" #n "_id_oc,spec" #n     \
     "_oc_ex,spec" #n "_name", ",", 6, "0,4,4,4,4,BRA"},                                      \
    {"-trace_opcode_latency_initiation_spec_op_" #n, h_split, "lat_spec" #n ",init_spec" #n,   \
     ",", 2, "4,4"}
    GS_SPEC(1), GS_SPEC(2), GS_SPEC(3), GS_SPEC(4),
    GS_SPEC(5), GS_SPEC(6), GS_SPEC(7), GS_SPEC(8),
#undef GS_SPEC
    /* L1 caches, shared memory */
    {"-gpgpu_cache:dl1", h_cache, "l1d", NULL, 0, "none"},
    {"-gpgpu_cache:il1", h_cache, "l1i", NULL, 0, "N:64:128:16,L:R:f:N:L,S:2:48,4"},
    {"-gpgpu_const_cache:l1", h_cache, "l1c", NULL, 0, NULL},
    {"-gpgpu_tex_cache:l1", h_cache, "l1t", NULL, 0, NULL},
    {"-gpgpu_l1_latency", h_set, "l1d_latency", NULL, 0, "1"},
    {"-gpgpu_l1_banks", h_set, "l1d_banks", NULL, 0, "1"},
    {"-gpgpu_l1_banks_byte_interleaving", h_set, "l1d_bank_interleave", NULL, 0, "32"},
    {"-gpgpu_l1_cache_write_ratio", h_set, "l1d_write_ratio", NULL, 0, "0"},
    {"-gpgpu_gmem_skip_L1D", h_set, "gmem_skip_l1d", NULL, 0, "0"},
    {"-gpgpu_flush_l1_cache", h_set, "flush_l1d_per_kernel", NULL, 0, "0"},
    {"-gpgpu_smem_latency", h_set, "smem_latency", NULL, 0, "3"},
    {"-gpgpu_shmem_num_banks", h_set, "smem_banks", NULL, 0, "16"},
    {"-gpgpu_shmem_limited_broadcast", h_set, "smem_limited_broadcast", NULL, 0, "1"},
    {"-gpgpu_shmem_warp_parts", h_set, "smem_warp_parts", NULL, 0, "2"},
    {"-gpgpu_coalesce_arch", h_set, "coalesce_arch", NULL, 0, "13"},
    {"-gpgpu_n_cluster_ejection_buffer_size", h_set, "cluster_ejection_buffer", NULL, 0, "8"},
    {"-gpgpu_n_ldst_response_buffer_size", h_set, "ldst_response_buffer", NULL, 0, "2"},
    /* memory partitions, L2 */
    {"-gpgpu_n_mem", h_set, "n_mem", NULL, 0, "8"},
    {"-gpgpu_n_sub_partition_per_mchannel", h_set, "n_sub_partitions", NULL, 0, "1"},
    {"-gpgpu_cache:dl2", h_cache, "l2", NULL, 0, "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32"},
    {"-gpgpu_l2_rop_latency", h_set, "l2_rop_latency", NULL, 0, "85"},
    {"-dram_latency", h_set, "dram_latency", NULL, 0, "30"},
    {"-gpgpu_dram_partition_queues", h_split, "q_icnt_to_l2,q_l2_to_dram,q_dram_to_l2,q_l2_to_icnt",
     ":", 4, "8:8:8:8"},
    {"-gpgpu_memory_partition_indexing", h_index, "partition_indexing", NULL, 0, "0"},
    {"-gpgpu_perf_sim_memcpy", h_set, "memcpy_l2_prefill", NULL, 0, "1"},
    {"-gpgpu_flush_l2_cache", h_set, "flush_l2_per_kernel", NULL, 0, "0"},
    /* DRAM */
    {"-gpgpu_dram_scheduler", h_index, "dram_scheduler", NULL, 0, "1"},
    {"-gpgpu_frfcfs_dram_sched_queue_size", h_set, "dram_sched_queue", NULL, 0, "0"},
    {"-gpgpu_dram_return_queue_size", h_set, "dram_return_queue", NULL, 0, "0"},
    {"-gpgpu_n_mem_per_ctrlr", h_set, "dram_chips_per_channel", NULL, 0, "1"},
    {"-gpgpu_dram_buswidth", h_set, "dram_bus_width", NULL, 0, "4"},
    {"-gpgpu_dram_burst_length", h_set, "dram_burst_length", NULL, 0, "4"},
    {"-dram_data_command_freq_ratio", h_set, "dram_data_cmd_ratio", NULL, 0, "2"},
    {"-gpgpu_dram_timing_opt", h_dram_timing, NULL, NULL, 0, "4:2:8:12:21:13:34:9:4:5:13:1:0:0"},
    {"-gpgpu_mem_addr_mapping", h_set, "dram_addr_map", NULL, 0, NULL},
    {"-dram_dual_bus_interface", h_set, "dram_dual_bus", NULL, 0, "0"},
    {"-dram_bnk_indexing_policy", h_index, "dram_bank_indexing", NULL, 0, "0"},
    {"-dram_bnkgrp_indexing_policy", h_index, "dram_bankgroup_indexing", NULL, 0, "0"},
    {"-dram_elimnate_rw_turnaround", h_set, "dram_no_rw_turnaround", NULL, 0, "0"},
    {"-dram_seperate_write_queue_enable", h_set, "dram_separate_write_queue", NULL, 0, "0"},
    {"-dram_write_queue_size", h_split, "dram_write_queue,dram_write_high,dram_write_low", ":", 3,
     "32:28:16"},
    /* interconnect */
    {"-network_mode", h_index, "icnt_model", "|booksim|xbar", 0, "1"},
    {"-inter_config_file", h_icnt_file, "icnt_config_file", NULL, 0, "mesh"},
    {"-icnt_in_buffer_limit", h_set, "icnt_in_buffer", NULL, 0, "64"},
    {"-icnt_out_buffer_limit", h_set, "icnt_out_buffer", NULL, 0, "64"},
    {"-icnt_subnets", h_set, "icnt_subnets", NULL, 0, "2"},
    {"-icnt_flit_size", h_set, "icnt_flit_size", NULL, 0, "32"},
    {"-icnt_arbiter_algo", h_index, "icnt_arbiter", NULL, 0, "1"},
    {"-icnt_grant_cycles", h_set, "icnt_grant_cycles", NULL, 0, "1"},
    /* kernels */
    {"-gpgpu_kernel_launch_latency", h_set, "kernel_launch_latency", NULL, 0, "0"},
    {"-gpgpu_TB_launch_latency", h_set, "cta_launch_latency", NULL, 0, "0"},
    {"-gpgpu_max_concurrent_kernel", h_set, "max_concurrent_kernels", NULL, 0, "32"},
    {"-gpgpu_concurrent_kernel_sm", h_set, "concurrent_kernels", NULL, 0, "0"},
    {"-gpgpu_clock_gated_lanes", h_set, "clock_gated_lanes", NULL, 0, "0"},
    {"-gpgpu_max_cycle", h_set, "max_cycles", NULL, 0, "0"},
    /* timing options lockstep implements at one value only */
    {"-gpgpu_simd_model", h_fixed, NULL, "1", 0, NULL},
    {"-gpgpu_perfect_mem", h_fixed, NULL, "0", 0, NULL},
    {"-l2_ideal", h_fixed, NULL, "0", 0, NULL},
    {"-gpgpu_simple_dram_model", h_fixed, NULL, "0", 0, NULL},
    {"-gpgpu_cache:dl2_texture_only", h_fixed, NULL, "0", 0, NULL},
};

/* ---- unmodelled and unknown options ------------------------------------------------------ */

/* Whether the first `upto` bytes of the list name `name`. */
static int has_entry(const base_buf *b, size_t upto, const char *name)
{
    size_t n = strlen(name);
    const char *end_all = b->s ? b->s + upto : NULL;
    for (const char *p = b->s; p && p < end_all && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p = end ? end + 1 : p + len;
        while (*p == ' ')
            p++;
    }
    return 0;
}

/* An option GPGPU-Sim knows but lockstep does not model (gs_known[k]): named once in
 * knob_cfg.unmodelled. Earlier imports' names are searched as text, this import's through
 * its flags, so a config with a hundred such options stays linear. */
static void unmodelled(knob_cfg *c, const gs_opt *o, gs_state *st, size_t k)
{
    if (st->unmodelled_seen[k] || has_entry(&c->unmodelled, st->unmodelled_before, o->name))
        return;
    st->unmodelled_seen[k] = 1;
    if (c->unmodelled.len)
        base_buf_puts(&c->unmodelled, ", ");
    base_buf_puts(&c->unmodelled, o->name);
    c->nunmodelled++;
}

static uint32_t gs_slot(const char *name) { return base_str_hash(name) & (GS_SLOTS - 1); }

static const char *name_of(int16_t v) { return v > 0 ? gs_map[v - 1].opt : gs_known[-v - 1]; }

/* The option's by_name code: gs_map row + 1, -(gs_known index + 1), or 0 when unknown. */
static int16_t find_option(const gs_state *st, const char *name)
{
    for (uint32_t i = gs_slot(name); st->by_name[i]; i = (i + 1) & (GS_SLOTS - 1))
        if (strcmp(name_of(st->by_name[i]), name) == 0)
            return st->by_name[i];
    return 0;
}

static void index_add(gs_state *st, const char *name, int16_t v)
{
    uint32_t i = gs_slot(name);
    for (; st->by_name[i]; i = (i + 1) & (GS_SLOTS - 1))
        if (strcmp(name_of(st->by_name[i]), name) == 0)
            return; /* a mapped option is also known: the mapping wins */
    st->by_name[i] = v;
}

/* Hashes every option name once per import: a config names hundreds of options, and a scan
 * of the two tables would cost over 400 strcmp each. */
static void index_options(gs_state *st)
{
    _Static_assert(GS_SLOTS >= 2 * (BASE_ARRAY_LEN(gs_map) + BASE_ARRAY_LEN(gs_known)),
                   "GS_SLOTS too small");
    for (size_t i = 0; i < BASE_ARRAY_LEN(gs_map); i++)
        index_add(st, gs_map[i].opt, (int16_t)(i + 1));
    for (size_t i = 0; i < BASE_ARRAY_LEN(gs_known); i++)
        index_add(st, gs_known[i], (int16_t)(-(int)i - 1));
}

static int unknown_option(const gs_opt *o, base_err *e)
{
    char near[256];
    base_nearest n;
    base_nearest_init(&n, o->name);
    for (size_t i = 0; i < BASE_ARRAY_LEN(gs_known); i++)
        base_nearest_add(&n, gs_known[i]);
    base_nearest_format(&n, near, sizeof near);
    return base_fail(e, BASE_EXIT_INPUT, "%.600s: unknown GPGPU-Sim option '%.100s' (closest: %s)",
                     o->where, o->name, near);
}

/* ---- applying ------------------------------------------------------------------------------ */


static int apply_defaults(knob_cfg *c, const char *top, gs_state *st, base_err *e)
{
    for (size_t i = 0; i < BASE_ARRAY_LEN(gs_map); i++) {
        const gs_row *r = &gs_map[i];
        if (!r->gdef)
            continue;
        char where[128];
        join3(where, sizeof where, "GPGPU-Sim default (", r->opt, ")");
        gs_opt o = {(char *)r->opt, (char *)r->gdef, NULL, where};
        if (r->fn(c, r, &o, st, e))
            return -1;
    }
    /* the tested-cfg directory names the GPU (SM86_RTX3070/gpgpusim.config) */
    char *dir = dir_of(top);
    size_t n = strlen(dir);
    if (n > 1) {
        dir[n - 1] = 0;
        const char *base = strrchr(dir, '/');
        base = base ? base + 1 : dir;
        char name[KNOB_STR_MAX], where[700];
        snprintf(name, sizeof name, "%s", base);
        snprintf(where, sizeof where, "%.600s (directory name)", top);
        if (name[0] && gs_set(c, "gpu_name", name, where, e)) {
            free(dir);
            return -1;
        }
    }
    free(dir);
    return 0;
}

static int describes_whole_gpu(const gs_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, "-gpgpu_n_clusters") == 0)
            return 1;
    return 0;
}

static int apply_all(knob_cfg *c, const char *top, const gs_list *l, base_err *e)
{
    gs_state st;
    memset(&st, 0, sizeof st);
    st.tensor_avail = -1;
    st.unmodelled_before = c->unmodelled.len;
    index_options(&st);
    if (describes_whole_gpu(l) && !c->gpgpusim_set && apply_defaults(c, top, &st, e))
        return -1;
    for (size_t i = 0; i < l->n; i++) {
        const gs_opt *o = &l->v[i];
        int16_t v = find_option(&st, o->name);
        if (v == 0)
            return unknown_option(o, e);
        if (v < 0)
            unmodelled(c, o, &st, (size_t)(-v - 1));
        else if (gs_map[v - 1].fn(c, &gs_map[v - 1], o, &st, e))
            return -1;
    }
    return tensor_resolve(c, &st, e);
}

int knob_import_gpgpusim_text(knob_cfg *c, const char *name, const char *text, base_err *e)
{
    gs_list l = {0};
    int rc = collect_text(c, name, text, &l, e);
    if (rc == 0)
        rc = apply_all(c, name, &l, e);
    list_free(&l);
    return rc;
}

int knob_import_gpgpusim(knob_cfg *c, const char *path, base_err *e)
{
    char *text = base_read_text(path, e);
    if (!text)
        return -1;
    int rc = knob_import_gpgpusim_text(c, path, text, e);
    free(text);
    return rc;
}

int knob_gpgpusim_selfcheck(base_err *e)
{
    int bad_rows = 0;
    for (size_t i = 0; i < BASE_ARRAY_LEN(gs_map); i++) {
        const gs_row *r = &gs_map[i];
        int known = 0;
        for (size_t k = 0; k < BASE_ARRAY_LEN(gs_known); k++)
            known |= strcmp(gs_known[k], r->opt) == 0;
        if (!known) {
            bad_rows++;
            base_fail(e, BASE_EXIT_INTERNAL, "%s is mapped but not a known option", r->opt);
        }
        if (r->fn == h_cache || !r->knobs)
            continue;
        char kn[16][64];
        int n = split(r->knobs, ',', kn, 16);
        for (int k = 0; k < n; k++)
            if (knob_find(kn[k]) < 0) {
                bad_rows++;
                base_fail(e, BASE_EXIT_INTERNAL, "%s maps to unknown knob %s", r->opt,
                          kn[k]);
            }
    }
    return bad_rows;
}
