/*
 * table_overwrite.c — the metadata half of INSERT OVERWRITE with dynamic
 * partition overwrite: add the new data files and remove every live file
 * (data and delete files) of the partitions they were written to, as one
 * "overwrite" snapshot.  See floe_ice_tm_replace_partitions_snapshot in
 * iceberg_table_update.h; Iceberg Java's BaseReplacePartitions is the
 * model.
 *
 * Partitions are compared in the default spec: files of older specs stay,
 * since their tuples mean something else (Java keys its PartitionSet by
 * spec id too).  An unpartitioned default spec replaces the whole table.
 *
 * Serializable isolation: the statement read snapshot base_snapshot_id;
 * any snapshot committed since that added data to a replaced partition
 * would be silently dropped by this overwrite, so it is a conflict
 * (Java's validateAddedDataFiles over the snapshots after the starting
 * one).  Such a conflict is final: retrying cannot make it go away.
 */
#include <inttypes.h>
#include <string.h>

#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/snapshot/snapshot_producer.h"

/* Operations that add new data a later overwrite could lose ("replace" is
 * a compaction and "delete" adds nothing). */
static bool may_add_data(const floe_ice_snapshot *s) {
    return !s->operation || strcmp(s->operation, "append") == 0 || strcmp(s->operation, "overwrite") == 0;
}

static floe_status conflict(const floe_ice_producer *p, const floe_ice_snapshot *s, const floe_ice_manifest *m,
                            const floe_ice_data_file *f, int64_t base) {
    char *part = NULL;
    FLOE_TRY(floe_ice_producer_partition_name(p, m->spec_id, f->partition, f->n_partition, &part));
    floe_status st = floe_error(FLOE_ERR_CONFLICT, "overwrite: snapshot %" PRId64 ", committed after snapshot %" PRId64
                                " that the overwrite read, added %s to partition %s, which the overwrite replaces",
                                s->snapshot_id, base, f->file_path, part);
    floe_free(part);
    return st;
}

/* Did snapshot `s` add data files to a replaced partition? */
static floe_status check_snapshot(floe_ice_producer *p, const floe_ice_tuple_map *replaced, bool whole_table,
                                  const floe_ice_snapshot *s, int64_t base) {
    if (!may_add_data(s)) return NULL;
    floe_ice_manifest_list *list = NULL;
    floe_ice_manifest_file *v1 = NULL;
    const floe_ice_manifest_file *mfs = NULL;
    size_t n = 0;
    FLOE_TRY(floe_ice_snapshot_manifests(p->t, s, &list, &v1, &mfs, &n));
    floe_status st = NULL;
    for (size_t i = 0; !st && i < n; i++) {
        const floe_ice_manifest_file *mf = &mfs[i];
        /* Only manifests this snapshot wrote can hold its ADDED entries. */
        if (mf->content != FLOE_ICE_MANIFEST_DATA || mf->added_snapshot_id != s->snapshot_id ||
            mf->added_files_count == 0)
            continue;
        if (!whole_table && mf->partition_spec_id != p->spec->spec_id && mf->n_partitions >= 0) continue;
        floe_input *in = NULL;
        floe_ice_manifest *m = NULL;
        st = floe_ice_table_open_input(p->t, mf->manifest_path, mf->manifest_length, &in);
        if (!st) {
            st = floe_ice_manifest_read(in, mf, &m);
            floe_input_close(in);
        }
        if (st) {
            st = floe_status_wrap(st, "overwrite: checking snapshot %" PRId64 " for conflicts", s->snapshot_id);
            break;
        }
        for (size_t k = 0; !st && k < m->n_entries; k++) {
            const floe_ice_manifest_entry *e = &m->entries[k];
            if (e->status != FLOE_ICE_STATUS_ADDED || e->snapshot_id != s->snapshot_id) continue;
            if (whole_table ||
                (m->spec_id == p->spec->spec_id &&
                 floe_ice_tuple_map_get(replaced, m->spec_id, e->file.n_partition, e->file.partition)))
                st = conflict(p, s, m, &e->file, base);
        }
        floe_ice_manifest_free(m);
    }
    floe_ice_manifest_list_free(list);
    floe_free(v1);
    return st;
}

static const floe_ice_snapshot *parent_of(const floe_ice_producer *p, const floe_ice_snapshot *s) {
    return s->parent_snapshot_id == FLOE_ICE_NO_SNAPSHOT ? NULL : floe_ice_tm_snapshot(p->md, s->parent_snapshot_id);
}

/* Check every snapshot from the current one back to `base` (exclusive),
 * once `base` is known to be an ancestor (Java refuses to validate a
 * history it cannot determine). */
static floe_status validate(floe_ice_producer *p, const floe_ice_tuple_map *replaced, bool whole_table,
                            int64_t base) {
    const floe_ice_snapshot *s = p->parent;
    for (int32_t steps = 0; s && s->snapshot_id != base; steps++) {
        if (steps > p->md->n_snapshots) return floe_error(FLOE_ERR_CORRUPT, "overwrite: the snapshot parents loop");
        s = parent_of(p, s);
    }
    if (!s)
        return floe_error(FLOE_ERR_CONFLICT, "overwrite: snapshot %" PRId64 ", which the overwrite read, is no "
                          "longer an ancestor of the table's current snapshot (rolled back or expired?)", base);
    for (s = p->parent; s->snapshot_id != base; s = parent_of(p, s))
        FLOE_TRY(check_snapshot(p, replaced, whole_table, s, base));
    return NULL;
}

typedef struct pick_ctx {
    const floe_ice_type *ptype;      /* the default spec's partition struct */
} pick_ctx;

/* Read only manifests of the default spec whose partition summaries admit
 * one of the added tuples. */
static floe_status pick(floe_ice_producer *p, const floe_ice_manifest_file *mf, void *vctx, bool *read) {
    const pick_ctx *c = vctx;
    /* A record without summaries (a v1 snapshot's bare manifest) may hold
     * anything, of any spec. */
    *read = mf->n_partitions < 0;
    if (*read || mf->partition_spec_id != p->spec->spec_id) return NULL;
    for (int32_t i = 0; i < p->n_added && !*read; i++)
        FLOE_TRY(floe_ice_manifest_may_hold_tuple(mf, c->ptype, p->added[i].partition, p->added[i].n_partition, read));
    return NULL;
}

static floe_status run(floe_ice_producer *p, const uint8_t *const *data, const size_t *lens, int32_t n,
                       int64_t base, const char *const *kv, int32_t n_kv, floe_ice_table_metadata **out,
                       floe_ice_append_files *w) {
    FLOE_TRY(floe_ice_producer_add_records(p, data, lens, n));
    bool whole_table = floe_ice_partition_spec_is_unpartitioned(p->spec);
    floe_ice_tuple_map replaced = {0, 0, NULL};
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < n; i++)
        st = floe_ice_tuple_map_put(&replaced, p->spec->spec_id, p->added[i].n_partition, p->added[i].partition, NULL,
                                    NULL);
    if (!st && base >= 0) st = validate(p, &replaced, whole_table, base);
    floe_ice_type *ptype = NULL;
    if (!st && !whole_table) st = floe_ice_partition_spec_partition_type(p->spec, p->schema, false, &ptype);
    pick_ctx pc = {ptype};
    if (!st) st = floe_ice_producer_load_live(p, whole_table ? NULL : pick, &pc);
    floe_ice_type_free(ptype);
    for (size_t i = 0; !st && i < p->n_files; i++) {
        const floe_ice_data_file *f = &p->files[i].file;
        if (whole_table ||
            (f->spec_id == p->spec->spec_id && floe_ice_tuple_map_get(&replaced, f->spec_id, f->n_partition, f->partition)))
            floe_ice_producer_remove(p, i);
    }
    floe_ice_tuple_map_free(&replaced);
    if (!st) st = floe_ice_producer_drop_orphan_deletes(p);
    static const char *const extra[2] = {"replace-partitions", "true"};
    if (!st) st = floe_ice_producer_commit(p, "overwrite", extra, 1, kv, n_kv, out, w);
    return st;
}

floe_status floe_ice_tm_replace_partitions_snapshot(const floe_ice_table *t, const uint8_t *const *data_files,
                                                    const size_t *lens, int32_t n, int64_t base_snapshot_id,
                                                    const char *const *summary_kv, int32_t n_kv,
                                                    floe_ice_table_metadata **out,
                                                    floe_ice_append_files *written) {
    *out = NULL;
    memset(written, 0, sizeof *written);
    if (!t || !t->md || n < 0 || (n > 0 && (!data_files || !lens)) || n_kv < 0 || (n_kv > 0 && !summary_kv))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "overwrite: bad arguments (table, %d data files, %d summary "
                          "pairs)", n, n_kv);
    if (n == 0) return NULL; /* replaces nothing */
    floe_ice_producer p;
    floe_status st = floe_ice_producer_init(&p, t, "overwrite");
    if (!st) st = run(&p, data_files, lens, n, base_snapshot_id, summary_kv, n_kv, out, written);
    floe_ice_producer_destroy(&p);
    if (st) floe_ice_append_files_discard(t, written);
    return st;
}
