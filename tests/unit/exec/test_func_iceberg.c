/*
 * test_func_iceberg.c — the iceberg_transform scalar function: the Iceberg
 * spec's transform vectors (Appendix B bucket hashes, the truncate
 * examples, the time transforms before and after the epoch) for every
 * source type, NULLs, constant arguments broadcast over a batch, sliced
 * columns, and the errors (bad or unknown transform text, a transform that
 * does not apply, a non-constant transform).
 */
#include "fn_util.h"

#define DAY_US INT64_C(86400000000)

/* A one-slot literal of a bytes type (binary, fixed[n], uuid). */
static floe_expr *BYTES(floe_type *t, const void *p, int64_t n) {
    floe_builder *b;
    floe_array *a;
    floe_expr *e;
    assert_ok(floe_builder_new(t, 1, &b));
    if (t->id == FLOE_TYPE_BINARY) assert_ok(floe_builder_append_binary(b, p, n));
    else assert_ok(floe_builder_append_fixed(b, p));
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    floe_type_release(t);
    assert_ok(floe_expr_literal(a, &e));
    floe_array_release(a);
    return e;
}

static floe_expr *BOOL_LIT(bool v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_bool(v, &e));
    return e;
}

static floe_expr *TR(const char *transform, floe_expr *v) { return call("iceberg_transform", 2, S(transform), v); }

static void bucket_matches_the_spec_vectors_for_every_source_type(void **state) {
    (void)state;
    /* Appendix B: hash(34) = 2017239379; bucket[16] -> 3, bucket[100] -> 79. */
    EXPECT_T("3", "int32", TR("bucket[16]", I32(34)));
    EXPECT_T("3", "int32", TR("bucket[16]", I(34)));
    EXPECT_T("79", "int32", TR("bucket[100]", I32(34)));
    EXPECT_T("79", "int32", TR("bucket[100]", I(34)));
    EXPECT_T("26", "int32", TR("bucket[100]", TYPED(FLOE_TYPE_DATE32, 17486)));
    EXPECT_T("59", "int32", TR("bucket[100]", TYPED(FLOE_TYPE_TIME64_US, INT64_C(81068000000))));
    EXPECT_T("7", "int32", TR("bucket[100]", TYPED(FLOE_TYPE_TIMESTAMP_US, INT64_C(1510871468000000))));
    EXPECT_T("7", "int32", TR("bucket[100]", TYPED(FLOE_TYPE_TIMESTAMP_US_TZ, INT64_C(1510871468000000))));
    /* Nanosecond timestamps hash as the same instant in microseconds. */
    EXPECT_T("7", "int32", TR("bucket[100]", TYPED(FLOE_TYPE_TIMESTAMP_NS, INT64_C(1510871468000000000))));
    EXPECT_T("7", "int32", TR("bucket[100]", TYPED(FLOE_TYPE_TIMESTAMP_NS_TZ, INT64_C(1510871468000000000))));
    EXPECT_T("59", "int32", TR("bucket[100]", DEC(1420, 9, 2))); /* 14.20 */
    EXPECT_T("13", "int32", TR("bucket[16]", DEC(-128, 5, 2)));  /* -1.28 */
    EXPECT_T("89", "int32", TR("bucket[100]", S("iceberg")));
    static const uint8_t uuid[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                                     0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
    EXPECT_T("40", "int32", TR("bucket[100]", BYTES(floe_type_primitive(FLOE_TYPE_UUID), uuid, 16)));
    floe_type *fixed3;
    assert_ok(floe_type_fixed_binary(3, &fixed3));
    EXPECT_T("32", "int32", TR("bucket[128]", BYTES(fixed3, "foo", 3)));
    EXPECT_T("57", "int32", TR("bucket[128]", BYTES(floe_type_primitive(FLOE_TYPE_BINARY), "\x00\x01\x02\x03", 4)));
    /* The transform text is case-insensitive, as Java parses it. */
    EXPECT_T("79", "int32", TR("BUCKET[100]", I32(34)));
}

static void truncate_matches_the_spec_examples_and_keeps_the_source_type(void **state) {
    (void)state;
    EXPECT_T("0", "int32", TR("truncate[10]", I32(1)));
    EXPECT_T("-10", "int32", TR("truncate[10]", I32(-1)));
    EXPECT_T("-20", "int32", TR("truncate[10]", I32(-12)));
    EXPECT_T("0", "int64", TR("truncate[10]", I(1)));
    EXPECT_T("-10", "int64", TR("truncate[10]", I(-1)));
    EXPECT_T("10.50", "decimal(9, 2)", TR("truncate[50]", DEC(1065, 9, 2)));
    EXPECT_T("-0.10", "decimal(9, 2)", TR("truncate[10]", DEC(-5, 9, 2)));
    EXPECT_T("ice", "string", TR("truncate[3]", S("iceberg")));
    EXPECT_T("abc", "string", TR("truncate[5]", S("abc")));
    EXPECT_T("", "string", TR("truncate[5]", S("")));
    /* Strings truncate by code point and never split one. */
    EXPECT("\xe2\x98\x83" "d", TR("truncate[2]", S("\xe2\x98\x83" "de")));
    EXPECT("\xf0\x9f\x98\x80\xc3\xa9", TR("truncate[2]", S("\xf0\x9f\x98\x80\xc3\xa9z")));
    char t[64];
    floe_batch *b = one_row();
    const char *got = render(TR("truncate[3]", BYTES(floe_type_primitive(FLOE_TYPE_BINARY), "\x01\x02\x03\x04\x05", 5)), b, t);
    assert_true(strstr(got, "010203") != NULL && strstr(got, "0405") == NULL);
    assert_string_equal(t, "binary");
    floe_batch_release(b);
}

static void time_transforms_match_the_spec_vectors_before_and_after_the_epoch(void **state) {
    (void)state;
    /* 2017-12-01T10:12:55.038194: year 47, month 575, day 17501, hour 420034. */
    const int64_t us = INT64_C(1512123175038194);
    const floe_type_id ts[] = {FLOE_TYPE_TIMESTAMP_US, FLOE_TYPE_TIMESTAMP_US_TZ};
    for (int k = 0; k < 2; k++) {
        EXPECT_T("47", "int32", TR("year", TYPED(ts[k], us)));
        EXPECT_T("575", "int32", TR("month", TYPED(ts[k], us)));
        EXPECT_T("17501", "int32", TR("day", TYPED(ts[k], us)));
        EXPECT_T("420034", "int32", TR("hour", TYPED(ts[k], us)));
        EXPECT("-1", TR("year", TYPED(ts[k], -1)));
        EXPECT("-1", TR("month", TYPED(ts[k], -1)));
        EXPECT("-1", TR("day", TYPED(ts[k], -1)));
        EXPECT("-1", TR("hour", TYPED(ts[k], -1)));
        EXPECT("0", TR("hour", TYPED(ts[k], 1)));
    }
    const floe_type_id ns[] = {FLOE_TYPE_TIMESTAMP_NS, FLOE_TYPE_TIMESTAMP_NS_TZ};
    for (int k = 0; k < 2; k++) {
        EXPECT("47", TR("year", TYPED(ns[k], us * 1000 + 789)));
        EXPECT("575", TR("month", TYPED(ns[k], us * 1000 + 789)));
        EXPECT("17501", TR("day", TYPED(ns[k], us * 1000 + 789)));
        EXPECT("420034", TR("hour", TYPED(ns[k], us * 1000 + 789)));
        EXPECT("-1", TR("day", TYPED(ns[k], -1)));
        EXPECT("-1", TR("hour", TYPED(ns[k], -1)));
    }
    EXPECT_T("47", "int32", TR("year", TYPED(FLOE_TYPE_DATE32, 17501)));
    EXPECT_T("575", "int32", TR("month", TYPED(FLOE_TYPE_DATE32, 17501)));
    EXPECT_T("17501", "int32", TR("day", TYPED(FLOE_TYPE_DATE32, 17501)));
    EXPECT("-1", TR("month", TYPED(FLOE_TYPE_DATE32, -31))); /* 1969-12-01 */
    EXPECT("-2", TR("month", TYPED(FLOE_TYPE_DATE32, -32))); /* 1969-11-30 */
    EXPECT("-2", TR("year", TYPED(FLOE_TYPE_DATE32, -366))); /* 1968-12-31 */
}

static void identity_passes_values_and_void_gives_typed_nulls(void **state) {
    (void)state;
    EXPECT_T("34", "int32", TR("identity", I32(34)));
    EXPECT_T("iceberg", "string", TR("identity", S("iceberg")));
    EXPECT_T("2.5", "float64", TR("identity", F(2.5)));
    EXPECT_T("NULL", "int64", TR("void", I(34)));
    EXPECT_T("NULL", "string", TR("void", S("x")));
}

static void nulls_map_to_nulls_for_every_transform(void **state) {
    (void)state;
    EXPECT_T("NULL", "int32", TR("bucket[16]", NULLOF(FLOE_TYPE_INT64)));
    EXPECT_T("NULL", "int64", TR("truncate[10]", NULLOF(FLOE_TYPE_INT64)));
    EXPECT_T("NULL", "string", TR("truncate[3]", NULLOF(FLOE_TYPE_STRING)));
    EXPECT_T("NULL", "int32", TR("bucket[16]", NULLOF(FLOE_TYPE_STRING)));
    EXPECT_T("NULL", "int32", TR("day", NULLOF(FLOE_TYPE_TIMESTAMP_US)));
    EXPECT_T("NULL", "int32", TR("year", NULLOF(FLOE_TYPE_DATE32)));
    EXPECT_T("NULL", "int32", TR("bucket[4]", NULLOF(FLOE_TYPE_NULL)));
}

/* One int64 column [34, NULL, -1, 7, NULL, 100, 0, 1] sliced to skip its
 * first row, so the kernels see a non-zero array offset. */
static floe_batch *sliced_long_batch(void) {
    static const int64_t v[] = {999, 34, 0, -1, 7, 0, 100, 0, 1};
    static const bool null[] = {false, false, true, false, false, true, false, false, false};
    floe_builder *bl;
    floe_array *a;
    floe_field f;
    floe_schema *s;
    floe_batch *b, *sl;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), 9, &bl));
    for (int i = 0; i < 9; i++) {
        if (null[i]) assert_ok(floe_builder_append_null(bl));
        else assert_ok(floe_builder_append_int64(bl, v[i]));
    }
    assert_ok(floe_builder_finish(bl, &a));
    floe_builder_free(bl);
    assert_ok(floe_field_init(&f, "x", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    assert_ok(floe_type_struct(&f, 1, &s));
    floe_field_clear(&f);
    assert_ok(floe_batch_new(s, &a, 1, 9, &b));
    assert_ok(floe_batch_slice(b, 1, 8, &sl));
    floe_batch_release(b);
    floe_array_release(a);
    floe_type_release(s);
    return sl;
}

static void columns_are_transformed_whole_with_nulls_and_offsets(void **state) {
    (void)state;
    floe_batch *b = sliced_long_batch();
    char t[64];
    assert_string_equal(render(TR("bucket[16]", COL(0)), b, t), "3|NULL|8|3|NULL|0|12|4");
    assert_string_equal(t, "int32");
    assert_string_equal(render(TR("truncate[10]", COL(0)), b, t), "30|NULL|-10|0|NULL|100|0|0");
    assert_string_equal(t, "int64");
    assert_string_equal(render(TR("identity", COL(0)), b, NULL), "34|NULL|-1|7|NULL|100|0|1");
    assert_string_equal(render(TR("void", COL(0)), b, NULL), "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL");
    floe_batch_release(b);

    static const char *const strs[] = {"iceberg", SNULL, "\xe2\x98\x83" "de", "", "ab"};
    static const char *const *const cols[] = {strs};
    b = str_batch(1, 5, cols);
    assert_string_equal(render(TR("truncate[2]", COL(0)), b, NULL), "ic|NULL|\xe2\x98\x83" "d||ab");
    const char *got = render(TR("bucket[100]", COL(0)), b, NULL);
    assert_true(strncmp(got, "89|NULL|", 8) == 0);
    floe_batch_release(b);
}

static void a_constant_value_is_computed_once_and_repeated_per_row(void **state) {
    (void)state;
    static const char *const strs[] = {"a", "b", "c"};
    static const char *const *const cols[] = {strs};
    floe_batch *b = str_batch(1, 3, cols);
    assert_string_equal(render(TR("bucket[100]", I32(34)), b, NULL), "79|79|79");
    assert_string_equal(render(TR("truncate[3]", S("iceberg")), b, NULL), "ice|ice|ice");
    assert_string_equal(render(TR("identity", I(5)), b, NULL), "5|5|5");
    assert_string_equal(render(TR("void", I(5)), b, NULL), "NULL|NULL|NULL");
    floe_batch_release(b);
}

static void errors_name_the_function_and_the_transform(void **state) {
    (void)state;
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "iceberg_transform: bad transform 'bucket[0]'", TR("bucket[0]", I(1)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "bad transform 'truncate[x]'", TR("truncate[x]", I(1)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "iceberg_transform: unknown transform 'zorder'", TR("zorder", I(1)));
    EXPECT_ERR(FLOE_ERR_TYPE, "iceberg_transform: transform 'year' cannot apply to a int32", TR("year", I32(1)));
    EXPECT_ERR(FLOE_ERR_TYPE, "transform 'hour' cannot apply to a date32", TR("hour", TYPED(FLOE_TYPE_DATE32, 1)));
    EXPECT_ERR(FLOE_ERR_TYPE, "transform 'truncate[4]' cannot apply to a float64", TR("truncate[4]", F(1.5)));
    EXPECT_ERR(FLOE_ERR_TYPE, "transform 'bucket[4]' cannot apply to a bool",
               TR("bucket[4]", BOOL_LIT(true)));
    EXPECT_ERR(FLOE_ERR_TYPE, "must be a constant", call("iceberg_transform", 2, call("lower", 1, S("day")), I(1)));
    EXPECT_ERR(FLOE_ERR_TYPE, "must be a constant", call("iceberg_transform", 2, NULLOF(FLOE_TYPE_STRING), I(1)));
    EXPECT_ERR(FLOE_ERR_TYPE, "iceberg_transform(int64, int64)", call("iceberg_transform", 2, I(1), I(1)));
    EXPECT_ERR(FLOE_ERR_TYPE, "iceberg_transform(string)", call("iceberg_transform", 1, S("day")));
}

FLOE_TEST_MAIN(cmocka_unit_test(bucket_matches_the_spec_vectors_for_every_source_type),
               cmocka_unit_test(truncate_matches_the_spec_examples_and_keeps_the_source_type),
               cmocka_unit_test(time_transforms_match_the_spec_vectors_before_and_after_the_epoch),
               cmocka_unit_test(identity_passes_values_and_void_gives_typed_nulls),
               cmocka_unit_test(nulls_map_to_nulls_for_every_transform),
               cmocka_unit_test(columns_are_transformed_whole_with_nulls_and_offsets),
               cmocka_unit_test(a_constant_value_is_computed_once_and_repeated_per_row),
               cmocka_unit_test(errors_name_the_function_and_the_transform))
