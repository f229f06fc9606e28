/* Shared arrays and batches may be read, sliced and released from many threads at once. */
#include <pthread.h>

#include "columnar_util.h"

#define THREADS 4
#define ROUNDS 2000

typedef struct {
    floe_batch *batch; /* one reference owned by this thread */
    int64_t nulls_seen;
    int failures;
} worker_arg;

static void *worker(void *p) {
    worker_arg *w = p;
    for (int r = 0; r < ROUNDS; r++) {
        floe_batch *s;
        floe_status st = floe_batch_slice(w->batch, r % 50, 50, &s);
        if (st) {
            floe_status_free(st);
            w->failures++;
            continue;
        }
        /* The lazily cached null count is computed concurrently. */
        w->nulls_seen += floe_array_null_count(s->columns[0]);
        floe_array *keep = floe_array_retain(s->columns[1]);
        floe_batch_release(s);
        if (floe_array_get_str(keep, 0).len <= 0) w->failures++;
        floe_array_release(keep);
    }
    floe_batch_release(w->batch);
    return NULL;
}

static void concurrent_slicing_and_release_is_safe(void **state) {
    (void)state;
    int32_t v[100];
    int valid[100];
    const char *names[100];
    for (int i = 0; i < 100; i++) {
        v[i] = i;
        valid[i] = i % 4 != 0;
        names[i] = "name";
    }
    floe_array *cols[2] = {make_int32(v, valid, 100), make_strings(names, 100)};
    floe_field fs[2] = {fld("i", floe_type_primitive(FLOE_TYPE_INT32), true, -1),
                        fld("s", floe_type_primitive(FLOE_TYPE_STRING), true, -1)};
    floe_type *schema;
    assert_ok(floe_type_struct(fs, 2, &schema));
    floe_batch *b;
    assert_ok(floe_batch_new(schema, cols, 2, 100, &b));
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_type_release(schema);

    pthread_t th[THREADS];
    worker_arg args[THREADS];
    for (int t = 0; t < THREADS; t++) {
        args[t] = (worker_arg){.batch = floe_batch_retain(b)};
        assert_int_equal(pthread_create(&th[t], NULL, worker, &args[t]), 0);
    }
    floe_batch_release(b); /* the workers hold the last references */
    int64_t expected = 0;
    for (int r = 0; r < ROUNDS; r++)
        for (int i = r % 50; i < r % 50 + 50; i++) expected += i % 4 == 0;
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(th[t], NULL), 0);
        assert_int_equal(args[t].failures, 0);
        assert_int_equal(args[t].nulls_seen, expected);
    }
}

FLOE_TEST_MAIN(cmocka_unit_test(concurrent_slicing_and_release_is_safe))
