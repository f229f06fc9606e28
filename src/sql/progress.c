/*
 * progress.c — the progress ticker of a running query (see progress.h).
 */
#include "sql/progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_DELAY_MS 500
#define DEFAULT_PERIOD_MS 150

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t env_ms(const char *name, int64_t dflt) {
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    return end && !*end && x >= 0 && x <= 3600000 ? (int64_t)x : dflt;
}

/* Report the counter (caller holds mu). */
static void report(floe_sql_progress *p, bool final) {
    int64_t done = final ? p->total : floe_progress_done(p->counter);
    if (done > p->total) done = p->total;
    if (done < p->last) done = p->last;
    p->last = done;
    p->reported = true;
    p->user->progress(p->user->arg, done, p->total);
}

/* Wait until `deadline_ms` or stop; true when stopped. */
static bool wait_until(floe_sql_progress *p, int64_t deadline_ms) {
    while (!p->stop) {
        int64_t now = mono_ms();
        if (now >= deadline_ms) return false;
        struct timespec ts = {(time_t)(deadline_ms / 1000), (long)(deadline_ms % 1000) * 1000000};
        pthread_cond_timedwait(&p->cv, &p->mu, &ts); /* the cv waits on CLOCK_MONOTONIC */
    }
    return true;
}

static void *ticker(void *arg) {
    floe_sql_progress *p = arg;
    pthread_mutex_lock(&p->mu);
    int64_t next = p->started_ms + p->delay_ms;
    while (!wait_until(p, next)) {
        report(p, false);
        next = mono_ms() + p->period_ms;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The wrapping sink: the caller's callbacks under the ticker's mutex. */
static floe_status w_begin(void *arg, const floe_schema *schema) {
    floe_sql_progress *p = arg;
    pthread_mutex_lock(&p->mu);
    floe_status st = p->user->begin ? p->user->begin(p->user->arg, schema) : NULL;
    pthread_mutex_unlock(&p->mu);
    return st;
}

static floe_status w_batch(void *arg, const floe_batch *batch) {
    floe_sql_progress *p = arg;
    pthread_mutex_lock(&p->mu);
    floe_status st = p->user->batch ? p->user->batch(p->user->arg, batch) : NULL;
    pthread_mutex_unlock(&p->mu);
    return st;
}

static floe_status w_end(void *arg, const char *tag, int64_t rows) {
    floe_sql_progress *p = arg;
    pthread_mutex_lock(&p->mu);
    floe_status st = p->user->end ? p->user->end(p->user->arg, tag, rows) : NULL;
    pthread_mutex_unlock(&p->mu);
    return st;
}

void floe_sql_progress_start(floe_sql_progress *p, const floe_plan *plan, floe_exec_ctx *ctx,
                             const floe_result_sink **sink) {
    memset(p, 0, sizeof *p);
    const floe_result_sink *user = *sink;
    if (!user || !user->progress) return;
    p->total = floe_plan_progress_total(plan);
    if (p->total <= 0) return;
    floe_status st = floe_progress_new(&p->counter);
    if (st) {
        floe_status_free(st);
        return;
    }
    p->user = user;
    p->delay_ms = env_ms("FLOE_PROGRESS_DELAY_MS", DEFAULT_DELAY_MS);
    p->period_ms = env_ms("FLOE_PROGRESS_PERIOD_MS", DEFAULT_PERIOD_MS);
    p->started_ms = mono_ms();
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    bool cv_ok = pthread_cond_init(&p->cv, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (!cv_ok || pthread_mutex_init(&p->mu, NULL) != 0) {
        if (cv_ok) pthread_cond_destroy(&p->cv);
        floe_progress_free(p->counter);
        p->counter = NULL;
        return;
    }
    if (pthread_create(&p->thread, NULL, ticker, p) != 0) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        floe_progress_free(p->counter);
        p->counter = NULL;
        return;
    }
    p->on = true;
    p->wrapped.arg = p;
    p->wrapped.begin = w_begin;
    p->wrapped.batch = w_batch;
    p->wrapped.end = w_end;
    p->wrapped.progress = NULL; /* the ticker reports to the caller's sink */
    ctx->progress = p->counter;
    *sink = &p->wrapped;
}

void floe_sql_progress_stop(floe_sql_progress *p, bool ok) {
    if (!p->on) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    if (ok && (p->reported || mono_ms() - p->started_ms >= p->delay_ms)) report(p, true);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    floe_progress_free(p->counter);
    p->counter = NULL;
    p->on = false;
}
