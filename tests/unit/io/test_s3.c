/* FileIO over S3 against a real peer: s3rver behind a signature-checking,
 * fault-injecting proxy (tests/peers/s3rver_launch.mjs), on 127.0.0.1.
 *
 * The group setup starts the launcher with node and reads its ports; the
 * teardown stops it.  The launcher also exits when our end of its stdin
 * pipe closes, so a crashed test leaves no process behind.  Without
 * tests/peers/node_modules every test skips (and the run fails under CI=true).
 *
 * The credentials are distinctive, real-looking fakes so that the script
 * test tests/scripts/s3_fileio.sh can run this binary with FLOE_LOG=trace and
 * prove neither the secret key nor the session token is ever printed. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floe/fileio.h"
#include "floe/memory.h"
#include "floe_test.h"

#define BUCKET "floe-test"
/* FLOE_TEST_S3_SECRET / FLOE_TEST_S3_TOKEN override these (the script test
 * picks fresh random ones and searches the output for them). */
static const char *SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYfloeSecretC0FFEE";
static const char *TOKEN = "IQoJb3JpZ2luX2VjEFloeSessionToken/Zq9+Xw0rEXAMPLEtok==";

static struct {
    pid_t pid;
    int stdin_fd;
    int s3_port, proxy_port;
    int skip;
} peer = {-1, -1, 0, 0, 0};

static int peer_start(void **state) {
    (void)state;
    char mod[4096], launcher[4096];
    const char *env_secret = getenv("FLOE_TEST_S3_SECRET"), *env_token = getenv("FLOE_TEST_S3_TOKEN");
    if (env_secret && *env_secret) SECRET = env_secret;
    if (env_token && *env_token) TOKEN = env_token;
    snprintf(mod, sizeof mod, "%s/tests/peers/node_modules/s3rver/package.json", FLOE_SOURCE_DIR);
    snprintf(launcher, sizeof launcher, "%s/tests/peers/s3rver_launch.mjs", FLOE_SOURCE_DIR);
    const char *ci = getenv("CI");
    if (access(mod, R_OK) != 0) {
        if (ci && strcmp(ci, "true") == 0) {
            fprintf(stderr, "FAIL: s3rver is not installed (%s); run scripts/install-deps.sh\n", mod);
            return -1;
        }
        printf("SKIP: s3rver not installed under tests/peers/node_modules "
               "(run scripts/install-deps.sh)\n");
        peer.skip = 1;
        return 0;
    }
    /* never route the loopback peer through a proxy from the environment,
     * and never pick up the developer's own AWS settings */
    const char *aws[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                         "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                         "AWS_ENDPOINT_URL_S3"};
    for (size_t i = 0; i < sizeof aws / sizeof aws[0]; i++) unsetenv(aws[i]);
    setenv("NO_PROXY", "*", 1);
    setenv("no_proxy", "*", 1);
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
        ssize_t r = read(out[0], line + n, 1);
        if (r <= 0) break;
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

#define NEED_PEER()                  \
    do {                             \
        if (peer.skip) skip();       \
    } while (0)

/* A FileIO for the proxy with the test credentials; `extra` overrides. */
static floe_fileio *make_io(const floe_property *extra, size_t nextra) {
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", peer.proxy_port);
    floe_property props[32] = {
        {"s3.endpoint", endpoint},          {"s3.region", "eu-west-3"},
        {"s3.access-key-id", "S3RVER"},     {"s3.secret-access-key", SECRET},
        {"s3.session-token", TOKEN},        {"s3.retry.num-retries", "3"},
        {"s3.retry.min-wait-ms", "1"},      {"s3.retry.max-wait-ms", "20"},
        {"s3.path-style-access", "true"},
    };
    size_t n = 9;
    for (size_t i = 0; i < nextra && n < 32; i++) props[n++] = extra[i];
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(props, n, &io));
    return io;
}

/* Ask the proxy how many requests it saw for a key (and method). */
static long proxy_count(const char *what, const char *key, const char *method) {
    char url[512];
    if (strcmp(what, "aborts") == 0)
        snprintf(url, sizeof url, "http://127.0.0.1:%d/__floe/aborts", peer.proxy_port);
    else
        snprintf(url, sizeof url, "http://127.0.0.1:%d/__floe/count?key=%s%s%s", peer.proxy_port,
                 key, method ? "&method=" : "", method ? method : "");
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    CURL *h = curl_easy_init();
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, mem);
    CURLcode cc = curl_easy_perform(h);
    curl_easy_cleanup(h);
    fclose(mem);
    long v = cc == CURLE_OK ? strtol(buf, NULL, 10) : -1;
    free(buf);
    return v;
}

static void fill_pattern(uint8_t *p, size_t n, uint32_t seed) {
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

static void write_object(floe_fileio *io, const char *loc, const uint8_t *data, size_t len,
                         size_t chunk) {
    floe_output *out = NULL;
    assert_ok(floe_fileio_create_output(io, loc, 1, &out));
    for (size_t off = 0; off < len; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        assert_ok(floe_output_write(out, data + off, n));
    }
    assert_ok(floe_output_close(out));
}

static void assert_range(floe_input *in, const uint8_t *want, uint64_t off, size_t len) {
    uint8_t *got = floe_malloc(len ? len : 1);
    assert_ok(floe_input_read(in, off, len, got));
    if (len) assert_memory_equal(got, want + off, len);
    floe_free(got);
}

static void small_object_round_trips_with_exact_ranges(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    uint8_t data[1000];
    fill_pattern(data, sizeof data, 1);
    const char *loc = "s3://" BUCKET "/small/odd key+(1).bin";
    write_object(io, loc, data, sizeof data, 333);
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, loc, &in));
    assert_int_equal(in->size, sizeof data);
    assert_range(in, data, 0, 10);
    assert_range(in, data, 990, 10);
    assert_range(in, data, 500, 1);
    assert_range(in, data, 0, sizeof data);
    assert_range(in, data, 1000, 0);
    uint8_t b[2];
    assert_error(floe_input_read(in, 999, 2, b), FLOE_ERR_CORRUPT, "past the end");
    floe_input_close(in);
    /* with the size known from a manifest: no HEAD, same bytes */
    long heads = proxy_count("count", "small/odd", "HEAD");
    assert_ok(floe_fileio_open_input_sized(io, loc, sizeof data, &in));
    assert_int_equal(proxy_count("count", "small/odd", "HEAD"), heads);
    assert_range(in, data, 17, 400);
    floe_input_close(in);
    /* a size larger than the object shows up as a read error */
    assert_ok(floe_fileio_open_input_sized(io, loc, 2000, &in));
    uint8_t ten[10];
    floe_status st = floe_input_read(in, 1500, 10, ten);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "odd key+(1).bin"));
    floe_status_free(st);
    floe_input_close(in);
    floe_fileio_free(io);
}

static void empty_object_has_size_zero(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    write_object(io, "s3://" BUCKET "/small/empty", NULL, 0, 1);
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3://" BUCKET "/small/empty", &in));
    assert_int_equal(in->size, 0);
    floe_input_close(in);
    floe_fileio_free(io);
}

static void multipart_object_round_trips_across_part_boundaries(void **state) {
    (void)state;
    NEED_PEER();
    floe_property pp[] = {{"s3.multipart.part-size-bytes", "5242880"}};
    floe_fileio *io = make_io(pp, 1);
    size_t len = (size_t)12 * 1024 * 1024 + 12345; /* parts: 5 MiB, 5 MiB, rest */
    uint8_t *data = floe_malloc(len);
    fill_pattern(data, len, 7);
    long parts_before = proxy_count("count", "multi/big.bin", "PUT");
    write_object(io, "s3://" BUCKET "/multi/big.bin", data, len, 1000003);
    assert_int_equal(proxy_count("count", "multi/big.bin", "PUT") - parts_before, 3);
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3a://" BUCKET "/multi/big.bin", &in));
    assert_int_equal(in->size, len);
    size_t mib5 = (size_t)5 << 20;
    assert_range(in, data, mib5 - 7, 14);       /* across the first boundary */
    assert_range(in, data, 2 * mib5 - 1, 2);    /* across the second */
    assert_range(in, data, len - 100, 100);     /* the tail */
    uint8_t *all = NULL;
    size_t n = 0;
    assert_ok(floe_input_read_all(in, &all, &n));
    assert_int_equal(n, len);
    assert_memory_equal(all, data, len);
    floe_free(all);
    floe_input_close(in);
    floe_free(data);
    floe_fileio_free(io);
}

static void a_failed_part_fails_close_and_aborts_the_upload(void **state) {
    (void)state;
    NEED_PEER();
    floe_property pp[] = {{"s3.multipart.part-size-bytes", "5242880"},
                          {"s3.multipart.num-threads", "3"}};
    floe_fileio *io = make_io(pp, 2);
    size_t len = (size_t)21 << 20; /* 5 parts */
    uint8_t *data = floe_malloc(len);
    fill_pattern(data, len, 9);
    long aborts = proxy_count("aborts", NULL, NULL);
    floe_output *out = NULL;
    assert_ok(floe_fileio_create_output(io, "s3://" BUCKET "/partfail-x.bin", 1, &out));
    floe_status st = NULL;
    for (size_t off = 0; off < len && !st; off += 1 << 20) st = floe_output_write(out, data + off, 1 << 20);
    if (st) { /* the failure may surface in a write ... */
        assert_non_null(strstr(floe_status_message(st), "InvalidPart"));
        floe_status_free(st);
        floe_output_abort(out);
    } else { /* ... or at close */
        assert_error(floe_output_close(out), FLOE_ERR_IO, "part 2: s3://" BUCKET "/partfail-x.bin: HTTP 400 InvalidPart");
    }
    assert_int_equal(proxy_count("aborts", NULL, NULL), aborts + 1);
    int exists = 1;
    assert_ok(floe_fileio_exists(io, "s3://" BUCKET "/partfail-x.bin", &exists));
    assert_int_equal(exists, 0);
    floe_free(data);
    floe_fileio_free(io);
}

static void parts_upload_inline_with_zero_threads(void **state) {
    (void)state;
    NEED_PEER();
    floe_property pp[] = {{"s3.multipart.part-size-bytes", "5242880"},
                          {"s3.multipart.num-threads", "0"}};
    floe_fileio *io = make_io(pp, 2);
    size_t len = ((size_t)10 << 20) + 1;
    uint8_t *data = floe_malloc(len);
    fill_pattern(data, len, 13);
    write_object(io, "s3://" BUCKET "/inline/x.bin", data, len, 777777);
    assert_int_equal(proxy_count("count", "inline/x.bin", "PUT"), 3);
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3://" BUCKET "/inline/x.bin", &in));
    assert_int_equal(in->size, len);
    assert_range(in, data, len - 3, 3);
    floe_input_close(in);
    floe_free(data);
    floe_fileio_free(io);
}

static void a_lost_completion_response_is_recognised(void **state) {
    (void)state;
    NEED_PEER();
    floe_property pp[] = {{"s3.multipart.part-size-bytes", "5242880"}};
    floe_fileio *io = make_io(pp, 1);
    size_t len = ((size_t)5 << 20) + 10;
    uint8_t *data = floe_malloc(len);
    fill_pattern(data, len, 17);
    /* first completion takes effect but answers 500; the retry gets 404
     * NoSuchUpload; the object is there with our size, so close succeeds */
    write_object(io, "s3://" BUCKET "/completelost-x.bin", data, len, len);
    assert_int_equal(proxy_count("count", "completelost-x.bin", "POST"), 3); /* create + 2 completes */
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3://" BUCKET "/completelost-x.bin", &in));
    assert_int_equal(in->size, len);
    assert_range(in, data, len - 20, 20);
    floe_input_close(in);
    floe_free(data);
    floe_fileio_free(io);
}

static void part_size_below_five_mib_is_rejected(void **state) {
    (void)state;
    floe_property pp[] = {{"s3.multipart.part-size-bytes", "1048576"}};
    floe_fileio *io = NULL;
    assert_error(floe_fileio_new(pp, 1, &io), FLOE_ERR_INVALID_ARGUMENT,
                 "s3.multipart.part-size-bytes");
    floe_property bad[] = {{"s3.path-style-access", "maybe"}};
    assert_error(floe_fileio_new(bad, 1, &io), FLOE_ERR_INVALID_ARGUMENT, "s3.path-style-access");
}

static void abort_discards_a_multipart_upload(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0); /* default 8 MiB parts */
    size_t len = (size_t)9 << 20;
    uint8_t *data = floe_malloc(len);
    fill_pattern(data, len, 3);
    long aborts = proxy_count("aborts", NULL, NULL);
    floe_output *out = NULL;
    assert_ok(floe_fileio_create_output(io, "s3://" BUCKET "/aborted/x.bin", 0, &out));
    assert_ok(floe_output_write(out, data, len));
    floe_output_abort(out);
    assert_int_equal(proxy_count("aborts", NULL, NULL), aborts + 1);
    int exists = 1;
    assert_ok(floe_fileio_exists(io, "s3://" BUCKET "/aborted/x.bin", &exists));
    assert_int_equal(exists, 0);
    floe_free(data);
    floe_fileio_free(io);
}

static void create_without_overwrite_refuses_an_existing_object(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    write_object(io, "s3://" BUCKET "/once/a", (const uint8_t *)"x", 1, 1);
    floe_output *out = NULL;
    assert_error(floe_fileio_create_output(io, "s3://" BUCKET "/once/a", 0, &out),
                 FLOE_ERR_ALREADY_EXISTS, "s3://" BUCKET "/once/a");
    floe_fileio_free(io);
}

static void exists_and_delete_follow_the_object(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    const char *loc = "s3://" BUCKET "/del/gone.txt";
    write_object(io, loc, (const uint8_t *)"bye", 3, 3);
    int exists = 0;
    assert_ok(floe_fileio_exists(io, loc, &exists));
    assert_int_equal(exists, 1);
    assert_ok(floe_fileio_delete(io, loc));
    assert_ok(floe_fileio_exists(io, loc, &exists));
    assert_int_equal(exists, 0);
    assert_ok(floe_fileio_delete(io, loc)); /* idempotent */
    floe_fileio_free(io);
}

typedef struct listed {
    int count;
    uint64_t bytes;
    int bad;
    const char *want_prefix;
} listed;

static floe_status count_listed(void *ctx, const floe_file_info *info) {
    listed *l = ctx;
    l->count++;
    l->bytes += info->size;
    if (strncmp(info->location, l->want_prefix, strlen(l->want_prefix)) != 0 ||
        info->last_modified_ms <= 0)
        l->bad++;
    return NULL;
}

static floe_status stop_listing(void *ctx, const floe_file_info *info) {
    (void)info;
    int *n = ctx;
    return ++*n == 3 ? floe_error(FLOE_ERR_CANCELLED, "enough") : NULL;
}

static void list_follows_continuation_tokens_within_the_prefix(void **state) {
    (void)state;
    NEED_PEER();
    floe_property pp[] = {{"s3.list.max-keys", "4"}};
    floe_fileio *io = make_io(pp, 1);
    char loc[128];
    for (int i = 0; i < 23; i++) {
        snprintf(loc, sizeof loc, "s3://" BUCKET "/list/p/f%02d & <x>.dat", i);
        uint8_t b[64];
        fill_pattern(b, (size_t)i + 1, (uint32_t)i);
        write_object(io, loc, b, (size_t)i + 1, 64);
    }
    for (int i = 0; i < 3; i++) {
        snprintf(loc, sizeof loc, "s3://" BUCKET "/list/q/g%d", i);
        write_object(io, loc, (const uint8_t *)"q", 1, 1);
    }
    long lists_before = proxy_count("count", "/" BUCKET, "GET");
    listed l = {0, 0, 0, "s3://" BUCKET "/list/p/f"};
    assert_ok(floe_fileio_list(io, "s3://" BUCKET "/list/p/", count_listed, &l));
    assert_int_equal(l.count, 23);
    assert_int_equal(l.bytes, 23 * 24 / 2);
    assert_int_equal(l.bad, 0);
    /* 23 keys at 4 per page is 6 pages */
    assert_true(proxy_count("count", "/" BUCKET, "GET") - lists_before >= 6);
    listed all = {0, 0, 0, "s3a://" BUCKET "/list/"};
    assert_ok(floe_fileio_list(io, "s3a://" BUCKET "/list/", count_listed, &all));
    assert_int_equal(all.count, 26);
    assert_int_equal(all.bad, 0);
    int n = 0;
    assert_error(floe_fileio_list(io, "s3://" BUCKET "/list/", stop_listing, &n),
                 FLOE_ERR_CANCELLED, "enough");
    assert_int_equal(n, 3);
    floe_fileio_free(io);
}

static floe_status ignore_listed(void *ctx, const floe_file_info *info) {
    (void)ctx;
    (void)info;
    return NULL;
}

static void malformed_listings_are_corrupt_not_endless(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    assert_error(floe_fileio_list(io, "s3://" BUCKET "/listbad-notoken", ignore_listed, NULL),
                 FLOE_ERR_CORRUPT, "without a new continuation token");
    assert_error(floe_fileio_list(io, "s3://" BUCKET "/listbad-entity", ignore_listed, NULL),
                 FLOE_ERR_CORRUPT, "&bogus;");
    assert_error(floe_fileio_list(io, "s3://" BUCKET "/listbad-size", ignore_listed, NULL),
                 FLOE_ERR_CORRUPT, "Size");
    floe_fileio_free(io);
}

static void a_wrong_region_error_names_the_right_region(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    floe_input *in = NULL;
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/wrongregion-x", &in), FLOE_ERR_IO,
                 "HTTP 301 PermanentRedirect");
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/wrongregion-x", &in), FLOE_ERR_IO,
                 "the bucket is in region ap-northeast-1, not eu-west-3 (set s3.region)");
    floe_fileio_free(io);
}

static void missing_key_error_names_object_status_and_code(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    floe_input *in = NULL;
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/nope/missing.bin", &in),
                 FLOE_ERR_NOT_FOUND, "s3://" BUCKET "/nope/missing.bin: HTTP 404 NoSuchKey");
    assert_error(floe_fileio_open_input(io, "s3://no-such-bucket/k", &in), FLOE_ERR_NOT_FOUND,
                 "s3://no-such-bucket/k: HTTP 404 NoSuchBucket");
    /* a 404 is final: one attempt each */
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/fail404-once", &in),
                 FLOE_ERR_NOT_FOUND, "HTTP 404");
    assert_int_equal(proxy_count("count", "fail404-once", "HEAD"), 1);
    assert_int_equal(proxy_count("count", "fail404-once", "GET"), 1);
    floe_fileio_free(io);
}

static void assert_no_secret(floe_status st) {
    assert_non_null(st);
    const char *m = floe_status_message(st);
    assert_null(strstr(m, SECRET));
    assert_null(strstr(m, TOKEN));
    floe_status_free(st);
}

static void wrong_credentials_are_auth_errors_without_secrets(void **state) {
    (void)state;
    NEED_PEER();
    floe_input *in = NULL;
    floe_property badkey[] = {{"s3.access-key-id", "AKIAFLOEUNKNOWNKEY00"}};
    floe_fileio *io = make_io(badkey, 1);
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/small/empty", &in), FLOE_ERR_AUTH,
                 "HTTP 403 InvalidAccessKeyId");
    floe_fileio_free(io);

    floe_property badsecret[] = {{"s3.secret-access-key", "not/the+right/secret0000000000000000000"}};
    io = make_io(badsecret, 1);
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/small/empty", &in), FLOE_ERR_AUTH,
                 "HTTP 403 SignatureDoesNotMatch");
    floe_fileio_free(io);

    floe_property badtoken[] = {{"s3.session-token", "IQoJb3JpZ2luX2VjEFloeWrongToken"}};
    io = make_io(badtoken, 1);
    floe_status st = floe_fileio_open_input(io, "s3://" BUCKET "/small/empty", &in);
    assert_int_equal(floe_status_code(st), FLOE_ERR_AUTH);
    assert_non_null(strstr(floe_status_message(st), "InvalidToken"));
    assert_no_secret(st);
    floe_fileio_free(io);

    /* the right secret gives errors (here 404) that never quote it */
    io = make_io(NULL, 0);
    assert_no_secret(floe_fileio_open_input(io, "s3://" BUCKET "/nope/x", &in));
    floe_fileio_free(io);
}

static void server_errors_are_retried_until_success(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    uint8_t data[300];
    fill_pattern(data, sizeof data, 5);
    write_object(io, "s3://" BUCKET "/flaky500-obj", data, sizeof data, 300);
    assert_int_equal(proxy_count("count", "flaky500-obj", "PUT"), 3); /* 500, 500, 200 */
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3://" BUCKET "/flaky500-obj", &in));
    assert_range(in, data, 100, 50);
    floe_input_close(in);
    assert_int_equal(proxy_count("count", "flaky500-obj", "GET"), 3);

    write_object(io, "s3://" BUCKET "/slowdown-obj", data, 10, 10); /* 503 SlowDown, then 200 */
    assert_int_equal(proxy_count("count", "slowdown-obj", "PUT"), 2);
    floe_fileio_free(io);
}

static void persistent_server_errors_give_up_after_the_retry_budget(void **state) {
    (void)state;
    NEED_PEER();
    floe_property pp[] = {{"s3.retry.num-retries", "2"}};
    floe_fileio *io = make_io(pp, 1);
    floe_input *in = NULL;
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/always500-x", &in), FLOE_ERR_IO,
                 "s3://" BUCKET "/always500-x: HTTP 500 (HEAD, 3 attempts)");
    assert_int_equal(proxy_count("count", "always500-x", "HEAD"), 3);
    floe_fileio_free(io);

    floe_property budget[] = {{"s3.retry.num-retries", "50"}, {"s3.retry.min-wait-ms", "50"},
                              {"s3.retry.max-wait-ms", "50"}, {"s3.retry.total-timeout-ms", "200"}};
    io = make_io(budget, 4);
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/always500-y", &in), FLOE_ERR_IO,
                 "s3.retry.total-timeout-ms");
    assert_true(proxy_count("count", "always500-y", "HEAD") < 20);
    floe_fileio_free(io);
}

static void request_timeouts_are_retried(void **state) {
    (void)state;
    NEED_PEER();
    floe_property pp[] = {{"s3.request-timeout-ms", "700"}};
    floe_fileio *io = make_io(pp, 1);
    write_object(io, "s3://" BUCKET "/hang-obj", (const uint8_t *)"late", 4, 4);
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3://" BUCKET "/hang-obj", &in)); /* HEAD hangs once */
    assert_int_equal(in->size, 4);
    floe_input_close(in);
    assert_int_equal(proxy_count("count", "hang-obj", "HEAD"), 2);
    floe_property none[] = {{"s3.request-timeout-ms", "300"}, {"s3.retry.num-retries", "0"}};
    floe_fileio *io2 = make_io(none, 2);
    assert_error(floe_fileio_open_input(io2, "s3://" BUCKET "/hang-other", &in), FLOE_ERR_TIMEOUT,
                 "s3://" BUCKET "/hang-other");
    floe_fileio_free(io2);
    floe_fileio_free(io);
}

static void virtual_hosted_style_reaches_the_same_bucket(void **state) {
    (void)state;
    NEED_PEER();
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "http://s3.test:%d", peer.proxy_port);
    floe_property pp[] = {{"s3.endpoint", endpoint},
                          {"s3.path-style-access", "false"},
                          {"s3.connect-to", "::127.0.0.1:"}};
    floe_fileio *vio = make_io(pp, 3);
    long before = proxy_count("count", "vhost/v.txt", "PUT");
    write_object(vio, "s3://" BUCKET "/vhost/v.txt", (const uint8_t *)"virtual", 7, 7);
    assert_int_equal(proxy_count("count", "vhost/v.txt", "PUT") - before, 1);
    floe_fileio *io = make_io(NULL, 0); /* path style */
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3://" BUCKET "/vhost/v.txt", &in));
    assert_range(in, (const uint8_t *)"virtual", 0, 7);
    floe_input_close(in);
    floe_fileio_free(io);
    floe_fileio_free(vio);
}

typedef struct reader_arg {
    floe_input *in;
    const uint8_t *data;
    size_t len;
    int seed;
    int failures;
} reader_arg;

static void *reader_thread(void *p) {
    reader_arg *a = p;
    uint8_t buf[4096];
    uint32_t x = (uint32_t)a->seed * 7919u + 1;
    for (int i = 0; i < 25; i++) {
        x = x * 1103515245u + 12345u;
        size_t n = 1 + (x >> 8) % sizeof buf;
        uint64_t off = (x >> 4) % (a->len - n);
        floe_status st = floe_input_read(a->in, off, n, buf);
        if (st || memcmp(buf, a->data + off, n) != 0) a->failures++;
        floe_status_free(st);
    }
    return NULL;
}

static void one_input_serves_many_threads(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    size_t len = 200000;
    uint8_t *data = floe_malloc(len);
    fill_pattern(data, len, 11);
    write_object(io, "s3://" BUCKET "/threads/t.bin", data, len, len);
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3://" BUCKET "/threads/t.bin", &in));
    floe_fileio_free(io); /* the input keeps the client alive */
    pthread_t th[4];
    reader_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (reader_arg){in, data, len, i, 0};
        pthread_create(&th[i], NULL, reader_thread, &args[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    assert_int_equal(in->read_calls, 100);
    floe_input_close(in);
    floe_free(data);
}

static void throttling_is_retried_but_access_denied_is_not(void **state) {
    (void)state;
    NEED_PEER();
    floe_fileio *io = make_io(NULL, 0);
    write_object(io, "s3://" BUCKET "/throttle429-obj", (const uint8_t *)"t", 1, 1);
    assert_int_equal(proxy_count("count", "throttle429-obj", "PUT"), 2);
    floe_input *in = NULL;
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/deny403-obj", &in), FLOE_ERR_AUTH,
                 "s3://" BUCKET "/deny403-obj: HTTP 403 AccessDenied");
    assert_int_equal(proxy_count("count", "deny403-obj", "HEAD"), 1);
    assert_int_equal(proxy_count("count", "deny403-obj", "GET"), 1);
    floe_fileio_free(io);
}

static void refused_connections_are_retried_then_reported(void **state) {
    (void)state;
    NEED_PEER();
    /* a port on 127.0.0.1 that nothing listens on: bind, note, close */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    close(fd);
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", ntohs(sa.sin_port));
    floe_property pp[] = {{"s3.endpoint", endpoint}, {"s3.retry.num-retries", "2"}};
    floe_fileio *io = make_io(pp, 2);
    floe_input *in = NULL;
    assert_error(floe_fileio_open_input(io, "s3://" BUCKET "/x", &in), FLOE_ERR_IO, "3 attempts");
    floe_fileio_free(io);
}

static void environment_variables_supply_endpoint_and_credentials(void **state) {
    (void)state;
    NEED_PEER();
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", peer.proxy_port);
    setenv("AWS_ENDPOINT_URL_S3", endpoint, 1);
    setenv("AWS_ACCESS_KEY_ID", "S3RVER", 1);
    setenv("AWS_SECRET_ACCESS_KEY", SECRET, 1);
    setenv("AWS_SESSION_TOKEN", TOKEN, 1);
    setenv("AWS_REGION", "ap-southeast-2", 1);
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(NULL, 0, &io));
    write_object(io, "s3://" BUCKET "/env/e.txt", (const uint8_t *)"from env", 8, 8);
    int exists = 0;
    assert_ok(floe_fileio_exists(io, "s3://" BUCKET "/env/e.txt", &exists));
    assert_int_equal(exists, 1);
    floe_fileio_free(io);
    /* properties win over the environment: a wrong property secret fails */
    floe_property pp[] = {{"s3.access-key-id", "S3RVER"}, {"s3.secret-access-key", "wrong"}};
    assert_ok(floe_fileio_new(pp, 2, &io));
    assert_error(floe_fileio_exists(io, "s3://" BUCKET "/env/e.txt", &exists), FLOE_ERR_AUTH,
                 "HTTP 403");
    floe_fileio_free(io);
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    unsetenv("AWS_REGION");
    /* no credentials anywhere: anonymous, unsigned requests */
    assert_ok(floe_fileio_new(NULL, 0, &io));
    floe_input *in = NULL;
    assert_ok(floe_fileio_open_input(io, "s3://" BUCKET "/env/e.txt", &in));
    assert_range(in, (const uint8_t *)"from env", 0, 8);
    floe_input_close(in);
    floe_fileio_free(io);
    unsetenv("AWS_ENDPOINT_URL_S3");
}

static void unsupported_schemes_and_bad_locations_are_rejected(void **state) {
    (void)state;
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(NULL, 0, &io));
    floe_input *in = NULL;
    assert_error(floe_fileio_open_input(io, "gs://b/k", &in), FLOE_ERR_UNSUPPORTED, "gs://b/k");
    assert_error(floe_fileio_open_input(io, "s3://", &in), FLOE_ERR_INVALID_ARGUMENT, "bucket");
    assert_error(floe_fileio_open_input(io, "s3://bucket", &in), FLOE_ERR_INVALID_ARGUMENT,
                 "names a bucket");
    floe_fileio_free(io);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_object_round_trips_with_exact_ranges),
        cmocka_unit_test(empty_object_has_size_zero),
        cmocka_unit_test(multipart_object_round_trips_across_part_boundaries),
        cmocka_unit_test(a_failed_part_fails_close_and_aborts_the_upload),
        cmocka_unit_test(parts_upload_inline_with_zero_threads),
        cmocka_unit_test(a_lost_completion_response_is_recognised),
        cmocka_unit_test(part_size_below_five_mib_is_rejected),
        cmocka_unit_test(abort_discards_a_multipart_upload),
        cmocka_unit_test(create_without_overwrite_refuses_an_existing_object),
        cmocka_unit_test(exists_and_delete_follow_the_object),
        cmocka_unit_test(list_follows_continuation_tokens_within_the_prefix),
        cmocka_unit_test(malformed_listings_are_corrupt_not_endless),
        cmocka_unit_test(a_wrong_region_error_names_the_right_region),
        cmocka_unit_test(missing_key_error_names_object_status_and_code),
        cmocka_unit_test(wrong_credentials_are_auth_errors_without_secrets),
        cmocka_unit_test(server_errors_are_retried_until_success),
        cmocka_unit_test(persistent_server_errors_give_up_after_the_retry_budget),
        cmocka_unit_test(request_timeouts_are_retried),
        cmocka_unit_test(virtual_hosted_style_reaches_the_same_bucket),
        cmocka_unit_test(one_input_serves_many_threads),
        cmocka_unit_test(throttling_is_retried_but_access_denied_is_not),
        cmocka_unit_test(refused_connections_are_retried_then_reported),
        cmocka_unit_test(environment_variables_supply_endpoint_and_credentials),
        cmocka_unit_test(unsupported_schemes_and_bad_locations_are_rejected),
    };
    return cmocka_run_group_tests(tests, peer_start, peer_stop);
}
