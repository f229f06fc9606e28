/*
 * distinct_on.c — the DistinctOn node (SELECT DISTINCT ON (...)): of rows
 * that arrive sorted so that equal keys are adjacent, the first row of
 * each run of equal key columns (NULL equal to NULL).  The binder puts it
 * over a sort by the query's ORDER BY (whose leftmost expressions are the
 * DISTINCT ON ones), so "first" is the first in ORDER BY order.  The sort
 * below runs in parallel and merges; this node reads its one partition.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/exchange/row_hash.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"

typedef struct distinct_on_plan {
    floe_plan head;
    int32_t n_keys;
    int32_t *keys; /* key column indices */
} distinct_on_plan;

typedef struct distinct_on_stream {
    floe_stream base;
    const distinct_on_plan *p;
    floe_stream *child;
    const struct floe_cancel *cancel;
    floe_batch *prev;   /* the batch holding the last row seen, or NULL */
    int64_t prev_row;
    floe_array **a, **b; /* key columns of two batches (scratch) */
} distinct_on_stream;

static floe_status distinct_on_next(floe_stream *s_, floe_batch **out) {
    distinct_on_stream *s = (distinct_on_stream *)s_;
    const distinct_on_plan *p = s->p;
    *out = NULL;
    for (;;) {
        floe_batch *b;
        FLOE_TRY(floe_cancel_check(s->cancel, "DistinctOn"));
        FLOE_TRY(floe_stream_next(s->child, &b));
        if (!b) return NULL;
        if (b->num_rows == 0) {
            floe_batch_release(b);
            continue;
        }
        uint32_t *sel = floe_malloc((size_t)b->num_rows * sizeof *sel);
        if (!sel) {
            floe_batch_release(b);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "DistinctOn: out of memory");
        }
        for (int32_t k = 0; k < p->n_keys; k++) s->b[k] = b->columns[p->keys[k]];
        int64_t n = 0;
        for (int64_t r = 0; r < b->num_rows; r++) {
            bool same;
            if (r > 0) same = floe_rows_equal(s->b, r - 1, s->b, r, p->n_keys, true);
            else if (s->prev) {
                for (int32_t k = 0; k < p->n_keys; k++) s->a[k] = s->prev->columns[p->keys[k]];
                same = floe_rows_equal(s->a, s->prev_row, s->b, 0, p->n_keys, true);
            } else same = false;
            if (!same) sel[n++] = (uint32_t)r;
        }
        floe_batch_release(s->prev);
        s->prev = floe_batch_retain(b);
        s->prev_row = b->num_rows - 1;
        floe_status st = NULL;
        if (n == b->num_rows) *out = floe_batch_retain(b);
        else if (n > 0) st = floe_batch_take(b, sel, n, out);
        floe_free(sel);
        floe_batch_release(b);
        if (st || *out) return st;
    }
}

static void distinct_on_close(floe_stream *s_) {
    distinct_on_stream *s = (distinct_on_stream *)s_;
    floe_stream_close(s->child);
    floe_batch_release(s->prev);
    floe_free(s->a);
    floe_free(s->b);
    floe_free(s);
}

static floe_status distinct_on_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                                       floe_stream **out) {
    const distinct_on_plan *p = (const distinct_on_plan *)p_;
    distinct_on_stream *s = floe_calloc(1, sizeof *s);
    if (s) {
        s->a = floe_calloc((size_t)p->n_keys, sizeof *s->a);
        s->b = floe_calloc((size_t)p->n_keys, sizeof *s->b);
    }
    floe_status st = (!s || !s->a || !s->b) ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a DistinctOn stream")
                                             : floe_plan_execute(p_->children[0], partition, ctx, &s->child);
    if (st) {
        if (s) {
            floe_free(s->a);
            floe_free(s->b);
        }
        floe_free(s);
        return st;
    }
    s->base.next = distinct_on_next;
    s->base.close = distinct_on_close;
    s->p = p;
    s->cancel = ctx->cancel;
    *out = &s->base;
    return NULL;
}

static floe_status distinct_on_encode(const floe_plan *p_, floe_buf *out) {
    const distinct_on_plan *p = (const distinct_on_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->n_keys));
    for (int32_t k = 0; k < p->n_keys; k++) FLOE_TRY(floe_codec_put_i64(out, p->keys[k]));
    return NULL;
}

static floe_status distinct_on_decode(floe_reader *r, floe_plan *const *children, int32_t n_children,
                                      floe_plan **out) {
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "DistinctOn with %d children", n_children);
    int64_t n;
    FLOE_TRY(floe_codec_get_i64(r, &n));
    if (n < 1 || n > floe_schema_num_fields(children[0]->schema))
        return floe_error(FLOE_ERR_CORRUPT, "DistinctOn with %lld keys", (long long)n);
    int32_t *keys = floe_calloc((size_t)n, sizeof *keys);
    if (!keys) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding a DistinctOn node");
    floe_status st = NULL;
    for (int64_t k = 0; k < n && !st; k++) {
        int64_t v;
        st = floe_codec_get_i64(r, &v);
        if (!st && (v < 0 || v >= floe_schema_num_fields(children[0]->schema)))
            st = floe_error(FLOE_ERR_CORRUPT, "DistinctOn key column %lld", (long long)v);
        if (!st) keys[k] = (int32_t)v;
    }
    if (!st) st = floe_plan_distinct_on(children[0], keys, (int32_t)n, out);
    floe_free(keys);
    return st;
}

static floe_status distinct_on_explain(const floe_plan *p_, floe_buf *out) {
    const distinct_on_plan *p = (const distinct_on_plan *)p_;
    FLOE_TRY(floe_buf_append_str(out, "on=["));
    for (int32_t k = 0; k < p->n_keys; k++) FLOE_TRY(floe_buf_printf(out, "%s#%d", k ? ", " : "", (int)p->keys[k]));
    return floe_buf_append_str(out, "]");
}

static void distinct_on_free(floe_plan *p) { floe_free(((distinct_on_plan *)p)->keys); }

const floe_plan_vtable floe_distinct_on_vt = {
    .name = "DistinctOn",
    .execute = distinct_on_execute,
    .encode_parts = distinct_on_encode,
    .decode_parts = distinct_on_decode,
    .explain_parts = distinct_on_explain,
    .free_parts = distinct_on_free,
    .child_read = floe_exec_child_read_local,
};

floe_status floe_plan_distinct_on(floe_plan *child, const int32_t *keys, int32_t n_keys, floe_plan **out) {
    *out = NULL;
    if (child->n_partitions != 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "DistinctOn needs its sorted input on one partition, not %d",
                          (int)child->n_partitions);
    if (n_keys < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "DistinctOn without keys");
    for (int32_t k = 0; k < n_keys; k++) {
        if (keys[k] < 0 || keys[k] >= floe_schema_num_fields(child->schema))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "DistinctOn key column %d out of range", (int)keys[k]);
        if (!floe_hash_type_supported(floe_schema_field(child->schema, keys[k])->type))
            return floe_error(FLOE_ERR_UNSUPPORTED, "DISTINCT ON a %s column is not supported",
                              floe_type_id_name(floe_schema_field(child->schema, keys[k])->type->id));
    }
    distinct_on_plan *p = floe_calloc(1, sizeof *p);
    if (p) p->keys = floe_calloc((size_t)n_keys, sizeof *p->keys);
    if (!p || !p->keys) {
        if (p) floe_free(p->keys);
        floe_free(p);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a DistinctOn node");
    }
    memcpy(p->keys, keys, (size_t)n_keys * sizeof *keys);
    p->n_keys = n_keys;
    floe_status st = floe_exec_plan_init(&p->head, &floe_distinct_on_vt, child->schema, 1, &child, 1);
    if (!st) st = floe_exec_plan_set_ordering(&p->head, child->ordering, child->n_ordering); /* rows keep their order */
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}
