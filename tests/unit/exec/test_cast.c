/*
 * test_cast.c — casts among text, dates, timestamps, decimals and booleans
 * (src/exec/cast.c) through CAST expressions.
 */
#include <string.h>

#include "exec_util.h"

/* Evaluate CAST(<text literal> AS to) and return the value as text. */
static floe_status cast_text(const char *text, floe_type *to, char *out, size_t cap) {
    floe_expr *lit = NULL, *c = NULL;
    floe_schema *empty = NULL;
    floe_batch *b = NULL;
    floe_array *v = NULL;
    floe_buf buf;
    floe_buf_init(&buf);
    floe_status st = floe_expr_lit_string(text, &lit);
    if (!st) st = floe_expr_cast(lit, to, &c);
    if (!st) st = floe_type_struct(NULL, 0, &empty);
    if (!st) st = floe_batch_new(empty, NULL, 0, 1, &b);
    if (!st) st = floe_expr_eval(c, b, &v);
    if (!st) st = floe_format_value(v, 0, &buf);
    if (!st) snprintf(out, cap, "%.*s", (int)buf.len, (const char *)buf.data);
    floe_buf_free(&buf);
    floe_array_release(v);
    floe_batch_release(b);
    floe_type_release(empty);
    floe_expr_release(c);
    floe_expr_release(lit);
    return st;
}

/* CAST(CAST(text AS via) AS to) as text. */
static void cast_via(const char *text, floe_type *via, floe_type *to, char *out, size_t cap) {
    floe_expr *lit, *c1, *c2;
    floe_schema *empty;
    floe_batch *b;
    floe_array *v;
    floe_buf buf;
    floe_buf_init(&buf);
    assert_ok(floe_expr_lit_string(text, &lit));
    assert_ok(floe_expr_cast(lit, via, &c1));
    assert_ok(floe_expr_cast(c1, to, &c2));
    assert_ok(floe_type_struct(NULL, 0, &empty));
    assert_ok(floe_batch_new(empty, NULL, 0, 1, &b));
    assert_ok(floe_expr_eval(c2, b, &v));
    assert_ok(floe_format_value(v, 0, &buf));
    snprintf(out, cap, "%.*s", (int)buf.len, (const char *)buf.data);
    floe_buf_free(&buf);
    floe_array_release(v);
    floe_batch_release(b);
    floe_type_release(empty);
    floe_expr_release(c2);
    floe_expr_release(c1);
    floe_expr_release(lit);
}

static floe_type *prim(floe_type_id id) { return floe_type_primitive(id); }

static void text_parses_to_dates_and_timestamps(void **state) {
    (void)state;
    char out[64];
    assert_ok(cast_text(" 2020-02-29 ", prim(FLOE_TYPE_DATE32), out, sizeof out));
    assert_string_equal(out, "2020-02-29");
    assert_ok(cast_text("2020-02-03 04:05:06", prim(FLOE_TYPE_TIMESTAMP_US), out, sizeof out));
    assert_non_null(strstr(out, "2020-02-03"));
    assert_non_null(strstr(out, "04:05:06"));
    /* A date alone is midnight. */
    assert_ok(cast_text("1969-12-31", prim(FLOE_TYPE_TIMESTAMP_US), out, sizeof out));
    assert_non_null(strstr(out, "1969-12-31"));
    assert_non_null(strstr(out, "00:00:00"));
    assert_error(cast_text("2020-02-30", prim(FLOE_TYPE_DATE32), out, sizeof out), FLOE_ERR_INVALID_ARGUMENT,
                 "2020-02-30");
    assert_error(cast_text("yesterday", prim(FLOE_TYPE_TIMESTAMP_US), out, sizeof out), FLOE_ERR_INVALID_ARGUMENT,
                 "yesterday");
}

static void timestamp_to_date_floors_before_the_epoch(void **state) {
    (void)state;
    char out[64];
    cast_via("1969-12-31 23:00:00", prim(FLOE_TYPE_TIMESTAMP_US), prim(FLOE_TYPE_DATE32), out, sizeof out);
    assert_string_equal(out, "1969-12-31");
    cast_via("2001-01-01 00:00:00", prim(FLOE_TYPE_TIMESTAMP_NS), prim(FLOE_TYPE_DATE32), out, sizeof out);
    assert_string_equal(out, "2001-01-01");
    cast_via("2001-01-02", prim(FLOE_TYPE_DATE32), prim(FLOE_TYPE_TIMESTAMP_US_TZ), out, sizeof out);
    assert_non_null(strstr(out, "2001-01-02"));
}

static void decimals_round_half_away_from_zero_and_check_precision(void **state) {
    (void)state;
    char out[64];
    floe_type *d51, *d30, *d21;
    assert_ok(floe_type_decimal(5, 1, &d51));
    assert_ok(floe_type_decimal(3, 0, &d30));
    assert_ok(floe_type_decimal(2, 1, &d21));
    cast_via("12.35", prim(FLOE_TYPE_FLOAT64), d51, out, sizeof out);
    assert_string_equal(out, "12.4");
    floe_type *d62;
    assert_ok(floe_type_decimal(6, 2, &d62));
    cast_via("-2.50", d62, d30, out, sizeof out);
    assert_string_equal(out, "-3");
    cast_via("2.5", d21, prim(FLOE_TYPE_INT32), out, sizeof out);
    assert_string_equal(out, "3");
    cast_via("-2.5", d21, prim(FLOE_TYPE_INT64), out, sizeof out);
    assert_string_equal(out, "-3");
    /* 1234.5 does not fit decimal(3, 0) */
    assert_error(cast_text("1234.5", d30, out, sizeof out), FLOE_ERR_INVALID_ARGUMENT, "");
    floe_type_release(d51);
    floe_type_release(d30);
    floe_type_release(d21);
    floe_type_release(d62);
}

static void text_and_integers_cast_to_bool(void **state) {
    (void)state;
    char out[64];
    assert_ok(cast_text(" YES", prim(FLOE_TYPE_BOOL), out, sizeof out));
    assert_string_equal(out, "true");
    assert_ok(cast_text("off", prim(FLOE_TYPE_BOOL), out, sizeof out));
    assert_string_equal(out, "false");
    assert_error(cast_text("maybe", prim(FLOE_TYPE_BOOL), out, sizeof out), FLOE_ERR_INVALID_ARGUMENT, "maybe");
    cast_via("7", prim(FLOE_TYPE_INT32), prim(FLOE_TYPE_BOOL), out, sizeof out);
    assert_string_equal(out, "true");
}

FLOE_TEST_MAIN(cmocka_unit_test(text_parses_to_dates_and_timestamps),
               cmocka_unit_test(timestamp_to_date_floors_before_the_epoch),
               cmocka_unit_test(decimals_round_half_away_from_zero_and_check_precision),
               cmocka_unit_test(text_and_integers_cast_to_bool))
