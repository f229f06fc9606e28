/*
 * table_delete.c — the metadata-only DELETE: remove the live data files
 * all of whose rows match a filter, as one "delete" snapshot.  See
 * floe_ice_tm_delete_snapshot in iceberg_table_update.h; Iceberg Java's
 * DeleteFiles.deleteFromRowFilter (StreamingDelete) is the model.
 *
 * Each live data file is decided on its own, as Java's ManifestFilterManager
 * does for a row filter:
 *   - all rows match when the strict projection of the filter onto the
 *     file's spec accepts its partition, or the strict metrics evaluator
 *     proves it from the column bounds and counts;
 *   - no row matches when the inclusive projection rejects the partition
 *     or the inclusive metrics evaluator rules the file out;
 *   - anything else would need rewriting the file (row-level delete),
 *     which is refused with a clear error and leaves the table unchanged.
 * Delete files then follow the data they apply to (see
 * floe_ice_producer_drop_orphan_deletes).
 */
#include <inttypes.h>
#include <string.h>

#include "floe/iceberg_expr.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/snapshot/snapshot_producer.h"

/* The projections of the filter onto one partition spec, made on first use. */
typedef struct spec_proj {
    int32_t spec_id;
    const floe_ice_partition_spec *spec;
    floe_ice_expr *strict, *inclusive;
} spec_proj;

typedef struct delete_ctx {
    floe_ice_producer *p;
    floe_ice_expr *filter;       /* bound, NOT-free */
    spec_proj *projs;
    int32_t n_projs;
} delete_ctx;

static floe_status projections(delete_ctx *d, int32_t spec_id, const spec_proj **out) {
    for (int32_t i = 0; i < d->n_projs; i++)
        if (d->projs[i].spec_id == spec_id) {
            *out = &d->projs[i];
            return NULL;
        }
    const floe_ice_partition_spec *spec = floe_ice_tm_spec(d->p->md, spec_id);
    if (!spec)
        return floe_error(FLOE_ERR_CORRUPT, "delete: a live file uses partition spec %d, which the table does not "
                          "have", (int)spec_id);
    spec_proj *sp = &d->projs[d->n_projs];
    memset(sp, 0, sizeof *sp);
    sp->spec_id = spec_id;
    sp->spec = spec;
    FLOE_TRY_CTX(floe_ice_expr_project_strict(d->filter, spec, &sp->strict), "delete: projecting the filter onto "
                 "partition spec %d", (int)spec_id);
    d->n_projs++; /* owns sp->strict from here, freed with the context */
    FLOE_TRY_CTX(floe_ice_expr_project_inclusive(d->filter, spec, &sp->inclusive), "delete: projecting the filter "
                 "onto partition spec %d", (int)spec_id);
    *out = sp;
    return NULL;
}

/* Decide live data file i: remove it (all rows match), keep it (none
 * can), or refuse. */
static floe_status decide(delete_ctx *d, size_t i) {
    const floe_ice_live_file *lf = &d->p->files[i];
    const floe_ice_data_file *f = &lf->file;
    const spec_proj *sp = NULL;
    FLOE_TRY(projections(d, f->spec_id, &sp));
    bool whole_partition = f->n_partition == sp->spec->n_fields &&
                           floe_ice_partition_might_match(sp->strict, sp->spec, f->partition);
    if (whole_partition) {
        floe_ice_producer_remove(d->p, i);
        return NULL;
    }
    if (f->n_partition == sp->spec->n_fields && !floe_ice_partition_might_match(sp->inclusive, sp->spec, f->partition))
        return NULL;
    bool all = false, might = true;
    FLOE_TRY_CTX(floe_ice_data_file_all_match(d->filter, f, &all), "delete: metrics of %s", f->file_path);
    if (all) {
        floe_ice_producer_remove(d->p, i);
        return NULL;
    }
    FLOE_TRY_CTX(floe_ice_data_file_might_match(d->filter, f, &might), "delete: metrics of %s", f->file_path);
    if (!might) return NULL;
    return floe_error(FLOE_ERR_UNSUPPORTED, FLOE_ICE_DELETE_NEEDS_ROWS ": %s may hold rows that do not "
                      "match the filter", f->file_path);
}

/* Read only the manifests whose partition summaries admit the inclusive
 * projection (as scan planning prunes them). */
static floe_status pick(floe_ice_producer *p, const floe_ice_manifest_file *mf, void *vctx, bool *read) {
    delete_ctx *d = vctx;
    *read = true;
    const spec_proj *sp = NULL;
    FLOE_TRY(projections(d, mf->partition_spec_id, &sp));
    (void)p;
    return floe_ice_manifest_file_might_match(sp->inclusive, sp->spec, mf, read);
}

static floe_status bind_filter(const floe_ice_producer *p, const floe_ice_expr *filter, floe_ice_expr **out) {
    floe_ice_expr *bound = NULL;
    if (floe_ice_expr_is_bound(filter)) {
        bound = floe_ice_expr_copy(filter);
        if (!bound) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory copying a delete filter");
    } else {
        FLOE_TRY_CTX(floe_ice_expr_bind(filter, p->schema, true, &bound), "delete: binding the filter");
    }
    floe_status st = floe_ice_expr_rewrite_not(bound, out);
    floe_ice_expr_free(bound);
    return st;
}

static floe_status run(delete_ctx *d, const floe_ice_expr *filter, floe_ice_table_metadata **out,
                       floe_ice_append_files *w) {
    floe_ice_producer *p = d->p;
    FLOE_TRY(bind_filter(p, filter, &d->filter));
    if (!p->parent) return NULL; /* an empty table: nothing to delete */
    d->projs = floe_calloc(p->md->n_specs > 0 ? (size_t)p->md->n_specs : 1, sizeof *d->projs);
    if (!d->projs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory planning a delete");
    FLOE_TRY(floe_ice_producer_load_live(p, pick, d));
    for (size_t i = 0; i < p->n_files; i++)
        if (p->files[i].file.content == FLOE_ICE_CONTENT_DATA) FLOE_TRY(decide(d, i));
    if (p->n_removed == 0) return NULL; /* nothing matches: no snapshot */
    FLOE_TRY(floe_ice_producer_drop_orphan_deletes(p));
    return floe_ice_producer_commit(p, "delete", NULL, 0, NULL, 0, out, w);
}

floe_status floe_ice_tm_delete_snapshot(const floe_ice_table *t, const floe_ice_expr *filter,
                                        floe_ice_table_metadata **out, floe_ice_append_files *written,
                                        int64_t *deleted_files, int64_t *deleted_rows) {
    *out = NULL;
    memset(written, 0, sizeof *written);
    if (deleted_files) *deleted_files = 0;
    if (deleted_rows) *deleted_rows = 0;
    if (!t || !t->md || !filter)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "delete: bad arguments (a table and a filter are required)");
    floe_ice_producer p;
    delete_ctx d;
    memset(&d, 0, sizeof d);
    d.p = &p;
    floe_status st = floe_ice_producer_init(&p, t, "delete");
    if (!st) st = run(&d, filter, out, written);
    if (!st && *out) {
        int64_t files = 0, rows = 0;
        for (size_t i = 0; i < p.n_files; i++) {
            if (!p.removed[i] || p.files[i].file.content != FLOE_ICE_CONTENT_DATA) continue;
            files++;
            rows += p.files[i].file.record_count;
        }
        if (deleted_files) *deleted_files = files;
        if (deleted_rows) *deleted_rows = rows;
    }
    for (int32_t i = 0; i < d.n_projs; i++) {
        floe_ice_expr_free(d.projs[i].strict);
        floe_ice_expr_free(d.projs[i].inclusive);
    }
    floe_free(d.projs);
    floe_ice_expr_free(d.filter);
    floe_ice_producer_destroy(&p);
    if (st) floe_ice_append_files_discard(t, written);
    return st;
}
