/*
 * plan.c — the plan node contract and the first node types: Values,
 * Filter, Projection, Limit and CoalescePartitions; the node-type registry
 * the codec decodes by; the collect runtime and EXPLAIN.
 *
 * Every node embeds `floe_plan` first and is built only by its
 * constructor from parts, which derives the output schema and partition
 * count and checks expression types against the child's schema.  Streams
 * hold the per-partition state; nodes are immutable and shareable.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "floe/exec.h"
#include "exec/plan_internal.h"
#include "exec/agg_cse.h"
#include "exec/exchange.h"
#include "exec/filter_sel.h"
#include "floe/exec_metrics.h"

/* ------------------------------------------------------------- the head */

floe_status floe_exec_plan_init(floe_plan *p, const floe_plan_vtable *vt, floe_schema *schema,
                             int32_t n_partitions, floe_plan *const *children, int32_t n_children) {
    p->vt = vt;
    atomic_init(&p->refcount_, 1);
    p->schema = floe_type_retain(schema);
    p->n_partitions = n_partitions;
    if (n_children) {
        p->children = floe_calloc((size_t)n_children, sizeof *p->children);
        if (!p->children) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a %s node", vt->name);
        p->n_children = n_children;
        for (int32_t i = 0; i < n_children; i++) p->children[i] = floe_plan_retain(children[i]);
    }
    return NULL;
}

floe_status floe_exec_plan_set_ordering(floe_plan *p, const floe_sort_key *keys, int32_t n) {
    floe_sort_key *k = NULL;
    if (n > 0) {
        k = floe_calloc((size_t)n, sizeof *k);
        if (!k) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "recording the ordering of a %s node", p->vt->name);
        for (int32_t i = 0; i < n; i++) {
            k[i] = keys[i];
            k[i].expr = floe_expr_retain(keys[i].expr);
        }
    }
    for (int32_t i = 0; i < p->n_ordering; i++) floe_expr_release(p->ordering[i].expr);
    floe_free(p->ordering);
    p->ordering = k;
    p->n_ordering = n > 0 ? n : 0;
    return NULL;
}

floe_plan *floe_plan_retain(floe_plan *p) {
    if (p) atomic_fetch_add(&p->refcount_, 1);
    return p;
}

void floe_plan_release(floe_plan *p) {
    if (!p || atomic_fetch_sub(&p->refcount_, 1) != 1) return;
    if (p->vt->free_parts) p->vt->free_parts(p);
    for (int32_t i = 0; i < p->n_children; i++) floe_plan_release(p->children[i]);
    floe_free(p->children);
    for (int32_t i = 0; i < p->n_ordering; i++) floe_expr_release(p->ordering[i].expr);
    floe_free(p->ordering);
    floe_type_release(p->schema);
    floe_free(p);
}

floe_distribution floe_plan_required_input(const floe_plan *p, int32_t child) {
    if (p->vt->required_input) return p->vt->required_input(p, child);
    floe_distribution d = {FLOE_DIST_UNSPECIFIED, 0, NULL};
    return d;
}

int32_t floe_plan_required_ordering(const floe_plan *p, int32_t child, const floe_sort_key **keys) {
    *keys = NULL;
    if (!p->vt->required_ordering) return 0;
    int32_t n = p->vt->required_ordering(p, child, keys);
    if (n <= 0 || !*keys) {
        *keys = NULL;
        return 0;
    }
    return n;
}

floe_child_read floe_exec_child_read_local(const floe_plan *p, int32_t child, floe_distribution *route) {
    (void)p;
    (void)child;
    (void)route;
    return FLOE_READ_LOCAL;
}

floe_child_read floe_plan_child_read(const floe_plan *p, int32_t child, floe_distribution *route) {
    floe_distribution none = {FLOE_DIST_UNSPECIFIED, 0, NULL};
    if (route) *route = none;
    if (child < 0 || child >= p->n_children || !p->vt->child_read) return FLOE_READ_UNKNOWN;
    floe_distribution r = none;
    floe_child_read how = p->vt->child_read(p, child, &r);
    if (route) *route = r;
    return how;
}

void floe_plan_map_partition(const floe_plan *p, int32_t partition, int32_t *child, int32_t *child_partition) {
    *child = 0;
    *child_partition = partition;
    if (p->vt->map_partition) p->vt->map_partition(p, partition, child, child_partition);
}

double floe_plan_estimate_rows(const floe_plan *p) {
    return p->vt->estimate_rows ? p->vt->estimate_rows(p) : -1;
}

floe_status floe_plan_local_paths(const floe_plan *p, floe_path_visit visit, void *arg) {
    if (p->vt->local_paths) FLOE_TRY(p->vt->local_paths(p, visit, arg));
    for (int32_t c = 0; c < p->n_children; c++) FLOE_TRY(floe_plan_local_paths(p->children[c], visit, arg));
    return NULL;
}

bool floe_plan_tree_has_flag(const floe_plan *p, uint32_t flag) {
    if (p->vt->flags & flag) return true;
    for (int32_t c = 0; c < p->n_children; c++)
        if (floe_plan_tree_has_flag(p->children[c], flag)) return true;
    return false;
}

floe_status floe_plan_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                              floe_stream **out) {
    *out = NULL;
    if (!ctx->exec)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "%s: executed outside an execution (begin one with floe_execution_begin)", p->vt->name);
    if (partition < 0 || partition >= p->n_partitions)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: partition %d out of range (0..%d)", p->vt->name,
                          partition, p->n_partitions - 1);
    FLOE_TRY(floe_cancel_check(ctx->cancel, p->vt->name));
    if (!ctx->metrics) return p->vt->execute(p, partition, ctx, out);
    floe_stream *inner;
    FLOE_TRY(p->vt->execute(p, partition, ctx, &inner));
    return floe_exec_metrics_wrap(ctx->metrics, p, partition, inner, out);
}

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

/* --------------------------------------------------------------- Values */

typedef struct values_plan {
    floe_plan head;
    int32_t n_batches;
    floe_batch **batches;
} values_plan;

typedef struct values_stream {
    floe_stream base;
    const values_plan *p;
    const floe_cancel *cancel;
    int64_t batch_size;
    int32_t next_batch; /* index into p->batches */
    int64_t row;        /* rows of that batch already returned */
} values_stream;

static floe_status values_next(floe_stream *s_, floe_batch **out) {
    values_stream *s = (values_stream *)s_;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "Values"));
    int32_t np = s->p->head.n_partitions;
    while (s->next_batch < s->p->n_batches) {
        floe_batch *b = s->p->batches[s->next_batch];
        if (s->row >= b->num_rows) {
            s->next_batch += np;
            s->row = 0;
            continue;
        }
        int64_t len = b->num_rows - s->row;
        if (len > s->batch_size) len = s->batch_size;
        if (s->row == 0 && len == b->num_rows) *out = floe_batch_retain(b);
        else FLOE_TRY(floe_batch_slice(b, s->row, len, out));
        s->row += len;
        return NULL;
    }
    return NULL;
}

static void simple_close(floe_stream *s) { floe_free(s); }

static floe_status values_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                  floe_stream **out) {
    values_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a Values stream");
    s->base.next = values_next;
    s->base.close = simple_close;
    s->p = (const values_plan *)p;
    s->cancel = ctx->cancel;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    s->next_batch = partition;
    *out = &s->base;
    return NULL;
}

static floe_status values_encode(const floe_plan *p_, floe_buf *out) {
    const values_plan *p = (const values_plan *)p_;
    FLOE_TRY(floe_codec_put_type(out, p->head.schema));
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    FLOE_TRY(floe_codec_put_i64(out, p->n_batches));
    for (int32_t i = 0; i < p->n_batches; i++) FLOE_TRY(floe_codec_put_batch(out, p->batches[i]));
    return NULL;
}

static floe_status values_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)children;
    (void)n_children;
    floe_type *schema = NULL;
    int64_t np = 0, nb = 0;
    floe_batch **b = NULL;
    int64_t got = 0;
    floe_status st = floe_codec_get_type(r, &schema);
    if (!st) st = floe_codec_get_i64(r, &np);
    if (!st) st = floe_codec_get_i64(r, &nb);
    if (!st && (nb < 0 || nb > (int64_t)(r->len - r->pos)))
        st = floe_error(FLOE_ERR_CORRUPT, "Values: batch count %lld is impossible", (long long)nb);
    if (!st && (np < 1 || np > INT32_MAX))
        st = floe_error(FLOE_ERR_CORRUPT, "Values: partition count %lld is impossible", (long long)np);
    if (!st && !(b = floe_calloc((size_t)(nb ? nb : 1), sizeof *b)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding Values");
    for (; !st && got < nb; got++) st = floe_codec_get_batch(r, &b[got]);
    if (!st) st = floe_plan_values(schema, b, (int32_t)nb, (int32_t)np, out);
    for (int64_t i = 0; i < got; i++) floe_batch_release(b[i]);
    floe_free(b);
    floe_type_release(schema);
    return st;
}

static floe_status values_explain(const floe_plan *p_, floe_buf *out) {
    const values_plan *p = (const values_plan *)p_;
    int64_t rows = 0;
    for (int32_t i = 0; i < p->n_batches; i++) rows += p->batches[i]->num_rows;
    FLOE_TRY(floe_buf_append_str(out, "schema="));
    FLOE_TRY(floe_type_to_string(p->head.schema, out));
    return floe_buf_printf(out, ", batches=%d, rows=%lld", p->n_batches, (long long)rows);
}

static void values_free(floe_plan *p_) {
    values_plan *p = (values_plan *)p_;
    for (int32_t i = 0; i < p->n_batches; i++) floe_batch_release(p->batches[i]);
    floe_free(p->batches);
}

static double values_estimate_rows(const floe_plan *p_) {
    const values_plan *p = (const values_plan *)p_;
    double n = 0;
    for (int32_t i = 0; i < p->n_batches; i++) n += (double)p->batches[i]->num_rows;
    return n;
}

static const floe_plan_vtable values_vt = {
    .name = "Values",
    .execute = values_execute,
    .encode_parts = values_encode,
    .decode_parts = values_decode,
    .explain_parts = values_explain,
    .free_parts = values_free,
    .estimate_rows = values_estimate_rows,
};

bool floe_plan_is_values(const floe_plan *p) { return p->vt == &values_vt; }

floe_status floe_plan_values(floe_schema *schema, floe_batch *const *batches, int32_t n_batches,
                             int32_t n_partitions, floe_plan **out) {
    *out = NULL;
    if (!schema || schema->id != FLOE_TYPE_STRUCT)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Values: the schema must be a struct type");
    if (n_partitions < 1 || n_batches < 0)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Values: %d partitions, %d batches", n_partitions, n_batches);
    for (int32_t i = 0; i < n_batches; i++)
        if (!floe_type_compatible(batches[i]->schema, schema))
            return floe_error(FLOE_ERR_TYPE, "Values: batch %d does not match the schema", i);
    values_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Values node");
    floe_status st = floe_exec_plan_init(&p->head, &values_vt, schema, n_partitions, NULL, 0);
    if (!st && n_batches && !(p->batches = floe_calloc((size_t)n_batches, sizeof *p->batches)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a Values node");
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    p->n_batches = n_batches;
    for (int32_t i = 0; i < n_batches; i++) p->batches[i] = floe_batch_retain(batches[i]);
    *out = &p->head;
    return NULL;
}

int32_t floe_values_num_batches(const floe_plan *p) { return ((const values_plan *)p)->n_batches; }
floe_batch *floe_values_batch(const floe_plan *p, int32_t i) { return ((const values_plan *)p)->batches[i]; }

/* --------------------------------------------------------------- Filter */

typedef struct filter_plan {
    floe_plan head;
    floe_expr *predicate;
} filter_plan;

typedef struct child_stream {
    floe_stream base;
    const floe_plan *p;
    floe_stream *child;
    const floe_cancel *cancel;
    int64_t skip, left; /* Limit */
} child_stream;

static void child_close(floe_stream *s_) {
    child_stream *s = (child_stream *)s_;
    floe_stream_close(s->child);
    floe_free(s);
}

static floe_status open_child_stream(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                     floe_status (*next)(floe_stream *, floe_batch **), child_stream **out) {
    child_stream *s = floe_calloc(1, sizeof *s);
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

/* The next batch with at least one row passing, and its selection (see
 * filter_sel.h).  keep_sel: hand the selection out instead of copying
 * when at least 3/4 of the rows pass (below that, carrying the dead rows
 * through the consumer costs more than the copy). */
static floe_status filter_pull(child_stream *s, bool keep_sel, floe_batch **out, uint32_t **sel_out, int64_t *n_sel) {
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
    return filter_pull((child_stream *)s_, false, out, &sel, &k);
}

bool floe_filter_stream_selects(const floe_stream *s) { return s && s->next == filter_next; }

floe_status floe_filter_next_sel(floe_stream *s, floe_batch **out, uint32_t **sel, int64_t *n_sel) {
    if (!floe_filter_stream_selects(s)) {
        *sel = NULL;
        *n_sel = 0;
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_filter_next_sel on a stream that is not a Filter's");
    }
    FLOE_TRY(filter_pull((child_stream *)s, true, out, sel, n_sel));
    if (*out && !*sel) *n_sel = (*out)->num_rows;
    return NULL;
}

static floe_status filter_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                  floe_stream **out) {
    child_stream *s;
    FLOE_TRY(open_child_stream(p, partition, ctx, filter_next, &s));
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

static const floe_plan_vtable filter_vt = {
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
    floe_status st = floe_exec_plan_init(&p->head, &filter_vt, child->schema, child->n_partitions, &child, 1);
    if (!st) st = floe_exec_plan_set_ordering(&p->head, child->ordering, child->n_ordering); /* rows keep their order */
    if (st) { floe_plan_release(&p->head); return st; }
    *out = &p->head;
    return NULL;
}

const floe_expr *floe_filter_predicate(const floe_plan *p) { return ((const filter_plan *)p)->predicate; }

/* ----------------------------------------------------------- Projection */

typedef struct projection_plan {
    floe_plan head;
    int32_t n;
    floe_expr **exprs;
    char **names;
    floe_cse *cse; /* subexpressions the columns share (derived, not encoded); NULL: none */
} projection_plan;

static floe_status projection_next(floe_stream *s_, floe_batch **out) {
    child_stream *s = (child_stream *)s_;
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
        if (st && failed >= 0) st = floe_status_wrap(st, "column '%s'", p->names[failed]);
    }
    for (int32_t i = 0; i < p->n && !st; i++)
        st = floe_status_wrap(x ? floe_expr_eval(p->cse->rewritten[i], x, &cols[i]) : floe_expr_eval(p->exprs[i], b, &cols[i]),
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
    child_stream *s;
    FLOE_TRY(open_child_stream(p, partition, ctx, projection_next, &s));
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

static const floe_plan_vtable projection_vt = {
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
        p->head.vt = &projection_vt; /* so release works on failure */
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
        else st = floe_status_wrap(floe_expr_type(exprs[i], child->schema, &types[i]), "Projection column '%s'",
                                   names[i]);
    }
    if (!st) st = make_schema(names, types, n, &schema);
    if (!st) st = floe_cse_build(p->exprs, n, child->schema, &p->cse);
    if (!st) st = floe_exec_plan_init(&p->head, &projection_vt, schema, child->n_partitions, &child, 1);
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

/* ---------------------------------------------------------------- Limit */

typedef struct limit_plan {
    floe_plan head;
    int64_t offset, fetch;
} limit_plan;

static floe_status limit_next(floe_stream *s_, floe_batch **out) {
    child_stream *s = (child_stream *)s_;
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
    child_stream *s;
    FLOE_TRY(open_child_stream(p, partition, ctx, limit_next, &s));
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

static const floe_plan_vtable limit_vt = {
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
    floe_status st = floe_exec_plan_init(&p->head, &limit_vt, child->schema, child->n_partitions, &child, 1);
    if (!st) st = floe_exec_plan_set_ordering(&p->head, child->ordering, child->n_ordering); /* rows keep their order */
    if (st) { floe_plan_release(&p->head); return st; }
    *out = &p->head;
    return NULL;
}

int64_t floe_limit_offset(const floe_plan *p) { return ((const limit_plan *)p)->offset; }
int64_t floe_limit_fetch(const floe_plan *p) { return ((const limit_plan *)p)->fetch; }

/* --------------------------------------------------- CoalescePartitions */

/* The child's partitions are read by an exchange (exec/exchange.h):
 * producer tasks that read one batch at a time and park instead of
 * blocking when the queue is full, and a consumer that reads inputs
 * itself instead of sleeping while any input is free.  So no pool worker
 * ever waits on a full queue, and a CoalescePartitions works on a
 * one-thread pool even when its consumer runs inside a pool task (or under
 * another CoalescePartitions).  The first error fails the stream. */

typedef struct coalesce_stream {
    floe_stream base;
    floe_exchange *x;
} coalesce_stream;

static floe_status coalesce_next(floe_stream *s_, floe_batch **out) {
    return floe_exchange_next(((coalesce_stream *)s_)->x, 0, out);
}

static void coalesce_close(floe_stream *s_) {
    coalesce_stream *s = (coalesce_stream *)s_;
    floe_exchange_detach(s->x, 0);
    floe_exchange_release(s->x);
    floe_free(s);
}

static floe_status coalesce_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                    floe_stream **out) {
    (void)partition;
    coalesce_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a CoalescePartitions stream");
    floe_status st = floe_exchange_create(p->children[0], FLOE_EXCH_MERGE, NULL, 0, 1, ctx, "CoalescePartitions", &s->x);
    if (st) {
        floe_free(s);
        return st;
    }
    (void)floe_exchange_attach(s->x, 0);
    s->base.next = coalesce_next;
    s->base.close = coalesce_close;
    *out = &s->base;
    return NULL;
}

static floe_status coalesce_encode(const floe_plan *p, floe_buf *out) {
    (void)p;
    (void)out;
    return NULL;
}

static floe_status coalesce_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    (void)r;
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "CoalescePartitions with %d children", n_children);
    return floe_plan_coalesce(children[0], out);
}

static floe_status coalesce_explain(const floe_plan *p, floe_buf *out) {
    return floe_buf_printf(out, "inputs=%d", p->children[0]->n_partitions);
}

/* The node is an exchange gathering every child partition into one. */
static floe_child_read coalesce_child_read(const floe_plan *p, int32_t child, floe_distribution *route) {
    (void)p;
    (void)child;
    route->kind = FLOE_DIST_SINGLE;
    return FLOE_READ_EXCHANGE;
}

static const floe_plan_vtable coalesce_vt = {
    .name = "CoalescePartitions",
    .execute = coalesce_execute,
    .encode_parts = coalesce_encode,
    .decode_parts = coalesce_decode,
    .explain_parts = coalesce_explain,
    .child_read = coalesce_child_read,
};

floe_status floe_plan_coalesce(floe_plan *child, floe_plan **out) {
    *out = NULL;
    floe_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a CoalescePartitions node");
    floe_status st = floe_exec_plan_init(p, &coalesce_vt, child->schema, 1, &child, 1);
    if (st) { floe_plan_release(p); return st; }
    *out = p;
    return NULL;
}

/* ------------------------------------------------------------- registry */

static const floe_plan_vtable *const builtin_types[] = {&values_vt, &filter_vt, &projection_vt, &limit_vt,
                                                        &coalesce_vt};

/* Node types defined in other files of the engine: node_types.c lists them. */
static const floe_plan_vtable *lookup_builtin(const char *name) {
    for (size_t i = 0; i < sizeof builtin_types / sizeof *builtin_types; i++)
        if (strcmp(builtin_types[i]->name, name) == 0) return builtin_types[i];
    for (size_t i = 0; floe_exec_node_types[i]; i++)
        if (strcmp(floe_exec_node_types[i]->name, name) == 0) return floe_exec_node_types[i];
    return NULL;
}
#define MAX_REGISTERED 64
static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static const floe_plan_vtable *registered[MAX_REGISTERED];
static int n_registered;

const floe_plan_vtable *floe_plan_lookup(const char *name) {
    const floe_plan_vtable *found = lookup_builtin(name);
    if (found) return found;
    pthread_mutex_lock(&registry_mu);
    for (int i = 0; i < n_registered && !found; i++)
        if (strcmp(registered[i]->name, name) == 0) found = registered[i];
    pthread_mutex_unlock(&registry_mu);
    return found;
}

floe_status floe_plan_register(const floe_plan_vtable *vt) {
    const floe_plan_vtable *old = floe_plan_lookup(vt->name);
    if (old == vt) return NULL;
    if (old) return floe_error(FLOE_ERR_ALREADY_EXISTS, "plan node type '%s' is already registered", vt->name);
    floe_status st = NULL;
    pthread_mutex_lock(&registry_mu);
    if (n_registered == MAX_REGISTERED) st = floe_error(FLOE_ERR_UNSUPPORTED, "too many plan node types");
    else registered[n_registered++] = vt;
    pthread_mutex_unlock(&registry_mu);
    return st;
}

/* -------------------------------------------------------------- runtime */

typedef struct part_result {
    const floe_plan *p;
    const floe_exec_ctx *ctx; /* cancel: set by the first partition that fails */
    int32_t partition;
    floe_batch **batches;
    int64_t n, cap;
} part_result;

static floe_status read_partition(part_result *r);

/* A pool task: one partition; its failure stops the others.  The token the
 * partitions run under is the execution's (not the task group's, which is
 * freed before the execution ends while state made under it may live on). */
static floe_status run_partition(void *arg, const floe_cancel *cancel) {
    (void)cancel;
    part_result *r = arg;
    floe_status st = read_partition(r);
    if (st) floe_cancel_set((floe_cancel *)r->ctx->cancel);
    return st;
}

static floe_status read_partition(part_result *r) {
    floe_stream *s;
    FLOE_TRY(floe_plan_execute(r->p, r->partition, r->ctx, &s));
    floe_status st = NULL;
    for (;;) {
        floe_batch *b;
        if ((st = floe_stream_next(s, &b)) || !b) break;
        if (r->n == r->cap) {
            int64_t cap = r->cap ? r->cap * 2 : 8;
            floe_batch **nb = floe_realloc(r->batches, (size_t)cap * sizeof *nb);
            if (!nb) {
                floe_batch_release(b);
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "collecting batches");
                break;
            }
            r->batches = nb;
            r->cap = cap;
        }
        r->batches[r->n++] = b;
    }
    floe_stream_close(s);
    return st;
}

void floe_exec_batches_free(floe_batch **batches, int64_t n) {
    for (int64_t i = 0; i < n; i++) floe_batch_release(batches[i]);
    floe_free(batches);
}

static floe_status collect(const floe_plan *p, const floe_exec_ctx *ctx, floe_batch ***batches, int64_t *n_batches) {
    int32_t np = p->n_partitions;
    part_result *res = floe_calloc((size_t)np, sizeof *res);
    if (!res) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "collecting %d partitions", np);
    floe_exec_ctx pctx = *ctx;
    for (int32_t i = 0; i < np; i++) {
        res[i].p = p;
        res[i].ctx = &pctx;
        res[i].partition = i;
    }
    floe_status st = NULL;
    if (np == 1) {
        st = read_partition(&res[0]);
    } else {
        floe_threadpool *pool = ctx->pool;
        floe_task_group *g = NULL;
        floe_cancel *stop = NULL;
        if (!pool) st = floe_threadpool_default(&pool);
        if (!st) st = floe_exec_token(ctx, NULL, &stop);
        if (!st) pctx.cancel = stop;
        if (!st) st = floe_task_group_create(pool, stop, &g);
        for (int32_t i = 0; !st && i < np; i++)
            if (!floe_task_group_submit(g, run_partition, &res[i])) break;
        if (g) {
            floe_status w = floe_task_group_wait(g);
            if (!st) st = w; else floe_status_free(w);
            floe_task_group_destroy(g);
        }
    }
    int64_t total = 0;
    for (int32_t i = 0; i < np; i++) total += res[i].n;
    floe_batch **all = NULL;
    if (!st && !(all = floe_calloc((size_t)(total ? total : 1), sizeof *all)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "collecting batches");
    int64_t k = 0;
    for (int32_t i = 0; i < np; i++) {
        for (int64_t j = 0; j < res[i].n; j++) {
            if (st) floe_batch_release(res[i].batches[j]);
            else all[k++] = res[i].batches[j];
        }
        floe_free(res[i].batches);
    }
    floe_free(res);
    if (st) return st;
    *batches = all;
    *n_batches = total;
    return NULL;
}

/* collect() in the caller's execution, or in one of its own. */
static floe_status collect_in_execution(const floe_plan *p, const floe_exec_ctx *ctx, floe_batch ***batches,
                                        int64_t *n_batches) {
    if (ctx->exec) return collect(p, ctx, batches, n_batches);
    floe_exec_ctx c = *ctx;
    floe_execution *x;
    FLOE_TRY(floe_execution_begin(&c, &x));
    floe_status st = collect(p, &c, batches, n_batches);
    floe_execution_end(x);
    return st;
}

floe_status floe_exec_collect(const floe_plan *p, const floe_exec_ctx *ctx, floe_batch ***batches,
                              int64_t *n_batches) {
    *batches = NULL;
    *n_batches = 0;
    const char *rt = getenv("FLOE_PLAN_ROUNDTRIP");
    if (rt && strcmp(rt, "1") == 0) {
        floe_plan *copy;
        FLOE_TRY_CTX(floe_plan_roundtrip(p, &copy), "FLOE_PLAN_ROUNDTRIP");
        floe_status st = collect_in_execution(copy, ctx, batches, n_batches);
        floe_plan_release(copy);
        return st;
    }
    return collect_in_execution(p, ctx, batches, n_batches);
}

/* -------------------------------------------------------------- EXPLAIN */

floe_status floe_exec_explain_line(const floe_plan *p, floe_buf *out) {
    FLOE_TRY(floe_buf_printf(out, "%s: ", p->vt->name));
    if (p->vt->explain_parts) {
        size_t before = out->len;
        FLOE_TRY(p->vt->explain_parts(p, out));
        if (out->len > before) FLOE_TRY(floe_buf_append_str(out, ", "));
    }
    return floe_buf_printf(out, "partitions=%d\n", p->n_partitions);
}

static floe_status explain_node(const floe_plan *p, int depth, floe_buf *out) {
    for (int i = 0; i < depth; i++) FLOE_TRY(floe_buf_append_str(out, "  "));
    FLOE_TRY(floe_exec_explain_line(p, out));
    for (int32_t i = 0; i < p->n_children; i++) FLOE_TRY(explain_node(p->children[i], depth + 1, out));
    return NULL;
}

floe_status floe_plan_explain(const floe_plan *p, floe_buf *out) { return explain_node(p, 0, out); }
