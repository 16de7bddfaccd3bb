/* lockstep occupancy: resident CTAs per SM and what limits them. */
#include "cli.h"

#include "cta/occupancy.h"

static const cli_opt OPTS[] = {
    {"threads", 1, "T", "threads per CTA (required)"},
    {"regs", 1, "R", "registers per thread (default 0)"},
    {"smem", 1, "BYTES", "shared memory per CTA in bytes (default 0)"},
    {"ctas", 1, "N", "CTAs in the grid: a small grid is spread over all SMs (default: unknown)"},
    {"json", 0, NULL, "print JSON instead of text"},
    {NULL, 0, NULL, NULL},
};

static int run(cli_args *a)
{
    int64_t threads, regs, smem, ctas;
    if (!cli_get(a, "threads"))
        return cli_usage_error(a->cmd, "--threads is required");
    if (cli_get_i64(a, "threads", 0, &threads) || cli_get_i64(a, "regs", 0, &regs) ||
        cli_get_i64(a, "smem", 0, &smem) || cli_get_i64(a, "ctas", 0, &ctas))
        return BASE_EXIT_USAGE;
    cli_warn_unmodelled(&a->knobs);
    cta_occupancy o;
    base_err e = {0};
    if (cta_occupancy_compute(&a->knobs.v, threads, regs, smem, ctas, &o, &e))
        return cli_error(&e);
    if (cli_flag(a, "json")) {
        base_json j;
        base_json_init(&j, stdout);
        cta_occupancy_json(&j, &a->knobs.v, threads, regs, smem, &o);
    } else {
        char mode[32];
        printf("GPU: %s (%lld SMs), occupancy_mode = %s\n", a->knobs.v.gpu_name,
               (long long)(a->knobs.v.n_clusters * a->knobs.v.cores_per_cluster),
               knob_enum_name(KNOB_ID_occupancy_mode, a->knobs.v.occupancy_mode, mode,
                              sizeof mode));
        cta_occupancy_print(stdout, &a->knobs.v, threads, regs, smem, &o);
    }
    return 0;
}

const cli_cmd cli_cmd_occupancy = {
    "occupancy",
    "lockstep occupancy [--preset=P | --config=F...] --threads=T [--regs=R] [--smem=BYTES]",
    "maximum resident CTAs per SM and every resource that limits it",
    "Applies the GPU's per-SM limits (threads/warp slots, registers, shared memory with its\n"
    "carve-out and allocation granularity, the CTA cap); the smallest wins and every binding\n"
    "limit is named. --occupancy_mode=gpgpusim|cuda chooses the rounding rules. Note: here\n"
    "--threads is the CTA size, not the simulator's thread count.",
    OPTS, 1, 0, 0, run, 0, NULL,
};
