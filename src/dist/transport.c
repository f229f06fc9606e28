/*
 * transport.c — moving a rank's messages (messages.h) between ranks and
 * between its threads.
 *
 * Only the main thread calls MPI (MPI_THREAD_FUNNELED, dist.h).  Every
 * send is non-blocking (MPI_Isend; the buffer is kept on the pending-send
 * list and freed once MPI_Test says it went) and every loop keeps
 * receiving while it sends, so two ranks sending large messages to each
 * other never deadlock.  Task threads never touch MPI: they queue their
 * messages (dist_net_enqueue) for the main thread to send (dist_net_drain),
 * and block while the rank has DIST_OUT_LIMIT bytes not yet sent
 * (back-pressure instead of unbounded memory).  A message a rank addresses
 * to itself never goes through MPI: the drain delivers it to the worker
 * side, or — rank 0's tasks answering its coordinator — to the self queue
 * that dist_net_recv_next reads before MPI's.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/threadpool.h"
#include "dist/runtime_internal.h"
#include "floe/memory.h"

#ifdef FLOE_HAVE_MPI

void dist_nap(int *idle) {
    /* back off from 20 µs to 1 ms while nothing happens */
    int us = *idle < 6 ? 20 << *idle : 1000;
    if (*idle < 6) (*idle)++;
    struct timespec ts = {0, us * 1000L};
    nanosleep(&ts, NULL);
}

int64_t dist_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#define DEFAULT_RANK_TIMEOUT_US ((int64_t)20 * 1000000)
#define MIN_RANK_TIMEOUT_US ((int64_t)3 * 1000000)

int64_t dist_rank_timeout_us(void) {
    const char *v = getenv("FLOE_DIST_RANK_TIMEOUT");
    if (!v || !*v) return DEFAULT_RANK_TIMEOUT_US;
    char *end = NULL;
    double secs = strtod(v, &end);
    if (!end || *end || !(secs > 0) || secs > 86400.0 * 365) {
        FLOE_LOG_WARN("dist", "FLOE_DIST_RANK_TIMEOUT=%s is not a number of seconds: using 20", v);
        return DEFAULT_RANK_TIMEOUT_US;
    }
    int64_t us = (int64_t)(secs * 1e6);
    if (us < MIN_RANK_TIMEOUT_US) {
        /* heartbeats come every second: less than three would fail ranks
         * that are only busy */
        FLOE_LOG_WARN("dist", "FLOE_DIST_RANK_TIMEOUT=%s is below 3 seconds: using 3", v);
        us = MIN_RANK_TIMEOUT_US;
    }
    return us;
}

typedef struct dist_pending_send {
    MPI_Request req;
    uint8_t *buf;
    size_t len;
    int64_t xbytes; /* streamed exchange bytes it carries (the gauge drops them once sent) */
    struct dist_pending_send *next;
} pending_send;

floe_status dist_mpi_error(int rc, const char *what) {
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
        return dist_mpi_error(rc, "Isend");
    }
    if (!counted) atomic_fetch_add(&rt->net.bytes, (int64_t)len);
    p->next = rt->net.sends;
    rt->net.sends = p;
    return NULL;
}

floe_status dist_net_send(dist_rt *rt, int dest, int tag, uint8_t *buf, size_t len) {
    return send_async_x(rt, dest, tag, buf, len, false, 0);
}

/* Send a message just encoded (st: the encoder's status). */
floe_status dist_net_send_encoded(dist_rt *rt, floe_status st, int dest, int tag, uint8_t *buf, size_t len) {
    if (st) return floe_status_wrap(st, "sending to rank %d", dest);
    return dist_net_send(rt, dest, tag, buf, len);
}

/* STOP, BYE: no fields. */
floe_status dist_net_send_empty(dist_rt *rt, int dest, int tag) {
    uint8_t *buf = NULL;
    size_t len = 0;
    floe_status st = dist_msg_empty_encode(tag, &buf, &len);
    return dist_net_send_encoded(rt, st, dest, tag, buf, len);
}

/* Free the buffers of completed sends; true if any completed. */
bool dist_net_progress(dist_rt *rt) {
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

/* Receive one message if one has arrived whole: *buf (floe_malloc'd) or
 * got=false.  A probed message is received with MPI_Irecv and tested on
 * each call, never waited for: a sender that stops in the middle of a
 * large message (SIGSTOP, a hung host) cannot block this rank, whose loop
 * goes on sending, heart-beating and watching the time.  Only one
 * receive is under way at a time, so messages are taken in MPI's order. */
floe_status dist_net_recv_any(dist_rt *rt, bool *got, int *src, int *tag, uint8_t **buf, size_t *len) {
    *got = false;
    struct dist_recv_in *in = &rt->net.in;
    if (!in->active) {
        int flag = 0;
        MPI_Status status;
        int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        if (rc != MPI_SUCCESS) return dist_mpi_error(rc, "Iprobe");
        if (!flag) return NULL;
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        uint8_t *b = floe_malloc(count > 0 ? (size_t)count : 1);
        if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "receiving %d bytes from rank %d", count, status.MPI_SOURCE);
        /* the same source and tag: MPI matches the message just probed
         * (only this thread receives) */
        rc = MPI_Irecv(b, count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, &in->req);
        if (rc != MPI_SUCCESS) {
            floe_free(b);
            return dist_mpi_error(rc, "Irecv");
        }
        if (rt->gone && status.MPI_SOURCE >= 0 && status.MPI_SOURCE < rt->size && rt->gone[status.MPI_SOURCE]) {
            /* from a rank given up on: taken off the queue (else every
             * probe finds it again) and dropped; a large one may never
             * end — its buffer is left to MPI */
            int done = 0;
            MPI_Test(&in->req, &done, MPI_STATUS_IGNORE);
            if (done) floe_free(b);
            else MPI_Request_free(&in->req);
            return NULL;
        }
        in->active = true;
        in->src = status.MPI_SOURCE;
        in->tag = status.MPI_TAG;
        in->count = count;
        in->buf = b;
        in->since_us = dist_now_us();
        if (rt->heard_us && in->src >= 0 && in->src < rt->size) rt->heard_us[in->src] = in->since_us;
    }
    int done = 0;
    int rc = MPI_Test(&in->req, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        floe_free(in->buf);
        in->buf = NULL;
        in->active = false;
        return dist_mpi_error(rc, "Recv");
    }
    if (!done) return NULL;
    in->active = false;
    if (rt->heard_us && in->src >= 0 && in->src < rt->size) rt->heard_us[in->src] = dist_now_us();
    *got = true;
    *src = in->src;
    *tag = in->tag;
    *buf = in->buf;
    *len = (size_t)in->count;
    in->buf = NULL;
    return NULL;
}

void dist_net_abandon_recv(dist_rt *rt, int src) {
    struct dist_recv_in *in = &rt->net.in;
    if (!in->active || in->src != src) return;
    /* A matched receive may not be cancellable (MPI leaves that to the
     * library): free the request and leave the buffer to MPI — it may
     * still write into it, and the job is ending anyway. */
    MPI_Cancel(&in->req);
    MPI_Request_free(&in->req);
    in->active = false;
    in->buf = NULL;
}

bool dist_net_receiving(const dist_rt *rt, int *src, int64_t *since_us) {
    if (!rt->net.in.active) return false;
    *src = rt->net.in.src;
    *since_us = rt->net.in.since_us;
    return true;
}

/* Messages rank 0's own tasks address to the coordinator (rank 0 runs
 * tasks too): queued here by dist_net_drain, read before MPI's (main thread
 * only). */
typedef struct dist_self_msg {
    int tag;
    uint8_t *buf;
    size_t len;
    struct dist_self_msg *next;
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
floe_status dist_net_recv_next(dist_rt *rt, bool *got, int *src, int *tag, uint8_t **buf, size_t *len) {
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
    return dist_net_recv_any(rt, got, src, tag, buf, len);
}

/* ---- the queue from task threads to the main thread --------------------- */

typedef struct dist_out_msg {
    int tag, dest;
    uint8_t *buf;
    size_t len;
    int64_t xbytes; /* streamed exchange bytes in it (see send_async_x) */
    struct dist_out_msg *next;
} out_msg;

/* Queue a message for the main thread to send to `dest` (this rank: it
 * delivers it itself).  From a task thread (`wait`): waits while the rank
 * has DIST_OUT_LIMIT bytes unsent, unless the task is cancelled.  `xbytes`:
 * streamed exchange bytes in it (the gauge keeps them until sent). */
floe_status dist_net_enqueue(dist_rt *rt, int dest, int tag, uint8_t *buf, size_t len, const floe_cancel *cancel,
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
    while (wait && atomic_load(&rt->net.bytes) > DIST_OUT_LIMIT && !(cancel && floe_cancel_is_set(cancel))) {
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

/* Send the queued messages (main thread); this rank's own are handled
 * here. */
bool dist_net_drain(dist_rt *rt) {
    pthread_mutex_lock(&rt->net.mu);
    out_msg *m = rt->net.head;
    rt->net.head = rt->net.tail = NULL;
    pthread_mutex_unlock(&rt->net.mu);
    bool any = m != NULL;
    while (m) {
        out_msg *next = m->next;
        if (m->dest == rt->rank) {
            atomic_fetch_sub(&rt->net.bytes, (int64_t)m->len);
            if (!dist_worker_deliver(rt, m->tag, m->buf, m->len))
                self_push(rt, m->tag, m->buf, m->len); /* rank 0's tasks to its coordinator */
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

void dist_net_wake(dist_rt *rt) {
    pthread_mutex_lock(&rt->net.mu);
    pthread_cond_broadcast(&rt->net.cv);
    pthread_mutex_unlock(&rt->net.mu);
}

bool dist_net_queue_empty(dist_rt *rt) {
    pthread_mutex_lock(&rt->net.mu);
    bool empty = rt->net.head == NULL;
    pthread_mutex_unlock(&rt->net.mu);
    return empty;
}

#endif
