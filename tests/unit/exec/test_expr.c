/*
 * test_expr.c — the exec layer's scalar expressions: SQL three-valued
 * logic, comparisons, arithmetic errors, casts and type inference.
 */
#include <math.h>

#include "exec_util.h"

/* Evaluate `e` over `b` into an array. */
static floe_array *eval(floe_expr *e, floe_batch *b) {
    floe_array *a;
    assert_ok(floe_expr_eval(e, b, &a));
    assert_ok(floe_array_validate(a));
    return a;
}

/* 0 = false, 1 = true, 2 = null for slot i of a bool array. */
static int tri(const floe_array *a, int64_t i) {
    if (floe_array_is_null(a, i)) return 2;
    return floe_array_get_bool(a, i) ? 1 : 0;
}

static floe_expr *col(int i) {
    floe_expr *e;
    assert_ok(floe_expr_column(i, &e));
    return e;
}

static floe_expr *lit(int32_t v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_int32(v, &e));
    return e;
}

static floe_expr *bin(floe_status (*fn)(floe_expr *, floe_expr *, floe_expr **), floe_expr *l, floe_expr *r) {
    floe_expr *e;
    assert_ok(fn(l, r, &e));
    floe_expr_release(l);
    floe_expr_release(r);
    return e;
}

static floe_expr *cmp(floe_cmp_op op, floe_expr *l, floe_expr *r) {
    floe_expr *e;
    assert_ok(floe_expr_cmp(op, l, r, &e));
    floe_expr_release(l);
    floe_expr_release(r);
    return e;
}

static floe_expr *arith(floe_arith_op op, floe_expr *l, floe_expr *r) {
    floe_expr *e;
    assert_ok(floe_expr_arith(op, l, r, &e));
    floe_expr_release(l);
    floe_expr_release(r);
    return e;
}

static void three_valued_and_or_not_follow_sql(void **state) {
    (void)state;
    /* a > 0 over a = {1, -1, NULL} gives TRUE, FALSE, NULL; pair each with
     * each via columns a and b. */
    int32_t a[9] = {1, 1, 1, -1, -1, -1, NUL, NUL, NUL};
    int32_t b[9] = {1, -1, NUL, 1, -1, NUL, 1, -1, NUL};
    floe_batch *batch = int_batch(a, b, 9);
    floe_expr *pa = cmp(FLOE_CMP_GT, col(0), lit(0)), *pb = cmp(FLOE_CMP_GT, col(1), lit(0));
    floe_expr *e_and = bin(floe_expr_and, floe_expr_retain(pa), floe_expr_retain(pb));
    floe_expr *e_or = bin(floe_expr_or, floe_expr_retain(pa), floe_expr_retain(pb));
    floe_expr *e_not;
    assert_ok(floe_expr_not(pa, &e_not));
    floe_array *r_and = eval(e_and, batch), *r_or = eval(e_or, batch), *r_not = eval(e_not, batch);
    /* T,F,N x T,F,N */
    const int want_and[9] = {1, 0, 2, 0, 0, 0, 2, 0, 2};
    const int want_or[9] = {1, 1, 1, 1, 0, 2, 1, 2, 2};
    const int want_not[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    for (int i = 0; i < 9; i++) {
        assert_int_equal(tri(r_and, i), want_and[i]);
        assert_int_equal(tri(r_or, i), want_or[i]);
        assert_int_equal(tri(r_not, i), want_not[i]);
    }
    floe_array_release(r_and); floe_array_release(r_or); floe_array_release(r_not);
    floe_expr_release(e_and); floe_expr_release(e_or); floe_expr_release(e_not);
    floe_expr_release(pa); floe_expr_release(pb);
    floe_batch_release(batch);
}

static void comparisons_with_null_are_null_and_is_null_is_not(void **state) {
    (void)state;
    int32_t a[4] = {1, 2, 3, NUL};
    floe_batch *batch = int_batch(a, NULL, 4);
    const int want[6][4] = {
        {0, 1, 0, 2}, {1, 0, 1, 2}, {1, 0, 0, 2}, {1, 1, 0, 2}, {0, 0, 1, 2}, {0, 1, 1, 2}};
    for (int op = FLOE_CMP_EQ; op <= FLOE_CMP_GE; op++) {
        floe_expr *e = cmp((floe_cmp_op)op, col(0), lit(2));
        floe_array *r = eval(e, batch);
        for (int i = 0; i < 4; i++) assert_int_equal(tri(r, i), want[op][i]);
        floe_array_release(r);
        floe_expr_release(e);
    }
    floe_expr *isn, *isnn, *c = col(0);
    assert_ok(floe_expr_is_null(c, false, &isn));
    assert_ok(floe_expr_is_null(c, true, &isnn));
    floe_array *r1 = eval(isn, batch), *r2 = eval(isnn, batch);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(tri(r1, i), i == 3);
        assert_int_equal(tri(r2, i), i != 3);
    }
    /* A filter keeps only TRUE rows: NULL is not TRUE. */
    floe_expr *ge = cmp(FLOE_CMP_GE, col(0), lit(2));
    uint32_t *sel;
    int64_t n;
    assert_ok(floe_expr_select(ge, batch, &sel, &n));
    assert_int_equal(n, 2);
    assert_int_equal(sel[0], 1);
    assert_int_equal(sel[1], 2);
    floe_free(sel);
    floe_expr_release(ge);
    floe_array_release(r1); floe_array_release(r2);
    floe_expr_release(isn); floe_expr_release(isnn); floe_expr_release(c);
    floe_batch_release(batch);
}

/* Column against column of the same integer width (compared in place,
 * eight results a byte), of 8-byte width (both cast to int64) and of mixed
 * widths (the widening path): every operator agrees with plain C over a
 * length that is not a multiple of 8, and NULL on either side is NULL. */
static void integer_columns_compare_at_every_width(void **state) {
    (void)state;
    int32_t a[11] = {1, -5, 3, NUL, 7, 7, INT32_MIN, INT32_MAX, 0, 2, 9};
    int32_t b[11] = {2, -5, 1, 4, NUL, 7, INT32_MAX, INT32_MIN, 0, -2, 9};
    floe_batch *batch = int_batch(a, b, 11);
    for (int form = 0; form < 3; form++)
        for (int op = FLOE_CMP_EQ; op <= FLOE_CMP_GE; op++) {
            floe_expr *l = col(0), *r = col(1), *cl = NULL, *cr = NULL;
            if (form >= 1) assert_ok(floe_expr_cast(l, floe_type_primitive(FLOE_TYPE_INT64), &cl));
            if (form == 1) assert_ok(floe_expr_cast(r, floe_type_primitive(FLOE_TYPE_INT64), &cr));
            floe_expr *e = cmp((floe_cmp_op)op, cl ? cl : floe_expr_retain(l), cr ? cr : floe_expr_retain(r));
            floe_expr_release(l);
            floe_expr_release(r);
            floe_array *res = eval(e, batch);
            for (int i = 0; i < 11; i++) {
                int want = 2;
                if (a[i] != NUL && b[i] != NUL) {
                    int64_t x = a[i], y = b[i];
                    want = op == FLOE_CMP_EQ ? x == y : op == FLOE_CMP_NE ? x != y : op == FLOE_CMP_LT ? x < y
                         : op == FLOE_CMP_LE ? x <= y : op == FLOE_CMP_GT ? x > y : x >= y;
                }
                if (tri(res, i) != want) fail_msg("form %d op %d row %d: got %d, want %d", form, op, i, tri(res, i), want);
            }
            floe_array_release(res);
            floe_expr_release(e);
        }
    floe_batch_release(batch);
}

/* A selection over more than 64 rows (whole words, then a tail) lists
 * exactly the rows whose predicate is TRUE, in order, NULLs left out. */
static void selection_lists_true_rows_across_words(void **state) {
    (void)state;
    int32_t a[150];
    for (int i = 0; i < 150; i++) a[i] = i % 11 == 0 ? NUL : i % 7 - 3;
    floe_batch *batch = int_batch(a, NULL, 150);
    floe_expr *e = cmp(FLOE_CMP_GT, col(0), lit(0));
    uint32_t *sel;
    int64_t n, k = 0;
    assert_ok(floe_expr_select(e, batch, &sel, &n));
    for (int i = 0; i < 150; i++)
        if (a[i] != NUL && a[i] > 0) {
            assert_true(k < n);
            assert_int_equal(sel[k], i);
            k++;
        }
    assert_int_equal(n, k);
    floe_free(sel);
    floe_expr_release(e);
    floe_batch_release(batch);
}

static void strings_compare_bytewise(void **state) {
    (void)state;
    floe_builder *bl;
    floe_array *s;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 3, &bl));
    assert_ok(floe_builder_append_string(bl, "apple"));
    assert_ok(floe_builder_append_string(bl, "banana"));
    assert_ok(floe_builder_append_string(bl, "ban"));
    assert_ok(floe_builder_finish(bl, &s));
    floe_builder_free(bl);
    floe_field f;
    floe_schema *schema;
    floe_batch *batch;
    assert_ok(floe_field_init(&f, "s", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    assert_ok(floe_type_struct(&f, 1, &schema));
    floe_field_clear(&f);
    assert_ok(floe_batch_new(schema, &s, 1, 3, &batch));
    floe_expr *l;
    assert_ok(floe_expr_lit_string("banana", &l));
    floe_expr *lt = cmp(FLOE_CMP_LT, col(0), l);
    floe_array *r = eval(lt, batch);
    assert_int_equal(tri(r, 0), 1);
    assert_int_equal(tri(r, 1), 0);
    assert_int_equal(tri(r, 2), 1);
    floe_array_release(r);
    floe_expr_release(lt);
    /* string vs int is a type error naming both types */
    floe_expr *bad = cmp(FLOE_CMP_EQ, col(0), lit(1));
    floe_type *t;
    assert_error(floe_expr_type(bad, schema, &t), FLOE_ERR_TYPE, "string and int32");
    floe_expr_release(bad);
    floe_batch_release(batch);
    floe_array_release(s);
    floe_type_release(schema);
}

static void arithmetic_widens_and_propagates_nulls(void **state) {
    (void)state;
    int32_t a[3] = {7, -7, NUL}, b[3] = {2, 2, 2};
    floe_batch *batch = int_batch(a, b, 3);
    const int32_t want[5][2] = {{9, -5}, {5, -9}, {14, -14}, {3, -3}, {1, -1}};
    for (int op = FLOE_ARITH_ADD; op <= FLOE_ARITH_MOD; op++) {
        floe_expr *e = arith((floe_arith_op)op, col(0), col(1));
        floe_array *r = eval(e, batch);
        assert_int_equal(r->type->id, FLOE_TYPE_INT32);
        assert_int_equal(floe_array_get_int32(r, 0), want[op][0]);
        assert_int_equal(floe_array_get_int32(r, 1), want[op][1]);
        assert_true(floe_array_is_null(r, 2));
        floe_array_release(r);
        floe_expr_release(e);
    }
    /* int32 * int64 -> int64; int * float64 -> float64 */
    floe_expr *l64, *lf;
    assert_ok(floe_expr_lit_int64(3000000000LL, &l64));
    assert_ok(floe_expr_lit_double(0.5, &lf));
    floe_expr *m = arith(FLOE_ARITH_MUL, col(0), l64), *d = arith(FLOE_ARITH_MUL, col(0), lf);
    floe_array *rm = eval(m, batch), *rd = eval(d, batch);
    assert_int_equal(rm->type->id, FLOE_TYPE_INT64);
    assert_true(floe_array_get_int64(rm, 0) == 21000000000LL);
    assert_int_equal(rd->type->id, FLOE_TYPE_FLOAT64);
    assert_true(floe_array_get_double(rd, 1) == -3.5);
    floe_array_release(rm); floe_array_release(rd);
    floe_expr_release(m); floe_expr_release(d);
    floe_batch_release(batch);
}

static void overflow_and_division_by_zero_are_errors(void **state) {
    (void)state;
    int32_t a[2] = {INT32_MAX, 5}, b[2] = {1, 0};
    floe_batch *batch = int_batch(a, b, 2);
    floe_array *r;
    floe_expr *add = arith(FLOE_ARITH_ADD, col(0), col(1));
    assert_error(floe_expr_eval(add, batch, &r), FLOE_ERR_INVALID_ARGUMENT, "integer out of range: 2147483647 + 1");
    floe_expr *div = arith(FLOE_ARITH_DIV, col(0), col(1));
    assert_error(floe_expr_eval(div, batch, &r), FLOE_ERR_INVALID_ARGUMENT, "division by zero: 5 / 0");
    floe_expr *mod = arith(FLOE_ARITH_MOD, col(0), col(1));
    assert_error(floe_expr_eval(mod, batch, &r), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
    floe_expr *l64, *one;
    assert_ok(floe_expr_lit_int64(INT64_MAX, &l64));
    assert_ok(floe_expr_lit_int64(1, &one));
    floe_expr *add64 = arith(FLOE_ARITH_ADD, l64, one);
    assert_error(floe_expr_eval(add64, batch, &r), FLOE_ERR_INVALID_ARGUMENT, "bigint out of range");
    floe_expr_release(add); floe_expr_release(div); floe_expr_release(mod); floe_expr_release(add64);
    floe_batch_release(batch);

    /* Division by zero on a NULL row is not an error: the result is NULL. */
    int32_t c[1] = {NUL}, z[1] = {0};
    batch = int_batch(c, z, 1);
    div = arith(FLOE_ARITH_DIV, col(0), col(1));
    assert_ok(floe_expr_eval(div, batch, &r));
    assert_true(floe_array_is_null(r, 0));
    floe_array_release(r);
    floe_expr_release(div);
    floe_batch_release(batch);
}

static void casts_convert_and_name_bad_values(void **state) {
    (void)state;
    int32_t a[3] = {42, -1, NUL};
    floe_batch *batch = int_batch(a, NULL, 3);
    floe_expr *to_s, *back, *to_d;
    assert_ok(floe_expr_cast(col(0), floe_type_primitive(FLOE_TYPE_STRING), &to_s));
    floe_expr_release(to_s->args[0]); /* col(0) was created for the call */
    floe_array *s = eval(to_s, batch);
    floe_strview v = floe_array_get_str(s, 0);
    assert_int_equal(v.len, 2);
    assert_memory_equal(v.data, "42", 2);
    assert_true(floe_array_is_null(s, 2));
    /* string -> int64 round trip */
    assert_ok(floe_expr_cast(to_s, floe_type_primitive(FLOE_TYPE_INT64), &back));
    floe_array *r = eval(back, batch);
    assert_true(floe_array_get_int64(r, 1) == -1);
    assert_true(floe_array_is_null(r, 2));
    floe_array_release(r);
    assert_ok(floe_expr_cast(back, floe_type_primitive(FLOE_TYPE_FLOAT64), &to_d));
    r = eval(to_d, batch);
    assert_true(floe_array_get_double(r, 0) == 42.0);
    floe_array_release(r);
    floe_expr_release(to_d); floe_expr_release(back); floe_expr_release(to_s);
    floe_array_release(s);

    /* bad string names the value */
    floe_expr *str, *bad;
    assert_ok(floe_expr_lit_string("12x", &str));
    assert_ok(floe_expr_cast(str, floe_type_primitive(FLOE_TYPE_INT32), &bad));
    assert_error(floe_expr_eval(bad, batch, &r), FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type integer: \"12x\"");
    floe_expr_release(bad); floe_expr_release(str);
    /* int64 -> int32 out of range, float NaN -> int */
    floe_expr *big, *narrow, *nan, *nan_i;
    assert_ok(floe_expr_lit_int64(1LL << 40, &big));
    assert_ok(floe_expr_cast(big, floe_type_primitive(FLOE_TYPE_INT32), &narrow));
    assert_error(floe_expr_eval(narrow, batch, &r), FLOE_ERR_INVALID_ARGUMENT, "integer out of range: 1099511627776");
    assert_ok(floe_expr_lit_double(NAN, &nan));
    assert_ok(floe_expr_cast(nan, floe_type_primitive(FLOE_TYPE_INT64), &nan_i));
    assert_error(floe_expr_eval(nan_i, batch, &r), FLOE_ERR_INVALID_ARGUMENT, "out of range");
    floe_expr_release(big); floe_expr_release(narrow); floe_expr_release(nan); floe_expr_release(nan_i);
    floe_batch_release(batch);
}

static void type_inference_reports_clear_errors(void **state) {
    (void)state;
    int32_t a[1] = {1};
    floe_batch *batch = int_batch(a, NULL, 1);
    floe_type *t;
    floe_expr *c5 = col(5);
    assert_error(floe_expr_type(c5, batch->schema, &t), FLOE_ERR_INVALID_ARGUMENT, "column #5 is out of range");
    floe_expr *s, *plus;
    assert_ok(floe_expr_lit_string("x", &s));
    plus = arith(FLOE_ARITH_ADD, col(0), s);
    assert_error(floe_expr_type(plus, batch->schema, &t), FLOE_ERR_TYPE, "+ is not defined for int32 and string");
    floe_expr *nt;
    assert_ok(floe_expr_not(c5, &nt));
    floe_expr *n0;
    assert_ok(floe_expr_not(plus->args[0], &n0));
    assert_error(floe_expr_type(n0, batch->schema, &t), FLOE_ERR_TYPE, "NOT is not defined for int32");
    /* NULL literals take part in typing */
    floe_expr *nl, *sum;
    assert_ok(floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_NULL), &nl));
    sum = arith(FLOE_ARITH_ADD, col(0), nl);
    assert_ok(floe_expr_type(sum, batch->schema, &t));
    assert_int_equal(t->id, FLOE_TYPE_INT32);
    floe_array *r = eval(sum, batch);
    assert_true(floe_array_is_null(r, 0));
    floe_array_release(r);
    floe_buf txt;
    floe_buf_init(&txt);
    assert_ok(floe_expr_to_string(sum, &txt));
    assert_string_equal(floe_buf_cstr(&txt), "(#0 + NULL::null)");
    floe_buf_free(&txt);
    floe_expr_release(sum); floe_expr_release(n0); floe_expr_release(nt); floe_expr_release(plus);
    floe_expr_release(c5);
    floe_batch_release(batch);
}

static void case_is_lazy_and_in_coalesce_follow_sql(void **state) {
    (void)state;
    int32_t a[4] = {0, 4, NUL, -2}, b[4] = {NUL, 1, 7, NUL};
    floe_batch *batch = int_batch(a, b, 4);
    /* CASE WHEN a <> 0 THEN 100 / a WHEN b > 5 THEN b END: no division by
     * zero for row 0, which takes no branch (NULL). */
    floe_expr *w1 = cmp(FLOE_CMP_NE, col(0), lit(0)), *t1 = arith(FLOE_ARITH_DIV, lit(100), col(0));
    floe_expr *w2 = cmp(FLOE_CMP_GT, col(1), lit(5)), *t2 = col(1);
    floe_expr *whens[2] = {w1, w2}, *thens[2] = {t1, t2}, *ce, *ce_else;
    assert_ok(floe_expr_case(whens, thens, 2, NULL, &ce));
    floe_array *r = eval(ce, batch);
    assert_true(floe_array_is_null(r, 0));
    assert_int_equal(floe_array_get_int32(r, 1), 25);
    assert_int_equal(floe_array_get_int32(r, 2), 7);
    assert_int_equal(floe_array_get_int32(r, 3), -50);
    floe_array_release(r);
    /* with ELSE 0.5 the result widens to float64 */
    floe_expr *half;
    assert_ok(floe_expr_lit_double(0.5, &half));
    assert_ok(floe_expr_case(whens, thens, 2, half, &ce_else));
    r = eval(ce_else, batch);
    assert_int_equal(r->type->id, FLOE_TYPE_FLOAT64);
    assert_true(floe_array_get_double(r, 0) == 0.5);
    assert_true(floe_array_get_double(r, 1) == 25.0);
    floe_array_release(r);
    floe_buf txt;
    floe_buf_init(&txt);
    assert_ok(floe_expr_to_string(ce_else, &txt));
    assert_string_equal(floe_buf_cstr(&txt), "CASE WHEN (#0 <> 0) THEN (100 / #0) WHEN (#1 > 5) THEN #1 ELSE 0.5 END");
    floe_buf_free(&txt);

    /* COALESCE(b, 100 / a, -1): row 0 would divide by zero only if reached */
    floe_expr *neg = lit(-1), *cargs[3] = {t2, t1, neg}, *co;
    assert_ok(floe_expr_coalesce(cargs, 3, &co));
    int32_t a2[3] = {0, 4, NUL}, b2[3] = {9, NUL, NUL};
    floe_batch *batch2 = int_batch(a2, b2, 3);
    r = eval(co, batch2);
    assert_int_equal(floe_array_get_int32(r, 0), 9);
    assert_int_equal(floe_array_get_int32(r, 1), 25);
    assert_int_equal(floe_array_get_int32(r, 2), -1);
    floe_array_release(r);

    /* a IN (4, NULL): TRUE for 4, NULL otherwise (never FALSE); a IN (4, -2) */
    floe_expr *nl, *items[2] = {lit(4), NULL}, *in1, *in2;
    assert_ok(floe_expr_lit_null(floe_type_primitive(FLOE_TYPE_INT32), &nl));
    items[1] = nl;
    assert_ok(floe_expr_in(col(0), items, 2, &in1));
    floe_expr_release(in1->args[0]);
    r = eval(in1, batch);
    assert_int_equal(tri(r, 0), 2); assert_int_equal(tri(r, 1), 1);
    assert_int_equal(tri(r, 2), 2); assert_int_equal(tri(r, 3), 2);
    floe_array_release(r);
    floe_expr *items2[2] = {items[0], lit(-2)};
    assert_ok(floe_expr_in(col(0), items2, 2, &in2));
    floe_expr_release(in2->args[0]);
    r = eval(in2, batch);
    assert_int_equal(tri(r, 0), 0); assert_int_equal(tri(r, 1), 1);
    assert_int_equal(tri(r, 2), 2); assert_int_equal(tri(r, 3), 1);
    floe_array_release(r);
    /* branch types must agree */
    floe_expr *s, *bad;
    floe_type *t;
    assert_ok(floe_expr_lit_string("x", &s));
    floe_expr *bargs[2] = {t2, s};
    assert_ok(floe_expr_coalesce(bargs, 2, &bad));
    assert_error(floe_expr_type(bad, batch->schema, &t), FLOE_ERR_TYPE, "COALESCE is not defined for int32 and string");
    floe_expr *all[] = {w1, t1, w2, t2, ce, ce_else, half, neg, co, nl, items[0], in1, items2[1], in2, s, bad};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) floe_expr_release(all[i]);
    floe_batch_release(batch);
    floe_batch_release(batch2);
}

/* A one-column batch of decimal(p, s) unscaled values. */
static floe_batch *dec_batch(int32_t p, int32_t sc, const int64_t *v, int n) {
    floe_type *t;
    floe_builder *bl;
    floe_array *a;
    floe_field f;
    floe_schema *schema;
    floe_batch *b;
    assert_ok(floe_type_decimal(p, sc, &t));
    assert_ok(floe_builder_new(t, n, &bl));
    for (int i = 0; i < n; i++) assert_ok(floe_builder_append_decimal(bl, floe_decimal128_from_int64(v[i])));
    assert_ok(floe_builder_finish(bl, &a));
    floe_builder_free(bl);
    assert_ok(floe_field_init(&f, "d", t, true, -1));
    assert_ok(floe_type_struct(&f, 1, &schema));
    floe_field_clear(&f);
    assert_ok(floe_batch_new(schema, &a, 1, n, &b));
    floe_array_release(a);
    floe_type_release(schema);
    floe_type_release(t);
    return b;
}

static void decimals_compare_across_scales_and_add_exactly(void **state) {
    (void)state;
    int64_t v[3] = {150, 249, -1}; /* 1.50, 2.49, -0.01 as decimal(5, 2) */
    floe_batch *batch = dec_batch(5, 2, v, 3);
    floe_type *d31;
    assert_ok(floe_type_decimal(3, 1, &d31));
    floe_builder *bl;
    floe_array *la;
    assert_ok(floe_builder_new(d31, 1, &bl));
    assert_ok(floe_builder_append_decimal(bl, floe_decimal128_from_int64(15))); /* 1.5 */
    assert_ok(floe_builder_finish(bl, &la));
    floe_builder_free(bl);
    floe_expr *l15;
    assert_ok(floe_expr_literal(la, &l15));
    floe_expr *eq = cmp(FLOE_CMP_EQ, col(0), floe_expr_retain(l15));
    floe_array *r = eval(eq, batch);
    assert_int_equal(tri(r, 0), 1); assert_int_equal(tri(r, 1), 0); assert_int_equal(tri(r, 2), 0);
    floe_array_release(r);
    floe_expr *gt1 = cmp(FLOE_CMP_GT, col(0), lit(1));
    r = eval(gt1, batch);
    assert_int_equal(tri(r, 0), 1); assert_int_equal(tri(r, 1), 1); assert_int_equal(tri(r, 2), 0);
    floe_array_release(r);
    /* decimal(5,2) + decimal(3,1) = decimal(6,2) exactly: 1.50 + 1.5 = 3.00 */
    floe_expr *sum = arith(FLOE_ARITH_ADD, col(0), floe_expr_retain(l15));
    floe_type *t;
    assert_ok(floe_expr_type(sum, batch->schema, &t));
    assert_int_equal(t->id, FLOE_TYPE_DECIMAL128);
    assert_int_equal(t->precision, 6);
    assert_int_equal(t->scale, 2);
    floe_type_release(t);
    r = eval(sum, batch);
    assert_true(floe_array_get_decimal(r, 0).lo == 300);
    assert_true(floe_array_get_decimal(r, 2).lo == 149 && floe_array_get_decimal(r, 2).hi == 0); /* -0.01 + 1.5 */
    floe_array_release(r);
    floe_expr *prod = arith(FLOE_ARITH_MUL, col(0), col(0));
    r = eval(prod, batch);
    assert_true(floe_array_get_decimal(r, 1).lo == 249 * 249); /* scale 4 */
    floe_array_release(r);
    floe_expr *dv = arith(FLOE_ARITH_DIV, col(0), col(0));
    /* decimal(5,2) / decimal(5,2): scale max(6, 2 + 5 + 1) = 8, precision 5 - 2 + 2 + 8 = 13 */
    assert_ok(floe_expr_type(dv, batch->schema, &t));
    assert_int_equal(t->precision, 13);
    assert_int_equal(t->scale, 8);
    floe_type_release(t);
    r = eval(dv, batch);
    for (int64_t i = 0; i < 3; i++) assert_true(floe_array_get_decimal(r, i).lo == 100000000 && floe_array_get_decimal(r, i).hi == 0);
    floe_array_release(r);
    floe_expr_release(eq); floe_expr_release(gt1); floe_expr_release(sum); floe_expr_release(prod);
    floe_expr_release(dv); floe_expr_release(l15);
    floe_array_release(la); floe_type_release(d31);
    floe_batch_release(batch);

    /* overflow of decimal(38, 0) names the operands */
    int64_t big[1] = {INT64_MAX};
    batch = dec_batch(38, 0, big, 1);
    floe_expr *sq = arith(FLOE_ARITH_MUL, col(0), col(0)), *sq2 = arith(FLOE_ARITH_MUL, floe_expr_retain(sq), floe_expr_retain(sq));
    r = eval(sq, batch); /* (2^63-1)^2 ~ 8.5e37 still fits 38 digits */
    floe_array_release(r);
    assert_error(floe_expr_eval(sq2, batch, &r), FLOE_ERR_INVALID_ARGUMENT, "decimal(38, 0) overflow");
    floe_expr_release(sq); floe_expr_release(sq2);
    floe_batch_release(batch);
}

FLOE_TEST_MAIN(cmocka_unit_test(decimals_compare_across_scales_and_add_exactly),
               cmocka_unit_test(integer_columns_compare_at_every_width),
               cmocka_unit_test(selection_lists_true_rows_across_words),
               cmocka_unit_test(case_is_lazy_and_in_coalesce_follow_sql),
               cmocka_unit_test(three_valued_and_or_not_follow_sql),
               cmocka_unit_test(comparisons_with_null_are_null_and_is_null_is_not),
               cmocka_unit_test(strings_compare_bytewise),
               cmocka_unit_test(arithmetic_widens_and_propagates_nulls),
               cmocka_unit_test(overflow_and_division_by_zero_are_errors),
               cmocka_unit_test(casts_convert_and_name_bad_values),
               cmocka_unit_test(type_inference_reports_clear_errors))
