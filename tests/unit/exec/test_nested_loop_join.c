/*
 * test_nested_loop_join.c — NestedLoopJoin against the naive reference:
 * every join type as a cross join, with an arbitrary filter and with an
 * equality-plus-filter condition (NULL keys never equal); empty sides;
 * codec roundtrips and repeated executions; one- and two-thread pools;
 * EXPLAIN; errors from either child and from the filter.
 */
#include "join_util.h"

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

/* cond 0: none (cross join); 1: the id filter; 2: l.k1 = r.k1 AND the id filter */
static floe_expr *make_cond(int cond) {
    if (cond == 0) return NULL;
    floe_expr *f = jfilter_expr();
    if (cond == 1) return f;
    floe_expr *a, *b, *eq, *both;
    assert_ok(floe_expr_column(0, &a));
    assert_ok(floe_expr_column(3, &b));
    assert_ok(floe_expr_cmp(FLOE_CMP_EQ, a, b, &eq));
    assert_ok(floe_expr_and(eq, f, &both));
    floe_expr_release(a);
    floe_expr_release(b);
    floe_expr_release(eq);
    floe_expr_release(f);
    return both;
}

static void run_case(int64_t nl, int64_t nr, int32_t lparts, int32_t rparts, int cond, floe_join_type type,
                     floe_threadpool *pool, int64_t batch_size) {
    jrow *L = malloc((size_t)(nl ? nl : 1) * sizeof *L), *R = malloc((size_t)(nr ? nr : 1) * sizeof *R);
    jrows_random(L, nl, 0, 8, 10);
    jrows_random(R, nr, 100000, 8, 10);
    floe_plan *l = jplan("l", L, nl, 13, lparts, false), *r = jplan("r", R, nr, 11, rparts, false), *j;
    floe_expr *f = make_cond(cond);
    assert_ok(floe_plan_nested_loop_join(l, r, type, f, &j));
    assert_int_equal(floe_plan_partitions(j), rparts);
    int64_t nw, ng;
    jpair *want = jreference(type, L, nl, R, nr, cond == 2 ? 1 : 0, false, cond != 0, false, &nw);
    floe_exec_ctx ctx = test_ctx(pool, batch_size);
    char what[96];
    snprintf(what, sizeof what, "%s cond=%d nl=%lld nr=%lld", floe_join_type_name(type), cond, (long long)nl,
             (long long)nr);
    jpair *got = jresult(j, &ctx, type, &ng);
    jexpect_equal(got, ng, want, nw, what);
    free(got);
    got = jresult(j, &ctx, type, &ng);
    jexpect_equal(got, ng, want, nw, what);
    free(got);
    floe_plan *copy;
    assert_ok(floe_plan_roundtrip(j, &copy));
    got = jresult(copy, &ctx, type, &ng);
    jexpect_equal(got, ng, want, nw, what);
    free(got);
    floe_plan_release(copy);
    free(want);
    floe_expr_release(f);
    floe_plan_release(j);
    floe_plan_release(l);
    floe_plan_release(r);
    free(L);
    free(R);
}

static void every_join_type_as_a_cross_join(void **state) {
    (void)state;
    for (int t = 0; t < FLOE_JOIN_TYPE_COUNT_; t++) {
        run_case(20, 30, 2, 3, 0, (floe_join_type)t, pool2, 64);
        run_case(20, 30, 1, 2, 0, (floe_join_type)t, pool1, 7);
    }
}

static void every_join_type_with_a_filter(void **state) {
    (void)state;
    for (int t = 0; t < FLOE_JOIN_TYPE_COUNT_; t++) {
        run_case(60, 50, 3, 2, 1, (floe_join_type)t, pool2, 100);
        run_case(60, 50, 3, 2, 2, (floe_join_type)t, pool2, 16);
        run_case(60, 50, 2, 1, 2, (floe_join_type)t, pool1, 1000);
    }
}

/* More partitions than pool threads on either side. */
static void many_partitions_on_a_one_thread_pool(void **state) {
    (void)state;
    for (int t = 0; t < FLOE_JOIN_TYPE_COUNT_; t++) run_case(40, 50, 6, 7, 2, (floe_join_type)t, pool1, 32);
}

static void empty_sides(void **state) {
    (void)state;
    for (int t = 0; t < FLOE_JOIN_TYPE_COUNT_; t++)
        for (int cond = 0; cond < 3; cond += 2) {
            run_case(0, 30, 1, 2, cond, (floe_join_type)t, pool2, 64);
            run_case(30, 0, 2, 2, cond, (floe_join_type)t, pool2, 64);
            run_case(0, 0, 1, 1, cond, (floe_join_type)t, pool1, 64);
        }
}

static void explain_and_accessors(void **state) {
    (void)state;
    jrow L[3], R[3];
    jrows_random(L, 3, 0, 3, 0);
    jrows_random(R, 3, 100000, 3, 0);
    floe_plan *l = jplan("l", L, 3, 2, 2, false), *r = jplan("r", R, 3, 2, 2, false), *j;
    floe_expr *f = make_cond(1);
    assert_ok(floe_plan_nested_loop_join(l, r, FLOE_JOIN_FULL, f, &j));
    assert_string_equal(floe_plan_type_name(j), "NestedLoopJoin");
    assert_int_equal(floe_nested_loop_join_type(j), FLOE_JOIN_FULL);
    assert_ptr_equal(floe_nested_loop_join_filter(j), f);
    assert_true(floe_schema_field(floe_plan_schema(j), 2)->nullable);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(j, &b));
    assert_non_null(strstr(floe_buf_cstr(&b), "NestedLoopJoin: type=Full, filter=("));
    floe_buf_free(&b);
    floe_plan_release(j);
    /* a non-bool filter is a type error */
    floe_expr *c0;
    assert_ok(floe_expr_column(0, &c0));
    assert_error(floe_plan_nested_loop_join(l, r, FLOE_JOIN_INNER, c0, &j), FLOE_ERR_TYPE, "bool");
    floe_expr_release(c0);
    floe_expr_release(f);
    floe_plan_release(l);
    floe_plan_release(r);
}

static void errors_from_children_and_filter(void **state) {
    (void)state;
    jrow L[40], R[40];
    jrows_random(L, 40, 0, 5, 0);
    jrows_random(R, 40, 100000, 5, 0);
    floe_plan *l = jplan("l", L, 40, 10, 2, false), *r = jplan("r", R, 40, 10, 2, false);
    /* filter 1 / (l.id - 17) > 0 fails on the pairs of left row 17 */
    floe_expr *id, *c17, *minus, *one, *div, *zero, *gt;
    assert_ok(floe_expr_column(2, &id));
    assert_ok(floe_expr_lit_int64(17, &c17));
    assert_ok(floe_expr_arith(FLOE_ARITH_SUB, id, c17, &minus));
    assert_ok(floe_expr_lit_int64(1, &one));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, one, minus, &div));
    assert_ok(floe_expr_lit_int64(0, &zero));
    assert_ok(floe_expr_cmp(FLOE_CMP_GT, div, zero, &gt));
    for (int t = 0; t < FLOE_JOIN_TYPE_COUNT_; t++)
        for (int pl = 0; pl < 2; pl++) {
            floe_plan *j;
            assert_ok(floe_plan_nested_loop_join(l, r, (floe_join_type)t, gt, &j));
            floe_exec_ctx ctx = test_ctx(pl ? pool2 : pool1, 32);
            floe_batch *out = NULL;
            assert_error(run_plan(j, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
            assert_null(out);
            floe_plan_release(j);
            /* a failing left child, used as either side */
            floe_expr *k[3];
            for (int c = 0; c < 3; c++) assert_ok(floe_expr_column(c, &k[c]));
            k[2] = (floe_expr_release(k[2]), div); /* id becomes 1 / (id - 17) */
            floe_expr_retain(div);
            const char *names[3] = {"k1", "k2", "id"};
            floe_plan *bad;
            assert_ok(floe_plan_projection(l, k, names, 3, &bad));
            for (int side = 0; side < 2; side++) {
                assert_ok(floe_plan_nested_loop_join(side ? r : bad, side ? bad : r, (floe_join_type)t, NULL, &j));
                assert_error(run_plan(j, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
                assert_null(out);
                floe_plan_release(j);
            }
            floe_plan_release(bad);
            for (int c = 0; c < 3; c++) floe_expr_release(k[c]);
        }
    floe_expr_release(id);
    floe_expr_release(c17);
    floe_expr_release(minus);
    floe_expr_release(one);
    floe_expr_release(div);
    floe_expr_release(zero);
    floe_expr_release(gt);
    floe_plan_release(l);
    floe_plan_release(r);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(every_join_type_as_a_cross_join, setup, teardown),
               cmocka_unit_test_setup_teardown(every_join_type_with_a_filter, setup, teardown),
               cmocka_unit_test_setup_teardown(many_partitions_on_a_one_thread_pool, setup, teardown),
               cmocka_unit_test_setup_teardown(empty_sides, setup, teardown),
               cmocka_unit_test_setup_teardown(explain_and_accessors, setup, teardown),
               cmocka_unit_test_setup_teardown(errors_from_children_and_filter, setup, teardown))
