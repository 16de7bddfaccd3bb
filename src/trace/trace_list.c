/* kernelslist.g (A.2): MemcpyHtoD lines, kernel lines, anything else kept as "other". */
#include "trace.h"
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static int is_kernel_file(const char *s, size_t n)
{
    return ends_with(s, n, ".traceg") || ends_with(s, n, ".traceg.xz");
}

static trace_cmd *add_cmd(trace_list *l, trace_cmd_kind kind, uint64_t line, const char *s,
                          size_t n)
{
    base_grow(&l->cmds, &l->cap, l->ncmds + 1, sizeof *l->cmds);
    trace_cmd *c = &l->cmds[l->ncmds++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->line = line;
    c->text = base_strndup(s, n);
    return c;
}

static void trim(const char **s, size_t *n)
{
    while (*n > 0 && ((*s)[0] == ' ' || (*s)[0] == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
        (*n)--;
}

/* "MemcpyHtoD,0x<addr>,<bytes>": exactly three fields, no overflow of addr + bytes. */
static int parse_memcpy(const char *file, uint64_t ln, const char *s, size_t n, uint64_t *addr,
                        uint64_t *bytes, base_err *e)
{
    const char *f[4];
    size_t fl[4];
    int nf = 0;
    size_t i = 0;
    while (nf < 4) {
        size_t j = i;
        while (j < n && s[j] != ',')
            j++;
        f[nf] = s + i;
        fl[nf] = j - i;
        trim(&f[nf], &fl[nf]);
        nf++;
        if (j == n)
            break;
        i = j + 1;
    }
    if (nf != 3)
        return trace_fail_found(e, file, ln, "'MemcpyHtoD,0x<address>,<bytes>' (3 fields)", s, n);
    if (fl[1] < 3 || f[1][0] != '0' || (f[1][1] != 'x' && f[1][1] != 'X') ||
        base_parse_u64(f[1], fl[1], 16, addr))
        return trace_fail_found(e, file, ln, "a hex device address 0x...", f[1], fl[1]);
    if (base_parse_u64(f[2], fl[2], 10, bytes))
        return trace_fail_found(e, file, ln, "a decimal byte count", f[2], fl[2]);
    if (*bytes > UINT64_MAX - *addr)
        return trace_fail(e, "%s:%llu: expected a copy inside the 64-bit address space, found "
                          "0x%llx + %llu bytes", file, (unsigned long long)ln,
                          (unsigned long long)*addr, (unsigned long long)*bytes);
    return 0;
}

static int list_line(trace_list *l, const char *file, const char *dir, uint64_t ln,
                     const char *s, size_t n, base_err *e)
{
    trim(&s, &n);
    if (n == 0)
        return 0;
    if (n >= 10 && memcmp(s, "MemcpyHtoD", 10) == 0) {
        uint64_t addr, bytes;
        if (parse_memcpy(file, ln, s, n, &addr, &bytes, e))
            return -1;
        trace_cmd *c = add_cmd(l, TRACE_CMD_MEMCPY, ln, s, n);
        c->addr = addr;
        c->bytes = bytes;
        l->nmemcpy++;
        l->memcpy_bytes += bytes;  /* a sum beyond 2^64 bytes is not a real trace */
        return 0;
    }
    if (n >= 6 && memcmp(s, "kernel", 6) == 0) {
        if (!is_kernel_file(s, n))
            return trace_fail_found(e, file, ln, "a kernel file ending in .traceg or .traceg.xz "
                                    "(raw .trace files need post-traces-processing)", s, n);
        trace_cmd *c = add_cmd(l, TRACE_CMD_KERNEL, ln, s, n);
        c->path = base_sprintf("%s/%s", dir, c->text);
        l->nkernels++;
        return 0;
    }
    add_cmd(l, TRACE_CMD_OTHER, ln, s, n);
    l->nother++;
    return 0;
}

int trace_list_read(base_rd *r, const char *dir, trace_list *l, base_err *e)
{
    char *s;
    size_t n;
    int rc;
    while ((rc = base_rd_line(r, &s, &n, e)) == 1)
        if (list_line(l, base_rd_name(r), dir, base_rd_lineno(r), s, n, e))
            return -1;
    if (rc < 0)
        return -1;
    if (l->nkernels == 0)
        return trace_fail(e, "%s: expected at least one kernel line (e.g. 'kernel-1.traceg'), "
                          "found none in %llu lines", base_rd_name(r),
                          (unsigned long long)base_rd_lineno(r));
    return 0;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return base_strdup(".");
    if (slash == path)
        return base_strdup("/");
    return base_strndup(path, (size_t)(slash - path));
}

static int single_kernel(const char *path, trace_list *l)
{
    l->path = base_strdup(path);
    l->dir = dir_of(path);
    trace_cmd *c = add_cmd(l, TRACE_CMD_KERNEL, 0, path, strlen(path));
    c->path = base_strdup(path);
    l->nkernels = 1;
    return 0;
}

int trace_list_open(const char *path, trace_list *l, base_err *e)
{
    memset(l, 0, sizeof *l);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        l->path = base_sprintf("%s/kernelslist.g", path);
        l->dir = base_strdup(path);
    } else if (is_kernel_file(path, strlen(path))) {
        return single_kernel(path, l);
    } else {
        l->path = base_strdup(path);
        l->dir = dir_of(path);
    }
    base_rd *r = base_rd_open(l->path, e);
    int rc = r ? trace_list_read(r, l->dir, l, e) : -1;
    base_rd_close(r);
    if (rc)
        trace_list_free(l);
    return rc;
}

void trace_list_add_kernel(trace_list *l, const char *path)
{
    trace_cmd *c = add_cmd(l, TRACE_CMD_KERNEL, l->ncmds + 1, path, strlen(path));
    c->path = base_strdup(path);
    l->nkernels++;
}

void trace_list_free(trace_list *l)
{
    if (l->src_free)
        l->src_free(l->src);
    for (size_t i = 0; i < l->ncmds; i++) {
        free(l->cmds[i].text);
        free(l->cmds[i].path);
    }
    free(l->cmds);
    free(l->path);
    free(l->dir);
    memset(l, 0, sizeof *l);
}
