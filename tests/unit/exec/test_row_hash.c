/*
 * test_row_hash.c — floe_hash_rows and the row equality helpers: fixed
 * values (so a change that would send rows to different partitions on
 * different builds is caught), NULL and float normalisation, slices,
 * column order, distribution, and equality agreeing with the hash.
 */
#include <math.h>

#include "exec/exchange/row_hash.h"
#include "exec_util.h"
#include "floe/exec_ops.h"

static floe_array *int64_array(const int64_t *v, int64_t n) {
    floe_array *a;
    floe_builder *b;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &b));
    for (int64_t i = 0; i < n; i++) assert_ok(floe_builder_append_int64(b, v[i]));
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

static floe_array *string_array(const char *const *v, int64_t n) {
    floe_array *a;
    floe_builder *b;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &b));
    for (int64_t i = 0; i < n; i++) {
        if (v[i]) assert_ok(floe_builder_append_string(b, v[i]));
        else assert_ok(floe_builder_append_null(b));
    }
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

static floe_array *double_array(const double *v, int64_t n) {
    floe_array *a;
    floe_builder *b;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_FLOAT64), n, &b));
    for (int64_t i = 0; i < n; i++) assert_ok(floe_builder_append_double(b, v[i]));
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

static void hashes_are_fixed_values_with_no_seed(void **state) {
    (void)state;
    /* Pinned: every process and build must agree, or Repartition would
     * send equal keys to different partitions on different nodes. */
    int32_t iv[3] = {0, 5, NUL};
    floe_array *a = int32_array(iv, 3);
    const char *sv[3] = {"", "floe", NULL};
    floe_array *s = string_array(sv, 3);
    uint64_t h[3];
    assert_ok(floe_hash_rows(&a, 1, 3, h));
    assert_true(h[2] == FLOE_HASH_NULL);
    assert_true(h[0] == floe_hash_u64(0));
    assert_true(h[1] == floe_hash_u64(5));
    uint64_t want1 = h[1];
    floe_array *both[2] = {a, s};
    uint64_t h2[3];
    assert_ok(floe_hash_rows(both, 2, 3, h2));
    assert_true(h2[1] == floe_hash_combine(want1, floe_hash_bytes("floe", 4, FLOE_HASH_SEED)));
    assert_true(h2[2] == floe_hash_combine(FLOE_HASH_NULL, FLOE_HASH_NULL));
    /* a literal value pinned once: the hash of int 5 */
    char hex[32];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)want1);
    assert_string_equal(hex, "63033b0ca389c35a");
    floe_array_release(a);
    floe_array_release(s);
}

static void column_order_matters_and_slices_hash_like_copies(void **state) {
    (void)state;
    int32_t x[4] = {1, 2, 3, 4}, y[4] = {2, 1, 4, 3};
    floe_array *a = int32_array(x, 4), *b = int32_array(y, 4);
    floe_array *ab[2] = {a, b}, *ba[2] = {b, a};
    uint64_t h1[4], h2[4];
    assert_ok(floe_hash_rows(ab, 2, 4, h1));
    assert_ok(floe_hash_rows(ba, 2, 4, h2));
    assert_true(h1[0] == h2[1]); /* (1,2) both ways */
    assert_true(h1[0] != h1[1]); /* (1,2) vs (2,1) */
    floe_array *sl;
    assert_ok(floe_array_slice(a, 2, 2, &sl));
    uint64_t hs[2], hf[4];
    assert_ok(floe_hash_rows(&sl, 1, 2, hs));
    assert_ok(floe_hash_rows(&a, 1, 4, hf));
    assert_true(hs[0] == hf[2] && hs[1] == hf[3]);
    assert_true(floe_hash_value(a, 3) == hf[3]);
    floe_array_release(sl);
    floe_array_release(a);
    floe_array_release(b);
}

static void negative_zero_and_nans_hash_and_compare_equal(void **state) {
    (void)state;
    double v[4] = {0.0, -0.0, NAN, -NAN};
    floe_array *a = double_array(v, 4);
    uint64_t h[4];
    assert_ok(floe_hash_rows(&a, 1, 4, h));
    assert_true(h[0] == h[1]);
    assert_true(h[2] == h[3]);
    assert_true(floe_values_equal(a, 0, a, 1));
    assert_true(floe_values_equal(a, 2, a, 3));
    assert_false(floe_values_equal(a, 0, a, 2));
    floe_array_release(a);
}

static void null_keys_match_only_when_asked(void **state) {
    (void)state;
    int32_t x[3] = {NUL, 7, NUL};
    floe_array *a = int32_array(x, 3);
    assert_false(floe_rows_equal(&a, 0, &a, 2, 1, false));
    assert_true(floe_rows_equal(&a, 0, &a, 2, 1, true));
    assert_false(floe_rows_equal(&a, 0, &a, 1, 1, true));
    assert_true(floe_rows_equal(&a, 1, &a, 1, 1, false));
    assert_true(floe_row_has_null(&a, 1, 0));
    assert_false(floe_row_has_null(&a, 1, 1));
    floe_array_release(a);
}

static void hashes_spread_evenly_over_partitions(void **state) {
    (void)state;
    enum { N = 64000, P = 16 };
    int64_t *v = malloc(N * sizeof *v);
    for (int64_t i = 0; i < N; i++) v[i] = i * 1024; /* regular keys are the hard case */
    floe_array *a = int64_array(v, N);
    uint64_t *h = malloc(N * sizeof *h);
    assert_ok(floe_hash_rows(&a, 1, N, h));
    int64_t counts[P] = {0};
    for (int64_t i = 0; i < N; i++) counts[h[i] % P]++;
    for (int p = 0; p < P; p++) assert_true(counts[p] > N / P * 9 / 10 && counts[p] < N / P * 11 / 10);
    /* strings differing in one byte */
    const char *sv[P * 64];
    char (*buf)[16] = malloc(sizeof(char[16]) * P * 64);
    for (int i = 0; i < P * 64; i++) {
        snprintf(buf[i], 16, "key-%06d", i);
        sv[i] = buf[i];
    }
    floe_array *s = string_array(sv, P * 64);
    assert_ok(floe_hash_rows(&s, 1, P * 64, h));
    memset(counts, 0, sizeof counts);
    for (int i = 0; i < P * 64; i++) counts[h[i] % P]++;
    for (int p = 0; p < P; p++) assert_true(counts[p] > 32 && counts[p] < 100);
    free(buf);
    free(v);
    free(h);
    floe_array_release(a);
    floe_array_release(s);
}

static void nested_list_keys_are_refused(void **state) {
    (void)state;
    floe_field el;
    assert_ok(floe_field_init(&el, "element", floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    floe_type *lt;
    assert_ok(floe_type_list(&el, &lt));
    floe_field_clear(&el);
    assert_false(floe_hash_type_supported(lt));
    floe_array *a;
    assert_ok(floe_array_new_nulls(lt, 2, &a));
    uint64_t h[2];
    assert_error(floe_hash_rows(&a, 1, 2, h), FLOE_ERR_UNSUPPORTED, "list");
    floe_array_release(a);
    floe_type_release(lt);
}

FLOE_TEST_MAIN(cmocka_unit_test(hashes_are_fixed_values_with_no_seed),
               cmocka_unit_test(column_order_matters_and_slices_hash_like_copies),
               cmocka_unit_test(negative_zero_and_nans_hash_and_compare_equal),
               cmocka_unit_test(null_keys_match_only_when_asked),
               cmocka_unit_test(hashes_spread_evenly_over_partitions),
               cmocka_unit_test(nested_list_keys_are_refused))
