/*
 * test_agg_cse.c — common subexpressions (agg_cse.c): what is shared and
 * how the expressions are rewritten, that lazy positions and look-alike
 * literals are left alone, that the shared columns evaluate to what the
 * expressions give one by one, and that a HashAggregate whose arguments
 * share subexpressions sums exactly.
 */
#include <string.h>

#include "exec/expr/agg_cse.h"
#include "exec_util.h"
#include "floe/exec_ops.h"

typedef __int128 i128;

static floe_expr *col(int32_t i) {
    floe_expr *e;
    assert_ok(floe_expr_column(i, &e));
    return e;
}
static floe_expr *lit_i32(int32_t v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_int32(v, &e));
    return e;
}
/* op(l, r), taking over the caller's references to l and r */
static floe_expr *arith(floe_arith_op op, floe_expr *l, floe_expr *r) {
    floe_expr *e;
    assert_ok(floe_expr_arith(op, l, r, &e));
    floe_expr_release(l);
    floe_expr_release(r);
    return e;
}
static void assert_text(const floe_expr *e, const char *want) {
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_expr_to_string(e, &b));
    assert_string_equal(floe_buf_cstr(&b), want);
    floe_buf_free(&b);
}

/* Four decimal(15,2) columns q, p, d, t with n rows of small values. */
static floe_batch *lineitem_batch(int64_t n) {
    floe_type *t;
    assert_ok(floe_type_decimal(15, 2, &t));
    static const char *const names[4] = {"q", "p", "d", "t"};
    floe_field f[4];
    floe_array *cols[4];
    for (int c = 0; c < 4; c++) {
        assert_ok(floe_field_init(&f[c], names[c], t, true, -1));
        floe_builder *b;
        assert_ok(floe_builder_new(t, n, &b));
        for (int64_t r = 0; r < n; r++) {
            if (c == 1 && r % 17 == 3) assert_ok(floe_builder_append_null(b));
            else assert_ok(floe_builder_append_decimal(b, floe_decimal128_from_int64(c == 2 || c == 3 ? r % 11 : 100000 + r * 37)));
        }
        assert_ok(floe_builder_finish(b, &cols[c]));
        floe_builder_free(b);
    }
    floe_schema *s;
    assert_ok(floe_type_struct(f, 4, &s));
    floe_batch *out;
    assert_ok(floe_batch_new(s, cols, 4, n, &out));
    for (int c = 0; c < 4; c++) {
        floe_field_clear(&f[c]);
        floe_array_release(cols[c]);
    }
    floe_type_release(s);
    floe_type_release(t);
    return out;
}

/* p * (1 - d) and p * (1 - d) * (1 + t), the Q1 arguments */
static void q1_exprs(floe_expr **disc, floe_expr **charge) {
    *disc = arith(FLOE_ARITH_MUL, col(1), arith(FLOE_ARITH_SUB, lit_i32(1), col(2)));
    floe_expr *again = arith(FLOE_ARITH_MUL, col(1), arith(FLOE_ARITH_SUB, lit_i32(1), col(2)));
    *charge = arith(FLOE_ARITH_MUL, again, arith(FLOE_ARITH_ADD, lit_i32(1), col(3)));
}

static void q1_arguments_share_the_discounted_price_once(void **state) {
    (void)state;
    floe_batch *b = lineitem_batch(10);
    floe_expr *disc, *charge, *q = col(0);
    q1_exprs(&disc, &charge);
    floe_expr *exprs[4] = {q, disc, NULL, charge};
    floe_cse *c;
    assert_ok(floe_cse_build(exprs, 4, b->schema, &c));
    assert_non_null(c);
    assert_int_equal(c->n_in, 4);
    assert_int_equal(c->n_shared, 2);
    assert_text(c->shared[0], "(1 - #2)");
    assert_text(c->shared[1], "(#1 * #4)");
    assert_int_equal(c->first_user[0], 1);
    assert_text(c->rewritten[0], "#0");
    assert_text(c->rewritten[1], "#5");
    assert_null(c->rewritten[2]);
    assert_text(c->rewritten[3], "(#5 * (1 + #3))");
    assert_int_equal(floe_schema_num_fields(c->schemas[2]), 6);
    floe_cse_free(c);
    floe_expr_release(q);
    floe_expr_release(disc);
    floe_expr_release(charge);
    floe_batch_release(b);
}

static void shared_columns_evaluate_like_the_expressions_one_by_one(void **state) {
    (void)state;
    floe_batch *b = lineitem_batch(1000);
    floe_expr *disc, *charge;
    q1_exprs(&disc, &charge);
    floe_expr *exprs[2] = {disc, charge};
    floe_cse *c;
    assert_ok(floe_cse_build(exprs, 2, b->schema, &c));
    floe_batch *x;
    int32_t failed;
    assert_ok(floe_cse_extend(c, b, &x, &failed));
    assert_int_equal(x->num_columns, 6);
    for (int i = 0; i < 2; i++) {
        floe_array *want, *got;
        assert_ok(floe_expr_eval(exprs[i], b, &want));
        assert_ok(floe_expr_eval(c->rewritten[i], x, &got));
        assert_true(floe_type_equals(want->type, got->type));
        for (int64_t r = 0; r < b->num_rows; r++) {
            assert_int_equal(floe_array_is_null(want, r), floe_array_is_null(got, r));
            if (floe_array_is_null(want, r)) continue;
            floe_decimal128 u = floe_array_get_decimal(want, r), v = floe_array_get_decimal(got, r);
            assert_true(u.lo == v.lo && u.hi == v.hi);
        }
        floe_array_release(want);
        floe_array_release(got);
    }
    floe_batch_release(x);
    /* a batch of another width is refused, not read out of bounds */
    floe_batch *narrow = int_batch((const int32_t[]){1, 2}, NULL, 2);
    assert_error(floe_cse_extend(c, narrow, &x, &failed), FLOE_ERR_INVALID_ARGUMENT, "4 columns");
    floe_batch_release(narrow);
    floe_cse_free(c);
    floe_expr_release(disc);
    floe_expr_release(charge);
    floe_batch_release(b);
}

static void lazy_branches_and_look_alike_literals_are_not_shared(void **state) {
    (void)state;
    floe_batch *b = lineitem_batch(4);
    /* 10 / #0 inside CASE and COALESCE: never evaluated on every row */
    floe_expr *div1 = arith(FLOE_ARITH_DIV, lit_i32(10), col(0)), *div2 = arith(FLOE_ARITH_DIV, lit_i32(10), col(0));
    floe_expr *zero = lit_i32(0), *c0 = col(0), *when, *cs, *co;
    assert_ok(floe_expr_cmp(FLOE_CMP_NE, c0, zero, &when));
    assert_ok(floe_expr_case(&when, &div1, 1, NULL, &cs));
    floe_expr *cargs[2] = {div2, zero};
    assert_ok(floe_expr_coalesce(cargs, 2, &co));
    floe_expr *lazy[2] = {cs, co};
    floe_cse *c = (floe_cse *)1;
    assert_ok(floe_cse_build(lazy, 2, b->schema, &c));
    assert_null(c);
    /* #0 + 1 (int32) and #0 + 1 (int64); #1 * 0.0 and #1 * -0.0 */
    floe_expr *one64;
    assert_ok(floe_expr_lit_int64(1, &one64));
    floe_expr *a = arith(FLOE_ARITH_ADD, col(0), lit_i32(1)), *a64 = arith(FLOE_ARITH_ADD, col(0), one64);
    floe_expr *z, *nz;
    assert_ok(floe_expr_lit_double(0.0, &z));
    assert_ok(floe_expr_lit_double(-0.0, &nz));
    floe_expr *m1 = arith(FLOE_ARITH_MUL, col(1), z), *m2 = arith(FLOE_ARITH_MUL, col(1), nz);
    assert_false(floe_expr_same(a, a64));
    assert_false(floe_expr_same(m1, m2));
    floe_expr *look[4] = {a, a64, m1, m2};
    assert_ok(floe_cse_build(look, 4, b->schema, &c));
    assert_null(c);
    /* but the same expression twice is shared, even as a whole */
    floe_expr *twice[2] = {a, a};
    assert_ok(floe_cse_build(twice, 2, b->schema, &c));
    assert_non_null(c);
    assert_int_equal(c->n_shared, 1);
    assert_text(c->rewritten[1], "#4");
    floe_cse_free(c);
    floe_expr_release(a);
    floe_expr_release(a64);
    floe_expr_release(m1);
    floe_expr_release(m2);
    floe_expr_release(when);
    floe_expr_release(cs);
    floe_expr_release(co);
    floe_expr_release(div1);
    floe_expr_release(div2);
    floe_expr_release(zero);
    floe_expr_release(c0);
    floe_batch_release(b);
}

static void aggregate_over_shared_arguments_sums_exactly(void **state) {
    (void)state;
    floe_threadpool *pool;
    assert_ok(floe_threadpool_create(2, &pool));
    enum { NB = 3, N = 2500 };
    floe_batch *bs[NB];
    for (int i = 0; i < NB; i++) bs[i] = lineitem_batch(N);
    floe_plan *v, *agg;
    assert_ok(floe_plan_values(bs[0]->schema, bs, NB, 2, &v));
    floe_expr *disc, *charge;
    q1_exprs(&disc, &charge);
    floe_agg_call calls[3] = {{FLOE_AGG_SUM, false, disc, "sum_disc", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_SUM, false, charge, "sum_charge", NULL, NULL, NULL, 0, NULL},
                              {FLOE_AGG_AVG, false, disc, "avg_disc", NULL, NULL, NULL, 0, NULL}};
    floe_expr *key = col(2);
    const char *kn = "d";
    assert_ok(floe_plan_hash_aggregate(v, FLOE_AGG_MODE_PARTIAL, &key, &kn, 1, calls, 3, NULL, &agg));
    floe_exec_ctx ctx = test_ctx(pool, 700);
    floe_batch *out;
    assert_ok(run_plan(agg, &ctx, &out));
    /* expected, per discount value: the sums of the row-by-row values */
    i128 want_disc[11] = {0}, want_charge[11] = {0}, got_disc[11] = {0}, got_charge[11] = {0};
    for (int i = 0; i < NB; i++) {
        floe_array *a1, *a2;
        assert_ok(floe_expr_eval(disc, bs[i], &a1));
        assert_ok(floe_expr_eval(charge, bs[i], &a2));
        for (int64_t r = 0; r < N; r++) {
            if (floe_array_is_null(a1, r)) continue;
            int d = (int)(r % 11);
            floe_decimal128 x = floe_array_get_decimal(a1, r), y = floe_array_get_decimal(a2, r);
            want_disc[d] += (i128)(((unsigned __int128)(uint64_t)x.hi << 64) | x.lo);
            want_charge[d] += (i128)(((unsigned __int128)(uint64_t)y.hi << 64) | y.lo);
        }
        floe_array_release(a1);
        floe_array_release(a2);
    }
    for (int64_t r = 0; r < out->num_rows; r++) { /* PARTIAL: two partitions may repeat a key */
        floe_decimal128 k = floe_array_get_decimal(out->columns[0], r);
        floe_decimal128 x = floe_array_get_decimal(out->columns[1], r), y = floe_array_get_decimal(out->columns[2], r);
        got_disc[k.lo] += (i128)(((unsigned __int128)(uint64_t)x.hi << 64) | x.lo);
        got_charge[k.lo] += (i128)(((unsigned __int128)(uint64_t)y.hi << 64) | y.lo);
    }
    for (int d = 0; d < 11; d++) {
        assert_true(want_disc[d] == got_disc[d]);
        assert_true(want_charge[d] == got_charge[d]);
    }
    floe_batch_release(out);
    floe_plan_release(agg);
    floe_plan_release(v);
    floe_expr_release(key);
    floe_expr_release(disc);
    floe_expr_release(charge);
    for (int i = 0; i < NB; i++) floe_batch_release(bs[i]);
    floe_threadpool_destroy(pool);
}

static void projection_with_shared_subexpressions_gives_the_same_columns(void **state) {
    (void)state;
    floe_threadpool *pool;
    assert_ok(floe_threadpool_create(2, &pool));
    floe_batch *b = lineitem_batch(900);
    floe_plan *v, *pr;
    assert_ok(floe_plan_values(b->schema, &b, 1, 1, &v));
    floe_expr *disc, *charge;
    q1_exprs(&disc, &charge);
    floe_expr *exprs[3] = {disc, charge, disc};
    const char *names[3] = {"disc", "charge", "disc2"};
    assert_ok(floe_plan_projection(v, exprs, names, 3, &pr));
    floe_buf eb = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(pr, &eb)); /* the plan shows what was asked */
    assert_non_null(strstr(floe_buf_cstr(&eb), "((#1 * (1 - #2)) * (1 + #3)) AS charge"));
    floe_buf_free(&eb);
    floe_exec_ctx ctx = test_ctx(pool, 256);
    floe_batch *out;
    assert_ok(run_plan(pr, &ctx, &out));
    assert_int_equal(out->num_rows, 900);
    for (int i = 0; i < 3; i++) {
        floe_array *want;
        assert_ok(floe_expr_eval(exprs[i], b, &want));
        for (int64_t r = 0; r < 900; r++) {
            assert_int_equal(floe_array_is_null(want, r), floe_array_is_null(out->columns[i], r));
            if (floe_array_is_null(want, r)) continue;
            floe_decimal128 u = floe_array_get_decimal(want, r), w = floe_array_get_decimal(out->columns[i], r);
            assert_true(u.lo == w.lo && u.hi == w.hi);
        }
        floe_array_release(want);
    }
    floe_batch_release(out);
    floe_plan_release(pr);
    floe_plan_release(v);
    floe_expr_release(disc);
    floe_expr_release(charge);
    floe_batch_release(b);
    floe_threadpool_destroy(pool);
}

FLOE_TEST_MAIN(cmocka_unit_test(q1_arguments_share_the_discounted_price_once),
               cmocka_unit_test(shared_columns_evaluate_like_the_expressions_one_by_one),
               cmocka_unit_test(lazy_branches_and_look_alike_literals_are_not_shared),
               cmocka_unit_test(aggregate_over_shared_arguments_sums_exactly),
               cmocka_unit_test(projection_with_shared_subexpressions_gives_the_same_columns))
