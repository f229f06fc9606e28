/*
 * cte.c — CTEs computed once, and the scans of held rows.
 *
 * MaterializedCTE(definition, main): the plan of a WITH query referenced
 * more than once (or marked MATERIALIZED) runs once per execution; its
 * batches are held (the node's per-execution state) and registered with
 * the execution under the CTE's key, where every CteScan in `main` reads
 * them.  So a CTE is computed once however often it is read, and a
 * volatile one (random()) gives the same rows at every reference.  The
 * node's partitions are main's; the definition is read whole (required
 * input SINGLE) by whichever partition opens first.
 *
 * CteScan and WorkTableScan are the same leaf: one partition, the
 * batches held under their key in the execution (or its parent,
 * floe_exec_rows_get).  WorkTableScan reads a RecursiveUnion's working
 * table (recursive.c), CteScan a MaterializedCTE's rows.
 *
 * Neither node declares child_read: a plan holding one runs whole in one
 * process under MPI (the coordinator), as it does locally.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"
#include "floe/memory.h"

/* ------------------------------------------------------------- the scans */

typedef struct held_scan_plan {
    floe_plan head;
    char *name;
    int64_t key;
} held_scan_plan;

typedef struct held_scan_stream {
    floe_stream base;
    const floe_exec_rows *rows;
    const floe_plan *p;
    const floe_cancel *cancel;
    int32_t next;
} held_scan_stream;

static floe_status held_next(floe_stream *s_, floe_batch **out) {
    held_scan_stream *s = (held_scan_stream *)s_;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, s->p->vt->name));
    while (s->next < s->rows->n) {
        floe_batch *b = s->rows->batches[s->next++];
        if (b->num_rows == 0) continue;
        return floe_batch_new(s->p->schema, b->columns, b->num_columns, b->num_rows, out);
    }
    return NULL;
}

static void held_close(floe_stream *s) { floe_free(s); }

extern const floe_plan_vtable floe_worktable_scan_vt;

static floe_status held_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const held_scan_plan *p = (const held_scan_plan *)p_;
    *out = NULL;
    if (partition != 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s has one partition", p_->vt->name);
    const floe_exec_rows *rows = floe_exec_rows_get(ctx, p->key);
    if (!rows)
        return floe_error(FLOE_ERR_INTERNAL, "%s of \"%s\": no rows held under key %lld (run outside its %s)",
                          p_->vt->name, p->name, (long long)p->key,
                          p_->vt == &floe_worktable_scan_vt ? "RecursiveUnion" : "MaterializedCTE");
    held_scan_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a %s stream", p_->vt->name);
    s->base.next = held_next;
    s->base.close = held_close;
    s->rows = rows;
    s->p = p_;
    s->cancel = ctx->cancel;
    *out = &s->base;
    return NULL;
}

static floe_status held_encode(const floe_plan *p_, floe_buf *out) {
    const held_scan_plan *p = (const held_scan_plan *)p_;
    FLOE_TRY(floe_codec_put_type(out, p->head.schema));
    FLOE_TRY(floe_codec_put_str(out, p->name));
    return floe_codec_put_i64(out, p->key);
}

static floe_status held_decode(floe_reader *r, bool worktable, floe_plan **out) {
    floe_type *schema = NULL;
    char *name = NULL;
    int64_t key = 0;
    floe_status st = floe_codec_get_type(r, &schema);
    if (!st) st = floe_codec_get_str(r, &name);
    if (!st) st = floe_codec_get_i64(r, &key);
    if (!st) st = floe_plan_cte_scan(schema, name, key, worktable, out);
    floe_type_release(schema);
    floe_free(name);
    return st;
}

static floe_status cte_scan_decode(floe_reader *r, floe_plan *const *c, int32_t n, floe_plan **out) {
    (void)c;
    (void)n;
    return held_decode(r, false, out);
}

static floe_status worktable_decode(floe_reader *r, floe_plan *const *c, int32_t n, floe_plan **out) {
    (void)c;
    (void)n;
    return held_decode(r, true, out);
}

static floe_status held_explain(const floe_plan *p_, floe_buf *out) {
    const held_scan_plan *p = (const held_scan_plan *)p_;
    return floe_buf_printf(out, "cte=%s, key=%lld", p->name, (long long)p->key);
}

static void held_free(floe_plan *p_) { floe_free(((held_scan_plan *)p_)->name); }

const floe_plan_vtable floe_cte_scan_vt = {
    .name = "CteScan",
    .execute = held_execute,
    .encode_parts = held_encode,
    .decode_parts = cte_scan_decode,
    .explain_parts = held_explain,
    .free_parts = held_free,
};

const floe_plan_vtable floe_worktable_scan_vt = {
    .name = "WorkTableScan",
    .execute = held_execute,
    .encode_parts = held_encode,
    .decode_parts = worktable_decode,
    .explain_parts = held_explain,
    .free_parts = held_free,
};

floe_status floe_plan_cte_scan(floe_schema *schema, const char *name, int64_t key, bool worktable, floe_plan **out) {
    *out = NULL;
    if (!schema || schema->id != FLOE_TYPE_STRUCT)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "CteScan: the schema must be a struct type");
    held_scan_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a CteScan");
    floe_status st =
        floe_exec_plan_init(&p->head, worktable ? &floe_worktable_scan_vt : &floe_cte_scan_vt, schema, 1, NULL, 0);
    if (!st && !(p->name = floe_strdup(name ? name : "?"))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a CteScan");
    p->key = key;
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

/* ------------------------------------------------------ MaterializedCTE */

typedef struct mat_plan {
    floe_plan head;
    char *name;
    int64_t key;
} mat_plan;

/* Per execution: the definition's rows, computed once. */
typedef struct mat_state {
    floe_exec_rows rows;
    int32_t cap;
} mat_state;

static void mat_free_shared(void *state) {
    mat_state *m = state;
    for (int32_t i = 0; i < m->rows.n; i++) floe_batch_release(m->rows.batches[i]);
    floe_free(m->rows.batches);
    floe_free(m);
}

static floe_status mat_init_shared(const floe_plan *p_, const floe_exec_ctx *ctx, void **state) {
    const mat_plan *p = (const mat_plan *)p_;
    *state = NULL;
    mat_state *m = floe_calloc(1, sizeof *m);
    if (!m) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "MaterializedCTE: out of memory");
    floe_stream *def = NULL;
    floe_status st = floe_plan_execute(p->head.children[0], 0, ctx, &def);
    while (!st) {
        floe_batch *b = NULL;
        st = floe_cancel_check(ctx->cancel, "MaterializedCTE");
        if (!st) st = floe_stream_next(def, &b);
        if (st || !b) break;
        if (m->rows.n == m->cap) {
            int32_t cap = m->cap ? m->cap * 2 : 8;
            floe_batch **v = floe_realloc(m->rows.batches, (size_t)cap * sizeof *v);
            if (!v) {
                floe_batch_release(b);
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "MaterializedCTE \"%s\": holding its rows", p->name);
                break;
            }
            m->rows.batches = v;
            m->cap = cap;
        }
        m->rows.batches[m->rows.n++] = b;
    }
    floe_stream_close(def);
    if (!st) st = floe_execution_put_rows(ctx->exec, p->key, &m->rows);
    if (st) {
        mat_free_shared(m);
        return floe_status_wrap(st, "computing WITH query \"%s\"", p->name);
    }
    *state = m;
    return NULL;
}

static floe_status mat_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    void *state = NULL;
    *out = NULL;
    /* The definition runs (once) before any reader of it opens. */
    FLOE_TRY(floe_exec_shared(p_, ctx, &state));
    return floe_plan_execute(p_->children[1], partition, ctx, out);
}

static floe_status mat_encode(const floe_plan *p_, floe_buf *out) {
    const mat_plan *p = (const mat_plan *)p_;
    FLOE_TRY(floe_codec_put_str(out, p->name));
    return floe_codec_put_i64(out, p->key);
}

static floe_status mat_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    char *name = NULL;
    int64_t key = 0;
    floe_status st = n_children == 2 ? NULL : floe_error(FLOE_ERR_CORRUPT, "MaterializedCTE: %d children", n_children);
    if (!st) st = floe_codec_get_str(r, &name);
    if (!st) st = floe_codec_get_i64(r, &key);
    if (!st) st = floe_plan_materialize_cte(children[0], children[1], name, key, out);
    floe_free(name);
    return st;
}

static floe_status mat_explain(const floe_plan *p_, floe_buf *out) {
    const mat_plan *p = (const mat_plan *)p_;
    return floe_buf_printf(out, "cte=%s, key=%lld", p->name, (long long)p->key);
}

static floe_distribution mat_required_input(const floe_plan *p, int32_t child) {
    (void)p;
    floe_distribution d = {child == 0 ? FLOE_DIST_SINGLE : FLOE_DIST_UNSPECIFIED, 0, NULL};
    return d;
}

static void mat_free(floe_plan *p_) { floe_free(((mat_plan *)p_)->name); }

const floe_plan_vtable floe_materialized_cte_vt = {
    .name = "MaterializedCTE",
    .execute = mat_execute,
    .encode_parts = mat_encode,
    .decode_parts = mat_decode,
    .explain_parts = mat_explain,
    .required_input = mat_required_input,
    .free_parts = mat_free,
    .init_shared = mat_init_shared,
    .free_shared = mat_free_shared,
};

floe_status floe_plan_materialize_cte(floe_plan *definition, floe_plan *main, const char *name, int64_t key,
                                      floe_plan **out) {
    *out = NULL;
    mat_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a MaterializedCTE");
    floe_plan *kids[2] = {definition, main};
    floe_status st = floe_exec_plan_init(&p->head, &floe_materialized_cte_vt, main->schema, main->n_partitions, kids, 2);
    if (!st && !(p->name = floe_strdup(name ? name : "?")))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a MaterializedCTE");
    if (!st && main->n_ordering) st = floe_exec_plan_set_ordering(&p->head, main->ordering, main->n_ordering);
    p->key = key;
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}
