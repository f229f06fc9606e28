/*
 * projection.c — the Projection node: one output column per expression;
 * subexpressions the columns share are computed once per batch
 * (exec/expr/agg_cse.h).
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/basic/child_stream.h"
#include "exec/plan_internal.h"
#include "exec/expr/agg_cse.h"

/* Schema field list with one nullable field per (name, type). */
static floe_status make_schema(const char *const *names, floe_type *const *types, int32_t n, floe_schema **out) {
    floe_field *f = floe_calloc((size_t)(n ? n : 1), sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a schema");
    floe_status st = NULL;
    for (int32_t i = 0; i < n && !st; i++) st = floe_field_init(&f[i], names[i], types[i], true, -1);
    if (!st) st = floe_type_struct(f, n, out);
    for (int32_t i = 0; i < n; i++) floe_field_clear(&f[i]);
    floe_free(f);
    return st;
}


typedef struct projection_plan {
    floe_plan head;
    int32_t n;
    floe_expr **exprs;
    char **names;
    floe_cse *cse; /* subexpressions the columns share (derived, not encoded); NULL: none */
} projection_plan;

static floe_status projection_next(floe_stream *s_, floe_batch **out) {
    floe_child_stream *s = (floe_child_stream *)s_;
    const projection_plan *p = (const projection_plan *)s->p;
    floe_batch *b;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "Projection"));
    FLOE_TRY(floe_stream_next(s->child, &b));
    if (!b) return NULL;
    floe_array **cols = floe_calloc((size_t)(p->n ? p->n : 1), sizeof *cols);
    floe_status st = cols ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "projecting a batch");
    floe_batch *x = NULL; /* b with the shared subexpressions' columns */
    if (!st && p->cse && b->num_columns == p->cse->n_in) {
        int32_t failed;
        st = floe_cse_extend(p->cse, b, &x, &failed);
        if (st && failed >= 0) st = floe_status_wrap_op(st, "column '%s'", p->names[failed]);
    }
    for (int32_t i = 0; i < p->n && !st; i++)
        st = floe_status_wrap_op(
            x ? floe_expr_eval(p->cse->rewritten[i], x, &cols[i]) : floe_expr_eval(p->exprs[i], b, &cols[i]),
            "column '%s'", p->names[i]);
    floe_batch_release(x);
    if (!st) st = floe_batch_new(p->head.schema, cols, p->n, b->num_rows, out);
    for (int32_t i = 0; cols && i < p->n; i++) floe_array_release(cols[i]);
    floe_free(cols);
    floe_batch_release(b);
    return st;
}

static floe_status projection_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                      floe_stream **out) {
    floe_child_stream *s;
    FLOE_TRY(floe_exec_open_child_stream(p, partition, ctx, projection_next, &s));
    *out = &s->base;
    return NULL;
}

static floe_status projection_encode(const floe_plan *p_, floe_buf *out) {
    const projection_plan *p = (const projection_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->n));
    for (int32_t i = 0; i < p->n; i++) {
        FLOE_TRY(floe_codec_put_str(out, p->names[i]));
        FLOE_TRY(floe_codec_put_expr(out, p->exprs[i]));
    }
    return NULL;
}

static floe_status projection_decode(floe_reader *r, floe_plan *const *children, int32_t n_children,
                                     floe_plan **out) {
    int64_t n;
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "Projection with %d children", n_children);
    FLOE_TRY(floe_codec_get_i64(r, &n));
    if (n < 0 || n > (int64_t)(r->len - r->pos))
        return floe_error(FLOE_ERR_CORRUPT, "Projection: expression count %lld is impossible", (long long)n);
    floe_expr **e = floe_calloc((size_t)(n ? n : 1), sizeof *e);
    char **names = floe_calloc((size_t)(n ? n : 1), sizeof *names);
    floe_status st = e && names ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding Projection");
    for (int64_t i = 0; i < n && !st; i++) {
        st = floe_codec_get_str(r, &names[i]);
        if (!st) st = floe_codec_get_expr(r, &e[i]);
    }
    if (!st) st = floe_plan_projection(children[0], e, (const char *const *)names, (int32_t)n, out);
    for (int64_t i = 0; i < n; i++) {
        if (e) floe_expr_release(e[i]);
        if (names) floe_free(names[i]);
    }
    floe_free(e);
    floe_free(names);
    return st;
}

static floe_status projection_explain(const floe_plan *p_, floe_buf *out) {
    const projection_plan *p = (const projection_plan *)p_;
    FLOE_TRY(floe_buf_append_str(out, "exprs=["));
    for (int32_t i = 0; i < p->n; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(p->exprs[i], out));
        FLOE_TRY(floe_buf_printf(out, " AS %s", p->names[i]));
    }
    return floe_buf_append_str(out, "]");
}

static void projection_free(floe_plan *p_) {
    projection_plan *p = (projection_plan *)p_;
    for (int32_t i = 0; i < p->n; i++) {
        floe_expr_release(p->exprs[i]);
        floe_free(p->names[i]);
    }
    floe_free(p->exprs);
    floe_free(p->names);
    floe_cse_free(p->cse);
}

const floe_plan_vtable floe_projection_vt = {
    .name = "Projection",
    .execute = projection_execute,
    .encode_parts = projection_encode,
    .decode_parts = projection_decode,
    .explain_parts = projection_explain,
    .free_parts = projection_free,
    .child_read = floe_exec_child_read_local,
};

floe_status floe_plan_projection(floe_plan *child, floe_expr *const *exprs, const char *const *names,
                                 int32_t n, floe_plan **out) {
    *out = NULL;
    if (n < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Projection: %d expressions", n);
    projection_plan *p = floe_calloc(1, sizeof *p);
    floe_type **types = floe_calloc((size_t)(n ? n : 1), sizeof *types);
    floe_schema *schema = NULL;
    floe_status st = NULL;
    if (p) {
        p->head.vt = &floe_projection_vt; /* so release works on failure */
        atomic_init(&p->head.refcount_, 1);
        p->exprs = floe_calloc((size_t)(n ? n : 1), sizeof *p->exprs);
        p->names = floe_calloc((size_t)(n ? n : 1), sizeof *p->names);
    }
    if (!p || !types || !p->exprs || !p->names) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Projection");
    for (int32_t i = 0; i < n && !st; i++) {
        if (!names[i]) { st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "Projection: column %d has no name", i); break; }
        p->exprs[i] = floe_expr_retain(exprs[i]);
        p->names[i] = floe_strdup(names[i]);
        p->n = i + 1;
        if (!p->names[i]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Projection");
        else st = floe_status_wrap_op(floe_expr_type(exprs[i], child->schema, &types[i]), "Projection column '%s'",
                                   names[i]);
    }
    if (!st) st = make_schema(names, types, n, &schema);
    if (!st) st = floe_cse_build(p->exprs, n, child->schema, &p->cse);
    if (!st) st = floe_exec_plan_init(&p->head, &floe_projection_vt, schema, child->n_partitions, &child, 1);
    for (int32_t i = 0; types && i < n; i++) floe_type_release(types[i]);
    floe_free(types);
    floe_type_release(schema);
    if (st) {
        if (p) floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

int32_t floe_projection_num_exprs(const floe_plan *p) { return ((const projection_plan *)p)->n; }
const floe_expr *floe_projection_expr(const floe_plan *p, int32_t i) { return ((const projection_plan *)p)->exprs[i]; }
const char *floe_projection_name(const floe_plan *p, int32_t i) { return ((const projection_plan *)p)->names[i]; }
