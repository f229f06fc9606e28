/*
 * auth.c — the REST server's OAuth2 side: the token endpoint
 * (POST /v1/oauth/tokens, client credentials and token exchange) and the
 * bearer-token check every other route passes when the server was started
 * with --client-id/--client-secret.
 *
 * Tokens are 32 random bytes (getrandom) written as 64 hex digits.  The
 * store keeps only their SHA-256, so a token never sits in memory after it
 * is sent and a lookup reveals nothing by its timing; with each hash the
 * client it was issued to and when it expires.  Expired tokens are kept
 * for an hour so that a late request is told "expired" rather than
 * "invalid", then pruned.
 *
 * Logged (stderr, through base/log.h): every token issued as
 * `token issued client=ID expires_in=N` and every refusal as
 * `401 expired token` / `401 invalid token` / `401 missing token` — never
 * a token or a secret.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "base/hashmap.h"
#include "base/log.h"
#include "cli/rest_server/rest_server.h"
#include "floe/memory.h"

#define TOKEN_BYTES 32
#define KEEP_EXPIRED_MS (3600 * 1000LL)
#define PRUNE_EVERY 256

typedef struct token_entry {
    int64_t expires_ms; /* CLOCK_MONOTONIC */
    char client[];      /* who it was issued to */
} token_entry;

struct rs_token_store {
    pthread_mutex_t mu;
    floe_strmap by_hash; /* hex SHA-256 of the token -> token_entry* */
    unsigned issued_since_prune;
};

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

floe_status rs_tokens_new(rs_token_store **out) {
    rs_token_store *ts = floe_calloc(1, sizeof *ts);
    if (!ts) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    pthread_mutex_init(&ts->mu, NULL);
    floe_strmap_init(&ts->by_hash);
    *out = ts;
    return NULL;
}

void rs_tokens_free(rs_token_store *ts) {
    if (!ts) return;
    floe_strmap_free_with(&ts->by_hash, floe_free);
    pthread_mutex_destroy(&ts->mu);
    floe_free(ts);
}

static void hex(const unsigned char *p, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

/* hex(SHA-256(token)) into out[65]. */
static bool token_hash(const char *token, size_t len, char out[65]) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(token, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) return false;
    hex(md, 32, out);
    return true;
}

/* Drop entries expired more than KEEP_EXPIRED_MS ago: collect their keys
 * first (removing while iterating may move entries).  Caller holds mu. */
static void prune_locked(rs_token_store *ts) {
    int64_t cutoff = now_ms() - KEEP_EXPIRED_MS;
    size_t n = 0, it = 0;
    floe_str k;
    void *v;
    char(*keys)[65] = floe_malloc_array(ts->by_hash.size ? ts->by_hash.size : 1, sizeof *keys);
    if (!keys) return; /* try again next time */
    while (floe_strmap_next(&ts->by_hash, &it, &k, &v))
        if (((token_entry *)v)->expires_ms < cutoff && k.len == 64) {
            memcpy(keys[n], k.ptr, 64);
            keys[n++][64] = '\0';
        }
    for (size_t i = 0; i < n; i++) {
        void *old = NULL;
        floe_strmap_remove_c(&ts->by_hash, keys[i], &old);
        floe_free(old);
    }
    floe_free(keys);
}

/* A new token for `client`, valid for lifetime_s seconds, in out[65]. */
static floe_status issue(rs_token_store *ts, const char *client, int64_t lifetime_s, char out[2 * TOKEN_BYTES + 1]) {
    unsigned char raw[TOKEN_BYTES];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return floe_error(FLOE_ERR_IO, "getrandom failed: %s", strerror(errno));
        got += (size_t)n;
    }
    hex(raw, sizeof raw, out);
    char h[65];
    if (!token_hash(out, 2 * TOKEN_BYTES, h)) return floe_error(FLOE_ERR_INTERNAL, "SHA-256 failed");
    size_t cl = strlen(client);
    token_entry *e = floe_malloc(sizeof *e + cl + 1);
    if (!e) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory");
    e->expires_ms = now_ms() + lifetime_s * 1000;
    memcpy(e->client, client, cl + 1);
    pthread_mutex_lock(&ts->mu);
    if (++ts->issued_since_prune >= PRUNE_EVERY) {
        ts->issued_since_prune = 0;
        prune_locked(ts);
    }
    void *old = NULL;
    floe_status st = floe_strmap_put_c(&ts->by_hash, h, e, &old);
    pthread_mutex_unlock(&ts->mu);
    floe_free(old);
    if (st) floe_free(e);
    return st;
}

typedef enum { TOKEN_OK, TOKEN_EXPIRED, TOKEN_UNKNOWN } token_state;

/* Look a token up; *client (may be NULL) gets a copy of its client id. */
static token_state lookup(rs_token_store *ts, const char *token, size_t len, char **client) {
    char h[65];
    if (!token_hash(token, len, h)) return TOKEN_UNKNOWN;
    token_state s = TOKEN_UNKNOWN;
    pthread_mutex_lock(&ts->mu);
    token_entry *e = floe_strmap_get_c(&ts->by_hash, h);
    if (e) {
        s = e->expires_ms > now_ms() ? TOKEN_OK : TOKEN_EXPIRED;
        if (client) *client = floe_strdup(e->client);
    }
    pthread_mutex_unlock(&ts->mu);
    return s;
}

/* ---- the token endpoint ----------------------------------------------------- */

/* An OAuth2 error response (RFC 6749 5.2), as the spec's OAuthError. */
static void oauth_error(rs_response *rs, unsigned status, const char *error, const char *description) {
    rs_json(rs, status, json_pack("{s:s,s:s}", "error", error, "error_description", description));
}

/* One value of an application/x-www-form-urlencoded body (floe_malloc'd),
 * or NULL when absent or badly escaped. */
static char *form_value(const char *body, size_t len, const char *key) {
    size_t kl = strlen(key);
    const char *p = body, *end = body + len;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *pe = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(pe - p));
        if (eq) {
            char *k = rs_percent_decode(p, (size_t)(eq - p), true);
            bool match = k && strlen(k) == kl && memcmp(k, key, kl) == 0;
            floe_free(k);
            if (match) return rs_percent_decode(eq + 1, (size_t)(pe - eq - 1), true);
        }
        p = pe + 1;
    }
    return NULL;
}

/* Equal strings, compared in time independent of where they differ. */
static bool secret_equal(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la != lb) return false;
    return CRYPTO_memcmp(a, b, la) == 0;
}

/* client_id and client_secret from "Authorization: Basic base64(id:secret)". */
static void basic_credentials(rs_request *rq, char **id, char **secret) {
    const char *auth = rs_header(rq, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!auth || strncasecmp(auth, "Basic ", 6) != 0) return;
    const char *b64 = auth + 6;
    while (*b64 == ' ') b64++;
    size_t n = strlen(b64);
    if (n == 0 || n % 4 || n > 4096) return;
    unsigned char *dec = floe_malloc(n / 4 * 3 + 1);
    if (!dec) return;
    int dl = EVP_DecodeBlock(dec, (const unsigned char *)b64, (int)n);
    if (dl < 0) {
        floe_free(dec);
        return;
    }
    while (dl > 0 && n >= 1 && b64[n - 1] == '=') dl--, n--; /* padding decodes to NULs */
    dec[dl] = '\0';
    char *colon = memchr(dec, ':', (size_t)dl);
    if (colon && !memchr(dec, '\0', (size_t)dl)) {
        *colon = '\0';
        char *i = rs_percent_decode((char *)dec, strlen((char *)dec), true);
        char *s = rs_percent_decode(colon + 1, strlen(colon + 1), true);
        if (i && s) {
            *id = i;
            *secret = s;
        } else {
            floe_free(i);
            floe_free(s);
        }
    }
    floe_free(dec);
}

static void answer_token(rs_request *rq, rs_response *rs, const char *client) {
    char token[2 * TOKEN_BYTES + 1];
    floe_status st = issue(rq->srv->tokens, client, rq->srv->token_lifetime_s, token);
    if (st) {
        oauth_error(rs, 500, "server_error", floe_status_message(st));
        floe_status_free(st);
        return;
    }
    FLOE_LOG_INFO("rest-server", "token issued client=%s expires_in=%lld", client,
                  (long long)rq->srv->token_lifetime_s);
    rs_json(rs, 200,
            json_pack("{s:s,s:s,s:I,s:s}", "access_token", token, "token_type", "bearer", "expires_in",
                      (json_int_t)rq->srv->token_lifetime_s, "issued_token_type",
                      "urn:ietf:params:oauth:token-type:access_token"));
    OPENSSL_cleanse(token, sizeof token);
}

/* grant_type=client_credentials: client_id/client_secret in the form or
 * in HTTP Basic auth. */
static void client_credentials(rs_request *rq, rs_response *rs) {
    const rs_server *srv = rq->srv;
    char *id = form_value(rq->body, rq->body_len, "client_id");
    char *secret = form_value(rq->body, rq->body_len, "client_secret");
    if (!id || !secret) {
        floe_free(id);
        floe_free(secret);
        id = secret = NULL;
        basic_credentials(rq, &id, &secret);
    }
    if (srv->client_id) {
        if (!id || !secret) {
            FLOE_LOG_INFO("rest-server", "401 token request without client credentials");
            oauth_error(rs, 401, "invalid_client", "client_id and client_secret are required");
        } else if (!secret_equal(id, srv->client_id) || !secret_equal(secret, srv->client_secret)) {
            FLOE_LOG_INFO("rest-server", "401 invalid client credentials client=%s", id);
            oauth_error(rs, 401, "invalid_client", "unknown client or wrong secret");
        } else {
            answer_token(rq, rs, id);
        }
    } else {
        /* No authentication configured: anyone gets a token. */
        answer_token(rq, rs, id && *id ? id : "anonymous");
    }
    floe_free(id);
    if (secret) OPENSSL_cleanse(secret, strlen(secret));
    floe_free(secret);
}

/* grant_type=token-exchange with subject_token = a token this server
 * issued and that is still valid: a fresh token for the same client. */
static void token_exchange(rs_request *rq, rs_response *rs) {
    char *subject = form_value(rq->body, rq->body_len, "subject_token");
    if (!subject) {
        oauth_error(rs, 400, "invalid_request", "token exchange needs subject_token");
        return;
    }
    char *client = NULL;
    token_state s = lookup(rq->srv->tokens, subject, strlen(subject), &client);
    OPENSSL_cleanse(subject, strlen(subject));
    floe_free(subject);
    if (s == TOKEN_OK && client) {
        answer_token(rq, rs, client);
    } else {
        FLOE_LOG_INFO("rest-server", "401 %s token", s == TOKEN_EXPIRED ? "expired" : "invalid");
        oauth_error(rs, 401, "invalid_grant", s == TOKEN_EXPIRED ? "the subject token has expired"
                                                                   : "the subject token is not valid");
    }
    floe_free(client);
}

void rs_handle_oauth_tokens(rs_request *rq, rs_response *rs) {
    char *grant = form_value(rq->body, rq->body_len, "grant_type");
    if (!grant) {
        oauth_error(rs, 400, "invalid_request",
                    "grant_type is required (an application/x-www-form-urlencoded body)");
    } else if (strcmp(grant, "client_credentials") == 0) {
        client_credentials(rq, rs);
    } else if (strcmp(grant, "urn:ietf:params:oauth:grant-type:token-exchange") == 0) {
        token_exchange(rq, rs);
    } else {
        oauth_error(rs, 400, "unsupported_grant_type", "grant_type must be client_credentials or token-exchange");
    }
    floe_free(grant);
}

/* ---- the bearer check ---------------------------------------------------------- */

bool rs_auth_check(rs_request *rq, rs_response *rs) {
    const char *auth = rs_header(rq, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0) {
        FLOE_LOG_INFO("rest-server", "401 missing token");
        rs_error(rs, 401, "NotAuthorizedException", "a bearer token is required (POST /v1/oauth/tokens)");
        return false;
    }
    const char *tok = auth + 7;
    while (*tok == ' ') tok++;
    size_t n = strlen(tok);
    while (n && tok[n - 1] == ' ') n--;
    token_state s = lookup(rq->srv->tokens, tok, n, NULL);
    if (s == TOKEN_OK) return true;
    if (s == TOKEN_EXPIRED) {
        FLOE_LOG_INFO("rest-server", "401 expired token");
        rs_error(rs, 401, "NotAuthorizedException", "the bearer token has expired");
    } else {
        FLOE_LOG_INFO("rest-server", "401 invalid token");
        rs_error(rs, 401, "NotAuthorizedException", "the bearer token is not valid");
    }
    return false;
}
