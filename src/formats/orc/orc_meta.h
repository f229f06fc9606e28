/*
 * orc_meta.h — ORC's metadata messages, decoded.
 *
 * The structs mirror orc_proto.proto (ORCv1 specification) for what a
 * reader needs: PostScript, Footer (stripes, types with attributes, user
 * metadata, statistics), Metadata (stripe statistics), StripeFooter
 * (streams, encodings, writer time zone), RowIndex and BloomFilterIndex,
 * and ColumnStatistics of every kind.  Decoders take a message's bytes
 * (already decompressed) and fill a struct whose memory lives in the given
 * arena, so one floe_arena_destroy frees a whole decoded tail.  Strings are
 * NUL-terminated copies; byte values carry their length.
 *
 * Every decoder checks each length, count and enum it relies on and
 * returns FLOE_ERR_CORRUPT naming the message and field ("Footer.types[3]:
 * truncated varint"); unknown fields are skipped.
 */
#ifndef FLOE_FORMATS_ORC_META_H
#define FLOE_FORMATS_ORC_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "floe/status.h"

typedef enum floe_orc_compression {
    FLOE_ORC_COMP_NONE = 0,
    FLOE_ORC_COMP_ZLIB = 1,
    FLOE_ORC_COMP_SNAPPY = 2,
    FLOE_ORC_COMP_LZO = 3,
    FLOE_ORC_COMP_LZ4 = 4,
    FLOE_ORC_COMP_ZSTD = 5
} floe_orc_compression;

typedef enum floe_orc_kind {
    FLOE_ORC_BOOLEAN = 0,
    FLOE_ORC_BYTE = 1,
    FLOE_ORC_SHORT = 2,
    FLOE_ORC_INT = 3,
    FLOE_ORC_LONG = 4,
    FLOE_ORC_FLOAT = 5,
    FLOE_ORC_DOUBLE = 6,
    FLOE_ORC_STRING = 7,
    FLOE_ORC_BINARY = 8,
    FLOE_ORC_TIMESTAMP = 9,
    FLOE_ORC_LIST = 10,
    FLOE_ORC_MAP = 11,
    FLOE_ORC_STRUCT = 12,
    FLOE_ORC_UNION = 13,
    FLOE_ORC_DECIMAL = 14,
    FLOE_ORC_DATE = 15,
    FLOE_ORC_VARCHAR = 16,
    FLOE_ORC_CHAR = 17,
    FLOE_ORC_TIMESTAMP_INSTANT = 18
} floe_orc_kind;
#define FLOE_ORC_KIND_MAX 18

typedef enum floe_orc_stream_kind {
    FLOE_ORC_S_PRESENT = 0,
    FLOE_ORC_S_DATA = 1,
    FLOE_ORC_S_LENGTH = 2,
    FLOE_ORC_S_DICTIONARY_DATA = 3,
    FLOE_ORC_S_DICTIONARY_COUNT = 4,
    FLOE_ORC_S_SECONDARY = 5,
    FLOE_ORC_S_ROW_INDEX = 6,
    FLOE_ORC_S_BLOOM_FILTER = 7,
    FLOE_ORC_S_BLOOM_FILTER_UTF8 = 8,
    FLOE_ORC_S_ENCRYPTED_INDEX = 9,
    FLOE_ORC_S_ENCRYPTED_DATA = 10,
    FLOE_ORC_S_STRIPE_STATISTICS = 100,
    FLOE_ORC_S_FILE_STATISTICS = 101
} floe_orc_stream_kind;

typedef enum floe_orc_encoding {
    FLOE_ORC_ENC_DIRECT = 0,
    FLOE_ORC_ENC_DICTIONARY = 1,
    FLOE_ORC_ENC_DIRECT_V2 = 2,
    FLOE_ORC_ENC_DICTIONARY_V2 = 3
} floe_orc_encoding;

const char *floe_orc_compression_name(int c);
const char *floe_orc_kind_name(int k);
const char *floe_orc_stream_kind_name(int k);
const char *floe_orc_encoding_name(int e);

/* Which member of floe_orc_stats holds values. */
typedef enum floe_orc_stats_kind {
    FLOE_ORC_STATS_NONE = 0,
    FLOE_ORC_STATS_INT,
    FLOE_ORC_STATS_DOUBLE,
    FLOE_ORC_STATS_STRING,
    FLOE_ORC_STATS_BUCKET,
    FLOE_ORC_STATS_DECIMAL,
    FLOE_ORC_STATS_DATE,
    FLOE_ORC_STATS_BINARY,
    FLOE_ORC_STATS_TIMESTAMP,
    FLOE_ORC_STATS_COLLECTION
} floe_orc_stats_kind;

typedef struct floe_orc_bytes {
    const uint8_t *data; /* NUL-terminated copy (arena) */
    size_t len;
    bool set;
} floe_orc_bytes;

/* ColumnStatistics.  has_min/has_max/has_sum say which of the kind's
 * fields were written. */
typedef struct floe_orc_stats {
    bool has_num_values;
    uint64_t num_values;      /* non-null values */
    bool has_has_null;
    bool has_null;
    bool has_bytes_on_disk;
    uint64_t bytes_on_disk;
    floe_orc_stats_kind kind;
    bool has_min, has_max, has_sum;
    int64_t int_min, int_max, int_sum;          /* INT; DATE uses int_min/max */
    double dbl_min, dbl_max, dbl_sum;           /* DOUBLE */
    floe_orc_bytes str_min, str_max;            /* STRING; DECIMAL min/max text */
    floe_orc_bytes str_lower, str_upper;        /* STRING lowerBound/upperBound */
    floe_orc_bytes dec_sum;                     /* DECIMAL sum text */
    int64_t len_sum;                            /* STRING/BINARY byte count */
    uint64_t true_count;                        /* BUCKET: count[0] */
    bool has_utc;                               /* TIMESTAMP: minimumUtc/maximumUtc */
    int64_t ts_min, ts_max;                     /* ms, local (pre ORC-135) */
    int64_t ts_min_utc, ts_max_utc;             /* ms, UTC */
    int32_t ts_min_nanos, ts_max_nanos;         /* extra ns within the ms (0..999999) */
    uint64_t coll_min, coll_max, coll_total;    /* COLLECTION children */
} floe_orc_stats;

typedef struct floe_orc_postscript {
    uint64_t footer_length;
    int compression;
    bool has_block_size;
    uint64_t block_size;
    uint32_t version[4];
    int num_version;
    uint64_t metadata_length;
    uint32_t writer_version;
    uint64_t stripe_stats_length;
    bool has_magic;
} floe_orc_postscript;

typedef struct floe_orc_stripe_info {
    uint64_t offset, index_length, data_length, footer_length, num_rows;
} floe_orc_stripe_info;

typedef struct floe_orc_attribute {
    const char *key;
    const char *value;
} floe_orc_attribute;

typedef struct floe_orc_type_msg {
    int kind;
    uint32_t *subtypes;
    size_t num_subtypes;
    const char **field_names;
    size_t num_field_names;
    bool has_max_length;
    uint32_t max_length;
    bool has_precision, has_scale;
    uint32_t precision, scale;
    floe_orc_attribute *attributes;
    size_t num_attributes;
} floe_orc_type_msg;

typedef struct floe_orc_user_meta {
    const char *name;
    floe_orc_bytes value;
} floe_orc_user_meta;

typedef struct floe_orc_footer {
    uint64_t header_length, content_length;
    floe_orc_stripe_info *stripes;
    size_t num_stripes;
    floe_orc_type_msg *types;
    size_t num_types;
    floe_orc_user_meta *user_meta;
    size_t num_user_meta;
    uint64_t num_rows;
    floe_orc_stats *stats;
    size_t num_stats;
    uint32_t row_index_stride;
    bool has_writer;
    uint32_t writer;
    bool has_encryption;
    int calendar; /* 0 unknown, 1 Julian-Gregorian, 2 proleptic Gregorian */
    const char *software_version; /* NULL when absent */
} floe_orc_footer;

typedef struct floe_orc_stripe_stats {
    floe_orc_stats *cols;
    size_t num_cols;
} floe_orc_stripe_stats;

typedef struct floe_orc_metadata {
    floe_orc_stripe_stats *stripes;
    size_t num_stripes;
} floe_orc_metadata;

typedef struct floe_orc_stream_info {
    int kind;
    uint32_t column;
    uint64_t length;
    uint64_t offset; /* file offset, filled by the caller from the stripe start */
} floe_orc_stream_info;

typedef struct floe_orc_col_encoding {
    int kind;
    uint32_t dictionary_size;
} floe_orc_col_encoding;

typedef struct floe_orc_stripe_footer {
    floe_orc_stream_info *streams;
    size_t num_streams;
    floe_orc_col_encoding *encodings;
    size_t num_encodings;
    const char *writer_timezone; /* NULL when absent */
    size_t num_encryption;
} floe_orc_stripe_footer;

typedef struct floe_orc_index_entry {
    uint64_t *positions;
    size_t num_positions;
    bool has_stats;
    floe_orc_stats stats;
} floe_orc_index_entry;

typedef struct floe_orc_row_index {
    floe_orc_index_entry *entries;
    size_t num_entries;
} floe_orc_row_index;

typedef struct floe_orc_bloom_filter {
    /* false when the entry is not a usable filter (some old Hive files
     * wrote another message in these streams): it then rules nothing out */
    bool usable;
    uint32_t num_hash_functions;
    uint64_t *bitset;        /* little-endian words; from bitset or utf8bitset */
    size_t num_words;
} floe_orc_bloom_filter;

typedef struct floe_orc_bloom_index {
    floe_orc_bloom_filter *filters;
    size_t num_filters;
} floe_orc_bloom_index;

floe_status floe_orc_decode_postscript(const uint8_t *d, size_t n, floe_orc_postscript *out) FLOE_WARN_UNUSED;
floe_status floe_orc_decode_footer(const uint8_t *d, size_t n, floe_arena *a, floe_orc_footer *out) FLOE_WARN_UNUSED;
floe_status floe_orc_decode_metadata(const uint8_t *d, size_t n, floe_arena *a, floe_orc_metadata *out) FLOE_WARN_UNUSED;
floe_status floe_orc_decode_stripe_footer(const uint8_t *d, size_t n, floe_arena *a,
                                          floe_orc_stripe_footer *out) FLOE_WARN_UNUSED;
floe_status floe_orc_decode_row_index(const uint8_t *d, size_t n, floe_arena *a,
                                      floe_orc_row_index *out) FLOE_WARN_UNUSED;
floe_status floe_orc_decode_bloom_index(const uint8_t *d, size_t n, floe_arena *a,
                                        floe_orc_bloom_index *out) FLOE_WARN_UNUSED;
floe_status floe_orc_decode_stats(const uint8_t *d, size_t n, floe_arena *a, floe_orc_stats *out) FLOE_WARN_UNUSED;

#endif
