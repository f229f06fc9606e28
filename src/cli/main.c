/*
 * main.c — the `floe` program: dispatches to its subcommands.
 *
 *   floe --version | --help
 *   floe parquet schema|meta|cat FILE ...   (cli/cmd_parquet.c)
 *   floe avro schema|meta|cat FILE ...      (cli/cmd_avro.c)
 *
 * Every subcommand returns a floe_status; main prints the error as
 * "floe: <message>" on stderr and exits non-zero.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "floe/memory.h"
#include "floe/version.h"

static void usage(FILE *out) {
    fputs("usage: floe [OPTIONS] [COMMAND ...]\n"
          "\n"
          "floe reads and writes Apache Iceberg tables in parallel.\n"
          "\n"
          "Commands:\n", out);
    for (const floe_cli_command *c = floe_cli_commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fputs("\n"
          "Options:\n"
          "  --version  print the version and exit\n"
          "  --help     print this help and exit\n"
          "\n"
          "Environment:\n"
          "  FLOE_LOG=error|warn|info|debug  log level (default warn); secrets are redacted\n", out);
}

int main(int argc, char **argv) {
    floe_memory_tune_process();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("floe %s\n", FLOE_VERSION_STRING);
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    for (const floe_cli_command *c = floe_cli_commands; c->name; c++) {
        if (strcmp(argv[1], c->name) == 0) {
            floe_status st = c->run(argc - 1, argv + 1);
            if (st) {
                fprintf(stderr, "floe: %s\n", floe_status_message(st));
                floe_status_free(st);
                return 1;
            }
            return 0;
        }
    }
    fprintf(stderr, "floe: unknown command '%s' (try 'floe --help')\n", argv[1]);
    return 2;
}
