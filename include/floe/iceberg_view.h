/*
 * iceberg_view.h — Iceberg views (format/view-spec.md, format-version 1):
 * the view metadata file and what the SQL layer needs of it.
 *
 * A view's metadata file (<location>/metadata/NNNNN-<uuid>.metadata.json)
 * holds every version of the view: each version has the SQL text as a
 * representation {type "sql", sql, dialect}, the namespace unqualified
 * names resolve in (default-namespace) and the id of the schema of its
 * result (schemas).  CREATE OR REPLACE adds a version, becomes the
 * current-version-id and appends to version-log; older versions stay.
 * floe writes the dialect "floe" (its PostgreSQL-flavoured SQL) and reads
 * that representation, or the only SQL one when there is no "floe" one.
 */
#ifndef FLOE_ICEBERG_VIEW_H
#define FLOE_ICEBERG_VIEW_H

#include <stdint.h>

#include "floe/iceberg_schema.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The current version of a view, as read from its metadata. */
typedef struct floe_ice_view {
    char *metadata_location;   /* the file read */
    char *json;                /* its whole text (a replace builds on it) */
    char *view_uuid;
    int32_t current_version_id;
    char *sql;                 /* the current version's SQL */
    char *dialect;
    char *default_namespace;   /* its single level, or NULL when empty */
    char **column_names;       /* top-level fields of its schema */
    int32_t n_columns;
    floe_ice_schema *schema;   /* the current version's schema */
} floe_ice_view;

void floe_ice_view_free(floe_ice_view *v); /* NULL-safe */

/* Parse view metadata text; errors name `location` and the bad field. */
floe_status floe_ice_view_parse(const char *text, const char *location, floe_ice_view **out) FLOE_WARN_UNUSED;

/* The metadata text of a new view (base_json NULL: version 1, a fresh
 * view-uuid, location `location`) or of `base_json` with one more
 * version (operation "replace") made current.  `schema` is the query's
 * result; `default_ns` may be NULL. */
floe_status floe_ice_view_metadata_build(const char *base_json, const char *location, const char *sql,
                                         const char *default_ns, const floe_ice_schema *schema, int64_t now_ms,
                                         char **out) FLOE_WARN_UNUSED;

/* The version number NNNNN of a metadata file name (-1 when it has none):
 * the next file of a view is one above. */
int64_t floe_ice_view_metadata_version(const char *location);

#ifdef __cplusplus
}
#endif

#endif
