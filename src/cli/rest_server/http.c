/*
 * http.c — the REST server's HTTP side: collecting a request's body from
 * libmicrohttpd, splitting and decoding the path, routing to the handlers,
 * and sending their JSON answers, every error in the Iceberg error model
 * {"error": {"message", "type", "code"}}.
 *
 * libmicrohttpd calls the access handler several times per request: once
 * to set up (we allocate the per-request state), then once per chunk of
 * body, then once with no data, when the whole request is in and we
 * answer.  A body over RS_MAX_BODY is drained and answered with 413.
 *
 * The URL reaches us as sent (rs_http_no_unescape), so "%2F" in a table
 * name stays inside its segment; each segment is decoded here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "cli/rest_server/rest_server.h"
#include "floe/memory.h"

#define RS_MAX_BODY (16u << 20)
#define RS_MAX_SEGS 16

/* Per-request state kept between the access handler's calls. */
typedef struct rs_conn {
    floe_buf body;
    bool too_big;
    bool oom;
    struct timespec start;
} rs_conn;

/* ---- responses ------------------------------------------------------------ */

static void set_text(rs_response *rs, const char *text) {
    floe_buf_clear(&rs->body);
    floe_status st = floe_buf_append_str(&rs->body, text);
    if (st) floe_status_free(st); /* an empty body still carries the status */
}

void rs_json(rs_response *rs, unsigned status, json_t *j) {
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text) {
        rs->status = 500;
        set_text(rs, "{\"error\":{\"message\":\"out of memory\",\"type\":\"ServiceFailureException\",\"code\":500}}");
        return;
    }
    rs->status = status;
    set_text(rs, text);
    free(text);
}

void rs_no_content(rs_response *rs) {
    rs->status = 204;
    floe_buf_clear(&rs->body);
}

void rs_error(rs_response *rs, unsigned code, const char *type, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_t *j = json_pack("{s:{s:s,s:s,s:i}}", "error", "message", msg, "type", type, "code", (int)code);
    rs_json(rs, code, j);
}

void rs_error_status(rs_response *rs, floe_status st, const char *not_found_type, const char *conflict_type) {
    const char *msg = floe_status_message(st);
    switch (floe_status_code(st)) {
    case FLOE_ERR_NOT_FOUND: rs_error(rs, 404, not_found_type, "%s", msg); break;
    case FLOE_ERR_ALREADY_EXISTS: rs_error(rs, 409, "AlreadyExistsException", "%s", msg); break;
    case FLOE_ERR_CONFLICT: rs_error(rs, 409, conflict_type, "%s", msg); break;
    case FLOE_ERR_INVALID_ARGUMENT:
    case FLOE_ERR_CORRUPT:
    case FLOE_ERR_TYPE:
    case FLOE_ERR_SYNTAX:
    case FLOE_ERR_CONSTRAINT: rs_error(rs, 400, "BadRequestException", "%s", msg); break;
    case FLOE_ERR_UNSUPPORTED: rs_error(rs, 406, "UnsupportedOperationException", "%s", msg); break;
    case FLOE_ERR_AUTH: rs_error(rs, 403, "ForbiddenException", "%s", msg); break;
    default: rs_error(rs, 500, "ServiceFailureException", "%s", msg); break;
    }
    floe_status_free(st);
}

json_t *rs_pairs_object(char *const *kv, int32_t n_pairs) {
    json_t *o = json_object();
    for (int32_t i = 0; o && i < n_pairs; i++)
        if (json_object_set_new(o, kv[2 * i], json_string(kv[2 * i + 1]))) {
            json_decref(o);
            return NULL;
        }
    return o;
}

/* ---- request helpers -------------------------------------------------------- */

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char *rs_percent_decode(const char *s, size_t n, bool form) {
    char *out = floe_malloc(n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '%') {
            int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
            int lo = i + 2 < n ? hexval(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) goto bad;
            c = (char)(hi * 16 + lo);
            i += 2;
        } else if (form && c == '+') {
            c = ' ';
        }
        if (c == '\0') goto bad;
        out[o++] = c;
    }
    out[o] = '\0';
    return out;
bad:
    floe_free(out);
    return NULL;
}

char *rs_query_arg(rs_request *rq, const char *key) {
    const char *raw = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, key);
    return raw ? rs_percent_decode(raw, strlen(raw), true) : NULL;
}

const char *rs_header(rs_request *rq, const char *name) {
    return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
}

json_t *rs_body_object(rs_request *rq, rs_response *rs, const char *what) {
    if (rq->body_len == 0) {
        rs_error(rs, 400, "BadRequestException", "%s: the request has no body (a JSON object is expected)", what);
        return NULL;
    }
    json_error_t err;
    json_t *j = json_loadb(rq->body, rq->body_len, JSON_REJECT_DUPLICATES, &err);
    if (!j) {
        rs_error(rs, 400, "BadRequestException", "%s: invalid JSON at line %d, column %d: %s", what, err.line,
                 err.column, err.text);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        rs_error(rs, 400, "BadRequestException", "%s: the body must be a JSON object", what);
        return NULL;
    }
    return j;
}

/* A name that can become a directory of the warehouse. */
static const char *bad_name_reason(const char *name) {
    if (!*name) return "is empty";
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return "is not allowed";
    if (strlen(name) > 255) return "is longer than 255 bytes";
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) return "contains a control character";
        if (*p == '/' || *p == '\\') return "contains a slash";
    }
    return NULL;
}

bool rs_namespace_name(rs_response *rs, const char *seg) {
    if (strchr(seg, 0x1f)) {
        rs_error(rs, 400, "BadRequestException", "namespace '%s': floe's catalog has one-level namespaces only",
                 seg);
        return false;
    }
    const char *why = bad_name_reason(seg);
    if (why) {
        rs_error(rs, 400, "BadRequestException", "namespace name '%s' %s", seg, why);
        return false;
    }
    return true;
}

bool rs_namespace_array(rs_response *rs, json_t *arr, const char *what, const char **out) {
    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        rs_error(rs, 400, "BadRequestException", "%s: 'namespace' must be a non-empty array of strings", what);
        return false;
    }
    if (json_array_size(arr) > 1) {
        rs_error(rs, 400, "BadRequestException", "%s: floe's catalog has one-level namespaces only (got %zu levels)",
                 what, json_array_size(arr));
        return false;
    }
    const char *ns = json_string_value(json_array_get(arr, 0));
    if (!ns) {
        rs_error(rs, 400, "BadRequestException", "%s: 'namespace' must be an array of strings", what);
        return false;
    }
    if (!rs_namespace_name(rs, ns)) return false;
    *out = ns;
    return true;
}

bool rs_table_name(rs_response *rs, const char *name) {
    const char *why = bad_name_reason(name);
    if (why) {
        rs_error(rs, 400, "BadRequestException", "table name '%s' %s", name, why);
        return false;
    }
    return true;
}

/* ---- routing ---------------------------------------------------------------- */

static bool is(const char *a, const char *b) { return strcmp(a, b) == 0; }

static void method_not_allowed(rs_request *rq, rs_response *rs) {
    rs_error(rs, 405, "MethodNotAllowedException", "method %s is not allowed on this route", rq->method);
}

/* GET /v1/config: no prefix, and the endpoints this server serves. */
static void handle_config(rs_request *rq, rs_response *rs) {
    static const char *const endpoints[] = {
        "GET /v1/{prefix}/namespaces",
        "POST /v1/{prefix}/namespaces",
        "GET /v1/{prefix}/namespaces/{namespace}",
        "HEAD /v1/{prefix}/namespaces/{namespace}",
        "DELETE /v1/{prefix}/namespaces/{namespace}",
        "POST /v1/{prefix}/namespaces/{namespace}/properties",
        "GET /v1/{prefix}/namespaces/{namespace}/tables",
        "POST /v1/{prefix}/namespaces/{namespace}/tables",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "GET /v1/{prefix}/namespaces/{namespace}/views",
        "POST /v1/{prefix}/namespaces/{namespace}/views",
        "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
        "POST /v1/{prefix}/namespaces/{namespace}/register",
        "POST /v1/{prefix}/tables/rename",
        "POST /v1/{prefix}/views/rename",
    };
    json_t *eps = json_array();
    for (size_t i = 0; eps && i < sizeof endpoints / sizeof *endpoints; i++)
        if (json_array_append_new(eps, json_string(endpoints[i]))) {
            json_decref(eps);
            eps = NULL;
        }
    json_t *defaults = json_object();
    const char *wh = floe_catalog_warehouse(rq->srv->catalog);
    if (defaults && wh) json_object_set_new(defaults, "warehouse", json_string(wh));
    json_t *j = eps && defaults ? json_pack("{s:o,s:o,s:o}", "defaults", defaults, "overrides", json_object(),
                                            "endpoints", eps)
                                : NULL;
    if (!j) {
        json_decref(eps);
        json_decref(defaults);
    }
    rs_json(rs, 200, j);
}

/* Routes under /v1/namespaces/{ns}. */
static void route_namespace(rs_request *rq, rs_response *rs, const char *url) {
    const char *m = rq->method;
    const char *ns = rq->segs[1];
    const char *sub = rq->n_segs > 2 ? rq->segs[2] : "";
    const char *t = rq->n_segs > 3 ? rq->segs[3] : "";
    const char *leaf = rq->n_segs > 4 ? rq->segs[4] : "";
    if (!rs_namespace_name(rs, ns)) return;
    if (rq->n_segs == 2) {
        if (is(m, "GET")) rs_handle_load_namespace(rq, rs, ns);
        else if (is(m, "HEAD")) rs_handle_namespace_exists(rq, rs, ns);
        else if (is(m, "DELETE")) rs_handle_drop_namespace(rq, rs, ns);
        else method_not_allowed(rq, rs);
    } else if (rq->n_segs == 3 && is(sub, "properties")) {
        if (is(m, "POST")) rs_handle_update_namespace_properties(rq, rs, ns);
        else method_not_allowed(rq, rs);
    } else if (rq->n_segs == 3 && is(sub, "register")) {
        if (is(m, "POST")) rs_handle_register_table(rq, rs, ns);
        else method_not_allowed(rq, rs);
    } else if (rq->n_segs == 3 && is(sub, "tables")) {
        if (is(m, "GET")) rs_handle_list_tables(rq, rs, ns);
        else if (is(m, "POST")) rs_handle_create_table(rq, rs, ns);
        else method_not_allowed(rq, rs);
    } else if (rq->n_segs == 3 && is(sub, "views")) {
        if (is(m, "GET")) rs_handle_list_views(rq, rs, ns);
        else if (is(m, "POST")) rs_handle_create_view(rq, rs, ns);
        else method_not_allowed(rq, rs);
    } else if (rq->n_segs == 4 && is(sub, "views")) {
        if (!rs_table_name(rs, t)) return;
        if (is(m, "GET")) rs_handle_load_view(rq, rs, ns, t);
        else if (is(m, "POST")) rs_handle_replace_view(rq, rs, ns, t);
        else if (is(m, "DELETE")) rs_handle_drop_view(rq, rs, ns, t);
        else method_not_allowed(rq, rs);
    } else if (!is(sub, "tables") || rq->n_segs > 5) {
        rs_error(rs, 404, "NotFoundException", "no route for %s %s", m, url);
    } else if (!rs_table_name(rs, t)) {
        return;
    } else if (rq->n_segs == 4) {
        if (is(m, "GET")) rs_handle_load_table(rq, rs, ns, t);
        else if (is(m, "HEAD")) rs_handle_table_exists(rq, rs, ns, t);
        else if (is(m, "POST")) rs_handle_commit_table(rq, rs, ns, t);
        else if (is(m, "DELETE")) rs_handle_drop_table(rq, rs, ns, t);
        else method_not_allowed(rq, rs);
    } else if (is(leaf, "credentials")) {
        if (is(m, "GET")) rs_handle_table_credentials(rq, rs, ns, t);
        else method_not_allowed(rq, rs);
    } else if (is(leaf, "metrics")) {
        /* Scan and commit reports: accepted and dropped. */
        if (is(m, "POST")) rs_no_content(rs);
        else method_not_allowed(rq, rs);
    } else {
        rs_error(rs, 404, "NotFoundException", "no route for %s %s", m, url);
    }
}

static void route(rs_request *rq, rs_response *rs, const char *url) {
    const char *m = rq->method;
    const char *s0 = rq->n_segs > 0 ? rq->segs[0] : "";
    const char *s1 = rq->n_segs > 1 ? rq->segs[1] : "";
    if (rq->n_segs == 2 && is(s0, "oauth") && is(s1, "tokens")) {
        if (is(m, "POST")) rs_handle_oauth_tokens(rq, rs);
        else method_not_allowed(rq, rs);
        return;
    }
    if (rq->srv->client_id && !rs_auth_check(rq, rs)) return;
    if (rq->n_segs == 1 && is(s0, "config")) {
        if (is(m, "GET")) handle_config(rq, rs);
        else method_not_allowed(rq, rs);
    } else if (rq->n_segs == 1 && is(s0, "namespaces")) {
        if (is(m, "GET")) rs_handle_list_namespaces(rq, rs);
        else if (is(m, "POST")) rs_handle_create_namespace(rq, rs);
        else method_not_allowed(rq, rs);
    } else if (rq->n_segs >= 2 && is(s0, "namespaces")) {
        route_namespace(rq, rs, url);
    } else if (rq->n_segs == 2 && is(s0, "tables") && is(s1, "rename")) {
        if (is(m, "POST")) rs_handle_rename_table(rq, rs);
        else method_not_allowed(rq, rs);
    } else if (rq->n_segs == 2 && is(s0, "views") && is(s1, "rename")) {
        if (is(m, "POST")) rs_handle_rename_view(rq, rs);
        else method_not_allowed(rq, rs);
    } else {
        rs_error(rs, 404, "NotFoundException", "no route for %s %s", m, url);
    }
}

/* Split "/v1/a/b%2Fc" into decoded segments after "v1"; false (with the
 * answer set) when the path is not under /v1 or does not decode. */
static bool split_path(rs_request *rq, rs_response *rs, const char *url, char **segs) {
    if (strncmp(url, "/v1/", 4) != 0) {
        rs_error(rs, 404, "NotFoundException", "no route for %s %s (routes start with /v1/)", rq->method, url);
        return false;
    }
    const char *p = url + 4;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (rq->n_segs == RS_MAX_SEGS) {
            rs_error(rs, 404, "NotFoundException", "no route for %s %s", rq->method, url);
            return false;
        }
        char *seg = rs_percent_decode(p, n, false);
        if (!seg) {
            rs_error(rs, 400, "BadRequestException", "bad percent-escape in path segment %d of %s", rq->n_segs + 1,
                     url);
            return false;
        }
        segs[rq->n_segs++] = seg;
        if (!slash) break;
        p = slash + 1;
        if (!*p) break; /* a trailing slash is ignored */
    }
    return true;
}

/* Token requests and answers carry the client secret and the token: their
 * bodies are never logged, whatever the redaction would hide. */
static bool is_token_route(const char *url) { return strcmp(url, "/v1/oauth/tokens") == 0; }

static double ms_since(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static void handle_complete(rs_server *srv, struct MHD_Connection *conn, const char *url, const char *method,
                            rs_conn *cc, rs_response *rs) {
    if (cc->too_big) {
        rs_error(rs, 413, "BadRequestException", "request body larger than %u bytes", RS_MAX_BODY);
        return;
    }
    if (cc->oom) {
        rs_error(rs, 500, "ServiceFailureException", "out of memory reading the request body");
        return;
    }
    char *segs[RS_MAX_SEGS];
    rs_request rq = {.srv = srv, .conn = conn, .method = method, .segs = segs, .n_segs = 0,
                     .body = floe_buf_cstr(&cc->body), .body_len = cc->body.len};
    if (split_path(&rq, rs, url, segs)) {
        if (floe_log_enabled(FLOE_LOG_DEBUG) && rq.body_len && !is_token_route(url))
            floe_log_json(FLOE_LOG_DEBUG, "rest-server", "request body", rq.body);
        route(&rq, rs, url);
    }
    for (int i = 0; i < rq.n_segs; i++) floe_free(segs[i]);
}

enum MHD_Result rs_http_handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size,
                               void **con_cls) {
    rs_server *srv = cls;
    rs_conn *cc = *con_cls;
    if (!cc) {
        cc = floe_calloc(1, sizeof *cc);
        if (!cc) return MHD_NO;
        floe_buf_init(&cc->body);
        clock_gettime(CLOCK_MONOTONIC, &cc->start);
        *con_cls = cc;
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!cc->too_big && !cc->oom) {
            if (cc->body.len + *upload_data_size > RS_MAX_BODY) {
                cc->too_big = true;
                floe_buf_free(&cc->body);
            } else {
                floe_status st = floe_buf_append(&cc->body, upload_data, *upload_data_size);
                if (st) {
                    floe_status_free(st);
                    cc->oom = true;
                    floe_buf_free(&cc->body);
                }
            }
        }
        *upload_data_size = 0;
        return MHD_YES;
    }

    rs_response rs = {.status = 500, .body = FLOE_BUF_INIT, .content_type = NULL};
    handle_complete(srv, conn, url, method, cc, &rs);

    struct MHD_Response *resp =
        MHD_create_response_from_buffer(rs.body.len, (void *)floe_buf_cstr(&rs.body), MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret = MHD_NO;
    if (resp) {
        if (rs.body.len)
            MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                                    rs.content_type ? rs.content_type : "application/json");
        if (rs.status == 401) MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
        ret = MHD_queue_response(conn, rs.status, resp);
        MHD_destroy_response(resp);
    }
    if (floe_log_enabled(FLOE_LOG_DEBUG) && rs.body.len && !is_token_route(url))
        floe_log_json(FLOE_LOG_DEBUG, "rest-server", "response body", floe_buf_cstr(&rs.body));
    FLOE_LOG_INFO("rest-server", "%s %s %u %.1fms", method, url, rs.status, ms_since(&cc->start));
    floe_buf_free(&rs.body);
    return ret;
}

void rs_http_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe) {
    rs_conn *cc = *con_cls;
    if (!cc) return;
    floe_buf_free(&cc->body);
    floe_free(cc);
    *con_cls = NULL;
}

size_t rs_http_no_unescape(void *cls, struct MHD_Connection *conn, char *uri) { return strlen(uri); }
