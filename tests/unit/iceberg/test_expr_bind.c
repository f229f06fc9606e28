/* Binding expressions to a schema: names (nested, case-insensitive, with
 * "did you mean" errors), every literal conversion of the spec / Iceberg
 * Java (including out-of-range literals that fold to true/false), set
 * normalisation, required-column folding, simplification and NOT push-down. */
#include <math.h>

#include "floe_test.h"

#include "floe/iceberg_expr.h"
#include "floe/memory.h"

static floe_ice_schema *schema(void) {
    const char *json =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"i\",\"required\":false,\"type\":\"int\"},"
        "{\"id\":2,\"name\":\"l\",\"required\":false,\"type\":\"long\"},"
        "{\"id\":3,\"name\":\"f\",\"required\":false,\"type\":\"float\"},"
        "{\"id\":4,\"name\":\"d\",\"required\":false,\"type\":\"double\"},"
        "{\"id\":5,\"name\":\"dec\",\"required\":false,\"type\":\"decimal(9,2)\"},"
        "{\"id\":6,\"name\":\"s\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":7,\"name\":\"dt\",\"required\":false,\"type\":\"date\"},"
        "{\"id\":8,\"name\":\"t\",\"required\":false,\"type\":\"time\"},"
        "{\"id\":9,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
        "{\"id\":10,\"name\":\"tstz\",\"required\":false,\"type\":\"timestamptz\"},"
        "{\"id\":11,\"name\":\"tsn\",\"required\":false,\"type\":\"timestamp_ns\"},"
        "{\"id\":12,\"name\":\"u\",\"required\":false,\"type\":\"uuid\"},"
        "{\"id\":13,\"name\":\"fx\",\"required\":false,\"type\":\"fixed[3]\"},"
        "{\"id\":14,\"name\":\"bin\",\"required\":false,\"type\":\"binary\"},"
        "{\"id\":15,\"name\":\"bo\",\"required\":false,\"type\":\"boolean\"},"
        "{\"id\":16,\"name\":\"req\",\"required\":true,\"type\":\"int\"},"
        "{\"id\":17,\"name\":\"Loc\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
        "  {\"id\":18,\"name\":\"Lat\",\"required\":true,\"type\":\"double\"}]}},"
        "{\"id\":19,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":20,"
        "  \"element\":\"string\",\"element-required\":true}},"
        "{\"id\":21,\"name\":\"quantity\",\"required\":false,\"type\":\"int\"},"
        "{\"id\":22,\"name\":\"rs\",\"required\":true,\"type\":{\"type\":\"struct\",\"fields\":["
        "  {\"id\":23,\"name\":\"x\",\"required\":true,\"type\":\"int\"}]}}"
        "]}";
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(json, &s));
    return s;
}

/* Bind `e` (consumed) and return the printed result. */
static char *bind_str(floe_ice_expr *e, bool cs) {
    floe_ice_schema *s = schema();
    floe_ice_expr *b = NULL;
    assert_non_null(e);
    assert_ok(floe_ice_expr_bind(e, s, cs, &b));
    assert_true(floe_ice_expr_is_bound(b));
    char *text = NULL;
    assert_ok(floe_ice_expr_to_string(b, &text));
    floe_ice_expr_free(b);
    floe_ice_expr_free(e);
    floe_ice_schema_free(s);
    return text;
}

static void expect_bind(floe_ice_expr *e, const char *want) {
    char *got = bind_str(e, true);
    if (strcmp(got, want) != 0) fail_msg("bound to '%s', expected '%s'", got, want);
    floe_free(got);
}

static void expect_bind_error(floe_ice_expr *e, floe_code code, const char *substr) {
    floe_ice_schema *s = schema();
    floe_ice_expr *b = NULL;
    assert_non_null(e);
    assert_error(floe_ice_expr_bind(e, s, true, &b), code, substr);
    assert_null(b);
    floe_ice_expr_free(e);
    floe_ice_schema_free(s);
}

static floe_ice_expr *lit(floe_ice_expr_op op, const char *col, floe_ice_value v) {
    return floe_ice_expr_literal(op, col, &v);
}

static void names_resolve_to_field_ids(void **state) {
    (void)state;
    floe_ice_schema *s = schema();
    floe_ice_expr *e = lit(FLOE_ICE_EXPR_GT, "loc.lat", floe_ice_double(1.5)), *b = NULL;
    assert_error(floe_ice_expr_bind(e, s, true, &b), FLOE_ERR_NOT_FOUND, "unknown column 'loc.lat'");
    assert_error(floe_ice_expr_bind(e, s, true, &b), FLOE_ERR_NOT_FOUND, "did you mean 'Loc.Lat'");
    assert_ok(floe_ice_expr_bind(e, s, false, &b));
    assert_int_equal(b->field_id, 18);
    assert_string_equal(b->name, "Loc.Lat");
    assert_int_equal(b->field_type->id, FLOE_ICE_DOUBLE);
    assert_false(b->in_collection);
    floe_ice_expr_free(b);
    floe_ice_expr_free(e);

    e = lit(FLOE_ICE_EXPR_EQ, "tags.element", floe_ice_string_z("x"));
    assert_ok(floe_ice_expr_bind(e, s, true, &b));
    assert_int_equal(b->field_id, 20);
    assert_true(b->in_collection);
    floe_ice_expr_free(b);
    floe_ice_expr_free(e);

    e = lit(FLOE_ICE_EXPR_LT, "quantty", floe_ice_int(1));
    assert_error(floe_ice_expr_bind(e, s, true, &b), FLOE_ERR_NOT_FOUND,
                 "unknown column 'quantty' (did you mean 'quantity'?)");
    floe_ice_expr_free(e);
    e = lit(FLOE_ICE_EXPR_LT, "zzzzzz", floe_ice_int(1));
    assert_error(floe_ice_expr_bind(e, s, true, &b), FLOE_ERR_NOT_FOUND, "unknown column 'zzzzzz'");
    floe_ice_expr_free(e);
    floe_ice_schema_free(s);

    expect_bind_error(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "Loc"), FLOE_ERR_TYPE, "column 'Loc' is a struct");
    /* an unknown column deep inside a tree is still reported */
    expect_bind_error(floe_ice_expr_and(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "i"),
                                        floe_ice_expr_not(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "nope"))),
                      FLOE_ERR_NOT_FOUND, "unknown column 'nope'");
}

static void integer_literals_widen_and_fold_out_of_range(void **state) {
    (void)state;
    expect_bind(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_int(5)), "i < 5");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_long(5)), "i < 5");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "l", floe_ice_int(5)), "l < 5");
    /* a long beyond int range: Java's aboveMax / belowMin */
    int64_t big = INT64_C(3000000000);
    expect_bind(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_long(big)), "true");
    expect_bind(lit(FLOE_ICE_EXPR_LT_EQ, "i", floe_ice_long(big)), "true");
    expect_bind(lit(FLOE_ICE_EXPR_GT, "i", floe_ice_long(big)), "false");
    expect_bind(lit(FLOE_ICE_EXPR_GT_EQ, "i", floe_ice_long(big)), "false");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_long(big)), "false");
    expect_bind(lit(FLOE_ICE_EXPR_NOT_EQ, "i", floe_ice_long(big)), "true");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_long(-big)), "false");
    expect_bind(lit(FLOE_ICE_EXPR_GT_EQ, "i", floe_ice_long(-big)), "true");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_long(INT32_MAX)), "i < 2147483647");
    /* ints and longs to floating point and decimal */
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "f", floe_ice_int(3)), "f == 3.0");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "d", floe_ice_long(-3)), "d == -3.0");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_int(3)), "dec == 3.00");
    /* beyond decimal(9,2): 10^7 needs 10 digits */
    expect_bind(lit(FLOE_ICE_EXPR_LT, "dec", floe_ice_long(10000000)), "true");
    expect_bind(lit(FLOE_ICE_EXPR_GT, "dec", floe_ice_long(-10000000)), "true");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_long(INT64_MAX)), "false");
    /* ints to dates; longs to times and timestamps */
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "dt", floe_ice_int(-1)), "dt == \"1969-12-31\"");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "t", floe_ice_long(1000000)), "t == \"00:00:01.000000\"");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "ts", floe_ice_long(-1)), "ts == \"1969-12-31T23:59:59.999999\"");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "tsn", floe_ice_long(1)), "tsn == \"1970-01-01T00:00:00.000000001\"");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "s", floe_ice_int(1)), FLOE_ERR_TYPE, "column 's'");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "bo", floe_ice_int(1)), FLOE_ERR_TYPE, "cannot convert");
}

static void float_literals_convert(void **state) {
    (void)state;
    expect_bind(lit(FLOE_ICE_EXPR_LT, "d", floe_ice_float(1.5f)), "d < 1.5");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "f", floe_ice_double(1.5)), "f < 1.5");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "f", floe_ice_double(1e300)), "true");
    expect_bind(lit(FLOE_ICE_EXPR_GT, "f", floe_ice_double(1e300)), "false");
    expect_bind(lit(FLOE_ICE_EXPR_GT, "f", floe_ice_double(-1e300)), "true");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "f", floe_ice_double(INFINITY)), "f < Infinity");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_double(1.005)), "dec == 1.00"); /* 1.005 is 1.00499... */
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_double(-2.5)), "dec == -2.50");
    expect_bind_error(lit(FLOE_ICE_EXPR_LT, "d", floe_ice_double(NAN)), FLOE_ERR_TYPE, "use is_nan");
    expect_bind_error(lit(FLOE_ICE_EXPR_LT, "i", floe_ice_double(1.0)), FLOE_ERR_TYPE, "cannot convert");
    expect_bind_error(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NAN, "i"), FLOE_ERR_TYPE, "only float and double");
    expect_bind(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NAN, "f"), "f is_nan");
}

static void decimal_literals_need_the_column_scale(void **state) {
    (void)state;
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_decimal(1420, 2)), "dec == 14.20");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_decimal(142, 1)), FLOE_ERR_TYPE, "scale 1");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "dec", floe_ice_decimal(1000000000, 2)), "true"); /* 10 digits > 9 */
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_string_z("-14.20")), "dec == -14.20");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_string_z("14.2")), FLOE_ERR_TYPE, "exactly 2");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_string_z("14.200")), FLOE_ERR_TYPE, "exactly 2");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "dec", floe_ice_string_z("abc")), FLOE_ERR_TYPE, "literal 'abc'");
}

static void string_literals_parse_to_temporal_and_uuid(void **state) {
    (void)state;
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "s", floe_ice_string_z("x")), "s == \"x\"");
    expect_bind(lit(FLOE_ICE_EXPR_GT_EQ, "dt", floe_ice_string_z("2017-11-16")), "dt >= \"2017-11-16\"");
    expect_bind(lit(FLOE_ICE_EXPR_GT_EQ, "t", floe_ice_string_z("22:31:08")), "t >= \"22:31:08.000000\"");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "ts", floe_ice_string_z("2017-11-16T22:31:08")),
                "ts < \"2017-11-16T22:31:08.000000\"");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "tstz", floe_ice_string_z("2017-11-16T14:31:08-08:00")),
                "tstz < \"2017-11-16T22:31:08.000000+00:00\"");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "tsn", floe_ice_string_z("1969-12-31T23:59:59.999999999")),
                "tsn < \"1969-12-31T23:59:59.999999999\"");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "u", floe_ice_string_z("f79c3e09-677c-4bbd-a479-3f349cb785e7")),
                "u == \"f79c3e09-677c-4bbd-a479-3f349cb785e7\"");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "u", floe_ice_string_z("not-a-uuid")), FLOE_ERR_INVALID_ARGUMENT,
                      "column 'u'");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "dt", floe_ice_string_z("2017-13-01")), FLOE_ERR_INVALID_ARGUMENT,
                      "2017-13-01");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "bo", floe_ice_string_z("true")), FLOE_ERR_TYPE, "cannot convert");
}

static void temporal_literals_convert_between_units(void **state) {
    (void)state;
    /* date -> timestamp at midnight; timestamp -> date floors (Java) */
    expect_bind(lit(FLOE_ICE_EXPR_GT, "ts", floe_ice_date(1)), "ts > \"1970-01-02T00:00:00.000000\"");
    expect_bind(lit(FLOE_ICE_EXPR_GT, "tsn", floe_ice_date(-1)), "tsn > \"1969-12-31T00:00:00.000000000\"");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "dt", floe_ice_timestamp(-86400000000)), "dt == \"1969-12-31\"");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "tstz", floe_ice_timestamp(0)), "tstz == \"1970-01-01T00:00:00.000000+00:00\"");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "tsn", floe_ice_timestamp(-1)), "tsn == \"1969-12-31T23:59:59.999999000\"");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "ts", floe_ice_timestamp_ns(-1000)), "ts == \"1969-12-31T23:59:59.999999\"");
    /* micros beyond the nanosecond range fold */
    expect_bind(lit(FLOE_ICE_EXPR_LT, "tsn", floe_ice_timestamp(INT64_MAX / 10)), "true");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "tsn", floe_ice_timestamp(INT64_MIN / 10)), "false");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "t", floe_ice_timestamp(0)), FLOE_ERR_TYPE, "cannot convert");
}

static void rounded_literals_keep_predicates_exact(void **state) {
    (void)state;
    /* 1500 ns on a microsecond column: x < 1.5 µs is x <= 1 µs */
    const char *one = "\"1970-01-01T00:00:00.000001\"";
    char want[128];
    snprintf(want, sizeof want, "ts <= %s", one);
    expect_bind(lit(FLOE_ICE_EXPR_LT, "ts", floe_ice_timestamp_ns(1500)), want);
    expect_bind(lit(FLOE_ICE_EXPR_LT_EQ, "ts", floe_ice_timestamp_ns(1500)), want);
    snprintf(want, sizeof want, "ts > %s", one);
    expect_bind(lit(FLOE_ICE_EXPR_GT, "ts", floe_ice_timestamp_ns(1500)), want);
    expect_bind(lit(FLOE_ICE_EXPR_GT_EQ, "ts", floe_ice_timestamp_ns(1500)), want);
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "ts", floe_ice_timestamp_ns(1500)), "false");
    expect_bind(lit(FLOE_ICE_EXPR_NOT_EQ, "ts", floe_ice_timestamp_ns(1500)), "true");
    snprintf(want, sizeof want, "ts < %s", one);
    expect_bind(lit(FLOE_ICE_EXPR_LT, "ts", floe_ice_timestamp_ns(1000)), want);
    /* an instant on a date column: dates are midnights */
    expect_bind(lit(FLOE_ICE_EXPR_LT, "dt", floe_ice_timestamp(-1)), "dt <= \"1969-12-31\"");
    expect_bind(lit(FLOE_ICE_EXPR_GT_EQ, "dt", floe_ice_timestamp(-1)), "dt > \"1969-12-31\"");
    expect_bind(lit(FLOE_ICE_EXPR_LT, "dt", floe_ice_timestamp(0)), "dt < \"1970-01-01\"");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "dt", floe_ice_timestamp_ns(-1)), "false");
    /* doubles on a float column: 0.1f is just above 0.1 */
    expect_bind(lit(FLOE_ICE_EXPR_LT_EQ, "f", floe_ice_double(0.1)), "f < 0.1");
    expect_bind(lit(FLOE_ICE_EXPR_GT, "f", floe_ice_double(0.1)), "f >= 0.1");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "f", floe_ice_double(0.1)), "false");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "f", floe_ice_double(0.5)), "f == 0.5");
    /* sets drop values no column value can equal */
    floe_ice_value v[] = {floe_ice_timestamp_ns(1500), floe_ice_timestamp_ns(2000), floe_ice_timestamp_ns(7)};
    snprintf(want, sizeof want, "ts == %s", "\"1970-01-01T00:00:00.000002\"");
    expect_bind(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "ts", v, 3), want);
    expect_bind(floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "ts", v, 1), "true");
    /* a long beyond a float's exact range */
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "f", floe_ice_long(16777217)), "false");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "d", floe_ice_long(16777217)), "d == 1.6777217E7");
}

/* Exact truth of `v op lit` with both as long doubles / 128-bit numbers. */
static bool truth(floe_ice_expr_op op, long double v, long double lit) {
    switch (op) {
    case FLOE_ICE_EXPR_LT: return v < lit;
    case FLOE_ICE_EXPR_LT_EQ: return v <= lit;
    case FLOE_ICE_EXPR_GT: return v > lit;
    case FLOE_ICE_EXPR_GT_EQ: return v >= lit;
    case FLOE_ICE_EXPR_EQ: return v == lit;
    default: return v != lit;
    }
}

/* Brute force: for cross-type literals, the bound predicate answers every
 * row exactly as the comparison of the original numbers would. */
static void converted_literals_compare_exactly(void **state) {
    (void)state;
    floe_ice_schema *s = schema();
    static const floe_ice_expr_op ops[] = {FLOE_ICE_EXPR_LT, FLOE_ICE_EXPR_LT_EQ, FLOE_ICE_EXPR_GT,
                                           FLOE_ICE_EXPR_GT_EQ, FLOE_ICE_EXPR_EQ, FLOE_ICE_EXPR_NOT_EQ};
    static const long double day_us = 86400000000.0L;
    for (int kind = 0; kind < 4; kind++) {
        for (int li = 0; li < 40; li++) {
            floe_ice_value l;
            const char *col;
            int32_t id;
            long double lv;
            if (kind == 0) { /* ns literal, µs column */
                int64_t x = (li - 20) * 250;
                l = floe_ice_timestamp_ns(x), col = "ts", id = 9, lv = (long double)x;
            } else if (kind == 1) { /* µs literal, date column */
                int64_t x = (int64_t)((li - 20) / 4) * 86400000000LL + ((li % 4) - 1);
                l = floe_ice_timestamp(x), col = "dt", id = 7, lv = (long double)x / day_us;
            } else if (kind == 2) { /* double literal, float column */
                double x = (li - 20) * 0.1;
                l = floe_ice_double(x), col = "f", id = 3, lv = x;
            } else { /* long literal, int column */
                int64_t x = li < 20 ? (int64_t)INT32_MIN + (li - 10) : (int64_t)INT32_MAX + (li - 30);
                l = floe_ice_long(x), col = "i", id = 1, lv = (long double)x;
            }
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                floe_ice_expr *e = floe_ice_expr_literal(ops[o], col, &l), *b = NULL;
                assert_ok(floe_ice_expr_bind(e, s, true, &b));
                for (int vi = -30; vi <= 30; vi++) {
                    floe_ice_value v;
                    long double vv;
                    if (kind == 0) v = floe_ice_timestamp(vi / 4), vv = (long double)(vi / 4) * 1000;
                    else if (kind == 1) v = floe_ice_date(vi / 8), vv = vi / 8;
                    else if (kind == 2) {
                        float f = (float)((vi / 2) * 0.1);
                        if (vi & 1) f = nextafterf(f, 10.0f);
                        v = floe_ice_float(f), vv = f;
                    } else {
                        int64_t x = vi < 0 ? (int64_t)INT32_MIN + (vi + 30) : (int64_t)INT32_MAX - vi;
                        v = floe_ice_int((int32_t)x), vv = (long double)x;
                    }
                    floe_ice_row row = {1, &id, &v};
                    bool want = truth(ops[o], vv, lv);
                    if (floe_ice_expr_eval_row(b, &row) != want) {
                        char *t = NULL;
                        assert_ok(floe_ice_expr_to_string(b, &t));
                        fail_msg("kind %d: %s on %Lg should be %d", kind, t, vv, want);
                    }
                }
                floe_ice_expr_free(b);
                floe_ice_expr_free(e);
            }
        }
    }
    floe_ice_schema_free(s);
}

static void bytes_literals_check_lengths(void **state) {
    (void)state;
    const uint8_t abc[] = {1, 2, 0xff};
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "fx", floe_ice_fixed(abc, 3)), "fx == 0102ff");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "fx", floe_ice_binary(abc, 3)), "fx == 0102ff");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "bin", floe_ice_fixed(abc, 2)), "bin == 0102");
    expect_bind_error(lit(FLOE_ICE_EXPR_EQ, "fx", floe_ice_binary(abc, 2)), FLOE_ERR_TYPE, "fixed[3]");
    expect_bind(lit(FLOE_ICE_EXPR_EQ, "bo", floe_ice_bool(true)), "bo == true");
    expect_bind_error(lit(FLOE_ICE_EXPR_STARTS_WITH, "bin", floe_ice_binary(abc, 1)), FLOE_ERR_TYPE,
                      "needs a string column");
}

static void sets_are_sorted_deduplicated_and_folded(void **state) {
    (void)state;
    floe_ice_value v[] = {floe_ice_int(5), floe_ice_long(INT64_C(9000000000)), floe_ice_int(-3), floe_ice_long(5)};
    expect_bind(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", v, 4), "i in (-3, 5)");
    expect_bind(floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "i", v, 4), "i not_in (-3, 5)");
    expect_bind(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", v, 1), "i == 5");
    expect_bind(floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "i", v + 3, 1), "i != 5");
    expect_bind(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", v + 1, 1), "false");
    expect_bind(floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "i", v + 1, 1), "true");
    expect_bind(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", NULL, 0), "false");
    floe_ice_value n = floe_ice_null(FLOE_ICE_INT);
    expect_bind_error(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", &n, 1), FLOE_ERR_TYPE, "null literal");
    /* many values */
    floe_ice_value many[300];
    for (int k = 0; k < 300; k++) many[k] = floe_ice_int(299 - k);
    char *s = bind_str(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "i", many, 300), true);
    assert_true(strncmp(s, "i in (0, 1, 2, ", 15) == 0);
    floe_free(s);
}

static void required_columns_fold_null_checks(void **state) {
    (void)state;
    expect_bind(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "req"), "false");
    expect_bind(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, "req"), "true");
    expect_bind(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "rs.x"), "false");
    /* required inside an optional struct can still be null */
    expect_bind(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "Loc.Lat"), "Loc.Lat is_null");
    expect_bind(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "tags.element"), "tags.element is_null");
    expect_bind(floe_ice_expr_and(floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, "req"),
                                  lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(1))),
                "i == 1");
    expect_bind(floe_ice_expr_or(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "req"),
                                 floe_ice_expr_not(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(1)))),
                "not(i == 1)");
}

static void constructors_simplify(void **state) {
    (void)state;
    floe_ice_expr *x = lit(FLOE_ICE_EXPR_EQ, "a", floe_ice_int(1));
    floe_ice_expr *e = floe_ice_expr_and(floe_ice_expr_true(), x);
    assert_ptr_equal(e, x);
    e = floe_ice_expr_or(e, floe_ice_expr_false());
    assert_ptr_equal(e, x);
    e = floe_ice_expr_not(floe_ice_expr_not(e));
    assert_ptr_equal(e, x);
    e = floe_ice_expr_and(e, floe_ice_expr_false());
    assert_int_equal(e->op, FLOE_ICE_EXPR_FALSE);
    e = floe_ice_expr_not(e);
    assert_int_equal(e->op, FLOE_ICE_EXPR_TRUE);
    e = floe_ice_expr_or(lit(FLOE_ICE_EXPR_EQ, "a", floe_ice_int(1)), e);
    assert_int_equal(e->op, FLOE_ICE_EXPR_TRUE);
    floe_ice_expr_free(e);
    /* NULL children (out of memory) propagate, freeing the other side */
    assert_null(floe_ice_expr_and(NULL, lit(FLOE_ICE_EXPR_EQ, "a", floe_ice_int(1))));
    assert_null(floe_ice_expr_unary(FLOE_ICE_EXPR_LT, "a")); /* wrong arity */
}

static void not_is_pushed_to_the_leaves(void **state) {
    (void)state;
    floe_ice_value v[] = {floe_ice_int(1), floe_ice_int(2)};
    floe_ice_expr *e = floe_ice_expr_not(floe_ice_expr_and(
        floe_ice_expr_or(lit(FLOE_ICE_EXPR_LT, "a", floe_ice_int(1)), floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "b")),
        floe_ice_expr_and(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "c", v, 2),
                          floe_ice_expr_not(lit(FLOE_ICE_EXPR_STARTS_WITH, "d", floe_ice_string_z("x"))))));
    floe_ice_expr *r = NULL;
    assert_ok(floe_ice_expr_rewrite_not(e, &r));
    char *s = NULL;
    assert_ok(floe_ice_expr_to_string(r, &s));
    assert_string_equal(s, "((a >= 1 and b not_null) or (c not_in (1, 2) or d starts_with \"x\"))");
    floe_free(s);
    assert_ok(floe_ice_expr_to_string(e, &s));
    assert_string_equal(s, "not(((a < 1 or b is_null) and (c in (1, 2) and not(d starts_with \"x\"))))");
    floe_free(s);
    floe_ice_expr *c = floe_ice_expr_copy(e);
    assert_true(floe_ice_expr_equals(c, e));
    assert_false(floe_ice_expr_equals(c, r));
    floe_ice_expr_free(c);
    floe_ice_expr_free(r);
    floe_ice_expr_free(e);
}

static void bound_expressions_list_their_fields(void **state) {
    (void)state;
    floe_ice_schema *s = schema();
    floe_ice_expr *e = floe_ice_expr_and(
        floe_ice_expr_or(lit(FLOE_ICE_EXPR_LT, "s", floe_ice_string_z("x")), floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, "i")),
        floe_ice_expr_not(floe_ice_expr_and(lit(FLOE_ICE_EXPR_EQ, "i", floe_ice_int(1)),
                                            lit(FLOE_ICE_EXPR_GT, "Loc.Lat", floe_ice_double(2)))));
    floe_ice_expr *b = NULL;
    int32_t *ids = NULL, n = -1;
    assert_error(floe_ice_expr_field_ids(e, &ids, &n), FLOE_ERR_INVALID_ARGUMENT, "not bound");
    assert_ok(floe_ice_expr_bind(e, s, true, &b));
    assert_ok(floe_ice_expr_field_ids(b, &ids, &n));
    assert_int_equal(n, 3);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], 6);
    assert_int_equal(ids[2], 18);
    floe_free(ids);
    floe_ice_expr_free(b);
    floe_ice_expr_free(e);
    b = floe_ice_expr_true();
    assert_ok(floe_ice_expr_field_ids(b, &ids, &n));
    assert_int_equal(n, 0);
    assert_null(ids);
    floe_ice_expr_free(b);
    floe_ice_schema_free(s);
}

static void bound_evaluation_matches_literal_semantics(void **state) {
    (void)state;
    /* i < 3000000000 (long) on an int column is true for every non-null
     * int; the row evaluator agrees after binding. */
    floe_ice_schema *s = schema();
    floe_ice_expr *e = lit(FLOE_ICE_EXPR_LT, "ts", floe_ice_string_z("1970-01-01T00:00:00")), *b = NULL;
    assert_ok(floe_ice_expr_bind(e, s, true, &b));
    int32_t ids[] = {9};
    floe_ice_value vals[] = {floe_ice_timestamp(-1)};
    floe_ice_row row = {1, ids, vals};
    assert_true(floe_ice_expr_eval_row(b, &row));
    vals[0] = floe_ice_timestamp(0);
    assert_false(floe_ice_expr_eval_row(b, &row));
    vals[0] = floe_ice_null(FLOE_ICE_TIMESTAMP);
    assert_false(floe_ice_expr_eval_row(b, &row));
    floe_ice_expr_free(b);
    floe_ice_expr_free(e);
    /* -0.0 equals 0.0; NaN matches nothing but not_eq */
    e = lit(FLOE_ICE_EXPR_EQ, "d", floe_ice_double(0.0));
    assert_ok(floe_ice_expr_bind(e, s, true, &b));
    ids[0] = 4;
    vals[0] = floe_ice_double(-0.0);
    assert_true(floe_ice_expr_eval_row(b, &row));
    vals[0] = floe_ice_double(NAN);
    assert_false(floe_ice_expr_eval_row(b, &row));
    floe_ice_expr *n = floe_ice_expr_not(floe_ice_expr_copy(b));
    assert_true(floe_ice_expr_eval_row(n, &row));
    floe_ice_expr_free(n);
    floe_ice_expr_free(b);
    floe_ice_expr_free(e);
    floe_ice_schema_free(s);
}

FLOE_TEST_MAIN(cmocka_unit_test(names_resolve_to_field_ids),
               cmocka_unit_test(integer_literals_widen_and_fold_out_of_range),
               cmocka_unit_test(float_literals_convert), cmocka_unit_test(decimal_literals_need_the_column_scale),
               cmocka_unit_test(string_literals_parse_to_temporal_and_uuid),
               cmocka_unit_test(temporal_literals_convert_between_units),
               cmocka_unit_test(rounded_literals_keep_predicates_exact),
               cmocka_unit_test(converted_literals_compare_exactly),
               cmocka_unit_test(bytes_literals_check_lengths),
               cmocka_unit_test(sets_are_sorted_deduplicated_and_folded),
               cmocka_unit_test(required_columns_fold_null_checks), cmocka_unit_test(constructors_simplify),
               cmocka_unit_test(not_is_pushed_to_the_leaves),
               cmocka_unit_test(bound_expressions_list_their_fields),
               cmocka_unit_test(bound_evaluation_matches_literal_semantics))
