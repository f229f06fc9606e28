/*
 * exec_tpch.h — the TpchGen leaf node: the rows of one TPC-H table
 * (specification v3.0.1, clause 4.2) at a scale factor, generated on the
 * fly and split into partitions by contiguous key ranges.
 *
 * The parts are the table name, the scale factor and the partition count.
 * Each row's values depend only on its key (see src/exec/tpch_text.h), so
 * any partition can be generated alone and the table is the same whatever
 * the partition count; partitions concatenated in order give the table in
 * key order.  SQL reaches it as the table function tpch_gen('lineitem', 1)
 * and `floe tpch generate` writes all eight tables with it.
 *
 * Columns are named as in the spec (l_orderkey, ...); keys are bigint,
 * counts and sizes int, money and quantities decimal(15,2), dates date,
 * everything else string; no column is nullable.
 */
#ifndef FLOE_EXEC_TPCH_H
#define FLOE_EXEC_TPCH_H

#include <stdint.h>

#include "floe/exec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The eight table names in the order `floe tpch generate` writes them
 * (small tables first), NULL-terminated. */
extern const char *const floe_tpch_tables[];

/* Rows of `table` at scale factor `sf`: exact for every table but
 * lineitem, whose count (1..7 lines per order) is known only once
 * generated; for it the expected count, 4 per order.  -1 for an unknown
 * table. */
int64_t floe_tpch_table_rows(const char *table, double sf);

/* A TpchGen node.  `table` is one of floe_tpch_tables (case-insensitive;
 * an unknown name is FLOE_ERR_NOT_FOUND with a "did you mean"); `sf` in
 * (0, 100000]; n_partitions >= 1. */
floe_status floe_plan_tpch_gen(const char *table, double sf, int32_t n_partitions,
                               floe_plan **out) FLOE_WARN_UNUSED;
const char *floe_tpch_gen_table(const floe_plan *p); /* lowercase name */
double floe_tpch_gen_scale(const floe_plan *p);


#ifdef __cplusplus
}
#endif
#endif
