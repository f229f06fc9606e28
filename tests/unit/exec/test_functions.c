/*
 * test_functions.c — the FLOE_EXPR_CALL machinery: construction (unknown
 * names suggest a close one), type checking (arity and argument types
 * named in the error), EXPLAIN text, the plan codec round trip of a
 * Projection over calls, and vectorised evaluation with NULLs.
 */
#include "exec/func/functions.h"
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
    EXPECT("hello world abcxyz @[`{ 0123 zz", call("lower", 1, S("Hello World ABCXYZ @[`{ 0123 Zz")));
    EXPECT("HELLO WORLD ABCXYZ @[`{ 0123 ZZ", call("upper", 1, S("Hello World abcxyz @[`{ 0123 Zz")));
    EXPECT("ascii run then é and more ascii", call("lower", 1, S("ASCII RUN THEN É AND MORE ASCII")));
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
    floe_expr *exprs[4] = {call("lower", 1, COL(0)), call("upper", 1, call("lower", 1, COL(0))),
                           call("like", 3, COL(0), S("h#%%"), S("#")),
                           call("date_part", 2, S("epoch"), call("make_date", 3, I(1969), I32(12), I(31)))};
    const char *names[4] = {"l", "u", "k", "e"};
    assert_ok(floe_plan_projection(v, exprs, names, 4, &p));
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
    assert_non_null(strstr(floe_buf_cstr(&t), "like(#0, 'h#%%', '#')"));
    assert_non_null(strstr(floe_buf_cstr(&t), "date_part('epoch', make_date(1969, 12, 31))"));
    floe_buf_clear(&t);
    assert_ok(floe_format_value(r2->columns[3], 0, &t));
    assert_string_equal(floe_buf_cstr(&t), "-86400.0");
    floe_buf_free(&t);
    floe_batch_release(r1);
    floe_batch_release(r2);
    for (int i = 0; i < 4; i++) floe_expr_release(exprs[i]);
    floe_plan_release(copy);
    floe_plan_release(p);
    floe_plan_release(v);
    floe_batch_release(b);
}

/* Every registered function, given untyped NULLs for all its arguments,
 * types and evaluates to all-NULL rows (concat: empty strings; the clock
 * functions take no arguments and are never NULL). */
static void every_function_propagates_untyped_nulls(void **state) {
    (void)state;
    const floe_func_def *const fams[] = {floe_string_funcs, floe_numeric_funcs, floe_datetime_funcs};
    int32_t v[3] = {1, 2, 3};
    floe_batch *b = int_batch(v, NULL, 3);
    int checked = 0;
    for (int f = 0; f < 3; f++)
        for (const floe_func_def *d = fams[f]; d->name; d++) {
            int max = d->max_args < 0 ? d->min_args + 2 : d->max_args;
            for (int n = d->min_args; n <= max; n++) {
                floe_expr *args[8], *e;
                for (int i = 0; i < n; i++) args[i] = NULLOF(FLOE_TYPE_NULL);
                assert_ok(floe_expr_call(d->name, args, n, &e));
                for (int i = 0; i < n; i++) floe_expr_release(args[i]);
                const char *got = render(e, b, NULL);
                const char *want = n == 0 ? NULL : strcmp(d->name, "concat") == 0 ? "||" : "NULL|NULL|NULL";
                if (want && strcmp(got, want) != 0) fail_msg("%s with %d NULLs gave '%s'", d->name, n, got);
                if (!want && strstr(got, "NULL")) fail_msg("%s() gave '%s'", d->name, got);
                checked++;
            }
        }
    assert_true(checked > 60);
    floe_batch_release(b);
}

/* Kernels read sliced inputs (arrays with an offset) correctly. */
static void functions_read_sliced_batches(void **state) {
    (void)state;
    const char *s[] = {"skip", "Ünïcode", SNULL, "abc", "x_y"};
    const char *const *cols[] = {s};
    floe_batch *b = str_batch(1, 5, cols), *sl;
    assert_ok(floe_batch_slice(b, 1, 4, &sl));
    assert_string_equal(render(call("lower", 1, COL(0)), sl, NULL), "ünïcode|NULL|abc|x_y");
    assert_string_equal(render(call("length", 1, COL(0)), sl, NULL), "7|NULL|3|3");
    assert_string_equal(render(call("like", 2, COL(0), S("%\\_%")), sl, NULL), "false|NULL|false|true");
    assert_string_equal(render(call("greatest", 2, COL(0), S("b")), sl, NULL), "Ünïcode|b|b|x_y");
    assert_string_equal(render(call("concat", 2, COL(0), S("!")), sl, NULL), "Ünïcode!|!|abc!|x_y!");
    floe_batch_release(sl);
    floe_batch_release(b);
}

/* A plan naming a function this build does not know fails to decode. */
static void decoding_an_unknown_function_is_an_error(void **state) {
    (void)state;
    const char *col[] = {"a"};
    const char *const *cols[] = {col};
    floe_batch *b = str_batch(1, 1, cols);
    floe_plan *v, *p, *copy = NULL;
    assert_ok(floe_plan_values(b->schema, &b, 1, 1, &v));
    floe_expr *e = call("upper", 1, COL(0));
    const char *name = "u";
    assert_ok(floe_plan_projection(v, &e, &name, 1, &p));
    floe_buf enc;
    floe_buf_init(&enc);
    assert_ok(floe_plan_encode(p, &enc));
    uint8_t *hit = memmem(enc.data, enc.len, "upper", 5);
    assert_non_null(hit);
    memcpy(hit, "uppex", 5);
    assert_error(floe_plan_decode(enc.data, enc.len, &copy), FLOE_ERR_NOT_FOUND, "did you mean 'upper'");
    assert_null(copy);
    floe_buf_free(&enc);
    floe_expr_release(e);
    floe_plan_release(p);
    floe_plan_release(v);
    floe_batch_release(b);
}

FLOE_TEST_MAIN(
    cmocka_unit_test(unknown_function_is_not_found_with_suggestion),
    cmocka_unit_test(wrong_arity_and_types_are_type_errors_naming_function),
    cmocka_unit_test(call_renders_as_name_and_args),
    cmocka_unit_test(lower_upper_map_case_per_row_with_nulls),
    cmocka_unit_test(every_function_propagates_untyped_nulls),
    cmocka_unit_test(functions_read_sliced_batches),
    cmocka_unit_test(decoding_an_unknown_function_is_an_error),
    cmocka_unit_test_setup_teardown(projection_with_calls_roundtrips_through_codec, setup, teardown))
