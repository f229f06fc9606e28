/*
 * test_func_numeric.c — numeric scalar functions: result types follow the
 * input (ints stay ints, decimals keep their scale), rounding is half away
 * from zero also for negatives and negative digit counts, domain errors
 * name the function and value, and greatest/least skip NULLs.
 */
#include <math.h>

#include "fn_util.h"

static void abs_and_sign_keep_the_input_type(void **state) {
    (void)state;
    EXPECT_T("5", "int32", call("abs", 1, I32(-5)));
    EXPECT_T("7", "int64", call("abs", 1, I(-7)));
    EXPECT_T("2.5", "float64", call("abs", 1, F(-2.5)));
    EXPECT_T("1.25", "decimal(5, 2)", call("abs", 1, DEC(-125, 5, 2)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "abs: bigint out of range", call("abs", 1, I(INT64_MIN)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "-2147483648", call("abs", 1, I32(INT32_MIN)));
    int32_t v[] = {-3, 0, 9, NUL};
    floe_batch *b = int_batch(v, NULL, 4);
    assert_string_equal(render(call("sign", 1, COL(0)), b, NULL), "-1|0|1|NULL");
    assert_string_equal(render(call("abs", 1, COL(0)), b, NULL), "3|0|9|NULL");
    floe_batch_release(b);
    EXPECT_T("-1.0", "float64", call("sign", 1, F(-0.5)));
    EXPECT_T("-1", "int32", call("sign", 1, DEC(-1, 3, 2)));
    EXPECT_ERR(FLOE_ERR_TYPE, "abs(string)", call("abs", 1, S("x")));
}

static void round_is_half_even_for_doubles_away_for_decimals(void **state) {
    (void)state;
    /* doubles: half to even, as PostgreSQL's rint */
    EXPECT_T("2.0", "float64", call("round", 1, F(2.5)));
    EXPECT("-2.0", call("round", 1, F(-2.5)));
    EXPECT("4.0", call("round", 1, F(3.5)));
    EXPECT("-2.0", call("round", 1, F(-2.4)));
    EXPECT("1.24", call("round", 2, F(1.235), I(2)));
    EXPECT("-1200.0", call("round", 2, F(-1234.5), I(-2)));
    EXPECT_T("1300", "int32", call("round", 2, I32(1250), I(-2)));
    EXPECT("-1300", call("round", 2, I32(-1250), I(-2)));
    EXPECT("-1200", call("round", 2, I32(-1249), I(-2)));
    EXPECT("1250", call("round", 2, I32(1250), I(2)));
    EXPECT("0", call("round", 2, I(123), I(-40)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "out of range", call("round", 2, I32(2147483647), I(-1)));
    /* decimals: half away from zero, PostgreSQL's scale (n for a constant
     * n, none without); precision grows by one */
    EXPECT_T("1.24", "decimal(5, 2)", call("round", 2, DEC(1235, 5, 3), I(2)));
    EXPECT("-1.24", call("round", 2, DEC(-1235, 5, 3), I(2)));
    EXPECT_T("-2", "decimal(3, 0)", call("round", 1, DEC(-1500, 5, 3)));
    EXPECT("100", call("round", 1, DEC(999, 3, 1)));
    EXPECT_T("1.23500", "decimal(8, 5)", call("round", 2, DEC(1235, 5, 3), I(5)));
    EXPECT_T("1200", "decimal(5, 0)", call("round", 2, DEC(123456, 6, 2), I(-2)));
    EXPECT("NULL", call("round", 2, F(1.5), NULLOF(FLOE_TYPE_INT64)));
}

static void trunc_floor_ceil_round_toward_their_direction(void **state) {
    (void)state;
    EXPECT("-2.0", call("trunc", 1, F(-2.7)));
    EXPECT("2.0", call("trunc", 1, F(2.7)));
    EXPECT("-2.56", call("trunc", 2, F(-2.567), I(2)));
    EXPECT_T("-1.2", "decimal(4, 1)", call("trunc", 2, DEC(-129, 5, 2), I(1)));
    EXPECT_T("-1200", "int64", call("trunc", 2, I(-1299), I(-2)));
    EXPECT("-3.0", call("floor", 1, F(-2.1)));
    EXPECT("-2.0", call("ceil", 1, F(-2.1)));
    EXPECT("3.0", call("ceiling", 1, F(2.1)));
    EXPECT_T("-2", "decimal(4, 0)", call("floor", 1, DEC(-101, 5, 2)));
    EXPECT("-1", call("ceil", 1, DEC(-101, 5, 2)));
    EXPECT("2", call("ceil", 1, DEC(101, 5, 2)));
    EXPECT_T("7", "int32", call("floor", 1, I32(7)));
}

static void math_functions_and_domain_errors(void **state) {
    (void)state;
    EXPECT_T("3.0", "float64", call("sqrt", 1, I(9)));
    EXPECT("1.5", call("sqrt", 1, DEC(225, 5, 2)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "sqrt: cannot take square root of a negative number: -4",
               call("sqrt", 1, I(-4)));
    EXPECT("1.0", call("exp", 1, I(0)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "exp: result out of range", call("exp", 1, F(1000)));
    EXPECT("0.0", call("ln", 1, I(1)));
    EXPECT("3.0", call("log10", 1, I(1000)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "logarithm of zero", call("ln", 1, I(0)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "logarithm of a negative number", call("log10", 1, F(-1)));
    EXPECT("1024.0", call("power", 2, I(2), I(10)));
    EXPECT("0.5", call("power", 2, I(2), I(-1)));
    EXPECT("-8.0", call("power", 2, I(-2), F(3)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "zero raised to a negative power", call("power", 2, I(0), I(-1)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "non-integer power", call("power", 2, I(-8), F(0.5)));
    EXPECT("NULL", call("power", 2, NULLOF(FLOE_TYPE_FLOAT64), I(2)));
    EXPECT("NaN", call("sqrt", 1, F(NAN)));
}

static void greatest_and_least_skip_nulls_and_widen(void **state) {
    (void)state;
    EXPECT_T("5", "int64", call("greatest", 3, I32(1), I(5), NULLOF(FLOE_TYPE_INT32)));
    EXPECT_T("1", "int64", call("least", 3, I32(1), I(5), NULLOF(FLOE_TYPE_INT32)));
    EXPECT_T("2.5", "float64", call("greatest", 2, I(2), F(2.5)));
    EXPECT_T("NULL", "int32", call("least", 2, NULLOF(FLOE_TYPE_INT32), NULLOF(FLOE_TYPE_INT32)));
    EXPECT_T("pear", "string", call("greatest", 3, S("apple"), S("pear"), S("banana")));
    EXPECT("apple", call("least", 3, S("apple"), S("pear"), S("banana")));
    EXPECT_T("3.50", "decimal(21, 2)", call("greatest", 2, I(3), DEC(350, 5, 2)));
    EXPECT_T("3.00", "decimal(21, 2)", call("least", 2, I(3), DEC(350, 5, 2)));
    EXPECT_T("2024-02-29", "date32", call("greatest", 2, TYPED(FLOE_TYPE_DATE32, 19782), TYPED(FLOE_TYPE_DATE32, -5)));
    EXPECT_ERR(FLOE_ERR_TYPE, "greatest(int64, string)", call("greatest", 2, I(1), S("a")));
    int32_t a[] = {1, NUL, 7, NUL};
    int32_t b[] = {4, 2, 3, NUL};
    floe_batch *bt = int_batch(a, b, 4);
    assert_string_equal(render(call("greatest", 2, COL(0), COL(1)), bt, NULL), "4|2|7|NULL");
    assert_string_equal(render(call("least", 2, COL(0), COL(1)), bt, NULL), "1|2|3|NULL");
    floe_batch_release(bt);
}

static void trigonometry_and_logarithms(void **state) {
    (void)state;
    EXPECT_T("0.0", "float64", call("sin", 1, I(0)));
    EXPECT("1.0", call("cos", 1, I(0)));
    EXPECT("180.0", call("degrees", 1, call("pi", 0)));
    EXPECT("3.141592653589793", call("radians", 1, I(180)));
    EXPECT("0.7853981633974483", call("atan2", 2, I(1), I(1)));
    EXPECT("3.0", call("cbrt", 1, I(27)));
    EXPECT("10.0", call("log2", 1, I(1024)));
    EXPECT("3.0", call("log", 2, I(2), I(8)));
    EXPECT("2.0", call("log", 1, I(100)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "asin: input is out of range", call("asin", 1, F(1.5)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "base 1", call("log", 2, I(1), I(8)));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "logarithm of zero", call("log2", 1, I(0)));
    EXPECT("NULL", call("atan2", 2, I(1), NULLOF(FLOE_TYPE_FLOAT64)));
}

FLOE_TEST_MAIN(cmocka_unit_test(abs_and_sign_keep_the_input_type),
               cmocka_unit_test(round_is_half_even_for_doubles_away_for_decimals),
               cmocka_unit_test(trunc_floor_ceil_round_toward_their_direction),
               cmocka_unit_test(math_functions_and_domain_errors),
               cmocka_unit_test(greatest_and_least_skip_nulls_and_widen),
               cmocka_unit_test(trigonometry_and_logarithms))
