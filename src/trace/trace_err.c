#include "trace_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int trace_fail(base_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    base_vfail(e, BASE_EXIT_INPUT, fmt, ap);
    va_end(ap);
    return -1;
}

void trace_quote(char *dst, size_t cap, const char *s, size_t n, size_t max)
{
    size_t o = 0;
    for (size_t i = 0; i < n && i < max && o + 5 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch < 0x7f)
            dst[o++] = (char)ch;
        else
            o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", ch);
    }
    if (n > max && o + 4 < cap) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o < cap ? o : cap - 1] = 0;
}

int trace_fail_found(base_err *e, const char *file, uint64_t line, const char *what,
                     const char *s, size_t n)
{
    if (!s)
        return trace_fail(e, "%s:%llu: expected %s, found the end of the line", file,
                          (unsigned long long)line, what);
    char q[200];
    trace_quote(q, sizeof q, s, n, 48);
    return trace_fail(e, "%s:%llu: expected %s, found '%s'", file, (unsigned long long)line,
                      what, q);
}

void trace_err_prefix(base_err *e, const char *fmt, ...)
{
    char pre[512], old[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof old);
    old[sizeof old - 1] = 0;
    char *s = base_sprintf("%s: %s", pre, old);
    size_t n = strlen(s);
    if (n >= sizeof e->msg)
        n = sizeof e->msg - 1;
    memcpy(e->msg, s, n);
    e->msg[n] = 0;
    free(s);
}
