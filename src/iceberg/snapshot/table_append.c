/*
 * table_append.c — the metadata half of an append commit: a manifest of
 * the new data files, a manifest list that adds it to the current
 * snapshot's manifests, and new table metadata with the snapshot made
 * current.  See floe_ice_tm_append_snapshot in iceberg_table_update.h.
 *
 * Data files arrive as Avro data_file records (bytes) because writers may
 * run in other processes; they are decoded with a codec built from the
 * table's default spec, so a record written for another spec fails to
 * decode instead of landing under the wrong partition tuple.
 *
 * The writing itself (manifests, list, summary, metadata edit) is the
 * snapshot producer's (snapshot_producer.c), shared with replace-partitions
 * and delete.  This file also owns the floe_ice_append_files helpers.
 * Nothing here touches the catalog: the caller commits and, when the
 * commit loses, discards the files written here.
 */
#include <string.h>

#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/snapshot/snapshot_producer.h"

void floe_ice_append_files_clear(floe_ice_append_files *f) {
    if (!f) return;
    floe_free(f->manifest);
    floe_free(f->manifest_list);
    for (int32_t i = 0; i < f->n_rewritten; i++) floe_free(f->rewritten[i]);
    floe_free(f->rewritten);
    memset(f, 0, sizeof *f);
}

void floe_ice_append_files_discard(const floe_ice_table *t, floe_ice_append_files *f) {
    if (!f) return;
    floe_fileio *io = t ? t->io : NULL;
    /* Best effort: a file that cannot be deleted is an orphan, which
     * Iceberg's remove-orphan-files maintenance cleans; it is never
     * referenced by committed metadata. */
    if (f->manifest) floe_status_free(floe_fileio_delete(io, f->manifest));
    for (int32_t i = 0; i < f->n_rewritten; i++)
        if (f->rewritten[i]) floe_status_free(floe_fileio_delete(io, f->rewritten[i]));
    if (f->manifest_list) floe_status_free(floe_fileio_delete(io, f->manifest_list));
    floe_ice_append_files_clear(f);
}

floe_status floe_ice_tm_append_snapshot(const floe_ice_table *t, const uint8_t *const *data_files,
                                        const size_t *lens, int32_t n, const char *const *summary_kv,
                                        int32_t n_kv, floe_ice_table_metadata **out,
                                        floe_ice_append_files *written) {
    *out = NULL;
    memset(written, 0, sizeof *written);
    if (!t || !t->md || n < 0 || (n > 0 && (!data_files || !lens)) || n_kv < 0 || (n_kv > 0 && !summary_kv))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "append: bad arguments (table, %d data files, %d summary pairs)",
                          n, n_kv);
    floe_ice_producer p;
    floe_status st = floe_ice_producer_init(&p, t, "append");
    if (!st) st = floe_ice_producer_add_records(&p, data_files, lens, n);
    if (!st) st = floe_ice_producer_commit(&p, "append", NULL, 0, summary_kv, n_kv, out, written);
    floe_ice_producer_destroy(&p);
    if (st) floe_ice_append_files_discard(t, written);
    return st;
}
