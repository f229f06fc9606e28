/*
 * progress.h — progress reports of a running query (the sink's progress
 * callback of floe/session.h).
 *
 * The scans of the plan add finished work to a counter in the exec ctx
 * (floe_progress, floe/exec.h); the plan-time total comes from
 * floe_plan_progress_total.  A ticker thread reads the counter and calls
 * sink->progress(done, total) once the query has run for a moment
 * (0.5 s; FLOE_PROGRESS_DELAY_MS overrides) and then every 150 ms
 * (FLOE_PROGRESS_PERIOD_MS), done never decreasing and never above total.
 * The caller's sink is wrapped so its callbacks and the ticker's never run
 * at the same time.  Whether to draw anything (a terminal?) is the sink's
 * business: the session reports whenever the sink has a progress callback.
 */
#ifndef FLOE_SQL_PROGRESS_H
#define FLOE_SQL_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"
#include "floe/session.h"

typedef struct floe_sql_progress {
    bool on;                        /* a ticker runs */
    floe_progress *counter;
    int64_t total;
    const floe_result_sink *user;   /* the caller's sink */
    floe_result_sink wrapped;       /* forwards to `user` under mu */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    bool reported;                  /* progress was called at least once */
    int64_t last;                   /* the last done reported */
    int64_t delay_ms, period_ms;
    int64_t started_ms;
} floe_sql_progress;

/* Start tracking a run of `plan` with `ctx` for `*sink`.  When the sink
 * has a progress callback and the plan has scan work, sets ctx->progress,
 * starts the ticker and points *sink at the wrapping sink (inside `p`, so
 * `p` must stay put until stop).  Never fails: without memory or a thread
 * progress is simply off. */
void floe_sql_progress_start(floe_sql_progress *p, const floe_plan *plan, floe_exec_ctx *ctx,
                             const floe_result_sink **sink);
/* Stop the ticker.  After a successful run (`ok`) whose progress was shown
 * (or that ran past the delay), report done = total once more. */
void floe_sql_progress_stop(floe_sql_progress *p, bool ok);

#endif
