/*
 * expr_bind.c — binding unbound expressions to a schema: column names to
 * field ids, literals converted to the column type.
 *
 * Literal conversions follow Iceberg Java's Literals: int/long widen to
 * the numeric, date and time types; a long (or double) beyond an int (or
 * float) column's range, or a decimal beyond the column's precision, is
 * "above max"/"below min", which turns the predicate into a constant
 * (x < above-max is true, x = above-max false, ...); strings parse as
 * dates, times, timestamps, uuids and decimals (with exactly the column's
 * scale); decimals need the column's scale; timestamps convert between
 * micro- and nanoseconds and to dates.  Where Java rounds a literal
 * (nanoseconds to a microsecond column, an instant to a date column, a
 * double to a float column) floe keeps the predicate exact instead:
 * x < 1500 ns on microseconds becomes x <= 1 µs, x = 1500 ns is false.
 * (Doubles to decimals still round to the column scale, as in Java.)
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "floe/iceberg_expr.h"
#include "floe/memory.h"
#include "iceberg/expr/expr_internal.h"

#define MICROS_PER_DAY INT64_C(86400000000)
#define NANOS_PER_DAY INT64_C(86400000000000)

enum { FITS = 0, ABOVE_MAX = 1, BELOW_MIN = -1 };

static floe_int128 pow10_128(int n) {
    floe_int128 r = 1;
    for (int i = 0; i < n; i++) r *= 10;
    return r;
}

/* Place a decimal unscaled value against a column's precision. */
static int decimal_range(floe_int128 unscaled, int32_t precision) {
    floe_int128 lim = pow10_128(precision);
    if (unscaled >= lim) return ABOVE_MAX;
    if (unscaled <= -lim) return BELOW_MIN;
    return FITS;
}

static int long_to_range(int64_t v, int64_t lo, int64_t hi) {
    return v > hi ? ABOVE_MAX : v < lo ? BELOW_MIN : FITS;
}

static floe_status int_to_decimal(int64_t v, const floe_ice_type *to, floe_ice_value *out, int *range) {
    if (to->scale < 0 || to->scale > FLOE_ICE_DECIMAL_MAX_PRECISION)
        return floe_error(FLOE_ERR_TYPE, "cannot convert %lld to %s with scale %d", (long long)v, "decimal",
                          (int)to->scale);
    floe_int128 lim = pow10_128(38) / pow10_128(to->scale); /* keep v * 10^scale below 10^38 */
    *out = floe_ice_decimal(0, to->scale);
    if ((floe_int128)v >= lim || (floe_int128)v <= -lim) {
        *range = v > 0 ? ABOVE_MAX : BELOW_MIN;
        return NULL;
    }
    floe_int128 u = (floe_int128)v * pow10_128(to->scale);
    out->v.dec = u;
    *range = decimal_range(u, to->precision);
    return NULL;
}

/* Decimal from a float/double via its shortest-enough decimal text rounded
 * to the column's scale (half away from zero on the printed digits). */
static floe_status double_to_decimal(double v, const floe_ice_type *to, floe_ice_value *out, int *range) {
    if (!isfinite(v)) {
        *range = v > 0 ? ABOVE_MAX : BELOW_MIN;
        *out = floe_ice_decimal(0, to->scale);
        return NULL;
    }
    if (to->scale < 0 || to->scale > 30 || fabs(v) >= 1e38) {
        if (fabs(v) >= 1e38) {
            *range = v > 0 ? ABOVE_MAX : BELOW_MIN;
            *out = floe_ice_decimal(0, to->scale);
            return NULL;
        }
        return floe_error(FLOE_ERR_TYPE, "cannot convert %g to decimal with scale %d", v, (int)to->scale);
    }
    char text[128];
    snprintf(text, sizeof text, "%.*f", (int)to->scale, v);
    floe_ice_type *wide = NULL;
    FLOE_TRY(floe_ice_type_decimal(38, to->scale, &wide));
    floe_status st = floe_ice_value_parse(wide, text, out);
    floe_ice_type_free(wide);
    if (st) return st;
    *range = decimal_range(out->v.dec, to->precision);
    return NULL;
}

static int fraction_digits(const char *s) {
    const char *dot = strchr(s, '.');
    if (!dot) return 0;
    int n = 0;
    for (const char *p = dot + 1; *p >= '0' && *p <= '9'; p++) n++;
    return n;
}

static bool is_ts(floe_ice_type_id t) { return t == FLOE_ICE_TIMESTAMP || t == FLOE_ICE_TIMESTAMPTZ; }
static bool is_ts_ns(floe_ice_type_id t) { return t == FLOE_ICE_TIMESTAMP_NS || t == FLOE_ICE_TIMESTAMPTZ_NS; }

static floe_ice_value with_type(floe_ice_type_id t, int64_t v) {
    floe_ice_value r = floe_ice_long(v);
    r.type = t;
    return r;
}

/* Scale an instant by `mul` (days->micros, micros->nanos) with range. */
static floe_ice_value scale_instant(floe_ice_type_id to, int64_t v, int64_t mul, int *range) {
    if (v > INT64_MAX / mul) {
        *range = ABOVE_MAX;
        return with_type(to, 0);
    }
    if (v < INT64_MIN / mul) {
        *range = BELOW_MIN;
        return with_type(to, 0);
    }
    return with_type(to, v * mul);
}

/* Convert literal `lit` to column type `to`.  *range reports above-max /
 * below-min literals (then *out is meaningless).  *out may be an owning
 * value (strings parsed from text); the caller frees it. */
static floe_status convert(const floe_ice_value *lit, const floe_ice_type *to, floe_ice_value *out, int *range) {
    *range = FITS;
    *out = floe_ice_null(to->id);
    floe_ice_type_id t = to->id;
    switch (lit->type) {
    case FLOE_ICE_BOOLEAN:
        if (t == FLOE_ICE_BOOLEAN) return floe_ice_value_copy(lit, out);
        break;
    case FLOE_ICE_INT:
    case FLOE_ICE_LONG: {
        int64_t v = lit->type == FLOE_ICE_INT ? lit->v.i32 : lit->v.i64;
        switch (t) {
        case FLOE_ICE_INT:
        case FLOE_ICE_DATE:
            *range = long_to_range(v, INT32_MIN, INT32_MAX);
            *out = floe_ice_int((int32_t)(*range == FITS ? v : 0));
            out->type = t;
            return NULL;
        case FLOE_ICE_LONG:
        case FLOE_ICE_TIME:
        case FLOE_ICE_TIMESTAMP:
        case FLOE_ICE_TIMESTAMPTZ:
        case FLOE_ICE_TIMESTAMP_NS:
        case FLOE_ICE_TIMESTAMPTZ_NS:
            if (t != FLOE_ICE_LONG && lit->type == FLOE_ICE_INT) break; /* as Java: ints widen to long only */
            *out = with_type(t, v);
            return NULL;
        case FLOE_ICE_FLOAT: *out = floe_ice_float((float)v); return NULL;
        case FLOE_ICE_DOUBLE: *out = floe_ice_double((double)v); return NULL;
        case FLOE_ICE_DECIMAL: return int_to_decimal(v, to, out, range);
        default: break;
        }
        break;
    }
    case FLOE_ICE_FLOAT:
    case FLOE_ICE_DOUBLE: {
        double v = lit->type == FLOE_ICE_FLOAT ? lit->v.f32 : lit->v.f64;
        if (t == FLOE_ICE_DOUBLE) {
            *out = floe_ice_double(v);
            return NULL;
        }
        if (t == FLOE_ICE_FLOAT) {
            if (isfinite(v) && v > FLT_MAX) *range = ABOVE_MAX;
            else if (isfinite(v) && v < -FLT_MAX) *range = BELOW_MIN;
            *out = floe_ice_float((float)v);
            return NULL;
        }
        if (t == FLOE_ICE_DECIMAL) return double_to_decimal(v, to, out, range);
        break;
    }
    case FLOE_ICE_DECIMAL:
        if (t == FLOE_ICE_DECIMAL) {
            if (lit->scale != to->scale)
                return floe_error(FLOE_ERR_TYPE, "decimal literal has scale %d, column has scale %d",
                                  (int)lit->scale, (int)to->scale);
            *out = *lit;
            *range = decimal_range(lit->v.dec, to->precision);
            return NULL;
        }
        break;
    case FLOE_ICE_DATE:
        if (t == FLOE_ICE_DATE) {
            *out = *lit;
            return NULL;
        }
        if (is_ts(t)) {
            *out = scale_instant(t, lit->v.i32, MICROS_PER_DAY, range);
            return NULL;
        }
        if (is_ts_ns(t)) {
            *out = scale_instant(t, lit->v.i32, NANOS_PER_DAY, range);
            return NULL;
        }
        break;
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
        if (is_ts(t)) {
            *out = with_type(t, lit->v.i64);
            return NULL;
        }
        if (is_ts_ns(t)) {
            *out = scale_instant(t, lit->v.i64, 1000, range);
            return NULL;
        }
        if (t == FLOE_ICE_DATE) {
            *out = floe_ice_date((int32_t)floe_ice_floordiv(lit->v.i64, MICROS_PER_DAY));
            return NULL;
        }
        break;
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS:
        if (is_ts_ns(t)) {
            *out = with_type(t, lit->v.i64);
            return NULL;
        }
        if (is_ts(t)) {
            *out = with_type(t, floe_ice_floordiv(lit->v.i64, 1000));
            return NULL;
        }
        if (t == FLOE_ICE_DATE) {
            *out = floe_ice_date((int32_t)floe_ice_floordiv(lit->v.i64, NANOS_PER_DAY));
            return NULL;
        }
        break;
    case FLOE_ICE_TIME:
        if (t == FLOE_ICE_TIME) {
            *out = *lit;
            return NULL;
        }
        break;
    case FLOE_ICE_UUID:
        if (t == FLOE_ICE_UUID) {
            *out = *lit;
            return NULL;
        }
        break;
    case FLOE_ICE_FIXED:
    case FLOE_ICE_BINARY:
        if (t == FLOE_ICE_BINARY || (t == FLOE_ICE_FIXED && (size_t)to->length == lit->v.bytes.len)) {
            *out = *lit;
            out->type = t;
            out->owns_bytes = false;
            return NULL;
        }
        if (t == FLOE_ICE_FIXED)
            return floe_error(FLOE_ERR_TYPE, "literal of %zu bytes for fixed[%d]", lit->v.bytes.len,
                              (int)to->length);
        break;
    case FLOE_ICE_STRING: {
        if (t == FLOE_ICE_STRING) {
            *out = *lit;
            out->owns_bytes = false;
            return NULL;
        }
        if (t != FLOE_ICE_DATE && t != FLOE_ICE_TIME && !is_ts(t) && !is_ts_ns(t) && t != FLOE_ICE_UUID &&
            t != FLOE_ICE_DECIMAL)
            break;
        char *text = floe_str_dup(floe_str_make((const char *)lit->v.bytes.data, lit->v.bytes.len));
        if (!text) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory converting a literal");
        floe_status st = NULL;
        if (t == FLOE_ICE_DECIMAL) {
            int digits = fraction_digits(text);
            if (strpbrk(text, "eE") || digits != to->scale)
                st = floe_error(FLOE_ERR_TYPE, "decimal literal '%s' must have exactly %d fraction digits", text,
                                (int)to->scale);
            if (!st) {
                floe_ice_type *wide = NULL;
                st = floe_ice_type_decimal(38, to->scale, &wide);
                if (!st) st = floe_ice_value_parse(wide, text, out);
                floe_ice_type_free(wide);
                if (!st) *range = decimal_range(out->v.dec, to->precision);
            }
        } else {
            st = floe_ice_value_parse(to, text, out);
        }
        if (st) st = floe_status_wrap(st, "literal '%s' as %s", text, floe_ice_type_id_name(t));
        floe_free(text);
        return st;
    }
    default:
        break;
    }
    return floe_error(FLOE_ERR_TYPE, "cannot convert a %s literal to %s", floe_ice_type_id_name(lit->type),
                      floe_ice_type_id_name(t));
}

/* Where a converted literal landed relative to the original when the
 * conversion could not be exact: -1 below (a floor), +1 above, 0 exact.
 * Java keeps the rounded literal as is, which makes x < 1500 ns on a
 * microsecond column miss x = 1 µs; floe adjusts the operator instead. */
static int conversion_direction(const floe_ice_value *lit, const floe_ice_value *conv) {
    floe_int128 a = 0, b = 0;
    switch (lit->type) {
    case FLOE_ICE_DOUBLE:
        if (conv->type != FLOE_ICE_FLOAT || !isfinite(lit->v.f64)) return 0;
        return (double)conv->v.f32 < lit->v.f64 ? -1 : (double)conv->v.f32 > lit->v.f64 ? 1 : 0;
    case FLOE_ICE_INT:
    case FLOE_ICE_LONG: {
        long double x = lit->type == FLOE_ICE_INT ? (long double)lit->v.i32 : (long double)lit->v.i64;
        long double y;
        if (conv->type == FLOE_ICE_FLOAT) y = conv->v.f32;
        else if (conv->type == FLOE_ICE_DOUBLE) y = conv->v.f64;
        else return 0;
        return y < x ? -1 : y > x ? 1 : 0;
    }
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
        if (conv->type != FLOE_ICE_DATE) return 0;
        a = lit->v.i64;
        b = (floe_int128)conv->v.i32 * MICROS_PER_DAY;
        break;
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS:
        a = lit->v.i64;
        if (conv->type == FLOE_ICE_DATE) b = (floe_int128)conv->v.i32 * NANOS_PER_DAY;
        else if (is_ts(conv->type)) b = (floe_int128)conv->v.i64 * 1000;
        else return 0;
        break;
    default:
        return 0;
    }
    return b < a ? -1 : b > a ? 1 : 0;
}

/* The operator that keeps `x op lit` exact when the converted literal sits
 * `dir` of the original; -1 when the predicate is constant (eq: false,
 * not_eq: true). */
static int inexact_op(floe_ice_expr_op op, int dir) {
    switch (op) {
    case FLOE_ICE_EXPR_LT:
    case FLOE_ICE_EXPR_LT_EQ: return dir > 0 ? FLOE_ICE_EXPR_LT : FLOE_ICE_EXPR_LT_EQ;
    case FLOE_ICE_EXPR_GT:
    case FLOE_ICE_EXPR_GT_EQ: return dir > 0 ? FLOE_ICE_EXPR_GT_EQ : FLOE_ICE_EXPR_GT;
    default: return -1;
    }
}

/* ---- helpers shared with the evaluators ---------------------------------- */

bool floe_ice__is_nan(const floe_ice_value *v) {
    if (v->is_null) return false;
    if (v->type == FLOE_ICE_FLOAT) return isnan(v->v.f32);
    if (v->type == FLOE_ICE_DOUBLE) return isnan(v->v.f64);
    return false;
}

int floe_ice__cmp(const floe_ice_value *a, const floe_ice_value *b) {
    if (a->type == FLOE_ICE_FLOAT && b->type == FLOE_ICE_FLOAT)
        return a->v.f32 < b->v.f32 ? -1 : a->v.f32 > b->v.f32 ? 1 : 0;
    if (a->type == FLOE_ICE_DOUBLE && b->type == FLOE_ICE_DOUBLE)
        return a->v.f64 < b->v.f64 ? -1 : a->v.f64 > b->v.f64 ? 1 : 0;
    return floe_ice_value_compare(a, b);
}

int32_t floe_ice__sort_unique(floe_ice_value *v, int32_t n) {
    /* insertion sort: sets are small and this runs once per bind */
    for (int32_t i = 1; i < n; i++) {
        floe_ice_value x = v[i];
        int32_t j = i;
        while (j > 0 && floe_ice__cmp(&v[j - 1], &x) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        if (k > 0 && floe_ice__cmp(&v[k - 1], &v[i]) == 0) {
            floe_ice_value_free(&v[i]);
            continue;
        }
        v[k++] = v[i];
    }
    return k;
}

/* ---- binding ------------------------------------------------------------- */

static void collect_ids(const floe_ice_type *t, int32_t *ids, size_t *n) {
    for (int32_t i = 0; i < t->n_fields; i++) {
        ids[(*n)++] = t->fields[i].id;
        if (floe_ice_type_is_nested(t->fields[i].type)) collect_ids(t->fields[i].type, ids, n);
    }
}

static floe_status unknown_column(const floe_ice_schema *schema, const char *name) {
    int32_t count = floe_ice_schema_field_count(schema);
    int32_t *ids = floe_malloc((size_t)(count > 0 ? count : 1) * sizeof *ids);
    const char **names = floe_malloc((size_t)(count > 0 ? count : 1) * sizeof *names);
    floe_status st;
    if (!ids || !names) {
        st = floe_error(FLOE_ERR_NOT_FOUND, "unknown column '%s'", name);
    } else {
        size_t n = 0;
        collect_ids(schema->root, ids, &n);
        for (size_t i = 0; i < n; i++) names[i] = floe_ice_schema_field_name(schema, ids[i]);
        st = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "column", floe_str_c(name), names, n);
    }
    floe_free(ids);
    floe_free(names);
    return st;
}

/* Can the column read as null?  Only if it or a containing field is
 * optional, or it sits inside a list or map. */
static bool may_be_null(const floe_ice_schema *schema, int32_t id) {
    if (floe_ice_schema_in_list_or_map(schema, id)) return true;
    for (int32_t cur = id; cur >= 0; cur = floe_ice_schema_parent_id(schema, cur)) {
        const floe_ice_field *f = floe_ice_schema_find_field(schema, cur);
        if (!f || !f->required) return true;
    }
    return false;
}

static floe_ice_expr *const_expr(bool v) { return v ? floe_ice_expr_true() : floe_ice_expr_false(); }

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory binding an expression"); }

/* The constant a predicate with an above-max (range > 0) or below-min
 * literal reduces to. */
static bool out_of_range_result(floe_ice_expr_op op, int range) {
    switch (op) {
    case FLOE_ICE_EXPR_LT:
    case FLOE_ICE_EXPR_LT_EQ: return range == ABOVE_MAX;
    case FLOE_ICE_EXPR_GT:
    case FLOE_ICE_EXPR_GT_EQ: return range == BELOW_MIN;
    case FLOE_ICE_EXPR_NOT_EQ: return true;
    default: return false; /* eq */
    }
}

static floe_status bind_pred(const floe_ice_expr *e, const floe_ice_schema *schema, bool cs, floe_ice_expr **out) {
    *out = NULL;
    const floe_ice_field *f = floe_ice_schema_find_by_name(schema, e->name, cs);
    if (!f) return unknown_column(schema, e->name);
    const char *full = floe_ice_schema_field_name(schema, f->id);
    const floe_ice_type *ft = f->type;
    if (floe_ice_type_is_nested(ft))
        return floe_error(FLOE_ERR_TYPE, "column '%s' is a %s; predicates need a primitive column", full,
                          floe_ice_type_id_name(ft->id));
    bool nullable = may_be_null(schema, f->id);
    bool is_float = ft->id == FLOE_ICE_FLOAT || ft->id == FLOE_ICE_DOUBLE;
    floe_ice_expr_op op = e->op;
    switch (op) {
    case FLOE_ICE_EXPR_IS_NULL:
    case FLOE_ICE_EXPR_NOT_NULL:
        if (!nullable) {
            *out = const_expr(op == FLOE_ICE_EXPR_NOT_NULL);
            return *out ? NULL : oom();
        }
        break;
    case FLOE_ICE_EXPR_IS_NAN:
    case FLOE_ICE_EXPR_NOT_NAN:
        if (!is_float)
            return floe_error(FLOE_ERR_TYPE, "%s on column '%s' of type %s: only float and double can be NaN",
                              floe_ice_expr_op_name(op), full, floe_ice_type_id_name(ft->id));
        break;
    case FLOE_ICE_EXPR_STARTS_WITH:
    case FLOE_ICE_EXPR_NOT_STARTS_WITH:
        if (ft->id != FLOE_ICE_STRING)
            return floe_error(FLOE_ERR_TYPE, "%s on column '%s' of type %s: needs a string column",
                              floe_ice_expr_op_name(op), full, floe_ice_type_id_name(ft->id));
        break;
    default:
        break;
    }

    /* Convert the literals, dropping out-of-range ones. */
    floe_ice_value *vals = NULL;
    int32_t n = 0;
    bool const_set = false, const_val = false;
    if (e->n_values > 0) {
        vals = floe_malloc((size_t)e->n_values * sizeof *vals);
        if (!vals) return oom();
    }
    floe_status st = NULL;
    for (int32_t i = 0; i < e->n_values && !st && !const_set; i++) {
        const floe_ice_value *lit = &e->values[i];
        if (lit->is_null) {
            st = floe_error(FLOE_ERR_TYPE, "column '%s': %s with a null literal (use is_null / not_null)", full,
                            floe_ice_expr_op_name(op));
            break;
        }
        if (floe_ice__is_nan(lit)) {
            st = floe_error(FLOE_ERR_TYPE, "column '%s': %s with a NaN literal (use is_nan / not_nan)", full,
                            floe_ice_expr_op_name(op));
            break;
        }
        int range;
        floe_ice_value v;
        st = convert(lit, ft, &v, &range);
        if (st) {
            st = floe_status_wrap(st, "column '%s' (%s)", full, floe_ice_type_id_name(ft->id));
            break;
        }
        if (range != FITS) {
            floe_ice_value_free(&v);
            if (op != FLOE_ICE_EXPR_IN && op != FLOE_ICE_EXPR_NOT_IN) {
                const_set = true;
                const_val = out_of_range_result(op, range);
            }
            continue;
        }
        int dir = conversion_direction(lit, &v);
        if (dir != 0) {
            if (op == FLOE_ICE_EXPR_IN || op == FLOE_ICE_EXPR_NOT_IN) {
                floe_ice_value_free(&v); /* no column value equals it */
                continue;
            }
            int nop = inexact_op(op, dir);
            if (nop < 0) {
                floe_ice_value_free(&v);
                const_set = true;
                const_val = op == FLOE_ICE_EXPR_NOT_EQ;
                continue;
            }
            op = (floe_ice_expr_op)nop;
        }
        /* Keep an owning copy so the bound tree does not view `e`. */
        st = floe_ice_value_copy(&v, &vals[n]);
        floe_ice_value_free(&v);
        if (!st) n++;
    }
    if (st || const_set) {
        for (int32_t i = 0; i < n; i++) floe_ice_value_free(&vals[i]);
        floe_free(vals);
        if (st) return st;
        *out = const_expr(const_val);
        return *out ? NULL : oom();
    }
    if (op == FLOE_ICE_EXPR_IN || op == FLOE_ICE_EXPR_NOT_IN) {
        n = floe_ice__sort_unique(vals, n);
        if (n == 0) {
            floe_free(vals);
            *out = const_expr(op == FLOE_ICE_EXPR_NOT_IN);
            return *out ? NULL : oom();
        }
        if (n == 1) op = op == FLOE_ICE_EXPR_IN ? FLOE_ICE_EXPR_EQ : FLOE_ICE_EXPR_NOT_EQ;
    }
    floe_ice_expr *b = floe_ice__expr_pred_new(op, full, NULL, 0);
    if (!b) {
        for (int32_t i = 0; i < n; i++) floe_ice_value_free(&vals[i]);
        floe_free(vals);
        return oom();
    }
    b->values = vals;
    b->n_values = n;
    b->bound = true;
    b->field_id = f->id;
    b->in_collection = floe_ice_schema_in_list_or_map(schema, f->id);
    st = floe_ice_type_copy(ft, &b->field_type);
    if (st) {
        floe_ice_expr_free(b);
        return st;
    }
    *out = b;
    return NULL;
}

static floe_status bind(const floe_ice_expr *e, const floe_ice_schema *schema, bool cs, floe_ice_expr **out) {
    *out = NULL;
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE:
    case FLOE_ICE_EXPR_FALSE:
        *out = const_expr(e->op == FLOE_ICE_EXPR_TRUE);
        return *out ? NULL : oom();
    case FLOE_ICE_EXPR_NOT: {
        floe_ice_expr *c;
        FLOE_TRY(bind(e->left, schema, cs, &c));
        *out = floe_ice_expr_not(c);
        return *out ? NULL : oom();
    }
    case FLOE_ICE_EXPR_AND:
    case FLOE_ICE_EXPR_OR: {
        floe_ice_expr *l, *r;
        FLOE_TRY(bind(e->left, schema, cs, &l));
        floe_status st = bind(e->right, schema, cs, &r);
        if (st) {
            floe_ice_expr_free(l);
            return st;
        }
        *out = e->op == FLOE_ICE_EXPR_AND ? floe_ice_expr_and(l, r) : floe_ice_expr_or(l, r);
        return *out ? NULL : oom();
    }
    default:
        if (e->bound) {
            *out = floe_ice_expr_copy(e);
            return *out ? NULL : oom();
        }
        return bind_pred(e, schema, cs, out);
    }
}

floe_status floe_ice_expr_bind(const floe_ice_expr *e, const floe_ice_schema *schema, bool case_sensitive,
                               floe_ice_expr **out) {
    *out = NULL;
    if (!e || !schema) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "bind needs an expression and a schema");
    return bind(e, schema, case_sensitive, out);
}
