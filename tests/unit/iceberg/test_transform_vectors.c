/* Every transform vector in spec-vectors.md: the spec's truncate examples
 * (section 1), pyiceberg's bucket and truncate vectors (9.1, 9.2), Java's
 * TestTimestamps time-transform vectors including pre-epoch floors (9.3),
 * and the human-readable partition strings (9.3). */
#include "floe_test.h"

#include "floe/iceberg_transform.h"
#include "floe/iceberg_types.h"
#include "floe/iceberg_value.h"
#include "floe/memory.h"

/* Apply transform text `tr` to `text` parsed as `type`; return the result's
 * human-readable value form (JSON form without quotes). */
static char *apply_str(const char *tr, const char *type, const char *text) {
    floe_ice_type *t = NULL;
    floe_ice_transform x;
    floe_ice_value in, out;
    char *s = NULL;
    assert_ok(floe_ice_type_parse(type, &t));
    assert_ok(floe_ice_transform_parse(tr, &x));
    assert_ok(floe_ice_value_parse(t, text, &in));
    assert_ok(floe_ice_transform_apply(&x, &in, &out));
    assert_ok(floe_ice_value_to_string(&out, &s));
    floe_ice_value_free(&in);
    floe_ice_type_free(t);
    return s;
}

#define assert_apply(tr, type, in, want)                 \
    do {                                                 \
        char *got_ = apply_str(tr, type, in);            \
        assert_string_equal(got_, want);                 \
        floe_free(got_);                                 \
    } while (0)

/* Apply to a value built in code; return the int/date ordinal result. */
static int64_t apply_ord(const char *tr, floe_ice_value in) {
    floe_ice_transform x;
    floe_ice_value out;
    assert_ok(floe_ice_transform_parse(tr, &x));
    assert_ok(floe_ice_transform_apply(&x, &in, &out));
    assert_false(out.is_null);
    if (out.type == FLOE_ICE_INT || out.type == FLOE_ICE_DATE) return out.v.i32;
    return out.v.i64;
}

static void spec_truncate_examples(void **state) {
    (void)state;
    assert_apply("truncate[10]", "int", "1", "0");
    assert_apply("truncate[10]", "int", "-1", "-10");
    assert_apply("truncate[10]", "long", "1", "0");
    assert_apply("truncate[10]", "long", "-1", "-10");
    assert_apply("truncate[50]", "decimal(9,2)", "10.65", "10.50");
    assert_apply("truncate[3]", "string", "iceberg", "ice");
    assert_apply("truncate[3]", "binary", "0102030405", "010203");
}

static void pyiceberg_bucket_vectors(void **state) {
    (void)state;
    assert_apply("bucket[2]", "int", "0", "0");
    assert_apply("bucket[100]", "int", "34", "79");
    assert_apply("bucket[100]", "long", "34", "79");
    assert_int_equal(apply_ord("bucket[100]", floe_ice_date(17486)), 26);
    assert_apply("bucket[100]", "date", "2017-11-16", "26");
    assert_int_equal(apply_ord("bucket[100]", floe_ice_time(81068000000LL)), 59);
    assert_apply("bucket[100]", "time", "22:31:08", "59");
    assert_int_equal(apply_ord("bucket[100]", floe_ice_timestamp(1510871468000000LL)), 7);
    assert_apply("bucket[100]", "timestamp", "2017-11-16T22:31:08", "7");
    assert_apply("bucket[100]", "decimal(9,2)", "14.20", "59");
    assert_apply("bucket[16]", "decimal(5,2)", "-1.28", "13");
    assert_apply("bucket[100]", "string", "iceberg", "89");
    assert_apply("bucket[100]", "uuid", "f79c3e09-677c-4bbd-a479-3f349cb785e7", "40");
    assert_apply("bucket[128]", "fixed[3]", "666f6f", "32"); /* b"foo" */
    assert_apply("bucket[128]", "binary", "00010203", "57");
}

static void pyiceberg_truncate_integer_vectors(void **state) {
    (void)state;
    static const struct { const char *in, *out; } v[] = {
        {"1", "0"},     {"5", "0"},     {"9", "0"},     {"10", "10"}, {"11", "10"},
        {"-1", "-10"},  {"-10", "-10"}, {"-12", "-20"}, {"0", "0"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        assert_apply("truncate[10]", "int", v[i].in, v[i].out);
        assert_apply("truncate[10]", "long", v[i].in, v[i].out);
    }
}

static void pyiceberg_truncate_decimal_vectors(void **state) {
    (void)state;
    assert_apply("truncate[10]", "decimal(9,2)", "12.34", "12.30");
    assert_apply("truncate[10]", "decimal(9,2)", "12.30", "12.30");
    assert_apply("truncate[10]", "decimal(9,2)", "12.29", "12.20");
    assert_apply("truncate[10]", "decimal(9,2)", "0.05", "0.00");
    assert_apply("truncate[10]", "decimal(9,2)", "-0.05", "-0.10");
    assert_apply("truncate[10]", "decimal(9,1)", "0.0", "0.0");
    assert_apply("truncate[10]", "decimal(9,2)", "0.0", "0.00");
}

static void pyiceberg_truncate_string_vectors(void **state) {
    (void)state;
    assert_apply("truncate[5]", "string", "abcdefg", "abcde");
    assert_apply("truncate[5]", "string", "abc", "abc");
    assert_apply("truncate[5]", "string", "", "");
}

static void pyiceberg_truncate_method_vectors(void **state) {
    (void)state;
    assert_apply("truncate[1]", "binary", "00010203", "00");
    /* utf8("\u2603de") = e2 98 83 64 65; binary truncates bytes... */
    assert_apply("truncate[1]", "binary", "e298836465", "e2");
    assert_apply("truncate[1]", "string", "foo", "f");
    /* ...while strings truncate by code point and never split one. */
    assert_apply("truncate[1]", "string", "\xe2\x98\x83" "de", "\xe2\x98\x83");
    assert_apply("truncate[2]", "string", "\xe2\x98\x83" "de", "\xe2\x98\x83" "d");
    assert_apply("truncate[2]", "string", "\xf0\x9f\x98\x80\xc3\xa9z", "\xf0\x9f\x98\x80\xc3\xa9");
    assert_apply("truncate[1]", "decimal(8,5)", "14.21", "14.21000");
    assert_apply("truncate[1]", "int", "123", "123");
}

/* TestTimestamps: the same instants as micros and as nanos. */
static void java_timestamp_vectors_micros_and_nanos(void **state) {
    (void)state;
    static const struct {
        const char *micros, *nanos;
        int year, month, day, hour;
    } v[] = {
        {"2017-12-01T10:12:55.038194", "2017-12-01T10:12:55.038194789", 47, 575, 17501, 420034},
        {"1970-01-01T00:00:01.000001", "1970-01-01T00:00:00.000000001", 0, 0, 0, 0},
        {"1969-12-31T23:59:59.999999", "1969-12-31T23:59:59.999999999", -1, -1, -1, -1},
    };
    const char *types[] = {"timestamp", "timestamp_ns", "timestamptz", "timestamptz_ns"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        for (int k = 0; k < 4; k++) {
            floe_ice_type *t = NULL;
            floe_ice_value in;
            char text[64];
            snprintf(text, sizeof text, "%s%s", (k & 1) ? v[i].nanos : v[i].micros, k >= 2 ? "+00:00" : "");
            assert_ok(floe_ice_type_parse(types[k], &t));
            assert_ok(floe_ice_value_parse(t, text, &in));
            assert_int_equal(apply_ord("year", in), v[i].year);
            assert_int_equal(apply_ord("month", in), v[i].month);
            assert_int_equal(apply_ord("day", in), v[i].day);
            assert_int_equal(apply_ord("hour", in), v[i].hour);
            floe_ice_type_free(t);
        }
    }
    /* Hour of 1512151975038194 micros. */
    assert_int_equal(apply_ord("hour", floe_ice_timestamp(1512151975038194LL)), 420042);
    /* One microsecond before the epoch floors to -1 everywhere. */
    assert_int_equal(apply_ord("hour", floe_ice_timestamp(-1)), -1);
    assert_int_equal(apply_ord("day", floe_ice_timestamp_ns(-1)), -1);
}

static void date_transforms_floor_before_epoch(void **state) {
    (void)state;
    assert_int_equal(apply_ord("year", floe_ice_date(17501)), 47);
    assert_int_equal(apply_ord("month", floe_ice_date(17501)), 575);
    assert_int_equal(apply_ord("day", floe_ice_date(17501)), 17501);
    assert_int_equal(apply_ord("year", floe_ice_date(-1)), -1);
    assert_int_equal(apply_ord("month", floe_ice_date(-1)), -1);
    assert_int_equal(apply_ord("day", floe_ice_date(-1)), -1);
    assert_int_equal(apply_ord("month", floe_ice_date(-31)), -1);  /* 1969-12-01 */
    assert_int_equal(apply_ord("month", floe_ice_date(-32)), -2);  /* 1969-11-30 */
    assert_int_equal(apply_ord("year", floe_ice_date(-365)), -1);  /* 1969-01-01 */
    assert_int_equal(apply_ord("year", floe_ice_date(-366)), -2);  /* 1968-12-31 */
}

static char *human(const char *tr, floe_ice_value v) {
    floe_ice_transform x;
    char *s = NULL;
    assert_ok(floe_ice_transform_parse(tr, &x));
    assert_ok(floe_ice_transform_human_string(&x, &v, &s));
    return s;
}

#define assert_human(tr, v, want)              \
    do {                                       \
        char *got_ = human(tr, v);             \
        assert_string_equal(got_, want);       \
        floe_free(got_);                       \
    } while (0)

static void pyiceberg_human_strings_of_time_partitions(void **state) {
    (void)state;
    assert_human("year", floe_ice_int(47), "2017");
    assert_human("month", floe_ice_int(575), "2017-12");
    assert_human("day", floe_ice_date(17501), "2017-12-01");
    assert_human("day", floe_ice_int(17501), "2017-12-01"); /* readers accept ints for day */
    assert_human("hour", floe_ice_int(420042), "2017-12-01-18");
    assert_human("year", floe_ice_int(-1), "1969");
    assert_human("month", floe_ice_int(-1), "1969-12");
    assert_human("day", floe_ice_date(-1), "1969-12-31");
    assert_human("hour", floe_ice_int(-1), "1969-12-31-23");
    assert_human("year", floe_ice_int(0), "1970");
    assert_human("month", floe_ice_int(0), "1970-01");
    assert_human("day", floe_ice_date(0), "1970-01-01");
    assert_human("hour", floe_ice_int(0), "1970-01-01-00");
    assert_human("month", floe_ice_null(FLOE_ICE_INT), "null");
}

static void brief_examples_of_human_strings(void **state) {
    (void)state;
    assert_human("month", floe_ice_int(575), "2017-12");
    assert_human("hour", floe_ice_int(420034), "2017-12-01-10");
    assert_human("day", floe_ice_date(17501), "2017-12-01");
    assert_human("bucket[16]", floe_ice_int(7), "7");
    assert_human("truncate[3]", floe_ice_string_z("ice"), "ice");
    assert_human("void", floe_ice_null(FLOE_ICE_INT), "null");
}

FLOE_TEST_MAIN(cmocka_unit_test(spec_truncate_examples),
               cmocka_unit_test(pyiceberg_bucket_vectors),
               cmocka_unit_test(pyiceberg_truncate_integer_vectors),
               cmocka_unit_test(pyiceberg_truncate_decimal_vectors),
               cmocka_unit_test(pyiceberg_truncate_string_vectors),
               cmocka_unit_test(pyiceberg_truncate_method_vectors),
               cmocka_unit_test(java_timestamp_vectors_micros_and_nanos),
               cmocka_unit_test(date_transforms_floor_before_epoch),
               cmocka_unit_test(pyiceberg_human_strings_of_time_partitions),
               cmocka_unit_test(brief_examples_of_human_strings))
