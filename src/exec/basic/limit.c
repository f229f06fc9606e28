/*
 * limit.c — the Limit node: skip `offset` rows, then pass at most `fetch`,
 * in each partition on its own (a global limit sits over one partition).
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/basic/child_stream.h"
#include "exec/plan_internal.h"

typedef struct limit_plan {
    floe_plan head;
    int64_t offset, fetch;
} limit_plan;

static floe_status limit_next(floe_stream *s_, floe_batch **out) {
    floe_child_stream *s = (floe_child_stream *)s_;
    *out = NULL;
    while (s->left != 0) {
        floe_batch *b;
        FLOE_TRY(floe_cancel_check(s->cancel, "Limit"));
        FLOE_TRY(floe_stream_next(s->child, &b));
        if (!b) return NULL;
        int64_t start = s->skip < b->num_rows ? s->skip : b->num_rows;
        s->skip -= start;
        int64_t len = b->num_rows - start;
        if (s->left >= 0 && len > s->left) len = s->left;
        floe_status st = NULL;
        if (len > 0) {
            if (start == 0 && len == b->num_rows) *out = floe_batch_retain(b);
            else st = floe_batch_slice(b, start, len, out);
            if (s->left > 0) s->left -= len;
        }
        floe_batch_release(b);
        if (st || *out) return st;
    }
    return NULL;
}

static floe_status limit_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                 floe_stream **out) {
    const limit_plan *l = (const limit_plan *)p;
    floe_child_stream *s;
    FLOE_TRY(floe_exec_open_child_stream(p, partition, ctx, limit_next, &s));
    s->skip = l->offset;
    s->left = l->fetch;
    *out = &s->base;
    return NULL;
}

static floe_status limit_encode(const floe_plan *p, floe_buf *out) {
    FLOE_TRY(floe_codec_put_i64(out, ((const limit_plan *)p)->offset));
    return floe_codec_put_i64(out, ((const limit_plan *)p)->fetch);
}

static floe_status limit_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    int64_t off, fetch;
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "Limit with %d children", n_children);
    FLOE_TRY(floe_codec_get_i64(r, &off));
    FLOE_TRY(floe_codec_get_i64(r, &fetch));
    return floe_plan_limit(children[0], off, fetch, out);
}

static floe_status limit_explain(const floe_plan *p, floe_buf *out) {
    return floe_buf_printf(out, "offset=%lld, fetch=%lld", (long long)((const limit_plan *)p)->offset,
                           (long long)((const limit_plan *)p)->fetch);
}

const floe_plan_vtable floe_limit_vt = {
    .name = "Limit",
    .execute = limit_execute,
    .encode_parts = limit_encode,
    .decode_parts = limit_decode,
    .explain_parts = limit_explain,
    .child_read = floe_exec_child_read_local,
};

floe_status floe_plan_limit(floe_plan *child, int64_t offset, int64_t fetch, floe_plan **out) {
    *out = NULL;
    if (offset < 0 || fetch < -1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Limit: offset %lld, fetch %lld", (long long)offset,
                          (long long)fetch);
    limit_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Limit node");
    p->offset = offset;
    p->fetch = fetch;
    floe_status st = floe_exec_plan_init(&p->head, &floe_limit_vt, child->schema, child->n_partitions, &child, 1);
    if (!st) st = floe_exec_plan_set_ordering(&p->head, child->ordering, child->n_ordering); /* rows keep their order */
    if (st) { floe_plan_release(&p->head); return st; }
    *out = &p->head;
    return NULL;
}

int64_t floe_limit_offset(const floe_plan *p) { return ((const limit_plan *)p)->offset; }
int64_t floe_limit_fetch(const floe_plan *p) { return ((const limit_plan *)p)->fetch; }
