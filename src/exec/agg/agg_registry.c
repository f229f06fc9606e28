/*
 * agg_registry.c — the aggregate function registry (agg_func.h): the
 * entries of the built-in functions (whose work is agg_kernels.c's fast
 * loops), lookup by name across the families' tables (agg_fn_stat.c,
 * agg_fn_misc.c, agg_fn_list.c, agg_fn_sketch.c), and resolving a call.
 */
#include <math.h>
#include <string.h>

#include "exec/agg/agg_func.h"
#include "floe/memory.h"

/* The built-in functions: agg_kernels.c folds them (fast != NAMED).
 * Entries give their name positionally ({"sum", ...}): source_rules.sh
 * takes `.name = "X"` for a plan node type's name. */
static const agg_func k_builtin[] = {
    {"count", .fast = FLOE_AGG_COUNT, .min_args = 1, .max_args = 1, .flags = AGGF_STAR},
    {"sum", .fast = FLOE_AGG_SUM, .min_args = 1, .max_args = 1},
    {"min", .fast = FLOE_AGG_MIN, .min_args = 1, .max_args = 1},
    {"max", .fast = FLOE_AGG_MAX, .min_args = 1, .max_args = 1},
    {"avg", .fast = FLOE_AGG_AVG, .min_args = 1, .max_args = 1},
    {"bool_and", .fast = FLOE_AGG_BOOL_AND, .min_args = 1, .max_args = 1},
    {"every", .fast = FLOE_AGG_BOOL_AND, .min_args = 1, .max_args = 1},
    {"bool_or", .fast = FLOE_AGG_BOOL_OR, .min_args = 1, .max_args = 1},
    {.name = NULL},
};

static const agg_func *const k_tables[] = {k_builtin, floe_agg_stat_funcs, floe_agg_misc_funcs, floe_agg_list_funcs,
                                          floe_agg_sketch_funcs, floe_agg_json_funcs, floe_agg_interval_funcs};

const agg_func *floe_agg_lookup(const char *name) {
    if (!name) return NULL;
    for (size_t t = 0; t < sizeof k_tables / sizeof k_tables[0]; t++)
        for (const agg_func *f = k_tables[t]; f->name; f++)
            if (!strcmp(f->name, name)) return f;
    return NULL;
}

const agg_func *floe_agg_func_of(const floe_agg_call *c) {
    if (c->fn == FLOE_AGG_NAMED) return floe_agg_lookup(c->func);
    if (c->fn == FLOE_AGG_COUNT_STAR) return &k_builtin[0];
    for (const agg_func *f = k_builtin; f->name; f++)
        if (f->fast == c->fn) return f;
    return NULL;
}

const char *floe_agg_call_func_name(const floe_agg_call *c) {
    if (c->fn == FLOE_AGG_NAMED) return c->func ? c->func : "?";
    return floe_agg_fn_name(c->fn);
}

bool floe_agg_is_aggregate_name(const char *name) { return floe_agg_lookup(name) != NULL; }

bool floe_agg_describe(const char *name, floe_agg_desc *out) {
    const agg_func *f = floe_agg_lookup(name);
    if (!f) return false;
    out->name = f->name;
    out->fn = f->fast;
    out->min_args = f->min_args;
    out->max_args = f->max_args;
    out->star_ok = (f->flags & AGGF_STAR) != 0;
    out->within_group = (f->flags & AGGF_WITHIN_GROUP) != 0;
    return true;
}

bool floe_agg_call_needs_single(const floe_agg_call *c) {
    if (c->distinct || c->n_order > 0) return true;
    const agg_func *f = floe_agg_func_of(c);
    return f && (f->flags & AGGF_HOLISTIC);
}

floe_status floe_agg_resolve(const agg_func *f, floe_type *const *args, int32_t n, floe_type *const *order,
                             int32_t n_order, agg_info *ai) {
    memset(ai, 0, sizeof *ai);
    ai->fn = f;
    if (n < f->min_args || n > f->max_args || n > 2)
        return f->min_args == f->max_args
                   ? floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s takes %d argument%s, not %d", f->name, f->max_args,
                                f->max_args == 1 ? "" : "s", n)
                   : floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s takes %d to %d arguments, not %d", f->name,
                                f->min_args, f->max_args, n);
    ai->n_args = n;
    for (int32_t i = 0; i < n; i++) ai->arg_types[i] = args[i];
    ai->n_order = n_order;
    for (int32_t i = 0; i < n_order && i < 4; i++) ai->order_types[i] = order[i];
    if ((f->flags & AGGF_WITHIN_GROUP) && n_order != 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s needs WITHIN GROUP (ORDER BY one expression)", f->name);
    if (!f->resolve) return floe_error(FLOE_ERR_INTERNAL, "%s: no resolver", f->name);
    return f->resolve(ai);
}

/* ------------------------------------------------------------ helpers */

bool floe_agg_is_numeric(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_INT64:
    case FLOE_TYPE_FLOAT32:
    case FLOE_TYPE_FLOAT64:
    case FLOE_TYPE_DECIMAL128: return true;
    default: return false;
    }
}

double floe_agg_num(const floe_array *a, int64_t r) {
    switch (a->type->id) {
    case FLOE_TYPE_INT32: return (double)floe_array_get_int32(a, r);
    case FLOE_TYPE_INT64: return (double)floe_array_get_int64(a, r);
    case FLOE_TYPE_FLOAT32: return (double)floe_array_get_float(a, r);
    case FLOE_TYPE_FLOAT64: return floe_array_get_double(a, r);
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 d = floe_array_get_decimal(a, r);
        __int128 v = ((__int128)d.hi << 64) | (__int128)d.lo;
        return (double)v / pow(10.0, a->type->scale);
    }
    default: return 0;
    }
}

floe_status floe_agg_pod_serialize(const agg_info *ai, const uint8_t *state, floe_buf *out) {
    return floe_buf_append(out, state, ai->state_size);
}

floe_status floe_agg_pod_deserialize(const agg_info *ai, const uint8_t *bytes, size_t len, uint8_t *state) {
    if (len != ai->state_size)
        return floe_error(FLOE_ERR_CORRUPT, "%s: a partial state of %zu bytes, not %zu", ai->fn->name, len,
                          ai->state_size);
    memcpy(state, bytes, len);
    return NULL;
}

/* ------------------------------------------------------------- calls */

floe_status floe_agg_call_copy(const floe_agg_call *src, floe_agg_call *dst) {
    *dst = *src;
    dst->arg = floe_expr_retain(src->arg);
    dst->arg2 = floe_expr_retain(src->arg2);
    dst->filter = floe_expr_retain(src->filter);
    dst->name = src->name ? floe_strdup(src->name) : NULL;
    dst->func = src->func ? floe_strdup(src->func) : NULL;
    dst->order = NULL;
    dst->n_order = 0;
    floe_status st = NULL;
    if ((src->name && !dst->name) || (src->func && !dst->func))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying an aggregate call");
    if (!st && src->n_order > 0) {
        dst->order = floe_calloc((size_t)src->n_order, sizeof *dst->order);
        if (!dst->order) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying an aggregate call");
        for (int32_t k = 0; !st && k < src->n_order; k++) {
            dst->order[k] = src->order[k];
            dst->order[k].expr = floe_expr_retain(src->order[k].expr);
            dst->n_order = k + 1;
        }
    }
    if (st) floe_agg_call_clear(dst);
    return st;
}

void floe_agg_call_clear(floe_agg_call *c) {
    floe_expr_release(c->arg);
    floe_expr_release(c->arg2);
    floe_expr_release(c->filter);
    floe_free(c->name);
    floe_free(c->func);
    for (int32_t k = 0; k < c->n_order; k++) floe_expr_release(c->order[k].expr);
    floe_free(c->order);
    memset(c, 0, sizeof *c);
}
