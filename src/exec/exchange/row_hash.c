/*
 * row_hash.c — the key hash of Repartition, HashAggregate and the hash
 * joins (floe_hash_rows), and row equality that agrees with it.
 *
 * Every value is turned into 64 bits (integers sign-extended, floats by
 * their normalised bits, decimals by both halves, byte strings by
 * floe_hash_bytes) and finalised by floe_hash_u64 (base/hash.h), then
 * columns are folded in order with floe_hash_combine.  There is no seed: the same row
 * hashes the same in every process, which Repartition relies on to send
 * equal keys from different nodes to the same partition.
 *
 * Floats: -0.0 hashes (and compares) as 0.0 and every NaN as one NaN, the
 * grouping semantics of SQL.  int32 5 and int64 5 need not hash equal: the
 * planner casts join and group keys to one type first.
 */
#include "floe/interval.h"
#include "exec/exchange/row_hash.h"

#include <math.h>
#include <string.h>

#include "floe/exec_ops.h"

static inline uint64_t hash_bytes(const void *p, size_t n) { return floe_hash_bytes(p, n, FLOE_HASH_SEED); }

static inline uint64_t hash_double(double d) {
    uint64_t bits;
    if (d == 0) d = 0.0; /* -0.0 groups with 0.0 */
    if (isnan(d)) bits = UINT64_C(0x7ff8000000000000);
    else memcpy(&bits, &d, 8);
    return floe_hash_u64(bits);
}

static inline uint64_t hash_float(float f) {
    uint32_t bits;
    if (f == 0) f = 0.0f;
    if (isnan(f)) bits = UINT32_C(0x7fc00000);
    else memcpy(&bits, &f, 4);
    return floe_hash_u64(bits);
}

static inline uint64_t hash_decimal(floe_decimal128 v) {
    return floe_hash_combine(floe_hash_u64(v.lo), (uint64_t)v.hi);
}

bool floe_hash_type_supported(const floe_type *t) {
    /* A variant has many encodings of one value (Iceberg defines no hash
     * for it): never a key. */
    if (t->id == FLOE_TYPE_LIST || t->id == FLOE_TYPE_MAP || t->id == FLOE_TYPE_VARIANT) return false;
    if (t->id == FLOE_TYPE_STRUCT)
        for (int32_t i = 0; i < t->n_children; i++)
            if (!floe_hash_type_supported(t->children[i].type)) return false;
    return true;
}

/* Store (first) or fold in (not first) the hash v of row k. */
#define PUT(k, v) (h[k] = first ? (v) : floe_hash_combine(h[k], (v)))

/* Hash logical slots [start, start + n) of `a` into h[0..n). */
static floe_status hash_column(const floe_array *a, int64_t start, int64_t n, uint64_t *h, bool first) {
    const uint8_t *valid = a->validity ? a->validity->data : NULL;
    int64_t off = a->offset + start;
    const floe_type *t = a->type;
    switch (t->id) {
    case FLOE_TYPE_NULL:
        for (int64_t k = 0; k < n; k++) PUT(k, FLOE_HASH_NULL);
        return NULL;
    case FLOE_TYPE_BOOL: {
        const uint8_t *bits = a->buffers[0]->data;
        for (int64_t k = 0; k < n; k++) {
            uint64_t v = (valid && !floe_bit_get(valid, off + k)) ? FLOE_HASH_NULL
                                                                   : floe_hash_u64(floe_bit_get(bits, off + k));
            PUT(k, v);
        }
        return NULL;
    }
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_DATE32: {
        const int32_t *v = (const int32_t *)a->buffers[0]->data + off;
        if (!valid) {
            for (int64_t k = 0; k < n; k++) PUT(k, floe_hash_u64((uint64_t)(int64_t)v[k]));
        } else {
            for (int64_t k = 0; k < n; k++)
                PUT(k, floe_bit_get(valid, off + k) ? floe_hash_u64((uint64_t)(int64_t)v[k]) : FLOE_HASH_NULL);
        }
        return NULL;
    }
    case FLOE_TYPE_INT64:
    case FLOE_TYPE_TIME64_US:
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: {
        const int64_t *v = (const int64_t *)a->buffers[0]->data + off;
        if (!valid) {
            for (int64_t k = 0; k < n; k++) PUT(k, floe_hash_u64((uint64_t)v[k]));
        } else {
            for (int64_t k = 0; k < n; k++)
                PUT(k, floe_bit_get(valid, off + k) ? floe_hash_u64((uint64_t)v[k]) : FLOE_HASH_NULL);
        }
        return NULL;
    }
    case FLOE_TYPE_FLOAT32: {
        const float *v = (const float *)a->buffers[0]->data + off;
        for (int64_t k = 0; k < n; k++)
            PUT(k, (valid && !floe_bit_get(valid, off + k)) ? FLOE_HASH_NULL : hash_float(v[k]));
        return NULL;
    }
    case FLOE_TYPE_FLOAT64: {
        const double *v = (const double *)a->buffers[0]->data + off;
        for (int64_t k = 0; k < n; k++)
            PUT(k, (valid && !floe_bit_get(valid, off + k)) ? FLOE_HASH_NULL : hash_double(v[k]));
        return NULL;
    }
    case FLOE_TYPE_DECIMAL128: {
        const floe_decimal128 *v = (const floe_decimal128 *)a->buffers[0]->data + off;
        for (int64_t k = 0; k < n; k++)
            PUT(k, (valid && !floe_bit_get(valid, off + k)) ? FLOE_HASH_NULL : hash_decimal(v[k]));
        return NULL;
    }
    case FLOE_TYPE_INTERVAL: { /* equal totals hash alike: '1 mon' = '30 days' */
        const floe_interval *v = (const floe_interval *)a->buffers[0]->data + off;
        for (int64_t k = 0; k < n; k++)
            PUT(k, (valid && !floe_bit_get(valid, off + k)) ? FLOE_HASH_NULL : floe_interval_hash(v[k]));
        return NULL;
    }
    case FLOE_TYPE_FIXED_BINARY:
    case FLOE_TYPE_UUID: {
        int32_t w = t->byte_width;
        const uint8_t *v = a->buffers[0]->data + off * (int64_t)w;
        for (int64_t k = 0; k < n; k++)
            PUT(k, (valid && !floe_bit_get(valid, off + k)) ? FLOE_HASH_NULL : hash_bytes(v + k * w, (size_t)w));
        return NULL;
    }
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: {
        const int32_t *o = (const int32_t *)a->buffers[0]->data + off;
        const uint8_t *d = a->buffers[1] ? a->buffers[1]->data : NULL;
        for (int64_t k = 0; k < n; k++) {
            uint64_t v = (valid && !floe_bit_get(valid, off + k)) ? FLOE_HASH_NULL
                                                                   : hash_bytes(d + o[k], (size_t)(o[k + 1] - o[k]));
            PUT(k, v);
        }
        return NULL;
    }
    case FLOE_TYPE_STRUCT: {
        /* Fields folded in order, then the struct's own null replaces the
         * row's contribution: a NULL struct hashes like any NULL. */
        uint64_t tmp[256];
        for (int64_t b = 0; b < n; b += 256) {
            int64_t m = n - b < 256 ? n - b : 256;
            for (int64_t k = 0; k < m; k++) tmp[k] = UINT64_C(0x51afd7ed558ccd);
            for (int32_t c = 0; c < a->n_children; c++)
                FLOE_TRY(hash_column(a->children[c], off + b, m, tmp, false));
            for (int64_t k = 0; k < m; k++) {
                uint64_t v = (valid && !floe_bit_get(valid, off + b + k)) ? FLOE_HASH_NULL : tmp[k];
                PUT(b + k, v);
            }
        }
        return NULL;
    }
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "cannot hash values of type %s as keys", floe_type_id_name(t->id));
    }
}
#undef PUT

floe_status floe_hash_rows(floe_array *const *cols, int32_t n_cols, int64_t n_rows, uint64_t *hashes) {
    if (n_cols == 0) {
        for (int64_t k = 0; k < n_rows; k++) hashes[k] = FLOE_HASH_NULL;
        return NULL;
    }
    for (int32_t c = 0; c < n_cols; c++) {
        if (cols[c]->length < n_rows)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "hashing %lld rows of a key column with %lld",
                              (long long)n_rows, (long long)cols[c]->length);
        FLOE_TRY(hash_column(cols[c], 0, n_rows, hashes, c == 0));
    }
    return NULL;
}

uint64_t floe_hash_value(const floe_array *a, int64_t i) {
    uint64_t h = FLOE_HASH_NULL;
    floe_status st = hash_column(a, i, 1, &h, true);
    if (st) {
        floe_status_free(st);
        return FLOE_HASH_NULL;
    }
    return h;
}

static inline bool doubles_equal(double x, double y) {
    if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    return x == y;
}

bool floe_values_equal(const floe_array *a, int64_t i, const floe_array *b, int64_t j) {
    switch (a->type->id) {
    case FLOE_TYPE_NULL:
        return true;
    case FLOE_TYPE_BOOL:
        return floe_array_get_bool(a, i) == floe_array_get_bool(b, j);
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_DATE32:
        return floe_array_get_int32(a, i) == floe_array_get_int32(b, j);
    case FLOE_TYPE_FLOAT32:
        return doubles_equal(floe_array_get_float(a, i), floe_array_get_float(b, j));
    case FLOE_TYPE_FLOAT64:
        return doubles_equal(floe_array_get_double(a, i), floe_array_get_double(b, j));
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: {
        floe_strview x = floe_array_get_str(a, i), y = floe_array_get_str(b, j);
        return x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, (size_t)x.len) == 0);
    }
    case FLOE_TYPE_STRUCT:
        for (int32_t c = 0; c < a->n_children; c++) {
            const floe_array *x = a->children[c], *y = b->children[c];
            bool xn = floe_array_is_null(x, a->offset + i), yn = floe_array_is_null(y, b->offset + j);
            if (xn != yn) return false;
            if (!xn && !floe_values_equal(x, a->offset + i, y, b->offset + j)) return false;
        }
        return true;
    case FLOE_TYPE_INTERVAL: {
        floe_interval x, y;
        memcpy(&x, floe_array_get_fixed(a, i), sizeof x);
        memcpy(&y, floe_array_get_fixed(b, j), sizeof y);
        return floe_interval_cmp(x, y) == 0;
    }
    default:
        if (a->type->byte_width == 8)
            return floe_array_get_int64(a, i) == floe_array_get_int64(b, j);
        if (a->type->byte_width > 0)
            return memcmp(floe_array_get_fixed(a, i), floe_array_get_fixed(b, j), (size_t)a->type->byte_width) == 0;
        return false;
    }
}

bool floe_rows_equal(floe_array *const *a, int64_t i, floe_array *const *b, int64_t j, int32_t n,
                     bool null_equals_null) {
    for (int32_t c = 0; c < n; c++) {
        bool xn = floe_array_is_null(a[c], i), yn = floe_array_is_null(b[c], j);
        if (xn || yn) {
            if (!(null_equals_null && xn && yn)) return false;
            continue;
        }
        if (!floe_values_equal(a[c], i, b[c], j)) return false;
    }
    return true;
}

bool floe_row_has_null(floe_array *const *cols, int32_t n, int64_t i) {
    for (int32_t c = 0; c < n; c++)
        if (floe_array_is_null(cols[c], i)) return true;
    return false;
}
