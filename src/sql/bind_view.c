/*
 * bind_view.c — expanding a view where a table name stands: the view's
 * current SQL is parsed and bound afresh, so the tables it reads are
 * resolved now (their current snapshots and schemas), as PostgreSQL
 * rewrites a view reference into its query.
 *
 * While the body is bound the session sees only the view: its script (so
 * positions in errors and AS OF clauses refer to the view's text), no WITH
 * names of the referencing query, and the view's default-namespace for
 * unqualified table names.  The views being expanded form a stack on the
 * session; meeting one again is a cycle (a view over itself, directly or
 * through others), reported with the chain, instead of recursing forever.
 * The result columns take the names the view stored in its schema (its
 * column list), and the view's name as their relation name.
 */
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_view.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

#define MAX_VIEW_DEPTH 32

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory"); }

/* "a.v -> a.w -> a.v" for the cycle error. */
static floe_status cycle_error(floe_session *s, const char *ns, const char *name, int32_t loc) {
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = NULL;
    /* The stack is innermost first; print it outermost first. */
    int32_t n = 0;
    for (bind_view_frame *f = s->views; f; f = f->prev) n++;
    for (int32_t i = n - 1; i >= 0 && !st; i--) {
        bind_view_frame *f = s->views;
        for (int32_t k = 0; k < i; k++) f = f->prev;
        st = floe_buf_printf(&b, "%s.%s -> ", f->ns, f->name);
    }
    if (!st) st = floe_buf_printf(&b, "%s.%s", ns, name);
    if (!st) st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "infinite recursion detected in view %s.%s (%s)", ns,
                             name, floe_buf_cstr(&b));
    floe_buf_free(&b);
    return st;
}

floe_status bind_view_body(floe_session *s, const char *ns, const char *name, const char *sql,
                           const char *default_ns, int32_t loc, bind_result *out) {
    memset(out, 0, sizeof *out);
    int32_t depth = 0;
    for (bind_view_frame *f = s->views; f; f = f->prev, depth++)
        if (strcmp(f->ns, ns) == 0 && strcmp(f->name, name) == 0) return cycle_error(s, ns, name, loc);
    if (depth >= MAX_VIEW_DEPTH)
        return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "views nest deeper than %d levels at view %s.%s",
                          MAX_VIEW_DEPTH, ns, name);
    floe_sql_script *script = NULL;
    floe_status st = floe_sql_parse(sql, &script);
    if (!st && (script->n_stmts != 1 || !script->stmts[0].kind || strcmp(script->stmts[0].kind, "SelectStmt") != 0))
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "the SQL of a view must be one query");
    if (st) {
        floe_sql_script_free(script);
        return bind_at(s, loc, floe_status_wrap(st, "view %s.%s", ns, name));
    }
    bind_view_frame frame = {ns, name, s->views};
    const floe_sql_script *saved_script = s->script;
    const floe_sql_stmt *saved_stmt = s->stmt;
    struct bind_cte *saved_ctes = s->ctes;
    const char *saved_ns = s->default_ns;
    s->views = &frame;
    s->script = script;
    s->stmt = &script->stmts[0];
    s->ctes = NULL;
    s->default_ns = default_ns;
    st = bind_select(s, script->stmts[0].node, out);
    s->views = frame.prev;
    s->script = saved_script;
    s->stmt = saved_stmt;
    s->ctes = saved_ctes;
    s->default_ns = saved_ns;
    floe_sql_script_free(script);
    /* An inner view's error already names it; name each view once. */
    if (st && !strstr(floe_status_message(st), "infinite recursion"))
        st = floe_status_wrap(st, "view %s.%s", ns, name);
    return bind_at(s, loc, st);
}

floe_status bind_view_ref(floe_session *s, const char *ns, const char *name, int32_t loc, bool *is_view,
                          bind_result *out) {
    *is_view = false;
    floe_ice_view *v = NULL;
    floe_status st = floe_catalog_load_view(s->catalog, ns, name, &v);
    if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND && !strstr(floe_status_message(st), "loading view")) {
        floe_status_free(st);
        return NULL;
    }
    if (st) return bind_at(s, loc, st);
    *is_view = true;
    st = bind_view_body(s, ns, name, v->sql, v->default_namespace, loc, out);
    /* The stored column names (CREATE VIEW v (a, b) ...) name the result. */
    int32_t visible = 0;
    for (int32_t i = 0; !st && i < out->scope.n; i++) visible += !out->scope.cols[i].hidden;
    if (!st && visible != v->n_columns)
        st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT,
                        "view %s.%s is stale: its query now returns %d columns, but the view has %d (replace it with "
                        "CREATE OR REPLACE VIEW)", ns, name, (int)visible, (int)v->n_columns);
    for (int32_t i = 0, k = 0; !st && i < out->scope.n; i++) {
        if (out->scope.cols[i].hidden) continue;
        floe_free(out->scope.cols[i].name);
        out->scope.cols[i].name = floe_strdup(v->column_names[k++]);
        if (!out->scope.cols[i].name) st = oom();
    }
    floe_ice_view_free(v);
    if (st) {
        floe_lplan_free(out->plan);
        bind_scope_free(&out->scope);
        memset(out, 0, sizeof *out);
    }
    return st;
}

floe_status bind_view_qualify(bind_result *r, const char *qual) {
    for (int32_t i = 0; i < r->scope.n; i++) {
        floe_free(r->scope.cols[i].qual);
        r->scope.cols[i].qual = r->scope.cols[i].hidden ? NULL : floe_strdup(qual);
        if (!r->scope.cols[i].hidden && !r->scope.cols[i].qual) return oom();
    }
    return NULL;
}
