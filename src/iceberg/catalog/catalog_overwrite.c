/*
 * catalog_overwrite.c — the catalog commits of INSERT OVERWRITE (replace
 * the partitions a statement wrote) and of the metadata-only DELETE.  See
 * floe_catalog_replace_partitions and floe_catalog_delete_where in
 * catalog.h.
 *
 * Both run the shared optimistic loop (catalog_commit_internal.h): every
 * attempt reloads the table and recomputes the snapshot from scratch, so
 * a retry re-validates the overwrite against the snapshot the statement
 * read and re-plans the delete on the winner's files.  Nothing committed
 * by others is lost; data files are never deleted here.  On a branch
 * other than main the build runs on the branch view and is re-aimed at
 * the branch (floe_ice_branch_build).
 */
#include <stdint.h>

#include "floe/catalog.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_table_update.h"
#include "iceberg/catalog/catalog_commit_internal.h"
#include "iceberg/snapshot/snapshot_branch.h"

typedef struct overwrite_args {
    const uint8_t *const *data_files;
    const size_t *lens;
    int32_t n;
    int64_t base_snapshot_id;
    const char *const *summary_kv;
    int32_t n_kv;
    const char *branch;
} overwrite_args;

static floe_status build_overwrite_here(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                        floe_ice_append_files *written) {
    const overwrite_args *a = ctx;
    return floe_ice_tm_replace_partitions_snapshot(t, a->data_files, a->lens, a->n, a->base_snapshot_id, a->summary_kv,
                                                   a->n_kv, out, written);
}

static floe_status build_overwrite(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                   floe_ice_append_files *written) {
    const overwrite_args *a = ctx;
    if (floe_ice_branch_is_main(a->branch)) return build_overwrite_here(t, ctx, out, written);
    return floe_ice_branch_build(t, a->branch, build_overwrite_here, ctx, out, written);
}

floe_status floe_catalog_replace_partitions(floe_catalog *c, const char *ns, const char *name,
                                            const uint8_t *const *data_files, const size_t *lens, int32_t n,
                                            int64_t base_snapshot_id, const char *const *summary_kv,
                                            int32_t n_kv, int max_retries, int64_t *snapshot_id) {
    return floe_catalog_replace_partitions_branch(c, ns, name, NULL, data_files, lens, n, base_snapshot_id, summary_kv,
                                                  n_kv, max_retries, snapshot_id);
}

floe_status floe_catalog_replace_partitions_branch(floe_catalog *c, const char *ns, const char *name,
                                                   const char *branch, const uint8_t *const *data_files,
                                                   const size_t *lens, int32_t n, int64_t base_snapshot_id,
                                                   const char *const *summary_kv, int32_t n_kv, int max_retries,
                                                   int64_t *snapshot_id) {
    if (snapshot_id) *snapshot_id = -1;
    if (!c || !ns || !name || max_retries < 0 || n < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "overwrite: bad arguments (catalog, name, files or retry count)");
    if (n == 0) return NULL; /* replaces nothing: no snapshot */
    overwrite_args a = {data_files, lens, n, base_snapshot_id, summary_kv, n_kv, branch};
    return floe_catalog_commit_retrying(c, ns, name, "overwrite", max_retries, build_overwrite, &a, snapshot_id);
}

typedef struct delete_args {
    const floe_ice_expr *filter;
    int64_t deleted_rows;
    const char *branch;
} delete_args;

static floe_status build_delete_here(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                     floe_ice_append_files *written) {
    delete_args *a = ctx;
    return floe_ice_tm_delete_snapshot(t, a->filter, out, written, NULL, &a->deleted_rows);
}

static floe_status build_delete(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                floe_ice_append_files *written) {
    const delete_args *a = ctx;
    if (floe_ice_branch_is_main(a->branch)) return build_delete_here(t, ctx, out, written);
    return floe_ice_branch_build(t, a->branch, build_delete_here, ctx, out, written);
}

floe_status floe_catalog_delete_where(floe_catalog *c, const char *ns, const char *name,
                                      const struct floe_ice_expr *filter, int max_retries, int64_t *snapshot_id,
                                      int64_t *deleted_rows) {
    return floe_catalog_delete_where_branch(c, ns, name, NULL, filter, max_retries, snapshot_id, deleted_rows);
}

floe_status floe_catalog_delete_where_branch(floe_catalog *c, const char *ns, const char *name, const char *branch,
                                             const struct floe_ice_expr *filter, int max_retries,
                                             int64_t *snapshot_id, int64_t *deleted_rows) {
    if (snapshot_id) *snapshot_id = -1;
    if (deleted_rows) *deleted_rows = 0;
    if (!c || !ns || !name || !filter || max_retries < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "delete: bad arguments (catalog, name, filter or retry count)");
    delete_args a = {filter, 0, branch};
    int64_t sid = -1;
    FLOE_TRY(floe_catalog_commit_retrying(c, ns, name, "delete from", max_retries, build_delete, &a, &sid));
    if (snapshot_id) *snapshot_id = sid;
    if (deleted_rows) *deleted_rows = sid >= 0 ? a.deleted_rows : 0;
    return NULL;
}
