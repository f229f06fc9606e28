/*
 * func_array_ops.c — PostgreSQL's array functions and operators over
 * floe's lists (FLOE_TYPE_LIST), any element type:
 *
 *   array_append(list, x)    list with x added at the end; a NULL list is
 *                            an empty one (array_append(NULL, 1) = {1})
 *   array_prepend(x, list)   list with x added at the front
 *   array_cat(a, b)          a's elements then b's (a || b); NULL lists are
 *                            empty, both NULL: NULL
 *   array_position(list, x)  1-based index of the first element IS NOT
 *                            DISTINCT FROM x (NULL finds NULL), else NULL
 *   array_remove(list, x)    list without the elements IS NOT DISTINCT FROM x
 *   __array_any(list, x, op) / __array_all(list, x, op)   x op ANY / ALL
 *                            (list) with op a FLOE_CMP_* code: three-valued,
 *                            an empty list is false / true, a NULL list NULL
 *   __list_cmp(a, b, op)     a op b for two lists (= <> < <= > >=, op a
 *                            FLOE_CMP_* code) as PostgreSQL orders arrays:
 *                            element by element, a NULL element equal to a
 *                            NULL and above any value, then the shorter
 *                            first; NULL when either list is NULL
 *   __array_slice(list, lo, hi)  xs[lo:hi]: the elements at 1-based
 *                            positions lo..hi clamped to the list (empty
 *                            when none), NULL when any argument is NULL
 *
 * The binder (sql/bind_nested.c) gives x the list's element type, so one
 * comparison of equal types (exec/sort's, NULLs apart) serves every type.
 */
#include <string.h>

#include "exec/func/functions.h"
#include "exec/sort/sort_keys.h"

/* ------------------------------------------------------------- types */

static const floe_type *elem_of(const floe_type *t) { return t->id == FLOE_TYPE_LIST ? t->children[0].type : NULL; }

/* Does value type x fit list type l's elements (NULL types fit)? */
static bool fits(const floe_type *l, const floe_type *x) {
    return l->id == FLOE_TYPE_NULL || x->id == FLOE_TYPE_NULL || floe_type_compatible(elem_of(l), x);
}

/* Lists of lists ... of values with an order. */
static bool list_orderable(const floe_type *t) { return t->id == FLOE_TYPE_LIST && floe_sk_type_orderable(t); }

static floe_status ops_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types, int32_t n,
                            floe_type **out) {
    (void)args;
    *out = NULL;
    int32_t li = def->tag == 1 ? 1 : 0, xi = def->tag == 1 ? 0 : 1; /* array_prepend(x, list) */
    const floe_type *l = types[li], *x = types[xi];
    if (l->id != FLOE_TYPE_LIST && l->id != FLOE_TYPE_NULL) return fn_type_error(def, types, n);
    switch (def->tag) {
    case 2: /* array_cat */
        if (x->id != FLOE_TYPE_LIST && x->id != FLOE_TYPE_NULL) return fn_type_error(def, types, n);
        if (l->id == FLOE_TYPE_LIST && x->id == FLOE_TYPE_LIST && !floe_type_compatible(l, x))
            return fn_type_error(def, types, n);
        *out = floe_type_retain(l->id == FLOE_TYPE_LIST ? (floe_type *)l : (floe_type *)x);
        return NULL;
    case 3: /* array_position */
        if (!fits(l, x)) return fn_type_error(def, types, n);
        *out = floe_type_primitive(FLOE_TYPE_INT32);
        return NULL;
    case 8: /* __list_cmp */
        if (l->id != FLOE_TYPE_LIST || types[1]->id != FLOE_TYPE_LIST || !floe_type_compatible(l, types[1]) ||
            !list_orderable(l) || !fn_is_int(types[2]))
            return fn_type_error(def, types, n);
        *out = floe_type_primitive(FLOE_TYPE_BOOL);
        return NULL;
    case 7: /* slice */
        if (l->id != FLOE_TYPE_LIST || (!fn_is_int(types[1]) && types[1]->id != FLOE_TYPE_NULL) ||
            (!fn_is_int(types[2]) && types[2]->id != FLOE_TYPE_NULL))
            return fn_type_error(def, types, n);
        *out = floe_type_retain((floe_type *)l);
        return NULL;
    case 5: case 6: /* any / all */
        if (!fits(l, x) || !fn_is_int(types[2])) return fn_type_error(def, types, n);
        *out = floe_type_primitive(FLOE_TYPE_BOOL);
        return NULL;
    default: /* append, prepend, remove */
        if (l->id != FLOE_TYPE_LIST || !fits(l, x)) return fn_type_error(def, types, n);
        *out = floe_type_retain((floe_type *)l);
        return NULL;
    }
}

/* ------------------------------------------------------ comparisons */

static int compare(const floe_array *a, int64_t i, const floe_array *b, int64_t j) {
    static const floe_sort_key asc = {0};
    return floe_sk_compare_one(&asc, a, i, b, j);
}

/* Is element j of el IS NOT DISTINCT FROM slot xi of x? */
static bool not_distinct(const floe_array *el, int64_t j, const floe_array *x, int64_t xi) {
    bool en = floe_array_is_null(el, j), xn = x->type->id == FLOE_TYPE_NULL || floe_array_is_null(x, xi);
    if (en || xn) return en && xn;
    return compare(el, j, x, xi) == 0;
}

/* Slot i of list a against slot j of list b (both valid), as PostgreSQL's
 * array comparison orders them. */
static int list_compare(const floe_array *a, int64_t i, const floe_array *b, int64_t j) {
    int64_t ab, ae, bb, be;
    floe_array_get_range(a, i, &ab, &ae);
    floe_array_get_range(b, j, &bb, &be);
    const floe_array *ea = a->children[0], *eb = b->children[0];
    for (int64_t k = 0; ab + k < ae && bb + k < be; k++) {
        bool na = floe_array_is_null(ea, ab + k), nb = floe_array_is_null(eb, bb + k);
        if (na || nb) {
            if (na && nb) continue;
            return na ? 1 : -1;
        }
        int c = compare(ea, ab + k, eb, bb + k);
        if (c) return c;
    }
    int64_t la = ae - ab, lb = be - bb;
    return la < lb ? -1 : la > lb;
}

static bool holds(floe_cmp_op op, int c) {
    switch (op) {
    case FLOE_CMP_EQ: return c == 0;
    case FLOE_CMP_NE: return c != 0;
    case FLOE_CMP_LT: return c < 0;
    case FLOE_CMP_LE: return c <= 0;
    case FLOE_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* ----------------------------------------------------------- kernels */

/* Append list slot r of l (if valid) to the element builder eb. */
static floe_status put_list(floe_builder *eb, const floe_array *l, int64_t r) {
    if (l->type->id == FLOE_TYPE_NULL || fn_null(l, r)) return NULL;
    int64_t b, e;
    floe_array_get_range(l, fn_at(l, r), &b, &e);
    return e > b ? floe_builder_append_array(eb, l->children[0], b, e - b) : NULL;
}

static floe_status put_value(floe_builder *eb, const floe_array *x, int64_t r) {
    if (x->type->id == FLOE_TYPE_NULL) return floe_builder_append_null(eb);
    return floe_builder_append_array(eb, x, fn_at(x, r), 1);
}

static floe_status build_eval(const floe_func_def *def, floe_array *const *args, int64_t rows, floe_type *rtype,
                              floe_array **out) {
    floe_builder *b = NULL;
    FLOE_TRY(floe_builder_new(rtype, rows, &b));
    floe_builder *eb = floe_builder_child(b, 0);
    floe_status st = NULL;
    for (int64_t r = 0; r < rows && !st; r++) {
        switch (def->tag) {
        case 0: /* array_append(list, x) */
            st = put_list(eb, args[0], r);
            if (!st) st = put_value(eb, args[1], r);
            break;
        case 1: /* array_prepend(x, list) */
            st = put_value(eb, args[0], r);
            if (!st) st = put_list(eb, args[1], r);
            break;
        case 2: { /* array_cat(a, b) */
            bool an = args[0]->type->id == FLOE_TYPE_NULL || fn_null(args[0], r);
            bool bn = args[1]->type->id == FLOE_TYPE_NULL || fn_null(args[1], r);
            if (an && bn) {
                st = floe_builder_append_null(b);
                continue;
            }
            st = put_list(eb, args[0], r);
            if (!st) st = put_list(eb, args[1], r);
            break;
        }
        case 7: { /* __array_slice(list, lo, hi) */
            const floe_array *l = args[0];
            if (fn_null(l, r) || args[1]->type->id == FLOE_TYPE_NULL || args[2]->type->id == FLOE_TYPE_NULL ||
                fn_null(args[1], r) || fn_null(args[2], r)) {
                st = floe_builder_append_null(b);
                continue;
            }
            int64_t lb, le;
            floe_array_get_range(l, fn_at(l, r), &lb, &le);
            int64_t lo = fn_get_i64(args[1], r), hi = fn_get_i64(args[2], r);
            if (lo < 1) lo = 1;
            if (hi > le - lb) hi = le - lb;
            if (hi >= lo) st = floe_builder_append_array(eb, l->children[0], lb + lo - 1, hi - lo + 1);
            break;
        }
        default: { /* array_remove(list, x) */
            const floe_array *l = args[0], *x = args[1];
            if (fn_null(l, r)) {
                st = floe_builder_append_null(b);
                continue;
            }
            int64_t lb, le;
            floe_array_get_range(l, fn_at(l, r), &lb, &le);
            for (int64_t j = lb; j < le && !st; j++)
                if (!not_distinct(l->children[0], j, x, fn_at(x, r)))
                    st = floe_builder_append_array(eb, l->children[0], j, 1);
        }
        }
        if (!st) st = floe_builder_append_list(b);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

static floe_status ops_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows,
                            floe_type *rtype, floe_array **out) {
    (void)n;
    *out = NULL;
    if (def->tag <= 2 || def->tag == 4 || def->tag == 7) return build_eval(def, args, rows, rtype, out);
    const floe_array *l = args[0], *x = args[1];
    if (l->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rtype, rows, out);
    if (def->tag == 8) { /* __list_cmp */
        const floe_array *r = args[1];
        if (r->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rtype, rows, out);
        floe_buffer *v = NULL, *vals = NULL;
        FLOE_TRY(floe_buffer_new((rows + 7) / 8, &v));
        floe_status st = floe_buffer_new((rows + 7) / 8, &vals);
        for (int64_t i = 0; !st && i < rows; i++) {
            if (fn_null(l, i) || fn_null(r, i) || fn_null(args[2], i)) continue;
            floe_bit_set(v->data, i);
            if (holds((floe_cmp_op)fn_get_i64(args[2], i), list_compare(l, fn_at(l, i), r, fn_at(r, i))))
                floe_bit_set(vals->data, i);
        }
        if (st) {
            floe_buffer_release(v);
            floe_buffer_release(vals);
            return st;
        }
        return fn_make_fixed(rtype, rows, v, vals, out);
    }
    const floe_array *el = l->children[0];
    if (def->tag == 3) { /* array_position */
        floe_builder *b = NULL;
        FLOE_TRY(floe_builder_new(rtype, rows, &b));
        floe_status st = NULL;
        for (int64_t r = 0; r < rows && !st; r++) {
            int64_t found = -1, lb, le;
            if (!fn_null(l, r)) {
                floe_array_get_range(l, fn_at(l, r), &lb, &le);
                for (int64_t j = lb; j < le && found < 0; j++)
                    if (not_distinct(el, j, x, fn_at(x, r))) found = j - lb + 1;
            }
            st = found < 0 ? floe_builder_append_null(b) : floe_builder_append_int32(b, (int32_t)found);
        }
        if (!st) st = floe_builder_finish(b, out);
        floe_builder_free(b);
        return st;
    }
    /* x op ANY / ALL (list) */
    bool all = def->tag == 6;
    floe_buffer *v = NULL, *vals = NULL;
    FLOE_TRY(floe_buffer_new((rows + 7) / 8, &v));
    floe_status st = floe_buffer_new((rows + 7) / 8, &vals);
    for (int64_t r = 0; !st && r < rows; r++) {
        floe_cmp_op op = (floe_cmp_op)fn_get_i64(args[2], r);
        if (fn_null(l, r) || fn_null(args[2], r)) continue; /* NULL */
        int64_t lb, le;
        floe_array_get_range(l, fn_at(l, r), &lb, &le);
        bool xnull = x->type->id == FLOE_TYPE_NULL || fn_null(x, r), saw_null = false, decided = false;
        for (int64_t j = lb; j < le && !decided; j++) {
            if (xnull || floe_array_is_null(el, j)) {
                saw_null = true;
                continue;
            }
            bool h = holds(op, compare(x, fn_at(x, r), el, j)); /* x op element */
            decided = all ? !h : h;
        }
        /* ANY: true once one holds; ALL: false once one fails; else NULL if a
         * comparison was NULL, else the empty answer */
        bool value = decided ? !all : all;
        if (value) floe_bit_set(vals->data, r);
        if (decided || !saw_null) floe_bit_set(v->data, r);
    }
    if (st) {
        floe_buffer_release(v);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rtype, rows, v, vals, out);
}

const floe_func_def floe_array_op_funcs[] = {
    {"array_append", 2, 2, "array_append(list, value)", ops_type, ops_eval, 0, NULL, FLOE_TYPE_NULL},
    {"array_prepend", 2, 2, "array_prepend(value, list)", ops_type, ops_eval, 1, NULL, FLOE_TYPE_NULL},
    {"array_cat", 2, 2, "array_cat(list, list)", ops_type, ops_eval, 2, NULL, FLOE_TYPE_NULL},
    {"array_position", 2, 2, "array_position(list, value)", ops_type, ops_eval, 3, NULL, FLOE_TYPE_NULL},
    {"array_remove", 2, 2, "array_remove(list, value)", ops_type, ops_eval, 4, NULL, FLOE_TYPE_NULL},
    {"__array_any", 3, 3, "x op ANY(list)", ops_type, ops_eval, 5, NULL, FLOE_TYPE_NULL},
    {"__array_all", 3, 3, "x op ALL(list)", ops_type, ops_eval, 6, NULL, FLOE_TYPE_NULL},
    {"__list_cmp", 3, 3, "list op list", ops_type, ops_eval, 8, NULL, FLOE_TYPE_NULL},
    {"__array_slice", 3, 3, "list[lo:hi]", ops_type, ops_eval, 7, NULL, FLOE_TYPE_NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, NULL, FLOE_TYPE_NULL},
};
