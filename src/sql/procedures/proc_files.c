/*
 * proc_files.c — sets of files table metadata reaches (proc_files.h).
 */
#include <stdio.h>
#include <string.h>

#include "base/str.h"
#include "floe/iceberg_manifest.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "sql/procedures/proc_files.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "CALL: out of memory"); }

void proc_file_set_init(proc_file_set *s) { floe_strmap_init(&s->files); }

static void file_free(void *v) {
    proc_file *f = v;
    if (!f) return;
    floe_free(f->location);
    floe_free(f);
}

void proc_file_set_free(proc_file_set *s) { floe_strmap_free_with(&s->files, file_free); }

char *proc_file_key(const char *location) {
    const char *p = location;
    const char *scheme = NULL;
    if (!strncmp(p, "s3a://", 6) || !strncmp(p, "s3n://", 6)) {
        scheme = "s3://";
        p += 6;
    } else if (!strncmp(p, "s3://", 5)) {
        scheme = "s3://";
        p += 5;
    } else if (!strncmp(p, "file://", 7)) {
        p += 7;
    } else if (!strncmp(p, "file:", 5)) {
        p += 5;
    }
    size_t n = strlen(p);
    char *out = floe_malloc(n + 8);
    if (!out) return NULL;
    size_t k = 0;
    if (scheme) {
        memcpy(out, scheme, 5);
        k = 5;
    }
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '/' && k > 0 && out[k - 1] == '/' && !(scheme && k == 5)) continue;
        out[k++] = p[i];
    }
    out[k] = 0;
    return out;
}

floe_status proc_file_add(proc_file_set *s, proc_file_kind kind, const char *location) {
    if (!location || !*location) return NULL;
    char *key = proc_file_key(location);
    if (!key) return oom();
    void **slot = NULL;
    bool inserted = false;
    floe_status st = floe_strmap_upsert(&s->files, floe_str_c(key), &slot, &inserted);
    floe_free(key);
    if (st || !inserted) return st;
    proc_file *f = floe_calloc(1, sizeof(*f));
    if (f) f->location = floe_strdup(location);
    if (!f || !f->location) {
        floe_free(f);
        return oom();
    }
    f->kind = kind;
    *slot = f;
    return NULL;
}

bool proc_file_has(const proc_file_set *s, const char *location) {
    char *key = proc_file_key(location);
    if (!key) return false;
    bool has = floe_strmap_contains(&s->files, floe_str_c(key));
    floe_free(key);
    return has;
}

static proc_file_kind content_kind(const floe_ice_data_file *f) {
    if (f->content == FLOE_ICE_CONTENT_POSITION_DELETES) return PROC_FILE_POS_DELETES;
    if (f->content == FLOE_ICE_CONTENT_EQUALITY_DELETES) return PROC_FILE_EQ_DELETES;
    return PROC_FILE_DATA;
}

floe_status proc_file_add_snapshot(proc_file_set *s, const floe_ice_table *t, const floe_ice_snapshot *snap,
                                   bool live_only) {
    return proc_file_add_snapshot_except(s, t, snap, live_only, NULL);
}

/* The walk of both: entries go to `s`, except (when `aside` is given)
 * DELETED ones whose deleting snapshot `t` no longer has, which go there. */
static floe_status add_snapshot_files(proc_file_set *s, const floe_ice_table *t, const floe_ice_snapshot *snap,
                                      bool live_only, const proc_file_set *except, proc_file_set *aside);

floe_status proc_file_add_kept_snapshot(proc_file_set *kept, proc_file_set *gone, const floe_ice_table *t,
                                        const floe_ice_snapshot *snap) {
    return add_snapshot_files(kept, t, snap, false, NULL, gone);
}

floe_status proc_file_add_snapshot_except(proc_file_set *s, const floe_ice_table *t, const floe_ice_snapshot *snap,
                                          bool live_only, const proc_file_set *except) {
    return add_snapshot_files(s, t, snap, live_only, except, NULL);
}

static floe_status add_snapshot_files(proc_file_set *s, const floe_ice_table *t, const floe_ice_snapshot *snap,
                                      bool live_only, const proc_file_set *except, proc_file_set *aside) {
    floe_ice_manifest_list *list = NULL;
    floe_ice_manifest_file *v1 = NULL;
    const floe_ice_manifest_file *files = NULL;
    size_t n = 0;
    floe_status st = proc_file_add(s, PROC_FILE_MANIFEST_LIST, snap->manifest_list);
    if (!st) st = floe_ice_snapshot_manifests(t, snap, &list, &v1, &files, &n);
    if (st) return floe_status_wrap(st, "listing manifests of snapshot %lld", (long long)snap->snapshot_id);
    for (size_t i = 0; i < n && !st; i++) {
        if (proc_file_has(s, files[i].manifest_path) || (except && proc_file_has(except, files[i].manifest_path)))
            continue;
        st = proc_file_add(s, PROC_FILE_MANIFEST, files[i].manifest_path);
        floe_ice_manifest *m = NULL;
        if (!st) st = floe_ice_table_read_manifest(t, &files[i], &files[i], &m);
        if (st) {
            st = floe_status_wrap(st, "reading manifest '%s'", files[i].manifest_path);
            break;
        }
        for (size_t e = 0; e < m->n_entries && !st; e++) {
            const floe_ice_manifest_entry *en = &m->entries[e];
            if (live_only && en->status == FLOE_ICE_STATUS_DELETED) continue;
            bool dead = aside && en->status == FLOE_ICE_STATUS_DELETED && !floe_ice_tm_snapshot(t->md, en->snapshot_id);
            st = proc_file_add(dead ? aside : s, content_kind(&en->file), en->file.file_path);
        }
        floe_ice_manifest_free(m);
    }
    floe_ice_manifest_list_free(list);
    floe_free(v1);
    return st;
}

floe_status proc_file_add_table(proc_file_set *s, const floe_ice_table *t) {
    const floe_ice_table_metadata *md = t->md;
    for (int32_t i = 0; i < md->n_snapshots; i++) FLOE_TRY(proc_file_add_snapshot(s, t, &md->snapshots[i], false));
    for (int32_t i = 0; i < md->n_statistics; i++)
        FLOE_TRY(proc_file_add(s, PROC_FILE_STATISTICS, md->statistics[i].path));
    for (int32_t i = 0; i < md->n_partition_statistics; i++)
        FLOE_TRY(proc_file_add(s, PROC_FILE_STATISTICS, md->partition_statistics[i].path));
    for (int32_t i = 0; i < md->n_metadata_log; i++)
        FLOE_TRY(proc_file_add(s, PROC_FILE_METADATA, md->metadata_log[i].file));
    FLOE_TRY(proc_file_add(s, PROC_FILE_METADATA, t->metadata_location));
    if (md->location) {
        char hint[4096];
        snprintf(hint, sizeof hint, "%s/metadata/version-hint.text", md->location);
        FLOE_TRY(proc_file_add(s, PROC_FILE_METADATA, hint));
    }
    return NULL;
}
