/*
 * s3_request.c — one S3 request over libcurl: signed, sent, and retried
 * (s3_perform), with the error messages and the redacted debug output.
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
 * Secrets: the secret key and session token go only into curl options and
 * the x-amz-security-token header.  Debug logs (base/log.h, FLOE_LOG=debug)
 * print the configuration through floe_log_config (secrets shown as ***)
 * and each request's method, URL, status and timing; curl's header dump
 * (FLOE_LOG=trace) passes every header line through floe_redact_header,
 * which hides Authorization and x-amz-security-token; text taken from
 * server error bodies is scrubbed of both secrets before it enters a
 * message.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
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
#include "io/s3_internal.h"

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

/* ---- one request, with retries ------------------------------------------------ */

/* s3_req and s3_resp are in s3_internal.h: every operation fills them. */

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
void s3_error_details(const floe_s3_client *c, const s3_resp *rs, floe_buf *code, floe_buf *msg) {
    int found;
    const char *b = (const char *)rs->body.data, *e = b + rs->body.len;
    floe_buf_clear(code);
    floe_buf_clear(msg);
    if (!b) return;
    floe_status st = s3_xml_get(b, e, "Code", code, &found);
    if (st) {
        floe_status_free(st);
        floe_buf_clear(code);
    }
    st = s3_xml_get(b, e, "Message", msg, &found);
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

void s3_loc_text(const s3_loc *l, char *buf, size_t cap) {
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
    s3_loc_text(rq->loc, where, sizeof where);
    floe_buf code = FLOE_BUF_INIT, msg = FLOE_BUF_INIT;
    s3_error_details(c, rs, &code, &msg);
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

floe_status s3_perform(floe_s3_client *c, const s3_req *rq, s3_resp *rs) {
    floe_buf url = FLOE_BUF_INIT;
    struct curl_slist *hdrs = NULL, *connect_to = NULL;
    CURL *h = NULL;
    char where[1200];
    s3_creds cr;
    int auth_retried = 0;
    s3_loc_text(rq->loc, where, sizeof where);
    rs->status = 0;
    rs->content_length = -1;
    rs->creds = &cr;
    floe_status st = creds_acquire(c, &cr);
    if (st) st = floe_status_wrap(st, "%s %s", rq->method, where);
    if (!st) st = s3_build_url(c, rq->loc, rq->bucket_level, rq->query, &url);
    if (!st) st = build_headers(&cr, rq, &hdrs);
    if (!st && c->cfg.connect_to) {
        connect_to = curl_slist_append(NULL, c->cfg.connect_to);
        if (!connect_to) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "S3 request for %s", where);
    }
    if (!st && !(h = s3_handle_acquire(c))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "curl handle for %s", where);
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
            s3_error_details(c, rs, &code, &msg);
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
    if (h) s3_handle_release(c, h);
    curl_slist_free_all(hdrs);
    curl_slist_free_all(connect_to);
    floe_buf_free(&url);
    rs->creds = NULL;
    creds_clear(&cr);
    return st;
}

void s3_resp_free(s3_resp *rs) { floe_buf_free(&rs->body); }
