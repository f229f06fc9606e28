/*
 * catalog_append.c — INSERT's commit: append data files to a catalog table
 * as one snapshot, retrying when a concurrent commit wins the
 * compare-and-swap.  See floe_catalog_append in catalog.h.  The retry loop
 * itself (floe_catalog_commit_retrying) is shared with replace-partitions
 * and delete (catalog_overwrite.c).
 *
 * Each attempt starts from freshly loaded metadata, so a retry rebuilds
 * the manifest list on top of whatever the winner committed (an append
 * conflicts with nothing it could not simply be re-applied over, and a
 * changed default spec shows up as records that no longer decode).  The
 * losing attempt's manifest and list are deleted before the next one; the
 * data files belong to the caller and are reused as they are.
 */
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "floe/catalog.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/catalog/catalog_commit_internal.h"
#include "iceberg/snapshot/snapshot_branch.h"
#include "iceberg/update/table_update_internal.h"

floe_status floe_catalog_commit_retrying(floe_catalog *c, const char *ns, const char *name, const char *what,
                                         int max_retries, floe_catalog_build_fn build, void *ctx,
                                         int64_t *snapshot_id) {
    if (snapshot_id) *snapshot_id = -1;
    floe_commit_retry policy = floe_catalog_retry_settings(NULL);
    int64_t start = floe_catalog_now_ms();
    for (int attempt = 0;; attempt++) {
        if (attempt > 0) floe_catalog_retry_backoff(&policy, attempt);
        floe_ice_table *t = NULL;
        FLOE_TRY_CTX(floe_catalog_load_table(c, ns, name, &t), "%s %s.%s", what, ns, name);
        policy = floe_catalog_retry_settings(t->md); /* the table's current settings */
        floe_ice_table_metadata *md = NULL;
        floe_ice_append_files written;
        memset(&written, 0, sizeof written);
        floe_status st = build(t, ctx, &md, &written);
        if (st) { /* final: build errors (validation conflicts too) are not retried */
            floe_ice_append_files_discard(t, &written);
            floe_ice_table_free(t);
            return floe_status_wrap(st, "%s %s.%s", what, ns, name);
        }
        if (!md) { /* nothing to commit */
            floe_ice_append_files_discard(t, &written);
            floe_ice_table_free(t);
            return NULL;
        }
        st = floe_catalog_commit(c, ns, name, t->metadata_location, md, NULL);
        if (!st) {
            /* The new snapshot (the current one, unless it was staged). */
            if (snapshot_id) *snapshot_id = md->current_snapshot_id;
            for (int32_t i = 0; snapshot_id && i < md->n_snapshots; i++)
                if (!floe_ice_tm_snapshot(t->md, md->snapshots[i].snapshot_id)) *snapshot_id = md->snapshots[i].snapshot_id;
            floe_ice_append_files_clear(&written);
            floe_ice_table_metadata_free(md);
            floe_ice_table_free(t);
            return NULL;
        }
        /* A commit whose outcome is unknown may have landed: its manifests
         * and list may be the table's now, so they stay. */
        if (floe_status_code(st) == FLOE_ERR_COMMIT_UNKNOWN) floe_ice_append_files_clear(&written);
        else floe_ice_append_files_discard(t, &written);
        floe_ice_table_metadata_free(md);
        floe_ice_table_free(t);
        if (floe_status_code(st) != FLOE_ERR_CONFLICT || attempt >= max_retries)
            return floe_status_wrap(st, "%s %s.%s (attempt %d of %d)", what, ns, name, attempt + 1, max_retries + 1);
        int64_t spent = floe_catalog_now_ms() - start;
        if (spent > policy.total_timeout_ms)
            return floe_status_wrap(st, "%s %s.%s (gave up after %lld ms: commit.retry.total-timeout-ms)", what, ns,
                                    name, (long long)spent);
        floe_status_free(st);
    }
}

typedef struct append_args {
    const uint8_t *const *data_files;
    const size_t *lens;
    int32_t n;
    const char *const *summary_kv;
    int32_t n_kv;
    const char *branch; /* NULL: main */
} append_args;

/* A staged append (summary "wap.id", write-audit-publish): the snapshot is
 * added but main, current-snapshot-id and the snapshot-log stay as they
 * were (Java's SnapshotProducer.stageOnly). */
static floe_status unstage_main(const floe_ice_table_metadata *base, floe_ice_table_metadata **md) {
    json_t *root = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(*md, &root));
    json_t *refs = json_object_get(root, "refs");
    int rc = json_object_set_new(root, "current-snapshot-id", json_integer(base->current_snapshot_id));
    const floe_ice_snapshot_ref *main_ref = floe_ice_tm_ref(base, "main");
    if (refs && main_ref) rc |= json_object_set_new(json_object_get(refs, "main"), "snapshot-id", json_integer(main_ref->snapshot_id));
    else if (refs) json_object_del(refs, "main");
    json_t *log = json_object_get(root, "snapshot-log");
    if (json_is_array(log) && json_array_size(log) > (size_t)base->n_snapshot_log)
        json_array_remove(log, json_array_size(log) - 1);
    if (rc) {
        json_decref(root);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "staging a snapshot: out of memory");
    }
    floe_ice_table_metadata *staged = NULL;
    FLOE_TRY(floe_ice_tm_edit_finish(base, root, &staged));
    floe_ice_table_metadata_free(*md);
    *md = staged;
    return NULL;
}

static floe_status build_append_main(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                     floe_ice_append_files *written);

static floe_status build_append(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                floe_ice_append_files *written) {
    const append_args *a = ctx;
    if (!floe_ice_branch_is_main(a->branch)) return floe_ice_branch_build(t, a->branch, build_append_main, ctx, out, written);
    return build_append_main(t, ctx, out, written);
}

static floe_status build_append_main(const floe_ice_table *t, void *ctx, floe_ice_table_metadata **out,
                                     floe_ice_append_files *written) {
    const append_args *a = ctx;
    FLOE_TRY(floe_ice_tm_append_snapshot(t, a->data_files, a->lens, a->n, a->summary_kv, a->n_kv, out, written));
    for (int32_t i = 0; *out && i < a->n_kv; i++)
        if (!strcmp(a->summary_kv[2 * i], "wap.id")) return unstage_main(t->md, out);
    return NULL;
}

floe_status floe_catalog_append(floe_catalog *c, const char *ns, const char *name, const uint8_t *const *data_files,
                                const size_t *lens, int32_t n, const char *const *summary_kv, int32_t n_kv,
                                int max_retries, int64_t *snapshot_id) {
    if (!c || !ns || !name || max_retries < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "append: bad arguments (catalog, name or retry count)");
    return floe_catalog_append_branch(c, ns, name, NULL, data_files, lens, n, summary_kv, n_kv, max_retries,
                                      snapshot_id);
}

floe_status floe_catalog_append_branch(floe_catalog *c, const char *ns, const char *name, const char *branch,
                                       const uint8_t *const *data_files, const size_t *lens, int32_t n,
                                       const char *const *summary_kv, int32_t n_kv, int max_retries,
                                       int64_t *snapshot_id) {
    if (!c || !ns || !name || max_retries < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "append: bad arguments (catalog, name or retry count)");
    append_args a = {data_files, lens, n, summary_kv, n_kv, branch};
    return floe_catalog_commit_retrying(c, ns, name, "append to", max_retries, build_append, &a, snapshot_id);
}

floe_status floe_ice_branch_build(const floe_ice_table *t, const char *branch, floe_catalog_build_fn build, void *ctx,
                                  floe_ice_table_metadata **out, floe_ice_append_files *written) {
    *out = NULL;
    floe_ice_table view = *t; /* the same table, its metadata seen from the branch */
    FLOE_TRY(floe_ice_tm_branch_view(t->md, branch, &view.md));
    floe_ice_table_metadata *produced = NULL;
    floe_status st = build(&view, ctx, &produced, written);
    if (!st && produced) {
        int64_t id = floe_ice_tm_new_snapshot_id(t->md, produced);
        st = floe_ice_tm_branch_reaim(t->md, produced, branch, id, out);
    }
    floe_ice_table_metadata_free(produced);
    floe_ice_table_metadata_free(view.md);
    return st;
}
