/*
 * catalog_row_delta.c — the commit of a row-level change (DELETE, UPDATE,
 * MERGE): floe_ice_tm_row_delta_snapshot on the current table, committed
 * with the shared optimistic loop (catalog_commit_internal.h).  See
 * floe_catalog_row_delta in catalog.h.
 *
 * Every attempt reloads the table and rebuilds the snapshot from scratch,
 * so the files it names are looked up again in the winner's snapshot; a
 * file found gone, or a validation failing, is an error of the build and so
 * final (retrying cannot bring a removed file back).  Nothing committed by
 * others is lost; the caller's data and delete files are never deleted.
 */
#include <stdint.h>

#include "floe/catalog.h"
#include "floe/iceberg_table_update.h"
#include "iceberg/catalog/catalog_commit_internal.h"
#include "iceberg/snapshot/snapshot_branch.h"

typedef struct delta_args {
    const floe_row_delta *d;
    const char *const *summary_kv;
    int32_t n_kv;
} delta_args;

static floe_status build_on_head(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                 floe_ice_append_files *written) {
    const delta_args *a = ctx;
    return floe_ice_tm_row_delta_snapshot(t, a->d, a->summary_kv, a->n_kv, out, written);
}

/* On a branch, the snapshot is built on the branch's view of the table
 * (its head current), then only the branch is moved to it. */
static floe_status build_row_delta(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                   floe_ice_append_files *written) {
    const delta_args *a = ctx;
    if (!floe_ice_branch_is_main(a->d->branch))
        return floe_ice_branch_build(t, a->d->branch, build_on_head, ctx, out, written);
    return build_on_head(t, ctx, out, written);
}

floe_status floe_catalog_row_delta(floe_catalog *c, const char *ns, const char *name, const floe_row_delta *d,
                                   const char *const *summary_kv, int32_t n_kv, int max_retries,
                                   int64_t *snapshot_id) {
    if (snapshot_id) *snapshot_id = -1;
    if (!c || !ns || !name || !d || max_retries < 0 || d->n_data < 0 || d->n_deletes < 0 || d->n_removed < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: bad arguments (catalog, name, change or retry "
                          "count)");
    if (d->n_data == 0 && d->n_deletes == 0 && d->n_removed == 0) return NULL; /* nothing: no snapshot */
    delta_args a = {d, summary_kv, n_kv};
    return floe_catalog_commit_retrying(c, ns, name, "row delta on", max_retries, build_row_delta, &a, snapshot_id);
}
