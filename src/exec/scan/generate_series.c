/*
 * generate_series.c — the GenerateSeries leaf node: one non-null int64
 * column holding start, start+step, ... up to and including stop, split
 * into contiguous ranges, one per output partition.
 *
 * The whole series is described by three numbers, so nothing is
 * materialised: a partition's stream knows the index range [lo, hi) of
 * the values it owns and fills each batch straight into the builder.
 * Counts and values are computed in 128-bit arithmetic so series that
 * touch INT64_MIN / INT64_MAX neither overflow nor wrap.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/plan_internal.h"
#include "floe/exec_scan.h"

typedef __int128 i128;

typedef struct series_plan {
    floe_plan head;
    int64_t start, stop, step;
    char *column;
    i128 count; /* values in the whole series (may be 2^64) */
} series_plan;

typedef struct series_stream {
    floe_stream base;
    const series_plan *p;
    const floe_cancel *cancel;
    int64_t batch_size;
    i128 next, end; /* value indices still to produce: [next, end) */
    floe_progress *progress;
    i128 begin;           /* the partition's first value index */
    int64_t units_done;   /* progress units reported so far */
} series_stream;

/* Progress is counted in units of this many values (a series may hold
 * 2^64 of them; the counter is an int64 the bar multiplies by 100). */
#define VALUES_PER_UNIT 4096

static int64_t units_of(i128 values) {
    i128 u = (values + VALUES_PER_UNIT - 1) / VALUES_PER_UNIT;
    return u > (i128)(INT64_MAX / 1024) ? INT64_MAX / 1024 : (int64_t)u;
}

/* Number of values start, start+step, ... within stop (0 when stop lies
 * on the wrong side of start). */
static i128 series_count(int64_t start, int64_t stop, int64_t step) {
    if (step > 0 && stop < start) return 0;
    if (step < 0 && stop > start) return 0;
    i128 span = (i128)stop - (i128)start; /* same sign as step, or 0 */
    return span / (i128)step + 1;
}

/* First value index of partition `i` of `n`: the ranges differ in size by
 * at most one. */
static i128 partition_begin(i128 count, int32_t i, int32_t n) { return count * i / n; }

static floe_status series_next(floe_stream *s_, floe_batch **out) {
    series_stream *s = (series_stream *)s_;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "GenerateSeries"));
    if (s->next >= s->end) return NULL;
    i128 left = s->end - s->next;
    int64_t n = left < (i128)s->batch_size ? (int64_t)left : s->batch_size;
    floe_builder *b = NULL;
    floe_array *col = NULL;
    int64_t *v;
    floe_status st = floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &b);
    if (!st) st = floe_builder_extend_values(b, n, (void **)&v);
    if (!st) {
        /* Every value here lies between start and stop, so it fits. */
        int64_t x = (int64_t)((i128)s->p->start + s->next * (i128)s->p->step);
        int64_t step = s->p->step;
        v[0] = x;
        for (int64_t i = 1; i < n; i++) {
            /* Unsigned add: the last step of a partition ending at an
             * int64 bound never computes a value past it, but keep the
             * addition well defined regardless. */
            x = (int64_t)((uint64_t)x + (uint64_t)step);
            v[i] = x;
        }
        st = floe_builder_finish(b, &col);
    }
    floe_builder_free(b);
    if (!st) st = floe_batch_new(s->p->head.schema, &col, 1, n, out);
    floe_array_release(col);
    if (!st) {
        s->next += n;
        int64_t units = units_of(s->next - s->begin);
        floe_progress_add(s->progress, units - s->units_done);
        s->units_done = units;
    }
    return st;
}

static void series_close(floe_stream *s) { floe_free(s); }

static floe_status series_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                                  floe_stream **out) {
    const series_plan *p = (const series_plan *)p_;
    series_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a GenerateSeries stream");
    s->base.next = series_next;
    s->base.close = series_close;
    s->p = p;
    s->cancel = ctx->cancel;
    s->batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
    s->next = partition_begin(p->count, partition, p->head.n_partitions);
    s->end = partition_begin(p->count, partition + 1, p->head.n_partitions);
    s->begin = s->next;
    s->progress = ctx->progress;
    *out = &s->base;
    return NULL;
}

static floe_status series_encode(const floe_plan *p_, floe_buf *out) {
    const series_plan *p = (const series_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->start));
    FLOE_TRY(floe_codec_put_i64(out, p->stop));
    FLOE_TRY(floe_codec_put_i64(out, p->step));
    FLOE_TRY(floe_codec_put_i64(out, p->head.n_partitions));
    return floe_codec_put_str(out, p->column);
}

static floe_status series_decode(floe_reader *r, floe_plan *const *children, int32_t n_children,
                                 floe_plan **out) {
    (void)children;
    int64_t start, stop, step, np;
    char *column = NULL;
    if (n_children != 0) return floe_error(FLOE_ERR_CORRUPT, "GenerateSeries with %d children", n_children);
    FLOE_TRY(floe_codec_get_i64(r, &start));
    FLOE_TRY(floe_codec_get_i64(r, &stop));
    FLOE_TRY(floe_codec_get_i64(r, &step));
    FLOE_TRY(floe_codec_get_i64(r, &np));
    if (np < 1 || np > INT32_MAX)
        return floe_error(FLOE_ERR_CORRUPT, "GenerateSeries: partition count %lld is impossible", (long long)np);
    FLOE_TRY(floe_codec_get_str(r, &column));
    floe_status st = floe_plan_generate_series(start, stop, step, (int32_t)np, column, out);
    floe_free(column);
    return st;
}

static floe_status series_explain(const floe_plan *p_, floe_buf *out) {
    const series_plan *p = (const series_plan *)p_;
    return floe_buf_printf(out, "column=%s, start=%lld, stop=%lld, step=%lld", p->column, (long long)p->start,
                           (long long)p->stop, (long long)p->step);
}

static void series_free(floe_plan *p_) { floe_free(((series_plan *)p_)->column); }

/* The values in [start, stop] by step: known exactly. */
static double series_estimate_rows(const floe_plan *p_) {
    const series_plan *p = (const series_plan *)p_;
    if (p->step == 0) return 0;
    double n = ((double)p->stop - (double)p->start) / (double)p->step + 1;
    return n > 0 ? n : 0;
}

/* Units of VALUES_PER_UNIT values over the partitions (each rounds up). */
static int64_t series_progress_total(const floe_plan *p_) {
    const series_plan *p = (const series_plan *)p_;
    int64_t total = 0;
    for (int32_t i = 0; i < p->head.n_partitions; i++) {
        i128 n = partition_begin(p->count, i + 1, p->head.n_partitions) - partition_begin(p->count, i, p->head.n_partitions);
        int64_t u = units_of(n);
        total = total > INT64_MAX / 1024 - u ? INT64_MAX / 1024 : total + u;
    }
    return total;
}

const floe_plan_vtable floe_generate_series_vt = {
    .name = "GenerateSeries",
    .execute = series_execute,
    .encode_parts = series_encode,
    .decode_parts = series_decode,
    .explain_parts = series_explain,
    .free_parts = series_free,
    .estimate_rows = series_estimate_rows,
    .progress_total = series_progress_total,
};

floe_status floe_plan_generate_series(int64_t start, int64_t stop, int64_t step, int32_t n_partitions,
                                      const char *column, floe_plan **out) {
    *out = NULL;
    if (step == 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "generate_series: step must not be zero");
    if (n_partitions < 1)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "generate_series: %d partitions", n_partitions);
    if (!column || !*column) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "generate_series: empty column name");
    series_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a GenerateSeries node");
    p->start = start;
    p->stop = stop;
    p->step = step;
    p->count = series_count(start, stop, step);
    floe_field f;
    floe_schema *schema = NULL;
    floe_status st = NULL;
    p->column = floe_malloc(strlen(column) + 1);
    if (!p->column) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a GenerateSeries node");
    else memcpy(p->column, column, strlen(column) + 1);
    if (!st) {
        st = floe_field_init(&f, column, floe_type_primitive(FLOE_TYPE_INT64), false, -1);
        if (!st) {
            st = floe_type_struct(&f, 1, &schema);
            floe_field_clear(&f);
        }
    }
    /* The head must be initialised before any release of the node. */
    floe_status init = floe_exec_plan_init(&p->head, &floe_generate_series_vt, schema, n_partitions, NULL, 0);
    if (!st) st = init;
    else floe_status_free(init);
    floe_type_release(schema);
    if (!st) {
        /* Each partition is a contiguous run of the series, so it is sorted
         * in the direction of the step (no nulls). */
        floe_expr *c0 = NULL;
        st = floe_expr_column(0, &c0);
        if (!st) {
            floe_sort_key k = {c0, step < 0, step < 0};
            st = floe_exec_plan_set_ordering(&p->head, &k, 1);
        }
        floe_expr_release(c0);
    }
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}
