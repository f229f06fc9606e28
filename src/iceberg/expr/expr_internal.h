/*
 * expr_internal.h — helpers shared by the expression modules (expr*.c):
 * predicate node construction, literal comparison with the evaluators'
 * float rules, and one-predicate projection used by both whole-tree
 * projection and the residual evaluator.
 */
#ifndef FLOE_ICEBERG_EXPR_INTERNAL_H
#define FLOE_ICEBERG_EXPR_INTERNAL_H

#include "base/str.h"
#include "floe/iceberg_expr.h"

/* A bare node of `op` with no children or column (NULL if OOM). */
floe_ice_expr *floe_ice__expr_node_new(floe_ice_expr_op op);
/* A predicate node on `column` with copies of n values (NULL if OOM). */
floe_ice_expr *floe_ice__expr_pred_new(floe_ice_expr_op op, const char *column, const floe_ice_value *values,
                                       int32_t n);

/* Is `v` a float/double NaN? */
bool floe_ice__is_nan(const floe_ice_value *v);
/* Order two non-null, non-NaN values of one type; floats compare as IEEE
 * numbers (-0.0 == 0.0), everything else as floe_ice_value_compare. */
int floe_ice__cmp(const floe_ice_value *a, const floe_ice_value *b);

/* Sort values (with floe_ice__cmp) and drop duplicates, freeing them;
 * returns the new count. */
int32_t floe_ice__sort_unique(floe_ice_value *v, int32_t n);

/* Project one bound, NOT-free predicate onto one partition field (whose
 * source is the predicate's field).  *out is NULL when the transform
 * cannot express the predicate (the caller substitutes true or false). */
floe_status floe_ice__project_pred(const floe_ice_expr *pred, const floe_ice_partition_field *pf, bool strict,
                                   floe_ice_expr **out) FLOE_WARN_UNUSED;

#endif
