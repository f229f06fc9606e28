/*
 * namespaces.c — the REST server's namespace routes:
 *
 *   GET    /v1/namespaces[?parent=&pageToken=&pageSize=]  list
 *   POST   /v1/namespaces                                create {namespace, properties}
 *   GET    /v1/namespaces/{ns}                           load (its properties)
 *   HEAD   /v1/namespaces/{ns}                           exists (204 / 404)
 *   DELETE /v1/namespaces/{ns}                           drop (409 when it holds tables)
 *   POST   /v1/namespaces/{ns}/properties                {removals, updates}
 *
 * floe's catalog has one-level namespaces, so a parent has no children.
 * Pagination: the page token is the last name of the previous page (names
 * are listed sorted).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/rest_server/rest_server.h"
#include "floe/memory.h"

bool rs_require_namespace(rs_request *rq, rs_response *rs, const char *ns) {
    bool exists = false;
    floe_status st = floe_catalog_namespace_exists(rq->srv->catalog, ns, &exists);
    if (st) {
        rs_error_status(rs, st, "NoSuchNamespaceException", "NamespaceNotEmptyException");
        return false;
    }
    if (!exists) rs_error(rs, 404, "NoSuchNamespaceException", "namespace %s does not exist", ns);
    return exists;
}

/* pageSize as a positive integer (0: no paging); false when malformed. */
static bool page_size(rs_request *rq, rs_response *rs, long *out) {
    *out = 0;
    char *v = rs_query_arg(rq, "pageSize");
    if (!v) return true;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    bool ok = *v && end && !*end && n > 0 && n <= 1000000;
    if (!ok) rs_error(rs, 400, "BadRequestException", "pageSize must be a positive integer, not '%s'", v);
    floe_free(v);
    *out = n;
    return ok;
}

void rs_handle_list_namespaces(rs_request *rq, rs_response *rs) {
    long size = 0;
    if (!page_size(rq, rs, &size)) return;
    char *parent = rs_query_arg(rq, "parent");
    if (parent && *parent) {
        /* One level: an existing parent has no children. */
        bool ok = rs_namespace_name(rs, parent) && rs_require_namespace(rq, rs, parent);
        floe_free(parent);
        if (ok) rs_json(rs, 200, json_pack("{s:[]}", "namespaces"));
        return;
    }
    floe_free(parent);
    char **names = NULL;
    int32_t n = 0;
    floe_status st = floe_catalog_list_namespaces(rq->srv->catalog, &names, &n);
    if (st) {
        rs_error_status(rs, st, "NoSuchNamespaceException", "NamespaceNotEmptyException");
        return;
    }
    char *after = rs_query_arg(rq, "pageToken");
    json_t *arr = json_array();
    const char *last = NULL;
    bool more = false;
    for (int32_t i = 0; arr && i < n; i++) {
        if (after && *after && strcmp(names[i], after) <= 0) continue;
        if (size && (long)json_array_size(arr) == size) {
            more = true;
            break;
        }
        if (json_array_append_new(arr, json_pack("[s]", names[i]))) {
            json_decref(arr);
            arr = NULL;
        }
        last = names[i];
    }
    json_t *j = arr ? json_pack("{s:o,s:s*}", "namespaces", arr, "next-page-token", more ? last : NULL) : NULL;
    floe_free(after);
    floe_catalog_names_free(names, n);
    rs_json(rs, 200, j);
}

/* {namespace: [ns], properties: {...}} of an existing namespace. */
static json_t *namespace_json(rs_request *rq, rs_response *rs, const char *ns) {
    char **kv = NULL;
    int32_t n = 0;
    floe_status st = floe_catalog_namespace_properties(rq->srv->catalog, ns, &kv, &n);
    if (st) {
        rs_error_status(rs, st, "NoSuchNamespaceException", "NamespaceNotEmptyException");
        return NULL;
    }
    json_t *props = rs_pairs_object(kv, n);
    floe_catalog_names_free(kv, 2 * n);
    json_t *j = props ? json_pack("{s:[s],s:o}", "namespace", ns, "properties", props) : NULL;
    if (!j) rs_error(rs, 500, "ServiceFailureException", "out of memory");
    return j;
}

/* The string-valued members of `obj` as pairs; false (answered 400) when
 * one is not a string. */
static bool string_pairs(rs_response *rs, json_t *obj, const char *what, const char ***kv, int32_t *n) {
    *kv = NULL;
    *n = 0;
    if (!obj || json_is_null(obj)) return true;
    if (!json_is_object(obj)) {
        rs_error(rs, 400, "BadRequestException", "%s must be an object of strings", what);
        return false;
    }
    size_t cnt = json_object_size(obj);
    const char **out = floe_malloc_array(cnt ? 2 * cnt : 1, sizeof *out);
    if (!out) {
        rs_error(rs, 500, "ServiceFailureException", "out of memory");
        return false;
    }
    const char *k;
    json_t *v;
    int32_t i = 0;
    json_object_foreach(obj, k, v) {
        if (!json_is_string(v)) {
            rs_error(rs, 400, "BadRequestException", "%s: the value of '%s' must be a string", what, k);
            floe_free(out);
            return false;
        }
        out[2 * i] = k;
        out[2 * i + 1] = json_string_value(v);
        i++;
    }
    *kv = out;
    *n = i;
    return true;
}

void rs_handle_create_namespace(rs_request *rq, rs_response *rs) {
    json_t *req = rs_body_object(rq, rs, "CreateNamespaceRequest");
    if (!req) return;
    const char *ns = NULL;
    const char **kv = NULL;
    int32_t n = 0;
    if (rs_namespace_array(rs, json_object_get(req, "namespace"), "CreateNamespaceRequest", &ns) &&
        string_pairs(rs, json_object_get(req, "properties"), "CreateNamespaceRequest 'properties'", &kv, &n)) {
        floe_status st = floe_catalog_create_namespace_with_properties(rq->srv->catalog, ns, kv, n, false);
        if (st) {
            rs_error_status(rs, st, "NoSuchNamespaceException", "AlreadyExistsException");
        } else {
            json_t *j = namespace_json(rq, rs, ns);
            if (j) rs_json(rs, 200, j);
        }
    }
    floe_free(kv);
    json_decref(req);
}

void rs_handle_load_namespace(rs_request *rq, rs_response *rs, const char *ns) {
    json_t *j = namespace_json(rq, rs, ns);
    if (j) rs_json(rs, 200, j);
}

void rs_handle_namespace_exists(rs_request *rq, rs_response *rs, const char *ns) {
    if (rs_require_namespace(rq, rs, ns)) rs_no_content(rs);
}

void rs_handle_drop_namespace(rs_request *rq, rs_response *rs, const char *ns) {
    floe_status st = floe_catalog_drop_namespace(rq->srv->catalog, ns, false);
    if (st) {
        rs_error_status(rs, st, "NoSuchNamespaceException", "NamespaceNotEmptyException");
        return;
    }
    rs_no_content(rs);
}

void rs_handle_update_namespace_properties(rs_request *rq, rs_response *rs, const char *ns) {
    json_t *req = rs_body_object(rq, rs, "UpdateNamespacePropertiesRequest");
    if (!req) return;
    const char **set = NULL;
    const char **removals = NULL;
    int32_t n_set = 0, n_rm = 0;
    char **missing = NULL;
    int32_t n_missing = 0;
    json_t *rm = json_object_get(req, "removals");
    json_t *updated = NULL, *removed = NULL, *miss = NULL;
    if (!string_pairs(rs, json_object_get(req, "updates"), "UpdateNamespacePropertiesRequest 'updates'", &set,
                      &n_set))
        goto done;
    if (rm && !json_is_null(rm)) {
        if (!json_is_array(rm)) {
            rs_error(rs, 400, "BadRequestException", "UpdateNamespacePropertiesRequest 'removals' must be an array");
            goto done;
        }
        removals = floe_malloc_array(json_array_size(rm) ? json_array_size(rm) : 1, sizeof *removals);
        if (!removals) {
            rs_error(rs, 500, "ServiceFailureException", "out of memory");
            goto done;
        }
        size_t i;
        json_t *v;
        json_array_foreach(rm, i, v) {
            if (!json_is_string(v)) {
                rs_error(rs, 400, "BadRequestException",
                         "UpdateNamespacePropertiesRequest 'removals' must hold strings (item %zu)", i);
                goto done;
            }
            removals[n_rm++] = json_string_value(v);
        }
    }
    for (int32_t i = 0; i < n_rm; i++)
        for (int32_t k = 0; k < n_set; k++)
            if (strcmp(removals[i], set[2 * k]) == 0) {
                rs_error(rs, 422, "UnprocessableEntityException", "property '%s' is both updated and removed",
                         removals[i]);
                goto done;
            }
    if (!rs_require_namespace(rq, rs, ns)) goto done;
    floe_status st = floe_catalog_update_namespace_properties(rq->srv->catalog, ns, set, n_set, removals, n_rm,
                                                              &missing, &n_missing);
    if (st) {
        rs_error_status(rs, st, "NoSuchNamespaceException", "CommitFailedException");
        goto done;
    }
    updated = json_array();
    removed = json_array();
    miss = json_array();
    bool oom = !updated || !removed || !miss;
    for (int32_t k = 0; !oom && k < n_set; k++) oom = json_array_append_new(updated, json_string(set[2 * k])) != 0;
    for (int32_t i = 0; !oom && i < n_rm; i++) {
        bool was_missing = false;
        for (int32_t m = 0; m < n_missing && !was_missing; m++) was_missing = strcmp(missing[m], removals[i]) == 0;
        oom = json_array_append_new(was_missing ? miss : removed, json_string(removals[i])) != 0;
    }
    if (oom) {
        rs_error(rs, 500, "ServiceFailureException", "out of memory");
    } else {
        rs_json(rs, 200, json_pack("{s:o,s:o,s:o}", "updated", updated, "removed", removed, "missing", miss));
        updated = removed = miss = NULL;
    }
done:
    json_decref(updated);
    json_decref(removed);
    json_decref(miss);
    floe_catalog_names_free(missing, n_missing);
    floe_free(set);
    floe_free(removals);
    json_decref(req);
}
