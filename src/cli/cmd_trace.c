/* lockstep trace {info,check}: inspect and validate traces. */
#include "cli.h"

#include "trace/trace.h"

#include <string.h>

static const cli_opt OPTS[] = {
    {"json", 0, NULL, "info: print JSON instead of text"},
    {NULL, 0, NULL, NULL},
};

static int run(cli_args *a)
{
    base_err e = {0};
    const char *sub = a->pos[0];
    if (a->npos != 2)
        return cli_usage_error(a->cmd, "usage: lockstep trace info|check PATH");
    if (!strcmp(sub, "info")) {
        if (trace_info(a->pos[1], stdout, cli_flag(a, "json"), &e))
            return cli_error(&e);
        return 0;
    }
    if (!strcmp(sub, "check")) {
        if (cli_flag(a, "json"))
            return cli_usage_error(a->cmd, "--json applies to 'trace info' only");
        if (trace_check(a->pos[1], stdout, &e))
            return cli_error(&e);
        return 0;
    }
    return cli_usage_error(a->cmd, "unknown trace subcommand '%s' (info, check)", sub);
}

const cli_cmd cli_cmd_trace = {
    "trace",
    "lockstep trace info|check PATH [--json]",
    "report or validate an Accel-Sim trace (directory, kernelslist.g, or one .traceg[.xz])",
    "  trace info PATH    per kernel and in total: name, grid, block, registers, shared\n"
    "                     memory, CTAs, warps, warp and thread instructions, opcode-class mix,\n"
    "                     memory instructions by space; memcpys and other commands\n"
    "  trace check PATH   validates every command, header and line; the first problem is\n"
    "                     reported as FILE:LINE and the exit status is 3\n"
    "Kernel files may be plain or xz-compressed (.traceg.xz); compression is detected from\n"
    "the content. Tracer versions 0-6 (.traceg text; the v6 .tracez container is not read\n"
    "yet) and binary versions from Kepler (35) to Hopper (90).",
    OPTS, 0, 1, 2, run, 0,
};
