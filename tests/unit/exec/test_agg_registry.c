/*
 * test_agg_registry.c — the aggregate registry's contract (agg_func.h):
 * for every streaming entry, folding all rows into one state gives the
 * same result as folding three slices into three states, sending two of
 * them through serialize / deserialize (as PARTIAL → FINAL does) and
 * combining them into the first (as FINAL and a window segment tree do);
 * lookup by name and aliases; resolve errors name the function.
 */
#include <math.h>
#include <string.h>

#include "exec/agg/agg_func.h"
#include "exec_util.h"
#include "floe/memory.h"

#define N 3000

/* Columns: x int64 with NULLs, y float64, s string, x2 int64 (0..9). */
static floe_array *make_col(int which) {
    floe_type *t = floe_type_primitive(which == 0 || which == 3 ? FLOE_TYPE_INT64
                                       : which == 1           ? FLOE_TYPE_FLOAT64
                                                              : FLOE_TYPE_STRING);
    floe_builder *b;
    assert_ok(floe_builder_new(t, N, &b));
    for (int64_t i = 0; i < N; i++) {
        uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ULL;
        if (which == 0) {
            if (i % 17 == 3) assert_ok(floe_builder_append_null(b));
            else assert_ok(floe_builder_append_int64(b, (int64_t)(h >> 40) - 5000000));
        } else if (which == 1) {
            assert_ok(floe_builder_append_double(b, (double)(h >> 44) / 7.0 + 1e6));
        } else if (which == 2) {
            char buf[16];
            snprintf(buf, sizeof buf, "v%llu", (unsigned long long)(h >> 50));
            assert_ok(floe_builder_append_string(b, buf));
        } else {
            assert_ok(floe_builder_append_int64(b, i % 10));
        }
    }
    floe_array *a;
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

/* Finalize one state into a one-row array. */
static floe_array *final_of(const agg_info *ai, const uint8_t *st) {
    floe_builder *b;
    assert_ok(floe_builder_new(ai->out_type, 1, &b));
    assert_ok(ai->fn->finalize(ai, st, b));
    floe_array *a;
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

static void assert_same_value(const floe_array *a, const floe_array *b, const char *fn) {
    assert_int_equal(floe_array_is_null(a, 0), floe_array_is_null(b, 0));
    if (floe_array_is_null(a, 0)) return;
    if (a->type->id == FLOE_TYPE_FLOAT64) {
        double x = floe_array_get_double(a, 0), y = floe_array_get_double(b, 0);
        if (!(fabs(x - y) <= 1e-9 * (fabs(x) + fabs(y)) + 1e-12)) fail_msg("%s: %.17g vs %.17g", fn, x, y);
        return;
    }
    floe_buf u = FLOE_BUF_INIT, v = FLOE_BUF_INIT;
    assert_ok(floe_format_value(a, 0, &u));
    assert_ok(floe_format_value(b, 0, &v));
    if (strcmp(floe_buf_cstr(&u), floe_buf_cstr(&v))) fail_msg("%s: %s vs %s", fn, floe_buf_cstr(&u), floe_buf_cstr(&v));
    floe_buf_free(&u);
    floe_buf_free(&v);
}

/* One entry over argument columns args (n of them). */
static void check_entry(const char *name, floe_array **args, int32_t n) {
    const agg_func *f = floe_agg_lookup(name);
    assert_non_null(f);
    floe_type *types[2] = {args[0]->type, n > 1 ? args[1]->type : NULL};
    agg_info ai;
    assert_ok(floe_agg_resolve(f, types, n, NULL, 0, &ai));
    size_t sz = ai.state_size;
    uint8_t *one = floe_calloc(1, sz), *parts = floe_calloc(3, sz), *tmp = floe_calloc(1, sz);
    uint32_t *ids = floe_calloc(N, sizeof *ids), *pids = floe_calloc(N, sizeof *pids);
    for (int64_t i = 0; i < N; i++) pids[i] = (uint32_t)(i * 3 / N);
    if (f->init) {
        f->init(&ai, one);
        for (int k = 0; k < 3; k++) f->init(&ai, parts + k * sz);
    }
    assert_ok(f->update(&ai, one, sz, ids, args, NULL, 0, N));
    /* three slices by rows lists, in two calls each */
    assert_ok(f->update(&ai, parts, sz, pids, args, NULL, 0, N / 2));
    assert_ok(f->update(&ai, parts, sz, pids + N / 2, args, NULL, N / 2, N - N / 2));
    for (int k = 1; k < 3; k++) {
        floe_buf b = FLOE_BUF_INIT;
        assert_ok(f->serialize(&ai, parts + k * sz, &b));
        memset(tmp, 0, sz);
        if (f->init) f->init(&ai, tmp);
        assert_ok(f->deserialize(&ai, b.data, b.len, tmp));
        floe_buf_free(&b);
        assert_ok(f->combine(&ai, parts, tmp));
        if (f->destroy) f->destroy(&ai, tmp);
    }
    floe_array *want = final_of(&ai, one), *got = final_of(&ai, parts);
    if (!strcmp(name, "approx_count_distinct")) { /* a sketch: the merged one equals the one-pass one exactly */
        assert_int_equal(floe_array_get_int64(want, 0), floe_array_get_int64(got, 0));
    } else if (!strcmp(name, "approx_quantile")) { /* compactions differ: within 2% of the range */
        double x = floe_agg_num(want, 0), y = floe_agg_num(got, 0);
        assert_true(fabs(x - y) < 0.02 * 1e7);
    } else {
        assert_same_value(want, got, name);
    }
    floe_array_release(want);
    floe_array_release(got);
    if (f->destroy) {
        f->destroy(&ai, one);
        for (int k = 0; k < 3; k++) f->destroy(&ai, parts + k * sz);
    }
    floe_type_release(ai.out_type);
    floe_free(one);
    floe_free(parts);
    floe_free(tmp);
    floe_free(ids);
    floe_free(pids);
}

static void streaming_entries_combine_like_one_pass(void **state) {
    (void)state;
    floe_array *x = make_col(0), *y = make_col(1), *s = make_col(2), *x2 = make_col(3);
    const char *one_num[] = {"var_samp", "var_pop", "stddev", "stddev_pop", "variance", "stddev_samp",
                             "bit_and", "bit_or", "bit_xor", "any_value", "approx_count_distinct"};
    for (size_t i = 0; i < sizeof one_num / sizeof *one_num; i++) {
        floe_array *a[1] = {x};
        check_entry(one_num[i], a, 1);
    }
    const char *two[] = {"corr", "covar_pop", "covar_samp", "regr_slope", "regr_intercept", "regr_count", "regr_r2",
                         "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy"};
    for (size_t i = 0; i < sizeof two / sizeof *two; i++) {
        floe_array *a[2] = {y, x};
        check_entry(two[i], a, 2);
    }
    floe_array *sv[1] = {s};
    check_entry("any_value", sv, 1);
    check_entry("approx_count_distinct", sv, 1);
    floe_array *am[2] = {s, y};
    check_entry("arg_max", am, 2);
    check_entry("min_by", am, 2);
    floe_array *am2[2] = {y, s};
    check_entry("arg_min", am2, 2);
    check_entry("max_by", am2, 2);
    floe_array *aq[2] = {x, x2};
    check_entry("approx_quantile", aq, 2);
    floe_array_release(x);
    floe_array_release(y);
    floe_array_release(s);
    floe_array_release(x2);
}

static void lookup_and_resolve_errors(void **state) {
    (void)state;
    assert_non_null(floe_agg_lookup("every"));
    assert_int_equal(floe_agg_lookup("every")->fast, FLOE_AGG_BOOL_AND);
    assert_non_null(floe_agg_lookup("percentile_cont"));
    assert_true(floe_agg_lookup("median")->flags & AGGF_HOLISTIC);
    assert_null(floe_agg_lookup("no_such_aggregate"));
    agg_info ai;
    floe_type *t[2] = {floe_type_primitive(FLOE_TYPE_STRING), NULL};
    floe_status st = floe_agg_resolve(floe_agg_lookup("stddev"), t, 1, NULL, 0, &ai);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "stddev"));
    floe_status_free(st);
    st = floe_agg_resolve(floe_agg_lookup("corr"), t, 1, NULL, 0, &ai);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "corr takes 2 arguments"));
    floe_status_free(st);
    floe_agg_call c = {FLOE_AGG_NAMED, false, NULL, NULL, (char *)"median", NULL, NULL, 0, NULL};
    assert_true(floe_agg_call_needs_single(&c));
    assert_string_equal(floe_agg_call_func_name(&c), "median");
}

FLOE_TEST_MAIN(cmocka_unit_test(streaming_entries_combine_like_one_pass), cmocka_unit_test(lookup_and_resolve_errors))
