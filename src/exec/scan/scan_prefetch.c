/*
 * scan_prefetch.c — ordered, bounded read-ahead for the scan nodes (see
 * scan_prefetch.h for what it promises).
 *
 * Units live in a window of `conc` slots sliding over the unit list: unit
 * k is read in slot k % conc.  Each slot has a ring of up to `ahead`
 * batches.  A slot step (open the unit, or read one batch) is done by
 * whoever sets the slot's `busy` flag under the mutex: a pool task, or the
 * consumer itself when it finds the oldest slot empty and idle.  A slot
 * has at most one prefetch task queued or running (`scheduled`); that task
 * re-queues itself after its step while the slot still has room, and
 * otherwise lets the consumer re-queue it when it takes a batch out.
 */
#include <pthread.h>
#include <time.h>

#include "base/threadpool.h"
#include "exec/scan/scan_prefetch.h"

typedef struct slot {
    floe_prefetch *p;
    int32_t unit;               /* -1: none */
    void *state;                /* the unit's reader; owned by whoever set busy */
    bool opened;                /* open was called (it may have failed) */
    bool done;                  /* no more batches (end or error) */
    bool busy;                  /* a step is running right now */
    bool scheduled;             /* a prefetch task is queued or running */
    floe_status err;            /* the failure, handed out in unit order */
    floe_batch **ring;          /* `ahead` entries */
    int32_t head, count;
} slot;

struct floe_prefetch {
    const floe_prefetch_ops *ops;
    void *ctx;
    int32_t n_units;
    const char *what;
    const floe_cancel *cancel;
    floe_task_group *tg;
    pthread_mutex_t mu;
    pthread_cond_t changed;     /* a step finished */
    int32_t conc, ahead;
    slot *slots;
    int32_t next_unit;          /* the oldest unit not fully consumed */
    bool closing;
    bool failed;
};

/* Open the slot's unit or read one batch of it; the caller set busy. */
static void slot_step(slot *sl) {
    floe_prefetch *p = sl->p;
    floe_status st = NULL;
    floe_batch *b = NULL;
    if (!sl->opened) st = p->ops->open(p->ctx, sl->unit, &sl->state);
    else st = p->ops->next(p->ctx, sl->state, &b);
    pthread_mutex_lock(&p->mu);
    if (!sl->opened) {
        sl->opened = true;
    } else if (b) {
        sl->ring[(sl->head + sl->count) % p->ahead] = b;
        sl->count++;
    } else if (!st) {
        sl->done = true;
    }
    if (st) {
        sl->err = st;
        sl->done = true;
    }
    sl->busy = false;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mu);
}

/* Is there read-ahead work for this slot?  (Under the mutex.) */
static bool slot_wants_work(const floe_prefetch *p, const slot *sl) {
    return !p->closing && sl->unit >= 0 && !sl->done && !sl->busy && sl->count < p->ahead &&
           !floe_cancel_is_set(p->cancel);
}

static floe_status prefetch_task(void *arg, const floe_cancel *cancel);

/* Queue a prefetch task for the slot unless one is queued or running.
 * (Under the mutex; the pool's lock nests inside ours, never the reverse.) */
static void slot_schedule(floe_prefetch *p, slot *sl) {
    if (!p->tg || sl->scheduled || !slot_wants_work(p, sl)) return;
    sl->scheduled = true;
    if (!floe_task_group_submit(p->tg, prefetch_task, sl)) sl->scheduled = false; /* the consumer reads itself */
}

/* A pool task: one step for a slot, then re-queue while there is room.
 * Never waits for the consumer. */
static floe_status prefetch_task(void *arg, const floe_cancel *cancel) {
    (void)cancel;
    slot *sl = arg;
    floe_prefetch *p = sl->p;
    pthread_mutex_lock(&p->mu);
    if (!slot_wants_work(p, sl)) {
        sl->scheduled = false;
        pthread_mutex_unlock(&p->mu);
        return NULL;
    }
    sl->busy = true;
    pthread_mutex_unlock(&p->mu);
    slot_step(sl);
    pthread_mutex_lock(&p->mu);
    sl->scheduled = false;
    slot_schedule(p, sl);
    pthread_mutex_unlock(&p->mu);
    return NULL; /* errors travel through the slot, in unit order */
}

/* Point a slot at `unit` (or none past the end) and start reading it. */
static void slot_assign(floe_prefetch *p, slot *sl, int32_t unit) {
    sl->unit = unit < p->n_units ? unit : -1;
    sl->opened = sl->done = false;
    sl->head = sl->count = 0;
    slot_schedule(p, sl);
}

static void wait_a_little(floe_prefetch *p) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 10 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&p->changed, &p->mu, &ts);
}

floe_status floe_prefetch_next(floe_prefetch *p, floe_batch **out) {
    *out = NULL;
    if (p->failed) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: stream already failed", p->what);
    floe_status st = NULL;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if ((st = floe_cancel_check(p->cancel, p->what))) break;
        if (p->next_unit >= p->n_units) break; /* the end */
        slot *sl = &p->slots[p->next_unit % p->conc];
        if (sl->count > 0) {
            *out = sl->ring[sl->head];
            sl->ring[sl->head] = NULL;
            sl->head = (sl->head + 1) % p->ahead;
            sl->count--;
            slot_schedule(p, sl); /* there is room again */
            break;
        }
        if (sl->err) {
            st = sl->err;
            sl->err = NULL;
            break;
        }
        if (sl->done) {
            /* Finished and drained: close it (nobody steps a done slot)
             * and slide the window. */
            void *state = sl->state;
            sl->state = NULL;
            pthread_mutex_unlock(&p->mu);
            p->ops->close(p->ctx, state);
            pthread_mutex_lock(&p->mu);
            p->next_unit++;
            slot_assign(p, sl, p->next_unit + p->conc - 1);
            continue;
        }
        if (sl->busy) {
            wait_a_little(p); /* a step of this very slot is running now */
            continue;
        }
        /* Nothing buffered and nobody on it: do the step ourselves. */
        sl->busy = true;
        pthread_mutex_unlock(&p->mu);
        slot_step(sl);
        pthread_mutex_lock(&p->mu);
    }
    if (st) p->failed = true;
    pthread_mutex_unlock(&p->mu);
    return st;
}

void floe_prefetch_close(floe_prefetch *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->closing = true;
    pthread_mutex_unlock(&p->mu);
    if (p->tg) {
        /* Queued tasks see `closing` and return at once; running ones
         * finish their one step. */
        floe_task_group_cancel(p->tg);
        floe_task_group_destroy(p->tg);
    }
    for (int32_t i = 0; p->slots && i < p->conc; i++) {
        slot *sl = &p->slots[i];
        for (int32_t k = 0; k < sl->count; k++) floe_batch_release(sl->ring[(sl->head + k) % p->ahead]);
        floe_free(sl->ring);
        if (sl->state) p->ops->close(p->ctx, sl->state);
        floe_status_free(sl->err);
    }
    floe_free(p->slots);
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->mu);
    floe_free(p);
}

floe_status floe_prefetch_open(const floe_prefetch_ops *ops, void *ctx, int32_t n_units, const floe_exec_ctx *ectx,
                               const char *what, floe_prefetch **out) {
    *out = NULL;
    floe_prefetch *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a %s stream", what);
    p->ops = ops;
    p->ctx = ctx;
    p->n_units = n_units > 0 ? n_units : 0;
    p->what = what;
    p->cancel = ectx->cancel;
    p->conc = ectx->scan_concurrency > 0 ? ectx->scan_concurrency : 2;
    p->ahead = ectx->read_ahead > 0 ? ectx->read_ahead : 2;
    if (p->conc > p->n_units) p->conc = p->n_units > 0 ? p->n_units : 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->changed, NULL);
    floe_status st = NULL;
    if (p->n_units > 0) {
        floe_threadpool *pool = ectx->pool;
        if (!pool) st = floe_threadpool_default(&pool);
        if (!st) st = floe_task_group_create(pool, ectx->cancel, &p->tg);
        if (!st && !(p->slots = floe_calloc((size_t)p->conc, sizeof *p->slots)))
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a %s stream", what);
        for (int32_t i = 0; !st && i < p->conc; i++) {
            p->slots[i].p = p;
            p->slots[i].unit = -1;
            if (!(p->slots[i].ring = floe_calloc((size_t)p->ahead, sizeof *p->slots[i].ring)))
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a %s stream", what);
        }
    }
    if (st) {
        floe_prefetch_close(p);
        return st;
    }
    if (p->n_units > 0) {
        pthread_mutex_lock(&p->mu);
        for (int32_t i = 0; i < p->conc; i++) slot_assign(p, &p->slots[i], i);
        pthread_mutex_unlock(&p->mu);
    }
    *out = p;
    return NULL;
}
