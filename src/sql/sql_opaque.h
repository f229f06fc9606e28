/* sql_opaque.h — stepping over the parts of SQL text whose contents are not
 * SQL: comments, quoted strings and names, dollar-quoted text (sql_opaque.c).
 * Scanners that look for `;` or `$n` in raw statement text share it, so that
 * they agree on where a string or comment ends. */
#ifndef FLOE_SQL_OPAQUE_H
#define FLOE_SQL_OPAQUE_H

#include <stdbool.h>

typedef enum {
    FLOE_SQL_OPAQUE_NONE = 0, /* p starts none of them */
    FLOE_SQL_OPAQUE_COMMENT,  /* -- to end of line, or nested block comment */
    FLOE_SQL_OPAQUE_QUOTED,   /* '..', E'..', "..", $tag$..$tag$ */
} floe_sql_opaque;

/* What starts at `p` (a position inside `sql`, the text's start, needed to
 * see an E'' prefix or an identifier before `$`), with *end set past it.
 * *closed is false when the text ends first (*end then at the NUL). */
floe_sql_opaque floe_sql_skip_opaque(const char *sql, const char *p, const char **end, bool *closed);

/* A character of an unquoted identifier (after its first), as PostgreSQL's
 * lexer reads one: letters, digits, '_', '$' and any byte of a UTF-8
 * sequence. */
bool floe_sql_ident_char(char c);

#endif
