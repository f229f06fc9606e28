/* String-keyed and integer-keyed open-addressing maps: insert, replace,
 * lookup, removal with backward shift, iteration, growth, tracked memory. */
#include "floe_test.h"

#include "base/hashmap.h"
#include "floe/memory.h"

static void strmap_put_get_replace_and_remove(void **state) {
    (void)state;
    floe_strmap m = FLOE_STRMAP_INIT;
    int a = 1, b = 2, c = 3;
    void *old = &c;
    assert_ok(floe_strmap_put_c(&m, "warehouse", &a, &old));
    assert_null(old);
    assert_ok(floe_strmap_put_c(&m, "uri", &b, NULL));
    assert_int_equal(floe_strmap_size(&m), 2);
    assert_ptr_equal(floe_strmap_get_c(&m, "warehouse"), &a);
    assert_ptr_equal(floe_strmap_get_c(&m, "uri"), &b);
    assert_null(floe_strmap_get_c(&m, "missing"));
    assert_ok(floe_strmap_put_c(&m, "warehouse", &c, &old));
    assert_ptr_equal(old, &a);
    assert_ptr_equal(floe_strmap_get_c(&m, "warehouse"), &c);
    assert_int_equal(floe_strmap_size(&m), 2);
    assert_true(floe_strmap_remove_c(&m, "warehouse", &old));
    assert_ptr_equal(old, &c);
    assert_false(floe_strmap_remove_c(&m, "warehouse", &old));
    assert_false(floe_strmap_contains(&m, FLOE_STR_LIT("warehouse")));
    assert_int_equal(floe_strmap_size(&m), 1);
    floe_strmap_free(&m);
    assert_int_equal(floe_strmap_size(&m), 0);
}

static void strmap_copies_keys_and_handles_nul_bytes_and_empty_key(void **state) {
    (void)state;
    floe_strmap m;
    floe_strmap_init(&m);
    char key[] = "mutable";
    int v1 = 1, v2 = 2, v3 = 3, v4 = 4;
    assert_ok(floe_strmap_put_c(&m, key, &v1, NULL));
    key[0] = 'X'; /* the map owns its own copy */
    assert_ptr_equal(floe_strmap_get_c(&m, "mutable"), &v1);
    assert_null(floe_strmap_get_c(&m, "Xutable"));
    assert_ok(floe_strmap_put(&m, floe_str_make("a\0b", 3), &v2, NULL));
    assert_ok(floe_strmap_put(&m, floe_str_make("a\0c", 3), &v3, NULL));
    assert_ok(floe_strmap_put_c(&m, "", &v4, NULL));
    assert_ptr_equal(floe_strmap_get(&m, floe_str_make("a\0b", 3)), &v2);
    assert_ptr_equal(floe_strmap_get(&m, floe_str_make("a\0c", 3)), &v3);
    assert_null(floe_strmap_get_c(&m, "a"));
    assert_ptr_equal(floe_strmap_get_c(&m, ""), &v4);
    /* A NULL value is distinguishable from absence through find. */
    assert_ok(floe_strmap_put_c(&m, "nullvalue", NULL, NULL));
    void *out = &v1;
    assert_true(floe_strmap_find(&m, FLOE_STR_LIT("nullvalue"), &out));
    assert_null(out);
    assert_false(floe_strmap_find(&m, FLOE_STR_LIT("nothere"), &out));
    floe_strmap_free(&m);
}

/* Deterministic pseudo-random numbers for the reference comparisons. */
static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void strmap_matches_reference_through_growth_and_removals(void **state) {
    (void)state;
    enum { KEYS = 3000, OPS = 40000 };
    static intptr_t ref[KEYS]; /* 0 = absent, else the value stored */
    memset(ref, 0, sizeof ref);
    floe_strmap m = FLOE_STRMAP_INIT;
    uint64_t seed = 88172645463325252ull;
    char key[32];
    size_t live = 0;
    for (int op = 0; op < OPS; op++) {
        int k = (int)(rng_next(&seed) % KEYS);
        int n = snprintf(key, sizeof key, "col_%d", k);
        floe_str ks = floe_str_make(key, (size_t)n);
        if (rng_next(&seed) % 3 == 0) {
            void *old = NULL;
            bool removed = floe_strmap_remove(&m, ks, &old);
            assert_int_equal(removed, ref[k] != 0);
            if (removed) {
                assert_int_equal((intptr_t)old, ref[k]);
                live--;
            }
            ref[k] = 0;
        } else {
            intptr_t v = op + 1;
            void *old = NULL;
            assert_ok(floe_strmap_put(&m, ks, (void *)v, &old));
            assert_int_equal((intptr_t)old, ref[k]);
            if (!ref[k]) live++;
            ref[k] = v;
        }
        assert_int_equal(floe_strmap_size(&m), live);
    }
    for (int k = 0; k < KEYS; k++) {
        int n = snprintf(key, sizeof key, "col_%d", k);
        void *v = NULL;
        bool found = floe_strmap_find(&m, floe_str_make(key, (size_t)n), &v);
        assert_int_equal(found, ref[k] != 0);
        if (found) assert_int_equal((intptr_t)v, ref[k]);
    }
    floe_strmap_free(&m);
}

static void strmap_iteration_visits_each_entry_once(void **state) {
    (void)state;
    floe_strmap m = FLOE_STRMAP_INIT;
    char key[16];
    int seen[500] = {0};
    for (intptr_t i = 0; i < 500; i++) {
        snprintf(key, sizeof key, "%d", (int)i);
        assert_ok(floe_strmap_put_c(&m, key, (void *)i, NULL));
    }
    size_t it = 0, count = 0;
    floe_str k;
    void *v;
    while (floe_strmap_next(&m, &it, &k, &v)) {
        intptr_t i = (intptr_t)v;
        snprintf(key, sizeof key, "%d", (int)i);
        assert_true(floe_str_eq_c(k, key));
        assert_int_equal(k.ptr[k.len], '\0');
        seen[i]++;
        count++;
    }
    assert_int_equal(count, 500);
    for (int i = 0; i < 500; i++) assert_int_equal(seen[i], 1);
    floe_strmap_free(&m);
    it = 0;
    assert_false(floe_strmap_next(&m, &it, &k, &v));
}

static void strmap_upsert_inserts_once_then_finds(void **state) {
    (void)state;
    floe_strmap m = FLOE_STRMAP_INIT;
    void **slot;
    bool inserted;
    int x;
    assert_ok(floe_strmap_upsert(&m, FLOE_STR_LIT("k"), &slot, &inserted));
    assert_true(inserted);
    assert_null(*slot);
    *slot = &x;
    assert_ok(floe_strmap_upsert(&m, FLOE_STR_LIT("k"), &slot, &inserted));
    assert_false(inserted);
    assert_ptr_equal(*slot, &x);
    floe_strmap_free(&m);
}

static void strmap_memory_is_tracked_and_released_with_values(void **state) {
    (void)state;
    floe_mem_tracker t;
    floe_mem_tracker_init(&t, "strmap");
    floe_mem_tracker *prev = floe_mem_set_current(&t);
    floe_strmap m = FLOE_STRMAP_INIT;
    char key[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "k%d", i);
        assert_ok(floe_strmap_put_c(&m, key, floe_strdup(key), NULL));
    }
    assert_true(floe_mem_current_bytes(&t) > 1000 * (int64_t)sizeof(floe_strmap_entry));
    floe_strmap_free_with(&m, floe_free);
    assert_int_equal(floe_mem_current_bytes(&t), 0);
    floe_mem_set_current(prev);
}

static void impossible_reserve_reports_out_of_memory(void **state) {
    (void)state;
    floe_strmap m = FLOE_STRMAP_INIT;
    floe_u64map u = FLOE_U64MAP_INIT;
    assert_error(floe_strmap_reserve(&m, SIZE_MAX), FLOE_ERR_OUT_OF_MEMORY, "string map");
    assert_error(floe_u64map_reserve(&u, SIZE_MAX), FLOE_ERR_OUT_OF_MEMORY, "integer map");
    /* The maps are still empty and usable. */
    assert_ok(floe_strmap_put_c(&m, "a", NULL, NULL));
    assert_ok(floe_u64map_put(&u, 1, 2, NULL, NULL));
    floe_strmap_free(&m);
    floe_u64map_free(&u);
}

static void u64map_matches_reference_including_zero_and_max_keys(void **state) {
    (void)state;
    enum { KEYS = 2048, OPS = 50000 };
    static uint64_t keys[KEYS];
    static uint64_t ref[KEYS];
    static bool present[KEYS];
    memset(present, 0, sizeof present);
    uint64_t seed = 0x1234567;
    for (int i = 0; i < KEYS; i++) keys[i] = (uint64_t)i * 0x100000000ull; /* low bits all zero */
    keys[0] = 0;
    keys[1] = UINT64_MAX;
    floe_u64map m;
    floe_u64map_init(&m);
    size_t live = 0;
    for (int op = 0; op < OPS; op++) {
        int k = (int)(rng_next(&seed) % KEYS);
        if (rng_next(&seed) % 3 == 0) {
            uint64_t old = 0;
            bool removed = floe_u64map_remove(&m, keys[k], &old);
            assert_int_equal(removed, present[k]);
            if (removed) {
                assert_true(old == ref[k]);
                live--;
            }
            present[k] = false;
        } else {
            uint64_t v = rng_next(&seed), old = 0;
            bool existed = true;
            assert_ok(floe_u64map_put(&m, keys[k], v, &old, &existed));
            assert_int_equal(existed, present[k]);
            if (existed) assert_true(old == ref[k]);
            else live++;
            present[k] = true;
            ref[k] = v;
        }
        assert_int_equal(floe_u64map_size(&m), live);
    }
    for (int k = 0; k < KEYS; k++) {
        uint64_t v;
        assert_int_equal(floe_u64map_get(&m, keys[k], &v), present[k]);
        if (present[k]) assert_true(v == ref[k]);
    }
    size_t it = 0, count = 0;
    uint64_t key, val;
    while (floe_u64map_next(&m, &it, &key, &val)) count++;
    assert_int_equal(count, live);
    floe_u64map_free(&m);
}

static void u64map_upsert_counts_and_pointer_helpers_round_trip(void **state) {
    (void)state;
    floe_u64map m = FLOE_U64MAP_INIT;
    for (int i = 0; i < 1000; i++) {
        uint64_t *slot;
        bool inserted;
        assert_ok(floe_u64map_upsert(&m, (uint64_t)(i % 10), &slot, &inserted));
        assert_int_equal(inserted, i < 10);
        (*slot)++;
    }
    assert_int_equal(floe_u64map_size(&m), 10);
    for (uint64_t k = 0; k < 10; k++) {
        uint64_t v;
        assert_true(floe_u64map_get(&m, k, &v));
        assert_int_equal(v, 100);
    }
    int target;
    assert_ok(floe_u64map_put_ptr(&m, 555, &target));
    assert_ptr_equal(floe_u64map_get_ptr(&m, 555), &target);
    assert_null(floe_u64map_get_ptr(&m, 556));
    floe_u64map_free(&m);
}

static void u64map_reserve_avoids_regrowth(void **state) {
    (void)state;
    floe_u64map m = FLOE_U64MAP_INIT;
    assert_ok(floe_u64map_reserve(&m, 10000));
    size_t cap = m.cap;
    assert_true(cap - cap / 4 >= 10000);
    for (uint64_t i = 0; i < 10000; i++) assert_ok(floe_u64map_put(&m, i, i * 2, NULL, NULL));
    assert_int_equal(m.cap, cap);
    floe_u64map_free(&m);
}

FLOE_TEST_MAIN(cmocka_unit_test(strmap_put_get_replace_and_remove),
               cmocka_unit_test(strmap_copies_keys_and_handles_nul_bytes_and_empty_key),
               cmocka_unit_test(strmap_matches_reference_through_growth_and_removals),
               cmocka_unit_test(strmap_iteration_visits_each_entry_once),
               cmocka_unit_test(strmap_upsert_inserts_once_then_finds),
               cmocka_unit_test(strmap_memory_is_tracked_and_released_with_values),
               cmocka_unit_test(impossible_reserve_reports_out_of_memory),
               cmocka_unit_test(u64map_matches_reference_including_zero_and_max_keys),
               cmocka_unit_test(u64map_upsert_counts_and_pointer_helpers_round_trip),
               cmocka_unit_test(u64map_reserve_avoids_regrowth))
