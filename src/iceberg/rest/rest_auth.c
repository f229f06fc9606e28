/*
 * rest_auth.c — bearer tokens for the REST catalog client (see
 * rest_auth.h): a static token, or OAuth2 client credentials
 * (RFC 6749 section 4.4) against the catalog's token endpoint.
 *
 * State is one token with its expiry and a generation number, under a
 * mutex.  A caller that finds the token missing, stale (rejected by a 401)
 * or near its expiry becomes the one fetcher (`fetching`); the others wait
 * on the condition variable for its result, so a burst of requests costs
 * one token request.  The token text is wiped from memory when replaced.
 */
#include "iceberg/rest/rest_auth.h"

#include <jansson.h>
#include <pthread.h>
#include <string.h>

#include "base/buffer.h"
#include "base/log.h"
#include "floe/memory.h"

struct floe_rest_auth {
    floe_rest_http *http; /* borrowed */
    bool oauth;
    char *static_token;
    char *client_id;     /* NULL when the credential is a bare secret */
    char *client_secret;
    char *token_uri, *scope, *audience, *resource;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *token;          /* current access token, or NULL */
    int64_t obtained_ms;  /* wall clock when fetched */
    int64_t expires_ms;   /* wall clock expiry; 0: unknown (valid until a 401) */
    uint64_t generation;  /* bumped on every new token */
    bool stale;           /* the server rejected this generation */
    bool fetching;        /* a thread is fetching; others wait */
    uint64_t fetches;
};

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in REST authentication"); }

static void wipe_free(char *s) {
    if (!s) return;
    volatile char *p = s;
    while (*p) *p++ = 0;
    floe_free(s);
}

void floe_rest_auth_value_free(char *value) { wipe_free(value); }

static floe_status dup_opt(const char *s, char **out) {
    *out = NULL;
    if (!s) return NULL;
    *out = floe_strdup(s);
    return *out ? NULL : oom();
}

floe_status floe_rest_auth_new(floe_rest_http *http, const floe_rest_auth_options *o, floe_rest_auth **out) {
    *out = NULL;
    floe_rest_auth *a = floe_calloc(1, sizeof *a);
    if (!a) return oom();
    a->http = http;
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    floe_status st = NULL;
    if (o->credential && *o->credential) {
        a->oauth = true;
        const char *colon = strchr(o->credential, ':');
        if (colon) {
            a->client_id = floe_strndup(o->credential, (size_t)(colon - o->credential));
            a->client_secret = floe_strdup(colon + 1);
            if (!a->client_id || !a->client_secret) st = oom();
        } else {
            st = dup_opt(o->credential, &a->client_secret);
        }
        if (!st && (!o->token_uri || !*o->token_uri))
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "OAuth2 client credentials need a token endpoint "
                                                       "(oauth2-server-uri)");
        if (!st) st = dup_opt(o->token_uri, &a->token_uri);
        if (!st) st = dup_opt(o->scope && *o->scope ? o->scope : "catalog", &a->scope);
        if (!st && o->audience && *o->audience) st = dup_opt(o->audience, &a->audience);
        if (!st && o->resource && *o->resource) st = dup_opt(o->resource, &a->resource);
    }
    /* A static token is used until the credential yields one (and alone
     * when there is no credential). */
    if (!st && o->token && *o->token) st = dup_opt(o->token, &a->static_token);
    if (!st && a->static_token) {
        st = dup_opt(a->static_token, &a->token);
        a->generation = 1;
    }
    if (st) {
        floe_rest_auth_free(a);
        return st;
    }
    *out = a;
    return NULL;
}

void floe_rest_auth_free(floe_rest_auth *a) {
    if (!a) return;
    wipe_free(a->static_token);
    wipe_free(a->client_secret);
    wipe_free(a->token);
    floe_free(a->client_id);
    floe_free(a->token_uri);
    floe_free(a->scope);
    floe_free(a->audience);
    floe_free(a->resource);
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    floe_free(a);
}

uint64_t floe_rest_auth_fetches(const floe_rest_auth *a) {
    floe_rest_auth *m = (floe_rest_auth *)a;
    pthread_mutex_lock(&m->mu);
    uint64_t n = m->fetches;
    pthread_mutex_unlock(&m->mu);
    return n;
}

/* ---- the token endpoint -------------------------------------------------------- */

static floe_status form_field(floe_buf *b, const char *name, const char *value) {
    if (!value) return NULL;
    if (b->len) FLOE_TRY(floe_buf_append_byte(b, '&'));
    FLOE_TRY(floe_buf_append_str(b, name));
    FLOE_TRY(floe_buf_append_byte(b, '='));
    return floe_rest_url_encode(b, value);
}

/* An OAuth2 error answer: {"error": "invalid_client", "error_description": ...}
 * (or the REST error model, which some servers use here too). */
static floe_status token_refused(const floe_rest_auth *a, const floe_rest_response *r) {
    json_t *root = json_loads(floe_buf_cstr(&r->body), 0, NULL);
    const char *err = NULL, *desc = NULL;
    if (root) {
        json_t *e = json_object_get(root, "error");
        if (json_is_string(e)) {
            err = json_string_value(e);
            desc = json_string_value(json_object_get(root, "error_description"));
        } else if (json_is_object(e)) {
            err = json_string_value(json_object_get(e, "type"));
            desc = json_string_value(json_object_get(e, "message"));
        }
    }
    floe_code code = (r->status == 400 || r->status == 401 || r->status == 403) ? FLOE_ERR_AUTH : FLOE_ERR_IO;
    floe_status st = floe_error(code, "OAuth2 token request for client '%s' to %s was refused (%ld)%s%s%s%s",
                                a->client_id ? a->client_id : "(secret only)", a->token_uri, r->status,
                                err ? ": " : "", err ? err : "", desc ? ": " : "", desc ? desc : "");
    json_decref(root);
    return st;
}

/* POST the client credentials; on success *token, *expires_in_s (-1:
 * not given). */
static floe_status fetch_token(floe_rest_auth *a, char **token, int64_t *expires_in_s) {
    *token = NULL;
    *expires_in_s = -1;
    floe_buf form = FLOE_BUF_INIT;
    floe_status st = form_field(&form, "grant_type", "client_credentials");
    if (!st) st = form_field(&form, "client_id", a->client_id);
    if (!st) st = form_field(&form, "client_secret", a->client_secret);
    if (!st) st = form_field(&form, "scope", a->scope);
    if (!st) st = form_field(&form, "audience", a->audience);
    if (!st) st = form_field(&form, "resource", a->resource);
    floe_rest_response r = {0, FLOE_BUF_INIT};
    if (!st) {
        floe_rest_request rq = {
            .method = "POST",
            .url = a->token_uri,
            .body = floe_buf_cstr(&form),
            .content_type = "application/x-www-form-urlencoded",
            .body_is_secret = true,
            /* A token request changes nothing on the server. */
            .idempotent = true,
        };
        st = floe_rest_http_do(a->http, &rq, &r);
    }
    if (form.data) memset(form.data, 0, form.len);
    floe_buf_free(&form);
    if (!st && r.status != 200) st = token_refused(a, &r);
    json_t *root = NULL;
    if (!st) {
        root = json_loads(floe_buf_cstr(&r.body), 0, NULL);
        const char *tok = root ? json_string_value(json_object_get(root, "access_token")) : NULL;
        if (!tok || !*tok) {
            st = floe_error(FLOE_ERR_AUTH, "OAuth2 token endpoint %s answered without an access_token", a->token_uri);
        } else {
            json_t *ei = json_object_get(root, "expires_in");
            if (json_is_integer(ei)) *expires_in_s = json_integer_value(ei);
            else if (json_is_real(ei)) *expires_in_s = (int64_t)json_real_value(ei);
            else if (json_is_string(ei)) *expires_in_s = strtoll(json_string_value(ei), NULL, 10);
            *token = floe_strdup(tok);
            if (!*token) st = oom();
        }
    }
    if (r.body.data) memset(r.body.data, 0, r.body.len);
    floe_rest_response_free(&r);
    json_decref(root);
    return st;
}

/* ---- handing out tokens ---------------------------------------------------------- */

/* Does the current token need replacing now?  Caller holds mu. */
static bool needs_fetch_locked(const floe_rest_auth *a, int64_t now) {
    if (!a->oauth) return false;
    if (!a->token || a->stale) return true;
    if (a->expires_ms <= 0) return false;
    int64_t lifetime = a->expires_ms - a->obtained_ms;
    int64_t margin = lifetime / 5;
    if (margin < 1000) margin = 1000;
    return a->expires_ms - now < margin;
}

static bool usable_locked(const floe_rest_auth *a, int64_t now) {
    return a->token && !a->stale && (a->expires_ms <= 0 || now < a->expires_ms);
}

floe_status floe_rest_auth_bearer(floe_rest_auth *a, char **value, uint64_t *generation) {
    *value = NULL;
    *generation = 0;
    floe_status st = NULL;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        int64_t now = floe_rest_now_ms();
        if (!needs_fetch_locked(a, now)) break;
        if (a->fetching) {
            /* Another thread is fetching: use what it gets, even when a
             * very short lifetime makes that token "near expiry" at once
             * (else every waiter would fetch again, one after another). */
            uint64_t before = a->generation;
            while (a->fetching) pthread_cond_wait(&a->cv, &a->mu);
            if (a->generation != before && usable_locked(a, floe_rest_now_ms())) break;
            continue;
        }
        /* This thread fetches; the lock is not held over the request. */
        a->fetching = true;
        bool first = a->fetches == 0;
        pthread_mutex_unlock(&a->mu);
        char *tok = NULL;
        int64_t expires_in = -1;
        floe_status fst = fetch_token(a, &tok, &expires_in);
        pthread_mutex_lock(&a->mu);
        a->fetching = false;
        pthread_cond_broadcast(&a->cv);
        if (fst) {
            /* A refresh ahead of expiry may fail and the old token still
             * serve; otherwise the caller gets the error. */
            if (usable_locked(a, floe_rest_now_ms())) {
                FLOE_LOG_WARN("rest", "OAuth2 token refresh failed, using the current token until it expires: %s",
                              floe_status_message(fst));
                floe_status_free(fst);
                break;
            }
            st = fst;
            break;
        }
        wipe_free(a->token);
        a->token = tok;
        a->obtained_ms = floe_rest_now_ms();
        a->expires_ms = expires_in > 0 ? a->obtained_ms + expires_in * 1000 : 0;
        a->stale = false;
        a->generation++;
        a->fetches++;
        if (expires_in > 0)
            FLOE_LOG_INFO("rest", "OAuth2 token %s for client '%s' from %s (expires in %lld s)",
                          first ? "obtained" : "refreshed", a->client_id ? a->client_id : "(secret only)",
                          a->token_uri, (long long)expires_in);
        else
            FLOE_LOG_INFO("rest", "OAuth2 token %s for client '%s' from %s (no expiry given)",
                          first ? "obtained" : "refreshed", a->client_id ? a->client_id : "(secret only)",
                          a->token_uri);
        break;
    }
    if (!st && a->token) {
        size_t n = strlen(a->token) + 8;
        *value = floe_malloc(n);
        if (!*value) st = oom();
        else {
            memcpy(*value, "Bearer ", 7);
            memcpy(*value + 7, a->token, n - 7);
            *generation = a->generation;
        }
    }
    pthread_mutex_unlock(&a->mu);
    return st;
}

bool floe_rest_auth_rejected(floe_rest_auth *a, uint64_t generation) {
    if (!a->oauth) return false;
    pthread_mutex_lock(&a->mu);
    if (a->generation == generation) a->stale = true;
    pthread_mutex_unlock(&a->mu);
    return true;
}
