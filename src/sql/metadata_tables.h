/*
 * metadata_tables.h — Iceberg metadata tables ("t$snapshots", "t$files",
 * ...) as ready physical plans.
 *
 * The binder resolves a table name with a "$<which>" suffix to the table
 * and calls floe_sql_metadata_table; the result is a Values plan (exec.h)
 * holding every row, built from the table's metadata and (for files,
 * manifests and partitions) its current snapshot's manifests — or, read
 * FOR SYSTEM_VERSION / SYSTEM_TIME AS OF, the selected snapshot's (the
 * binder hands in the metadata with that snapshot current).
 *
 * Columns follow Trino's Iceberg connector (its "$<which>" tables), so
 * queries written for Trino run unchanged.  Where Trino uses a type floe's
 * SQL layer handles poorly, the choice is noted:
 *
 *   snapshots   committed_at timestamptz, snapshot_id bigint, parent_id
 *               bigint, operation varchar, manifest_list varchar, summary
 *               varchar — the summary map as a JSON object text (Trino: a
 *               map(varchar, varchar)), without "operation".
 *   history     made_current_at timestamptz, snapshot_id bigint, parent_id
 *               bigint, is_current_ancestor boolean (the snapshot log).
 *   manifests   content int (0 data, 1 deletes; Iceberg's/Spark's column,
 *               not in Trino), path varchar, length bigint,
 *               partition_spec_id int, added_snapshot_id bigint,
 *               added_data_files_count int, added_rows_count bigint,
 *               existing_data_files_count int, existing_rows_count bigint,
 *               deleted_data_files_count int, deleted_rows_count bigint,
 *               partition_summaries list<struct<contains_null boolean,
 *               contains_nan boolean, lower_bound varchar, upper_bound
 *               varchar>> (bounds in the transform's human form).  The
 *               manifests of the current snapshot; counts a writer left
 *               out are NULL.
 *   files       content int, file_path varchar, file_format varchar,
 *               spec_id int, partition struct<...> (only when the table
 *               has ever been partitioned), record_count bigint,
 *               file_size_in_bytes bigint, column_sizes, value_counts,
 *               null_value_counts, nan_value_counts map<int, bigint>,
 *               lower_bounds, upper_bounds map<int, varchar> (human form,
 *               columns of the current schema only), key_metadata
 *               varbinary, split_offsets list<bigint>, equality_ids
 *               list<int>, sort_order_id int.  Live data and delete files
 *               of the current snapshot (no readable_metrics).
 *   partitions  partition struct<...> (only when partitioned),
 *               record_count bigint, file_count bigint, total_size bigint:
 *               data files of the current snapshot grouped by partition
 *               (no per-column "data" summary).
 *   refs        name varchar, type varchar ('BRANCH' / 'TAG'), snapshot_id
 *               bigint, max_reference_age_in_ms bigint,
 *               min_snapshots_to_keep int, max_snapshot_age_in_ms bigint.
 *   properties  key varchar, value varchar.
 *   metadata_log_entries  timestamp timestamptz, file varchar,
 *               latest_snapshot_id bigint, latest_schema_id int,
 *               latest_sequence_number bigint: the metadata log and then
 *               the current metadata file, each with the snapshot that was
 *               current at its time.
 *   data_files, delete_files  $files of one content (0, or 1 and 2).
 *   all_files, all_data_files, all_delete_files  $files' columns for the
 *               live files of every snapshot the table keeps, each path
 *               once.
 *   entries     status int (0 EXISTING, 1 ADDED, 2 DELETED), snapshot_id,
 *               sequence_number, file_sequence_number bigint, data_file
 *               struct<the $files columns>: every entry of the current
 *               snapshot's manifests (Spark's; no readable_metrics).
 *   all_entries the same over every snapshot's manifests, each manifest
 *               once.
 *   all_manifests  $manifests' columns for every snapshot's manifest list,
 *               plus reference_snapshot_id bigint (the listing snapshot).
 *   position_deletes  file_path varchar, pos bigint, row struct<the
 *               table's columns> (always NULL: not read), partition
 *               struct<...> (only when partitioned), spec_id int,
 *               delete_file_path varchar, content_offset bigint,
 *               content_size_in_bytes bigint (deletion vectors): one row
 *               per deleted position of the current snapshot's position
 *               delete files (Parquet) and DVs (Spark's / Iceberg 1.8's).
 *
 * The partition struct is the union of every partition spec's fields the
 * table has had (by partition field id, in order of first appearance, as
 * Trino's), typed by the transform over the current schema; a field whose
 * source column was dropped or whose transform is unknown is left out.
 * Files of older specs have NULL in the fields their spec lacks.
 */
#ifndef FLOE_SQL_METADATA_TABLES_H
#define FLOE_SQL_METADATA_TABLES_H

#include <stdbool.h>

#include "floe/exec.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/status.h"

/* A Values plan (one partition) with the rows of metadata table `which`
 * ("snapshots", "history", "manifests", "files", "partitions", "refs",
 * "properties", "metadata_log_entries", "data_files", ...) of `t`.  An
 * unknown name is FLOE_ERR_NOT_FOUND with a "did you mean" and the list of
 * valid names. */
floe_status floe_sql_metadata_table(const floe_ice_table *t, const char *which,
                                    floe_plan **out) FLOE_WARN_UNUSED;

/* Is metadata table `which` built from one snapshot (the current one, or
 * the one FOR SYSTEM_VERSION / SYSTEM_TIME AS OF selects: files,
 * data_files, delete_files, manifests, partitions, entries,
 * position_deletes)?  The others cover the whole table's history. */
bool floe_sql_metadata_table_of_snapshot(const char *which);

/* The metadata table names, NULL-terminated (for suggestions). */
extern const char *const floe_sql_metadata_table_names[];

#endif
