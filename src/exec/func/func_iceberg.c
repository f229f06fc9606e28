/*
 * func_iceberg.c — the iceberg_transform(transform, value) scalar
 * function: an Iceberg partition transform applied to a column, as the
 * write plan's projection computes partition values (exec_write.h) and
 * as any query may use it.
 *
 *   iceberg_transform('bucket[16]', x)   int        murmur3 bucket
 *   iceberg_transform('truncate[4]', x)  x's type   int/long/decimal/string/binary
 *   iceberg_transform('year'|'month'|'day'|'hour', t)  int
 *   iceberg_transform('identity', x)     x itself
 *   iceberg_transform('void', x)         NULL of x's type
 *
 * The transform text must be a constant; the type rule parses it and
 * checks it applies to the argument type (the spec's table), and the
 * kernel parses it once per batch.  Kernels are vectorized on the batch
 * kernels of iceberg_transform.h (fixed-width values, bucket of bytes,
 * truncate lengths); only decimals go value by value (still without
 * allocating).  A constant value argument is computed once and broadcast.
 */
#include <string.h>

#include "exec/func/functions.h"
#include "floe/iceberg_transform.h"

/* The Iceberg type id of a columnar type, or -1 (nested, or no Iceberg
 * equivalent). */
static int ice_id_of(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_BOOL: return FLOE_ICE_BOOLEAN;
    case FLOE_TYPE_INT32: return FLOE_ICE_INT;
    case FLOE_TYPE_INT64: return FLOE_ICE_LONG;
    case FLOE_TYPE_FLOAT32: return FLOE_ICE_FLOAT;
    case FLOE_TYPE_FLOAT64: return FLOE_ICE_DOUBLE;
    case FLOE_TYPE_DECIMAL128: return FLOE_ICE_DECIMAL;
    case FLOE_TYPE_DATE32: return FLOE_ICE_DATE;
    case FLOE_TYPE_TIME64_US: return FLOE_ICE_TIME;
    case FLOE_TYPE_TIMESTAMP_US: return FLOE_ICE_TIMESTAMP;
    case FLOE_TYPE_TIMESTAMP_US_TZ: return FLOE_ICE_TIMESTAMPTZ;
    case FLOE_TYPE_TIMESTAMP_NS: return FLOE_ICE_TIMESTAMP_NS;
    case FLOE_TYPE_TIMESTAMP_NS_TZ: return FLOE_ICE_TIMESTAMPTZ_NS;
    case FLOE_TYPE_STRING: return FLOE_ICE_STRING;
    case FLOE_TYPE_BINARY: return FLOE_ICE_BINARY;
    case FLOE_TYPE_FIXED_BINARY: return FLOE_ICE_FIXED;
    case FLOE_TYPE_UUID: return FLOE_ICE_UUID;
    default: return -1;
    }
}

/* Parse the transform text (a string slot); errors name the function and
 * the text. */
static floe_status parse_transform(const floe_func_def *def, floe_strview text, floe_ice_transform *out) {
    char buf[FLOE_ICE_TRANSFORM_NAME_MAX + 16];
    if ((size_t)text.len >= sizeof buf)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: unknown transform '%.*s...'", def->name, 32, text.data);
    memcpy(buf, text.data, (size_t)text.len);
    buf[text.len] = '\0';
    floe_status st = floe_ice_transform_parse(buf, out);
    if (st) return floe_status_wrap(st, "%s: bad transform '%s'", def->name, buf);
    if (out->kind == FLOE_ICE_TRANSFORM_UNKNOWN)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: unknown transform '%s'", def->name, buf);
    return NULL;
}

static floe_status type_transform(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                  int32_t n, floe_type **out) {
    if (!fn_is_string(t[0]) || floe_type_is_nested(t[1])) return fn_type_error(def, t, n);
    const floe_expr *e = args[0];
    if (e->kind != FLOE_EXPR_LITERAL || e->literal->type->id != FLOE_TYPE_STRING ||
        floe_array_is_null(e->literal, 0))
        return fn_need_const(def, 0, "transform, e.g. 'bucket[16]'");
    floe_ice_transform tr;
    FLOE_TRY(parse_transform(def, floe_array_get_str(e->literal, 0), &tr));
    bool to_int = tr.kind == FLOE_ICE_TRANSFORM_BUCKET || tr.kind == FLOE_ICE_TRANSFORM_YEAR ||
                  tr.kind == FLOE_ICE_TRANSFORM_MONTH || tr.kind == FLOE_ICE_TRANSFORM_DAY ||
                  tr.kind == FLOE_ICE_TRANSFORM_HOUR;
    if (t[1]->id != FLOE_TYPE_NULL) {
        int src = ice_id_of(t[1]);
        if (src < 0 || floe_ice_transform_result_type_id(&tr, (floe_ice_type_id)src) < 0) {
            floe_buf tb = FLOE_BUF_INIT;
            char xb[80];
            floe_status st = floe_type_to_string(t[1], &tb);
            if (!st)
                st = floe_error(FLOE_ERR_TYPE, "%s: transform '%s' cannot apply to a %s value", def->name,
                                floe_ice_transform_format(&tr, xb, sizeof xb), floe_buf_cstr(&tb));
            floe_buf_free(&tb);
            return st;
        }
    }
    /* day is an int (days from 1970-01-01) as the spec's table says. */
    *out = to_int ? floe_type_primitive(FLOE_TYPE_INT32) : floe_type_retain(t[1]);
    return NULL;
}

/* The validity of one argument's slots, copied (NULL when none are null). */
static floe_status copy_validity(const floe_array *a, floe_buffer **out) {
    *out = NULL;
    if (floe_array_null_count(a) == 0) return NULL;
    FLOE_TRY(floe_buffer_new((a->length + 7) / 8, out));
    floe_bitmap_copy((*out)->data, 0, a->validity->data, a->offset, a->length);
    return NULL;
}

/* Fixed-width sources (int, long, date, time, timestamps) through the
 * batch kernel; result width 4 for int results, else the source width. */
static floe_status eval_fixed(const floe_ice_transform *tr, floe_ice_type_id src, const floe_array *v,
                              floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    FLOE_TRY(copy_validity(v, &valid));
    floe_status st = floe_buffer_new(v->length * (int64_t)rt->byte_width, &vals);
    if (!st && v->length > 0)
        st = floe_ice_transform_apply_fixed(tr, src, floe_array_values(v), (size_t)v->length, vals->data);
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, v->length, valid, vals, out);
}

/* Decimals: value by value through the scalar transform (bucket hashes
 * the minimal big-endian bytes, truncate works on the unscaled value). */
static floe_status eval_decimal(const floe_ice_transform *tr, const floe_array *v,
                                floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    FLOE_TRY(copy_validity(v, &valid));
    floe_status st = floe_buffer_new(v->length * (int64_t)rt->byte_width, &vals);
    for (int64_t i = 0; i < v->length && !st; i++) {
        if (floe_array_is_null(v, i)) continue;
        floe_decimal128 d = floe_array_get_decimal(v, i);
        floe_int128 u = (floe_int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
        floe_ice_value in = floe_ice_decimal(u, v->type->scale), r;
        st = floe_ice_transform_apply(tr, &in, &r);
        if (st) break;
        if (r.type == FLOE_ICE_INT) {
            ((int32_t *)vals->data)[i] = r.v.i32;
        } else {
            floe_decimal128 o = {(uint64_t)(unsigned __int128)r.v.dec, (int64_t)(r.v.dec >> 64)};
            ((floe_decimal128 *)vals->data)[i] = o;
        }
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, v->length, valid, vals, out);
}

/* bucket[N] of strings, binaries (offsets) and fixed/uuid (width). */
static floe_status eval_bucket_bytes(const floe_ice_transform *tr, const floe_array *v, floe_type *rt,
                                     floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    FLOE_TRY(copy_validity(v, &valid));
    floe_status st = floe_buffer_new(v->length * 4, &vals);
    if (st) {
        floe_buffer_release(valid);
        return st;
    }
    if (v->length > 0) {
        if (floe_type_is_binary_like(v->type))
            floe_ice_bucket_bytes(tr->param, floe_array_offsets(v), v->buffers[1]->data, 0, (size_t)v->length,
                                  (int32_t *)vals->data);
        else
            floe_ice_bucket_bytes(tr->param, NULL, floe_array_values(v), (size_t)v->type->byte_width,
                                  (size_t)v->length, (int32_t *)vals->data);
    }
    return fn_make_fixed(rt, v->length, valid, vals, out);
}

/* truncate[W] of strings (by code point) and binaries (by byte): the kept
 * lengths from the batch kernel, then one copy into a new column. */
static floe_status eval_truncate_bytes(const floe_ice_transform *tr, const floe_array *v, floe_type *rt,
                                       floe_array **out) {
    int64_t n = v->length;
    floe_buffer *valid = NULL;
    int32_t *lens = floe_malloc((size_t)(n ? n : 1) * sizeof *lens);
    if (!lens) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "iceberg_transform: %lld rows", (long long)n);
    const int32_t *off = n ? floe_array_offsets(v) : NULL;
    const uint8_t *data = n ? v->buffers[1]->data : NULL;
    if (n)
        floe_ice_truncate_bytes_lengths(tr->param, v->type->id == FLOE_TYPE_STRING, off, data, (size_t)n, lens);
    fn_strwriter w;
    floe_status st = copy_validity(v, &valid);
    if (!st) st = fn_sw_init(&w, n, valid);
    if (st) {
        floe_free(lens);
        return st;
    }
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) total += lens[i];
    st = floe_buf_reserve(&w.data, (size_t)total);
    for (int64_t i = 0; i < n && !st; i++) st = fn_sw_append(&w, data + off[i], (size_t)lens[i]);
    floe_free(lens);
    if (st) {
        fn_sw_free(&w);
        return st;
    }
    return fn_sw_finish(&w, rt, out);
}

/* A one-slot result repeated `rows` times. */
static floe_status broadcast(floe_array *one, int64_t rows, floe_array **out) {
    uint32_t *idx = floe_calloc((size_t)(rows ? rows : 1), sizeof *idx);
    if (!idx) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "iceberg_transform: broadcasting %lld rows", (long long)rows);
    floe_status st = floe_array_take(one, idx, rows, out);
    floe_free(idx);
    return st;
}

static floe_status eval_transform(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                  floe_type *rt, floe_array **out) {
    (void)n;
    floe_ice_transform tr;
    *out = NULL;
    if (!fn_const(a[0]) || floe_array_is_null(a[0], 0)) return fn_need_const(def, 0, "transform");
    FLOE_TRY(parse_transform(def, floe_array_get_str(a[0], 0), &tr));
    const floe_array *v = a[1];
    floe_array *r = NULL;
    floe_status st = NULL;
    int src = ice_id_of(v->type);
    if (v->type->id == FLOE_TYPE_NULL || tr.kind == FLOE_ICE_TRANSFORM_VOID) {
        return floe_array_new_nulls(rt, rows, out);
    } else if (tr.kind == FLOE_ICE_TRANSFORM_IDENTITY) {
        r = floe_array_retain((floe_array *)v);
    } else if (src == FLOE_ICE_DECIMAL) {
        st = eval_decimal(&tr, v, rt, &r);
    } else if (src == FLOE_ICE_STRING || src == FLOE_ICE_BINARY || src == FLOE_ICE_FIXED || src == FLOE_ICE_UUID) {
        if (tr.kind == FLOE_ICE_TRANSFORM_BUCKET) st = eval_bucket_bytes(&tr, v, rt, &r);
        else st = eval_truncate_bytes(&tr, v, rt, &r);
    } else if (src >= 0) {
        st = eval_fixed(&tr, (floe_ice_type_id)src, v, rt, &r);
    } else {
        st = floe_error(FLOE_ERR_TYPE, "%s: unsupported argument type", def->name);
    }
    if (st) return floe_status_wrap(st, "%s('%.*s', ...)", def->name, (int)fn_get_str(a[0], 0).len,
                                    fn_get_str(a[0], 0).data);
    if (r->length == rows) {
        *out = r;
        return NULL;
    }
    /* A constant value argument: computed once, repeated per row. */
    st = broadcast(r, rows, out);
    floe_array_release(r);
    return st;
}

const floe_func_def floe_iceberg_funcs[] = {
    {"iceberg_transform", 2, 2, "iceberg_transform(string transform, value)", type_transform, eval_transform, 0,
     NULL, 0},
    {0},
};
