/*
 * join_common.c — the collected build side shared by the probe partitions
 * of a join, joined-batch gathering, join output schemas and type names
 * (see join_common.h for how executions and helping work).
 */
#include "exec/join/join_common.h"

#include <string.h>
#include <time.h>

#include "base/threadpool.h"

/* --------------------------------------------------------------- names */

static const char *const join_names[FLOE_JOIN_TYPE_COUNT_] = {"Inner",    "Left",     "Right",     "Full",
                                                              "LeftSemi", "LeftAnti", "RightSemi", "RightAnti"};

const char *floe_join_type_name(floe_join_type t) {
    return (unsigned)t < FLOE_JOIN_TYPE_COUNT_ ? join_names[t] : "?";
}

floe_status floe_join_type_from_i64(int64_t v, floe_join_type *out) {
    if (v < 0 || v >= FLOE_JOIN_TYPE_COUNT_) return floe_error(FLOE_ERR_CORRUPT, "join type %lld is unknown", (long long)v);
    *out = (floe_join_type)v;
    return NULL;
}

floe_status floe_join_output_schema(const floe_schema *left, const floe_schema *right, floe_join_type type,
                                    floe_schema **out) {
    *out = NULL;
    if ((unsigned)type >= FLOE_JOIN_TYPE_COUNT_)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "join type %d is unknown", (int)type);
    bool with_left = type != FLOE_JOIN_RIGHT_SEMI && type != FLOE_JOIN_RIGHT_ANTI;
    bool with_right = type != FLOE_JOIN_LEFT_SEMI && type != FLOE_JOIN_LEFT_ANTI;
    bool pad_left = type == FLOE_JOIN_RIGHT || type == FLOE_JOIN_FULL;
    bool pad_right = type == FLOE_JOIN_LEFT || type == FLOE_JOIN_FULL;
    int32_t nl = with_left ? left->n_children : 0, nr = with_right ? right->n_children : 0;
    floe_field *f = floe_calloc((size_t)(nl + nr > 0 ? nl + nr : 1), sizeof *f);
    if (!f) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "building a join schema");
    floe_status st = NULL;
    int32_t k = 0;
    for (int32_t i = 0; i < nl && !st; i++, k++) {
        const floe_field *src = &left->children[i];
        st = floe_field_init(&f[k], src->name, src->type, src->nullable || pad_left, src->field_id);
    }
    for (int32_t i = 0; i < nr && !st; i++, k++) {
        const floe_field *src = &right->children[i];
        st = floe_field_init(&f[k], src->name, src->type, src->nullable || pad_right, src->field_id);
    }
    if (!st) st = floe_type_struct(f, nl + nr, out);
    for (int32_t i = 0; i < nl + nr; i++) floe_field_clear(&f[i]);
    floe_free(f);
    return st;
}

/* -------------------------------------------------------------- gather */

floe_status floe_join_gather(const floe_schema *schema, const floe_schema *left, const floe_batch *lb,
                             const uint32_t *lidx, bool with_left, const floe_schema *right,
                             const floe_batch *rb, const uint32_t *ridx, bool with_right, int64_t n,
                             floe_batch **out) {
    int32_t nl = with_left ? left->n_children : 0, nr = with_right ? right->n_children : 0;
    floe_array **cols = floe_calloc((size_t)(nl + nr > 0 ? nl + nr : 1), sizeof *cols);
    if (!cols) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "gathering a joined batch");
    floe_status st = NULL;
    for (int32_t i = 0; i < nl && !st; i++)
        st = lb ? floe_array_take(lb->columns[i], lidx, n, &cols[i])
                : floe_array_new_nulls(left->children[i].type, n, &cols[i]);
    for (int32_t i = 0; i < nr && !st; i++)
        st = rb ? floe_array_take(rb->columns[i], ridx, n, &cols[nl + i])
                : floe_array_new_nulls(right->children[i].type, n, &cols[nl + i]);
    if (!st) st = floe_batch_new((floe_schema *)schema, cols, nl + nr, n, out);
    for (int32_t i = 0; i < nl + nr; i++) floe_array_release(cols[i]);
    floe_free(cols);
    return st;
}

/* ---------------------------------------------------------- the build */

static void build_unref(floe_join_build *b) {
    if (!b || atomic_fetch_sub(&b->refs, 1) != 1) return;
    for (int32_t u = 0; b->unit_batches && u < b->n_units; u++) {
        if (b->unit_batches[u]) floe_exec_batches_free(b->unit_batches[u], b->unit_n[u]);
    }
    floe_free(b->unit_batches);
    floe_free(b->unit_n);
    floe_batch_release(b->batch);
    if (b->table && b->free_table) b->free_table(b->table);
    floe_free((void *)b->matched);
    floe_status_free(b->err);
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
    floe_free(b);
}

static floe_status build_new(int32_t n_probes, int32_t unit_base, int32_t n_units, floe_join_build **out) {
    floe_join_build *b = floe_calloc(1, sizeof *b);
    if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a join build");
    atomic_init(&b->refs, 1);
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    b->unit_base = unit_base;
    b->n_units = n_units;
    b->n_probes = n_probes;
    b->unit_batches = floe_calloc((size_t)n_units, sizeof *b->unit_batches);
    b->unit_n = floe_calloc((size_t)n_units, sizeof *b->unit_n);
    if (!b->unit_batches || !b->unit_n) {
        build_unref(b);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a join build");
    }
    *out = b;
    return NULL;
}

floe_status floe_join_build_private(int32_t unit_base, int32_t n_units, floe_join_build **out) {
    return build_new(1, unit_base, n_units, out);
}

floe_status floe_join_shared_new(int32_t n_probes, int32_t n_units, floe_join_shared **out) {
    *out = NULL;
    floe_join_shared *sh = floe_calloc(1, sizeof *sh);
    if (!sh) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a join build");
    pthread_mutex_init(&sh->mu, NULL);
    sh->n_probes = n_probes;
    floe_status st = (sh->opened = floe_calloc((size_t)n_probes, sizeof *sh->opened))
                         ? build_new(n_probes, 0, n_units, &sh->build)
                         : floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a join build");
    if (st) {
        floe_join_shared_free(sh);
        return st;
    }
    *out = sh;
    return NULL;
}

void floe_join_shared_free(void *sh_) {
    floe_join_shared *sh = sh_;
    if (!sh) return;
    build_unref(sh->build);
    floe_free(sh->opened);
    pthread_mutex_destroy(&sh->mu);
    floe_free(sh);
}

floe_status floe_join_build_acquire(floe_join_shared *sh, int32_t part, floe_join_build **out) {
    *out = NULL;
    floe_status st = NULL;
    pthread_mutex_lock(&sh->mu);
    if (part < 0 || part >= sh->n_probes || sh->opened[part] || !sh->build) {
        st = floe_error(FLOE_ERR_INTERNAL, "join: probe partition %d opened twice in one execution", part);
    } else {
        sh->opened[part] = true;
        sh->n_opened++;
        sh->n_open++;
        atomic_fetch_add(&sh->build->refs, 1);
        *out = sh->build;
    }
    pthread_mutex_unlock(&sh->mu);
    return st;
}

void floe_join_build_release(floe_join_shared *sh, floe_join_build *b) {
    if (!b) return;
    floe_join_build *drop = NULL;
    if (sh) {
        /* Every probe partition has been and gone: the rows and the table
         * go now rather than when the execution ends. */
        pthread_mutex_lock(&sh->mu);
        if (--sh->n_open == 0 && sh->n_opened == sh->n_probes) {
            drop = sh->build;
            sh->build = NULL;
        }
        pthread_mutex_unlock(&sh->mu);
    }
    build_unref(drop);
    build_unref(b);
}

static floe_status copy_error(floe_status err) {
    return floe_error(floe_status_code(err), "%s", floe_status_message(err));
}

/* Read left partition `part` completely into *batches. */
static floe_status read_unit(floe_join_build *b, const floe_plan *left, int32_t part, const floe_exec_ctx *ctx,
                             floe_batch ***batches, int64_t *n) {
    floe_stream *s;
    int64_t cap = 0;
    *batches = NULL;
    *n = 0;
    FLOE_TRY(floe_plan_execute(left, part, ctx, &s));
    floe_status st = NULL;
    for (;;) {
        floe_batch *x = NULL;
        if ((st = floe_cancel_check(ctx->cancel, "join build"))) break;
        if (atomic_load_explicit(&b->failed, memory_order_relaxed)) {
            st = floe_error(FLOE_ERR_CANCELLED, "join build: another partition failed");
            break;
        }
        if ((st = floe_stream_next(s, &x)) || !x) break;
        if (x->num_rows == 0) {
            floe_batch_release(x);
            continue;
        }
        if (*n == cap) {
            int64_t nc = cap ? cap * 2 : 16;
            floe_batch **n2 = floe_realloc(*batches, (size_t)nc * sizeof *n2);
            if (!n2) {
                floe_batch_release(x);
                st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "join build: collecting batches");
                break;
            }
            *batches = n2;
            cap = nc;
        }
        (*batches)[(*n)++] = x;
    }
    floe_stream_close(s);
    return st ? floe_status_wrap_op(st, "join build side, partition %d", part) : NULL;
}

/* Concatenate the units' rows and run the node's finish. */
static floe_status finalize(floe_join_build *b, const floe_plan *node, bool track_matched, floe_join_finish_fn finish) {
    int64_t total = 0, rows = 0;
    for (int32_t u = 0; u < b->n_units; u++) {
        total += b->unit_n[u];
        for (int64_t i = 0; i < b->unit_n[u]; i++) rows += b->unit_batches[u][i]->num_rows;
    }
    if (rows >= (int64_t)UINT32_MAX || total > INT32_MAX)
        return floe_error(FLOE_ERR_UNSUPPORTED, "join build side of %lld rows is too large (at most %u)", (long long)rows,
                          UINT32_MAX - 1);
    if (total > 0) {
        floe_batch **all = floe_calloc((size_t)total, sizeof *all);
        if (!all) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "join build: concatenating");
        int64_t k = 0;
        for (int32_t u = 0; u < b->n_units; u++)
            for (int64_t i = 0; i < b->unit_n[u]; i++) all[k++] = b->unit_batches[u][i];
        floe_status st = floe_batch_concat(all, (int32_t)total, &b->batch);
        floe_free(all);
        FLOE_TRY_CTX(st, "join build side");
    }
    for (int32_t u = 0; u < b->n_units; u++) {
        floe_exec_batches_free(b->unit_batches[u], b->unit_n[u]);
        b->unit_batches[u] = NULL;
        b->unit_n[u] = 0;
    }
    b->rows = rows;
    if (track_matched && rows > 0) {
        b->matched = floe_calloc((size_t)rows, sizeof *b->matched);
        if (!b->matched) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "join build: matched flags for %lld rows", (long long)rows);
    }
    return finish ? finish(b, node) : NULL;
}

static void wait_a_little(floe_join_build *b) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 10 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&b->cv, &b->mu, &ts);
}

floe_status floe_join_build_wait(floe_join_build *b, const floe_plan *node, const floe_exec_ctx *ctx,
                                 bool track_matched, floe_join_finish_fn finish) {
    floe_status st = NULL;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        if (b->err) {
            st = copy_error(b->err);
            break;
        }
        if (b->ready) break;
        if (b->next_unit < b->n_units) {
            int32_t u = b->next_unit++;
            pthread_mutex_unlock(&b->mu);
            floe_batch **bs;
            int64_t n;
            floe_status ust = read_unit(b, node->children[0], b->unit_base + u, ctx, &bs, &n);
            pthread_mutex_lock(&b->mu);
            b->unit_batches[u] = bs;
            b->unit_n[u] = n;
            if (ust && !b->err) {
                b->err = ust;
                atomic_store(&b->failed, true);
            } else {
                floe_status_free(ust);
            }
            if (++b->units_done == b->n_units && !b->err) {
                /* Last unit: nobody else touches the units now. */
                pthread_mutex_unlock(&b->mu);
                floe_status fst = finalize(b, node, track_matched, finish);
                pthread_mutex_lock(&b->mu);
                if (fst) {
                    b->err = fst;
                    atomic_store(&b->failed, true);
                } else {
                    b->ready = true;
                }
            }
            pthread_cond_broadcast(&b->cv);
            continue;
        }
        if ((st = floe_cancel_check(ctx->cancel, "join build"))) break;
        wait_a_little(b);
    }
    pthread_mutex_unlock(&b->mu);
    return st;
}

/* ------------------------------------------------------------- chunks */

floe_status floe_join_next_chunk(floe_stream *in, floe_join_chunker *c, int64_t cap, floe_batch **out) {
    *out = NULL;
    while (!c->rest) {
        floe_batch *b;
        FLOE_TRY(floe_stream_next(in, &b));
        if (!b) return NULL;
        if (b->num_rows == 0) {
            floe_batch_release(b);
            continue;
        }
        if (b->num_rows <= cap) {
            *out = b;
            return NULL;
        }
        c->rest = b;
        c->off = 0;
    }
    int64_t len = c->rest->num_rows - c->off;
    if (len > cap) len = cap;
    FLOE_TRY(floe_batch_slice(c->rest, c->off, len, out));
    c->off += len;
    if (c->off == c->rest->num_rows) floe_join_chunker_clear(c);
    return NULL;
}

floe_status floe_join_process_pairs(const floe_plan *node, floe_join_type type, const floe_expr *filter,
                                    const floe_schema *pair_schema, const char *what, floe_join_build *build,
                                    const floe_batch *pb, uint32_t *bidx, uint32_t *pidx, uint8_t *pmatched,
                                    int64_t *np_io, floe_batch **out) {
    const floe_plan *l = node->children[0], *r = node->children[1];
    int64_t np = *np_io;
    floe_batch *joined = NULL;
    if (filter) {
        uint32_t *sel = NULL;
        int64_t k = 0;
        FLOE_TRY(floe_join_gather(pair_schema, l->schema, build->batch, bidx, true, r->schema, pb, pidx, true, np,
                                  &joined));
        floe_status st = floe_expr_select(filter, joined, &sel, &k);
        if (st) {
            floe_batch_release(joined);
            return floe_status_wrap(st, "%s", what);
        }
        if (k < np) {
            for (int64_t j = 0; j < k; j++) {
                bidx[j] = bidx[sel[j]];
                pidx[j] = pidx[sel[j]];
            }
            floe_batch_release(joined);
            joined = NULL;
        }
        floe_free(sel);
        np = k;
    }
    *np_io = np;
    if (floe_join_tracks_left(type))
        for (int64_t j = 0; j < np; j++) floe_join_mark(build, bidx[j]);
    if (pmatched)
        for (int64_t j = 0; j < np; j++) pmatched[pidx[j]] = 1;
    floe_status st = NULL;
    if (floe_join_outputs_pairs(type) && np > 0) {
        if (joined) st = floe_batch_new(node->schema, joined->columns, joined->num_columns, np, out);
        else st = floe_join_gather(node->schema, l->schema, build->batch, bidx, true, r->schema, pb, pidx, true, np, out);
    }
    floe_batch_release(joined);
    return st;
}
