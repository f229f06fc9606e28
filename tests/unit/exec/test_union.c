/*
 * test_union.c — Union: partitions of every input in order, schema names
 * from input 0 and nullability from any input, type checks, codec
 * roundtrips, one- and two-thread pools, errors from an input.
 */
#include "exec_util.h"
#include "floe/exec_ops.h"

static floe_threadpool *pool1, *pool2;

static int setup(void **state) {
    (void)state;
    if (floe_threadpool_create(1, &pool1)) return -1;
    return floe_threadpool_create(2, &pool2) ? -1 : 0;
}
static int teardown(void **state) {
    (void)state;
    floe_threadpool_destroy(pool1);
    floe_threadpool_destroy(pool2);
    return 0;
}

/* Values of `nb` one-column batches named `name` (nullable or not), batch
 * k holding base + 10k, base + 10k + 1, dealt over `parts` partitions. */
static floe_plan *input(const char *name, bool nullable, int32_t base, int nb, int32_t parts) {
    floe_field f;
    floe_schema *s;
    assert_ok(floe_field_init(&f, name, floe_type_primitive(FLOE_TYPE_INT32), nullable, -1));
    assert_ok(floe_type_struct(&f, 1, &s));
    floe_field_clear(&f);
    floe_batch *bs[8];
    for (int k = 0; k < nb; k++) {
        int32_t v[2] = {base + 10 * k, base + 10 * k + 1};
        floe_array *a = int32_array(v, 2);
        assert_ok(floe_batch_new(s, &a, 1, 2, &bs[k]));
        floe_array_release(a);
    }
    floe_plan *p;
    assert_ok(floe_plan_values(s, bs, nb, parts, &p));
    for (int k = 0; k < nb; k++) floe_batch_release(bs[k]);
    floe_type_release(s);
    return p;
}

static void check_rows(const floe_plan *u, floe_threadpool *pool) {
    /* input 0: 2 partitions (batches 0,2 | 1,3) of base 0; input 1: one
     * partition of base 100; input 2: 3 partitions of base 200 (3 batches) */
    const int32_t want[] = {0, 1, 20, 21, 10, 11, 30, 31, 100, 101, 110, 111, 200, 201, 210, 211, 220, 221};
    floe_exec_ctx ctx = test_ctx(pool, 64);
    floe_batch *out;
    assert_ok(run_plan(u, &ctx, &out));
    assert_int_equal(out->num_rows, 18);
    int32_t got[18];
    column_values(out, 0, got);
    for (int i = 0; i < 18; i++) assert_int_equal(got[i], want[i]);
    floe_batch_release(out);
}

static void union_outputs_every_input_partition_in_order(void **state) {
    (void)state;
    floe_plan *in[3] = {input("a", false, 0, 4, 2), input("x", false, 100, 2, 1), input("y", true, 200, 3, 3)};
    floe_plan *u;
    assert_ok(floe_plan_union(in, 3, &u));
    assert_string_equal(floe_plan_type_name(u), "Union");
    assert_int_equal(floe_plan_partitions(u), 6);
    const floe_field *f = floe_schema_field(floe_plan_schema(u), 0);
    assert_string_equal(f->name, "a");
    assert_true(f->nullable); /* nullable in input 2 */
    check_rows(u, pool2);
    check_rows(u, pool1);
    floe_plan *copy;
    assert_ok(floe_plan_roundtrip(u, &copy));
    check_rows(copy, pool2);
    floe_plan_release(copy);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(u, &b));
    assert_non_null(strstr(floe_buf_cstr(&b), "Union: inputs=3, partitions=6"));
    floe_buf_free(&b);
    floe_plan_release(u);
    /* nullability: not nullable when no input is */
    assert_ok(floe_plan_union(in, 2, &u));
    assert_false(floe_schema_field(floe_plan_schema(u), 0)->nullable);
    floe_plan_release(u);
    for (int i = 0; i < 3; i++) floe_plan_release(in[i]);
}

static void union_rejects_mismatched_inputs(void **state) {
    (void)state;
    floe_plan *a = input("a", true, 0, 1, 1), *u;
    int32_t v[2] = {1, 2};
    floe_batch *two = int_batch(v, v, 2);
    floe_plan *b;
    assert_ok(floe_plan_values(two->schema, &two, 1, 1, &b));
    floe_plan *in[2] = {a, b};
    assert_error(floe_plan_union(in, 2, &u), FLOE_ERR_TYPE, "2 columns");
    /* int32 vs int64 */
    floe_expr *c0, *cast;
    assert_ok(floe_expr_column(0, &c0));
    assert_ok(floe_expr_cast(c0, floe_type_primitive(FLOE_TYPE_INT64), &cast));
    const char *names[] = {"a"};
    floe_plan *wide;
    assert_ok(floe_plan_projection(a, &cast, names, 1, &wide));
    in[1] = wide;
    assert_error(floe_plan_union(in, 2, &u), FLOE_ERR_TYPE, "int64");
    assert_error(floe_plan_union(in, 0, &u), FLOE_ERR_INVALID_ARGUMENT, "input");
    floe_plan_release(wide);
    floe_expr_release(c0);
    floe_expr_release(cast);
    floe_plan_release(b);
    floe_batch_release(two);
    floe_plan_release(a);
}

static void union_reports_a_failing_input(void **state) {
    (void)state;
    floe_plan *a = input("a", true, 0, 3, 1), *z = input("z", true, 0, 2, 2), *bad, *u;
    floe_expr *c0, *one, *div;
    assert_ok(floe_expr_column(0, &c0));
    assert_ok(floe_expr_lit_int32(1, &one));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, one, c0, &div)); /* 1 / 0 on the first row */
    const char *names[] = {"a"};
    assert_ok(floe_plan_projection(z, &div, names, 1, &bad));
    floe_plan *in[2] = {a, bad};
    assert_ok(floe_plan_union(in, 2, &u));
    for (int t = 0; t < 2; t++) {
        floe_exec_ctx ctx = test_ctx(t ? pool2 : pool1, 64);
        floe_batch *out = NULL;
        assert_error(run_plan(u, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
        assert_null(out);
    }
    floe_plan_release(u);
    floe_plan_release(bad);
    floe_expr_release(c0);
    floe_expr_release(one);
    floe_expr_release(div);
    floe_plan_release(a);
    floe_plan_release(z);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(union_outputs_every_input_partition_in_order, setup, teardown),
               cmocka_unit_test_setup_teardown(union_rejects_mismatched_inputs, setup, teardown),
               cmocka_unit_test_setup_teardown(union_reports_a_failing_input, setup, teardown))
