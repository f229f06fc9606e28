/*
 * bind_query.c — SELECT statements into logical plans: FROM, WHERE (with
 * IN/EXISTS subqueries as semi/anti joins and WHERE conditions of comma
 * joins moved into the joins), GROUP BY / aggregates / HAVING, the select
 * list and DISTINCT; and bind_select, the entry for any query, with WITH.
 * The rest is in the files bind_query_internal.h lists: ORDER BY and
 * LIMIT/OFFSET (bind_order.c), subqueries (bind_subquery.c), VALUES and
 * set operations (bind_setop.c).
 *
 * The shape built for a plain SELECT, bottom to top:
 *   FROM → [semi/anti joins] → FILTER → [AGGREGATE → FILTER(HAVING)] →
 *   PROJECT(select list ++ hidden ORDER BY keys) → [DISTINCT] → [SORT] →
 *   [LIMIT] → [PROJECT dropping the hidden keys]
 */
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

void bind_result_free(bind_result *r) {
    floe_lplan_free(r->plan);
    r->plan = NULL;
    bind_scope_free(&r->scope);
}

const json_t *bind_select_body(const json_t *node) {
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

floe_status bind_filter_node(floe_lplan *input, floe_expr *pred, floe_lplan **out) {
    floe_lplan *in[1] = {input};
    FLOE_TRY(floe_lplan_new(FLOE_L_FILTER, input->schema, in, 1, out));
    (*out)->predicate = floe_expr_retain(pred);
    return NULL;
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
    floe_status st = bind_filter_node(j, local, &f);
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

/* sel_item is in bind_query_internal.h: ORDER BY reads the select list too. */

void bind_items_free(sel_item *items, int32_t n) {
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
                if ((sc->cols[k].hidden && !(qual && sc->cols[k].using_side)) || sc->cols[k].system) continue;
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
        bind_items_free(items, n);
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
floe_status bind_rewrite_over_agg(bind_ectx *c, const floe_expr *e, floe_expr *const *groups, int32_t ng,
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
        st = bind_rewrite_over_agg(c, e->args[i], groups, ng, extra_col, item, &args[i]);
    if (!st) st = bind_expr_with_args(e, args, e->n_args, out);
    bind_expr_list_free(args, e->n_args);
    return st;
}

floe_status bind_group_key(bind_ectx *c, const json_t *g, const sel_item *items, int32_t n_items, floe_expr **groups,
                           int32_t *n_groups, int32_t *index) {
    floe_session *s = c->s;
    int32_t idx = -1;
    floe_expr *e = NULL;
    *index = -1;
    FLOE_TRY(bind_output_ref(s, g, items, n_items, false, &idx));
    if (idx < 0) idx = bind_alias_ref(g, c->sc, items, n_items);
    FLOE_TRY(idx >= 0 ? bind_item(c, &items[idx], &e) : bind_expr(c, g, &e));
    int32_t lo = INT32_MAX, hi = -1;
    bind_expr_column_range(e, &lo, &hi);
    if (hi >= c->n_from) {
        floe_expr_release(e);
        return bind_error(s, floe_pg_location(g), FLOE_ERR_INVALID_ARGUMENT,
                          "aggregate functions are not allowed in GROUP BY");
    }
    for (int32_t k = 0; k < *n_groups; k++)
        if (bind_expr_equal(groups[k], e)) {
            floe_expr_release(e);
            *index = k;
            return NULL;
        }
    *index = *n_groups;
    groups[(*n_groups)++] = e;
    return NULL;
}

floe_status bind_simple_select(floe_session *s, const json_t *body, bind_result *out) {
    /* subqueries inside aggregates' arguments: computed below (bind_agg_sublink.c) */
    if (bind_agg_has_arg_sublink(body)) return bind_agg_arg_sublinks(s, body, out);
    /* subqueries above an aggregate: two levels (bind_split_agg.c) */
    if (bind_agg_needs_split(body)) return bind_split_aggregate(s, body, out);
    return bind_simple_select_over(s, body, NULL, out);
}

floe_status bind_simple_select_over(floe_session *s, const json_t *body, bind_result *pre, bind_result *out) {
    memset(out, 0, sizeof(*out));
    bind_result from;
    floe_status st;
    if (pre) {
        from = *pre;
        memset(pre, 0, sizeof(*pre));
    } else if (floe_pg_list_len(floe_pg_get(body, "fromClause")) > 0) {
        FLOE_TRY(bind_from(s, floe_pg_get(body, "fromClause"), &from));
    } else {
        memset(&from, 0, sizeof(from));
        FLOE_TRY(one_row(&from.plan));
    }
    json_t *dc = floe_pg_get(body, "distinctClause");
    bool distinct = floe_pg_list_len(dc) > 0;
    /* DISTINCT ON (exprs): the first row per value of exprs in ORDER BY
     * order (bound below, after ORDER BY); not a plain DISTINCT. */
    bool distinct_on = distinct && floe_pg_node_kind(floe_pg_list_at(dc, 0));
    int32_t n_don = distinct_on ? floe_pg_list_len(dc) : 0, *don = NULL;
    if (distinct_on) distinct = false;
    floe_lplan *plan = from.plan;
    bind_scope sc = from.scope;
    sel_item *items = NULL;
    int32_t n_items = 0;
    floe_expr **conds = NULL, **sel = NULL, **groups = NULL, *having = NULL;
    floe_sort_key *keys = NULL;
    int32_t n_conds = 0, n_groups = 0, n_keys = 0, n_hidden = 0;
    floe_expr **hidden = NULL;
    int32_t *extra_col = NULL, win_base = 0;
    bind_windows *wins = NULL;
    floe_expr *qualify = NULL;
    bind_grouping gr;
    memset(&gr, 0, sizeof gr);
    bind_ectx c;
    bind_ectx_init(&c, s, &sc, plan->schema, "WHERE");
    c.from_clause = floe_pg_get(body, "fromClause");

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
            st = bind_filter_node(plan, pred, &f);
            plan = f;
        }
        floe_expr_release(pred);
    }
    if (rest) bind_expr_list_free(rest, n_rest);
    for (int32_t i = 0; i < n_subq && !st; i++) {
        bool done = false;
        st = bind_subquery_predicate(s, &plan, &sc, subq[i], &done);
        if (st || done) continue;
        /* not a semi / anti join: filter on its value (bind_decorrelate.c) */
        bind_ectx vc;
        bind_ectx_init(&vc, s, &sc, plan->schema, "WHERE");
        vc.plan = &plan;
        vc.from_clause = floe_pg_get(body, "fromClause");
        floe_expr *e = NULL;
        st = bind_predicate(&vc, subq[i], &e);
        bind_ectx_clear(&vc);
        floe_lplan *f = NULL;
        if (!st) {
            st = bind_filter_node(plan, e, &f);
            plan = f;
        }
        floe_expr_release(e);
    }
    floe_free(subq);
    if (st) goto done;
    /* The schema may have grown (scalar subqueries in WHERE). */
    bind_ectx_clear(&c);
    bind_ectx_init(&c, s, &sc, plan->schema, "SELECT");
    c.from_clause = floe_pg_get(body, "fromClause");

    /* ---- the select list */
    st = bind_windows_new(s, body, &wins);
    if (!st) st = expand_targets(s, floe_pg_get(body, "targetList"), &sc, &items, &n_items);
    if (st) goto done;
    json_t *gl = floe_pg_get(body, "groupClause");
    json_t *hv = floe_pg_get(body, "havingClause");
    json_t *sl = floe_pg_get(body, "sortClause");
    bool agg = floe_pg_list_len(gl) > 0 || hv || bind_has_aggregate(floe_pg_get(body, "targetList")) ||
               bind_has_aggregate(sl);
    sel = floe_calloc((size_t)n_items + 1, sizeof(floe_expr *));
    int32_t n_sl = floe_pg_list_len(sl);
    keys = floe_calloc((size_t)n_sl + 1, sizeof(floe_sort_key));
    hidden = floe_calloc((size_t)(n_sl + n_don) + 1, sizeof(floe_expr *));
    don = floe_calloc((size_t)n_don + 1, sizeof(int32_t));
    if (!sel || !keys || !hidden || !don) {
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
        if (bind_group_has_sets(body)) {
            floe_free(groups);
            groups = NULL;
            st = bind_grouping_sets(&c, body, items, n_items, &groups, &n_groups, &gr);
            if (!st) c.gsets = &gr.g;
        }
        for (int32_t i = 0; i < ngl && !st && !c.gsets; i++) {
            int32_t idx = -1;
            st = bind_group_key(&c, floe_pg_list_at(gl, i), items, n_items, groups, &n_groups, &idx);
        }
        if (!st && !c.gsets) {
            gr.g.keys = groups;
            gr.g.n_keys = n_groups;
            gr.g.id_column = -1;
            c.gsets = &gr.g;
        }
        c.agg_mode = true;
    }
    c.plan = agg ? NULL : &plan;
    c.clause = "SELECT";
    c.windows = wins; /* window calls: SELECT list and ORDER BY */
    c.allow_srf = true; /* unnest(xs) in the select list: bind_unnest.c */
    for (int32_t i = 0; i < n_items && !st; i++) st = bind_item(&c, &items[i], &sel[i]);
    c.allow_srf = false;
    c.windows = NULL;
    if (!st && hv) {
        c.clause = "HAVING";
        st = bind_predicate(&c, hv, &having);
    }
    c.windows = wins;
    /* ORDER BY: an output column, or an expression over the input. */
    int32_t *key_out = floe_calloc((size_t)n_sl + 1, sizeof(int32_t));
    if (!key_out && !st) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    c.clause = "ORDER BY";
    for (int32_t i = 0; i < n_sl && !st; i++) {
        json_t *sb = floe_pg_as(floe_pg_list_at(sl, i), "SortBy");
        json_t *node = floe_pg_get(sb, "node");
        int32_t idx = -1;
        st = bind_output_ref(s, node, items, n_items, true, &idx);
        if (st) break;
        if (idx < 0) {
            floe_expr *e = NULL;
            c.allow_srf = true; /* ORDER BY unnest(xs): the select list's call, or one more in lockstep */
            st = bind_expr(&c, node, &e);
            c.allow_srf = false;
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
        if (!st) st = bind_at(s, floe_pg_location(node), bind_sort_key_of(sb, ke, &keys[n_keys]));
        if (!st) n_keys++;
        else floe_expr_release(ke);
    }
    floe_free(key_out);
    /* QUALIFY (DuckDB): a filter on the window results */
    if (!st) st = bind_qualify(&c, body, &qualify);
    c.windows = NULL;
    if (st) goto done;
    if (distinct_on) st = bind_distinct_on_exprs(&c, dc, items, n_items, sel, hidden, &n_hidden, keys, n_keys, don);
    if (st) goto done;

    /* ---- aggregation */
    if (agg) {
        int32_t n_aggs = 0, n_sub = 0;
        for (int32_t i = 0; i < c.n_extras; i++) {
            if (c.extras[i].is_agg) n_aggs++;
            else n_sub++;
        }
        (void)n_sub;
        if (gr.n_sets > 0) {
            /* GROUPING SETS: an Expand below the aggregate (bind_grouping.c). */
            st = bind_grouping_aggregate(&c, &plan, groups, n_groups, &gr, &extra_col);
            goto aggregated;
        }
        extra_col = floe_calloc((size_t)c.n_extras + 1, sizeof(int32_t));
        floe_field *f = floe_calloc((size_t)(n_groups + n_aggs) + 1, sizeof(floe_field));
        floe_schema *as = NULL;
        if (!extra_col || !f) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0, a = 0, q = 0; i < c.n_extras && !st; i++)
            extra_col[i] = c.extras[i].is_window || c.extras[i].is_srf ? -1
                           : c.extras[i].is_agg                      ? n_groups + a++
                                                                     : n_groups + n_aggs + q++;
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
                memset(&c.extras[i].agg, 0, sizeof c.extras[i].agg);
            }
        }
        if (gnames) {
            for (int32_t i = 0; i < n_groups; i++) floe_free(gnames[i]);
            floe_free(gnames);
        }
    aggregated:
        /* Scalar subqueries of the SELECT list / HAVING join here. */
        for (int32_t i = 0; i < c.n_extras && !st; i++) {
            if (c.extras[i].is_agg || c.extras[i].is_window || c.extras[i].is_grouping_id || c.extras[i].is_srf)
                continue;
            floe_lplan *j = NULL;
            floe_lplan *sq = c.extras[i].subquery;
            c.extras[i].subquery = NULL;
            st = bind_make_join(plan, sq, c.extras[i].one_row ? FLOE_JOIN_INNER : FLOE_JOIN_LEFT, NULL, &j);
            plan = j;
        }
        /* Window results come after the aggregate's (and subqueries') columns. */
        if (!st) bind_windows_place(&c, wins, floe_schema_num_fields(plan->schema), extra_col);
        if (!st && having) {
            floe_expr *e = NULL;
            st = bind_rewrite_over_agg(&c, having, groups, n_groups, extra_col, NULL, &e);
            floe_lplan *fp = NULL;
            if (!st) {
                st = bind_filter_node(plan, e, &fp);
                plan = fp;
            }
            floe_expr_release(e);
        }
        if (!st) st = bind_windows_build(&c, wins, &plan, groups, n_groups, extra_col);
        if (!st && qualify) {
            floe_expr *e = NULL;
            st = bind_rewrite_over_agg(&c, qualify, groups, n_groups, extra_col, NULL, &e);
            floe_lplan *fp = NULL;
            if (!st) {
                st = bind_filter_node(plan, e, &fp);
                plan = fp;
            }
            floe_expr_release(e);
        }
        /* unnest() calls of the select list over all of it (bind_unnest.c) */
        if (!st) st = bind_srf_apply(&c, &plan, wins, 0, groups, n_groups, extra_col, NULL, 0, NULL, 0);
        /* Everything above reads the aggregate's output. */
        for (int32_t i = 0; i < n_items && !st; i++) {
            floe_expr *e = NULL;
            st = bind_rewrite_over_agg(&c, sel[i], groups, n_groups, extra_col, &items[i], &e);
            if (!st) {
                floe_expr_release(sel[i]);
                sel[i] = e;
            }
        }
        for (int32_t i = 0; i < n_hidden && !st; i++) {
            floe_expr *e = NULL;
            st = bind_rewrite_over_agg(&c, hidden[i], groups, n_groups, extra_col, NULL, &e);
            if (!st) {
                floe_expr_release(hidden[i]);
                hidden[i] = e;
            }
        }
        if (st) goto done;
    } else if (bind_windows_count(wins) > 0) {
        /* ---- window functions over the FROM / WHERE rows (with unnest()
         * calls, bind_srf_apply remaps the select list for both) */
        win_base = floe_schema_num_fields(plan->schema);
        st = bind_windows_build(&c, wins, &plan, NULL, 0, NULL);
        if (!st && c.n_srf == 0) st = bind_windows_remap(&c, wins, win_base, sel, n_items);
        if (!st && c.n_srf == 0) st = bind_windows_remap(&c, wins, win_base, hidden, n_hidden);
        if (!st && qualify) st = bind_windows_remap(&c, wins, win_base, &qualify, 1);
        if (st) goto done;
    }
    if (!agg && qualify) {
        floe_lplan *fp = NULL;
        st = bind_filter_node(plan, qualify, &fp);
        plan = fp;
        if (st) goto done;
    }
    if (!agg && c.n_srf > 0) {
        st = bind_srf_apply(&c, &plan, wins, win_base, NULL, 0, NULL, sel, n_items, hidden, n_hidden);
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
    if (!st && distinct_on) {
        /* Sorted by ORDER BY (then the DISTINCT ON columns it lacks), the
         * first row of each run; that order is also the query's, so the
         * ORDER BY is not sorted for again. */
        st = bind_distinct_on_plan(&plan, keys, n_keys, don, n_don);
        if (!st) st = bind_finish_query(s, body, &plan, NULL, 0, n_items, &out->scope);
    } else if (!st) {
        st = bind_finish_query(s, body, &plan, keys, n_keys, n_items, &out->scope);
    }

done:
    floe_free(don);
    bind_ectx_clear(&c);
    bind_windows_free(wins);
    floe_expr_release(qualify);
    if (conds) bind_expr_list_free(conds, n_conds);
    if (sel) bind_expr_list_free(sel, n_items);
    if (groups) bind_expr_list_free(groups, n_groups);
    if (hidden) bind_expr_list_free(hidden, n_hidden);
    for (int32_t i = 0; i < n_keys; i++) floe_expr_release(keys[i].expr);
    floe_free(keys);
    floe_free(extra_col);
    floe_expr_release(having);
    bind_grouping_clear(&gr);
    if (items) bind_items_free(items, n_items);
    bind_scope_free(&sc);
    if (st) {
        floe_lplan_free(plan);
        bind_scope_free(&out->scope);
        return st;
    }
    out->plan = plan;
    return NULL;
}

/* ----------------------------------------------------------------- WITH */

floe_status bind_select(floe_session *s, const json_t *query, bind_result *out) {
    memset(out, 0, sizeof(*out));
    const json_t *body = bind_select_body(query);
    if (!body) {
        const char *k = floe_pg_node_kind(query);
        return bind_error(s, floe_pg_location(query), FLOE_ERR_UNSUPPORTED, "%s is not a query", k ? k : "this");
    }
    /* WITH: the names its queries declare (bind_cte.c). */
    json_t *with = floe_pg_get(body, "withClause");
    struct bind_cte *saved = s->ctes;
    struct bind_cte *frames = NULL;
    floe_status st = with ? bind_with_begin(s, with, body, &frames) : NULL;
    const char *op = floe_pg_get_str(body, "op");
    if (st) {
    } else if (floe_pg_get(body, "valuesLists")) {
        st = bind_values(s, body, out);
        if (!st) st = bind_order_over_output(s, body, out);
    } else if (op && strcmp(op, "SETOP_NONE") != 0) {
        st = bind_set_op(s, body, out);
        if (!st) st = bind_order_over_output(s, body, out);
    } else {
        if (floe_pg_get(body, "intoClause"))
            st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "SELECT INTO is not supported");
        else if (floe_pg_get(body, "lockingClause"))
            st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "FOR UPDATE / FOR SHARE is not supported");
        else
            st = bind_simple_select(s, body, out);
    }
    s->ctes = saved;
    if (frames) st = bind_with_end(s, frames, with, st, &out->plan);
    if (st) bind_result_free(out);
    return st;
}

floe_status floe_sql_bind_query(floe_session *s, const json_t *query, floe_lplan **out) {
    *out = NULL;
    bind_result r;
    void *saved = s->ctes;
    s->ctes = NULL;
    bind_cte_keys_reset();
    floe_status st = bind_select(s, query, &r);
    s->ctes = saved;
    if (st) return st;
    bind_scope_free(&r.scope);
    *out = r.plan;
    return NULL;
}
