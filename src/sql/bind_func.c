/*
 * bind_func.c — binding function calls: aggregate calls (the entries of
 * the aggregate registry, src/exec/agg/agg_func.h, with DISTINCT, FILTER,
 * ORDER BY and WITHIN GROUP; collected as extras of an
 * aggregating query level, the same call twice being one aggregate),
 * statement-time functions, and scalar functions (names as in
 * helper-interfaces, PostgreSQL spellings renamed).
 */
#include <stdio.h>
#include <string.h>

#include "base/str.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_expr_internal.h"
#include "sql/pgnode.h"
#include "sql/bind_query_internal.h"
#include "sql/pg_catalog_tables.h"
#include "exec/func/functions.h"

/* ------------------------------------------------------- functions */

/* Aggregates are the registry's entries (src/exec/agg/agg_func.h). */
static int agg_index(const char *name) { return floe_agg_is_aggregate_name(name) ? 0 : -1; }

/* The function's name without a pg_catalog qualifier. */
const char *bind_func_name(const json_t *fc) {
    json_t *names = floe_pg_get(fc, "funcname");
    return floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
}

bool bind_has_aggregate(const json_t *node) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            if (bind_has_aggregate(json_array_get(node, i))) return true;
        return false;
    }
    if (!json_is_object(node)) return false;
    json_t *fc = floe_pg_as(node, "FuncCall");
    if (fc) {
        const char *n = bind_func_name(fc);
        if (n && agg_index(n) >= 0 && !floe_pg_get(fc, "over")) return true;
    }
    if (floe_pg_as(node, "SubLink")) return false; /* its own level */
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)node, key, v) {
        if (bind_has_aggregate(v)) return true;
    }
    return false;
}

/* Bind an aggregate's argument, FILTER or ORDER BY expression: over the
 * FROM columns only, no aggregate inside. */
static floe_status bind_agg_expr(bind_ectx *c, const json_t *node, floe_expr **out) {
    floe_schema *saved = c->schema;
    floe_schema *from = NULL;
    int32_t nf = c->n_from;
    floe_field *f = floe_calloc((size_t)nf + 1, sizeof(floe_field));
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < nf; i++) f[i] = *floe_schema_field(saved, i);
    floe_status st = floe_type_struct(f, nf, &from);
    floe_free(f);
    if (st) return st;
    c->schema = from;
    c->in_agg_arg = true;
    st = bind_expr(c, node, out);
    c->in_agg_arg = false;
    c->schema = saved;
    floe_type_release(from);
    return st;
}

static bool same_opt_expr(const floe_expr *a, const floe_expr *b) {
    return (!a && !b) || (a && b && bind_expr_equal(a, b));
}

/* Two calls that compute the same aggregate. */
static bool same_call(const floe_agg_call *a, const floe_agg_call *b) {
    if (a->fn != b->fn || a->distinct != b->distinct || a->n_order != b->n_order) return false;
    if (a->fn == FLOE_AGG_NAMED && strcmp(a->func, b->func)) return false;
    if (!same_opt_expr(a->arg, b->arg) || !same_opt_expr(a->arg2, b->arg2) || !same_opt_expr(a->filter, b->filter))
        return false;
    for (int32_t k = 0; k < a->n_order; k++)
        if (a->order[k].descending != b->order[k].descending || a->order[k].nulls_first != b->order[k].nulls_first ||
            !bind_expr_equal(a->order[k].expr, b->order[k].expr))
            return false;
    return true;
}

static floe_status bind_aggregate(bind_ectx *c, const json_t *fc, const char *name, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    if (!c->agg_mode)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "aggregate functions are not allowed in %s",
                          c->clause ? c->clause : "this clause");
    if (c->in_agg_arg)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "aggregate function calls cannot be nested");
    if (floe_pg_get(fc, "over"))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "window functions are not supported");
    floe_agg_desc d, *fe = &d;
    if (!floe_agg_describe(name, &d)) return bind_error(c->s, loc, FLOE_ERR_INTERNAL, "%s: not an aggregate", name);
    bool within = floe_pg_get_bool(fc, "agg_within_group");
    bool ordered_set = d.within_group;
    if (within && !ordered_set)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT,
                          "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name);
    if (!within && ordered_set)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT,
                          "WITHIN GROUP is required for ordered-set aggregate %s", name);
    bind_extra x;
    memset(&x, 0, sizeof(x));
    json_t *args = floe_pg_get(fc, "args");
    json_t *order = floe_pg_get(fc, "agg_order");
    json_t *filter = floe_pg_get(fc, "agg_filter");
    x.is_agg = true;
    x.agg.fn = fe->fn;
    x.agg.distinct = floe_pg_get_bool(fc, "agg_distinct");
    floe_status st = NULL;
    if (x.agg.fn == FLOE_AGG_NAMED && !(x.agg.func = floe_strdup(fe->name)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    if (within && x.agg.distinct)
        st = bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "cannot use DISTINCT with WITHIN GROUP");
    int32_t na = (int32_t)floe_pg_list_len(args);
    if (!st && floe_pg_get_bool(fc, "agg_star")) {
        if (!fe->star_ok) st = bind_error(c->s, loc, FLOE_ERR_SYNTAX, "%s(*) is not allowed", name);
        else x.agg.fn = FLOE_AGG_COUNT_STAR;
    } else if (!st) {
        if (na < fe->min_args || na > fe->max_args)
            st = fe->min_args == fe->max_args
                     ? bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s takes %d argument%s, not %d", name,
                                  fe->max_args, fe->max_args == 1 ? "" : "s", na)
                     : bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s takes %d to %d arguments, not %d", name,
                                  fe->min_args, fe->max_args, na);
        if (!st && na > 0) st = bind_agg_expr(c, floe_pg_list_at(args, 0), &x.agg.arg);
        if (!st && na > 1) st = bind_agg_expr(c, floe_pg_list_at(args, 1), &x.agg.arg2);
        /* sum / avg of an interval: the registry's interval entries */
        if (!st && na == 1 && (x.agg.fn == FLOE_AGG_SUM || x.agg.fn == FLOE_AGG_AVG)) {
            floe_type *at = NULL;
            st = bind_type_of(c, x.agg.arg, &at);
            if (!st && at->id == FLOE_TYPE_INTERVAL) {
                x.agg.func = floe_strdup(x.agg.fn == FLOE_AGG_SUM ? "interval_sum" : "interval_avg");
                x.agg.fn = FLOE_AGG_NAMED;
                if (!x.agg.func) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            }
            floe_type_release(at);
        }
        if (!st && x.agg.distinct && x.agg.fn == FLOE_AGG_COUNT_STAR)
            st = bind_error(c->s, loc, FLOE_ERR_SYNTAX, "count(DISTINCT *) is not allowed");
    }
    int32_t no = (int32_t)floe_pg_list_len(order);
    if (!st && no > 0) {
        x.agg.order = floe_calloc((size_t)no, sizeof *x.agg.order);
        if (!x.agg.order) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t k = 0; !st && k < no; k++) {
            json_t *sb = floe_pg_as(floe_pg_list_at(order, k), "SortBy");
            floe_expr *e = NULL;
            if (!sb) st = bind_error(c->s, loc, FLOE_ERR_SYNTAX, "%s: bad ORDER BY", name);
            if (!st) st = bind_agg_expr(c, floe_pg_get(sb, "node"), &e);
            if (!st) st = bind_at(c->s, loc, bind_sort_key_of(sb, e, &x.agg.order[k]));
            if (st) floe_expr_release(e);
            else x.agg.n_order = k + 1;
        }
        /* PostgreSQL: with DISTINCT, ORDER BY expressions must appear in
         * the argument list. */
        for (int32_t k = 0; !st && x.agg.distinct && k < x.agg.n_order; k++)
            if (!same_opt_expr(x.agg.order[k].expr, x.agg.arg) && !same_opt_expr(x.agg.order[k].expr, x.agg.arg2))
                st = bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT,
                                "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list");
    }
    if (!st && filter) {
        st = bind_agg_expr(c, filter, &x.agg.filter);
        floe_type *ft = NULL;
        if (!st) st = bind_at(c->s, loc, floe_expr_type(x.agg.filter, c->schema, &ft));
        if (!st && ft->id != FLOE_TYPE_BOOL && ft->id != FLOE_TYPE_NULL)
            st = bind_error(c->s, loc, FLOE_ERR_TYPE, "argument of FILTER must be type boolean, not type %s",
                            floe_type_id_name(ft->id));
        floe_type_release(ft);
    }
    if (st) {
        floe_agg_call_clear(&x.agg);
        return st;
    }
    /* The same call twice is one aggregate. */
    for (int32_t i = 0; i < c->n_extras; i++) {
        bind_extra *e = &c->extras[i];
        if (e->is_agg && same_call(&e->agg, &x.agg)) {
            floe_agg_call_clear(&x.agg);
            return floe_expr_column(c->n_from + i, out);
        }
    }
    char aname[96];
    snprintf(aname, sizeof aname, "%s_%d", name, (int)c->n_extras);
    x.agg.name = floe_strdup(aname);
    floe_schema *from = NULL;
    int32_t nf = c->n_from;
    floe_field *f = floe_calloc((size_t)nf + 1, sizeof(floe_field));
    st = (!x.agg.name || !f) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    for (int32_t i = 0; !st && i < nf; i++) f[i] = *floe_schema_field(c->schema, i);
    if (!st) st = floe_type_struct(f, nf, &from);
    floe_free(f);
    if (!st) st = bind_at(c->s, loc, floe_agg_result_type(&x.agg, from, &x.type));
    floe_type_release(from);
    int32_t idx = -1;
    if (!st) st = bind_add_extra(c, &x, &idx);
    if (st) {
        floe_agg_call_clear(&x.agg);
        floe_type_release(x.type);
        return st;
    }
    return floe_expr_column(idx, out);
}

/* now(), current_date ...: fixed per statement. */
floe_status bind_statement_time(bind_ectx *c, bool date, floe_expr **out) {
    int64_t us = c->s ? c->s->stmt_time_us : 0;
    if (date) {
        int64_t days = us / 86400000000LL;
        if (us < 0 && us % 86400000000LL) days--;
        return bind_lit_typed_int(FLOE_TYPE_DATE32, days, out);
    }
    return bind_lit_typed_int(FLOE_TYPE_TIMESTAMP_US_TZ, us, out);
}


/* date_bin(stride, source, origin) with PostgreSQL's resolution: a text
 * stride is an interval, a date source a timestamp, and the origin of the
 * source's type (text, date or the other timestamp kind cast to it). */
static floe_status bind_date_bin(bind_ectx *c, const json_t *args, int32_t loc, floe_expr **out) {
    floe_expr *e[3] = {NULL, NULL, NULL};
    floe_status st = NULL;
    for (int32_t i = 0; i < 3 && !st; i++) st = bind_expr(c, floe_pg_list_at(args, i), &e[i]);
    floe_type *t[3] = {NULL, NULL, NULL};
    for (int32_t i = 0; i < 3 && !st; i++) st = bind_type_of(c, e[i], &t[i]);
    const floe_type *want[3] = {NULL, NULL, NULL};
    if (!st && t[0]->id == FLOE_TYPE_STRING) want[0] = floe_type_primitive(FLOE_TYPE_INTERVAL);
    if (!st && (t[1]->id == FLOE_TYPE_DATE32 || t[1]->id == FLOE_TYPE_STRING))
        want[1] = floe_type_primitive(FLOE_TYPE_TIMESTAMP_US);
    const floe_type *src = want[1] ? want[1] : t[1];
    if (!st && t[2]->id != src->id && t[2]->id != FLOE_TYPE_NULL) want[2] = src;
    for (int32_t i = 0; i < 3 && !st; i++) {
        if (!want[i]) continue;
        floe_expr *x = NULL;
        st = floe_expr_cast(e[i], (floe_type *)want[i], &x);
        if (!st) {
            floe_expr_release(e[i]);
            e[i] = x;
        }
    }
    if (!st) st = bind_make_call(c, "date_bin", e, 3, loc, out);
    for (int32_t i = 0; i < 3; i++) {
        floe_expr_release(e[i]);
        floe_type_release(t[i]);
    }
    return st;
}

/* make_interval(years, months, weeks, days, hours, mins, secs), each
 * positional or named (secs => 1.5); missing ones are 0. */
static floe_status bind_make_interval(bind_ectx *c, const json_t *args, int32_t n, int32_t loc, floe_expr **out) {
    static const char *const names[7] = {"years", "months", "weeks", "days", "hours", "mins", "secs"};
    floe_expr *ev[7] = {0};
    floe_status st = NULL;
    if (n > 7) return bind_error(c->s, loc, FLOE_ERR_TYPE, "make_interval takes at most 7 arguments");
    for (int32_t i = 0; i < n && !st; i++) {
        json_t *a = floe_pg_list_at(args, i);
        json_t *na = floe_pg_as(a, "NamedArgExpr");
        int k = i;
        if (na) {
            const char *nm = floe_pg_get_str(na, "name");
            for (k = 0; k < 7 && !(nm && !strcmp(nm, names[k])); k++) {}
            if (k == 7) {
                st = bind_error(c->s, floe_pg_location(a), FLOE_ERR_INVALID_ARGUMENT,
                                "make_interval has no argument named %s (it takes years, months, weeks, days, hours, "
                                "mins, secs)", nm ? nm : "?");
                break;
            }
            a = floe_pg_get(na, "arg");
        }
        if (ev[k]) {
            st = bind_error(c->s, floe_pg_location(a), FLOE_ERR_INVALID_ARGUMENT,
                            "make_interval: argument %s given twice", names[k]);
            break;
        }
        st = bind_expr(c, a, &ev[k]);
    }
    for (int k = 0; k < 7 && !st; k++)
        if (!ev[k]) st = k == 6 ? floe_expr_lit_double(0, &ev[k]) : floe_expr_lit_int32(0, &ev[k]);
    if (!st) st = bind_make_call(c, "make_interval", ev, 7, loc, out);
    for (int k = 0; k < 7; k++) floe_expr_release(ev[k]);
    return st;
}

/* PostgreSQL's name of a floe type as pg_typeof prints it (regtype's
 * output: no typmod; arrays as elem[]; a ROW() as record). */
static void pg_type_display(const floe_type *t, char *b, size_t cap) {
    const char *base = "text";
    int dims = 0;
    while (t->id == FLOE_TYPE_LIST) { /* PostgreSQL's arrays do not nest: one [] a level */
        t = t->children[0].type;
        dims++;
    }
    if (t->id == FLOE_TYPE_STRUCT) base = "record";
    else if (t->id == FLOE_TYPE_NULL) base = "unknown";
    else {
        int64_t oid = 25;
        int32_t typmod = -1;
        floe_pg_type_oid_of(t, &oid, &typmod);
        const floe_pg_type_row *r = floe_pg_type_by_oid(oid);
        if (r) base = r->sql;
    }
    snprintf(b, cap, "%s%s", base, dims ? "[]" : "");
}

/* pg_typeof(x): the type the binder gave x, as text; an untyped literal
 * ('a', NULL) is "unknown" as in PostgreSQL. */
static floe_status bind_pg_typeof(bind_ectx *c, const json_t *args, int32_t n, int32_t loc, floe_expr **out) {
    if (n != 1) return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "pg_typeof takes 1 argument");
    const json_t *a = floe_pg_list_at(args, 0);
    json_t *k = floe_pg_as(a, "A_Const");
    if (k && (floe_pg_get_bool(k, "isnull") || floe_pg_get(k, "sval")))
        return floe_expr_lit_string("unknown", out);
    floe_expr *e = NULL;
    floe_type *t = NULL;
    FLOE_TRY(bind_expr(c, a, &e));
    floe_status st = bind_type_of(c, e, &t);
    char name[96];
    if (!st) {
        pg_type_display(t, name, sizeof name);
        st = floe_expr_lit_string(name, out);
    }
    floe_type_release(t);
    floe_expr_release(e);
    return st;
}

floe_status bind_func(bind_ectx *c, const json_t *fc, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    const char *name0 = bind_func_name(fc);
    if (!name0) return bind_error(c->s, loc, FLOE_ERR_SYNTAX, "function name missing");
    char name[64];
    snprintf(name, sizeof name, "%s", name0);
    floe_ascii_lower_inplace(name, strlen(name));
    if (floe_pg_get(fc, "over") || bind_is_window_fn(name)) return bind_window_call(c, fc, name, out);
    bool ignore_nulls; /* IGNORE / RESPECT NULLS anywhere else is an error */
    FLOE_TRY(bind_null_treatment(c, loc, name, &ignore_nulls));
    if (agg_index(name) >= 0) return bind_aggregate(c, fc, name, out);
    if (floe_pg_get(fc, "over")) return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "window functions are not supported");
    json_t *args = floe_pg_get(fc, "args");
    int32_t n = floe_pg_list_len(args);
    if (!strcmp(name, "now") || !strcmp(name, "current_timestamp") || !strcmp(name, "transaction_timestamp") ||
        !strcmp(name, "statement_timestamp"))
        return bind_statement_time(c, false, out);
    if (!strcmp(name, "current_date")) return bind_statement_time(c, true, out);
    bool session_info = false;
    FLOE_TRY(bind_session_func(c, name, args, loc, &session_info, out));
    if (session_info) return NULL;
    /* Renames of PostgreSQL spellings. */
    const char *fn = name;
    if (!strcmp(name, "extract")) fn = "date_part";
    else if (!strcmp(name, "btrim")) fn = "trim";
    else if (!strcmp(name, "substr")) fn = "substring";
    else if (!strcmp(name, "char_length") || !strcmp(name, "character_length")) fn = "length";
    else if (!strcmp(name, "ceiling")) fn = "ceil";
    else if (!strcmp(name, "pow")) fn = "power";
    else if (!strcmp(name, "log") && n == 1) fn = "log10";
    else if (!strcmp(name, "position")) fn = "strpos"; /* position(sub IN s) arrives as (s, sub) */
    else if (!strcmp(name, "datediff")) fn = "date_diff";
    if (!strcmp(name, "mod") && n == 2) {
        floe_expr *l = NULL, *r = NULL;
        FLOE_TRY(bind_two(c, floe_pg_list_at(args, 0), floe_pg_list_at(args, 1), &l, &r));
        floe_status st = floe_expr_arith(FLOE_ARITH_MOD, l, r, out);
        floe_expr_release(l);
        floe_expr_release(r);
        return st;
    }
    if (!strcmp(name, "nullif") && n == 2) {
        floe_expr *l = NULL, *r = NULL, *eq = NULL, *nul = NULL;
        floe_type *lt = NULL;
        FLOE_TRY(bind_two(c, floe_pg_list_at(args, 0), floe_pg_list_at(args, 1), &l, &r));
        floe_status st = bind_make_cmp(c, FLOE_CMP_EQ, l, r, loc, &eq);
        if (!st) st = bind_type_of(c, l, &lt);
        if (!st) st = floe_expr_lit_null(lt, &nul);
        if (!st) st = floe_expr_case(&eq, &nul, 1, l, out);
        floe_type_release(lt);
        floe_expr_release(l);
        floe_expr_release(r);
        floe_expr_release(eq);
        floe_expr_release(nul);
        return st;
    }
    if (!strcmp(name, "make_interval")) return bind_make_interval(c, args, n, loc, out);
    if (!strcmp(name, "pg_typeof")) return bind_pg_typeof(c, args, n, loc, out);
    if (!strcmp(name, "date_bin") && n == 3) return bind_date_bin(c, args, loc, out);
    if (!strcmp(name, "struct_pack")) return bind_struct_pack(c, args, loc, out);
    if (!strcmp(name, "unnest") || bind_srf_list_fn(fc)) return bind_srf_call(c, fc, out);
    if (!strcmp(name, "array_append") || !strcmp(name, "array_prepend") || !strcmp(name, "array_cat") ||
        !strcmp(name, "array_position") || !strcmp(name, "array_remove")) {
        floe_expr *ab[2] = {NULL, NULL};
        if (n != 2) return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s takes 2 arguments", name);
        FLOE_TRY(bind_two(c, floe_pg_list_at(args, 0), floe_pg_list_at(args, 1), &ab[0], &ab[1]));
        floe_status st = bind_array_call(c, name, ab, 2, loc, out);
        floe_expr_release(ab[0]);
        floe_expr_release(ab[1]);
        return st;
    }
    if (!strcmp(name, "map") && n == 2) fn = "map_from_arrays";
    if (!strcmp(name, "coalesce")) {
        floe_expr **ev = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
        if (!ev) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        floe_status st = NULL;
        for (int32_t i = 0; i < n && !st; i++) st = bind_expr(c, floe_pg_list_at(args, i), &ev[i]);
        if (!st) st = bind_unify_list(c, ev, n, loc);
        if (!st) st = floe_expr_coalesce(ev, n, out);
        for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
        floe_free(ev);
        return st;
    }
    floe_expr **ev = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    if (!ev) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) {
        json_t *a = floe_pg_list_at(args, i);
        if (floe_pg_as(a, "NamedArgExpr")) {
            st = bind_error(c->s, floe_pg_location(a), FLOE_ERR_UNSUPPORTED, "named arguments are not supported for %s",
                            name);
            break;
        }
        st = bind_expr(c, a, &ev[i]);
    }
    /* date_part / date_trunc / date_diff take the field as text in lower case. */
    if (!st && n >= 1 && (!strcmp(fn, "date_part") || !strcmp(fn, "date_trunc") || !strcmp(fn, "date_diff")) &&
        bind_is_string_literal(ev[0])) {
        floe_buf t = FLOE_BUF_INIT;
        st = bind_literal_text(ev[0], &t);
        if (!st) {
            floe_ascii_lower_inplace((char *)t.data, t.len);
            floe_expr *l = NULL;
            st = floe_expr_lit_string(floe_buf_cstr(&t), &l);
            if (!st) {
                floe_expr_release(ev[0]);
                ev[0] = l;
            }
        }
        floe_buf_free(&t);
    }
    /* String-literal timestamps given to date functions. */
    if (!st && n >= 2 && (!strcmp(fn, "date_part") || !strcmp(fn, "date_trunc")) && bind_is_string_literal(ev[1])) {
        floe_expr *t = NULL;
        st = bind_coerce(c, ev[1], floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), loc, &t);
        if (!st) {
            floe_expr_release(ev[1]);
            ev[1] = t;
        }
    }
    if (!st && (!strcmp(fn, "greatest") || !strcmp(fn, "least"))) st = bind_unify_list(c, ev, n, loc);
    /* substring(s FROM 'pattern'): the regular-expression form (func_regexp.c). */
    if (!st && n == 2 && !strcmp(fn, "substring")) {
        floe_type *t = NULL;
        st = bind_type_of(c, ev[1], &t);
        if (!st && t->id == FLOE_TYPE_STRING) fn = "__regexp_substring";
        floe_type_release(t);
    }
    /* substring(s SIMILAR p ESCAPE e) and substring(s FROM p FOR e) with a
     * text p: the SQL-standard form, substring(s FROM similar_to_escape(p, e))
     * as PostgreSQL defines it. */
    if (!st && n == 3 && !strcmp(fn, "substring")) {
        floe_type *t = NULL;
        st = bind_type_of(c, ev[1], &t);
        if (!st && t->id == FLOE_TYPE_STRING) {
            floe_expr *are = NULL;
            st = bind_make_call(c, "similar_to_escape", ev + 1, 2, loc, &are);
            if (!st) {
                floe_expr_release(ev[1]);
                floe_expr_release(ev[2]);
                ev[1] = are;
                ev[2] = NULL;
                n = 2;
                fn = "__regexp_substring";
            }
        }
        floe_type_release(t);
    }
    if (!st) st = bind_make_call(c, fn, ev, n, loc, out);
    for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
    floe_free(ev);
    return st;
}
