/* The interval value: PostgreSQL's text input forms and its default output
 * (the expected texts are PostgreSQL 15's), total-based order and hashing,
 * multiplication's cascading, and timestamp + interval month-end clamping. */
#include <string.h>

#include "columnar_util.h"
#include "floe/interval.h"

static floe_interval parse(const char *s) {
    floe_interval v;
    assert_ok(floe_interval_parse(s, (int64_t)strlen(s), 0, &v));
    return v;
}

static const char *text(floe_interval v) {
    static char out[128];
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_interval_format(v, &b));
    snprintf(out, sizeof out, "%s", floe_buf_cstr(&b));
    floe_buf_free(&b);
    return out;
}

static const char *round_trip(const char *s) { return text(parse(s)); }

static void input_forms_print_as_postgresql(void **state) {
    (void)state;
    assert_string_equal(round_trip("1 day 2 hours"), "1 day 02:00:00");
    assert_string_equal(round_trip("2 weeks"), "14 days");
    assert_string_equal(round_trip("1-2"), "1 year 2 mons");
    assert_string_equal(round_trip("P1Y2M3DT4H5M6S"), "1 year 2 mons 3 days 04:05:06");
    assert_string_equal(round_trip("04:05:06"), "04:05:06");
    assert_string_equal(round_trip("3 days ago"), "-3 days");
    assert_string_equal(round_trip("@ 1 minute"), "00:01:00");
    assert_string_equal(round_trip("0"), "00:00:00");
    assert_string_equal(round_trip("1.5 months"), "1 mon 15 days");
    assert_string_equal(round_trip("1.5 weeks"), "10 days 12:00:00");
    assert_string_equal(round_trip("-1.5 years"), "-1 years -6 mons");
    assert_string_equal(round_trip("-1 day +2 hours"), "-1 days +02:00:00");
    assert_string_equal(round_trip("1 year -2 mons -3 days +04:05"), "10 mons -3 days +04:05:00");
    assert_string_equal(round_trip("-04:05:06.123"), "-04:05:06.123");
    assert_string_equal(round_trip("1 millisecond 3 microseconds"), "00:00:00.001003");
    assert_string_equal(round_trip("PT36H"), "36:00:00");
}

static void bad_input_names_the_text(void **state) {
    (void)state;
    floe_interval v;
    assert_error(floe_interval_parse("abc", 3, 0, &v), FLOE_ERR_INVALID_ARGUMENT,
                 "invalid input syntax for type interval: \"abc\"");
    assert_error(floe_interval_parse("1 fortnight", 11, 0, &v), FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax");
    assert_error(floe_interval_parse("25:61:00", 8, 0, &v), FLOE_ERR_INVALID_ARGUMENT,
                 "interval field value out of range");
    assert_error(floe_interval_parse("2147483648 days", 15, 0, &v), FLOE_ERR_INVALID_ARGUMENT,
                 "interval field value out of range");
    assert_error(floe_interval_parse("", 0, 0, &v), FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax");
}

static void qualifier_names_the_unit_of_a_bare_number(void **state) {
    (void)state;
    floe_interval v;
    assert_ok(floe_interval_parse("90", 2, 8 /* DAY */, &v));
    assert_string_equal(text(v), "90 days");
    assert_ok(floe_interval_parse("90", 2, 0, &v));
    assert_string_equal(text(v), "00:01:30");
}

static void order_and_hash_use_the_total(void **state) {
    (void)state;
    floe_interval mon = parse("1 mon"), days = parse("30 days"), day = parse("1 day"), hours = parse("24 hours");
    assert_int_equal(floe_interval_cmp(mon, days), 0);
    assert_int_equal(floe_interval_hash(mon), floe_interval_hash(days));
    assert_int_equal(floe_interval_hash(day), floe_interval_hash(hours));
    assert_true(floe_interval_cmp(parse("23 hours"), day) < 0);
    assert_int_equal(floe_interval_cmp(parse("1 year"), parse("360 days")), 0); /* 12 months of 30 days */
    assert_true(floe_interval_cmp(parse("1 year"), parse("364 days")) < 0);
}

static void multiplication_cascades_fractions(void **state) {
    (void)state;
    floe_interval r;
    assert_true(floe_interval_div(parse("1 mon"), 7, &r));
    assert_string_equal(text(r), "4 days 06:51:25.6896");
    assert_true(floe_interval_mul(parse("1 mon 1 day"), 1.5, &r));
    assert_string_equal(text(r), "1 mon 16 days 12:00:00");
    assert_false(floe_interval_mul(parse("2000000000 days"), 2, &r));
    assert_string_equal(text(floe_interval_justify(parse("1 mon -1 hour"))), "29 days 23:00:00");
}

static void timestamp_plus_interval_clamps_month_ends(void **state) {
    (void)state;
    const int64_t day = FLOE_US_PER_DAY;
    int64_t r;
    /* 2024-01-31 + 1 mon = 2024-02-29 (19782 = 2024-02-29) */
    assert_true(floe_timestamp_add_interval(19753 * day, parse("1 mon"), &r));
    assert_int_equal(r, 19782 * day);
    /* 2024-02-29 + 1 year = 2025-02-28 */
    assert_true(floe_timestamp_add_interval(19782 * day, parse("1 year"), &r));
    assert_int_equal(r, (19782 + 365) * day);
    assert_false(floe_timestamp_add_interval(0, parse("2147483647 days"), &r));
}

FLOE_TEST_MAIN(cmocka_unit_test(input_forms_print_as_postgresql), cmocka_unit_test(bad_input_names_the_text),
               cmocka_unit_test(qualifier_names_the_unit_of_a_bare_number),
               cmocka_unit_test(order_and_hash_use_the_total), cmocka_unit_test(multiplication_cascades_fractions),
               cmocka_unit_test(timestamp_plus_interval_clamps_month_ends))
