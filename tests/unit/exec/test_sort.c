/*
 * test_sort.c — the Sort node: full sorts and top-N over random data with
 * duplicates and NULLs, every key direction and NULL placement, strings,
 * floats with NaN and -0.0, decimals, dates and timestamps; stability;
 * top-N equal to sort + limit; codec roundtrips; errors from the child.
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

/* Run `p` (one partition) and check its pos column against ref[0..m). */
static void expect_positions(const floe_plan *p, const floe_exec_ctx *ctx, const row *ref, int64_t m) {
    floe_batch *out;
    assert_ok(run_plan(p, ctx, &out));
    if (m == 0) {
        assert_true(out == NULL || out->num_rows == 0);
        floe_batch_release(out);
        return;
    }
    assert_non_null(out);
    assert_int_equal(out->num_rows, m);
    for (int64_t i = 0; i < m; i++) {
        if (floe_array_get_int64(out->columns[3], i) != ref[i].pos)
            fail_msg("row %lld: pos %lld, expected %lld", (long long)i,
                     (long long)floe_array_get_int64(out->columns[3], i), (long long)ref[i].pos);
    }
    floe_batch_release(out);
}

static void check_sort(const keyspec *ks, int nk, int64_t n, int64_t per, int64_t fetch, floe_threadpool *pool,
                       int64_t batch_size) {
    row *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    random_rows(r, n);
    floe_plan *v = rows_plan(r, n, per, 1), *s;
    floe_sort_key *k = make_keys(ks, nk);
    assert_ok(floe_plan_sort(v, k, nk, fetch, &s));
    cur_keys = ks;
    cur_nkeys = nk;
    qsort(r, (size_t)n, sizeof *r, ref_cmp);
    int64_t m = fetch >= 0 && fetch < n ? fetch : n;
    floe_exec_ctx ctx = test_ctx(pool, batch_size);
    expect_positions(s, &ctx, r, m);
    /* and after a codec roundtrip */
    floe_plan *copy;
    assert_ok(floe_plan_roundtrip(s, &copy));
    expect_positions(copy, &ctx, r, m);
    floe_plan_release(copy);
    free_keys(k, nk);
    floe_plan_release(s);
    floe_plan_release(v);
    free(r);
}

static void sort_orders_int_keys_with_nulls_first_and_last(void **state) {
    (void)state;
    keyspec k1[] = {{0, false, false}};
    check_sort(k1, 1, 1000, 100, -1, pool1, 64);
    keyspec k2[] = {{0, true, true}};
    check_sort(k2, 1, 1000, 37, -1, pool2, 1000);
    keyspec k3[] = {{0, false, true}};
    check_sort(k3, 1, 3, 1, -1, pool2, 2);
    keyspec k4[] = {{0, true, false}};
    check_sort(k4, 1, 5000, 512, -1, pool2, 333);
}

static void sort_orders_strings_and_floats_with_nan_after_numbers(void **state) {
    (void)state;
    keyspec k1[] = {{1, false, false}};
    check_sort(k1, 1, 2000, 300, -1, pool2, 100);
    keyspec k2[] = {{1, true, true}};
    check_sort(k2, 1, 2000, 300, -1, pool2, 100);
    keyspec k3[] = {{2, false, false}};
    check_sort(k3, 1, 2000, 300, -1, pool2, 100);
    keyspec k4[] = {{2, true, false}};
    check_sort(k4, 1, 2000, 300, -1, pool1, 100);
}

static void sort_by_several_keys_is_stable(void **state) {
    (void)state;
    keyspec k1[] = {{0, false, true}, {1, true, false}};
    check_sort(k1, 2, 3000, 250, -1, pool2, 128);
    keyspec k2[] = {{1, false, false}, {2, true, true}, {0, false, false}};
    check_sort(k2, 3, 3000, 250, -1, pool1, 4096);
    keyspec k3[] = {{2, false, true}, {0, true, true}};
    check_sort(k3, 2, 3000, 250, -1, pool2, 7);
}

static void top_n_equals_sort_then_limit(void **state) {
    (void)state;
    keyspec k1[] = {{0, false, true}, {1, true, false}};
    const int64_t fetches[] = {0, 1, 5, 99, 1000, 2999, 3000, 5000};
    for (size_t i = 0; i < sizeof fetches / sizeof *fetches; i++) {
        check_sort(k1, 2, 3000, 97, fetches[i], pool2, 64);
        check_sort(k1, 2, 3000, 500, fetches[i], pool1, 1024);
    }
    keyspec k2[] = {{2, true, false}};
    check_sort(k2, 1, 4000, 50, 17, pool2, 10);
    keyspec k3[] = {{1, false, false}};
    check_sort(k3, 1, 4000, 50, 250, pool2, 10);
}

static void empty_input_gives_no_rows(void **state) {
    (void)state;
    keyspec k1[] = {{0, false, true}};
    check_sort(k1, 1, 0, 10, -1, pool2, 10);
    check_sort(k1, 1, 0, 10, 5, pool2, 10);
}

/* Each of several partitions is sorted on its own. */
static void sort_keeps_partitions_and_sorts_each(void **state) {
    (void)state;
    int64_t n = 2000;
    row *r = malloc((size_t)n * sizeof *r);
    random_rows(r, n);
    floe_plan *v = rows_plan(r, n, 100, 3), *s;
    keyspec ks[] = {{1, false, true}, {0, true, false}};
    floe_sort_key *k = make_keys(ks, 2);
    assert_ok(floe_plan_sort(v, k, 2, -1, &s));
    assert_int_equal(floe_plan_partitions(s), 3);
    assert_int_equal(s->n_ordering, 2);
    assert_true(s->ordering[0].nulls_first);
    cur_keys = ks;
    cur_nkeys = 2;
    floe_exec_ctx ctx = test_ctx(pool2, 128);
    for (int32_t part = 0; part < 3; part++) {
        /* batch k of 100 rows goes to partition k % 3 */
        row *mine = malloc((size_t)n * sizeof *mine);
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++)
            if ((i / 100) % 3 == part) mine[m++] = r[i];
        qsort(mine, (size_t)m, sizeof *mine, ref_cmp);
        floe_stream *st;
        assert_ok(test_execute(s, part, &ctx, &st));
        int64_t got = 0;
        for (;;) {
            floe_batch *b;
            assert_ok(floe_stream_next(st, &b));
            if (!b) break;
            assert_true(b->num_rows <= 128);
            for (int64_t i = 0; i < b->num_rows; i++, got++)
                assert_int_equal(floe_array_get_int64(b->columns[3], i), mine[got].pos);
            floe_batch_release(b);
        }
        assert_int_equal(got, m);
        floe_stream_close(st);
        free(mine);
    }
    free_keys(k, 2);
    floe_plan_release(s);
    floe_plan_release(v);
    free(r);
}

/* Decimals (also beyond 64 bits), dates and timestamps sort by value. */
static void sort_orders_decimals_dates_and_timestamps(void **state) {
    (void)state;
    const int n = 6;
    const int64_t dec[] = {-5, 170141183460469231LL, 3, -170141183460469231LL, 0, 3};
    const int32_t days[] = {10, -400, 10, 20000, 0, -1};
    const int64_t ts[] = {5, -5, 1LL << 40, 0, -(1LL << 40), 7};
    floe_type *dt;
    assert_ok(floe_type_decimal(38, 2, &dt));
    floe_field f[3];
    floe_schema *sch;
    assert_ok(floe_field_init(&f[0], "d", dt, true, -1));
    assert_ok(floe_field_init(&f[1], "day", floe_type_primitive(FLOE_TYPE_DATE32), true, -1));
    assert_ok(floe_field_init(&f[2], "ts", floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ), true, -1));
    assert_ok(floe_type_struct(f, 3, &sch));
    floe_builder *b[3];
    floe_array *cols[3];
    for (int c = 0; c < 3; c++) assert_ok(floe_builder_new(sch->children[c].type, n, &b[c]));
    for (int i = 0; i < n; i++) {
        floe_decimal128 d = floe_decimal128_from_int64(dec[i]);
        if (i == 1) d.hi = 5; /* a value beyond 64 bits */
        if (i == 3) d.hi = -6;
        assert_ok(floe_builder_append_decimal(b[0], d));
        assert_ok(floe_builder_append_int32(b[1], days[i]));
        assert_ok(floe_builder_append_int64(b[2], ts[i]));
    }
    for (int c = 0; c < 3; c++) {
        assert_ok(floe_builder_finish(b[c], &cols[c]));
        floe_builder_free(b[c]);
    }
    floe_batch *batch;
    assert_ok(floe_batch_new(sch, cols, 3, n, &batch));
    floe_plan *v, *s;
    assert_ok(floe_plan_values(sch, &batch, 1, 1, &v));
    floe_exec_ctx ctx = test_ctx(pool2, 4);
    floe_sort_key k = {NULL, false, false};
    floe_batch *out;
    /* decimal ascending: -6<<64.., -5, 0, 3, 3, 5<<64.. → rows 3, 0, 4, 2, 5, 1 */
    assert_ok(floe_expr_column(0, &k.expr));
    assert_ok(floe_plan_sort(v, &k, 1, -1, &s));
    assert_ok(run_plan(s, &ctx, &out));
    const int exp_dec[] = {3, 0, 4, 2, 5, 1};
    for (int i = 0; i < n; i++) {
        floe_decimal128 got = floe_array_get_decimal(out->columns[0], i);
        floe_decimal128 want = floe_array_get_decimal(batch->columns[0], exp_dec[i]);
        assert_true(got.lo == want.lo && got.hi == want.hi);
    }
    floe_batch_release(out);
    floe_plan_release(s);
    floe_expr_release(k.expr);
    /* date descending */
    k.descending = true;
    assert_ok(floe_expr_column(1, &k.expr));
    assert_ok(floe_plan_sort(v, &k, 1, 3, &s));
    assert_ok(run_plan(s, &ctx, &out));
    assert_int_equal(out->num_rows, 3);
    assert_int_equal(floe_array_get_int32(out->columns[1], 0), 20000);
    assert_int_equal(floe_array_get_int32(out->columns[1], 1), 10);
    assert_int_equal(floe_array_get_int32(out->columns[1], 2), 10);
    floe_batch_release(out);
    floe_plan_release(s);
    floe_expr_release(k.expr);
    /* timestamp ascending */
    k.descending = false;
    assert_ok(floe_expr_column(2, &k.expr));
    assert_ok(floe_plan_sort(v, &k, 1, -1, &s));
    assert_ok(run_plan(s, &ctx, &out));
    const int64_t exp_ts[] = {-(1LL << 40), -5, 0, 5, 7, 1LL << 40};
    for (int i = 0; i < n; i++) assert_int_equal(floe_array_get_int64(out->columns[2], i), exp_ts[i]);
    floe_batch_release(out);
    floe_plan_release(s);
    floe_expr_release(k.expr);
    floe_plan_release(v);
    floe_batch_release(batch);
    for (int c = 0; c < 3; c++) floe_array_release(cols[c]);
    for (int c = 0; c < 3; c++) floe_field_clear(&f[c]);
    floe_type_release(sch);
    floe_type_release(dt);
}

/* Order of two nullable strings: ascending NULLS LAST, or descending NULLS FIRST. */
static int str_order(const char *a, const char *b, int desc) {
    if (!a || !b) return !a && !b ? 0 : (!a ? (desc ? -1 : 1) : (desc ? 1 : -1));
    int c = strcmp(a, b);
    c = c < 0 ? -1 : c > 0;
    return desc ? -c : c;
}

/* Strings sharing a long prefix (the sort looks past it) and of unequal length. */
static void sort_orders_strings_with_a_shared_prefix(void **state) {
    (void)state;
    const char *vals[] = {"prefix-shared-0010", "prefix-shared-0002", NULL, "prefix-shared-001", "prefix-shared-00",
                          "prefix-shared-0010", "prefix-shared-", "prefix-shared-00100000000", "prefix-shared-0002"};
    int n = 9;
    floe_field f;
    floe_schema *sch;
    assert_ok(floe_field_init(&f, "s", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    assert_ok(floe_type_struct(&f, 1, &sch));
    floe_field_clear(&f);
    floe_builder *b;
    assert_ok(floe_builder_new(sch->children[0].type, n, &b));
    for (int i = 0; i < n; i++) assert_ok(vals[i] ? floe_builder_append_string(b, vals[i]) : floe_builder_append_null(b));
    floe_array *col;
    assert_ok(floe_builder_finish(b, &col));
    floe_builder_free(b);
    floe_batch *batch;
    assert_ok(floe_batch_new(sch, &col, 1, n, &batch));
    floe_plan *v, *s;
    assert_ok(floe_plan_values(sch, &batch, 1, 1, &v));
    floe_sort_key k = {NULL, false, false};
    assert_ok(floe_expr_column(0, &k.expr));
    for (int desc = 0; desc < 2; desc++) {
        k.descending = desc;
        k.nulls_first = desc;
        assert_ok(floe_plan_sort(v, &k, 1, -1, &s));
        floe_exec_ctx ctx = test_ctx(pool2, 4);
        floe_batch *out;
        assert_ok(run_plan(s, &ctx, &out));
        assert_int_equal(out->num_rows, n);
        /* the naive stable order */
        int want[9];
        for (int i = 0; i < n; i++) want[i] = i;
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && str_order(vals[want[j - 1]], vals[want[j]], desc) > 0; j--) {
                int t = want[j];
                want[j] = want[j - 1];
                want[j - 1] = t;
            }
        for (int i = 0; i < n; i++) {
            int w = want[i];
            if (!vals[w]) {
                assert_true(floe_array_is_null(out->columns[0], i));
                continue;
            }
            floe_strview got = floe_array_get_str(out->columns[0], i);
            assert_int_equal(got.len, (int)strlen(vals[w]));
            assert_memory_equal(got.data, vals[w], (size_t)got.len);
        }
        floe_batch_release(out);
        floe_plan_release(s);
    }
    floe_expr_release(k.expr);
    floe_plan_release(v);
    floe_batch_release(batch);
    floe_array_release(col);
    floe_type_release(sch);
}

static void sort_explains_keys_and_fetch(void **state) {
    (void)state;
    row r[4];
    random_rows(r, 4);
    floe_plan *v = rows_plan(r, 4, 4, 1), *s;
    keyspec ks[] = {{1, true, false}, {0, false, true}};
    floe_sort_key *k = make_keys(ks, 2);
    assert_ok(floe_plan_sort(v, k, 2, 10, &s));
    assert_string_equal(floe_plan_type_name(s), "Sort");
    assert_int_equal(floe_sort_num_keys(s), 2);
    assert_true(floe_sort_key_at(s, 0)->descending);
    assert_int_equal(floe_sort_fetch(s), 10);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(s, &b));
    assert_non_null(strstr(floe_buf_cstr(&b), "Sort: keys=[#1 DESC NULLS LAST, #0 ASC NULLS FIRST], fetch=10"));
    floe_buf_free(&b);
    floe_plan_release(s);
    /* no fetch: not shown */
    assert_ok(floe_plan_sort(v, k, 1, -1, &s));
    assert_ok(floe_plan_explain(s, &b));
    assert_null(strstr(floe_buf_cstr(&b), "fetch"));
    floe_buf_free(&b);
    floe_plan_release(s);
    free_keys(k, 2);
    floe_plan_release(v);
}

static void sort_rejects_bad_keys(void **state) {
    (void)state;
    row r[4];
    random_rows(r, 4);
    floe_plan *v = rows_plan(r, 4, 4, 1), *s;
    floe_sort_key k = {NULL, false, false};
    assert_ok(floe_expr_column(9, &k.expr));
    assert_error(floe_plan_sort(v, &k, 1, -1, &s), FLOE_ERR_INVALID_ARGUMENT, "column #9");
    floe_expr_release(k.expr);
    assert_ok(floe_expr_column(0, &k.expr));
    assert_error(floe_plan_sort(v, &k, 0, -1, &s), FLOE_ERR_INVALID_ARGUMENT, "sort key");
    assert_error(floe_plan_sort(v, &k, 1, -7, &s), FLOE_ERR_INVALID_ARGUMENT, "fetch");
    floe_expr_release(k.expr);
    floe_plan_release(v);
}

/* A child failing in a late batch fails the sort (never an empty result). */
static void sort_reports_child_errors(void **state) {
    (void)state;
    int32_t a[300];
    for (int i = 0; i < 300; i++) a[i] = i == 250 ? 0 : i + 1;
    floe_batch *bs[3];
    for (int k = 0; k < 3; k++) bs[k] = int_batch(a + k * 100, NULL, 100);
    floe_plan *v, *pr, *s;
    assert_ok(floe_plan_values(bs[0]->schema, bs, 3, 1, &v));
    floe_expr *c0, *one, *div;
    assert_ok(floe_expr_column(0, &c0));
    assert_ok(floe_expr_lit_int32(1000, &one));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, one, c0, &div));
    const char *names[] = {"q"};
    assert_ok(floe_plan_projection(v, &div, names, 1, &pr));
    floe_sort_key k = {c0, false, false};
    floe_exec_ctx ctx = test_ctx(pool2, 64);
    for (int64_t fetch = -1; fetch <= 5; fetch += 6) {
        assert_ok(floe_plan_sort(pr, &k, 1, fetch, &s));
        floe_batch *out = NULL;
        floe_status st = run_plan(s, &ctx, &out);
        assert_non_null(st);
        assert_null(out);
        floe_status_free(st);
        floe_plan_release(s);
    }
    floe_expr_release(c0);
    floe_expr_release(one);
    floe_expr_release(div);
    floe_plan_release(pr);
    floe_plan_release(v);
    for (int k2 = 0; k2 < 3; k2++) floe_batch_release(bs[k2]);
}

/* Cancelling while a sort or top-N stream is open: next() reports it. */
static void sort_reports_cancellation(void **state) {
    (void)state;
    row r[300];
    random_rows(r, 300);
    floe_plan *v = rows_plan(r, 300, 50, 1), *s;
    keyspec ks[] = {{0, false, false}};
    floe_sort_key *k = make_keys(ks, 1);
    for (int64_t fetch = -1; fetch <= 10; fetch += 11) {
        assert_ok(floe_plan_sort(v, k, 1, fetch, &s));
        floe_cancel cancel;
        floe_cancel_init(&cancel, NULL);
        floe_exec_ctx ctx = test_ctx(pool2, 16);
        ctx.cancel = &cancel;
        floe_stream *st;
        floe_batch *b;
        assert_ok(test_execute(s, 0, &ctx, &st));
        assert_ok(floe_stream_next(st, &b));
        assert_non_null(b);
        floe_batch_release(b);
        floe_cancel_set(&cancel);
        assert_error(floe_stream_next(st, &b), FLOE_ERR_CANCELLED, "Sort");
        floe_stream_close(st);
        floe_plan_release(s);
    }
    free_keys(k, 1);
    floe_plan_release(v);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(sort_reports_cancellation, setup, teardown),
               cmocka_unit_test_setup_teardown(sort_orders_int_keys_with_nulls_first_and_last, setup, teardown),
               cmocka_unit_test_setup_teardown(sort_orders_strings_and_floats_with_nan_after_numbers, setup, teardown),
               cmocka_unit_test_setup_teardown(sort_by_several_keys_is_stable, setup, teardown),
               cmocka_unit_test_setup_teardown(top_n_equals_sort_then_limit, setup, teardown),
               cmocka_unit_test_setup_teardown(empty_input_gives_no_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(sort_keeps_partitions_and_sorts_each, setup, teardown),
               cmocka_unit_test_setup_teardown(sort_orders_decimals_dates_and_timestamps, setup,
                                               teardown),
               cmocka_unit_test_setup_teardown(sort_orders_strings_with_a_shared_prefix, setup, teardown),
               cmocka_unit_test_setup_teardown(sort_explains_keys_and_fetch, setup, teardown),
               cmocka_unit_test_setup_teardown(sort_rejects_bad_keys, setup, teardown),
               cmocka_unit_test_setup_teardown(sort_reports_child_errors, setup, teardown))
