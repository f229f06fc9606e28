/*
 * expr_project.c — projecting row filters onto partition specs.
 *
 * Inclusive projection answers "which partitions can hold a matching row"
 * (for pruning); strict projection "in which partitions does every row
 * match" (for deletes and residuals).  Per transform:
 *
 *   identity        the predicate itself, on the partition field;
 *   bucket          inclusive: eq, in; strict: not_eq, not_in;
 *   truncate (int-like) and year/month/day/hour (order-preserving floors):
 *                   inclusive  x < L  -> p <= t(L-1),  x <= L -> p <= t(L),
 *                              x > L  -> p >= t(L+1),  x >= L -> p >= t(L),
 *                              eq/in on t(L);
 *                   strict     x < L  -> p < t(L),     x <= L -> p < t(L+1),
 *                              x > L  -> p > t(L),     x >= L -> p > t(L-1),
 *                              not_eq/not_in on t(L);
 *   truncate (strings, binary): bounds cannot be adjusted by one, so
 *                   inclusive lt/lt_eq -> p <= t(L), gt/gt_eq -> p >= t(L);
 *                   strict lt/lt_eq -> p < t(L), gt/gt_eq -> p > t(L);
 *                   starts_with / not_starts_with depend on |L| vs W;
 *   void, unknown   nothing (true inclusive, false strict).
 *
 * Old Iceberg writers rounded pre-epoch time partition values toward zero
 * (a timestamp of -1 µs landed in day 0, not day -1), so a stored value p
 * may be one above the true floor when negative.  As Iceberg Java does,
 * time projections absorb that: inclusive p <= v (v < 0) becomes p <= v+1
 * and p = v becomes p in (v, v+1); strict p > v (v < 0) becomes p > v+1
 * and p != v becomes p not in (v, v+1).
 */
#include <string.h>

#include "floe/iceberg_expr.h"
#include "floe/memory.h"
#include "iceberg/expr/expr_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory projecting an expression"); }

static bool is_time_transform(floe_ice_transform_kind k) {
    return k == FLOE_ICE_TRANSFORM_YEAR || k == FLOE_ICE_TRANSFORM_MONTH || k == FLOE_ICE_TRANSFORM_DAY ||
           k == FLOE_ICE_TRANSFORM_HOUR;
}

/* lit + delta (delta = +-1 in the literal's own unit).  False on overflow
 * or for types without a successor (strings, floats ...). */
static bool step(const floe_ice_value *lit, int delta, floe_ice_value *out) {
    *out = *lit;
    switch (lit->type) {
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE:
        if ((delta > 0 && lit->v.i32 == INT32_MAX) || (delta < 0 && lit->v.i32 == INT32_MIN)) return false;
        out->v.i32 += delta;
        return true;
    case FLOE_ICE_LONG:
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS:
        if ((delta > 0 && lit->v.i64 == INT64_MAX) || (delta < 0 && lit->v.i64 == INT64_MIN)) return false;
        out->v.i64 += delta;
        return true;
    case FLOE_ICE_DECIMAL: {
        floe_int128 lim = 1;
        for (int i = 0; i < 38; i++) lim *= 10;
        if ((delta > 0 && lit->v.dec >= lim) || (delta < 0 && lit->v.dec <= -lim)) return false;
        out->v.dec += delta;
        return true;
    }
    default:
        return false;
    }
}

/* The transformed literal, as an int32 for the time fix-ups. */
static int32_t int_of(const floe_ice_value *v) { return v->v.i32; }

static size_t cp_count(const floe_ice_value *v) {
    if (v->type != FLOE_ICE_STRING) return v->v.bytes.len;
    size_t n = 0;
    for (size_t i = 0; i < v->v.bytes.len; i++)
        if ((v->v.bytes.data[i] & 0xC0) != 0x80) n++;
    return n;
}

/* Build the partition predicate: `op` on partition field `pf` (result type
 * `rt`, consumed) with `n` values (copied). */
static floe_status make(floe_ice_expr_op op, const floe_ice_partition_field *pf, floe_ice_type *rt,
                        floe_ice_value *vals, int32_t n, bool sort, floe_ice_expr **out) {
    if (sort && n > 1) n = floe_ice__sort_unique(vals, n);
    if (n == 1 && op == FLOE_ICE_EXPR_IN) op = FLOE_ICE_EXPR_EQ;
    if (n == 1 && op == FLOE_ICE_EXPR_NOT_IN) op = FLOE_ICE_EXPR_NOT_EQ;
    floe_ice_expr *e = floe_ice__expr_pred_new(op, pf->name, vals, n);
    if (!e) {
        floe_ice_type_free(rt);
        return oom();
    }
    e->bound = true;
    e->field_id = pf->field_id;
    e->field_type = rt;
    *out = e;
    return NULL;
}

/* Apply `t` to every literal of `pred` into vals[0..n) (views allowed),
 * optionally after adding `delta`.  False if a step overflowed. */
static floe_status apply_all(const floe_ice_transform *t, const floe_ice_expr *pred, int delta, floe_ice_value *vals,
                             bool *ok) {
    *ok = true;
    for (int32_t i = 0; i < pred->n_values; i++) {
        floe_ice_value in = pred->values[i];
        if (delta && !step(&pred->values[i], delta, &in)) {
            *ok = false;
            return NULL;
        }
        /* A literal the transform cannot map (truncate overflowing near
         * INT64_MIN) leaves the predicate without a projection. */
        floe_status st = floe_ice_transform_apply(t, &in, &vals[i]);
        if (st) {
            floe_status_free(st);
            *ok = false;
            return NULL;
        }
        /* truncate[W] of an int near INT32_MIN wraps around (as in Java);
         * a truncation that went up is no bound at all. */
        if (t->kind == FLOE_ICE_TRANSFORM_TRUNCATE && in.type == FLOE_ICE_INT && vals[i].v.i32 > in.v.i32) {
            *ok = false;
            return NULL;
        }
    }
    return NULL;
}

/* For time transforms: add v+1 beside every negative v of a set. */
static int32_t widen_negative(floe_ice_value *vals, int32_t n) {
    int32_t m = n;
    for (int32_t i = 0; i < n; i++)
        if (int_of(&vals[i]) < 0) {
            vals[m] = vals[i];
            vals[m].v.i32 = int_of(&vals[i]) + 1;
            m++;
        }
    return m;
}

static floe_status project_ordered(const floe_ice_expr *pred, const floe_ice_partition_field *pf, bool strict,
                                   floe_ice_type *rt, floe_ice_value *vals, floe_ice_expr **out) {
    const floe_ice_transform *t = &pf->transform;
    bool time = is_time_transform(t->kind);
    floe_ice_expr_op op = pred->op, rop;
    int delta = 0;
    bool ok;
    int32_t n = pred->n_values;
    if (!strict) {
        switch (op) {
        case FLOE_ICE_EXPR_LT: rop = FLOE_ICE_EXPR_LT_EQ; delta = -1; break;
        case FLOE_ICE_EXPR_LT_EQ: rop = FLOE_ICE_EXPR_LT_EQ; break;
        case FLOE_ICE_EXPR_GT: rop = FLOE_ICE_EXPR_GT_EQ; delta = 1; break;
        case FLOE_ICE_EXPR_GT_EQ: rop = FLOE_ICE_EXPR_GT_EQ; break;
        case FLOE_ICE_EXPR_EQ: rop = FLOE_ICE_EXPR_EQ; break;
        case FLOE_ICE_EXPR_IN: rop = FLOE_ICE_EXPR_IN; break;
        default: goto none;
        }
    } else {
        switch (op) {
        case FLOE_ICE_EXPR_LT: rop = FLOE_ICE_EXPR_LT; break;
        case FLOE_ICE_EXPR_LT_EQ: rop = FLOE_ICE_EXPR_LT; delta = 1; break;
        case FLOE_ICE_EXPR_GT: rop = FLOE_ICE_EXPR_GT; break;
        case FLOE_ICE_EXPR_GT_EQ: rop = FLOE_ICE_EXPR_GT; delta = -1; break;
        case FLOE_ICE_EXPR_NOT_EQ: rop = FLOE_ICE_EXPR_NOT_EQ; break;
        case FLOE_ICE_EXPR_NOT_IN: rop = FLOE_ICE_EXPR_NOT_IN; break;
        default: goto none;
        }
    }
    FLOE_TRY(apply_all(t, pred, delta, vals, &ok));
    if (!ok) goto none;
    if (time) {
        int32_t v = int_of(&vals[0]);
        if (!strict && rop == FLOE_ICE_EXPR_LT_EQ && v < 0) vals[0].v.i32 = v + 1;
        if (strict && rop == FLOE_ICE_EXPR_GT && v < 0) vals[0].v.i32 = v + 1;
        if ((!strict && (rop == FLOE_ICE_EXPR_EQ || rop == FLOE_ICE_EXPR_IN)) ||
            (strict && (rop == FLOE_ICE_EXPR_NOT_EQ || rop == FLOE_ICE_EXPR_NOT_IN))) {
            int32_t m = widen_negative(vals, n);
            if (m > n) rop = strict ? FLOE_ICE_EXPR_NOT_IN : FLOE_ICE_EXPR_IN;
            n = m;
        }
    }
    return make(rop, pf, rt, vals, n, true, out);
none:
    floe_ice_type_free(rt);
    return NULL;
}

static floe_status project_truncate_bytes(const floe_ice_expr *pred, const floe_ice_partition_field *pf, bool strict,
                                          floe_ice_type *rt, floe_ice_value *vals, floe_ice_expr **out) {
    const floe_ice_transform *t = &pf->transform;
    size_t w = (size_t)t->param;
    floe_ice_expr_op op = pred->op, rop;
    bool ok;
    switch (op) {
    case FLOE_ICE_EXPR_LT:
    case FLOE_ICE_EXPR_LT_EQ: rop = strict ? FLOE_ICE_EXPR_LT : FLOE_ICE_EXPR_LT_EQ; break;
    case FLOE_ICE_EXPR_GT:
    case FLOE_ICE_EXPR_GT_EQ: rop = strict ? FLOE_ICE_EXPR_GT : FLOE_ICE_EXPR_GT_EQ; break;
    case FLOE_ICE_EXPR_EQ:
    case FLOE_ICE_EXPR_IN:
        if (strict) goto none;
        rop = op;
        break;
    case FLOE_ICE_EXPR_NOT_EQ:
    case FLOE_ICE_EXPR_NOT_IN:
        if (!strict) goto none;
        rop = op;
        break;
    case FLOE_ICE_EXPR_STARTS_WITH: {
        size_t len = cp_count(&pred->values[0]);
        if (strict && len > w) goto none;
        rop = (!strict && len >= w) ? FLOE_ICE_EXPR_EQ : FLOE_ICE_EXPR_STARTS_WITH;
        break;
    }
    case FLOE_ICE_EXPR_NOT_STARTS_WITH: {
        size_t len = cp_count(&pred->values[0]);
        if (strict) {
            rop = FLOE_ICE_EXPR_NOT_STARTS_WITH;
            break;
        }
        if (len > w) goto none;
        rop = len == w ? FLOE_ICE_EXPR_NOT_EQ : FLOE_ICE_EXPR_NOT_STARTS_WITH;
        break;
    }
    default:
        goto none;
    }
    FLOE_TRY(apply_all(t, pred, 0, vals, &ok));
    if (!ok) goto none;
    return make(rop, pf, rt, vals, pred->n_values, true, out);
none:
    floe_ice_type_free(rt);
    return NULL;
}

floe_status floe_ice__project_pred(const floe_ice_expr *pred, const floe_ice_partition_field *pf, bool strict,
                                   floe_ice_expr **out) {
    *out = NULL;
    const floe_ice_transform *t = &pf->transform;
    if (t->kind == FLOE_ICE_TRANSFORM_VOID || t->kind == FLOE_ICE_TRANSFORM_UNKNOWN) return NULL;
    if (!floe_ice_transform_can_apply(t, pred->field_type)) return NULL;
    floe_ice_type *rt = NULL;
    FLOE_TRY(floe_ice_transform_result_type(t, pred->field_type, &rt));
    floe_ice_expr_op op = pred->op;

    if (t->kind == FLOE_ICE_TRANSFORM_IDENTITY) return make(op, pf, rt, pred->values, pred->n_values, false, out);
    if (op == FLOE_ICE_EXPR_IS_NULL || op == FLOE_ICE_EXPR_NOT_NULL) return make(op, pf, rt, NULL, 0, false, out);
    if (op == FLOE_ICE_EXPR_IS_NAN || op == FLOE_ICE_EXPR_NOT_NAN || pred->n_values == 0) {
        floe_ice_type_free(rt);
        return NULL;
    }

    /* Room for the transformed literals, doubled for the time fix-ups. */
    floe_ice_value *vals = floe_malloc((size_t)pred->n_values * 2 * sizeof *vals);
    if (!vals) {
        floe_ice_type_free(rt);
        return oom();
    }
    floe_status st = NULL;
    if (t->kind == FLOE_ICE_TRANSFORM_BUCKET) {
        bool want = strict ? (op == FLOE_ICE_EXPR_NOT_EQ || op == FLOE_ICE_EXPR_NOT_IN)
                           : (op == FLOE_ICE_EXPR_EQ || op == FLOE_ICE_EXPR_IN);
        bool ok;
        if (!want) {
            floe_ice_type_free(rt);
        } else {
            st = apply_all(t, pred, 0, vals, &ok);
            if (!st && ok) st = make(op, pf, rt, vals, pred->n_values, true, out);
            else floe_ice_type_free(rt);
        }
    } else {
        floe_ice_type_id src = pred->field_type->id;
        bool bytes = src == FLOE_ICE_STRING || src == FLOE_ICE_BINARY || src == FLOE_ICE_FIXED;
        if (t->kind == FLOE_ICE_TRANSFORM_TRUNCATE && bytes)
            st = project_truncate_bytes(pred, pf, strict, rt, vals, out);
        else if (op == FLOE_ICE_EXPR_STARTS_WITH || op == FLOE_ICE_EXPR_NOT_STARTS_WITH)
            floe_ice_type_free(rt);
        else
            st = project_ordered(pred, pf, strict, rt, vals, out);
    }
    floe_free(vals); /* transformed values are views or plain scalars */
    return st;
}

static floe_status project(const floe_ice_expr *e, const floe_ice_partition_spec *spec, bool strict,
                           floe_ice_expr **out) {
    *out = NULL;
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE:
    case FLOE_ICE_EXPR_FALSE:
        *out = floe_ice_expr_copy(e);
        return *out ? NULL : oom();
    case FLOE_ICE_EXPR_AND:
    case FLOE_ICE_EXPR_OR: {
        floe_ice_expr *l, *r;
        FLOE_TRY(project(e->left, spec, strict, &l));
        floe_status st = project(e->right, spec, strict, &r);
        if (st) {
            floe_ice_expr_free(l);
            return st;
        }
        *out = e->op == FLOE_ICE_EXPR_AND ? floe_ice_expr_and(l, r) : floe_ice_expr_or(l, r);
        return *out ? NULL : oom();
    }
    case FLOE_ICE_EXPR_NOT:
        return floe_error(FLOE_ERR_INTERNAL, "projection met a NOT after rewriting");
    default:
        break;
    }
    if (!e->bound) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot project unbound predicate on '%s'", e->name);
    /* Inclusive: and of every field's projection (none = true).
     * Strict: or of them (none = false). */
    floe_ice_expr *acc = strict ? floe_ice_expr_false() : floe_ice_expr_true();
    if (!acc) return oom();
    for (int32_t i = 0; i < spec->n_fields; i++) {
        const floe_ice_partition_field *pf = &spec->fields[i];
        if (pf->n_source_ids != 1 || pf->source_id != e->field_id) continue;
        floe_ice_expr *p = NULL;
        floe_status st = floe_ice__project_pred(e, pf, strict, &p);
        if (st) {
            floe_ice_expr_free(acc);
            return st;
        }
        if (!p) continue;
        acc = strict ? floe_ice_expr_or(acc, p) : floe_ice_expr_and(acc, p);
        if (!acc) return oom();
    }
    *out = acc;
    return NULL;
}

static floe_status project_top(const floe_ice_expr *bound, const floe_ice_partition_spec *spec, bool strict,
                               floe_ice_expr **out) {
    *out = NULL;
    if (!bound || !spec) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "projection needs an expression and a spec");
    floe_ice_expr *rw = NULL;
    FLOE_TRY(floe_ice_expr_rewrite_not(bound, &rw));
    floe_status st = project(rw, spec, strict, out);
    floe_ice_expr_free(rw);
    return st;
}

floe_status floe_ice_expr_project_inclusive(const floe_ice_expr *bound, const floe_ice_partition_spec *spec,
                                            floe_ice_expr **out) {
    return project_top(bound, spec, false, out);
}

floe_status floe_ice_expr_project_strict(const floe_ice_expr *bound, const floe_ice_partition_spec *spec,
                                         floe_ice_expr **out) {
    return project_top(bound, spec, true, out);
}
