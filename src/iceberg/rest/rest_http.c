/*
 * rest_http.c — HTTP exchanges of the REST catalog client over libcurl
 * (see rest_http.h).
 *
 * curl easy handles are kept in a small idle pool so that consecutive
 * requests reuse their connection; a handle is used by one thread at a
 * time.  Nothing secret is ever logged: the URL and headers go through
 * floe_log_http_request, JSON bodies through floe_log_json, and the
 * Authorization header is never shown at all.
 */
#include "iceberg/rest/rest_http.h"

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "base/log.h"
#include "base/redact.h"
#include "floe/memory.h"

#define MAX_IDLE 16

struct floe_rest_http {
    floe_rest_http_options o;
    char *ca_file;
    char **headers;
    size_t n_headers;
    pthread_mutex_t mu; /* guards idle */
    CURL *idle[MAX_IDLE];
    size_t n_idle;
};

static pthread_once_t g_curl_once = PTHREAD_ONCE_INIT;
static CURLcode g_curl_init;
static void curl_init_once(void) { g_curl_init = curl_global_init(CURL_GLOBAL_DEFAULT); }

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in the REST client"); }

int64_t floe_rest_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t floe_rest_mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

floe_status floe_rest_http_new(const floe_rest_http_options *opts, floe_rest_http **out) {
    *out = NULL;
    pthread_once(&g_curl_once, curl_init_once);
    if (g_curl_init != CURLE_OK)
        return floe_error(FLOE_ERR_IO, "libcurl initialisation failed: %s", curl_easy_strerror(g_curl_init));
    floe_rest_http *h = floe_calloc(1, sizeof *h);
    if (!h) return oom();
    h->o = *opts;
    if (h->o.connect_timeout_ms <= 0) h->o.connect_timeout_ms = 10000;
    if (h->o.request_timeout_ms <= 0) h->o.request_timeout_ms = 120000;
    if (h->o.max_retries < 0) h->o.max_retries = 3;
    if (h->o.retry_min_wait_ms <= 0) h->o.retry_min_wait_ms = 100;
    if (h->o.retry_max_wait_ms <= 0) h->o.retry_max_wait_ms = 2000;
    pthread_mutex_init(&h->mu, NULL);
    floe_status st = NULL;
    if (opts->ca_file && !(h->ca_file = floe_strdup(opts->ca_file))) st = oom();
    if (!st && opts->n_headers) {
        h->headers = floe_calloc(opts->n_headers, sizeof *h->headers);
        if (!h->headers) st = oom();
        for (size_t i = 0; !st && i < opts->n_headers; i++) {
            h->headers[i] = floe_strdup(opts->headers[i]);
            if (!h->headers[i]) st = oom();
            h->n_headers = i + 1;
        }
    }
    h->o.ca_file = h->ca_file;
    h->o.headers = NULL;
    h->o.n_headers = 0;
    if (st) {
        floe_rest_http_free(h);
        return st;
    }
    *out = h;
    return NULL;
}

void floe_rest_http_free(floe_rest_http *h) {
    if (!h) return;
    for (size_t i = 0; i < h->n_idle; i++) curl_easy_cleanup(h->idle[i]);
    for (size_t i = 0; i < h->n_headers; i++) floe_free(h->headers[i]);
    floe_free(h->headers);
    floe_free(h->ca_file);
    pthread_mutex_destroy(&h->mu);
    floe_free(h);
}

void floe_rest_response_free(floe_rest_response *resp) {
    if (!resp) return;
    floe_buf_free(&resp->body);
    resp->status = 0;
}

static CURL *handle_acquire(floe_rest_http *h) {
    CURL *c = NULL;
    pthread_mutex_lock(&h->mu);
    if (h->n_idle) c = h->idle[--h->n_idle];
    pthread_mutex_unlock(&h->mu);
    if (c) curl_easy_reset(c);
    else c = curl_easy_init();
    return c;
}

static void handle_release(floe_rest_http *h, CURL *c) {
    pthread_mutex_lock(&h->mu);
    if (h->n_idle < MAX_IDLE) {
        h->idle[h->n_idle++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&h->mu);
    if (c) curl_easy_cleanup(c);
}

/* ---- one attempt ------------------------------------------------------------ */

typedef struct sink {
    floe_buf *body;
    bool failed;
} sink;

static size_t on_write(char *data, size_t size, size_t n, void *ud) {
    sink *s = ud;
    floe_status st = floe_buf_append(s->body, data, size * n);
    if (st) {
        floe_status_free(st);
        s->failed = true;
        return 0;
    }
    return size * n;
}

static struct curl_slist *add_line(struct curl_slist *l, bool *failed, const char *line) {
    struct curl_slist *nl = curl_slist_append(l, line);
    if (!nl) *failed = true;
    return nl ? nl : l;
}

/* The header list of a request; secrets stay inside curl. */
static floe_status build_headers(floe_rest_http *h, const floe_rest_request *rq, struct curl_slist **out) {
    *out = NULL;
    bool failed = false;
    struct curl_slist *l = NULL;
    char line[256];
    l = add_line(l, &failed, "Accept: application/json");
    if (rq->body) {
        snprintf(line, sizeof line, "Content-Type: %s", rq->content_type ? rq->content_type : "application/json");
        l = add_line(l, &failed, line);
    }
    /* No "Expect: 100-continue" round trip for small JSON bodies. */
    l = add_line(l, &failed, "Expect:");
    for (size_t i = 0; i < h->n_headers; i++) l = add_line(l, &failed, h->headers[i]);
    for (size_t i = 0; i < rq->n_headers; i++) l = add_line(l, &failed, rq->headers[i]);
    if (rq->authorization) {
        floe_buf b = FLOE_BUF_INIT;
        floe_status st = floe_buf_printf(&b, "Authorization: %s", rq->authorization);
        if (st) {
            curl_slist_free_all(l);
            return st;
        }
        l = add_line(l, &failed, floe_buf_cstr(&b));
        /* The header text held the token: wipe our copy. */
        if (b.data) memset(b.data, 0, b.len);
        floe_buf_free(&b);
    }
    if (failed) {
        curl_slist_free_all(l);
        return oom();
    }
    *out = l;
    return NULL;
}

/* One attempt.  *cc receives curl's result (CURLE_OK: resp->status is
 * the server's answer). */
static floe_status attempt(floe_rest_http *h, const floe_rest_request *rq, struct curl_slist *hdrs,
                           floe_rest_response *resp, CURLcode *cc, char *errbuf) {
    CURL *c = handle_acquire(h);
    if (!c) return floe_error(FLOE_ERR_IO, "%s: cannot create a curl handle", rq->method);
    floe_buf_clear(&resp->body);
    sink s = {&resp->body, false};
    errbuf[0] = '\0';
    curl_easy_setopt(c, CURLOPT_URL, rq->url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->o.connect_timeout_ms);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->o.request_timeout_ms);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, h->o.tls_verify ? 1L : 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, h->o.tls_verify ? 2L : 0L);
    if (h->o.ca_file) curl_easy_setopt(c, CURLOPT_CAINFO, h->o.ca_file);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    if (strcmp(rq->method, "GET") == 0) {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    } else if (strcmp(rq->method, "HEAD") == 0) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else {
        if (strcmp(rq->method, "POST") != 0) curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
        if (rq->body || strcmp(rq->method, "POST") == 0) {
            const char *b = rq->body ? rq->body : "";
            curl_easy_setopt(c, CURLOPT_POST, 1L);
            curl_easy_setopt(c, CURLOPT_POSTFIELDS, b);
            curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(b));
        }
    }
    *cc = curl_easy_perform(c);
    if (*cc == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
    /* POSTFIELDS points at the caller's body: unset before pooling. */
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, NULL);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    handle_release(h, c);
    if (s.failed) return oom();
    return NULL;
}

static void sleep_ms(int64_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int64_t backoff_ms(const floe_rest_http *h, int retry) {
    int64_t base = h->o.retry_min_wait_ms;
    for (int i = 1; i < retry && base < h->o.retry_max_wait_ms; i++) base *= 2;
    if (base > h->o.retry_max_wait_ms) base = h->o.retry_max_wait_ms;
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) r = (uint32_t)floe_rest_mono_ms() * 2654435761u;
    return base / 2 + (int64_t)(r % (uint32_t)(base / 2 + 1));
}

/* Transport failures where the request certainly never reached the
 * server: safe to retry whatever the method. */
static bool never_sent(CURLcode cc) {
    return cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST || cc == CURLE_COULDNT_RESOLVE_PROXY;
}

static bool retryable_status(long status) { return status == 500 || status == 502 || status == 503 || status == 504; }

static bool looks_json(const floe_buf *b) {
    for (size_t i = 0; i < b->len; i++) {
        char ch = (char)b->data[i];
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') continue;
        return ch == '{' || ch == '[';
    }
    return false;
}

static void log_request(const floe_rest_request *rq) {
    if (!floe_log_enabled(FLOE_LOG_DEBUG)) return;
    const char *hdrs[16];
    size_t n = 0;
    if (rq->authorization) hdrs[n++] = "Authorization: Bearer ***";
    for (size_t i = 0; i < rq->n_headers && n < 16; i++) hdrs[n++] = rq->headers[i];
    floe_log_http_request(FLOE_LOG_DEBUG, "rest", "REST request", rq->method, rq->url, hdrs, n);
    if (rq->body && !rq->body_is_secret) floe_log_json(FLOE_LOG_DEBUG, "rest", "REST request body", rq->body);
    else if (rq->body) FLOE_LOG_DEBUG("rest", "REST request body: (%zu bytes, not shown: holds a secret)",
                                      strlen(rq->body));
}

static void log_response(const floe_rest_request *rq, const floe_rest_response *resp, int64_t ms) {
    if (!floe_log_enabled(FLOE_LOG_DEBUG)) return;
    floe_buf u = FLOE_BUF_INIT;
    floe_status st = floe_redact_url(&u, rq->url);
    FLOE_LOG_DEBUG("rest", "REST response: %ld to %s %s (%lld ms, %zu bytes)", resp->status, rq->method,
                   st ? "(url)" : floe_buf_cstr(&u), (long long)ms, resp->body.len);
    floe_status_free(st);
    floe_buf_free(&u);
    if (resp->body.len && looks_json(&resp->body))
        floe_log_json(FLOE_LOG_DEBUG, "rest", "REST response body", floe_buf_cstr(&resp->body));
}

floe_status floe_rest_http_do(floe_rest_http *h, const floe_rest_request *rq, floe_rest_response *resp) {
    resp->status = 0;
    struct curl_slist *hdrs = NULL;
    FLOE_TRY(build_headers(h, rq, &hdrs));
    log_request(rq);
    char errbuf[CURL_ERROR_SIZE];
    floe_status st = NULL;
    for (int tryno = 0;; tryno++) {
        CURLcode cc = CURLE_OK;
        int64_t t0 = floe_rest_mono_ms();
        st = attempt(h, rq, hdrs, resp, &cc, errbuf);
        if (st) break;
        bool may_retry = tryno < h->o.max_retries;
        if (cc == CURLE_OK) {
            log_response(rq, resp, floe_rest_mono_ms() - t0);
            if (!(may_retry && rq->idempotent && retryable_status(resp->status))) break;
            FLOE_LOG_INFO("rest", "%s: server answered %ld, retry %d of %d", rq->method, resp->status, tryno + 1,
                          h->o.max_retries);
        } else {
            if (!(may_retry && (rq->idempotent || never_sent(cc)))) {
                floe_buf u = FLOE_BUF_INIT;
                floe_status ust = floe_redact_url(&u, rq->url);
                floe_code code = rq->commit && !never_sent(cc)        ? FLOE_ERR_COMMIT_UNKNOWN
                                 : cc == CURLE_OPERATION_TIMEDOUT ? FLOE_ERR_TIMEOUT
                                                                  : FLOE_ERR_IO;
                st = floe_error(code, "REST %s %s failed%s: %s", rq->method, ust ? "(url)" : floe_buf_cstr(&u),
                                tryno ? " after retries" : "", errbuf[0] ? errbuf : curl_easy_strerror(cc));
                floe_status_free(ust);
                floe_buf_free(&u);
                break;
            }
            FLOE_LOG_INFO("rest", "%s: %s, retry %d of %d", rq->method, errbuf[0] ? errbuf : curl_easy_strerror(cc),
                          tryno + 1, h->o.max_retries);
        }
        sleep_ms(backoff_ms(h, tryno + 1));
    }
    curl_slist_free_all(hdrs);
    return st;
}

/* ---- the error model ------------------------------------------------------------ */

floe_status floe_rest_error(const char *method, const char *url, long status, const char *body, floe_rest_op op) {
    const char *message = NULL, *type = NULL;
    json_t *root = NULL;
    if (body && *body) {
        root = json_loads(body, 0, NULL);
        json_t *err = root ? json_object_get(root, "error") : NULL;
        if (json_is_object(err)) {
            message = json_string_value(json_object_get(err, "message"));
            type = json_string_value(json_object_get(err, "type"));
        }
    }
    floe_code code;
    switch (status) {
    case 400:
    case 422: code = FLOE_ERR_INVALID_ARGUMENT; break;
    case 401:
    case 403:
    case 419: code = FLOE_ERR_AUTH; break;
    case 404: code = FLOE_ERR_NOT_FOUND; break;
    case 406: code = FLOE_ERR_UNSUPPORTED; break;
    case 409: code = op == FLOE_REST_OP_CREATE ? FLOE_ERR_ALREADY_EXISTS : FLOE_ERR_CONFLICT; break;
    default: code = FLOE_ERR_IO; break;
    }
    floe_buf u = FLOE_BUF_INIT, m = FLOE_BUF_INIT;
    floe_status ust = floe_redact_url(&u, url);
    /* The server's message is free text from outside: redact it too. */
    floe_status mst = message ? floe_redact_text(&m, message) : NULL;
    const char *msg = message ? (mst ? "(message not shown)" : floe_buf_cstr(&m)) : NULL;
    const char *where = ust ? "(url)" : floe_buf_cstr(&u);
    floe_status st;
    if (op == FLOE_REST_OP_COMMIT && status >= 500)
        st = floe_error(FLOE_ERR_IO,
                        "commit state unknown: REST %s %s answered %ld%s%s%s%s; the commit may or may not have "
                        "happened; reload the table before trying again",
                        method, where, status, type ? " " : "", type ? type : "", msg ? ": " : "", msg ? msg : "");
    else
        st = floe_error(code, "REST %s %s answered %ld%s%s%s%s", method, where, status, type ? " " : "",
                        type ? type : "", msg ? ": " : "", msg ? msg : "");
    floe_status_free(ust);
    floe_status_free(mst);
    floe_buf_free(&u);
    floe_buf_free(&m);
    json_decref(root);
    return st;
}

floe_status floe_rest_url_encode(floe_buf *out, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char ch = *p;
        bool keep = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                    ch == '_' || ch == '.' || ch == '~';
        if (keep) FLOE_TRY(floe_buf_append_byte(out, ch));
        else {
            char e[3] = {'%', hex[ch >> 4], hex[ch & 15]};
            FLOE_TRY(floe_buf_append(out, e, 3));
        }
    }
    return NULL;
}
