/*
 * exec_ops.h — the relational operators of the physical plan: sort and
 * top-N, sort-preserving merge, hash aggregate (single, partial, final),
 * repartition (hash, round-robin), hash join, nested-loop join and union.
 *
 * Every node follows the contract of exec.h: built only by its
 * constructor from parts, parts readable through accessors, encoded by
 * the plan codec by type name.  Expressions are over the child's columns
 * (a join's filter: the left child's columns followed by the right's).
 */
#ifndef FLOE_EXEC_OPS_H
#define FLOE_EXEC_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- sort */

/* Sort ("Sort"): each partition of the child sorted by `keys` (stable;
 * NULLs placed per key).  fetch >= 0 keeps only the first `fetch` rows of
 * each partition (top-N, bounded memory).  Output ordering = keys;
 * partitions = the child's. */
floe_status floe_plan_sort(floe_plan *child, const floe_sort_key *keys, int32_t n_keys, int64_t fetch,
                           floe_plan **out) FLOE_WARN_UNUSED;

/* SortPreservingMerge ("SortPreservingMerge"): the child's partitions,
 * each already sorted by `keys`, merged into ONE partition sorted by keys;
 * fetch >= 0 stops after `fetch` rows. */
floe_status floe_plan_sort_merge(floe_plan *child, const floe_sort_key *keys, int32_t n_keys, int64_t fetch,
                                 floe_plan **out) FLOE_WARN_UNUSED;

/* Accessors for both Sort and SortPreservingMerge. */
int32_t floe_sort_num_keys(const floe_plan *p);
const floe_sort_key *floe_sort_key_at(const floe_plan *p, int32_t i);
int64_t floe_sort_fetch(const floe_plan *p);

/* ------------------------------------------------------------ aggregate */

typedef enum floe_agg_fn {
    FLOE_AGG_COUNT_STAR = 0, /* count(*): arg NULL                              */
    FLOE_AGG_COUNT,          /* count(x): non-NULL values                       */
    FLOE_AGG_SUM,            /* ints → int64 (overflow is an error), decimal(p,s)
                                → decimal(38,s), floats → float64; NULL if none */
    FLOE_AGG_MIN,
    FLOE_AGG_MAX,
    FLOE_AGG_AVG,            /* ints, floats, decimals → float64               */
    FLOE_AGG_BOOL_AND,
    FLOE_AGG_BOOL_OR,
    FLOE_AGG_FN_COUNT_
} floe_agg_fn;

typedef struct floe_agg_call {
    floe_agg_fn fn;
    bool distinct;       /* count(DISTINCT x) ...: SINGLE mode only            */
    floe_expr *arg;      /* over the input columns; NULL for COUNT_STAR        */
    char *name;          /* output column name                                 */
} floe_agg_call;

typedef enum floe_agg_mode {
    FLOE_AGG_MODE_SINGLE = 0, /* input rows → final values                      */
    FLOE_AGG_MODE_PARTIAL,    /* input rows → group keys + intermediate states  */
    FLOE_AGG_MODE_FINAL       /* PARTIAL's output → final values                */
} floe_agg_mode;

/* HashAggregate ("HashAggregate").  Output: the group columns (named
 * group_names[i]) then one column per call (named calls[i].name).
 *   SINGLE/PARTIAL: group_exprs and calls are over the child's columns.
 *   FINAL: the child is (a repartition of) a PARTIAL node built with the
 *   same group_exprs and calls; `input_schema` is the PARTIAL node's INPUT
 *   schema (so the FINAL node can derive the state layout); group key i is
 *   column i of the child.
 * With no group keys, the output is exactly one row (count 0, others NULL
 * on empty input) — in SINGLE/FINAL mode the child must have one
 * partition.  Partitions = the child's.  Required input: FINAL (and SINGLE
 * with group keys) — HASH on the group keys, which the planner provides by
 * a Repartition (or a single partition). */
floe_status floe_plan_hash_aggregate(floe_plan *child, floe_agg_mode mode, floe_expr *const *group_exprs,
                                     const char *const *group_names, int32_t n_groups,
                                     const floe_agg_call *calls, int32_t n_calls,
                                     const floe_schema *input_schema, floe_plan **out) FLOE_WARN_UNUSED;
floe_agg_mode floe_hash_aggregate_mode(const floe_plan *p);
int32_t floe_hash_aggregate_num_groups(const floe_plan *p);
const floe_expr *floe_hash_aggregate_group(const floe_plan *p, int32_t i);
const char *floe_hash_aggregate_group_name(const floe_plan *p, int32_t i);
int32_t floe_hash_aggregate_num_calls(const floe_plan *p);
const floe_agg_call *floe_hash_aggregate_call(const floe_plan *p, int32_t i);
const floe_schema *floe_hash_aggregate_input_schema(const floe_plan *p); /* FINAL; else NULL */
/* The result type of a call over `input` (one reference). */
floe_status floe_agg_result_type(const floe_agg_call *c, const floe_schema *input,
                                 floe_type **out) FLOE_WARN_UNUSED;
const char *floe_agg_fn_name(floe_agg_fn fn); /* "count", "sum", ... */

/* ----------------------------------------------------------- repartition */

typedef enum floe_repartition_kind {
    FLOE_REPARTITION_HASH = 0,    /* row to partition hash(keys) % n            */
    FLOE_REPARTITION_ROUND_ROBIN  /* batches dealt in turn                      */
} floe_repartition_kind;

/* Repartition ("Repartition"): the child's rows redistributed over
 * `n_partitions` partitions.  The hash is deterministic across processes
 * and runs (no seed), equal keys of equal type always go to the same
 * partition, NULL keys hash to a fixed value.  Execution never blocks a
 * pool worker on a full queue and never deadlocks on a saturated pool. */
floe_status floe_plan_repartition(floe_plan *child, floe_repartition_kind kind, floe_expr *const *keys,
                                  int32_t n_keys, int32_t n_partitions, floe_plan **out) FLOE_WARN_UNUSED;
floe_repartition_kind floe_repartition_kind_of(const floe_plan *p);
int32_t floe_repartition_num_keys(const floe_plan *p);
const floe_expr *floe_repartition_key(const floe_plan *p, int32_t i);

/* Hash `n_cols` key columns of `n_rows` rows into `hashes` (the
 * Repartition and join hash; deterministic, NULL → fixed value). */
floe_status floe_hash_rows(floe_array *const *cols, int32_t n_cols, int64_t n_rows,
                           uint64_t *hashes) FLOE_WARN_UNUSED;

/* ----------------------------------------------------------------- joins */

typedef enum floe_join_type {
    FLOE_JOIN_INNER = 0,
    FLOE_JOIN_LEFT,        /* all left rows; right columns NULL when no match  */
    FLOE_JOIN_RIGHT,
    FLOE_JOIN_FULL,
    FLOE_JOIN_LEFT_SEMI,   /* left rows with a match; left columns only         */
    FLOE_JOIN_LEFT_ANTI,   /* left rows without a match; left columns only      */
    FLOE_JOIN_RIGHT_SEMI,  /* right rows with a match; right columns only       */
    FLOE_JOIN_RIGHT_ANTI,  /* right rows without a match; right columns only    */
    FLOE_JOIN_TYPE_COUNT_
} floe_join_type;

typedef enum floe_join_mode {
    FLOE_JOIN_COLLECT_LEFT = 0, /* the left (build) child's partitions are all
                                   read into one hash table shared by every
                                   partition of the right (probe) child;
                                   partitions = the right child's            */
    FLOE_JOIN_PARTITIONED       /* both children hash-partitioned on their keys
                                   into the same number of partitions        */
} floe_join_mode;

/* HashJoin ("HashJoin"): equi-join on left_keys[i] = right_keys[i] (key
 * expressions over each side's own columns, pairwise of comparable type),
 * then `filter` (over left ++ right columns, may be NULL) must be TRUE.
 * NULL keys never match unless null_equals_null.  null_aware (LEFT_ANTI /
 * RIGHT_ANTI from NOT IN, one key): a NULL key on the build side makes the
 * output empty, and a probe row with a NULL key is not output when the
 * build side is not empty.  Output: left columns then right columns
 * (SEMI/ANTI: one side's only), nullable where the join type pads. */
floe_status floe_plan_hash_join(floe_plan *left, floe_plan *right, floe_join_type type, floe_join_mode mode,
                                floe_expr *const *left_keys, floe_expr *const *right_keys, int32_t n_keys,
                                floe_expr *filter, bool null_equals_null, bool null_aware,
                                floe_plan **out) FLOE_WARN_UNUSED;
floe_join_type floe_hash_join_type(const floe_plan *p);
floe_join_mode floe_hash_join_mode(const floe_plan *p);
int32_t floe_hash_join_num_keys(const floe_plan *p);
const floe_expr *floe_hash_join_left_key(const floe_plan *p, int32_t i);
const floe_expr *floe_hash_join_right_key(const floe_plan *p, int32_t i);
const floe_expr *floe_hash_join_filter(const floe_plan *p); /* may be NULL */
bool floe_hash_join_null_equals_null(const floe_plan *p);
bool floe_hash_join_null_aware(const floe_plan *p);
const char *floe_join_type_name(floe_join_type t); /* "Inner", "Left", ... */

/* NestedLoopJoin ("NestedLoopJoin"): every left row (collected, shared)
 * against every right row, kept where `filter` (over left ++ right, NULL
 * = true: a cross join) is TRUE; join types as above.  Partitions = the
 * right child's. */
floe_status floe_plan_nested_loop_join(floe_plan *left, floe_plan *right, floe_join_type type,
                                       floe_expr *filter, floe_plan **out) FLOE_WARN_UNUSED;
floe_join_type floe_nested_loop_join_type(const floe_plan *p);
const floe_expr *floe_nested_loop_join_filter(const floe_plan *p);

/* The output schema of a join of `left` and `right` schemas (one
 * reference): nullability as the join type pads. */
floe_status floe_join_output_schema(const floe_schema *left, const floe_schema *right, floe_join_type type,
                                    floe_schema **out) FLOE_WARN_UNUSED;

/* ----------------------------------------------------------------- union */

/* Union ("Union"): the children's partitions one after another (child 0's
 * partitions first); every child has the same column types (names from
 * child 0; a column is nullable if it is in any child). */
floe_status floe_plan_union(floe_plan *const *children, int32_t n_children, floe_plan **out) FLOE_WARN_UNUSED;

/* SeriesApply ("SeriesApply"): each child row repeated once per value of
 * generate_series(start, stop, step) over it (int64 expressions over the
 * child's columns; a NULL argument: no rows, step 0: an error), the value
 * appended as a non-null int64 column named `column`.  Partitions = the
 * child's (src/exec/basic/series_apply.c). */
floe_status floe_plan_series_apply(floe_plan *child, floe_expr *start, floe_expr *stop, floe_expr *step,
                                   const char *column, floe_plan **out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
