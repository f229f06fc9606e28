/*
 * rest_server.h — `floe rest-server`: the Iceberg REST catalog protocol
 * (apache/iceberg open-api/rest-catalog-open-api.yaml) served from floe's
 * SQLite catalog over libmicrohttpd.
 *
 * The pieces, one file each:
 *   server.c      the command: options, the daemon's life, signals
 *   http.c        libmicrohttpd plumbing: request bodies, routing, the
 *                 JSON responses and the error model
 *   auth.c        the OAuth2 token endpoint and bearer-token checks
 *   namespaces.c  namespace handlers
 *   tables.c      table handlers (list, create, load, commit, drop,
 *                 rename, register)
 *   vend.c        vended storage credentials (and their endpoint)
 *
 * Paths are served without a prefix (GET /v1/config names none), so every
 * catalog route is /v1/namespaces/...  or /v1/tables/rename.  Each request
 * runs on its own connection thread (libmicrohttpd's thread per
 * connection); the catalog is safe to share between threads, and the token
 * store has its own lock, so handlers need no other synchronisation.
 */
#ifndef FLOE_CLI_REST_SERVER_H
#define FLOE_CLI_REST_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <microhttpd.h>

#include "base/buffer.h"
#include "floe/catalog.h"
#include "floe/status.h"

typedef struct rs_token_store rs_token_store;

/* What the server was started with; read-only while it runs. */
typedef struct rs_server {
    floe_catalog *catalog;
    /* OAuth2: with client_id set, every /v1 route but the token endpoint
     * needs a valid bearer token. */
    char *client_id;
    char *client_secret;
    int64_t token_lifetime_s;
    rs_token_store *tokens;
    /* --vend key=value pairs: vend_kv[2i] key, vend_kv[2i+1] value. */
    char **vend_kv;
    int32_t n_vend;
    int64_t credential_lifetime_s;
} rs_server;

/* One request, as the handlers see it. */
typedef struct rs_request {
    rs_server *srv;
    struct MHD_Connection *conn;
    const char *method;      /* "GET", "POST", "HEAD", "DELETE", ... */
    char **segs;             /* decoded path segments after "/v1" */
    int n_segs;
    const char *body;        /* NUL-terminated; "" when none */
    size_t body_len;
} rs_request;

/* What a handler answers: a status and a JSON body (empty for 204). */
typedef struct rs_response {
    unsigned status;
    floe_buf body;
    const char *content_type; /* NULL: application/json */
} rs_response;

/* ---- http.c: responses and request helpers ------------------------------ */

/* The Iceberg error model {"error": {"message", "type", "code"}}. */
void rs_error(rs_response *rs, unsigned code, const char *type, const char *fmt, ...) FLOE_PRINTF(4, 5);
/* An error response for a failed floe call, mapped by its code:
 * NOT_FOUND -> 404 `not_found_type`, ALREADY_EXISTS -> 409
 * AlreadyExistsException, CONFLICT -> 409 `conflict_type`, bad input ->
 * 400, UNSUPPORTED -> 406, anything else -> 500.  Frees st. */
void rs_error_status(rs_response *rs, floe_status st, const char *not_found_type, const char *conflict_type);
/* Answer `status` with the JSON `j` as body (the reference is stolen; NULL,
 * as from a failed json_pack, answers 500 out of memory). */
void rs_json(rs_response *rs, unsigned status, json_t *j);
/* 204 No Content. */
void rs_no_content(rs_response *rs);

/* Parse the request body as a JSON object; on failure answers 400 naming
 * `what` (the request type) and returns NULL. */
json_t *rs_body_object(rs_request *rq, rs_response *rs, const char *what);
/* A query argument, percent-decoded (floe_malloc'd), or NULL when absent. */
char *rs_query_arg(rs_request *rq, const char *key);
/* A request header's value (not copied), or NULL. */
const char *rs_header(rs_request *rq, const char *name);
/* Percent-decode `n` bytes of `s` into a new string; '+' becomes ' ' when
 * form is true.  NULL on a bad escape or an embedded NUL. */
char *rs_percent_decode(const char *s, size_t n, bool form);

/* A namespace path segment (levels joined by 0x1F) as floe's one-level
 * name; answers 400 and returns false for an empty, multi-level or
 * unusable name. */
bool rs_namespace_name(rs_response *rs, const char *seg);
/* The same for a JSON namespace array ["db"]; *out points into `arr`. */
bool rs_namespace_array(rs_response *rs, json_t *arr, const char *what, const char **out);
/* A table name usable as a directory name; else answers 400. */
bool rs_table_name(rs_response *rs, const char *name);
/* {key: value, ...} of pairs kv[2i], kv[2i+1] (NULL on out of memory). */
json_t *rs_pairs_object(char *const *kv, int32_t n_pairs);

/* The libmicrohttpd access handler and completion callback (server.c
 * passes them to MHD_start_daemon). */
enum MHD_Result rs_http_handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size,
                               void **con_cls);
void rs_http_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                       enum MHD_RequestTerminationCode toe);
/* libmicrohttpd's unescape hook: leave the URL as sent, so that an
 * escaped '/' in a name does not split a path segment. */
size_t rs_http_no_unescape(void *cls, struct MHD_Connection *conn, char *uri);

/* ---- auth.c ------------------------------------------------------------- */

floe_status rs_tokens_new(rs_token_store **out) FLOE_WARN_UNUSED;
void rs_tokens_free(rs_token_store *ts);
/* POST /v1/oauth/tokens. */
void rs_handle_oauth_tokens(rs_request *rq, rs_response *rs);
/* When the server requires tokens: true if the request carries a valid,
 * unexpired bearer token; otherwise answers 401, logs why and returns false. */
bool rs_auth_check(rs_request *rq, rs_response *rs);

/* ---- namespaces.c ------------------------------------------------------- */

void rs_handle_list_namespaces(rs_request *rq, rs_response *rs);
void rs_handle_create_namespace(rs_request *rq, rs_response *rs);
void rs_handle_load_namespace(rs_request *rq, rs_response *rs, const char *ns);
void rs_handle_namespace_exists(rs_request *rq, rs_response *rs, const char *ns);
void rs_handle_drop_namespace(rs_request *rq, rs_response *rs, const char *ns);
void rs_handle_update_namespace_properties(rs_request *rq, rs_response *rs, const char *ns);
/* Answers 404 NoSuchNamespaceException and returns false when `ns` does
 * not exist (or 500 when the catalog fails). */
bool rs_require_namespace(rs_request *rq, rs_response *rs, const char *ns);

/* ---- views.c (see there) -------------------------------------------------- */

void rs_handle_rename_view(rs_request *rq, rs_response *rs);
void rs_handle_list_views(rs_request *rq, rs_response *rs, const char *ns);
void rs_handle_create_view(rs_request *rq, rs_response *rs, const char *ns);
void rs_handle_load_view(rs_request *rq, rs_response *rs, const char *ns, const char *name);
void rs_handle_replace_view(rs_request *rq, rs_response *rs, const char *ns, const char *name);
void rs_handle_drop_view(rs_request *rq, rs_response *rs, const char *ns, const char *name);

/* ---- tables.c ----------------------------------------------------------- */

void rs_handle_list_tables(rs_request *rq, rs_response *rs, const char *ns);
void rs_handle_create_table(rs_request *rq, rs_response *rs, const char *ns);
void rs_handle_load_table(rs_request *rq, rs_response *rs, const char *ns, const char *name);
void rs_handle_table_exists(rs_request *rq, rs_response *rs, const char *ns, const char *name);
void rs_handle_commit_table(rs_request *rq, rs_response *rs, const char *ns, const char *name);
void rs_handle_drop_table(rs_request *rq, rs_response *rs, const char *ns, const char *name);
void rs_handle_rename_table(rs_request *rq, rs_response *rs);
/* A RenameTableRequest's {namespace: [ns], name} -> ns, name (pointing
 * into j); else a 400 is set and false returned. */
bool rs_identifier(rs_response *rs, json_t *j, const char *what, const char **ns, const char **name);
void rs_handle_register_table(rs_request *rq, rs_response *rs, const char *ns);

/* ---- vend.c ------------------------------------------------------------- */

/* The LoadTableResult "config" object: the vended credentials with a
 * fresh expiry when the server vends, else {}.  NULL on out of memory. */
json_t *rs_vend_config(const rs_server *srv);
/* The "storage-credentials" array: one entry {prefix: location, config:
 * a copy of `config`} when the server vends, else empty.  NULL on out of
 * memory. */
json_t *rs_vend_storage_credentials(const rs_server *srv, const char *location, json_t *config);
/* GET /v1/namespaces/{ns}/tables/{t}/credentials. */
void rs_handle_table_credentials(rs_request *rq, rs_response *rs, const char *ns, const char *name);

#endif
