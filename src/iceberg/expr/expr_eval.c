/*
 * expr_eval.c — evaluating bound expressions: on one row (or partition
 * tuple), on a data file's column metrics (inclusive: might any row match;
 * strict: must all rows match), on a manifest's partition field summaries,
 * and the residual filter left for a file once its partition is known.
 *
 * The rule everywhere: only say "cannot match" (or "all match") when the
 * inputs prove it.  Missing counts or bounds, fields inside lists or maps
 * (whose counts and bounds describe elements, not rows) and NaN bounds all
 * answer "might match" / "not all".  Bounds of floats exclude NaN, so NaN
 * counts are checked separately; string and binary bounds may be truncated
 * (lower: a prefix of the minimum; upper: a prefix of the maximum with its
 * last byte incremented), which every comparison below tolerates because a
 * truncated lower bound is still <= the minimum and a truncated upper bound
 * still >= the maximum.
 */
#include <string.h>

#include "floe/iceberg_expr.h"
#include "floe/memory.h"
#include "iceberg/expr/expr_internal.h"

/* ---- one row ------------------------------------------------------------- */

static const floe_ice_value *row_lookup(const floe_ice_row *row, int32_t id) {
    for (int32_t i = 0; i < row->n; i++)
        if (row->field_ids[i] == id) return &row->values[i];
    return NULL;
}

static bool bytes_start_with(const floe_ice_value *v, const floe_ice_value *prefix) {
    if (v->type != FLOE_ICE_STRING || prefix->type != FLOE_ICE_STRING) return false; /* wrong-typed input */
    return v->v.bytes.len >= prefix->v.bytes.len &&
           (prefix->v.bytes.len == 0 || memcmp(v->v.bytes.data, prefix->v.bytes.data, prefix->v.bytes.len) == 0);
}

static bool in_set(const floe_ice_value *v, const floe_ice_expr *e) {
    int32_t lo = 0, hi = e->n_values - 1;
    while (lo <= hi) { /* bound sets are sorted */
        int32_t mid = lo + (hi - lo) / 2;
        int c = floe_ice__cmp(&e->values[mid], v);
        if (c == 0) return true;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return false;
}

/* The positive form of a predicate on one value. */
static bool pred_row(floe_ice_expr_op op, const floe_ice_value *v, const floe_ice_expr *e) {
    bool null = !v || v->is_null;
    switch (op) {
    case FLOE_ICE_EXPR_IS_NULL: return null;
    case FLOE_ICE_EXPR_IS_NAN: return !null && floe_ice__is_nan(v);
    default: break;
    }
    if (null || floe_ice__is_nan(v)) return false;
    switch (op) {
    case FLOE_ICE_EXPR_LT: return floe_ice__cmp(v, &e->values[0]) < 0;
    case FLOE_ICE_EXPR_LT_EQ: return floe_ice__cmp(v, &e->values[0]) <= 0;
    case FLOE_ICE_EXPR_GT: return floe_ice__cmp(v, &e->values[0]) > 0;
    case FLOE_ICE_EXPR_GT_EQ: return floe_ice__cmp(v, &e->values[0]) >= 0;
    case FLOE_ICE_EXPR_EQ: return floe_ice__cmp(v, &e->values[0]) == 0;
    case FLOE_ICE_EXPR_STARTS_WITH: return bytes_start_with(v, &e->values[0]);
    case FLOE_ICE_EXPR_IN: return in_set(v, e);
    default: return false;
    }
}

static bool is_negative_op(floe_ice_expr_op op) {
    return op == FLOE_ICE_EXPR_NOT_NULL || op == FLOE_ICE_EXPR_NOT_NAN || op == FLOE_ICE_EXPR_NOT_EQ ||
           op == FLOE_ICE_EXPR_NOT_STARTS_WITH || op == FLOE_ICE_EXPR_NOT_IN;
}

/* Where a row's values come from: a floe_ice_row, or a partition tuple. */
typedef const floe_ice_value *(*lookup_fn)(const void *ctx, int32_t field_id);

static const floe_ice_value *lookup_row(const void *ctx, int32_t id) { return row_lookup(ctx, id); }

typedef struct tuple_ctx {
    const floe_ice_partition_spec *spec;
    const floe_ice_value *values;
} tuple_ctx;

static const floe_ice_value *lookup_tuple(const void *ctx, int32_t id) {
    const tuple_ctx *t = ctx;
    for (int32_t i = 0; i < t->spec->n_fields; i++)
        if (t->spec->fields[i].field_id == id) return &t->values[i];
    return NULL;
}

/* NOT is evaluated as if pushed down to the leaves (what every other
 * evaluator sees after floe_ice_expr_rewrite_not), so that a row's answer
 * never depends on where a NOT was written: not(x > 5) is x <= 5, false
 * for a null x. */
static bool eval_row(const floe_ice_expr *e, lookup_fn get, const void *ctx, bool negate) {
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE: return !negate;
    case FLOE_ICE_EXPR_FALSE: return negate;
    case FLOE_ICE_EXPR_AND:
    case FLOE_ICE_EXPR_OR: {
        bool is_and = (e->op == FLOE_ICE_EXPR_AND) != negate;
        bool l = eval_row(e->left, get, ctx, negate);
        if (is_and ? !l : l) return l;
        return eval_row(e->right, get, ctx, negate);
    }
    case FLOE_ICE_EXPR_NOT: return eval_row(e->left, get, ctx, !negate);
    default: break;
    }
    const floe_ice_value *v = get(ctx, e->field_id);
    floe_ice_expr_op op = negate ? floe_ice_expr_op_negate(e->op) : e->op;
    if (is_negative_op(op)) return !pred_row(floe_ice_expr_op_negate(op), v, e);
    return pred_row(op, v, e);
}

bool floe_ice_expr_eval_row(const floe_ice_expr *e, const floe_ice_row *row) {
    return eval_row(e, lookup_row, row, false);
}

bool floe_ice_partition_might_match(const floe_ice_expr *projected, const floe_ice_partition_spec *spec,
                                    const floe_ice_value *partition) {
    tuple_ctx t = {spec, partition};
    return eval_row(projected, lookup_tuple, &t, false);
}

/* ---- shared bound helpers ------------------------------------------------ */

typedef struct bounds {
    bool has_lower, has_upper;
    floe_ice_value lower, upper;
} bounds;

static floe_status decode_bound(const floe_ice_expr *e, const uint8_t *p, size_t n, const char *which,
                                floe_ice_value *out, bool *has) {
    *has = false;
    if (!p) return NULL;
    FLOE_TRY_CTX(floe_ice_value_from_bytes(e->field_type, p, n, out), "%s bound of field %d ('%s')", which,
                 (int)e->field_id, e->name);
    /* A NaN bound (some old writers) says nothing usable. */
    *has = !floe_ice__is_nan(out);
    return NULL;
}

static floe_status decode_bounds(const floe_ice_expr *e, const uint8_t *lo, size_t lo_len, const uint8_t *hi,
                                 size_t hi_len, bounds *b) {
    FLOE_TRY(decode_bound(e, lo, lo_len, "lower", &b->lower, &b->has_lower));
    FLOE_TRY(decode_bound(e, hi, hi_len, "upper", &b->upper, &b->has_upper));
    return NULL;
}

/* Compare the first min(len(v), len(prefix)) bytes of v with prefix... as
 * the order of v truncated to |prefix| bytes against prefix. */
static int cmp_truncated(const floe_ice_value *v, const floe_ice_value *prefix) {
    if (v->type != FLOE_ICE_STRING || prefix->type != FLOE_ICE_STRING) return 0; /* undecided */
    size_t n = v->v.bytes.len < prefix->v.bytes.len ? v->v.bytes.len : prefix->v.bytes.len;
    int c = n ? memcmp(v->v.bytes.data, prefix->v.bytes.data, n) : 0;
    if (c != 0) return c;
    return v->v.bytes.len < prefix->v.bytes.len ? -1 : 0;
}

/* Can some value in [lower, upper] satisfy the positive comparison? */
static bool range_might(const floe_ice_expr *e, const bounds *b) {
    const floe_ice_value *lit = e->n_values ? &e->values[0] : NULL;
    switch (e->op) {
    case FLOE_ICE_EXPR_LT: return !(b->has_lower && floe_ice__cmp(&b->lower, lit) >= 0);
    case FLOE_ICE_EXPR_LT_EQ: return !(b->has_lower && floe_ice__cmp(&b->lower, lit) > 0);
    case FLOE_ICE_EXPR_GT: return !(b->has_upper && floe_ice__cmp(&b->upper, lit) <= 0);
    case FLOE_ICE_EXPR_GT_EQ: return !(b->has_upper && floe_ice__cmp(&b->upper, lit) < 0);
    case FLOE_ICE_EXPR_EQ:
        if (b->has_lower && floe_ice__cmp(&b->lower, lit) > 0) return false;
        if (b->has_upper && floe_ice__cmp(&b->upper, lit) < 0) return false;
        return true;
    case FLOE_ICE_EXPR_IN:
        for (int32_t i = 0; i < e->n_values; i++) {
            if (b->has_lower && floe_ice__cmp(&b->lower, &e->values[i]) > 0) continue;
            if (b->has_upper && floe_ice__cmp(&b->upper, &e->values[i]) < 0) continue;
            return true;
        }
        return false;
    case FLOE_ICE_EXPR_STARTS_WITH:
        if (b->has_lower && cmp_truncated(&b->lower, lit) > 0) return false;
        if (b->has_upper && cmp_truncated(&b->upper, lit) < 0) return false;
        return true;
    default:
        return true;
    }
}

/* Are all values in [lower, upper] equal to one value of the predicate's
 * literals?  (Needs both bounds; lower == upper pins every value.) */
static bool range_single_in(const floe_ice_expr *e, const bounds *b) {
    if (!b->has_lower || !b->has_upper || floe_ice__cmp(&b->lower, &b->upper) != 0) return false;
    return in_set(&b->lower, e);
}

static bool starts_with_prefix(const floe_ice_value *v, const floe_ice_value *prefix) {
    return bytes_start_with(v, prefix);
}

/* ---- inclusive metrics --------------------------------------------------- */

static const floe_ice_field_metrics *find_metrics(const floe_ice_file_metrics *m, int32_t id) {
    for (int32_t i = 0; i < m->n_fields; i++)
        if (m->fields[i].field_id == id) return &m->fields[i];
    return NULL;
}

typedef struct counts {
    int64_t values, nulls, nans;
    bool is_float;
} counts;

static counts get_counts(const floe_ice_expr *e, const floe_ice_field_metrics *fm) {
    counts c = {-1, -1, -1, false};
    c.is_float = e->field_type->id == FLOE_ICE_FLOAT || e->field_type->id == FLOE_ICE_DOUBLE;
    if (fm) {
        c.values = fm->value_count;
        c.nulls = fm->null_count;
        c.nans = fm->nan_count;
    }
    if (!c.is_float) c.nans = 0; /* only floats hold NaN */
    return c;
}
static bool all_null(const counts *c) { return c->values >= 0 && c->nulls >= 0 && c->nulls == c->values; }
static bool all_nan(const counts *c) { return c->values >= 0 && c->nans >= 0 && c->nans == c->values; }
static bool all_null_or_nan(const counts *c) {
    return c->values >= 0 && c->nulls >= 0 && c->nans >= 0 && c->nulls + c->nans == c->values;
}
/* No nulls and no NaNs for sure: then every row has a comparable value. */
static bool all_comparable(const counts *c) { return c->nulls == 0 && c->nans == 0; }

static floe_status metrics_pred_might(const floe_ice_expr *e, const floe_ice_field_metrics *fm, bool *r) {
    *r = true;
    if (e->in_collection) return NULL;
    counts c = get_counts(e, fm);
    switch (e->op) {
    case FLOE_ICE_EXPR_IS_NULL: *r = c.nulls != 0; return NULL;
    case FLOE_ICE_EXPR_NOT_NULL: *r = !all_null(&c); return NULL;
    case FLOE_ICE_EXPR_IS_NAN: *r = c.nans != 0 && !all_null(&c); return NULL;
    case FLOE_ICE_EXPR_NOT_NAN: *r = !all_nan(&c); return NULL;
    default: break;
    }
    if (!fm) return NULL;
    bounds b;
    FLOE_TRY(decode_bounds(e, fm->lower, fm->lower_len, fm->upper, fm->upper_len, &b));
    switch (e->op) {
    case FLOE_ICE_EXPR_NOT_EQ:
    case FLOE_ICE_EXPR_NOT_IN:
        *r = !(all_comparable(&c) && range_single_in(e, &b));
        return NULL;
    case FLOE_ICE_EXPR_NOT_STARTS_WITH:
        if (c.nulls != 0 || !b.has_lower || !b.has_upper) return NULL;
        *r = !(starts_with_prefix(&b.lower, &e->values[0]) && starts_with_prefix(&b.upper, &e->values[0]));
        return NULL;
    default:
        if (all_null_or_nan(&c) || all_null(&c) || all_nan(&c)) {
            *r = false;
            return NULL;
        }
        *r = range_might(e, &b);
        return NULL;
    }
}

static floe_status metrics_might(const floe_ice_expr *e, const floe_ice_file_metrics *m, bool *r) {
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE: *r = true; return NULL;
    case FLOE_ICE_EXPR_FALSE: *r = false; return NULL;
    case FLOE_ICE_EXPR_AND:
        FLOE_TRY(metrics_might(e->left, m, r));
        if (!*r) return NULL;
        return metrics_might(e->right, m, r);
    case FLOE_ICE_EXPR_OR:
        FLOE_TRY(metrics_might(e->left, m, r));
        if (*r) return NULL;
        return metrics_might(e->right, m, r);
    case FLOE_ICE_EXPR_NOT:
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "metrics evaluation needs a NOT-free expression "
                                                     "(floe_ice_expr_rewrite_not)");
    default:
        if (!e->bound) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "predicate on '%s' is not bound", e->name);
        return metrics_pred_might(e, find_metrics(m, e->field_id), r);
    }
}

floe_status floe_ice_metrics_might_match(const floe_ice_expr *bound, const floe_ice_file_metrics *m,
                                         bool *might_match) {
    *might_match = true;
    if (!bound || !m) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "metrics evaluation needs an expression and metrics");
    if (m->record_count == 0) {
        *might_match = false; /* an empty file matches nothing */
        return NULL;
    }
    floe_status st = metrics_might(bound, m, might_match);
    if (st) *might_match = true;
    return st;
}

/* ---- strict metrics ------------------------------------------------------ */

static floe_status metrics_pred_all(const floe_ice_expr *e, const floe_ice_field_metrics *fm, bool *r) {
    *r = false;
    if (e->in_collection || !fm) return NULL;
    counts c = get_counts(e, fm);
    switch (e->op) {
    case FLOE_ICE_EXPR_IS_NULL: *r = all_null(&c); return NULL;
    case FLOE_ICE_EXPR_NOT_NULL: *r = c.nulls == 0; return NULL;
    case FLOE_ICE_EXPR_IS_NAN: *r = all_nan(&c); return NULL;
    case FLOE_ICE_EXPR_NOT_NAN: *r = c.nans == 0 || all_null(&c); return NULL;
    default: break;
    }
    bounds b;
    FLOE_TRY(decode_bounds(e, fm->lower, fm->lower_len, fm->upper, fm->upper_len, &b));
    const floe_ice_value *lit = &e->values[0];
    switch (e->op) {
    case FLOE_ICE_EXPR_NOT_EQ:
    case FLOE_ICE_EXPR_NOT_IN:
    case FLOE_ICE_EXPR_NOT_STARTS_WITH: {
        /* Nulls and NaNs satisfy these; decide on the other values. */
        if (all_null_or_nan(&c) || all_null(&c) || all_nan(&c)) {
            *r = true;
            return NULL;
        }
        if (e->op == FLOE_ICE_EXPR_NOT_STARTS_WITH) {
            *r = (b.has_lower && cmp_truncated(&b.lower, lit) > 0) || (b.has_upper && cmp_truncated(&b.upper, lit) < 0);
            return NULL;
        }
        bool all_outside = true;
        for (int32_t i = 0; i < e->n_values && all_outside; i++) {
            bool below = b.has_upper && floe_ice__cmp(&b.upper, &e->values[i]) < 0;
            bool above = b.has_lower && floe_ice__cmp(&b.lower, &e->values[i]) > 0;
            all_outside = below || above;
        }
        *r = all_outside;
        return NULL;
    }
    default:
        break;
    }
    if (!all_comparable(&c)) return NULL;
    switch (e->op) {
    case FLOE_ICE_EXPR_LT: *r = b.has_upper && floe_ice__cmp(&b.upper, lit) < 0; break;
    case FLOE_ICE_EXPR_LT_EQ: *r = b.has_upper && floe_ice__cmp(&b.upper, lit) <= 0; break;
    case FLOE_ICE_EXPR_GT: *r = b.has_lower && floe_ice__cmp(&b.lower, lit) > 0; break;
    case FLOE_ICE_EXPR_GT_EQ: *r = b.has_lower && floe_ice__cmp(&b.lower, lit) >= 0; break;
    case FLOE_ICE_EXPR_EQ:
    case FLOE_ICE_EXPR_IN: *r = range_single_in(e, &b); break;
    case FLOE_ICE_EXPR_STARTS_WITH:
        *r = b.has_lower && b.has_upper && starts_with_prefix(&b.lower, lit) && starts_with_prefix(&b.upper, lit);
        break;
    default: break;
    }
    return NULL;
}

static floe_status metrics_all(const floe_ice_expr *e, const floe_ice_file_metrics *m, bool *r) {
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE: *r = true; return NULL;
    case FLOE_ICE_EXPR_FALSE: *r = false; return NULL;
    case FLOE_ICE_EXPR_AND:
        FLOE_TRY(metrics_all(e->left, m, r));
        if (!*r) return NULL;
        return metrics_all(e->right, m, r);
    case FLOE_ICE_EXPR_OR:
        FLOE_TRY(metrics_all(e->left, m, r));
        if (*r) return NULL;
        return metrics_all(e->right, m, r);
    case FLOE_ICE_EXPR_NOT:
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "metrics evaluation needs a NOT-free expression "
                                                     "(floe_ice_expr_rewrite_not)");
    default:
        if (!e->bound) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "predicate on '%s' is not bound", e->name);
        return metrics_pred_all(e, find_metrics(m, e->field_id), r);
    }
}

floe_status floe_ice_metrics_all_match(const floe_ice_expr *bound, const floe_ice_file_metrics *m, bool *all_match) {
    *all_match = false;
    if (!bound || !m) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "metrics evaluation needs an expression and metrics");
    if (m->record_count == 0) {
        *all_match = true; /* vacuously */
        return NULL;
    }
    floe_status st = metrics_all(bound, m, all_match);
    if (st) *all_match = false;
    return st;
}

/* ---- manifest partition summaries ---------------------------------------- */

static floe_status summary_pred_might(const floe_ice_expr *e, const floe_ice_partition_summary *s, bool *r) {
    *r = true;
    if (!s) return NULL;
    bool is_float = e->field_type->id == FLOE_ICE_FLOAT || e->field_type->id == FLOE_ICE_DOUBLE;
    int nan = is_float ? s->contains_nan : 0; /* -1 unknown */
    /* Per the spec the bounds cover non-null, non-NaN values only. */
    bool no_values = s->lower == NULL;
    bool only_nulls = s->contains_null && no_values && nan == 0;
    switch (e->op) {
    case FLOE_ICE_EXPR_IS_NULL: *r = s->contains_null; return NULL;
    case FLOE_ICE_EXPR_NOT_NULL: *r = !only_nulls; return NULL;
    case FLOE_ICE_EXPR_IS_NAN: *r = nan != 0 && !only_nulls; return NULL;
    case FLOE_ICE_EXPR_NOT_NAN: *r = !(nan == 1 && !s->contains_null && no_values); return NULL;
    default: break;
    }
    bounds b;
    FLOE_TRY(decode_bounds(e, s->lower, s->lower_len, s->upper, s->upper_len, &b));
    switch (e->op) {
    case FLOE_ICE_EXPR_NOT_EQ:
    case FLOE_ICE_EXPR_NOT_IN:
        *r = !(!s->contains_null && nan == 0 && range_single_in(e, &b));
        return NULL;
    case FLOE_ICE_EXPR_NOT_STARTS_WITH:
        if (s->contains_null || !b.has_lower || !b.has_upper) return NULL;
        *r = !(starts_with_prefix(&b.lower, &e->values[0]) && starts_with_prefix(&b.upper, &e->values[0]));
        return NULL;
    default:
        if (no_values) {
            *r = false;
            return NULL;
        }
        *r = range_might(e, &b);
        return NULL;
    }
}

static const floe_ice_partition_summary *find_summary(const floe_ice_partition_summary *s, int32_t n, int32_t id) {
    for (int32_t i = 0; i < n; i++)
        if (s[i].field_id == id) return &s[i];
    return NULL;
}

static floe_status manifest_might(const floe_ice_expr *e, const floe_ice_partition_summary *s, int32_t n, bool *r) {
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE: *r = true; return NULL;
    case FLOE_ICE_EXPR_FALSE: *r = false; return NULL;
    case FLOE_ICE_EXPR_AND:
        FLOE_TRY(manifest_might(e->left, s, n, r));
        if (!*r) return NULL;
        return manifest_might(e->right, s, n, r);
    case FLOE_ICE_EXPR_OR:
        FLOE_TRY(manifest_might(e->left, s, n, r));
        if (*r) return NULL;
        return manifest_might(e->right, s, n, r);
    case FLOE_ICE_EXPR_NOT:
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "manifest evaluation needs a NOT-free expression "
                                                     "(floe_ice_expr_rewrite_not)");
    default:
        if (!e->bound) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "predicate on '%s' is not bound", e->name);
        return summary_pred_might(e, find_summary(s, n, e->field_id), r);
    }
}

floe_status floe_ice_manifest_might_match(const floe_ice_expr *projected, const floe_ice_partition_summary *summaries,
                                          int32_t n_summaries, bool *might_match) {
    *might_match = true;
    if (!projected) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "manifest evaluation needs an expression");
    floe_status st = manifest_might(projected, summaries, summaries ? n_summaries : 0, might_match);
    if (st) *might_match = true;
    return st;
}

/* ---- residuals ----------------------------------------------------------- */

static floe_status residual(const floe_ice_expr *e, const floe_ice_partition_spec *spec, const floe_ice_row *prow,
                            floe_ice_expr **out) {
    *out = NULL;
    switch (e->op) {
    case FLOE_ICE_EXPR_TRUE:
    case FLOE_ICE_EXPR_FALSE:
        break;
    case FLOE_ICE_EXPR_AND:
    case FLOE_ICE_EXPR_OR: {
        floe_ice_expr *l, *r;
        FLOE_TRY(residual(e->left, spec, prow, &l));
        floe_status st = residual(e->right, spec, prow, &r);
        if (st) {
            floe_ice_expr_free(l);
            return st;
        }
        *out = e->op == FLOE_ICE_EXPR_AND ? floe_ice_expr_and(l, r) : floe_ice_expr_or(l, r);
        return *out ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory computing a residual");
    }
    case FLOE_ICE_EXPR_NOT:
        return floe_error(FLOE_ERR_INTERNAL, "residual met a NOT after rewriting");
    default:
        if (!e->bound) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "predicate on '%s' is not bound", e->name);
        for (int32_t i = 0; i < spec->n_fields; i++) {
            const floe_ice_partition_field *pf = &spec->fields[i];
            if (pf->n_source_ids != 1 || pf->source_id != e->field_id) continue;
            for (int strict = 1; strict >= 0; strict--) {
                floe_ice_expr *p = NULL;
                FLOE_TRY(floe_ice__project_pred(e, pf, strict, &p));
                if (!p) continue;
                bool v = floe_ice_expr_eval_row(p, prow);
                floe_ice_expr_free(p);
                if (strict && v) {
                    *out = floe_ice_expr_true();
                    goto done;
                }
                if (!strict && !v) {
                    *out = floe_ice_expr_false();
                    goto done;
                }
            }
        }
        break;
    }
    *out = floe_ice_expr_copy(e);
done:
    return *out ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory computing a residual");
}

floe_status floe_ice_expr_residual(const floe_ice_expr *bound, const floe_ice_partition_spec *spec,
                                   const floe_ice_value *partition, int32_t n_partition, floe_ice_expr **out) {
    *out = NULL;
    if (!bound || !spec) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "residual needs an expression and a spec");
    if (n_partition != spec->n_fields || (n_partition > 0 && !partition))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "partition tuple has %d values, spec %d has %d fields",
                          (int)n_partition, (int)spec->spec_id, (int)spec->n_fields);
    int32_t *ids = floe_malloc((size_t)(n_partition > 0 ? n_partition : 1) * sizeof *ids);
    if (!ids) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory computing a residual");
    for (int32_t i = 0; i < n_partition; i++) ids[i] = spec->fields[i].field_id;
    floe_ice_row prow = {n_partition, ids, partition};
    floe_ice_expr *rw = NULL;
    floe_status st = floe_ice_expr_rewrite_not(bound, &rw);
    if (!st) st = residual(rw, spec, &prow, out);
    floe_ice_expr_free(rw);
    floe_free(ids);
    return st;
}
