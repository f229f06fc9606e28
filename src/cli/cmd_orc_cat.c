/*
 * cmd_orc_cat.c — `floe orc cat`: the shared cat command (cmd_cat.c) over
 * the ORC reader.
 */
#include "cli/cmd_orc_cat.h"
#include "cli/cmd_cat.h"
#include "formats/orc/reader.h"

static floe_status orc_open(const char *file, const char *const *columns, int n, void **out) {
    floe_orc_read_options o = {0};
    o.columns = columns;
    o.num_columns = n;
    floe_orc_reader *r = NULL;
    FLOE_TRY(floe_orc_reader_open_path(file, &o, &r));
    *out = r;
    return NULL;
}
static const floe_schema *orc_schema(void *r) { return floe_orc_reader_schema(r); }
static floe_status orc_next(void *r, floe_batch **out) { return floe_orc_reader_next(r, out); }
static void orc_close(void *r) { floe_orc_reader_close(r); }

static const floe_cli_cat_reader orc_reader = {"orc", orc_open, orc_schema, orc_next, orc_close};

floe_status floe_cli_orc_cat(int argc, char **argv) { return floe_cli_cat(&orc_reader, argc, argv); }
