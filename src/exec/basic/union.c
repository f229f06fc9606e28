/*
 * union.c — the Union node (UNION ALL): the children's partitions one
 * after another, child 0's first.  Output partition i is partition i - k
 * of the child whose partitions start at k; its batches are passed on
 * under the union's schema (column names from child 0, a column nullable
 * when it is nullable in any child), without copying the columns.
 */
#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"

typedef struct union_stream {
    floe_stream base;
    const floe_plan *p;
    floe_stream *child;
    const floe_cancel *cancel;
} union_stream;

static floe_status union_next(floe_stream *s_, floe_batch **out) {
    union_stream *s = (union_stream *)s_;
    floe_batch *b;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "Union"));
    FLOE_TRY(floe_stream_next(s->child, &b));
    if (!b) return NULL;
    floe_status st = floe_batch_new(s->p->schema, b->columns, b->num_columns, b->num_rows, out);
    floe_batch_release(b);
    return st;
}

static void union_close(floe_stream *s_) {
    union_stream *s = (union_stream *)s_;
    floe_stream_close(s->child);
    floe_free(s);
}

/* Output partition `partition` is partition *part of child *c (*c ==
 * n_children when out of range). */
static void union_map_partition(const floe_plan *p, int32_t partition, int32_t *c, int32_t *part) {
    *c = 0;
    *part = partition;
    while (*c < p->n_children && *part >= p->children[*c]->n_partitions) *part -= p->children[(*c)++]->n_partitions;
}

static floe_child_read union_child_read(const floe_plan *p, int32_t child, floe_distribution *route) {
    (void)p;
    (void)child;
    (void)route;
    return FLOE_READ_MAPPED;
}

static floe_status union_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    int32_t c, part;
    union_map_partition(p, partition, &c, &part);
    if (c == p->n_children) return floe_error(FLOE_ERR_INTERNAL, "Union: partition %d has no child", partition);
    union_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a Union stream");
    floe_status st = floe_plan_execute(p->children[c], part, ctx, &s->child);
    if (st) {
        floe_free(s);
        return floe_status_wrap_op(st, "Union input %d", c);
    }
    s->base.next = union_next;
    s->base.close = union_close;
    s->p = p;
    s->cancel = ctx->cancel;
    *out = &s->base;
    return NULL;
}

static floe_status union_encode(const floe_plan *p, floe_buf *out) {
    (void)p;
    (void)out;
    return NULL; /* the children are the only parts */
}

static floe_status union_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)r;
    return floe_plan_union(children, n_children, out);
}

static floe_status union_explain(const floe_plan *p, floe_buf *out) {
    return floe_buf_printf(out, "inputs=%d", p->n_children);
}

const floe_plan_vtable floe_union_vt = {
    .name = "Union",
    .execute = union_execute,
    .encode_parts = union_encode,
    .decode_parts = union_decode,
    .explain_parts = union_explain,
    .child_read = union_child_read,
    .map_partition = union_map_partition,
};

/* The union's schema: child 0's fields, nullable if nullable anywhere;
 * every child must have as many columns of compatible types. */
static floe_status union_schema(floe_plan *const *children, int32_t n, floe_schema **out) {
    const floe_schema *first = children[0]->schema;
    int32_t nf = floe_schema_num_fields(first);
    for (int32_t c = 1; c < n; c++) {
        const floe_schema *s = children[c]->schema;
        if (floe_schema_num_fields(s) != nf)
            return floe_error(FLOE_ERR_TYPE, "Union: input %d has %d columns, input 0 has %d", c,
                              floe_schema_num_fields(s), nf);
        for (int32_t i = 0; i < nf; i++) {
            const floe_type *a = floe_schema_field(first, i)->type, *b = floe_schema_field(s, i)->type;
            if (!floe_type_compatible(a, b)) {
                floe_buf ta = FLOE_BUF_INIT, tb = FLOE_BUF_INIT;
                floe_status st = floe_type_to_string(a, &ta);
                if (!st) st = floe_type_to_string(b, &tb);
                if (!st)
                    st = floe_error(FLOE_ERR_TYPE, "Union: column %d ('%s') is %s in input 0 but %s in input %d", i,
                                    floe_schema_field(first, i)->name, floe_buf_cstr(&ta), floe_buf_cstr(&tb), c);
                floe_buf_free(&ta);
                floe_buf_free(&tb);
                return st;
            }
        }
    }
    floe_field *f = floe_calloc((size_t)(nf ? nf : 1), sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Union schema");
    floe_status st = NULL;
    for (int32_t i = 0; i < nf && !st; i++) {
        const floe_field *src = floe_schema_field(first, i);
        bool nullable = false;
        for (int32_t c = 0; c < n; c++) nullable |= floe_schema_field(children[c]->schema, i)->nullable;
        st = floe_field_init(&f[i], src->name, src->type, nullable, src->field_id);
    }
    if (!st) st = floe_type_struct(f, nf, out);
    for (int32_t i = 0; i < nf; i++) floe_field_clear(&f[i]);
    floe_free(f);
    return st;
}

floe_status floe_plan_union(floe_plan *const *children, int32_t n_children, floe_plan **out) {
    *out = NULL;
    if (n_children < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Union needs at least one input");
    int64_t parts = 0;
    for (int32_t c = 0; c < n_children; c++) parts += children[c]->n_partitions;
    if (parts > INT32_MAX) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Union: %lld partitions", (long long)parts);
    floe_schema *schema;
    FLOE_TRY(union_schema(children, n_children, &schema));
    floe_plan *p = floe_calloc(1, sizeof *p);
    if (!p) {
        floe_type_release(schema);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Union node");
    }
    floe_status st = floe_exec_plan_init(p, &floe_union_vt, schema, (int32_t)parts, children, n_children);
    floe_type_release(schema);
    if (st) {
        floe_plan_release(p);
        return st;
    }
    *out = p;
    return NULL;
}
