/* Single values: Appendix D binary serialization both ways (with the
 * promotion-inference rules for old bounds), the Appendix D JSON examples,
 * text parsing including zone offsets and pre-epoch instants, and the
 * spec's ordering (NaN-aware floats, decimals across scales, unsigned bytes). */
#include <math.h>

#include "floe_test.h"

#include "floe/iceberg_types.h"
#include "floe/iceberg_value.h"
#include "floe/memory.h"

static floe_ice_type *ty(const char *s) {
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_parse(s, &t));
    return t;
}

static floe_ice_value val(const char *type, const char *text) {
    floe_ice_type *t = ty(type);
    floe_ice_value v;
    assert_ok(floe_ice_value_parse(t, text, &v));
    floe_ice_type_free(t);
    return v;
}

/* Serialize `text` of `type` and compare with expected hex bytes; then
 * decode the bytes and check the value comes back equal. */
static void check_bytes(const char *type, const char *text, const char *hex) {
    floe_ice_type *t = ty(type);
    floe_ice_value v;
    assert_ok(floe_ice_value_parse(t, text, &v));
    uint8_t *b = NULL;
    size_t n = 0;
    assert_ok(floe_ice_value_to_bytes(&v, &b, &n));
    char got[128] = "";
    for (size_t i = 0; i < n && 2 * i + 2 < sizeof got; i++) snprintf(got + 2 * i, 3, "%02x", b[i]);
    if (strcmp(got, hex) != 0) fail_msg("%s '%s': bytes %s, expected %s", type, text, got, hex);
    floe_ice_value back;
    assert_ok(floe_ice_value_from_bytes(t, b, n, &back));
    assert_true(floe_ice_value_equals(&v, &back));
    floe_free(b);
    floe_ice_value_free(&v);
    floe_ice_type_free(t);
}

static void binary_serialization_follows_appendix_d(void **state) {
    (void)state;
    check_bytes("boolean", "false", "00");
    check_bytes("boolean", "true", "01");
    check_bytes("int", "34", "22000000");
    check_bytes("int", "-2", "feffffff");
    check_bytes("long", "34", "2200000000000000");
    check_bytes("float", "1.0", "0000803f");
    check_bytes("double", "1.0", "000000000000f03f");
    check_bytes("date", "2017-11-16", "4e440000"); /* 17486 days */
    check_bytes("time", "22:31:08", "008307e012000000"); /* 81068000000 */
    check_bytes("timestamp", "1970-01-01T00:00:00.000001", "0100000000000000");
    check_bytes("timestamptz", "1970-01-01T00:00:00.000001+00:00", "0100000000000000");
    check_bytes("timestamp_ns", "1970-01-01T00:00:00.000000001", "0100000000000000");
    check_bytes("timestamptz_ns", "1969-12-31T23:59:59.999999999+00:00", "ffffffffffffffff");
    check_bytes("string", "iceberg", "69636562657267");
    check_bytes("string", "", "");
    check_bytes("uuid", "f79c3e09-677c-4bbd-a479-3f349cb785e7", "f79c3e09677c4bbda4793f349cb785e7");
    check_bytes("fixed[4]", "000102ff", "000102ff");
    check_bytes("binary", "000102ff", "000102ff");
}

static void decimals_use_minimum_twos_complement_bytes(void **state) {
    (void)state;
    check_bytes("decimal(9,2)", "14.20", "058c");
    check_bytes("decimal(5,2)", "-1.28", "80");
    check_bytes("decimal(5,2)", "-1.29", "ff7f");
    check_bytes("decimal(5,2)", "1.27", "7f");
    check_bytes("decimal(5,2)", "1.28", "0080");
    check_bytes("decimal(5,2)", "0.00", "00");
    check_bytes("decimal(5,2)", "-0.01", "ff");
    check_bytes("decimal(38,0)", "99999999999999999999999999999999999999", "4b3b4ca85a86c47a098a223fffffffff");
    check_bytes("decimal(38,0)", "-99999999999999999999999999999999999999", "b4c4b357a5793b85f675ddc000000001");
}

static void bounds_written_before_promotion_are_inferred_by_length(void **state) {
    (void)state;
    const uint8_t four[4] = {0x22, 0, 0, 0}; /* int 34 / date 34 */
    floe_ice_value v;
    floe_ice_type *t = ty("long");
    assert_ok(floe_ice_value_from_bytes(t, four, 4, &v));
    assert_int_equal(v.type, FLOE_ICE_LONG);
    assert_int_equal(v.v.i64, 34);
    floe_ice_type_free(t);
    t = ty("timestamp");
    assert_ok(floe_ice_value_from_bytes(t, four, 4, &v));
    assert_int_equal(v.type, FLOE_ICE_TIMESTAMP);
    assert_true(v.v.i64 == 34LL * 86400000000LL);
    floe_ice_type_free(t);
    t = ty("timestamp_ns");
    assert_ok(floe_ice_value_from_bytes(t, four, 4, &v));
    assert_true(v.v.i64 == 34LL * 86400000000000LL);
    floe_ice_type_free(t);
    const uint8_t f1[4] = {0, 0, 0x80, 0x3f}; /* float 1.0 */
    t = ty("double");
    assert_ok(floe_ice_value_from_bytes(t, f1, 4, &v));
    assert_int_equal(v.type, FLOE_ICE_DOUBLE);
    assert_true(v.v.f64 == 1.0);
    floe_ice_type_free(t);
    /* decimal(P,S) bounds may come from a narrower precision: any length. */
    const uint8_t d[1] = {0x80};
    t = ty("decimal(20,2)");
    assert_ok(floe_ice_value_from_bytes(t, d, 1, &v));
    assert_true(v.v.dec == -128);
    assert_int_equal(v.scale, 2);
    floe_ice_type_free(t);
}

static void wrong_lengths_are_corrupt(void **state) {
    (void)state;
    const uint8_t b[17] = {0};
    floe_ice_value v;
    floe_ice_type *t = ty("int");
    assert_error(floe_ice_value_from_bytes(t, b, 8, &v), FLOE_ERR_CORRUPT, "8-byte single value is invalid for type 'int'");
    floe_ice_type_free(t);
    t = ty("timestamptz");
    assert_error(floe_ice_value_from_bytes(t, b, 4, &v), FLOE_ERR_CORRUPT, "timestamptz");
    floe_ice_type_free(t);
    t = ty("uuid");
    assert_error(floe_ice_value_from_bytes(t, b, 15, &v), FLOE_ERR_CORRUPT, "uuid");
    floe_ice_type_free(t);
    t = ty("decimal(9,2)");
    assert_error(floe_ice_value_from_bytes(t, b, 17, &v), FLOE_ERR_CORRUPT, "decimal");
    assert_error(floe_ice_value_from_bytes(t, b, 0, &v), FLOE_ERR_CORRUPT, "decimal");
    floe_ice_type_free(t);
    t = ty("boolean");
    assert_error(floe_ice_value_from_bytes(t, b, 0, &v), FLOE_ERR_CORRUPT, "boolean");
    floe_ice_type_free(t);
    t = ty("geometry");
    assert_error(floe_ice_value_from_bytes(t, b, 4, &v), FLOE_ERR_UNSUPPORTED, "geometry");
    floe_ice_type_free(t);
    floe_ice_value n = floe_ice_null(FLOE_ICE_INT);
    uint8_t *out;
    size_t len;
    assert_error(floe_ice_value_to_bytes(&n, &out, &len), FLOE_ERR_INVALID_ARGUMENT, "null");
}

/* JSON text of `text` parsed as `type` must equal `json`, and read back. */
static void check_json(const char *type, const char *text, const char *json) {
    floe_ice_type *t = ty(type);
    floe_ice_value v, back;
    assert_ok(floe_ice_value_parse(t, text, &v));
    char *s = NULL;
    assert_ok(floe_ice_value_to_json_text(&v, &s));
    if (strcmp(s, json) != 0) fail_msg("%s '%s': JSON %s, expected %s", type, text, s, json);
    assert_ok(floe_ice_value_from_json_text(t, json, &back));
    assert_true(floe_ice_value_equals(&v, &back));
    floe_free(s);
    floe_ice_value_free(&v);
    floe_ice_value_free(&back);
    floe_ice_type_free(t);
}

static void json_serialization_matches_appendix_d_examples(void **state) {
    (void)state;
    check_json("boolean", "true", "true");
    check_json("int", "34", "34");
    check_json("long", "34", "34");
    check_json("float", "1.0", "1.0");
    check_json("double", "1.0", "1.0");
    check_json("decimal(9,2)", "14.20", "\"14.20\"");
    check_json("decimal(9,-20)", "2E+20", "\"2E+20\"");
    check_json("date", "2017-11-16", "\"2017-11-16\"");
    check_json("time", "22:31:08.123456", "\"22:31:08.123456\"");
    check_json("timestamp", "2017-11-16T22:31:08.123456", "\"2017-11-16T22:31:08.123456\"");
    check_json("timestamptz", "2017-11-16T22:31:08.123456+00:00", "\"2017-11-16T22:31:08.123456+00:00\"");
    check_json("timestamp_ns", "2017-11-16T22:31:08.123456789", "\"2017-11-16T22:31:08.123456789\"");
    check_json("timestamptz_ns", "2017-11-16T22:31:08.123456789+00:00", "\"2017-11-16T22:31:08.123456789+00:00\"");
    check_json("string", "iceberg", "\"iceberg\"");
    check_json("uuid", "f79c3e09-677c-4bbd-a479-3f349cb785e7", "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"");
    check_json("fixed[4]", "000102ff", "\"000102ff\"");
    check_json("binary", "000102ff", "\"000102ff\"");
    /* Uppercase inputs are accepted and written lowercase. */
    floe_ice_type *t = ty("uuid");
    floe_ice_value v;
    assert_ok(floe_ice_value_from_json_text(t, "\"F79C3E09-677C-4BBD-A479-3F349CB785E7\"", &v));
    char *s;
    assert_ok(floe_ice_value_to_string(&v, &s));
    assert_string_equal(s, "f79c3e09-677c-4bbd-a479-3f349cb785e7");
    floe_free(s);
    floe_ice_type_free(t);
}

static void json_reading_rejects_mismatched_values(void **state) {
    (void)state;
    floe_ice_value v;
    floe_ice_type *t = ty("int");
    assert_error(floe_ice_value_from_json_text(t, "\"34\"", &v), FLOE_ERR_CORRUPT, "type 'int' must be a 32-bit integer");
    assert_error(floe_ice_value_from_json_text(t, "4294967296", &v), FLOE_ERR_CORRUPT, "32-bit");
    floe_ice_type_free(t);
    t = ty("decimal(4,2)");
    assert_error(floe_ice_value_from_json_text(t, "\"123.45\"", &v), FLOE_ERR_CORRUPT, "does not fit decimal(4,2)");
    assert_error(floe_ice_value_from_json_text(t, "\"1.234\"", &v), FLOE_ERR_CORRUPT, "more than 2 fraction digits");
    floe_ice_type_free(t);
    t = ty("timestamptz");
    assert_error(floe_ice_value_from_json_text(t, "\"2017-11-16T22:31:08\"", &v), FLOE_ERR_CORRUPT, "no zone offset");
    floe_ice_type_free(t);
    t = ty("timestamp");
    assert_error(floe_ice_value_from_json_text(t, "\"2017-11-16T22:31:08+01:00\"", &v), FLOE_ERR_CORRUPT, "zone offset");
    assert_error(floe_ice_value_from_json_text(t, "\"2017-02-30T00:00:00\"", &v), FLOE_ERR_CORRUPT, "invalid timestamp");
    floe_ice_type_free(t);
    t = ty("fixed[3]");
    assert_error(floe_ice_value_from_json_text(t, "\"0001\"", &v), FLOE_ERR_CORRUPT, "fixed[3]");
    floe_ice_type_free(t);
    /* NaN cannot be written as JSON. */
    floe_ice_value nan = floe_ice_double(NAN);
    char *s = NULL;
    assert_error(floe_ice_value_to_json_text(&nan, &s), FLOE_ERR_INVALID_ARGUMENT, "NaN");
}

static void text_forms_handle_offsets_and_pre_epoch_instants(void **state) {
    (void)state;
    floe_ice_value v = val("timestamptz", "2017-11-16T14:31:08-08:00");
    assert_true(v.v.i64 == 1510871468000000LL);
    v = val("timestamp", "1969-12-31T23:59:59.999999");
    assert_true(v.v.i64 == -1);
    char *s;
    assert_ok(floe_ice_value_to_string(&v, &s));
    assert_string_equal(s, "1969-12-31T23:59:59.999999");
    floe_free(s);
    v = floe_ice_date(-719528); /* 0000-01-01 */
    assert_ok(floe_ice_value_to_string(&v, &s));
    assert_string_equal(s, "0000-01-01");
    floe_free(s);
    v = val("date", "1600-02-29");
    assert_int_equal(v.v.i32, floe_ice_days_from_civil(1600, 2, 29));
    floe_ice_type *dt = ty("date"), *tt = ty("timestamp");
    floe_ice_value bad;
    assert_error(floe_ice_value_parse(dt, "+99999999-01-01", &bad), FLOE_ERR_INVALID_ARGUMENT, "invalid date");
    assert_error(floe_ice_value_parse(tt, "+99999999-01-01T00:00:00", &bad), FLOE_ERR_INVALID_ARGUMENT, "out of range");
    assert_error(floe_ice_value_parse(tt, "2017-11-16T25:00:00", &bad), FLOE_ERR_INVALID_ARGUMENT, "invalid timestamp");
    v = val("timestamp", "+12017-11-16T00:00:00");
    assert_ok(floe_ice_value_to_string(&v, &s));
    assert_string_equal(s, "+12017-11-16T00:00:00.000000");
    floe_free(s);
    floe_ice_type_free(dt);
    floe_ice_type_free(tt);
    v = val("time", "00:00:00.012345");
    assert_true(v.v.i64 == 12345);
    v = floe_ice_decimal(-5, 2);
    assert_ok(floe_ice_value_to_string(&v, &s));
    assert_string_equal(s, "-0.05");
    floe_free(s);
    v = floe_ice_decimal(100, 10); /* BigDecimal switches to scientific form */
    assert_ok(floe_ice_value_to_string(&v, &s));
    assert_string_equal(s, "1.00E-8");
    floe_free(s);
    v = floe_ice_float(0.34234f);
    assert_ok(floe_ice_value_to_string(&v, &s));
    assert_string_equal(s, "0.34234");
    floe_free(s);
    /* Floats and doubles print as Java's toString does. */
    static const struct { double d; bool f; const char *want; } reals[] = {
        {1.0, false, "1.0"}, {-0.0, false, "-0.0"}, {1e10, false, "1.0E10"}, {1.5e-5, false, "1.5E-5"},
        {1234567.0, false, "1234567.0"}, {12345678.0, false, "1.2345678E7"}, {0.001, false, "0.001"},
        {0.1, true, "0.1"}, {100.0, true, "100.0"}, {3.4028234663852886e38, true, "3.4028235E38"},
        {0.342343242342342, false, "0.342343242342342"},
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        v = reals[i].f ? floe_ice_float((float)reals[i].d) : floe_ice_double(reals[i].d);
        assert_ok(floe_ice_value_to_string(&v, &s));
        assert_string_equal(s, reals[i].want);
        floe_free(s);
    }
    v = floe_ice_null(FLOE_ICE_STRING);
    assert_ok(floe_ice_value_to_string(&v, &s));
    assert_string_equal(s, "null");
    floe_free(s);
}

static int cmpv(floe_ice_value a, floe_ice_value b) { return floe_ice_value_compare(&a, &b); }

static void ordering_follows_the_spec(void **state) {
    (void)state;
    /* -NaN < -Inf < -1 < -0 < 0 < 1 < Inf < NaN */
    double seq[] = {-NAN, -INFINITY, -1.0, -0.0, 0.0, 1.0, INFINITY, NAN};
    for (size_t i = 0; i + 1 < sizeof seq / sizeof seq[0]; i++) {
        assert_true(cmpv(floe_ice_double(seq[i]), floe_ice_double(seq[i + 1])) < 0);
        assert_true(cmpv(floe_ice_float((float)seq[i]), floe_ice_float((float)seq[i + 1])) < 0);
    }
    assert_int_equal(cmpv(floe_ice_double(NAN), floe_ice_double(NAN)), 0);
    /* Decimals compare numerically across scales. */
    assert_int_equal(cmpv(floe_ice_decimal(1420, 2), floe_ice_decimal(142, 1)), 0);
    assert_true(cmpv(floe_ice_decimal(1421, 2), floe_ice_decimal(142, 1)) > 0);
    assert_true(cmpv(floe_ice_decimal(-1, 0), floe_ice_decimal(5, 3)) < 0);
    /* Strings by unsigned bytes = code points; prefixes first. */
    assert_true(cmpv(floe_ice_string_z("a"), floe_ice_string_z("\xc3\xa9")) < 0);
    assert_true(cmpv(floe_ice_string_z("ab"), floe_ice_string_z("abc")) < 0);
    const uint8_t x[1] = {0x7f}, y[1] = {0x80};
    assert_true(cmpv(floe_ice_binary(x, 1), floe_ice_binary(y, 1)) < 0);
    /* Nulls first. */
    assert_true(cmpv(floe_ice_null(FLOE_ICE_INT), floe_ice_int(INT32_MIN)) < 0);
    assert_true(cmpv(floe_ice_int(-5), floe_ice_int(3)) < 0);
    assert_true(cmpv(floe_ice_timestamp(-1), floe_ice_timestamp(0)) < 0);
}

static void promotion_converts_values_to_the_wider_type(void **state) {
    (void)state;
    floe_ice_type *l = ty("long"), *d = ty("double"), *ts = ty("timestamp"), *tsn = ty("timestamp_ns"),
                  *dec = ty("decimal(18,2)"), *s = ty("string");
    floe_ice_value in = floe_ice_int(-7), out;
    assert_ok(floe_ice_value_promote(&in, l, &out));
    assert_int_equal(out.type, FLOE_ICE_LONG);
    assert_int_equal(out.v.i64, -7);
    in = floe_ice_float(1.5f);
    assert_ok(floe_ice_value_promote(&in, d, &out));
    assert_true(out.v.f64 == 1.5);
    in = floe_ice_date(-1);
    assert_ok(floe_ice_value_promote(&in, ts, &out));
    assert_true(out.v.i64 == -86400000000LL);
    assert_int_equal(out.type, FLOE_ICE_TIMESTAMP);
    in = floe_ice_date(200000); /* beyond 2262: no nanosecond timestamp */
    assert_error(floe_ice_value_promote(&in, tsn, &out), FLOE_ERR_INVALID_ARGUMENT, "out of range");
    in = floe_ice_decimal(1420, 2);
    assert_ok(floe_ice_value_promote(&in, dec, &out));
    assert_true(out.v.dec == 1420);
    in = floe_ice_int(3);
    assert_error(floe_ice_value_promote(&in, s, &out), FLOE_ERR_TYPE, "cannot promote a int value to string");
    in = floe_ice_null(FLOE_ICE_UNKNOWN);
    assert_ok(floe_ice_value_promote(&in, s, &out));
    assert_true(out.is_null);
    assert_int_equal(out.type, FLOE_ICE_STRING);
    floe_ice_type_free(l);
    floe_ice_type_free(d);
    floe_ice_type_free(ts);
    floe_ice_type_free(tsn);
    floe_ice_type_free(dec);
    floe_ice_type_free(s);
}

static void hash64_agrees_with_equality(void **state) {
    (void)state;
    floe_ice_value a = floe_ice_decimal(1420, 2), b = floe_ice_decimal(142, 1), c = floe_ice_decimal(1421, 2);
    assert_true(floe_ice_value_equals(&a, &b));
    assert_true(floe_ice_value_hash64(&a, 0) == floe_ice_value_hash64(&b, 0));
    assert_true(floe_ice_value_hash64(&a, 0) != floe_ice_value_hash64(&c, 0));
    floe_ice_value n1 = floe_ice_double(NAN), n2 = floe_ice_double(__builtin_nan("0x42"));
    assert_true(floe_ice_value_equals(&n1, &n2));
    assert_true(floe_ice_value_hash64(&n1, 7) == floe_ice_value_hash64(&n2, 7));
    floe_ice_value s1 = floe_ice_string_z("abc"), s2 = floe_ice_string("abcd", 3), i1 = floe_ice_int(1),
                   l1 = floe_ice_long(1);
    assert_true(floe_ice_value_hash64(&s1, 1) == floe_ice_value_hash64(&s2, 1));
    assert_true(floe_ice_value_hash64(&s1, 1) != floe_ice_value_hash64(&s1, 2));
    assert_true(floe_ice_value_hash64(&i1, 0) != floe_ice_value_hash64(&l1, 0)); /* different types */
    floe_ice_value z = floe_ice_null(FLOE_ICE_INT);
    assert_true(floe_ice_value_hash64(&z, 0) == floe_ice_value_hash64(&z, 0));
}

static void copies_own_their_bytes(void **state) {
    (void)state;
    char buf[8] = "abc";
    floe_ice_value view = floe_ice_string(buf, 3), copy;
    assert_ok(floe_ice_value_copy(&view, &copy));
    assert_true(copy.owns_bytes);
    buf[0] = 'z';
    assert_memory_equal(copy.v.bytes.data, "abc", 3);
    floe_ice_value_free(&copy);
    assert_true(copy.is_null);
}

FLOE_TEST_MAIN(cmocka_unit_test(binary_serialization_follows_appendix_d),
               cmocka_unit_test(decimals_use_minimum_twos_complement_bytes),
               cmocka_unit_test(bounds_written_before_promotion_are_inferred_by_length),
               cmocka_unit_test(wrong_lengths_are_corrupt),
               cmocka_unit_test(json_serialization_matches_appendix_d_examples),
               cmocka_unit_test(json_reading_rejects_mismatched_values),
               cmocka_unit_test(text_forms_handle_offsets_and_pre_epoch_instants),
               cmocka_unit_test(ordering_follows_the_spec),
               cmocka_unit_test(promotion_converts_values_to_the_wider_type),
               cmocka_unit_test(hash64_agrees_with_equality),
               cmocka_unit_test(copies_own_their_bytes))
