/*
 * threadpool.c — worker pool with task groups (see threadpool.h).
 *
 * One mutex per pool guards the queue and the state of every group on the
 * pool: tasks are coarse (a file, a row group, a partition), so the lock
 * is taken a few times per task and contention does not matter, while a
 * single lock keeps the completion/cancellation logic easy to get right.
 *
 * Each queued task sits on two doubly linked lists: the pool's FIFO, which
 * workers take from, and its group's FIFO, which a waiting thread takes
 * from when it helps.  Either taker unlinks the task from both.
 *
 * A task node is freed before its completion is published, because the
 * waiter may destroy the group and the submitter's memory tracker as soon
 * as the pending count reaches zero.
 */
#include "base/threadpool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/log.h"
#include "base/str.h"
#include "floe/memory.h"

typedef struct task {
    floe_task_fn fn;
    void *arg;
    floe_task_group *group;
    floe_mem_tracker *tracker; /* the submitter's current tracker */
    struct task *prev, *next;         /* pool queue */
    struct task *gprev, *gnext;       /* group queue */
} task;

struct floe_threadpool {
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* signalled when tasks are queued or stopping */
    task *head, *tail;
    bool stopping;
    bool joined;
    size_t nthreads;
    pthread_t *threads;
    atomic_int next_worker_id;
};

static _Thread_local int worker_id = -1;

int floe_threadpool_worker_id(void) { return worker_id; }

struct floe_task_group {
    floe_threadpool *pool;
    floe_cancel cancel;
    pthread_cond_t done_cv; /* on pool->mu: pending hit 0 or a task was queued */
    size_t pending;         /* submitted and not yet completed */
    size_t waiters;
    size_t skipped;         /* completed without running */
    task *qhead, *qtail;    /* this group's queued tasks */
    floe_status first_error;
};

/* ---- cancellation ------------------------------------------------------ */

void floe_cancel_init(floe_cancel *c, const floe_cancel *parent) {
    atomic_init(&c->flag, false);
    c->parent = parent;
}

void floe_cancel_set(floe_cancel *c) {
    if (c) atomic_store_explicit(&c->flag, true, memory_order_relaxed);
}

floe_status floe_cancel_check(const floe_cancel *c, const char *what) {
    if (!floe_cancel_is_set(c)) return NULL;
    return floe_error(FLOE_ERR_CANCELLED, "%s: cancelled", what ? what : "task");
}

/* ---- queue manipulation (pool->mu held) -------------------------------- */

static void enqueue(floe_threadpool *p, task *t) {
    floe_task_group *g = t->group;
    t->next = NULL;
    t->prev = p->tail;
    if (p->tail) p->tail->next = t;
    else p->head = t;
    p->tail = t;
    t->gnext = NULL;
    t->gprev = g->qtail;
    if (g->qtail) g->qtail->gnext = t;
    else g->qhead = t;
    g->qtail = t;
}

static void unlink_task(floe_threadpool *p, task *t) {
    floe_task_group *g = t->group;
    if (t->prev) t->prev->next = t->next;
    else p->head = t->next;
    if (t->next) t->next->prev = t->prev;
    else p->tail = t->prev;
    if (t->gprev) t->gprev->gnext = t->gnext;
    else g->qhead = t->gnext;
    if (t->gnext) t->gnext->gprev = t->gprev;
    else g->qtail = t->gprev;
}

/* Record a task's outcome and publish it (pool->mu held).  Takes `st`. */
static void complete_locked(floe_task_group *g, floe_status st, bool skipped) {
    if (st) {
        if (!g->first_error) g->first_error = st;
        else floe_status_free(st);
        floe_cancel_set(&g->cancel);
    }
    if (skipped) g->skipped++;
    if (--g->pending == 0) pthread_cond_broadcast(&g->done_cv);
}

/* Run a task already unlinked from the queues (pool->mu NOT held). */
static void run_task(floe_threadpool *p, task *t) {
    floe_task_fn fn = t->fn;
    void *arg = t->arg;
    floe_task_group *g = t->group;
    floe_mem_tracker *tracker = t->tracker;
    floe_free(t);
    floe_status st = NULL;
    bool skipped = floe_cancel_is_set(&g->cancel);
    if (!skipped) {
        floe_mem_tracker *prev = floe_mem_set_current(tracker);
        st = fn(arg, &g->cancel);
        floe_mem_set_current(prev);
    }
    pthread_mutex_lock(&p->mu);
    complete_locked(g, st, skipped);
    pthread_mutex_unlock(&p->mu);
}

/* ---- workers ----------------------------------------------------------- */

static void *worker_main(void *arg) {
    floe_threadpool *p = arg;
    worker_id = atomic_fetch_add(&p->next_worker_id, 1);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->head && !p->stopping) pthread_cond_wait(&p->work_cv, &p->mu);
        task *t = p->head;
        if (!t) break; /* stopping and nothing left to drain */
        unlink_task(p, t);
        pthread_mutex_unlock(&p->mu);
        run_task(p, t);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

size_t floe_threadpool_default_threads(void) {
    const char *env = getenv("FLOE_THREADS");
    if (env && *env) {
        int64_t n = 0;
        floe_status st = floe_parse_int64(floe_str_trim(floe_str_c(env)), "FLOE_THREADS", &n);
        if (!st && n >= 1 && n <= FLOE_THREADPOOL_MAX_THREADS) return (size_t)n;
        if (st) {
            FLOE_LOG_WARN("threadpool", "ignoring %s", floe_status_message(st));
            floe_status_free(st);
        } else {
            FLOE_LOG_WARN("threadpool", "ignoring FLOE_THREADS=%lld: must be 1..%d", (long long)n,
                          FLOE_THREADPOOL_MAX_THREADS);
        }
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1) cpus = 1;
    if (cpus > FLOE_THREADPOOL_MAX_THREADS) cpus = FLOE_THREADPOOL_MAX_THREADS;
    return (size_t)cpus;
}

/* Stop and join the workers that were started (used on create failure). */
static void stop_workers(floe_threadpool *p, size_t started) {
    pthread_mutex_lock(&p->mu);
    p->stopping = true;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (size_t i = 0; i < started; i++) pthread_join(p->threads[i], NULL);
}

floe_status floe_threadpool_create(size_t nthreads, floe_threadpool **out) {
    if (nthreads == 0) nthreads = floe_threadpool_default_threads();
    if (nthreads > FLOE_THREADPOOL_MAX_THREADS) nthreads = FLOE_THREADPOOL_MAX_THREADS;
    floe_threadpool *p = floe_calloc(1, sizeof *p);
    pthread_t *threads = floe_malloc_array(nthreads, sizeof(pthread_t));
    if (!p || !threads) {
        floe_free(p);
        floe_free(threads);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory creating a %zu-thread pool", nthreads);
    }
    p->threads = threads;
    p->nthreads = nthreads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    for (size_t i = 0; i < nthreads; i++) {
        int rc = pthread_create(&p->threads[i], NULL, worker_main, p);
        if (rc != 0) {
            stop_workers(p, i);
            pthread_cond_destroy(&p->work_cv);
            pthread_mutex_destroy(&p->mu);
            floe_free(p->threads);
            floe_free(p);
            return floe_error(FLOE_ERR_INTERNAL, "cannot start worker thread %zu of %zu (error %d)", i + 1,
                              nthreads, rc);
        }
    }
    *out = p;
    return NULL;
}

size_t floe_threadpool_size(const floe_threadpool *p) { return p->nthreads; }

void floe_threadpool_shutdown(floe_threadpool *p, bool drain) {
    pthread_mutex_lock(&p->mu);
    if (p->joined || p->stopping) {
        pthread_mutex_unlock(&p->mu);
        return;
    }
    p->stopping = true;
    if (!drain) {
        while (p->head) {
            task *t = p->head;
            floe_task_group *g = t->group;
            unlink_task(p, t);
            floe_free(t);
            complete_locked(g, floe_error(FLOE_ERR_CANCELLED, "thread pool shut down before the task ran"),
                            true);
        }
    }
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (size_t i = 0; i < p->nthreads; i++) pthread_join(p->threads[i], NULL);
    pthread_mutex_lock(&p->mu);
    p->joined = true;
    pthread_mutex_unlock(&p->mu);
}

void floe_threadpool_destroy(floe_threadpool *p) {
    if (!p) return;
    floe_threadpool_shutdown(p, false);
    pthread_cond_destroy(&p->work_cv);
    pthread_mutex_destroy(&p->mu);
    floe_free(p->threads);
    floe_free(p);
}

/* ---- the default pool -------------------------------------------------- */

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static floe_threadpool *default_pool;
static floe_code default_error;

static void create_default_pool(void) {
    /* The pool outlives every query: charge it to the root tracker. */
    floe_mem_tracker *prev = floe_mem_set_current(NULL);
    floe_status st = floe_threadpool_create(0, &default_pool);
    floe_mem_set_current(prev);
    if (st) {
        default_error = floe_status_code(st);
        default_pool = NULL;
        floe_status_free(st);
    }
}

floe_status floe_threadpool_default(floe_threadpool **out) {
    pthread_once(&default_once, create_default_pool);
    if (!default_pool)
        return floe_error(default_error, "the default thread pool could not be created (%s)",
                          floe_code_name(default_error));
    *out = default_pool;
    return NULL;
}

/* ---- groups ------------------------------------------------------------ */

floe_status floe_task_group_create(floe_threadpool *pool, const floe_cancel *parent, floe_task_group **out) {
    floe_task_group *g = floe_calloc(1, sizeof *g);
    if (!g) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory creating a task group");
    g->pool = pool;
    floe_cancel_init(&g->cancel, parent);
    pthread_cond_init(&g->done_cv, NULL);
    *out = g;
    return NULL;
}

const floe_cancel *floe_task_group_token(const floe_task_group *g) { return &g->cancel; }

void floe_task_group_cancel(floe_task_group *g) { floe_cancel_set(&g->cancel); }

bool floe_task_group_submit(floe_task_group *g, floe_task_fn fn, void *arg) {
    floe_threadpool *p = g->pool;
    task *t = floe_malloc(sizeof *t);
    pthread_mutex_lock(&p->mu);
    if (!t || p->stopping) {
        g->pending++;
        complete_locked(g,
                        t ? floe_error(FLOE_ERR_CANCELLED, "thread pool shut down: task not accepted")
                          : floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory queueing a task"),
                        false);
        pthread_mutex_unlock(&p->mu);
        floe_free(t);
        return false;
    }
    t->fn = fn;
    t->arg = arg;
    t->group = g;
    t->tracker = floe_mem_current();
    g->pending++;
    enqueue(p, t);
    pthread_cond_signal(&p->work_cv);
    /* A thread waiting on this group may help with the new task. */
    if (g->waiters) pthread_cond_broadcast(&g->done_cv);
    pthread_mutex_unlock(&p->mu);
    return true;
}

floe_status floe_task_group_wait(floe_task_group *g) {
    floe_threadpool *p = g->pool;
    pthread_mutex_lock(&p->mu);
    while (g->pending > 0) {
        task *t = g->qhead;
        if (t) {
            /* Help: run our own queued task here rather than sleep. */
            unlink_task(p, t);
            pthread_mutex_unlock(&p->mu);
            run_task(p, t);
            pthread_mutex_lock(&p->mu);
            continue;
        }
        g->waiters++;
        pthread_cond_wait(&g->done_cv, &p->mu);
        g->waiters--;
    }
    floe_status st = g->first_error;
    size_t skipped = g->skipped;
    g->first_error = NULL;
    g->skipped = 0;
    pthread_mutex_unlock(&p->mu);
    if (!st && skipped)
        st = floe_error(FLOE_ERR_CANCELLED, "task group cancelled: %zu task%s not run", skipped,
                        skipped == 1 ? "" : "s");
    if (!st && floe_cancel_is_set(&g->cancel)) st = floe_error(FLOE_ERR_CANCELLED, "task group cancelled");
    return st;
}

void floe_task_group_destroy(floe_task_group *g) {
    if (!g) return;
    floe_status_free(floe_task_group_wait(g));
    pthread_cond_destroy(&g->done_cv);
    floe_free(g);
}

/* ---- parallel loops ---------------------------------------------------- */

typedef struct {
    floe_range_fn fn;
    void *ctx;
    size_t begin, end;
} range_task;

static floe_status run_range(void *arg, const floe_cancel *cancel) {
    range_task *r = arg;
    return r->fn(r->ctx, r->begin, r->end, cancel);
}

floe_status floe_parallel_for(floe_threadpool *pool, size_t n, size_t grain, floe_range_fn fn, void *ctx,
                              const floe_cancel *parent) {
    if (n == 0) return NULL;
    if (grain == 0) grain = 1;
    size_t chunks = n / grain + (n % grain != 0);
    size_t max_chunks = pool->nthreads * 4;
    if (chunks > max_chunks) chunks = max_chunks;
    range_task *ranges = floe_malloc_array(chunks, sizeof *ranges);
    if (!ranges) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory splitting a parallel loop");
    floe_task_group *g;
    floe_status st = floe_task_group_create(pool, parent, &g);
    if (st) {
        floe_free(ranges);
        return st;
    }
    /* Spread the remainder so range sizes differ by at most one. */
    size_t base = n / chunks, extra = n % chunks, at = 0;
    for (size_t i = 0; i < chunks; i++) {
        size_t len = base + (i < extra);
        ranges[i] = (range_task){fn, ctx, at, at + len};
        at += len;
        if (!floe_task_group_submit(g, run_range, &ranges[i])) break;
    }
    st = floe_task_group_wait(g);
    floe_task_group_destroy(g);
    floe_free(ranges);
    return st;
}
