/*
 * catalog_rest.c — an Iceberg REST catalog client behind floe's catalog
 * API (catalog.h, catalog_impl.h), following the Iceberg REST OpenAPI
 * (open-api/rest-catalog-open-api.yaml).
 *
 *   rest:http(s)://host[:port][/path][?name=value&...]
 *
 * Opening: GET <uri>/v1/config?warehouse=W returns "defaults" and
 * "overrides"; the catalog's properties are defaults < the client's own
 * (props given to floe_catalog_open, then the URI's query) < overrides,
 * and every later path is <uri>/v1/<prefix>/... where prefix comes from
 * the merged "prefix".  Authentication (rest_auth.c) is a static bearer
 * token or OAuth2 client credentials, refreshed before expiry and once on
 * a 401 (the request is then sent again: a statement does not fail
 * because a token lapsed).
 *
 * Tables.  load_table asks for vended credentials
 * (X-Iceberg-Access-Delegation: vended-credentials).  Each table gets a
 * FileIO made from the catalog's storage properties plus the response's
 * "config" and the best-matching "storage-credentials" entry; the FileIO
 * belongs to the catalog (a per-table cache), so tables stay valid while
 * the catalog is open.  Short-lived S3 keys go to the process-wide
 * credential store (fileio.h) under floe.credentials-id
 * "rest:<uri>#<ns>.<table>", with a refresher that asks
 * GET .../credentials (or reloads the table), so a long statement and the
 * FileIOs of other ranks keep working past their expiry.
 *
 * Commits.  floe builds new metadata whole; the REST protocol wants the
 * difference.  The base is the metadata load_table last returned for
 * that location (kept per table), else the base file read through the
 * table's FileIO; floe_ice_md_diff gives the requirements and updates,
 * POSTed to the table.  409 is FLOE_ERR_CONFLICT (the commit loop of
 * catalog_append.c reloads and retries); a 5xx leaves the outcome unknown:
 * one reload settles it when the commit added a snapshot (there = done),
 * else it is FLOE_ERR_COMMIT_UNKNOWN, never retried blindly — and the
 * commit loop and the commit node then keep every file it references.
 * A connection lost after the request may have gone out is the same.
 *
 * Secrets (credential, token, vended keys) are never put in messages;
 * requests and bodies are logged only through the redacting helpers.
 */
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "base/redact.h"
#include "base/str.h"
#include "floe/catalog.h"
#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "iceberg/catalog/catalog_impl.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/update/table_update_internal.h"
#include "iceberg/rest/metadata_updates.h"
#include "iceberg/rest/rest_auth.h"
#include "iceberg/rest/rest_http.h"
#include "iceberg/rest/rest_internal.h"


static const floe_catalog_ops REST_OPS;
static void rest_close(floe_catalog *c);

static floe_status oom(void) { return rest_oom(); }

/* ---- properties ----------------------------------------------------------- */

static floe_status prop_add(rest_catalog *rc, const char *key, const char *value) {
    if (!key || !value) return NULL;
    if (rc->n_props == rc->cap_props) {
        size_t nc = rc->cap_props ? rc->cap_props * 2 : 16;
        char **nk = floe_realloc(rc->keys, nc * sizeof *nk);
        if (!nk) return oom();
        rc->keys = nk;
        char **nv = floe_realloc(rc->vals, nc * sizeof *nv);
        if (!nv) return oom();
        rc->vals = nv;
        rc->cap_props = nc;
    }
    char *k = floe_strdup(key), *v = floe_strdup(value);
    if (!k || !v) {
        floe_free(k);
        floe_free(v);
        return oom();
    }
    rc->keys[rc->n_props] = k;
    rc->vals[rc->n_props++] = v;
    return NULL;
}

/* The value of `key` (the last one added wins), or NULL. */
static const char *prop(const rest_catalog *rc, const char *key) {
    for (size_t i = rc->n_props; i-- > 0;)
        if (strcmp(rc->keys[i], key) == 0) return rc->vals[i];
    return NULL;
}

static bool prop_false(const rest_catalog *rc, const char *key) {
    const char *v = prop(rc, key);
    return v && (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0);
}

/* Add every string member of a JSON object (defaults, overrides). */
static floe_status props_add_json(rest_catalog *rc, json_t *obj) {
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        if (json_is_string(v)) FLOE_TRY(prop_add(rc, k, json_string_value(v)));
    }
    return NULL;
}

/* ---- URLs ------------------------------------------------------------------ */

/* api + "/namespaces/<ns>" [+ "/tables/<name>"] + suffix (query included). */
floe_status rest_url_of(const rest_catalog *rc, const char *ns, const char *name, const char *suffix,
                          floe_buf *out) {
    FLOE_TRY(floe_buf_append_str(out, rc->api));
    if (ns) {
        /* Levels "a.b" travel joined by 0x1F (the OpenAPI's separator). */
        FLOE_TRY(floe_buf_append_str(out, "/namespaces/"));
        floe_str rest = floe_str_c(ns), level;
        bool first = true;
        while (floe_str_split_next(&rest, '.', &level)) {
            if (!first) FLOE_TRY(floe_buf_append_str(out, "%1F"));
            first = false;
            char *lv = floe_str_dup(level);
            if (!lv) return oom();
            floe_status st = floe_rest_url_encode(out, lv);
            floe_free(lv);
            FLOE_TRY(st);
        }
    }
    if (name) {
        FLOE_TRY(floe_buf_append_str(out, "/tables/"));
        FLOE_TRY(floe_rest_url_encode(out, name));
    }
    if (suffix) FLOE_TRY(floe_buf_append_str(out, suffix));
    return NULL;
}

/* ---- calls ----------------------------------------------------------------- */


/* Send a request with the current token; a 401 with an OAuth2 token
 * fetches a new one and sends the request once more. */
floe_status rest_do(rest_catalog *rc, const call *cl, floe_rest_response *resp) {
    for (int tryno = 0;; tryno++) {
        char *bearer = NULL;
        uint64_t gen = 0;
        FLOE_TRY(floe_rest_auth_bearer(rc->auth, &bearer, &gen));
        floe_rest_request rq = {
            .method = cl->method,
            .url = cl->url,
            .body = cl->body,
            .authorization = bearer,
            .headers = cl->headers,
            .n_headers = cl->n_headers,
            .idempotent = cl->idempotent,
            .commit = cl->commit,
        };
        floe_rest_response_free(resp);
        floe_status st = floe_rest_http_do(rc->http, &rq, resp);
        floe_rest_auth_value_free(bearer);
        if (st) return st;
        if (resp->status != 401 || tryno > 0 || !floe_rest_auth_rejected(rc->auth, gen)) return NULL;
        FLOE_LOG_INFO("rest", "%s: the catalog rejected the token (401); fetching a new one and retrying",
                      cl->method);
    }
}

/* Parse a 2xx response body as a JSON object. */
floe_status rest_response_json(const floe_rest_response *r, const char *what, json_t **out) {
    *out = NULL;
    json_error_t err;
    json_t *root = json_loads(floe_buf_cstr(&r->body), 0, &err);
    if (!json_is_object(root)) {
        json_decref(root);
        return floe_error(FLOE_ERR_CORRUPT, "REST catalog: the answer to %s is not a JSON object%s%s", what,
                          root ? "" : ": ", root ? "" : err.text);
    }
    *out = root;
    return NULL;
}

/* The server's error type ("NoSuchNamespaceException"), or "". */
bool rest_error_type_contains(const floe_rest_response *r, const char *word) {
    json_t *root = json_loads(floe_buf_cstr(&r->body), 0, NULL);
    const char *type = NULL;
    json_t *e = root ? json_object_get(root, "error") : NULL;
    if (json_is_object(e)) type = json_string_value(json_object_get(e, "type"));
    bool hit = type && strstr(type, word);
    json_decref(root);
    return hit;
}

floe_status rest_http_error(const call *cl, const floe_rest_response *r, floe_rest_op op) {
    return floe_rest_error(cl->method, cl->url, r->status, floe_buf_cstr(&r->body), op);
}


/* ---- namespaces ---------------------------------------------------------------- */

floe_status rest_check_name(const char *what, const char *name) {
    if (!name || !*name) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a %s name cannot be empty", what);
    return NULL;
}

floe_status rest_ns_missing(const char *ns) {
    return floe_error(FLOE_ERR_NOT_FOUND, "namespace '%s' does not exist", ns);
}

/* "a.b" -> ["a", "b"] (NULL when out of memory). */
json_t *rest_ns_array(const char *ns) {
    json_t *a = json_array();
    floe_str rest = floe_str_c(ns), level;
    while (a && floe_str_split_next(&rest, '.', &level)) {
        if (json_array_append_new(a, json_stringn(level.ptr, level.len)) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

static floe_status rest_create_namespace(floe_catalog *c, const char *ns, const char *const *props, int32_t n_props,
                                         bool if_not_exists) {
    rest_catalog *rc = RC(c);
    FLOE_TRY(rest_check_name("namespace", ns));
    json_t *p = json_object();
    json_t *body = json_object();
    floe_status st = p && body ? NULL : oom();
    for (int32_t i = 0; !st && i < n_props; i++)
        if (json_object_set_new(p, props[2 * i], json_string(props[2 * i + 1])) != 0) st = oom();
    if (!st && (json_object_set_new(body, "namespace", rest_ns_array(ns)) != 0 ||
                json_object_set(body, "properties", p) != 0))
        st = oom();
    char *text = NULL;
    if (!st) st = floe_ice_json_dump(body, &text);
    json_decref(p);
    json_decref(body);
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    if (!st) st = rest_url_of(rc, NULL, NULL, "/namespaces", &url);
    call cl = {"POST", floe_buf_cstr(&url), text, false, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    if (!st && !rest_ok_status(r.status)) {
        if (r.status == 409 && if_not_exists) st = NULL;
        else if (r.status == 409) st = floe_error(FLOE_ERR_ALREADY_EXISTS, "namespace '%s' already exists", ns);
        else st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_CREATE), "creating namespace '%s'", ns);
    }
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    floe_free(text);
    return st;
}

static floe_status rest_drop_namespace(floe_catalog *c, const char *ns, bool if_exists) {
    rest_catalog *rc = RC(c);
    FLOE_TRY(rest_check_name("namespace", ns));
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = rest_url_of(rc, ns, NULL, NULL, &url);
    call cl = {"DELETE", floe_buf_cstr(&url), NULL, false, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    if (!st && !rest_ok_status(r.status)) {
        if (r.status == 404 && if_exists) st = NULL;
        else if (r.status == 404) st = rest_ns_missing(ns);
        else if (r.status == 409)
            st = floe_error(FLOE_ERR_CONFLICT, "namespace '%s' is not empty: drop its tables first", ns);
        else st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_DROP), "dropping namespace '%s'", ns);
    }
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    return st;
}

/* GET a namespace: 200 gives *root (may be NULL when only existence is
 * wanted), 404 gives *exists = false. */
static floe_status ns_get(rest_catalog *rc, const char *ns, bool *exists, json_t **root) {
    *exists = false;
    if (root) *root = NULL;
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = rest_url_of(rc, ns, NULL, NULL, &url);
    call cl = {"GET", floe_buf_cstr(&url), NULL, true, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    if (!st && rest_ok_status(r.status)) {
        *exists = true;
        if (root) st = rest_response_json(&r, "loading a namespace", root);
    } else if (!st && r.status != 404) {
        st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_READ), "loading namespace '%s'", ns);
    }
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    return st;
}

static floe_status rest_namespace_exists(floe_catalog *c, const char *ns, bool *out) {
    rest_catalog *rc = RC(c);
    *out = false;
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = rest_url_of(rc, ns, NULL, NULL, &url);
    call cl = {"HEAD", floe_buf_cstr(&url), NULL, true, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    if (!st) {
        if (rest_ok_status(r.status)) *out = true;
        else if (r.status == 405 || r.status == 501) st = ns_get(rc, ns, out, NULL); /* no HEAD support */
        else if (r.status != 404)
            st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_READ), "checking namespace '%s'", ns);
    }
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    return st;
}

/* A growing array of strings. */
typedef struct strvec {
    char **v;
    int32_t n, cap;
} strvec;

static floe_status strvec_add(strvec *s, const char *text) {
    if (s->n == s->cap) {
        int32_t nc = s->cap ? s->cap * 2 : 16;
        char **nv = floe_realloc(s->v, (size_t)nc * sizeof *nv);
        if (!nv) return oom();
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n] = floe_strdup(text);
    if (!s->v[s->n]) return oom();
    s->n++;
    return NULL;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A namespace as a JSON array of levels -> "a.b". */
static floe_status ns_join(json_t *levels, floe_buf *out) {
    if (!json_is_array(levels) || json_array_size(levels) == 0)
        return floe_error(FLOE_ERR_CORRUPT, "REST catalog: a namespace is not an array of names");
    size_t i;
    json_t *lv;
    json_array_foreach(levels, i, lv) {
        if (!json_is_string(lv)) return floe_error(FLOE_ERR_CORRUPT, "REST catalog: a namespace level is not a string");
        if (i) FLOE_TRY(floe_buf_append_byte(out, '.'));
        FLOE_TRY(floe_buf_append_str(out, json_string_value(lv)));
    }
    return NULL;
}

/* GET a paged listing; `pick` adds the names of one page's `member`. */
typedef floe_status (*pick_fn)(json_t *item, strvec *out);

static floe_status pick_namespace(json_t *item, strvec *out) {
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = ns_join(item, &b);
    if (!st) st = strvec_add(out, floe_buf_cstr(&b));
    floe_buf_free(&b);
    return st;
}

static floe_status pick_table(json_t *item, strvec *out) {
    const char *name = json_string_value(json_object_get(item, "name"));
    if (!name) return floe_error(FLOE_ERR_CORRUPT, "REST catalog: a table identifier has no name");
    return strvec_add(out, name);
}

static floe_status list_paged(rest_catalog *rc, const char *ns, const char *what, const char *member, pick_fn pick,
                              char ***names, int32_t *n) {
    strvec out = {0};
    char *token = NULL;
    floe_status st = NULL;
    for (int page = 0; !st && page < 100000; page++) {
        floe_buf url = FLOE_BUF_INIT;
        floe_rest_response r = {0, FLOE_BUF_INIT};
        st = rest_url_of(rc, ns, NULL, what, &url);
        if (!st && token) {
            st = floe_buf_append_str(&url, "?pageToken=");
            if (!st) st = floe_rest_url_encode(&url, token);
        }
        call cl = {"GET", floe_buf_cstr(&url), NULL, true, NULL, 0, false};
        if (!st) st = rest_do(rc, &cl, &r);
        json_t *root = NULL;
        if (!st && !rest_ok_status(r.status)) {
            if (r.status == 404 && ns) st = rest_ns_missing(ns);
            else st = rest_http_error(&cl, &r, FLOE_REST_OP_READ);
        }
        if (!st) st = rest_response_json(&r, "a listing", &root);
        floe_free(token);
        token = NULL;
        if (!st) {
            json_t *items = json_object_get(root, member);
            if (items && !json_is_array(items))
                st = floe_error(FLOE_ERR_CORRUPT, "REST catalog: '%s' is not an array", member);
            size_t i;
            json_t *it;
            json_array_foreach(items, i, it) {
                if (st) break;
                st = pick(it, &out);
            }
            const char *next = json_string_value(json_object_get(root, "next-page-token"));
            if (!st && next && *next && !(token = floe_strdup(next))) st = oom();
        }
        json_decref(root);
        floe_rest_response_free(&r);
        floe_buf_free(&url);
        if (!token) break;
    }
    floe_free(token);
    if (st) {
        floe_catalog_names_free(out.v, out.n);
        return st;
    }
    if (out.n > 1) qsort(out.v, (size_t)out.n, sizeof *out.v, cmp_str);
    *names = out.v;
    *n = out.n;
    return NULL;
}

floe_status rest_list_identifiers(rest_catalog *rc, const char *ns, const char *what, char ***names, int32_t *n) {
    return list_paged(rc, ns, what, "identifiers", pick_table, names, n);
}

static floe_status rest_list_namespaces(floe_catalog *c, char ***names, int32_t *n) {
    return list_paged(RC(c), NULL, "/namespaces", "namespaces", pick_namespace, names, n);
}

static floe_status rest_list_tables(floe_catalog *c, const char *ns, char ***names, int32_t *n) {
    return list_paged(RC(c), ns, "/tables", "identifiers", pick_table, names, n);
}

static floe_status rest_namespace_properties(floe_catalog *c, const char *ns, char ***kv, int32_t *n_pairs) {
    bool exists = false;
    json_t *root = NULL;
    FLOE_TRY(ns_get(RC(c), ns, &exists, &root));
    if (!exists) return rest_ns_missing(ns);
    json_t *props = json_object_get(root, "properties");
    strvec keys = {0}, out = {0};
    floe_status st = NULL;
    const char *k;
    json_t *v;
    json_object_foreach(props, k, v) {
        if (!st && json_is_string(v)) st = strvec_add(&keys, k);
    }
    if (!st && keys.n > 1) qsort(keys.v, (size_t)keys.n, sizeof *keys.v, cmp_str);
    for (int32_t i = 0; !st && i < keys.n; i++) {
        st = strvec_add(&out, keys.v[i]);
        if (!st) st = strvec_add(&out, json_string_value(json_object_get(props, keys.v[i])));
    }
    floe_catalog_names_free(keys.v, keys.n);
    json_decref(root);
    if (st) {
        floe_catalog_names_free(out.v, out.n);
        return st;
    }
    *kv = out.v;
    *n_pairs = out.n / 2;
    return NULL;
}

static floe_status rest_update_namespace_properties(floe_catalog *c, const char *ns, const char *const *set_kv,
                                                    int32_t n_set, const char *const *remove, int32_t n_remove,
                                                    char ***missing, int32_t *n_missing) {
    rest_catalog *rc = RC(c);
    json_t *body = json_object(), *upd = json_object(), *rem = json_array();
    floe_status st = body && upd && rem ? NULL : oom();
    for (int32_t i = 0; !st && i < n_set; i++)
        if (json_object_set_new(upd, set_kv[2 * i], json_string(set_kv[2 * i + 1])) != 0) st = oom();
    for (int32_t i = 0; !st && i < n_remove; i++)
        if (json_array_append_new(rem, json_string(remove[i])) != 0) st = oom();
    if (!st && (json_object_set(body, "removals", rem) != 0 || json_object_set(body, "updates", upd) != 0)) st = oom();
    char *text = NULL;
    if (!st) st = floe_ice_json_dump(body, &text);
    json_decref(body);
    json_decref(upd);
    json_decref(rem);
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    if (!st) st = rest_url_of(rc, ns, NULL, "/properties", &url);
    call cl = {"POST", floe_buf_cstr(&url), text, false, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    json_t *root = NULL;
    if (!st && !rest_ok_status(r.status))
        st = r.status == 404 ? rest_ns_missing(ns)
                             : floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_DROP),
                                                "updating the properties of namespace '%s'", ns);
    if (!st && missing) {
        st = rest_response_json(&r, "a namespace properties update", &root);
        strvec mv = {0};
        size_t i;
        json_t *it;
        json_array_foreach(root ? json_object_get(root, "missing") : NULL, i, it) {
            if (!st && json_is_string(it)) st = strvec_add(&mv, json_string_value(it));
        }
        if (st) floe_catalog_names_free(mv.v, mv.n);
        else {
            *missing = mv.v;
            if (n_missing) *n_missing = mv.n;
        }
    }
    json_decref(root);
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    floe_free(text);
    return st;
}

/* ---- the per-table cache and its FileIO ------------------------------------------ */

static void table_free(rest_table *t) {
    if (!t) return;
    if (t->creds_id) {
        if (t->refresher_set) floe_credentials_set_refresher(t->creds_id, NULL, NULL);
        floe_credentials_forget(t->creds_id);
    }
    floe_fileio_free(t->io);
    for (size_t i = 0; i < t->n_retired; i++) floe_fileio_free(t->retired[i]);
    floe_free(t->retired);
    floe_free(t->io_sig);
    floe_free(t->creds_id);
    floe_free(t->metadata_location);
    floe_free(t->metadata_json);
    floe_free(t->location);
    floe_free(t->ns);
    floe_free(t->name);
    floe_free(t);
}

static void table_free_v(void *p) { table_free(p); }

static floe_status table_key(const char *ns, const char *name, floe_buf *out) {
    return floe_buf_printf(out, "%s\x1f%s", ns, name);
}

/* The cached entry of ns.name, created when missing.  Caller holds mu. */
static floe_status table_entry_locked(rest_catalog *rc, const char *ns, const char *name, rest_table **out) {
    *out = NULL;
    floe_buf key = FLOE_BUF_INIT;
    FLOE_TRY(table_key(ns, name, &key));
    rest_table *t = floe_strmap_get_c(&rc->tables, floe_buf_cstr(&key));
    floe_status st = NULL;
    if (!t) {
        t = floe_calloc(1, sizeof *t);
        if (!t) st = oom();
        if (!st) {
            t->cat = rc;
            t->ns = floe_strdup(ns);
            t->name = floe_strdup(name);
            if (!t->ns || !t->name) st = oom();
        }
        if (!st) st = floe_strmap_put_c(&rc->tables, floe_buf_cstr(&key), t, NULL);
        if (st) {
            table_free(t);
            t = NULL;
        }
    }
    floe_buf_free(&key);
    *out = t;
    return st;
}

/* Storage properties: those a FileIO reads, never the catalog's own
 * credential or token. */
static bool storage_key(const char *k) {
    static const char *const prefixes[] = {"s3.", "client.", "gcs.", "adls.", "io.", "floe.", NULL};
    for (int i = 0; prefixes[i]; i++)
        if (strncmp(k, prefixes[i], strlen(prefixes[i])) == 0) return true;
    return false;
}

/* Keys that are the short-lived part of vended credentials: kept in the
 * credential store, not in the FileIO's own properties. */
static bool vended_secret_key(const char *k) {
    return strcmp(k, "s3.access-key-id") == 0 || strcmp(k, "s3.secret-access-key") == 0 ||
           strcmp(k, "s3.session-token") == 0 || strcmp(k, "s3.session-token-expires-at-ms") == 0;
}

/* A property list being assembled (later keys replace earlier ones). */
typedef struct plist {
    strvec k, v;
} plist;

static floe_status plist_set(plist *p, const char *key, const char *value) {
    for (int32_t i = 0; i < p->k.n; i++)
        if (strcmp(p->k.v[i], key) == 0) {
            char *nv = floe_strdup(value);
            if (!nv) return oom();
            floe_free(p->v.v[i]);
            p->v.v[i] = nv;
            return NULL;
        }
    FLOE_TRY(strvec_add(&p->k, key));
    return strvec_add(&p->v, value);
}

static void plist_free(plist *p) {
    floe_catalog_names_free(p->k.v, p->k.n);
    floe_catalog_names_free(p->v.v, p->v.n);
    memset(p, 0, sizeof *p);
}

/* The "config" of the storage-credentials entry whose prefix is the
 * longest one `location` starts with (NULL: none). */
static json_t *best_credentials(json_t *creds, const char *location) {
    json_t *best = NULL;
    size_t best_len = 0;
    size_t i;
    json_t *it;
    json_array_foreach(creds, i, it) {
        const char *prefix = json_string_value(json_object_get(it, "prefix"));
        json_t *cfg = json_object_get(it, "config");
        if (!prefix || !json_is_object(cfg)) continue;
        size_t pl = strlen(prefix);
        if (location && strncmp(location, prefix, pl) != 0) continue;
        if (!best || pl > best_len) {
            best = cfg;
            best_len = pl;
        }
    }
    return best;
}

static int64_t expiry_of(json_t *cfg) {
    const char *v = json_string_value(json_object_get(cfg, "s3.session-token-expires-at-ms"));
    if (!v) v = json_string_value(json_object_get(cfg, "expiration-time"));
    return v ? strtoll(v, NULL, 10) : 0;
}

/* Put the vended keys of `cfg` objects into the store under id. */
static floe_status store_credentials(const char *id, json_t *const *cfgs, size_t n_cfgs) {
    plist p = {0};
    int64_t expires = 0;
    floe_status st = NULL;
    for (size_t c = 0; !st && c < n_cfgs; c++) {
        if (!cfgs[c]) continue;
        const char *k;
        json_t *v;
        json_object_foreach(cfgs[c], k, v) {
            if (!st && json_is_string(v) && storage_key(k)) st = plist_set(&p, k, json_string_value(v));
        }
        int64_t e = expiry_of(cfgs[c]);
        if (e > 0) expires = e;
    }
    floe_property *props = NULL;
    if (!st && p.k.n) {
        props = floe_calloc((size_t)p.k.n, sizeof *props);
        if (!props) st = oom();
        for (int32_t i = 0; !st && i < p.k.n; i++) props[i] = (floe_property){p.k.v[i], p.v.v[i]};
        if (!st) st = floe_credentials_put(id, props, (size_t)p.k.n, expires);
    }
    floe_free(props);
    plist_free(&p);
    return st;
}

static bool has_vended_keys(json_t *cfg) {
    return cfg && (json_object_get(cfg, "s3.access-key-id") || json_object_get(cfg, "s3.session-token"));
}

static floe_status refresh_credentials(void *ctx, const char *id);

/* After a load: the table's FileIO for `result` (a LoadTableResult),
 * creating one when its storage properties changed, and the vended keys
 * stored under the table's credentials id.  Caller holds mu. */
static floe_status table_io_locked(rest_catalog *rc, rest_table *t, json_t *result, const char *location) {
    json_t *cfg = json_object_get(result, "config");
    json_t *sc = best_credentials(json_object_get(result, "storage-credentials"), location);
    bool vended = has_vended_keys(cfg) || has_vended_keys(sc);
    plist p = {0};
    floe_status st = NULL;
    for (size_t i = 0; !st && i < rc->n_props; i++)
        if (storage_key(rc->keys[i]) && !(vended && vended_secret_key(rc->keys[i])))
            st = plist_set(&p, rc->keys[i], rc->vals[i]);
    json_t *cfgs[2] = {json_is_object(cfg) ? cfg : NULL, sc};
    for (int c = 0; !st && c < 2; c++) {
        if (!cfgs[c]) continue;
        const char *k;
        json_t *v;
        json_object_foreach(cfgs[c], k, v) {
            if (!st && json_is_string(v) && storage_key(k) && !vended_secret_key(k))
                st = plist_set(&p, k, json_string_value(v));
        }
    }
    if (!st && vended && !t->creds_id) {
        floe_buf id = FLOE_BUF_INIT;
        st = floe_buf_printf(&id, "%s#%s.%s", rc->base.uri, t->ns, t->name);
        if (!st && !(t->creds_id = floe_strdup(floe_buf_cstr(&id)))) st = oom();
        floe_buf_free(&id);
    }
    if (!st && vended) st = plist_set(&p, "floe.credentials-id", t->creds_id);
    /* The signature: every key and value, none of them secret. */
    floe_buf sig = FLOE_BUF_INIT;
    for (int32_t i = 0; !st && i < p.k.n; i++) st = floe_buf_printf(&sig, "%s=%s\n", p.k.v[i], p.v.v[i]);
    if (!st && vended) st = store_credentials(t->creds_id, cfgs, 2);
    if (!st && vended && !t->refresher_set) {
        floe_credentials_set_refresher(t->creds_id, refresh_credentials, t);
        t->refresher_set = true;
    }
    if (!st && !(t->io && t->io_sig && strcmp(t->io_sig, floe_buf_cstr(&sig)) == 0)) {
        floe_property *props = floe_calloc((size_t)p.k.n + 1, sizeof *props);
        floe_fileio *io = NULL;
        if (!props) st = oom();
        for (int32_t i = 0; !st && i < p.k.n; i++) props[i] = (floe_property){p.k.v[i], p.v.v[i]};
        if (!st) st = floe_fileio_new(props, (size_t)p.k.n, &io);
        floe_free(props);
        char *nsig = st ? NULL : floe_strdup(floe_buf_cstr(&sig));
        if (!st && !nsig) st = oom();
        if (!st && t->io) {
            floe_fileio **nr = floe_realloc(t->retired, (t->n_retired + 1) * sizeof *nr);
            if (!nr) st = oom();
            else {
                t->retired = nr;
                t->retired[t->n_retired++] = t->io;
                t->io = NULL;
            }
        }
        if (st) {
            floe_fileio_free(io);
            floe_free(nsig);
        } else {
            t->io = io;
            floe_free(t->io_sig);
            t->io_sig = nsig;
        }
    }
    floe_buf_free(&sig);
    plist_free(&p);
    return st;
}

/* ---- loading tables ------------------------------------------------------------------- */


/* Take in a LoadTableResult (or a commit's answer, without config):
 * update the table's cache entry and, when `out`, hand out a table. */
static floe_status accept_result(rest_catalog *rc, const char *ns, const char *name, json_t *result, bool with_io,
                                 floe_ice_table **out) {
    if (out) *out = NULL;
    const char *loc = json_string_value(json_object_get(result, "metadata-location"));
    json_t *mdj = json_object_get(result, "metadata");
    if (!loc || !json_is_object(mdj))
        return floe_error(FLOE_ERR_CORRUPT, "REST catalog: the answer for table %s.%s has no metadata-location or "
                          "metadata", ns, name);
    char *text = NULL;
    FLOE_TRY(floe_ice_json_dump(mdj, &text));
    floe_ice_table_metadata *md = NULL;
    floe_status st = floe_ice_table_metadata_parse(text, strlen(text), loc, &md);
    if (st) {
        floe_free(text);
        return floe_status_wrap(st, "REST catalog: metadata of table %s.%s", ns, name);
    }
    char *loc_copy = floe_strdup(loc);
    pthread_mutex_lock(&rc->mu);
    rest_table *t = NULL;
    st = loc_copy ? table_entry_locked(rc, ns, name, &t) : oom();
    if (!st && (with_io || !t->io)) st = table_io_locked(rc, t, result, md->location);
    floe_fileio *io = t ? t->io : NULL;
    if (!st && md->location && !(t->location && strcmp(t->location, md->location) == 0)) {
        char *l = floe_strdup(md->location);
        if (!l) st = oom();
        else {
            floe_free(t->location);
            t->location = l;
        }
    }
    if (!st) {
        floe_free(t->metadata_location);
        floe_free(t->metadata_json);
        t->metadata_location = loc_copy;
        t->metadata_json = text;
        loc_copy = text = NULL;
    }
    pthread_mutex_unlock(&rc->mu);
    floe_free(loc_copy);
    floe_free(text);
    if (!st && out) return floe_catalog_make_table(md, loc, io, out);
    floe_ice_table_metadata_free(md);
    return st;
}

/* "table db.t does not exist", naming a missing namespace or a close
 * table name. */
static floe_status table_missing(rest_catalog *rc, const char *ns, const char *name, const floe_rest_response *r) {
    if (r && rest_error_type_contains(r, "Namespace"))
        return floe_status_wrap(rest_ns_missing(ns), "table %s.%s does not exist", ns, name);
    char **names = NULL;
    int32_t n = 0;
    floe_status st = rest_list_tables(&rc->base, ns, &names, &n);
    if (st) {
        bool no_ns = floe_status_code(st) == FLOE_ERR_NOT_FOUND;
        floe_status_free(st);
        if (no_ns) return floe_status_wrap(rest_ns_missing(ns), "table %s.%s does not exist", ns, name);
        n = 0;
    }
    ptrdiff_t k = floe_str_closest(floe_str_c(name), (const char *const *)names, (size_t)n);
    st = k >= 0 ? floe_error(FLOE_ERR_NOT_FOUND, "table %s.%s does not exist (did you mean '%s.%s'?)", ns, name, ns,
                             names[k])
                : floe_error(FLOE_ERR_NOT_FOUND, "table %s.%s does not exist", ns, name);
    floe_catalog_names_free(names, n);
    return st;
}

static const char *const DELEGATION[] = {"X-Iceberg-Access-Delegation: vended-credentials"};

/* GET the table: *result is the LoadTableResult. */
static floe_status fetch_table(rest_catalog *rc, const char *ns, const char *name, json_t **result) {
    *result = NULL;
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = rest_url_of(rc, ns, name, NULL, &url);
    call cl = {"GET", floe_buf_cstr(&url), NULL, true, DELEGATION, 1, false};
    if (!st) st = rest_do(rc, &cl, &r);
    if (!st && !rest_ok_status(r.status))
        st = r.status == 404 ? table_missing(rc, ns, name, &r)
                             : floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_READ), "loading table %s.%s", ns,
                                                name);
    if (!st) st = rest_response_json(&r, "loading a table", result);
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    return st;
}

static floe_status rest_load_table(floe_catalog *c, const char *ns, const char *name, floe_ice_table **out) {
    rest_catalog *rc = RC(c);
    json_t *result = NULL;
    FLOE_TRY(fetch_table(rc, ns, name, &result));
    floe_status st = accept_result(rc, ns, name, result, true, out);
    json_decref(result);
    return st;
}

/* The credential store's refresher: GET .../credentials, or reload the
 * table when the server has no such endpoint. */
static floe_status refresh_credentials(void *ctx, const char *id) {
    rest_table *t = ctx;
    rest_catalog *rc = t->cat;
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = rest_url_of(rc, t->ns, t->name, "/credentials", &url);
    call cl = {"GET", floe_buf_cstr(&url), NULL, true, DELEGATION, 1, false};
    if (!st) st = rest_do(rc, &cl, &r);
    json_t *root = NULL;
    bool reload = false;
    if (!st && rest_ok_status(r.status)) {
        st = rest_response_json(&r, "loading credentials", &root);
        json_t *cfg = NULL;
        if (!st) {
            char *location = NULL;
            pthread_mutex_lock(&rc->mu);
            if (t->location) location = floe_strdup(t->location);
            pthread_mutex_unlock(&rc->mu);
            cfg = best_credentials(json_object_get(root, "storage-credentials"), location);
            floe_free(location);
        }
        if (!st && cfg) st = store_credentials(id, &cfg, 1);
        else if (!st) reload = true;
    } else if (!st) {
        reload = r.status == 404 || r.status == 405 || r.status == 400 || r.status == 501;
        if (!reload) st = rest_http_error(&cl, &r, FLOE_REST_OP_READ);
    }
    json_decref(root);
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    if (!st && reload) {
        json_t *result = NULL;
        st = fetch_table(rc, t->ns, t->name, &result);
        if (!st) st = accept_result(rc, t->ns, t->name, result, true, NULL);
        json_decref(result);
    }
    if (!st) FLOE_LOG_INFO("rest", "refreshed the storage credentials of table %s.%s", t->ns, t->name);
    return st ? floe_status_wrap(st, "refreshing the storage credentials of table %s.%s", t->ns, t->name) : NULL;
}

static floe_status rest_table_exists(floe_catalog *c, const char *ns, const char *name, bool *out) {
    rest_catalog *rc = RC(c);
    *out = false;
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = rest_url_of(rc, ns, name, NULL, &url);
    call cl = {"HEAD", floe_buf_cstr(&url), NULL, true, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    if (!st && (r.status == 405 || r.status == 501)) { /* no HEAD: load it */
        json_t *result = NULL;
        st = fetch_table(rc, ns, name, &result);
        json_decref(result);
        if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
            floe_status_free(st);
            st = NULL;
        } else if (!st) {
            *out = true;
        }
    } else if (!st) {
        if (rest_ok_status(r.status)) *out = true;
        else if (r.status != 404)
            st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_READ), "checking table %s.%s", ns, name);
    }
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    return st;
}

/* The warehouse location new tables go under, when the catalog's
 * "warehouse" property is one (a path or URI rather than a name). */
static const char *warehouse_location(const rest_catalog *rc) {
    const char *w = rc->base.warehouse;
    if (!w || !*w) return NULL;
    /* The catalog's own http(s) root (no warehouse given) is no location. */
    if (strncmp(w, "http://", 7) == 0 || strncmp(w, "https://", 8) == 0) return NULL;
    if (w[0] == '/' || strstr(w, "://") || strncmp(w, "file:", 5) == 0) return w;
    return NULL;
}

/* Where a new table goes when the statement names no location.  When the
 * catalog's warehouse is not a location the server decides; create_table
 * then sends no location (see rest_create_table). */
#define SERVER_DEFAULT "rest-server-default:"

static floe_status rest_default_location(floe_catalog *c, const char *ns, const char *name, char **out) {
    FLOE_TRY(rest_check_name("namespace", ns));
    FLOE_TRY(rest_check_name("table", name));
    const char *w = warehouse_location(RC(c));
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = floe_buf_printf(&b, "%s/%s/%s", w ? w : SERVER_DEFAULT, ns, name);
    if (!st && !(*out = floe_strdup(floe_buf_cstr(&b)))) st = oom();
    floe_buf_free(&b);
    return st;
}

/* ---- creating, committing, dropping ------------------------------------------------- */

/* The CreateTableRequest for `md`. */
static floe_status create_body(rest_catalog *rc, const char *ns, const char *name, const floe_ice_table_metadata *md,
                               char **out) {
    *out = NULL;
    const floe_ice_schema *schema = floe_ice_tm_current_schema(md);
    if (!schema) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table %s.%s: the new metadata has no schema", ns, name);
    json_t *body = json_object();
    if (!body) return oom();
    json_t *j = NULL;
    floe_status st = NULL;
    if (json_object_set_new(body, "name", json_string(name)) != 0) st = oom();
    /* The placeholder of rest_default_location leaves it to the server. */
    if (!st && md->location && strncmp(md->location, SERVER_DEFAULT, strlen(SERVER_DEFAULT)) != 0)
        if (json_object_set_new(body, "location", json_string(md->location)) != 0) st = oom();
    if (!st) st = floe_ice_schema_to_json(schema, &j);
    if (!st && json_object_set_new(body, "schema", j) != 0) st = oom();
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(md);
    if (!st && spec) {
        st = floe_ice_partition_spec_to_json(spec, &j);
        if (!st && json_object_set_new(body, "partition-spec", j) != 0) st = oom();
    }
    const floe_ice_sort_order *order = floe_ice_tm_sort_order(md, md->default_sort_order_id);
    if (!st && order) {
        st = floe_ice_sort_order_to_json(order, &j);
        if (!st && json_object_set_new(body, "write-order", j) != 0) st = oom();
    }
    json_t *props = st ? NULL : json_object();
    if (!st && !props) st = oom();
    for (int32_t i = 0; !st && i < md->n_properties; i++)
        if (json_object_set_new(props, md->properties[i].key, json_string(md->properties[i].value)) != 0) st = oom();
    if (!st && !json_object_get(props, "format-version")) {
        char fv[16];
        snprintf(fv, sizeof fv, "%d", md->format_version);
        if (json_object_set_new(props, "format-version", json_string(fv)) != 0) st = oom();
    }
    if (!st && json_object_set(body, "properties", props) != 0) st = oom();
    json_decref(props);
    if (!st) st = floe_ice_json_dump(body, out);
    json_decref(body);
    return st;
}


/* POST a new table's request (create: "/tables", register: "/register")
 * and take the LoadTableResult: 409 is "already exists", 404 the
 * namespace's absence.  `verb` names the act in messages ("creating"). */
static floe_status post_new_table(rest_catalog *rc, const char *ns, const char *name, const char *suffix,
                                  const char *text, const char *verb, floe_ice_table **out) {
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = rest_url_of(rc, ns, NULL, suffix, &url);
    call cl = {"POST", floe_buf_cstr(&url), text, false, DELEGATION, 1, false};
    if (!st) st = rest_do(rc, &cl, &r);
    json_t *result = NULL;
    if (!st && !rest_ok_status(r.status)) {
        if (r.status == 409) st = floe_error(FLOE_ERR_ALREADY_EXISTS, "table %s.%s already exists", ns, name);
        else if (r.status == 404) st = floe_status_wrap(rest_ns_missing(ns), "%s table %s.%s", verb, ns, name);
        else st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_CREATE), "%s table %s.%s", verb, ns, name);
    }
    if (!st) st = rest_response_json(&r, "a new table", &result);
    if (!st) st = accept_result(rc, ns, name, result, true, out);
    json_decref(result);
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    return st;
}
static floe_status rest_create_table(floe_catalog *c, const char *ns, const char *name,
                                     const floe_ice_table_metadata *md, floe_ice_table **out) {
    rest_catalog *rc = RC(c);
    FLOE_TRY(rest_check_name("namespace", ns));
    FLOE_TRY(rest_check_name("table", name));
    char *text = NULL;
    FLOE_TRY(create_body(rc, ns, name, md, &text));
    floe_status st = post_new_table(rc, ns, name, "/tables", text, "creating", out);
    floe_free(text);
    return st;
}

/* The metadata a commit started from: the one last loaded when it is
 * that file, else the file itself. */
static floe_status commit_base(rest_catalog *rc, const char *ns, const char *name, const char *base_location,
                               floe_ice_table_metadata **out) {
    *out = NULL;
    char *text = NULL;
    floe_fileio *io = rc->base.io;
    floe_buf key = FLOE_BUF_INIT;
    floe_status st = table_key(ns, name, &key);
    pthread_mutex_lock(&rc->mu);
    rest_table *t = st ? NULL : floe_strmap_get_c(&rc->tables, floe_buf_cstr(&key));
    if (t && t->io) io = t->io;
    if (t && t->metadata_location && t->metadata_json && strcmp(t->metadata_location, base_location) == 0 &&
        !(text = floe_strdup(t->metadata_json)))
        st = oom();
    pthread_mutex_unlock(&rc->mu);
    floe_buf_free(&key);
    if (st) return st;
    if (text) {
        st = floe_ice_table_metadata_parse(text, strlen(text), base_location, out);
        floe_free(text);
        return st;
    }
    /* io stays valid: FileIOs live as long as the catalog. */
    return floe_ice_table_metadata_read(io, base_location, out);
}

static floe_status commit_body(const char *ns, const char *name, json_t *req, json_t *upd, char **out) {
    json_t *body = json_pack("{s:{s:o,s:s},s:O,s:O}", "identifier", "namespace", rest_ns_array(ns), "name", name,
                             "requirements", req, "updates", upd);
    if (!body) return oom();
    floe_status st = floe_ice_json_dump(body, out);
    json_decref(body);
    return st;
}

/* A commit answered 5xx may or may not have happened.  When it added a
 * snapshot, reload the table once: the snapshot there means it did
 * (*result is then the reloaded table and `unknown` is dropped); else
 * `unknown` is returned, still saying the state is unknown (the server
 * may yet apply it), so nothing is retried or cleaned up blindly. */
static floe_status settle_unknown(rest_catalog *rc, const char *ns, const char *name, int64_t snapshot_id,
                                  floe_status unknown, json_t **result) {
    *result = NULL;
    json_t *now = NULL;
    floe_status st = fetch_table(rc, ns, name, &now);
    floe_ice_table_metadata *md = NULL;
    json_t *mdj = st ? NULL : json_object_get(now, "metadata");
    char *text = NULL;
    if (!st && mdj) st = floe_ice_json_dump(mdj, &text);
    if (!st && text) st = floe_ice_table_metadata_parse(text, strlen(text), "reloaded metadata", &md);
    bool landed = !st && md && floe_ice_tm_snapshot(md, snapshot_id);
    floe_ice_table_metadata_free(md);
    floe_free(text);
    floe_status_free(st);
    if (!landed) {
        json_decref(now);
        return unknown;
    }
    FLOE_LOG_WARN("rest", "commit to table %s.%s was answered with a server error, but its snapshot %lld is in the "
                  "reloaded table: it happened",
                  ns, name, (long long)snapshot_id);
    floe_status_free(unknown);
    *result = now;
    return NULL;
}

static floe_status rest_commit(floe_catalog *c, const char *ns, const char *name, const char *base_location,
                               const floe_ice_table_metadata *md, char **new_location) {
    rest_catalog *rc = RC(c);
    if (new_location) *new_location = NULL;
    floe_ice_table_metadata *base = NULL;
    FLOE_TRY_CTX(commit_base(rc, ns, name, base_location, &base), "commit to table %s.%s: reading its base metadata",
                 ns, name);
    json_t *req = NULL, *upd = NULL;
    floe_status st = floe_ice_md_diff(base, md, &req, &upd);
    /* A new snapshot lets an unknown outcome be settled afterwards. */
    bool adds_snapshot = md->current_snapshot_id != base->current_snapshot_id &&
                         !floe_ice_tm_snapshot(base, md->current_snapshot_id) &&
                         floe_ice_tm_snapshot(md, md->current_snapshot_id);
    floe_ice_table_metadata_free(base);
    if (st) return floe_status_wrap(st, "commit to table %s.%s", ns, name);
    char *text = NULL;
    st = commit_body(ns, name, req, upd, &text);
    json_decref(req);
    json_decref(upd);
    if (st) return st;
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    st = rest_url_of(rc, ns, name, NULL, &url);
    call cl = {"POST", floe_buf_cstr(&url), text, false, NULL, 0, true};
    if (!st) st = rest_do(rc, &cl, &r);
    json_t *result = NULL;
    bool settled = false; /* a dropped connection, but the reload shows the snapshot */
    if (st && floe_status_code(st) == FLOE_ERR_COMMIT_UNKNOWN && adds_snapshot) {
        st = settle_unknown(rc, ns, name, md->current_snapshot_id, st, &result);
        settled = !st;
    }
    if (settled) {
        /* result: the reloaded table */
    } else if (!st && !rest_ok_status(r.status)) {
        if (r.status == 404) st = table_missing(rc, ns, name, &r);
        else if (r.status == 409)
            st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_COMMIT),
                                  "commit to table %s.%s lost a race (its metadata moved on from '%s')", ns, name,
                                  base_location);
        else if (r.status >= 500) {
            floe_status he = rest_http_error(&cl, &r, FLOE_REST_OP_COMMIT);
            floe_status unknown =
                floe_error(FLOE_ERR_COMMIT_UNKNOWN, "commit to table %s.%s: %s (the commit may have been applied: "
                           "nothing it wrote is deleted)", ns, name, floe_status_message(he));
            floe_status_free(he);
            st = adds_snapshot ? settle_unknown(rc, ns, name, md->current_snapshot_id, unknown, &result) : unknown;
        }
        else st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_COMMIT), "commit to table %s.%s", ns, name);
    } else if (!st) {
        st = rest_response_json(&r, "a commit", &result);
    }
    if (!st) st = accept_result(rc, ns, name, result, false, NULL);
    if (!st && new_location) {
        const char *loc = json_string_value(json_object_get(result, "metadata-location"));
        if (!(*new_location = floe_strdup(loc))) st = oom();
    }
    json_decref(result);
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    floe_free(text);
    return st;
}

/* Forget the cached entry of a dropped or renamed table. */
static void forget_table(rest_catalog *rc, const char *ns, const char *name) {
    floe_buf key = FLOE_BUF_INIT;
    if (table_key(ns, name, &key)) return;
    pthread_mutex_lock(&rc->mu);
    rest_table *t = floe_strmap_get_c(&rc->tables, floe_buf_cstr(&key));
    /* Tables handed out may still read through its FileIOs: keep the
     * entry (freed at close), but drop the cached metadata. */
    if (t) {
        floe_free(t->metadata_location);
        floe_free(t->metadata_json);
        t->metadata_location = t->metadata_json = NULL;
    }
    pthread_mutex_unlock(&rc->mu);
    floe_buf_free(&key);
}

static floe_status rest_drop_table(floe_catalog *c, const char *ns, const char *name, bool purge) {
    rest_catalog *rc = RC(c);
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = rest_url_of(rc, ns, name, purge ? "?purgeRequested=true" : NULL, &url);
    call cl = {"DELETE", floe_buf_cstr(&url), NULL, false, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    if (!st && !rest_ok_status(r.status))
        st = r.status == 404 ? table_missing(rc, ns, name, &r)
                             : floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_DROP), "dropping table %s.%s", ns,
                                                name);
    if (!st) forget_table(rc, ns, name);
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    return st;
}

/* POST /tables/rename or /views/rename (a RenameTableRequest for both). */
static floe_status rename_relation(rest_catalog *rc, bool view, const char *ns, const char *name, const char *new_ns,
                                   const char *new_name) {
    const char *kind = view ? "view" : "table";
    FLOE_TRY(rest_check_name("namespace", new_ns));
    FLOE_TRY(rest_check_name(kind, new_name));
    json_t *body = json_pack("{s:{s:o,s:s},s:{s:o,s:s}}", "source", "namespace", rest_ns_array(ns), "name", name,
                             "destination", "namespace", rest_ns_array(new_ns), "name", new_name);
    if (!body) return oom();
    char *text = NULL;
    floe_status st = floe_ice_json_dump(body, &text);
    json_decref(body);
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    if (!st) st = rest_url_of(rc, NULL, NULL, view ? "/views/rename" : "/tables/rename", &url);
    call cl = {"POST", floe_buf_cstr(&url), text, false, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    if (!st && !rest_ok_status(r.status)) {
        if (r.status == 409)
            st = floe_error(FLOE_ERR_ALREADY_EXISTS, "cannot rename %s %s.%s: %s %s.%s already exists", kind, ns, name,
                            view ? "relation" : "table", new_ns, new_name);
        else if (r.status == 404 && rest_error_type_contains(&r, "Namespace"))
            st = floe_status_wrap(rest_ns_missing(new_ns), "cannot rename %s.%s", ns, name);
        else if (r.status == 404 && view) st = floe_error(FLOE_ERR_NOT_FOUND, "view %s.%s does not exist", ns, name);
        else if (r.status == 404) st = table_missing(rc, ns, name, &r);
        else st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_DROP), "renaming %s %s.%s", kind, ns, name);
    }
    if (!st && !view) forget_table(rc, ns, name);
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    floe_free(text);
    return st;
}

static floe_status rest_rename_table(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                                     const char *new_name) {
    return rename_relation(RC(c), false, ns, name, new_ns, new_name);
}

floe_status rest_rename_view(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                             const char *new_name) {
    return rename_relation(RC(c), true, ns, name, new_ns, new_name);
}

static floe_status rest_register_table(floe_catalog *c, const char *ns, const char *name,
                                       const char *metadata_location, floe_ice_table **out) {
    rest_catalog *rc = RC(c);
    FLOE_TRY(rest_check_name("namespace", ns));
    FLOE_TRY(rest_check_name("table", name));
    json_t *body = json_pack("{s:s,s:s}", "name", name, "metadata-location", metadata_location);
    if (!body) return oom();
    char *text = NULL;
    floe_status st = floe_ice_json_dump(body, &text);
    json_decref(body);
    if (!st) st = post_new_table(rc, ns, name, "/register", text, "registering", out);
    floe_free(text);
    return st;
}

/* ---- opening ------------------------------------------------------------------------ */

/* Split "rest:http(s)://host/path?k=v&..." into the root URL and the
 * query's properties. */
static floe_status parse_uri(rest_catalog *rc, const char *uri) {
    const char *u = uri + 5; /* after "rest:" */
    if (strncasecmp(u, "http://", 7) != 0 && strncasecmp(u, "https://", 8) != 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "REST catalog URI '%s' must be rest:http(s)://host[:port][/path]",
                          uri);
    const char *hp = strstr(u, "://") + 3;
    size_t hl = strcspn(hp, "/?#");
    if (hl == 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "REST catalog URI '%s' has no host", uri);
    if (memchr(hp, '@', hl))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "a REST catalog URI must not carry credentials: give them as the credential or token "
                          "property (--catalog-credential, --catalog-token)");
    size_t rl = strcspn(u, "?#");
    while (rl > 0 && u[rl - 1] == '/') rl--;
    rc->root = floe_strndup(u, rl);
    if (!rc->root) return oom();
    const char *q = strchr(u, '?');
    if (!q) return NULL;
    floe_str rest = floe_str_c(q + 1), part;
    while (floe_str_split_next(&rest, '&', &part)) {
        if (!part.len) continue;
        ptrdiff_t eq = floe_str_find_char(part, '=', 0);
        char *k = floe_str_dup(eq < 0 ? part : floe_str_sub(part, 0, (size_t)eq));
        char *v = floe_str_dup(eq < 0 ? floe_str_c("") : floe_str_sub(part, (size_t)eq + 1, part.len - (size_t)eq - 1));
        floe_status st = k && v ? NULL : oom();
        if (!st && floe_redact_is_secret_key(k))
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                            "a REST catalog URI must not carry secrets ('%s'): give them as catalog properties", k);
        if (!st) st = prop_add(rc, k, v);
        floe_free(k);
        floe_free(v);
        FLOE_TRY(st);
    }
    return NULL;
}

/* The HTTP client and authentication from the client properties. */
static floe_status connect_client(rest_catalog *rc) {
    strvec headers = {0};
    floe_status st = NULL;
    for (size_t i = 0; !st && i < rc->n_props; i++) {
        if (strncmp(rc->keys[i], "header.", 7) != 0 || !rc->keys[i][7]) continue;
        floe_buf b = FLOE_BUF_INIT;
        st = floe_buf_printf(&b, "%s: %s", rc->keys[i] + 7, rc->vals[i]);
        if (!st) st = strvec_add(&headers, floe_buf_cstr(&b));
        floe_buf_free(&b);
    }
    floe_rest_http_options ho = {
        .tls_verify = !prop_false(rc, "rest.tls-verify"),
        .ca_file = prop(rc, "rest.ca-file"),
        .headers = (const char *const *)headers.v,
        .n_headers = (size_t)headers.n,
        .max_retries = -1,
    };
    const char *rt = prop(rc, "rest.request-timeout-ms");
    if (rt) ho.request_timeout_ms = strtol(rt, NULL, 10);
    if (!st) st = floe_rest_http_new(&ho, &rc->http);
    floe_catalog_names_free(headers.v, headers.n);
    if (st) return st;
    if (!ho.tls_verify) FLOE_LOG_WARN("rest", "TLS certificate verification is off for %s (rest.tls-verify=false)",
                                      rc->root);
    floe_buf token_uri = FLOE_BUF_INIT;
    const char *tu = prop(rc, "oauth2-server-uri");
    if (!tu) {
        st = floe_buf_printf(&token_uri, "%s/v1/oauth/tokens", rc->root);
        tu = floe_buf_cstr(&token_uri);
    }
    floe_rest_auth_options ao = {
        .token = prop(rc, "token"),
        .credential = prop(rc, "credential"),
        .token_uri = tu,
        .scope = prop(rc, "scope"),
        .audience = prop(rc, "audience"),
        .resource = prop(rc, "resource"),
    };
    if (!st) st = floe_rest_auth_new(rc->http, &ao, &rc->auth);
    floe_buf_free(&token_uri);
    return st;
}

/* GET /v1/config and merge: defaults, then the client's, then overrides. */
static floe_status load_config(rest_catalog *rc) {
    floe_buf url = FLOE_BUF_INIT;
    floe_rest_response r = {0, FLOE_BUF_INIT};
    floe_status st = floe_buf_printf(&url, "%s/v1/config", rc->root);
    const char *wh = prop(rc, "warehouse");
    if (!st && wh) {
        st = floe_buf_append_str(&url, "?warehouse=");
        if (!st) st = floe_rest_url_encode(&url, wh);
    }
    call cl = {"GET", floe_buf_cstr(&url), NULL, true, NULL, 0, false};
    if (!st) st = rest_do(rc, &cl, &r);
    json_t *root = NULL;
    if (!st && !rest_ok_status(r.status))
        st = floe_status_wrap(rest_http_error(&cl, &r, FLOE_REST_OP_READ), "reading the REST catalog's configuration");
    if (!st) st = rest_response_json(&r, "GET /v1/config", &root);
    if (!st) {
        /* Rebuild the list as defaults, client, overrides. */
        char **ck = rc->keys, **cv = rc->vals;
        size_t cn = rc->n_props;
        rc->keys = rc->vals = NULL;
        rc->n_props = rc->cap_props = 0;
        json_t *defaults = json_object_get(root, "defaults");
        if (json_is_object(defaults)) st = props_add_json(rc, defaults);
        for (size_t i = 0; !st && i < cn; i++) st = prop_add(rc, ck[i], cv[i]);
        json_t *overrides = json_object_get(root, "overrides");
        if (!st && json_is_object(overrides)) st = props_add_json(rc, overrides);
        for (size_t i = 0; i < cn; i++) {
            floe_free(ck[i]);
            floe_free(cv[i]);
        }
        floe_free(ck);
        floe_free(cv);
    }
    json_decref(root);
    floe_rest_response_free(&r);
    floe_buf_free(&url);
    return st;
}

floe_status floe_catalog_open_rest(const char *uri, const floe_property *props, size_t n_props, floe_catalog **out) {
    *out = NULL;
    if (!uri || strncmp(uri, "rest:", 5) != 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' is not a rest: catalog URI", uri ? uri : "");
    rest_catalog *rc = floe_calloc(1, sizeof *rc);
    if (!rc) return oom();
    floe_catalog *c = &rc->base;
    c->ops = &REST_OPS;
    pthread_mutex_init(&rc->mu, NULL);
    floe_strmap_init(&rc->tables);
    floe_status st = (c->uri = floe_strdup(uri)) ? NULL : oom();
    if (!st) st = parse_uri(rc, uri);
    for (size_t i = 0; !st && i < n_props; i++)
        if (props[i].key && props[i].value && strcmp(props[i].key, "uri") != 0)
            st = prop_add(rc, props[i].key, props[i].value);
    if (!st) st = connect_client(rc);
    if (!st) st = load_config(rc);
    if (!st) {
        const char *prefix = prop(rc, "prefix");
        floe_buf api = FLOE_BUF_INIT;
        st = floe_buf_printf(&api, "%s/v1", rc->root);
        if (!st && prefix && *prefix) {
            /* The prefix is a path piece, possibly with '/' in it. */
            st = floe_buf_append_byte(&api, '/');
            if (!st) st = floe_buf_append_str(&api, prefix);
        }
        if (!st && !(rc->api = floe_strdup(floe_buf_cstr(&api)))) st = oom();
        floe_buf_free(&api);
    }
    if (!st) {
        const char *wh = prop(rc, "warehouse");
        size_t wl = wh ? strlen(wh) : 0;
        while (wl > 1 && wh[wl - 1] == '/') wl--;
        c->warehouse = wh ? floe_strndup(wh, wl) : floe_strdup(rc->root);
        if (!c->warehouse) st = oom();
    }
    if (!st) {
        /* The catalog's own FileIO (reading a commit's base file, register)
         * from its storage properties. */
        plist p = {0};
        for (size_t i = 0; !st && i < rc->n_props; i++)
            if (storage_key(rc->keys[i])) st = plist_set(&p, rc->keys[i], rc->vals[i]);
        floe_property *fp = st ? NULL : floe_calloc((size_t)p.k.n + 1, sizeof *fp);
        if (!st && !fp) st = oom();
        for (int32_t i = 0; !st && i < p.k.n; i++) fp[i] = (floe_property){p.k.v[i], p.v.v[i]};
        if (!st) st = floe_fileio_new(fp, (size_t)p.k.n, &c->io);
        floe_free(fp);
        plist_free(&p);
    }
    if (!st && floe_log_enabled(FLOE_LOG_DEBUG))
        floe_log_config(FLOE_LOG_DEBUG, "rest", "REST catalog properties (defaults < client < overrides)",
                        (const char *const *)rc->keys, (const char *const *)rc->vals, rc->n_props);
    if (st) {
        rest_close(c);
        /* The URI is shown redacted: a refused one may carry a password. */
        floe_buf red = FLOE_BUF_INIT;
        floe_status rst = floe_redact_url(&red, uri + 5);
        st = floe_status_wrap(st, "opening REST catalog rest:%s", rst ? "(uri)" : floe_buf_cstr(&red));
        floe_status_free(rst);
        floe_buf_free(&red);
        return st;
    }
    FLOE_LOG_INFO("rest", "opened REST catalog %s (api %s)", uri, rc->api);
    *out = c;
    return NULL;
}

static void rest_close(floe_catalog *c) {
    rest_catalog *rc = RC(c);
    floe_strmap_free_with(&rc->tables, table_free_v);
    pthread_mutex_destroy(&rc->mu);
    floe_rest_auth_free(rc->auth);
    floe_rest_http_free(rc->http);
    for (size_t i = 0; i < rc->n_props; i++) {
        /* Values may be secrets: wipe before freeing. */
        memset(rc->vals[i], 0, strlen(rc->vals[i]));
        floe_free(rc->keys[i]);
        floe_free(rc->vals[i]);
    }
    floe_free(rc->keys);
    floe_free(rc->vals);
    floe_free(rc->root);
    floe_free(rc->api);
    floe_catalog_base_free(c);
    floe_free(rc);
}

static const floe_catalog_ops REST_OPS = {
    .kind = "rest",
    .close = rest_close,
    .create_namespace = rest_create_namespace,
    .drop_namespace = rest_drop_namespace,
    .namespace_exists = rest_namespace_exists,
    .list_namespaces = rest_list_namespaces,
    .namespace_properties = rest_namespace_properties,
    .update_namespace_properties = rest_update_namespace_properties,
    .list_tables = rest_list_tables,
    .load_table = rest_load_table,
    .table_exists = rest_table_exists,
    .default_location = rest_default_location,
    .create_table = rest_create_table,
    .commit = rest_commit,
    .drop_table = rest_drop_table,
    .rename_table = rest_rename_table,
    .register_table = rest_register_table,
    .create_view = rest_create_view,
    .load_view = rest_load_view,
    .drop_view = rest_drop_view,
    .list_views = rest_list_views,
    .rename_view = rest_rename_view,
};
