/*
 * table_row_delta.c — the metadata half of a row-level change (DELETE,
 * UPDATE, MERGE): added data files, added delete files that each apply to
 * one live data file, and data files removed whole (copy-on-write), as one
 * snapshot.  See floe_ice_tm_row_delta_snapshot in iceberg_table_update.h
 * and floe_row_delta in catalog.h; Iceberg Java's BaseRowDelta and
 * BaseOverwriteFiles are the model.
 *
 * A delete file names the data file it applies to (referenced_data_file,
 * or equal file_path bounds).  That data file must be live; the delete file
 * then takes its partition spec and tuple, whatever the writer encoded:
 * the data file may predate a spec change, and a reader that matches
 * position deletes by partition (as Java's DeleteFileIndex does for files
 * without a reference) must find it in the same partition.  Delete files
 * therefore land in one delete manifest per spec (the producer's job).  A
 * v2 position delete file also gets file_path bounds equal to the path when
 * it has none, as Java writes file-scoped deletes, so readers that only
 * look at bounds scope it to that one file.
 *
 * Removed data files take the delete files that only applied to them
 * along (floe_ice_producer_drop_orphan_deletes).
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "base/hashmap.h"
#include "floe/catalog.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/snapshot/snapshot_producer.h"

/* The reserved field id of a position delete file's file_path column. */
#define POS_DELETE_FILE_PATH_ID 2147483546

typedef struct delta_ctx {
    floe_ice_producer *p;
    const floe_row_delta *d;
    floe_strmap live;                /* recorded and resolved path of each live data file -> index + 1 */
    floe_ice_data_file *deletes;     /* the added delete files, decoded */
    size_t *targets;                 /* per delete file: the live data file it applies to */
} delta_ctx;

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building a row delta"); }

static floe_status index_live(delta_ctx *x) {
    floe_ice_producer *p = x->p;
    for (size_t i = 0; i < p->n_files; i++) {
        const floe_ice_live_file *lf = &p->files[i];
        if (lf->file.content != FLOE_ICE_CONTENT_DATA) continue;
        void *v = (void *)(uintptr_t)(i + 1);
        FLOE_TRY(floe_strmap_put_c(&x->live, lf->file.file_path, v, NULL));
        if (lf->resolved_path) FLOE_TRY(floe_strmap_put_c(&x->live, lf->resolved_path, v, NULL));
    }
    return NULL;
}

/* The live data file at `path` (as recorded, or resolving to the same
 * place): its index, or false. */
static floe_status find_live(delta_ctx *x, const char *path, size_t *idx, bool *found) {
    *found = false;
    void *v = floe_strmap_get_c(&x->live, path);
    if (!v) {
        char *rp = NULL;
        FLOE_TRY(floe_ice_table_resolve_path(x->p->t, path, &rp));
        v = floe_strmap_get_c(&x->live, rp);
        floe_free(rp);
    }
    if (v) {
        *idx = (size_t)(uintptr_t)v - 1;
        *found = true;
    }
    return NULL;
}

static floe_status not_live(const delta_ctx *x, const char *what, const char *path) {
    const floe_ice_snapshot *cur = x->p->parent;
    if (!cur)
        return floe_error(FLOE_ERR_CONFLICT, "row delta: %s %s is not a live data file: the table has no snapshot", what,
                          path);
    return floe_error(FLOE_ERR_CONFLICT, "row delta: %s %s is not a live data file of snapshot %" PRId64 " (removed by "
                      "a concurrent commit?)", what, path, cur->snapshot_id);
}

static floe_status remove_paths(delta_ctx *x) {
    for (int32_t i = 0; i < x->d->n_removed; i++) {
        const char *path = x->d->removed_paths[i];
        if (!path) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: removed path %d is NULL", (int)i + 1);
        size_t k = 0;
        bool found = false;
        FLOE_TRY(find_live(x, path, &k, &found));
        if (!found) return not_live(x, "removed file", path);
        floe_ice_producer_remove(x->p, k);
    }
    return NULL;
}

/* A bound map with `key` set to `path` (the others kept), in the arena. */
static floe_status with_path_bound(floe_ice_producer *p, const floe_ice_bound_map *m, const char *path,
                                   floe_ice_bound_map *out) {
    int32_t n = m->n < 0 ? 0 : m->n;
    for (int32_t k = 0; k < n; k++)
        if (m->keys[k] == POS_DELETE_FILE_PATH_ID) n--; /* replaced below */
    int32_t *keys = floe_arena_calloc(&p->arena, (size_t)n + 1, sizeof *keys);
    const uint8_t **values = floe_arena_calloc(&p->arena, (size_t)n + 1, sizeof *values);
    uint32_t *lens = floe_arena_calloc(&p->arena, (size_t)n + 1, sizeof *lens);
    if (!keys || !values || !lens) return oom();
    int32_t j = 0;
    for (int32_t k = 0; k < (m->n < 0 ? 0 : m->n); k++) {
        if (m->keys[k] == POS_DELETE_FILE_PATH_ID) continue;
        keys[j] = m->keys[k], values[j] = m->values[k], lens[j] = m->lens[k];
        j++;
    }
    keys[j] = POS_DELETE_FILE_PATH_ID, values[j] = (const uint8_t *)path, lens[j] = (uint32_t)strlen(path);
    *out = (floe_ice_bound_map){j + 1, keys, values, lens};
    return NULL;
}

static bool has_bound(const floe_ice_bound_map *m) {
    for (int32_t k = 0; k < m->n; k++)
        if (m->keys[k] == POS_DELETE_FILE_PATH_ID) return true;
    return false;
}

/* Check added delete file i, find the live data file it applies to and
 * give it that file's spec and partition. */
static floe_status place_delete(delta_ctx *x, int32_t i) {
    floe_ice_producer *p = x->p;
    floe_ice_data_file *f = &x->deletes[i];
    if (f->content != FLOE_ICE_CONTENT_POSITION_DELETES)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: delete file %s holds %s; only position deletes "
                          "(or deletion vectors), each for one data file, are taken", f->file_path,
                          floe_ice_content_name(f->content));
    const char *ref = floe_ice_producer_single_reference(p, f);
    if (!ref)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: delete file %s names no single data file "
                          "(referenced_data_file, or equal file_path bounds)", f->file_path);
    if (f->referenced_data_file && (has_bound(&f->lower_bounds) || has_bound(&f->upper_bounds))) {
        /* Bounds and the reference must agree, else readers disagree. */
        f->referenced_data_file = NULL;
        const char *by_bounds = floe_ice_producer_single_reference(p, f);
        f->referenced_data_file = ref;
        if (!by_bounds || strcmp(by_bounds, ref) != 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: delete file %s references %s but its file_path "
                              "bounds do not name that file alone", f->file_path, ref);
    }
    size_t k = 0;
    bool found = false;
    FLOE_TRY(find_live(x, ref, &k, &found));
    if (!found) return floe_status_wrap(not_live(x, "data file", ref), "delete file %s references it", f->file_path);
    if (p->removed[k])
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: delete file %s applies to %s, which the same "
                          "change removes", f->file_path, ref);
    const floe_ice_data_file *target = &p->files[k].file;
    x->targets[i] = k;
    f->spec_id = target->spec_id;
    f->n_partition = target->n_partition;
    f->partition = target->partition;
    f->partition_ids = target->partition_ids;
    /* Name the data file as the manifests record it, so every reader
     * matches the reference (a moved table's resolved path would not). */
    f->referenced_data_file = target->file_path;
    if (!floe_ice_is_dv(f) && !has_bound(&f->lower_bounds) && !has_bound(&f->upper_bounds)) {
        FLOE_TRY(with_path_bound(p, &f->lower_bounds, target->file_path, &f->lower_bounds));
        FLOE_TRY(with_path_bound(p, &f->upper_bounds, target->file_path, &f->upper_bounds));
    }
    return NULL;
}

static floe_status run(delta_ctx *x, const char *const *kv, int32_t n_kv, floe_ice_table_metadata **out,
                       floe_ice_append_files *w) {
    floe_ice_producer *p = x->p;
    const floe_row_delta *d = x->d;
    if (d->n_data > 0) FLOE_TRY(floe_ice_producer_add_records(p, d->data_files, d->data_lens, d->n_data));
    if (d->n_deletes > 0) {
        if (p->md->format_version < 2)
            return floe_error(FLOE_ERR_UNSUPPORTED, "row delta: format version 1 tables have no delete files");
        FLOE_TRY(floe_ice_producer_decode_records(p, d->delete_files, d->delete_lens, d->n_deletes, &x->deletes));
        x->targets = floe_arena_calloc(&p->arena, (size_t)d->n_deletes, sizeof *x->targets);
        if (!x->targets) return oom();
    }
    /* Every manifest: the files named may be anywhere. */
    FLOE_TRY(floe_ice_producer_load_live(p, NULL, NULL));
    FLOE_TRY(index_live(x));
    FLOE_TRY(remove_paths(x));
    for (int32_t i = 0; i < d->n_deletes; i++) FLOE_TRY(place_delete(x, i));
    if (d->n_deletes > 0) FLOE_TRY(floe_ice_producer_add_delete_files(p, x->deletes, d->n_deletes));
    FLOE_TRY(floe_ice_producer_drop_orphan_deletes(p));
    const char *op = d->n_data > 0 ? "overwrite" : "delete";
    return floe_ice_producer_commit(p, op, NULL, 0, kv, n_kv, out, w);
}

floe_status floe_ice_tm_row_delta_snapshot(const floe_ice_table *t, const struct floe_row_delta *d,
                                           const char *const *summary_kv, int32_t n_kv,
                                           floe_ice_table_metadata **out, floe_ice_append_files *written) {
    *out = NULL;
    memset(written, 0, sizeof *written);
    if (!t || !t->md || !d || d->n_data < 0 || d->n_deletes < 0 || d->n_removed < 0 ||
        (d->n_data > 0 && (!d->data_files || !d->data_lens)) ||
        (d->n_deletes > 0 && (!d->delete_files || !d->delete_lens)) || (d->n_removed > 0 && !d->removed_paths) ||
        n_kv < 0 || (n_kv > 0 && !summary_kv))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: bad arguments (table, files, removed paths or "
                          "summary pairs)");
    if (d->n_data == 0 && d->n_deletes == 0 && d->n_removed == 0) return NULL; /* nothing to do */
    floe_ice_producer p;
    delta_ctx x;
    memset(&x, 0, sizeof x);
    x.p = &p;
    x.d = d;
    floe_strmap_init(&x.live);
    floe_status st = floe_ice_producer_init(&p, t, "row delta");
    if (!st) st = run(&x, summary_kv, n_kv, out, written);
    floe_strmap_free(&x.live);
    floe_ice_producer_destroy(&p);
    if (st) floe_ice_append_files_discard(t, written);
    return st;
}
