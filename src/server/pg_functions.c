/*
 * pg_functions.c — the session-information functions drivers and tools
 * call on connect (SQLAlchemy, DBeaver, Metabase, JDBC):
 *
 *   SELECT version(), current_setting('server_version_num'), current_schema(),
 *          current_database(), current_user, session_user, user
 *
 * They describe the connection, which floe's SQL layer does not know, so
 * the server answers a SELECT made only of them (no FROM, no WHERE; each
 * optionally qualified with pg_catalog and aliased) itself, as one row of
 * text values.  Anything else in the statement leaves it to floe.
 */
#include <string.h>
#include <strings.h>

#include "floe/memory.h"
#include "server/server_internal.h"
#include "sql/bind_expr_internal.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

#define MAX_TARGETS 16

/* The value of one target, or false when it is not one of ours.
 * *owned is set when the value was allocated. */
static floe_status value_of(pg_session *s, const json_t *val, const char **out, char **owned, const char **name,
                            bool *ours) {
    *ours = false;
    *owned = NULL;
    const char *kind = floe_pg_node_kind(val);
    const json_t *body = floe_pg_node_body(val);
    if (kind && !strcmp(kind, "SQLValueFunction")) {
        const char *op = floe_pg_get_str(body, "op");
        if (op && (!strcmp(op, "SVFOP_CURRENT_USER") || !strcmp(op, "SVFOP_SESSION_USER") ||
                   !strcmp(op, "SVFOP_USER") || !strcmp(op, "SVFOP_CURRENT_ROLE"))) {
            *ours = true;
            *out = s->user;
            *name = !strcmp(op, "SVFOP_SESSION_USER") ? "session_user"
                    : !strcmp(op, "SVFOP_CURRENT_ROLE") ? "current_role" : "current_user";
        } else if (op && !strcmp(op, "SVFOP_CURRENT_CATALOG")) {
            *ours = true;
            *out = s->database;
            *name = "current_catalog";
        } else if (op && !strcmp(op, "SVFOP_CURRENT_SCHEMA")) {
            *ours = true;
            *out = "default";
            *name = "current_schema";
        }
        return NULL;
    }
    if (!kind || strcmp(kind, "FuncCall") != 0 || floe_pg_get(body, "over") || floe_pg_get(body, "agg_star"))
        return NULL;
    floe_buf fname = FLOE_BUF_INIT;
    FLOE_TRY(floe_pg_name_list(floe_pg_get(body, "funcname"), &fname));
    const char *f = floe_buf_cstr(&fname);
    if (!strncmp(f, "pg_catalog.", 11)) f += 11;
    const json_t *args = floe_pg_get(body, "args");
    int32_t n = floe_pg_list_len(args);
    floe_status st = NULL;
    if (!strcmp(f, "version") && n == 0) {
        *ours = true;
        *out = floe_pg_version_text;
        *name = "version";
    } else if (!strcmp(f, "current_database") && n == 0) {
        *ours = true;
        *out = s->database;
        *name = "current_database";
    } else if (!strcmp(f, "current_schema") && n == 0) {
        *ours = true;
        *out = "default";
        *name = "current_schema";
    } else if (!strcmp(f, "current_setting") && (n == 1 || n == 2)) {
        floe_pg_const c = floe_pg_const_of(floe_pg_list_at(args, 0));
        floe_pg_const missing_ok = n == 2 ? floe_pg_const_of(floe_pg_list_at(args, 1)) : (floe_pg_const){0};
        if (c.kind == FLOE_PG_CONST_STRING) {
            *ours = true;
            *name = "current_setting";
            char *v = NULL;
            floe_status fst = floe_session_show(s->floe, c.text, &v);
            if (!fst) {
                *owned = v;
                *out = v;
            } else {
                floe_status_free(fst);
                *out = pg_setting_get(s, c.text);
                if (!*out && !(missing_ok.kind == FLOE_PG_CONST_BOOL && missing_ok.ival))
                    st = floe_error(FLOE_ERR_NOT_FOUND, "unrecognized configuration parameter \"%s\"", c.text);
            }
        }
    }
    floe_buf_free(&fname);
    return st;
}

floe_status pg_session_functions(pg_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink,
                                 bool *handled) {
    *handled = false;
    const json_t *body = floe_pg_node_body(stmt->node);
    static const char *const other[] = {"fromClause", "whereClause", "groupClause", "havingClause", "sortClause",
                                        "limitCount", "limitOffset", "withClause", "valuesLists", "distinctClause",
                                        "larg", "windowClause", "lockingClause", "intoClause"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (floe_pg_get(body, other[i])) return NULL;
    const json_t *targets = floe_pg_get(body, "targetList");
    int32_t n = floe_pg_list_len(targets);
    if (n < 1 || n > MAX_TARGETS) return NULL;
    const char *names[MAX_TARGETS], *cells[MAX_TARGETS];
    char *owned[MAX_TARGETS] = {0};
    floe_status st = NULL;
    bool all = true;
    for (int32_t i = 0; i < n && !st && all; i++) {
        const json_t *rt = floe_pg_as(floe_pg_list_at(targets, i), "ResTarget");
        bool ours = false;
        const char *fname = NULL;
        st = value_of(s, floe_pg_get(rt, "val"), &cells[i], &owned[i], &fname, &ours);
        all = ours;
        const char *alias = floe_pg_get_str(rt, "name");
        names[i] = alias ? alias : fname;
    }
    if (!st && all) {
        *handled = true;
        st = floe_session_emit_strings(sink, names, n, cells, 1, "SELECT");
    } else if (st && !all) {
        floe_status_free(st);
        st = NULL;
    }
    if (st) *handled = true;
    for (int32_t i = 0; i < n; i++) floe_free(owned[i]);
    return st;
}
