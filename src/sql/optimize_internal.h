/*
 * optimize_internal.h — shared pieces of the optimizer's files.
 */
#ifndef FLOE_SQL_OPTIMIZE_INTERNAL_H
#define FLOE_SQL_OPTIMIZE_INTERNAL_H

#include "sql/logical.h"

/* A fresh schema holding fields keep[0..n) of `s` (one reference). */
floe_status floe_sqlo_schema_select(const floe_schema *s, const int32_t *keep, int32_t n,
                                    floe_schema **out) FLOE_WARN_UNUSED;
/* The narrowest column of `s` (to read when rows but no values are needed). */
int32_t floe_sqlo_cheapest_column(const floe_schema *s);

/* scan_pushdown.c: translate the conjuncts of every FILTER sitting right on
 * a scan into the scan's pruning filter; conjuncts the Iceberg scan then
 * applies exactly leave the FILTER. */
floe_status floe_sqlo_push_into_scans(floe_lplan **plan) FLOE_WARN_UNUSED;

/* Translate one SQL predicate over a scan's columns into an Iceberg
 * expression that every matching row satisfies (*out NULL when it cannot
 * be translated).  *exact: a row satisfies *out exactly when the SQL
 * predicate is TRUE for it.  `names` are the scan's column names. */
floe_status floe_sqlo_to_iceberg(const floe_expr *e, const floe_schema *scan_schema, floe_ice_expr **out,
                                 bool *exact) FLOE_WARN_UNUSED;

/* optimize.c: the join orderer's row estimate of a logical subtree. */
double floe_sqlo_estimate_rows(const floe_lplan *p);

/* semi_pushdown.c: move semi and anti joins (IN / EXISTS / NOT EXISTS)
 * below the inner joins under them onto the input whose columns they
 * read, when the subquery side is estimated smaller than that input. */
floe_status floe_sqlo_push_semi_joins(floe_lplan **plan) FLOE_WARN_UNUSED;

/* zone_rewrite.c: with a session time zone other than UTC set on this
 * thread (SET TimeZone), zone-dependent casts, date_trunc and date_part
 * of timestamptz become explicit timezone(zone, x) calls. */
floe_status floe_sqlo_apply_session_zone(floe_lplan *plan) FLOE_WARN_UNUSED;

#endif
