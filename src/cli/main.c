/*
 * main.c — the `floe` program: the SQL front and the file tools.
 *
 *   floe [--format F] [--warehouse DIR] [-c SQL | -f FILE]...  (cli/shell.c)
 *   floe --catalog rest:URL [--catalog-credential ID:SECRET] ...  (a REST
 *        catalog; cli/catalog_config.c)
 *   floe --version | --help
 *   floe parquet schema|meta|cat FILE ...   (cli/cmd_parquet.c)
 *   floe avro schema|meta|cat FILE ...      (cli/cmd_avro.c)
 *   floe inspect|plan|scan TABLE ...        (cli/cmd_*.c)
 *
 * A first argument naming a subcommand runs it; it returns a floe_status
 * and main prints the error as "floe: <message>" on stderr and exits
 * non-zero.  Anything else (no arguments, or options) is the SQL front.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/shell.h"
#include "floe/dist.h"
#include "floe/memory.h"
#include "floe/version.h"

static void usage(FILE *out) {
    fputs("usage: floe [--format table|csv|jsonl] [--warehouse DIR | --catalog ...] [-c SQL | -f FILE]...\n"
          "       floe COMMAND ...\n"
          "\n"
          "floe reads and writes Apache Iceberg tables in parallel.\n"
          "\n", out);
    floe_cli_sql_usage(out);
    fputs("\n"
          "Commands:\n", out);
    for (const floe_cli_command *c = floe_cli_commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fputs("\n"
          "Options:\n"
          "  --version  print the version and exit\n"
          "  --help     print this help and exit\n"
          "\n"
          "Environment:\n"
          "  FLOE_WAREHOUSE=DIR              default warehouse directory\n"
          "  FLOE_CATALOG_CREDENTIAL=ID:SECRET, FLOE_CATALOG_TOKEN=T\n"
          "                                  REST catalog credentials (see --catalog)\n"
          "  FLOE_THREADS=N                  worker threads (default: CPUs)\n"
          "  FLOE_LOG=error|warn|info|debug  log level (default warn); secrets are redacted\n", out);
}

static int floe_main(int argc, char **argv);

/* Under mpirun (include/floe/dist.h) rank 0 runs the program as usual and
 * its sessions run queries on every rank; the other ranks run the worker
 * loop until rank 0 finishes.  A plain process never touches MPI. */
int main(int argc, char **argv) {
    floe_memory_tune_process();
    if (!floe_dist_launched()) return floe_main(argc, argv);
    int rank = 0;
    floe_status st = floe_dist_init(&argc, &argv, &rank);
    if (st) {
        fprintf(stderr, "floe: rank %d: %s\n", rank, floe_status_message(st));
        floe_status_free(st);
        floe_dist_finalize();
        return 1;
    }
    int rc = rank == 0 ? floe_main(argc, argv) : floe_dist_worker_main();
    floe_dist_finalize();
    return rc;
}

static int floe_main(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
        printf("floe %s\n", FLOE_VERSION_STRING);
        return 0;
    }
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    for (const floe_cli_command *c = floe_cli_commands; argc >= 2 && c->name; c++) {
        if (strcmp(argv[1], c->name) == 0) {
            /* --help anywhere after a command ("floe parquet schema --help")
             * prints that command's usage; every command takes it first */
            char *help[3] = {argv[1], "--help", NULL};
            bool wants_help = false;
            for (int i = 2; i < argc; i++) wants_help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
            floe_status st = wants_help ? c->run(2, help) : c->run(argc - 1, argv + 1);
            if (st) {
                fprintf(stderr, "floe: %s\n", floe_status_message(st));
                floe_status_free(st);
                return 1;
            }
            return 0;
        }
    }
    return floe_cli_sql_main(argc, argv);
}
