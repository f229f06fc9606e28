/*
 * exchange.h — moving batches from a child's partitions to a (possibly
 * different) number of output partitions: the engine of
 * CoalescePartitions (n inputs → 1 output) and Repartition (hash or
 * round-robin, n → m).
 *
 * An exchange never blocks a pool worker on a full queue and never
 * deadlocks on a saturated pool (even a one-thread pool with the consumer
 * itself running inside a pool task):
 *
 *  - Producer tasks on the pool read ONE batch at a time from any input
 *    partition nobody else is reading and route it into the output queues.
 *    When an output queue is full a producer parks: it returns from its
 *    task instead of waiting.  Consumers re-submit parked producers when
 *    they drain queues.
 *  - A consumer whose queue is empty does not sleep while some input is
 *    free: it reads and routes a batch itself ("whoever needs data drives
 *    the input").  It waits only while every unfinished input is being
 *    read by another thread that is running right now, so progress never
 *    depends on a queued task getting a worker.
 *
 * Memory stays bounded (a few batches per output) while consumers keep
 * up.  The first error (or cancellation) is recorded and returned by every
 * output; an output never ends early as if it were empty.
 */
#ifndef FLOE_EXEC_EXCHANGE_H
#define FLOE_EXEC_EXCHANGE_H

#include "floe/exec.h"

typedef enum floe_exch_route {
    FLOE_EXCH_MERGE = 0,      /* every batch to output 0 (n_out must be 1) */
    FLOE_EXCH_HASH,           /* rows to floe_hash_rows(keys) % n_out       */
    FLOE_EXCH_ROUND_ROBIN     /* whole batches dealt in turn                */
} floe_exch_route;

typedef struct floe_exchange floe_exchange;

/* Start an exchange over every partition of `child` (borrowed: it must
 * outlive the exchange) into n_out outputs; `keys` (HASH) are borrowed
 * likewise.  Producer tasks go to ctx->pool (NULL: the default pool); the
 * inputs run in ctx->exec, and the exchange's token belongs to it too, so
 * the exchange must be released before that execution ends (or by it).
 * `what` names the node in errors.  The caller holds one reference. */
floe_status floe_exchange_create(const floe_plan *child, floe_exch_route route, floe_expr *const *keys,
                                 int32_t n_keys, int32_t n_out, const floe_exec_ctx *ctx, const char *what,
                                 floe_exchange **out) FLOE_WARN_UNUSED;

/* Output j's next batch (*out NULL at the end).  One consumer per output. */
floe_status floe_exchange_next(floe_exchange *x, int32_t j, floe_batch **out) FLOE_WARN_UNUSED;

/* Claim output j for a consumer: false if it was claimed already (a failed
 * exchange still hands out outputs: their next() returns the failure). */
bool floe_exchange_attach(floe_exchange *x, int32_t j);
/* The consumer of output j is done; when every output is done the
 * exchange shuts down. */
void floe_exchange_detach(floe_exchange *x, int32_t j);

/* Stop producers, wait for running reads to finish, close the inputs and
 * drop queued batches.  Idempotent; later next() calls fail. */
void floe_exchange_shutdown(floe_exchange *x);

floe_exchange *floe_exchange_retain(floe_exchange *x);
/* The last release shuts down and frees. */
void floe_exchange_release(floe_exchange *x);

#endif
