/*
 * murmur3.c — Murmur3 x86_32 and Iceberg's per-type bucket hashes (see
 * murmur3.h).  Written from the published algorithm: 4-byte little-endian
 * blocks mixed with c1/c2 and rotations, a tail, then the fmix32 finalizer.
 */
#include "iceberg/spec/murmur3.h"

#include <math.h>
#include <string.h>

#include "iceberg/spec/ice_internal.h"

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

int32_t floe_murmur3_32(const void *data, size_t len, uint32_t seed) {
    const uint8_t *p = data;
    const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
    uint32_t h = seed;
    size_t nblocks = len / 4;
    for (size_t i = 0; i < nblocks; i++) {
        const uint8_t *b = p + 4 * i;
        uint32_t k = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64;
    }
    const uint8_t *tail = p + 4 * nblocks;
    uint32_t k = 0;
    switch (len & 3) {
    case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1:
        k ^= tail[0];
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
    }
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return (int32_t)h;
}

int32_t floe_ice_hash_long(int64_t v) {
    uint8_t b[8];
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(u >> (8 * i));
    return floe_murmur3_32(b, 8, 0);
}

int32_t floe_ice_hash_bytes(const void *data, size_t len) { return floe_murmur3_32(data, len, 0); }

int32_t floe_ice_hash_decimal(floe_int128 unscaled) {
    uint8_t b[16];
    size_t n = floe_ice_int128_min_bytes(unscaled, b);
    return floe_murmur3_32(b, n, 0);
}

int32_t floe_ice_hash_double(double v) {
    /* doubleToLongBits with canonical NaN and -0.0 folded into 0.0. */
    int64_t bits;
    if (isnan(v)) bits = 0x7ff8000000000000LL;
    else if (v == 0.0) bits = 0;
    else memcpy(&bits, &v, 8);
    return floe_ice_hash_long(bits);
}

floe_status floe_ice_hash_value(const floe_ice_value *v, int32_t *out) {
    if (v->is_null)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot hash a null %s", floe_ice_type_id_name(v->type));
    switch (v->type) {
    case FLOE_ICE_BOOLEAN: *out = floe_ice_hash_int(v->v.b ? 1 : 0); return NULL;
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE: *out = floe_ice_hash_int(v->v.i32); return NULL;
    case FLOE_ICE_LONG:
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ: *out = floe_ice_hash_long(v->v.i64); return NULL;
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS: *out = floe_ice_hash_long(floe_ice_floordiv(v->v.i64, 1000)); return NULL;
    case FLOE_ICE_FLOAT: *out = floe_ice_hash_double((double)v->v.f32); return NULL;
    case FLOE_ICE_DOUBLE: *out = floe_ice_hash_double(v->v.f64); return NULL;
    case FLOE_ICE_DECIMAL: *out = floe_ice_hash_decimal(v->v.dec); return NULL;
    case FLOE_ICE_UUID: *out = floe_ice_hash_bytes(v->v.uuid, 16); return NULL;
    case FLOE_ICE_STRING:
    case FLOE_ICE_FIXED:
    case FLOE_ICE_BINARY: *out = floe_ice_hash_bytes(v->v.bytes.data, v->v.bytes.len); return NULL;
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "hashing type '%s' is not supported", floe_ice_type_id_name(v->type));
    }
}
