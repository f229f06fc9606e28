/*
 * roaring.h — Roaring bitmaps in their portable serialization, as Iceberg
 * deletion vectors store them.
 *
 * Only what deletion vectors need: decoding a 32-bit portable bitmap
 * (array, bitmap and run containers, with or without the run-container
 * cookie) and the 64-bit portable layout (a little-endian uint64 count of
 * 32-bit bitmaps, each preceded by its uint32 high key), straight into a
 * sorted array of int64 positions; and the reverse.  Iceberg positions are
 * non-negative int64s, so a high key above INT32_MAX is rejected.
 *
 * Every read is bounds-checked; bad bytes give FLOE_ERR_CORRUPT with the
 * byte offset (relative to the start of the bytes given).
 */
#ifndef FLOE_ICEBERG_ROARING_H
#define FLOE_ICEBERG_ROARING_H

#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"
#include "base/buffer.h"

/* A growable array of int64 positions (floe_malloc'd). */
typedef struct floe_i64vec {
    int64_t *v;
    size_t n, cap;
} floe_i64vec;

void floe_i64vec_free(floe_i64vec *a);
floe_status floe_i64vec_reserve(floe_i64vec *a, size_t extra) FLOE_WARN_UNUSED;
floe_status floe_i64vec_push(floe_i64vec *a, int64_t x) FLOE_WARN_UNUSED;

/* Decode a 32-bit portable bitmap at data[0..len); append (high << 32 | v)
 * for each member v, ascending, to `out`; *consumed = its size in bytes. */
floe_status floe_roaring32_decode(const uint8_t *data, size_t len, uint32_t high, floe_i64vec *out,
                                  size_t *consumed) FLOE_WARN_UNUSED;

/* Decode a 64-bit portable bitmap that must span exactly len bytes; append
 * its members, ascending, to `out`. */
floe_status floe_roaring64_decode(const uint8_t *data, size_t len, floe_i64vec *out) FLOE_WARN_UNUSED;

/* Encode strictly ascending non-negative positions as a 64-bit portable
 * bitmap appended to `out` (array, bitmap or run containers, whichever is
 * smallest, as CRoaring's run optimisation does). */
floe_status floe_roaring64_encode(const int64_t *pos, size_t n, floe_buf *out) FLOE_WARN_UNUSED;

#endif
