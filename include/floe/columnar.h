/*
 * columnar.h — floe's in-memory column format: types, fields, schemas,
 * reference-counted buffers, arrays, record batches and builders.
 *
 * Every operator in floe passes data around as record batches of arrays in
 * the Apache Arrow memory layout, so they can be handed to (and taken from)
 * other systems through the Arrow C Data Interface (see arrow_c.h) without
 * copying.  The layout per type:
 *
 *   type                  buffers[0]                 buffers[1]   children
 *   NULL                  -                          -            -
 *   BOOL                  values, 1 bit per slot     -            -
 *   INT32/DATE32          int32 values               -            -
 *   INT64/TIME64_US/TS_*  int64 values               -            -
 *   FLOAT32/FLOAT64       float/double values        -            -
 *   DECIMAL128            16-byte LE two's complement -           -
 *   FIXED_BINARY/UUID     byte_width bytes per slot  -            -
 *   STRING/BINARY         int32 offsets (length+1)   bytes        -
 *   STRUCT                -                          -            one per field
 *   LIST                  int32 offsets (length+1)   -            1 (elements)
 *   MAP                   int32 offsets (length+1)   -            1 (entries:
 *                                  non-null struct<key (non-null), value>)
 *   VARIANT               -                          -            2: metadata
 *                                  and value, BINARY, valid wherever the
 *                                  variant is (a struct in all but name;
 *                                  floe/variant.h decodes the bytes)
 *
 * plus an optional validity bitmap (bit i of byte i/8, LSB first; 1 = valid)
 * which may be absent (NULL) when the array has no nulls.
 *
 * Arrays carry an element `offset` into their buffers so slicing is zero-copy.
 * As in Arrow, a STRUCT's offset applies to its children too: slot i of a
 * struct array is slot (offset + i) of each child array (whose own offset is
 * added on top).  LIST/MAP offsets index the child array's logical slots.
 *
 * Ownership: types, buffers, arrays and batches are immutable once built and
 * reference-counted with atomic counts, so they may be shared between
 * threads and released on any thread.  Functions that return a new object
 * through an `out` parameter give the caller one reference; functions that
 * take an object "by reference" retain it themselves (the caller keeps its
 * own reference).  Builders are single-threaded mutable objects.
 *
 * Parameterless types (int32, string, ...) are static singletons: retain and
 * release on them are no-ops, so they can be used freely.
 */
#ifndef FLOE_COLUMNAR_H
#define FLOE_COLUMNAR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct floe_buf; /* src/base/buffer.h: formatter output */

/* ------------------------------------------------------------------ types */

typedef enum floe_type_id {
    FLOE_TYPE_NULL = 0,
    FLOE_TYPE_BOOL,
    FLOE_TYPE_INT32,
    FLOE_TYPE_INT64,
    FLOE_TYPE_FLOAT32,
    FLOE_TYPE_FLOAT64,
    FLOE_TYPE_DECIMAL128,      /* precision 1..38, scale 0..precision        */
    FLOE_TYPE_DATE32,          /* days since 1970-01-01                      */
    FLOE_TYPE_TIME64_US,       /* microseconds since midnight                */
    FLOE_TYPE_TIMESTAMP_US,    /* µs since epoch, no zone (Iceberg timestamp) */
    FLOE_TYPE_TIMESTAMP_US_TZ, /* µs since epoch, UTC (Iceberg timestamptz)  */
    FLOE_TYPE_TIMESTAMP_NS,    /* ns since epoch, no zone                    */
    FLOE_TYPE_TIMESTAMP_NS_TZ, /* ns since epoch, UTC                        */
    FLOE_TYPE_STRING,          /* UTF-8, int32 offsets                       */
    FLOE_TYPE_BINARY,          /* int32 offsets                              */
    FLOE_TYPE_FIXED_BINARY,    /* byte_width bytes per value                 */
    FLOE_TYPE_UUID,            /* 16 bytes, big-endian as in RFC 4122        */
    FLOE_TYPE_STRUCT,
    FLOE_TYPE_LIST,
    FLOE_TYPE_MAP,
    FLOE_TYPE_VARIANT,         /* semi-structured (Iceberg v3 variant): the
                                  Variant binary encoding's metadata and
                                  value; a singleton like the primitives */
    FLOE_TYPE_INTERVAL,        /* PostgreSQL's interval: months int32, days
                                  int32, micros int64 (floe/interval.h) */
    FLOE_TYPE_COUNT_           /* number of type ids; not a type */
} floe_type_id;

typedef struct floe_type floe_type;

/* A named, typed slot of a struct (or the element of a list, the entries of
 * a map).  A field owns its name (floe_malloc'd) and one reference to its
 * type.  field_id is the Iceberg field id, -1 when there is none. */
typedef struct floe_field {
    char *name;
    floe_type *type;
    bool nullable;
    int32_t field_id;
} floe_field;

/* A data type.  Treat as read-only; build with the constructors below. */
struct floe_type {
    _Atomic int32_t refcount; /* < 0 for static singletons */
    floe_type_id id;
    int32_t precision;   /* DECIMAL128 */
    int32_t scale;       /* DECIMAL128 */
    /* Bytes per value for fixed-width types (4 for INT32, 16 for DECIMAL128
     * and UUID, L for FIXED_BINARY), 0 for BOOL, NULL and variable width. */
    int32_t byte_width;
    bool keys_sorted;    /* MAP: keys within each map are sorted */
    int32_t n_children;
    /* STRUCT: the fields.  LIST: one, the element.  MAP: one, the entries
     * field (non-null struct of a non-null "key" and a "value" field). */
    floe_field *children;
};

/* The static singleton for a parameterless type id (anything but DECIMAL128,
 * FIXED_BINARY, STRUCT, LIST, MAP), or NULL for those.  VARIANT's singleton
 * has its two fixed children, "metadata" and "value" (non-null binary). */
floe_type *floe_type_primitive(floe_type_id id);

floe_status floe_type_decimal(int32_t precision, int32_t scale, floe_type **out) FLOE_WARN_UNUSED;
floe_status floe_type_fixed_binary(int32_t byte_width, floe_type **out) FLOE_WARN_UNUSED;
/* Copies the fields (names duplicated, types retained). */
floe_status floe_type_struct(const floe_field *fields, int32_t n, floe_type **out) FLOE_WARN_UNUSED;
floe_status floe_type_list(const floe_field *element, floe_type **out) FLOE_WARN_UNUSED;
/* Builds map<key, value> with an entries field named "entries" holding a
 * non-null struct of `key` (forced non-null) and `value`. */
floe_status floe_type_map(const floe_field *key, const floe_field *value, bool keys_sorted,
                          floe_type **out) FLOE_WARN_UNUSED;

floe_type *floe_type_retain(floe_type *t);   /* returns t; NULL-safe */
void floe_type_release(floe_type *t);        /* NULL-safe */

/* Full equality: ids, parameters, child names, nullability and field ids. */
bool floe_type_equals(const floe_type *a, const floe_type *b);
/* Same physical layout (ids, parameters, children recursively); names,
 * nullability and field ids may differ.  Used to check arrays against a
 * schema and batches before concatenation. */
bool floe_type_compatible(const floe_type *a, const floe_type *b);

/* Short lowercase name of a type id: "int32", "timestamp_us_tz", "map". */
const char *floe_type_id_name(floe_type_id id);
/* PostgreSQL's name of the type, for messages users read ("integer",
 * "timestamp with time zone", "text"); the engine's own name where
 * PostgreSQL has no such type. */
const char *floe_type_pg_name(floe_type_id id);
/* Render a type as text: "decimal(10, 2)", "fixed[16]",
 * "struct<a: int32, b: list<string>>", "map<string, int64>". */
floe_status floe_type_to_string(const floe_type *t, struct floe_buf *out) FLOE_WARN_UNUSED;

/* True for types whose values sit in buffers[0] at byte_width bytes each. */
static inline bool floe_type_is_fixed_width(const floe_type *t) { return t->byte_width > 0; }
static inline bool floe_type_is_binary_like(const floe_type *t) {
    return t->id == FLOE_TYPE_STRING || t->id == FLOE_TYPE_BINARY;
}
/* Types with child arrays: STRUCT, LIST, MAP and VARIANT.  None of them
 * is ordered, hashed or compared by the engine. */
static inline bool floe_type_is_nested(const floe_type *t) {
    return t->id == FLOE_TYPE_STRUCT || t->id == FLOE_TYPE_LIST || t->id == FLOE_TYPE_MAP ||
           t->id == FLOE_TYPE_VARIANT;
}
/* STRUCT and VARIANT: children share the parent's slots (and offset). */
static inline bool floe_type_is_struct_like(const floe_type *t) {
    return t->id == FLOE_TYPE_STRUCT || t->id == FLOE_TYPE_VARIANT;
}

/* ----------------------------------------------------------------- fields */

/* Fill a field (name duplicated, type retained).  field_id -1 = none. */
floe_status floe_field_init(floe_field *f, const char *name, floe_type *type, bool nullable,
                            int32_t field_id) FLOE_WARN_UNUSED;
floe_status floe_field_copy(floe_field *dst, const floe_field *src) FLOE_WARN_UNUSED;
/* Free the name and release the type; the field becomes zeroed. */
void floe_field_clear(floe_field *f);

/* ---------------------------------------------------------------- schemas */

/* A schema is a STRUCT type whose fields are the columns. */
typedef floe_type floe_schema;

static inline int32_t floe_schema_num_fields(const floe_schema *s) { return s->n_children; }
static inline const floe_field *floe_schema_field(const floe_schema *s, int32_t i) {
    return &s->children[i];
}
/* Index of the first field named `name` (exact match), or -1. */
int32_t floe_schema_find(const floe_schema *s, const char *name);
/* Index of the top-level field with Iceberg field id `id`, or -1. */
int32_t floe_schema_find_id(const floe_schema *s, int32_t field_id);

/* -------------------------------------------------------------- decimals */

/* A decimal128 value: the 128-bit two's-complement unscaled integer.  On a
 * little-endian host (the only kind floe supports) this struct has exactly
 * the Arrow in-buffer layout, so buffers can be read as floe_decimal128[]. */
typedef struct floe_decimal128 {
    uint64_t lo;
    int64_t hi;
} floe_decimal128;

static inline floe_decimal128 floe_decimal128_from_int64(int64_t v) {
    floe_decimal128 d = {(uint64_t)v, v < 0 ? -1 : 0};
    return d;
}

/* ---------------------------------------------------------------- buffers */

typedef struct floe_buffer floe_buffer;
typedef void (*floe_buffer_release_fn)(void *ctx, const uint8_t *data);

/* A reference-counted block of bytes.  Buffers made by floe_buffer_new are
 * 64-byte aligned and their capacity is padded to a multiple of 64 bytes
 * (padding zeroed), so SIMD loops may read whole 64-byte lines.  A buffer
 * wrapping foreign memory has whatever alignment that memory has. */
struct floe_buffer {
    uint8_t *data;
    int64_t size;      /* bytes of meaningful data */
    int64_t capacity;  /* bytes usable at data (>= size) */
    /* private */
    _Atomic int64_t refcount_;
    void *alloc_;                     /* floe_malloc'd block, or NULL */
    floe_buffer_release_fn release_;  /* foreign memory: called on last release */
    void *release_ctx_;
};

/* A new zero-filled buffer of `size` bytes (capacity padded to 64). */
floe_status floe_buffer_new(int64_t size, floe_buffer **out) FLOE_WARN_UNUSED;
/* A copy of `size` bytes at `data`. */
floe_status floe_buffer_copy(const void *data, int64_t size, floe_buffer **out) FLOE_WARN_UNUSED;
/* Wrap foreign memory without copying; `release(ctx, data)` is called when
 * the last reference goes (release may be NULL for static memory). */
floe_status floe_buffer_wrap(const void *data, int64_t size, floe_buffer_release_fn release,
                             void *ctx, floe_buffer **out) FLOE_WARN_UNUSED;
/* Grow (or shrink) a buffer's size, keeping contents; only valid while the
 * caller holds the sole reference and the buffer is floe-allocated.  New
 * bytes are zeroed. */
floe_status floe_buffer_resize(floe_buffer *b, int64_t size) FLOE_WARN_UNUSED;
floe_buffer *floe_buffer_retain(floe_buffer *b);  /* NULL-safe, returns b */
void floe_buffer_release(floe_buffer *b);         /* NULL-safe */

/* ---------------------------------------------------------------- bitmaps */

static inline bool floe_bit_get(const uint8_t *bits, int64_t i) {
    return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void floe_bit_set(uint8_t *bits, int64_t i) {
    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}
static inline void floe_bit_clear(uint8_t *bits, int64_t i) {
    bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
}
static inline void floe_bit_put(uint8_t *bits, int64_t i, bool v) {
    if (v) floe_bit_set(bits, i); else floe_bit_clear(bits, i);
}
/* Number of set bits in [offset, offset + length). */
int64_t floe_bitmap_count(const uint8_t *bits, int64_t offset, int64_t length);
/* Copy `length` bits from src[src_off..] to dst[dst_off..]. */
void floe_bitmap_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off,
                      int64_t length);

/* ----------------------------------------------------------------- arrays */

#define FLOE_NULL_COUNT_UNKNOWN (-1)

/* A column vector.  Treat as read-only; see the layout table at the top. */
typedef struct floe_array {
    _Atomic int32_t refcount_;
    floe_type *type;          /* one reference */
    int64_t length;           /* slots */
    int64_t offset;           /* first slot's index in the buffers */
    /* Use floe_array_null_count(): may be FLOE_NULL_COUNT_UNKNOWN until
     * first asked, then it is computed and cached. */
    _Atomic int64_t null_count_;
    floe_buffer *validity;    /* NULL when there are no nulls */
    floe_buffer *buffers[2];  /* values/offsets, data; NULL when unused */
    int32_t n_children;
    struct floe_array **children;
} floe_array;

/* Assemble an array from parts, taking new references to the type, buffers
 * and children (the caller keeps its own).  `buffers` holds n_buffers
 * entries for buffers[0..]; null_count may be FLOE_NULL_COUNT_UNKNOWN.  The
 * parts are checked only cheaply (count of children/buffers for the type);
 * call floe_array_validate() on untrusted data. */
floe_status floe_array_new(floe_type *type, int64_t length, int64_t offset, int64_t null_count,
                           floe_buffer *validity, floe_buffer *const *buffers, int n_buffers,
                           floe_array *const *children, int32_t n_children,
                           floe_array **out) FLOE_WARN_UNUSED;
/* An array of `length` nulls of any type (children/offsets filled so it is
 * valid for nested types too). */
floe_status floe_array_new_nulls(floe_type *type, int64_t length, floe_array **out) FLOE_WARN_UNUSED;

floe_array *floe_array_retain(floe_array *a);  /* NULL-safe, returns a */
void floe_array_release(floe_array *a);        /* NULL-safe */

int64_t floe_array_null_count(const floe_array *a);

/* Check the array is well-formed: buffer sizes cover offset+length, offsets
 * start >= 0, never decrease and stay inside the data/child, children are
 * long enough, map keys non-null, decimal/fixed widths match, null_count is
 * consistent.  Returns FLOE_ERR_CORRUPT naming the problem and the path
 * (e.g. "column 'a'.element: offset 7 at slot 3 is less than 9"). */
floe_status floe_array_validate(const floe_array *a) FLOE_WARN_UNUSED;

/* Zero-copy view of slots [offset, offset + length) of `a`. */
floe_status floe_array_slice(const floe_array *a, int64_t offset, int64_t length,
                             floe_array **out) FLOE_WARN_UNUSED;
/* Gather slots indices[0..n) of `a` into a new array (deep: nested types
 * are gathered recursively).  Indices must be < a->length. */
floe_status floe_array_take(const floe_array *a, const uint32_t *indices, int64_t n,
                            floe_array **out) FLOE_WARN_UNUSED;
/* Concatenate arrays of compatible types into one new array. */
floe_status floe_array_concat(floe_array *const *arrays, int32_t n, floe_array **out) FLOE_WARN_UNUSED;

/* Logical child array of a STRUCT (index i), LIST or MAP (index 0). */
static inline const floe_array *floe_array_child(const floe_array *a, int32_t i) {
    return a->children[i];
}

/* ------------------------------------------------- direct value access
 * `i` is the logical slot (0 .. length-1); the array offset is added here.
 * No bounds checks: these are for hot loops over validated arrays. */

static inline bool floe_array_is_null(const floe_array *a, int64_t i) {
    if (a->type->id == FLOE_TYPE_NULL) return true;
    return a->validity && !floe_bit_get(a->validity->data, a->offset + i);
}
static inline bool floe_array_is_valid(const floe_array *a, int64_t i) {
    return !floe_array_is_null(a, i);
}
/* Pointer to slot 0's value for fixed-width types (INT32 ... UUID). */
static inline const void *floe_array_values(const floe_array *a) {
    return a->buffers[0]->data + a->offset * (int64_t)a->type->byte_width;
}
static inline bool floe_array_get_bool(const floe_array *a, int64_t i) {
    return floe_bit_get(a->buffers[0]->data, a->offset + i);
}
static inline int32_t floe_array_get_int32(const floe_array *a, int64_t i) {
    return ((const int32_t *)a->buffers[0]->data)[a->offset + i];
}
static inline int64_t floe_array_get_int64(const floe_array *a, int64_t i) {
    return ((const int64_t *)a->buffers[0]->data)[a->offset + i];
}
static inline float floe_array_get_float(const floe_array *a, int64_t i) {
    return ((const float *)a->buffers[0]->data)[a->offset + i];
}
static inline double floe_array_get_double(const floe_array *a, int64_t i) {
    return ((const double *)a->buffers[0]->data)[a->offset + i];
}
static inline floe_decimal128 floe_array_get_decimal(const floe_array *a, int64_t i) {
    return ((const floe_decimal128 *)a->buffers[0]->data)[a->offset + i];
}
/* Fixed-size binary / uuid / decimal: pointer to byte_width bytes. */
static inline const uint8_t *floe_array_get_fixed(const floe_array *a, int64_t i) {
    return a->buffers[0]->data + (a->offset + i) * (int64_t)a->type->byte_width;
}

/* A view of a string/binary value; not NUL-terminated. */
typedef struct floe_strview {
    const char *data;
    int32_t len;
} floe_strview;

static inline const int32_t *floe_array_offsets(const floe_array *a) {
    return (const int32_t *)a->buffers[0]->data + a->offset;
}
static inline floe_strview floe_array_get_str(const floe_array *a, int64_t i) {
    const int32_t *o = floe_array_offsets(a) + i;
    floe_strview v = {(const char *)a->buffers[1]->data + o[0], o[1] - o[0]};
    return v;
}
/* LIST/MAP: child slot range [*start, *end) of slot i. */
static inline void floe_array_get_range(const floe_array *a, int64_t i, int64_t *start,
                                        int64_t *end) {
    const int32_t *o = floe_array_offsets(a) + i;
    *start = o[0];
    *end = o[1];
}

/* Append the text of value i to `out` (src/columnar/format.c): integers in
 * decimal, floats as the shortest text that reads back exactly (with ".0"
 * when integral; "NaN", "Infinity", "-Infinity"), decimals with their
 * scale ("-12.30"), dates "YYYY-MM-DD", times "HH:MM:SS.ffffff", timestamps
 * "YYYY-MM-DD HH:MM:SS.ffffff" (9 fraction digits for ns), with "+00"
 * appended for the UTC types, uuid "8-4-4-4-12" lowercase hex, binary and
 * fixed "\x" followed by lowercase hex, booleans "true"/"false", strings as
 * is, structs "{a: 1, b: [1, 2]}", lists "[1, 2]", maps "{k1: v1, k2: v2}",
 * variants as their JSON text (floe/variant.h; also inside nested values).
 * Nested nulls print as "NULL"; strings inside nested values are quoted
 * with single quotes ('it''s').  A top-level null appends "NULL" too; most
 * callers check floe_array_is_null first. */
floe_status floe_format_value(const floe_array *a, int64_t i, struct floe_buf *out) FLOE_WARN_UNUSED;

/* Pieces of the formatter for callers (printer, CSV/JSON writers, SQL casts)
 * that need them alone.  Calendar conversion uses floor division so
 * pre-1970 values print correctly. */
floe_status floe_format_date32(int32_t days, struct floe_buf *out) FLOE_WARN_UNUSED;
/* Times and timestamps as PostgreSQL shows them: the fraction without its
 * trailing zeros, none on a whole second ("10:00:00", "10:00:00.5"). */
floe_status floe_format_time_us(int64_t micros, struct floe_buf *out) FLOE_WARN_UNUSED;
/* unit_per_second is 1000000 (µs) or 1000000000 (ns); utc: a timestamptz,
 * shown in this thread's session zone with its offset ("+00", "+02"). */
floe_status floe_format_timestamp(int64_t value, int64_t units_per_second, bool utc,
                                  struct floe_buf *out) FLOE_WARN_UNUSED;
/* ISO 8601 with every fraction digit (6 for µs, 9 for ns), as Spark and
 * Iceberg Java write them: "2024-11-07T12:33:54.123000" (a timestamp, in
 * UTC, no offset) and "12:33:54.123000". */
floe_status floe_format_timestamp_iso(int64_t value, int64_t units_per_second, struct floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_format_time_us_iso(int64_t micros, struct floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_format_decimal(floe_decimal128 v, int32_t scale, struct floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_format_uuid(const uint8_t bytes[16], struct floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_format_double(double v, struct floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_format_float(float v, struct floe_buf *out) FLOE_WARN_UNUSED;

/* Logical equality: compatible types, same length, same nulls and equal
 * values slot by slot (offsets and buffer sharing do not matter; floats
 * compare by bits, so NaN equals the same NaN).  For tests and asserts. */
bool floe_array_equals(const floe_array *a, const floe_array *b);

/* ---------------------------------------------------------- record batches */

/* A set of equal-length columns with a schema. */
typedef struct floe_batch {
    _Atomic int32_t refcount_;
    floe_schema *schema;      /* STRUCT type; one reference */
    int64_t num_rows;
    int32_t num_columns;      /* == schema->n_children */
    floe_array **columns;     /* one reference each */
} floe_batch;

/* Make a batch, retaining the schema and columns.  Checks the column count,
 * that each column has num_rows slots and a type compatible with its field. */
floe_status floe_batch_new(floe_schema *schema, floe_array *const *columns, int32_t num_columns,
                           int64_t num_rows, floe_batch **out) FLOE_WARN_UNUSED;
floe_batch *floe_batch_retain(floe_batch *b);  /* NULL-safe */
void floe_batch_release(floe_batch *b);        /* NULL-safe */

static inline floe_array *floe_batch_column(const floe_batch *b, int32_t i) {
    return b->columns[i];
}

/* Zero-copy rows [offset, offset + length). */
floe_status floe_batch_slice(const floe_batch *b, int64_t offset, int64_t length,
                             floe_batch **out) FLOE_WARN_UNUSED;
/* Columns `indices[0..n)` (in that order, repeats allowed), zero-copy. */
floe_status floe_batch_project(const floe_batch *b, const int32_t *indices, int32_t n,
                               floe_batch **out) FLOE_WARN_UNUSED;
/* Materialise the rows named by a selection vector, in its order. */
floe_status floe_batch_take(const floe_batch *b, const uint32_t *indices, int64_t n,
                            floe_batch **out) FLOE_WARN_UNUSED;
/* Rows of all batches, in order; schemas must be compatible (the first
 * batch's schema is used).  n must be >= 1. */
floe_status floe_batch_concat(floe_batch *const *batches, int32_t n, floe_batch **out) FLOE_WARN_UNUSED;
/* The batch as one STRUCT array (non-null slots), zero-copy. */
floe_status floe_batch_to_struct(const floe_batch *b, floe_array **out) FLOE_WARN_UNUSED;
/* A batch from a STRUCT array with no nulls at top level, zero-copy (the
 * struct's offset is applied by slicing each child).  The schema is the
 * struct type. */
floe_status floe_batch_from_struct(const floe_array *a, floe_batch **out) FLOE_WARN_UNUSED;
/* Same row count, compatible schemas and equal columns (floe_array_equals). */
bool floe_batch_equals(const floe_batch *a, const floe_batch *b);
/* Check every column with floe_array_validate. */
floe_status floe_batch_validate(const floe_batch *b) FLOE_WARN_UNUSED;

/* --------------------------------------------------------------- builders */

/* Builds one array of a given type by appending values.  For nested types
 * the builder owns one child builder per child (floe_builder_child):
 *   STRUCT: append to every child, then floe_builder_append_valid(struct).
 *           floe_builder_append_null(struct) appends a null to each child
 *           itself so lengths stay aligned.
 *   LIST:   append the elements to child 0, then floe_builder_append_list()
 *           closes one list slot holding all elements appended since the
 *           previous slot.  append_null closes an empty null slot.
 *   MAP:    append keys to floe_builder_map_keys() and as many values to
 *           floe_builder_map_values(), then floe_builder_append_map().
 * After finish the builder is empty and may be reused for the same type.
 * Appending a value of the wrong kind (e.g. append_int64 on a STRING
 * builder) returns FLOE_ERR_TYPE.  After any failed call (other than a
 * type or argument check) the builder's contents are unspecified: free it. */
typedef struct floe_builder floe_builder;

floe_status floe_builder_new(floe_type *type, int64_t capacity_hint, floe_builder **out) FLOE_WARN_UNUSED;
void floe_builder_free(floe_builder *b);  /* NULL-safe; frees children too */

const floe_type *floe_builder_type(const floe_builder *b);
int64_t floe_builder_length(const floe_builder *b);
/* Make room for `additional` more slots (and, for string/binary,
 * `data_bytes` more bytes of data). */
floe_status floe_builder_reserve(floe_builder *b, int64_t additional, int64_t data_bytes) FLOE_WARN_UNUSED;
/* Child builder i of STRUCT, 0 for LIST, 0 (entries struct) for MAP. */
floe_builder *floe_builder_child(floe_builder *b, int32_t i);
floe_builder *floe_builder_map_keys(floe_builder *b);
floe_builder *floe_builder_map_values(floe_builder *b);

floe_status floe_builder_append_null(floe_builder *b) FLOE_WARN_UNUSED;
floe_status floe_builder_append_nulls(floe_builder *b, int64_t n) FLOE_WARN_UNUSED;

/* Scalars.  INT32 also serves DATE32; INT64 serves TIME64_US and all
 * timestamps.  append_fixed takes byte_width bytes (FIXED_BINARY, UUID,
 * DECIMAL128).  append_binary serves STRING and BINARY (UTF-8 is not
 * checked here; see floe_array_validate). */
floe_status floe_builder_append_bool(floe_builder *b, bool v) FLOE_WARN_UNUSED;
floe_status floe_builder_append_int32(floe_builder *b, int32_t v) FLOE_WARN_UNUSED;
floe_status floe_builder_append_int64(floe_builder *b, int64_t v) FLOE_WARN_UNUSED;
floe_status floe_builder_append_float(floe_builder *b, float v) FLOE_WARN_UNUSED;
floe_status floe_builder_append_double(floe_builder *b, double v) FLOE_WARN_UNUSED;
floe_status floe_builder_append_decimal(floe_builder *b, floe_decimal128 v) FLOE_WARN_UNUSED;
floe_status floe_builder_append_fixed(floe_builder *b, const void *bytes) FLOE_WARN_UNUSED;
floe_status floe_builder_append_binary(floe_builder *b, const void *data, int64_t len) FLOE_WARN_UNUSED;
floe_status floe_builder_append_string(floe_builder *b, const char *nul_terminated) FLOE_WARN_UNUSED;

/* Nested slot closers (see above). */
floe_status floe_builder_append_valid(floe_builder *b) FLOE_WARN_UNUSED;  /* STRUCT */
floe_status floe_builder_append_list(floe_builder *b) FLOE_WARN_UNUSED;   /* LIST   */
floe_status floe_builder_append_map(floe_builder *b) FLOE_WARN_UNUSED;    /* MAP    */

/* Bulk appends for decoders.  `validity` is an LSB-first bitmap of n bits
 * starting at bit 0 (1 = valid), or NULL when all n slots are valid.
 *
 * append_values: `values` holds n values of byte_width bytes, one per slot
 *   (contents under null slots are copied but meaningless).
 * append_values_dense: `values` holds one value per VALID slot only, as a
 *   Parquet page decodes them; they are spread out to their slots.
 * Any fixed-width type (INT32 ... UUID). */
floe_status floe_builder_append_values(floe_builder *b, const void *values, int64_t n,
                                       const uint8_t *validity) FLOE_WARN_UNUSED;
floe_status floe_builder_append_values_dense(floe_builder *b, const void *values, int64_t n,
                                             const uint8_t *validity) FLOE_WARN_UNUSED;
/* Typed spellings of append_values (type-checked against the builder). */
floe_status floe_builder_append_int32_values(floe_builder *b, const int32_t *v, int64_t n,
                                             const uint8_t *validity) FLOE_WARN_UNUSED;
floe_status floe_builder_append_int64_values(floe_builder *b, const int64_t *v, int64_t n,
                                             const uint8_t *validity) FLOE_WARN_UNUSED;
floe_status floe_builder_append_float_values(floe_builder *b, const float *v, int64_t n,
                                             const uint8_t *validity) FLOE_WARN_UNUSED;
floe_status floe_builder_append_double_values(floe_builder *b, const double *v, int64_t n,
                                              const uint8_t *validity) FLOE_WARN_UNUSED;
/* BOOL: `bits` is an LSB-first bitmap of n values starting at bit bit_offset. */
floe_status floe_builder_append_bool_bits(floe_builder *b, const uint8_t *bits, int64_t bit_offset,
                                          int64_t n, const uint8_t *validity) FLOE_WARN_UNUSED;
/* STRING/BINARY: n values in Arrow form: offsets[0..n] into data (offsets
 * need not start at 0; they must not decrease). */
floe_status floe_builder_append_binary_values(floe_builder *b, const int32_t *offsets,
                                              const uint8_t *data, int64_t n,
                                              const uint8_t *validity) FLOE_WARN_UNUSED;
/* STRING/BINARY from views (e.g. pointing into a decoded page).
 * append_strviews: one view per slot (views under null slots ignored);
 * append_strviews_dense: one view per VALID slot only. */
floe_status floe_builder_append_strviews(floe_builder *b, const floe_strview *views, int64_t n,
                                         const uint8_t *validity) FLOE_WARN_UNUSED;
floe_status floe_builder_append_strviews_dense(floe_builder *b, const floe_strview *views, int64_t n,
                                               const uint8_t *validity) FLOE_WARN_UNUSED;
/* Fixed-width: grow by n valid slots and return a pointer to their (zeroed)
 * values so a decoder can write straight into the builder.  The pointer is
 * good until the next call on this builder. */
floe_status floe_builder_extend_values(floe_builder *b, int64_t n, void **values_out) FLOE_WARN_UNUSED;
/* Mark slot i (0 .. length-1) of an already-appended slot null, e.g. after
 * extend_values.  Fixed-width and BOOL only. */
floe_status floe_builder_set_null(floe_builder *b, int64_t i) FLOE_WARN_UNUSED;

/* Append slots [offset, offset+n) of an existing array of a compatible type
 * (deep copy, any type incl. nested). */
floe_status floe_builder_append_array(floe_builder *b, const floe_array *src, int64_t offset,
                                      int64_t n) FLOE_WARN_UNUSED;

/* Gather: append slots indices[0..n) of `src` (compatible type, any type
 * incl. nested), e.g. to decode dictionary indices against a dictionary
 * array.  Indices must be < src->length (checked). */
floe_status floe_builder_append_take(floe_builder *b, const floe_array *src, const uint32_t *indices,
                                     int64_t n) FLOE_WARN_UNUSED;
/* Same, for n slots of which only the valid ones (per `validity`, LSB
 * bitmap of n bits, NULL = all valid) have an index: `indices` holds one
 * entry per valid slot, as a Parquet dictionary page decodes them. */
floe_status floe_builder_append_take_dense(floe_builder *b, const floe_array *src,
                                           const uint32_t *indices, int64_t n,
                                           const uint8_t *validity) FLOE_WARN_UNUSED;

/* Hand over the built array; the builder is left empty. */
floe_status floe_builder_finish(floe_builder *b, floe_array **out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
