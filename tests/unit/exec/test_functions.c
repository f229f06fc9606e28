/*
 * test_functions.c — the FLOE_EXPR_CALL machinery: construction (unknown
 * names suggest a close one), type checking (arity and argument types
 * named in the error), EXPLAIN text, the plan codec round trip of a
 * Projection over calls, and vectorised evaluation with NULLs.
 */
#include "fn_util.h"

static floe_threadpool *pool;

static int setup(void **state) {
    (void)state;
    return floe_threadpool_create(2, &pool) ? -1 : 0;
}
static int teardown(void **state) {
    (void)state;
    floe_threadpool_destroy(pool);
    return 0;
}

static void unknown_function_is_not_found_with_suggestion(void **state) {
    (void)state;
    floe_expr *a = S("x"), *e = NULL;
    assert_error(floe_expr_call("lowr", &a, 1, &e), FLOE_ERR_NOT_FOUND, "did you mean 'lower'");
    assert_null(e);
    floe_expr_release(a);
}

static void wrong_arity_and_types_are_type_errors_naming_function(void **state) {
    (void)state;
    EXPECT_ERR(FLOE_ERR_TYPE, "lower(int64)", call("lower", 1, I(1)));
    EXPECT_ERR(FLOE_ERR_TYPE, "expected lower(string)", call("lower", 2, S("a"), S("b")));
}

static void call_renders_as_name_and_args(void **state) {
    (void)state;
    floe_expr *e = call("lower", 1, COL(0));
    floe_buf b;
    floe_buf_init(&b);
    assert_ok(floe_expr_to_string(e, &b));
    assert_string_equal(floe_buf_cstr(&b), "lower(#0)");
    floe_buf_free(&b);
    floe_expr_release(e);
}

static void lower_upper_map_case_per_row_with_nulls(void **state) {
    (void)state;
    const char *col[] = {"AbC", SNULL, "ÀÉÎ straße", "ПРИВЕТ Ωmega", ""};
    const char *const *cols[] = {col};
    floe_batch *b = str_batch(1, 5, cols);
    assert_string_equal(render(call("lower", 1, COL(0)), b, NULL), "abc|NULL|àéî straße|привет ωmega|");
    assert_string_equal(render(call("upper", 1, COL(0)), b, NULL), "ABC|NULL|ÀÉÎ STRAßE|ПРИВЕТ ΩMEGA|");
    floe_batch_release(b);
    EXPECT("NULL", call("lower", 1, NULLOF(FLOE_TYPE_STRING)));
    EXPECT("NULL", call("upper", 1, NULLOF(FLOE_TYPE_NULL)));
}

static void projection_with_calls_roundtrips_through_codec(void **state) {
    (void)state;
    const char *col[] = {"Hello", SNULL, "wORLD"};
    const char *const *cols[] = {col};
    floe_batch *b = str_batch(1, 3, cols);
    floe_plan *v, *p, *copy;
    assert_ok(floe_plan_values(b->schema, &b, 1, 1, &v));
    floe_expr *exprs[2] = {call("lower", 1, COL(0)), call("upper", 1, call("lower", 1, COL(0)))};
    const char *names[2] = {"l", "u"};
    assert_ok(floe_plan_projection(v, exprs, names, 2, &p));
    assert_ok(floe_plan_roundtrip(p, &copy));
    floe_exec_ctx ctx = test_ctx(pool, 1024);
    floe_batch *r1, *r2;
    assert_ok(run_plan(p, &ctx, &r1));
    assert_ok(run_plan(copy, &ctx, &r2));
    assert_true(floe_batch_equals(r1, r2));
    floe_buf t;
    floe_buf_init(&t);
    assert_ok(floe_format_value(r2->columns[1], 2, &t));
    assert_string_equal(floe_buf_cstr(&t), "WORLD");
    floe_buf_clear(&t);
    assert_ok(floe_plan_explain(copy, &t));
    assert_non_null(strstr(floe_buf_cstr(&t), "upper(lower(#0))"));
    floe_buf_free(&t);
    floe_batch_release(r1);
    floe_batch_release(r2);
    for (int i = 0; i < 2; i++) floe_expr_release(exprs[i]);
    floe_plan_release(copy);
    floe_plan_release(p);
    floe_plan_release(v);
    floe_batch_release(b);
}

FLOE_TEST_MAIN(
    cmocka_unit_test(unknown_function_is_not_found_with_suggestion),
    cmocka_unit_test(wrong_arity_and_types_are_type_errors_naming_function),
    cmocka_unit_test(call_renders_as_name_and_args),
    cmocka_unit_test(lower_upper_map_case_per_row_with_nulls),
    cmocka_unit_test_setup_teardown(projection_with_calls_roundtrips_through_codec, setup, teardown))
