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
