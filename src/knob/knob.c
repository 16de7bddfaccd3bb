/* The knob table and its generic machinery: parse, range check, format, echo, docs. */
#include "knob.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const knob_def knob_defs[KNOB_COUNT] = {
#define KNOB_INT(n, d, lo, hi, g, h) \
    {#n, KNOB_T_INT, #d, (lo), (hi), 0, 0, NULL, NULL, g, h, offsetof(knobs, n)},
#define KNOB_FLOAT(n, d, lo, hi, g, h) \
    {#n, KNOB_T_FLOAT, #d, 0, 0, (lo), (hi), NULL, NULL, g, h, offsetof(knobs, n)},
#define KNOB_BOOL(n, d, g, h) {#n, KNOB_T_BOOL, #d, 0, 1, 0, 0, NULL, NULL, g, h, offsetof(knobs, n)},
#define KNOB_ENUM(n, d, c, g, h) {#n, KNOB_T_ENUM, d, 0, 0, 0, 0, c, NULL, g, h, offsetof(knobs, n)},
#define KNOB_STR(n, d, chk, g, h) {#n, KNOB_T_STR, d, 0, 0, 0, 0, NULL, chk, g, h, offsetof(knobs, n)},
#define KNOB_LIST(n, d, lo, hi, g, h) \
    {#n, KNOB_T_LIST, d, (lo), (hi), 0, 0, NULL, NULL, g, h, offsetof(knobs, n)},
#include "knobs.def"
#undef KNOB_INT
#undef KNOB_FLOAT
#undef KNOB_BOOL
#undef KNOB_ENUM
#undef KNOB_STR
#undef KNOB_LIST
};

_Static_assert(KNOB_NAME_SLOTS >= 2 * KNOB_COUNT &&
                   (KNOB_NAME_SLOTS & (KNOB_NAME_SLOTS - 1)) == 0,
               "KNOB_NAME_SLOTS: a power of two, at least twice the knob count");

int knob_find(const char *name)
{
    for (int i = 0; i < KNOB_COUNT; i++)
        if (strcmp(knob_defs[i].name, name) == 0)
            return i;
    return -1;
}

/* A config import looks up hundreds of names; a linear scan costs ~150 strcmp each. */
static void index_names(knob_cfg *c)
{
    for (int i = 0; i < KNOB_COUNT; i++) {
        uint32_t slot = base_str_hash(knob_defs[i].name) & (KNOB_NAME_SLOTS - 1);
        while (c->by_name[slot])
            slot = (slot + 1) & (KNOB_NAME_SLOTS - 1);
        c->by_name[slot] = (int16_t)(i + 1);
    }
}

int knob_cfg_find(const knob_cfg *c, const char *name)
{
    uint32_t slot = base_str_hash(name) & (KNOB_NAME_SLOTS - 1);
    for (int id; (id = c->by_name[slot]) != 0; slot = (slot + 1) & (KNOB_NAME_SLOTS - 1))
        if (strcmp(knob_defs[id - 1].name, name) == 0)
            return id - 1;
    return -1;
}

const char *knob_suggest(const char *name, char *buf, size_t n)
{
    base_nearest near;
    base_nearest_init(&near, name);
    for (int i = 0; i < KNOB_COUNT; i++)
        base_nearest_add(&near, knob_defs[i].name);
    base_nearest_format(&near, buf, n);
    return buf;
}

/* The first len bytes of s into buf as a string, cut to fit its n bytes: what snprintf
 * "%.*s" does, without vfprintf (the knob echo formats every knob). */
static void put_clamped(char *buf, size_t n, const char *s, size_t len)
{
    if (n == 0)
        return;
    if (len >= n)
        len = n - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
}

const char *knob_enum_name(int id, int index, char *buf, size_t n)
{
    const char *c = knob_defs[id].choices;
    for (int i = 0; i < index && c; i++) {
        c = strchr(c, '|');
        if (c)
            c++;
    }
    if (!c || index < 0) {
        snprintf(buf, n, "?");
        return buf;
    }
    const char *end = strchr(c, '|');
    put_clamped(buf, n, c, end ? (size_t)(end - c) : strlen(c));
    return buf;
}

int knob_enum_index(int id, const char *choice)
{
    const char *c = knob_defs[id].choices;
    size_t len = strlen(choice);
    for (int i = 0; c; i++) {
        const char *end = strchr(c, '|');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        if (n == len && strncmp(c, choice, n) == 0)
            return i;
        c = end ? end + 1 : NULL;
    }
    return -1;
}

static int parse_bool(const char *v, int *out)
{
    if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on"))
        *out = 1;
    else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off"))
        *out = 0;
    else
        return -1;
    return 0;
}

static int bad_value(base_err *e, const char *where, const knob_def *d, const char *v,
                     const char *expected)
{
    return base_fail(e, BASE_EXIT_INPUT, "%s: knob %s: bad value '%s', expected %s", where,
                     d->name, v, expected);
}

static int parse_int_knob(const knob_def *d, const char *v, const char *where, int64_t *out,
                          base_err *e)
{
    int64_t x;
    int bad = base_parse_i64(v, strlen(v), 0, &x) != 0;
    if (!bad && x >= d->ilo && x <= d->ihi) {
        *out = x;
        return 0;
    }
    char range[96];
    snprintf(range, sizeof range, "an integer in [%lld, %lld]", (long long)d->ilo,
             (long long)d->ihi);
    if (bad)
        return bad_value(e, where, d, v, range);
    return base_fail(e, BASE_EXIT_INPUT, "%s: knob %s: %lld is out of range, expected %s",
                     where, d->name, (long long)x, range);
}

static int parse_list(const knob_def *d, const char *v, const char *where, knob_list *out,
                      base_err *e)
{
    knob_list l = {0};
    const char *p = v;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        while (n && (*p == ' ')) {
            p++;
            n--;
        }
        while (n && p[n - 1] == ' ')
            n--;
        char item[64];
        if (n == 0 || n >= sizeof item || l.n == KNOB_LIST_MAX)
            return bad_value(e, where, d, v, "a comma-separated list of at most 32 integers");
        memcpy(item, p, n);
        item[n] = 0;
        if (parse_int_knob(d, item, where, &l.v[l.n], e))
            return -1;
        l.n++;
        if (!end)
            break;
        p = end + 1;
        if (!*p)
            return bad_value(e, where, d, v, "no trailing comma");
    }
    *out = l;
    return 0;
}

/* Parses `v` for knob `d` into the field at `field`. */
static int parse_value(const knob_def *d, const char *v, const char *where, void *field,
                       base_err *e)
{
    switch (d->type) {
    case KNOB_T_INT:
        return parse_int_knob(d, v, where, field, e);
    case KNOB_T_FLOAT: {
        double x;
        int bad = base_parse_double(v, strlen(v), &x) != 0;
        if (!bad && x >= d->flo && x <= d->fhi) {
            *(double *)field = x;
            return 0;
        }
        char range[96];
        snprintf(range, sizeof range, "a number in [%g, %g]", d->flo, d->fhi);
        if (bad)
            return bad_value(e, where, d, v, range);
        return base_fail(e, BASE_EXIT_INPUT, "%s: knob %s: %g is out of range, expected %s",
                         where, d->name, x, range);
    }
    case KNOB_T_BOOL:
        if (parse_bool(v, field))
            return bad_value(e, where, d, v, "0 or 1");
        return 0;
    case KNOB_T_ENUM: {
        int i = knob_enum_index((int)(d - knob_defs), v);
        if (i < 0) {
            char exp[256];
            snprintf(exp, sizeof exp, "one of %s", d->choices);
            return bad_value(e, where, d, v, exp);
        }
        *(int *)field = i;
        return 0;
    }
    case KNOB_T_STR: {
        if (strlen(v) >= KNOB_STR_MAX)
            return bad_value(e, where, d, v, "at most 159 characters");
        base_err sub = {0};
        if (d->check && d->check(v, &sub))
            return base_fail(e, BASE_EXIT_INPUT, "%s: knob %s: %s", where, d->name, sub.msg);
        strcpy(field, v);
        return 0;
    }
    case KNOB_T_LIST:
        return parse_list(d, v, where, field, e);
    }
    return base_fail(e, BASE_EXIT_INTERNAL, "knob %s: unknown type", d->name);
}

/* Every knob starts with this origin: one shared, read-only string. */
static const char default_origin[] = "default";

/* A replaced origin stays in the pool until knob_free: an import sets a knob a few times.
 * Knobs set one after another from the same place share one copy: an imported option often
 * sets several, and a GPGPU-Sim config hundreds (a copy each took 47 KB of pool for one
 * config file: six fresh heap pages, and a page fault costs ~11 us on some virtual hosts). */
static void set_origin(knob_cfg *c, int id, const char *where)
{
    if (!c->last_origin || strcmp(c->last_origin, where) != 0)
        c->last_origin = base_pool_strdup(&c->strs, where);
    c->origin[id] = c->last_origin;
}

void knob_init(knob_cfg *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < KNOB_COUNT; i++) {
        base_err e = {0};
        const knob_def *d = &knob_defs[i];
        if (parse_value(d, d->def, "knobs.def", (char *)&c->v + d->off, &e))
            base_panic("%s", e.msg);
        c->origin[i] = (char *)default_origin;
    }
    index_names(c);
}

void knob_free(knob_cfg *c)
{
    base_pool_free(&c->strs);
    base_buf_free(&c->unmodelled);
    base_buf_free(&c->run_trace);
    base_buf_free(&c->run_file);
    memset(c, 0, sizeof *c);
}

int knob_set(knob_cfg *c, const char *name, const char *value, const char *where, base_err *e)
{
    int id = knob_cfg_find(c, name);
    char near[256];
    if (id < 0)
        return base_fail(e, BASE_EXIT_INPUT, "%s: unknown knob '%s' (closest: %s)", where, name,
                         knob_suggest(name, near, sizeof near));
    const knob_def *d = &knob_defs[id];
    /* parse into a scratch copy so a bad value leaves the old one intact */
    union {
        int64_t i;
        double f;
        int b;
        char s[KNOB_STR_MAX];
        knob_list l;
    } tmp;
    if (parse_value(d, value, where, &tmp, e))
        return -1;
    size_t size = d->type == KNOB_T_INT     ? sizeof(int64_t)
                  : d->type == KNOB_T_FLOAT ? sizeof(double)
                  : d->type == KNOB_T_STR   ? KNOB_STR_MAX
                  : d->type == KNOB_T_LIST  ? sizeof(knob_list)
                                            : sizeof(int);
    memcpy((char *)&c->v + d->off, &tmp, size);
    set_origin(c, id, where);
    return 0;
}

/* snprintf(buf, n, "%lld", v) without vfprintf: most knobs are integers. */
static void format_int(int64_t v, char *buf, size_t n)
{
    char t[BASE_I64_CHARS];
    put_clamped(buf, n, t, base_fmt_i64(t, v));
}

void knob_format(const knob_cfg *c, int id, char *buf, size_t n)
{
    const knob_def *d = &knob_defs[id];
    const char *f = (const char *)&c->v + d->off;
    switch (d->type) {
    case KNOB_T_INT: format_int(*(const int64_t *)f, buf, n); break;
    case KNOB_T_FLOAT: snprintf(buf, n, "%.17g", *(const double *)f); break;
    case KNOB_T_BOOL: format_int(*(const int *)f, buf, n); break;
    case KNOB_T_ENUM: knob_enum_name(id, *(const int *)f, buf, n); break;
    case KNOB_T_STR: snprintf(buf, n, "%s", f); break;
    case KNOB_T_LIST: {
        const knob_list *l = (const knob_list *)f;
        size_t used = 0;
        buf[0] = 0;
        for (int i = 0; i < l->n && used < n; i++)
            used += (size_t)snprintf(buf + used, n - used, "%s%lld", i ? "," : "",
                                     (long long)l->v[i]);
        break;
    }
    }
}

/* Floats print with %.17g for exact round trips, but 1132 reads better than 1132.0000000. */
static void format_short(const knob_cfg *c, int id, char *buf, size_t n)
{
    if (knob_defs[id].type == KNOB_T_FLOAT) {
        double v = *(const double *)((const char *)&c->v + knob_defs[id].off);
        snprintf(buf, n, "%.15g", v);
        double back = strtod(buf, NULL);
        if (back != v)
            snprintf(buf, n, "%.17g", v);
        return;
    }
    knob_format(c, id, buf, n);
}

/* Whether a value must be quoted to read back as itself from a params line, which cuts a
 * '#' comment, trims blanks and strips one pair of outer quotes. */
static int echo_needs_quotes(const char *v)
{
    size_t n = strlen(v);
    return strchr(v, '#') || (n && (v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' ||
                                    v[n - 1] == '\t')) ||
           (n >= 2 && v[0] == '"' && v[n - 1] == '"');
}

/* One fwrite a line, not fprintf nor a string at a time: a run prints this table first, and
 * ~1,000 stdio calls (each takes the stream's lock) cost more than the rest of a small
 * run's output. Every line reads back as a params line (the prefix "knob " is allowed
 * there), so a run's output is a config for running it again. */
void knob_echo_text(FILE *f, const knob_cfg *c, const char *prefix)
{
    char v[512];
    for (int i = 0; i < KNOB_COUNT; i++) {
        format_short(c, i, v, sizeof v);
        int q = knob_defs[i].type == KNOB_T_STR && echo_needs_quotes(v);
        int src = strcmp(c->origin[i], "default") != 0;
        const char *part[] = {prefix ? prefix : "", knob_defs[i].name, " = ", q ? "\"" : "",
                              v, q ? "\"" : "", src ? "   # " : "", src ? c->origin[i] : ""};
        base_put_line(f, part, BASE_ARRAY_LEN(part));
    }
}

void knob_echo_json(base_json *j, const knob_cfg *c)
{
    char v[512];
    base_json_obj_begin(j);
    for (int i = 0; i < KNOB_COUNT; i++) {
        const knob_def *d = &knob_defs[i];
        if (!strcmp(d->group, "host")) /* how fast, never what: JSON stays byte-identical */
            continue;
        const char *f = (const char *)&c->v + d->off;
        base_json_key(j, d->name);
        switch (d->type) {
        case KNOB_T_INT: base_json_i64(j, *(const int64_t *)f); break;
        case KNOB_T_FLOAT: base_json_double(j, *(const double *)f); break;
        case KNOB_T_BOOL: base_json_bool(j, *(const int *)f); break;
        case KNOB_T_LIST: {
            const knob_list *l = (const knob_list *)f;
            base_json_arr_begin(j);
            for (int k = 0; k < l->n; k++)
                base_json_i64(j, l->v[k]);
            base_json_arr_end(j);
            break;
        }
        default:
            knob_format(c, i, v, sizeof v);
            base_json_str(j, v);
        }
    }
    base_json_obj_end(j);
}

void knob_write_params(FILE *f, const knob_cfg *c, int only_non_default)
{
    char v[512];
    const char *group = "";
    for (int i = 0; i < KNOB_COUNT; i++) {
        if (only_non_default && strcmp(c->origin[i], "default") == 0)
            continue;
        if (strcmp(group, knob_defs[i].group) != 0) {
            group = knob_defs[i].group;
            fprintf(f, "\n# --- %s\n", group);
        }
        format_short(c, i, v, sizeof v);
        /* quoted where the echo is (outer quotes too: they were written bare, and read back
         * stripped), and also around any blank or an empty value, for the eye */
        int quote = echo_needs_quotes(v) || strchr(v, ' ') || v[0] == 0;
        fprintf(f, quote ? "%s = \"%s\"" : "%s = %s", knob_defs[i].name, v);
        if (strcmp(c->origin[i], "default") != 0)
            fprintf(f, "   # from %s", c->origin[i]);
        fputc('\n', f);
    }
}

static void doc_range(const knob_def *d, char *buf, size_t n)
{
    switch (d->type) {
    case KNOB_T_INT:
    case KNOB_T_LIST:
        snprintf(buf, n, "%lld .. %lld", (long long)d->ilo, (long long)d->ihi);
        break;
    case KNOB_T_FLOAT: snprintf(buf, n, "%g .. %g", d->flo, d->fhi); break;
    case KNOB_T_BOOL: snprintf(buf, n, "0, 1"); break;
    case KNOB_T_ENUM: {
        size_t k = 0;
        for (const char *p = d->choices; *p && k + 3 < n; p++) {
            if (*p == '|') {
                buf[k++] = ',';
                buf[k++] = ' ';
            } else {
                buf[k++] = *p;
            }
        }
        buf[k] = 0;
        break;
    }
    case KNOB_T_STR: snprintf(buf, n, "%s", d->check ? "checked string" : "string"); break;
    }
}

void knob_write_docs(FILE *f)
{
    static const char *tn[] = {"int", "float", "bool", "enum", "string", "int list"};
    fputs("# lockstep knobs\n\n"
          "Generated by `lockstep config docs` from src/knob/knobs.def; do not edit by hand\n"
          "(`make docs` rewrites it, and a test fails when it is stale).\n\n"
          "Set knobs with a preset (`--preset NAME`), config files (`--config FILE`, lockstep\n"
          "params or GPGPU-Sim/Accel-Sim syntax, later files win) and `--name=value` (wins over\n"
          "all files). Every run echoes every knob with the source of its value, and its\n"
          "output is a config itself: `lockstep run --config=OUTPUT TRACE` runs with every knob\n"
          "the earlier run used (the echo is read, the rest skipped), and so does its\n"
          "`--stats-json` file (its `knobs` object). The knobs of\n"
          "group `host` change how fast a run goes, never what it computes: the JSON of\n"
          "`--stats-json` leaves them out, so it is the same whatever they say.\n",
          f);
    const char *group = "";
    char range[256];
    for (int i = 0; i < KNOB_COUNT; i++) {
        const knob_def *d = &knob_defs[i];
        if (strcmp(group, d->group) != 0) {
            group = d->group;
            fprintf(f, "\n## %s\n\n| knob | type | default | allowed | meaning |\n"
                       "|---|---|---|---|---|\n", group);
        }
        doc_range(d, range, sizeof range);
        fprintf(f, "| `%s` | %s | `%s` | %s | %s |\n", d->name, tn[d->type], d->def, range,
                d->help);
    }
}
