/*
 * exchange.c — the batch exchange behind CoalescePartitions and
 * Repartition (see exchange.h for the scheme and its guarantees).
 *
 * State, all under one mutex: per input partition its stream and whether
 * it is IDLE (free to read), BUSY (one thread is reading a batch from it
 * right now) or DONE; per output a FIFO of batches.  Reading happens
 * outside the mutex by whoever marked the input BUSY — a producer task or
 * a consumer with an empty queue — so a thread only ever waits for
 * another thread that is running, never for a task still in the pool's
 * queue.  Waits are timed as a safety net; correctness does not depend
 * on the timeout.
 */
#include "exec/exchange/exchange.h"
#include "exec/plan_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/threadpool.h"
#include "exec/exchange/row_hash.h"
#include "floe/exec_ops.h"

/* Batches an output queue holds before producers park. */
#define QUEUE_FULL 4

enum { IN_IDLE = 0, IN_BUSY, IN_DONE };

typedef struct in_part {
    floe_stream *s; /* opened on first read */
    int state;
} in_part;

typedef struct out_queue {
    floe_batch **items; /* ring */
    int64_t head, count, cap;
    bool attached, detached;
} out_queue;

struct floe_exchange {
    _Atomic int32_t refcount;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    const floe_plan *child;
    floe_exch_route route;
    floe_expr *const *keys;
    int32_t n_keys;
    char what[48];
    const floe_cancel *query;   /* the caller's token */
    floe_cancel *stop;          /* set on error / shutdown; parent: query.  Owned
                                   by the execution: an inner exchange's token
                                   may name it as parent after we are gone */
    floe_exec_ctx cctx;         /* for the inputs: cancel = stop */
    floe_task_group *group;
    int32_t n_in, n_done, next_in;
    in_part *in;
    int32_t n_out, n_detached;
    out_queue *out;
    int64_t rr_next;
    int32_t parked;             /* producers that returned and may be resubmitted */
    floe_status err;            /* first failure */
    bool closed;                /* shut down */
};

/* ------------------------------------------------------------ helpers */

static floe_status copy_status(floe_status st) {
    return floe_error(floe_status_code(st), "%s", floe_status_message(st));
}

/* Record the first failure and stop everybody (mu held).  Takes st. */
static void fail_locked(floe_exchange *x, floe_status st) {
    if (!x->err) x->err = st;
    else floe_status_free(st);
    floe_cancel_set(x->stop);
    pthread_cond_broadcast(&x->changed);
}

static bool any_full(const floe_exchange *x) {
    for (int32_t j = 0; j < x->n_out; j++)
        if (!x->out[j].detached && x->out[j].count >= QUEUE_FULL) return true;
    return false;
}

static int32_t pick_idle(floe_exchange *x) {
    for (int32_t k = 0; k < x->n_in; k++) {
        int32_t i = (x->next_in + k) % x->n_in;
        if (x->in[i].state == IN_IDLE) {
            x->next_in = (i + 1) % x->n_in;
            return i;
        }
    }
    return -1;
}

static floe_status push_locked(floe_exchange *x, int32_t j, floe_batch *b) {
    out_queue *q = &x->out[j];
    if (q->detached) { /* nobody will read it */
        floe_batch_release(b);
        return NULL;
    }
    if (q->count == q->cap) {
        int64_t cap = q->cap ? q->cap * 2 : 8;
        floe_batch **items = floe_malloc_array((size_t)cap, sizeof *items);
        if (!items) {
            floe_batch_release(b);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: queueing a batch", x->what);
        }
        for (int64_t k = 0; k < q->count; k++) items[k] = q->items[(q->head + k) % q->cap];
        floe_free(q->items);
        q->items = items;
        q->head = 0;
        q->cap = cap;
    }
    q->items[(q->head + q->count) % q->cap] = b;
    q->count++;
    return NULL;
}

static floe_status produce(void *arg, const floe_cancel *cancel);

/* Wake parked producers when there is room and input to read (mu held). */
static void resubmit_locked(floe_exchange *x) {
    if (x->closed || x->err || x->parked == 0 || any_full(x)) return;
    int32_t idle = 0;
    for (int32_t i = 0; i < x->n_in; i++) idle += x->in[i].state == IN_IDLE;
    while (x->parked > 0 && idle-- > 0) {
        x->parked--;
        if (!floe_task_group_submit(x->group, produce, x)) {
            fail_locked(x, floe_error(FLOE_ERR_INTERNAL, "%s: could not queue a producer task", x->what));
            return;
        }
    }
}

/* ------------------------------------------------------------ routing */

/* Split batch b over the outputs by key hash: outs[j] (NULL when empty). */
static floe_status route_hash(floe_exchange *x, floe_batch *b, floe_batch **outs) {
    int64_t n = b->num_rows;
    int32_t nk = x->n_keys, no = x->n_out;
    floe_array **keys = floe_calloc((size_t)(nk ? nk : 1), sizeof *keys);
    uint64_t *h = floe_malloc_array((size_t)n, sizeof *h);
    uint32_t *part = floe_malloc_array((size_t)n, sizeof *part);
    uint32_t *idx = floe_malloc_array((size_t)n, sizeof *idx);
    int64_t *start = floe_calloc((size_t)no + 1, sizeof *start);
    int64_t *fill = floe_calloc((size_t)no, sizeof *fill);
    floe_status st = keys && h && part && idx && start && fill ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: hashing a batch", x->what);
    for (int32_t k = 0; k < nk && !st; k++) st = floe_expr_eval(x->keys[k], b, &keys[k]);
    if (!st) st = floe_hash_rows(keys, nk, n, h);
    if (!st) {
        /* counting sort of row indices by output partition, order kept */
        for (int64_t r = 0; r < n; r++) {
            part[r] = (uint32_t)(h[r] % (uint64_t)no);
            start[part[r] + 1]++;
        }
        for (int32_t j = 0; j < no; j++) start[j + 1] += start[j];
        for (int32_t j = 0; j < no; j++) fill[j] = start[j];
        for (int64_t r = 0; r < n; r++) idx[fill[part[r]]++] = (uint32_t)r;
        for (int32_t j = 0; j < no && !st; j++) {
            int64_t c = start[j + 1] - start[j];
            if (c == n) outs[j] = floe_batch_retain(b);
            else if (c > 0) st = floe_batch_take(b, idx + start[j], c, &outs[j]);
        }
    }
    for (int32_t k = 0; keys && k < nk; k++) floe_array_release(keys[k]);
    floe_free(keys);
    floe_free(h);
    floe_free(part);
    floe_free(idx);
    floe_free(start);
    floe_free(fill);
    return st;
}

/* Read one batch of input i (marked BUSY by the caller, mu NOT held) and
 * route it; marks the input IDLE or DONE again. */
static void pump(floe_exchange *x, int32_t i) {
    in_part *in = &x->in[i];
    floe_status st = floe_cancel_check(x->stop, x->what);
    floe_batch *b = NULL;
    floe_batch **outs = NULL;
    if (!st && !in->s) st = floe_plan_execute(x->child, i, &x->cctx, &in->s);
    if (!st) st = floe_stream_next(in->s, &b);
    if (!st && b && b->num_rows > 0 && x->route == FLOE_EXCH_HASH) {
        outs = floe_calloc((size_t)x->n_out, sizeof *outs);
        st = outs ? route_hash(x, b, outs) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: routing a batch", x->what);
    }
    bool done = !st && !b;
    if (done) { /* free the input's resources now, outside the lock */
        floe_stream_close(in->s);
        in->s = NULL;
    }
    pthread_mutex_lock(&x->mu);
    if (st) {
        fail_locked(x, floe_status_wrap_op(st, "%s: input partition %d", x->what, i));
        st = NULL;
    } else if (b && b->num_rows > 0) {
        if (outs) {
            for (int32_t j = 0; j < x->n_out && !st; j++)
                if (outs[j]) {
                    st = push_locked(x, j, outs[j]);
                    outs[j] = NULL;
                }
        } else {
            int32_t j = x->route == FLOE_EXCH_ROUND_ROBIN ? (int32_t)(x->rr_next++ % x->n_out) : 0;
            st = push_locked(x, j, floe_batch_retain(b));
        }
        if (st) fail_locked(x, st);
    }
    if (done) {
        in->state = IN_DONE;
        x->n_done++;
    } else {
        in->state = IN_IDLE;
    }
    pthread_cond_broadcast(&x->changed);
    resubmit_locked(x);
    pthread_mutex_unlock(&x->mu);
    if (outs)
        for (int32_t j = 0; j < x->n_out; j++) floe_batch_release(outs[j]);
    floe_free(outs);
    floe_batch_release(b);
}

/* A producer task: read batches while there is room, then park. */
static floe_status produce(void *arg, const floe_cancel *cancel) {
    floe_exchange *x = arg;
    pthread_mutex_lock(&x->mu);
    for (;;) {
        if (x->err || x->closed || floe_cancel_is_set(cancel) || x->n_done == x->n_in) break;
        int32_t i = any_full(x) ? -1 : pick_idle(x);
        if (i < 0) { /* no room or nothing free: give the worker back */
            x->parked++;
            break;
        }
        x->in[i].state = IN_BUSY;
        pthread_mutex_unlock(&x->mu);
        pump(x, i);
        pthread_mutex_lock(&x->mu);
    }
    pthread_cond_broadcast(&x->changed);
    pthread_mutex_unlock(&x->mu);
    return NULL;
}

/* ------------------------------------------------------------- public */

floe_status floe_exchange_create(const floe_plan *child, floe_exch_route route, floe_expr *const *keys,
                                 int32_t n_keys, int32_t n_out, const floe_exec_ctx *ctx, const char *what,
                                 floe_exchange **out) {
    *out = NULL;
    if (n_out < 1 || (route == FLOE_EXCH_MERGE && n_out != 1))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: %d outputs", what, n_out);
    floe_threadpool *pool = ctx->pool;
    if (!pool) FLOE_TRY(floe_threadpool_default(&pool));
    floe_exchange *x = floe_calloc(1, sizeof *x);
    if (!x) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: starting an exchange", what);
    atomic_init(&x->refcount, 1);
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->changed, NULL);
    x->child = child;
    x->route = route;
    x->keys = keys;
    x->n_keys = n_keys;
    snprintf(x->what, sizeof x->what, "%s", what);
    x->query = ctx->cancel;
    x->n_in = child->n_partitions;
    x->n_out = n_out;
    x->in = floe_calloc((size_t)(x->n_in ? x->n_in : 1), sizeof *x->in);
    x->out = floe_calloc((size_t)n_out, sizeof *x->out);
    floe_status st = x->in && x->out ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "%s: starting an exchange", what);
    if (!st) st = floe_exec_token(ctx, ctx->cancel, &x->stop);
    x->cctx = *ctx;
    x->cctx.pool = pool;
    x->cctx.cancel = x->stop;
    if (!st) st = floe_task_group_create(pool, x->stop, &x->group);
    if (st) {
        floe_exchange_release(x);
        return st;
    }
    /* One producer per input, at most one per worker: more could not run. */
    int32_t np = x->n_in;
    if ((size_t)np > floe_threadpool_size(pool)) np = (int32_t)floe_threadpool_size(pool);
    pthread_mutex_lock(&x->mu);
    x->parked = np;
    resubmit_locked(x);
    pthread_mutex_unlock(&x->mu);
    *out = x;
    return NULL;
}

floe_status floe_exchange_next(floe_exchange *x, int32_t j, floe_batch **out) {
    floe_status st = NULL;
    *out = NULL;
    pthread_mutex_lock(&x->mu);
    for (;;) {
        if (x->err) {
            st = copy_status(x->err);
            break;
        }
        if (x->closed) {
            st = floe_error(FLOE_ERR_CANCELLED, "%s: the exchange was shut down", x->what);
            break;
        }
        if (floe_cancel_is_set(x->query)) {
            fail_locked(x, floe_error(FLOE_ERR_CANCELLED, "%s: cancelled", x->what));
            continue;
        }
        out_queue *q = &x->out[j];
        if (q->count > 0) {
            *out = q->items[q->head];
            q->head = (q->head + 1) % q->cap;
            q->count--;
            resubmit_locked(x);
            break;
        }
        if (x->n_done == x->n_in) break; /* the end */
        int32_t i = pick_idle(x);
        if (i >= 0) { /* drive an input ourselves rather than wait */
            x->in[i].state = IN_BUSY;
            pthread_mutex_unlock(&x->mu);
            pump(x, i);
            pthread_mutex_lock(&x->mu);
            continue;
        }
        /* Every unfinished input is being read by a running thread. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&x->changed, &x->mu, &ts);
    }
    pthread_mutex_unlock(&x->mu);
    return st;
}

bool floe_exchange_attach(floe_exchange *x, int32_t j) {
    pthread_mutex_lock(&x->mu);
    bool ok = j >= 0 && j < x->n_out && !x->out[j].attached;
    if (ok) x->out[j].attached = true;
    pthread_mutex_unlock(&x->mu);
    return ok;
}

void floe_exchange_detach(floe_exchange *x, int32_t j) {
    pthread_mutex_lock(&x->mu);
    bool last = false;
    if (!x->out[j].detached) {
        out_queue *q = &x->out[j];
        q->detached = true;
        for (int64_t k = 0; k < q->count; k++) floe_batch_release(q->items[(q->head + k) % q->cap]);
        q->count = 0;
        last = ++x->n_detached == x->n_out;
        resubmit_locked(x); /* a full queue may have gone */
    }
    pthread_mutex_unlock(&x->mu);
    if (last) floe_exchange_shutdown(x);
}

void floe_exchange_shutdown(floe_exchange *x) {
    pthread_mutex_lock(&x->mu);
    bool first = !x->closed;
    x->closed = true;
    floe_cancel_set(x->stop);
    pthread_cond_broadcast(&x->changed);
    pthread_mutex_unlock(&x->mu);
    if (!first) return;
    /* Queued producers are skipped (the group is cancelled); running ones
     * finish their one batch and return. */
    if (x->group) floe_status_free(floe_task_group_wait(x->group));
    for (int32_t i = 0; i < x->n_in; i++) {
        floe_stream_close(x->in[i].s);
        x->in[i].s = NULL;
    }
    pthread_mutex_lock(&x->mu);
    for (int32_t j = 0; j < x->n_out; j++) {
        out_queue *q = &x->out[j];
        for (int64_t k = 0; k < q->count; k++) floe_batch_release(q->items[(q->head + k) % q->cap]);
        q->count = 0;
    }
    pthread_mutex_unlock(&x->mu);
}

floe_exchange *floe_exchange_retain(floe_exchange *x) {
    if (x) atomic_fetch_add(&x->refcount, 1);
    return x;
}

void floe_exchange_release(floe_exchange *x) {
    if (!x || atomic_fetch_sub(&x->refcount, 1) != 1) return;
    if (x->in && x->out) floe_exchange_shutdown(x);
    floe_task_group_destroy(x->group);
    for (int32_t j = 0; x->out && j < x->n_out; j++) floe_free(x->out[j].items);
    floe_free(x->out);
    floe_free(x->in);
    floe_status_free(x->err);
    pthread_cond_destroy(&x->changed);
    pthread_mutex_destroy(&x->mu);
    floe_free(x);
}
