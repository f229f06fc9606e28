/* Expression JSON: exact round trips (encode -> decode -> encode identical
 * and structurally equal) for unbound literals of every type and for bound
 * trees, REST-catalog style input without value types, and clear errors on
 * malformed documents. */
#include "floe_test.h"

#include "floe/iceberg_expr.h"
#include "floe/memory.h"

static void round_trip(const floe_ice_expr *e) {
    char *a = NULL, *b = NULL;
    floe_ice_expr *back = NULL;
    assert_ok(floe_ice_expr_to_json_text(e, &a));
    assert_ok(floe_ice_expr_from_json_text(a, &back));
    assert_ok(floe_ice_expr_to_json_text(back, &b));
    if (strcmp(a, b) != 0) fail_msg("JSON changed on round trip:\n%s\n%s", a, b);
    if (!floe_ice_expr_equals(e, back)) fail_msg("decoded expression differs: %s", a);
    floe_free(a);
    floe_free(b);
    floe_ice_expr_free(back);
}

static floe_ice_expr *lit(floe_ice_expr_op op, const char *col, floe_ice_value v) {
    return floe_ice_expr_literal(op, col, &v);
}

static void unbound_literals_of_every_type_round_trip(void **state) {
    (void)state;
    const uint8_t bytes[] = {0, 1, 0xff};
    const uint8_t u[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
    floe_ice_value vals[] = {
        floe_ice_bool(true),          floe_ice_int(-7),          floe_ice_long(INT64_MIN),
        floe_ice_float(1.5f),         floe_ice_double(-2.25),    floe_ice_decimal(-1420, 2),
        floe_ice_date(-1),            floe_ice_time(1),          floe_ice_timestamp(-1),
        floe_ice_timestamptz(123),    floe_ice_timestamp_ns(-1), floe_ice_timestamptz_ns(5),
        floe_ice_string_z("a\"b\\é"), floe_ice_uuid(u),          floe_ice_fixed(bytes, 3),
        floe_ice_binary(bytes, 3),    floe_ice_long(5),          floe_ice_decimal(5, -2),
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        floe_ice_expr *e = lit(FLOE_ICE_EXPR_LT_EQ, "a.b", vals[i]);
        round_trip(e);
        floe_ice_expr_free(e);
        e = floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, "c", &vals[i], 1);
        round_trip(e);
        floe_ice_expr_free(e);
    }
    floe_ice_value set[] = {floe_ice_int(3), floe_ice_int(1), floe_ice_int(3)};
    floe_ice_expr *e = floe_ice_expr_and(
        floe_ice_expr_not(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "x", set, 3)),
        floe_ice_expr_or(floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NAN, "f"),
                         lit(FLOE_ICE_EXPR_NOT_STARTS_WITH, "s", floe_ice_string_z("ab"))));
    round_trip(e);
    char *text = NULL;
    assert_ok(floe_ice_expr_to_json_text(e, &text));
    assert_non_null(strstr(text, "not-starts-with"));
    floe_free(text);
    floe_ice_expr_free(e);
    e = floe_ice_expr_true();
    round_trip(e);
    floe_ice_expr_free(e);
}

static void bound_expressions_round_trip(void **state) {
    (void)state;
    const char *json =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"dec\",\"required\":false,\"type\":\"decimal(9,2)\"},"
        "{\"id\":2,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
        "{\"id\":3,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":4,"
        "  \"element\":\"string\",\"element-required\":true}},"
        "{\"id\":5,\"name\":\"fx\",\"required\":false,\"type\":\"fixed[2]\"}]}";
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(json, &s));
    const uint8_t two[] = {0xab, 0xcd};
    floe_ice_value decs[] = {floe_ice_string_z("1.25"), floe_ice_decimal(-5, 2), floe_ice_int(7)};
    floe_ice_expr *e = floe_ice_expr_and(
        floe_ice_expr_and(floe_ice_expr_set(FLOE_ICE_EXPR_IN, "dec", decs, 3),
                          lit(FLOE_ICE_EXPR_GT, "ts", floe_ice_string_z("1969-12-31T23:00:00-01:00"))),
        floe_ice_expr_or(lit(FLOE_ICE_EXPR_STARTS_WITH, "tags.element", floe_ice_string_z("x")),
                         lit(FLOE_ICE_EXPR_NOT_EQ, "fx", floe_ice_binary(two, 2))));
    floe_ice_expr *b = NULL;
    assert_ok(floe_ice_expr_bind(e, s, true, &b));
    round_trip(b);
    char *text = NULL;
    assert_ok(floe_ice_expr_to_json_text(b, &text));
    assert_non_null(strstr(text, "\"field-type\":\"decimal(9,2)\",\"values\":[\"-0.05\",\"1.25\",\"7.00\"]"));
    assert_non_null(strstr(text, "\"in-collection\":true"));
    floe_free(text);
    floe_ice_expr_free(b);
    floe_ice_expr_free(e);
    floe_ice_schema_free(s);
}

static void rest_style_json_parses(void **state) {
    (void)state;
    floe_ice_expr *e = NULL;
    assert_ok(floe_ice_expr_from_json_text(
        "{\"type\":\"or\",\"left\":{\"type\":\"lt\",\"term\":\"a\",\"value\":5},"
        "\"right\":{\"type\":\"not\",\"child\":{\"type\":\"in\",\"term\":\"s\",\"values\":[\"x\",\"y\"]}}}",
        &e));
    char *s = NULL;
    assert_ok(floe_ice_expr_to_string(e, &s));
    assert_string_equal(s, "(a < 5 or not(s in (\"x\", \"y\")))");
    floe_free(s);
    assert_int_equal(e->left->values[0].type, FLOE_ICE_INT);
    floe_ice_expr_free(e);
    assert_ok(floe_ice_expr_from_json_text("{\"type\":\"eq\",\"term\":\"a\",\"value\":9000000000}", &e));
    assert_int_equal(e->values[0].type, FLOE_ICE_LONG);
    floe_ice_expr_free(e);
    assert_ok(floe_ice_expr_from_json_text("{\"type\":\"eq\",\"term\":\"a\",\"value\":1.5}", &e));
    assert_int_equal(e->values[0].type, FLOE_ICE_DOUBLE);
    floe_ice_expr_free(e);
    assert_ok(floe_ice_expr_from_json_text("false", &e));
    assert_int_equal(e->op, FLOE_ICE_EXPR_FALSE);
    floe_ice_expr_free(e);
    assert_ok(floe_ice_expr_from_json_text("{\"type\":\"is-null\",\"term\":\"a\"}", &e));
    assert_int_equal(e->op, FLOE_ICE_EXPR_IS_NULL);
    floe_ice_expr_free(e);
    assert_ok(floe_ice_expr_from_json_text(
        "{\"type\":\"eq\",\"term\":\"d\",\"value\":\"2017-11-16\",\"value-type\":\"date\"}", &e));
    assert_int_equal(e->values[0].type, FLOE_ICE_DATE);
    assert_int_equal(e->values[0].v.i32, 17486);
    floe_ice_expr_free(e);
}

static void malformed_json_is_reported(void **state) {
    (void)state;
    floe_ice_expr *e = NULL;
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"lt\",\"term\":\"a\"}", &e), FLOE_ERR_CORRUPT,
                 "needs a 'value'");
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"bogus\",\"term\":\"a\"}", &e), FLOE_ERR_CORRUPT,
                 "unknown type 'bogus'");
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"and\",\"left\":true}", &e), FLOE_ERR_CORRUPT,
                 "$.right");
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"in\",\"term\":\"a\",\"values\":5}", &e),
                 FLOE_ERR_CORRUPT, "'values' array");
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"eq\",\"term\":\"a\",\"value\":null}", &e),
                 FLOE_ERR_CORRUPT, "null literal");
    assert_error(floe_ice_expr_from_json_text(
                     "{\"type\":\"eq\",\"term\":\"a\",\"value\":\"x\",\"value-type\":\"int\"}", &e),
                 FLOE_ERR_CORRUPT, "$");
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"eq\",\"term\":\"a\",\"value\":1,\"field-id\":3}", &e),
                 FLOE_ERR_CORRUPT, "bound predicate");
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"lt\",\"term\":7,\"value\":1}", &e), FLOE_ERR_CORRUPT,
                 "'term'");
    assert_error(floe_ice_expr_from_json_text("[1,2", &e), FLOE_ERR_CORRUPT, "expression");
    /* bound predicates are checked: evaluators trust their shape */
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"starts-with\",\"term\":\"a\",\"field-id\":1,"
                                              "\"field-type\":\"int\",\"value\":1}",
                                              &e),
                 FLOE_ERR_CORRUPT, "not a string");
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"is-nan\",\"term\":\"a\",\"field-id\":1,"
                                              "\"field-type\":\"long\"}",
                                              &e),
                 FLOE_ERR_CORRUPT, "not a float");
    assert_error(floe_ice_expr_from_json_text("{\"type\":\"eq\",\"term\":\"a\",\"field-id\":1,"
                                              "\"field-type\":\"int\",\"value\":\"x\"}",
                                              &e),
                 FLOE_ERR_CORRUPT, "$");
    /* a bound set written unsorted is sorted (evaluators binary-search it) */
    assert_ok(floe_ice_expr_from_json_text("{\"type\":\"in\",\"term\":\"a\",\"field-id\":1,"
                                           "\"field-type\":\"int\",\"values\":[9,3,9,1]}",
                                           &e));
    assert_int_equal(e->n_values, 3);
    int32_t id = 1;
    floe_ice_value v = floe_ice_int(9);
    floe_ice_row row = {1, &id, &v};
    assert_true(floe_ice_expr_eval_row(e, &row));
    v = floe_ice_int(1);
    assert_true(floe_ice_expr_eval_row(e, &row));
    v = floe_ice_int(2);
    assert_false(floe_ice_expr_eval_row(e, &row));
    floe_ice_expr_free(e);
    /* deep nesting is refused, not a stack overflow */
    size_t depth = 5000;
    char *deep = floe_malloc(depth * 24 + 16);
    assert_non_null(deep);
    char *p = deep;
    for (size_t i = 0; i < depth; i++) p += sprintf(p, "{\"type\":\"not\",\"child\":");
    p += sprintf(p, "true");
    for (size_t i = 0; i < depth; i++) *p++ = '}';
    *p = 0;
    floe_status st = floe_ice_expr_from_json_text(deep, &e);
    assert_non_null(st);
    floe_status_free(st);
    assert_null(e);
    floe_free(deep);
}

FLOE_TEST_MAIN(cmocka_unit_test(unbound_literals_of_every_type_round_trip),
               cmocka_unit_test(bound_expressions_round_trip), cmocka_unit_test(rest_style_json_parses),
               cmocka_unit_test(malformed_json_is_reported))
