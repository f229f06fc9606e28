/*
 * cmd_cat.h — the `cat` sub-command every file format shares
 * (`floe parquet cat`, `floe orc cat`): options, column list, limit and the
 * streaming print, over a format's reader given as four functions.
 */
#ifndef FLOE_CLI_CMD_CAT_H
#define FLOE_CLI_CMD_CAT_H

#include "floe/columnar.h"
#include "floe/status.h"

typedef struct floe_cli_cat_reader {
    const char *format; /* "parquet", "orc": in the usage text */
    /* Open `file` reading `columns` (n 0: every top-level column). */
    floe_status (*open)(const char *file, const char *const *columns, int n, void **reader);
    const floe_schema *(*schema)(void *reader);
    floe_status (*next)(void *reader, floe_batch **out); /* *out NULL at the end */
    void (*close)(void *reader);
} floe_cli_cat_reader;

/* floe <format> cat FILE [--columns a,b] [--limit N] [--format table|csv|jsonl]
 * (argv[0] is "cat"). */
floe_status floe_cli_cat(const floe_cli_cat_reader *fmt, int argc, char **argv);

#endif
