/*
 * s3.c — the S3 client (io/s3.h): its configuration from Iceberg-named
 * properties and AWS_* environment variables, the client object, and
 * s3:// locations with the URLs they become.
 *
 * curl easy handles are pooled per client behind a mutex: a handle is used
 * by one thread at a time, and reuse keeps connections alive.
 *
 * The rest of the client is in the files s3_internal.h lists: requests
 * (s3_request.c), XML (s3_xml.c), inputs, delete and exists (s3_object.c),
 * outputs (s3_upload.c) and listings (s3_list.c).
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "base/buffer.h"
#include "base/log.h"
#include "floe/memory.h"
#include "io/s3_internal.h"

/* ---- small helpers ------------------------------------------------------------ */

/* ASCII only: the C locale's isalnum() may accept more. */
static int ascii_alnum(unsigned char ch) {
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Percent-encode per SigV4: unreserved characters stay, '/' stays when
 * `keep_slash`, everything else becomes %XX (upper-case hex). */
floe_status s3_uri_encode(floe_buf *b, const char *s, size_t n, int keep_slash) {
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

/* struct floe_s3_client is in s3_internal.h: requests read its configuration. */

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

floe_s3_client *s3_client_ref(floe_s3_client *c) {
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

CURL *s3_handle_acquire(floe_s3_client *c) {
    CURL *h = NULL;
    pthread_mutex_lock(&c->lock);
    if (c->nidle) h = c->idle[--c->nidle];
    pthread_mutex_unlock(&c->lock);
    return h ? h : curl_easy_init();
}

void s3_handle_release(floe_s3_client *c, CURL *h) {
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

/* s3_loc is in s3_internal.h: every operation takes one. */

void s3_loc_free(s3_loc *l) {
    floe_free(l->scheme);
    floe_free(l->bucket);
    floe_free(l->key);
    memset(l, 0, sizeof *l);
}

floe_status s3_loc_parse(const char *location, int need_key, s3_loc *l) {
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
        s3_loc_free(l);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "parsing '%s'", location);
    }
    return NULL;
}

/* Bucket names with dots break TLS wildcard certificates when virtual
 * hosted, and IP/localhost endpoints cannot host buckets as subdomains. */
static int use_path_style(const floe_s3_client *c, const s3_loc *l) {
    return c->cfg.path_style || c->host_is_ip || strchr(l->bucket, '.') != NULL;
}

floe_status s3_build_url(floe_s3_client *c, const s3_loc *l, int bucket_level,
                             const char *query, floe_buf *url) {
    floe_buf_clear(url);
    if (use_path_style(c, l)) {
        FLOE_TRY(floe_buf_printf(url, "%s://%s%s/%s", c->scheme, c->hostport, c->base_path, l->bucket));
        if (!bucket_level) FLOE_TRY(floe_buf_append_byte(url, '/'));
    } else {
        FLOE_TRY(floe_buf_printf(url, "%s://%s.%s%s/", c->scheme, l->bucket, c->hostport, c->base_path));
    }
    if (!bucket_level) FLOE_TRY(s3_uri_encode(url, l->key, strlen(l->key), 1));
    if (query && *query) FLOE_TRY(floe_buf_printf(url, "?%s", query));
    return NULL;
}
