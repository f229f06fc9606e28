/*
 * filter_sel.h — reading a Filter's output as (batch, selection) pairs
 * instead of copied batches.
 *
 * A Filter normally copies the rows that pass into a new batch
 * (floe_batch_take).  When most rows pass, a consumer that can work on a
 * selection of rows (HashAggregate) saves that copy: it asks for the
 * filter's input batch together with the indices of the rows that passed.
 * When few rows pass the copy is cheaper than carrying the dead rows
 * through every later step, so the filter still compacts and returns no
 * selection.  Defined in plan.c beside the Filter.
 */
#ifndef FLOE_EXEC_FILTER_SEL_H
#define FLOE_EXEC_FILTER_SEL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"

/* True if `s` is a Filter node's own stream (not wrapped, e.g. by EXPLAIN
 * ANALYZE metrics), so floe_filter_next_sel may be called on it. */
bool floe_filter_stream_selects(const floe_stream *s);

/* The next non-empty result of Filter stream `s` (*out NULL at the end).
 * *sel NULL: every row of *out is selected; else *sel (floe_malloc'd, the
 * caller frees it) lists the *n_sel selected rows of *out in increasing
 * order.  Rows not in *sel did not pass the predicate and must be
 * ignored.  Their values may make no sense: an expression evaluated over
 * every row of *out may fail on a row that is not selected (overflow,
 * division by zero), which is no error of the query — on failure redo the
 * work on the selected rows alone (floe_batch_take). */
floe_status floe_filter_next_sel(floe_stream *s, floe_batch **out, uint32_t **sel, int64_t *n_sel) FLOE_WARN_UNUSED;

#endif
