/*
 * expr_fast.h — vectorized shortcuts for common filter shapes (see
 * expr_fast.c); the general evaluator in expr.c defines the semantics.
 */
#ifndef FLOE_EXEC_EXPR_FAST_H
#define FLOE_EXEC_EXPR_FAST_H

#include <stdbool.h>

#include "floe/exec.h"

/* Evaluate `e` with a shortcut when one applies (*done true), else leave
 * it to the caller (*done false, *out NULL). */
floe_status floe_expr_fast_eval(const floe_expr *e, const floe_batch *batch, floe_array **out,
                                bool *done) FLOE_WARN_UNUSED;

/* expr.c: the general AND / OR / NOT / IS [NOT] NULL over evaluated
 * arguments (row at a time, any offsets). */
floe_status floe_expr_logic_general(const floe_expr *e, floe_array *const *args, int64_t n,
                                    floe_array **out) FLOE_WARN_UNUSED;

#endif
