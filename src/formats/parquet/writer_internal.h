/*
 * writer_internal.h — the pieces of the Parquet writer (writer.c) that are
 * worth testing alone:
 *
 *   writer_schema.c  floe schema -> Parquet SchemaElements + leaf columns
 *   shred.c          arrays -> definition/repetition levels + leaf slots
 *   stats.c          min/max/null/NaN accumulation, binary truncation
 *   column_writer.c  one column chunk: dictionary, pages, compression
 *
 * Names are pqw_* (Parquet writer); nothing here is public API.
 */
#ifndef FLOE_FORMATS_PARQUET_WRITER_INTERNAL_H
#define FLOE_FORMATS_PARQUET_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "formats/parquet/parquet_meta.h"
#include "formats/parquet/writer.h"

/* ------------------------------------------------------------ schema */

/* One step on the way from a top-level column down to a leaf.  Every
 * Parquet level that is OPTIONAL adds one to the definition level; the
 * repeated group of a LIST or MAP adds one to both levels. */
typedef enum pqw_node_kind {
    PQW_LEAF = 0,
    PQW_STRUCT,   /* descend into children[child]                     */
    PQW_LIST,     /* descend into the element array (children[0])     */
    PQW_MAP       /* descend into entries (children[0])->children[child] */
} pqw_node_kind;

typedef struct pqw_node {
    uint8_t kind;      /* pqw_node_kind */
    bool nullable;     /* the field is OPTIONAL */
    int32_t child;     /* STRUCT / MAP: which child to take */
    int16_t rep;       /* LIST / MAP: repetition level of the repeated group */
} pqw_node;

/* How values of a leaf compare for statistics. */
typedef enum pqw_order {
    PQW_ORD_BOOL = 0,
    PQW_ORD_I32,
    PQW_ORD_I64,
    PQW_ORD_FLOAT,
    PQW_ORD_DOUBLE,
    PQW_ORD_UNSIGNED_BYTES, /* BYTE_ARRAY, FIXED/UUID: memcmp then length */
    PQW_ORD_SIGNED_BE,      /* decimal FLBA: big-endian two's complement  */
    PQW_ORD_NONE            /* no statistics (NULL type)                  */
} pqw_order;

typedef struct pqw_leaf {
    int32_t column;          /* top-level column index in the batch */
    pqw_node *nodes;         /* nodes[0] = the top-level field ... leaf */
    int32_t depth;
    int16_t max_def, max_rep;
    const floe_type *type;   /* the leaf's floe type (borrowed from the schema) */
    int32_t field_id;
    floe_pq_type phys;
    int32_t type_length;     /* FLBA width */
    pqw_order order;
    bool is_string;          /* UTF-8: truncate bounds at character boundaries */
    const char **path;       /* path_in_schema, names borrowed */
    int32_t path_len;
    char *dotted;            /* "a.list.element" */
} pqw_leaf;

typedef struct pqw_schema {
    floe_pq_schema_element *elements; /* depth-first, [0] is the root */
    int32_t n_elements;
    pqw_leaf *leaves;
    int32_t n_leaves;
    floe_schema *schema;     /* one reference */
} pqw_schema;

floe_status pqw_schema_build(const floe_schema *schema, pqw_schema *out) FLOE_WARN_UNUSED;
void pqw_schema_free(pqw_schema *s);

/* Bytes of a FIXED_LEN_BYTE_ARRAY big enough for a decimal of precision p. */
int32_t pqw_decimal_bytes(int32_t precision);

/* ------------------------------------------------------------ shredding */

/* Levels and leaf slots of a range of rows of one leaf column. */
typedef struct pqw_levels {
    int16_t *def;            /* n entries; unused (may be NULL) when max_def == 0 */
    int16_t *rep;            /* n entries; unused (may be NULL) when max_rep == 0 */
    int64_t n, cap;
    int64_t *slots;          /* logical slots in `leaf` of the non-null values */
    int64_t n_values, slots_cap;
    const floe_array *leaf;  /* the leaf array the slots index */
} pqw_levels;

void pqw_levels_init(pqw_levels *l);
void pqw_levels_free(pqw_levels *l);

/* Shred rows [row0, row0 + nrows) of `column` (the top-level array of the
 * leaf's column) into `out` (reset first).  A null in a required field is
 * FLOE_ERR_CONSTRAINT naming the column. */
floe_status pqw_shred(const pqw_leaf *leaf, const floe_array *column, int64_t row0,
                      int64_t nrows, pqw_levels *out) FLOE_WARN_UNUSED;

/* ------------------------------------------------------------ statistics */

typedef struct pqw_stats {
    pqw_order order;
    int32_t width;           /* FLBA width (SIGNED_BE / fixed UNSIGNED_BYTES) */
    int64_t null_count;
    int64_t nan_count;
    int64_t value_count;     /* non-null values seen (incl. NaN) */
    bool has_bounds;
    /* Typed bounds for the numeric orders... */
    union { int64_t i; double d; } min, max;
    /* ... and bytes for the byte orders (also used for export). */
    floe_buf bmin, bmax;
} pqw_stats;

void pqw_stats_init(pqw_stats *s, pqw_order order, int32_t width);
void pqw_stats_reset(pqw_stats *s);
void pqw_stats_free(pqw_stats *s);

/* Feed physical values (as they will be written, see column_writer.c). */
void pqw_stats_bools(pqw_stats *s, const uint8_t *v, int64_t n);
void pqw_stats_i32(pqw_stats *s, const int32_t *v, int64_t n);
void pqw_stats_i64(pqw_stats *s, const int64_t *v, int64_t n);
void pqw_stats_float(pqw_stats *s, const float *v, int64_t n);
void pqw_stats_double(pqw_stats *s, const double *v, int64_t n);
floe_status pqw_stats_fixed(pqw_stats *s, const uint8_t *v, int64_t n) FLOE_WARN_UNUSED;
floe_status pqw_stats_binary(pqw_stats *s, const floe_strview *v, int64_t n) FLOE_WARN_UNUSED;

/* Fold `from` into `into` (same order). */
floe_status pqw_stats_merge(pqw_stats *into, const pqw_stats *from) FLOE_WARN_UNUSED;

/* True when the legacy min/max Statistics fields (signed comparison) may
 * carry the same bounds as min_value/max_value: numbers and booleans. */
static inline bool pqw_order_is_signed(pqw_order o) {
    return o == PQW_ORD_BOOL || o == PQW_ORD_I32 || o == PQW_ORD_I64 || o == PQW_ORD_FLOAT ||
           o == PQW_ORD_DOUBLE;
}

/* Compare two PLAIN-encoded bounds in the stats' order (<0, 0, >0). */
int pqw_stats_compare(const pqw_stats *s, const uint8_t *a, size_t alen, const uint8_t *b,
                      size_t blen);

/* The bounds as Parquet PLAIN bytes (no length prefix), untruncated, with
 * floats' zero rule applied (-0.0 for a zero min, +0.0 for a zero max). */
floe_status pqw_stats_bounds(const pqw_stats *s, floe_buf *min, floe_buf *max) FLOE_WARN_UNUSED;

/* Truncate binary bounds to at most `limit` bytes: the min to a prefix, the
 * max to a prefix whose last byte (or, for UTF-8, character) is incremented.
 * *exact says whether the value was kept whole; a max that cannot be
 * truncated (all 0xff) is kept whole.  utf8: cut at character boundaries. */
void pqw_truncate_min(floe_buf *v, int32_t limit, bool utf8, bool *exact);
void pqw_truncate_max(floe_buf *v, int32_t limit, bool utf8, bool *exact);

/* ------------------------------------------------------------ Bloom filters */

/* xxHash64 with seed 0, as Parquet's Bloom filters hash PLAIN value bytes. */
uint64_t pqw_xxh64(const void *data, size_t len);
/* Set / test the eight bits of hash h in a split block filter of n_blocks
 * 32-byte blocks (words as little-endian uint32, 8 per block). */
void pqw_bloom_insert(uint32_t *words, uint32_t n_blocks, uint64_t h);
bool pqw_bloom_check(const uint32_t *words, uint32_t n_blocks, uint64_t h);
/* Build the filter of hashes[0..n) (sorted and deduplicated in place) sized
 * for false-positive rate fpp, at most max_bytes of bitset, into out:
 * BloomFilterHeader then bitset. */
floe_status pqw_bloom_build(uint64_t *hashes, size_t n, double fpp, int64_t max_bytes,
                            floe_buf *out) FLOE_WARN_UNUSED;

/* ------------------------------------------------------------ column writer */

typedef struct pqw_column pqw_column;

/* One page's entry for the page index. */
typedef struct pqw_page_info {
    int64_t offset;          /* in the chunk, then fixed up to the file */
    int32_t size;            /* header + compressed body */
    int64_t first_row;       /* in the row group */
    int64_t null_count, nan_count;
    bool null_page;          /* no non-null values */
    bool has_bounds;
    uint8_t *min, *max;      /* truncated bounds, floe_malloc'd */
    uint32_t min_len, max_len;
} pqw_page_info;

/* A finished column chunk, ready to be written to the file. */
typedef struct pqw_chunk {
    floe_buf dict_page;      /* the dictionary page, written first (if any) */
    floe_buf bytes;          /* the data pages */
    int64_t dict_size;       /* bytes of the dictionary page (0 = none) */
    int64_t size;            /* bytes of the chunk (set when written) */
    int64_t num_values;      /* levels */
    int64_t uncompressed;    /* headers + uncompressed bodies */
    int32_t encodings[6];
    int32_t n_encodings;
    floe_pq_page_encoding_stats enc_stats[6];
    int32_t n_enc_stats;
    pqw_stats stats;         /* the chunk's statistics */
    pqw_page_info *pages;
    int32_t n_pages, cap_pages;
    bool index_ok;           /* a ColumnIndex may be written (no all-NaN page) */
    floe_buf bloom;          /* header + bitset, when the column has a filter */
    int64_t bloom_offset;    /* set when written */
    int32_t bloom_length;
} pqw_chunk;

void pqw_chunk_free(pqw_chunk *c);

typedef struct pqw_column_config {
    floe_codec codec;
    int level;
    int64_t page_bytes, page_rows, dict_bytes;
    floe_pq_value_encoding encoding;   /* resolved: never DEFAULT */
    bool page_stats;
    bool page_crc;           /* CRC32 of every page */
    bool page_v2;            /* DATA_PAGE_V2 instead of v1 */
    bool legacy_dictionary;  /* PLAIN_DICTIONARY instead of RLE_DICTIONARY/PLAIN */
    int32_t stats_truncate;
    bool bloom;              /* build a Bloom filter per chunk */
    double bloom_fpp;
    int64_t bloom_max_bytes;
} pqw_column_config;

floe_status pqw_column_new(const pqw_leaf *leaf, const pqw_column_config *cfg,
                           pqw_column **out) FLOE_WARN_UNUSED;
void pqw_column_free(pqw_column *c);

/* Add shredded levels and values; `lv` must start and end on row
 * boundaries.  Pages are cut at row boundaries by the configured limits. */
floe_status pqw_column_append(pqw_column *c, const pqw_levels *lv) FLOE_WARN_UNUSED;

/* Estimated bytes buffered for the current chunk (compressed pages so far
 * plus the open page and the dictionary). */
int64_t pqw_column_buffered(const pqw_column *c);

/* Close the chunk: flush the open page, build the dictionary page and hand
 * the result over (the column starts a new chunk).  Page offsets in the
 * result count from the start of the dictionary page. */
floe_status pqw_column_finish(pqw_column *c, pqw_chunk *out) FLOE_WARN_UNUSED;

/* Map a floe codec to the Parquet CompressionCodec value (-1: unsupported). */
int32_t pqw_codec_id(floe_codec c);

#endif
