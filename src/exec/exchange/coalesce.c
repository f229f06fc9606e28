/*
 * coalesce.c — CoalescePartitions: every partition of the child merged
 * into one, through an exchange (exchange.h).
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "exec/exchange/exchange.h"


/* The child's partitions are read by an exchange (exec/exchange.h):
 * producer tasks that read one batch at a time and park instead of
 * blocking when the queue is full, and a consumer that reads inputs
 * itself instead of sleeping while any input is free.  So no pool worker
 * ever waits on a full queue, and a CoalescePartitions works on a
 * one-thread pool even when its consumer runs inside a pool task (or under
 * another CoalescePartitions).  The first error fails the stream. */

typedef struct coalesce_stream {
    floe_stream base;
    floe_exchange *x;
} coalesce_stream;

static floe_status coalesce_next(floe_stream *s_, floe_batch **out) {
    return floe_exchange_next(((coalesce_stream *)s_)->x, 0, out);
}

static void coalesce_close(floe_stream *s_) {
    coalesce_stream *s = (coalesce_stream *)s_;
    floe_exchange_detach(s->x, 0);
    floe_exchange_release(s->x);
    floe_free(s);
}

static floe_status coalesce_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                    floe_stream **out) {
    (void)partition;
    coalesce_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a CoalescePartitions stream");
    floe_status st = floe_exchange_create(p->children[0], FLOE_EXCH_MERGE, NULL, 0, 1, ctx, "CoalescePartitions", &s->x);
    if (st) {
        floe_free(s);
        return st;
    }
    (void)floe_exchange_attach(s->x, 0);
    s->base.next = coalesce_next;
    s->base.close = coalesce_close;
    *out = &s->base;
    return NULL;
}

static floe_status coalesce_encode(const floe_plan *p, floe_buf *out) {
    (void)p;
    (void)out;
    return NULL;
}

static floe_status coalesce_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)r;
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "CoalescePartitions with %d children", n_children);
    return floe_plan_coalesce(children[0], out);
}

static floe_status coalesce_explain(const floe_plan *p, floe_buf *out) {
    return floe_buf_printf(out, "inputs=%d", p->children[0]->n_partitions);
}

/* The node is an exchange gathering every child partition into one. */
static floe_child_read coalesce_child_read(const floe_plan *p, int32_t child, floe_distribution *route) {
    (void)p;
    (void)child;
    route->kind = FLOE_DIST_SINGLE;
    return FLOE_READ_EXCHANGE;
}

const floe_plan_vtable floe_coalesce_vt = {
    .name = "CoalescePartitions",
    .execute = coalesce_execute,
    .encode_parts = coalesce_encode,
    .decode_parts = coalesce_decode,
    .explain_parts = coalesce_explain,
    .child_read = coalesce_child_read,
};

floe_status floe_plan_coalesce(floe_plan *child, floe_plan **out) {
    *out = NULL;
    floe_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a CoalescePartitions node");
    floe_status st = floe_exec_plan_init(p, &floe_coalesce_vt, child->schema, 1, &child, 1);
    if (st) { floe_plan_release(p); return st; }
    *out = p;
    return NULL;
}
