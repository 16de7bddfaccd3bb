/* lockstep trace {info,check,convert}: inspect, validate and convert traces. The format of
 * PATH is recognised by content: MacSim traces go to src/macsim, the rest is Accel-Sim. */
#include "cli.h"

#include "macsim/macsim.h"
#include "trace/trace.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cli_opt OPTS[] = {
    {"json", 0, NULL, "info: print JSON instead of text"},
    {"addr32", 0, NULL, "MacSim ptx traces written with trace_uses_64_bit_addr=0"},
    {"to", 1, "FORMAT", "convert: the output format (accelsim, native)"},
    {"out", 1, "DIR", "convert: the output directory"},
    {"binary-version", 1, "N", "convert of a MacSim source: the -binary version to write "
                               "(default 80)"},
    {"xz", 0, NULL, "convert --to accelsim: write kernel-N.traceg.xz"},
    {"level", 1, "N", "convert --to native: zstd level 1..22 (default 19), 0 = uncompressed"},
    {NULL, 0, NULL, NULL},
};

static const char *const CONVERT_ONLY[] = {"to", "out", "binary-version", "xz", "level"};

static void print_summary(const char *out, const trace_convert_summary *s)
{
    printf("%s: wrote %llu kernels, %llu CTAs, %llu warp instructions, %llu bytes (from %llu)\n",
           out, (unsigned long long)s->kernels, (unsigned long long)s->ctas,
           (unsigned long long)s->warp_insts, (unsigned long long)s->out_bytes,
           (unsigned long long)s->in_bytes);
}

/* An Accel-Sim or native trace back to Accel-Sim text. */
static int export_accelsim(cli_args *a, const char *src, const char *out)
{
    if (cli_get(a, "binary-version") || cli_flag(a, "addr32"))
        return cli_usage_error(a->cmd, "--binary-version and --addr32 apply to MacSim sources "
                               "only; '%s' is an Accel-Sim or native trace", src);
    trace_convert_summary s = {0};
    base_err e = {0};
    if (trace_convert_accelsim(src, out, cli_flag(a, "xz"), &s, &e))
        return cli_error(&e);
    print_summary(out, &s);
    return 0;
}

/* Removes the flat directory `dir` (the Accel-Sim text a MacSim source passed through). */
static void remove_flat_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *de; (de = readdir(d));) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char *path = base_sprintf("%s/%s", dir, de->d_name);
            unlink(path);
            free(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* A MacSim source reaches the native form through Accel-Sim text: written beside `out` into
 * a directory of its own (the same file system, so no space of /tmp is assumed), read back
 * by the native writer and removed, whatever happened. */
static int macsim_to_native(cli_args *a, const char *src, const char *out, int level,
                            int64_t bv)
{
    char *tmp = base_sprintf("%s.accelsim-XXXXXX", out);
    if (!mkdtemp(tmp)) {
        base_err e = {0};
        base_fail(&e, BASE_EXIT_INPUT, "%s: cannot create a directory beside the output for "
                  "the Accel-Sim text: %s", tmp, strerror(errno));
        free(tmp);
        return cli_error(&e);
    }
    macsim_opts o = {.addr32 = cli_flag(a, "addr32"), .binary_version = (int)bv};
    macsim_summary ms;
    trace_convert_summary s = {0};
    base_err e = {0};
    int rc = macsim_to_accelsim(src, tmp, &o, &ms, &e) ||
             trace_convert_native(tmp, out, level, &s, &e);
    remove_flat_dir(tmp);
    free(tmp);
    if (rc)
        return cli_error(&e);
    print_summary(out, &s);
    return 0;
}

static int convert_native(cli_args *a, const char *src, const char *out)
{
    int64_t level, bv;
    if (cli_get_i64(a, "level", 19, &level) || cli_get_i64(a, "binary-version", 80, &bv))
        return BASE_EXIT_USAGE;
    if (level < 0 || level > 22)
        return cli_usage_error(a->cmd, "--level: expected 0..22, found %lld", (long long)level);
    if (cli_flag(a, "xz"))
        return cli_usage_error(a->cmd, "--xz applies to --to accelsim only");
    if (macsim_detect(src)) {
        if (bv <= 0 || bv > 1000)
            return cli_usage_error(a->cmd, "--binary-version: expected a value like 61, 70 or "
                                   "80, found %lld", (long long)bv);
        return macsim_to_native(a, src, out, (int)level, bv);
    }
    if (cli_get(a, "binary-version") || cli_flag(a, "addr32"))
        return cli_usage_error(a->cmd, "--binary-version and --addr32 apply to MacSim sources "
                               "only; '%s' is an Accel-Sim or native trace", src);
    trace_convert_summary s = {0};
    base_err e = {0};
    if (trace_convert_native(src, out, (int)level, &s, &e))
        return cli_error(&e);
    print_summary(out, &s);
    return 0;
}

static int convert_accelsim(cli_args *a, const char *src, const char *out)
{
    int64_t bv;
    if (cli_get_i64(a, "binary-version", 80, &bv))
        return BASE_EXIT_USAGE;
    if (bv <= 0 || bv > 1000)
        return cli_usage_error(a->cmd, "--binary-version: expected a value like 61, 70 or 80, "
                               "found %lld", (long long)bv);
    if (cli_get(a, "level"))
        return cli_usage_error(a->cmd, "--level applies to --to native only");
    if (!macsim_detect(src))
        return export_accelsim(a, src, out);
    macsim_opts o = {.addr32 = cli_flag(a, "addr32"), .binary_version = (int)bv,
                     .xz = cli_flag(a, "xz")};
    macsim_summary s;
    base_err e = {0};
    if (macsim_to_accelsim(src, out, &o, &s, &e))
        return cli_error(&e);
    printf("%s: wrote %llu kernels, %llu CTAs, %llu warp instructions, %llu thread "
           "instructions, %llu memory instructions\n", out, (unsigned long long)s.kernels,
           (unsigned long long)s.ctas, (unsigned long long)s.insts,
           (unsigned long long)s.thread_insts, (unsigned long long)s.mem_insts);
    return 0;
}

/* Output formats of `trace convert`; a new one is one more row. */
static const struct {
    const char *name;
    int (*run)(cli_args *a, const char *src, const char *out);
} TARGETS[] = {
    {"accelsim", convert_accelsim},
    {"native", convert_native},
};

static int convert(cli_args *a, const char *src)
{
    const char *to = cli_get(a, "to"), *out = cli_get(a, "out");
    if (!to || !out)
        return cli_usage_error(a->cmd, "usage: lockstep trace convert --to FORMAT SRC --out DIR");
    for (size_t i = 0; i < BASE_ARRAY_LEN(TARGETS); i++)
        if (!strcmp(to, TARGETS[i].name))
            return TARGETS[i].run(a, src, out);
    return cli_usage_error(a->cmd, "--to: unknown format '%s' (accelsim, native)", to);
}

static int run(cli_args *a)
{
    base_err e = {0};
    const char *sub = a->pos[0], *path = a->npos == 2 ? a->pos[1] : NULL;
    if (!path)
        return cli_usage_error(a->cmd, "usage: lockstep trace info|check|convert PATH");
    if (!strcmp(sub, "convert"))
        return cli_flag(a, "json") ? cli_usage_error(a->cmd, "--json applies to 'trace info' "
                                                     "only") : convert(a, path);
    for (size_t i = 0; i < BASE_ARRAY_LEN(CONVERT_ONLY); i++)
        if (cli_get(a, CONVERT_ONLY[i]))
            return cli_usage_error(a->cmd, "--%s applies to 'trace convert' only",
                                   CONVERT_ONLY[i]);
    int macsim = macsim_detect(path), rc;
    macsim_opts o = {.addr32 = cli_flag(a, "addr32")};
    if (!strcmp(sub, "info")) {
        rc = macsim ? macsim_info(path, &o, stdout, cli_flag(a, "json"), &e)
                    : trace_info(path, stdout, cli_flag(a, "json"), &e);
    } else if (!strcmp(sub, "check")) {
        if (cli_flag(a, "json"))
            return cli_usage_error(a->cmd, "--json applies to 'trace info' only");
        rc = macsim ? macsim_check(path, &o, stdout, &e) : trace_check(path, stdout, &e);
    } else {
        return cli_usage_error(a->cmd, "unknown trace subcommand '%s' (info, check, convert)",
                               sub);
    }
    return rc ? cli_error(&e) : 0;
}

const cli_cmd cli_cmd_trace = {
    "trace",
    "lockstep trace info|check PATH [--json] | trace convert --to accelsim|native SRC --out DIR",
    "report, validate or convert a trace (Accel-Sim or MacSim, recognised by content)",
    "  trace info PATH    per kernel and in total: name, grid, block, registers, shared\n"
    "                     memory, CTAs, warps, warp and thread instructions, opcode-class mix,\n"
    "                     memory instructions by space; memcpys and other commands\n"
    "  trace check PATH   validates every command, header and line; the first problem is\n"
    "                     reported as FILE:LINE (or FILE: byte offset N) and the exit status\n"
    "                     is 3\n"
    "  trace convert --to accelsim SRC --out DIR [--binary-version=80] [--xz]\n"
    "                     writes the MacSim GPU trace SRC as an Accel-Sim trace directory\n"
    "                     with the same warp, thread and memory instruction counts; an\n"
    "                     Accel-Sim or native SRC is written back as Accel-Sim text that\n"
    "                     reads to the same instructions\n"
    "  trace convert --to native SRC --out DIR [--level=19] [--binary-version=80]\n"
    "                     writes an Accel-Sim, native or MacSim GPU trace in lockstep's native\n"
    "                     binary form (docs/NATIVE.md): kernel-N.lsn.traceg files, several\n"
    "                     times smaller than .traceg.xz and read far faster; run, info and\n"
    "                     check read it directly (a MacSim source goes through Accel-Sim\n"
    "                     text of --binary-version, as with --to accelsim)\n"
    "Accel-Sim: PATH is a directory, kernelslist.g, or one .traceg[.xz]. Kernel files may be\n"
    "plain, xz-compressed or native; the format is detected from the content. Tracer versions 0-6\n"
    "(.traceg text; the v6 .tracez container is not read yet) and binary versions from Kepler\n"
    "(35) to Hopper (90).\n"
    "MacSim (docs/MACSIM.md): PATH is a directory holding kernel_config.txt (or one x86/a64\n"
    "config), or the kernel_config.txt, Trace.txt or CPU config file itself. GPU types\n"
    "newptx, ptx and nvbit (version 14; newptx 131 is remapped), CPU x86 and a64. info also\n"
    "reports the instructions MacSim retires (INST_COUNT_TOT): one fewer per warp or thread.",
    OPTS, 0, 1, 2, run, 0, NULL,
};
