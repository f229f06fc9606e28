/*
 * agg_cse.h — common subexpressions of a set of expressions evaluated
 * over the same batches (the group keys and arguments of a HashAggregate,
 * the columns of a Projection).
 *
 * TPC-H Q1 sums l_extendedprice * (1 - l_discount) and, again inside,
 * l_extendedprice * (1 - l_discount) * (1 + l_tax).  floe_cse_build finds
 * every subexpression that occurs more than once, turns each into an extra
 * column evaluated once per batch, and rewrites the expressions to read
 * those columns: here (1 - #2) becomes #7, #1 * #7 becomes #8, and the
 * arguments read #8 and #8 * (1 + #3).
 *
 * Only eager positions are shared: nothing inside a CASE or COALESCE
 * (their branches run only on the rows that take them, so evaluating a
 * branch over every row could raise an error the query would not) nor
 * inside a function call's arguments (a function may choose what to
 * evaluate).  Every shared subexpression was going to be evaluated over
 * every row anyway, so errors and results are exactly those of evaluating
 * the expressions one by one.
 */
#ifndef FLOE_EXEC_AGG_CSE_H
#define FLOE_EXEC_AGG_CSE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"

typedef struct floe_cse {
    int32_t n_in;          /* columns of the input batches */
    int32_t n_shared;      /* extra columns, evaluated in this order */
    floe_expr **shared;    /* shared[j]: over the input and columns n_in .. n_in + j - 1 */
    int32_t *first_user;   /* shared[j]: the first expression that contains it (for errors) */
    floe_schema **schemas; /* schemas[j]: the input's fields and shared columns 0 .. j-1; [n_shared] all */
    int32_t n;
    floe_expr **rewritten; /* per expression given: over schemas[n_shared] */
} floe_cse;

/* Shared subexpressions of exprs[0..n) (entries may be NULL: kept NULL)
 * over rows of `in`.  *out NULL when nothing is shared. */
floe_status floe_cse_build(floe_expr *const *exprs, int32_t n, const floe_schema *in, floe_cse **out) FLOE_WARN_UNUSED;

/* The input batch with the shared columns appended (one reference).  On
 * failure *failed_expr is the first expression (index into the exprs
 * given to floe_cse_build) whose evaluation failed, for the message. */
floe_status floe_cse_extend(const floe_cse *c, floe_batch *b, floe_batch **out, int32_t *failed_expr) FLOE_WARN_UNUSED;

void floe_cse_free(floe_cse *c);

/* Structural equality of two expressions (literals by type and exact
 * bytes: -0.0 is not 0.0 here). */
bool floe_expr_same(const floe_expr *a, const floe_expr *b);

#endif
