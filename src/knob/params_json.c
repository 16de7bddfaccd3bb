/* A run's --stats-json file read as a params file: its "knobs" object holds every knob that
 * decides the statistics (the host group, which never does, is left out), so a run is
 * repeated from its JSON alone as from its text output. The reader is strict JSON (RFC 8259)
 * and small: it takes the members of "knobs" and skips every other value, nested at most
 * JR_DEPTH deep, and its errors name the byte offset. */
#include "knob.h"

#include <stdlib.h>
#include <string.h>

#define JR_DEPTH 64

typedef struct jr {
    const char *s, *p, *name;
    base_err *e;
} jr;

static int jr_fail(jr *r, const char *what)
{
    return base_fail(r->e, BASE_EXIT_INPUT, "%s: byte %zu: expected %s", r->name,
                     (size_t)(r->p - r->s), what);
}

static void jr_ws(jr *r)
{
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
        r->p++;
}

/* Skips blanks, then takes c if it is next. */
static int jr_eat(jr *r, char c)
{
    jr_ws(r);
    if (*r->p != c)
        return 0;
    r->p++;
    return 1;
}

static int jr_hex4(jr *r, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++, r->p++) {
        char c = *r->p;
        int d = c >= '0' && c <= '9' ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return jr_fail(r, "four hex digits after \\u");
        *v = *v * 16 + (unsigned)d;
    }
    return 0;
}

static void put_utf8(base_buf *b, unsigned cp)
{
    if (cp < 0x80) {
        base_buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        base_buf_putc(b, (char)(0xc0 | cp >> 6));
        base_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        base_buf_putc(b, (char)(0xe0 | cp >> 12));
        base_buf_putc(b, (char)(0x80 | (cp >> 6 & 0x3f)));
        base_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else {
        base_buf_putc(b, (char)(0xf0 | cp >> 18));
        base_buf_putc(b, (char)(0x80 | (cp >> 12 & 0x3f)));
        base_buf_putc(b, (char)(0x80 | (cp >> 6 & 0x3f)));
        base_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    }
}

/* \uXXXX (r->p after the 'u'), a surrogate pair as one code point, into out (NULL: checked
 * only); NUL is refused, for a knob's string ends there. */
static int jr_unicode(jr *r, base_buf *out)
{
    unsigned cp, lo;
    if (jr_hex4(r, &cp))
        return -1;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return jr_fail(r, "a high surrogate before a low one");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (r->p[0] != '\\' || r->p[1] != 'u')
            return jr_fail(r, "a low surrogate (\\uDC00-\\uDFFF) after a high one");
        r->p += 2;
        if (jr_hex4(r, &lo))
            return -1;
        if (lo < 0xdc00 || lo > 0xdfff)
            return jr_fail(r, "a low surrogate (\\uDC00-\\uDFFF) after a high one");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    if (cp == 0)
        return jr_fail(r, "no \\u0000 in a knob's text");
    if (out)
        put_utf8(out, cp);
    return 0;
}

/* A string (r->p at its quote) into out (NULL: skipped, nothing copied). */
static int jr_string(jr *r, base_buf *out)
{
    int rc = 0;
    if (!jr_eat(r, '"'))
        rc = jr_fail(r, "'\"'");
    while (rc == 0 && *r->p != '"') {
        unsigned char c = (unsigned char)*r->p;
        if (c < 0x20) {
            rc = jr_fail(r, c ? "no control character in a string" : "'\"' before the end");
            break;
        }
        r->p++;
        if (c != '\\') {
            if (out)
                base_buf_putc(out, (char)c);
            continue;
        }
        const char *esc = strchr("\"\\/bfnrtu", *r->p);
        if (!*r->p || !esc) {
            rc = jr_fail(r, "an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
            break;
        }
        char e = *r->p++;
        if (e == 'u')
            rc = jr_unicode(r, out);
        else if (out)
            base_buf_putc(out, "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrtu"]);
    }
    if (rc == 0)
        r->p++;
    if (out && !out->s)
        base_buf_puts(out, ""); /* an empty string is still a string */
    return rc;
}

/* Empties b for the next value, keeping its memory (and its NUL). */
static void buf_reset(base_buf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = 0;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* A number's text as written (the knob's parser reads it). */
static int jr_number(jr *r, base_buf *out)
{
    const char *a = r->p;
    if (*r->p == '-')
        r->p++;
    if (*r->p == '0')
        r->p++;
    else if (is_digit(*r->p))
        while (is_digit(*r->p))
            r->p++;
    else
        return jr_fail(r, "a number");
    if (*r->p == '.') {
        r->p++;
        if (!is_digit(*r->p))
            return jr_fail(r, "a digit after '.'");
        while (is_digit(*r->p))
            r->p++;
    }
    if (*r->p == 'e' || *r->p == 'E') {
        r->p++;
        if (*r->p == '+' || *r->p == '-')
            r->p++;
        if (!is_digit(*r->p))
            return jr_fail(r, "a digit in the exponent");
        while (is_digit(*r->p))
            r->p++;
    }
    if (out)
        base_buf_put(out, a, (size_t)(r->p - a));
    return 0;
}

static int jr_literal(jr *r, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(r->p, lit, n) != 0)
        return jr_fail(r, "a value");
    r->p += n;
    return 0;
}

static int jr_value(jr *r, int depth, base_buf *out);

/* The members of an object or the elements of an array, r->p after its opening bracket;
 * values skipped. */
static int jr_skip_members(jr *r, int depth, char close, int keyed)
{
    if (jr_eat(r, close))
        return 0;
    do {
        jr_ws(r);
        if (keyed && (jr_string(r, NULL) || (!jr_eat(r, ':') && jr_fail(r, "':'"))))
            return -1;
        if (jr_value(r, depth + 1, NULL))
            return -1;
    } while (jr_eat(r, ','));
    return jr_eat(r, close) ? 0 : jr_fail(r, close == '}' ? "',' or '}'" : "',' or ']'");
}

/* Any value, skipped (out NULL) or as a knob's value text: a string as itself, a number as
 * written, true/false as 1/0, an array of numbers as "a,b,c" (an int list knob). */
static int jr_value(jr *r, int depth, base_buf *out)
{
    if (depth > JR_DEPTH)
        return jr_fail(r, "values nested at most 64 deep");
    jr_ws(r);
    char c = *r->p;
    if (c == '"')
        return jr_string(r, out);
    if (c == '-' || is_digit(c))
        return jr_number(r, out);
    if (c == 't' || c == 'f') {
        if (jr_literal(r, c == 't' ? "true" : "false"))
            return -1;
        if (out)
            base_buf_puts(out, c == 't' ? "1" : "0");
        return 0;
    }
    if (c == 'n') {
        if (jr_literal(r, "null"))
            return -1;
        return out ? jr_fail(r, "a knob's value, not null") : 0;
    }
    if (c != '{' && c != '[')
        return jr_fail(r, "a value");
    r->p++;
    if (!out)
        return jr_skip_members(r, depth, c == '{' ? '}' : ']', c == '{');
    if (c == '{')
        return jr_fail(r, "a knob's value, not an object");
    if (jr_eat(r, ']'))
        return 0;
    do {
        if (out->len)
            base_buf_putc(out, ',');
        jr_ws(r);
        if (*r->p != '-' && !is_digit(*r->p))
            return jr_fail(r, "a number in a knob's list");
        if (jr_number(r, out))
            return -1;
    } while (jr_eat(r, ','));
    return jr_eat(r, ']') ? 0 : jr_fail(r, "',' or ']'");
}

/* The "knobs" object, r->p at its '{': each member set as if from a params line. */
static int jr_knobs(knob_cfg *c, jr *r)
{
    if (!jr_eat(r, '{'))
        return jr_fail(r, "'{' (the knobs object)");
    if (jr_eat(r, '}'))
        return 0;
    base_buf name = {0}, val = {0};
    int rc = 0;
    do {
        buf_reset(&name);
        buf_reset(&val);
        jr_ws(r);
        if (jr_string(r, &name) || (!jr_eat(r, ':') && jr_fail(r, "':'")) ||
            jr_value(r, 1, &val)) {
            rc = -1;
            break;
        }
        char where[600];
        snprintf(where, sizeof where, "%s (knobs.%.80s)", r->name, name.s);
        if (knob_set(c, name.s, val.s ? val.s : "", where, r->e)) {
            rc = -1;
            break;
        }
    } while (jr_eat(r, ','));
    if (rc == 0 && !jr_eat(r, '}'))
        rc = jr_fail(r, "',' or '}'");
    base_buf_free(&name);
    base_buf_free(&val);
    return rc;
}

int knob_load_json_text(knob_cfg *c, const char *name, const char *text, base_err *e)
{
    jr r = {text, text, name, e};
    if (!jr_eat(&r, '{'))
        return jr_fail(&r, "'{' (a lockstep --stats-json file)");
    int found = 0;
    base_buf key = {0};
    int rc = 0;
    if (!jr_eat(&r, '}')) {
        do {
            buf_reset(&key);
            jr_ws(&r);
            if (jr_string(&r, &key) || (!jr_eat(&r, ':') && jr_fail(&r, "':'"))) {
                rc = -1;
                break;
            }
            if (strcmp(key.s, "knobs") == 0 && !found) {
                found = 1;
                rc = jr_knobs(c, &r);
            } else if (strcmp(key.s, "trace") == 0 && (jr_ws(&r), *r.p == '"')) {
                buf_reset(&key);
                if ((rc = jr_string(&r, &key)) == 0)
                    knob_note_run_trace(c, name, key.s, key.len);
            } else {
                rc = jr_value(&r, 1, NULL);
            }
        } while (rc == 0 && jr_eat(&r, ','));
        if (rc == 0 && !jr_eat(&r, '}'))
            rc = jr_fail(&r, "',' or '}'");
    }
    base_buf_free(&key);
    if (rc == 0) {
        jr_ws(&r);
        if (*r.p)
            rc = jr_fail(&r, "the end of the file after the top-level object");
    }
    if (rc == 0 && !found)
        rc = base_fail(e, BASE_EXIT_INPUT,
                       "%s: no \"knobs\" object (a lockstep --stats-json file has one)", name);
    return rc;
}
