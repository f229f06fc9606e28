/*
 * bind_nested_corr.c — subqueries nested inside a correlated subquery's
 * WHERE that read the outer query's columns (an EXISTS / IN / scalar
 * subquery reading both the correlated subquery's FROM and the query
 * around it, or only a column two levels out).
 *
 * bind_decorrelate.c unnests SELECT ... FROM F WHERE w over D, the
 * distinct outer values, as D JOIN F.  A conjunct of w holding such a
 * subquery cannot be bound over F with the outer columns as plain
 * references (the nested subquery would be correlated to two levels at
 * once), so D becomes every outer FROM column and the conjunct is bound
 * over D JOIN F as one ordinary query level whose columns are the outer
 * FROM's ++ F's, under their own names (F's hiding equal outer names, as
 * SQL's scoping does).  The nested subquery is then correlated to that
 * level only and is unnested the same way, its own D drawn from the outer
 * FROM and F bound afresh and cross-joined (a superset of the level's
 * values is enough), which recurses for deeper nesting — Neumann &
 * Kemper's dependent join pushed down one level at a time, never run per
 * row.
 */
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"
#include "sql/bind_decorrelate.h"
#include "sql/pgnode.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding a subquery: out of memory"); }

bool bind_json_has_sublink(const json_t *node) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            if (bind_json_has_sublink(json_array_get(node, i))) return true;
        return false;
    }
    if (!json_is_object(node)) return false;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)node, k, v) {
        if (!strcmp(k, "SubLink") || bind_json_has_sublink(v)) return true;
    }
    return false;
}

/* A qualified column under `node` whose qualifier is one of osc's (the
 * outer query's relations): "t.c" in buf, else NULL.  FROM items of the
 * node's own levels are not told apart (only an error's words use it). */
static const char *outer_column_in(const json_t *node, const bind_scope *osc, char *buf, size_t n) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            const char *r = outer_column_in(json_array_get(node, i), osc, buf, n);
            if (r) return r;
        }
        return NULL;
    }
    if (!json_is_object(node)) return NULL;
    json_t *cr = floe_pg_as(node, "ColumnRef");
    if (cr) {
        json_t *fl = floe_pg_get(cr, "fields");
        const char *q = floe_pg_list_len(fl) == 2 ? floe_pg_string(floe_pg_list_at(fl, 0)) : NULL;
        const char *c = q ? floe_pg_string(floe_pg_list_at(fl, 1)) : NULL;
        for (int32_t i = 0; q && c && osc && i < osc->n; i++)
            if (osc->cols[i].qual && !strcmp(osc->cols[i].qual, q)) {
                snprintf(buf, n, "%s.%s", q, c);
                return buf;
            }
        return NULL;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)node, k, v) {
        const char *r = outer_column_in(v, osc, buf, n);
        if (r) return r;
    }
    return NULL;
}

/* The derived tables (subqueries in FROM, at any join depth) of from_list. */
static const char *derived_outer_column(const json_t *from_list, const bind_scope *osc, char *buf, size_t n) {
    for (int32_t i = 0; i < floe_pg_list_len(from_list); i++) {
        const json_t *it = floe_pg_list_at(from_list, i);
        const json_t *rs = floe_pg_as(it, "RangeSubselect"), *j = floe_pg_as(it, "JoinExpr");
        const char *r = NULL;
        if (rs) r = outer_column_in(floe_pg_get(rs, "subquery"), osc, buf, n);
        if (j) {
            json_t *two = json_pack("[O,O]", floe_pg_get(j, "larg"), floe_pg_get(j, "rarg"));
            if (two) r = derived_outer_column(two, osc, buf, n);
            json_decref(two);
        }
        if (r) return r;
    }
    return NULL;
}

floe_status bind_corr_sub_from(floe_session *s, const json_t *sub, const bind_scope *osc, bind_result *out) {
    const json_t *fl = floe_pg_get(sub, "fromClause");
    floe_status st = bind_from(s, fl, out);
    if (!st || floe_status_code(st) != FLOE_ERR_NOT_FOUND) return st;
    char buf[160];
    const char *col = derived_outer_column(fl, osc, buf, sizeof buf);
    if (!col) return st;
    floe_status_free(st);
    /* (still "not found": callers trying another form on it go on) */
    return floe_error(FLOE_ERR_NOT_FOUND,
                      "a derived table (subquery in FROM) inside a correlated subquery reading the outer query's "
                      "column %s is not supported (compare %s in the correlated subquery's own WHERE instead)",
                      col, col);
}

floe_status bind_fresh_from(floe_session *s, const json_t *from_clause, const bind_from_chain *chain,
                            bind_result *out) {
    memset(out, 0, sizeof(*out));
    if (!chain) return bind_from(s, from_clause, out);
    FLOE_TRY(bind_fresh_from(s, from_clause, chain->prev, out));
    bind_result more;
    floe_status st = bind_from(s, chain->items, &more);
    if (!st) st = bind_scope_append(&out->scope, &more.scope);
    if (!st) {
        floe_lplan *j = NULL;
        st = bind_make_join(out->plan, more.plan, FLOE_JOIN_INNER, NULL, &j);
        out->plan = j;
        more.plan = NULL;
    }
    bind_result_free(&more);
    if (st) bind_result_free(out);
    return st;
}

/* A projection of `in`'s columns cols[0..n) under their names (consumes in). */
static floe_status project_cols(floe_lplan *in, const int32_t *cols, int32_t n, floe_lplan **out) {
    floe_expr **e = floe_calloc((size_t)n + 1, sizeof(*e));
    char **nm = floe_calloc((size_t)n + 1, sizeof(*nm));
    floe_status st = e && nm ? NULL : oom();
    for (int32_t i = 0; i < n && !st; i++) {
        st = floe_expr_column(cols[i], &e[i]);
        if (!st && !(nm[i] = floe_strdup(floe_schema_field(in->schema, cols[i])->name))) st = oom();
    }
    if (!st) st = bind_make_project(in, e, nm, n, out);
    else floe_lplan_free(in);
    for (int32_t i = 0; i < n; i++) {
        if (e) floe_expr_release(e[i]);
        if (nm) floe_free(nm[i]);
    }
    floe_free(e);
    floe_free(nm);
    return st;
}

/* Names of the level outer FROM ++ F: F's as they are, the outer ones
 * hidden from unqualified lookup when F has the name too, unreachable
 * when F has their relation name. */
static floe_status level_scope(const bind_scope *osc, int32_t nf, const bind_scope *iscope, bool has_x,
                               bind_scope *out) {
    memset(out, 0, sizeof(*out));
    floe_status st = NULL;
    for (int32_t i = 0; i < nf && !st; i++) {
        const bind_col *oc = &osc->cols[i];
        bool name_shadowed = false, qual_shadowed = false;
        for (int32_t k = 0; k < iscope->n; k++) {
            const bind_col *ic = &iscope->cols[k];
            if (!ic->hidden && !strcmp(ic->name, oc->name)) name_shadowed = true;
            if (ic->qual && oc->qual && !strcmp(ic->qual, oc->qual)) qual_shadowed = true;
        }
        st = bind_scope_add(out, qual_shadowed ? "?outer?" : oc->qual, oc->name, oc->hidden || name_shadowed);
        if (!st) {
            out->cols[out->n - 1].system = oc->system;
            out->cols[out->n - 1].using_side = oc->using_side;
        }
    }
    for (int32_t k = 0; k < iscope->n && !st; k++) {
        st = bind_scope_add(out, iscope->cols[k].qual, iscope->cols[k].name, iscope->cols[k].hidden);
        if (!st) {
            out->cols[out->n - 1].system = iscope->cols[k].system;
            out->cols[out->n - 1].using_side = iscope->cols[k].using_side;
        }
    }
    if (!st && has_x) st = bind_scope_add(out, NULL, "?in_value?", true);
    if (st) bind_scope_free(out);
    return st;
}

floe_status bind_nested_corr_filter(floe_session *s, floe_lplan **jn, int32_t nf, bool has_x, const bind_scope *osc,
                                    const bind_scope *iscope, const json_t *from_clause,
                                    const bind_from_chain *chain, const json_t *sub_from, const json_t *const *late,
                                    int32_t n_late, const json_t *val) {
    int32_t nd = nf + (has_x ? 1 : 0), n = floe_schema_num_fields((*jn)->schema), nin = n - nd;
    int32_t *cols = floe_calloc((size_t)n + 2, sizeof(int32_t));
    floe_expr *ve = NULL;
    if (!cols) return oom();
    /* D JOIN F as outer FROM ++ F (++ x) */
    for (int32_t i = 0; i < nf; i++) cols[i] = i;
    for (int32_t i = 0; i < nin; i++) cols[nf + i] = nd + i;
    if (has_x) cols[n - 1] = nf;
    floe_lplan *p = NULL;
    floe_status st = project_cols(*jn, cols, n, &p);
    *jn = NULL;
    bind_scope sc;
    memset(&sc, 0, sizeof(sc));
    if (!st) st = level_scope(osc, nf, iscope, has_x, &sc);
    floe_expr **preds = floe_calloc((size_t)n_late + 1, sizeof(*preds));
    if (!st && !preds) st = oom();
    int32_t np = 0;
    if (!st) {
        bind_from_chain link = {sub_from, chain};
        bind_ectx lc;
        bind_ectx_init(&lc, s, &sc, p->schema, "WHERE");
        lc.plan = &p;
        lc.from_clause = from_clause;
        lc.from_chain = &link;
        for (int32_t i = 0; i < n_late && !st; i++) {
            st = bind_predicate(&lc, late[i], &preds[i]);
            if (!st) np = i + 1;
        }
        if (!st && val) {
            lc.clause = "SELECT";
            st = bind_expr(&lc, val, &ve);
        }
        bind_ectx_clear(&lc);
    }
    floe_expr *pred = NULL;
    if (!st && np > 0) st = bind_and_all(preds, np, &pred);
    if (!st && pred) {
        floe_lplan *f = NULL;
        st = bind_filter_node(p, pred, &f);
        p = f;
    }
    /* back to D (++ x) ++ F (++ the value), the columns the nested
     * subqueries added dropped */
    for (int32_t i = 0; i < nf; i++) cols[i] = i;
    if (has_x) cols[nf] = nf + nin;
    for (int32_t i = 0; i < nin; i++) cols[nd + i] = nf + i;
    if (!st && ve) {
        /* the value as one more column: a projection of p's columns ++ it */
        int32_t np2 = floe_schema_num_fields(p->schema);
        floe_expr **e = floe_calloc((size_t)np2 + 2, sizeof(*e));
        char **nm = floe_calloc((size_t)np2 + 2, sizeof(*nm));
        if (!e || !nm) st = oom();
        for (int32_t i = 0; i < np2 && !st; i++) {
            st = floe_expr_column(i, &e[i]);
            if (!st && !(nm[i] = floe_strdup(floe_schema_field(p->schema, i)->name))) st = oom();
        }
        if (!st && !(nm[np2] = floe_strdup("?value?"))) st = oom();
        if (!st) e[np2] = floe_expr_retain(ve);
        floe_lplan *pp = NULL;
        if (!st) {
            st = bind_make_project(p, e, nm, np2 + 1, &pp);
            p = pp;
        }
        for (int32_t i = 0; i <= np2; i++) {
            if (e) floe_expr_release(e[i]);
            if (nm) floe_free(nm[i]);
        }
        floe_free(e);
        floe_free(nm);
        cols[n] = np2;
    }
    if (!st) {
        st = project_cols(p, cols, n + (ve ? 1 : 0), jn);
        p = NULL;
    }
    floe_lplan_free(p);
    floe_expr_release(pred);
    floe_expr_release(ve);
    if (preds) bind_expr_list_free(preds, np);
    bind_scope_free(&sc);
    floe_free(cols);
    return st;
}
