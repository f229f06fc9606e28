/*
 * exec_metrics.h — per node and partition counters for EXPLAIN ANALYZE.
 *
 * When floe_exec_ctx.metrics is set, every stream a plan opens is wrapped
 * in a counting stream: rows and batches it returned, time spent inside
 * its next() calls (inclusive of its children), and the peak of the memory
 * allocated while inside them that the node itself holds (each node and
 * partition gets its own memory tracker, whose parent is the tracker that
 * was current when the stream was opened).
 *
 * The metrics object must outlive every batch the plan produced (their
 * memory was charged to its trackers): free it after the results.
 */
#ifndef FLOE_EXEC_METRICS_H
#define FLOE_EXEC_METRICS_H

#include <stdint.h>

#include "floe/exec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct floe_exec_metrics floe_exec_metrics;

floe_status floe_exec_metrics_new(floe_exec_metrics **out) FLOE_WARN_UNUSED;
void floe_exec_metrics_free(floe_exec_metrics *m); /* NULL-safe */

/* Counters of one node's partition (zeroes when it never ran). */
typedef struct floe_node_metrics {
    int64_t rows;
    int64_t batches;
    int64_t elapsed_ns;     /* inside next(), children included */
    int64_t peak_bytes;     /* held by the node itself */
    int32_t opened;         /* streams opened (0 or 1 normally) */
    int64_t spill_files;    /* spill files the node wrote (HashAggregate) */
    int64_t spill_bytes;    /* their bytes on disk */
} floe_node_metrics;

void floe_exec_metrics_get(const floe_exec_metrics *m, const floe_plan *node, int32_t partition,
                           floe_node_metrics *out);

/* Add to the spill counters of `node`'s `partition` (m NULL: nothing);
 * EXPLAIN ANALYZE shows them as "spilled=16 files 4.6MiB". */
void floe_exec_metrics_add_spill(floe_exec_metrics *m, const floe_plan *node, int32_t partition, int64_t files,
                                 int64_t bytes);

/* Wrap `inner` (a stream of `node`'s `partition`) in a counting stream.
 * Called by floe_plan_execute; on failure `inner` is closed. */
floe_status floe_exec_metrics_wrap(floe_exec_metrics *m, const floe_plan *node, int32_t partition,
                                   floe_stream *inner, floe_stream **out) FLOE_WARN_UNUSED;

/* EXPLAIN ANALYZE text: the plan (as floe_plan_explain) with, under each
 * node, its totals and one line per partition:
 *   "  metrics: rows=10 batches=1 time=1.20ms peak_mem=12.0KiB"
 *   "    partition 0: rows=... " */
floe_status floe_plan_explain_analyze(const floe_plan *p, const floe_exec_metrics *m,
                                      struct floe_buf *out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
