/* cli: the `lockstep` command. main.c dispatches; one file per subcommand.
 *
 * Options are `--name=value` or `--name value`. A subcommand declares its own options in a
 * table; commands that configure the GPU also accept --preset, --config and every knob as
 * --knob=value. Exit codes: 0 ok, 1 internal error, 2 usage error, 3 bad input. */
#ifndef LOCKSTEP_CLI_H
#define LOCKSTEP_CLI_H

#include "base/base.h"
#include "knob/knob.h"

#define LOCKSTEP_VERSION "0.1.0"

/* Whether `run` frees the simulator before the process exits. Only leak checkers need that:
 * the kernel takes a process's memory back in one step, while unmapping and freeing a GPU's
 * worth of arrays one by one costs ~0.3 ms, a sixth of a tiny run. Sanitizer builds free
 * everything (and -DLOCKSTEP_FREE_AT_EXIT does, e.g. for valgrind). */
#if BASE_ASAN || defined(LOCKSTEP_FREE_AT_EXIT)
#define CLI_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(leak_sanitizer)
#define CLI_FREE_AT_EXIT 1
#endif
#endif
#ifndef CLI_FREE_AT_EXIT
#define CLI_FREE_AT_EXIT 0
#endif

struct cli_args;

typedef struct cli_opt {
    const char *name;
    int takes_value;   /* 0: a flag */
    const char *arg;   /* placeholder in help, e.g. "FILE" */
    const char *help;
} cli_opt;

typedef struct cli_cmd {
    const char *name;
    const char *usage;      /* "lockstep occupancy [OPTIONS]" */
    const char *summary;    /* one line */
    const char *details;    /* paragraph printed by --help, may be NULL */
    const cli_opt *opts;    /* terminated by {NULL} */
    int knobs;              /* accepts --preset/--config/--knob=value */
    int min_pos, max_pos;   /* positional arguments */
    int (*run)(struct cli_args *a);
    int extra_opts;         /* 1: unknown --name=value options are kept in cli_args.extra */
    /* --help after a first positional word: help on that word (a synth workload's
     * parameters); 0 if it printed one, else the command's help is printed. May be NULL. */
    int (*help_word)(FILE *f, const char *word);
} cli_cmd;

typedef struct cli_extra {
    const char *name, *value;
} cli_extra;

typedef struct cli_args {
    const cli_cmd *cmd;
    const char *value[32];  /* per entry of cmd->opts: value, "1" for a set flag, or NULL */
    char **pos;
    int npos;
    knob_cfg knobs;         /* resolved when cmd->knobs */
    cli_extra *extra;       /* unknown options, in order (cmd->extra_opts only) */
    int nextra;
    int argc;
    char **argv;            /* the full command line, for the echo */
} cli_args;

/* Parses argv (after the subcommand name), resolves knobs; on error prints it and returns
 * the exit code (2 usage, 3 bad input); returns 0 on success and -1 when --help was printed. */
int cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_args *a);
void cli_args_free(cli_args *a);
const char *cli_get(const cli_args *a, const char *name);
int cli_flag(const cli_args *a, const char *name);
/* Parses an integer option; prints a usage error and returns -1 if malformed. */
int cli_get_i64(const cli_args *a, const char *name, int64_t def, int64_t *out);

void cli_print_help(FILE *f, const cli_cmd *cmd);
int cli_error(const base_err *e);                  /* prints "lockstep: error: ...", returns code */
int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the knob echo header that starts every run's output. */
void cli_echo_header(FILE *f, const cli_args *a);
/* Prints the one warning line about imported options lockstep does not model, if any. */
void cli_warn_unmodelled(const knob_cfg *c);
/* One warning line per knob value that is accepted but run as something else (a BookSim
 * network as the crossbar, the random partition indexing as a fixed hash). */
void cli_warn_approximated(const knob_cfg *c);

extern const cli_cmd cli_cmd_run, cli_cmd_occupancy, cli_cmd_trace, cli_cmd_config,
    cli_cmd_synth;

#endif
