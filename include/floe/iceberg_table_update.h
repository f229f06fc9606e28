/*
 * iceberg_table_update.h — making new table metadata: a new table, schema
 * evolution (add, drop, rename, retype and relax columns) and table
 * properties.
 *
 * Every function returns a NEW floe_ice_table_metadata (freed with
 * floe_ice_table_metadata_free) and leaves the one it was given untouched,
 * so the old metadata can still be committed against (it is the "base" of
 * floe_catalog_commit) or thrown away when a commit loses its race.  Each
 * sets last-updated-ms to now (never earlier than the base's).
 *
 * Schema changes follow the Iceberg spec and Iceberg Java's SchemaUpdate:
 *   - a changed schema is added to "schemas" with the next schema id and
 *     made current; when it is structurally identical to an existing
 *     schema, that schema's id is made current instead (as Java's
 *     TableMetadata.Builder reuses schema ids);
 *   - new columns get ids above last-column-id, which is raised;
 *     ids are never reused, not even those of dropped columns;
 *   - partition specs and sort orders refer to columns by id, so renames
 *     and promotions leave them valid; dropping a column that the default
 *     partition spec, the default sort order or the identifier fields use
 *     is refused.
 * Column paths are full dotted names as iceberg_schema.h defines them
 * ("a", "s.x", "l.element.y"), matched exactly (case-sensitively); an
 * unknown path is FLOE_ERR_NOT_FOUND "unknown column 'x'" with a
 * "did you mean" among the schema's names.
 */
#ifndef FLOE_ICEBERG_TABLE_UPDATE_H
#define FLOE_ICEBERG_TABLE_UPDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_schema.h"
#include "floe/iceberg_sort_order.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/iceberg_types.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Metadata for a new, empty table (no snapshots).
 *   schema    its field ids are only used to connect `spec`, `order` and the
 *             identifier fields to columns: every field gets a fresh id,
 *             1..n, assigned as Iceberg Java's TypeUtil.assignFreshIds does
 *             (a struct's own fields first, in order, then each field's
 *             nested fields, recursively).  Schema id 0.
 *   spec      NULL: unpartitioned.  Source ids refer to `schema`'s ids; the
 *             fields get partition field ids 1000, 1001, ...; spec id 0.
 *   order     NULL or unsorted: sort order 0 only.  Otherwise the order
 *             becomes order 1 (and the default), order 0 kept as well.
 *   location  the table's base location (a trailing '/' is dropped).
 *   props     n_props key/value pairs: props[2i] = key, props[2i+1] = value.
 *   format_version  1, 2 or 3 (2 is the usual choice).
 * The result has a new random table-uuid.  Invalid input (types the format
 * version does not allow, a spec or order naming a missing column or using
 * an inapplicable transform, an empty location) is FLOE_ERR_INVALID_ARGUMENT
 * or FLOE_ERR_UNSUPPORTED naming the problem. */
floe_status floe_ice_tm_new(const floe_ice_schema *schema, const floe_ice_partition_spec *spec,
                            const floe_ice_sort_order *order, const char *location,
                            const char *const *props, int32_t n_props, int format_version,
                            floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* Add a column named `name` to the top level (`parent` NULL) or to the
 * struct at path `parent` (a struct column, or a list whose element or a map
 * whose value is a struct).  Nested ids inside `type` are ignored: the
 * column and its nested fields get fresh ids above last-column-id.
 *   required  allowed only when the table holds no rows (no current
 *             snapshot, or its summary says total-records is 0), since
 *             there is no default to give existing rows:
 *             FLOE_ERR_INVALID_ARGUMENT otherwise.
 *   doc       NULL for none.
 * A name already used in the parent is FLOE_ERR_ALREADY_EXISTS. */
floe_status floe_ice_tm_add_column(const floe_ice_table_metadata *md, const char *parent, const char *name,
                                   const floe_ice_type *type, bool required, const char *doc,
                                   floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* Drop the column at `path` (with everything nested in it).  A column used
 * (itself or through a nested field) by the default partition spec, the
 * default sort order or the schema's identifier fields is
 * FLOE_ERR_INVALID_ARGUMENT naming the use.  List elements and map keys
 * and values cannot be dropped on their own; the last column of the table
 * cannot be dropped either. */
floe_status floe_ice_tm_drop_column(const floe_ice_table_metadata *md, const char *path,
                                    floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* Rename the column at `path` to `new_name` (a name within its parent, not
 * a path).  The id is kept, so data files still match.  A sibling already
 * called `new_name` is FLOE_ERR_ALREADY_EXISTS; list elements and map keys
 * and values cannot be renamed (FLOE_ERR_INVALID_ARGUMENT). */
floe_status floe_ice_tm_rename_column(const floe_ice_table_metadata *md, const char *path,
                                      const char *new_name, floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* Change a primitive column's type by a legal promotion
 * (floe_ice_type_can_promote: int -> long, float -> double,
 * decimal(P,S) -> decimal(P',S) with P' > P; v3 also date -> timestamp).
 * Anything else is FLOE_ERR_TYPE "cannot change column 'c' from int to
 * string".  The same type is accepted (nothing changes but the time). */
floe_status floe_ice_tm_update_column_type(const floe_ice_table_metadata *md, const char *path,
                                           const floe_ice_type *type,
                                           floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* Make a column optional (required = false), or required.  Required ->
 * optional is always allowed except for identifier fields
 * (FLOE_ERR_INVALID_ARGUMENT).  Optional -> required is allowed only while
 * the table holds no rows (as for add_column), since existing data may hold
 * nulls: FLOE_ERR_INVALID_ARGUMENT otherwise.  No change is accepted. */
floe_status floe_ice_tm_set_column_required(const floe_ice_table_metadata *md, const char *path, bool required,
                                            floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* Set n_pairs properties: kv[2i] = key, kv[2i+1] = value (existing keys
 * are replaced, new keys appended). */
floe_status floe_ice_tm_set_properties(const floe_ice_table_metadata *md, const char *const *kv, int32_t n_pairs,
                                       floe_ice_table_metadata **out) FLOE_WARN_UNUSED;
/* Upgrade the table to format `version` (Spark's SET TBLPROPERTIES
 * ('format-version' = 'n')): the same version changes nothing (*out a
 * copy), a lower one or one above FLOE_ICE_MAX_FORMAT_VERSION is
 * FLOE_ERR_INVALID_ARGUMENT.  Version 2 starts last-sequence-number at 0;
 * version 3 starts next-row-id at 0 (existing data gets row ids from the
 * next commit's manifest list, as Java assigns them).  Files written
 * before stay as they are: v2 position delete files remain valid in v3
 * until rewrite_position_delete_files turns them into deletion vectors. */
floe_status floe_ice_tm_upgrade_format_version(const floe_ice_table_metadata *md, int version,
                                               floe_ice_table_metadata **out) FLOE_WARN_UNUSED;
/* Remove properties by key; keys that are not set are ignored. */
floe_status floe_ice_tm_remove_properties(const floe_ice_table_metadata *md, const char *const *keys, int32_t n,
                                          floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* ---- partition spec and sort order evolution (table_update_spec.c) ------ */

/* One change of a partition spec update, as Iceberg Java's
 * UpdatePartitionSpec (and Spark's ALTER TABLE ... PARTITION FIELD) has
 * them.  A "term" is a source column path (`column`) and a transform. */
typedef enum floe_ice_spec_change_kind {
    FLOE_ICE_SPEC_ADD_FIELD = 0,   /* term, name (NULL: the default name)          */
    FLOE_ICE_SPEC_REMOVE_FIELD,    /* by term (column set) or by field name         */
    FLOE_ICE_SPEC_RENAME_FIELD     /* field `name` becomes `new_name`               */
} floe_ice_spec_change_kind;

typedef struct floe_ice_spec_change {
    floe_ice_spec_change_kind kind;
    const char *column;            /* ADD, REMOVE by term: the source column path   */
    floe_ice_transform transform;  /* with `column`                                 */
    const char *name;              /* ADD: new field's name; REMOVE (column NULL),
                                    * RENAME: the existing field's name            */
    const char *new_name;          /* RENAME                                        */
} floe_ice_spec_change;

/* Apply `n` changes, in order, to the table's default partition spec and
 * make the result the default spec (the spec's "Partition Evolution" and
 * Iceberg Java's BaseUpdatePartitionSpec):
 *   - an added field takes a fresh partition field id above
 *     last-partition-id (which is raised); in v2+ a field with the same
 *     source, transform (and name, when one is given) in any earlier spec
 *     gives its id (and name) back instead, as Java recycles them;
 *   - default names: col, col_bucket_N, col_trunc_W, col_year, col_month,
 *     col_day, col_hour (UpdatePartitionSpec's names);
 *   - removing a field drops it in v2+; in v1 it stays in place with a
 *     void transform (v1 readers number fields by position), renamed
 *     name_<field id> when a new field takes its name;
 *   - removing a field and adding the same term back restores it;
 *   - a resulting spec equivalent to an existing one (same fields, names
 *     and transforms) reuses that spec's id, else it gets the next id.
 * Errors (nothing changes): an unknown column is FLOE_ERR_NOT_FOUND with a
 * suggestion; a transform that does not apply to the column's type is
 * FLOE_ERR_TYPE; adding a term or a name the spec already has, or adding
 * twice, is FLOE_ERR_ALREADY_EXISTS; removing or renaming a field the spec
 * does not have is FLOE_ERR_NOT_FOUND naming the spec's fields; removing a
 * field added by the same update, two time transforms of one column
 * (day(ts) beside hour(ts)), a name that shadows a column and an unknown
 * transform in the current spec are FLOE_ERR_INVALID_ARGUMENT. */
floe_status floe_ice_tm_update_spec(const floe_ice_table_metadata *md, const floe_ice_spec_change *changes,
                                    int32_t n, floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* Make `order` (its order_id ignored) the table's default sort order: an
 * existing order with the same fields gives its id (an unsorted order is
 * order 0), else it is added with the next id.  Its sources must exist in
 * the current schema and its transforms apply (FLOE_ERR_INVALID_ARGUMENT
 * otherwise). */
floe_status floe_ice_tm_set_sort_order(const floe_ice_table_metadata *md, const floe_ice_sort_order *order,
                                       floe_ice_table_metadata **out) FLOE_WARN_UNUSED;

/* Does the table hold no rows?  True without a current snapshot, or when
 * the current snapshot's summary says total-records is 0. */
bool floe_ice_tm_is_empty(const floe_ice_table_metadata *md);

/* ---- appending data files (the commit step of INSERT) --------------------- */

struct floe_ice_table;

/* The files a commit wrote beside the data (its manifest, the manifests
 * an overwrite or delete rewrote with DELETED entries, and the manifest
 * list), so that a caller can delete them when the commit does not land.
 * Zero-initialise it ({0}) or let the producing function do so. */
typedef struct floe_ice_append_files {
    char *manifest;       /* floe_malloc'd locations, NULL when not written */
    char *manifest_list;
    char **rewritten;     /* the other manifests written (rewrites, added delete
                           * files): n_rewritten floe_malloc'd locations */
    int32_t n_rewritten;
} floe_ice_append_files;

/* Delete the files (ignoring missing ones) through the table's FileIO, and
 * free the strings.  Never touches data files.  NULL-safe. */
void floe_ice_append_files_discard(const struct floe_ice_table *t, floe_ice_append_files *f);
/* Free the strings only (the commit landed: the files now belong to the
 * table).  NULL-safe. */
void floe_ice_append_files_clear(floe_ice_append_files *f);

/* Metadata for `t` (the base) with one more snapshot that adds `n` data
 * files, given as serialized Avro data_file records (the writers' hand-off,
 * floe_ice_data_file_encode with the default spec's partition type and the
 * table's format version).
 *   - writes one manifest of ADDED entries under <location>/metadata with
 *     the default spec id (v2: snapshot id and sequence numbers left null,
 *     to be inherited from the manifest list);
 *   - writes a manifest list: the new manifest first, then every manifest
 *     of the current snapshot unchanged; the new record carries the added
 *     counts and partition field summaries;
 *   - the snapshot: a fresh positive random id, the current snapshot as
 *     parent, sequence number last-sequence-number + 1 (v2), a timestamp not
 *     before the base's last update, schema-id, and a summary of
 *     operation=append plus the counters Iceberg Java's SnapshotSummary
 *     writes (added-data-files, added-records, added-files-size,
 *     changed-partition-count, total-records, total-files-size,
 *     total-data-files, total-delete-files, total-position-deletes,
 *     total-equality-deletes; a total is omitted when the parent's summary
 *     lacks it, as Java does), plus n_kv caller pairs (summary_kv[2i] key,
 *     [2i+1] value) that do not clash with those;
 *   - it becomes current, "main" points to it, snapshot-log gains it.
 * Format versions 1 to 3.  In v3 (row lineage) the added files' first_row_id
 * is left null, every data manifest of the list without a first_row_id gets
 * one (from the table's next-row-id, advancing by each manifest's added and
 * existing rows), the snapshot records first-row-id and added-rows, and the
 * table's next-row-id advances by added-rows.
 * Delete files in the input are FLOE_ERR_UNSUPPORTED.  On success `written`
 * names the two files (the caller commits *out, then clears or discards
 * them); on failure nothing written is left behind. */
floe_status floe_ice_tm_append_snapshot(const struct floe_ice_table *t, const uint8_t *const *data_files,
                                        const size_t *lens, int32_t n, const char *const *summary_kv,
                                        int32_t n_kv, floe_ice_table_metadata **out,
                                        floe_ice_append_files *written) FLOE_WARN_UNUSED;

/* ---- replacing partitions (INSERT OVERWRITE) and deleting files -------- */

struct floe_ice_expr;

/* Metadata for `t` with one more snapshot (operation "overwrite") that adds
 * `n` data files (records as for floe_ice_tm_append_snapshot) and removes
 * every live data file — and every delete file — whose partition, in the
 * default spec, equals the partition tuple of one of the added files
 * (dynamic partition overwrite).  When the default spec is unpartitioned
 * every live file of the table is removed.  Removed files are written as
 * DELETED entries in rewritten manifests (untouched manifests are reused);
 * the summary carries deleted-data-files, deleted-records,
 * removed-files-size and the added-* and total-* counters.
 *
 * Conflict check: when base_snapshot_id >= 0 (the snapshot the statement
 * read), a snapshot committed after it that added files to one of the
 * replaced partitions is FLOE_ERR_CONFLICT (serializable isolation, as
 * Java's validateNoConflictingData); n == 0 replaces nothing and makes no
 * snapshot (*out NULL).  `written` collects every manifest and list written
 * (see floe_ice_append_files). */
floe_status floe_ice_tm_replace_partitions_snapshot(const struct floe_ice_table *t, const uint8_t *const *data_files,
                                                    const size_t *lens, int32_t n, int64_t base_snapshot_id,
                                                    const char *const *summary_kv, int32_t n_kv,
                                                    floe_ice_table_metadata **out,
                                                    floe_ice_append_files *written) FLOE_WARN_UNUSED;

/* Metadata for `t` with one more snapshot (operation "delete") that
 * removes every live data file all of whose rows satisfy `filter` (bound
 * or unbound by name against the current schema) — decided from the
 * partition (strict projection of the filter) or the file's column
 * metrics (strict metrics evaluation) — together with the delete files
 * that only apply to removed data.  A live data file that may hold both
 * matching and non-matching rows is FLOE_ERR_UNSUPPORTED
 * FLOE_ICE_DELETE_NEEDS_ROWS ": <file> may hold rows that do not match" —
 * the sign for SQL's DELETE to take its row-level path.  When no file
 * matches, *out is NULL (nothing to commit).  *deleted_files and
 * *deleted_rows (may be NULL) receive the counts (record counts: rows
 * already deleted by delete files are in them). */
#define FLOE_ICE_DELETE_NEEDS_ROWS "a row-level delete is needed"
floe_status floe_ice_tm_delete_snapshot(const struct floe_ice_table *t, const struct floe_ice_expr *filter,
                                        floe_ice_table_metadata **out, floe_ice_append_files *written,
                                        int64_t *deleted_files, int64_t *deleted_rows) FLOE_WARN_UNUSED;

/* ---- row-level changes (DELETE / UPDATE / MERGE) ----------------------- */

struct floe_row_delta;

/* Metadata for `t` with one more snapshot holding the row-level change `d`
 * (floe_row_delta in catalog.h; Java's RowDelta / OverwriteFiles):
 *   - d's data files are added as for floe_ice_tm_append_snapshot;
 *   - each delete file (a record decoded with the default spec's partition
 *     type) must be position deletes naming one data file, by
 *     referenced_data_file or equal file_path bounds; it gets that live
 *     file's spec id and partition tuple (written to a delete manifest of
 *     that spec), referenced_data_file set to the path the manifests
 *     record, and — a v2 position delete file — file_path lower and upper
 *     bounds equal to that path (whatever bounds it had).  Equality deletes, or a
 *     delete file for a data file removed by the same change, are
 *     FLOE_ERR_INVALID_ARGUMENT;
 *   - removed_paths are live data files removed (DELETED entries), with
 *     the delete files left with nothing to apply to;
 *   - a named data file (removed, or referenced) that is not live in `t`'s
 *     current snapshot is FLOE_ERR_CONFLICT naming it.
 * Operation "overwrite" when data files are added, else "delete"; the
 * summary is Java's (added-/removed- data files, delete files, position
 * deletes, DVs, sizes; total-*), plus n_kv caller pairs.  Nothing to do:
 * *out NULL.  `written` collects every manifest and list written. */
floe_status floe_ice_tm_row_delta_snapshot(const struct floe_ice_table *t, const struct floe_row_delta *d,
                                           const char *const *summary_kv, int32_t n_kv,
                                           floe_ice_table_metadata **out,
                                           floe_ice_append_files *written) FLOE_WARN_UNUSED;

/* A "replace" snapshot of `t`'s current one with its data manifests of the
 * default spec rewritten: every live entry EXISTING, clustered by
 * partition, about target_bytes per manifest (commit.manifest.target-
 * size-bytes); delete manifests and other specs' kept.  No current
 * snapshot or nothing to rewrite: *out NULL.  *n_replaced / *n_created:
 * the manifests replaced and written.  `written` collects every manifest
 * and list written (discarded here on failure). */
floe_status floe_ice_tm_rewrite_manifests_snapshot(const struct floe_ice_table *t, int64_t target_bytes,
                                                   floe_ice_table_metadata **out, floe_ice_append_files *written,
                                                   int32_t *n_replaced, int32_t *n_created) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
