/*
 * worker.c — the task runner every rank has: the message loop of ranks
 * > 0 (rank 0 runs the same handlers from the coordinator's loop, since it
 * runs tasks too), and the tasks themselves.
 *
 * A TASK message becomes a task: decoded (task.c), the coordinator's
 * storage credentials imported, its inputs gathered — remote held inputs
 * FETCHed from every rank holding a part (DATA… then FETCH_END), streamed
 * inputs attached to their inboxes (store.c) — and then run on a thread
 * of its own (a rank takes as many tasks at once as its pool has threads,
 * more when a pipelined group needs them all).  Its output goes one of
 * three ways: kept on this rank for later fetches (store.c), streamed to
 * the ranks of the consumer tasks as credits allow (exchange.c), or sent
 * to rank 0 (OUT).  Every TASK is answered by exactly one DONE or ERROR —
 * also when it is cancelled or cannot be decoded — which is how rank 0
 * counts free threads.  The task threads hand their messages to the main
 * thread through transport.c's queue.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/threadpool.h"
#include "dist/runtime_internal.h"
#include "floe/exec_metrics.h"
#include "floe/fileio.h"
#include "floe/memory.h"

#ifdef FLOE_HAVE_MPI

typedef struct dist_wtask {
    dist_rt *rt;
    dist_task_msg m;
    floe_cancel cancel;
    pthread_t thread;
    bool started;             /* main thread only */
    _Atomic bool finished;
    int32_t pending;          /* fetches not answered yet */
    dist_part_data **fetched; /* per remote input */
    dist_inbox **inboxes;     /* per remote input: its inbox when streamed */
    dist_outlet *outlet;      /* streamed output: credits per destination */
    struct dist_wtask *next;
} wtask;

/* A fetch this rank asked another rank for. */
typedef struct dist_fetch_rec {
    int64_t id;
    wtask *task;
    int32_t input;
    struct dist_fetch_rec *next;
} fetch_rec;

/* ---- a task's output ------------------------------------------------------ */

/* Task output kept here (keep_output): no message at all. */
static floe_status emit_local(void *arg, int32_t bucket, uint8_t *blob, size_t len) {
    wtask *t = arg;
    return dist_store_keep(t->rt, t->m.query_id, t->m.stage_id, bucket, blob, len);
}

/* From a task thread: a message for rank 0. */
static floe_status enqueue(dist_rt *rt, int tag, uint8_t *buf, size_t len, const floe_cancel *cancel) {
    return dist_net_enqueue(rt, 0, tag, buf, len, cancel, true, 0);
}

/* A streamed blob (or, blob NULL, the end) for partition `bucket` of the
 * task's exchange, once the consumer has room for it. */
static floe_status send_stream(wtask *t, int32_t bucket, uint8_t *blob, size_t len) {
    dist_rt *rt = t->rt;
    if (blob) {
        floe_status st = dist_outlet_acquire(t->outlet, bucket, &t->cancel);
        if (st) {
            dist_xbytes_add(-(int64_t)len);
            floe_free(blob);
            return st;
        }
    }
    /* the copy with its header is counted while both exist */
    dist_xbytes_add((int64_t)len);
    dist_msg_stream m = {t->m.query_id, t->m.stage_id, bucket, t->m.partition, blob == NULL, blob, len};
    uint8_t *buf = NULL;
    size_t n = 0;
    floe_status st = dist_msg_stream_encode(&m, &buf, &n);
    dist_xbytes_add(-(int64_t)len);
    floe_free(blob);
    if (st) {
        dist_xbytes_add(-(int64_t)len);
        return floe_status_wrap(st, "streaming task output");
    }
    return dist_net_enqueue(rt, t->m.dests[bucket], DIST_MSG_STREAM, buf, n, &t->cancel, true, (int64_t)len);
}

static floe_status emit_stream(void *arg, int32_t bucket, uint8_t *blob, size_t len) {
    wtask *t = arg;
    if (bucket < 0 || bucket >= t->m.n_dests) {
        dist_xbytes_add(-(int64_t)len);
        floe_free(blob);
        return floe_error(FLOE_ERR_INTERNAL, "streamed output to bucket %d of %d", bucket, t->m.n_dests);
    }
    return send_stream(t, bucket, blob, len);
}

/* From the consumer's thread (or the main thread): give credits back to
 * the producer task of an inbox's blob. */
static void credit_back(void *arg, dist_inbox *in, int32_t producer, int32_t n) {
    dist_rt *rt = arg;
    int32_t rank = dist_inbox_producer_rank(in, producer);
    if (rank < 0 || rank >= rt->size) return;
    /* called inside the consumer's next(): the message outlives the
     * task's EXPLAIN ANALYZE trackers, so charge it to the root */
    floe_mem_tracker *prev = floe_mem_set_current(NULL);
    dist_msg_credit m = {dist_inbox_query(in), dist_inbox_exchange(in), producer, dist_inbox_part(in), n};
    uint8_t *buf = NULL;
    size_t len = 0;
    floe_status st = dist_msg_credit_encode(&m, &buf, &len);
    if (!st) st = dist_net_enqueue(rt, rank, DIST_MSG_CREDIT, buf, len, NULL, false, 0);
    /* without memory the producer waits until the query is cancelled */
    floe_status_free(st);
    floe_mem_set_current(prev);
}

static floe_status emit_out(void *arg, int32_t bucket, uint8_t *blob, size_t len) {
    wtask *t = arg;
    dist_rt *rt = t->rt;
    dist_msg_out m = {t->m.query_id, t->m.task_id, bucket, blob, len};
    uint8_t *buf = NULL;
    size_t n = 0;
    floe_status st = dist_msg_out_encode(&m, &buf, &n);
    floe_free(blob);
    if (st) return floe_status_wrap(st, "sending task output");
    return enqueue(rt, DIST_MSG_OUT, buf, n, &t->cancel);
}

/* ---- a task's thread ------------------------------------------------------ */

static void *task_thread(void *arg) {
    wtask *t = arg;
    dist_rt *rt = t->rt;
    floe_exec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.batch_size = t->m.batch_size;
    ctx.cancel = &t->cancel;
    ctx.scan_concurrency = t->m.scan_concurrency;
    ctx.read_ahead = t->m.read_ahead;
    dist_task_stats stats;
    memset(&stats, 0, sizeof stats);
    floe_exec_metrics *metrics = NULL;
    floe_status st = t->m.analyze ? floe_exec_metrics_new(&metrics) : NULL;
    ctx.metrics = metrics;
    /* The task's execution: its inputs are bound in it, not on the plan. */
    floe_execution *exec = NULL;
    if (!st) st = floe_execution_begin(&ctx, &exec);
    if (!st) st = dist_task_bind_inline(&t->m, &ctx);
    for (int32_t i = 0; !st && i < t->m.n_remote; i++)
        st = t->inboxes[i] ? dist_exchange_source_bind_inbox(&ctx, t->m.remote[i].source, t->m.remote[i].part,
                                                             t->inboxes[i])
                           : dist_exchange_source_bind(&ctx, t->m.remote[i].source, t->m.remote[i].part,
                                                       t->fetched[i]);
    bool streamed = t->m.n_dests > 0;
    if (!st) st = dist_task_run(t->m.plan, t->m.partition, &t->m.route, &ctx, t->m.blob_target, streamed,
                                   streamed ? emit_stream : t->m.keep_output ? emit_local : emit_out, t, &stats);
    /* the end of a streamed output, after its last blob (same tag, same
     * order: MPI does not let a message overtake an earlier one) */
    for (int32_t b = 0; !st && streamed && b < t->m.n_dests; b++) st = send_stream(t, b, NULL, 0);
    /* inputs it did not read to the end: their producers must not wait */
    for (int32_t i = 0; t->inboxes && i < t->m.n_remote; i++)
        if (t->inboxes[i]) dist_inbox_close(t->inboxes[i]);
    floe_status s2;
    if (st) {
        /* the code travels with the text: rank 0 fails the query with it */
        const char *msg = floe_status_message(st);
        dist_msg_error m = {t->m.query_id, t->m.task_id, floe_status_code(st), msg, strlen(msg)};
        uint8_t *buf = NULL;
        size_t len = 0;
        s2 = dist_msg_error_encode(&m, &buf, &len);
        if (!s2) s2 = enqueue(rt, DIST_MSG_ERROR, buf, len, NULL);
        floe_status_free(st);
    } else {
        /* DONE, then (EXPLAIN ANALYZE) the metrics of each node */
        floe_buf done = FLOE_BUF_INIT;
        dist_msg_done m = {t->m.query_id,     t->m.task_id,       stats.rows_out, stats.bytes_out,
                           stats.batches_out, stats.elapsed_us,   dist_xbytes_peak(),
                           t->outlet ? dist_outlet_waited_us(t->outlet) : 0, NULL, 0};
        s2 = dist_msg_done_put(&m, &done);
        if (!s2 && metrics) s2 = dist_node_stats_put(t->m.plan, metrics, &ctx, &done);
        size_t len = 0;
        uint8_t *buf = s2 ? NULL : floe_buf_detach(&done, &len);
        floe_buf_free(&done);
        if (buf) s2 = enqueue(rt, DIST_MSG_DONE, buf, len, NULL);
    }
    floe_execution_end(exec);
    floe_exec_metrics_free(metrics);
    floe_status_free(s2);
    atomic_store(&t->finished, true);
    return NULL;
}

/* ---- the tasks of this rank ---------------------------------------------- */

static void wtask_free(wtask *t) {
    for (int32_t i = 0; t->fetched && i < t->m.n_remote; i++) dist_part_data_release(t->fetched[i]);
    for (int32_t i = 0; t->inboxes && i < t->m.n_remote; i++) dist_inbox_release(t->inboxes[i]);
    floe_free(t->fetched);
    floe_free(t->inboxes);
    dist_outlet_free(t->outlet);
    dist_task_msg_clear(&t->m);
    floe_free(t);
}

void dist_worker_reap(dist_rt *rt) {
    for (wtask **pp = &rt->worker.tasks; *pp;) {
        wtask *t = *pp;
        if (!t->started || !atomic_load(&t->finished)) {
            pp = &t->next;
            continue;
        }
        pthread_join(t->thread, NULL);
        *pp = t->next;
        wtask_free(t);
    }
    dist_net_wake(rt);
}

/* ERROR for a task that did not run: `code` and `text` say why. */
static void answer_error(dist_rt *rt, int64_t q, int64_t task, floe_code code, const char *text) {
    dist_msg_error m = {q, task, code, text, text ? strlen(text) : 0};
    uint8_t *buf = NULL;
    size_t len = 0;
    floe_status st = dist_msg_error_encode(&m, &buf, &len);
    /* without memory rank 0 waits for this task until the query is cancelled */
    if (!st) st = dist_net_enqueue(rt, 0, DIST_MSG_ERROR, buf, len, NULL, false, 0);
    floe_status_free(st);
}

static void unlink_task(dist_rt *rt, wtask *t) {
    for (wtask **pp = &rt->worker.tasks; *pp; pp = &(*pp)->next)
        if (*pp == t) {
            *pp = t->next;
            return;
        }
}

/* A task that never started: answer ERROR (rank 0 frees the slot), forget
 * its fetches, free it. */
static void fail_unstarted(wtask *t, floe_code code, const char *text) {
    dist_rt *rt = t->rt;
    answer_error(rt, t->m.query_id, t->m.task_id, code, text);
    for (fetch_rec **pp = &rt->worker.fetches; *pp;) {
        fetch_rec *f = *pp;
        if (f->task != t) {
            pp = &f->next;
            continue;
        }
        *pp = f->next;
        floe_free(f);
    }
    unlink_task(rt, t);
    wtask_free(t);
}

/* ---- starting a task: its inputs first ----------------------------------- */

/* Every input is here: start the task's thread (which binds them in the
 * task's execution). */
static void start_thread(wtask *t) {
    dist_rt *rt = t->rt;
    if (t->m.query_id <= rt->worker.cancelled_upto) floe_cancel_set(&t->cancel);
    if (pthread_create(&t->thread, NULL, task_thread, t) != 0) {
        fail_unstarted(t, FLOE_ERR_OUT_OF_MEMORY, "could not start a task thread");
        return;
    }
    t->started = true;
}

/* Ask every holder of every remote input for its part. */
static floe_status request_inputs(wtask *t) {
    dist_rt *rt = t->rt;
    t->fetched = floe_calloc((size_t)(t->m.n_remote ? t->m.n_remote : 1), sizeof *t->fetched);
    t->inboxes = floe_calloc((size_t)(t->m.n_remote ? t->m.n_remote : 1), sizeof *t->inboxes);
    if (!t->fetched || !t->inboxes) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting a task");
    if (t->m.n_dests > 0) FLOE_TRY(dist_outlet_new(t->m.n_dests, t->m.window, &t->outlet));
    for (int32_t i = 0; i < t->m.n_remote; i++) {
        const dist_remote_input *in = &t->m.remote[i];
        if (in->streamed) {
            /* the producers send it as they run: no fetch, just an inbox */
            for (int32_t k = 0; k < in->n_holders; k++)
                if (in->holders[k] < 0 || in->holders[k] >= rt->size)
                    return floe_error(FLOE_ERR_CORRUPT, "task names rank %d as a producer", in->holders[k]);
            dist_inbox *box = dist_store_inbox(rt, t->m.query_id, in->exchange, in->part);
            if (!box) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting a task");
            t->inboxes[i] = dist_inbox_retain(box);
            FLOE_TRY(dist_inbox_attach(box, in->n_holders, in->holders, credit_back, rt));
            continue;
        }
        FLOE_TRY(dist_part_data_new(&t->fetched[i]));
        for (int32_t k = 0; k < in->n_holders; k++) {
            int h = in->holders[k];
            if (h == rt->rank) {
                FLOE_TRY(dist_store_copy(rt, t->m.query_id, in->exchange, in->part, t->fetched[i]));
                continue;
            }
            if (h < 0 || h >= rt->size) return floe_error(FLOE_ERR_CORRUPT, "task names rank %d as a holder", h);
            fetch_rec *f = floe_calloc(1, sizeof *f);
            if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting a task");
            f->id = ++rt->worker.next_fetch;
            f->task = t;
            f->input = i;
            f->next = rt->worker.fetches;
            rt->worker.fetches = f;
            dist_msg_fetch m = {t->m.query_id, f->id, in->exchange, in->part};
            uint8_t *buf = NULL;
            size_t len = 0;
            floe_status st = dist_msg_fetch_encode(&m, &buf, &len);
            FLOE_TRY(dist_net_send_encoded(rt, st, h, DIST_MSG_FETCH, buf, len));
            t->pending++;
        }
    }
    return NULL;
}

void dist_worker_start_task(dist_rt *rt, const uint8_t *buf, size_t len) {
    wtask *t = floe_calloc(1, sizeof *t);
    floe_status st = t ? dist_task_decode(buf, len, &t->m) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting a task");
    if (st) {
        /* answer with an error so rank 0 frees the slot */
        int64_t q, task;
        dist_msg_task_ids(buf, len, &q, &task);
        answer_error(rt, q, task, floe_status_code(st), floe_status_message(st));
        floe_status_free(st);
        if (t) dist_task_msg_clear(&t->m);
        floe_free(t);
        return;
    }
    t->rt = rt;
    floe_cancel_init(&t->cancel, NULL);
    atomic_init(&t->finished, false);
    if (rt->rank != 0 && t->m.creds_len > 0) {
        /* the coordinator's current storage credentials (rank 0's own
         * tasks already share its store) */
        st = floe_credentials_import(t->m.creds, t->m.creds_len);
        if (st) st = floe_status_wrap(st, "importing the coordinator's storage credentials");
        else FLOE_LOG_DEBUG("dist", "rank %d: storage credentials of rank 0 imported (%zu bytes)", rt->rank,
                            t->m.creds_len);
        if (st) {
            t->next = rt->worker.tasks;
            rt->worker.tasks = t;
            fail_unstarted(t, floe_status_code(st), floe_status_message(st));
            floe_status_free(st);
            return;
        }
    }
    if (t->m.query_id > rt->worker.last_query) {
        /* a new query: its peak of streamed exchange bytes starts now */
        rt->worker.last_query = t->m.query_id;
        dist_xbytes_reset_peak();
    }
    t->next = rt->worker.tasks;
    rt->worker.tasks = t;
    st = request_inputs(t);
    if (st) {
        fail_unstarted(t, floe_status_code(st), floe_status_message(st));
        floe_status_free(st);
        return;
    }
    if (t->pending == 0) start_thread(t);
}

static fetch_rec *find_fetch(dist_rt *rt, int64_t id, bool unlink) {
    for (fetch_rec **pp = &rt->worker.fetches; *pp; pp = &(*pp)->next) {
        fetch_rec *f = *pp;
        if (f->id != id) continue;
        if (unlink) *pp = f->next;
        return f;
    }
    return NULL;
}

/* DATA: one blob of a fetch (the buffer is taken over). */
static void got_data(dist_rt *rt, uint8_t *buf, size_t len) {
    dist_msg_data m;
    floe_status st = dist_msg_data_decode(buf, len, &m);
    fetch_rec *f = st ? NULL : find_fetch(rt, m.id, false);
    floe_status_free(st);
    if (!f) {
        floe_free(buf);
        return;
    }
    st = dist_part_data_add(f->task->fetched[f->input], dist_msg_blob_in_place(buf, m.blob, m.blob_len), m.blob_len);
    if (st) {
        /* out of memory: fail the task when its fetches end */
        floe_cancel_set(&f->task->cancel);
        floe_status_free(st);
    }
}

static void got_fetch_end(dist_rt *rt, int src, const uint8_t *buf, size_t len) {
    dist_msg_fetch_end m;
    floe_status st = dist_msg_fetch_end_decode(buf, len, &m);
    fetch_rec *f = st ? NULL : find_fetch(rt, m.id, true);
    floe_status_free(st);
    if (!f) return;
    wtask *t = f->task;
    floe_free(f);
    if (m.failed) floe_cancel_set(&t->cancel);
    if (--t->pending > 0) return;
    if (floe_cancel_is_set(&t->cancel) && t->m.query_id > rt->worker.cancelled_upto) {
        char text[96];
        snprintf(text, sizeof text, "fetching exchange data from rank %d failed", src);
        fail_unstarted(t, FLOE_ERR_IO, text);
        return;
    }
    start_thread(t);
}

/* ---- the loop ------------------------------------------------------------- */

/* CANCEL(q): query q (and older) is over here: cancel its running tasks,
 * fail those still fetching, drop the data held for it. */
void dist_worker_end_query(dist_rt *rt, int64_t q) {
    if (q > rt->worker.cancelled_upto) rt->worker.cancelled_upto = q;
    if (q != INT64_MAX) FLOE_LOG_DEBUG("dist", "rank %d: query %lld is over", rt->rank, (long long)q);
    for (wtask *t = rt->worker.tasks, *next; t; t = next) {
        next = t->next;
        if (t->m.query_id > q) continue;
        if (t->started) floe_cancel_set(&t->cancel);
        else fail_unstarted(t, FLOE_ERR_CANCELLED, "cancelled");
    }
    dist_store_drop(rt, q);
}

/* CREDIT: a consumer has room again for a producer task of this rank. */
static void got_credit(dist_rt *rt, const uint8_t *buf, size_t len) {
    dist_msg_credit m;
    floe_status st = dist_msg_credit_decode(buf, len, &m);
    if (st) {
        floe_status_free(st);
        return;
    }
    for (wtask *t = rt->worker.tasks; t; t = t->next)
        if (t->outlet && t->m.query_id == m.query && t->m.stage_id == m.exchange && t->m.partition == m.producer) {
            dist_outlet_grant(t->outlet, m.part, m.n);
            return;
        }
}

/* A message for the worker side (any rank): handled, buffer taken over,
 * true; false for a tag it does not know (the buffer stays the caller's). */
bool dist_worker_handle(dist_rt *rt, int src, int tag, uint8_t *buf, size_t len) {
    switch (tag) {
    case DIST_MSG_FETCH: dist_store_serve_fetch(rt, src, buf, len); break;
    case DIST_MSG_DATA: got_data(rt, buf, len); return true;
    case DIST_MSG_FETCH_END: got_fetch_end(rt, src, buf, len); break;
    case DIST_MSG_STREAM: dist_store_got_stream(rt, buf, len, false); return true;
    case DIST_MSG_CREDIT: got_credit(rt, buf, len); break;
    case DIST_MSG_CHECK: dist_paths_answer(rt, buf, len); break;
    case DIST_MSG_CANCEL: {
        int64_t q;
        floe_status st = dist_msg_cancel_decode(buf, len, &q);
        if (!st) dist_worker_end_query(rt, q);
        floe_status_free(st);
        break;
    }
    default: return false;
    }
    floe_free(buf);
    return true;
}

/* A message a task of this rank addressed to this rank itself. */
bool dist_worker_deliver(dist_rt *rt, int tag, uint8_t *buf, size_t len) {
    switch (tag) {
    case DIST_MSG_STREAM: dist_store_got_stream(rt, buf, len, true); return true;
    case DIST_MSG_CREDIT:
        got_credit(rt, buf, len);
        floe_free(buf);
        return true;
    default: return false;
    }
}

bool dist_worker_idle(dist_rt *rt) {
    return !rt->worker.tasks && dist_net_queue_empty(rt);
}

/* While this rank has tasks, a HEARTBEAT to rank 0 every second: the
 * loop (not the task threads) sends it, so a task computing for minutes
 * keeps its rank alive in rank 0's eyes, and a rank whose process stops
 * (SIGSTOP, a hung host) falls silent and is failed (coordinator.c). */
static void heartbeat(dist_rt *rt) {
    if (!rt->worker.tasks) return;
    int64_t now = dist_now_us();
    if (now - rt->worker.beat_us < DIST_HEARTBEAT_US) return;
    rt->worker.beat_us = now;
    floe_status st = dist_net_send_empty(rt, 0, DIST_MSG_HEARTBEAT);
    floe_status_free(st); /* without memory: the next one */
}

/* A message from another worker that has been arriving for the rank
 * timeout: its sender stopped or died in the middle of it.  Give the
 * receive up (nothing else could be received behind it — not even rank
 * 0's CANCEL) and drop what that rank sends from now on; rank 0 finds it
 * silent too and ends the job.  Rank 0 itself is not judged here. */
static void drop_stuck(dist_rt *rt) {
    int src;
    int64_t since;
    if (!dist_net_receiving(rt, &src, &since) || src <= 0 || src >= rt->size) return;
    if (dist_now_us() - since <= rt->timeout_us) return;
    FLOE_LOG_ERROR("dist", "rank %d: rank %d stopped in the middle of a message for %.0f s: giving it up", rt->rank,
                   src, rt->timeout_us / 1e6);
    rt->gone[src] = true;
    dist_net_abandon_recv(rt, src);
}

/* The loop of a rank > 0: tasks until rank 0's STOP; the exit code. */
int dist_worker_main(dist_rt *rt) {
    bool stopping = false;
    int idle = 0;
    for (;;) {
        bool busy = false;
        dist_worker_reap(rt);
        busy |= dist_net_drain(rt);
        busy |= dist_net_progress(rt);
        if (stopping && dist_worker_idle(rt) && !rt->net.sends) break;
        heartbeat(rt);
        drop_stuck(rt);
        bool got;
        int src, tag;
        uint8_t *buf = NULL;
        size_t len = 0;
        floe_status st = dist_net_recv_any(rt, &got, &src, &tag, &buf, &len);
        if (st) {
            FLOE_LOG_ERROR("dist", "rank %d: %s", rt->rank, floe_status_message(st));
            floe_status_free(st);
            return 1;
        }
        if (got && src > 0 && rt->gone[src]) {
            floe_free(buf); /* from a rank given up on (drop_stuck) */
        } else if (got) {
            busy = true;
            if (tag == DIST_MSG_TASK && !stopping) {
                dist_worker_start_task(rt, buf, len);
                floe_free(buf);
            } else if (tag == DIST_MSG_STOP) {
                dist_worker_end_query(rt, INT64_MAX);
                stopping = true;
                floe_free(buf);
            } else if (!dist_worker_handle(rt, src, tag, buf, len)) {
                floe_free(buf);
            }
        }
        if (busy) idle = 0;
        else dist_nap(&idle);
    }
    /* Say goodbye and wait until rank 0 has it. */
    floe_status st = dist_net_send_empty(rt, 0, DIST_MSG_BYE);
    floe_status_free(st);
    int idle2 = 0;
    while (rt->net.sends) {
        if (!dist_net_progress(rt)) dist_nap(&idle2);
    }
    return 0;
}

#endif
