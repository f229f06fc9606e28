/* The arena: aligned bump allocation, dedicated large chunks, reset that
 * keeps the first chunk, tracked memory released at destroy. */
#include "floe_test.h"

#include "base/arena.h"
#include "floe/memory.h"

static void allocations_honour_every_power_of_two_alignment(void **state) {
    (void)state;
    floe_arena a;
    floe_arena_init(&a, 1024);
    for (int round = 0; round < 50; round++) {
        for (size_t align = 1; align <= FLOE_ARENA_MAX_ALIGN; align *= 2) {
            /* An odd-sized allocation first so the bump pointer is misaligned. */
            assert_non_null(floe_arena_alloc_aligned(&a, 3, 1));
            void *p = floe_arena_alloc_aligned(&a, 7, align);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % align, 0);
        }
        assert_int_equal((uintptr_t)floe_arena_alloc(&a, 5) % FLOE_ARENA_ALIGN, 0);
    }
    floe_arena_destroy(&a);
}

static void invalid_alignment_returns_null(void **state) {
    (void)state;
    floe_arena a;
    floe_arena_init(&a, 0);
    assert_null(floe_arena_alloc_aligned(&a, 8, 0));
    assert_null(floe_arena_alloc_aligned(&a, 8, 3));
    assert_null(floe_arena_alloc_aligned(&a, 8, 128));
    assert_non_null(floe_arena_alloc_aligned(&a, 8, 64));
    assert_null(floe_arena_alloc_aligned(&a, 8, 48));
    floe_arena_destroy(&a);
}

static void allocations_never_overlap_across_chunks(void **state) {
    (void)state;
    floe_arena a;
    floe_arena_init(&a, 512);
    enum { N = 400 };
    unsigned char *ptrs[N];
    size_t sizes[N];
    for (int i = 0; i < N; i++) {
        sizes[i] = (size_t)(i * 37 % 200) + 1; /* some exceed chunk_size/4 */
        ptrs[i] = floe_arena_alloc_aligned(&a, sizes[i], (size_t)1 << (i % 7));
        assert_non_null(ptrs[i]);
        memset(ptrs[i], i & 0xff, sizes[i]);
    }
    for (int i = 0; i < N; i++)
        for (size_t j = 0; j < sizes[i]; j++) assert_int_equal(ptrs[i][j], i & 0xff);
    floe_arena_destroy(&a);
}

static void large_allocation_gets_own_chunk_and_keeps_current_chunk(void **state) {
    (void)state;
    floe_arena a;
    floe_arena_init(&a, 4096);
    char *s1 = floe_arena_alloc_aligned(&a, 10, 1);
    size_t before = floe_arena_reserved_bytes(&a);
    assert_int_equal(before, 4096);
    char *big = floe_arena_alloc(&a, 100000);
    assert_non_null(big);
    memset(big, 7, 100000);
    assert_true(floe_arena_reserved_bytes(&a) >= before + 100000);
    /* The small allocation after the large one continues the same chunk. */
    char *s2 = floe_arena_alloc_aligned(&a, 10, 1);
    assert_ptr_equal(s2, s1 + 10);
    floe_arena_destroy(&a);
}

static void large_allocation_first_then_small_ones_work(void **state) {
    (void)state;
    floe_arena a;
    floe_arena_init(&a, 1024);
    void *big = floe_arena_alloc_aligned(&a, 5000, 64);
    assert_non_null(big);
    assert_int_equal((uintptr_t)big % 64, 0);
    char *s = floe_arena_strdup(&a, "hello");
    assert_string_equal(s, "hello");
    floe_arena_reset(&a);
    assert_int_equal(floe_arena_reserved_bytes(&a), 1024);
    assert_string_equal(floe_arena_strdup(&a, "again"), "again");
    floe_arena_destroy(&a);
}

static void reset_keeps_first_chunk_and_frees_the_rest(void **state) {
    (void)state;
    floe_mem_tracker t;
    floe_mem_tracker_init(&t, "arena-test");
    floe_mem_tracker *prev = floe_mem_set_current(&t);
    floe_arena a;
    floe_arena_init(&a, 1024);
    void *first = floe_arena_alloc(&a, 16);
    for (int i = 0; i < 100; i++) assert_non_null(floe_arena_alloc(&a, 200));
    assert_non_null(floe_arena_alloc(&a, 50000));
    assert_true(floe_mem_current_bytes(&t) > 50000 + 10 * 1024);
    floe_arena_reset(&a);
    assert_int_equal(floe_arena_reserved_bytes(&a), 1024);
    /* Only the first chunk (plus its header) is still charged. */
    assert_true(floe_mem_current_bytes(&t) >= 1024);
    assert_true(floe_mem_current_bytes(&t) < 1024 + 64);
    /* The first allocation after reset reuses the first chunk's start. */
    assert_ptr_equal(floe_arena_alloc(&a, 16), first);
    floe_arena_destroy(&a);
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    floe_mem_set_current(prev);
}

static void destroy_returns_all_tracked_memory(void **state) {
    (void)state;
    floe_mem_tracker t;
    floe_mem_tracker_init(&t, "arena-destroy");
    floe_mem_tracker *prev = floe_mem_set_current(&t);
    floe_arena a;
    floe_arena_init(&a, 0);
    for (int i = 0; i < 1000; i++) assert_non_null(floe_arena_alloc(&a, (size_t)i * 13));
    assert_true(floe_mem_peak_bytes(&t) > 0);
    floe_arena_destroy(&a);
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    assert_int_equal(floe_arena_reserved_bytes(&a), 0);
    /* A destroyed arena is empty and usable again. */
    assert_non_null(floe_arena_alloc(&a, 8));
    floe_arena_destroy(&a);
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    floe_mem_set_current(prev);
}

static void strdup_memdup_and_calloc_copy_and_zero(void **state) {
    (void)state;
    floe_arena a;
    floe_arena_init(&a, 0);
    assert_string_equal(floe_arena_strdup(&a, "iceberg"), "iceberg");
    assert_null(floe_arena_strdup(&a, NULL));
    assert_string_equal(floe_arena_strndup(&a, "iceberg", 3), "ice");
    assert_string_equal(floe_arena_strndup(&a, "ab", 10), "ab");
    const unsigned char bytes[5] = {0, 1, 2, 0, 255};
    unsigned char *m = floe_arena_memdup(&a, bytes, sizeof bytes);
    assert_memory_equal(m, bytes, sizeof bytes);
    const int64_t nums[3] = {1, -2, 3};
    int64_t *copy = floe_arena_memdup(&a, nums, sizeof nums);
    assert_int_equal((uintptr_t)copy % FLOE_ARENA_ALIGN, 0);
    assert_int_equal(copy[1], -2);
    /* Dirty the next bytes, then check calloc zeroes them. */
    memset(floe_arena_alloc(&a, 64), 0xAB, 64);
    floe_arena_reset(&a);
    memset(floe_arena_alloc(&a, 64), 0xAB, 64);
    floe_arena_reset(&a);
    int64_t *z = floe_arena_calloc(&a, 8, sizeof(int64_t));
    for (int i = 0; i < 8; i++) assert_int_equal(z[i], 0);
    assert_null(floe_arena_calloc(&a, SIZE_MAX / 2, 4));
    floe_arena_destroy(&a);
}

static void impossible_sizes_return_null_without_crashing(void **state) {
    (void)state;
    floe_arena a;
    floe_arena_init(&a, 0);
    assert_null(floe_arena_alloc(&a, SIZE_MAX));
    assert_null(floe_arena_alloc(&a, SIZE_MAX - 8));
    assert_non_null(floe_arena_alloc(&a, 0));
    floe_arena_destroy(&a);
}

FLOE_TEST_MAIN(cmocka_unit_test(allocations_honour_every_power_of_two_alignment),
               cmocka_unit_test(invalid_alignment_returns_null),
               cmocka_unit_test(allocations_never_overlap_across_chunks),
               cmocka_unit_test(large_allocation_gets_own_chunk_and_keeps_current_chunk),
               cmocka_unit_test(large_allocation_first_then_small_ones_work),
               cmocka_unit_test(reset_keeps_first_chunk_and_frees_the_rest),
               cmocka_unit_test(destroy_returns_all_tracked_memory),
               cmocka_unit_test(strdup_memdup_and_calloc_copy_and_zero),
               cmocka_unit_test(impossible_sizes_return_null_without_crashing))
