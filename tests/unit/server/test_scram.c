/* SCRAM-SHA-256 on the server side against RFC 7677's example exchange
 * (user "user", password "pencil"), a wrong proof refused, and the $n
 * parameter substitution of the extended query protocol. */
#include "floe_test.h"

#include "base/buffer.h"
#include "server/scram.h"
#include "server/server_internal.h"

static const char client_first[] = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
static const char server_nonce[] = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
static const char server_first[] =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
static const char client_final[] =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
static const char server_final[] = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

static void verifier(floe_scram_verifier *v) {
    uint8_t salt[32];
    size_t n = 0;
    const char *b64 = "W22ZaJ0SNY7soEsUEjb6gQ==";
    assert_ok(floe_base64_decode(b64, strlen(b64), salt, sizeof salt, &n));
    assert_int_equal(n, 16);
    assert_ok(floe_scram_make_verifier("pencil", salt, n, 4096, v));
}

static void rfc7677_exchange_gives_the_rfc_messages(void **state) {
    (void)state;
    floe_scram_verifier v;
    verifier(&v);
    floe_scram_server s;
    floe_scram_server_init(&s, &v);
    floe_buf out = FLOE_BUF_INIT;
    assert_ok(floe_scram_server_first(&s, client_first, strlen(client_first), server_nonce, &out));
    assert_string_equal(floe_buf_cstr(&out), server_first);
    floe_buf_clear(&out);
    assert_ok(floe_scram_server_final(&s, client_final, strlen(client_final), &out));
    assert_string_equal(floe_buf_cstr(&out), server_final);
    floe_buf_free(&out);
    floe_scram_server_free(&s);
}

static void wrong_proof_nonce_or_binding_is_refused(void **state) {
    (void)state;
    floe_scram_verifier v;
    verifier(&v);
    const char *bad[] = {
        /* one proof character changed */
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=eHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        /* another nonce */
        "c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        /* channel binding claimed */
        "c=eSws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        /* no proof, a short proof */
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzb",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        floe_scram_server s;
        floe_scram_server_init(&s, &v);
        floe_buf out = FLOE_BUF_INIT;
        assert_ok(floe_scram_server_first(&s, client_first, strlen(client_first), server_nonce, &out));
        floe_buf_clear(&out);
        assert_error(floe_scram_server_final(&s, bad[i], strlen(bad[i]), &out), FLOE_ERR_AUTH, "SCRAM");
        assert_int_equal(out.len, 0);
        floe_buf_free(&out);
        floe_scram_server_free(&s);
    }
    /* channel binding asked for (p=) is refused up front */
    floe_scram_server s;
    floe_scram_server_init(&s, &v);
    floe_buf out = FLOE_BUF_INIT;
    const char *cb = "p=tls-server-end-point,,n=,r=abc";
    assert_error(floe_scram_server_first(&s, cb, strlen(cb), server_nonce, &out), FLOE_ERR_AUTH, "channel binding");
    floe_buf_free(&out);
    floe_scram_server_free(&s);
}

static void parameters_are_put_in_as_literals_outside_quotes(void **state) {
    (void)state;
    const char *sql = "SELECT $1, '$2', \"$3\", $$ $4 $$, $2::int -- $9\n, $10 /* $11 */ FROM t WHERE a$1 = 1";
    assert_int_equal(pg_params_count(sql), 10);
    const char *values[10] = {"it's", "7", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "x"};
    int32_t oids[10] = {0, 23, 0, 0, 0, 0, 0, 0, 0, 25};
    floe_buf out = FLOE_BUF_INIT;
    assert_ok(pg_params_substitute(sql, 10, values, oids, &out));
    assert_string_equal(floe_buf_cstr(&out), "SELECT ('it''s'), '$2', \"$3\", $$ $4 $$, ('7'::integer)::int -- $9\n, "
                                             "('x'::text) /* $11 */ FROM t WHERE a$1 = 1");
    floe_buf_clear(&out);
    assert_error(pg_params_substitute("SELECT $3", 2, values, oids, &out), FLOE_ERR_INVALID_ARGUMENT, "$3");
    floe_buf_free(&out);
}

FLOE_TEST_MAIN(cmocka_unit_test(rfc7677_exchange_gives_the_rfc_messages),
               cmocka_unit_test(wrong_proof_nonce_or_binding_is_refused),
               cmocka_unit_test(parameters_are_put_in_as_literals_outside_quotes))
