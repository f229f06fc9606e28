/*
 * bind_unnest.c — unnest(), PostgreSQL's array-expanding set-returning
 * function, bound to the UNNEST logical node (exec's Unnest operator):
 *
 *   - in FROM: `unnest(a [, b ...]) [WITH ORDINALITY] [AS u(x, ...)]` and
 *     `ROWS FROM (unnest(a), unnest(b))`, implicitly LATERAL as PostgreSQL's
 *     functions in FROM are — over the items to its left (`FROM t,
 *     unnest(t.xs)`, `JOIN [LATERAL] unnest(...) ON ...`, `LEFT JOIN
 *     LATERAL unnest(...) ON true` keeping rows with empty lists), else
 *     over one empty row.  Several arguments zip, padding with NULLs; a map
 *     gives key and value columns.
 *   - in a select list: each unnest(xs) call is an extra of the expression
 *     context (bind.h) standing for its element column; once the query's
 *     aggregates and windows are on the plan, bind_srf_apply puts one
 *     Unnest over it for every call, so they run in lockstep to the longest
 *     (PostgreSQL 10+) with the other columns repeated, and the select list
 *     reads the element columns.
 *
 * regexp_matches, regexp_split_to_table and generate_series over
 * timestamps are unnest() of a list function (bind_srf_list_fn), bound
 * wherever unnest() is, named after the function as PostgreSQL names them.
 *
 * Lists expand one level: a list of lists gives lists (PostgreSQL's
 * multi-dimensional arrays, which are not nested, flatten fully).
 */
#include <string.h>

#include "sql/bind.h"
#include "sql/bind_expr_internal.h"
#include "sql/bind_query_internal.h"
#include "sql/expr_util.h"
#include "sql/pgnode.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory"); }

static json_t *function_call(const json_t *fn_item) {
    json_t *pair = floe_pg_get(floe_pg_as(fn_item, "List"), "items");
    return floe_pg_as(floe_pg_list_at(pair, 0), "FuncCall");
}

const char *bind_srf_list_fn(const json_t *fc) {
    const char *name = fc ? bind_func_name(fc) : NULL;
    if (!name) return NULL;
    if (!strcmp(name, "regexp_matches")) return "__regexp_matches";
    if (!strcmp(name, "regexp_split_to_table")) return "regexp_split_to_array";
    if (!strcmp(name, "generate_series")) {
        /* the integer forms keep their own nodes (GenerateSeries,
         * SeriesApply); an interval step — a cast or an untyped string —
         * is the timestamp form */
        json_t *args = floe_pg_get(fc, "args");
        json_t *step = floe_pg_list_len(args) == 3 ? floe_pg_list_at(args, 2) : NULL;
        json_t *k = floe_pg_as(step, "A_Const");
        if (step && (floe_pg_as(step, "TypeCast") || (k && floe_pg_get(k, "sval")))) return "__generate_series_ts";
    }
    return NULL;
}

bool bind_is_unnest(const json_t *rf) {
    json_t *fns = floe_pg_get(rf, "functions");
    int32_t n = floe_pg_list_len(fns);
    for (int32_t i = 0; i < n; i++) {
        json_t *fc = function_call(floe_pg_list_at(fns, i));
        const char *name = fc ? bind_func_name(fc) : NULL;
        if (!name || (strcmp(name, "unnest") && !bind_srf_list_fn(fc))) return false;
    }
    return n > 0;
}

/* Coerce in place. */
static floe_status coerce_to(bind_ectx *c, floe_expr **e, floe_type_id id, int32_t loc) {
    floe_expr *t = NULL;
    FLOE_TRY(bind_coerce(c, *e, floe_type_primitive(id), loc, &t));
    floe_expr_release(*e);
    *e = t;
    return NULL;
}

/* generate_series(start, stop, step) over timestamps as PostgreSQL resolves
 * it: untyped strings take the other bound's type (timestamptz when both
 * are strings), the step an interval; a date — or a date with a timestamptz —
 * is the timestamptz form, a date with a timestamp the timestamp form. */
static floe_status series_args(bind_ectx *c, floe_expr **ev, int32_t loc) {
    floe_type_id id[2];
    for (int k = 0; k < 2; k++) {
        floe_type *t = NULL;
        FLOE_TRY(bind_type_of(c, ev[k], &t));
        id[k] = bind_is_string_literal(ev[k]) ? FLOE_TYPE_NULL : t->id;
        floe_type_release(t);
    }
    floe_type_id want = FLOE_TYPE_TIMESTAMP_US_TZ;
    if (id[0] == FLOE_TYPE_TIMESTAMP_US || id[1] == FLOE_TYPE_TIMESTAMP_US) want = FLOE_TYPE_TIMESTAMP_US;
    if (id[0] == FLOE_TYPE_TIMESTAMP_US_TZ || id[1] == FLOE_TYPE_TIMESTAMP_US_TZ) want = FLOE_TYPE_TIMESTAMP_US_TZ;
    for (int k = 0; k < 2; k++)
        if (id[k] == FLOE_TYPE_NULL || id[k] == FLOE_TYPE_DATE32 || (id[k] != want && (id[k] == FLOE_TYPE_TIMESTAMP_US ||
                                                                                      id[k] == FLOE_TYPE_TIMESTAMP_US_TZ)))
            FLOE_TRY(coerce_to(c, &ev[k], want, loc));
    if (bind_is_string_literal(ev[2])) FLOE_TRY(coerce_to(c, &ev[2], FLOE_TYPE_INTERVAL, loc));
    return NULL;
}

/* A list-function set-returning call (bind_srf_list_fn gave `fn`): the
 * list it expands. */
static floe_status bind_list_call(bind_ectx *c, const json_t *fc, const char *fn, floe_expr **out, floe_type **type) {
    *out = NULL;
    *type = NULL;
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    json_t *args = floe_pg_get(fc, "args");
    int32_t n = floe_pg_list_len(args);
    floe_expr *ev[4] = {NULL, NULL, NULL, NULL};
    floe_status st = n > 4 ? bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s takes at most 3 arguments",
                                        bind_func_name(fc))
                           : NULL;
    for (int32_t i = 0; i < n && !st; i++) st = bind_expr(c, floe_pg_list_at(args, i), &ev[i]);
    if (!st && n == 3 && !strcmp(fn, "__generate_series_ts")) st = series_args(c, ev, loc);
    if (!st) st = bind_make_call(c, fn, ev, n, loc, out);
    for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
    if (!st) st = bind_type_of(c, *out, type);
    if (st) {
        floe_expr_release(*out);
        *out = NULL;
    }
    return st;
}

/* One row, no columns: what a FROM unnest(...) with nothing to its left expands. */
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

/* An UNNEST node over `input` for lists[0..n) (over its columns): the
 * input's columns (nullable under `outer`) ++ the new ones named
 * names[0..n_names): each list's element type, a map's key and value
 * types, then the ordinality (bigint). */
static floe_status unnest_node(floe_lplan *input, floe_expr *const *lists, int32_t n, char *const *names,
                               int32_t n_names, bool ordinality, bool outer, floe_lplan **out) {
    *out = NULL;
    int32_t nin = floe_schema_num_fields(input->schema), total = nin + n_names, at = nin;
    floe_field *f = floe_calloc((size_t)total + 1, sizeof *f);
    floe_status st = f ? NULL : oom();
    for (int32_t i = 0; i < nin && !st; i++) {
        const floe_field *in = floe_schema_field(input->schema, i);
        st = floe_field_init(&f[i], in->name, in->type, in->nullable || outer, in->field_id);
    }
    for (int32_t j = 0; j < n && !st; j++) {
        floe_type *t = NULL;
        st = floe_expr_type(lists[j], input->schema, &t);
        if (!st && at + (t->id == FLOE_TYPE_MAP ? 2 : 1) > total) st = floe_error(FLOE_ERR_INTERNAL, "unnest: column names");
        if (!st && t->id == FLOE_TYPE_MAP) {
            const floe_type *e = t->children[0].type;
            st = floe_field_init(&f[at], names[at - nin], e->children[0].type, true, -1);
            if (!st) st = floe_field_init(&f[at + 1], names[at + 1 - nin], e->children[1].type, true, -1);
            at += 2;
        } else if (!st) {
            st = floe_field_init(&f[at], names[at - nin], t->children[0].type, true, -1);
            at++;
        }
        floe_type_release(t);
    }
    if (!st && ordinality && at < total) {
        st = floe_field_init(&f[at], names[at - nin], floe_type_primitive(FLOE_TYPE_INT64), outer, -1);
        at++;
    }
    if (!st && at != total) st = floe_error(FLOE_ERR_INTERNAL, "unnest: column names");
    floe_schema *schema = NULL;
    if (!st) st = floe_type_struct(f, total, &schema);
    for (int32_t i = 0; f && i < total; i++) floe_field_clear(&f[i]);
    floe_free(f);
    floe_lplan *p = NULL;
    if (!st) st = floe_lplan_new(FLOE_L_UNNEST, schema, &input, 1, &p);
    else floe_lplan_free(input);
    floe_type_release(schema);
    if (st) return st;
    p->exprs = floe_calloc((size_t)n, sizeof *p->exprs);
    if (!p->exprs) {
        floe_lplan_free(p);
        return oom();
    }
    for (int32_t i = 0; i < n; i++) p->exprs[i] = floe_expr_retain(lists[i]);
    p->n_exprs = n;
    p->unnest_ordinality = ordinality;
    p->unnest_outer = outer;
    *out = p;
    return NULL;
}

/* Bind an unnest argument: a list or a map. */
static floe_status bind_list_arg(bind_ectx *c, const json_t *arg, int32_t loc, bool map_ok, floe_expr **out,
                                 floe_type **type) {
    *out = NULL;
    *type = NULL;
    FLOE_TRY(bind_expr(c, arg, out));
    floe_status st = bind_type_of(c, *out, type);
    if (!st && (*type)->id != FLOE_TYPE_LIST && (*type)->id != FLOE_TYPE_MAP)
        st = bind_error(c->s, floe_pg_location(arg) >= 0 ? floe_pg_location(arg) : loc, FLOE_ERR_TYPE,
                        "unnest() needs an array (or a map), not %s", floe_type_id_name((*type)->id));
    if (!st && (*type)->id == FLOE_TYPE_MAP && !map_ok)
        st = bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "unnest() of a map is supported in FROM only");
    if (st) {
        floe_expr_release(*out);
        floe_type_release(*type);
        *out = NULL;
        *type = NULL;
    }
    return st;
}

floe_status bind_unnest_from(floe_session *s, bind_result *left, const json_t *rf, bool outer, bind_result *out) {
    memset(out, 0, sizeof(*out));
    bind_result base;
    memset(&base, 0, sizeof base);
    floe_status st = NULL;
    if (left) {
        base = *left;
        memset(left, 0, sizeof *left);
    } else {
        st = one_row(&base.plan);
        if (st) return st;
    }
    json_t *fns = floe_pg_get(rf, "functions");
    json_t *alias = floe_pg_get(rf, "alias");
    const char *qual = floe_pg_get_str(alias, "aliasname");
    json_t *colnames = floe_pg_get(alias, "colnames");
    bool ordinality = floe_pg_get_bool(rf, "ordinality");
    int32_t n_fns = floe_pg_list_len(fns), n = 0, cap = 0;
    for (int32_t i = 0; i < n_fns; i++) cap += 1 + floe_pg_list_len(floe_pg_get(function_call(floe_pg_list_at(fns, i)), "args"));
    floe_expr **lists = floe_calloc((size_t)cap + 1, sizeof *lists);
    char **names = floe_calloc((size_t)(2 * cap + 2), sizeof *names);
    int32_t n_names = 0;
    if (!lists || !names) st = oom();
    bind_ectx c;
    bind_ectx_init(&c, s, &base.scope, base.plan->schema, "unnest");
    int32_t loc = -1;
    for (int32_t i = 0; i < n_fns && !st; i++) {
        json_t *fc = function_call(floe_pg_list_at(fns, i));
        json_t *args = floe_pg_get(fc, "args");
        loc = (int32_t)floe_pg_get_int(fc, "location", -1);
        const char *lfn = bind_srf_list_fn(fc);
        if (lfn) {
            floe_type *t = NULL;
            st = bind_list_call(&c, fc, lfn, &lists[n], &t);
            if (st) break;
            n++;
            floe_type_release(t);
            names[n_names++] = floe_strdup(n_fns == 1 && qual ? qual : bind_func_name(fc));
            continue;
        }
        if (floe_pg_list_len(args) == 0)
            st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "unnest() needs at least one array");
        for (int32_t k = 0; k < floe_pg_list_len(args) && !st; k++) {
            floe_type *t = NULL;
            st = bind_list_arg(&c, floe_pg_list_at(args, k), loc, true, &lists[n], &t);
            if (st) break;
            n++;
            /* PostgreSQL's names: "unnest" each, or the alias for a lone
             * one-column function; a map's key and value */
            bool lone = n_fns == 1 && floe_pg_list_len(args) == 1 && t->id != FLOE_TYPE_MAP;
            if (t->id == FLOE_TYPE_MAP) {
                names[n_names++] = floe_strdup("key");
                names[n_names++] = floe_strdup("value");
            } else {
                names[n_names++] = floe_strdup(lone && qual ? qual : "unnest");
            }
            floe_type_release(t);
        }
    }
    bind_ectx_clear(&c);
    if (!st && ordinality) names[n_names++] = floe_strdup("ordinality");
    for (int32_t i = 0; i < n_names && !st; i++)
        if (!names[i]) st = oom();
    int32_t n_alias = floe_pg_list_len(colnames);
    if (!st && n_alias > n_names)
        st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "table \"%s\" has %d columns available but %d columns specified",
                        qual ? qual : "unnest", (int)n_names, (int)n_alias);
    for (int32_t i = 0; i < n_alias && !st; i++) {
        const char *nm = floe_pg_string(floe_pg_list_at(colnames, i));
        floe_free(names[i]);
        if (!(names[i] = floe_strdup(nm ? nm : "?column?"))) st = oom();
    }
    floe_lplan *p = NULL;
    if (!st) {
        st = unnest_node(base.plan, lists, n, names, n_names, ordinality, outer, &p);
        base.plan = NULL;
    }
    if (!st) st = bind_scope_append(&out->scope, &base.scope);
    for (int32_t i = 0; i < n_names && !st; i++) st = bind_scope_add(&out->scope, qual ? qual : "unnest", names[i], false);
    for (int32_t i = 0; i < n; i++) floe_expr_release(lists[i]);
    for (int32_t i = 0; names && i < n_names; i++) floe_free(names[i]);
    floe_free(lists);
    floe_free(names);
    floe_lplan_free(base.plan);
    bind_scope_free(&base.scope);
    if (st) {
        floe_lplan_free(p);
        bind_scope_free(&out->scope);
        return st;
    }
    out->plan = p;
    return NULL;
}

/* ------------------------------------------------- in a select list */

floe_status bind_srf_call(bind_ectx *c, const json_t *fc, floe_expr **out) {
    *out = NULL;
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    json_t *args = floe_pg_get(fc, "args");
    if (c->in_agg_arg)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "aggregate function calls cannot contain set-returning function calls");
    if (c->in_window_arg)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "window function calls cannot contain set-returning function calls");
    if (!c->allow_srf || c->no_srf_in)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "set-returning functions are not allowed in %s",
                          c->no_srf_in ? c->no_srf_in : c->clause ? c->clause : "this place");
    const char *lfn = bind_srf_list_fn(fc);
    if (!lfn && floe_pg_list_len(args) != 1)
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "unnest() with %d arguments is allowed only in FROM",
                          (int)floe_pg_list_len(args));
    /* no SRF inside an SRF's argument (PostgreSQL nests them; not yet) */
    c->no_srf_in = lfn ? "a set-returning function's argument" : "an unnest() argument";
    floe_expr *arg = NULL;
    floe_type *t = NULL;
    floe_status st = lfn ? bind_list_call(c, fc, lfn, &arg, &t)
                         : bind_list_arg(c, floe_pg_list_at(args, 0), loc, false, &arg, &t);
    c->no_srf_in = NULL;
    if (st) return st;
    /* The same call again (ORDER BY unnest(xs) under SELECT unnest(xs)) is
     * the same column: identical lists in lockstep give identical rows. */
    for (int32_t i = 0; i < c->n_extras; i++)
        if (c->extras[i].is_srf && c->extras[i].srf_n_from == c->n_from && bind_expr_equal(c->extras[i].srf_arg, arg)) {
            floe_expr_release(arg);
            floe_type_release(t);
            return floe_expr_column(c->n_from + i, out);
        }
    bind_extra x;
    memset(&x, 0, sizeof x);
    x.is_srf = true;
    x.srf_arg = arg;
    x.srf_n_from = c->n_from;
    x.type = floe_type_retain(t->children[0].type);
    floe_type_release(t);
    int32_t idx = -1;
    st = bind_add_extra(c, &x, &idx);
    if (st) {
        floe_expr_release(arg);
        floe_type_release(x.type);
        return st;
    }
    c->n_srf++;
    return floe_expr_column(idx, out);
}

floe_status bind_srf_apply(bind_ectx *c, floe_lplan **plan, bind_windows *wins, int32_t base, floe_expr *const *groups,
                           int32_t ng, int32_t *agg_extra_col, floe_expr **sel, int32_t n_sel, floe_expr **hidden,
                           int32_t n_hidden) {
    if (c->n_srf == 0) return NULL;
    /* a scalar subquery joined after an unnest() call moved the columns its
     * placeholder stands among (as bind_windows_build refuses too) */
    for (int32_t i = 0; i < c->n_extras && !agg_extra_col; i++)
        if (c->extras[i].is_srf && c->extras[i].srf_n_from != c->n_from)
            return bind_error(c->s, -1, FLOE_ERR_UNSUPPORTED,
                              "a scalar subquery after unnest() in the select list is not supported (put it first)");
    int32_t k = floe_schema_num_fields((*plan)->schema), total = c->n_from + c->n_extras;
    int32_t *col = agg_extra_col, *map = floe_calloc((size_t)total + 1, sizeof *map);
    int32_t *own = agg_extra_col ? NULL : floe_calloc((size_t)c->n_extras + 1, sizeof *own);
    floe_expr **lists = floe_calloc((size_t)c->n_srf, sizeof *lists);
    char **names = floe_calloc((size_t)c->n_srf, sizeof *names);
    floe_status st = map && lists && names && (agg_extra_col || own) ? NULL : oom();
    if (!st && !agg_extra_col) {
        /* not aggregating: the windows' columns are where bind_windows_place
         * says; everything else is the FROM's */
        col = own;
        for (int32_t i = 0; i < c->n_extras; i++) col[i] = -1;
        if (bind_windows_count(wins) > 0) bind_windows_place(c, wins, base, col);
        for (int32_t i = 0; i < total; i++) map[i] = i < c->n_from ? i : col[i - c->n_from];
    }
    int32_t n = 0;
    for (int32_t i = 0; i < c->n_extras && !st; i++) {
        if (!c->extras[i].is_srf) continue;
        if (agg_extra_col) st = bind_rewrite_over_agg(c, c->extras[i].srf_arg, groups, ng, agg_extra_col, NULL, &lists[n]);
        else st = floe_sqlx_remap(c->extras[i].srf_arg, map, &lists[n]);
        char nm[32];
        snprintf(nm, sizeof nm, "unnest_%d", (int)n);
        if (!st && !(names[n] = floe_strdup(nm))) st = oom();
        if (!st) col[i] = k + n++;
    }
    floe_lplan *p = NULL;
    if (!st) {
        st = unnest_node(*plan, lists, n, names, n, false, false, &p);
        *plan = p;
    }
    /* Not aggregating: the select list and sort keys read the new columns
     * now (aggregating, the caller's rewrite over the aggregate does). */
    for (int32_t i = 0; i < total && !st && !agg_extra_col; i++) map[i] = i < c->n_from ? i : col[i - c->n_from];
    for (int32_t i = 0; i < n_sel + n_hidden && !st && !agg_extra_col; i++) {
        floe_expr **e = i < n_sel ? &sel[i] : &hidden[i - n_sel];
        floe_expr *r = NULL;
        st = floe_sqlx_remap(*e, map, &r);
        if (!st) {
            floe_expr_release(*e);
            *e = r;
        }
    }
    for (int32_t i = 0; i < n; i++) {
        floe_expr_release(lists[i]);
        floe_free(names[i]);
    }
    floe_free(lists);
    floe_free(names);
    floe_free(map);
    floe_free(own);
    return st;
}
