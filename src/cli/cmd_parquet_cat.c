/*
 * cmd_parquet_cat.c — `floe parquet cat`: the shared cat command
 * (cmd_cat.c) over the Parquet reader; columns are logical dotted paths.
 */
#include "cli/cmd_parquet_cat.h"
#include "cli/cmd_cat.h"
#include "formats/parquet/reader.h"

static floe_status pq_open(const char *file, const char *const *columns, int n, void **out) {
    floe_pq_read_options o = {0};
    o.columns = columns;
    o.num_columns = n;
    floe_pq_reader *r = NULL;
    FLOE_TRY(floe_pq_reader_open_path(file, &o, &r));
    *out = r;
    return NULL;
}
static const floe_schema *pq_schema(void *r) { return floe_pq_reader_schema(r); }
static floe_status pq_next(void *r, floe_batch **out) { return floe_pq_reader_next(r, out); }
static void pq_close(void *r) { floe_pq_reader_close(r); }

static const floe_cli_cat_reader pq_reader = {"parquet", pq_open, pq_schema, pq_next, pq_close};

floe_status floe_cli_parquet_cat(int argc, char **argv) { return floe_cli_cat(&pq_reader, argc, argv); }
