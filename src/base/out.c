/* Safe output (temp file + rename) and a small JSON writer. */
#include "base.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int base_out_open(base_out *o, const char *path, base_err *e)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    o->path = base_strdup(path);
    o->tmp = base_sprintf("%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        int err = errno;
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return base_fail(e, BASE_EXIT_INPUT, "%s: cannot write: %s", path, strerror(err));
    }
    return 0;
}

int base_out_commit(base_out *o, base_err *e)
{
    if (!o->path) {
        fflush(o->f);
        return 0;
    }
    int bad = ferror(o->f);
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad || rename(o->tmp, o->path) != 0) {
        int err = errno;
        remove(o->tmp);
        base_fail(e, BASE_EXIT_INPUT, "%s: write failed: %s", o->path, strerror(err));
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return -1;
    }
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    return 0;
}

void base_out_abort(base_out *o)
{
    if (o->path) {
        if (o->f)
            fclose(o->f);
        remove(o->tmp);
        free(o->path);
        free(o->tmp);
    }
    memset(o, 0, sizeof *o);
}

void base_json_init(base_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->first[0] = 1;
}

/* Writes the separator and indentation that precede a new value. */
static void pre_value(base_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (!j->first[j->depth])
        fputc(',', j->f);
    j->first[j->depth] = 0;
    if (j->depth > 0) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
}

static void open_level(base_json *j, char c)
{
    pre_value(j);
    fputc(c, j->f);
    if (j->depth + 1 >= (int)BASE_ARRAY_LEN(j->first))
        base_panic("JSON nesting too deep");
    j->first[++j->depth] = 1;
}

static void close_level(base_json *j, char c)
{
    int empty = j->first[j->depth];
    j->depth--;
    if (!empty) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(c, j->f);
    if (j->depth == 0)
        fputc('\n', j->f);
}

void base_json_obj_begin(base_json *j) { open_level(j, '{'); }
void base_json_obj_end(base_json *j) { close_level(j, '}'); }
void base_json_arr_begin(base_json *j) { open_level(j, '['); }
void base_json_arr_end(base_json *j) { close_level(j, ']'); }

static void put_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void base_json_key(base_json *j, const char *k)
{
    pre_value(j);
    put_escaped(j->f, k);
    fputs(": ", j->f);
    j->after_key = 1;
}

void base_json_str(base_json *j, const char *s)
{
    pre_value(j);
    put_escaped(j->f, s ? s : "");
}

void base_json_u64(base_json *j, uint64_t v)
{
    pre_value(j);
    fprintf(j->f, "%llu", (unsigned long long)v);
}

void base_json_i64(base_json *j, int64_t v)
{
    pre_value(j);
    fprintf(j->f, "%lld", (long long)v);
}

void base_json_double(base_json *j, double v)
{
    pre_value(j);
    if (!isfinite(v))
        fputs("null", j->f);
    else
        fprintf(j->f, "%.17g", v);
}

void base_json_bool(base_json *j, int v)
{
    pre_value(j);
    fputs(v ? "true" : "false", j->f);
}

void base_json_null(base_json *j)
{
    pre_value(j);
    fputs("null", j->f);
}

void base_json_kv_str(base_json *j, const char *k, const char *v)
{
    base_json_key(j, k);
    base_json_str(j, v);
}

void base_json_kv_u64(base_json *j, const char *k, uint64_t v)
{
    base_json_key(j, k);
    base_json_u64(j, v);
}

void base_json_kv_i64(base_json *j, const char *k, int64_t v)
{
    base_json_key(j, k);
    base_json_i64(j, v);
}

void base_json_kv_double(base_json *j, const char *k, double v)
{
    base_json_key(j, k);
    base_json_double(j, v);
}

void base_json_kv_bool(base_json *j, const char *k, int v)
{
    base_json_key(j, k);
    base_json_bool(j, v);
}
