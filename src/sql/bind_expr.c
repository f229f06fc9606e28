/*
 * bind_expr.c — binding expression nodes of the parse tree into floe_expr
 * trees: column references, constants typed like PostgreSQL's, operators
 * with implicit conversions, CASE/CAST/IN/LIKE/BETWEEN, scalar functions
 * (names as in helper-interfaces), aggregate calls (collected as extras of
 * an aggregating query level) and scalar subqueries.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "floe/iceberg_value.h"
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
    if ((qual && !c->qual) || !c->name) {
        floe_free(c->qual);
        floe_free(c->name);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    sc->n++;
    return NULL;
}

floe_status bind_scope_append(bind_scope *dst, const bind_scope *src) {
    for (int32_t i = 0; i < src->n; i++)
        FLOE_TRY(bind_scope_add(dst, src->cols[i].qual, src->cols[i].name, src->cols[i].hidden));
    return NULL;
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
    floe_pg_const c = floe_pg_const_of(node);
    if (c.kind != FLOE_PG_CONST_INT) return false;
    json_t *iv = floe_pg_get(floe_pg_node_body(node), "ival");
    if (floe_pg_get(iv, "ival")) {
        *out = c.ival;
        return true;
    }
    /* The value is 0 or negative: read it from the text. */
    int32_t loc = floe_pg_location(node);
    *out = 0;
    if (loc < 0 || !s || !s->script) return true;
    const char *p = s->script->sql + loc;
    bool neg = false;
    while (*p == '-' || floe_ascii_isspace(*p) || *p == '(') {
        if (*p == '-') neg = !neg;
        p++;
    }
    int64_t v = 0;
    while (floe_ascii_isdigit(*p)) v = v * 10 + (*p++ - '0');
    *out = neg ? -v : v;
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
        floe_expr_release(x->agg.arg);
        floe_free(x->agg.name);
        floe_lplan_free(x->subquery);
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

/* ---------------------------------------------------------- literals */

static floe_status lit_decimal(__int128 v, int32_t precision, int32_t scale, floe_expr **out) {
    floe_type *t = NULL;
    FLOE_TRY(floe_type_decimal(precision, scale, &t));
    floe_builder *b = NULL;
    floe_array *a = NULL;
    floe_status st = floe_builder_new(t, 1, &b);
    floe_decimal128 d = {(uint64_t)v, (int64_t)(v >> 64)};
    if (!st) st = floe_builder_append_decimal(b, d);
    if (!st) st = floe_builder_finish(b, &a);
    if (!st) st = floe_expr_literal(a, out);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(t);
    return st;
}

/* A literal of a temporal type from its int value. */
static floe_status lit_typed_int(floe_type_id id, int64_t v, floe_expr **out) {
    floe_type *t = floe_type_primitive(id);
    floe_builder *b = NULL;
    floe_array *a = NULL;
    floe_status st = floe_builder_new(t, 1, &b);
    if (!st) st = t->byte_width == 4 ? floe_builder_append_int32(b, (int32_t)v) : floe_builder_append_int64(b, v);
    if (!st) st = floe_builder_finish(b, &a);
    if (!st) st = floe_expr_literal(a, out);
    floe_array_release(a);
    floe_builder_free(b);
    return st;
}

/* Numeric text of the scanner (fval): "3000000000", "1.50", "1e3". */
static floe_status lit_numeric_text(const char *text, floe_expr **out) {
    bool neg = text[0] == '-';
    const char *p = neg || text[0] == '+' ? text + 1 : text;
    if (strpbrk(p, "eE")) {
        double d;
        FLOE_TRY(floe_parse_double(floe_str_c(text), "numeric literal", &d));
        return floe_expr_lit_double(d, out);
    }
    const char *dot = strchr(p, '.');
    if (!dot) {
        int64_t v;
        floe_status st = floe_parse_int64(floe_str_c(text), NULL, &v);
        if (!st) return floe_expr_lit_int64(v, out);
        floe_status_free(st);
    }
    __int128 v = 0;
    int32_t digits = 0, scale = 0, lead = 1;
    for (const char *q = p; *q; q++) {
        if (*q == '.') continue;
        if (!floe_ascii_isdigit(*q)) return floe_error(FLOE_ERR_SYNTAX, "bad numeric literal '%s'", text);
        if (lead && *q == '0' && (!dot || q < dot - 1)) {
            if (dot && q > dot) scale++;
            continue;
        }
        lead = 0;
        if (digits >= 38) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "numeric literal '%s' has more than 38 digits", text);
        v = v * 10 + (*q - '0');
        digits++;
        if (dot && q > dot) scale++;
    }
    if (digits < scale) digits = scale;
    if (digits == 0) digits = 1;
    return lit_decimal(neg ? -v : v, digits, scale, out);
}

/* Is `e` a string literal written as a quoted constant? (Those take the
 * type of what they are compared with, as PostgreSQL's unknown literals.) */
static bool is_string_literal(const floe_expr *e) {
    return e->kind == FLOE_EXPR_LITERAL && e->literal->type->id == FLOE_TYPE_STRING &&
           !floe_array_is_null(e->literal, 0);
}

static int parse_digits(const char **p, int max, int64_t *v) {
    int n = 0;
    *v = 0;
    while (n < max && floe_ascii_isdigit(**p)) {
        *v = *v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    return n;
}

/* "YYYY-MM-DD[ |T]HH:MM[:SS[.ffffff]][Z|+HH[:MM]|-HH[:MM]]" → days and
 * micros of day (after applying an offset when `utc`). */
static floe_status parse_datetime(const char *text, bool want_time, int64_t *days, int64_t *micros, bool *has_tz) {
    const char *p = text;
    while (floe_ascii_isspace(*p)) p++;
    int64_t y, m, d, hh = 0, mi = 0, ss = 0, frac = 0;
    bool neg = *p == '-';
    if (neg) p++;
    if (parse_digits(&p, 6, &y) < 4 || *p++ != '-' || parse_digits(&p, 2, &m) < 1 || *p++ != '-' ||
        parse_digits(&p, 2, &d) < 1)
        goto bad;
    if (neg) y = -y;
    *has_tz = false;
    int64_t off = 0;
    if (*p == ' ' || *p == 'T' || *p == 't') {
        while (*p == ' ' || *p == 'T' || *p == 't') p++;
        if (*p) {
            if (parse_digits(&p, 2, &hh) < 1 || *p++ != ':' || parse_digits(&p, 2, &mi) < 2) goto bad;
            if (*p == ':') {
                p++;
                if (parse_digits(&p, 2, &ss) < 2) goto bad;
                if (*p == '.') {
                    p++;
                    int64_t f;
                    const char *s0 = p;
                    int n = parse_digits(&p, 9, &f);
                    if (n == 0) goto bad;
                    (void)s0;
                    while (n < 6) { f *= 10; n++; }
                    while (n > 6) { f /= 10; n--; }
                    frac = f;
                    while (floe_ascii_isdigit(*p)) p++;
                }
            }
            while (*p == ' ') p++;
            if (*p == 'Z' || *p == 'z') {
                *has_tz = true;
                p++;
            } else if (*p == '+' || *p == '-') {
                int sign = *p == '-' ? -1 : 1;
                p++;
                int64_t oh, om = 0;
                if (parse_digits(&p, 2, &oh) < 1) goto bad;
                if (*p == ':') p++;
                parse_digits(&p, 2, &om);
                off = sign * (oh * 3600 + om * 60);
                *has_tz = true;
            } else if (strncasecmp(p, "utc", 3) == 0) {
                *has_tz = true;
                p += 3;
            }
        }
    }
    while (floe_ascii_isspace(*p)) p++;
    if (*p || m < 1 || m > 12 || d < 1 || d > 31 || hh > 24 || mi > 59 || ss > 60) goto bad;
    int64_t dd = floe_ice_days_from_civil(y, (int)m, (int)d);
    int64_t yy;
    int mm2, dd2;
    floe_ice_civil_from_days(dd, &yy, &mm2, &dd2);
    if (yy != y || mm2 != m || dd2 != d) goto bad;
    (void)want_time;
    *days = dd;
    *micros = ((hh * 60 + mi) * 60 + ss - off) * 1000000 + frac;
    return NULL;
bad:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid %s value '%s'", want_time ? "timestamp" : "date", text);
}

static floe_status parse_time(const char *text, int64_t *micros) {
    const char *p = text;
    int64_t hh, mi, ss = 0, frac = 0;
    if (parse_digits(&p, 2, &hh) < 1 || *p++ != ':' || parse_digits(&p, 2, &mi) < 2) goto bad;
    if (*p == ':') {
        p++;
        if (parse_digits(&p, 2, &ss) < 2) goto bad;
        if (*p == '.') {
            p++;
            int n = parse_digits(&p, 9, &frac);
            while (n < 6) { frac *= 10; n++; }
            while (n > 6) { frac /= 10; n--; }
        }
    }
    if (*p || hh > 24 || mi > 59 || ss > 60) goto bad;
    *micros = ((hh * 60 + mi) * 60 + ss) * 1000000 + frac;
    return NULL;
bad:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid time value '%s'", text);
}

/* A literal of `type` from SQL text (typed string constants, string
 * literals compared with typed columns). */
static floe_status literal_from_text(const char *text, const floe_type *type, floe_expr **out) {
    switch (type->id) {
    case FLOE_TYPE_STRING: return floe_expr_lit_string(text, out);
    case FLOE_TYPE_BOOL: {
        bool v;
        FLOE_TRY(floe_parse_bool(floe_str_trim(floe_str_c(text)), "boolean", &v));
        return floe_expr_lit_bool(v, out);
    }
    case FLOE_TYPE_INT32: case FLOE_TYPE_INT64: {
        int64_t v;
        FLOE_TRY(floe_parse_int64(floe_str_trim(floe_str_c(text)), type->id == FLOE_TYPE_INT32 ? "integer" : "bigint", &v));
        if (type->id == FLOE_TYPE_INT32) {
            if (v < INT32_MIN || v > INT32_MAX)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "value '%s' is out of range for integer", text);
            return floe_expr_lit_int32((int32_t)v, out);
        }
        return floe_expr_lit_int64(v, out);
    }
    case FLOE_TYPE_FLOAT32: case FLOE_TYPE_FLOAT64: {
        double v;
        FLOE_TRY(floe_parse_double(floe_str_trim(floe_str_c(text)), "double", &v));
        if (type->id == FLOE_TYPE_FLOAT64) return floe_expr_lit_double(v, out);
        floe_expr *d = NULL;
        FLOE_TRY(floe_expr_lit_double(v, &d));
        floe_status st = floe_expr_cast(d, floe_type_primitive(FLOE_TYPE_FLOAT32), out);
        floe_expr_release(d);
        return st;
    }
    case FLOE_TYPE_DECIMAL128: {
        floe_expr *n = NULL;
        char buf[80];
        floe_str t = floe_str_trim(floe_str_c(text));
        if (t.len == 0 || t.len >= sizeof buf) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid decimal '%s'", text);
        memcpy(buf, t.ptr, t.len);
        buf[t.len] = 0;
        FLOE_TRY(lit_numeric_text(buf, &n));
        /* Re-scale to the target's scale. */
        floe_type *nt = n->literal->type;
        if (nt->id == FLOE_TYPE_DECIMAL128 || nt->id == FLOE_TYPE_INT64) {
            __int128 v = nt->id == FLOE_TYPE_INT64 ? (__int128)floe_array_get_int64(n->literal, 0) : 0;
            int32_t sc = 0;
            if (nt->id == FLOE_TYPE_DECIMAL128) {
                floe_decimal128 d = floe_array_get_decimal(n->literal, 0);
                v = ((__int128)d.hi << 64) | d.lo;
                sc = nt->scale;
            }
            floe_expr_release(n);
            if (sc > type->scale)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' has more fraction digits than %s allows", text,
                                  "the decimal's scale");
            for (; sc < type->scale; sc++) v *= 10;
            return lit_decimal(v, type->precision, type->scale, out);
        }
        floe_expr_release(n);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid decimal '%s'", text);
    }
    case FLOE_TYPE_DATE32: {
        int64_t days, micros;
        bool tz;
        FLOE_TRY(parse_datetime(text, false, &days, &micros, &tz));
        return lit_typed_int(FLOE_TYPE_DATE32, days, out);
    }
    case FLOE_TYPE_TIME64_US: {
        int64_t micros;
        FLOE_TRY(parse_time(floe_str_trim(floe_str_c(text)).ptr, &micros));
        return lit_typed_int(FLOE_TYPE_TIME64_US, micros, out);
    }
    case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_NS_TZ: {
        int64_t days, micros;
        bool tz;
        FLOE_TRY(parse_datetime(text, true, &days, &micros, &tz));
        int64_t v = days * 86400000000LL + micros;
        if (type->id == FLOE_TYPE_TIMESTAMP_NS || type->id == FLOE_TYPE_TIMESTAMP_NS_TZ) v *= 1000;
        return lit_typed_int(type->id, v, out);
    }
    case FLOE_TYPE_UUID: {
        uint8_t bytes[16];
        int k = 0;
        for (const char *p = text; *p && k < 32; p++) {
            if (*p == '-') continue;
            int h = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) >= 'a' && tolower((unsigned char)*p) <= 'f') ? tolower((unsigned char)*p) - 'a' + 10 : -1;
            if (h < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid uuid '%s'", text);
            if (k % 2 == 0) bytes[k / 2] = (uint8_t)(h << 4);
            else bytes[k / 2] |= (uint8_t)h;
            k++;
        }
        if (k != 32) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid uuid '%s'", text);
        floe_builder *b = NULL;
        floe_array *a = NULL;
        floe_status st = floe_builder_new(floe_type_primitive(FLOE_TYPE_UUID), 1, &b);
        if (!st) st = floe_builder_append_fixed(b, bytes);
        if (!st) st = floe_builder_finish(b, &a);
        if (!st) st = floe_expr_literal(a, out);
        floe_array_release(a);
        floe_builder_free(b);
        return st;
    }
    case FLOE_TYPE_BINARY: case FLOE_TYPE_FIXED_BINARY: {
        /* bytea input: '\x0102ff' is hex, anything else the raw bytes. */
        size_t len = strlen(text);
        uint8_t *bytes = floe_malloc(len + 1);
        if (!bytes) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        size_t n = 0;
        floe_status st = NULL;
        if (len >= 2 && text[0] == '\\' && (text[1] == 'x' || text[1] == 'X')) {
            for (size_t i = 2; i < len && !st; i += 2) {
                int hi = isxdigit((unsigned char)text[i]) ? (isdigit((unsigned char)text[i]) ? text[i] - '0' : (tolower((unsigned char)text[i]) - 'a' + 10)) : -1;
                int lo = i + 1 < len && isxdigit((unsigned char)text[i + 1])
                             ? (isdigit((unsigned char)text[i + 1]) ? text[i + 1] - '0' : (tolower((unsigned char)text[i + 1]) - 'a' + 10))
                             : -1;
                if (hi < 0 || lo < 0) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid hexadecimal bytes '%s'", text);
                else bytes[n++] = (uint8_t)(hi << 4 | lo);
            }
        } else {
            memcpy(bytes, text, len);
            n = len;
        }
        if (!st && type->id == FLOE_TYPE_FIXED_BINARY && (int32_t)n != type->byte_width)
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' is %zu bytes, not the %d of fixed[%d]", text, n,
                            (int)type->byte_width, (int)type->byte_width);
        floe_builder *b = NULL;
        floe_array *a = NULL;
        if (!st) st = floe_builder_new((floe_type *)type, 1, &b);
        if (!st) st = type->id == FLOE_TYPE_BINARY ? floe_builder_append_binary(b, bytes, (int64_t)n)
                                                    : floe_builder_append_fixed(b, bytes);
        if (!st) st = floe_builder_finish(b, &a);
        if (!st) st = floe_expr_literal(a, out);
        floe_array_release(a);
        floe_builder_free(b);
        floe_free(bytes);
        return st;
    }
    default: {
        floe_buf tn = FLOE_BUF_INIT;
        floe_status st = floe_type_to_string(type, &tn);
        if (!st) st = floe_error(FLOE_ERR_UNSUPPORTED, "cannot read '%s' as %s", text, floe_buf_cstr(&tn));
        floe_buf_free(&tn);
        return st;
    }
    }
}

/* The text of a string literal expression (borrowed into buf). */
static floe_status literal_text(const floe_expr *e, floe_buf *buf) {
    floe_strview v = floe_array_get_str(e->literal, 0);
    floe_buf_clear(buf);
    return floe_buf_append(buf, v.data, (size_t)v.len);
}

static bool is_temporal(floe_type_id id) {
    return id == FLOE_TYPE_DATE32 || id == FLOE_TYPE_TIMESTAMP_US || id == FLOE_TYPE_TIMESTAMP_US_TZ ||
           id == FLOE_TYPE_TIMESTAMP_NS || id == FLOE_TYPE_TIMESTAMP_NS_TZ || id == FLOE_TYPE_TIME64_US;
}
static bool is_ts(floe_type_id id) {
    return id == FLOE_TYPE_TIMESTAMP_US || id == FLOE_TYPE_TIMESTAMP_US_TZ || id == FLOE_TYPE_TIMESTAMP_NS ||
           id == FLOE_TYPE_TIMESTAMP_NS_TZ;
}
static bool is_num(floe_type_id id) {
    return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64 || id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64 ||
           id == FLOE_TYPE_DECIMAL128;
}

floe_status bind_coerce(bind_ectx *c, floe_expr *e, const floe_type *type, int32_t location, floe_expr **out) {
    *out = NULL;
    if (is_string_literal(e) && type->id != FLOE_TYPE_STRING && type->id != FLOE_TYPE_NULL) {
        floe_buf t = FLOE_BUF_INIT;
        floe_status st = literal_text(e, &t);
        if (!st) st = literal_from_text(floe_buf_cstr(&t), type, out);
        floe_buf_free(&t);
        return bind_at(c->s, location, st);
    }
    floe_type *et = NULL;
    FLOE_TRY(bind_at(c->s, location, bind_type_of(c, e, &et)));
    bool same = floe_type_equals(et, type) || et->id == FLOE_TYPE_NULL || type->id == FLOE_TYPE_NULL;
    floe_type_release(et);
    if (same) {
        *out = floe_expr_retain(e);
        return NULL;
    }
    return floe_expr_cast(e, (floe_type *)type, out);
}

/* Make the two operands of a comparison or arithmetic agree where
 * PostgreSQL would convert implicitly: untyped string literals take the
 * other side's type; a date meets a timestamp as a timestamp. */
static floe_status unify_pair(bind_ectx *c, floe_expr **l, floe_expr **r, int32_t location) {
    floe_type *tl = NULL, *tr = NULL;
    floe_status st = bind_type_of(c, *l, &tl);
    if (!st) st = bind_type_of(c, *r, &tr);
    if (st) goto done;
    floe_expr *nl = NULL, *nr = NULL;
    if (is_string_literal(*l) && tr->id != FLOE_TYPE_STRING && tr->id != FLOE_TYPE_NULL && !floe_type_is_nested(tr)) {
        st = bind_coerce(c, *l, tr, location, &nl);
    } else if (is_string_literal(*r) && tl->id != FLOE_TYPE_STRING && tl->id != FLOE_TYPE_NULL &&
               !floe_type_is_nested(tl)) {
        st = bind_coerce(c, *r, tl, location, &nr);
    } else if (is_ts(tl->id) && is_ts(tr->id) && tl->id != tr->id) {
        /* Timestamps of different kinds: a constant takes the other side's
         * kind; between two columns the plain one is read as UTC. */
        bool lc = !bind_expr_has_columns(*l), rc = !bind_expr_has_columns(*r);
        if (lc && !rc) st = floe_expr_cast(*l, tr, &nl);
        else if (rc && !lc) st = floe_expr_cast(*r, tl, &nr);
        else if (tl->id == FLOE_TYPE_TIMESTAMP_US || tl->id == FLOE_TYPE_TIMESTAMP_NS) st = floe_expr_cast(*l, tr, &nl);
        else st = floe_expr_cast(*r, tl, &nr);
    } else if ((tl->id == FLOE_TYPE_FLOAT32 || tl->id == FLOE_TYPE_FLOAT64) && tr->id == FLOE_TYPE_DECIMAL128 &&
               !bind_expr_has_columns(*r)) {
        /* A numeric constant meets a float column as a float of its kind
         * (1.23 = real_col matches the stored 1.23f). */
        st = floe_expr_cast(*r, tl, &nr);
    } else if ((tr->id == FLOE_TYPE_FLOAT32 || tr->id == FLOE_TYPE_FLOAT64) && tl->id == FLOE_TYPE_DECIMAL128 &&
               !bind_expr_has_columns(*l)) {
        st = floe_expr_cast(*l, tr, &nl);
    } else if (tl->id == FLOE_TYPE_FLOAT32 && tr->id == FLOE_TYPE_FLOAT64 && !bind_expr_has_columns(*r)) {
        st = floe_expr_cast(*r, tl, &nr);
    } else if (tr->id == FLOE_TYPE_FLOAT32 && tl->id == FLOE_TYPE_FLOAT64 && !bind_expr_has_columns(*l)) {
        st = floe_expr_cast(*l, tr, &nl);
    } else if (tl->id == FLOE_TYPE_DATE32 && is_temporal(tr->id) && tr->id != FLOE_TYPE_DATE32 &&
               tr->id != FLOE_TYPE_TIME64_US) {
        st = floe_expr_cast(*l, tr, &nl);
    } else if (tr->id == FLOE_TYPE_DATE32 && is_temporal(tl->id) && tl->id != FLOE_TYPE_DATE32 &&
               tl->id != FLOE_TYPE_TIME64_US) {
        st = floe_expr_cast(*r, tl, &nr);
    }
    if (nl) {
        floe_expr_release(*l);
        *l = nl;
    }
    if (nr) {
        floe_expr_release(*r);
        *r = nr;
    }
done:
    floe_type_release(tl);
    floe_type_release(tr);
    return st;
}

/* Type-check a freshly built node, positioning any error. */
static floe_status check(bind_ectx *c, floe_expr *e, int32_t location) {
    floe_type *t = NULL;
    floe_status st = bind_type_of(c, e, &t);
    floe_type_release(t);
    return bind_at(c->s, location, st);
}

/* ------------------------------------------------------ column refs */

static bool name_eq(const char *a, const char *b, bool ci) {
    return ci ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

/* Find `name` (qualified by `qual` when not NULL) in `sc`: index, -1 not
 * found, -2 ambiguous. */
static int32_t scope_find(const bind_scope *sc, const char *qual, const char *name) {
    for (int ci = 0; ci < 2; ci++) {
        int32_t found = -1;
        for (int32_t i = 0; i < sc->n; i++) {
            const bind_col *col = &sc->cols[i];
            if (!qual && col->hidden) continue;
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
    if (!st && (st = check(c, *out, loc))) {
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
    if (*out) return NULL;
    return unknown_column(c, n <= 3 ? qual : NULL, name, loc);
}

/* (expr).field[.field...]: PostgreSQL's A_Indirection with field names
 * (subscripts and .* are not supported). */
static floe_status bind_indirection(bind_ectx *c, const json_t *body, int32_t loc, floe_expr **out) {
    *out = NULL;
    json_t *ind = floe_pg_get(body, "indirection");
    int32_t n = floe_pg_list_len(ind);
    floe_expr *e = NULL;
    FLOE_TRY(bind_expr(c, floe_pg_get(body, "arg"), &e));
    for (int32_t i = 0; i < n; i++) {
        const json_t *item = floe_pg_list_at(ind, i);
        const char *field = floe_pg_string(item);
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
    case FLOE_PG_CONST_FLOAT: return bind_at(c->s, loc, lit_numeric_text(k.text, out));
    case FLOE_PG_CONST_STRING: return floe_expr_lit_string(k.text, out);
    case FLOE_PG_CONST_BOOL: return floe_expr_lit_bool(k.ival != 0, out);
    default: return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "bit-string constants are not supported");
    }
}

/* ------------------------------------------------------- operators */

static floe_status bind2(bind_ectx *c, const json_t *a, const json_t *b, floe_expr **ea, floe_expr **eb) {
    *ea = *eb = NULL;
    FLOE_TRY(bind_expr(c, a, ea));
    floe_status st = bind_expr(c, b, eb);
    if (st) {
        floe_expr_release(*ea);
        *ea = NULL;
    }
    return st;
}

static floe_status make_cmp(bind_ectx *c, floe_cmp_op op, floe_expr *l, floe_expr *r, int32_t loc, floe_expr **out) {
    floe_expr *L = floe_expr_retain(l), *R = floe_expr_retain(r);
    floe_status st = unify_pair(c, &L, &R, loc);
    if (!st) st = floe_expr_cmp(op, L, R, out);
    floe_expr_release(L);
    floe_expr_release(R);
    if (!st && (st = check(c, *out, loc))) {
        floe_expr_release(*out);
        *out = NULL;
    }
    return st;
}

/* An INTERVAL constant as (months, days, micros). */
typedef struct interval {
    int32_t months, days;
    int64_t micros;
} interval;

static floe_status parse_interval(floe_session *s, const char *text, int64_t field_mask, int32_t loc, interval *iv) {
    memset(iv, 0, sizeof(*iv));
    const char *p = text;
    bool any = false;
    while (*p) {
        while (floe_ascii_isspace(*p)) p++;
        if (!*p) break;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p) goto bad;
        p = end;
        while (floe_ascii_isspace(*p)) p++;
        const char *u = p;
        while (*p && !floe_ascii_isspace(*p) && !floe_ascii_isdigit(*p) && *p != '-' && *p != '+') p++;
        size_t ul = (size_t)(p - u);
        char unit[16] = {0};
        if (ul >= sizeof unit) goto bad;
        for (size_t i = 0; i < ul; i++) unit[i] = floe_ascii_lower(u[i]);
        if (ul == 0) {
            /* A bare number: the unit comes from the qualifier
             * (INTERVAL '90' DAY); PostgreSQL's masks: YEAR 4, MONTH 2,
             * DAY 8, HOUR 1024, MINUTE 2048, SECOND 4096. */
            if (field_mask & 4) strcpy(unit, "year");
            else if (field_mask & 2) strcpy(unit, "month");
            else if (field_mask & 8) strcpy(unit, "day");
            else if (field_mask & 1024) strcpy(unit, "hour");
            else if (field_mask & 2048) strcpy(unit, "minute");
            else strcpy(unit, "second");
        }
        size_t n = strlen(unit);
        if (n > 1 && unit[n - 1] == 's') unit[--n] = 0;
        if (!strcmp(unit, "year") || !strcmp(unit, "y")) iv->months += (int32_t)(v * 12);
        else if (!strcmp(unit, "month") || !strcmp(unit, "mon")) iv->months += (int32_t)v;
        else if (!strcmp(unit, "week") || !strcmp(unit, "w")) iv->days += (int32_t)(v * 7);
        else if (!strcmp(unit, "day") || !strcmp(unit, "d")) iv->days += (int32_t)v;
        else if (!strcmp(unit, "hour") || !strcmp(unit, "h")) iv->micros += (int64_t)(v * 3600e6);
        else if (!strcmp(unit, "minute") || !strcmp(unit, "min") || !strcmp(unit, "m")) iv->micros += (int64_t)(v * 60e6);
        else if (!strcmp(unit, "second") || !strcmp(unit, "sec") || !strcmp(unit, "s")) iv->micros += (int64_t)(v * 1e6);
        else if (!strcmp(unit, "millisecond") || !strcmp(unit, "m")) iv->micros += (int64_t)(v * 1e3);
        else if (!strcmp(unit, "microsecond")) iv->micros += (int64_t)v;
        else goto bad;
        any = true;
    }
    if (!any) goto bad;
    return NULL;
bad:
    return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "invalid interval '%s'", text);
}

/* Is the node INTERVAL '...' (a TypeCast of a string to interval)? */
static bool node_interval(bind_ectx *c, const json_t *node, interval *iv, floe_status *st) {
    json_t *tc = floe_pg_as(node, "TypeCast");
    if (!tc) return false;
    floe_pg_type_name tn;
    floe_status s2 = floe_pg_type_name_of(floe_pg_get(tc, "typeName"), &tn);
    if (s2) {
        floe_status_free(s2);
        return false;
    }
    if (strcmp(tn.name, "interval") != 0) return false;
    floe_pg_const k = floe_pg_const_of(floe_pg_get(tc, "arg"));
    if (k.kind != FLOE_PG_CONST_STRING) {
        *st = bind_error(c->s, floe_pg_location(node), FLOE_ERR_UNSUPPORTED, "only constant intervals are supported");
        return true;
    }
    *st = parse_interval(c->s, k.text, tn.n_mods > 0 ? tn.mods[0] : 0, floe_pg_location(node), iv);
    return true;
}

static floe_status make_call(bind_ectx *c, const char *name, floe_expr *const *args, int32_t n, int32_t loc,
                             floe_expr **out) {
    FLOE_TRY(bind_at(c->s, loc, floe_expr_call(name, args, n, out)));
    floe_status st = check(c, *out, loc);
    if (st) {
        floe_expr_release(*out);
        *out = NULL;
    }
    return st;
}

static floe_status add_interval(bind_ectx *c, floe_expr *x, const interval *iv, bool negate, int32_t loc,
                                floe_expr **out) {
    floe_expr *args[4] = {x, NULL, NULL, NULL};
    floe_status st = floe_expr_lit_int32(negate ? -iv->months : iv->months, &args[1]);
    if (!st) st = floe_expr_lit_int32(negate ? -iv->days : iv->days, &args[2]);
    if (!st) st = floe_expr_lit_int64(negate ? -iv->micros : iv->micros, &args[3]);
    if (!st) st = make_call(c, "add_interval", args, 4, loc, out);
    for (int i = 1; i < 4; i++) floe_expr_release(args[i]);
    return st;
}

static int cmp_op_of(const char *op) {
    if (!strcmp(op, "=")) return FLOE_CMP_EQ;
    if (!strcmp(op, "<>") || !strcmp(op, "!=")) return FLOE_CMP_NE;
    if (!strcmp(op, "<")) return FLOE_CMP_LT;
    if (!strcmp(op, "<=")) return FLOE_CMP_LE;
    if (!strcmp(op, ">")) return FLOE_CMP_GT;
    if (!strcmp(op, ">=")) return FLOE_CMP_GE;
    return -1;
}

static int arith_op_of(const char *op) {
    if (!strcmp(op, "+")) return FLOE_ARITH_ADD;
    if (!strcmp(op, "-")) return FLOE_ARITH_SUB;
    if (!strcmp(op, "*")) return FLOE_ARITH_MUL;
    if (!strcmp(op, "/")) return FLOE_ARITH_DIV;
    if (!strcmp(op, "%")) return FLOE_ARITH_MOD;
    return -1;
}

/* LIKE / ILIKE, with an optional ESCAPE (rexpr = like_escape(p, e)). */
static floe_status bind_like(bind_ectx *c, const json_t *body, bool ilike, bool negate, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    json_t *rexpr = floe_pg_get(body, "rexpr");
    json_t *fc = floe_pg_as(rexpr, "FuncCall");
    floe_expr *args[3] = {NULL, NULL, NULL};
    int32_t n = 2;
    floe_status st = bind_expr(c, floe_pg_get(body, "lexpr"), &args[0]);
    if (!st && fc) {
        floe_buf fn = FLOE_BUF_INIT;
        st = floe_pg_name_list(floe_pg_get(fc, "funcname"), &fn);
        bool esc = !st && strstr(floe_buf_cstr(&fn), "like_escape") != NULL;
        floe_buf_free(&fn);
        if (esc) {
            json_t *fa = floe_pg_get(fc, "args");
            st = bind2(c, floe_pg_list_at(fa, 0), floe_pg_list_at(fa, 1), &args[1], &args[2]);
            n = 3;
        } else if (!st) {
            st = bind_expr(c, rexpr, &args[1]);
        }
    } else if (!st) {
        st = bind_expr(c, rexpr, &args[1]);
    }
    floe_expr *call = NULL;
    if (!st) st = make_call(c, ilike ? "ilike" : "like", args, n, loc, &call);
    if (!st && negate) {
        st = floe_expr_not(call, out);
        floe_expr_release(call);
    } else if (!st) {
        *out = call;
    }
    for (int i = 0; i < 3; i++) floe_expr_release(args[i]);
    return st;
}

/* IS [NOT] DISTINCT FROM as CASE over the NULL cases. */
static floe_status make_distinct(bind_ectx *c, floe_expr *a, floe_expr *b, bool not_distinct, int32_t loc,
                                 floe_expr **out) {
    floe_expr *an = NULL, *bn = NULL, *bnn = NULL, *eq = NULL, *res = NULL, *lit = NULL;
    floe_status st = floe_expr_is_null(a, false, &an);
    if (!st) st = floe_expr_is_null(b, false, &bn);
    if (!st) st = floe_expr_is_null(b, !not_distinct ? true : false, &bnn);
    if (!st) st = make_cmp(c, not_distinct ? FLOE_CMP_EQ : FLOE_CMP_NE, a, b, loc, &eq);
    if (!st) st = floe_expr_lit_bool(!not_distinct, &lit);
    if (!st) {
        /* CASE WHEN a IS NULL THEN (b IS [NOT] NULL) WHEN b IS NULL THEN lit ELSE a op b END */
        floe_expr *whens[2] = {an, bn}, *thens[2] = {bnn, lit};
        st = floe_expr_case(whens, thens, 2, eq, &res);
    }
    floe_expr_release(an);
    floe_expr_release(bn);
    floe_expr_release(bnn);
    floe_expr_release(eq);
    floe_expr_release(lit);
    if (!st) *out = res;
    return st;
}

static floe_status bind_in_list(bind_ectx *c, const json_t *body, bool negate, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    json_t *items = floe_pg_get(body, "rexpr");
    if (floe_pg_as(items, "List")) items = floe_pg_get(floe_pg_as(items, "List"), "items");
    int32_t n = floe_pg_list_len(items);
    floe_expr *value = NULL, *res = NULL;
    floe_expr **ev = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    if (!ev) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    floe_status st = bind_expr(c, floe_pg_get(body, "lexpr"), &value);
    floe_type *vt = NULL;
    if (!st) st = bind_type_of(c, value, &vt);
    for (int32_t i = 0; i < n && !st; i++) {
        floe_expr *e = NULL;
        st = bind_expr(c, floe_pg_list_at(items, i), &e);
        if (!st) {
            if (is_string_literal(e) && vt->id != FLOE_TYPE_STRING)
                st = bind_coerce(c, e, vt, floe_pg_location(floe_pg_list_at(items, i)), &ev[i]);
            else
                ev[i] = floe_expr_retain(e);
        }
        floe_expr_release(e);
    }
    if (!st) st = floe_expr_in(value, ev, n, &res);
    if (!st) st = check(c, res, loc);
    if (!st && negate) {
        floe_expr *nres = NULL;
        st = floe_expr_not(res, &nres);
        floe_expr_release(res);
        res = nres;
    }
    if (!st) *out = res;
    else floe_expr_release(res);
    floe_type_release(vt);
    floe_expr_release(value);
    for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
    floe_free(ev);
    return st;
}

/* date ± integer (days) and date - date (days), as PostgreSQL. */
static floe_status date_arith(bind_ectx *c, int aop, floe_expr *l, floe_expr *r, int32_t loc, floe_expr **out,
                              bool *done) {
    *done = false;
    if (aop != FLOE_ARITH_ADD && aop != FLOE_ARITH_SUB) return NULL;
    floe_type *tl = NULL, *tr = NULL;
    floe_status st = bind_type_of(c, l, &tl);
    if (!st) st = bind_type_of(c, r, &tr);
    bool li = tl && (tl->id == FLOE_TYPE_INT32 || tl->id == FLOE_TYPE_INT64);
    bool ri = tr && (tr->id == FLOE_TYPE_INT32 || tr->id == FLOE_TYPE_INT64);
    bool ld = tl && tl->id == FLOE_TYPE_DATE32, rd = tr && tr->id == FLOE_TYPE_DATE32;
    if (!st && ((ld && ri) || (li && rd && aop == FLOE_ARITH_ADD))) {
        floe_expr *d = ld ? l : r, *n = ld ? r : l, *days = NULL, *zero = NULL, *zl = NULL, *zm = NULL, *ts = NULL;
        if (aop == FLOE_ARITH_SUB) {
            st = floe_expr_lit_int32(0, &zero);
            if (!st) st = floe_expr_arith(FLOE_ARITH_SUB, zero, n, &days);
        } else {
            days = floe_expr_retain(n);
        }
        if (!st) st = floe_expr_lit_int32(0, &zl);
        if (!st) st = floe_expr_lit_int64(0, &zm);
        floe_expr *args[4] = {d, zl, days, zm};
        if (!st) st = make_call(c, "add_interval", args, 4, loc, &ts);
        if (!st) st = floe_expr_cast(ts, floe_type_primitive(FLOE_TYPE_DATE32), out);
        floe_expr_release(days);
        floe_expr_release(zero);
        floe_expr_release(zl);
        floe_expr_release(zm);
        floe_expr_release(ts);
        if (!st) *done = true;
    } else if (!st && ld && rd && aop == FLOE_ARITH_SUB) {
        floe_expr *unit = NULL, *diff = NULL;
        st = floe_expr_lit_string("day", &unit);
        floe_expr *args[3] = {unit, r, l};
        if (!st) st = make_call(c, "date_diff", args, 3, loc, &diff);
        if (!st) st = floe_expr_cast(diff, floe_type_primitive(FLOE_TYPE_INT32), out);
        floe_expr_release(unit);
        floe_expr_release(diff);
        if (!st) *done = true;
    }
    floe_type_release(tl);
    floe_type_release(tr);
    return st;
}

static floe_status bind_arith(bind_ectx *c, const json_t *body, const char *op, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    json_t *lx = floe_pg_get(body, "lexpr"), *rx = floe_pg_get(body, "rexpr");
    int aop = arith_op_of(op);
    /* x ± INTERVAL '...' → add_interval */
    interval iv;
    floe_status ist = NULL;
    if (lx && (aop == FLOE_ARITH_ADD || aop == FLOE_ARITH_SUB) && node_interval(c, rx, &iv, &ist)) {
        if (ist) return ist;
        floe_expr *x = NULL;
        FLOE_TRY(bind_expr(c, lx, &x));
        if (is_string_literal(x)) {
            floe_expr *t = NULL;
            floe_status st = bind_coerce(c, x, floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), loc, &t);
            floe_expr_release(x);
            if (st) return st;
            x = t;
        }
        floe_status st = add_interval(c, x, &iv, aop == FLOE_ARITH_SUB, loc, out);
        floe_expr_release(x);
        return st;
    }
    if (lx && aop == FLOE_ARITH_ADD && node_interval(c, lx, &iv, &ist)) {
        if (ist) return ist;
        floe_expr *x = NULL;
        FLOE_TRY(bind_expr(c, rx, &x));
        floe_status st = add_interval(c, x, &iv, false, loc, out);
        floe_expr_release(x);
        return st;
    }
    if (!lx) {
        /* Unary minus / plus. */
        floe_expr *x = NULL;
        FLOE_TRY(bind_expr(c, rx, &x));
        if (aop == FLOE_ARITH_ADD) {
            *out = x;
            return NULL;
        }
        floe_expr *zero = NULL;
        floe_type *t = NULL;
        floe_status st = bind_type_of(c, x, &t);
        if (!st) {
            if (t->id == FLOE_TYPE_INT64) st = floe_expr_lit_int64(0, &zero);
            else if (t->id == FLOE_TYPE_FLOAT32 || t->id == FLOE_TYPE_FLOAT64) st = floe_expr_lit_double(0, &zero);
            else st = floe_expr_lit_int32(0, &zero);
        }
        if (!st) st = floe_expr_arith(FLOE_ARITH_SUB, zero, x, out);
        if (!st && (st = check(c, *out, loc))) {
            floe_expr_release(*out);
            *out = NULL;
        }
        /* Fold a negated constant right away. */
        if (!st && !bind_expr_has_columns(*out)) {
            floe_array *v = NULL;
            floe_status es = bind_eval_const(*out, &v);
            if (!es) {
                floe_expr *lit = NULL;
                if (!floe_expr_literal(v, &lit)) {
                    floe_expr_release(*out);
                    *out = lit;
                }
            }
            floe_status_free(es);
            floe_array_release(v);
        }
        floe_type_release(t);
        floe_expr_release(zero);
        floe_expr_release(x);
        return st;
    }
    floe_expr *l = NULL, *r = NULL;
    FLOE_TRY(bind2(c, lx, rx, &l, &r));
    bool done = false;
    floe_status st = date_arith(c, aop, l, r, loc, out, &done);
    if (!st && done) {
        floe_expr_release(l);
        floe_expr_release(r);
        return NULL;
    }
    if (!st) st = unify_pair(c, &l, &r, loc);
    if (!st) {
        if (!strcmp(op, "||")) {
            floe_expr *args[2] = {l, r};
            st = make_call(c, "textcat", args, 2, loc, out);
        } else {
            st = floe_expr_arith((floe_arith_op)aop, l, r, out);
            if (!st && (st = check(c, *out, loc))) {
                floe_expr_release(*out);
                *out = NULL;
            }
        }
    }
    floe_expr_release(l);
    floe_expr_release(r);
    return st;
}

static floe_status bind_a_expr(bind_ectx *c, const json_t *body, floe_expr **out) {
    const char *kind = floe_pg_get_str(body, "kind");
    json_t *names = floe_pg_get(body, "name");
    const char *op = floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    if (!kind || !op) return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "unsupported operator expression");
    if (!strcmp(kind, "AEXPR_OP")) {
        int cop = cmp_op_of(op);
        if (cop >= 0) {
            floe_expr *l = NULL, *r = NULL;
            FLOE_TRY(bind2(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &l, &r));
            floe_status st = make_cmp(c, (floe_cmp_op)cop, l, r, loc, out);
            floe_expr_release(l);
            floe_expr_release(r);
            return st;
        }
        if (arith_op_of(op) >= 0 || !strcmp(op, "||")) return bind_arith(c, body, op, out);
        if (!strcmp(op, "~~") || !strcmp(op, "!~~")) return bind_like(c, body, false, op[0] == '!', out);
        if (!strcmp(op, "~~*") || !strcmp(op, "!~~*")) return bind_like(c, body, true, op[0] == '!', out);
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "operator %s is not supported", op);
    }
    if (!strcmp(kind, "AEXPR_LIKE")) return bind_like(c, body, false, op[0] == '!', out);
    if (!strcmp(kind, "AEXPR_ILIKE")) return bind_like(c, body, true, op[0] == '!', out);
    if (!strcmp(kind, "AEXPR_IN")) return bind_in_list(c, body, strcmp(op, "<>") == 0, out);
    if (!strcmp(kind, "AEXPR_DISTINCT") || !strcmp(kind, "AEXPR_NOT_DISTINCT")) {
        floe_expr *l = NULL, *r = NULL;
        FLOE_TRY(bind2(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &l, &r));
        floe_status st = unify_pair(c, &l, &r, loc);
        if (!st) st = make_distinct(c, l, r, kind[6] == 'N', loc, out);
        floe_expr_release(l);
        floe_expr_release(r);
        return st;
    }
    if (!strcmp(kind, "AEXPR_NULLIF")) {
        floe_expr *l = NULL, *r = NULL, *eq = NULL, *nul = NULL;
        FLOE_TRY(bind2(c, floe_pg_get(body, "lexpr"), floe_pg_get(body, "rexpr"), &l, &r));
        floe_type *lt = NULL;
        floe_status st = make_cmp(c, FLOE_CMP_EQ, l, r, loc, &eq);
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
    if (!strncmp(kind, "AEXPR_BETWEEN", 13) || !strncmp(kind, "AEXPR_NOT_BETWEEN", 17)) {
        bool negate = strstr(kind, "NOT") != NULL, sym = strstr(kind, "SYM") != NULL;
        json_t *items = floe_pg_get(body, "rexpr");
        if (floe_pg_as(items, "List")) items = floe_pg_get(floe_pg_as(items, "List"), "items");
        floe_expr *x = NULL, *lo = NULL, *hi = NULL, *ge = NULL, *le = NULL, *res = NULL;
        floe_status st = bind_expr(c, floe_pg_get(body, "lexpr"), &x);
        if (!st) st = bind2(c, floe_pg_list_at(items, 0), floe_pg_list_at(items, 1), &lo, &hi);
        if (!st) st = make_cmp(c, FLOE_CMP_GE, x, lo, loc, &ge);
        if (!st) st = make_cmp(c, FLOE_CMP_LE, x, hi, loc, &le);
        if (!st) st = floe_expr_and(ge, le, &res);
        if (!st && sym) {
            /* BETWEEN SYMMETRIC: either order of the bounds. */
            floe_expr *ge2 = NULL, *le2 = NULL, *r2 = NULL, *both = NULL;
            st = make_cmp(c, FLOE_CMP_GE, x, hi, loc, &ge2);
            if (!st) st = make_cmp(c, FLOE_CMP_LE, x, lo, loc, &le2);
            if (!st) st = floe_expr_and(ge2, le2, &r2);
            if (!st) st = floe_expr_or(res, r2, &both);
            if (!st) {
                floe_expr_release(res);
                res = both;
            }
            floe_expr_release(ge2);
            floe_expr_release(le2);
            floe_expr_release(r2);
        }
        if (!st && negate) {
            floe_expr *n = NULL;
            st = floe_expr_not(res, &n);
            floe_expr_release(res);
            res = n;
        }
        if (!st) *out = res;
        else floe_expr_release(res);
        floe_expr_release(x);
        floe_expr_release(lo);
        floe_expr_release(hi);
        floe_expr_release(ge);
        floe_expr_release(le);
        return st;
    }
    if (!strcmp(kind, "AEXPR_OP_ANY") || !strcmp(kind, "AEXPR_OP_ALL"))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "%s with an array is not supported", op);
    return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "expression kind %s is not supported", kind);
}

/* ----------------------------------------------------------- CASE */

/* Convert a list of branch values to one type (string literals and NULLs
 * take the others' type, mixed numbers widen). */
static floe_status unify_list(bind_ectx *c, floe_expr **v, int32_t n, int32_t loc) {
    floe_type *target = NULL;
    floe_status st = NULL;
    /* Pick the target: first non-literal-string, non-null type, widened. */
    for (int32_t i = 0; i < n && !st; i++) {
        if (!v[i]) continue;
        floe_type *t = NULL;
        st = bind_type_of(c, v[i], &t);
        if (st) break;
        if (t->id == FLOE_TYPE_NULL || (is_string_literal(v[i]))) {
            floe_type_release(t);
            continue;
        }
        if (!target) {
            target = t;
            continue;
        }
        if (!floe_type_equals(target, t) && is_num(target->id) && is_num(t->id)) {
            floe_type_id a = target->id, b = t->id;
            floe_type *w = NULL;
            if (a == FLOE_TYPE_FLOAT64 || b == FLOE_TYPE_FLOAT64 || a == FLOE_TYPE_FLOAT32 || b == FLOE_TYPE_FLOAT32)
                w = floe_type_primitive(FLOE_TYPE_FLOAT64);
            else if (a == FLOE_TYPE_DECIMAL128 || b == FLOE_TYPE_DECIMAL128) {
                /* decimal wins: widen scale and integer digits */
                int32_t s1 = a == FLOE_TYPE_DECIMAL128 ? target->scale : 0, s2 = b == FLOE_TYPE_DECIMAL128 ? t->scale : 0;
                int32_t i1 = a == FLOE_TYPE_DECIMAL128 ? target->precision - s1 : (a == FLOE_TYPE_INT32 ? 10 : 19);
                int32_t i2 = b == FLOE_TYPE_DECIMAL128 ? t->precision - s2 : (b == FLOE_TYPE_INT32 ? 10 : 19);
                int32_t sc = s1 > s2 ? s1 : s2, ip = i1 > i2 ? i1 : i2;
                if (ip + sc > 38) ip = 38 - sc;
                st = floe_type_decimal(ip + sc, sc, &w);
            } else
                w = floe_type_primitive(FLOE_TYPE_INT64);
            floe_type_release(target);
            target = w;
        }
        floe_type_release(t);
    }
    if (!st && !target) {
        /* only string literals / NULLs */
        floe_type_release(target);
        return NULL;
    }
    for (int32_t i = 0; i < n && !st; i++) {
        if (!v[i]) continue;
        floe_expr *nv = NULL;
        st = bind_coerce(c, v[i], target, loc, &nv);
        if (!st) {
            floe_expr_release(v[i]);
            v[i] = nv;
        }
    }
    floe_type_release(target);
    return st;
}

static floe_status bind_case(bind_ectx *c, const json_t *body, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    json_t *args = floe_pg_get(body, "args");
    int32_t n = floe_pg_list_len(args);
    floe_expr **whens = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    floe_expr **vals = floe_calloc((size_t)n + 2, sizeof(floe_expr *)); /* thens ++ else */
    floe_expr *subject = NULL;
    floe_status st = (!whens || !vals) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    if (!st && floe_pg_get(body, "arg")) st = bind_expr(c, floe_pg_get(body, "arg"), &subject);
    for (int32_t i = 0; i < n && !st; i++) {
        json_t *w = floe_pg_as(floe_pg_list_at(args, i), "CaseWhen");
        if (subject) {
            floe_expr *v = NULL;
            st = bind_expr(c, floe_pg_get(w, "expr"), &v);
            if (!st) st = make_cmp(c, FLOE_CMP_EQ, subject, v, loc, &whens[i]);
            floe_expr_release(v);
        } else {
            st = bind_predicate(c, floe_pg_get(w, "expr"), &whens[i]);
        }
        if (!st) st = bind_expr(c, floe_pg_get(w, "result"), &vals[i]);
    }
    json_t *def = floe_pg_get(body, "defresult");
    if (!st && def) st = bind_expr(c, def, &vals[n]);
    if (!st) st = unify_list(c, vals, n + 1, loc);
    if (!st) st = floe_expr_case(whens, vals, n, vals[n], out);
    if (!st && (st = check(c, *out, loc))) {
        floe_expr_release(*out);
        *out = NULL;
    }
    for (int32_t i = 0; i <= n; i++) {
        if (whens && i < n) floe_expr_release(whens[i]);
        if (vals) floe_expr_release(vals[i]);
    }
    floe_free(whens);
    floe_free(vals);
    floe_expr_release(subject);
    return st;
}

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
static const char *func_name(const json_t *fc) {
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
        const char *n = func_name(fc);
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
static floe_status statement_time(bind_ectx *c, bool date, floe_expr **out) {
    int64_t us = c->s ? c->s->stmt_time_us : 0;
    if (date) {
        int64_t days = us / 86400000000LL;
        if (us < 0 && us % 86400000000LL) days--;
        return lit_typed_int(FLOE_TYPE_DATE32, days, out);
    }
    return lit_typed_int(FLOE_TYPE_TIMESTAMP_US_TZ, us, out);
}

static floe_status bind_func(bind_ectx *c, const json_t *fc, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    const char *name0 = func_name(fc);
    if (!name0) return bind_error(c->s, loc, FLOE_ERR_SYNTAX, "function name missing");
    char name[64];
    snprintf(name, sizeof name, "%s", name0);
    floe_ascii_lower_inplace(name, strlen(name));
    if (agg_index(name) >= 0) return bind_aggregate(c, fc, name, out);
    if (floe_pg_get(fc, "over")) return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "window functions are not supported");
    json_t *args = floe_pg_get(fc, "args");
    int32_t n = floe_pg_list_len(args);
    if (!strcmp(name, "now") || !strcmp(name, "current_timestamp") || !strcmp(name, "transaction_timestamp") ||
        !strcmp(name, "statement_timestamp"))
        return statement_time(c, false, out);
    if (!strcmp(name, "current_date")) return statement_time(c, true, out);
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
        FLOE_TRY(bind2(c, floe_pg_list_at(args, 0), floe_pg_list_at(args, 1), &l, &r));
        floe_status st = floe_expr_arith(FLOE_ARITH_MOD, l, r, out);
        floe_expr_release(l);
        floe_expr_release(r);
        return st;
    }
    if (!strcmp(name, "nullif") && n == 2) {
        floe_expr *l = NULL, *r = NULL, *eq = NULL, *nul = NULL;
        floe_type *lt = NULL;
        FLOE_TRY(bind2(c, floe_pg_list_at(args, 0), floe_pg_list_at(args, 1), &l, &r));
        floe_status st = make_cmp(c, FLOE_CMP_EQ, l, r, loc, &eq);
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
        if (!st) st = unify_list(c, ev, n, loc);
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
        is_string_literal(ev[0])) {
        floe_buf t = FLOE_BUF_INIT;
        st = literal_text(ev[0], &t);
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
    if (!st && n >= 2 && (!strcmp(fn, "date_part") || !strcmp(fn, "date_trunc")) && is_string_literal(ev[1])) {
        floe_expr *t = NULL;
        st = bind_coerce(c, ev[1], floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), loc, &t);
        if (!st) {
            floe_expr_release(ev[1]);
            ev[1] = t;
        }
    }
    if (!st && (!strcmp(fn, "greatest") || !strcmp(fn, "least"))) st = unify_list(c, ev, n, loc);
    if (!st) st = make_call(c, fn, ev, n, loc, out);
    for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
    floe_free(ev);
    return st;
}

/* ------------------------------------------------------------- casts */

static floe_status bind_type_cast(bind_ectx *c, const json_t *body, floe_expr **out) {
    int32_t loc = (int32_t)floe_pg_get_int(body, "location", -1);
    floe_pg_type_name tn;
    FLOE_TRY(bind_at(c->s, loc, floe_pg_type_name_of(floe_pg_get(body, "typeName"), &tn)));
    if (tn.location >= 0) loc = tn.location;
    json_t *arg = floe_pg_get(body, "arg");
    if (!strcmp(tn.name, "interval"))
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED,
                          "INTERVAL values are only supported added to or subtracted from a date or timestamp");
    floe_type *t = NULL;
    FLOE_TRY(bind_at(c->s, loc, floe_pg_type_to_floe(&tn, c->sql, &t)));
    floe_expr *x = NULL;
    floe_status st = bind_expr(c, arg, &x);
    if (!st) {
        if (is_string_literal(x)) {
            floe_buf tx = FLOE_BUF_INIT;
            st = literal_text(x, &tx);
            if (!st) st = bind_at(c->s, loc, literal_from_text(floe_buf_cstr(&tx), t, out));
            floe_buf_free(&tx);
        } else {
            floe_type *xt = NULL;
            st = bind_type_of(c, x, &xt);
            if (!st && floe_type_equals(xt, t)) {
                *out = floe_expr_retain(x);
            } else if (!st && xt->id == FLOE_TYPE_NULL) {
                st = floe_expr_lit_null(t, out);
            } else if (!st) {
                st = floe_expr_cast(x, t, out);
                if (!st && (st = check(c, *out, loc))) {
                    floe_expr_release(*out);
                    *out = NULL;
                }
            }
            floe_type_release(xt);
        }
    }
    floe_expr_release(x);
    floe_type_release(t);
    return st;
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
    if (!strcmp(kind, "CoalesceExpr")) {
        json_t *args = floe_pg_get(body, "args");
        int32_t n = floe_pg_list_len(args);
        floe_expr **ev = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
        if (!ev) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        floe_status st = NULL;
        for (int32_t i = 0; i < n && !st; i++) st = bind_expr(c, floe_pg_list_at(args, i), &ev[i]);
        if (!st) st = unify_list(c, ev, n, loc);
        if (!st) st = floe_expr_coalesce(ev, n, out);
        if (!st && (st = check(c, *out, loc))) {
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
        if (!st) st = unify_list(c, ev, n, loc);
        if (!st) st = make_call(c, op && !strcmp(op, "IS_LEAST") ? "least" : "greatest", ev, n, loc, out);
        for (int32_t i = 0; i < n; i++) floe_expr_release(ev[i]);
        floe_free(ev);
        return st;
    }
    if (!strcmp(kind, "SQLValueFunction")) {
        const char *op = floe_pg_get_str(body, "op");
        if (op && !strcmp(op, "SVFOP_CURRENT_DATE")) return statement_time(c, true, out);
        if (op && (!strncmp(op, "SVFOP_CURRENT_TIMESTAMP", 23) || !strncmp(op, "SVFOP_LOCALTIMESTAMP", 20)))
            return statement_time(c, false, out);
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "%s is not supported", op ? op + 6 : "this function");
    }
    if (!strcmp(kind, "SubLink")) {
        const char *t = floe_pg_get_str(body, "subLinkType");
        if (t && !strcmp(t, "EXPR_SUBLINK")) return bind_scalar_subquery(c, node, out);
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED,
                          "IN / EXISTS subqueries are supported only as AND-ed conditions of WHERE");
    }
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
        return s ? s : "?column?";
    }
    if (!strcmp(kind, "FuncCall")) {
        const char *n = func_name(body);
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
