/* The 64-bit hash: deterministic, in-bounds for every length, well mixed. */
#include "floe_test.h"

#include "base/hash.h"
#include "floe/memory.h"

static int popcount64(uint64_t x) { return __builtin_popcountll(x); }

static void same_bytes_give_same_hash_and_seed_changes_it(void **state) {
    (void)state;
    const char *s = "s3://warehouse/db/table/data/00000-0-abc.parquet";
    uint64_t h1 = floe_hash_bytes(s, strlen(s), 1);
    assert_true(h1 == floe_hash_bytes(s, strlen(s), 1));
    assert_true(h1 != floe_hash_bytes(s, strlen(s), 2));
    assert_true(floe_hash_cstr("abc") == floe_hash_bytes("abc", 3, FLOE_HASH_SEED));
    assert_true(floe_hash_bytes(NULL, 0, 7) == floe_hash_bytes("", 0, 7));
    assert_true(floe_hash_bytes("", 0, 7) != floe_hash_bytes("\0", 1, 7));
}

static void every_length_hashes_only_its_own_bytes_at_any_alignment(void **state) {
    (void)state;
    uint8_t big[300];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 131 + 7);
    for (size_t n = 0; n <= 200; n++) {
        /* An exactly sized heap copy: ASan reports any read past the end. */
        uint8_t *exact = malloc(n ? n : 1);
        memcpy(exact, big + 3, n);
        uint64_t h = floe_hash_bytes(exact, n, 42);
        assert_true(h == floe_hash_bytes(big + 3, n, 42));
        /* Bytes outside [p, p+n) must not matter. */
        big[3 + n] ^= 0xff;
        big[2] ^= 0xff;
        assert_true(h == floe_hash_bytes(big + 3, n, 42));
        big[3 + n] ^= 0xff;
        big[2] ^= 0xff;
        free(exact);
    }
}

static void flipping_any_input_bit_changes_about_half_the_output_bits(void **state) {
    (void)state;
    const size_t lens[] = {1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 48, 49, 64, 100, 130};
    uint8_t buf[130];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 37 + 11);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t n = lens[li];
        uint64_t base = floe_hash_bytes(buf, n, FLOE_HASH_SEED);
        long total = 0;
        int worst = 64;
        for (size_t bit = 0; bit < n * 8; bit++) {
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            int d = popcount64(base ^ floe_hash_bytes(buf, n, FLOE_HASH_SEED));
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            total += d;
            if (d < worst) worst = d;
        }
        double avg = (double)total / (double)(n * 8);
        if (avg < 28 || avg > 36 || worst < 8)
            fail_msg("length %zu: average %.1f bits changed, worst %d", n, avg, worst);
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void many_similar_keys_do_not_collide(void **state) {
    (void)state;
    enum { N = 200000 };
    uint64_t *h = malloc(N * sizeof *h);
    char key[32];
    for (int i = 0; i < N; i++) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        h[i] = floe_hash_bytes(key, (size_t)n, FLOE_HASH_SEED);
    }
    qsort(h, N, sizeof *h, cmp_u64);
    for (int i = 1; i < N; i++) assert_true(h[i] != h[i - 1]);
    free(h);
}

static void low_bits_of_sequential_keys_fill_buckets_evenly(void **state) {
    (void)state;
    enum { BUCKETS = 256, N = BUCKETS * 400 };
    int counts[BUCKETS] = {0};
    int counts_u64[BUCKETS] = {0};
    for (uint64_t i = 0; i < N; i++) {
        counts[floe_hash_bytes(&i, sizeof i, FLOE_HASH_SEED) & (BUCKETS - 1)]++;
        counts_u64[floe_hash_u64(i) & (BUCKETS - 1)]++;
    }
    /* Chi-square with 255 degrees of freedom: mean 255, sd ~22.6; 400 is
     * more than 6 sd away, so a pass is not luck. */
    double chi = 0, chi_u64 = 0, expect = (double)N / BUCKETS;
    for (int b = 0; b < BUCKETS; b++) {
        chi += (counts[b] - expect) * (counts[b] - expect) / expect;
        chi_u64 += (counts_u64[b] - expect) * (counts_u64[b] - expect) / expect;
    }
    if (chi > 400 || chi_u64 > 400) fail_msg("chi-square bytes %.1f, u64 %.1f", chi, chi_u64);
}

static void hash_u64_is_injective_and_mixes(void **state) {
    (void)state;
    enum { N = 100000 };
    uint64_t *h = malloc(N * sizeof *h);
    for (uint64_t i = 0; i < N; i++) h[i] = floe_hash_u64(i);
    assert_true(floe_hash_u64(0) != 0);
    qsort(h, N, sizeof *h, cmp_u64);
    for (int i = 1; i < N; i++) assert_true(h[i] != h[i - 1]);
    free(h);
    long total = 0;
    for (int bit = 0; bit < 64; bit++)
        total += popcount64(floe_hash_u64(12345) ^ floe_hash_u64(12345 ^ (1ull << bit)));
    double avg = (double)total / 64;
    assert_true(avg > 28 && avg < 36);
}

static void combine_depends_on_order_and_every_component(void **state) {
    (void)state;
    uint64_t a = floe_hash_u64(1), b = floe_hash_u64(2);
    uint64_t ab = floe_hash_combine(floe_hash_combine(0, a), b);
    uint64_t ba = floe_hash_combine(floe_hash_combine(0, b), a);
    assert_true(ab != ba);
    assert_true(floe_hash_combine(7, a) != floe_hash_combine(7, b));
    assert_true(floe_hash_combine(7, a) != floe_hash_combine(8, a));
    assert_true(floe_hash_combine(0, 0) != 0);
}

FLOE_TEST_MAIN(cmocka_unit_test(same_bytes_give_same_hash_and_seed_changes_it),
               cmocka_unit_test(every_length_hashes_only_its_own_bytes_at_any_alignment),
               cmocka_unit_test(flipping_any_input_bit_changes_about_half_the_output_bits),
               cmocka_unit_test(many_similar_keys_do_not_collide),
               cmocka_unit_test(low_bits_of_sequential_keys_fill_buckets_evenly),
               cmocka_unit_test(hash_u64_is_injective_and_mixes),
               cmocka_unit_test(combine_depends_on_order_and_every_component))
