/*
 * bind_join_sublink.c — subqueries in an outer join's ON condition.
 *
 * An inner join's ON with subqueries is a filter over the cross join
 * (bind_from.c); an outer join's is not, since rows failing it are padded,
 * not dropped.  But a subquery reading the columns of one side only (or
 * none) is a value of that side's row, whatever the join: each is computed
 * on its side first, as a column __j<i> (a system column: found by name,
 * not part of `*`), and the ON reads that column:
 *
 *   t LEFT JOIN u ON u.k = t.k AND u.v IN (SELECT v FROM w WHERE w.k = u.k)
 *
 * is t LEFT JOIN (u with __j0 = u.v IN (...)) ON u.k = t.k AND __j0.
 * The subquery's value is bound as a select list's would be
 * (bind_decorrelate.c, bind_subquery.c), over the side alone.  A subquery
 * reading columns of both sides is refused with an error naming that.
 */
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

/* The value of `sublink` computed onto side *x (its FROM item
 * `item`), as a new last column `name`.  *tried is false when the subquery
 * reads columns the side does not have (then *x is as it was). */
static floe_status side_value(floe_session *s, bind_result *x, const json_t *item, const json_t *sublink,
                              const char *name, bool *tried) {
    *tried = false;
    int32_t n = floe_schema_num_fields(x->plan->schema), nsc = x->scope.n;
    json_t *fl = json_pack("[O]", item);
    if (!fl) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    bind_ectx c;
    bind_ectx_init(&c, s, &x->scope, x->plan->schema, "JOIN/ON");
    c.plan = &x->plan;
    c.from_clause = fl;
    floe_expr *e = NULL;
    floe_status st = bind_expr(&c, sublink, &e);
    if (!st && c.n_extras > 0)
        st = bind_error(s, floe_pg_location(sublink), FLOE_ERR_UNSUPPORTED, "this subquery in JOIN/ON is not supported");
    bind_ectx_clear(&c);
    json_decref(fl);
    bool unchanged = floe_schema_num_fields(x->plan->schema) == n && x->scope.n == nsc;
    if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND && unchanged) {
        floe_status_free(st); /* another side's columns */
        return NULL;
    }
    *tried = true;
    /* keep the side's own columns and the value; drop what the
     * subquery's joins added */
    floe_expr **pe = st ? NULL : floe_calloc((size_t)n + 2, sizeof *pe);
    char **pn = st ? NULL : floe_calloc((size_t)n + 2, sizeof *pn);
    if (!st && (!pe || !pn)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n && !st; i++) {
        st = floe_expr_column(i, &pe[i]);
        pn[i] = floe_schema_field(x->plan->schema, i)->name;
    }
    if (!st) {
        pe[n] = floe_expr_retain(e);
        pn[n] = (char *)name;
        floe_lplan *p = NULL;
        st = bind_make_project(x->plan, pe, pn, n + 1, &p);
        if (!st) x->plan = p;
    }
    if (pe) bind_expr_list_free(pe, n + 1);
    floe_free(pn);
    floe_expr_release(e);
    for (int32_t i = nsc; i < x->scope.n; i++) {
        floe_free(x->scope.cols[i].qual);
        floe_free(x->scope.cols[i].name);
    }
    if (x->scope.n > nsc) x->scope.n = nsc;
    if (!st) st = bind_scope_add(&x->scope, NULL, name, false);
    if (!st) bind_scope_mark_system(&x->scope, x->scope.n - 1);
    return st;
}

typedef struct on_state {
    floe_session *s;
    const json_t *je;
    bind_result *l, *r;
    bool right_first; /* try the right side first (LEFT and FULL joins) */
    int32_t n;
} on_state;

/* One outermost subquery of the ON: onto a side, then a column ref. */
static floe_status replace(on_state *o, const json_t *sublink, json_t **out) {
    char nm[32];
    snprintf(nm, sizeof nm, "__j%d", (int)o->n++);
    bool tried = false;
    floe_status st = NULL;
    for (int k = 0; k < 2 && !tried && !st; k++) {
        bool right = (k == 0) == o->right_first;
        st = side_value(o->s, right ? o->r : o->l, floe_pg_get(o->je, right ? "rarg" : "larg"), sublink, nm, &tried);
    }
    if (!st && !tried)
        st = bind_error(o->s, floe_pg_location(sublink), FLOE_ERR_UNSUPPORTED,
                        "a subquery in an outer join's ON reading columns of both sides is not supported");
    if (!st && !(*out = json_pack("{s:{s:[{s:{s:s}}]}}", "ColumnRef", "fields", "String", "sval", nm)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    return st;
}

static floe_status walk(on_state *o, json_t *node) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            json_t *v = json_array_get(node, i), *cr = NULL;
            if (!floe_pg_as(v, "SubLink")) {
                FLOE_TRY(walk(o, v));
                continue;
            }
            FLOE_TRY(replace(o, v, &cr));
            if (json_array_set_new(node, i, cr)) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
        return NULL;
    }
    if (!json_is_object(node)) return NULL;
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(node, tmp, k, v) {
        json_t *cr = NULL;
        if (!floe_pg_as(v, "SubLink")) {
            FLOE_TRY(walk(o, v));
            continue;
        }
        FLOE_TRY(replace(o, v, &cr));
        if (json_object_set_new(node, k, cr)) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    return NULL;
}

floe_status bind_outer_join_on_sublinks(floe_session *s, const json_t *je, bind_result *l, bind_result *r,
                                        json_t **quals_out) {
    const char *jt = floe_pg_get_str(je, "jointype");
    on_state o = {s, je, l, r, !jt || strcmp(jt, "JOIN_RIGHT") != 0, 0};
    /* a wrapper so a bare subquery as the whole ON is replaced too */
    json_t *w = json_pack("[O]", floe_pg_get(je, "quals"));
    if (!w) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    json_t *copy = json_deep_copy(w);
    json_decref(w);
    floe_status st = copy ? walk(&o, copy) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    if (!st) *quals_out = json_incref(json_array_get(copy, 0));
    json_decref(copy);
    return st;
}
