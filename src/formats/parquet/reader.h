/*
 * reader.h — reading a Parquet file as a stream of floe record batches.
 *
 *   floe_pq_reader *r;
 *   FLOE_TRY(floe_pq_reader_open_path("x.parquet", &opts, &r));
 *   for (;;) {
 *       floe_batch *b;
 *       FLOE_TRY(floe_pq_reader_next(r, &b));   // b == NULL: end of stream
 *       if (!b) break;
 *       ... floe_batch_release(b);
 *   }
 *   floe_pq_reader_close(r);
 *
 * Projection: by logical dotted path ("id", "s.b", "ls.element.a",
 * "m.value.x", "m.key") or by Iceberg field id, at any depth.  A field
 * reached through structs only is its own output column (one slot per row;
 * a null parent struct makes it null), named by its path.  A field inside a
 * list or map is read as its OUTERMOST list or map ancestor pruned down to
 * the fields asked for: "ls.element.a" of list<struct<a, b>> gives a column
 * "ls" of type list<struct<a>>; a map keeps its whole key ("m.value.x" gives
 * map<key, struct<x>>).  Several requests under the same outermost list or
 * map merge into one column (at the first one's position, children in file
 * order), so there may be fewer output columns than requests: the reader's
 * schema says what came out.  Otherwise output columns come in the order
 * asked.  Without a projection every top-level field is read.  Only the
 * selected leaf columns are ever fetched.
 *
 * Batches hold at most batch_size rows and never span row groups, so the
 * last batch of each row group may be short.  In a row group whose byte
 * array columns average more than 1 GiB / batch_size bytes per row (going
 * by the chunk sizes in the footer), batches are made smaller so a column's
 * bytes stay within Arrow's int32 offsets.
 *
 * I/O: for each row group, the byte ranges of the selected column chunks are
 * sorted and merged when the gap between them is at most max_gap bytes, and
 * each merged range is fetched with one read; the compressed chunks of one
 * row group stay in memory while its batches are produced.  With
 * read_ahead = k, the reads of the next k row groups (in reading order) run
 * on background threads meanwhile, so up to k + 1 row groups' compressed
 * chunks are in memory; errors of a read-ahead surface when its row group
 * is reached, in order.
 *
 * Page skipping.  Given predicates (floe_pq_predicate, AND-ed), the reader
 * consults each predicate column's page index (ColumnIndex: per-page min,
 * max, null_pages, null_counts, nan_counts; OffsetIndex: page offsets and
 * first rows) in every row group and works out the row ranges that may
 * match: per predicate the union of the rows of its pages that may match,
 * then the intersection over the predicates.  A row group with no such row
 * is not fetched at all.  Otherwise, for every selected leaf, only the pages
 * overlapping those ranges (and the dictionary page, if any) are fetched and
 * decompressed, each page range read on its own (ranges are merged only when
 * adjacent, never across a skipped page), and batches hold only the rows
 * inside the ranges, the same rows from every column.  The predicates only
 * narrow what is read: rows outside the ranges surely do not match, rows
 * inside may or may not, so the caller still filters.  Whenever anything is
 * unknown the rows are kept: a chunk without a page index (or whose index
 * does not agree with its row count), pages whose bounds are NaN, INT96 or
 * FLOAT16 columns, unsigned orders under a writer that predates ColumnOrder,
 * a NaN literal, a float column compared with > or >= when the page may hold
 * NaN (the engine orders NaN above every number).  Truncated string bounds
 * are still bounds, so they are used as they are.  floe_pq_reader_last_rows()
 * tells which file rows the last batch holds (for position deletes).
 *
 * Predicate values are in the ENGINE domain of the column, i.e. what the
 * reader's batches hold (column_reader.h): FLOE_PQ_VAL_INT for bool (0/1),
 * 8-64 bit integers, UINT8-32, dates (days), times (µs) and timestamps (in
 * the unit of the batch column: µs, ns for TIMESTAMP(NANOS)); DOUBLE for
 * float and double columns (an INT value compared with a float column, or a
 * DOUBLE with an integer column, is compared as a double); BYTES for string,
 * binary, fixed and uuid columns (unsigned byte order); DECIMAL for decimal
 * columns and UINT64 (decimal(20,0)): the unscaled value in the column's
 * scale, as hi:lo of an int128 (an INT value is accepted too).  A value of a
 * kind that cannot be compared with the column is an INVALID_ARGUMENT at
 * open; so is a predicate on a column inside a list or map, or on a group.
 * The values are copied at open.
 *
 * A reader is used by one thread at a time; several readers may share one
 * floe_pq_file.
 */
#ifndef FLOE_FORMATS_PARQUET_READER_H
#define FLOE_FORMATS_PARQUET_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/status.h"
#include "formats/parquet/file.h"

#define FLOE_PQ_DEFAULT_BATCH_SIZE 8192
#define FLOE_PQ_DEFAULT_MAX_GAP (1u << 20)

typedef enum floe_pq_pred_op {
    FLOE_PQ_OP_EQ,
    FLOE_PQ_OP_LT,
    FLOE_PQ_OP_LE,
    FLOE_PQ_OP_GT,
    FLOE_PQ_OP_GE,
    FLOE_PQ_OP_IS_NULL,
    FLOE_PQ_OP_NOT_NULL,
    FLOE_PQ_OP_IN
} floe_pq_pred_op;

typedef enum floe_pq_value_kind {
    FLOE_PQ_VAL_INT,
    FLOE_PQ_VAL_DOUBLE,
    FLOE_PQ_VAL_BYTES,
    FLOE_PQ_VAL_DECIMAL
} floe_pq_value_kind;

/* A literal in a column's engine domain (see above). */
typedef struct floe_pq_value {
    floe_pq_value_kind kind;
    int64_t i;              /* INT */
    double d;               /* DOUBLE */
    const uint8_t *bytes;   /* BYTES */
    size_t len;
    int64_t hi;             /* DECIMAL: unscaled = hi * 2^64 + lo */
    uint64_t lo;
} floe_pq_value;

/* `column op values`.  The column is a leaf (not inside a list or map)
 * named by its dotted logical path, or, when path is NULL, by its Iceberg
 * field id.  Comparisons take one value, IN takes num_values (>= 1), the
 * null tests none.  A comparison is TRUE only for a non-null value; IS_NULL
 * holds for a null leaf (including one under a null struct). */
typedef struct floe_pq_predicate {
    const char *path;
    int32_t field_id;
    floe_pq_pred_op op;
    const floe_pq_value *values;
    int num_values;
} floe_pq_predicate;

/* File rows (0 = the file's first row) of part of a batch. */
typedef struct floe_pq_row_span {
    int64_t first_row;
    int64_t num_rows;
} floe_pq_row_span;

typedef struct floe_pq_read_options {
    const char *const *columns;   /* dotted logical paths; NULL = all */
    int num_columns;
    const int32_t *field_ids;     /* Iceberg field ids, used when columns is NULL */
    int num_field_ids;
    const int *row_groups;        /* row group indexes; NULL = all, in order */
    int num_row_groups;
    int64_t batch_size;           /* rows per batch; 0 = FLOE_PQ_DEFAULT_BATCH_SIZE */
    int64_t max_gap;              /* coalescing gap in bytes; 0 = default, <0 = never merge */
    bool skip_crc;                /* don't verify page CRCs */
    bool int96_as_ns;             /* INT96 -> timestamptz ns (values outside 1677-2262 are an
                                     error); default: timestamptz µs, Spark's range */
    const floe_pq_predicate *predicates; /* AND-ed; for page skipping; NULL = none */
    int num_predicates;
    int read_ahead;               /* row groups whose chunks are fetched ahead on
                                     background threads while the current one
                                     decodes; 0 = none (default); at most 64;
                                     ignored with predicates */
} floe_pq_read_options;

typedef struct floe_pq_reader floe_pq_reader;

/* Read from an open file (borrowed: it must outlive the reader).  opts may
 * be NULL for defaults. */
floe_status floe_pq_reader_open(floe_pq_file *file, const floe_pq_read_options *opts,
                                floe_pq_reader **out) FLOE_WARN_UNUSED;
/* Open a local file; the reader owns it. */
floe_status floe_pq_reader_open_path(const char *path, const floe_pq_read_options *opts,
                                     floe_pq_reader **out) FLOE_WARN_UNUSED;
void floe_pq_reader_close(floe_pq_reader *r);

/* The schema of the batches (borrowed; lives as long as the reader). */
floe_schema *floe_pq_reader_schema(const floe_pq_reader *r);

/* The next batch (one reference for the caller), or *out = NULL at the end. */
floe_status floe_pq_reader_next(floe_pq_reader *r, floe_batch **out) FLOE_WARN_UNUSED;

/* The file rows of the batch last returned by floe_pq_reader_next, in
 * order: its rows are spans[0] then spans[1] ...  (one span unless pages
 * were skipped).  Valid until the next call to floe_pq_reader_next. */
void floe_pq_reader_last_rows(const floe_pq_reader *r, const floe_pq_row_span **spans, int *n);

/* Statistics of page skipping so far: data pages of the selected columns in
 * the row groups whose pages were chosen by the page index, and how many of
 * them were skipped (not fetched); rows in the row groups read and rows
 * emitted. */
typedef struct floe_pq_skip_stats {
    int64_t pages_total, pages_skipped;
    int64_t rows_total, rows_emitted;
    int64_t row_groups_skipped;   /* no row could match: nothing fetched */
    int64_t values_dropped;       /* leaf rows decoded, then dropped (page heads
                                     before a range), summed over leaves */
} floe_pq_skip_stats;
void floe_pq_reader_skip_stats(const floe_pq_reader *r, floe_pq_skip_stats *out);

#endif
