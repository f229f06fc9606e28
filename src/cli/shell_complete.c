/*
 * shell_complete.c — tab completion for the interactive shell (libedit's
 * readline interface): SQL keywords, schema and table names ("db." then
 * TAB lists db's tables), columns of the tables the line names, and the
 * backslash commands.
 *
 * Names come from the catalog through the shell's session (SHOW SCHEMAS,
 * SHOW TABLES FROM, DESCRIBE) and are cached; the cache is dropped after
 * every statement the shell runs (floe_cli_complete_invalidate), since a
 * statement may have created or dropped what is cached.  A catalog that
 * cannot be read (a REST server down) only means fewer completions.
 */
#include "cli/shell_complete.h"

#ifdef FLOE_HAVE_LIBEDIT

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <editline/readline.h>

#include "cli/shell_describe.h"

static const char *const keywords[] = {
    "ALL", "ALTER", "AND", "AS", "ASC", "BETWEEN", "BRANCH", "BY", "CALL", "CASE", "CAST", "COPY", "CREATE",
    "CROSS", "CUBE", "DELETE", "DESC", "DESCRIBE", "DISTINCT", "DROP", "ELSE", "END", "EXCEPT", "EXISTS",
    "EXPLAIN", "FALSE", "FILTER", "FIRST", "FROM", "FULL", "GROUP", "GROUPING", "HAVING", "IF", "ILIKE", "IN",
    "INNER", "INSERT", "INTERSECT", "INTERVAL", "INTO", "IS", "JOIN", "LAST", "LATERAL", "LEFT", "LIKE",
    "LIMIT", "MERGE", "NOT", "NULL", "NULLS", "OFFSET", "ON", "OR", "ORDER", "OUTER", "OVER", "OVERWRITE",
    "PARTITION", "PARTITIONED", "QUALIFY", "RECURSIVE", "REPLACE", "RESET", "RIGHT", "ROLLUP", "SCHEMA",
    "SELECT", "SET", "SETS", "SHOW", "SNAPSHOT", "SYSTEM_VERSION", "TABLE", "TABLES", "TAG", "THEN", "TO",
    "TRUE", "TRUNCATE", "UNION", "UPDATE", "USING", "VALUES", "VIEW", "VIEWS", "WHEN", "WHERE", "WINDOW",
    "WITH", NULL};

static const char *const commands[] = {"\\d",  "\\dn", "\\dt", "\\dv",    "\\echo",   "\\format", "\\i",
                                       "\\o",  "\\pset", "\\q", "\\t", "\\timing", "\\x",      "\\?", NULL};

/* ---------------------------------------------------------- the cache */

typedef struct names {
    char **v;
    int64_t n;
} names;

typedef struct table_cols {
    char *table; /* "schema.table" */
    names cols;
} table_cols;

static floe_session *g_session;
static bool g_loaded;
static names g_schemas;
static names g_tables; /* "schema.table" */
static table_cols *g_cols;
static int32_t g_ncols, g_capcols;

static void names_free(names *n) {
    for (int64_t i = 0; i < n->n; i++) free(n->v[i]);
    free(n->v);
    n->v = NULL;
    n->n = 0;
}

void floe_cli_complete_invalidate(void) {
    names_free(&g_schemas);
    names_free(&g_tables);
    for (int32_t i = 0; i < g_ncols; i++) {
        free(g_cols[i].table);
        names_free(&g_cols[i].cols);
    }
    free(g_cols);
    g_cols = NULL;
    g_ncols = g_capcols = 0;
    g_loaded = false;
}

/* SQL text of an identifier, double-quoted, appended at `out`. */
static void quoted(char *out, size_t cap, const char *id) {
    size_t k = strlen(out);
    if (k + 1 < cap) out[k++] = '"';
    for (const char *p = id; *p && k + 2 < cap; p++) {
        if (*p == '"') out[k++] = '"';
        out[k++] = *p;
    }
    if (k + 1 < cap) out[k++] = '"';
    out[k] = 0;
}

static void query_names(const char *sql, names *out) {
    floe_status st = floe_cli_first_column(g_session, sql, &out->v, &out->n);
    if (st) {
        floe_status_free(st);
        out->v = NULL;
        out->n = 0;
    }
}

static void load(void) {
    if (g_loaded || !g_session) return;
    g_loaded = true;
    query_names("SHOW SCHEMAS", &g_schemas);
    for (int64_t i = 0; i < g_schemas.n; i++) {
        for (int kind = 0; kind < 2; kind++) {
            char sql[600] = "";
            snprintf(sql, sizeof sql, "%s", kind ? "SHOW VIEWS IN " : "SHOW TABLES FROM ");
            quoted(sql, sizeof sql, g_schemas.v[i]);
            names t = {0};
            query_names(sql, &t);
            for (int64_t k = 0; k < t.n; k++) {
                size_t len = strlen(g_schemas.v[i]) + strlen(t.v[k]) + 2;
                char *full = malloc(len);
                char **nv = realloc(g_tables.v, (size_t)(g_tables.n + 1) * sizeof *nv);
                if (!full || !nv) {
                    free(full);
                    if (nv) g_tables.v = nv;
                    continue;
                }
                g_tables.v = nv;
                snprintf(full, len, "%s.%s", g_schemas.v[i], t.v[k]);
                g_tables.v[g_tables.n++] = full;
            }
            names_free(&t);
        }
    }
}

/* The columns of "schema.table", cached. */
static const names *columns_of(const char *table) {
    for (int32_t i = 0; i < g_ncols; i++)
        if (!strcmp(g_cols[i].table, table)) return &g_cols[i].cols;
    if (g_ncols == g_capcols) {
        int32_t cap = g_capcols ? g_capcols * 2 : 8;
        table_cols *n = realloc(g_cols, (size_t)cap * sizeof *n);
        if (!n) return NULL;
        g_cols = n;
        g_capcols = cap;
    }
    table_cols *tc = &g_cols[g_ncols];
    tc->table = strdup(table);
    if (!tc->table) return NULL;
    tc->cols.v = NULL;
    tc->cols.n = 0;
    char sql[600] = "DESCRIBE ";
    const char *dot = strchr(table, '.');
    char schema[256];
    snprintf(schema, sizeof schema, "%.*s", (int)(dot - table), table);
    quoted(sql, sizeof sql, schema);
    strncat(sql, ".", sizeof sql - strlen(sql) - 1);
    quoted(sql, sizeof sql, dot + 1);
    query_names(sql, &tc->cols);
    g_ncols++;
    return &tc->cols;
}

/* ------------------------------------------------------ the candidates */

typedef struct candidates {
    char **v;
    int32_t n, cap;
} candidates;

static void add(candidates *c, const char *s) {
    for (int32_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i], s)) return;
    if (c->n == c->cap) {
        int32_t cap = c->cap ? c->cap * 2 : 64;
        char **n = realloc(c->v, (size_t)cap * sizeof *n);
        if (!n) return;
        c->v = n;
        c->cap = cap;
    }
    char *d = strdup(s);
    if (d) c->v[c->n++] = d;
}

static bool has_prefix_ci(const char *s, const char *prefix, size_t n) { return strncasecmp(s, prefix, n) == 0; }

/* A keyword in the case the user is typing in. */
static void add_keyword(candidates *c, const char *kw, const char *text) {
    bool lower = *text && islower((unsigned char)*text);
    char buf[64];
    size_t i = 0;
    for (; kw[i] && i + 1 < sizeof buf; i++) buf[i] = lower ? (char)tolower((unsigned char)kw[i]) : kw[i];
    buf[i] = 0;
    add(c, buf);
}

/* Is "schema.table" (or its bare table name) a word of `line`? */
static bool line_mentions(const char *line, const char *table) {
    const char *bare = strchr(table, '.') + 1;
    for (int pass = 0; pass < 2; pass++) {
        const char *want = pass ? bare : table;
        size_t n = strlen(want);
        for (const char *p = line; (p = strcasestr(p, want)); p += n) {
            bool start = p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
            bool end = !(isalnum((unsigned char)p[n]) || p[n] == '_' || (!pass && p[n] == '.'));
            if (start && end) return true;
        }
    }
    return false;
}

static candidates g_found;
static int32_t g_next;

static void collect(const char *text, int start) {
    for (int32_t i = 0; i < g_found.n; i++) free(g_found.v[i]);
    g_found.n = 0;
    g_next = 0;
    size_t n = strlen(text);
    const char *line = rl_line_buffer ? rl_line_buffer : "";
    if (*text == '\\' && start == (int)strspn(line, " \t")) {
        for (int i = 0; commands[i]; i++)
            if (!strncmp(commands[i], text, n)) add(&g_found, commands[i]);
        return;
    }
    load();
    const char *dot = strchr(text, '.');
    if (dot) {
        /* schema.<table> */
        for (int64_t i = 0; i < g_tables.n; i++)
            if (has_prefix_ci(g_tables.v[i], text, n)) add(&g_found, g_tables.v[i]);
        return;
    }
    for (int i = 0; keywords[i]; i++)
        if (has_prefix_ci(keywords[i], text, n)) add_keyword(&g_found, keywords[i], text);
    for (int64_t i = 0; i < g_schemas.n; i++)
        if (has_prefix_ci(g_schemas.v[i], text, n)) {
            char buf[300];
            snprintf(buf, sizeof buf, "%s.", g_schemas.v[i]);
            add(&g_found, buf);
        }
    for (int64_t i = 0; i < g_tables.n; i++) {
        const char *bare = strchr(g_tables.v[i], '.') + 1;
        if (has_prefix_ci(bare, text, n)) add(&g_found, bare);
        if (line_mentions(line, g_tables.v[i])) {
            const names *cols = columns_of(g_tables.v[i]);
            for (int64_t k = 0; cols && k < cols->n; k++)
                if (has_prefix_ci(cols->v[k], text, n)) add(&g_found, cols->v[k]);
        }
    }
}

static char *generator(const char *text, int state) {
    (void)text;
    if (g_next >= g_found.n) return NULL;
    (void)state;
    return strdup(g_found.v[g_next++]);
}

static char **complete(const char *text, int start, int end) {
    (void)end;
    collect(text, start);
    /* a schema ("db.") or nothing unique: no space after it */
    rl_completion_append_character = g_found.n == 1 && g_found.v[0][strlen(g_found.v[0]) - 1] == '.' ? '\0' : ' ';
    rl_attempted_completion_over = 1; /* never file names */
    if (!g_found.n) return NULL;
    return rl_completion_matches(text, generator);
}

void floe_cli_complete_install(floe_session *s) {
    g_session = s;
    rl_attempted_completion_function = complete;
    /* '.' is part of a name here: "db.ev" completes as one word */
    rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(,)*+-/%";
}

void floe_cli_complete_free(void) {
    floe_cli_complete_invalidate();
    for (int32_t i = 0; i < g_found.n; i++) free(g_found.v[i]);
    free(g_found.v);
    memset(&g_found, 0, sizeof g_found);
    g_session = NULL;
}

#else

void floe_cli_complete_install(floe_session *s) { (void)s; }
void floe_cli_complete_invalidate(void) {}
void floe_cli_complete_free(void) {}

#endif
