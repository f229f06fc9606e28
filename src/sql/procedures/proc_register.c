/*
 * proc_register.c — register_table(table, metadata_file): Spark's
 * RegisterTableProcedure.  The catalog gains an entry for `table` pointing
 * at an existing metadata file (written by floe or any Iceberg
 * implementation, e.g. a table of another catalog or one copied from
 * elsewhere); nothing is written to the table.  A table of that name
 * already there is an error and nothing changes (the catalog's
 * register_table checks the metadata file parses first).
 *
 * Result (Spark's): current_snapshot_id, total_records_count,
 * total_data_files_count — from the current snapshot and its summary's
 * total-records / total-data-files; NULL when the table has no snapshot
 * (or its summary lacks the totals).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "floe/catalog.h"
#include "sql/procedures/procedure.h"
#include "sql/session_internal.h"

#define NAME_CAP 256

/* Summary value `key` of `s` as a number, or false. */
static bool summary_long(const floe_ice_snapshot *s, const char *key, int64_t *out) {
    for (int32_t i = 0; s && i < s->n_summary; i++) {
        if (strcmp(s->summary[i].key, key) != 0) continue;
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s->summary[i].value, &end, 10);
        if (errno || end == s->summary[i].value || *end) return false;
        *out = v;
        return true;
    }
    return false;
}

static floe_status add_opt(floe_proc_call *call, bool have, int64_t v) {
    return have ? floe_proc_add_long(call, v) : floe_proc_add_null(call);
}

static floe_status register_table(floe_proc_call *call) {
    const floe_proc_arg *ta = floe_proc_get(call, "table");
    const floe_proc_arg *ma = floe_proc_get(call, "metadata_file");
    if (!ta->given || !*ta->str)
        return floe_proc_error(call, ta, FLOE_ERR_INVALID_ARGUMENT, "Cannot handle an empty identifier for argument table");
    if (!ma->given || !*ma->str)
        return floe_proc_error(call, ma, FLOE_ERR_INVALID_ARGUMENT, "Cannot handle an empty argument metadata_file");
    char ns[NAME_CAP], name[NAME_CAP];
    FLOE_TRY(floe_proc_table_name(call, ta, ns, NAME_CAP, name, NAME_CAP));
    bool exists = false;
    FLOE_TRY(floe_catalog_table_exists(call->s->catalog, ns, name, &exists));
    if (exists) return floe_proc_error(call, ta, FLOE_ERR_ALREADY_EXISTS, "Table already exists: %s.%s", ns, name);
    floe_ice_table *t = NULL;
    floe_status st = floe_catalog_register_table(call->s->catalog, ns, name, ma->str, &t);
    if (st) return floe_status_wrap(st, "register_table %s.%s from '%s'", ns, name, ma->str);
    const floe_ice_snapshot *cur = t ? floe_ice_tm_current_snapshot(t->md) : NULL;
    int64_t records = 0, files = 0;
    bool have_records = summary_long(cur, "total-records", &records);
    bool have_files = summary_long(cur, "total-data-files", &files);
    st = floe_proc_add_row(call);
    if (!st) st = add_opt(call, cur != NULL, cur ? cur->snapshot_id : 0);
    if (!st) st = add_opt(call, have_records, records);
    if (!st) st = add_opt(call, have_files, files);
    floe_ice_table_free(t);
    return st;
}

static const floe_proc_param k_register_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"metadata_file", FLOE_PROC_STRING, true},
};
static const floe_proc_column k_register_columns[] = {
    {"current_snapshot_id", FLOE_PROC_LONG},
    {"total_records_count", FLOE_PROC_LONG},
    {"total_data_files_count", FLOE_PROC_LONG},
};
const floe_proc_def floe_proc_register_table = {
    "register_table", k_register_params, 2, k_register_columns, 3, register_table, true};
