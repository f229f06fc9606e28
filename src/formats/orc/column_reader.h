/*
 * column_reader.h — decoding one stripe's streams of one column (and its
 * selected children) into floe arrays.
 *
 * A stripe is read through a tree of column readers that mirrors the
 * selected part of the type tree.  floe_orc_col_read(r, n, parent_valid)
 * produces the next n slots of the column: where the parent slot is null
 * (parent_valid bit 0) the slot is null and nothing is read from the
 * column's streams, which is how ORC stores children of null structs and
 * union variants that are not chosen.  The PRESENT stream is read only for
 * slots whose parent is valid; values only for the non-null ones, then
 * spread out in place to their slots.  List and map children read the sum
 * of the lengths; struct children and union variants read n slots with
 * the parent's (or the variant's) validity as their parent_valid.
 *
 * The streams are whole decompressed buffers owned by the stripe
 * (floe_orc_stripe_streams); readers keep pointers into them.
 *
 * Every error names the file, stripe, column (id and path) and stream:
 *   'f.orc': stripe 2: column 7 'map.value.int1': DATA stream: integer RLE
 *   v2: truncated DIRECT run (after 1021 values)
 */
#ifndef FLOE_FORMATS_ORC_COLUMN_READER_H
#define FLOE_FORMATS_ORC_COLUMN_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/status.h"
#include "formats/orc/file.h"
#include "formats/orc/rle.h"
#include "formats/orc/stream.h"
#include "base/tz.h"

/* The decompressed streams of one stripe, by column and kind. */
typedef struct floe_orc_stream_buf {
    uint32_t column;
    int kind;
    uint8_t *data;   /* floe_malloc'd, padded */
    size_t len;
    floe_orc_chunk *chunks; /* compressed files: the chunk map (stream.h) */
    size_t num_chunks;
} floe_orc_stream_buf;

typedef struct floe_orc_stripe_streams {
    const floe_orc_file *file;
    size_t stripe;
    const floe_orc_stripe_footer *footer;
    floe_orc_stream_buf *bufs;
    size_t num_bufs;
    floe_orc_ts_unit unit;
    const floe_tz *writer_tz;  /* the stripe's writer time zone (NULL = UTC) */
} floe_orc_stripe_streams;

/* A stream's bytes (NULL with *len 0 when the stripe has none). */
const floe_orc_stream_buf *floe_orc_stripe_stream(const floe_orc_stripe_streams *s, uint32_t col,
                                                  int kind);

typedef struct floe_orc_col_reader floe_orc_col_reader;

struct floe_orc_col_reader {
    const floe_orc_column *col;
    const floe_orc_stripe_streams *ss;
    floe_type *type;           /* output type (one reference) */
    int encoding;              /* floe_orc_encoding */
    bool has_present;
    floe_orc_bool_rle present;
    floe_orc_int_rle ints;     /* DATA as integers (ints, dates, seconds, dict codes) */
    floe_orc_int_rle lengths;  /* LENGTH */
    floe_orc_int_rle secondary;/* SECONDARY (nanos, decimal scales) */
    floe_orc_byte_rle bytes;   /* DATA as bytes (tinyint, union tags) */
    floe_orc_bool_rle bools;   /* DATA as booleans */
    const uint8_t *data, *data_end;  /* DATA raw (floats, string bytes, decimal varints) */
    /* dictionary (string DICTIONARY[_V2]) */
    int64_t *dict_offsets;     /* dict_size + 1 entries into dict_data */
    const uint8_t *dict_data;
    uint32_t dict_size;
    bool decimal64;            /* DATA is RLE v2 unscaled values, scale from the type */
    floe_orc_col_reader **children;
    int num_children;
    int *child_index;          /* ORC child index of each child reader (union variants) */
    int num_variants;          /* union: the variant count */
    /* scratch */
    int64_t *scratch;
    size_t scratch_cap;
    uint8_t *bits;
    size_t bits_cap;
};

/* Make a reader for column `col` in the stripe; `include[id]` says which
 * descendants are read (a struct reads only its included children; lists,
 * maps and unions read their included children, which the caller makes
 * sure are all there is to read).  `type` is the column's output type. */
floe_status floe_orc_col_reader_new(const floe_orc_stripe_streams *ss, const floe_orc_column *col,
                                    const bool *include, floe_type *type,
                                    floe_orc_col_reader **out) FLOE_WARN_UNUSED;
void floe_orc_col_reader_free(floe_orc_col_reader *r);

/* The next n slots (see above).  parent_valid: LSB-first bitmap of n bits
 * or NULL when every parent slot is valid. */
floe_status floe_orc_col_read(floe_orc_col_reader *r, int64_t n, const uint8_t *parent_valid,
                              floe_array **out) FLOE_WARN_UNUSED;

/* Position the reader and its children at the start of row group g, from
 * each column's ROW_INDEX entry (index[id], NULL when the stripe has none
 * for a column).  Positions list, per stream in the specification's fixed
 * order (PRESENT first when the stripe has one), the offset (compressed
 * chunk start + offset in the chunk, or a byte offset without
 * compression) and for RLE streams the values to skip in the run (for
 * booleans, bytes then bits).  *ok is false, with the readers untouched or
 * partly moved, when the positions do not fit the streams: the caller
 * then reads the stripe from its start instead.  Errors are decoding
 * errors while skipping inside a run. */
floe_status floe_orc_col_seek(floe_orc_col_reader *r, const floe_orc_row_index *const *index,
                              size_t g, bool *ok) FLOE_WARN_UNUSED;

/* Internal, between column_reader.c and column_values.c: read the
 * non-null values of the column's primitive kind for a validity bitmap of
 * n slots with k set bits, into a new array. */
floe_status floe_orc_col_read_strings(floe_orc_col_reader *r, int64_t n, int64_t k,
                                      floe_buffer *validity, floe_array **out) FLOE_WARN_UNUSED;
floe_status floe_orc_col_read_timestamps(floe_orc_col_reader *r, int64_t n, int64_t k,
                                         const uint8_t *valid, int64_t *values) FLOE_WARN_UNUSED;
floe_status floe_orc_col_read_decimals(floe_orc_col_reader *r, int64_t n, int64_t k,
                                       floe_decimal128 *values) FLOE_WARN_UNUSED;
floe_status floe_orc_col_prepare_dictionary(floe_orc_col_reader *r) FLOE_WARN_UNUSED;
/* Grow r->scratch to n values. */
floe_status floe_orc_col_scratch(floe_orc_col_reader *r, size_t n) FLOE_WARN_UNUSED;
/* Wrap an error with the reader's file, stripe, column and stream. */
floe_status floe_orc_col_error(const floe_orc_col_reader *r, const char *stream, floe_status st);

#endif
