/* The tracked allocator: current and peak bytes per tracker, the per-thread
 * current tracker, realloc accounting and freeing on another thread. */
#include "floe_test.h"

#include <pthread.h>

#include <stdatomic.h>

#include "floe/memory.h"

static void malloc_and_free_update_current_and_peak(void **state) {
    (void)state;
    floe_mem_tracker t;
    floe_mem_tracker_init(&t, "q1");
    floe_mem_tracker *prev = floe_mem_set_current(&t);
    int64_t root_before = floe_mem_current_bytes(floe_mem_root());
    void *a = floe_malloc(1000);
    void *b = floe_malloc(500);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(floe_mem_current_bytes(&t), 1500);
    assert_int_equal(floe_mem_peak_bytes(&t), 1500);
    /* The root is charged too. */
    assert_true(floe_mem_current_bytes(floe_mem_root()) >= root_before + 1500);
    floe_free(a);
    assert_int_equal(floe_mem_current_bytes(&t), 500);
    assert_int_equal(floe_mem_peak_bytes(&t), 1500);
    floe_mem_reset_peak(&t);
    assert_int_equal(floe_mem_peak_bytes(&t), 500);
    floe_free(b);
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    assert_int_equal(t.allocations, 2);
    floe_mem_set_current(prev);
}

static void set_current_returns_previous_and_null_means_root(void **state) {
    (void)state;
    floe_mem_tracker a, b;
    floe_mem_tracker_init(&a, "a");
    floe_mem_tracker_init(&b, "b");
    floe_mem_tracker *orig = floe_mem_set_current(&a);
    assert_ptr_equal(floe_mem_current(), &a);
    assert_ptr_equal(floe_mem_set_current(&b), &a);
    assert_ptr_equal(floe_mem_current(), &b);
    floe_mem_set_current(NULL);
    assert_ptr_equal(floe_mem_current(), floe_mem_root());
    floe_mem_set_current(orig);
}

typedef struct {
    floe_mem_tracker *tracker;
    void *block;
    floe_mem_tracker *seen_current;
} thread_arg;

static void *allocate_on_other_thread(void *p) {
    thread_arg *arg = p;
    /* A new thread starts with the root as current, whatever the creator had. */
    arg->seen_current = floe_mem_current();
    floe_mem_tracker *prev = floe_mem_set_current(arg->tracker);
    arg->block = floe_malloc(300);
    floe_mem_set_current(prev);
    return NULL;
}

static void current_tracker_is_per_thread(void **state) {
    (void)state;
    floe_mem_tracker mine, theirs;
    floe_mem_tracker_init(&mine, "mine");
    floe_mem_tracker_init(&theirs, "theirs");
    floe_mem_tracker *prev = floe_mem_set_current(&mine);
    thread_arg arg = {&theirs, NULL, NULL};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, allocate_on_other_thread, &arg), 0);
    pthread_join(th, NULL);
    assert_ptr_equal(arg.seen_current, floe_mem_root());
    assert_ptr_equal(floe_mem_current(), &mine);
    assert_int_equal(floe_mem_current_bytes(&theirs), 300);
    assert_int_equal(floe_mem_current_bytes(&mine), 0);
    /* Freed here, on another thread: the block still refunds its own tracker. */
    floe_free(arg.block);
    assert_int_equal(floe_mem_current_bytes(&theirs), 0);
    assert_int_equal(floe_mem_current_bytes(&mine), 0);
    floe_mem_set_current(prev);
}

static void realloc_charges_the_difference_to_the_original_tracker(void **state) {
    (void)state;
    floe_mem_tracker t, other;
    floe_mem_tracker_init(&t, "t");
    floe_mem_tracker_init(&other, "other");
    floe_mem_tracker *prev = floe_mem_set_current(&t);
    char *p = floe_realloc(NULL, 100);
    assert_non_null(p);
    memset(p, 'x', 100);
    assert_int_equal(floe_mem_current_bytes(&t), 100);
    floe_mem_set_current(&other);
    p = floe_realloc(p, 4000);
    assert_non_null(p);
    assert_int_equal(p[99], 'x');
    assert_int_equal(floe_mem_current_bytes(&t), 4000);
    assert_int_equal(floe_mem_peak_bytes(&t), 4000);
    assert_int_equal(floe_mem_current_bytes(&other), 0);
    p = floe_realloc(p, 10);
    assert_int_equal(floe_mem_current_bytes(&t), 10);
    assert_int_equal(floe_mem_peak_bytes(&t), 4000);
    floe_free(p);
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    floe_mem_set_current(prev);
}

static void calloc_zeroes_and_overflow_returns_null(void **state) {
    (void)state;
    floe_mem_tracker t;
    floe_mem_tracker_init(&t, "c");
    floe_mem_tracker *prev = floe_mem_set_current(&t);
    int *z = floe_calloc(100, sizeof(int));
    for (int i = 0; i < 100; i++) assert_int_equal(z[i], 0);
    assert_int_equal(floe_mem_current_bytes(&t), 100 * (int64_t)sizeof(int));
    floe_free(z);
    assert_null(floe_calloc(SIZE_MAX / 2, 4));
    assert_null(floe_malloc_array(SIZE_MAX / 2, 4));
    assert_null(floe_malloc(SIZE_MAX));
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    floe_free(NULL);
    floe_mem_set_current(prev);
}

static void strdup_and_strndup_copy_and_are_tracked(void **state) {
    (void)state;
    floe_mem_tracker t;
    floe_mem_tracker_init(&t, "s");
    floe_mem_tracker *prev = floe_mem_set_current(&t);
    char *s = floe_strdup("snapshot");
    assert_string_equal(s, "snapshot");
    assert_int_equal(floe_mem_current_bytes(&t), 9);
    char *n = floe_strndup("snapshot", 4);
    assert_string_equal(n, "snap");
    assert_null(floe_strdup(NULL));
    assert_null(floe_strndup(NULL, 3));
    floe_free(s);
    floe_free(n);
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    floe_mem_set_current(prev);
}

/* A limit refuses big blocks and reservations past it, never small blocks. */
static void limit_refuses_big_blocks_and_reservations(void **state) {
    (void)state;
    floe_mem_tracker t;
    floe_mem_tracker_init(&t, "limited");
    floe_mem_set_limit(&t, 100000);
    assert_int_equal(floe_mem_limit(&t), 100000);
    floe_mem_tracker *prev = floe_mem_set_current(&t);
    void *a = floe_malloc(60000);
    assert_non_null(a);
    assert_null(floe_malloc(60000));            /* 120000 > 100000 */
    assert_null(floe_calloc(1, 60000));
    assert_null(floe_realloc(a, 120000));       /* a stays valid */
    void *small = floe_malloc(100);             /* below FLOE_MEM_DENY_MIN */
    assert_non_null(small);
    assert_int_equal(floe_mem_available(&t), 100000 - 60100);
    assert_false(floe_mem_try_reserve(&t, 50000));
    assert_true(floe_mem_try_reserve(&t, 30000));
    assert_int_equal(floe_mem_current_bytes(&t), 90100);
    floe_mem_release(&t, 30000);
    assert_true(atomic_load(&t.denied) == 4);
    floe_free(a);
    floe_free(small);
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    floe_mem_set_current(prev);
    char buf[32];
    floe_mem_format(256LL << 20, buf, sizeof buf);
    assert_string_equal(buf, "256.0 MiB");
    floe_mem_format(3LL << 29, buf, sizeof buf);
    assert_string_equal(buf, "1.5 GiB");
    floe_mem_format(100, buf, sizeof buf);
    assert_string_equal(buf, "100 bytes");
    assert_true(floe_mem_physical() > 0);
}

FLOE_TEST_MAIN(cmocka_unit_test(limit_refuses_big_blocks_and_reservations),
               cmocka_unit_test(malloc_and_free_update_current_and_peak),
               cmocka_unit_test(set_current_returns_previous_and_null_means_root),
               cmocka_unit_test(current_tracker_is_per_thread),
               cmocka_unit_test(realloc_charges_the_difference_to_the_original_tracker),
               cmocka_unit_test(calloc_zeroes_and_overflow_returns_null),
               cmocka_unit_test(strdup_and_strndup_copy_and_are_tracked))
