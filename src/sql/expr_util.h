/*
 * expr_util.h — small tools over floe_expr trees that the optimizer and the
 * physical planner share: which columns an expression reads, renumbering
 * columns, splitting and joining conjunctions, and constant folding.
 */
#ifndef FLOE_SQL_EXPR_UTIL_H
#define FLOE_SQL_EXPR_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"

/* Mark used[i] for every column i that `e` reads (used has room for them). */
void floe_sqlx_columns(const floe_expr *e, bool *used);
/* Highest column index `e` reads, or -1 when it reads none. */
int32_t floe_sqlx_max_column(const floe_expr *e);
/* Lowest column index `e` reads, or INT32_MAX when it reads none. */
int32_t floe_sqlx_min_column(const floe_expr *e);

/* A copy of `e` with column i replaced by column map[i] (map[i] >= 0 for
 * every column e reads, else FLOE_ERR_INTERNAL). */
floe_status floe_sqlx_remap(const floe_expr *e, const int32_t *map, floe_expr **out) FLOE_WARN_UNUSED;
/* A copy of `e` with column i shifted by `delta`. */
floe_status floe_sqlx_shift(const floe_expr *e, int32_t delta, floe_expr **out) FLOE_WARN_UNUSED;
/* A copy of `e` with column i replaced by the expression subst[i] (retained). */
floe_status floe_sqlx_substitute(const floe_expr *e, floe_expr *const *subst, int32_t n_subst,
                                 floe_expr **out) FLOE_WARN_UNUSED;
/* Rebuild `e` with new arguments (same kind, op, literal, type, function). */
floe_status floe_sqlx_with_args(const floe_expr *e, floe_expr *const *args, int32_t n_args,
                                floe_expr **out) FLOE_WARN_UNUSED;

/* The AND-ed parts of `e` appended to *parts (each retained). */
floe_status floe_sqlx_conjuncts(floe_expr *e, floe_expr ***parts, int32_t *n, int32_t *cap) FLOE_WARN_UNUSED;
/* AND of parts[0..n) (retained); *out NULL when n == 0. */
floe_status floe_sqlx_and_all(floe_expr *const *parts, int32_t n, floe_expr **out) FLOE_WARN_UNUSED;
void floe_sqlx_free_list(floe_expr **parts, int32_t n);
/* An OR whose branches share conjuncts, with them taken out:
 * (A AND B) OR (A AND C) becomes A AND (B OR C), and (A) OR (A AND C)
 * becomes A — so a join key repeated in every branch (TPC-H Q19) becomes
 * a join key.  Conjuncts match by their codec bytes (exact structure).
 * Anything else comes back as it is (retained). */
floe_status floe_sqlx_factor_or(floe_expr *e, floe_expr **out) FLOE_WARN_UNUSED;

/* Are a and b the same expression, structure, types and literals alike
 * (their codec bytes)? */
bool floe_sqlx_same(const floe_expr *a, const floe_expr *b);
/* The fraction of rows a predicate is guessed to keep, from its shape
 * alone (no column statistics): = 0.1, range 0.4, LIKE 0.25, AND
 * multiplies, OR adds.  For ordering joins and choosing build sides. */
double floe_sqlx_selectivity(const floe_expr *e);
/* Does `e` call a function whose value changes per call (random())
 * anywhere?  Such an expression is never copied into a derived filter, nor
 * substituted for a column into a filter moved below it: either would run
 * it again and see another value. */
bool floe_sqlx_reads_volatile(const floe_expr *e);
/* The filter an OR implies on columns [lo, hi) alone: for
 * (A1 AND B1) OR (A2 AND B2) where A1, A2 read only those columns, the
 * result is A1 OR A2 — true for every row the OR keeps, so it may go below
 * a join while the OR itself stays above (TPC-H Q7's nation pair).  *out
 * is NULL when some branch says nothing about the range, when `e` is no
 * OR, or when it calls a volatile function. */
floe_status floe_sqlx_derive_or(floe_expr *e, int32_t lo, int32_t hi, floe_expr **out) FLOE_WARN_UNUSED;

/* Fold constant sub-expressions (no column reads) of `e` over rows of
 * `schema` into literals.  A constant part whose evaluation fails (1/0) is
 * left as it is: the error then comes when rows are evaluated. */
floe_status floe_sqlx_fold(floe_expr *e, const floe_schema *schema, floe_expr **out) FLOE_WARN_UNUSED;
/* Comparisons of a value-preserving cast with a constant rewritten on the
 * column itself: CAST(date AS timestamp) <= T becomes date <= D (the
 * bound rounded the exact way), CAST(int AS bigint) = 5 becomes int = 5;
 * filters then compare raw column values and scans can prune on them. */
floe_status floe_sqlx_unwrap_casts(floe_expr *e, const floe_schema *schema, floe_expr **out) FLOE_WARN_UNUSED;
/* Is `e` a literal TRUE (a non-null bool literal true)? */
bool floe_sqlx_is_true(const floe_expr *e);
bool floe_sqlx_is_false_or_null(const floe_expr *e);

#endif
