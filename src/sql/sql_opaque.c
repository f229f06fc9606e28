/*
 * sql_opaque.c — where a comment, a quoted string or name, or dollar-quoted
 * text ends, by PostgreSQL's lexical rules:
 *
 *   -- to the end of the line;  block comments nest  / * / * * / * /
 *   'it''s'  "a""b"  (a doubled quote stays inside)
 *   E'it\'s'  (escape strings also take a backslash before a quote)
 *   $$ .. $$  $tag$ .. $tag$  (a tag is an identifier; `$1` is a
 *   parameter, and `a$b$` is one identifier, not a quote)
 */
#include <string.h>

#include "sql/sql_opaque.h"

bool floe_sql_ident_char(char c) {
    return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (unsigned char)c >= 0x80;
}

floe_sql_opaque floe_sql_skip_opaque(const char *sql, const char *p, const char **end, bool *closed) {
    char c = *p;
    *closed = true;
    if (c == '-' && p[1] == '-') {
        while (*p && *p != '\n') p++;
        *end = p;
        return FLOE_SQL_OPAQUE_COMMENT;
    }
    if (c == '/' && p[1] == '*') {
        int depth = 1;
        p += 2;
        while (*p && depth > 0) {
            if (p[0] == '/' && p[1] == '*') { depth++; p += 2; }
            else if (p[0] == '*' && p[1] == '/') { depth--; p += 2; }
            else p++;
        }
        *end = p;
        *closed = depth == 0;
        return FLOE_SQL_OPAQUE_COMMENT;
    }
    if (c == '\'' || c == '"') {
        bool esc = c == '\'' && p > sql && (p[-1] == 'E' || p[-1] == 'e');
        p++;
        for (;;) {
            if (!*p) { *closed = false; break; }
            if (*p == c) {
                if (p[1] == c) { p += 2; continue; }
                p++;
                break;
            }
            if (esc && *p == '\\' && p[1]) { p += 2; continue; }
            p++;
        }
        *end = p;
        return FLOE_SQL_OPAQUE_QUOTED;
    }
    if (c == '$' && (p == sql || !floe_sql_ident_char(p[-1])) && !(p[1] >= '0' && p[1] <= '9')) {
        const char *q = p + 1;
        while (*q && *q != '$' && floe_sql_ident_char(*q)) q++;
        if (*q == '$') {
            size_t tag = (size_t)(q - p + 1);
            const char *close = strchr(q + 1, '$');
            while (close && strncmp(close, p, tag) != 0) close = strchr(close + 1, '$');
            *closed = close != NULL;
            *end = close ? close + tag : p + strlen(p);
            return FLOE_SQL_OPAQUE_QUOTED;
        }
    }
    return FLOE_SQL_OPAQUE_NONE;
}
