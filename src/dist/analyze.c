/*
 * analyze.c — EXPLAIN ANALYZE under mpirun: the query runs (its result
 * dropped), every task's DONE carrying its plan's per node metrics
 * (dist_node_stats_put); they are summed per stage, node and rank, and
 * printed per stage — tasks, rows and bytes each rank sent on, its task
 * time — then per node of the stage's plan what each rank did (rows,
 * batches, time, peak memory, exchange bytes read), with each rank's peak
 * of streamed exchange bytes.  The last stage runs on rank 0 with the
 * local runtime's metrics.
 */
#include <time.h>

#include "dist/runtime_internal.h"
#include "exec/plan_internal.h"
#include "floe/exec_metrics.h"
#include "floe/memory.h"

#ifdef FLOE_HAVE_MPI

/* The per node metrics following a DONE (EXPLAIN ANALYZE): summed per
 * stage, node and rank.  A count that does not match the stage is ignored. */
void dist_analyze_add_node_stats(coord *c, int src, int32_t s, const uint8_t *p, size_t n) {
    dist_rt *rt = c->rt;
    if (!c->analyze || !p || src < 0 || src >= rt->size) return;
    dist_msg_node_stats ns;
    floe_status st = dist_msg_node_stats_decode(p, n, &ns);
    if (st || ns.count != c->n_nodes[s]) {
        floe_status_free(st);
        return;
    }
    for (int64_t i = 0; i < ns.count; i++) {
        int64_t *acc = c->nstats[s] + ((size_t)i * (size_t)rt->size + (size_t)src) * NODE_STATS;
        acc[0]++;
        acc[1] += dist_msg_node_stat(&ns, i, 0); /* rows */
        acc[2] += dist_msg_node_stat(&ns, i, 1); /* batches */
        acc[3] += dist_msg_node_stat(&ns, i, 2); /* ns */
        int64_t peak = dist_msg_node_stat(&ns, i, 3);
        if (peak > acc[4]) acc[4] = peak;        /* peak: the largest task's */
        acc[5] += dist_msg_node_stat(&ns, i, 4); /* exchange bytes read */
    }
}

static floe_status put_size(floe_buf *out, const char *name, int64_t b) {
    if (b < 1024) return floe_buf_printf(out, " %s=%lldB", name, (long long)b);
    if (b < 1024 * 1024) return floe_buf_printf(out, " %s=%.1fKiB", name, (double)b / 1024);
    return floe_buf_printf(out, " %s=%.1fMiB", name, (double)b / (1024 * 1024));
}

/* A stage's plan, each node followed by one line per rank that ran it:
 * tasks, rows, batches, time inside the node (children included), the
 * largest task's peak memory and, for an exchange source, the exchange
 * bytes it read.  nstats: n_nodes x rt->size x NODE_STATS. */
static floe_status put_nodes(dist_rt *rt, const floe_plan *plan, const int64_t *nstats, floe_buf *out) {
    int32_t n = dist_plan_count_nodes(plan);
    for (int32_t i = 0; i < n; i++) {
        int32_t depth = 0;
        const floe_plan *node = dist_plan_node_at(plan, i, &depth);
        for (int32_t d = 0; d <= depth; d++) FLOE_TRY(floe_buf_append_str(out, "  "));
        FLOE_TRY(floe_exec_explain_line(node, out));
        for (int r = 0; r < rt->size; r++) {
            const int64_t *a = nstats + ((size_t)i * (size_t)rt->size + (size_t)r) * NODE_STATS;
            if (a[0] == 0) continue;
            for (int32_t d = 0; d <= depth + 1; d++) FLOE_TRY(floe_buf_append_str(out, "  "));
            FLOE_TRY(floe_buf_printf(out, "rank %d: tasks=%lld rows=%lld batches=%lld time=%.2fms", r,
                                     (long long)a[0], (long long)a[1], (long long)a[2], (double)a[3] / 1e6));
            FLOE_TRY(put_size(out, "peak_mem", a[4]));
            if (dist_is_exchange_source(node)) FLOE_TRY(put_size(out, "exchange_in", a[5]));
            FLOE_TRY(floe_buf_append_byte(out, '\n'));
        }
    }
    return NULL;
}

/* Per node statistics of a plan rank 0 ran itself (the root stage). */
static floe_status root_node_stats(dist_rt *rt, const floe_plan *root, const floe_exec_metrics *m,
                                   const floe_exec_ctx *ctx, int64_t **out) {
    *out = NULL;
    floe_buf b = FLOE_BUF_INIT;
    floe_status st = dist_node_stats_put(root, m, ctx, &b);
    dist_msg_node_stats ns;
    if (!st) st = dist_msg_node_stats_decode(b.data, b.len, &ns);
    int32_t n = dist_plan_count_nodes(root);
    if (!st && ns.count != n)
        st = floe_error(FLOE_ERR_INTERNAL, "EXPLAIN ANALYZE: %lld node statistics for %d nodes", (long long)ns.count,
                        n);
    int64_t *a = st ? NULL : floe_calloc((size_t)n * (size_t)rt->size * NODE_STATS, sizeof *a);
    if (!st && !a) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "EXPLAIN ANALYZE: out of memory");
    for (int32_t i = 0; !st && i < n; i++) {
        int64_t *acc = a + (size_t)i * (size_t)rt->size * NODE_STATS; /* rank 0 */
        acc[0] = 1;
        for (int k = 0; k < DIST_NODE_FIELDS; k++) acc[1 + k] = dist_msg_node_stat(&ns, i, k);
    }
    floe_buf_free(&b);
    if (st) floe_free(a);
    else *out = a;
    return st;
}

static int64_t mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* EXPLAIN ANALYZE under mpirun: run the query (result dropped), then per
 * stage the tasks, rows and bytes each rank sent on and its task time,
 * and per node of the stage's plan what each rank did (rows, batches,
 * time, peak memory, exchange bytes read). */
floe_status dist_coord_analyze(void *arg, const floe_plan *plan, const floe_exec_ctx *ctx, floe_buf *out) {
    dist_rt *rt = arg;
    coord c;
    bool local;
    int64_t t0 = mono_us();
    FLOE_TRY(dist_coord_start(rt, plan, ctx, &c, &local, true));
    if (local) return floe_buf_printf(out, "Distributed: no (the plan runs on rank 0 only)\n");
    /* statistics first: the root stream takes the stages over */
    floe_status st = floe_buf_printf(out, "Distributed over %d ranks (%d threads):\n", rt->size, (int)rt->total);
    int32_t last = c.stages->n - 1;
    for (int32_t s = 0; s < last && !st; s++) {
        const dist_stage *stage = &c.stages->stages[s];
        st = floe_buf_printf(out, "Stage %d: %d task%s, %s into %d partition%s%s\n", s, stage->plan->n_partitions,
                             stage->plan->n_partitions == 1 ? "" : "s", dist_route_name(stage->route.kind),
                             stage->route.n_out, stage->route.n_out == 1 ? "" : "s",
                             c.to_root[s] ? " (to rank 0)" : c.streamed[s] ? " (streamed)" : " (held on workers)");
        if (!st && c.streamed[s])
            st = floe_buf_printf(out, "  blobs of %lld bytes, %d credits per channel, waited for credits %.3f ms\n",
                                 (long long)c.blob_target[s], CREDIT_WINDOW, (double)c.waited_us[s] / 1000.0);
        for (int r = 0; r < rt->size && !st; r++) {
            int64_t n = 0, rows = 0, bytes = 0, us = 0;
            for (int64_t t = 0; t < c.n_tasks; t++) {
                if (c.tasks[t].stage != s || c.tasks[t].rank != r) continue;
                n++;
                rows += c.tasks[t].stats.rows_out;
                bytes += c.tasks[t].stats.bytes_out;
                us += c.tasks[t].stats.elapsed_us;
            }
            if (n > 0)
                st = floe_buf_printf(out, "  rank %d: tasks=%lld, rows=%lld, bytes=%lld, task_time=%.3f ms\n", r,
                                     (long long)n, (long long)rows, (long long)bytes, (double)us / 1000.0);
        }
        if (!st) st = put_nodes(rt, stage->plan, c.nstats[s], out);
    }
    bool any_streamed = false;
    for (int32_t s = 0; s < last; s++) any_streamed = any_streamed || c.streamed[s];
    if (!st && any_streamed) {
        st = floe_buf_printf(out, "Exchange buffers: bound %lld bytes per rank; peak", (long long)c.bound);
        for (int r = 0; r < rt->size && !st; r++) st = floe_buf_printf(out, " rank %d=%lld", r, (long long)c.peak[r]);
        if (!st) st = floe_buf_append_byte(out, '\n');
    }
    dist_coord_free_sched(&c);
    /* the root stage, on rank 0, with the local runtime's metrics */
    floe_plan *root = floe_plan_retain(c.stages->stages[last].plan);
    floe_exec_metrics *m = NULL;
    floe_status st2 = floe_exec_metrics_new(&m);
    floe_exec_ctx rctx = *ctx;
    rctx.metrics = m;
    floe_execution *exec = NULL;
    if (!st2) st2 = floe_execution_begin(&rctx, &exec);
    floe_stream *stream = NULL;
    if (!st2) st2 = dist_root_stream(c.stages, c.store, &rctx, true, &stream);
    else {
        dist_store_free(c.stages, c.store);
        dist_stages_free(c.stages);
    }
    int64_t rows = 0;
    while (!st2) {
        floe_batch *b = NULL;
        st2 = floe_stream_next(stream, &b);
        if (st2 || !b) break;
        rows += b->num_rows;
        floe_batch_release(b);
    }
    floe_stream_close(stream);
    int64_t *rstats = NULL;
    if (!st2) st2 = root_node_stats(rt, root, m, &rctx, &rstats);
    floe_execution_end(exec); /* before the metrics, which pay for its states */
    if (!st && !st2)
        st = floe_buf_printf(out, "Stage %d (result, rank 0): rows=%lld; total %.3f ms\n", last, (long long)rows,
                             (double)(mono_us() - t0) / 1000.0);
    if (!st && !st2) st = put_nodes(rt, root, rstats, out);
    floe_free(rstats);
    floe_plan_release(root);
    floe_exec_metrics_free(m);
    if (st) {
        floe_status_free(st2);
        return st;
    }
    return st2;
}

#endif
