/*
 * iceberg_transform.h — partition (and sort) transforms: identity, bucket[N],
 * truncate[W], year, month, day, hour, void, and unknown transforms kept by
 * name so that tables using them can still be read.
 *
 * A floe_ice_transform is a small value (no allocation).  Applying one maps a
 * source value to a partition value; null maps to null.  Results:
 *   identity      the source value                   (source type)
 *   bucket[N]     (murmur3(v) & INT_MAX) % N         int
 *   truncate[W]   ints/longs: v - floormod(v, W); decimals on the unscaled
 *                 value; strings to W code points (never splitting UTF-8);
 *                 binary to W bytes                   (source type)
 *   year/month    years/months since 1970, floored    int
 *   day           days since 1970-01-01, floored      date
 *   hour          hours since 1970-01-01 00:00, floored int
 *   void          null                                (source type)
 * Truncated strings and binaries are views into the source value's bytes.
 */
#ifndef FLOE_ICEBERG_TRANSFORM_H
#define FLOE_ICEBERG_TRANSFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/iceberg_types.h"
#include "floe/iceberg_value.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum floe_ice_transform_kind {
    FLOE_ICE_TRANSFORM_IDENTITY = 0,
    FLOE_ICE_TRANSFORM_BUCKET,
    FLOE_ICE_TRANSFORM_TRUNCATE,
    FLOE_ICE_TRANSFORM_YEAR,
    FLOE_ICE_TRANSFORM_MONTH,
    FLOE_ICE_TRANSFORM_DAY,
    FLOE_ICE_TRANSFORM_HOUR,
    FLOE_ICE_TRANSFORM_VOID,
    FLOE_ICE_TRANSFORM_UNKNOWN  /* a name floe does not know; never applied */
} floe_ice_transform_kind;

#define FLOE_ICE_TRANSFORM_NAME_MAX 64

typedef struct floe_ice_transform {
    floe_ice_transform_kind kind;
    int32_t param;                               /* N for bucket, W for truncate */
    char name[FLOE_ICE_TRANSFORM_NAME_MAX];      /* UNKNOWN: the text as read */
} floe_ice_transform;

floe_ice_transform floe_ice_transform_make(floe_ice_transform_kind kind, int32_t param);

/* Parse "identity", "bucket[16]", "truncate[4]", "year", "month", "day",
 * "hour", "void" (case-insensitive, as Java).  Other well-formed names
 * become FLOE_ICE_TRANSFORM_UNKNOWN (readers must tolerate them); a known
 * name with a bad parameter ("bucket[0]", "truncate[x]") is an error. */
floe_status floe_ice_transform_parse(const char *text, floe_ice_transform *out) FLOE_WARN_UNUSED;
/* The canonical text ("bucket[16]"); returns `buf`. */
const char *floe_ice_transform_format(const floe_ice_transform *t, char *buf, size_t cap);
bool floe_ice_transform_equals(const floe_ice_transform *a, const floe_ice_transform *b);

/* Can `t` apply to a column of type `src` (per the spec's table)? */
bool floe_ice_transform_can_apply(const floe_ice_transform *t, const floe_ice_type *src);
/* The partition value type `t` produces from `src`, newly allocated.
 * FLOE_ERR_INVALID_ARGUMENT if the transform cannot apply. */
floe_status floe_ice_transform_result_type(const floe_ice_transform *t, const floe_ice_type *src,
                                           floe_ice_type **out) FLOE_WARN_UNUSED;
/* The result type id alone (no allocation), or -1 if it cannot apply. */
int floe_ice_transform_result_type_id(const floe_ice_transform *t, floe_ice_type_id src);

/* Apply to one value.  `in`'s type must be one the transform applies to.
 * Null in, null out. */
floe_status floe_ice_transform_apply(const floe_ice_transform *t, const floe_ice_value *in,
                                     floe_ice_value *out) FLOE_WARN_UNUSED;

/* The human-readable form of a partition value produced by `t`, as used in
 * partition paths (Iceberg Java's toHumanString): year "2017", month
 * "2017-12", day "2017-12-01", hour "2017-12-01-10", identity dates and
 * timestamps in ISO form, binary/fixed in base64, null as "null".
 * floe_malloc'd. */
floe_status floe_ice_transform_human_string(const floe_ice_transform *t, const floe_ice_value *partition_value,
                                            char **out) FLOE_WARN_UNUSED;

/* Does a <= b imply t(a) <= t(b)?  (identity, truncate, year, month, day,
 * hour — not bucket, void or unknown.)  Used by predicate projection. */
bool floe_ice_transform_preserves_order(const floe_ice_transform *t);

/* Does data ordered by `a` (of one source column) also come ordered by
 * `b`?  True when a == b, or a is identity and b preserves order; finer
 * times order coarser ones (hour -> day -> month -> year); truncate[W] of
 * numbers orders truncate[W'] when W' is a multiple of W; truncate[L] of
 * strings/binary orders truncate[L'] when L >= L'.  (Java's
 * satisfiesOrderOf; used to decide whether a required sort already holds.) */
bool floe_ice_transform_satisfies_order_of(const floe_ice_transform *a, const floe_ice_transform *b,
                                           floe_ice_type_id source_type);

/* ---- batch kernels -------------------------------------------------------
 * Whole columns at a time, over plain value buffers as the Arrow layout
 * keeps them (the caller carries validity: results in null slots are
 * meaningless but computed harmlessly).  No allocation.
 *
 * Fixed-width sources: int and date are int32_t; long, time and timestamps
 * are int64_t.  Results: bucket/year/month/day/hour write int32_t; identity
 * and truncate write the source width.  FLOE_ERR_TYPE if the transform does
 * not apply to `src` (or is void/unknown, or `src` is not fixed-width). */
floe_status floe_ice_transform_apply_fixed(const floe_ice_transform *t, floe_ice_type_id src, const void *values,
                                           size_t n, void *out) FLOE_WARN_UNUSED;
/* bucket[N] of n variable-width values (string, binary) given Arrow int32
 * offsets (n + 1 of them) into `data`; or of n fixed-size values of `width`
 * bytes each when `offsets` is NULL (fixed[L], uuid). */
void floe_ice_bucket_bytes(int32_t num_buckets, const int32_t *offsets, const uint8_t *data, size_t width,
                           size_t n, int32_t *out);
/* truncate[W] of n variable-width values: the byte length each keeps (by
 * code points for strings, bytes for binary); the caller builds offsets. */
void floe_ice_truncate_bytes_lengths(int32_t width, bool is_string, const int32_t *offsets, const uint8_t *data,
                                     size_t n, int32_t *out_len);

/* Scalar kernels for batch code (no checks; floor semantics). */
int32_t floe_ice_days_to_year(int32_t days);
int32_t floe_ice_days_to_month(int32_t days);
int32_t floe_ice_micros_to_year(int64_t micros);
int32_t floe_ice_micros_to_month(int64_t micros);
int32_t floe_ice_micros_to_day(int64_t micros);
int32_t floe_ice_micros_to_hour(int64_t micros);
static inline int64_t floe_ice_truncate_long(int64_t v, int64_t w) {
    int64_t r = v % w;
    if (r < 0) r += w;
    return v - r;
}
/* Byte length of the first `w` code points of UTF-8 `s` (at most `len`). */
size_t floe_ice_utf8_prefix_len(const uint8_t *s, size_t len, int32_t w);

#ifdef __cplusplus
}
#endif
#endif
