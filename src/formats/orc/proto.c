/*
 * proto.c — protobuf wire-format primitives (see proto.h).
 */
#include "formats/orc/proto.h"

#include <string.h>

bool floe_orc_pb_varint(floe_orc_pb *r, uint64_t *v) {
    const uint8_t *p = r->p;
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (p >= r->end) return false;
        uint8_t b = *p++;
        if (shift == 63 && b > 1) return false;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            r->p = p;
            *v = x;
            return true;
        }
    }
    return false;
}

bool floe_orc_pb_tag(floe_orc_pb *r, uint32_t *field, int *wire) {
    uint64_t t;
    floe_orc_pb save = *r;
    if (!floe_orc_pb_varint(r, &t)) return false;
    if ((t >> 3) == 0 || (t >> 3) > 0x1fffffff) {
        *r = save;
        return false;
    }
    *field = (uint32_t)(t >> 3);
    *wire = (int)(t & 7);
    return true;
}

bool floe_orc_pb_bytes(floe_orc_pb *r, const uint8_t **data, size_t *len) {
    floe_orc_pb save = *r;
    uint64_t n;
    if (!floe_orc_pb_varint(r, &n)) return false;
    if (n > (uint64_t)(r->end - r->p)) {
        *r = save;
        return false;
    }
    *data = r->p;
    *len = (size_t)n;
    r->p += n;
    return true;
}

bool floe_orc_pb_fixed64(floe_orc_pb *r, uint64_t *v) {
    if (r->end - r->p < 8) return false;
    uint64_t x;
    memcpy(&x, r->p, 8);
    r->p += 8;
    *v = x;
    return true;
}

bool floe_orc_pb_fixed32(floe_orc_pb *r, uint32_t *v) {
    if (r->end - r->p < 4) return false;
    uint32_t x;
    memcpy(&x, r->p, 4);
    r->p += 4;
    *v = x;
    return true;
}

bool floe_orc_pb_skip(floe_orc_pb *r, int wire) {
    uint64_t v;
    const uint8_t *d;
    size_t n;
    uint32_t w;
    switch (wire) {
    case FLOE_ORC_WIRE_VARINT: return floe_orc_pb_varint(r, &v);
    case FLOE_ORC_WIRE_I64: return floe_orc_pb_fixed64(r, &v);
    case FLOE_ORC_WIRE_LEN: return floe_orc_pb_bytes(r, &d, &n);
    case FLOE_ORC_WIRE_I32: return floe_orc_pb_fixed32(r, &w);
    default: return false; /* groups (3, 4) and 6, 7 */
    }
}

bool floe_orc_pb_scalar(floe_orc_pb *r, int wire, uint64_t *v) {
    uint32_t w;
    switch (wire) {
    case FLOE_ORC_WIRE_VARINT: return floe_orc_pb_varint(r, v);
    case FLOE_ORC_WIRE_I64: return floe_orc_pb_fixed64(r, v);
    case FLOE_ORC_WIRE_I32:
        if (!floe_orc_pb_fixed32(r, &w)) return false;
        *v = w;
        return true;
    default: return false;
    }
}

int64_t floe_orc_pb_count(const uint8_t *data, size_t len, uint32_t field, bool packed_varints) {
    floe_orc_pb r = floe_orc_pb_init(data, len);
    int64_t n = 0;
    while (!floe_orc_pb_done(&r)) {
        uint32_t f;
        int w;
        if (!floe_orc_pb_tag(&r, &f, &w)) return -1;
        if (f == field && w == FLOE_ORC_WIRE_LEN && packed_varints) {
            const uint8_t *d;
            size_t l;
            if (!floe_orc_pb_bytes(&r, &d, &l)) return -1;
            for (size_t i = 0; i < l; i++) n += !(d[i] & 0x80);
            continue;
        }
        if (f == field) n++;
        if (!floe_orc_pb_skip(&r, w)) return -1;
    }
    return n;
}

bool floe_orc_pb_repeated_u64(floe_orc_pb *r, int wire, uint64_t *out, size_t cap, size_t *n) {
    if (wire == FLOE_ORC_WIRE_LEN) {
        const uint8_t *d;
        size_t l;
        if (!floe_orc_pb_bytes(r, &d, &l)) return false;
        floe_orc_pb sub = floe_orc_pb_init(d, l);
        while (!floe_orc_pb_done(&sub)) {
            uint64_t v;
            if (*n >= cap || !floe_orc_pb_varint(&sub, &v)) return false;
            out[(*n)++] = v;
        }
        return true;
    }
    uint64_t v;
    if (*n >= cap || !floe_orc_pb_scalar(r, wire, &v)) return false;
    out[(*n)++] = v;
    return true;
}
