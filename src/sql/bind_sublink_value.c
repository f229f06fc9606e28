/*
 * bind_sublink_value.c — [NOT] EXISTS, x op ANY / ALL and IN (subquery) as
 * three-valued values wherever an expression may stand (the select list,
 * under OR / NOT / CASE).  Correlated ones are unnested by
 * bind_decorrelate.c; uncorrelated ones join the subquery's statistics
 * (count(*), count(v), LIMIT 1 for EXISTS) and, for IN, LEFT join its
 * distinct values on x = v: x IN S is TRUE on a match, FALSE when S is
 * empty, NULL when x is NULL or S holds a NULL, else FALSE.
 */
#include <string.h>

#include "floe/memory.h"
#include "sql/bind_decorrelate.h"
#include "sql/expr_util.h"
#include "sql/pgnode.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding a subquery: out of memory"); }

static floe_status sublink_any(bind_ectx *c, const json_t *body, bool exists, floe_cmp_op cmp, int32_t loc,
                               floe_expr **out);
static floe_status ordered_any(bind_ectx *c, const json_t *body, floe_lplan *sub, floe_cmp_op cmp, floe_expr **out);

/* The comparison operators of x op ANY / ALL (subquery). */
static bool cmp_of(const char *op, floe_cmp_op *out) {
    static const char *const names[] = {"=", "<>", "<", "<=", ">", ">="};
    static const floe_cmp_op ops[] = {FLOE_CMP_EQ, FLOE_CMP_NE, FLOE_CMP_LT, FLOE_CMP_LE, FLOE_CMP_GT, FLOE_CMP_GE};
    if (!op) op = "=";
    if (!strcmp(op, "!=")) op = "<>";
    for (int i = 0; i < 6; i++)
        if (!strcmp(op, names[i])) {
            *out = ops[i];
            return true;
        }
    return false;
}

/* NOT (x op v) as one comparison: x <negated op> v. */
static floe_cmp_op cmp_negated(floe_cmp_op op) {
    switch (op) {
    case FLOE_CMP_EQ: return FLOE_CMP_NE;
    case FLOE_CMP_NE: return FLOE_CMP_EQ;
    case FLOE_CMP_LT: return FLOE_CMP_GE;
    case FLOE_CMP_LE: return FLOE_CMP_GT;
    case FLOE_CMP_GT: return FLOE_CMP_LE;
    default: return FLOE_CMP_LT;
    }
}

floe_status bind_sublink_value(bind_ectx *c, const json_t *sublink, floe_expr **out) {
    *out = NULL;
    json_t *body = floe_pg_node_body(sublink);
    int32_t loc = floe_pg_location(sublink);
    const char *type = floe_pg_get_str(body, "subLinkType");
    bool exists = type && !strcmp(type, "EXISTS_SUBLINK");
    bool in = type && !strcmp(type, "ANY_SUBLINK");
    bool all = type && !strcmp(type, "ALL_SUBLINK");
    if (!exists && !in && !all)
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "%s subqueries are not supported", type ? type : "these");
    json_t *names = floe_pg_get(body, "operName");
    const char *op = floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
    floe_cmp_op cmp = FLOE_CMP_EQ;
    if (!exists && !cmp_of(op, &cmp))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "%s %s (subquery) is not supported", op,
                          all ? "ALL" : "ANY");
    if (!c->plan || c->agg_mode || c->outer || c->in_agg_arg)
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "IN / EXISTS / ANY / ALL subqueries are not supported in %s",
                          c->outer ? "a correlated condition" : c->in_agg_arg ? "an aggregate's argument"
                          : c->agg_mode ? "an aggregating query's select list or HAVING"
                                        : (c->clause ? c->clause : "this place"));
    json_t *row = floe_pg_as(floe_pg_get(body, "testexpr"), "RowExpr");
    if (row && in && cmp == FLOE_CMP_EQ) return bind_row_in_value(c, body, row, loc, out);
    if (row)
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "a row compared with a subquery's rows is not supported here");
    /* x op ALL (S) = NOT (x <negated op> ANY (S)), in three values too. */
    if (!all) return sublink_any(c, body, exists, cmp, loc, out);
    floe_expr *any = NULL;
    FLOE_TRY(sublink_any(c, body, false, cmp_negated(cmp), loc, &any));
    floe_status st = floe_expr_not(any, out);
    floe_expr_release(any);
    return st;
}

/* EXISTS, or x cmp ANY (subquery): IN for cmp =. */
static floe_status sublink_any(bind_ectx *c, const json_t *body, bool exists, floe_cmp_op cmp, int32_t loc,
                               floe_expr **out) {
    json_t *subselect = floe_pg_get(body, "subselect");
    bind_result r;
    floe_status st = bind_select(c->s, subselect, &r);
    if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        floe_status st2 = bind_decorrelated_cmp(c, bind_select_body(subselect), exists ? BIND_SUBLINK_EXISTS : BIND_SUBLINK_IN,
                                       floe_pg_get(body, "testexpr"), cmp, loc, out);
        if (st2 && floe_status_code(st2) == FLOE_ERR_NOT_FOUND) {
            floe_status_free(st2);
            return st;
        }
        floe_status_free(st);
        return st2;
    }
    if (st) return st;
    bind_scope_free(&r.scope);
    floe_agg_call calls[2];
    memset(calls, 0, sizeof(calls));
    floe_lplan *g = NULL;
    int32_t first = -1;
    if (exists) {
        /* count(*) of at most one row, cross joined (one row). */
        floe_lplan *lim = NULL;
        st = floe_lplan_new(FLOE_L_LIMIT, r.plan->schema, (floe_lplan *[]){r.plan}, 1, &lim);
        if (!st) lim->fetch = 1;
        if (!st) st = bind_dc_count_star(&calls[0], "n");
        if (!st) st = bind_dc_aggregate(lim, 0, calls, 1, &g);
        else floe_lplan_free(lim);
        if (!st) st = bind_dc_attach(c, g, FLOE_JOIN_INNER, NULL, NULL, 0, false, &first);
        floe_expr *n = NULL, *zero = NULL;
        if (!st) st = floe_expr_column(first, &n);
        if (!st) st = floe_expr_lit_int64(0, &zero);
        if (!st) st = floe_expr_cmp(FLOE_CMP_GT, n, zero, out);
        floe_expr_release(n);
        floe_expr_release(zero);
        return st;
    }
    if (floe_schema_num_fields(r.plan->schema) != 1) {
        floe_lplan_free(r.plan);
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "subquery has too many columns");
    }
    if (cmp != FLOE_CMP_EQ) return ordered_any(c, body, r.plan, cmp, out);
    floe_expr *x = NULL, *y = NULL, *ycol = NULL;
    st = bind_expr(c, floe_pg_get(body, "testexpr"), &x);
    if (st) {
        floe_lplan_free(r.plan);
        return st;
    }
    /* The statistics: count(*), count(v). */
    if (!st) st = bind_dc_count_star(&calls[0], "n");
    if (!st) {
        calls[1].fn = FLOE_AGG_COUNT;
        st = floe_expr_column(0, &calls[1].arg);
        calls[1].name = floe_strdup("nn");
    }
    if (!st) st = bind_dc_aggregate(r.plan, 0, calls, 2, &g);
    else floe_lplan_free(r.plan);
    if (!st) st = bind_dc_attach(c, g, FLOE_JOIN_INNER, NULL, NULL, 0, false, &first);
    /* The distinct values, LEFT joined on x = v. */
    bind_result r2;
    memset(&r2, 0, sizeof(r2));
    floe_lplan *dv = NULL;
    int32_t second = -1;
    if (!st) st = bind_select(c->s, subselect, &r2);
    if (!st) {
        bind_scope_free(&r2.scope);
        st = floe_lplan_new(FLOE_L_DISTINCT, r2.plan->schema, (floe_lplan *[]){r2.plan}, 1, &dv);
        r2.plan = NULL;
    }
    if (!st) st = floe_expr_column(0, &y);
    if (!st) st = bind_align_keys(&x, (*c->plan)->schema, &y, dv->schema);
    if (!st) {
        st = bind_dc_attach(c, dv, FLOE_JOIN_LEFT, &x, &y, 1, false, &second);
        dv = NULL;
    }
    floe_lplan_free(dv);
    /* CASE WHEN matched THEN TRUE WHEN n = 0 THEN FALSE
     *      WHEN x IS NULL OR nn < n THEN NULL ELSE FALSE END */
    floe_expr *w[3] = {0}, *t[3] = {0}, *els = NULL, *n = NULL, *nn = NULL, *zero = NULL, *xn = NULL, *lt = NULL;
    if (!st) st = floe_expr_column(second, &ycol);
    if (!st) st = floe_expr_is_null(ycol, true, &w[0]);
    if (!st) st = floe_expr_column(first, &n);
    if (!st) st = floe_expr_column(first + 1, &nn);
    if (!st) st = floe_expr_lit_int64(0, &zero);
    if (!st) st = floe_expr_cmp(FLOE_CMP_EQ, n, zero, &w[1]);
    if (!st) st = floe_expr_is_null(x, false, &xn);
    if (!st) st = floe_expr_cmp(FLOE_CMP_LT, nn, n, &lt);
    if (!st) st = floe_expr_or(xn, lt, &w[2]);
    if (!st) st = floe_expr_lit_bool(true, &t[0]);
    if (!st) st = floe_expr_lit_bool(false, &t[1]);
    if (!st) st = floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_BOOL), &t[2]);
    if (!st) st = floe_expr_lit_bool(false, &els);
    if (!st) st = floe_expr_case(w, t, 3, els, out);
    for (int32_t i = 0; i < 3; i++) {
        floe_expr_release(w[i]);
        floe_expr_release(t[i]);
    }
    floe_expr_release(els);
    floe_expr_release(n);
    floe_expr_release(nn);
    floe_expr_release(zero);
    floe_expr_release(xn);
    floe_expr_release(lt);
    floe_expr_release(x);
    floe_expr_release(y);
    floe_expr_release(ycol);
    for (int32_t i = 0; i < 2; i++) {
        floe_expr_release(calls[i].arg);
        floe_free(calls[i].name);
    }
    return st;
}

/* Uncorrelated x cmp ANY (S) for cmp other than =: S's statistics
 * count(*) n, count(v) nn, min(v), max(v) cross joined (one row); for <
 * and <= some v qualifies iff x cmp max(v) (for > and >= min(v); for <>
 * x differs from min or max).  CASE WHEN n = 0 THEN FALSE WHEN that THEN
 * TRUE WHEN x IS NULL OR nn < n THEN NULL ELSE FALSE END.  Consumes sub. */
static floe_status ordered_any(bind_ectx *c, const json_t *body, floe_lplan *sub, floe_cmp_op cmp, floe_expr **out) {
    floe_agg_call calls[4];
    memset(calls, 0, sizeof(calls));
    floe_status st = bind_dc_count_star(&calls[0], "n");
    static const floe_agg_fn fns[3] = {FLOE_AGG_COUNT, FLOE_AGG_MIN, FLOE_AGG_MAX};
    static const char *const nms[3] = {"nn", "lo", "hi"};
    for (int i = 0; i < 3 && !st; i++) {
        calls[1 + i].fn = fns[i];
        st = floe_expr_column(0, &calls[1 + i].arg);
        if (!st && !(calls[1 + i].name = floe_strdup(nms[i]))) st = oom();
    }
    floe_lplan *g = NULL;
    if (!st) st = bind_dc_aggregate(sub, 0, calls, 4, &g);
    else floe_lplan_free(sub);
    int32_t first = -1;
    if (!st) st = bind_dc_attach(c, g, FLOE_JOIN_INNER, NULL, NULL, 0, false, &first);
    floe_expr *x = NULL, *n = NULL, *nn = NULL, *lo = NULL, *hi = NULL, *x2 = NULL, *zero = NULL;
    floe_expr *w[3] = {0}, *t[3] = {0}, *els = NULL, *a = NULL, *b = NULL, *xn = NULL, *lt = NULL;
    if (!st) st = bind_expr(c, floe_pg_get(body, "testexpr"), &x);
    if (!st) st = floe_expr_column(first, &n);
    if (!st) st = floe_expr_column(first + 1, &nn);
    if (!st) st = floe_expr_column(first + 2, &lo);
    if (!st) st = floe_expr_column(first + 3, &hi);
    if (!st) x2 = floe_expr_retain(x);
    if (!st) st = bind_align_keys(&x, (*c->plan)->schema, &lo, (*c->plan)->schema);
    if (!st) st = bind_align_keys(&x2, (*c->plan)->schema, &hi, (*c->plan)->schema);
    if (!st && cmp == FLOE_CMP_NE) {
        st = floe_expr_cmp(FLOE_CMP_NE, x, lo, &a);
        if (!st) st = floe_expr_cmp(FLOE_CMP_NE, x2, hi, &b);
        if (!st) st = floe_expr_or(a, b, &w[1]);
    } else if (!st) {
        bool upper = cmp == FLOE_CMP_LT || cmp == FLOE_CMP_LE;
        st = floe_expr_cmp(cmp, upper ? x2 : x, upper ? hi : lo, &w[1]);
    }
    if (!st) st = floe_expr_lit_int64(0, &zero);
    if (!st) st = floe_expr_cmp(FLOE_CMP_EQ, n, zero, &w[0]);
    if (!st) st = floe_expr_is_null(x, false, &xn);
    if (!st) st = floe_expr_cmp(FLOE_CMP_LT, nn, n, &lt);
    if (!st) st = floe_expr_or(xn, lt, &w[2]);
    if (!st) st = floe_expr_lit_bool(false, &t[0]);
    if (!st) st = floe_expr_lit_bool(true, &t[1]);
    if (!st) st = floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_BOOL), &t[2]);
    if (!st) st = floe_expr_lit_bool(false, &els);
    if (!st) st = floe_expr_case(w, t, 3, els, out);
    for (int i = 0; i < 3; i++) {
        floe_expr_release(w[i]);
        floe_expr_release(t[i]);
    }
    for (int i = 0; i < 4; i++) {
        floe_expr_release(calls[i].arg);
        floe_free(calls[i].name);
    }
    floe_expr *all[] = {x, n, nn, lo, hi, x2, zero, els, a, b, xn, lt};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) floe_expr_release(all[i]);
    return st;
}
