/*
 * test_generate_series.c — the GenerateSeries leaf: values and bounds,
 * both step directions, splitting into partitions, int64 extremes, the
 * codec roundtrip, ordering, EXPLAIN, cancellation and bad arguments.
 */
#include <limits.h>

#include "exec_util.h"
#include "floe/exec_scan.h"

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

/* Run every partition of `p` separately; values appended to `out` in
 * partition order, *n their number; per-partition counts in `counts`. */
static void run_partitions(const floe_plan *p, int64_t batch_size, int64_t *out, int64_t cap, int64_t *n,
                           int64_t *counts) {
    floe_exec_ctx ctx = test_ctx(pool, batch_size);
    *n = 0;
    for (int32_t i = 0; i < floe_plan_partitions(p); i++) {
        floe_stream *s;
        assert_ok(test_execute(p, i, &ctx, &s));
        int64_t before = *n;
        for (;;) {
            floe_batch *b;
            assert_ok(floe_stream_next(s, &b));
            if (!b) break;
            assert_true(b->num_rows <= batch_size);
            assert_int_equal(b->num_columns, 1);
            assert_int_equal(floe_array_null_count(b->columns[0]), 0);
            for (int64_t r = 0; r < b->num_rows; r++) {
                assert_true(*n < cap);
                out[(*n)++] = floe_array_get_int64(b->columns[0], r);
            }
            floe_batch_release(b);
        }
        floe_stream_close(s);
        if (counts) counts[i] = *n - before;
    }
}

static void series_includes_both_bounds_and_splits_into_contiguous_partitions(void **state) {
    (void)state;
    floe_plan *p;
    assert_ok(floe_plan_generate_series(1, 10, 1, 3, "x", &p));
    assert_string_equal(floe_plan_type_name(p), "GenerateSeries");
    assert_int_equal(floe_plan_partitions(p), 3);
    const floe_field *f = floe_schema_field(floe_plan_schema(p), 0);
    assert_string_equal(f->name, "x");
    assert_int_equal(f->type->id, FLOE_TYPE_INT64);
    assert_false(f->nullable);
    int64_t v[16], counts[3], n;
    run_partitions(p, 2, v, 16, &n, counts);
    assert_int_equal(n, 10);
    for (int i = 0; i < 10; i++) assert_int_equal(v[i], i + 1);
    /* nearly equal sizes: 3, 3, 4 */
    for (int i = 0; i < 3; i++) assert_true(counts[i] == 3 || counts[i] == 4);
    floe_plan_release(p);
}

static void step_that_overshoots_stops_before_stop(void **state) {
    (void)state;
    floe_plan *p;
    assert_ok(floe_plan_generate_series(0, 10, 3, 1, "x", &p));
    int64_t v[8], n;
    run_partitions(p, 100, v, 8, &n, NULL);
    assert_int_equal(n, 4);
    assert_int_equal(v[0], 0); assert_int_equal(v[1], 3); assert_int_equal(v[2], 6); assert_int_equal(v[3], 9);
    floe_plan_release(p);
}

static void negative_step_counts_down_and_claims_descending_order(void **state) {
    (void)state;
    floe_plan *p;
    assert_ok(floe_plan_generate_series(5, -5, -2, 2, "d", &p));
    int64_t v[8], n;
    run_partitions(p, 4, v, 8, &n, NULL);
    assert_int_equal(n, 6); /* 5 3 1 -1 -3 -5 */
    for (int i = 0; i < 6; i++) assert_int_equal(v[i], 5 - 2 * i);
    assert_int_equal(p->n_ordering, 1);
    assert_true(p->ordering[0].descending);
    assert_int_equal(p->ordering[0].expr->kind, FLOE_EXPR_COLUMN);
    floe_plan_release(p);
    assert_ok(floe_plan_generate_series(1, 3, 1, 1, "a", &p));
    assert_int_equal(p->n_ordering, 1);
    assert_false(p->ordering[0].descending);
    floe_plan_release(p);
}

static void empty_series_gives_empty_partitions(void **state) {
    (void)state;
    floe_plan *p;
    assert_ok(floe_plan_generate_series(10, 1, 1, 2, "x", &p));
    int64_t v[1], n;
    run_partitions(p, 8, v, 1, &n, NULL);
    assert_int_equal(n, 0);
    floe_plan_release(p);
    /* more partitions than values: every value exactly once */
    assert_ok(floe_plan_generate_series(1, 3, 1, 5, "x", &p));
    int64_t w[8], counts[5];
    run_partitions(p, 8, w, 8, &n, counts);
    assert_int_equal(n, 3);
    for (int i = 0; i < 3; i++) assert_int_equal(w[i], i + 1);
    floe_plan_release(p);
}

static void series_at_int64_limits_does_not_overflow(void **state) {
    (void)state;
    floe_plan *p;
    assert_ok(floe_plan_generate_series(INT64_MAX - 2, INT64_MAX, 1, 2, "x", &p));
    int64_t v[8], n;
    run_partitions(p, 8, v, 8, &n, NULL);
    assert_int_equal(n, 3);
    assert_true(v[2] == INT64_MAX && v[0] == INT64_MAX - 2);
    floe_plan_release(p);
    assert_ok(floe_plan_generate_series(INT64_MIN + 1, INT64_MIN, -1, 1, "x", &p));
    run_partitions(p, 8, v, 8, &n, NULL);
    assert_int_equal(n, 2);
    assert_true(v[1] == INT64_MIN);
    floe_plan_release(p);
    /* a huge step: only the start fits */
    assert_ok(floe_plan_generate_series(INT64_MIN, INT64_MAX, INT64_MAX, 1, "x", &p));
    run_partitions(p, 8, v, 8, &n, NULL);
    assert_int_equal(n, 3); /* MIN, -1, MAX-1 */
    assert_true(v[0] == INT64_MIN && v[1] == -1 && v[2] == INT64_MAX - 1);
    floe_plan_release(p);
}

static void roundtrip_gives_the_same_rows_and_explain_shows_parts(void **state) {
    (void)state;
    floe_plan *p, *copy;
    assert_ok(floe_plan_generate_series(-3, 100, 7, 4, "n", &p));
    assert_ok(floe_plan_roundtrip(p, &copy));
    assert_int_equal(floe_plan_partitions(copy), 4);
    assert_int_equal(copy->n_ordering, 1);
    int64_t a[32], b[32], na, nb;
    run_partitions(p, 3, a, 32, &na, NULL);
    run_partitions(copy, 3, b, 32, &nb, NULL);
    assert_int_equal(na, nb);
    assert_int_equal(na, 15); /* -3 .. 95 by 7 */
    for (int64_t i = 0; i < na; i++) assert_int_equal(a[i], b[i]);
    floe_buf e;
    floe_buf_init(&e);
    assert_ok(floe_plan_explain(copy, &e));
    assert_non_null(strstr(floe_buf_cstr(&e), "GenerateSeries: column=n, start=-3, stop=100, step=7, partitions=4"));
    floe_buf_free(&e);
    floe_plan_release(copy);
    floe_plan_release(p);
}

static void collect_gathers_all_partitions(void **state) {
    (void)state;
    floe_plan *p;
    assert_ok(floe_plan_generate_series(1, 1000, 1, 3, "x", &p));
    floe_exec_ctx ctx = test_ctx(pool, 64);
    floe_batch *out;
    assert_ok(run_plan(p, &ctx, &out));
    assert_int_equal(out->num_rows, 1000);
    int64_t sum = 0;
    for (int64_t i = 0; i < out->num_rows; i++) sum += floe_array_get_int64(out->columns[0], i);
    assert_int_equal(sum, 500500);
    floe_batch_release(out);
    floe_plan_release(p);
}

static void cancelled_stream_returns_cancelled(void **state) {
    (void)state;
    floe_plan *p;
    assert_ok(floe_plan_generate_series(1, 100, 1, 1, "x", &p));
    floe_cancel cancel;
    floe_cancel_init(&cancel, NULL);
    floe_exec_ctx ctx = test_ctx(pool, 10);
    ctx.cancel = &cancel;
    floe_stream *s;
    floe_batch *b;
    assert_ok(test_execute(p, 0, &ctx, &s));
    assert_ok(floe_stream_next(s, &b));
    assert_non_null(b);
    floe_batch_release(b);
    floe_cancel_set(&cancel);
    assert_error(floe_stream_next(s, &b), FLOE_ERR_CANCELLED, "GenerateSeries");
    floe_stream_close(s);
    floe_plan_release(p);
}

static void zero_step_and_bad_partitions_are_invalid(void **state) {
    (void)state;
    floe_plan *p;
    assert_error(floe_plan_generate_series(1, 10, 0, 1, "x", &p), FLOE_ERR_INVALID_ARGUMENT, "step");
    assert_null(p);
    assert_error(floe_plan_generate_series(1, 10, 1, 0, "x", &p), FLOE_ERR_INVALID_ARGUMENT, "partitions");
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(series_includes_both_bounds_and_splits_into_contiguous_partitions, setup, teardown),
               cmocka_unit_test_setup_teardown(step_that_overshoots_stops_before_stop, setup, teardown),
               cmocka_unit_test_setup_teardown(negative_step_counts_down_and_claims_descending_order, setup, teardown),
               cmocka_unit_test_setup_teardown(empty_series_gives_empty_partitions, setup, teardown),
               cmocka_unit_test_setup_teardown(series_at_int64_limits_does_not_overflow, setup, teardown),
               cmocka_unit_test_setup_teardown(roundtrip_gives_the_same_rows_and_explain_shows_parts, setup, teardown),
               cmocka_unit_test_setup_teardown(collect_gathers_all_partitions, setup, teardown),
               cmocka_unit_test_setup_teardown(cancelled_stream_returns_cancelled, setup, teardown),
               cmocka_unit_test_setup_teardown(zero_step_and_bad_partitions_are_invalid, setup, teardown))
