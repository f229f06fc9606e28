/*
 * iceberg_task_reader.h — reading one Iceberg file scan task (a Parquet data
 * file, a byte range of it, a residual filter and the delete files that
 * apply to it) into record batches in the table's projected schema.
 *
 *   floe_ice_task_reader *r;
 *   FLOE_TRY(floe_ice_task_reader_open(&opts, &task, &r));
 *   for (floe_batch *b; ; ) {
 *       FLOE_TRY(floe_ice_task_reader_next(r, &b));   // NULL: done
 *       if (!b) break;
 *       ... floe_batch_release(b);
 *   }
 *   floe_ice_task_reader_close(r);
 *
 * Columns resolve by Iceberg field id at every depth (structs, lists,
 * maps), never by name.  A file written without field ids is read through
 * the table's "schema.name-mapping.default" property; without one, as
 * Iceberg Java reads it: a Parquet file's top-level columns take ids by
 * position (1, 2, ...), an Avro or ORC file's fields are matched by the
 * read schema's names at every depth (equality delete files without ids
 * likewise).  A field the file does not have reads as its identity
 * partition value (from the task's partition tuple), else its
 * initial-default, else null.  Promoted types
 * convert (int->long, float->double, decimal widening, date->timestamp).
 *
 * Only row groups whose start offset lies in [start, start + length) are
 * read.  Position deletes (v2 position delete files and v3 deletion
 * vectors, merged by floe_ice_posdel of iceberg_deletes.h and matched by
 * the data file's recorded path) and equality deletes drop rows, using the
 * row's position in the file (as the Parquet reader reports it, so a byte
 * range starting mid-file and skipped pages still number rows correctly);
 * the residual filter (bound to the read schema) drops rows it rejects.
 * The residual's AND-ed comparisons, IN lists and null tests on plain
 * (struct-only) columns also go to the Parquet reader as page predicates:
 * pages and row groups whose page index proves no row matches are not
 * read at all.  Equality and
 * filter columns are read even when not projected and dropped afterwards;
 * an equality column since dropped from the table is read by its id with
 * its type from the newest older schema that had it.  A "data" file in
 * Puffin format (index blobs some writers register) reads as no rows; other
 * non-Parquet formats are FLOE_ERR_UNSUPPORTED.
 *
 * Every file of a task (the data file, position and equality delete
 * files, Puffin deletion vectors) opens at its resolved location through
 * the table's FileIO, so tables on S3 read end to end; recorded file sizes
 * spare S3 its HEAD requests.  A table without a FileIO opens plain paths
 * with the local reader and URIs (file:, s3:) through a FileIO configured
 * from the AWS_* environment.
 *
 * The residual is evaluated a batch at a time (src/iceberg/expr/expr_batch.h)
 * when it reads only top-level columns, else row by row through struct
 * paths with floe_ice_expr_eval_row.
 *
 * Limits (for now): the projection lists top-level field ids; a residual
 * that reads a field inside a list or map is not applied at all (the
 * caller must filter); equality delete keys must be top-level columns; a missing
 * nested (struct/list/map) field with a JSON initial-default reads as null.
 *
 * A reader is used by one thread at a time; several readers may run at
 * once over the same table.
 */
#ifndef FLOE_ICEBERG_TASK_READER_H
#define FLOE_ICEBERG_TASK_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_schema.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct floe_ice_task_read_options {
    const floe_ice_table *table;         /* name mapping, partition specs */
    const floe_ice_schema *schema;       /* the schema to read in */
    const int32_t *field_ids;            /* top-level projection; NULL = all */
    int32_t n_field_ids;
    int64_t batch_size;                  /* 0 = 8192 */
} floe_ice_task_read_options;

typedef struct floe_ice_task_reader floe_ice_task_reader;

/* Open a reader of `task` (a task of floe_ice_scan_plan_new; borrowed: it
 * must outlive the reader). */
floe_status floe_ice_task_reader_open(const floe_ice_task_read_options *opts, const floe_ice_scan_task *task,
                                      floe_ice_task_reader **out) FLOE_WARN_UNUSED;
/* The schema of the batches (borrowed). */
floe_schema *floe_ice_task_reader_schema(const floe_ice_task_reader *r);
/* Next batch (one reference) or *out = NULL at the end. */
floe_status floe_ice_task_reader_next(floe_ice_task_reader *r, floe_batch **out) FLOE_WARN_UNUSED;
void floe_ice_task_reader_close(floe_ice_task_reader *r);

/* What a reader has read so far: rows the Parquet reader produced (before
 * deletes and the residual), and what page skipping spared (the residual's
 * AND-ed simple terms are checked against the file's page index). */
typedef struct floe_ice_task_read_stats {
    int64_t rows_read;
    int64_t pages_total, pages_skipped;
    int64_t row_groups_skipped;
} floe_ice_task_read_stats;
void floe_ice_task_reader_stats(const floe_ice_task_reader *r, floe_ice_task_read_stats *out);

/* The columnar type of an Iceberg type (field ids carried). */
floe_status floe_ice_type_to_columnar(const floe_ice_type *t, floe_type **out) FLOE_WARN_UNUSED;
/* An array of n copies of `v` (NULL or a null value: n nulls) of Iceberg
 * type `it`, promoted to it, as columnar type `t` (its
 * floe_ice_type_to_columnar): partition constants, defaults.  Nested
 * types give nulls. */
floe_status floe_ice_value_array(const floe_ice_value *v, const floe_ice_type *it, floe_type *t, int64_t n,
                                 floe_array **out) FLOE_WARN_UNUSED;
/* The columnar schema of the top-level fields `ids` (NULL = all) of `s`. */
floe_status floe_ice_schema_to_columnar(const floe_ice_schema *s, const int32_t *ids, int32_t n,
                                        floe_schema **out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
