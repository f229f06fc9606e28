/*
 * bind_order.c — ORDER BY, LIMIT and OFFSET: items that name select-list
 * outputs (ordinals, output names; GROUP BY resolves its items the same
 * way), sort keys with PostgreSQL's NULL order, LIMIT / OFFSET constants,
 * and the top of the plan (Sort, Limit, then a projection dropping hidden
 * sort columns), for a SELECT and over the output of set operations and
 * VALUES.
 */
#include <string.h>

#include "base/str.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

/* --------------------------------------------------- ORDER BY, LIMIT */

static bool is_bare_name(const json_t *node, const char **name) {
    json_t *cr = floe_pg_as(node, "ColumnRef");
    json_t *f = floe_pg_get(cr, "fields");
    if (!cr || floe_pg_list_len(f) != 1) return false;
    *name = floe_pg_string(floe_pg_list_at(f, 0));
    return *name != NULL;
}

/* Resolve an ORDER BY / GROUP BY item to a select-list index: an ordinal
 * or (prefer_output) a bare name equal to one output name.  -1: neither. */
floe_status bind_output_ref(floe_session *s, const json_t *node, const sel_item *items, int32_t n, bool by_name,
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
int32_t bind_alias_ref(const json_t *node, const bind_scope *sc, const sel_item *items, int32_t n) {
    const char *name;
    if (!is_bare_name(node, &name)) return -1;
    for (int32_t k = 0; k < sc->n; k++)
        if (!sc->cols[k].hidden && !strcmp(sc->cols[k].name, name)) return -1;
    for (int32_t i = 0; i < n; i++)
        if (items[i].node && !strcmp(items[i].name, name)) return i;
    return -1;
}

floe_status bind_sort_key_of(const json_t *sortby, floe_expr *e, floe_sort_key *k) {
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

floe_status bind_limit_value(floe_session *s, const json_t *node, const char *what, int64_t *v) {
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
floe_status bind_finish_query(floe_session *s, const json_t *body, floe_lplan **plan, const floe_sort_key *keys,
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
    FLOE_TRY(bind_limit_value(s, floe_pg_get(body, "limitCount"), "LIMIT", &fetch));
    FLOE_TRY(bind_limit_value(s, floe_pg_get(body, "limitOffset"), "OFFSET", &offset));
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

/* ORDER BY / LIMIT of a set operation or VALUES: over the output columns. */
floe_status bind_order_over_output(floe_session *s, const json_t *body, bind_result *r) {
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
        st = bind_output_ref(s, node, items, n_out, true, &idx);
        if (!st) st = idx >= 0 ? floe_expr_column(idx, &e) : bind_expr(&c, node, &e);
        if (!st && (e->kind != FLOE_EXPR_COLUMN))
            st = bind_error(s, floe_pg_location(node), FLOE_ERR_UNSUPPORTED,
                            "ORDER BY of a set operation must name an output column");
        if (!st) st = bind_sort_key_of(sb, e, &keys[n_keys]);
        if (!st) n_keys++;
        else floe_expr_release(e);
    }
    bind_ectx_clear(&c);
    if (items) bind_items_free(items, n_out);
    if (!st) st = bind_finish_query(s, body, &r->plan, keys, n_keys, n_out, &r->scope);
    for (int32_t i = 0; i < n_keys; i++) floe_expr_release(keys[i].expr);
    floe_free(keys);
    return st;
}
