/*
 * views.c — the REST server's view routes (Iceberg REST catalog views):
 *
 *   GET    /v1/namespaces/{ns}/views           list
 *   POST   /v1/namespaces/{ns}/views           create (CreateViewRequest)
 *   GET    /v1/namespaces/{ns}/views/{v}       load (LoadViewResult)
 *   POST   /v1/namespaces/{ns}/views/{v}       replace {requirements, updates}
 *   DELETE /v1/namespaces/{ns}/views/{v}       drop
 *   POST   /v1/views/rename                    {source, destination}
 *
 * The views live in the server's SQLite catalog (floe_catalog_create_view),
 * which writes the metadata files.  From a request the server takes what a
 * version needs — the SQL of its "sql" representation (dialect floe, else
 * the only one), its default-namespace and the schema — so a replace is
 * add-schema + add-view-version + set-current-view-version as clients
 * send it, checked against assert-view-uuid.
 */
#include <string.h>

#include "cli/rest_server/rest_server.h"
#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

void rs_handle_list_views(rs_request *rq, rs_response *rs, const char *ns) {
    if (!rs_require_namespace(rq, rs, ns)) return;
    char **names = NULL;
    int32_t n = 0;
    floe_status st = floe_catalog_list_views(rq->srv->catalog, ns, &names, &n);
    if (st) {
        rs_error_status(rs, st, "NoSuchNamespaceException", "CommitFailedException");
        return;
    }
    json_t *arr = json_array();
    for (int32_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, json_pack("{s:[s],s:s}", "namespace", ns, "name", names[i]))) {
            json_decref(arr);
            arr = NULL;
        }
    floe_catalog_names_free(names, n);
    rs_json(rs, 200, arr ? json_pack("{s:o}", "identifiers", arr) : NULL);
}

/* Answer 200 with the LoadViewResult of ns.name. */
static void answer_view(rs_request *rq, rs_response *rs, const char *ns, const char *name) {
    floe_ice_view *v = NULL;
    floe_status st = floe_catalog_load_view(rq->srv->catalog, ns, name, &v);
    if (st) {
        rs_error_status(rs, st, "NoSuchViewException", "CommitFailedException");
        return;
    }
    json_t *md = json_loads(v->json, 0, NULL);
    rs_json(rs, 200, md ? json_pack("{s:s,s:o,s:{}}", "metadata-location", v->metadata_location, "metadata", md,
                                    "config")
                        : NULL);
    floe_ice_view_free(v);
}

void rs_handle_load_view(rs_request *rq, rs_response *rs, const char *ns, const char *name) {
    answer_view(rq, rs, ns, name);
}

/* The SQL and default namespace of a ViewVersion object; false (400
 * answered) when it has no usable SQL representation. */
static bool version_parts(rs_response *rs, json_t *ver, const char **sql, const char **default_ns) {
    *sql = NULL;
    *default_ns = NULL;
    json_t *reps = json_object_get(ver, "representations");
    size_t i;
    json_t *r;
    int n_sql = 0;
    json_array_foreach(reps, i, r) {
        const char *type = json_string_value(json_object_get(r, "type"));
        const char *text = json_string_value(json_object_get(r, "sql"));
        if (!type || strcmp(type, "sql") != 0 || !text) continue;
        const char *dialect = json_string_value(json_object_get(r, "dialect"));
        if (dialect && strcmp(dialect, "floe") == 0) {
            *sql = text;
            n_sql = 1;
            break;
        }
        *sql = text;
        n_sql++;
    }
    if (n_sql != 1) {
        rs_error(rs, 400, "BadRequestException", "view-version: needs one SQL representation (dialect floe)");
        return false;
    }
    json_t *dns = json_object_get(ver, "default-namespace");
    if (json_array_size(dns) > 1) {
        rs_error(rs, 400, "BadRequestException", "view-version: default-namespace has more than one level");
        return false;
    }
    *default_ns = json_string_value(json_array_get(dns, 0));
    return true;
}

/* Store the version: create (replace false) or replace the view. */
static void store_version(rs_request *rq, rs_response *rs, const char *ns, const char *name, json_t *ver,
                          json_t *schema_json, bool replace) {
    const char *sql = NULL, *dns = NULL;
    if (!version_parts(rs, ver, &sql, &dns)) return;
    floe_ice_schema *schema = NULL;
    floe_status st = schema_json ? floe_ice_schema_from_json(schema_json, &schema)
                                 : floe_error(FLOE_ERR_INVALID_ARGUMENT, "the view's schema is missing");
    if (!st) st = floe_catalog_create_view(rq->srv->catalog, ns, name, sql, dns, schema, replace);
    floe_ice_schema_free(schema);
    if (st) {
        rs_error_status(rs, st, "NoSuchNamespaceException", "CommitFailedException");
        return;
    }
    answer_view(rq, rs, ns, name);
}

void rs_handle_create_view(rs_request *rq, rs_response *rs, const char *ns) {
    if (!rs_require_namespace(rq, rs, ns)) return;
    json_t *req = rs_body_object(rq, rs, "CreateViewRequest");
    if (!req) return;
    const char *name = json_string_value(json_object_get(req, "name"));
    json_t *ver = json_object_get(req, "view-version");
    if (!name || !json_is_object(ver) || !json_is_object(json_object_get(req, "schema")))
        rs_error(rs, 400, "BadRequestException", "CreateViewRequest: 'name', 'schema' and 'view-version' are required");
    else if (rs_table_name(rs, name))
        store_version(rq, rs, ns, name, ver, json_object_get(req, "schema"), false);
    json_decref(req);
}

/* The update of `action` in `updates`, or NULL. */
static json_t *find_update(json_t *updates, const char *action) {
    size_t i;
    json_t *u;
    json_array_foreach(updates, i, u) {
        const char *a = json_string_value(json_object_get(u, "action"));
        if (a && strcmp(a, action) == 0) return u;
    }
    return NULL;
}

void rs_handle_replace_view(rs_request *rq, rs_response *rs, const char *ns, const char *name) {
    json_t *req = rs_body_object(rq, rs, "CommitViewRequest");
    if (!req) return;
    floe_ice_view *v = NULL;
    floe_status st = floe_catalog_load_view(rq->srv->catalog, ns, name, &v);
    if (st) {
        rs_error_status(rs, st, "NoSuchViewException", "CommitFailedException");
        json_decref(req);
        return;
    }
    bool ok = true;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(req, "requirements"), i, r) {
        const char *type = json_string_value(json_object_get(r, "type"));
        const char *uuid = json_string_value(json_object_get(r, "uuid"));
        if (!type || strcmp(type, "assert-view-uuid") != 0) {
            rs_error(rs, 400, "BadRequestException", "unknown view requirement '%s'", type ? type : "?");
            ok = false;
        } else if (!uuid || strcmp(uuid, v->view_uuid) != 0) {
            rs_error(rs, 409, "CommitFailedException", "view %s.%s has view-uuid %s, not %s", ns, name, v->view_uuid,
                     uuid ? uuid : "?");
            ok = false;
        }
        if (!ok) break;
    }
    json_t *updates = json_object_get(req, "updates");
    json_t *add_version = find_update(updates, "add-view-version");
    json_t *add_schema = find_update(updates, "add-schema");
    if (ok && (!add_version || !add_schema)) {
        rs_error(rs, 406, "UnsupportedOperationException",
                 "a view commit must add a schema and a view version (add-schema, add-view-version)");
        ok = false;
    }
    if (ok)
        store_version(rq, rs, ns, name, json_object_get(add_version, "view-version"),
                      json_object_get(add_schema, "schema"), true);
    floe_ice_view_free(v);
    json_decref(req);
}

void rs_handle_drop_view(rs_request *rq, rs_response *rs, const char *ns, const char *name) {
    floe_status st = floe_catalog_drop_view(rq->srv->catalog, ns, name);
    if (st) {
        rs_error_status(rs, st, "NoSuchViewException", "CommitFailedException");
        return;
    }
    rs_no_content(rs);
}

void rs_handle_rename_view(rs_request *rq, rs_response *rs) {
    json_t *req = rs_body_object(rq, rs, "RenameTableRequest");
    if (!req) return;
    const char *sns, *sname, *dns, *dname;
    if (rs_identifier(rs, json_object_get(req, "source"), "source", &sns, &sname) &&
        rs_identifier(rs, json_object_get(req, "destination"), "destination", &dns, &dname) &&
        rs_require_namespace(rq, rs, dns)) {
        floe_status st = floe_catalog_rename_view(rq->srv->catalog, sns, sname, dns, dname);
        if (st) rs_error_status(rs, st, "NoSuchViewException", "CommitFailedException");
        else rs_no_content(rs);
    }
    json_decref(req);
}
