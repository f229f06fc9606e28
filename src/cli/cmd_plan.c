/*
 * cmd_plan.c — `floe plan`: how a scan of an Iceberg table would be split.
 *
 *   floe plan TABLE_DIR_OR_METADATA [--snapshot ID|REF] [--as-of-ms TS]
 *             [--filter-json EXPR_JSON] [--target-partitions N]
 *             [--allow-moved-paths] [--format table|jsonl]
 *
 * Prints the plan's statistics, then each task group (tasks, files, bytes,
 * rows) and its tasks (byte range, records, residual, deletes).  With
 * --format jsonl: one {"plan": ...} line, then one {"group": ...} line per
 * group and one {"task": ...} line per task.  Planning reads metadata only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/commands.h"
#include "floe/iceberg_scan.h"
#include "floe/memory.h"

static const char plan_usage[] =
    "usage: floe plan TABLE_DIR_OR_METADATA [--snapshot ID|REF] [--as-of-ms TS]\n"
    "                 [--filter-json EXPR_JSON] [--target-partitions N]\n"
    "                 [--allow-moved-paths] [--format table|jsonl]";

static floe_status usage_err(const char *why) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s\n%s", why, plan_usage);
}

static bool parse_i64(const char *s, int64_t *out) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end) return false;
    *out = (int64_t)v;
    return true;
}

static floe_status print_task_table(const floe_ice_scan_task *t) {
    char *res = NULL;
    FLOE_TRY(floe_ice_expr_to_string(t->residual, &res));
    printf("  %-60s %10" PRId64 " %10" PRId64 " %10" PRId64 " %3d %s\n", t->resolved_path, t->start, t->length,
           t->record_count, (int)t->n_deletes, res);
    for (int32_t i = 0; i < t->n_deletes; i++) {
        const floe_ice_scan_delete *d = t->deletes[i];
        printf("      delete %s%s seq %" PRId64 " %s", floe_ice_content_name(d->content), d->is_dv ? " (dv)" : "",
               d->sequence_number, d->resolved_path);
        if (d->is_dv) printf(" @%" PRId64 "+%" PRId64, d->content_offset, d->content_size_in_bytes);
        printf("\n");
    }
    floe_free(res);
    return NULL;
}

static floe_status print_line(json_t *j) {
    if (!j) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory printing a plan");
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory printing a plan");
    puts(s);
    free(s);
    return NULL;
}

static floe_status print_task_json(int32_t g, const floe_ice_scan_task *t) {
    char *res = NULL;
    FLOE_TRY(floe_ice_expr_to_json_text(t->residual, &res));
    json_t *jr = json_loads(res, JSON_DECODE_ANY, NULL);
    floe_free(res);
    json_t *dels = json_array();
    for (int32_t i = 0; dels && i < t->n_deletes; i++) {
        const floe_ice_scan_delete *d = t->deletes[i];
        json_array_append_new(
            dels, json_pack("{s:s,s:b,s:s,s:I,s:I,s:I}", "content", floe_ice_content_name(d->content), "dv", d->is_dv,
                            "path", d->resolved_path, "sequence_number", (json_int_t)d->sequence_number,
                            "content_offset", (json_int_t)d->content_offset, "content_size_in_bytes",
                            (json_int_t)d->content_size_in_bytes));
    }
    json_t *j = json_pack("{s:{s:i,s:s,s:s,s:I,s:I,s:I,s:I,s:i,s:o*,s:o*}}", "task", "group", (int)g, "path",
                          t->resolved_path, "format", t->format, "start", (json_int_t)t->start, "length",
                          (json_int_t)t->length, "record_count", (json_int_t)t->record_count, "sequence_number",
                          (json_int_t)t->sequence_number, "spec_id", (int)t->spec_id, "residual", jr, "deletes", dels);
    return print_line(j);
}

static floe_status print_plan(const floe_ice_scan_plan *p, bool jsonl) {
    const floe_ice_scan_stats *s = &p->stats;
    if (jsonl) {
        FLOE_TRY(print_line(json_pack("{s:{s:I,s:i,s:I,s:b,s:I,s:I,s:I,s:I,s:I,s:I}}", "plan", "snapshot_id",
                                      (json_int_t)p->snapshot_id, "groups", (int)p->n_groups, "rows",
                                      (json_int_t)s->rows, "rows_estimated", s->rows_estimated, "bytes",
                                      (json_int_t)s->bytes, "data_files", (json_int_t)s->n_data_files, "delete_files",
                                      (json_int_t)s->n_delete_files, "tasks", (json_int_t)s->n_tasks, "manifests",
                                      (json_int_t)s->n_manifests, "manifests_read", (json_int_t)s->n_manifests_read)));
    } else {
        printf("snapshot %" PRId64 ": %" PRId64 " tasks in %d groups, %" PRId64 " data files, %" PRId64
               " bytes, %s%" PRId64 " rows, %" PRId64 " delete files, manifests read %" PRId64 " of %" PRId64
               ", files pruned %" PRId64 "\n",
               p->snapshot_id, s->n_tasks, (int)p->n_groups, s->n_data_files, s->bytes, s->rows_estimated ? "~" : "",
               s->rows, s->n_delete_files, s->n_manifests_read, s->n_manifests, s->n_files_pruned);
    }
    for (int32_t g = 0; g < p->n_groups; g++) {
        const floe_ice_scan_group *grp = p->groups[g];
        if (jsonl)
            FLOE_TRY(print_line(json_pack("{s:{s:i,s:i,s:i,s:I,s:I,s:I,s:i}}", "group", "index", (int)g, "tasks",
                                          (int)grp->n_tasks, "files", (int)grp->n_files, "bytes",
                                          (json_int_t)grp->bytes, "rows", (json_int_t)grp->rows, "weight",
                                          (json_int_t)grp->weight, "deletes", (int)grp->n_deletes)));
        else
            printf("group %d: %d tasks, %d files, %" PRId64 " bytes, %" PRId64 " rows, %d delete files\n", (int)g,
                   (int)grp->n_tasks, (int)grp->n_files, grp->bytes, grp->rows, (int)grp->n_deletes);
        for (int32_t k = 0; k < grp->n_tasks; k++)
            FLOE_TRY(jsonl ? print_task_json(g, &grp->tasks[k]) : print_task_table(&grp->tasks[k]));
    }
    return NULL;
}

floe_status floe_cli_plan(int argc, char **argv) {
    const char *table = NULL, *snap = NULL, *filter_json = NULL, *format = "table";
    int64_t as_of = 0, target = 1;
    bool have_as_of = false, moved = false;
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(plan_usage, stdout);
        return NULL;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(a, "--snapshot") && has_next) snap = argv[++i];
        else if (!strcmp(a, "--as-of-ms") && has_next) {
            if (!parse_i64(argv[++i], &as_of)) return usage_err("--as-of-ms needs milliseconds");
            have_as_of = true;
        } else if (!strcmp(a, "--filter-json") && has_next) filter_json = argv[++i];
        else if (!strcmp(a, "--target-partitions") && has_next) {
            if (!parse_i64(argv[++i], &target) || target < 1 || target > INT32_MAX)
                return usage_err("--target-partitions needs a number >= 1");
        } else if (!strcmp(a, "--allow-moved-paths")) moved = true;
        else if (!strcmp(a, "--format") && has_next) format = argv[++i];
        else if (a[0] == '-' || table) return usage_err("unexpected argument");
        else table = a;
    }
    if (!table) return usage_err("floe plan: missing TABLE_DIR_OR_METADATA");
    bool jsonl = !strcmp(format, "jsonl");
    if (!jsonl && strcmp(format, "table")) return usage_err("--format is table or jsonl");
    if (snap && have_as_of) return usage_err("--snapshot and --as-of-ms are exclusive");

    floe_ice_snapshot_selector sel = {FLOE_ICE_SELECT_CURRENT, 0, NULL, 0};
    if (snap) {
        if (parse_i64(snap, &sel.snapshot_id)) sel.kind = FLOE_ICE_SELECT_ID;
        else sel.kind = FLOE_ICE_SELECT_REF, sel.ref = snap;
    } else if (have_as_of) sel.kind = FLOE_ICE_SELECT_AS_OF, sel.timestamp_ms = as_of;

    floe_ice_expr *filter = NULL;
    if (filter_json) FLOE_TRY_CTX(floe_ice_expr_from_json_text(filter_json, &filter), "--filter-json");
    floe_ice_table *t = NULL;
    floe_status st = floe_ice_table_open(NULL, table, moved, &t);
    floe_ice_scan_plan *p = NULL;
    floe_ice_scan_options o;
    floe_ice_scan_options_init(&o);
    o.target_partitions = (int32_t)target;
    if (!st) st = floe_ice_scan_plan_new(t, &sel, NULL, 0, filter, &o, &p);
    if (!st) st = print_plan(p, jsonl);
    floe_ice_scan_plan_free(p);
    floe_ice_table_free(t);
    floe_ice_expr_free(filter);
    return st;
}
