/*
 * expr_batch.h — evaluating a bound Iceberg row filter over whole columns
 * of a batch at once, giving one byte per row (1 = the row matches).
 *
 * Semantics are exactly those of floe_ice_expr_eval_row (iceberg_expr.h):
 * a null or NaN value satisfies none of lt, lt_eq, gt, gt_eq, eq, in and
 * starts_with and so satisfies their negations; NOT means what it means
 * after floe_ice_expr_rewrite_not.  Integer, date, time, timestamp, float
 * and double comparisons and the null/NaN tests run as tight loops over
 * the column; every other predicate falls back to the row evaluator one
 * slot at a time (no allocation per row).
 */
#ifndef FLOE_ICEBERG_EXPR_BATCH_H
#define FLOE_ICEBERG_EXPR_BATCH_H

#include <stdint.h>

#include "floe/columnar.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_types.h"
#include "floe/status.h"

/* The columns a filter reads: field ids, their arrays (each n_rows slots,
 * a top-level column of the batch; NULL = the field is absent, all null)
 * and their Iceberg types. */
typedef struct floe_ice_batch_columns {
    int32_t n;
    const int32_t *field_ids;
    const floe_array *const *arrays;
    const floe_ice_type *const *types;
} floe_ice_batch_columns;

/* Evaluate `bound` (NOT allowed) on rows [0, n_rows): out[i] = 1 or 0. */
floe_status floe_ice_expr_eval_batch(const floe_ice_expr *bound, const floe_ice_batch_columns *cols,
                                     int64_t n_rows, uint8_t *out) FLOE_WARN_UNUSED;

/* The Iceberg value in slot i of a column of Iceberg type `t` (byte values
 * are views of the array). */
floe_ice_value floe_ice_array_value(const floe_array *a, const floe_ice_type *t, int64_t i);

#endif
