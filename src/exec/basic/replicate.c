/*
 * replicate.c — the Replicate node: each row of its child as many times as
 * the row's last column (an int64 count) says, that column dropped.  The
 * set operations INTERSECT ALL and EXCEPT ALL count each distinct row per
 * side with a hash aggregate and compute the copies to keep (min of the
 * counts, or their difference); this node turns the counts back into rows.
 * It works on each partition alone, so it runs in parallel wherever the
 * aggregate below it does.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"

/* Output rows per batch at most (a count can be huge: it is spread over
 * as many batches as it needs). */
#define REPLICATE_BATCH_ROWS 8192

typedef struct replicate_stream {
    floe_stream base;
    const floe_plan *p;
    floe_stream *child;
    const struct floe_cancel *cancel;
    floe_batch *in;     /* the child batch being replicated, or NULL */
    int64_t row;        /* its current row */
    int64_t left;       /* copies of that row still to emit */
    uint32_t *idx;      /* REPLICATE_BATCH_ROWS row indices */
    int32_t *cols;      /* the columns kept: 0 .. n-2 */
} replicate_stream;

static int64_t row_count(const floe_batch *b, int64_t row) {
    const floe_array *c = b->columns[b->num_columns - 1];
    if (floe_array_is_null(c, row)) return 0;
    int64_t n = floe_array_get_int64(c, row);
    return n > 0 ? n : 0;
}

static floe_status replicate_next(floe_stream *s_, floe_batch **out) {
    replicate_stream *s = (replicate_stream *)s_;
    *out = NULL;
    for (;;) {
        FLOE_TRY(floe_cancel_check(s->cancel, "Replicate"));
        if (!s->in) {
            FLOE_TRY(floe_stream_next(s->child, &s->in));
            if (!s->in) return NULL;
            s->row = 0;
            s->left = s->in->num_rows > 0 ? row_count(s->in, 0) : 0;
        }
        int64_t k = 0;
        while (k < REPLICATE_BATCH_ROWS && s->row < s->in->num_rows) {
            if (s->left == 0) {
                if (++s->row < s->in->num_rows) s->left = row_count(s->in, s->row);
                continue;
            }
            int64_t n = s->left < REPLICATE_BATCH_ROWS - k ? s->left : REPLICATE_BATCH_ROWS - k;
            for (int64_t j = 0; j < n; j++) s->idx[k++] = (uint32_t)s->row;
            s->left -= n;
        }
        floe_batch *taken = NULL;
        floe_status st = k > 0 ? floe_batch_take(s->in, s->idx, k, &taken) : NULL;
        if (!st && taken) st = floe_batch_project(taken, s->cols, s->in->num_columns - 1, out);
        floe_batch_release(taken);
        if (s->row >= s->in->num_rows) {
            floe_batch_release(s->in);
            s->in = NULL;
        }
        if (st || *out) return st;
    }
}

static void replicate_close(floe_stream *s_) {
    replicate_stream *s = (replicate_stream *)s_;
    floe_stream_close(s->child);
    floe_batch_release(s->in);
    floe_free(s->idx);
    floe_free(s->cols);
    floe_free(s);
}

static floe_status replicate_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                     floe_stream **out) {
    replicate_stream *s = floe_calloc(1, sizeof *s);
    int32_t n = floe_schema_num_fields(p->children[0]->schema);
    if (s) {
        s->idx = floe_calloc(REPLICATE_BATCH_ROWS, sizeof *s->idx);
        s->cols = floe_calloc((size_t)n, sizeof *s->cols);
    }
    if (!s || !s->idx || !s->cols) {
        if (s) {
            floe_free(s->idx);
            floe_free(s->cols);
        }
        floe_free(s);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a Replicate stream");
    }
    for (int32_t i = 0; i < n; i++) s->cols[i] = i;
    floe_status st = floe_plan_execute(p->children[0], partition, ctx, &s->child);
    if (st) {
        floe_free(s->idx);
        floe_free(s->cols);
        floe_free(s);
        return st;
    }
    s->base.next = replicate_next;
    s->base.close = replicate_close;
    s->p = p;
    s->cancel = ctx->cancel;
    *out = &s->base;
    return NULL;
}

static floe_status replicate_encode(const floe_plan *p, floe_buf *out) {
    (void)p;
    (void)out;
    return NULL; /* nothing but the child */
}

static floe_status replicate_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)r;
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "Replicate with %d children", n_children);
    return floe_plan_replicate(children[0], out);
}

static floe_status replicate_explain(const floe_plan *p, floe_buf *out) {
    const floe_schema *in = p->children[0]->schema;
    return floe_buf_printf(out, "count=#%d", floe_schema_num_fields(in) - 1);
}

const floe_plan_vtable floe_replicate_vt = {
    .name = "Replicate",
    .execute = replicate_execute,
    .encode_parts = replicate_encode,
    .decode_parts = replicate_decode,
    .explain_parts = replicate_explain,
    .child_read = floe_exec_child_read_local,
};

floe_status floe_plan_replicate(floe_plan *child, floe_plan **out) {
    *out = NULL;
    int32_t n = floe_schema_num_fields(child->schema);
    if (n < 2 || floe_schema_field(child->schema, n - 1)->type->id != FLOE_TYPE_INT64)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Replicate: the child's last column must be an int64 count");
    floe_field *f = floe_calloc((size_t)n, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Replicate node");
    floe_status st = NULL;
    int32_t made = 0;
    for (; made < n - 1 && !st; made++) st = floe_field_copy(&f[made], floe_schema_field(child->schema, made));
    floe_schema *schema = NULL;
    if (!st) st = floe_type_struct(f, n - 1, &schema);
    for (int32_t i = 0; i < made; i++) floe_field_clear(&f[i]);
    floe_free(f);
    if (st) return st;
    floe_plan *p = floe_calloc(1, sizeof *p);
    if (!p) {
        floe_type_release(schema);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Replicate node");
    }
    st = floe_exec_plan_init(p, &floe_replicate_vt, schema, child->n_partitions, &child, 1);
    floe_type_release(schema);
    if (st) {
        floe_plan_release(p);
        return st;
    }
    *out = p;
    return NULL;
}
