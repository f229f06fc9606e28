/*
 * dist_internal.h — what the files of the dist layer share:
 *
 *   stages.c    splitting a physical plan into stages at its exchanges,
 *               and the MpiExchangeSource leaf that replaces an exchange
 *               inside a stage;
 *   task.c      running one task (a partition of a stage) with its output
 *               routed into buckets of encoded batches; the task codec;
 *               the exchange store; the in-process runner;
 *   exchange.c  streamed exchanges with credits (bounded memory between
 *               pipelined stages), without MPI;
 *   messages.c  the runtime's messages and their encoding (messages.h);
 *   the MPI runtime — launch.c, transport.c, coordinator.c, analyze.c,
 *               paths.c, worker.c, store.c — shares runtime_internal.h.
 *
 * Data between stages travels as "blobs": batches encoded one after
 * another with floe_codec_put_batch (the plan codec's batch form), a few
 * hundred KB to a few MB each.
 */
#ifndef FLOE_DIST_INTERNAL_H
#define FLOE_DIST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/dist.h"
#include "floe/exec.h"

/* ---- blobs and partition data ------------------------------------------- */

/* The data of one partition of an exchange: a list of blobs, shared by
 * reference (the store and every task reading it). */
typedef struct dist_part_data {
    _Atomic int32_t refcount_;
    int64_t n, cap;
    uint8_t **blobs; /* floe_malloc'd each */
    size_t *lens;
    int64_t bytes;
    char *error; /* set: readers get this error after the blobs (a failed query) */
} dist_part_data;

floe_status dist_part_data_new(dist_part_data **out) FLOE_WARN_UNUSED;
dist_part_data *dist_part_data_retain(dist_part_data *d);
void dist_part_data_release(dist_part_data *d);
/* Append a blob; takes ownership of `blob` (freed on failure too). */
floe_status dist_part_data_add(dist_part_data *d, uint8_t *blob, size_t len) FLOE_WARN_UNUSED;

/* ---- routes --------------------------------------------------------------- */

typedef enum dist_route_kind {
    DIST_ROUTE_GATHER = 0, /* every row to bucket 0 (n_out 1): gather, broadcast */
    DIST_ROUTE_HASH,       /* rows to floe_hash_rows(keys) % n_out             */
    DIST_ROUTE_ROUND_ROBIN,/* whole batches dealt in turn                      */
    DIST_ROUTE_IDENTITY    /* task i to bucket i (n_out = the stage's tasks)   */
} dist_route_kind;

typedef struct dist_route {
    dist_route_kind kind;
    int32_t n_out;
    int32_t n_keys;
    floe_expr **keys; /* HASH: owned references */
} dist_route;

void dist_route_clear(dist_route *r);
const char *dist_route_name(dist_route_kind k);

/* ---- stages ---------------------------------------------------------------- */

typedef struct dist_stage {
    int32_t id;          /* also the id of the exchange it feeds */
    floe_plan *plan;     /* exchanges replaced by MpiExchangeSource leaves */
    dist_route route;    /* how its output reaches its consumers (unused: root) */
    int32_t n_deps;
    int32_t *deps;       /* stages whose exchanges this one reads */
    bool broadcast;      /* consumers read all of it in every task */
} dist_stage;

typedef struct dist_stages {
    int32_t n;
    dist_stage *stages;  /* producers before consumers; the last is the root */
} dist_stages;

/* Split `plan` (one output partition) into stages.  FLOE_ERR_UNSUPPORTED
 * when a node type is not known to be partition-local (the caller then
 * runs the plan locally). */
floe_status dist_split_stages(const floe_plan *plan, dist_stages **out) FLOE_WARN_UNUSED;
void dist_stages_free(dist_stages *s);

/* The MpiExchangeSource leaf. */
floe_status dist_exchange_source(floe_schema *schema, int32_t exchange, int32_t n_partitions,
                                 floe_plan **out) FLOE_WARN_UNUSED;
bool dist_is_exchange_source(const floe_plan *p);
int32_t dist_exchange_source_id(const floe_plan *p);
/* Bytes of exchange data the source's streams decoded in ctx's execution
 * (EXPLAIN ANALYZE). */
int64_t dist_exchange_source_bytes_in(const floe_exec_ctx *ctx, const floe_plan *p);
/* Give the source the data of its partition `partition` (retained) in
 * ctx's execution: per-execution state, never a part of the node, so one
 * stage plan may run as many tasks at once. */
floe_status dist_exchange_source_bind(const floe_exec_ctx *ctx, const floe_plan *p, int32_t partition,
                                      dist_part_data *d) FLOE_WARN_UNUSED;
struct dist_inbox;
/* Or give it the inbox its partition streams from (retained). */
floe_status dist_exchange_source_bind_inbox(const floe_exec_ctx *ctx, const floe_plan *p, int32_t partition,
                                            struct dist_inbox *in) FLOE_WARN_UNUSED;

/* Call visit(arg, source, part) for every (exchange source, partition)
 * that partition `partition` of `plan` reads. */
typedef floe_status (*dist_read_visit)(void *arg, const floe_plan *source, int32_t part);
floe_status dist_plan_reads(const floe_plan *plan, int32_t partition, dist_read_visit visit,
                            void *arg) FLOE_WARN_UNUSED;

/* ---- streamed exchanges (exchange.c) ------------------------------------ */

/* Bytes of streamed exchange data this process holds (being encoded,
 * waiting to be sent, queued or being decoded), and the peak since the
 * last reset. */
void dist_xbytes_add(int64_t delta);
int64_t dist_xbytes_now(void);
int64_t dist_xbytes_peak(void);
void dist_xbytes_reset_peak(void);

/* The producer side: credits per destination partition. */
typedef struct dist_outlet dist_outlet;
floe_status dist_outlet_new(int32_t n_out, int32_t window, dist_outlet **out) FLOE_WARN_UNUSED;
void dist_outlet_free(dist_outlet *o);
/* Take one credit for `bucket`, blocking (not spinning) while there is
 * none; FLOE_ERR_CANCELLED when `cancel` is set meanwhile. */
floe_status dist_outlet_acquire(dist_outlet *o, int32_t bucket, const struct floe_cancel *cancel) FLOE_WARN_UNUSED;
void dist_outlet_grant(dist_outlet *o, int32_t bucket, int32_t n);
int64_t dist_outlet_waited_us(dist_outlet *o);

/* The consumer side of one streamed partition (query, exchange, part). */
typedef struct dist_inbox dist_inbox;
/* Give `n` credits back to producer task `producer` of the inbox's exchange. */
typedef void (*dist_credit_fn)(void *arg, dist_inbox *in, int32_t producer, int32_t n);
floe_status dist_inbox_new(int64_t query, int32_t exchange, int32_t part, dist_inbox **out) FLOE_WARN_UNUSED;
dist_inbox *dist_inbox_retain(dist_inbox *in);
void dist_inbox_release(dist_inbox *in);
int64_t dist_inbox_query(const dist_inbox *in);
int32_t dist_inbox_exchange(const dist_inbox *in);
int32_t dist_inbox_part(const dist_inbox *in);
/* A blob from `producer` (taken over; its bytes are already counted in
 * the gauge).  Dropped and credited at once when the consumer has closed. */
void dist_inbox_push(dist_inbox *in, int32_t producer, uint8_t *blob, size_t len);
void dist_inbox_end(dist_inbox *in, int32_t producer);
void dist_inbox_fail(dist_inbox *in, const char *message);
/* The consumer: `n_producers` ENDs end the partition; credits go to fn;
 * ranks[i] (copied; may be NULL) is where producer task i runs. */
floe_status dist_inbox_attach(dist_inbox *in, int32_t n_producers, const int32_t *ranks, dist_credit_fn fn,
                              void *arg) FLOE_WARN_UNUSED;
int32_t dist_inbox_producer_rank(const dist_inbox *in, int32_t producer);
/* Next blob (*blob NULL at the end), blocking while none is queued. */
floe_status dist_inbox_pop(dist_inbox *in, const struct floe_cancel *cancel, uint8_t **blob, size_t *len,
                           int32_t *producer) FLOE_WARN_UNUSED;
/* The consumer is done with a popped blob: free it, credit its producer. */
void dist_inbox_consumed(dist_inbox *in, int32_t producer, uint8_t *blob, size_t len);
/* The consumer is gone: drop and credit everything queued or arriving. */
void dist_inbox_close(dist_inbox *in);
/* A stream over the batches of an inbox (retained); closing it closes the
 * inbox. */
floe_status dist_inbox_stream(dist_inbox *in, const struct floe_cancel *cancel, _Atomic int64_t *bytes_in,
                              floe_stream **out) FLOE_WARN_UNUSED;

/* ---- tasks ----------------------------------------------------------------- */

typedef struct dist_task_stats {
    int64_t rows_out, bytes_out, batches_out;
    int64_t elapsed_us;
} dist_task_stats;

/* Where a task's output goes: emit(arg, bucket, blob, len) takes the blob. */
typedef floe_status (*dist_emit_fn)(void *arg, int32_t bucket, uint8_t *blob, size_t len);

/* Run partition `partition` of a stage plan; route its batches into
 * buckets and hand full blobs (~blob_target bytes; 0: 1 MiB) to emit.
 * `gauge`: the output is streamed — count the bytes being encoded in the
 * exchange gauge and cut large batches so blobs stay near the target. */
floe_status dist_task_run(const floe_plan *plan, int32_t partition, const dist_route *route,
                          const floe_exec_ctx *ctx, int64_t blob_target, bool gauge, dist_emit_fn emit, void *arg,
                          dist_task_stats *stats) FLOE_WARN_UNUSED;

/* A stream over the batches of some partition data (retained); adds the
 * bytes it decodes to *bytes_in (may be NULL). */
floe_status dist_part_stream(dist_part_data *d, const struct floe_cancel *cancel, _Atomic int64_t *bytes_in,
                             floe_stream **out) FLOE_WARN_UNUSED;

/* EXPLAIN ANALYZE across ranks: the nodes of a stage plan in preorder,
 * and per node rows, batches, time (ns), peak bytes and exchange bytes
 * read, as DIST_NODE_FIELDS numbers each (summed over its partitions). */
#define DIST_NODE_FIELDS 5
int32_t dist_plan_count_nodes(const floe_plan *p);
struct floe_exec_metrics;
floe_status dist_node_stats_put(const floe_plan *plan, const struct floe_exec_metrics *m, const floe_exec_ctx *ctx,
                                struct floe_buf *out) FLOE_WARN_UNUSED;
/* The i-th node of `plan` in preorder (NULL past the end) and its depth. */
const floe_plan *dist_plan_node_at(const floe_plan *plan, int32_t i, int32_t *depth);

/* An input a worker fetches itself: partition `part` of the exchange that
 * `source` stands for, held by ranks holders[0..n). */
typedef struct dist_remote_input {
    const floe_plan *source; /* borrowed from the task's plan */
    int32_t exchange, part;
    bool streamed;     /* the producers stream it: holders[i] = rank of producer task i */
    int32_t n_holders;
    int32_t *holders;
} dist_remote_input;

/* An input carried in the task message: partition `part` of `source`. */
typedef struct dist_inline_input {
    const floe_plan *source; /* borrowed from the task's plan */
    int32_t part;
    dist_part_data *data;    /* one reference */
} dist_inline_input;

/* The task message: everything a worker needs.  An input is either inline
 * (its blobs in the message) or remote (the ranks that hold it). */
typedef struct dist_task_msg {
    int64_t query_id, task_id;
    int32_t stage_id, partition;
    int64_t batch_size;
    int32_t scan_concurrency, read_ahead;
    bool keep_output;      /* output stays on the worker for consumers to fetch */
    dist_route route;      /* owned */
    int32_t n_dests;       /* > 0: the output is streamed, bucket b to rank dests[b] */
    int32_t *dests;        /* owned */
    int64_t blob_target;   /* bytes per blob (0: the default) */
    int32_t window;        /* streamed: blobs outstanding per consumer partition */
    bool analyze;          /* collect per node metrics (EXPLAIN ANALYZE) */
    const uint8_t *creds;  /* floe_credentials_export bytes (secrets: never print); encode: borrowed */
    size_t creds_len;
    uint8_t *creds_owned;  /* decode: the copy creds points into */
    floe_plan *plan;       /* decode: the stage plan */
    int32_t n_inline;      /* decode: inputs the message carries, bound when the task runs */
    dist_inline_input *inline_in;
    int32_t n_remote;      /* decode: inputs to fetch before running */
    dist_remote_input *remote;
} dist_task_msg;

/* Bind the inputs the task message carries in ctx's execution. */
floe_status dist_task_bind_inline(const dist_task_msg *t, const floe_exec_ctx *ctx) FLOE_WARN_UNUSED;

/* Which ranks hold each exchange's data on the workers (n_holders[e] == 0:
 * the data is in the coordinator's store and goes inline). */
typedef struct dist_holders {
    int32_t *n_holders;  /* per exchange */
    int32_t **holders;   /* per exchange: ranks */
    bool *streamed;      /* per exchange (may be NULL): holders are the producer tasks' ranks */
} dist_holders;

/* Encode a task of stage `st` partition `partition`, with the inputs it
 * reads taken from store[exchange][part] or, when `holders` says they are
 * on workers, named by their holders. */
floe_status dist_task_encode(const dist_task_msg *t, const floe_plan *plan, dist_part_data **const *store,
                             const dist_holders *holders, struct floe_buf *out) FLOE_WARN_UNUSED;
floe_status dist_task_decode(const uint8_t *data, size_t len, dist_task_msg *out) FLOE_WARN_UNUSED;
void dist_task_msg_clear(dist_task_msg *t);

/* Make readers of `d` fail with `message` once they have read its blobs. */
floe_status dist_part_data_fail(dist_part_data *d, const char *message) FLOE_WARN_UNUSED;

/* The exchange store of one query run: store[stage][bucket]. */
floe_status dist_store_new(const dist_stages *s, dist_part_data ****out) FLOE_WARN_UNUSED;
void dist_store_free(const dist_stages *s, dist_part_data ***store);

/* Bind every exchange source of `plan` for partition `partition` from
 * the store, in ctx's execution. */
floe_status dist_bind_from_store(const floe_exec_ctx *ctx, const floe_plan *plan, int32_t partition,
                                 dist_part_data **const *store) FLOE_WARN_UNUSED;

/* A stream that runs the root stage, its sources bound from the store, and
 * owns the stages and store (frees them at close).  It runs in an
 * execution of its own, ended at close before the stages are freed — or,
 * when `in_ctx` is set, in ctx's execution (EXPLAIN ANALYZE reads node
 * statistics from it after the close: the caller keeps the root plan
 * alive until it ends that execution). */
floe_status dist_root_stream(dist_stages *stages, dist_part_data ***store, const floe_exec_ctx *ctx, bool in_ctx,
                             floe_stream **out) FLOE_WARN_UNUSED;

#endif
