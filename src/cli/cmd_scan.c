/*
 * cmd_scan.c — `floe scan`: read the rows of an Iceberg table.
 *
 *   floe scan TABLE_DIR_OR_METADATA [--snapshot ID|REF] [--as-of-ms TS]
 *             [--columns a,b] [--filter-json EXPR] [--allow-moved-paths]
 *             [--format table|csv|jsonl] [--limit N]
 *
 * Plans the scan with the planner (floe_ice_scan_plan_new), then reads
 * every task of every group in order with the task reader and prints the
 * rows.  This is the harness the expected-results tests drive; the engine
 * proper runs tasks in parallel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "columnar/printer.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"

#define SCAN_USAGE                                                                                 \
    "usage: floe scan TABLE_DIR_OR_METADATA [--snapshot ID|REF] [--as-of-ms TS]\n"                \
    "                 [--columns a,b] [--filter-json EXPR] [--allow-moved-paths]\n"               \
    "                 [--format table|csv|jsonl] [--limit N]"

typedef struct scan_args {
    const char *path;
    const char *snapshot;
    const char *as_of;
    char *columns;
    const char *filter_json;
    bool moved;
    floe_print_format format;
    int64_t limit;
} scan_args;

static floe_status parse_args(int argc, char **argv, scan_args *a) {
    memset(a, 0, sizeof *a);
    a->format = FLOE_PRINT_TABLE;
    a->limit = -1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(s, "--allow-moved-paths")) a->moved = true;
        else if (!strcmp(s, "--snapshot") && has_next) a->snapshot = argv[++i];
        else if (!strcmp(s, "--as-of-ms") && has_next) a->as_of = argv[++i];
        else if (!strcmp(s, "--columns") && has_next) a->columns = argv[++i];
        else if (!strcmp(s, "--filter-json") && has_next) a->filter_json = argv[++i];
        else if (!strcmp(s, "--format") && has_next) FLOE_TRY(floe_print_format_parse(argv[++i], &a->format));
        else if (!strcmp(s, "--limit") && has_next) {
            char *end;
            errno = 0;
            a->limit = strtoll(argv[++i], &end, 10);
            if (errno || *end || a->limit < 0)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "bad --limit '%s'\n%s", argv[i], SCAN_USAGE);
        } else if (s[0] == '-' || a->path)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unexpected argument '%s'\n%s", s, SCAN_USAGE);
        else a->path = s;
    }
    if (!a->path) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s", SCAN_USAGE);
    return NULL;
}

/* The selector from --snapshot (numeric id, else a ref) and --as-of-ms. */
static floe_status make_selector(const scan_args *a, floe_ice_snapshot_selector *sel) {
    memset(sel, 0, sizeof *sel);
    sel->kind = FLOE_ICE_SELECT_CURRENT;
    if (a->snapshot) {
        char *end;
        errno = 0;
        long long v = strtoll(a->snapshot, &end, 10);
        if (!errno && !*end && end != a->snapshot) {
            sel->kind = FLOE_ICE_SELECT_ID;
            sel->snapshot_id = v;
        } else {
            sel->kind = FLOE_ICE_SELECT_REF;
            sel->ref = a->snapshot;
        }
    }
    if (a->as_of) {
        char *end;
        errno = 0;
        long long v = strtoll(a->as_of, &end, 10);
        if (errno || *end || end == a->as_of)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "bad --as-of-ms '%s'", a->as_of);
        sel->kind = FLOE_ICE_SELECT_AS_OF;
        sel->timestamp_ms = v;
    }
    return NULL;
}

/* Field ids of --columns names in `schema` (top-level names). */
static floe_status column_ids(char *cols, const floe_ice_schema *schema, int32_t **ids, int32_t *n) {
    *ids = NULL;
    *n = 0;
    if (!cols) return NULL;
    size_t cap = 1;
    for (const char *p = cols; *p; p++) cap += *p == ',';
    *ids = floe_calloc(cap, sizeof **ids);
    if (!*ids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scan");
    for (char *p = cols; p && *p;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        const floe_ice_field *f = floe_ice_schema_find_by_name(schema, p, true);
        if (!f || floe_ice_schema_parent_id(schema, f->id) >= 0)
            return floe_error(FLOE_ERR_NOT_FOUND, "no top-level column '%s'", p);
        (*ids)[(*n)++] = f->id;
        p = comma ? comma + 1 : NULL;
    }
    return NULL;
}

/* Print the rows of every task of the plan; `left` counts down the limit. */
static floe_status run_plan(const floe_ice_table *t, floe_ice_scan_plan *plan, const scan_args *a) {
    const floe_ice_schema *schema = floe_ice_tm_schema(t->md, plan->schema_id);
    if (!schema) schema = floe_ice_tm_current_schema(t->md);
    floe_ice_task_read_options ro = {0};
    ro.table = t;
    ro.schema = schema;
    ro.field_ids = plan->n_projected ? plan->projected : NULL;
    ro.n_field_ids = plan->n_projected;
    floe_schema *out_schema = NULL;
    FLOE_TRY(floe_ice_schema_to_columnar(schema, ro.field_ids, ro.n_field_ids, &out_schema));
    floe_print_options po;
    floe_print_options_init(&po, a->format);
    floe_printer *pr = NULL;
    floe_status st = floe_printer_new(&po, stdout, NULL, &pr);
    if (!st) st = floe_printer_begin(pr, out_schema);
    int64_t done = 0;
    for (int32_t g = 0; g < plan->n_groups && !st; g++) {
        const floe_ice_scan_group *grp = plan->groups[g];
        for (int32_t k = 0; grp && k < grp->n_tasks && !st; k++) {
            if (a->limit >= 0 && done >= a->limit) break;
            floe_ice_task_reader *r = NULL;
            st = floe_ice_task_reader_open(&ro, &grp->tasks[k], &r);
            while (!st && (a->limit < 0 || done < a->limit)) {
                floe_batch *b = NULL;
                st = floe_ice_task_reader_next(r, &b);
                if (st || !b) break;
                if (a->limit >= 0 && b->num_rows > a->limit - done) {
                    floe_batch *s = NULL;
                    st = floe_batch_slice(b, 0, a->limit - done, &s);
                    floe_batch_release(b);
                    if (st) break;
                    b = s;
                }
                done += b->num_rows;
                st = floe_printer_add_batch(pr, b);
                floe_batch_release(b);
            }
            floe_ice_task_reader_close(r);
        }
    }
    if (!st) st = floe_printer_end(pr);
    floe_printer_free(pr);
    floe_type_release(out_schema);
    return st;
}

floe_status floe_cli_scan(int argc, char **argv) {
    scan_args a;
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        puts(SCAN_USAGE);
        return NULL;
    }
    FLOE_TRY(parse_args(argc, argv, &a));
    floe_ice_snapshot_selector sel;
    FLOE_TRY(make_selector(&a, &sel));
    floe_ice_table *t = NULL;
    FLOE_TRY(floe_ice_table_open(NULL, a.path, a.moved, &t));
    floe_ice_expr *filter = NULL;
    int32_t *ids = NULL, n_ids = 0;
    floe_ice_scan_plan *plan = NULL;
    floe_status st = NULL;
    if (a.filter_json) st = floe_ice_expr_from_json_text(a.filter_json, &filter);
    if (!st) st = column_ids(a.columns, floe_ice_tm_current_schema(t->md), &ids, &n_ids);
    if (!st) st = floe_ice_scan_plan_new(t, &sel, ids, n_ids, filter, NULL, &plan);
    if (!st) st = run_plan(t, plan, &a);
    floe_ice_scan_plan_free(plan);
    floe_ice_expr_free(filter);
    floe_free(ids);
    floe_ice_table_free(t);
    return st;
}
