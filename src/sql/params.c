/*
 * params.c — $n parameters of a prepared statement put into its text, for
 * the server's extended query protocol (src/server/pg_extended.c) and the
 * embedding API's floe_bind_* (src/api/).
 *
 * floe's SQL layer takes statement text, so a bound statement is its text
 * with each $n replaced by the value as a SQL literal: 'text' with quotes
 * doubled (standard_conforming_strings is on, so backslashes are plain),
 * NULL for a null, and "::type" after it when the caller knows the
 * parameter's type.  An untyped literal takes its type from where it stands, as an
 * unknown-typed parameter does in PostgreSQL.  $n inside strings, quoted
 * names, comments and dollar-quoted text is left alone.
 */
#include <stdbool.h>
#include <string.h>

#include "sql/params.h"
#include "sql/sql_opaque.h"

/* Walk `sql`, calling `on_param(n, start, end)` for each $n outside
 * quotes and comments and `on_text(start, end)` for the text between.
 * Returns false when a callback fails (st set). */
typedef struct walker {
    int32_t max_param;
    floe_buf *out;
    int32_t n_values;
    const char *const *values;
    const char *const *types;
    floe_status st;
} walker;

static void emit(walker *w, const char *p, size_t n) {
    if (!w->out || w->st) return;
    w->st = floe_buf_append(w->out, p, n);
}

static void emit_param(walker *w, int32_t n) {
    if (n > w->max_param) w->max_param = n;
    if (!w->out || w->st) return;
    if (n < 1 || n > w->n_values) {
        w->st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "there is no parameter $%d", (int)n);
        return;
    }
    const char *v = w->values[n - 1];
    const char *type = w->types ? w->types[n - 1] : NULL;
    if (!v) {
        w->st = floe_buf_append_str(w->out, type ? "(NULL::" : "NULL");
        if (!w->st && type) w->st = floe_buf_printf(w->out, "%s)", type);
        return;
    }
    /* Parenthesised so "$1::int" and "-$1" keep their meaning. */
    w->st = floe_buf_append_str(w->out, "('");
    for (const char *q = v; *q && !w->st; q++) {
        w->st = floe_buf_append_byte(w->out, (uint8_t)*q);
        if (!w->st && *q == '\'') w->st = floe_buf_append_byte(w->out, '\'');
    }
    if (!w->st) w->st = floe_buf_append_byte(w->out, '\'');
    if (!w->st && type) w->st = floe_buf_printf(w->out, "::%s", type);
    if (!w->st) w->st = floe_buf_append_byte(w->out, ')');
}

static void walk(walker *w, const char *sql) {
    const char *p = sql, *text = sql;
    while (*p && !w->st) {
        if (*p == '$' && (p == sql || !floe_sql_ident_char(p[-1])) && p[1] >= '0' && p[1] <= '9') {
            const char *q = p + 1;
            int32_t n = 0;
            while (*q >= '0' && *q <= '9') {
                if (n < 100000) n = n * 10 + (*q - '0');
                q++;
            }
            emit(w, text, (size_t)(p - text));
            emit_param(w, n);
            p = text = q;
            continue;
        }
        const char *end;
        bool closed;
        if (floe_sql_skip_opaque(sql, p, &end, &closed) != FLOE_SQL_OPAQUE_NONE) p = end;
        else p++;
    }
    emit(w, text, strlen(text));
}

int32_t floe_sql_params_count(const char *sql) {
    walker w = {0};
    walk(&w, sql);
    floe_status_free(w.st);
    return w.max_param;
}

floe_status floe_sql_params_substitute(const char *sql, int32_t n, const char *const *values,
                                     const char *const *types, floe_buf *out) {
    walker w = {0};
    w.out = out;
    w.n_values = n;
    w.values = values;
    w.types = types;
    walk(&w, sql);
    return w.st;
}
