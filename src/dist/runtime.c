/*
 * runtime.c — the MPI runtime (include/floe/dist.h): launch detection,
 * the coordinator's scheduler (rank 0) and the task runner every rank has
 * (the worker loop of ranks > 0; rank 0 runs tasks too).
 *
 * Threading model: MPI_THREAD_FUNNELED.  Only the main thread calls MPI.
 * On rank 0 that is the session thread: the executor's open() runs the
 * scheduler loop on it until every stage but the last has finished (the
 * loop also serves rank 0's own tasks: their messages, fetches and
 * streams), then returns a stream over the last stage, which runs on
 * rank 0 itself.  On a worker the main thread is the message loop.  Each
 * task runs on a thread of its own (a rank takes as many tasks at once as
 * its pool has threads, more when a pipelined group needs them all) and
 * hands its messages to the loop through a queue bounded by OUT_LIMIT
 * bytes (a task blocks while its rank has that much not yet sent —
 * back-pressure instead of unbounded memory).  A message a rank addresses
 * to itself never goes through MPI.  Every send is non-blocking
 * (MPI_Isend, buffers freed on completion) and every loop keeps receiving
 * while it sends, so two ranks sending large messages to each other never
 * deadlock.
 *
 * Messages (dist/messages.h lists every kind, its fields and their
 * encoding): every TASK is answered by exactly one DONE or ERROR (also
 * when it is cancelled or cannot be decoded), which is how rank 0 counts
 * free threads.  Messages of an earlier query (one that failed) are
 * dropped by query id.
 *
 * Scheduling: a hash or round-robin exchange between two stages that run
 * on the ranks streams (exchange.c): producer and consumer stages form a
 * pipelined group whose tasks are all placed and dispatched at once, the
 * producers sending each blob to the rank of the consumer task of its
 * partition when that consumer has credit for it.  The blob size is
 * chosen per group so that the channels of the most loaded rank fit the
 * exchange bound.  Other exchanges are barriers: a stage runs when the
 * stages it reads that way have finished.  Their output stays on the
 * ranks that ran its tasks (emit_local) unless the last stage reads it; a
 * consumer task names those ranks and its rank fetches its partitions
 * from each of them before running it, so data moves rank to rank and
 * rank 0 coordinates only the final gather.  A task goes to the rank with
 * the most free threads, so a slow or busy rank gets fewer.  The first
 * error cancels the query on every rank and is returned naming the rank,
 * task, stage and partition.
 *
 * What is not here yet (docs/ARCHITECTURE.md): barrier exchange data (a
 * gather, a broadcast build side) and what the last stage reads stay
 * whole in memory (no spilling).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/threadpool.h"
#include "dist/dist_internal.h"
#include "dist/messages.h"
#include "exec/plan_internal.h"
#include "floe/exec_metrics.h"
#include "floe/exec_ops.h"
#include "floe/exec_scan.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "floe/session.h"

bool floe_dist_launched(void) {
    const char *force = getenv("FLOE_MPI");
    if (force && *force) return strcmp(force, "0") != 0;
#ifdef FLOE_HAVE_MPI
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1) return true;
    }
#endif
    return false;
}

#ifndef FLOE_HAVE_MPI

floe_status floe_dist_init(int *argc, char ***argv, int *rank) {
    (void)argc;
    (void)argv;
    *rank = 0;
    return floe_error(FLOE_ERR_UNSUPPORTED, "this floe was built without MPI");
}
int floe_dist_worker_main(void) { return 1; }
void floe_dist_finalize(void) {}
int32_t floe_dist_total_threads(void) { return 0; }

#else

#include <mpi.h>
#include <pthread.h>

#define OUT_LIMIT ((int64_t)64 << 20)

/* ------------------------------------------------------ the runtime object */

struct pending_send;
struct self_msg;
struct out_msg;
struct held;
struct wtask;
struct fetch_rec;
struct inbox_rec;

/* Everything the runtime of this process keeps, made by floe_dist_init and
 * passed to every function that needs it.  Touched only by the main
 * thread (the one that called MPI_Init_thread), except where noted. */
typedef struct dist_rt {
    int rank, size;
    int32_t *threads;    /* rank 0: each rank's thread count */
    int32_t *free_slots; /* rank 0: threads not running a task */
    int32_t total;       /* rank 0: threads of all ranks (rank 0 runs tasks too) */
    int64_t next_query;
    char (*hosts)[MPI_MAX_PROCESSOR_NAME]; /* rank 0: each rank's host */
    floe_plan_executor executor;           /* rank 0: its arg is this object */
    struct {
        struct pending_send *sends;             /* MPI_Isend not yet complete */
        _Atomic int64_t bytes;                  /* any thread: bytes queued by tasks or being sent */
        struct self_msg *self_head, *self_tail; /* rank 0's tasks' messages to its coordinator */
        pthread_mutex_t mu;                     /* the queue of messages task threads hand the loop: */
        pthread_cond_t cv;                      /* space in it */
        struct out_msg *head, *tail;            /* under mu */
    } net;
    struct {
        pthread_mutex_t mu;
        struct held *held;          /* under mu: exchange data this rank holds for others to fetch */
        struct inbox_rec *inboxes;  /* streamed partitions this rank consumes */
    } store;
    struct {
        struct wtask *tasks;        /* running or fetching their inputs */
        struct fetch_rec *fetches;  /* asked of other ranks, not yet ended */
        int64_t next_fetch;
        int64_t cancelled_upto;     /* queries <= this are over */
        int64_t last_query;         /* the newest query a task arrived for (resets the gauge's peak) */
    } worker;
} dist_rt;

static void nap(int *idle) {
    /* back off from 20 µs to 1 ms while nothing happens */
    int us = *idle < 6 ? 20 << *idle : 1000;
    if (*idle < 6) (*idle)++;
    struct timespec ts = {0, us * 1000L};
    nanosleep(&ts, NULL);
}

/* --------------------------------------------------------------- sends */

typedef struct pending_send {
    MPI_Request req;
    uint8_t *buf;
    size_t len;
    int64_t xbytes; /* streamed exchange bytes it carries (the gauge drops them once sent) */
    struct pending_send *next;
} pending_send;


static floe_status mpi_error(int rc, const char *what) {
    char text[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, text, &n);
    return floe_error(FLOE_ERR_IO, "MPI %s failed: %.*s", what, n, text);
}

/* Send `buf` (taken over) to `dest` without blocking; `counted`: its
 * bytes are in rt->net.bytes already (queued by a task); `xbytes`: the
 * streamed exchange bytes in it, dropped from the gauge once sent. */
static floe_status send_async_x(dist_rt *rt, int dest, int tag, uint8_t *buf, size_t len, bool counted,
                                int64_t xbytes) {
    if (counted && len > (size_t)INT32_MAX) atomic_fetch_sub(&rt->net.bytes, (int64_t)len);
    if (len > (size_t)INT32_MAX) {
        dist_xbytes_add(-xbytes);
        floe_free(buf);
        return floe_error(FLOE_ERR_UNSUPPORTED, "a %zu-byte message to rank %d is larger than MPI's 2 GiB limit",
                          len, dest);
    }
    pending_send *p = floe_calloc(1, sizeof *p);
    if (!p) {
        if (counted) atomic_fetch_sub(&rt->net.bytes, (int64_t)len);
        dist_xbytes_add(-xbytes);
        floe_free(buf);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "sending to rank %d", dest);
    }
    p->buf = buf;
    p->len = len;
    p->xbytes = xbytes;
    int rc = MPI_Isend(buf ? buf : (uint8_t *)"", (int)len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &p->req);
    if (rc != MPI_SUCCESS) {
        if (counted) atomic_fetch_sub(&rt->net.bytes, (int64_t)len);
        dist_xbytes_add(-xbytes);
        floe_free(buf);
        floe_free(p);
        return mpi_error(rc, "Isend");
    }
    if (!counted) atomic_fetch_add(&rt->net.bytes, (int64_t)len);
    p->next = rt->net.sends;
    rt->net.sends = p;
    return NULL;
}

static floe_status send_async(dist_rt *rt, int dest, int tag, uint8_t *buf, size_t len, bool counted) {
    return send_async_x(rt, dest, tag, buf, len, counted, 0);
}

/* Send a message just encoded (st: the encoder's status). */
static floe_status send_encoded(dist_rt *rt, floe_status st, int dest, int tag, uint8_t *buf, size_t len) {
    if (st) return floe_status_wrap(st, "sending to rank %d", dest);
    return send_async(rt, dest, tag, buf, len, false);
}

/* STOP, BYE: no fields. */
static floe_status send_empty(dist_rt *rt, int dest, int tag) {
    uint8_t *buf = NULL;
    size_t len = 0;
    floe_status st = dist_msg_empty_encode(tag, &buf, &len);
    return send_encoded(rt, st, dest, tag, buf, len);
}

/* Free the buffers of completed sends; true if any completed. */
static bool progress_sends(dist_rt *rt) {
    bool any = false;
    for (pending_send **pp = &rt->net.sends; *pp;) {
        pending_send *p = *pp;
        int done = 0;
        MPI_Test(&p->req, &done, MPI_STATUS_IGNORE);
        if (!done) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        atomic_fetch_sub(&rt->net.bytes, (int64_t)p->len);
        dist_xbytes_add(-p->xbytes);
        floe_free(p->buf);
        floe_free(p);
        any = true;
    }
    return any;
}

/* Receive one message if there is one: *buf (floe_malloc'd) or got=false. */
static floe_status recv_any(bool *got, int *src, int *tag, uint8_t **buf, size_t *len) {
    *got = false;
    int flag = 0;
    MPI_Status status;
    int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (rc != MPI_SUCCESS) return mpi_error(rc, "Iprobe");
    if (!flag) return NULL;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    *buf = floe_malloc(count > 0 ? (size_t)count : 1);
    if (!*buf) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "receiving %d bytes from rank %d", count, status.MPI_SOURCE);
    rc = MPI_Recv(*buf, count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        floe_free(*buf);
        *buf = NULL;
        return mpi_error(rc, "Recv");
    }
    *got = true;
    *src = status.MPI_SOURCE;
    *tag = status.MPI_TAG;
    *len = (size_t)count;
    return NULL;
}

/* Messages rank 0's own tasks address to the coordinator (rank 0 runs
 * tasks too): queued here by drain_queue, read before MPI's (main thread
 * only). */
typedef struct self_msg {
    int tag;
    uint8_t *buf;
    size_t len;
    struct self_msg *next;
} self_msg;


static void self_push(dist_rt *rt, int tag, uint8_t *buf, size_t len) {
    self_msg *m = floe_calloc(1, sizeof *m);
    if (!m) {
        /* without memory the coordinator misses this message: say so */
        FLOE_LOG_ERROR("dist", "rank 0: out of memory queueing a message for itself");
        floe_free(buf);
        return;
    }
    m->tag = tag;
    m->buf = buf;
    m->len = len;
    if (rt->net.self_tail) rt->net.self_tail->next = m;
    else rt->net.self_head = m;
    rt->net.self_tail = m;
}

/* The next message for this rank: its own first, then MPI's. */
static floe_status recv_next(dist_rt *rt, bool *got, int *src, int *tag, uint8_t **buf, size_t *len) {
    if (rt->net.self_head) {
        self_msg *m = rt->net.self_head;
        rt->net.self_head = m->next;
        if (!rt->net.self_head) rt->net.self_tail = NULL;
        *got = true;
        *src = rt->rank;
        *tag = m->tag;
        *buf = m->buf;
        *len = m->len;
        floe_free(m);
        return NULL;
    }
    return recv_any(got, src, tag, buf, len);
}

/* The worker side, which rank 0 runs too (defined below). */
static void reap_tasks(dist_rt *rt);
static bool drain_queue(dist_rt *rt);
static void start_task(dist_rt *rt, const uint8_t *buf, size_t len);
static bool worker_handle(dist_rt *rt, int src, int tag, uint8_t *buf, size_t len);
static void end_query(dist_rt *rt, int64_t q);
static bool worker_idle(dist_rt *rt);

/* ============================================================ coordinator */

typedef enum { T_WAITING = 0, T_RUNNING, T_DONE } task_state;

typedef struct coord_task {
    int32_t stage, partition;
    task_state state;
    int rank;
    dist_task_stats stats;
} coord_task;

typedef struct coord {
    dist_rt *rt;
    int64_t query;
    dist_stages *stages;
    dist_part_data ***store;
    coord_task *tasks;
    int64_t n_tasks;
    int32_t *remaining; /* per stage: tasks not done */
    bool *to_root;      /* per stage: its exchange is read by the root stage (data to rank 0) */
    dist_holders holders; /* per stage kept on workers: the ranks that ran its tasks;
                             per streamed stage: the rank of each of its tasks */
    const floe_exec_ctx *ctx;
    floe_status err;
    /* pipelining: a streamed stage sends its output to the consumer's tasks
     * as it runs, so it runs together with them — a group of stages joined
     * by streamed exchanges is dispatched at once, headed by its top stage */
    bool *streamed;       /* per stage */
    int32_t *consumer;    /* per stage: the stage reading its exchange (-1: none) */
    int32_t *group;       /* per stage: the head of its group */
    bool *multi;          /* per group head: more than one stage */
    bool *group_sent;     /* per group head: dispatched */
    int64_t *first_task;  /* per stage: index of its partition 0 in tasks */
    int32_t **reader;     /* per streamed stage: consumer partition reading each output partition */
    int64_t *blob_target; /* per stage */
    int64_t bound;        /* exchange buffer bytes per rank */
    int64_t *peak;        /* per rank: peak streamed exchange bytes */
    int64_t *waited_us;   /* per stage: time its tasks waited for credits */
    /* EXPLAIN ANALYZE: per stage, node (preorder) and rank, NODE_STATS
     * numbers: tasks, then the DIST_NODE_FIELDS of dist_node_stats_put */
    bool analyze;
    int32_t *n_nodes;
    int64_t **nstats;
    int32_t checks_pending;  /* CHECK messages not yet answered */
    floe_status check_err;   /* the first mismatch */
} coord;

#define NODE_STATS (1 + DIST_NODE_FIELDS)

/* Blobs a streamed channel may have outstanding (sent, not yet decoded). */
#define CREDIT_WINDOW 2
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
        start_task(rt, buf, len);
        floe_free(buf);
    } else {
        FLOE_TRY(send_async(rt, rank, DIST_MSG_TASK, buf, len, false));
    }
    task->state = T_RUNNING;
    task->rank = rank;
    if (!placed) rt->free_slots[rank]--;
    FLOE_LOG_DEBUG("dist", "query %lld task %lld (stage %d, partition %d) to rank %d, %zu bytes",
                   (long long)c->query, (long long)t, task->stage, task->partition, rank, len);
    return NULL;
}

/* A file rank 0 planned from but another host cannot see is most likely
 * a node-local path: say so. */
static const char *host_hint(dist_rt *rt, int src, const char *text, size_t n, char *buf, size_t cap) {
    buf[0] = 0;
    if (!rt->hosts || src <= 0 || src >= rt->size || strcmp(rt->hosts[src], rt->hosts[0]) == 0) return buf;
    if (!memmem(text, n, "No such file", 12) && !memmem(text, n, "not found", 9)) return buf;
    snprintf(buf, cap,
             " (rank %d runs on host '%s', rank 0 on '%s': under mpirun every rank must see the same files — "
             "use shared storage or S3, not a node-local path)",
             src, rt->hosts[src], rt->hosts[0]);
    return buf;
}

/* The error a worker's ERROR stands for, naming rank, task, stage and
 * partition (the task is one of query c's). */
static floe_status task_error(const coord *c, int src, const dist_msg_error *m) {
    dist_rt *rt = c->rt;
    char hint[2 * MPI_MAX_PROCESSOR_NAME + 200];
    host_hint(rt, src, m->text, m->text_len, hint, sizeof hint);
    const coord_task *task = &c->tasks[m->task];
    return floe_error(FLOE_ERR_IO, "rank %d, task %lld (stage %d, partition %d): %.*s%s", src, (long long)m->task,
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

/* The per node metrics following a DONE (EXPLAIN ANALYZE): summed per
 * stage, node and rank.  A count that does not match the stage is ignored. */
static void add_node_stats(coord *c, int src, int32_t s, const uint8_t *p, size_t n) {
    dist_rt *rt = c->rt;
    if (!c->analyze || !p || src < 0 || src >= rt->size) return;
    dist_msg_node_stats ns;
    floe_status st = dist_msg_node_stats_decode(p, n, &ns);
    if (st || ns.count != c->n_nodes[s]) {
        floe_status_free(st);
        return;
    }
    for (int64_t i = 0; i < ns.count; i++) {
        int64_t *acc = c->nstats[s] + ((size_t)i * (size_t)rt->size + (size_t)src) * NODE_STATS;
        acc[0]++;
        acc[1] += dist_msg_node_stat(&ns, i, 0); /* rows */
        acc[2] += dist_msg_node_stat(&ns, i, 1); /* batches */
        acc[3] += dist_msg_node_stat(&ns, i, 2); /* ns */
        int64_t peak = dist_msg_node_stat(&ns, i, 3);
        if (peak > acc[4]) acc[4] = peak;        /* peak: the largest task's */
        acc[5] += dist_msg_node_stat(&ns, i, 4); /* exchange bytes read */
    }
}

/* A DONE or ERROR answered task t of query c: its thread is free again. */
static coord_task *answered(dist_rt *rt, coord *c, int src, int64_t q, int64_t t) {
    if (src >= 0 && src < rt->size) rt->free_slots[src]++;
    if (!c || q != c->query || t < 0 || t >= c->n_tasks || c->tasks[t].state != T_RUNNING) return NULL;
    c->tasks[t].state = T_DONE; /* answered, if not successfully */
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
    add_node_stats(c, src, task->stage, m->node_stats, m->node_stats_len);
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

static void coord_free_sched(coord *c) {
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
    if (c->stages) coord_free_sched(c);
    dist_store_free(c->stages, c->store);
    dist_stages_free(c->stages);
}

static floe_status plan_pipelines(coord *c, bool streaming);

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
    if (!c->remaining || !c->to_root || !c->holders.n_holders || !c->holders.holders || !c->streamed ||
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

/* Which consumer partition reads each partition of exchange `target`. */
typedef struct reader_map {
    int32_t target, k;
    int32_t *reader;
    int32_t n;
    bool bad;
} reader_map;

static floe_status reader_visit(void *arg, floe_plan *source, int32_t part) {
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

/* One round of rank 0's loop: its own tasks (reaped, their messages
 * sent or delivered to itself), sends, then what arrived — worker
 * messages to the worker side, the rest to the coordinator (c may be NULL:
 * bookkeeping only). */
static floe_status coord_poll(dist_rt *rt, coord *c, bool *busy, int *byes, bool keep_going) {
    reap_tasks(rt);
    *busy |= drain_queue(rt);
    *busy |= progress_sends(rt);
    for (int k = 0; k < 64; k++) {
        bool got;
        int src, tag;
        uint8_t *buf = NULL;
        size_t len = 0;
        FLOE_TRY(recv_next(rt, &got, &src, &tag, &buf, &len));
        if (!got) break;
        *busy = true;
        if (worker_handle(rt, src, tag, buf, len)) continue;
        floe_status st = coord_handle(rt, c, src, tag, buf, len, byes);
        if (st && !keep_going) return st;
        floe_status_free(st);
    }
    return NULL;
}

/* ---- node-local paths, detected up front ----------------------------------

 * The local files a plan reads (an Iceberg scan's metadata file, a
 * Parquet scan's files; at most MAX_PROBES): every rank on another host
 * than rank 0 must see each of them with the same size and modification
 * time before any task runs, or the statement fails naming the rank, its
 * host and the path.  FLOE_DIST_CHECK_PATHS=1 checks every rank (also on
 * rank 0's host), =0 none. */
#define MAX_PROBES 32

static const char *local_fs_path(const char *p) {
    if (!p || !*p) return NULL;
    if (strncmp(p, "file://", 7) == 0) return p + 7;
    return strstr(p, "://") ? NULL : p;
}

typedef struct probes {
    int32_t n;
    dist_msg_check_file files[MAX_PROBES]; /* paths borrowed from the plan */
} probes;

static floe_status add_probe(probes *pr, const char *path) {
    const char *fs = local_fs_path(path);
    if (!fs || pr->n >= MAX_PROBES) return NULL;
    for (int32_t i = 0; i < pr->n; i++)
        if (strcmp(pr->files[i].path, fs) == 0) return NULL;
    struct stat sb;
    if (stat(fs, &sb) != 0) return NULL; /* rank 0 cannot see it either: the query fails as it would locally */
    pr->files[pr->n++] = (dist_msg_check_file){(int64_t)sb.st_size, (int64_t)sb.st_mtime, (char *)fs};
    return NULL;
}

static floe_status collect_probes(const floe_plan *p, probes *pr) {
    const char *type = floe_plan_type_name(p);
    if (strcmp(type, "IcebergScan") == 0) FLOE_TRY(add_probe(pr, floe_iceberg_scan_metadata_location(p)));
    if (strcmp(type, "ParquetScan") == 0)
        for (int32_t k = 0; k < p->n_partitions && pr->n < MAX_PROBES; k++)
            for (int32_t i = 0; i < floe_parquet_scan_num_partitions_parts(p, k) && pr->n < MAX_PROBES; i++)
                FLOE_TRY(add_probe(pr, floe_parquet_scan_part(p, k, i)->path));
    for (int32_t c = 0; c < p->n_children; c++) FLOE_TRY(collect_probes(p->children[c], pr));
    return NULL;
}

static floe_status check_paths(coord *c, const floe_plan *plan) {
    dist_rt *rt = c->rt;
    const char *env = getenv("FLOE_DIST_CHECK_PATHS");
    bool all = env && strcmp(env, "1") == 0;
    if (env && strcmp(env, "0") == 0) return NULL;
    bool any = false;
    for (int r = 1; r < rt->size && !any; r++) any = all || strcmp(rt->hosts[r], rt->hosts[0]) != 0;
    if (!any) return NULL;
    probes pr;
    memset(&pr, 0, sizeof pr);
    floe_status st = collect_probes(plan, &pr);
    uint8_t *msg = NULL;
    size_t len = 0;
    dist_msg_check m = {c->query, pr.n, pr.files};
    if (!st && pr.n > 0) st = dist_msg_check_encode(&m, &msg, &len);
    for (int r = 1; r < rt->size && !st && pr.n > 0; r++) {
        if (!all && strcmp(rt->hosts[r], rt->hosts[0]) == 0) continue;
        uint8_t *copy = floe_malloc(len);
        if (!copy) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "checking paths");
            break;
        }
        memcpy(copy, msg, len);
        st = send_async(rt, r, DIST_MSG_CHECK, copy, len, false);
        if (!st) c->checks_pending++;
    }
    floe_free(msg);
    int idle = 0;
    while (!st && c->checks_pending > 0) {
        st = floe_cancel_check(c->ctx->cancel, "distributed query");
        bool busy = false;
        if (!st) st = coord_poll(rt, c, &busy, NULL, false);
        if (!busy) nap(&idle);
    }
    if (!st && c->check_err) {
        st = c->check_err;
        c->check_err = NULL;
    }
    return st;
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
            if (c->tasks[t].state != T_WAITING || c->multi[c->group[c->tasks[t].stage]] ||
                !stage_ready(c, c->tasks[t].stage))
                continue;
            int r = best_rank(rt);
            if (r < 0) break;
            FLOE_TRY(dispatch(c, t, r, false));
            busy = true;
        }
        FLOE_TRY(coord_poll(rt, c, &busy, NULL, false));
        if (busy) idle = 0;
        else nap(&idle);
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
        for (int64_t t = 0; t < c->n_tasks && !running; t++) running = c->tasks[t].state == T_RUNNING;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!running || now.tv_sec - t0.tv_sec > 60) return;
        bool busy = false;
        floe_status st = coord_poll(rt, c, &busy, NULL, true); /* ERROR answers count as done */
        if (st) {
            floe_status_free(st); /* MPI itself failed */
            return;
        }
        if (!busy) nap(&idle);
    }
}

/* A failed write: the last stage holds the IcebergCommit, which on an
 * input error deletes every file it was told about.  Run it over what
 * arrived, ending in the error, so no written file is left behind. */
static void coord_abort_root(coord *c, floe_status err) {
    if (!c->stages || !c->store) return;
    const dist_stage *root = &c->stages->stages[c->stages->n - 1];
    if (!dist_plan_contains(root->plan, "IcebergCommit")) return;
    floe_status st = NULL;
    for (int32_t i = 0; i < root->n_deps && !st; i++) {
        const dist_stage *dep = &c->stages->stages[root->deps[i]];
        for (int32_t b = 0; b < dep->route.n_out && !st; b++)
            st = dist_part_data_fail(c->store[dep->id][b], floe_status_message(err));
    }
    if (!st) st = dist_bind_from_store(root->plan, 0, c->store);
    floe_stream *stream = NULL;
    if (!st) st = floe_plan_execute(root->plan, 0, c->ctx, &stream);
    while (!st) {
        floe_batch *b = NULL;
        st = floe_stream_next(stream, &b);
        if (st || !b) break;
        floe_batch_release(b);
    }
    floe_stream_close(stream);
    floe_status_free(st);
}

/* Run every stage of `plan` but the last on the workers.  *local: the
 * plan is not distributable (then nothing ran and c is empty).  On success
 * c holds the stages, the store and the tasks' statistics. */
static floe_status coord_start(dist_rt *rt, const floe_plan *plan, const floe_exec_ctx *ctx, coord *c, bool *local,
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
    c->query = ++rt->next_query;
    st = coord_setup(c);
    if (!st) st = check_paths(c, plan);
    if (!st) st = coord_run(c);
    /* The query is over on the workers: CANCEL stops what still runs (after
     * an error) and drops the exchange data they hold.  Late messages of
     * the query are dropped by id. */
    int64_t q = c->query;
    for (int r = 1; r < rt->size; r++) {
        uint8_t *buf = NULL;
        size_t len = 0;
        floe_status s2 = dist_msg_cancel_encode(q, &buf, &len);
        s2 = send_encoded(rt, s2, r, DIST_MSG_CANCEL, buf, len);
        floe_status_free(s2);
    }
    end_query(rt, q); /* rank 0's own part */
    if (st) {
        coord_drain(c);
        coord_abort_root(c, st);
        coord_free(c);
    }
    return st;
}

static floe_status coord_open(void *arg, const floe_plan *plan, const floe_exec_ctx *ctx, floe_stream **out) {
    dist_rt *rt = arg;
    *out = NULL;
    coord c;
    bool local;
    FLOE_TRY(coord_start(rt, plan, ctx, &c, &local, false));
    if (local) return floe_plan_execute(plan, 0, ctx, out);
    coord_free_sched(&c);
    return dist_root_stream(c.stages, c.store, ctx, out);
}

static floe_status put_size(floe_buf *out, const char *name, int64_t b) {
    if (b < 1024) return floe_buf_printf(out, " %s=%lldB", name, (long long)b);
    if (b < 1024 * 1024) return floe_buf_printf(out, " %s=%.1fKiB", name, (double)b / 1024);
    return floe_buf_printf(out, " %s=%.1fMiB", name, (double)b / (1024 * 1024));
}

/* A stage's plan, each node followed by one line per rank that ran it:
 * tasks, rows, batches, time inside the node (children included), the
 * largest task's peak memory and, for an exchange source, the exchange
 * bytes it read.  nstats: n_nodes x rt->size x NODE_STATS. */
static floe_status put_nodes(dist_rt *rt, const floe_plan *plan, const int64_t *nstats, floe_buf *out) {
    int32_t n = dist_plan_count_nodes(plan);
    for (int32_t i = 0; i < n; i++) {
        int32_t depth = 0;
        const floe_plan *node = dist_plan_node_at(plan, i, &depth);
        for (int32_t d = 0; d <= depth; d++) FLOE_TRY(floe_buf_append_str(out, "  "));
        FLOE_TRY(floe_exec_explain_line(node, out));
        for (int r = 0; r < rt->size; r++) {
            const int64_t *a = nstats + ((size_t)i * (size_t)rt->size + (size_t)r) * NODE_STATS;
            if (a[0] == 0) continue;
            for (int32_t d = 0; d <= depth + 1; d++) FLOE_TRY(floe_buf_append_str(out, "  "));
            FLOE_TRY(floe_buf_printf(out, "rank %d: tasks=%lld rows=%lld batches=%lld time=%.2fms", r,
                                     (long long)a[0], (long long)a[1], (long long)a[2], (double)a[3] / 1e6));
            FLOE_TRY(put_size(out, "peak_mem", a[4]));
            if (dist_is_exchange_source(node)) FLOE_TRY(put_size(out, "exchange_in", a[5]));
            FLOE_TRY(floe_buf_append_byte(out, '\n'));
        }
    }
    return NULL;
}

/* Per node statistics of a plan rank 0 ran itself (the root stage). */
static floe_status root_node_stats(dist_rt *rt, const floe_plan *root, const floe_exec_metrics *m, int64_t **out) {
    *out = NULL;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = dist_node_stats_put(root, m, &b);
    dist_msg_node_stats ns;
    if (!st) st = dist_msg_node_stats_decode(b.data, b.len, &ns);
    int32_t n = dist_plan_count_nodes(root);
    if (!st && ns.count != n)
        st = floe_error(FLOE_ERR_INTERNAL, "EXPLAIN ANALYZE: %lld node statistics for %d nodes", (long long)ns.count,
                        n);
    int64_t *a = st ? NULL : floe_calloc((size_t)n * (size_t)rt->size * NODE_STATS, sizeof *a);
    if (!st && !a) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "EXPLAIN ANALYZE: out of memory");
    for (int32_t i = 0; !st && i < n; i++) {
        int64_t *acc = a + (size_t)i * (size_t)rt->size * NODE_STATS; /* rank 0 */
        acc[0] = 1;
        for (int k = 0; k < DIST_NODE_FIELDS; k++) acc[1 + k] = dist_msg_node_stat(&ns, i, k);
    }
    floe_buf_free(&b);
    if (st) floe_free(a);
    else *out = a;
    return st;
}

static int64_t mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* EXPLAIN ANALYZE under mpirun: run the query (result dropped), then per
 * stage the tasks, rows and bytes each rank sent on and its task time,
 * and per node of the stage's plan what each rank did (rows, batches,
 * time, peak memory, exchange bytes read). */
static floe_status coord_analyze(void *arg, const floe_plan *plan, const floe_exec_ctx *ctx, floe_buf *out) {
    dist_rt *rt = arg;
    coord c;
    bool local;
    int64_t t0 = mono_us();
    FLOE_TRY(coord_start(rt, plan, ctx, &c, &local, true));
    if (local) return floe_buf_printf(out, "Distributed: no (the plan runs on rank 0 only)\n");
    /* statistics first: the root stream takes the stages over */
    floe_status st = floe_buf_printf(out, "Distributed over %d ranks (%d threads):\n", rt->size, (int)rt->total);
    int32_t last = c.stages->n - 1;
    for (int32_t s = 0; s < last && !st; s++) {
        const dist_stage *stage = &c.stages->stages[s];
        st = floe_buf_printf(out, "Stage %d: %d task%s, %s into %d partition%s%s\n", s, stage->plan->n_partitions,
                             stage->plan->n_partitions == 1 ? "" : "s", dist_route_name(stage->route.kind),
                             stage->route.n_out, stage->route.n_out == 1 ? "" : "s",
                             c.to_root[s] ? " (to rank 0)" : c.streamed[s] ? " (streamed)" : " (held on workers)");
        if (!st && c.streamed[s])
            st = floe_buf_printf(out, "  blobs of %lld bytes, %d credits per channel, waited for credits %.3f ms\n",
                                 (long long)c.blob_target[s], CREDIT_WINDOW, (double)c.waited_us[s] / 1000.0);
        for (int r = 0; r < rt->size && !st; r++) {
            int64_t n = 0, rows = 0, bytes = 0, us = 0;
            for (int64_t t = 0; t < c.n_tasks; t++) {
                if (c.tasks[t].stage != s || c.tasks[t].rank != r) continue;
                n++;
                rows += c.tasks[t].stats.rows_out;
                bytes += c.tasks[t].stats.bytes_out;
                us += c.tasks[t].stats.elapsed_us;
            }
            if (n > 0)
                st = floe_buf_printf(out, "  rank %d: tasks=%lld, rows=%lld, bytes=%lld, task_time=%.3f ms\n", r,
                                     (long long)n, (long long)rows, (long long)bytes, (double)us / 1000.0);
        }
        if (!st) st = put_nodes(rt, stage->plan, c.nstats[s], out);
    }
    bool any_streamed = false;
    for (int32_t s = 0; s < last; s++) any_streamed = any_streamed || c.streamed[s];
    if (!st && any_streamed) {
        st = floe_buf_printf(out, "Exchange buffers: bound %lld bytes per rank; peak", (long long)c.bound);
        for (int r = 0; r < rt->size && !st; r++) st = floe_buf_printf(out, " rank %d=%lld", r, (long long)c.peak[r]);
        if (!st) st = floe_buf_append_byte(out, '\n');
    }
    coord_free_sched(&c);
    /* the root stage, on rank 0, with the local runtime's metrics */
    floe_plan *root = floe_plan_retain(c.stages->stages[last].plan);
    floe_exec_metrics *m = NULL;
    floe_status st2 = floe_exec_metrics_new(&m);
    floe_exec_ctx rctx = *ctx;
    rctx.metrics = m;
    floe_stream *stream = NULL;
    if (!st2) st2 = dist_root_stream(c.stages, c.store, &rctx, &stream);
    else {
        dist_store_free(c.stages, c.store);
        dist_stages_free(c.stages);
    }
    int64_t rows = 0;
    while (!st2) {
        floe_batch *b = NULL;
        st2 = floe_stream_next(stream, &b);
        if (st2 || !b) break;
        rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_stream_close(stream);
    int64_t *rstats = NULL;
    if (!st2) st2 = root_node_stats(rt, root, m, &rstats);
    if (!st && !st2)
        st = floe_buf_printf(out, "Stage %d (result, rank 0): rows=%lld; total %.3f ms\n", last, (long long)rows,
                             (double)(mono_us() - t0) / 1000.0);
    if (!st && !st2) st = put_nodes(rt, root, rstats, out);
    floe_free(rstats);
    floe_plan_release(root);
    floe_exec_metrics_free(m);
    if (st) {
        floe_status_free(st2);
        return st;
    }
    return st2;
}

/* EXPLAIN under mpirun: the stages the plan runs as, or why it stays on
 * rank 0. */
static floe_status coord_explain(void *arg, const floe_plan *plan, floe_buf *out) {
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

/* ================================================================ worker */

typedef struct out_msg {
    int tag, dest;
    uint8_t *buf;
    size_t len;
    int64_t xbytes; /* streamed exchange bytes in it (see send_async_x) */
    struct out_msg *next;
} out_msg;

typedef struct wtask {
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
    struct wtask *next;
} wtask;

/* Exchange data this worker holds for other tasks to fetch. */
typedef struct held {
    int64_t query;
    int32_t exchange, part;
    dist_part_data *data;
    struct held *next;
} held;

/* The inbox of a streamed partition this rank consumes: created by the
 * consumer task or by the first blob to arrive, whichever comes first. */
typedef struct inbox_rec {
    dist_inbox *in;
    struct inbox_rec *next;
} inbox_rec;

/* A fetch this worker asked another rank for. */
typedef struct fetch_rec {
    int64_t id;
    wtask *task;
    int32_t input;
    struct fetch_rec *next;
} fetch_rec;


/* The inbox of (q, x, part), created when missing (main thread). */
static dist_inbox *inbox_find(dist_rt *rt, int64_t q, int32_t x, int32_t part) {
    for (inbox_rec *r = rt->store.inboxes; r; r = r->next)
        if (dist_inbox_query(r->in) == q && dist_inbox_exchange(r->in) == x && dist_inbox_part(r->in) == part)
            return r->in;
    inbox_rec *r = floe_calloc(1, sizeof *r);
    if (!r) return NULL;
    floe_status st = dist_inbox_new(q, x, part, &r->in);
    if (st) {
        floe_status_free(st);
        floe_free(r);
        return NULL;
    }
    r->next = rt->store.inboxes;
    rt->store.inboxes = r;
    return r->in;
}

/* Fail (waking their consumers) and drop the inboxes of queries <= q. */
static void inboxes_drop(dist_rt *rt, int64_t q) {
    for (inbox_rec **pp = &rt->store.inboxes; *pp;) {
        inbox_rec *r = *pp;
        if (dist_inbox_query(r->in) > q) {
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        dist_inbox_fail(r->in, "the query was cancelled");
        dist_inbox_release(r->in);
        floe_free(r);
    }
}

/* The held data of (query, exchange, part); created when `create`.  Call
 * with rt->store.mu held. */
static dist_part_data *held_find(dist_rt *rt, int64_t q, int32_t x, int32_t part, bool create) {
    for (held *h = rt->store.held; h; h = h->next)
        if (h->query == q && h->exchange == x && h->part == part) return h->data;
    if (!create) return NULL;
    held *h = floe_calloc(1, sizeof *h);
    if (!h) return NULL;
    if (dist_part_data_new(&h->data)) {
        floe_free(h);
        return NULL;
    }
    h->query = q;
    h->exchange = x;
    h->part = part;
    h->next = rt->store.held;
    rt->store.held = h;
    return h->data;
}

/* Drop the data of every query <= q. */
static void held_drop(dist_rt *rt, int64_t q) {
    pthread_mutex_lock(&rt->store.mu);
    for (held **pp = &rt->store.held; *pp;) {
        held *h = *pp;
        if (h->query > q) {
            pp = &h->next;
            continue;
        }
        *pp = h->next;
        dist_part_data_release(h->data);
        floe_free(h);
    }
    pthread_mutex_unlock(&rt->store.mu);
}

/* Task output kept here (keep_output): no message at all. */
static floe_status emit_local(void *arg, int32_t bucket, uint8_t *blob, size_t len) {
    wtask *t = arg;
    dist_rt *rt = t->rt;
    pthread_mutex_lock(&rt->store.mu);
    dist_part_data *d = held_find(rt, t->m.query_id, t->m.stage_id, bucket, true);
    floe_status st = d ? dist_part_data_add(d, blob, len) : NULL;
    pthread_mutex_unlock(&rt->store.mu);
    if (!d) {
        floe_free(blob);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "keeping task output");
    }
    return st;
}

/* Queue a message for the main thread to send to `dest` (this rank: it
 * delivers it itself).  From a task thread (`wait`): waits while the rank
 * has OUT_LIMIT bytes unsent, unless the task is cancelled.  `xbytes`:
 * streamed exchange bytes in it (the gauge keeps them until sent). */
static floe_status enqueue_to(dist_rt *rt, int dest, int tag, uint8_t *buf, size_t len, const floe_cancel *cancel,
                              bool wait, int64_t xbytes) {
    out_msg *m = floe_calloc(1, sizeof *m);
    if (!m) {
        dist_xbytes_add(-xbytes);
        floe_free(buf);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "queueing a message");
    }
    m->tag = tag;
    m->dest = dest;
    m->buf = buf;
    m->len = len;
    m->xbytes = xbytes;
    pthread_mutex_lock(&rt->net.mu);
    while (wait && atomic_load(&rt->net.bytes) > OUT_LIMIT && !(cancel && floe_cancel_is_set(cancel))) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 2000000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&rt->net.cv, &rt->net.mu, &ts);
    }
    atomic_fetch_add(&rt->net.bytes, (int64_t)len);
    if (rt->net.tail) rt->net.tail->next = m;
    else rt->net.head = m;
    rt->net.tail = m;
    pthread_mutex_unlock(&rt->net.mu);
    return NULL;
}

/* From a task thread: a message for rank 0. */
static floe_status enqueue(dist_rt *rt, int tag, uint8_t *buf, size_t len, const floe_cancel *cancel) {
    return enqueue_to(rt, 0, tag, buf, len, cancel, true, 0);
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
    return enqueue_to(rt, t->m.dests[bucket], DIST_MSG_STREAM, buf, n, &t->cancel, true, (int64_t)len);
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
    if (!st) st = enqueue_to(rt, rank, DIST_MSG_CREDIT, buf, len, NULL, false, 0);
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
        const char *msg = floe_status_message(st);
        dist_msg_error m = {t->m.query_id, t->m.task_id, msg, strlen(msg)};
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
        if (!s2 && metrics) s2 = dist_node_stats_put(t->m.plan, metrics, &done);
        size_t len = 0;
        uint8_t *buf = s2 ? NULL : floe_buf_detach(&done, &len);
        floe_buf_free(&done);
        if (buf) s2 = enqueue(rt, DIST_MSG_DONE, buf, len, NULL);
    }
    floe_exec_metrics_free(metrics);
    floe_status_free(s2);
    atomic_store(&t->finished, true);
    return NULL;
}

/* STREAM: a blob (or the end) of a partition this rank consumes (the
 * buffer is taken over).  `local`: from a task of this rank, its bytes
 * already in the gauge. */
static void got_stream(dist_rt *rt, uint8_t *buf, size_t len, bool local) {
    dist_msg_stream m;
    floe_status st = dist_msg_stream_decode(buf, len, &m);
    size_t n = len >= DIST_MSG_STREAM_HEAD ? len - DIST_MSG_STREAM_HEAD : 0;
    if (!local) dist_xbytes_add((int64_t)n);
    dist_inbox *in = !st && m.query > rt->worker.cancelled_upto ? inbox_find(rt, m.query, m.exchange, m.part) : NULL;
    floe_status_free(st);
    if (!in || m.end) {
        if (in) dist_inbox_end(in, m.producer);
        /* a query that is over, or no memory for an inbox (then the
         * consumer waits until the query is cancelled) */
        dist_xbytes_add(-(int64_t)n);
        floe_free(buf);
        return;
    }
    dist_inbox_push(in, m.producer, dist_msg_blob_in_place(buf, m.blob, m.blob_len), m.blob_len);
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

/* Send the queued messages (main thread); this rank's own are handled
 * here. */
static bool drain_queue(dist_rt *rt) {
    pthread_mutex_lock(&rt->net.mu);
    out_msg *m = rt->net.head;
    rt->net.head = rt->net.tail = NULL;
    pthread_mutex_unlock(&rt->net.mu);
    bool any = m != NULL;
    while (m) {
        out_msg *next = m->next;
        if (m->dest == rt->rank) {
            atomic_fetch_sub(&rt->net.bytes, (int64_t)m->len);
            if (m->tag == DIST_MSG_STREAM) {
                got_stream(rt, m->buf, m->len, true);
            } else if (m->tag == DIST_MSG_CREDIT) {
                got_credit(rt, m->buf, m->len);
                floe_free(m->buf);
            } else {
                self_push(rt, m->tag, m->buf, m->len); /* rank 0's tasks to its coordinator */
            }
            floe_free(m);
            m = next;
            continue;
        }
        floe_status st = send_async_x(rt, m->dest, m->tag, m->buf, m->len, true, m->xbytes);
        if (st) {
            /* nothing better to do than log it: rank 0 will miss a DONE */
            FLOE_LOG_ERROR("dist", "rank %d: %s", rt->rank, floe_status_message(st));
            floe_status_free(st);
        }
        floe_free(m);
        m = next;
    }
    return any;
}

static void wtask_free(wtask *t) {
    for (int32_t i = 0; t->fetched && i < t->m.n_remote; i++) dist_part_data_release(t->fetched[i]);
    for (int32_t i = 0; t->inboxes && i < t->m.n_remote; i++) dist_inbox_release(t->inboxes[i]);
    floe_free(t->fetched);
    floe_free(t->inboxes);
    dist_outlet_free(t->outlet);
    dist_task_msg_clear(&t->m);
    floe_free(t);
}

static void reap_tasks(dist_rt *rt) {
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
    pthread_mutex_lock(&rt->net.mu);
    pthread_cond_broadcast(&rt->net.cv);
    pthread_mutex_unlock(&rt->net.mu);
}

static void answer_error(dist_rt *rt, int64_t q, int64_t task, const char *text) {
    dist_msg_error m = {q, task, text, text ? strlen(text) : 0};
    uint8_t *buf = NULL;
    size_t len = 0;
    floe_status st = dist_msg_error_encode(&m, &buf, &len);
    /* without memory rank 0 waits for this task until the query is cancelled */
    if (!st) st = enqueue_to(rt, 0, DIST_MSG_ERROR, buf, len, NULL, false, 0);
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
static void fail_unstarted(wtask *t, const char *text) {
    dist_rt *rt = t->rt;
    answer_error(rt, t->m.query_id, t->m.task_id, text);
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

/* Every input is here: bind them and start the task's thread. */
static void launch(wtask *t) {
    dist_rt *rt = t->rt;
    for (int32_t i = 0; i < t->m.n_remote; i++) {
        if (t->inboxes[i]) dist_exchange_source_bind_inbox(t->m.remote[i].source, t->m.remote[i].part, t->inboxes[i]);
        else dist_exchange_source_bind(t->m.remote[i].source, t->m.remote[i].part, t->fetched[i]);
    }
    if (t->m.query_id <= rt->worker.cancelled_upto) floe_cancel_set(&t->cancel);
    if (pthread_create(&t->thread, NULL, task_thread, t) != 0) {
        fail_unstarted(t, "could not start a task thread");
        return;
    }
    t->started = true;
}

/* Copy what this rank holds of (q, x, part) into d. */
static floe_status copy_held(dist_rt *rt, int64_t q, int32_t x, int32_t part, dist_part_data *d) {
    floe_status st = NULL;
    pthread_mutex_lock(&rt->store.mu);
    const dist_part_data *h = held_find(rt, q, x, part, false);
    for (int64_t i = 0; h && i < h->n && !st; i++) {
        uint8_t *c = floe_malloc(h->lens[i] ? h->lens[i] : 1);
        if (!c) {
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "copying exchange data");
            break;
        }
        memcpy(c, h->blobs[i], h->lens[i]);
        st = dist_part_data_add(d, c, h->lens[i]);
    }
    pthread_mutex_unlock(&rt->store.mu);
    return st;
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
            dist_inbox *box = inbox_find(rt, t->m.query_id, in->exchange, in->part);
            if (!box) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting a task");
            t->inboxes[i] = dist_inbox_retain(box);
            FLOE_TRY(dist_inbox_attach(box, in->n_holders, in->holders, credit_back, rt));
            continue;
        }
        FLOE_TRY(dist_part_data_new(&t->fetched[i]));
        for (int32_t k = 0; k < in->n_holders; k++) {
            int h = in->holders[k];
            if (h == rt->rank) {
                FLOE_TRY(copy_held(rt, t->m.query_id, in->exchange, in->part, t->fetched[i]));
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
            FLOE_TRY(send_encoded(rt, st, h, DIST_MSG_FETCH, buf, len));
            t->pending++;
        }
    }
    return NULL;
}

static void start_task(dist_rt *rt, const uint8_t *buf, size_t len) {
    wtask *t = floe_calloc(1, sizeof *t);
    floe_status st = t ? dist_task_decode(buf, len, &t->m) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting a task");
    if (st) {
        /* answer with an error so rank 0 frees the slot */
        int64_t q, task;
        dist_msg_task_ids(buf, len, &q, &task);
        answer_error(rt, q, task, floe_status_message(st));
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
            fail_unstarted(t, floe_status_message(st));
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
        fail_unstarted(t, floe_status_message(st));
        floe_status_free(st);
        return;
    }
    if (t->pending == 0) launch(t);
}

/* Another rank asks for what this one holds of (query, exchange, part):
 * DATA messages, then FETCH_END. */
static void serve_fetch(dist_rt *rt, int src, const uint8_t *buf, size_t len) {
    dist_msg_fetch f;
    floe_status st = dist_msg_fetch_decode(buf, len, &f);
    if (st) {
        floe_status_free(st);
        return;
    }
    pthread_mutex_lock(&rt->store.mu);
    const dist_part_data *h = held_find(rt, f.query, f.exchange, f.part, false);
    for (int64_t i = 0; h && i < h->n && !st; i++) {
        dist_msg_data m = {f.query, f.id, h->blobs[i], h->lens[i]};
        uint8_t *out = NULL;
        size_t n = 0;
        st = dist_msg_data_encode(&m, &out, &n);
        if (!st) st = send_async(rt, src, DIST_MSG_DATA, out, n, false);
    }
    FLOE_LOG_DEBUG("dist", "rank %d: exchange %d partition %d of query %lld to rank %d (%lld blobs)", rt->rank,
                   f.exchange, f.part, (long long)f.query, src, (long long)(h ? h->n : 0));
    pthread_mutex_unlock(&rt->store.mu);
    /* an error ends the fetch early; the consumer then sees the failed
     * flag in FETCH_END */
    dist_msg_fetch_end e = {f.query, f.id, st != NULL};
    floe_status_free(st);
    uint8_t *out = NULL;
    size_t n = 0;
    st = dist_msg_fetch_end_encode(&e, &out, &n);
    st = send_encoded(rt, st, src, DIST_MSG_FETCH_END, out, n);
    floe_status_free(st);
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
        fail_unstarted(t, text);
        return;
    }
    launch(t);
}

/* CANCEL(q): query q (and older) is over here: cancel its running tasks,
 * fail those still fetching, drop the data held for it. */
static void end_query(dist_rt *rt, int64_t q) {
    if (q > rt->worker.cancelled_upto) rt->worker.cancelled_upto = q;
    for (wtask *t = rt->worker.tasks, *next; t; t = next) {
        next = t->next;
        if (t->m.query_id > q) continue;
        if (t->started) floe_cancel_set(&t->cancel);
        else fail_unstarted(t, "cancelled");
    }
    held_drop(rt, q);
    inboxes_drop(rt, q);
}

static void check_files(dist_rt *rt, const uint8_t *buf, size_t len);

/* A message for the worker side (any rank): handled, buffer taken over,
 * true; false for a tag it does not know (the buffer stays the caller's). */
static bool worker_handle(dist_rt *rt, int src, int tag, uint8_t *buf, size_t len) {
    switch (tag) {
    case DIST_MSG_FETCH: serve_fetch(rt, src, buf, len); break;
    case DIST_MSG_DATA: got_data(rt, buf, len); return true;
    case DIST_MSG_FETCH_END: got_fetch_end(rt, src, buf, len); break;
    case DIST_MSG_STREAM: got_stream(rt, buf, len, false); return true;
    case DIST_MSG_CREDIT: got_credit(rt, buf, len); break;
    case DIST_MSG_CHECK: check_files(rt, buf, len); break;
    case DIST_MSG_CANCEL: {
        int64_t q;
        floe_status st = dist_msg_cancel_decode(buf, len, &q);
        if (!st) end_query(rt, q);
        floe_status_free(st);
        break;
    }
    default: return false;
    }
    floe_free(buf);
    return true;
}

/* CHECK: compare the local files rank 0 planned from with what this rank
 * sees; answer CHECKED. */
static void check_files(dist_rt *rt, const uint8_t *buf, size_t len) {
    dist_msg_check m;
    floe_status st = dist_msg_check_decode(buf, len, &m);
    int64_t q = m.query;
    floe_buf why = FLOE_BUF_INIT;
    for (int32_t i = 0; !st && i < m.n && why.len == 0; i++) {
        const dist_msg_check_file *f = &m.files[i];
        struct stat sb;
        if (stat(f->path, &sb) != 0)
            st = floe_buf_printf(&why, "'%s' cannot be opened here (%s)", f->path, strerror(errno));
        else if ((int64_t)sb.st_size != f->size || (int64_t)sb.st_mtime != f->mtime)
            st = floe_buf_printf(&why,
                                 "'%s' is another file here (%lld bytes, modified at %lld; rank 0 sees %lld bytes, "
                                 "modified at %lld)",
                                 f->path, (long long)sb.st_size, (long long)sb.st_mtime, (long long)f->size,
                                 (long long)f->mtime);
    }
    dist_msg_check_clear(&m);
    if (q < 0) {
        /* not even a query id: nothing to answer */
        floe_status_free(st);
        floe_buf_free(&why);
        return;
    }
    if (st) {
        /* a message rank 0 made cannot be read: say so rather than pass */
        why.len = 0;
        floe_status s2 = floe_buf_printf(&why, "the path check failed: %s", floe_status_message(st));
        floe_status_free(s2);
        floe_status_free(st);
    }
    dist_msg_checked a = {q, why.len == 0, (const char *)why.data, why.len};
    uint8_t *out = NULL;
    size_t n = 0;
    st = dist_msg_checked_encode(&a, &out, &n);
    if (!st) st = enqueue_to(rt, 0, DIST_MSG_CHECKED, out, n, NULL, false, 0);
    floe_status_free(st);
    floe_buf_free(&why);
}

static bool worker_idle(dist_rt *rt) {
    return !rt->worker.tasks && !rt->net.head;
}

/* The loop of a rank > 0: tasks until rank 0's STOP; the exit code. */
static int worker_main(dist_rt *rt) {
    bool stopping = false;
    int idle = 0;
    for (;;) {
        bool busy = false;
        reap_tasks(rt);
        busy |= drain_queue(rt);
        busy |= progress_sends(rt);
        if (stopping && !rt->worker.tasks && !rt->net.head && !rt->net.sends) break;
        bool got;
        int src, tag;
        uint8_t *buf = NULL;
        size_t len = 0;
        floe_status st = recv_any(&got, &src, &tag, &buf, &len);
        if (st) {
            FLOE_LOG_ERROR("dist", "rank %d: %s", rt->rank, floe_status_message(st));
            floe_status_free(st);
            return 1;
        }
        if (got) {
            busy = true;
            if (tag == DIST_MSG_TASK && !stopping) {
                start_task(rt, buf, len);
                floe_free(buf);
            } else if (tag == DIST_MSG_STOP) {
                end_query(rt, INT64_MAX);
                stopping = true;
                floe_free(buf);
            } else if (!worker_handle(rt, src, tag, buf, len)) {
                floe_free(buf);
            }
        }
        if (busy) idle = 0;
        else nap(&idle);
    }
    /* Say goodbye and wait until rank 0 has it. */
    floe_status st = send_empty(rt, 0, DIST_MSG_BYE);
    floe_status_free(st);
    int idle2 = 0;
    while (rt->net.sends) {
        if (!progress_sends(rt)) nap(&idle2);
    }
    return 0;
}

/* ================================================================= launch */

/* The runtime of this process.  MPI makes it one per process
 * (MPI_Init_thread and MPI_Finalize may each be called once, and rank,
 * size and MPI_COMM_WORLD belong to the process), which is why the entry
 * points of dist.h take no handle: they alone find the object here.
 * Everything below them is passed it — the executor's arg, each task,
 * each inbox's credit callback. */
static dist_rt *g_rt;

static void rt_free(dist_rt *rt) {
    if (!rt) return;
    pthread_mutex_destroy(&rt->net.mu);
    pthread_cond_destroy(&rt->net.cv);
    pthread_mutex_destroy(&rt->store.mu);
    floe_free(rt->threads);
    floe_free(rt->free_slots);
    floe_free(rt->hosts);
    floe_free(rt);
}

static dist_rt *rt_new(void) {
    dist_rt *rt = floe_calloc(1, sizeof *rt);
    if (!rt) return NULL;
    pthread_mutex_init(&rt->net.mu, NULL);
    pthread_cond_init(&rt->net.cv, NULL);
    pthread_mutex_init(&rt->store.mu, NULL);
    atomic_init(&rt->net.bytes, 0);
    return rt;
}

/* Ranks, sizes, threads and hosts of the run, gathered on rank 0, and
 * rank 0's executor. */
static floe_status rt_start(dist_rt *rt, int provided, int *rank) {
    if (provided < MPI_THREAD_FUNNELED)
        return floe_error(FLOE_ERR_UNSUPPORTED, "this MPI library does not provide MPI_THREAD_FUNNELED");
    MPI_Comm_rank(MPI_COMM_WORLD, &rt->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &rt->size);
    *rank = rt->rank;
    /* A launcher of another MPI library (mpiexec.mpich starting an Open MPI
     * build, or the reverse) starts N processes that each see a world of
     * one: every one would run the whole statement — an INSERT would commit
     * N times.  The launcher's own size variables tell. */
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL};
    for (int i = 0; size_vars[i]; i++) {
        const char *v = getenv(size_vars[i]);
        int declared = v ? atoi(v) : 0;
        if (declared > 1 && declared != rt->size) {
            char lib[MPI_MAX_LIBRARY_VERSION_STRING];
            int ll = 0;
            if (MPI_Get_library_version(lib, &ll) != MPI_SUCCESS) strcpy(lib, "unknown");
            char *nl = strchr(lib, '\n');
            if (nl) *nl = '\0';
            return floe_error(FLOE_ERR_UNSUPPORTED,
                              "the launcher started %d processes (%s=%d) but MPI sees %d: floe was built with "
                              "'%s'; start it with that library's mpirun/mpiexec",
                              declared, size_vars[i], declared, rt->size, lib);
        }
    }
    FLOE_TRY(floe_dist_register_nodes());
    int mine = (int)floe_threadpool_default_threads();
    if (mine < 1) mine = 1;
    int *all = rt->rank == 0 ? floe_calloc((size_t)rt->size, sizeof *all) : NULL;
    if (rt->rank == 0 && !all) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting MPI");
    int rc = MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        floe_free(all);
        return mpi_error(rc, "Gather");
    }
    /* each rank's host, to recognise node-local paths in errors */
    char host[MPI_MAX_PROCESSOR_NAME];
    memset(host, 0, sizeof host);
    int hl = 0;
    MPI_Get_processor_name(host, &hl);
    if (rt->rank == 0) rt->hosts = floe_calloc((size_t)rt->size, sizeof *rt->hosts);
    if (rt->rank == 0 && !rt->hosts) MPI_Abort(MPI_COMM_WORLD, 1); /* the others wait in the Gather */
    rc = MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, rt->hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
                    MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        floe_free(all);
        return mpi_error(rc, "Gather");
    }
    if (rt->rank == 0) {
        rt->threads = floe_calloc((size_t)rt->size, sizeof *rt->threads);
        rt->free_slots = floe_calloc((size_t)rt->size, sizeof *rt->free_slots);
        if (!rt->threads || !rt->free_slots) {
            floe_free(all);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting MPI");
        }
        /* rank 0 runs tasks too, beside coordinating (its main thread
         * coordinates; the tasks run on threads of their own) */
        for (int r = 0; r < rt->size; r++) {
            rt->threads[r] = rt->free_slots[r] = all[r];
            rt->total += all[r];
        }
        if (rt->size > 1) {
            rt->executor.arg = rt;
            rt->executor.open = coord_open;
            rt->executor.explain = coord_explain;
            rt->executor.analyze = coord_analyze;
            rt->executor.target_partitions = rt->total;
            floe_session_set_default_executor(&rt->executor);
        }
    }
    floe_free(all);
    FLOE_LOG_DEBUG("dist", "rank %d of %d, %d threads", rt->rank, rt->size, mine);
    return NULL;
}

floe_status floe_dist_init(int *argc, char ***argv, int *rank) {
    *rank = 0;
    if (g_rt) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "floe_dist_init: MPI is initialised already");
    dist_rt *rt = rt_new();
    if (!rt) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "starting MPI");
    int provided = 0;
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
        rt_free(rt);
        return mpi_error(rc, "Init_thread");
    }
    g_rt = rt; /* from here on floe_dist_finalize finalises MPI */
    return rt_start(rt, provided, rank);
}

int floe_dist_worker_main(void) {
    return g_rt ? worker_main(g_rt) : 1;
}

int32_t floe_dist_total_threads(void) {
    return g_rt ? g_rt->total : 0;
}

void floe_dist_finalize(void) {
    dist_rt *rt = g_rt;
    if (!rt) return;
    if (rt->rank == 0 && rt->size > 1) {
        floe_session_set_default_executor(NULL);
        for (int r = 1; r < rt->size; r++) {
            floe_status st = send_empty(rt, r, DIST_MSG_STOP);
            floe_status_free(st);
        }
        end_query(rt, INT64_MAX);
        /* wait for every BYE and for rank 0's own tasks, dropping late
         * messages of failed queries */
        int byes = 0, idle = 0;
        while (byes < rt->size - 1 || rt->net.sends || !worker_idle(rt)) {
            bool busy = false;
            floe_status st = coord_poll(rt, NULL, &busy, &byes, true);
            if (st) {
                floe_status_free(st);
                break;
            }
            if (!busy) nap(&idle);
        }
    }
    MPI_Finalize();
    g_rt = NULL;
    rt_free(rt);
}

#endif
