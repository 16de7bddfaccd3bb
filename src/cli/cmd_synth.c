/* lockstep synth: write a synthetic workload as an Accel-Sim trace directory. */
#include "cli.h"

#include "synth/synth.h"

#include <inttypes.h>
#include <string.h>

static const cli_opt OPTS[] = {
    {"out", 1, "DIR", "output directory (created if missing; kernel files are replaced)"},
    {"xz", 0, NULL, "compress kernel files (kernel-N.traceg.xz)"},
    {"list", 0, NULL, "list the workloads"},
    {NULL, 0, NULL, NULL},
};

static int help_word(FILE *f, const char *word)
{
    const synth_def *d = synth_find(word);
    if (!d)
        return -1;
    synth_print_params(f, d);
    return 0;
}

static int run(cli_args *a)
{
    if (cli_flag(a, "list") || a->npos == 0) {
        if (a->npos == 0 && !cli_flag(a, "list"))
            return cli_usage_error(a->cmd, "name a workload (lockstep synth --list)");
        synth_print_list(stdout);
        return 0;
    }
    const synth_def *d = synth_find(a->pos[0]);
    if (!d) {
        base_nearest near;
        char buf[200];
        base_nearest_init(&near, a->pos[0]);
        for (size_t i = 0; i < synth_count(); i++)
            base_nearest_add(&near, synth_at(i)->name);
        base_nearest_format(&near, buf, sizeof buf);
        return cli_usage_error(a->cmd, "unknown workload '%s' (closest: %s)", a->pos[0], buf);
    }
    base_err e = {0};
    synth_values sv;
    synth_values_init(&sv, d);
    for (int i = 0; i < a->nextra; i++)
        if (synth_values_set(&sv, a->extra[i].name, a->extra[i].value, &e))
            return cli_usage_error(a->cmd, "%s", e.msg);
    const char *out = cli_get(a, "out");
    if (!out) {
        synth_print_params(stdout, d);
        return cli_usage_error(a->cmd, "--out DIR is required");
    }
    synth_result r;
    if (synth_write(&sv, out, cli_flag(a, "xz"), &r, &e))
        return cli_error(&e);
    printf("%s: %s: %" PRIu64 " kernel%s, %" PRIu64 " memcpys, %" PRIu64 " CTAs, %" PRIu64
           " warps, %" PRIu64 " warp instructions, %" PRIu64 " thread instructions, %" PRIu64
           " bytes of trace text\n",
           out, d->name, r.kernels, r.kernels == 1 ? "" : "s", r.memcpys, r.ctas, r.warps,
           r.warp_insts, r.thread_insts, r.bytes);
    return 0;
}

const cli_cmd cli_cmd_synth = {
    "synth",
    "lockstep synth WORKLOAD [--PARAM=VALUE ...] --out DIR [--xz] | --list",
    "write a synthetic CUDA workload as an Accel-Sim trace directory (sm_80 SASS)",
    "Writes DIR/kernelslist.g (with MemcpyHtoD lines), DIR/kernel-N.traceg[.xz] (tracer\n"
    "version 5 lines, as the Accel-Sim tools write them) and DIR/synth.txt (every parameter\n"
    "value, and the command that reproduces the directory). Output depends only on the\n"
    "parameters and --seed: the same command writes byte-identical files.\n"
    "'lockstep synth WORKLOAD --help' lists a workload's parameters.",
    OPTS, 0, 0, 1, run, 1, help_word,
};
