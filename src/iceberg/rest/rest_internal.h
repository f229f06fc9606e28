/* rest_internal.h — what the REST catalog client's files share
 * (catalog_rest.c: namespaces, tables, opening; rest_views.c: views). */
#ifndef FLOE_ICEBERG_REST_INTERNAL_H
#define FLOE_ICEBERG_REST_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

#include "base/buffer.h"
#include "base/hashmap.h"
#include "floe/iceberg_view.h"
#include "iceberg/catalog/catalog_impl.h"
#include "iceberg/rest/rest_auth.h"
#include "iceberg/rest/rest_http.h"

/* What the catalog knows about one table it loaded. */
typedef struct rest_table {
    struct rest_catalog *cat;
    char *ns, *name;
    char *metadata_location; /* as last loaded or committed */
    char *metadata_json;     /* that metadata's text (a commit's base) */
    char *location;          /* the table's location (storage-credentials prefixes match it) */
    floe_fileio *io;         /* the table's FileIO now */
    char *io_sig;            /* its non-secret properties, to notice changes */
    floe_fileio **retired;   /* earlier FileIOs: tables handed out may use them */
    size_t n_retired;
    char *creds_id;          /* in the credential store; NULL when none */
    bool refresher_set;
} rest_table;

typedef struct rest_catalog {
    floe_catalog base;
    char *root;       /* http(s)://host[:port][/path], no trailing '/' */
    char *api;        /* root + "/v1" [+ "/" + prefix] */
    char **keys, **vals; /* merged properties; later entries win */
    size_t n_props, cap_props;
    floe_rest_http *http;
    floe_rest_auth *auth;
    pthread_mutex_t mu; /* guards tables */
    floe_strmap tables; /* "ns\x1fname" -> rest_table* */
} rest_catalog;

#define RC(c) ((rest_catalog *)(c))

typedef struct call {
    const char *method;
    const char *url;
    const char *body;
    bool idempotent;
    const char *const *headers;
    size_t n_headers;
    bool commit; /* its outcome may be unknown after a failure (rest_http.h) */
} call;

static inline floe_status rest_oom(void) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in the REST catalog");
}
static inline bool rest_ok_status(long s) { return s >= 200 && s < 300; }

/* Send a request with the current token; a 401 with an OAuth2 token
 * fetches a new one and sends the request once more. */
floe_status rest_do(rest_catalog *rc, const call *cl, floe_rest_response *resp);
/* api + "/namespaces/<ns>" [+ "/tables/<name>"] + suffix (query included). */
floe_status rest_url_of(const rest_catalog *rc, const char *ns, const char *name, const char *suffix, floe_buf *out);
/* A 2xx response body as a JSON object. */
floe_status rest_response_json(const floe_rest_response *r, const char *what, json_t **out);
/* Whether the server's error type ("NoSuchNamespaceException") contains `word`. */
bool rest_error_type_contains(const floe_rest_response *r, const char *word);
floe_status rest_http_error(const call *cl, const floe_rest_response *r, floe_rest_op op);
floe_status rest_check_name(const char *what, const char *name);
floe_status rest_ns_missing(const char *ns);
/* "a.b" -> ["a", "b"] (NULL when out of memory). */
json_t *rest_ns_array(const char *ns);
/* Every page of GET <ns>/<what>'s "identifiers", names sorted. */
floe_status rest_list_identifiers(rest_catalog *rc, const char *ns, const char *what, char ***names, int32_t *n);

/* Views (rest_views.c). */
floe_status rest_list_views(floe_catalog *c, const char *ns, char ***names, int32_t *n);
floe_status rest_load_view(floe_catalog *c, const char *ns, const char *name, floe_ice_view **out);
floe_status rest_drop_view(floe_catalog *c, const char *ns, const char *name);
floe_status rest_create_view(floe_catalog *c, const char *ns, const char *name, const char *sql,
                             const char *default_ns, const floe_ice_schema *schema, bool replace);
floe_status rest_rename_view(floe_catalog *c, const char *ns, const char *name, const char *new_ns,
                             const char *new_name);

#endif
