/*
 * bind_cte_search.c — WITH RECURSIVE's SEARCH and CYCLE clauses
 * (PostgreSQL 14+), as PostgreSQL 15 rewrites them:
 *
 *   SEARCH DEPTH FIRST BY a, b SET seq    seq is an array of rows: the
 *       non-recursive term gives ARRAY[ROW(a, b)], the recursive term the
 *       working row's seq || ROW(a, b); ORDER BY seq is depth-first order.
 *   SEARCH BREADTH FIRST BY a, b SET seq  seq is ROW(depth, a, b): 0 in the
 *       non-recursive term, the working row's depth + 1 in the recursive.
 *   CYCLE a, b SET mark [TO v DEFAULT d] USING path
 *       mark is d (false) in the non-recursive term; in the recursive term
 *       v (true) when ROW(a, b) is already in the working row's path (rows
 *       equal field by field, NULLs equal), else d; path is the rows seen
 *       (ARRAY[ROW(a, b)], then path || ROW(a, b)); working rows whose mark
 *       is v are not expanded (mark <> v filters the recursive term).
 *   The added columns follow the query's own: seq, then mark and path.
 *
 * bind_cte.c calls these around its binding of the two terms: the
 * non-recursive term's plan gets the new columns by a projection; the
 * recursive term's select list (a copy of its parse tree) gets the working
 * table's added columns appended, and after it is bound and cast to the
 * non-recursive term's types a filter and a projection compute the new
 * values from them.  floe's rows are structs (named by the columns), arrays
 * lists; their order and equality are exec/sort's (PostgreSQL's).
 */
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory"); }

static const json_t *search_of(const json_t *cte) {
    const json_t *v = floe_pg_get(cte, "search_clause");
    const json_t *b = floe_pg_as(v, "CTESearchClause");
    return b ? b : v;
}

static const json_t *cycle_of(const json_t *cte) {
    const json_t *v = floe_pg_get(cte, "cycle_clause");
    const json_t *b = floe_pg_as(v, "CTECycleClause");
    return b ? b : v;
}

bool bind_sc_present(const json_t *cte) { return search_of(cte) || cycle_of(cte); }

/* Number of columns the clauses add (seq; mark and path). */
static int32_t n_added(const json_t *cte) { return (search_of(cte) ? 1 : 0) + (cycle_of(cte) ? 2 : 0); }

static int32_t col_index(const bind_scope *sc, int32_t n, const char *name) {
    for (int32_t i = 0; i < n; i++)
        if (sc->cols[i].name && name && strcmp(sc->cols[i].name, name) == 0) return i;
    return -1;
}

/* PostgreSQL's checks of the clauses against the query's column names
 * (the first n of sc).  An added column named like one of the query's is
 * refused by name here; PostgreSQL fails later, on the ambiguous name in
 * its rewritten recursive term. */
static floe_status check(floe_session *s, const json_t *cte, const bind_scope *sc, int32_t n, int32_t loc) {
    const json_t *se = search_of(cte), *cy = cycle_of(cte);
    int32_t l = (int32_t)floe_pg_get_int(se ? se : cy, "location", loc);
    for (int32_t which = 0; which < 2; which++) {
        const json_t *cl = which ? cy : se;
        if (!cl) continue;
        const char *what = which ? "cycle" : "search";
        const json_t *cols = floe_pg_get(cl, which ? "cycle_col_list" : "search_col_list");
        int32_t k = floe_pg_list_len(cols);
        int32_t cl_loc = (int32_t)floe_pg_get_int(cl, "location", loc);
        for (int32_t i = 0; i < k; i++) {
            const char *c = floe_pg_string(floe_pg_list_at(cols, i));
            if (col_index(sc, n, c) < 0)
                return bind_error(s, cl_loc, FLOE_ERR_INVALID_ARGUMENT, "%s column \"%s\" not in WITH query column list",
                                  what, c ? c : "?");
            for (int32_t j = 0; j < i; j++) {
                const char *d = floe_pg_string(floe_pg_list_at(cols, j));
                if (d && c && !strcmp(c, d))
                    return bind_error(s, cl_loc, FLOE_ERR_INVALID_ARGUMENT, "%s column \"%s\" specified more than once",
                                      what, c);
            }
        }
    }
    const char *seq = se ? floe_pg_get_str(se, "search_seq_column") : NULL;
    const char *mark = cy ? floe_pg_get_str(cy, "cycle_mark_column") : NULL;
    const char *path = cy ? floe_pg_get_str(cy, "cycle_path_column") : NULL;
    if (seq && col_index(sc, n, seq) >= 0)
        return bind_error(s, l, FLOE_ERR_INVALID_ARGUMENT,
                          "search sequence column name \"%s\" already used in WITH query column list", seq);
    if (cy) {
        int32_t cl = (int32_t)floe_pg_get_int(cy, "location", loc);
        if (mark && col_index(sc, n, mark) >= 0)
            return bind_error(s, cl, FLOE_ERR_INVALID_ARGUMENT,
                              "cycle mark column name \"%s\" already used in WITH query column list", mark);
        if (path && col_index(sc, n, path) >= 0)
            return bind_error(s, cl, FLOE_ERR_INVALID_ARGUMENT,
                              "cycle path column name \"%s\" already used in WITH query column list", path);
        if (mark && path && !strcmp(mark, path))
            return bind_error(s, cl, FLOE_ERR_INVALID_ARGUMENT,
                              "cycle mark column name and cycle path column name are the same");
    }
    if (seq && mark && !strcmp(seq, mark))
        return bind_error(s, l, FLOE_ERR_INVALID_ARGUMENT,
                          "search sequence column name and cycle mark column name are the same");
    if (seq && path && !strcmp(seq, path))
        return bind_error(s, l, FLOE_ERR_INVALID_ARGUMENT,
                          "search sequence column name and cycle path column name are the same");
    return NULL;
}

floe_status bind_sc_check_form(floe_session *s, const json_t *cte, const json_t *body, int32_t loc) {
    const json_t *larg = floe_pg_get(body, "larg"), *rarg = floe_pg_get(body, "rarg");
    const json_t *l = bind_select_body(larg), *r = bind_select_body(rarg);
    const json_t *se = search_of(cte), *cy = cycle_of(cte);
    int32_t at = (int32_t)floe_pg_get_int(se ? se : cy, "location", loc);
    const char *lop = floe_pg_get_str(l, "op"), *rop = floe_pg_get_str(r, "op");
    if (!l || (lop && strcmp(lop, "SETOP_NONE") != 0))
        return bind_error(s, at, FLOE_ERR_UNSUPPORTED, "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT");
    if (!r || (rop && strcmp(rop, "SETOP_NONE") != 0))
        return bind_error(s, at, FLOE_ERR_UNSUPPORTED, "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT");
    return NULL;
}

/* ROW(cols...) over the columns named in list `cols` of the first n
 * columns of sc (input columns shifted by 0), optionally led by `lead`
 * named *DEPTH*. */
static floe_status make_row(const json_t *cols, const bind_scope *sc, int32_t n, floe_expr *lead, floe_expr **out) {
    int32_t k = floe_pg_list_len(cols), m = k + (lead ? 1 : 0);
    floe_expr **ev = floe_calloc((size_t)(2 * m + 1), sizeof *ev);
    if (!ev) return oom();
    floe_status st = NULL;
    int32_t o = 0;
    if (lead) {
        st = floe_expr_lit_string("*DEPTH*", &ev[o++]);
        ev[o++] = floe_expr_retain(lead);
    }
    for (int32_t i = 0; !st && i < k; i++) {
        const char *c = floe_pg_string(floe_pg_list_at(cols, i));
        st = floe_expr_lit_string(c ? c : "?", &ev[o++]);
        if (!st) st = floe_expr_column(col_index(sc, n, c), &ev[o++]);
    }
    if (!st) st = floe_expr_call("named_struct", ev, 2 * m, out);
    for (int32_t i = 0; i < 2 * m; i++) floe_expr_release(ev[i]);
    floe_free(ev);
    return st;
}

static floe_status call1(const char *fn, floe_expr *a, floe_expr **out) { return floe_expr_call(fn, &a, 1, out); }

static floe_status call2(const char *fn, floe_expr *a, floe_expr *b, floe_expr **out) {
    floe_expr *args[2] = {a, b};
    return floe_expr_call(fn, args, 2, out);
}

/* The cycle mark's value and default, cast to their common type. */
static floe_status mark_values(floe_session *s, const json_t *cy, const bind_result *r, floe_expr **v, floe_expr **d) {
    *v = *d = NULL;
    const json_t *vn = floe_pg_get(cy, "cycle_mark_value"), *dn = floe_pg_get(cy, "cycle_mark_default");
    if (!vn || !dn) {
        FLOE_TRY(floe_expr_lit_bool(true, v));
        return floe_expr_lit_bool(false, d);
    }
    bind_ectx c;
    bind_ectx_init(&c, s, (bind_scope *)&r->scope, r->plan->schema, "CYCLE");
    floe_type *tv = NULL, *td = NULL, *common = NULL;
    floe_status st = bind_expr(&c, vn, v);
    if (!st) st = bind_expr(&c, dn, d);
    if (!st) st = bind_type_of(&c, *v, &tv);
    if (!st) st = bind_type_of(&c, *d, &td);
    if (!st && !(common = bind_set_common_type(tv, td)))
        st = bind_error(s, floe_pg_location(dn), FLOE_ERR_TYPE, "CYCLE types %s and %s cannot be matched",
                        floe_type_pg_name(tv->id), floe_type_pg_name(td->id));
    for (int32_t i = 0; !st && i < 2; i++) {
        floe_expr **x = i ? d : v;
        floe_type *t = i ? td : tv;
        if (floe_type_equals(t, common)) continue;
        floe_expr *cast = NULL;
        st = t->id == FLOE_TYPE_NULL ? floe_expr_lit_null(common, &cast) : floe_expr_cast(*x, common, &cast);
        floe_expr_release(*x);
        *x = cast;
    }
    floe_type_release(tv);
    floe_type_release(td);
    floe_type_release(common);
    bind_ectx_clear(&c);
    if (st) {
        floe_expr_release(*v);
        floe_expr_release(*d);
        *v = *d = NULL;
    }
    return st;
}

/* Project plan's first n columns plus `k` added expressions named names. */
static floe_status project_added(floe_lplan **plan, int32_t n, floe_expr **added, char **names, int32_t k) {
    floe_expr **ex = floe_calloc((size_t)(n + k + 1), sizeof *ex);
    char **nm = floe_calloc((size_t)(n + k + 1), sizeof *nm);
    floe_status st = (ex && nm) ? NULL : oom();
    for (int32_t i = 0; !st && i < n; i++) {
        st = floe_expr_column(i, &ex[i]);
        nm[i] = floe_schema_field((*plan)->schema, i)->name;
    }
    for (int32_t i = 0; !st && i < k; i++) {
        ex[n + i] = floe_expr_retain(added[i]);
        nm[n + i] = names[i];
    }
    floe_lplan *p = NULL;
    if (!st) st = bind_make_project(*plan, ex, nm, n + k, &p);
    if (!st) *plan = p;
    if (ex) bind_expr_list_free(ex, n + k);
    floe_free(nm);
    return st;
}

static void names_of(const json_t *cte, char **names) {
    const json_t *se = search_of(cte), *cy = cycle_of(cte);
    int32_t k = 0;
    if (se) names[k++] = (char *)floe_pg_get_str(se, "search_seq_column");
    if (cy) {
        names[k++] = (char *)floe_pg_get_str(cy, "cycle_mark_column");
        names[k++] = (char *)floe_pg_get_str(cy, "cycle_path_column");
    }
}

floe_status bind_sc_anchor(floe_session *s, const json_t *cte, bind_result *a, int32_t loc) {
    int32_t n = a->scope.n;
    FLOE_TRY(check(s, cte, &a->scope, n, loc));
    const json_t *se = search_of(cte), *cy = cycle_of(cte);
    floe_expr *added[3] = {NULL, NULL, NULL}, *row = NULL, *zero = NULL, *dflt = NULL, *val = NULL;
    char *names[3] = {NULL, NULL, NULL};
    names_of(cte, names);
    int32_t k = 0;
    floe_status st = NULL;
    if (se && floe_pg_get_bool(se, "search_breadth_first")) {
        st = floe_expr_lit_int64(0, &zero);
        if (!st) st = make_row(floe_pg_get(se, "search_col_list"), &a->scope, n, zero, &added[k++]);
    } else if (se) {
        st = make_row(floe_pg_get(se, "search_col_list"), &a->scope, n, NULL, &row);
        if (!st) st = call1("list_value", row, &added[k++]);
        floe_expr_release(row);
        row = NULL;
    }
    if (!st && cy) st = mark_values(s, cy, a, &val, &dflt);
    if (!st && cy) {
        added[k++] = floe_expr_retain(dflt);
        st = make_row(floe_pg_get(cy, "cycle_col_list"), &a->scope, n, NULL, &row);
        if (!st) st = call1("list_value", row, &added[k++]);
    }
    if (!st) st = project_added(&a->plan, n, added, names, k);
    for (int32_t i = 0; !st && i < k; i++) st = bind_scope_add(&a->scope, NULL, names[i], false);
    for (int32_t i = 0; i < 3; i++) floe_expr_release(added[i]);
    floe_expr_release(row);
    floe_expr_release(zero);
    floe_expr_release(dflt);
    floe_expr_release(val);
    return st;
}

/* The name the recursive term's FROM gives the working table (its alias,
 * else the query's name); NULL when it is not a plain FROM item. */
static const char *worktable_ref(const json_t *node, const char *name) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            const char *r = worktable_ref(json_array_get(node, i), name);
            if (r) return r;
        }
        return NULL;
    }
    const json_t *rv = floe_pg_as(node, "RangeVar");
    if (rv) {
        const char *rel = floe_pg_get_str(rv, "relname");
        if (!rel || floe_pg_get_str(rv, "schemaname") || strcmp(rel, name) != 0) return NULL;
        const char *al = floe_pg_get_str(floe_pg_as(floe_pg_get(rv, "alias"), "Alias") ? floe_pg_as(floe_pg_get(rv, "alias"), "Alias")
                                                                                          : floe_pg_get(rv, "alias"),
                                         "aliasname");
        return al ? al : rel;
    }
    const json_t *j = floe_pg_as(node, "JoinExpr");
    if (j) {
        const char *r = worktable_ref(floe_pg_get(j, "larg"), name);
        return r ? r : worktable_ref(floe_pg_get(j, "rarg"), name);
    }
    return NULL;
}

static json_t *string_node(const char *v) { return json_pack("{s:{s:s}}", "String", "sval", v); }

floe_status bind_sc_recursive_term(floe_session *s, const json_t *cte, const char *name, const json_t *rarg,
                                   int32_t loc, json_t **out) {
    *out = NULL;
    const json_t *sel = bind_select_body(rarg);
    const char *ref = worktable_ref(floe_pg_get(sel, "fromClause"), name);
    if (!ref)
        return bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                          "WITH query \"%s\": SEARCH / CYCLE need the recursive reference as an item of the recursive "
                          "term's FROM list or of a join in it (not inside a derived table)",
                          name);
    json_t *copy = json_deep_copy(rarg);
    json_t *tl = copy ? json_object_get(bind_select_body(copy), "targetList") : NULL;
    if (!tl) {
        json_decref(copy);
        return oom();
    }
    char *names[3] = {NULL, NULL, NULL};
    names_of(cte, names);
    for (int32_t i = 0; i < n_added(cte); i++) {
        json_t *fields = json_array();
        json_t *rt = fields ? json_pack("{s:{s:{s:{s:o,s:i}},s:i}}", "ResTarget", "val", "ColumnRef", "fields", fields,
                                        "location", -1, "location", -1)
                            : NULL;
        if (!rt || json_array_append_new(fields, string_node(ref)) || json_array_append_new(fields, string_node(names[i])) ||
            json_array_append_new(tl, rt)) {
            json_decref(copy);
            return oom();
        }
    }
    *out = copy;
    return NULL;
}

floe_status bind_sc_recursive(floe_session *s, const json_t *cte, const bind_scope *sc, int32_t n, floe_lplan **rec) {
    const json_t *se = search_of(cte), *cy = cycle_of(cte);
    int32_t k = 0, w = n; /* the working table's added columns start at n */
    floe_expr *added[3] = {NULL, NULL, NULL}, *row = NULL, *val = NULL, *dflt = NULL, *wcol = NULL, *tmp = NULL,
              *one = NULL;
    char *names[3] = {NULL, NULL, NULL};
    names_of(cte, names);
    floe_status st = NULL;
    if (se) {
        st = floe_expr_column(w++, &wcol);
        if (!st && floe_pg_get_bool(se, "search_breadth_first")) {
            floe_expr *depth = NULL, *next = NULL, *fname = NULL;
            st = floe_expr_lit_string("*DEPTH*", &fname);
            if (!st) st = call2("struct_extract", wcol, fname, &depth);
            if (!st) st = floe_expr_lit_int64(1, &one);
            if (!st) st = floe_expr_arith(FLOE_ARITH_ADD, depth, one, &next);
            if (!st) st = make_row(floe_pg_get(se, "search_col_list"), sc, n, next, &added[k++]);
            floe_expr_release(fname);
            floe_expr_release(depth);
            floe_expr_release(next);
        } else if (!st) {
            st = make_row(floe_pg_get(se, "search_col_list"), sc, n, NULL, &row);
            if (!st) st = call2("array_append", wcol, row, &added[k++]);
            floe_expr_release(row);
            row = NULL;
        }
        floe_expr_release(wcol);
        wcol = NULL;
    }
    if (!st && cy) {
        bind_result r = {.plan = *rec};
        memcpy(&r.scope, sc, sizeof r.scope);
        st = mark_values(s, cy, &r, &val, &dflt);
    }
    if (!st && cy) {
        /* Working rows already marked are not expanded: mark <> v. */
        floe_expr *wmark = NULL, *keep = NULL;
        st = floe_expr_column(w, &wmark);
        if (!st) st = floe_expr_cmp(FLOE_CMP_NE, wmark, val, &keep);
        floe_lplan *f = NULL, *in[1] = {*rec};
        if (!st) st = floe_lplan_new(FLOE_L_FILTER, (*rec)->schema, in, 1, &f);
        if (!st) {
            f->predicate = keep;
            keep = NULL;
            *rec = f;
        }
        floe_expr_release(keep);
        floe_expr_release(wmark);
    }
    if (!st && cy) {
        floe_expr *wpath = NULL, *pos = NULL, *seen = NULL;
        st = floe_expr_column(w + 1, &wpath);
        if (!st) st = make_row(floe_pg_get(cy, "cycle_col_list"), sc, n, NULL, &row);
        if (!st) st = call2("array_position", wpath, row, &pos);
        if (!st) st = floe_expr_is_null(pos, true, &seen);
        if (!st) st = floe_expr_case(&seen, &val, 1, dflt, &added[k++]);
        if (!st) st = call2("array_append", wpath, row, &added[k++]);
        floe_expr_release(wpath);
        floe_expr_release(pos);
        floe_expr_release(seen);
    }
    if (!st) st = project_added(rec, n, added, names, k);
    for (int32_t i = 0; i < 3; i++) floe_expr_release(added[i]);
    floe_expr_release(row);
    floe_expr_release(val);
    floe_expr_release(dflt);
    floe_expr_release(tmp);
    floe_expr_release(one);
    return st;
}
