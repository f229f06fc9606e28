/* Thread pool and task groups: results, first-error propagation,
 * cancellation, help-while-waiting (nested waits never deadlock), shutdown
 * with pending tasks, the default pool. */
#include "floe_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "base/threadpool.h"
#include "floe/memory.h"

/* A deadlock must fail the test rather than hang until the ctest timeout. */
static int arm_watchdog(void **state) {
    (void)state;
    alarm(60);
    return 0;
}

static floe_threadpool *make_pool(size_t n) {
    floe_threadpool *p = NULL;
    assert_ok(floe_threadpool_create(n, &p));
    assert_int_equal(floe_threadpool_size(p), n);
    return p;
}

/* ---- summing ---- */

typedef struct {
    atomic_llong *sum;
    long long value;
} add_arg;

static floe_status add_task(void *arg, const floe_cancel *cancel) {
    add_arg *a = arg;
    atomic_fetch_add(a->sum, a->value);
    return NULL;
}

static void many_tasks_sum_to_the_expected_total(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(4);
    enum { N = 20000 };
    add_arg *args = malloc(N * sizeof *args);
    atomic_llong sum = 0;
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    for (int i = 0; i < N; i++) {
        args[i] = (add_arg){&sum, i + 1};
        assert_true(floe_task_group_submit(g, add_task, &args[i]));
    }
    assert_ok(floe_task_group_wait(g));
    assert_int_equal(atomic_load(&sum), (long long)N * (N + 1) / 2);
    /* The group is reusable after a wait. */
    args[0].value = 5;
    assert_true(floe_task_group_submit(g, add_task, &args[0]));
    assert_ok(floe_task_group_wait(g));
    assert_int_equal(atomic_load(&sum), (long long)N * (N + 1) / 2 + 5);
    floe_task_group_destroy(g);
    floe_threadpool_destroy(pool);
    free(args);
}

/* ---- errors and cancellation ---- */

typedef struct {
    int index;
    int fail_index;
    atomic_int *started;
} err_arg;

/* The failing task errors at once; the others work in small steps and
 * stop with FLOE_ERR_CANCELLED as soon as the token is set. */
static floe_status maybe_fail_task(void *arg, const floe_cancel *cancel) {
    err_arg *a = arg;
    atomic_fetch_add(a->started, 1);
    if (a->index == a->fail_index) return floe_error(FLOE_ERR_CORRUPT, "bad page in file %d", a->index);
    for (int step = 0; step < 200; step++) {
        FLOE_TRY(floe_cancel_check(cancel, "scan"));
        usleep(1000);
    }
    return NULL;
}

static void first_error_reaches_the_waiter_not_the_cancellations(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(3);
    for (int round = 0; round < 5; round++) {
        enum { N = 50 };
        err_arg args[N];
        atomic_int started = 0;
        floe_task_group *g;
        assert_ok(floe_task_group_create(pool, NULL, &g));
        for (int i = 0; i < N; i++) {
            args[i] = (err_arg){i, round % 3, &started};
            floe_task_group_submit(g, maybe_fail_task, &args[i]);
        }
        char expect[64];
        snprintf(expect, sizeof expect, "bad page in file %d", round % 3);
        const char *needle = expect;
        assert_error(floe_task_group_wait(g), FLOE_ERR_CORRUPT, needle);
        floe_task_group_destroy(g);
    }
    floe_threadpool_destroy(pool);
}

static void an_error_stops_running_and_queued_siblings_early(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(2);
    enum { N = 1000 };
    static err_arg args[N];
    atomic_int started = 0;
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    /* Task 0 fails; without cancellation the rest would take ~100 s. */
    for (int i = 0; i < N; i++) {
        args[i] = (err_arg){i, 0, &started};
        floe_task_group_submit(g, maybe_fail_task, &args[i]);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_error(floe_task_group_wait(g), FLOE_ERR_CORRUPT, "bad page in file 0");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(atomic_load(&started) < 20);
    assert_true(secs < 5.0);
    /* A failed group stays cancelled: later tasks are skipped. */
    assert_true(floe_cancel_is_set(floe_task_group_token(g)));
    floe_task_group_destroy(g);
    floe_threadpool_destroy(pool);
}

static void cancelled_group_skips_tasks_and_reports_cancelled(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(2);
    atomic_llong sum = 0;
    add_arg a = {&sum, 1};
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    floe_task_group_cancel(g);
    for (int i = 0; i < 10; i++) floe_task_group_submit(g, add_task, &a);
    assert_error(floe_task_group_wait(g), FLOE_ERR_CANCELLED, "not run");
    assert_int_equal(atomic_load(&sum), 0);
    floe_task_group_destroy(g);
    floe_threadpool_destroy(pool);
}

static void parent_token_cancels_child_group(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(2);
    floe_cancel query;
    floe_cancel_init(&query, NULL);
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, &query, &g));
    assert_false(floe_cancel_is_set(floe_task_group_token(g)));
    assert_null(floe_cancel_check(floe_task_group_token(g), "x"));
    floe_cancel_set(&query);
    assert_true(floe_cancel_is_set(floe_task_group_token(g)));
    assert_error(floe_cancel_check(floe_task_group_token(g), "scan of t"), FLOE_ERR_CANCELLED, "scan of t");
    atomic_llong sum = 0;
    add_arg a = {&sum, 1};
    floe_task_group_submit(g, add_task, &a);
    assert_error(floe_task_group_wait(g), FLOE_ERR_CANCELLED, "cancelled");
    assert_int_equal(atomic_load(&sum), 0);
    floe_task_group_destroy(g);
    floe_threadpool_destroy(pool);
}

/* ---- nested waits ---- */

typedef struct {
    floe_threadpool *pool;
    int depth;      /* levels of nesting below this task */
    int fanout;
    int fail_leaf;  /* a leaf with this index fails (-1: none) */
    int index;
    atomic_llong *leaves;
} nest_arg;

/* Creates a group on the same pool, submits `fanout` children and waits
 * for them from inside a worker. */
static floe_status nested_task(void *arg, const floe_cancel *cancel) {
    nest_arg *a = arg;
    if (a->depth == 0) {
        atomic_fetch_add(a->leaves, 1);
        if (a->index == a->fail_leaf) return floe_error(FLOE_ERR_IO, "leaf %d failed", a->index);
        return NULL;
    }
    floe_task_group *g;
    FLOE_TRY(floe_task_group_create(a->pool, cancel, &g));
    nest_arg *kids = floe_malloc_array((size_t)a->fanout, sizeof *kids);
    if (!kids) {
        floe_task_group_destroy(g);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "kids");
    }
    for (int i = 0; i < a->fanout; i++) {
        kids[i] = *a;
        kids[i].depth = a->depth - 1;
        kids[i].index = a->index * a->fanout + i;
        floe_task_group_submit(g, nested_task, &kids[i]);
    }
    floe_status st = floe_task_group_wait(g);
    floe_task_group_destroy(g);
    floe_free(kids);
    return floe_status_wrap(st, "level %d", a->depth);
}

static void run_nested(size_t threads, int outer, int depth, int fanout) {
    floe_threadpool *pool = make_pool(threads);
    atomic_llong leaves = 0;
    nest_arg *args = calloc((size_t)outer, sizeof *args);
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    for (int i = 0; i < outer; i++) {
        args[i] = (nest_arg){pool, depth, fanout, -1, i, &leaves};
        floe_task_group_submit(g, nested_task, &args[i]);
    }
    assert_ok(floe_task_group_wait(g));
    long long expect = outer;
    for (int d = 0; d < depth; d++) expect *= fanout;
    assert_int_equal(atomic_load(&leaves), expect);
    floe_task_group_destroy(g);
    floe_threadpool_destroy(pool);
    free(args);
}

static void nested_waits_inside_tasks_do_not_deadlock_with_one_thread(void **state) {
    (void)state;
    run_nested(1, 4, 2, 5);
}

static void nested_waits_inside_tasks_do_not_deadlock_with_two_threads(void **state) {
    (void)state;
    run_nested(2, 8, 3, 4);
}

static void nested_error_propagates_to_the_outer_waiter(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(2);
    atomic_llong leaves = 0;
    nest_arg root = {pool, 2, 4, 9, 0, &leaves};
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    floe_task_group_submit(g, nested_task, &root);
    assert_error(floe_task_group_wait(g), FLOE_ERR_IO, "level 2: level 1: leaf 9 failed");
    floe_task_group_destroy(g);
    floe_threadpool_destroy(pool);
}

/* ---- help while waiting from a non-worker thread ---- */

typedef struct {
    atomic_bool *release;
    pthread_t *ran_on;
} block_arg;

static floe_status block_until_released(void *arg, const floe_cancel *cancel) {
    block_arg *a = arg;
    while (!atomic_load(a->release) && !floe_cancel_is_set(cancel)) usleep(1000);
    return NULL;
}

static floe_status record_thread(void *arg, const floe_cancel *cancel) {
    block_arg *a = arg;
    *a->ran_on = pthread_self();
    return NULL;
}

static void waiter_runs_its_queued_tasks_when_workers_are_busy(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(1);
    atomic_bool release = false;
    pthread_t where[5];
    block_arg blocker = {&release, NULL}, rec[5];
    floe_task_group *busy, *mine;
    assert_ok(floe_task_group_create(pool, NULL, &busy));
    assert_ok(floe_task_group_create(pool, NULL, &mine));
    floe_task_group_submit(busy, block_until_released, &blocker);
    usleep(20000); /* let the only worker pick up the blocker */
    for (int i = 0; i < 5; i++) {
        rec[i] = (block_arg){&release, &where[i]};
        floe_task_group_submit(mine, record_thread, &rec[i]);
    }
    /* The worker is blocked, so only this thread can run them. */
    assert_ok(floe_task_group_wait(mine));
    for (int i = 0; i < 5; i++) assert_true(pthread_equal(where[i], pthread_self()));
    atomic_store(&release, true);
    assert_ok(floe_task_group_wait(busy));
    floe_task_group_destroy(mine);
    floe_task_group_destroy(busy);
    floe_threadpool_destroy(pool);
}

/* ---- shutdown ---- */

static void shutdown_cancels_pending_tasks_and_reports_to_their_group(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(1);
    atomic_bool never = false;
    block_arg blocker = {&never, NULL};
    atomic_llong sum = 0;
    add_arg a = {&sum, 1};
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    floe_task_group_submit(g, block_until_released, &blocker);
    usleep(20000);
    for (int i = 0; i < 10; i++) floe_task_group_submit(g, add_task, &a);
    /* Pending tasks complete as cancelled; that cancels the group, which
     * lets the running blocker stop, so shutdown returns. */
    floe_threadpool_shutdown(pool, false);
    assert_error(floe_task_group_wait(g), FLOE_ERR_CANCELLED, "shut down");
    assert_int_equal(atomic_load(&sum), 0);
    /* Submitting after shutdown is refused and reported, never lost. */
    assert_false(floe_task_group_submit(g, add_task, &a));
    assert_error(floe_task_group_wait(g), FLOE_ERR_CANCELLED, "shut down");
    floe_threadpool_shutdown(pool, false); /* again: no effect */
    floe_task_group_destroy(g);
    floe_threadpool_destroy(pool);
}

static void shutdown_with_drain_runs_every_queued_task(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(2);
    atomic_llong sum = 0;
    add_arg a = {&sum, 1};
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    for (int i = 0; i < 500; i++) floe_task_group_submit(g, add_task, &a);
    floe_threadpool_shutdown(pool, true);
    assert_int_equal(atomic_load(&sum), 500);
    assert_ok(floe_task_group_wait(g));
    floe_task_group_destroy(g);
    floe_threadpool_destroy(pool);
}

static void destroying_a_group_waits_for_its_tasks(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(2);
    atomic_llong sum = 0;
    add_arg a = {&sum, 2};
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    for (int i = 0; i < 100; i++) floe_task_group_submit(g, add_task, &a);
    floe_task_group_destroy(g);
    assert_int_equal(atomic_load(&sum), 200);
    floe_threadpool_destroy(pool);
}

/* ---- memory accounting ---- */

typedef struct {
    void *block;
    floe_mem_tracker *seen;
} alloc_arg;

static floe_status alloc_task(void *arg, const floe_cancel *cancel) {
    alloc_arg *a = arg;
    a->seen = floe_mem_current();
    a->block = floe_malloc(1000);
    return a->block ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "x");
}

static void tasks_run_with_the_submitters_memory_tracker(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(2);
    floe_mem_tracker q;
    floe_mem_tracker_init(&q, "query");
    floe_mem_tracker *prev = floe_mem_set_current(&q);
    alloc_arg args[4] = {{0}};
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    for (int i = 0; i < 4; i++) floe_task_group_submit(g, alloc_task, &args[i]);
    assert_ok(floe_task_group_wait(g));
    floe_task_group_destroy(g);
    for (int i = 0; i < 4; i++) assert_ptr_equal(args[i].seen, &q);
    assert_int_equal(floe_mem_current_bytes(&q), 4000);
    for (int i = 0; i < 4; i++) floe_free(args[i].block);
    assert_int_equal(floe_mem_current_bytes(&q), 0);
    floe_mem_set_current(prev);
    floe_threadpool_destroy(pool);
}

/* ---- parallel loops ---- */

typedef struct {
    const int32_t *values;
    atomic_llong sum;
    atomic_int calls;
    size_t fail_at; /* SIZE_MAX: never */
} loop_ctx;

static floe_status sum_range(void *arg, size_t begin, size_t end, const floe_cancel *cancel) {
    loop_ctx *c = arg;
    atomic_fetch_add(&c->calls, 1);
    long long s = 0;
    for (size_t i = begin; i < end; i++) {
        if (i == c->fail_at) return floe_error(FLOE_ERR_CORRUPT, "bad value at row %zu", i);
        s += c->values[i];
    }
    atomic_fetch_add(&c->sum, s);
    return NULL;
}

static void parallel_for_covers_every_item_exactly_once(void **state) {
    (void)state;
    floe_threadpool *pool = make_pool(3);
    enum { N = 100003 };
    int32_t *v = malloc(N * sizeof *v);
    long long expect = 0;
    for (int i = 0; i < N; i++) expect += v[i] = i % 1000 - 300;
    const size_t grains[] = {0, 1, 7, 1000, N, 10 * N};
    for (size_t gi = 0; gi < sizeof grains / sizeof grains[0]; gi++) {
        loop_ctx c = {v, 0, 0, SIZE_MAX};
        assert_ok(floe_parallel_for(pool, N, grains[gi], sum_range, &c, NULL));
        assert_int_equal(atomic_load(&c.sum), expect);
        assert_true(atomic_load(&c.calls) >= 1 && atomic_load(&c.calls) <= 12);
    }
    loop_ctx empty = {v, 0, 0, SIZE_MAX};
    assert_ok(floe_parallel_for(pool, 0, 1, sum_range, &empty, NULL));
    assert_int_equal(atomic_load(&empty.calls), 0);
    loop_ctx bad = {v, 0, 0, 77777};
    assert_error(floe_parallel_for(pool, N, 100, sum_range, &bad, NULL), FLOE_ERR_CORRUPT, "row 77777");
    free(v);
    floe_threadpool_destroy(pool);
}

/* ---- worker ids ---- */

typedef struct {
    atomic_int *seen_mask;
    atomic_int *invalid;
} id_arg;

static floe_status record_worker_id(void *arg, const floe_cancel *cancel) {
    id_arg *a = arg;
    int id = floe_threadpool_worker_id();
    if (id >= 0 && id < 3) atomic_fetch_or(a->seen_mask, 1 << id);
    else if (id != -1) atomic_fetch_add(a->invalid, 1);
    usleep(200);
    return NULL;
}

static void worker_ids_are_dense_and_minus_one_elsewhere(void **state) {
    (void)state;
    assert_int_equal(floe_threadpool_worker_id(), -1);
    floe_threadpool *pool = make_pool(3);
    atomic_int mask = 0, invalid = 0;
    id_arg a = {&mask, &invalid};
    floe_task_group *g;
    assert_ok(floe_task_group_create(pool, NULL, &g));
    for (int i = 0; i < 300; i++) floe_task_group_submit(g, record_worker_id, &a);
    assert_ok(floe_task_group_wait(g));
    floe_task_group_destroy(g);
    assert_int_equal(atomic_load(&invalid), 0);
    assert_true(atomic_load(&mask) != 0);
    assert_true((atomic_load(&mask) & ~7) == 0);
    floe_threadpool_destroy(pool);
}

/* ---- sizing and the default pool ---- */

static void floe_threads_env_sets_default_worker_count(void **state) {
    (void)state;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    setenv("FLOE_THREADS", "3", 1);
    assert_int_equal(floe_threadpool_default_threads(), 3);
    setenv("FLOE_THREADS", "0", 1);
    assert_int_equal(floe_threadpool_default_threads(), (size_t)cpus);
    setenv("FLOE_THREADS", "lots", 1);
    assert_int_equal(floe_threadpool_default_threads(), (size_t)cpus);
    unsetenv("FLOE_THREADS");
    assert_int_equal(floe_threadpool_default_threads(), (size_t)cpus);
}

static void *get_default(void *out) {
    floe_status st = floe_threadpool_default((floe_threadpool **)out);
    floe_status_free(st);
    return NULL;
}

static void default_pool_is_created_once_across_threads(void **state) {
    (void)state;
    setenv("FLOE_THREADS", "3", 1);
    floe_threadpool *seen[4] = {0};
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, get_default, &seen[i]);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    unsetenv("FLOE_THREADS");
    floe_threadpool *p = NULL;
    assert_ok(floe_threadpool_default(&p));
    for (int i = 0; i < 4; i++) assert_ptr_equal(seen[i], p);
    assert_int_equal(floe_threadpool_size(p), 3);
    atomic_llong sum = 0;
    add_arg a = {&sum, 7};
    floe_task_group *g;
    assert_ok(floe_task_group_create(p, NULL, &g));
    floe_task_group_submit(g, add_task, &a);
    assert_ok(floe_task_group_wait(g));
    floe_task_group_destroy(g);
    assert_int_equal(atomic_load(&sum), 7);
}

#define T(f) cmocka_unit_test_setup(f, arm_watchdog)
FLOE_TEST_MAIN(T(many_tasks_sum_to_the_expected_total),
               T(first_error_reaches_the_waiter_not_the_cancellations),
               T(an_error_stops_running_and_queued_siblings_early),
               T(cancelled_group_skips_tasks_and_reports_cancelled),
               T(parent_token_cancels_child_group),
               T(nested_waits_inside_tasks_do_not_deadlock_with_one_thread),
               T(nested_waits_inside_tasks_do_not_deadlock_with_two_threads),
               T(nested_error_propagates_to_the_outer_waiter),
               T(waiter_runs_its_queued_tasks_when_workers_are_busy),
               T(shutdown_cancels_pending_tasks_and_reports_to_their_group),
               T(shutdown_with_drain_runs_every_queued_task),
               T(destroying_a_group_waits_for_its_tasks),
               T(tasks_run_with_the_submitters_memory_tracker),
               T(parallel_for_covers_every_item_exactly_once),
               T(worker_ids_are_dense_and_minus_one_elsewhere),
               T(floe_threads_env_sets_default_worker_count),
               T(default_pool_is_created_once_across_threads))
