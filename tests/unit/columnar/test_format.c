/* The value formatter prints every type exactly, including pre-epoch instants and extreme decimals. */
#include "columnar_util.h"

static const char *with(floe_status (*f)(floe_buf *, void *), void *arg) {
    static char text[256];
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(f(&b, arg));
    snprintf(text, sizeof text, "%s", floe_buf_cstr(&b));
    floe_buf_free(&b);
    return text;
}

static floe_status date_fn(floe_buf *b, void *arg) { return floe_format_date32(*(int32_t *)arg, b); }
static const char *date(int32_t d) { return with(date_fn, &d); }

static void dates_use_floor_division_before_epoch(void **state) {
    (void)state;
    assert_string_equal(date(0), "1970-01-01");
    assert_string_equal(date(-1), "1969-12-31");
    assert_string_equal(date(-365), "1969-01-01");
    assert_string_equal(date(-719162), "0001-01-01");
    assert_string_equal(date(11016), "2000-02-29");
    assert_string_equal(date(2932896), "9999-12-31");
    assert_string_equal(date(-719163), "0000-12-31");
}

typedef struct {
    int64_t v, units;
    bool utc;
} ts_arg;
static floe_status ts_fn(floe_buf *b, void *arg) {
    ts_arg *a = arg;
    return floe_format_timestamp(a->v, a->units, a->utc, b);
}
static const char *ts(int64_t v, int64_t units, bool utc) {
    ts_arg a = {v, units, utc};
    return with(ts_fn, &a);
}

static void timestamps_before_epoch_and_with_zone(void **state) {
    (void)state;
    assert_string_equal(ts(0, 1000000, false), "1970-01-01 00:00:00");
    assert_string_equal(ts(-1, 1000000, false), "1969-12-31 23:59:59.999999");
    assert_string_equal(ts(-86400000001LL, 1000000, true), "1969-12-30 23:59:59.999999+00");
    assert_string_equal(ts(1700000000123456789LL, 1000000000, false), "2023-11-14 22:13:20.123456789");
    assert_string_equal(ts(-1, 1000000000, true), "1969-12-31 23:59:59.999999999+00");
    /* Extremes must not overflow. */
    assert_string_equal(ts(INT64_MIN, 1000000000, false), "1677-09-21 00:12:43.145224192");
    assert_string_equal(ts(INT64_MAX, 1000000000, false), "2262-04-11 23:47:16.854775807");
}

static floe_status time_fn(floe_buf *b, void *arg) { return floe_format_time_us(*(int64_t *)arg, b); }

static void times_of_day(void **state) {
    (void)state;
    int64_t t = 0;
    assert_string_equal(with(time_fn, &t), "00:00:00");
    t = 86399999999LL;
    assert_string_equal(with(time_fn, &t), "23:59:59.999999");
    t = 3600000000LL + 61000001;
    assert_string_equal(with(time_fn, &t), "01:01:01.000001");
}

typedef struct {
    floe_decimal128 v;
    int32_t scale;
} dec_arg;
static floe_status dec_fn(floe_buf *b, void *arg) {
    dec_arg *a = arg;
    return floe_format_decimal(a->v, a->scale, b);
}
static const char *dec(floe_decimal128 v, int32_t scale) {
    dec_arg a = {v, scale};
    return with(dec_fn, &a);
}

static void decimals_keep_their_scale(void **state) {
    (void)state;
    assert_string_equal(dec(floe_decimal128_from_int64(12345), 2), "123.45");
    assert_string_equal(dec(floe_decimal128_from_int64(-5), 3), "-0.005");
    assert_string_equal(dec(floe_decimal128_from_int64(0), 2), "0.00");
    assert_string_equal(dec(floe_decimal128_from_int64(-1230), 2), "-12.30");
    assert_string_equal(dec(floe_decimal128_from_int64(7), 0), "7");
    /* 10^38 - 1 and its negation, scale 38. */
    floe_decimal128 max = {0x098a223fffffffffULL, 0x4b3b4ca85a86c47aLL};
    assert_string_equal(dec(max, 0), "99999999999999999999999999999999999999");
    assert_string_equal(dec(max, 38), "0.99999999999999999999999999999999999999");
    floe_decimal128 min = {~max.lo + 1, ~max.hi + (max.lo == 0)};
    assert_string_equal(dec(min, 10), "-9999999999999999999999999999.9999999999");
    floe_decimal128 big_neg = {0, INT64_MIN};
    assert_string_equal(dec(big_neg, 0), "-170141183460469231731687303715884105728");
}

static floe_status dbl_fn(floe_buf *b, void *arg) { return floe_format_double(*(double *)arg, b); }
static floe_status flt_fn(floe_buf *b, void *arg) { return floe_format_float(*(float *)arg, b); }

static void floats_print_shortest_exact_text(void **state) {
    (void)state;
    double d = 0.1;
    assert_string_equal(with(dbl_fn, &d), "0.1");
    d = 1.0 / 3;
    assert_string_equal(with(dbl_fn, &d), "0.3333333333333333");
    d = 100;
    assert_string_equal(with(dbl_fn, &d), "100.0");
    d = 1e20;
    assert_string_equal(with(dbl_fn, &d), "1e+20");
    d = __builtin_nan("");
    assert_string_equal(with(dbl_fn, &d), "NaN");
    d = -__builtin_inf();
    assert_string_equal(with(dbl_fn, &d), "-Infinity");
    float f = 0.1f;
    assert_string_equal(with(flt_fn, &f), "0.1");
    f = 16777216.0f;
    assert_string_equal(with(flt_fn, &f), "16777216.0");
}

static floe_status uuid_fn(floe_buf *b, void *arg) { return floe_format_uuid(arg, b); }

static void uuid_is_canonical_lowercase(void **state) {
    (void)state;
    uint8_t u[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbf, 0xa4, 0x79, 0x39, 0x49, 0x1d, 0x5c, 0x4a, 0x3e};
    assert_string_equal(with(uuid_fn, u), "f79c3e09-677c-4bbf-a479-39491d5c4a3e");
}

static void top_level_strings_are_raw_nested_strings_quoted(void **state) {
    (void)state;
    const char *v[] = {"it's", NULL};
    floe_array *a = make_strings(v, 2);
    assert_string_equal(fmt_at(a, 0), "it's");
    assert_string_equal(fmt_at(a, 1), "NULL");
    floe_array_release(a);
}

FLOE_TEST_MAIN(cmocka_unit_test(dates_use_floor_division_before_epoch),
               cmocka_unit_test(timestamps_before_epoch_and_with_zone),
               cmocka_unit_test(times_of_day),
               cmocka_unit_test(decimals_keep_their_scale),
               cmocka_unit_test(floats_print_shortest_exact_text),
               cmocka_unit_test(uuid_is_canonical_lowercase),
               cmocka_unit_test(top_level_strings_are_raw_nested_strings_quoted))
