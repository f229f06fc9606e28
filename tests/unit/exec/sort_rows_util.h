/*
 * sort_rows_util.h — random test rows for the Sort and SortPreservingMerge
 * tests: an int, a string and a float column with duplicates, NULLs, NaN
 * and -0.0, plus each row's input position; and a naive reference order.
 */
#ifndef FLOE_TEST_SORT_ROWS_UTIL_H
#define FLOE_TEST_SORT_ROWS_UTIL_H

#include <math.h>

#include "exec_util.h"
#include "floe/exec_ops.h"

static uint64_t rng_state = 88172645463325252ull;
static inline uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random rows: a int32 in 0..9 (10% NULL), s string of 0..3 letters from
 * "ab" (10% NULL), f float64 with NaN, -0.0, infinities (10% NULL), pos
 * int64 = the row's input position. */
typedef struct row {
    int32_t a;
    bool a_null;
    char s[4];
    bool s_null;
    double f;
    bool f_null;
    int64_t pos;
} row;

static inline floe_schema *rows_schema(void) {
    floe_field f[4];
    floe_schema *s;
    assert_ok(floe_field_init(&f[0], "a", floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    assert_ok(floe_field_init(&f[1], "s", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    assert_ok(floe_field_init(&f[2], "f", floe_type_primitive(FLOE_TYPE_FLOAT64), true, -1));
    assert_ok(floe_field_init(&f[3], "pos", floe_type_primitive(FLOE_TYPE_INT64), false, -1));
    assert_ok(floe_type_struct(f, 4, &s));
    for (int i = 0; i < 4; i++) floe_field_clear(&f[i]);
    return s;
}

static inline void random_rows(row *r, int64_t n) {
    static const double specials[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.5, -2.5};
    for (int64_t i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].a_null = rnd() % 10 == 0;
        r[i].a = (int32_t)(rnd() % 10) - 3;
        r[i].s_null = rnd() % 10 == 0;
        int len = (int)(rnd() % 4);
        for (int k = 0; k < len; k++) r[i].s[k] = (char)('a' + rnd() % 2);
        r[i].f_null = rnd() % 10 == 0;
        r[i].f = rnd() % 3 == 0 ? specials[rnd() % 7] : (double)(int)(rnd() % 7) - 3.0;
        r[i].pos = i;
    }
}

static inline floe_batch *rows_batch(const row *r, int64_t n) {
    floe_schema *sch = rows_schema();
    floe_builder *b[4];
    floe_array *cols[4];
    for (int c = 0; c < 4; c++) assert_ok(floe_builder_new(sch->children[c].type, n, &b[c]));
    for (int64_t i = 0; i < n; i++) {
        assert_ok(r[i].a_null ? floe_builder_append_null(b[0]) : floe_builder_append_int32(b[0], r[i].a));
        assert_ok(r[i].s_null ? floe_builder_append_null(b[1]) : floe_builder_append_string(b[1], r[i].s));
        assert_ok(r[i].f_null ? floe_builder_append_null(b[2]) : floe_builder_append_double(b[2], r[i].f));
        assert_ok(floe_builder_append_int64(b[3], r[i].pos));
    }
    for (int c = 0; c < 4; c++) {
        assert_ok(floe_builder_finish(b[c], &cols[c]));
        floe_builder_free(b[c]);
    }
    floe_batch *out;
    assert_ok(floe_batch_new(sch, cols, 4, n, &out));
    for (int c = 0; c < 4; c++) floe_array_release(cols[c]);
    floe_type_release(sch);
    return out;
}

/* Values over n rows cut into batches of `per` rows, dealt over `parts`. */
static inline floe_plan *rows_plan(const row *r, int64_t n, int64_t per, int32_t parts) {
    int64_t nb = (n + per - 1) / per;
    floe_batch **bs = calloc((size_t)(nb ? nb : 1), sizeof *bs);
    for (int64_t k = 0; k < nb; k++) bs[k] = rows_batch(r + k * per, n - k * per < per ? n - k * per : per);
    floe_schema *sch = rows_schema();
    floe_plan *p;
    assert_ok(floe_plan_values(sch, bs, (int32_t)nb, parts, &p));
    floe_type_release(sch);
    for (int64_t k = 0; k < nb; k++) floe_batch_release(bs[k]);
    free(bs);
    return p;
}

/* The naive reference order. */
typedef struct keyspec {
    int col; /* 0 a, 1 s, 2 f */
    bool desc, nulls_first;
} keyspec;
static const keyspec *cur_keys;
static int cur_nkeys;
/* For merged partitions: ties go to the lower partition first, the
 * partition of a row being (pos / cur_per) % cur_parts (Values dealing). */
static int64_t cur_per;
static int32_t cur_parts;

static inline int cmp_double_ref(double x, double y) {
    bool xn = isnan(x), yn = isnan(y);
    if (xn || yn) return xn && yn ? 0 : xn ? 1 : -1;
    return x < y ? -1 : x > y ? 1 : 0;
}

static inline int ref_cmp(const void *pa, const void *pb) {
    const row *x = pa, *y = pb;
    for (int k = 0; k < cur_nkeys; k++) {
        const keyspec *ks = &cur_keys[k];
        bool xn = ks->col == 0 ? x->a_null : ks->col == 1 ? x->s_null : x->f_null;
        bool yn = ks->col == 0 ? y->a_null : ks->col == 1 ? y->s_null : y->f_null;
        int c;
        if (xn || yn) {
            if (xn && yn) continue;
            return xn ? (ks->nulls_first ? -1 : 1) : (ks->nulls_first ? 1 : -1);
        }
        if (ks->col == 0) c = x->a < y->a ? -1 : x->a > y->a;
        else if (ks->col == 1) c = strcmp(x->s, y->s) < 0 ? -1 : strcmp(x->s, y->s) > 0;
        else c = cmp_double_ref(x->f, y->f);
        if (ks->desc) c = -c;
        if (c) return c;
    }
    if (cur_parts > 1) {
        int64_t px = (x->pos / cur_per) % cur_parts, py = (y->pos / cur_per) % cur_parts;
        if (px != py) return px < py ? -1 : 1;
    }
    return x->pos < y->pos ? -1 : x->pos > y->pos; /* stable */
}

static inline floe_sort_key *make_keys(const keyspec *ks, int n) {
    floe_sort_key *k = calloc((size_t)n, sizeof *k);
    for (int i = 0; i < n; i++) {
        assert_ok(floe_expr_column(ks[i].col, &k[i].expr));
        k[i].descending = ks[i].desc;
        k[i].nulls_first = ks[i].nulls_first;
    }
    return k;
}
static inline void free_keys(floe_sort_key *k, int n) {
    for (int i = 0; i < n; i++) floe_expr_release(k[i].expr);
    free(k);
}

#endif
