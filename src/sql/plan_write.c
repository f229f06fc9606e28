/*
 * plan_write.c — the physical write plan (dml.h, floe_sql_plan_write):
 *
 *   IcebergCommit ← Coalesce ← IcebergWrite ← [Sort] ← [Repartition] ← input
 *
 * IcebergWrite is built straight over the input; the Repartition (hash on
 * the partition columns, or round robin) and the Sort of a clustered
 * writer are what it declares it requires, added by the same rule every
 * plan goes through (floe_sql_enforce_requirements in physical.c), so the
 * planner cannot disagree with the writer about what it needs.
 *
 * Everything the writer and the commit need travels as their parts: the
 * target as schema / spec JSON, the table properties, a fresh job id, the
 * catalog by its warehouse, the table's FileIO properties (endpoint,
 * credentials id ...) — nothing that only exists in this process.
 *
 * A row-level change (DELETE, UPDATE, MERGE) is the same plan with the
 * writer in delta mode and a row-delta commit (floe_sql_plan_delta_write).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "floe/catalog.h"
#include "floe/memory.h"
#include "sql/dml.h"
#include "sql/session_internal.h"

/* What differs between a plain write and a row-level change. */
typedef struct write_shape {
    floe_commit_kind kind;
    int64_t base_snapshot_id;
    int32_t delta_flags;
    floe_isolation_level isolation;
    const char *conflict_filter_json;
    const char *const *removed;
    int32_t n_removed;
    const floe_delta_old_delete *old_deletes;
    int32_t n_old_deletes;
    /* A rewrite (rewrite_data_files): properties appended to the table's
     * (the writer takes the last of a repeated key), the order the writer
     * sorts by instead of the table's (NULL: none), a "replace" commit. */
    const char *const *extra_props;
    int32_t n_extra;
    bool rewrite;
    const char *rewrite_order_json;
    int32_t rewrite_order_id;        /* what the files record (0: none) */
} write_shape;

static floe_status plan_write(floe_session *s, floe_plan *input, const floe_ice_table *t, const char *ns,
                              const char *name, const write_shape *w, floe_plan **out) {
    *out = NULL;
    const floe_ice_table_metadata *md = t->md;
    const floe_ice_schema *schema = floe_ice_tm_current_schema(md);
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(md);
    if (!schema || !spec) return floe_error(FLOE_ERR_CORRUPT, "table %s.%s has no current schema or spec", ns, name);
    char *schema_json = NULL, *spec_json = NULL, *job = NULL;
    int32_t n_props = md->n_properties + w->n_extra;
    const char **props = floe_calloc((size_t)n_props * 2 + 1, sizeof *props);
    floe_plan *write = NULL, *ready = NULL, *merged = NULL;
    floe_status st = props ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a write: out of memory");
    for (int32_t i = 0; !st && i < md->n_properties; i++) {
        props[2 * i] = md->properties[i].key;
        props[2 * i + 1] = md->properties[i].value;
    }
    for (int32_t i = 0; props && i < 2 * w->n_extra; i++) props[2 * md->n_properties + i] = w->extra_props[i];
    if (!st) st = floe_ice_schema_to_json_text(schema, &schema_json);
    if (!st) st = floe_ice_partition_spec_to_json_text(spec, &spec_json);
    if (!st && !(job = floe_write_job_new_id()))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a write: out of memory");
    const floe_property *io_props = NULL;
    size_t n_io_props = 0;
    floe_fileio_properties(t->io, &io_props, &n_io_props);
    /* The default sort order: the writer sorts by it (and only then do its
     * files record it). */
    const floe_ice_sort_order *order = floe_ice_tm_sort_order(md, md->default_sort_order_id);
    char *order_json = NULL;
    int32_t order_id = md->default_sort_order_id;
    if (w->rewrite) order = NULL, order_id = w->rewrite_order_json ? w->rewrite_order_id : 0;
    if (!st && order && order->n_fields > 0) st = floe_ice_sort_order_to_json_text(order, &order_json);
    if (!st && w->rewrite && w->rewrite_order_json && !(order_json = floe_strdup(w->rewrite_order_json)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "planning a write: out of memory");
    if (!st)
        st = floe_plan_iceberg_write_delta(input, md->location, md->format_version, schema_json, spec_json,
                                           order_id, props, n_props, job, io_props, n_io_props, order_json,
                                           w->delta_flags, w->old_deletes, w->n_old_deletes, &write);
    floe_free(order_json);
    if (!st) st = floe_sql_enforce_requirements(write, s->opts.target_partitions, &ready);
    if (!st) st = floe_plan_coalesce(ready, &merged);
    int32_t retries = floe_catalog_retry_settings(md).num_retries;
    if (!st && w->kind == FLOE_COMMIT_ROW_DELTA)
        st = floe_plan_iceberg_commit_delta(merged, floe_catalog_uri(s->catalog), ns, name, w->base_snapshot_id, job,
                                            retries, io_props, n_io_props, w->isolation, w->conflict_filter_json,
                                            w->removed, w->n_removed, out);
    else if (!st)
        st = floe_plan_iceberg_commit_io(merged, floe_catalog_uri(s->catalog), ns, name, w->kind,
                                         w->base_snapshot_id, job, retries, io_props, n_io_props, out);
    if (!st && w->rewrite) st = floe_iceberg_commit_set_replace(*out);
    /* Write-audit-publish (Spark's): with write.wap.enabled and a session
     * wap.id an INSERT stages its snapshot (publish_changes makes it current). */
    const char *wap_enabled = floe_ice_tm_property(md, "write.wap.enabled");
    if (!st && w->kind == FLOE_COMMIT_APPEND && s->wap_id && wap_enabled && !strcasecmp(wap_enabled, "true"))
        st = floe_iceberg_commit_set_wap_id(*out, s->wap_id);
    /* A write to a branch (INSERT INTO t.branch_b, SET write.branch):
     * only that ref moves.  Spark refuses a wap.id together with a branch. */
    /* Appends that resolve their table without floe_dml_target_of (COPY
     * FROM, CTAS) follow the session's branch too. */
    const char *branch = s->target_branch ? s->target_branch : w->kind == FLOE_COMMIT_APPEND ? s->write_branch : NULL;
    if (!st && branch && s->wap_id && wap_enabled && !strcasecmp(wap_enabled, "true"))
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "Cannot set both WAP ID and branch, but got ID [%s] and branch [%s]",
                        s->wap_id, branch);
    if (!st && branch) st = floe_iceberg_commit_set_branch(*out, branch);
    if (st && *out) {
        floe_plan_release(*out);
        *out = NULL;
    }
    floe_plan_release(write);
    floe_plan_release(ready);
    floe_plan_release(merged);
    floe_free(schema_json);
    floe_free(spec_json);
    floe_free(job);
    floe_free(props);
    if (st) return floe_status_wrap(st, "planning the write into %s.%s", ns, name);
    return NULL;
}

floe_status floe_sql_plan_write(floe_session *s, floe_plan *input, const floe_ice_table *t, const char *ns,
                                const char *name, floe_commit_kind kind, int64_t base_snapshot_id,
                                floe_plan **out) {
    write_shape w = {kind, base_snapshot_id, 0, FLOE_ISOLATION_SERIALIZABLE, NULL, NULL, 0, NULL, 0, NULL, 0, false,
                     NULL, 0};
    return plan_write(s, input, t, ns, name, &w, out);
}

floe_status floe_sql_plan_delta_write(floe_session *s, floe_plan *input, const floe_ice_table *t, const char *ns,
                                      const char *name, int32_t delta_flags, int64_t base_snapshot_id,
                                      floe_isolation_level isolation, const char *conflict_filter_json,
                                      const char *const *removed, int32_t n_removed,
                                      const floe_delta_old_delete *old_deletes, int32_t n_old_deletes,
                                      floe_plan **out) {
    write_shape w = {FLOE_COMMIT_ROW_DELTA, base_snapshot_id, delta_flags, isolation, conflict_filter_json,
                     removed, n_removed, old_deletes, n_old_deletes, NULL, 0, false, NULL, 0};
    return plan_write(s, input, t, ns, name, &w, out);
}

floe_status floe_sql_plan_rewrite_write(floe_session *s, floe_plan *input, const floe_ice_table *t, const char *ns,
                                        const char *name, int64_t base_snapshot_id, const char *const *extra_props,
                                        int32_t n_extra, const char *order_json, int32_t order_id,
                                        const char *const *removed, int32_t n_removed, floe_plan **out) {
    write_shape w = {FLOE_COMMIT_ROW_DELTA, base_snapshot_id, FLOE_DELTA_ROWS, FLOE_ISOLATION_SNAPSHOT, NULL,
                     removed, n_removed, NULL, 0, extra_props, n_extra, true, order_json, order_id};
    return plan_write(s, input, t, ns, name, &w, out);
}
