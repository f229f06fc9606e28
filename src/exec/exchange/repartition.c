/*
 * repartition.c — Repartition: the child's rows redistributed over N
 * output partitions, by key hash (floe_hash_rows % N: deterministic, so
 * equal keys meet in one partition on any node) or by dealing whole
 * batches round-robin.
 *
 * The output partitions of one execution share one exchange
 * (exec/exchange.h) that reads every child partition once.  The exchange
 * is the node's per-execution state (floe_execution): made by the first
 * output opened in an execution, with that caller's pool and token, and
 * shut down when every output has been closed or, at the latest, when
 * the execution ends (a consumer that never opened some output, say after
 * an error).  Outputs of one execution may be opened one after another (a
 * one-thread pool runs them in turn; batches for the later ones wait in
 * memory); an output opened twice in one execution is an error.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/exchange/exchange.h"
#include "exec/plan_internal.h"
#include "exec/exchange/row_hash.h"
#include "floe/exec_ops.h"

typedef struct repart_plan {
    floe_plan head;
    floe_repartition_kind kind;
    int32_t n_keys;
    floe_expr **keys;
} repart_plan;

typedef struct repart_stream {
    floe_stream base;
    floe_exchange *x;
    int32_t j;
    const floe_cancel *cancel;
} repart_stream;

static floe_status repart_next(floe_stream *s_, floe_batch **out) {
    repart_stream *s = (repart_stream *)s_;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "Repartition"));
    return floe_exchange_next(s->x, s->j, out);
}

static void repart_close(floe_stream *s_) {
    repart_stream *s = (repart_stream *)s_;
    floe_exchange_detach(s->x, s->j);
    floe_exchange_release(s->x);
    floe_free(s);
}

/* The execution's exchange (its state). */
static floe_status repart_init_shared(const floe_plan *p_, const floe_exec_ctx *ctx, void **state) {
    const repart_plan *p = (const repart_plan *)p_;
    floe_exchange *x = NULL;
    FLOE_TRY(floe_exchange_create(p->head.children[0],
                                  p->kind == FLOE_REPARTITION_HASH ? FLOE_EXCH_HASH : FLOE_EXCH_ROUND_ROBIN, p->keys,
                                  p->n_keys, p->head.n_partitions, ctx, "Repartition", &x));
    *state = x;
    return NULL;
}

static void repart_free_shared(void *state) { floe_exchange_release(state); }

static floe_status repart_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    void *state;
    FLOE_TRY(floe_exec_shared(p, ctx, &state));
    floe_exchange *x = state;
    if (!floe_exchange_attach(x, partition))
        return floe_error(FLOE_ERR_INTERNAL, "Repartition: output %d opened twice in one execution", partition);
    repart_stream *s = floe_calloc(1, sizeof *s);
    if (!s) {
        floe_exchange_detach(x, partition);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a Repartition stream");
    }
    s->base.next = repart_next;
    s->base.close = repart_close;
    s->x = floe_exchange_retain(x);
    s->j = partition;
    s->cancel = ctx->cancel;
    *out = &s->base;
    return NULL;
}

static floe_status repart_encode(const floe_plan *p_, floe_buf *out) {
    const repart_plan *p = (const repart_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->kind));
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    FLOE_TRY(floe_codec_put_i64(out, p->n_keys));
    for (int32_t i = 0; i < p->n_keys; i++) FLOE_TRY(floe_codec_put_expr(out, p->keys[i]));
    return NULL;
}

static floe_status repart_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "Repartition with %d children", n_children);
    int64_t kind = 0, np = 0, nk = 0, got = 0;
    floe_expr **keys = NULL;
    floe_status st = floe_codec_get_i64(r, &kind);
    if (!st) st = floe_codec_get_i64(r, &np);
    if (!st) st = floe_codec_get_i64(r, &nk);
    if (!st && (kind < 0 || kind > FLOE_REPARTITION_ROUND_ROBIN || np < 1 || np > INT32_MAX || nk < 0 ||
                nk > (int64_t)(r->len - r->pos)))
        st = floe_error(FLOE_ERR_CORRUPT, "Repartition: kind %lld, %lld partitions, %lld keys", (long long)kind,
                        (long long)np, (long long)nk);
    if (!st && !(keys = floe_calloc((size_t)nk + 1, sizeof *keys))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding Repartition");
    for (; !st && got < nk; got++) st = floe_codec_get_expr(r, &keys[got]);
    if (!st) st = floe_plan_repartition(children[0], (floe_repartition_kind)kind, keys, (int32_t)nk, (int32_t)np, out);
    for (int64_t i = 0; i < got; i++) floe_expr_release(keys[i]);
    floe_free(keys);
    return st;
}

static floe_status repart_explain(const floe_plan *p_, floe_buf *out) {
    const repart_plan *p = (const repart_plan *)p_;
    if (p->kind == FLOE_REPARTITION_ROUND_ROBIN) return floe_buf_printf(out, "RoundRobin(%d)", p->head.n_partitions);
    FLOE_TRY(floe_buf_append_str(out, "Hash(["));
    for (int32_t i = 0; i < p->n_keys; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(p->keys[i], out));
    }
    return floe_buf_printf(out, "], %d)", p->head.n_partitions);
}

static void repart_free(floe_plan *p_) {
    repart_plan *p = (repart_plan *)p_;
    for (int32_t i = 0; i < p->n_keys; i++) floe_expr_release(p->keys[i]);
    floe_free(p->keys);
}

/* The node is an exchange: its partitions together read the child once. */
static floe_child_read repart_child_read(const floe_plan *p_, int32_t child, floe_distribution *route) {
    (void)child;
    const repart_plan *p = (const repart_plan *)p_;
    if (p->kind == FLOE_REPARTITION_HASH) {
        route->kind = FLOE_DIST_HASH;
        route->n_exprs = p->n_keys;
        route->exprs = p->keys;
    }
    return FLOE_READ_EXCHANGE;
}

const floe_plan_vtable floe_repartition_vt = {
    .name = "Repartition",
    .execute = repart_execute,
    .encode_parts = repart_encode,
    .decode_parts = repart_decode,
    .explain_parts = repart_explain,
    .free_parts = repart_free,
    .init_shared = repart_init_shared,
    .free_shared = repart_free_shared,
    .child_read = repart_child_read,
};

floe_status floe_plan_repartition(floe_plan *child, floe_repartition_kind kind, floe_expr *const *keys,
                                  int32_t n_keys, int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    if (n_partitions < 1 || n_keys < 0 || (kind != FLOE_REPARTITION_HASH && kind != FLOE_REPARTITION_ROUND_ROBIN))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Repartition: kind %d, %d partitions, %d keys", (int)kind,
                          n_partitions, n_keys);
    if (kind == FLOE_REPARTITION_HASH && n_keys == 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Repartition: hash partitioning needs at least one key");
    if (kind == FLOE_REPARTITION_ROUND_ROBIN && n_keys != 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Repartition: round-robin takes no keys");
    for (int32_t i = 0; i < n_keys; i++) {
        floe_type *t;
        FLOE_TRY_CTX(floe_expr_type(keys[i], child->schema, &t), "Repartition key %d", i);
        bool ok = floe_hash_type_supported(t);
        floe_type_id id = t->id;
        floe_type_release(t);
        if (!ok) return floe_error(FLOE_ERR_UNSUPPORTED, "Repartition: cannot hash key %d of type %s", i, floe_type_id_name(id));
    }
    repart_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Repartition node");
    p->kind = kind;
    floe_status st = floe_exec_plan_init(&p->head, &floe_repartition_vt, child->schema, n_partitions, &child, 1);
    if (!st && n_keys && !(p->keys = floe_calloc((size_t)n_keys, sizeof *p->keys)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Repartition node");
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    p->n_keys = n_keys;
    for (int32_t i = 0; i < n_keys; i++) p->keys[i] = floe_expr_retain(keys[i]);
    *out = &p->head;
    return NULL;
}

floe_repartition_kind floe_repartition_kind_of(const floe_plan *p) { return ((const repart_plan *)p)->kind; }
int32_t floe_repartition_num_keys(const floe_plan *p) { return ((const repart_plan *)p)->n_keys; }
const floe_expr *floe_repartition_key(const floe_plan *p, int32_t i) { return ((const repart_plan *)p)->keys[i]; }
