/*
 * test_coalesce.c — CoalescePartitions and Repartition never block a pool
 * worker on a full queue and never deadlock on a saturated pool: nested
 * Coalesce / Repartition chains on one- and two-thread pools, consumers
 * that themselves run inside pool tasks (with every worker taken), slow
 * consumers (producers park and are resumed), and errors from the bottom
 * of a nest reaching the top.
 */
#include <time.h>
#include <unistd.h>

#include "exec_util.h"
#include "floe/exec_ops.h"

/* Values over `parts` partitions: nb batches of n rows, a = row number,
 * b = a % 11 (b == 0 makes `failing` divide by zero). */
static floe_plan *values(int nb, int n, int32_t parts) {
    floe_batch **bs = malloc((size_t)nb * sizeof *bs);
    int32_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    for (int k = 0; k < nb; k++) {
        for (int i = 0; i < n; i++) {
            a[i] = k * n + i;
            b[i] = a[i] % 11;
        }
        bs[k] = int_batch(a, b, n);
    }
    floe_plan *p;
    assert_ok(floe_plan_values(bs[0]->schema, bs, nb, parts, &p));
    for (int k = 0; k < nb; k++) floe_batch_release(bs[k]);
    free(bs);
    free(a);
    free(b);
    return p;
}

static floe_plan *coalesce(floe_plan *c) {
    floe_plan *p;
    assert_ok(floe_plan_coalesce(c, &p));
    floe_plan_release(c);
    return p;
}
static floe_plan *rehash(floe_plan *c, int32_t n) {
    floe_expr *k;
    assert_ok(floe_expr_column(1, &k));
    floe_plan *p;
    assert_ok(floe_plan_repartition(c, FLOE_REPARTITION_HASH, &k, 1, n, &p));
    floe_expr_release(k);
    floe_plan_release(c);
    return p;
}
static floe_plan *deal(floe_plan *c, int32_t n) {
    floe_plan *p;
    assert_ok(floe_plan_repartition(c, FLOE_REPARTITION_ROUND_ROBIN, NULL, 0, n, &p));
    floe_plan_release(c);
    return p;
}

/* Coalesce(RoundRobin 2(Coalesce(Hash 3(Coalesce(Hash 4(Values 5)))))) */
static floe_plan *nest(int nb, int n) {
    return coalesce(deal(coalesce(rehash(coalesce(rehash(values(nb, n, 5), 4)), 3)), 2));
}

/* Run p and check it returns rows 0..total-1 exactly once each. */
static void expect_all_rows(const floe_plan *p, floe_threadpool *pool, int64_t total) {
    floe_exec_ctx ctx = test_ctx(pool, 64);
    floe_batch *out;
    assert_ok(run_plan(p, &ctx, &out));
    assert_non_null(out);
    assert_int_equal(out->num_rows, total);
    char *seen = calloc((size_t)total, 1);
    for (int64_t r = 0; r < total; r++) {
        int32_t a = floe_array_get_int32(out->columns[0], r);
        assert_true(a >= 0 && a < total && !seen[a]);
        seen[a] = 1;
    }
    free(seen);
    floe_batch_release(out);
}

static void nested_exchanges_finish_on_a_one_thread_pool(void **state) {
    (void)state;
    floe_threadpool *pool;
    assert_ok(floe_threadpool_create(1, &pool));
    floe_plan *p = nest(40, 50);
    for (int i = 0; i < 5; i++) expect_all_rows(p, pool, 2000);
    floe_plan_release(p);
    floe_threadpool_destroy(pool);
}

static void nested_exchanges_finish_on_a_two_thread_pool(void **state) {
    (void)state;
    floe_threadpool *pool;
    assert_ok(floe_threadpool_create(2, &pool));
    floe_plan *p = nest(60, 40);
    for (int i = 0; i < 10; i++) expect_all_rows(p, pool, 2400);
    /* a plan with several output partitions collected in parallel */
    floe_plan *r = rehash(nest(20, 30), 3);
    for (int i = 0; i < 5; i++) expect_all_rows(r, pool, 600);
    floe_plan_release(r);
    floe_plan_release(p);
    floe_threadpool_destroy(pool);
}

typedef struct consumer_task {
    const floe_plan *p;
    floe_threadpool *pool;
    int64_t rows;
    atomic_int done;
    int worker;
} consumer_task;

static floe_status consume_in_task(void *arg, const floe_cancel *cancel) {
    consumer_task *t = arg;
    (void)cancel;
    t->worker = floe_threadpool_worker_id();
    floe_exec_ctx ctx = test_ctx(t->pool, 64);
    floe_batch *out = NULL;
    floe_status st = run_plan(t->p, &ctx, &out);
    t->rows = out ? out->num_rows : -1;
    floe_batch_release(out);
    atomic_store(&t->done, 1);
    return st;
}

/* Wait for the tasks WITHOUT helping (so they run on the workers). */
static void await_tasks(consumer_task *t, int n) {
    for (int spins = 0; spins < 3000; spins++) {
        int done = 0;
        for (int i = 0; i < n; i++) done += atomic_load(&t[i].done);
        if (done == n) return;
        usleep(10000);
    }
    fail_msg("consumers running inside pool tasks did not finish (deadlock)");
}

static void consumers_inside_pool_tasks_finish_with_every_worker_taken(void **state) {
    (void)state;
    for (size_t threads = 1; threads <= 2; threads++) {
        floe_threadpool *pool;
        assert_ok(floe_threadpool_create(threads, &pool));
        /* One plan per consumer: a node instance runs in one execution at
         * a time (Repartition and HashJoin keep that execution's shared
         * state on the node; see exec.h). */
        floe_plan *plans[2] = {nest(30, 40), nest(30, 40)};
        consumer_task t[2];
        memset(t, 0, sizeof t);
        floe_task_group *g;
        assert_ok(floe_task_group_create(pool, NULL, &g));
        for (size_t i = 0; i < threads; i++) {
            t[i].p = plans[i];
            t[i].pool = pool;
            assert_true(floe_task_group_submit(g, consume_in_task, &t[i]));
        }
        await_tasks(t, (int)threads);
        assert_ok(floe_task_group_wait(g));
        floe_task_group_destroy(g);
        for (size_t i = 0; i < threads; i++) {
            assert_int_equal(t[i].rows, 1200);
            assert_true(t[i].worker >= 0); /* it really ran on a worker */
        }
        floe_plan_release(plans[0]);
        floe_plan_release(plans[1]);
        floe_threadpool_destroy(pool);
    }
}

static void slow_consumer_parks_and_resumes_producers(void **state) {
    (void)state;
    floe_threadpool *pool;
    assert_ok(floe_threadpool_create(2, &pool));
    floe_plan *p = coalesce(values(64, 10, 16));
    floe_exec_ctx ctx = test_ctx(pool, 64);
    floe_stream *s;
    assert_ok(test_execute(p, 0, &ctx, &s));
    int64_t rows = 0;
    for (int k = 0;; k++) {
        floe_batch *b;
        assert_ok(floe_stream_next(s, &b));
        if (!b) break;
        if (k < 10) usleep(5000); /* producers fill the queue and park meanwhile */
        rows += b->num_rows;
        floe_batch_release(b);
    }
    assert_int_equal(rows, 640);
    floe_stream_close(s);
    floe_plan_release(p);
    floe_threadpool_destroy(pool);
}

/* b == 0 divides by zero at the bottom of the nest. */
static void error_at_the_bottom_of_a_nest_reaches_the_top(void **state) {
    (void)state;
    floe_threadpool *pool;
    assert_ok(floe_threadpool_create(1, &pool));
    floe_plan *v = values(10, 20, 3);
    floe_expr *one, *b, *a, *div;
    assert_ok(floe_expr_lit_int32(1, &one));
    assert_ok(floe_expr_column(1, &b));
    assert_ok(floe_expr_column(0, &a));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, one, b, &div));
    floe_expr *exprs[2] = {a, div};
    const char *names[2] = {"a", "b"};
    floe_plan *f;
    assert_ok(floe_plan_projection(v, exprs, names, 2, &f));
    floe_plan_release(v);
    floe_plan *p = coalesce(deal(coalesce(rehash(f, 3)), 2));
    floe_exec_ctx ctx = test_ctx(pool, 8);
    floe_batch *out = NULL;
    assert_error(run_plan(p, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
    assert_null(out);
    floe_plan_release(p);
    floe_expr_release(one);
    floe_expr_release(b);
    floe_expr_release(a);
    floe_expr_release(div);
    floe_threadpool_destroy(pool);
}

FLOE_TEST_MAIN(cmocka_unit_test(nested_exchanges_finish_on_a_one_thread_pool),
               cmocka_unit_test(nested_exchanges_finish_on_a_two_thread_pool),
               cmocka_unit_test(consumers_inside_pool_tasks_finish_with_every_worker_taken),
               cmocka_unit_test(slow_consumer_parks_and_resumes_producers),
               cmocka_unit_test(error_at_the_bottom_of_a_nest_reaches_the_top))
