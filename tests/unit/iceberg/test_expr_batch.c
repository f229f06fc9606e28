/*
 * test_expr_batch.c — the vectorized filter evaluator agrees with the row
 * evaluator (floe_ice_expr_eval_row) on every row of a real table, for
 * every comparison on every column type, null/NaN tests, sets,
 * starts_with and combinations with and/or/not, with literals drawn from
 * the data itself so that equal, smaller and larger values all occur.
 */
#include "floe_test.h"

#include <string.h>

#include "floe/iceberg_expr.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"
#include "iceberg/expr/expr_batch.h"

static void check_agrees(const floe_ice_expr *bound, const floe_batch *b, const floe_ice_schema *s) {
    int32_t n = b->num_columns;
    int32_t ids[64];
    const floe_array *arrs[64];
    const floe_ice_type *types[64];
    assert_true(n <= 64);
    for (int32_t c = 0; c < n; c++) {
        ids[c] = b->schema->children[c].field_id;
        arrs[c] = b->columns[c];
        types[c] = floe_ice_schema_find_field(s, ids[c])->type;
    }
    floe_ice_batch_columns bc = {n, ids, arrs, types};
    uint8_t *out = floe_malloc((size_t)b->num_rows + 1);
    assert_non_null(out);
    assert_ok(floe_ice_expr_eval_batch(bound, &bc, b->num_rows, out));
    floe_ice_value vals[64];
    for (int64_t i = 0; i < b->num_rows; i++) {
        for (int32_t c = 0; c < n; c++) vals[c] = floe_ice_array_value(arrs[c], types[c], i);
        floe_ice_row row = {n, ids, vals};
        bool want = floe_ice_expr_eval_row(bound, &row);
        if (out[i] != want) {
            char *txt = NULL;
            assert_ok(floe_ice_expr_to_string(bound, &txt));
            fail_msg("row %lld: batch %d, row evaluator %d for %s", (long long)i, out[i], want, txt);
        }
    }
    floe_free(out);
}

static void batch_evaluator_agrees_with_row_evaluator_on_every_type(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/data/iceberg/generated_spec2_0_001/pyspark_iceberg_table", td);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, dir, true, &t));
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, NULL, NULL, 0, NULL, NULL, &p));
    const floe_ice_schema *s = floe_ice_tm_schema(t->md, p->schema_id);
    floe_ice_task_read_options ro = {0};
    ro.table = t;
    ro.schema = s;
    ro.batch_size = 500;
    static const floe_ice_expr_op ops[] = {FLOE_ICE_EXPR_LT, FLOE_ICE_EXPR_LT_EQ, FLOE_ICE_EXPR_GT,
                                           FLOE_ICE_EXPR_GT_EQ, FLOE_ICE_EXPR_EQ, FLOE_ICE_EXPR_NOT_EQ};
    int64_t checked = 0, null_rows = 0;
    for (int32_t g = 0; g < p->n_groups; g++)
    for (int32_t tk = 0; tk < p->groups[g]->n_tasks; tk++) {
    floe_ice_task_reader *r = NULL;
    assert_ok(floe_ice_task_reader_open(&ro, &p->groups[g]->tasks[tk], &r));
    for (;;) {
    floe_batch *b = NULL;
    assert_ok(floe_ice_task_reader_next(r, &b));
    if (!b) break;
    for (int32_t c = 0; c < b->num_columns; c++) null_rows += floe_array_null_count(b->columns[c]);
    for (int32_t c = 0; c < b->num_columns; c++) {
        const floe_field *f = &b->schema->children[c];
        const floe_ice_type *it = floe_ice_schema_find_field(s, f->field_id)->type;
        if (floe_ice_type_is_nested(it)) continue;
        /* Unary tests. */
        floe_ice_expr *u[4] = {floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, f->name),
                               floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NULL, f->name),
                               floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NAN, f->name),
                               floe_ice_expr_unary(FLOE_ICE_EXPR_NOT_NAN, f->name)};
        for (int k = 0; k < 4; k++) {
            floe_ice_expr *bound = NULL;
            floe_status st = floe_ice_expr_bind(u[k], s, true, &bound);
            if (!st) {
                check_agrees(bound, b, s);
                checked++;
            } else floe_status_free(st); /* is_nan on a non-float column */
            floe_ice_expr_free(bound);
            floe_ice_expr_free(u[k]);
        }
        /* Literals from three rows of the column (non-null ones). */
        for (int64_t row = 0; row < b->num_rows; row += b->num_rows / 2 + 1) {
            if (floe_array_is_null(b->columns[c], row)) continue;
            floe_ice_value v = floe_ice_array_value(b->columns[c], it, row);
            if ((v.type == FLOE_ICE_FLOAT && v.v.f32 != v.v.f32) || (v.type == FLOE_ICE_DOUBLE && v.v.f64 != v.v.f64))
                continue; /* NaN literals do not bind */
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                floe_ice_expr *e = floe_ice_expr_literal(ops[o], f->name, &v);
                /* and a negated combination with a null test */
                floe_ice_expr *combo = floe_ice_expr_not(
                    floe_ice_expr_or(floe_ice_expr_copy(e), floe_ice_expr_unary(FLOE_ICE_EXPR_IS_NULL, f->name)));
                floe_ice_expr *bound = NULL, *bcombo = NULL;
                floe_status st = floe_ice_expr_bind(e, s, true, &bound);
                if (!st) st = floe_ice_expr_bind(combo, s, true, &bcombo);
                if (!st) {
                    check_agrees(bound, b, s);
                    check_agrees(bcombo, b, s);
                    checked += 2;
                } else floe_status_free(st); /* e.g. comparisons on boolean */
                floe_ice_expr_free(e);
                floe_ice_expr_free(combo);
                floe_ice_expr_free(bound);
                floe_ice_expr_free(bcombo);
            }
            floe_ice_value set[2] = {v, v};
            floe_ice_expr *in = floe_ice_expr_set(FLOE_ICE_EXPR_NOT_IN, f->name, set, 2);
            floe_ice_expr *bin = NULL;
            floe_status st = floe_ice_expr_bind(in, s, true, &bin);
            if (!st) {
                check_agrees(bin, b, s);
                checked++;
            } else floe_status_free(st);
            floe_ice_expr_free(in);
            floe_ice_expr_free(bin);
        }
    }
    floe_batch_release(b);
    }
    floe_ice_task_reader_close(r);
    }
    assert_true(checked > 100);
    assert_true(null_rows > 0); /* null semantics were exercised */
    floe_ice_scan_plan_free(p);
    floe_ice_table_free(t);
}

FLOE_TEST_MAIN(cmocka_unit_test(batch_evaluator_agrees_with_row_evaluator_on_every_type))
