/*
 * parse.h — SQL text to parse trees: libpg_query's PostgreSQL parser
 * (pg_query_parse, JSON output) read with jansson.
 *
 * A script is a list of statements.  Each statement has its parse tree
 * (the "stmt" object of libpg_query's output, e.g. {"SelectStmt": {...}};
 * read it with the accessors of pgnode.h), its span in the script text and
 * the non-PostgreSQL clauses the pre-pass cut out of it.
 *
 * The pre-pass.  floe accepts a few things PostgreSQL's grammar does not.
 * Before parsing, the token scanner (pg_query_scan, so string literals,
 * quoted names and comments are never touched) finds them; they are
 * blanked out of the text (replaced by spaces of the same length, so every
 * location in the parse tree is still a byte offset into the ORIGINAL
 * text) and recorded on the statement as clauses:
 *
 *   PARTITIONED BY (...)            FLOE_SQL_PARTITIONED_BY: text = the raw
 *                                   text between the parentheses
 *   t FOR SYSTEM_VERSION AS OF n    FLOE_SQL_AS_OF_VERSION: text = the
 *   (also FOR VERSION AS OF)        number, or the branch/tag name when the
 *                                   value is a string literal (is_string)
 *   t FOR SYSTEM_TIME AS OF ts      FLOE_SQL_AS_OF_TIME: text = the literal's
 *   (also FOR TIMESTAMP AS OF)      content ('2024-01-01 10:00:00', or a
 *                                   number of epoch milliseconds); an
 *                                   optional TIMESTAMP keyword before the
 *                                   string is dropped
 *        For both AS OF kinds `location` is the byte offset where the table
 *        name starts — the "location" of the RangeVar in the parse tree.
 *   WITH ('a.b-c' = 'v'), SET (...) FLOE_SQL_PROPERTY_KEY: a string literal
 *   RESET ('k', ...)                used as a property key is turned into a
 *                                   quoted identifier ("a.b-c", same length)
 *                                   so the DefElem's defname is the key;
 *                                   text = the key
 *   DESCRIBE t                      FLOE_SQL_DESCRIBE: rewritten to
 *                                   "TABLE    t" (a SelectStmt reading t);
 *                                   stmt->describe is set
 *   SHOW TABLES FROM|IN db          FLOE_SQL_SHOW_FROM: text = "db"; the
 *                                   statement parses as SHOW tables
 *   INSERT OVERWRITE [TABLE] t ...  FLOE_SQL_INSERT_OVERWRITE: rewritten to
 *                                   INSERT INTO t (text = "overwrite",
 *                                   location = the INSERT); Spark's INSERT
 *                                   INTO TABLE t drops the TABLE
 *   ALTER TABLE [IF EXISTS] t       FLOE_SQL_TABLE_EVOLUTION (Iceberg's Spark
 *     ADD|DROP|REPLACE|RENAME       SQL extensions): text = the raw text from
 *       PARTITION FIELD ...         the ADD/DROP/REPLACE/RENAME/WRITE word to
 *     WRITE [LOCALLY] ORDERED BY .. the end of the statement, location = that
 *     WRITE UNORDERED | WRITE       word; the statement parses as ALTER TABLE
 *       DISTRIBUTED BY PARTITION .. t RESET(x) (ddl.c looks for the clause
 *                                   first and never runs the RESET)
 *   ALTER TABLE t CREATE [OR        FLOE_SQL_REF_DDL (Iceberg's Spark SQL
 *     REPLACE] BRANCH|TAG ...,      extensions for branches and tags): cut as
 *     REPLACE BRANCH|TAG ...,       FLOE_SQL_TABLE_EVOLUTION is (text from
 *     DROP BRANCH|TAG [IF EXISTS] x the CREATE/REPLACE/DROP word on; ddl_refs.c
 *                                   reads it)
 *   MERGE ... WHEN [NOT] MATCHED    FLOE_SQL_MERGE_WHEN, one per WHEN clause of
 *     [BY SOURCE | BY TARGET]       a MERGE in order: text "matched", "not
 *                                   matched" or "not matched by source"
 *                                   (PostgreSQL 17's; PostgreSQL 15 cannot
 *                                   parse it, so NOT MATCHED BY SOURCE is
 *                                   rewritten to MATCHED and BY TARGET
 *                                   dropped — the clause tells them apart)
 *   SELECT ... QUALIFY <cond>       FLOE_SQL_QUALIFY (DuckDB / Snowflake), at
 *                                   the location of its SELECT's first select-
 *                                   list item; text: "SELECT" and the
 *                                   condition at its own byte offset, the
 *                                   rest blank (it parses on its own, with
 *                                   locations into the script)
 *   f(x [, ...] IGNORE NULLS)       FLOE_SQL_NULL_TREATMENT (DuckDB; also
 *   f(x) IGNORE NULLS OVER ...      RESPECT NULLS, and the words after the
 *                                   call as Spark / Snowflake write them):
 *                                   the words blanked, location = where the
 *                                   call's function name starts (the
 *                                   FuncCall's location), text "ignore" or
 *                                   "respect"
 *   CALL p(table => 's.t', ...)     FLOE_SQL_CALL_ARG_NAME: a keyword used as
 *   CALL p(..., to => 'b')          a named argument (Spark's `table`, `to`;
 *                                   reserved in PostgreSQL) is overwritten
 *                                   by its first letter and underscores
 *                                   ("t____"); location = the word, which is
 *                                   the NamedArgExpr's location; text = the
 *                                   word, lowercased
 *   CALL p(..., array(1, 2))        Spark's array(...) becomes ARRAY[1, 2]
 *                                   (no clause)
 *   ALTER TABLE t EXECUTE p[(...)]  FLOE_SQL_TABLE_EXECUTE (Trino's table
 *                                   procedures): rewritten to CALL p(...)
 *                                   (`()` added when absent); location = the
 *                                   ALTER; text = the table name as written
 *   ALTER VIEW [IF EXISTS] v AS q   FLOE_SQL_VIEW_AS (Spark / Trino / MySQL:
 *                                   the view's next version): "AS q" cut as
 *                                   FLOE_SQL_TABLE_EVOLUTION is, location =
 *                                   the AS, text "as"; parses as ALTER VIEW
 *                                   v RESET(x), ddl_view.c runs it as CREATE
 *                                   OR REPLACE VIEW of an existing view
 *
 * Syntax errors are FLOE_ERR_SYNTAX "line L, column C: <message>" (1-based,
 * over the whole script).
 */
#ifndef FLOE_SQL_PARSE_H
#define FLOE_SQL_PARSE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/status.h"

typedef enum floe_sql_clause_kind {
    FLOE_SQL_PARTITIONED_BY = 0,
    FLOE_SQL_AS_OF_VERSION,
    FLOE_SQL_AS_OF_TIME,
    FLOE_SQL_PROPERTY_KEY,
    FLOE_SQL_DESCRIBE,
    FLOE_SQL_SHOW_FROM,
    FLOE_SQL_INSERT_OVERWRITE,
    FLOE_SQL_TABLE_EVOLUTION,
    FLOE_SQL_MERGE_WHEN,
    FLOE_SQL_QUALIFY,
    FLOE_SQL_NULL_TREATMENT,
    FLOE_SQL_CALL_ARG_NAME,
    FLOE_SQL_TABLE_EXECUTE,
    FLOE_SQL_REF_DDL,
    FLOE_SQL_VIEW_AS
} floe_sql_clause_kind;

typedef struct floe_sql_clause {
    floe_sql_clause_kind kind;
    int32_t location; /* byte offset into the script (see above)           */
    char *text;       /* floe_malloc'd, NUL-terminated                      */
    bool is_string;   /* the value was a string literal (AS OF kinds)      */
} floe_sql_clause;

typedef struct floe_sql_stmt {
    json_t *node;          /* {"SelectStmt": {...}}; owned by the script    */
    const char *kind;      /* "SelectStmt", "CreateStmt", ...               */
    int32_t location;      /* byte offset of the statement in the script    */
    int32_t length;        /* bytes (without the terminating ';')           */
    char *text;            /* the ORIGINAL text of the statement (a copy)   */
    bool describe;         /* DESCRIBE t (see above)                        */
    int32_t n_clauses;
    floe_sql_clause *clauses;
} floe_sql_stmt;

typedef struct floe_sql_script {
    char *sql;             /* the original script text (a copy)             */
    json_t *root;          /* the whole parse result                        */
    int32_t n_stmts;
    floe_sql_stmt *stmts;
} floe_sql_script;

/* Parse a script (zero or more statements; an empty script has none). */
floe_status floe_sql_parse(const char *sql, floe_sql_script **out) FLOE_WARN_UNUSED;
void floe_sql_script_free(floe_sql_script *s); /* NULL-safe */

/* The first clause of `kind` on the statement, or NULL.  location >= 0
 * also requires that location (AS OF clauses: the table's location). */
const floe_sql_clause *floe_sql_stmt_clause(const floe_sql_stmt *st, floe_sql_clause_kind kind,
                                            int32_t location);

/* An error "line L, column C: <message>" for byte offset `location` of
 * `sql` (location < 0: no position prefix). */
floe_status floe_sql_error_at(const char *sql, int32_t location, floe_code code, const char *fmt, ...)
    FLOE_PRINTF(4, 5) FLOE_WARN_UNUSED;

/* 1-based line and column (in characters) of byte offset `location`. */
void floe_sql_line_col(const char *sql, int32_t location, int32_t *line, int32_t *col);

#endif
