/*
 * metrics.c — EXPLAIN ANALYZE counters: a counting stream around every
 * stream a plan opens, and the annotated plan text.
 *
 * Entries are keyed by (node, partition) and created when the stream opens
 * (under a mutex; opens are rare); the counters themselves are updated
 * only by the thread that calls the stream's next(), one at a time, and
 * read after the query, so they need no locking.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "base/buffer.h"
#include "exec/plan_internal.h"
#include "floe/exec_metrics.h"

typedef struct metrics_entry {
    const floe_plan *node;
    int32_t partition;
    floe_node_metrics m;
    floe_mem_tracker *mem; /* what the node allocates inside next(); counted,
                            * as its batches outlive the entry */
    struct metrics_entry *next;
} metrics_entry;

struct floe_exec_metrics {
    pthread_mutex_t mu;
    metrics_entry *entries;
};

floe_status floe_exec_metrics_new(floe_exec_metrics **out) {
    floe_exec_metrics *m = floe_calloc(1, sizeof *m);
    if (!m) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating EXPLAIN ANALYZE metrics");
    pthread_mutex_init(&m->mu, NULL);
    *out = m;
    return NULL;
}

void floe_exec_metrics_free(floe_exec_metrics *m) {
    if (!m) return;
    for (metrics_entry *e = m->entries, *n; e; e = n) {
        n = e->next;
        floe_mem_tracker_drop(e->mem);
        floe_free(e);
    }
    pthread_mutex_destroy(&m->mu);
    floe_free(m);
}

static metrics_entry *find(const floe_exec_metrics *m, const floe_plan *node, int32_t partition) {
    for (metrics_entry *e = m->entries; e; e = e->next)
        if (e->node == node && e->partition == partition) return e;
    return NULL;
}

void floe_exec_metrics_get(const floe_exec_metrics *m, const floe_plan *node, int32_t partition,
                           floe_node_metrics *out) {
    memset(out, 0, sizeof *out);
    pthread_mutex_lock((pthread_mutex_t *)&m->mu);
    metrics_entry *e = find(m, node, partition);
    if (e) {
        *out = e->m;
        out->peak_bytes = floe_mem_peak_bytes(e->mem);
    }
    pthread_mutex_unlock((pthread_mutex_t *)&m->mu);
}

void floe_exec_metrics_add_spill(floe_exec_metrics *m, const floe_plan *node, int32_t partition, int64_t files,
                                 int64_t bytes) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    metrics_entry *e = find(m, node, partition);
    if (e) {
        e->m.spill_files += files;
        e->m.spill_bytes += bytes;
    }
    pthread_mutex_unlock(&m->mu);
}

typedef struct counting_stream {
    floe_stream base;
    floe_stream *inner;
    metrics_entry *e;
} counting_stream;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static floe_status counting_next(floe_stream *s_, floe_batch **out) {
    counting_stream *s = (counting_stream *)s_;
    int64_t t0 = now_ns();
    floe_mem_tracker *prev = floe_mem_set_current(s->e->mem);
    floe_status st = floe_stream_next(s->inner, out);
    floe_mem_set_current(prev);
    s->e->m.elapsed_ns += now_ns() - t0;
    if (!st && *out) {
        s->e->m.rows += (*out)->num_rows;
        s->e->m.batches++;
    }
    return st;
}

static void counting_close(floe_stream *s_) {
    counting_stream *s = (counting_stream *)s_;
    floe_stream_close(s->inner);
    floe_free(s);
}

floe_status floe_exec_metrics_wrap(floe_exec_metrics *m, const floe_plan *node, int32_t partition,
                                   floe_stream *inner, floe_stream **out) {
    *out = NULL;
    counting_stream *s = floe_calloc(1, sizeof *s);
    if (!s) {
        floe_stream_close(inner);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening an EXPLAIN ANALYZE counter");
    }
    pthread_mutex_lock(&m->mu);
    metrics_entry *e = find(m, node, partition);
    if (!e) {
        /* The entry outlives the query's batches, whose memory is charged
         * to its tracker: allocate it under the root, not the query. */
        floe_mem_tracker *prev = floe_mem_set_current(NULL);
        e = floe_calloc(1, sizeof *e);
        floe_mem_set_current(prev);
        /* Charged onwards to whatever the query charges. */
        if (e && !(e->mem = floe_mem_tracker_new(floe_plan_type_name(node), floe_mem_current()))) {
            floe_free(e);
            e = NULL;
        }
        if (e) {
            e->node = node;
            e->partition = partition;
            e->next = m->entries;
            m->entries = e;
        }
    }
    if (e) e->m.opened++;
    pthread_mutex_unlock(&m->mu);
    if (!e) {
        floe_free(s);
        floe_stream_close(inner);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening an EXPLAIN ANALYZE counter");
    }
    s->base.next = counting_next;
    s->base.close = counting_close;
    s->inner = inner;
    s->e = e;
    *out = &s->base;
    return NULL;
}

static floe_status put_bytes(floe_buf *out, int64_t b) {
    if (b < 1024) return floe_buf_printf(out, "%lldB", (long long)b);
    if (b < 1024 * 1024) return floe_buf_printf(out, "%.1fKiB", (double)b / 1024);
    if (b < 1024LL * 1024 * 1024) return floe_buf_printf(out, "%.1fMiB", (double)b / (1024 * 1024));
    return floe_buf_printf(out, "%.2fGiB", (double)b / (1024.0 * 1024 * 1024));
}

static floe_status put_metrics(floe_buf *out, const floe_node_metrics *m) {
    FLOE_TRY(floe_buf_printf(out, "rows=%lld batches=%lld time=%.2fms peak_mem=", (long long)m->rows,
                             (long long)m->batches, (double)m->elapsed_ns / 1e6));
    FLOE_TRY(put_bytes(out, m->peak_bytes));
    if (!m->spill_files) return NULL;
    FLOE_TRY(floe_buf_printf(out, " spilled=%lld files ", (long long)m->spill_files));
    return put_bytes(out, m->spill_bytes);
}

static floe_status indent(floe_buf *out, int depth) {
    for (int i = 0; i < depth; i++) FLOE_TRY(floe_buf_append_str(out, "  "));
    return NULL;
}

static floe_status analyze_node(const floe_plan *p, const floe_exec_metrics *m, int depth, floe_buf *out) {
    FLOE_TRY(indent(out, depth));
    FLOE_TRY(floe_exec_explain_line(p, out));
    floe_node_metrics total = {0, 0, 0, 0, 0, 0, 0};
    int32_t np = floe_plan_partitions(p);
    for (int32_t i = 0; i < np; i++) {
        floe_node_metrics pm;
        floe_exec_metrics_get(m, p, i, &pm);
        total.rows += pm.rows;
        total.batches += pm.batches;
        total.elapsed_ns += pm.elapsed_ns;
        total.peak_bytes += pm.peak_bytes;
        total.spill_files += pm.spill_files;
        total.spill_bytes += pm.spill_bytes;
    }
    FLOE_TRY(indent(out, depth + 1));
    FLOE_TRY(floe_buf_append_str(out, "metrics: "));
    FLOE_TRY(put_metrics(out, &total));
    FLOE_TRY(floe_buf_append_str(out, "\n"));
    for (int32_t i = 0; np > 1 && i < np; i++) {
        floe_node_metrics pm;
        floe_exec_metrics_get(m, p, i, &pm);
        FLOE_TRY(indent(out, depth + 2));
        FLOE_TRY(floe_buf_printf(out, "partition %d: ", i));
        FLOE_TRY(put_metrics(out, &pm));
        FLOE_TRY(floe_buf_append_str(out, "\n"));
    }
    for (int32_t i = 0; i < floe_plan_num_children(p); i++)
        FLOE_TRY(analyze_node(floe_plan_child(p, i), m, depth + 1, out));
    return NULL;
}

floe_status floe_plan_explain_analyze(const floe_plan *p, const floe_exec_metrics *m, floe_buf *out) {
    return analyze_node(p, m, 0, out);
}
