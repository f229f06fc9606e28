/*
 * thrift.h — the Thrift compact protocol, as Parquet uses it.
 *
 * Parquet's footer, page headers, column and offset indexes and bloom filter
 * headers are Thrift structs in the compact encoding.  This is a small,
 * dependency-free implementation of just that wire format:
 *
 *   - a reader over a byte range that never reads outside it, limits nesting,
 *     and names the byte offset of every problem it reports;
 *   - a writer appending to a floe_buf, for the Parquet writer.
 *
 * There is no schema here: the Parquet metadata code (parquet_meta.c) walks
 * fields by id and calls floe_thrift_skip() for anything it does not know,
 * which is how files from newer writers stay readable.
 *
 * Offsets in messages are `origin + position in the buffer`, so a caller that
 * decodes a footer read from file offset N passes origin = N and errors name
 * true file offsets.
 */
#ifndef FLOE_FORMATS_PARQUET_THRIFT_H
#define FLOE_FORMATS_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/status.h"

/* Compact-protocol type codes as they appear on the wire.  In a field header
 * a bool's value is its type (TRUE/FALSE); inside a list a bool element has
 * type TRUE and a one-byte value. */
typedef enum floe_thrift_type {
    FLOE_THRIFT_STOP = 0,
    FLOE_THRIFT_TRUE = 1,
    FLOE_THRIFT_FALSE = 2,
    FLOE_THRIFT_I8 = 3,
    FLOE_THRIFT_I16 = 4,
    FLOE_THRIFT_I32 = 5,
    FLOE_THRIFT_I64 = 6,
    FLOE_THRIFT_DOUBLE = 7,
    FLOE_THRIFT_BINARY = 8,
    FLOE_THRIFT_LIST = 9,
    FLOE_THRIFT_SET = 10,
    FLOE_THRIFT_MAP = 11,
    FLOE_THRIFT_STRUCT = 12,
    FLOE_THRIFT_UUID = 13
} floe_thrift_type;

/* Nesting deeper than this (structs inside lists inside structs ...) is
 * treated as corrupt input; Parquet's own metadata nests at most ~6 deep. */
#define FLOE_THRIFT_MAX_DEPTH 64

/* ------------------------------------------------------------------ reader */

typedef struct floe_thrift_reader {
    const uint8_t *base; /* start of the buffer                       */
    const uint8_t *p;    /* next byte to read                         */
    const uint8_t *end;  /* one past the last readable byte           */
    uint64_t origin;     /* offset of `base` in the file, for messages */
    int depth;           /* current struct/container nesting          */
} floe_thrift_reader;

void floe_thrift_reader_init(floe_thrift_reader *r, const uint8_t *data, size_t len,
                             uint64_t origin);

/* Absolute offset (origin + position) of the next byte. */
static inline uint64_t floe_thrift_offset(const floe_thrift_reader *r) {
    return r->origin + (uint64_t)(r->p - r->base);
}
static inline size_t floe_thrift_remaining(const floe_thrift_reader *r) {
    return (size_t)(r->end - r->p);
}

/* A FLOE_ERR_CORRUPT error "thrift: <what> at offset N" for the reader's
 * current position (used by the metadata decoder for semantic errors too). */
floe_status floe_thrift_error(const floe_thrift_reader *r, const char *fmt, ...)
    FLOE_PRINTF(2, 3);

/* Primitive values.  Each checks bounds and value ranges (a varint longer
 * than its type allows, an i32 that overflows, ...). */
floe_status floe_thrift_read_varint(floe_thrift_reader *r, uint64_t *v);
floe_status floe_thrift_read_i8(floe_thrift_reader *r, int8_t *v);
floe_status floe_thrift_read_i16(floe_thrift_reader *r, int16_t *v);
floe_status floe_thrift_read_i32(floe_thrift_reader *r, int32_t *v);
floe_status floe_thrift_read_i64(floe_thrift_reader *r, int64_t *v);
floe_status floe_thrift_read_double(floe_thrift_reader *r, double *v);
/* A binary/string: a view into the buffer (not copied, not NUL-terminated). */
floe_status floe_thrift_read_binary(floe_thrift_reader *r, const uint8_t **data,
                                    uint32_t *len);
/* A UUID: 16 raw bytes, a view into the buffer. */
floe_status floe_thrift_read_uuid(floe_thrift_reader *r, const uint8_t **uuid16);
/* A bool that is a list/set/map element (one byte: 1 true; 0 or 2 false). */
floe_status floe_thrift_read_bool_elem(floe_thrift_reader *r, bool *v);

/* Structs.  Enter before reading a struct's fields and leave after its STOP:
 * enter enforces the depth limit.  Fields are read with read_field, which
 * keeps the previous id in *last_id (start it at 0 for each struct) to undo
 * the compact protocol's delta encoding.  At the end of the struct *type is
 * FLOE_THRIFT_STOP.  For a bool field *type is TRUE or FALSE and there is no
 * value to read. */
floe_status floe_thrift_struct_enter(floe_thrift_reader *r);
static inline void floe_thrift_struct_leave(floe_thrift_reader *r) { r->depth--; }
floe_status floe_thrift_read_field(floe_thrift_reader *r, int16_t *last_id,
                                   floe_thrift_type *type, int16_t *id);

/* List and set headers (same encoding).  *count is checked against the bytes
 * left (every element takes at least one byte), so it is safe to allocate. */
floe_status floe_thrift_read_list(floe_thrift_reader *r, floe_thrift_type *elem,
                                  uint32_t *count);
/* Map header; for an empty map the key/value types are STOP. */
floe_status floe_thrift_read_map(floe_thrift_reader *r, floe_thrift_type *key,
                                 floe_thrift_type *value, uint32_t *count);

/* Skip one value of the given type, whatever it contains. */
floe_status floe_thrift_skip(floe_thrift_reader *r, floe_thrift_type type);

/* ------------------------------------------------------------------ writer */

/* The writer is sticky on failure (only allocation can fail, or misuse such
 * as nesting too deep): calls after a failure do nothing and
 * floe_thrift_writer_status() reports the first one.  That keeps encoders
 * free of an error check on every field. */
typedef struct floe_thrift_writer {
    floe_buf *out;
    int depth;
    int16_t last_id;                          /* of the struct being written */
    int16_t saved_ids[FLOE_THRIFT_MAX_DEPTH]; /* of the enclosing structs    */
    floe_code failed;                         /* FLOE_OK while all is well   */
} floe_thrift_writer;

void floe_thrift_writer_init(floe_thrift_writer *w, floe_buf *out);
/* NULL, or a new error describing the first failure. */
floe_status floe_thrift_writer_status(const floe_thrift_writer *w);

/* Open a struct (a nested one, after its field header or as a list element;
 * also the outermost one) and close it (writes STOP). */
void floe_thrift_write_struct_begin(floe_thrift_writer *w);
void floe_thrift_write_struct_end(floe_thrift_writer *w);
/* A field header; follow it with the value.  Bools use write_field_bool. */
void floe_thrift_write_field(floe_thrift_writer *w, floe_thrift_type type, int16_t id);
void floe_thrift_write_field_bool(floe_thrift_writer *w, int16_t id, bool v);

void floe_thrift_write_list(floe_thrift_writer *w, floe_thrift_type elem, uint32_t count);
void floe_thrift_write_set(floe_thrift_writer *w, floe_thrift_type elem, uint32_t count);
void floe_thrift_write_map(floe_thrift_writer *w, floe_thrift_type key,
                           floe_thrift_type value, uint32_t count);

void floe_thrift_write_varint(floe_thrift_writer *w, uint64_t v);
void floe_thrift_write_i8(floe_thrift_writer *w, int8_t v);
void floe_thrift_write_i16(floe_thrift_writer *w, int16_t v);
void floe_thrift_write_i32(floe_thrift_writer *w, int32_t v);
void floe_thrift_write_i64(floe_thrift_writer *w, int64_t v);
void floe_thrift_write_double(floe_thrift_writer *w, double v);
void floe_thrift_write_binary(floe_thrift_writer *w, const void *data, uint32_t len);
void floe_thrift_write_string(floe_thrift_writer *w, const char *s);
void floe_thrift_write_bool_elem(floe_thrift_writer *w, bool v);
void floe_thrift_write_uuid(floe_thrift_writer *w, const uint8_t uuid16[16]);

/* Field + value in one call, for the common scalar cases. */
void floe_thrift_write_field_i32(floe_thrift_writer *w, int16_t id, int32_t v);
void floe_thrift_write_field_i64(floe_thrift_writer *w, int16_t id, int64_t v);
void floe_thrift_write_field_binary(floe_thrift_writer *w, int16_t id, const void *data,
                                    uint32_t len);
void floe_thrift_write_field_string(floe_thrift_writer *w, int16_t id, const char *s);

#endif
