/*
 * test_metrics.c — EXPLAIN ANALYZE counters: every node and partition
 * counts the rows and batches it returned, and the annotated plan shows
 * them.
 */
#include <string.h>

#include "exec_util.h"
#include "floe/exec_metrics.h"

static floe_plan *values_filter(floe_plan **values_out) {
    int32_t a[6] = {1, 2, 3, 4, 5, 6};
    floe_batch *b = int_batch(a, NULL, 6);
    floe_batch *bs[2] = {b, b};
    floe_plan *v, *f;
    assert_ok(floe_plan_values(b->schema, bs, 2, 2, &v));
    floe_batch_release(b);
    floe_expr *c, *k, *pred;
    assert_ok(floe_expr_column(0, &c));
    assert_ok(floe_expr_lit_int32(3, &k));
    assert_ok(floe_expr_cmp(FLOE_CMP_GT, c, k, &pred));
    floe_expr_release(c);
    floe_expr_release(k);
    assert_ok(floe_plan_filter(v, pred, &f));
    floe_expr_release(pred);
    *values_out = v;
    return f;
}

static void rows_and_batches_are_counted_per_node_and_partition(void **state) {
    (void)state;
    floe_threadpool *pool;
    assert_ok(floe_threadpool_create(2, &pool));
    floe_plan *v;
    floe_plan *f = values_filter(&v);
    floe_exec_metrics *m;
    assert_ok(floe_exec_metrics_new(&m));
    floe_exec_ctx ctx = test_ctx(pool, 4);
    ctx.metrics = m;
    floe_batch *out;
    assert_ok(run_plan(f, &ctx, &out));
    assert_int_equal(out->num_rows, 6); /* 4, 5, 6 twice */
    floe_batch_release(out);
    for (int32_t part = 0; part < 2; part++) {
        floe_node_metrics nm;
        floe_exec_metrics_get(m, v, part, &nm);
        assert_int_equal(nm.rows, 6);
        assert_int_equal(nm.batches, 2); /* 6 rows in batches of 4 */
        assert_int_equal(nm.opened, 1);
        floe_exec_metrics_get(m, f, part, &nm);
        assert_int_equal(nm.rows, 3);
    }
    floe_buf text;
    floe_buf_init(&text);
    assert_ok(floe_plan_explain_analyze(f, m, &text));
    assert_ok(floe_buf_append_byte(&text, 0));
    const char *t = (const char *)text.data;
    assert_non_null(strstr(t, "Filter:"));
    assert_non_null(strstr(t, "metrics: rows=6 batches="));
    assert_non_null(strstr(t, "metrics: rows=12 batches=4"));
    assert_non_null(strstr(t, "partition 1: rows=6"));
    floe_buf_free(&text);
    floe_plan_release(f);
    floe_plan_release(v);
    floe_exec_metrics_free(m);
    floe_threadpool_destroy(pool);
}

static void a_node_that_never_ran_reports_zeroes(void **state) {
    (void)state;
    floe_plan *v;
    floe_plan *f = values_filter(&v);
    floe_exec_metrics *m;
    assert_ok(floe_exec_metrics_new(&m));
    floe_node_metrics nm;
    floe_exec_metrics_get(m, f, 0, &nm);
    assert_int_equal(nm.rows, 0);
    assert_int_equal(nm.opened, 0);
    floe_plan_release(f);
    floe_plan_release(v);
    floe_exec_metrics_free(m);
}

FLOE_TEST_MAIN(cmocka_unit_test(rows_and_batches_are_counted_per_node_and_partition),
               cmocka_unit_test(a_node_that_never_ran_reports_zeroes))
