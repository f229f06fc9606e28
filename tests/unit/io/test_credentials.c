/* The process-wide credential store (fileio.h, io/credentials.h): put and
 * acquire, the early-refresh window, single-flight refresh across threads,
 * refresh after a rejection, failing refreshers, export/import between
 * "processes", forget, and floe_fileio_properties. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "floe_test.h"
#include "io/credentials.h"

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void put_keys(const char *id, const char *ak, const char *sk, const char *tok, int64_t expires) {
    floe_property p[3] = {{"s3.access-key-id", ak}, {"s3.secret-access-key", sk}, {"s3.session-token", tok}};
    assert_ok(floe_credentials_put(id, p, tok ? 3 : 2, expires));
}

/* A refresher that puts keys "AK<n>" valid for an hour, optionally slowly
 * or failing. */
typedef struct refresher {
    atomic_int calls;
    int sleep_ms;
    int fail;
    int64_t lifetime_ms;
} refresher;

static floe_status refresh_fn(void *ctx, const char *id) {
    refresher *r = ctx;
    int n = atomic_fetch_add(&r->calls, 1) + 1;
    if (r->sleep_ms) usleep((useconds_t)r->sleep_ms * 1000);
    if (r->fail) return floe_error(FLOE_ERR_AUTH, "catalog said no (call %d)", n);
    char ak[32];
    snprintf(ak, sizeof ak, "AK%d", n);
    put_keys(id, ak, "fresh-secret", "fresh-token", now_ms() + (r->lifetime_ms ? r->lifetime_ms : 3600000));
    return NULL;
}

static void acquire_expect(const char *id, const char *ak) {
    floe_cred_snapshot s;
    assert_ok(floe_credentials_acquire(id, 0, &s, NULL));
    if (!ak) {
        assert_int_equal(s.found, 0);
    } else {
        assert_int_equal(s.found, 1);
        assert_string_equal(s.access_key_id, ak);
    }
    floe_cred_snapshot_clear(&s);
}

static void put_keys_are_acquired_as_private_copies(void **state) {
    (void)state;
    put_keys("t-put", "AKIA1", "secret1", "token1", 0);
    floe_cred_snapshot s;
    assert_ok(floe_credentials_acquire("t-put", 0, &s, NULL));
    assert_int_equal(s.found, 1);
    assert_string_equal(s.access_key_id, "AKIA1");
    assert_string_equal(s.secret_access_key, "secret1");
    assert_string_equal(s.session_token, "token1");
    uint64_t v1 = s.version;
    put_keys("t-put", "AKIA2", "secret2", NULL, 0); /* replaced: the copy stays as it was */
    assert_string_equal(s.access_key_id, "AKIA1");
    floe_cred_snapshot_clear(&s);
    assert_ok(floe_credentials_acquire("t-put", 0, &s, NULL));
    assert_string_equal(s.access_key_id, "AKIA2");
    assert_null(s.session_token);
    assert_true(s.version != v1);
    floe_cred_snapshot_clear(&s);
    acquire_expect("t-no-such-id", NULL);
    floe_credentials_forget("t-put");
}

static void put_rejects_a_missing_id_and_secretless_keys_fail_on_use(void **state) {
    (void)state;
    floe_property p[1] = {{"s3.access-key-id", "AK"}};
    assert_error(floe_credentials_put("", p, 1, 0), FLOE_ERR_INVALID_ARGUMENT, "id");
    assert_ok(floe_credentials_put("t-half", p, 1, 0));
    floe_cred_snapshot s;
    assert_error(floe_credentials_acquire("t-half", 0, &s, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "no secret access key");
    floe_credentials_forget("t-half");
}

/* Hand-made export bytes for one entry, to set issued_at (the lifetime)
 * as a coordinator's put would have. */
static void import_one(const char *id, int64_t issued, int64_t expires, const char *ak) {
    floe_buf b = FLOE_BUF_INIT;
    const char *kv[4] = {"s3.access-key-id", ak, "s3.secret-access-key", "sk"};
    uint8_t u4[4], u8[8];
#define U32(v) (u4[0] = (uint8_t)(v), u4[1] = (uint8_t)((v) >> 8), u4[2] = (uint8_t)((v) >> 16), u4[3] = (uint8_t)((v) >> 24), floe_buf_append(&b, u4, 4))
#define I64(v) do { for (int i_ = 0; i_ < 8; i_++) u8[i_] = (uint8_t)((uint64_t)(v) >> (8 * i_)); assert_ok(floe_buf_append(&b, u8, 8)); } while (0)
    assert_ok(floe_buf_append(&b, "FLOECRD1", 8));
    assert_ok(U32(1u));
    assert_ok(U32((uint32_t)strlen(id)));
    assert_ok(floe_buf_append_str(&b, id));
    I64(expires);
    I64(issued);
    assert_ok(U32(2u));
    for (int i = 0; i < 4; i++) {
        assert_ok(U32((uint32_t)strlen(kv[i])));
        assert_ok(floe_buf_append_str(&b, kv[i]));
    }
#undef U32
#undef I64
    assert_ok(floe_credentials_import(b.data, b.len));
    floe_buf_free(&b);
}

/* Start `id` afresh with shipped keys of a given age and expiry. */
static void reset_with(const char *id, refresher *r, int64_t issued, int64_t expires, const char *ak) {
    floe_credentials_forget(id);
    floe_credentials_set_refresher(id, refresh_fn, r);
    import_one(id, issued, expires, ak);
}

static void refresh_happens_within_max_of_5s_and_a_fifth_of_the_lifetime(void **state) {
    (void)state;
    refresher r = {0};
    int64_t now = now_ms();
    /* 100 s lifetime, 30 s left: outside the 20 s window. */
    reset_with("t-win", &r, now - 70000, now + 30000, "OLD");
    acquire_expect("t-win", "OLD");
    assert_int_equal(atomic_load(&r.calls), 0);
    /* 100 s lifetime, 15 s left: inside a fifth of the lifetime. */
    reset_with("t-win", &r, now - 85000, now + 15000, "OLD");
    acquire_expect("t-win", "AK1");
    acquire_expect("t-win", "AK1");
    assert_int_equal(atomic_load(&r.calls), 1);
    assert_int_equal(floe_credentials_refresh_count("t-win"), 1);
    /* 10 s lifetime, 6 s left: 5 s window, not yet; 4 s left: yes. */
    reset_with("t-win", &r, now - 4000, now + 6000, "OLD");
    acquire_expect("t-win", "OLD");
    reset_with("t-win", &r, now - 6000, now + 4000, "OLD");
    acquire_expect("t-win", "AK2");
    /* 2 s lifetime: the window is capped at half of it, so fresh keys are
     * used rather than refreshed before every request. */
    reset_with("t-win", &r, now - 100, now + 1900, "OLD");
    acquire_expect("t-win", "OLD");
    reset_with("t-win", &r, now - 1100, now + 900, "OLD");
    acquire_expect("t-win", "AK3");
    /* Expired: refreshed.  No expiry: never early. */
    put_keys("t-win", "OLD", "sk", NULL, now - 1);
    acquire_expect("t-win", "AK4");
    put_keys("t-win", "OLD", "sk", NULL, 0);
    acquire_expect("t-win", "OLD");
    assert_int_equal(atomic_load(&r.calls), 4);
    floe_credentials_forget("t-win");
}

static void a_refresher_alone_supplies_the_first_keys(void **state) {
    (void)state;
    refresher r = {0};
    floe_credentials_set_refresher("t-lazy", refresh_fn, &r);
    acquire_expect("t-lazy", "AK1");
    acquire_expect("t-lazy", "AK1");
    assert_int_equal(atomic_load(&r.calls), 1);
    floe_credentials_forget("t-lazy");
    acquire_expect("t-lazy", NULL);
}

typedef struct racer {
    const char *id;
    char ak[32];
    floe_status st;
} racer;

static void *racer_main(void *arg) {
    racer *x = arg;
    floe_cred_snapshot s;
    x->st = floe_credentials_acquire(x->id, 0, &s, NULL);
    if (!x->st && s.found) snprintf(x->ak, sizeof x->ak, "%s", s.access_key_id);
    floe_cred_snapshot_clear(&s);
    return NULL;
}

static void concurrent_requests_share_one_refresh(void **state) {
    (void)state;
    refresher r = {.sleep_ms = 200};
    floe_credentials_set_refresher("t-flight", refresh_fn, &r);
    put_keys("t-flight", "OLD", "sk", "tok", now_ms() - 10); /* expired */
    enum { N = 8 };
    pthread_t th[N];
    racer x[N];
    for (int i = 0; i < N; i++) {
        memset(&x[i], 0, sizeof x[i]);
        x[i].id = "t-flight";
        assert_int_equal(pthread_create(&th[i], NULL, racer_main, &x[i]), 0);
    }
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < N; i++) {
        assert_ok(x[i].st);
        assert_string_equal(x[i].ak, "AK1");
    }
    assert_int_equal(atomic_load(&r.calls), 1);
    floe_credentials_forget("t-flight");
}

static void a_rejection_refreshes_once_per_version(void **state) {
    (void)state;
    refresher r = {0};
    put_keys("t-rej", "REVOKED", "sk", NULL, now_ms() + 3600000);
    floe_cred_snapshot s, s2;
    int changed = -1;
    assert_ok(floe_credentials_acquire("t-rej", 0, &s, NULL));
    /* No refresher: nothing can change, so a retry would not help. */
    assert_ok(floe_credentials_acquire("t-rej", s.version, &s2, &changed));
    assert_int_equal(changed, 0);
    floe_cred_snapshot_clear(&s2);
    floe_credentials_set_refresher("t-rej", refresh_fn, &r);
    assert_ok(floe_credentials_acquire("t-rej", s.version, &s2, &changed));
    assert_int_equal(changed, 1);
    assert_string_equal(s2.access_key_id, "AK1");
    floe_cred_snapshot_clear(&s2);
    /* A second request that failed with the same old keys finds them
     * already replaced: no second refresh. */
    assert_ok(floe_credentials_acquire("t-rej", s.version, &s2, &changed));
    assert_int_equal(changed, 1);
    assert_string_equal(s2.access_key_id, "AK1");
    assert_int_equal(atomic_load(&r.calls), 1);
    floe_cred_snapshot_clear(&s2);
    floe_cred_snapshot_clear(&s);
    floe_credentials_forget("t-rej");
}

static void a_failing_refresher_fails_only_unusable_keys(void **state) {
    (void)state;
    refresher r = {.fail = 1};
    floe_credentials_set_refresher("t-fail", refresh_fn, &r);
    int64_t now = now_ms();
    /* Near expiry but valid: the old keys serve, and the refresh is not
     * retried at once. */
    import_one("t-fail", now - 57000, now + 3000, "STILL");
    acquire_expect("t-fail", "STILL");
    acquire_expect("t-fail", "STILL");
    assert_int_equal(atomic_load(&r.calls), 1);
    /* Expired: the refresher's error, naming the id. */
    put_keys("t-fail", "GONE", "sk", NULL, now - 1);
    floe_cred_snapshot s;
    assert_error(floe_credentials_acquire("t-fail", 0, &s, NULL), FLOE_ERR_AUTH, "catalog said no");
    assert_error(floe_credentials_acquire("t-fail", 0, &s, NULL), FLOE_ERR_AUTH, "'t-fail' expired");
    floe_credentials_forget("t-fail");
}

static void export_then_import_restores_every_entry_byte_for_byte(void **state) {
    (void)state;
    refresher r = {0};
    put_keys("t-exp-a", "AKA", "secret-a", "token-a", 1900000000000LL);
    floe_property other[2] = {{"s3.access-key-id", "AKB"}, {"s3.secret-access-key", "secret-b"}};
    assert_ok(floe_credentials_put("t-exp-b", other, 2, 0));
    floe_credentials_set_refresher("t-exp-c", refresh_fn, &r); /* no keys: not exported */
    floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
    assert_ok(floe_credentials_export(&a));
    floe_credentials_forget("t-exp-a");
    floe_credentials_forget("t-exp-b");
    floe_credentials_forget("t-exp-c");
    acquire_expect("t-exp-a", NULL);
    assert_ok(floe_credentials_import(a.data, a.len));
    floe_property *p = NULL;
    size_t n = 0;
    int64_t exp = 0;
    int found = 0;
    assert_ok(floe_credentials_lookup("t-exp-a", &p, &n, &exp, &found));
    assert_int_equal(found, 1);
    assert_int_equal(n, 3);
    assert_int_equal(exp, 1900000000000LL);
    assert_string_equal(p[2].key, "s3.session-token");
    assert_string_equal(p[2].value, "token-a");
    floe_properties_free(p, n);
    acquire_expect("t-exp-b", "AKB");
    /* Importing the same bytes again (every task carries them) makes no
     * new version. */
    floe_cred_snapshot s1, s2;
    assert_ok(floe_credentials_acquire("t-exp-a", 0, &s1, NULL));
    assert_ok(floe_credentials_import(a.data, a.len));
    assert_ok(floe_credentials_acquire("t-exp-a", 0, &s2, NULL));
    assert_true(s1.version == s2.version);
    floe_cred_snapshot_clear(&s1);
    floe_cred_snapshot_clear(&s2);
    assert_ok(floe_credentials_export(&b));
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    assert_int_equal(atomic_load(&r.calls), 0);
    floe_buf_free(&a);
    floe_buf_free(&b);
    floe_credentials_forget("t-exp-a");
    floe_credentials_forget("t-exp-b");
}

static void import_keeps_local_keys_that_expire_later(void **state) {
    (void)state;
    int64_t now = now_ms();
    put_keys("t-newer", "LOCAL", "sk", NULL, now + 600000);
    import_one("t-newer", now - 1000, now + 300000, "SHIPPED");
    acquire_expect("t-newer", "LOCAL");
    import_one("t-newer", now - 1000, now + 900000, "SHIPPED");
    acquire_expect("t-newer", "SHIPPED");
    floe_credentials_forget("t-newer");
}

static void corrupt_import_bytes_are_rejected_and_change_nothing(void **state) {
    (void)state;
    put_keys("t-corrupt", "KEEP", "sk", NULL, 0);
    floe_buf good = FLOE_BUF_INIT;
    assert_ok(floe_credentials_export(&good));
    floe_credentials_forget("t-corrupt");
    put_keys("t-corrupt", "KEEP2", "sk", NULL, 0);
    assert_error(floe_credentials_import((const uint8_t *)"NOTCREDSxxxx", 12), FLOE_ERR_CORRUPT, "bad magic");
    for (size_t cut = 12; cut < good.len; cut += 3)
        assert_error(floe_credentials_import(good.data, cut), FLOE_ERR_CORRUPT, "credentials");
    assert_ok(floe_buf_append(&good, "x", 1));
    assert_error(floe_credentials_import(good.data, good.len), FLOE_ERR_CORRUPT, "trailing");
    /* a huge entry count */
    good.data[8] = 0xff;
    good.data[9] = 0xff;
    assert_error(floe_credentials_import(good.data, good.len - 1), FLOE_ERR_CORRUPT, "entries");
    acquire_expect("t-corrupt", "KEEP2");
    floe_buf_free(&good);
    floe_credentials_forget("t-corrupt");
}

typedef struct forget_ctx {
    atomic_int started;
} forget_ctx;

static floe_status slow_refresh(void *ctx, const char *id) {
    forget_ctx *f = ctx;
    atomic_store(&f->started, 1);
    usleep(200 * 1000);
    (void)id;
    return NULL; /* puts nothing */
}

static void forget_while_refreshing_is_safe(void **state) {
    (void)state;
    forget_ctx f = {0};
    floe_credentials_set_refresher("t-forget", slow_refresh, &f);
    racer x = {.id = "t-forget"};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, racer_main, &x), 0);
    while (!atomic_load(&f.started)) usleep(1000);
    floe_credentials_forget("t-forget");
    pthread_join(th, NULL);
    assert_ok(x.st);
    assert_string_equal(x.ak, ""); /* nothing found: the FileIO falls back */
    acquire_expect("t-forget", NULL);
}

static void fileio_reports_the_properties_it_was_made_with(void **state) {
    (void)state;
    floe_property in[4] = {{"s3.region", "eu-west-1"}, {"s3.endpoint", NULL}, {"floe.credentials-id", "rest:x#db.t"},
                           {NULL, "ignored"}};
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(in, 4, &io));
    const floe_property *p = NULL;
    size_t n = 9;
    floe_fileio_properties(io, &p, &n);
    assert_int_equal(n, 2);
    assert_string_equal(p[0].key, "s3.region");
    assert_string_equal(p[0].value, "eu-west-1");
    assert_string_equal(p[1].key, "floe.credentials-id");
    assert_string_equal(p[1].value, "rest:x#db.t");
    floe_fileio_free(io);
    assert_ok(floe_fileio_new(NULL, 0, &io));
    floe_fileio_properties(io, &p, &n);
    assert_int_equal(n, 0);
    assert_null(p);
    floe_fileio_free(io);
    floe_fileio_properties(NULL, &p, &n);
    assert_int_equal(n, 0);
}

FLOE_TEST_MAIN(cmocka_unit_test(put_keys_are_acquired_as_private_copies),
               cmocka_unit_test(put_rejects_a_missing_id_and_secretless_keys_fail_on_use),
               cmocka_unit_test(refresh_happens_within_max_of_5s_and_a_fifth_of_the_lifetime),
               cmocka_unit_test(a_refresher_alone_supplies_the_first_keys),
               cmocka_unit_test(concurrent_requests_share_one_refresh),
               cmocka_unit_test(a_rejection_refreshes_once_per_version),
               cmocka_unit_test(a_failing_refresher_fails_only_unusable_keys),
               cmocka_unit_test(export_then_import_restores_every_entry_byte_for_byte),
               cmocka_unit_test(import_keeps_local_keys_that_expire_later),
               cmocka_unit_test(corrupt_import_bytes_are_rejected_and_change_nothing),
               cmocka_unit_test(forget_while_refreshing_is_safe),
               cmocka_unit_test(fileio_reports_the_properties_it_was_made_with))
