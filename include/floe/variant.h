/*
 * variant.h — the Variant binary encoding (Parquet VariantEncoding.md,
 * Iceberg v3's `variant`): decoding with every length and offset checked,
 * deep validation, JSON text, path lookup, and encoding.
 *
 * A variant is two byte strings: the METADATA (a version-1 header, a
 * dictionary of field names with 1..4-byte offsets, optionally sorted) and
 * the VALUE (a header byte — basic type in bits 0-1 — followed by the
 * data: a primitive of one of the type ids below, a short string of up to
 * 63 bytes, an object of (dictionary id, value) pairs ordered by field
 * name, or an array).  Every nested value is itself a whole value that
 * pairs with the same metadata, so a sub-value is a byte range.
 *
 * Nothing here trusts its input.  Decoding a value reads only its header
 * and checks that everything it claims (element counts, id and offset
 * lists, lengths) lies inside the bytes given; accessors check indices and
 * offsets again, so walking a corrupt value returns FLOE_ERR_CORRUPT naming
 * what is wrong and the byte offset within the top-level value ("variant
 * value, byte 17: object field offset 40 is past the 12 value bytes"),
 * never reads outside it.  floe_variant_validate() additionally checks what
 * only a full walk can: strings are UTF-8, object fields are in strictly
 * increasing name order (no duplicate keys), field ids are in the
 * dictionary, and nesting is at most FLOE_VARIANT_MAX_DEPTH deep.
 *
 * JSON text (floe_variant_to_json) follows the conversion table the Parquet
 * spec carried until 2025 (VariantEncoding.md, "Conversion to JSON"):
 *   null, true, false; integers as digits; decimals exactly with their
 *   scale's digits, no exponent ("12.30", "-0.05"); float and double as
 *   the shortest text that reads back to the same value, with ".0" when
 *   integral and an exponent outside 1e-5..1e16 ("1.5e+20"), NaN and
 *   infinities as the strings "NaN", "Infinity", "-Infinity"; date
 *   "2024-11-07"; time "12:33:54.123456"; timestamptz
 *   "2024-11-07T12:33:54.123456+00:00" (9 fraction digits for the
 *   nanosecond types, always UTC); timestamp without zone the same without
 *   the offset; binary as a base64 string; uuid "f24f9b64-81fa-...";
 *   strings with JSON escapes (control characters as \u00XX); objects
 *   {"k":v,...} in their (name-sorted) field order, arrays [v,...], no
 *   spaces.
 *
 * Paths (floe_variant_path_parse) use Spark's variant_get syntax: `$`
 * followed by any number of `.name` (one or more characters other than
 * `.` and `[`), `['name']`, `["name"]` and `[N]` (a non-negative array
 * index) segments.
 */
#ifndef FLOE_VARIANT_H
#define FLOE_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct floe_buf;

/* Deepest nesting of objects/arrays accepted (validation, JSON, paths). */
#define FLOE_VARIANT_MAX_DEPTH 128

/* What a value is.  Primitives carry the spec's type id; a short string is
 * FLOE_VARIANT_STRING (the spec's equivalence class). */
typedef enum floe_variant_kind {
    FLOE_VARIANT_NULL = 0,
    FLOE_VARIANT_TRUE = 1,
    FLOE_VARIANT_FALSE = 2,
    FLOE_VARIANT_INT8 = 3,
    FLOE_VARIANT_INT16 = 4,
    FLOE_VARIANT_INT32 = 5,
    FLOE_VARIANT_INT64 = 6,
    FLOE_VARIANT_DOUBLE = 7,
    FLOE_VARIANT_DECIMAL4 = 8,
    FLOE_VARIANT_DECIMAL8 = 9,
    FLOE_VARIANT_DECIMAL16 = 10,
    FLOE_VARIANT_DATE = 11,            /* days since 1970-01-01 */
    FLOE_VARIANT_TIMESTAMP_TZ = 12,    /* µs since the epoch, UTC */
    FLOE_VARIANT_TIMESTAMP_NTZ = 13,   /* µs, no zone */
    FLOE_VARIANT_FLOAT = 14,
    FLOE_VARIANT_BINARY = 15,
    FLOE_VARIANT_STRING = 16,
    FLOE_VARIANT_TIME = 17,            /* µs since midnight, no zone */
    FLOE_VARIANT_TIMESTAMP_TZ_NS = 18,
    FLOE_VARIANT_TIMESTAMP_NTZ_NS = 19,
    FLOE_VARIANT_UUID = 20,            /* 16 bytes, big-endian */
    FLOE_VARIANT_OBJECT = 32,
    FLOE_VARIANT_ARRAY = 33
} floe_variant_kind;

/* "null", "boolean", "int8" ... "uuid", "object", "array" (TRUE and FALSE
 * are both "boolean"). */
const char *floe_variant_kind_name(floe_variant_kind k);

/* A metadata dictionary: views into its bytes. */
typedef struct floe_variant_meta {
    const uint8_t *data;
    uint32_t size;          /* bytes the metadata occupies */
    uint32_t dict_size;     /* number of names */
    uint8_t offset_size;    /* 1..4 */
    bool sorted;            /* sorted_strings: names unique and in order */
    const uint8_t *offsets; /* dict_size + 1 offsets of offset_size bytes */
    const uint8_t *strings; /* the names' bytes */
} floe_variant_meta;

/* Decode the metadata at p[0..n): version 1, the dictionary size, its
 * offsets (first 0, never decreasing, the last inside the bytes).  With
 * `exact` the metadata must be exactly n bytes; otherwise m->size says how
 * many it took (the rest may be something else, e.g. the value). */
floe_status floe_variant_meta_open(const uint8_t *p, size_t n, bool exact,
                                   floe_variant_meta *m) FLOE_WARN_UNUSED;
/* Name `id` of the dictionary; CORRUPT when id is out of range. */
floe_status floe_variant_meta_name(const floe_variant_meta *m, uint32_t id,
                                   floe_strview *out) FLOE_WARN_UNUSED;
/* Id of `name` (binary search when sorted, else the first match), or -1. */
int64_t floe_variant_meta_find(const floe_variant_meta *m, const char *name, size_t len);
/* Check every name is UTF-8 and, when sorted, that they strictly increase. */
floe_status floe_variant_meta_validate(const floe_variant_meta *m) FLOE_WARN_UNUSED;

/* One decoded value (its header; children are decoded on demand). */
typedef struct floe_variant {
    const uint8_t *data;    /* first byte: the value header */
    uint32_t size;          /* exact bytes of the whole value */
    floe_variant_kind kind;
    const uint8_t *top;     /* the top-level value (for error offsets) */
    union {
        bool b;
        int64_t i;          /* int8..int64, date, time, timestamps */
        float f;
        double d;
        struct {            /* decimal4/8/16: unscaled value and scale */
            floe_decimal128 unscaled;
            uint8_t scale;
        } dec;
        struct {            /* string, binary, uuid (16 bytes) */
            const uint8_t *p;
            uint32_t len;
        } bytes;
        struct {            /* object / array */
            uint32_t n;             /* elements */
            uint8_t id_size;        /* object field ids: 1..4 bytes */
            uint8_t off_size;       /* offsets: 1..4 bytes */
            const uint8_t *ids;     /* n field ids (objects) */
            const uint8_t *offs;    /* n + 1 offsets */
            const uint8_t *vals;    /* first byte of the values */
            uint32_t vals_len;      /* last offset: bytes of values */
        } nest;
    } u;
} floe_variant;

/* Decode the value at p[0..n).  With `exact` it must be exactly n bytes. */
floe_status floe_variant_open(const uint8_t *p, size_t n, bool exact, floe_variant *v) FLOE_WARN_UNUSED;
/* Element i of an array, or the value of field i (in field order) of an
 * object; CORRUPT for a bad offset or a value running past the values. */
floe_status floe_variant_element(const floe_variant *v, uint32_t i, floe_variant *out) FLOE_WARN_UNUSED;
/* Dictionary id of field i of an object. */
floe_status floe_variant_field_id(const floe_variant *v, uint32_t i, uint32_t *id) FLOE_WARN_UNUSED;
/* The field named name[0..len) of an object (binary search over its
 * name-ordered fields): *found false when there is none. */
floe_status floe_variant_find_field(const floe_variant_meta *m, const floe_variant *v, const char *name,
                                    size_t len, floe_variant *out, bool *found) FLOE_WARN_UNUSED;
/* The deep checks described at the top, over v and everything in it. */
floe_status floe_variant_validate(const floe_variant_meta *m, const floe_variant *v) FLOE_WARN_UNUSED;
/* Open and validate a (metadata, value) pair, each exactly its bytes. */
floe_status floe_variant_check(const uint8_t *meta, size_t meta_len, const uint8_t *value,
                               size_t value_len) FLOE_WARN_UNUSED;

/* Append the JSON text of v (see the top) to out. */
floe_status floe_variant_to_json(const floe_variant_meta *m, const floe_variant *v,
                                 struct floe_buf *out) FLOE_WARN_UNUSED;
/* The JSON text of a (metadata, value) pair given as bytes. */
floe_status floe_variant_bytes_to_json(const uint8_t *meta, size_t meta_len, const uint8_t *value,
                                       size_t value_len, struct floe_buf *out) FLOE_WARN_UNUSED;
/* Whether two values (each with its own metadata) are the same: the same
 * kind (a short and a long string alike), the same value (floats and
 * doubles by their bits, so -0.0 differs from 0.0; decimals with the same
 * scale), objects with the same names holding equal values, arrays with
 * equal elements.  For tests and tools; SQL does not compare variants. */
floe_status floe_variant_equal(const floe_variant_meta *ma, const floe_variant *a, const floe_variant_meta *mb,
                               const floe_variant *b, bool *equal) FLOE_WARN_UNUSED;

/* ------------------------------------------------------------------ paths */

typedef struct floe_variant_path_seg {
    bool is_index;
    uint32_t index;         /* is_index */
    const char *name;       /* else: the name (not NUL-terminated) */
    uint32_t len;
} floe_variant_path_seg;

typedef struct floe_variant_path {
    int32_t n;
    floe_variant_path_seg *segs;
    char *text;             /* a copy of the path the names point into */
} floe_variant_path;

/* Parse a path (see the top).  A malformed path is FLOE_ERR_INVALID_ARGUMENT
 * naming the position. */
floe_status floe_variant_path_parse(const char *s, size_t n, floe_variant_path *out) FLOE_WARN_UNUSED;
void floe_variant_path_free(floe_variant_path *p);
/* Follow the path from v: *found false when a field is missing, an index
 * is past the end or a segment meets a value of the other kind. */
floe_status floe_variant_path_get(const floe_variant_meta *m, const floe_variant *v,
                                  const floe_variant_path *path, floe_variant *out,
                                  bool *found) FLOE_WARN_UNUSED;

/* --------------------------------------------------------------- encoding
 * Append encoded values to a buffer (src/columnar/variant_encode.c). */

floe_status floe_variant_put_null(struct floe_buf *b) FLOE_WARN_UNUSED;
floe_status floe_variant_put_bool(struct floe_buf *b, bool v) FLOE_WARN_UNUSED;
/* k: INT8, INT16, INT32, INT64, DATE, TIME or a timestamp kind; v must
 * fit the kind's width. */
floe_status floe_variant_put_int(struct floe_buf *b, floe_variant_kind k, int64_t v) FLOE_WARN_UNUSED;
floe_status floe_variant_put_float(struct floe_buf *b, float v) FLOE_WARN_UNUSED;
floe_status floe_variant_put_double(struct floe_buf *b, double v) FLOE_WARN_UNUSED;
/* k: DECIMAL4, DECIMAL8 or DECIMAL16; scale 0..38. */
floe_status floe_variant_put_decimal(struct floe_buf *b, floe_variant_kind k, floe_decimal128 unscaled,
                                     int32_t scale) FLOE_WARN_UNUSED;
/* A string (a short string when under 64 bytes). */
floe_status floe_variant_put_string(struct floe_buf *b, const void *p, size_t n) FLOE_WARN_UNUSED;
floe_status floe_variant_put_binary(struct floe_buf *b, const void *p, size_t n) FLOE_WARN_UNUSED;
floe_status floe_variant_put_uuid(struct floe_buf *b, const uint8_t bytes[16]) FLOE_WARN_UNUSED;

/* A field of an object being assembled: its dictionary id, its name (for
 * ordering) and its encoded value, vals[off .. off + len). */
typedef struct floe_variant_field_ref {
    uint32_t id;
    const char *name;
    uint32_t name_len;
    uint32_t off, len;
} floe_variant_field_ref;

/* An object of n fields, which must be in strictly increasing name order
 * (floe_variant_sort_fields), whose values are slices of vals. */
floe_status floe_variant_put_object(struct floe_buf *b, const floe_variant_field_ref *f, uint32_t n,
                                    const uint8_t *vals, size_t vals_len) FLOE_WARN_UNUSED;
/* Sort fields by name (unsigned bytes); INVALID_ARGUMENT naming a
 * duplicate name. */
floe_status floe_variant_sort_fields(floe_variant_field_ref *f, uint32_t n) FLOE_WARN_UNUSED;
/* An array of n elements: element i is vals[ends[i-1] .. ends[i]) (from 0
 * for the first). */
floe_status floe_variant_put_array(struct floe_buf *b, const uint32_t *ends, uint32_t n, const uint8_t *vals,
                                   size_t vals_len) FLOE_WARN_UNUSED;
/* Metadata for a dictionary of n names (sorted_strings when `sorted`). */
floe_status floe_variant_put_metadata(struct floe_buf *b, const floe_strview *names, uint32_t n,
                                      bool sorted) FLOE_WARN_UNUSED;

/* ------------------------------------------------- variant arrays
 * A FLOE_TYPE_VARIANT array is a struct of two non-null binary children,
 * metadata and value; slot i is slot (offset + i) of each child. */

static inline floe_strview floe_variant_array_metadata(const floe_array *a, int64_t i) {
    return floe_array_get_str(a->children[0], a->offset + i);
}
static inline floe_strview floe_variant_array_value(const floe_array *a, int64_t i) {
    return floe_array_get_str(a->children[1], a->offset + i);
}
/* Open slot i of a variant array (not null): its metadata and value. */
floe_status floe_variant_array_get(const floe_array *a, int64_t i, floe_variant_meta *m,
                                   floe_variant *v) FLOE_WARN_UNUSED;
/* A VARIANT array over the children named "metadata" and "value" (binary,
 * any order, other children refused) of STRUCT array s, keeping s's slots
 * and validity (no copy), after checking every valid slot's bytes
 * (floe_variant_check; errors name the slot).  How formats without a
 * variant type of their own (Iceberg's Avro mapping: a record of metadata
 * and value) come to the engine. */
floe_status floe_variant_array_from_struct(const floe_array *s, floe_array **out) FLOE_WARN_UNUSED;
/* Append one variant slot to a VARIANT builder. */
floe_status floe_builder_append_variant(floe_builder *b, const void *meta, size_t meta_len, const void *value,
                                        size_t value_len) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
