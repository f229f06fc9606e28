/*
 * node_types.c — the list of every plan node type of the engine, so
 * the plan codec can decode any of them by type name in a fresh process
 * (a worker that has never built such a node).
 *
 * Adding a node type: define its vtable as a non-static const in its own
 * file, declare it here with `extern`, and add it to the list (one line
 * each).
 */
#include <stddef.h>

#include "exec/plan_internal.h"

extern const floe_plan_vtable floe_values_vt;
extern const floe_plan_vtable floe_filter_vt;
extern const floe_plan_vtable floe_projection_vt;
extern const floe_plan_vtable floe_limit_vt;
extern const floe_plan_vtable floe_coalesce_vt;
extern const floe_plan_vtable floe_generate_series_vt;
extern const floe_plan_vtable floe_tpch_gen_vt;
extern const floe_plan_vtable floe_parquet_scan_vt;
extern const floe_plan_vtable floe_iceberg_scan_vt;
extern const floe_plan_vtable floe_csv_scan_vt;
extern const floe_plan_vtable floe_json_scan_vt;
extern const floe_plan_vtable floe_sort_vt;

extern const floe_plan_vtable floe_hash_aggregate_vt;
extern const floe_plan_vtable floe_sort_merge_vt;
extern const floe_plan_vtable floe_repartition_vt;
extern const floe_plan_vtable floe_hash_join_vt;
extern const floe_plan_vtable floe_nested_loop_join_vt;
extern const floe_plan_vtable floe_union_vt;
extern const floe_plan_vtable floe_iceberg_write_vt;
extern const floe_plan_vtable floe_iceberg_commit_vt;
extern const floe_plan_vtable floe_window_vt;
extern const floe_plan_vtable floe_expand_vt;
extern const floe_plan_vtable floe_replicate_vt;
extern const floe_plan_vtable floe_distinct_on_vt;
extern const floe_plan_vtable floe_series_apply_vt;
extern const floe_plan_vtable floe_unnest_vt;
extern const floe_plan_vtable floe_recursive_union_vt;
extern const floe_plan_vtable floe_cte_scan_vt;
extern const floe_plan_vtable floe_worktable_scan_vt;
extern const floe_plan_vtable floe_materialized_cte_vt;
const floe_plan_vtable *const floe_exec_node_types[] = {
    &floe_values_vt,
    &floe_filter_vt,
    &floe_projection_vt,
    &floe_limit_vt,
    &floe_coalesce_vt,
    &floe_repartition_vt,
    &floe_hash_aggregate_vt,
    &floe_generate_series_vt,
    &floe_tpch_gen_vt,
    &floe_parquet_scan_vt,
    &floe_iceberg_scan_vt,
    &floe_csv_scan_vt,
    &floe_json_scan_vt,
    &floe_sort_vt,
    &floe_sort_merge_vt,
    &floe_hash_join_vt,
    &floe_nested_loop_join_vt,
    &floe_union_vt,
    &floe_iceberg_write_vt,
    &floe_iceberg_commit_vt,
    &floe_window_vt,
    &floe_expand_vt,
    &floe_replicate_vt,
    &floe_distinct_on_vt,
    &floe_series_apply_vt,
    &floe_unnest_vt,
    &floe_recursive_union_vt,
    &floe_cte_scan_vt,
    &floe_worktable_scan_vt,
    &floe_materialized_cte_vt,
    NULL,
};
