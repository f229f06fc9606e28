/*
 * parquet_meta.h — Parquet's Thrift metadata as C structs, decoded and encoded.
 *
 * Mirrors apache/parquet-format's parquet.thrift: FileMetaData (the footer),
 * SchemaElement with its LogicalType union, RowGroup, ColumnChunk,
 * ColumnMetaData, Statistics, PageHeader and its four variants, ColumnIndex,
 * OffsetIndex, BloomFilterHeader.  Fields floe does not know (GeospatialStatistics,
 * future additions) are skipped, so files from newer writers still decode.
 *
 * Optional Thrift fields come with a `has_*` flag; absent optional strings are
 * NULL; binaries are floe_pq_bytes with a `set` flag.
 *
 * Memory.  The footer, ColumnIndex and OffsetIndex decode into an object that
 * owns an arena: every string, array and binary inside is freed by the one
 * free call.  A PageHeader is decoded without allocating (it is per page, on
 * the hot path): its statistics binaries point into the caller's buffer and
 * are valid only while that buffer is.
 *
 * Errors are FLOE_ERR_CORRUPT naming the struct, the field and the byte
 * offset (origin + position, see thrift.h).
 */
#ifndef FLOE_FORMATS_PARQUET_META_H
#define FLOE_FORMATS_PARQUET_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"
#include "formats/parquet/thrift.h"

/* ------------------------------------------------------------------ arena */

/* A bump allocator made of floe_malloc'd chunks; freed all at once. */
typedef struct floe_pq_arena_chunk floe_pq_arena_chunk;
typedef struct floe_pq_arena {
    floe_pq_arena_chunk *head;
    size_t used, cap;   /* in the head chunk */
    size_t total;       /* bytes allocated from the system, for accounting */
} floe_pq_arena;

void floe_pq_arena_init(floe_pq_arena *a);
/* `n` zeroed bytes, 8-byte aligned; NULL when memory is exhausted. */
void *floe_pq_arena_alloc(floe_pq_arena *a, size_t n);
void floe_pq_arena_free(floe_pq_arena *a);

/* ------------------------------------------------------------------ enums */

typedef enum floe_pq_type {
    FLOE_PQ_BOOLEAN = 0,
    FLOE_PQ_INT32 = 1,
    FLOE_PQ_INT64 = 2,
    FLOE_PQ_INT96 = 3,
    FLOE_PQ_FLOAT = 4,
    FLOE_PQ_DOUBLE = 5,
    FLOE_PQ_BYTE_ARRAY = 6,
    FLOE_PQ_FIXED_LEN_BYTE_ARRAY = 7
} floe_pq_type;

/* Legacy annotation; FLOE_PQ_CT_NONE when a SchemaElement has none. */
typedef enum floe_pq_converted_type {
    FLOE_PQ_CT_NONE = -1,
    FLOE_PQ_CT_UTF8 = 0,
    FLOE_PQ_CT_MAP = 1,
    FLOE_PQ_CT_MAP_KEY_VALUE = 2,
    FLOE_PQ_CT_LIST = 3,
    FLOE_PQ_CT_ENUM = 4,
    FLOE_PQ_CT_DECIMAL = 5,
    FLOE_PQ_CT_DATE = 6,
    FLOE_PQ_CT_TIME_MILLIS = 7,
    FLOE_PQ_CT_TIME_MICROS = 8,
    FLOE_PQ_CT_TIMESTAMP_MILLIS = 9,
    FLOE_PQ_CT_TIMESTAMP_MICROS = 10,
    FLOE_PQ_CT_UINT_8 = 11,
    FLOE_PQ_CT_UINT_16 = 12,
    FLOE_PQ_CT_UINT_32 = 13,
    FLOE_PQ_CT_UINT_64 = 14,
    FLOE_PQ_CT_INT_8 = 15,
    FLOE_PQ_CT_INT_16 = 16,
    FLOE_PQ_CT_INT_32 = 17,
    FLOE_PQ_CT_INT_64 = 18,
    FLOE_PQ_CT_JSON = 19,
    FLOE_PQ_CT_BSON = 20,
    FLOE_PQ_CT_INTERVAL = 21
} floe_pq_converted_type;

typedef enum floe_pq_repetition {
    FLOE_PQ_REQUIRED = 0,
    FLOE_PQ_OPTIONAL = 1,
    FLOE_PQ_REPEATED = 2
} floe_pq_repetition;

/* Values as in the spec; other values decode as-is (stored in int32_t
 * fields) so a reader can say "unsupported encoding 11" itself. */
typedef enum floe_pq_encoding {
    FLOE_PQ_ENC_PLAIN = 0,
    FLOE_PQ_ENC_PLAIN_DICTIONARY = 2,
    FLOE_PQ_ENC_RLE = 3,
    FLOE_PQ_ENC_BIT_PACKED = 4,
    FLOE_PQ_ENC_DELTA_BINARY_PACKED = 5,
    FLOE_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    FLOE_PQ_ENC_DELTA_BYTE_ARRAY = 7,
    FLOE_PQ_ENC_RLE_DICTIONARY = 8,
    FLOE_PQ_ENC_BYTE_STREAM_SPLIT = 9,
    FLOE_PQ_ENC_ALP = 10
} floe_pq_encoding;

typedef enum floe_pq_codec {
    FLOE_PQ_CODEC_UNCOMPRESSED = 0,
    FLOE_PQ_CODEC_SNAPPY = 1,
    FLOE_PQ_CODEC_GZIP = 2,
    FLOE_PQ_CODEC_LZO = 3,
    FLOE_PQ_CODEC_BROTLI = 4,
    FLOE_PQ_CODEC_LZ4 = 5,
    FLOE_PQ_CODEC_ZSTD = 6,
    FLOE_PQ_CODEC_LZ4_RAW = 7
} floe_pq_codec;

typedef enum floe_pq_page_type {
    FLOE_PQ_PAGE_DATA = 0,
    FLOE_PQ_PAGE_INDEX = 1,
    FLOE_PQ_PAGE_DICTIONARY = 2,
    FLOE_PQ_PAGE_DATA_V2 = 3
} floe_pq_page_type;

typedef enum floe_pq_boundary_order {
    FLOE_PQ_UNORDERED = 0,
    FLOE_PQ_ASCENDING = 1,
    FLOE_PQ_DESCENDING = 2
} floe_pq_boundary_order;

/* Names for messages and the CLI; "?" style fallbacks for unknown values
 * (the returned string is static; unknown values give "UNKNOWN"). */
const char *floe_pq_type_name(int32_t t);
const char *floe_pq_converted_type_name(int32_t ct);
const char *floe_pq_repetition_name(int32_t r);
const char *floe_pq_encoding_name(int32_t e);
const char *floe_pq_codec_name(int32_t c);
const char *floe_pq_page_type_name(int32_t t);

/* ------------------------------------------------------------ logical type */

/* The LogicalType union member present; the numbers are the Thrift field
 * ids.  A member floe does not know decodes as FLOE_PQ_LT_UNRECOGNIZED
 * (readers then fall back to the converted type, as the spec asks). */
typedef enum floe_pq_logical_kind {
    FLOE_PQ_LT_NONE = 0,
    FLOE_PQ_LT_STRING = 1,
    FLOE_PQ_LT_MAP = 2,
    FLOE_PQ_LT_LIST = 3,
    FLOE_PQ_LT_ENUM = 4,
    FLOE_PQ_LT_DECIMAL = 5,
    FLOE_PQ_LT_DATE = 6,
    FLOE_PQ_LT_TIME = 7,
    FLOE_PQ_LT_TIMESTAMP = 8,
    FLOE_PQ_LT_INTEGER = 10,
    FLOE_PQ_LT_UNKNOWN = 11, /* "NullType": only nulls */
    FLOE_PQ_LT_JSON = 12,
    FLOE_PQ_LT_BSON = 13,
    FLOE_PQ_LT_UUID = 14,
    FLOE_PQ_LT_FLOAT16 = 15,
    FLOE_PQ_LT_VARIANT = 16,
    FLOE_PQ_LT_GEOMETRY = 17,
    FLOE_PQ_LT_GEOGRAPHY = 18,
    FLOE_PQ_LT_UNRECOGNIZED = 1000
} floe_pq_logical_kind;

typedef enum floe_pq_time_unit {
    FLOE_PQ_UNIT_NONE = 0,
    FLOE_PQ_UNIT_MILLIS = 1,
    FLOE_PQ_UNIT_MICROS = 2,
    FLOE_PQ_UNIT_NANOS = 3
} floe_pq_time_unit;

typedef struct floe_pq_logical_type {
    floe_pq_logical_kind kind;
    int16_t raw_id;              /* the union field id read (for UNRECOGNIZED) */
    int32_t scale, precision;    /* DECIMAL */
    floe_pq_time_unit unit;      /* TIME, TIMESTAMP (NONE if an unknown unit) */
    bool utc;                    /* TIME, TIMESTAMP: isAdjustedToUTC */
    int8_t bit_width;            /* INTEGER: 8, 16, 32 or 64 */
    bool is_signed;              /* INTEGER */
    const char *crs;             /* GEOMETRY, GEOGRAPHY (NULL if absent) */
    int32_t algorithm;           /* GEOGRAPHY edge interpolation (-1 absent) */
    int8_t variant_version;      /* VARIANT specification_version (-1 absent) */
} floe_pq_logical_type;

/* "STRING", "DECIMAL(10,2)", "TIMESTAMP(MICROS,utc)", "INT(8,unsigned)" ... */
void floe_pq_logical_type_format(const floe_pq_logical_type *lt, char *out, size_t cap);

/* ------------------------------------------------------------------ structs */

typedef struct floe_pq_bytes {
    const uint8_t *data;
    uint32_t len;
    bool set;
} floe_pq_bytes;

typedef struct floe_pq_key_value {
    const char *key;
    const char *value; /* NULL when absent */
    uint32_t value_len;
} floe_pq_key_value;

typedef struct floe_pq_schema_element {
    const char *name;
    bool has_type;
    floe_pq_type type;
    bool has_type_length;
    int32_t type_length;
    bool has_repetition;
    floe_pq_repetition repetition;
    bool has_num_children;
    int32_t num_children;
    int32_t converted_type; /* floe_pq_converted_type; FLOE_PQ_CT_NONE if absent */
    bool has_scale, has_precision;
    int32_t scale, precision;
    bool has_field_id;
    int32_t field_id;
    floe_pq_logical_type logical; /* kind NONE if absent */
} floe_pq_schema_element;

typedef struct floe_pq_statistics {
    floe_pq_bytes max, min;             /* legacy (signed order only)   */
    floe_pq_bytes max_value, min_value; /* per the column's sort order  */
    bool has_null_count, has_distinct_count, has_nan_count;
    int64_t null_count, distinct_count, nan_count;
    bool has_is_max_value_exact, is_max_value_exact;
    bool has_is_min_value_exact, is_min_value_exact;
} floe_pq_statistics;

typedef struct floe_pq_sorting_column {
    int32_t column_idx;
    bool descending;
    bool nulls_first;
} floe_pq_sorting_column;

typedef struct floe_pq_page_encoding_stats {
    int32_t page_type;
    int32_t encoding;
    int32_t count;
} floe_pq_page_encoding_stats;

typedef struct floe_pq_size_statistics {
    bool has_unencoded_byte_array_data_bytes;
    int64_t unencoded_byte_array_data_bytes;
    int64_t *repetition_level_histogram;
    uint32_t num_repetition_level_histogram;
    int64_t *definition_level_histogram;
    uint32_t num_definition_level_histogram;
} floe_pq_size_statistics;

typedef struct floe_pq_column_meta {
    floe_pq_type type;
    int32_t *encodings;
    uint32_t num_encodings;
    const char **path_in_schema;
    uint32_t path_len;
    int32_t codec; /* floe_pq_codec */
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    floe_pq_key_value *key_value_metadata;
    uint32_t num_key_value_metadata;
    int64_t data_page_offset;
    bool has_index_page_offset;
    int64_t index_page_offset;
    bool has_dictionary_page_offset;
    int64_t dictionary_page_offset;
    bool has_statistics;
    floe_pq_statistics statistics;
    floe_pq_page_encoding_stats *encoding_stats;
    uint32_t num_encoding_stats;
    bool has_bloom_filter_offset;
    int64_t bloom_filter_offset;
    bool has_bloom_filter_length;
    int32_t bloom_filter_length;
    bool has_size_statistics;
    floe_pq_size_statistics size_statistics;
} floe_pq_column_meta;

typedef struct floe_pq_column_chunk {
    const char *file_path; /* NULL: the data is in this file */
    int64_t file_offset;
    bool has_meta_data;
    floe_pq_column_meta meta_data;
    bool has_offset_index;   /* offset + length both present */
    int64_t offset_index_offset;
    int32_t offset_index_length;
    bool has_column_index;   /* offset + length both present */
    int64_t column_index_offset;
    int32_t column_index_length;
    bool encrypted; /* crypto_metadata or encrypted_column_metadata present */
} floe_pq_column_chunk;

typedef struct floe_pq_row_group {
    floe_pq_column_chunk *columns;
    uint32_t num_columns;
    int64_t total_byte_size;
    int64_t num_rows;
    floe_pq_sorting_column *sorting_columns;
    uint32_t num_sorting_columns;
    bool has_file_offset;
    int64_t file_offset;
    bool has_total_compressed_size;
    int64_t total_compressed_size;
    bool has_ordinal;
    int16_t ordinal;
} floe_pq_row_group;

/* ColumnOrder union member: 1 TYPE_ORDER, 2 IEEE_754_TOTAL_ORDER,
 * 3 INT96_TIMESTAMP_ORDER, other ids kept as read. */
typedef struct floe_pq_column_order {
    int16_t kind;
} floe_pq_column_order;

typedef struct floe_pq_file_metadata {
    int32_t version;
    floe_pq_schema_element *schema;
    uint32_t num_schema;
    int64_t num_rows;
    floe_pq_row_group *row_groups;
    uint32_t num_row_groups;
    floe_pq_key_value *key_value_metadata;
    uint32_t num_key_value_metadata;
    const char *created_by; /* NULL if absent */
    floe_pq_column_order *column_orders;
    uint32_t num_column_orders;
    bool has_encryption_algorithm; /* plaintext footer of an encrypted file */
    floe_pq_bytes footer_signing_key_metadata;
    floe_pq_arena arena; /* owns everything above */
} floe_pq_file_metadata;

typedef struct floe_pq_data_page_header {
    int32_t num_values;
    int32_t encoding;
    int32_t definition_level_encoding;
    int32_t repetition_level_encoding;
    bool has_statistics;
    floe_pq_statistics statistics;
} floe_pq_data_page_header;

typedef struct floe_pq_dictionary_page_header {
    int32_t num_values;
    int32_t encoding;
    bool has_is_sorted, is_sorted;
} floe_pq_dictionary_page_header;

typedef struct floe_pq_data_page_header_v2 {
    int32_t num_values;
    int32_t num_nulls;
    int32_t num_rows;
    int32_t encoding;
    int32_t definition_levels_byte_length;
    int32_t repetition_levels_byte_length;
    bool is_compressed; /* defaults to true when absent */
    bool has_statistics;
    floe_pq_statistics statistics;
} floe_pq_data_page_header_v2;

typedef struct floe_pq_page_header {
    int32_t type; /* floe_pq_page_type */
    int32_t uncompressed_page_size;
    int32_t compressed_page_size;
    bool has_crc;
    int32_t crc;
    bool has_data_page_header;
    floe_pq_data_page_header data_page_header;
    bool has_index_page_header;
    bool has_dictionary_page_header;
    floe_pq_dictionary_page_header dictionary_page_header;
    bool has_data_page_header_v2;
    floe_pq_data_page_header_v2 data_page_header_v2;
} floe_pq_page_header;

typedef struct floe_pq_page_location {
    int64_t offset;
    int32_t compressed_page_size;
    int64_t first_row_index;
} floe_pq_page_location;

typedef struct floe_pq_offset_index {
    floe_pq_page_location *page_locations;
    uint32_t num_pages;
    int64_t *unencoded_byte_array_data_bytes; /* NULL or num_unencoded entries */
    uint32_t num_unencoded;
    floe_pq_arena arena;
} floe_pq_offset_index;

typedef struct floe_pq_column_index {
    bool *null_pages;
    uint32_t num_pages; /* entries in null_pages, min_values, max_values */
    floe_pq_bytes *min_values;
    floe_pq_bytes *max_values;
    int32_t boundary_order;
    int64_t *null_counts; /* NULL or num_pages entries */
    uint32_t num_null_counts;
    int64_t *repetition_level_histograms;
    uint32_t num_repetition_level_histograms;
    int64_t *definition_level_histograms;
    uint32_t num_definition_level_histograms;
    int64_t *nan_counts;
    uint32_t num_nan_counts;
    floe_pq_arena arena;
} floe_pq_column_index;

/* BloomFilterHeader; the union members are their Thrift ids (1 = BLOCK,
 * XXHASH, UNCOMPRESSED respectively — the only ones the spec defines). */
typedef struct floe_pq_bloom_filter_header {
    int32_t num_bytes;
    int16_t algorithm;
    int16_t hash;
    int16_t compression;
} floe_pq_bloom_filter_header;

/* ------------------------------------------------------------------ decode */

/* Decode a footer (the FileMetaData bytes between the data and the footer
 * length).  `origin` is the file offset of data[0], for messages. */
floe_status floe_pq_decode_file_metadata(const uint8_t *data, size_t len, uint64_t origin,
                                         floe_pq_file_metadata **out) FLOE_WARN_UNUSED;
void floe_pq_file_metadata_free(floe_pq_file_metadata *md);

/* Decode the page header at the start of data[0..len); *consumed is its size
 * in bytes (the page body follows).  No allocation: statistics point into
 * `data`.  Sizes and value counts are checked to be non-negative. */
floe_status floe_pq_decode_page_header(const uint8_t *data, size_t len, uint64_t origin,
                                       floe_pq_page_header *out,
                                       size_t *consumed) FLOE_WARN_UNUSED;

floe_status floe_pq_decode_column_index(const uint8_t *data, size_t len, uint64_t origin,
                                        floe_pq_column_index **out) FLOE_WARN_UNUSED;
void floe_pq_column_index_free(floe_pq_column_index *ci);

floe_status floe_pq_decode_offset_index(const uint8_t *data, size_t len, uint64_t origin,
                                        floe_pq_offset_index **out) FLOE_WARN_UNUSED;
void floe_pq_offset_index_free(floe_pq_offset_index *oi);

floe_status floe_pq_decode_bloom_filter_header(const uint8_t *data, size_t len,
                                               uint64_t origin,
                                               floe_pq_bloom_filter_header *out,
                                               size_t *consumed) FLOE_WARN_UNUSED;

/* ------------------------------------------------------------------ encode */

/* Append the Thrift encoding of each struct to `out`.  Every field that is
 * set (has_* flag, non-NULL string, bytes.set) is written, in id order. */
floe_status floe_pq_encode_file_metadata(const floe_pq_file_metadata *md,
                                         floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_pq_encode_page_header(const floe_pq_page_header *ph,
                                       floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_pq_encode_column_index(const floe_pq_column_index *ci,
                                        floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_pq_encode_offset_index(const floe_pq_offset_index *oi,
                                        floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_pq_encode_bloom_filter_header(const floe_pq_bloom_filter_header *bf,
                                               floe_buf *out) FLOE_WARN_UNUSED;

#endif
