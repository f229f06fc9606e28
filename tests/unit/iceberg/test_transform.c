/* Transforms: parsing and printing, which source types each applies to and
 * its result type (the spec's table), null and void handling, unknown
 * transforms kept by name, order preservation, identity human strings in
 * Java's form, and bad input rejected with the offending text. */
#include "floe_test.h"

#include "floe/iceberg_transform.h"
#include "floe/memory.h"

static floe_ice_transform tr(const char *s) {
    floe_ice_transform t;
    assert_ok(floe_ice_transform_parse(s, &t));
    return t;
}

static void transform_strings_parse_and_print(void **state) {
    (void)state;
    static const char *names[] = {"identity", "bucket[16]", "truncate[4]", "year", "month", "day", "hour", "void"};
    char buf[80];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        floe_ice_transform t = tr(names[i]);
        assert_int_equal(t.kind, (int)i);
        assert_string_equal(floe_ice_transform_format(&t, buf, sizeof buf), names[i]);
    }
    floe_ice_transform t = tr("BUCKET[8]");
    assert_int_equal(t.kind, FLOE_ICE_TRANSFORM_BUCKET);
    assert_int_equal(t.param, 8);
    assert_string_equal(floe_ice_transform_format(&t, buf, sizeof buf), "bucket[8]");
    t = tr("zorder");
    assert_int_equal(t.kind, FLOE_ICE_TRANSFORM_UNKNOWN);
    assert_string_equal(floe_ice_transform_format(&t, buf, sizeof buf), "zorder");
    floe_ice_transform a = tr("bucket[4]"), b = tr("bucket[4]"), c = tr("bucket[5]");
    assert_true(floe_ice_transform_equals(&a, &b));
    assert_false(floe_ice_transform_equals(&a, &c));
}

static void bad_transform_parameters_are_rejected(void **state) {
    (void)state;
    floe_ice_transform t;
    assert_error(floe_ice_transform_parse("bucket[0]", &t), FLOE_ERR_INVALID_ARGUMENT, "bucket[0]");
    assert_error(floe_ice_transform_parse("bucket", &t), FLOE_ERR_INVALID_ARGUMENT, "bucket[<positive int>]");
    assert_error(floe_ice_transform_parse("truncate[x]", &t), FLOE_ERR_INVALID_ARGUMENT, "truncate[x]");
    assert_error(floe_ice_transform_parse("truncate[-3]", &t), FLOE_ERR_INVALID_ARGUMENT, "truncate[-3]");
    assert_error(floe_ice_transform_parse("bucket[4]x", &t), FLOE_ERR_INVALID_ARGUMENT, "bucket[4]x");
    assert_error(floe_ice_transform_parse("bucket[99999999999]", &t), FLOE_ERR_INVALID_ARGUMENT, "bucket");
    assert_error(floe_ice_transform_parse("day[3]", &t), FLOE_ERR_INVALID_ARGUMENT, "no parameter");
    assert_error(floe_ice_transform_parse("", &t), FLOE_ERR_INVALID_ARGUMENT, "empty");
}

static int result_of(const char *t, floe_ice_type_id src) {
    floe_ice_transform x = tr(t);
    return floe_ice_transform_result_type_id(&x, src);
}

static void result_types_follow_the_spec_table(void **state) {
    (void)state;
    for (int id = 0; id <= FLOE_ICE_MAP; id++) {
        floe_ice_type_id s = (floe_ice_type_id)id;
        bool ts = s == FLOE_ICE_TIMESTAMP || s == FLOE_ICE_TIMESTAMPTZ || s == FLOE_ICE_TIMESTAMP_NS ||
                  s == FLOE_ICE_TIMESTAMPTZ_NS;
        bool prim = s <= FLOE_ICE_GEOGRAPHY;
        bool geo_var = s == FLOE_ICE_VARIANT || s == FLOE_ICE_GEOMETRY || s == FLOE_ICE_GEOGRAPHY;
        assert_int_equal(result_of("identity", s), prim && !geo_var ? id : -1);
        bool bucketable = s == FLOE_ICE_INT || s == FLOE_ICE_LONG || s == FLOE_ICE_DECIMAL || s == FLOE_ICE_DATE ||
                          s == FLOE_ICE_TIME || ts || s == FLOE_ICE_STRING || s == FLOE_ICE_UUID ||
                          s == FLOE_ICE_FIXED || s == FLOE_ICE_BINARY;
        assert_int_equal(result_of("bucket[4]", s), bucketable ? FLOE_ICE_INT : -1);
        bool truncatable = s == FLOE_ICE_INT || s == FLOE_ICE_LONG || s == FLOE_ICE_DECIMAL || s == FLOE_ICE_STRING ||
                           s == FLOE_ICE_BINARY;
        assert_int_equal(result_of("truncate[4]", s), truncatable ? id : -1);
        assert_int_equal(result_of("year", s), (ts || s == FLOE_ICE_DATE) ? FLOE_ICE_INT : -1);
        assert_int_equal(result_of("month", s), (ts || s == FLOE_ICE_DATE) ? FLOE_ICE_INT : -1);
        assert_int_equal(result_of("day", s), (ts || s == FLOE_ICE_DATE) ? FLOE_ICE_DATE : -1);
        assert_int_equal(result_of("hour", s), ts ? FLOE_ICE_INT : -1);
        assert_int_equal(result_of("void", s), id);
        assert_int_equal(result_of("zorder", s), -1);
    }
    /* Result types keep parameters. */
    floe_ice_type *dec = NULL, *out = NULL;
    assert_ok(floe_ice_type_decimal(9, 2, &dec));
    floe_ice_transform t = tr("truncate[10]");
    assert_ok(floe_ice_transform_result_type(&t, dec, &out));
    assert_true(floe_ice_type_equals(dec, out));
    floe_ice_type_free(out);
    t = tr("bucket[10]");
    assert_ok(floe_ice_transform_result_type(&t, dec, &out));
    assert_int_equal(out->id, FLOE_ICE_INT);
    floe_ice_type_free(out);
    t = tr("hour");
    assert_error(floe_ice_transform_result_type(&t, dec, &out), FLOE_ERR_INVALID_ARGUMENT,
                 "transform 'hour' cannot apply to type 'decimal'");
    floe_ice_type_free(dec);
}

static void nulls_and_void_produce_nulls(void **state) {
    (void)state;
    const char *names[] = {"identity", "bucket[4]", "truncate[4]", "void"};
    for (size_t i = 0; i < 4; i++) {
        floe_ice_transform t = tr(names[i]);
        floe_ice_value in = floe_ice_null(FLOE_ICE_LONG), out;
        assert_ok(floe_ice_transform_apply(&t, &in, &out));
        assert_true(out.is_null);
    }
    floe_ice_transform t = tr("void");
    floe_ice_value in = floe_ice_int(5), out;
    assert_ok(floe_ice_transform_apply(&t, &in, &out));
    assert_true(out.is_null);
    t = tr("day");
    in = floe_ice_null(FLOE_ICE_TIMESTAMP);
    assert_ok(floe_ice_transform_apply(&t, &in, &out));
    assert_true(out.is_null);
    assert_int_equal(out.type, FLOE_ICE_DATE);
}

static void inapplicable_and_unknown_transforms_fail_cleanly(void **state) {
    (void)state;
    floe_ice_value out, in = floe_ice_string_z("x");
    floe_ice_transform t = tr("year");
    assert_error(floe_ice_transform_apply(&t, &in, &out), FLOE_ERR_TYPE, "transform 'year' cannot apply to a string");
    t = tr("zorder");
    assert_error(floe_ice_transform_apply(&t, &in, &out), FLOE_ERR_UNSUPPORTED, "zorder");
    /* Near INT64_MIN truncation wraps around exactly as Java computes it. */
    t = tr("truncate[10]");
    in = floe_ice_long(INT64_MIN);
    assert_ok(floe_ice_transform_apply(&t, &in, &out));
    assert_true(out.v.i64 == INT64_MAX - 1);
}

static void order_preservation_is_reported(void **state) {
    (void)state;
    assert_true(floe_ice_transform_preserves_order(&(floe_ice_transform){.kind = FLOE_ICE_TRANSFORM_IDENTITY}));
    floe_ice_transform t = tr("truncate[3]");
    assert_true(floe_ice_transform_preserves_order(&t));
    t = tr("day");
    assert_true(floe_ice_transform_preserves_order(&t));
    t = tr("bucket[3]");
    assert_false(floe_ice_transform_preserves_order(&t));
    t = tr("void");
    assert_false(floe_ice_transform_preserves_order(&t));
    t = tr("zorder");
    assert_false(floe_ice_transform_preserves_order(&t));
}

/* Batch kernels agree with applying the transform value by value. */
static void batch_kernels_match_scalar_application(void **state) {
    (void)state;
    static const int64_t longs[] = {0, 1, -1, 34, -34, 1510871468000000LL, -1510871468000001LL, INT64_MIN, INT64_MAX,
                                    1512151975038194LL, -86400000000LL, 9999999999LL};
    static const int32_t ints[] = {0, 1, -1, 34, -12, 17486, -719528, INT32_MIN, INT32_MAX, 2932896};
    const size_t nl = sizeof longs / sizeof longs[0], ni = sizeof ints / sizeof ints[0];
    static const char *trs[] = {"identity", "bucket[16]", "bucket[100]", "truncate[10]", "year", "month", "day", "hour"};
    static const floe_ice_type_id srcs[] = {FLOE_ICE_INT, FLOE_ICE_DATE, FLOE_ICE_LONG, FLOE_ICE_TIME,
                                            FLOE_ICE_TIMESTAMP, FLOE_ICE_TIMESTAMPTZ, FLOE_ICE_TIMESTAMP_NS,
                                            FLOE_ICE_TIMESTAMPTZ_NS};
    for (size_t k = 0; k < sizeof trs / sizeof trs[0]; k++) {
        floe_ice_transform t = tr(trs[k]);
        for (size_t s = 0; s < sizeof srcs / sizeof srcs[0]; s++) {
            floe_ice_type_id src = srcs[s];
            bool wide = src != FLOE_ICE_INT && src != FLOE_ICE_DATE;
            size_t n = wide ? nl : ni;
            int64_t out[16];
            floe_status st = floe_ice_transform_apply_fixed(&t, src, wide ? (const void *)longs : (const void *)ints,
                                                            n, out);
            if (floe_ice_transform_result_type_id(&t, src) < 0) {
                assert_error(st, FLOE_ERR_TYPE, "no fixed-width kernel");
                continue;
            }
            assert_ok(st);
            for (size_t i = 0; i < n; i++) {
                floe_ice_value in = wide ? floe_ice_long(longs[i]) : floe_ice_int(ints[i]), r;
                in.type = src;
                assert_ok(floe_ice_transform_apply(&t, &in, &r));
                bool out64 = wide && (t.kind == FLOE_ICE_TRANSFORM_IDENTITY || t.kind == FLOE_ICE_TRANSFORM_TRUNCATE);
                int64_t got = out64 ? out[i] : (int64_t)((int32_t *)out)[i];
                int64_t want = (r.type == FLOE_ICE_INT || r.type == FLOE_ICE_DATE) ? r.v.i32 : r.v.i64;
                if (got != want)
                    fail_msg("%s of %s #%zu: batch %lld, scalar %lld", trs[k], floe_ice_type_id_name(src), i,
                             (long long)got, (long long)want);
            }
        }
    }
    /* Variable-width and fixed-size bytes. */
    const char *strs = "icebergfoo\xe2\x98\x83" "de";
    const int32_t offs[] = {0, 7, 10, 10, 15};
    int32_t b[4], lens[4];
    floe_ice_bucket_bytes(100, offs, (const uint8_t *)strs, 0, 4, b);
    assert_int_equal(b[0], 89); /* "iceberg" */
    floe_ice_bucket_bytes(128, NULL, (const uint8_t *)"foo", 3, 1, b);
    assert_int_equal(b[0], 32); /* fixed(3) b"foo" */
    floe_ice_truncate_bytes_lengths(1, true, offs, (const uint8_t *)strs, 4, lens);
    assert_int_equal(lens[0], 1);
    assert_int_equal(lens[2], 0);
    assert_int_equal(lens[3], 3);
    floe_ice_truncate_bytes_lengths(1, false, offs, (const uint8_t *)strs, 4, lens);
    assert_int_equal(lens[3], 1);
}

static bool sat(const char *a, const char *b, floe_ice_type_id src) {
    floe_ice_transform x = tr(a), y = tr(b);
    return floe_ice_transform_satisfies_order_of(&x, &y, src);
}

static void finer_orders_satisfy_coarser_ones(void **state) {
    (void)state;
    assert_true(sat("identity", "day", FLOE_ICE_TIMESTAMP));
    assert_true(sat("hour", "day", FLOE_ICE_TIMESTAMP));
    assert_true(sat("day", "year", FLOE_ICE_DATE));
    assert_true(sat("month", "month", FLOE_ICE_DATE));
    assert_false(sat("day", "hour", FLOE_ICE_TIMESTAMP));
    assert_false(sat("year", "month", FLOE_ICE_DATE));
    assert_true(sat("truncate[5]", "truncate[10]", FLOE_ICE_LONG));
    assert_false(sat("truncate[10]", "truncate[5]", FLOE_ICE_LONG));
    assert_false(sat("truncate[4]", "truncate[10]", FLOE_ICE_INT));
    assert_true(sat("truncate[10]", "truncate[5]", FLOE_ICE_STRING));
    assert_false(sat("truncate[5]", "truncate[10]", FLOE_ICE_STRING));
    assert_false(sat("bucket[4]", "identity", FLOE_ICE_INT));
    assert_true(sat("bucket[4]", "bucket[4]", FLOE_ICE_INT));
    assert_false(sat("identity", "bucket[4]", FLOE_ICE_INT));
    assert_false(sat("zorder", "zorder", FLOE_ICE_INT));
}

static char *human(const char *t, floe_ice_value v) {
    floe_ice_transform x = tr(t);
    char *s = NULL;
    assert_ok(floe_ice_transform_human_string(&x, &v, &s));
    return s;
}

#define assert_human(t, v, want)           \
    do {                                   \
        char *g_ = human(t, v);            \
        assert_string_equal(g_, want);     \
        floe_free(g_);                     \
    } while (0)

static void identity_human_strings_use_java_forms(void **state) {
    (void)state;
    assert_human("identity", floe_ice_int(-7), "-7");
    assert_human("identity", floe_ice_string_z("a b/c"), "a b/c");
    assert_human("identity", floe_ice_date(17501), "2017-12-01");
    assert_human("identity", floe_ice_timestamp(1512123175038194LL), "2017-12-01T10:12:55.038194");
    assert_human("identity", floe_ice_timestamp(1512123120000000LL), "2017-12-01T10:12:00");
    assert_human("identity", floe_ice_timestamp(1512123175000000LL), "2017-12-01T10:12:55");
    assert_human("identity", floe_ice_timestamp(1512123175100000LL), "2017-12-01T10:12:55.1");
    assert_human("identity", floe_ice_timestamp(-1), "1969-12-31T23:59:59.999999");
    assert_human("identity", floe_ice_timestamptz(1512123175038194LL), "2017-12-01T10:12:55.038194+00:00");
    assert_human("identity", floe_ice_timestamptz_ns(1512123175000000001LL), "2017-12-01T10:12:55.000000001+00:00");
    assert_human("identity", floe_ice_timestamp_ns(1512123175038194789LL), "2017-12-01T10:12:55.038194789");
    assert_human("identity", floe_ice_time(81068000000LL), "22:31:08");
    assert_human("identity", floe_ice_decimal(1420, 2), "14.20");
    assert_human("identity", floe_ice_bool(true), "true");
    const uint8_t b[] = {0x00, 0x01, 0x02, 0xff};
    assert_human("identity", floe_ice_binary(b, 4), "AAEC/w==");
    assert_human("identity", floe_ice_fixed(b, 3), "AAEC");
    assert_human("truncate[2]", floe_ice_binary(b, 2), "AAE=");
    assert_human("identity", floe_ice_null(FLOE_ICE_STRING), "null");
}

static void utf8_prefix_never_splits_a_code_point(void **state) {
    (void)state;
    const uint8_t *s = (const uint8_t *)"a\xc3\xa9\xe2\x98\x83\xf0\x9f\x98\x80z";
    size_t n = strlen((const char *)s);
    assert_int_equal(floe_ice_utf8_prefix_len(s, n, 0), 0);
    assert_int_equal(floe_ice_utf8_prefix_len(s, n, 1), 1);
    assert_int_equal(floe_ice_utf8_prefix_len(s, n, 2), 3);
    assert_int_equal(floe_ice_utf8_prefix_len(s, n, 3), 6);
    assert_int_equal(floe_ice_utf8_prefix_len(s, n, 4), 10);
    assert_int_equal(floe_ice_utf8_prefix_len(s, n, 5), 11);
    assert_int_equal(floe_ice_utf8_prefix_len(s, n, 50), 11);
}

FLOE_TEST_MAIN(cmocka_unit_test(transform_strings_parse_and_print),
               cmocka_unit_test(bad_transform_parameters_are_rejected),
               cmocka_unit_test(result_types_follow_the_spec_table),
               cmocka_unit_test(nulls_and_void_produce_nulls),
               cmocka_unit_test(inapplicable_and_unknown_transforms_fail_cleanly),
               cmocka_unit_test(order_preservation_is_reported),
               cmocka_unit_test(batch_kernels_match_scalar_application),
               cmocka_unit_test(finer_orders_satisfy_coarser_ones),
               cmocka_unit_test(identity_human_strings_use_java_forms),
               cmocka_unit_test(utf8_prefix_never_splits_a_code_point))
