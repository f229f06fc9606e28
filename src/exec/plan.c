/*
 * plan.c — the plan node contract: the node head, node properties with
 * their defaults, floe_plan_execute; the node-type registry the codec
 * decodes by; the collect runtime and EXPLAIN.  The node types live in
 * the family folders beside this file (basic/, scan/, join/ ...).
 *
 * Every node embeds `floe_plan` first and is built only by its
 * constructor from parts, which derives the output schema and partition
 * count and checks expression types against the child's schema.  Streams
 * hold the per-partition state and the execution (execution.c) what the
 * partitions of one run share; nodes are immutable and shareable.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "floe/exec.h"
#include "exec/plan_internal.h"
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

/* ------------------------------------------------------------- registry */

/* Node types are listed in node_types.c, so the codec finds any of them
 * by name in a fresh process. */
static const floe_plan_vtable *lookup_builtin(const char *name) {
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
    _Atomic int64_t *fail_seq; /* numbers the partitions' failures in order */
    floe_status err;           /* this partition's failure (a copy) */
    int64_t err_seq;
} part_result;

static floe_status read_partition(part_result *r);

/* A pool task: one partition; its failure stops the others.  The token the
 * partitions run under is the execution's (not the task group's, which is
 * freed before the execution ends while state made under it may live on).
 * The failure is numbered before the others are stopped, so the cause —
 * not a sibling's "cancelled" — is what the query reports. */
static floe_status run_partition(void *arg, const floe_cancel *cancel) {
    (void)cancel;
    part_result *r = arg;
    floe_status st = read_partition(r);
    if (st) {
        r->err = floe_error(floe_status_code(st), "%s", floe_status_message(st));
        r->err_seq = atomic_fetch_add(r->fail_seq, 1);
        floe_cancel_set((floe_cancel *)r->ctx->cancel);
    }
    return st;
}

/* The first failure that is not a cancellation (then the first of any),
 * taken out of res; NULL when no partition failed. */
static floe_status first_failure(part_result *res, int32_t np) {
    int32_t best = -1;
    for (int32_t i = 0; i < np; i++) {
        if (!res[i].err) continue;
        bool cancel = floe_status_code(res[i].err) == FLOE_ERR_CANCELLED;
        if (best < 0) { best = i; continue; }
        bool best_cancel = floe_status_code(res[best].err) == FLOE_ERR_CANCELLED;
        if ((best_cancel && !cancel) || (best_cancel == cancel && res[i].err_seq < res[best].err_seq)) best = i;
    }
    if (best < 0) return NULL;
    floe_status st = res[best].err;
    res[best].err = NULL;
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

floe_status floe_exec_drain_concat(floe_stream *child, const struct floe_cancel *cancel, const char *node,
                                   floe_batch **out) {
    floe_batch **bs = NULL;
    int64_t nb = 0, cap = 0, rows = 0;
    floe_status st = NULL;
    *out = NULL;
    for (;;) {
        floe_batch *b = NULL;
        if ((st = floe_cancel_check(cancel, node))) break;
        if ((st = floe_stream_next(child, &b)) || !b) break;
        if (b->num_rows == 0) {
            floe_batch_release(b);
            continue;
        }
        if (nb == cap) {
            int64_t nc = cap ? cap * 2 : 16;
            floe_batch **n2 = nb >= INT32_MAX ? NULL : floe_realloc(bs, (size_t)nc * sizeof *n2);
            if (!n2) {
                floe_batch_release(b);
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: collecting %lld batches", node, (long long)nb);
                break;
            }
            bs = n2;
            cap = nc;
        }
        bs[nb++] = b;
        rows += b->num_rows;
        if (rows > (int64_t)UINT32_MAX) {
            st = floe_error(FLOE_ERR_UNSUPPORTED, "%s: more than %u rows in one partition", node, UINT32_MAX);
            break;
        }
    }
    if (!st && nb > 0) st = floe_batch_concat(bs, (int32_t)nb, out);
    floe_exec_batches_free(bs, nb);
    return st;
}

static floe_status collect(const floe_plan *p, const floe_exec_ctx *ctx, floe_batch ***batches, int64_t *n_batches) {
    int32_t np = p->n_partitions;
    part_result *res = floe_calloc((size_t)np, sizeof *res);
    if (!res) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "collecting %d partitions", np);
    floe_exec_ctx pctx = *ctx;
    _Atomic int64_t fail_seq = 0;
    for (int32_t i = 0; i < np; i++) {
        res[i].p = p;
        res[i].ctx = &pctx;
        res[i].partition = i;
        res[i].fail_seq = &fail_seq;
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
            floe_status cause = first_failure(res, np);
            if (cause) {
                floe_status_free(w);
                w = cause;
            }
            if (!st) st = w;
            else floe_status_free(w);
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
        floe_status_free(res[i].err);
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
