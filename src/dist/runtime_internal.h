/*
 * runtime_internal.h — what the files of the MPI runtime share: the
 * runtime object and each file's entry points.
 *
 *   launch.c       floe_dist_init / finalize / worker_main (dist.h), launch
 *                  detection; makes and frees the runtime object
 *   transport.c    MPI sends and receives, the pending-send list, messages
 *                  a rank addresses to itself, the queue task threads hand
 *                  the main thread their messages through
 *   messages.c     every message's tag, fields and encoding (messages.h)
 *   coordinator.c  rank 0: the scheduler (placement, dispatch, stage
 *                  readiness, pipelined groups, abort and drain) and the
 *                  executor's open / explain
 *   analyze.c      EXPLAIN ANALYZE across ranks
 *   paths.c        node-local paths: the check before any task runs, and
 *                  the hint on a worker's "not found"
 *   worker.c       every rank's task runner: the message loop of ranks > 0,
 *                  task threads, their inputs and outputs
 *   store.c        the exchange data a rank holds for others (FETCH served
 *                  from it) and the inboxes of streamed partitions
 *
 * Threading (dist.h): only the main thread calls MPI.  Task threads touch
 * the runtime object only through the locked queue (dist_net_enqueue),
 * the store's lock (dist_store_keep) and immutable fields (rank, size).
 */
#ifndef FLOE_DIST_RUNTIME_INTERNAL_H
#define FLOE_DIST_RUNTIME_INTERNAL_H

#ifdef FLOE_HAVE_MPI

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dist/dist_internal.h"
#include "dist/messages.h"
#include "floe/session.h"

/* ---- the runtime object --------------------------------------------------- */

struct dist_pending_send; /* transport.c */
struct dist_self_msg;     /* transport.c */
struct dist_out_msg;      /* transport.c */
struct dist_held;         /* store.c */
struct dist_inbox_rec;    /* store.c */
struct dist_wtask;        /* worker.c */
struct dist_fetch_rec;    /* worker.c */

/* Everything the runtime of this process keeps, made by floe_dist_init and
 * passed to every function that needs it.  Touched only by the main
 * thread (the one that called MPI_Init_thread), except where noted. */
typedef struct dist_rt {
    int rank, size;                        /* immutable after floe_dist_init */
    int32_t *threads;                      /* rank 0: each rank's thread count */
    int32_t *free_slots;                   /* rank 0: threads not running a task */
    int32_t total;                         /* rank 0: threads of all ranks (rank 0 runs tasks too) */
    int64_t next_query;                    /* rank 0 */
    char (*hosts)[MPI_MAX_PROCESSOR_NAME]; /* rank 0: each rank's host */
    floe_plan_executor executor;           /* rank 0: its arg is this object */
    /* failures (coordinator.c): a rank that owes rank 0 an answer and has
     * sent nothing for timeout_us is lost — the job cannot go on */
    int64_t timeout_us;                    /* FLOE_DIST_RANK_TIMEOUT */
    int64_t *heard_us;                     /* rank 0: when each rank's last message began arriving */
    bool *said_bye;                        /* rank 0: each rank's BYE arrived */
    bool *gone;                            /* each rank lost (its messages are dropped) */
    int lost;                              /* rank 0: the first rank lost (-1: none) */
    struct {                               /* transport.c */
        struct dist_pending_send *sends;   /* MPI_Isend not yet complete */
        struct dist_recv_in {              /* the one MPI receive under way (MPI_Irecv) */
            bool active;
            MPI_Request req;
            int src, tag, count;
            uint8_t *buf;
            int64_t since_us;
        } in;
        _Atomic int64_t bytes;             /* any thread: bytes queued by tasks or being sent */
        struct dist_self_msg *self_head, *self_tail; /* rank 0's tasks' messages to its coordinator */
        pthread_mutex_t mu;                /* the queue task threads hand their messages through: */
        pthread_cond_t cv;                 /* room in it */
        struct dist_out_msg *head, *tail;  /* under mu */
    } net;
    struct {                               /* store.c */
        pthread_mutex_t mu;
        struct dist_held *held;            /* under mu: exchange data held for other tasks */
        struct dist_inbox_rec *inboxes;    /* streamed partitions this rank consumes */
    } store;
    struct {                               /* worker.c */
        struct dist_wtask *tasks;          /* running, or fetching their inputs */
        struct dist_fetch_rec *fetches;    /* asked of other ranks, not yet ended */
        int64_t next_fetch;
        int64_t cancelled_upto;            /* queries <= this are over */
        int64_t last_query;                /* the newest query a task arrived for (resets the gauge's peak) */
        int64_t beat_us;                   /* when the last HEARTBEAT went to rank 0 */
    } worker;
} dist_rt;

/* ---- transport.c ---------------------------------------------------------- */

/* Bytes a rank's task threads may have queued or sending before they wait. */
#define DIST_OUT_LIMIT ((int64_t)64 << 20)

/* Back off from 20 µs to 1 ms while a polling loop has nothing to do. */
void dist_nap(int *idle);
/* Monotonic clock, µs. */
int64_t dist_now_us(void);
/* A worker with tasks sends rank 0 a HEARTBEAT this often. */
#define DIST_HEARTBEAT_US ((int64_t)1000000)
/* FLOE_DIST_RANK_TIMEOUT (seconds, default 20, at least 3): how long a
 * rank that owes an answer may stay silent. */
int64_t dist_rank_timeout_us(void);
floe_status dist_mpi_error(int rc, const char *what) FLOE_WARN_UNUSED;
/* Send `buf` (taken over, freed once sent) to `dest` without blocking. */
floe_status dist_net_send(dist_rt *rt, int dest, int tag, uint8_t *buf, size_t len) FLOE_WARN_UNUSED;
/* Send a message just encoded (st: the encoder's status; passed on). */
floe_status dist_net_send_encoded(dist_rt *rt, floe_status st, int dest, int tag, uint8_t *buf,
                                  size_t len) FLOE_WARN_UNUSED;
/* STOP, BYE: no fields. */
floe_status dist_net_send_empty(dist_rt *rt, int dest, int tag) FLOE_WARN_UNUSED;
/* Free the buffers of completed sends; true if any completed. */
bool dist_net_progress(dist_rt *rt);
/* Receive one MPI message if one has arrived whole: *buf (floe_malloc'd)
 * or *got false.  Never blocks: a message still arriving (its sender
 * must make progress for it to end) stays under way across calls, and
 * no other is taken before it (MPI's order between two ranks is kept). */
floe_status dist_net_recv_any(dist_rt *rt, bool *got, int *src, int *tag, uint8_t **buf,
                              size_t *len) FLOE_WARN_UNUSED;
/* The rank a message is arriving from and since when (µs); false if
 * none is. */
bool dist_net_receiving(const dist_rt *rt, int *src, int64_t *since_us);
/* Give up the receive under way from `src` (a rank lost in the middle of
 * a message), so that other ranks' messages can be received again. */
void dist_net_abandon_recv(dist_rt *rt, int src);
/* The next message for this rank: its own first (rank 0's tasks to its
 * coordinator), then MPI's. */
floe_status dist_net_recv_next(dist_rt *rt, bool *got, int *src, int *tag, uint8_t **buf,
                               size_t *len) FLOE_WARN_UNUSED;
/* Queue a message (taken over) for the main thread to send to `dest`.
 * From a task thread (`wait`): waits while the rank has DIST_OUT_LIMIT
 * bytes unsent, unless `cancel` is set.  `xbytes`: streamed exchange
 * bytes in it (the gauge keeps them until sent). */
floe_status dist_net_enqueue(dist_rt *rt, int dest, int tag, uint8_t *buf, size_t len, const struct floe_cancel *cancel,
                             bool wait, int64_t xbytes) FLOE_WARN_UNUSED;
/* Main thread: send what task threads queued; a message for this rank is
 * delivered here (dist_worker_deliver, else to the coordinator).  True if
 * there was any. */
bool dist_net_drain(dist_rt *rt);
/* Wake the task threads waiting for room in the queue. */
void dist_net_wake(dist_rt *rt);
bool dist_net_queue_empty(dist_rt *rt);

/* ---- store.c -------------------------------------------------------------- */

/* Task output kept on this rank (keep_output): blob taken over. */
floe_status dist_store_keep(dist_rt *rt, int64_t query, int32_t exchange, int32_t part, uint8_t *blob,
                            size_t len) FLOE_WARN_UNUSED;
/* Copy what this rank holds of (query, exchange, part) into d. */
floe_status dist_store_copy(dist_rt *rt, int64_t query, int32_t exchange, int32_t part,
                            dist_part_data *d) FLOE_WARN_UNUSED;
/* FETCH from rank src: DATA messages, then FETCH_END. */
void dist_store_serve_fetch(dist_rt *rt, int src, const uint8_t *buf, size_t len);
/* The inbox of streamed partition (query, exchange, part), made when
 * missing (main thread); NULL without memory. */
dist_inbox *dist_store_inbox(dist_rt *rt, int64_t query, int32_t exchange, int32_t part);
/* STREAM (buffer taken over); `local`: from a task of this rank, its
 * bytes already in the gauge. */
void dist_store_got_stream(dist_rt *rt, uint8_t *buf, size_t len, bool local);
/* Query q and older are over: drop their held data, fail their inboxes. */
void dist_store_drop(dist_rt *rt, int64_t q);

/* ---- worker.c ------------------------------------------------------------- */

/* Join the task threads that finished. */
void dist_worker_reap(dist_rt *rt);
/* TASK: decode it, fetch its inputs, start its thread (answering ERROR
 * when it cannot).  The buffer stays the caller's. */
void dist_worker_start_task(dist_rt *rt, const uint8_t *buf, size_t len);
/* A message for the worker side (any rank): handled, buffer taken over,
 * true; false for a tag it does not know (the buffer stays the caller's). */
bool dist_worker_handle(dist_rt *rt, int src, int tag, uint8_t *buf, size_t len);
/* A message a task of this rank addressed to this rank: handled (buffer
 * taken over), true; false when it is for the coordinator. */
bool dist_worker_deliver(dist_rt *rt, int tag, uint8_t *buf, size_t len);
/* CANCEL(q): query q and older are over on this rank. */
void dist_worker_end_query(dist_rt *rt, int64_t q);
/* No task and nothing queued. */
bool dist_worker_idle(dist_rt *rt);
/* The loop of a rank > 0: tasks until rank 0's STOP; the exit code. */
int dist_worker_main(dist_rt *rt);

/* ---- coordinator.c -------------------------------------------------------- */

typedef enum { DIST_T_WAITING = 0, DIST_T_RUNNING, DIST_T_DONE } dist_task_state;

typedef struct coord_task {
    int32_t stage, partition;
    dist_task_state state;
    int rank;
    dist_task_stats stats;
} coord_task;

/* One query run by the coordinator. */
typedef struct coord {
    dist_rt *rt;
    int64_t query;
    dist_stages *stages;
    dist_part_data ***store;
    coord_task *tasks;
    int64_t n_tasks;
    int32_t *remaining;   /* per stage: tasks not done */
    bool *to_root;        /* per stage: its exchange is read by the root stage (data to rank 0) */
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
    int32_t *owed;          /* per rank: answers it owes rank 0 (running tasks, CHECKs) */
    int32_t checks_pending; /* CHECK messages not yet answered */
    floe_status check_err;  /* the first mismatch */
} coord;

#define NODE_STATS (1 + DIST_NODE_FIELDS)

/* Blobs a streamed channel may have outstanding (sent, not yet decoded). */
#define CREDIT_WINDOW 2

/* Run every stage of `plan` but the last on the ranks.  *local: the plan
 * is not distributable (then nothing ran and c is empty).  On success c
 * holds the stages, the store and the tasks' statistics. */
floe_status dist_coord_start(dist_rt *rt, const floe_plan *plan, const floe_exec_ctx *ctx, coord *c, bool *local,
                             bool analyze) FLOE_WARN_UNUSED;
/* Rank r owes c `delta` more answers (negative: it gave them); the
 * silence that fails a rank is counted from when it starts owing one. */
void dist_coord_owe(coord *c, int r, int delta);
/* Free what c keeps for scheduling (not the stages and the store). */
void dist_coord_free_sched(coord *c);
/* One round of rank 0's loop (c may be NULL: bookkeeping only); *byes
 * counts BYE messages (may be NULL); `keep_going`: errors of c are
 * dropped, not returned. */
floe_status dist_coord_poll(dist_rt *rt, coord *c, bool *busy, int *byes, bool keep_going) FLOE_WARN_UNUSED;
/* The executor's callbacks (session.h); arg is the runtime. */
floe_status dist_coord_open(void *arg, const floe_plan *plan, const floe_exec_ctx *ctx,
                            floe_stream **out) FLOE_WARN_UNUSED;
floe_status dist_coord_explain(void *arg, const floe_plan *plan, floe_buf *out) FLOE_WARN_UNUSED;

/* ---- analyze.c ------------------------------------------------------------ */

/* The per node metrics a DONE of rank src for stage s carries (NULL:
 * none), summed into c. */
void dist_analyze_add_node_stats(coord *c, int src, int32_t s, const uint8_t *p, size_t n);
/* The executor's analyze callback (session.h); arg is the runtime. */
floe_status dist_coord_analyze(void *arg, const floe_plan *plan, const floe_exec_ctx *ctx,
                               floe_buf *out) FLOE_WARN_UNUSED;

/* ---- paths.c -------------------------------------------------------------- */

/* Before any task of c runs: every rank on another host than rank 0 sees
 * the local files `plan` reads as rank 0 does, or an error naming rank,
 * host and path. */
floe_status dist_paths_check(coord *c, const floe_plan *plan) FLOE_WARN_UNUSED;
/* CHECK on a worker: compare and answer CHECKED. */
void dist_paths_answer(dist_rt *rt, const uint8_t *buf, size_t len);
/* A hint for a worker's error text (n bytes) that looks like a file rank 0
 * planned from and rank src cannot see: in buf ("" when none). */
const char *dist_paths_hint(dist_rt *rt, int src, const char *text, size_t n, char *buf, size_t cap);

#endif /* FLOE_HAVE_MPI */
#endif
