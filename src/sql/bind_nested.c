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
    if (floe_pg_get_bool(indices, "is_slice"))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "array slices (xs[a:b]) are not supported");
    floe_type *t = NULL;
    FLOE_TRY(bind_type_of(c, base, &t));
    floe_type_id id = t->id;
    floe_type_release(t);
    if (id != FLOE_TYPE_LIST && id != FLOE_TYPE_MAP)
        return bind_error(c->s, loc, FLOE_ERR_TYPE, "cannot subscript a value that is not a list or a map");
    floe_expr *k = NULL;
    FLOE_TRY(bind_expr(c, floe_pg_get(indices, "uidx"), &k));
    floe_expr *args[2] = {base, k};
    floe_status st = bind_make_call(c, id == FLOE_TYPE_LIST ? "list_element" : "element_at", args, 2, loc, out);
    floe_expr_release(k);
    return st;
}
