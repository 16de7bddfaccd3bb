/* MacSim text files (FORMATS.md D.2-D.4): kernel_config.txt, Trace.txt, CPU configs, and
 * finding them. Like MacSim's own reader (C++ stream extraction) the files are read as
 * whitespace-separated tokens; messages give the line of the offending token. */
#define _DEFAULT_SOURCE /* d_type */
#include "macsim.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/rd.h"

#define MAX_WARPS_PER_CTA 100   /* MacSim counts the leading warp ids below 100 (D.4) */

typedef struct tok {
    const char *file, *s;
    size_t pos;
    uint64_t line;      /* line of the current token (or of the end of the file) */
    const char *t;      /* current token, NULL at the end */
    size_t n;
} tok;

static int next(tok *k)
{
    static const char ws[] = " \t\r\n";
    for (size_t n = strspn(k->s + k->pos, ws); n > 0; n--)
        k->line += k->s[k->pos++] == '\n';
    k->n = strcspn(k->s + k->pos, ws);
    k->t = k->n ? k->s + k->pos : NULL;
    k->pos += k->n;
    return k->t != NULL;
}

static int tok_fail(const tok *k, const char *what, base_err *e)
{
    char q[48] = "";
    for (size_t i = 0; k->t && i < k->n && i < sizeof q - 4; i++)
        q[i] = k->t[i] >= 0x20 && k->t[i] < 0x7f ? k->t[i] : '?', q[i + 1] = 0;
    if (k->t && k->n > sizeof q - 4)
        strcat(q, "...");
    if (!k->t)
        return base_fail(e, BASE_EXIT_INPUT, "%s:%llu: expected %s, found the end of the file",
                         k->file, (unsigned long long)k->line, what);
    return base_fail(e, BASE_EXIT_INPUT, "%s:%llu: expected %s, found '%s'", k->file,
                     (unsigned long long)k->line, what, q);
}

static int tok_u64(tok *k, const char *what, uint64_t min, uint64_t max, uint64_t *v,
                   base_err *e)
{
    if (!next(k) || base_parse_dec_u64(k->t, k->n, v) || *v < min || *v > max)
        return tok_fail(k, what, e);
    return 0;
}

/* A count of "<id> <start>" lines: positive and not absurd for the bytes left (a line takes
 * at least 4), so a bad count fails here rather than in a huge allocation; a count a little
 * too high fails on the line where the file ends. */
static int tok_count(tok *k, const char *what, uint32_t *n, base_err *e)
{
    uint64_t v = 0; /* tok_u64 sets it on success; gcc -O3 cannot see that */
    if (tok_u64(k, what, 1, UINT32_MAX, &v, e))
        return -1;
    uint64_t room = strlen(k->s + k->pos) + 1;
    if (v > room) {
        char w[160];
        snprintf(w, sizeof w, "%s, at most %llu (the bytes left in the file)", what,
                 (unsigned long long)room);
        return tok_fail(k, w, e);
    }
    *n = (uint32_t)v;
    return 0;
}

static int tok_is(const tok *k, const char *w)
{
    return k->t && k->n == strlen(w) && memcmp(k->t, w, k->n) == 0;
}

static int type_of(const char *s, size_t n)
{
    for (int t = 0; t < MACSIM_NTYPE; t++)
        if (strlen(macsim_type_name(t)) == n && memcmp(macsim_type_name(t), s, n) == 0)
            return t;
    return -1;
}

/* ---- finding the configuration ---- */

static int first_token_type(const char *path)
{
    char buf[65];
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    size_t i = strspn(buf, " \t\r\n");
    size_t len = strcspn(buf + i, " \t\r\n");
    return len > 0 && (i + len < n || n < sizeof buf - 1) ? type_of(buf + i, len) : -1;
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A directory's single CPU config: exactly one *.txt whose first token is a CPU type. */
static char *dir_cpu_config(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *found = NULL;
    int count = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".txt") != 0)
            continue;
        char *p = base_sprintf("%s/%s", dir, de->d_name);
        int t = first_token_type(p);
        if (t >= 0 && !macsim_type_is_gpu(t) && count++ == 0)
            found = p;
        else
            free(p);
    }
    closedir(d);
    if (count != 1) {
        free(found);
        return NULL;
    }
    return found;
}

/* kernel_config.txt is MacSim's by name, so a bad type in it is reported as such. */
static char *find_config(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    if (S_ISDIR(st.st_mode)) {
        char *p = base_sprintf("%s/kernel_config.txt", path);
        if (is_file(p))
            return p;
        free(p);
        return dir_cpu_config(path);
    }
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    return S_ISREG(st.st_mode) && (!strcmp(name, "kernel_config.txt") ||
                                   first_token_type(path) >= 0)
               ? base_strdup(path)
               : NULL;
}

int macsim_detect(const char *path)
{
    char *p = find_config(path);
    free(p);
    return p != NULL;
}

/* ---- paths ---- */

static char *dir_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? base_strndup(p, s == p ? 1 : (size_t)(s - p)) : base_strdup(".");
}

/* p without its extension (MacSim's base name), or NULL when it has none. */
static char *strip_ext(const char *p)
{
    const char *dot = strrchr(p, '.'), *slash = strrchr(p, '/');
    return dot && (!slash || dot > slash + 1) ? base_strndup(p, (size_t)(dot - p)) : NULL;
}

static int base_of(const tok *k, const char *file, char **base, base_err *e)
{
    *base = strip_ext(file);
    if (!*base)
        return base_fail(e, BASE_EXIT_INPUT, "%s:%llu: expected a path with an extension "
                         "(MacSim names record files after the part before the last '.'), "
                         "found '%s'", k->file, (unsigned long long)k->line, file);
    return 0;
}

char *macsim_warp_file(const macsim_kernel *k, uint32_t warp_id)
{
    return base_sprintf("%s_%u.raw", k->base, warp_id);
}

int macsim_kernel_dir_open(const macsim_kernel *k, size_t *skip)
{
    const char *slash = strrchr(k->base, '/');
    size_t n = slash ? (size_t)(slash - k->base) + 1 : 0; /* the name's offset; "/" stays "/" */
    char *dir = n ? base_strndup(k->base, n) : base_strdup(".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    *skip = fd < 0 ? 0 : n;
    return fd; /* -1 when open failed */
}

char *macsim_thread_file(const macsim_trace *t, uint32_t tid)
{
    return base_sprintf("%s_%u.raw", t->base, tid);
}

/* ---- Trace.txt ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* D.4: warps per CTA = the leading ids below 100; CTA 0 first; indices below that count. */
static int check_warps(const char *file, macsim_kernel *k, const uint64_t *lines, base_err *e)
{
    uint32_t n0 = 0, *ids = k->warp_ids;
    while (n0 < k->nwarps && ids[n0] < MAX_WARPS_PER_CTA)
        n0++;
    k->warps_per_cta = n0;
    for (uint32_t i = 0; i < k->nwarps; i++) {
        uint32_t cta = ids[i] >> 16, w = ids[i] & 0xffff;
        const char *why = cta == 0 && w >= MAX_WARPS_PER_CTA ? "at most 100 warps per CTA"
                          : cta == 0 && i >= n0 ? "CTA 0's warps before any other CTA's"
                          : n0 == 0             ? "CTA 0's warps first"
                          : w >= n0 ? "a warp index below the warps per CTA (CTA 0's count)"
                                    : NULL;
        if (why)
            return base_fail(e, BASE_EXIT_INPUT, "%s:%llu: expected %s, found warp id %u "
                             "(CTA %u, warp %u; CTA 0 has %u warps)", file,
                             (unsigned long long)lines[i], why, ids[i], cta, w, n0);
    }
    uint64_t *key = base_malloc(k->nwarps * sizeof *key);
    for (uint32_t i = 0; i < k->nwarps; i++)
        key[i] = (uint64_t)ids[i] << 32 | (lines[i] > UINT32_MAX ? UINT32_MAX : lines[i]);
    qsort(key, k->nwarps, sizeof *key, cmp_u64);
    int rc = 0;
    k->nctas = 0;
    for (uint32_t i = 0; i < k->nwarps && rc == 0; i++) {
        if (i > 0 && key[i] >> 32 == key[i - 1] >> 32)
            rc = base_fail(e, BASE_EXIT_INPUT, "%s:%llu: expected each warp id once, found "
                           "warp id %u again", file, (unsigned long long)(uint32_t)key[i],
                           (unsigned)(key[i] >> 32));
        k->nctas += i == 0 || key[i] >> 48 != key[i - 1] >> 48;
    }
    free(key);
    return rc;
}

/* W lines "<id> <start>" (warps or threads), then nothing. */
static int read_ids(tok *k, uint32_t n, uint32_t *ids, uint64_t *starts, uint64_t *lines,
                    const char *what, base_err *e)
{
    uint64_t count_line = k->line, v = 0; /* as in tok_count */
    for (uint32_t i = 0; i < n; i++) {
        if (tok_u64(k, what, 0, UINT32_MAX, &v, e))
            return -1;
        ids[i] = (uint32_t)v;
        lines[i] = k->line;
        if (tok_u64(k, "a start instruction count", 0, UINT64_MAX, &v, e))
            return -1;
        if (starts)
            starts[i] = v;
    }
    if (next(k)) {
        char w[96];
        snprintf(w, sizeof w, "the end of the file after %u id lines (the count on line %llu)",
                 n, (unsigned long long)count_line);
        return tok_fail(k, w, e);
    }
    return 0;
}

/* The id of a record file named "<stem>_<id>.raw" exactly as macsim_warp_file writes it (no
 * leading zero, no sign), or -1. */
static int64_t record_id(const char *name, const char *stem, size_t stem_n)
{
    if (strncmp(name, stem, stem_n) != 0 || name[stem_n] != '_')
        return -1;
    const char *d = name + stem_n + 1;
    size_t n = strspn(d, "0123456789");
    if (n == 0 || n > 10 || (d[0] == '0' && n > 1) || strcmp(d + n, ".raw") != 0)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (uint64_t)(d[i] - '0');
    return v <= UINT32_MAX ? (int64_t)v : -1;
}

/* The ids whose record files base's directory lists as regular files (a link or an entry of
 * unknown type is looked at with stat), sorted; NULL when the directory cannot be listed. A
 * trace has hundreds of record files and a stat of each cost more than reading them (a path
 * walk per call on this kind of host), so they are found with one listing. */
static uint32_t *listed_ids(const char *base, size_t *count)
{
    char *dir = dir_of(base);
    const char *slash = strrchr(base, '/'), *stem = slash ? slash + 1 : base;
    size_t stem_n = strlen(stem), n = 0, cap = 0;
    uint32_t *ids = NULL;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        int64_t id = record_id(de->d_name, stem, stem_n);
        if (id < 0)
            continue;
        if (de->d_type != DT_REG) {
            char *p = base_sprintf("%s/%s", dir, de->d_name);
            int ok = de->d_type == DT_UNKNOWN || de->d_type == DT_LNK ? is_file(p) : 0;
            free(p);
            if (!ok)
                continue;
        }
        if (n == cap)
            ids = base_realloc(ids, (cap = cap ? 2 * cap : 256) * sizeof *ids);
        ids[n++] = (uint32_t)id;
    }
    if (d)
        closedir(d);
    free(dir);
    if (!d)
        return NULL;
    qsort(ids, n, sizeof *ids, cmp_u32);
    *count = n;
    return ids ? ids : base_malloc(sizeof *ids);
}

static int files_exist(const char *file, const uint64_t *lines, uint32_t n, const uint32_t *ids,
                       const char *base, base_err *e)
{
    size_t nl = 0;
    uint32_t *have = listed_ids(base, &nl);
    for (uint32_t i = 0; i < n; i++) {
        char *p = base_sprintf("%s_%u.raw", base, ids[i]);
        int ok = have ? bsearch(&ids[i], have, nl, sizeof *have, cmp_u32) != NULL : is_file(p);
        if (!ok)
            base_fail(e, BASE_EXIT_INPUT, "%s:%llu: expected the record file of id %u, found "
                      "no file '%s'", file, (unsigned long long)lines[i], ids[i], p);
        free(p);
        if (!ok) {
            free(have);
            return -1;
        }
    }
    free(have);
    return 0;
}

static int parse_kernel(const macsim_trace *t, macsim_kernel *kn, const tok *from,
                        base_err *e)
{
    char *text = base_read_text(kn->file, e);
    if (!text) {
        if (from) {
            char *m = base_sprintf("%s:%llu: kernel %s", from->file,
                                   (unsigned long long)from->line, e->msg);
            snprintf(e->msg, sizeof e->msg, "%s", m);
            free(m);
        }
        return -1;
    }
    tok k = {kn->file, text, 0, 1, NULL, 0};
    const char *type = macsim_type_name(t->fmt.type);
    char what[64];
    snprintf(what, sizeof what, "'%s' (the trace type)", type);
    uint64_t v = 0; /* tok_u64 sets it on success; gcc -O3 cannot see that */
    int rc = -1;
    uint64_t *lines = NULL;
    if (!next(&k) || !tok_is(&k, type)) {
        tok_fail(&k, what, e);
        goto out;
    }
    snprintf(what, sizeof what, "%d (the trace version)", t->fmt.version);
    if (tok_u64(&k, what, (uint64_t)t->fmt.version, (uint64_t)t->fmt.version, &v, e) ||
        (t->fmt.type != MACSIM_PTX &&
         tok_u64(&k, "the maximum CTAs per SM", 0, UINT32_MAX, &v, e)) ||
        tok_count(&k, "the number of warps (> 0)", &kn->nwarps, e))
        goto out;
    kn->max_ctas = t->fmt.type != MACSIM_PTX ? (uint32_t)v : 0;
    kn->warp_ids = base_malloc(kn->nwarps * sizeof *kn->warp_ids);
    lines = base_malloc(kn->nwarps * sizeof *lines);
    rc = read_ids(&k, kn->nwarps, kn->warp_ids, NULL, lines, "a warp id", e) ||
         check_warps(kn->file, kn, lines, e) ||
         files_exist(kn->file, lines, kn->nwarps, kn->warp_ids, kn->base, e) ? -1 : 0;
    char *info = base_sprintf("%s_info.txt", kn->base);
    kn->has_info = is_file(info);
    free(info);
out:
    free(lines);
    free(text);
    return rc;
}

/* Names a kernel after the directory of its Trace.txt. */
static macsim_kernel *add_kernel(macsim_trace *t, const char *file, const tok *k, base_err *e)
{
    t->kernels = base_realloc(t->kernels, (t->nkernels + 1) * sizeof *t->kernels);
    macsim_kernel *kn = &t->kernels[t->nkernels++];
    memset(kn, 0, sizeof *kn);
    kn->file = base_strdup(file);
    char *dir = dir_of(file);
    const char *slash = strrchr(dir, '/');
    kn->name = base_strdup(strcmp(dir, ".") && strcmp(dir, "/") ? (slash ? slash + 1 : dir)
                                                                 : "kernel");
    free(dir);
    return base_of(k, file, &kn->base, e) ? NULL : kn;
}

/* kernel_config.txt after "-1": one Trace.txt path per kernel, of which only the last two
 * components are kept, below the config's own directory (D.3). */
static int parse_kernel_list(macsim_trace *t, tok *k, base_err *e)
{
    char *dir = dir_of(t->path);
    int rc = 0;
    while (rc == 0 && next(k)) {
        const char *end = k->t + k->n, *p = end, *tail;
        int slashes = 0;
        while (p > k->t && slashes < 2)
            slashes += *--p == '/';
        tail = *p == '/' ? p + 1 : p;
        char *rel = base_strndup(tail, (size_t)(end - tail));
        char *file = base_sprintf("%s/%s", dir, rel);
        macsim_kernel *kn = add_kernel(t, file, k, e);
        rc = kn ? parse_kernel(t, kn, k, e) : -1;
        free(rel);
        free(file);
    }
    free(dir);
    if (rc == 0 && t->nkernels == 0)
        return tok_fail(k, "a kernel's Trace.txt path", e);
    return rc;
}

static int parse_version(macsim_trace *t, tok *k, base_err *e)
{
    uint64_t v;
    int newptx = t->fmt.type == MACSIM_NEWPTX;
    if (!next(k) || base_parse_dec_u64(k->t, k->n, &v) || (v != 14 && !(newptx && v == 131)))
        return tok_fail(k, newptx ? "trace version 14 or 131" : "trace version 14", e);
    t->fmt.version = (int)v;
    return 0;
}

static int parse_gpu(macsim_trace *t, tok *k, base_err *e)
{
    if (parse_version(t, k, e))
        return -1;
    tok peek = *k;
    if (next(&peek) && tok_is(&peek, "-1")) {
        *k = peek;
        return parse_kernel_list(t, k, e);
    }
    macsim_kernel *kn = add_kernel(t, t->path, k, e);
    return kn ? parse_kernel(t, kn, NULL, e) : -1;
}

static int parse_cpu(macsim_trace *t, tok *k, base_err *e)
{
    if (t->fmt.type == MACSIM_IGPU)
        return tok_fail(k, "an x86 or a64 trace (igpu records are not supported)", e);
    if (t->fmt.type == MACSIM_X86 && !next(k))
        return tok_fail(k, "the generator version (e.g. 1.3)", e);
    t->version_text = t->fmt.type == MACSIM_X86 ? base_strndup(k->t, k->n) : base_strdup("");
    if (tok_count(k, "the number of threads (> 0)", &t->nthreads, e) ||
        base_of(k, t->path, &t->base, e))
        return -1;
    uint32_t n = t->nthreads;
    t->tids = base_malloc(n * sizeof *t->tids);
    t->starts = base_malloc(n * sizeof *t->starts);
    uint64_t *lines = base_malloc(n * sizeof *lines);
    int rc = read_ids(k, t->nthreads, t->tids, t->starts, lines, "a thread id", e) ||
             files_exist(t->path, lines, t->nthreads, t->tids, t->base, e) ? -1 : 0;
    free(lines);
    return rc;
}

int macsim_open(const char *path, int addr32, macsim_trace *t, base_err *e)
{
    memset(t, 0, sizeof *t);
    t->path = find_config(path);
    if (!t->path)
        return base_fail(e, BASE_EXIT_INPUT, "%s: expected a MacSim trace (a directory with "
                         "kernel_config.txt, or a kernel_config.txt, Trace.txt or x86/a64 "
                         "config file)", path);
    char *text = base_read_text(t->path, e);
    int rc = -1;
    if (text) {
        tok k = {t->path, text, 0, 1, NULL, 0};
        int ty = next(&k) ? type_of(k.t, k.n) : -1;
        t->fmt.type = (macsim_type)ty;
        t->fmt.addr32 = addr32;
        rc = ty < 0 ? tok_fail(&k, "a trace type (newptx, nvbit, ptx, x86 or a64)", e)
             : macsim_type_is_gpu(t->fmt.type) ? parse_gpu(t, &k, e)
                                               : parse_cpu(t, &k, e);
        free(text);
    }
    if (rc)
        macsim_close(t);
    return rc;
}

void macsim_close(macsim_trace *t)
{
    for (size_t i = 0; i < t->nkernels; i++) {
        free(t->kernels[i].file);
        free(t->kernels[i].name);
        free(t->kernels[i].base);
        free(t->kernels[i].warp_ids);
    }
    free(t->kernels);
    free(t->path);
    free(t->version_text);
    free(t->base);
    free(t->tids);
    free(t->starts);
    memset(t, 0, sizeof *t);
}
