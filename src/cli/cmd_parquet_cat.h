/*
 * cmd_parquet_cat.h — `floe parquet cat`, a row of cmd_parquet.c's
 * sub-command table.
 */
#ifndef FLOE_CLI_CMD_PARQUET_CAT_H
#define FLOE_CLI_CMD_PARQUET_CAT_H

#include "floe/status.h"

/* floe parquet cat FILE [--columns a,b] [--limit N] [--format table|csv|jsonl]
 * argv[0] is "cat". */
floe_status floe_cli_parquet_cat(int argc, char **argv);

#endif
