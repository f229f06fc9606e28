/*
 * bind_setop.c — query bodies that are not a SELECT: VALUES lists (each
 * column coerced to one common type, evaluated into a constant batch) and
 * set operations (UNION [ALL] over a common type per column; INTERSECT and
 * EXCEPT by grouping the tagged rows of both sides; their ALL forms by
 * counting each side's copies per group and replicating the rows).
 */
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

/* The common type of two nested VALUES cells of the same kind (lists of
 * int and bigint: list<bigint>): children widened as the scalar rules
 * below (int → bigint → double), else the same type or an error. */
/* A quoted literal written without a type ('x', not TEXT 'x' or 'x'::t). */
static bool is_untyped_string(const json_t *cell) {
    const json_t *c = floe_pg_as(cell, "A_Const");
    return c && floe_pg_get(c, "sval") != NULL;
}

static floe_status nested_common(floe_type *a, floe_type *b, floe_type **out) {
    *out = NULL;
    if (floe_type_compatible(a, b) && a->id != FLOE_TYPE_NULL) {
        *out = floe_type_retain(a);
        return NULL;
    }
    if (a->id == FLOE_TYPE_NULL || b->id == FLOE_TYPE_NULL) {
        *out = floe_type_retain(a->id == FLOE_TYPE_NULL ? b : a);
        return NULL;
    }
    /* text inside a nested value beside another type: a constructor's
     * untyped NULL (ROW(1, NULL), ARRAY[NULL] is text[]); the cells are
     * then cast, and text that is not NULL must read as the other type */
    if (a->id == FLOE_TYPE_STRING && b->id != FLOE_TYPE_VARIANT) {
        *out = floe_type_retain(b);
        return NULL;
    }
    if (b->id == FLOE_TYPE_STRING && a->id != FLOE_TYPE_VARIANT) {
        *out = floe_type_retain(a);
        return NULL;
    }
    bool ai = a->id == FLOE_TYPE_INT32 || a->id == FLOE_TYPE_INT64, bi = b->id == FLOE_TYPE_INT32 || b->id == FLOE_TYPE_INT64;
    bool af = a->id == FLOE_TYPE_FLOAT32 || a->id == FLOE_TYPE_FLOAT64, bf = b->id == FLOE_TYPE_FLOAT32 || b->id == FLOE_TYPE_FLOAT64;
    if (ai && bi) { *out = floe_type_primitive(FLOE_TYPE_INT64); return NULL; }
    if ((ai || af) && (bi || bf)) { *out = floe_type_primitive(FLOE_TYPE_FLOAT64); return NULL; }
    if (a->id != b->id || a->n_children != b->n_children || !floe_type_is_nested(a)) {
        floe_buf x = FLOE_BUF_INIT, y = FLOE_BUF_INIT;
        floe_status st = floe_type_to_string(a, &x);
        if (!st) st = floe_type_to_string(b, &y);
        if (!st) st = floe_error(FLOE_ERR_TYPE, "mixes %s and %s", floe_buf_cstr(&x), floe_buf_cstr(&y));
        floe_buf_free(&x);
        floe_buf_free(&y);
        return st;
    }
    floe_field f[64];
    if (a->n_children > 64) return floe_error(FLOE_ERR_UNSUPPORTED, "struct with more than 64 fields in VALUES");
    floe_status st = NULL;
    int32_t k = 0;
    for (; k < a->n_children && !st; k++) {
        floe_type *ct = NULL;
        st = nested_common(a->children[k].type, b->children[k].type, &ct);
        if (!st) st = floe_field_init(&f[k], a->children[k].name, ct, a->children[k].nullable || b->children[k].nullable, -1);
        floe_type_release(ct);
        if (st) break;
    }
    if (!st && a->id == FLOE_TYPE_STRUCT) st = floe_type_struct(f, k, out);
    else if (!st && a->id == FLOE_TYPE_LIST) st = floe_type_list(&f[0], out);
    else if (!st) st = floe_type_map(&f[0].type->children[0], &f[0].type->children[1], false, out);
    for (int32_t i = 0; i < k; i++) floe_field_clear(&f[i]);
    return st;
}

/* ------------------------------------------------------------ VALUES */

floe_status bind_values(floe_session *s, const json_t *body, bind_result *out) {
    json_t *rows = floe_pg_get(body, "valuesLists");
    int32_t nr = floe_pg_list_len(rows);
    int32_t nc = floe_pg_list_len(floe_pg_get(floe_pg_as(floe_pg_list_at(rows, 0), "List"), "items"));
    floe_schema *empty = NULL;
    FLOE_TRY(floe_type_struct(NULL, 0, &empty));
    bind_scope esc;
    memset(&esc, 0, sizeof(esc));
    bind_ectx c;
    bind_ectx_init(&c, s, &esc, empty, "VALUES");
    floe_type_release(empty);
    floe_expr **cells = floe_calloc((size_t)nr * (size_t)nc + 1, sizeof(floe_expr *));
    floe_expr **col = floe_calloc((size_t)nr + 1, sizeof(floe_expr *));
    floe_field *fields = floe_calloc((size_t)nc + 1, sizeof(floe_field));
    floe_array **arrays = floe_calloc((size_t)nc + 1, sizeof(floe_array *));
    floe_status st = (!cells || !col || !fields || !arrays) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    for (int32_t r = 0; r < nr && !st; r++) {
        json_t *items = floe_pg_get(floe_pg_as(floe_pg_list_at(rows, r), "List"), "items");
        if (floe_pg_list_len(items) != nc) {
            st = bind_error(s, floe_pg_location(floe_pg_list_at(items, 0)), FLOE_ERR_INVALID_ARGUMENT,
                            "VALUES lists must all be the same length");
            break;
        }
        for (int32_t k = 0; k < nc && !st; k++) st = bind_expr(&c, floe_pg_list_at(items, k), &cells[r * nc + k]);
    }
    floe_schema *schema = NULL;
    for (int32_t k = 0; k < nc && !st; k++) {
        for (int32_t r = 0; r < nr; r++) col[r] = cells[r * nc + k];
        /* Unify by building a CASE-free common type: coerce each to the
         * first typed value's type (numbers widen via the CASE rules). */
        floe_expr *whens[1] = {NULL};
        (void)whens;
        floe_type *target = NULL;
        for (int32_t r = 0; r < nr && !st; r++) {
            /* PostgreSQL resolves a VALUES column from its typed cells; a
             * bare quoted literal is of "unknown" type and takes the type
             * the others settle on ('2024-01-01' beside a timestamptz). */
            if (is_untyped_string(floe_pg_list_at(floe_pg_get(floe_pg_as(floe_pg_list_at(rows, r), "List"), "items"), k)))
                continue;
            floe_type *t = NULL;
            st = bind_type_of(&c, col[r], &t);
            if (st) break;
            if (t->id == FLOE_TYPE_NULL) {
                floe_type_release(t);
                continue;
            }
            if (!target) target = t;
            else {
                if (!floe_type_equals(target, t)) {
                    bool ti = target->id == FLOE_TYPE_INT32 || target->id == FLOE_TYPE_INT64;
                    bool tn = t->id == FLOE_TYPE_INT32 || t->id == FLOE_TYPE_INT64;
                    bool tf = target->id == FLOE_TYPE_FLOAT64 || t->id == FLOE_TYPE_FLOAT64 ||
                              target->id == FLOE_TYPE_FLOAT32 || t->id == FLOE_TYPE_FLOAT32;
                    if (ti && tn) {
                        floe_type_release(target);
                        target = floe_type_primitive(FLOE_TYPE_INT64);
                    } else if (tf && (ti || tn || target->id == FLOE_TYPE_FLOAT64 || t->id == FLOE_TYPE_FLOAT64 ||
                                      target->id == FLOE_TYPE_FLOAT32 || t->id == FLOE_TYPE_FLOAT32)) {
                        floe_type_release(target);
                        target = floe_type_primitive(FLOE_TYPE_FLOAT64);
                    } else if (target->id == FLOE_TYPE_DECIMAL128 && tn) {
                        /* keep the decimal */
                    } else if (t->id == FLOE_TYPE_DECIMAL128 && ti) {
                        floe_type_release(target);
                        target = floe_type_retain(t);
                    } else if (t->id == FLOE_TYPE_DECIMAL128 && target->id == FLOE_TYPE_DECIMAL128) {
                        int32_t sc = t->scale > target->scale ? t->scale : target->scale;
                        int32_t ip1 = t->precision - t->scale, ip2 = target->precision - target->scale;
                        int32_t ip = ip1 > ip2 ? ip1 : ip2;
                        if (ip + sc > 38) ip = 38 - sc;
                        floe_type *w = NULL;
                        st = floe_type_decimal(ip + sc, sc, &w);
                        floe_type_release(target);
                        target = w;
                    } else if (floe_type_is_nested(t) && t->id != FLOE_TYPE_VARIANT && t->id == target->id) {
                        floe_type *w = NULL;
                        st = nested_common(target, t, &w);
                        if (!st) {
                            floe_type_release(target);
                            target = w;
                        } else {
                            st = floe_status_wrap(st, "VALUES column %d", (int)k + 1);
                        }
                    } else if (!(target->id == FLOE_TYPE_STRING && t->id == FLOE_TYPE_STRING)) {
                        floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
                        st = floe_type_to_string(target, &a);
                        if (!st) st = floe_type_to_string(t, &b);
                        if (!st)
                            st = bind_error(s, -1, FLOE_ERR_TYPE, "VALUES column %d mixes %s and %s", (int)k + 1,
                                            floe_buf_cstr(&a), floe_buf_cstr(&b));
                        floe_buf_free(&a);
                        floe_buf_free(&b);
                    }
                }
                floe_type_release(t);
            }
        }
        if (st) {
            floe_type_release(target);
            break;
        }
        if (!target) target = floe_type_primitive(FLOE_TYPE_STRING); /* all NULL: text, as PostgreSQL */
        floe_builder *b = NULL;
        bool nullable = false;
        st = floe_builder_new(target, nr, &b);
        for (int32_t r = 0; r < nr && !st; r++) {
            floe_expr *ce = NULL;
            floe_array *v = NULL;
            /* A literal of the column's type is appended as it is: no
             * coercion or evaluation per cell (VALUES of many rows). */
            if (col[r]->kind == FLOE_EXPR_LITERAL && col[r]->literal && floe_type_equals(col[r]->literal->type, target)) {
                v = col[r]->literal;
                if (floe_array_is_null(v, 0)) nullable = true;
                st = floe_array_is_null(v, 0) ? floe_builder_append_null(b) : floe_builder_append_array(b, v, 0, 1);
                continue;
            }
            st = bind_coerce(&c, col[r], target, -1, &ce);
            if (!st) st = bind_eval_const(ce, &v);
            if (!st) {
                if (floe_array_is_null(v, 0)) nullable = true;
                st = floe_array_is_null(v, 0) ? floe_builder_append_null(b) : floe_builder_append_array(b, v, 0, 1);
            }
            floe_expr_release(ce);
            floe_array_release(v);
        }
        if (!st) st = floe_builder_finish(b, &arrays[k]);
        floe_builder_free(b);
        char name[32];
        snprintf(name, sizeof name, "column%d", (int)k + 1);
        if (!st) st = floe_field_init(&fields[k], name, target, nullable, -1);
        floe_type_release(target);
    }
    floe_batch *batch = NULL;
    floe_plan *phys = NULL;
    if (!st) st = floe_type_struct(fields, nc, &schema);
    if (!st) st = floe_batch_new(schema, arrays, nc, nr, &batch);
    if (!st) st = floe_plan_values(schema, &batch, 1, 1, &phys);
    if (!st) st = floe_lplan_new(FLOE_L_PHYSICAL, schema, NULL, 0, &out->plan);
    if (!st) {
        out->plan->physical = phys;
        phys = NULL;
        st = bind_scope_from_schema(schema, NULL, &out->scope);
    }
    floe_plan_release(phys);
    floe_batch_release(batch);
    floe_type_release(schema);
    for (int32_t i = 0; cells && i < nr * nc; i++) floe_expr_release(cells[i]);
    for (int32_t k = 0; k < nc; k++) {
        if (arrays) floe_array_release(arrays[k]);
        if (fields) floe_field_clear(&fields[k]);
    }
    floe_free(cells);
    floe_free(col);
    floe_free(fields);
    floe_free(arrays);
    bind_ectx_clear(&c);
    return st;
}

/* ------------------------------------------------------ set operations */

/* Cast the columns of `r` to `types` where they differ. */
static floe_status cast_columns(bind_result *r, floe_type *const *types, int32_t n) {
    bool need = false;
    for (int32_t i = 0; i < n; i++) need |= !floe_type_equals(floe_schema_field(r->plan->schema, i)->type, types[i]);
    if (!need) return NULL;
    floe_expr **ex = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    char **names = floe_calloc((size_t)n + 1, sizeof(char *));
    floe_status st = (!ex || !names) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        floe_expr *col = NULL;
        const floe_field *f = floe_schema_field(r->plan->schema, i);
        st = floe_expr_column(i, &col);
        if (!st && !floe_type_equals(f->type, types[i])) {
            if (f->type->id == FLOE_TYPE_NULL) st = floe_expr_lit_null(types[i], &ex[i]);
            else st = floe_expr_cast(col, types[i], &ex[i]);
        } else if (!st) {
            ex[i] = floe_expr_retain(col);
        }
        floe_expr_release(col);
        names[i] = f->name;
    }
    floe_lplan *p = NULL;
    if (!st) {
        st = bind_make_project(r->plan, ex, names, n, &p);
        r->plan = p;
    }
    if (ex) bind_expr_list_free(ex, n);
    floe_free(names);
    return st;
}

/* The common type of two set-operation columns, or NULL. */
floe_type *bind_set_common_type(floe_type *a, floe_type *b) {
    if (floe_type_equals(a, b) || b->id == FLOE_TYPE_NULL) return floe_type_retain(a);
    if (a->id == FLOE_TYPE_NULL) return floe_type_retain(b);
    bool ai = a->id == FLOE_TYPE_INT32 || a->id == FLOE_TYPE_INT64, bi = b->id == FLOE_TYPE_INT32 || b->id == FLOE_TYPE_INT64;
    bool af = a->id == FLOE_TYPE_FLOAT32 || a->id == FLOE_TYPE_FLOAT64, bf = b->id == FLOE_TYPE_FLOAT32 || b->id == FLOE_TYPE_FLOAT64;
    if (ai && bi) return floe_type_primitive(FLOE_TYPE_INT64);
    if ((ai || af) && (bi || bf)) return floe_type_primitive(FLOE_TYPE_FLOAT64);
    if (a->id == FLOE_TYPE_DECIMAL128 && b->id == FLOE_TYPE_DECIMAL128) {
        int32_t sc = a->scale > b->scale ? a->scale : b->scale;
        int32_t ip = a->precision - a->scale > b->precision - b->scale ? a->precision - a->scale : b->precision - b->scale;
        if (ip + sc > 38) ip = 38 - sc;
        floe_type *t = NULL;
        floe_status st = floe_type_decimal(ip + sc, sc, &t);
        if (st) {
            floe_status_free(st);
            return NULL;
        }
        return t;
    }
    return NULL;
}

/* Append constant columns to a set-operation input's first n columns:
 * extra[k] (taken: released here on every path) named names[k]. */
static floe_status append_consts(bind_result *r, int32_t n, floe_expr **extra, const char *const *names_in,
                                 int32_t k) {
    floe_expr **ex = floe_calloc((size_t)(n + k) + 1, sizeof(floe_expr *));
    char **names = floe_calloc((size_t)(n + k) + 1, sizeof(char *));
    floe_status st = (!ex || !names) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        st = floe_expr_column(i, &ex[i]);
        names[i] = floe_schema_field(r->plan->schema, i)->name;
    }
    for (int32_t j = 0; j < k; j++) {
        if (ex && !st) {
            ex[n + j] = extra[j];
            names[n + j] = (char *)names_in[j];
        } else floe_expr_release(extra[j]);
    }
    floe_lplan *p = NULL;
    if (!st) {
        st = bind_make_project(r->plan, ex, names, n + k, &p);
        r->plan = p;
    }
    if (ex) bind_expr_list_free(ex, n + k);
    floe_free(names);
    return st;
}

/* Append a constant tag column to a set-operation input. */
static floe_status tag_side(bind_result *r, int32_t n, int32_t tag) {
    floe_expr *t = NULL;
    FLOE_TRY(floe_expr_lit_int32(tag, &t));
    const char *name = "side";
    return append_consts(r, n, &t, &name, 1);
}

/* u's rows grouped on its first n columns (NULLs meet NULLs) with two
 * aggregates: fn[k] over column col[k], named name[k], of type tid
 * (nullable or not) — the AGGREGATE both the distinct (min / max of the
 * side tag) and the ALL forms (counts of each side's copies) start with.
 * Consumes u. */
static floe_status group_by_columns(floe_lplan *u, int32_t n, const floe_agg_fn fn[2], const int32_t col[2],
                                    const char *const name[2], floe_type_id tid, bool nullable, floe_lplan **out) {
    *out = NULL;
    floe_field *f = floe_calloc((size_t)n + 2, sizeof(floe_field));
    floe_status st = f ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    floe_schema *as = NULL;
    for (int32_t i = 0; i < n && !st; i++) st = floe_field_copy(&f[i], floe_schema_field(u->schema, i));
    for (int k = 0; k < 2 && !st; k++) st = floe_field_init(&f[n + k], name[k], floe_type_primitive(tid), nullable, -1);
    if (!st) st = floe_type_struct(f, n + 2, &as);
    for (int32_t i = 0; f && i < n + 2; i++) floe_field_clear(&f[i]);
    floe_free(f);
    floe_lplan *a = NULL;
    if (!st) {
        floe_lplan *in[1] = {u};
        u = NULL;
        st = floe_lplan_new(FLOE_L_AGGREGATE, as, in, 1, &a);
    }
    floe_type_release(as);
    floe_lplan_free(u);
    if (!st) {
        a->exprs = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
        a->names = floe_calloc((size_t)n + 1, sizeof(char *));
        a->aggs = floe_calloc(2, sizeof(floe_agg_call));
        if (!a->exprs || !a->names || !a->aggs) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < n && !st; i++) {
            st = floe_expr_column(i, &a->exprs[i]);
            a->names[i] = floe_strdup(floe_schema_field(a->schema, i)->name);
            a->n_exprs = i + 1;
            if (!st && !a->names[i]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
        for (int k = 0; k < 2 && !st; k++) {
            a->aggs[k].fn = fn[k];
            st = floe_expr_column(col[k], &a->aggs[k].arg);
            a->aggs[k].name = floe_strdup(name[k]);
            a->n_aggs = k + 1;
            if (!st && !a->aggs[k].name) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
    }
    if (st) {
        floe_lplan_free(a);
        return st;
    }
    *out = a;
    return NULL;
}

/* UNION ALL of two set-operation inputs' first nc columns (taken from l
 * and r): each column nullable where either side's is, and columns from
 * `nullable_from` on nullable regardless (the per-side markers). */
static floe_status union_sides(bind_result *l, bind_result *r, int32_t nc, int32_t nullable_from, floe_lplan **out) {
    *out = NULL;
    floe_field *f = floe_calloc((size_t)nc + 1, sizeof(floe_field));
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    floe_status st = NULL;
    for (int32_t i = 0; i < nc && !st; i++) {
        const floe_field *a = floe_schema_field(l->plan->schema, i), *b = floe_schema_field(r->plan->schema, i);
        st = floe_field_init(&f[i], a->name, a->type, a->nullable || b->nullable || i >= nullable_from, -1);
    }
    floe_schema *us = NULL;
    if (!st) st = floe_type_struct(f, nc, &us);
    for (int32_t i = 0; i < nc; i++) floe_field_clear(&f[i]);
    floe_free(f);
    if (!st) {
        floe_lplan *in[2] = {l->plan, r->plan};
        l->plan = r->plan = NULL;
        st = floe_lplan_new(FLOE_L_UNION, us, in, 2, out);
    }
    floe_type_release(us);
    return st;
}

static floe_status set_op_by_grouping(bind_result *l, bind_result *r, int32_t n, bool intersect, floe_lplan **out) {
    *out = NULL;
    FLOE_TRY(tag_side(l, n, 1));
    FLOE_TRY(tag_side(r, n, 2));
    /* UNION ALL of the tagged sides (nullable where either is). */
    floe_lplan *u = NULL;
    floe_status st = union_sides(l, r, n + 1, n + 1, &u);
    /* AGGREGATE keys = the columns, aggs = min(side), max(side). */
    floe_lplan *a = NULL;
    if (!st) {
        st = group_by_columns(u, n, (const floe_agg_fn[2]){FLOE_AGG_MIN, FLOE_AGG_MAX}, (const int32_t[2]){n, n},
                              (const char *const[2]){"lo", "hi"}, FLOE_TYPE_INT32, true, &a);
        u = NULL;
    }
    floe_lplan_free(u);
    /* EXCEPT: hi = 1 (never on the right); INTERSECT: lo = 1 AND hi = 2. */
    floe_expr *lo = NULL, *hi = NULL, *one = NULL, *two = NULL, *c1 = NULL, *c2 = NULL, *pred = NULL;
    if (!st) st = floe_expr_column(n, &lo);
    if (!st) st = floe_expr_column(n + 1, &hi);
    if (!st) st = floe_expr_lit_int32(1, &one);
    if (!st) st = floe_expr_lit_int32(2, &two);
    if (!st && intersect) {
        st = floe_expr_cmp(FLOE_CMP_EQ, lo, one, &c1);
        if (!st) st = floe_expr_cmp(FLOE_CMP_EQ, hi, two, &c2);
        if (!st) st = floe_expr_and(c1, c2, &pred);
    } else if (!st) {
        st = floe_expr_cmp(FLOE_CMP_EQ, hi, one, &pred);
    }
    floe_lplan *fp = NULL;
    if (!st) {
        st = bind_filter_node(a, pred, &fp);
        a = NULL;
    }
    floe_lplan_free(a);
    floe_expr_release(lo);
    floe_expr_release(hi);
    floe_expr_release(one);
    floe_expr_release(two);
    floe_expr_release(c1);
    floe_expr_release(c2);
    floe_expr_release(pred);
    /* Back to the columns alone. */
    if (!st) {
        floe_expr **ex = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
        char **names = floe_calloc((size_t)n + 1, sizeof(char *));
        if (!ex || !names) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < n && !st; i++) {
            st = floe_expr_column(i, &ex[i]);
            names[i] = floe_schema_field(fp->schema, i)->name;
        }
        if (!st) {
            st = bind_make_project(fp, ex, names, n, out);
            fp = NULL;
        }
        if (ex) bind_expr_list_free(ex, n);
        floe_free(names);
    }
    floe_lplan_free(fp);
    return st;
}

/* Append the two per-side marker columns of INTERSECT ALL / EXCEPT ALL:
 * (1, NULL) on the left, (NULL, 1) on the right, so count() of each counts
 * one side's copies of a row. */
static floe_status mark_side(bind_result *r, int32_t n, bool left) {
    floe_expr *m[2] = {NULL, NULL};
    floe_status st = NULL;
    for (int32_t k = 0; k < 2 && !st; k++)
        st = (k == 0) == left ? floe_expr_lit_int32(1, &m[k])
                              : floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_INT32), &m[k]);
    if (st) {
        floe_expr_release(m[0]);
        floe_expr_release(m[1]);
        return st;
    }
    static const char *const names[2] = {"in_left", "in_right"};
    return append_consts(r, n, m, names, 2);
}

/* INTERSECT ALL / EXCEPT ALL (multisets, as PostgreSQL): the marked rows
 * of both sides grouped on every column (NULLs meet NULLs) with the count
 * of each side's copies, then each group repeated min(left, right) times
 * (INTERSECT ALL) or left - right times (EXCEPT ALL; none when <= 0) by a
 * Replicate node.  Aggregate and Replicate both run in parallel. */
static floe_status set_op_all(bind_result *l, bind_result *r, int32_t n, bool intersect, floe_lplan **out) {
    *out = NULL;
    FLOE_TRY(mark_side(l, n, true));
    FLOE_TRY(mark_side(r, n, false));
    floe_lplan *u = NULL;
    floe_status st = union_sides(l, r, n + 2, n, &u);
    /* AGGREGATE keys = the columns, aggs = count(in_left), count(in_right). */
    floe_lplan *a = NULL;
    if (!st) {
        st = group_by_columns(u, n, (const floe_agg_fn[2]){FLOE_AGG_COUNT, FLOE_AGG_COUNT},
                              (const int32_t[2]){n, n + 1}, (const char *const[2]){"n_left", "n_right"},
                              FLOE_TYPE_INT64, false, &a);
        u = NULL;
    }
    floe_lplan_free(u);
    /* The copies to keep, as the last column. */
    floe_expr *cl = NULL, *cr = NULL, *keep = NULL, *lt = NULL;
    if (!st) st = floe_expr_column(n, &cl);
    if (!st) st = floe_expr_column(n + 1, &cr);
    if (!st && intersect) {
        st = floe_expr_cmp(FLOE_CMP_LT, cl, cr, &lt);
        floe_expr *whens[1] = {lt}, *thens[1] = {cl};
        if (!st) st = floe_expr_case(whens, thens, 1, cr, &keep);
    } else if (!st) {
        st = floe_expr_arith(FLOE_ARITH_SUB, cl, cr, &keep);
    }
    floe_expr **ex = floe_calloc((size_t)n + 2, sizeof(floe_expr *));
    char **names = floe_calloc((size_t)n + 2, sizeof(char *));
    if (!st && (!ex || !names)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n && !st; i++) {
        st = floe_expr_column(i, &ex[i]);
        names[i] = floe_schema_field(a->schema, i)->name;
    }
    floe_lplan *pr = NULL;
    if (!st) {
        ex[n] = floe_expr_retain(keep);
        names[n] = (char *)"copies";
        st = bind_make_project(a, ex, names, n + 1, &pr);
        a = NULL;
    }
    if (ex) bind_expr_list_free(ex, n + 1);
    floe_free(names);
    floe_expr_release(cl);
    floe_expr_release(cr);
    floe_expr_release(lt);
    floe_expr_release(keep);
    floe_lplan_free(a);
    /* Replicate: the rows again, without the count. */
    floe_schema *os = NULL;
    floe_field *f = st ? NULL : floe_calloc((size_t)n + 1, sizeof(floe_field));
    if (!st && !f) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n && !st; i++) st = floe_field_copy(&f[i], floe_schema_field(pr->schema, i));
    if (!st) st = floe_type_struct(f, n, &os);
    for (int32_t i = 0; f && i < n; i++) floe_field_clear(&f[i]);
    floe_free(f);
    if (!st) {
        floe_lplan *in[1] = {pr};
        pr = NULL;
        st = floe_lplan_new(FLOE_L_REPLICATE, os, in, 1, out);
    }
    floe_type_release(os);
    floe_lplan_free(pr);
    return st;
}

floe_status bind_set_op(floe_session *s, const json_t *body, bind_result *out) {
    memset(out, 0, sizeof(*out));
    const char *op = floe_pg_get_str(body, "op");
    bool all = floe_pg_get_bool(body, "all");
    bind_result l, r;
    memset(&r, 0, sizeof(r));
    FLOE_TRY(bind_select(s, floe_pg_get(body, "larg"), &l));
    floe_status st = bind_select(s, floe_pg_get(body, "rarg"), &r);
    int32_t n = l.plan ? floe_schema_num_fields(l.plan->schema) : 0;
    if (!st && floe_schema_num_fields(r.plan->schema) != n)
        st = bind_error(s, -1, FLOE_ERR_INVALID_ARGUMENT, "each %s query must have the same number of columns",
                        !strcmp(op, "SETOP_UNION") ? "UNION" : !strcmp(op, "SETOP_INTERSECT") ? "INTERSECT" : "EXCEPT");
    floe_type **types = floe_calloc((size_t)n + 1, sizeof(floe_type *));
    if (!st && !types) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n && !st; i++) {
        floe_type *a = floe_schema_field(l.plan->schema, i)->type, *b = floe_schema_field(r.plan->schema, i)->type;
        types[i] = bind_set_common_type(a, b);
        if (!types[i]) {
            floe_buf ta = FLOE_BUF_INIT, tb = FLOE_BUF_INIT;
            st = floe_type_to_string(a, &ta);
            if (!st) st = floe_type_to_string(b, &tb);
            if (!st)
                st = bind_error(s, -1, FLOE_ERR_TYPE, "set operation column %d: types %s and %s cannot be matched",
                                (int)i + 1, floe_buf_cstr(&ta), floe_buf_cstr(&tb));
            floe_buf_free(&ta);
            floe_buf_free(&tb);
        }
    }
    if (!st) st = cast_columns(&l, types, n);
    if (!st) st = cast_columns(&r, types, n);
    for (int32_t i = 0; types && i < n; i++) floe_type_release(types[i]);
    floe_free(types);
    if (st) {
        bind_result_free(&l);
        bind_result_free(&r);
        return st;
    }
    floe_lplan *p = NULL;
    if (!strcmp(op, "SETOP_UNION")) {
        /* Output nullability: a column is nullable when either is. */
        floe_schema *schema = NULL;
        floe_field *f = floe_calloc((size_t)n + 1, sizeof(floe_field));
        st = f ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < n && !st; i++) {
            const floe_field *a = floe_schema_field(l.plan->schema, i), *b = floe_schema_field(r.plan->schema, i);
            st = floe_field_init(&f[i], a->name, a->type, a->nullable || b->nullable, -1);
        }
        if (!st) st = floe_type_struct(f, n, &schema);
        for (int32_t i = 0; f && i < n; i++) floe_field_clear(&f[i]);
        floe_free(f);
        if (!st) {
            floe_lplan *in[2] = {l.plan, r.plan};
            l.plan = r.plan = NULL;
            st = floe_lplan_new(FLOE_L_UNION, schema, in, 2, &p);
        }
        floe_type_release(schema);
        if (!st && !all) {
            floe_lplan *in[1] = {p};
            floe_lplan *d = NULL;
            st = floe_lplan_new(FLOE_L_DISTINCT, p->schema, in, 1, &d);
            p = d;
        }
    } else if (!strcmp(op, "SETOP_INTERSECT") || !strcmp(op, "SETOP_EXCEPT")) {
        if (all) st = set_op_all(&l, &r, n, !strcmp(op, "SETOP_INTERSECT"), &p);
        /* Rows of both sides tagged 1 (left) and 2 (right), grouped on
         * every column (so NULLs meet NULLs, as set operations want):
         * EXCEPT keeps groups seen only on the left, INTERSECT groups seen
         * on both. */
        else st = set_op_by_grouping(&l, &r, n, !strcmp(op, "SETOP_INTERSECT"), &p);
    } else {
        st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "set operation %s is not supported", op ? op : "?");
    }
    if (!st) st = bind_scope_from_schema(p->schema, NULL, &out->scope);
    bind_result_free(&l);
    bind_result_free(&r);
    if (st) {
        floe_lplan_free(p);
        bind_scope_free(&out->scope);
        return st;
    }
    out->plan = p;
    return NULL;
}
