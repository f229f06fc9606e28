/*
 * bind_nested.c — SQL's constructors and subscripts of nested values,
 * bound onto func_nested.c's kernels:
 *
 *   ARRAY[a, b]            list_value(a, b), elements unified as
 *                          PostgreSQL's ARRAY[] does (common type)
 *   ROW(a, b) / (a, b)     named_struct('f1', a, 'f2', b) — PostgreSQL's
 *                          anonymous record field names
 *   struct_pack(x := a)    named_struct('x', a) (DuckDB's spelling)
 *   xs[i]                  list_element(xs, i)  (1-based, NULL outside)
 *   m[k]                   element_at(m, k)
 *   map(ks, vs)            map_from_arrays(ks, vs)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"
#include "sql/bind_expr_internal.h"
#include "sql/pgnode.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory"); }

floe_status bind_array_expr(bind_ectx *c, const json_t *body, int32_t loc, floe_expr **out) {
    json_t *elems = floe_pg_get(body, "elements");
    int32_t n = floe_pg_list_len(elems);
    if (n == 0)
        return bind_error(c->s, loc, FLOE_ERR_TYPE, "cannot determine type of empty array (cast it: ARRAY[]::int[])");
    floe_expr **ev = floe_calloc((size_t)n + 1, sizeof *ev);
    if (!ev) return oom();
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        /* ARRAY[ARRAY[1, 2], ARRAY[3]] is a list of lists (PostgreSQL makes
         * a rectangular 2-D array; floe's lists nest instead) */
        st = bind_expr(c, floe_pg_list_at(elems, i), &ev[i]);
    }
    if (!st) st = bind_unify_list(c, ev, n, loc);
    if (!st) st = bind_make_call(c, "list_value", ev, n, loc, out);
    for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
    floe_free(ev);
    return st;
}

/* named_struct over already bound values with the given names. */
static floe_status make_struct(bind_ectx *c, char **names, floe_expr **vals, int32_t n, int32_t loc, floe_expr **out) {
    floe_expr **ev = floe_calloc((size_t)n * 2 + 1, sizeof *ev);
    if (!ev) return oom();
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        st = floe_expr_lit_string(names[i], &ev[2 * i]);
        ev[2 * i + 1] = floe_expr_retain(vals[i]);
    }
    if (!st) st = bind_make_call(c, "named_struct", ev, 2 * n, loc, out);
    for (int32_t i = 0; i < 2 * n; i++) floe_expr_release(ev[i]);
    floe_free(ev);
    return st;
}

/* The whole-row value of relation `qual` in scope `sc` (its columns from
 * `shift` on in the input): a struct of the columns t.* would give. */
static floe_status whole_row_in(bind_ectx *c, const bind_scope *sc, int32_t shift, const char *qual, int32_t loc,
                                floe_expr **out) {
    int32_t n = 0;
    for (int32_t i = 0; i < sc->n; i++) {
        const bind_col *col = &sc->cols[i];
        if (col->qual && !strcmp(col->qual, qual) && !col->system && (!col->hidden || col->using_side)) n++;
    }
    if (n == 0) return NULL;
    char **names = floe_calloc((size_t)n, sizeof *names);
    floe_expr **vals = floe_calloc((size_t)n, sizeof *vals);
    floe_status st = names && vals ? NULL : oom();
    int32_t k = 0;
    for (int32_t i = 0; i < sc->n && !st; i++) {
        const bind_col *col = &sc->cols[i];
        if (!col->qual || strcmp(col->qual, qual) || col->system || (col->hidden && !col->using_side)) continue;
        names[k] = col->name;
        st = floe_expr_column(i + shift, &vals[k]);
        if (!st) k++;
    }
    if (!st) st = make_struct(c, names, vals, n, loc, out);
    for (int32_t i = 0; i < k; i++) floe_expr_release(vals[i]);
    floe_free(names);
    floe_free(vals);
    return st;
}

floe_status bind_whole_row(bind_ectx *c, const char *qual, int32_t loc, floe_expr **out) {
    *out = NULL;
    FLOE_TRY(whole_row_in(c, c->sc, c->outer ? c->outer->n : 0, qual, loc, out));
    if (!*out && c->outer) {
        FLOE_TRY(whole_row_in(c, c->outer, 0, qual, loc, out));
        if (*out) c->outer_used = true;
    }
    return NULL;
}

/* ROW(a, b) (and struct_pack(x := a, ...) when named). */
static floe_status bind_fields(bind_ectx *c, const json_t *args, bool named, const char *what, int32_t loc,
                               floe_expr **out) {
    int32_t n = floe_pg_list_len(args);
    if (n == 0) return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "%s with no fields is not supported", what);
    char **names = floe_calloc((size_t)n + 1, sizeof *names);
    floe_expr **vals = floe_calloc((size_t)n + 1, sizeof *vals);
    floe_status st = names && vals ? NULL : oom();
    for (int32_t i = 0; i < n && !st; i++) {
        const json_t *a = floe_pg_list_at(args, i);
        const json_t *na = floe_pg_as(a, "NamedArgExpr");
        char buf[32];
        const char *nm = NULL;
        if (named && na) {
            nm = floe_pg_get_str(na, "name");
            a = floe_pg_get(na, "arg");
        } else if (named) {
            st = bind_error(c->s, floe_pg_location(a), FLOE_ERR_SYNTAX, "%s wants named fields: %s(name := value, ...)",
                            what, what);
            break;
        } else {
            snprintf(buf, sizeof buf, "f%d", (int)i + 1); /* PostgreSQL's record field names */
            nm = buf;
        }
        names[i] = floe_strdup(nm ? nm : "?");
        if (!names[i]) st = oom();
        if (!st) st = bind_expr(c, a, &vals[i]);
    }
    if (!st) st = make_struct(c, names, vals, n, loc, out);
    for (int32_t i = 0; i < n; i++) {
        if (names) floe_free(names[i]);
        if (vals) floe_expr_release(vals[i]);
    }
    floe_free(names);
    floe_free(vals);
    return st;
}

floe_status bind_row_expr(bind_ectx *c, const json_t *body, int32_t loc, floe_expr **out) {
    return bind_fields(c, floe_pg_get(body, "args"), false, "ROW()", loc, out);
}

floe_status bind_struct_pack(bind_ectx *c, const json_t *args, int32_t loc, floe_expr **out) {
    return bind_fields(c, args, true, "struct_pack", loc, out);
}

floe_status bind_subscript(bind_ectx *c, floe_expr *base, const json_t *indices, int32_t loc, floe_expr **out) {
    *out = NULL;
    floe_type *t = NULL;
    FLOE_TRY(bind_type_of(c, base, &t));
    floe_type_id id = t->id;
    floe_type_release(t);
    if (floe_pg_get_bool(indices, "is_slice")) {
        /* xs[lo:hi], either bound omitted (xs[:hi], xs[lo:]) */
        if (id != FLOE_TYPE_LIST) return bind_error(c->s, loc, FLOE_ERR_TYPE, "cannot slice a value that is not a list");
        const json_t *lo_n = floe_pg_get(indices, "lidx"), *hi_n = floe_pg_get(indices, "uidx");
        floe_expr *lo = NULL, *hi = NULL;
        floe_status st = lo_n ? bind_expr(c, lo_n, &lo) : floe_expr_lit_int64(1, &lo);
        if (!st) st = hi_n ? bind_expr(c, hi_n, &hi) : floe_expr_lit_int64(INT32_MAX, &hi);
        floe_expr *args[3] = {base, lo, hi};
        if (!st) st = bind_make_call(c, "__array_slice", args, 3, loc, out);
        floe_expr_release(lo);
        floe_expr_release(hi);
        return st;
    }
    if (id != FLOE_TYPE_LIST && id != FLOE_TYPE_MAP)
        return bind_error(c->s, loc, FLOE_ERR_TYPE, "cannot subscript a value that is not a list or a map");
    floe_expr *k = NULL;
    FLOE_TRY(bind_expr(c, floe_pg_get(indices, "uidx"), &k));
    floe_expr *args[2] = {base, k};
    floe_status st = bind_make_call(c, id == FLOE_TYPE_LIST ? "list_element" : "element_at", args, 2, loc, out);
    floe_expr_release(k);
    return st;
}

/* ------------------------------------------ array functions, ANY / ALL */

/* The list type of elements of type t. */
static floe_status list_of(floe_type *t, floe_type **out) {
    floe_field e = {0};
    floe_status st = floe_field_init(&e, "element", t, true, -1);
    if (!st) st = floe_type_list(&e, out);
    floe_field_clear(&e);
    return st;
}

/* Cast *e to type t (one reference replaced). */
static floe_status cast_to(floe_expr **e, floe_type *t) {
    floe_expr *x = NULL;
    FLOE_TRY(floe_expr_cast(*e, t, &x));
    floe_expr_release(*e);
    *e = x;
    return NULL;
}

/* Make list *l and value *x agree as PostgreSQL's anyarray / anyelement
 * do: the element type and x's type become their common type (a quoted
 * literal list, '{1,2}', is read as a list of x's type; a NULL list takes
 * x's type). */
static floe_status coerce_elem(bind_ectx *c, floe_expr **l, floe_expr **x, int32_t loc) {
    floe_type *lt = NULL, *xt = NULL, *tt = NULL, *nl = NULL;
    floe_expr *ph = NULL;
    floe_status st = bind_type_of(c, *l, &lt);
    if (!st) st = bind_type_of(c, *x, &xt);
    if (st) goto out;
    if (lt->id != FLOE_TYPE_LIST) {
        if (xt->id == FLOE_TYPE_NULL || xt->id == FLOE_TYPE_LIST) {
            st = lt->id == FLOE_TYPE_NULL ? NULL
                                          : bind_error(c->s, loc, FLOE_ERR_TYPE, "an array is needed here, not %s",
                                                       floe_type_id_name(lt->id));
            goto out;
        }
        if (lt->id != FLOE_TYPE_NULL && !bind_is_string_literal(*l)) {
            st = bind_error(c->s, loc, FLOE_ERR_TYPE, "an array is needed here, not %s", floe_type_id_name(lt->id));
            goto out;
        }
        st = list_of(xt, &nl);
        if (!st) st = cast_to(l, nl);
        goto out;
    }
    floe_type *et = lt->children[0].type;
    if (floe_type_compatible(et, xt)) goto out;
    if (xt->id == FLOE_TYPE_NULL || bind_is_string_literal(*x)) {
        st = cast_to(x, et);
        goto out;
    }
    /* common type of the element and x, as ARRAY[] makes it */
    st = floe_expr_lit_null(et, &ph);
    floe_expr *pair[2] = {*x, ph};
    if (!st) st = bind_unify_list(c, pair, 2, loc);
    *x = pair[0];
    ph = pair[1];
    if (!st) st = bind_type_of(c, ph, &tt);
    if (!st && !floe_type_compatible(tt, et)) {
        st = list_of(tt, &nl);
        if (!st) st = cast_to(l, nl);
    }
out:
    floe_expr_release(ph);
    floe_type_release(lt);
    floe_type_release(xt);
    floe_type_release(tt);
    floe_type_release(nl);
    return st;
}

floe_status bind_array_call(bind_ectx *c, const char *name, floe_expr **args, int32_t n, int32_t loc, floe_expr **out) {
    *out = NULL;
    if (n != 2) return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s takes 2 arguments", name);
    if (!strcmp(name, "array_prepend")) {
        FLOE_TRY(coerce_elem(c, &args[1], &args[0], loc));
    } else if (!strcmp(name, "array_cat")) {
        /* both lists: unify through one element of b */
        floe_type *bt = NULL;
        FLOE_TRY(bind_type_of(c, args[1], &bt));
        floe_status st = NULL;
        if (bt->id == FLOE_TYPE_LIST) {
            floe_expr *ph = NULL, *l0 = floe_expr_retain(args[0]);
            st = floe_expr_lit_null(bt->children[0].type, &ph);
            if (!st) st = coerce_elem(c, &args[0], &ph, loc);
            floe_type *pt = NULL, *nl = NULL;
            if (!st) st = bind_type_of(c, ph, &pt);
            if (!st && !floe_type_compatible(pt, bt->children[0].type)) {
                st = list_of(pt, &nl);
                if (!st) st = cast_to(&args[1], nl);
            }
            floe_type_release(pt);
            floe_type_release(nl);
            floe_expr_release(ph);
            floe_expr_release(l0);
        } else if (bt->id != FLOE_TYPE_NULL) {
            st = bind_error(c->s, loc, FLOE_ERR_TYPE, "array_cat needs arrays, not %s", floe_type_id_name(bt->id));
        }
        floe_type_release(bt);
        FLOE_TRY(st);
    } else {
        FLOE_TRY(coerce_elem(c, &args[0], &args[1], loc));
    }
    return bind_make_call(c, name, args, n, loc, out);
}

floe_status bind_array_compare(bind_ectx *c, floe_cmp_op op, bool all, floe_expr *x, floe_expr *list, int32_t loc,
                               floe_expr **out) {
    *out = NULL;
    floe_expr *l = floe_expr_retain(list), *v = floe_expr_retain(x), *code = NULL;
    floe_status st = coerce_elem(c, &l, &v, loc);
    if (!st) st = floe_expr_lit_int64((int64_t)op, &code);
    floe_expr *args[3] = {l, v, code};
    if (!st) st = bind_make_call(c, all ? "__array_all" : "__array_any", args, 3, loc, out);
    floe_expr_release(l);
    floe_expr_release(v);
    floe_expr_release(code);
    return st;
}
