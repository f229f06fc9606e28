/*
 * test_expr_util.c — expression rewrites the optimizer relies on:
 * comparisons of value-preserving casts with constants move onto the
 * column with the bound rounded the exact way, and constant parts fold.
 */
#include <string.h>

#include "base/buffer.h"
#include "floe_test.h"
#include "sql/expr_util.h"

#define DAY INT64_C(86400000000)

static floe_schema *date_int_schema(void) {
    floe_field f[2];
    assert_ok(floe_field_init(&f[0], "d", floe_type_primitive(FLOE_TYPE_DATE32), true, -1));
    assert_ok(floe_field_init(&f[1], "i", floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    floe_schema *s;
    assert_ok(floe_type_struct(f, 2, &s));
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);
    return s;
}

static floe_expr *ts_lit(int64_t us) {
    floe_builder *b;
    floe_array *a;
    floe_expr *e;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), 1, &b));
    assert_ok(floe_builder_append_int64(b, us));
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    assert_ok(floe_expr_literal(a, &e));
    floe_array_release(a);
    return e;
}

/* Text of unwrap(CAST(#col AS to) <op> lit) (lit consumed). */
static char *unwrap_text(int col, floe_type_id to, floe_cmp_op op, floe_expr *lit, bool lit_left) {
    floe_schema *s = date_int_schema();
    floe_expr *c, *cast, *cmp, *out;
    assert_ok(floe_expr_column(col, &c));
    assert_ok(floe_expr_cast(c, floe_type_primitive(to), &cast));
    if (lit_left) assert_ok(floe_expr_cmp(op, lit, cast, &cmp));
    else assert_ok(floe_expr_cmp(op, cast, lit, &cmp));
    assert_ok(floe_sqlx_unwrap_casts(cmp, s, &out));
    floe_buf b;
    floe_buf_init(&b);
    assert_ok(floe_expr_to_string(out, &b));
    char *t = floe_strdup(floe_buf_cstr(&b));
    floe_buf_free(&b);
    floe_expr_release(out);
    floe_expr_release(cmp);
    floe_expr_release(cast);
    floe_expr_release(c);
    floe_expr_release(lit);
    floe_type_release(s);
    return t;
}

static void date_cast_comparison_moves_onto_the_date(void **state) {
    (void)state;
    char *t = unwrap_text(0, FLOE_TYPE_TIMESTAMP_US, FLOE_CMP_LE, ts_lit(10471 * DAY + DAY / 2), false);
    assert_string_equal(t, "(#0 <= 1998-09-02)");
    floe_free(t);
    t = unwrap_text(0, FLOE_TYPE_TIMESTAMP_US, FLOE_CMP_LT, ts_lit(10471 * DAY + 1), false);
    assert_string_equal(t, "(#0 < 1998-09-03)");
    floe_free(t);
    /* constant on the left: T > CAST(d) is d < T */
    t = unwrap_text(0, FLOE_TYPE_TIMESTAMP_US, FLOE_CMP_GT, ts_lit(10471 * DAY), true);
    assert_string_equal(t, "(#0 < 1998-09-02)");
    floe_free(t);
    /* before the epoch the day floors */
    t = unwrap_text(0, FLOE_TYPE_TIMESTAMP_US, FLOE_CMP_GE, ts_lit(-DAY / 2), false);
    assert_string_equal(t, "(#0 >= 1970-01-01)");
    floe_free(t);
}

static void equality_with_a_time_of_day_is_left_alone(void **state) {
    (void)state;
    char *t = unwrap_text(0, FLOE_TYPE_TIMESTAMP_US, FLOE_CMP_EQ, ts_lit(10471 * DAY + 5), false);
    assert_non_null(strstr(t, "CAST"));
    floe_free(t);
    t = unwrap_text(0, FLOE_TYPE_TIMESTAMP_US, FLOE_CMP_EQ, ts_lit(10471 * DAY), false);
    assert_string_equal(t, "(#0 = 1998-09-02)");
    floe_free(t);
}

static void int_widening_cast_is_dropped(void **state) {
    (void)state;
    floe_expr *lit;
    assert_ok(floe_expr_lit_int64(INT64_C(5000000000), &lit));
    char *t = unwrap_text(1, FLOE_TYPE_INT64, FLOE_CMP_LT, lit, false);
    assert_null(strstr(t, "CAST"));
    floe_free(t);
    /* a narrowing cast stays */
    assert_ok(floe_expr_lit_int32(5, &lit));
    t = unwrap_text(1, FLOE_TYPE_FLOAT64, FLOE_CMP_LT, lit, false);
    assert_non_null(strstr(t, "CAST"));
    floe_free(t);
}

/* #col = v (the caller owns the result). */
static floe_expr *col_eq(int32_t col, int32_t v) {
    floe_expr *c, *l, *e;
    assert_ok(floe_expr_column(col, &c));
    assert_ok(floe_expr_lit_int32(v, &l));
    assert_ok(floe_expr_cmp(FLOE_CMP_EQ, c, l, &e));
    floe_expr_release(c);
    floe_expr_release(l);
    return e;
}

/* a AND b / a OR b, consuming both. */
static floe_expr *combine(floe_status (*make)(floe_expr *, floe_expr *, floe_expr **), floe_expr *a, floe_expr *b) {
    floe_expr *e;
    assert_ok(make(a, b, &e));
    floe_expr_release(a);
    floe_expr_release(b);
    return e;
}
#define and2(a, b) combine(floe_expr_and, (a), (b))
#define or2(a, b) combine(floe_expr_or, (a), (b))

/* Text of factor_or(e) (e consumed). */
static char *factored(floe_expr *e) {
    floe_expr *out;
    assert_ok(floe_sqlx_factor_or(e, &out));
    floe_buf b;
    floe_buf_init(&b);
    assert_ok(floe_expr_to_string(out, &b));
    char *t = floe_strdup(floe_buf_cstr(&b));
    floe_buf_free(&b);
    floe_expr_release(out);
    floe_expr_release(e);
    return t;
}

/* TPC-H Q19's shape: the join key in every OR branch comes out, so the
 * planner sees it as a key; what differs stays OR-ed. */
static void or_branches_shared_conjuncts_are_factored_out(void **state) {
    (void)state;
    /* (#0 = 1 AND #1 = 2 AND #2 = 3) OR (#1 = 2 AND #0 = 1 AND #2 = 4) OR (#0 = 1 AND #1 = 2 AND #3 = 5) */
    floe_expr *b1 = and2(and2(col_eq(0, 1), col_eq(1, 2)), col_eq(2, 3));
    floe_expr *b2 = and2(and2(col_eq(1, 2), col_eq(0, 1)), col_eq(2, 4));
    floe_expr *b3 = and2(and2(col_eq(0, 1), col_eq(1, 2)), col_eq(3, 5));
    char *t = factored(or2(or2(b1, b2), b3));
    assert_string_equal(t, "(((#0 = 1) AND (#1 = 2)) AND (((#2 = 3) OR (#2 = 4)) OR (#3 = 5)))");
    floe_free(t);

    /* Absorption: #0 = 1 OR (#0 = 1 AND #1 = 2) is #0 = 1. */
    t = factored(or2(col_eq(0, 1), and2(col_eq(0, 1), col_eq(1, 2))));
    assert_string_equal(t, "(#0 = 1)");
    floe_free(t);

    /* Nothing shared: left as it is; equal columns with other values do not match. */
    t = factored(or2(and2(col_eq(0, 1), col_eq(1, 2)), and2(col_eq(0, 2), col_eq(1, 2))));
    assert_string_equal(t, "((#1 = 2) AND ((#0 = 1) OR (#0 = 2)))");
    floe_free(t);
    t = factored(or2(col_eq(0, 1), col_eq(0, 2)));
    assert_string_equal(t, "((#0 = 1) OR (#0 = 2))");
    floe_free(t);
    /* Not an OR: itself. */
    t = factored(col_eq(3, 3));
    assert_string_equal(t, "(#3 = 3)");
    floe_free(t);
}

FLOE_TEST_MAIN(cmocka_unit_test(or_branches_shared_conjuncts_are_factored_out),
               cmocka_unit_test(date_cast_comparison_moves_onto_the_date),
               cmocka_unit_test(equality_with_a_time_of_day_is_left_alone),
               cmocka_unit_test(int_widening_cast_is_dropped))
