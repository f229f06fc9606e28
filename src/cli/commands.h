/*
 * commands.h — the table of `floe` subcommands.  Each lives in its own
 * cli/cmd_<name>.c and is listed in commands.c.
 */
#ifndef FLOE_CLI_COMMANDS_H
#define FLOE_CLI_COMMANDS_H

#include "floe/status.h"

typedef struct floe_cli_command {
    const char *name;
    const char *summary;
    /* argv[0] is the command name itself. */
    floe_status (*run)(int argc, char **argv);
} floe_cli_command;

floe_status floe_cli_avro(int argc, char **argv); /* cli/cmd_avro.c */

floe_status floe_cli_orc(int argc, char **argv); /* cli/cmd_orc.c */

floe_status floe_cli_parquet(int argc, char **argv); /* cli/cmd_parquet.c */

floe_status floe_cli_inspect(int argc, char **argv); /* cli/cmd_inspect.c */

floe_status floe_cli_plan(int argc, char **argv); /* cli/cmd_plan.c */

floe_status floe_cli_scan(int argc, char **argv); /* cli/cmd_scan.c */

floe_status floe_cli_rest_server(int argc, char **argv); /* cli/rest_server/server.c */

floe_status floe_cli_serve(int argc, char **argv); /* cli/cmd_serve.c */

floe_status floe_cli_tpch(int argc, char **argv); /* cli/cmd_tpch.c */

/* Terminated by an entry whose name is NULL. */
extern const floe_cli_command floe_cli_commands[];

#endif
