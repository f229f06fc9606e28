/*
 * execution.c — one run of a plan: the per-execution state of its nodes
 * and the cancellation tokens its exchanges make (include/floe/exec.h,
 * "executions"; docs/ARCHITECTURE.md, exec).
 *
 * Why a separate object: a plan is immutable and may run many times, also
 * at once (a server's prepared statement, two statements sharing a
 * subplan, a retried task).  What one run shares between partitions used
 * to hang off the nodes, so two runs trampled each other and, worse, an
 * inner exchange kept by its node could outlive the outer exchange whose
 * cancellation token its own token pointed to.  Here the state of every
 * node lives in the execution, made on first use through the node's
 * init_shared slot, and is freed — newest first — only when the execution
 * ends; the tokens are freed after all of it, so no token is ever read
 * after its parent is gone.
 *
 * Entries are few (one per node with shared state) and looked up when a
 * stream opens, so a list under one mutex is plenty.  An entry being made
 * is marked so that its maker can run init_shared without the lock held
 * (it may start pool tasks that open other nodes' streams); others
 * wanting the same entry wait on the condition variable.
 */
#include <pthread.h>

#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "floe/memory.h"

typedef enum entry_phase { ENTRY_MAKING = 0, ENTRY_READY, ENTRY_FAILED } entry_phase;

typedef struct exec_entry {
    const floe_plan *node;
    void *state;
    void (*free_shared)(void *state);
    entry_phase phase;
    floe_status err; /* ENTRY_FAILED: what init_shared said */
    struct exec_entry *next; /* newest first */
} exec_entry;

typedef struct exec_token {
    floe_cancel token;
    struct exec_token *next;
} exec_token;

/* Rows held for the nodes that read them by key (floe_exec_rows_get). */
typedef struct exec_rows {
    int64_t key;
    const floe_exec_rows *rows; /* borrowed: its owner outlives the execution */
    struct exec_rows *next;
} exec_rows;

struct floe_execution {
    pthread_mutex_t mu;
    exec_rows *rows;
    const struct floe_execution *parent; /* looked in after this one's rows */
    pthread_cond_t made; /* an entry left ENTRY_MAKING */
    exec_entry *entries;
    int32_t n_entries;
    exec_token *tokens;
    floe_cancel root; /* every token of the execution descends from it */
};

floe_status floe_execution_begin(floe_exec_ctx *ctx, floe_execution **out) {
    *out = NULL;
    floe_execution *x = floe_calloc(1, sizeof *x);
    if (!x) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting an execution");
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->made, NULL);
    floe_cancel_init(&x->root, ctx->cancel);
    ctx->cancel = &x->root;
    ctx->exec = x;
    *out = x;
    return NULL;
}

void floe_execution_cancel(floe_execution *x) {
    if (x) floe_cancel_set(&x->root);
}

int32_t floe_execution_num_states(const floe_execution *x) {
    if (!x) return 0;
    pthread_mutex_lock((pthread_mutex_t *)&x->mu);
    int32_t n = x->n_entries;
    pthread_mutex_unlock((pthread_mutex_t *)&x->mu);
    return n;
}

void floe_execution_end(floe_execution *x) {
    if (!x) return;
    /* Whatever is still running (producers of an exchange no consumer
     * finished) stops: the states below shut it down and wait for it. */
    floe_cancel_set(&x->root);
    /* One entry at a time, newest first, taken off under the lock: while a
     * state shuts down, work it waits for may still open a child and so
     * add an entry (or be making one); that one is freed in its turn. */
    for (;;) {
        pthread_mutex_lock(&x->mu);
        while (x->entries && x->entries->phase == ENTRY_MAKING) pthread_cond_wait(&x->made, &x->mu);
        exec_entry *e = x->entries;
        if (e) {
            x->entries = e->next;
            x->n_entries--;
        }
        pthread_mutex_unlock(&x->mu);
        if (!e) break;
        if (e->phase == ENTRY_READY && e->free_shared) e->free_shared(e->state);
        floe_status_free(e->err);
        floe_free(e);
    }
    for (exec_token *t = x->tokens, *n; t; t = n) {
        n = t->next;
        floe_free(t);
    }
    for (exec_rows *r = x->rows, *n; r; r = n) {
        n = r->next;
        floe_free(r);
    }
    pthread_cond_destroy(&x->made);
    pthread_mutex_destroy(&x->mu);
    floe_free(x);
}

static floe_status copy_error(floe_status st) {
    return floe_error(floe_status_code(st), "%s", floe_status_message(st));
}

static floe_status no_execution(const floe_plan *p) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                      "%s: executed outside an execution (begin one with floe_execution_begin)", p->vt->name);
}

floe_status floe_exec_shared(const floe_plan *p, const floe_exec_ctx *ctx, void **state) {
    *state = NULL;
    floe_execution *x = ctx->exec;
    if (!x) return no_execution(p);
    if (!p->vt->init_shared)
        return floe_error(FLOE_ERR_INTERNAL, "%s has no per-execution state", p->vt->name);
    pthread_mutex_lock(&x->mu);
    exec_entry *e = x->entries;
    while (e && e->node != p) e = e->next;
    if (!e) {
        /* Ours to make.  Entry memory is charged like the state: to
         * whatever the thread that first needs it is charged to. */
        e = floe_calloc(1, sizeof *e);
        if (!e) {
            pthread_mutex_unlock(&x->mu);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: execution state", p->vt->name);
        }
        e->node = p;
        e->free_shared = p->vt->free_shared;
        e->phase = ENTRY_MAKING;
        e->next = x->entries;
        x->entries = e;
        x->n_entries++;
        pthread_mutex_unlock(&x->mu);
        void *made = NULL;
        floe_status st = p->vt->init_shared(p, ctx, &made);
        pthread_mutex_lock(&x->mu);
        if (st) {
            e->phase = ENTRY_FAILED;
            e->err = st;
        } else {
            e->phase = ENTRY_READY;
            e->state = made;
        }
        pthread_cond_broadcast(&x->made);
    }
    while (e->phase == ENTRY_MAKING) pthread_cond_wait(&x->made, &x->mu);
    floe_status st = e->phase == ENTRY_FAILED ? copy_error(e->err) : NULL;
    if (!st) *state = e->state;
    pthread_mutex_unlock(&x->mu);
    return st;
}

floe_status floe_exec_token(const floe_exec_ctx *ctx, const floe_cancel *parent, floe_cancel **out) {
    *out = NULL;
    floe_execution *x = ctx->exec;
    if (!x) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a cancellation token outside an execution");
    exec_token *t = floe_calloc(1, sizeof *t);
    if (!t) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a cancellation token");
    floe_cancel_init(&t->token, parent ? parent : ctx->cancel);
    pthread_mutex_lock(&x->mu);
    t->next = x->tokens;
    x->tokens = t;
    pthread_mutex_unlock(&x->mu);
    *out = &t->token;
    return NULL;
}

/* ---- held rows ------------------------------------------------------------
 *
 * A RecursiveUnion runs its recursive term once per iteration, each time in
 * an execution of its own (a node's partition opens at most once per
 * execution), whose WorkTableScan must read the previous iteration's rows;
 * a materialized CTE's scans read the rows its node computed once.  Both
 * find them here by key (ids the SQL layer gives the CTEs of a statement),
 * and an iteration's execution looks in its parent's when a key is not its
 * own, so a CTE materialized outside the recursion is read inside it. */

void floe_execution_set_parent(floe_execution *x, const floe_execution *parent) { x->parent = parent; }

floe_status floe_execution_put_rows(floe_execution *x, int64_t key, const floe_exec_rows *rows) {
    exec_rows *r = floe_calloc(1, sizeof *r);
    if (!r) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "holding rows in an execution");
    r->key = key;
    r->rows = rows;
    pthread_mutex_lock(&x->mu);
    r->next = x->rows;
    x->rows = r;
    pthread_mutex_unlock(&x->mu);
    return NULL;
}

const floe_exec_rows *floe_exec_rows_get(const floe_exec_ctx *ctx, int64_t key) {
    for (const floe_execution *x = ctx->exec; x; x = x->parent) {
        const floe_exec_rows *found = NULL;
        pthread_mutex_lock((pthread_mutex_t *)&x->mu);
        for (const exec_rows *r = x->rows; r && !found; r = r->next)
            if (r->key == key) found = r->rows;
        pthread_mutex_unlock((pthread_mutex_t *)&x->mu);
        if (found) return found;
    }
    return NULL;
}
