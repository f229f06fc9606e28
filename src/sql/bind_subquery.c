/*
 * bind_subquery.c — subqueries: scalar subqueries joined onto the plan
 * (INNER when the subquery yields exactly one row, else LEFT; correlated
 * ones as an aggregate per inner key, LEFT joined on the outer keys), and
 * [NOT] EXISTS / [NOT] IN (subquery) conjuncts of WHERE as semi and anti
 * joins (equalities with outer columns become join keys).
 */
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

/* --------------------------------------------------- scalar subqueries */

/* True when the plan yields exactly one row (a global aggregate under
 * projections). */
static bool yields_one_row(const floe_lplan *p) {
    while (p->kind == FLOE_L_PROJECT) p = p->inputs[0];
    return p->kind == FLOE_L_AGGREGATE && p->n_exprs == 0;
}

/* A correlated scalar subquery SELECT agg_expr FROM ... WHERE ... whose
 * correlations are equalities outer_expr = inner_expr: the inner rows are
 * aggregated per inner key and LEFT joined on the outer keys (count(...)
 * alone reads 0, not NULL, where no inner row matches). */
static floe_status correlated_scalar(bind_ectx *c, const json_t *sub, int32_t loc, floe_expr **out) {
    json_t *tl = floe_pg_get(sub, "targetList");
    if (!sub || floe_pg_list_len(tl) != 1 || floe_pg_list_len(floe_pg_get(sub, "groupClause")) ||
        floe_pg_get(sub, "havingClause") || floe_pg_get(sub, "distinctClause") || floe_pg_get(sub, "limitCount") ||
        floe_pg_get(sub, "valuesLists") || !floe_pg_get(sub, "fromClause") ||
        strcmp(floe_pg_get_str(sub, "op") ? floe_pg_get_str(sub, "op") : "", "SETOP_NONE") ||
        !bind_has_aggregate(tl))
        return floe_error(FLOE_ERR_UNSUPPORTED, "correlated scalar subquery shape");
    floe_session *s = c->s;
    bind_result inner;
    FLOE_TRY(bind_corr_sub_from(s, sub, c->sc, &inner));
    floe_lplan *outer_plan = *c->plan;
    int32_t n_outer = floe_schema_num_fields(outer_plan->schema);
    json_t *where = floe_pg_get(sub, "whereClause");
    json_t *be = floe_pg_as(where, "BoolExpr");
    const char *bop = floe_pg_get_str(be, "boolop");
    json_t *conj = be && bop && !strcmp(bop, "AND_EXPR") ? floe_pg_get(be, "args") : NULL;
    int32_t n_conj = conj ? floe_pg_list_len(conj) : where ? 1 : 0;
    floe_expr **ok = floe_calloc((size_t)n_conj + 1, sizeof(floe_expr *));
    floe_expr **ik = floe_calloc((size_t)n_conj + 1, sizeof(floe_expr *));
    floe_expr **conds = floe_calloc((size_t)n_conj + 1, sizeof(floe_expr *));
    int32_t nk = 0, nc = 0;
    floe_status st = (!ok || !ik || !conds) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    bind_ectx wc;
    bind_ectx_init(&wc, s, &inner.scope, inner.plan->schema, "WHERE");
    wc.outer = c->sc;
    wc.outer_schema = floe_type_retain(outer_plan->schema);
    for (int32_t i = 0; i < n_conj && !st; i++) {
        floe_expr *e = NULL;
        st = bind_predicate(&wc, conj ? floe_pg_list_at(conj, i) : where, &e);
        if (st) break;
        int32_t lo = INT32_MAX, hi = -1;
        bind_expr_column_range(e, &lo, &hi);
        if (lo >= n_outer || hi < 0) {
            st = bind_expr_shift(e, -n_outer, &conds[nc]);
            if (!st) nc++;
        } else {
            const floe_expr *o = NULL, *in = NULL;
            if (e->kind == FLOE_EXPR_CMP && e->op == FLOE_CMP_EQ) {
                int32_t lo0 = INT32_MAX, hi0 = -1, lo1 = INT32_MAX, hi1 = -1;
                bind_expr_column_range(e->args[0], &lo0, &hi0);
                bind_expr_column_range(e->args[1], &lo1, &hi1);
                if (hi0 >= 0 && hi0 < n_outer && lo1 >= n_outer && hi1 >= 0) o = e->args[0], in = e->args[1];
                else if (hi1 >= 0 && hi1 < n_outer && lo0 >= n_outer && hi0 >= 0) o = e->args[1], in = e->args[0];
            }
            if (!o) {
                st = bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                                "correlated scalar subqueries support only equality correlations");
            } else {
                ok[nk] = floe_expr_retain((floe_expr *)o);
                st = bind_expr_shift(in, -n_outer, &ik[nk]);
                if (!st) nk++;
                else floe_expr_release(ok[nk]);
            }
        }
        floe_expr_release(e);
    }
    bind_ectx_clear(&wc);
    if (!st && nk == 0) st = floe_error(FLOE_ERR_UNSUPPORTED, "no correlation");
    floe_lplan *right = inner.plan;
    inner.plan = NULL;
    if (!st && nc > 0) {
        floe_expr *pred = NULL;
        st = bind_and_all(conds, nc, &pred);
        floe_lplan *f = NULL;
        if (!st) {
            st = bind_filter_node(right, pred, &f);
            right = f;
        }
        floe_expr_release(pred);
    }
    /* The aggregate per inner key, then value ++ keys. */
    bind_ectx ac;
    bind_ectx_init(&ac, s, &inner.scope, right ? right->schema : NULL, "SELECT");
    ac.agg_mode = true;
    floe_expr *val = NULL;
    json_t *vnode = floe_pg_get(floe_pg_as(floe_pg_list_at(tl, 0), "ResTarget"), "val");
    if (!st) st = bind_expr(&ac, vnode, &val);
    for (int32_t i = 0; i < ac.n_extras && !st; i++)
        if (!ac.extras[i].is_agg) st = floe_error(FLOE_ERR_UNSUPPORTED, "nested subquery");
    floe_lplan *agg = NULL;
    int32_t na = ac.n_extras;
    if (!st) {
        floe_field *f = floe_calloc((size_t)(nk + na) + 1, sizeof(floe_field));
        floe_schema *as = NULL;
        if (!f) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < nk && !st; i++) {
            floe_type *t = NULL;
            char nm[32];
            snprintf(nm, sizeof nm, "key_%d", (int)i);
            st = floe_expr_type(ik[i], right->schema, &t);
            if (!st) st = floe_field_init(&f[i], nm, t, true, -1);
            floe_type_release(t);
        }
        for (int32_t i = 0; i < na && !st; i++) st = floe_field_init(&f[nk + i], ac.extras[i].agg.name, ac.extras[i].type, true, -1);
        if (!st) st = floe_type_struct(f, nk + na, &as);
        for (int32_t i = 0; f && i < nk + na; i++) floe_field_clear(&f[i]);
        floe_free(f);
        if (!st) {
            floe_lplan *in[1] = {right};
            right = NULL;
            st = floe_lplan_new(FLOE_L_AGGREGATE, as, in, 1, &agg);
        }
        floe_type_release(as);
        if (!st) {
            agg->exprs = floe_calloc((size_t)nk + 1, sizeof(floe_expr *));
            agg->names = floe_calloc((size_t)nk + 1, sizeof(char *));
            agg->aggs = floe_calloc((size_t)na + 1, sizeof(floe_agg_call));
            if (!agg->exprs || !agg->names || !agg->aggs) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            for (int32_t i = 0; i < nk && !st; i++) {
                agg->exprs[i] = floe_expr_retain(ik[i]);
                agg->names[i] = floe_strdup(floe_schema_field(agg->schema, i)->name);
                agg->n_exprs = i + 1;
            }
            for (int32_t i = 0; i < na && !st; i++) {
                agg->aggs[i] = ac.extras[i].agg;
                memset(&ac.extras[i].agg, 0, sizeof ac.extras[i].agg);
                agg->n_aggs = i + 1;
            }
        }
    }
    /* value over the aggregate output: aggregate extra k is column nk + k. */
    floe_lplan *proj = NULL;
    if (!st) {
        int32_t *extra_col = floe_calloc((size_t)na + 1, sizeof(int32_t));
        if (!extra_col) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < na && !st; i++) extra_col[i] = nk + i;
        floe_expr *v2 = NULL;
        if (!st) st = bind_rewrite_over_agg(&ac, val, NULL, 0, extra_col, NULL, &v2);
        floe_free(extra_col);
        floe_expr **pe = floe_calloc((size_t)nk + 2, sizeof(floe_expr *));
        char **pn = floe_calloc((size_t)nk + 2, sizeof(char *));
        if (!st && (!pe || !pn)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        if (!st) {
            pe[0] = floe_expr_retain(v2);
            pn[0] = (char *)"value";
            for (int32_t i = 0; i < nk && !st; i++) {
                st = floe_expr_column(i, &pe[i + 1]);
                pn[i + 1] = agg->names[i];
            }
        }
        if (!st) {
            st = bind_make_project(agg, pe, pn, nk + 1, &proj);
            agg = NULL;
        }
        if (pe) bind_expr_list_free(pe, nk + 1);
        floe_free(pn);
        floe_expr_release(v2);
    }
    bool count_only = !st && na == 1 && val && val->kind == FLOE_EXPR_COLUMN && proj &&
                      (proj->inputs[0]->aggs[0].fn == FLOE_AGG_COUNT || proj->inputs[0]->aggs[0].fn == FLOE_AGG_COUNT_STAR);
    floe_expr_release(val);
    bind_ectx_clear(&ac);
    floe_lplan_free(agg);
    floe_lplan_free(right);
    /* LEFT join on outer keys = the projected keys. */
    if (!st) {
        floe_expr *on = NULL;
        floe_expr **eqs = floe_calloc((size_t)nk + 1, sizeof(floe_expr *));
        if (!eqs) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < nk && !st; i++) {
            floe_expr *rc = NULL;
            st = floe_expr_column(n_outer + 1 + i, &rc);
            if (!st) st = floe_expr_cmp(FLOE_CMP_EQ, ok[i], rc, &eqs[i]);
            floe_expr_release(rc);
        }
        if (!st) st = bind_and_all(eqs, nk, &on);
        if (eqs) bind_expr_list_free(eqs, nk);
        floe_lplan *j = NULL;
        if (!st) {
            st = bind_make_join(outer_plan, proj, FLOE_JOIN_LEFT, on, &j);
            proj = NULL;
            *c->plan = j;
        }
        floe_expr_release(on);
    }
    floe_lplan_free(proj);
    if (ok) bind_expr_list_free(ok, nk);
    if (ik) bind_expr_list_free(ik, nk);
    if (conds) bind_expr_list_free(conds, nc);
    bind_result_free(&inner);
    if (st) return st;
    /* The join added value ++ keys; only value is named (hidden). */
    FLOE_TRY(bind_scope_add(c->sc, NULL, "?subquery?", true));
    for (int32_t i = 0; i < nk; i++) FLOE_TRY(bind_scope_add(c->sc, NULL, "?subquery key?", true));
    floe_type_release(c->schema);
    c->schema = floe_type_retain((*c->plan)->schema);
    c->n_from = floe_schema_num_fields((*c->plan)->schema);
    floe_expr *v = NULL;
    FLOE_TRY(floe_expr_column(n_outer, &v));
    if (!count_only) {
        *out = v;
        return NULL;
    }
    floe_expr *zero = NULL;
    st = floe_expr_lit_int64(0, &zero);
    floe_expr *args[2] = {v, zero};
    if (!st) st = floe_expr_coalesce(args, 2, out);
    floe_expr_release(v);
    floe_expr_release(zero);
    return st;
}

floe_status bind_scalar_subquery(bind_ectx *c, const json_t *sublink, floe_expr **out) {
    json_t *body = floe_pg_node_body(sublink);
    int32_t loc = floe_pg_location(sublink);
    if (c->outer || c->in_agg_arg || (!c->agg_mode && !c->plan))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "a subquery is not supported in %s",
                          c->outer ? "a correlated condition" : c->in_agg_arg ? "an aggregate's argument"
                                                                               : (c->clause ? c->clause : "this place"));
    bind_result r;
    floe_status st = bind_select(c->s, floe_pg_get(body, "subselect"), &r);
    if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND && !c->agg_mode) {
        /* Perhaps correlated: an aggregate per outer key. */
        floe_status st2 = correlated_scalar(c, bind_select_body(floe_pg_get(body, "subselect")), loc, out);
        if (!st2) {
            floe_status_free(st);
            return NULL;
        }
        if (floe_status_code(st2) != FLOE_ERR_UNSUPPORTED) {
            floe_status_free(st);
            return st2;
        }
        floe_status_free(st2);
        /* Any other correlation: over the distinct outer values. */
        st2 = bind_decorrelated(c, bind_select_body(floe_pg_get(body, "subselect")), BIND_SUBLINK_SCALAR, NULL, loc, out);
        if (!st2 || floe_status_code(st2) != FLOE_ERR_NOT_FOUND) {
            floe_status_free(st);
            return st2;
        }
        floe_status_free(st2);
    }
    if (st) {
        if (floe_status_code(st) == FLOE_ERR_NOT_FOUND)
            st = floe_status_wrap(st, "(correlated scalar subqueries must be an aggregate over FROM ... WHERE with "
                                      "equality correlations)");
        return st;
    }
    if (floe_schema_num_fields(r.plan->schema) != 1) {
        bind_result_free(&r);
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "subquery must return only one column");
    }
    bind_extra x;
    memset(&x, 0, sizeof(x));
    x.one_row = yields_one_row(r.plan);
    if (!x.one_row) {
        /* Its value, NULL when empty, an error past one row: one row. */
        floe_lplan *one = NULL;
        st = bind_single_row_plan(c->s, floe_pg_get(body, "subselect"), r.plan, &one);
        r.plan = one;
        if (st) {
            bind_result_free(&r);
            return st;
        }
        x.one_row = true;
    }
    x.type = floe_type_retain(floe_schema_field(r.plan->schema, 0)->type);
    bind_scope_free(&r.scope);
    if (c->agg_mode) {
        /* Joined after the aggregate (see bind_simple_select). */
        x.subquery = r.plan;
        int32_t idx = -1;
        st = bind_add_extra(c, &x, &idx);
        if (st) {
            floe_lplan_free(x.subquery);
            floe_type_release(x.type);
            return st;
        }
        return floe_expr_column(idx, out);
    }
    floe_type_release(x.type);
    int32_t idx = floe_schema_num_fields((*c->plan)->schema);
    floe_lplan *j = NULL;
    st = bind_make_join(*c->plan, r.plan, x.one_row ? FLOE_JOIN_INNER : FLOE_JOIN_LEFT, NULL, &j);
    *c->plan = j;
    if (st) return st;
    FLOE_TRY(bind_scope_add(c->sc, NULL, "?subquery?", true));
    floe_type_release(c->schema);
    c->schema = floe_type_retain(j->schema);
    c->n_from = floe_schema_num_fields(j->schema);
    return floe_expr_column(idx, out);
}

/* ------------------------------------------------ IN / EXISTS subqueries */

/* Make a left and a right join key comparable (casts to a common type
 * where numbers of different width meet). */
static floe_status align_keys(floe_expr **l, const floe_schema *ls, floe_expr **r, const floe_schema *rs) {
    floe_type *lt = NULL, *rt = NULL;
    floe_status st = floe_expr_type(*l, ls, &lt);
    if (!st) st = floe_expr_type(*r, rs, &rt);
    if (!st && !floe_type_equals(lt, rt)) {
        floe_type_id a = lt->id, b = rt->id;
        bool ai = a == FLOE_TYPE_INT32 || a == FLOE_TYPE_INT64, bi = b == FLOE_TYPE_INT32 || b == FLOE_TYPE_INT64;
        bool af = a == FLOE_TYPE_FLOAT32 || a == FLOE_TYPE_FLOAT64, bf = b == FLOE_TYPE_FLOAT32 || b == FLOE_TYPE_FLOAT64;
        floe_type *to = NULL;
        if (ai && bi) to = floe_type_primitive(FLOE_TYPE_INT64);
        else if ((ai || af) && (bi || bf)) to = floe_type_primitive(FLOE_TYPE_FLOAT64);
        if (to) {
            floe_expr *nl = NULL, *nr = NULL;
            if (!floe_type_equals(lt, to)) st = floe_expr_cast(*l, to, &nl);
            if (!st && !floe_type_equals(rt, to)) st = floe_expr_cast(*r, to, &nr);
            if (nl) {
                floe_expr_release(*l);
                *l = nl;
            }
            if (nr) {
                floe_expr_release(*r);
                *r = nr;
            }
        }
    }
    floe_type_release(lt);
    floe_type_release(rt);
    return st;
}

floe_status bind_align_keys(floe_expr **l, const floe_schema *ls, floe_expr **r, const floe_schema *rs) {
    return align_keys(l, ls, r, rs);
}

static floe_status semi_join(floe_lplan **plan, floe_lplan *right, bool anti, floe_expr **lk, floe_expr **rk,
                             int32_t n_keys, floe_expr *pred, bool null_aware) {
    floe_lplan *in[2] = {*plan, right};
    floe_join_type type = anti ? FLOE_JOIN_LEFT_ANTI : FLOE_JOIN_LEFT_SEMI;
    floe_lplan *j = NULL;
    floe_status st = floe_lplan_new(FLOE_L_JOIN, (*plan)->schema, in, 2, &j);
    if (st) {
        *plan = NULL; /* both inputs were freed by floe_lplan_new */
        return st;
    }
    *plan = j;
    j->join_type = type;
    j->null_aware = null_aware;
    j->predicate = floe_expr_retain(pred);
    if (n_keys > 0) {
        j->left_keys = floe_calloc((size_t)n_keys, sizeof(floe_expr *));
        j->right_keys = floe_calloc((size_t)n_keys, sizeof(floe_expr *));
        if (!j->left_keys || !j->right_keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < n_keys; i++) {
            j->left_keys[i] = floe_expr_retain(lk[i]);
            j->right_keys[i] = floe_expr_retain(rk[i]);
        }
        j->n_keys = n_keys;
    }
    return NULL;
}

/* The correlated form: the subquery is SELECT ... FROM ... WHERE conds,
 * where conditions may read the outer query's columns.  Equalities between
 * an outer and an inner expression become join keys, other conditions
 * reading outer columns the join's predicate, the rest a filter of the
 * inner side. */
static floe_status correlated_subquery(floe_session *s, floe_lplan **plan, bind_scope *sc, const json_t *sub,
                                       const json_t *testexpr, bool anti, bool is_in, int32_t loc) {
    if (floe_pg_list_len(floe_pg_get(sub, "groupClause")) || floe_pg_get(sub, "havingClause") ||
        floe_pg_get(sub, "distinctClause") || floe_pg_get(sub, "limitCount") || floe_pg_get(sub, "limitOffset") ||
        floe_pg_get(sub, "valuesLists") || strcmp(floe_pg_get_str(sub, "op") ? floe_pg_get_str(sub, "op") : "", "SETOP_NONE") ||
        !floe_pg_get(sub, "fromClause") || bind_has_aggregate(floe_pg_get(sub, "targetList")))
        return bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                          "correlated subqueries are supported only as SELECT ... FROM ... WHERE ...");
    bind_result inner;
    FLOE_TRY(bind_corr_sub_from(s, sub, sc, &inner));
    int32_t n_outer = floe_schema_num_fields((*plan)->schema);
    floe_expr **lk = NULL, **rk = NULL, **inner_conds = NULL, **preds = NULL;
    int32_t nk = 0, ni = 0, np = 0;
    bind_ectx c;
    bind_ectx_init(&c, s, &inner.scope, inner.plan->schema, "WHERE");
    c.outer = sc;
    c.outer_schema = floe_type_retain((*plan)->schema);
    /* The WHERE conjuncts. */
    json_t *where = floe_pg_get(sub, "whereClause");
    json_t *conj = NULL;
    json_t *be = floe_pg_as(where, "BoolExpr");
    const char *bop = floe_pg_get_str(be, "boolop");
    int32_t n_conj = 0;
    if (be && bop && !strcmp(bop, "AND_EXPR")) {
        conj = floe_pg_get(be, "args");
        n_conj = floe_pg_list_len(conj);
    } else if (where) {
        n_conj = 1;
    }
    floe_status st = NULL;
    int32_t cap = n_conj + 2;
    lk = floe_calloc((size_t)cap, sizeof(floe_expr *));
    rk = floe_calloc((size_t)cap, sizeof(floe_expr *));
    inner_conds = floe_calloc((size_t)cap, sizeof(floe_expr *));
    preds = floe_calloc((size_t)cap, sizeof(floe_expr *));
    if (!lk || !rk || !inner_conds || !preds) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n_conj && !st; i++) {
        json_t *node = conj ? floe_pg_list_at(conj, i) : where;
        floe_expr *e = NULL;
        st = bind_predicate(&c, node, &e);
        if (st) break;
        int32_t lo = INT32_MAX, hi = -1;
        bind_expr_column_range(e, &lo, &hi);
        if (lo >= n_outer || hi < 0) {
            st = bind_expr_shift(e, -n_outer, &inner_conds[ni]);
            if (!st) ni++;
        } else {
            bool keyed = false;
            if (e->kind == FLOE_EXPR_CMP && e->op == FLOE_CMP_EQ) {
                int32_t lo0 = INT32_MAX, hi0 = -1, lo1 = INT32_MAX, hi1 = -1;
                bind_expr_column_range(e->args[0], &lo0, &hi0);
                bind_expr_column_range(e->args[1], &lo1, &hi1);
                const floe_expr *o = NULL, *in = NULL;
                if (hi0 >= 0 && hi0 < n_outer && lo1 >= n_outer && hi1 >= 0) o = e->args[0], in = e->args[1];
                else if (hi1 >= 0 && hi1 < n_outer && lo0 >= n_outer && hi0 >= 0) o = e->args[1], in = e->args[0];
                if (o) {
                    lk[nk] = floe_expr_retain((floe_expr *)o);
                    st = bind_expr_shift(in, -n_outer, &rk[nk]);
                    if (!st) nk++;
                    else floe_expr_release(lk[nk]);
                    keyed = true;
                }
            }
            if (!keyed) preds[np++] = floe_expr_retain(e);
        }
        floe_expr_release(e);
    }
    bind_ectx_clear(&c);
    /* IN: the tested value against the subquery's one output. */
    if (!st && is_in) {
        json_t *tl = floe_pg_get(sub, "targetList");
        if (floe_pg_list_len(tl) != 1) {
            st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "subquery has too many columns");
        } else {
            bind_ectx oc, ic;
            bind_ectx_init(&oc, s, sc, (*plan)->schema, "IN");
            bind_ectx_init(&ic, s, &inner.scope, inner.plan->schema, "IN");
            floe_expr *l = NULL, *r = NULL;
            st = bind_expr(&oc, testexpr, &l);
            if (!st) st = bind_expr(&ic, floe_pg_get(floe_pg_as(floe_pg_list_at(tl, 0), "ResTarget"), "val"), &r);
            if (!st) st = align_keys(&l, (*plan)->schema, &r, inner.plan->schema);
            if (!st) {
                /* The IN key first: a NOT IN's NULL rules apply to it. */
                memmove(lk + 1, lk, (size_t)nk * sizeof(floe_expr *));
                memmove(rk + 1, rk, (size_t)nk * sizeof(floe_expr *));
                lk[0] = l;
                rk[0] = r;
                l = r = NULL;
                nk++;
            }
            floe_expr_release(l);
            floe_expr_release(r);
            bind_ectx_clear(&oc);
            bind_ectx_clear(&ic);
        }
    }
    floe_expr *inner_pred = NULL, *pred = NULL;
    if (!st) st = bind_and_all(inner_conds, ni, &inner_pred);
    if (!st) st = bind_and_all(preds, np, &pred);
    floe_lplan *right = inner.plan;
    inner.plan = NULL;
    if (!st && inner_pred) {
        floe_lplan *f = NULL;
        st = bind_filter_node(right, inner_pred, &f);
        right = f;
    }
    if (!st) {
        st = semi_join(plan, right, anti, lk, rk, nk, pred, anti && is_in && nk == 1 && !pred);
        right = NULL;
    }
    floe_lplan_free(right);
    floe_expr_release(inner_pred);
    floe_expr_release(pred);
    if (lk) bind_expr_list_free(lk, nk);
    if (rk) bind_expr_list_free(rk, nk);
    if (inner_conds) bind_expr_list_free(inner_conds, ni);
    if (preds) bind_expr_list_free(preds, np);
    bind_result_free(&inner);
    return st;
}

/* A WHERE conjunct (a, b, ...) IN (SELECT x, y, ... uncorrelated): a semi
 * join on a = x AND b = y ... (a row with a NULL part matches nothing,
 * which WHERE treats as the NULL or FALSE it is). */
static floe_status row_in(floe_session *s, floe_lplan **plan, bind_scope *sc, const json_t *sl, const json_t *row,
                          int32_t loc) {
    json_t *args = floe_pg_get(row, "args");
    int32_t n = floe_pg_list_len(args);
    bind_result r;
    floe_status st = bind_select(s, floe_pg_get(sl, "subselect"), &r);
    if (st) return st; /* NOT_FOUND: perhaps correlated, the caller's value form */
    int32_t nr = floe_schema_num_fields(r.plan->schema);
    if (nr != n) {
        bind_result_free(&r);
        return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "subquery has too %s columns", nr > n ? "many" : "few");
    }
    floe_expr **lk = floe_calloc((size_t)n + 1, sizeof *lk), **rk = floe_calloc((size_t)n + 1, sizeof *rk);
    if (!lk || !rk) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    bind_ectx oc;
    bind_ectx_init(&oc, s, sc, (*plan)->schema, "IN");
    for (int32_t i = 0; i < n && !st; i++) {
        st = bind_expr(&oc, floe_pg_list_at(args, i), &lk[i]);
        if (!st) st = floe_expr_column(i, &rk[i]);
        if (!st) st = align_keys(&lk[i], (*plan)->schema, &rk[i], r.plan->schema);
    }
    bind_ectx_clear(&oc);
    if (!st) {
        floe_lplan *right = r.plan;
        r.plan = NULL;
        st = semi_join(plan, right, false, lk, rk, n, NULL, false);
    }
    for (int32_t i = 0; i < n; i++) {
        if (lk) floe_expr_release(lk[i]);
        if (rk) floe_expr_release(rk[i]);
    }
    floe_free(lk);
    floe_free(rk);
    bind_result_free(&r);
    return st;
}

floe_status bind_subquery_predicate(floe_session *s, floe_lplan **plan, bind_scope *sc, const json_t *node,
                                    bool *done) {
    *done = false;
    bool negate = false;
    json_t *be = floe_pg_as(node, "BoolExpr");
    const char *bop = floe_pg_get_str(be, "boolop");
    if (be && bop && !strcmp(bop, "NOT_EXPR") && floe_pg_list_len(floe_pg_get(be, "args")) == 1) {
        node = floe_pg_list_at(floe_pg_get(be, "args"), 0);
        negate = true;
    }
    json_t *sl = floe_pg_as(node, "SubLink");
    const char *type = floe_pg_get_str(sl, "subLinkType");
    if (!sl || !type) return NULL;
    bool exists = !strcmp(type, "EXISTS_SUBLINK");
    bool in = !strcmp(type, "ANY_SUBLINK");
    if (!exists && !in) return NULL;
    int32_t loc = floe_pg_location(node);
    json_t *names = floe_pg_get(sl, "operName");
    const char *op = floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
    /* x op ANY, and a row IN: the value form (bind_decorrelate.c) */
    json_t *row = floe_pg_as(floe_pg_get(sl, "testexpr"), "RowExpr");
    if (in && ((op && strcmp(op, "=") != 0) || (row && negate))) return NULL;
    if (in && row) {
        floe_status st = row_in(s, plan, sc, sl, row, loc);
        *done = !st || floe_status_code(st) != FLOE_ERR_NOT_FOUND;
        if (*done) return st;
        floe_status_free(st); /* reads outer columns: bind_row_in.c's value form */
        return NULL;
    }
    *done = true;
    const json_t *sub = bind_select_body(floe_pg_get(sl, "subselect"));
    json_t *testexpr = floe_pg_get(sl, "testexpr");
    bind_result r;
    floe_status st = bind_select(s, floe_pg_get(sl, "subselect"), &r);
    if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        /* Maybe it reads outer columns. */
        floe_status st2 = correlated_subquery(s, plan, sc, sub, testexpr, negate, in, loc);
        if (!st2) {
            floe_status_free(st);
            return NULL;
        }
        if (floe_status_code(st2) == FLOE_ERR_UNSUPPORTED) {
            /* not as a semi join: the caller binds the value form */
            floe_status_free(st2);
            floe_status_free(st);
            *done = false;
            return NULL;
        }
        floe_status_free(st);
        return st2;
    }
    if (st) return st;
    if (exists) {
        floe_lplan *right = r.plan;
        r.plan = NULL;
        bind_result_free(&r);
        return semi_join(plan, right, negate, NULL, NULL, 0, NULL, false);
    }
    if (floe_schema_num_fields(r.plan->schema) != 1) {
        bind_result_free(&r);
        return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "subquery has too many columns");
    }
    bind_ectx oc;
    bind_ectx_init(&oc, s, sc, (*plan)->schema, "IN");
    floe_expr *l = NULL, *rk = NULL;
    st = bind_expr(&oc, testexpr, &l);
    bind_ectx_clear(&oc);
    if (!st) st = floe_expr_column(0, &rk);
    if (!st) st = align_keys(&l, (*plan)->schema, &rk, r.plan->schema);
    if (!st) {
        floe_lplan *right = r.plan;
        r.plan = NULL;
        st = semi_join(plan, right, negate, &l, &rk, 1, NULL, negate);
    }
    floe_expr_release(l);
    floe_expr_release(rk);
    bind_result_free(&r);
    return st;
}
