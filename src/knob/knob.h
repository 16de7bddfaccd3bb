/* knob: the single table of simulator parameters (knobs.def) and everything derived from it.
 *
 * Sources, lowest precedence first: built-in defaults, presets / config files in the order
 * given (lockstep params files or GPGPU-Sim/Accel-Sim configs, detected by content), then
 * --name=value. Every value remembers where it came from, and the whole table is echoed at
 * the head of each run, so a run can be reproduced from its output alone. */
#ifndef LOCKSTEP_KNOB_H
#define LOCKSTEP_KNOB_H

#include "../base/base.h"

#define KNOB_STR_MAX 160
#define KNOB_LIST_MAX 32

typedef struct knob_list {
    int n;
    int64_t v[KNOB_LIST_MAX];
} knob_list;

typedef enum { KNOB_T_INT, KNOB_T_FLOAT, KNOB_T_BOOL, KNOB_T_ENUM, KNOB_T_STR, KNOB_T_LIST } knob_type;

/* Validator of a string knob: 0 if fine, else -1 with a message (no location: the caller
 * prefixes file:line and the knob name). */
typedef int (*knob_check_fn)(const char *value, base_err *e);
int knob_check_addr_map(const char *value, base_err *e); /* implemented in mem/addrmap.c */

/* The resolved values: one field per row of knobs.def. ENUMs hold the choice index. */
typedef struct knobs {
#define KNOB_INT(n, d, lo, hi, g, h) int64_t n;
#define KNOB_FLOAT(n, d, lo, hi, g, h) double n;
#define KNOB_BOOL(n, d, g, h) int n;
#define KNOB_ENUM(n, d, c, g, h) int n;
#define KNOB_STR(n, d, chk, g, h) char n[KNOB_STR_MAX];
#define KNOB_LIST(n, d, lo, hi, g, h) knob_list n;
#include "knobs.def"
#undef KNOB_INT
#undef KNOB_FLOAT
#undef KNOB_BOOL
#undef KNOB_ENUM
#undef KNOB_STR
#undef KNOB_LIST
} knobs;

/* KNOB_ID_<name>: the row index of each knob. */
enum knob_id {
#define KNOB_INT(n, d, lo, hi, g, h) KNOB_ID_##n,
#define KNOB_FLOAT(n, d, lo, hi, g, h) KNOB_ID_##n,
#define KNOB_BOOL(n, d, g, h) KNOB_ID_##n,
#define KNOB_ENUM(n, d, c, g, h) KNOB_ID_##n,
#define KNOB_STR(n, d, chk, g, h) KNOB_ID_##n,
#define KNOB_LIST(n, d, lo, hi, g, h) KNOB_ID_##n,
#include "knobs.def"
#undef KNOB_INT
#undef KNOB_FLOAT
#undef KNOB_BOOL
#undef KNOB_ENUM
#undef KNOB_STR
#undef KNOB_LIST
    KNOB_COUNT
};

typedef struct knob_def {
    const char *name;
    knob_type type;
    const char *def;         /* default, as text */
    int64_t ilo, ihi;        /* INT, LIST elements */
    double flo, fhi;         /* FLOAT */
    const char *choices;     /* ENUM: "a|b|c" */
    knob_check_fn check;     /* STR */
    const char *group, *help;
    size_t off;              /* offset of the field in `knobs` */
} knob_def;

extern const knob_def knob_defs[KNOB_COUNT];

/* Slots of the name index in knob_cfg: a power of two, over twice KNOB_COUNT. */
#define KNOB_NAME_SLOTS 1024

typedef struct knob_cfg {
    knobs v;
    char *origin[KNOB_COUNT];   /* "default", "preset rtx3070", "file:line", "--name" */
    int16_t by_name[KNOB_NAME_SLOTS]; /* open-addressing hash of knob names: id + 1, 0 empty */
    base_pool strs;             /* every origin but "default" */
    char *last_origin;          /* the newest of them, shared by the knobs set from it */
    base_buf unmodelled;        /* imported options lockstep does not model, comma-separated */
    int nunmodelled;
    int depth;                  /* nesting of preset/config includes */
    int gpgpusim_set;           /* a GPGPU-Sim config (or its defaults) has set a knob */
    /* A run's output or --stats-json read as a config: the trace that run named, and the
     * file (both empty otherwise), for `run` to warn when it runs another trace. */
    base_buf run_trace, run_file;
} knob_cfg;

/* Built-in defaults. Never fails (the defaults are checked by a unit test). */
void knob_init(knob_cfg *c);
void knob_free(knob_cfg *c);

int knob_find(const char *name); /* row index or -1 */
/* The same through the name index of an initialised knob_cfg (no linear scan). */
int knob_cfg_find(const knob_cfg *c, const char *name);
/* Up to 3 closest knob names to `name`, as "a, b, c", written to buf (returned). */
const char *knob_suggest(const char *name, char *buf, size_t n);

/* Sets one knob from text. `where` names the source for messages and the echo
 * ("file:line", "--name"). Errors: unknown name (with suggestions), bad or out-of-range
 * value (with the allowed range or choices); code BASE_EXIT_INPUT. */
int knob_set(knob_cfg *c, const char *name, const char *value, const char *where, base_err *e);

/* Loads a file: lockstep params syntax ("name = value", '#' comments, "preset = NAME" to
 * include a built-in preset) or a GPGPU-Sim/Accel-Sim config (first token starts with '-'),
 * chosen by content. */
int knob_load_file(knob_cfg *c, const char *path, base_err *e);
/* Parses lockstep params text held in memory (`name` is used in messages). */
int knob_load_params_text(knob_cfg *c, const char *name, const char *text, base_err *e);
/* A built-in preset (configs/NAME.cfg compiled into the binary). */
int knob_load_preset(knob_cfg *c, const char *name, base_err *e);
/* GPGPU-Sim / Accel-Sim config import (knob/gpgpusim.c). */
int knob_import_gpgpusim(knob_cfg *c, const char *path, base_err *e);
int knob_import_gpgpusim_text(knob_cfg *c, const char *name, const char *text, base_err *e);
/* A run's --stats-json file: its "knobs" object, each member set as a params line would. */
int knob_load_json_text(knob_cfg *c, const char *name, const char *text, base_err *e);
/* Notes the trace (path, n bytes) named by `file`, a run's output or JSON read as a config
 * (knob_cfg.run_trace); the first one noted stays. */
void knob_note_run_trace(knob_cfg *c, const char *file, const char *path, size_t n);

/* Cross-knob rules (e.g. a sectored cache needs 128-byte lines). Run after all sources. */
int knob_validate(const knob_cfg *c, base_err *e);

/* Value of a knob as text (static buffer per call site is not thread-safe: caller buffer). */
void knob_format(const knob_cfg *c, int id, char *buf, size_t n);
/* Choice text of an ENUM value, written to buf (returned); "?" for a bad index. */
const char *knob_enum_name(int id, int index, char *buf, size_t n);
int knob_enum_index(int id, const char *choice); /* -1 if not a choice */

/* A run's output prints KNOB_ECHO_HEADER, then a line per knob, "knob name = value   #
 * origin", which reads back as a params line (the prefix is allowed there); a params file
 * holding the header is a run's output, whose echo is read and other lines skipped. */
#define KNOB_ECHO_HEADER                                                                      \
    "# knobs (every value; '# source' marks values not at their built-in default):"
#define KNOB_ECHO_PREFIX "knob "
/* and, after the echo, "# trace PATH: N kernels, ..." */
#define KNOB_RUN_TRACE "# trace "

/* Echo: "name = value   # origin" lines after line_prefix; JSON: {"name": value, ...}. */
void knob_echo_text(FILE *f, const knob_cfg *c, const char *line_prefix);
void knob_echo_json(base_json *j, const knob_cfg *c);
/* lockstep params format, loadable with --config (used by `config import`). */
void knob_write_params(FILE *f, const knob_cfg *c, int only_non_default);
/* Markdown reference of every knob (docs/KNOBS.md). */
void knob_write_docs(FILE *f);

#endif
