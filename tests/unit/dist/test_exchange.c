/*
 * test_exchange.c — the credit scheme of streamed exchanges
 * (src/dist/exchange.c) without MPI: producer threads send blobs through
 * their outlets into consumer inboxes, credits come straight back.  Proves
 * that a channel never has more than its window outstanding while far
 * more than that moves, that every blob arrives once and in order per
 * producer, that a consumer that stops early (closes) never leaves a
 * producer waiting, and that cancellation and failures wake the waiters.
 */
#include "floe_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "base/threadpool.h"
#include "dist/dist_internal.h"
#include "floe/memory.h"

enum { N_PROD = 3, N_CONS = 2, WINDOW = 2, BLOBS = 400, BLOB_LEN = 1000 };

typedef struct world {
    dist_outlet *outlets[N_PROD];
    dist_inbox *inboxes[N_CONS];
    _Atomic int32_t outstanding[N_PROD][N_CONS]; /* sent, not yet credited back */
    _Atomic int32_t worst;
    floe_cancel cancel;
    _Atomic int32_t sent;
} world;

/* The "transport" back: a consumer's credit reaches the producer's outlet. */
static void credit_direct(void *arg, dist_inbox *in, int32_t producer, int32_t n) {
    world *w = arg;
    atomic_fetch_sub(&w->outstanding[producer][dist_inbox_part(in)], n);
    dist_outlet_grant(w->outlets[producer], dist_inbox_part(in), n);
}

typedef struct prod_arg {
    world *w;
    int32_t id;
    floe_status st;
} prod_arg;

static void *producer(void *arg_) {
    prod_arg *a = arg_;
    world *w = a->w;
    for (int32_t i = 0; i < BLOBS && !a->st; i++) {
        int32_t j = i % N_CONS;
        a->st = dist_outlet_acquire(w->outlets[a->id], j, &w->cancel);
        if (a->st) break;
        int32_t now = atomic_fetch_add(&w->outstanding[a->id][j], 1) + 1;
        int32_t worst = atomic_load(&w->worst);
        while (now > worst && !atomic_compare_exchange_weak(&w->worst, &worst, now)) {
        }
        uint8_t *blob = floe_malloc(BLOB_LEN);
        memset(blob, 0, BLOB_LEN);
        memcpy(blob, &i, sizeof i); /* the sequence number, to check order */
        dist_xbytes_add(BLOB_LEN);
        dist_inbox_push(w->inboxes[j], a->id, blob, BLOB_LEN);
        atomic_fetch_add(&w->sent, 1);
    }
    for (int32_t j = 0; j < N_CONS && !a->st; j++) dist_inbox_end(w->inboxes[j], a->id);
    return NULL;
}

typedef struct cons_arg {
    world *w;
    int32_t id;
    int32_t stop_after; /* close early after this many blobs (-1: read all) */
    int32_t got;
    bool in_order;
    floe_status st;
} cons_arg;

static void *consumer(void *arg_) {
    cons_arg *a = arg_;
    dist_inbox *in = a->w->inboxes[a->id];
    int32_t last[N_PROD];
    for (int i = 0; i < N_PROD; i++) last[i] = -1;
    a->in_order = true;
    for (;;) {
        if (a->stop_after >= 0 && a->got >= a->stop_after) {
            dist_inbox_close(in);
            return NULL;
        }
        uint8_t *blob = NULL;
        size_t len = 0;
        int32_t p = -1;
        a->st = dist_inbox_pop(in, &a->w->cancel, &blob, &len, &p);
        if (a->st || !blob) return NULL;
        int32_t seq;
        memcpy(&seq, blob, sizeof seq);
        if (seq <= last[p]) a->in_order = false;
        last[p] = seq;
        a->got++;
        /* a slow consumer: producers must wait for it, not pile up */
        if (a->got % 50 == 0) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        dist_inbox_consumed(in, p, blob, len);
    }
}

static void world_init(world *w) {
    memset(w, 0, sizeof *w);
    floe_cancel_init(&w->cancel, NULL);
    for (int i = 0; i < N_PROD; i++) assert_ok(dist_outlet_new(N_CONS, WINDOW, &w->outlets[i]));
    for (int j = 0; j < N_CONS; j++) {
        assert_ok(dist_inbox_new(1, 0, j, &w->inboxes[j]));
        assert_ok(dist_inbox_attach(w->inboxes[j], N_PROD, NULL, credit_direct, w));
    }
}

static void world_free(world *w) {
    for (int i = 0; i < N_PROD; i++) dist_outlet_free(w->outlets[i]);
    for (int j = 0; j < N_CONS; j++) dist_inbox_release(w->inboxes[j]);
}

/* Run N_PROD producers against N_CONS consumers; stop[j] as cons_arg. */
static void run_world(world *w, const int32_t *stop, prod_arg *pa, cons_arg *ca) {
    pthread_t pt[N_PROD], ct[N_CONS];
    for (int j = 0; j < N_CONS; j++) {
        ca[j] = (cons_arg){w, j, stop[j], 0, true, NULL};
        pthread_create(&ct[j], NULL, consumer, &ca[j]);
    }
    for (int i = 0; i < N_PROD; i++) {
        pa[i] = (prod_arg){w, i, NULL};
        pthread_create(&pt[i], NULL, producer, &pa[i]);
    }
    for (int i = 0; i < N_PROD; i++) pthread_join(pt[i], NULL);
    for (int j = 0; j < N_CONS; j++) pthread_join(ct[j], NULL);
}

static void channels_never_exceed_their_window(void **state) {
    (void)state;
    world w;
    world_init(&w);
    dist_xbytes_reset_peak();
    int64_t base = dist_xbytes_now();
    prod_arg pa[N_PROD];
    cons_arg ca[N_CONS];
    int32_t stop[N_CONS] = {-1, -1};
    run_world(&w, stop, pa, ca);
    for (int i = 0; i < N_PROD; i++) assert_null(pa[i].st);
    int32_t total = 0;
    for (int j = 0; j < N_CONS; j++) {
        assert_null(ca[j].st);
        assert_true(ca[j].in_order);
        total += ca[j].got;
    }
    /* everything moved, 1200 blobs, while no channel ever had more than
     * its window outstanding: the bytes held stayed at the bound */
    assert_int_equal(total, N_PROD * BLOBS);
    assert_true(atomic_load(&w.worst) <= WINDOW);
    int64_t bound = (int64_t)N_PROD * N_CONS * WINDOW * BLOB_LEN;
    assert_true(dist_xbytes_peak() - base <= bound);
    assert_true((int64_t)total * BLOB_LEN >= 50 * bound);
    assert_int_equal(dist_xbytes_now(), base);
    world_free(&w);
}

static void a_consumer_that_stops_early_never_blocks_producers(void **state) {
    (void)state;
    world w;
    world_init(&w);
    int64_t base = dist_xbytes_now();
    prod_arg pa[N_PROD];
    cons_arg ca[N_CONS];
    int32_t stop[N_CONS] = {5, -1}; /* consumer 0 is a LIMIT: it stops after 5 blobs */
    run_world(&w, stop, pa, ca);
    for (int i = 0; i < N_PROD; i++) assert_null(pa[i].st);
    assert_int_equal(ca[0].got, 5);
    assert_int_equal(ca[1].got, N_PROD * BLOBS / N_CONS);
    assert_int_equal(atomic_load(&w.sent), N_PROD * BLOBS);
    /* what was dropped is no longer counted */
    assert_int_equal(dist_xbytes_now(), base);
    world_free(&w);
}

static void *cancel_later(void *arg) {
    struct timespec ts = {0, 30 * 1000000L};
    nanosleep(&ts, NULL);
    floe_cancel_set(arg);
    return NULL;
}

static void cancellation_wakes_a_producer_without_credit(void **state) {
    (void)state;
    dist_outlet *o = NULL;
    assert_ok(dist_outlet_new(2, 1, &o));
    floe_cancel c;
    floe_cancel_init(&c, NULL);
    assert_ok(dist_outlet_acquire(o, 1, &c));
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, &c);
    /* no credit left for bucket 1: waits until the cancel */
    assert_error(dist_outlet_acquire(o, 1, &c), FLOE_ERR_CANCELLED, "waiting for the consumer");
    pthread_join(t, NULL);
    assert_error(dist_outlet_acquire(o, 5, NULL), FLOE_ERR_INTERNAL, "bucket 5");
    assert_true(dist_outlet_waited_us(o) > 0);
    dist_outlet_free(o);
}

static void a_failed_inbox_fails_its_consumer(void **state) {
    (void)state;
    dist_inbox *in = NULL;
    assert_ok(dist_inbox_new(7, 3, 1, &in));
    assert_ok(dist_inbox_attach(in, 2, NULL, NULL, NULL));
    assert_error(dist_inbox_attach(in, 2, NULL, NULL, NULL), FLOE_ERR_INTERNAL, "two consumers");
    dist_inbox_fail(in, "rank 2 failed");
    uint8_t *blob;
    size_t len;
    int32_t p;
    assert_error(dist_inbox_pop(in, NULL, &blob, &len, &p), FLOE_ERR_CANCELLED, "rank 2 failed");
    dist_inbox_release(in);
    /* a cancelled consumer with nothing queued stops waiting */
    assert_ok(dist_inbox_new(7, 3, 2, &in));
    assert_ok(dist_inbox_attach(in, 1, NULL, NULL, NULL));
    floe_cancel c;
    floe_cancel_init(&c, NULL);
    floe_cancel_set(&c);
    assert_error(dist_inbox_pop(in, &c, &blob, &len, &p), FLOE_ERR_CANCELLED, "waiting for producers");
    /* blobs that arrived before the end are read, then the end */
    dist_inbox_release(in);
    assert_ok(dist_inbox_new(7, 3, 3, &in));
    uint8_t *b = floe_malloc(4);
    memcpy(b, "abcd", 4);
    dist_xbytes_add(4);
    dist_inbox_push(in, 0, b, 4); /* before the consumer attached: kept */
    dist_inbox_end(in, 0);
    assert_ok(dist_inbox_attach(in, 1, NULL, NULL, NULL));
    assert_ok(dist_inbox_pop(in, NULL, &blob, &len, &p));
    assert_non_null(blob);
    assert_int_equal(len, 4);
    dist_inbox_consumed(in, p, blob, len);
    assert_ok(dist_inbox_pop(in, NULL, &blob, &len, &p));
    assert_null(blob);
    dist_inbox_release(in);
}

FLOE_TEST_MAIN(cmocka_unit_test(channels_never_exceed_their_window),
               cmocka_unit_test(a_consumer_that_stops_early_never_blocks_producers),
               cmocka_unit_test(cancellation_wakes_a_producer_without_credit),
               cmocka_unit_test(a_failed_inbox_fails_its_consumer))
