/*
 * bind_query.c — SELECT statements into logical plans: FROM, WHERE (with
 * IN/EXISTS subqueries as semi/anti joins and WHERE conditions of comma
 * joins moved into the joins), GROUP BY / aggregates / HAVING, the select
 * list, DISTINCT, ORDER BY, LIMIT/OFFSET, set operations, VALUES and WITH.
 *
 * The shape built for a plain SELECT, bottom to top:
 *   FROM → [semi/anti joins] → FILTER → [AGGREGATE → FILTER(HAVING)] →
 *   PROJECT(select list ++ hidden ORDER BY keys) → [DISTINCT] → [SORT] →
 *   [LIMIT] → [PROJECT dropping the hidden keys]
 */
#include <stdio.h>
#include <string.h>

#include "base/str.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/pgnode.h"

/* WITH: names visible to the query being bound (innermost last). */
typedef struct bind_cte {
    const char *name;
    const json_t *query;
    struct bind_cte *prev;
} bind_cte;

typedef struct sel_item sel_item;
static floe_status rewrite_over_agg(bind_ectx *c, const floe_expr *e, floe_expr *const *groups, int32_t ng,
                                    const int32_t *extra_col, const sel_item *item, floe_expr **out);
static floe_status filter_node(floe_lplan *input, floe_expr *pred, floe_lplan **out);

static void result_free(bind_result *r) {
    floe_lplan_free(r->plan);
    r->plan = NULL;
    bind_scope_free(&r->scope);
}

static const json_t *select_body(const json_t *node) {
    json_t *b = floe_pg_as(node, "SelectStmt");
    if (b) return b;
    return json_is_object(node) && json_object_get(node, "op") ? node : NULL;
}

/* The one-row, no-column input of a SELECT without FROM. */
static floe_status one_row(floe_lplan **out) {
    floe_schema *empty = NULL;
    floe_batch *b = NULL;
    floe_plan *phys = NULL;
    FLOE_TRY(floe_type_struct(NULL, 0, &empty));
    floe_status st = floe_batch_new(empty, NULL, 0, 1, &b);
    if (!st) st = floe_plan_values(empty, &b, 1, 1, &phys);
    if (!st) st = floe_lplan_new(FLOE_L_PHYSICAL, empty, NULL, 0, out);
    if (!st) (*out)->physical = phys;
    else floe_plan_release(phys);
    floe_batch_release(b);
    floe_type_release(empty);
    return st;
}

static floe_status filter_node(floe_lplan *input, floe_expr *pred, floe_lplan **out) {
    floe_lplan *in[1] = {input};
    FLOE_TRY(floe_lplan_new(FLOE_L_FILTER, input->schema, in, 1, out));
    (*out)->predicate = floe_expr_retain(pred);
    return NULL;
}

/* ------------------------------------------------------------ VALUES */

static floe_status bind_values(floe_session *s, const json_t *body, bind_result *out) {
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
    FLOE_TRY(bind_from(s, floe_pg_get(sub, "fromClause"), &inner));
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
            st = filter_node(right, pred, &f);
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
                ac.extras[i].agg.arg = NULL;
                ac.extras[i].agg.name = NULL;
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
        if (!st) st = rewrite_over_agg(&ac, val, NULL, 0, extra_col, NULL, &v2);
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
    result_free(&inner);
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
        floe_status st2 = correlated_scalar(c, select_body(floe_pg_get(body, "subselect")), loc, out);
        if (!st2) {
            floe_status_free(st);
            return NULL;
        }
        if (floe_status_code(st2) != FLOE_ERR_UNSUPPORTED) {
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
        result_free(&r);
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "subquery must return only one column");
    }
    bind_extra x;
    memset(&x, 0, sizeof(x));
    x.one_row = yields_one_row(r.plan);
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
    FLOE_TRY(bind_from(s, floe_pg_get(sub, "fromClause"), &inner));
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
        st = filter_node(right, inner_pred, &f);
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
    result_free(&inner);
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
    if (in && op && strcmp(op, "=") != 0)
        return bind_error(s, loc, FLOE_ERR_UNSUPPORTED, "%s ANY (subquery) is not supported", op);
    *done = true;
    const json_t *sub = select_body(floe_pg_get(sl, "subselect"));
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
            floe_status_free(st2);
            return st;
        }
        floe_status_free(st);
        return st2;
    }
    if (st) return st;
    if (exists) {
        floe_lplan *right = r.plan;
        r.plan = NULL;
        result_free(&r);
        return semi_join(plan, right, negate, NULL, NULL, 0, NULL, false);
    }
    if (floe_schema_num_fields(r.plan->schema) != 1) {
        result_free(&r);
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
    result_free(&r);
    return st;
}

/* ------------------------------------------------ WHERE into the joins */

static floe_status add_key(floe_lplan *j, floe_expr *l, floe_expr *r) {
    floe_expr **nl = floe_realloc(j->left_keys, (size_t)(j->n_keys + 1) * sizeof(floe_expr *));
    if (!nl) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    j->left_keys = nl;
    floe_expr **nr = floe_realloc(j->right_keys, (size_t)(j->n_keys + 1) * sizeof(floe_expr *));
    if (!nr) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    j->right_keys = nr;
    j->left_keys[j->n_keys] = l;
    j->right_keys[j->n_keys] = r;
    j->n_keys++;
    return NULL;
}

/* Move a WHERE conjunct (over the FROM output, columns from `offset` on
 * for this slot) down through INNER joins: onto the join whose two sides
 * it reads (an equality of the sides becomes a key), or into a filter
 * over the one input it reads.  *pushed false: keep it above. */
static floe_status push_conjunct(floe_lplan **slot, int32_t offset, bool top, floe_expr *e, bool *pushed) {
    *pushed = false;
    floe_lplan *j = *slot;
    int32_t lo = INT32_MAX, hi = -1;
    bind_expr_column_range(e, &lo, &hi);
    if (hi < 0) return NULL; /* constant: stays above */
    if (j->kind == FLOE_L_JOIN && j->join_type == FLOE_JOIN_INNER) {
        int32_t nl = floe_schema_num_fields(j->inputs[0]->schema);
        if (hi < offset + nl) return push_conjunct(&j->inputs[0], offset, false, e, pushed);
        if (lo >= offset + nl) return push_conjunct(&j->inputs[1], offset + nl, false, e, pushed);
        floe_expr *local = NULL;
        FLOE_TRY(bind_expr_shift(e, -offset, &local));
        floe_status st = NULL;
        bool keyed = false;
        if (local->kind == FLOE_EXPR_CMP && local->op == FLOE_CMP_EQ) {
            int32_t lo0 = INT32_MAX, hi0 = -1, lo1 = INT32_MAX, hi1 = -1;
            bind_expr_column_range(local->args[0], &lo0, &hi0);
            bind_expr_column_range(local->args[1], &lo1, &hi1);
            floe_expr *lk = NULL, *rk = NULL;
            if (hi0 >= 0 && hi0 < nl && hi1 >= 0 && lo1 >= nl) lk = local->args[0], rk = local->args[1];
            else if (hi1 >= 0 && hi1 < nl && hi0 >= 0 && lo0 >= nl) lk = local->args[1], rk = local->args[0];
            if (lk) {
                floe_expr *r = NULL;
                st = bind_expr_shift(rk, -nl, &r);
                if (!st) st = add_key(j, floe_expr_retain(lk), r);
                keyed = true;
            }
        }
        if (!st && !keyed) {
            if (j->predicate) {
                floe_expr *both = NULL;
                st = floe_expr_and(j->predicate, local, &both);
                if (!st) {
                    floe_expr_release(j->predicate);
                    j->predicate = both;
                }
            } else {
                j->predicate = floe_expr_retain(local);
            }
        }
        floe_expr_release(local);
        if (!st) *pushed = true;
        return st;
    }
    if (top) return NULL;
    floe_expr *local = NULL;
    FLOE_TRY(bind_expr_shift(e, -offset, &local));
    floe_lplan *f = NULL;
    floe_status st = filter_node(j, local, &f);
    floe_expr_release(local);
    if (st) {
        *slot = NULL;
        return st;
    }
    *slot = f;
    *pushed = true;
    return NULL;
}

/* ------------------------------------------------------------- SELECT */

struct sel_item {
    const json_t *node;  /* expression node, or NULL for a star column   */
    int32_t column;      /* star expansion: the FROM column              */
    char *name;
    int32_t location;
};

static void items_free(sel_item *items, int32_t n) {
    for (int32_t i = 0; i < n; i++) floe_free(items[i].name);
    floe_free(items);
}

/* Expand the target list (stars into columns). */
static floe_status expand_targets(floe_session *s, const json_t *tl, const bind_scope *sc, sel_item **out,
                                  int32_t *n_out) {
    int32_t n = 0, cap = floe_pg_list_len(tl) + sc->n + 1;
    sel_item *items = floe_calloc((size_t)cap, sizeof(sel_item));
    if (!items) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    floe_status st = NULL;
    for (int32_t i = 0; i < floe_pg_list_len(tl) && !st; i++) {
        json_t *rt = floe_pg_as(floe_pg_list_at(tl, i), "ResTarget");
        json_t *val = floe_pg_get(rt, "val");
        int32_t loc = (int32_t)floe_pg_get_int(rt, "location", -1);
        json_t *cr = floe_pg_as(val, "ColumnRef");
        json_t *fields = floe_pg_get(cr, "fields");
        int32_t nf = floe_pg_list_len(fields);
        if (cr && nf > 0 && floe_pg_as(floe_pg_list_at(fields, nf - 1), "A_Star")) {
            const char *qual = nf >= 2 ? floe_pg_string(floe_pg_list_at(fields, nf - 2)) : NULL;
            int32_t matched = 0;
            for (int32_t k = 0; k < sc->n; k++) {
                if (sc->cols[k].hidden) continue;
                if (qual && (!sc->cols[k].qual || strcmp(sc->cols[k].qual, qual) != 0)) continue;
                if (n == cap) {
                    sel_item *ni = floe_realloc(items, (size_t)cap * 2 * sizeof(sel_item));
                    if (!ni) {
                        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
                        break;
                    }
                    memset(ni + cap, 0, (size_t)cap * sizeof(sel_item));
                    items = ni;
                    cap *= 2;
                }
                items[n].node = NULL;
                items[n].column = k;
                items[n].location = loc;
                items[n].name = floe_strdup(sc->cols[k].name);
                if (!items[n++].name) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
                matched++;
            }
            if (!st && qual && matched == 0) {
                bool known = false;
                for (int32_t k = 0; k < sc->n; k++) known |= sc->cols[k].qual && !strcmp(sc->cols[k].qual, qual);
                if (!known) st = bind_error(s, loc, FLOE_ERR_NOT_FOUND, "unknown relation '%s' in %s.*", qual, qual);
            }
            continue;
        }
        if (n == cap) {
            sel_item *ni = floe_realloc(items, (size_t)cap * 2 * sizeof(sel_item));
            if (!ni) {
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
                break;
            }
            memset(ni + cap, 0, (size_t)cap * sizeof(sel_item));
            items = ni;
            cap *= 2;
        }
        const char *name = floe_pg_get_str(rt, "name");
        items[n].node = val;
        items[n].column = -1;
        items[n].location = loc;
        items[n].name = floe_strdup(name ? name : bind_default_name(val));
        if (!items[n++].name) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    if (st) {
        items_free(items, n);
        return st;
    }
    *out = items;
    *n_out = n;
    return NULL;
}

static floe_status bind_item(bind_ectx *c, const sel_item *it, floe_expr **out) {
    if (!it->node) return floe_expr_column(it->column, out);
    return bind_expr(c, it->node, out);
}

/* Rewrite an expression bound over FROM ++ extras into one over the
 * aggregate's output: group keys → their column, aggregate extras →
 * theirs, subquery extras → theirs (after the aggregates). */
static floe_status rewrite_over_agg(bind_ectx *c, const floe_expr *e, floe_expr *const *groups, int32_t ng,
                                    const int32_t *extra_col, const sel_item *item, floe_expr **out) {
    for (int32_t i = 0; i < ng; i++)
        if (bind_expr_equal(e, groups[i])) return floe_expr_column(i, out);
    if (e->kind == FLOE_EXPR_COLUMN) {
        if (e->column >= c->n_from) return floe_expr_column(extra_col[e->column - c->n_from], out);
        const char *nm = e->column < c->sc->n ? c->sc->cols[e->column].name : "?";
        const char *q = e->column < c->sc->n ? c->sc->cols[e->column].qual : NULL;
        return bind_error(c->s, item ? item->location : -1, FLOE_ERR_INVALID_ARGUMENT,
                          "column \"%s%s%s\" must appear in the GROUP BY clause or be used in an aggregate function",
                          q ? q : "", q ? "." : "", nm);
    }
    if (e->n_args == 0) {
        *out = floe_expr_retain((floe_expr *)e);
        return NULL;
    }
    floe_expr **args = floe_calloc((size_t)e->n_args, sizeof(floe_expr *));
    if (!args) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    floe_status st = NULL;
    for (int32_t i = 0; i < e->n_args && !st; i++)
        st = rewrite_over_agg(c, e->args[i], groups, ng, extra_col, item, &args[i]);
    if (!st) st = bind_expr_with_args(e, args, e->n_args, out);
    bind_expr_list_free(args, e->n_args);
    return st;
}

static bool is_bare_name(const json_t *node, const char **name) {
    json_t *cr = floe_pg_as(node, "ColumnRef");
    json_t *f = floe_pg_get(cr, "fields");
    if (!cr || floe_pg_list_len(f) != 1) return false;
    *name = floe_pg_string(floe_pg_list_at(f, 0));
    return *name != NULL;
}

/* Resolve an ORDER BY / GROUP BY item to a select-list index: an ordinal
 * or (prefer_output) a bare name equal to one output name.  -1: neither. */
static floe_status output_ref(floe_session *s, const json_t *node, const sel_item *items, int32_t n, bool by_name,
                              int32_t *idx) {
    *idx = -1;
    int64_t ord;
    if (bind_const_int(s, node, &ord)) {
        if (ord < 1 || ord > n)
            return bind_error(s, floe_pg_location(node), FLOE_ERR_INVALID_ARGUMENT, "position %lld is not in select list",
                              (long long)ord);
        *idx = (int32_t)ord - 1;
        return NULL;
    }
    const char *name;
    if (by_name && is_bare_name(node, &name)) {
        for (int32_t i = 0; i < n; i++) {
            if (strcmp(items[i].name, name) != 0) continue;
            if (*idx >= 0 && !(items[i].node == items[*idx].node && items[i].column == items[*idx].column))
                return bind_error(s, floe_pg_location(node), FLOE_ERR_INVALID_ARGUMENT,
                                  "ORDER BY \"%s\" is ambiguous", name);
            *idx = i;
        }
    }
    return NULL;
}

/* A bare name that is not a FROM column but is an output alias. */
static int32_t alias_ref(const json_t *node, const bind_scope *sc, const sel_item *items, int32_t n) {
    const char *name;
    if (!is_bare_name(node, &name)) return -1;
    for (int32_t k = 0; k < sc->n; k++)
        if (!sc->cols[k].hidden && !strcmp(sc->cols[k].name, name)) return -1;
    for (int32_t i = 0; i < n; i++)
        if (items[i].node && !strcmp(items[i].name, name)) return i;
    return -1;
}

static floe_status sort_key_of(const json_t *sortby, floe_expr *e, floe_sort_key *k) {
    const char *dir = floe_pg_get_str(sortby, "sortby_dir");
    const char *nulls = floe_pg_get_str(sortby, "sortby_nulls");
    k->expr = e;
    k->descending = dir && !strcmp(dir, "SORTBY_DESC");
    if (dir && !strcmp(dir, "SORTBY_USING")) return floe_error(FLOE_ERR_UNSUPPORTED, "ORDER BY ... USING is not supported");
    /* PostgreSQL: NULLs are larger than any value. */
    k->nulls_first = k->descending;
    if (nulls && !strcmp(nulls, "SORTBY_NULLS_FIRST")) k->nulls_first = true;
    if (nulls && !strcmp(nulls, "SORTBY_NULLS_LAST")) k->nulls_first = false;
    return NULL;
}

static floe_status limit_value(floe_session *s, const json_t *node, const char *what, int64_t *v) {
    *v = -1;
    if (!node) return NULL;
    floe_pg_const k = floe_pg_const_of(node);
    if (k.kind == FLOE_PG_CONST_NULL) return NULL; /* LIMIT ALL / NULL */
    if (!bind_const_int(s, node, v)) {
        if (k.kind == FLOE_PG_CONST_FLOAT) {
            floe_status st = floe_parse_int64(floe_str_c(k.text), what, v);
            if (!st && *v >= 0) return NULL;
            floe_status_free(st);
        }
        return bind_error(s, floe_pg_location(node), FLOE_ERR_INVALID_ARGUMENT, "%s must be a non-negative integer constant", what);
    }
    if (*v < 0) return bind_error(s, floe_pg_location(node), FLOE_ERR_INVALID_ARGUMENT, "%s must not be negative", what);
    return NULL;
}

/* ORDER BY, LIMIT and OFFSET over a plan whose output is `n_out` visible
 * columns followed by hidden sort columns; drops the hidden columns. */
static floe_status finish_query(floe_session *s, const json_t *body, floe_lplan **plan, const floe_sort_key *keys,
                                int32_t n_keys, int32_t n_out, const bind_scope *outsc) {
    floe_status st = NULL;
    if (n_keys > 0) {
        floe_lplan *in[1] = {*plan};
        floe_lplan *sp = NULL;
        st = floe_lplan_new(FLOE_L_SORT, (*plan)->schema, in, 1, &sp);
        *plan = sp;
        if (st) return st;
        sp->sort_keys = floe_calloc((size_t)n_keys, sizeof(floe_sort_key));
        if (!sp->sort_keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < n_keys; i++) {
            sp->sort_keys[i] = keys[i];
            floe_expr_retain(keys[i].expr);
        }
        sp->n_sort_keys = n_keys;
    }
    int64_t fetch, offset;
    FLOE_TRY(limit_value(s, floe_pg_get(body, "limitCount"), "LIMIT", &fetch));
    FLOE_TRY(limit_value(s, floe_pg_get(body, "limitOffset"), "OFFSET", &offset));
    const char *lo = floe_pg_get_str(body, "limitOption");
    if (lo && !strcmp(lo, "LIMIT_OPTION_WITH_TIES"))
        return bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "FETCH ... WITH TIES is not supported");
    if (fetch >= 0 || offset > 0) {
        floe_lplan *in[1] = {*plan};
        floe_lplan *lp = NULL;
        st = floe_lplan_new(FLOE_L_LIMIT, (*plan)->schema, in, 1, &lp);
        *plan = lp;
        if (st) return st;
        lp->fetch = fetch;
        lp->offset = offset > 0 ? offset : 0;
    }
    int32_t total = floe_schema_num_fields((*plan)->schema);
    if (total > n_out) {
        floe_expr **ex = floe_calloc((size_t)n_out + 1, sizeof(floe_expr *));
        char **names = floe_calloc((size_t)n_out + 1, sizeof(char *));
        if (!ex || !names) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < n_out && !st; i++) {
            st = floe_expr_column(i, &ex[i]);
            names[i] = outsc->cols[i].name;
        }
        floe_lplan *pp = NULL;
        if (!st) {
            st = bind_make_project(*plan, ex, names, n_out, &pp);
            *plan = pp;
        }
        if (ex) bind_expr_list_free(ex, n_out);
        floe_free(names);
    }
    return st;
}

static floe_status bind_simple_select(floe_session *s, const json_t *body, bind_result *out) {
    memset(out, 0, sizeof(*out));
    bind_result from;
    floe_status st;
    if (floe_pg_list_len(floe_pg_get(body, "fromClause")) > 0) {
        FLOE_TRY(bind_from(s, floe_pg_get(body, "fromClause"), &from));
    } else {
        memset(&from, 0, sizeof(from));
        FLOE_TRY(one_row(&from.plan));
    }
    json_t *dc = floe_pg_get(body, "distinctClause");
    bool distinct = floe_pg_list_len(dc) > 0;
    if (distinct && floe_pg_node_kind(floe_pg_list_at(dc, 0))) {
        result_free(&from);
        return bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "DISTINCT ON is not supported");
    }
    floe_lplan *plan = from.plan;
    bind_scope sc = from.scope;
    sel_item *items = NULL;
    int32_t n_items = 0;
    floe_expr **conds = NULL, **sel = NULL, **groups = NULL, *having = NULL;
    floe_sort_key *keys = NULL;
    int32_t n_conds = 0, n_groups = 0, n_keys = 0, n_hidden = 0;
    floe_expr **hidden = NULL;
    int32_t *extra_col = NULL;
    bind_ectx c;
    bind_ectx_init(&c, s, &sc, plan->schema, "WHERE");

    /* ---- WHERE */
    json_t *where = floe_pg_get(body, "whereClause");
    json_t *wb = floe_pg_as(where, "BoolExpr");
    const char *wop = floe_pg_get_str(wb, "boolop");
    json_t *wl = wb && wop && !strcmp(wop, "AND_EXPR") ? floe_pg_get(wb, "args") : NULL;
    int32_t n_w = wl ? floe_pg_list_len(wl) : where ? 1 : 0;
    const json_t **subq = floe_calloc((size_t)n_w + 1, sizeof(json_t *));
    int32_t n_subq = 0;
    conds = floe_calloc((size_t)n_w + 1, sizeof(floe_expr *));
    st = (!subq || !conds) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    c.plan = &plan;
    for (int32_t i = 0; i < n_w && !st; i++) {
        json_t *node = wl ? floe_pg_list_at(wl, i) : where;
        json_t *inner = node;
        json_t *nb = floe_pg_as(node, "BoolExpr");
        if (nb && floe_pg_get_str(nb, "boolop") && !strcmp(floe_pg_get_str(nb, "boolop"), "NOT_EXPR"))
            inner = floe_pg_list_at(floe_pg_get(nb, "args"), 0);
        json_t *sl = floe_pg_as(inner, "SubLink");
        const char *slt = floe_pg_get_str(sl, "subLinkType");
        if (slt && (!strcmp(slt, "EXISTS_SUBLINK") || !strcmp(slt, "ANY_SUBLINK"))) {
            subq[n_subq++] = node;
            continue;
        }
        st = bind_predicate(&c, node, &conds[n_conds]);
        if (!st) n_conds++;
    }
    c.plan = NULL;
    floe_expr **rest = NULL;
    int32_t n_rest = 0;
    if (!st) {
        rest = floe_calloc((size_t)n_conds + 1, sizeof(floe_expr *));
        if (!rest) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    for (int32_t i = 0; i < n_conds && !st; i++) {
        bool pushed = false;
        st = push_conjunct(&plan, 0, true, conds[i], &pushed);
        if (!st && !pushed) rest[n_rest++] = floe_expr_retain(conds[i]);
    }
    if (!st && n_rest > 0) {
        floe_expr *pred = NULL;
        st = bind_and_all(rest, n_rest, &pred);
        floe_lplan *f = NULL;
        if (!st) {
            st = filter_node(plan, pred, &f);
            plan = f;
        }
        floe_expr_release(pred);
    }
    if (rest) bind_expr_list_free(rest, n_rest);
    for (int32_t i = 0; i < n_subq && !st; i++) {
        bool done = false;
        st = bind_subquery_predicate(s, &plan, &sc, subq[i], &done);
    }
    floe_free(subq);
    if (st) goto done;
    /* The schema may have grown (scalar subqueries in WHERE). */
    bind_ectx_clear(&c);
    bind_ectx_init(&c, s, &sc, plan->schema, "SELECT");

    /* ---- the select list */
    st = expand_targets(s, floe_pg_get(body, "targetList"), &sc, &items, &n_items);
    if (st) goto done;
    json_t *gl = floe_pg_get(body, "groupClause");
    json_t *hv = floe_pg_get(body, "havingClause");
    json_t *sl = floe_pg_get(body, "sortClause");
    bool agg = floe_pg_list_len(gl) > 0 || hv || bind_has_aggregate(floe_pg_get(body, "targetList")) ||
               bind_has_aggregate(sl);
    sel = floe_calloc((size_t)n_items + 1, sizeof(floe_expr *));
    int32_t n_sl = floe_pg_list_len(sl);
    keys = floe_calloc((size_t)n_sl + 1, sizeof(floe_sort_key));
    hidden = floe_calloc((size_t)n_sl + 1, sizeof(floe_expr *));
    if (!sel || !keys || !hidden) {
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        goto done;
    }
    if (agg) {
        int32_t ngl = floe_pg_list_len(gl);
        groups = floe_calloc((size_t)ngl + 1, sizeof(floe_expr *));
        if (!groups) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            goto done;
        }
        c.clause = "GROUP BY";
        for (int32_t i = 0; i < ngl && !st; i++) {
            json_t *g = floe_pg_list_at(gl, i);
            int32_t idx = -1;
            floe_expr *e = NULL;
            if (floe_pg_node_kind(g) && (!strcmp(floe_pg_node_kind(g), "GroupingSet")))
                st = bind_error(s, floe_pg_location(g), FLOE_ERR_UNSUPPORTED, "GROUPING SETS / ROLLUP / CUBE are not supported");
            if (!st) st = output_ref(s, g, items, n_items, false, &idx);
            if (!st && idx < 0) idx = alias_ref(g, &sc, items, n_items);
            if (!st) st = idx >= 0 ? bind_item(&c, &items[idx], &e) : bind_expr(&c, g, &e);
            if (st) break;
            int32_t lo = INT32_MAX, hi = -1;
            bind_expr_column_range(e, &lo, &hi);
            if (hi >= c.n_from) {
                floe_expr_release(e);
                st = bind_error(s, floe_pg_location(g), FLOE_ERR_INVALID_ARGUMENT,
                                "aggregate functions are not allowed in GROUP BY");
                break;
            }
            bool dup = false;
            for (int32_t k = 0; k < n_groups; k++) dup |= bind_expr_equal(groups[k], e);
            if (dup) floe_expr_release(e);
            else groups[n_groups++] = e;
        }
        c.agg_mode = true;
    }
    c.plan = agg ? NULL : &plan;
    c.clause = "SELECT";
    for (int32_t i = 0; i < n_items && !st; i++) st = bind_item(&c, &items[i], &sel[i]);
    if (!st && hv) {
        c.clause = "HAVING";
        st = bind_predicate(&c, hv, &having);
    }
    /* ORDER BY: an output column, or an expression over the input. */
    int32_t *key_out = floe_calloc((size_t)n_sl + 1, sizeof(int32_t));
    if (!key_out && !st) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    c.clause = "ORDER BY";
    for (int32_t i = 0; i < n_sl && !st; i++) {
        json_t *sb = floe_pg_as(floe_pg_list_at(sl, i), "SortBy");
        json_t *node = floe_pg_get(sb, "node");
        int32_t idx = -1;
        st = output_ref(s, node, items, n_items, true, &idx);
        if (st) break;
        if (idx < 0) {
            floe_expr *e = NULL;
            st = bind_expr(&c, node, &e);
            if (st) break;
            for (int32_t k = 0; k < n_items && idx < 0; k++)
                if (bind_expr_equal(sel[k], e)) idx = k;
            for (int32_t k = 0; k < n_hidden && idx < 0; k++)
                if (bind_expr_equal(hidden[k], e)) idx = n_items + k;
            if (idx < 0) {
                if (distinct) {
                    floe_expr_release(e);
                    st = bind_error(s, floe_pg_location(node), FLOE_ERR_INVALID_ARGUMENT,
                                    "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
                    break;
                }
                hidden[n_hidden] = e;
                idx = n_items + n_hidden++;
            } else {
                floe_expr_release(e);
            }
        }
        key_out[i] = idx;
        floe_expr *ke = NULL;
        st = floe_expr_column(idx, &ke);
        if (!st) st = bind_at(s, floe_pg_location(node), sort_key_of(sb, ke, &keys[n_keys]));
        if (!st) n_keys++;
        else floe_expr_release(ke);
    }
    floe_free(key_out);
    if (st) goto done;

    /* ---- aggregation */
    if (agg) {
        int32_t n_aggs = 0, n_sub = 0;
        for (int32_t i = 0; i < c.n_extras; i++) {
            if (c.extras[i].is_agg) n_aggs++;
            else n_sub++;
        }
        (void)n_sub;
        extra_col = floe_calloc((size_t)c.n_extras + 1, sizeof(int32_t));
        floe_field *f = floe_calloc((size_t)(n_groups + n_aggs) + 1, sizeof(floe_field));
        floe_schema *as = NULL;
        if (!extra_col || !f) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0, a = 0, q = 0; i < c.n_extras && !st; i++)
            extra_col[i] = c.extras[i].is_agg ? n_groups + a++ : n_groups + n_aggs + q++;
        char **gnames = floe_calloc((size_t)n_groups + 1, sizeof(char *));
        if (!gnames && !st) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < n_groups && !st; i++) {
            char nm[32];
            const char *name = nm;
            if (groups[i]->kind == FLOE_EXPR_COLUMN && groups[i]->column < sc.n) name = sc.cols[groups[i]->column].name;
            else snprintf(nm, sizeof nm, "group_%d", (int)i);
            gnames[i] = floe_strdup(name);
            floe_type *t = NULL;
            st = floe_expr_type(groups[i], plan->schema, &t);
            if (!st) st = floe_field_init(&f[i], name, t, true, -1);
            floe_type_release(t);
        }
        for (int32_t i = 0, a = 0; i < c.n_extras && !st; i++) {
            if (!c.extras[i].is_agg) continue;
            bool nullable = c.extras[i].agg.fn != FLOE_AGG_COUNT && c.extras[i].agg.fn != FLOE_AGG_COUNT_STAR;
            st = floe_field_init(&f[n_groups + a++], c.extras[i].agg.name, c.extras[i].type, nullable, -1);
        }
        if (!st) st = floe_type_struct(f, n_groups + n_aggs, &as);
        for (int32_t i = 0; f && i < n_groups + n_aggs; i++) floe_field_clear(&f[i]);
        floe_free(f);
        floe_lplan *ap = NULL;
        if (!st) {
            floe_lplan *in[1] = {plan};
            st = floe_lplan_new(FLOE_L_AGGREGATE, as, in, 1, &ap);
            plan = ap;
        }
        floe_type_release(as);
        if (!st) {
            ap->exprs = floe_calloc((size_t)n_groups + 1, sizeof(floe_expr *));
            ap->names = gnames;
            gnames = NULL;
            ap->aggs = floe_calloc((size_t)n_aggs + 1, sizeof(floe_agg_call));
            if (!ap->exprs || !ap->aggs) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            for (int32_t i = 0; i < n_groups && !st; i++) ap->exprs[i] = floe_expr_retain(groups[i]);
            if (!st) ap->n_exprs = n_groups;
            for (int32_t i = 0; i < c.n_extras && !st; i++) {
                if (!c.extras[i].is_agg) continue;
                ap->aggs[ap->n_aggs++] = c.extras[i].agg;
                c.extras[i].agg.arg = NULL;
                c.extras[i].agg.name = NULL;
            }
        }
        if (gnames) {
            for (int32_t i = 0; i < n_groups; i++) floe_free(gnames[i]);
            floe_free(gnames);
        }
        /* Scalar subqueries of the SELECT list / HAVING join here. */
        for (int32_t i = 0; i < c.n_extras && !st; i++) {
            if (c.extras[i].is_agg) continue;
            floe_lplan *j = NULL;
            floe_lplan *sq = c.extras[i].subquery;
            c.extras[i].subquery = NULL;
            st = bind_make_join(plan, sq, c.extras[i].one_row ? FLOE_JOIN_INNER : FLOE_JOIN_LEFT, NULL, &j);
            plan = j;
        }
        /* Everything above reads the aggregate's output. */
        for (int32_t i = 0; i < n_items && !st; i++) {
            floe_expr *e = NULL;
            st = rewrite_over_agg(&c, sel[i], groups, n_groups, extra_col, &items[i], &e);
            if (!st) {
                floe_expr_release(sel[i]);
                sel[i] = e;
            }
        }
        for (int32_t i = 0; i < n_hidden && !st; i++) {
            floe_expr *e = NULL;
            st = rewrite_over_agg(&c, hidden[i], groups, n_groups, extra_col, NULL, &e);
            if (!st) {
                floe_expr_release(hidden[i]);
                hidden[i] = e;
            }
        }
        if (!st && having) {
            floe_expr *e = NULL;
            st = rewrite_over_agg(&c, having, groups, n_groups, extra_col, NULL, &e);
            floe_lplan *fp = NULL;
            if (!st) {
                st = filter_node(plan, e, &fp);
                plan = fp;
            }
            floe_expr_release(e);
        }
        if (st) goto done;
    }

    /* ---- projection (select list ++ hidden sort keys) */
    {
        int32_t np = n_items + n_hidden;
        floe_expr **pe = floe_calloc((size_t)np + 1, sizeof(floe_expr *));
        char **pn = floe_calloc((size_t)np + 1, sizeof(char *));
        char hn[np > 0 ? np : 1][24];
        if (!pe || !pn) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < np && !st; i++) {
            pe[i] = i < n_items ? sel[i] : hidden[i - n_items];
            if (i < n_items) pn[i] = items[i].name;
            else {
                snprintf(hn[i], sizeof hn[i], "sort_%d", (int)(i - n_items));
                pn[i] = hn[i];
            }
        }
        floe_lplan *pp = NULL;
        if (!st) {
            st = bind_make_project(plan, pe, pn, np, &pp);
            plan = pp;
        }
        floe_free(pe);
        floe_free(pn);
        if (st) goto done;
    }
    for (int32_t i = 0; i < n_items && !st; i++) st = bind_scope_add(&out->scope, NULL, items[i].name, false);
    if (!st && distinct) {
        floe_lplan *in[1] = {plan};
        floe_lplan *dp = NULL;
        st = floe_lplan_new(FLOE_L_DISTINCT, plan->schema, in, 1, &dp);
        plan = dp;
    }
    if (!st) st = finish_query(s, body, &plan, keys, n_keys, n_items, &out->scope);

done:
    bind_ectx_clear(&c);
    if (conds) bind_expr_list_free(conds, n_conds);
    if (sel) bind_expr_list_free(sel, n_items);
    if (groups) bind_expr_list_free(groups, n_groups);
    if (hidden) bind_expr_list_free(hidden, n_hidden);
    for (int32_t i = 0; i < n_keys; i++) floe_expr_release(keys[i].expr);
    floe_free(keys);
    floe_free(extra_col);
    floe_expr_release(having);
    if (items) items_free(items, n_items);
    bind_scope_free(&sc);
    if (st) {
        floe_lplan_free(plan);
        bind_scope_free(&out->scope);
        return st;
    }
    out->plan = plan;
    return NULL;
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
static floe_type *set_common_type(floe_type *a, floe_type *b) {
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

/* Append a constant tag column to a set-operation input. */
static floe_status tag_side(bind_result *r, int32_t n, int32_t tag) {
    floe_expr **ex = floe_calloc((size_t)n + 2, sizeof(floe_expr *));
    char **names = floe_calloc((size_t)n + 2, sizeof(char *));
    floe_status st = (!ex || !names) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        st = floe_expr_column(i, &ex[i]);
        names[i] = floe_schema_field(r->plan->schema, i)->name;
    }
    if (!st) st = floe_expr_lit_int32(tag, &ex[n]);
    names[n] = (char *)"side";
    floe_lplan *p = NULL;
    if (!st) {
        st = bind_make_project(r->plan, ex, names, n + 1, &p);
        r->plan = p;
    }
    if (ex) bind_expr_list_free(ex, n + 1);
    floe_free(names);
    return st;
}

static floe_status set_op_by_grouping(bind_result *l, bind_result *r, int32_t n, bool intersect, floe_lplan **out) {
    *out = NULL;
    FLOE_TRY(tag_side(l, n, 1));
    FLOE_TRY(tag_side(r, n, 2));
    /* UNION ALL of the tagged sides (nullable where either is). */
    floe_field *f = floe_calloc((size_t)n + 3, sizeof(floe_field));
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    floe_status st = NULL;
    for (int32_t i = 0; i <= n && !st; i++) {
        const floe_field *a = floe_schema_field(l->plan->schema, i), *b = floe_schema_field(r->plan->schema, i);
        st = floe_field_init(&f[i], a->name, a->type, a->nullable || b->nullable, -1);
    }
    floe_schema *us = NULL;
    if (!st) st = floe_type_struct(f, n + 1, &us);
    for (int32_t i = 0; i <= n; i++) floe_field_clear(&f[i]);
    floe_lplan *u = NULL;
    if (!st) {
        floe_lplan *in[2] = {l->plan, r->plan};
        l->plan = r->plan = NULL;
        st = floe_lplan_new(FLOE_L_UNION, us, in, 2, &u);
    }
    floe_type_release(us);
    /* AGGREGATE keys = the columns, aggs = min(side), max(side). */
    floe_lplan *a = NULL;
    floe_schema *as = NULL;
    for (int32_t i = 0; i < n && !st; i++) st = floe_field_copy(&f[i], floe_schema_field(u->schema, i));
    if (!st) st = floe_field_init(&f[n], "lo", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    if (!st) st = floe_field_init(&f[n + 1], "hi", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    if (!st) st = floe_type_struct(f, n + 2, &as);
    for (int32_t i = 0; i < n + 2; i++) floe_field_clear(&f[i]);
    floe_free(f);
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
            a->aggs[k].fn = k == 0 ? FLOE_AGG_MIN : FLOE_AGG_MAX;
            st = floe_expr_column(n, &a->aggs[k].arg);
            a->aggs[k].name = floe_strdup(k == 0 ? "lo" : "hi");
            a->n_aggs = k + 1;
            if (!st && !a->aggs[k].name) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
    }
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
        st = filter_node(a, pred, &fp);
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

static floe_status bind_set_op(floe_session *s, const json_t *body, bind_result *out) {
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
        types[i] = set_common_type(a, b);
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
        result_free(&l);
        result_free(&r);
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
        if (all) st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "INTERSECT ALL / EXCEPT ALL are not supported");
        /* Rows of both sides tagged 1 (left) and 2 (right), grouped on
         * every column (so NULLs meet NULLs, as set operations want):
         * EXCEPT keeps groups seen only on the left, INTERSECT groups seen
         * on both. */
        if (!st) st = set_op_by_grouping(&l, &r, n, !strcmp(op, "SETOP_INTERSECT"), &p);
    } else {
        st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "set operation %s is not supported", op ? op : "?");
    }
    if (!st) st = bind_scope_from_schema(p->schema, NULL, &out->scope);
    result_free(&l);
    result_free(&r);
    if (st) {
        floe_lplan_free(p);
        bind_scope_free(&out->scope);
        return st;
    }
    out->plan = p;
    return NULL;
}

/* ORDER BY / LIMIT of a set operation or VALUES: over the output columns. */
static floe_status order_over_output(floe_session *s, const json_t *body, bind_result *r) {
    json_t *sl = floe_pg_get(body, "sortClause");
    int32_t n_sl = floe_pg_list_len(sl), n_out = r->scope.n;
    floe_sort_key *keys = floe_calloc((size_t)n_sl + 1, sizeof(floe_sort_key));
    if (!keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    sel_item *items = floe_calloc((size_t)n_out + 1, sizeof(sel_item));
    floe_status st = items ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n_out && !st; i++) {
        items[i].column = i;
        items[i].name = floe_strdup(r->scope.cols[i].name);
        if (!items[i].name) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    int32_t n_keys = 0;
    bind_ectx c;
    bind_ectx_init(&c, s, &r->scope, r->plan->schema, "ORDER BY");
    for (int32_t i = 0; i < n_sl && !st; i++) {
        json_t *sb = floe_pg_as(floe_pg_list_at(sl, i), "SortBy");
        json_t *node = floe_pg_get(sb, "node");
        int32_t idx = -1;
        floe_expr *e = NULL;
        st = output_ref(s, node, items, n_out, true, &idx);
        if (!st) st = idx >= 0 ? floe_expr_column(idx, &e) : bind_expr(&c, node, &e);
        if (!st && (e->kind != FLOE_EXPR_COLUMN))
            st = bind_error(s, floe_pg_location(node), FLOE_ERR_UNSUPPORTED,
                            "ORDER BY of a set operation must name an output column");
        if (!st) st = sort_key_of(sb, e, &keys[n_keys]);
        if (!st) n_keys++;
        else floe_expr_release(e);
    }
    bind_ectx_clear(&c);
    if (items) items_free(items, n_out);
    if (!st) st = finish_query(s, body, &r->plan, keys, n_keys, n_out, &r->scope);
    for (int32_t i = 0; i < n_keys; i++) floe_expr_release(keys[i].expr);
    floe_free(keys);
    return st;
}

/* ----------------------------------------------------------------- WITH */

floe_status bind_select(floe_session *s, const json_t *query, bind_result *out) {
    memset(out, 0, sizeof(*out));
    const json_t *body = select_body(query);
    if (!body) {
        const char *k = floe_pg_node_kind(query);
        return bind_error(s, floe_pg_location(query), FLOE_ERR_UNSUPPORTED, "%s is not a query", k ? k : "this");
    }
    json_t *with = floe_pg_get(body, "withClause");
    bind_cte *saved = s->ctes;
    bind_cte *frames = NULL;
    floe_status st = NULL;
    if (with) {
        if (floe_pg_get_bool(with, "recursive"))
            return bind_error(s, (int32_t)floe_pg_get_int(with, "location", -1), FLOE_ERR_UNSUPPORTED,
                              "WITH RECURSIVE is not supported");
        json_t *ctes = floe_pg_get(with, "ctes");
        int32_t n = floe_pg_list_len(ctes);
        frames = floe_calloc((size_t)n + 1, sizeof(bind_cte));
        if (!frames) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < n; i++) {
            json_t *cte = floe_pg_as(floe_pg_list_at(ctes, i), "CommonTableExpr");
            frames[i].name = floe_pg_get_str(cte, "ctename");
            frames[i].query = floe_pg_get(cte, "ctequery");
            frames[i].prev = s->ctes;
            s->ctes = &frames[i];
        }
    }
    const char *op = floe_pg_get_str(body, "op");
    if (floe_pg_get(body, "valuesLists")) {
        st = bind_values(s, body, out);
        if (!st) st = order_over_output(s, body, out);
    } else if (op && strcmp(op, "SETOP_NONE") != 0) {
        st = bind_set_op(s, body, out);
        if (!st) st = order_over_output(s, body, out);
    } else {
        if (floe_pg_get(body, "intoClause"))
            st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "SELECT INTO is not supported");
        else if (floe_pg_get(body, "lockingClause"))
            st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "FOR UPDATE / FOR SHARE is not supported");
        else if (floe_pg_get(body, "windowClause"))
            st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "window functions are not supported");
        else
            st = bind_simple_select(s, body, out);
    }
    s->ctes = saved;
    floe_free(frames);
    if (st) result_free(out);
    return st;
}

floe_status bind_cte_lookup(floe_session *s, const char *name, bind_result *out, bool *found) {
    *found = false;
    for (bind_cte *c = s->ctes; c; c = c->prev) {
        if (!c->name || strcmp(c->name, name) != 0) continue;
        *found = true;
        /* The CTE's own body sees only the CTEs declared before it. */
        bind_cte *saved = s->ctes;
        s->ctes = c->prev;
        floe_status st = bind_select(s, c->query, out);
        s->ctes = saved;
        return st;
    }
    return NULL;
}

floe_status floe_sql_bind_query(floe_session *s, const json_t *query, floe_lplan **out) {
    *out = NULL;
    bind_result r;
    void *saved = s->ctes;
    s->ctes = NULL;
    floe_status st = bind_select(s, query, &r);
    s->ctes = saved;
    if (st) return st;
    bind_scope_free(&r.scope);
    *out = r.plan;
    return NULL;
}
