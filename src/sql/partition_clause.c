/*
 * partition_clause.c — the PARTITIONED BY (...) clause of CREATE TABLE:
 * its text, cut out of the statement by the parser's pre-pass (parse.h),
 * turned into an Iceberg partition spec over the new table's schema.
 *
 * The accepted forms are Spark's and Trino's (see ddl.h).  The clause is
 * tiny, so a hand-written scanner and recursive descent is all it takes;
 * every error carries the position of the offending token so a user can
 * find it in a long CREATE TABLE.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/str.h"
#include "floe/memory.h"
#include "sql/ddl.h"

/* ------------------------------------------------------------- scanner */

typedef enum tok_kind { T_END = 0, T_IDENT, T_QIDENT, T_NUMBER, T_LPAREN, T_RPAREN, T_COMMA, T_DOT, T_BAD } tok_kind;

typedef struct tok {
    tok_kind kind;
    int32_t pos;    /* byte offset into the clause text */
    int32_t len;
} tok;

typedef struct pc {
    const char *text;
    const char *sql;          /* statement text for positions, or NULL */
    int32_t text_location;    /* where text starts in sql */
    const floe_ice_schema *schema;
    int32_t pos;              /* scanner position */
    tok cur;
} pc;

static bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (unsigned char)c >= 0x80; }
static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9') || c == '$'; }

static void next_tok(pc *p) {
    const char *s = p->text;
    int32_t i = p->pos;
    while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') i++;
    tok t = {T_END, i, 0};
    char c = s[i];
    if (!c) {
        t.kind = T_END;
    } else if (c == '(' || c == ')' || c == ',' || c == '.') {
        t.kind = c == '(' ? T_LPAREN : c == ')' ? T_RPAREN : c == ',' ? T_COMMA : T_DOT;
        t.len = 1;
    } else if (c >= '0' && c <= '9') {
        int32_t j = i;
        while (s[j] >= '0' && s[j] <= '9') j++;
        t.kind = ident_char(s[j]) ? T_BAD : T_NUMBER;
        while (ident_char(s[j])) j++;
        t.len = j - i;
    } else if (ident_start(c)) {
        int32_t j = i;
        while (ident_char(s[j])) j++;
        t.kind = T_IDENT;
        t.len = j - i;
    } else if (c == '"') {
        int32_t j = i + 1;
        for (;;) {
            if (!s[j]) break;
            if (s[j] == '"' && s[j + 1] == '"') j += 2;
            else if (s[j] == '"') break;
            else j++;
        }
        t.kind = s[j] == '"' ? T_QIDENT : T_BAD;
        t.len = (s[j] ? j + 1 : j) - i;
    } else {
        t.kind = T_BAD;
        t.len = 1;
    }
    p->cur = t;
    p->pos = t.pos + t.len;
}

/* An error at clause offset `pos`. */
static floe_status err_at(const pc *p, int32_t pos, floe_code code, const char *fmt, ...) FLOE_PRINTF(4, 5);
static floe_status err_at(const pc *p, int32_t pos, floe_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(code, fmt, ap);
    va_end(ap);
    if (p->sql) {
        int32_t line = 0, col = 0;
        floe_sql_line_col(p->sql, p->text_location + pos, &line, &col);
        return floe_status_wrap(st, "line %d, column %d", line, col);
    }
    return floe_status_wrap(st, "PARTITIONED BY, character %d", pos + 1);
}

static floe_status wrap_at(const pc *p, int32_t pos, floe_status st) {
    if (!st) return NULL;
    if (p->sql) {
        int32_t line = 0, col = 0;
        floe_sql_line_col(p->sql, p->text_location + pos, &line, &col);
        return floe_status_wrap(st, "line %d, column %d", line, col);
    }
    return floe_status_wrap(st, "PARTITIONED BY, character %d", pos + 1);
}

/* The current token's text for messages ("end of clause" at the end). */
static const char *tok_text(const pc *p, char *buf, size_t cap) {
    if (p->cur.kind == T_END) return "end of clause";
    snprintf(buf, cap, "'%.*s'", (int)p->cur.len, p->text + p->cur.pos);
    return buf;
}

/* The name of an identifier token: unquoted names fold to lower case as
 * PostgreSQL folds them; quoted ones keep their case ("" is a quote). */
static floe_status tok_name(const pc *p, floe_buf *out) {
    const char *s = p->text + p->cur.pos;
    if (p->cur.kind == T_IDENT) {
        for (int32_t i = 0; i < p->cur.len; i++) FLOE_TRY(floe_buf_append_byte(out, (uint8_t)floe_ascii_lower(s[i])));
        return NULL;
    }
    for (int32_t i = 1; i < p->cur.len - 1; i++) {
        FLOE_TRY(floe_buf_append_byte(out, (uint8_t)s[i]));
        if (s[i] == '"') i++;
    }
    return NULL;
}

/* ---------------------------------------------------------- transforms */

typedef struct transform_name {
    const char *name;
    floe_ice_transform_kind kind;
} transform_name;

static const transform_name transforms[] = {
    {"identity", FLOE_ICE_TRANSFORM_IDENTITY}, {"bucket", FLOE_ICE_TRANSFORM_BUCKET},
    {"truncate", FLOE_ICE_TRANSFORM_TRUNCATE}, {"year", FLOE_ICE_TRANSFORM_YEAR},
    {"years", FLOE_ICE_TRANSFORM_YEAR},        {"month", FLOE_ICE_TRANSFORM_MONTH},
    {"months", FLOE_ICE_TRANSFORM_MONTH},      {"day", FLOE_ICE_TRANSFORM_DAY},
    {"days", FLOE_ICE_TRANSFORM_DAY},          {"date", FLOE_ICE_TRANSFORM_DAY},
    {"hour", FLOE_ICE_TRANSFORM_HOUR},         {"hours", FLOE_ICE_TRANSFORM_HOUR},
    {"date_hour", FLOE_ICE_TRANSFORM_HOUR},    {"void", FLOE_ICE_TRANSFORM_VOID},
};
#define N_TRANSFORMS (sizeof transforms / sizeof transforms[0])

static floe_status find_transform(const pc *p, const char *name, int32_t pos, floe_ice_transform_kind *out) {
    for (size_t i = 0; i < N_TRANSFORMS; i++)
        if (strcmp(transforms[i].name, name) == 0) {
            *out = transforms[i].kind;
            return NULL;
        }
    const char *names[N_TRANSFORMS];
    for (size_t i = 0; i < N_TRANSFORMS; i++) names[i] = transforms[i].name;
    return wrap_at(p, pos, floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "partition transform", floe_str_c(name),
                                                   names, N_TRANSFORMS));
}

/* ------------------------------------------------------------- columns */

/* A column reference: name ('.' name)*, the current token being its
 * first part.  Leaves the token after it current. */
static floe_status parse_column(pc *p, floe_buf *path, int32_t *pos) {
    char tb[64];
    *pos = p->cur.pos;
    floe_buf_clear(path);
    for (;;) {
        if (p->cur.kind != T_IDENT && p->cur.kind != T_QIDENT)
            return err_at(p, p->cur.pos, FLOE_ERR_SYNTAX, "expected a column name, found %s",
                          tok_text(p, tb, sizeof tb));
        FLOE_TRY(tok_name(p, path));
        next_tok(p);
        if (p->cur.kind != T_DOT) return NULL;
        FLOE_TRY(floe_buf_append_byte(path, '.'));
        next_tok(p);
    }
}

static floe_status resolve_column(const pc *p, const char *path, int32_t pos, const floe_ice_field **out) {
    *out = floe_ice_schema_find_by_name(p->schema, path, true);
    if (*out) return NULL;
    const floe_ice_type *root = p->schema->root;
    const char **names = floe_calloc(root->n_fields ? (size_t)root->n_fields : 1, sizeof *names);
    if (!names) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "PARTITIONED BY");
    for (int32_t i = 0; i < root->n_fields; i++) names[i] = root->fields[i].name;
    floe_status st = floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "column", floe_str_c(path), names,
                                             (size_t)root->n_fields);
    floe_free(names);
    return wrap_at(p, pos, st);
}

/* ---------------------------------------------------------------- items */

typedef struct item {
    floe_ice_transform_kind kind;
    int32_t param;            /* bucket N / truncate W, else 0 */
    const char *tname;        /* transform as written (messages) */
    int32_t pos;              /* start of the item */
    const floe_ice_field *col;
    char *col_name;           /* full dotted name */
} item;

/* A positive int32 literal (bucket count, truncate width). */
static floe_status parse_param(const pc *p, const char *tname, int32_t *out) {
    char digits[32];
    if (p->cur.len >= (int32_t)sizeof digits)
        return err_at(p, p->cur.pos, FLOE_ERR_INVALID_ARGUMENT, "%s: %.*s is too large", tname, (int)p->cur.len,
                      p->text + p->cur.pos);
    memcpy(digits, p->text + p->cur.pos, (size_t)p->cur.len);
    digits[p->cur.len] = 0;
    long long v = strtoll(digits, NULL, 10);
    if (v < 1 || v > INT32_MAX)
        return err_at(p, p->cur.pos, FLOE_ERR_INVALID_ARGUMENT, "%s: %s must be between 1 and %d", tname,
                      digits, INT32_MAX);
    *out = (int32_t)v;
    return NULL;
}

/* transform '(' args ')' with the transform name already read. */
static floe_status parse_call(pc *p, item *it, floe_buf *path) {
    char tb[64];
    bool wants_param = it->kind == FLOE_ICE_TRANSFORM_BUCKET || it->kind == FLOE_ICE_TRANSFORM_TRUNCATE;
    int32_t n_cols = 0, n_params = 0, col_pos = 0;
    next_tok(p); /* past '(' */
    for (;;) {
        if (p->cur.kind == T_NUMBER) {
            if (!wants_param)
                return err_at(p, p->cur.pos, FLOE_ERR_SYNTAX, "%s() takes only a column, not a number",
                              it->tname);
            if (n_params++)
                return err_at(p, p->cur.pos, FLOE_ERR_SYNTAX, "%s() takes one number and one column", it->tname);
            FLOE_TRY(parse_param(p, it->tname, &it->param));
            next_tok(p);
        } else if (p->cur.kind == T_IDENT || p->cur.kind == T_QIDENT) {
            if (n_cols++)
                return err_at(p, p->cur.pos, FLOE_ERR_SYNTAX, "%s() takes one column", it->tname);
            FLOE_TRY(parse_column(p, path, &col_pos));
            FLOE_TRY(resolve_column(p, floe_buf_cstr(path), col_pos, &it->col));
            it->col_name = floe_strdup(floe_buf_cstr(path));
            if (!it->col_name) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "PARTITIONED BY");
        } else {
            return err_at(p, p->cur.pos, FLOE_ERR_SYNTAX, "%s(): expected %s, found %s", it->tname,
                          wants_param ? "a number or a column" : "a column", tok_text(p, tb, sizeof tb));
        }
        if (p->cur.kind == T_RPAREN) break;
        if (p->cur.kind != T_COMMA)
            return err_at(p, p->cur.pos, FLOE_ERR_SYNTAX, "%s(): expected ',' or ')', found %s", it->tname,
                          tok_text(p, tb, sizeof tb));
        next_tok(p);
    }
    if (!n_cols) return err_at(p, it->pos, FLOE_ERR_SYNTAX, "%s() needs a column", it->tname);
    if (wants_param && !n_params)
        return err_at(p, it->pos, FLOE_ERR_SYNTAX, "%s() needs a %s: %s(%s, %s)", it->tname,
                      it->kind == FLOE_ICE_TRANSFORM_BUCKET ? "bucket count" : "width", it->tname,
                      it->kind == FLOE_ICE_TRANSFORM_BUCKET ? "N" : "W", it->col_name);
    next_tok(p); /* past ')' */
    return NULL;
}

static floe_status parse_item(pc *p, item *it, floe_buf *path) {
    memset(it, 0, sizeof *it);
    it->pos = p->cur.pos;
    int32_t pos = 0;
    FLOE_TRY(parse_column(p, path, &pos));
    if (p->cur.kind != T_LPAREN) {
        it->kind = FLOE_ICE_TRANSFORM_IDENTITY;
        it->tname = "identity";
        FLOE_TRY(resolve_column(p, floe_buf_cstr(path), pos, &it->col));
        it->col_name = floe_strdup(floe_buf_cstr(path));
        return it->col_name ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "PARTITIONED BY");
    }
    FLOE_TRY(find_transform(p, floe_buf_cstr(path), pos, &it->kind));
    for (size_t i = 0; i < N_TRANSFORMS; i++)
        if (strcmp(transforms[i].name, floe_buf_cstr(path)) == 0) it->tname = transforms[i].name;
    return parse_call(p, it, path);
}

/* Add a parsed item to the spec: check the transform fits the column and
 * the field is not a repeat. */
static floe_status add_item(const pc *p, floe_ice_partition_spec *spec, const item *it) {
    floe_ice_transform t = floe_ice_transform_make(it->kind, it->param);
    if (!floe_ice_type_is_primitive(it->col->type)) {
        char *ts = NULL;
        floe_status st = floe_ice_type_to_string(it->col->type, &ts);
        floe_status e = err_at(p, it->pos, FLOE_ERR_TYPE, "cannot partition by column '%s' of type %s",
                               it->col_name, st ? "nested" : ts);
        floe_status_free(st);
        floe_free(ts);
        return e;
    }
    if (!floe_ice_transform_can_apply(&t, it->col->type)) {
        char *ts = NULL;
        floe_status st = floe_ice_type_to_string(it->col->type, &ts);
        floe_status e = err_at(p, it->pos, FLOE_ERR_TYPE, "%s() cannot apply to column '%s' of type %s",
                               it->tname, it->col_name, st ? "?" : ts);
        floe_status_free(st);
        floe_free(ts);
        return e;
    }
    for (int32_t i = 0; i < spec->n_fields; i++)
        if (spec->fields[i].source_id == it->col->id && floe_ice_transform_equals(&spec->fields[i].transform, &t))
            return err_at(p, it->pos, FLOE_ERR_INVALID_ARGUMENT, "column '%s' is partitioned by %s() twice",
                          it->col_name, it->tname);
    char *name = NULL;
    FLOE_TRY(floe_ice_partition_default_name(&t, it->col_name, &name));
    for (int32_t i = 0; i < spec->n_fields; i++)
        if (strcmp(spec->fields[i].name, name) == 0) {
            floe_status e = err_at(p, it->pos, FLOE_ERR_INVALID_ARGUMENT,
                                   "partition field '%s' is defined twice", name);
            floe_free(name);
            return e;
        }
    floe_status st = floe_ice_partition_spec_add(spec, it->col->id, FLOE_ICE_PARTITION_DATA_ID_START + spec->n_fields,
                                                  name, t);
    floe_free(name);
    return st;
}

static floe_status parse_clause(pc *p, floe_ice_partition_spec *spec) {
    char tb[64];
    floe_buf path = FLOE_BUF_INIT;
    floe_status st = NULL;
    next_tok(p);
    if (p->cur.kind == T_END) st = err_at(p, 0, FLOE_ERR_SYNTAX, "PARTITIONED BY () needs at least one column");
    while (!st) {
        item it;
        st = parse_item(p, &it, &path);
        if (!st) st = add_item(p, spec, &it);
        floe_free(it.col_name);
        if (st || p->cur.kind == T_END) break;
        if (p->cur.kind != T_COMMA) {
            st = err_at(p, p->cur.pos, FLOE_ERR_SYNTAX, "expected ',' between partition fields, found %s",
                        tok_text(p, tb, sizeof tb));
            break;
        }
        next_tok(p);
    }
    floe_buf_free(&path);
    return st;
}

floe_status floe_sql_parse_partitioning(const char *text, const floe_ice_schema *schema, const char *sql,
                                        int32_t text_location, floe_ice_partition_spec **out) {
    *out = NULL;
    if (!text || !schema) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "PARTITIONED BY: no text or schema");
    pc p = {text, sql, text_location, schema, 0, {T_END, 0, 0}};
    floe_ice_partition_spec *spec = NULL;
    FLOE_TRY(floe_ice_partition_spec_new(0, &spec));
    floe_status st = parse_clause(&p, spec);
    if (!st) st = floe_status_wrap(floe_ice_partition_spec_validate(spec, schema), "PARTITIONED BY");
    if (st) {
        floe_ice_partition_spec_free(spec);
        return st;
    }
    *out = spec;
    return NULL;
}
