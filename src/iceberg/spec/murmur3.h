/*
 * murmur3.h — 32-bit Murmur3 (x86 variant, seed 0) and the Iceberg bucket
 * hashes of each type, as the spec's Appendix B defines them.
 *
 * Hash equalities the spec relies on: int and long hash alike (both as an
 * 8-byte little-endian long), date hashes as its day count widened to long,
 * time and timestamps as microseconds (nanosecond timestamps are floored to
 * microseconds first), decimals as the minimum two's complement big-endian
 * bytes of the unscaled value (so -128 is the single byte 0x80), strings as
 * UTF-8 bytes, uuids as 16 big-endian bytes, fixed and binary as-is.
 */
#ifndef FLOE_ICEBERG_MURMUR3_H
#define FLOE_ICEBERG_MURMUR3_H

#include <stddef.h>
#include <stdint.h>

#include "floe/iceberg_value.h"
#include "floe/status.h"

/* Murmur3 x86_32 of `len` bytes, returned as Java's signed int. */
int32_t floe_murmur3_32(const void *data, size_t len, uint32_t seed);

int32_t floe_ice_hash_long(int64_t v);            /* int, long, time, timestamps */
static inline int32_t floe_ice_hash_int(int32_t v) { return floe_ice_hash_long(v); }
int32_t floe_ice_hash_bytes(const void *data, size_t len);
int32_t floe_ice_hash_decimal(floe_int128 unscaled);
int32_t floe_ice_hash_double(double v);          /* float hashes as (double) */

/* Hash a non-null value by its type.  FLOE_ERR_UNSUPPORTED for types with no
 * hash (unknown, variant, geometry, geography); FLOE_ERR_INVALID_ARGUMENT
 * for a null. */
floe_status floe_ice_hash_value(const floe_ice_value *v, int32_t *out) FLOE_WARN_UNUSED;

/* (hash & INT32_MAX) % n, the spec's bucket_N. */
static inline int32_t floe_ice_bucket_of_hash(int32_t hash, int32_t n) {
    return (int32_t)(((uint32_t)hash & 0x7fffffffU) % (uint32_t)n);
}

#endif
