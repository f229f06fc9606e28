/* Logging: levels from FLOE_LOG, line format, skipped formatting when off,
 * whole lines from many threads, and secrets never reaching the output —
 * neither through a sink nor through the real stderr. */
#include "floe_test.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/log.h"
#include "floe/memory.h"

#define AWS_SECRET "Zq8vR2mN/xT4kLp9Hs7Wd3JfYb1GcEuA6oQiVnXe"
#define JWT "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmbG9lIn0.c2lnbmF0dXJlLXNlY3JldA"
#define PASSWORD "hunter2-Sup3r"

/* A sink collecting lines into a plain malloc'd string (so its memory is
 * independent of the tracked allocator). */
typedef struct {
    char *text;
    size_t len;
    int lines;
} capture;

static void capture_sink(void *ctx, floe_log_level level, const char *line, size_t len) {
    capture *c = ctx;
    c->text = realloc(c->text, c->len + len + 1);
    memcpy(c->text + c->len, line, len);
    c->len += len;
    c->text[c->len] = '\0';
    c->lines++;
}

static capture cap;

static int start_capture(void **state) {
    (void)state;
    memset(&cap, 0, sizeof cap);
    floe_log_set_sink(capture_sink, &cap);
    floe_log_set_level(FLOE_LOG_INFO);
    return 0;
}

static int stop_capture(void **state) {
    (void)state;
    floe_log_set_sink(NULL, NULL);
    free(cap.text);
    memset(&cap, 0, sizeof cap);
    return 0;
}

static void assert_no_secret(const char *text) {
    const char *secrets[] = {AWS_SECRET, JWT, PASSWORD, "hunter2", "c2lnbmF0dXJl"};
    for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++)
        if (text && strstr(text, secrets[i])) fail_msg("secret '%s' leaked in: %s", secrets[i], text);
}

static void level_names_parse_and_floe_log_env_sets_threshold(void **state) {
    (void)state;
    floe_log_level lv;
    assert_ok(floe_log_parse_level("debug", &lv));
    assert_int_equal(lv, FLOE_LOG_DEBUG);
    assert_ok(floe_log_parse_level(" TRACE ", &lv));
    assert_int_equal(lv, FLOE_LOG_TRACE);
    assert_ok(floe_log_parse_level("warning", &lv));
    assert_int_equal(lv, FLOE_LOG_WARN);
    assert_ok(floe_log_parse_level("off", &lv));
    assert_int_equal(lv, FLOE_LOG_OFF);
    assert_ok(floe_log_parse_level("3", &lv));
    assert_int_equal(lv, FLOE_LOG_INFO);
    assert_error(floe_log_parse_level("loud", &lv), FLOE_ERR_INVALID_ARGUMENT, "unknown log level 'loud'");

    setenv("FLOE_LOG", "debug", 1);
    atomic_store(&floe_log_threshold_, -1); /* force a re-read */
    assert_int_equal(floe_log_get_level(), FLOE_LOG_DEBUG);
    assert_true(floe_log_enabled(FLOE_LOG_DEBUG));
    assert_false(floe_log_enabled(FLOE_LOG_TRACE));
    unsetenv("FLOE_LOG");
    atomic_store(&floe_log_threshold_, -1);
    assert_int_equal(floe_log_get_level(), FLOE_LOG_WARN); /* the default */
    assert_true(floe_log_enabled(FLOE_LOG_ERROR));
    assert_false(floe_log_enabled(FLOE_LOG_INFO));
    setenv("FLOE_LOG", "nonsense", 1);
    atomic_store(&floe_log_threshold_, -1);
    assert_int_equal(floe_log_get_level(), FLOE_LOG_WARN);
    unsetenv("FLOE_LOG");
    assert_false(floe_log_enabled(FLOE_LOG_OFF));
}

static void line_has_timestamp_level_component_and_message(void **state) {
    (void)state;
    FLOE_LOG_WARN("catalog", "commit retry %d of %d", 2, 4);
    assert_int_equal(cap.lines, 1);
    /* 2026-11-29T17:23:37.123Z WARN  [catalog] commit retry 2 of 4\n */
    assert_true(strlen(cap.text) > 25);
    assert_true(cap.text[4] == '-' && cap.text[10] == 'T' && cap.text[19] == '.' && cap.text[23] == 'Z');
    assert_string_equal(cap.text + 24, " WARN  [catalog] commit retry 2 of 4\n");
    FLOE_LOG_ERROR(NULL, "boom");
    assert_non_null(strstr(cap.text, " ERROR [floe] boom\n"));
}

static int evaluations;
static int count_evaluation(void) { return ++evaluations; }

static void disabled_levels_skip_formatting_and_output(void **state) {
    (void)state;
    floe_log_set_level(FLOE_LOG_WARN);
    evaluations = 0;
    FLOE_LOG_DEBUG("x", "value %d", count_evaluation());
    FLOE_LOG_TRACE("x", "value %d", count_evaluation());
    FLOE_LOG_INFO("x", "value %d", count_evaluation());
    assert_int_equal(evaluations, 0);
    assert_int_equal(cap.lines, 0);
    FLOE_LOG_WARN("x", "value %d", count_evaluation());
    assert_int_equal(evaluations, 1);
    assert_int_equal(cap.lines, 1);
    floe_log_set_level(FLOE_LOG_OFF);
    FLOE_LOG_ERROR("x", "value %d", count_evaluation());
    assert_int_equal(evaluations, 1);
    assert_int_equal(cap.lines, 1);
    const char *k[] = {"a"}, *v[] = {"b"};
    floe_log_config(FLOE_LOG_ERROR, "x", "cfg", k, v, 1);
    assert_int_equal(cap.lines, 1);
}

static void plain_messages_are_redacted_before_writing(void **state) {
    (void)state;
    FLOE_LOG_WARN("io", "retrying with password=%s and Authorization: Bearer %s", PASSWORD, JWT);
    FLOE_LOG_INFO("io", "GET https://admin:%s@h/x?X-Amz-Signature=abc", PASSWORD);
    FLOE_LOG_INFO("io", "creds {\"secret_access_key\": \"%s\"}", AWS_SECRET);
    assert_int_equal(cap.lines, 3);
    assert_no_secret(cap.text);
    assert_non_null(strstr(cap.text, "password=***"));
    assert_non_null(strstr(cap.text, "https://***@h/x?X-Amz-Signature=***"));
}

static void structured_helpers_redact_config_request_and_json(void **state) {
    (void)state;
    const char *keys[] = {"type", "uri", "s3.secret-access-key", "token"};
    const char *vals[] = {"rest", "http://localhost:8181", AWS_SECRET, JWT};
    floe_log_config(FLOE_LOG_INFO, "catalog", "loading catalog 'prod'", keys, vals, 4);
    floe_strmap m = FLOE_STRMAP_INIT;
    assert_ok(floe_strmap_put_c(&m, "credential", (void *)("client:" PASSWORD), NULL));
    assert_ok(floe_strmap_put_c(&m, "warehouse", (void *)"s3://wh", NULL));
    floe_log_config_map(FLOE_LOG_INFO, "catalog", "properties", &m);
    floe_strmap_free(&m);
    const char *headers[] = {"Authorization: Bearer " JWT, "Host: catalog.local", "X-Amz-Security-Token: " AWS_SECRET};
    floe_log_http_request(FLOE_LOG_INFO, "rest", "request", "POST",
                          "https://catalog.local/v1/oauth/tokens?client_secret=" PASSWORD, headers, 3);
    floe_log_json(FLOE_LOG_INFO, "rest", "response",
                  "{\"access_token\":\"" JWT "\",\"token_type\":\"bearer\",\"expires_in\":3600}");
    assert_int_equal(cap.lines, 4);
    assert_no_secret(cap.text);
    assert_non_null(strstr(cap.text, "loading catalog 'prod': type=rest, uri=http://localhost:8181, "
                                     "s3.secret-access-key=***, token=***\n"));
    assert_non_null(strstr(cap.text, "properties: credential=***, warehouse=s3://wh\n"));
    assert_non_null(strstr(cap.text, "request: POST https://catalog.local/v1/oauth/tokens?client_secret=*** "
                                     "[Authorization: ***; Host: catalog.local; X-Amz-Security-Token: ***]\n"));
    /* token_type is hidden too: its name contains "token" (greedy by design). */
    assert_non_null(strstr(cap.text, "response: {\"access_token\":\"***\",\"token_type\":\"***\",\"expires_in\":3600}\n"));
}

typedef struct {
    int id;
} thread_arg;

static void *log_many(void *p) {
    thread_arg *a = p;
    for (int i = 0; i < 200; i++) FLOE_LOG_INFO("t", "thread %d line %d token=%s end", a->id, i, JWT);
    return NULL;
}

static void lines_from_many_threads_never_interleave(void **state) {
    (void)state;
    pthread_t th[4];
    thread_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i].id = i;
        pthread_create(&th[i], NULL, log_many, &args[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    assert_int_equal(cap.lines, 800);
    assert_no_secret(cap.text);
    /* Every line is whole: prefix, message, " end\n". */
    int lines = 0;
    for (char *line = cap.text; *line; lines++) {
        char *nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        assert_non_null(strstr(line, " INFO  [t] thread "));
        assert_non_null(strstr(line, " token=*** end"));
        line = nl + 1;
    }
    assert_int_equal(lines, 800);
}

static void default_sink_writes_redacted_lines_to_stderr(void **state) {
    (void)state;
    floe_log_set_sink(NULL, NULL); /* the real stderr */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fds[1], 2) >= 0);
    FLOE_LOG_WARN("s3", "using aws_secret_access_key=%s", AWS_SECRET);
    const char *hk[] = {"password"}, *hv[] = {PASSWORD};
    floe_log_config(FLOE_LOG_WARN, "s3", "cfg", hk, hv, 1);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fds[1]);
    char buf[4096];
    ssize_t n, total = 0;
    while ((n = read(fds[0], buf + total, sizeof buf - 1 - (size_t)total)) > 0) total += n;
    close(fds[0]);
    buf[total] = '\0';
    assert_no_secret(buf);
    assert_non_null(strstr(buf, " WARN  [s3] using aws_secret_access_key=***\n"));
    assert_non_null(strstr(buf, " WARN  [s3] cfg: password=***\n"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, start_capture, stop_capture)
FLOE_TEST_MAIN(T(level_names_parse_and_floe_log_env_sets_threshold),
               T(line_has_timestamp_level_component_and_message),
               T(disabled_levels_skip_formatting_and_output),
               T(plain_messages_are_redacted_before_writing),
               T(structured_helpers_redact_config_request_and_json),
               T(lines_from_many_threads_never_interleave),
               T(default_sink_writes_redacted_lines_to_stderr))
