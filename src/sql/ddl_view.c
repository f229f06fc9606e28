/*
 * ddl_view.c — CREATE [OR REPLACE] VIEW, DROP VIEW, SHOW VIEWS on the
 * catalog's Iceberg views (include/floe/iceberg_view.h).
 *
 * A view stores the text of its query as written (not a rewritten form),
 * so floe and other readers see the user's SQL; unqualified names in it
 * resolve in the view's default-namespace, "default" here (floe's only
 * search path).  CREATE VIEW binds the query exactly as a later reference
 * to the view will (bind_view.c), so a query that does not bind — or a
 * view that would read itself — is refused before anything is written,
 * and the bound columns become the view's schema (their names from the
 * optional column list).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "floe/catalog.h"
#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_view.h"
#include "sql/ddl.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

#define DEFAULT_NAMESPACE "default"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "DDL: out of memory"); }

static floe_status end_tag(const floe_result_sink *sink, const char *tag) {
    if (sink && sink->end) return sink->end(sink->arg, tag, 0);
    return NULL;
}

/* [catalog.][schema.]name of a view; the schema defaults to "default". */
static floe_status view_name(floe_session *s, const char *catalog, const char *ns, const char *name, int32_t loc,
                             const char **ns_out) {
    if (catalog && strcmp(catalog, "floe") != 0)
        return floe_session_error_at(s, loc, FLOE_ERR_NOT_FOUND, "unknown catalog '%s' (the only catalog is 'floe')",
                                     catalog);
    if (!name || !*name) return floe_session_error_at(s, loc, FLOE_ERR_SYNTAX, "view name missing");
    if (strchr(name, '$') || strchr(name, '/') || strchr(name, '\\') || strcmp(name, ".") == 0 ||
        strcmp(name, "..") == 0)
        return floe_session_error_at(s, loc, FLOE_ERR_INVALID_ARGUMENT,
                                     "view name '%s' may not contain '$', '/' or '\\' or be '.' or '..'", name);
    *ns_out = ns ? ns : DEFAULT_NAMESPACE;
    return NULL;
}

/* The query text of CREATE VIEW: what follows the first AS outside
 * parentheses and quotes after the view name (the parse tree keeps no
 * position for it).  `from` indexes `text`.  floe_malloc'd, trimmed. */
static floe_status query_text(const char *text, size_t from, char **out) {
    *out = NULL;
    size_t n = strlen(text), i = from;
    int depth = 0;
    while (i < n) {
        char c = text[i];
        if (c == '"' || c == '\'') {
            for (i++; i < n; i++)
                if (text[i] == c) {
                    if (i + 1 < n && text[i + 1] == c) i++;
                    else break;
                }
            i++;
            continue;
        }
        if (c == '-' && i + 1 < n && text[i + 1] == '-') {
            while (i < n && text[i] != '\n') i++;
            continue;
        }
        if (c == '(') depth++;
        else if (c == ')') depth--;
        else if (depth == 0 && (c == 'a' || c == 'A') && i + 1 < n && (text[i + 1] == 's' || text[i + 1] == 'S') &&
                 (i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_')) &&
                 (i + 2 >= n || !(isalnum((unsigned char)text[i + 2]) || text[i + 2] == '_'))) {
            size_t b = i + 2, e = n;
            while (b < e && isspace((unsigned char)text[b])) b++;
            while (e > b && (isspace((unsigned char)text[e - 1]) || text[e - 1] == ';')) e--;
            *out = floe_strndup(text + b, e - b);
            return *out ? NULL : oom();
        }
        i++;
    }
    return floe_error(FLOE_ERR_SYNTAX, "CREATE VIEW: the query after AS was not found");
}

/* The Iceberg schema of the view's result: visible columns of `r`, named
 * by `aliases` (a list of String, may be empty) first. */
static floe_status result_schema(floe_session *s, const bind_result *r, const json_t *aliases, int32_t loc,
                                 floe_ice_schema **out) {
    *out = NULL;
    int32_t n_alias = floe_pg_list_len(aliases), visible = 0;
    for (int32_t i = 0; i < r->scope.n; i++) visible += !r->scope.cols[i].hidden;
    if (n_alias > visible)
        return floe_session_error_at(s, loc, FLOE_ERR_INVALID_ARGUMENT,
                                     "CREATE VIEW specifies more column names (%d) than columns (%d)", (int)n_alias,
                                     (int)visible);
    floe_ice_type *root = NULL;
    FLOE_TRY(floe_ice_type_struct(&root));
    floe_status st = NULL;
    const char **names = floe_calloc((size_t)visible + 1, sizeof *names);
    int32_t next_id = visible + 1;
    if (!names) st = oom();
    for (int32_t i = 0, k = 0; !st && i < r->scope.n; i++) {
        if (r->scope.cols[i].hidden) continue;
        const char *name = k < n_alias ? floe_pg_string(floe_pg_list_at(aliases, k)) : r->scope.cols[i].name;
        if (!name) name = "?column?";
        for (int32_t j = 0; j < k && !st; j++)
            if (strcmp(names[j], name) == 0)
                st = floe_session_error_at(s, loc, FLOE_ERR_ALREADY_EXISTS, "column \"%s\" specified more than once",
                                           name);
        names[k++] = name;
        floe_ice_type *t = NULL;
        /* nested columns: their fields numbered after the top level's */
        const floe_type *ct = floe_schema_field(r->plan->schema, i)->type;
        if (!st) st = floe_type_is_nested(ct) && ct->id != FLOE_TYPE_VARIANT ? floe_sql_ice_type_nested(ct, &next_id, &t)
                                                                              : floe_sql_ice_type_of(ct, &t);
        if (st && t == NULL && floe_status_code(st) != FLOE_ERR_ALREADY_EXISTS)
            st = floe_status_wrap(st, "CREATE VIEW: column '%s'", name);
        if (!st) st = floe_ice_struct_add_field(root, k, name, false, t, NULL);
    }
    floe_free(names);
    if (st) {
        floe_ice_type_free(root);
        return st;
    }
    return floe_ice_schema_new(0, root, NULL, 0, out);
}

static floe_status define_view(floe_session *s, const floe_sql_stmt *stmt, const json_t *rv, const json_t *aliases,
                               bool replace, const floe_result_sink *sink, const char *tag);

floe_status floe_sql_create_view(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                                 const floe_result_sink *sink) {
    const json_t *rv = floe_pg_get(body, "view");
    int32_t loc = (int32_t)floe_pg_get_int(rv, "location", -1);
    const char *name = floe_pg_get_str(rv, "relname"), *ns = NULL;
    FLOE_TRY(view_name(s, floe_pg_get_str(rv, "catalogname"), floe_pg_get_str(rv, "schemaname"), name, loc, &ns));
    const char *persistence = floe_pg_get_str(rv, "relpersistence");
    if (persistence && strcmp(persistence, "p") != 0)
        return floe_session_error_at(s, loc, FLOE_ERR_UNSUPPORTED, "TEMPORARY views are not supported");
    const char *check = floe_pg_get_str(body, "withCheckOption");
    if ((check && strcmp(check, "NO_CHECK_OPTION") != 0) || floe_pg_list_len(floe_pg_get(body, "options")) > 0)
        return floe_session_error_at(s, loc, FLOE_ERR_UNSUPPORTED,
                                     "CREATE VIEW: WITH options and CHECK OPTION are not supported");
    return define_view(s, stmt, rv, floe_pg_get(body, "aliases"), floe_pg_get_bool(body, "replace"), sink,
                       "CREATE VIEW");
}

/* ALTER VIEW [IF EXISTS] v AS q (parse.c's FLOE_SQL_VIEW_AS): the view's
 * next version, as CREATE OR REPLACE VIEW, of a view that must exist. */
floe_status floe_sql_alter_view_as(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                                   const floe_result_sink *sink) {
    const json_t *rv = floe_pg_get(body, "relation");
    int32_t loc = (int32_t)floe_pg_get_int(rv, "location", -1);
    const char *name = floe_pg_get_str(rv, "relname"), *ns = NULL;
    FLOE_TRY(view_name(s, floe_pg_get_str(rv, "catalogname"), floe_pg_get_str(rv, "schemaname"), name, loc, &ns));
    bool is_table = false;
    FLOE_TRY(floe_catalog_table_exists(s->catalog, ns, name, &is_table));
    if (is_table) return floe_session_error_at(s, loc, FLOE_ERR_INVALID_ARGUMENT, "\"%s.%s\" is not a view", ns, name);
    floe_ice_view *v = NULL;
    floe_status st = floe_catalog_load_view(s->catalog, ns, name, &v);
    floe_ice_view_free(v);
    if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND && floe_pg_get_bool(body, "missing_ok")) {
        floe_status_free(st);
        return end_tag(sink, "ALTER VIEW");
    }
    if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        floe_status_free(st);
        return floe_session_error_at(s, loc, FLOE_ERR_NOT_FOUND, "view \"%s.%s\" does not exist", ns, name);
    }
    FLOE_TRY(st);
    return define_view(s, stmt, rv, NULL, true, sink, "ALTER VIEW");
}

/* CREATE [OR REPLACE] VIEW and ALTER VIEW ... AS: the query after the view
 * name's AS in the statement's text, bound, its schema, the catalog's next
 * version (replace) or first. */
static floe_status define_view(floe_session *s, const floe_sql_stmt *stmt, const json_t *rv, const json_t *aliases,
                               bool replace, const floe_result_sink *sink, const char *tag) {
    int32_t loc = (int32_t)floe_pg_get_int(rv, "location", -1);
    const char *name = floe_pg_get_str(rv, "relname"), *ns = NULL;
    FLOE_TRY(view_name(s, floe_pg_get_str(rv, "catalogname"), floe_pg_get_str(rv, "schemaname"), name, loc, &ns));
    bool ns_ok = false;
    FLOE_TRY(floe_catalog_namespace_exists(s->catalog, ns, &ns_ok));
    if (!ns_ok) return floe_session_error_at(s, loc, FLOE_ERR_NOT_FOUND, "schema '%s' does not exist", ns);
    bool is_table = false;
    FLOE_TRY(floe_catalog_table_exists(s->catalog, ns, name, &is_table));
    if (is_table && replace)
        return floe_session_error_at(s, loc, FLOE_ERR_INVALID_ARGUMENT, "\"%s.%s\" is not a view", ns, name);
    if (is_table)
        return floe_session_error_at(s, loc, FLOE_ERR_ALREADY_EXISTS, "relation \"%s.%s\" already exists", ns, name);

    int32_t from = loc >= 0 && loc >= stmt->location ? loc - stmt->location : 0;
    char *sql = NULL;
    FLOE_TRY(query_text(stmt->text, (size_t)from, &sql));
    /* Bind it as a reference to the view will be bound (and with the view
     * itself on the expansion stack: it may not read itself). */
    bind_result r;
    floe_status st = bind_view_body(s, ns, name, sql, DEFAULT_NAMESPACE, loc, &r);
    floe_ice_schema *schema = NULL;
    if (!st) {
        st = result_schema(s, &r, aliases, loc, &schema);
        floe_lplan_free(r.plan);
        bind_scope_free(&r.scope);
    }
    if (!st) {
        st = floe_catalog_create_view(s->catalog, ns, name, sql, DEFAULT_NAMESPACE, schema, replace);
        if (st && floe_status_code(st) == FLOE_ERR_ALREADY_EXISTS && !replace)
            st = floe_status_wrap(st, "CREATE VIEW");
    }
    floe_ice_schema_free(schema);
    floe_free(sql);
    FLOE_TRY(st);
    return end_tag(sink, tag);
}

floe_status floe_sql_drop_view(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                               const floe_result_sink *sink) {
    json_t *objs = floe_pg_get(body, "objects");
    bool if_exists = floe_pg_get_bool(body, "missing_ok");
    int32_t loc = stmt->location;
    for (int32_t i = 0; i < floe_pg_list_len(objs); i++) {
        json_t *items = floe_pg_get(floe_pg_as(floe_pg_list_at(objs, i), "List"), "items");
        int32_t n = floe_pg_list_len(items);
        const char *parts[3] = {NULL, NULL, NULL};
        if (n < 1 || n > 3)
            return floe_session_error_at(s, loc, FLOE_ERR_SYNTAX, "a view name has 1 to 3 parts, not %d", (int)n);
        for (int32_t k = 0; k < n; k++) parts[3 - n + k] = floe_pg_string(floe_pg_list_at(items, k));
        const char *ns = NULL;
        FLOE_TRY(view_name(s, parts[0], parts[1], parts[2], loc, &ns));
        bool is_table = false;
        FLOE_TRY(floe_catalog_table_exists(s->catalog, ns, parts[2], &is_table));
        if (is_table)
            return floe_session_error_at(s, loc, FLOE_ERR_INVALID_ARGUMENT,
                                         "\"%s.%s\" is not a view (use DROP TABLE to remove a table)", ns, parts[2]);
        floe_status st = floe_catalog_drop_view(s->catalog, ns, parts[2]);
        if (st && if_exists && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
            floe_status_free(st);
            st = NULL;
        }
        if (st) return floe_status_wrap(st, "DROP VIEW");
    }
    return end_tag(sink, "DROP VIEW");
}

floe_status floe_sql_rename_view(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                                 const floe_result_sink *sink) {
    const json_t *rv = floe_pg_get(body, "relation");
    int32_t loc = (int32_t)floe_pg_get_int(rv, "location", stmt->location);
    const char *name = floe_pg_get_str(rv, "relname"), *ns = NULL;
    FLOE_TRY(view_name(s, floe_pg_get_str(rv, "catalogname"), floe_pg_get_str(rv, "schemaname"), name, loc, &ns));
    /* RENAME TO keeps the schema (PostgreSQL: the new name is unqualified);
     * SET SCHEMA keeps the name. */
    const char *new_name = floe_pg_get_str(body, "newname"), *new_ns = floe_pg_get_str(body, "newschema");
    if (!new_name) new_name = name;
    if (!new_ns) new_ns = ns;
    bool is_table = false;
    FLOE_TRY(floe_catalog_table_exists(s->catalog, ns, name, &is_table));
    if (is_table) return floe_session_error_at(s, loc, FLOE_ERR_INVALID_ARGUMENT, "\"%s.%s\" is not a view", ns, name);
    floe_status st = floe_catalog_rename_view(s->catalog, ns, name, new_ns, new_name);
    if (st && floe_pg_get_bool(body, "missing_ok") && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        floe_status_free(st);
        st = NULL;
    }
    if (st) return floe_status_wrap(st, "ALTER VIEW");
    return end_tag(sink, "ALTER VIEW");
}

floe_status floe_sql_show_views(floe_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink) {
    const floe_sql_clause *from = floe_sql_stmt_clause(stmt, FLOE_SQL_SHOW_FROM, -1);
    const char *ns = from ? from->text : DEFAULT_NAMESPACE;
    bool ns_ok = false;
    FLOE_TRY(floe_catalog_namespace_exists(s->catalog, ns, &ns_ok));
    if (!ns_ok)
        return floe_session_error_at(s, from ? from->location : stmt->location, FLOE_ERR_NOT_FOUND,
                                     "schema '%s' does not exist", ns);
    char **names = NULL;
    int32_t n = 0;
    FLOE_TRY(floe_catalog_list_views(s->catalog, ns, &names, &n));
    const char *col[] = {"view_name"};
    floe_status st = floe_session_emit_strings(sink, col, 1, (const char *const *)names, n, "SHOW");
    floe_catalog_names_free(names, n);
    return st;
}
