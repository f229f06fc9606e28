/*
 * child_stream.h — the stream shape Filter, Projection and Limit share:
 * one partition of the node's only child, read through the node's own
 * next().
 */
#ifndef FLOE_EXEC_BASIC_CHILD_STREAM_H
#define FLOE_EXEC_BASIC_CHILD_STREAM_H

#include "floe/exec.h"

typedef struct floe_child_stream {
    floe_stream base;
    const floe_plan *p;
    floe_stream *child;
    const struct floe_cancel *cancel;
    int64_t skip, left; /* for a node that counts rows (Limit) */
} floe_child_stream;

/* Open partition `partition` of p's child and a stream over it whose
 * next() is `next`; closing it closes the child. */
floe_status floe_exec_open_child_stream(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                        floe_status (*next)(floe_stream *, floe_batch **),
                                        floe_child_stream **out) FLOE_WARN_UNUSED;

#endif
