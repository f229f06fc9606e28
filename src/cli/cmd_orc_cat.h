/*
 * cmd_orc_cat.h — `floe orc cat`, a row of cmd_orc.c's
 * sub-command table.
 */
#ifndef FLOE_CLI_CMD_ORC_CAT_H
#define FLOE_CLI_CMD_ORC_CAT_H

#include "floe/status.h"

/* floe orc cat FILE [--columns a,b] [--limit N] [--format table|csv|jsonl]
 * argv[0] is "cat". */
floe_status floe_cli_orc_cat(int argc, char **argv);

#endif
