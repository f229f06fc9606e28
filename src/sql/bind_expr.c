/*
 * bind_expr.c — binding expression nodes of the parse tree into floe_expr
 * trees.  bind_expr dispatches by node kind; the constructs with most to
 * them are bound in the files bind_expr_internal.h lists (operators, CASE
 * and CAST in bind_operator.c, function and aggregate calls in
 * bind_func.c, literals and implicit conversions in bind_literal.c), and
 * scalar subqueries in bind_subquery.c.  Here: column references (the scope,
 * the outer scope, struct field paths), constants, AND/OR/NOT, IS tests,
 * COALESCE and GREATEST/LEAST, bind_predicate and the output names of
 * select-list expressions.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_expr_internal.h"
#include "sql/pgnode.h"
#include "sql/select_no_rows.h"

/* ------------------------------------------------------ column refs */

static bool name_eq(const char *a, const char *b, bool ci) {
    return ci ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

/* Find `name` (qualified by `qual` when not NULL) in `sc`: index, -1 not
 * found, -2 ambiguous.  A table's own columns come before its metadata
 * (system) columns: a data column named _file hides the metadata one. */
static int32_t scope_find(const bind_scope *sc, const char *qual, const char *name) {
    for (int pass = 0; pass < 4; pass++) {
        int ci = pass % 2;
        bool system = pass >= 2;
        int32_t found = -1;
        for (int32_t i = 0; i < sc->n; i++) {
            const bind_col *col = &sc->cols[i];
            if (!qual && col->hidden) continue;
            if (col->system != system) continue;
            if (qual && (!col->qual || !name_eq(col->qual, qual, ci))) continue;
            if (!name_eq(col->name, name, ci)) continue;
            if (found >= 0) return -2;
            found = i;
        }
        if (found >= 0) return found;
    }
    return -1;
}

static floe_status unknown_column(bind_ectx *c, const char *qual, const char *name, int32_t location) {
    int32_t n = c->sc->n + (c->outer ? c->outer->n : 0);
    const char **cands = floe_calloc((size_t)n + 1, sizeof(char *));
    if (!cands) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    int32_t k = 0;
    for (int32_t i = 0; i < c->sc->n; i++)
        if (!c->sc->cols[i].hidden) cands[k++] = c->sc->cols[i].name;
    for (int32_t i = 0; c->outer && i < c->outer->n; i++)
        if (!c->outer->cols[i].hidden) cands[k++] = c->outer->cols[i].name;
    char full[512];
    if (qual) snprintf(full, sizeof full, "%s.%s", qual, name);
    else snprintf(full, sizeof full, "%s", name);
    floe_status st;
    if (qual) {
        /* Unknown relation or unknown column of it. */
        bool rel = false;
        for (int32_t i = 0; i < c->sc->n && !rel; i++)
            rel = c->sc->cols[i].qual && strcmp(c->sc->cols[i].qual, qual) == 0;
        for (int32_t i = 0; c->outer && i < c->outer->n && !rel; i++)
            rel = c->outer->cols[i].qual && strcmp(c->outer->cols[i].qual, qual) == 0;
        if (!rel) {
            const char **rels = floe_calloc((size_t)n + 1, sizeof(char *));
            int32_t nr = 0;
            for (int32_t i = 0; rels && i < c->sc->n; i++)
                if (c->sc->cols[i].qual) rels[nr++] = c->sc->cols[i].qual;
            st = rels ? floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "relation", floe_str_c(qual), rels, (size_t)nr)
                      : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            floe_free(rels);
            floe_free(cands);
            return bind_at(c->s, location, st);
        }
    }
    st = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "column", floe_str_c(full), cands, (size_t)k);
    if (qual && floe_status_code(st) == FLOE_ERR_NOT_FOUND && !strstr(floe_status_message(st), "did you mean")) {
        /* Suggest by the bare name too. */
        floe_status_free(st);
        st = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "column", floe_str_c(name), cands, (size_t)k);
        st = floe_status_wrap(st, "in '%s'", full);
    }
    floe_free(cands);
    return bind_at(c->s, location, st);
}

/* Look `name` (qualified by `qual` when not NULL) up in the scope, then
 * the outer scope: *out NULL when it is in neither. */
static floe_status find_column(bind_ectx *c, const char *qual, const char *name, int32_t loc, floe_expr **out) {
    *out = NULL;
    int32_t idx = scope_find(c->sc, qual, name);
    if (idx == -2) return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "column reference \"%s\" is ambiguous", name);
    if (idx >= 0) {
        int32_t shift = c->outer ? c->outer->n : 0;
        return floe_expr_column(idx + shift, out);
    }
    if (c->outer) {
        idx = scope_find(c->outer, qual, name);
        if (idx == -2)
            return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "column reference \"%s\" is ambiguous", name);
        if (idx >= 0) {
            c->outer_used = true;
            return floe_expr_column(idx, out);
        }
    }
    return NULL;
}

/* `base`.field as struct_extract(base, 'field'); consumes `base`. */
static floe_status struct_field(bind_ectx *c, floe_expr *base, const char *field, int32_t loc, floe_expr **out) {
    *out = NULL;
    floe_expr *name = NULL;
    floe_status st = floe_expr_lit_string(field, &name);
    floe_expr *args[2] = {base, name};
    if (!st) st = floe_expr_call("struct_extract", args, 2, out);
    floe_expr_release(base);
    floe_expr_release(name);
    if (!st && (st = bind_check(c, *out, loc))) {
        floe_expr_release(*out);
        *out = NULL;
    }
    return st;
}

/* Whether expression `e` has a struct type. */
static bool is_struct_expr(bind_ectx *c, const floe_expr *e) {
    floe_type *t = NULL;
    floe_status st = bind_type_of(c, e, &t);
    bool yes = !st && t && t->id == FLOE_TYPE_STRUCT;
    floe_status_free(st);
    floe_type_release(t);
    return yes;
}

/* A struct column followed by field names: parts[0..m) name the column
 * (m = 1: column, 2: relation.column), parts[m..n) its nested fields.
 * *out NULL when parts[0..m) is not a struct column. */
static floe_status column_fields(bind_ectx *c, const char *const *parts, int32_t m, int32_t n, int32_t loc,
                                 floe_expr **out) {
    *out = NULL;
    floe_expr *e = NULL;
    FLOE_TRY(find_column(c, m == 2 ? parts[0] : NULL, parts[m - 1], loc, &e));
    if (!e) return NULL;
    if (!is_struct_expr(c, e)) {
        floe_expr_release(e);
        return NULL;
    }
    for (int32_t i = m; i < n; i++) {
        floe_expr *next = NULL;
        FLOE_TRY(struct_field(c, e, parts[i], loc, &next)); /* consumes e */
        e = next;
    }
    *out = e;
    return NULL;
}

/* A column reference: [[catalog.]relation.]column, as PostgreSQL resolves
 * it, and failing that a struct column's field path: rel.col.f..., then
 * col.f...  (PostgreSQL itself wants (col).f for fields; both work). */
static floe_status bind_column_ref(bind_ectx *c, const json_t *body, floe_expr **out) {
    json_t *fields = floe_pg_get(body, "fields");
    int32_t n = floe_pg_list_len(fields), loc = (int32_t)floe_pg_get_int(body, "location", -1);
    enum { MAX_PARTS = 32 };
    const char *parts[MAX_PARTS] = {NULL};
    if (n < 1 || n > MAX_PARTS) return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "column reference with %d parts", (int)n);
    for (int32_t i = 0; i < n; i++) {
        parts[i] = floe_pg_string(floe_pg_list_at(fields, i));
        if (!parts[i]) return bind_error(c->s, loc, FLOE_ERR_SYNTAX, "'*' is not allowed here");
    }
    const char *name = n <= 3 ? parts[n - 1] : parts[0], *qual = n >= 2 && n <= 3 ? parts[n - 2] : NULL;
    if (n <= 3) {
        FLOE_TRY(find_column(c, qual, name, loc, out));
        if (*out) return NULL;
    }
    if (n >= 3) FLOE_TRY(column_fields(c, parts, 2, n, loc, out));
    if (!*out && n >= 2) FLOE_TRY(column_fields(c, parts, 1, n, loc, out));
    /* a relation's name alone: its whole row, as a struct (row_to_json(t)) */
    if (!*out && n == 1) FLOE_TRY(bind_whole_row(c, name, loc, out));
    if (*out) return NULL;
    return unknown_column(c, n <= 3 ? qual : NULL, name, loc);
}

/* (expr).field[.field...]: PostgreSQL's A_Indirection with field names
 * and subscripts xs[i] / m[k] (bind_nested.c; .* is not supported). */
static floe_status bind_indirection(bind_ectx *c, const json_t *body, int32_t loc, floe_expr **out) {
    *out = NULL;
    json_t *ind = floe_pg_get(body, "indirection");
    int32_t n = floe_pg_list_len(ind);
    floe_expr *e = NULL;
    FLOE_TRY(bind_expr(c, floe_pg_get(body, "arg"), &e));
    for (int32_t i = 0; i < n; i++) {
        const json_t *item = floe_pg_list_at(ind, i);
        const char *field = floe_pg_string(item);
        const json_t *sub = floe_pg_as(item, "A_Indices");
        if (sub) {
            floe_expr *next = NULL;
            floe_status st = bind_subscript(c, e, sub, loc, &next);
            floe_expr_release(e);
            FLOE_TRY(st);
            e = next;
            continue;
        }
        if (!field) {
            floe_expr_release(e);
            const char *k = floe_pg_node_kind(item);
            return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "%s is not supported here",
                              k && !strcmp(k, "A_Indices") ? "subscripting" : k && !strcmp(k, "A_Star") ? ".*" : "this indirection");
        }
        if (!is_struct_expr(c, e)) {
            floe_expr_release(e);
            return bind_error(c->s, loc, FLOE_ERR_TYPE, "field '%s' of a value that is not a struct", field);
        }
        floe_expr *next = NULL;
        FLOE_TRY(struct_field(c, e, field, loc, &next)); /* consumes e */
        e = next;
    }
    *out = e;
    return NULL;
}

/* ------------------------------------------------------- constants */

static floe_status bind_const(bind_ectx *c, const json_t *node, floe_expr **out) {
    floe_pg_const k = floe_pg_const_of(node);
    int32_t loc = floe_pg_location(node);
    switch (k.kind) {
    case FLOE_PG_CONST_NULL: return floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_NULL), out);
    case FLOE_PG_CONST_INT: {
        int64_t v;
        bind_const_int(c->s, node, &v);
        if (v >= INT32_MIN && v <= INT32_MAX) return floe_expr_lit_int32((int32_t)v, out);
        return floe_expr_lit_int64(v, out);
    }
    case FLOE_PG_CONST_FLOAT: return bind_at(c->s, loc, bind_lit_numeric_text(k.text, out));
    case FLOE_PG_CONST_STRING: return floe_expr_lit_string(k.text, out);
    case FLOE_PG_CONST_BOOL: return floe_expr_lit_bool(k.ival != 0, out);
    default: return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "bit-string constants are not supported");
    }
}

/* ------------------------------------------------------------ main */

static floe_status bind_bool_expr(bind_ectx *c, const json_t *body, floe_expr **out) {
    const char *op = floe_pg_get_str(body, "boolop");
    json_t *args = floe_pg_get(body, "args");
    int32_t n = floe_pg_list_len(args);
    if (op && !strcmp(op, "NOT_EXPR")) {
        floe_expr *a = NULL;
        FLOE_TRY(bind_predicate(c, floe_pg_list_at(args, 0), &a));
        floe_status st = floe_expr_not(a, out);
        floe_expr_release(a);
        return st;
    }
    bool is_and = op && !strcmp(op, "AND_EXPR");
    floe_expr *acc = NULL;
    for (int32_t i = 0; i < n; i++) {
        floe_expr *a = NULL, *x = NULL;
        floe_status st = bind_predicate(c, floe_pg_list_at(args, i), &a);
        if (!st && acc) st = is_and ? floe_expr_and(acc, a, &x) : floe_expr_or(acc, a, &x);
        else if (!st) x = floe_expr_retain(a);
        floe_expr_release(a);
        floe_expr_release(acc);
        acc = x;
        if (st) return st;
    }
    *out = acc;
    return NULL;
}

static floe_status bind_boolean_test(bind_ectx *c, const json_t *body, floe_expr **out) {
    const char *t = floe_pg_get_str(body, "booltesttype");
    floe_expr *a = NULL, *x = NULL, *f = NULL;
    FLOE_TRY(bind_predicate(c, floe_pg_get(body, "arg"), &a));
    floe_status st = NULL;
    if (!strcmp(t, "IS_UNKNOWN") || !strcmp(t, "IS_NOT_UNKNOWN")) {
        st = floe_expr_is_null(a, t[3] == 'N', out);
    } else {
        bool want_true = !strcmp(t, "IS_TRUE") || !strcmp(t, "IS_NOT_TRUE");
        bool negate = !strncmp(t, "IS_NOT", 6);
        floe_expr *v = NULL;
        if (want_true) v = floe_expr_retain(a);
        else st = floe_expr_not(a, &v);
        floe_expr *args[2] = {v, NULL};
        if (!st) st = floe_expr_lit_bool(false, &f);
        args[1] = f;
        if (!st) st = floe_expr_coalesce(args, 2, &x);
        if (!st && negate) st = floe_expr_not(x, out);
        else if (!st) *out = floe_expr_retain(x);
        floe_expr_release(v);
    }
    floe_expr_release(a);
    floe_expr_release(x);
    floe_expr_release(f);
    return st;
}

floe_status bind_expr(bind_ectx *c, const json_t *node, floe_expr **out) {
    *out = NULL;
    const char *kind = floe_pg_node_kind(node);
    json_t *body = floe_pg_node_body(node);
    int32_t loc = floe_pg_location(node);
    if (!kind) return bind_error(c->s, -1, FLOE_ERR_SYNTAX, "expression missing");
    if (!strcmp(kind, "ColumnRef")) return bind_column_ref(c, body, out);
    if (!strcmp(kind, "A_Indirection")) return bind_indirection(c, body, loc, out);
    if (!strcmp(kind, "A_Const")) return bind_const(c, node, out);
    if (!strcmp(kind, "A_Expr")) return bind_a_expr(c, body, out);
    if (!strcmp(kind, "BoolExpr")) return bind_bool_expr(c, body, out);
    if (!strcmp(kind, "NullTest")) {
        floe_expr *a = NULL;
        FLOE_TRY(bind_expr(c, floe_pg_get(body, "arg"), &a));
        const char *t = floe_pg_get_str(body, "nulltesttype");
        floe_status st = floe_expr_is_null(a, t && !strcmp(t, "IS_NOT_NULL"), out);
        floe_expr_release(a);
        return st;
    }
    if (!strcmp(kind, "BooleanTest")) return bind_boolean_test(c, body, out);
    if (!strcmp(kind, "TypeCast")) return bind_type_cast(c, body, out);
    if (!strcmp(kind, "FuncCall")) return bind_func(c, body, out);
    if (!strcmp(kind, "CaseExpr")) return bind_case(c, body, out);
    if (!strcmp(kind, "GroupingFunc")) return bind_grouping_func(c, body, out);
    if (!strcmp(kind, "CoalesceExpr")) {
        json_t *args = floe_pg_get(body, "args");
        int32_t n = floe_pg_list_len(args);
        floe_expr **ev = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
        if (!ev) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        floe_status st = NULL;
        const char *srf_was = c->no_srf_in; /* PostgreSQL runs no set-returning function in COALESCE */
        c->no_srf_in = "COALESCE";
        for (int32_t i = 0; i < n && !st; i++) st = bind_expr(c, floe_pg_list_at(args, i), &ev[i]);
        c->no_srf_in = srf_was;
        if (!st) st = bind_unify_list(c, ev, n, loc);
        if (!st) st = floe_expr_coalesce(ev, n, out);
        if (!st && (st = bind_check(c, *out, loc))) {
            floe_expr_release(*out);
            *out = NULL;
        }
        for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
        floe_free(ev);
        return st;
    }
    if (!strcmp(kind, "MinMaxExpr")) {
        json_t *args = floe_pg_get(body, "args");
        int32_t n = floe_pg_list_len(args);
        const char *op = floe_pg_get_str(body, "op");
        floe_expr **ev = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
        if (!ev) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        floe_status st = NULL;
        for (int32_t i = 0; i < n && !st; i++) st = bind_expr(c, floe_pg_list_at(args, i), &ev[i]);
        if (!st) st = bind_unify_list(c, ev, n, loc);
        if (!st) st = bind_make_call(c, op && !strcmp(op, "IS_LEAST") ? "least" : "greatest", ev, n, loc, out);
        for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
        floe_free(ev);
        return st;
    }
    if (!strcmp(kind, "SQLValueFunction")) {
        const char *op = floe_pg_get_str(body, "op");
        if (op && !strcmp(op, "SVFOP_CURRENT_DATE")) return bind_statement_time(c, true, out);
        if (op && (!strncmp(op, "SVFOP_CURRENT_TIMESTAMP", 23) || !strncmp(op, "SVFOP_LOCALTIMESTAMP", 20)))
            return bind_statement_time(c, false, out);
        if (!op) return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "this function is not supported");
        return bind_session_value(c, op, loc, out);
    }
    if (!strcmp(kind, "CollateClause")) {
        /* the default collation (byte order) is the only one */
        json_t *cn = floe_pg_get(body, "collname");
        const char *coll = floe_pg_string(floe_pg_list_at(cn, floe_pg_list_len(cn) - 1));
        if (!coll || (strcmp(coll, "default") && strcmp(coll, "C") && strcmp(coll, "POSIX") && strcmp(coll, "ucs_basic")))
            return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "collation \"%s\" is not supported (only \"C\")",
                              coll ? coll : "?");
        return bind_expr(c, floe_pg_get(body, "arg"), out);
    }
    if (!strcmp(kind, "SubLink")) {
        const char *t = floe_pg_get_str(body, "subLinkType");
        if (t && floe_sql_select_no_rows(floe_pg_node_body(floe_pg_get(body, "subselect")))) {
            /* Over no rows (a client's catalog query reading pg_sequence,
             * say): a scalar subquery is NULL, EXISTS and IN false, ALL true. */
            if (!strcmp(t, "EXPR_SUBLINK")) return floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_NULL), out);
            if (!strcmp(t, "EXISTS_SUBLINK") || !strcmp(t, "ANY_SUBLINK")) return floe_expr_lit_bool(false, out);
            if (!strcmp(t, "ALL_SUBLINK")) return floe_expr_lit_bool(true, out);
        }
        if (t && !strcmp(t, "EXPR_SUBLINK")) return bind_scalar_subquery(c, node, out);
        if (t && !strcmp(t, "ARRAY_SUBLINK")) return bind_array_sublink(c, node, out);
        return bind_sublink_value(c, node, out);
    }
    if (!strcmp(kind, "A_ArrayExpr")) return bind_array_expr(c, body, loc, out);
    if (!strcmp(kind, "RowExpr")) return bind_row_expr(c, body, loc, out);
    if (!strcmp(kind, "ParamRef")) return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "parameters are not supported");
    return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "expression %s is not supported", kind);
}

floe_status bind_predicate(bind_ectx *c, const json_t *node, floe_expr **out) {
    FLOE_TRY(bind_expr(c, node, out));
    floe_type *t = NULL;
    floe_status st = bind_type_of(c, *out, &t);
    if (!st && t->id != FLOE_TYPE_BOOL && t->id != FLOE_TYPE_NULL) {
        floe_buf tn = FLOE_BUF_INIT;
        st = floe_type_to_string(t, &tn);
        if (!st)
            st = bind_error(c->s, floe_pg_location(node), FLOE_ERR_TYPE, "argument of %s must be boolean, not %s",
                            c->clause ? c->clause : "a condition", floe_buf_cstr(&tn));
        floe_buf_free(&tn);
    }
    floe_type_release(t);
    if (st) {
        floe_expr_release(*out);
        *out = NULL;
    }
    return st;
}

const char *bind_default_name(const json_t *node) {
    const char *kind = floe_pg_node_kind(node);
    json_t *body = floe_pg_node_body(node);
    if (!kind) return "?column?";
    if (!strcmp(kind, "ColumnRef")) {
        json_t *f = floe_pg_get(body, "fields");
        const char *s = floe_pg_string(floe_pg_list_at(f, floe_pg_list_len(f) - 1));
        return s ? s : "?column?";
    }
    if (!strcmp(kind, "A_Indirection")) {
        /* (s).f is named f, as in PostgreSQL */
        json_t *f = floe_pg_get(body, "indirection");
        const char *s = floe_pg_string(floe_pg_list_at(f, floe_pg_list_len(f) - 1));
        return s ? s : bind_default_name(floe_pg_get(body, "arg")); /* xs[1] is named xs */
    }
    if (!strcmp(kind, "FuncCall")) {
        const char *n = bind_func_name(body);
        if (n && !strcmp(n, "extract")) return "extract";
        if (n && !strcmp(n, "btrim")) return "btrim";
        return n ? n : "?column?";
    }
    if (!strcmp(kind, "TypeCast")) {
        const char *inner = bind_default_name(floe_pg_get(body, "arg"));
        if (strcmp(inner, "?column?") != 0) return inner;
        json_t *names = floe_pg_get(floe_pg_get(body, "typeName"), "names");
        const char *t = floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
        return t ? t : "?column?";
    }
    if (!strcmp(kind, "CaseExpr")) return "case";
    if (!strcmp(kind, "A_ArrayExpr")) return "array";
    if (!strcmp(kind, "RowExpr")) return "row";
    if (!strcmp(kind, "GroupingFunc")) return "grouping";
    if (!strcmp(kind, "CoalesceExpr")) return "coalesce";
    if (!strcmp(kind, "MinMaxExpr")) {
        const char *op = floe_pg_get_str(body, "op");
        return op && !strcmp(op, "IS_LEAST") ? "least" : "greatest";
    }
    if (!strcmp(kind, "A_Expr")) {
        const char *k = floe_pg_get_str(body, "kind");
        if (k && !strcmp(k, "AEXPR_NULLIF")) return "nullif";
    }
    if (!strcmp(kind, "SQLValueFunction")) {
        const char *op = floe_pg_get_str(body, "op");
        if (op && !strcmp(op, "SVFOP_CURRENT_DATE")) return "current_date";
        if (op && !strncmp(op, "SVFOP_CURRENT_TIMESTAMP", 23)) return "current_timestamp";
    }
    if (!strcmp(kind, "SubLink")) {
        const char *t = floe_pg_get_str(body, "subLinkType");
        if (t && !strcmp(t, "EXISTS_SUBLINK")) return "exists";
        if (t && (!strcmp(t, "ANY_SUBLINK") || !strcmp(t, "ALL_SUBLINK"))) return "?column?"; /* x IN (...) */
        json_t *sub = floe_pg_as(floe_pg_get(body, "subselect"), "SelectStmt");
        json_t *tl = floe_pg_get(sub, "targetList");
        if (floe_pg_list_len(tl) == 1) {
            json_t *rt = floe_pg_as(floe_pg_list_at(tl, 0), "ResTarget");
            const char *nm = floe_pg_get_str(rt, "name");
            return nm ? nm : bind_default_name(floe_pg_get(rt, "val"));
        }
    }
    return "?column?";
}
