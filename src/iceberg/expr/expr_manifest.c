/*
 * expr_manifest.c — thin adapters from the manifest structs
 * (iceberg_manifest.h) to the expression evaluators' plain inputs: a data
 * file's metric maps become floe_ice_file_metrics for the fields a filter
 * reads, and a manifest list entry's partition summaries (in spec field
 * order) become floe_ice_partition_summary records keyed by partition
 * field id.
 */
#include <string.h>

#include "floe/iceberg_expr.h"
#include "floe/iceberg_manifest.h"
#include "floe/memory.h"

static int64_t count_of(const floe_ice_count_map *m, int32_t id) {
    for (int32_t i = 0; i < m->n; i++)
        if (m->keys[i] == id) return m->values[i];
    return -1;
}

static void bound_of(const floe_ice_bound_map *m, int32_t id, const uint8_t **p, size_t *len) {
    *p = NULL;
    *len = 0;
    for (int32_t i = 0; i < m->n; i++)
        if (m->keys[i] == id && m->values[i]) {
            *p = m->values[i];
            *len = m->lens[i];
            return;
        }
}

/* Metrics of the fields `bound` reads; small filters use the stack. */
static floe_status file_metrics_eval(const floe_ice_expr *bound, const floe_ice_data_file *f, bool strict,
                                     bool *result) {
    int32_t *ids = NULL, n = 0;
    FLOE_TRY(floe_ice_expr_field_ids(bound, &ids, &n));
    floe_ice_field_metrics stack[16];
    floe_ice_field_metrics *fm = n <= 16 ? stack : floe_malloc((size_t)n * sizeof *fm);
    if (!fm) {
        floe_free(ids);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory evaluating '%s'", f->file_path);
    }
    for (int32_t i = 0; i < n; i++) {
        fm[i].field_id = ids[i];
        fm[i].value_count = count_of(&f->value_counts, ids[i]);
        fm[i].null_count = count_of(&f->null_value_counts, ids[i]);
        fm[i].nan_count = count_of(&f->nan_value_counts, ids[i]);
        bound_of(&f->lower_bounds, ids[i], &fm[i].lower, &fm[i].lower_len);
        bound_of(&f->upper_bounds, ids[i], &fm[i].upper, &fm[i].upper_len);
    }
    floe_ice_file_metrics m = {f->record_count, n, fm};
    floe_status st = strict ? floe_ice_metrics_all_match(bound, &m, result)
                            : floe_ice_metrics_might_match(bound, &m, result);
    if (fm != stack) floe_free(fm);
    floe_free(ids);
    return floe_status_wrap(st, "data file '%s'", f->file_path ? f->file_path : "?");
}

floe_status floe_ice_data_file_might_match(const floe_ice_expr *bound, const floe_ice_data_file *f,
                                           bool *might_match) {
    *might_match = true;
    if (!bound || !f) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "need an expression and a data file");
    return file_metrics_eval(bound, f, false, might_match);
}

floe_status floe_ice_data_file_all_match(const floe_ice_expr *bound, const floe_ice_data_file *f, bool *all_match) {
    *all_match = false;
    if (!bound || !f) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "need an expression and a data file");
    floe_status st = file_metrics_eval(bound, f, true, all_match);
    if (st) *all_match = false;
    return st;
}

bool floe_ice_data_file_partition_might_match(const floe_ice_expr *projected, const floe_ice_data_file *f) {
    floe_ice_row row = {f->n_partition > 0 ? f->n_partition : 0, f->partition_ids, f->partition};
    return floe_ice_expr_eval_row(projected, &row);
}

floe_status floe_ice_manifest_file_might_match(const floe_ice_expr *projected, const floe_ice_partition_spec *spec,
                                               const floe_ice_manifest_file *mf, bool *might_match) {
    *might_match = true;
    if (!projected || !spec || !mf)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "need an expression, a spec and a manifest file");
    if (mf->n_partitions < 0) return NULL; /* no summaries: cannot prune */
    if (mf->n_partitions != spec->n_fields)
        return floe_error(FLOE_ERR_CORRUPT, "manifest '%s' has %d partition summaries, spec %d has %d fields",
                          mf->manifest_path ? mf->manifest_path : "?", (int)mf->n_partitions, (int)spec->spec_id,
                          (int)spec->n_fields);
    int32_t n = spec->n_fields;
    floe_ice_partition_summary stack[16];
    floe_ice_partition_summary *s = n <= 16 ? stack : floe_malloc((size_t)n * sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory evaluating a manifest");
    for (int32_t i = 0; i < n; i++) {
        const floe_ice_field_summary *fs = &mf->partitions[i];
        s[i].field_id = spec->fields[i].field_id;
        s[i].contains_null = fs->contains_null;
        s[i].contains_nan = fs->contains_nan;
        s[i].lower = fs->lower_bound;
        s[i].lower_len = fs->lower_len;
        s[i].upper = fs->upper_bound;
        s[i].upper_len = fs->upper_len;
    }
    floe_status st = floe_ice_manifest_might_match(projected, s, n, might_match);
    if (s != stack) floe_free(s);
    return floe_status_wrap(st, "manifest '%s'", mf->manifest_path ? mf->manifest_path : "?");
}
