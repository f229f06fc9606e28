/*
 * expand.c — the Expand node: GROUPING SETS / ROLLUP / CUBE in one pass.
 *
 * Every input batch is emitted once per grouping set.  Each output batch
 * holds the "pass" columns (expressions over the input, evaluated once per
 * input batch and shared by every copy: the aggregate arguments), then the
 * group keys (evaluated once per batch; a key not in the set is a column
 * of NULLs in that set's copy), then the set's grouping id (BIGINT, never
 * NULL).  A HashAggregate above groups by (keys, id): the id tells a NULL
 * of the data from a rolled-up key, and separates duplicate sets.
 *
 * An empty grouping set gives one row even over empty input (PostgreSQL),
 * which grouping by (keys, id) alone would not.  With `empty_set_rows`,
 * partition 0 emits at its end one extra row per set without keys: every
 * column NULL but the id.  The planner makes the aggregates ignore those
 * rows (arguments are pass columns, NULL there; count(*) counts a pass
 * column that is never NULL in real rows).
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"

typedef struct expand_plan {
    floe_plan head;
    int32_t n_pass, n_keys, n_sets;
    floe_expr **exprs; /* n_pass pass expressions, then n_keys keys */
    char **names;      /* n_pass + n_keys + 1 (the id column last)   */
    uint64_t *masks;   /* per set: bit i set = key i is NULL          */
    int64_t *ids;      /* per set: its grouping id                    */
    bool empty_set_rows;
} expand_plan;

typedef struct expand_stream {
    floe_stream base;
    const expand_plan *p;
    floe_stream *child;
    const struct floe_cancel *cancel;
    int32_t partition;
    floe_array **cols;  /* the current input batch's pass + key columns */
    floe_array **nulls; /* per key: a NULL column as long as the batch   */
    int64_t rows;       /* rows of the current batch; -1: none           */
    int32_t next_set;   /* the next set to emit for the current batch    */
    bool done;          /* the child is exhausted                        */
} expand_stream;

static void drop_batch(expand_stream *s) {
    int32_t n = s->p->n_pass + s->p->n_keys;
    for (int32_t i = 0; i < n; i++) {
        floe_array_release(s->cols[i]);
        s->cols[i] = NULL;
    }
    for (int32_t i = 0; i < s->p->n_keys; i++) {
        floe_array_release(s->nulls[i]);
        s->nulls[i] = NULL;
    }
    s->rows = -1;
}

static floe_status id_column(int64_t id, int64_t rows, floe_array **out) {
    floe_builder *b = NULL;
    FLOE_TRY(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), rows, &b));
    floe_status st = NULL;
    for (int64_t i = 0; i < rows && !st; i++) st = floe_builder_append_int64(b, id);
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/* The copy of the current batch for set `k`. */
static floe_status emit_set(expand_stream *s, int32_t k, floe_batch **out) {
    const expand_plan *p = s->p;
    int32_t n = p->n_pass + p->n_keys + 1;
    floe_array **cols = floe_calloc((size_t)n, sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "expanding a batch");
    floe_status st = NULL;
    for (int32_t i = 0; i < p->n_pass; i++) cols[i] = s->cols[i];
    for (int32_t i = 0; i < p->n_keys && !st; i++) {
        if (p->masks[k] & (UINT64_C(1) << i)) {
            if (!s->nulls[i]) {
                const floe_type *t = floe_schema_field(p->head.schema, p->n_pass + i)->type;
                st = floe_array_new_nulls((floe_type *)t, s->rows, &s->nulls[i]);
            }
            cols[p->n_pass + i] = s->nulls[i];
        } else {
            cols[p->n_pass + i] = s->cols[p->n_pass + i];
        }
    }
    floe_array *id = NULL;
    if (!st) st = id_column(p->ids[k], s->rows, &id);
    cols[n - 1] = id;
    if (!st) st = floe_batch_new(p->head.schema, cols, n, s->rows, out);
    floe_array_release(id);
    floe_free(cols);
    return st;
}

/* Partition 0's last rows: one all-NULL row per set without keys. */
static floe_status empty_set_batch(expand_stream *s, floe_batch **out) {
    const expand_plan *p = s->p;
    uint64_t all = p->n_keys >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << p->n_keys) - 1;
    int64_t rows = 0;
    for (int32_t k = 0; k < p->n_sets; k++) rows += (p->masks[k] & all) == all;
    if (rows == 0) return NULL;
    int32_t n = p->n_pass + p->n_keys + 1;
    floe_array **cols = floe_calloc((size_t)n, sizeof *cols);
    floe_builder *b = NULL;
    floe_status st = cols ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "expanding a batch");
    for (int32_t i = 0; i < n - 1 && !st; i++)
        st = floe_array_new_nulls(floe_schema_field(p->head.schema, i)->type, rows, &cols[i]);
    if (!st) st = floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), rows, &b);
    for (int32_t k = 0; k < p->n_sets && !st; k++)
        if ((p->masks[k] & all) == all) st = floe_builder_append_int64(b, p->ids[k]);
    if (!st) st = floe_builder_finish(b, &cols[n - 1]);
    if (!st) st = floe_batch_new(p->head.schema, cols, n, rows, out);
    floe_builder_free(b);
    for (int32_t i = 0; cols && i < n; i++) floe_array_release(cols[i]);
    floe_free(cols);
    return st;
}

static floe_status expand_next(floe_stream *s_, floe_batch **out) {
    expand_stream *s = (expand_stream *)s_;
    const expand_plan *p = s->p;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "Expand"));
    for (;;) {
        if (s->rows >= 0 && s->next_set < p->n_sets) return emit_set(s, s->next_set++, out);
        drop_batch(s);
        if (s->done) return NULL;
        floe_batch *b = NULL;
        FLOE_TRY(floe_stream_next(s->child, &b));
        if (!b) {
            s->done = true;
            return p->empty_set_rows && s->partition == 0 ? empty_set_batch(s, out) : NULL;
        }
        if (b->num_rows == 0) {
            floe_batch_release(b);
            continue;
        }
        floe_status st = NULL;
        for (int32_t i = 0; i < p->n_pass + p->n_keys && !st; i++)
            st = floe_status_wrap_op(floe_expr_eval(p->exprs[i], b, &s->cols[i]), "column '%s'", p->names[i]);
        s->rows = b->num_rows;
        s->next_set = 0;
        floe_batch_release(b);
        if (st) {
            drop_batch(s);
            return st;
        }
    }
}

static void expand_close(floe_stream *s_) {
    expand_stream *s = (expand_stream *)s_;
    if (s->cols) drop_batch(s);
    floe_free(s->cols);
    floe_free(s->nulls);
    floe_stream_close(s->child);
    floe_free(s);
}

static floe_status expand_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                                  floe_stream **out) {
    const expand_plan *p = (const expand_plan *)p_;
    expand_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening an Expand stream");
    s->p = p;
    s->rows = -1;
    s->partition = partition;
    s->cancel = ctx->cancel;
    s->base.next = expand_next;
    s->base.close = expand_close;
    s->cols = floe_calloc((size_t)(p->n_pass + p->n_keys + 1), sizeof *s->cols);
    s->nulls = floe_calloc((size_t)(p->n_keys + 1), sizeof *s->nulls);
    floe_status st = s->cols && s->nulls ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening an Expand stream");
    if (!st) st = floe_plan_execute(p->head.children[0], partition, ctx, &s->child);
    if (st) {
        expand_close(&s->base);
        return st;
    }
    *out = &s->base;
    return NULL;
}

static floe_status expand_encode(const floe_plan *p_, floe_buf *out) {
    const expand_plan *p = (const expand_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->n_pass));
    FLOE_TRY(floe_codec_put_i64(out, p->n_keys));
    FLOE_TRY(floe_codec_put_i64(out, p->n_sets));
    FLOE_TRY(floe_codec_put_i64(out, p->empty_set_rows));
    for (int32_t i = 0; i < p->n_pass + p->n_keys; i++) {
        FLOE_TRY(floe_codec_put_str(out, p->names[i]));
        FLOE_TRY(floe_codec_put_expr(out, p->exprs[i]));
    }
    FLOE_TRY(floe_codec_put_str(out, p->names[p->n_pass + p->n_keys]));
    for (int32_t k = 0; k < p->n_sets; k++) {
        FLOE_TRY(floe_codec_put_i64(out, (int64_t)p->masks[k]));
        FLOE_TRY(floe_codec_put_i64(out, p->ids[k]));
    }
    return NULL;
}

static floe_status expand_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    int64_t np, nk, ns, empty;
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "Expand with %d children", n_children);
    FLOE_TRY(floe_codec_get_i64(r, &np));
    FLOE_TRY(floe_codec_get_i64(r, &nk));
    FLOE_TRY(floe_codec_get_i64(r, &ns));
    FLOE_TRY(floe_codec_get_i64(r, &empty));
    int64_t room = (int64_t)(r->len - r->pos);
    if (np < 0 || nk < 0 || nk > 64 || ns < 1 || np > room || ns > room)
        return floe_error(FLOE_ERR_CORRUPT, "Expand: %lld/%lld/%lld columns/keys/sets is impossible", (long long)np,
                          (long long)nk, (long long)ns);
    int64_t n = np + nk;
    floe_expr **e = floe_calloc((size_t)n + 1, sizeof *e);
    char **names = floe_calloc((size_t)n + 1, sizeof *names);
    uint64_t *masks = floe_calloc((size_t)ns, sizeof *masks);
    int64_t *ids = floe_calloc((size_t)ns, sizeof *ids);
    floe_status st = e && names && masks && ids ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding Expand");
    for (int64_t i = 0; i < n && !st; i++) {
        st = floe_codec_get_str(r, &names[i]);
        if (!st) st = floe_codec_get_expr(r, &e[i]);
    }
    if (!st) st = floe_codec_get_str(r, &names[n]);
    for (int64_t k = 0; k < ns && !st; k++) {
        int64_t m;
        st = floe_codec_get_i64(r, &m);
        masks[k] = (uint64_t)m;
        if (!st) st = floe_codec_get_i64(r, &ids[k]);
    }
    if (!st)
        st = floe_plan_expand(children[0], e, (const char *const *)names, (int32_t)np, e + np,
                              (const char *const *)names + np, (int32_t)nk, names[n], masks, ids, (int32_t)ns,
                              empty != 0, out);
    for (int64_t i = 0; i <= n; i++) {
        if (e && i < n) floe_expr_release(e[i]);
        if (names) floe_free(names[i]);
    }
    floe_free(e);
    floe_free(names);
    floe_free(masks);
    floe_free(ids);
    return st;
}

static floe_status expand_explain(const floe_plan *p_, floe_buf *out) {
    const expand_plan *p = (const expand_plan *)p_;
    FLOE_TRY(floe_buf_append_str(out, "pass=["));
    for (int32_t i = 0; i < p->n_pass; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(p->exprs[i], out));
        FLOE_TRY(floe_buf_printf(out, " AS %s", p->names[i]));
    }
    FLOE_TRY(floe_buf_append_str(out, "] keys=["));
    for (int32_t i = 0; i < p->n_keys; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(p->exprs[p->n_pass + i], out));
        FLOE_TRY(floe_buf_printf(out, " AS %s", p->names[p->n_pass + i]));
    }
    FLOE_TRY(floe_buf_append_str(out, "] sets=["));
    for (int32_t k = 0; k < p->n_sets; k++) {
        FLOE_TRY(floe_buf_append_str(out, k ? ", (" : "("));
        bool first = true;
        for (int32_t i = 0; i < p->n_keys; i++) {
            if (p->masks[k] & (UINT64_C(1) << i)) continue;
            FLOE_TRY(floe_buf_printf(out, "%s%s", first ? "" : ", ", p->names[p->n_pass + i]));
            first = false;
        }
        FLOE_TRY(floe_buf_printf(out, ")=%lld", (long long)p->ids[k]));
    }
    FLOE_TRY(floe_buf_printf(out, "] id=%s", p->names[p->n_pass + p->n_keys]));
    if (p->empty_set_rows) FLOE_TRY(floe_buf_append_str(out, " empty_set_rows"));
    return NULL;
}

static void expand_free(floe_plan *p_) {
    expand_plan *p = (expand_plan *)p_;
    for (int32_t i = 0; p->exprs && i < p->n_pass + p->n_keys; i++) floe_expr_release(p->exprs[i]);
    for (int32_t i = 0; p->names && i <= p->n_pass + p->n_keys; i++) floe_free(p->names[i]);
    floe_free(p->exprs);
    floe_free(p->names);
    floe_free(p->masks);
    floe_free(p->ids);
}

static double expand_estimate_rows(const floe_plan *p_) {
    const expand_plan *p = (const expand_plan *)p_;
    double r = floe_plan_estimate_rows(p->head.children[0]);
    return r < 0 ? r : r * p->n_sets;
}

const floe_plan_vtable floe_expand_vt = {
    .name = "Expand",
    .execute = expand_execute,
    .encode_parts = expand_encode,
    .decode_parts = expand_decode,
    .explain_parts = expand_explain,
    .free_parts = expand_free,
    .child_read = floe_exec_child_read_local,
    .estimate_rows = expand_estimate_rows,
};

floe_status floe_plan_expand(floe_plan *child, floe_expr *const *pass, const char *const *pass_names, int32_t n_pass,
                             floe_expr *const *keys, const char *const *key_names, int32_t n_keys, const char *id_name,
                             const uint64_t *null_masks, const int64_t *ids, int32_t n_sets, bool empty_set_rows,
                             floe_plan **out) {
    *out = NULL;
    if (n_pass < 0 || n_keys < 0 || n_keys > 64 || n_sets < 1 || !id_name)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Expand: %d pass columns, %d keys, %d sets", n_pass, n_keys,
                          n_sets);
    int32_t n = n_pass + n_keys;
    expand_plan *p = floe_calloc(1, sizeof *p);
    floe_field *f = floe_calloc((size_t)n + 1, sizeof *f);
    floe_schema *schema = NULL;
    floe_status st = NULL;
    if (p) {
        p->head.vt = &floe_expand_vt; /* so release works on failure */
        atomic_init(&p->head.refcount_, 1);
        p->exprs = floe_calloc((size_t)n + 1, sizeof *p->exprs);
        p->names = floe_calloc((size_t)n + 1, sizeof *p->names);
        p->masks = floe_calloc((size_t)n_sets, sizeof *p->masks);
        p->ids = floe_calloc((size_t)n_sets, sizeof *p->ids);
    }
    if (!p || !f || !p->exprs || !p->names || !p->masks || !p->ids)
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an Expand");
    for (int32_t i = 0; i < n && !st; i++) {
        const floe_expr *e = i < n_pass ? pass[i] : keys[i - n_pass];
        const char *name = i < n_pass ? pass_names[i] : key_names[i - n_pass];
        if (!name) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "Expand: column %d has no name", i);
            break;
        }
        p->exprs[i] = floe_expr_retain((floe_expr *)e);
        if (i < n_pass) p->n_pass = i + 1;
        else p->n_keys = i - n_pass + 1;
        p->names[i] = floe_strdup(name);
        if (!p->names[i]) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an Expand");
            break;
        }
        floe_type *t = NULL;
        st = floe_status_wrap_op(floe_expr_type(e, child->schema, &t), "Expand column '%s'", name);
        if (!st) st = floe_field_init(&f[i], name, t, true, -1);
        floe_type_release(t);
    }
    if (!st) {
        p->names[n] = floe_strdup(id_name);
        if (!p->names[n]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an Expand");
    }
    if (!st) st = floe_field_init(&f[n], id_name, floe_type_primitive(FLOE_TYPE_INT64), false, -1);
    if (!st) {
        memcpy(p->masks, null_masks, (size_t)n_sets * sizeof *p->masks);
        memcpy(p->ids, ids, (size_t)n_sets * sizeof *p->ids);
        p->n_sets = n_sets;
        p->empty_set_rows = empty_set_rows;
        st = floe_type_struct(f, n + 1, &schema);
    }
    if (!st) st = floe_exec_plan_init(&p->head, &floe_expand_vt, schema, child->n_partitions, &child, 1);
    for (int32_t i = 0; f && i <= n; i++) floe_field_clear(&f[i]);
    floe_free(f);
    floe_type_release(schema);
    if (st) {
        if (p) floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}
