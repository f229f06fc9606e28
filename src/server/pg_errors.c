/*
 * pg_errors.c — floe errors as ErrorResponse messages.
 *
 * floe's errors carry a code (floe/status.h) and a message; PostgreSQL
 * clients want a SQLSTATE.  The code picks the class and, where one code
 * covers several PostgreSQL conditions, the message picks within it (an
 * unknown table is 42P01, an unknown column 42703).  A message starting
 * with (or containing) "line L, column C: " gives the position, which
 * PostgreSQL reports as a 1-based character index into the query text.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "server/server_internal.h"

static bool has(const char *msg, const char *word) { return strstr(msg, word) != NULL; }

/* The message without its "line L, column C: " prefix, so "column" in
 * the prefix does not make every error an unknown column. */
static const char *sqlstate_for(floe_code code, const char *m) {
    switch (code) {
    case FLOE_ERR_SYNTAX: return "42601";
    case FLOE_ERR_NOT_FOUND:
        if (has(m, "column")) return "42703";
        if (has(m, "function")) return "42883";
        if (has(m, "namespace") || has(m, "schema")) return "3F000";
        if (has(m, "table") || has(m, "view") || has(m, "relation")) return "42P01";
        if (has(m, "option") || has(m, "parameter")) return "42704";
        return "42704";
    case FLOE_ERR_ALREADY_EXISTS:
        if (has(m, "namespace") || has(m, "schema")) return "42P06";
        return "42P07";
    case FLOE_ERR_TYPE: return "42804";
    case FLOE_ERR_CONSTRAINT: return has(m, "null") || has(m, "NULL") ? "23502" : "23514";
    case FLOE_ERR_INVALID_ARGUMENT:
        if (has(m, "division by zero")) return "22012";
        if (has(m, "out of range") || has(m, "overflow")) return "22003";
        if (has(m, "invalid input syntax") || has(m, "not a valid")) return "22P02";
        if (has(m, "too long")) return "22001";
        return "22023";
    case FLOE_ERR_UNSUPPORTED: return "0A000";
    case FLOE_ERR_CANCELLED: return "57014";
    case FLOE_ERR_AUTH: return "28000";
    case FLOE_ERR_CONFLICT: return "40001";
    case FLOE_ERR_TIMEOUT: return "57014";
    case FLOE_ERR_OUT_OF_MEMORY: return "53200";
    case FLOE_ERR_IO: return "58030";
    case FLOE_ERR_CORRUPT: return "XX001";
    default: return "XX000";
    }
}

static bool find_line_col(const char *msg, int *line, int *col, const char **at, const char **after);

const char *pg_sqlstate_of(floe_status st) {
    const char *m = floe_status_message(st);
    int line, col;
    const char *at, *after;
    if (find_line_col(m, &line, &col, &at, &after)) m = after;
    return sqlstate_for(floe_status_code(st), m);
}

/* Find "line L, column C: " in msg; *prefix_end is where the rest starts
 * when it is a prefix. */
static bool find_line_col(const char *msg, int *line, int *col, const char **at, const char **after) {
    for (const char *p = strstr(msg, "line "); p; p = strstr(p + 1, "line ")) {
        int n = 0;
        if (sscanf(p, "line %d, column %d: %n", line, col, &n) == 2 && n > 0) {
            *at = p;
            *after = p + n;
            return true;
        }
    }
    return false;
}

/* Characters (not bytes) of `sql` before byte offset `off`, plus one. */
static int32_t char_position(const char *sql, size_t off) {
    int32_t chars = 0;
    for (size_t i = 0; i < off && sql[i]; i++)
        if (((unsigned char)sql[i] & 0xC0) != 0x80) chars++;
    return chars + 1;
}

void pg_send_error(pg_session *s, floe_status st, const char *sql, int32_t base) {
    const char *msg = floe_status_message(st);
    int line, col;
    const char *at = NULL, *after = NULL;
    floe_buf text = FLOE_BUF_INIT;
    int32_t position = 0;
    if (find_line_col(msg, &line, &col, &at, &after)) {
        /* Drop the prefix: PostgreSQL clients print the position themselves. */
        floe_status e = floe_buf_append(&text, msg, (size_t)(at - msg));
        if (!e) e = floe_buf_append_str(&text, after);
        floe_status_free(e);
        if (sql && line >= 1 && col >= 1) {
            size_t off = (size_t)(base > 0 ? base : 0);
            size_t n = strlen(sql);
            for (int l = 1; l < line && off < n; off++)
                if (sql[off] == '\n') l++;
            /* columns count bytes from 1 within the line */
            off += (size_t)(col - 1);
            if (off <= n) position = char_position(sql, off);
        }
    } else {
        floe_status e = floe_buf_append_str(&text, msg);
        floe_status_free(e);
    }
    const char *code = sqlstate_for(floe_status_code(st), floe_buf_cstr(&text));
    FLOE_LOG_INFO("serve", "session %d: error %s: %s", (int)s->id, code, floe_buf_cstr(&text));
    pg_begin(&s->conn, 'E');
    pg_put_byte(&s->conn, 'S');
    pg_put_cstr(&s->conn, "ERROR");
    pg_put_byte(&s->conn, 'V');
    pg_put_cstr(&s->conn, "ERROR");
    pg_put_byte(&s->conn, 'C');
    pg_put_cstr(&s->conn, code);
    pg_put_byte(&s->conn, 'M');
    pg_put_cstr(&s->conn, text.len ? floe_buf_cstr(&text) : "error");
    if (position > 0) {
        char pos[16];
        snprintf(pos, sizeof pos, "%d", (int)position);
        pg_put_byte(&s->conn, 'P');
        pg_put_cstr(&s->conn, pos);
    }
    pg_put_byte(&s->conn, 0);
    pg_end(&s->conn);
    floe_buf_free(&text);
}

void pg_send_error_code(pg_session *s, const char *sqlstate, bool fatal, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    FLOE_LOG_INFO("serve", "session %d: %s %s: %s", (int)s->id, fatal ? "fatal" : "error", sqlstate, msg);
    const char *sev = fatal ? "FATAL" : "ERROR";
    pg_begin(&s->conn, 'E');
    pg_put_byte(&s->conn, 'S');
    pg_put_cstr(&s->conn, sev);
    pg_put_byte(&s->conn, 'V');
    pg_put_cstr(&s->conn, sev);
    pg_put_byte(&s->conn, 'C');
    pg_put_cstr(&s->conn, sqlstate);
    pg_put_byte(&s->conn, 'M');
    pg_put_cstr(&s->conn, msg);
    pg_put_byte(&s->conn, 0);
    pg_end(&s->conn);
}
