/*
 * test_expr_fast.c — the vectorized comparison and boolean loops
 * (src/exec/expr_fast.c) agree with SQL semantics row by row: random
 * columns with NULLs, sliced at odd offsets, every operator, constants on
 * either side and beyond the column type's range.
 */
#include <stdlib.h>
#include <string.h>

#include "exec_util.h"

static uint32_t rng = 12345;
static uint32_t next_rand(void) {
    rng = rng * 1103515245u + 12345u;
    return rng >> 8;
}

static bool cmp_ok(int op, int c) {
    switch (op) {
    case FLOE_CMP_EQ: return c == 0;
    case FLOE_CMP_NE: return c != 0;
    case FLOE_CMP_LT: return c < 0;
    case FLOE_CMP_LE: return c <= 0;
    case FLOE_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

static floe_batch *one_column_batch(floe_array *a) {
    floe_field f;
    floe_schema *s;
    floe_batch *b;
    assert_ok(floe_field_init(&f, "x", a->type, true, -1));
    assert_ok(floe_type_struct(&f, 1, &s));
    floe_field_clear(&f);
    assert_ok(floe_batch_new(s, &a, 1, a->length, &b));
    floe_type_release(s);
    return b;
}

/* Check CMP(x, lit) and CMP(lit, x) against `expect(i)` for every op. */
static void check_all_ops(floe_array *col, floe_expr *lit, int (*cmp_row)(const floe_array *, int64_t, const void *),
                          const void *ctx) {
    floe_batch *b = one_column_batch(col);
    floe_expr *x;
    assert_ok(floe_expr_column(0, &x));
    for (int op = FLOE_CMP_EQ; op <= FLOE_CMP_GE; op++) {
        for (int side = 0; side < 2; side++) {
            floe_expr *e;
            if (side == 0) assert_ok(floe_expr_cmp((floe_cmp_op)op, x, lit, &e));
            else {
                /* lit <op'> x with op' the mirror, so the meaning is the same */
                int m = op == FLOE_CMP_LT ? FLOE_CMP_GT : op == FLOE_CMP_LE ? FLOE_CMP_GE
                      : op == FLOE_CMP_GT ? FLOE_CMP_LT : op == FLOE_CMP_GE ? FLOE_CMP_LE : op;
                assert_ok(floe_expr_cmp((floe_cmp_op)m, lit, x, &e));
            }
            floe_array *r;
            assert_ok(floe_expr_eval(e, b, &r));
            assert_int_equal(r->length, col->length);
            for (int64_t i = 0; i < col->length; i++) {
                if (floe_array_is_null(col, i)) {
                    assert_true(floe_array_is_null(r, i));
                    continue;
                }
                assert_true(floe_array_is_valid(r, i));
                bool want = cmp_ok(op, cmp_row(col, i, ctx));
                if (floe_array_get_bool(r, i) != want) fail_msg("op %d side %d row %lld", op, side, (long long)i);
            }
            floe_array_release(r);
            floe_expr_release(e);
        }
    }
    floe_expr_release(x);
    floe_batch_release(b);
}

static int cmp_int32(const floe_array *a, int64_t i, const void *ctx) {
    int64_t v = floe_array_get_int32(a, i), c = *(const int64_t *)ctx;
    return (v > c) - (v < c);
}

static floe_array *random_int32(int64_t n, int32_t lo, int32_t span, int64_t slice_at) {
    floe_builder *bd;
    floe_array *a, *s;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT32), n, &bd));
    for (int64_t i = 0; i < n; i++) {
        if (next_rand() % 7 == 0) assert_ok(floe_builder_append_null(bd));
        else assert_ok(floe_builder_append_int32(bd, lo + (int32_t)(next_rand() % (uint32_t)span)));
    }
    assert_ok(floe_builder_finish(bd, &a));
    floe_builder_free(bd);
    assert_ok(floe_array_slice(a, slice_at, n - slice_at - 3, &s));
    floe_array_release(a);
    return s;
}

static void int_column_against_constants(void **state) {
    (void)state;
    floe_array *col = random_int32(1000, -20, 40, 13);
    int64_t consts[] = {0, -20, 19, 7, (int64_t)INT32_MAX + 5, (int64_t)INT32_MIN - 5};
    for (size_t k = 0; k < sizeof consts / sizeof *consts; k++) {
        floe_expr *lit;
        if (consts[k] >= INT32_MIN && consts[k] <= INT32_MAX) assert_ok(floe_expr_lit_int32((int32_t)consts[k], &lit));
        else assert_ok(floe_expr_lit_int64(consts[k], &lit));
        check_all_ops(col, lit, cmp_int32, &consts[k]);
        floe_expr_release(lit);
    }
    floe_array_release(col);
}

static int cmp_dec(const floe_array *a, int64_t i, const void *ctx) {
    floe_decimal128 d = floe_array_get_decimal(a, i);
    __int128 v = (__int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo), c = *(const __int128 *)ctx;
    return (v > c) - (v < c);
}

static void decimal_column_against_decimal_and_int_constants(void **state) {
    (void)state;
    floe_type *t;
    assert_ok(floe_type_decimal(15, 2, &t));
    floe_builder *bd;
    floe_array *col;
    assert_ok(floe_builder_new(t, 500, &bd));
    for (int i = 0; i < 500; i++) {
        if (i % 9 == 0) assert_ok(floe_builder_append_null(bd));
        else assert_ok(floe_builder_append_decimal(bd, floe_decimal128_from_int64((int64_t)(next_rand() % 2000) - 1000)));
    }
    assert_ok(floe_builder_finish(bd, &col));
    floe_builder_free(bd);
    /* 0.05 as decimal(3,2) → unscaled 5 at the column's scale */
    floe_type *t32;
    assert_ok(floe_type_decimal(3, 2, &t32));
    assert_ok(floe_builder_new(t32, 1, &bd));
    assert_ok(floe_builder_append_decimal(bd, floe_decimal128_from_int64(5)));
    floe_array *lv;
    assert_ok(floe_builder_finish(bd, &lv));
    floe_builder_free(bd);
    floe_expr *lit;
    assert_ok(floe_expr_literal(lv, &lit));
    __int128 c = 5;
    check_all_ops(col, lit, cmp_dec, &c);
    floe_expr_release(lit);
    floe_array_release(lv);
    /* the integer 3 is 300 at scale 2 */
    assert_ok(floe_expr_lit_int32(3, &lit));
    c = 300;
    check_all_ops(col, lit, cmp_dec, &c);
    floe_expr_release(lit);
    /* a constant with more scale than the column (0.055) takes the general path */
    floe_type *t43;
    assert_ok(floe_type_decimal(4, 3, &t43));
    assert_ok(floe_builder_new(t43, 1, &bd));
    assert_ok(floe_builder_append_decimal(bd, floe_decimal128_from_int64(55)));
    assert_ok(floe_builder_finish(bd, &lv));
    floe_builder_free(bd);
    assert_ok(floe_expr_literal(lv, &lit));
    floe_batch *b = one_column_batch(col);
    floe_expr *x, *e;
    assert_ok(floe_expr_column(0, &x));
    assert_ok(floe_expr_cmp(FLOE_CMP_LE, x, lit, &e));
    floe_array *r;
    assert_ok(floe_expr_eval(e, b, &r));
    for (int64_t i = 0; i < col->length; i++) {
        if (floe_array_is_null(col, i)) continue;
        floe_decimal128 d = floe_array_get_decimal(col, i);
        bool want = (int64_t)d.lo * 10 <= 55; /* values are small: lo is the value */
        assert_int_equal(floe_array_get_bool(r, i), want);
    }
    floe_array_release(r);
    floe_expr_release(e);
    floe_expr_release(x);
    floe_batch_release(b);
    floe_expr_release(lit);
    floe_array_release(lv);
    floe_type_release(t43);
    floe_type_release(t32);
    floe_type_release(t);
    floe_array_release(col);
}

static int cmp_str(const floe_array *a, int64_t i, const void *ctx) {
    floe_strview v = floe_array_get_str(a, i);
    const char *c = ctx;
    size_t lc = strlen(c), m = (size_t)v.len < lc ? (size_t)v.len : lc;
    int r = memcmp(v.data, c, m);
    if (r) return r;
    return ((size_t)v.len > lc) - ((size_t)v.len < lc);
}

static void string_column_against_constants(void **state) {
    (void)state;
    static const char *const words[] = {"", "a", "ab", "abc", "b", "ba", "\xc3\xa9t\xc3\xa9", "zz"};
    floe_builder *bd;
    floe_array *full, *col;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 300, &bd));
    for (int i = 0; i < 300; i++) {
        if (i % 11 == 0) assert_ok(floe_builder_append_null(bd));
        else assert_ok(floe_builder_append_string(bd, words[next_rand() % 8]));
    }
    assert_ok(floe_builder_finish(bd, &full));
    floe_builder_free(bd);
    assert_ok(floe_array_slice(full, 5, 290, &col));
    static const char *const consts[] = {"ab", "", "b", "zzz"};
    for (int k = 0; k < 4; k++) {
        floe_expr *lit;
        assert_ok(floe_expr_lit_string(consts[k], &lit));
        check_all_ops(col, lit, cmp_str, consts[k]);
        floe_expr_release(lit);
    }
    floe_array_release(col);
    floe_array_release(full);
}

/* Three-valued AND / OR / NOT over random bool columns (0 false, 1 true,
 * 2 null), byte-aligned and not. */
static floe_array *bool_col(const int *v, int64_t n) {
    floe_builder *bd;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_BOOL), n, &bd));
    for (int64_t i = 0; i < n; i++) {
        if (v[i] == 2) assert_ok(floe_builder_append_null(bd));
        else assert_ok(floe_builder_append_bool(bd, v[i] == 1));
    }
    assert_ok(floe_builder_finish(bd, &a));
    floe_builder_free(bd);
    return a;
}

static void boolean_connectives_follow_three_valued_logic(void **state) {
    (void)state;
    enum { N = 203 };
    int va[N], vb[N];
    for (int i = 0; i < N; i++) {
        va[i] = (int)(next_rand() % 3);
        vb[i] = (int)(next_rand() % 3);
    }
    for (int offset = 0; offset < 2; offset++) { /* 0: aligned; 1: sliced by 3 */
        floe_array *a = bool_col(va, N), *b = bool_col(vb, N);
        int64_t start = offset ? 3 : 0, n = N - start;
        floe_array *as, *bs;
        assert_ok(floe_array_slice(a, start, n, &as));
        assert_ok(floe_array_slice(b, start, n, &bs));
        floe_field f[2];
        floe_schema *s;
        assert_ok(floe_field_init(&f[0], "a", floe_type_primitive(FLOE_TYPE_BOOL), true, -1));
        assert_ok(floe_field_init(&f[1], "b", floe_type_primitive(FLOE_TYPE_BOOL), true, -1));
        assert_ok(floe_type_struct(f, 2, &s));
        floe_field_clear(&f[0]);
        floe_field_clear(&f[1]);
        floe_array *cols[2] = {as, bs};
        floe_batch *batch;
        assert_ok(floe_batch_new(s, cols, 2, n, &batch));
        floe_expr *x, *y, *and_e, *or_e, *not_e;
        assert_ok(floe_expr_column(0, &x));
        assert_ok(floe_expr_column(1, &y));
        assert_ok(floe_expr_and(x, y, &and_e));
        assert_ok(floe_expr_or(x, y, &or_e));
        assert_ok(floe_expr_not(x, &not_e));
        floe_array *ra, *ro, *rn;
        assert_ok(floe_expr_eval(and_e, batch, &ra));
        assert_ok(floe_expr_eval(or_e, batch, &ro));
        assert_ok(floe_expr_eval(not_e, batch, &rn));
        for (int64_t i = 0; i < n; i++) {
            int p = va[start + i], q = vb[start + i];
            int want_and = (p == 0 || q == 0) ? 0 : (p == 1 && q == 1) ? 1 : 2;
            int want_or = (p == 1 || q == 1) ? 1 : (p == 0 && q == 0) ? 0 : 2;
            int want_not = p == 2 ? 2 : 1 - p;
            int got_and = floe_array_is_null(ra, i) ? 2 : floe_array_get_bool(ra, i);
            int got_or = floe_array_is_null(ro, i) ? 2 : floe_array_get_bool(ro, i);
            int got_not = floe_array_is_null(rn, i) ? 2 : floe_array_get_bool(rn, i);
            if (got_and != want_and || got_or != want_or || got_not != want_not)
                fail_msg("row %lld (p=%d q=%d): and %d/%d or %d/%d not %d/%d", (long long)i, p, q, got_and, want_and,
                         got_or, want_or, got_not, want_not);
        }
        floe_array_release(ra);
        floe_array_release(ro);
        floe_array_release(rn);
        floe_expr_release(and_e);
        floe_expr_release(or_e);
        floe_expr_release(not_e);
        floe_expr_release(x);
        floe_expr_release(y);
        floe_batch_release(batch);
        floe_type_release(s);
        floe_array_release(as);
        floe_array_release(bs);
        floe_array_release(a);
        floe_array_release(b);
    }
}

static floe_array *dec_col(int32_t p, int32_t sc, const int64_t *v, const bool *null, int64_t n) {
    floe_type *t;
    floe_builder *bd;
    floe_array *a;
    assert_ok(floe_type_decimal(p, sc, &t));
    assert_ok(floe_builder_new(t, n, &bd));
    for (int64_t i = 0; i < n; i++) {
        if (null && null[i]) assert_ok(floe_builder_append_null(bd));
        else assert_ok(floe_builder_append_decimal(bd, floe_decimal128_from_int64(v[i])));
    }
    assert_ok(floe_builder_finish(bd, &a));
    floe_builder_free(bd);
    floe_type_release(t);
    return a;
}

static void decimal_arithmetic_with_constants_and_columns(void **state) {
    (void)state;
    enum { N = 100 };
    int64_t pv[N], dv[N];
    bool nul[N];
    for (int i = 0; i < N; i++) {
        pv[i] = (int64_t)(next_rand() % 1000000) - 500000; /* price, scale 2 */
        dv[i] = (int64_t)(next_rand() % 11);               /* discount 0.00 .. 0.10 */
        nul[i] = i % 13 == 0;
    }
    floe_array *price = dec_col(15, 2, pv, nul, N), *disc = dec_col(15, 2, dv, NULL, N);
    floe_array *ps, *ds;
    assert_ok(floe_array_slice(price, 3, N - 3, &ps));
    assert_ok(floe_array_slice(disc, 3, N - 3, &ds));
    floe_field f[2];
    floe_schema *s;
    assert_ok(floe_field_init(&f[0], "p", ps->type, true, -1));
    assert_ok(floe_field_init(&f[1], "d", ds->type, true, -1));
    assert_ok(floe_type_struct(f, 2, &s));
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);
    floe_array *cols[2] = {ps, ds};
    floe_batch *b;
    assert_ok(floe_batch_new(s, cols, 2, N - 3, &b));
    /* p * (1 - d): scale 4 */
    floe_expr *p, *d, *one, *sub, *mul;
    assert_ok(floe_expr_column(0, &p));
    assert_ok(floe_expr_column(1, &d));
    assert_ok(floe_expr_lit_int32(1, &one));
    assert_ok(floe_expr_arith(FLOE_ARITH_SUB, one, d, &sub));
    assert_ok(floe_expr_arith(FLOE_ARITH_MUL, p, sub, &mul));
    floe_array *r;
    assert_ok(floe_expr_eval(mul, b, &r));
    assert_int_equal(r->type->id, FLOE_TYPE_DECIMAL128);
    assert_int_equal(r->type->scale, 4);
    for (int64_t i = 0; i < N - 3; i++) {
        if (nul[3 + i]) {
            assert_true(floe_array_is_null(r, i));
            continue;
        }
        int64_t want = pv[3 + i] * (100 - dv[3 + i]);
        floe_decimal128 got = floe_array_get_decimal(r, i);
        assert_int_equal((int64_t)got.lo, want);
        assert_int_equal(got.hi, want < 0 ? -1 : 0);
    }
    floe_array_release(r);
    /* A product past 38 digits fails with the values named. */
    floe_array *big = dec_col(38, 0, pv, NULL, N);
    floe_batch *bb;
    floe_field fb;
    floe_schema *sb;
    assert_ok(floe_field_init(&fb, "x", big->type, true, -1));
    assert_ok(floe_type_struct(&fb, 1, &sb));
    floe_field_clear(&fb);
    assert_ok(floe_batch_new(sb, &big, 1, N, &bb));
    floe_expr *x, *sq, *sq2;
    assert_ok(floe_expr_column(0, &x));
    assert_ok(floe_expr_arith(FLOE_ARITH_MUL, x, x, &sq));
    assert_ok(floe_expr_arith(FLOE_ARITH_MUL, sq, sq, &sq2));
    floe_expr *sq3;
    assert_ok(floe_expr_arith(FLOE_ARITH_MUL, sq2, sq2, &sq3));
    floe_array *rb = NULL;
    assert_error(floe_expr_eval(sq3, bb, &rb), FLOE_ERR_INVALID_ARGUMENT, "overflow");
    floe_expr_release(sq3);
    floe_expr_release(sq2);
    floe_expr_release(sq);
    floe_expr_release(x);
    floe_batch_release(bb);
    floe_type_release(sb);
    floe_array_release(big);
    floe_expr_release(mul);
    floe_expr_release(sub);
    floe_expr_release(one);
    floe_expr_release(d);
    floe_expr_release(p);
    floe_batch_release(b);
    floe_type_release(s);
    floe_array_release(ps);
    floe_array_release(ds);
    floe_array_release(price);
    floe_array_release(disc);
}

typedef __int128 i128;

static i128 dec_value(const floe_array *a, int64_t i) {
    floe_decimal128 d = floe_array_get_decimal(a, i);
    return (i128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
}

/* A decimal(p, sc) column of 128-bit values v[i] (null where null[i]). */
static floe_array *dec128_col(int32_t p, int32_t sc, const i128 *v, const bool *null, int64_t n) {
    floe_type *t;
    floe_builder *bd;
    floe_array *a;
    assert_ok(floe_type_decimal(p, sc, &t));
    assert_ok(floe_builder_new(t, n, &bd));
    for (int64_t i = 0; i < n; i++) {
        floe_decimal128 d = {(uint64_t)v[i], (int64_t)(v[i] >> 64)};
        if (null && null[i]) assert_ok(floe_builder_append_null(bd));
        else assert_ok(floe_builder_append_decimal(bd, d));
    }
    assert_ok(floe_builder_finish(bd, &a));
    floe_builder_free(bd);
    floe_type_release(t);
    return a;
}

static i128 pow10_i128(int32_t k) {
    i128 r = 1;
    while (k-- > 0) r *= 10;
    return r;
}

/* Every (operator, column/constant side, rescaled side) of decimal + - *,
 * with values inside and beyond 64 bits, against exact 128-bit math. */
static void decimal_arithmetic_loops_are_exact_beyond_64_bits(void **state) {
    (void)state;
    enum { N = 200 };
    i128 av[N], bv[N];
    bool nul[N];
    for (int i = 0; i < N; i++) {
        i128 big = (i128)1000000000000000000LL * 10 + (i128)(next_rand() % 1000000); /* 10^19 + k: past int64 */
        av[i] = i % 3 == 0 ? big : (i128)((int64_t)(next_rand() % 2000001) - 1000000);
        if (i % 2) av[i] = -av[i];
        bv[i] = (i128)((int64_t)(next_rand() % 20001) - 10000);
        nul[i] = i % 7 == 0;
    }
    /* a: decimal(20,0) (some rows past int64), b: decimal(9,3) */
    floe_array *a = dec128_col(20, 0, av, nul, N), *b = dec128_col(9, 3, bv, NULL, N);
    floe_field f[2];
    floe_schema *s;
    assert_ok(floe_field_init(&f[0], "a", a->type, true, -1));
    assert_ok(floe_field_init(&f[1], "b", b->type, true, -1));
    assert_ok(floe_type_struct(f, 2, &s));
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);
    floe_array *cols[2] = {a, b};
    floe_batch *batch;
    assert_ok(floe_batch_new(s, cols, 2, N, &batch));
    floe_type *t52;
    assert_ok(floe_type_decimal(5, 2, &t52));
    floe_builder *lb;
    floe_array *lv;
    assert_ok(floe_builder_new(t52, 1, &lb));
    assert_ok(floe_builder_append_decimal(lb, floe_decimal128_from_int64(-1234))); /* -12.34 */
    assert_ok(floe_builder_finish(lb, &lv));
    floe_builder_free(lb);
    floe_expr *ca, *cb, *cl, *ci;
    assert_ok(floe_expr_column(0, &ca));
    assert_ok(floe_expr_column(1, &cb));
    assert_ok(floe_expr_literal(lv, &cl));
    assert_ok(floe_expr_lit_int64(-3000000000000LL, &ci));
    /* sides: (a, b), (b, a), (a, lit), (lit, a), (b, int), (int, b) */
    floe_expr *l[6] = {ca, cb, ca, cl, cb, ci}, *r[6] = {cb, ca, cl, ca, ci, cb};
    for (int op = FLOE_ARITH_ADD; op <= FLOE_ARITH_MUL; op++) {
        for (int k = 0; k < 6; k++) {
            floe_expr *e;
            assert_ok(floe_expr_arith((floe_arith_op)op, l[k], r[k], &e));
            floe_array *res;
            assert_ok(floe_expr_eval(e, batch, &res));
            assert_int_equal(res->type->id, FLOE_TYPE_DECIMAL128);
            int32_t rs = res->type->scale;
            for (int64_t i = 0; i < N; i++) {
                /* each side's value and scale */
                i128 x[2];
                int32_t xs[2];
                bool null = false;
                floe_expr *side[2] = {l[k], r[k]};
                for (int j = 0; j < 2; j++) {
                    if (side[j] == ca) { x[j] = av[i]; xs[j] = 0; null = null || nul[i]; }
                    else if (side[j] == cb) { x[j] = bv[i]; xs[j] = 3; }
                    else if (side[j] == cl) { x[j] = -1234; xs[j] = 2; }
                    else { x[j] = -3000000000000LL; xs[j] = 0; }
                }
                assert_int_equal(floe_array_is_null(res, i), null);
                if (null) continue;
                i128 want;
                if (op == FLOE_ARITH_MUL) {
                    want = x[0] * x[1];
                    assert_int_equal(rs, xs[0] + xs[1]);
                } else {
                    i128 u = x[0] * pow10_i128(rs - xs[0]), w = x[1] * pow10_i128(rs - xs[1]);
                    want = op == FLOE_ARITH_ADD ? u + w : u - w;
                }
                if (dec_value(res, i) != want) fail_msg("op %d sides %d row %lld", op, k, (long long)i);
            }
            floe_array_release(res);
            floe_expr_release(e);
        }
    }
    /* a * b * b * b: past the precision bound (38 + 9 digits), checked
     * row by row; rows past 64 bits take the 128-bit multiply, the rest
     * one 64-bit one */
    floe_expr *aa, *aab, *aabb;
    assert_ok(floe_expr_arith(FLOE_ARITH_MUL, ca, cb, &aa));
    assert_ok(floe_expr_arith(FLOE_ARITH_MUL, aa, cb, &aab));
    assert_ok(floe_expr_arith(FLOE_ARITH_MUL, aab, cb, &aabb));
    floe_array *res;
    assert_ok(floe_expr_eval(aabb, batch, &res));
    for (int64_t i = 0; i < N; i++)
        if (!nul[i] && dec_value(res, i) != av[i] * bv[i] * bv[i] * bv[i]) fail_msg("a * b * b * b row %lld", (long long)i);
    floe_array_release(res);
    floe_expr_release(aabb);
    floe_expr_release(aab);
    floe_expr_release(aa);
    floe_expr_release(ca);
    floe_expr_release(cb);
    floe_expr_release(cl);
    floe_expr_release(ci);
    floe_array_release(lv);
    floe_type_release(t52);
    floe_batch_release(batch);
    floe_type_release(s);
    floe_array_release(a);
    floe_array_release(b);
}

FLOE_TEST_MAIN(cmocka_unit_test(int_column_against_constants),
               cmocka_unit_test(decimal_column_against_decimal_and_int_constants),
               cmocka_unit_test(string_column_against_constants),
               cmocka_unit_test(boolean_connectives_follow_three_valued_logic),
               cmocka_unit_test(decimal_arithmetic_with_constants_and_columns),
               cmocka_unit_test(decimal_arithmetic_loops_are_exact_beyond_64_bits))
