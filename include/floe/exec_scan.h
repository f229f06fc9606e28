/*
 * exec_scan.h — leaf nodes of the physical plan: the Iceberg table scan,
 * the Parquet file scan and generate_series.
 *
 * Scans are planned ONCE, where the plan is built (the coordinator): the
 * constructor's parts are the finished work assignment of every output
 * partition (task groups, file groups), so a node shipped to a worker by
 * the plan codec reads exactly its partition and never re-plans.
 */
#ifndef FLOE_EXEC_SCAN_H
#define FLOE_EXEC_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_table_metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------- generate_series */

/* GenerateSeries ("GenerateSeries"): one int64 column named `column`
 * (non-null) with start, start+step, ... while <= stop (step > 0) or
 * >= stop (step < 0); step 0 is FLOE_ERR_INVALID_ARGUMENT.  The values
 * are split into `n_partitions` contiguous ranges of nearly equal size. */
floe_status floe_plan_generate_series(int64_t start, int64_t stop, int64_t step, int32_t n_partitions,
                                      const char *column, floe_plan **out) FLOE_WARN_UNUSED;

/* ---------------------------------------------------------- Iceberg scan */

/* Plan a scan of `table` (borrowed; only its metadata location, root and
 * allow_moved_paths are kept in the node) at `snapshot` (NULL: current),
 * reading the top-level fields `field_ids` (in that output order; NULL =
 * every column of the read schema), pruning with `filter` (NULL: none;
 * unbound by name or bound), into at most `target_partitions` task
 * groups (one empty group for an empty scan), and build the IcebergScan
 * node over them.  The read schema is the selected snapshot's schema for
 * time travel by id/ref/timestamp, else the current schema.  When every
 * data file of the scan records the table's current sort order (its
 * sort_order_id) and that order is made of identity transforms of
 * projected columns, each partition reports that ordering when its files
 * are read in order and cannot overlap (else no ordering is claimed). */
floe_status floe_iceberg_scan_new(const floe_ice_table *table, const floe_ice_snapshot_selector *snapshot,
                                  const int32_t *field_ids, int32_t n_field_ids, const floe_ice_expr *filter,
                                  int32_t target_partitions, floe_plan **out) FLOE_WARN_UNUSED;
/* The same reading only the data files named in only_files (paths as the
 * manifests record them) when only_files_set: `_file IN (...)` pushed
 * into the scan, as a copy-on-write change reads the files it rewrites. */
floe_status floe_iceberg_scan_new_files(const floe_ice_table *table, const floe_ice_snapshot_selector *snapshot,
                                        const int32_t *field_ids, int32_t n_field_ids, const floe_ice_expr *filter,
                                        bool only_files_set, const char *const *only_files, int32_t n_only_files,
                                        int32_t target_partitions, floe_plan **out) FLOE_WARN_UNUSED;

/* IcebergScan ("IcebergScan") from its parts alone: where the table's
 * metadata is (metadata_location, root, allow_moved_paths), the read
 * schema as Iceberg schema JSON, the projected field ids, and one
 * serialized task group (floe_ice_scan_group_serialize) per output
 * partition.  `ordering` may be NULL (n_ordering 0). */
floe_status floe_plan_iceberg_scan(const char *metadata_location, const char *root, bool allow_moved_paths,
                                   const char *schema_json, const int32_t *field_ids, int32_t n_field_ids,
                                   const uint8_t *const *groups, const size_t *group_lens, int32_t n_groups,
                                   const floe_sort_key *ordering, int32_t n_ordering,
                                   floe_plan **out) FLOE_WARN_UNUSED;
/* The same with the table's FileIO properties (floe_fileio_properties of
 * the table's io; NULL/0 for local tables): each partition reads through a
 * FileIO made from them (floe.credentials-id keys come from the credential
 * store of the process running it).  They are parts (encoded, decoded) and
 * EXPLAIN shows them redacted.  floe_iceberg_scan_new passes table->io's. */
floe_status floe_plan_iceberg_scan_io(const char *metadata_location, const char *root, bool allow_moved_paths,
                                      const char *schema_json, const int32_t *field_ids, int32_t n_field_ids,
                                      const uint8_t *const *groups, const size_t *group_lens, int32_t n_groups,
                                      const floe_sort_key *ordering, int32_t n_ordering,
                                      const floe_property *io_props, size_t n_io_props,
                                      floe_plan **out) FLOE_WARN_UNUSED;
/* The node's FileIO properties (owned by the node; *n 0 for none). */
const floe_property *floe_iceberg_scan_io_properties(const floe_plan *p, size_t *n);
const char *floe_iceberg_scan_metadata_location(const floe_plan *p);
const char *floe_iceberg_scan_root(const floe_plan *p);
bool floe_iceberg_scan_allow_moved_paths(const floe_plan *p);
const char *floe_iceberg_scan_schema_json(const floe_plan *p);
int32_t floe_iceberg_scan_num_field_ids(const floe_plan *p);
const int32_t *floe_iceberg_scan_field_ids(const floe_plan *p);
int32_t floe_iceberg_scan_num_groups(const floe_plan *p);
const uint8_t *floe_iceberg_scan_group(const floe_plan *p, int32_t i, size_t *len);
/* Plan-time statistics (rows, bytes, files, per-column stats) when the node
 * was made by floe_iceberg_scan_new in this process, else NULL. */
const floe_ice_scan_stats *floe_iceberg_scan_stats(const floe_plan *p);

/* ---------------------------------------------------------- Parquet scan */

/* One unit of a ParquetScan partition: row groups [rg_begin, rg_end) of
 * one file; rg_end FLOE_PQ_SCAN_WHOLE_FILE (rg_begin 0) reads every row
 * group, counted when the file is opened (a Hive-partitioned scan plans so,
 * opening no file but the first until it is read).  hive_values: the
 * file's value for each of the node's Hive keys (NULL entry: SQL NULL; the
 * array itself NULL when the node has no keys). */
#define FLOE_PQ_SCAN_WHOLE_FILE (-1)
typedef struct floe_pq_scan_part {
    char *path;
    int32_t rg_begin, rg_end;
    char **hive_values;
} floe_pq_scan_part;

/* Hive partitioning of read_parquet (hive_partitioning => true/false). */
typedef enum floe_hive_mode {
    FLOE_HIVE_AUTO = 0, /* on when every file's path has the same key=value folders */
    FLOE_HIVE_ON,       /* on; files whose keys differ are an error */
    FLOE_HIVE_OFF
} floe_hive_mode;

/* Expand `patterns` (paths or globs with * ? [..], local or s3://; an
 * unmatched pattern is FLOE_ERR_NOT_FOUND naming it), read each footer,
 * check the files share one schema (FLOE_ERR_TYPE naming the first file
 * that differs), split files at row groups and balance them by bytes over
 * at most `target_partitions` partitions, and build the ParquetScan node
 * reading every top-level column. */
floe_status floe_parquet_scan_new(const char *const *patterns, int32_t n_patterns, int32_t target_partitions,
                                  floe_plan **out) FLOE_WARN_UNUSED;
/* The same with Hive partitioning (floe_parquet_scan_new is FLOE_HIVE_AUTO).
 * With partitions, the key=value folders of each path become columns after
 * the file's (keys sorted by name; a file column of a key's name takes the
 * path's value and type, in its place), typed as DuckDB types them (int64,
 * date, timestamp, else string; see src/exec/scan/scan_files.h), and the
 * plan reads only the first file's footer: every file is one part
 * (FLOE_PQ_SCAN_WHOLE_FILE), parts are dealt to partitions by file size, the
 * row estimate is the first file's rows scaled by bytes, and a file whose
 * partition values make a conjunct of the pruning predicate FALSE or NULL
 * is dropped by floe_parquet_scan_project — never opened. */
floe_status floe_parquet_scan_new_hive(const char *const *patterns, int32_t n_patterns, int32_t target_partitions,
                                       floe_hive_mode hive, floe_plan **out) FLOE_WARN_UNUSED;

/* ParquetScan ("ParquetScan") from its parts alone: the output schema
 * (top-level file columns read by name, in this order), the parts of each
 * partition, and an optional pruning predicate over the output schema
 * (row groups whose column chunk statistics prove no row can satisfy it
 * are skipped — single pages are not, the page index is not used yet; it
 * does not filter rows: keep a Filter above). */
floe_status floe_plan_parquet_scan(floe_schema *schema, const floe_pq_scan_part *const *partitions,
                                   const int32_t *n_parts, int32_t n_partitions, floe_expr *prune,
                                   floe_plan **out) FLOE_WARN_UNUSED;
/* The same with Hive keys: an output column named like a key takes each
 * part's value (hive_values[k], text typed as the column) instead of being
 * read from the file. */
floe_status floe_plan_parquet_scan_hive(floe_schema *schema, const char *const *hive_keys, int32_t n_keys,
                                        const floe_pq_scan_part *const *partitions, const int32_t *n_parts,
                                        int32_t n_partitions, floe_expr *prune, floe_plan **out) FLOE_WARN_UNUSED;
/* The same scan reading only columns `columns` (indices into p's schema,
 * in output order) with pruning predicate `prune` (over the NEW schema,
 * may be NULL). */
floe_status floe_parquet_scan_project(const floe_plan *p, const int32_t *columns, int32_t n_columns,
                                      floe_expr *prune, floe_plan **out) FLOE_WARN_UNUSED;
int32_t floe_parquet_scan_num_partitions_parts(const floe_plan *p, int32_t partition);
const floe_pq_scan_part *floe_parquet_scan_part(const floe_plan *p, int32_t partition, int32_t i);
const floe_expr *floe_parquet_scan_prune(const floe_plan *p); /* may be NULL */
/* Its row estimate (floe_plan_estimate_rows) is the rows of the files'
 * footers, known when the node was made by floe_parquet_scan_new (or
 * projected from one) in this process; unknown in a decoded plan.
 * Likewise, a bound on the distinct values of integer column `column`
 * (max - min + 1 from the footers' statistics, at most the rows); -1
 * when unknown. */
int64_t floe_parquet_scan_column_ndv(const floe_plan *p, int32_t column);

#ifdef __cplusplus
}
#endif
#endif
