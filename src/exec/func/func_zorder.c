/*
 * func_zorder.c — iceberg_zorder(a, b, ...): the Z-order key Iceberg
 * Java's zorder rewrite sorts by (ZOrderByteUtils), as binary.
 *
 * Each argument becomes 8 order-preserving bytes — integers, dates, times
 * and timestamps as their 64-bit value with the sign bit flipped
 * (big-endian); floats and doubles as their IEEE bits made to sort as the
 * numbers do (negative: every bit flipped, else the sign bit); decimals as
 * doubles; strings and binaries as their first 8 bytes, zero-padded;
 * booleans as 0 / 1; NULL as 8 zero bytes (first) — and the key
 * interleaves their bits, most significant first, one bit of each argument
 * in turn.  Sorting by the key (memcmp order) clusters rows close in every
 * argument at once.  Never NULL.
 */
#include <string.h>

#include "exec/func/functions.h"
#include "floe/memory.h"

#define ZORDER_BYTES 8

static floe_status type_zorder(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                               int32_t n, floe_type **out) {
    (void)args;
    for (int32_t i = 0; i < n; i++)
        if (floe_type_is_nested(t[i])) return fn_type_error(def, t, n);
    *out = floe_type_primitive(FLOE_TYPE_BINARY);
    return NULL;
}

static void put_be64(uint8_t *p, uint64_t v) {
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

static uint64_t ordered_double(double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return (bits & 0x8000000000000000ULL) ? ~bits : bits | 0x8000000000000000ULL;
}

/* The 8 ordered bytes of slot i of `a`. */
static void ordered_bytes(const floe_array *a, int64_t i, uint8_t *out) {
    memset(out, 0, ZORDER_BYTES);
    if (fn_null(a, i)) return;
    int64_t at = fn_at(a, i);
    switch (a->type->id) {
    case FLOE_TYPE_BOOL: out[ZORDER_BYTES - 1] = floe_array_get_bool(a, at) ? 1 : 0; return;
    case FLOE_TYPE_FLOAT32: put_be64(out, ordered_double((double)((const float *)floe_array_values(a))[at])); return;
    case FLOE_TYPE_FLOAT64: put_be64(out, ordered_double(((const double *)floe_array_values(a))[at])); return;
    case FLOE_TYPE_DECIMAL128: put_be64(out, ordered_double(fn_get_f64(a, i))); return;
    case FLOE_TYPE_STRING:
    case FLOE_TYPE_BINARY: {
        floe_strview v = floe_array_get_str(a, at);
        memcpy(out, v.data, (size_t)(v.len < ZORDER_BYTES ? v.len : ZORDER_BYTES));
        return;
    }
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_DATE32:
    case FLOE_TYPE_INT64:
    case FLOE_TYPE_TIME64_US:
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ:
        put_be64(out, (uint64_t)fn_get_i64(a, i) ^ 0x8000000000000000ULL);
        return;
    default: {
        /* Other fixed-width values (uuid, fixed): their leading bytes. */
        int32_t w = a->type->byte_width;
        if (w > 0) memcpy(out, (const uint8_t *)floe_array_values(a) + at * w, (size_t)(w < 8 ? w : 8));
        return;
    }
    }
}

static floe_status eval_zorder(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                               floe_type *rtype, floe_array **out) {
    (void)def;
    fn_strwriter w;
    FLOE_TRY(fn_sw_init(&w, rows, NULL));
    size_t key_len = (size_t)n * ZORDER_BYTES;
    uint8_t *cols = floe_malloc(key_len + 1), *key = floe_malloc(key_len + 1);
    floe_status st = cols && key ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "iceberg_zorder");
    for (int64_t r = 0; !st && r < rows; r++) {
        for (int32_t c = 0; c < n; c++) ordered_bytes(args[c], r, cols + (size_t)c * ZORDER_BYTES);
        memset(key, 0, key_len);
        /* Output bit k takes bit (k / n) of argument (k % n). */
        for (size_t k = 0; k < key_len * 8; k++) {
            size_t c = k % (size_t)n, bit = k / (size_t)n;
            if (cols[c * ZORDER_BYTES + bit / 8] & (0x80 >> (bit % 8))) key[k / 8] |= (uint8_t)(0x80 >> (k % 8));
        }
        st = fn_sw_append(&w, key, key_len);
    }
    floe_free(cols);
    floe_free(key);
    if (!st) return fn_sw_finish(&w, rtype, out);
    fn_sw_free(&w);
    return st;
}

const floe_func_def floe_zorder_funcs[] = {
    {"iceberg_zorder", 1, -1, "iceberg_zorder(value, ...)", type_zorder, eval_zorder, 0, NULL, 0},
    {0},
};
