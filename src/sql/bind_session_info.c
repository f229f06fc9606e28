/*
 * bind_session_info.c — the session-information functions as values of
 * the statement, so they work inside any expression (upper(current_user),
 * version() LIKE 'PostgreSQL%'): current_user / session_user / user /
 * current_role, current_catalog and current_database(), current_schema
 * and current_schema(), version(), current_setting('name'[, missing_ok]).
 *
 * The user and database are the client's (floe_session_set_client; "floe"
 * without one), the schema is the namespace unqualified names resolve in,
 * a setting is floe's SET / SHOW value.  `floe serve` still answers a
 * SELECT made only of them itself (src/server/pg_functions.c), as it also
 * knows the protocol-level settings (server_version, DateStyle, ...).
 *
 * Also here, for the catalog queries clients send: pg_get_userbyid(oid)
 * (the client's user: floe has one role), pg_table_is_visible(oid)
 * (oid IN the relations of the current namespace) and ARRAY(SELECT x ...
 * ORDER BY k), bound as the scalar subquery (SELECT array_agg(x ORDER BY
 * k) ...), no rows giving an empty array as in PostgreSQL.
 */
#include <string.h>

#include "floe/memory.h"
#include "floe/version.h"
#include "sql/bind_expr_internal.h"
#include "sql/pg_catalog_tables.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

const char floe_pg_version_text[] = "PostgreSQL 15.0 (floe " FLOE_VERSION_STRING ") on x86_64-pc-linux-gnu, 64-bit";

static const char *user_of(const floe_session *s) { return s->user ? s->user : "floe"; }
static const char *database_of(const floe_session *s) { return s->database ? s->database : "floe"; }
static const char *schema_of(const floe_session *s) { return s->default_ns ? s->default_ns : "default"; }

floe_status bind_session_value(bind_ectx *c, const char *op, int32_t loc, floe_expr **out) {
    if (!strcmp(op, "SVFOP_CURRENT_USER") || !strcmp(op, "SVFOP_SESSION_USER") || !strcmp(op, "SVFOP_USER") ||
        !strcmp(op, "SVFOP_CURRENT_ROLE"))
        return floe_expr_lit_string(user_of(c->s), out);
    if (!strcmp(op, "SVFOP_CURRENT_CATALOG")) return floe_expr_lit_string(database_of(c->s), out);
    if (!strcmp(op, "SVFOP_CURRENT_SCHEMA")) return floe_expr_lit_string(schema_of(c->s), out);
    return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "%s is not supported", op + 6);
}

floe_status bind_session_func(bind_ectx *c, const char *name, const json_t *args, int32_t loc, bool *done,
                              floe_expr **out) {
    int32_t n = floe_pg_list_len(args);
    *done = true;
    if (!strcmp(name, "version") && n == 0) return floe_expr_lit_string(floe_pg_version_text, out);
    if (!strcmp(name, "current_database") && n == 0) return floe_expr_lit_string(database_of(c->s), out);
    if (!strcmp(name, "current_schema") && n == 0) return floe_expr_lit_string(schema_of(c->s), out);
    if ((!strcmp(name, "current_user") || !strcmp(name, "session_user")) && n == 0)
        return floe_expr_lit_string(user_of(c->s), out);
    if (!strcmp(name, "pg_get_userbyid") && n == 1) /* one role: the client's */
        return floe_expr_lit_string(user_of(c->s), out);
    if (!strcmp(name, "current_setting") && (n == 1 || n == 2)) {
        floe_pg_const k = floe_pg_const_of(floe_pg_list_at(args, 0));
        floe_pg_const ok = n == 2 ? floe_pg_const_of(floe_pg_list_at(args, 1)) : (floe_pg_const){0};
        if (k.kind != FLOE_PG_CONST_STRING)
            return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "current_setting: the name must be a string constant");
        char *v = NULL;
        floe_status st = floe_session_show(c->s, k.text, &v);
        if (st && ok.kind == FLOE_PG_CONST_BOOL && ok.ival) {
            floe_status_free(st);
            return floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_STRING), out);
        }
        if (st) {
            floe_status_free(st);
            return bind_error(c->s, loc, FLOE_ERR_NOT_FOUND, "unrecognized configuration parameter \"%s\"", k.text);
        }
        st = floe_expr_lit_string(v, out);
        floe_free(v);
        return st;
    }
    if (!strcmp(name, "pg_table_is_visible") && n == 1) {
        /* oid IN (the relations of the current namespace) */
        int64_t *oids = NULL;
        int32_t k = 0;
        FLOE_TRY(bind_at(c->s, loc, floe_sql_pg_visible_oids(c->s, &oids, &k)));
        floe_expr *v = NULL, **items = floe_calloc((size_t)k + 1, sizeof *items);
        floe_status st = items ? bind_expr(c, floe_pg_list_at(args, 0), &v)
                               : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; !st && i < k; i++) st = floe_expr_lit_int64(oids[i], &items[i]);
        if (!st && k == 0) st = floe_expr_lit_bool(false, out);
        else if (!st) st = floe_expr_in(v, items, k, out);
        for (int32_t i = 0; items && i < k; i++) floe_expr_release(items[i]);
        floe_free(items);
        floe_free(oids);
        floe_expr_release(v);
        return st;
    }
    *done = false;
    return NULL;
}

floe_status bind_array_sublink(bind_ectx *c, const json_t *sublink, floe_expr **out) {
    const json_t *body = floe_pg_node_body(sublink);
    int32_t loc = floe_pg_location(sublink);
    json_t *sub = json_deep_copy(floe_pg_get(body, "subselect"));
    json_t *sel = sub ? (json_t *)floe_pg_as(sub, "SelectStmt") : NULL;
    json_t *targets = sel ? floe_pg_get(sel, "targetList") : NULL;
    if (!sel || floe_pg_list_len(targets) != 1 || floe_pg_get(sel, "larg")) {
        json_decref(sub);
        return bind_error(c->s, loc, FLOE_ERR_UNSUPPORTED, "ARRAY(subquery) needs a SELECT of one column");
    }
    json_t *rt = (json_t *)floe_pg_as(floe_pg_list_at(targets, 0), "ResTarget");
    json_t *val = rt ? floe_pg_get(rt, "val") : NULL;
    json_t *order = floe_pg_get(sel, "sortClause");
    json_t *call = val ? json_pack("{s:{s:[{s:{s:s}}],s:[O],s:s,s:i}}", "FuncCall", "funcname", "String", "sval",
                                   "array_agg", "args", val, "funcformat", "COERCE_EXPLICIT_CALL", "location", loc)
                       : NULL;
    if (call && order) json_object_set(json_object_get(call, "FuncCall"), "agg_order", order);
    json_t *link = call ? json_pack("{s:{s:s,s:O,s:i}}", "SubLink", "subLinkType", "EXPR_SUBLINK", "subselect", sub,
                                    "location", loc)
                        : NULL;
    floe_status st = link && !json_object_set_new(rt, "val", call) ? NULL
                                                                   : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    if (st && call) json_decref(call);
    if (!st) {
        json_object_del(sel, "sortClause");
        /* link holds its own reference of sub, now rewritten */
        st = bind_scalar_subquery(c, link, out);
    }
    /* no rows: an empty array, not NULL */
    floe_type *t = NULL;
    floe_builder *b = NULL;
    floe_array *empty = NULL;
    floe_expr *lit = NULL, *agg = *out;
    if (!st) st = bind_type_of(c, agg, &t);
    if (!st && t->id == FLOE_TYPE_LIST) {
        st = floe_builder_new(t, 1, &b);
        if (!st) st = floe_builder_append_list(b);
        if (!st) st = floe_builder_finish(b, &empty);
        if (!st) st = floe_expr_literal(empty, &lit);
        floe_expr *args[2] = {agg, lit};
        if (!st) st = floe_expr_coalesce(args, 2, out);
        if (!st) floe_expr_release(agg);
        else *out = agg;
    }
    floe_expr_release(lit);
    floe_array_release(empty);
    floe_builder_free(b);
    floe_type_release(t);
    json_decref(link);
    json_decref(sub);
    return st;
}
