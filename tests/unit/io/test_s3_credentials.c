/* S3 requests signed with keys from the credential store
 * (floe.credentials-id): against s3rver behind its signature-checking proxy
 * (tests/peers/s3rver_launch.mjs, which checks the access key, the
 * signature and the session token of every request), and against a tiny
 * HTTP responder in this file that answers ExpiredToken /
 * TokenRefreshRequired, which the proxy cannot be made to say.
 *
 * Without tests/peers/node_modules the s3rver tests skip (and the run
 * fails under CI=true); the local-responder tests always run. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "floe_test.h"
#include "io/credentials.h"

#define BUCKET "floe-creds"
static const char *SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYfloeCredsC0FFEE";
static const char *TOKEN = "IQoJb3JpZ2luX2VjEFloeCredsToken/Zq9+Xw0rEXAMPLEtok==";

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the s3rver peer ------------------------------------------------------ */

static struct {
    pid_t pid;
    int stdin_fd;
    int s3_port, proxy_port;
    int skip;
} peer = {-1, -1, 0, 0, 0};

static int peer_start(void **state) {
    (void)state;
    char mod[4096], launcher[4096];
    snprintf(mod, sizeof mod, "%s/tests/peers/node_modules/s3rver/package.json", FLOE_SOURCE_DIR);
    snprintf(launcher, sizeof launcher, "%s/tests/peers/s3rver_launch.mjs", FLOE_SOURCE_DIR);
    const char *aws[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
                         "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"};
    for (size_t i = 0; i < sizeof aws / sizeof aws[0]; i++) unsetenv(aws[i]);
    setenv("NO_PROXY", "*", 1);
    setenv("no_proxy", "*", 1);
    if (access(mod, R_OK) != 0) {
        const char *ci = getenv("CI");
        if (ci && strcmp(ci, "true") == 0) {
            fprintf(stderr, "FAIL: s3rver is not installed (%s)\n", mod);
            return -1;
        }
        printf("SKIP: s3rver not installed under tests/peers/node_modules\n");
        peer.skip = 1;
        return 0;
    }
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        setenv("FLOE_TEST_S3_SECRET", SECRET, 1);
        setenv("FLOE_TEST_S3_TOKEN", TOKEN, 1);
        execlp("node", "node", launcher, BUCKET, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    peer.pid = pid;
    peer.stdin_fd = in[1];
    char line[256];
    size_t n = 0;
    while (n < sizeof line - 1) {
        struct pollfd pfd = {out[0], POLLIN, 0};
        if (poll(&pfd, 1, 30000) <= 0) break;
        if (read(out[0], line + n, 1) <= 0) break;
        if (line[n] == '\n') break;
        n++;
    }
    line[n] = 0;
    close(out[0]);
    if (sscanf(line, "READY %d %d", &peer.s3_port, &peer.proxy_port) != 2) {
        fprintf(stderr, "FAIL: s3rver launcher did not start (said '%s')\n", line);
        return -1;
    }
    return 0;
}

static int peer_stop(void **state) {
    (void)state;
    if (peer.pid > 0) {
        close(peer.stdin_fd);
        kill(peer.pid, SIGTERM);
        waitpid(peer.pid, NULL, 0);
        peer.pid = -1;
    }
    return 0;
}

#define NEED_PEER()            \
    do {                       \
        if (peer.skip) skip(); \
    } while (0)

/* A FileIO with no keys of its own: only the store's, under `id`. */
static floe_fileio *store_io(int port, const char *id) {
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", port);
    floe_property props[] = {
        {"s3.endpoint", endpoint},       {"s3.region", "us-east-1"},     {"s3.path-style-access", "true"},
        {"s3.retry.num-retries", "2"},   {"s3.retry.min-wait-ms", "1"},  {"s3.retry.max-wait-ms", "10"},
        {"floe.credentials-id", id},
    };
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(props, sizeof props / sizeof props[0], &io));
    return io;
}

static void put_keys(const char *id, const char *ak, const char *sk, const char *tok, int64_t expires) {
    floe_property p[3] = {{"s3.access-key-id", ak}, {"s3.secret-access-key", sk}, {"s3.session-token", tok}};
    assert_ok(floe_credentials_put(id, p, tok ? 3 : 2, expires));
}

/* The refresher: puts `ak` with the peer's secret and token, living
 * lifetime_ms (0: an hour). */
typedef struct refresher {
    atomic_int calls;
    const char *ak, *sk, *tok;
    int64_t lifetime_ms;
} refresher;

static floe_status refresh_fn(void *ctx, const char *id) {
    refresher *r = ctx;
    atomic_fetch_add(&r->calls, 1);
    put_keys(id, r->ak, r->sk, r->tok, now_ms() + (r->lifetime_ms ? r->lifetime_ms : 3600000));
    return NULL;
}

static void write_text(floe_fileio *io, const char *loc, const char *text) {
    floe_output *out = NULL;
    assert_ok(floe_fileio_create_output(io, loc, 1, &out));
    assert_ok(floe_output_write(out, text, strlen(text)));
    assert_ok(floe_output_close(out));
}

static void read_text(floe_fileio *io, const char *loc, const char *want) {
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, loc, &in));
    assert_int_equal(in->size, strlen(want));
    char buf[256] = {0};
    assert_ok(floe_input_read(in, 0, in->size, (uint8_t *)buf));
    assert_string_equal(buf, want);
    floe_input_close(in);
}

static void assert_no_secret(floe_status st) {
    assert_non_null(st);
    assert_null(strstr(floe_status_message(st), SECRET));
    assert_null(strstr(floe_status_message(st), TOKEN));
}

static void every_request_signs_with_the_stores_current_keys(void **state) {
    (void)state;
    NEED_PEER();
    const char *id = "rest:test#db.a";
    put_keys(id, "S3RVER", SECRET, TOKEN, now_ms() + 3600000);
    floe_fileio *io = store_io(peer.proxy_port, id);
    write_text(io, "s3://" BUCKET "/a/one.txt", "hello store");
    read_text(io, "s3://" BUCKET "/a/one.txt", "hello store");
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3://" BUCKET "/a/one.txt", &in));
    /* Revoked keys reach the open input at its next request ... */
    put_keys(id, "S3RVER", SECRET, "IQoJWrongTokenForTheTest", now_ms() + 3600000);
    uint8_t b[5];
    floe_status st = floe_input_read(in, 0, 5, b);
    assert_int_equal(floe_status_code(st), FLOE_ERR_AUTH);
    assert_non_null(strstr(floe_status_message(st), "InvalidToken"));
    assert_no_secret(st);
    floe_status_free(st);
    /* ... and so do good ones again. */
    put_keys(id, "S3RVER", SECRET, TOKEN, now_ms() + 3600000);
    assert_ok(floe_input_read(in, 0, 5, b));
    assert_memory_equal(b, "hello", 5);
    floe_input_close(in);
    floe_credentials_forget(id);
    floe_fileio_free(io);
}

static void keys_near_expiry_are_refreshed_before_requests(void **state) {
    (void)state;
    NEED_PEER();
    const char *id = "rest:test#db.expiring";
    refresher r = {.ak = "S3RVER", .sk = SECRET, .tok = TOKEN, .lifetime_ms = 2000};
    floe_credentials_set_refresher(id, refresh_fn, &r);
    /* Expired (and wrong) keys: refreshed before the first request. */
    put_keys(id, "AKIAFLOEEXPIRED", "expired-secret", NULL, now_ms() - 1);
    floe_fileio *io = store_io(peer.proxy_port, id);
    write_text(io, "s3://" BUCKET "/b/two.txt", "refreshed");
    assert_int_equal(atomic_load(&r.calls), 1);
    /* Two-second keys, read for over three seconds: refreshed as they near
     * expiry (half their lifetime here), every read succeeding. */
    int64_t until = now_ms() + 3300;
    int reads = 0;
    while (now_ms() < until) {
        read_text(io, "s3://" BUCKET "/b/two.txt", "refreshed");
        reads++;
        usleep(100 * 1000);
    }
    int calls = atomic_load(&r.calls);
    assert_true(calls >= 3);          /* at least every ~1 s */
    assert_true(calls <= 1 + reads);  /* not more than once per read */
    floe_credentials_forget(id);
    floe_fileio_free(io);
}

static void rejected_keys_are_refreshed_and_the_request_retried_once(void **state) {
    (void)state;
    NEED_PEER();
    const char *id = "rest:test#db.revoked";
    floe_fileio *io = store_io(peer.proxy_port, id);
    put_keys(id, "S3RVER", SECRET, TOKEN, 0);
    write_text(io, "s3://" BUCKET "/c/three.txt", "after retry");
    /* An unknown key id (s3rver: 403 InvalidAccessKeyId) that does not look
     * expired: the rejection itself triggers the refresh. */
    refresher r = {.ak = "S3RVER", .sk = SECRET, .tok = TOKEN};
    floe_credentials_set_refresher(id, refresh_fn, &r);
    put_keys(id, "AKIAFLOEREVOKED00000", SECRET, NULL, now_ms() + 3600000);
    read_text(io, "s3://" BUCKET "/c/three.txt", "after retry");
    assert_int_equal(atomic_load(&r.calls), 1);
    /* A refresher that hands out rejected keys again: one retry, then the
     * server's error. */
    refresher bad = {.ak = "AKIAFLOESTILLBAD0000", .sk = SECRET};
    floe_credentials_set_refresher(id, refresh_fn, &bad);
    put_keys(id, "AKIAFLOEREVOKED00000", SECRET, NULL, now_ms() + 3600000);
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input_sized(io, "s3://" BUCKET "/c/three.txt", 11, &in));
    uint8_t b[11];
    floe_status st = floe_input_read(in, 0, 11, b);
    assert_int_equal(floe_status_code(st), FLOE_ERR_AUTH);
    assert_non_null(strstr(floe_status_message(st), "InvalidAccessKeyId"));
    assert_no_secret(st);
    floe_status_free(st);
    assert_int_equal(atomic_load(&bad.calls), 1);
    floe_input_close(in);
    /* exists() (a HEAD, which has no error body) finds out too. */
    floe_credentials_set_refresher(id, refresh_fn, &r);
    put_keys(id, "AKIAFLOEREVOKED00000", SECRET, NULL, now_ms() + 3600000);
    int exists = 0;
    assert_ok(floe_fileio_exists(io, "s3://" BUCKET "/c/three.txt", &exists));
    assert_int_equal(exists, 1);
    assert_int_equal(atomic_load(&r.calls), 2);
    floe_credentials_forget(id);
    floe_fileio_free(io);
}

static void a_fileio_made_from_exported_keys_reads_in_another_process(void **state) {
    (void)state;
    NEED_PEER();
    const char *id = "rest:test#db.shipped";
    put_keys(id, "S3RVER", SECRET, TOKEN, now_ms() + 3600000);
    floe_fileio *io = store_io(peer.proxy_port, id);
    write_text(io, "s3://" BUCKET "/d/four.txt", "shipped");
    floe_fileio_free(io);
    floe_buf bytes = FLOE_BUF_INIT;
    assert_ok(floe_credentials_export(&bytes));
    floe_credentials_forget(id);
    /* The "worker": a child process with an empty store until import. */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        floe_status st = floe_credentials_import(bytes.data, bytes.len);
        floe_input *in = NULL;
        char buf[8] = {0};
        if (!st) st = floe_fileio_open_input(store_io(peer.proxy_port, id), "s3://" BUCKET "/d/four.txt", &in);
        if (!st) st = floe_input_read(in, 0, 7, (uint8_t *)buf);
        _exit(!st && strcmp(buf, "shipped") == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    memset(bytes.data, 0, bytes.len);
    floe_buf_free(&bytes);
}

/* ---- a local responder for ExpiredToken / TokenRefreshRequired ------------- */

typedef struct responder {
    int fd, port;
    pthread_t th;
    atomic_int requests;
    char last_token[128];
    int status;         /* answer to the stale token: 400 or 403 */
    const char *code;   /* ExpiredToken, TokenRefreshRequired */
} responder;

static void *responder_main(void *arg) {
    responder *r = arg;
    for (;;) {
        int c = accept(r->fd, NULL, NULL);
        if (c < 0) return NULL;
        char req[8192];
        size_t n = 0;
        while (n < sizeof req - 1) {
            ssize_t k = read(c, req + n, sizeof req - 1 - n);
            if (k <= 0) break;
            n += (size_t)k;
            req[n] = 0;
            if (strstr(req, "\r\n\r\n")) break;
        }
        req[n] = 0;
        if (strncmp(req, "QUIT", 4) == 0) {
            close(c);
            return NULL;
        }
        atomic_fetch_add(&r->requests, 1);
        char token[128] = "";
        const char *t = strcasestr(req, "x-amz-security-token:");
        if (t) sscanf(t + 21, " %127[^\r\n]", token);
        snprintf(r->last_token, sizeof r->last_token, "%s", token);
        char resp[1024];
        if (strcmp(token, "stale-token") == 0) {
            char body[256];
            snprintf(body, sizeof body, "<Error><Code>%s</Code><Message>The provided token has expired.</Message></Error>",
                     r->code);
            snprintf(resp, sizeof resp,
                     "HTTP/1.1 %d Denied\r\nContent-Type: application/xml\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n%s",
                     r->status, strlen(body), body);
        } else {
            snprintf(resp, sizeof resp,
                     "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
        }
        ssize_t w = write(c, resp, strlen(resp));
        (void)w;
        close(c);
    }
}

static void responder_start(responder *r) {
    r->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(r->fd >= 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(r->fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(r->fd, (struct sockaddr *)&a, &len), 0);
    r->port = ntohs(a.sin_port);
    assert_int_equal(listen(r->fd, 16), 0);
    assert_int_equal(pthread_create(&r->th, NULL, responder_main, r), 0);
}

static void responder_stop(responder *r) {
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)r->port);
    if (connect(c, (struct sockaddr *)&a, sizeof a) == 0) {
        ssize_t w = write(c, "QUIT", 4);
        (void)w;
    }
    close(c);
    pthread_join(r->th, NULL);
    close(r->fd);
}

static void expired_token_answers_refresh_and_retry_once(void **state) {
    (void)state;
    struct {
        int status;
        const char *code;
    } cases[] = {{400, "ExpiredToken"}, {403, "TokenRefreshRequired"}};
    for (size_t i = 0; i < 2; i++) {
        responder r = {.status = cases[i].status, .code = cases[i].code};
        responder_start(&r);
        const char *id = "rest:local#db.expired";
        refresher ref = {.ak = "AKIALOCAL", .sk = "local-secret", .tok = "good-token"};
        floe_credentials_set_refresher(id, refresh_fn, &ref);
        put_keys(id, "AKIALOCAL", "local-secret", "stale-token", now_ms() + 3600000);
        floe_fileio *io = store_io(r.port, id);
        floe_input *in = NULL;
        assert_ok(floe_fileio_open_input_sized(io, "s3://bucket/k", 5, &in));
        uint8_t b[5];
        assert_ok(floe_input_read(in, 0, 5, b));
        assert_memory_equal(b, "hello", 5);
        assert_int_equal(atomic_load(&r.requests), 2); /* the rejected one and its retry */
        assert_int_equal(atomic_load(&ref.calls), 1);
        assert_string_equal(r.last_token, "good-token");
        /* Rejected again after the refresh: one retry only, then the error. */
        refresher stale = {.ak = "AKIALOCAL", .sk = "local-secret", .tok = "stale-token"};
        floe_credentials_set_refresher(id, refresh_fn, &stale);
        put_keys(id, "AKIALOCAL", "local-secret", "stale-token", now_ms() + 3600000);
        atomic_store(&r.requests, 0);
        floe_status st = floe_input_read(in, 0, 5, b);
        assert_non_null(st);
        assert_int_equal(floe_status_code(st), FLOE_ERR_AUTH);
        assert_non_null(strstr(floe_status_message(st), cases[i].code));
        assert_null(strstr(floe_status_message(st), "stale-token"));
        floe_status_free(st);
        assert_int_equal(atomic_load(&r.requests), 2);
        assert_int_equal(atomic_load(&stale.calls), 1);
        floe_input_close(in);
        floe_fileio_free(io);
        floe_credentials_forget(id);
        responder_stop(&r);
    }
}

static floe_status failing_refresh(void *ctx, const char *id) {
    (void)ctx;
    (void)id;
    return floe_error(FLOE_ERR_AUTH, "the catalog refused to vend");
}

static void a_failed_refresh_after_rejection_reports_both(void **state) {
    (void)state;
    responder r = {.status = 400, .code = "ExpiredToken"};
    responder_start(&r);
    const char *id = "rest:local#db.norefresh";
    floe_credentials_set_refresher(id, failing_refresh, NULL);
    put_keys(id, "AKIALOCAL", "local-secret", "stale-token", now_ms() + 3600000);
    floe_fileio *io = store_io(r.port, id);
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input_sized(io, "s3://bucket/k", 5, &in));
    uint8_t b[5];
    floe_status st = floe_input_read(in, 0, 5, b);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "ExpiredToken"));
    assert_non_null(strstr(floe_status_message(st), "the catalog refused to vend"));
    floe_status_free(st);
    assert_int_equal(atomic_load(&r.requests), 1);
    floe_input_close(in);
    floe_fileio_free(io);
    floe_credentials_forget(id);
    responder_stop(&r);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_request_signs_with_the_stores_current_keys),
        cmocka_unit_test(keys_near_expiry_are_refreshed_before_requests),
        cmocka_unit_test(rejected_keys_are_refreshed_and_the_request_retried_once),
        cmocka_unit_test(a_fileio_made_from_exported_keys_reads_in_another_process),
        cmocka_unit_test(expired_token_answers_refresh_and_retry_once),
        cmocka_unit_test(a_failed_refresh_after_rejection_reports_both),
    };
    return cmocka_run_group_tests(tests, peer_start, peer_stop);
}
