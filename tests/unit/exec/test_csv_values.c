/*
 * test_csv_values.c — the CSV reader's typed fast paths
 * (src/exec/scan/csv_values.c): each value they accept must be exactly
 * what CAST(text AS type) gives (the same bits for doubles, strtod's),
 * and text they refuse goes to the cast (blanks, offsets, overflow ...).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/scan/csv_values.h"
#include "exec_util.h"

/* CAST('text' AS to) as a one-slot array (NULL when the cast fails). */
static floe_array *cast_of(const char *text, floe_type *to) {
    floe_expr *lit = NULL, *c = NULL;
    floe_schema *empty = NULL;
    floe_batch *b = NULL;
    floe_array *v = NULL;
    assert_ok(floe_expr_lit_string(text, &lit));
    assert_ok(floe_expr_cast(lit, to, &c));
    assert_ok(floe_type_struct(NULL, 0, &empty));
    assert_ok(floe_batch_new(empty, NULL, 0, 1, &b));
    floe_status st = floe_expr_eval(c, b, &v);
    floe_status_free(st);
    floe_batch_release(b);
    floe_type_release(empty);
    floe_expr_release(c);
    floe_expr_release(lit);
    return st ? NULL : v;
}

/* Fast path and cast agree on `text` for `to`; returns whether the fast
 * path took it. */
static bool agree(const char *text, floe_type *to) {
    size_t n = strlen(text);
    floe_array *v = cast_of(text, to);
    bool took = false;
    switch (to->id) {
    case FLOE_TYPE_INT64: {
        int64_t x;
        if ((took = floe_csv_fast_int64(text, n, &x))) assert_int_equal(x, floe_array_get_int64(v, 0));
        break;
    }
    case FLOE_TYPE_FLOAT64: {
        double x;
        if ((took = floe_csv_fast_double(text, n, &x))) {
            double y = floe_array_get_double(v, 0);
            if (memcmp(&x, &y, sizeof x) != 0) fail_msg("'%s': fast %.17g, cast %.17g", text, x, y);
        }
        break;
    }
    case FLOE_TYPE_DATE32: {
        int32_t x;
        if ((took = floe_csv_fast_date(text, n, &x))) assert_int_equal(x, floe_array_get_int32(v, 0));
        break;
    }
    case FLOE_TYPE_TIMESTAMP_US: {
        int64_t x;
        if ((took = floe_csv_fast_timestamp(text, n, &x))) assert_int_equal(x, floe_array_get_int64(v, 0));
        break;
    }
    case FLOE_TYPE_BOOL: {
        bool x;
        if ((took = floe_csv_fast_bool(text, n, &x))) assert_int_equal(x, floe_array_get_bool(v, 0));
        break;
    }
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 x;
        if ((took = floe_csv_fast_decimal(text, n, to->precision, to->scale, &x))) {
            floe_decimal128 y = floe_array_get_decimal(v, 0);
            if (x.lo != y.lo || x.hi != y.hi) fail_msg("'%s': decimals differ", text);
        }
        break;
    }
    default: fail_msg("no fast path for %s", floe_type_id_name(to->id));
    }
    if (took && !v) fail_msg("fast path took '%s' but the cast refuses it", text);
    floe_array_release(v);
    return took;
}

static void integers(void **state) {
    (void)state;
    floe_type *t = floe_type_primitive(FLOE_TYPE_INT64);
    const char *yes[] = {"0", "7", "-7", "+7", "007", "-0", "9223372036854775807", "-9223372036854775808",
                         "1234567890123456789"};
    const char *no[] = {"", "-", "+", " 7", "7 ", "9223372036854775808", "-9223372036854775809",
                        "99999999999999999999", "1.0", "1e3", "0x10", "--1", "1-"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) assert_true(agree(yes[i], t));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) assert_false(agree(no[i], t));
    int64_t x;
    assert_true(floe_csv_fast_int64("-9223372036854775808", 20, &x));
    assert_true(x == INT64_MIN);
}

static void doubles_match_strtod(void **state) {
    (void)state;
    floe_type *t = floe_type_primitive(FLOE_TYPE_FLOAT64);
    const char *yes[] = {"0", "-0", "+0.0", "1", "-1.5", "+2.25", "77269.42", "0.08", ".5", "5.", "1e3", "1E-3",
                         "-2.5e+10", "123456789012345", "0.1", "0.3", "9007199254740992", "1e22", "1e-22",
                         "0.000000000000000000001", "00012.5000", "4299934900.920008"};
    const char *no[] = {"", "-", ".", "e3", "1e", "1e+", " 1", "1 ", "inf", "NaN", "Infinity", "0x1p3", "1.2.3",
                        "1e23", "1e-23", "9007199254740993", "12345678901234567890", "1,5", "--1"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!agree(yes[i], t)) fail_msg("fast path refused '%s'", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (agree(no[i], t)) fail_msg("fast path took '%s'", no[i]);
    double d;
    assert_true(floe_csv_fast_double("-0", 2, &d));
    assert_true(d == 0 && signbit(d));
    /* Random plain decimals: whenever the fast path takes one, strtod's
     * bits. */
    srand(14);
    char buf[64];
    int taken = 0;
    for (int k = 0; k < 200000; k++) {
        int ip = rand() % 12, fp = rand() % 10, ex = rand() % 4 == 0 ? rand() % 60 - 30 : 0;
        int m = 0;
        if (rand() % 2) buf[m++] = '-';
        for (int i = 0; i < ip; i++) buf[m++] = (char)('0' + rand() % 10);
        if (fp || !ip) {
            buf[m++] = '.';
            for (int i = 0; i < fp || (!ip && i == 0); i++) buf[m++] = (char)('0' + rand() % 10);
        }
        if (ex) m += snprintf(buf + m, sizeof buf - (size_t)m, "e%d", ex);
        buf[m] = 0;
        double a, b = strtod(buf, NULL);
        if (!floe_csv_fast_double(buf, (size_t)m, &a)) continue;
        taken++;
        if (memcmp(&a, &b, sizeof a) != 0) fail_msg("'%s': fast %.17g, strtod %.17g", buf, a, b);
    }
    assert_true(taken > 100000);
}

static void decimals_round_half_away_from_zero(void **state) {
    (void)state;
    floe_type *t = NULL;
    assert_ok(floe_type_decimal(10, 2, &t));
    const char *yes[] = {"0", "1", "-1", "+1", "12.3", "12.34", "12.345", "12.355", "-12.345", "-12.344",
                         "0.005", "-0.005", "0.004", "99999999.99", "-99999999.994", ".5", "5.", "007.10"};
    const char *no[] = {"", "-", ".", "1e3", " 1", "1 ", "100000000", "99999999.995", "-99999999.995", "1.2.3",
                        "abc", "NaN"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!agree(yes[i], t)) fail_msg("fast path refused '%s'", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (agree(no[i], t)) fail_msg("fast path took '%s'", no[i]);
    floe_decimal128 d;
    assert_true(floe_csv_fast_decimal("-12.345", 7, 10, 2, &d));
    assert_true(d.hi == -1 && (int64_t)d.lo == -1235);
    assert_true(floe_csv_fast_decimal("12.344", 6, 10, 2, &d));
    assert_true(d.hi == 0 && d.lo == 1234);
    floe_type_release(t);
    /* Wide: 38 digits. */
    assert_ok(floe_type_decimal(38, 0, &t));
    assert_true(agree("12345678901234567890123456789012345678", t));
    assert_false(agree("123456789012345678901234567890123456789", t));
    floe_type_release(t);
}

static void dates_and_timestamps(void **state) {
    (void)state;
    floe_type *d = floe_type_primitive(FLOE_TYPE_DATE32), *ts = floe_type_primitive(FLOE_TYPE_TIMESTAMP_US);
    const char *dyes[] = {"1970-01-01", "1969-12-31", "1900-03-01", "0001-01-01", "2000-02-29", "2024-02-29",
                          "9999-12-31", "1492-10-12"};
    const char *dno[] = {"1900-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "2024-1-01",
                         " 2024-01-01", "2024-01-01 ", "2024/01/01", "24-01-01", "+2024-01-01"};
    for (size_t i = 0; i < sizeof dyes / sizeof *dyes; i++)
        if (!agree(dyes[i], d)) fail_msg("fast path refused '%s'", dyes[i]);
    for (size_t i = 0; i < sizeof dno / sizeof *dno; i++)
        if (agree(dno[i], d)) fail_msg("fast path took '%s'", dno[i]);
    int32_t x;
    assert_true(floe_csv_fast_date("1969-12-31", 10, &x));
    assert_int_equal(x, -1);
    const char *tyes[] = {"2024-01-02 03:04:05", "2024-01-02T03:04:05", "2024-01-02t03:04", "1969-12-31 23:59:59.5",
                          "1900-01-01 00:00:00.000001", "2024-01-02 03:04:05.123456", "1960-06-30 12:00:00.25"};
    const char *tno[] = {"2024-01-02", "2024-01-02 03:04:05+02:00", "2024-01-02 03:04:05Z",
                         "2024-01-02 03:04:05.1234567", "2024-01-02 24:00:00", "2024-01-02 03:60:00",
                         "2024-01-02 03:04:05.", "2024-01-02 3:04:05", "2024-01-02  03:04:05", "2024-01-02 03:04:5"};
    for (size_t i = 0; i < sizeof tyes / sizeof *tyes; i++)
        if (!agree(tyes[i], ts)) fail_msg("fast path refused '%s'", tyes[i]);
    for (size_t i = 0; i < sizeof tno / sizeof *tno; i++)
        if (agree(tno[i], ts)) fail_msg("fast path took '%s'", tno[i]);
    int64_t u;
    assert_true(floe_csv_fast_timestamp("1969-12-31 23:59:59.5", 21, &u));
    assert_true(u == -500000);
}

static void booleans(void **state) {
    (void)state;
    floe_type *t = floe_type_primitive(FLOE_TYPE_BOOL);
    const char *yes[] = {"true", "TRUE", "t", "F", "false", "yes", "No", "on", "OFF", "1", "0", "y", "n"};
    const char *no[] = {"", "tru", "2", " t", "t ", "truee", "onn"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) assert_true(agree(yes[i], t));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) assert_false(agree(no[i], t));
}

static void byte_counts(void **state) {
    (void)state;
    uint8_t buf[1000];
    srand(3);
    for (int k = 0; k < 50; k++) {
        size_t n = (size_t)(rand() % 1000);
        for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(rand() % 4 == 0 ? '"' : rand() % 256);
        int64_t want = 0;
        for (size_t i = 0; i < n; i++) want += buf[i] == '"';
        assert_int_equal(floe_csv_count_byte(buf, n, '"'), want);
        want = 0;
        for (size_t i = 0; i < n; i++) want += buf[i] == 0xff;
        assert_int_equal(floe_csv_count_byte(buf, n, 0xff), want);
    }
    /* Past the 255-word blocks of per-byte counters. */
    size_t big = 100003;
    uint8_t *all = malloc(big);
    assert_non_null(all);
    memset(all, '\n', big);
    assert_int_equal(floe_csv_count_byte(all, big, '\n'), (int64_t)big);
    all[5000] = 'x';
    assert_int_equal(floe_csv_count_byte(all, big, '\n'), (int64_t)big - 1);
    assert_int_equal(floe_csv_count_byte(all, big, 'x'), 1);
    free(all);
}

FLOE_TEST_MAIN(cmocka_unit_test(integers), cmocka_unit_test(doubles_match_strtod),
               cmocka_unit_test(decimals_round_half_away_from_zero), cmocka_unit_test(dates_and_timestamps),
               cmocka_unit_test(booleans), cmocka_unit_test(byte_counts))
