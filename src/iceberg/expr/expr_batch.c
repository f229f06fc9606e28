/*
 * expr_batch.c — vectorized evaluation of bound Iceberg filters over the
 * columns of a batch (see expr_batch.h).
 *
 * NOT is first pushed to the leaves (floe_ice_expr_rewrite_not) so every
 * leaf is evaluated with the two-valued semantics of the row evaluator.
 * Leaves on fixed-width numeric columns run as loops over the values and
 * the validity bitmap; the rest go through floe_ice_expr_eval_row slot by
 * slot, which keeps the two evaluators in agreement by construction.
 */
#include <math.h>
#include <string.h>

#include "floe/memory.h"
#include "iceberg/expr/expr_batch.h"

floe_ice_value floe_ice_array_value(const floe_array *a, const floe_ice_type *it, int64_t i) {
    if (!a || floe_array_is_null(a, i)) return floe_ice_null(it->id);
    switch (it->id) {
    case FLOE_ICE_BOOLEAN: return floe_ice_bool(floe_array_get_bool(a, i));
    case FLOE_ICE_INT: return floe_ice_int(floe_array_get_int32(a, i));
    case FLOE_ICE_DATE: return floe_ice_date(floe_array_get_int32(a, i));
    case FLOE_ICE_LONG: return floe_ice_long(floe_array_get_int64(a, i));
    case FLOE_ICE_TIME: return floe_ice_time(floe_array_get_int64(a, i));
    case FLOE_ICE_TIMESTAMP: return floe_ice_timestamp(floe_array_get_int64(a, i));
    case FLOE_ICE_TIMESTAMPTZ: return floe_ice_timestamptz(floe_array_get_int64(a, i));
    case FLOE_ICE_TIMESTAMP_NS: return floe_ice_timestamp_ns(floe_array_get_int64(a, i));
    case FLOE_ICE_TIMESTAMPTZ_NS: return floe_ice_timestamptz_ns(floe_array_get_int64(a, i));
    case FLOE_ICE_FLOAT: return floe_ice_float(floe_array_get_float(a, i));
    case FLOE_ICE_DOUBLE: return floe_ice_double(floe_array_get_double(a, i));
    case FLOE_ICE_DECIMAL: {
        floe_decimal128 d = floe_array_get_decimal(a, i);
        floe_int128 v;
        memcpy(&v, &d, sizeof v);
        return floe_ice_decimal(v, it->scale);
    }
    case FLOE_ICE_UUID: return floe_ice_uuid(floe_array_get_fixed(a, i));
    case FLOE_ICE_FIXED: return floe_ice_fixed(floe_array_get_fixed(a, i), (size_t)it->length);
    case FLOE_ICE_STRING: {
        floe_strview s = floe_array_get_str(a, i);
        return floe_ice_string(s.data, (size_t)s.len);
    }
    case FLOE_ICE_BINARY: {
        floe_strview s = floe_array_get_str(a, i);
        return floe_ice_binary((const uint8_t *)s.data, (size_t)s.len);
    }
    default: return floe_ice_null(it->id);
    }
}

/* Result of a comparison op for a present, non-NaN value: c = sign of
 * (value - literal). */
static inline uint8_t cmp_result(floe_ice_expr_op op, int c) {
    switch (op) {
    case FLOE_ICE_EXPR_LT: return c < 0;
    case FLOE_ICE_EXPR_LT_EQ: return c <= 0;
    case FLOE_ICE_EXPR_GT: return c > 0;
    case FLOE_ICE_EXPR_GT_EQ: return c >= 0;
    case FLOE_ICE_EXPR_EQ: return c == 0;
    default: return c != 0; /* NOT_EQ */
    }
}

#define CMP_LOOP(GET, LIT)                                                                          \
    for (int64_t i = 0; i < n; i++) {                                                               \
        if (has_nulls && floe_array_is_null(a, i)) {                                                \
            out[i] = miss;                                                                          \
            continue;                                                                               \
        }                                                                                           \
        __typeof__(LIT) v = GET(a, i);                                                              \
        out[i] = cmp_result(op, (v > (LIT)) - (v < (LIT)));                                         \
    }

#define FCMP_LOOP(GET, LIT)                                                                         \
    for (int64_t i = 0; i < n; i++) {                                                               \
        if (has_nulls && floe_array_is_null(a, i)) {                                                \
            out[i] = miss;                                                                          \
            continue;                                                                               \
        }                                                                                           \
        double v = (double)GET(a, i);                                                               \
        out[i] = isnan(v) ? miss : cmp_result(op, (v > (LIT)) - (v < (LIT)));                       \
    }

/* A comparison or null/NaN test on a numeric column; false if the column
 * type has no fast path here. */
static bool leaf_fast(const floe_ice_expr *e, const floe_array *a, const floe_ice_type *t, int64_t n,
                      uint8_t *out) {
    floe_ice_expr_op op = e->op;
    bool has_nulls = a && floe_array_null_count(a) > 0;
    if (op == FLOE_ICE_EXPR_IS_NULL || op == FLOE_ICE_EXPR_NOT_NULL) {
        uint8_t on_null = op == FLOE_ICE_EXPR_IS_NULL;
        for (int64_t i = 0; i < n; i++) out[i] = (!a || (has_nulls && floe_array_is_null(a, i))) ? on_null : !on_null;
        return true;
    }
    if (!a) return false;
    /* A null or NaN satisfies only the negated forms. */
    uint8_t miss = op == FLOE_ICE_EXPR_NOT_EQ;
    if (op < FLOE_ICE_EXPR_LT || op > FLOE_ICE_EXPR_NOT_EQ || e->n_values != 1 || e->values[0].is_null) return false;
    const floe_ice_value *lit = &e->values[0];
    switch (t->id) {
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE:
        if (lit->type != t->id) return false;
        CMP_LOOP(floe_array_get_int32, lit->v.i32);
        return true;
    case FLOE_ICE_LONG:
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS:
        if (lit->type != t->id) return false;
        CMP_LOOP(floe_array_get_int64, lit->v.i64);
        return true;
    case FLOE_ICE_FLOAT:
        if (lit->type != FLOE_ICE_FLOAT || isnan(lit->v.f32)) return false;
        FCMP_LOOP(floe_array_get_float, (double)lit->v.f32);
        return true;
    case FLOE_ICE_DOUBLE:
        if (lit->type != FLOE_ICE_DOUBLE || isnan(lit->v.f64)) return false;
        FCMP_LOOP(floe_array_get_double, lit->v.f64);
        return true;
    default:
        return false;
    }
}

static floe_status eval(const floe_ice_expr *e, const floe_ice_batch_columns *c, int64_t n, uint8_t *out) {
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE: memset(out, 1, (size_t)n); return NULL;
    case FLOE_ICE_EXPR_FALSE: memset(out, 0, (size_t)n); return NULL;
    case FLOE_ICE_EXPR_AND:
    case FLOE_ICE_EXPR_OR: {
        FLOE_TRY(eval(e->left, c, n, out));
        uint8_t *tmp = floe_malloc((size_t)n + 1);
        if (!tmp) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "filter evaluation");
        floe_status st = eval(e->right, c, n, tmp);
        if (!st) {
            if (e->op == FLOE_ICE_EXPR_AND) for (int64_t i = 0; i < n; i++) out[i] &= tmp[i];
            else for (int64_t i = 0; i < n; i++) out[i] |= tmp[i];
        }
        floe_free(tmp);
        return st;
    }
    case FLOE_ICE_EXPR_NOT:
        return floe_error(FLOE_ERR_INTERNAL, "filter evaluation: NOT left after rewriting");
    default: break;
    }
    int32_t k = 0;
    while (k < c->n && c->field_ids[k] != e->field_id) k++;
    const floe_array *a = k < c->n ? c->arrays[k] : NULL;
    const floe_ice_type *t = k < c->n ? c->types[k] : e->field_type;
    if (leaf_fast(e, a, t, n, out)) return NULL;
    /* Everything else: the row evaluator, one slot at a time. */
    for (int64_t i = 0; i < n; i++) {
        floe_ice_value v = floe_ice_array_value(a, t, i);
        floe_ice_row row = {1, &e->field_id, &v};
        out[i] = floe_ice_expr_eval_row(e, &row);
    }
    return NULL;
}

floe_status floe_ice_expr_eval_batch(const floe_ice_expr *bound, const floe_ice_batch_columns *cols,
                                     int64_t n_rows, uint8_t *out) {
    if (n_rows <= 0) return NULL;
    floe_ice_expr *e = NULL;
    FLOE_TRY(floe_ice_expr_rewrite_not(bound, &e));
    floe_status st = eval(e, cols, n_rows, out);
    floe_ice_expr_free(e);
    return st;
}
