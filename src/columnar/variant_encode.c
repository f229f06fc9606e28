/*
 * variant_encode.c — writing the Variant binary encoding (see
 * floe/variant.h): primitives, short and long strings, objects and arrays
 * from already-encoded element values, and metadata dictionaries.
 *
 * Used where floe makes variants from other columns — reassembling
 * shredded Parquet variants (formats/parquet/variant_unshred.c) — and by
 * tests.  Objects and arrays take the smallest offset, id and count widths
 * their contents allow, as the spec's writers do.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/variant.h"

static void wr_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static int width_for(uint64_t max) {
    return max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFFFF ? 3 : 4;
}

static floe_status put(floe_buf *b, uint8_t header, const void *data, size_t n) {
    FLOE_TRY(floe_buf_append_byte(b, header));
    return n ? floe_buf_append(b, data, n) : NULL;
}

static uint8_t prim(int id) { return (uint8_t)(id << 2); }

floe_status floe_variant_put_null(floe_buf *b) { return put(b, prim(FLOE_VARIANT_NULL), NULL, 0); }

floe_status floe_variant_put_bool(floe_buf *b, bool v) {
    return put(b, prim(v ? FLOE_VARIANT_TRUE : FLOE_VARIANT_FALSE), NULL, 0);
}

floe_status floe_variant_put_int(floe_buf *b, floe_variant_kind k, int64_t v) {
    uint8_t d[8];
    int n;
    switch (k) {
    case FLOE_VARIANT_INT8: n = 1; break;
    case FLOE_VARIANT_INT16: n = 2; break;
    case FLOE_VARIANT_INT32: case FLOE_VARIANT_DATE: n = 4; break;
    case FLOE_VARIANT_INT64: case FLOE_VARIANT_TIME: case FLOE_VARIANT_TIMESTAMP_TZ:
    case FLOE_VARIANT_TIMESTAMP_NTZ: case FLOE_VARIANT_TIMESTAMP_TZ_NS: case FLOE_VARIANT_TIMESTAMP_NTZ_NS:
        n = 8;
        break;
    default:
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "variant %s is not an integer kind", floe_variant_kind_name(k));
    }
    if (n < 8) {
        int64_t lim = INT64_C(1) << (8 * n - 1);
        if (v < -lim || v >= lim)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%lld does not fit a variant %s", (long long)v,
                              floe_variant_kind_name(k));
    }
    wr_le(d, (uint64_t)v, n);
    return put(b, prim(k), d, (size_t)n);
}

floe_status floe_variant_put_float(floe_buf *b, float v) {
    uint32_t bits;
    uint8_t d[4];
    memcpy(&bits, &v, 4);
    wr_le(d, bits, 4);
    return put(b, prim(FLOE_VARIANT_FLOAT), d, 4);
}

floe_status floe_variant_put_double(floe_buf *b, double v) {
    uint64_t bits;
    uint8_t d[8];
    memcpy(&bits, &v, 8);
    wr_le(d, bits, 8);
    return put(b, prim(FLOE_VARIANT_DOUBLE), d, 8);
}

floe_status floe_variant_put_decimal(floe_buf *b, floe_variant_kind k, floe_decimal128 u, int32_t scale) {
    if (scale < 0 || scale > 38)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "variant decimal scale %d is outside 0..38", (int)scale);
    uint8_t d[17];
    d[0] = (uint8_t)scale;
    int n;
    if (k == FLOE_VARIANT_DECIMAL16) {
        wr_le(d + 1, u.lo, 8);
        wr_le(d + 9, (uint64_t)u.hi, 8);
        n = 16;
    } else if (k == FLOE_VARIANT_DECIMAL8 || k == FLOE_VARIANT_DECIMAL4) {
        n = k == FLOE_VARIANT_DECIMAL8 ? 8 : 4;
        int64_t x = (int64_t)u.lo;
        bool fits = u.hi == (x < 0 ? -1 : 0) && (n == 8 || (x >= INT32_MIN && x <= INT32_MAX));
        if (!fits)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unscaled value does not fit a variant %s",
                              floe_variant_kind_name(k));
        wr_le(d + 1, (uint64_t)x, n);
    } else {
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "variant %s is not a decimal kind", floe_variant_kind_name(k));
    }
    return put(b, prim(k), d, (size_t)n + 1);
}

static floe_status put_sized(floe_buf *b, int id, const void *p, size_t n) {
    if (n > UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "variant value of %zu bytes is too long", n);
    uint8_t d[4];
    wr_le(d, n, 4);
    FLOE_TRY(put(b, prim(id), d, 4));
    return n ? floe_buf_append(b, p, n) : NULL;
}

floe_status floe_variant_put_string(floe_buf *b, const void *p, size_t n) {
    if (n < 64) return put(b, (uint8_t)(n << 2 | 1), p, n);
    return put_sized(b, FLOE_VARIANT_STRING, p, n);
}

floe_status floe_variant_put_binary(floe_buf *b, const void *p, size_t n) {
    return put_sized(b, FLOE_VARIANT_BINARY, p, n);
}

floe_status floe_variant_put_uuid(floe_buf *b, const uint8_t bytes[16]) {
    return put(b, prim(FLOE_VARIANT_UUID), bytes, 16);
}

/* Count, ids (objects only), offsets, then the values in field order. */
static floe_status put_nested(floe_buf *b, bool obj, const floe_variant_field_ref *f, const uint32_t *ends,
                              uint32_t n, const uint8_t *vals) {
    uint64_t total = 0, max_id = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += obj ? f[i].len : ends[i] - (i ? ends[i - 1] : 0);
        if (obj && f[i].id > max_id) max_id = f[i].id;
    }
    if (total > UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "variant %s of %llu bytes is too long",
                                              obj ? "object" : "array", (unsigned long long)total);
    int large = n > 255, nb = large ? 4 : 1, os = width_for(total), is = obj ? width_for(max_id) : 0;
    uint8_t header = obj ? (uint8_t)((large << 4 | (is - 1) << 2 | (os - 1)) << 2 | 2)
                         : (uint8_t)((large << 2 | (os - 1)) << 2 | 3);
    size_t head = 1 + (size_t)nb + (size_t)n * (size_t)is + ((size_t)n + 1) * (size_t)os;
    uint8_t *d = floe_buf_extend(b, head);
    if (!d) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory encoding a variant");
    *d++ = header;
    wr_le(d, n, nb);
    d += nb;
    if (obj)
        for (uint32_t i = 0; i < n; i++, d += is) wr_le(d, f[i].id, is);
    uint64_t off = 0;
    for (uint32_t i = 0; i <= n; i++, d += os) {
        wr_le(d, off, os);
        if (i < n) off += obj ? f[i].len : ends[i] - (i ? ends[i - 1] : 0);
    }
    if (obj) {
        for (uint32_t i = 0; i < n; i++) FLOE_TRY(floe_buf_append(b, vals + f[i].off, f[i].len));
    } else if (n) {
        FLOE_TRY(floe_buf_append(b, vals, ends[n - 1]));
    }
    return NULL;
}

floe_status floe_variant_put_object(floe_buf *b, const floe_variant_field_ref *f, uint32_t n, const uint8_t *vals,
                                    size_t vals_len) {
    for (uint32_t i = 0; i < n; i++)
        if ((uint64_t)f[i].off + f[i].len > vals_len)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "object field %u's value is outside the value bytes", i);
    return put_nested(b, true, f, NULL, n, vals);
}

floe_status floe_variant_put_array(floe_buf *b, const uint32_t *ends, uint32_t n, const uint8_t *vals,
                                   size_t vals_len) {
    for (uint32_t i = 0; i < n; i++)
        if (ends[i] < (i ? ends[i - 1] : 0) || ends[i] > vals_len)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "array element %u's end %u is out of order", i, ends[i]);
    return put_nested(b, false, NULL, ends, n, vals);
}

static int cmp_field(const void *x, const void *y) {
    const floe_variant_field_ref *a = x, *b = y;
    uint32_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = n ? memcmp(a->name, b->name, n) : 0;
    if (c) return c;
    return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

floe_status floe_variant_sort_fields(floe_variant_field_ref *f, uint32_t n) {
    if (n > 1) qsort(f, n, sizeof *f, cmp_field);
    for (uint32_t i = 1; i < n; i++)
        if (!cmp_field(&f[i - 1], &f[i]))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "variant object has two fields named '%.*s'",
                              (int)(f[i].name_len > 40 ? 40 : f[i].name_len), f[i].name);
    return NULL;
}

floe_status floe_variant_put_metadata(floe_buf *b, const floe_strview *names, uint32_t n, bool sorted) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += (uint64_t)names[i].len;
    if (total > UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "variant metadata is too long");
    int os = width_for(total > n ? total : n);
    FLOE_TRY(floe_buf_append_byte(b, (uint8_t)(1 | (sorted ? 0x10 : 0) | (os - 1) << 6)));
    uint8_t *d = floe_buf_extend(b, (size_t)os * ((size_t)n + 2));
    if (!d) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory encoding variant metadata");
    wr_le(d, n, os);
    d += os;
    uint64_t off = 0;
    for (uint32_t i = 0; i <= n; i++, d += os) {
        wr_le(d, off, os);
        if (i < n) off += (uint64_t)names[i].len;
    }
    for (uint32_t i = 0; i < n; i++) FLOE_TRY(floe_buf_append(b, names[i].data, (size_t)names[i].len));
    return NULL;
}
