/*
 * exec_write.h — the plan nodes of INSERT / CREATE TABLE AS / INSERT
 * OVERWRITE: IcebergWrite (one writer per input partition) and
 * IcebergCommit (one commit, on the coordinator).
 *
 * A write plan is
 *
 *   IcebergCommit                       1 partition, the coordinator
 *     Coalesce
 *       IcebergWrite                    N partitions, N writers
 *         [Sort on the partition columns, clustered writers only]
 *           Repartition hash(partition columns) | round robin
 *             Projection: table columns in schema order, then one
 *                         iceberg_transform(...) column per spec field
 *               <the query>
 *
 * The partition columns are computed in the projection from the table
 * columns (found by the spec's source field ids), so they are right
 * whatever order, names or expressions the query produced; the writer
 * reads them by position.  Both nodes are ordinary plan nodes (type name,
 * parts, constructor from parts, codec), so step 7 ships writers to other
 * processes; they hand their files to the commit as Avro data_file records
 * in the rows of their output.
 *
 * The partition transform is also a scalar function, usable in any query:
 *   iceberg_transform('bucket[16]', col)    -> int
 *   iceberg_transform('truncate[4]', col)   -> the source type
 *   iceberg_transform('day', ts)            -> int (days from 1970-01-01)
 *   ... identity, year, month, hour, void; NULL in, NULL out.
 */
#ifndef FLOE_EXEC_WRITE_H
#define FLOE_EXEC_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"
#include "floe/catalog.h"
#include "floe/fileio.h"

#ifdef __cplusplus
extern "C" {
#endif

/* IcebergWrite ("IcebergWrite").
 *
 * Input: the table's top-level columns in schema order with exactly the
 * types of floe_ice_write_schema (nullable columns for required fields are
 * accepted: every row is checked, and a NULL is FLOE_ERR_CONSTRAINT "NULL
 * value in required column 'c' of table <location>"), followed by one
 * column per field of the default spec holding that field's partition
 * value (the transform result type).
 *
 * Each input partition is one writer.  Fanout (write.fanout.enabled, the
 * default): one rolling writer per partition value seen, any input order;
 * when the buffered bytes of all its writers pass the memory budget
 * (property "floe.write.fanout-memory-bytes", default 256 MiB) the largest
 * is flushed.  Clustered (write.fanout.enabled=false): the input must
 * arrive sorted on the partition columns; a partition value that comes
 * back after another one started is FLOE_ERR_INVALID_ARGUMENT "clustered
 * writer: input is not sorted by partition (<path> seen again)"; each
 * batch's partitions are written in first-row order.
 *
 * Required input: hash distribution on the partition columns for a
 * partitioned spec with distribution mode hash or range (range is served
 * by hash + a sort), round robin for an unpartitioned spec with mode
 * hash, unspecified for mode none; clustered writers also require every
 * partition ordered by the partition columns (floe_plan_required_ordering).
 *
 * Output (after the writer's last file is finished; no rows before):
 * columns "data_file" (binary: the Avro data_file record), "location"
 * (string), "record_count" (int64), "file_size" (int64); one row per file.
 * Every file created is reported to the write job `job_id` of this
 * process (see floe_write_job_abort), and a writer whose stream closes
 * before it finished deletes its files.  File names start with
 * "<partition index, 5 digits>-<job_id>".
 *
 * Parts: the target (location, format version, current schema as Iceberg
 * schema JSON, default spec as partition spec JSON, sort order id, the
 * table properties) and job_id.  Everything borrowed/copied. */
floe_status floe_plan_iceberg_write(floe_plan *child, const char *location, int32_t format_version,
                                    const char *schema_json, const char *spec_json, int32_t sort_order_id,
                                    const char *const *properties, int32_t n_properties, const char *job_id,
                                    floe_plan **out) FLOE_WARN_UNUSED;
const char *floe_iceberg_write_location(const floe_plan *p);
int32_t floe_iceberg_write_format_version(const floe_plan *p);
const char *floe_iceberg_write_schema_json(const floe_plan *p);
const char *floe_iceberg_write_spec_json(const floe_plan *p);
int32_t floe_iceberg_write_sort_order_id(const floe_plan *p);
int32_t floe_iceberg_write_num_properties(const floe_plan *p);
const char *const *floe_iceberg_write_properties(const floe_plan *p); /* 2n strings */
const char *floe_iceberg_write_job_id(const floe_plan *p);
/* The same with the table's FileIO properties (floe_fileio_properties of
 * the table's io; NULL/0 for local tables): the writers' FileIO is made
 * from them, they are parts, and EXPLAIN shows them redacted.  And with
 * the table's default sort order (Iceberg sort order JSON; NULL or "" for
 * none): when every field of a non-empty order is a known transform of
 * one top-level column, the node requires each input partition ordered by
 * the partition columns and then the order's fields (fanout writers too),
 * and its files record the order's id; otherwise files record sort order
 * 0 — a file never claims an order its rows do not keep. */
floe_status floe_plan_iceberg_write_io(floe_plan *child, const char *location, int32_t format_version,
                                       const char *schema_json, const char *spec_json, int32_t sort_order_id,
                                       const char *const *properties, int32_t n_properties, const char *job_id,
                                       const floe_property *io_props, size_t n_io_props, const char *order_json,
                                       floe_plan **out) FLOE_WARN_UNUSED;
/* The node's FileIO properties (owned by the node; *n 0 for none). */
const floe_property *floe_iceberg_write_io_properties(const floe_plan *p, size_t *n);

/* ---- row-level changes (DELETE, UPDATE, MERGE) ----------------------------
 * IcebergWrite in delta mode: its input starts with five columns before
 * the table's columns and partition values —
 *   _file (string)  the data file of a row to delete, as the manifests
 *                   record it (the _file metadata column)
 *   _pos  (int64)   its position in that file (_pos)
 *   _op   (int32)   FLOE_ROW_OP_* bits: what to do with the row
 *   _row_id, _last_updated_sequence_number (int64)  the row's lineage (v3;
 *                   NULL before): a written row keeps its _row_id, and
 *                   its sequence number unless the row changed (DELETE or
 *                   COUNT set), when it is written NULL (the commit's)
 * — or has those five columns alone (DELETE: nothing to write).  Rows
 * with DELETE are gathered per data file and written, when the input
 * ends, as one position delete file per data file (format version 2) or
 * one deletion vector per data file (3, see floe_delta_old_delete);
 * rows with WRITE go to the data writers as in a plain write (fanout);
 * rows with COUNT but not DELETE count toward the statement's rows, and
 * every distinct deleted position counts once.
 *
 * Flags: FLOE_DELTA_ROWS (the input is a delta) must be set; with
 * FLOE_DELTA_DELETES (merge-on-read) the node requires its input hashed
 * on _file, so that each data file's deletes meet in one writer, and its
 * files claim no sort order; without it (copy-on-write: rows only, no
 * deletes) distribution and order are a plain write's.  FLOE_DELTA_UNIQUE:
 * a position deleted twice fails the statement (FLOE_ERR_CONSTRAINT: the
 * SQL standard's cardinality violation, for UPDATE and MERGE), else it is
 * deleted once.
 *
 * Output: "data_file", "location", "record_count", "file_size" as a plain
 * write's, then "content" (int32: 0 data file, 1 position delete file) and
 * "changed" (int64); after the files one row with a NULL data_file whose
 * "changed" is the rows the stream changed. */
#define FLOE_DELTA_PREFIX 5 /* _file, _pos, _op, _row_id, _last_updated_sequence_number */
#define FLOE_ROW_OP_DELETE 1
#define FLOE_ROW_OP_WRITE 2
#define FLOE_ROW_OP_COUNT 4
#define FLOE_DELTA_ROWS 1
#define FLOE_DELTA_DELETES 2
#define FLOE_DELTA_UNIQUE 4
#define FLOE_DELTA_ALL 7

/* Format version 3 writes deletion vectors: one Puffin file per writer, a
 * DV per data file holding the positions deleted before (its live DV, and
 * any position delete file that applies) and the new ones, as the spec
 * keeps one live DV per data file.  Those older deletes are parts of the
 * node: per data file, each delete that applies to it (the scan plan's). */
typedef struct floe_delta_old_delete {
    const char *data_file;            /* the data file, as the manifests record it */
    const char *location;             /* where the delete file is read (resolved) */
    const char *format;               /* as written: "puffin", "parquet", ... */
    int64_t record_count;
    int64_t file_size;
    int64_t content_offset;           /* a DV's blob; -1 for a position delete file */
    int64_t content_size;
    const char *referenced_data_file; /* NULL when not recorded */
} floe_delta_old_delete;

floe_status floe_plan_iceberg_write_delta(floe_plan *child, const char *location, int32_t format_version,
                                          const char *schema_json, const char *spec_json, int32_t sort_order_id,
                                          const char *const *properties, int32_t n_properties, const char *job_id,
                                          const floe_property *io_props, size_t n_io_props, const char *order_json,
                                          int32_t delta_flags, const floe_delta_old_delete *old_deletes,
                                          int32_t n_old_deletes, floe_plan **out) FLOE_WARN_UNUSED;
int32_t floe_iceberg_write_delta_flags(const floe_plan *p);

typedef enum floe_commit_kind {
    FLOE_COMMIT_APPEND = 0,             /* INSERT INTO, CREATE TABLE AS */
    FLOE_COMMIT_REPLACE_PARTITIONS = 1, /* INSERT OVERWRITE (dynamic) */
    FLOE_COMMIT_ROW_DELTA = 2           /* DELETE, UPDATE, MERGE (floe_plan_iceberg_commit_delta) */
} floe_commit_kind;

/* IcebergCommit ("IcebergCommit"): one partition.  Reads every row of its
 * child (which must have one partition: a Coalesce over the writers; its
 * columns as IcebergWrite's output), then commits all the data files to
 * ns.name in the catalog `catalog_uri` (floe_catalog_open_uri: a warehouse
 * directory, or sqlite:<db>?warehouse=<location>) in one snapshot — floe_catalog_append or
 * floe_catalog_replace_partitions (with base_snapshot_id, -1 = none) —
 * retrying on a concurrent commit up to max_retries times.  No files: no
 * snapshot.
 *
 * Output: one row, columns "rows" (int64, records written), "files"
 * (int64) and "snapshot_id" (int64, NULL when nothing was committed).
 *
 * Failure anywhere (the input stream's error, cancellation, the commit)
 * deletes every data file of the statement — the ones received and the
 * ones the job's writers in this process created — and returns the error;
 * the table is unchanged. */
floe_status floe_plan_iceberg_commit(floe_plan *child, const char *catalog_uri, const char *ns, const char *name,
                                     floe_commit_kind kind, int64_t base_snapshot_id, const char *job_id,
                                     int32_t max_retries, floe_plan **out) FLOE_WARN_UNUSED;
const char *floe_iceberg_commit_catalog_uri(const floe_plan *p);
const char *floe_iceberg_commit_namespace(const floe_plan *p);
const char *floe_iceberg_commit_table(const floe_plan *p);
floe_commit_kind floe_iceberg_commit_kind(const floe_plan *p);
int64_t floe_iceberg_commit_base_snapshot_id(const floe_plan *p);
const char *floe_iceberg_commit_job_id(const floe_plan *p);
/* Write-audit-publish: an APPEND commit stages its snapshot under summary
 * wap.id = wap_id (floe_catalog_append: not made current) instead of
 * committing it to main.  NULL: commit normally. */
floe_status floe_iceberg_commit_set_wap_id(floe_plan *p, const char *wap_id) FLOE_WARN_UNUSED;
const char *floe_iceberg_commit_wap_id(const floe_plan *p); /* NULL: none */
/* An APPEND commit to branch `branch` (floe_catalog_append_branch: only
 * that ref moves).  NULL: main. */
floe_status floe_iceberg_commit_set_branch(floe_plan *p, const char *branch) FLOE_WARN_UNUSED;
const char *floe_iceberg_commit_branch(const floe_plan *p); /* NULL: main */
int32_t floe_iceberg_commit_max_retries(const floe_plan *p);
/* The same with the table's FileIO properties: failure cleanup deletes
 * the received files through a FileIO made from them. */
floe_status floe_plan_iceberg_commit_io(floe_plan *child, const char *catalog_uri, const char *ns, const char *name,
                                        floe_commit_kind kind, int64_t base_snapshot_id, const char *job_id,
                                        int32_t max_retries, const floe_property *io_props, size_t n_io_props,
                                        floe_plan **out) FLOE_WARN_UNUSED;
const floe_property *floe_iceberg_commit_io_properties(const floe_plan *p, size_t *n);

/* IcebergCommit of a row-level change (kind FLOE_COMMIT_ROW_DELTA): the
 * input is IcebergWrite's delta output (six columns); data file records
 * (content 0) and delete file records (content 1) are committed together
 * by floe_catalog_row_delta (catalog.h) with `removed_paths` (data files
 * rewritten whole: copy-on-write), validated against the commits after
 * base_snapshot_id at `isolation` with `conflict_filter_json` (an Iceberg
 * expression as JSON: the rows the statement read; NULL: all).  The output
 * row's "rows" is the sum of the writers' changed counts: the statement's
 * row count.  Nothing received and nothing removed: no snapshot. */
floe_status floe_plan_iceberg_commit_delta(floe_plan *child, const char *catalog_uri, const char *ns, const char *name,
                                           int64_t base_snapshot_id, const char *job_id, int32_t max_retries,
                                           const floe_property *io_props, size_t n_io_props,
                                           floe_isolation_level isolation, const char *conflict_filter_json,
                                           const char *const *removed_paths, int32_t n_removed,
                                           floe_plan **out) FLOE_WARN_UNUSED;
floe_isolation_level floe_iceberg_commit_isolation(const floe_plan *p);
/* A row-delta commit that rewrites files without changing rows
 * (rewrite_data_files): operation "replace" (floe_row_delta.operation);
 * the writers must add no delete files.  A part of the node. */
floe_status floe_iceberg_commit_set_replace(floe_plan *p) FLOE_WARN_UNUSED;
bool floe_iceberg_commit_is_replace(const floe_plan *p);
const char *floe_iceberg_commit_conflict_filter(const floe_plan *p); /* NULL: none */
const char *const *floe_iceberg_commit_removed(const floe_plan *p, int32_t *n);

/* ---- write jobs ----------------------------------------------------------
 * A process-wide registry (thread-safe) of the files each running write
 * job created, so that a failed statement can delete files no commit will
 * ever reference — including files whose records were still in flight.
 * The job id is a fresh random UUID per statement (floe_write_job_new_id). */

/* A new job id: 36-character UUID text, floe_malloc'd. */
char *floe_write_job_new_id(void);
/* Remember that job `job_id` created `location`. */
void floe_write_job_created(const char *job_id, const char *location);
/* Remember the FileIO properties of job `job_id`'s writers (the first
 * call wins; each IcebergWrite stream calls it when it opens). */
floe_status floe_write_job_set_io(const char *job_id, const floe_property *props, size_t n) FLOE_WARN_UNUSED;
/* Delete every file job `job_id` created (missing files ignored; through a
 * FileIO made from the job's FileIO properties — the environment's
 * defaults when none were set — so local paths, file: and s3: URIs all
 * work) and forget the job.  Returns how many were deleted. */
int64_t floe_write_job_abort(const char *job_id);
/* The job committed: forget its files without deleting them. */
void floe_write_job_forget(const char *job_id);

#ifdef __cplusplus
}
#endif
#endif
