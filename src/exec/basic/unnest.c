/*
 * unnest.c — the Unnest node: each input row repeated once per element of
 * the longest of its list expressions, PostgreSQL's unnest(a, b, ...) in
 * FROM (implicitly LATERAL) and its set-returning functions in a select
 * list (PostgreSQL 10+: several run in lockstep to the longest).
 *
 * Output: the child's columns, then per list its element — a map gives its
 * key and value — NULL where a shorter list has run out, then the 1-based
 * ordinality when asked (WITH ORDINALITY).  A NULL or empty list counts as
 * length 0; a row whose lists are all of length 0 yields nothing, or with
 * `outer` one row of NULLs (LEFT JOIN LATERAL unnest(...) ON true).
 *
 * The node holds only its parts; a stream's position (the batch being
 * expanded, its evaluated lists, the row and element reached) lives in
 * the stream, one per partition, so partitions share nothing.  Output
 * batches hold at most batch_size rows however long a row's lists are.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"

typedef struct unnest_plan {
    floe_plan head;
    int32_t n_lists;
    floe_expr **lists; /* list or map expressions over the child's columns */
    int32_t n_names;
    char **names;      /* the output columns after the child's */
    bool ordinality, outer;
} unnest_plan;

typedef struct unnest_stream {
    floe_stream base;
    const unnest_plan *p;
    floe_stream *child;
    const struct floe_cancel *cancel;
    int64_t batch_size;
    floe_batch *cur;   /* the input batch being expanded */
    floe_array **v;    /* its evaluated lists */
    int64_t row;       /* next row of cur */
    int64_t k;         /* next element index of that row */
    /* per output batch: input row, element slot per list (-1: NULL), ordinality */
    uint32_t *idx;
    int64_t *slot;     /* n_lists * batch_size */
    int64_t *ord;
} unnest_stream;

static void drop_batch(unnest_stream *s) {
    floe_batch_release(s->cur);
    s->cur = NULL;
    for (int32_t j = 0; s->v && j < s->p->n_lists; j++) {
        floe_array_release(s->v[j]);
        s->v[j] = NULL;
    }
}

static int64_t list_len(const floe_array *a, int64_t r) {
    if (a->type->id == FLOE_TYPE_NULL || floe_array_is_null(a, r)) return 0;
    int64_t b, e;
    floe_array_get_range(a, r, &b, &e);
    return e - b;
}

/* One output column: slots slot[0..n) (stride 1) of `src`, NULL where -1. */
static floe_status gather(const floe_array *src, int64_t base, const int64_t *slot, int64_t n, floe_array **out) {
    *out = NULL;
    uint32_t *dense = floe_malloc((size_t)(n ? n : 1) * sizeof *dense);
    uint8_t *valid = floe_calloc((size_t)(n / 8 + 1), 1);
    floe_builder *b = NULL;
    floe_status st = dense && valid ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "Unnest: out of memory");
    int64_t m = 0;
    for (int64_t i = 0; !st && i < n; i++)
        if (slot[i] >= 0) {
            dense[m++] = (uint32_t)(base + slot[i]);
            valid[i / 8] |= (uint8_t)(1u << (i % 8));
        }
    if (!st) st = floe_builder_new(src->type, n, &b);
    if (!st) st = floe_builder_append_take_dense(b, src, dense, n, valid);
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_free(dense);
    floe_free(valid);
    return st;
}

/* The output columns of list j for the rows just laid out. */
static floe_status list_columns(unnest_stream *s, int32_t j, int64_t n, floe_array **cols, int32_t *at) {
    const floe_array *a = s->v[j];
    const int64_t *slot = s->slot + (size_t)j * (size_t)s->batch_size;
    const floe_type *lt = floe_plan_schema(&s->p->head)->children[*at].type;
    if (a->type->id == FLOE_TYPE_NULL) {
        FLOE_TRY(floe_array_new_nulls((floe_type *)lt, n, &cols[(*at)++]));
        return NULL;
    }
    const floe_array *child = floe_array_child(a, 0);
    if (a->type->id == FLOE_TYPE_MAP) {
        /* entries struct: slot i is slot (offset + i) of key and value */
        FLOE_TRY(gather(floe_array_child(child, 0), child->offset, slot, n, &cols[(*at)++]));
        return gather(floe_array_child(child, 1), child->offset, slot, n, &cols[(*at)++]);
    }
    return gather(child, 0, slot, n, &cols[(*at)++]);
}

static floe_status int64_column(const int64_t *v, int64_t n, floe_array **out) {
    floe_builder *b = NULL;
    int64_t *vals = NULL;
    floe_status st = floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &b);
    if (!st) st = floe_builder_extend_values(b, n, (void **)&vals);
    for (int64_t i = 0; !st && i < n; i++) {
        vals[i] = v[i];
        if (v[i] < 0) st = floe_builder_set_null(b, i);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/* Lay out up to batch_size output rows from cur; *n is how many. */
static floe_status lay_out(unnest_stream *s, int64_t *n_out) {
    const unnest_plan *p = s->p;
    int64_t cap = s->batch_size, n = 0;
    while (s->row < s->cur->num_rows && n < cap) {
        int64_t r = s->row, len = 0;
        for (int32_t j = 0; j < p->n_lists; j++) {
            int64_t l = list_len(s->v[j], r);
            if (l > len) len = l;
        }
        if (len == 0 && p->outer && s->k == 0) {
            /* one row of NULLs; k = -1 marks it done */
            s->idx[n] = (uint32_t)r;
            for (int32_t j = 0; j < p->n_lists; j++) s->slot[(size_t)j * (size_t)cap + (size_t)n] = -1;
            s->ord[n] = -1;
            n++;
            s->k = -1;
            continue;
        }
        if (s->k < 0 || s->k >= len) {
            s->row++;
            s->k = 0;
            continue;
        }
        int64_t m = len - s->k;
        if (m > cap - n) m = cap - n;
        for (int32_t j = 0; j < p->n_lists; j++) {
            const floe_array *a = s->v[j];
            int64_t l = list_len(a, r), b = 0, e = 0;
            if (l > 0) floe_array_get_range(a, r, &b, &e);
            int64_t *sl = s->slot + (size_t)j * (size_t)cap + (size_t)n;
            for (int64_t q = 0; q < m; q++) sl[q] = s->k + q < l ? b + s->k + q : -1;
        }
        for (int64_t q = 0; q < m; q++) {
            s->idx[n + q] = (uint32_t)r;
            s->ord[n + q] = s->k + q + 1;
        }
        n += m;
        s->k += m;
    }
    *n_out = n;
    return NULL;
}

static floe_status unnest_next(floe_stream *s_, floe_batch **out) {
    unnest_stream *s = (unnest_stream *)s_;
    const unnest_plan *p = s->p;
    *out = NULL;
    for (;;) {
        FLOE_TRY(floe_cancel_check(s->cancel, "Unnest"));
        if (!s->cur) {
            floe_batch *b = NULL;
            FLOE_TRY(floe_stream_next(s->child, &b));
            if (!b) return NULL;
            s->cur = b;
            s->row = 0;
            s->k = 0;
            for (int32_t j = 0; j < p->n_lists; j++) FLOE_TRY(floe_expr_eval(p->lists[j], b, &s->v[j]));
        }
        int64_t n = 0;
        FLOE_TRY(lay_out(s, &n));
        floe_status st = NULL;
        if (n > 0) {
            floe_batch *taken = NULL;
            st = floe_batch_take(s->cur, s->idx, n, &taken);
            int32_t nc = taken ? taken->num_columns : 0, total = floe_schema_num_fields(p->head.schema);
            floe_array **cols = st ? NULL : floe_calloc((size_t)total, sizeof *cols);
            if (!st && !cols) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "Unnest: out of memory");
            for (int32_t i = 0; !st && i < nc; i++) cols[i] = floe_array_retain(floe_batch_column(taken, i));
            int32_t at = nc;
            for (int32_t j = 0; !st && j < p->n_lists; j++) st = list_columns(s, j, n, cols, &at);
            if (!st && p->ordinality) st = int64_column(s->ord, n, &cols[at++]);
            if (!st) st = floe_batch_new(p->head.schema, cols, total, n, out);
            for (int32_t i = 0; cols && i < total; i++) floe_array_release(cols[i]);
            floe_free(cols);
            floe_batch_release(taken);
        }
        if (!st && s->row >= s->cur->num_rows) drop_batch(s);
        if (st || *out) return st;
    }
}

static void unnest_close(floe_stream *s_) {
    unnest_stream *s = (unnest_stream *)s_;
    drop_batch(s);
    floe_stream_close(s->child);
    floe_free(s->v);
    floe_free(s->idx);
    floe_free(s->slot);
    floe_free(s->ord);
    floe_free(s);
}

static floe_status unnest_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const unnest_plan *p = (const unnest_plan *)p_;
    unnest_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening an Unnest stream");
    s->p = p;
    s->cancel = ctx->cancel;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    s->base.next = unnest_next;
    s->base.close = unnest_close;
    size_t cap = (size_t)s->batch_size;
    s->v = floe_calloc((size_t)p->n_lists + 1, sizeof *s->v);
    s->idx = floe_malloc(cap * sizeof *s->idx);
    s->slot = floe_malloc(cap * (size_t)(p->n_lists ? p->n_lists : 1) * sizeof *s->slot);
    s->ord = floe_malloc(cap * sizeof *s->ord);
    floe_status st = s->v && s->idx && s->slot && s->ord ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening an Unnest stream");
    if (!st) st = floe_plan_execute(p->head.children[0], partition, ctx, &s->child);
    if (st) {
        unnest_close(&s->base);
        return st;
    }
    *out = &s->base;
    return NULL;
}

static floe_status unnest_encode(const floe_plan *p_, floe_buf *out) {
    const unnest_plan *p = (const unnest_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->n_lists));
    for (int32_t j = 0; j < p->n_lists; j++) FLOE_TRY(floe_codec_put_expr(out, p->lists[j]));
    FLOE_TRY(floe_codec_put_i64(out, p->n_names));
    for (int32_t i = 0; i < p->n_names; i++) FLOE_TRY(floe_codec_put_str(out, p->names[i]));
    return floe_codec_put_i64(out, (p->ordinality ? 1 : 0) | (p->outer ? 2 : 0));
}

static floe_status unnest_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "Unnest with %d children", n_children);
    int64_t nl = 0, nn = 0, flags = 0;
    FLOE_TRY(floe_codec_get_i64(r, &nl));
    if (nl < 1 || nl > 1000) return floe_error(FLOE_ERR_CORRUPT, "Unnest with %lld lists", (long long)nl);
    floe_expr **lists = floe_calloc((size_t)nl, sizeof *lists);
    char **names = NULL;
    floe_status st = lists ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding an Unnest node");
    for (int64_t j = 0; j < nl && !st; j++) st = floe_codec_get_expr(r, &lists[j]);
    if (!st) st = floe_codec_get_i64(r, &nn);
    if (!st && (nn < 1 || nn > 2 * nl + 1)) st = floe_error(FLOE_ERR_CORRUPT, "Unnest with %lld names", (long long)nn);
    if (!st && !(names = floe_calloc((size_t)nn, sizeof *names))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding an Unnest node");
    for (int64_t i = 0; i < nn && !st; i++) st = floe_codec_get_str(r, &names[i]);
    if (!st) st = floe_codec_get_i64(r, &flags);
    if (!st)
        st = floe_plan_unnest(children[0], lists, (int32_t)nl, (const char *const *)names, (int32_t)nn, flags & 1,
                              (flags & 2) != 0, out);
    for (int64_t j = 0; lists && j < nl; j++) floe_expr_release(lists[j]);
    for (int64_t i = 0; names && i < nn; i++) floe_free(names[i]);
    floe_free(lists);
    floe_free(names);
    return st;
}

static floe_status unnest_explain(const floe_plan *p_, floe_buf *out) {
    const unnest_plan *p = (const unnest_plan *)p_;
    FLOE_TRY(floe_buf_append_str(out, "unnest("));
    for (int32_t j = 0; j < p->n_lists; j++) {
        if (j) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_expr_to_string(p->lists[j], out));
    }
    FLOE_TRY(floe_buf_append_str(out, p->ordinality ? ") WITH ORDINALITY AS (" : ") AS ("));
    for (int32_t i = 0; i < p->n_names; i++) {
        if (i) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(floe_buf_append_str(out, p->names[i]));
    }
    return floe_buf_append_str(out, p->outer ? "), outer" : ")");
}

static void unnest_free(floe_plan *p_) {
    unnest_plan *p = (unnest_plan *)p_;
    for (int32_t j = 0; p->lists && j < p->n_lists; j++) floe_expr_release(p->lists[j]);
    for (int32_t i = 0; p->names && i < p->n_names; i++) floe_free(p->names[i]);
    floe_free(p->lists);
    floe_free(p->names);
}

const floe_plan_vtable floe_unnest_vt = {
    .name = "Unnest",
    .execute = unnest_execute,
    .encode_parts = unnest_encode,
    .decode_parts = unnest_decode,
    .explain_parts = unnest_explain,
    .free_parts = unnest_free,
    .child_read = floe_exec_child_read_local,
};

/* Output fields of a list expression of type t (one, or two for a map)
 * into f[*at ..], named names[*at ..]. */
static floe_status list_fields(const floe_type *t, const char *const *names, int32_t n_names, int32_t *at,
                               floe_field *f) {
    int32_t i = *at, need = t->id == FLOE_TYPE_MAP ? 2 : 1;
    if (i + need > n_names) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Unnest: too few column names");
    *at = i + need;
    if (t->id == FLOE_TYPE_NULL) return floe_field_init(&f[i], names[i], (floe_type *)t, true, -1);
    if (t->id == FLOE_TYPE_LIST) return floe_field_init(&f[i], names[i], t->children[0].type, true, -1);
    if (t->id == FLOE_TYPE_MAP) {
        const floe_type *e = t->children[0].type;
        FLOE_TRY(floe_field_init(&f[i], names[i], e->children[0].type, true, -1));
        return floe_field_init(&f[i + 1], names[i + 1], e->children[1].type, true, -1);
    }
    return floe_error(FLOE_ERR_TYPE, "Unnest: argument must be a list or a map, not %s", floe_type_id_name(t->id));
}

floe_status floe_plan_unnest(floe_plan *child, floe_expr *const *lists, int32_t n_lists, const char *const *names,
                             int32_t n_names, bool ordinality, bool outer, floe_plan **out) {
    *out = NULL;
    if (n_lists < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "Unnest needs a list");
    int32_t nc = floe_schema_num_fields(child->schema), total = nc + n_names;
    floe_field *f = floe_calloc((size_t)total, sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an Unnest node");
    floe_status st = NULL;
    for (int32_t i = 0; i < nc && !st; i++) {
        const floe_field *in = floe_schema_field(child->schema, i);
        st = floe_field_init(&f[i], in->name, in->type, in->nullable || outer, in->field_id);
    }
    int32_t at = 0;
    floe_field *mine = f + nc;
    for (int32_t j = 0; j < n_lists && !st; j++) {
        floe_type *t = NULL;
        st = floe_expr_type(lists[j], child->schema, &t);
        if (!st) st = list_fields(t, names, n_names, &at, mine);
        floe_type_release(t);
    }
    if (!st && ordinality) {
        if (at + 1 != n_names) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "Unnest: column names do not match its lists");
        else st = floe_field_init(&mine[at], names[at], floe_type_primitive(FLOE_TYPE_INT64), outer, -1);
        at++;
    }
    if (!st && at != n_names) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "Unnest: column names do not match its lists");
    floe_schema *schema = NULL;
    if (!st) st = floe_type_struct(f, total, &schema);
    for (int32_t i = 0; i < total; i++) floe_field_clear(&f[i]);
    floe_free(f);
    if (st) return st;
    unnest_plan *p = floe_calloc(1, sizeof *p);
    if (!p) {
        floe_type_release(schema);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an Unnest node");
    }
    p->lists = floe_calloc((size_t)n_lists, sizeof *p->lists);
    p->names = floe_calloc((size_t)n_names, sizeof *p->names);
    for (int32_t j = 0; p->lists && j < n_lists; j++) p->lists[j] = floe_expr_retain(lists[j]);
    p->n_lists = p->lists ? n_lists : 0;
    for (int32_t i = 0; p->names && i < n_names; i++) p->names[i] = floe_strdup(names[i]);
    p->n_names = p->names ? n_names : 0;
    p->ordinality = ordinality;
    p->outer = outer;
    st = floe_exec_plan_init(&p->head, &floe_unnest_vt, schema, child->n_partitions, &child, 1);
    floe_type_release(schema);
    bool names_ok = p->names != NULL;
    for (int32_t i = 0; names_ok && i < n_names; i++) names_ok = p->names[i] != NULL;
    if (!st && (!p->lists || !names_ok)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating an Unnest node");
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}
