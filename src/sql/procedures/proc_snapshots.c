/*
 * proc_snapshots.c — snapshot management procedures (Spark's names,
 * arguments and result columns; Iceberg Java's ManageSnapshots semantics):
 *
 *   rollback_to_snapshot(table, snapshot_id)   main back to an ancestor
 *   rollback_to_timestamp(table, timestamp)    main back to the latest
 *                                              ancestor older than it
 *   set_current_snapshot(table, snapshot_id | ref)  main to any snapshot
 *   cherrypick_snapshot(table, snapshot_id)    apply a staged (WAP) append
 *   publish_changes(table, wap_id)             cherry-pick by wap.id
 *   fast_forward(table, branch, to)            branch forward to `to`
 *
 * Each is a metadata-only commit through floe_proc_commit (the base must
 * still be current, else it is redone on the new metadata): main's ref,
 * current-snapshot-id and a snapshot-log entry change together.
 */
#include <string.h>

#include <jansson.h>

#include "floe/memory.h"
#include "iceberg/update/table_update_internal.h"
#include "sql/procedures/procedure.h"

#define NAME_CAP 256

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "CALL: out of memory"); }

/* Point branch `branch` of the metadata tree at `snapshot_id` (creating
 * it when absent); for main also current-snapshot-id and the snapshot-log
 * (as Java's TableMetadata.Builder.setBranchSnapshot). */
static floe_status tree_set_branch(json_t *root, const char *branch, int64_t snapshot_id) {
    json_t *refs = json_object_get(root, "refs");
    if (!refs) {
        refs = json_object();
        if (!refs || json_object_set_new(root, "refs", refs)) return oom();
    }
    json_t *ref = json_object_get(refs, branch);
    if (!ref) {
        ref = json_object();
        if (!ref || json_object_set_new(refs, branch, ref) || json_object_set_new(ref, "type", json_string("branch")))
            return oom();
    }
    if (json_object_set_new(ref, "snapshot-id", json_integer(snapshot_id))) return oom();
    if (strcmp(branch, "main") != 0) return NULL;
    if (json_object_set_new(root, "current-snapshot-id", json_integer(snapshot_id))) return oom();
    json_t *log = json_object_get(root, "snapshot-log");
    if (!log) {
        log = json_array();
        if (!log || json_object_set_new(root, "snapshot-log", log)) return oom();
    }
    json_t *e = json_object();
    if (!e || json_object_set_new(e, "timestamp-ms", json_integer(floe_ice_now_ms())) ||
        json_object_set_new(e, "snapshot-id", json_integer(snapshot_id)) || json_array_append_new(log, e))
        return oom();
    return NULL;
}

/* New metadata with `branch` at `snapshot_id`. */
static floe_status set_branch(const floe_ice_table_metadata *md, const char *branch, int64_t snapshot_id,
                              floe_ice_table_metadata **out) {
    json_t *root = NULL;
    FLOE_TRY(floe_ice_tm_edit_begin(md, &root));
    floe_status st = tree_set_branch(root, branch, snapshot_id);
    if (st) {
        json_decref(root);
        return st;
    }
    return floe_ice_tm_edit_finish(md, root, out);
}

/* Is `ancestor` `id` or one of its ancestors? */
static bool is_ancestor(const floe_ice_table_metadata *md, int64_t id, int64_t ancestor) {
    for (const floe_ice_snapshot *s = floe_ice_tm_snapshot(md, id); s;
         s = s->parent_snapshot_id == FLOE_ICE_NO_SNAPSHOT ? NULL : floe_ice_tm_snapshot(md, s->parent_snapshot_id))
        if (s->snapshot_id == ancestor) return true;
    return false;
}

static int64_t branch_snapshot(const floe_ice_table_metadata *md, const char *branch) {
    if (!strcmp(branch, "main")) return md->current_snapshot_id;
    const floe_ice_snapshot_ref *r = floe_ice_tm_ref(md, branch);
    return r ? r->snapshot_id : FLOE_ICE_NO_SNAPSHOT;
}

/* What one commit did, for the result row. */
typedef struct change {
    int64_t before, after;
    const char *branch;
} change;

static floe_status table_of(floe_proc_call *call, char *ns, char *name) {
    return floe_proc_table_name(call, floe_proc_get(call, "table"), ns, NAME_CAP, name, NAME_CAP);
}

/* Run `edit`, then add the row (before, after). */
static floe_status run_and_report(floe_proc_call *call, floe_proc_edit_fn edit, change *c) {
    char ns[NAME_CAP], name[NAME_CAP];
    FLOE_TRY(table_of(call, ns, name));
    FLOE_TRY(floe_proc_commit(call, ns, name, edit, c));
    FLOE_TRY(floe_proc_add_row(call));
    if (c->before == FLOE_ICE_NO_SNAPSHOT) FLOE_TRY(floe_proc_add_null(call));
    else FLOE_TRY(floe_proc_add_long(call, c->before));
    return floe_proc_add_long(call, c->after);
}

/* ---------------------------------------------------- rollback_to_snapshot */

static floe_status rollback_edit(floe_proc_call *call, const floe_ice_table *t, void *ctx,
                                 floe_ice_table_metadata **out) {
    change *c = ctx;
    const floe_proc_arg *a = floe_proc_get(call, "snapshot_id");
    c->before = t->md->current_snapshot_id;
    c->after = a->i64;
    if (!floe_ice_tm_snapshot(t->md, a->i64))
        return floe_proc_error(call, a, FLOE_ERR_NOT_FOUND, "cannot roll back to unknown snapshot id: %lld",
                               (long long)a->i64);
    if (!is_ancestor(t->md, t->md->current_snapshot_id, a->i64))
        return floe_proc_error(call, a, FLOE_ERR_INVALID_ARGUMENT,
                               "cannot roll back to snapshot %lld: it is not an ancestor of the current state",
                               (long long)a->i64);
    return set_branch(t->md, "main", a->i64, out);
}

static floe_status rollback_to_snapshot(floe_proc_call *call) {
    change c = {FLOE_ICE_NO_SNAPSHOT, FLOE_ICE_NO_SNAPSHOT, NULL};
    return run_and_report(call, rollback_edit, &c);
}

static const floe_proc_param k_rollback_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"snapshot_id", FLOE_PROC_LONG, true},
};
static const floe_proc_column k_rollback_columns[] = {
    {"previous_snapshot_id", FLOE_PROC_LONG},
    {"current_snapshot_id", FLOE_PROC_LONG},
};
const floe_proc_def floe_proc_rollback_to_snapshot = {
    "rollback_to_snapshot", k_rollback_params, 2, k_rollback_columns, 2, rollback_to_snapshot, true};

/* --------------------------------------------------- rollback_to_timestamp */

static floe_status rollback_time_edit(floe_proc_call *call, const floe_ice_table *t, void *ctx,
                                      floe_ice_table_metadata **out) {
    change *c = ctx;
    const floe_proc_arg *a = floe_proc_get(call, "timestamp");
    c->before = t->md->current_snapshot_id;
    /* The latest ancestor of the current snapshot older than the time
     * (Java's SnapshotUtil.findLatestAncestorOlderThan). */
    const floe_ice_snapshot *best = NULL;
    for (const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md); s;
         s = s->parent_snapshot_id == FLOE_ICE_NO_SNAPSHOT ? NULL : floe_ice_tm_snapshot(t->md, s->parent_snapshot_id))
        if (s->timestamp_ms < a->i64 && (!best || s->timestamp_ms > best->timestamp_ms)) best = s;
    if (!best)
        return floe_proc_error(call, a, FLOE_ERR_NOT_FOUND, "cannot roll back, no valid snapshot older than: %lld",
                               (long long)a->i64);
    c->after = best->snapshot_id;
    return set_branch(t->md, "main", best->snapshot_id, out);
}

static floe_status rollback_to_timestamp(floe_proc_call *call) {
    change c = {FLOE_ICE_NO_SNAPSHOT, FLOE_ICE_NO_SNAPSHOT, NULL};
    return run_and_report(call, rollback_time_edit, &c);
}

static const floe_proc_param k_rollback_time_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"timestamp", FLOE_PROC_TIMESTAMP, true},
};
const floe_proc_def floe_proc_rollback_to_timestamp = {
    "rollback_to_timestamp", k_rollback_time_params, 2, k_rollback_columns, 2, rollback_to_timestamp, true};

/* ---------------------------------------------------- set_current_snapshot */

static floe_status set_current_edit(floe_proc_call *call, const floe_ice_table *t, void *ctx,
                                    floe_ice_table_metadata **out) {
    change *c = ctx;
    const floe_proc_arg *id = floe_proc_get(call, "snapshot_id");
    const floe_proc_arg *ref = floe_proc_get(call, "ref");
    c->before = t->md->current_snapshot_id;
    if (id->given) {
        if (!floe_ice_tm_snapshot(t->md, id->i64))
            return floe_proc_error(call, id, FLOE_ERR_NOT_FOUND, "cannot set current to unknown snapshot id: %lld",
                                   (long long)id->i64);
        c->after = id->i64;
    } else {
        const floe_ice_snapshot_ref *r = floe_ice_tm_ref(t->md, ref->str);
        if (!r) return floe_proc_error(call, ref, FLOE_ERR_NOT_FOUND, "unknown ref: %s", ref->str);
        c->after = r->snapshot_id;
    }
    return set_branch(t->md, "main", c->after, out);
}

static floe_status set_current_snapshot(floe_proc_call *call) {
    const floe_proc_arg *id = floe_proc_get(call, "snapshot_id");
    const floe_proc_arg *ref = floe_proc_get(call, "ref");
    if (id->given == ref->given)
        return floe_proc_error(call, NULL, FLOE_ERR_INVALID_ARGUMENT,
                               "either snapshot_id or ref must be provided, not both");
    change c = {FLOE_ICE_NO_SNAPSHOT, FLOE_ICE_NO_SNAPSHOT, NULL};
    return run_and_report(call, set_current_edit, &c);
}

static const floe_proc_param k_set_current_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"snapshot_id", FLOE_PROC_LONG, false},
    {"ref", FLOE_PROC_STRING, false},
};
const floe_proc_def floe_proc_set_current_snapshot = {
    "set_current_snapshot", k_set_current_params, 3, k_rollback_columns, 2, set_current_snapshot, true};

/* ------------------------------------------ cherrypick_snapshot, publish */

/* The summary value of `key`, or NULL. */
static const char *summary_value(const floe_ice_snapshot *s, const char *key) {
    for (int32_t i = 0; i < s->n_summary; i++)
        if (!strcmp(s->summary[i].key, key)) return s->summary[i].value;
    return NULL;
}

/* Cherry-pick `snap` onto main.  A staged append whose parent is main's
 * snapshot is published by fast-forwarding main to it, as Java's
 * CherryPickOperation does. */
static floe_status cherrypick(floe_proc_call *call, const floe_proc_arg *a, const floe_ice_table_metadata *md,
                              const floe_ice_snapshot *snap, change *c, floe_ice_table_metadata **out) {
    c->before = md->current_snapshot_id;
    /* A wap.id already on main's history (staged there, or published by a
     * cherry-pick) is not published twice (Java's validateWapPublish). */
    const char *wap = summary_value(snap, "wap.id");
    for (const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(md); wap && s;
         s = s->parent_snapshot_id == FLOE_ICE_NO_SNAPSHOT ? NULL : floe_ice_tm_snapshot(md, s->parent_snapshot_id)) {
        const char *w = summary_value(s, "wap.id"), *pub = summary_value(s, "published-wap-id");
        if ((w && !strcmp(w, wap)) || (pub && !strcmp(pub, wap)))
            return floe_proc_error(call, a, FLOE_ERR_INVALID_ARGUMENT,
                                   "duplicate request to cherry pick wap id that was published already: %s", wap);
    }
    if (is_ancestor(md, md->current_snapshot_id, snap->snapshot_id))
        return floe_proc_error(call, a, FLOE_ERR_INVALID_ARGUMENT,
                               "snapshot %lld is already an ancestor of the current snapshot",
                               (long long)snap->snapshot_id);
    if (snap->parent_snapshot_id == md->current_snapshot_id) {
        c->after = snap->snapshot_id;
        return set_branch(md, "main", snap->snapshot_id, out);
    }
    return floe_proc_error(call, a, FLOE_ERR_UNSUPPORTED,
                           "snapshot %lld is not a child of the current snapshot %lld; only a fast-forward "
                           "cherry-pick is supported",
                           (long long)snap->snapshot_id, (long long)md->current_snapshot_id);
}

static floe_status cherrypick_edit(floe_proc_call *call, const floe_ice_table *t, void *ctx,
                                   floe_ice_table_metadata **out) {
    const floe_proc_arg *a = floe_proc_get(call, "snapshot_id");
    const floe_ice_snapshot *snap = floe_ice_tm_snapshot(t->md, a->i64);
    if (!snap)
        return floe_proc_error(call, a, FLOE_ERR_NOT_FOUND, "cannot cherry-pick unknown snapshot id: %lld",
                               (long long)a->i64);
    return cherrypick(call, a, t->md, snap, ctx, out);
}

static floe_status cherrypick_snapshot(floe_proc_call *call) {
    change c = {FLOE_ICE_NO_SNAPSHOT, FLOE_ICE_NO_SNAPSHOT, NULL};
    return run_and_report(call, cherrypick_edit, &c);
}

static const floe_proc_param k_cherrypick_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"snapshot_id", FLOE_PROC_LONG, true},
};
static const floe_proc_column k_cherrypick_columns[] = {
    {"source_snapshot_id", FLOE_PROC_LONG},
    {"current_snapshot_id", FLOE_PROC_LONG},
};
const floe_proc_def floe_proc_cherrypick_snapshot = {
    "cherrypick_snapshot", k_cherrypick_params, 2, k_cherrypick_columns, 2, cherrypick_snapshot, true};

static floe_status publish_edit(floe_proc_call *call, const floe_ice_table *t, void *ctx,
                                floe_ice_table_metadata **out) {
    const floe_proc_arg *a = floe_proc_get(call, "wap_id");
    const floe_ice_snapshot *snap = NULL;
    for (int32_t i = 0; i < t->md->n_snapshots; i++) {
        const char *w = summary_value(&t->md->snapshots[i], "wap.id");
        if (w && !strcmp(w, a->str)) {
            if (snap)
                return floe_proc_error(call, a, FLOE_ERR_INVALID_ARGUMENT, "more than one snapshot has wap.id %s",
                                       a->str);
            snap = &t->md->snapshots[i];
        }
    }
    if (!snap) return floe_proc_error(call, a, FLOE_ERR_NOT_FOUND, "cannot apply unknown WAP ID '%s'", a->str);
    return cherrypick(call, a, t->md, snap, ctx, out);
}

static floe_status publish_changes(floe_proc_call *call) {
    change c = {FLOE_ICE_NO_SNAPSHOT, FLOE_ICE_NO_SNAPSHOT, NULL};
    return run_and_report(call, publish_edit, &c);
}

static const floe_proc_param k_publish_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"wap_id", FLOE_PROC_STRING, true},
};
const floe_proc_def floe_proc_publish_changes = {
    "publish_changes", k_publish_params, 2, k_cherrypick_columns, 2, publish_changes, true};

/* ------------------------------------------------------------ fast_forward */

static floe_status fast_forward_edit(floe_proc_call *call, const floe_ice_table *t, void *ctx,
                                     floe_ice_table_metadata **out) {
    change *c = ctx;
    const floe_proc_arg *b = floe_proc_get(call, "branch");
    const floe_proc_arg *to = floe_proc_get(call, "to");
    const floe_ice_snapshot_ref *br = strcmp(b->str, "main") ? floe_ice_tm_ref(t->md, b->str) : NULL;
    if (br && br->is_tag) return floe_proc_error(call, b, FLOE_ERR_INVALID_ARGUMENT, "ref %s is a tag, not a branch", b->str);
    const floe_ice_snapshot_ref *tr = strcmp(to->str, "main") ? floe_ice_tm_ref(t->md, to->str) : NULL;
    if (tr && tr->is_tag) return floe_proc_error(call, to, FLOE_ERR_INVALID_ARGUMENT, "ref %s is a tag, not a branch", to->str);
    int64_t from_id = branch_snapshot(t->md, b->str), to_id = branch_snapshot(t->md, to->str);
    if (to_id == FLOE_ICE_NO_SNAPSHOT)
        return floe_proc_error(call, to, FLOE_ERR_NOT_FOUND, "branch to fast-forward to does not exist: %s", to->str);
    c->before = from_id;
    c->after = to_id;
    c->branch = b->str;
    if (from_id == to_id) return NULL; /* nothing to do */
    /* A branch that does not exist yet is created at `to` (Java). */
    if (from_id != FLOE_ICE_NO_SNAPSHOT && !is_ancestor(t->md, to_id, from_id))
        return floe_proc_error(call, b, FLOE_ERR_INVALID_ARGUMENT,
                               "cannot fast-forward: %s is not an ancestor of %s", b->str, to->str);
    return set_branch(t->md, b->str, to_id, out);
}

static floe_status fast_forward(floe_proc_call *call) {
    char ns[NAME_CAP], name[NAME_CAP];
    FLOE_TRY(table_of(call, ns, name));
    change c = {FLOE_ICE_NO_SNAPSHOT, FLOE_ICE_NO_SNAPSHOT, NULL};
    FLOE_TRY(floe_proc_commit(call, ns, name, fast_forward_edit, &c));
    FLOE_TRY(floe_proc_add_row(call));
    FLOE_TRY(floe_proc_add_string(call, floe_proc_get(call, "branch")->str));
    if (c.before == FLOE_ICE_NO_SNAPSHOT) FLOE_TRY(floe_proc_add_null(call));
    else FLOE_TRY(floe_proc_add_long(call, c.before));
    return floe_proc_add_long(call, c.after);
}

static const floe_proc_param k_fast_forward_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"branch", FLOE_PROC_STRING, true},
    {"to", FLOE_PROC_STRING, true},
};
static const floe_proc_column k_fast_forward_columns[] = {
    {"branch_updated", FLOE_PROC_STRING},
    {"previous_ref", FLOE_PROC_LONG},
    {"updated_ref", FLOE_PROC_LONG},
};
const floe_proc_def floe_proc_fast_forward = {
    "fast_forward", k_fast_forward_params, 3, k_fast_forward_columns, 3, fast_forward, true};
