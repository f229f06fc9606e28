/*
 * store.c — the exchange data a rank keeps for the tasks of other ranks:
 * the output of its tasks that stays where it was made (held per query,
 * exchange and partition until the query ends) and is served to whoever
 * FETCHes it, and the inboxes of the streamed partitions its tasks
 * consume (exchange.c), which STREAM messages fill.  Not to be confused
 * with a query's exchange store on the coordinator (dist_store_new,
 * task.c): that one holds what rank 0 itself reads.
 *
 * Held data is under store.mu (task threads add to it); inboxes are the
 * main thread's.
 */
#include <string.h>

#include "base/log.h"
#include "dist/runtime_internal.h"
#include "floe/memory.h"

#ifdef FLOE_HAVE_MPI

/* Exchange data this rank holds for other tasks to fetch. */
typedef struct dist_held {
    int64_t query;
    int32_t exchange, part;
    dist_part_data *data;
    struct dist_held *next;
} held;

/* The inbox of a streamed partition this rank consumes: created by the
 * consumer task or by the first blob to arrive, whichever comes first. */
typedef struct dist_inbox_rec {
    dist_inbox *in;
    struct dist_inbox_rec *next;
} inbox_rec;

/* The inbox of (q, x, part), created when missing (main thread). */
dist_inbox *dist_store_inbox(dist_rt *rt, int64_t q, int32_t x, int32_t part) {
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

floe_status dist_store_keep(dist_rt *rt, int64_t query, int32_t exchange, int32_t part, uint8_t *blob,
                            size_t len) {
    pthread_mutex_lock(&rt->store.mu);
    dist_part_data *d = held_find(rt, query, exchange, part, true);
    floe_status st = d ? dist_part_data_add(d, blob, len) : NULL;
    pthread_mutex_unlock(&rt->store.mu);
    if (!d) {
        floe_free(blob);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "keeping task output");
    }
    return st;
}

/* Copy what this rank holds of (q, x, part) into d. */
floe_status dist_store_copy(dist_rt *rt, int64_t q, int32_t x, int32_t part, dist_part_data *d) {
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

/* Another rank asks for what this one holds of (query, exchange, part):
 * DATA messages, then FETCH_END. */
void dist_store_serve_fetch(dist_rt *rt, int src, const uint8_t *buf, size_t len) {
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
        if (!st) st = dist_net_send(rt, src, DIST_MSG_DATA, out, n);
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
    st = dist_net_send_encoded(rt, st, src, DIST_MSG_FETCH_END, out, n);
    floe_status_free(st);
}

/* STREAM: a blob (or the end) of a partition this rank consumes (the
 * buffer is taken over).  `local`: from a task of this rank, its bytes
 * already in the gauge. */
void dist_store_got_stream(dist_rt *rt, uint8_t *buf, size_t len, bool local) {
    dist_msg_stream m;
    floe_status st = dist_msg_stream_decode(buf, len, &m);
    size_t n = len >= DIST_MSG_STREAM_HEAD ? len - DIST_MSG_STREAM_HEAD : 0;
    if (!local) dist_xbytes_add((int64_t)n);
    dist_inbox *in =
        !st && m.query > rt->worker.cancelled_upto ? dist_store_inbox(rt, m.query, m.exchange, m.part) : NULL;
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

void dist_store_drop(dist_rt *rt, int64_t q) {
    held_drop(rt, q);
    inboxes_drop(rt, q);
}

#endif
