/*
 * bind_view.h — views in FROM (bind_view.c): a view name expands into its
 * query, bound afresh.  Used by bind_from.c and CREATE VIEW (ddl_view.c),
 * which binds the new view's query the same way to check it.
 */
#ifndef FLOE_SQL_BIND_VIEW_H
#define FLOE_SQL_BIND_VIEW_H

#include <stdbool.h>

#include "sql/bind.h"

/* One view being expanded (a stack on the session, innermost first). */
typedef struct bind_view_frame {
    const char *ns, *name;
    struct bind_view_frame *prev;
} bind_view_frame;

/* Bind the SQL of view ns.name (one query) with its default namespace
 * (NULL: "default"); a view already being expanded is a cycle error.
 * `loc`: where the reference stands in the current statement. */
floe_status bind_view_body(floe_session *s, const char *ns, const char *name, const char *sql,
                           const char *default_ns, int32_t loc, bind_result *out) FLOE_WARN_UNUSED;

/* When ns.name is a view of the catalog: *is_view set and *out its bound
 * query with the view's column names.  No such view: *is_view false, no
 * error. */
floe_status bind_view_ref(floe_session *s, const char *ns, const char *name, int32_t loc, bool *is_view,
                          bind_result *out) FLOE_WARN_UNUSED;

/* Set the relation name of the visible columns to `qual`. */
floe_status bind_view_qualify(bind_result *r, const char *qual) FLOE_WARN_UNUSED;

#endif
