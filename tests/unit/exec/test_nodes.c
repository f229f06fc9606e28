/*
 * test_nodes.c — the first plan nodes (Values, Filter, Projection, Limit,
 * CoalescePartitions) and the runtime: results, partitioning, errors that
 * must surface as errors (never as an empty result), cancellation, EXPLAIN.
 */
#include "exec_util.h"

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

/* Values over 4 batches of 3 rows: a = 0..11, b = a % 3 (one null). */
static floe_plan *values_plan(int32_t partitions) {
    floe_batch *bs[4];
    for (int k = 0; k < 4; k++) {
        int32_t a[3], b[3];
        for (int i = 0; i < 3; i++) {
            a[i] = k * 3 + i;
            b[i] = a[i] == 4 ? NUL : a[i] % 3;
        }
        bs[k] = int_batch(a, b, 3);
    }
    floe_plan *p;
    assert_ok(floe_plan_values(bs[0]->schema, bs, 4, partitions, &p));
    for (int k = 0; k < 4; k++) floe_batch_release(bs[k]);
    return p;
}

static void values_deals_batches_round_robin_in_partition_order(void **state) {
    (void)state;
    floe_plan *p = values_plan(2);
    assert_string_equal(floe_plan_type_name(p), "Values");
    assert_int_equal(floe_plan_partitions(p), 2);
    floe_exec_ctx ctx = test_ctx(pool, 2); /* also slices 3-row batches to 2 + 1 */
    floe_batch **bs;
    int64_t n;
    assert_ok(floe_exec_collect(p, &ctx, &bs, &n));
    assert_int_equal(n, 8);
    /* partition 0 holds batches 0 and 2, partition 1 batches 1 and 3 */
    const int32_t first[8] = {0, 2, 6, 8, 3, 5, 9, 11};
    for (int64_t i = 0; i < n; i++) {
        assert_int_equal(bs[i]->num_rows, i % 2 ? 1 : 2);
        assert_int_equal(floe_array_get_int32(bs[i]->columns[0], 0), first[i]);
    }
    floe_exec_batches_free(bs, n);
    floe_plan_release(p);
}

static void filter_and_projection_compute_rows(void **state) {
    (void)state;
    floe_plan *v = values_plan(1), *f, *pr;
    floe_expr *c0, *c1, *one, *gt, *sum;
    assert_ok(floe_expr_column(0, &c0));
    assert_ok(floe_expr_column(1, &c1));
    assert_ok(floe_expr_lit_int32(1, &one));
    assert_ok(floe_expr_cmp(FLOE_CMP_EQ, c1, one, &gt)); /* b = 1: NULL row dropped */
    assert_ok(floe_plan_filter(v, gt, &f));
    assert_ok(floe_expr_arith(FLOE_ARITH_ADD, c0, c1, &sum));
    floe_expr *exprs[2] = {c0, sum};
    const char *names[2] = {"a", "a_plus_b"};
    assert_ok(floe_plan_projection(f, exprs, names, 2, &pr));
    assert_string_equal(floe_schema_field(floe_plan_schema(pr), 1)->name, "a_plus_b");
    floe_exec_ctx ctx = test_ctx(pool, 1024);
    floe_batch *out;
    assert_ok(run_plan(pr, &ctx, &out));
    /* b = a % 3 == 1 for a = 1, 4(null b), 7, 10 */
    int32_t a[3], s[3];
    assert_int_equal(out->num_rows, 3);
    column_values(out, 0, a);
    column_values(out, 1, s);
    assert_int_equal(a[0], 1); assert_int_equal(a[1], 7); assert_int_equal(a[2], 10);
    assert_int_equal(s[0], 2); assert_int_equal(s[1], 8); assert_int_equal(s[2], 11);
    floe_batch_release(out);
    /* a non-bool predicate is refused at construction */
    floe_plan *bad;
    assert_error(floe_plan_filter(v, c0, &bad), FLOE_ERR_TYPE, "must be bool");
    floe_expr_release(c0); floe_expr_release(c1); floe_expr_release(one);
    floe_expr_release(gt); floe_expr_release(sum);
    floe_plan_release(pr); floe_plan_release(f); floe_plan_release(v);
}

static void limit_skips_offset_and_stops_at_fetch(void **state) {
    (void)state;
    floe_plan *v = values_plan(1), *l;
    assert_ok(floe_plan_limit(v, 4, 5, &l));
    floe_exec_ctx ctx = test_ctx(pool, 1024);
    floe_batch *out;
    assert_ok(run_plan(l, &ctx, &out));
    int32_t a[5];
    assert_int_equal(out->num_rows, 5);
    column_values(out, 0, a);
    for (int i = 0; i < 5; i++) assert_int_equal(a[i], 4 + i);
    floe_batch_release(out);
    floe_plan_release(l);
    /* fetch 0 gives no rows; fetch -1 means no limit */
    assert_ok(floe_plan_limit(v, 0, 0, &l));
    assert_ok(run_plan(l, &ctx, &out));
    assert_null(out);
    floe_plan_release(l);
    assert_ok(floe_plan_limit(v, 10, -1, &l));
    assert_ok(run_plan(l, &ctx, &out));
    assert_int_equal(out->num_rows, 2);
    floe_batch_release(out);
    floe_plan_release(l);
    floe_plan_release(v);
}

static void coalesce_merges_all_partitions_and_global_limit_applies_once(void **state) {
    (void)state;
    floe_plan *v = values_plan(4), *c, *l;
    assert_ok(floe_plan_coalesce(v, &c));
    assert_int_equal(floe_plan_partitions(c), 1);
    floe_exec_ctx ctx = test_ctx(pool, 1);
    floe_batch *out;
    assert_ok(run_plan(c, &ctx, &out));
    assert_int_equal(out->num_rows, 12);
    int32_t a[12], seen[12] = {0};
    column_values(out, 0, a);
    for (int i = 0; i < 12; i++) seen[a[i]]++;
    for (int i = 0; i < 12; i++) assert_int_equal(seen[i], 1);
    floe_batch_release(out);
    assert_ok(floe_plan_limit(c, 0, 5, &l));
    assert_ok(run_plan(l, &ctx, &out));
    assert_int_equal(out->num_rows, 5);
    floe_batch_release(out);
    floe_plan_release(l); floe_plan_release(c); floe_plan_release(v);
}

static void coalesce_works_on_a_one_thread_pool(void **state) {
    (void)state;
    floe_threadpool *one;
    assert_ok(floe_threadpool_create(1, &one));
    floe_plan *v = values_plan(4), *c;
    assert_ok(floe_plan_coalesce(v, &c));
    floe_exec_ctx ctx = test_ctx(one, 1);
    for (int round = 0; round < 10; round++) {
        floe_batch *out;
        assert_ok(run_plan(c, &ctx, &out));
        assert_int_equal(out->num_rows, 12);
        floe_batch_release(out);
    }
    floe_plan_release(c); floe_plan_release(v);
    floe_threadpool_destroy(one);
}

static void failing_partition_fails_coalesce_instead_of_ending_early(void **state) {
    (void)state;
    /* 100 / (a - 7) fails in the one partition holding a = 7. */
    floe_plan *v = values_plan(4), *pr, *c;
    floe_expr *c0, *seven, *hundred, *diff, *div;
    assert_ok(floe_expr_column(0, &c0));
    assert_ok(floe_expr_lit_int32(7, &seven));
    assert_ok(floe_expr_lit_int32(100, &hundred));
    assert_ok(floe_expr_arith(FLOE_ARITH_SUB, c0, seven, &diff));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, hundred, diff, &div));
    const char *name = "q";
    assert_ok(floe_plan_projection(v, &div, &name, 1, &pr));
    assert_ok(floe_plan_coalesce(pr, &c));
    floe_exec_ctx ctx = test_ctx(pool, 1);
    for (int round = 0; round < 20; round++) {
        floe_batch *out = NULL;
        assert_error(run_plan(c, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
        assert_null(out);
    }
    /* and without coalescing, collect reports it too */
    floe_batch *out = NULL;
    assert_error(run_plan(pr, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
    floe_expr_release(c0); floe_expr_release(seven); floe_expr_release(hundred);
    floe_expr_release(diff); floe_expr_release(div);
    floe_plan_release(c); floe_plan_release(pr); floe_plan_release(v);
}

static void cancelled_query_returns_cancelled_not_empty(void **state) {
    (void)state;
    floe_plan *v = values_plan(4), *c;
    assert_ok(floe_plan_coalesce(v, &c));
    floe_cancel cancel;
    floe_cancel_init(&cancel, NULL);
    floe_exec_ctx ctx = test_ctx(pool, 1);
    ctx.cancel = &cancel;
    /* cancel after the first batch of an open stream */
    floe_stream *s;
    floe_batch *b;
    assert_ok(test_execute(c, 0, &ctx, &s));
    assert_ok(floe_stream_next(s, &b));
    assert_non_null(b);
    floe_batch_release(b);
    floe_cancel_set(&cancel);
    floe_status st = NULL;
    for (int i = 0; i < 100 && !st; i++) {
        b = NULL;
        st = floe_stream_next(s, &b);
        assert_true(st || b); /* never a silent end */
        floe_batch_release(b);
    }
    assert_error(st, FLOE_ERR_CANCELLED, "cancel");
    floe_stream_close(s);
    /* a query cancelled up front fails in collect, in every shape */
    floe_batch *out = NULL;
    assert_error(run_plan(c, &ctx, &out), FLOE_ERR_CANCELLED, "cancel");
    assert_error(run_plan(v, &ctx, &out), FLOE_ERR_CANCELLED, "cancel");
    assert_null(out);
    floe_plan_release(c); floe_plan_release(v);
}

static void closing_a_coalesce_stream_early_stops_its_producers(void **state) {
    (void)state;
    floe_plan *v = values_plan(4), *c;
    assert_ok(floe_plan_coalesce(v, &c));
    floe_exec_ctx ctx = test_ctx(pool, 1);
    for (int round = 0; round < 20; round++) {
        floe_stream *s;
        floe_batch *b;
        assert_ok(test_execute(c, 0, &ctx, &s));
        assert_ok(floe_stream_next(s, &b));
        floe_batch_release(b);
        floe_stream_close(s); /* producers blocked on the full queue must exit */
    }
    floe_plan_release(c); floe_plan_release(v);
}

static void explain_shows_types_parts_and_partitions(void **state) {
    (void)state;
    floe_plan *v = values_plan(3), *c, *l;
    assert_ok(floe_plan_coalesce(v, &c));
    assert_ok(floe_plan_limit(c, 1, 2, &l));
    floe_buf b;
    floe_buf_init(&b);
    assert_ok(floe_plan_explain(l, &b));
    assert_string_equal(floe_buf_cstr(&b),
                        "Limit: offset=1, fetch=2, partitions=1\n"
                        "  CoalescePartitions: inputs=3, partitions=1\n"
                        "    Values: schema=struct<a: int32, b: int32>, batches=4, rows=12, partitions=3\n");
    floe_buf_free(&b);
    assert_int_equal(floe_plan_required_input(l, 0).kind, FLOE_DIST_UNSPECIFIED);
    floe_plan_release(l); floe_plan_release(c); floe_plan_release(v);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(values_deals_batches_round_robin_in_partition_order, setup, teardown),
               cmocka_unit_test_setup_teardown(filter_and_projection_compute_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(limit_skips_offset_and_stops_at_fetch, setup, teardown),
               cmocka_unit_test_setup_teardown(coalesce_merges_all_partitions_and_global_limit_applies_once, setup, teardown),
               cmocka_unit_test_setup_teardown(coalesce_works_on_a_one_thread_pool, setup, teardown),
               cmocka_unit_test_setup_teardown(failing_partition_fails_coalesce_instead_of_ending_early, setup, teardown),
               cmocka_unit_test_setup_teardown(cancelled_query_returns_cancelled_not_empty, setup, teardown),
               cmocka_unit_test_setup_teardown(closing_a_coalesce_stream_early_stops_its_producers, setup, teardown),
               cmocka_unit_test_setup_teardown(explain_shows_types_parts_and_partitions, setup, teardown))
