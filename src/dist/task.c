/*
 * task.c — one task of a stage (a partition of its plan) run with its
 * output routed into buckets, the wire forms that carry tasks and their
 * data, the exchange store and the in-process runner.
 *
 * Exchange data is a list of blobs per (exchange, partition).  A blob is
 * batches encoded back to back with floe_codec_put_batch; a task fills
 * one blob per bucket and hands it on once it passes BLOB_TARGET bytes,
 * so a message is neither a row nor a whole partition.
 *
 * The task message (coordinator → worker):
 *   "FLOETASK" version (3), query id, task id, stage id, partition,
 *   batch_size, scan_concurrency, read_ahead, keep_output, route kind,
 *   n_out, n_keys, keys (codec expressions), blob target, credit window,
 *   destination count and ranks (a streamed output), the storage
 *   credentials of the coordinator (floe_credentials_export bytes,
 *   length-prefixed: refreshed vended credentials reach every rank with
 *   each task; they are secrets, never logged), the stage plan (plan
 *   codec bytes), then the inputs: count, and per input exchange id,
 *   partition, kind — inline: blob count and blobs (length-prefixed);
 *   held: the ranks to fetch it from; streamed: the rank of each producer
 *   task.
 */
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "base/threadpool.h"
#include "dist/dist_internal.h"
#include "floe/exec_metrics.h"
#include "floe/exec_ops.h"
#include "floe/memory.h"

#define BLOB_TARGET (1 << 20)
#define TASK_MAGIC "FLOETASK"
#define TASK_VERSION 3

/* How an input travels in a task message. */
enum { INPUT_INLINE = 0, INPUT_HELD = 1, INPUT_STREAMED = 2 };

/* ------------------------------------------------------------ part data */

floe_status dist_part_data_new(dist_part_data **out) {
    *out = floe_calloc(1, sizeof **out);
    if (!*out) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange data: out of memory");
    atomic_init(&(*out)->refcount_, 1);
    return NULL;
}

dist_part_data *dist_part_data_retain(dist_part_data *d) {
    if (d) atomic_fetch_add(&d->refcount_, 1);
    return d;
}

void dist_part_data_release(dist_part_data *d) {
    if (!d || atomic_fetch_sub(&d->refcount_, 1) != 1) return;
    for (int64_t i = 0; i < d->n; i++) floe_free(d->blobs[i]);
    floe_free(d->error);
    floe_free(d->blobs);
    floe_free(d->lens);
    floe_free(d);
}

floe_status dist_part_data_fail(dist_part_data *d, const char *message) {
    floe_free(d->error);
    d->error = floe_strdup(message);
    return d->error ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange data: out of memory");
}

floe_status dist_part_data_add(dist_part_data *d, uint8_t *blob, size_t len) {
    if (d->n == d->cap) {
        int64_t cap = d->cap ? d->cap * 2 : 8;
        uint8_t **nb = floe_realloc(d->blobs, (size_t)cap * sizeof *nb);
        if (nb) d->blobs = nb;
        size_t *nl = nb ? floe_realloc(d->lens, (size_t)cap * sizeof *nl) : NULL;
        if (nl) d->lens = nl;
        if (!nb || !nl) {
            floe_free(blob);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange data: out of memory");
        }
        d->cap = cap;
    }
    d->blobs[d->n] = blob;
    d->lens[d->n++] = len;
    d->bytes += (int64_t)len;
    return NULL;
}

/* ------------------------------------------------------ part data stream */

typedef struct part_stream {
    floe_stream base;
    dist_part_data *d;
    const floe_cancel *cancel;
    int64_t blob;
    floe_reader r;
    _Atomic int64_t *bytes_in;
} part_stream;

static floe_status part_next(floe_stream *s_, floe_batch **out) {
    part_stream *s = (part_stream *)s_;
    *out = NULL;
    FLOE_TRY(floe_cancel_check(s->cancel, "MpiExchangeSource"));
    while (s->r.pos >= s->r.len) {
        if (s->blob >= s->d->n)
            return s->d->error ? floe_error(FLOE_ERR_CANCELLED, "%s", s->d->error) : NULL;
        s->r.data = s->d->blobs[s->blob];
        s->r.len = s->d->lens[s->blob];
        if (s->bytes_in) atomic_fetch_add(s->bytes_in, (int64_t)s->r.len);
        s->r.pos = 0;
        s->blob++;
    }
    floe_status st = floe_codec_get_batch(&s->r, out);
    return st ? floe_status_wrap(st, "exchange data blob %lld", (long long)(s->blob - 1)) : NULL;
}

static void part_close(floe_stream *s_) {
    part_stream *s = (part_stream *)s_;
    dist_part_data_release(s->d);
    floe_free(s);
}

floe_status dist_part_stream(dist_part_data *d, const floe_cancel *cancel, _Atomic int64_t *bytes_in,
                             floe_stream **out) {
    part_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange stream: out of memory");
    s->base.next = part_next;
    s->base.close = part_close;
    s->d = dist_part_data_retain(d);
    s->cancel = cancel;
    s->bytes_in = bytes_in;
    *out = &s->base;
    return NULL;
}

/* ------------------------------------------------------------- routing */

typedef struct router {
    const dist_route *route;
    int32_t n;            /* buckets */
    floe_buf *bufs;       /* one blob being filled per bucket */
    dist_emit_fn emit;
    void *arg;
    int64_t rr_next;
    dist_task_stats *stats;
    size_t blob_target;   /* hand a blob on once it has this many bytes */
    bool gauge;           /* count the bytes being encoded (streamed output) */
} router;

static floe_status flush_bucket(router *rt, int32_t j) {
    floe_buf *b = &rt->bufs[j];
    if (b->len == 0) return NULL;
    size_t len = 0;
    uint8_t *blob = floe_buf_detach(b, &len);
    if (!blob) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange: out of memory");
    rt->stats->bytes_out += (int64_t)len;
    return rt->emit(rt->arg, j, blob, len);
}

static floe_status put_bucket(router *rt, int32_t j, const floe_batch *b) {
    rt->stats->batches_out++;
    size_t before = rt->bufs[j].len;
    floe_status st = floe_codec_put_batch(&rt->bufs[j], b);
    if (rt->gauge) dist_xbytes_add((int64_t)(rt->bufs[j].len - before));
    FLOE_TRY(st);
    return rt->bufs[j].len >= rt->blob_target ? flush_bucket(rt, j) : NULL;
}

/* Bytes of the buffers behind an array (an estimate of its encoded size;
 * a slice counts its whole buffers, as the codec writes them). */
static int64_t array_bytes(const floe_array *a) {
    int64_t n = a->validity ? (int64_t)a->validity->size : 0;
    for (int i = 0; i < 2; i++)
        if (a->buffers[i]) n += (int64_t)a->buffers[i]->size;
    for (int32_t c = 0; c < a->n_children; c++) n += array_bytes(a->children[c]);
    return n;
}

/* Rows per piece so that one piece encodes to about a quarter of the blob
 * target: a blob then overshoots its target by little, which keeps the
 * bytes a small exchange-buffer bound allows honest. */
static int64_t piece_rows(const router *rt, const floe_batch *b) {
    int64_t bytes = 0;
    for (int32_t c = 0; c < b->num_columns; c++) bytes += array_bytes(b->columns[c]);
    int64_t per_row = b->num_rows > 0 ? bytes / b->num_rows + 1 : 1;
    int64_t rows = (int64_t)(rt->blob_target / 4) / per_row;
    return rows < 64 ? 64 : rows;
}

/* Rows idx[0..c) of b into bucket j, in pieces of at most `piece` rows
 * (copied compact by take, so a piece encodes only its own rows). */
static floe_status put_rows(router *rt, int32_t j, const floe_batch *b, const uint32_t *idx, int64_t c,
                            int64_t piece, bool whole) {
    if (whole && c <= piece) return put_bucket(rt, j, b);
    floe_status st = NULL;
    for (int64_t off = 0; off < c && !st; off += piece) {
        int64_t k = c - off < piece ? c - off : piece;
        floe_batch *part = NULL;
        st = floe_batch_take(b, idx + off, k, &part);
        if (!st) st = put_bucket(rt, j, part);
        floe_batch_release(part);
    }
    return st;
}

static floe_status route_hash(router *rt, floe_batch *b) {
    const dist_route *r = rt->route;
    int64_t n = b->num_rows;
    int32_t nk = r->n_keys, no = rt->n;
    floe_array **keys = floe_calloc((size_t)(nk ? nk : 1), sizeof *keys);
    uint64_t *h = floe_malloc_array((size_t)n, sizeof *h);
    uint32_t *idx = floe_malloc_array((size_t)n, sizeof *idx);
    int64_t *start = floe_calloc((size_t)no + 1, sizeof *start);
    int64_t *fill = floe_calloc((size_t)no, sizeof *fill);
    floe_status st = keys && h && idx && start && fill ? NULL
                                                       : floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange: hashing a batch");
    for (int32_t k = 0; k < nk && !st; k++) st = floe_expr_eval(r->keys[k], b, &keys[k]);
    if (!st) st = floe_hash_rows(keys, nk, n, h);
    if (!st) {
        /* the same partition function as Repartition: hash % n, order kept */
        for (int64_t i = 0; i < n; i++) start[h[i] % (uint64_t)no + 1]++;
        for (int32_t j = 0; j < no; j++) start[j + 1] += start[j];
        for (int32_t j = 0; j < no; j++) fill[j] = start[j];
        for (int64_t i = 0; i < n; i++) idx[fill[h[i] % (uint64_t)no]++] = (uint32_t)i;
        int64_t piece = rt->gauge ? piece_rows(rt, b) : INT64_MAX;
        for (int32_t j = 0; j < no && !st; j++) {
            int64_t c = start[j + 1] - start[j];
            if (c > 0) st = put_rows(rt, j, b, idx + start[j], c, piece, c == n);
        }
    }
    for (int32_t k = 0; keys && k < nk; k++) floe_array_release(keys[k]);
    floe_free(keys);
    floe_free(h);
    floe_free(idx);
    floe_free(start);
    floe_free(fill);
    return st;
}

/* A whole batch to bucket j, cut into pieces when it is large. */
static floe_status route_whole(router *rt, int32_t j, floe_batch *b) {
    int64_t piece = piece_rows(rt, b);
    if (b->num_rows <= piece) return put_bucket(rt, j, b);
    uint32_t *idx = floe_malloc_array((size_t)b->num_rows, sizeof *idx);
    if (!idx) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange: cutting a batch");
    for (int64_t i = 0; i < b->num_rows; i++) idx[i] = (uint32_t)i;
    floe_status st = put_rows(rt, j, b, idx, b->num_rows, piece, false);
    floe_free(idx);
    return st;
}

static int64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

floe_status dist_task_run(const floe_plan *plan, int32_t partition, const dist_route *route,
                          const floe_exec_ctx *ctx, int64_t blob_target, bool gauge, dist_emit_fn emit, void *arg,
                          dist_task_stats *stats) {
    memset(stats, 0, sizeof *stats);
    int64_t t0 = now_us();
    int32_t n = route->kind == DIST_ROUTE_GATHER ? 1 : route->n_out;
    if (n < 1 || (route->kind == DIST_ROUTE_IDENTITY && partition >= n))
        return floe_error(FLOE_ERR_INTERNAL, "task partition %d does not fit a %s route into %d", partition,
                          dist_route_name(route->kind), n);
    router rt = {route, n, floe_calloc((size_t)n, sizeof(floe_buf)), emit, arg, partition, stats,
                 blob_target > 0 ? (size_t)blob_target : BLOB_TARGET, gauge};
    if (!rt.bufs) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "task: out of memory");
    floe_stream *s = NULL;
    floe_status st = floe_plan_execute(plan, partition, ctx, &s);
    while (!st) {
        floe_batch *b = NULL;
        st = floe_stream_next(s, &b);
        if (st || !b) break;
        if (b->num_rows > 0) {
            stats->rows_out += b->num_rows;
            switch (route->kind) {
            case DIST_ROUTE_HASH: st = route_hash(&rt, b); break;
            case DIST_ROUTE_ROUND_ROBIN:
                st = gauge ? route_whole(&rt, (int32_t)(rt.rr_next++ % n), b)
                           : put_bucket(&rt, (int32_t)(rt.rr_next++ % n), b);
                break;
            case DIST_ROUTE_IDENTITY: st = put_bucket(&rt, partition, b); break;
            default: st = put_bucket(&rt, 0, b); break;
            }
        }
        floe_batch_release(b);
    }
    floe_stream_close(s);
    for (int32_t j = 0; j < n && !st; j++) st = flush_bucket(&rt, j);
    for (int32_t j = 0; j < n; j++) {
        if (gauge) dist_xbytes_add(-(int64_t)rt.bufs[j].len); /* left unsent after an error */
        floe_buf_free(&rt.bufs[j]);
    }
    floe_free(rt.bufs);
    stats->elapsed_us = now_us() - t0;
    return st;
}

/* ------------------------------------------------------ node statistics */

int32_t dist_plan_count_nodes(const floe_plan *p) {
    int32_t n = 1;
    for (int32_t c = 0; c < p->n_children; c++) n += dist_plan_count_nodes(p->children[c]);
    return n;
}

static const floe_plan *node_at(const floe_plan *p, int32_t *i, int32_t depth, int32_t *out_depth) {
    if ((*i)-- == 0) {
        *out_depth = depth;
        return p;
    }
    for (int32_t c = 0; c < p->n_children; c++) {
        const floe_plan *f = node_at(p->children[c], i, depth + 1, out_depth);
        if (f) return f;
    }
    return NULL;
}

const floe_plan *dist_plan_node_at(const floe_plan *plan, int32_t i, int32_t *depth) {
    *depth = 0;
    return i < 0 ? NULL : node_at(plan, &i, 0, depth);
}

static floe_status put_node_stats(const floe_plan *p, const floe_exec_metrics *m, const floe_exec_ctx *ctx,
                                  floe_buf *out) {
    floe_node_metrics total = {0, 0, 0, 0, 0, 0, 0}; /* spills are not sent (yet) */
    for (int32_t i = 0; i < p->n_partitions; i++) {
        floe_node_metrics pm;
        floe_exec_metrics_get(m, p, i, &pm);
        total.rows += pm.rows;
        total.batches += pm.batches;
        total.elapsed_ns += pm.elapsed_ns;
        total.peak_bytes += pm.peak_bytes;
    }
    const int64_t v[DIST_NODE_FIELDS] = {total.rows, total.batches, total.elapsed_ns, total.peak_bytes,
                                         dist_is_exchange_source(p) ? dist_exchange_source_bytes_in(ctx, p) : 0};
    for (int i = 0; i < DIST_NODE_FIELDS; i++) FLOE_TRY(floe_codec_put_i64(out, v[i]));
    for (int32_t c = 0; c < p->n_children; c++) FLOE_TRY(put_node_stats(p->children[c], m, ctx, out));
    return NULL;
}

floe_status dist_node_stats_put(const floe_plan *plan, const floe_exec_metrics *m, const floe_exec_ctx *ctx,
                                floe_buf *out) {
    FLOE_TRY(floe_codec_put_i64(out, dist_plan_count_nodes(plan)));
    return put_node_stats(plan, m, ctx, out);
}

/* ---------------------------------------------------------------- store */

floe_status dist_store_new(const dist_stages *s, dist_part_data ****out) {
    dist_part_data ***store = floe_calloc((size_t)s->n, sizeof *store);
    if (!store) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange store: out of memory");
    *out = store;
    for (int32_t i = 0; i < s->n; i++) {
        int32_t n = s->stages[i].route.n_out > 0 ? s->stages[i].route.n_out : 1;
        store[i] = floe_calloc((size_t)n, sizeof **store);
        if (!store[i]) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "exchange store: out of memory");
        for (int32_t j = 0; j < n; j++) FLOE_TRY(dist_part_data_new(&store[i][j]));
    }
    return NULL;
}

void dist_store_free(const dist_stages *s, dist_part_data ***store) {
    if (!store) return;
    for (int32_t i = 0; i < s->n; i++) {
        int32_t n = s->stages[i].route.n_out > 0 ? s->stages[i].route.n_out : 1;
        for (int32_t j = 0; store[i] && j < n; j++) dist_part_data_release(store[i][j]);
        floe_free(store[i]);
    }
    floe_free(store);
}

typedef struct bind_from {
    const floe_exec_ctx *ctx;
    dist_part_data **const *store;
} bind_from;

static floe_status bind_visit(void *arg, const floe_plan *source, int32_t part) {
    const bind_from *b = arg;
    return dist_exchange_source_bind(b->ctx, source, part, b->store[dist_exchange_source_id(source)][part]);
}

floe_status dist_bind_from_store(const floe_exec_ctx *ctx, const floe_plan *plan, int32_t partition,
                                 dist_part_data **const *store) {
    bind_from b = {ctx, store};
    return dist_plan_reads(plan, partition, bind_visit, &b);
}

floe_status dist_task_bind_inline(const dist_task_msg *t, const floe_exec_ctx *ctx) {
    for (int32_t i = 0; i < t->n_inline; i++)
        FLOE_TRY(dist_exchange_source_bind(ctx, t->inline_in[i].source, t->inline_in[i].part, t->inline_in[i].data));
    return NULL;
}

/* ---------------------------------------------------------- task codec */

typedef struct encode_inputs {
    floe_buf *out;
    dist_part_data **const *store;
    const dist_holders *holders;
    int64_t count;
} encode_inputs;

static floe_status count_visit(void *arg, const floe_plan *source, int32_t part) {
    (void)source;
    (void)part;
    ((encode_inputs *)arg)->count++;
    return NULL;
}

static floe_status put_input_visit(void *arg, const floe_plan *source, int32_t part) {
    encode_inputs *e = arg;
    int32_t id = dist_exchange_source_id(source);
    FLOE_TRY(floe_codec_put_i64(e->out, id));
    FLOE_TRY(floe_codec_put_i64(e->out, part));
    if (e->holders && e->holders->n_holders[id] > 0) {
        /* held (fetch from these ranks) or streamed (these producers) */
        bool streamed = e->holders->streamed && e->holders->streamed[id];
        int32_t n = e->holders->n_holders[id];
        FLOE_TRY(floe_codec_put_i64(e->out, streamed ? INPUT_STREAMED : INPUT_HELD));
        FLOE_TRY(floe_codec_put_i64(e->out, n));
        for (int32_t i = 0; i < n; i++) FLOE_TRY(floe_codec_put_i64(e->out, e->holders->holders[id][i]));
        return NULL;
    }
    const dist_part_data *d = e->store[id][part];
    FLOE_TRY(floe_codec_put_i64(e->out, INPUT_INLINE));
    FLOE_TRY(floe_codec_put_i64(e->out, d->n));
    for (int64_t i = 0; i < d->n; i++) {
        FLOE_TRY(floe_codec_put_i64(e->out, (int64_t)d->lens[i]));
        FLOE_TRY(floe_buf_append(e->out, d->blobs[i], d->lens[i]));
    }
    return NULL;
}

floe_status dist_task_encode(const dist_task_msg *t, const floe_plan *plan, dist_part_data **const *store,
                             const dist_holders *holders, floe_buf *out) {
    FLOE_TRY(floe_buf_append(out, TASK_MAGIC, 8));
    FLOE_TRY(floe_codec_put_i64(out, TASK_VERSION));
    const int64_t head[] = {t->query_id, t->task_id, t->stage_id, t->partition, t->batch_size,
                            t->scan_concurrency, t->read_ahead, t->keep_output, t->route.kind, t->route.n_out,
                            t->route.n_keys};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) FLOE_TRY(floe_codec_put_i64(out, head[i]));
    for (int32_t k = 0; k < t->route.n_keys; k++) FLOE_TRY(floe_codec_put_expr(out, t->route.keys[k]));
    FLOE_TRY(floe_codec_put_i64(out, t->blob_target));
    FLOE_TRY(floe_codec_put_i64(out, t->window));
    FLOE_TRY(floe_codec_put_i64(out, t->n_dests));
    for (int32_t i = 0; i < t->n_dests; i++) FLOE_TRY(floe_codec_put_i64(out, t->dests[i]));
    FLOE_TRY(floe_codec_put_i64(out, t->analyze));
    FLOE_TRY(floe_codec_put_i64(out, (int64_t)t->creds_len));
    if (t->creds_len) FLOE_TRY(floe_buf_append(out, t->creds, t->creds_len));
    floe_buf pb = FLOE_BUF_INIT;
    floe_status st = floe_plan_encode(plan, &pb);
    if (!st) st = floe_codec_put_i64(out, (int64_t)pb.len);
    if (!st) st = floe_buf_append(out, pb.data, pb.len);
    floe_buf_free(&pb);
    FLOE_TRY(st);
    encode_inputs e = {out, store, holders, 0};
    FLOE_TRY(dist_plan_reads(plan, t->partition, count_visit, &e));
    FLOE_TRY(floe_codec_put_i64(out, e.count));
    return dist_plan_reads(plan, t->partition, put_input_visit, &e);
}

void dist_task_msg_clear(dist_task_msg *t) {
    for (int32_t i = 0; i < t->n_inline; i++) dist_part_data_release(t->inline_in[i].data);
    floe_free(t->inline_in);
    for (int32_t i = 0; i < t->n_remote; i++) floe_free(t->remote[i].holders);
    floe_free(t->remote);
    floe_free(t->dests);
    if (t->creds_owned) memset(t->creds_owned, 0, t->creds_len); /* secrets */
    floe_free(t->creds_owned);
    dist_route_clear(&t->route);
    floe_plan_release(t->plan);
    memset(t, 0, sizeof *t);
}

static floe_status get_range(floe_reader *r, int64_t lo, int64_t hi, const char *what, int64_t *v) {
    FLOE_TRY(floe_codec_get_i64(r, v));
    if (*v < lo || *v > hi)
        return floe_error(FLOE_ERR_CORRUPT, "task message: %s %lld is out of range", what, (long long)*v);
    return NULL;
}

/* A length of bytes that must follow it in the message. */
static floe_status get_len(floe_reader *r, int64_t lo, const char *what, int64_t *v) {
    FLOE_TRY(floe_codec_get_i64(r, v));
    if (*v < lo || (uint64_t)*v > (uint64_t)(r->len - r->pos))
        return floe_error(FLOE_ERR_CORRUPT, "task message: %s %lld at offset %zu runs past its end (%zu bytes)", what,
                          (long long)*v, r->pos - 8, r->len);
    return NULL;
}

/* Find the exchange source `id` in plan (depth first). */
static const floe_plan *find_source(const floe_plan *p, int32_t id) {
    if (dist_is_exchange_source(p)) return dist_exchange_source_id(p) == id ? p : NULL;
    for (int32_t c = 0; c < p->n_children; c++) {
        const floe_plan *f = find_source(p->children[c], id);
        if (f) return f;
    }
    return NULL;
}

static floe_status decode_remote(floe_reader *r, dist_task_msg *t, const floe_plan *src, int32_t id, int32_t part,
                                 int32_t n, bool streamed) {
    dist_remote_input *nr = floe_realloc(t->remote, (size_t)(t->n_remote + 1) * sizeof *nr);
    if (!nr) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "task message: out of memory");
    t->remote = nr;
    dist_remote_input *in = &t->remote[t->n_remote];
    memset(in, 0, sizeof *in);
    in->holders = floe_calloc((size_t)(n ? n : 1), sizeof *in->holders);
    if (!in->holders) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "task message: out of memory");
    t->n_remote++;
    in->source = src;
    in->streamed = streamed;
    in->exchange = id;
    in->part = part;
    for (int32_t i = 0; i < n; i++) {
        int64_t rank;
        FLOE_TRY(get_range(r, 0, INT32_MAX, "holder rank", &rank));
        in->holders[in->n_holders++] = (int32_t)rank;
    }
    return NULL;
}

static floe_status decode_inputs(floe_reader *r, dist_task_msg *t) {
    int64_t n;
    FLOE_TRY(get_range(r, 0, 1 << 20, "input count", &n));
    for (int64_t i = 0; i < n; i++) {
        int64_t id, part, kind, nb;
        FLOE_TRY(get_range(r, 0, INT32_MAX, "exchange id", &id));
        FLOE_TRY(get_range(r, 0, INT32_MAX, "input partition", &part));
        FLOE_TRY(get_range(r, INPUT_INLINE, INPUT_STREAMED, "input kind", &kind));
        FLOE_TRY(get_range(r, 0, (int64_t)(r->len - r->pos), kind == INPUT_INLINE ? "blob count" : "rank count", &nb));
        const floe_plan *src = find_source(t->plan, (int32_t)id);
        if (!src || part >= src->n_partitions)
            return floe_error(FLOE_ERR_CORRUPT, "task message: input for exchange %lld partition %lld has no source",
                              (long long)id, (long long)part);
        if (kind != INPUT_INLINE) {
            FLOE_TRY(decode_remote(r, t, src, (int32_t)id, (int32_t)part, (int32_t)nb, kind == INPUT_STREAMED));
            continue;
        }
        dist_part_data *d = NULL;
        FLOE_TRY(dist_part_data_new(&d));
        floe_status st = NULL;
        for (int64_t b = 0; b < nb && !st; b++) {
            int64_t len;
            st = get_len(r, 0, "blob length", &len);
            uint8_t *blob = st ? NULL : floe_malloc(len ? (size_t)len : 1);
            if (!st && !blob) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task message: out of memory");
            if (!st) {
                memcpy(blob, r->data + r->pos, (size_t)len);
                r->pos += (size_t)len;
                st = dist_part_data_add(d, blob, (size_t)len);
            }
        }
        if (!st) {
            dist_inline_input *ni = floe_realloc(t->inline_in, (size_t)(t->n_inline + 1) * sizeof *ni);
            if (!ni) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task message: out of memory");
            else {
                t->inline_in = ni;
                ni[t->n_inline++] = (dist_inline_input){src, (int32_t)part, d};
                d = NULL;
            }
        }
        dist_part_data_release(d);
        FLOE_TRY(st);
    }
    return NULL;
}

floe_status dist_task_decode(const uint8_t *data, size_t len, dist_task_msg *t) {
    memset(t, 0, sizeof *t);
    if (len < 8 || memcmp(data, TASK_MAGIC, 8) != 0)
        return floe_error(FLOE_ERR_CORRUPT, "task message: bad magic");
    floe_reader r = {data, len, 8};
    int64_t v[12];
    FLOE_TRY(get_range(&r, TASK_VERSION, TASK_VERSION, "version", &v[0]));
    FLOE_TRY(get_range(&r, 0, INT64_MAX, "query id", &v[1]));
    FLOE_TRY(get_range(&r, 0, INT64_MAX, "task id", &v[2]));
    FLOE_TRY(get_range(&r, 0, INT32_MAX, "stage id", &v[3]));
    FLOE_TRY(get_range(&r, 0, INT32_MAX, "partition", &v[4]));
    FLOE_TRY(get_range(&r, 1, INT32_MAX, "batch size", &v[5]));
    FLOE_TRY(get_range(&r, 0, 1 << 20, "scan concurrency", &v[6]));
    FLOE_TRY(get_range(&r, 0, 1 << 20, "read ahead", &v[7]));
    FLOE_TRY(get_range(&r, 0, 1, "keep output", &v[11]));
    FLOE_TRY(get_range(&r, DIST_ROUTE_GATHER, DIST_ROUTE_IDENTITY, "route", &v[8]));
    FLOE_TRY(get_range(&r, 1, 1 << 20, "route outputs", &v[9]));
    FLOE_TRY(get_range(&r, 0, 1024, "route keys", &v[10]));
    t->keep_output = v[11] != 0;
    t->query_id = v[1];
    t->task_id = v[2];
    t->stage_id = (int32_t)v[3];
    t->partition = (int32_t)v[4];
    t->batch_size = v[5];
    t->scan_concurrency = (int32_t)v[6];
    t->read_ahead = (int32_t)v[7];
    t->route.kind = (dist_route_kind)v[8];
    t->route.n_out = (int32_t)v[9];
    floe_status st = NULL;
    if (v[10] > 0) {
        t->route.keys = floe_calloc((size_t)v[10], sizeof *t->route.keys);
        if (!t->route.keys) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task message: out of memory");
    }
    for (int64_t k = 0; k < v[10] && !st; k++) {
        st = floe_codec_get_expr(&r, &t->route.keys[k]);
        if (!st) t->route.n_keys++;
    }
    int64_t bt = 0, win = 0, nd = 0;
    if (!st) st = get_range(&r, 0, INT32_MAX, "blob target", &bt);
    if (!st) st = get_range(&r, 0, 1 << 20, "credit window", &win);
    if (!st) st = get_range(&r, 0, v[9], "destination count", &nd);
    if (!st && nd > 0 && nd != v[9])
        st = floe_error(FLOE_ERR_CORRUPT, "task message: %lld destinations for %lld outputs", (long long)nd,
                        (long long)v[9]);
    if (!st && nd > 0 && !(t->dests = floe_calloc((size_t)nd, sizeof *t->dests)))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task message: out of memory");
    for (int64_t i = 0; i < nd && !st; i++) {
        int64_t rank;
        st = get_range(&r, 0, INT32_MAX, "destination rank", &rank);
        if (!st) t->dests[t->n_dests++] = (int32_t)rank;
    }
    t->blob_target = bt;
    t->window = (int32_t)win;
    int64_t cl = 0, an = 0;
    if (!st) st = get_range(&r, 0, 1, "analyze flag", &an);
    t->analyze = an != 0;
    if (!st) st = get_len(&r, 0, "credentials length", &cl);
    if (!st && cl > 0) {
        t->creds_owned = floe_malloc((size_t)cl);
        if (!t->creds_owned) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "task message: out of memory");
        else {
            memcpy(t->creds_owned, r.data + r.pos, (size_t)cl);
            r.pos += (size_t)cl;
            t->creds = t->creds_owned;
            t->creds_len = (size_t)cl;
        }
    }
    int64_t plen = 0;
    if (!st) st = get_len(&r, 1, "plan length", &plen);
    if (!st) st = floe_plan_decode(r.data + r.pos, (size_t)plen, &t->plan);
    if (!st) {
        r.pos += (size_t)plen;
        if (t->partition >= t->plan->n_partitions)
            st = floe_error(FLOE_ERR_CORRUPT, "task message: partition %d of a %d-partition stage", t->partition,
                            t->plan->n_partitions);
    }
    if (!st) st = decode_inputs(&r, t);
    if (st) dist_task_msg_clear(t);
    return st ? floe_status_wrap(st, "decoding a task") : NULL;
}

/* ------------------------------------------------------ root stage stream */

typedef struct root_stream {
    floe_stream base;
    dist_stages *stages;
    dist_part_data ***store;
    floe_execution *exec; /* the root stage's own */
    floe_stream *inner;
} root_stream;

static floe_status root_next(floe_stream *s_, floe_batch **out) {
    root_stream *s = (root_stream *)s_;
    return floe_stream_next(s->inner, out);
}

static void root_close(floe_stream *s_) {
    root_stream *s = (root_stream *)s_;
    floe_stream_close(s->inner);
    floe_execution_end(s->exec);
    dist_store_free(s->stages, s->store);
    dist_stages_free(s->stages);
    floe_free(s);
}

floe_status dist_root_stream(dist_stages *stages, dist_part_data ***store, const floe_exec_ctx *ctx, bool in_ctx,
                             floe_stream **out) {
    *out = NULL;
    const floe_plan *root = stages->stages[stages->n - 1].plan;
    root_stream *s = floe_calloc(1, sizeof *s);
    floe_status st = s ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "result stream: out of memory");
    floe_exec_ctx rctx = *ctx;
    if (!st && !(in_ctx && rctx.exec)) st = floe_execution_begin(&rctx, &s->exec);
    if (!st) st = dist_bind_from_store(&rctx, root, 0, store);
    if (!st) st = floe_plan_execute(root, 0, &rctx, &s->inner);
    if (st) {
        if (s) floe_execution_end(s->exec);
        floe_free(s);
        dist_store_free(stages, store);
        dist_stages_free(stages);
        return st;
    }
    s->base.next = root_next;
    s->base.close = root_close;
    s->stages = stages;
    s->store = store;
    *out = &s->base;
    return NULL;
}

/* ---------------------------------------------------------- in-process */

typedef struct store_emit {
    dist_part_data **parts;
} store_emit;

static floe_status emit_to_store(void *arg, int32_t bucket, uint8_t *blob, size_t len) {
    store_emit *e = arg;
    return dist_part_data_add(e->parts[bucket], blob, len);
}

floe_status floe_dist_open_inprocess(const floe_plan *plan, const floe_exec_ctx *ctx, floe_stream **out) {
    *out = NULL;
    dist_stages *stages = NULL;
    FLOE_TRY(dist_split_stages(plan, &stages));
    dist_part_data ***store = NULL;
    floe_status st = dist_store_new(stages, &store);
    for (int32_t i = 0; i + 1 < stages->n && !st; i++) {
        dist_stage *g = &stages->stages[i];
        for (int32_t part = 0; part < g->plan->n_partitions && !st; part++) {
            /* each task runs its own decoded copy, as a worker would */
            dist_task_msg t;
            memset(&t, 0, sizeof t);
            t.stage_id = g->id;
            t.partition = part;
            t.batch_size = ctx->batch_size > 0 ? ctx->batch_size : 8192;
            t.route = g->route;
            floe_buf msg = FLOE_BUF_INIT;
            st = dist_task_encode(&t, g->plan, store, NULL, &msg);
            dist_task_msg got;
            memset(&got, 0, sizeof got);
            if (!st) st = dist_task_decode(msg.data, msg.len, &got);
            floe_buf_free(&msg);
            store_emit e = {store[g->id]};
            dist_task_stats stats;
            floe_exec_ctx tctx = *ctx;
            floe_execution *x = NULL;
            if (!st) st = floe_execution_begin(&tctx, &x);
            if (!st) st = dist_task_bind_inline(&got, &tctx);
            if (!st) st = dist_task_run(got.plan, got.partition, &got.route, &tctx, 0, false, emit_to_store, &e, &stats);
            floe_execution_end(x);
            if (st) st = floe_status_wrap_op(st, "stage %d, partition %d", g->id, part);
            dist_task_msg_clear(&got);
        }
    }
    if (st) {
        dist_store_free(stages, store);
        dist_stages_free(stages);
        return st;
    }
    return dist_root_stream(stages, store, ctx, false, out);
}
