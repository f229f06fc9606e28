/*
 * bind_distinct_on.c — SELECT DISTINCT ON (exprs): PostgreSQL's first row
 * per distinct value of exprs, "first" in ORDER BY order.  The expressions
 * become columns of the query's projection (hidden when not selected),
 * the rows are sorted by the ORDER BY (followed by the DISTINCT ON columns
 * it does not name) and a DISTINCT_ON node keeps the first row of each run
 * of equal keys (exec/basic/distinct_on.c).  The sort runs in parallel and
 * merges into one ordered stream, so the pick is the same at any
 * parallelism.
 */
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

floe_status bind_distinct_on_exprs(bind_ectx *c, const json_t *dc, const sel_item *items, int32_t n_items,
                                   floe_expr *const *sel, floe_expr **hidden, int32_t *n_hidden,
                                   const floe_sort_key *keys, int32_t n_keys, int32_t *don) {
    int32_t n = floe_pg_list_len(dc);
    const char *saved = c->clause;
    c->clause = "DISTINCT ON";
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        json_t *node = floe_pg_list_at(dc, i);
        int32_t idx = -1;
        st = bind_output_ref(c->s, node, items, n_items, true, &idx);
        if (st || idx >= 0) {
            don[i] = idx;
            continue;
        }
        floe_expr *e = NULL;
        st = bind_expr(c, node, &e);
        if (st) break;
        for (int32_t k = 0; k < n_items && idx < 0; k++)
            if (bind_expr_equal(sel[k], e)) idx = k;
        for (int32_t k = 0; k < *n_hidden && idx < 0; k++)
            if (bind_expr_equal(hidden[k], e)) idx = n_items + k;
        if (idx < 0) {
            hidden[*n_hidden] = e;
            idx = n_items + (*n_hidden)++;
        } else {
            floe_expr_release(e);
        }
        don[i] = idx;
    }
    c->clause = saved;
    if (st) return st;
    /* PostgreSQL: the ORDER BY may start with the DISTINCT ON expressions
     * in any order (or be shorter); a different expression before all of
     * them are named is an error. */
    int32_t prefix = 0;
    for (; prefix < n_keys; prefix++) {
        bool in = false;
        for (int32_t i = 0; i < n && !in; i++) in = keys[prefix].expr->column == don[i];
        if (!in) break;
    }
    if (prefix == n_keys) return NULL;
    for (int32_t i = 0; i < n; i++) {
        bool named = false;
        for (int32_t k = 0; k < prefix && !named; k++) named = keys[k].expr->column == don[i];
        if (!named)
            return bind_error(c->s, floe_pg_location(floe_pg_list_at(dc, i)), FLOE_ERR_INVALID_ARGUMENT,
                              "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
    }
    return NULL;
}

floe_status bind_distinct_on_plan(floe_lplan **plan, const floe_sort_key *keys, int32_t n_keys, const int32_t *don,
                                  int32_t n_don) {
    floe_lplan *in[1] = {*plan};
    floe_lplan *sp = NULL;
    floe_status st = floe_lplan_new(FLOE_L_SORT, (*plan)->schema, in, 1, &sp);
    *plan = sp;
    if (st) return st;
    sp->sort_keys = floe_calloc((size_t)(n_keys + n_don) + 1, sizeof(floe_sort_key));
    if (!sp->sort_keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n_keys; i++) {
        sp->sort_keys[sp->n_sort_keys] = keys[i];
        floe_expr_retain(keys[i].expr);
        sp->n_sort_keys++;
    }
    for (int32_t i = 0; i < n_don; i++) {
        bool have = false;
        for (int32_t k = 0; k < sp->n_sort_keys && !have; k++) have = sp->sort_keys[k].expr->column == don[i];
        if (have) continue;
        floe_sort_key *k = &sp->sort_keys[sp->n_sort_keys];
        FLOE_TRY(floe_expr_column(don[i], &k->expr));
        k->descending = false;
        k->nulls_first = false;
        sp->n_sort_keys++;
    }
    /* The distinct key columns, each once. */
    floe_lplan *dp = NULL;
    in[0] = sp;
    FLOE_TRY(floe_lplan_new(FLOE_L_DISTINCT_ON, sp->schema, in, 1, &dp));
    *plan = dp;
    dp->exprs = floe_calloc((size_t)n_don + 1, sizeof(floe_expr *));
    if (!dp->exprs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n_don; i++) {
        bool dup = false;
        for (int32_t k = 0; k < dp->n_exprs && !dup; k++) dup = dp->exprs[k]->column == don[i];
        if (dup) continue;
        FLOE_TRY(floe_expr_column(don[i], &dp->exprs[dp->n_exprs]));
        dp->n_exprs++;
    }
    return NULL;
}
