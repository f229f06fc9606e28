/*
 * test_scan_pushdown.c — SQL predicates into Iceberg scan filters: what may
 * be pushed, in what form, and when the pushed form is exact.  Each case
 * that a naive rewrite gets wrong (negating a weakened AND, pushing a
 * lossy cast, reading LIKE escapes literally) has its own test.
 */
#include <string.h>

#include "floe/exec.h"
#include "floe/iceberg_expr.h"
#include "floe_test.h"
#include "sql/optimize_internal.h"

/* Columns: #0 i int32, #1 f float64, #2 s string, #3 d date, #4 l int64. */
static floe_schema *scan_schema(void) {
    floe_field f[5];
    assert_ok(floe_field_init(&f[0], "i", floe_type_primitive(FLOE_TYPE_INT32), true, 1));
    assert_ok(floe_field_init(&f[1], "f", floe_type_primitive(FLOE_TYPE_FLOAT64), true, 2));
    assert_ok(floe_field_init(&f[2], "s", floe_type_primitive(FLOE_TYPE_STRING), true, 3));
    assert_ok(floe_field_init(&f[3], "d", floe_type_primitive(FLOE_TYPE_DATE32), true, 4));
    assert_ok(floe_field_init(&f[4], "l", floe_type_primitive(FLOE_TYPE_INT64), true, 5));
    floe_schema *s;
    assert_ok(floe_type_struct(f, 5, &s));
    for (int i = 0; i < 5; i++) floe_field_clear(&f[i]);
    return s;
}

static floe_expr *col(int i) {
    floe_expr *e;
    assert_ok(floe_expr_column(i, &e));
    return e;
}
static floe_expr *lit_i(int32_t v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_int32(v, &e));
    return e;
}
static floe_expr *lit_s(const char *v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_string(v, &e));
    return e;
}
static floe_expr *lit_ts(int64_t micros) {
    floe_builder *b;
    floe_array *a;
    floe_expr *e;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), 1, &b));
    assert_ok(floe_builder_append_int64(b, micros));
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    assert_ok(floe_expr_literal(a, &e));
    floe_array_release(a);
    return e;
}
static floe_expr *lit_null_int(void) {
    floe_expr *e;
    assert_ok(floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_INT32), &e));
    return e;
}
/* Build-and-release helpers: each takes ownership of its arguments. */
static floe_expr *cmp(floe_cmp_op op, floe_expr *a, floe_expr *b) {
    floe_expr *e;
    assert_ok(floe_expr_cmp(op, a, b, &e));
    floe_expr_release(a);
    floe_expr_release(b);
    return e;
}
static floe_expr *and_(floe_expr *a, floe_expr *b) {
    floe_expr *e;
    assert_ok(floe_expr_and(a, b, &e));
    floe_expr_release(a);
    floe_expr_release(b);
    return e;
}
static floe_expr *or_(floe_expr *a, floe_expr *b) {
    floe_expr *e;
    assert_ok(floe_expr_or(a, b, &e));
    floe_expr_release(a);
    floe_expr_release(b);
    return e;
}
static floe_expr *not_(floe_expr *a) {
    floe_expr *e;
    assert_ok(floe_expr_not(a, &e));
    floe_expr_release(a);
    return e;
}
static floe_expr *cast(floe_expr *a, floe_type_id to) {
    floe_expr *e;
    assert_ok(floe_expr_cast(a, floe_type_primitive(to), &e));
    floe_expr_release(a);
    return e;
}
static floe_expr *call2(const char *fn, floe_expr *a, floe_expr *b) {
    floe_expr *args[2] = {a, b}, *e;
    assert_ok(floe_expr_call(fn, args, 2, &e));
    floe_expr_release(a);
    floe_expr_release(b);
    return e;
}
static floe_expr *call1(const char *fn, floe_expr *a) {
    floe_expr *e;
    assert_ok(floe_expr_call(fn, &a, 1, &e));
    floe_expr_release(a);
    return e;
}

/* Translate and compare the Iceberg text form (NULL: not pushable). */
static void expect(floe_expr *sql, const char *want, bool want_exact) {
    floe_schema *s = scan_schema();
    floe_ice_expr *ie = NULL;
    bool exact = !want_exact;
    assert_ok(floe_sqlo_to_iceberg(sql, s, &ie, &exact));
    if (!want) {
        if (ie) {
            char *got;
            assert_ok(floe_ice_expr_to_string(ie, &got));
            fail_msg("expected no pushdown, got %s", got);
        }
    } else {
        assert_non_null(ie);
        char *got;
        assert_ok(floe_ice_expr_to_string(ie, &got));
        if (strcmp(got, want) != 0) fail_msg("pushed %s, expected %s", got, want);
        floe_free(got);
        assert_int_equal(exact, want_exact);
    }
    floe_ice_expr_free(ie);
    floe_expr_release(sql);
    floe_type_release(s);
}

static char *text_of(floe_expr *sql) {
    floe_schema *s = scan_schema();
    floe_ice_expr *ie = NULL;
    bool exact;
    assert_ok(floe_sqlo_to_iceberg(sql, s, &ie, &exact));
    char *got = NULL;
    if (ie) assert_ok(floe_ice_expr_to_string(ie, &got));
    floe_ice_expr_free(ie);
    floe_expr_release(sql);
    floe_type_release(s);
    return got;
}

static void comparison_with_a_literal_is_exact(void **state) {
    (void)state;
    char *a = text_of(cmp(FLOE_CMP_GT, col(0), lit_i(5)));
    char *b = text_of(cmp(FLOE_CMP_LT, lit_i(5), col(0))); /* 5 < i is i > 5 */
    assert_non_null(a);
    assert_string_equal(a, b);
    floe_free(a);
    floe_free(b);
    floe_schema *s = scan_schema();
    floe_ice_expr *ie;
    bool exact = false;
    floe_expr *e = cmp(FLOE_CMP_EQ, col(0), lit_i(7));
    assert_ok(floe_sqlo_to_iceberg(e, s, &ie, &exact));
    assert_true(exact);
    floe_ice_expr_free(ie);
    floe_expr_release(e);
    floe_type_release(s);
}

static void not_equal_excludes_nulls_like_sql(void **state) {
    (void)state;
    /* Iceberg's not_eq holds for a null; SQL's <> does not. */
    char *t = text_of(cmp(FLOE_CMP_NE, col(0), lit_i(5)));
    assert_non_null(t);
    assert_non_null(strstr(t, "not_null"));
    assert_non_null(strstr(t, "!="));
    floe_free(t);
}

static void not_over_a_weakened_and_is_not_pushed(void **state) {
    (void)state;
    /* NOT (i > 1 AND lower(s) = 'x'): the AND translates only to i > 1
     * (weaker); negating it would give i <= 1 and drop rows with i > 1 whose
     * lower(s) <> 'x' — rows that match. */
    expect(not_(and_(cmp(FLOE_CMP_GT, col(0), lit_i(1)), cmp(FLOE_CMP_EQ, call1("lower", col(2)), lit_s("x")))),
           NULL, false);
    /* The AND alone may be pushed, weakened, never exact. */
    floe_expr *e = and_(cmp(FLOE_CMP_GT, col(0), lit_i(1)), cmp(FLOE_CMP_EQ, call1("lower", col(2)), lit_s("x")));
    char *t = text_of(e);
    assert_non_null(t);
    assert_null(strstr(t, "lower"));
    floe_free(t);
}

static void not_over_an_exact_and_is_pushed_but_not_exact(void **state) {
    (void)state;
    floe_schema *s = scan_schema();
    floe_expr *e = not_(and_(cmp(FLOE_CMP_GT, col(0), lit_i(1)), cmp(FLOE_CMP_GT, col(4), lit_i(2))));
    floe_ice_expr *ie;
    bool exact = true;
    assert_ok(floe_sqlo_to_iceberg(e, s, &ie, &exact));
    assert_non_null(ie);
    assert_false(exact); /* NOT over a nullable column: UNKNOWN rows are kept by the scan */
    floe_ice_expr_free(ie);
    floe_expr_release(e);
    floe_type_release(s);
}

static void or_needs_both_sides(void **state) {
    (void)state;
    expect(or_(cmp(FLOE_CMP_GT, col(0), lit_i(1)), cmp(FLOE_CMP_EQ, call1("lower", col(2)), lit_s("x"))), NULL,
           false);
}

static void lossy_cast_is_not_pushed(void **state) {
    (void)state;
    /* CAST(f AS int) = 5 holds for f = 5.3; pushing f = 5 would drop it. */
    expect(cmp(FLOE_CMP_EQ, cast(col(1), FLOE_TYPE_INT32), lit_i(5)), NULL, false);
    /* A string cast of a number is not order-preserving either. */
    expect(cmp(FLOE_CMP_LT, cast(col(0), FLOE_TYPE_STRING), lit_s("5")), NULL, false);
}

static void widening_cast_is_pushed_on_the_column(void **state) {
    (void)state;
    char *a = text_of(cmp(FLOE_CMP_EQ, cast(col(0), FLOE_TYPE_INT64), lit_i(5)));
    char *b = text_of(cmp(FLOE_CMP_EQ, col(0), lit_i(5)));
    assert_non_null(a);
    assert_string_equal(a, b); /* the same test on the int column itself */
    floe_free(a);
    floe_free(b);
}

static void date_cast_to_timestamp_rounds_the_literal_the_safe_way(void **state) {
    (void)state;
    const int64_t day = INT64_C(86400000000);
    /* d::timestamp <= 1998-09-02 12:00  <=>  d <= 1998-09-02 (day 10471). */
    expect(cmp(FLOE_CMP_LE, cast(col(3), FLOE_TYPE_TIMESTAMP_US), lit_ts(10471 * day + day / 2)),
           "d <= \"1998-09-02\"", true);
    /* d::timestamp < 1998-09-02 12:00  <=>  d < 1998-09-03. */
    expect(cmp(FLOE_CMP_LT, cast(col(3), FLOE_TYPE_TIMESTAMP_US), lit_ts(10471 * day + day / 2)),
           "d < \"1998-09-03\"", true);
    /* At midnight exactly, < stays on the same day. */
    expect(cmp(FLOE_CMP_LT, cast(col(3), FLOE_TYPE_TIMESTAMP_US), lit_ts(10471 * day)), "d < \"1998-09-02\"", true);
    /* Before the epoch: floor, not truncation toward zero. */
    expect(cmp(FLOE_CMP_GE, cast(col(3), FLOE_TYPE_TIMESTAMP_US), lit_ts(-day / 2)), "d >= \"1970-01-01\"", true);
    expect(cmp(FLOE_CMP_GT, cast(col(3), FLOE_TYPE_TIMESTAMP_US), lit_ts(-day / 2)), "d > \"1969-12-31\"", true);
    /* Equality with a time that is not midnight matches no date. */
    expect(cmp(FLOE_CMP_EQ, cast(col(3), FLOE_TYPE_TIMESTAMP_US), lit_ts(day + 1)), "false", true);
}

static void like_prefix_is_unescaped_and_pure(void **state) {
    (void)state;
    expect(call2("like", col(2), lit_s("ab\\%c%")), "s starts_with \"ab%c\"", true);
    expect(call2("like", col(2), lit_s("abc%")), "s starts_with \"abc\"", true);
    /* '_' and a second '%' are wildcards inside: not a prefix test. */
    expect(call2("like", col(2), lit_s("ab_%")), NULL, false);
    expect(call2("like", col(2), lit_s("a%b%")), NULL, false);
    /* No trailing '%': an exact match, not starts_with. */
    expect(call2("like", col(2), lit_s("abc")), NULL, false);
}

static void in_list_drops_null_items(void **state) {
    (void)state;
    floe_expr *items[3] = {lit_i(1), lit_null_int(), lit_i(3)}, *e;
    floe_expr *c = col(0);
    assert_ok(floe_expr_in(c, items, 3, &e));
    floe_expr_release(c);
    for (int i = 0; i < 3; i++) floe_expr_release(items[i]);
    char *t = text_of(e);
    assert_non_null(t);
    assert_null(strstr(t, "null"));
    floe_free(t);
}

static void float_comparisons_are_pushed_but_not_exact(void **state) {
    (void)state;
    floe_expr *lit;
    assert_ok(floe_expr_lit_double(1.5, &lit));
    floe_schema *s = scan_schema();
    floe_expr *e = cmp(FLOE_CMP_GT, col(1), lit);
    floe_ice_expr *ie;
    bool exact = true;
    assert_ok(floe_sqlo_to_iceberg(e, s, &ie, &exact));
    assert_non_null(ie);
    assert_false(exact);
    floe_ice_expr_free(ie);
    floe_expr_release(e);
    floe_type_release(s);
}

static void comparison_with_null_is_not_pushed(void **state) {
    (void)state;
    expect(cmp(FLOE_CMP_EQ, col(0), lit_null_int()), NULL, false);
}

FLOE_TEST_MAIN(cmocka_unit_test(comparison_with_a_literal_is_exact), cmocka_unit_test(not_equal_excludes_nulls_like_sql),
               cmocka_unit_test(not_over_a_weakened_and_is_not_pushed),
               cmocka_unit_test(not_over_an_exact_and_is_pushed_but_not_exact),
               cmocka_unit_test(or_needs_both_sides), cmocka_unit_test(lossy_cast_is_not_pushed),
               cmocka_unit_test(widening_cast_is_pushed_on_the_column),
               cmocka_unit_test(date_cast_to_timestamp_rounds_the_literal_the_safe_way),
               cmocka_unit_test(like_prefix_is_unescaped_and_pure), cmocka_unit_test(in_list_drops_null_items),
               cmocka_unit_test(float_comparisons_are_pushed_but_not_exact),
               cmocka_unit_test(comparison_with_null_is_not_pushed))
