/*
 * agg_fn_list.c — the holistic aggregates of the registry (AGGF_HOLISTIC:
 * the hash aggregate collects a group's rows and sorts them by the call's
 * ORDER BY; finalize_rows sees them in order): string_agg and array_agg
 * (PostgreSQL), the ordered-set aggregates percentile_cont /
 * percentile_disc / mode() WITHIN GROUP (ORDER BY x) (PostgreSQL) and
 * median (DuckDB: percentile_cont(0.5) of a numeric argument, as double).
 *
 * cols holds the call's arguments then its ORDER BY key values; for
 * WITHIN GROUP the one key is the aggregated value (percentile_cont(f)
 * WITHIN GROUP (ORDER BY x): cols[0] = f, cols[1] = x; mode(): cols[0] =
 * x).  The fraction is read at the group's first row (PostgreSQL
 * evaluates it once per group).
 */
#include <math.h>
#include <string.h>

#include "exec/agg/agg_func.h"
#include "exec/sort/sort_keys.h"
#include "floe/memory.h"

/* ----------------------------------------------------------- string_agg */

static floe_status sagg_resolve(agg_info *ai) {
    floe_type_id a = ai->arg_types[0]->id, d = ai->arg_types[1]->id;
    bool text = (a == FLOE_TYPE_STRING || a == FLOE_TYPE_NULL) && (d == FLOE_TYPE_STRING || d == FLOE_TYPE_NULL);
    bool bin = a == FLOE_TYPE_BINARY && (d == FLOE_TYPE_BINARY || d == FLOE_TYPE_NULL);
    if (!text && !bin)
        return floe_error(FLOE_ERR_TYPE, "string_agg(%s, %s) is not defined", floe_type_id_name(a), floe_type_id_name(d));
    ai->out_type = floe_type_primitive(bin ? FLOE_TYPE_BINARY : FLOE_TYPE_STRING);
    return NULL;
}

static floe_status sagg_rows(const agg_info *ai, floe_array *const *cols, const uint32_t *idx, int64_t n,
                             floe_builder *out) {
    (void)ai;
    const floe_array *x = cols[0], *d = cols[1];
    floe_buf b = FLOE_BUF_INIT;
    bool any = false;
    floe_status st = NULL;
    for (int64_t k = 0; k < n && !st; k++) {
        int64_t r = idx[k];
        if (x->type->id == FLOE_TYPE_NULL || floe_array_is_null(x, r)) continue;
        if (any && d->type->id != FLOE_TYPE_NULL && !floe_array_is_null(d, r)) {
            floe_strview dv = floe_array_get_str(d, r);
            st = floe_buf_append(&b, dv.data, (size_t)dv.len);
        }
        floe_strview v = floe_array_get_str(x, r);
        if (!st) st = floe_buf_append(&b, v.data, (size_t)v.len);
        any = true;
    }
    if (!st) st = any ? floe_builder_append_binary(out, b.len ? (const void *)b.data : "", (int64_t)b.len)
                      : floe_builder_append_null(out);
    floe_buf_free(&b);
    return st;
}

/* ------------------------------------------------------------ array_agg */

static floe_status aagg_resolve(agg_info *ai) {
    if (ai->arg_types[0]->id == FLOE_TYPE_NULL)
        return floe_error(FLOE_ERR_TYPE, "array_agg: could not determine the element type of a NULL argument");
    floe_field e = {0};
    floe_status st = floe_field_init(&e, "element", ai->arg_types[0], true, -1);
    if (!st) st = floe_type_list(&e, &ai->out_type);
    floe_field_clear(&e);
    return st;
}

static floe_status aagg_rows(const agg_info *ai, floe_array *const *cols, const uint32_t *idx, int64_t n,
                             floe_builder *out) {
    (void)ai;
    if (n == 0) return floe_builder_append_null(out);
    FLOE_TRY(floe_builder_append_take(floe_builder_child(out, 0), cols[0], idx, n));
    return floe_builder_append_list(out);
}

/* ----------------------------------------------------------- percentiles */

static floe_status pcont_resolve(agg_info *ai) {
    bool median = (ai->fn->flags & AGGF_SORTS_ARG) != 0; /* median(x): no fraction, x is argument 0 */
    const floe_type *x = median ? ai->arg_types[0] : ai->order_types[0];
    if (!median && !floe_agg_is_numeric(ai->arg_types[0]) && ai->arg_types[0]->id != FLOE_TYPE_NULL)
        return floe_error(FLOE_ERR_TYPE, "%s: the fraction must be a number, not %s", ai->fn->name,
                          floe_type_id_name(ai->arg_types[0]->id));
    if (!floe_agg_is_numeric(x) && x->id != FLOE_TYPE_NULL)
        return floe_error(FLOE_ERR_TYPE, "%s of %s is not supported (numbers only)", ai->fn->name,
                          floe_type_id_name(x->id));
    ai->out_type = floe_type_primitive(FLOE_TYPE_FLOAT64);
    return NULL;
}

static floe_status pdisc_resolve(agg_info *ai) {
    if (!floe_agg_is_numeric(ai->arg_types[0]) && ai->arg_types[0]->id != FLOE_TYPE_NULL)
        return floe_error(FLOE_ERR_TYPE, "%s: the fraction must be a number, not %s", ai->fn->name,
                          floe_type_id_name(ai->arg_types[0]->id));
    if (floe_type_is_nested(ai->order_types[0]))
        return floe_error(FLOE_ERR_TYPE, "%s of %s is not supported", ai->fn->name,
                          floe_type_id_name(ai->order_types[0]->id));
    ai->out_type = floe_type_retain(ai->order_types[0]);
    return NULL;
}

/* The fraction of the group (row idx[0] of cols[0]): *null when NULL. */
static floe_status fraction_of(const agg_info *ai, const floe_array *f, int64_t r, double *out, bool *null) {
    *null = f->type->id == FLOE_TYPE_NULL || floe_array_is_null(f, r);
    if (*null) return NULL;
    *out = floe_agg_num(f, r);
    if (!(*out >= 0 && *out <= 1))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: percentile value %g is not between 0 and 1", ai->fn->name,
                          *out);
    return NULL;
}

/* The non-NULL rows of x among idx[0..n), in order, into *vals. */
static floe_status non_null_rows(const floe_array *x, const uint32_t *idx, int64_t n, uint32_t **vals, int64_t *m) {
    *m = 0;
    *vals = floe_malloc_array((size_t)(n ? n : 1), sizeof **vals);
    if (!*vals) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "percentile: %lld rows", (long long)n);
    if (x->type->id == FLOE_TYPE_NULL) return NULL;
    for (int64_t k = 0; k < n; k++)
        if (!floe_array_is_null(x, idx[k])) (*vals)[(*m)++] = idx[k];
    return NULL;
}

static floe_status pcont_rows(const agg_info *ai, floe_array *const *cols, const uint32_t *idx, int64_t n,
                              floe_builder *out) {
    bool median = (ai->fn->flags & AGGF_SORTS_ARG) != 0; /* median(x): no fraction, x is argument 0 */
    double f = 0.5;
    bool fnull = false;
    if (n == 0) return floe_builder_append_null(out);
    if (!median) FLOE_TRY(fraction_of(ai, cols[0], idx[0], &f, &fnull));
    if (fnull) return floe_builder_append_null(out);
    const floe_array *x = median ? cols[0] : cols[1];
    uint32_t *v;
    int64_t m;
    FLOE_TRY(non_null_rows(x, idx, n, &v, &m));
    floe_status st;
    if (m == 0) {
        st = floe_builder_append_null(out);
    } else {
        double pos = f * (double)(m - 1);
        int64_t lo = (int64_t)floor(pos), hi = (int64_t)ceil(pos);
        double a = floe_agg_num(x, v[lo]), b = floe_agg_num(x, v[hi]);
        st = floe_builder_append_double(out, lo == hi ? a : a + (pos - (double)lo) * (b - a));
    }
    floe_free(v);
    return st;
}

static floe_status pdisc_rows(const agg_info *ai, floe_array *const *cols, const uint32_t *idx, int64_t n,
                              floe_builder *out) {
    double f = 0;
    bool fnull = false;
    if (n == 0) return floe_builder_append_null(out);
    FLOE_TRY(fraction_of(ai, cols[0], idx[0], &f, &fnull));
    if (fnull) return floe_builder_append_null(out);
    uint32_t *v;
    int64_t m;
    FLOE_TRY(non_null_rows(cols[1], idx, n, &v, &m));
    floe_status st;
    if (m == 0) {
        st = floe_builder_append_null(out);
    } else {
        int64_t k = (int64_t)ceil(f * (double)m) - 1;
        if (k < 0) k = 0;
        if (k >= m) k = m - 1;
        st = floe_builder_append_array(out, cols[1], v[k], 1);
    }
    floe_free(v);
    return st;
}

/* ----------------------------------------------------------------- mode */

static floe_status mode_resolve(agg_info *ai) {
    if (floe_type_is_nested(ai->order_types[0]))
        return floe_error(FLOE_ERR_TYPE, "mode of %s is not supported", floe_type_id_name(ai->order_types[0]->id));
    ai->out_type = floe_type_retain(ai->order_types[0]);
    return NULL;
}

static floe_status mode_rows(const agg_info *ai, floe_array *const *cols, const uint32_t *idx, int64_t n,
                             floe_builder *out) {
    (void)ai;
    if (n == 0) return floe_builder_append_null(out);
    const floe_array *x = cols[0];
    uint32_t *v;
    int64_t m;
    FLOE_TRY(non_null_rows(x, idx, n, &v, &m));
    floe_sort_key key = {NULL, false, false};
    int64_t best = -1, best_n = 0;
    for (int64_t i = 0; i < m;) {
        int64_t j = i + 1;
        while (j < m && floe_sk_compare_one(&key, x, v[i], x, v[j]) == 0) j++;
        if (j - i > best_n) {
            best_n = j - i;
            best = i;
        }
        i = j;
    }
    floe_status st = best < 0 ? floe_builder_append_null(out) : floe_builder_append_array(out, x, v[best], 1);
    floe_free(v);
    return st;
}

const agg_func floe_agg_list_funcs[] = {
    {"string_agg", .fast = FLOE_AGG_NAMED, .min_args = 2, .max_args = 2, .flags = AGGF_HOLISTIC,
     .resolve = sagg_resolve, .finalize_rows = sagg_rows},
    {"array_agg", .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1,
     .flags = AGGF_HOLISTIC | AGGF_KEEPS_NULLS, .resolve = aagg_resolve, .finalize_rows = aagg_rows},
    {"median", .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1, .flags = AGGF_HOLISTIC | AGGF_SORTS_ARG,
     .resolve = pcont_resolve, .finalize_rows = pcont_rows},
    {"percentile_cont", .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1,
     .flags = AGGF_HOLISTIC | AGGF_WITHIN_GROUP, .resolve = pcont_resolve, .finalize_rows = pcont_rows},
    {"percentile_disc", .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1,
     .flags = AGGF_HOLISTIC | AGGF_WITHIN_GROUP, .resolve = pdisc_resolve, .finalize_rows = pdisc_rows},
    {"mode", .fast = FLOE_AGG_NAMED, .min_args = 0, .max_args = 0, .flags = AGGF_HOLISTIC | AGGF_WITHIN_GROUP,
     .resolve = mode_resolve, .finalize_rows = mode_rows},
    {.name = NULL},
};
