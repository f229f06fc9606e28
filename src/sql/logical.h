/*
 * logical.h — the bound logical plan: what the binder makes from a parse
 * tree, what the optimizer rewrites and what the physical planner turns
 * into floe_plan nodes (exec.h, exec_ops.h, exec_scan.h).
 *
 * A logical node is a tree node with an output schema (column names,
 * types, nullability).  Expressions are floe_expr trees (exec.h) over the
 * column indices of the node's INPUT: for a single-input node, the input's
 * output columns; for a JOIN, the left input's columns followed by the
 * right input's.  Nodes are owned by their parent (one owner, no sharing);
 * floe_lplan_free frees a whole tree.
 *
 * Scans carry what the optimizer may push into them:
 *   - ICEBERG: the table (owned), the snapshot, the projected field ids
 *     (top-level) and a pushed Iceberg filter (iceberg_expr.h, unbound, by
 *     column name) used for pruning; rows still pass through the FILTER
 *     above unless the pushdown was exact (see the optimizer).
 *   - PARQUET: a ready ParquetScan physical node (exec_scan.h) over all the
 *     file columns; the optimizer rebuilds it with fewer columns and a
 *     pruning predicate.
 *   - GENERATE_SERIES: start/stop/step.
 *   - PHYSICAL: any ready physical plan (VALUES rows, metadata tables),
 *     used as is.
 */
#ifndef FLOE_SQL_LOGICAL_H
#define FLOE_SQL_LOGICAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/exec.h"
#include "floe/exec_ops.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_table_metadata.h"

typedef enum floe_lkind {
    FLOE_L_ICEBERG_SCAN = 0,
    FLOE_L_PARQUET_SCAN,
    FLOE_L_GENERATE_SERIES,
    FLOE_L_PHYSICAL,   /* `physical` used as is (VALUES, metadata tables)     */
    FLOE_L_FILTER,     /* predicate                                           */
    FLOE_L_PROJECT,    /* exprs/names: one output column each                 */
    FLOE_L_AGGREGATE,  /* exprs/names = group keys; aggs; output: keys, aggs  */
    FLOE_L_JOIN,       /* join_type, left_keys/right_keys (equi), predicate =
                          the rest of the ON condition over left++right, or
                          NULL; no keys: a nested-loop join                  */
    FLOE_L_SORT,       /* sort_keys; fetch >= 0: only the first fetch rows    */
    FLOE_L_LIMIT,      /* offset, fetch (-1: none)                            */
    FLOE_L_UNION,      /* UNION ALL of n inputs with equal column types       */
    FLOE_L_DISTINCT,   /* distinct rows of the input                          */
    FLOE_L_WINDOW,     /* wpart/worder/wcalls: the input's columns then one
                          column per window call (src/sql/bind_window.c)    */
    FLOE_L_EXPAND,     /* GROUPING SETS: the input once per set (gset_* below) */
    FLOE_L_REPLICATE,  /* each input row as often as its last (int64) column
                          says, without it (INTERSECT / EXCEPT ALL)          */
    FLOE_L_DISTINCT_ON, /* first row per run of equal exprs (column refs) of a
                          sorted input: SELECT DISTINCT ON                   */
    FLOE_L_SERIES_APPLY, /* generate_series(exprs[0..2]) per input row: the
                          input's columns ++ the value (named names[0])  */
    FLOE_L_RECURSIVE_UNION, /* WITH RECURSIVE: inputs[0] the non-recursive term,
                          inputs[1] the recursive one, whose CTE_SCANs with
                          cte_worktable read the previous run's rows      */
    FLOE_L_CTE_SCAN,   /* leaf: the rows held under cte_key (a materialized
                          CTE's, or the working table when cte_worktable) */
    FLOE_L_MATERIALIZE_CTE, /* inputs[0] computed once, held under cte_key for
                          the CTE_SCANs in inputs[1]; outputs inputs[1]  */
    FLOE_L_UNNEST,     /* exprs: lists (or maps) over the input: the input's
                          columns ++ each list's element (a map's key, value)
                          ++ [ordinality]; unnest_ordinality / unnest_outer
                          (src/sql/bind_unnest.c, exec's Unnest node)     */
    FLOE_LKIND_COUNT_
} floe_lkind;

typedef struct floe_lplan {
    floe_lkind kind;
    floe_schema *schema;        /* output columns (one reference)             */
    int32_t n_inputs;
    struct floe_lplan **inputs; /* owned                                      */

    /* FILTER; JOIN (non-equi rest of ON, may be NULL) */
    floe_expr *predicate;
    /* PROJECT (outputs); AGGREGATE (group keys) */
    int32_t n_exprs;
    floe_expr **exprs;
    char **names;
    /* AGGREGATE: calls over the input columns; names in aggs[i].name */
    int32_t n_aggs;
    floe_agg_call *aggs;
    /* JOIN */
    floe_join_type join_type;
    int32_t n_keys;
    floe_expr **left_keys;      /* over the left input's columns              */
    floe_expr **right_keys;     /* over the right input's columns             */
    bool null_aware;            /* anti join from NOT IN: NULL keys matter    */
    double est_rows;            /* the join orderer's row estimate; 0 unknown */
    /* SORT */
    int32_t n_sort_keys;
    floe_sort_key *sort_keys;
    /* SORT (fetch) and LIMIT */
    int64_t offset, fetch;

    /* ICEBERG_SCAN */
    floe_ice_table *table;      /* owned (floe_ice_table_free)                */
    char *table_name;           /* for EXPLAIN and errors ("db.t")            */
    floe_ice_snapshot_selector snapshot; /* snapshot.ref owned when set       */
    int32_t n_field_ids;        /* projected top-level field ids, in output order */
    int32_t *field_ids;
    floe_ice_expr *pushed;      /* pruning filter by column name, or NULL     */
    bool pushed_exact;          /* `pushed` is exactly the filter above it    */
    bool only_files_set;        /* read only these data files (a pushed       */
    char **only_files;          /* `_file IN (...)`), owned                   */
    int32_t n_only_files;
    /* GENERATE_SERIES */
    int64_t start, stop, step;
    /* PARQUET_SCAN, PHYSICAL */
    floe_plan *physical;        /* one reference                              */
    /* WINDOW: PARTITION BY and ORDER BY (shared by every call) and the
     * calls, all over the input's columns (owned) */
    int32_t n_wpart;
    floe_expr **wpart;
    int32_t n_worder;
    floe_sort_key *worder;
    int32_t n_wcalls;
    floe_window_call *wcalls;
    /* EXPAND (floe_plan_expand): exprs/names = the pass columns, then the
     * last n_gset_keys are the group keys; output: those ++ a BIGINT id.
     * Set k nulls the keys of gset_masks[k] and has id gset_ids[k]. */
    int32_t n_gset_keys, n_gsets;
    uint64_t *gset_masks;
    int64_t *gset_ids;
    bool gset_empty_rows;       /* partition 0 adds the empty sets' rows      */
    /* JOIN: NULL keys match each other (IS NOT DISTINCT FROM), as a
     * decorrelated subquery's result joins back (bind_decorrelate.c) */
    bool null_equals_null;
    /* RECURSIVE_UNION, CTE_SCAN, MATERIALIZE_CTE (table_name: the CTE's) */
    int64_t cte_key;            /* the statement's id of the held rows       */
    bool cte_distinct;          /* RECURSIVE_UNION: UNION, not UNION ALL     */
    bool cte_worktable;         /* CTE_SCAN of a recursive CTE's working table */
    int64_t cte_max_iterations; /* RECURSIVE_UNION: max_recursion_depth     */
    /* UNNEST: WITH ORDINALITY; a row whose lists are all empty gives one
     * row of NULLs (LEFT JOIN LATERAL ... ON true) */
    bool unnest_ordinality, unnest_outer;
} floe_lplan;

/* A zeroed node of `kind` with the given inputs (ownership passes in) and
 * output schema (retained).  fetch is -1. */
floe_status floe_lplan_new(floe_lkind kind, floe_schema *schema, struct floe_lplan **inputs, int32_t n_inputs,
                           floe_lplan **out) FLOE_WARN_UNUSED;
void floe_lplan_free(floe_lplan *p); /* NULL-safe, frees the subtree */
const char *floe_lkind_name(floe_lkind k);
/* Indented text, one node per line (for tests and debugging). */
floe_status floe_lplan_to_string(const floe_lplan *p, floe_buf *out) FLOE_WARN_UNUSED;

/* Session options the planners read (owned by the session, see session.h). */
typedef struct floe_sql_options {
    int32_t target_partitions;  /* >= 1 */
    int64_t batch_size;         /* > 0  */
    int32_t scan_concurrency;
    int32_t read_ahead;
    int64_t max_recursion_depth; /* runs of a recursive term allowed      */
    int64_t memory_limit;        /* bytes one query may hold (SET memory_limit) */
    /* The shortest retention_threshold Trino's ALTER TABLE ... EXECUTE
     * expire_snapshots / remove_orphan_files accept, in seconds (Trino's
     * iceberg.expire-snapshots.min-retention and
     * iceberg.remove-orphan-files.min-retention: 7 days by default). */
    int64_t expire_snapshots_min_retention_s;
    int64_t remove_orphan_files_min_retention_s;
} floe_sql_options;

/* The optimizer (optimize.c): constant folding, filter pushdown (into
 * Iceberg scans only when no matching row can be dropped), projection
 * pushdown, limit pushdown.  Rewrites *plan in place. */
floe_status floe_sql_optimize(floe_lplan **plan, const floe_sql_options *opts) FLOE_WARN_UNUSED;

/* The physical planner (physical.c): logical → physical with partitioning
 * (scans split into target_partitions, two-phase aggregates over a hash
 * repartition, sorts merged, joins).  The result has one output partition
 * when `single` is set. */
floe_status floe_sql_physical(const floe_lplan *plan, const floe_sql_options *opts, bool single,
                              floe_plan **out) FLOE_WARN_UNUSED;

/* Give every node of a physical plan the input distribution and ordering
 * it requires (floe_plan_required_input / floe_plan_required_ordering of
 * each child): a Coalesce for SINGLE, a hash Repartition on the required
 * expressions into target_partitions partitions for HASH (round robin
 * when HASH lists no expressions), a Sort per partition for an ordering;
 * nodes above a changed child are rebuilt from their parts.  floe_sql_
 * physical runs it last; write plans (plan_write.c) run it on theirs. */
floe_status floe_sql_enforce_requirements(floe_plan *p, int32_t target_partitions,
                                          floe_plan **out) FLOE_WARN_UNUSED;

#endif
