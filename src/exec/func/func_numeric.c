/*
 * func_numeric.c — numeric scalar functions: abs, sign, rounding (round,
 * trunc, floor, ceil; with optional digit counts), sqrt/exp/ln/log10/
 * power, greatest/least over any comparable type, and div.
 *
 * Types follow the input: integer functions of integers stay integers
 * (round(1250, -2) = 1300 as int), floats compute in double (round(x)
 * half to even, PostgreSQL's rint; round(x, n) half away from zero, as
 * PostgreSQL's numeric form and DuckDB), decimals round half away from zero exactly
 * in 128-bit and take PostgreSQL's result scale (none for round(x),
 * floor, ceil; n for round(x, n) with a constant n; the precision grows by
 * one where rounding up can add a digit).  Domain errors (sqrt of a negative, ln of zero,
 * overflow) are FLOE_ERR_INVALID_ARGUMENT naming the function and value,
 * as PostgreSQL reports them, never silent NaN/infinity.
 */
#include <math.h>
#include <string.h>

#include "exec/func/functions.h"

typedef __int128 i128;

enum { OP_ABS, OP_SIGN, OP_ROUND, OP_TRUNC, OP_FLOOR, OP_CEIL, OP_SQRT, OP_EXP, OP_LN, OP_LOG10, OP_POWER,
       OP_GREATEST, OP_LEAST };

static i128 pow10_128(int n) {
    i128 p = 1;
    while (n-- > 0) p *= 10;
    return p;
}

static i128 dec_at(const floe_array *a, int64_t i) {
    i = fn_at(a, i);
    switch (a->type->id) {
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 d = floe_array_get_decimal(a, i);
        return (i128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
    }
    case FLOE_TYPE_INT32: return floe_array_get_int32(a, i);
    case FLOE_TYPE_INT64: return floe_array_get_int64(a, i);
    default: return 0;
    }
}

static void dec_put(floe_decimal128 *o, int64_t i, i128 v) {
    o[i].lo = (uint64_t)v;
    o[i].hi = (int64_t)(v >> 64);
}

/* Remove `drop` decimal digits from v (keeping its scale: the dropped
 * digits become zeros) by rounding mode op.  drop <= 0: v unchanged.
 * *ok false when the result does not fit 128 bits. */
static i128 round_digits(i128 v, int64_t drop, int op, bool *ok) {
    *ok = true;
    if (drop <= 0) return v;
    if (drop > 38) {
        /* Every digit goes: 0, or ±10^drop which no value type holds. */
        bool away = (op == OP_FLOOR && v < 0) || (op == OP_CEIL && v > 0);
        if (away) *ok = false;
        return 0;
    }
    i128 q = pow10_128((int)drop), r = v % q, base = v - r; /* truncated toward zero */
    switch (op) {
    case OP_ROUND: {
        i128 ar = r < 0 ? -r : r;
        if (ar * 2 >= q) {
            if (v < 0 ? __builtin_sub_overflow(base, q, &base) : __builtin_add_overflow(base, q, &base)) *ok = false;
        }
        return base;
    }
    case OP_FLOOR:
        if (r < 0 && __builtin_sub_overflow(base, q, &base)) *ok = false;
        return base;
    case OP_CEIL:
        if (r > 0 && __builtin_add_overflow(base, q, &base)) *ok = false;
        return base;
    default: return base;
    }
}

/* round(double) rounds half to even (PostgreSQL's round(float8) is rint:
 * round(2.5::float8) = 2); round(double, n) has no float8 form in
 * PostgreSQL — it is round(numeric, n), half away from zero
 * (round(2.25::float8, 1) = 2.3), as DuckDB's too.  `with_digits`: the
 * second form. */
static double round_double(double x, int64_t digits, int op, bool with_digits) {
    double (*f)(double) = op == OP_ROUND ? (with_digits ? round : nearbyint)
                        : op == OP_FLOOR ? floor : op == OP_CEIL ? ceil : trunc;
    if (digits == 0 || !isfinite(x)) return f(x);
    if (digits > 308) return x;
    if (digits < -308) return f(x * 0.0);
    double m = pow(10.0, (double)(digits > 0 ? digits : -digits));
    if (digits > 0) {
        double y = x * m;
        if (!isfinite(y)) return x;
        return f(y) / m;
    }
    return f(x / m) * m;
}

/* ------------------------------------------------------------- types */

static floe_status type_unary(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                              int32_t n, floe_type **out) {
    (void)args;
    int op = def->tag;
    if (!fn_is_numeric(t[0])) return fn_type_error(def, t, n);
    if (n > 1 && !(op == OP_POWER ? fn_is_numeric(t[1]) : fn_is_int(t[1]))) return fn_type_error(def, t, n);
    if (op >= OP_SQRT) {
        *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
        return NULL;
    }
    switch (t[0]->id) {
    case FLOE_TYPE_NULL: case FLOE_TYPE_INT32: case FLOE_TYPE_INT64: *out = floe_type_retain(t[0]); return NULL;
    case FLOE_TYPE_FLOAT32: case FLOE_TYPE_FLOAT64: *out = floe_type_primitive(FLOE_TYPE_FLOAT64); return NULL;
    default: break;
    }
    /* decimal */
    if (op == OP_SIGN) {
        *out = floe_type_primitive(FLOE_TYPE_INT32);
        return NULL;
    }
    if (op == OP_ABS) {
        *out = floe_type_retain(t[0]);
        return NULL;
    }
    /* The result's scale, as PostgreSQL's: round/trunc(x) and floor/ceil
     * have none, round/trunc(x, n) with a constant n have n (none for a
     * negative n); a variable n keeps the input's scale. */
    int32_t scale = t[0]->scale;
    if (op == OP_FLOOR || op == OP_CEIL || n == 1) scale = 0;
    else if (args && args[1]->kind == FLOE_EXPR_LITERAL && !floe_array_is_null(args[1]->literal, 0)) {
        int64_t d = fn_get_i64(args[1]->literal, 0);
        scale = d < 0 ? 0 : d > 38 ? 38 : (int32_t)d;
    }
    /* integer digits, one more where rounding up can add one */
    int32_t p = t[0]->precision - t[0]->scale + (op == OP_TRUNC ? 0 : 1) + scale;
    if (p < 1) p = 1;
    return floe_type_decimal(p > 38 ? 38 : p, scale, out);
}

/* ----------------------------------------------------------- kernels */

static floe_status num_error(const floe_func_def *def, const char *what, const floe_array *a, int64_t i) {
    floe_buf b;
    floe_buf_init(&b);
    floe_status st = floe_format_value(a, fn_at(a, i), &b);
    if (!st) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: %s: %s", def->name, what, floe_buf_cstr(&b));
    floe_buf_free(&b);
    return st;
}

static floe_status eval_unary(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                              floe_type *rt, floe_array **out) {
    int op = def->tag;
    if (rt->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rt, rows, out);
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * rt->byte_width, &vals);
    if (st) goto fail;
    floe_type_id in = a[0]->type->id;
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        int64_t digits = n > 1 && op != OP_POWER ? fn_get_i64(a[1], i) : 0;
        if (digits > 400) digits = 400; /* beyond any type's digits */
        if (digits < -400) digits = -400;
        if (rt->id == FLOE_TYPE_FLOAT64) {
            double x = fn_get_f64(a[0], i), r;
            switch (op) {
            case OP_ABS: r = fabs(x); break;
            case OP_SIGN: r = x > 0 ? 1 : x < 0 ? -1 : x; break; /* NaN stays NaN */
            case OP_SQRT:
                if (x < 0) { st = num_error(def, "cannot take square root of a negative number", a[0], i); continue; }
                r = sqrt(x);
                break;
            case OP_EXP: r = exp(x); break;
            case OP_LN: case OP_LOG10:
                if (x == 0) { st = num_error(def, "cannot take logarithm of zero", a[0], i); continue; }
                if (x < 0) { st = num_error(def, "cannot take logarithm of a negative number", a[0], i); continue; }
                r = op == OP_LN ? log(x) : log10(x);
                break;
            case OP_POWER: {
                double y = fn_get_f64(a[1], i);
                if (x == 0 && y < 0) { st = num_error(def, "zero raised to a negative power is undefined", a[1], i); continue; }
                if (x < 0 && isfinite(y) && y != floor(y)) {
                    st = num_error(def, "a negative number raised to a non-integer power yields a complex result", a[1], i);
                    continue;
                }
                r = pow(x, y);
                if (isinf(r) && isfinite(x) && isfinite(y)) { st = num_error(def, "result out of range for", a[0], i); continue; }
                break;
            }
            default: r = round_double(x, digits, op, n > 1); break;
            }
            if (op == OP_EXP && isinf(r) && isfinite(x)) { st = num_error(def, "result out of range for", a[0], i); continue; }
            ((double *)vals->data)[i] = r;
        } else if (in == FLOE_TYPE_DECIMAL128) {
            i128 v = dec_at(a[0], i), r = v;
            bool ok = true;
            int32_t s = a[0]->type->scale;
            if (op == OP_SIGN) {
                ((int32_t *)vals->data)[i] = v > 0 ? 1 : v < 0 ? -1 : 0;
                continue;
            }
            if (op == OP_ABS) r = v < 0 ? -v : v;
            else r = round_digits(v, (int64_t)s - (n > 1 && (op == OP_ROUND || op == OP_TRUNC) ? digits : 0), op, &ok);
            /* to the result's scale: the digits dropped are zeros now */
            if (ok && rt->scale < s) r /= pow10_128(s - rt->scale);
            else if (ok && rt->scale > s && __builtin_mul_overflow(r, pow10_128(rt->scale - s), &r)) ok = false;
            i128 lim = pow10_128(rt->precision);
            if (!ok || r >= lim || r <= -lim) { st = num_error(def, "result out of decimal range for", a[0], i); continue; }
            dec_put((floe_decimal128 *)vals->data, i, r);
        } else { /* integers */
            i128 v = fn_get_i64(a[0], i), r = v;
            bool ok = true;
            switch (op) {
            case OP_ABS: r = v < 0 ? -v : v; break;
            case OP_SIGN: r = v > 0 ? 1 : v < 0 ? -1 : 0; break;
            case OP_ROUND: case OP_TRUNC: r = round_digits(v, -digits, op, &ok); break;
            default: break; /* floor/ceil of an integer is itself */
            }
            bool i32 = rt->id == FLOE_TYPE_INT32;
            if (!ok || r > (i32 ? INT32_MAX : INT64_MAX) || r < (i32 ? INT32_MIN : INT64_MIN)) {
                st = num_error(def, i32 ? "integer out of range for" : "bigint out of range for", a[0], i);
                continue;
            }
            if (i32) ((int32_t *)vals->data)[i] = (int32_t)r;
            else ((int64_t *)vals->data)[i] = (int64_t)r;
        }
    }
    if (st) goto fail;
    return fn_make_fixed(rt, rows, valid, vals, out);
fail:
    floe_buffer_release(valid);
    floe_buffer_release(vals);
    return st;
}

/* ------------------------------------------------------------- div */

/* div(x, y): the integer quotient truncated toward zero, as PostgreSQL's
 * div(numeric, numeric) (div(-7, 2) = -3, div(7.5, 2) = 3).  Integers
 * give a bigint, decimals a decimal(38, 0), floats a double. */
static floe_status type_div(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                            int32_t n, floe_type **out) {
    (void)args;
    if (!fn_is_numeric(t[0]) || !fn_is_numeric(t[1])) return fn_type_error(def, t, n);
    if (fn_is_float(t[0]) || fn_is_float(t[1])) *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
    else if (t[0]->id == FLOE_TYPE_DECIMAL128 || t[1]->id == FLOE_TYPE_DECIMAL128) return floe_type_decimal(38, 0, out);
    else *out = floe_type_primitive(FLOE_TYPE_INT64);
    return NULL;
}

static floe_status eval_div(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                            floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * rt->byte_width, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        if (rt->id == FLOE_TYPE_FLOAT64) {
            double x = fn_get_f64(a[0], i), y = fn_get_f64(a[1], i);
            if (y == 0) { st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: division by zero", def->name); break; }
            ((double *)vals->data)[i] = trunc(x / y);
            continue;
        }
        /* both at a common scale, then an exact 128-bit quotient */
        int32_t sx = a[0]->type->id == FLOE_TYPE_DECIMAL128 ? a[0]->type->scale : 0;
        int32_t sy = a[1]->type->id == FLOE_TYPE_DECIMAL128 ? a[1]->type->scale : 0;
        i128 x = dec_at(a[0], i), y = dec_at(a[1], i);
        bool ok = !__builtin_mul_overflow(x, pow10_128(sx < sy ? sy - sx : 0), &x) &&
                  !__builtin_mul_overflow(y, pow10_128(sy < sx ? sx - sy : 0), &y);
        if (ok && y == 0) { st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: division by zero", def->name); break; }
        i128 q = ok ? x / y : 0;
        if (rt->id == FLOE_TYPE_INT64) {
            if (q > INT64_MAX || q < INT64_MIN) ok = false; /* div(-2^63, -1) */
            else ((int64_t *)vals->data)[i] = (int64_t)q;
        } else if (ok) {
            dec_put((floe_decimal128 *)vals->data, i, q);
        }
        if (!ok) st = num_error(def, rt->id == FLOE_TYPE_INT64 ? "bigint out of range for" : "numeric field overflow for", a[0], i);
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* ---------------------------------------------------- greatest, least */

enum { C_NONE, C_I64, C_F64, C_DEC, C_STR, C_BOOL };

static int value_class(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_NULL: return C_NONE;
    case FLOE_TYPE_BOOL: return C_BOOL;
    case FLOE_TYPE_INT32: case FLOE_TYPE_INT64: case FLOE_TYPE_DATE32: case FLOE_TYPE_TIME64_US:
    case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ: case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: return C_I64;
    case FLOE_TYPE_FLOAT32: case FLOE_TYPE_FLOAT64: return C_F64;
    case FLOE_TYPE_DECIMAL128: return C_DEC;
    case FLOE_TYPE_STRING: case FLOE_TYPE_BINARY: return C_STR;
    default: return -1;
    }
}

static floe_status type_extreme(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                int32_t n, floe_type **out) {
    (void)args;
    floe_type *res = NULL;
    int32_t max_scale = 0, max_int = 0;
    bool any_dec = false, any_float = false, all_num = true, same = true;
    for (int32_t i = 0; i < n; i++) {
        if (t[i]->id == FLOE_TYPE_NULL) continue;
        if (value_class(t[i]) < 0) return fn_type_error(def, t, n);
        if (!res) res = t[i];
        else if (!floe_type_equals(res, t[i])) same = false;
        if (!fn_is_numeric(t[i])) all_num = false;
        any_float |= fn_is_float(t[i]);
        if (t[i]->id == FLOE_TYPE_DECIMAL128) {
            any_dec = true;
            if (t[i]->scale > max_scale) max_scale = t[i]->scale;
            if (t[i]->precision - t[i]->scale > max_int) max_int = t[i]->precision - t[i]->scale;
        } else if (fn_is_int(t[i])) {
            int32_t d = t[i]->id == FLOE_TYPE_INT32 ? 10 : 19;
            if (d > max_int) max_int = d;
        }
    }
    if (!res) {
        *out = floe_type_primitive(FLOE_TYPE_NULL);
        return NULL;
    }
    if (same) {
        *out = floe_type_retain(res);
        return NULL;
    }
    if (!all_num) return fn_type_error(def, t, n);
    /* Decimals meet at the widest integer part and scale; when that needs
     * more than 38 digits they meet as doubles, like a float would. */
    if (any_float || (any_dec && max_int + max_scale > 38)) *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
    else if (!any_dec) *out = floe_type_primitive(FLOE_TYPE_INT64);
    else return floe_type_decimal(max_int + max_scale, max_scale, out);
    return NULL;
}

/* Compare slot i of a and b (both valid) in the result class. */
static int cmp_at(int cls, const floe_array *a, const floe_array *b, int64_t i, int32_t scale) {
    switch (cls) {
    case C_I64: {
        int64_t x = fn_get_i64(a, i), y = fn_get_i64(b, i);
        return (x > y) - (x < y);
    }
    case C_F64: {
        double x = fn_get_f64(a, i), y = fn_get_f64(b, i);
        /* NaN sorts above everything, as in PostgreSQL. */
        if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
        return (x > y) - (x < y);
    }
    case C_DEC: {
        int32_t sa = a->type->id == FLOE_TYPE_DECIMAL128 ? a->type->scale : 0;
        int32_t sb = b->type->id == FLOE_TYPE_DECIMAL128 ? b->type->scale : 0;
        i128 x = dec_at(a, i) * pow10_128(scale - sa), y = dec_at(b, i) * pow10_128(scale - sb);
        return (x > y) - (x < y);
    }
    case C_BOOL: {
        int x = floe_array_get_bool(a, fn_at(a, i)), y = floe_array_get_bool(b, fn_at(b, i));
        return x - y;
    }
    default: {
        floe_strview x = fn_get_str(a, i), y = fn_get_str(b, i);
        int c = memcmp(x.data, y.data, (size_t)(x.len < y.len ? x.len : y.len));
        return c ? c : (x.len > y.len) - (x.len < y.len);
    }
    }
}

static floe_status eval_extreme(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                floe_type *rt, floe_array **out) {
    int cls = value_class(rt);
    if (cls == C_NONE) return floe_array_new_nulls(rt, rows, out);
    bool greatest = def->tag == OP_GREATEST;
    int32_t scale = rt->id == FLOE_TYPE_DECIMAL128 ? rt->scale : 0;
    int32_t *best = floe_malloc_array((size_t)(rows ? rows : 1), sizeof *best);
    floe_builder *b = NULL;
    floe_status st = best ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s", def->name);
    for (int64_t i = 0; i < rows && !st; i++) {
        int32_t k = -1;
        for (int32_t j = 0; j < n; j++) {
            if (fn_null(a[j], i)) continue;
            if (k < 0) { k = j; continue; }
            int c = cmp_at(cls, a[j], a[k], i, scale);
            if (greatest ? c > 0 : c < 0) k = j;
        }
        best[i] = k;
    }
    if (!st) st = floe_builder_new(rt, rows, &b);
    for (int64_t i = 0; i < rows && !st; i++) {
        int32_t k = best[i];
        if (k < 0) { st = floe_builder_append_null(b); continue; }
        const floe_array *src = a[k];
        int64_t j = fn_at(src, i);
        if (floe_type_equals(src->type, rt)) { st = floe_builder_append_array(b, src, j, 1); continue; }
        switch (cls) {
        case C_I64: st = floe_builder_append_int64(b, fn_get_i64(src, i)); break;
        case C_F64: st = floe_builder_append_double(b, fn_get_f64(src, i)); break;
        case C_DEC: {
            int32_t s = src->type->id == FLOE_TYPE_DECIMAL128 ? src->type->scale : 0;
            i128 v = dec_at(src, i) * pow10_128(scale - s);
            floe_decimal128 d = {(uint64_t)v, (int64_t)(v >> 64)};
            st = floe_builder_append_decimal(b, d);
            break;
        }
        default: st = floe_builder_append_array(b, src, j, 1); break;
        }
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_free(best);
    return st;
}

/* ------------------------------------------- plain float64 functions */

enum { MF_SIN, MF_COS, MF_TAN, MF_COT, MF_ASIN, MF_ACOS, MF_ATAN, MF_ATAN2, MF_DEGREES, MF_RADIANS, MF_CBRT, MF_LOG2, MF_LOG,
       MF_PI };

static floe_status eval_math(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                             floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        double x = n > 0 ? fn_get_f64(a[0], i) : 0, y = n > 1 ? fn_get_f64(a[1], i) : 0, r;
        switch (def->tag) {
        case MF_SIN: r = sin(x); break;
        case MF_COS: r = cos(x); break;
        case MF_TAN: r = tan(x); break;
        case MF_COT: r = 1.0 / tan(x); break;
        case MF_ASIN: case MF_ACOS:
            if (x < -1 || x > 1) {
                st = num_error(def, "input is out of range [-1, 1]", a[0], i);
                continue;
            }
            r = def->tag == MF_ASIN ? asin(x) : acos(x);
            break;
        case MF_ATAN: r = atan(x); break;
        case MF_ATAN2: r = atan2(x, y); break;
        case MF_DEGREES: r = x * (180.0 / M_PI); break;
        case MF_RADIANS: r = x * (M_PI / 180.0); break;
        case MF_CBRT: {
            /* libm's cbrt(27) is 3.0000000000000004: snap exact cubes. */
            double k;
            r = cbrt(x);
            k = round(r);
            if (k * k * k == x) r = k;
            break;
        }
        case MF_LOG2:
            if (x <= 0) {
                st = num_error(def, x == 0 ? "cannot take logarithm of zero"
                                           : "cannot take logarithm of a negative number", a[0], i);
                continue;
            }
            r = log2(x);
            break;
        case MF_LOG: /* log(base, x) */
            if (x <= 0 || y <= 0) {
                st = num_error(def, "cannot take the logarithm of zero or a negative number", x <= 0 ? a[0] : a[1], i);
                continue;
            }
            if (x == 1) {
                st = num_error(def, "logarithm base 1 is undefined", a[0], i);
                continue;
            }
            r = log(y) / log(x);
            break;
        default: r = M_PI; break;
        }
        ((double *)vals->data)[i] = r;
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* log(x) is log10 as in PostgreSQL; log(b, x) is the base-b logarithm. */
static floe_status eval_log(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                            floe_type *rt, floe_array **out) {
    if (n == 1) {
        floe_func_def d = *def;
        d.tag = OP_LOG10;
        return eval_unary(&d, a, n, rows, rt, out);
    }
    return eval_math(def, a, n, rows, rt, out);
}

#define F64 FLOE_TYPE_FLOAT64
const floe_func_def floe_numeric_funcs[] = {
    {"sin", 1, 1, "sin(numeric)", fn_type_simple, eval_math, MF_SIN, "N", F64},
    {"cos", 1, 1, "cos(numeric)", fn_type_simple, eval_math, MF_COS, "N", F64},
    {"tan", 1, 1, "tan(numeric)", fn_type_simple, eval_math, MF_TAN, "N", F64},
    {"cot", 1, 1, "cot(numeric)", fn_type_simple, eval_math, MF_COT, "N", F64},
    {"asin", 1, 1, "asin(numeric)", fn_type_simple, eval_math, MF_ASIN, "N", F64},
    {"acos", 1, 1, "acos(numeric)", fn_type_simple, eval_math, MF_ACOS, "N", F64},
    {"atan", 1, 1, "atan(numeric)", fn_type_simple, eval_math, MF_ATAN, "N", F64},
    {"atan2", 2, 2, "atan2(numeric, numeric)", fn_type_simple, eval_math, MF_ATAN2, "NN", F64},
    {"degrees", 1, 1, "degrees(numeric)", fn_type_simple, eval_math, MF_DEGREES, "N", F64},
    {"radians", 1, 1, "radians(numeric)", fn_type_simple, eval_math, MF_RADIANS, "N", F64},
    {"cbrt", 1, 1, "cbrt(numeric)", fn_type_simple, eval_math, MF_CBRT, "N", F64},
    {"log2", 1, 1, "log2(numeric)", fn_type_simple, eval_math, MF_LOG2, "N", F64},
    {"log", 1, 2, "log([numeric base, ]numeric)", fn_type_simple, eval_log, MF_LOG, "NN", F64},
    {"pi", 0, 0, "pi()", fn_type_simple, eval_math, MF_PI, "N", F64},
    {"abs", 1, 1, "abs(numeric)", type_unary, eval_unary, OP_ABS, NULL, 0},
    {"sign", 1, 1, "sign(numeric)", type_unary, eval_unary, OP_SIGN, NULL, 0},
    {"round", 1, 2, "round(numeric[, int])", type_unary, eval_unary, OP_ROUND, NULL, 0},
    {"trunc", 1, 2, "trunc(numeric[, int])", type_unary, eval_unary, OP_TRUNC, NULL, 0},
    {"floor", 1, 1, "floor(numeric)", type_unary, eval_unary, OP_FLOOR, NULL, 0},
    {"ceil", 1, 1, "ceil(numeric)", type_unary, eval_unary, OP_CEIL, NULL, 0},
    {"ceiling", 1, 1, "ceiling(numeric)", type_unary, eval_unary, OP_CEIL, NULL, 0},
    {"sqrt", 1, 1, "sqrt(numeric)", type_unary, eval_unary, OP_SQRT, NULL, 0},
    {"exp", 1, 1, "exp(numeric)", type_unary, eval_unary, OP_EXP, NULL, 0},
    {"ln", 1, 1, "ln(numeric)", type_unary, eval_unary, OP_LN, NULL, 0},
    {"log10", 1, 1, "log10(numeric)", type_unary, eval_unary, OP_LOG10, NULL, 0},
    {"power", 2, 2, "power(numeric, numeric)", type_unary, eval_unary, OP_POWER, NULL, 0},
    {"pow", 2, 2, "pow(numeric, numeric)", type_unary, eval_unary, OP_POWER, NULL, 0},
    {"greatest", 1, -1, "greatest(value, ...)", type_extreme, eval_extreme, OP_GREATEST, NULL, 0},
    {"least", 1, -1, "least(value, ...)", type_extreme, eval_extreme, OP_LEAST, NULL, 0},
    {"div", 2, 2, "div(numeric, numeric)", type_div, eval_div, 0, NULL, 0},
    {0},
};
