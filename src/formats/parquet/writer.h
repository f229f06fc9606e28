/*
 * writer.h — floe's Parquet file writer.
 *
 * Takes record batches (columnar.h) of one schema and writes a Parquet file
 * through a floe_output.  The Parquet schema is derived from the floe schema
 * the way the Iceberg spec (Appendix A) asks: every element carries the
 * field's Iceberg id, lists are the standard 3-level LIST, maps the standard
 * MAP/key_value shape, decimals are INT32 (p <= 9), INT64 (p <= 18) or
 * FIXED_LEN_BYTE_ARRAY of the minimal width, timestamps are INT64 with the
 * TIMESTAMP logical type (isAdjustedToUTC per the floe type), uuid is
 * FIXED[16] with the UUID logical type.  Converted types are set too, where
 * the spec has one, for old readers.
 *
 * Pages are data page v1 (or v2) with RLE levels; values are dictionary encoded
 * (RLE_DICTIONARY indices, PLAIN dictionary page) until the dictionary
 * outgrows `dict_bytes`, then PLAIN.  Compressed pages are kept in memory
 * per column chunk until the row group is full, then written out; so the
 * writer holds about one row group of *compressed* data plus one page per
 * column uncompressed.
 *
 * Statistics (min/max in the column's type order, null and NaN counts) are
 * written per page and per column chunk; the ColumnIndex and OffsetIndex
 * (page index) follow the last row group.  Columns may also get split block
 * Bloom filters, written after each row group's chunks.  After close, the writer hands
 * back what an Iceberg data file entry needs: per leaf column value, null and
 * NaN counts, bounds, sizes; the row group offsets; the file size.
 *
 * A writer is used by one thread at a time.
 */
#ifndef FLOE_FORMATS_PARQUET_WRITER_H
#define FLOE_FORMATS_PARQUET_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/status.h"
#include "formats/compress.h"

/* How a column's values are encoded.  DEFAULT is dictionary (when enabled
 * in the options) falling back to PLAIN; booleans are PLAIN. */
typedef enum floe_pq_value_encoding {
    FLOE_PQ_WENC_DEFAULT = 0,
    FLOE_PQ_WENC_PLAIN,                /* never a dictionary                 */
    FLOE_PQ_WENC_DICTIONARY,           /* dictionary, even if disabled globally */
    FLOE_PQ_WENC_DELTA_BINARY_PACKED,  /* INT32/INT64 physical columns only  */
    FLOE_PQ_WENC_RLE                   /* BOOLEAN columns only               */
} floe_pq_value_encoding;

/* A per-column override.  Matched against leaf columns by field id when
 * field_id >= 0, else by the dotted Parquet path ("a.b", "l.list.element",
 * "m.key_value.value"). */
typedef struct floe_pq_column_option {
    int32_t field_id;
    const char *path;
    floe_pq_value_encoding encoding; /* DEFAULT leaves the encoding alone */
    bool bloom_filter;               /* write a split block Bloom filter per chunk */
} floe_pq_column_option;

typedef struct floe_pq_kv {
    const char *key;
    const char *value;
} floe_pq_kv;

/* Options.  Start from floe_pq_write_options_init(); a size left at 0 means
 * its default.  Strings and arrays are copied by floe_pq_writer_open. */
typedef struct floe_pq_write_options {
    floe_codec codec;          /* NONE, SNAPPY, GZIP, ZSTD (default), LZ4_RAW, BROTLI */
    int level;                 /* codec level, 0 = the codec's default */
    int64_t row_group_bytes;   /* default 128 MiB (estimated compressed) */
    int64_t row_group_rows;    /* default 1,000,000 */
    int64_t page_bytes;        /* default 1 MiB (uncompressed, estimated) */
    int64_t page_rows;         /* default 20,000 */
    int64_t dict_bytes;        /* default 2 MiB: PLAIN size of a dictionary */
    bool dictionary;           /* default true */
    bool write_page_index;     /* default true: ColumnIndex + OffsetIndex */
    bool write_page_stats;     /* default true: statistics in page headers */
    bool page_crc;             /* default true: CRC32 in every page header */
    bool data_page_v2;         /* default false: DATA_PAGE_V2 pages */
    /* default false: dictionary pages and indices marked PLAIN_DICTIONARY
     * (Parquet 1.0 style, for very old readers) instead of PLAIN /
     * RLE_DICTIONARY. */
    bool legacy_dictionary;
    int32_t stats_truncate;    /* default 64: max bytes of a binary min/max */
    double bloom_fpp;          /* default 0.01: Bloom filter false-positive rate */
    int64_t bloom_max_bytes;   /* default 1 MiB: largest Bloom filter bitset */
    const floe_pq_column_option *columns;
    int32_t n_columns;
    const floe_pq_kv *kv;      /* footer key-value metadata, e.g. iceberg.schema */
    int32_t n_kv;
} floe_pq_write_options;

void floe_pq_write_options_init(floe_pq_write_options *o);

/* What close reports for one leaf column, in schema (leaf) order. */
typedef struct floe_pq_column_result {
    int32_t field_id;          /* the leaf field's id, -1 if none */
    char *path;                /* dotted Parquet path */
    floe_type *type;           /* the leaf's floe type (one reference) */
    int32_t physical_type;     /* floe_pq_type (parquet_meta.h) */
    int32_t type_length;       /* FIXED_LEN_BYTE_ARRAY width, else 0 */
    bool repeated;             /* inside a list or map */
    int64_t value_count;       /* leaf values incl. nulls (= levels) */
    int64_t null_count;
    int64_t nan_count;         /* FLOAT/DOUBLE, else 0 */
    /* Bounds over all non-null, non-NaN values, not truncated, in the
     * column's Parquet order, as Parquet PLAIN bytes without a length prefix
     * (INT32 4 LE bytes, decimal FLBA big-endian, strings their bytes).
     * has_bounds is false when there were none (all null / all NaN).
     * These equal Iceberg's single-value serialization for every type but
     * decimal (Iceberg: big-endian two's complement in the fewest bytes),
     * so only decimals need converting, and strings/binary truncating. */
    bool has_bounds;
    uint8_t *min, *max;
    size_t min_len, max_len;
    int64_t compressed_size;   /* sum over row groups, page headers included */
    int64_t uncompressed_size;
} floe_pq_column_result;

typedef struct floe_pq_write_result {
    int64_t file_size;
    int64_t record_count;
    int32_t n_row_groups;
    int64_t *split_offsets;    /* file offset of each row group's first page */
    int32_t n_columns;
    floe_pq_column_result *columns;
} floe_pq_write_result;

void floe_pq_write_result_free(floe_pq_write_result *r);
/* The leaf column with this field id, or NULL. */
const floe_pq_column_result *floe_pq_write_result_find(const floe_pq_write_result *r,
                                                       int32_t field_id);

typedef struct floe_pq_writer floe_pq_writer;

/* Start a file: checks the schema can be written, writes the magic.  The
 * writer owns `out` from here on, also when this fails (it is aborted). */
floe_status floe_pq_writer_open(floe_output *out, const floe_schema *schema,
                                const floe_pq_write_options *opts,
                                floe_pq_writer **w) FLOE_WARN_UNUSED;

/* Append a batch whose schema is compatible with the writer's.  A null in a
 * non-nullable field is FLOE_ERR_CONSTRAINT, a decimal outside its
 * precision FLOE_ERR_INVALID_ARGUMENT.  The arrays are read with the
 * unchecked accessors of columnar.h, so they must be well-formed (arrays
 * from outside floe go through floe_array_validate first).  After any
 * error the writer can only be aborted. */
floe_status floe_pq_writer_write(floe_pq_writer *w, const floe_batch *batch) FLOE_WARN_UNUSED;

/* Bytes the file would have if closed now (written + buffered estimate),
 * for rolling to a new file at a target size. */
int64_t floe_pq_writer_estimated_size(const floe_pq_writer *w);
int64_t floe_pq_writer_rows(const floe_pq_writer *w);

/* Flush the last row group, write the page index and footer, close the
 * output and free the writer (also on failure, then the output is aborted).
 * `result` (may be NULL) receives the metrics; free it with
 * floe_pq_write_result_free. */
floe_status floe_pq_writer_close(floe_pq_writer *w,
                                 floe_pq_write_result **result) FLOE_WARN_UNUSED;

/* Discard the file and free the writer.  NULL-safe. */
void floe_pq_writer_abort(floe_pq_writer *w);

#endif
