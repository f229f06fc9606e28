/*
 * column_reader.h — decodes one leaf column chunk into levels and values.
 *
 * A pq_column_reader walks the pages of one column chunk (page_reader.h) and
 * hands out whole rows at a time: for each call it appends to a pq_leaf_out
 * the definition and repetition levels of up to `max_rows` rows and their
 * non-null values, densely packed and already converted to the engine type
 * the leaf maps to (see pq_leaf_type()).  Building Arrow arrays — validity,
 * list offsets — from those is assemble.c's job.
 *
 * Engine types (Parquet kind -> floe type, value conversion):
 *   BOOL -> bool;  INT8/INT16/INT32/UINT8/UINT16/DATE -> int32/date32 as is;
 *   UINT32 -> int64 (zero-extended);  INT64 -> int64;
 *   UINT64 -> decimal(20, 0), since no signed 64-bit type holds 2^63 and up;
 *   FLOAT16 -> float32;  FLOAT, DOUBLE as is;
 *   DECIMAL (INT32, INT64, FIXED, BYTE_ARRAY) -> decimal128(p, s), p <= 38;
 *   DECIMAL(p > 38) (FIXED, BYTE_ARRAY: pandas / Arrow decimal256) -> float64,
 *     as DuckDB reads them: the nearest double of unscaled / 10^s, so only
 *     about 16 significant digits survive (the loss is the price of a type
 *     floe can compute with; no decimal wider than 38 digits exists here);
 *   TIME(MILLIS) -> time64 µs (x1000);  TIME(MICROS) as is;
 *   TIME(NANOS) -> time64 µs (/1000, truncating: floe has no ns time);
 *   TIMESTAMP(MILLIS) -> timestamp µs (x1000);  TIMESTAMP(MICROS) -> µs;
 *   TIMESTAMP(NANOS) -> timestamp ns;  (_tz variants when UTC)
 *   INT96 (Impala / Hive / Spark instants) -> timestamptz µs, as Spark,
 *     DuckDB and Iceberg (whose timestamps are µs) read it: every date from
 *     year 1 to 9999 and beyond fits, nanoseconds below the µs are dropped;
 *     with PQ_INT96_AS_NS -> timestamptz ns, and a value outside the ns
 *     range (years 1677-2262) is an UNSUPPORTED error;
 *   STRING/ENUM/JSON -> string;  BINARY -> binary;  FIXED -> fixed[n];
 *   UUID -> uuid;  UNKNOWN (null type) -> null.
 * Values are converted once per dictionary, not per row, for dictionary
 * encoded pages.
 */
#ifndef FLOE_FORMATS_PARQUET_COLUMN_READER_H
#define FLOE_FORMATS_PARQUET_COLUMN_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/status.h"
#include "formats/parquet/encoding.h"
#include "formats/parquet/page_reader.h"
#include "formats/parquet/schema.h"

/* How the engine-side values are laid out while decoding. */
typedef enum pq_target {
    PQ_T_FIXED,   /* `width` bytes per value */
    PQ_T_BOOL,    /* one 0/1 byte per value (packed to bits by assemble) */
    PQ_T_BINARY,  /* int32 offsets + bytes */
    PQ_T_NULL     /* no values */
} pq_target;

/* Conversion applied to decoded physical values. */
typedef enum pq_conv {
    PQ_CONV_NONE,
    PQ_CONV_U32_TO_I64,
    PQ_CONV_I32_MUL1000,   /* int32 ms -> int64 µs */
    PQ_CONV_I64_MUL1000,   /* int64 ms -> int64 µs */
    PQ_CONV_I64_DIV1000,   /* int64 ns -> int64 µs */
    PQ_CONV_INT96_NS,
    PQ_CONV_INT96_US,
    PQ_CONV_F16,
    PQ_CONV_U64_DEC,    /* UINT_64 -> decimal(20, 0): every value kept */
    PQ_CONV_DEC32,
    PQ_CONV_DEC64,
    PQ_CONV_DEC_FIXED,     /* big-endian two's complement, FIXED */
    PQ_CONV_DEC_BINARY,    /* same, BYTE_ARRAY */
    PQ_CONV_DEC_FIXED_F64, /* precision > 38: FIXED -> float64 */
    PQ_CONV_DEC_BINARY_F64 /* precision > 38: BYTE_ARRAY -> float64 */
} pq_conv;

/* Mapping flags. */
#define PQ_INT96_AS_NS 1  /* INT96 -> timestamp ns (range 1677-2262) instead of µs */

/* The engine type of a leaf (one new reference). */
floe_status pq_leaf_type(const floe_pq_column *col, int flags, floe_type **out) FLOE_WARN_UNUSED;
/* The engine type of any logical field (recursive for nested fields). */
floe_status pq_field_type(const floe_pq_field *f, int flags, floe_type **out) FLOE_WARN_UNUSED;

/* What one read appends to. */
typedef struct pq_leaf_out {
    floe_buf def, rep;   /* int16 per level entry; only when the level's max > 0 */
    floe_buf vals;       /* FIXED: values; BOOL: 0/1 bytes; BINARY: int32 offsets (nvals+1) */
    floe_buf data;       /* BINARY bytes */
    int64_t nlevels, nvals, rows;
    /* Every definition level appended so far equals the leaf's max, and
     * `def` holds none of them (the usual no-null case costs nothing). */
    bool def_all_max;
} pq_leaf_out;

void pq_leaf_out_init(pq_leaf_out *o);
/* Empty, keeping memory. */
void pq_leaf_out_reset(pq_leaf_out *o);
void pq_leaf_out_free(pq_leaf_out *o);

typedef struct pq_column_reader {
    const floe_pq_column *col;
    char *name;                /* dotted path, for messages */
    pq_target target;
    pq_conv conv;
    size_t width;              /* target bytes per value (FIXED) */
    size_t phys_width;         /* physical bytes per value; 0 for BYTE_ARRAY/BOOLEAN */
    pq_page_reader pages;

    /* The dictionary, converted to the target layout. */
    bool has_dict;
    uint32_t dict_n;
    uint32_t dict_max_len;     /* longest BINARY entry (sizes the gather) */
    floe_buf dict_vals, dict_data;

    /* The current data page. */
    pq_page page;
    bool in_page, eof;
    int64_t lvl_n, lvl_pos;    /* level entries in the page, consumed */
    int64_t vals_n, vals_pos;  /* non-null values in the page, consumed */
    floe_buf page_def, page_rep;
    bool page_all_def;         /* every def level of the page is max; page_def unused */
    int32_t enc;               /* values encoding of the page */
    pq_plain plain;
    pq_rle rle;                /* dictionary indices or RLE booleans */
    pq_delta delta;
    pq_dlba dlba;
    pq_dba dba;
    bool delta_live, dlba_live, dba_live;

    floe_buf idx, phys, phys_data; /* scratch */
    size_t last_data_bytes;    /* BINARY bytes of the previous batch (presizing) */
} pq_column_reader;

/* Start on a column chunk held in memory: chunk[0] is at file offset
 * `origin`; codec and num_values come from its ColumnMetaData. */
floe_status pq_column_reader_init(pq_column_reader *c, const floe_pq_column *col,
                                  const uint8_t *chunk, size_t len, uint64_t origin,
                                  int32_t codec, int64_t num_values,
                                  bool verify_crc, int flags) FLOE_WARN_UNUSED;
void pq_column_reader_free(pq_column_reader *c);
/* Done with this chunk, but keep the scratch memory for the next one: the
 * reader may then be passed to pq_column_reader_init again (or freed).
 * init must otherwise be given a zeroed struct. */
void pq_column_reader_recycle(pq_column_reader *c);

/* Append up to max_rows whole rows (fewer only at the end of the chunk). */
floe_status pq_column_read(pq_column_reader *c, int64_t max_rows,
                           pq_leaf_out *out) FLOE_WARN_UNUSED;

#endif
