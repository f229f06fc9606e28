/*
 * test_sort_merge.c — SortPreservingMerge: sorted partitions merged into
 * one sorted partition (ties to the lower partition), fetch, codec
 * roundtrips, one- and two-thread pools, errors from a child partition.
 */
#include "sort_rows_util.h"

static floe_threadpool *pool1, *pool2;

static int setup(void **state) {
    (void)state;
    if (floe_threadpool_create(1, &pool1)) return -1;
    return floe_threadpool_create(2, &pool2) ? -1 : 0;
}
static int teardown(void **state) {
    (void)state;
    floe_threadpool_destroy(pool1);
    floe_threadpool_destroy(pool2);
    return 0;
}

static void expect_positions(const floe_plan *p, const floe_exec_ctx *ctx, const row *ref, int64_t m) {
    floe_batch **bs;
    int64_t nb;
    assert_ok(floe_exec_collect(p, ctx, &bs, &nb));
    int64_t got = 0;
    for (int64_t k = 0; k < nb; k++) {
        assert_true(bs[k]->num_rows <= ctx->batch_size);
        assert_true(bs[k]->num_rows > 0);
        for (int64_t i = 0; i < bs[k]->num_rows; i++, got++) {
            assert_true(got < m);
            if (floe_array_get_int64(bs[k]->columns[3], i) != ref[got].pos)
                fail_msg("row %lld: pos %lld, expected %lld", (long long)got,
                         (long long)floe_array_get_int64(bs[k]->columns[3], i), (long long)ref[got].pos);
        }
    }
    assert_int_equal(got, m);
    floe_exec_batches_free(bs, nb);
}

/* Sort each of `parts` partitions then merge; compare with the reference. */
static void check_merge_sf(const keyspec *ks, int nk, int64_t n, int64_t per, int32_t parts, int64_t fetch,
                           int64_t sort_fetch, floe_threadpool *pool, int64_t batch_size) {
    row *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    random_rows(r, n);
    floe_plan *v = rows_plan(r, n, per, parts), *s, *m;
    floe_sort_key *k = make_keys(ks, nk);
    assert_ok(floe_plan_sort(v, k, nk, sort_fetch, &s));
    assert_ok(floe_plan_sort_merge(s, k, nk, fetch, &m));
    assert_int_equal(floe_plan_partitions(m), 1);
    assert_int_equal(m->n_ordering, nk);
    cur_keys = ks;
    cur_nkeys = nk;
    cur_per = per;
    cur_parts = parts;
    qsort(r, (size_t)n, sizeof *r, ref_cmp);
    cur_parts = 0;
    int64_t want = fetch >= 0 && fetch < n ? fetch : n;
    floe_exec_ctx ctx = test_ctx(pool, batch_size);
    expect_positions(m, &ctx, r, want);
    floe_plan *copy;
    assert_ok(floe_plan_roundtrip(m, &copy));
    expect_positions(copy, &ctx, r, want);
    floe_plan_release(copy);
    free_keys(k, nk);
    floe_plan_release(m);
    floe_plan_release(s);
    floe_plan_release(v);
    free(r);
}

static void check_merge(const keyspec *ks, int nk, int64_t n, int64_t per, int32_t parts, int64_t fetch,
                        floe_threadpool *pool, int64_t batch_size) {
    check_merge_sf(ks, nk, n, per, parts, fetch, -1, pool, batch_size);
}

static void merge_of_sorted_partitions_is_sorted(void **state) {
    (void)state;
    keyspec k1[] = {{0, false, true}};
    check_merge(k1, 1, 3000, 100, 3, -1, pool2, 128);
    check_merge(k1, 1, 3000, 100, 3, -1, pool1, 128);
    keyspec k2[] = {{1, true, false}, {2, false, true}};
    check_merge(k2, 2, 5000, 70, 4, -1, pool2, 1000);
    keyspec k3[] = {{2, true, true}, {0, false, false}, {1, false, true}};
    check_merge(k3, 3, 2000, 33, 2, -1, pool1, 7);
}

static void merge_with_one_or_empty_partitions(void **state) {
    (void)state;
    keyspec k1[] = {{1, false, false}};
    check_merge(k1, 1, 1000, 100, 1, -1, pool2, 64);
    /* 2 batches over 5 partitions: three partitions are empty */
    check_merge(k1, 1, 200, 100, 5, -1, pool2, 64);
    check_merge(k1, 1, 0, 100, 3, -1, pool2, 64);
}

static void merge_fetch_stops_after_fetch_rows(void **state) {
    (void)state;
    keyspec k1[] = {{0, true, false}, {1, false, false}};
    const int64_t fetches[] = {0, 1, 10, 129, 2999, 3000, 10000};
    for (size_t i = 0; i < sizeof fetches / sizeof *fetches; i++)
        check_merge(k1, 2, 3000, 100, 3, fetches[i], pool2, 64);
}

/* The planner's global top-N: a top-N per partition, merged with fetch. */
static void top_n_per_partition_then_merge_equals_global_top_n(void **state) {
    (void)state;
    keyspec k1[] = {{1, false, true}, {2, true, false}};
    const int64_t fetches[] = {0, 1, 25, 400, 5000};
    for (size_t i = 0; i < sizeof fetches / sizeof *fetches; i++) {
        check_merge_sf(k1, 2, 4000, 90, 4, fetches[i], fetches[i], pool2, 64);
        check_merge_sf(k1, 2, 4000, 90, 3, fetches[i], fetches[i], pool1, 1000);
    }
}

static void merge_explains_keys_and_fetch(void **state) {
    (void)state;
    row r[10];
    random_rows(r, 10);
    floe_plan *v = rows_plan(r, 10, 5, 2), *m;
    keyspec ks[] = {{1, true, false}};
    floe_sort_key *k = make_keys(ks, 1);
    assert_ok(floe_plan_sort_merge(v, k, 1, 10, &m));
    assert_string_equal(floe_plan_type_name(m), "SortPreservingMerge");
    assert_int_equal(floe_sort_num_keys(m), 1);
    assert_int_equal(floe_sort_fetch(m), 10);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(m, &b));
    assert_non_null(strstr(floe_buf_cstr(&b), "SortPreservingMerge: keys=[#1 DESC NULLS LAST], fetch=10, partitions=1"));
    floe_buf_free(&b);
    floe_plan_release(m);
    assert_error(floe_plan_sort_merge(v, k, 1, -2, &m), FLOE_ERR_INVALID_ARGUMENT, "fetch");
    free_keys(k, 1);
    floe_plan_release(v);
}

/* One partition fails after some rows: the merge fails. */
static void merge_reports_a_failing_partition(void **state) {
    (void)state;
    int32_t a[400];
    for (int i = 0; i < 400; i++) a[i] = i == 350 ? 0 : i + 1;
    floe_batch *bs[4];
    for (int k = 0; k < 4; k++) bs[k] = int_batch(a + k * 100, NULL, 100);
    floe_plan *v, *pr, *m;
    assert_ok(floe_plan_values(bs[0]->schema, bs, 4, 2, &v));
    floe_expr *c0, *lit, *div;
    assert_ok(floe_expr_column(0, &c0));
    assert_ok(floe_expr_lit_int32(1000, &lit));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, lit, c0, &div));
    floe_expr *exprs[2] = {c0, div};
    const char *names[] = {"a", "q"};
    assert_ok(floe_plan_projection(v, exprs, names, 2, &pr));
    floe_sort_key k = {c0, false, false};
    assert_ok(floe_plan_sort_merge(pr, &k, 1, -1, &m));
    for (int t = 0; t < 2; t++) {
        floe_exec_ctx ctx = test_ctx(t ? pool2 : pool1, 16);
        floe_batch *out = NULL;
        assert_error(run_plan(m, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "zero");
        assert_null(out);
    }
    floe_plan_release(m);
    floe_expr_release(c0);
    floe_expr_release(lit);
    floe_expr_release(div);
    floe_plan_release(pr);
    floe_plan_release(v);
    for (int k2 = 0; k2 < 4; k2++) floe_batch_release(bs[k2]);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(merge_of_sorted_partitions_is_sorted, setup, teardown),
               cmocka_unit_test_setup_teardown(merge_with_one_or_empty_partitions, setup, teardown),
               cmocka_unit_test_setup_teardown(merge_fetch_stops_after_fetch_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(top_n_per_partition_then_merge_equals_global_top_n, setup, teardown),
               cmocka_unit_test_setup_teardown(merge_explains_keys_and_fetch, setup, teardown),
               cmocka_unit_test_setup_teardown(merge_reports_a_failing_partition, setup, teardown))
