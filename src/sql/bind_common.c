/*
 * bind_common.c — what every part of the binder uses (bind.h): the scopes
 * that name a query level's columns, errors positioned in the statement,
 * helpers over bound expressions, and the expression context with its
 * typing schema and the extras (aggregate calls, deferred subqueries) of
 * an aggregating query level.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/str.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/pgnode.h"

/* ------------------------------------------------------------- scopes */

void bind_scope_free(bind_scope *sc) {
    for (int32_t i = 0; i < sc->n; i++) {
        floe_free(sc->cols[i].qual);
        floe_free(sc->cols[i].name);
    }
    floe_free(sc->cols);
    memset(sc, 0, sizeof(*sc));
}

floe_status bind_scope_add(bind_scope *sc, const char *qual, const char *name, bool hidden) {
    if (sc->n == sc->cap) {
        int32_t cap = sc->cap ? sc->cap * 2 : 8;
        bind_col *nc = floe_realloc(sc->cols, (size_t)cap * sizeof(*nc));
        if (!nc) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        sc->cols = nc;
        sc->cap = cap;
    }
    bind_col *c = &sc->cols[sc->n];
    c->qual = qual ? floe_strdup(qual) : NULL;
    c->name = floe_strdup(name ? name : "?column?");
    c->hidden = hidden;
    c->system = false;
    c->using_side = false;
    if ((qual && !c->qual) || !c->name) {
        floe_free(c->qual);
        floe_free(c->name);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    sc->n++;
    return NULL;
}

floe_status bind_scope_append(bind_scope *dst, const bind_scope *src) {
    for (int32_t i = 0; i < src->n; i++) {
        FLOE_TRY(bind_scope_add(dst, src->cols[i].qual, src->cols[i].name, src->cols[i].hidden));
        dst->cols[dst->n - 1].system = src->cols[i].system;
        dst->cols[dst->n - 1].using_side = src->cols[i].using_side;
    }
    return NULL;
}

void bind_scope_mark_system(bind_scope *sc, int32_t from) {
    for (int32_t i = from; i < sc->n; i++) sc->cols[i].system = true;
}

floe_status bind_scope_from_schema(const floe_schema *schema, const char *qual, bind_scope *out) {
    memset(out, 0, sizeof(*out));
    for (int32_t i = 0; i < floe_schema_num_fields(schema); i++) {
        floe_status st = bind_scope_add(out, qual, floe_schema_field(schema, i)->name, false);
        if (st) {
            bind_scope_free(out);
            return st;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ errors */

floe_status bind_error(floe_session *s, int32_t location, floe_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(code, fmt, ap);
    va_end(ap);
    if (location < 0 || !s || !s->script) return st;
    int32_t line, col;
    floe_sql_line_col(s->script->sql, location, &line, &col);
    return floe_status_wrap(st, "line %d, column %d", (int)line, (int)col);
}

floe_status bind_at(floe_session *s, int32_t location, floe_status st) {
    if (!st || location < 0 || !s || !s->script) return st;
    const char *m = floe_status_message(st);
    if (strncmp(m, "line ", 5) == 0) return st; /* already positioned */
    int32_t line, col;
    floe_sql_line_col(s->script->sql, location, &line, &col);
    return floe_status_wrap(st, "line %d, column %d", (int)line, (int)col);
}

bool bind_const_int(floe_session *s, const json_t *node, int64_t *out) {
    floe_pg_const c = floe_pg_const_of_sql(node, s && s->script ? s->script->sql : NULL);
    if (c.kind != FLOE_PG_CONST_INT) return false;
    *out = c.ival;
    return true;
}

/* ------------------------------------------------------- expr helpers */

bool bind_expr_equal(const floe_expr *a, const floe_expr *b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->op != b->op || a->n_args != b->n_args) return false;
    if (a->kind == FLOE_EXPR_COLUMN && a->column != b->column) return false;
    if (a->kind == FLOE_EXPR_LITERAL && !floe_array_equals(a->literal, b->literal)) return false;
    if (a->kind == FLOE_EXPR_CAST && !floe_type_equals(a->cast_type, b->cast_type)) return false;
    if (a->kind == FLOE_EXPR_CALL && strcmp(a->func ? a->func : "", b->func ? b->func : "") != 0) return false;
    for (int32_t i = 0; i < a->n_args; i++)
        if (!bind_expr_equal(a->args[i], b->args[i])) return false;
    return true;
}

floe_status bind_expr_with_args(const floe_expr *e, floe_expr *const *args, int32_t n, floe_expr **out) {
    return floe_expr_make(e->kind, e->op, e->column, e->literal, e->cast_type, e->func, args, n, out);
}

bool bind_expr_has_columns(const floe_expr *e) {
    if (e->kind == FLOE_EXPR_COLUMN) return true;
    for (int32_t i = 0; i < e->n_args; i++)
        if (bind_expr_has_columns(e->args[i])) return true;
    return false;
}

void bind_expr_column_range(const floe_expr *e, int32_t *lo, int32_t *hi) {
    if (e->kind == FLOE_EXPR_COLUMN) {
        if (e->column < *lo) *lo = e->column;
        if (e->column > *hi) *hi = e->column;
    }
    for (int32_t i = 0; i < e->n_args; i++) bind_expr_column_range(e->args[i], lo, hi);
}

floe_status bind_expr_shift(const floe_expr *e, int32_t delta, floe_expr **out) {
    if (e->kind == FLOE_EXPR_COLUMN) return floe_expr_column(e->column + delta, out);
    if (e->n_args == 0) {
        *out = floe_expr_retain((floe_expr *)e);
        return NULL;
    }
    floe_expr *args[e->n_args > 0 ? e->n_args : 1];
    floe_status st = NULL;
    int32_t k = 0;
    for (; k < e->n_args && !st; k++) st = bind_expr_shift(e->args[k], delta, &args[k]);
    if (st) k--;
    if (!st) st = bind_expr_with_args(e, args, e->n_args, out);
    for (int32_t i = 0; i < k; i++) floe_expr_release(args[i]);
    return st;
}

floe_status bind_conjuncts(floe_expr *e, floe_expr ***parts, int32_t *n) {
    if (e->kind == FLOE_EXPR_AND) {
        FLOE_TRY(bind_conjuncts(e->args[0], parts, n));
        return bind_conjuncts(e->args[1], parts, n);
    }
    floe_expr **np = floe_realloc(*parts, (size_t)(*n + 1) * sizeof(floe_expr *));
    if (!np) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    *parts = np;
    np[(*n)++] = floe_expr_retain(e);
    return NULL;
}

floe_status bind_and_all(floe_expr *const *parts, int32_t n, floe_expr **out) {
    *out = NULL;
    if (n == 0) return NULL;
    floe_expr *acc = floe_expr_retain(parts[0]);
    for (int32_t i = 1; i < n; i++) {
        floe_expr *x = NULL;
        floe_status st = floe_expr_and(acc, parts[i], &x);
        floe_expr_release(acc);
        if (st) return st;
        acc = x;
    }
    *out = acc;
    return NULL;
}

void bind_expr_list_free(floe_expr **parts, int32_t n) {
    for (int32_t i = 0; i < n; i++) floe_expr_release(parts[i]);
    floe_free(parts);
}

floe_status bind_eval_const(const floe_expr *e, floe_array **out) {
    *out = NULL;
    floe_schema *empty = NULL;
    floe_batch *b = NULL;
    FLOE_TRY(floe_type_struct(NULL, 0, &empty));
    floe_status st = floe_batch_new(empty, NULL, 0, 1, &b);
    if (!st) st = floe_expr_eval(e, b, out);
    floe_batch_release(b);
    floe_type_release(empty);
    return st;
}

/* ----------------------------------------------------------- contexts */

void bind_ectx_init(bind_ectx *c, floe_session *s, bind_scope *sc, floe_schema *schema, const char *clause) {
    memset(c, 0, sizeof(*c));
    c->s = s;
    c->sql = s && s->script ? s->script->sql : NULL;
    c->sc = sc;
    c->schema = floe_type_retain(schema);
    c->n_from = schema ? floe_schema_num_fields(schema) : 0;
    c->clause = clause;
}

void bind_ectx_clear(bind_ectx *c) {
    floe_type_release(c->schema);
    floe_type_release(c->outer_schema);
    for (int32_t i = 0; i < c->n_extras; i++) {
        bind_extra *x = &c->extras[i];
        floe_agg_call_clear(&x->agg);
        floe_lplan_free(x->subquery);
        floe_expr_release(x->srf_arg);
        floe_type_release(x->type);
    }
    floe_free(c->extras);
    c->schema = NULL;
    c->outer_schema = NULL;
    c->extras = NULL;
    c->n_extras = 0;
}

/* The typing schema: outer ++ input (++ extras). */
static floe_status typing_schema(bind_ectx *c, floe_schema **out) {
    if (!c->outer) {
        *out = floe_type_retain(c->schema);
        return NULL;
    }
    int32_t no = floe_schema_num_fields(c->outer_schema), ni = floe_schema_num_fields(c->schema);
    floe_field *f = floe_calloc((size_t)(no + ni) + 1, sizeof(floe_field));
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < no; i++) f[i] = *floe_schema_field(c->outer_schema, i);
    for (int32_t i = 0; i < ni; i++) f[no + i] = *floe_schema_field(c->schema, i);
    floe_status st = floe_type_struct(f, no + ni, out);
    floe_free(f); /* the fields were borrowed (floe_type_struct copies) */
    return st;
}

floe_status bind_type_of(bind_ectx *c, const floe_expr *e, floe_type **out) {
    floe_schema *sch = NULL;
    FLOE_TRY(typing_schema(c, &sch));
    floe_status st = floe_expr_type(e, sch, out);
    floe_type_release(sch);
    return st;
}

/* Append a column to the typing schema. */
static floe_status schema_append(floe_schema **schema, const char *name, floe_type *type) {
    int32_t n = floe_schema_num_fields(*schema);
    floe_field *f = floe_calloc((size_t)n + 1, sizeof(floe_field));
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n; i++) f[i] = *floe_schema_field(*schema, i);
    f[n].name = (char *)name;
    f[n].type = type;
    f[n].nullable = true;
    f[n].field_id = -1;
    floe_schema *ns = NULL;
    floe_status st = floe_type_struct(f, n + 1, &ns);
    floe_free(f);
    if (st) return st;
    floe_type_release(*schema);
    *schema = ns;
    return NULL;
}

floe_status bind_add_extra(bind_ectx *c, bind_extra *x, int32_t *index) {
    if (c->n_extras == c->cap_extras) {
        int32_t cap = c->cap_extras ? c->cap_extras * 2 : 4;
        bind_extra *ne = floe_realloc(c->extras, (size_t)cap * sizeof(*ne));
        if (!ne) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        c->extras = ne;
        c->cap_extras = cap;
    }
    char name[32];
    snprintf(name, sizeof name, "extra_%d", (int)c->n_extras);
    FLOE_TRY(schema_append(&c->schema, name, x->type));
    c->extras[c->n_extras] = *x;
    *index = c->n_from + c->n_extras;
    c->n_extras++;
    return NULL;
}
