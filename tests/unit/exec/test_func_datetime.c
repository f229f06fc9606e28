/*
 * test_func_datetime.c — date/time scalar functions: date_part fields
 * (ISO weeks, centuries, epoch as float), date_trunc units, add_interval
 * month arithmetic clamping the day, date_diff counting as DuckDB does,
 * make_date validation, strftime specifiers, to_timestamp and the clock
 * functions — with pre-1970 values, leap years and nanosecond timestamps.
 * Expected values were cross-checked against DuckDB 1.x.
 */
#include <time.h>

#include "fn_util.h"

#define DAY_US INT64_C(86400000000)

static floe_expr *DATE(int32_t days) { return TYPED(FLOE_TYPE_DATE32, days); }
/* A timestamp (µs, no zone) at day + h:m:s.us. */
static floe_expr *TS(int64_t days, int h, int mi, int s, int us) {
    return TYPED(FLOE_TYPE_TIMESTAMP_US, days * DAY_US + ((h * 60 + mi) * 60 + s) * INT64_C(1000000) + us);
}
static floe_expr *TSV(floe_type_id t, int64_t v) { return TYPED(t, v); }

/* 2024-02-29 13:05:09.123456 */
#define LEAP_TS() TS(19782, 13, 5, 9, 123456)

static void date_part_fields_of_a_leap_day(void **state) {
    (void)state;
    static const struct { const char *field, *want; } cases[] = {
        {"year", "2024"}, {"quarter", "1"}, {"month", "2"}, {"week", "9"}, {"day", "29"}, {"dow", "4"},
        {"isodow", "4"}, {"doy", "60"}, {"hour", "13"}, {"minute", "5"}, {"second", "9"},
        {"millisecond", "9123"}, {"microsecond", "9123456"}, {"YEAR", "2024"}, {"decade", "202"},
        {"century", "21"}, {"millennium", "3"}, {"isoyear", "2024"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char t[64];
        floe_batch *b = one_row();
        assert_string_equal(render(call("date_part", 2, S(cases[i].field), LEAP_TS()), b, t), cases[i].want);
        assert_string_equal(t, "int64");
        floe_batch_release(b);
    }
    EXPECT_T("1709211909.123456", "float64", call("date_part", 2, S("epoch"), LEAP_TS()));
    EXPECT("60", call("date_part", 2, S("doy"), DATE(19782)));
    EXPECT("0", call("date_part", 2, S("hour"), DATE(19782)));
    EXPECT("NULL", call("date_part", 2, S("year"), NULLOF(FLOE_TYPE_DATE32)));
}

static void date_part_before_1970_and_iso_weeks(void **state) {
    (void)state;
    /* 1969-12-31 23:59:59.5 */
    floe_expr *ts = TSV(FLOE_TYPE_TIMESTAMP_US, -500000);
    EXPECT("1969", call("date_part", 2, S("year"), floe_expr_retain(ts)));
    EXPECT("31", call("date_part", 2, S("day"), floe_expr_retain(ts)));
    EXPECT("23", call("date_part", 2, S("hour"), floe_expr_retain(ts)));
    EXPECT("59", call("date_part", 2, S("second"), floe_expr_retain(ts)));
    EXPECT("59500", call("date_part", 2, S("millisecond"), floe_expr_retain(ts)));
    EXPECT("3", call("date_part", 2, S("dow"), floe_expr_retain(ts)));
    EXPECT("-0.5", call("date_part", 2, S("epoch"), ts));
    EXPECT("53", call("date_part", 2, S("week"), DATE(18630)));    /* 2021-01-03 */
    EXPECT("2020", call("date_part", 2, S("isoyear"), DATE(18630)));
    EXPECT("1", call("date_part", 2, S("week"), DATE(20087)));     /* 2024-12-30 */
    EXPECT("2025", call("date_part", 2, S("isoyear"), DATE(20087)));
    EXPECT("20", call("date_part", 2, S("century"), DATE(11082))); /* 2000-05-05 */
    EXPECT("2", call("date_part", 2, S("millennium"), DATE(11082)));
    EXPECT("-1", call("date_part", 2, S("century"), DATE(-737790))); /* year -50 */
    EXPECT("-50", call("date_part", 2, S("year"), DATE(-737790)));
    EXPECT("1900", call("date_part", 2, S("year"), DATE(-25508)));  /* 1900-03-01: not a leap year */
    EXPECT("60", call("date_part", 2, S("doy"), DATE(-25508)));
    /* nanosecond timestamps: -1 ns is 1969-12-31 23:59:59.999999999 */
    EXPECT("59999999999", call("date_part", 2, S("nanosecond"), TSV(FLOE_TYPE_TIMESTAMP_NS, -1)));
    EXPECT("59999999", call("date_part", 2, S("microsecond"), TSV(FLOE_TYPE_TIMESTAMP_NS_TZ, -1)));
    EXPECT("13", call("date_part", 2, S("hour"), TSV(FLOE_TYPE_TIME64_US, INT64_C(47109000000))));
}

static void date_part_rejects_bad_fields(void **state) {
    (void)state;
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "unknown field 'fortnight'", call("date_part", 2, S("fortnight"), DATE(0)));
    EXPECT_ERR(FLOE_ERR_TYPE, "must be a constant", call("date_part", 2, call("lower", 1, S("year")), DATE(0)));
    EXPECT_ERR(FLOE_ERR_TYPE, "not defined for time", call("date_part", 2, S("year"), TSV(FLOE_TYPE_TIME64_US, 0)));
    EXPECT_ERR(FLOE_ERR_TYPE, "date_part(string, int64)", call("date_part", 2, S("year"), I(1)));
}

static void date_trunc_to_every_unit(void **state) {
    (void)state;
    static const struct { const char *unit, *want; } cases[] = {
        {"microsecond", "2024-02-29 13:05:09.123456"}, {"millisecond", "2024-02-29 13:05:09.123"},
        {"second", "2024-02-29 13:05:09"}, {"minute", "2024-02-29 13:05:00"},
        {"hour", "2024-02-29 13:00:00"}, {"day", "2024-02-29 00:00:00"},
        {"week", "2024-02-26 00:00:00"}, {"month", "2024-02-01 00:00:00"},
        {"quarter", "2024-01-01 00:00:00"}, {"year", "2024-01-01 00:00:00"},
        {"decade", "2020-01-01 00:00:00"}, {"century", "2000-01-01 00:00:00"},
        {"millennium", "2000-01-01 00:00:00"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char t[64];
        floe_batch *b = one_row();
        assert_string_equal(render(call("date_trunc", 2, S(cases[i].unit), LEAP_TS()), b, t), cases[i].want);
        assert_string_equal(t, "timestamp_us");
        floe_batch_release(b);
    }
    EXPECT("1969-12-31 23:00:00", call("date_trunc", 2, S("hour"), TSV(FLOE_TYPE_TIMESTAMP_US, -500000)));
    EXPECT("1969-10-01 00:00:00", call("date_trunc", 2, S("quarter"), TS(-47, 12, 0, 0, 0)));
    EXPECT_T("1969-12-29", "date32", call("date_trunc", 2, S("week"), DATE(-1)));
    EXPECT("1960-01-01", call("date_trunc", 2, S("decade"), DATE(-365)));
    EXPECT("1000-01-01", call("date_trunc", 2, S("millennium"), DATE(10592)));
    EXPECT("2024-02-29", call("date_trunc", 2, S("hour"), DATE(19782)));
    EXPECT_T("1969-12-31 23:59:59.999999", "timestamp_ns",
             call("date_trunc", 2, S("microsecond"), TSV(FLOE_TYPE_TIMESTAMP_NS, -1)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "unknown unit 'eon'", call("date_trunc", 2, S("eon"), DATE(0)));
}

static void add_interval_clamps_month_ends(void **state) {
    (void)state;
    EXPECT_T("2024-02-29 00:00:00", "timestamp_us", call("add_interval", 4, DATE(19753), I32(1), I32(0), I(0)));
    EXPECT("2023-02-28 00:00:00", call("add_interval", 4, DATE(19388), I32(1), I32(0), I(0)));
    EXPECT("2024-02-29 10:00:00", call("add_interval", 4, TS(19813, 10, 0, 0, 0), I32(-1), I32(0), I(0)));
    EXPECT("2023-12-15 00:00:00", call("add_interval", 4, DATE(19737), I32(-1), I32(0), I(0)));
    EXPECT("2025-02-28 00:00:00", call("add_interval", 4, DATE(19753), I32(13), I32(0), I(0)));
    EXPECT("1970-01-01 00:00:00", call("add_interval", 4, DATE(-1), I32(0), I32(1), I(0)));
    EXPECT("1969-12-31 23:59:59.999999", call("add_interval", 4, DATE(0), I32(0), I32(0), I(-1)));
    EXPECT("1969-03-02 12:00:00", call("add_interval", 4, DATE(-365), I32(1), I32(30), I(-43200000000)));
    EXPECT_T("2024-03-29 13:05:09.123456+00", "timestamp_us_tz",
             call("add_interval", 4, TSV(FLOE_TYPE_TIMESTAMP_US_TZ, 19782 * DAY_US + INT64_C(47109123456)), I32(1),
                  I32(0), I(0)));
    EXPECT_T("1970-01-01 00:00:00.000001999", "timestamp_ns",
             call("add_interval", 4, TSV(FLOE_TYPE_TIMESTAMP_NS, 999), I32(0), I32(0), I(1)));
    EXPECT("NULL", call("add_interval", 4, DATE(0), NULLOF(FLOE_TYPE_INT32), I32(0), I(0)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "add_interval: result for 1970-01-02 is out of range for timestamp_us",
               call("add_interval", 4, DATE(1), I32(0), I32(0), I(INT64_MAX)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "out of range", call("add_interval", 4, DATE(0), I32(INT32_MAX), I32(0), I(0)));
}

static void date_diff_counts_like_duckdb(void **state) {
    (void)state;
    EXPECT_T("0", "int64", call("date_diff", 3, S("week"), DATE(19729), DATE(19730)));
    EXPECT("1", call("date_diff", 3, S("week"), DATE(19723), DATE(19736)));
    EXPECT("-1", call("date_diff", 3, S("week"), DATE(19736), DATE(19723)));
    EXPECT("1", call("date_diff", 3, S("hour"), TS(19723, 10, 59, 0, 0), TS(19723, 11, 1, 0, 0)));
    EXPECT("1", call("date_diff", 3, S("month"), DATE(18292), DATE(18293)));
    EXPECT("1", call("date_diff", 3, S("year"), DATE(18627), DATE(18628)));
    EXPECT("1", call("date_diff", 3, S("day"), TS(18262, 23, 0, 0, 0), TS(18263, 1, 0, 0, 0)));
    EXPECT("-29", call("date_diff", 3, S("day"), DATE(19783), DATE(19754)));
    EXPECT("1", call("date_diff", 3, S("minute"), TSV(FLOE_TYPE_TIMESTAMP_US, -1000000), TSV(FLOE_TYPE_TIMESTAMP_US, 1000000)));
    EXPECT("2000000", call("date_diff", 3, S("microsecond"), TSV(FLOE_TYPE_TIMESTAMP_US, -1000000), TSV(FLOE_TYPE_TIMESTAMP_US, 1000000)));
    EXPECT("1", call("date_diff", 3, S("quarter"), DATE(18352), DATE(18353))); /* 2020-03-31 → 04-01 */
    EXPECT("1", call("date_diff", 3, S("decade"), DATE(10956), DATE(10957)));
    EXPECT("1", call("date_diff", 3, S("century"), DATE(10956), DATE(10957)));
    EXPECT("86400000000", call("date_diff", 3, S("microsecond"), DATE(0), TS(1, 0, 0, 0, 0)));
    EXPECT("NULL", call("date_diff", 3, S("day"), DATE(0), NULLOF(FLOE_TYPE_DATE32)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "unknown unit 'dow'", call("date_diff", 3, S("dow"), DATE(0), DATE(1)));
}

static void make_date_validates_fields(void **state) {
    (void)state;
    EXPECT_T("2024-02-29", "date32", call("make_date", 3, I(2024), I(2), I(29)));
    EXPECT("1969-12-31", call("make_date", 3, I32(1969), I32(12), I32(31)));
    EXPECT("2000-02-29", call("make_date", 3, I(2000), I(2), I(29)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "make_date: date field value out of range: 2023-02-29",
               call("make_date", 3, I(2023), I(2), I(29)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "1900-02-29", call("make_date", 3, I(1900), I(2), I(29)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "out of range", call("make_date", 3, I(2024), I(13), I(1)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "out of range", call("make_date", 3, I(INT64_MAX), I(1), I(1)));
    EXPECT("NULL", call("make_date", 3, I(2024), NULLOF(FLOE_TYPE_INT64), I(1)));
}

static void strftime_formats_like_duckdb(void **state) {
    (void)state;
    EXPECT_T("Thu Thursday Feb February 29 123456 13 01 060 02 05 PM 09 4 4 24 2024 2024 09 123 %", "string",
             call("strftime", 2, LEAP_TS(), S("%a %A %b %B %d %f %H %I %j %m %M %p %S %u %w %y %Y %G %V %g %%")));
    EXPECT("0099|5|1|0|5", call("strftime", 2, DATE(-683364), S("%Y|%-d|%-m|%-H|%-j"))); /* 0099-01-05 */
    EXPECT("23|500000|1969-12-31T23:59:59", call("strftime", 2, TSV(FLOE_TYPE_TIMESTAMP_US, -500000), S("%H|%f|%FT%T")));
    EXPECT("+00|UTC", call("strftime", 2, TSV(FLOE_TYPE_TIMESTAMP_US_TZ, 0), S("%z|%Z")));
    EXPECT("|", call("strftime", 2, TSV(FLOE_TYPE_TIMESTAMP_US, 0), S("%z|%Z")));
    EXPECT("-1|31", call("strftime", 2, TSV(FLOE_TYPE_TIMESTAMP_US, -1000000), S("%s|%e")));
    EXPECT(" 5|5", call("strftime", 2, DATE(4), S("%e|%-e")));
    EXPECT("000000001", call("strftime", 2, TSV(FLOE_TYPE_TIMESTAMP_NS, 1), S("%n")));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "unknown format specifier '%Q'", call("strftime", 2, DATE(0), S("%Q")));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "ends with '%'", call("strftime", 2, DATE(0), S("abc%")));
}

static void to_timestamp_and_clock_functions(void **state) {
    (void)state;
    EXPECT_T("1969-12-31 23:59:58.5+00", "timestamp_us_tz", call("to_timestamp", 1, F(-1.5)));
    EXPECT("1970-01-01 00:00:00+00", call("to_timestamp", 1, I(0)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "out of the timestamp range", call("to_timestamp", 1, F(1e300)));
    char t[64];
    floe_batch *b = one_row();
    floe_array *a;
    floe_expr *e = call("now", 0);
    time_t before = time(NULL);
    assert_ok(floe_expr_eval(e, b, &a));
    int64_t us = floe_array_get_int64(a, 0);
    assert_true(us / 1000000 >= before - 1 && us / 1000000 <= time(NULL) + 1);
    floe_array_release(a);
    floe_expr_release(e);
    e = call("current_date", 0);
    assert_ok(floe_expr_eval(e, b, &a));
    assert_int_equal(floe_array_get_int32(a, 0), (int32_t)(time(NULL) / 86400));
    floe_array_release(a);
    floe_expr_release(e);
    render(call("current_timestamp", 0), b, t);
    assert_string_equal(t, "timestamp_us_tz");
    floe_batch_release(b);
    EXPECT_ERR(FLOE_ERR_TYPE, "now(int64)", call("now", 1, I(1)));
}

static void field_shortcuts_and_make_timestamp(void **state) {
    (void)state;
    EXPECT_T("2024", "int64", call("year", 1, LEAP_TS()));
    EXPECT("2", call("month", 1, LEAP_TS()));
    EXPECT("29", call("day", 1, LEAP_TS()));
    EXPECT("13", call("hour", 1, LEAP_TS()));
    EXPECT("4", call("dayofweek", 1, LEAP_TS()));
    EXPECT("60", call("dayofyear", 1, DATE(19782)));
    EXPECT("1969", call("year", 1, DATE(-1)));
    EXPECT_T("-0.5", "float64", call("epoch", 1, TSV(FLOE_TYPE_TIMESTAMP_US, -500000)));
    EXPECT("NULL", call("quarter", 1, NULLOF(FLOE_TYPE_DATE32)));
    EXPECT_ERR(FLOE_ERR_TYPE, "year is not defined for time", call("year", 1, TSV(FLOE_TYPE_TIME64_US, 0)));
    EXPECT_T("2024-02-29 13:05:09.123456", "timestamp_us",
             call("make_timestamp", 6, I(2024), I(2), I(29), I(13), I(5), F(9.123456)));
    EXPECT("1969-12-31 23:59:59", call("make_timestamp", 6, I(1969), I(12), I(31), I(23), I(59), I(59)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "out of range: 2023-02-29",
               call("make_timestamp", 6, I(2023), I(2), I(29), I(0), I(0), I(0)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "out of range", call("make_timestamp", 6, I(2023), I(2), I(1), I(0), I(0), F(60)));
}

static void to_char_follows_postgres_patterns(void **state) {
    (void)state;
    EXPECT_T("2024-02-29 13:05:09.123456", "string", call("to_char", 2, LEAP_TS(), S("YYYY-MM-DD HH24:MI:SS.US")));
    EXPECT("Thursday , 29 February  2024", call("to_char", 2, LEAP_TS(), S("Day, DD Month YYYY")));
    EXPECT("Thursday, 29 February 2024", call("to_char", 2, LEAP_TS(), S("FMDay, FMDD FMMonth YYYY")));
    EXPECT("01:05 PM|01 pm|P.M.", call("to_char", 2, LEAP_TS(), S("HH12:MI AM|hh12 am|P.M.")));
    EXPECT("Feb THU thu FEBRUARY ", call("to_char", 2, LEAP_TS(), S("Mon DY dy MONTH")));
    EXPECT("Quarter 1, 060, 09, 4, 5, 09, 21", call("to_char", 2, LEAP_TS(), S("\"Quarter\" Q, DDD, IW, ID, D, WW, CC")));
    EXPECT("47109 123 9", call("to_char", 2, LEAP_TS(), S("SSSS MS FMSS")));
    EXPECT("1969-12", call("to_char", 2, DATE(-1), S("YYYY-MM")));
    EXPECT("2451545", call("to_char", 2, DATE(10957), S("J")));
    EXPECT("UTC|", call("to_char", 2, TSV(FLOE_TYPE_TIMESTAMP_US_TZ, 0), S("TZ|")));
    EXPECT("NULL", call("to_char", 2, NULLOF(FLOE_TYPE_DATE32), S("YYYY")));
}

FLOE_TEST_MAIN(cmocka_unit_test(date_part_fields_of_a_leap_day),
               cmocka_unit_test(date_part_before_1970_and_iso_weeks),
               cmocka_unit_test(date_part_rejects_bad_fields),
               cmocka_unit_test(date_trunc_to_every_unit),
               cmocka_unit_test(add_interval_clamps_month_ends),
               cmocka_unit_test(date_diff_counts_like_duckdb),
               cmocka_unit_test(make_date_validates_fields),
               cmocka_unit_test(strftime_formats_like_duckdb),
               cmocka_unit_test(to_timestamp_and_clock_functions),
               cmocka_unit_test(field_shortcuts_and_make_timestamp),
               cmocka_unit_test(to_char_follows_postgres_patterns))
