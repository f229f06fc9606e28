/*
 * rest_http.h — the HTTP side of the Iceberg REST catalog client
 * (catalog_rest.c): one request/response exchange over libcurl, retries of
 * idempotent requests, and the REST error model turned into floe_status.
 *
 * Requests carry JSON (or a form, for the OAuth2 token endpoint); the
 * response body is collected whole.  Transport failures and 5xx answers to
 * idempotent requests (GET, HEAD) are retried with a jittered exponential
 * backoff; anything else is returned to the caller as the status code and
 * body, to be judged by floe_rest_error.
 *
 * Secrets: the Authorization header and form bodies go only into curl.
 * With FLOE_LOG=debug every request is logged through floe_log_http_request
 * and every JSON body through floe_log_json, which redact them; TLS is
 * verified unless the catalog says rest.tls-verify=false.
 */
#ifndef FLOE_ICEBERG_REST_HTTP_H
#define FLOE_ICEBERG_REST_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/status.h"

typedef struct floe_rest_http floe_rest_http;

typedef struct floe_rest_http_options {
    bool tls_verify;           /* verify the server's certificate and name */
    const char *ca_file;       /* CA bundle (NULL: the system's) */
    const char *const *headers; /* extra "Name: value" lines on every request */
    size_t n_headers;
    long connect_timeout_ms;   /* 0: 10 s */
    long request_timeout_ms;   /* one attempt; 0: 120 s */
    int max_retries;           /* retries of idempotent requests; < 0: 3 */
    long retry_min_wait_ms;    /* 0: 100 */
    long retry_max_wait_ms;    /* 0: 2000 */
} floe_rest_http_options;

floe_status floe_rest_http_new(const floe_rest_http_options *opts, floe_rest_http **out) FLOE_WARN_UNUSED;
void floe_rest_http_free(floe_rest_http *h); /* NULL-safe */

typedef struct floe_rest_request {
    const char *method;        /* "GET", "HEAD", "POST", "DELETE" */
    const char *url;           /* complete, query included */
    const char *body;          /* NULL: none */
    const char *content_type;  /* with a body; NULL: application/json */
    bool body_is_secret;       /* never log the body (the token form) */
    const char *authorization; /* "Bearer ..." (a secret) or NULL */
    const char *const *headers; /* extra "Name: value" lines for this request */
    size_t n_headers;
    bool idempotent;           /* may be retried on 5xx / transport errors */
    bool commit;               /* a transport failure once the request may have
                                * reached the server is FLOE_ERR_COMMIT_UNKNOWN */
} floe_rest_request;

typedef struct floe_rest_response {
    long status;               /* HTTP status */
    floe_buf body;             /* NUL-terminated (floe_buf_cstr) */
} floe_rest_response;

/* Send `rq` and collect the answer in *resp (free with
 * floe_rest_response_free, also after an error).  An error is a transport
 * failure after the retries (FLOE_ERR_IO / FLOE_ERR_TIMEOUT naming the
 * method and the redacted URL); any HTTP status is a success here. */
floe_status floe_rest_http_do(floe_rest_http *h, const floe_rest_request *rq,
                              floe_rest_response *resp) FLOE_WARN_UNUSED;
void floe_rest_response_free(floe_rest_response *resp);

/* What an operation was, for the error model: a 409 means "already
 * exists" for a create and "conflict" (retry) for a commit, and a 5xx on a
 * commit means its outcome is unknown. */
typedef enum floe_rest_op {
    FLOE_REST_OP_READ,
    FLOE_REST_OP_CREATE,
    FLOE_REST_OP_COMMIT,
    FLOE_REST_OP_DROP
} floe_rest_op;

/* The floe_status for an error response (status >= 300): 404 ->
 * FLOE_ERR_NOT_FOUND, 409 -> FLOE_ERR_ALREADY_EXISTS (create) or
 * FLOE_ERR_CONFLICT (others), 401/403 -> FLOE_ERR_AUTH, 400/422 ->
 * FLOE_ERR_INVALID_ARGUMENT, 5xx on a commit -> FLOE_ERR_IO "commit state
 * unknown", else FLOE_ERR_IO.  The message names the method, the redacted
 * URL and the server's error message and type. */
floe_status floe_rest_error(const char *method, const char *url, long status, const char *body,
                            floe_rest_op op) FLOE_WARN_UNUSED;

/* Append `s` percent-encoded for a URL path segment or query value
 * (unreserved characters kept). */
floe_status floe_rest_url_encode(floe_buf *out, const char *s) FLOE_WARN_UNUSED;

/* Milliseconds since the epoch / a monotonic clock. */
int64_t floe_rest_now_ms(void);
int64_t floe_rest_mono_ms(void);

#endif
