/*
 * snapshot_branch.c — the branch view and re-aiming of snapshot_branch.h.
 * Both are edits of the metadata's JSON tree (table_update_internal.h), so
 * the result passes the same validation as metadata read from storage.
 */
#include <string.h>

#include <jansson.h>

#include "iceberg/snapshot/snapshot_branch.h"
#include "iceberg/update/table_update_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "branch commit: out of memory"); }

bool floe_ice_branch_is_main(const char *branch) { return !branch || !*branch || !strcmp(branch, "main"); }

/* The tree's "refs" object, made when absent. */
static json_t *tree_refs(json_t *root) {
    json_t *refs = json_object_get(root, "refs");
    if (json_is_object(refs)) return refs;
    refs = json_object();
    if (!refs || json_object_set_new(root, "refs", refs)) return NULL;
    return refs;
}

/* Point main (and current-snapshot-id) of the tree at `id`; no snapshot:
 * main is removed. */
static int tree_main_at(json_t *root, json_t *refs, int64_t id) {
    int rc = json_object_set_new(root, "current-snapshot-id", json_integer(id));
    if (id == FLOE_ICE_NO_SNAPSHOT) {
        json_object_del(refs, "main");
        return rc;
    }
    json_t *m = json_object_get(refs, "main");
    if (!json_is_object(m)) {
        m = json_pack("{s:s}", "type", "branch");
        rc |= !m || json_object_set_new(refs, "main", m);
    }
    return rc | (m ? json_object_set_new(m, "snapshot-id", json_integer(id)) : 1);
}

floe_status floe_ice_tm_branch_view(const floe_ice_table_metadata *md, const char *branch,
                                    floe_ice_table_metadata **out) {
    *out = NULL;
    const floe_ice_snapshot_ref *r = floe_ice_tm_ref(md, branch);
    if (r && r->is_tag)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s is a tag, not a branch. Tags cannot be targets for producing snapshots",
                          branch);
    return floe_ice_tm_snapshot_view(md, r ? r->snapshot_id : md->current_snapshot_id, out);
}

floe_status floe_ice_tm_snapshot_view(const floe_ice_table_metadata *md, int64_t head,
                                      floe_ice_table_metadata **out) {
    *out = NULL;
    json_t *root = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(md, &root));
    json_t *refs = tree_refs(root);
    if (!refs || tree_main_at(root, refs, head)) {
        json_decref(root);
        return oom();
    }
    return floe_ice_tm_edit_finish(md, root, out);
}

int64_t floe_ice_tm_new_snapshot_id(const floe_ice_table_metadata *base, const floe_ice_table_metadata *produced) {
    for (int32_t i = produced->n_snapshots - 1; i >= 0; i--)
        if (!floe_ice_tm_snapshot(base, produced->snapshots[i].snapshot_id)) return produced->snapshots[i].snapshot_id;
    return FLOE_ICE_NO_SNAPSHOT;
}

floe_status floe_ice_tm_branch_reaim(const floe_ice_table_metadata *base, const floe_ice_table_metadata *produced,
                                     const char *branch, int64_t snapshot_id, floe_ice_table_metadata **out) {
    *out = NULL;
    json_t *root = NULL, *base_root = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(produced, &root));
    floe_status st = floe_ice_tm_edit_begin(base, &base_root);
    if (st) {
        json_decref(root);
        return st;
    }
    json_t *refs = tree_refs(root);
    int rc = !refs;
    if (!rc) rc = tree_main_at(root, refs, base->current_snapshot_id);
    /* The snapshot-log records main's history only: base's, unchanged. */
    json_t *log = json_object_get(base_root, "snapshot-log");
    if (!rc) rc = log ? json_object_set(root, "snapshot-log", log) : json_object_set_new(root, "snapshot-log", json_array());
    if (!rc) {
        json_t *ref = json_object_get(refs, branch);
        if (!json_is_object(ref)) {
            ref = json_pack("{s:s}", "type", "branch");
            rc = !ref || json_object_set_new(refs, branch, ref);
        }
        if (!rc) rc = json_object_set_new(ref, "snapshot-id", json_integer(snapshot_id));
    }
    json_decref(base_root);
    if (rc) {
        json_decref(root);
        return oom();
    }
    return floe_ice_tm_edit_finish(base, root, out);
}
