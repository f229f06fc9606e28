/*
 * values.c — the Values node: literal batches dealt round-robin over its
 * partitions, sliced to the batch size.  VALUES lists, constant rows and
 * tests build on it.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"


typedef struct values_plan {
    floe_plan head;
    int32_t n_batches;
    floe_batch **batches;
} values_plan;

typedef struct values_stream {
    floe_stream base;
    const values_plan *p;
    const floe_cancel *cancel;
    int64_t batch_size;
    int32_t next_batch; /* index into p->batches */
    int64_t row;        /* rows of that batch already returned */
} values_stream;

static floe_status values_next(floe_stream *s_, floe_batch **out) {
    values_stream *s = (values_stream *)s_;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "Values"));
    int32_t np = s->p->head.n_partitions;
    while (s->next_batch < s->p->n_batches) {
        floe_batch *b = s->p->batches[s->next_batch];
        if (s->row >= b->num_rows) {
            s->next_batch += np;
            s->row = 0;
            continue;
        }
        int64_t len = b->num_rows - s->row;
        if (len > s->batch_size) len = s->batch_size;
        if (s->row == 0 && len == b->num_rows) *out = floe_batch_retain(b);
        else FLOE_TRY(floe_batch_slice(b, s->row, len, out));
        s->row += len;
        return NULL;
    }
    return NULL;
}

static void simple_close(floe_stream *s) { floe_free(s); }

static floe_status values_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                  floe_stream **out) {
    values_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a Values stream");
    s->base.next = values_next;
    s->base.close = simple_close;
    s->p = (const values_plan *)p;
    s->cancel = ctx->cancel;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    s->next_batch = partition;
    *out = &s->base;
    return NULL;
}

static floe_status values_encode(const floe_plan *p_, floe_buf *out) {
    const values_plan *p = (const values_plan *)p_;
    FLOE_TRY(floe_codec_put_type(out, p->head.schema));
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    FLOE_TRY(floe_codec_put_i64(out, p->n_batches));
    for (int32_t i = 0; i < p->n_batches; i++) FLOE_TRY(floe_codec_put_batch(out, p->batches[i]));
    return NULL;
}

static floe_status values_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)children;
    (void)n_children;
    floe_type *schema = NULL;
    int64_t np = 0, nb = 0;
    floe_batch **b = NULL;
    int64_t got = 0;
    floe_status st = floe_codec_get_type(r, &schema);
    if (!st) st = floe_codec_get_i64(r, &np);
    if (!st) st = floe_codec_get_i64(r, &nb);
    if (!st && (nb < 0 || nb > (int64_t)(r->len - r->pos)))
        st = floe_error(FLOE_ERR_CORRUPT, "Values: batch count %lld is impossible", (long long)nb);
    if (!st && (np < 1 || np > INT32_MAX))
        st = floe_error(FLOE_ERR_CORRUPT, "Values: partition count %lld is impossible", (long long)np);
    if (!st && !(b = floe_calloc((size_t)(nb ? nb : 1), sizeof *b)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding Values");
    for (; !st && got < nb; got++) st = floe_codec_get_batch(r, &b[got]);
    if (!st) st = floe_plan_values(schema, b, (int32_t)nb, (int32_t)np, out);
    for (int64_t i = 0; i < got; i++) floe_batch_release(b[i]);
    floe_free(b);
    floe_type_release(schema);
    return st;
}

static floe_status values_explain(const floe_plan *p_, floe_buf *out) {
    const values_plan *p = (const values_plan *)p_;
    int64_t rows = 0;
    for (int32_t i = 0; i < p->n_batches; i++) rows += p->batches[i]->num_rows;
    FLOE_TRY(floe_buf_append_str(out, "schema="));
    FLOE_TRY(floe_type_to_string(p->head.schema, out));
    return floe_buf_printf(out, ", batches=%d, rows=%lld", p->n_batches, (long long)rows);
}

static void values_free(floe_plan *p_) {
    values_plan *p = (values_plan *)p_;
    for (int32_t i = 0; i < p->n_batches; i++) floe_batch_release(p->batches[i]);
    floe_free(p->batches);
}

static double values_estimate_rows(const floe_plan *p_) {
    const values_plan *p = (const values_plan *)p_;
    double n = 0;
    for (int32_t i = 0; i < p->n_batches; i++) n += (double)p->batches[i]->num_rows;
    return n;
}

const floe_plan_vtable floe_values_vt = {
    .name = "Values",
    .execute = values_execute,
    .encode_parts = values_encode,
    .decode_parts = values_decode,
    .explain_parts = values_explain,
    .free_parts = values_free,
    .estimate_rows = values_estimate_rows,
};

bool floe_plan_is_values(const floe_plan *p) { return p->vt == &floe_values_vt; }

floe_status floe_plan_values(floe_schema *schema, floe_batch *const *batches, int32_t n_batches,
                             int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    if (!schema || schema->id != FLOE_TYPE_STRUCT)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Values: the schema must be a struct type");
    if (n_partitions < 1 || n_batches < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Values: %d partitions, %d batches", n_partitions, n_batches);
    for (int32_t i = 0; i < n_batches; i++)
        if (!floe_type_compatible(batches[i]->schema, schema))
            return floe_error(FLOE_ERR_TYPE, "Values: batch %d does not match the schema", i);
    values_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Values node");
    floe_status st = floe_exec_plan_init(&p->head, &floe_values_vt, schema, n_partitions, NULL, 0);
    if (!st && n_batches && !(p->batches = floe_calloc((size_t)n_batches, sizeof *p->batches)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Values node");
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    p->n_batches = n_batches;
    for (int32_t i = 0; i < n_batches; i++) p->batches[i] = floe_batch_retain(batches[i]);
    *out = &p->head;
    return NULL;
}

int32_t floe_values_num_batches(const floe_plan *p) { return ((const values_plan *)p)->n_batches; }
floe_batch *floe_values_batch(const floe_plan *p, int32_t i) { return ((const values_plan *)p)->batches[i]; }
