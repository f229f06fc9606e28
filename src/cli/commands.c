/* commands.c — the list of `floe` subcommands (see commands.h). */
#include <stddef.h>

#include "cli/commands.h"

const floe_cli_command floe_cli_commands[] = {
    {NULL, NULL, NULL},
};
