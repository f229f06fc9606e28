/*
 * iceberg_data_writer.h — writing an Iceberg table's data files.
 *
 * The write half below the execution engine: given what a writer needs to
 * know about the target table (a floe_ice_write_target: location, schema,
 * default partition spec, properties — no catalog handle, so a writer can
 * run in any process), it resolves the table's write properties into
 * settings, lays out file locations (write.data.path, the object-storage
 * layout, the partition path) and writes Parquet files for ONE partition
 * value at a time, rolling to a new file at the target size.  Every file it
 * finishes is handed back as an Iceberg Avro data_file record (bytes), with
 * the column metrics the table's write.metadata.metrics.* properties ask
 * for, ready for floe_ice_tm_append_snapshot / floe_catalog_append in the
 * commit step (possibly in another process).
 *
 * Properties honoured (Iceberg Java's names and defaults):
 *   write.format.default                    parquet (others: FLOE_ERR_UNSUPPORTED)
 *   write.target-file-size-bytes            536870912
 *   write.distribution-mode                 hash (partitioned) | none | range
 *   write.fanout.enabled                    true  (false: clustered writer)
 *   write.data.path                         <location>/data
 *   write.object-storage.enabled            false
 *   write.object-storage.partitioned-paths  true
 *   write.parquet.compression-codec         zstd
 *   write.parquet.compression-level         codec default
 *   write.parquet.row-group-size-bytes      134217728
 *   write.parquet.page-size-bytes           1048576
 *   write.parquet.page-row-limit            20000
 *   write.parquet.dict-size-bytes           2097152
 *   write.parquet.bloom-filter-enabled.column.<name>   false
 *   write.metadata.metrics.default          truncate(16)
 *   write.metadata.metrics.column.<name>    none | counts | truncate(N) | full
 *   write.metadata.metrics.max-inferred-column-defaults 100
 * A value that does not parse is FLOE_ERR_INVALID_ARGUMENT naming the
 * property and the value (Java only logs a bad metrics mode and falls
 * back; floe refuses it).  Column names the schema lacks in
 * metrics.column.* and bloom-filter-enabled.column.* are ignored, as Java
 * does when writing.  Also read: write.parquet.page-version (v1|v2),
 * write.parquet.bloom-filter-max-bytes, parquet.enable.dictionary; the
 * deprecated write.object-storage.path / write.folder-storage.path are
 * refused as in Java.  Metrics follow Java's ParquetMetrics: columns
 * inside lists and maps get only column_sizes; mode none gets nothing.
 */
#ifndef FLOE_ICEBERG_DATA_WRITER_H
#define FLOE_ICEBERG_DATA_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_schema.h"
#include "floe/iceberg_value.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The target table as a writer sees it.  Everything borrowed. */
typedef struct floe_ice_write_target {
    const char *location;                 /* the table's location */
    int32_t format_version;               /* 1, 2 (3: row lineage is the commit's business) */
    const floe_ice_schema *schema;        /* the current schema: the rows' layout */
    const floe_ice_partition_spec *spec;  /* the default spec: partition tuple and path */
    int32_t sort_order_id;                /* recorded in each data_file (0: unsorted) */
    const char *const *properties;        /* [2i] key, [2i+1] value */
    int32_t n_properties;
    /* The table's sort order (may be NULL): as in Java's MetricsConfig, its
     * order-preserving source columns get at least truncate(16) metrics
     * when the default mode is none or counts. */
    const struct floe_ice_sort_order *sort_order;
} floe_ice_write_target;

typedef enum floe_ice_distribution_mode {
    FLOE_ICE_DIST_NONE = 0,
    FLOE_ICE_DIST_HASH,
    FLOE_ICE_DIST_RANGE
} floe_ice_distribution_mode;

/* The resolved write properties of a target (opaque; immutable once made,
 * so one instance may be shared by many writer threads). */
typedef struct floe_ice_write_settings floe_ice_write_settings;

floe_status floe_ice_write_settings_new(const floe_ice_write_target *t,
                                        floe_ice_write_settings **out) FLOE_WARN_UNUSED;
void floe_ice_write_settings_free(floe_ice_write_settings *s); /* NULL-safe */
int64_t floe_ice_write_settings_target_file_size(const floe_ice_write_settings *s);
bool floe_ice_write_settings_fanout(const floe_ice_write_settings *s);
floe_ice_distribution_mode floe_ice_write_settings_distribution(const floe_ice_write_settings *s);

/* The partition path of a tuple ("name=human/name=human", each part
 * URL-encoded as Java's PartitionSpec.partitionToPath does); "" for an
 * unpartitioned spec.  Unlike floe_ice_partition_path
 * (iceberg_partition_spec.h, which it builds on; the two once shared a
 * name), the values are first checked against the spec's partition type
 * in `schema` (FLOE_ERR_TYPE naming the field on a mismatch; an int is
 * taken as a date and a long as a time/timestamp where the field has that
 * type, since the batch kernels produce plain int days).
 * floe_malloc'd. */
floe_status floe_ice_write_partition_path(const floe_ice_partition_spec *spec, const floe_ice_schema *schema,
                                          const floe_ice_value *partition, int32_t n_partition,
                                          char **out) FLOE_WARN_UNUSED;

/* The columnar schema a writer's batches must have: the target schema's
 * top-level fields in order, floe types from floe_ice_type_to_columnar,
 * required fields non-nullable, field ids attached (so the Parquet file
 * carries them). */
floe_status floe_ice_write_schema(const floe_ice_schema *schema, floe_schema **out) FLOE_WARN_UNUSED;

/* Called with the location of every file a writer creates, before any
 * byte is written, so a caller can delete it if the statement fails. */
typedef struct floe_ice_file_observer {
    void (*created)(void *arg, const char *location);
    void *arg;
} floe_ice_file_observer;

/* The files a writer finished.  Records are Avro data_file records
 * (floe_ice_data_file_encode with the spec's partition type and the
 * target's format version); every array has n entries. */
typedef struct floe_ice_written_files {
    int32_t n;
    uint8_t **records;
    size_t *lens;
    char **locations;
    int64_t *record_counts;
    int64_t *file_sizes;
} floe_ice_written_files;
void floe_ice_written_files_free(floe_ice_written_files *f); /* contents; NULL-safe */
/* Append a finished file to `f` (which takes record, location: floe_malloc'd). */
floe_status floe_ice_written_files_append(floe_ice_written_files *f, uint8_t *record, size_t len, char *location,
                                          int64_t record_count, int64_t file_size) FLOE_WARN_UNUSED;

/* One partition value's rolling writer. */
typedef struct floe_ice_rolling_writer floe_ice_rolling_writer;

/* Files go to <data path>/<partition path>/<file_prefix>-<seq>.parquet
 * (object-storage layout: <data path>/<hash>/<partition path>/...), seq
 * counting from 00001.  `file_prefix` must be unique to the statement and
 * writer (e.g. "00003-<job uuid>").  `partition` holds the tuple in spec
 * field order (n_partition values; NULL/0 for unpartitioned); it is
 * copied.  No file is created until the first row arrives. */
floe_status floe_ice_rolling_writer_open(floe_fileio *io, const floe_ice_write_target *t,
                                         const floe_ice_write_settings *s, const floe_ice_value *partition,
                                         int32_t n_partition, const char *file_prefix,
                                         const floe_ice_file_observer *observer,
                                         floe_ice_rolling_writer **out) FLOE_WARN_UNUSED;

/* Append rows (schema: floe_ice_write_schema of the target).  A NULL in a
 * required column is FLOE_ERR_CONSTRAINT "NULL value in required column
 * 'name'".  Rolls to a new file when the open file's estimated size
 * reaches the target file size.
 * Details: columns are matched by position and need only compatible types
 * (floe_type_compatible: nullability and names may differ); columns after
 * the table's are ignored (e.g. IcebergWrite's partition columns).  The
 * NULL check covers nested required fields too, where their parent is
 * present ('st.x', 'l.element'), and the message goes on " of table
 * <location>".  After an error the writer can only be freed. */
floe_status floe_ice_rolling_writer_write(floe_ice_rolling_writer *w, const floe_batch *b) FLOE_WARN_UNUSED;

/* Memory the writer holds (buffered, not yet written, pages). */
int64_t floe_ice_rolling_writer_buffered_bytes(const floe_ice_rolling_writer *w);

/* Finish the open file now (memory pressure); the next write starts a new
 * one.  No-op when no file is open. */
floe_status floe_ice_rolling_writer_flush(floe_ice_rolling_writer *w) FLOE_WARN_UNUSED;

/* Finish the open file and move every finished file's record to `out`
 * (appended).  The writer can then only be freed. */
floe_status floe_ice_rolling_writer_finish(floe_ice_rolling_writer *w,
                                           floe_ice_written_files *out) FLOE_WARN_UNUSED;

/* Free the writer.  abandon = true: delete every file it created (the
 * statement failed); false: leave them (they were handed out by finish).
 * NULL-safe. */
void floe_ice_rolling_writer_free(floe_ice_rolling_writer *w, bool abandon);

/* ---- delete files of row-level changes (delete_writer.c) ------------------ */

/* Write the positions `pos` (ascending, distinct, n > 0) deleted from data
 * file `data_file_path` (as the manifests record it) as one Parquet
 * position delete file named `filename` in the table's data path, and
 * append its data_file record (content position deletes,
 * referenced_data_file, file_path bounds equal to the path, partition all
 * NULL: the commit fills it in) to *out.  The observer hears of the
 * location before it is created; on failure the file is deleted. */
floe_status floe_ice_write_position_deletes(floe_fileio *io, const floe_ice_write_settings *s,
                                            const char *data_file_path, const int64_t *pos, int64_t n,
                                            const char *filename, const floe_ice_file_observer *observer,
                                            floe_ice_written_files *out) FLOE_WARN_UNUSED;

/* The deleted positions of one data file, for a deletion vector: all of
 * them (the ones deleted before included), ascending and distinct. */
typedef struct floe_ice_dv_input {
    const char *data_file_path; /* as the manifests record it */
    const int64_t *positions;
    int64_t n;
} floe_ice_dv_input;

/* Format version 3: write `n` deletion vectors as the blobs of one Puffin
 * file named `filename` in the table's data path and append one data_file
 * record per blob to *out (PUFFIN, content_offset / content_size_in_bytes,
 * referenced_data_file, record_count = cardinality; partition all NULL:
 * the commit fills it in).  n == 0 writes nothing.  On failure the file is
 * deleted. */
floe_status floe_ice_write_deletion_vectors(floe_fileio *io, const floe_ice_write_settings *s,
                                            const floe_ice_dv_input *dvs, int32_t n, const char *filename,
                                            const floe_ice_file_observer *observer,
                                            floe_ice_written_files *out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
