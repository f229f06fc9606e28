/*
 * exchange.c — streamed exchanges with credits: the bounded-memory path of
 * a hash (or round-robin) repartition between ranks.  No MPI here: the
 * runtime moves the messages, these structures decide when a producer may
 * send and when a consumer gives room back, so they are unit-tested
 * without mpirun (tests/unit/dist/test_exchange.c).
 *
 * A channel is one (producer task, consumer partition) pair.  Each channel
 * may have `window` blobs outstanding — sent but not yet decoded by the
 * consumer.  The producer's outlet counts the credits it has left per
 * destination and blocks the task (on a condition variable, never in MPI)
 * when a destination has none; the consumer's inbox returns one credit per
 * blob once it has decoded it.  So the exchange bytes a rank holds are at
 * most (channels touching it) x window x blob size, whatever the volume
 * moved.  A consumer that stops early (a LIMIT) closes its inbox: what is
 * queued and what still arrives is dropped and credited at once, so no
 * producer waits forever.
 *
 * Every byte of a streamed blob is counted in one process-wide gauge
 * (dist_xbytes_*) from the moment a task starts encoding it until the
 * consumer has decoded it (on the producer's rank until MPI has sent it,
 * then on the consumer's): its peak is what EXPLAIN ANALYZE reports and
 * what the tests hold below the bound.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "base/threadpool.h"
#include "dist/dist_internal.h"
#include "floe/exec_ops.h"
#include "floe/memory.h"

/* ------------------------------------------------------------- the gauge */

static _Atomic int64_t g_xbytes, g_xpeak;

void dist_xbytes_add(int64_t delta) {
    int64_t now = atomic_fetch_add(&g_xbytes, delta) + delta;
    int64_t peak = atomic_load(&g_xpeak);
    while (now > peak && !atomic_compare_exchange_weak(&g_xpeak, &peak, now)) {
    }
}

int64_t dist_xbytes_now(void) { return atomic_load(&g_xbytes); }
int64_t dist_xbytes_peak(void) { return atomic_load(&g_xpeak); }
void dist_xbytes_reset_peak(void) { atomic_store(&g_xpeak, atomic_load(&g_xbytes)); }

/* A bounded wait: long waits re-check cancellation (which is set from
 * other threads without signalling our condition variable). */
static void timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(cv, mu, &ts);
}

/* ------------------------------------------------------------- the outlet */

struct dist_outlet {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int32_t n;
    int32_t *credits;
    int64_t waited_us;
};

floe_status dist_outlet_new(int32_t n_out, int32_t window, dist_outlet **out) {
    *out = NULL;
    dist_outlet *o = floe_calloc(1, sizeof *o);
    if (o) o->credits = floe_calloc((size_t)(n_out > 0 ? n_out : 1), sizeof *o->credits);
    if (!o || !o->credits) {
        floe_free(o);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange outlet: out of memory");
    }
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->cv, NULL);
    o->n = n_out;
    for (int32_t i = 0; i < n_out; i++) o->credits[i] = window > 0 ? window : 1;
    *out = o;
    return NULL;
}

void dist_outlet_free(dist_outlet *o) {
    if (!o) return;
    pthread_mutex_destroy(&o->mu);
    pthread_cond_destroy(&o->cv);
    floe_free(o->credits);
    floe_free(o);
}

floe_status dist_outlet_acquire(dist_outlet *o, int32_t bucket, const floe_cancel *cancel) {
    if (bucket < 0 || bucket >= o->n)
        return floe_error(FLOE_ERR_INTERNAL, "exchange outlet: bucket %d of %d", bucket, o->n);
    pthread_mutex_lock(&o->mu);
    struct timespec t0, t1;
    bool waited = false;
    while (o->credits[bucket] <= 0 && !floe_cancel_is_set(cancel)) {
        if (!waited) clock_gettime(CLOCK_MONOTONIC, &t0);
        waited = true;
        timed_wait(&o->cv, &o->mu);
    }
    if (waited) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        o->waited_us += (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
    }
    bool ok = o->credits[bucket] > 0;
    if (ok) o->credits[bucket]--;
    pthread_mutex_unlock(&o->mu);
    return ok ? NULL : floe_cancel_check(cancel, "exchange (waiting for the consumer)");
}

void dist_outlet_grant(dist_outlet *o, int32_t bucket, int32_t n) {
    if (bucket < 0 || bucket >= o->n || n <= 0) return;
    pthread_mutex_lock(&o->mu);
    o->credits[bucket] += n;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
}

int64_t dist_outlet_waited_us(dist_outlet *o) {
    pthread_mutex_lock(&o->mu);
    int64_t v = o->waited_us;
    pthread_mutex_unlock(&o->mu);
    return v;
}

/* -------------------------------------------------------------- the inbox */

typedef struct inblob {
    uint8_t *data;
    size_t len;
    int32_t producer;
    struct inblob *next;
} inblob;

struct dist_inbox {
    _Atomic int32_t refcount_;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t query;
    int32_t exchange, part;
    inblob *head, *tail;
    int64_t queued_bytes;
    /* set by the consumer when it attaches */
    bool attached, closed;
    int32_t n_producers, ends;
    dist_credit_fn credit;
    void *credit_arg;
    int32_t *ranks; /* rank of each producer task (may be NULL) */
    char *error;
};

floe_status dist_inbox_new(int64_t query, int32_t exchange, int32_t part, dist_inbox **out) {
    *out = floe_calloc(1, sizeof **out);
    if (!*out) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange inbox: out of memory");
    dist_inbox *in = *out;
    atomic_init(&in->refcount_, 1);
    pthread_mutex_init(&in->mu, NULL);
    pthread_cond_init(&in->cv, NULL);
    in->query = query;
    in->exchange = exchange;
    in->part = part;
    return NULL;
}

dist_inbox *dist_inbox_retain(dist_inbox *in) {
    if (in) atomic_fetch_add(&in->refcount_, 1);
    return in;
}

void dist_inbox_release(dist_inbox *in) {
    if (!in || atomic_fetch_sub(&in->refcount_, 1) != 1) return;
    for (inblob *b = in->head, *next; b; b = next) {
        next = b->next;
        dist_xbytes_add(-(int64_t)b->len);
        floe_free(b->data);
        floe_free(b);
    }
    floe_free(in->error);
    floe_free(in->ranks);
    pthread_mutex_destroy(&in->mu);
    pthread_cond_destroy(&in->cv);
    floe_free(in);
}

int64_t dist_inbox_query(const dist_inbox *in) { return in->query; }
/* Set once at attach, before any credit can be given: read without the lock. */
int32_t dist_inbox_producer_rank(const dist_inbox *in, int32_t producer) {
    return in->ranks && producer >= 0 && producer < in->n_producers ? in->ranks[producer] : -1;
}
int32_t dist_inbox_exchange(const dist_inbox *in) { return in->exchange; }
int32_t dist_inbox_part(const dist_inbox *in) { return in->part; }

/* Give one credit back to `producer` (called without in->mu held: the
 * callback queues a message and may take other locks). */
static void give_credit(dist_inbox *in, dist_credit_fn fn, void *arg, int32_t producer) {
    if (fn) fn(arg, in, producer, 1);
}

void dist_inbox_push(dist_inbox *in, int32_t producer, uint8_t *blob, size_t len) {
    inblob *b = floe_calloc(1, sizeof *b);
    pthread_mutex_lock(&in->mu);
    if (in->closed || !b) {
        /* the consumer is gone (or no memory to queue it): drop the blob,
         * but still give the credit back so the producer can finish */
        dist_credit_fn fn = in->credit;
        void *arg = in->credit_arg;
        bool fail = !b && !in->closed;
        if (fail && !in->error) in->error = floe_strdup("exchange inbox: out of memory");
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->mu);
        dist_xbytes_add(-(int64_t)len);
        floe_free(blob);
        floe_free(b);
        give_credit(in, fn, arg, producer);
        return;
    }
    b->data = blob;
    b->len = len;
    b->producer = producer;
    if (in->tail) in->tail->next = b;
    else in->head = b;
    in->tail = b;
    in->queued_bytes += (int64_t)len;
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->mu);
}

void dist_inbox_end(dist_inbox *in, int32_t producer) {
    (void)producer;
    pthread_mutex_lock(&in->mu);
    in->ends++;
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->mu);
}

void dist_inbox_fail(dist_inbox *in, const char *message) {
    pthread_mutex_lock(&in->mu);
    if (!in->error) in->error = floe_strdup(message ? message : "exchange failed");
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->mu);
}

floe_status dist_inbox_attach(dist_inbox *in, int32_t n_producers, const int32_t *ranks, dist_credit_fn fn,
                              void *arg) {
    int32_t *copy = NULL;
    if (ranks && n_producers > 0) {
        copy = floe_malloc_array((size_t)n_producers, sizeof *copy);
        if (!copy) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange inbox: out of memory");
        memcpy(copy, ranks, (size_t)n_producers * sizeof *copy);
    }
    pthread_mutex_lock(&in->mu);
    bool twice = in->attached;
    if (!twice) {
        in->attached = true;
        in->n_producers = n_producers;
        in->credit = fn;
        in->credit_arg = arg;
        in->ranks = copy;
        copy = NULL;
    }
    pthread_mutex_unlock(&in->mu);
    floe_free(copy);
    return twice ? floe_error(FLOE_ERR_INTERNAL, "exchange %d partition %d has two consumers", in->exchange, in->part)
                 : NULL;
}

floe_status dist_inbox_pop(dist_inbox *in, const floe_cancel *cancel, uint8_t **blob, size_t *len,
                           int32_t *producer) {
    *blob = NULL;
    *len = 0;
    pthread_mutex_lock(&in->mu);
    for (;;) {
        if (in->error) {
            floe_status st = floe_error(FLOE_ERR_CANCELLED, "%s", in->error);
            pthread_mutex_unlock(&in->mu);
            return st;
        }
        if (in->head) {
            inblob *b = in->head;
            in->head = b->next;
            if (!in->head) in->tail = NULL;
            in->queued_bytes -= (int64_t)b->len;
            pthread_mutex_unlock(&in->mu);
            *blob = b->data;
            *len = b->len;
            *producer = b->producer;
            floe_free(b);
            return NULL;
        }
        if (in->attached && in->ends >= in->n_producers) {
            pthread_mutex_unlock(&in->mu);
            return NULL; /* end of the partition */
        }
        if (floe_cancel_is_set(cancel)) {
            pthread_mutex_unlock(&in->mu);
            return floe_cancel_check(cancel, "exchange (waiting for producers)");
        }
        timed_wait(&in->cv, &in->mu);
    }
}

void dist_inbox_consumed(dist_inbox *in, int32_t producer, uint8_t *blob, size_t len) {
    dist_xbytes_add(-(int64_t)len);
    floe_free(blob);
    pthread_mutex_lock(&in->mu);
    dist_credit_fn fn = in->credit;
    void *arg = in->credit_arg;
    pthread_mutex_unlock(&in->mu);
    give_credit(in, fn, arg, producer);
}

void dist_inbox_close(dist_inbox *in) {
    pthread_mutex_lock(&in->mu);
    in->closed = true;
    inblob *list = in->head;
    in->head = in->tail = NULL;
    in->queued_bytes = 0;
    dist_credit_fn fn = in->credit;
    void *arg = in->credit_arg;
    pthread_mutex_unlock(&in->mu);
    for (inblob *b = list, *next; b; b = next) {
        next = b->next;
        int32_t producer = b->producer;
        dist_xbytes_add(-(int64_t)b->len);
        floe_free(b->data);
        floe_free(b);
        give_credit(in, fn, arg, producer);
    }
}

/* ------------------------------------------------------ the inbox stream */

typedef struct inbox_stream {
    floe_stream base;
    dist_inbox *in;
    const floe_cancel *cancel;
    uint8_t *blob; /* being decoded */
    size_t len;
    int32_t producer;
    floe_reader r;
    _Atomic int64_t *bytes_in;
} inbox_stream;

static void finish_blob(inbox_stream *s) {
    if (!s->blob) return;
    dist_inbox_consumed(s->in, s->producer, s->blob, s->len);
    s->blob = NULL;
    s->len = 0;
}

static floe_status inbox_next(floe_stream *s_, floe_batch **out) {
    inbox_stream *s = (inbox_stream *)s_;
    *out = NULL;
    while (!s->blob || s->r.pos >= s->r.len) {
        finish_blob(s);
        FLOE_TRY(dist_inbox_pop(s->in, s->cancel, &s->blob, &s->len, &s->producer));
        if (!s->blob) return NULL;
        if (s->bytes_in) atomic_fetch_add(s->bytes_in, (int64_t)s->len);
        s->r.data = s->blob;
        s->r.len = s->len;
        s->r.pos = 0;
    }
    floe_status st = floe_codec_get_batch(&s->r, out);
    return st ? floe_status_wrap_op(st, "streamed exchange %d partition %d", s->in->exchange, s->in->part) : NULL;
}

static void inbox_close_stream(floe_stream *s_) {
    inbox_stream *s = (inbox_stream *)s_;
    finish_blob(s);
    dist_inbox_close(s->in);
    dist_inbox_release(s->in);
    floe_free(s);
}

floe_status dist_inbox_stream(dist_inbox *in, const floe_cancel *cancel, _Atomic int64_t *bytes_in,
                              floe_stream **out) {
    inbox_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange stream: out of memory");
    s->base.next = inbox_next;
    s->base.close = inbox_close_stream;
    s->in = dist_inbox_retain(in);
    s->cancel = cancel;
    s->bytes_in = bytes_in;
    *out = &s->base;
    return NULL;
}
