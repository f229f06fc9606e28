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
    FLOE_AGG_NAMED,          /* any other aggregate: `func` names its entry in the
                                aggregate registry (src/exec/agg/agg_func.h)     */
    FLOE_AGG_FN_COUNT_
} floe_agg_fn;

typedef struct floe_agg_call {
    floe_agg_fn fn;
    bool distinct;       /* count(DISTINCT x) ...: SINGLE mode only            */
    floe_expr *arg;      /* over the input columns; NULL for COUNT_STAR        */
    char *name;          /* output column name                                 */
    /* The registry's view of a call (every function is a registry entry,
     * looked up by name: floe_agg_call_func_name; the plan codec encodes
     * the name):                                                        */
    char *func;          /* FLOE_AGG_NAMED: the entry's name ("stddev", ...);
                            NULL for the fixed functions above             */
    floe_expr *arg2;     /* the second argument (string_agg's delimiter,
                            corr(y, x)'s x, arg_max(x, by)'s by,
                            approx_quantile's fraction); NULL: one argument.
                            The arguments are args[0] = arg, args[1] = arg2 */
    floe_expr *filter;   /* FILTER (WHERE ...) over the input columns; NULL: none */
    int32_t n_order;     /* ORDER BY inside the call (and WITHIN GROUP's key) */
    floe_sort_key *order;
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
/* The registry name of a call's function ("count", "stddev_samp", ...). */
const char *floe_agg_call_func_name(const floe_agg_call *c);
/* Must every row of a group meet in one place (DISTINCT, ORDER BY in the
 * call, or a holistic function such as median): the planner then runs the
 * call SINGLE after a hash repartition instead of PARTIAL → FINAL. */
bool floe_agg_call_needs_single(const floe_agg_call *c);
/* A deep copy of a call (expressions retained, strings and keys copied);
 * clear releases what a call owns and zeroes it. */
floe_status floe_agg_call_copy(const floe_agg_call *src, floe_agg_call *dst) FLOE_WARN_UNUSED;
void floe_agg_call_clear(floe_agg_call *c);
/* Is `name` an aggregate function of the registry? */
bool floe_agg_is_aggregate_name(const char *name);
/* What a binder needs to know of the registry entry `name`: false when
 * there is none. */
typedef struct floe_agg_desc {
    const char *name;       /* the entry's name */
    floe_agg_fn fn;         /* a fixed function, or FLOE_AGG_NAMED */
    int32_t min_args, max_args;
    bool star_ok;           /* f(*) (count) */
    bool within_group;      /* ordered-set: WITHIN GROUP (ORDER BY x) required */
} floe_agg_desc;
bool floe_agg_describe(const char *name, floe_agg_desc *out);

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

/* ------------------------------------------------- WITH: recursion, CTEs */

/* RecursiveUnion ("RecursiveUnion", src/exec/basic/recursive.c): WITH
 * RECURSIVE's `anchor UNION [ALL] recursive`: anchor's rows, then the
 * recursive plan run over the previous run's rows (its WorkTableScan
 * leaves of `key` read them) until a run yields none; `distinct` drops
 * rows output before.  More than max_iterations runs is an error naming
 * the CTE.  One partition; both inputs one partition each. */
floe_status floe_plan_recursive_union(floe_plan *anchor, floe_plan *recursive, const char *name, bool distinct,
                                      int64_t max_iterations, int64_t key, floe_plan **out) FLOE_WARN_UNUSED;
/* CteScan / WorkTableScan (worktable): the rows a MaterializedCTE or
 * RecursiveUnion holds under `key` in the execution; one partition. */
floe_status floe_plan_cte_scan(floe_schema *schema, const char *name, int64_t key, bool worktable,
                               floe_plan **out) FLOE_WARN_UNUSED;
/* MaterializedCTE ("MaterializedCTE", src/exec/basic/cte.c): runs
 * `definition` once per execution and holds its rows under `key` for the
 * CteScans in `main`; outputs main (its partitions and ordering). */
floe_status floe_plan_materialize_cte(floe_plan *definition, floe_plan *main, const char *name, int64_t key,
                                      floe_plan **out) FLOE_WARN_UNUSED;

/* ---------------------------------------------------------------- window */

typedef enum floe_win_fn {
    FLOE_WIN_ROW_NUMBER = 0, /* bigint                                        */
    FLOE_WIN_RANK,           /* bigint: 1 + rows before the peer group         */
    FLOE_WIN_DENSE_RANK,     /* bigint: peer groups up to this one             */
    FLOE_WIN_PERCENT_RANK,   /* double: (rank - 1) / (rows - 1), 0 for one row */
    FLOE_WIN_CUME_DIST,      /* double: rows up to the last peer / rows        */
    FLOE_WIN_NTILE,          /* bigint; args[0] the bucket count (int64)       */
    FLOE_WIN_LAG,            /* args: x [, offset int64 [, default of x's type]] */
    FLOE_WIN_LEAD,
    FLOE_WIN_FIRST_VALUE,    /* args: x; over the frame                        */
    FLOE_WIN_LAST_VALUE,
    FLOE_WIN_NTH_VALUE,      /* args: x, n (int64)                             */
    FLOE_WIN_AGG,            /* `agg` over the frame; args[0] its argument
                                (none for count(*))                           */
    FLOE_WIN_FN_COUNT_
} floe_win_fn;

typedef enum floe_frame_mode { FLOE_FRAME_ROWS = 0, FLOE_FRAME_RANGE, FLOE_FRAME_GROUPS } floe_frame_mode;

typedef enum floe_frame_bound {
    FLOE_BOUND_UNBOUNDED_PRECEDING = 0,
    FLOE_BOUND_PRECEDING,   /* offset PRECEDING */
    FLOE_BOUND_CURRENT_ROW,
    FLOE_BOUND_FOLLOWING,   /* offset FOLLOWING */
    FLOE_BOUND_UNBOUNDED_FOLLOWING
} floe_frame_bound;

typedef enum floe_frame_exclude {
    FLOE_EXCLUDE_NO_OTHERS = 0,
    FLOE_EXCLUDE_CURRENT_ROW,
    FLOE_EXCLUDE_GROUP,     /* the current row and its peers */
    FLOE_EXCLUDE_TIES       /* the current row's peers, not the row itself */
} floe_frame_exclude;

/* A frame as PostgreSQL 15 defines it.  Offsets are expressions without
 * columns (evaluated once per partition; NULL or negative is an error):
 * ROWS / GROUPS offsets int64, RANGE offsets of the one ORDER BY key's
 * type (int64 for integer keys, float64 for floats, the key's decimal
 * type for decimals). */
typedef struct floe_window_frame {
    floe_frame_mode mode;
    floe_frame_bound start, end;
    floe_expr *start_offset, *end_offset; /* NULL unless PRECEDING/FOLLOWING */
    floe_frame_exclude exclude;
} floe_window_frame;

typedef struct floe_window_call {
    floe_win_fn fn;
    floe_agg_fn agg;        /* FLOE_WIN_AGG; DISTINCT is not supported      */
    int32_t n_args;
    floe_expr *args[3];     /* over the input columns                       */
    floe_window_frame frame;
    char *name;             /* output column name                           */
    char *func;             /* agg FLOE_AGG_NAMED: the aggregate registry's
                               entry ("stddev", "string_agg", ...); NULL else */
    floe_expr *filter;      /* FLOE_AGG_NAMED: FILTER (WHERE ...) over the
                               input columns; NULL: none (the fixed
                               aggregates get theirs as CASE in the argument) */
    bool ignore_nulls;      /* lag / lead / first_value / last_value /
                               nth_value IGNORE NULLS: NULL values are
                               skipped as if their rows were not there */
} floe_window_call;

/* Release what a call owns (arguments, frame offsets, filter, names);
 * the struct itself stays. */
void floe_window_call_clear(floe_window_call *c);

/* Window ("Window"): each input partition's rows sorted by (partition
 * keys, order keys); every call computed per window partition (rows with
 * equal partition keys; NULLs are equal) with peers = rows whose order
 * keys tie.  Output: the input columns then one column per call, in the
 * sorted order.  Required input: HASH on the partition keys (none: one
 * partition).  Partitions = the child's. */
floe_status floe_plan_window(floe_plan *child, floe_expr *const *partition, int32_t n_partition,
                             const floe_sort_key *order, int32_t n_order, const floe_window_call *calls,
                             int32_t n_calls, floe_plan **out) FLOE_WARN_UNUSED;
int32_t floe_window_num_partition(const floe_plan *p);
const floe_expr *floe_window_partition(const floe_plan *p, int32_t i);
int32_t floe_window_num_order(const floe_plan *p);
const floe_sort_key *floe_window_order(const floe_plan *p, int32_t i);
int32_t floe_window_num_calls(const floe_plan *p);
const floe_window_call *floe_window_call_at(const floe_plan *p, int32_t i);
/* The result type of a window call over `input` (one reference). */
floe_status floe_window_result_type(const floe_window_call *c, const floe_schema *input,
                                    floe_type **out) FLOE_WARN_UNUSED;
const char *floe_win_fn_name(floe_win_fn fn); /* "row_number", ...; an aggregate's name for FLOE_WIN_AGG */
/* ---------------------------------------------------------------- expand */

/* Expand ("Expand"): GROUPING SETS in one pass.  Each input batch is
 * output once per set k (0 .. n_sets-1) with columns: pass[...] (named
 * pass_names), keys[...] (named key_names; key i is all NULL where bit i
 * of null_masks[k] is set), then id_name = ids[k] (BIGINT, not null).
 * All expressions are over the child's columns; n_keys <= 64.  With
 * empty_set_rows, partition 0 ends with one row per set that nulls every
 * key, NULL in every column but the id (so an empty grouping set has a
 * group even over empty input).  Partitions = the child's. */
floe_status floe_plan_expand(floe_plan *child, floe_expr *const *pass, const char *const *pass_names, int32_t n_pass,
                             floe_expr *const *keys, const char *const *key_names, int32_t n_keys, const char *id_name,
                             const uint64_t *null_masks, const int64_t *ids, int32_t n_sets, bool empty_set_rows,
                             floe_plan **out) FLOE_WARN_UNUSED;
/* ------------------------------------------------------------- replicate */

/* Replicate ("Replicate"): each row of `child` repeated as many times as
 * its last column (an int64; NULL or <= 0: not at all) says, without that
 * column; per partition, rows in their order.  INTERSECT ALL / EXCEPT ALL
 * turn per-row counts back into rows with it. */
floe_status floe_plan_replicate(floe_plan *child, floe_plan **out) FLOE_WARN_UNUSED;

/* ----------------------------------------------------------- distinct on */

/* DistinctOn ("DistinctOn"): of a one-partition child sorted so equal keys
 * are adjacent, the first row of each run of equal values in columns
 * keys[0..n_keys) (NULL equals NULL): SELECT DISTINCT ON over its ORDER BY. */
floe_status floe_plan_distinct_on(floe_plan *child, const int32_t *keys, int32_t n_keys,
                                  floe_plan **out) FLOE_WARN_UNUSED;
/* SeriesApply ("SeriesApply"): each child row repeated once per value of
 * generate_series(start, stop, step) over it (int64 expressions over the
 * child's columns; a NULL argument: no rows, step 0: an error), the value
 * appended as a non-null int64 column named `column`.  Partitions = the
 * child's (src/exec/basic/series_apply.c). */
floe_status floe_plan_series_apply(floe_plan *child, floe_expr *start, floe_expr *stop, floe_expr *step,
                                   const char *column, floe_plan **out) FLOE_WARN_UNUSED;
/* Unnest ("Unnest"): each child row repeated once per element of the
 * longest of lists[0..n_lists) (list or map expressions over the child's
 * columns; NULL or empty: length 0): the child's columns, then per list its
 * element (a map: key, value; NULL once a shorter list has run out), then
 * the 1-based ordinality when `ordinality`; names[0..n_names) name those
 * columns after the child's.  A row whose lists are all empty yields none,
 * or with `outer` one row of NULLs.  Partitions = the child's
 * (src/exec/basic/unnest.c). */
floe_status floe_plan_unnest(floe_plan *child, floe_expr *const *lists, int32_t n_lists, const char *const *names,
                             int32_t n_names, bool ordinality, bool outer, floe_plan **out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
