/*
 * iceberg_value.h — one typed Iceberg primitive value (a literal).
 *
 * Used for partition values, manifest bounds, column defaults and predicate
 * literals.  A floe_ice_value is a small struct passed by value.  Its bytes
 * (string, fixed, binary) are usually a *view* of memory owned by someone
 * else (a decoded manifest, an input batch); floe_ice_value_copy() makes an
 * owning copy, and floe_ice_value_free() releases only what a value owns.
 *
 * Representations:
 *   boolean                  b
 *   int, date                i32   (date: days from 1970-01-01)
 *   long, time               i64   (time: microseconds from midnight)
 *   timestamp, timestamptz   i64   microseconds from 1970-01-01 (UTC for tz)
 *   timestamp(tz)_ns         i64   nanoseconds from 1970-01-01
 *   float / double           f32 / f64
 *   decimal                  dec (128-bit unscaled) with `scale`
 *   uuid                     uuid[16], big-endian (RFC 4122 byte order)
 *   string                   bytes (UTF-8, not NUL-terminated)
 *   fixed, binary            bytes
 *
 * Three encodings are provided, all per the spec:
 *   - Appendix D binary single-value serialization (manifest bounds);
 *   - Appendix D JSON single-value serialization (defaults, partition
 *     values in metadata), see the internal header for the json_t forms;
 *   - a human-readable string, which is the JSON form without quotes
 *     ("2017-11-16", "14.20", "000102ff", "22:31:08.123456").
 */
#ifndef FLOE_ICEBERG_VALUE_H
#define FLOE_ICEBERG_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/iceberg_types.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 128-bit two's complement integer (decimal unscaled values). */
__extension__ typedef __int128 floe_int128;

#define FLOE_ICE_DECIMAL_MAX_PRECISION 38

typedef struct floe_ice_value {
    floe_ice_type_id type;  /* a primitive type id */
    bool is_null;
    bool owns_bytes;        /* `bytes.data` was floe_malloc'd for this value */
    int32_t scale;          /* decimal only */
    union {
        bool b;
        int32_t i32;
        int64_t i64;
        float f32;
        double f64;
        floe_int128 dec;
        uint8_t uuid[16];
        struct {
            const uint8_t *data;
            size_t len;
        } bytes;
    } v;
} floe_ice_value;

/* ---- constructors (no allocation; byte values are views) ---------------- */
floe_ice_value floe_ice_null(floe_ice_type_id type);
floe_ice_value floe_ice_bool(bool b);
floe_ice_value floe_ice_int(int32_t v);
floe_ice_value floe_ice_long(int64_t v);
floe_ice_value floe_ice_float(float v);
floe_ice_value floe_ice_double(double v);
floe_ice_value floe_ice_decimal(floe_int128 unscaled, int32_t scale);
floe_ice_value floe_ice_date(int32_t days);
floe_ice_value floe_ice_time(int64_t micros);
floe_ice_value floe_ice_timestamp(int64_t micros);
floe_ice_value floe_ice_timestamptz(int64_t micros);
floe_ice_value floe_ice_timestamp_ns(int64_t nanos);
floe_ice_value floe_ice_timestamptz_ns(int64_t nanos);
floe_ice_value floe_ice_string(const char *s, size_t len);
floe_ice_value floe_ice_string_z(const char *s);
floe_ice_value floe_ice_uuid(const uint8_t bytes[16]);
floe_ice_value floe_ice_fixed(const uint8_t *data, size_t len);
floe_ice_value floe_ice_binary(const uint8_t *data, size_t len);

/* Make `dst` an independent copy of `src` (bytes duplicated). */
floe_status floe_ice_value_copy(const floe_ice_value *src, floe_ice_value *dst) FLOE_WARN_UNUSED;
/* Release owned bytes; the value becomes null of the same type. */
void floe_ice_value_free(floe_ice_value *v);

/* Convert `v` to the type a column was promoted to (int -> long, float ->
 * double, decimal(P,S) -> decimal(P',S), date -> timestamp(_ns), unknown ->
 * null of anything); a value already of type `to` is copied as a view.
 * FLOE_ERR_TYPE if the promotion is not allowed; FLOE_ERR_INVALID_ARGUMENT
 * if a date is out of range for nanoseconds. */
floe_status floe_ice_value_promote(const floe_ice_value *v, const floe_ice_type *to,
                                   floe_ice_value *out) FLOE_WARN_UNUSED;

/* ---- comparison --------------------------------------------------------- */

/* Order two values of the same type: <0, 0, >0.  Nulls sort first.
 * Floats use the spec's total order: -NaN < -Inf < -x < -0 < 0 < x < Inf < NaN.
 * Decimals of different scales compare numerically.  Strings, binary, fixed
 * and uuid compare as unsigned bytes (for UTF-8 this is code point order).
 * Values of different types compare by type id (callers should not rely
 * on that order). */
int floe_ice_value_compare(const floe_ice_value *a, const floe_ice_value *b);
bool floe_ice_value_equals(const floe_ice_value *a, const floe_ice_value *b);
/* A 64-bit hash consistent with floe_ice_value_equals (for grouping rows by
 * partition tuple; not the spec's bucket hash).  Combine with `seed`. */
uint64_t floe_ice_value_hash64(const floe_ice_value *v, uint64_t seed);

/* ---- Appendix D binary single-value serialization ----------------------- */

/* Serialize `v` (not null, a supported primitive) into a new floe_malloc'd
 * block.  Decimals use the minimum two's complement big-endian width. */
floe_status floe_ice_value_to_bytes(const floe_ice_value *v, uint8_t **out,
                                    size_t *out_len) FLOE_WARN_UNUSED;
/* Decode bytes stored for a column whose *current* type is `type`.  As the
 * spec requires for bounds written before a type promotion, a 4-byte long is
 * read as an int, a 4-byte double as a float and a 4-byte timestamp(_ns) as a
 * date, each converted to `type`.  String, fixed and binary results are
 * views of `data`.  Wrong lengths are FLOE_ERR_CORRUPT. */
floe_status floe_ice_value_from_bytes(const floe_ice_type *type, const uint8_t *data,
                                      size_t len, floe_ice_value *out) FLOE_WARN_UNUSED;

/* ---- strings ------------------------------------------------------------ */

/* Human-readable form (the JSON single-value form without quotes); "null"
 * for a null.  floe_malloc'd. */
floe_status floe_ice_value_to_string(const floe_ice_value *v, char **out) FLOE_WARN_UNUSED;
/* JSON single-value text of `v` ("34", "\"2017-11-16\"", "null"). */
floe_status floe_ice_value_to_json_text(const floe_ice_value *v, char **out) FLOE_WARN_UNUSED;
/* Parse JSON single-value text for a primitive `type`.  Strings are owned by
 * `out`: floe_ice_value_free() it. */
floe_status floe_ice_value_from_json_text(const floe_ice_type *type, const char *text,
                                          floe_ice_value *out) FLOE_WARN_UNUSED;
/* Parse a value of `type` from its human/ISO string form: "34", "14.20",
 * "2017-11-16", "22:31:08", "2017-11-16T22:31:08.000001",
 * "2017-11-16T14:31:08-08:00" (any offset for the tz types, converted to
 * UTC), uuid text, hex for fixed/binary, "true"/"false".  A decimal's scale
 * comes from `type` (fewer fraction digits are padded; more are an error).
 * String results are owned (free with floe_ice_value_free). */
floe_status floe_ice_value_parse(const floe_ice_type *type, const char *text,
                                 floe_ice_value *out) FLOE_WARN_UNUSED;

/* ---- calendar helpers (proleptic Gregorian, UTC) ------------------------ */

int64_t floe_ice_days_from_civil(int64_t year, int month, int day);
void floe_ice_civil_from_days(int64_t days, int64_t *year, int *month, int *day);
/* Floor division and modulo (remainder has the sign of the divisor). */
static inline int64_t floe_ice_floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}
static inline int64_t floe_ice_floormod(int64_t a, int64_t b) {
    return a - floe_ice_floordiv(a, b) * b;
}

#ifdef __cplusplus
}
#endif
#endif
