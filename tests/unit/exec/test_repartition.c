/*
 * test_repartition.c — Repartition: hash partitioning sends equal keys to
 * one partition (the partition floe_hash_rows names) and keeps every row,
 * round-robin deals batches evenly, outputs may be read one after another,
 * errors and cancellation reach every output partition, codec roundtrip
 * and EXPLAIN.
 */
#include "exec_util.h"
#include "floe/exec_ops.h"

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

/* Values over `parts` partitions: nb batches of n rows, a = row number,
 * b = a % keys (NULL every 13th row). */
static floe_plan *values(int nb, int n, int keys, int32_t parts) {
    floe_batch *bs[64];
    int32_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    for (int k = 0; k < nb; k++) {
        for (int i = 0; i < n; i++) {
            a[i] = k * n + i;
            b[i] = a[i] % 13 == 0 ? NUL : a[i] % keys;
        }
        bs[k] = int_batch(a, b, n);
    }
    free(a);
    free(b);
    floe_plan *p;
    assert_ok(floe_plan_values(bs[0]->schema, bs, nb, parts, &p));
    for (int k = 0; k < nb; k++) floe_batch_release(bs[k]);
    return p;
}

static floe_plan *hash_on_b(floe_plan *child, int32_t n) {
    floe_expr *k;
    assert_ok(floe_expr_column(1, &k));
    floe_plan *p;
    assert_ok(floe_plan_repartition(child, FLOE_REPARTITION_HASH, &k, 1, n, &p));
    floe_expr_release(k);
    return p;
}

/* Drain output partition j of p on this thread into `seen` counts. */
static void drain(const floe_plan *p, int32_t j, const floe_exec_ctx *ctx, int32_t *part_of_key, int64_t *rows,
                  int64_t *asum, int32_t *batches) {
    floe_stream *s;
    assert_ok(floe_plan_execute(p, j, ctx, &s));
    for (;;) {
        floe_batch *b;
        assert_ok(floe_stream_next(s, &b));
        if (!b) break;
        (*batches)++;
        uint64_t *h = malloc((size_t)b->num_rows * sizeof *h);
        floe_array *key = b->columns[1];
        assert_ok(floe_hash_rows(&key, 1, b->num_rows, h));
        for (int64_t r = 0; r < b->num_rows; r++) {
            int32_t kv = floe_array_is_null(key, r) ? 1000 : floe_array_get_int32(key, r);
            if (part_of_key) {
                assert_int_equal(h[r] % (uint64_t)floe_plan_partitions(p), (uint64_t)j);
                if (part_of_key[kv] >= 0 && part_of_key[kv] != j) fail_msg("key %d in partitions %d and %d", kv, part_of_key[kv], j);
                part_of_key[kv] = j;
            }
            *asum += floe_array_get_int32(b->columns[0], r);
        }
        *rows += b->num_rows;
        free(h);
        floe_batch_release(b);
    }
    floe_stream_close(s);
}

static void hash_sends_equal_keys_to_one_partition_and_keeps_every_row(void **state) {
    (void)state;
    floe_plan *v = values(12, 500, 37, 3), *r = hash_on_b(v, 4);
    assert_int_equal(floe_plan_partitions(r), 4);
    floe_exec_ctx ctx = test_ctx(pool, 128);
    int32_t part_of_key[1001];
    for (int i = 0; i <= 1000; i++) part_of_key[i] = -1;
    int64_t rows = 0, asum = 0;
    int32_t batches = 0;
    /* outputs of one execution read one after another on this thread: the
     * first drives the inputs and the others' rows wait in their queues */
    floe_exec_ctx ectx;
    floe_execution *x = test_begin(&ctx, &ectx);
    for (int32_t j = 0; j < 4; j++) drain(r, j, &ectx, part_of_key, &rows, &asum, &batches);
    floe_stream *again;
    assert_error(floe_plan_execute(r, 2, &ectx, &again), FLOE_ERR_INTERNAL, "output 2 opened twice in one execution");
    assert_int_equal(floe_execution_num_states(x), 1);
    floe_execution_end(x);
    assert_int_equal(rows, 6000);
    assert_int_equal(asum, 6000LL * 5999 / 2);
    int used[4] = {0};
    for (int i = 0; i <= 1000; i++)
        if (part_of_key[i] >= 0) used[part_of_key[i]]++;
    for (int j = 0; j < 4; j++) assert_true(used[j] > 0); /* 38 keys spread over all 4 */
    /* and again, in parallel through collect, after a codec roundtrip */
    floe_plan *copy;
    assert_ok(floe_plan_roundtrip(r, &copy));
    floe_batch *all;
    assert_ok(run_plan(copy, &ctx, &all));
    assert_int_equal(all->num_rows, 6000);
    floe_batch_release(all);
    floe_plan_release(copy);
    floe_plan_release(r);
    floe_plan_release(v);
}

static void round_robin_deals_batches_evenly(void **state) {
    (void)state;
    floe_plan *v = values(10, 100, 5, 2), *r;
    assert_ok(floe_plan_repartition(v, FLOE_REPARTITION_ROUND_ROBIN, NULL, 0, 3, &r));
    floe_exec_ctx ctx = test_ctx(pool, 1000);
    int64_t rows = 0, asum = 0;
    int32_t per[3] = {0};
    floe_exec_ctx ectx;
    floe_execution *x = test_begin(&ctx, &ectx);
    for (int32_t j = 0; j < 3; j++) drain(r, j, &ectx, NULL, &rows, &asum, &per[j]);
    floe_execution_end(x);
    assert_int_equal(rows, 1000);
    assert_int_equal(asum, 1000LL * 999 / 2);
    for (int j = 0; j < 3; j++) assert_true(per[j] == 3 || per[j] == 4); /* 10 batches dealt over 3 */
    floe_plan_release(r);
    floe_plan_release(v);
}

/* Fails on rows where b == 0: 1 / b. */
static floe_plan *failing(floe_plan *child) {
    floe_expr *one, *b, *div, *a;
    assert_ok(floe_expr_lit_int32(1, &one));
    assert_ok(floe_expr_column(1, &b));
    assert_ok(floe_expr_column(0, &a));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, one, b, &div));
    floe_expr *exprs[2] = {a, div};
    const char *names[2] = {"a", "b"};
    floe_plan *p;
    assert_ok(floe_plan_projection(child, exprs, names, 2, &p));
    floe_expr_release(one);
    floe_expr_release(b);
    floe_expr_release(a);
    floe_expr_release(div);
    return p;
}

static void a_failing_input_fails_every_output_partition(void **state) {
    (void)state;
    floe_plan *v = values(6, 50, 7, 3), *f = failing(v), *r = hash_on_b(f, 3);
    floe_exec_ctx ctx = test_ctx(pool, 1024), ectx;
    floe_execution *x = test_begin(&ctx, &ectx);
    for (int32_t j = 0; j < 3; j++) {
        floe_stream *s;
        assert_ok(floe_plan_execute(r, j, &ectx, &s));
        floe_status st = NULL;
        for (;;) {
            floe_batch *b = NULL;
            st = floe_stream_next(s, &b);
            if (st || !b) break;
            floe_batch_release(b);
        }
        if (!st) fail_msg("output partition %d ended as if complete", j);
        assert_int_equal(floe_status_code(st), FLOE_ERR_INVALID_ARGUMENT);
        /* the input's own error, without the operator chain (FLOE_LOG=debug adds it) */
        assert_null(strstr(floe_status_message(st), "Repartition"));
        assert_true(strlen(floe_status_message(st)) > 0);
        floe_status_free(st);
        floe_stream_close(s);
    }
    floe_execution_end(x);
    floe_batch *out = NULL;
    assert_error(run_plan(r, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
    assert_null(out);
    floe_plan_release(r);
    floe_plan_release(f);
    floe_plan_release(v);
}

static void cancellation_is_an_error_in_every_partition(void **state) {
    (void)state;
    floe_plan *v = values(6, 50, 7, 3), *r = hash_on_b(v, 2);
    floe_cancel cancel;
    floe_cancel_init(&cancel, NULL);
    floe_exec_ctx ctx = test_ctx(pool, 16), ectx;
    ctx.cancel = &cancel;
    floe_execution *x = test_begin(&ctx, &ectx);
    floe_stream *s[2];
    assert_ok(floe_plan_execute(r, 0, &ectx, &s[0]));
    assert_ok(floe_plan_execute(r, 1, &ectx, &s[1]));
    floe_batch *b;
    assert_ok(floe_stream_next(s[0], &b));
    assert_non_null(b);
    floe_batch_release(b);
    floe_cancel_set(&cancel);
    for (int j = 0; j < 2; j++) {
        floe_status st = NULL;
        for (int k = 0; k < 1000 && !st; k++) {
            b = NULL;
            st = floe_stream_next(s[j], &b);
            if (!st && !b) fail_msg("partition %d ended after cancellation", j);
            floe_batch_release(b);
        }
        assert_int_equal(floe_status_code(st), FLOE_ERR_CANCELLED);
        floe_status_free(st);
        floe_stream_close(s[j]);
    }
    floe_execution_end(x);
    floe_plan_release(r);
    floe_plan_release(v);
}

static void closing_outputs_early_releases_everything(void **state) {
    (void)state;
    floe_plan *v = values(40, 100, 7, 4), *r = hash_on_b(v, 3);
    floe_exec_ctx ctx = test_ctx(pool, 10), ectx;
    floe_execution *x = test_begin(&ctx, &ectx);
    floe_stream *s[3];
    for (int j = 0; j < 3; j++) assert_ok(floe_plan_execute(r, j, &ectx, &s[j]));
    floe_batch *b;
    assert_ok(floe_stream_next(s[1], &b));
    floe_batch_release(b);
    for (int j = 0; j < 3; j++) floe_stream_close(s[j]); /* leaks show under ASan */
    floe_execution_end(x);
    /* only one output of an execution opened, one batch read: the
     * execution's end stops the exchange's producers */
    x = test_begin(&ctx, &ectx);
    assert_ok(floe_plan_execute(r, 0, &ectx, &s[0]));
    assert_ok(floe_stream_next(s[0], &b));
    floe_batch_release(b);
    floe_stream_close(s[0]);
    floe_execution_end(x);
    /* a new execution after all closed starts afresh and sees every row */
    floe_batch *all;
    assert_ok(run_plan(r, &ctx, &all));
    assert_int_equal(all->num_rows, 4000);
    floe_batch_release(all);
    floe_plan_release(r);
    floe_plan_release(v);
}

static void bad_parts_are_refused_and_explain_names_the_scheme(void **state) {
    (void)state;
    floe_plan *v = values(1, 5, 3, 1), *r;
    floe_expr *k;
    assert_ok(floe_expr_column(1, &k));
    assert_error(floe_plan_repartition(v, FLOE_REPARTITION_HASH, NULL, 0, 4, &r), FLOE_ERR_INVALID_ARGUMENT, "key");
    assert_error(floe_plan_repartition(v, FLOE_REPARTITION_HASH, &k, 1, 0, &r), FLOE_ERR_INVALID_ARGUMENT, "0 partitions");
    floe_expr *bad;
    assert_ok(floe_expr_column(9, &bad));
    assert_error(floe_plan_repartition(v, FLOE_REPARTITION_HASH, &bad, 1, 2, &r), FLOE_ERR_INVALID_ARGUMENT, "Repartition key 0");
    floe_expr_release(bad);
    assert_ok(floe_plan_repartition(v, FLOE_REPARTITION_HASH, &k, 1, 4, &r));
    assert_int_equal(floe_repartition_kind_of(r), FLOE_REPARTITION_HASH);
    assert_int_equal(floe_repartition_num_keys(r), 1);
    assert_int_equal(floe_repartition_key(r, 0)->column, 1);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(r, &b));
    assert_non_null(strstr(floe_buf_cstr(&b), "Repartition: Hash([#1], 4), partitions=4"));
    floe_buf_free(&b);
    floe_plan *rr, *copy;
    assert_ok(floe_plan_repartition(v, FLOE_REPARTITION_ROUND_ROBIN, NULL, 0, 2, &rr));
    assert_ok(floe_plan_roundtrip(rr, &copy));
    assert_ok(floe_plan_explain(copy, &b));
    assert_non_null(strstr(floe_buf_cstr(&b), "Repartition: RoundRobin(2), partitions=2"));
    floe_buf_free(&b);
    floe_plan_release(copy);
    floe_plan_release(rr);
    floe_plan_release(r);
    floe_expr_release(k);
    floe_plan_release(v);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(hash_sends_equal_keys_to_one_partition_and_keeps_every_row, setup, teardown),
               cmocka_unit_test_setup_teardown(round_robin_deals_batches_evenly, setup, teardown),
               cmocka_unit_test_setup_teardown(a_failing_input_fails_every_output_partition, setup, teardown),
               cmocka_unit_test_setup_teardown(cancellation_is_an_error_in_every_partition, setup, teardown),
               cmocka_unit_test_setup_teardown(closing_outputs_early_releases_everything, setup, teardown),
               cmocka_unit_test_setup_teardown(bad_parts_are_refused_and_explain_names_the_scheme, setup, teardown))
