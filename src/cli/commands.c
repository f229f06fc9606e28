/* commands.c — the list of `floe` subcommands (see commands.h). */
#include <stddef.h>

#include "cli/commands.h"

const floe_cli_command floe_cli_commands[] = {
    {"avro", "inspect Avro files: schema, meta, cat", floe_cli_avro},
    {"inspect", "show an Iceberg table: metadata, snapshots, live files", floe_cli_inspect},
    {"plan", "show how a scan of an Iceberg table splits into task groups", floe_cli_plan},
    {"orc", "inspect ORC files: schema, meta, cat", floe_cli_orc},
    {"parquet", "inspect Parquet files: schema, meta, cat", floe_cli_parquet},
    {"scan", "read the rows of an Iceberg table (one task at a time)", floe_cli_scan},
    {"serve", "serve SQL over the PostgreSQL wire protocol (psql, drivers)", floe_cli_serve},
    {"rest-server", "serve the Iceberg REST catalog protocol from a warehouse", floe_cli_rest_server},
    {"tpch", "generate the TPC-H tables (Iceberg or Parquet)", floe_cli_tpch},
    {NULL, NULL, NULL},
};
