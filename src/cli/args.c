/* Option parsing shared by every subcommand. */
#include "cli.h"

#include "knob/preset.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int cli_error(const base_err *e)
{
    fprintf(stderr, "lockstep: error: %s\n", e->msg);
    return e->code ? e->code : BASE_EXIT_INTERNAL;
}

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    fputs("lockstep: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'lockstep %s --help')\n", cmd ? cmd->name : "");
    return BASE_EXIT_USAGE;
}

static int find_opt(const cli_cmd *cmd, const char *name)
{
    for (int i = 0; cmd->opts && cmd->opts[i].name; i++)
        if (strcmp(cmd->opts[i].name, name) == 0)
            return i;
    return -1;
}

/* Closest command options and knobs, for "did you mean". */
static const char *suggest(const cli_cmd *cmd, const char *name, char *buf, size_t n)
{
    base_nearest near;
    base_nearest_init(&near, name);
    for (int i = 0; cmd->opts && cmd->opts[i].name; i++)
        base_nearest_add(&near, cmd->opts[i].name);
    if (cmd->knobs) {
        base_nearest_add(&near, "preset");
        base_nearest_add(&near, "config");
        for (int i = 0; i < KNOB_COUNT; i++)
            base_nearest_add(&near, knob_defs[i].name);
    }
    base_nearest_format(&near, buf, n);
    return buf;
}

typedef struct pending {
    const char *name, *value;
} pending;

static int is_bool_text(const char *v)
{
    return v && (!strcmp(v, "0") || !strcmp(v, "1") || !strcmp(v, "true") ||
                 !strcmp(v, "false") || !strcmp(v, "yes") || !strcmp(v, "no") ||
                 !strcmp(v, "on") || !strcmp(v, "off"));
}

/* threads = 0 becomes the number of cores this process may run on, so that the echo (and a
 * rerun from the output) names the count the run used; its source keeps where the 0 came
 * from. */
static int threads_from_cores(knob_cfg *c, base_err *e)
{
    int id = knob_cfg_find(c, "threads");
    if (id < 0 || c->v.threads != 0)
        return 0;
#ifdef _OPENMP
    long n = omp_get_num_procs(); /* libgomp: the affinity mask's count */
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    n = n < 1 ? 1 : n > 1024 ? 1024 : n;
    char value[16], where[400];
    snprintf(value, sizeof value, "%ld", n);
    snprintf(where, sizeof where, "%s: 0, the %ld core%s this process may run on", c->origin[id],
             n, n == 1 ? "" : "s");
    return knob_set(c, "threads", value, where, e);
}

/* Applies presets/configs in order, then --knob=value in order, then cross-knob rules. */
static int resolve_knobs(cli_args *a, pending *files, int nfiles, pending *sets, int nsets)
{
    base_err e = {0};
    knob_init(&a->knobs);
    if (nfiles == 0 && knob_load_preset(&a->knobs, KNOB_DEFAULT_PRESET, &e))
        return cli_error(&e);
    for (int i = 0; i < nfiles; i++) {
        int rc = strcmp(files[i].name, "preset") == 0
                     ? knob_load_preset(&a->knobs, files[i].value, &e)
                     : knob_load_file(&a->knobs, files[i].value, &e);
        if (rc)
            return cli_error(&e);
    }
    for (int i = 0; i < nsets; i++) {
        char where[300];
        snprintf(where, sizeof where, "--%s", sets[i].name);
        if (knob_set(&a->knobs, sets[i].name, sets[i].value, where, &e))
            return cli_error(&e);
    }
    if (threads_from_cores(&a->knobs, &e) || knob_validate(&a->knobs, &e))
        return cli_error(&e);
    return 0;
}

/* Splits "--name=value" / "--name value"; returns the number of argv entries consumed. */
static int take_option(char **argv, int i, int argc, int needs_value, int is_bool,
                       char *name, size_t nsize, const char **value)
{
    const char *s = argv[i] + 2;
    const char *eq = strchr(s, '=');
    if (eq) {
        snprintf(name, nsize, "%.*s", (int)(eq - s), s);
        *value = eq + 1;
        return 1;
    }
    snprintf(name, nsize, "%s", s);
    *value = NULL;
    if (!needs_value)
        return 1;
    if (is_bool && (i + 1 >= argc || !is_bool_text(argv[i + 1]))) {
        *value = "1";
        return 1;
    }
    if (i + 1 < argc) {
        *value = argv[i + 1];
        return 2;
    }
    return 1;
}

typedef struct parse_state {
    pending *files, *sets;
    int nfiles, nsets;
} parse_state;

/* One "--name[=value]" at argv[*i]; advances *i. Returns 0, -1 after --help, or an exit code. */
static int parse_option(const cli_cmd *cmd, int argc, char **argv, int *i, cli_args *a,
                        parse_state *ps)
{
    char name[256], near[300];
    const char *value, *arg = argv[*i];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
    if (strcmp(name, "help") == 0) {
        if (!cmd->help_word || a->npos == 0 || cmd->help_word(stdout, a->pos[0]) != 0)
            cli_print_help(stdout, cmd);
        return -1;
    }
    int oi = find_opt(cmd, name);
    int kid = cmd->knobs ? knob_find(name) : -1;
    int is_file = cmd->knobs && (!strcmp(name, "preset") || !strcmp(name, "config"));
    int needs = oi >= 0 ? cmd->opts[oi].takes_value : (is_file || kid >= 0);
    int isb = oi < 0 && kid >= 0 && knob_defs[kid].type == KNOB_T_BOOL;
    int extra = oi < 0 && !is_file && kid < 0 && cmd->extra_opts;
    *i += take_option(argv, *i, argc, needs || extra, isb, name, sizeof name, &value);
    if (extra) {
        if (!value)
            return cli_usage_error(cmd, "option --%s needs a value", name);
        a->extra[a->nextra++] = (cli_extra){base_strdup(name), value};
        return 0;
    }
    if (oi < 0 && !is_file && kid < 0)
        return cli_usage_error(cmd, "unknown option --%s (closest: %s)", name,
                               suggest(cmd, name, near, sizeof near));
    if (needs && !value)
        return cli_usage_error(cmd, "option --%s needs a value", name);
    if (!needs && value && oi >= 0)
        return cli_usage_error(cmd, "option --%s takes no value", name);
    if (oi >= 0)
        a->value[oi] = value ? value : "1";
    else if (is_file)
        ps->files[ps->nfiles++] = (pending){name[0] == 'p' ? "preset" : "config", value};
    else
        ps->sets[ps->nsets++] = (pending){knob_defs[kid].name, value};
    return 0;
}

/* A positional argument, "--" or a single-dash word at argv[*i]. */
static int parse_word(const cli_cmd *cmd, char **argv, int *i, int *only_pos, cli_args *a)
{
    char *arg = argv[(*i)++];
    if (!*only_pos && strcmp(arg, "--") == 0) {
        *only_pos = 1;
        return 0;
    }
    if (!*only_pos && arg[0] == '-' && arg[1]) {
        if (strcmp(arg, "-h") == 0) {
            cli_print_help(stdout, cmd);
            return -1;
        }
        return cli_usage_error(cmd, "unknown option '%s' (options start with --)", arg);
    }
    a->pos[a->npos++] = arg;
    return 0;
}

int cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->argc = argc;
    a->argv = argv;
    a->pos = base_calloc((size_t)argc + 1, sizeof *a->pos);
    a->extra = base_calloc((size_t)argc + 1, sizeof *a->extra);
    parse_state ps = {base_calloc((size_t)argc + 1, sizeof(pending)),
                      base_calloc((size_t)argc + 1, sizeof(pending)), 0, 0};
    int rc = 0, only_pos = 0;
    for (int i = 0; i < argc && rc == 0;) {
        const char *arg = argv[i];
        if (!only_pos && arg[0] == '-' && arg[1] == '-' && arg[2])
            rc = parse_option(cmd, argc, argv, &i, a, &ps);
        else
            rc = parse_word(cmd, argv, &i, &only_pos, a);
    }
    if (rc == 0 && (a->npos < cmd->min_pos || a->npos > cmd->max_pos))
        rc = cli_usage_error(cmd, "'lockstep %s' takes %s%d argument%s, got %d", cmd->name,
                             cmd->min_pos == cmd->max_pos ? "" : "at most ", cmd->max_pos,
                             cmd->max_pos == 1 ? "" : "s", a->npos);
    if (rc == 0 && cmd->knobs)
        rc = resolve_knobs(a, ps.files, ps.nfiles, ps.sets, ps.nsets);
    free(ps.files);
    free(ps.sets);
    return rc;
}

void cli_args_free(cli_args *a)
{
    if (a->cmd && a->cmd->knobs && a->knobs.origin[0])
        knob_free(&a->knobs);
    for (int i = 0; i < a->nextra; i++)
        free((char *)a->extra[i].name);
    free(a->extra);
    free(a->pos);
}

const char *cli_get(const cli_args *a, const char *name)
{
    int i = find_opt(a->cmd, name);
    if (i < 0)
        base_panic("command %s has no option --%s", a->cmd->name, name);
    return a->value[i];
}

int cli_flag(const cli_args *a, const char *name) { return cli_get(a, name) != NULL; }

int cli_get_i64(const cli_args *a, const char *name, int64_t def, int64_t *out)
{
    const char *v = cli_get(a, name);
    if (!v) {
        *out = def;
        return 0;
    }
    if (base_parse_i64(v, strlen(v), 0, out)) {
        cli_usage_error(a->cmd, "--%s: expected an integer, found '%s'", name, v);
        return -1;
    }
    return 0;
}

void cli_print_help(FILE *f, const cli_cmd *cmd)
{
    fprintf(f, "usage: %s\n\n%s\n", cmd->usage, cmd->summary);
    if (cmd->details)
        fprintf(f, "\n%s\n", cmd->details);
    fprintf(f, "\noptions:\n");
    for (int i = 0; cmd->opts && cmd->opts[i].name; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", cmd->opts[i].name,
                 cmd->opts[i].takes_value ? "=" : "",
                 cmd->opts[i].takes_value ? cmd->opts[i].arg : "");
        fprintf(f, "  %-24s %s\n", left, cmd->opts[i].help);
    }
    fprintf(f, "  %-24s %s\n", "--help", "this text");
    if (!cmd->knobs)
        return;
    fprintf(f, "\nGPU configuration (later sources win; --knob=value wins over all files):\n"
               "  %-24s %s\n  %-24s %s\n  %-24s %s\n",
            "--preset=NAME", "a built-in preset (default: " KNOB_DEFAULT_PRESET ")",
            "--config=FILE",
            "lockstep params file, GPGPU-Sim/Accel-Sim config, or a run's output or\n"
            "                           --stats-json file (the same knobs again); repeatable",
            "--KNOB=VALUE", "any knob; 'lockstep config show' lists all, docs/KNOBS.md explains");
    fprintf(f, "  presets:");
    for (int i = 0; i < knob_npresets; i++)
        fprintf(f, " %s", knob_presets[i].name);
    fprintf(f, "\n  policy knobs and their choices:\n");
    for (int i = 0; i < KNOB_COUNT; i++)
        if (knob_defs[i].type == KNOB_T_ENUM && strcmp(knob_defs[i].group, "cache") != 0)
            fprintf(f, "    --%s=%s\n", knob_defs[i].name, knob_defs[i].choices);
}

void cli_echo_header(FILE *f, const cli_args *a)
{
    fprintf(f, "# lockstep %s\n# command: lockstep %s", LOCKSTEP_VERSION, a->cmd->name);
    for (int i = 0; i < a->argc; i++)
        fprintf(f, " %s", a->argv[i]);
    fprintf(f, "\n%s\n", KNOB_ECHO_HEADER);
    knob_echo_text(f, &a->knobs, KNOB_ECHO_PREFIX);
}

void cli_warn_unmodelled(const knob_cfg *c)
{
    if (c->nunmodelled > 0)
        fprintf(stderr, "lockstep: warning: %d imported option%s not modelled (ignored): %s\n",
                c->nunmodelled, c->nunmodelled == 1 ? " is" : "s are", c->unmodelled.s);
}

/* Knob values accepted but run as something else (docs/TIMING.md, "Against Accel-Sim"). */
static const struct {
    int knob;
    const char *value, *what;
} APPROXIMATED[] = {
    {KNOB_ID_icnt_model, "booksim",
     "(GPGPU-Sim -network_mode 1): the network is modelled by the built-in crossbar, with the "
     "same buffers and flit size"},
    {KNOB_ID_partition_indexing, "random",
     "(GPGPU-Sim -gpgpu_memory_partition_indexing 4): each chunk's channel is a fixed hash "
     "where GPGPU-Sim draws rand() at its first touch: as even a spread, not the same channels"},
};

void cli_warn_approximated(const knob_cfg *c)
{
    for (size_t i = 0; i < sizeof APPROXIMATED / sizeof APPROXIMATED[0]; i++) {
        int id = APPROXIMATED[i].knob;
        char value[64];
        knob_format(c, id, value, sizeof value);
        if (!strcmp(value, APPROXIMATED[i].value))
            fprintf(stderr, "lockstep: warning: %s = %s %s (docs/TIMING.md)\n",
                    knob_defs[id].name, value, APPROXIMATED[i].what);
    }
}
