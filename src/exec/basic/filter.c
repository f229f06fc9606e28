/*
 * filter.c — the Filter node: the rows of its child where a BOOL
 * predicate is TRUE.  Its stream can also hand a consumer (HashAggregate)
 * the input batch and the selected rows instead of a copy (filter_sel.h).
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/basic/child_stream.h"
#include "exec/plan_internal.h"
#include "exec/basic/filter_sel.h"


typedef struct filter_plan {
    floe_plan head;
    floe_expr *predicate;
} filter_plan;

/* The next batch with at least one row passing, and its selection (see
 * filter_sel.h).  keep_sel: hand the selection out instead of copying
 * when at least 3/4 of the rows pass (below that, carrying the dead rows
 * through the consumer costs more than the copy). */
static floe_status filter_pull(floe_child_stream *s, bool keep_sel, floe_batch **out, uint32_t **sel_out, int64_t *n_sel) {
    const filter_plan *p = (const filter_plan *)s->p;
    *out = NULL;
    *sel_out = NULL;
    *n_sel = 0;
    for (;;) {
        floe_batch *b;
        FLOE_TRY(floe_cancel_check(s->cancel, "Filter"));
        FLOE_TRY(floe_stream_next(s->child, &b));
        if (!b) return NULL;
        uint32_t *sel;
        int64_t k;
        floe_status st = floe_expr_select(p->predicate, b, &sel, &k);
        if (!st && k == b->num_rows) {
            *out = floe_batch_retain(b);
        } else if (!st && k > 0 && keep_sel && k * 4 >= b->num_rows * 3) {
            *out = floe_batch_retain(b);
            *sel_out = sel;
            *n_sel = k;
            sel = NULL;
        } else if (!st && k > 0) {
            st = floe_batch_take(b, sel, k, out);
        }
        floe_free(sel);
        floe_batch_release(b);
        if (st || *out) return st;
    }
}

static floe_status filter_next(floe_stream *s_, floe_batch **out) {
    uint32_t *sel;
    int64_t k;
    return filter_pull((floe_child_stream *)s_, false, out, &sel, &k);
}

bool floe_filter_stream_selects(const floe_stream *s) { return s && s->next == filter_next; }

floe_status floe_filter_next_sel(floe_stream *s, floe_batch **out, uint32_t **sel, int64_t *n_sel) {
    if (!floe_filter_stream_selects(s)) {
        *sel = NULL;
        *n_sel = 0;
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_filter_next_sel on a stream that is not a Filter's");
    }
    FLOE_TRY(filter_pull((floe_child_stream *)s, true, out, sel, n_sel));
    if (*out && !*sel) *n_sel = (*out)->num_rows;
    return NULL;
}

static floe_status filter_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                  floe_stream **out) {
    floe_child_stream *s;
    FLOE_TRY(floe_exec_open_child_stream(p, partition, ctx, filter_next, &s));
    *out = &s->base;
    return NULL;
}

static floe_status filter_encode(const floe_plan *p, floe_buf *out) {
    return floe_codec_put_expr(out, ((const filter_plan *)p)->predicate);
}

static floe_status filter_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    floe_expr *e;
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "Filter with %d children", n_children);
    FLOE_TRY(floe_codec_get_expr(r, &e));
    floe_status st = floe_plan_filter(children[0], e, out);
    floe_expr_release(e);
    return st;
}

static floe_status filter_explain(const floe_plan *p, floe_buf *out) {
    FLOE_TRY(floe_buf_append_str(out, "predicate="));
    return floe_expr_to_string(((const filter_plan *)p)->predicate, out);
}

static void filter_free(floe_plan *p) { floe_expr_release(((filter_plan *)p)->predicate); }

const floe_plan_vtable floe_filter_vt = {
    .name = "Filter",
    .execute = filter_execute,
    .encode_parts = filter_encode,
    .decode_parts = filter_decode,
    .explain_parts = filter_explain,
    .free_parts = filter_free,
    .child_read = floe_exec_child_read_local,
};

floe_status floe_plan_filter(floe_plan *child, floe_expr *predicate, floe_plan **out) {
    floe_type *t;
    *out = NULL;
    FLOE_TRY_CTX(floe_expr_type(predicate, child->schema, &t), "Filter predicate");
    bool ok = t->id == FLOE_TYPE_BOOL || t->id == FLOE_TYPE_NULL;
    floe_type_id tid = t->id;
    floe_type_release(t);
    if (!ok) return floe_error(FLOE_ERR_TYPE, "Filter predicate must be bool, not %s", floe_type_id_name(tid));
    filter_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Filter node");
    p->predicate = floe_expr_retain(predicate);
    floe_status st = floe_exec_plan_init(&p->head, &floe_filter_vt, child->schema, child->n_partitions, &child, 1);
    if (!st) st = floe_exec_plan_set_ordering(&p->head, child->ordering, child->n_ordering); /* rows keep their order */
    if (st) { floe_plan_release(&p->head); return st; }
    *out = &p->head;
    return NULL;
}

const floe_expr *floe_filter_predicate(const floe_plan *p) { return ((const filter_plan *)p)->predicate; }
