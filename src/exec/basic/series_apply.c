/*
 * series_apply.c — the SeriesApply node: generate_series per input row,
 * what a table function call reading columns to its left in FROM binds to
 * (`FROM t, generate_series(t.a, t.b) g(x)`, implicitly LATERAL as in
 * PostgreSQL).  Each input row is repeated once per value of
 * generate_series(start, stop, step) evaluated over it, with the value as
 * one more int64 column; a NULL argument yields no rows, a zero step is
 * PostgreSQL's error.  Each partition expands its child's partition on
 * its own (no state shared between partitions, nothing written to the
 * node after it is built), output batches of at most batch_size rows
 * however long a row's series is.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"

typedef __int128 i128;

typedef struct apply_plan {
    floe_plan head;
    floe_expr *args[3]; /* start, stop, step: int64 over the child's columns */
    char *column;
} apply_plan;

typedef struct apply_stream {
    floe_stream base;
    const apply_plan *p;
    floe_stream *child;
    const struct floe_cancel *cancel;
    int64_t batch_size;
    floe_batch *cur;      /* the input batch being expanded */
    floe_array *v[3];     /* its start, stop, step */
    int64_t row;          /* next row of cur */
    i128 k;               /* next value index of that row's series */
} apply_stream;

static i128 series_len(int64_t start, int64_t stop, int64_t step) {
    if (step > 0 && stop < start) return 0;
    if (step < 0 && stop > start) return 0;
    return ((i128)stop - (i128)start) / (i128)step + 1;
}

static void drop_batch(apply_stream *s) {
    floe_batch_release(s->cur);
    s->cur = NULL;
    for (int i = 0; i < 3; i++) {
        floe_array_release(s->v[i]);
        s->v[i] = NULL;
    }
}

static floe_status apply_next(floe_stream *s_, floe_batch **out) {
    apply_stream *s = (apply_stream *)s_;
    *out = NULL;
    for (;;) {
        FLOE_TRY(floe_cancel_check(s->cancel, "SeriesApply"));
        if (!s->cur) {
            floe_batch *b = NULL;
            FLOE_TRY(floe_stream_next(s->child, &b));
            if (!b) return NULL;
            s->cur = b;
            s->row = 0;
            s->k = 0;
            for (int i = 0; i < 3; i++) FLOE_TRY(floe_expr_eval(s->p->args[i], b, &s->v[i]));
        }
        int64_t cap = s->batch_size, n = 0;
        uint32_t *idx = floe_malloc((size_t)cap * sizeof *idx);
        floe_builder *bld = NULL;
        int64_t *vals = NULL;
        floe_status st = idx ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "SeriesApply: out of memory");
        if (!st) st = floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), cap, &bld);
        if (!st) st = floe_builder_extend_values(bld, cap, (void **)&vals);
        while (!st && s->row < s->cur->num_rows && n < cap) {
            int64_t r = s->row;
            if (floe_array_is_null(s->v[0], r) || floe_array_is_null(s->v[1], r) || floe_array_is_null(s->v[2], r)) {
                s->row++;
                continue;
            }
            int64_t a = floe_array_get_int64(s->v[0], r), b = floe_array_get_int64(s->v[1], r);
            int64_t step = floe_array_get_int64(s->v[2], r);
            if (step == 0) {
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "step size cannot equal zero");
                break;
            }
            i128 len = series_len(a, b, step);
            if (s->k >= len) {
                s->row++;
                s->k = 0;
                continue;
            }
            i128 m = len - s->k;
            if (m > cap - n) m = cap - n;
            for (i128 j = 0; j < m; j++) {
                idx[n] = (uint32_t)r;
                vals[n] = (int64_t)((i128)a + (s->k + j) * (i128)step);
                n++;
            }
            s->k += m;
        }
        floe_array *col = NULL;
        floe_batch *taken = NULL;
        if (!st) st = floe_builder_finish(bld, &col);
        floe_builder_free(bld);
        if (!st && n > 0) {
            floe_array *c2 = NULL;
            st = floe_array_slice(col, 0, n, &c2);
            floe_array_release(col);
            col = c2;
        }
        if (!st && n > 0) st = floe_batch_take(s->cur, idx, n, &taken);
        floe_free(idx);
        if (!st && n > 0) {
            int32_t nc = taken->num_columns;
            floe_array **cols = floe_calloc((size_t)nc + 1, sizeof *cols);
            if (!cols) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "SeriesApply: out of memory");
            for (int32_t i = 0; !st && i < nc; i++) cols[i] = floe_batch_column(taken, i);
            if (!st) {
                cols[nc] = col;
                st = floe_batch_new(s->p->head.schema, cols, nc + 1, n, out);
            }
            floe_free(cols);
        }
        floe_batch_release(taken);
        floe_array_release(col);
        if (!st && s->row >= s->cur->num_rows) drop_batch(s);
        if (st || *out) return st;
    }
}

static void apply_close(floe_stream *s_) {
    apply_stream *s = (apply_stream *)s_;
    drop_batch(s);
    floe_stream_close(s->child);
    floe_free(s);
}

static floe_status apply_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const apply_plan *p = (const apply_plan *)p_;
    apply_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a SeriesApply stream");
    floe_status st = floe_plan_execute(p->head.children[0], partition, ctx, &s->child);
    if (st) {
        floe_free(s);
        return st;
    }
    s->base.next = apply_next;
    s->base.close = apply_close;
    s->p = p;
    s->cancel = ctx->cancel;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    *out = &s->base;
    return NULL;
}

static floe_status apply_encode(const floe_plan *p_, floe_buf *out) {
    const apply_plan *p = (const apply_plan *)p_;
    for (int i = 0; i < 3; i++) FLOE_TRY(floe_codec_put_expr(out, p->args[i]));
    return floe_codec_put_str(out, p->column);
}

static floe_status apply_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "SeriesApply with %d children", n_children);
    floe_expr *a[3] = {NULL, NULL, NULL};
    char *col = NULL;
    floe_status st = NULL;
    for (int i = 0; i < 3 && !st; i++) st = floe_codec_get_expr(r, &a[i]);
    if (!st) st = floe_codec_get_str(r, &col);
    if (!st) st = floe_plan_series_apply(children[0], a[0], a[1], a[2], col, out);
    for (int i = 0; i < 3; i++) floe_expr_release(a[i]);
    floe_free(col);
    return st;
}

static floe_status apply_explain(const floe_plan *p_, floe_buf *out) {
    const apply_plan *p = (const apply_plan *)p_;
    FLOE_TRY(floe_buf_append_str(out, "generate_series("));
    for (int i = 0; i < 3; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(p->args[i], out));
    }
    FLOE_TRY(floe_buf_append_str(out, ") AS "));
    return floe_buf_append_str(out, p->column);
}

static void apply_free(floe_plan *p_) {
    apply_plan *p = (apply_plan *)p_;
    for (int i = 0; i < 3; i++) floe_expr_release(p->args[i]);
    floe_free(p->column);
}

const floe_plan_vtable floe_series_apply_vt = {
    .name = "SeriesApply",
    .execute = apply_execute,
    .encode_parts = apply_encode,
    .decode_parts = apply_decode,
    .explain_parts = apply_explain,
    .free_parts = apply_free,
    .child_read = floe_exec_child_read_local,
};

floe_status floe_plan_series_apply(floe_plan *child, floe_expr *start, floe_expr *stop, floe_expr *step,
                                   const char *column, floe_plan **out) {
    *out = NULL;
    floe_expr *args[3] = {start, stop, step};
    for (int i = 0; i < 3; i++) {
        floe_type *t = NULL;
        FLOE_TRY_CTX(floe_expr_type(args[i], child->schema, &t), "SeriesApply argument");
        bool ok = t->id == FLOE_TYPE_INT64 || t->id == FLOE_TYPE_NULL;
        floe_type_release(t);
        if (!ok) return floe_error(FLOE_ERR_TYPE, "SeriesApply arguments must be int64");
    }
    if (!column || !*column) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "SeriesApply: empty column name");
    apply_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a SeriesApply node");
    int32_t nc = floe_schema_num_fields(child->schema);
    floe_field *f = floe_calloc((size_t)nc + 1, sizeof *f);
    floe_schema *schema = NULL;
    floe_status st = f ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a SeriesApply node");
    for (int32_t i = 0; i < nc && !st; i++) {
        const floe_field *in = floe_schema_field(child->schema, i);
        st = floe_field_init(&f[i], in->name, in->type, in->nullable, in->field_id);
    }
    if (!st) st = floe_field_init(&f[nc], column, floe_type_primitive(FLOE_TYPE_INT64), false, -1);
    if (!st) st = floe_type_struct(f, nc + 1, &schema);
    for (int32_t i = 0; f && i <= nc; i++) floe_field_clear(&f[i]);
    floe_free(f);
    for (int i = 0; i < 3; i++) p->args[i] = floe_expr_retain(args[i]);
    p->column = floe_strdup(column);
    floe_status init = floe_exec_plan_init(&p->head, &floe_series_apply_vt, schema, child->n_partitions, &child, 1);
    if (!st) st = init;
    else floe_status_free(init);
    if (!st && !p->column) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a SeriesApply node");
    floe_type_release(schema);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}
