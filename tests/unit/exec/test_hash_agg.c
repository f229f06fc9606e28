/*
 * test_hash_agg.c — HashAggregate: every aggregate function checked
 * against a naive computation on random data (many groups, NULL keys,
 * every key type), SINGLE = PARTIAL + FINAL, the one-row result without
 * group keys, overflow and type errors, errors and cancellation that must
 * not look like an empty result, codec roundtrip and EXPLAIN.
 */
#include <math.h>

#include "base/log.h"
#include "exec_util.h"
#include "exec/basic/filter_sel.h"
#include "floe/exec_ops.h"

typedef __int128 i128;

static floe_threadpool *pool;

static int setup(void **state) {
    (void)state;
    return floe_threadpool_create(2, &pool) ? -1 : 0;
}
static int teardown(void **state) {
    (void)state;
    floe_threadpool_destroy(pool);
    return 0;
}

/* ------------------------------------------------------------ random data */

static uint64_t rng_state;
static uint64_t rnd(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng_state >> 17;
}
static int64_t rnd_in(int64_t n) { return (int64_t)(rnd() % (uint64_t)n); }

enum { K_INT, K_STR, K_F64, K_BOOL, K_DATE, K_DEC, V_I64, V_I32, V_DEC, V_F64, V_BOOL, V_STR, V_TS, V_SMALL, NCOLS };
static const char *const col_names[NCOLS] = {"k_int", "k_str", "k_f64", "k_bool", "k_date", "k_dec", "v_i64",
                                             "v_i32", "v_dec", "v_f64", "v_bool", "v_str", "v_ts", "v_small"};

static floe_schema *random_schema(void) {
    floe_type *dec;
    assert_ok(floe_type_decimal(12, 2, &dec));
    floe_type *types[NCOLS] = {
        floe_type_primitive(FLOE_TYPE_INT32),   floe_type_primitive(FLOE_TYPE_STRING),
        floe_type_primitive(FLOE_TYPE_FLOAT64), floe_type_primitive(FLOE_TYPE_BOOL),
        floe_type_primitive(FLOE_TYPE_DATE32),  dec,
        floe_type_primitive(FLOE_TYPE_INT64),   floe_type_primitive(FLOE_TYPE_INT32),
        dec,                                    floe_type_primitive(FLOE_TYPE_FLOAT64),
        floe_type_primitive(FLOE_TYPE_BOOL),    floe_type_primitive(FLOE_TYPE_STRING),
        floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), floe_type_primitive(FLOE_TYPE_INT32)};
    floe_field f[NCOLS];
    for (int i = 0; i < NCOLS; i++) assert_ok(floe_field_init(&f[i], col_names[i], types[i], true, -1));
    floe_schema *s;
    assert_ok(floe_type_struct(f, NCOLS, &s));
    for (int i = 0; i < NCOLS; i++) floe_field_clear(&f[i]);
    floe_type_release(dec);
    return s;
}

/* One batch of n random rows; `keys` distinct k_int values. */
static floe_batch *random_batch(floe_schema *s, int64_t n, int keys) {
    floe_builder *b[NCOLS];
    for (int c = 0; c < NCOLS; c++) assert_ok(floe_builder_new(s->children[c].type, n, &b[c]));
    static const double f64s[] = {0.0, -0.0, 1.5, NAN, 2.25, -7.0};
    char buf[32];
    for (int64_t r = 0; r < n; r++) {
        bool null = rnd_in(20) == 0;
        if (null) assert_ok(floe_builder_append_null(b[K_INT]));
        else assert_ok(floe_builder_append_int32(b[K_INT], (int32_t)rnd_in(keys) - keys / 3));
        if (rnd_in(15) == 0) assert_ok(floe_builder_append_null(b[K_STR]));
        else {
            snprintf(buf, sizeof buf, "s%d", (int)rnd_in(7));
            assert_ok(floe_builder_append_string(b[K_STR], rnd_in(7) == 0 ? "" : buf));
        }
        if (rnd_in(10) == 0) assert_ok(floe_builder_append_null(b[K_F64]));
        else assert_ok(floe_builder_append_double(b[K_F64], f64s[rnd_in(6)]));
        if (rnd_in(5) == 0) assert_ok(floe_builder_append_null(b[K_BOOL]));
        else assert_ok(floe_builder_append_bool(b[K_BOOL], rnd_in(2)));
        assert_ok(floe_builder_append_int32(b[K_DATE], 18000 + (int32_t)rnd_in(4)));
        if (rnd_in(9) == 0) assert_ok(floe_builder_append_null(b[K_DEC]));
        else assert_ok(floe_builder_append_decimal(b[K_DEC], floe_decimal128_from_int64(rnd_in(3) * 150 - 150)));
        if (rnd_in(6) == 0) assert_ok(floe_builder_append_null(b[V_I64]));
        else assert_ok(floe_builder_append_int64(b[V_I64], rnd_in(2000000000000LL) - 1000000000000LL));
        assert_ok(floe_builder_append_int32(b[V_I32], (int32_t)rnd_in(2000001) - 1000000));
        if (rnd_in(6) == 0) assert_ok(floe_builder_append_null(b[V_DEC]));
        else {
            floe_decimal128 d = floe_decimal128_from_int64(rnd_in(1000000000000LL) - 500000000000LL);
            assert_ok(floe_builder_append_decimal(b[V_DEC], d));
        }
        if (rnd_in(6) == 0) assert_ok(floe_builder_append_null(b[V_F64]));
        else assert_ok(floe_builder_append_double(b[V_F64], (double)rnd_in(1000000) / 64.0 - 5000));
        if (rnd_in(4) == 0) assert_ok(floe_builder_append_null(b[V_BOOL]));
        else assert_ok(floe_builder_append_bool(b[V_BOOL], rnd_in(8) != 0));
        if (rnd_in(6) == 0) assert_ok(floe_builder_append_null(b[V_STR]));
        else {
            int len = (int)rnd_in(12);
            for (int i = 0; i < len; i++) buf[i] = (char)('a' + rnd_in(26));
            assert_ok(floe_builder_append_binary(b[V_STR], buf, len));
        }
        assert_ok(floe_builder_append_int64(b[V_TS], 1600000000000000LL + rnd_in(1000000000)));
        if (rnd_in(8) == 0) assert_ok(floe_builder_append_null(b[V_SMALL]));
        else assert_ok(floe_builder_append_int32(b[V_SMALL], (int32_t)rnd_in(10)));
    }
    floe_array *cols[NCOLS];
    for (int c = 0; c < NCOLS; c++) {
        assert_ok(floe_builder_finish(b[c], &cols[c]));
        floe_builder_free(b[c]);
    }
    floe_batch *out;
    assert_ok(floe_batch_new(s, cols, NCOLS, n, &out));
    for (int c = 0; c < NCOLS; c++) floe_array_release(cols[c]);
    return out;
}

/* Values plan of nb random batches of n rows over `partitions`. */
static floe_plan *random_values(int nb, int64_t n, int keys, int32_t partitions, floe_batch **all) {
    floe_schema *s = random_schema();
    floe_batch *bs[16];
    for (int i = 0; i < nb; i++) bs[i] = random_batch(s, n, keys);
    floe_plan *p;
    assert_ok(floe_plan_values(s, bs, nb, partitions, &p));
    if (all) assert_ok(floe_batch_concat(bs, nb, all));
    for (int i = 0; i < nb; i++) floe_batch_release(bs[i]);
    floe_type_release(s);
    return p;
}

static floe_expr *col(int32_t i) {
    floe_expr *e;
    assert_ok(floe_expr_column(i, &e));
    return e;
}

/* ------------------------------------------------------- naive checking */

/* Text of key row r of cols (normalising -0.0 and NULL) into buf. */
static void key_text(floe_array *const *cols, int n, int64_t r, floe_buf *buf) {
    floe_buf_clear(buf);
    for (int c = 0; c < n; c++) {
        const floe_array *a = cols[c];
        assert_ok(floe_buf_append_str(buf, "|"));
        if (floe_array_is_null(a, r)) assert_ok(floe_buf_append_str(buf, "<null>"));
        else if (a->type->id == FLOE_TYPE_FLOAT64 && floe_array_get_double(a, r) == 0)
            assert_ok(floe_buf_append_str(buf, "0.0"));
        else assert_ok(floe_format_value(a, r, buf));
    }
}

static i128 as_i128(const floe_array *a, int64_t r) {
    switch (a->type->id) {
    case FLOE_TYPE_INT32: return floe_array_get_int32(a, r);
    case FLOE_TYPE_DECIMAL128: {
        floe_decimal128 d = floe_array_get_decimal(a, r);
        return (i128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
    }
    default: return floe_array_get_int64(a, r);
    }
}
static double as_double(const floe_array *a, int64_t r) {
    if (a->type->id == FLOE_TYPE_FLOAT64) return floe_array_get_double(a, r);
    if (a->type->id == FLOE_TYPE_DECIMAL128) return (double)as_i128(a, r) / pow(10, a->type->scale);
    return (double)as_i128(a, r);
}
/* Order of two non-null values of the same type. */
static int cmp_values(const floe_array *a, int64_t i, const floe_array *b, int64_t j) {
    switch (a->type->id) {
    case FLOE_TYPE_STRING: {
        floe_strview x = floe_array_get_str(a, i), y = floe_array_get_str(b, j);
        int c = memcmp(x.data, y.data, (size_t)(x.len < y.len ? x.len : y.len));
        return c ? c : (x.len > y.len) - (x.len < y.len);
    }
    case FLOE_TYPE_FLOAT64: {
        double x = as_double(a, i), y = as_double(b, j);
        return (x > y) - (x < y);
    }
    case FLOE_TYPE_BOOL: return (int)floe_array_get_bool(a, i) - (int)floe_array_get_bool(b, j);
    default: {
        i128 x = as_i128(a, i), y = as_i128(b, j);
        return (x > y) - (x < y);
    }
    }
}

static bool close_to(double x, double y) { return fabs(x - y) <= 1e-9 * (fabs(x) + fabs(y)) + 1e-9; }

/* Check output column `oc` (aggregate `c`) of output row `orow` against
 * the input rows `rows[0..n)` of that group. */
static void check_call(const floe_agg_call *c, const floe_batch *in, const uint32_t *rows, int64_t n,
                       const floe_array *out, int64_t orow) {
    const floe_array *v = c->arg ? in->columns[c->arg->column] : NULL;
    int64_t cnt = 0, best = -1;
    i128 isum = 0;
    double fsum = 0;
    bool band = true, bor = false;
    /* distinct: keep rows whose value was not seen before in the group */
    for (int64_t k = 0; k < n; k++) {
        int64_t r = rows[k];
        if (v && floe_array_is_null(v, r)) continue;
        if (c->distinct) {
            bool dup = false;
            for (int64_t j = 0; j < k && !dup; j++)
                dup = !floe_array_is_null(v, rows[j]) && cmp_values(v, rows[j], v, r) == 0;
            if (dup) continue;
        }
        cnt++;
        if (!v) continue;
        if (v->type->id == FLOE_TYPE_FLOAT64) fsum += floe_array_get_double(v, r);
        else if (v->type->id != FLOE_TYPE_STRING && v->type->id != FLOE_TYPE_BOOL) isum += as_i128(v, r);
        if (v->type->id == FLOE_TYPE_BOOL) {
            band = band && floe_array_get_bool(v, r);
            bor = bor || floe_array_get_bool(v, r);
        }
        if (best < 0 || (c->fn == FLOE_AGG_MIN ? cmp_values(v, r, v, best) < 0 : cmp_values(v, r, v, best) > 0))
            best = r;
    }
    const char *nm = c->name;
    switch (c->fn) {
    case FLOE_AGG_COUNT_STAR:
    case FLOE_AGG_COUNT:
        if (floe_array_get_int64(out, orow) != cnt) fail_msg("%s: %lld, expected %lld", nm, (long long)floe_array_get_int64(out, orow), (long long)cnt);
        return;
    default: break;
    }
    if (cnt == 0) {
        if (!floe_array_is_null(out, orow)) fail_msg("%s: expected NULL", nm);
        return;
    }
    if (floe_array_is_null(out, orow)) fail_msg("%s: unexpected NULL", nm);
    switch (c->fn) {
    case FLOE_AGG_SUM:
        if (v->type->id == FLOE_TYPE_FLOAT64) {
            if (!close_to(floe_array_get_double(out, orow), fsum)) fail_msg("%s: %g vs %g", nm, floe_array_get_double(out, orow), fsum);
        } else if (as_i128(out, orow) != isum) {
            fail_msg("%s: wrong sum", nm);
        }
        break;
    case FLOE_AGG_AVG: {
        double want = v->type->id == FLOE_TYPE_FLOAT64 ? fsum / (double)cnt
                      : (double)isum / (v->type->id == FLOE_TYPE_DECIMAL128 ? pow(10, v->type->scale) : 1) / (double)cnt;
        if (!close_to(floe_array_get_double(out, orow), want)) fail_msg("%s: %g vs %g", nm, floe_array_get_double(out, orow), want);
        break;
    }
    case FLOE_AGG_MIN:
    case FLOE_AGG_MAX:
        if (cmp_values(out, orow, v, best) != 0) fail_msg("%s: wrong min/max", nm);
        break;
    case FLOE_AGG_BOOL_AND:
        assert_int_equal(floe_array_get_bool(out, orow), band);
        break;
    case FLOE_AGG_BOOL_OR:
        assert_int_equal(floe_array_get_bool(out, orow), bor);
        break;
    default: break;
    }
}

/* Check an aggregate result `out` (group columns then calls) against the
 * input `in` grouped by input columns key_cols[0..nk). */
static void check_against_naive(const floe_batch *in, const int32_t *key_cols, int nk, const floe_agg_call *calls,
                                int ncalls, const floe_batch *out) {
    floe_array *ik[8], *ok[8];
    for (int k = 0; k < nk; k++) {
        ik[k] = in->columns[key_cols[k]];
        ok[k] = out ? out->columns[k] : NULL;
    }
    /* naive groups: text of each input row's key, distinct texts counted */
    int64_t n = in->num_rows;
    char **texts = calloc((size_t)n, sizeof *texts);
    floe_buf buf = FLOE_BUF_INIT;
    for (int64_t r = 0; r < n; r++) {
        key_text(ik, nk, r, &buf);
        texts[r] = strdup(floe_buf_cstr(&buf));
    }
    int64_t groups = 0;
    for (int64_t r = 0; r < n; r++) {
        bool seen = false;
        for (int64_t j = 0; j < r && !seen; j++) seen = strcmp(texts[j], texts[r]) == 0;
        groups += !seen;
    }
    int64_t out_rows = out ? out->num_rows : 0;
    if (nk == 0) groups = 1;
    assert_int_equal(out_rows, groups);
    uint32_t *rows = malloc((size_t)(n ? n : 1) * sizeof *rows);
    for (int64_t o = 0; o < out_rows; o++) {
        key_text(ok, nk, o, &buf);
        int64_t m = 0;
        for (int64_t r = 0; r < n; r++)
            if (strcmp(texts[r], floe_buf_cstr(&buf)) == 0) rows[m++] = (uint32_t)r;
        if (nk && m == 0) fail_msg("output group %s matches no input row", floe_buf_cstr(&buf));
        for (int c = 0; c < ncalls; c++) check_call(&calls[c], in, rows, m, out->columns[nk + c], o);
        /* each output group appears once */
        for (int64_t o2 = 0; o2 < o; o2++) {
            floe_buf b2 = FLOE_BUF_INIT;
            key_text(ok, nk, o2, &b2);
            if (strcmp(floe_buf_cstr(&b2), floe_buf_cstr(&buf)) == 0) fail_msg("group %s output twice", floe_buf_cstr(&buf));
            floe_buf_free(&b2);
        }
    }
    for (int64_t r = 0; r < n; r++) free(texts[r]);
    free(texts);
    free(rows);
    floe_buf_free(&buf);
}

/* The standard set of calls over the random schema. */
#define NCALLS 26
static floe_agg_call calls_buf[NCALLS];
static const floe_agg_call *std_calls(bool with_distinct, int *n) {
    static const struct { floe_agg_fn fn; int col; bool distinct; const char *name; } spec[NCALLS] = {
        {FLOE_AGG_COUNT_STAR, -1, false, "cnt"}, {FLOE_AGG_COUNT, V_I64, false, "cnt_i64"},
        {FLOE_AGG_SUM, V_I64, false, "sum_i64"}, {FLOE_AGG_SUM, V_I32, false, "sum_i32"},
        {FLOE_AGG_SUM, V_DEC, false, "sum_dec"}, {FLOE_AGG_SUM, V_F64, false, "sum_f64"},
        {FLOE_AGG_MIN, V_I64, false, "min_i64"}, {FLOE_AGG_MAX, V_I64, false, "max_i64"},
        {FLOE_AGG_MIN, V_STR, false, "min_str"}, {FLOE_AGG_MAX, V_STR, false, "max_str"},
        {FLOE_AGG_MIN, V_DEC, false, "min_dec"}, {FLOE_AGG_MAX, V_DEC, false, "max_dec"},
        {FLOE_AGG_MIN, V_F64, false, "min_f64"}, {FLOE_AGG_MAX, V_F64, false, "max_f64"},
        {FLOE_AGG_MIN, V_TS, false, "min_ts"},   {FLOE_AGG_MAX, V_I32, false, "max_i32"},
        {FLOE_AGG_AVG, V_I32, false, "avg_i32"}, {FLOE_AGG_AVG, V_DEC, false, "avg_dec"},
        {FLOE_AGG_AVG, V_F64, false, "avg_f64"}, {FLOE_AGG_BOOL_AND, V_BOOL, false, "all_b"},
        {FLOE_AGG_BOOL_OR, V_BOOL, false, "any_b"}, {FLOE_AGG_MIN, V_BOOL, false, "min_b"},
        {FLOE_AGG_COUNT, V_SMALL, true, "cnt_distinct"}, {FLOE_AGG_SUM, V_SMALL, true, "sum_distinct"},
        {FLOE_AGG_AVG, V_SMALL, true, "avg_distinct"}, {FLOE_AGG_MAX, V_STR, true, "max_distinct"}};
    int k = 0;
    for (int i = 0; i < NCALLS; i++) {
        if (calls_buf[i].arg) floe_expr_release(calls_buf[i].arg);
        calls_buf[i].arg = NULL;
    }
    for (int i = 0; i < NCALLS; i++) {
        if (spec[i].distinct && !with_distinct) continue;
        calls_buf[k].fn = spec[i].fn;
        calls_buf[k].distinct = spec[i].distinct;
        calls_buf[k].arg = spec[i].col >= 0 ? col(spec[i].col) : NULL;
        calls_buf[k].name = (char *)spec[i].name;
        k++;
    }
    *n = k;
    return calls_buf;
}
static void free_calls(void) {
    for (int i = 0; i < NCALLS; i++) {
        floe_expr_release(calls_buf[i].arg);
        calls_buf[i].arg = NULL;
    }
}

static floe_plan *agg_over_columns(floe_plan *child, floe_agg_mode mode, const int32_t *keys, int nk,
                                   const floe_agg_call *calls, int nc, const floe_schema *input) {
    floe_expr *g[8];
    const char *names[8];
    for (int i = 0; i < nk; i++) {
        g[i] = col(keys[i]);
        names[i] = col_names[keys[i]];
    }
    floe_plan *p;
    assert_ok(floe_plan_hash_aggregate(child, mode, g, names, nk, calls, nc, input, &p));
    for (int i = 0; i < nk; i++) floe_expr_release(g[i]);
    return p;
}

/* ---------------------------------------------------------------- tests */

static void single_mode_matches_naive_computation_on_random_data(void **state) {
    (void)state;
    rng_state = 42;
    floe_batch *all;
    floe_plan *v = random_values(4, 700, 60, 1, &all);
    int nc;
    const floe_agg_call *calls = std_calls(true, &nc);
    const int32_t keys[2] = {K_INT, K_STR};
    floe_plan *agg = agg_over_columns(v, FLOE_AGG_MODE_SINGLE, keys, 2, calls, nc, NULL);
    floe_exec_ctx ctx = test_ctx(pool, 100); /* several output batches */
    floe_batch *out;
    assert_ok(run_plan(agg, &ctx, &out));
    assert_true(out->num_rows > 100);
    check_against_naive(all, keys, 2, calls, nc, out);
    floe_batch_release(out);
    floe_plan_release(agg);
    floe_plan_release(v);
    floe_batch_release(all);
    free_calls();
}

static void every_key_type_groups_like_sql_including_negative_zero_and_nan(void **state) {
    (void)state;
    rng_state = 7;
    floe_batch *all;
    floe_plan *v = random_values(3, 500, 5, 1, &all);
    int nc;
    const floe_agg_call *calls = std_calls(false, &nc);
    const int32_t keys[6] = {K_F64, K_BOOL, K_DATE, K_DEC, K_STR, K_INT};
    for (int nk = 1; nk <= 6; nk++) {
        floe_plan *agg = agg_over_columns(v, FLOE_AGG_MODE_SINGLE, keys, nk, calls, 4, NULL);
        floe_exec_ctx ctx = test_ctx(pool, 1 << 20);
        floe_batch *out;
        assert_ok(run_plan(agg, &ctx, &out));
        check_against_naive(all, keys, nk, calls, 4, out);
        if (nk == 1) assert_int_equal(out->num_rows, 6); /* 0.0 = -0.0, one NaN, 3 others, NULL */
        floe_batch_release(out);
        floe_plan_release(agg);
    }
    floe_plan_release(v);
    floe_batch_release(all);
    free_calls();
}

static void partial_then_final_equals_single(void **state) {
    (void)state;
    rng_state = 99;
    floe_batch *all;
    floe_plan *v = random_values(6, 400, 40, 3, &all);
    int nc;
    const floe_agg_call *calls = std_calls(false, &nc);
    const int32_t keys[2] = {K_STR, K_INT};
    floe_plan *partial = agg_over_columns(v, FLOE_AGG_MODE_PARTIAL, keys, 2, calls, nc, NULL);
    assert_int_equal(floe_plan_partitions(partial), 3);
    floe_plan *co;
    assert_ok(floe_plan_coalesce(partial, &co));
    /* FINAL's group keys are the PARTIAL's expressions over the PARTIAL input */
    floe_plan *final = agg_over_columns(co, FLOE_AGG_MODE_FINAL, keys, 2, calls, nc, floe_plan_schema(v));
    assert_int_equal(floe_schema_num_fields(floe_plan_schema(final)), 2 + nc);
    floe_exec_ctx ctx = test_ctx(pool, 64);
    floe_batch *out;
    assert_ok(run_plan(final, &ctx, &out));
    check_against_naive(all, keys, 2, calls, nc, out);
    floe_batch_release(out);
    /* and after a codec roundtrip */
    floe_plan *copy;
    assert_ok(floe_plan_roundtrip(final, &copy));
    assert_ok(run_plan(copy, &ctx, &out));
    check_against_naive(all, keys, 2, calls, nc, out);
    floe_batch_release(out);
    floe_plan_release(copy);
    floe_plan_release(final);
    floe_plan_release(co);
    floe_plan_release(partial);
    floe_plan_release(v);
    floe_batch_release(all);
    free_calls();
}

/* PARTIAL per input partition, Repartition on the keys, FINAL per output
 * partition: the same groups and values as SINGLE, on a one-thread pool
 * as well as the two-thread one. */
static void partial_repartition_final_matches_naive_on_any_pool(void **state) {
    (void)state;
    floe_threadpool *one;
    assert_ok(floe_threadpool_create(1, &one));
    floe_threadpool *pools[2] = {pool, one};
    rng_state = 1234;
    floe_batch *all;
    floe_plan *v = random_values(8, 300, 80, 4, &all);
    int nc;
    const floe_agg_call *calls = std_calls(false, &nc);
    const int32_t keys[2] = {K_INT, K_STR};
    floe_plan *partial = agg_over_columns(v, FLOE_AGG_MODE_PARTIAL, keys, 2, calls, nc, NULL), *rep, *final;
    floe_expr *k[2] = {col(0), col(1)};
    assert_ok(floe_plan_repartition(partial, FLOE_REPARTITION_HASH, k, 2, 3, &rep));
    final = agg_over_columns(rep, FLOE_AGG_MODE_FINAL, keys, 2, calls, nc, floe_plan_schema(v));
    assert_int_equal(floe_plan_partitions(final), 3);
    floe_distribution d = floe_plan_required_input(final, 0);
    assert_int_equal(d.kind, FLOE_DIST_HASH);
    assert_int_equal(d.n_exprs, 2);
    assert_int_equal(d.exprs[1]->column, 1);
    for (int i = 0; i < 2; i++) {
        floe_exec_ctx ctx = test_ctx(pools[i], 50);
        floe_batch *out;
        assert_ok(run_plan(final, &ctx, &out));
        check_against_naive(all, keys, 2, calls, nc, out);
        floe_batch_release(out);
    }
    floe_plan *copy;
    assert_ok(floe_plan_roundtrip(final, &copy));
    floe_exec_ctx ctx = test_ctx(one, 4096);
    floe_batch *out;
    assert_ok(run_plan(copy, &ctx, &out));
    check_against_naive(all, keys, 2, calls, nc, out);
    floe_batch_release(out);
    floe_plan_release(copy);
    floe_expr_release(k[0]);
    floe_expr_release(k[1]);
    floe_plan_release(final);
    floe_plan_release(rep);
    floe_plan_release(partial);
    floe_plan_release(v);
    floe_batch_release(all);
    free_calls();
    floe_threadpool_destroy(one);
}

static void no_group_keys_give_exactly_one_row_even_for_empty_input(void **state) {
    (void)state;
    floe_schema *s = random_schema();
    floe_plan *v, *agg;
    assert_ok(floe_plan_values(s, NULL, 0, 1, &v));
    int nc;
    const floe_agg_call *calls = std_calls(true, &nc);
    agg = agg_over_columns(v, FLOE_AGG_MODE_SINGLE, NULL, 0, calls, nc, NULL);
    floe_exec_ctx ctx = test_ctx(pool, 16);
    floe_batch *out;
    assert_ok(run_plan(agg, &ctx, &out));
    assert_non_null(out);
    assert_int_equal(out->num_rows, 1);
    assert_int_equal(floe_array_get_int64(out->columns[0], 0), 0); /* count(*) */
    assert_int_equal(floe_array_get_int64(out->columns[1], 0), 0); /* count(x) */
    for (int c = 2; c < nc; c++)
        if (calls[c].fn != FLOE_AGG_COUNT) assert_true(floe_array_is_null(out->columns[c], 0));
    floe_batch_release(out);
    floe_plan_release(agg);
    /* partial over 3 empty partitions, coalesced, final: still one row */
    floe_plan_release(v);
    assert_ok(floe_plan_values(s, NULL, 0, 3, &v));
    floe_plan *partial = agg_over_columns(v, FLOE_AGG_MODE_PARTIAL, NULL, 0, calls, nc - 4, NULL), *co, *final;
    assert_ok(floe_plan_coalesce(partial, &co));
    final = agg_over_columns(co, FLOE_AGG_MODE_FINAL, NULL, 0, calls, nc - 4, s);
    assert_ok(run_plan(final, &ctx, &out));
    assert_int_equal(out->num_rows, 1);
    assert_int_equal(floe_array_get_int64(out->columns[0], 0), 0);
    assert_true(floe_array_is_null(out->columns[2], 0));
    floe_batch_release(out);
    /* a SINGLE without keys over several partitions is refused */
    assert_error(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_SINGLE, NULL, NULL, 0, calls, 1, NULL, &agg),
                 FLOE_ERR_INVALID_ARGUMENT, "one input partition");
    floe_plan_release(final);
    floe_plan_release(co);
    floe_plan_release(partial);
    floe_plan_release(v);
    floe_type_release(s);
    free_calls();
}

static void many_groups_grow_the_table_and_come_out_in_batches(void **state) {
    (void)state;
    /* 150000 rows, key = row % 50000 as int64: 50000 groups of 3 */
    int64_t n = 150000;
    floe_builder *kb, *vb;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &kb));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &vb));
    for (int64_t i = 0; i < n; i++) {
        assert_ok(floe_builder_append_int64(kb, (i % 50000) * 1000003));
        assert_ok(floe_builder_append_int64(vb, i));
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(kb, &cols[0]));
    assert_ok(floe_builder_finish(vb, &cols[1]));
    floe_builder_free(kb);
    floe_builder_free(vb);
    floe_field f[2];
    assert_ok(floe_field_init(&f[0], "k", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    assert_ok(floe_field_init(&f[1], "v", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    floe_schema *s;
    assert_ok(floe_type_struct(f, 2, &s));
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);
    floe_batch *b;
    assert_ok(floe_batch_new(s, cols, 2, n, &b));
    floe_plan *v, *agg;
    assert_ok(floe_plan_values(s, &b, 1, 1, &v));
    floe_expr *k = col(0);
    floe_agg_call calls[2] = {{FLOE_AGG_SUM, false, col(1), "s", NULL, NULL, NULL, 0, NULL}, {FLOE_AGG_COUNT_STAR, false, NULL, "c", NULL, NULL, NULL, 0, NULL}};
    const char *kn = "k";
    assert_ok(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_SINGLE, &k, &kn, 1, calls, 2, NULL, &agg));
    floe_exec_ctx ctx = test_ctx(pool, 4096);
    floe_batch **bs;
    int64_t nb;
    assert_ok(floe_exec_collect(agg, &ctx, &bs, &nb));
    int64_t total = 0;
    for (int64_t i = 0; i < nb; i++) {
        assert_true(bs[i]->num_rows <= 4096);
        for (int64_t r = 0; r < bs[i]->num_rows; r++) {
            int64_t key = floe_array_get_int64(bs[i]->columns[0], r) / 1000003;
            assert_int_equal(floe_array_get_int64(bs[i]->columns[1], r), 3 * key + 150000);
            assert_int_equal(floe_array_get_int64(bs[i]->columns[2], r), 3);
        }
        total += bs[i]->num_rows;
    }
    assert_int_equal(total, 50000);
    floe_exec_batches_free(bs, nb);
    floe_plan_release(agg);
    floe_plan_release(v);
    floe_expr_release(k);
    floe_expr_release(calls[0].arg);
    floe_batch_release(b);
    floe_type_release(s);
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
}

static void int64_sum_overflow_is_an_error_naming_aggregate_and_group(void **state) {
    (void)state;
    int64_t vals[3] = {INT64_MAX - 5, 3, 7};
    floe_builder *vb;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), 3, &vb));
    for (int i = 0; i < 3; i++) assert_ok(floe_builder_append_int64(vb, vals[i]));
    floe_array *cols[2];
    int32_t keys[3] = {17, 17, 17};
    cols[0] = int32_array(keys, 3);
    assert_ok(floe_builder_finish(vb, &cols[1]));
    floe_builder_free(vb);
    floe_field f[2];
    assert_ok(floe_field_init(&f[0], "k", floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    assert_ok(floe_field_init(&f[1], "v", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    floe_schema *s;
    assert_ok(floe_type_struct(f, 2, &s));
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);
    floe_batch *b;
    assert_ok(floe_batch_new(s, cols, 2, 3, &b));
    floe_plan *v, *agg;
    assert_ok(floe_plan_values(s, &b, 1, 1, &v));
    floe_expr *k = col(0);
    floe_agg_call call = {FLOE_AGG_SUM, false, col(1), "total", NULL, NULL, NULL, 0, NULL};
    const char *kn = "k";
    assert_ok(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_SINGLE, &k, &kn, 1, &call, 1, NULL, &agg));
    floe_exec_ctx ctx = test_ctx(pool, 1024);
    floe_batch *out;
    assert_error(run_plan(agg, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "total: int64 overflow in group (17)");
    floe_plan_release(agg);
    floe_plan_release(v);
    floe_expr_release(k);
    floe_expr_release(call.arg);
    floe_batch_release(b);
    floe_type_release(s);
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
}

/* Odd argument types: NULL-typed arguments, uuid and timestamptz min/max,
 * and a decimal sum that no longer fits decimal(38). */
static void null_typed_arguments_uuids_and_decimal38_overflow(void **state) {
    (void)state;
    floe_type *dec38;
    assert_ok(floe_type_decimal(38, 0, &dec38));
    floe_type *types[4] = {floe_type_primitive(FLOE_TYPE_INT32), floe_type_primitive(FLOE_TYPE_UUID),
                           floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ), dec38};
    const char *names[4] = {"k", "u", "ts", "d"};
    floe_field f[4];
    for (int i = 0; i < 4; i++) assert_ok(floe_field_init(&f[i], names[i], types[i], true, -1));
    floe_schema *s;
    assert_ok(floe_type_struct(f, 4, &s));
    for (int i = 0; i < 4; i++) floe_field_clear(&f[i]);
    floe_builder *b[4];
    for (int i = 0; i < 4; i++) assert_ok(floe_builder_new(types[i], 4, &b[i]));
    /* 6 * 10^37 twice: fits 128 bits, not 38 digits */
    floe_decimal128 big = floe_decimal128_from_int64(6);
    for (int e = 0; e < 37; e++) {
        unsigned __int128 v = ((unsigned __int128)(uint64_t)big.hi << 64 | big.lo) * 10;
        big.lo = (uint64_t)v;
        big.hi = (int64_t)(v >> 64);
    }
    for (int r = 0; r < 4; r++) {
        assert_ok(floe_builder_append_int32(b[0], r % 2));
        uint8_t u[16] = {0};
        u[15] = (uint8_t)(10 - r);
        assert_ok(floe_builder_append_fixed(b[1], u));
        assert_ok(floe_builder_append_int64(b[2], 1000 * r));
        assert_ok(floe_builder_append_decimal(b[3], r < 2 ? big : floe_decimal128_from_int64(r)));
    }
    floe_array *cols[4];
    for (int i = 0; i < 4; i++) {
        assert_ok(floe_builder_finish(b[i], &cols[i]));
        floe_builder_free(b[i]);
    }
    floe_batch *batch;
    assert_ok(floe_batch_new(s, cols, 4, 4, &batch));
    floe_plan *v, *agg;
    assert_ok(floe_plan_values(s, &batch, 1, 1, &v));
    floe_expr *k = col(0), *null_lit;
    assert_ok(floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_NULL), &null_lit));
    floe_agg_call calls[5] = {{FLOE_AGG_COUNT, false, null_lit, "cn", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_MIN, false, null_lit, "mn", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_MAX, false, col(1), "maxu", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_MIN, false, col(2), "mints", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_SUM, false, null_lit, "sn", NULL, NULL, NULL, 0, NULL}};
    const char *kn = "k";
    assert_ok(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_SINGLE, &k, &kn, 1, calls, 5, NULL, &agg));
    floe_exec_ctx ctx = test_ctx(NULL, 1024);
    floe_batch *out;
    assert_ok(run_plan(agg, &ctx, &out));
    assert_int_equal(out->num_rows, 2);
    for (int64_t r = 0; r < 2; r++) {
        int32_t key = floe_array_get_int32(out->columns[0], r);
        assert_int_equal(floe_array_get_int64(out->columns[1], r), 0);
        assert_true(floe_array_is_null(out->columns[2], r));
        assert_int_equal(floe_array_get_fixed(out->columns[3], r)[15], 10 - key); /* rows key, key+2: max is the first */
        assert_int_equal(floe_array_get_int64(out->columns[4], r), 1000 * key);
        assert_true(floe_array_is_null(out->columns[5], r));
    }
    assert_int_equal(out->columns[3]->type->id, FLOE_TYPE_UUID);
    assert_int_equal(out->columns[4]->type->id, FLOE_TYPE_TIMESTAMP_US_TZ);
    floe_batch_release(out);
    floe_plan_release(agg);
    /* sum(d) over all rows: 2 * 6e37 + 5 overflows decimal(38, 0) */
    floe_agg_call sd = {FLOE_AGG_SUM, false, col(3), "sd", NULL, NULL, NULL, 0, NULL};
    assert_ok(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_SINGLE, NULL, NULL, 0, &sd, 1, NULL, &agg));
    assert_error(run_plan(agg, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "sd: decimal(38, 0) overflow");
    floe_plan_release(agg);
    floe_expr_release(sd.arg);
    floe_expr_release(calls[2].arg);
    floe_expr_release(calls[3].arg);
    floe_expr_release(null_lit);
    floe_expr_release(k);
    floe_plan_release(v);
    floe_batch_release(batch);
    for (int i = 0; i < 4; i++) floe_array_release(cols[i]);
    floe_type_release(s);
    floe_type_release(dec38);
}

static void bad_calls_are_refused_at_construction(void **state) {
    (void)state;
    floe_plan *v = random_values(1, 10, 3, 2, NULL), *agg;
    floe_agg_call c = {FLOE_AGG_SUM, false, col(V_STR), "s", NULL, NULL, NULL, 0, NULL};
    assert_error(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_PARTIAL, NULL, NULL, 0, &c, 1, NULL, &agg), FLOE_ERR_TYPE,
                 "sum(string)");
    floe_expr_release(c.arg);
    c = (floe_agg_call){FLOE_AGG_BOOL_AND, false, col(V_I32), "b", NULL, NULL, NULL, 0, NULL};
    assert_error(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_PARTIAL, NULL, NULL, 0, &c, 1, NULL, &agg), FLOE_ERR_TYPE,
                 "bool_and(int32)");
    floe_expr_release(c.arg);
    c = (floe_agg_call){FLOE_AGG_COUNT, true, col(V_I32), "d", NULL, NULL, NULL, 0, NULL};
    assert_error(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_PARTIAL, NULL, NULL, 0, &c, 1, NULL, &agg),
                 FLOE_ERR_UNSUPPORTED, "DISTINCT");
    /* FINAL over something that is not the partial state */
    const int32_t keys[1] = {K_INT};
    c.distinct = false;
    floe_expr *g = col(K_INT);
    const char *gn = "k";
    assert_error(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_FINAL, &g, &gn, 1, &c, 1, floe_plan_schema(v), &agg),
                 FLOE_ERR_TYPE, "partial state");
    (void)keys;
    floe_expr_release(g);
    floe_expr_release(c.arg);
    floe_plan_release(v);
}

/* A child whose evaluation fails (1 / 0) makes the aggregate fail. */
static void child_error_is_returned_not_an_empty_result(void **state) {
    (void)state;
    floe_plan *v = random_values(2, 50, 3, 1, NULL), *pr, *agg;
    floe_expr *one, *zero, *div;
    assert_ok(floe_expr_lit_int32(1, &one));
    assert_ok(floe_expr_lit_int32(0, &zero));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, one, zero, &div));
    const char *n = "x";
    assert_ok(floe_plan_projection(v, &div, &n, 1, &pr));
    floe_agg_call c = {FLOE_AGG_COUNT_STAR, false, NULL, "c", NULL, NULL, NULL, 0, NULL};
    assert_ok(floe_plan_hash_aggregate(pr, FLOE_AGG_MODE_SINGLE, NULL, NULL, 0, &c, 1, NULL, &agg));
    floe_exec_ctx ctx = test_ctx(pool, 1024);
    floe_batch *out = NULL;
    floe_status st = run_plan(agg, &ctx, &out);
    assert_non_null(st);
    assert_null(out);
    floe_status_free(st);
    /* cancelled: FLOE_ERR_CANCELLED, not one row of zeros */
    floe_cancel cancel;
    floe_cancel_init(&cancel, NULL);
    floe_cancel_set(&cancel);
    floe_plan *agg2;
    assert_ok(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_SINGLE, NULL, NULL, 0, &c, 1, NULL, &agg2));
    ctx.cancel = &cancel;
    assert_error(run_plan(agg2, &ctx, &out), FLOE_ERR_CANCELLED, "cancelled");
    floe_plan_release(agg2);
    floe_plan_release(agg);
    floe_plan_release(pr);
    floe_plan_release(v);
    floe_expr_release(one);
    floe_expr_release(zero);
    floe_expr_release(div);
}

static void explain_and_accessors_show_the_parts(void **state) {
    (void)state;
    floe_plan *v = random_values(1, 10, 3, 2, NULL);
    floe_agg_call calls[2] = {{FLOE_AGG_SUM, false, col(V_DEC), "sum_qty", NULL, NULL, NULL, 0, NULL}, {FLOE_AGG_AVG, false, col(V_I32), "a", NULL, NULL, NULL, 0, NULL}};
    const int32_t keys[1] = {K_INT};
    floe_plan *agg = agg_over_columns(v, FLOE_AGG_MODE_PARTIAL, keys, 1, calls, 2, NULL);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(agg, &b));
    assert_non_null(strstr(floe_buf_cstr(&b),
                           "HashAggregate: mode=Partial, gby=[#0 AS k_int], aggr=[sum(#8) AS sum_qty, avg(#7) AS a], partitions=2"));
    floe_buf_free(&b);
    assert_int_equal(floe_hash_aggregate_mode(agg), FLOE_AGG_MODE_PARTIAL);
    assert_int_equal(floe_hash_aggregate_num_groups(agg), 1);
    assert_string_equal(floe_hash_aggregate_group_name(agg, 0), "k_int");
    assert_int_equal(floe_hash_aggregate_num_calls(agg), 2);
    assert_string_equal(floe_hash_aggregate_call(agg, 1)->name, "a");
    assert_null(floe_hash_aggregate_input_schema(agg));
    /* the state layout: key, sum decimal(38,2), avg sum decimal(38,0) + count */
    const floe_schema *s = floe_plan_schema(agg);
    assert_int_equal(floe_schema_num_fields(s), 4);
    assert_int_equal(s->children[1].type->precision, 38);
    assert_int_equal(s->children[1].type->scale, 2);
    assert_string_equal(s->children[2].name, "a.sum");
    assert_string_equal(s->children[3].name, "a.count");
    floe_type *t;
    assert_ok(floe_agg_result_type(&calls[0], floe_plan_schema(v), &t));
    assert_int_equal(t->id, FLOE_TYPE_DECIMAL128);
    floe_type_release(t);
    assert_string_equal(floe_agg_fn_name(FLOE_AGG_BOOL_OR), "bool_or");
    floe_plan *copy;
    assert_ok(floe_plan_roundtrip(agg, &copy));
    assert_int_equal(floe_plan_partitions(copy), 2);
    floe_plan_release(copy);
    floe_plan_release(agg);
    floe_plan_release(v);
    floe_expr_release(calls[0].arg);
    floe_expr_release(calls[1].arg);
}

/* ------------------------------------------------- packed keys, filters */

/* Batches of (k_str, k_i32, v): short strings (packed keys) in the first
 * nb - 1 batches; the last one also holds strings too long to pack. */
static floe_plan *string_key_values(int nb, int64_t n, floe_batch **all) {
    floe_field f[3];
    assert_ok(floe_field_init(&f[0], "k_str", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    assert_ok(floe_field_init(&f[1], "k_i32", floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    assert_ok(floe_field_init(&f[2], "v", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    floe_schema *s;
    assert_ok(floe_type_struct(f, 3, &s));
    for (int i = 0; i < 3; i++) floe_field_clear(&f[i]);
    floe_batch *bs[8];
    char buf[64];
    for (int bi = 0; bi < nb; bi++) {
        floe_builder *b[3];
        for (int c = 0; c < 3; c++) assert_ok(floe_builder_new(s->children[c].type, n, &b[c]));
        for (int64_t r = 0; r < n; r++) {
            int64_t x = rnd_in(100);
            if (x < 8) assert_ok(floe_builder_append_null(b[0]));
            else if (x < 12) assert_ok(floe_builder_append_string(b[0], ""));
            else if (bi == nb - 1 && x < 30) {
                snprintf(buf, sizeof buf, "a key much longer than sixteen bytes %d", (int)rnd_in(3));
                assert_ok(floe_builder_append_string(b[0], buf));
            } else {
                snprintf(buf, sizeof buf, "a%d", (int)rnd_in(5));
                assert_ok(floe_builder_append_string(b[0], buf));
            }
            if (rnd_in(10) == 0) assert_ok(floe_builder_append_null(b[1]));
            else assert_ok(floe_builder_append_int32(b[1], (int32_t)rnd_in(4) - 1));
            if (rnd_in(10) == 0) assert_ok(floe_builder_append_null(b[2]));
            else assert_ok(floe_builder_append_int64(b[2], rnd_in(1000000) - 500000));
        }
        floe_array *cols[3];
        for (int c = 0; c < 3; c++) {
            assert_ok(floe_builder_finish(b[c], &cols[c]));
            floe_builder_free(b[c]);
        }
        assert_ok(floe_batch_new(s, cols, 3, n, &bs[bi]));
        for (int c = 0; c < 3; c++) floe_array_release(cols[c]);
    }
    floe_plan *p;
    assert_ok(floe_plan_values(s, bs, nb, 1, &p));
    assert_ok(floe_batch_concat(bs, nb, all));
    for (int i = 0; i < nb; i++) floe_batch_release(bs[i]);
    floe_type_release(s);
    return p;
}

static void packed_keys_move_to_the_general_table_when_a_long_string_arrives(void **state) {
    (void)state;
    rng_state = 2024;
    floe_batch *all;
    floe_plan *v = string_key_values(3, 700, &all);
    floe_agg_call calls[5] = {{FLOE_AGG_SUM, false, col(2), "s", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_COUNT_STAR, false, NULL, "c", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_COUNT, false, col(2), "cv", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_MIN, false, col(2), "mn", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_AVG, false, col(2), "av", NULL, NULL, NULL, 0, NULL}};
    const int32_t keys[2] = {0, 1};
    floe_expr *g[2] = {col(0), col(1)};
    const char *names[2] = {"k_str", "k_i32"};
    /* both modes: SINGLE, and PARTIAL then FINAL (whose input keys switch too) */
    for (int mode = 0; mode < 2; mode++) {
        floe_plan *agg, *fin = NULL;
        assert_ok(floe_plan_hash_aggregate(v, mode ? FLOE_AGG_MODE_PARTIAL : FLOE_AGG_MODE_SINGLE, g, names, 2, calls,
                                           5, NULL, &agg));
        if (mode) {
            floe_expr *fg[2] = {col(0), col(1)};
            assert_ok(floe_plan_hash_aggregate(agg, FLOE_AGG_MODE_FINAL, fg, names, 2, calls, 5, floe_plan_schema(v),
                                               &fin));
            floe_expr_release(fg[0]);
            floe_expr_release(fg[1]);
        }
        floe_exec_ctx ctx = test_ctx(pool, 64);
        floe_batch *out;
        assert_ok(run_plan(fin ? fin : agg, &ctx, &out));
        assert_true(out->num_rows > 20);
        check_against_naive(all, keys, 2, calls, 5, out);
        floe_batch_release(out);
        floe_plan_release(fin);
        floe_plan_release(agg);
    }
    for (int i = 0; i < 5; i++) floe_expr_release(calls[i].arg);
    floe_expr_release(g[0]);
    floe_expr_release(g[1]);
    floe_plan_release(v);
    floe_batch_release(all);
}

static void mixed_fixed_width_and_short_string_keys_with_nulls_group_like_sql(void **state) {
    (void)state;
    rng_state = 31337;
    floe_batch *all;
    floe_plan *v = random_values(3, 400, 4, 1, &all);
    int nc;
    const floe_agg_call *calls = std_calls(false, &nc);
    /* bool + int32 + date + short string: 11 bytes + a 4-byte string slot;
     * float + bool + int32: 15 bytes, no strings; + decimal: not packed */
    const int32_t sets[3][4] = {{K_BOOL, K_INT, K_DATE, K_STR}, {K_F64, K_BOOL, K_INT, -1}, {K_DEC, K_STR, K_BOOL, -1}};
    for (int i = 0; i < 3; i++) {
        int nk = sets[i][3] < 0 ? 3 : 4;
        floe_plan *agg = agg_over_columns(v, FLOE_AGG_MODE_SINGLE, sets[i], nk, calls, nc, NULL);
        floe_exec_ctx ctx = test_ctx(pool, 100);
        floe_batch *out;
        assert_ok(run_plan(agg, &ctx, &out));
        check_against_naive(all, sets[i], nk, calls, nc, out);
        floe_batch_release(out);
        floe_plan_release(agg);
    }
    floe_plan_release(v);
    floe_batch_release(all);
    free_calls();
}

/* x = row % 10 - 1 (so 10% zeros), grouped by x: count(*) and sum(100 / x). */
static floe_status filtered_division(floe_cmp_op op, int32_t bound, floe_batch **out) {
    enum { N = 3000 };
    static int32_t x[N];
    for (int i = 0; i < N; i++) x[i] = i % 10 - 1;
    floe_batch *b = int_batch(x, NULL, N);
    floe_plan *v, *f, *agg;
    assert_ok(floe_plan_values(b->schema, &b, 1, 1, &v));
    floe_expr *c0 = col(0), *lit, *pred, *hundred, *div;
    assert_ok(floe_expr_lit_int32(bound, &lit));
    assert_ok(floe_expr_cmp(op, c0, lit, &pred));
    assert_ok(floe_plan_filter(v, pred, &f));
    assert_ok(floe_expr_lit_int32(100, &hundred));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, hundred, c0, &div));
    floe_agg_call calls[2] = {{FLOE_AGG_COUNT_STAR, false, NULL, "c", NULL, NULL, NULL, 0, NULL}, {FLOE_AGG_SUM, false, div, "s", NULL, NULL, NULL, 0, NULL}};
    const char *kn = "x";
    assert_ok(floe_plan_hash_aggregate(f, FLOE_AGG_MODE_SINGLE, &c0, &kn, 1, calls, 2, NULL, &agg));
    floe_exec_ctx ctx = test_ctx(pool, 1024);
    floe_status st = run_plan(agg, &ctx, out);
    floe_plan_release(agg);
    floe_plan_release(f);
    floe_plan_release(v);
    floe_expr_release(c0);
    floe_expr_release(lit);
    floe_expr_release(pred);
    floe_expr_release(hundred);
    floe_expr_release(div);
    floe_batch_release(b);
    return st;
}

static void filter_below_aggregate_passes_selections_without_false_errors(void **state) {
    (void)state;
    /* x <> 0: 90% pass, so the aggregate reads selections; 100 / x fails
     * on the dropped rows only, which must not be an error */
    floe_batch *out = NULL;
    assert_ok(filtered_division(FLOE_CMP_NE, 0, &out));
    assert_int_equal(out->num_rows, 9);
    for (int64_t r = 0; r < out->num_rows; r++) {
        int32_t x = floe_array_get_int32(out->columns[0], r);
        assert_int_not_equal(x, 0);
        assert_int_equal(floe_array_get_int64(out->columns[1], r), 300);
        assert_int_equal(floe_array_get_int64(out->columns[2], r), 300 * (100 / x));
    }
    floe_batch_release(out);
    /* x > 5: 30% pass, the filter copies; same answers for those groups */
    assert_ok(filtered_division(FLOE_CMP_GT, 5, &out));
    assert_int_equal(out->num_rows, 3);
    for (int64_t r = 0; r < out->num_rows; r++) {
        int32_t x = floe_array_get_int32(out->columns[0], r);
        assert_true(x > 5);
        assert_int_equal(floe_array_get_int64(out->columns[2], r), 300 * (100 / x));
    }
    floe_batch_release(out);
    /* x >= 0 keeps the zeros: now the division by zero is the query's */
    assert_error(filtered_division(FLOE_CMP_GE, 0, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
    assert_null(out);
}

static void filter_stream_hands_out_its_input_and_the_selected_rows(void **state) {
    (void)state;
    int32_t x[8] = {1, 2, 0, 4, 5, 6, 7, 8}, y[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    floe_batch *b = int_batch(x, NULL, 8), *b2 = int_batch(y, NULL, 8);
    floe_batch *bs[2] = {b, b2};
    floe_plan *v, *f;
    assert_ok(floe_plan_values(b->schema, bs, 2, 1, &v));
    floe_expr *c0 = col(0), *zero, *pred;
    assert_ok(floe_expr_lit_int32(0, &zero));
    assert_ok(floe_expr_cmp(FLOE_CMP_NE, c0, zero, &pred));
    assert_ok(floe_plan_filter(v, pred, &f));
    floe_exec_ctx ctx = test_ctx(pool, 1024), ectx;
    floe_execution *run = test_begin(&ctx, &ectx);
    floe_stream *s;
    assert_ok(floe_plan_execute(f, 0, &ectx, &s));
    assert_true(floe_filter_stream_selects(s));
    floe_batch *got;
    uint32_t *sel;
    int64_t k;
    assert_ok(floe_filter_next_sel(s, &got, &sel, &k));
    assert_ptr_equal(got, b); /* 7 of 8 pass: no copy */
    assert_int_equal(k, 7);
    assert_non_null(sel);
    assert_int_equal(sel[1], 1);
    assert_int_equal(sel[2], 3);
    floe_free(sel);
    floe_batch_release(got);
    assert_ok(floe_filter_next_sel(s, &got, &sel, &k)); /* the all-zero batch is skipped */
    assert_null(got);
    assert_null(sel);
    floe_stream_close(s);
    /* a stream that is not a Filter's is refused */
    assert_ok(floe_plan_execute(v, 0, &ectx, &s));
    assert_false(floe_filter_stream_selects(s));
    assert_error(floe_filter_next_sel(s, &got, &sel, &k), FLOE_ERR_INVALID_ARGUMENT, "not a Filter");
    floe_stream_close(s);
    floe_execution_end(run);
    floe_plan_release(f);
    floe_plan_release(v);
    floe_expr_release(c0);
    floe_expr_release(zero);
    floe_expr_release(pred);
    floe_batch_release(b);
    floe_batch_release(b2);
}

static void sum_and_avg_of_one_dense_argument_fold_together_exactly(void **state) {
    (void)state;
    rng_state = 5150;
    floe_type *dec;
    assert_ok(floe_type_decimal(12, 2, &dec));
    floe_field f[3];
    assert_ok(floe_field_init(&f[0], "k", floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    assert_ok(floe_field_init(&f[1], "d", dec, false, -1));
    assert_ok(floe_field_init(&f[2], "x", floe_type_primitive(FLOE_TYPE_FLOAT64), false, -1));
    floe_schema *s;
    assert_ok(floe_type_struct(f, 3, &s));
    for (int i = 0; i < 3; i++) floe_field_clear(&f[i]);
    floe_batch *bs[3];
    for (int bi = 0; bi < 3; bi++) {
        floe_builder *b[3];
        for (int c = 0; c < 3; c++) assert_ok(floe_builder_new(s->children[c].type, 600, &b[c]));
        for (int r = 0; r < 600; r++) {
            assert_ok(floe_builder_append_int32(b[0], (int32_t)rnd_in(5)));
            assert_ok(floe_builder_append_decimal(b[1], floe_decimal128_from_int64(rnd_in(2000000) - 1000000)));
            assert_ok(floe_builder_append_double(b[2], (double)rnd_in(100000) / 8.0 - 3000));
        }
        floe_array *cols[3];
        for (int c = 0; c < 3; c++) {
            assert_ok(floe_builder_finish(b[c], &cols[c]));
            floe_builder_free(b[c]);
        }
        assert_ok(floe_batch_new(s, cols, 3, 600, &bs[bi]));
        for (int c = 0; c < 3; c++) floe_array_release(cols[c]);
    }
    floe_batch *all;
    assert_ok(floe_batch_concat(bs, 3, &all));
    floe_plan *v;
    assert_ok(floe_plan_values(s, bs, 3, 1, &v));
    floe_agg_call calls[6] = {{FLOE_AGG_SUM, false, col(1), "sum_d", NULL, NULL, NULL, 0, NULL}, {FLOE_AGG_AVG, false, col(2), "avg_x", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_AVG, false, col(1), "avg_d", NULL, NULL, NULL, 0, NULL}, {FLOE_AGG_SUM, false, col(2), "sum_x", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_COUNT, false, col(1), "cnt_d", NULL, NULL, NULL, 0, NULL}, {FLOE_AGG_SUM, false, col(1), "sum_d2", NULL, NULL, NULL, 0, NULL}};
    const int32_t keys[1] = {0};
    floe_expr *k = col(0);
    const char *kn = "k";
    floe_plan *agg;
    assert_ok(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_SINGLE, &k, &kn, 1, calls, 6, NULL, &agg));
    floe_exec_ctx ctx = test_ctx(pool, 1024);
    floe_batch *out;
    assert_ok(run_plan(agg, &ctx, &out));
    assert_int_equal(out->num_rows, 5);
    check_against_naive(all, keys, 1, calls, 6, out);
    /* the twins agree exactly with their partners */
    for (int64_t r = 0; r < 5; r++) {
        floe_decimal128 a = floe_array_get_decimal(out->columns[1], r), b = floe_array_get_decimal(out->columns[6], r);
        assert_true(a.lo == b.lo && a.hi == b.hi);
    }
    floe_batch_release(out);
    floe_plan_release(agg);
    floe_plan_release(v);
    floe_expr_release(k);
    for (int i = 0; i < 6; i++) floe_expr_release(calls[i].arg);
    for (int i = 0; i < 3; i++) floe_batch_release(bs[i]);
    floe_batch_release(all);
    floe_type_release(s);
    floe_type_release(dec);
}

/* Lines of the debug log that report a spilled aggregate's files. */
static int spill_reports;
static void count_spills(void *ctx, floe_log_level level, const char *line, size_t len) {
    (void)ctx;
    (void)level;
    (void)len;
    if (strstr(line, "HashAggregate:") && strstr(line, "spill files")) spill_reports++;
}

/* Under a small memory limit the groups spill (agg_spill.c) and come
 * back as the naive computation says: SINGLE, and PARTIAL -> FINAL with
 * every key type (-0.0 = 0.0, one NaN, NULLs) and every fast kind's state
 * (string min / max, decimal sums, avg's two columns) through the files. */
static void groups_spilled_under_a_memory_limit_equal_the_naive_result(void **state) {
    (void)state;
    rng_state = 1234;
    floe_batch *all;
    floe_plan *v = random_values(3, 400, 1500, 1, &all);
    int nc;
    const floe_agg_call *calls = std_calls(false, &nc);
    const int32_t keys[3] = {K_INT, K_F64, K_STR};
    floe_plan *single = agg_over_columns(v, FLOE_AGG_MODE_SINGLE, keys, 3, calls, nc, NULL);
    floe_plan *partial = agg_over_columns(v, FLOE_AGG_MODE_PARTIAL, keys, 3, calls, nc, NULL);
    floe_plan *final = agg_over_columns(partial, FLOE_AGG_MODE_FINAL, keys, 3, calls, nc, floe_plan_schema(v));
    floe_plan *plans[2] = {single, final};
    floe_log_level prev_level = floe_log_get_level();
    floe_log_set_sink(count_spills, NULL);
    floe_log_set_level(FLOE_LOG_DEBUG);
    for (int i = 0; i < 2; i++) {
        floe_mem_tracker *t = floe_mem_tracker_new("agg spill test", NULL);
        floe_mem_set_limit(t, 1 << 20);
        floe_exec_ctx ctx = test_ctx(pool, 64);
        ctx.mem = t;
        floe_mem_tracker *prev = floe_mem_set_current(t);
        spill_reports = 0;
        floe_batch *out = NULL;
        floe_status st = run_plan(plans[i], &ctx, &out);
        floe_mem_set_current(prev);
        assert_ok(st);
        assert_true(spill_reports >= 1); /* it did spill */
        assert_true(floe_mem_peak_bytes(t) <= (1 << 20) + (256 << 10));
        floe_log_set_level(prev_level);
        check_against_naive(all, keys, 3, calls, nc, out);
        floe_log_set_level(FLOE_LOG_DEBUG);
        floe_batch_release(out);
        floe_mem_tracker_drop(t);
    }
    floe_log_set_level(prev_level);
    floe_log_set_sink(NULL, NULL);
    floe_plan_release(final);
    floe_plan_release(partial);
    floe_plan_release(single);
    floe_plan_release(v);
    floe_batch_release(all);
    free_calls();
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(single_mode_matches_naive_computation_on_random_data, setup, teardown),
               cmocka_unit_test_setup_teardown(every_key_type_groups_like_sql_including_negative_zero_and_nan, setup, teardown),
               cmocka_unit_test_setup_teardown(partial_then_final_equals_single, setup, teardown),
               cmocka_unit_test_setup_teardown(partial_repartition_final_matches_naive_on_any_pool, setup, teardown),
               cmocka_unit_test_setup_teardown(no_group_keys_give_exactly_one_row_even_for_empty_input, setup, teardown),
               cmocka_unit_test_setup_teardown(many_groups_grow_the_table_and_come_out_in_batches, setup, teardown),
               cmocka_unit_test_setup_teardown(int64_sum_overflow_is_an_error_naming_aggregate_and_group, setup, teardown),
               cmocka_unit_test_setup_teardown(null_typed_arguments_uuids_and_decimal38_overflow, setup, teardown),
               cmocka_unit_test_setup_teardown(bad_calls_are_refused_at_construction, setup, teardown),
               cmocka_unit_test_setup_teardown(child_error_is_returned_not_an_empty_result, setup, teardown),
               cmocka_unit_test_setup_teardown(explain_and_accessors_show_the_parts, setup, teardown),
               cmocka_unit_test_setup_teardown(packed_keys_move_to_the_general_table_when_a_long_string_arrives, setup, teardown),
               cmocka_unit_test_setup_teardown(mixed_fixed_width_and_short_string_keys_with_nulls_group_like_sql, setup, teardown),
               cmocka_unit_test_setup_teardown(filter_below_aggregate_passes_selections_without_false_errors, setup, teardown),
               cmocka_unit_test_setup_teardown(filter_stream_hands_out_its_input_and_the_selected_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(sum_and_avg_of_one_dense_argument_fold_together_exactly, setup, teardown),
               cmocka_unit_test_setup_teardown(groups_spilled_under_a_memory_limit_equal_the_naive_result, setup, teardown))
