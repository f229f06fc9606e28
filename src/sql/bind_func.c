/*
 * bind_func.c — binding function calls: aggregate calls (count, sum, min,
 * max, avg, bool_and / bool_or / every; collected as extras of an
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

/* ------------------------------------------------------- functions */

static const struct {
    const char *name;
    floe_agg_fn fn;
} k_aggs[] = {
    {"count", FLOE_AGG_COUNT},   {"sum", FLOE_AGG_SUM},           {"min", FLOE_AGG_MIN},
    {"max", FLOE_AGG_MAX},       {"avg", FLOE_AGG_AVG},           {"bool_and", FLOE_AGG_BOOL_AND},
    {"bool_or", FLOE_AGG_BOOL_OR}, {"every", FLOE_AGG_BOOL_AND},
};

static int agg_index(const char *name) {
    for (size_t i = 0; i < sizeof(k_aggs) / sizeof(k_aggs[0]); i++)
        if (!strcmp(k_aggs[i].name, name)) return (int)i;
    return -1;
}

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

static floe_status bind_aggregate(bind_ectx *c, const json_t *fc, const char *name, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    if (!c->agg_mode)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "aggregate functions are not allowed in %s",
                          c->clause ? c->clause : "this clause");
    if (c->in_agg_arg)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "aggregate function calls cannot be nested");
    if (floe_pg_get(fc, "over"))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "window functions are not supported");
    if (floe_pg_get(fc, "agg_filter") || floe_pg_get(fc, "agg_order"))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "FILTER / ORDER BY in aggregates is not supported");
    bind_extra x;
    memset(&x, 0, sizeof(x));
    json_t *args = floe_pg_get(fc, "args");
    x.is_agg = true;
    x.agg.fn = k_aggs[agg_index(name)].fn;
    x.agg.distinct = floe_pg_get_bool(fc, "agg_distinct");
    if (floe_pg_get_bool(fc, "agg_star")) {
        if (x.agg.fn != FLOE_AGG_COUNT) return bind_error(c->s, loc, FLOE_ERR_SYNTAX, "%s(*) is not allowed", name);
        x.agg.fn = FLOE_AGG_COUNT_STAR;
    } else {
        if (floe_pg_list_len(args) != 1)
            return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "%s takes one argument", name);
        /* The argument is over the FROM columns only. */
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
        st = bind_expr(c, floe_pg_list_at(args, 0), &x.agg.arg);
        c->in_agg_arg = false;
        c->schema = saved;
        floe_type_release(from);
        if (st) return st;
    }
    /* The same call twice is one aggregate. */
    for (int32_t i = 0; i < c->n_extras; i++) {
        bind_extra *e = &c->extras[i];
        if (e->is_agg && e->agg.fn == x.agg.fn && e->agg.distinct == x.agg.distinct &&
            ((!e->agg.arg && !x.agg.arg) || (e->agg.arg && x.agg.arg && bind_expr_equal(e->agg.arg, x.agg.arg)))) {
            floe_expr_release(x.agg.arg);
            return floe_expr_column(c->n_from + i, out);
        }
    }
    char aname[96];
    snprintf(aname, sizeof aname, "%s_%d", name, (int)c->n_extras);
    x.agg.name = floe_strdup(aname);
    floe_schema *from = NULL;
    int32_t nf = c->n_from;
    floe_field *f = floe_calloc((size_t)nf + 1, sizeof(floe_field));
    floe_status st = (!x.agg.name || !f) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    for (int32_t i = 0; !st && i < nf; i++) f[i] = *floe_schema_field(c->schema, i);
    if (!st) st = floe_type_struct(f, nf, &from);
    floe_free(f);
    if (!st) st = bind_at(c->s, loc, floe_agg_result_type(&x.agg, from, &x.type));
    floe_type_release(from);
    int32_t idx = -1;
    if (!st) st = bind_add_extra(c, &x, &idx);
    if (st) {
        floe_expr_release(x.agg.arg);
        floe_free(x.agg.name);
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

floe_status bind_func(bind_ectx *c, const json_t *fc, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    const char *name0 = bind_func_name(fc);
    if (!name0) return bind_error(c->s, loc, FLOE_ERR_SYNTAX, "function name missing");
    char name[64];
    snprintf(name, sizeof name, "%s", name0);
    floe_ascii_lower_inplace(name, strlen(name));
    if (floe_pg_get(fc, "over") || bind_is_window_fn(name)) return bind_window_call(c, fc, name, out);
    if (agg_index(name) >= 0) return bind_aggregate(c, fc, name, out);
    if (floe_pg_get(fc, "over")) return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "window functions are not supported");
    json_t *args = floe_pg_get(fc, "args");
    int32_t n = floe_pg_list_len(args);
    if (!strcmp(name, "now") || !strcmp(name, "current_timestamp") || !strcmp(name, "transaction_timestamp") ||
        !strcmp(name, "statement_timestamp"))
        return bind_statement_time(c, false, out);
    if (!strcmp(name, "current_date")) return bind_statement_time(c, true, out);
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
    if (!st) st = bind_make_call(c, fn, ev, n, loc, out);
    for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
    floe_free(ev);
    return st;
}
