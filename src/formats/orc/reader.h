/*
 * reader.h — reading an ORC file as a stream of floe record batches.
 *
 *   floe_orc_file *f;
 *   FLOE_TRY(floe_orc_file_open(input, &f));          // file.h
 *   floe_orc_reader *r;
 *   FLOE_TRY(floe_orc_reader_open(f, &opts, &r));
 *   for (;;) {
 *       floe_batch *b;
 *       FLOE_TRY(floe_orc_reader_next(r, &b));       // b == NULL: the end
 *       if (!b) break;
 *       const floe_orc_row_span *spans; int n;
 *       floe_orc_reader_last_rows(r, &spans, &n);    // file rows of b
 *       ... floe_batch_release(b);
 *   }
 *   floe_orc_reader_close(r);
 *
 * It mirrors the Parquet reader (formats/parquet/reader.h) so the Iceberg
 * scan can drive either the same way.
 *
 * Projection: by dotted path ("id", "s.b", "ls.element.a", "m.value.x"),
 * by ORC column id, or by Iceberg field id (the "iceberg.id" attribute),
 * at any depth.  A field reached through structs only is its own output
 * column named by its path (a null parent struct makes it null).  A field
 * inside a list, map or union is read as its OUTERMOST list/map/union
 * ancestor pruned down to what was asked for (a map keeps its whole key,
 * a union all its variants); several requests under the same ancestor
 * merge into one column at the first one's position.  Otherwise columns
 * come in the order asked; without a projection every top-level field is
 * read.  Only the streams of the selected columns (and the PRESENT
 * streams of the structs above them) are fetched.
 *
 * Stripes: all, a list, or those whose offset lies in [range_start,
 * range_start + range_length) — an Iceberg split.  Batches hold at most
 * batch_size rows and never span stripes (nor kept row ranges).
 *
 * I/O: per stripe, one read of the stripe footer, then the byte ranges of
 * the needed streams sorted and merged when the gap between them is at
 * most max_gap (default 1 MiB; < 0 never merges), one read each —
 * usually one read per stripe.  The streams are decompressed whole and
 * kept while the stripe's batches are produced.
 *
 * Predicates (floe_orc_predicate, AND-ed) skip data: a stripe whose
 * stripe statistics show no row can match is not fetched at all; in the
 * others the ROW_INDEX statistics of each predicate column (one entry per
 * row group of the footer's rowIndexStride rows, 10,000 by default) give
 * the row groups that may match, and only their rows are returned.  Rows
 * outside the kept ranges surely do not match; rows inside may or may not,
 * so the caller still filters.  Inside a fetched stripe the readers jump
 * over skipped row groups by the ROW_INDEX positions of every selected
 * column (fetched with the stripe's other streams when needed); when the
 * positions do not fit the streams the stripe is read from its start and
 * the skipped rows decoded and dropped instead.  Whenever
 * anything is unknown rows are kept: no statistics, an index whose entry
 * count does not match the stripe, NaN bounds, bool or binary columns.
 * Timestamp bounds (milliseconds) are widened by a day, as the writer's
 * zone is not recorded with them.  For EQ and IN on integer, date, float,
 * double and string columns the row groups' bloom filters are consulted
 * too (BLOOM_FILTER_UTF8; the older BLOOM_FILTER for numbers only), except
 * in files of ORC C++ writers known to have written bad ones (no
 * softwareVersion, or 1.6.0 - 1.6.11 and 1.7.0).
 *
 * Predicate values are in the domain of the batch column: INT for
 * boolean (0/1), integers, dates (days) and timestamps (in the batch unit);
 * DOUBLE for float/double (an INT is accepted); BYTES for string, varchar
 * and char (unsigned byte order); DECIMAL for decimals (unscaled at the
 * column's scale, hi:lo; INT accepted).  Other combinations, and columns
 * inside a list, map or union, are INVALID_ARGUMENT at open.
 *
 * Row positions: floe_orc_reader_last_rows() gives the file rows (0 = the
 * file's first row) of the last batch, as the Parquet reader's spans do.
 *
 * A reader is used by one thread at a time; several readers may share one
 * floe_orc_file.
 */
#ifndef FLOE_FORMATS_ORC_READER_H
#define FLOE_FORMATS_ORC_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/status.h"
#include "formats/orc/file.h"

#define FLOE_ORC_DEFAULT_BATCH_SIZE 8192
#define FLOE_ORC_DEFAULT_MAX_GAP (1 << 20)

typedef enum floe_orc_pred_op {
    FLOE_ORC_OP_EQ,
    FLOE_ORC_OP_LT,
    FLOE_ORC_OP_LE,
    FLOE_ORC_OP_GT,
    FLOE_ORC_OP_GE,
    FLOE_ORC_OP_IS_NULL,
    FLOE_ORC_OP_NOT_NULL,
    FLOE_ORC_OP_IN
} floe_orc_pred_op;

typedef enum floe_orc_value_kind {
    FLOE_ORC_VAL_INT,
    FLOE_ORC_VAL_DOUBLE,
    FLOE_ORC_VAL_BYTES,
    FLOE_ORC_VAL_DECIMAL
} floe_orc_value_kind;

typedef struct floe_orc_value {
    floe_orc_value_kind kind;
    int64_t i;
    double d;
    const uint8_t *bytes;
    size_t len;
    int64_t hi;       /* DECIMAL: unscaled = hi * 2^64 + lo */
    uint64_t lo;
} floe_orc_value;

/* `column op values`: the column by dotted path, or when path is NULL by
 * Iceberg field id (field_id >= 0), or else by ORC column id. */
typedef struct floe_orc_predicate {
    const char *path;
    int32_t field_id;
    uint32_t column_id;
    floe_orc_pred_op op;
    const floe_orc_value *values;
    int num_values;
} floe_orc_predicate;

typedef struct floe_orc_row_span {
    int64_t first_row;
    int64_t num_rows;
} floe_orc_row_span;

typedef struct floe_orc_read_options {
    const char *const *columns;   /* dotted paths; NULL = see below */
    int num_columns;
    const int32_t *field_ids;     /* Iceberg field ids, used when columns is NULL */
    int num_field_ids;
    const uint32_t *column_ids;   /* ORC column ids, used when both are NULL */
    int num_column_ids;
    const int *stripes;           /* stripe indexes; NULL = all (or the range) */
    int num_stripes;
    bool use_range;               /* read the stripes starting in the range */
    uint64_t range_start, range_length;
    int64_t batch_size;           /* 0 = FLOE_ORC_DEFAULT_BATCH_SIZE */
    int64_t max_gap;              /* 0 = default, < 0 = never merge */
    floe_orc_ts_unit timestamp_unit;
    const floe_orc_predicate *predicates;
    int num_predicates;
    /* Optional: row groups (of rowIndexStride rows, numbered within each
     * stripe) the caller wants, e.g. to leave out groups its deletes cover;
     * returning false drops the group as a predicate would. */
    bool (*row_group_filter)(void *ctx, int stripe, int64_t row_group);
    void *row_group_filter_ctx;
} floe_orc_read_options;

typedef struct floe_orc_reader floe_orc_reader;

/* Read from an open file (borrowed: it must outlive the reader).  The
 * options, predicates included, are only read during the call: the reader
 * keeps its own copies (row_group_filter_ctx excepted). */
floe_status floe_orc_reader_open(floe_orc_file *file, const floe_orc_read_options *opts,
                                 floe_orc_reader **out) FLOE_WARN_UNUSED;
/* Open a local file; the reader owns it. */
floe_status floe_orc_reader_open_path(const char *path, const floe_orc_read_options *opts,
                                      floe_orc_reader **out) FLOE_WARN_UNUSED;
void floe_orc_reader_close(floe_orc_reader *r);

floe_schema *floe_orc_reader_schema(const floe_orc_reader *r);
/* The file read (borrowed). */
floe_orc_file *floe_orc_reader_file(const floe_orc_reader *r);
/* ORC column id of output column i. */
uint32_t floe_orc_reader_column_id(const floe_orc_reader *r, int i);

floe_status floe_orc_reader_next(floe_orc_reader *r, floe_batch **out) FLOE_WARN_UNUSED;

/* File rows of the batch last returned (valid until the next call). */
void floe_orc_reader_last_rows(const floe_orc_reader *r, const floe_orc_row_span **spans, int *n);

typedef struct floe_orc_skip_stats {
    int64_t stripes_total, stripes_skipped;       /* by stripe statistics */
    int64_t row_groups_total, row_groups_skipped; /* in fetched stripes, by row index */
    int64_t row_groups_bloom_skipped;             /* of those, by bloom filters */
    int64_t row_group_seeks;                      /* jumps by the row index positions */
    int64_t rows_decoded_past;                    /* skipped rows decoded instead */
    int64_t rows_total, rows_emitted;
    int64_t reads;                                /* floe_input reads of stream data */
} floe_orc_skip_stats;
void floe_orc_reader_skip_stats(const floe_orc_reader *r, floe_orc_skip_stats *out);

/* Internal (row_filter.c): may any row with statistics `s` match every
 * predicate on column `col`?  `preds` are the predicates on that column. */
bool floe_orc_stats_may_match(const floe_orc_column *col, floe_orc_ts_unit unit,
                              const floe_orc_stats *s, const floe_orc_predicate *pred);
floe_status floe_orc_predicate_check(const floe_orc_column *col, const floe_orc_predicate *p) FLOE_WARN_UNUSED;
/* May a row group whose bloom filter is `bf` hold a value an EQ/IN
 * predicate asks for?  utf8_filter: from a BLOOM_FILTER_UTF8 stream (the
 * older BLOOM_FILTER streams are used for numbers only). */
bool floe_orc_bloom_may_match(const floe_orc_column *col, const floe_orc_bloom_filter *bf,
                              bool utf8_filter, const floe_orc_predicate *p);
/* The writers' hashes: Thomas Wang's for numbers, Murmur3 64 for bytes. */
uint64_t floe_orc_bloom_hash_long(uint64_t key);
uint64_t floe_orc_bloom_hash_bytes(const uint8_t *d, size_t len);

#endif
