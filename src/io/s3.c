/*
 * s3.c — FileIO for S3 and S3-compatible object stores, over libcurl.
 *
 * How a request is made (s3_perform):
 *   - the URL is built path style (http://host:port/bucket/key) or virtual
 *     hosted (http://bucket.host:port/key), the key percent-encoded once with
 *     '/' kept, and any query string already in SigV4 canonical form (names
 *     sorted, names and values encoded, "name=" for empty values).  curl 7.88
 *     signs data->state.up.path and .query exactly as sent, so sending the
 *     canonical form is what makes our signature match the server's.
 *   - curl signs with CURLOPT_AWS_SIGV4 "aws:amz:<region>:s3".  curl 7.88
 *     does not add x-amz-content-sha256 itself; when that header is present
 *     it uses its value as the payload hash of the canonical request.  S3
 *     requires the header, so we always send it: SHA-256 of the body (EVP),
 *     or of the empty string for bodiless requests.  All headers we pass are
 *     signed, so we never pass an empty "Header:" (curl would sign it but not
 *     send it).
 *   - transient failures are retried with exponential backoff and full
 *     jitter: HTTP 5xx, 429, S3's SlowDown and RequestTimeout codes, and
 *     connection errors/timeouts.  Other 4xx are final.  Attempts are bounded
 *     by s3.retry.num-retries and by s3.retry.total-timeout-ms.
 *
 * curl easy handles are pooled per client behind a mutex: a handle is used
 * by one thread at a time, and reuse keeps connections alive.
 *
 * Secrets: the secret key and session token go only into curl options and
 * the x-amz-security-token header.  Debug logs (base/log.h, FLOE_LOG=debug)
 * print the configuration through floe_log_config (secrets shown as ***)
 * and each request's method, URL, status and timing; curl's header dump
 * (FLOE_LOG=trace) passes every header line through floe_redact_header,
 * which hides Authorization and x-amz-security-token; text taken from
 * server error bodies is scrubbed of both secrets before it enters a
 * message.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "base/buffer.h"
#include "base/log.h"
#include "base/redact.h"
#include "floe/memory.h"
#include "io/credentials.h"
#include "io/s3.h"

/* Debug lines go through base/log.h (which redacts every message again as
 * a last line of defence); callers never pass a secret. */
#define S3_DEBUG(...) FLOE_LOG_DEBUG("s3", __VA_ARGS__)

/* ---- small helpers ------------------------------------------------------------ */

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* A per-thread xorshift generator for backoff jitter (no shared state). */
static uint64_t jitter_random(void) {
    static _Thread_local uint64_t state;
    if (!state) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        state = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&state;
        if (!state) state = 0x9e3779b97f4a7c15ull;
    }
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* ASCII only: the C locale's isalnum() may accept more. */
static int ascii_alnum(unsigned char ch) {
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Percent-encode per SigV4: unreserved characters stay, '/' stays when
 * `keep_slash`, everything else becomes %XX (upper-case hex). */
static floe_status uri_encode(floe_buf *b, const char *s, size_t n, int keep_slash) {
    static const char hex[] = "0123456789ABCDEF";
    FLOE_TRY(floe_buf_reserve(b, n * 3));
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ascii_alnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~' ||
            (keep_slash && ch == '/')) {
            b->data[b->len++] = ch;
        } else {
            b->data[b->len++] = '%';
            b->data[b->len++] = (uint8_t)hex[ch >> 4];
            b->data[b->len++] = (uint8_t)hex[ch & 15];
        }
    }
    b->data[b->len] = 0;
    return NULL;
}

static void sha256_hex(const void *data, size_t len, char out[65]) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    static const char hex[] = "0123456789abcdef";
    if (!EVP_Digest(data ? data : "", len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) {
        out[0] = 0; /* reported by the caller as an internal error */
        return;
    }
    for (unsigned i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = 0;
}

/* ---- minimal XML reading -------------------------------------------------------
 * S3 responses are small, flat documents.  We only need the text of named
 * elements that never nest inside themselves, so a careful substring scan
 * is enough: find "<Tag" followed by '>', whitespace or '/', then the
 * matching "</Tag>".  Text is entity-decoded separately. */

static const char *xml_next(const char *p, const char *end, const char *tag, const char **text,
                            size_t *text_len) {
    size_t tl = strlen(tag);
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt) return NULL;
        p = lt + 1;
        if ((size_t)(end - p) < tl + 1 || memcmp(p, tag, tl) != 0) continue;
        char after = p[tl];
        if (after != '>' && after != '/' && after != ' ' && after != '\t' && after != '\n' &&
            after != '\r')
            continue;
        const char *gt = memchr(p + tl, '>', (size_t)(end - (p + tl)));
        if (!gt) return NULL;
        if (gt[-1] == '/') { /* <Tag/> */
            *text = gt;
            *text_len = 0;
            return gt + 1;
        }
        const char *start = gt + 1;
        const char *q = start;
        while (q < end) {
            const char *close = memchr(q, '<', (size_t)(end - q));
            if (!close) return NULL;
            if ((size_t)(end - close) >= tl + 3 && close[1] == '/' &&
                memcmp(close + 2, tag, tl) == 0 && close[2 + tl] == '>') {
                *text = start;
                *text_len = (size_t)(close - start);
                return close + 3 + tl;
            }
            q = close + 1;
        }
        return NULL;
    }
    return NULL;
}

static void utf8_put(floe_buf *b, unsigned long cp) {
    uint8_t u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xC0 | (cp >> 6));
        u[1] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xE0 | (cp >> 12));
        u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (uint8_t)(0xF0 | (cp >> 18));
        u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 4;
    }
    memcpy(b->data + b->len, u, n);
    b->len += n;
    b->data[b->len] = 0;
}

/* Decode XML text (the five named entities and numeric references) into
 * `b`, replacing its contents.  Malformed references are FLOE_ERR_CORRUPT. */
static floe_status xml_text(floe_buf *b, const char *s, size_t n) {
    floe_buf_clear(b);
    FLOE_TRY(floe_buf_reserve(b, n + 4));
    size_t i = 0;
    while (i < n) {
        if (s[i] != '&') {
            b->data[b->len++] = (uint8_t)s[i++];
            continue;
        }
        const char *semi = memchr(s + i, ';', n - i);
        if (!semi || semi - (s + i) > 12)
            return floe_error(FLOE_ERR_CORRUPT, "bad XML entity in S3 response near '%.12s'", s + i);
        const char *e = s + i + 1;
        size_t el = (size_t)(semi - e);
        unsigned long cp = 0;
        if (el == 3 && memcmp(e, "amp", 3) == 0) cp = '&';
        else if (el == 2 && memcmp(e, "lt", 2) == 0) cp = '<';
        else if (el == 2 && memcmp(e, "gt", 2) == 0) cp = '>';
        else if (el == 4 && memcmp(e, "quot", 4) == 0) cp = '"';
        else if (el == 4 && memcmp(e, "apos", 4) == 0) cp = '\'';
        else if (el >= 2 && e[0] == '#') {
            int hexa = (e[1] == 'x' || e[1] == 'X');
            size_t k = hexa ? 2 : 1;
            if (k >= el) return floe_error(FLOE_ERR_CORRUPT, "bad XML character reference in S3 response");
            for (; k < el; k++) {
                int d;
                char c = e[k];
                if (c >= '0' && c <= '9') d = c - '0';
                else if (hexa && c >= 'a' && c <= 'f') d = c - 'a' + 10;
                else if (hexa && c >= 'A' && c <= 'F') d = c - 'A' + 10;
                else return floe_error(FLOE_ERR_CORRUPT, "bad XML character reference in S3 response");
                cp = cp * (hexa ? 16u : 10u) + (unsigned long)d;
                if (cp > 0x10FFFF)
                    return floe_error(FLOE_ERR_CORRUPT, "XML character reference out of range in S3 response");
            }
            if (cp == 0) return floe_error(FLOE_ERR_CORRUPT, "XML character reference to NUL in S3 response");
        } else {
            return floe_error(FLOE_ERR_CORRUPT, "unknown XML entity '&%.*s;' in S3 response", (int)el, e);
        }
        utf8_put(b, cp);
        i = (size_t)(semi - s) + 1;
    }
    b->data[b->len] = 0;
    return NULL;
}

/* The decoded text of the first <tag> in [p, end), or empty with *found 0. */
static floe_status xml_get(const char *p, const char *end, const char *tag, floe_buf *out,
                           int *found) {
    const char *t;
    size_t tl;
    *found = 0;
    floe_buf_clear(out);
    if (!xml_next(p, end, tag, &t, &tl)) return NULL;
    *found = 1;
    return xml_text(out, t, tl);
}

static floe_status xml_escape(floe_buf *b, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': FLOE_TRY(floe_buf_append_str(b, "&amp;")); break;
        case '<': FLOE_TRY(floe_buf_append_str(b, "&lt;")); break;
        case '>': FLOE_TRY(floe_buf_append_str(b, "&gt;")); break;
        default: FLOE_TRY(floe_buf_append_byte(b, (uint8_t)*s));
        }
    }
    return NULL;
}

/* ---- configuration ---------------------------------------------------------- */

static const char *prop_get(const floe_property *props, size_t n, const char *key) {
    const char *v = NULL;
    for (size_t i = 0; i < n; i++) /* the last setting wins */
        if (props[i].key && props[i].value && strcmp(props[i].key, key) == 0) v = props[i].value;
    return v;
}

static const char *env_get(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static floe_status parse_long(const char *key, const char *v, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "property %s: '%s' is not a whole number between %ld and %ld", key, v,
                          lo, hi);
    *out = (long)x;
    return NULL;
}

static floe_status parse_bool(const char *key, const char *v, int *out) {
    if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0) *out = 1;
    else if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0) *out = 0;
    else return floe_error(FLOE_ERR_INVALID_ARGUMENT, "property %s: '%s' is not true or false", key, v);
    return NULL;
}

static floe_status dup_opt(const char *v, char **out) {
    *out = NULL;
    if (!v) return NULL;
    *out = floe_strdup(v);
    return *out ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying S3 configuration");
}

void floe_s3_config_clear(floe_s3_config *cfg) {
    floe_free(cfg->endpoint);
    floe_free(cfg->region);
    floe_free(cfg->access_key_id);
    if (cfg->secret_access_key) { /* do not leave the secret in freed memory */
        memset(cfg->secret_access_key, 0, strlen(cfg->secret_access_key));
        floe_free(cfg->secret_access_key);
    }
    if (cfg->session_token) {
        memset(cfg->session_token, 0, strlen(cfg->session_token));
        floe_free(cfg->session_token);
    }
    floe_free(cfg->connect_to);
    floe_free(cfg->credentials_id);
    memset(cfg, 0, sizeof *cfg);
}

static floe_status config_numbers(const floe_property *p, size_t n, floe_s3_config *cfg) {
    struct {
        const char *key;
        long lo, hi;
        long *dst;
    } nums[] = {
        {"s3.retry.num-retries", 0, 100, NULL},
        {"s3.retry.min-wait-ms", 0, 3600000, &cfg->retry_min_wait_ms},
        {"s3.retry.max-wait-ms", 0, 3600000, &cfg->retry_max_wait_ms},
        {"s3.retry.total-timeout-ms", 0, 86400000, &cfg->retry_total_ms},
        {"s3.connect-timeout-ms", 1, 3600000, &cfg->connect_timeout_ms},
        {"s3.request-timeout-ms", 1, 86400000, &cfg->request_timeout_ms},
        {"s3.multipart.num-threads", 0, 64, NULL},
    };
    long retries = cfg->max_retries, threads = cfg->upload_threads;
    nums[0].dst = &retries;
    nums[6].dst = &threads;
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        const char *v = prop_get(p, n, nums[i].key);
        if (v) FLOE_TRY(parse_long(nums[i].key, v, nums[i].lo, nums[i].hi, nums[i].dst));
    }
    cfg->max_retries = (int)retries;
    cfg->upload_threads = (int)threads;
    if (cfg->retry_max_wait_ms < cfg->retry_min_wait_ms) cfg->retry_max_wait_ms = cfg->retry_min_wait_ms;

    const char *v = prop_get(p, n, "s3.multipart.part-size-bytes");
    if (v) {
        long ps;
        FLOE_TRY(parse_long("s3.multipart.part-size-bytes", v, (long)FLOE_S3_MIN_PART_SIZE,
                            (long)5 << 30, &ps));
        cfg->part_size = (size_t)ps;
    }
    v = prop_get(p, n, "s3.list.max-keys");
    if (v) {
        long mk;
        FLOE_TRY(parse_long("s3.list.max-keys", v, 1, 1000, &mk));
        cfg->list_max_keys = (int)mk;
    }
    v = prop_get(p, n, "s3.path-style-access");
    if (v) FLOE_TRY(parse_bool("s3.path-style-access", v, &cfg->path_style));
    return NULL;
}

static floe_status config_strings(const floe_property *p, size_t n, floe_s3_config *cfg) {
    const char *endpoint = prop_get(p, n, "s3.endpoint");
    if (!endpoint) endpoint = env_get("AWS_ENDPOINT_URL_S3");
    if (!endpoint) endpoint = env_get("AWS_ENDPOINT_URL");
    const char *region = prop_get(p, n, "s3.region");
    if (!region) region = prop_get(p, n, "client.region");
    if (!region) region = env_get("AWS_REGION");
    if (!region) region = env_get("AWS_DEFAULT_REGION");
    if (!region) region = "us-east-1";

    /* Credentials come as a set: never mix a property key with an
     * environment secret or token. */
    const char *ak = prop_get(p, n, "s3.access-key-id");
    const char *sk = prop_get(p, n, "s3.secret-access-key");
    const char *tok = prop_get(p, n, "s3.session-token");
    if (!ak && !sk) {
        ak = env_get("AWS_ACCESS_KEY_ID");
        sk = env_get("AWS_SECRET_ACCESS_KEY");
        tok = ak ? env_get("AWS_SESSION_TOKEN") : NULL;
    }
    if ((ak && !sk) || (!ak && sk))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "S3 credentials need both an access key id and a secret access key "
                          "(s3.access-key-id / s3.secret-access-key or AWS_ACCESS_KEY_ID / "
                          "AWS_SECRET_ACCESS_KEY)");
    FLOE_TRY(dup_opt(endpoint, &cfg->endpoint));
    FLOE_TRY(dup_opt(region, &cfg->region));
    FLOE_TRY(dup_opt(ak, &cfg->access_key_id));
    FLOE_TRY(dup_opt(sk, &cfg->secret_access_key));
    FLOE_TRY(dup_opt(tok, &cfg->session_token));
    FLOE_TRY(dup_opt(prop_get(p, n, "s3.connect-to"), &cfg->connect_to));
    FLOE_TRY(dup_opt(prop_get(p, n, "floe.credentials-id"), &cfg->credentials_id));
    for (const char *r = cfg->region; *r; r++)
        if (!ascii_alnum((unsigned char)*r) && *r != '-')
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "S3 region '%s' is not a region name",
                              cfg->region);
    return NULL;
}

floe_status floe_s3_config_from_props(const floe_property *props, size_t nprops,
                                      floe_s3_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->part_size = FLOE_S3_DEFAULT_PART_SIZE;
    cfg->max_retries = 5;
    cfg->retry_min_wait_ms = 100;
    cfg->retry_max_wait_ms = 10000;
    cfg->retry_total_ms = 120000;
    cfg->connect_timeout_ms = 10000;
    cfg->request_timeout_ms = 300000;
    cfg->list_max_keys = 1000;
    cfg->upload_threads = 2;
    floe_status st = config_numbers(props, nprops, cfg);
    if (!st) st = config_strings(props, nprops, cfg);
    if (st) floe_s3_config_clear(cfg);
    return st;
}

int floe_s3_is_location(const char *loc) {
    return strncmp(loc, "s3://", 5) == 0 || strncmp(loc, "s3a://", 6) == 0 ||
           strncmp(loc, "s3n://", 6) == 0;
}

/* ---- client ------------------------------------------------------------------ */

struct floe_s3_client {
    floe_s3_config cfg;
    _Atomic int refs;
    char sigv4[96];   /* "aws:amz:<region>:s3" */
    char *scheme;     /* "http" or "https" */
    char *hostport;   /* endpoint host[:port] */
    char *base_path;  /* endpoint path without trailing '/', often "" */
    int host_is_ip;   /* IP literal or localhost: virtual hosting cannot work */
    pthread_mutex_t lock;
    CURL **idle;
    size_t nidle, idle_cap;
    _Atomic uint64_t attempts, retries;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_result;
static void curl_init_once(void) { curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

static void client_free(floe_s3_client *c) {
    for (size_t i = 0; i < c->nidle; i++) curl_easy_cleanup(c->idle[i]);
    floe_free(c->idle);
    pthread_mutex_destroy(&c->lock);
    floe_s3_config_clear(&c->cfg);
    floe_free(c->scheme);
    floe_free(c->hostport);
    floe_free(c->base_path);
    floe_free(c);
}

void floe_s3_client_release(floe_s3_client *c) {
    if (c && atomic_fetch_sub(&c->refs, 1) == 1) client_free(c);
}

static floe_s3_client *client_ref(floe_s3_client *c) {
    atomic_fetch_add(&c->refs, 1);
    return c;
}

void floe_s3_client_stats(floe_s3_client *c, uint64_t *attempts, uint64_t *retries) {
    *attempts = atomic_load(&c->attempts);
    *retries = atomic_load(&c->retries);
}

/* Split the endpoint into scheme, host[:port] and path. */
static floe_status client_parse_endpoint(floe_s3_client *c) {
    char def[128];
    const char *ep = c->cfg.endpoint;
    if (!ep) {
        snprintf(def, sizeof def, "https://s3.%s.amazonaws.com", c->cfg.region);
        ep = def;
    }
    /* Checked first so that no later message can echo the credentials. */
    if (strchr(ep, '@'))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "s3.endpoint must not carry credentials; use s3.access-key-id");
    const char *hp = ep;
    const char *scheme = "https";
    if (strncasecmp(ep, "http://", 7) == 0) {
        scheme = "http";
        hp = ep + 7;
    } else if (strncasecmp(ep, "https://", 8) == 0) {
        hp = ep + 8;
    } else if (strstr(ep, "://")) {
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "s3.endpoint '%s': only http and https are supported", ep);
    }
    size_t hl = strcspn(hp, "/?#");
    if (hl == 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "s3.endpoint '%s' has no host", ep);
    const char *path = hp + hl;
    size_t pl = strcspn(path, "?#");
    while (pl > 0 && path[pl - 1] == '/') pl--;
    c->scheme = floe_strdup(scheme);
    c->hostport = floe_strndup(hp, hl);
    c->base_path = floe_strndup(path, pl);
    if (!c->scheme || !c->hostport || !c->base_path)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing s3.endpoint");
    /* host without the port: "[v6]:p", "1.2.3.4:p", "name:p" */
    const char *h = c->hostport;
    if (h[0] == '[') {
        c->host_is_ip = 1;
    } else {
        size_t n = strcspn(h, ":");
        int digits_dots = 1;
        for (size_t i = 0; i < n; i++)
            if (!isdigit((unsigned char)h[i]) && h[i] != '.') digits_dots = 0;
        c->host_is_ip = digits_dots || (n == 9 && strncasecmp(h, "localhost", 9) == 0);
    }
    return NULL;
}

static floe_status config_copy(const floe_s3_config *src, floe_s3_config *dst) {
    *dst = *src;
    dst->endpoint = dst->region = dst->access_key_id = dst->secret_access_key = NULL;
    dst->session_token = dst->connect_to = dst->credentials_id = NULL;
    floe_status st = dup_opt(src->endpoint, &dst->endpoint);
    if (!st) st = dup_opt(src->region ? src->region : "us-east-1", &dst->region);
    if (!st) st = dup_opt(src->access_key_id, &dst->access_key_id);
    if (!st) st = dup_opt(src->secret_access_key, &dst->secret_access_key);
    if (!st) st = dup_opt(src->session_token, &dst->session_token);
    if (!st) st = dup_opt(src->connect_to, &dst->connect_to);
    if (!st) st = dup_opt(src->credentials_id, &dst->credentials_id);
    return st;
}

floe_status floe_s3_client_new(const floe_s3_config *cfg, floe_s3_client **out) {
    *out = NULL;
    pthread_once(&curl_once, curl_init_once);
    if (curl_init_result != CURLE_OK)
        return floe_error(FLOE_ERR_IO, "libcurl initialisation failed: %s",
                          curl_easy_strerror(curl_init_result));
    floe_s3_client *c = floe_calloc(1, sizeof *c);
    if (!c) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "creating the S3 client");
    pthread_mutex_init(&c->lock, NULL);
    atomic_init(&c->refs, 1);
    floe_status st = config_copy(cfg, &c->cfg);
    if (!st) st = client_parse_endpoint(c);
    if (st) {
        client_free(c);
        return st;
    }
    snprintf(c->sigv4, sizeof c->sigv4, "aws:amz:%s:s3", c->cfg.region);
    if (floe_log_enabled(FLOE_LOG_DEBUG)) {
        char part[32], retries[96];
        snprintf(part, sizeof part, "%zu", c->cfg.part_size);
        snprintf(retries, sizeof retries, "%d (%ld..%ld ms, total %ld ms)", c->cfg.max_retries,
                 c->cfg.retry_min_wait_ms, c->cfg.retry_max_wait_ms, c->cfg.retry_total_ms);
        const char *keys[] = {"s3.endpoint", "s3.region", "s3.path-style-access",
                              "s3.access-key-id", "s3.secret-access-key", "s3.session-token",
                              "s3.multipart.part-size-bytes", "retries", "floe.credentials-id"};
        const char *vals[] = {c->cfg.endpoint ? c->cfg.endpoint : "(AWS)", c->cfg.region,
                              c->cfg.path_style ? "true" : "false (path style for IP hosts)",
                              c->cfg.access_key_id ? c->cfg.access_key_id : "(anonymous)",
                              c->cfg.secret_access_key ? c->cfg.secret_access_key : "(none)",
                              c->cfg.session_token ? c->cfg.session_token : "(none)", part, retries,
                              c->cfg.credentials_id ? c->cfg.credentials_id : "(none)"};
        floe_log_config(FLOE_LOG_DEBUG, "s3", "S3 client", keys, vals, sizeof keys / sizeof keys[0]);
    }
    *out = c;
    return NULL;
}

static CURL *handle_acquire(floe_s3_client *c) {
    CURL *h = NULL;
    pthread_mutex_lock(&c->lock);
    if (c->nidle) h = c->idle[--c->nidle];
    pthread_mutex_unlock(&c->lock);
    return h ? h : curl_easy_init();
}

static void handle_release(floe_s3_client *c, CURL *h) {
    pthread_mutex_lock(&c->lock);
    if (c->nidle == c->idle_cap && c->idle_cap < 64) {
        size_t cap = c->idle_cap ? c->idle_cap * 2 : 8;
        CURL **p = floe_realloc(c->idle, cap * sizeof *p);
        if (p) {
            c->idle = p;
            c->idle_cap = cap;
        }
    }
    if (c->nidle < c->idle_cap) {
        c->idle[c->nidle++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (h) curl_easy_cleanup(h);
}

/* ---- locations ------------------------------------------------------------ */

typedef struct s3_loc {
    char *scheme; /* "s3", "s3a" or "s3n" */
    char *bucket;
    char *key; /* may be "" for bucket-level operations */
} s3_loc;

static void loc_free(s3_loc *l) {
    floe_free(l->scheme);
    floe_free(l->bucket);
    floe_free(l->key);
    memset(l, 0, sizeof *l);
}

static floe_status loc_parse(const char *location, int need_key, s3_loc *l) {
    memset(l, 0, sizeof *l);
    if (!floe_s3_is_location(location))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' is not an s3:// location", location);
    const char *sep = strstr(location, "://");
    const char *b = sep + 3;
    size_t bl = strcspn(b, "/");
    if (bl == 0 || bl > 255)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s': missing or invalid bucket name", location);
    for (size_t i = 0; i < bl; i++) {
        unsigned char ch = (unsigned char)b[i];
        if (!ascii_alnum(ch) && ch != '.' && ch != '-' && ch != '_')
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s': invalid character in bucket name",
                              location);
    }
    const char *k = b[bl] == '/' ? b + bl + 1 : b + bl;
    if (need_key && !*k)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s' names a bucket, not an object", location);
    l->scheme = floe_strndup(location, (size_t)(sep - location));
    l->bucket = floe_strndup(b, bl);
    l->key = floe_strdup(k);
    if (!l->scheme || !l->bucket || !l->key) {
        loc_free(l);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing '%s'", location);
    }
    return NULL;
}

/* Bucket names with dots break TLS wildcard certificates when virtual
 * hosted, and IP/localhost endpoints cannot host buckets as subdomains. */
static int use_path_style(const floe_s3_client *c, const s3_loc *l) {
    return c->cfg.path_style || c->host_is_ip || strchr(l->bucket, '.') != NULL;
}

static floe_status build_url(floe_s3_client *c, const s3_loc *l, int bucket_level,
                             const char *query, floe_buf *url) {
    floe_buf_clear(url);
    if (use_path_style(c, l)) {
        FLOE_TRY(floe_buf_printf(url, "%s://%s%s/%s", c->scheme, c->hostport, c->base_path, l->bucket));
        if (!bucket_level) FLOE_TRY(floe_buf_append_byte(url, '/'));
    } else {
        FLOE_TRY(floe_buf_printf(url, "%s://%s.%s%s/", c->scheme, l->bucket, c->hostport, c->base_path));
    }
    if (!bucket_level) FLOE_TRY(uri_encode(url, l->key, strlen(l->key), 1));
    if (query && *query) FLOE_TRY(floe_buf_printf(url, "?%s", query));
    return NULL;
}

/* ---- one request, with retries ------------------------------------------------ */

typedef struct s3_req {
    const char *method; /* GET HEAD PUT POST DELETE */
    const s3_loc *loc;
    int bucket_level;   /* URL names the bucket only (listing) */
    const char *query;  /* canonical query string or NULL */
    const uint8_t *body;
    size_t body_len;
    const char *content_type;
    char range[64];      /* "bytes=a-b" or "" */
    int if_none_match;   /* send If-None-Match: * (create only) */
    uint8_t *dst;        /* 2xx body goes straight here (ranged reads) */
    size_t dst_len;
    uint64_t dst_skip_if_200; /* a server ignoring Range sends the whole object */
    size_t max_body;          /* cap on buffered bodies */
    int errors_in_200;        /* CompleteMultipartUpload can fail inside a 200 */
} s3_req;

typedef struct s3_resp {
    long status;
    floe_buf body;
    size_t dst_done;
    char etag[200];
    char bucket_region[64]; /* x-amz-bucket-region, sent with wrong-region errors */
    int64_t content_length; /* -1 if unknown */
    int attempts;
    const struct s3_creds *creds; /* during perform: the keys signing it (scrubbed from messages) */
} s3_resp;

/* The keys one request signs with: the credential store's for the
 * client's floe.credentials-id when it has some, else the client's own.
 * ak NULL = anonymous. */
typedef struct s3_creds {
    const char *ak, *sk, *tok;
    int from_store;
    floe_cred_snapshot snap; /* owns the strings when from_store */
} s3_creds;

static void creds_clear(s3_creds *cr) {
    floe_cred_snapshot_clear(&cr->snap);
    memset(cr, 0, sizeof *cr);
}

static void creds_use_config(const floe_s3_client *c, s3_creds *cr) {
    cr->ak = c->cfg.access_key_id;
    cr->sk = c->cfg.secret_access_key;
    cr->tok = c->cfg.session_token;
    cr->from_store = 0;
}

/* Take the snapshot in `snap` (or the client's own keys when it found none). */
static void creds_take(const floe_s3_client *c, s3_creds *cr, floe_cred_snapshot *snap) {
    floe_cred_snapshot_clear(&cr->snap);
    cr->snap = *snap;
    memset(snap, 0, sizeof *snap);
    if (cr->snap.found) {
        cr->ak = cr->snap.access_key_id;
        cr->sk = cr->snap.secret_access_key;
        cr->tok = cr->snap.session_token;
        cr->from_store = 1;
    } else {
        creds_use_config(c, cr);
    }
}

/* The keys for the next request (refreshed first when near expiry). */
static floe_status creds_acquire(const floe_s3_client *c, s3_creds *cr) {
    memset(cr, 0, sizeof *cr);
    creds_use_config(c, cr);
    if (!c->cfg.credentials_id) return NULL;
    floe_cred_snapshot snap;
    FLOE_TRY(floe_credentials_acquire(c->cfg.credentials_id, 0, &snap, NULL));
    creds_take(c, cr, &snap);
    return NULL;
}

typedef struct s3_xfer {
    CURL *h;
    const s3_req *rq;
    s3_resp *rs;
    int started, direct, enough, too_big, oom;
    uint64_t to_skip;
} s3_xfer;

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud) {
    s3_xfer *x = ud;
    size_t n = size * nmemb, all = n;
    if (!x->started) {
        long code = 0;
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
        x->started = 1;
        x->direct = x->rq->dst && code >= 200 && code < 300;
        x->to_skip = (x->direct && code == 200) ? x->rq->dst_skip_if_200 : 0;
        x->enough = 0;
        x->rs->status = code;
    }
    if (x->direct) {
        if (x->to_skip) {
            size_t s = n < x->to_skip ? n : (size_t)x->to_skip;
            p += s;
            n -= s;
            x->to_skip -= s;
        }
        size_t room = x->rq->dst_len - x->rs->dst_done;
        size_t take = n < room ? n : room;
        if (take) memcpy(x->rq->dst + x->rs->dst_done, p, take);
        x->rs->dst_done += take;
        if (n > take) { /* more than we asked for: a whole object (200) or a bad server */
            x->enough = x->rs->status == 200;
            x->too_big = !x->enough;
            return 0;
        }
        return all;
    }
    if (x->rs->body.len + n > x->rq->max_body) {
        x->too_big = 1;
        return 0;
    }
    floe_status st = floe_buf_append(&x->rs->body, p, n);
    if (st) {
        floe_status_free(st);
        x->oom = 1;
        return 0;
    }
    return all;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud) {
    s3_xfer *x = ud;
    size_t n = size * nmemb;
    if (n > 20 && strncasecmp(p, "x-amz-bucket-region:", 20) == 0) {
        const char *v = p + 20;
        size_t vl = n - 20;
        while (vl && (*v == ' ' || *v == '\t')) v++, vl--;
        while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' ')) vl--;
        if (vl >= sizeof x->rs->bucket_region) vl = sizeof x->rs->bucket_region - 1;
        memcpy(x->rs->bucket_region, v, vl);
        x->rs->bucket_region[vl] = 0;
        return n;
    }
    if (n > 5 && strncasecmp(p, "ETag:", 5) == 0) {
        const char *v = p + 5;
        size_t vl = n - 5;
        while (vl && (*v == ' ' || *v == '\t')) v++, vl--;
        while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' ')) vl--;
        if (vl >= sizeof x->rs->etag) vl = sizeof x->rs->etag - 1;
        memcpy(x->rs->etag, v, vl);
        x->rs->etag[vl] = 0;
    }
    return n;
}

/* curl's verbose dump (FLOE_LOG=trace): header lines through
 * floe_redact_header (Authorization, x-amz-security-token become ***).
 * Bodies are never dumped. */
static int on_debug(CURL *h, curl_infotype type, char *data, size_t size, void *ud) {
    (void)h;
    (void)ud;
    if (type != CURLINFO_TEXT && type != CURLINFO_HEADER_IN && type != CURLINFO_HEADER_OUT) return 0;
    const char *dir = type == CURLINFO_HEADER_OUT ? "> " : type == CURLINFO_HEADER_IN ? "< " : "* ";
    floe_buf line = FLOE_BUF_INIT, red = FLOE_BUF_INIT;
    size_t i = 0;
    while (i < size) {
        size_t j = i;
        while (j < size && data[j] != '\n') j++;
        size_t len = j - i;
        while (len && data[i + len - 1] == '\r') len--;
        if (len > 1000) len = 1000;
        floe_buf_clear(&line);
        floe_buf_clear(&red);
        floe_status st = floe_buf_append(&line, data + i, len);
        /* curl names the access key id here; keep it out like the rest */
        if (!st && type == CURLINFO_TEXT && len >= 17 && memcmp(data + i, "Server auth using", 17) == 0)
            st = floe_buf_append_str(&red, "Server auth using AWS_SIGV4 (user ***)");
        else if (!st)
            st = floe_redact_header(&red, floe_buf_cstr(&line));
        if (!st && len) FLOE_LOG_TRACE("s3", "curl %s%s", dir, floe_buf_cstr(&red));
        floe_status_free(st);
        i = j + 1;
    }
    floe_buf_free(&line);
    floe_buf_free(&red);
    return 0;
}

static struct curl_slist *add_header(struct curl_slist *l, int *failed, const char *fmt, ...)
    FLOE_PRINTF(3, 4);
static struct curl_slist *add_header(struct curl_slist *l, int *failed, const char *fmt, ...) {
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line) {
        *failed = 1;
        return l;
    }
    struct curl_slist *nl = curl_slist_append(l, line);
    if (!nl) *failed = 1;
    return nl ? nl : l;
}

static floe_status build_headers(const s3_creds *cr, const s3_req *rq, struct curl_slist **out) {
    struct curl_slist *l = NULL;
    int failed = 0;
    *out = NULL;
    if (cr->ak) {
        char hash[65];
        sha256_hex(rq->body, rq->body_len, hash);
        if (!hash[0]) return floe_error(FLOE_ERR_INTERNAL, "SHA-256 of an S3 request body failed");
        l = add_header(l, &failed, "x-amz-content-sha256: %s", hash);
        if (cr->tok) l = add_header(l, &failed, "x-amz-security-token: %s", cr->tok);
    }
    if (rq->range[0]) l = add_header(l, &failed, "Range: %s", rq->range);
    if (rq->content_type) l = add_header(l, &failed, "Content-Type: %s", rq->content_type);
    if (rq->if_none_match) l = add_header(l, &failed, "If-None-Match: *");
    if (failed) {
        curl_slist_free_all(l);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "building S3 request headers");
    }
    *out = l;
    return NULL;
}

/* Set up the handle for one attempt.  Everything is reset first: handles
 * are reused across unrelated requests. */
static floe_status setup_handle(floe_s3_client *c, const s3_creds *cr, CURL *h, const s3_req *rq,
                                const char *url, struct curl_slist *hdrs, s3_xfer *x, char *errbuf) {
    curl_easy_reset(h);
    int bad = 0;
#define SETOPT(opt, val) bad |= curl_easy_setopt(h, opt, val) != CURLE_OK
    SETOPT(CURLOPT_URL, url);
    SETOPT(CURLOPT_NOSIGNAL, 1L);
    SETOPT(CURLOPT_PATH_AS_IS, 1L); /* keys may contain "//" or "/../" */
    SETOPT(CURLOPT_ERRORBUFFER, errbuf);
    SETOPT(CURLOPT_CONNECTTIMEOUT_MS, c->cfg.connect_timeout_ms);
    SETOPT(CURLOPT_TIMEOUT_MS, c->cfg.request_timeout_ms);
    SETOPT(CURLOPT_WRITEFUNCTION, on_body);
    SETOPT(CURLOPT_WRITEDATA, x);
    SETOPT(CURLOPT_HEADERFUNCTION, on_header);
    SETOPT(CURLOPT_HEADERDATA, x);
    SETOPT(CURLOPT_HTTPHEADER, hdrs);
    SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
    SETOPT(CURLOPT_TCP_KEEPALIVE, 1L);
    SETOPT(CURLOPT_BUFFERSIZE, 256L * 1024); /* fewer callbacks on big ranged reads */
    if (cr->ak) {
        SETOPT(CURLOPT_AWS_SIGV4, c->sigv4);
        SETOPT(CURLOPT_USERNAME, cr->ak);
        SETOPT(CURLOPT_PASSWORD, cr->sk);
    }
    if (strcmp(rq->method, "HEAD") == 0) {
        SETOPT(CURLOPT_NOBODY, 1L);
    } else if (strcmp(rq->method, "GET") != 0) {
        SETOPT(CURLOPT_CUSTOMREQUEST, rq->method);
        if (rq->body || strcmp(rq->method, "DELETE") != 0) {
            /* PUT/POST bodies come from memory; curl signs nothing of it
             * itself (we send x-amz-content-sha256). */
            SETOPT(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
            SETOPT(CURLOPT_POSTFIELDS, rq->body ? (const char *)rq->body : "");
        }
    }
    if (floe_log_enabled(FLOE_LOG_TRACE)) {
        SETOPT(CURLOPT_VERBOSE, 1L);
        SETOPT(CURLOPT_DEBUGFUNCTION, on_debug);
    }
#undef SETOPT
    if (bad) return floe_error(FLOE_ERR_INTERNAL, "libcurl rejected an option for %s", url);
    return NULL;
}

static int retryable_curl(CURLcode cc) {
    switch (cc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_WEIRD_SERVER_REPLY:
        return 1;
    default:
        return 0;
    }
}

static int retryable_status(long status, const char *code) {
    if (status >= 500 || status == 429) return 1;
    return strcmp(code, "SlowDown") == 0 || strcmp(code, "RequestTimeout") == 0 ||
           strcmp(code, "InternalError") == 0;
}

static floe_code status_code_of(long status) {
    switch (status) {
    case 404: return FLOE_ERR_NOT_FOUND;
    case 401:
    case 403: return FLOE_ERR_AUTH;
    case 412: return FLOE_ERR_ALREADY_EXISTS;
    default: return FLOE_ERR_IO;
    }
}

/* Replace every occurrence of a secret in `b` (text from a server). */
static void scrub(const floe_s3_client *c, const s3_resp *rs, floe_buf *b) {
    const s3_creds *cr = rs->creds;
    const char *secrets[4] = {c->cfg.secret_access_key, c->cfg.session_token, cr ? cr->sk : NULL,
                              cr ? cr->tok : NULL};
    for (int i = 0; i < 4; i++) {
        const char *s = secrets[i];
        size_t sl = s ? strlen(s) : 0;
        if (sl < 4 || !b->data) continue;
        char *hit;
        while ((hit = memmem(b->data, b->len, s, sl)) != NULL) memset(hit, '*', sl);
    }
    /* Control characters would garble one-line messages. */
    for (size_t i = 0; i < b->len; i++)
        if (b->data[i] < 0x20) b->data[i] = ' ';
}

/* The S3 error code and message from an error body, scrubbed. */
static void error_details(const floe_s3_client *c, const s3_resp *rs, floe_buf *code, floe_buf *msg) {
    int found;
    const char *b = (const char *)rs->body.data, *e = b + rs->body.len;
    floe_buf_clear(code);
    floe_buf_clear(msg);
    if (!b) return;
    floe_status st = xml_get(b, e, "Code", code, &found);
    if (st) {
        floe_status_free(st);
        floe_buf_clear(code);
    }
    st = xml_get(b, e, "Message", msg, &found);
    if (st) {
        floe_status_free(st);
        floe_buf_clear(msg);
    }
    if (msg->len > 300) {
        msg->len = 300;
        msg->data[300] = 0;
    }
    if (code->len > 100) {
        code->len = 100;
        code->data[100] = 0;
    }
    scrub(c, rs, code);
    scrub(c, rs, msg);
}

static void loc_text(const s3_loc *l, char *buf, size_t cap) {
    snprintf(buf, cap, "%s://%s/%s", l->scheme, l->bucket, l->key);
}

/* S3's answers to keys that are expired, revoked or unknown: new ones
 * from the credential store may succeed.  A HEAD has no body to tell (and
 * S3 answers 403 to a HEAD of a missing key without list permission), so
 * its callers probe with a GET, which does tell. */
static int credentials_rejected(const s3_resp *rs, const char *code) {
    if (rs->status != 400 && rs->status != 403) return 0;
    return strcmp(code, "ExpiredToken") == 0 || strcmp(code, "InvalidAccessKeyId") == 0 ||
           strcmp(code, "TokenRefreshRequired") == 0;
}

static floe_status http_error(const floe_s3_client *c, const s3_req *rq, const s3_resp *rs,
                              int attempts) {
    char where[1200];
    loc_text(rq->loc, where, sizeof where);
    floe_buf code = FLOE_BUF_INIT, msg = FLOE_BUF_INIT;
    error_details(c, rs, &code, &msg);
    char tries[48] = "", hint[128] = "";
    if (attempts > 1) snprintf(tries, sizeof tries, ", %d attempts", attempts);
    /* a wrong region answers 301/400 and names the right one in a header */
    if (rs->bucket_region[0] && strcmp(rs->bucket_region, c->cfg.region) != 0)
        snprintf(hint, sizeof hint, "; the bucket is in region %s, not %s (set s3.region)",
                 rs->bucket_region, c->cfg.region);
    /* 400 ExpiredToken is about credentials as much as any 403 */
    floe_code fc = credentials_rejected(rs, floe_buf_cstr(&code)) ? FLOE_ERR_AUTH : status_code_of(rs->status);
    floe_status st = floe_error(
        fc, "%s: HTTP %ld%s%s%s%s (%s%s)%s", where, rs->status,
        code.len ? " " : "", floe_buf_cstr(&code), msg.len ? ": " : "", floe_buf_cstr(&msg),
        rq->method, tries, hint);
    floe_buf_free(&code);
    floe_buf_free(&msg);
    return st;
}

/* After the store's keys were rejected: refresh them (single flight) and
 * say whether the request should be sent again with the new ones.  A
 * failed refresh becomes the request's error, naming both. */
static floe_status creds_after_rejection(floe_s3_client *c, const s3_req *rq, const s3_resp *rs,
                                         s3_creds *cr, int *retry) {
    *retry = 0;
    floe_cred_snapshot snap;
    int changed = 0;
    floe_status rst = floe_credentials_acquire(c->cfg.credentials_id, cr->snap.version, &snap, &changed);
    if (rst) {
        floe_status herr = http_error(c, rq, rs, rs->attempts);
        floe_status st = floe_error(floe_status_code(herr), "%s; %s", floe_status_message(herr),
                                    floe_status_message(rst));
        floe_status_free(herr);
        floe_status_free(rst);
        return st;
    }
    if (changed) {
        creds_take(c, cr, &snap);
        *retry = 1;
    }
    floe_cred_snapshot_clear(&snap);
    return NULL;
}

static floe_status perform(floe_s3_client *c, const s3_req *rq, s3_resp *rs) {
    floe_buf url = FLOE_BUF_INIT;
    struct curl_slist *hdrs = NULL, *connect_to = NULL;
    CURL *h = NULL;
    char where[1200];
    s3_creds cr;
    int auth_retried = 0;
    loc_text(rq->loc, where, sizeof where);
    rs->status = 0;
    rs->content_length = -1;
    rs->creds = &cr;
    floe_status st = creds_acquire(c, &cr);
    if (st) st = floe_status_wrap(st, "%s %s", rq->method, where);
    if (!st) st = build_url(c, rq->loc, rq->bucket_level, rq->query, &url);
    if (!st) st = build_headers(&cr, rq, &hdrs);
    if (!st && c->cfg.connect_to) {
        connect_to = curl_slist_append(NULL, c->cfg.connect_to);
        if (!connect_to) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "S3 request for %s", where);
    }
    if (!st && !(h = handle_acquire(c))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "curl handle for %s", where);
    long long start = now_ms();
    for (int attempt = 1; !st; attempt++) {
        char errbuf[CURL_ERROR_SIZE] = "";
        s3_xfer x = {.h = h, .rq = rq, .rs = rs};
        floe_buf_clear(&rs->body);
        rs->dst_done = 0;
        rs->etag[0] = 0;
        rs->bucket_region[0] = 0;
        rs->status = 0;
        st = setup_handle(c, &cr, h, rq, floe_buf_cstr(&url), hdrs, &x, errbuf);
        if (!st && connect_to && curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to) != CURLE_OK)
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "s3.connect-to '%s' was rejected", c->cfg.connect_to);
        if (st) break;
        atomic_fetch_add(&c->attempts, 1);
        rs->attempts = attempt;
        long long t0 = now_ms();
        CURLcode cc = curl_easy_perform(h);
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &rs->status);
        curl_off_t cl = -1;
        if (curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK) rs->content_length = cl;
        if (cc == CURLE_WRITE_ERROR && x.enough) cc = CURLE_OK;
        if (floe_log_enabled(FLOE_LOG_DEBUG))
            S3_DEBUG("%s %s%s%s -> %ld%s%s (%lld ms, attempt %d)", rq->method, floe_buf_cstr(&url),
                   rq->range[0] ? " " : "", rq->range, rs->status, cc ? " curl: " : "",
                   cc ? curl_easy_strerror(cc) : "", now_ms() - t0, attempt);
        if (x.oom) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: buffering the S3 response", where);
            break;
        }
        if (x.too_big) {
            st = floe_error(FLOE_ERR_IO, "%s: S3 response larger than expected (%s, HTTP %ld)",
                            where, rq->method, rs->status);
            break;
        }
        int retry;
        if (cc != CURLE_OK) {
            retry = retryable_curl(cc);
            if (!retry || attempt > c->cfg.max_retries) {
                st = floe_error(cc == CURLE_OPERATION_TIMEDOUT ? FLOE_ERR_TIMEOUT : FLOE_ERR_IO,
                                "%s: %s failed: %s (curl error %d, %d attempt%s)", where,
                                rq->method, errbuf[0] ? errbuf : curl_easy_strerror(cc), (int)cc,
                                attempt, attempt > 1 ? "s" : "");
                break;
            }
        } else {
            int ok = rs->status >= 200 && rs->status < 300;
            floe_buf code = FLOE_BUF_INIT, msg = FLOE_BUF_INIT;
            if (ok && rq->errors_in_200 && rs->body.data &&
                memmem(rs->body.data, rs->body.len, "<Error>", 7)) {
                ok = 0;
                rs->status = 500; /* S3 reports a failed completion inside a 200 */
            }
            if (ok) break;
            error_details(c, rs, &code, &msg);
            retry = retryable_status(rs->status, floe_buf_cstr(&code));
            int rejected = cr.from_store && !auth_retried && credentials_rejected(rs, floe_buf_cstr(&code));
            floe_buf_free(&code);
            floe_buf_free(&msg);
            if (rejected) {
                /* Once per request: new keys from the store, then again at once. */
                int again = 0;
                auth_retried = 1;
                st = creds_after_rejection(c, rq, rs, &cr, &again);
                if (!st && again) {
                    curl_slist_free_all(hdrs);
                    hdrs = NULL;
                    st = build_headers(&cr, rq, &hdrs);
                    if (st) break;
                    S3_DEBUG("%s %s: credentials were rejected (HTTP %ld); retrying with refreshed ones",
                             rq->method, where, rs->status);
                    continue;
                }
                if (st) break;
            }
            if (!retry || attempt > c->cfg.max_retries) {
                st = http_error(c, rq, rs, attempt);
                break;
            }
        }
        /* Exponential backoff with full jitter, within the total budget. */
        long cap = c->cfg.retry_min_wait_ms;
        for (int i = 1; i < attempt && cap < c->cfg.retry_max_wait_ms; i++) cap *= 2;
        if (cap > c->cfg.retry_max_wait_ms) cap = c->cfg.retry_max_wait_ms;
        long wait = cap > 0 ? (long)(jitter_random() % (uint64_t)(cap + 1)) : 0;
        if (now_ms() + wait - start > c->cfg.retry_total_ms) {
            st = floe_error(cc == CURLE_OPERATION_TIMEDOUT ? FLOE_ERR_TIMEOUT : FLOE_ERR_IO,
                            "%s: %s still failing after %d attempts in %lld ms (HTTP %ld%s%s); "
                            "gave up at s3.retry.total-timeout-ms",
                            where, rq->method, attempt, now_ms() - start, rs->status,
                            cc ? ", " : "", cc ? curl_easy_strerror(cc) : "");
            break;
        }
        atomic_fetch_add(&c->retries, 1);
        S3_DEBUG("%s %s: retrying in %ld ms", rq->method, where, wait);
        sleep_ms(wait);
    }
    if (h) handle_release(c, h);
    curl_slist_free_all(hdrs);
    curl_slist_free_all(connect_to);
    floe_buf_free(&url);
    rs->creds = NULL;
    creds_clear(&cr);
    return st;
}

static void resp_free(s3_resp *rs) { floe_buf_free(&rs->body); }

/* ---- input ---------------------------------------------------------------- */

typedef struct s3_input {
    floe_input base;
    floe_s3_client *c;
    s3_loc loc;
} s3_input;

static floe_status s3_read_at(floe_input *in, uint64_t offset, size_t len, uint8_t *dst) {
    s3_input *si = (s3_input *)in;
    if (offset > in->size || len > in->size - offset)
        return floe_error(FLOE_ERR_CORRUPT,
                          "'%s': read of %zu bytes at offset %llu is past the end of the object "
                          "(%llu bytes)",
                          in->path, len, (unsigned long long)offset, (unsigned long long)in->size);
    atomic_fetch_add_explicit(&in->read_calls, 1, memory_order_relaxed);
    if (len == 0) return NULL;
    s3_req rq = {.method = "GET", .loc = &si->loc, .dst = dst, .dst_len = len,
                 .dst_skip_if_200 = offset, .max_body = 1 << 20};
    snprintf(rq.range, sizeof rq.range, "bytes=%llu-%llu", (unsigned long long)offset,
             (unsigned long long)(offset + len - 1));
    s3_resp rs = {0};
    floe_status st = perform(si->c, &rq, &rs);
    if (!st && rs.dst_done != len)
        st = floe_error(FLOE_ERR_IO, "'%s': short read: %zu of %zu bytes at offset %llu", in->path,
                        rs.dst_done, len, (unsigned long long)offset);
    resp_free(&rs);
    if (!st) atomic_fetch_add_explicit(&in->bytes_read, len, memory_order_relaxed);
    return st;
}

static void s3_input_close(floe_input *in) {
    s3_input *si = (s3_input *)in;
    floe_s3_client_release(si->c);
    loc_free(&si->loc);
    floe_free(in->path);
    floe_free(si);
}

/* The whole object with one unranged GET.  The size the input was opened
 * with is only a hint here: Iceberg metadata records manifest_length, and
 * some writers record it wrong, while the object itself is intact.  A
 * reader that wants all of it gets all of it. */
static floe_status s3_read_all(floe_input *in, uint8_t **data, size_t *len) {
    s3_input *si = (s3_input *)in;
    atomic_fetch_add_explicit(&in->read_calls, 1, memory_order_relaxed);
    s3_req rq = {.method = "GET", .loc = &si->loc, .max_body = (size_t)1 << 31};
    s3_resp rs = {0};
    floe_status st = perform(si->c, &rq, &rs);
    if (!st) st = floe_buf_append(&rs.body, "", 1); /* NUL for text readers */
    if (st) {
        resp_free(&rs);
        return floe_status_wrap(st, "reading '%s' whole", in->path);
    }
    *len = rs.body.len - 1;
    *data = (uint8_t *)rs.body.data;
    atomic_fetch_add_explicit(&in->bytes_read, *len, memory_order_relaxed);
    return NULL;
}

static const floe_input_ops s3_input_ops = {s3_read_at, s3_input_close, s3_read_all};

/* HEAD an object.  A failed HEAD carries no body, so for a clear message
 * the error is fetched again with a one-byte GET, whose body names the S3
 * error code (NoSuchKey vs NoSuchBucket, AccessDenied ...). */
static floe_status head_object(floe_s3_client *c, const s3_loc *l, int64_t *size) {
    s3_req rq = {.method = "HEAD", .loc = l, .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = perform(c, &rq, &rs);
    if (st && rs.status >= 300 && rs.status < 500 && rs.status != 429) {
        s3_req g = {.method = "GET", .loc = l, .range = "bytes=0-0", .max_body = 1 << 16};
        s3_resp grs = {0};
        floe_status gst = perform(c, &g, &grs);
        if (gst && grs.status == rs.status && grs.body.len) {
            floe_status_free(st);
            st = gst;
        } else if ((!gst || grs.status == 416) && c->cfg.credentials_id && (rs.status == 400 || rs.status == 403)) {
            /* The GET went through (with refreshed keys; 416 is an empty
             * object): the HEAD's failure was the keys', so ask again. */
            floe_status_free(gst);
            floe_status_free(st);
            resp_free(&rs);
            memset(&rs, 0, sizeof rs);
            st = perform(c, &rq, &rs);
        } else {
            floe_status_free(gst);
        }
        resp_free(&grs);
    }
    if (!st && rs.content_length < 0) {
        char where[1200];
        loc_text(l, where, sizeof where);
        st = floe_error(FLOE_ERR_IO, "%s: HEAD response has no Content-Length", where);
    }
    *size = rs.content_length;
    resp_free(&rs);
    return st;
}

/* Open with a known size (size >= 0) or HEAD the object for it (size < 0). */
static floe_status open_input(floe_s3_client *c, const char *location, int64_t size,
                              floe_input **out) {
    *out = NULL;
    s3_loc l;
    FLOE_TRY(loc_parse(location, 1, &l));
    floe_status st = size < 0 ? head_object(c, &l, &size) : NULL;
    if (st) {
        loc_free(&l);
        return st;
    }
    s3_input *si = floe_calloc(1, sizeof *si);
    char *p = floe_strdup(location);
    if (!si || !p) {
        floe_free(si);
        floe_free(p);
        loc_free(&l);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening '%s'", location);
    }
    si->base.ops = &s3_input_ops;
    si->base.path = p;
    si->base.size = (uint64_t)size;
    si->c = client_ref(c);
    si->loc = l;
    *out = &si->base;
    return NULL;
}

floe_status floe_s3_open_input(floe_s3_client *c, const char *location, floe_input **out) {
    return open_input(c, location, -1, out);
}

floe_status floe_s3_open_input_sized(floe_s3_client *c, const char *location, uint64_t size,
                                     floe_input **out) {
    if (size > (uint64_t)INT64_MAX) {
        *out = NULL;
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "'%s': impossible size %llu", location,
                          (unsigned long long)size);
    }
    return open_input(c, location, (int64_t)size, out);
}

/* ---- output: one PUT, or a multipart upload once a part fills --------------
 *
 * Bytes collect in `buf` until a part is full.  The first full part starts
 * a multipart upload and s3.multipart.num-threads uploader threads for this
 * output; each later part is handed to them (the writer keeps filling the
 * next one meanwhile) and the writer waits only when that many parts are
 * already queued or in flight, which bounds memory to (threads + 1) parts.
 * With 0 threads, parts upload in the writer's thread.  The first failure
 * is kept; later parts are skipped, and close/abort abort the upload. */

typedef struct part_job {
    int number; /* 1-based part number */
    uint8_t *data;
    size_t len;
    struct part_job *next;
} part_job;

typedef struct s3_output {
    floe_output base;
    floe_s3_client *c;
    s3_loc loc;
    int overwrite;
    floe_buf buf;     /* bytes of the part being filled */
    char *upload_id;  /* non-NULL once multipart has started; then immutable */
    size_t nparts;    /* parts handed out so far */
    /* Shared with the uploaders, under mu once they run: */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a job was queued or finished, or stopping */
    char **etags;      /* etags[i] for part i+1, set as parts finish */
    size_t parts_cap;
    part_job *head, *tail;
    int pending;       /* jobs queued or uploading */
    int stopping;
    floe_status failed; /* first failure */
    pthread_t *threads;
    int nthreads;
} s3_output;

#define S3_MAX_PARTS 10000

static floe_status start_multipart(s3_output *so) {
    s3_req rq = {.method = "POST", .loc = &so->loc, .query = "uploads=",
                 .content_type = "application/octet-stream", .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = perform(so->c, &rq, &rs);
    if (!st) {
        floe_buf id = FLOE_BUF_INIT;
        int found = 0;
        const char *b = (const char *)rs.body.data;
        st = b ? xml_get(b, b + rs.body.len, "UploadId", &id, &found) : NULL;
        if (!st && (!found || id.len == 0))
            st = floe_error(FLOE_ERR_IO, "%s: CreateMultipartUpload response has no UploadId",
                            so->base.path);
        if (!st) so->upload_id = (char *)floe_buf_detach(&id, NULL);
        floe_buf_free(&id);
    }
    resp_free(&rs);
    return st;
}

static floe_status upload_query(const s3_output *so, int part, floe_buf *q) {
    floe_buf_clear(q);
    if (part > 0) FLOE_TRY(floe_buf_printf(q, "partNumber=%d&", part));
    FLOE_TRY(floe_buf_append_str(q, "uploadId="));
    return uri_encode(q, so->upload_id, strlen(so->upload_id), 0);
}

/* UploadPart; on success *etag is a floe_malloc'd copy of the part's ETag.
 * Reads only what is immutable once the upload started. */
static floe_status put_part(s3_output *so, int part, const uint8_t *data, size_t len, char **etag) {
    *etag = NULL;
    floe_buf q = FLOE_BUF_INIT;
    floe_status st = upload_query(so, part, &q);
    s3_req rq = {.method = "PUT", .loc = &so->loc, .query = floe_buf_cstr(&q), .body = data,
                 .body_len = len, .content_type = "application/octet-stream", .max_body = 1 << 16};
    s3_resp rs = {0};
    if (!st) st = perform(so->c, &rq, &rs);
    if (!st && !rs.etag[0])
        st = floe_error(FLOE_ERR_IO, "%s: UploadPart %d response has no ETag", so->base.path, part);
    if (!st && !(*etag = floe_strdup(rs.etag)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: part ETag", so->base.path);
    resp_free(&rs);
    floe_buf_free(&q);
    return st ? floe_status_wrap(st, "part %d", part) : NULL;
}

/* Record the outcome of one part (caller holds mu when threads run). */
static void part_done(s3_output *so, int part, floe_status st, char *etag) {
    if (st) {
        if (!so->failed) so->failed = st;
        else floe_status_free(st);
        floe_free(etag);
    } else {
        so->etags[part - 1] = etag;
    }
}

static void *uploader_main(void *arg) {
    s3_output *so = arg;
    pthread_mutex_lock(&so->mu);
    for (;;) {
        while (!so->head && !so->stopping) pthread_cond_wait(&so->cv, &so->mu);
        part_job *job = so->head;
        if (!job) break; /* stopping, and nothing left */
        so->head = job->next;
        if (!so->head) so->tail = NULL;
        int skip = so->failed != NULL; /* after a failure the upload is doomed */
        pthread_mutex_unlock(&so->mu);
        char *etag = NULL;
        floe_status st = skip ? NULL : put_part(so, job->number, job->data, job->len, &etag);
        pthread_mutex_lock(&so->mu);
        if (!skip) part_done(so, job->number, st, etag);
        so->pending--;
        pthread_cond_broadcast(&so->cv);
        floe_free(job->data);
        floe_free(job);
    }
    pthread_mutex_unlock(&so->mu);
    return NULL;
}

static void start_uploaders(s3_output *so) {
    int want = so->c->cfg.upload_threads;
    if (want <= 0) return;
    so->threads = floe_calloc((size_t)want, sizeof *so->threads);
    if (!so->threads) return; /* upload in the writer's thread instead */
    for (int i = 0; i < want; i++) {
        if (pthread_create(&so->threads[i], NULL, uploader_main, so) != 0) break;
        so->nthreads++;
    }
}

/* Let the uploaders drain the queue and exit; join them. */
static void stop_uploaders(s3_output *so) {
    if (!so->nthreads) return;
    pthread_mutex_lock(&so->mu);
    so->stopping = 1;
    pthread_cond_broadcast(&so->cv);
    pthread_mutex_unlock(&so->mu);
    for (int i = 0; i < so->nthreads; i++) pthread_join(so->threads[i], NULL);
    so->nthreads = 0;
}

/* A copy of the first failure, or NULL. */
static floe_status output_failure(s3_output *so) {
    pthread_mutex_lock(&so->mu);
    floe_status st = so->failed ? floe_error(floe_status_code(so->failed), "%s: upload failed: %s",
                                             so->base.path, floe_status_message(so->failed))
                                : NULL;
    pthread_mutex_unlock(&so->mu);
    return st;
}

/* Hand the full (or, at close, last) part in `buf` to the uploaders. */
static floe_status submit_part(s3_output *so) {
    if (!so->upload_id) {
        FLOE_TRY(start_multipart(so));
        start_uploaders(so);
    }
    if (so->nparts >= S3_MAX_PARTS)
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "%s: more than %d parts of %zu bytes; raise s3.multipart.part-size-bytes",
                          so->base.path, S3_MAX_PARTS, so->c->cfg.part_size);
    part_job *job = floe_calloc(1, sizeof *job);
    if (!job) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: part buffer", so->base.path);
    floe_status st = NULL;
    pthread_mutex_lock(&so->mu);
    if (so->nparts == so->parts_cap) {
        size_t cap = so->parts_cap ? so->parts_cap * 2 : 16;
        char **p = floe_realloc(so->etags, cap * sizeof *p);
        if (p) {
            memset(p + so->parts_cap, 0, (cap - so->parts_cap) * sizeof *p);
            so->etags = p;
            so->parts_cap = cap;
        } else {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: part list", so->base.path);
        }
    }
    while (!st && so->nthreads && so->pending >= so->nthreads && !so->failed)
        pthread_cond_wait(&so->cv, &so->mu);
    pthread_mutex_unlock(&so->mu);
    if (!st) st = output_failure(so);
    if (st) {
        floe_free(job);
        return st;
    }
    job->number = (int)++so->nparts;
    job->len = so->buf.len;
    job->data = floe_buf_detach(&so->buf, NULL);
    if (!so->nthreads) { /* no uploader threads: upload here */
        char *etag = NULL;
        st = put_part(so, job->number, job->data, job->len, &etag);
        part_done(so, job->number, st, etag);
        floe_free(job->data);
        floe_free(job);
        return output_failure(so);
    }
    pthread_mutex_lock(&so->mu);
    if (so->tail) so->tail->next = job;
    else so->head = job;
    so->tail = job;
    so->pending++;
    pthread_cond_broadcast(&so->cv);
    pthread_mutex_unlock(&so->mu);
    return NULL;
}

static floe_status s3_write(floe_output *out, const void *data, size_t len) {
    s3_output *so = (s3_output *)out;
    FLOE_TRY(output_failure(so));
    const uint8_t *p = data;
    size_t part = so->c->cfg.part_size;
    while (len) {
        size_t take = part - so->buf.len;
        if (take > len) take = len;
        floe_status st = floe_buf_append(&so->buf, p, take);
        if (!st && so->buf.len == part) st = submit_part(so);
        if (st) {
            pthread_mutex_lock(&so->mu);
            if (!so->failed) so->failed = floe_error(floe_status_code(st), "%s", floe_status_message(st));
            pthread_mutex_unlock(&so->mu);
            return st;
        }
        p += take;
        len -= take;
        out->bytes_written += take;
    }
    return NULL;
}

static floe_status put_whole(s3_output *so) {
    s3_req rq = {.method = "PUT", .loc = &so->loc, .body = so->buf.data, .body_len = so->buf.len,
                 .content_type = "application/octet-stream", .if_none_match = !so->overwrite,
                 .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = perform(so->c, &rq, &rs);
    resp_free(&rs);
    return st;
}

/* A retried CompleteMultipartUpload answered 404 NoSuchUpload: the earlier
 * attempt may have succeeded and only its response been lost.  If the
 * object now exists with exactly our size, it did. */
static floe_status completed_after_all(s3_output *so, const s3_resp *rs, floe_status st) {
    floe_buf code = FLOE_BUF_INIT, msg = FLOE_BUF_INIT;
    error_details(so->c, rs, &code, &msg);
    int no_upload = strcmp(floe_buf_cstr(&code), "NoSuchUpload") == 0;
    floe_buf_free(&code);
    floe_buf_free(&msg);
    if (!no_upload) return st;
    int64_t size = -1;
    floe_status hst = head_object(so->c, &so->loc, &size);
    if (hst || size < 0 || (uint64_t)size != so->base.bytes_written) {
        floe_status_free(hst);
        return st;
    }
    S3_DEBUG("%s: completion was lost in transit but took effect", so->base.path);
    floe_status_free(st);
    return NULL;
}

static floe_status complete_multipart(s3_output *so) {
    floe_status st = so->buf.len ? submit_part(so) : NULL;
    stop_uploaders(so); /* waits for every part */
    if (st) return st;
    FLOE_TRY(output_failure(so));
    for (size_t i = 0; i < so->nparts; i++)
        if (!so->etags[i]) return floe_error(FLOE_ERR_INTERNAL, "%s: part %zu has no ETag", so->base.path, i + 1);
    floe_buf xml = FLOE_BUF_INIT, q = FLOE_BUF_INIT;
    st = floe_buf_append_str(&xml, "<CompleteMultipartUpload>");
    for (size_t i = 0; !st && i < so->nparts; i++) {
        st = floe_buf_printf(&xml, "<Part><PartNumber>%zu</PartNumber><ETag>", i + 1);
        if (!st) st = xml_escape(&xml, so->etags[i]);
        if (!st) st = floe_buf_append_str(&xml, "</ETag></Part>");
    }
    if (!st) st = floe_buf_append_str(&xml, "</CompleteMultipartUpload>");
    if (!st) st = upload_query(so, 0, &q);
    if (!st) {
        s3_req rq = {.method = "POST", .loc = &so->loc, .query = floe_buf_cstr(&q),
                     .body = xml.data, .body_len = xml.len, .content_type = "application/xml",
                     .if_none_match = !so->overwrite, .max_body = 1 << 20, .errors_in_200 = 1};
        s3_resp rs = {0};
        st = perform(so->c, &rq, &rs);
        if (st && rs.status == 404 && rs.attempts > 1) st = completed_after_all(so, &rs, st);
        resp_free(&rs);
    }
    floe_buf_free(&xml);
    floe_buf_free(&q);
    return st;
}

static void abort_multipart(s3_output *so) {
    if (!so->upload_id) return;
    floe_buf q = FLOE_BUF_INIT;
    floe_status st = upload_query(so, 0, &q);
    if (!st) {
        s3_req rq = {.method = "DELETE", .loc = &so->loc, .query = floe_buf_cstr(&q), .max_body = 1 << 16};
        s3_resp rs = {0};
        st = perform(so->c, &rq, &rs);
        resp_free(&rs);
    }
    floe_buf_free(&q);
    /* Best effort: a bucket lifecycle rule reclaims what is left. */
    if (st) S3_DEBUG("abandoning multipart upload of %s: %s", so->base.path, floe_status_message(st));
    floe_status_free(st);
}

static void s3_output_free(s3_output *so) {
    stop_uploaders(so);
    for (size_t i = 0; i < so->nparts; i++) floe_free(so->etags[i]);
    floe_free(so->etags);
    floe_free(so->threads);
    floe_free(so->upload_id);
    floe_buf_free(&so->buf);
    floe_status_free(so->failed);
    pthread_cond_destroy(&so->cv);
    pthread_mutex_destroy(&so->mu);
    floe_s3_client_release(so->c);
    loc_free(&so->loc);
    floe_free(so->base.path);
    floe_free(so);
}

static floe_status s3_output_close(floe_output *out) {
    s3_output *so = (s3_output *)out;
    floe_status st = NULL;
    if (so->upload_id) {
        st = complete_multipart(so); /* also reports an earlier failure */
        if (st) abort_multipart(so);
    } else if (so->failed) {
        st = floe_error(floe_status_code(so->failed), "%s: not written: %s", out->path,
                        floe_status_message(so->failed));
    } else {
        st = put_whole(so);
    }
    s3_output_free(so);
    return st;
}

static void s3_output_abort(floe_output *out) {
    s3_output *so = (s3_output *)out;
    /* Mark the upload failed so queued parts are skipped, let the parts
     * already in flight finish, then abort it. */
    pthread_mutex_lock(&so->mu);
    if (!so->failed) so->failed = floe_error(FLOE_ERR_CANCELLED, "%s: aborted", out->path);
    pthread_mutex_unlock(&so->mu);
    stop_uploaders(so);
    abort_multipart(so);
    s3_output_free(so);
}

static const floe_output_ops s3_output_ops = {s3_write, s3_output_close, s3_output_abort};

floe_status floe_s3_create_output(floe_s3_client *c, const char *location, int overwrite,
                                  floe_output **out) {
    *out = NULL;
    s3_loc l;
    FLOE_TRY(loc_parse(location, 1, &l));
    if (!overwrite) {
        /* Early, friendly check; the final PUT/complete also sends
         * If-None-Match: * so a racing writer cannot be overwritten on
         * stores that honour it. */
        int exists = 0;
        floe_status st = floe_s3_exists(c, location, &exists);
        if (!st && exists) st = floe_error(FLOE_ERR_ALREADY_EXISTS, "'%s' already exists", location);
        if (st) {
            loc_free(&l);
            return st;
        }
    }
    s3_output *so = floe_calloc(1, sizeof *so);
    char *p = floe_strdup(location);
    if (!so || !p) {
        floe_free(so);
        floe_free(p);
        loc_free(&l);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "creating '%s'", location);
    }
    so->base.ops = &s3_output_ops;
    so->base.path = p;
    pthread_mutex_init(&so->mu, NULL);
    pthread_cond_init(&so->cv, NULL);
    so->c = client_ref(c);
    so->loc = l;
    so->overwrite = overwrite;
    *out = &so->base;
    return NULL;
}

/* ---- delete, exists, list ----------------------------------------------------- */

floe_status floe_s3_delete(floe_s3_client *c, const char *location) {
    s3_loc l;
    FLOE_TRY(loc_parse(location, 1, &l));
    s3_req rq = {.method = "DELETE", .loc = &l, .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = perform(c, &rq, &rs);
    if (st && rs.status == 404 && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        /* S3 itself answers 204 for a missing key; some stores say 404 NoSuchKey. */
        floe_buf code = FLOE_BUF_INIT, msg = FLOE_BUF_INIT;
        error_details(c, &rs, &code, &msg);
        if (strcmp(floe_buf_cstr(&code), "NoSuchKey") == 0) {
            floe_status_free(st);
            st = NULL;
        }
        floe_buf_free(&code);
        floe_buf_free(&msg);
    }
    resp_free(&rs);
    loc_free(&l);
    return st;
}

floe_status floe_s3_exists(floe_s3_client *c, const char *location, int *exists) {
    *exists = 0;
    s3_loc l;
    FLOE_TRY(loc_parse(location, 1, &l));
    s3_req rq = {.method = "HEAD", .loc = &l, .max_body = 1 << 16};
    s3_resp rs = {0};
    floe_status st = perform(c, &rq, &rs);
    if (st && c->cfg.credentials_id && (rs.status == 400 || rs.status == 403)) {
        /* Perhaps expired keys: a one-byte GET says so in its body (and
         * refreshes them); its answer stands for the HEAD's. */
        s3_req g = {.method = "GET", .loc = &l, .range = "bytes=0-0", .max_body = 1 << 16};
        floe_status_free(st);
        resp_free(&rs);
        memset(&rs, 0, sizeof rs);
        st = perform(c, &g, &rs);
        if (st && rs.status == 416) { /* an empty object: it exists */
            floe_status_free(st);
            st = NULL;
        }
    }
    if (!st) {
        *exists = 1;
    } else if (rs.status == 404) {
        /* A HEAD cannot tell a missing key from a missing bucket (no
         * body); either way the object does not exist. */
        floe_status_free(st);
        st = NULL;
    }
    resp_free(&rs);
    loc_free(&l);
    return st;
}

/* "2026-11-29T17:25:35.000Z" -> Unix ms, or -1. */
static int64_t parse_iso8601_ms(const char *s) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int ms = 0;
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest) return -1;
    if (*rest == '.') {
        rest++;
        int digits = 0;
        while (isdigit((unsigned char)*rest)) {
            if (digits < 3) ms = ms * 10 + (*rest - '0');
            digits++;
            rest++;
        }
        while (digits++ < 3) ms *= 10;
    }
    time_t t = timegm(&tm);
    if (t == (time_t)-1) return -1;
    return (int64_t)t * 1000 + ms;
}

typedef struct list_page {
    floe_buf key, size, modified, token, truncated, location;
} list_page;

static void list_page_free(list_page *p) {
    floe_buf_free(&p->key);
    floe_buf_free(&p->size);
    floe_buf_free(&p->modified);
    floe_buf_free(&p->token);
    floe_buf_free(&p->truncated);
    floe_buf_free(&p->location);
}

/* Hand each <Contents> of one ListObjectsV2 page to `fn`; set *more and
 * leave the next continuation token in pg->token. */
static floe_status list_emit(const s3_loc *l, const floe_buf *body, list_page *pg,
                             floe_fileio_list_fn fn, void *ctx, int *more) {
    const char *b = (const char *)body->data, *e = b + body->len;
    const char *t;
    size_t tl;
    int found;
    *more = 0;
    if (!b || !xml_next(b, e, "ListBucketResult", &t, &tl))
        return floe_error(FLOE_ERR_CORRUPT, "s3://%s/%s: listing response is not a ListBucketResult",
                          l->bucket, l->key);
    e = t + tl;
    const char *p = t;
    while ((p = xml_next(p, e, "Contents", &t, &tl)) != NULL) {
        const char *ce = t + tl;
        FLOE_TRY(xml_get(t, ce, "Key", &pg->key, &found));
        if (!found) return floe_error(FLOE_ERR_CORRUPT, "s3://%s: listed object without a Key", l->bucket);
        FLOE_TRY(xml_get(t, ce, "Size", &pg->size, &found));
        char *end = NULL;
        errno = 0;
        unsigned long long sz = found ? strtoull(floe_buf_cstr(&pg->size), &end, 10) : 0;
        if (!found || !pg->size.len || *end || errno)
            return floe_error(FLOE_ERR_CORRUPT, "s3://%s/%s: listed without a valid Size", l->bucket,
                              floe_buf_cstr(&pg->key));
        FLOE_TRY(xml_get(t, ce, "LastModified", &pg->modified, &found));
        floe_buf_clear(&pg->location);
        FLOE_TRY(floe_buf_printf(&pg->location, "%s://%s/%s", l->scheme, l->bucket, floe_buf_cstr(&pg->key)));
        floe_file_info info = {floe_buf_cstr(&pg->location), sz,
                               found ? parse_iso8601_ms(floe_buf_cstr(&pg->modified)) : -1};
        FLOE_TRY(fn(ctx, &info));
    }
    FLOE_TRY(xml_get(b, (const char *)body->data + body->len, "IsTruncated", &pg->truncated, &found));
    if (found && strcmp(floe_buf_cstr(&pg->truncated), "true") == 0) {
        floe_buf prev = pg->token;
        floe_buf_init(&pg->token);
        floe_status st = xml_get(b, (const char *)body->data + body->len, "NextContinuationToken",
                                 &pg->token, &found);
        if (!st && (!found || !pg->token.len ||
                    (prev.len == pg->token.len && memcmp(prev.data, pg->token.data, prev.len) == 0)))
            st = floe_error(FLOE_ERR_CORRUPT,
                            "s3://%s/%s: truncated listing without a new continuation token",
                            l->bucket, l->key);
        floe_buf_free(&prev);
        FLOE_TRY(st);
        *more = 1;
    }
    return NULL;
}

floe_status floe_s3_list(floe_s3_client *c, const char *prefix, floe_fileio_list_fn fn, void *ctx) {
    s3_loc l;
    FLOE_TRY(loc_parse(prefix, 0, &l));
    list_page pg;
    memset(&pg, 0, sizeof pg);
    floe_buf q = FLOE_BUF_INIT;
    floe_status st = NULL;
    for (int more = 1; more && !st;) {
        /* Canonical order: continuation-token, list-type, max-keys, prefix. */
        floe_buf_clear(&q);
        if (pg.token.len) {
            st = floe_buf_append_str(&q, "continuation-token=");
            if (!st) st = uri_encode(&q, (const char *)pg.token.data, pg.token.len, 0);
            if (!st) st = floe_buf_append_byte(&q, '&');
        }
        if (!st) st = floe_buf_printf(&q, "list-type=2&max-keys=%d&prefix=", c->cfg.list_max_keys);
        if (!st) st = uri_encode(&q, l.key, strlen(l.key), 0);
        if (st) break;
        s3_req rq = {.method = "GET", .loc = &l, .bucket_level = 1, .query = floe_buf_cstr(&q),
                     .max_body = 64 << 20};
        s3_resp rs = {0};
        st = perform(c, &rq, &rs);
        if (!st) st = list_emit(&l, &rs.body, &pg, fn, ctx, &more);
        resp_free(&rs);
    }
    floe_buf_free(&q);
    list_page_free(&pg);
    loc_free(&l);
    return st;
}
