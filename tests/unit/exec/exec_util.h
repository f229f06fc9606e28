/*
 * exec_util.h — helpers shared by the exec layer's unit tests: small
 * batches and plans built in a line, and running a plan to one batch.
 */
#ifndef FLOE_TEST_EXEC_UTIL_H
#define FLOE_TEST_EXEC_UTIL_H

#include "base/buffer.h"
#include "base/threadpool.h"
#include "floe/exec.h"
#include "floe_test.h"

#define NUL INT32_MIN /* marks a null in the int32 helpers below */

/* An int32 array from values, NUL meaning null. */
static inline floe_array *int32_array(const int32_t *v, int64_t n) {
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT32), n, &b));
    for (int64_t i = 0; i < n; i++) {
        if (v[i] == NUL) assert_ok(floe_builder_append_null(b));
        else assert_ok(floe_builder_append_int32(b, v[i]));
    }
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

/* A schema of int32 columns named by `names` (comma-free strings). */
static inline floe_schema *int_schema(const char *const *names, int n) {
    floe_field f[8];
    floe_schema *s;
    for (int i = 0; i < n; i++) assert_ok(floe_field_init(&f[i], names[i], floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    assert_ok(floe_type_struct(f, n, &s));
    for (int i = 0; i < n; i++) floe_field_clear(&f[i]);
    return s;
}

/* A batch of one or two int32 columns "a" (and "b"). */
static inline floe_batch *int_batch(const int32_t *a, const int32_t *b, int64_t n) {
    static const char *const names[] = {"a", "b"};
    int nc = b ? 2 : 1;
    floe_schema *s = int_schema(names, nc);
    floe_array *cols[2] = {int32_array(a, n), b ? int32_array(b, n) : NULL};
    floe_batch *out;
    assert_ok(floe_batch_new(s, cols, nc, n, &out));
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_type_release(s);
    return out;
}

static inline floe_exec_ctx test_ctx(floe_threadpool *pool, int64_t batch_size) {
    floe_exec_ctx c = {0};
    c.pool = pool;
    c.batch_size = batch_size;
    return c;
}

/* A stream over one partition run in an execution of its own, ended when
 * the stream closes (for tests that read partitions one run at a time). */
typedef struct test_owned_stream {
    floe_stream base;
    floe_stream *inner;
    floe_execution *exec;
} test_owned_stream;

static inline floe_status test_owned_next(floe_stream *s, floe_batch **out) {
    return floe_stream_next(((test_owned_stream *)s)->inner, out);
}

static inline void test_owned_close(floe_stream *s_) {
    test_owned_stream *s = (test_owned_stream *)s_;
    floe_stream_close(s->inner);
    floe_execution_end(s->exec);
    floe_free(s);
}

/* floe_plan_execute in ctx's execution, or (none) in one of its own. */
static inline floe_status test_execute(const floe_plan *p, int32_t partition, const floe_exec_ctx *ctx,
                                       floe_stream **out) {
    if (ctx->exec) return floe_plan_execute(p, partition, ctx, out);
    test_owned_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "test stream");
    floe_exec_ctx c = *ctx;
    floe_status st = floe_execution_begin(&c, &s->exec);
    if (!st) st = floe_plan_execute(p, partition, &c, &s->inner);
    if (st) {
        floe_execution_end(s->exec);
        floe_free(s);
        return st;
    }
    s->base.next = test_owned_next;
    s->base.close = test_owned_close;
    *out = &s->base;
    return NULL;
}

/* Begin an execution on a copy of ctx (*ectx), for a test that opens
 * several partitions of one run by hand; end it with floe_execution_end. */
static inline floe_execution *test_begin(const floe_exec_ctx *ctx, floe_exec_ctx *ectx) {
    *ectx = *ctx;
    floe_execution *x = NULL;
    floe_status st = floe_execution_begin(ectx, &x);
    if (st) {
        floe_status_free(st);
        return NULL;
    }
    return x;
}

/* Run a plan and concatenate every batch (NULL when there are none). */
static inline floe_status run_plan(const floe_plan *p, const floe_exec_ctx *ctx, floe_batch **out) {
    floe_batch **bs;
    int64_t n;
    *out = NULL;
    FLOE_TRY(floe_exec_collect(p, ctx, &bs, &n));
    floe_status st = n ? floe_batch_concat(bs, (int32_t)n, out) : NULL;
    floe_exec_batches_free(bs, n);
    return st;
}

/* The int32 values of column `col` of a batch, NUL for null. */
static inline void column_values(const floe_batch *b, int col, int32_t *out) {
    const floe_array *a = b->columns[col];
    for (int64_t i = 0; i < a->length; i++) out[i] = floe_array_is_null(a, i) ? NUL : floe_array_get_int32(a, i);
}

#endif
