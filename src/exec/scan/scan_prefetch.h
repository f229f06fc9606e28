/*
 * scan_prefetch.h — ordered, bounded read-ahead over a list of "units"
 * (files, file byte ranges) for the scan nodes.
 *
 * A scan partition reads its units in order.  This overlaps the reads:
 * up to `concurrency` units are open at once, each with up to `read_ahead`
 * batches decoded ahead of the consumer.  The work is cut into pool tasks
 * of one step each — open one unit, or read one batch — and a task
 * re-submits itself only while its unit has room, so no pool worker ever
 * blocks on a full buffer.  The consumer takes batches from the oldest
 * unfinished unit, keeping the order; when that unit has nothing buffered
 * and nobody is working on it, the consumer does the step itself (so a
 * one-thread pool, or a consumer that is itself a pool task, still makes
 * progress); it waits only for a step that is running right now.
 *
 * A unit's error reaches the consumer in order, after the batches of the
 * units before it.  Cancellation is polled on every call to next.
 */
#ifndef FLOE_EXEC_SCAN_PREFETCH_H
#define FLOE_EXEC_SCAN_PREFETCH_H

#include "floe/exec.h"

/* How to read one unit.  The three calls for one unit never run at the
 * same time, but calls for different units do (on pool threads): they
 * must only share thread-safe state. */
typedef struct floe_prefetch_ops {
    /* Open unit `unit`; *state is handed to next and close. */
    floe_status (*open)(void *ctx, int32_t unit, void **state);
    /* The unit's next batch, or *out = NULL at its end. */
    floe_status (*next)(void *ctx, void *state, floe_batch **out);
    /* Free the unit's state (also after an error; state may be NULL). */
    void (*close)(void *ctx, void *state);
} floe_prefetch_ops;

typedef struct floe_prefetch floe_prefetch;

/* Start reading units 0 .. n_units-1 with the pool, cancellation token,
 * scan_concurrency (0: 2) and read_ahead (0: 2) of `ectx`.  `what` names
 * the node in cancellation messages.  `ops` and `ctx` must outlive the
 * reader. */
floe_status floe_prefetch_open(const floe_prefetch_ops *ops, void *ctx, int32_t n_units, const floe_exec_ctx *ectx,
                               const char *what, floe_prefetch **out) FLOE_WARN_UNUSED;
/* The next batch in unit order, or *out = NULL after the last unit.  After
 * an error the reader is spent (later calls fail). */
floe_status floe_prefetch_next(floe_prefetch *p, floe_batch **out) FLOE_WARN_UNUSED;
/* Stop (waiting for steps in flight) and free everything.  NULL-safe. */
void floe_prefetch_close(floe_prefetch *p);

#endif
