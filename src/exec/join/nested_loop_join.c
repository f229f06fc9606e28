/*
 * nested_loop_join.c — the NestedLoopJoin node: every left row against
 * every right row, kept where an arbitrary filter (over left ++ right;
 * none = a cross join) is TRUE, for every join type.
 *
 * The left side is collected once per execution and shared by all right
 * partitions (join_common's floe_join_build, the same machinery as
 * HashJoin's COLLECT_LEFT).  Each right batch is crossed with the left
 * rows in chunks of at most ctx->batch_size candidate pairs (right row
 * outer, left row inner), the filter is evaluated on the joined chunk, and
 * matches are recorded like in HashJoin: per right row for RIGHT, FULL,
 * RIGHT_SEMI and RIGHT_ANTI, in the build's atomic flags for LEFT, FULL,
 * LEFT_SEMI and LEFT_ANTI (emitted by the last right partition to finish).
 * Without a filter the semi and anti joins only ask whether the other side
 * has rows, so no pairs are formed for them.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/join/join_common.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"

typedef struct nlj_plan {
    floe_plan head;
    floe_join_type type;
    floe_expr *filter;        /* NULL: every pair */
    floe_schema *pair_schema; /* left ++ right */
} nlj_plan;

typedef struct nlj_stream {
    floe_stream base;
    const nlj_plan *p;
    floe_exec_ctx ctx;
    int32_t partition;
    floe_join_shared *shared; /* the execution's */
    floe_join_build *build;
    bool built, probe_done, emit_build, finished, failed;
    floe_stream *probe;
    floe_join_chunker chunks;
    int64_t emit_pos;
    floe_batch *pb;    /* current right batch */
    uint8_t *pmatched; /* per row of pb */
    int64_t prow, brow; /* next candidate pair */
    uint32_t *bidx, *pidx, *tmp;
    int64_t cap;
} nlj_stream;

/* Pairs only matter to a semi/anti join when there is a filter. */
static bool forms_pairs(const nlj_plan *p) { return p->filter || floe_join_outputs_pairs(p->type); }

static void drop_probe_batch(nlj_stream *s) {
    floe_free(s->pmatched);
    s->pmatched = NULL;
    floe_batch_release(s->pb);
    s->pb = NULL;
}

static floe_status start_probe_batch(nlj_stream *s, floe_batch *b) {
    const nlj_plan *p = s->p;
    s->pb = b;
    s->prow = s->brow = 0;
    atomic_store(&s->build->probe_any, true);
    if (floe_join_tracks_right(p->type)) {
        s->pmatched = floe_calloc((size_t)b->num_rows, 1);
        if (!s->pmatched) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "NestedLoopJoin: probe batch");
        if (!p->filter && s->build->rows > 0) memset(s->pmatched, 1, (size_t)b->num_rows);
    }
    if (!forms_pairs(p)) s->prow = b->num_rows; /* decided by row counts alone */
    return NULL;
}

static int64_t gen_pairs(nlj_stream *s) {
    int64_t np = 0, nb = s->build->rows, n = s->pb->num_rows;
    while (np < s->cap && s->prow < n) {
        while (s->brow < nb && np < s->cap) {
            s->bidx[np] = (uint32_t)s->brow++;
            s->pidx[np] = (uint32_t)s->prow;
            np++;
        }
        if (s->brow == nb) {
            s->brow = 0;
            s->prow++;
        }
    }
    return np;
}

static floe_status process_pairs(nlj_stream *s, int64_t np, floe_batch **out) {
    return floe_join_process_pairs(&s->p->head, s->p->type, s->p->filter, s->p->pair_schema, "NestedLoopJoin filter", s->build,
                                   s->pb, s->bidx, s->pidx, s->pmatched, &np, out);
}

static floe_status finish_probe_batch(nlj_stream *s, floe_batch **out) {
    const nlj_plan *p = s->p;
    if (!floe_join_tracks_right(p->type)) return NULL;
    const floe_plan *l = p->head.children[0], *r = p->head.children[1];
    bool want = p->type == FLOE_JOIN_RIGHT_SEMI;
    int64_t k = 0;
    for (int64_t i = 0; i < s->pb->num_rows; i++)
        if ((s->pmatched[i] != 0) == want) s->tmp[k++] = (uint32_t)i;
    if (k == 0) return NULL;
    bool with_left = p->type == FLOE_JOIN_RIGHT || p->type == FLOE_JOIN_FULL;
    return floe_join_gather(p->head.schema, l->schema, NULL, NULL, with_left, r->schema, s->pb, s->tmp, true, k, out);
}

static floe_status emit_build_rows(nlj_stream *s, floe_batch **out) {
    const nlj_plan *p = s->p;
    const floe_plan *l = p->head.children[0], *r = p->head.children[1];
    floe_join_build *b = s->build;
    bool want = p->type == FLOE_JOIN_LEFT_SEMI;
    /* No filter: a left row matches exactly when the right side has rows. */
    bool all = !p->filter && atomic_load(&b->probe_any);
    int64_t k = 0;
    while (s->emit_pos < b->rows && k < s->cap) {
        int64_t i = s->emit_pos++;
        bool m = all || atomic_load_explicit(&b->matched[i], memory_order_relaxed) != 0;
        if (m == want) s->tmp[k++] = (uint32_t)i;
    }
    if (k == 0) return NULL;
    bool with_right = p->type == FLOE_JOIN_LEFT || p->type == FLOE_JOIN_FULL;
    return floe_join_gather(p->head.schema, l->schema, b->batch, s->tmp, true, r->schema, NULL, NULL, with_right, k,
                            out);
}

static floe_status nlj_next_inner(nlj_stream *s, floe_batch **out) {
    const nlj_plan *p = s->p;
    if (!s->built) {
        FLOE_TRY(floe_join_build_wait(s->build, &p->head, &s->ctx, floe_join_tracks_left(p->type), NULL));
        s->built = true;
        s->cap = s->ctx.batch_size > 0 ? s->ctx.batch_size : 8192;
        s->bidx = floe_malloc_array((size_t)s->cap, sizeof *s->bidx);
        s->pidx = floe_malloc_array((size_t)s->cap, sizeof *s->pidx);
        s->tmp = floe_malloc_array((size_t)s->cap, sizeof *s->tmp);
        if (!s->bidx || !s->pidx || !s->tmp) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "NestedLoopJoin: buffers");
        bool empty_output = s->build->rows == 0 && (p->type == FLOE_JOIN_INNER || p->type == FLOE_JOIN_LEFT ||
                                                    p->type == FLOE_JOIN_LEFT_SEMI || p->type == FLOE_JOIN_LEFT_ANTI ||
                                                    p->type == FLOE_JOIN_RIGHT_SEMI);
        if (empty_output) s->probe_done = true;
        else FLOE_TRY(floe_plan_execute(p->head.children[1], s->partition, &s->ctx, &s->probe));
    }
    while (!s->probe_done) {
        FLOE_TRY(floe_cancel_check(s->ctx.cancel, "NestedLoopJoin"));
        if (!s->pb) {
            floe_batch *b;
            FLOE_TRY(floe_join_next_chunk(s->probe, &s->chunks, s->cap, &b));
            if (!b) {
                s->probe_done = true;
                if (floe_join_tracks_left(p->type) && s->build->rows > 0)
                    s->emit_build = atomic_fetch_add(&s->build->probes_done, 1) + 1 == s->build->n_probes;
                break;
            }
            FLOE_TRY(start_probe_batch(s, b));
        }
        if (s->prow < s->pb->num_rows && s->build->rows > 0) {
            int64_t np = gen_pairs(s);
            if (np > 0) FLOE_TRY(process_pairs(s, np, out));
            if (*out) return NULL;
            continue;
        }
        floe_status st = finish_probe_batch(s, out);
        drop_probe_batch(s);
        if (st || *out) return st;
    }
    while (s->emit_build && s->emit_pos < s->build->rows) {
        FLOE_TRY(floe_cancel_check(s->ctx.cancel, "NestedLoopJoin"));
        FLOE_TRY(emit_build_rows(s, out));
        if (*out) return NULL;
    }
    s->finished = true;
    return NULL;
}

static floe_status nlj_next(floe_stream *s_, floe_batch **out) {
    nlj_stream *s = (nlj_stream *)s_;
    *out = NULL;
    if (s->failed) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "NestedLoopJoin: stream already failed");
    if (s->finished) return NULL;
    floe_status st = nlj_next_inner(s, out);
    if (st) s->failed = true;
    return st;
}

static void nlj_close(floe_stream *s_) {
    nlj_stream *s = (nlj_stream *)s_;
    drop_probe_batch(s);
    floe_join_chunker_clear(&s->chunks);
    floe_stream_close(s->probe);
    floe_join_build_release(s->shared, s->build);
    floe_free(s->bidx);
    floe_free(s->pidx);
    floe_free(s->tmp);
    floe_free(s);
}

/* The build every probe partition of an execution shares. */
static floe_status nlj_init_shared(const floe_plan *p, const floe_exec_ctx *ctx, void **state) {
    (void)ctx;
    floe_join_shared *sh;
    FLOE_TRY(floe_join_shared_new(p->n_partitions, p->children[0]->n_partitions, &sh));
    *state = sh;
    return NULL;
}

static floe_status nlj_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const nlj_plan *p = (const nlj_plan *)p_;
    void *shared;
    FLOE_TRY(floe_exec_shared(p_, ctx, &shared));
    nlj_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a NestedLoopJoin stream");
    s->base.next = nlj_next;
    s->base.close = nlj_close;
    s->p = p;
    s->ctx = *ctx;
    s->partition = partition;
    s->shared = shared;
    floe_status st = floe_join_build_acquire(s->shared, partition, &s->build);
    if (st) {
        floe_free(s);
        return st;
    }
    *out = &s->base;
    return NULL;
}

/* ------------------------------------------------------------------ node */

static floe_status nlj_encode(const floe_plan *p_, floe_buf *out) {
    const nlj_plan *p = (const nlj_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->type));
    FLOE_TRY(floe_codec_put_i64(out, p->filter ? 1 : 0));
    if (p->filter) FLOE_TRY(floe_codec_put_expr(out, p->filter));
    return NULL;
}

static floe_status nlj_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    int64_t type, has_filter;
    floe_join_type jt;
    floe_expr *filter = NULL;
    if (n_children != 2) return floe_error(FLOE_ERR_CORRUPT, "NestedLoopJoin with %d children", n_children);
    FLOE_TRY(floe_codec_get_i64(r, &type));
    FLOE_TRY(floe_join_type_from_i64(type, &jt));
    FLOE_TRY(floe_codec_get_i64(r, &has_filter));
    if (has_filter) FLOE_TRY(floe_codec_get_expr(r, &filter));
    floe_status st = floe_plan_nested_loop_join(children[0], children[1], jt, filter, out);
    floe_expr_release(filter);
    return st;
}

static floe_status nlj_explain(const floe_plan *p_, floe_buf *out) {
    const nlj_plan *p = (const nlj_plan *)p_;
    FLOE_TRY(floe_buf_printf(out, "type=%s", floe_join_type_name(p->type)));
    if (p->filter) {
        FLOE_TRY(floe_buf_append_str(out, ", filter="));
        FLOE_TRY(floe_expr_to_string(p->filter, out));
    }
    return NULL;
}

static void nlj_free(floe_plan *p_) {
    nlj_plan *p = (nlj_plan *)p_;
    floe_expr_release(p->filter);
    floe_type_release(p->pair_schema);
}

/* As HashJoin's COLLECT_LEFT: the build side is read whole by every probe
 * partition, and shared by them when unmatched build rows are emitted. */
static floe_child_read nlj_child_read(const floe_plan *p_, int32_t child, floe_distribution *route) {
    (void)route;
    const nlj_plan *p = (const nlj_plan *)p_;
    if (child == 1) return FLOE_READ_LOCAL;
    return floe_join_tracks_left(p->type) && p->head.n_partitions > 1 ? FLOE_READ_SHARED : FLOE_READ_BROADCAST;
}

const floe_plan_vtable floe_nested_loop_join_vt = {
    .name = "NestedLoopJoin",
    .execute = nlj_execute,
    .encode_parts = nlj_encode,
    .decode_parts = nlj_decode,
    .explain_parts = nlj_explain,
    .free_parts = nlj_free,
    .init_shared = nlj_init_shared,
    .free_shared = floe_join_shared_free,
    .child_read = nlj_child_read,
};

floe_status floe_plan_nested_loop_join(floe_plan *left, floe_plan *right, floe_join_type type, floe_expr *filter,
                                       floe_plan **out) {
    *out = NULL;
    if ((unsigned)type >= FLOE_JOIN_TYPE_COUNT_)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "NestedLoopJoin: join type %d is unknown", (int)type);
    floe_schema *schema = NULL;
    FLOE_TRY(floe_join_output_schema(left->schema, right->schema, type, &schema));
    nlj_plan *p = floe_calloc(1, sizeof *p);
    if (!p) {
        floe_type_release(schema);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a NestedLoopJoin node");
    }
    p->type = type;
    floe_plan *children[2] = {left, right};
    floe_status st = floe_exec_plan_init(&p->head, &floe_nested_loop_join_vt, schema, right->n_partitions, children, 2);
    floe_type_release(schema);
    if (!st) st = floe_join_output_schema(left->schema, right->schema, FLOE_JOIN_INNER, &p->pair_schema);
    if (!st && filter) {
        floe_type *ft;
        st = floe_expr_type(filter, p->pair_schema, &ft);
        if (st) st = floe_status_wrap_op(st, "NestedLoopJoin filter");
        else {
            if (ft->id != FLOE_TYPE_BOOL && ft->id != FLOE_TYPE_NULL)
                st = floe_error(FLOE_ERR_TYPE, "NestedLoopJoin filter must be bool, not %s", floe_type_id_name(ft->id));
            floe_type_release(ft);
        }
        if (!st) p->filter = floe_expr_retain(filter);
    }
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

floe_join_type floe_nested_loop_join_type(const floe_plan *p) { return ((const nlj_plan *)p)->type; }
const floe_expr *floe_nested_loop_join_filter(const floe_plan *p) { return ((const nlj_plan *)p)->filter; }
