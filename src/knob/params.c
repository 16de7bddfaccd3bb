/* Loading knobs from lockstep params files and built-in presets; cross-knob validation. */
#include "knob.h"
#include "preset.h"

#include "../base/rd.h"

#include <stdlib.h>
#include <string.h>

#define MAX_INCLUDE_DEPTH 8

/* Cuts a '#' comment that is outside double quotes, then removes the quotes of a value
 * written as "...". Returns -1 on an unterminated quote. */
static int strip_comment_and_quotes(char **value)
{
    char *v = *value;
    int inq = 0;
    for (char *p = v; *p; p++) {
        if (*p == '"')
            inq = !inq;
        else if (*p == '#' && !inq) {
            *p = 0;
            break;
        }
    }
    if (inq)
        return -1;
    v = base_trim(v);
    size_t n = strlen(v);
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        v[n - 1] = 0;
        v++;
    }
    *value = v;
    return 0;
}

void knob_note_run_trace(knob_cfg *c, const char *file, const char *path, size_t n)
{
    if (c->run_trace.len || !n)
        return;
    base_buf_put(&c->run_trace, path, n);
    base_buf_puts(&c->run_file, file);
}

/* The rest of a "# trace PATH: N kernels, ..." line (the counts hold no ": ") */
static void note_trace_line(knob_cfg *c, const char *file, const char *rest)
{
    const char *end = NULL;
    for (const char *p = strstr(rest, ": "); p; p = strstr(p + 1, ": "))
        end = p;
    if (end)
        knob_note_run_trace(c, file, rest, (size_t)(end - rest));
}

/* Whether text is a run's output: the echo's header comes before its first line. */
static int is_run_output(const char *text)
{
    for (const char *p = text; p; p = strchr(p, '\n')) {
        p += *p == '\n';
        if (strncmp(p, KNOB_ECHO_HEADER, sizeof KNOB_ECHO_HEADER - 1) == 0)
            return 1;
        if (strncmp(p, KNOB_ECHO_PREFIX, sizeof KNOB_ECHO_PREFIX - 1) == 0)
            return 0;
    }
    return 0;
}

/* One "name = value" line. */
static int params_line(knob_cfg *c, const char *file, uint64_t lineno, char *line, base_err *e)
{
    char where[600], num[BASE_I64_CHARS];
    /* not snprintf: a preset's every line names its place (a tenth of a short run's start) */
    size_t nl = base_fmt_i64(num, (int64_t)lineno), fl = strlen(file);
    if (fl > sizeof where - nl - 2)
        fl = sizeof where - nl - 2;
    memcpy(where, file, fl);
    where[fl] = ':';
    memcpy(where + fl + 1, num, nl + 1);
    char *s = base_trim(line);
    if (!*s || *s == '#')
        return 0;
    if (strncmp(s, KNOB_ECHO_PREFIX, sizeof KNOB_ECHO_PREFIX - 1) == 0)
        s += sizeof KNOB_ECHO_PREFIX - 1; /* a line of a run's knob echo */
    char *eq = strchr(s, '=');
    if (!eq)
        return base_fail(e, BASE_EXIT_INPUT, "%s: expected 'name = value', found '%.80s'",
                         where, s);
    *eq = 0;
    char *name = base_trim(s), *value = eq + 1;
    if (strip_comment_and_quotes(&value))
        return base_fail(e, BASE_EXIT_INPUT, "%s: unterminated quote in the value of %s", where,
                         name);
    if (!*name)
        return base_fail(e, BASE_EXIT_INPUT, "%s: missing knob name before '='", where);
    if (strcmp(name, "preset") == 0)
        return knob_load_preset(c, value, e) ? base_fail(e, BASE_EXIT_INPUT, "%s", where) : 0;
    return knob_set(c, name, value, where, e);
}

int knob_load_params_text(knob_cfg *c, const char *name, const char *text, base_err *e)
{
    base_rd *r = base_rd_open_mem(name, text, strlen(text), e);
    if (!r)
        return -1;
    char *line;
    size_t len;
    int rc, run_output = is_run_output(text);
    while ((rc = base_rd_line(r, &line, &len, e)) == 1) {
        if (run_output && strncmp(line, KNOB_RUN_TRACE, sizeof KNOB_RUN_TRACE - 1) == 0) {
            note_trace_line(c, name, line + sizeof KNOB_RUN_TRACE - 1);
            continue;
        }
        if (run_output && strncmp(line, KNOB_ECHO_PREFIX, sizeof KNOB_ECHO_PREFIX - 1) != 0)
            continue;
        if (params_line(c, name, base_rd_lineno(r), line, e))
            break;
    }
    base_rd_close(r);
    return rc == 0 ? 0 : -1;
}

/* GPGPU-Sim configs are "-option value" pairs: the first real token starts with '-'. */
static int looks_like_gpgpusim(const char *text)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p == '#') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        return *p == '-';
    }
    return 0;
}

int knob_load_file(knob_cfg *c, const char *path, base_err *e)
{
    if (c->depth >= MAX_INCLUDE_DEPTH)
        return base_fail(e, BASE_EXIT_INPUT, "%s: configs nested more than %d deep", path,
                         MAX_INCLUDE_DEPTH);
    char *text = base_read_text(path, e);
    if (!text)
        return -1;
    c->depth++;
    const char *first = text + strspn(text, " \t\r\n");
    int rc = *first == '{'                ? knob_load_json_text(c, path, text, e)
             : looks_like_gpgpusim(text) ? knob_import_gpgpusim_text(c, path, text, e)
                                         : knob_load_params_text(c, path, text, e);
    c->depth--;
    free(text);
    return rc;
}

int knob_load_preset(knob_cfg *c, const char *name, base_err *e)
{
    for (int i = 0; i < knob_npresets; i++) {
        if (strcmp(knob_presets[i].name, name) != 0)
            continue;
        if (c->depth >= MAX_INCLUDE_DEPTH)
            return base_fail(e, BASE_EXIT_INPUT, "preset %s: presets nested more than %d deep",
                             name, MAX_INCLUDE_DEPTH);
        c->depth++;
        int rc = knob_load_params_text(c, knob_presets[i].path, knob_presets[i].text, e);
        c->depth--;
        return rc;
    }
    base_buf names = {0};
    for (int i = 0; i < knob_npresets; i++)
        base_buf_printf(&names, "%s%s", i ? ", " : "", knob_presets[i].name);
    base_fail(e, BASE_EXIT_INPUT, "unknown preset '%s' (presets: %s)", name,
              names.s ? names.s : "none");
    base_buf_free(&names);
    return -1;
}

/* ---- cross-knob rules ------------------------------------------------------------------ */

/* A broken rule names the knob it is about, where that was set, and, for a rule between two
 * knobs, the other one and where it was set: a preset's line alone does not tell a user that
 * their --knob on the command line is what conflicts with it. `with` is -1 for none. */
static int rule_with(const knob_cfg *c, int ok, int id, int with, base_err *e, const char *what)
{
    if (ok)
        return 0;
    char v[256], w[256] = "";
    knob_format(c, id, v, sizeof v);
    if (with >= 0) {
        char wv[200];
        knob_format(c, with, wv, sizeof wv);
        int by_default = strcmp(c->origin[with], "default") == 0;
        snprintf(w, sizeof w, " (with %s = %s, %s%s)", knob_defs[with].name, wv,
                 by_default ? "the default" : "from ", by_default ? "" : c->origin[with]);
    }
    return base_fail(e, BASE_EXIT_INPUT, "%s: knob %s = %s: %s%s", c->origin[id],
                     knob_defs[id].name, v, what, w);
}

static int rule(const knob_cfg *c, int ok, int id, base_err *e, const char *what)
{
    return rule_with(c, ok, id, -1, e, what);
}

static int pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

#define CACHE_RULES(p)                                                                        \
    (!k->p##_enabled ? 0                                                                      \
     : rule_with(c, k->p##_type == 0 || k->p##_line == 128, KNOB_ID_##p##_line,              \
                 KNOB_ID_##p##_type, e,                                                       \
                 "a sectored cache needs 128-byte lines (4 sectors of 32 bytes)") ||          \
           rule(c, pow2(k->p##_line), KNOB_ID_##p##_line, e, "must be a power of two") ||    \
           rule_with(c, k->p##_set_index != 2 || k->p##_sets == 16 || k->p##_sets == 32 ||    \
                            k->p##_sets == 64,                                                \
                     KNOB_ID_##p##_sets, KNOB_ID_##p##_set_index, e,                          \
                     "the ipoly set index needs 16, 32 or 64 sets") ||                        \
           rule_with(c, k->p##_set_index != 1 || k->p##_sets == 32 || k->p##_sets == 64,      \
                     KNOB_ID_##p##_sets, KNOB_ID_##p##_set_index, e,                          \
                     "the fermi set index needs 32 or 64 sets") ||                            \
           rule_with(c, !(k->p##_write == 1 && k->p##_alloc != 0), KNOB_ID_##p##_alloc,       \
                     KNOB_ID_##p##_write, e, "a write-back cache must allocate on miss") ||   \
           rule_with(c, !((k->p##_write_alloc == 2 || k->p##_write_alloc == 3) &&             \
                          k->p##_alloc != 0),                                                 \
                     KNOB_ID_##p##_alloc, KNOB_ID_##p##_write_alloc, e,                       \
                     "fetch-on-write and lazy fetch-on-read need allocate-on-miss"))

int knob_validate(const knob_cfg *c, base_err *e)
{
    const knobs *k = &c->v;
    if (CACHE_RULES(l1d) || CACHE_RULES(l1i) || CACHE_RULES(l1c) || CACHE_RULES(l1t) ||
        CACHE_RULES(l2))
        return -1;
    /* The L1D, the L2 and the traffic between them move 32-byte sectors, four to a line (the
     * fetch and fill masks are 4 bits): another line size never fills its misses, and every
     * run with one stopped at the watchdog. Every shipped and Accel-Sim config uses 128. */
    static const char *const line128 =
        "the L1D and L2 model 128-byte lines of four 32-byte sectors (every Accel-Sim config "
        "uses 128)";
    if (rule(c, !k->l1d_enabled || k->l1d_line == 128, KNOB_ID_l1d_line, e, line128) ||
        rule(c, !k->l2_enabled || k->l2_line == 128, KNOB_ID_l2_line, e, line128))
        return -1;
    /* The L2 takes a miss only with room in its miss queue for all the miss may send
     * (GPGPU-Sim's miss_queue_full): a smaller queue never takes one, and the run would stop
     * at the watchdog. (The L1D's miss queue is the SM's outbound queue, which always can.) */
    int64_t l2_need = k->l2_write == 0 ? 1 : k->l2_write_alloc == 1 ? 3 : 2;
    if (rule_with(c, !k->l2_enabled || k->l2_miss_queue >= l2_need, KNOB_ID_l2_miss_queue,
                  l2_need == 3 ? KNOB_ID_l2_write_alloc : KNOB_ID_l2_write, e,
                  l2_need == 3 ? "too small to take a miss: a write miss keeps room for the "
                                 "write, its fetch and a writeback (3 entries)"
                               : "too small to take a miss: a read miss keeps room for its "
                                 "fetch and a writeback (2 entries)"))
        return -1;
    if (rule_with(c, k->dram_banks % k->n_sub_partitions == 0, KNOB_ID_dram_banks,
                  KNOB_ID_n_sub_partitions, e, "banks must be a multiple of n_sub_partitions") ||
        rule_with(c, k->dram_banks % k->dram_bank_groups == 0, KNOB_ID_dram_bank_groups,
                  KNOB_ID_dram_banks, e, "must divide dram_banks") ||
        rule(c, k->warp_size == 32, KNOB_ID_warp_size, e,
             "the model runs 32-thread warps, as every trace it reads records them (Accel-Sim, "
             "MacSim and native traces alike; their active masks are 32 bits)") ||
        rule_with(c, k->max_threads_per_sm % k->warp_size == 0, KNOB_ID_max_threads_per_sm,
                  KNOB_ID_warp_size, e, "must be a multiple of warp_size") ||
        rule_with(c, k->smem_per_cta <= k->smem_per_sm || k->smem_per_sm == 0,
                  KNOB_ID_smem_per_cta, KNOB_ID_smem_per_sm, e, "exceeds smem_per_sm") ||
        rule(c, k->two_level_active > 0, KNOB_ID_two_level_active, e, "must be positive") ||
        rule_with(c, k->oc_specialized ||
                         (k->oc_units > 0 && k->oc_in_ports > 0 && k->oc_out_ports > 0),
                  KNOB_ID_oc_units, KNOB_ID_oc_specialized, e,
                  "generic operand collectors need units and ports"))
        return -1;
    if (k->partition_indexing == 3)
        return rule(c, 0, KNOB_ID_partition_indexing, e,
                    "pae hashing is not supported (GPGPU-Sim has no decoder for it either)");
    return 0;
}
