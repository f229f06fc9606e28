/*
 * table_rewrite_manifests.c — a "replace" snapshot that lays the current
 * snapshot's data manifests of the default spec out again (Iceberg Java's
 * RewriteManifests as Spark's rewrite_manifests action drives it): every
 * live entry of those manifests, clustered by partition (sorted by the
 * partition tuple, nulls first), EXISTING with its snapshot id and
 * sequence numbers, into manifests of about commit.manifest.target-size-
 * bytes each (entries per manifest from the average entry size of the
 * manifests replaced).  Delete manifests and other specs' manifests are
 * kept; DELETED entries are not carried over.  No data file changes, so
 * the summary's totals stay and it adds manifests-created, -kept,
 * -replaced and entries-processed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/snapshot/snapshot_producer.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "rewrite manifests: out of memory"); }

static int cmp_tuple(const floe_ice_data_file *a, const floe_ice_data_file *b) {
    int32_t n = a->n_partition < b->n_partition ? a->n_partition : b->n_partition;
    for (int32_t i = 0; i < n; i++) {
        const floe_ice_value *x = &a->partition[i], *y = &b->partition[i];
        if (x->is_null != y->is_null) return x->is_null ? -1 : 1;
        if (x->is_null) continue;
        int c = floe_ice_value_compare(x, y);
        if (c) return c;
    }
    return (a->n_partition > b->n_partition) - (a->n_partition < b->n_partition);
}

static int cmp_entry(const void *a_, const void *b_) {
    const floe_ice_manifest_entry *a = a_, *b = b_;
    int c = cmp_tuple(&a->file, &b->file);
    if (c) return c;
    return strcmp(a->file.file_path, b->file.file_path);
}

static floe_status run(floe_ice_producer *p, int64_t target, floe_ice_table_metadata **out,
                       floe_ice_append_files *w, int32_t *n_replaced, int32_t *n_created) {
    FLOE_TRY(floe_ice_producer_load_live(p, NULL, NULL));
    int32_t spec_id = p->spec->spec_id;
    size_t n_entries = 0, n_rewrite = 0;
    int64_t bytes = 0, recorded = 0;
    for (size_t i = 0; i < p->n_mfs; i++) {
        const floe_ice_manifest_file *mf = &p->mfs[i];
        if (mf->content != FLOE_ICE_MANIFEST_DATA || mf->partition_spec_id != spec_id) continue;
        n_rewrite++;
        n_entries += p->mf_begin[i + 1] - p->mf_begin[i];
        bytes += mf->manifest_length;
        recorded += (mf->added_files_count > 0 ? mf->added_files_count : 0) +
                    (mf->existing_files_count > 0 ? mf->existing_files_count : 0) +
                    (mf->deleted_files_count > 0 ? mf->deleted_files_count : 0);
    }
    if (n_rewrite == 0 || n_entries == 0) return NULL; /* nothing to rewrite */
    floe_ice_manifest_entry *e = floe_calloc(n_entries, sizeof *e);
    if (!e) return oom();
    size_t k = 0;
    for (size_t i = 0; i < p->n_mfs; i++) {
        const floe_ice_manifest_file *mf = &p->mfs[i];
        if (mf->content != FLOE_ICE_MANIFEST_DATA || mf->partition_spec_id != spec_id) continue;
        for (size_t j = p->mf_begin[i]; j < p->mf_begin[i + 1]; j++, k++) {
            const floe_ice_live_file *lf = &p->files[j];
            e[k].status = FLOE_ICE_STATUS_EXISTING;
            e[k].snapshot_id = lf->snapshot_id;
            e[k].sequence_number = lf->sequence_number;
            e[k].file_sequence_number = lf->file_sequence_number;
            e[k].file = lf->file;
        }
    }
    qsort(e, n_entries, sizeof *e, cmp_entry);
    int64_t per_entry = recorded > 0 ? bytes / recorded : 512;
    if (per_entry < 1) per_entry = 1;
    int64_t per_manifest = target / per_entry;
    if (per_manifest < 1) per_manifest = 1;
    size_t n_new = (n_entries + (size_t)per_manifest - 1) / (size_t)per_manifest;
    floe_ice_manifest_file *all = floe_calloc(p->n_mfs + n_new + 1, sizeof *all);
    w->rewritten = floe_calloc(n_new + 1, sizeof *w->rewritten);
    floe_status st = all && w->rewritten ? NULL : oom();
    size_t n_all = 0;
    for (size_t b = 0; !st && b < n_entries; b += (size_t)per_manifest) {
        size_t n = n_entries - b < (size_t)per_manifest ? n_entries - b : (size_t)per_manifest;
        st = floe_ice_producer_write_existing(p, p->spec, e + b, n, w, &all[n_all++]);
    }
    size_t kept = 0;
    for (size_t i = 0; !st && i < p->n_mfs; i++) {
        const floe_ice_manifest_file *mf = &p->mfs[i];
        if (mf->content == FLOE_ICE_MANIFEST_DATA && mf->partition_spec_id == spec_id) continue;
        if (mf->added_files_count == 0 && mf->existing_files_count == 0) continue; /* only DELETED entries */
        all[n_all++] = *mf;
        kept++;
    }
    char created[24], kept_s[24], replaced[24], processed[24];
    snprintf(created, sizeof created, "%zu", n_new);
    snprintf(kept_s, sizeof kept_s, "%zu", kept);
    snprintf(replaced, sizeof replaced, "%zu", n_rewrite);
    snprintf(processed, sizeof processed, "%zu", n_entries);
    const char *extra[] = {"manifests-created", created, "manifests-kept", kept_s, "manifests-replaced", replaced,
                           "entries-processed", processed};
    if (!st) st = floe_ice_producer_commit_list(p, all, n_all, "replace", extra, 4, out, w);
    if (!st) {
        *n_replaced = (int32_t)n_rewrite;
        *n_created = (int32_t)n_new;
    }
    floe_free(all);
    floe_free(e);
    return st;
}

floe_status floe_ice_tm_rewrite_manifests_snapshot(const floe_ice_table *t, int64_t target_bytes,
                                                   floe_ice_table_metadata **out, floe_ice_append_files *written,
                                                   int32_t *n_replaced, int32_t *n_created) {
    *out = NULL;
    *n_replaced = *n_created = 0;
    memset(written, 0, sizeof *written);
    if (!t || !t->md || target_bytes <= 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "rewrite manifests: no table or a target size <= 0");
    if (t->md->current_snapshot_id == FLOE_ICE_NO_SNAPSHOT) return NULL;
    floe_ice_producer p;
    floe_status st = floe_ice_producer_init(&p, t, "rewrite manifests");
    if (!st) st = run(&p, target_bytes, out, written, n_replaced, n_created);
    floe_ice_producer_destroy(&p);
    if (st) floe_ice_append_files_discard(t, written);
    return st;
}
