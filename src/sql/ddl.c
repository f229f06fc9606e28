/*
 * ddl.c — utility statements on the catalog: CREATE/DROP SCHEMA,
 * CREATE/DROP TABLE, ALTER TABLE (columns, properties, renames, and
 * Iceberg's partition field and write order extensions), SHOW
 * SCHEMAS/TABLES and DESCRIBE, read from libpg_query's JSON parse trees.
 *
 * Every change to an existing table is a metadata update: load the table,
 * apply the statement's changes one after another to new metadata
 * (iceberg_table_update.h), and commit it against the loaded metadata
 * file.  Losing the race to another writer (FLOE_ERR_CONFLICT) reloads and
 * re-applies, as often and with the backoff the table's commit.retry.*
 * settings say (catalog_retry.c), so a concurrent INSERT does not make an ALTER
 * fail and nothing another writer did is lost.
 *
 * Names: [catalog.][schema.]table; the schema defaults to "default" and a
 * catalog, when given, must be "floe" (the only one).  Names become
 * directory names under the warehouse, so path separators and "." / ".."
 * are refused.
 */
#include "sql/ddl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "base/str.h"
#include "floe/catalog.h"
#include "floe/iceberg_table_update.h"
#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "sql/metadata_tables.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

#define DEFAULT_NAMESPACE "default"
#define CATALOG_NAME "floe"
#define NAME_MAX_LEN 255

typedef struct ddl {
    floe_session *s;
    const floe_sql_stmt *stmt;
    const char *sql; /* the script text (parse tree locations index it), or NULL */
    const floe_result_sink *sink;
} ddl;

/* ------------------------------------------------------------- helpers */

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "DDL: out of memory"); }

/* Prefix "line L, column C" for byte offset `location` of the script. */
static floe_status wrap_at(const ddl *d, int32_t location, floe_status st) {
    if (!st || location < 0 || !d->sql) return st;
    int32_t line = 0, col = 0;
    floe_sql_line_col(d->sql, location, &line, &col);
    return floe_status_wrap(st, "line %d, column %d", (int)line, (int)col);
}

static floe_status err_at(const ddl *d, int32_t location, floe_code code, const char *fmt, ...) FLOE_PRINTF(4, 5);
static floe_status err_at(const ddl *d, int32_t location, floe_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(code, fmt, ap);
    va_end(ap);
    return wrap_at(d, location, st);
}

static floe_status end_tag(const ddl *d, const char *tag) {
    if (d->sink && d->sink->end) return d->sink->end(d->sink->arg, tag, 0);
    return NULL;
}

/* A name that may become a directory under the warehouse. */
static floe_status check_name(const ddl *d, const char *what, const char *name, int32_t location) {
    size_t n = name ? strlen(name) : 0;
    if (n == 0) return err_at(d, location, FLOE_ERR_INVALID_ARGUMENT, "%s name is empty", what);
    if (n > NAME_MAX_LEN) return err_at(d, location, FLOE_ERR_INVALID_ARGUMENT, "%s name is longer than %d bytes", what, NAME_MAX_LEN);
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strpbrk(name, "/\\"))
        return err_at(d, location, FLOE_ERR_INVALID_ARGUMENT, "%s name '%s' may not contain '/' or '\\' or be '.' or '..'",
                      what, name);
    return NULL;
}

/* A table reference: namespace and name, both NUL-terminated copies. */
typedef struct qname {
    char ns[NAME_MAX_LEN + 1];
    char name[NAME_MAX_LEN + 1];
    int32_t location;
} qname;

static floe_status set_qname(const ddl *d, const char *catalog, const char *ns, const char *name, int32_t location,
                             qname *out) {
    out->location = location;
    if (catalog && strcmp(catalog, CATALOG_NAME) != 0)
        return err_at(d, location, FLOE_ERR_NOT_FOUND, "unknown catalog '%s' (the only catalog is '%s')", catalog,
                      CATALOG_NAME);
    if (!ns) ns = DEFAULT_NAMESPACE;
    FLOE_TRY(check_name(d, "schema", ns, location));
    FLOE_TRY(check_name(d, "table", name, location));
    snprintf(out->ns, sizeof out->ns, "%s", ns);
    snprintf(out->name, sizeof out->name, "%s", name);
    return NULL;
}

/* A RangeVar body (relation of CREATE/ALTER/...). */
static floe_status rangevar_qname(const ddl *d, const json_t *rv, qname *out) {
    if (!rv) return floe_error(FLOE_ERR_INTERNAL, "DDL: statement without a table");
    return set_qname(d, floe_pg_get_str(rv, "catalogname"), floe_pg_get_str(rv, "schemaname"),
                     floe_pg_get_str(rv, "relname"), (int32_t)floe_pg_get_int(rv, "location", -1), out);
}

/* A DropStmt object: {"List": {"items": [String...]}} of 1 to 3 names. */
static floe_status list_qname(const ddl *d, const json_t *obj, qname *out) {
    json_t *items = floe_pg_get(floe_pg_as(obj, "List"), "items");
    int32_t n = floe_pg_list_len(items);
    const char *parts[3] = {NULL, NULL, NULL};
    if (n < 1 || n > 3) return err_at(d, d->stmt->location, FLOE_ERR_SYNTAX, "a table name has 1 to 3 parts, not %d", n);
    for (int32_t i = 0; i < n; i++) parts[3 - n + i] = floe_pg_string(floe_pg_list_at(items, i));
    return set_qname(d, parts[0], parts[1], parts[2], d->stmt->location, out);
}

/* The schema name of a DropStmt object or CreateSchemaStmt. */
static floe_status namespace_name(const ddl *d, const char *ns, int32_t location) {
    return check_name(d, "schema", ns, location);
}

/* The statement was written with a final PURGE (DROP TABLE t PURGE).
 * PostgreSQL's grammar has no PURGE, so the parser's pre-pass has to cut
 * the word out of the text it parses (as it does PARTITIONED BY); whether
 * it was there is read here from the original statement text, outside
 * strings and comments.  A
 * table may itself be called purge, so the word must occur more often
 * than `names_called_purge` (name parts of the dropped tables spelled so). */
static bool ends_with_purge(const char *text, int32_t names_called_purge) {
    if (!text) return false;
    const char *last = NULL;
    size_t last_len = 0;
    int32_t purges = 0;
    for (const char *p = text; *p;) {
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n') p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else if (*p == '\'' || *p == '"') {
            char q = *p++;
            while (*p && !(*p == q && p[1] != q)) p += (*p == q) ? 2 : 1;
            if (*p) p++;
            last = NULL;
        } else if (isalnum((unsigned char)*p) || *p == '_') {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '_' || *p == '$') p++;
            last = s;
            last_len = (size_t)(p - s);
            if (last_len == 5 && strncasecmp(last, "purge", 5) == 0) purges++;
        } else {
            if (!isspace((unsigned char)*p) && *p != ';') last = NULL;
            p++;
        }
    }
    return last && last_len == 5 && strncasecmp(last, "purge", 5) == 0 && purges > names_called_purge;
}

/* ---------------------------------------------------------------- types */

/* The Iceberg type of a TypeName node: `int[]` is list<int> (element
 * optional), array<T> / map<K, V> / struct<...> come through the parse
 * pre-pass (type_text.c).  *next_id numbers nested ids. */
static floe_status column_type(const ddl *d, const json_t *type_name, int32_t *next_id, floe_ice_type **out) {
    floe_pg_type_name tn;
    FLOE_TRY(floe_pg_type_name_of(type_name, &tn));
    floe_type *ft = NULL;
    FLOE_TRY(wrap_at(d, tn.location, floe_pg_type_to_floe(&tn, d->sql, &ft)));
    floe_status st = wrap_at(d, tn.location, floe_sql_ice_type_nested(ft, next_id, out));
    floe_type_release(ft);
    return st;
}

/* The SQL spelling of an Iceberg type for DESCRIBE (floe_malloc'd). */
static floe_status sql_type_name(const floe_ice_type *t, char **out) {
    const char *s = NULL;
    switch (t->id) {
    case FLOE_ICE_BOOLEAN: s = "boolean"; break;
    case FLOE_ICE_INT: s = "integer"; break;
    case FLOE_ICE_LONG: s = "bigint"; break;
    case FLOE_ICE_FLOAT: s = "real"; break;
    case FLOE_ICE_DOUBLE: s = "double"; break;
    case FLOE_ICE_DATE: s = "date"; break;
    case FLOE_ICE_TIME: s = "time"; break;
    case FLOE_ICE_TIMESTAMP: s = "timestamp"; break;
    case FLOE_ICE_TIMESTAMPTZ: s = "timestamptz"; break;
    case FLOE_ICE_TIMESTAMP_NS: s = "timestamp_ns"; break;
    case FLOE_ICE_TIMESTAMPTZ_NS: s = "timestamptz_ns"; break;
    case FLOE_ICE_STRING: s = "varchar"; break;
    case FLOE_ICE_UUID: s = "uuid"; break;
    case FLOE_ICE_BINARY: s = "binary"; break;
    case FLOE_ICE_DECIMAL: {
        char buf[48];
        snprintf(buf, sizeof buf, "decimal(%d,%d)", t->precision, t->scale);
        *out = floe_strdup(buf);
        return *out ? NULL : oom();
    }
    case FLOE_ICE_LIST: case FLOE_ICE_MAP: case FLOE_ICE_STRUCT: {
        /* T[], map<K, V>, struct<a: T, ...> in the names CREATE TABLE takes */
        floe_buf b = FLOE_BUF_INIT;
        floe_status st = NULL;
        if (t->id == FLOE_ICE_STRUCT) st = floe_buf_printf(&b, "struct<");
        else if (t->id == FLOE_ICE_MAP) st = floe_buf_printf(&b, "map<");
        for (int32_t i = 0; i < t->n_fields && !st; i++) {
            char *e = NULL;
            st = sql_type_name(t->fields[i].type, &e);
            if (!st && t->id == FLOE_ICE_STRUCT)
                st = floe_buf_printf(&b, "%s%s: %s%s", i ? ", " : "", t->fields[i].name, e,
                                     t->fields[i].required ? " not null" : "");
            else if (!st && t->id == FLOE_ICE_MAP) st = floe_buf_printf(&b, "%s%s", i ? ", " : "", e);
            else if (!st) st = floe_buf_printf(&b, "%s[]", e);
            floe_free(e);
        }
        if (!st && t->id != FLOE_ICE_LIST) st = floe_buf_printf(&b, ">");
        if (st) {
            floe_buf_free(&b);
            return st;
        }
        *out = (char *)floe_buf_detach(&b, NULL);
        return *out ? NULL : oom();
    }
    default: break;
    }
    if (s) {
        *out = floe_strdup(s);
        return *out ? NULL : oom();
    }
    return floe_ice_type_to_string(t, out); /* fixed[L], struct<...>, map<...> */
}

/* The SQL spelling of a columnar type (metadata tables' columns): the
 * same names as for Iceberg columns, floe's own for nested types. */
static floe_status sql_name_of_floe_type(const floe_type *t, char **out) {
    if (t->id == FLOE_TYPE_LIST && !floe_type_is_nested(t->children[0].type)) {
        char *e = NULL;
        FLOE_TRY(sql_name_of_floe_type(t->children[0].type, &e));
        floe_buf b = FLOE_BUF_INIT;
        floe_status st = floe_buf_printf(&b, "%s[]", e);
        floe_free(e);
        *out = st ? NULL : (char *)floe_buf_detach(&b, NULL);
        floe_buf_free(&b);
        return st ? st : *out ? NULL : oom();
    }
    if (!floe_type_is_nested(t)) {
        floe_ice_type *it = NULL;
        floe_status st = floe_sql_ice_type_plain(t, &it);
        if (!st) {
            st = sql_type_name(it, out);
            floe_ice_type_free(it);
            return st;
        }
        floe_status_free(st);
    }
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_type_to_string(t, &b);
    *out = st ? NULL : (char *)floe_buf_detach(&b, NULL);
    floe_buf_free(&b);
    return st ? st : *out ? NULL : oom();
}

/* ------------------------------------------------------------ properties */

/* Text of a DefElem's value.  libpg_query prints a negative Integer as
 * {} (like 0), so numbers are re-read from the statement text.  No value
 * (WITH (flag)) is "true", as PostgreSQL reads it. */
static floe_status defelem_value(const ddl *d, const json_t *de, char *buf, size_t cap, const char **out) {
    const json_t *arg = floe_pg_get(de, "arg");
    const char *kind = floe_pg_node_kind(arg);
    const json_t *body = floe_pg_node_body(arg);
    if (!arg) {
        *out = "true";
    } else if (strcmp(kind, "String") == 0) {
        *out = floe_pg_string(arg);
    } else if (strcmp(kind, "Boolean") == 0) {
        *out = floe_pg_get_bool(body, "boolval") ? "true" : "false";
    } else if (strcmp(kind, "Integer") == 0 || strcmp(kind, "Float") == 0) {
        int32_t loc = (int32_t)floe_pg_get_int(de, "location", -1);
        const char *eq = d->sql && loc >= 0 ? strchr(d->sql + loc, '=') : NULL;
        if (eq) {
            const char *p = eq + 1;
            while (isspace((unsigned char)*p)) p++;
            size_t n = strspn(p, "+-0123456789.eE");
            snprintf(buf, cap, "%.*s", (int)n, p);
        } else if (strcmp(kind, "Integer") == 0) {
            snprintf(buf, cap, "%lld", (long long)floe_pg_get_int(body, "ival", 0));
        } else {
            snprintf(buf, cap, "%s", floe_pg_get_str(body, "fval") ? floe_pg_get_str(body, "fval") : "0");
        }
        *out = buf;
    } else if (strcmp(kind, "TypeName") == 0) {
        /* A bare word: WITH (format = parquet). */
        json_t *names = floe_pg_get(body, "names");
        *out = floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
    } else {
        *out = NULL;
    }
    if (!*out)
        return err_at(d, (int32_t)floe_pg_get_int(de, "location", -1), FLOE_ERR_SYNTAX,
                      "property '%s' needs a literal value",
                      floe_pg_get_str(de, "defname") ? floe_pg_get_str(de, "defname") : "?");
    return NULL;
}

static bool is_format_version_key(const char *k) {
    return strcmp(k, "format_version") == 0 || strcmp(k, "format-version") == 0;
}

/* Key/value pairs collected from a WITH / SET list (floe_malloc'd copies). */
typedef struct props {
    int32_t n;       /* pairs */
    char **kv;       /* 2n strings */
} props;

static void props_free(props *p) {
    for (int32_t i = 0; i < 2 * p->n; i++) floe_free(p->kv[i]);
    floe_free(p->kv);
    p->n = 0;
    p->kv = NULL;
}

static floe_status props_add(props *p, const char *k, const char *v) {
    char **kv = floe_realloc(p->kv, (size_t)(p->n + 1) * 2 * sizeof *kv);
    if (!kv) return oom();
    p->kv = kv;
    kv[2 * p->n] = floe_strdup(k);
    kv[2 * p->n + 1] = floe_strdup(v);
    p->n++;
    return kv[2 * p->n - 2] && kv[2 * p->n - 1] ? NULL : oom();
}

/* ---------------------------------------------------------------- SHOW */

static floe_status show_schemas(const ddl *d) {
    char **names = NULL;
    int32_t n = 0;
    FLOE_TRY(floe_catalog_list_namespaces(d->s->catalog, &names, &n));
    const char *col[] = {"schema_name"};
    floe_status st = floe_session_emit_strings(d->sink, col, 1, (const char *const *)names, n, "SHOW");
    floe_catalog_names_free(names, n);
    return st;
}

/* FLOE_ERR_NOT_FOUND "schema 'x' does not exist" with a suggestion. */
static floe_status need_namespace(const ddl *d, const char *ns, int32_t location) {
    bool exists = false;
    FLOE_TRY(floe_catalog_namespace_exists(d->s->catalog, ns, &exists));
    if (exists) return NULL;
    char **names = NULL;
    int32_t n = 0;
    FLOE_TRY(floe_catalog_list_namespaces(d->s->catalog, &names, &n));
    ptrdiff_t near = floe_str_closest(floe_str_c(ns), (const char *const *)names, (size_t)n);
    floe_status st = near >= 0 ? err_at(d, location, FLOE_ERR_NOT_FOUND, "schema '%s' does not exist (did you mean '%s'?)",
                                        ns, names[near])
                               : err_at(d, location, FLOE_ERR_NOT_FOUND, "schema '%s' does not exist", ns);
    floe_catalog_names_free(names, n);
    return st;
}

static floe_status show_tables(const ddl *d) {
    const floe_sql_clause *from = floe_sql_stmt_clause(d->stmt, FLOE_SQL_SHOW_FROM, -1);
    const char *ns = from ? from->text : DEFAULT_NAMESPACE;
    int32_t loc = from ? from->location : d->stmt->location;
    FLOE_TRY(namespace_name(d, ns, loc));
    FLOE_TRY(need_namespace(d, ns, loc));
    char **names = NULL;
    int32_t n = 0;
    FLOE_TRY(floe_catalog_list_tables(d->s->catalog, ns, &names, &n));
    const char *col[] = {"table_name"};
    floe_status st = floe_session_emit_strings(d->sink, col, 1, (const char *const *)names, n, "SHOW");
    floe_catalog_names_free(names, n);
    return st;
}

static floe_status exec_show(const ddl *d, const json_t *body, bool *handled) {
    const char *name = floe_pg_get_str(body, "name");
    if (!name) return NULL;
    if (strcmp(name, "tables") == 0) {
        *handled = true;
        return show_tables(d);
    }
    if (strcmp(name, "schemas") == 0 || strcmp(name, "databases") == 0) {
        *handled = true;
        if (floe_sql_stmt_clause(d->stmt, FLOE_SQL_SHOW_FROM, -1))
            return err_at(d, d->stmt->location, FLOE_ERR_SYNTAX, "SHOW SCHEMAS takes no FROM");
        return show_schemas(d);
    }
    return NULL;
}

/* ------------------------------------------------------------- DESCRIBE */

static floe_status load(const ddl *d, const qname *q, floe_ice_table **t) {
    return wrap_at(d, q->location, floe_catalog_load_table(d->s->catalog, q->ns, q->name, t));
}

/* DESCRIBE t$snapshots: the metadata table's columns. */
static floe_status describe_metadata_table(const ddl *d, qname *q, const char *which) {
    floe_ice_table *t = NULL;
    FLOE_TRY(load(d, q, &t));
    floe_plan *p = NULL;
    floe_status st = wrap_at(d, q->location, floe_sql_metadata_table(t, which, &p));
    floe_ice_table_free(t);
    FLOE_TRY(st);
    const floe_schema *sc = floe_plan_schema(p);
    int32_t n = floe_schema_num_fields(sc);
    const char **cells = floe_calloc((size_t)n * 4 + 1, sizeof *cells);
    char **types = floe_calloc((size_t)n + 1, sizeof *types);
    if (!cells || !types) st = oom();
    for (int32_t i = 0; !st && i < n; i++) {
        const floe_field *f = floe_schema_field(sc, i);
        st = sql_name_of_floe_type(f->type, &types[i]);
        cells[i * 4] = f->name;
        cells[i * 4 + 1] = types[i];
        cells[i * 4 + 2] = f->nullable ? "YES" : "NO";
        cells[i * 4 + 3] = NULL;
    }
    const char *cols[] = {"column_name", "data_type", "nullable", "comment"};
    if (!st) st = floe_session_emit_strings(d->sink, cols, 4, cells, n, "DESCRIBE");
    for (int32_t i = 0; types && i < n; i++) floe_free(types[i]);
    floe_free(types);
    floe_free(cells);
    floe_plan_release(p);
    return st;
}

static floe_status describe_table(const ddl *d, const qname *q) {
    floe_ice_table *t = NULL;
    floe_ice_view *v = NULL;
    floe_status lst = load(d, q, &t);
    if (lst && floe_status_code(lst) == FLOE_ERR_NOT_FOUND) {
        /* DESCRIBE of a view: the columns of its current version. */
        floe_status vst = floe_catalog_load_view(d->s->catalog, q->ns, q->name, &v);
        if (!vst) {
            floe_status_free(lst);
            lst = NULL;
        }
        floe_status_free(vst);
    }
    FLOE_TRY(lst);
    const floe_ice_schema *sc = v ? v->schema : floe_ice_tm_current_schema(t->md);
    int32_t n = sc ? sc->root->n_fields : 0;
    const char **cells = floe_calloc((size_t)n * 4 + 1, sizeof *cells);
    char **types = floe_calloc((size_t)n + 1, sizeof *types);
    floe_status st = cells && types ? NULL : oom();
    for (int32_t i = 0; !st && i < n; i++) {
        const floe_ice_field *f = &sc->root->fields[i];
        st = sql_type_name(f->type, &types[i]);
        cells[i * 4] = f->name;
        cells[i * 4 + 1] = types[i];
        cells[i * 4 + 2] = f->required ? "NO" : "YES";
        cells[i * 4 + 3] = f->doc;
    }
    const char *cols[] = {"column_name", "data_type", "nullable", "comment"};
    if (!st) st = floe_session_emit_strings(d->sink, cols, 4, cells, n, "DESCRIBE");
    for (int32_t i = 0; types && i < n; i++) floe_free(types[i]);
    floe_free(types);
    floe_free(cells);
    floe_ice_table_free(t);
    floe_ice_view_free(v);
    return st;
}

static floe_status exec_describe(const ddl *d, const json_t *body) {
    json_t *from = floe_pg_get(body, "fromClause");
    const json_t *rv = floe_pg_as(floe_pg_list_at(from, 0), "RangeVar");
    if (floe_pg_list_len(from) != 1 || !rv)
        return err_at(d, d->stmt->location, FLOE_ERR_UNSUPPORTED, "DESCRIBE takes one table name");
    const char *rel = floe_pg_get_str(rv, "relname");
    const char *dollar = rel ? strchr(rel, '$') : NULL;
    char base[NAME_MAX_LEN + 1];
    snprintf(base, sizeof base, "%.*s", dollar ? (int)(dollar - rel) : (int)sizeof base - 1, rel ? rel : "");
    qname q;
    FLOE_TRY(set_qname(d, floe_pg_get_str(rv, "catalogname"), floe_pg_get_str(rv, "schemaname"), base,
                       (int32_t)floe_pg_get_int(rv, "location", -1), &q));
    if (dollar) return describe_metadata_table(d, &q, dollar + 1);
    return describe_table(d, &q);
}

/* --------------------------------------------------------------- SCHEMA */

static floe_status exec_create_schema(const ddl *d, const json_t *body) {
    const char *ns = floe_pg_get_str(body, "schemaname");
    if (floe_pg_list_len(floe_pg_get(body, "schemaElts")) > 0)
        return err_at(d, d->stmt->location, FLOE_ERR_UNSUPPORTED, "CREATE SCHEMA with statements inside is not supported");
    if (floe_pg_get(body, "authrole"))
        return err_at(d, d->stmt->location, FLOE_ERR_UNSUPPORTED, "CREATE SCHEMA AUTHORIZATION is not supported");
    FLOE_TRY(namespace_name(d, ns, d->stmt->location));
    FLOE_TRY(wrap_at(d, d->stmt->location,
                     floe_catalog_create_namespace(d->s->catalog, ns, floe_pg_get_bool(body, "if_not_exists"))));
    return end_tag(d, "CREATE SCHEMA");
}

static floe_status drop_schema(const ddl *d, const char *ns, bool if_exists, bool cascade) {
    FLOE_TRY(namespace_name(d, ns, d->stmt->location));
    bool exists = false;
    FLOE_TRY(floe_catalog_namespace_exists(d->s->catalog, ns, &exists));
    if (!exists) return if_exists ? NULL : need_namespace(d, ns, d->stmt->location);
    if (cascade) {
        char **names = NULL;
        int32_t n = 0;
        FLOE_TRY(floe_catalog_list_tables(d->s->catalog, ns, &names, &n));
        floe_status st = NULL;
        for (int32_t i = 0; !st && i < n; i++) st = floe_catalog_drop_table(d->s->catalog, ns, names[i], false);
        floe_catalog_names_free(names, n);
        FLOE_TRY(st);
        /* Its views go too (they may read tables elsewhere; those stay). */
        FLOE_TRY(floe_catalog_list_views(d->s->catalog, ns, &names, &n));
        for (int32_t i = 0; !st && i < n; i++) st = floe_catalog_drop_view(d->s->catalog, ns, names[i]);
        floe_catalog_names_free(names, n);
        FLOE_TRY(st);
    }
    return wrap_at(d, d->stmt->location, floe_catalog_drop_namespace(d->s->catalog, ns, if_exists));
}

/* ---------------------------------------------------------- CREATE TABLE */

/* Columns of a CREATE TABLE being assembled. */
typedef struct new_table {
    floe_ice_type *root;      /* struct */
    int32_t next_id;
    int32_t *ident;           /* identifier (PRIMARY KEY) field ids */
    int32_t n_ident;
} new_table;

static floe_status add_identifier(new_table *nt, int32_t id) {
    for (int32_t i = 0; i < nt->n_ident; i++)
        if (nt->ident[i] == id) return NULL;
    int32_t *v = floe_realloc(nt->ident, (size_t)(nt->n_ident + 1) * sizeof *v);
    if (!v) return oom();
    nt->ident = v;
    nt->ident[nt->n_ident++] = id;
    return NULL;
}

static floe_ice_field *find_new_column(new_table *nt, const char *name) {
    for (int32_t i = 0; i < nt->root->n_fields; i++)
        if (strcmp(nt->root->fields[i].name, name) == 0) return &nt->root->fields[i];
    return NULL;
}

static const char *constraint_name(const char *contype) {
    if (!contype) return "?";
    if (strcmp(contype, "CONSTR_DEFAULT") == 0) return "DEFAULT";
    if (strcmp(contype, "CONSTR_UNIQUE") == 0) return "UNIQUE";
    if (strcmp(contype, "CONSTR_CHECK") == 0) return "CHECK";
    if (strcmp(contype, "CONSTR_FOREIGN") == 0) return "REFERENCES";
    if (strcmp(contype, "CONSTR_GENERATED") == 0 || strcmp(contype, "CONSTR_IDENTITY") == 0) return "GENERATED";
    if (strcmp(contype, "CONSTR_EXCLUSION") == 0) return "EXCLUDE";
    return contype;
}

/* NOT NULL / NULL / PRIMARY KEY of a column; anything else is refused.
 * *required is set; *primary when the column is a key. */
static floe_status column_constraints(const ddl *d, const json_t *cdef, bool *required, bool *primary) {
    json_t *cons = floe_pg_get(cdef, "constraints");
    *required = false;
    *primary = false;
    for (int32_t i = 0; i < floe_pg_list_len(cons); i++) {
        const json_t *c = floe_pg_as(floe_pg_list_at(cons, i), "Constraint");
        const char *ct = floe_pg_get_str(c, "contype");
        if (ct && strcmp(ct, "CONSTR_NOTNULL") == 0) {
            *required = true;
        } else if (ct && strcmp(ct, "CONSTR_NULL") == 0) {
            *required = false;
        } else if (ct && strcmp(ct, "CONSTR_PRIMARY") == 0) {
            *required = true;
            *primary = true;
        } else {
            return err_at(d, (int32_t)floe_pg_get_int(c, "location", -1), FLOE_ERR_UNSUPPORTED,
                          "column '%s': %s constraints are not supported (Iceberg columns have only NOT NULL)",
                          floe_pg_get_str(cdef, "colname") ? floe_pg_get_str(cdef, "colname") : "?",
                          constraint_name(ct));
        }
    }
    if (floe_pg_get(cdef, "collClause"))
        return err_at(d, (int32_t)floe_pg_get_int(cdef, "location", -1), FLOE_ERR_UNSUPPORTED,
                      "column '%s': COLLATE is not supported", floe_pg_get_str(cdef, "colname"));
    return NULL;
}

static floe_status add_column_def(const ddl *d, new_table *nt, const json_t *cdef) {
    const char *name = floe_pg_get_str(cdef, "colname");
    int32_t loc = (int32_t)floe_pg_get_int(cdef, "location", -1);
    if (!name || !*name) return err_at(d, loc, FLOE_ERR_SYNTAX, "a column needs a name");
    if (find_new_column(nt, name))
        return err_at(d, loc, FLOE_ERR_ALREADY_EXISTS, "column '%s' is specified more than once", name);
    bool required = false, primary = false;
    FLOE_TRY(column_constraints(d, cdef, &required, &primary));
    int32_t id = nt->next_id++;
    floe_ice_type *t = NULL;
    FLOE_TRY(column_type(d, floe_pg_get(cdef, "typeName"), &nt->next_id, &t));
    FLOE_TRY(floe_ice_struct_add_field(nt->root, id, name, required, t, NULL));
    return primary ? add_identifier(nt, id) : NULL;
}

/* A table-level constraint: PRIMARY KEY (a, b) only. */
static floe_status add_table_constraint(const ddl *d, new_table *nt, const json_t *c) {
    const char *ct = floe_pg_get_str(c, "contype");
    int32_t loc = (int32_t)floe_pg_get_int(c, "location", -1);
    if (!ct || strcmp(ct, "CONSTR_PRIMARY") != 0)
        return err_at(d, loc, FLOE_ERR_UNSUPPORTED, "%s constraints are not supported (only PRIMARY KEY, which "
                      "becomes the Iceberg identifier fields)", constraint_name(ct));
    json_t *keys = floe_pg_get(c, "keys");
    for (int32_t i = 0; i < floe_pg_list_len(keys); i++) {
        const char *k = floe_pg_string(floe_pg_list_at(keys, i));
        floe_ice_field *f = k ? find_new_column(nt, k) : NULL;
        if (!f) return err_at(d, loc, FLOE_ERR_NOT_FOUND, "PRIMARY KEY: unknown column '%s'", k ? k : "?");
        f->required = true;
        FLOE_TRY(add_identifier(nt, f->id));
    }
    return NULL;
}

static floe_status table_columns(const ddl *d, const json_t *body, new_table *nt) {
    json_t *elts = floe_pg_get(body, "tableElts");
    FLOE_TRY(floe_ice_type_struct(&nt->root));
    nt->next_id = 1;
    if (floe_pg_list_len(elts) == 0)
        return err_at(d, d->stmt->location, FLOE_ERR_INVALID_ARGUMENT, "a table needs at least one column");
    /* Columns first, so a table-level PRIMARY KEY can name any of them. */
    for (int32_t i = 0; i < floe_pg_list_len(elts); i++) {
        const json_t *e = floe_pg_list_at(elts, i);
        const json_t *cdef = floe_pg_as(e, "ColumnDef");
        if (cdef) FLOE_TRY(add_column_def(d, nt, cdef));
        else if (!floe_pg_as(e, "Constraint"))
            return err_at(d, floe_pg_location(e), FLOE_ERR_UNSUPPORTED, "CREATE TABLE: %s is not supported",
                          floe_pg_node_kind(e) && strcmp(floe_pg_node_kind(e), "TableLikeClause") == 0
                              ? "LIKE" : floe_pg_node_kind(e) ? floe_pg_node_kind(e) : "this element");
    }
    for (int32_t i = 0; i < floe_pg_list_len(elts); i++) {
        const json_t *c = floe_pg_as(floe_pg_list_at(elts, i), "Constraint");
        if (c) FLOE_TRY(add_table_constraint(d, nt, c));
    }
    return NULL;
}

/* WITH (...) of CREATE TABLE: format version, location, properties. */
static floe_status table_options(const ddl *d, const json_t *body, props *p, int *format_version, char **location) {
    json_t *opts = floe_pg_get(body, "options");
    for (int32_t i = 0; i < floe_pg_list_len(opts); i++) {
        const json_t *de = floe_pg_as(floe_pg_list_at(opts, i), "DefElem");
        const char *k = floe_pg_get_str(de, "defname");
        char buf[64];
        const char *v = NULL;
        if (!de || !k) return err_at(d, d->stmt->location, FLOE_ERR_SYNTAX, "WITH: expected key = value");
        FLOE_TRY(defelem_value(d, de, buf, sizeof buf, &v));
        int32_t loc = (int32_t)floe_pg_get_int(de, "location", -1);
        if (is_format_version_key(k)) {
            if (strlen(v) != 1 || v[0] < '1' || v[0] > '3')
                return err_at(d, loc, FLOE_ERR_INVALID_ARGUMENT, "format_version must be 1, 2 or 3, not '%s'", v);
            *format_version = v[0] - '0';
        } else if (strcmp(k, "location") == 0) {
            floe_free(*location);
            *location = floe_strdup(v);
            if (!*location) return oom();
        } else {
            FLOE_TRY(props_add(p, k, v));
        }
    }
    return NULL;
}

/* Where the clause text starts: just after the '(' that follows
 * PARTITIONED BY at `location`. */
static int32_t clause_text_location(const ddl *d, int32_t location) {
    if (!d->sql || location < 0) return 0;
    const char *p = strchr(d->sql + location, '(');
    return p ? (int32_t)(p - d->sql) + 1 : 0;
}

/* CREATE TABLE AS: the query's columns (all optional; an untyped NULL
 * column becomes a string, as PostgreSQL makes it text). */
static floe_status query_columns(const floe_schema *columns, new_table *nt) {
    FLOE_TRY(floe_ice_type_struct(&nt->root));
    nt->next_id = 1;
    for (int32_t i = 0; i < floe_schema_num_fields(columns); i++) {
        const floe_field *f = floe_schema_field(columns, i);
        if (find_new_column(nt, f->name))
            return floe_error(FLOE_ERR_ALREADY_EXISTS, "CREATE TABLE AS: column '%s' is specified more than once",
                              f->name);
        floe_ice_type *t = NULL;
        int32_t id = nt->next_id++;
        floe_status st = f->type->id == FLOE_TYPE_NULL ? floe_ice_type_new(FLOE_ICE_STRING, &t)
                                                       : floe_sql_ice_type_nested(f->type, &nt->next_id, &t);
        if (st) return floe_status_wrap(st, "CREATE TABLE AS: column '%s'", f->name);
        FLOE_TRY(floe_ice_struct_add_field(nt->root, id, f->name, false, t, NULL));
    }
    return NULL;
}

static floe_status create_table_md(const ddl *d, const json_t *body, const qname *q, const floe_schema *columns,
                                   floe_ice_table_metadata **md) {
    new_table nt = {0};
    props p = {0};
    int fv = 2;
    char *location = NULL;
    floe_ice_schema *schema = NULL;
    floe_ice_partition_spec *spec = NULL;
    floe_status st = columns ? query_columns(columns, &nt) : table_columns(d, body, &nt);
    if (!st) {
        floe_ice_type *root = nt.root;
        nt.root = NULL; /* the schema owns it now, also on failure */
        st = wrap_at(d, q->location, floe_ice_schema_new(0, root, nt.ident, nt.n_ident, &schema));
    }
    if (!st) st = table_options(d, body, &p, &fv, &location);
    const floe_sql_clause *pc = floe_sql_stmt_clause(d->stmt, FLOE_SQL_PARTITIONED_BY, -1);
    if (!st && pc)
        st = floe_sql_parse_partitioning(pc->text, schema, d->sql, clause_text_location(d, pc->location), &spec);
    if (!st && !location) st = floe_catalog_default_location(d->s->catalog, q->ns, q->name, &location);
    if (!st)
        st = wrap_at(d, q->location, floe_ice_tm_new(schema, spec, NULL, location, (const char *const *)p.kv, p.n, fv, md));
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(schema);
    floe_ice_type_free(nt.root);
    floe_free(nt.ident);
    floe_free(location);
    props_free(&p);
    return st;
}

static floe_status exec_create_table(const ddl *d, const json_t *body) {
    const json_t *rv = floe_pg_get(body, "relation");
    qname q;
    FLOE_TRY(rangevar_qname(d, rv, &q));
    const char *persistence = floe_pg_get_str(rv, "relpersistence");
    if (persistence && strcmp(persistence, "p") != 0)
        return err_at(d, q.location, FLOE_ERR_UNSUPPORTED, "TEMPORARY and UNLOGGED tables are not supported");
    if (floe_pg_list_len(floe_pg_get(body, "inhRelations")) > 0)
        return err_at(d, q.location, FLOE_ERR_UNSUPPORTED, "INHERITS is not supported");
    if (floe_pg_get(body, "partspec"))
        return err_at(d, q.location, FLOE_ERR_UNSUPPORTED, "PARTITION BY is PostgreSQL's; use PARTITIONED BY (...)");
    if (strchr(q.name, '$'))
        return err_at(d, q.location, FLOE_ERR_INVALID_ARGUMENT, "table name '%s' may not contain '$' (it names metadata "
                      "tables)", q.name);
    bool if_not_exists = floe_pg_get_bool(body, "if_not_exists");
    bool exists = false;
    FLOE_TRY(floe_catalog_table_exists(d->s->catalog, q.ns, q.name, &exists));
    if (exists && if_not_exists) return end_tag(d, "CREATE TABLE");
    if (exists) return err_at(d, q.location, FLOE_ERR_ALREADY_EXISTS, "table %s.%s already exists", q.ns, q.name);
    FLOE_TRY(need_namespace(d, q.ns, q.location));
    floe_ice_table_metadata *md = NULL;
    FLOE_TRY(create_table_md(d, body, &q, NULL, &md));
    floe_ice_table *t = NULL;
    floe_status st = floe_catalog_create_table(d->s->catalog, q.ns, q.name, md, &t);
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);
    if (st && if_not_exists && floe_status_code(st) == FLOE_ERR_ALREADY_EXISTS) {
        floe_status_free(st); /* created meanwhile by someone else */
        st = NULL;
    }
    FLOE_TRY(wrap_at(d, q.location, st));
    return end_tag(d, "CREATE TABLE");
}

/* ----------------------------------------------------------- DROP TABLE */

static floe_status exec_drop(const ddl *d, const json_t *body) {
    const char *type = floe_pg_get_str(body, "removeType");
    json_t *objs = floe_pg_get(body, "objects");
    bool if_exists = floe_pg_get_bool(body, "missing_ok");
    const char *behavior = floe_pg_get_str(body, "behavior");
    bool cascade = behavior && strcmp(behavior, "DROP_CASCADE") == 0;
    int32_t n = floe_pg_list_len(objs);
    if (type && strcmp(type, "OBJECT_SCHEMA") == 0) {
        for (int32_t i = 0; i < n; i++) {
            const char *ns = floe_pg_string(floe_pg_list_at(objs, i));
            FLOE_TRY(drop_schema(d, ns, if_exists, cascade));
        }
        return end_tag(d, "DROP SCHEMA");
    }
    if (!type || strcmp(type, "OBJECT_TABLE") != 0)
        return err_at(d, d->stmt->location, FLOE_ERR_UNSUPPORTED, "DROP of %s is not supported",
                      type ? type + (strncmp(type, "OBJECT_", 7) == 0 ? 7 : 0) : "this object");
    qname *qs = floe_calloc(n ? (size_t)n : 1, sizeof *qs);
    bool *present = floe_calloc(n ? (size_t)n : 1, sizeof *present);
    floe_status st = qs && present ? NULL : oom();
    /* Check every name first: a missing table drops none of them. */
    for (int32_t i = 0; !st && i < n; i++) {
        st = list_qname(d, floe_pg_list_at(objs, i), &qs[i]);
        if (!st) st = floe_catalog_table_exists(d->s->catalog, qs[i].ns, qs[i].name, &present[i]);
        if (!st && !present[i]) {
            floe_ice_view *v = NULL;
            floe_status vst = floe_catalog_load_view(d->s->catalog, qs[i].ns, qs[i].name, &v);
            floe_ice_view_free(v);
            if (!vst)
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "\"%s.%s\" is not a table (use DROP VIEW to remove a "
                                "view)", qs[i].ns, qs[i].name);
            floe_status_free(vst);
        }
        if (!st && !present[i] && !if_exists) {
            floe_ice_table *t = NULL; /* for the catalog's "did you mean" */
            st = floe_catalog_load_table(d->s->catalog, qs[i].ns, qs[i].name, &t);
            floe_ice_table_free(t);
            if (!st) present[i] = true;
        }
    }
    int32_t called_purge = 0;
    for (int32_t i = 0; !st && i < n; i++)
        called_purge += (strcasecmp(qs[i].name, "purge") == 0) + (strcasecmp(qs[i].ns, "purge") == 0);
    bool purge = ends_with_purge(d->stmt->text, called_purge);
    for (int32_t i = 0; !st && i < n; i++)
        if (present[i]) st = floe_catalog_drop_table(d->s->catalog, qs[i].ns, qs[i].name, purge);
    floe_free(qs);
    floe_free(present);
    FLOE_TRY(wrap_at(d, d->stmt->location, st));
    return end_tag(d, "DROP TABLE");
}

/* ---------------------------------------------------------- ALTER TABLE */

/* One change to apply to metadata: *out is the new metadata, or NULL when
 * nothing changes (ADD COLUMN IF NOT EXISTS of an existing column ...). */
typedef floe_status (*alter_fn)(const ddl *d, const json_t *arg, const floe_ice_table_metadata *md,
                                floe_ice_table_metadata **out);

static bool has_column(const floe_ice_table_metadata *md, const char *path) {
    const floe_ice_schema *sc = floe_ice_tm_current_schema(md);
    return sc && floe_ice_schema_find_by_name(sc, path, true) != NULL;
}

static floe_status alter_add_column(const ddl *d, const json_t *cmd, const floe_ice_table_metadata *md,
                                    floe_ice_table_metadata **out) {
    const json_t *cdef = floe_pg_as(floe_pg_get(cmd, "def"), "ColumnDef");
    const char *name = floe_pg_get_str(cdef, "colname");
    int32_t loc = (int32_t)floe_pg_get_int(cdef, "location", -1);
    if (!name) return err_at(d, loc, FLOE_ERR_SYNTAX, "ADD COLUMN needs a column name");
    if (floe_pg_get_bool(cmd, "missing_ok") && has_column(md, name)) return NULL;
    bool required = false, primary = false;
    FLOE_TRY(column_constraints(d, cdef, &required, &primary));
    if (primary) return err_at(d, loc, FLOE_ERR_UNSUPPORTED, "ADD COLUMN ... PRIMARY KEY is not supported");
    int32_t next_id = 1;
    floe_ice_type *t = NULL;
    FLOE_TRY(column_type(d, floe_pg_get(cdef, "typeName"), &next_id, &t));
    floe_status st = floe_ice_tm_add_column(md, NULL, name, t, required, NULL, out);
    floe_ice_type_free(t);
    return wrap_at(d, loc, st);
}

/* The location of an AlterTableCmd for messages (its def's, else the
 * statement's). */
static int32_t cmd_location(const ddl *d, const json_t *cmd) {
    int32_t loc = floe_pg_location(floe_pg_get(cmd, "def"));
    return loc >= 0 ? loc : d->stmt->location;
}

static floe_status alter_drop_column(const ddl *d, const json_t *cmd, const floe_ice_table_metadata *md,
                                     floe_ice_table_metadata **out) {
    const char *name = floe_pg_get_str(cmd, "name");
    if (!name) return err_at(d, d->stmt->location, FLOE_ERR_SYNTAX, "DROP COLUMN needs a column name");
    if (floe_pg_get_bool(cmd, "missing_ok") && !has_column(md, name)) return NULL;
    return wrap_at(d, d->stmt->location, floe_ice_tm_drop_column(md, name, out));
}

static floe_status alter_column_type(const ddl *d, const json_t *cmd, const floe_ice_table_metadata *md,
                                     floe_ice_table_metadata **out) {
    const char *name = floe_pg_get_str(cmd, "name");
    const json_t *cdef = floe_pg_as(floe_pg_get(cmd, "def"), "ColumnDef");
    int32_t loc = cmd_location(d, cmd);
    if (!name || !cdef) return err_at(d, loc, FLOE_ERR_SYNTAX, "ALTER COLUMN ... TYPE needs a column and a type");
    if (floe_pg_get(cdef, "raw_default"))
        return err_at(d, loc, FLOE_ERR_UNSUPPORTED, "ALTER COLUMN ... TYPE ... USING is not supported (Iceberg "
                      "changes types without rewriting data: int to bigint, real to double, wider decimals)");
    int32_t next_id = 1;
    floe_ice_type *t = NULL;
    FLOE_TRY(column_type(d, floe_pg_get(cdef, "typeName"), &next_id, &t));
    floe_status st = floe_ice_tm_update_column_type(md, name, t, out);
    floe_ice_type_free(t);
    return wrap_at(d, loc, st);
}

static floe_status alter_required(const ddl *d, const json_t *cmd, const floe_ice_table_metadata *md, bool required,
                                  floe_ice_table_metadata **out) {
    const char *name = floe_pg_get_str(cmd, "name");
    if (!name) return err_at(d, d->stmt->location, FLOE_ERR_SYNTAX, "ALTER COLUMN needs a column name");
    return wrap_at(d, d->stmt->location, floe_ice_tm_set_column_required(md, name, required, out));
}

/* Keys Iceberg keeps outside the properties map. */
static floe_status check_property_key(const ddl *d, const char *k, int32_t loc) {
    if (is_format_version_key(k))
        return err_at(d, loc, FLOE_ERR_UNSUPPORTED, "changing the format version of a table is not supported");
    if (strcmp(k, "location") == 0)
        return err_at(d, loc, FLOE_ERR_UNSUPPORTED, "changing the location of a table is not supported");
    return NULL;
}

static floe_status alter_set_options(const ddl *d, const json_t *cmd, const floe_ice_table_metadata *md,
                                     floe_ice_table_metadata **out) {
    json_t *items = floe_pg_get(floe_pg_as(floe_pg_get(cmd, "def"), "List"), "items");
    props p = {0};
    floe_status st = NULL;
    int version = 0; /* 'format-version' = 'n': an upgrade, as Spark's */
    for (int32_t i = 0; !st && i < floe_pg_list_len(items); i++) {
        const json_t *de = floe_pg_as(floe_pg_list_at(items, i), "DefElem");
        const char *k = floe_pg_get_str(de, "defname");
        char buf[64];
        const char *v = NULL;
        if (!de || !k) {
            st = err_at(d, d->stmt->location, FLOE_ERR_SYNTAX, "SET: expected key = value");
            break;
        }
        int32_t loc = (int32_t)floe_pg_get_int(de, "location", -1);
        st = is_format_version_key(k) ? NULL : check_property_key(d, k, loc);
        if (!st) st = defelem_value(d, de, buf, sizeof buf, &v);
        if (!st && is_format_version_key(k)) {
            if (strlen(v) != 1 || v[0] < '1' || v[0] > '9')
                st = err_at(d, loc, FLOE_ERR_INVALID_ARGUMENT, "format-version must be 1, 2 or 3, not '%s'", v);
            else version = v[0] - '0';
        } else if (!st) {
            st = props_add(&p, k, v);
        }
    }
    floe_ice_table_metadata *mid = NULL;
    if (!st) st = floe_ice_tm_set_properties(md, (const char *const *)p.kv, p.n, version ? &mid : out);
    if (!st && version) st = wrap_at(d, d->stmt->location, floe_ice_tm_upgrade_format_version(mid, version, out));
    floe_ice_table_metadata_free(mid);
    props_free(&p);
    return st;
}

static floe_status alter_reset_options(const ddl *d, const json_t *cmd, const floe_ice_table_metadata *md,
                                       floe_ice_table_metadata **out) {
    json_t *items = floe_pg_get(floe_pg_as(floe_pg_get(cmd, "def"), "List"), "items");
    int32_t n = floe_pg_list_len(items);
    const char **keys = floe_calloc(n ? (size_t)n : 1, sizeof *keys);
    if (!keys) return oom();
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < n; i++) {
        const json_t *de = floe_pg_as(floe_pg_list_at(items, i), "DefElem");
        keys[i] = floe_pg_get_str(de, "defname");
        if (!keys[i]) st = err_at(d, d->stmt->location, FLOE_ERR_SYNTAX, "RESET: expected property names");
        else st = check_property_key(d, keys[i], (int32_t)floe_pg_get_int(de, "location", -1));
    }
    if (!st) st = floe_ice_tm_remove_properties(md, keys, n, out);
    floe_free(keys);
    return st;
}

static const char *subtype_text(const char *sub) {
    return sub && strncmp(sub, "AT_", 3) == 0 ? sub + 3 : sub ? sub : "?";
}

/* The commands of an AlterTableStmt applied in order. */
static floe_status alter_cmds(const ddl *d, const json_t *body, const floe_ice_table_metadata *md,
                              floe_ice_table_metadata **out) {
    json_t *cmds = floe_pg_get(body, "cmds");
    floe_ice_table_metadata *cur = NULL;
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < floe_pg_list_len(cmds); i++) {
        const json_t *cmd = floe_pg_as(floe_pg_list_at(cmds, i), "AlterTableCmd");
        const char *sub = floe_pg_get_str(cmd, "subtype");
        const floe_ice_table_metadata *base = cur ? cur : md;
        floe_ice_table_metadata *next = NULL;
        if (!sub) st = err_at(d, d->stmt->location, FLOE_ERR_SYNTAX, "ALTER TABLE: empty command");
        else if (strcmp(sub, "AT_AddColumn") == 0) st = alter_add_column(d, cmd, base, &next);
        else if (strcmp(sub, "AT_DropColumn") == 0) st = alter_drop_column(d, cmd, base, &next);
        else if (strcmp(sub, "AT_AlterColumnType") == 0) st = alter_column_type(d, cmd, base, &next);
        else if (strcmp(sub, "AT_SetNotNull") == 0) st = alter_required(d, cmd, base, true, &next);
        else if (strcmp(sub, "AT_DropNotNull") == 0) st = alter_required(d, cmd, base, false, &next);
        else if (strcmp(sub, "AT_SetRelOptions") == 0) st = alter_set_options(d, cmd, base, &next);
        else if (strcmp(sub, "AT_ResetRelOptions") == 0) st = alter_reset_options(d, cmd, base, &next);
        else
            st = err_at(d, cmd_location(d, cmd), FLOE_ERR_UNSUPPORTED, "ALTER TABLE %s is not supported",
                        subtype_text(sub));
        if (!st && next) {
            floe_ice_table_metadata_free(cur);
            cur = next;
        }
    }
    if (st) {
        floe_ice_table_metadata_free(cur);
        return st;
    }
    *out = cur;
    return NULL;
}

/* Rename column: RenameStmt OBJECT_COLUMN. */
static floe_status alter_rename_column(const ddl *d, const json_t *body, const floe_ice_table_metadata *md,
                                       floe_ice_table_metadata **out) {
    const char *from = floe_pg_get_str(body, "subname"), *to = floe_pg_get_str(body, "newname");
    if (!from || !to) return err_at(d, d->stmt->location, FLOE_ERR_SYNTAX, "RENAME COLUMN needs two names");
    return wrap_at(d, d->stmt->location, floe_ice_tm_rename_column(md, from, to, out));
}

/* Load, change, commit; on FLOE_ERR_CONFLICT reload and apply again. */
static floe_status alter_table(const ddl *d, const qname *q, bool if_exists, alter_fn fn, const json_t *arg) {
    if (if_exists) {
        bool exists = false;
        FLOE_TRY(floe_catalog_table_exists(d->s->catalog, q->ns, q->name, &exists));
        if (!exists) return end_tag(d, "ALTER TABLE");
    }
    floe_status st = NULL;
    floe_commit_retry retry = floe_catalog_retry_settings(NULL);
    int attempt = 0;
    for (;; attempt++) {
        if (attempt > 0) floe_catalog_retry_backoff(&retry, attempt);
        floe_ice_table *t = NULL;
        FLOE_TRY(load(d, q, &t));
        retry = floe_catalog_retry_settings(t->md); /* as Java: the table's commit.retry.* */
        floe_ice_table_metadata *md = NULL;
        st = fn(d, arg, t->md, &md);
        if (!st && md)
            st = floe_catalog_commit(d->s->catalog, q->ns, q->name, t->metadata_location, md, NULL);
        floe_ice_table_metadata_free(md);
        floe_ice_table_free(t);
        if (floe_status_code(st) != FLOE_ERR_CONFLICT || attempt >= retry.num_retries) break;
        floe_status_free(st);
        st = NULL;
    }
    if (floe_status_code(st) == FLOE_ERR_CONFLICT)
        st = floe_status_wrap(st, "ALTER TABLE %s.%s: gave up after %d conflicting commits", q->ns, q->name,
                              attempt + 1);
    FLOE_TRY(st);
    return end_tag(d, "ALTER TABLE");
}

/* ------------------------------------- partition and write order evolution */

/* Iceberg's Spark SQL extensions, cut out of the statement by the parser's
 * pre-pass (FLOE_SQL_TABLE_EVOLUTION; the text from the first word after
 * the table name to the statement's end):
 *   ADD PARTITION FIELD term [AS name]
 *   DROP PARTITION FIELD term|name
 *   REPLACE PARTITION FIELD term|name WITH term [AS name]
 *   RENAME PARTITION FIELD name TO name                  (floe; Java's renameField)
 *   WRITE [LOCALLY] ORDERED BY term [ASC|DESC] [NULLS FIRST|LAST], ...
 *   WRITE UNORDERED
 *   WRITE DISTRIBUTED BY PARTITION [[LOCALLY] ORDERED BY ...]
 * A term is a column or a transform of one, as PARTITIONED BY has them
 * (floe_sql_parse_partitioning reads it).  A bare name in DROP/REPLACE is
 * the identity of that column when the table has such a column, else the
 * name of a partition field (as Spark decides).  WRITE replaces the
 * default sort order (no ORDERED BY: unsorted) and sets
 * write.distribution-mode as Spark does: ORDERED BY -> range, UNORDERED ->
 * none, DISTRIBUTED BY PARTITION -> hash, LOCALLY ORDERED BY alone leaves
 * it as it is. */

typedef enum { EV_END = 0, EV_WORD, EV_QUOTED, EV_NUMBER, EV_PUNCT, EV_BAD } ev_kind;

typedef struct ev_tok {
    ev_kind kind;
    int32_t pos, len; /* in the clause text */
} ev_tok;

typedef struct ev_parser {
    const ddl *d;
    const char *text;
    int32_t location; /* of text in the script */
    int32_t pos;
    ev_tok cur;
} ev_parser;

static bool ev_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           (unsigned char)c >= 0x80;
}

static void ev_next(ev_parser *p) {
    const char *s = p->text;
    int32_t i = p->pos;
    for (;;) {
        while (s[i] && isspace((unsigned char)s[i])) i++;
        if (s[i] == '-' && s[i + 1] == '-') {
            while (s[i] && s[i] != '\n') i++;
        } else if (s[i] == '/' && s[i + 1] == '*') {
            const char *e = strstr(s + i + 2, "*/");
            i = e ? (int32_t)(e - s) + 2 : (int32_t)strlen(s);
        } else {
            break;
        }
    }
    ev_tok t = {EV_END, i, 0};
    char c = s[i];
    if (!c) {
        t.kind = EV_END;
    } else if (c == '"') {
        int32_t j = i + 1;
        while (s[j] && !(s[j] == '"' && s[j + 1] != '"')) j += s[j] == '"' ? 2 : 1;
        t.kind = s[j] == '"' ? EV_QUOTED : EV_BAD;
        t.len = (s[j] ? j + 1 : j) - i;
    } else if (c >= '0' && c <= '9') {
        int32_t j = i;
        while (ev_ident_char(s[j])) j++;
        t.kind = EV_NUMBER;
        t.len = j - i;
    } else if (ev_ident_char(c)) {
        int32_t j = i;
        while (ev_ident_char(s[j])) j++;
        t.kind = EV_WORD;
        t.len = j - i;
    } else if (strchr("(),.", c)) {
        t.kind = EV_PUNCT;
        t.len = 1;
    } else if (c == '\'') { /* a string literal: never valid here */
        int32_t j = i + 1;
        while (s[j] && !(s[j] == '\'' && s[j + 1] != '\'')) j += s[j] == '\'' ? 2 : 1;
        t.kind = EV_BAD;
        t.len = (s[j] ? j + 1 : j) - i;
    } else {
        t.kind = EV_BAD;
        t.len = 1;
    }
    p->cur = t;
    p->pos = i + t.len;
}

static bool ev_is(const ev_parser *p, const char *word) {
    return p->cur.kind == EV_WORD && (size_t)p->cur.len == strlen(word) &&
           strncasecmp(p->text + p->cur.pos, word, (size_t)p->cur.len) == 0;
}

static bool ev_is_char(const ev_parser *p, char c) {
    return p->cur.kind == EV_PUNCT && p->text[p->cur.pos] == c;
}

static floe_status ev_error(const ev_parser *p, floe_code code, const char *fmt, ...) FLOE_PRINTF(3, 4);
static floe_status ev_error(const ev_parser *p, floe_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    floe_status st = floe_errorv(code, fmt, ap);
    va_end(ap);
    return wrap_at(p->d, p->location + p->cur.pos, st);
}

/* What the current token looks like, for "expected X, found Y". */
static const char *ev_found(const ev_parser *p, char *buf, size_t cap) {
    if (p->cur.kind == EV_END) return "the end of the statement";
    if (p->text[p->cur.pos] == '\'') return "a string literal";
    snprintf(buf, cap, "'%.*s'", p->cur.len > 40 ? 40 : (int)p->cur.len, p->text + p->cur.pos);
    return buf;
}

static floe_status ev_expect(ev_parser *p, const char *word) {
    char fb[64], up[32];
    size_t k = 0;
    for (; word[k] && k + 1 < sizeof up; k++) up[k] = (char)toupper((unsigned char)word[k]);
    up[k] = 0;
    if (!ev_is(p, word))
        return ev_error(p, FLOE_ERR_SYNTAX, "expected %s, found %s", up, ev_found(p, fb, sizeof fb));
    ev_next(p);
    return NULL;
}

/* A name: an unquoted word (folded to lower case) or a "quoted" one. */
static floe_status ev_name(ev_parser *p, const char *what, char **out) {
    char fb[64];
    *out = NULL;
    if (p->cur.kind == EV_WORD) {
        *out = floe_str_lower_dup(floe_str_make(p->text + p->cur.pos, (size_t)p->cur.len));
    } else if (p->cur.kind == EV_QUOTED) {
        char *s = floe_malloc((size_t)p->cur.len);
        if (s) {
            size_t k = 0;
            for (int32_t i = p->cur.pos + 1; i < p->cur.pos + p->cur.len - 1; i++) {
                s[k++] = p->text[i];
                if (p->text[i] == '"') i++;
            }
            s[k] = 0;
        }
        *out = s;
    } else {
        return ev_error(p, FLOE_ERR_SYNTAX, "expected %s, found %s", what, ev_found(p, fb, sizeof fb));
    }
    if (!*out) return oom();
    ev_next(p);
    return NULL;
}

/* A term: name(.name)* or transform(args).  Its span [*start, *end) in
 * the text; *bare when it is a single name without parentheses. */
static floe_status ev_term(ev_parser *p, int32_t *start, int32_t *end, bool *bare) {
    char fb[64];
    *start = p->cur.pos;
    *bare = false;
    if (p->cur.kind != EV_WORD && p->cur.kind != EV_QUOTED)
        return ev_error(p, FLOE_ERR_SYNTAX, "expected a column or a transform such as bucket(16, id), found %s",
                        ev_found(p, fb, sizeof fb));
    *end = p->cur.pos + p->cur.len;
    ev_next(p);
    if (ev_is_char(p, '(')) {
        int depth = 0;
        while (p->cur.kind != EV_END) {
            if (ev_is_char(p, '(')) depth++;
            else if (ev_is_char(p, ')')) depth--;
            *end = p->cur.pos + p->cur.len;
            ev_next(p);
            if (depth == 0) break;
        }
        if (depth != 0) return ev_error(p, FLOE_ERR_SYNTAX, "missing ')'");
        return NULL;
    }
    int parts = 1;
    while (ev_is_char(p, '.')) {
        ev_next(p);
        if (p->cur.kind != EV_WORD && p->cur.kind != EV_QUOTED)
            return ev_error(p, FLOE_ERR_SYNTAX, "expected a field name after '.', found %s", ev_found(p, fb, sizeof fb));
        *end = p->cur.pos + p->cur.len;
        ev_next(p);
        parts++;
    }
    *bare = parts == 1;
    return NULL;
}

/* A resolved term: its source column's full name and transform. */
typedef struct ev_term_val {
    char *column;
    floe_ice_transform transform;
} ev_term_val;

static floe_status ev_resolve(const ev_parser *p, const floe_ice_schema *schema, int32_t start, int32_t end,
                              ev_term_val *out) {
    out->column = NULL;
    char *text = floe_strndup(p->text + start, (size_t)(end - start));
    if (!text) return oom();
    floe_ice_partition_spec *spec = NULL;
    floe_status st = floe_sql_parse_partitioning(text, schema, p->d->sql, p->location + start, &spec);
    floe_free(text);
    if (!st && spec->n_fields != 1)
        st = wrap_at(p->d, p->location + start,
                     floe_error(FLOE_ERR_SYNTAX, "expected one column or transform, found %d", (int)spec->n_fields));
    if (!st) {
        const char *nm = floe_ice_schema_field_name(schema, spec->fields[0].source_id);
        out->transform = spec->fields[0].transform;
        out->column = nm ? floe_strdup(nm) : NULL;
        if (!out->column) st = oom();
    }
    floe_ice_partition_spec_free(spec);
    return st;
}

/* A DROP/REPLACE target: a term, or a partition field's name. */
static floe_status ev_target(ev_parser *p, const floe_ice_schema *schema, floe_ice_spec_change *c, char **owned) {
    int32_t start = 0, end = 0;
    bool bare = false;
    int32_t at = p->cur.pos;
    FLOE_TRY(ev_term(p, &start, &end, &bare));
    c->kind = FLOE_ICE_SPEC_REMOVE_FIELD;
    if (bare) {
        ev_parser q = *p; /* re-read the single name */
        q.pos = at;
        ev_next(&q);
        char *name = NULL;
        FLOE_TRY(ev_name(&q, "a name", &name));
        if (!floe_ice_schema_find_by_name(schema, name, true)) {
            c->name = *owned = name;
            return NULL;
        }
        floe_free(name);
    }
    ev_term_val v;
    FLOE_TRY(ev_resolve(p, schema, start, end, &v));
    c->column = *owned = v.column;
    c->transform = v.transform;
    return NULL;
}

static floe_status ev_end(ev_parser *p) {
    char fb[64];
    if (p->cur.kind != EV_END)
        return ev_error(p, FLOE_ERR_SYNTAX, "unexpected %s at the end of ALTER TABLE", ev_found(p, fb, sizeof fb));
    return NULL;
}

/* ADD/DROP/REPLACE/RENAME PARTITION FIELD ... -> one spec update. */
static floe_status ev_spec_change(ev_parser *p, const floe_ice_table_metadata *md, floe_ice_table_metadata **out) {
    const floe_ice_schema *schema = floe_ice_tm_current_schema(md);
    if (!schema) return floe_error(FLOE_ERR_CORRUPT, "table metadata has no current schema");
    bool add = ev_is(p, "add"), drop = ev_is(p, "drop"), replace = ev_is(p, "replace");
    int32_t verb_at = p->location + p->cur.pos;
    ev_next(p);
    FLOE_TRY(ev_expect(p, "partition"));
    FLOE_TRY(ev_expect(p, "field"));
    floe_ice_spec_change c[2];
    memset(c, 0, sizeof c);
    char *owned[4] = {NULL, NULL, NULL, NULL};
    int32_t n = 0;
    floe_status st = NULL;
    if (drop || replace) {
        st = ev_target(p, schema, &c[n++], &owned[0]);
        if (!st && replace) st = ev_expect(p, "with");
    }
    if (!st && (add || replace)) {
        int32_t start = 0, end = 0;
        bool bare = false;
        ev_term_val v = {NULL, {0}};
        st = ev_term(p, &start, &end, &bare);
        if (!st) st = ev_resolve(p, schema, start, end, &v);
        owned[1] = v.column;
        c[n].kind = FLOE_ICE_SPEC_ADD_FIELD;
        c[n].column = v.column;
        c[n].transform = v.transform;
        if (!st && ev_is(p, "as")) {
            ev_next(p);
            st = ev_name(p, "a partition field name after AS", &owned[2]);
            c[n].name = owned[2];
        }
        n++;
    }
    if (!st && !add && !drop && !replace) { /* RENAME */
        c[n].kind = FLOE_ICE_SPEC_RENAME_FIELD;
        st = ev_name(p, "a partition field name", &owned[0]);
        if (!st) st = ev_expect(p, "to");
        if (!st) st = ev_name(p, "the new partition field name", &owned[1]);
        c[n].name = owned[0];
        c[n].new_name = owned[1];
        n++;
    }
    if (!st) st = ev_end(p);
    if (!st) st = wrap_at(p->d, verb_at, floe_ice_tm_update_spec(md, c, n, out));
    for (int i = 0; i < 4; i++) floe_free(owned[i]);
    return st;
}

/* term [ASC|DESC] [NULLS FIRST|LAST], ... into `order`. */
static floe_status ev_order_items(ev_parser *p, const floe_ice_schema *schema, floe_ice_sort_order *order) {
    for (;;) {
        int32_t start = 0, end = 0;
        bool bare = false;
        FLOE_TRY(ev_term(p, &start, &end, &bare));
        ev_term_val v;
        FLOE_TRY(ev_resolve(p, schema, start, end, &v));
        const floe_ice_field *f = floe_ice_schema_find_by_name(schema, v.column, true);
        floe_free(v.column);
        if (!f) return floe_error(FLOE_ERR_INTERNAL, "a resolved sort column vanished");
        floe_ice_sort_direction dir = FLOE_ICE_ASC;
        if (ev_is(p, "asc")) ev_next(p);
        else if (ev_is(p, "desc")) {
            dir = FLOE_ICE_DESC;
            ev_next(p);
        }
        /* Spark's defaults: ASC NULLS FIRST, DESC NULLS LAST. */
        floe_ice_null_order nulls = dir == FLOE_ICE_ASC ? FLOE_ICE_NULLS_FIRST : FLOE_ICE_NULLS_LAST;
        if (ev_is(p, "nulls")) {
            ev_next(p);
            char fb[64];
            if (ev_is(p, "first")) nulls = FLOE_ICE_NULLS_FIRST;
            else if (ev_is(p, "last")) nulls = FLOE_ICE_NULLS_LAST;
            else return ev_error(p, FLOE_ERR_SYNTAX, "expected FIRST or LAST after NULLS, found %s", ev_found(p, fb, sizeof fb));
            ev_next(p);
        }
        FLOE_TRY(floe_ice_sort_order_add(order, f->id, v.transform, dir, nulls));
        if (!ev_is_char(p, ',')) return NULL;
        ev_next(p);
    }
}

/* WRITE ... -> the default sort order and write.distribution-mode. */
static floe_status ev_write(ev_parser *p, const floe_ice_table_metadata *md, floe_ice_table_metadata **out) {
    const floe_ice_schema *schema = floe_ice_tm_current_schema(md);
    if (!schema) return floe_error(FLOE_ERR_CORRUPT, "table metadata has no current schema");
    int32_t at = p->location + p->cur.pos;
    ev_next(p); /* WRITE */
    const char *mode = NULL;
    bool ordering = false, distribution = false;
    floe_ice_sort_order *order = NULL;
    FLOE_TRY(floe_ice_sort_order_new(0, &order));
    floe_status st = NULL;
    while (!st && p->cur.kind != EV_END) {
        char fb[64];
        if (ev_is(p, "distributed") && !distribution) {
            ev_next(p);
            st = ev_expect(p, "by");
            if (!st) st = ev_expect(p, "partition");
            distribution = true;
            mode = "hash";
        } else if (ev_is(p, "unordered") && !ordering) {
            ev_next(p);
            ordering = true;
            if (!distribution) mode = "none";
        } else if ((ev_is(p, "locally") || ev_is(p, "ordered")) && !ordering) {
            bool locally = ev_is(p, "locally");
            if (locally) ev_next(p);
            st = ev_expect(p, "ordered");
            if (!st) st = ev_expect(p, "by");
            if (!st) st = ev_order_items(p, schema, order);
            ordering = true;
            if (!distribution && !locally) mode = "range";
        } else {
            st = ev_error(p, FLOE_ERR_SYNTAX,
                          "expected ORDERED BY, LOCALLY ORDERED BY, UNORDERED or DISTRIBUTED BY PARTITION, found %s",
                          ev_found(p, fb, sizeof fb));
        }
    }
    floe_ice_table_metadata *ordered = NULL;
    if (!st) st = wrap_at(p->d, at, floe_ice_tm_set_sort_order(md, order, &ordered));
    floe_ice_sort_order_free(order);
    if (!st && mode) {
        const char *kv[2] = {"write.distribution-mode", mode};
        st = floe_ice_tm_set_properties(ordered, kv, 1, out);
        floe_ice_table_metadata_free(ordered);
        return st;
    }
    if (st) {
        floe_ice_table_metadata_free(ordered);
        return st;
    }
    *out = ordered;
    return NULL;
}

static floe_status alter_evolution(const ddl *d, const json_t *arg, const floe_ice_table_metadata *md,
                                   floe_ice_table_metadata **out) {
    (void)arg;
    *out = NULL;
    const floe_sql_clause *c = floe_sql_stmt_clause(d->stmt, FLOE_SQL_TABLE_EVOLUTION, -1);
    if (!c) return floe_error(FLOE_ERR_INTERNAL, "ALTER TABLE: the partition/order clause is missing");
    ev_parser p = {d, c->text, c->location, 0, {EV_END, 0, 0}};
    ev_next(&p);
    if (ev_is(&p, "write")) return ev_write(&p, md, out);
    return ev_spec_change(&p, md, out);
}

static floe_status exec_alter_table(const ddl *d, const json_t *body) {
    const char *objtype = floe_pg_get_str(body, "objtype");
    if (objtype && strcmp(objtype, "OBJECT_TABLE") != 0)
        return err_at(d, d->stmt->location, FLOE_ERR_UNSUPPORTED, "ALTER of %s is not supported", objtype);
    qname q;
    FLOE_TRY(rangevar_qname(d, floe_pg_get(body, "relation"), &q));
    if (floe_sql_stmt_clause(d->stmt, FLOE_SQL_REF_DDL, -1)) {
        FLOE_TRY(floe_sql_exec_ref_ddl(d->s, d->stmt, q.ns, q.name, floe_pg_get_bool(body, "missing_ok"), q.location));
        return end_tag(d, "ALTER TABLE");
    }
    if (floe_sql_stmt_clause(d->stmt, FLOE_SQL_TABLE_EVOLUTION, -1))
        return alter_table(d, &q, floe_pg_get_bool(body, "missing_ok"), alter_evolution, NULL);
    return alter_table(d, &q, floe_pg_get_bool(body, "missing_ok"), alter_cmds, body);
}

static floe_status rename_table(const ddl *d, const qname *q, bool if_exists, const char *new_ns, const char *new_name) {
    FLOE_TRY(check_name(d, "schema", new_ns, q->location));
    FLOE_TRY(check_name(d, "table", new_name, q->location));
    if (strchr(new_name, '$'))
        return err_at(d, q->location, FLOE_ERR_INVALID_ARGUMENT, "table name '%s' may not contain '$'", new_name);
    bool exists = false;
    FLOE_TRY(floe_catalog_table_exists(d->s->catalog, q->ns, q->name, &exists));
    if (!exists && if_exists) return end_tag(d, "ALTER TABLE");
    if (!exists) {
        floe_ice_table *t = NULL; /* the catalog's message, with its suggestion */
        FLOE_TRY(load(d, q, &t));
        floe_ice_table_free(t);
    }
    if (strcmp(new_ns, q->ns) != 0) FLOE_TRY(need_namespace(d, new_ns, q->location));
    FLOE_TRY(wrap_at(d, q->location, floe_catalog_rename_table(d->s->catalog, q->ns, q->name, new_ns, new_name)));
    return end_tag(d, "ALTER TABLE");
}

static floe_status exec_rename(const ddl *d, const json_t *body) {
    const char *type = floe_pg_get_str(body, "renameType");
    bool if_exists = floe_pg_get_bool(body, "missing_ok");
    if (type && strcmp(type, "OBJECT_TABLE") == 0) {
        qname q;
        FLOE_TRY(rangevar_qname(d, floe_pg_get(body, "relation"), &q));
        return rename_table(d, &q, if_exists, q.ns, floe_pg_get_str(body, "newname"));
    }
    const char *rel_type = floe_pg_get_str(body, "relationType");
    if (type && strcmp(type, "OBJECT_COLUMN") == 0 && rel_type && strcmp(rel_type, "OBJECT_VIEW") == 0)
        return err_at(d, d->stmt->location, FLOE_ERR_UNSUPPORTED,
                      "ALTER VIEW ... RENAME COLUMN is not supported (CREATE OR REPLACE VIEW v (names) AS ...)");
    if (type && strcmp(type, "OBJECT_COLUMN") == 0) {
        qname q;
        FLOE_TRY(rangevar_qname(d, floe_pg_get(body, "relation"), &q));
        return alter_table(d, &q, if_exists, alter_rename_column, body);
    }
    return err_at(d, d->stmt->location, FLOE_ERR_UNSUPPORTED, "renaming %s is not supported",
                  type ? type + (strncmp(type, "OBJECT_", 7) == 0 ? 7 : 0) : "this object");
}

/* ALTER TABLE t SET SCHEMA db2 */
static floe_status exec_set_schema(const ddl *d, const json_t *body) {
    const char *type = floe_pg_get_str(body, "objectType");
    if (!type || strcmp(type, "OBJECT_TABLE") != 0)
        return err_at(d, d->stmt->location, FLOE_ERR_UNSUPPORTED, "SET SCHEMA is supported for tables only");
    qname q;
    FLOE_TRY(rangevar_qname(d, floe_pg_get(body, "relation"), &q));
    return rename_table(d, &q, floe_pg_get_bool(body, "missing_ok"), floe_pg_get_str(body, "newschema"), q.name);
}

/* ------------------------------------------------------ CREATE TABLE AS */

floe_status floe_sql_create_table_for(floe_session *s, const floe_sql_stmt *stmt, const json_t *into,
                                      const floe_schema *columns, bool if_not_exists, char **ns, char **name,
                                      bool *created) {
    *ns = *name = NULL;
    *created = false;
    ddl dd = {s, stmt, s->script ? s->script->sql : NULL, NULL};
    const ddl *d = &dd;
    const json_t *rv = floe_pg_get(into, "rel");
    qname q;
    FLOE_TRY(rangevar_qname(d, rv, &q));
    const char *persistence = floe_pg_get_str(rv, "relpersistence");
    if (persistence && strcmp(persistence, "p") != 0)
        return err_at(d, q.location, FLOE_ERR_UNSUPPORTED, "TEMPORARY and UNLOGGED tables are not supported");
    if (strchr(q.name, '$'))
        return err_at(d, q.location, FLOE_ERR_INVALID_ARGUMENT, "table name '%s' may not contain '$' (it names metadata "
                      "tables)", q.name);
    bool exists = false;
    FLOE_TRY(floe_catalog_table_exists(s->catalog, q.ns, q.name, &exists));
    if (exists && if_not_exists) return NULL;
    if (exists) return err_at(d, q.location, FLOE_ERR_ALREADY_EXISTS, "table %s.%s already exists", q.ns, q.name);
    FLOE_TRY(need_namespace(d, q.ns, q.location));
    floe_ice_table_metadata *md = NULL;
    FLOE_TRY(create_table_md(d, into, &q, columns, &md));
    floe_ice_table *t = NULL;
    floe_status st = floe_catalog_create_table(s->catalog, q.ns, q.name, md, &t);
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);
    FLOE_TRY(wrap_at(d, q.location, st));
    *ns = floe_strdup(q.ns);
    *name = floe_strdup(q.name);
    *created = true;
    if (!*ns || !*name) return oom();
    return NULL;
}

/* ---------------------------------------------------------------- entry */

floe_status floe_sql_exec_utility(floe_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink,
                                  bool *handled) {
    *handled = false;
    if (!s || !stmt || !stmt->kind) return NULL;
    ddl d = {s, stmt, s->script ? s->script->sql : NULL, sink};
    const char *kind = stmt->kind;
    const json_t *body = floe_pg_node_body(stmt->node);
    if (stmt->describe) {
        *handled = true;
        return exec_describe(&d, body);
    }
    if (strcmp(kind, "VariableShowStmt") == 0) {
        const char *what = floe_pg_get_str(body, "name");
        if (what && strcmp(what, "views") == 0) {
            *handled = true;
            return floe_sql_show_views(s, stmt, sink);
        }
        return exec_show(&d, body, handled);
    }
    *handled = true;
    if (strcmp(kind, "ViewStmt") == 0) return floe_sql_create_view(s, stmt, body, sink);
    if (strcmp(kind, "DropStmt") == 0 && floe_pg_get_str(body, "removeType") &&
        strcmp(floe_pg_get_str(body, "removeType"), "OBJECT_VIEW") == 0)
        return floe_sql_drop_view(s, stmt, body, sink);
    if (strcmp(kind, "AlterTableStmt") == 0 && floe_sql_stmt_clause(stmt, FLOE_SQL_VIEW_AS, -1))
        return floe_sql_alter_view_as(s, stmt, body, sink);
    if ((strcmp(kind, "RenameStmt") == 0 || strcmp(kind, "AlterObjectSchemaStmt") == 0) &&
        ((floe_pg_get_str(body, "renameType") && strcmp(floe_pg_get_str(body, "renameType"), "OBJECT_VIEW") == 0) ||
         (floe_pg_get_str(body, "objectType") && strcmp(floe_pg_get_str(body, "objectType"), "OBJECT_VIEW") == 0)))
        return floe_sql_rename_view(s, stmt, body, sink);
    if (strcmp(kind, "CreateSchemaStmt") == 0) return exec_create_schema(&d, body);
    if (strcmp(kind, "CreateStmt") == 0) return exec_create_table(&d, body);
    if (strcmp(kind, "DropStmt") == 0) return exec_drop(&d, body);
    if (strcmp(kind, "AlterTableStmt") == 0) return exec_alter_table(&d, body);
    if (strcmp(kind, "RenameStmt") == 0) return exec_rename(&d, body);
    if (strcmp(kind, "AlterObjectSchemaStmt") == 0) return exec_set_schema(&d, body);
    *handled = false;
    return NULL;
}
