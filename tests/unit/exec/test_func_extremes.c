/*
 * test_func_extremes.c — every scalar function over the edges of its
 * argument types (INT64_MIN/MAX, the first and last date32, timestamps at
 * the ends of their range, infinities and NaN, NULLs) in every argument
 * combination that type-checks: each call either returns a well-formed
 * array or a FLOE_ERR_INVALID_ARGUMENT naming the problem.  Under the
 * sanitizers this proves there is no overflow or out-of-bounds access.
 */
#include <math.h>

#include "exec/func/functions.h"
#include "fn_util.h"

enum { ROWS = 5 };

static floe_array *i64_array(floe_type_id t, const int64_t *v) {
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(t), ROWS, &b));
    for (int i = 0; i < ROWS; i++) {
        if (i == ROWS - 1) assert_ok(floe_builder_append_null(b));
        else if (t == FLOE_TYPE_DATE32 || t == FLOE_TYPE_INT32) assert_ok(floe_builder_append_int32(b, (int32_t)v[i]));
        else if (t == FLOE_TYPE_FLOAT64) assert_ok(floe_builder_append_double(b, ((const double *)v)[i]));
        else assert_ok(floe_builder_append_int64(b, v[i]));
    }
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

static floe_batch *edge_batch(void) {
    static const int64_t i64[] = {INT64_MIN, INT64_MAX, 0, -1};
    static const int64_t i32[] = {INT32_MIN, INT32_MAX, 0, -1};
    double f[] = {INFINITY, -INFINITY, NAN, 1e308};
    const floe_type_id ids[] = {FLOE_TYPE_INT64, FLOE_TYPE_INT32, FLOE_TYPE_DATE32, FLOE_TYPE_TIMESTAMP_US,
                                FLOE_TYPE_TIMESTAMP_NS_TZ, FLOE_TYPE_FLOAT64, FLOE_TYPE_TIME64_US};
    enum { NC = sizeof ids / sizeof ids[0] };
    floe_field fl[NC];
    floe_array *cols[NC];
    floe_schema *s;
    floe_batch *b;
    for (int c = 0; c < NC; c++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", c);
        assert_ok(floe_field_init(&fl[c], name, floe_type_primitive(ids[c]), true, -1));
        const int64_t *v = ids[c] == FLOE_TYPE_FLOAT64 ? (const int64_t *)(const void *)f
                         : ids[c] == FLOE_TYPE_INT32 || ids[c] == FLOE_TYPE_DATE32 ? i32 : i64;
        if (ids[c] == FLOE_TYPE_TIME64_US) {
            static const int64_t t[] = {0, INT64_C(86399999999), 1, 43200000000};
            v = t;
        }
        cols[c] = i64_array(ids[c], v);
    }
    assert_ok(floe_type_struct(fl, NC, &s));
    assert_ok(floe_batch_new(s, cols, NC, ROWS, &b));
    for (int c = 0; c < NC; c++) {
        floe_field_clear(&fl[c]);
        floe_array_release(cols[c]);
    }
    floe_type_release(s);
    return b;
}

/* Candidate arguments: every column and a few constants. */
static floe_expr *candidate(int k) {
    static const char *const texts[] = {"year", "week", "millennium", "microsecond", "epoch", "nanosecond",
                                        "%Y %j %s %G %n %f", "J IYYY FMMonth Day SSSS US", "%%", "a%_\\\\b"};
    if (k < 7) return COL(k);
    k -= 7;
    if (k < 10) return S(texts[k]);
    k -= 10;
    switch (k) {
    case 0: return I(INT64_MAX);
    case 1: return I32(INT32_MIN);
    case 2: return DEC(INT64_MIN, 38, 10);
    default: return NULLOF(FLOE_TYPE_NULL);
    }
}
#define N_CAND (7 + 10 + 4)

static void run_one(const floe_func_def *d, const int *pick, int n, const floe_batch *b, int *ran) {
    floe_expr *args[8], *e;
    floe_type *t = NULL;
    floe_array *a = NULL;
    for (int i = 0; i < n; i++) args[i] = candidate(pick[i]);
    assert_ok(floe_expr_call(d->name, args, n, &e));
    for (int i = 0; i < n; i++) floe_expr_release(args[i]);
    floe_status st = floe_expr_type(e, b->schema, &t);
    if (st) { /* a type error, or an unknown field/unit name */
        if (floe_status_code(st) != FLOE_ERR_TYPE && floe_status_code(st) != FLOE_ERR_INVALID_ARGUMENT)
            fail_msg("%s: unexpected error typing: %s", d->name, floe_status_message(st));
        floe_status_free(st);
    } else {
        st = floe_expr_eval(e, b, &a);
        if (st) {
            if (floe_status_code(st) != FLOE_ERR_INVALID_ARGUMENT)
                fail_msg("%s: unexpected error %s", d->name, floe_status_message(st));
            floe_status_free(st);
        } else {
            assert_int_equal(a->length, ROWS);
            assert_true(floe_type_equals(a->type, t));
            (*ran)++;
        }
    }
    floe_array_release(a);
    floe_type_release(t);
    floe_expr_release(e);
}

static void functions_at_type_edges_never_misbehave(void **state) {
    (void)state;
    const floe_func_def *const fams[] = {floe_string_funcs, floe_numeric_funcs, floe_datetime_funcs};
    floe_batch *b = edge_batch();
    int ran = 0;
    for (int f = 0; f < 3; f++)
        for (const floe_func_def *d = fams[f]; d->name; d++) {
            int max = d->max_args < 0 ? d->min_args + 1 : d->max_args;
            for (int n = d->min_args; n <= max; n++) {
                int pick[8] = {0};
                if (n <= 3) { /* every combination */
                    int total = 1;
                    for (int i = 0; i < n; i++) total *= N_CAND;
                    for (int c = 0; c < total; c++) {
                        for (int i = 0, x = c; i < n; i++, x /= N_CAND) pick[i] = x % N_CAND;
                        run_one(d, pick, n, b, &ran);
                    }
                } else { /* the first argument varies, the rest are int64 edges */
                    for (int c = 0; c < N_CAND; c++) {
                        pick[0] = c;
                        for (int i = 1; i < n; i++) pick[i] = i % 2 ? 0 : 7 + 10;
                        run_one(d, pick, n, b, &ran);
                    }
                }
            }
        }
    assert_true(ran > 1000);
    floe_batch_release(b);
}

FLOE_TEST_MAIN(cmocka_unit_test(functions_at_type_edges_never_misbehave))
