/* Redaction: secret key names, config lists and maps, HTTP headers, URLs,
 * JSON at any depth and free text.  Real-looking secrets must never
 * appear in the output. */
#include "floe_test.h"

#include "base/redact.h"
#include "floe/memory.h"

/* Made-up credentials shaped like real ones. */
#define AWS_SECRET "Zq8vR2mN/xT4kLp9Hs7Wd3JfYb1GcEuA6oQiVnXe"
#define AWS_SESSION "FwoGZXIvYXdzEBYaDNjZmM2ZjE0LWJhZGMtNDk1Zi1hYzQ2LTQxOWFlNzk3"
#define JWT "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmbG9lIn0.c2lnbmF0dXJlLXNlY3JldA"
#define PASSWORD "hunter2-Sup3r"
#define SIGNATURE "4f2c9e0b7a1d3e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7"

static const char *const all_secrets[] = {AWS_SECRET, AWS_SESSION, JWT, PASSWORD, SIGNATURE, "hunter2",
                                          "c2lnbmF0dXJl"};

/* Fail if any secret (or a telling fragment of one) is in `text`. */
static void assert_no_secret(const char *text) {
    for (size_t i = 0; i < sizeof all_secrets / sizeof all_secrets[0]; i++)
        if (strstr(text, all_secrets[i])) fail_msg("secret '%s' leaked in: %s", all_secrets[i], text);
}

/* Run a redactor into a fresh buffer and return a copy of the text. */
typedef floe_status (*redact_fn)(floe_buf *, const char *);
static char *redact_with(redact_fn fn, const char *in) {
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(fn(&b, in));
    char *out = strdup(floe_buf_cstr(&b));
    floe_buf_free(&b);
    return out;
}

static void secret_key_names_are_recognised_case_insensitively(void **state) {
    (void)state;
    const char *secret[] = {"s3.secret-access-key", "S3.SECRET-ACCESS-KEY", "client-secret", "client_secret",
                            "x-amz-security-token", "X-Amz-Signature", "X-Amz-Credential", "Cookie",
                            "Set-Cookie", "Authorization", "Proxy-Authorization", "token", "rest.auth.token",
                            "session-token", "session_token", "password", "db.passwd", "credential",
                            "gcs.oauth2.token", "private-key", "private_key", "access-key", "access_key",
                            "s3.access-key-id", "api-key", "apikey", "X-API-Key", "sig", "pwd", "auth",
                            "adls.sas-token.account", " secret "};
    for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
        if (!floe_redact_is_secret_key(secret[i])) fail_msg("'%s' should be secret", secret[i]);
    const char *plain[] = {"warehouse", "uri", "s3.endpoint", "s3.region", "client.region", "name",
                           "oauth2-server-uri", "io-impl", "format-version", "Host", "Content-Type",
                           "X-Amz-Date", "partition-key", "author", "", "keyword"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (floe_redact_is_secret_key(plain[i])) fail_msg("'%s' should not be secret", plain[i]);
    assert_false(floe_redact_is_secret_key(NULL));
    assert_string_equal(floe_redact_value("s3.secret-access-key", AWS_SECRET), "***");
    assert_string_equal(floe_redact_value("s3.endpoint", "http://localhost:9000"), "http://localhost:9000");
}

static void config_list_hides_secret_values_and_keeps_others(void **state) {
    (void)state;
    const char *keys[] = {"warehouse", "s3.access-key-id", "s3.secret-access-key", "s3.session-token",
                          "uri", "token", "empty"};
    const char *values[] = {"s3://bucket/wh", "AKIAEXAMPLE", AWS_SECRET, AWS_SESSION,
                            "https://admin:" PASSWORD "@catalog.local/api", JWT, NULL};
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_redact_kv_list(&b, keys, values, 7));
    const char *out = floe_buf_cstr(&b);
    assert_no_secret(out);
    assert_string_equal(out, "warehouse=s3://bucket/wh, s3.access-key-id=***, s3.secret-access-key=***, "
                             "s3.session-token=***, uri=https://***@catalog.local/api, token=***, "
                             "empty=(null)");
    floe_buf_free(&b);
}

static void config_map_is_printed_sorted_and_redacted(void **state) {
    (void)state;
    floe_strmap m = FLOE_STRMAP_INIT;
    assert_ok(floe_strmap_put_c(&m, "s3.secret-access-key", (void *)AWS_SECRET, NULL));
    assert_ok(floe_strmap_put_c(&m, "region", (void *)"eu-west-1", NULL));
    assert_ok(floe_strmap_put_c(&m, "client.password", (void *)PASSWORD, NULL));
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_redact_strmap(&b, &m));
    assert_string_equal(floe_buf_cstr(&b), "client.password=***, region=eu-west-1, s3.secret-access-key=***");
    floe_buf_free(&b);
    floe_strmap_free(&m);
}

static void header_lines_hide_secret_values(void **state) {
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {
        {"Authorization: Bearer " JWT, "Authorization: ***"},
        {"authorization:AWS4-HMAC-SHA256 Credential=AKIA/20240101/us-east-1/s3/aws4_request, Signature=" SIGNATURE,
         "authorization:***"},
        {"x-amz-security-token: " AWS_SESSION, "x-amz-security-token: ***"},
        {"Cookie: session=" JWT "; theme=dark", "Cookie: ***"},
        {"Host: s3.us-east-1.amazonaws.com", "Host: s3.us-east-1.amazonaws.com"},
        {"X-Amz-Date: 20240101T000000Z", "X-Amz-Date: 20240101T000000Z"},
        {"X-Iceberg-Access-Delegation: vended-credentials", "X-Iceberg-Access-Delegation: vended-credentials"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = redact_with(floe_redact_header, cases[i].in);
        assert_no_secret(out);
        assert_string_equal(out, cases[i].out);
        free(out);
    }
}

static void urls_lose_userinfo_and_secret_query_parameters(void **state) {
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {
        {"https://bucket.s3.amazonaws.com/data/x.parquet?X-Amz-Algorithm=AWS4-HMAC-SHA256"
         "&X-Amz-Credential=AKIAEXAMPLE%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240101T000000Z"
         "&X-Amz-Expires=3600&X-Amz-Security-Token=" AWS_SESSION "&X-Amz-Signature=" SIGNATURE,
         "https://bucket.s3.amazonaws.com/data/x.parquet?X-Amz-Algorithm=AWS4-HMAC-SHA256"
         "&X-Amz-Credential=***&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-Security-Token=***"
         "&X-Amz-Signature=***"},
        {"postgresql://admin:" PASSWORD "@db.local:5432/catalog", "postgresql://***@db.local:5432/catalog"},
        {"https://user@host/p", "https://***@host/p"},
        {"https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig=" SIGNATURE "&se=2030",
         "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig=***&se=2030"},
        {"https://idp/cb#access_token=" JWT "&state=xyz", "https://idp/cb#access_token=***&state=xyz"},
        {"http://localhost:8181/v1/config?warehouse=wh", "http://localhost:8181/v1/config?warehouse=wh"},
        {"/relative/path?token=" JWT, "/relative/path?token=***"},
        {"https://h/p?a@b=1", "https://h/p?a@b=1"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = redact_with(floe_redact_url, cases[i].in);
        assert_no_secret(out);
        assert_string_equal(out, cases[i].out);
        free(out);
    }
}

static void json_secret_members_are_hidden_at_any_depth(void **state) {
    (void)state;
    const char *in =
        "{\"name\":\"orders\",\"config\":{\"s3.secret-access-key\":\"" AWS_SECRET "\","
        "\"s3.endpoint\":\"http://minio:9000\",\"nested\":[{\"token\":\"" JWT "\"},"
        "{\"password\":{\"deep\":\"" PASSWORD "\"}}],\"client-secret\":12345,"
        "\"uri\":\"https://u:" PASSWORD "@catalog/api\",\"note\":\"Authorization: Bearer " JWT "\"},"
        "\"count\":3}";
    char *out = redact_with(floe_redact_json, in);
    assert_no_secret(out);
    assert_non_null(strstr(out, "\"name\":\"orders\""));
    assert_non_null(strstr(out, "\"s3.secret-access-key\":\"***\""));
    assert_non_null(strstr(out, "\"token\":\"***\""));
    assert_non_null(strstr(out, "\"password\":\"***\""));
    assert_non_null(strstr(out, "\"client-secret\":\"***\""));
    assert_non_null(strstr(out, "\"uri\":\"https://***@catalog/api\""));
    assert_non_null(strstr(out, "\"s3.endpoint\":\"http://minio:9000\""));
    assert_non_null(strstr(out, "\"count\":3"));
    free(out);
}

static void json_name_value_pairs_naming_a_secret_hide_the_value(void **state) {
    (void)state;
    const char *in = "{\"env\":[{\"name\":\"AWS_SECRET_ACCESS_KEY\",\"value\":\"" AWS_SECRET "\"},"
                     "{\"name\":\"AWS_REGION\",\"value\":\"us-east-1\"}],"
                     "\"props\":[{\"key\":\"rest.auth.token\",\"value\":\"" JWT "\"}]}";
    char *out = redact_with(floe_redact_json, in);
    assert_no_secret(out);
    assert_string_equal(out, "{\"env\":[{\"name\":\"AWS_SECRET_ACCESS_KEY\",\"value\":\"***\"},"
                             "{\"name\":\"AWS_REGION\",\"value\":\"us-east-1\"}],"
                             "\"props\":[{\"key\":\"rest.auth.token\",\"value\":\"***\"}]}");
    free(out);
}

static void malformed_json_is_redacted_as_text(void **state) {
    (void)state;
    char *out = redact_with(floe_redact_json, "{\"password\": \"" PASSWORD "\", \"token\": \"" JWT);
    assert_no_secret(out);
    assert_non_null(strstr(out, "\"password\": \"***\""));
    free(out);
}

static void free_text_hides_secret_pairs_and_keeps_the_rest(void **state) {
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {
        {"connecting user=bob password=" PASSWORD " region=us-east-1",
         "connecting user=bob password=*** region=us-east-1"},
        {"s3.secret-access-key = " AWS_SECRET ", s3.region = eu", "s3.secret-access-key = ***, s3.region = eu"},
        {"request failed: Authorization: Bearer " JWT "\nnext line", "request failed: Authorization: ***\nnext line"},
        {"got {\"token\": \"" JWT "\", \"expires_in\": 3600}", "got {\"token\": \"***\", \"expires_in\": 3600}"},
        {"body={\\\"client_secret\\\":\\\"" PASSWORD "\\\",\\\"id\\\":1}", "body={\\\"client_secret\\\":\\\"***\\\",\\\"id\\\":1}"},
        {"sending Bearer " JWT " to server", "sending Bearer *** to server"},
        {"GET https://h/x?X-Amz-Signature=" SIGNATURE "&X-Amz-Date=1 failed",
         "GET https://h/x?X-Amz-Signature=***&X-Amz-Date=1 failed"},
        {"opening jdbc:postgresql://cat:" PASSWORD "@db/x", "opening jdbc:postgresql://***@db/x"},
        {"Authorization=Bearer " JWT, "Authorization=***"},
        {"token='" JWT "' ok", "token='***' ok"},
        {"unterminated secret=\"" AWS_SECRET, "unterminated secret=\"***"},
        {"plain text: nothing to hide, count=3, file=s3://b/k.parquet",
         "plain text: nothing to hide, count=3, file=s3://b/k.parquet"},
        {"floe --catalog prod --password " PASSWORD " --verbose", "floe --catalog prod --password *** --verbose"},
        {"--api-key=" JWT, "--api-key=***"},
        {"AWS_SECRET_ACCESS_KEY=" AWS_SECRET " AWS_REGION=us-east-1", "AWS_SECRET_ACCESS_KEY=*** AWS_REGION=us-east-1"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = redact_with(floe_redact_text, cases[i].in);
        assert_no_secret(out);
        assert_string_equal(out, cases[i].out);
        free(out);
    }
}

static void arbitrary_bytes_are_scanned_without_reading_out_of_bounds(void **state) {
    (void)state;
    /* Fragments that steer the scanner into every branch, joined at random
     * and cut at every length; exactly sized copies let ASan catch overreads. */
    const char *frags[] = {"password", "=", ":", " ", "\"", "'", "\\", "\\\"", "://", "@", "Bearer",
                           "--token", "&", "\n", "x", "secret", "/", "?", "#", "\xff"};
    uint64_t seed = 42;
    for (int round = 0; round < 2000; round++) {
        char text[128];
        size_t len = 0;
        while (len < 100) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            const char *f = frags[(seed >> 33) % (sizeof frags / sizeof frags[0])];
            size_t fl = strlen(f);
            memcpy(text + len, f, fl);
            len += fl;
        }
        size_t cut = (size_t)round % (len + 1);
        char *exact = malloc(cut ? cut : 1);
        memcpy(exact, text, cut);
        floe_buf b = FLOE_BUF_INIT;
        assert_ok(floe_redact_text_n(&b, exact, cut));
        assert_true(b.len <= cut + 3 * cut + 3); /* "***" never multiplies unboundedly */
        floe_buf_free(&b);
        free(exact);
    }
}

static void redaction_appends_to_existing_buffer_contents(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_buf_append_str(&b, "config: "));
    assert_ok(floe_redact_text(&b, "token=" JWT));
    assert_string_equal(floe_buf_cstr(&b), "config: token=***");
    floe_buf_free(&b);
}

FLOE_TEST_MAIN(cmocka_unit_test(secret_key_names_are_recognised_case_insensitively),
               cmocka_unit_test(config_list_hides_secret_values_and_keeps_others),
               cmocka_unit_test(config_map_is_printed_sorted_and_redacted),
               cmocka_unit_test(header_lines_hide_secret_values),
               cmocka_unit_test(urls_lose_userinfo_and_secret_query_parameters),
               cmocka_unit_test(json_secret_members_are_hidden_at_any_depth),
               cmocka_unit_test(json_name_value_pairs_naming_a_secret_hide_the_value),
               cmocka_unit_test(malformed_json_is_redacted_as_text),
               cmocka_unit_test(free_text_hides_secret_pairs_and_keeps_the_rest),
               cmocka_unit_test(arbitrary_bytes_are_scanned_without_reading_out_of_bounds),
               cmocka_unit_test(redaction_appends_to_existing_buffer_contents))
