/*
 * test_hash_join.c — HashJoin against a naive nested-loop reference on
 * random data with duplicate and NULL keys: every join type, one and two
 * keys (int and string), with and without a residual filter, both modes,
 * null_equals_null, null-aware anti joins, keys of different types; codec
 * roundtrips; repeated executions; one- and two-thread pools; errors from
 * either child.
 */
#include "join_util.h"

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

typedef struct jcase {
    int64_t nl, nr;
    int32_t lparts, rparts;
    int32_t key_range;
    int null_pct;
    int n_keys;
    bool filter, nen, null_aware;
    floe_join_mode mode;
    int64_t batch_size;
    bool wide; /* k1 cast to int64 on both sides */
} jcase;

static floe_plan *make_join(const jcase *c, floe_join_type type, floe_plan *l, floe_plan *r) {
    floe_expr *lk[2], *rk[2];
    for (int i = 0; i < 2; i++) {
        assert_ok(floe_expr_column(i, &lk[i]));
        assert_ok(floe_expr_column(i, &rk[i]));
    }
    for (int side = 0; c->wide && side < 2; side++) {
        floe_expr **k = side ? rk : lk, *cast;
        assert_ok(floe_expr_cast(k[0], floe_type_primitive(FLOE_TYPE_INT64), &cast));
        floe_expr_release(k[0]);
        k[0] = cast;
    }
    floe_expr *f = c->filter ? jfilter_expr() : NULL;
    floe_plan *j;
    assert_ok(floe_plan_hash_join(l, r, type, c->mode, lk, rk, c->n_keys, f, c->nen, c->null_aware, &j));
    for (int i = 0; i < 2; i++) {
        floe_expr_release(lk[i]);
        floe_expr_release(rk[i]);
    }
    floe_expr_release(f);
    return j;
}

static void run_case(const jcase *c, floe_join_type type, floe_threadpool *pool) {
    jrow *L = malloc((size_t)(c->nl ? c->nl : 1) * sizeof *L), *R = malloc((size_t)(c->nr ? c->nr : 1) * sizeof *R);
    jrows_random(L, c->nl, 0, c->key_range, c->null_pct);
    jrows_random(R, c->nr, 100000, c->key_range, c->null_pct);
    bool by_key = c->mode == FLOE_JOIN_PARTITIONED;
    floe_plan *l = jplan("l", L, c->nl, 37, c->lparts, by_key), *r = jplan("r", R, c->nr, 29, c->rparts, by_key);
    floe_plan *j = make_join(c, type, l, r);
    int64_t nw, ng;
    jpair *want = jreference(type, L, c->nl, R, c->nr, c->n_keys, c->nen, c->filter, c->null_aware, &nw);
    floe_exec_ctx ctx = test_ctx(pool, c->batch_size);
    char what[160];
    snprintf(what, sizeof what, "%s keys=%d filter=%d nen=%d na=%d mode=%d", floe_join_type_name(type), c->n_keys,
             c->filter, c->nen, c->null_aware, (int)c->mode);
    jpair *got = jresult(j, &ctx, type, &ng);
    jexpect_equal(got, ng, want, nw, what);
    free(got);
    /* the same plan again (a new execution), then its codec copy */
    got = jresult(j, &ctx, type, &ng);
    jexpect_equal(got, ng, want, nw, what);
    free(got);
    floe_plan *copy;
    assert_ok(floe_plan_roundtrip(j, &copy));
    got = jresult(copy, &ctx, type, &ng);
    jexpect_equal(got, ng, want, nw, what);
    free(got);
    floe_plan_release(copy);
    free(want);
    floe_plan_release(j);
    floe_plan_release(l);
    floe_plan_release(r);
    free(L);
    free(R);
}

static void all_types(const jcase *c, floe_threadpool *pool) {
    for (int t = 0; t < FLOE_JOIN_TYPE_COUNT_; t++) run_case(c, (floe_join_type)t, pool);
}

static void every_join_type_matches_the_reference_collect_left(void **state) {
    (void)state;
    jcase c = {300, 250, 3, 4, 20, 10, 1, false, false, false, FLOE_JOIN_COLLECT_LEFT, 64, false};
    all_types(&c, pool2);
    c.n_keys = 2;
    all_types(&c, pool2);
    c.filter = true;
    all_types(&c, pool1);
    c.n_keys = 1;
    c.batch_size = 7;
    all_types(&c, pool2);
    /* int64 keys (compared inline) */
    c.wide = true;
    all_types(&c, pool2);
    c.filter = false;
    all_types(&c, pool1);
    c.n_keys = 2;
    all_types(&c, pool2);
}

static void every_join_type_matches_the_reference_partitioned(void **state) {
    (void)state;
    jcase c = {300, 250, 3, 3, 20, 10, 1, false, false, false, FLOE_JOIN_PARTITIONED, 64, false};
    all_types(&c, pool2);
    c.filter = true;
    c.n_keys = 2;
    all_types(&c, pool1);
}

/* More partitions than threads: waiting probe partitions help read the
 * build side instead of blocking the only worker. */
static void many_partitions_on_a_one_thread_pool(void **state) {
    (void)state;
    jcase c = {400, 300, 8, 7, 20, 10, 1, false, false, false, FLOE_JOIN_COLLECT_LEFT, 32, false};
    all_types(&c, pool1);
    c.mode = FLOE_JOIN_PARTITIONED;
    c.rparts = 8;
    c.filter = true;
    all_types(&c, pool1);
}

static void heavy_duplicates_fill_many_output_batches(void **state) {
    (void)state;
    /* 3 key values: each probe row matches ~100 build rows */
    jcase c = {300, 200, 2, 2, 3, 5, 1, false, false, false, FLOE_JOIN_COLLECT_LEFT, 50, false};
    run_case(&c, FLOE_JOIN_INNER, pool2);
    run_case(&c, FLOE_JOIN_FULL, pool2);
    c.filter = true;
    run_case(&c, FLOE_JOIN_RIGHT_SEMI, pool2);
    run_case(&c, FLOE_JOIN_LEFT_ANTI, pool1);
}

static void empty_sides_give_padded_or_no_rows(void **state) {
    (void)state;
    jcase c = {0, 100, 1, 2, 10, 10, 1, false, false, false, FLOE_JOIN_COLLECT_LEFT, 64, false};
    all_types(&c, pool2);
    c.nl = 100;
    c.nr = 0;
    all_types(&c, pool2);
    c.nl = 0;
    all_types(&c, pool1);
}

static void null_keys_match_with_null_equals_null(void **state) {
    (void)state;
    jcase c = {200, 200, 2, 2, 10, 25, 2, false, true, false, FLOE_JOIN_COLLECT_LEFT, 64, false};
    all_types(&c, pool2);
    c.mode = FLOE_JOIN_PARTITIONED;
    c.filter = true;
    all_types(&c, pool2);
}

static void null_aware_anti_joins_follow_not_in(void **state) {
    (void)state;
    const floe_join_type anti[2] = {FLOE_JOIN_LEFT_ANTI, FLOE_JOIN_RIGHT_ANTI};
    for (int t = 0; t < 2; t++) {
        /* NULLs on both sides (the subquery side's NULL empties the result) */
        jcase c = {50, 60, 2, 2, 30, 5, 1, false, false, true, FLOE_JOIN_COLLECT_LEFT, 16, false};
        run_case(&c, anti[t], pool2);
        /* no NULLs at all */
        c.null_pct = 0;
        run_case(&c, anti[t], pool2);
        /* empty subquery side: every row, NULL keys included */
        c.null_pct = 20;
        if (anti[t] == FLOE_JOIN_LEFT_ANTI) c.nr = 0;
        else c.nl = 0;
        run_case(&c, anti[t], pool1);
        /* with a filter the NULL pairs go through it */
        c.nl = 50;
        c.nr = 60;
        c.filter = true;
        run_case(&c, anti[t], pool2);
        c.null_pct = 2;
        run_case(&c, anti[t], pool1);
        /* a correlated NOT IN: k1 NOT IN (... WHERE k2 = outer k2) */
        c.n_keys = 2;
        c.null_pct = 10;
        c.key_range = 6;
        run_case(&c, anti[t], pool2);
        c.filter = false;
        run_case(&c, anti[t], pool2);
        c.null_pct = 0;
        run_case(&c, anti[t], pool1);
        /* one int64 key (compared inline) */
        c.n_keys = 1;
        c.null_pct = 10;
        c.wide = true;
        run_case(&c, anti[t], pool2);
    }
}

/* Keys of different comparable types: int32 = int64 and int32 = float64. */
static void keys_of_different_numeric_types_join_by_value(void **state) {
    (void)state;
    int32_t a[6] = {1, 2, 3, NUL, 2, 5};
    floe_batch *lb = int_batch(a, NULL, 6);
    floe_plan *l, *r, *j;
    assert_ok(floe_plan_values(lb->schema, &lb, 1, 1, &l));
    /* right: b int64 = {2, 5, 7}, c float64 = {2.0, -0.0, 5.0} */
    floe_field f[2];
    assert_ok(floe_field_init(&f[0], "b", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    assert_ok(floe_field_init(&f[1], "c", floe_type_primitive(FLOE_TYPE_FLOAT64), true, -1));
    floe_schema *rs;
    assert_ok(floe_type_struct(f, 2, &rs));
    floe_builder *b1, *b2;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), 3, &b1));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_FLOAT64), 3, &b2));
    const int64_t bv[3] = {2, 5, 7};
    const double cv[3] = {2.0, -0.0, 5.0};
    for (int i = 0; i < 3; i++) {
        assert_ok(floe_builder_append_int64(b1, bv[i]));
        assert_ok(floe_builder_append_double(b2, cv[i]));
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(b1, &cols[0]));
    assert_ok(floe_builder_finish(b2, &cols[1]));
    floe_builder_free(b1);
    floe_builder_free(b2);
    floe_batch *rb;
    assert_ok(floe_batch_new(rs, cols, 2, 3, &rb));
    assert_ok(floe_plan_values(rs, &rb, 1, 1, &r));
    floe_expr *c0, *c1;
    assert_ok(floe_expr_column(0, &c0));
    assert_ok(floe_expr_column(1, &c1));
    floe_exec_ctx ctx = test_ctx(pool2, 64);
    /* a = b: 2 twice, 5 once → 3 rows */
    assert_ok(floe_plan_hash_join(l, r, FLOE_JOIN_INNER, FLOE_JOIN_COLLECT_LEFT, &c0, &c0, 1, NULL, false, false, &j));
    floe_batch *out;
    assert_ok(run_plan(j, &ctx, &out));
    assert_int_equal(out->num_rows, 3);
    floe_batch_release(out);
    floe_plan_release(j);
    /* a = c: 2 twice, 5 once (no 0 on the left) */
    assert_ok(floe_plan_hash_join(l, r, FLOE_JOIN_LEFT_SEMI, FLOE_JOIN_COLLECT_LEFT, &c0, &c1, 1, NULL, false, false, &j));
    assert_ok(run_plan(j, &ctx, &out));
    assert_int_equal(out->num_rows, 3);
    assert_int_equal(out->num_columns, 1);
    floe_batch_release(out);
    floe_plan_release(j);
    /* int32 = string is a type error naming the key */
    floe_plan *v2 = jplan("r", NULL, 0, 1, 1, false);
    assert_error(floe_plan_hash_join(l, v2, FLOE_JOIN_INNER, FLOE_JOIN_COLLECT_LEFT, &c0, &c1, 1, NULL, false, false, &j),
                 FLOE_ERR_TYPE, "key 0");
    floe_plan_release(v2);
    floe_expr_release(c0);
    floe_expr_release(c1);
    floe_plan_release(l);
    floe_plan_release(r);
    floe_batch_release(lb);
    floe_batch_release(rb);
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);
    floe_type_release(rs);
}

static void join_schema_explain_and_accessors(void **state) {
    (void)state;
    jrow L[4], R[4];
    jrows_random(L, 4, 0, 3, 0);
    jrows_random(R, 4, 100000, 3, 0);
    floe_plan *l = jplan("l", L, 4, 2, 2, false), *r = jplan("r", R, 4, 2, 3, false);
    jcase c = {4, 4, 2, 3, 3, 0, 2, true, false, false, FLOE_JOIN_COLLECT_LEFT, 64, false};
    floe_plan *j = make_join(&c, FLOE_JOIN_LEFT, l, r);
    assert_string_equal(floe_plan_type_name(j), "HashJoin");
    assert_int_equal(floe_plan_partitions(j), 3);
    assert_int_equal(floe_hash_join_type(j), FLOE_JOIN_LEFT);
    assert_int_equal(floe_hash_join_mode(j), FLOE_JOIN_COLLECT_LEFT);
    assert_int_equal(floe_hash_join_num_keys(j), 2);
    assert_non_null(floe_hash_join_filter(j));
    assert_false(floe_hash_join_null_aware(j));
    const floe_schema *s = floe_plan_schema(j);
    assert_int_equal(floe_schema_num_fields(s), 6);
    assert_false(floe_schema_field(s, 2)->nullable); /* left id stays non-null */
    assert_true(floe_schema_field(s, 5)->nullable);  /* right id is padded */
    assert_string_equal(floe_schema_field(s, 3)->name, "rk1");
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(j, &b));
    assert_non_null(strstr(floe_buf_cstr(&b), "HashJoin: type=Left, mode=CollectLeft, on=[(#0 = #3), (#1 = #4)], filter="));
    floe_buf_free(&b);
    floe_plan_release(j);
    /* partitioned: required input hashes each side on its keys */
    c.mode = FLOE_JOIN_PARTITIONED;
    floe_expr *k0;
    assert_ok(floe_expr_column(0, &k0));
    assert_error(floe_plan_hash_join(l, r, FLOE_JOIN_INNER, FLOE_JOIN_PARTITIONED, &k0, &k0, 1, NULL, false, false, &j),
                 FLOE_ERR_INVALID_ARGUMENT, "partitions");
    assert_error(floe_plan_hash_join(l, r, FLOE_JOIN_INNER, FLOE_JOIN_COLLECT_LEFT, &k0, &k0, 1, NULL, false, true, &j),
                 FLOE_ERR_INVALID_ARGUMENT, "anti");
    assert_error(floe_plan_hash_join(l, r, FLOE_JOIN_LEFT_ANTI, FLOE_JOIN_COLLECT_LEFT, &k0, &k0, 1, NULL, true, true, &j),
                 FLOE_ERR_INVALID_ARGUMENT, "null_equals_null");
    floe_plan *r2 = jplan("r", R, 4, 2, 2, false);
    assert_ok(floe_plan_hash_join(l, r2, FLOE_JOIN_RIGHT_SEMI, FLOE_JOIN_PARTITIONED, &k0, &k0, 1, NULL, false, false, &j));
    floe_distribution d = floe_plan_required_input(j, 1);
    assert_int_equal(d.kind, FLOE_DIST_HASH);
    assert_int_equal(d.n_exprs, 1);
    assert_int_equal(floe_schema_num_fields(floe_plan_schema(j)), 3);
    assert_ok(floe_plan_explain(j, &b));
    assert_non_null(strstr(floe_buf_cstr(&b), "type=RightSemi, mode=Partitioned, on=[(#0 = #3)]"));
    floe_buf_free(&b);
    floe_plan_release(j);
    floe_plan_release(r2);
    floe_expr_release(k0);
    floe_plan_release(l);
    floe_plan_release(r);
}

/* A plan whose partition fails with division by zero on its last batch. */
static floe_plan *failing_side(const char *prefix, int32_t parts) {
    jrow R[100];
    jrows_random(R, 100, 0, 5, 0);
    floe_plan *v = jplan(prefix, R, 100, 10, parts, false), *pr;
    floe_expr *id, *c90, *minus, *div, *k1, *k2;
    assert_ok(floe_expr_column(2, &id));
    assert_ok(floe_expr_lit_int64(95, &c90));
    assert_ok(floe_expr_arith(FLOE_ARITH_SUB, id, c90, &minus)); /* id - 95: zero at id 95 */
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, id, minus, &div));
    assert_ok(floe_expr_column(0, &k1));
    assert_ok(floe_expr_column(1, &k2));
    floe_expr *exprs[3] = {k1, k2, div};
    const char *names[3] = {"k1", "k2", "id"};
    assert_ok(floe_plan_projection(v, exprs, names, 3, &pr));
    floe_expr_release(id);
    floe_expr_release(c90);
    floe_expr_release(minus);
    floe_expr_release(div);
    floe_expr_release(k1);
    floe_expr_release(k2);
    floe_plan_release(v);
    return pr;
}

static void child_errors_fail_the_join(void **state) {
    (void)state;
    jrow G[50];
    jrows_random(G, 50, 0, 5, 0);
    floe_plan *good = jplan("g", G, 50, 10, 2, false), *bad = failing_side("b", 2);
    floe_expr *k;
    assert_ok(floe_expr_column(0, &k));
    for (int side = 0; side < 2; side++)
        for (int t = 0; t < FLOE_JOIN_TYPE_COUNT_; t++)
            for (int mode = 0; mode < 2; mode++)
                for (int pl = 0; pl < 2; pl++) {
                    floe_plan *j;
                    assert_ok(floe_plan_hash_join(side ? good : bad, side ? bad : good, (floe_join_type)t,
                                                  (floe_join_mode)mode, &k, &k, 1, NULL, false, false, &j));
                    floe_exec_ctx ctx = test_ctx(pl ? pool2 : pool1, 8);
                    floe_batch *out = NULL;
                    assert_error(run_plan(j, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
                    assert_null(out);
                    /* and the next execution fails the same way (no stale state) */
                    assert_error(run_plan(j, &ctx, &out), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
                    floe_plan_release(j);
                }
    floe_expr_release(k);
    floe_plan_release(good);
    floe_plan_release(bad);
}

/* Streams closed early (as under a LIMIT) and a cancelled query leave no
 * stale shared state: the next execution is complete and correct. */
static void early_close_and_cancel_then_full_execution(void **state) {
    (void)state;
    jrow L[200], R[200];
    jrows_random(L, 200, 0, 10, 10);
    jrows_random(R, 200, 100000, 10, 10);
    floe_plan *l = jplan("l", L, 200, 20, 2, false), *r = jplan("r", R, 200, 20, 3, false);
    jcase c = {200, 200, 2, 3, 10, 10, 1, false, false, false, FLOE_JOIN_COLLECT_LEFT, 16, false};
    floe_plan *j = make_join(&c, FLOE_JOIN_FULL, l, r);
    floe_exec_ctx ctx = test_ctx(pool2, 16);
    /* partition 1 alone, one batch, closed; then partition 0 opened and
     * closed unread; opening partition 1 again in that execution is refused */
    floe_stream *st;
    floe_batch *b;
    floe_exec_ctx ectx;
    floe_execution *x = test_begin(&ctx, &ectx);
    assert_non_null(x);
    assert_ok(floe_plan_execute(j, 1, &ectx, &st));
    assert_ok(floe_stream_next(st, &b));
    assert_non_null(b);
    floe_batch_release(b);
    floe_stream_close(st);
    assert_ok(floe_plan_execute(j, 0, &ectx, &st));
    floe_stream_close(st);
    assert_error(floe_plan_execute(j, 1, &ectx, &st), FLOE_ERR_INTERNAL, "opened twice in one execution");
    floe_execution_end(x);
    int64_t nw, ng;
    jpair *want = jreference(FLOE_JOIN_FULL, L, 200, R, 200, 1, false, false, false, &nw);
    jpair *got = jresult(j, &ctx, FLOE_JOIN_FULL, &ng);
    jexpect_equal(got, ng, want, nw, "after early close");
    free(got);
    /* a cancelled query reports cancellation, never an empty result */
    floe_cancel cancel;
    floe_cancel_init(&cancel, NULL);
    floe_cancel_set(&cancel);
    ctx.cancel = &cancel;
    floe_batch *out = NULL;
    assert_error(run_plan(j, &ctx, &out), FLOE_ERR_CANCELLED, "");
    assert_null(out);
    ctx.cancel = NULL;
    got = jresult(j, &ctx, FLOE_JOIN_FULL, &ng);
    jexpect_equal(got, ng, want, nw, "after cancel");
    free(got);
    free(want);
    floe_plan_release(j);
    floe_plan_release(l);
    floe_plan_release(r);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(early_close_and_cancel_then_full_execution, setup, teardown),
               cmocka_unit_test_setup_teardown(many_partitions_on_a_one_thread_pool, setup, teardown),
               cmocka_unit_test_setup_teardown(every_join_type_matches_the_reference_collect_left, setup, teardown),
               cmocka_unit_test_setup_teardown(every_join_type_matches_the_reference_partitioned, setup, teardown),
               cmocka_unit_test_setup_teardown(heavy_duplicates_fill_many_output_batches, setup, teardown),
               cmocka_unit_test_setup_teardown(empty_sides_give_padded_or_no_rows, setup, teardown),
               cmocka_unit_test_setup_teardown(null_keys_match_with_null_equals_null, setup, teardown),
               cmocka_unit_test_setup_teardown(null_aware_anti_joins_follow_not_in, setup, teardown),
               cmocka_unit_test_setup_teardown(keys_of_different_numeric_types_join_by_value, setup, teardown),
               cmocka_unit_test_setup_teardown(join_schema_explain_and_accessors, setup, teardown),
               cmocka_unit_test_setup_teardown(child_errors_fail_the_join, setup, teardown))
