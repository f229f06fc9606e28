/*
 * threadpool.h — fixed-size worker pool, task groups and cancellation.
 *
 * Work is submitted as tasks belonging to a task group.  A group is a
 * latch with an error slot: floe_task_group_wait() returns when every task
 * submitted to it has finished, with the FIRST error any of them returned
 * (ownership passes to the caller).  The first error also cancels the
 * group: its cancellation token is set, running siblings see it when they
 * poll, and siblings still queued are not run at all.  An error is never
 * lost and never turned into success: a group whose tasks were skipped or
 * which was cancelled reports FLOE_ERR_CANCELLED when nothing better is
 * known.
 *
 * Waiting helps: a thread waiting on a group runs that group's queued
 * tasks itself instead of sleeping, so a task running on a worker may
 * create a group, submit to it and wait without deadlocking even when
 * every worker of the pool is busy (or the pool has one thread).
 *
 * Task arguments stay owned by the submitter: a task may be skipped (group
 * cancelled, pool shut down), so never rely on a task to free its argument;
 * free arguments after floe_task_group_wait() returns.
 *
 * Each task runs with the submitter's memory tracker as the current one
 * (floe_mem_current() at submit time), so a query's allocations made on
 * workers are charged to the query.
 *
 *   floe_task_group *g;
 *   FLOE_TRY(floe_task_group_create(pool, NULL, &g));
 *   for (i = 0; i < n; i++) floe_task_group_submit(g, scan_file, &files[i]);
 *   floe_status st = floe_task_group_wait(g);
 *   floe_task_group_destroy(g);
 *   return st;
 */
#ifndef FLOE_BASE_THREADPOOL_H
#define FLOE_BASE_THREADPOOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "floe/status.h"

/* ---- cancellation tokens ----------------------------------------------- */

/* A flag that work polls to stop early.  A token may have a parent (say,
 * the query's token for a stage's group): it counts as set when it or any
 * ancestor is set.  Setting is sticky. */
typedef struct floe_cancel {
    atomic_bool flag;
    const struct floe_cancel *parent;
} floe_cancel;

void floe_cancel_init(floe_cancel *c, const floe_cancel *parent);
void floe_cancel_set(floe_cancel *c); /* NULL-safe */
/* Cheap (one relaxed load per ancestor): poll it per batch, not per row. */
static inline bool floe_cancel_is_set(const floe_cancel *c) {
    for (; c; c = c->parent)
        if (atomic_load_explicit(&c->flag, memory_order_relaxed)) return true;
    return false;
}
/* NULL, or a FLOE_ERR_CANCELLED status naming `what` when the token is set. */
floe_status floe_cancel_check(const floe_cancel *c, const char *what) FLOE_WARN_UNUSED;

/* ---- the pool ---------------------------------------------------------- */

typedef struct floe_threadpool floe_threadpool;
typedef struct floe_task_group floe_task_group;

/* A task: returns NULL or an error; should poll `cancel` in long loops and
 * return FLOE_ERR_CANCELLED (floe_cancel_check) when it is set. */
typedef floe_status (*floe_task_fn)(void *arg, const floe_cancel *cancel);

/* Upper bound on workers per pool (FLOE_THREADS is clamped to it). */
#define FLOE_THREADPOOL_MAX_THREADS 1024

/* Worker count used when 0 is asked for: $FLOE_THREADS when it is a number
 * in 1..FLOE_THREADPOOL_MAX_THREADS, else the number of online CPUs. */
size_t floe_threadpool_default_threads(void);

/* Start a pool of `nthreads` workers (0 = floe_threadpool_default_threads()). */
floe_status floe_threadpool_create(size_t nthreads, floe_threadpool **out) FLOE_WARN_UNUSED;
size_t floe_threadpool_size(const floe_threadpool *p);

/* 0..size-1 when called on a worker thread of a pool (for per-worker
 * scratch state; ids of different pools overlap), -1 on a thread that is
 * not a pool worker, e.g. the main thread running tasks while it helps in
 * floe_task_group_wait.  Size per-worker state as size + 1 and use slot
 * `size` for id -1 only if a single non-worker thread can help at once. */
int floe_threadpool_worker_id(void);

/* Stop the pool: refuse new tasks, then either run every queued task
 * (drain = true) or complete each queued task without running it,
 * reporting FLOE_ERR_CANCELLED to its group (drain = false).  Returns
 * after running tasks have finished and the workers have exited.  Groups
 * stay usable for waiting.  Must not be called from one of the pool's own
 * workers.  Calling it again does nothing. */
void floe_threadpool_shutdown(floe_threadpool *p, bool drain);

/* Shut down (cancelling queued tasks) and free the pool.  Every group of
 * the pool must have been destroyed first. */
void floe_threadpool_destroy(floe_threadpool *p);

/* The process-wide pool, created on first use (thread-safe), sized by
 * floe_threadpool_default_threads(); lives until exit.  Fails only if it
 * could not be created. */
floe_status floe_threadpool_default(floe_threadpool **out) FLOE_WARN_UNUSED;

/* ---- task groups ------------------------------------------------------- */

/* A group of tasks on `pool`.  `parent` (may be NULL) is an outer
 * cancellation token, e.g. the query's: setting it cancels the group. */
floe_status floe_task_group_create(floe_threadpool *pool, const floe_cancel *parent,
                                   floe_task_group **out) FLOE_WARN_UNUSED;

/* Queue a task.  Returns false when it could not be queued (out of memory,
 * pool shut down); that failure is then recorded in the group, cancels it
 * and is returned by floe_task_group_wait, so a caller may simply stop
 * submitting.  Tasks submitted to an already-cancelled group are skipped. */
bool floe_task_group_submit(floe_task_group *g, floe_task_fn fn, void *arg);

/* Wait for every submitted task, running queued tasks of this group on the
 * calling thread meanwhile.  Returns NULL when all succeeded, else the
 * first error (caller frees).  May be called from inside a task, but never
 * by a task of the same group (it would wait for itself).  The group can
 * be reused afterwards (a cancelled group stays cancelled). */
floe_status floe_task_group_wait(floe_task_group *g) FLOE_WARN_UNUSED;

/* Ask the group's tasks to stop: sets the token, skips queued tasks. */
void floe_task_group_cancel(floe_task_group *g);
/* The token the group's tasks receive (for passing to nested groups). */
const floe_cancel *floe_task_group_token(const floe_task_group *g);

/* Free the group; waits first (discarding any error) if tasks remain. */
void floe_task_group_destroy(floe_task_group *g);

/* ---- parallel loops ---------------------------------------------------- */

/* Processes items [begin, end). */
typedef floe_status (*floe_range_fn)(void *ctx, size_t begin, size_t end, const floe_cancel *cancel);

/* Run fn over [0, n) split into contiguous ranges of at least `grain`
 * items (0 means 1), at most 4 per worker, on `pool`; wait for all and
 * return the first error.  `parent` may be NULL.  Safe to call from
 * inside a task (the caller helps). */
floe_status floe_parallel_for(floe_threadpool *pool, size_t n, size_t grain, floe_range_fn fn, void *ctx,
                              const floe_cancel *parent) FLOE_WARN_UNUSED;

#endif
