/*
 * rest_views.c — views in an Iceberg REST catalog (the OpenAPI's view
 * routes): list, load (LoadViewResult), drop, and CREATE [OR REPLACE] VIEW
 * as a CreateViewRequest or a commit of a new version.  Renames share the
 * tables' code (catalog_rest.c, POST /views/rename).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "iceberg/rest/rest_internal.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/update/table_update_internal.h"

/* api/namespaces/<ns>/views[/<name>]. */
static floe_status view_url(const rest_catalog *rc, const char *ns, const char *name, floe_buf *out) {
    FLOE_TRY(rest_url_of(rc, ns, NULL, name ? "/views/" : "/views", out));
    return name ? floe_rest_url_encode(out, name) : NULL;
}

floe_status rest_list_views(floe_catalog *c, const char *ns, char ***names, int32_t *n) {
    return rest_list_identifiers(RC(c), ns, "/views", names, n);
}

/* Read a LoadViewResult into a view. */
static floe_status view_of_result(json_t *root, floe_ice_view **out) {
    const char *loc = json_string_value(json_object_get(root, "metadata-location"));
    json_t *md = json_object_get(root, "metadata");
    if (!json_is_object(md)) return floe_error(FLOE_ERR_CORRUPT, "REST catalog: a LoadViewResult has no 'metadata'");
    char *text = json_dumps(md, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!text) return rest_oom();
    floe_status st = floe_ice_view_parse(text, loc ? loc : "(REST)", out);
    free(text);
    return st;
}

/* Send a view request; 2xx: *out (may be NULL) the view of the answer. */
static floe_status view_call(rest_catalog *rc, const char *method, const char *ns, const char *name, bool named,
                             const char *body, floe_rest_op op, floe_ice_view **out) {
    if (out) *out = NULL;
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = view_url(rc, ns, named ? name : NULL, &url);
    call cl = {method, floe_buf_cstr(&url), body, strcmp(method, "GET") == 0, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    if (!st && !rest_ok_status(r.status)) {
        if (r.status == 404 && rest_error_type_contains(&r, "Namespace")) st = rest_ns_missing(ns);
        else if (r.status == 404) st = floe_error(FLOE_ERR_NOT_FOUND, "view %s.%s does not exist", ns, name);
        else if (r.status == 409 && rest_error_type_contains(&r, "AlreadyExists"))
            st = floe_error(FLOE_ERR_ALREADY_EXISTS, "relation %s.%s already exists", ns, name);
        else if (r.status == 409) st = floe_error(FLOE_ERR_CONFLICT, "view %s.%s changed meanwhile", ns, name);
        else st = floe_status_wrap(rest_http_error(&cl, &r, op), "view %s.%s", ns, name);
    }
    json_t *root = NULL;
    if (!st && out) st = rest_response_json(&r, "a view request", &root);
    if (!st && out) st = view_of_result(root, out);
    json_decref(root);
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    return st;
}

floe_status rest_load_view(floe_catalog *c, const char *ns, const char *name, floe_ice_view **out) {
    return view_call(RC(c), "GET", ns, name, true, NULL, FLOE_REST_OP_READ, out);
}

floe_status rest_drop_view(floe_catalog *c, const char *ns, const char *name) {
    return view_call(RC(c), "DELETE", ns, name, true, NULL, FLOE_REST_OP_DROP, NULL);
}

/* CREATE [OR REPLACE] VIEW: the new version and schema are built as the
 * metadata file would hold them (iceberg_view.h), then sent as a
 * CreateViewRequest, or as a commit (assert-view-uuid; add-schema,
 * add-view-version, set-current-view-version -1: the one just added). */
floe_status rest_create_view(floe_catalog *c, const char *ns, const char *name, const char *sql,
                                    const char *default_ns, const floe_ice_schema *schema, bool replace) {
    rest_catalog *rc = RC(c);
    FLOE_TRY(rest_check_name("namespace", ns));
    FLOE_TRY(rest_check_name("view", name));
    floe_ice_view *base = NULL;
    floe_status st = NULL;
    if (replace) {
        st = rest_load_view(c, ns, name, &base);
        if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND && !strstr(floe_status_message(st), "namespace")) {
            floe_status_free(st);
            st = NULL;
        }
    }
    char *text = NULL;
    if (!st) st = floe_ice_view_metadata_build(base ? base->json : NULL, "", sql, default_ns, schema, floe_ice_now_ms(),
                                               &text);
    json_t *md = NULL, *body = NULL;
    if (!st && !(st = floe_ice_json_parse_text(text, "view metadata", &md))) {
        json_t *vers = json_object_get(md, "versions"), *schemas = json_object_get(md, "schemas");
        json_t *ver = json_array_get(vers, json_array_size(vers) - 1);
        json_t *sch = json_array_get(schemas, json_array_size(schemas) - 1);
        if (base)
            body = json_pack("{s:[{s:s,s:s}], s:[{s:s,s:O}, {s:s,s:O}, {s:s,s:i}]}", "requirements", "type",
                             "assert-view-uuid", "uuid", base->view_uuid, "updates", "action", "add-schema", "schema",
                             sch, "action", "add-view-version", "view-version", ver, "action",
                             "set-current-view-version", "view-version-id", -1);
        else
            body = json_pack("{s:s, s:O, s:O, s:{}}", "name", name, "schema", sch, "view-version", ver, "properties");
        if (!body) st = rest_oom();
    }
    char *req = NULL;
    if (!st && !(req = json_dumps(body, JSON_COMPACT))) st = rest_oom();
    if (!st) st = view_call(rc, "POST", ns, name, base != NULL, req, FLOE_REST_OP_CREATE, NULL);
    free(req);
    json_decref(body);
    json_decref(md);
    floe_free(text);
    floe_ice_view_free(base);
    return st;
}

