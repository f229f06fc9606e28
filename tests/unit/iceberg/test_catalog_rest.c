/* The REST catalog client against a tiny scripted HTTP server in the test:
 * configuration merge and prefix, paging, retries of GETs (and none of
 * commits), the error model, OAuth2 token fetch and the 401 retry,
 * commits as requirements + updates, vended credentials. */
#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/buffer.h"
#include "floe/catalog.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "floe_test.h"
#include "iceberg/rest/rest_auth.h"
#include "iceberg/rest/rest_http.h"
#include "io/credentials.h"

/* ---- the scripted server ---------------------------------------------------- */

#define MAX_REQ 64

typedef struct req {
    char method[16];
    char target[512]; /* path and query */
    char auth[256];   /* Authorization value, "" when absent */
    char delegation[64];
    char *body;
} req;

typedef struct mock mock;
/* Fill status and body (a JSON text, may be NULL) for one request. */
typedef void (*handler_fn)(mock *m, const req *r, int *status, const char **body);

struct mock {
    int fd;
    int port;
    pthread_t thread;
    handler_fn handler;
    pthread_mutex_t mu;
    req reqs[MAX_REQ];
    int n_reqs;
    int tokens_issued;
    int counter; /* free for handlers */
    char body_buf[8192];
    atomic_bool stop; /* the main thread asks the server thread to end */
};

static void read_request(int c, req *r) {
    char buf[16384];
    size_t len = 0;
    char *end = NULL;
    while (len < sizeof buf - 1) {
        ssize_t n = recv(c, buf + len, sizeof buf - 1 - len, 0);
        if (n <= 0) break;
        len += (size_t)n;
        buf[len] = 0;
        if ((end = strstr(buf, "\r\n\r\n"))) break;
    }
    buf[len] = 0;
    memset(r, 0, sizeof *r);
    if (!end) return;
    sscanf(buf, "%15s %511s", r->method, r->target);
    size_t clen = 0;
    for (char *line = strstr(buf, "\r\n"); line && line < end; line = strstr(line + 2, "\r\n")) {
        char *l = line + 2;
        if (strncasecmp(l, "Content-Length:", 15) == 0) clen = strtoul(l + 15, NULL, 10);
        if (strncasecmp(l, "Authorization: ", 15) == 0) sscanf(l + 15, "%255[^\r]", r->auth);
        if (strncasecmp(l, "X-Iceberg-Access-Delegation: ", 29) == 0) sscanf(l + 29, "%63[^\r]", r->delegation);
    }
    size_t have = len - (size_t)(end + 4 - buf);
    r->body = calloc(1, clen + 1);
    memcpy(r->body, end + 4, have < clen ? have : clen);
    while (have < clen) {
        ssize_t n = recv(c, r->body + have, clen - have, 0);
        if (n <= 0) break;
        have += (size_t)n;
    }
}

static void *serve(void *arg) {
    mock *m = arg;
    while (!m->stop) {
        int c = accept(m->fd, NULL, NULL);
        if (c < 0) continue;
        if (m->stop) {
            close(c);
            break;
        }
        req r;
        read_request(c, &r);
        int status = 404;
        const char *body = NULL;
        pthread_mutex_lock(&m->mu);
        m->handler(m, &r, &status, &body);
        if (m->n_reqs < MAX_REQ) m->reqs[m->n_reqs++] = r;
        else free(r.body);
        pthread_mutex_unlock(&m->mu);
        char head[256];
        size_t bl = body ? strlen(body) : 0;
        int hl = snprintf(head, sizeof head,
                          "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                          "Connection: close\r\n\r\n",
                          status, bl);
        ssize_t w = send(c, head, (size_t)hl, MSG_NOSIGNAL);
        if (bl && strcmp(r.method, "HEAD") != 0) w = send(c, body, bl, MSG_NOSIGNAL);
        (void)w;
        close(c);
    }
    return NULL;
}

static void mock_start(mock *m, handler_fn h) {
    memset(m, 0, sizeof *m);
    m->handler = h;
    pthread_mutex_init(&m->mu, NULL);
    m->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(m->fd >= 0);
    int one = 1;
    setsockopt(m->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(m->fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t al = sizeof a;
    getsockname(m->fd, (struct sockaddr *)&a, &al);
    m->port = ntohs(a.sin_port);
    assert_int_equal(listen(m->fd, 16), 0);
    assert_int_equal(pthread_create(&m->thread, NULL, serve, m), 0);
}

static void mock_stop(mock *m) {
    m->stop = true;
    /* Wake the accept with one last connection. */
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)m->port);
    if (connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
    }
    close(c);
    pthread_join(m->thread, NULL);
    close(m->fd);
    for (int i = 0; i < m->n_reqs; i++) free(m->reqs[i].body);
    pthread_mutex_destroy(&m->mu);
}

static int count_reqs(mock *m, const char *method, const char *target_prefix) {
    int n = 0;
    pthread_mutex_lock(&m->mu);
    for (int i = 0; i < m->n_reqs; i++)
        if (strcmp(m->reqs[i].method, method) == 0 &&
            strncmp(m->reqs[i].target, target_prefix, strlen(target_prefix)) == 0)
            n++;
    pthread_mutex_unlock(&m->mu);
    return n;
}

static const req *last_req(mock *m, const char *method) {
    for (int i = m->n_reqs - 1; i >= 0; i--)
        if (strcmp(m->reqs[i].method, method) == 0) return &m->reqs[i];
    return NULL;
}

static const char *uri_of(mock *m, char *buf, size_t cap) {
    snprintf(buf, cap, "rest:http://127.0.0.1:%d", m->port);
    return buf;
}

/* Common answers: config with a prefix override, a token endpoint. */
static bool common(mock *m, const req *r, int *status, const char **body) {
    if (strncmp(r->target, "/v1/config", 10) == 0) {
        *status = 200;
        *body = "{\"defaults\":{\"prefix\":\"dflt\",\"d\":\"1\"},\"overrides\":{\"prefix\":\"pfx\"}}";
        return true;
    }
    if (strcmp(r->target, "/v1/oauth/tokens") == 0) {
        if (strstr(r->body, "client_secret=wrong")) {
            *status = 401;
            *body = "{\"error\":\"invalid_client\",\"error_description\":\"bad client credentials\"}";
            return true;
        }
        m->tokens_issued++;
        snprintf(m->body_buf, sizeof m->body_buf,
                 "{\"access_token\":\"tok-%d\",\"token_type\":\"bearer\",\"expires_in\":3600,"
                 "\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\"}",
                 m->tokens_issued);
        *status = 200;
        *body = m->body_buf;
        return true;
    }
    return false;
}

/* ---- tests ---------------------------------------------------------------------- */

static void h_paging(mock *m, const req *r, int *status, const char **body) {
    if (common(m, r, status, body)) return;
    if (strcmp(r->target, "/v1/pfx/namespaces") == 0) {
        *status = 200;
        *body = "{\"namespaces\":[[\"c\"],[\"a\"]],\"next-page-token\":\"p 2\"}";
    } else if (strcmp(r->target, "/v1/pfx/namespaces?pageToken=p%202") == 0) {
        *status = 200;
        *body = "{\"namespaces\":[[\"b\"]],\"next-page-token\":null}";
    }
}

static void prefix_comes_from_overrides_and_listings_follow_pages(void **state) {
    (void)state;
    mock m;
    mock_start(&m, h_paging);
    char uri[128];
    floe_property props[] = {{"warehouse", "wh one"}, {"prefix", "client"}};
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open(uri_of(&m, uri, sizeof uri), props, 2, &c));
    assert_string_equal(floe_catalog_kind(c), "rest");
    assert_int_equal(count_reqs(&m, "GET", "/v1/config?warehouse=wh%20one"), 1);
    char **names = NULL;
    int32_t n = 0;
    assert_ok(floe_catalog_list_namespaces(c, &names, &n));
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "a");
    assert_string_equal(names[1], "b");
    assert_string_equal(names[2], "c");
    floe_catalog_names_free(names, n);
    /* No credential, no token: no Authorization header. */
    assert_string_equal(last_req(&m, "GET")->auth, "");
    floe_catalog_close(c);
    mock_stop(&m);
}

static void h_flaky(mock *m, const req *r, int *status, const char **body) {
    if (common(m, r, status, body)) return;
    if (strcmp(r->method, "GET") == 0 && strcmp(r->target, "/v1/pfx/namespaces/db") == 0) {
        if (m->counter++ < 2) {
            *status = 503;
            *body = "{\"error\":{\"message\":\"busy\",\"type\":\"ServiceUnavailableException\",\"code\":503}}";
        } else {
            *status = 200;
            *body = "{\"namespace\":[\"db\"],\"properties\":{\"owner\":\"x\",\"a\":\"1\"}}";
        }
    }
}

static void gets_are_retried_after_5xx(void **state) {
    (void)state;
    mock m;
    mock_start(&m, h_flaky);
    char uri[128];
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open(uri_of(&m, uri, sizeof uri), NULL, 0, &c));
    char **kv = NULL;
    int32_t n = 0;
    assert_ok(floe_catalog_namespace_properties(c, "db", &kv, &n));
    assert_int_equal(n, 2);
    assert_string_equal(kv[0], "a"); /* sorted by key */
    assert_string_equal(kv[3], "x");
    floe_catalog_names_free(kv, 2 * n);
    assert_int_equal(count_reqs(&m, "GET", "/v1/pfx/namespaces/db"), 3);
    floe_catalog_close(c);
    mock_stop(&m);
}

static const char *const TABLE_MD =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\",\"location\":\"/tmp/x/db/t\","
    "\"last-sequence-number\":0,\"last-updated-ms\":1700000000000,\"last-column-id\":1,\"current-schema-id\":0,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"i\",\"required\":false,"
    "\"type\":\"int\"}]}],\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
    "\"last-partition-id\":999,\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],"
    "\"properties\":{},\"current-snapshot-id\":-1,\"refs\":{},\"snapshots\":[],\"snapshot-log\":[],"
    "\"metadata-log\":[]}";

static void h_table(mock *m, const req *r, int *status, const char **body) {
    if (common(m, r, status, body)) return;
    if (strcmp(r->target, "/v1/pfx/namespaces/db/tables/t") == 0 && strcmp(r->method, "GET") == 0) {
        snprintf(m->body_buf, sizeof m->body_buf,
                 "{\"metadata-location\":\"/tmp/x/db/t/metadata/00000-a.metadata.json\",\"metadata\":%s,"
                 "\"config\":{\"s3.endpoint\":\"http://127.0.0.1:9\",\"s3.access-key-id\":\"AKIAVENDED\","
                 "\"s3.secret-access-key\":\"vended-secret\",\"s3.session-token-expires-at-ms\":\"%lld\"}}",
                 TABLE_MD, (long long)(floe_rest_now_ms() + 3600 * 1000));
        *status = 200;
        *body = m->body_buf;
    } else if (strcmp(r->target, "/v1/pfx/namespaces/db/tables/t") == 0 && strcmp(r->method, "POST") == 0) {
        /* counter: 0 -> 409, 1 -> 500 */
        if (m->counter++ == 0) {
            *status = 409;
            *body = "{\"error\":{\"message\":\"Requirement failed: branch main has changed\","
                    "\"type\":\"CommitFailedException\",\"code\":409}}";
        } else {
            *status = 500;
            *body = "{\"error\":{\"message\":\"database is gone\",\"type\":\"CommitStateUnknownException\","
                    "\"code\":500}}";
        }
    } else if (strcmp(r->target, "/v1/pfx/namespaces/db/tables/t/credentials") == 0) {
        *status = 200;
        *body = "{\"storage-credentials\":[{\"prefix\":\"s3://other/\",\"config\":{\"s3.secret-access-key\":\"no\"}},"
                "{\"prefix\":\"/tmp/x/\",\"config\":{\"s3.access-key-id\":\"AKIAFRESH\","
                "\"s3.secret-access-key\":\"fresh-secret\"}}]}";
    } else if (strcmp(r->target, "/v1/pfx/namespaces/db/tables/u") == 0) {
        *status = 404;
        *body = "{\"error\":{\"message\":\"Table does not exist: db.u\",\"type\":\"NoSuchTableException\","
                "\"code\":404}}";
    } else if (strcmp(r->target, "/v1/pfx/namespaces/db/tables") == 0 && strcmp(r->method, "POST") == 0) {
        snprintf(m->body_buf, sizeof m->body_buf,
                 "{\"metadata-location\":\"/tmp/x/db/t/metadata/00000-a.metadata.json\",\"metadata\":%s}", TABLE_MD);
        *status = 200;
        *body = m->body_buf;
    } else if (strcmp(r->target, "/v1/pfx/namespaces/db/tables") == 0) {
        *status = 200;
        *body = "{\"identifiers\":[{\"namespace\":[\"db\"],\"name\":\"t\"},{\"namespace\":[\"db\"],\"name\":\"v\"}]}";
    }
}

static void commit_sends_diff_and_maps_409_to_conflict_and_5xx_to_unknown(void **state) {
    (void)state;
    mock m;
    mock_start(&m, h_table);
    char uri[128];
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open(uri_of(&m, uri, sizeof uri), NULL, 0, &c));
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_string_equal(last_req(&m, "GET")->delegation, "vended-credentials");
    const char *kv[] = {"owner", "ops"};
    floe_ice_table_metadata *next = NULL;
    assert_ok(floe_ice_tm_set_properties(t->md, kv, 1, &next));

    assert_error(floe_catalog_commit(c, "db", "t", t->metadata_location, next, NULL), FLOE_ERR_CONFLICT,
                 "branch main has changed");
    const req *post = last_req(&m, "POST");
    json_t *body = json_loads(post->body, 0, NULL);
    assert_non_null(body);
    json_t *reqs = json_object_get(body, "requirements");
    assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 0), "type")), "assert-table-uuid");
    json_t *upd = json_array_get(json_object_get(body, "updates"), 0);
    assert_string_equal(json_string_value(json_object_get(upd, "action")), "set-properties");
    assert_string_equal(json_string_value(json_object_get(json_object_get(upd, "updates"), "owner")), "ops");
    assert_string_equal(json_string_value(json_object_get(json_object_get(body, "identifier"), "name")), "t");
    json_decref(body);

    assert_error(floe_catalog_commit(c, "db", "t", t->metadata_location, next, NULL), FLOE_ERR_COMMIT_UNKNOWN,
                 "commit state unknown");
    /* Two commits, two POSTs: the 500 was not retried. */
    assert_int_equal(count_reqs(&m, "POST", "/v1/pfx/namespaces/db/tables/t"), 2);

    assert_error(floe_catalog_load_table(c, "db", "u", &(floe_ice_table *){NULL}), FLOE_ERR_NOT_FOUND,
                 "table db.u does not exist (did you mean 'db.t'?)");
    floe_ice_table_metadata_free(next);
    floe_ice_table_free(t);
    floe_catalog_close(c);
    mock_stop(&m);
}

/* Without a warehouse location the server places new tables: the
 * default location is a placeholder that is never sent. */
static void create_table_leaves_the_default_location_to_the_server(void **state) {
    (void)state;
    mock m;
    mock_start(&m, h_table);
    char uri[128];
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open(uri_of(&m, uri, sizeof uri), NULL, 0, &c));
    char *loc = NULL;
    assert_ok(floe_catalog_default_location(c, "db", "t", &loc));
    char text[4096];
    const char *at = strstr(TABLE_MD, "/tmp/x/db/t");
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - TABLE_MD), TABLE_MD, loc, at + strlen("/tmp/x/db/t"));
    floe_free(loc);
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_table_metadata_parse(text, strlen(text), "test", &md));
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_create_table(c, "db", "t", md, &t));
    assert_string_equal(t->md->location, "/tmp/x/db/t"); /* the server's choice */
    json_t *body = json_loads(last_req(&m, "POST")->body, 0, NULL);
    assert_non_null(body);
    assert_null(json_object_get(body, "location"));
    assert_string_equal(json_string_value(json_object_get(body, "name")), "t");
    assert_non_null(json_object_get(body, "schema"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(body, "properties"), "format-version")), "2");
    json_decref(body);
    floe_ice_table_free(t);
    floe_ice_table_metadata_free(md);
    floe_catalog_close(c);
    mock_stop(&m);
}

/* TABLE_MD after an append of snapshot 77. */
static void next_md_text(char *out, size_t cap) {
    const char *snap = "\"current-snapshot-id\":77,\"refs\":{\"main\":{\"snapshot-id\":77,\"type\":\"branch\"}},"
                       "\"snapshots\":[{\"snapshot-id\":77,\"sequence-number\":1,\"timestamp-ms\":1700000001000,"
                       "\"manifest-list\":\"/tmp/x/db/t/metadata/snap-77.avro\",\"summary\":{\"operation\":\"append\"},"
                       "\"schema-id\":0}],";
    const char *from = strstr(TABLE_MD, "\"current-snapshot-id\"");
    const char *to = strstr(TABLE_MD, "\"snapshot-log\"");
    snprintf(out, cap, "%.*s%s%s", (int)(from - TABLE_MD), TABLE_MD, snap, to);
    char *seq = strstr(out, "\"last-sequence-number\":0");
    if (seq) seq[strlen("\"last-sequence-number\":")] = '1';
}

static bool g_commit_lands;

static void h_unknown(mock *m, const req *r, int *status, const char **body) {
    if (common(m, r, status, body)) return;
    if (strcmp(r->target, "/v1/pfx/namespaces/db/tables/t") != 0) return;
    if (strcmp(r->method, "POST") == 0) {
        m->counter = 1;
        *status = 502;
        *body = "{\"error\":{\"message\":\"bad gateway\",\"type\":\"CommitStateUnknownException\",\"code\":502}}";
        return;
    }
    char md[4096];
    if (m->counter && g_commit_lands) next_md_text(md, sizeof md);
    else snprintf(md, sizeof md, "%s", TABLE_MD);
    snprintf(m->body_buf, sizeof m->body_buf, "{\"metadata-location\":\"/tmp/x/db/t/metadata/%s.metadata.json\","
             "\"metadata\":%s}", m->counter && g_commit_lands ? "00001-b" : "00000-a", md);
    *status = 200;
    *body = m->body_buf;
}

/* A 5xx answer to a commit is settled by one reload when the commit
 * added a snapshot: there, it happened; absent, the state stays unknown. */
static void commit_5xx_is_settled_by_the_reloaded_snapshot(void **state) {
    (void)state;
    char text[4096];
    next_md_text(text, sizeof text);
    floe_ice_table_metadata *next = NULL;
    assert_ok(floe_ice_table_metadata_parse(text, strlen(text), "next", &next));
    for (int lands = 1; lands >= 0; lands--) {
        g_commit_lands = lands;
        mock m;
        mock_start(&m, h_unknown);
        char uri[128];
        floe_catalog *c = NULL;
        assert_ok(floe_catalog_open(uri_of(&m, uri, sizeof uri), NULL, 0, &c));
        floe_ice_table *t = NULL;
        assert_ok(floe_catalog_load_table(c, "db", "t", &t));
        char *loc = NULL;
        if (lands) {
            assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, next, &loc));
            assert_string_equal(loc, "/tmp/x/db/t/metadata/00001-b.metadata.json");
            floe_free(loc);
        } else {
            assert_error(floe_catalog_commit(c, "db", "t", t->metadata_location, next, &loc), FLOE_ERR_COMMIT_UNKNOWN,
                         "commit state unknown");
        }
        assert_int_equal(count_reqs(&m, "POST", "/v1/pfx/namespaces/db/tables/t"), 1);
        floe_ice_table_free(t);
        floe_catalog_close(c);
        mock_stop(&m);
    }
    floe_ice_table_metadata_free(next);
}

static void vended_credentials_go_to_the_store_not_the_fileio(void **state) {
    (void)state;
    mock m;
    mock_start(&m, h_table);
    char uri[128];
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open(uri_of(&m, uri, sizeof uri), NULL, 0, &c));
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_non_null(t->io);
    const floe_property *p = NULL;
    size_t n = 0;
    floe_fileio_properties(t->io, &p, &n);
    const char *id = NULL, *endpoint = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(p[i].key, "floe.credentials-id") == 0) id = p[i].value;
        if (strcmp(p[i].key, "s3.endpoint") == 0) endpoint = p[i].value;
        assert_null(strstr(p[i].value, "vended-secret"));
    }
    assert_non_null(id);
    assert_non_null(endpoint);
    assert_string_equal(endpoint, "http://127.0.0.1:9");
    char want[160];
    snprintf(want, sizeof want, "%s#db.t", uri);
    assert_string_equal(id, want);
    floe_property *sp = NULL;
    size_t sn = 0;
    int64_t exp = 0;
    int found = 0;
    assert_ok(floe_credentials_lookup(id, &sp, &sn, &exp, &found));
    assert_int_equal(found, 1);
    assert_true(exp > floe_rest_now_ms());
    bool have_secret = false;
    for (size_t i = 0; i < sn; i++)
        if (strcmp(sp[i].key, "s3.secret-access-key") == 0) have_secret = strcmp(sp[i].value, "vended-secret") == 0;
    assert_true(have_secret);
    floe_properties_free(sp, sn);
    /* Loading again reuses the FileIO (same storage properties). */
    floe_ice_table *t2 = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t2));
    assert_ptr_equal(t2->io, t->io);
    floe_ice_table_free(t2);
    floe_ice_table_free(t);
    floe_catalog_close(c);
    /* Closing the catalog forgets its credentials. */
    assert_ok(floe_credentials_lookup(want, &sp, &sn, &exp, &found));
    assert_int_equal(found, 0);
    floe_properties_free(sp, sn);
    mock_stop(&m);
}

static void rejected_vended_keys_are_refreshed_from_the_credentials_endpoint(void **state) {
    (void)state;
    mock m;
    mock_start(&m, h_table);
    char uri[128], id[160];
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open(uri_of(&m, uri, sizeof uri), NULL, 0, &c));
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    snprintf(id, sizeof id, "%s#db.t", uri);
    floe_cred_snapshot snap = {0};
    assert_ok(floe_credentials_acquire(id, 0, &snap, NULL));
    assert_int_equal(snap.found, 1);
    assert_string_equal(snap.secret_access_key, "vended-secret");
    uint64_t v = snap.version;
    floe_cred_snapshot_clear(&snap);
    /* As the S3 client does after a 403 ExpiredToken on version v. */
    int changed = 0;
    assert_ok(floe_credentials_acquire(id, v, &snap, &changed));
    assert_int_equal(changed, 1);
    assert_string_equal(snap.access_key_id, "AKIAFRESH");
    assert_string_equal(snap.secret_access_key, "fresh-secret"); /* the entry whose prefix matches */
    floe_cred_snapshot_clear(&snap);
    assert_int_equal(floe_credentials_refresh_count(id), 1);
    assert_int_equal(count_reqs(&m, "GET", "/v1/pfx/namespaces/db/tables/t/credentials"), 1);
    floe_ice_table_free(t);
    floe_catalog_close(c);
    mock_stop(&m);
}

static void h_slow_tokens(mock *m, const req *r, int *status, const char **body) {
    if (strcmp(r->target, "/v1/oauth/tokens") == 0) usleep(200000);
    common(m, r, status, body);
}

typedef struct bearer_job {
    floe_rest_auth *auth;
    pthread_barrier_t *go;
    char *value;
    floe_status st;
} bearer_job;

static void *get_bearer(void *arg) {
    bearer_job *j = arg;
    uint64_t gen = 0;
    pthread_barrier_wait(j->go);
    j->st = floe_rest_auth_bearer(j->auth, &j->value, &gen);
    return NULL;
}

/* Eight threads wanting a token at once cost one token request. */
static void concurrent_token_requests_fetch_once(void **state) {
    (void)state;
    mock m;
    mock_start(&m, h_slow_tokens);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/oauth/tokens", m.port);
    floe_rest_http_options ho = {.tls_verify = true, .max_retries = -1};
    floe_rest_http *http = NULL;
    assert_ok(floe_rest_http_new(&ho, &http));
    floe_rest_auth_options ao = {.credential = "me:pw", .token_uri = url};
    floe_rest_auth *auth = NULL;
    assert_ok(floe_rest_auth_new(http, &ao, &auth));
    enum { N = 8 };
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, N);
    pthread_t th[N];
    bearer_job jobs[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (bearer_job){auth, &go, NULL, NULL};
        assert_int_equal(pthread_create(&th[i], NULL, get_bearer, &jobs[i]), 0);
    }
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < N; i++) {
        assert_ok(jobs[i].st);
        assert_string_equal(jobs[i].value, "Bearer tok-1");
        floe_rest_auth_value_free(jobs[i].value);
    }
    assert_int_equal(m.tokens_issued, 1);
    assert_int_equal(floe_rest_auth_fetches(auth), 1);
    pthread_barrier_destroy(&go);
    floe_rest_auth_free(auth);
    floe_rest_http_free(http);
    mock_stop(&m);
}

static void h_auth(mock *m, const req *r, int *status, const char **body) {
    if (common(m, r, status, body)) return;
    /* Only the latest token is valid; "tok-1" is rejected as expired. */
    char want[32];
    snprintf(want, sizeof want, "Bearer tok-%d", m->tokens_issued);
    if (strcmp(r->auth, want) != 0 || strcmp(r->auth, "Bearer tok-1") == 0) {
        *status = 401;
        *body = "{\"error\":{\"message\":\"expired token\",\"type\":\"NotAuthorizedException\",\"code\":401}}";
        return;
    }
    if (strcmp(r->target, "/v1/pfx/namespaces") == 0) {
        *status = 200;
        *body = "{\"namespaces\":[[\"x\"]]}";
    }
}

static void a_401_fetches_a_new_token_and_retries_once(void **state) {
    (void)state;
    mock m;
    mock_start(&m, h_auth);
    char uri[128];
    floe_property props[] = {{"credential", "me:s3cr3t"}};
    floe_catalog *c = NULL;
    /* The namespace listing with tok-1 is refused, retried with tok-2. */
    assert_ok(floe_catalog_open(uri_of(&m, uri, sizeof uri), props, 1, &c));
    assert_int_equal(m.tokens_issued, 1);
    char **names = NULL;
    int32_t n = 0;
    assert_ok(floe_catalog_list_namespaces(c, &names, &n));
    assert_int_equal(n, 1);
    floe_catalog_names_free(names, n);
    assert_int_equal(m.tokens_issued, 2);
    const req *tr = NULL;
    for (int i = 0; i < m.n_reqs; i++)
        if (strcmp(m.reqs[i].target, "/v1/oauth/tokens") == 0) tr = &m.reqs[i];
    assert_non_null(tr);
    assert_non_null(strstr(tr->body, "grant_type=client_credentials"));
    assert_non_null(strstr(tr->body, "client_id=me"));
    assert_non_null(strstr(tr->body, "scope=catalog"));
    floe_catalog_close(c);
    mock_stop(&m);
}

static void h_always_401(mock *m, const req *r, int *status, const char **body) {
    if (strcmp(r->target, "/v1/oauth/tokens") == 0 && common(m, r, status, body)) return;
    *status = 401;
    *body = "{\"error\":{\"message\":\"Not authorized\",\"type\":\"NotAuthorizedException\",\"code\":401}}";
}

static void refused_credentials_fail_without_echoing_secrets(void **state) {
    (void)state;
    mock m;
    mock_start(&m, h_always_401);
    char uri[128];
    floe_catalog *c = NULL;
    floe_property wrong[] = {{"credential", "me:wrong"}};
    floe_status st = floe_catalog_open(uri_of(&m, uri, sizeof uri), wrong, 1, &c);
    assert_int_equal(floe_status_code(st), FLOE_ERR_AUTH);
    assert_non_null(strstr(floe_status_message(st), "invalid_client"));
    assert_null(strstr(floe_status_message(st), "wrong"));
    floe_status_free(st);

    /* A static token is not refreshed: one request, an auth error. */
    floe_property tok[] = {{"token", "static-tok-123"}};
    int before = m.n_reqs;
    st = floe_catalog_open(uri, tok, 1, &c);
    assert_int_equal(floe_status_code(st), FLOE_ERR_AUTH);
    assert_null(strstr(floe_status_message(st), "static-tok-123"));
    floe_status_free(st);
    assert_int_equal(m.n_reqs - before, 1);
    assert_string_equal(last_req(&m, "GET")->auth, "Bearer static-tok-123");

    /* An OAuth2 token rejected again after the refresh: one retry only. */
    floe_property ok[] = {{"credential", "me:fine"}};
    before = m.n_reqs;
    st = floe_catalog_open(uri, ok, 1, &c);
    assert_int_equal(floe_status_code(st), FLOE_ERR_AUTH);
    floe_status_free(st);
    assert_int_equal(m.n_reqs - before, 4); /* token, config, token, config */
    mock_stop(&m);
}

static void error_model_maps_statuses_and_redacts_urls(void **state) {
    (void)state;
    const char *body = "{\"error\":{\"message\":\"Namespace already exists: db\",\"type\":\"AlreadyExistsException\","
                       "\"code\":409}}";
    assert_error(floe_rest_error("POST", "http://h/v1/namespaces", 409, body, FLOE_REST_OP_CREATE),
                 FLOE_ERR_ALREADY_EXISTS, "AlreadyExistsException: Namespace already exists: db");
    assert_error(floe_rest_error("POST", "http://h/v1/t", 409, body, FLOE_REST_OP_COMMIT), FLOE_ERR_CONFLICT,
                 "answered 409");
    assert_error(floe_rest_error("GET", "http://h/v1/t", 404, "not json", FLOE_REST_OP_READ), FLOE_ERR_NOT_FOUND,
                 "GET http://h/v1/t answered 404");
    assert_error(floe_rest_error("GET", "http://h/v1/t", 403, NULL, FLOE_REST_OP_READ), FLOE_ERR_AUTH, "403");
    assert_error(floe_rest_error("POST", "http://h/v1/t", 503, NULL, FLOE_REST_OP_COMMIT), FLOE_ERR_IO,
                 "commit state unknown");
    floe_status st = floe_rest_error("GET", "http://u:pw@h/v1/t?token=abc&x=1", 400, NULL, FLOE_REST_OP_READ);
    assert_int_equal(floe_status_code(st), FLOE_ERR_INVALID_ARGUMENT);
    assert_null(strstr(floe_status_message(st), "pw"));
    assert_null(strstr(floe_status_message(st), "abc"));
    floe_status_free(st);
}

static void uris_with_credentials_are_refused(void **state) {
    (void)state;
    floe_catalog *c = NULL;
    floe_status st = floe_catalog_open("rest:http://user:hunter2@127.0.0.1:1", NULL, 0, &c);
    assert_int_equal(floe_status_code(st), FLOE_ERR_INVALID_ARGUMENT);
    assert_null(strstr(floe_status_message(st), "hunter2"));
    floe_status_free(st);
    assert_error(floe_catalog_open("rest:ftp://h", NULL, 0, &c), FLOE_ERR_INVALID_ARGUMENT, "rest:http(s)://");
    /* Nothing listens on port 1: a clear transport error, not a hang. */
    assert_error(floe_catalog_open("rest:http://127.0.0.1:1", NULL, 0, &c), FLOE_ERR_IO, "GET http://127.0.0.1:1");
}

/* A free TCP port on 127.0.0.1 (bound and released: a small race). */
static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t al = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &al);
    close(fd);
    return ntohs(a.sin_port);
}

static bool port_open(int port) {
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    bool ok = connect(c, (struct sockaddr *)&a, sizeof a) == 0;
    close(c);
    return ok;
}

/* `openssl s_server -WWW` with a self-signed certificate for 127.0.0.1
 * serves v1/config from a scratch directory over HTTPS: verification is
 * on by default (the unknown issuer is refused), rest.ca-file trusts it,
 * rest.tls-verify=false skips it. */
static void tls_is_verified_unless_turned_off(void **state) {
    (void)state;
    if (system("openssl version >/dev/null 2>&1") != 0) {
        printf("SKIP: no openssl program\n");
        skip();
    }
    char dir[1024], cmd[4096], uri[128], ca[1100];
    floe_test_tmpdir(dir, sizeof dir, "catalog_rest_tls");
    int port = free_port();
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir -p v1 && echo '{\"defaults\":{},\"overrides\":{}}' > v1/config && "
             "openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 1 -subj /CN=127.0.0.1 "
             "-addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 && "
             "(timeout 60 openssl s_server -accept 127.0.0.1:%d -cert cert.pem -key key.pem -WWW -quiet "
             "</dev/null >s_server.log 2>&1 & echo $! > s_server.pid)",
             dir, port);
    assert_int_equal(system(cmd), 0);
    for (int i = 0; i < 100 && !port_open(port); i++) usleep(50000);
    snprintf(uri, sizeof uri, "rest:https://127.0.0.1:%d", port);
    snprintf(ca, sizeof ca, "%s/cert.pem", dir);
    floe_catalog *c = NULL;
    floe_status st = floe_catalog_open(uri, NULL, 0, &c);
    assert_int_equal(floe_status_code(st), FLOE_ERR_IO);
    assert_non_null(strstr(floe_status_message(st), "certificate"));
    floe_status_free(st);
    floe_property trust[] = {{"rest.ca-file", ca}};
    assert_ok(floe_catalog_open(uri, trust, 1, &c));
    floe_catalog_close(c);
    floe_property off[] = {{"rest.tls-verify", "false"}};
    assert_ok(floe_catalog_open(uri, off, 1, &c));
    floe_catalog_close(c);
    snprintf(cmd, sizeof cmd, "kill $(cat '%s/s_server.pid') 2>/dev/null", dir);
    if (system(cmd) != 0) {
    }
}

FLOE_TEST_MAIN(cmocka_unit_test(prefix_comes_from_overrides_and_listings_follow_pages),
               cmocka_unit_test(gets_are_retried_after_5xx),
               cmocka_unit_test(commit_sends_diff_and_maps_409_to_conflict_and_5xx_to_unknown),
               cmocka_unit_test(create_table_leaves_the_default_location_to_the_server),
               cmocka_unit_test(commit_5xx_is_settled_by_the_reloaded_snapshot),
               cmocka_unit_test(vended_credentials_go_to_the_store_not_the_fileio),
               cmocka_unit_test(rejected_vended_keys_are_refreshed_from_the_credentials_endpoint),
               cmocka_unit_test(a_401_fetches_a_new_token_and_retries_once),
               cmocka_unit_test(concurrent_token_requests_fetch_once),
               cmocka_unit_test(refused_credentials_fail_without_echoing_secrets),
               cmocka_unit_test(error_model_maps_statuses_and_redacts_urls),
               cmocka_unit_test(uris_with_credentials_are_refused),
               cmocka_unit_test(tls_is_verified_unless_turned_off))
