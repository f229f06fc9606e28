/*
 * proc_expire.c — expire_snapshots(table, older_than, retain_last,
 * max_concurrent_deletes, stream_results, snapshot_ids,
 * clean_expired_metadata): Spark's procedure with Iceberg Java's
 * RemoveSnapshots rules and reachable-file cleanup.
 *
 * Which snapshots stay:
 *   - refs: main always; another branch or tag is dropped when its
 *     snapshot is older than its max-ref-age-ms (else the table's
 *     history.expire.max-ref-age-ms, default forever);
 *   - each kept tag's snapshot;
 *   - each kept branch's head and its ancestors, walking back while fewer
 *     than min-snapshots-to-keep are kept or the ancestor is not older than
 *     max-snapshot-age-ms (the branch's own settings, else retain_last /
 *     history.expire.min-snapshots-to-keep (default 1) and older_than /
 *     now - history.expire.max-snapshot-age-ms (default 5 days));
 *   - snapshots on no ref's history (staged WAP snapshots) not older than
 *     older_than;
 * and snapshot_ids are expired in any case (not a ref's head: an error).
 * clean_expired_metadata => true (Java's cleanExpiredMetadata) also drops
 * the partition specs no manifest of a kept snapshot was written with and
 * the schemas no kept snapshot names, except the default spec and the
 * current schema.
 *
 * The metadata change is committed first; only then are files deleted:
 * those the expired snapshots reached (manifest lists, manifests, every
 * file their entries name, statistics files of expired snapshots) that no
 * kept snapshot reaches — through any entry of its manifests: a file a
 * kept snapshot deleted stays until that snapshot expires too (as Iceberg
 * Java's incremental cleanup keeps it), so a changelog between retained
 * snapshots can still read the rows it removed; then the DELETED entry,
 * in a manifest kept snapshots may still list, no longer holds it.  Manifests a kept
 * snapshot has are not even read for candidates (each manifest is read
 * once: 1,000 appends share ~10).  Metadata JSON files are left
 * to write.metadata.delete-after-commit / previous-versions-max.
 * max_concurrent_deletes => n deletes each kind's files on n threads (a
 * pool of n - 1 workers and the calling thread); without it, on the
 * calling thread alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>
#include <stdatomic.h>

#include "base/threadpool.h"

#include "floe/fileio.h"
#include "floe/iceberg_manifest.h"
#include "floe/memory.h"
#include "iceberg/update/table_update_internal.h"
#include "sql/procedures/proc_files.h"
#include "sql/procedures/procedure.h"
#include "sql/session_internal.h"

#define NAME_CAP 256
#define DEFAULT_MAX_SNAPSHOT_AGE_MS (5LL * 24 * 3600 * 1000)

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "CALL: out of memory"); }

typedef struct expire_ctx {
    /* Decided by the edit (redone on each commit attempt). */
    int64_t *removed;        /* snapshot ids */
    int32_t n_removed;
    /* Counts, by the after step. */
    int64_t n_data, n_pos, n_eq, n_manifests, n_lists, n_stats;
} expire_ctx;

static int64_t prop_i64(const floe_ice_table_metadata *md, const char *key, int64_t dflt) {
    const char *v = floe_ice_tm_property(md, key);
    if (!v || !*v) return dflt;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    return end && *end == 0 ? (int64_t)x : dflt;
}

static bool has_id(const int64_t *ids, int32_t n, int64_t id) {
    for (int32_t i = 0; i < n; i++)
        if (ids[i] == id) return true;
    return false;
}

static const floe_ice_snapshot *parent_of(const floe_ice_table_metadata *md, const floe_ice_snapshot *s) {
    return s->parent_snapshot_id == FLOE_ICE_NO_SNAPSHOT ? NULL : floe_ice_tm_snapshot(md, s->parent_snapshot_id);
}

/* Drop the JSON array entries of `arr` whose integer `key` is not in used[0..n) and is not `keep`. */
static void drop_unused(json_t *arr, const char *key, const int32_t *used, int32_t n, int64_t keep) {
    if (!json_is_array(arr)) return;
    for (size_t i = json_array_size(arr); i-- > 0;) {
        json_t *id = json_object_get(json_array_get(arr, i), key);
        if (!json_is_integer(id) || json_integer_value(id) == keep) continue;
        bool in = false;
        for (int32_t k = 0; k < n && !in; k++) in = used[k] == json_integer_value(id);
        if (!in) json_array_remove(arr, i);
    }
}

static floe_status add_used(int32_t **ids, int32_t *n, int32_t *cap, int32_t id) {
    for (int32_t k = 0; k < *n; k++)
        if ((*ids)[k] == id) return NULL;
    if (*n == *cap) {
        int32_t c = *cap ? *cap * 2 : 16;
        int32_t *grown = floe_realloc(*ids, (size_t)c * sizeof *grown);
        if (!grown) return oom();
        *ids = grown;
        *cap = c;
    }
    (*ids)[(*n)++] = id;
    return NULL;
}

/* clean_expired_metadata: the specs and schemas the kept snapshots use,
 * and whether some other than the default spec / current schema are not. */
typedef struct used_meta {
    int32_t *specs, n_specs, cap_specs;
    int32_t *schemas, n_schemas, cap_schemas;
} used_meta;

static floe_status collect_used(const floe_ice_table *t, const bool *keep, used_meta *u, bool *unused) {
    const floe_ice_table_metadata *md = t->md;
    floe_status st = NULL;
    for (int32_t i = 0; i < md->n_snapshots && !st; i++) {
        if (!keep[i]) continue;
        const floe_ice_snapshot *s = &md->snapshots[i];
        if (s->has_schema_id) st = add_used(&u->schemas, &u->n_schemas, &u->cap_schemas, s->schema_id);
        floe_ice_manifest_list *list = NULL;
        floe_ice_manifest_file *v1 = NULL;
        const floe_ice_manifest_file *files = NULL;
        size_t n = 0;
        if (!st) st = floe_ice_snapshot_manifests(t, s, &list, &v1, &files, &n);
        for (size_t k = 0; !st && k < n; k++)
            st = add_used(&u->specs, &u->n_specs, &u->cap_specs, v1 ? md->default_spec_id : files[k].partition_spec_id);
        floe_ice_manifest_list_free(list);
        floe_free(v1);
    }
    *unused = false;
    for (int32_t i = 0; !st && i < md->n_specs; i++) {
        int32_t id = md->specs[i]->spec_id;
        bool in = id == md->default_spec_id;
        for (int32_t k = 0; k < u->n_specs && !in; k++) in = u->specs[k] == id;
        *unused |= !in;
    }
    for (int32_t i = 0; !st && i < md->n_schemas; i++) {
        int32_t id = md->schemas[i]->schema_id;
        bool in = id == md->current_schema_id;
        for (int32_t k = 0; k < u->n_schemas && !in; k++) in = u->schemas[k] == id;
        *unused |= !in;
    }
    return st;
}

/* Keep the JSON array entries of `arr` whose `key` is not a removed id. */
static void drop_by_id(json_t *arr, const char *key, const int64_t *removed, int32_t n_removed) {
    if (!json_is_array(arr)) return;
    for (size_t i = json_array_size(arr); i-- > 0;) {
        json_t *id = json_object_get(json_array_get(arr, i), key);
        if (json_is_integer(id) && has_id(removed, n_removed, json_integer_value(id))) json_array_remove(arr, i);
    }
}

static floe_status expire_edit(floe_proc_call *call, const floe_ice_table *t, void *vctx,
                               floe_ice_table_metadata **out) {
    expire_ctx *c = vctx;
    const floe_ice_table_metadata *md = t->md;
    int64_t now = floe_ice_now_ms();
    const floe_proc_arg *older = floe_proc_get(call, "older_than");
    const floe_proc_arg *retain = floe_proc_get(call, "retain_last");
    const floe_proc_arg *ids = floe_proc_get(call, "snapshot_ids");
    int64_t older_than =
        older->given ? older->i64 : now - prop_i64(md, "history.expire.max-snapshot-age-ms", DEFAULT_MAX_SNAPSHOT_AGE_MS);
    int64_t min_keep = retain->given ? retain->i64 : prop_i64(md, "history.expire.min-snapshots-to-keep", 1);
    int64_t table_ref_age = prop_i64(md, "history.expire.max-ref-age-ms", INT64_MAX);
    const char *gc = floe_ice_tm_property(md, "gc.enabled");
    if (gc && strcasecmp(gc, "false") == 0) /* a snapshot table's files are another's too */
        return floe_proc_error(call, NULL, FLOE_ERR_INVALID_ARGUMENT,
                               "Cannot expire snapshots: GC is disabled (deleting files may corrupt other tables)");

    int32_t ns = md->n_snapshots;
    bool *keep = floe_calloc((size_t)ns + 1, sizeof(bool));
    bool *on_ref = floe_calloc((size_t)ns + 1, sizeof(bool));
    bool *drop_ref = floe_calloc((size_t)md->n_refs + 1, sizeof(bool));
    floe_free(c->removed);
    c->removed = floe_calloc((size_t)ns + 1, sizeof(int64_t));
    c->n_removed = 0;
    floe_status st = NULL;
    json_t *root = NULL;
    used_meta u;
    memset(&u, 0, sizeof u);
    if (!keep || !on_ref || !drop_ref || !c->removed) {
        st = oom();
        goto done;
    }
#define SNAP_INDEX(s) ((int32_t)((s) - md->snapshots))
    for (int32_t r = 0; r < md->n_refs && !st; r++) {
        const floe_ice_snapshot_ref *ref = &md->refs[r];
        const floe_ice_snapshot *head = floe_ice_tm_snapshot(md, ref->snapshot_id);
        bool is_main = !strcmp(ref->name, "main");
        int64_t max_age = ref->max_ref_age_ms >= 0 ? ref->max_ref_age_ms : table_ref_age;
        if (!is_main && (!head || now - head->timestamp_ms > max_age)) {
            drop_ref[r] = true;
            continue;
        }
        if (!head) continue;
        if (ids->given && has_id(ids->longs, ids->n, head->snapshot_id)) {
            st = floe_proc_error(call, ids, FLOE_ERR_INVALID_ARGUMENT,
                                 "cannot expire %lld: still referenced by ref %s", (long long)head->snapshot_id,
                                 ref->name);
            break;
        }
        for (const floe_ice_snapshot *s = head; s; s = parent_of(md, s)) on_ref[SNAP_INDEX(s)] = true;
        if (ref->is_tag) {
            keep[SNAP_INDEX(head)] = true;
            continue;
        }
        int64_t before = ref->max_snapshot_age_ms >= 0 ? now - ref->max_snapshot_age_ms : older_than;
        int64_t n_keep = ref->min_snapshots_to_keep >= 0 ? ref->min_snapshots_to_keep : min_keep;
        int64_t kept = 0;
        for (const floe_ice_snapshot *s = head; s; s = parent_of(md, s), kept++) {
            if (kept < n_keep || s->timestamp_ms >= before) keep[SNAP_INDEX(s)] = true;
            else break;
        }
    }
    if (st) goto done;
    for (int32_t i = 0; i < ns; i++) {
        const floe_ice_snapshot *s = &md->snapshots[i];
        if (!on_ref[i] && s->timestamp_ms >= older_than) keep[i] = true;
        if (ids->given && has_id(ids->longs, ids->n, s->snapshot_id)) keep[i] = false;
        if (!keep[i]) c->removed[c->n_removed++] = s->snapshot_id;
    }
    bool any_ref_dropped = false;
    for (int32_t r = 0; r < md->n_refs; r++) any_ref_dropped |= drop_ref[r];
    const floe_proc_arg *clean = floe_proc_get(call, "clean_expired_metadata");
    bool unused = false;
    if (clean->given && clean->b) st = collect_used(t, keep, &u, &unused);
    if (st) goto done;
    if (c->n_removed == 0 && !any_ref_dropped && !unused) goto done; /* nothing to commit */

    st = floe_ice_tm_edit_begin(md, &root);
    if (st) goto done;
    drop_by_id(json_object_get(root, "snapshots"), "snapshot-id", c->removed, c->n_removed);
    drop_by_id(json_object_get(root, "statistics"), "snapshot-id", c->removed, c->n_removed);
    drop_by_id(json_object_get(root, "partition-statistics"), "snapshot-id", c->removed, c->n_removed);
    if (unused) {
        drop_unused(json_object_get(root, "partition-specs"), "spec-id", u.specs, u.n_specs, md->default_spec_id);
        drop_unused(json_object_get(root, "schemas"), "schema-id", u.schemas, u.n_schemas, md->current_schema_id);
    }
    json_t *refs = json_object_get(root, "refs");
    for (int32_t r = 0; r < md->n_refs; r++)
        if (drop_ref[r] && refs) json_object_del(refs, md->refs[r].name);
    /* The snapshot log keeps only the entries after the last one whose
     * snapshot is gone (Java's updateSnapshotLog). */
    json_t *log = json_object_get(root, "snapshot-log");
    if (json_is_array(log)) {
        size_t first = 0;
        for (size_t i = 0; i < json_array_size(log); i++) {
            json_t *id = json_object_get(json_array_get(log, i), "snapshot-id");
            int64_t v = json_is_integer(id) ? json_integer_value(id) : FLOE_ICE_NO_SNAPSHOT;
            if (has_id(c->removed, c->n_removed, v) || !floe_ice_tm_snapshot(md, v)) first = i + 1;
        }
        for (size_t i = 0; i < first; i++) json_array_remove(log, 0);
    }
    st = floe_ice_tm_edit_finish(md, root, out);
    root = NULL;
done:
#undef SNAP_INDEX
    json_decref(root);
    floe_free(u.specs);
    floe_free(u.schemas);
    floe_free(keep);
    floe_free(on_ref);
    floe_free(drop_ref);
    return st;
}

/* One kind's files to delete, shared by the deleting threads. */
typedef struct delete_job {
    floe_fileio *io;
    const char **locations;
    atomic_llong done;
} delete_job;

static floe_status delete_range(void *vjob, size_t begin, size_t end, const floe_cancel *cancel) {
    delete_job *j = vjob;
    for (size_t i = begin; i < end; i++) {
        FLOE_TRY(floe_cancel_check(cancel, "expire_snapshots: deleting files"));
        FLOE_TRY(floe_fileio_delete(j->io, j->locations[i]));
        atomic_fetch_add(&j->done, 1);
    }
    return NULL;
}

/* Delete locations[0..n) on `pool` (NULL: this thread); *deleted counts
 * those gone, also on failure. */
static floe_status delete_all(floe_threadpool *pool, floe_fileio *io, const char **locations, size_t n,
                              int64_t *deleted) {
    delete_job j = {io, locations, 0};
    floe_status st = pool && n > 1 ? floe_parallel_for(pool, n, 1, delete_range, &j, NULL)
                                   : delete_range(&j, 0, n, NULL);
    *deleted += (int64_t)atomic_load(&j.done);
    return st;
}

/* Delete what the expired snapshots reached and the kept ones do not. */
static floe_status expire_after(floe_proc_call *call, const floe_ice_table *base, const floe_ice_table_metadata *md,
                                void *vctx) {
    expire_ctx *c = vctx;
    const floe_proc_arg *mcd = floe_proc_get(call, "max_concurrent_deletes");
    floe_ice_table now_t = *base;
    now_t.md = (floe_ice_table_metadata *)md;
    proc_file_set kept, gone;
    proc_file_set_init(&kept);
    proc_file_set_init(&gone);
    floe_status st = NULL;
    for (int32_t i = 0; i < md->n_snapshots && !st; i++)
        st = proc_file_add_kept_snapshot(&kept, &gone, &now_t, &md->snapshots[i]);
    for (int32_t i = 0; i < md->n_statistics && !st; i++)
        st = proc_file_add(&kept, PROC_FILE_STATISTICS, md->statistics[i].path);
    for (int32_t i = 0; i < md->n_partition_statistics && !st; i++)
        st = proc_file_add(&kept, PROC_FILE_STATISTICS, md->partition_statistics[i].path);
    for (int32_t i = 0; i < c->n_removed && !st; i++) {
        const floe_ice_snapshot *s = floe_ice_tm_snapshot(base->md, c->removed[i]);
        if (s) st = proc_file_add_snapshot_except(&gone, base, s, false, &kept);
    }
    for (int32_t i = 0; i < base->md->n_statistics && !st; i++)
        st = proc_file_add(&gone, PROC_FILE_STATISTICS, base->md->statistics[i].path);
    for (int32_t i = 0; i < base->md->n_partition_statistics && !st; i++)
        st = proc_file_add(&gone, PROC_FILE_STATISTICS, base->md->partition_statistics[i].path);
    /* Data and delete files first, lists last: a crash midway leaves
     * only unreachable files, which remove_orphan_files finds. */
    static const proc_file_kind order[] = {PROC_FILE_DATA, PROC_FILE_POS_DELETES, PROC_FILE_EQ_DELETES,
                                           PROC_FILE_STATISTICS, PROC_FILE_MANIFEST, PROC_FILE_MANIFEST_LIST};
    int64_t *count[] = {&c->n_data, &c->n_pos, &c->n_eq, &c->n_stats, &c->n_manifests, &c->n_lists};
    floe_threadpool *pool = NULL;
    if (!st && mcd->given && mcd->i64 > 1)
        st = floe_threadpool_create((size_t)(mcd->i64 - 1 < FLOE_THREADPOOL_MAX_THREADS ? mcd->i64 - 1
                                                                                       : FLOE_THREADPOOL_MAX_THREADS),
                                    &pool);
    const char **locations = st ? NULL : floe_calloc(gone.files.cap + 1, sizeof *locations);
    if (!st && !locations) st = oom();
    for (size_t k = 0; k < sizeof order / sizeof order[0] && !st; k++) {
        floe_strmap_entry *slots = gone.files.slots;
        size_t n = 0;
        for (size_t i = 0; i < gone.files.cap; i++) {
            proc_file *f = slots[i].key ? slots[i].value : NULL;
            if (f && f->kind == order[k] && !proc_file_has(&kept, f->location)) locations[n++] = f->location;
        }
        st = delete_all(pool, base->io, locations, n, count[k]);
    }
    floe_free(locations);
    if (pool) floe_threadpool_destroy(pool);
    proc_file_set_free(&kept);
    proc_file_set_free(&gone);
    if (st) st = floe_status_wrap(st, "expire_snapshots: the snapshots were expired, but deleting their files failed");
    return st;
}

static floe_status expire_snapshots(floe_proc_call *call) {
    const floe_proc_arg *retain = floe_proc_get(call, "retain_last");
    if (retain->given && retain->i64 < 1)
        return floe_proc_error(call, retain, FLOE_ERR_INVALID_ARGUMENT,
                               "number of snapshots to retain must be at least 1, cannot be: %lld",
                               (long long)retain->i64);
    const floe_proc_arg *mcd = floe_proc_get(call, "max_concurrent_deletes");
    if (mcd->given && mcd->i64 <= 0)
        return floe_proc_error(call, mcd, FLOE_ERR_INVALID_ARGUMENT, "max_concurrent_deletes should have value > 0, value: %lld",
                               (long long)mcd->i64);
    char ns[NAME_CAP], name[NAME_CAP];
    FLOE_TRY(floe_proc_table_name(call, floe_proc_get(call, "table"), ns, NAME_CAP, name, NAME_CAP));
    expire_ctx c;
    memset(&c, 0, sizeof(c));
    floe_status st = floe_proc_commit_then(call, ns, name, expire_edit, expire_after, &c);
    floe_free(c.removed);
    FLOE_TRY(st);
    FLOE_TRY(floe_proc_add_row(call));
    FLOE_TRY(floe_proc_add_long(call, c.n_data));
    FLOE_TRY(floe_proc_add_long(call, c.n_pos));
    FLOE_TRY(floe_proc_add_long(call, c.n_eq));
    FLOE_TRY(floe_proc_add_long(call, c.n_manifests));
    FLOE_TRY(floe_proc_add_long(call, c.n_lists));
    return floe_proc_add_long(call, c.n_stats);
}

static const floe_proc_param k_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"older_than", FLOE_PROC_TIMESTAMP, false},
    {"retain_last", FLOE_PROC_LONG, false},
    {"max_concurrent_deletes", FLOE_PROC_LONG, false},
    {"stream_results", FLOE_PROC_BOOL, false},
    {"snapshot_ids", FLOE_PROC_LONG_ARRAY, false},
    {"clean_expired_metadata", FLOE_PROC_BOOL, false},
    {"retention_threshold", FLOE_PROC_STRING, false}, /* Trino's form only (n_params 8) */
};
static const floe_proc_column k_columns[] = {
    {"deleted_data_files_count", FLOE_PROC_LONG},
    {"deleted_position_delete_files_count", FLOE_PROC_LONG},
    {"deleted_equality_delete_files_count", FLOE_PROC_LONG},
    {"deleted_manifest_files_count", FLOE_PROC_LONG},
    {"deleted_manifest_lists_count", FLOE_PROC_LONG},
    {"deleted_statistics_files_count", FLOE_PROC_LONG},
};
const floe_proc_def floe_proc_expire_snapshots = {"expire_snapshots", k_params, 7, k_columns, 6, expire_snapshots,
                                                  true};

/* Trino's ALTER TABLE t EXECUTE expire_snapshots(retention_threshold =>
 * '7d'): Spark's procedure with older_than = now - the threshold. */
static floe_status trino_expire_snapshots(floe_proc_call *call) {
    FLOE_TRY(floe_proc_trino_retention(call, call->s->opts.expire_snapshots_min_retention_s,
                                       "expire_snapshots_min_retention_s"));
    return expire_snapshots(call);
}
const floe_proc_def floe_proc_trino_expire_snapshots = {"expire_snapshots", k_params, 8, k_columns, 6,
                                                        trino_expire_snapshots, true};
