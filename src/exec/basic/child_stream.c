/*
 * child_stream.c — see child_stream.h.
 */
#include "exec/basic/child_stream.h"

static void child_close(floe_stream *s_) {
    floe_child_stream *s = (floe_child_stream *)s_;
    floe_stream_close(s->child);
    floe_free(s);
}

floe_status floe_exec_open_child_stream(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                        floe_status (*next)(floe_stream *, floe_batch **),
                                        floe_child_stream **out) {
    floe_child_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a %s stream", p->vt->name);
    floe_status st = floe_plan_execute(p->children[0], partition, ctx, &s->child);
    if (st) {
        floe_free(s);
        return st;
    }
    s->base.next = next;
    s->base.close = child_close;
    s->p = p;
    s->cancel = ctx->cancel;
    *out = s;
    return NULL;
}
