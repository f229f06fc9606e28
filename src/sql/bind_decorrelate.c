/*
 * bind_decorrelate.c — subqueries as values: correlated subqueries of any
 * shape of correlation, and IN / EXISTS wherever an expression may stand
 * (the select list, under OR / NOT / CASE), unnested into joins rather
 * than run per row (Neumann & Kemper, "Unnesting Arbitrary Queries"; DuckDB
 * does the same).
 *
 * A correlated subquery SELECT v FROM F WHERE w, where w reads the outer
 * query's columns C in any way (x.c > t.c AND x.d < t.d, OR-ed, inside
 * expressions), is evaluated once per distinct value of C:
 *
 *   D = DISTINCT C of the outer query's FROM (bound afresh: a superset of
 *       the outer rows' values is enough, and the outer plan itself has
 *       one owner);
 *   G = aggregate of (D JOIN F ON w, C read from D) grouped by D's
 *       columns: count(*) always (it tells an empty group from a missing
 *       one), then what the use needs —
 *         scalar aggregate subquery: its aggregates;
 *         scalar subquery of rows: min(v) (with count(*) > 1 an error);
 *         EXISTS: nothing more;
 *         x IN (...): bool_or(x = v) and count(x = v), x being one more
 *         column of D — TRUE on a match, NULL when no match but a NULL
 *         compared (count(x = v) < count(*)), else FALSE, as SQL wants;
 *   the outer plan LEFT JOIN G ON C IS NOT DISTINCT FROM D (a hash join
 *   with NULL keys matching), and the value is CASE WHEN no group THEN the
 *   value over an empty input (count 0, other aggregates NULL, EXISTS and
 *   IN false) ELSE the value over G END.
 *
 * The equality-only correlated scalar aggregate (TPC-H q02, q17, q20) keeps
 * bind_subquery.c's cheaper form (no D), and AND-ed WHERE conditions keep
 * their semi and anti joins; this file takes the rest.  IN / EXISTS / ANY /
 * ALL as values arrive through bind_sublink_value.c.  A WHERE conjunct
 * holding a subquery that reads outer columns (nested correlation, or a
 * column two levels out) is bound over D JOIN F as a query level of its
 * own (bind_nested_corr.c), D then being every outer FROM column; so is
 * the value of a scalar subquery of rows when it holds a subquery.  IN /
 * ANY / ALL over aggregates without GROUP BY (one row per outer row)
 * compare with the scalar subquery; EXISTS over them is TRUE.
 *
 * LATERAL subqueries in FROM (bind_lateral) take the same D JOIN subquery
 * and, instead of aggregating, project the select list (which may read
 * the outer row too) and join back on the D columns (INNER, or LEFT with
 * its ON condition); one of aggregates (no GROUP BY) is one correlated
 * scalar subquery per column, projected after the left columns.
 * generate_series over columns to its left becomes a
 * SeriesApply node (bind_lateral_series).
 *
 * ORDER BY ... LIMIT / OFFSET (top-N per outer row) keeps, of D JOIN
 * subquery, the rows a window row_number() PARTITION BY D ORDER BY the
 * subquery's keys numbers OFFSET+1 .. OFFSET+LIMIT (top_n_per_value);
 * DISTINCT is a DISTINCT over the select list ++ D.  GROUP BY / HAVING
 * bodies group D JOIN subquery by D's columns and the subquery's keys
 * (grouped_rows), their rows then taken as a plain subquery's.  x op ANY
 * is IN's form with op for =; x op ALL is NOT (x <negated op> ANY).
 * Subqueries in an aggregating query's select list / HAVING / ORDER BY
 * arrive here over the grouped rows (bind_split_agg.c).
 *
 * A UNION under correlated IN / EXISTS is an OR over its branches
 * (bind_union_sublink.c); a row IN is two EXISTS (bind_row_in.c).
 *
 * Not done: INTERSECT / EXCEPT, and any set operation under a scalar
 * subquery, when correlated; correlated LATERAL aggregates under LEFT JOIN ... ON
 * other than true; LIMIT with GROUP BY; grouped subqueries reading outer
 * columns outside WHERE; subqueries reading outer columns in the select
 * list of a correlated subquery of aggregates, LATERAL or IN, or in a
 * derived table of its FROM.  Each gives a
 * "not supported" error.
 */
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_decorrelate.h"
#include "sql/bind_query_internal.h"
#include "sql/expr_util.h"
#include "sql/pgnode.h"

static int32_t ncols(const floe_lplan *p) { return floe_schema_num_fields(p->schema); }

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding a subquery: out of memory"); }

/* Join `right` onto *c->plan (LEFT with keys lk[i] = rk[i], rk NULL: its
 * columns 0..nk-1, NULL keys matching when null_safe; INNER without keys
 * for a one-row right side).  Its columns become hidden columns of the
 * context's scope; *first is the first of them. */
floe_status bind_dc_attach(bind_ectx *c, floe_lplan *right, floe_join_type type, floe_expr *const *lk,
                          floe_expr *const *rk, int32_t nk, bool null_safe, int32_t *first) {
    floe_lplan *left = *c->plan;
    int32_t nl = ncols(left), nr = ncols(right);
    floe_schema *schema = NULL;
    floe_status st = floe_join_output_schema(left->schema, right->schema, type, &schema);
    if (st) {
        floe_lplan_free(right);
        return st;
    }
    floe_lplan *j = NULL;
    st = floe_lplan_new(FLOE_L_JOIN, schema, (floe_lplan *[]){left, right}, 2, &j);
    floe_type_release(schema);
    *c->plan = j; /* NULL on failure: both inputs were freed */
    if (st) return st;
    j->join_type = type;
    j->null_equals_null = null_safe;
    if (nk > 0) {
        j->left_keys = floe_calloc((size_t)nk, sizeof(floe_expr *));
        j->right_keys = floe_calloc((size_t)nk, sizeof(floe_expr *));
        if (!j->left_keys || !j->right_keys) return oom();
        for (int32_t i = 0; i < nk && !st; i++) {
            j->left_keys[i] = floe_expr_retain(lk[i]);
            if (rk) j->right_keys[i] = floe_expr_retain(rk[i]);
            else st = floe_expr_column(i, &j->right_keys[i]);
            if (!st) j->n_keys = i + 1;
            else floe_expr_release(j->left_keys[i]);
        }
        if (st) return st;
    }
    for (int32_t i = 0; i < nr; i++) FLOE_TRY(bind_scope_add(c->sc, NULL, "?subquery?", true));
    floe_type_release(c->schema);
    c->schema = floe_type_retain(j->schema);
    c->n_from = ncols(j);
    *first = nl;
    return NULL;
}

/* An AGGREGATE of `input` grouped by its first ng columns with the calls
 * (their parts move in). */
floe_status bind_dc_aggregate(floe_lplan *input, int32_t ng, floe_agg_call *calls, int32_t n_calls,
                             floe_lplan **out) {
    *out = NULL;
    floe_field *f = floe_calloc((size_t)(ng + n_calls) + 1, sizeof(floe_field));
    floe_schema *as = NULL;
    floe_status st = f ? NULL : oom();
    for (int32_t i = 0; i < ng && !st; i++) {
        const floe_field *in = floe_schema_field(input->schema, i);
        st = floe_field_init(&f[i], in->name, in->type, true, -1);
    }
    for (int32_t i = 0; i < n_calls && !st; i++) {
        floe_type *t = NULL;
        st = floe_agg_result_type(&calls[i], input->schema, &t);
        bool nullable = calls[i].fn != FLOE_AGG_COUNT && calls[i].fn != FLOE_AGG_COUNT_STAR;
        if (!st) st = floe_field_init(&f[ng + i], calls[i].name, t, nullable, -1);
        floe_type_release(t);
    }
    if (!st) st = floe_type_struct(f, ng + n_calls, &as);
    for (int32_t i = 0; f && i < ng + n_calls; i++) floe_field_clear(&f[i]);
    floe_free(f);
    floe_lplan *ap = NULL;
    if (!st) st = floe_lplan_new(FLOE_L_AGGREGATE, as, (floe_lplan *[]){input}, 1, &ap);
    else floe_lplan_free(input);
    floe_type_release(as);
    if (st) return st;
    ap->exprs = floe_calloc((size_t)ng + 1, sizeof(floe_expr *));
    ap->names = floe_calloc((size_t)ng + 1, sizeof(char *));
    ap->aggs = floe_calloc((size_t)n_calls + 1, sizeof(floe_agg_call));
    if (!ap->exprs || !ap->names || !ap->aggs) st = oom();
    for (int32_t i = 0; i < ng && !st; i++) {
        st = floe_expr_column(i, &ap->exprs[i]);
        ap->names[i] = floe_strdup(floe_schema_field(ap->schema, i)->name);
        if (!st) ap->n_exprs = i + 1;
    }
    for (int32_t i = 0; i < n_calls && !st; i++) {
        ap->aggs[i] = calls[i];
        memset(&calls[i], 0, sizeof(calls[i]));
        ap->n_aggs = i + 1;
    }
    if (st) {
        floe_lplan_free(ap);
        return st;
    }
    *out = ap;
    return NULL;
}

floe_status bind_dc_count_star(floe_agg_call *call, const char *name) {
    memset(call, 0, sizeof(*call));
    call->fn = FLOE_AGG_COUNT_STAR;
    call->name = floe_strdup(name);
    return call->name ? NULL : oom();
}

/* CASE WHEN cond THEN a ELSE b END (all retained). */
static floe_status case1(floe_expr *cond, floe_expr *a, floe_expr *b, floe_expr **out) {
    return floe_expr_case(&cond, &a, 1, b, out);
}

/* CASE WHEN n > 1 THEN <error: more than one row> ELSE v END. */
static floe_status one_value(floe_expr *n, floe_expr *v, const floe_type *t, floe_expr **out) {
    floe_expr *one = NULL, *gt = NULL, *nul = NULL, *err = NULL;
    floe_status st = floe_expr_lit_int64(1, &one);
    if (!st) st = floe_expr_cmp(FLOE_CMP_GT, n, one, &gt);
    if (!st) st = floe_expr_lit_null((floe_type *)t, &nul);
    if (!st) st = floe_expr_call("__subquery_too_many_rows", &nul, 1, &err);
    if (!st) st = case1(gt, err, v, out);
    floe_expr_release(one);
    floe_expr_release(gt);
    floe_expr_release(nul);
    floe_expr_release(err);
    return st;
}

floe_status bind_single_row_plan(floe_session *s, const json_t *subselect, floe_lplan *plan, floe_lplan **out) {
    *out = NULL;
    bind_result r2;
    floe_status st = bind_select(s, subselect, &r2);
    if (st) {
        floe_lplan_free(plan);
        return st;
    }
    bind_scope_free(&r2.scope);
    floe_agg_call call;
    floe_lplan *g = NULL, *j = NULL, *p = NULL;
    st = bind_dc_count_star(&call, "n");
    if (!st) st = bind_dc_aggregate(r2.plan, 0, &call, 1, &g);
    else floe_lplan_free(r2.plan);
    if (!st) st = bind_make_join(g, plan, FLOE_JOIN_LEFT, NULL, &j);
    else floe_lplan_free(plan);
    floe_expr *n = NULL, *v = NULL, *e = NULL;
    if (!st) st = floe_expr_column(0, &n);
    if (!st) st = floe_expr_column(1, &v);
    if (!st) st = one_value(n, v, floe_schema_field(j->schema, 1)->type, &e);
    if (!st) {
        char *name = floe_schema_field(j->schema, 1)->name;
        st = bind_make_project(j, &e, &name, 1, &p);
        j = NULL;
    }
    floe_lplan_free(j);
    floe_expr_release(n);
    floe_expr_release(v);
    floe_expr_release(e);
    if (!st) *out = p;
    return st;
}

/* ------------------------------------------------ correlated subqueries */

/* A subquery shape this file unnests: SELECT ... FROM ... [WHERE ...]. */
static bool plain_shape(const json_t *sub) {
    const char *op = floe_pg_get_str(sub, "op");
    return sub && floe_pg_get(sub, "fromClause") && !floe_pg_list_len(floe_pg_get(sub, "groupClause")) &&
           !floe_pg_get(sub, "havingClause") && !floe_pg_get(sub, "distinctClause") &&
           !floe_pg_get(sub, "limitCount") && !floe_pg_get(sub, "limitOffset") && !floe_pg_get(sub, "valuesLists") &&
           !floe_pg_list_len(floe_pg_get(sub, "sortClause")) && !floe_pg_get(sub, "withClause") &&
           (!op || !strcmp(op, "SETOP_NONE"));
}

static json_t *column_ref(const char *name) {
    return json_pack("{s:{s:[{s:{s:s}}]}}", "ColumnRef", "fields", "String", "sval", name);
}

/* SELECT ... FROM ... [WHERE ...] [ORDER BY ...] [LIMIT / OFFSET], with
 * `distinct` also SELECT DISTINCT (not DISTINCT ON): the shapes unnested
 * with a top-N per outer value (top_n_per_value). */
static bool topn_shape(const json_t *sub, bool distinct) {
    const char *op = floe_pg_get_str(sub, "op");
    json_t *dc = floe_pg_get(sub, "distinctClause");
    const char *lo = floe_pg_get_str(sub, "limitOption");
    return sub && floe_pg_get(sub, "fromClause") && !floe_pg_list_len(floe_pg_get(sub, "groupClause")) &&
           !floe_pg_get(sub, "havingClause") && (!dc || (distinct && !floe_pg_node_kind(floe_pg_list_at(dc, 0)))) &&
           !floe_pg_get(sub, "valuesLists") && !floe_pg_get(sub, "withClause") && (!op || !strcmp(op, "SETOP_NONE")) &&
           !(lo && !strcmp(lo, "LIMIT_OPTION_WITH_TIES"));
}

static bool has_limit(const json_t *sub) { return floe_pg_get(sub, "limitCount") || floe_pg_get(sub, "limitOffset"); }

/* The ORDER BY items of `sub` as ResTargets, to be bound as select items
 * are: an ordinal, or a bare name that is an output alias, stands for
 * that item's expression.  A new reference (NULL: out of memory). */
static json_t *sort_targets(floe_session *s, const json_t *sub) {
    json_t *out = json_array();
    json_t *sl = floe_pg_get(sub, "sortClause"), *tl = floe_pg_get(sub, "targetList");
    int32_t nt = floe_pg_list_len(tl);
    for (int32_t i = 0; out && i < floe_pg_list_len(sl); i++) {
        json_t *node = floe_pg_get(floe_pg_as(floe_pg_list_at(sl, i), "SortBy"), "node");
        json_t *val = node;
        int64_t ord = 0;
        json_t *cr = floe_pg_as(node, "ColumnRef");
        json_t *fl = floe_pg_get(cr, "fields");
        const char *bare = floe_pg_list_len(fl) == 1 ? floe_pg_string(floe_pg_list_at(fl, 0)) : NULL;
        if (bind_const_int(s, node, &ord) && ord >= 1 && ord <= nt) {
            val = floe_pg_get(floe_pg_as(floe_pg_list_at(tl, (int32_t)ord - 1), "ResTarget"), "val");
        } else if (bare) {
            for (int32_t k = 0; k < nt; k++) {
                json_t *rt = floe_pg_as(floe_pg_list_at(tl, k), "ResTarget");
                const char *nm = floe_pg_get_str(rt, "name");
                if (nm && !strcmp(nm, bare)) {
                    val = floe_pg_get(rt, "val");
                    break;
                }
            }
        }
        json_t *rt = json_pack("{s:{s:O}}", "ResTarget", "val", val);
        if (!rt || json_array_append_new(out, rt) != 0) {
            json_decref(out);
            out = NULL;
        }
    }
    return out;
}

/* The top-N of each group of *plan: rows whose columns part[] are equal
 * (NULLs equal) form a group, ordered by the ORDER BY of `sub` over the
 * expressions key[] (columns of *plan); rows OFFSET+1 .. OFFSET+LIMIT
 * of each group are kept, as a window row_number() PARTITION BY part
 * ORDER BY key and a filter on it, and then columns 0 .. n_keep-1.
 * Nothing is added without LIMIT and OFFSET. */
static floe_status top_n_per_value(floe_session *s, const json_t *sub, floe_lplan **plan, floe_expr *const *part,
                                   int32_t np, floe_expr *const *key, int32_t n_keep) {
    int64_t fetch = -1, offset = -1;
    FLOE_TRY(bind_limit_value(s, floe_pg_get(sub, "limitCount"), "LIMIT", &fetch));
    FLOE_TRY(bind_limit_value(s, floe_pg_get(sub, "limitOffset"), "OFFSET", &offset));
    if (fetch < 0 && offset <= 0) return NULL;
    if (offset < 0) offset = 0;
    json_t *sl = floe_pg_get(sub, "sortClause");
    int32_t nk = floe_pg_list_len(sl), nin = ncols(*plan);
    floe_field *f = floe_calloc((size_t)nin + 1, sizeof *f);
    floe_schema *schema = NULL;
    floe_status st = f ? NULL : oom();
    for (int32_t i = 0; i < nin && !st; i++) st = floe_field_copy(&f[i], floe_schema_field((*plan)->schema, i));
    if (!st) st = floe_field_init(&f[nin], "row_number", floe_type_primitive(FLOE_TYPE_INT64), false, -1);
    if (!st) st = floe_type_struct(f, nin + 1, &schema);
    for (int32_t i = 0; f && i <= nin; i++) floe_field_clear(&f[i]);
    floe_free(f);
    floe_lplan *wp = NULL;
    if (!st) {
        st = floe_lplan_new(FLOE_L_WINDOW, schema, (floe_lplan *[]){*plan}, 1, &wp);
        *plan = wp; /* NULL on failure: the input was freed */
    }
    floe_type_release(schema);
    if (st) return st;
    wp->wpart = floe_calloc((size_t)np + 1, sizeof *wp->wpart);
    wp->worder = floe_calloc((size_t)nk + 1, sizeof *wp->worder);
    wp->wcalls = floe_calloc(1, sizeof *wp->wcalls);
    if (!wp->wpart || !wp->worder || !wp->wcalls) return oom();
    for (int32_t i = 0; i < np; i++) wp->wpart[wp->n_wpart++] = floe_expr_retain(part[i]);
    for (int32_t i = 0; i < nk; i++) {
        json_t *sb = floe_pg_as(floe_pg_list_at(sl, i), "SortBy");
        FLOE_TRY(bind_at(s, floe_pg_location(floe_pg_get(sb, "node")),
                         bind_sort_key_of(sb, floe_expr_retain(key[i]), &wp->worder[i])));
        wp->n_worder = i + 1;
    }
    wp->n_wcalls = 1;
    wp->wcalls[0].fn = FLOE_WIN_ROW_NUMBER;
    wp->wcalls[0].frame.mode = FLOE_FRAME_ROWS;
    wp->wcalls[0].frame.start = FLOE_BOUND_UNBOUNDED_PRECEDING;
    wp->wcalls[0].frame.end = FLOE_BOUND_CURRENT_ROW;
    if (!(wp->wcalls[0].name = floe_strdup("row_number"))) return oom();
    /* rn > offset AND rn <= offset + fetch */
    floe_expr *rn = NULL, *lo = NULL, *hi = NULL, *c1 = NULL, *c2 = NULL, *pred = NULL;
    st = floe_expr_column(nin, &rn);
    if (!st) st = floe_expr_lit_int64(offset, &lo);
    if (!st) st = floe_expr_cmp(FLOE_CMP_GT, rn, lo, &c1);
    if (!st && fetch >= 0) st = floe_expr_lit_int64(offset + fetch, &hi);
    if (!st && fetch >= 0) st = floe_expr_cmp(FLOE_CMP_LE, rn, hi, &c2);
    if (!st) st = c2 ? floe_expr_and(c1, c2, &pred) : (pred = floe_expr_retain(c1), NULL);
    floe_lplan *fp = NULL;
    if (!st) {
        st = bind_filter_node(*plan, pred, &fp);
        *plan = fp;
    }
    floe_expr_release(rn);
    floe_expr_release(lo);
    floe_expr_release(hi);
    floe_expr_release(c1);
    floe_expr_release(c2);
    floe_expr_release(pred);
    if (st) return st;
    /* back to the kept columns */
    floe_expr **pe = floe_calloc((size_t)n_keep + 1, sizeof *pe);
    char **pn = floe_calloc((size_t)n_keep + 1, sizeof *pn);
    st = pe && pn ? NULL : oom();
    for (int32_t i = 0; i < n_keep && !st; i++) {
        st = floe_expr_column(i, &pe[i]);
        pn[i] = floe_schema_field((*plan)->schema, i)->name;
    }
    floe_lplan *pp = NULL;
    if (!st) {
        st = bind_make_project(*plan, pe, pn, n_keep, &pp);
        *plan = pp;
    }
    for (int32_t i = 0; pe && i < n_keep; i++) floe_expr_release(pe[i]);
    floe_free(pe);
    floe_free(pn);
    return st;
}

/* SELECT ... FROM ... [WHERE ...] GROUP BY ... [HAVING ...], without
 * GROUPING SETS, LIMIT / OFFSET or set operations: unnested by grouping
 * D JOIN subquery by D's columns and the subquery's keys
 * (grouped_rows). */
static bool grouped_shape(const json_t *sub) {
    const char *op = floe_pg_get_str(sub, "op");
    json_t *dc = floe_pg_get(sub, "distinctClause");
    return sub && floe_pg_get(sub, "fromClause") && floe_pg_list_len(floe_pg_get(sub, "groupClause")) > 0 &&
           !bind_group_has_sets(sub) && !has_limit(sub) && !floe_pg_get(sub, "valuesLists") &&
           !floe_pg_get(sub, "withClause") && (!op || !strcmp(op, "SETOP_NONE")) &&
           (!dc || !floe_pg_node_kind(floe_pg_list_at(dc, 0)));
}

/* A grouped subquery's rows per D value: *jn (D's nd columns, then the
 * subquery's FROM, named by *iscope, its WHERE applied) becomes the
 * subquery's select list over it grouped by D's columns and its GROUP
 * BY, HAVING and DISTINCT applied — its select items, then D's columns
 * (d_first: D's columns first, and *iscope names the items ?v0, ?v1 ...).
 * The select list and HAVING may not read outer columns (they would not
 * be among D's). */
static floe_status grouped_rows(floe_session *s, const json_t *sub, floe_lplan **jn, bind_scope *iscope, int32_t nd,
                                bool d_first, int32_t loc) {
    json_t *tl = floe_pg_get(sub, "targetList");
    int32_t nv = floe_pg_list_len(tl);
    for (int32_t i = 0; i < nv; i++) {
        json_t *cr = floe_pg_as(floe_pg_get(floe_pg_as(floe_pg_list_at(tl, i), "ResTarget"), "val"), "ColumnRef");
        json_t *fl = floe_pg_get(cr, "fields");
        if (cr && floe_pg_as(floe_pg_list_at(fl, floe_pg_list_len(fl) - 1), "A_Star"))
            return bind_error(s, loc, FLOE_ERR_UNSUPPORTED, "* in a correlated subquery with GROUP BY is not supported");
    }
    bind_result pre, r;
    memset(&pre, 0, sizeof pre);
    memset(&r, 0, sizeof r);
    char nm[32];
    floe_status st = NULL;
    for (int32_t i = 0; i < nd && !st; i++) {
        snprintf(nm, sizeof nm, "?d%d", (int)i);
        st = bind_scope_add(&pre.scope, NULL, nm, false);
    }
    if (!st) st = bind_scope_append(&pre.scope, iscope);
    pre.plan = *jn;
    *jn = NULL;
    /* SELECT <items>, ?d0 ... GROUP BY <keys>, ?d0 ... HAVING ... */
    json_t *body = json_object(), *ntl = json_copy(tl), *gl = json_copy(floe_pg_get(sub, "groupClause"));
    if (!body || !ntl || !gl || json_object_set_new(body, "targetList", ntl) != 0 ||
        json_object_set_new(body, "groupClause", gl) != 0)
        st = oom();
    static const char *const kept[] = {"havingClause", "distinctClause"};
    for (int i = 0; i < 2 && !st; i++) {
        json_t *v = floe_pg_get(sub, kept[i]);
        if (v && json_object_set(body, kept[i], v) != 0) st = oom();
    }
    for (int32_t i = 0; i < nd && !st; i++) {
        snprintf(nm, sizeof nm, "?d%d", (int)i);
        json_t *ref = column_ref(nm);
        json_t *rt = ref ? json_pack("{s:{s:O,s:s}}", "ResTarget", "val", ref, "name", nm) : NULL;
        if (!rt || json_array_append_new(ntl, rt) != 0 || json_array_append_new(gl, ref) != 0) st = oom();
    }
    if (!st) {
        st = bind_simple_select_over(s, body, &pre, &r);
        if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
            floe_status_free(st);
            st = bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                            "a correlated subquery with GROUP BY may read outer columns only in its WHERE clause");
        }
    }
    json_decref(body);
    bind_result_free(&pre);
    if (st) return st;
    bind_scope_free(&r.scope);
    if (!d_first) {
        *jn = r.plan;
        return NULL;
    }
    floe_expr **pe = floe_calloc((size_t)(nv + nd) + 1, sizeof *pe);
    char **pn = floe_calloc((size_t)(nv + nd) + 1, sizeof *pn);
    st = pe && pn ? NULL : oom();
    for (int32_t i = 0; i < nv + nd && !st; i++) {
        int32_t from = i < nd ? nv + i : i - nd;
        st = floe_expr_column(from, &pe[i]);
        pn[i] = floe_schema_field(r.plan->schema, from)->name;
    }
    if (!st) st = bind_make_project(r.plan, pe, pn, nv + nd, jn);
    else floe_lplan_free(r.plan);
    for (int32_t i = 0; pe && i < nv + nd; i++) floe_expr_release(pe[i]);
    floe_free(pe);
    floe_free(pn);
    bind_scope_free(iscope);
    for (int32_t i = 0; i < nv && !st; i++) {
        snprintf(nm, sizeof nm, "?v%d", (int)i);
        st = bind_scope_add(iscope, NULL, nm, false);
    }
    return st;
}

/* Growing list of expressions. */
typedef struct elist {
    floe_expr **v;
    int32_t n, cap;
} elist;

static floe_status elist_add(elist *l, floe_expr *e) { /* takes e */
    if (l->n == l->cap) {
        int32_t cap = l->cap ? 2 * l->cap : 8;
        floe_expr **v = floe_realloc(l->v, (size_t)cap * sizeof(floe_expr *));
        if (!v) {
            floe_expr_release(e);
            return oom();
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = e;
    return NULL;
}

static void elist_free(elist *l) {
    for (int32_t i = 0; i < l->n; i++) floe_expr_release(l->v[i]);
    floe_free(l->v);
    memset(l, 0, sizeof(*l));
}

/* The subquery `sub` (FROM ... WHERE ...) of an outer query with columns
 * `outer_schema` (names `osc`, FROM list `from_clause`) joined with D, the
 * distinct values of the outer columns its WHERE reads (++ x when given):
 * *jn is D JOIN subquery ON the correlated conjuncts, D's columns first
 * (their outer expressions in *dex), the subquery's FROM after (names in
 * inner->scope; inner-only conjuncts filter it). */
static floe_status unnest_join(floe_session *s, const json_t *sub, floe_schema *outer_schema, const bind_scope *osc,
                               const json_t *from_clause, const bind_from_chain *chain, const json_t *late_val,
                               floe_expr *x, const json_t *select_list, elist *sel_out,
                               int32_t loc, bind_result *inner, elist *dex, floe_lplan **jn) {
    *jn = NULL;
    elist sraw = {0};
    bool sel_corr = false;
    FLOE_TRY(bind_corr_sub_from(s, sub, osc, inner));
    int32_t n_outer = floe_schema_num_fields(outer_schema);
    elist icond = {0}, ccond = {0};
    const json_t **late = NULL; /* conjuncts whose subqueries read outer columns */
    int32_t n_late = 0;
    floe_lplan *right = NULL, *d = NULL;
    bind_result fr;
    memset(&fr, 0, sizeof(fr));
    bool *used = NULL;
    int32_t *map = NULL, *dpos = NULL;
    floe_status st = NULL;
    /* The WHERE conjuncts: those over the subquery's own columns filter
     * it (bound first without the outer scope, so nested subqueries work
     * there), the others are the correlation. */
    json_t *where = floe_pg_get(sub, "whereClause");
    json_t *be = floe_pg_as(where, "BoolExpr");
    const char *bop = floe_pg_get_str(be, "boolop");
    json_t *conj = be && bop && !strcmp(bop, "AND_EXPR") ? floe_pg_get(be, "args") : NULL;
    int32_t n_conj = conj ? floe_pg_list_len(conj) : where ? 1 : 0;
    for (int32_t i = 0; i < n_conj && !st; i++) {
        json_t *node = conj ? floe_pg_list_at(conj, i) : where;
        bind_ectx ic;
        bind_ectx_init(&ic, s, &inner->scope, inner->plan->schema, "WHERE");
        ic.plan = &inner->plan;
        ic.from_clause = floe_pg_get(sub, "fromClause");
        floe_expr *e = NULL;
        st = bind_predicate(&ic, node, &e);
        bind_ectx_clear(&ic);
        if (!st) {
            st = elist_add(&icond, e);
            continue;
        }
        if (floe_status_code(st) != FLOE_ERR_NOT_FOUND || !inner->plan) break;
        floe_status_free(st);
        bind_ectx wc;
        bind_ectx_init(&wc, s, &inner->scope, inner->plan->schema, "WHERE");
        wc.outer = osc;
        wc.outer_schema = floe_type_retain(outer_schema);
        st = bind_predicate(&wc, node, &e);
        bind_ectx_clear(&wc);
        if (st && bind_json_has_sublink(node)) { /* bound over D JOIN F below */
            floe_status_free(st);
            st = NULL;
            if (!late && !(late = floe_calloc((size_t)n_conj + 1, sizeof(*late)))) st = oom();
            if (!st) late[n_late++] = node;
            continue;
        }
        if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND)
            st = floe_status_wrap(st, "(a subquery may read the columns of the query just around it, not of one further out)");
        if (!st) st = elist_add(&ccond, e);
    }
    /* The select list (LATERAL), which may read outer columns too. */
    for (int32_t i = 0; i < floe_pg_list_len(select_list) && !st; i++) {
        json_t *rt = floe_pg_as(floe_pg_list_at(select_list, i), "ResTarget");
        bind_ectx wc;
        bind_ectx_init(&wc, s, &inner->scope, inner->plan->schema, "SELECT");
        wc.outer = osc;
        wc.outer_schema = floe_type_retain(outer_schema);
        floe_expr *e = NULL;
        st = bind_expr(&wc, floe_pg_get(rt, "val"), &e);
        bind_ectx_clear(&wc);
        if (!st && floe_sqlx_min_column(e) >= 0 && floe_sqlx_min_column(e) < n_outer) sel_corr = true;
        if (!st) st = elist_add(&sraw, e);
    }
    if (!st && ccond.n == 0 && !sel_corr && n_late == 0 && !late_val)
        st = bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                        "a subquery may read outer columns only in its WHERE clause");
    right = inner->plan;
    inner->plan = NULL;
    if (!st && icond.n > 0) {
        floe_expr *pred = NULL;
        st = bind_and_all(icond.v, icond.n, &pred);
        floe_lplan *f = NULL;
        if (!st) st = bind_filter_node(right, pred, &f);
        right = f;
        floe_expr_release(pred);
    }
    int32_t n_inner = right ? ncols(right) : 0;

    /* D's columns: the outer columns the correlation reads, then the IN
     * test value. */
    if (!st) {
        used = floe_calloc((size_t)(n_outer + n_inner) + 1, sizeof(bool));
        dpos = floe_calloc((size_t)n_outer + 1, sizeof(int32_t));
        map = floe_calloc((size_t)(n_outer + n_inner) + 1, sizeof(int32_t));
        if (!used || !dpos || !map) st = oom();
    }
    /* The outer query's FROM bound afresh: the same columns first (all of
     * them D's when a nested subquery reads outer columns). */
    if (!st) st = bind_fresh_from(s, from_clause, chain, &fr);
    int32_t nf = st ? 0 : ncols(fr.plan);
    if (nf > n_outer) nf = n_outer;
    for (int32_t i = 0; (n_late > 0 || late_val) && i < nf && !st; i++) used[i] = true;
    for (int32_t i = 0; i < ccond.n && !st; i++) floe_sqlx_columns(ccond.v[i], used);
    for (int32_t i = 0; i < sraw.n && !st; i++) floe_sqlx_columns(sraw.v[i], used);
    for (int32_t i = 0; i < n_outer && !st; i++) {
        dpos[i] = -1;
        if (!used[i]) continue;
        floe_expr *e = NULL;
        st = floe_expr_column(i, &e);
        if (!st) {
            dpos[i] = dex->n;
            st = elist_add(dex, e);
        }
    }
    if (!st && x) st = elist_add(dex, floe_expr_retain(x));
    int32_t nd = dex->n;
    for (int32_t i = 0; i < nd && !st; i++) {
        int32_t mx = floe_sqlx_max_column(dex->v[i]);
        if (mx >= ncols(fr.plan) ||
            (mx >= 0 && !floe_type_equals(floe_schema_field(fr.plan->schema, mx)->type,
                                         floe_schema_field(outer_schema, mx)->type)))
            st = bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                            "a correlated subquery may read only the outer query's FROM columns");
    }
    if (!st) {
        char **names = floe_calloc((size_t)nd + 1, sizeof(char *));
        char nm[32];
        if (!names) st = oom();
        for (int32_t i = 0; i < nd && !st; i++) {
            snprintf(nm, sizeof nm, "outer_%d", (int)i);
            if (!(names[i] = floe_strdup(nm))) st = oom();
        }
        floe_lplan *p = NULL;
        if (!st) {
            st = bind_make_project(fr.plan, dex->v, names, nd, &p);
            fr.plan = NULL;
        }
        for (int32_t i = 0; names && i < nd; i++) floe_free(names[i]);
        floe_free(names);
        if (!st) st = floe_lplan_new(FLOE_L_DISTINCT, p->schema, (floe_lplan *[]){p}, 1, &d);
    }
    /* D JOIN subquery ON the correlation (outer columns read from D). */
    if (!st) {
        for (int32_t i = 0; i < n_outer; i++) map[i] = dpos[i];
        for (int32_t i = 0; i < n_inner; i++) map[n_outer + i] = nd + i;
        elist on = {0};
        for (int32_t i = 0; i < ccond.n && !st; i++) {
            floe_expr *e = NULL;
            st = floe_sqlx_remap(ccond.v[i], map, &e);
            if (!st) st = elist_add(&on, e);
        }
        floe_expr *pred = NULL;
        if (!st) st = bind_and_all(on.v, on.n, &pred);
        elist_free(&on);
        for (int32_t i = 0; i < sraw.n && !st; i++) {
            floe_expr *e = NULL;
            st = floe_sqlx_remap(sraw.v[i], map, &e);
            if (!st) st = elist_add(sel_out, e);
        }
        if (!st) {
            st = bind_make_join(d, right, FLOE_JOIN_INNER, pred, jn);
            d = right = NULL;
        }
        floe_expr_release(pred);
    }
    if (!st && (n_late > 0 || late_val))
        st = bind_nested_corr_filter(s, jn, nf, x != NULL, osc, &inner->scope, from_clause, chain,
                                     floe_pg_get(sub, "fromClause"), late, n_late, late_val);
    floe_lplan_free(right);
    floe_lplan_free(d);
    bind_result_free(&fr);
    elist_free(&icond);
    elist_free(&ccond);
    elist_free(&sraw);
    floe_free(late);
    floe_free(used);
    floe_free(map);
    floe_free(dpos);
    return st;
}

floe_status bind_decorrelated(bind_ectx *c, const json_t *sub, bind_sublink_kind kind, const json_t *testexpr,
                              int32_t loc, floe_expr **out) {
    return bind_decorrelated_cmp(c, sub, kind, testexpr, FLOE_CMP_EQ, loc, out);
}

/* IN / EXISTS over a correlated subquery of aggregates without GROUP BY,
 * which gives one row per outer row: EXISTS is TRUE, x cmp ANY (S) is
 * x cmp (S) as a scalar subquery, in three values too. */
static floe_status agg_any(bind_ectx *c, const json_t *sub, bind_sublink_kind kind, const json_t *testexpr,
                           floe_cmp_op cmp, int32_t loc, floe_expr **out) {
    if (kind == BIND_SUBLINK_EXISTS) return floe_expr_lit_bool(true, out);
    floe_expr *v = NULL, *x = NULL;
    FLOE_TRY(bind_decorrelated_cmp(c, sub, BIND_SUBLINK_SCALAR, NULL, cmp, loc, &v));
    bind_ectx oc;
    bind_ectx_init(&oc, c->s, c->sc, c->schema, "IN");
    floe_status st = bind_expr(&oc, testexpr, &x);
    bind_ectx_clear(&oc);
    if (!st) st = bind_align_keys(&x, c->schema, &v, c->schema);
    if (!st) st = floe_expr_cmp(cmp, x, v, out);
    floe_expr_release(x);
    floe_expr_release(v);
    return st;
}

floe_status bind_decorrelated_cmp(bind_ectx *c, const json_t *sub, bind_sublink_kind kind, const json_t *testexpr,
                                  floe_cmp_op cmp, int32_t loc, floe_expr **out) {
    floe_session *s = c->s;
    *out = NULL;
    if (!c->plan || c->agg_mode || c->outer || c->in_agg_arg || !c->from_clause)
        return bind_error(s, loc, FLOE_ERR_UNSUPPORTED, "a correlated subquery is not supported in %s",
                          c->outer ? "a correlated condition" : c->in_agg_arg ? "an aggregate's argument"
                                                                               : (c->clause ? c->clause : "this place"));
    /* DISTINCT does not change what IN / EXISTS see; ORDER BY matters
     * only with LIMIT / OFFSET (a top-N per outer value below). */
    if (kind != BIND_SUBLINK_SCALAR && bind_is_plain_union(sub)) /* an OR over its branches */
        return bind_union_sublink(c, sub, kind == BIND_SUBLINK_EXISTS, testexpr, cmp, loc, out);
    bool grouped = grouped_shape(sub);
    if (!grouped && !topn_shape(sub, kind != BIND_SUBLINK_SCALAR))
        return bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                          "correlated subqueries are supported only as SELECT ... FROM ... WHERE ... [GROUP BY ... "
                          "HAVING ...] [ORDER BY ... LIMIT / OFFSET] (no HAVING without GROUP BY, LIMIT with GROUP BY, "
                          "DISTINCT for a scalar subquery, or set operations other than UNION under IN / EXISTS)");
    json_t *tl = floe_pg_get(sub, "targetList");
    /* grouped: the rows of the grouping, taken as a plain subquery's */
    bool is_agg = !grouped && bind_has_aggregate(tl), limited = has_limit(sub);
    if (is_agg && limited)
        return bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                          "LIMIT / OFFSET in a correlated subquery of aggregates is not supported");
    if (kind != BIND_SUBLINK_SCALAR && is_agg) /* one row per outer row */
        return agg_any(c, sub, kind, testexpr, cmp, loc, out);
    if (kind != BIND_SUBLINK_EXISTS && floe_pg_list_len(tl) != 1)
        return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT,
                          kind == BIND_SUBLINK_IN ? "subquery has too many columns" : "subquery must return only one column");
    json_t *vnode = kind == BIND_SUBLINK_EXISTS ? NULL : floe_pg_get(floe_pg_as(floe_pg_list_at(tl, 0), "ResTarget"), "val");
    json_t *vref = grouped ? column_ref("?v0") : NULL; /* the grouped rows' value */
    if (grouped && !vref) return oom();
    if (grouped) vnode = vref;

    bind_result inner;
    memset(&inner, 0, sizeof(inner));
    floe_lplan *outer = *c->plan;
    elist dex = {0};
    floe_agg_call calls[3];
    memset(calls, 0, sizeof(calls));
    int32_t n_calls = 0;
    floe_expr *x = NULL, *val = NULL, *matched = NULL, *empty = NULL;
    floe_lplan *jn = NULL, *g = NULL;
    int32_t *extra_col = NULL;
    floe_expr **subst = NULL;
    bind_ectx ac;
    bind_ectx_init(&ac, s, &inner.scope, NULL, "SELECT");

    floe_status st = NULL;
    if (kind == BIND_SUBLINK_IN) {
        bind_ectx oc;
        bind_ectx_init(&oc, s, c->sc, outer->schema, "IN");
        st = bind_expr(&oc, testexpr, &x);
        bind_ectx_clear(&oc);
    }
    /* LIMIT / OFFSET: the ORDER BY keys are bound as select items over
     * D JOIN subquery, and its rows cut to the top-N per D value. */
    json_t *keys = NULL;
    elist kex = {0};
    /* A scalar subquery of rows whose value holds a subquery: the value is
     * computed over D JOIN F as a column after F's (bind_nested_corr.c). */
    const json_t *late_val =
        kind == BIND_SUBLINK_SCALAR && !is_agg && !grouped && !limited && bind_json_has_sublink(vnode) ? vnode : NULL;
    if (!st && limited && !(keys = sort_targets(s, sub))) st = oom();
    if (!st)
        st = unnest_join(s, sub, outer->schema, c->sc, c->from_clause, c->from_chain, late_val, x, keys, keys ? &kex : NULL, loc, &inner, &dex,
                         &jn);
    json_decref(keys);
    int32_t nd = dex.n;
    floe_schema *fs = NULL; /* the subquery's FROM */
    if (!st) {
        int32_t nfs = ncols(jn) - nd;
        floe_field *ff = floe_calloc((size_t)nfs + 1, sizeof *ff);
        if (!ff) st = oom();
        for (int32_t i = 0; i < nfs && !st; i++) st = floe_field_copy(&ff[i], floe_schema_field(jn->schema, nd + i));
        if (!st) st = floe_type_struct(ff, nfs, &fs);
        for (int32_t i = 0; ff && i < nfs; i++) floe_field_clear(&ff[i]);
        floe_free(ff);
    }
    if (!st && limited) {
        elist part = {0};
        for (int32_t i = 0; i < nd && !st; i++) {
            floe_expr *e = NULL;
            st = floe_expr_column(i, &e);
            if (!st) st = elist_add(&part, e);
        }
        if (!st) st = top_n_per_value(s, sub, &jn, part.v, nd, kex.v, ncols(jn));
        elist_free(&part);
    }
    elist_free(&kex);
    if (!st && grouped) {
        /* D ++ the select items of the grouping; fs their types */
        st = grouped_rows(s, sub, &jn, &inner.scope, nd, true, loc);
        int32_t nv = floe_pg_list_len(tl);
        floe_field *f = st ? NULL : floe_calloc((size_t)nv + 1, sizeof *f);
        if (!st && !f) st = oom();
        for (int32_t i = 0; i < nv && !st; i++) st = floe_field_copy(&f[i], floe_schema_field(jn->schema, nd + i));
        floe_type_release(fs);
        fs = NULL;
        if (!st) st = floe_type_struct(f, nv, &fs);
        for (int32_t i = 0; f && i < nv; i++) floe_field_clear(&f[i]);
        floe_free(f);
    }
    /* The aggregates over D ++ subquery columns, and the value over G
     * (D's columns, n, the rest) — matched — and over an empty input. */
    if (!st) st = bind_dc_count_star(&calls[n_calls++], "n");
    floe_expr *ncol = NULL;
    if (!st) st = floe_expr_column(nd, &ncol);
    if (!st && kind == BIND_SUBLINK_EXISTS) {
        st = floe_expr_lit_bool(true, &matched);
        if (!st) st = floe_expr_lit_bool(false, &empty);
    } else if (!st && kind == BIND_SUBLINK_IN) {
        bind_ectx vc;
        bind_ectx_init(&vc, s, &inner.scope, fs, "IN");
        floe_expr *y = NULL, *y2 = NULL, *dx = NULL;
        st = bind_expr(&vc, vnode, &y);
        bind_ectx_clear(&vc);
        if (!st) st = bind_expr_shift(y, nd, &y2);
        if (!st) st = floe_expr_column(nd - 1, &dx);
        if (!st) st = bind_align_keys(&dx, jn->schema, &y2, jn->schema);
        floe_expr *eq = NULL;
        if (!st) st = floe_expr_cmp(cmp, dx, y2, &eq);
        if (!st) {
            calls[n_calls].fn = FLOE_AGG_BOOL_OR;
            calls[n_calls].arg = floe_expr_retain(eq);
            calls[n_calls].name = floe_strdup("m");
            n_calls++;
            calls[n_calls].fn = FLOE_AGG_COUNT;
            calls[n_calls].arg = eq;
            eq = NULL;
            calls[n_calls].name = floe_strdup("nq");
            n_calls++;
        }
        /* CASE WHEN m THEN TRUE WHEN nq < n THEN NULL ELSE FALSE END
         * (aggregates skip NULLs: nq < n when some x = v was NULL) */
        floe_expr *w[2] = {0}, *t[2] = {0}, *els = NULL, *nq = NULL;
        if (!st) st = floe_expr_column(nd + 1, &w[0]);
        if (!st) st = floe_expr_column(nd + 2, &nq);
        if (!st) st = floe_expr_cmp(FLOE_CMP_LT, nq, ncol, &w[1]);
        if (!st) st = floe_expr_lit_bool(true, &t[0]);
        if (!st) st = floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_BOOL), &t[1]);
        if (!st) st = floe_expr_lit_bool(false, &els);
        if (!st) st = floe_expr_case(w, t, 2, els, &matched);
        for (int32_t i = 0; i < 2; i++) {
            floe_expr_release(w[i]);
            floe_expr_release(t[i]);
        }
        floe_expr_release(els);
        floe_expr_release(nq);
        floe_expr_release(eq);
        floe_expr_release(y);
        floe_expr_release(y2);
        floe_expr_release(dx);
        if (!st) st = floe_expr_lit_bool(false, &empty);
    } else if (!st && !is_agg) {
        floe_type_release(ac.schema);
        ac.schema = floe_type_retain(fs);
        ac.n_from = floe_schema_num_fields(fs);
        floe_expr *v = NULL, *v2 = NULL, *vc = NULL;
        floe_type *t = NULL;
        if (late_val) st = floe_expr_column(ncols(jn) - 1, &v2);
        else st = bind_expr(&ac, vnode, &v);
        if (!st && !late_val) st = bind_expr_shift(v, nd, &v2);
        if (!st) st = floe_expr_type(v2, jn->schema, &t);
        if (!st) {
            calls[n_calls].fn = FLOE_AGG_MIN;
            calls[n_calls].arg = v2;
            v2 = NULL;
            calls[n_calls].name = floe_strdup("v");
            n_calls++;
        }
        if (!st) st = floe_expr_column(nd + 1, &vc);
        if (!st) st = one_value(ncol, vc, t, &matched);
        if (!st) st = floe_expr_lit_null(t, &empty);
        floe_type_release(t);
        floe_expr_release(v);
        floe_expr_release(v2);
        floe_expr_release(vc);
    }
    /* (a scalar aggregate's calls come from binding its select list) */
    int32_t na = 0;
    floe_agg_call *all = calls;
    if (!st && kind == BIND_SUBLINK_SCALAR && is_agg) {
        floe_type_release(ac.schema);
        ac.schema = floe_type_retain(fs);
        ac.n_from = floe_schema_num_fields(fs);
        ac.agg_mode = true;
        st = bind_expr(&ac, vnode, &val);
        na = ac.n_extras;
        for (int32_t i = 0; i < na && !st; i++)
            if (!ac.extras[i].is_agg)
                st = bind_error(s, loc, FLOE_ERR_UNSUPPORTED, "a subquery in a correlated subquery's select list is not supported");
        all = st ? NULL : floe_calloc((size_t)na + 2, sizeof(floe_agg_call));
        if (!st && !all) st = oom();
        if (!st) {
            all[0] = calls[0];
            memset(&calls[0], 0, sizeof(calls[0]));
            n_calls = 0;
        }
        for (int32_t i = 0; i < na && !st; i++) {
            /* a copy of its own (the context frees the extra's parts),
             * every expression of it shifted past D's columns */
            floe_agg_call *a = &all[1 + i];
            st = floe_agg_call_copy(&ac.extras[i].agg, a);
            floe_expr **parts[3] = {&a->arg, &a->arg2, &a->filter};
            for (int32_t k = 0; k < 3 + a->n_order && !st; k++) {
                floe_expr **e = k < 3 ? parts[k] : &a->order[k - 3].expr, *sh = NULL;
                if (!*e) continue;
                st = bind_expr_shift(*e, nd, &sh);
                floe_expr_release(*e);
                *e = sh;
            }
        }
        extra_col = st ? NULL : floe_calloc((size_t)na + 1, sizeof(int32_t));
        if (!st && !extra_col) st = oom();
        for (int32_t i = 0; i < na && !st; i++) extra_col[i] = nd + 1 + i;
        if (!st) st = bind_rewrite_over_agg(&ac, val, NULL, 0, extra_col, NULL, &matched);
        /* Over an empty input: count → 0, the other aggregates NULL. */
        int32_t ng = nd + 1 + na;
        subst = st ? NULL : floe_calloc((size_t)ng + 1, sizeof(floe_expr *));
        if (!st && !subst) st = oom();
        for (int32_t i = 0; i < ng && !st; i++) {
            if (i >= nd && i <= nd + na && (i == nd || all[i - nd].fn == FLOE_AGG_COUNT ||
                                            all[i - nd].fn == FLOE_AGG_COUNT_STAR)) {
                st = floe_expr_lit_int64(0, &subst[i]);
            } else {
                floe_type *t = NULL;
                if (i < nd) st = floe_expr_type(dex.v[i], outer->schema, &t);
                else st = floe_agg_result_type(&all[i - nd], jn->schema, &t);
                if (!st) st = floe_expr_lit_null(t, &subst[i]);
                floe_type_release(t);
            }
        }
        if (!st) st = floe_sqlx_substitute(matched, subst, ng, &empty);
        if (!st) {
            floe_expr *folded = NULL;
            st = floe_sqlx_fold(empty, jn->schema, &folded);
            if (!st) {
                floe_expr_release(empty);
                empty = folded;
            }
        }
        if (subst) bind_expr_list_free(subst, ng);
        subst = NULL;
        if (!st) n_calls = 1 + na;
    }
    if (!st) {
        st = bind_dc_aggregate(jn, nd, all, n_calls, &g);
        jn = NULL;
    }
    /* Back onto the outer rows: C IS NOT DISTINCT FROM D. */
    int32_t first = -1;
    if (!st) {
        st = bind_dc_attach(c, g, FLOE_JOIN_LEFT, dex.v, NULL, nd, true, &first);
        g = NULL;
    }
    if (!st) {
        floe_expr *nref = NULL, *isnull = NULL, *m2 = NULL;
        st = floe_expr_column(first + nd, &nref);
        if (!st) st = floe_expr_is_null(nref, false, &isnull);
        if (!st) st = bind_expr_shift(matched, first, &m2);
        if (!st) st = case1(isnull, empty, m2, out);
        floe_expr_release(nref);
        floe_expr_release(isnull);
        floe_expr_release(m2);
    }
    floe_expr_release(ncol);
    if (all && all != calls) {
        for (int32_t i = 0; i < 1 + na; i++) floe_agg_call_clear(&all[i]);
        floe_free(all);
    }
    for (int32_t i = 0; i < 3; i++) {
        floe_expr_release(calls[i].arg);
        floe_free(calls[i].name);
    }
    bind_ectx_clear(&ac);
    floe_expr_release(x);
    floe_expr_release(val);
    floe_expr_release(matched);
    floe_expr_release(empty);
    floe_lplan_free(jn);
    floe_lplan_free(g);
    bind_result_free(&inner);
    elist_free(&dex);
    floe_free(extra_col);
    floe_type_release(fs);
    json_decref(vref);
    return st;
}

/* ------------------------------------------------ LATERAL subqueries */

/* Names of the lateral subquery's columns: select-list names, renamed by
 * the alias's column list, all qualified by the alias. */
static floe_status lateral_scope(floe_session *s, const json_t *tl, const json_t *alias, int32_t nd, bind_scope *out) {
    memset(out, 0, sizeof(*out));
    const char *q = floe_pg_get_str(alias, "aliasname");
    json_t *cols = floe_pg_get(alias, "colnames");
    int32_t n = floe_pg_list_len(tl), na = floe_pg_list_len(cols);
    if (na > n)
        return bind_error(s, -1, FLOE_ERR_INVALID_ARGUMENT, "%s has %d columns but %d column aliases were given",
                          q ? q : "relation", (int)n, (int)na);
    for (int32_t i = 0; i < n; i++) {
        json_t *rt = floe_pg_as(floe_pg_list_at(tl, i), "ResTarget");
        const char *nm = i < na ? floe_pg_string(floe_pg_list_at(cols, i)) : floe_pg_get_str(rt, "name");
        if (!nm) nm = bind_default_name(floe_pg_get(rt, "val"));
        FLOE_TRY(bind_scope_add(out, q, nm ? nm : "?column?", false));
    }
    for (int32_t i = 0; i < nd; i++) FLOE_TRY(bind_scope_add(out, NULL, "?lateral key?", true));
    return NULL;
}

/* A correlated LATERAL subquery of aggregates (no GROUP BY): one row per
 * left row, each column a correlated scalar subquery over the left plan
 * (bind_decorrelated), projected after the left columns. */
static floe_status lateral_aggregates(floe_session *s, bind_result *left, const json_t *left_from, const json_t *sub,
                                      const json_t *alias, int32_t loc, bind_result *out) {
    json_t *tl = floe_pg_get(sub, "targetList");
    int32_t nv = floe_pg_list_len(tl), nl = ncols(left->plan);
    floe_expr **pe = floe_calloc((size_t)(nl + nv) + 1, sizeof(floe_expr *));
    char **pn = floe_calloc((size_t)(nl + nv) + 1, sizeof(char *));
    floe_status st = pe && pn ? NULL : oom();
    bind_ectx c;
    bind_ectx_init(&c, s, &left->scope, left->plan->schema, "LATERAL");
    c.plan = &left->plan;
    c.from_clause = left_from;
    for (int32_t i = 0; i < nv && !st; i++) {
        /* the subquery with this one select item */
        json_t *one = json_copy((json_t *)sub);
        json_t *list = json_array();
        if (!one || !list || json_array_append(list, floe_pg_list_at(tl, i)) != 0 ||
            json_object_set_new(one, "targetList", list) != 0) {
            st = oom();
            if (!one) json_decref(list);
        } else {
            list = NULL;
            st = bind_decorrelated(&c, one, BIND_SUBLINK_SCALAR, NULL, loc, &pe[nl + i]);
        }
        json_decref(one);
    }
    bind_ectx_clear(&c);
    bind_scope sc;
    memset(&sc, 0, sizeof(sc));
    for (int32_t i = 0; i < nl && !st; i++) {
        st = floe_expr_column(i, &pe[i]);
        pn[i] = floe_schema_field(left->plan->schema, i)->name;
        if (!st) st = bind_scope_add(&sc, left->scope.cols[i].qual, left->scope.cols[i].name, left->scope.cols[i].hidden);
        if (!st) sc.cols[i].system = left->scope.cols[i].system;
    }
    bind_scope vs;
    if (!st) st = lateral_scope(s, tl, alias, 0, &vs);
    if (!st) {
        st = bind_scope_append(&sc, &vs);
        for (int32_t i = 0; i < nv; i++) pn[nl + i] = vs.cols[i].name;
        if (!st) st = bind_make_project(left->plan, pe, pn, nl + nv, &out->plan);
        left->plan = NULL;
        bind_scope_free(&vs);
    }
    for (int32_t i = 0; pe && i < nl + nv; i++) floe_expr_release(pe[i]);
    floe_free(pe);
    floe_free(pn);
    bind_result_free(left);
    if (st) {
        bind_scope_free(&sc);
        bind_result_free(out);
        return st;
    }
    out->scope = sc;
    return NULL;
}

floe_status bind_lateral(floe_session *s, bind_result *left, const json_t *left_from, const json_t *rs,
                         floe_join_type type, const json_t *quals, bind_result *out) {
    memset(out, 0, sizeof(*out));
    const json_t *query = floe_pg_get(rs, "subquery");
    const json_t *sub = bind_select_body(query);
    json_t *alias = floe_pg_get(rs, "alias");
    int32_t loc = floe_pg_location(query);
    floe_status st = NULL;
    if (type != FLOE_JOIN_INNER && type != FLOE_JOIN_LEFT)
        st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT,
                        "the combining JOIN type must be INNER or LEFT for a LATERAL reference");
    /* Uncorrelated: an ordinary join. */
    bind_result r;
    memset(&r, 0, sizeof(r));
    bool correlated = false;
    if (!st) {
        st = bind_select(s, query, &r);
        if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
            floe_status_free(st);
            st = NULL;
            correlated = true;
        }
    }
    elist dex = {0}, sel = {0};
    bind_result inner;
    memset(&inner, 0, sizeof(inner));
    floe_lplan *jn = NULL, *p = NULL;
    int32_t nd = 0, nv = 0;
    json_t *tl = floe_pg_get(sub, "targetList");
    if (!st && !correlated) {
        /* the subquery's own names under the alias */
        const char *q = floe_pg_get_str(alias, "aliasname");
        json_t *cols = floe_pg_get(alias, "colnames");
        for (int32_t i = 0; i < r.scope.n && !st; i++) {
            const char *nm = i < floe_pg_list_len(cols) ? floe_pg_string(floe_pg_list_at(cols, i)) : NULL;
            if (q) {
                floe_free(r.scope.cols[i].qual);
                if (!(r.scope.cols[i].qual = floe_strdup(q))) st = oom();
            }
            if (nm && !st) {
                floe_free(r.scope.cols[i].name);
                if (!(r.scope.cols[i].name = floe_strdup(nm))) st = oom();
            }
        }
        p = r.plan;
        r.plan = NULL;
    } else if (!st && plain_shape(sub) && bind_has_aggregate(tl) &&
               (!quals || json_is_true(floe_pg_get(floe_pg_get(floe_pg_as(quals, "A_Const"), "boolval"), "boolval")))) {
        /* aggregates: exactly one row per left row */
        bind_result_free(&r);
        return lateral_aggregates(s, left, left_from, sub, alias, loc, out);
    } else if (!st) {
        bool grouped = grouped_shape(sub);
        if (!grouped && (!topn_shape(sub, true) || bind_has_aggregate(tl)))
            st = bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                            "correlated LATERAL subqueries are supported only as SELECT [DISTINCT] ... FROM ... WHERE ... "
                            "[ORDER BY ... LIMIT / OFFSET], or with GROUP BY [HAVING] and no LIMIT, without set "
                            "operations (aggregates without GROUP BY only under INNER JOIN or LEFT JOIN ... ON true)");
        for (int32_t i = 0; i < floe_pg_list_len(tl) && !st; i++) {
            json_t *rt = floe_pg_as(floe_pg_list_at(tl, i), "ResTarget");
            json_t *cr = floe_pg_as(floe_pg_get(rt, "val"), "ColumnRef");
            json_t *fl = floe_pg_get(cr, "fields");
            if (cr && floe_pg_as(floe_pg_list_at(fl, floe_pg_list_len(fl) - 1), "A_Star"))
                st = bind_error(s, loc, FLOE_ERR_UNSUPPORTED, "* in a correlated LATERAL subquery's select list is not supported");
        }
        /* ORDER BY matters only with LIMIT / OFFSET: its keys are bound
         * as more select items (hidden columns of P unless DISTINCT). */
        bool distinct = !grouped && floe_pg_get(sub, "distinctClause") != NULL, limited = has_limit(sub);
        json_t *tl2 = NULL;
        int32_t ns = 0;
        if (!st && limited) {
            json_t *keys = sort_targets(s, sub);
            tl2 = json_copy(tl);
            if (!keys || !tl2 || json_array_extend(tl2, keys) != 0) st = oom();
            ns = floe_pg_list_len(keys);
            json_decref(keys);
        }
        if (!st)
            st = unnest_join(s, sub, left->plan->schema, &left->scope, left_from, NULL, NULL, NULL, grouped ? NULL : tl2 ? tl2 : tl,
                             grouped ? NULL : &sel, loc, &inner, &dex, &jn);
        json_decref(tl2);
        nd = dex.n;
        /* grouped: P = the grouping's select items ++ D's columns */
        if (!st && grouped) {
            st = grouped_rows(s, sub, &jn, &inner.scope, nd, false, loc);
            nv = floe_pg_list_len(tl);
            if (!st) {
                p = jn;
                jn = NULL;
                st = lateral_scope(s, tl, alias, nd, &r.scope);
            }
        }
        if (!st && !grouped) {
        /* P = the select list ++ D's columns (++ sort keys), over D JOIN
         * subquery. */
        nv = floe_pg_list_len(tl);
        int32_t nh = distinct ? 0 : ns;
        floe_expr **pe = st ? NULL : floe_calloc((size_t)(nv + nd + nh) + 1, sizeof(floe_expr *));
        char **pn = st ? NULL : floe_calloc((size_t)(nv + nd + nh) + 1, sizeof(char *));
        floe_expr **part = st ? NULL : floe_calloc((size_t)nd + 1, sizeof(floe_expr *));
        floe_expr **key = st ? NULL : floe_calloc((size_t)ns + 1, sizeof(floe_expr *));
        if (!st && (!pe || !pn || !part || !key)) st = oom();
        for (int32_t i = 0; i < nv + nh && !st; i++) {
            int32_t at = i < nv ? i : i + nd;
            pe[at] = floe_expr_retain(sel.v[i]);
            char nm[32];
            snprintf(nm, sizeof nm, i < nv ? "col_%d" : "sort_%d", (int)(i < nv ? i : i - nv));
            if (!st && !(pn[at] = floe_strdup(nm))) st = oom();
        }
        for (int32_t i = 0; i < nd && !st; i++) {
            char nm[32];
            snprintf(nm, sizeof nm, "key_%d", (int)i);
            st = floe_expr_column(i, &pe[nv + i]);
            if (!st && !(pn[nv + i] = floe_strdup(nm))) st = oom();
            if (!st) st = floe_expr_column(nv + i, &part[i]);
        }
        /* the sort keys over P: hidden columns, or (DISTINCT) select items */
        for (int32_t i = 0; i < ns && !st; i++) {
            int32_t col = nv + nd + i;
            if (distinct) {
                col = -1;
                for (int32_t k = 0; k < nv && col < 0; k++)
                    if (bind_expr_equal(sel.v[k], sel.v[nv + i])) col = k;
                if (col < 0)
                    st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT,
                                    "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
            }
            if (!st) st = floe_expr_column(col, &key[i]);
        }
        if (!st) {
            st = bind_make_project(jn, pe, pn, nv + nd + nh, &p);
            jn = NULL;
        }
        if (!st && distinct) {
            floe_lplan *dp = NULL;
            st = floe_lplan_new(FLOE_L_DISTINCT, p->schema, (floe_lplan *[]){p}, 1, &dp);
            p = dp;
        }
        if (!st && limited) st = top_n_per_value(s, sub, &p, part, nd, key, nv + nd);
        for (int32_t i = 0; pe && i < nv + nd + nh; i++) {
            floe_expr_release(pe[i]);
            if (pn) floe_free(pn[i]);
        }
        for (int32_t i = 0; part && i < nd; i++) floe_expr_release(part[i]);
        for (int32_t i = 0; key && i < ns; i++) floe_expr_release(key[i]);
        floe_free(part);
        floe_free(key);
        floe_free(pe);
        floe_free(pn);
        if (!st) st = lateral_scope(s, tl, alias, nd, &r.scope);
        }
    }
    /* left JOIN P ON keys (NULL-safe) AND the ON condition. */
    if (!st) st = bind_scope_append(&out->scope, &left->scope);
    if (!st) st = bind_scope_append(&out->scope, &r.scope);
    floe_expr *on = NULL;
    if (!st && quals) {
        floe_schema *both = NULL;
        st = floe_join_output_schema(left->plan->schema, p->schema, FLOE_JOIN_INNER, &both);
        bind_ectx oc;
        bind_ectx_init(&oc, s, &out->scope, both, "JOIN/ON");
        if (!st) st = bind_predicate(&oc, quals, &on);
        if (!st && oc.n_extras > 0)
            st = bind_error(s, floe_pg_location(quals), FLOE_ERR_UNSUPPORTED, "subqueries in JOIN/ON are not supported");
        bind_ectx_clear(&oc);
        floe_type_release(both);
    }
    if (!st && !correlated) {
        st = bind_make_join(left->plan, p, type, on, &out->plan);
        left->plan = p = NULL;
    } else if (!st) {
        floe_schema *schema = NULL;
        st = floe_join_output_schema(left->plan->schema, p->schema, type, &schema);
        floe_lplan *j = NULL;
        if (!st) {
            st = floe_lplan_new(FLOE_L_JOIN, schema, (floe_lplan *[]){left->plan, p}, 2, &j);
            left->plan = p = NULL;
        }
        floe_type_release(schema);
        if (!st) {
            out->plan = j;
            j->join_type = type;
            j->null_equals_null = true;
            j->left_keys = floe_calloc((size_t)nd + 1, sizeof(floe_expr *));
            j->right_keys = floe_calloc((size_t)nd + 1, sizeof(floe_expr *));
            if (!j->left_keys || !j->right_keys) st = oom();
            for (int32_t i = 0; i < nd && !st; i++) {
                j->left_keys[i] = floe_expr_retain(dex.v[i]);
                st = floe_expr_column(nv + i, &j->right_keys[i]);
                j->n_keys = i + 1;
            }
            if (!st && on && !floe_sqlx_is_true(on)) j->predicate = floe_expr_retain(on);
        }
    }
    floe_expr_release(on);
    floe_lplan_free(p);
    floe_lplan_free(jn);
    floe_lplan_free(r.plan);
    bind_scope_free(&r.scope);
    bind_result_free(&inner);
    bind_result_free(left);
    elist_free(&dex);
    elist_free(&sel);
    if (st) bind_result_free(out);
    return st;
}

/* -------------------------------------- generate_series over columns */

static bool reads_columns(const json_t *j) {
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) {
            if (!strcmp(k, "ColumnRef") || !strcmp(k, "SubLink")) return true;
            if (reads_columns(v)) return true;
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) if (reads_columns(v)) return true;
    }
    return false;
}

bool bind_is_lateral_series(const json_t *rf) {
    json_t *fns = floe_pg_get(rf, "functions");
    json_t *pair = floe_pg_get(floe_pg_as(floe_pg_list_at(fns, 0), "List"), "items");
    json_t *fc = floe_pg_as(floe_pg_list_at(pair, 0), "FuncCall");
    json_t *names = floe_pg_get(fc, "funcname");
    const char *fname = floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
    return fc && fname && !strcmp(fname, "generate_series") && reads_columns(floe_pg_get(fc, "args"));
}

floe_status bind_lateral_series(floe_session *s, bind_result *left, const json_t *rf, bind_result *out) {
    memset(out, 0, sizeof(*out));
    json_t *fns = floe_pg_get(rf, "functions");
    json_t *pair = floe_pg_get(floe_pg_as(floe_pg_list_at(fns, 0), "List"), "items");
    json_t *fc = floe_pg_as(floe_pg_list_at(pair, 0), "FuncCall");
    json_t *args = floe_pg_get(fc, "args");
    int32_t n = floe_pg_list_len(args), loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    json_t *alias = floe_pg_get(rf, "alias");
    const char *qual = floe_pg_get_str(alias, "aliasname");
    floe_status st = NULL;
    if (floe_pg_list_len(fns) != 1 || n < 2 || n > 3)
        st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "generate_series takes 2 or 3 arguments");
    floe_expr *a[3] = {NULL, NULL, NULL};
    bind_ectx c;
    bind_ectx_init(&c, s, &left->scope, left->plan->schema, "generate_series arguments");
    for (int32_t i = 0; i < n && !st; i++) {
        floe_expr *e = NULL;
        floe_type *t = NULL;
        st = bind_expr(&c, floe_pg_list_at(args, i), &e);
        if (!st) st = floe_expr_type(e, left->plan->schema, &t);
        if (!st && t->id != FLOE_TYPE_INT64 && t->id != FLOE_TYPE_INT32 && t->id != FLOE_TYPE_NULL)
            st = bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                            "generate_series over columns is supported for integer arguments only, not %s",
                            floe_type_id_name(t->id));
        if (!st && t->id != FLOE_TYPE_INT64) st = floe_expr_cast(e, floe_type_primitive(FLOE_TYPE_INT64), &a[i]);
        else if (!st) a[i] = floe_expr_retain(e);
        floe_type_release(t);
        floe_expr_release(e);
    }
    bind_ectx_clear(&c);
    if (!st && n == 2) st = floe_expr_lit_int64(1, &a[2]);
    /* The column is named after the alias, as for the constant form. */
    const char *col = qual ? qual : "generate_series";
    json_t *colnames = floe_pg_get(alias, "colnames");
    if (floe_pg_list_len(colnames) > 0) col = floe_pg_string(floe_pg_list_at(colnames, 0));
    floe_schema *schema = NULL;
    if (!st) {
        int32_t nl = ncols(left->plan);
        floe_field *f = floe_calloc((size_t)nl + 1, sizeof *f);
        if (!f) st = oom();
        for (int32_t i = 0; i < nl && !st; i++) {
            const floe_field *in = floe_schema_field(left->plan->schema, i);
            st = floe_field_init(&f[i], in->name, in->type, in->nullable, in->field_id);
        }
        if (!st) st = floe_field_init(&f[nl], col, floe_type_primitive(FLOE_TYPE_INT64), false, -1);
        if (!st) st = floe_type_struct(f, nl + 1, &schema);
        for (int32_t i = 0; f && i <= nl; i++) floe_field_clear(&f[i]);
        floe_free(f);
    }
    floe_lplan *p = NULL;
    if (!st) {
        st = floe_lplan_new(FLOE_L_SERIES_APPLY, schema, (floe_lplan *[]){left->plan}, 1, &p);
        left->plan = NULL;
    }
    floe_type_release(schema);
    if (!st) {
        p->exprs = floe_calloc(3, sizeof(floe_expr *));
        p->names = floe_calloc(3, sizeof(char *));
        if (!p->exprs || !p->names) st = oom();
        for (int32_t i = 0; i < 3 && !st; i++) {
            p->exprs[i] = floe_expr_retain(a[i]);
            p->n_exprs = i + 1;
        }
        if (!st && !(p->names[0] = floe_strdup(col))) st = oom();
    }
    if (!st) st = bind_scope_append(&out->scope, &left->scope);
    if (!st) st = bind_scope_add(&out->scope, qual ? qual : "generate_series", col, false);
    for (int32_t i = 0; i < 3; i++) floe_expr_release(a[i]);
    bind_result_free(left);
    if (st) {
        floe_lplan_free(p);
        bind_scope_free(&out->scope);
        return st;
    }
    out->plan = p;
    return NULL;
}
