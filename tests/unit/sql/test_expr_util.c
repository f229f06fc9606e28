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

FLOE_TEST_MAIN(cmocka_unit_test(date_cast_comparison_moves_onto_the_date),
               cmocka_unit_test(equality_with_a_time_of_day_is_left_alone),
               cmocka_unit_test(int_widening_cast_is_dropped))
