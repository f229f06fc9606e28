/*
 * coordinator.c — rank 0's scheduler and the executor it installs
 * (session.h): open() splits a query's plan into stages (stages.c), runs
 * every stage but the last on the ranks and returns a stream over the
 * last, which rank 0 runs itself; explain() shows the stages.
 *
 * The scheduler loop runs on the session thread (the only one calling
 * MPI) until every stage but the last has finished; it also serves rank
 * 0's own tasks (their messages, fetches and streams) through the worker
 * side's handlers.  A hash or round-robin exchange between two stages
 * that run on the ranks streams (exchange.c): producer and consumer stages
 * form a pipelined group whose tasks are all placed and dispatched at
 * once, the producers sending each blob to the rank of the consumer task
 * of its partition when that consumer has credit for it.  The blob size
 * is chosen per group so that the channels of the most loaded rank fit
 * the exchange bound.  Other exchanges are barriers: a stage runs when the
 * stages it reads that way have finished.  Their output stays on the
 * ranks that ran its tasks unless the last stage reads it; a consumer
 * task names those ranks and its rank fetches its partitions from each of
 * them before running it, so data moves rank to rank and rank 0
 * coordinates only the final gather.  A task goes to the rank with the
 * most free threads, so a slow or busy rank gets fewer.  The first error
 * cancels the query on every rank and is returned naming the rank, task,
 * stage and partition; after it the coordinator waits (bounded) for the
 * running tasks to answer and runs a write's commit stage over what
 * arrived, so it deletes every file written.
 *
 * What is not here yet (docs/ARCHITECTURE.md): barrier exchange data (a
 * gather, a broadcast build side) and what the last stage reads stay
 * whole in memory (no spilling).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/threadpool.h"
#include "dist/runtime_internal.h"
#include "floe/fileio.h"
#include "floe/memory.h"

#ifdef FLOE_HAVE_MPI

/* Streamed exchange bytes a rank may hold by default, and the sizes a
 * streamed blob is kept between. */
#define DEFAULT_EXCHANGE_BOUND ((int64_t)256 << 20)
#define MIN_BLOB ((int64_t)4 << 10)
#define MAX_BLOB ((int64_t)1 << 20)

/* FLOE_DIST_EXCHANGE_BUFFER_BYTES: bytes (K/M/G suffix allowed) of
 * streamed exchange data a rank may hold. */
static int64_t exchange_bound(void) {
    const char *v = getenv("FLOE_DIST_EXCHANGE_BUFFER_BYTES");
    if (!v || !*v) return DEFAULT_EXCHANGE_BOUND;
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    int64_t mult = 1;
    if (end && (*end == 'k' || *end == 'K')) mult = 1 << 10;
    else if (end && (*end == 'm' || *end == 'M')) mult = 1 << 20;
    else if (end && (*end == 'g' || *end == 'G')) mult = 1 << 30;
    if (n <= 0) {
        FLOE_LOG_WARN("dist", "FLOE_DIST_EXCHANGE_BUFFER_BYTES=%s is not a positive size: using %lld", v,
                      (long long)DEFAULT_EXCHANGE_BOUND);
        return DEFAULT_EXCHANGE_BOUND;
    }
    return (int64_t)n * mult;
}

/* ---- placing and dispatching tasks -------------------------------------- */

static bool stage_ready(const coord *c, int32_t s) {
    const dist_stage *stage = &c->stages->stages[s];
    for (int32_t i = 0; i < stage->n_deps; i++)
        if (c->remaining[stage->deps[i]] > 0) return false;
    return true;
}

static int best_rank(dist_rt *rt) {
    int best = -1;
    for (int r = 0; r < rt->size; r++)
        if (rt->free_slots[r] > 0 && (best < 0 || rt->free_slots[r] > rt->free_slots[best])) best = r;
    return best;
}

/* The rank with the most free threads, even when none has any (tasks of
 * a pipelined group must all run at once). */
static int best_rank_any(dist_rt *rt) {
    int best = 0;
    for (int r = 1; r < rt->size; r++)
        if (rt->free_slots[r] > rt->free_slots[best]) best = r;
    return best;
}

/* Send task t to `rank` (placed: its rank and slot were taken already). */
static floe_status dispatch(coord *c, int64_t t, int rank, bool placed) {
    dist_rt *rt = c->rt;
    coord_task *task = &c->tasks[t];
    const dist_stage *gst = &c->stages->stages[task->stage];
    int32_t dests_buf[1];
    int32_t *dests = dests_buf;
    dist_task_msg m;
    memset(&m, 0, sizeof m);
    m.query_id = c->query;
    m.task_id = t;
    m.stage_id = task->stage;
    m.partition = task->partition;
    m.batch_size = c->ctx->batch_size > 0 ? c->ctx->batch_size : 8192;
    m.scan_concurrency = c->ctx->scan_concurrency;
    m.read_ahead = c->ctx->read_ahead;
    m.route = gst->route; /* borrowed: not cleared */
    m.keep_output = !c->to_root[task->stage];
    m.blob_target = c->blob_target[task->stage];
    m.analyze = c->analyze;
    if (c->streamed[task->stage]) {
        /* where each output partition goes: the rank of the consumer task
         * reading it */
        int32_t s = task->stage, n = gst->route.n_out;
        dests = floe_calloc((size_t)n, sizeof *dests);
        if (!dests) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scheduling: out of memory");
        for (int32_t j = 0; j < n; j++) dests[j] = c->tasks[c->first_task[c->consumer[s]] + c->reader[s][j]].rank;
        m.n_dests = n;
        m.dests = dests;
        m.window = CREDIT_WINDOW;
    }
    /* the storage credentials as they are now (a REST catalog may have
     * refreshed them since the last task): every rank signs with them */
    floe_buf creds = FLOE_BUF_INIT;
    floe_status st = floe_credentials_export(&creds);
    m.creds = creds.data;
    m.creds_len = creds.len;
    floe_buf out = FLOE_BUF_INIT;
    if (!st) st = dist_task_encode(&m, gst->plan, c->store, &c->holders, &out);
    if (creds.data) memset(creds.data, 0, creds.len); /* secrets */
    floe_buf_free(&creds);
    if (dests != dests_buf) floe_free(dests);
    if (st) {
        floe_buf_free(&out);
        return st;
    }
    size_t len = 0;
    uint8_t *buf = floe_buf_detach(&out, &len);
    if (rank == rt->rank) {
        /* rank 0's own threads: the same message, started here */
        dist_worker_start_task(rt, buf, len);
        floe_free(buf);
    } else {
        FLOE_TRY(dist_net_send(rt, rank, DIST_MSG_TASK, buf, len));
    }
    task->state = DIST_T_RUNNING;
    task->rank = rank;
    dist_coord_owe(c, rank, 1);
    if (!placed) rt->free_slots[rank]--;
    FLOE_LOG_DEBUG("dist", "query %lld task %lld (stage %d, partition %d) to rank %d, %zu bytes",
                   (long long)c->query, (long long)t, task->stage, task->partition, rank, len);
    return NULL;
}

/* The error a worker's ERROR stands for: its code and its text, after
 * the rank, task, stage and partition (the task is one of query c's). */
static floe_status task_error(const coord *c, int src, const dist_msg_error *m) {
    dist_rt *rt = c->rt;
    char hint[2 * MPI_MAX_PROCESSOR_NAME + 200];
    dist_paths_hint(rt, src, m->text, m->text_len, hint, sizeof hint);
    const coord_task *task = &c->tasks[m->task];
    return floe_error(m->code, "rank %d, task %lld (stage %d, partition %d): %.*s%s", src, (long long)m->task,
                      task->stage, task->partition, (int)m->text_len, m->text, hint);
}

/* Stage s finished with its output kept on the workers that ran it:
 * consumers fetch from those ranks. */
static floe_status note_holders(coord *c, int32_t s) {
    dist_rt *rt = c->rt;
    int32_t *ranks = floe_calloc((size_t)rt->size, sizeof *ranks);
    if (!ranks) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scheduling: out of memory");
    int32_t n = 0;
    for (int64_t t = 0; t < c->n_tasks; t++) {
        if (c->tasks[t].stage != s) continue;
        bool seen = false;
        for (int32_t i = 0; i < n && !seen; i++) seen = ranks[i] == c->tasks[t].rank;
        if (!seen) ranks[n++] = c->tasks[t].rank;
    }
    c->holders.holders[s] = ranks;
    c->holders.n_holders[s] = n;
    return NULL;
}

/* ---- answers ------------------------------------------------------------ */

/* A DONE or ERROR answered task t of query c: its thread is free again. */
static coord_task *answered(dist_rt *rt, coord *c, int src, int64_t q, int64_t t) {
    if (src >= 0 && src < rt->size) rt->free_slots[src]++;
    if (!c || q != c->query || t < 0 || t >= c->n_tasks || c->tasks[t].state != DIST_T_RUNNING) return NULL;
    c->tasks[t].state = DIST_T_DONE; /* answered, if not successfully */
    dist_coord_owe(c, c->tasks[t].rank, -1);
    return &c->tasks[t];
}

/* A task of query c finished: a stage whose tasks are all done and whose
 * output stays on the workers is held by the ranks that ran it. */
static floe_status got_done(coord *c, int src, const dist_msg_done *m) {
    dist_rt *rt = c->rt;
    coord_task *task = answered(rt, c, src, m->query, m->task);
    if (!task) return NULL;
    task->stats.rows_out = m->rows;
    task->stats.bytes_out = m->bytes;
    task->stats.batches_out = m->batches;
    task->stats.elapsed_us = m->elapsed_us;
    if (src >= 0 && src < rt->size && m->peak_xbytes > c->peak[src]) c->peak[src] = m->peak_xbytes;
    c->waited_us[task->stage] += m->waited_us;
    dist_analyze_add_node_stats(c, src, task->stage, m->node_stats, m->node_stats_len);
    int32_t s = task->stage;
    if (--c->remaining[s] == 0 && !c->to_root[s] && !c->streamed[s]) return note_holders(c, s);
    return NULL;
}

/* OUT: a blob of a stage the root stage reads, into the store (the
 * buffer is taken over). */
static floe_status got_out(coord *c, int src, uint8_t *buf, size_t len) {
    dist_msg_out m;
    floe_status st = dist_msg_out_decode(buf, len, &m);
    if (st || m.query != c->query || m.task < 0 || m.task >= c->n_tasks) {
        floe_status_free(st); /* not this query's */
        floe_free(buf);
        return NULL;
    }
    const dist_stage *gst = &c->stages->stages[c->tasks[m.task].stage];
    if (m.bucket < 0 || m.bucket >= gst->route.n_out) {
        floe_free(buf);
        return floe_error(FLOE_ERR_INTERNAL, "rank %d sent data for bucket %lld of %d", src, (long long)m.bucket,
                          gst->route.n_out);
    }
    size_t n = m.blob_len;
    return dist_part_data_add(c->store[gst->id][m.bucket], dist_msg_blob_in_place(buf, m.blob, n), n);
}

/* A DONE or ERROR that cannot be read still frees its rank's thread; the
 * query cannot know which task it answered, so it fails. */
static floe_status malformed(dist_rt *rt, coord *c, int src, int tag, floe_status st) {
    if (src >= 0 && src < rt->size) rt->free_slots[src]++;
    if (!c) {
        floe_status_free(st);
        return NULL;
    }
    return floe_status_wrap(st, "rank %d sent a malformed %s message", src, dist_msg_name(tag));
}

/* Handle one message from a worker during query c (c may be NULL: only
 * bookkeeping).  The buffer is taken over. */
static floe_status coord_handle(dist_rt *rt, coord *c, int src, int tag, uint8_t *buf, size_t len, int *byes) {
    floe_status st = NULL;
    switch (tag) {
    case DIST_MSG_OUT:
        if (c) return got_out(c, src, buf, len);
        break;
    case DIST_MSG_DONE: {
        dist_msg_done m;
        st = dist_msg_done_decode(buf, len, &m);
        st = st ? malformed(rt, c, src, tag, st) : got_done(c, src, &m);
        break;
    }
    case DIST_MSG_ERROR: {
        dist_msg_error m;
        st = dist_msg_error_decode(buf, len, &m);
        if (st) {
            st = malformed(rt, c, src, tag, st);
            break;
        }
        if (answered(rt, c, src, m.query, m.task)) st = task_error(c, src, &m);
        break;
    }
    case DIST_MSG_BYE:
        if (byes) (*byes)++;
        if (src >= 0 && src < rt->size) rt->said_bye[src] = true;
        break;
    case DIST_MSG_CHECKED: {
        dist_msg_checked m;
        st = dist_msg_checked_decode(buf, len, &m);
        if (st || !c || m.query != c->query) {
            floe_status_free(st); /* not this query's */
            st = NULL;
            break;
        }
        c->checks_pending--;
        dist_coord_owe(c, src, -1);
        if (!m.ok && !c->check_err)
            c->check_err = floe_error(FLOE_ERR_IO,
                                      "rank %d on host '%s' does not see the files rank 0 (host '%s') planned from: "
                                      "%.*s — under mpirun every rank must see the same files: use a shared file "
                                      "system or S3, not a node-local path",
                                      src, rt->hosts[src], rt->hosts[0], (int)m.why_len, m.why);
        break;
    }
    default:
        break;
    }
    floe_free(buf);
    return st;
}

void dist_coord_free_sched(coord *c) {
    for (int32_t s = 0; c->holders.holders && s < c->stages->n; s++) floe_free(c->holders.holders[s]);
    for (int32_t s = 0; c->reader && s < c->stages->n; s++) floe_free(c->reader[s]);
    floe_free(c->holders.holders);
    floe_free(c->holders.n_holders);
    floe_free(c->streamed);
    floe_free(c->consumer);
    floe_free(c->group);
    floe_free(c->multi);
    floe_free(c->group_sent);
    floe_free(c->first_task);
    floe_free(c->reader);
    floe_free(c->blob_target);
    floe_free(c->peak);
    floe_free(c->waited_us);
    floe_free(c->owed);
    c->owed = NULL;
    for (int32_t s = 0; c->nstats && s < c->stages->n; s++) floe_free(c->nstats[s]);
    floe_free(c->nstats);
    floe_free(c->n_nodes);
    c->nstats = NULL;
    c->n_nodes = NULL;
    c->streamed = c->group_sent = c->multi = NULL;
    c->consumer = c->group = NULL;
    c->first_task = c->blob_target = c->peak = c->waited_us = NULL;
    c->reader = NULL;
    c->holders.holders = NULL;
    c->holders.n_holders = NULL;
    c->holders.streamed = NULL;
    floe_free(c->tasks);
    floe_free(c->remaining);
    floe_free(c->to_root);
}

static void coord_free(coord *c) {
    floe_status_free(c->check_err);
    c->check_err = NULL;
    if (c->stages) dist_coord_free_sched(c);
    dist_store_free(c->stages, c->store);
    dist_stages_free(c->stages);
}

/* ---- setting a query up: tasks, pipelined groups ------------------------ */

/* Which consumer partition reads each partition of exchange `target`. */
typedef struct reader_map {
    int32_t target, k;
    int32_t *reader;
    int32_t n;
    bool bad;
} reader_map;

static floe_status reader_visit(void *arg, const floe_plan *source, int32_t part) {
    reader_map *m = arg;
    if (dist_exchange_source_id(source) != m->target) return NULL;
    if (part < 0 || part >= m->n || m->reader[part] >= 0) m->bad = true; /* read twice: not streamable */
    else m->reader[part] = m->k;
    return NULL;
}

/* Decide which exchanges stream (hash / round-robin between worker
 * stages, each output partition read by exactly one consumer task) and
 * group the stages they join. */
static floe_status plan_pipelines(coord *c, bool streaming) {
    int32_t ns = c->stages->n, last = ns - 1;
    for (int32_t s = 0; s < ns; s++) c->consumer[s] = -1;
    for (int32_t s = 0; s < ns; s++) {
        const dist_stage *st = &c->stages->stages[s];
        for (int32_t i = 0; i < st->n_deps; i++) c->consumer[st->deps[i]] = s;
    }
    for (int32_t s = 0; streaming && s < last; s++) {
        const dist_stage *st = &c->stages->stages[s];
        int32_t cons = c->consumer[s];
        if ((st->route.kind != DIST_ROUTE_HASH && st->route.kind != DIST_ROUTE_ROUND_ROBIN) || c->to_root[s] ||
            st->broadcast || cons < 0 || cons == last)
            continue;
        reader_map m = {s, 0, floe_malloc_array((size_t)st->route.n_out, sizeof(int32_t)), st->route.n_out, false};
        if (!m.reader) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scheduling: out of memory");
        for (int32_t j = 0; j < m.n; j++) m.reader[j] = -1;
        const floe_plan *cp = c->stages->stages[cons].plan;
        for (m.k = 0; m.k < cp->n_partitions; m.k++) {
            floe_status st2 = dist_plan_reads(cp, m.k, reader_visit, &m);
            if (st2) {
                floe_free(m.reader);
                return st2;
            }
        }
        for (int32_t j = 0; j < m.n; j++) m.bad = m.bad || m.reader[j] < 0;
        if (m.bad) {
            floe_free(m.reader);
            continue;
        }
        c->reader[s] = m.reader;
        c->streamed[s] = true;
    }
    /* consumers come after their producers: walk down from the root */
    for (int32_t s = last; s >= 0; s--) {
        c->group[s] = c->streamed[s] ? c->group[c->consumer[s]] : s;
        if (c->group[s] != s) c->multi[c->group[s]] = true;
    }
    return NULL;
}

static floe_status coord_setup(coord *c) {
    dist_rt *rt = c->rt;
    int32_t ns = c->stages->n;
    c->remaining = floe_calloc((size_t)ns, sizeof *c->remaining);
    c->to_root = floe_calloc((size_t)ns, sizeof *c->to_root);
    c->holders.n_holders = floe_calloc((size_t)ns, sizeof *c->holders.n_holders);
    c->holders.holders = floe_calloc((size_t)ns, sizeof *c->holders.holders);
    c->streamed = floe_calloc((size_t)ns, sizeof *c->streamed);
    c->consumer = floe_calloc((size_t)ns, sizeof *c->consumer);
    c->group = floe_calloc((size_t)ns, sizeof *c->group);
    c->multi = floe_calloc((size_t)ns, sizeof *c->multi);
    c->group_sent = floe_calloc((size_t)ns, sizeof *c->group_sent);
    c->first_task = floe_calloc((size_t)ns, sizeof *c->first_task);
    c->reader = floe_calloc((size_t)ns, sizeof *c->reader);
    c->blob_target = floe_calloc((size_t)ns, sizeof *c->blob_target);
    c->waited_us = floe_calloc((size_t)ns, sizeof *c->waited_us);
    c->peak = floe_calloc((size_t)rt->size, sizeof *c->peak);
    c->owed = floe_calloc((size_t)rt->size, sizeof *c->owed);
    if (!c->owed || !c->remaining || !c->to_root || !c->holders.n_holders || !c->holders.holders || !c->streamed ||
        !c->consumer || !c->group || !c->multi || !c->group_sent || !c->first_task || !c->reader ||
        !c->blob_target || !c->waited_us || !c->peak)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scheduling: out of memory");
    c->holders.streamed = c->streamed;
    c->bound = exchange_bound();
    if (c->analyze) {
        c->n_nodes = floe_calloc((size_t)ns, sizeof *c->n_nodes);
        c->nstats = floe_calloc((size_t)ns, sizeof *c->nstats);
        if (!c->n_nodes || !c->nstats) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scheduling: out of memory");
        for (int32_t s = 0; s < ns; s++) {
            c->n_nodes[s] = dist_plan_count_nodes(c->stages->stages[s].plan);
            c->nstats[s] = floe_calloc((size_t)c->n_nodes[s] * (size_t)rt->size * NODE_STATS, sizeof(int64_t));
            if (!c->nstats[s]) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scheduling: out of memory");
        }
    }
    /* what the root stage reads comes to rank 0; the rest stays on the
     * workers until the stage reading it fetches it (FLOE_DIST_VIA_ROOT=1:
     * everything through rank 0, the simpler path) */
    const char *via = getenv("FLOE_DIST_VIA_ROOT");
    bool all_to_root = via && strcmp(via, "1") == 0;
    const dist_stage *root = &c->stages->stages[ns - 1];
    for (int32_t i = 0; i < root->n_deps; i++) c->to_root[root->deps[i]] = true;
    for (int32_t s = 0; all_to_root && s < ns; s++) c->to_root[s] = true;
    for (int32_t s = 0; s + 1 < ns; s++) {
        c->first_task[s] = c->n_tasks;
        c->remaining[s] = c->stages->stages[s].plan->n_partitions;
        c->n_tasks += c->remaining[s];
    }
    const char *stream_env = getenv("FLOE_DIST_STREAM");
    bool streaming = !all_to_root && !(stream_env && strcmp(stream_env, "0") == 0);
    FLOE_TRY(plan_pipelines(c, streaming));
    c->tasks = floe_calloc((size_t)(c->n_tasks ? c->n_tasks : 1), sizeof *c->tasks);
    if (!c->tasks) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scheduling: out of memory");
    int64_t t = 0;
    for (int32_t s = 0; s + 1 < ns; s++)
        for (int32_t p = 0; p < c->stages->stages[s].plan->n_partitions; p++) {
            c->tasks[t].stage = s;
            c->tasks[t++].partition = p;
        }
    return dist_store_new(c->stages, &c->store);
}

static bool group_ready(const coord *c, int32_t head) {
    for (int32_t s = 0; s < c->stages->n; s++) {
        if (c->group[s] != head) continue;
        const dist_stage *st = &c->stages->stages[s];
        for (int32_t i = 0; i < st->n_deps; i++)
            if (!c->streamed[st->deps[i]] && c->remaining[st->deps[i]] > 0) return false;
    }
    return true;
}

/* Dispatch every task of a pipelined group at once: place them (the
 * least busy rank first), size the blobs so the worst-placed rank stays
 * within the exchange bound, then send. */
static floe_status dispatch_group(coord *c, int32_t head) {
    dist_rt *rt = c->rt;
    int32_t ns = c->stages->n;
    for (int32_t s = 0; s < ns; s++) {
        if (c->group[s] != head) continue;
        for (int32_t p = 0; p < c->stages->stages[s].plan->n_partitions; p++) {
            int r = best_rank_any(rt);
            c->tasks[c->first_task[s] + p].rank = r;
            rt->free_slots[r]--;
        }
    }
    double *coef = floe_calloc((size_t)rt->size, sizeof *coef);
    if (!coef) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scheduling: out of memory");
    for (int32_t s = 0; s < ns; s++) {
        if (c->group[s] != head || !c->streamed[s]) continue;
        int32_t np = c->stages->stages[s].plan->n_partitions, n_out = c->stages->stages[s].route.n_out;
        int32_t *ranks = floe_calloc((size_t)np, sizeof *ranks);
        if (!ranks) {
            floe_free(coef);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "scheduling: out of memory");
        }
        for (int32_t p = 0; p < np; p++) {
            ranks[p] = c->tasks[c->first_task[s] + p].rank;
            /* a producer: a blob being filled and `window` outstanding per destination */
            coef[ranks[p]] += (double)n_out * (CREDIT_WINDOW + 1.25);
        }
        for (int32_t j = 0; j < n_out; j++)
            coef[c->tasks[c->first_task[c->consumer[s]] + c->reader[s][j]].rank] += (double)np * CREDIT_WINDOW;
        floe_free(c->holders.holders[s]);
        c->holders.holders[s] = ranks;
        c->holders.n_holders[s] = np;
    }
    double worst = 1;
    for (int r = 0; r < rt->size; r++)
        if (coef[r] > worst) worst = coef[r];
    floe_free(coef);
    int64_t blob = (int64_t)((double)c->bound / worst);
    if (blob > MAX_BLOB) blob = MAX_BLOB;
    if (blob < MIN_BLOB) {
        FLOE_LOG_WARN("dist", "exchange buffer bound %lld bytes is too small for %.0f channels per rank: "
                      "blobs of %lld bytes", (long long)c->bound, worst, (long long)MIN_BLOB);
        blob = MIN_BLOB;
    }
    for (int32_t s = 0; s < ns; s++)
        if (c->group[s] == head) c->blob_target[s] = blob;
    FLOE_LOG_DEBUG("dist", "query %lld: pipelined group of stage %d, blobs of %lld bytes (bound %lld)",
                   (long long)c->query, head, (long long)blob, (long long)c->bound);
    for (int32_t s = 0; s < ns; s++) {
        if (c->group[s] != head) continue;
        for (int32_t p = 0; p < c->stages->stages[s].plan->n_partitions; p++) {
            int64_t t = c->first_task[s] + p;
            FLOE_TRY(dispatch(c, t, c->tasks[t].rank, true));
        }
    }
    c->group_sent[head] = true;
    return NULL;
}

/* ---- ranks that stop answering ------------------------------------------ */

void dist_coord_owe(coord *c, int r, int delta) {
    dist_rt *rt = c->rt;
    if (!c->owed || r <= 0 || r >= rt->size) return; /* rank 0's own tasks: its threads */
    if (c->owed[r] == 0 && delta > 0) {
        /* it had nothing to answer: its silence counts from now */
        int64_t now = dist_now_us();
        if (rt->heard_us[r] < now) rt->heard_us[r] = now;
    }
    c->owed[r] += delta;
    if (c->owed[r] < 0) c->owed[r] = 0;
}

/* Rank r has been silent for `silent_us` while owing answers (or stopped
 * in the middle of a message to rank 0): it is lost.  Its running tasks
 * count as answered (nothing will come from them; the drain does not wait
 * for them), the runtime remembers the loss (floe_dist_finalize ends the
 * job with MPI_Abort: an MPI world with a dead or stopped rank cannot
 * finalise), and the error names rank, host and a task it was running. */
static floe_status lose_rank(coord *c, int r, int64_t silent_us, bool mid_message) {
    dist_rt *rt = c->rt;
    if (rt->lost < 0) rt->lost = r;
    bool again = rt->gone[r];
    rt->gone[r] = true;
    dist_net_abandon_recv(rt, r);
    int64_t first = -1;
    for (int64_t t = 0; t < c->n_tasks; t++) {
        if (c->tasks[t].state != DIST_T_RUNNING || c->tasks[t].rank != r) continue;
        if (first < 0) first = t;
        c->tasks[t].state = DIST_T_DONE;
    }
    c->owed[r] = 0;
    char what[160];
    if (first >= 0)
        snprintf(what, sizeof what, "while running task %lld (stage %d, partition %d)", (long long)first,
                 c->tasks[first].stage, c->tasks[first].partition);
    else snprintf(what, sizeof what, "while checking the files query %lld reads", (long long)c->query);
    if (!again)
        FLOE_LOG_ERROR("dist", "rank %d (host '%s') lost after %.1f s of silence", r, rt->hosts[r], silent_us / 1e6);
    return floe_error(FLOE_ERR_IO,
                      "rank %d (host '%s') did not answer within %.0f s %s%s: the rank has stopped, hung or died; "
                      "the query is abandoned, nothing is committed, and the MPI job ends (FLOE_DIST_RANK_TIMEOUT "
                      "sets the wait)",
                      r, rt->hosts[r], rt->timeout_us / 1e6, what,
                      mid_message ? " (it stopped in the middle of a message)" : "");
}

/* The first rank that owes rank 0 an answer and has said nothing — no
 * message, no HEARTBEAT — for the rank timeout.  While a message is
 * arriving nothing else can be received, so only its sender is judged
 * then. */
static floe_status check_ranks(dist_rt *rt, coord *c) {
    int64_t now = dist_now_us();
    int src;
    int64_t since;
    if (dist_net_receiving(rt, &src, &since)) {
        if (src > 0 && src < rt->size && now - since > rt->timeout_us) return lose_rank(c, src, now - since, true);
        return NULL;
    }
    for (int r = 1; r < rt->size; r++)
        if (c->owed[r] > 0 && now - rt->heard_us[r] > rt->timeout_us)
            return lose_rank(c, r, now - rt->heard_us[r], false);
    return NULL;
}

/* ---- running it --------------------------------------------------------- */

/* One round of rank 0's loop: its own tasks (reaped, their messages
 * sent or delivered to itself), sends, then what arrived — worker
 * messages to the worker side, the rest to the coordinator (c may be NULL:
 * bookkeeping only). */
floe_status dist_coord_poll(dist_rt *rt, coord *c, bool *busy, int *byes, bool keep_going) {
    dist_worker_reap(rt);
    *busy |= dist_net_drain(rt);
    *busy |= dist_net_progress(rt);
    bool drained = false;
    for (int k = 0; k < 64; k++) {
        bool got;
        int src, tag;
        uint8_t *buf = NULL;
        size_t len = 0;
        FLOE_TRY(dist_net_recv_next(rt, &got, &src, &tag, &buf, &len));
        drained = !got;
        if (!got) break;
        *busy = true;
        if (src > 0 && src < rt->size && rt->gone[src]) {
            floe_free(buf); /* a lost rank's: the query it belonged to is over */
            continue;
        }
        if (dist_worker_handle(rt, src, tag, buf, len)) continue;
        floe_status st = coord_handle(rt, c, src, tag, buf, len, byes);
        if (st && !keep_going) return st;
        floe_status_free(st);
    }
    /* judged only with nothing more arrived: after a while away (a long
     * dispatch) the heartbeats waiting in the queue count first */
    if (c && c->owed && drained) {
        floe_status st = check_ranks(rt, c);
        if (st && !keep_going) return st;
        floe_status_free(st);
    }
    return NULL;
}

/* Run every stage but the root to completion. */
static floe_status coord_run(coord *c) {
    dist_rt *rt = c->rt;
    int32_t last = c->stages->n - 1;
    int idle = 0;
    for (;;) {
        bool busy = false, all_done = true;
        for (int32_t s = 0; s < last; s++) all_done = all_done && c->remaining[s] == 0;
        if (all_done) return NULL;
        FLOE_TRY(floe_cancel_check(c->ctx->cancel, "distributed query"));
        for (int32_t h = 0; h < last; h++) {
            if (!c->multi[h] || c->group_sent[h] || !group_ready(c, h)) continue;
            FLOE_TRY(dispatch_group(c, h));
            busy = true;
        }
        for (int64_t t = 0; t < c->n_tasks; t++) {
            if (c->tasks[t].state != DIST_T_WAITING || c->multi[c->group[c->tasks[t].stage]] ||
                !stage_ready(c, c->tasks[t].stage))
                continue;
            int r = best_rank(rt);
            if (r < 0) break;
            FLOE_TRY(dispatch(c, t, r, false));
            busy = true;
        }
        FLOE_TRY(dist_coord_poll(rt, c, &busy, NULL, false));
        if (busy) idle = 0;
        else dist_nap(&idle);
    }
}

/* After a failure (CANCEL sent): wait, a bounded time, for the query's
 * running tasks to answer, keeping the data they send meanwhile — a write
 * task that finished reports its files, so nothing is left unknown. */
static void coord_drain(coord *c) {
    dist_rt *rt = c->rt;
    if (!c->tasks) return;
    int idle = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        bool running = false;
        for (int64_t t = 0; t < c->n_tasks && !running; t++) running = c->tasks[t].state == DIST_T_RUNNING;
        clock_gettime(CLOCK_MONOTONIC, &now);
        /* after a lost rank, only briefly: the job ends within the rank
         * timeout and a bit (a task answering later leaves its files to
         * remove_orphan_files) */
        if (!running || now.tv_sec - t0.tv_sec > (c->rt->lost >= 0 ? 3 : 60)) return;
        bool busy = false;
        floe_status st = dist_coord_poll(rt, c, &busy, NULL, true); /* ERROR answers count as done */
        if (st) {
            floe_status_free(st); /* MPI itself failed */
            return;
        }
        if (!busy) dist_nap(&idle);
    }
}

/* A failed write: the last stage holds the IcebergCommit, which on an
 * input error deletes every file it was told about.  Run it over what
 * arrived, ending in the error, so no written file is left behind. */
static void coord_abort_root(coord *c, floe_status err) {
    if (!c->stages || !c->store) return;
    const dist_stage *root = &c->stages->stages[c->stages->n - 1];
    if (!floe_plan_tree_has_flag(root->plan, FLOE_NODE_COMMITS)) return;
    floe_status st = NULL;
    for (int32_t i = 0; i < root->n_deps && !st; i++) {
        const dist_stage *dep = &c->stages->stages[root->deps[i]];
        for (int32_t b = 0; b < dep->route.n_out && !st; b++)
            st = dist_part_data_fail(c->store[dep->id][b], floe_status_message(err));
    }
    floe_exec_ctx ctx = *c->ctx;
    floe_execution *exec = NULL;
    if (!st) st = floe_execution_begin(&ctx, &exec);
    if (!st) st = dist_bind_from_store(&ctx, root->plan, 0, c->store);
    floe_stream *stream = NULL;
    if (!st) st = floe_plan_execute(root->plan, 0, &ctx, &stream);
    while (!st) {
        floe_batch *b = NULL;
        st = floe_stream_next(stream, &b);
        if (st || !b) break;
        floe_batch_release(b);
    }
    floe_stream_close(stream);
    floe_execution_end(exec);
    floe_status_free(st);
}

/* Run every stage of `plan` but the last on the workers.  *local: the
 * plan is not distributable (then nothing ran and c is empty).  On success
 * c holds the stages, the store and the tasks' statistics. */
floe_status dist_coord_start(dist_rt *rt, const floe_plan *plan, const floe_exec_ctx *ctx, coord *c, bool *local,
                             bool analyze) {
    memset(c, 0, sizeof *c);
    c->rt = rt;
    *local = false;
    c->ctx = ctx;
    c->analyze = analyze;
    floe_status st = dist_split_stages(plan, &c->stages);
    if (st && floe_status_code(st) == FLOE_ERR_UNSUPPORTED) {
        /* Not distributable yet: run on rank 0 exactly as the local runtime. */
        FLOE_LOG_DEBUG("dist", "running locally: %s", floe_status_message(st));
        floe_status_free(st);
        *local = true;
        return NULL;
    }
    FLOE_TRY(st);
    if (rt->lost >= 0) {
        dist_stages_free(c->stages);
        c->stages = NULL;
        return floe_error(FLOE_ERR_IO,
                          "rank %d (host '%s') was lost by an earlier query: this MPI job cannot run distributed "
                          "queries any more (start it again)",
                          rt->lost, rt->hosts[rt->lost]);
    }
    c->query = ++rt->next_query;
    st = coord_setup(c);
    if (!st) st = dist_paths_check(c, plan);
    if (!st) st = coord_run(c);
    /* The query is over on the workers: CANCEL stops what still runs (after
     * an error) and drops the exchange data they hold.  Late messages of
     * the query are dropped by id. */
    int64_t q = c->query;
    for (int r = 1; r < rt->size; r++) {
        uint8_t *buf = NULL;
        size_t len = 0;
        floe_status s2 = dist_msg_cancel_encode(q, &buf, &len);
        s2 = dist_net_send_encoded(rt, s2, r, DIST_MSG_CANCEL, buf, len);
        floe_status_free(s2);
    }
    dist_worker_end_query(rt, q); /* rank 0's own part */
    if (st) {
        coord_drain(c);
        coord_abort_root(c, st);
        coord_free(c);
    }
    return st;
}

/* The executor's open(): every stage but the last on the ranks, then a
 * stream over the last, which runs here (or the whole plan here, as
 * locally, when it does not split into stages). */
floe_status dist_coord_open(void *arg, const floe_plan *plan, const floe_exec_ctx *ctx, floe_stream **out) {
    dist_rt *rt = arg;
    *out = NULL;
    coord c;
    bool local;
    FLOE_TRY(dist_coord_start(rt, plan, ctx, &c, &local, false));
    if (local) return floe_plan_execute(plan, 0, ctx, out);
    dist_coord_free_sched(&c);
    return dist_root_stream(c.stages, c.store, ctx, false, out);
}

/* EXPLAIN under mpirun: the stages the plan runs as, or why it stays on
 * rank 0. */
floe_status dist_coord_explain(void *arg, const floe_plan *plan, floe_buf *out) {
    dist_rt *rt = arg;
    FLOE_TRY(floe_buf_printf(out, "Distributed over %d ranks (%d threads):\n", rt->size, (int)rt->total));
    floe_buf stages = FLOE_BUF_INIT;
    floe_status st = floe_dist_explain_stages(plan, &stages);
    if (st && floe_status_code(st) == FLOE_ERR_UNSUPPORTED) {
        floe_buf_free(&stages);
        st = floe_buf_printf(out, "runs on rank 0 only: %s\n", floe_status_message(st));
        floe_status_free(st);
        return NULL;
    }
    if (!st) st = floe_buf_append(out, stages.data, stages.len);
    floe_buf_free(&stages);
    return st;
}

#endif
