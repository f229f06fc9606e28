/*
 * recursive.c — the RecursiveUnion node: WITH RECURSIVE's
 * `anchor UNION [ALL] recursive-term`, evaluated as PostgreSQL does.
 *
 * Child 0 (the non-recursive term) runs once; its rows are output and
 * become the working table.  Then child 1 (the recursive term, whose
 * WorkTableScan leaves read the working table, cte.c) runs again and
 * again, each run over the rows the previous one produced, until a run
 * produces none.  With UNION (distinct) every row already output is
 * dropped from each run's result — the table of seen rows is the hash
 * aggregate's group table — so a walk over a cyclic graph ends.
 *
 * Re-running a plan: within one execution a node's partition opens at
 * most once (floe_execution), so every iteration runs the recursive term
 * in an execution of its own, a child of the query's, holding the working
 * table under the node's key (floe_execution_put_rows); the plan itself
 * stays immutable and any number of runs of it may be going on at once.
 *
 * The node has one partition and both children are read whole in this
 * process (required input SINGLE; the SQL layer plans the recursive term
 * with one partition, so it re-runs without exchanges): the recursion
 * runs on one thread.  It declares no child_read, so under MPI a plan
 * holding it runs whole on the coordinator, as locally — right, if not
 * distributed.  An iteration limit (the session's max_recursion_depth,
 * a part of the node) turns a recursion that does not end into an error.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/agg/hash_agg_internal.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"
#include "floe/memory.h"

typedef struct ru_plan {
    floe_plan head;
    char *name;             /* the CTE's name, for errors and EXPLAIN */
    bool distinct;          /* UNION (not UNION ALL) */
    int64_t max_iterations; /* runs of the recursive term allowed */
    int64_t key;            /* the working table's key in each iteration */
} ru_plan;

/* A growing list of batches (one reference each). */
typedef struct batch_list {
    floe_batch **v;
    int32_t n, cap;
    int64_t rows;
} batch_list;

static void list_clear(batch_list *l) {
    for (int32_t i = 0; i < l->n; i++) floe_batch_release(l->v[i]);
    floe_free(l->v);
    memset(l, 0, sizeof *l);
}

static floe_status list_add(batch_list *l, floe_batch *b) {
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 8;
        floe_batch **v = floe_realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "RecursiveUnion: holding the working table");
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = floe_batch_retain(b);
    l->rows += b->num_rows;
    return NULL;
}

typedef struct ru_stream {
    floe_stream base;
    const ru_plan *p;
    floe_exec_ctx ctx;       /* the query's context (its execution is the parent) */
    floe_stream *child;      /* the term being read; NULL between runs */
    floe_execution *iter;    /* the current iteration's execution, or NULL */
    floe_exec_ctx iter_ctx;
    batch_list work;         /* the previous run's rows: the working table */
    floe_exec_rows work_rows; /* `work` as the WorkTableScan reads it */
    batch_list next;         /* this run's rows so far */
    int64_t iterations;
    bool done;
    /* UNION: the rows output so far */
    gtable seen;
    scratch sc;
    uint32_t *keep;
    int64_t keep_cap;
} ru_stream;

/* Only the rows of b not output before (and not repeated within b). */
static floe_status drop_seen(ru_stream *s, floe_batch *b, floe_batch **out) {
    *out = NULL;
    int64_t n = b->num_rows;
    if (n > UINT32_MAX) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "RecursiveUnion: a batch of %lld rows", (long long)n);
    FLOE_TRY(hagg_scratch_reserve(&s->sc, n));
    FLOE_TRY(hagg_gt_reserve(&s->seen, n));
    FLOE_TRY(floe_hash_rows(b->columns, b->num_columns, n, s->sc.hashes));
    FLOE_TRY(hagg_encode_keys(&s->sc, b->columns, b->num_columns, NULL, n, NULL, s->seen.kw));
    FLOE_TRY(hagg_gt_probe(&s->seen, n, s->sc.hashes, s->sc.bytes, s->sc.offs, s->sc.ids, s->sc.is_new));
    if (n > s->keep_cap) {
        uint32_t *k = floe_realloc(s->keep, (size_t)n * sizeof *k);
        if (!k) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "RecursiveUnion: dropping repeated rows");
        s->keep = k;
        s->keep_cap = n;
    }
    int64_t m = 0;
    for (int64_t r = 0; r < n; r++)
        if (s->sc.is_new[r]) s->keep[m++] = (uint32_t)r;
    if (m == n) {
        *out = floe_batch_retain(b);
        return NULL;
    }
    return floe_batch_take(b, s->keep, m, out);
}

static void end_iteration(ru_stream *s) {
    floe_stream_close(s->child);
    s->child = NULL;
    floe_execution_end(s->iter);
    s->iter = NULL;
}

/* Start the next run of the recursive term over the rows of the last. */
static floe_status start_iteration(ru_stream *s) {
    list_clear(&s->work);
    s->work = s->next;
    memset(&s->next, 0, sizeof s->next);
    if (s->work.rows == 0) {
        s->done = true;
        return NULL;
    }
    /* The run past the limit still runs: only a row from it is an error
     * (a recursion of exactly max_iterations productive runs ends). */
    s->iterations++;
    FLOE_TRY(floe_cancel_check(s->ctx.cancel, "RecursiveUnion"));
    s->work_rows.batches = s->work.v;
    s->work_rows.n = s->work.n;
    s->iter_ctx = s->ctx;
    s->iter_ctx.cancel = s->ctx.cancel;
    FLOE_TRY(floe_execution_begin(&s->iter_ctx, &s->iter));
    floe_execution_set_parent(s->iter, s->ctx.exec);
    FLOE_TRY(floe_execution_put_rows(s->iter, s->p->key, &s->work_rows));
    return floe_plan_execute(s->p->head.children[1], 0, &s->iter_ctx, &s->child);
}

static floe_status ru_next(floe_stream *s_, floe_batch **out) {
    ru_stream *s = (ru_stream *)s_;
    *out = NULL;
    for (;;) {
        if (s->done) return NULL;
        if (!s->child) {
            FLOE_TRY(start_iteration(s));
            continue;
        }
        floe_batch *b = NULL;
        FLOE_TRY(floe_stream_next(s->child, &b));
        if (!b) {
            end_iteration(s);
            continue;
        }
        floe_batch *kept = NULL;
        floe_status st = NULL;
        if (s->p->distinct) st = drop_seen(s, b, &kept);
        else kept = floe_batch_retain(b);
        floe_batch_release(b);
        if (!st && kept->num_rows > 0 && s->iterations > s->p->max_iterations)
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                            "recursive query \"%s\" did not end after %lld iterations (max_recursion_depth = %lld; "
                            "raise it with SET max_recursion_depth = N, or check the recursion stops, e.g. with UNION "
                            "instead of UNION ALL)",
                            s->p->name, (long long)s->p->max_iterations, (long long)s->p->max_iterations);
        if (!st && kept->num_rows > 0) {
            /* Passed on under the node's schema (names from the anchor). */
            st = floe_batch_new(s->p->head.schema, kept->columns, kept->num_columns, kept->num_rows, out);
            if (!st) st = list_add(&s->next, *out);
        }
        floe_batch_release(kept);
        if (st) {
            floe_batch_release(*out);
            *out = NULL;
            return st;
        }
        if (*out) return NULL;
    }
}

static void ru_close(floe_stream *s_) {
    ru_stream *s = (ru_stream *)s_;
    end_iteration(s);
    list_clear(&s->work);
    list_clear(&s->next);
    hagg_gt_free(&s->seen);
    hagg_scratch_free(&s->sc);
    floe_free(s->keep);
    floe_free(s);
}

static floe_status ru_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const ru_plan *p = (const ru_plan *)p_;
    *out = NULL;
    if (partition != 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "RecursiveUnion has one partition, not %d", partition);
    ru_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a RecursiveUnion stream");
    s->base.next = ru_next;
    s->base.close = ru_close;
    s->p = p;
    s->ctx = *ctx;
    if (p->distinct) {
        int32_t nc = floe_schema_num_fields(p->head.schema);
        floe_type **types = floe_calloc((size_t)nc + 1, sizeof *types);
        if (!types) {
            floe_free(s);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a RecursiveUnion stream");
        }
        for (int32_t i = 0; i < nc; i++) types[i] = floe_schema_field(p->head.schema, i)->type;
        s->seen.kw = hagg_fixed_key_width(types, nc, false);
        floe_free(types);
    }
    /* The anchor runs in the query's own execution, once. */
    floe_status st = floe_plan_execute(p->head.children[0], 0, ctx, &s->child);
    if (st) {
        ru_close(&s->base);
        return st;
    }
    *out = &s->base;
    return NULL;
}

static floe_status ru_encode(const floe_plan *p_, floe_buf *out) {
    const ru_plan *p = (const ru_plan *)p_;
    FLOE_TRY(floe_codec_put_str(out, p->name));
    FLOE_TRY(floe_codec_put_i64(out, p->distinct));
    FLOE_TRY(floe_codec_put_i64(out, p->max_iterations));
    return floe_codec_put_i64(out, p->key);
}

static floe_status ru_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    char *name = NULL;
    int64_t distinct = 0, max = 0, key = 0;
    floe_status st = n_children == 2 ? NULL : floe_error(FLOE_ERR_CORRUPT, "RecursiveUnion: %d children", n_children);
    if (!st) st = floe_codec_get_str(r, &name);
    if (!st) st = floe_codec_get_i64(r, &distinct);
    if (!st) st = floe_codec_get_i64(r, &max);
    if (!st) st = floe_codec_get_i64(r, &key);
    if (!st) st = floe_plan_recursive_union(children[0], children[1], name, distinct != 0, max, key, out);
    floe_free(name);
    return st;
}

static floe_status ru_explain(const floe_plan *p_, floe_buf *out) {
    const ru_plan *p = (const ru_plan *)p_;
    return floe_buf_printf(out, "cte=%s, %s, key=%lld, max_iterations=%lld", p->name,
                           p->distinct ? "UNION" : "UNION ALL", (long long)p->key, (long long)p->max_iterations);
}

static floe_distribution ru_required_input(const floe_plan *p, int32_t child) {
    (void)p;
    (void)child;
    floe_distribution d = {FLOE_DIST_SINGLE, 0, NULL};
    return d;
}

static void ru_free(floe_plan *p_) { floe_free(((ru_plan *)p_)->name); }

const floe_plan_vtable floe_recursive_union_vt = {
    .name = "RecursiveUnion",
    .execute = ru_execute,
    .encode_parts = ru_encode,
    .decode_parts = ru_decode,
    .explain_parts = ru_explain,
    .required_input = ru_required_input,
    .free_parts = ru_free,
    /* no child_read: never split across processes (see the top) */
};

floe_status floe_plan_recursive_union(floe_plan *anchor, floe_plan *recursive, const char *name, bool distinct,
                                      int64_t max_iterations, int64_t key, floe_plan **out) {
    *out = NULL;
    const floe_schema *a = floe_plan_schema(anchor), *b = floe_plan_schema(recursive);
    int32_t n = floe_schema_num_fields(a);
    if (floe_schema_num_fields(b) != n)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "RecursiveUnion: the terms have %d and %d columns", n,
                          floe_schema_num_fields(b));
    for (int32_t i = 0; i < n; i++) {
        if (!floe_type_equals(floe_schema_field(a, i)->type, floe_schema_field(b, i)->type))
            return floe_error(FLOE_ERR_TYPE, "RecursiveUnion: column %d differs in type between the terms", i + 1);
        if (distinct && !hagg_key_type_ok(floe_schema_field(a, i)->type))
            return floe_error(FLOE_ERR_UNSUPPORTED, "recursive query \"%s\": UNION cannot compare column %d's type",
                              name ? name : "?", i + 1);
    }
    if (max_iterations < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "RecursiveUnion: max_iterations must be >= 1");
    /* A column is nullable when either term's is. */
    floe_field *f = floe_calloc((size_t)n + 1, sizeof *f);
    floe_schema *schema = NULL;
    floe_status st = f ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a RecursiveUnion");
    for (int32_t i = 0; !st && i < n; i++) {
        const floe_field *x = floe_schema_field(a, i), *y = floe_schema_field(b, i);
        st = floe_field_init(&f[i], x->name, x->type, x->nullable || y->nullable, -1);
    }
    if (!st) st = floe_type_struct(f, n, &schema);
    for (int32_t i = 0; f && i < n; i++) floe_field_clear(&f[i]);
    floe_free(f);
    ru_plan *p = st ? NULL : floe_calloc(1, sizeof *p);
    if (!st && !p) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a RecursiveUnion");
    if (!st) {
        floe_plan *kids[2] = {anchor, recursive};
        st = floe_exec_plan_init(&p->head, &floe_recursive_union_vt, schema, 1, kids, 2);
        if (!st && !(p->name = floe_strdup(name ? name : "?")))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a RecursiveUnion");
        p->distinct = distinct;
        p->max_iterations = max_iterations;
        p->key = key;
        if (st) {
            floe_plan_release(&p->head);
            p = NULL;
        }
    }
    floe_type_release(schema);
    if (st) return st;
    *out = &p->head;
    return NULL;
}
