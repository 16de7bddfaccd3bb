/* lockstep config {show,import,presets,docs}: inspect and convert GPU configurations. */
#include "cli.h"

#include "knob/preset.h"

#include <string.h>

static const cli_opt OPTS[] = {
    {"json", 0, NULL, "show: print the resolved table as JSON"},
    {"changed", 0, NULL, "show/import: only knobs whose value differs from the built-in default"},
    {"out", 1, "FILE", "import: write to FILE (atomically) instead of stdout"},
    {NULL, 0, NULL, NULL},
};

static int show(cli_args *a)
{
    if (cli_flag(a, "json")) {
        base_json j;
        base_json_init(&j, stdout);
        knob_echo_json(&j, &a->knobs);
        return 0;
    }
    if (cli_flag(a, "changed"))
        knob_write_params(stdout, &a->knobs, 1);
    else
        knob_echo_text(stdout, &a->knobs, "");
    return 0;
}

/* `config import FILES...`: the files are loaded in order like repeated --config. */
static int import(cli_args *a)
{
    base_err e = {0};
    if (a->npos < 2)
        return cli_usage_error(a->cmd, "config import needs at least one FILE");
    for (int i = 1; i < a->npos; i++)
        if (knob_load_file(&a->knobs, a->pos[i], &e))
            return cli_error(&e);
    if (knob_validate(&a->knobs, &e))
        return cli_error(&e);
    cli_warn_unmodelled(&a->knobs);
    base_out o;
    const char *path = cli_get(a, "out") ? cli_get(a, "out") : "-";
    if (base_out_open(&o, path, &e))
        return cli_error(&e);
    fprintf(o.f, "# lockstep params, imported by 'lockstep config import");
    for (int i = 1; i < a->npos; i++)
        fprintf(o.f, " %s", a->pos[i]);
    fprintf(o.f, "'\n# Load with: lockstep run --config FILE ...\n");
    if (a->knobs.nunmodelled)
        fprintf(o.f, "# not modelled (ignored): %s\n", a->knobs.unmodelled.s);
    knob_write_params(o.f, &a->knobs, cli_flag(a, "changed"));
    if (base_out_commit(&o, &e))
        return cli_error(&e);
    return 0;
}

static int run(cli_args *a)
{
    const char *sub = a->npos ? a->pos[0] : "show";
    if (!strcmp(sub, "show")) {
        if (a->npos > 1)
            return cli_usage_error(a->cmd, "config show takes no files; use --config=FILE");
        cli_warn_unmodelled(&a->knobs);
        return show(a);
    }
    if (!strcmp(sub, "import"))
        return import(a);
    if (!strcmp(sub, "presets")) {
        for (int i = 0; i < knob_npresets; i++) {
            const char *t = knob_presets[i].text;
            const char *nl = strchr(t, '\n');
            printf("%-10s %.*s%s\n", knob_presets[i].name, (int)(nl ? nl - t : (long)strlen(t)),
                   t, strcmp(knob_presets[i].name, KNOB_DEFAULT_PRESET) ? "" : " [default]");
        }
        return 0;
    }
    if (!strcmp(sub, "docs")) {
        knob_write_docs(stdout);
        return 0;
    }
    return cli_usage_error(a->cmd, "unknown config subcommand '%s' (show, import, presets, docs)",
                           sub);
}

const cli_cmd cli_cmd_config = {
    "config",
    "lockstep config show|import|presets|docs [--preset=P | --config=F...] [FILES...]",
    "show the resolved knob table, import GPGPU-Sim/Accel-Sim configs, list presets",
    "  config show [--json|--changed]   every knob with its value and where it came from\n"
    "  config import FILES... [--out F] GPGPU-Sim/Accel-Sim configs (or lockstep params) ->\n"
    "                                   lockstep params format, e.g.\n"
    "      lockstep config import gpgpusim.config trace.config > x.cfg\n"
    "  config presets                   the built-in presets\n"
    "  config docs                      the knob reference in Markdown (docs/KNOBS.md)\n"
    "Options lockstep does not model are named in one warning line on stderr.",
    OPTS, 1, 0, 64, run, 0, NULL,
};
