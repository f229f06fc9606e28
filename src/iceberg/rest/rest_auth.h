/*
 * rest_auth.h — authentication of the REST catalog client: a static
 * bearer token, or OAuth2 client credentials whose token is fetched from
 * the token endpoint and kept fresh.
 *
 * A token with a known lifetime (the endpoint's expires_in) is refreshed
 * when less than max(1 s, a fifth of its lifetime) remains, so a request
 * never goes out with a token about to lapse.  Refreshing is single
 * flight: one thread fetches, the others wait for its result.  A request
 * answered 401 calls floe_rest_auth_rejected with the generation of the
 * token it used; the next floe_rest_auth_bearer then fetches a new token
 * (once per generation, however many requests saw the 401), and the
 * request is sent again.  Each fetch is logged at info level, never the
 * token or the secret.
 */
#ifndef FLOE_ICEBERG_REST_AUTH_H
#define FLOE_ICEBERG_REST_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/status.h"
#include "iceberg/rest/rest_http.h"

typedef struct floe_rest_auth floe_rest_auth;

typedef struct floe_rest_auth_options {
    const char *token;       /* a static bearer token (NULL: none) */
    const char *credential;  /* "client_id:client_secret" or "client_secret" (NULL: none) */
    const char *token_uri;   /* the OAuth2 token endpoint (required with a credential) */
    const char *scope;       /* NULL: "catalog" */
    const char *audience;    /* optional */
    const char *resource;    /* optional */
} floe_rest_auth_options;

/* `http` is borrowed and must outlive the object.  Neither a token nor a
 * credential: requests go without Authorization. */
floe_status floe_rest_auth_new(floe_rest_http *http, const floe_rest_auth_options *o,
                               floe_rest_auth **out) FLOE_WARN_UNUSED;
void floe_rest_auth_free(floe_rest_auth *a); /* NULL-safe */

/* "Bearer <token>" (floe_malloc'd; the caller wipes and frees it with
 * floe_rest_auth_value_free), or NULL without authentication; fetches or
 * refreshes the token when needed.  *generation identifies the token for
 * floe_rest_auth_rejected. */
floe_status floe_rest_auth_bearer(floe_rest_auth *a, char **value, uint64_t *generation) FLOE_WARN_UNUSED;
void floe_rest_auth_value_free(char *value);

/* The server answered 401 to a request made with token `generation`:
 * returns true when a new token can be tried (OAuth2), marking that one
 * stale; false for a static token or none. */
bool floe_rest_auth_rejected(floe_rest_auth *a, uint64_t generation);

/* Tokens fetched so far (for tests). */
uint64_t floe_rest_auth_fetches(const floe_rest_auth *a);

#endif
