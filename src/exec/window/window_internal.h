/*
 * window_internal.h — what the files of the Window node share:
 *   window.c         the node: constructor, result types, codec, EXPLAIN;
 *   window_stream.c  execution: buffer and sort a partition's rows, find
 *                    window partitions, peer groups and frames, compute
 *                    the ranking, offset and value functions;
 *   window_agg.c     window aggregates: a per-aggregate state table
 *                    (init, add, combine, result) and a segment tree over
 *                    the partition, so any frame is O(log n) per row;
 *   window_generic.c the aggregate registry's other entries (stddev,
 *                    string_agg, array_agg, ...) over frames.
 */
#ifndef FLOE_EXEC_WINDOW_INTERNAL_H
#define FLOE_EXEC_WINDOW_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/exec_ops.h"

typedef struct win_plan {
    floe_plan head;
    int32_t n_part;
    floe_expr **part;        /* one reference each                         */
    int32_t n_order;
    floe_sort_key *order;    /* expressions retained                       */
    int32_t n_calls;
    floe_window_call *calls; /* expressions retained, names owned          */
    floe_sort_key *all_keys; /* part (ASC NULLS LAST) ++ order: the sort   */
    floe_type **arg_types;   /* per call: type of args[0] (NULL: none)     */
} win_plan;

/* One range [lo, hi) of rows of the sorted partition. */
typedef struct win_range {
    int64_t lo, hi;
} win_range;

/* Window aggregate over the `n` rows of `arg` (NULL for count(*)), every
 * row r's frame being the union of ranges[r * 3 .. r * 3 + nr[r]).  *out
 * has n slots of the aggregate's result type `type`. */
floe_status floe_win_aggregate(floe_agg_fn fn, const floe_array *arg, const floe_type *type, int64_t n,
                               const win_range *ranges, const uint8_t *nr, floe_array **out) FLOE_WARN_UNUSED;

/* The registry aggregate c->func (agg FLOE_AGG_NAMED) over the frames, as
 * floe_win_aggregate: args are the call's argument columns (c->n_args),
 * filter its FILTER column (NULL: none; rows where it is not true do not
 * count). */
floe_status floe_win_registry_aggregate(const floe_window_call *c, floe_array *const *args, const floe_array *filter,
                                        const floe_type *type, int64_t n, const win_range *ranges, const uint8_t *nr,
                                        floe_array **out) FLOE_WARN_UNUSED;

/* out[i] = src[idx[i]], NULL where idx[i] < 0 (n entries); with `alt`
 * (same type and length as src, may be NULL) indices >= src length pick
 * alt[idx - len]. */
floe_status floe_win_gather(const floe_array *src, const floe_array *alt, const int64_t *idx, int64_t n,
                            floe_array **out) FLOE_WARN_UNUSED;

extern const floe_plan_vtable floe_window_vt;
floe_status floe_win_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                             floe_stream **out) FLOE_WARN_UNUSED;

#endif
