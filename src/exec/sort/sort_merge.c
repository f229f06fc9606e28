/*
 * sort_merge.c — the SortPreservingMerge node: the child's partitions,
 * each sorted by the keys, merged into one sorted partition.
 *
 * Every child partition is opened as a stream and read through a cursor
 * (current batch, its evaluated keys, a row position).  A binary heap of
 * cursors orders them by their current row (ties: the lower partition
 * first, so the merge is deterministic and stable per partition order).
 * The merge thread drives the child streams itself, pulling a cursor's
 * next batch when it runs out; only the first batch of every partition is
 * fetched in parallel (floe_parallel_for, which lets the waiting thread
 * help), which is where a sorting child does its work.
 *
 * Output rows are collected as runs (batch, first row, length) and copied
 * once into an output batch of up to ctx->batch_size rows; a single run is
 * passed on as a zero-copy slice.
 */
#include <string.h>

#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "exec/sort/sort_keys.h"
#include "floe/exec_ops.h"

typedef struct cursor {
    floe_stream *in;
    floe_batch *b;     /* current batch; NULL when exhausted */
    floe_array **keys; /* its evaluated keys */
    int64_t row;
} cursor;

typedef struct run {
    floe_batch *b; /* one reference */
    int64_t start, len;
} run;

typedef struct merge_stream {
    floe_stream base;
    const floe_sort_plan *p;
    floe_exec_ctx ctx;
    int32_t k;
    cursor *cur;
    int32_t *heap; /* cursor indices; heap[0] is the next row */
    int32_t heap_n;
    bool started;
    bool preopened; /* cur[i].in given (floe_sk_merge_streams), not the child's */
    bool failed;
    int64_t emitted;
    run *runs;
    int64_t n_runs, cap_runs;
} merge_stream;

static void cursor_drop_batch(merge_stream *s, cursor *c) {
    if (c->keys) {
        floe_sk_release(c->keys, s->p->n_keys);
        floe_free(c->keys);
        c->keys = NULL;
    }
    floe_batch_release(c->b);
    c->b = NULL;
    c->row = 0;
}

/* Load the cursor's next non-empty batch (b stays NULL at the end). */
static floe_status cursor_advance_batch(merge_stream *s, cursor *c, const floe_cancel *cancel) {
    cursor_drop_batch(s, c);
    for (;;) {
        floe_batch *b;
        FLOE_TRY(floe_cancel_check(cancel, "SortPreservingMerge"));
        FLOE_TRY(floe_stream_next(c->in, &b));
        if (!b) return NULL;
        if (b->num_rows == 0) {
            floe_batch_release(b);
            continue;
        }
        floe_array **keys = floe_calloc((size_t)s->p->n_keys, sizeof *keys);
        floe_status st = keys ? floe_sk_eval(s->p->keys, s->p->n_keys, b, keys)
                              : floe_error(FLOE_ERR_OUT_OF_MEMORY, "SortPreservingMerge: keys");
        if (st) {
            floe_free(keys);
            floe_batch_release(b);
            return st;
        }
        c->b = b;
        c->keys = keys;
        return NULL;
    }
}

/* a before b? */
static bool cursor_less(const merge_stream *s, int32_t a, int32_t b) {
    const cursor *x = &s->cur[a], *y = &s->cur[b];
    int c = floe_sk_compare(s->p->keys, s->p->n_keys, x->keys, x->row, y->keys, y->row);
    return c < 0 || (c == 0 && a < b);
}

static void heap_down(merge_stream *s, int32_t i) {
    int32_t n = s->heap_n, v = s->heap[i];
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && cursor_less(s, s->heap[c + 1], s->heap[c])) c++;
        if (!cursor_less(s, s->heap[c], v)) break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    s->heap[i] = v;
}

typedef struct fill_ctx {
    merge_stream *s;
} fill_ctx;

static floe_status fill_range(void *ctx_, size_t begin, size_t end, const floe_cancel *cancel) {
    fill_ctx *f = ctx_;
    for (size_t i = begin; i < end; i++)
        FLOE_TRY_CTX(cursor_advance_batch(f->s, &f->s->cur[i], cancel), "partition %zu", i);
    return NULL;
}

/* Open every child partition and read its first batch (in parallel). */
static floe_status start(merge_stream *s) {
    const floe_plan *child = s->p->head.children[0];
    for (int32_t i = 0; i < s->k && !s->preopened; i++) FLOE_TRY(floe_plan_execute(child, i, &s->ctx, &s->cur[i].in));
    if (s->k == 1) {
        FLOE_TRY(cursor_advance_batch(s, &s->cur[0], s->ctx.cancel));
    } else {
        floe_threadpool *pool = s->ctx.pool;
        if (!pool) FLOE_TRY(floe_threadpool_default(&pool));
        fill_ctx f = {s};
        FLOE_TRY(floe_parallel_for(pool, (size_t)s->k, 1, fill_range, &f, s->ctx.cancel));
    }
    for (int32_t i = 0; i < s->k; i++)
        if (s->cur[i].b) s->heap[s->heap_n++] = i;
    for (int32_t i = s->heap_n / 2 - 1; i >= 0; i--) heap_down(s, i);
    return NULL;
}

static floe_status add_run(merge_stream *s, const cursor *c) {
    if (s->n_runs > 0) {
        run *last = &s->runs[s->n_runs - 1];
        if (last->b == c->b && last->start + last->len == c->row) {
            last->len++;
            return NULL;
        }
    }
    if (s->n_runs == s->cap_runs) {
        int64_t nc = s->cap_runs ? s->cap_runs * 2 : 64;
        run *r2 = floe_realloc(s->runs, (size_t)nc * sizeof *r2);
        if (!r2) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "SortPreservingMerge: output runs");
        s->runs = r2;
        s->cap_runs = nc;
    }
    run *r = &s->runs[s->n_runs++];
    r->b = floe_batch_retain(c->b);
    r->start = c->row;
    r->len = 1;
    return NULL;
}

static void clear_runs(merge_stream *s) {
    for (int64_t i = 0; i < s->n_runs; i++) floe_batch_release(s->runs[i].b);
    s->n_runs = 0;
}

/* Copy the collected runs into one output batch. */
static floe_status build_output(merge_stream *s, int64_t rows, floe_batch **out) {
    if (s->n_runs == 1) return floe_batch_slice(s->runs[0].b, s->runs[0].start, s->runs[0].len, out);
    const floe_schema *sch = s->p->head.schema;
    int32_t nc = floe_schema_num_fields(sch);
    floe_array **cols = floe_calloc((size_t)(nc ? nc : 1), sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "SortPreservingMerge: output batch");
    floe_status st = NULL;
    for (int32_t c = 0; c < nc && !st; c++) {
        floe_builder *b;
        st = floe_builder_new(sch->children[c].type, rows, &b);
        for (int64_t i = 0; i < s->n_runs && !st; i++)
            st = floe_builder_append_array(b, s->runs[i].b->columns[c], s->runs[i].start, s->runs[i].len);
        if (!st) st = floe_builder_finish(b, &cols[c]);
        if (b) floe_builder_free(b);
    }
    if (!st) st = floe_batch_new((floe_schema *)sch, cols, nc, rows, out);
    for (int32_t c = 0; c < nc; c++) floe_array_release(cols[c]);
    floe_free(cols);
    return st;
}

static floe_status merge_next_inner(merge_stream *s, floe_batch **out) {
    FLOE_TRY(floe_cancel_check(s->ctx.cancel, "SortPreservingMerge"));
    if (!s->started) {
        s->started = true;
        FLOE_TRY(start(s));
    }
    int64_t limit = s->ctx.batch_size > 0 ? s->ctx.batch_size : 8192;
    if (s->p->fetch >= 0 && s->p->fetch - s->emitted < limit) limit = s->p->fetch - s->emitted;
    int64_t rows = 0;
    floe_status st = NULL;
    while (rows < limit && s->heap_n > 0) {
        int32_t ci = s->heap[0];
        cursor *c = &s->cur[ci];
        if ((st = add_run(s, c))) break;
        rows++;
        if (++c->row == c->b->num_rows) {
            if ((st = cursor_advance_batch(s, c, s->ctx.cancel))) break;
            if (!c->b) {
                s->heap[0] = s->heap[--s->heap_n];
                if (s->heap_n == 0) break;
            }
        }
        heap_down(s, 0);
    }
    if (!st && rows > 0) st = build_output(s, rows, out);
    clear_runs(s);
    if (!st) s->emitted += rows;
    return st;
}

static floe_status merge_next(floe_stream *s_, floe_batch **out) {
    merge_stream *s = (merge_stream *)s_;
    *out = NULL;
    if (s->failed) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "SortPreservingMerge: stream already failed");
    floe_status st = merge_next_inner(s, out);
    if (st) s->failed = true;
    return st;
}

static void merge_close(floe_stream *s_) {
    merge_stream *s = (merge_stream *)s_;
    clear_runs(s);
    floe_free(s->runs);
    for (int32_t i = 0; s->cur && i < s->k; i++) {
        cursor_drop_batch(s, &s->cur[i]);
        floe_stream_close(s->cur[i].in);
    }
    floe_free(s->cur);
    floe_free(s->heap);
    floe_free(s);
}

static floe_status merge_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                 floe_stream **out) {
    (void)partition;
    merge_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a SortPreservingMerge stream");
    s->base.next = merge_next;
    s->base.close = merge_close;
    s->p = (const floe_sort_plan *)p;
    s->ctx = *ctx;
    s->k = p->children[0]->n_partitions;
    s->cur = floe_calloc((size_t)s->k, sizeof *s->cur);
    s->heap = floe_calloc((size_t)s->k, sizeof *s->heap);
    if (!s->cur || !s->heap) {
        merge_close(&s->base);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a SortPreservingMerge stream");
    }
    *out = &s->base;
    return NULL;
}

floe_status floe_sk_merge_streams(const floe_sort_plan *p, floe_stream **in, int32_t k, const floe_exec_ctx *ctx,
                                  floe_stream **out) {
    *out = NULL;
    merge_stream *s = floe_calloc(1, sizeof *s);
    if (s) {
        s->cur = floe_calloc((size_t)(k ? k : 1), sizeof *s->cur);
        s->heap = floe_calloc((size_t)(k ? k : 1), sizeof *s->heap);
    }
    if (!s || !s->cur || !s->heap) {
        for (int32_t i = 0; i < k; i++) floe_stream_close(in[i]);
        if (s) {
            floe_free(s->cur);
            floe_free(s->heap);
        }
        floe_free(s);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: merging %d sorted runs", p->head.vt->name, k);
    }
    s->base.next = merge_next;
    s->base.close = merge_close;
    s->p = p;
    s->ctx = *ctx;
    s->k = k;
    s->preopened = true;
    for (int32_t i = 0; i < k; i++) s->cur[i].in = in[i];
    *out = &s->base;
    return NULL;
}

/* ------------------------------------------------------------------ node */

static floe_status merge_encode(const floe_plan *p_, floe_buf *out) {
    const floe_sort_plan *p = (const floe_sort_plan *)p_;
    FLOE_TRY(floe_sk_encode(out, p->keys, p->n_keys));
    return floe_codec_put_i64(out, p->fetch);
}

static floe_status merge_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    floe_sort_key *keys;
    int32_t n;
    int64_t fetch = 0;
    if (n_children != 1) return floe_error(FLOE_ERR_CORRUPT, "SortPreservingMerge with %d children", n_children);
    FLOE_TRY(floe_sk_decode(r, &keys, &n));
    floe_status st = floe_codec_get_i64(r, &fetch);
    if (!st) st = floe_plan_sort_merge(children[0], keys, n, fetch, out);
    floe_sk_free_keys(keys, n);
    return st;
}

static floe_status merge_explain(const floe_plan *p_, floe_buf *out) {
    const floe_sort_plan *p = (const floe_sort_plan *)p_;
    return floe_sk_explain(out, p->keys, p->n_keys, p->fetch);
}

static void merge_free(floe_plan *p_) {
    floe_sort_plan *p = (floe_sort_plan *)p_;
    floe_sk_free_keys(p->keys, p->n_keys);
}

/* Each child partition is a sorted run, read as an input of its own. */
static floe_child_read merge_child_read(const floe_plan *p, int32_t child, floe_distribution *route) {
    (void)p;
    (void)child;
    (void)route;
    return FLOE_READ_EACH;
}

const floe_plan_vtable floe_sort_merge_vt = {
    .name = "SortPreservingMerge",
    .execute = merge_execute,
    .encode_parts = merge_encode,
    .decode_parts = merge_decode,
    .explain_parts = merge_explain,
    .free_parts = merge_free,
    .child_read = merge_child_read,
};

floe_status floe_plan_sort_merge(floe_plan *child, const floe_sort_key *keys, int32_t n_keys, int64_t fetch,
                                 floe_plan **out) {
    *out = NULL;
    if (fetch < -1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "SortPreservingMerge: fetch %lld", (long long)fetch);
    FLOE_TRY(floe_sk_check("SortPreservingMerge", keys, n_keys, child->schema));
    floe_sort_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a SortPreservingMerge node");
    p->fetch = fetch;
    floe_status st = floe_exec_plan_init(&p->head, &floe_sort_merge_vt, child->schema, 1, &child, 1);
    if (!st) st = floe_sk_copy_keys(keys, n_keys, &p->keys);
    if (!st) p->n_keys = n_keys;
    if (!st) st = floe_exec_plan_set_ordering(&p->head, keys, n_keys);
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}
