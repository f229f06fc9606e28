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
 * v2 position delete file also gets file_path bounds equal to the path, as
 * Java writes file-scoped deletes, so readers that only look at bounds
 * scope it to that one file.
 *
 * Removed data files take the delete files that only applied to them
 * along (floe_ice_producer_drop_orphan_deletes).  In format version 3 added
 * position deletes are deletion vectors (the producer refuses others), and
 * a DV replaces the older deletes of its data file (see
 * replace_old_deletes).
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

/* The conflict filter projected onto one partition spec, made on first use. */
typedef struct spec_proj {
    int32_t spec_id;
    const floe_ice_partition_spec *spec;
    floe_ice_expr *inclusive;
} spec_proj;

typedef struct delta_ctx {
    floe_ice_producer *p;
    const floe_row_delta *d;
    floe_strmap live;                /* recorded and resolved path of each live data file -> index + 1 */
    floe_ice_data_file *deletes;     /* the added delete files, decoded */
    size_t *targets;                 /* per delete file: the live data file it applies to */
    size_t *touched;                 /* live data files removed or given deletes (indexes) */
    size_t n_touched;
    floe_ice_expr *filter;           /* conflict_filter bound, NOT-free; NULL: the whole table */
    spec_proj *projs;
    int32_t n_projs;
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
        return floe_error(FLOE_ERR_CONFLICT, "row delta: %s %s is not a live data file: the table has no snapshot",
                          what, path);
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

/* Mark the delete files d->removed_delete_paths removed (each live). */
static floe_status remove_delete_paths(delta_ctx *x) {
    floe_ice_producer *p = x->p;
    for (int32_t i = 0; i < x->d->n_removed_deletes; i++) {
        const char *path = x->d->removed_delete_paths[i];
        if (!path) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: removed delete file %d is NULL", (int)i + 1);
        bool found = false;
        for (size_t k = 0; k < p->n_files && !found; k++) {
            const floe_ice_live_file *lf = &p->files[k];
            if (lf->file.content == FLOE_ICE_CONTENT_DATA || strcmp(lf->file.file_path, path) != 0) continue;
            floe_ice_producer_remove(p, k);
            found = true;
        }
        if (!found)
            return floe_error(FLOE_ERR_CONFLICT, "row delta: removed delete file %s is not a live delete file of the "
                              "current snapshot (removed by a concurrent commit?)", path);
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
    /* A v2 file's file_path bounds become that exact path: readers that
     * scope position deletes by bounds (no reference) then find it, and a
     * writer's truncated bounds (metrics mode truncate(16)) would not name
     * one file.  DVs carry no bounds, as Java writes them. */
    if (!floe_ice_is_dv(f)) {
        FLOE_TRY(with_path_bound(p, &f->lower_bounds, target->file_path, &f->lower_bounds));
        FLOE_TRY(with_path_bound(p, &f->upper_bounds, target->file_path, &f->upper_bounds));
    }
    return NULL;
}

/* ---- deletion vectors replacing older deletes --------------------------------
 *
 * At most one DV is live per data file (spec: a DV must be the only
 * position deletes of its data file in a snapshot), and readers ignore
 * every other position delete file of a data file that has one.  So a new
 * DV — into which the caller merged the positions already deleted —
 * removes in the same commit the data file's live DV and, as Java 1.8+
 * does, the v2 position delete files scoped to that file alone (by
 * reference or equal file_path bounds).  Partition-scoped position delete
 * files stay: they apply to other files too. */
static floe_status replace_old_deletes(delta_ctx *x) {
    floe_ice_producer *p = x->p;
    /* Per live file: the new DV for it (index + 1), or 0. */
    int32_t *dv_of = floe_calloc(p->n_files + 1, sizeof *dv_of);
    if (!dv_of) return oom();
    floe_status st = NULL;
    bool any = false;
    for (int32_t i = 0; !st && i < x->d->n_deletes; i++) {
        if (!floe_ice_is_dv(&x->deletes[i])) continue;
        size_t k = x->targets[i];
        if (dv_of[k])
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: deletion vectors %s and %s both apply to %s; a "
                            "data file has one DV", x->deletes[dv_of[k] - 1].file_path, x->deletes[i].file_path,
                            p->files[k].file.file_path);
        dv_of[k] = i + 1;
        any = true;
    }
    for (size_t k = 0; !st && any && k < p->n_files; k++) {
        const floe_ice_data_file *f = &p->files[k].file;
        if (f->content != FLOE_ICE_CONTENT_POSITION_DELETES || p->removed[k]) continue;
        const char *ref = floe_ice_producer_single_reference(p, f);
        if (!ref) continue;
        size_t target = 0;
        bool found = false;
        st = find_live(x, ref, &target, &found);
        if (!st && found && dv_of[target]) floe_ice_producer_remove(p, k);
    }
    floe_free(dv_of);
    return st;
}

/* ---- validation against concurrent commits --------------------------------
 *
 * The statement read snapshot base_snapshot_id; commits that landed since
 * may make its change wrong, as Java's RowDelta / OverwriteFiles validate:
 *   - a data file it removes or references no longer live: found above,
 *     against the current snapshot (validateDataFilesExist);
 *   - serializable: a data file added since (append, overwrite) that may
 *     hold rows the statement would have changed had it seen them
 *     (validateNoConflictingDataFiles) — the conflict filter, projected
 *     inclusively onto the file's spec, against its partition and metrics;
 *   - a delete file added since (overwrite, delete) that applies to a data
 *     file the change removes or writes deletes for: removing the file
 *     would resurrect nothing but silently drop those deletes' effect, and
 *     a second delete of the same row (UPDATE) would duplicate it
 *     (validateNoNewDeletesForDataFiles, validateAddedDVs, and — per data
 *     file, not per filter — validateNoNewDeleteFiles).
 * A position delete file or DV applies to the file it names
 * (referenced_data_file or equal file_path bounds); without one, as
 * Java's DeleteFileIndex matches it, to the data files of its spec and
 * partition whose path lies within its file_path bounds (all of them when
 * it has none).  An equality delete file applies to the data of its
 * partition, or of the whole table when its spec is unpartitioned, with a
 * lower sequence number.  Every such conflict is final. */

/* Operations that may add data files / delete files (Java's
 * VALIDATE_ADDED_FILES_OPERATIONS, VALIDATE_ADDED_DELETE_FILES_OPERATIONS);
 * a snapshot without an operation may have done anything. */
static bool may_add_data(const floe_ice_snapshot *s) {
    return !s->operation || strcmp(s->operation, "append") == 0 || strcmp(s->operation, "overwrite") == 0;
}

static bool may_add_deletes(const floe_ice_snapshot *s) {
    return !s->operation || strcmp(s->operation, "overwrite") == 0 || strcmp(s->operation, "delete") == 0;
}

static floe_status projection(delta_ctx *x, int32_t spec_id, const spec_proj **out) {
    *out = NULL;
    for (int32_t i = 0; i < x->n_projs; i++)
        if (x->projs[i].spec_id == spec_id) {
            *out = &x->projs[i];
            return NULL;
        }
    const floe_ice_partition_spec *spec = floe_ice_tm_spec(x->p->md, spec_id);
    if (!spec || x->n_projs >= x->p->md->n_specs) return NULL; /* unknown spec: cannot prune */
    spec_proj *sp = &x->projs[x->n_projs];
    memset(sp, 0, sizeof *sp);
    sp->spec_id = spec_id;
    sp->spec = spec;
    FLOE_TRY_CTX(floe_ice_expr_project_inclusive(x->filter, spec, &sp->inclusive), "row delta: projecting the "
                 "conflict filter onto partition spec %d", (int)spec_id);
    x->n_projs++;
    *out = sp;
    return NULL;
}

/* May data file f (of manifest spec spec_id) hold rows matching the filter? */
static floe_status may_match(delta_ctx *x, int32_t spec_id, const floe_ice_data_file *f, bool *may) {
    *may = true;
    if (!x->filter) return NULL;
    const spec_proj *sp = NULL;
    FLOE_TRY(projection(x, spec_id, &sp));
    if (sp && f->n_partition == sp->spec->n_fields &&
        !floe_ice_partition_might_match(sp->inclusive, sp->spec, f->partition)) {
        *may = false;
        return NULL;
    }
    return floe_status_wrap(floe_ice_data_file_might_match(x->filter, f, may), "row delta: metrics of %s",
                            f->file_path);
}

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

/* Is `path` within position delete file f's file_path bounds (inclusive;
 * a truncated bound still brackets it)?  No bounds: yes. */
static bool within_path_bounds(const floe_ice_data_file *f, const char *path) {
    size_t n = strlen(path);
    for (int32_t k = 0; k < f->lower_bounds.n; k++)
        if (f->lower_bounds.keys[k] == POS_DELETE_FILE_PATH_ID && f->lower_bounds.values[k] &&
            cmp_bytes(f->lower_bounds.values[k], f->lower_bounds.lens[k], (const uint8_t *)path, n) > 0)
            return false;
    for (int32_t k = 0; k < f->upper_bounds.n; k++)
        if (f->upper_bounds.keys[k] == POS_DELETE_FILE_PATH_ID && f->upper_bounds.values[k] &&
            cmp_bytes(f->upper_bounds.values[k], f->upper_bounds.lens[k], (const uint8_t *)path, n) < 0)
            return false;
    return true;
}

/* Does delete entry e (of a manifest of spec spec_id) apply to live data
 * file lf? */
static floe_status applies_to(delta_ctx *x, int32_t spec_id, const floe_ice_manifest_entry *e,
                              const floe_ice_live_file *lf, bool *applies) {
    floe_ice_producer *p = x->p;
    const floe_ice_data_file *f = &e->file;
    *applies = false;
    bool pos = f->content == FLOE_ICE_CONTENT_POSITION_DELETES;
    /* Sequence numbers unknown (-1): assume it applies. */
    if (e->sequence_number >= 0 && lf->sequence_number >= 0 &&
        (pos ? lf->sequence_number > e->sequence_number : lf->sequence_number >= e->sequence_number))
        return NULL;
    if (pos) {
        const char *ref = floe_ice_producer_single_reference(p, f);
        if (ref) {
            if (strcmp(ref, lf->file.file_path) == 0 || (lf->resolved_path && strcmp(ref, lf->resolved_path) == 0)) {
                *applies = true;
                return NULL;
            }
            char *rp = NULL;
            FLOE_TRY(floe_ice_table_resolve_path(p->t, ref, &rp));
            *applies = lf->resolved_path && strcmp(rp, lf->resolved_path) == 0;
            floe_free(rp);
            return NULL;
        }
        *applies = spec_id == lf->file.spec_id && f->n_partition == lf->file.n_partition &&
                   floe_ice_tuple_equal(f->n_partition, f->partition, lf->file.partition) &&
                   within_path_bounds(f, lf->file.file_path);
        return NULL;
    }
    const floe_ice_partition_spec *spec = floe_ice_tm_spec(p->md, spec_id);
    if (!spec || floe_ice_partition_spec_is_unpartitioned(spec)) {
        *applies = true;
        return NULL;
    }
    *applies = spec_id == lf->file.spec_id && f->n_partition == lf->file.n_partition &&
               floe_ice_tuple_equal(f->n_partition, f->partition, lf->file.partition);
    return NULL;
}

static floe_status conflict_added_data(const delta_ctx *x, const floe_ice_snapshot *s, const floe_ice_data_file *f) {
    int64_t base = x->d->base_snapshot_id;
    if (!x->filter)
        return floe_error(FLOE_ERR_CONFLICT, "row delta: snapshot %" PRId64 ", committed after snapshot %" PRId64
                          " that the change read, added data file %s (serializable isolation, and the change read "
                          "the whole table)", s->snapshot_id, base, f->file_path);
    return floe_error(FLOE_ERR_CONFLICT, "row delta: snapshot %" PRId64 ", committed after snapshot %" PRId64 " that "
                      "the change read, added data file %s, which may hold rows the change's filter matches "
                      "(serializable isolation)", s->snapshot_id, base, f->file_path);
}

/* Check the ADDED entries of manifest mf (written by snapshot s). */
static floe_status check_manifest(delta_ctx *x, const floe_ice_snapshot *s, const floe_ice_manifest_file *mf,
                                  bool data) {
    floe_ice_producer *p = x->p;
    floe_input *in = NULL;
    floe_ice_manifest *m = NULL;
    floe_status st = floe_ice_table_open_input(p->t, mf->manifest_path, mf->manifest_length, &in);
    if (!st) {
        st = floe_ice_manifest_read(in, mf, &m);
        floe_input_close(in);
    }
    if (st) return floe_status_wrap(st, "row delta: checking snapshot %" PRId64 " for conflicts", s->snapshot_id);
    for (size_t k = 0; !st && k < m->n_entries; k++) {
        const floe_ice_manifest_entry *e = &m->entries[k];
        if (e->status != FLOE_ICE_STATUS_ADDED || e->snapshot_id != s->snapshot_id) continue;
        if (data) {
            if (e->file.content != FLOE_ICE_CONTENT_DATA) continue;
            bool may = true;
            st = may_match(x, m->spec_id, &e->file, &may);
            if (!st && may) st = conflict_added_data(x, s, &e->file);
            continue;
        }
        if (e->file.content == FLOE_ICE_CONTENT_DATA) continue;
        for (size_t t = 0; !st && t < x->n_touched; t++) {
            size_t i = x->touched[t];
            bool applies = false;
            st = applies_to(x, m->spec_id, e, &p->files[i], &applies);
            if (!st && applies)
                st = floe_error(FLOE_ERR_CONFLICT, "row delta: snapshot %" PRId64 ", committed after snapshot %"
                                PRId64 " that the change read, added delete file %s, which applies to data file %s "
                                "that the change %s", s->snapshot_id, x->d->base_snapshot_id, e->file.file_path,
                                p->files[i].file.file_path, p->removed[i] ? "removes" : "adds deletes for");
        }
    }
    floe_ice_manifest_free(m);
    return st;
}

static floe_status check_snapshot(delta_ctx *x, const floe_ice_snapshot *s, bool touched) {
    bool data = x->d->isolation == FLOE_ISOLATION_SERIALIZABLE && may_add_data(s);
    bool deletes = touched && may_add_deletes(s);
    if (!data && !deletes) return NULL;
    floe_ice_manifest_list *list = NULL;
    floe_ice_manifest_file *v1 = NULL;
    const floe_ice_manifest_file *mfs = NULL;
    size_t n = 0;
    FLOE_TRY(floe_ice_snapshot_manifests(x->p->t, s, &list, &v1, &mfs, &n));
    floe_status st = NULL;
    for (size_t i = 0; !st && i < n; i++) {
        const floe_ice_manifest_file *mf = &mfs[i];
        /* Only manifests this snapshot wrote hold its ADDED entries. */
        if (mf->added_snapshot_id != s->snapshot_id || mf->added_files_count == 0) continue;
        bool is_data = mf->content == FLOE_ICE_MANIFEST_DATA;
        if (is_data ? !data : !deletes) continue;
        if (is_data && x->filter && mf->n_partitions >= 0) {
            const spec_proj *sp = NULL;
            bool may = true;
            st = projection(x, mf->partition_spec_id, &sp);
            if (!st && sp) st = floe_ice_manifest_file_might_match(sp->inclusive, sp->spec, mf, &may);
            if (st || !may) continue;
        }
        /* A v1 snapshot's bare manifests may hold both (v1 has no deletes). */
        st = check_manifest(x, s, mf, is_data);
    }
    floe_ice_manifest_list_free(list);
    floe_free(v1);
    return st;
}

static const floe_ice_snapshot *parent_of(const floe_ice_producer *p, const floe_ice_snapshot *s) {
    return s->parent_snapshot_id == FLOE_ICE_NO_SNAPSHOT ? NULL : floe_ice_tm_snapshot(p->md, s->parent_snapshot_id);
}

static floe_status bind_filter(delta_ctx *x) {
    const floe_ice_expr *filter = x->d->conflict_filter;
    if (!filter) return NULL;
    floe_ice_expr *bound = NULL;
    if (floe_ice_expr_is_bound(filter)) {
        bound = floe_ice_expr_copy(filter);
        if (!bound) return oom();
    } else {
        FLOE_TRY_CTX(floe_ice_expr_bind(filter, x->p->schema, true, &bound), "row delta: binding the conflict filter");
    }
    floe_status st = floe_ice_expr_rewrite_not(bound, &x->filter);
    floe_ice_expr_free(bound);
    if (st) return st;
    x->projs = floe_calloc(x->p->md->n_specs > 0 ? (size_t)x->p->md->n_specs : 1, sizeof *x->projs);
    return x->projs ? NULL : oom();
}

/* The data files the change removes or adds deletes for, once each. */
static floe_status collect_touched(delta_ctx *x) {
    floe_ice_producer *p = x->p;
    x->touched = floe_arena_calloc(&p->arena, p->n_files + 1, sizeof *x->touched);
    uint8_t *seen = floe_calloc(p->n_files + 1, 1);
    if (!x->touched || !seen) {
        floe_free(seen);
        return oom();
    }
    for (size_t i = 0; i < p->n_files; i++)
        if (p->removed[i] && p->files[i].file.content == FLOE_ICE_CONTENT_DATA)
            seen[i] = 1, x->touched[x->n_touched++] = i;
    for (int32_t j = 0; j < x->d->n_deletes; j++)
        if (!seen[x->targets[j]]) seen[x->targets[j]] = 1, x->touched[x->n_touched++] = x->targets[j];
    floe_free(seen);
    return NULL;
}

/* Walk the snapshots from the current one back to the base (exclusive;
 * base < 0: the whole history), once the base is known to be an ancestor. */
static floe_status validate(delta_ctx *x) {
    floe_ice_producer *p = x->p;
    int64_t base = x->d->base_snapshot_id;
    const floe_ice_snapshot *s = p->parent;
    for (int32_t steps = 0; s && s->snapshot_id != base; steps++) {
        if (steps > p->md->n_snapshots) return floe_error(FLOE_ERR_CORRUPT, "row delta: the snapshot parents loop");
        s = parent_of(p, s);
    }
    if (!s && base >= 0)
        return floe_error(FLOE_ERR_CONFLICT, "row delta: snapshot %" PRId64 ", which the change read, is no longer an "
                          "ancestor of the table's current snapshot (rolled back or expired?)", base);
    FLOE_TRY(collect_touched(x));
    bool touched = x->n_touched > 0;
    if (x->d->isolation != FLOE_ISOLATION_SERIALIZABLE && !touched) return NULL;
    FLOE_TRY(bind_filter(x));
    for (s = p->parent; s && s->snapshot_id != base; s = parent_of(p, s)) FLOE_TRY(check_snapshot(x, s, touched));
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
    FLOE_TRY(remove_delete_paths(x));
    for (int32_t i = 0; i < d->n_deletes; i++) FLOE_TRY(place_delete(x, i));
    FLOE_TRY(replace_old_deletes(x));
    FLOE_TRY(validate(x));
    if (d->n_deletes > 0) FLOE_TRY(floe_ice_producer_add_delete_files(p, x->deletes, d->n_deletes));
    FLOE_TRY(floe_ice_producer_drop_orphan_deletes(p));
    const char *op = d->operation ? d->operation : d->n_data > 0 ? "overwrite" : "delete";
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
        d->n_removed_deletes < 0 || (d->n_removed_deletes > 0 && !d->removed_delete_paths) ||
        n_kv < 0 || (n_kv > 0 && !summary_kv) ||
        (d->operation && (strcmp(d->operation, "replace") != 0 || (d->n_deletes > 0 && d->n_removed_deletes == 0))))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "row delta: bad arguments (table, files, removed paths, "
                          "summary pairs, or an operation other than a replace without delete files)");
    if (d->n_data == 0 && d->n_deletes == 0 && d->n_removed == 0 && d->n_removed_deletes == 0)
        return NULL; /* nothing to do */
    floe_ice_producer p;
    delta_ctx x;
    memset(&x, 0, sizeof x);
    x.p = &p;
    x.d = d;
    floe_strmap_init(&x.live);
    floe_status st = floe_ice_producer_init(&p, t, "row delta");
    if (!st) st = run(&x, summary_kv, n_kv, out, written);
    floe_strmap_free(&x.live);
    for (int32_t i = 0; i < x.n_projs; i++) floe_ice_expr_free(x.projs[i].inclusive);
    floe_free(x.projs);
    floe_ice_expr_free(x.filter);
    floe_ice_producer_destroy(&p);
    if (st) floe_ice_append_files_discard(t, written);
    return st;
}
