/*
 * snapshot_producer.h — the machinery shared by every commit that makes one
 * new snapshot of a table: append (table_append.c), replace partitions
 * (table_overwrite.c) and delete (table_delete.c).
 *
 * A producer is built on the table's current metadata.  The operation adds
 * data files (Avro data_file records, decoded with the default spec's
 * partition type) and delete files, loads the live files of the current
 * snapshot and marks the ones it removes; commit then writes
 *   - one manifest of ADDED entries for the added data files, and one per
 *     partition spec for the added delete files,
 *   - a rewrite of every manifest holding a removed file: the removed
 *     entries DELETED (snapshot id = the new snapshot, sequence numbers
 *     kept), the other live entries EXISTING with explicit snapshot ids
 *     and sequence numbers, as Iceberg Java's ManifestWriter.existing does,
 *   - the manifest list: the added manifest first, then the current
 *     snapshot's manifests in their order, rewritten ones in place of the
 *     originals, manifests that no longer hold a live file dropped, then
 *     small manifests merged as Java's merge append does (manifest_merge.c),
 * and installs the snapshot with a summary computed as Java's
 * SnapshotSummary does (added-*, deleted-*, removed-*, total-*).  In format
 * version 3 the list assigns first_row_id to every data manifest lacking
 * one (row lineage), the snapshot gets first-row-id (the table's
 * next-row-id) and added-rows, and next-row-id advances past them.
 *
 * Everything written is recorded in a floe_ice_append_files, which the
 * caller discards when anything fails or the commit loses its race.
 */
#ifndef FLOE_ICEBERG_SNAPSHOT_PRODUCER_H
#define FLOE_ICEBERG_SNAPSHOT_PRODUCER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_table_update.h"
#include "floe/status.h"

/* ---- sets of partition tuples --------------------------------------------- */

/* A hash map from (spec id, partition tuple) to an int64 that the caller
 * uses as it likes.  Tuple values are not copied: they must outlive the
 * map.  Values stored as the same representation compare equal whatever
 * their declared type (a day read as int equals the same day as a date),
 * and nulls equal nulls, as Java's PartitionSet does. */
typedef struct floe_ice_tuple_map {
    size_t cap, n;
    struct floe_ice_tuple_slot *slots;
} floe_ice_tuple_map;

/* Find or insert the key; *aux points at its value (0 when new).  *is_new
 * may be NULL. */
floe_status floe_ice_tuple_map_put(floe_ice_tuple_map *m, int32_t spec_id, int32_t n, const floe_ice_value *values,
                                   int64_t **aux, bool *is_new) FLOE_WARN_UNUSED;
/* The key's value, or NULL when absent. */
int64_t *floe_ice_tuple_map_get(const floe_ice_tuple_map *m, int32_t spec_id, int32_t n,
                                const floe_ice_value *values);
void floe_ice_tuple_map_free(floe_ice_tuple_map *m);
/* Are two tuples of n values equal as the map compares them? */
bool floe_ice_tuple_equal(int32_t n, const floe_ice_value *a, const floe_ice_value *b);

/* ---- the producer ------------------------------------------------------------ */

typedef struct floe_ice_producer {
    const floe_ice_table *t;
    const floe_ice_table_metadata *md;
    const floe_ice_schema *schema;            /* current */
    const floe_ice_partition_spec *spec;      /* default */
    const floe_ice_snapshot *parent;          /* current snapshot, or NULL */
    const char *what;                         /* "append", "overwrite", "delete" (messages) */
    floe_arena arena;
    int64_t snapshot_id, seq, timestamp_ms;   /* seq 0 in v1 */
    int64_t first_row_id, added_rows;         /* v3 row lineage, set by commit */
    char uuid[37];                            /* names the files of this commit */

    /* Added data files (floe_ice_producer_add_records). */
    floe_ice_data_file_codec *codec;
    floe_ice_data_file *added;
    int32_t n_added;

    /* Added delete files (floe_ice_producer_add_delete_files). */
    floe_ice_data_file *added_deletes;
    int32_t n_added_deletes;

    /* The parent's manifests and live files (floe_ice_producer_load_live;
     * commit reads the list itself when an operation removes nothing). */
    floe_ice_manifest_list *list;
    floe_ice_manifest_file *v1_files;
    const floe_ice_manifest_file *mfs;
    size_t n_mfs;
    bool have_list;
    bool loaded;                              /* floe_ice_producer_load_live ran */
    floe_ice_manifest **manifests;            /* per mfs[i]: read, or NULL when skipped */
    floe_ice_live_file *files;                /* live entries of the manifests read, in list order */
    size_t n_files;
    size_t *mf_begin;                         /* live files of mfs[i]: [mf_begin[i], mf_begin[i+1]) */
    uint8_t *removed;                         /* per live file: removed by this commit */
    size_t n_removed;
} floe_ice_producer;

/* May manifest `mf` (of the current snapshot) hold a file the operation
 * removes?  Manifests answered false are not read and are carried over
 * unchanged. */
typedef floe_status (*floe_ice_manifest_pick_fn)(floe_ice_producer *p, const floe_ice_manifest_file *mf, void *ctx,
                                                 bool *read);

/* Start a producer on `t`'s current metadata for operation `what`: fresh
 * snapshot id and commit uuid, next sequence number, timestamp (format
 * versions 1 to 3).  Always pair with floe_ice_producer_destroy, also on
 * failure. */
floe_status floe_ice_producer_init(floe_ice_producer *p, const floe_ice_table *t, const char *what) FLOE_WARN_UNUSED;
void floe_ice_producer_destroy(floe_ice_producer *p);

/* Decode `n` data_file records (data or delete files) with the default
 * spec's partition type into the producer's arena (*out, n structs), each
 * given the default spec's id.  Negative counts or sizes are refused. */
floe_status floe_ice_producer_decode_records(floe_ice_producer *p, const uint8_t *const *data, const size_t *lens,
                                             int32_t n, floe_ice_data_file **out) FLOE_WARN_UNUSED;

/* Decode `n` data_file records (the writers' hand-off) as added data
 * files of the default spec (their first_row_id made null: v3 assigns it
 * by inheritance).  Delete files are FLOE_ERR_UNSUPPORTED. */
floe_status floe_ice_producer_add_records(floe_ice_producer *p, const uint8_t *const *data, const size_t *lens,
                                          int32_t n) FLOE_WARN_UNUSED;

/* Is `f` a deletion vector (position deletes with content_offset and
 * referenced_data_file: a blob in a Puffin file)? */
bool floe_ice_is_dv(const floe_ice_data_file *f);

/* Add `n` delete files (format version 2 or later), written after the data
 * manifest to manifests of their own (content "deletes"), one per partition
 * spec: each file keeps its spec_id, which must be one of the table's specs
 * with as many partition values as it has fields.  In format version 3
 * position deletes must be deletion vectors (Puffin, content_offset,
 * content_size_in_bytes, referenced_data_file), which older versions do not
 * take (FLOE_ERR_INVALID_ARGUMENT).  The structs are copied; their strings,
 * arrays and partition values must outlive the producer. */
floe_status floe_ice_producer_add_delete_files(floe_ice_producer *p, const floe_ice_data_file *files,
                                               int32_t n) FLOE_WARN_UNUSED;

/* Read the current snapshot's manifest list and the live files of its
 * manifests (nothing when the table has no snapshot).  `pick` (NULL: all)
 * chooses the manifests to read; when the snapshot has delete files every
 * manifest is read all the same, so that
 * floe_ice_producer_drop_orphan_deletes sees all the data.  Partition
 * tuples take their spec's types. */
floe_status floe_ice_producer_load_live(floe_ice_producer *p, floe_ice_manifest_pick_fn pick,
                                        void *ctx) FLOE_WARN_UNUSED;

/* Does manifest `mf`'s partition summary admit the tuple `values` (of
 * `spec`, typed by `ptype`, its partition struct)?  No summary: yes. */
floe_status floe_ice_manifest_may_hold_tuple(const floe_ice_manifest_file *mf, const floe_ice_type *ptype,
                                             const floe_ice_value *values, int32_t n, bool *may) FLOE_WARN_UNUSED;

/* The one data file a delete file applies to, when it names one
 * (referenced_data_file, or file_path bounds that are equal), or NULL;
 * bytes copied into the producer's arena. */
const char *floe_ice_producer_single_reference(floe_ice_producer *p, const floe_ice_data_file *f);

/* Mark live file i (an index into p->files) removed. */
void floe_ice_producer_remove(floe_ice_producer *p, size_t i);

/* After the data files are marked, also mark the delete files left with
 * nothing to apply to: a position delete file naming one data file (by
 * referenced_data_file or equal file_path bounds) that this commit
 * removed, and any delete file whose partition (or, for a delete file of
 * an unpartitioned spec, the whole table) no longer holds a live data file
 * old enough for it to apply to. */
floe_status floe_ice_producer_drop_orphan_deletes(floe_ice_producer *p) FLOE_WARN_UNUSED;

/* Write the manifests and list and make the new metadata (see the file
 * comment).  `extra_kv` (n_extra pairs) are operation-specific summary
 * entries; `kv` (n_kv pairs) the caller's, which never override computed
 * ones.  `written` receives every file written, also on failure (the
 * caller discards). */
floe_status floe_ice_producer_commit(floe_ice_producer *p, const char *operation, const char *const *extra_kv,
                                     int32_t n_extra, const char *const *kv, int32_t n_kv,
                                     floe_ice_table_metadata **out, floe_ice_append_files *written) FLOE_WARN_UNUSED;

/* For operations that lay out the manifests themselves (rewrite
 * manifests): write `n` entries (statuses and ids as given) to a new data
 * manifest of `spec`, its location appended to w->rewritten (which must
 * have room), and fill its list record `rec`. */
floe_status floe_ice_producer_write_existing(floe_ice_producer *p, const floe_ice_partition_spec *spec,
                                             const floe_ice_manifest_entry *e, size_t n, floe_ice_append_files *w,
                                             floe_ice_manifest_file *rec) FLOE_WARN_UNUSED;
/* The same for any content (a merged delete manifest): entries written
 * with the statuses, ids and sequence numbers given. */
floe_status floe_ice_producer_write_entries(floe_ice_producer *p, floe_ice_manifest_content content,
                                            const floe_ice_partition_spec *spec, const floe_ice_manifest_entry *e,
                                            size_t n, floe_ice_append_files *w,
                                            floe_ice_manifest_file *rec) FLOE_WARN_UNUSED;
/* Read manifest `mf` of a list (inheriting from it) with its partition
 * tuples given their spec's types; the caller frees *out. */
floe_status floe_ice_producer_read_manifest(floe_ice_producer *p, const floe_ice_manifest_file *mf,
                                            floe_ice_manifest **out) FLOE_WARN_UNUSED;

/* Java's ManifestMergeManager (manifest_merge.c), run by commit on the
 * list it is about to write (*all, *n: floe_malloc'd, replaced when
 * anything merges).  With commit.manifest-merge.enabled (default true)
 * the data manifests and the delete manifests are merged apart: each
 * grouped by partition spec (highest id first), packed from the end into
 * bins of commit.manifest.target-size-bytes (default 8 MiB) by manifest
 * length, keeping their order; a bin of several manifests becomes one
 * new manifest, except the bin holding the group's first manifest (the
 * one this commit added, when it added one) while it has fewer than
 * commit.manifest.min-count-to-merge (default 100) manifests.  Entries
 * keep their snapshot ids and sequence numbers (ADDED by this commit stay
 * ADDED, other live ones become EXISTING), DELETED entries of earlier
 * snapshots are dropped.  The list then holds the data manifests, then
 * the delete manifests.  Manifests this commit wrote and merged away are
 * deleted at once and leave `w`; the merged ones join w->rewritten. */
floe_status floe_ice_producer_merge_manifests(floe_ice_producer *p, floe_ice_manifest_file **all, size_t *n,
                                              floe_ice_append_files *w) FLOE_WARN_UNUSED;

/* Then write the manifest list of exactly `all` (v3: row ids assigned to
 * data manifests without one), the summary (`extra_kv` entries, counts of
 * added / removed files as registered) and the new metadata. */
floe_status floe_ice_producer_commit_list(floe_ice_producer *p, floe_ice_manifest_file *all, size_t n,
                                          const char *operation, const char *const *extra_kv, int32_t n_extra,
                                          floe_ice_table_metadata **out,
                                          floe_ice_append_files *written) FLOE_WARN_UNUSED;

/* A partition tuple of spec `spec_id` as "a=1/b=x" for messages
 * (floe_malloc'd; "(unpartitioned)" when the spec has no fields). */
floe_status floe_ice_producer_partition_name(const floe_ice_producer *p, int32_t spec_id,
                                             const floe_ice_value *values, int32_t n, char **out) FLOE_WARN_UNUSED;

#endif
