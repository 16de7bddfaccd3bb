/* lockstep: one binary, subcommands. */
#include "cli.h"

#include "base/heap.h"

#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static const cli_cmd *const COMMANDS[] = {&cli_cmd_run, &cli_cmd_occupancy, &cli_cmd_trace,
                                          &cli_cmd_synth, &cli_cmd_config};

static void usage(FILE *f)
{
    fprintf(f, "lockstep %s: a cycle-level, trace-driven GPU (SIMT) simulator\n\n"
               "usage: lockstep COMMAND [OPTIONS] [ARGS]\n\ncommands:\n",
            LOCKSTEP_VERSION);
    for (size_t i = 0; i < BASE_ARRAY_LEN(COMMANDS); i++)
        fprintf(f, "  %-10s %s\n", COMMANDS[i]->name, COMMANDS[i]->summary);
    fprintf(f, "\n'lockstep COMMAND --help' describes a command. Options are --name=value or\n"
               "--name value. Exit codes: 0 ok, 1 internal error, 2 usage error, 3 bad input.\n");
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* glibc raises its mmap threshold after the first large free (the config reader's
     * buffer), and then zeroes every later large calloc by hand: a fixed threshold keeps
     * big, mostly unused tables (DRAM queues, MSHR pools) untouched and out of the RSS.
     * `run` on a huge-page heap raises it again (base_heap_hugepages): there a fresh block
     * costs nothing until touched either. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    base_heap_prefault();
    if (argc < 2) {
        usage(stderr);
        return BASE_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        if (argc > 2)
            for (size_t i = 0; i < BASE_ARRAY_LEN(COMMANDS); i++)
                if (!strcmp(argv[2], COMMANDS[i]->name)) {
                    cli_print_help(stdout, COMMANDS[i]);
                    return 0;
                }
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "--version")) {
        printf("lockstep %s\n", LOCKSTEP_VERSION);
        return 0;
    }
    for (size_t i = 0; i < BASE_ARRAY_LEN(COMMANDS); i++) {
        if (strcmp(name, COMMANDS[i]->name) != 0)
            continue;
        cli_args a;
        int rc = cli_parse(COMMANDS[i], argc - 2, argv + 2, &a);
        if (rc == 0)
            rc = COMMANDS[i]->run(&a);
        else if (rc < 0)
            rc = 0; /* --help */
        cli_args_free(&a);
        return rc;
    }
    fprintf(stderr, "lockstep: error: unknown command '%s'\n", name);
    usage(stderr);
    return BASE_EXIT_USAGE;
}
