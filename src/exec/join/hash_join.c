/*
 * hash_join.c — the HashJoin node: an equi-join of a left (build) and a
 * right (probe) child on pairs of key expressions, with an optional
 * residual filter, for every join type and both modes.
 *
 * Build: the left rows (all left partitions in COLLECT_LEFT, shared by
 * every probe partition through join_common's floe_join_build; left
 * partition i in PARTITIONED) are concatenated into one batch, their keys
 * evaluated and hashed with floe_hash_rows, and chained into a bucket
 * array (heads[hash & mask] → row + 1, then per row the next row + 1 and
 * the hash's high half), rows in ascending order along a chain.  Rows with a NULL key are left out unless
 * null_equals_null.
 *
 * Probe: per probe batch the keys are hashed, each row walks its chain
 * comparing hashes and then keys (floe_rows_equal: SQL equality, NaN =
 * NaN and -0.0 = 0.0 as in grouping).  Candidate pairs are gathered up to
 * ctx->batch_size at a time; the filter, when there is one, is evaluated
 * on the joined candidate rows.  Matches mark the probe row (RIGHT, FULL,
 * RIGHT_SEMI, RIGHT_ANTI emit per probe batch) and the build row (an
 * atomic flag per row; LEFT, FULL, LEFT_SEMI, LEFT_ANTI are emitted by the
 * last probe partition to finish).
 *
 * Keys of different but comparable types (int32 = int64, int = float,
 * decimals of different scales, a NULL literal) are converted to one
 * common type before hashing, so equal values hash equally.
 *
 * null_aware (NOT IN; COLLECT_LEFT): the side whose rows are not output
 * is the subquery side, key 0 is the NOT IN key and any further keys are
 * correlation equalities (NULL never equal).  A NULL NOT IN key on either
 * side "matches" every row of the other side with equal correlation keys,
 * so with one key: a NULL key on the subquery side empties the output, and
 * an output-side row with a NULL key is dropped unless the subquery side
 * is empty.  With a filter or correlation keys, those NULL pairs are
 * candidate pairs like any other (found by scanning) and the filter
 * decides.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/join/join_common.h"
#include "exec/plan_internal.h"
#include "exec/exchange/row_hash.h"
#include "floe/exec_ops.h"

typedef struct hj_plan {
    floe_plan head;
    floe_join_type type;
    floe_join_mode mode;
    int32_t n_keys;
    floe_expr **lkeys, **rkeys;
    floe_expr *filter;
    bool null_equals_null, null_aware;
    /* derived */
    floe_schema *pair_schema; /* left ++ right: what the filter sees */
    floe_type **key_types;    /* per key: the common type */
    bool *lconv, *rconv;      /* per key: that side is converted */
} hj_plan;

/* ------------------------------------------------------ key conversion */

static bool is_int_type(floe_type_id id) { return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64; }
static bool is_float_type(floe_type_id id) { return id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64; }

/* The common key type of l and r (one reference), or FLOE_ERR_TYPE. */
static floe_status common_key_type(floe_type *l, floe_type *r, int32_t i, floe_type **out) {
    floe_type_id a = l->id, b = r->id;
    if (!floe_hash_type_supported(l) || !floe_hash_type_supported(r))
        return floe_error(FLOE_ERR_TYPE, "HashJoin: key %d has type %s, which cannot be a join key", i,
                          floe_type_id_name(floe_hash_type_supported(l) ? b : a));
    if (floe_type_compatible(l, r) || b == FLOE_TYPE_NULL) {
        *out = floe_type_retain(l);
        return NULL;
    }
    if (a == FLOE_TYPE_NULL) {
        *out = floe_type_retain(r);
        return NULL;
    }
    bool an = is_int_type(a) || is_float_type(a) || a == FLOE_TYPE_DECIMAL128;
    bool bn = is_int_type(b) || is_float_type(b) || b == FLOE_TYPE_DECIMAL128;
    if (an && bn) {
        if (is_float_type(a) || is_float_type(b)) {
            *out = floe_type_primitive(FLOE_TYPE_FLOAT64);
            return NULL;
        }
        if (a == FLOE_TYPE_DECIMAL128 || b == FLOE_TYPE_DECIMAL128) {
            int32_t sa = a == FLOE_TYPE_DECIMAL128 ? l->scale : 0, sb = b == FLOE_TYPE_DECIMAL128 ? r->scale : 0;
            return floe_type_decimal(38, sa > sb ? sa : sb, out);
        }
        *out = floe_type_primitive(FLOE_TYPE_INT64);
        return NULL;
    }
    return floe_error(FLOE_ERR_TYPE, "HashJoin: key %d compares %s with %s", i, floe_type_id_name(a),
                      floe_type_id_name(b));
}

static __int128 pow10_128(int32_t n) {
    __int128 v = 1;
    for (int32_t i = 0; i < n; i++) v *= 10;
    return v;
}

/* `a` as type `to` (int64, float64 or decimal(38, s)), validity kept. */
static floe_status convert_key(const floe_array *a, const floe_type *to, floe_array **out) {
    int64_t n = a->length;
    if (a->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls((floe_type *)to, n, out);
    floe_buffer *vals = NULL, *valid = NULL;
    FLOE_TRY(floe_buffer_new(n * to->byte_width, &vals));
    floe_status st = NULL;
    if (a->validity && floe_array_null_count(a) > 0) {
        st = floe_buffer_new((n + 7) / 8, &valid);
        if (!st) floe_bitmap_copy(valid->data, 0, a->validity->data, a->offset, n);
    }
    floe_type_id from = a->type->id;
    if (!st && to->id == FLOE_TYPE_INT64) {
        int64_t *o = (int64_t *)vals->data;
        for (int64_t i = 0; i < n; i++) o[i] = from == FLOE_TYPE_INT32 ? floe_array_get_int32(a, i) : floe_array_get_int64(a, i);
    } else if (!st && to->id == FLOE_TYPE_FLOAT64) {
        double *o = (double *)vals->data;
        double scale = from == FLOE_TYPE_DECIMAL128 ? (double)pow10_128(a->type->scale) : 1.0;
        for (int64_t i = 0; i < n; i++) {
            switch (from) {
            case FLOE_TYPE_INT32: o[i] = floe_array_get_int32(a, i); break;
            case FLOE_TYPE_INT64: o[i] = (double)floe_array_get_int64(a, i); break;
            case FLOE_TYPE_FLOAT32: o[i] = floe_array_get_float(a, i); break;
            case FLOE_TYPE_DECIMAL128: {
                floe_decimal128 d = floe_array_get_decimal(a, i);
                o[i] = (double)(((__int128)d.hi << 64) | d.lo) / scale;
                break;
            }
            default: o[i] = floe_array_get_double(a, i); break;
            }
        }
    } else if (!st && to->id == FLOE_TYPE_DECIMAL128) {
        floe_decimal128 *o = (floe_decimal128 *)vals->data;
        int32_t from_scale = from == FLOE_TYPE_DECIMAL128 ? a->type->scale : 0;
        __int128 mul = pow10_128(to->scale - from_scale);
        for (int64_t i = 0; i < n && !st; i++) {
            __int128 v;
            if (from == FLOE_TYPE_INT32) v = floe_array_get_int32(a, i);
            else if (from == FLOE_TYPE_INT64) v = floe_array_get_int64(a, i);
            else {
                floe_decimal128 d = floe_array_get_decimal(a, i);
                v = ((__int128)d.hi << 64) | d.lo;
            }
            if (__builtin_mul_overflow(v, mul, &v)) {
                if (floe_array_is_valid(a, i))
                    st = floe_error(FLOE_ERR_UNSUPPORTED, "HashJoin: key value does not fit decimal(38, %d)", to->scale);
                v = 0;
            }
            o[i].lo = (uint64_t)v;
            o[i].hi = (int64_t)(v >> 64);
        }
    } else if (!st) {
        st = floe_error(FLOE_ERR_INTERNAL, "HashJoin: converting %s keys to %s", floe_type_id_name(from),
                        floe_type_id_name(to->id));
    }
    if (!st) st = floe_array_new((floe_type *)to, n, 0, FLOE_NULL_COUNT_UNKNOWN, valid, &vals, 1, NULL, 0, out);
    floe_buffer_release(vals);
    floe_buffer_release(valid);
    return st;
}

/* Evaluate one side's keys over `b` and convert them to the common types. */
static floe_status eval_keys(const hj_plan *p, bool left, const floe_batch *b, floe_array **out) {
    floe_expr *const *exprs = left ? p->lkeys : p->rkeys;
    const bool *conv = left ? p->lconv : p->rconv;
    for (int32_t i = 0; i < p->n_keys; i++) out[i] = NULL;
    floe_status st = NULL;
    for (int32_t i = 0; i < p->n_keys && !st; i++) {
        floe_array *a;
        st = floe_expr_eval(exprs[i], b, &a);
        if (st) {
            st = floe_status_wrap(st, "HashJoin %s key %d", left ? "left" : "right", i);
            break;
        }
        if (conv[i]) {
            st = convert_key(a, p->key_types[i], &out[i]);
            floe_array_release(a);
        } else {
            out[i] = a;
        }
    }
    if (st)
        for (int32_t i = 0; i < p->n_keys; i++) {
            floe_array_release(out[i]);
            out[i] = NULL;
        }
    return st;
}

/* ---------------------------------------------------------- hash table */

/* A build row's chain link and the high half of its hash, side by side
 * so a chain step costs one cache line. */
typedef struct hj_entry {
    uint32_t next; /* row + 1; 0 ends the chain */
    uint32_t tag;  /* hash >> 32 (the bucket uses the low bits) */
} hj_entry;

typedef struct hj_table {
    int32_t n_keys;
    floe_array **keys; /* build keys (common types) */
    hj_entry *ent;          /* per build row */
    uint32_t *heads;        /* bucket → first row + 1; 0: empty */
    uint64_t mask;
    uint32_t *null_rows; /* rows with a NULL key (left out of the chains) */
    int64_t n_null_rows;
} hj_table;

static void table_free(void *t_) {
    hj_table *t = t_;
    for (int32_t i = 0; t->keys && i < t->n_keys; i++) floe_array_release(t->keys[i]);
    floe_free(t->keys);
    floe_free(t->ent);
    floe_free(t->heads);
    floe_free(t->null_rows);
    floe_free(t);
}

static floe_status hj_finish(floe_join_build *b, const floe_plan *node) {
    const hj_plan *p = (const hj_plan *)node;
    hj_table *t = floe_calloc(1, sizeof *t);
    if (!t) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashJoin: hash table");
    b->table = t;
    b->free_table = table_free;
    int64_t n = b->rows;
    uint64_t cap = 16;
    while (cap < (uint64_t)n * 2) cap <<= 1;
    t->n_keys = p->n_keys;
    t->mask = cap - 1;
    t->keys = floe_calloc((size_t)p->n_keys, sizeof *t->keys);
    t->heads = floe_calloc((size_t)cap, sizeof *t->heads);
    t->ent = floe_malloc_array((size_t)(n ? n : 1), sizeof *t->ent);
    t->null_rows = floe_malloc_array((size_t)(n ? n : 1), sizeof *t->null_rows);
    if (!t->keys || !t->heads || !t->ent || !t->null_rows)
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashJoin: hash table for %lld rows", (long long)n);
    if (n == 0) return NULL;
    FLOE_TRY(eval_keys(p, true, b->batch, t->keys));
    uint64_t *hashes = floe_malloc_array((size_t)n, sizeof *hashes);
    if (!hashes) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashJoin: hashing %lld build rows", (long long)n);
    floe_status st = floe_hash_rows(t->keys, p->n_keys, n, hashes);
    if (st) {
        floe_free(hashes);
        return floe_status_wrap(st, "HashJoin build keys");
    }
    bool skip_nulls = !p->null_equals_null;
    /* Null-aware: rows whose NOT IN key (key 0) is NULL, the other
     * (correlation) keys not, may match any row of the other side. */
    if (p->null_aware)
        for (int64_t r = 0; r < n; r++)
            if (floe_array_is_null(t->keys[0], r) && !floe_row_has_null(t->keys + 1, p->n_keys - 1, r))
                t->null_rows[t->n_null_rows++] = (uint32_t)r;
    for (int64_t r = n - 1; r >= 0; r--) {
        if (skip_nulls && floe_row_has_null(t->keys, p->n_keys, r)) continue;
        uint64_t slot = hashes[r] & t->mask;
        t->ent[r].next = t->heads[slot];
        t->ent[r].tag = (uint32_t)(hashes[r] >> 32);
        t->heads[slot] = (uint32_t)r + 1;
    }
    floe_free(hashes);
    return NULL;
}

/* --------------------------------------------------------------- probe */

enum { PH_START = 0, PH_CHAIN, PH_SCAN };

typedef struct hj_stream {
    floe_stream base;
    const hj_plan *p;
    floe_exec_ctx ctx;
    int32_t partition;
    floe_join_shared *shared; /* NULL: private build */
    floe_join_build *build;
    const hj_table *t;
    bool built;
    floe_stream *probe;
    floe_join_chunker chunks;
    bool probe_done, emit_build, finished, failed;
    int64_t emit_pos;
    /* the current probe batch */
    floe_batch *pb;
    floe_array **pkeys;
    uint64_t *phash;
    uint32_t *first; /* per probe row: the head of its bucket's chain */
    uint8_t *pmatched;
    int64_t prow;
    int phase;
    uint32_t chain;
    int64_t scan;
    bool scan_all;
    /* candidate pairs */
    uint32_t *bidx, *pidx, *tmp;
    int64_t cap;
} hj_stream;

static void drop_probe_batch(hj_stream *s) {
    for (int32_t i = 0; s->pkeys && i < s->p->n_keys; i++) floe_array_release(s->pkeys[i]);
    floe_free(s->pkeys);
    s->pkeys = NULL;
    floe_free(s->phash);
    s->phash = NULL;
    floe_free(s->first);
    s->first = NULL;
    floe_free(s->pmatched);
    s->pmatched = NULL;
    floe_batch_release(s->pb);
    s->pb = NULL;
}

static floe_status start_probe_batch(hj_stream *s, floe_batch *b) {
    const hj_plan *p = s->p;
    int64_t n = b->num_rows;
    s->pb = b;
    s->prow = 0;
    s->phase = PH_START;
    s->pkeys = floe_calloc((size_t)p->n_keys, sizeof *s->pkeys);
    s->phash = floe_malloc_array((size_t)n, sizeof *s->phash);
    s->first = floe_malloc_array((size_t)n, sizeof *s->first);
    if (floe_join_tracks_right(p->type)) s->pmatched = floe_calloc((size_t)n, 1);
    if (!s->pkeys || !s->phash || !s->first || (floe_join_tracks_right(p->type) && !s->pmatched))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashJoin: probe batch of %lld rows", (long long)n);
    FLOE_TRY(eval_keys(p, false, b, s->pkeys));
    FLOE_TRY_CTX(floe_hash_rows(s->pkeys, p->n_keys, n, s->phash), "HashJoin probe keys");
    /* Bucket heads for the whole batch, prefetched ahead: the misses
     * overlap instead of stalling one probe row at a time. */
    const hj_table *t = s->t;
    for (int64_t i = 0; i < n; i++) {
        if (i + 16 < n) __builtin_prefetch(&t->heads[s->phash[i + 16] & t->mask]);
        s->first[i] = t->heads[s->phash[i] & t->mask];
    }
    if (p->null_aware && p->type == FLOE_JOIN_LEFT_ANTI) {
        atomic_store(&s->build->probe_any, true);
        for (int64_t i = 0; i < n; i++)
            if (floe_row_has_null(s->pkeys, p->n_keys, i)) {
                atomic_store(&s->build->probe_null_key, true);
                break;
            }
    }
    return NULL;
}

/* Fill bidx/pidx with up to s->cap candidate pairs of the probe batch. */
static int64_t gen_pairs(hj_stream *s) {
    const hj_plan *p = s->p;
    const hj_table *t = s->t;
    int64_t n = s->pb->num_rows, np = 0, cap = s->cap;
    bool first_only = !p->filter && (p->type == FLOE_JOIN_RIGHT_SEMI || p->type == FLOE_JOIN_RIGHT_ANTI);
    /* Null-aware pairs through NULL keys are formed unless the one-key,
     * no-filter rules decide without them (na_plain). */
    bool na_scan = p->null_aware && (p->filter || p->n_keys > 1);
    int32_t nrest = p->n_keys - 1;
    /* Chains hold no NULL keys unless null_equals_null, and a probe row
     * with a NULL key never walks one: int64-like keys compare directly. */
    floe_type_id kt = p->n_keys == 1 && !p->null_equals_null && s->build->rows > 0 ? t->keys[0]->type->id : FLOE_TYPE_NULL;
    bool fast64 = kt == FLOE_TYPE_INT64 || kt == FLOE_TYPE_TIMESTAMP_US || kt == FLOE_TYPE_TIMESTAMP_US_TZ ||
                  kt == FLOE_TYPE_TIMESTAMP_NS || kt == FLOE_TYPE_TIMESTAMP_NS_TZ || kt == FLOE_TYPE_TIME64_US;
    const int64_t *bv64 = fast64 ? floe_array_values(t->keys[0]) : NULL;
    while (np < cap && s->prow < n) {
        int64_t i = s->prow;
        if (s->phase == PH_START) {
            if (!p->null_equals_null && floe_row_has_null(s->pkeys, p->n_keys, i)) {
                /* NULL in the NOT IN key only: a candidate against every
                 * build row with equal correlation keys. */
                if (!na_scan || floe_row_has_null(s->pkeys + 1, nrest, i)) {
                    s->prow++;
                    continue;
                }
                s->phase = PH_SCAN;
                s->scan = 0;
                s->scan_all = true;
            } else {
                s->chain = s->first[i];
                s->phase = PH_CHAIN;
                if (i + 8 < n && s->first[i + 8]) __builtin_prefetch(&t->ent[s->first[i + 8] - 1]);
            }
        }
        if (s->phase == PH_CHAIN) {
            uint32_t tag = (uint32_t)(s->phash[i] >> 32);
            if (fast64) {
                /* One non-null 8-byte integer key: compare values inline. */
                int64_t pv = ((const int64_t *)floe_array_values(s->pkeys[0]))[i];
                while (s->chain && np < cap) {
                    uint32_t r = s->chain - 1;
                    s->chain = t->ent[r].next;
                    if (t->ent[r].tag == tag && bv64[r] == pv) {
                        s->bidx[np] = r;
                        s->pidx[np] = (uint32_t)i;
                        np++;
                        if (first_only) s->chain = 0;
                    }
                }
            }
            while (s->chain && np < cap) {
                uint32_t r = s->chain - 1;
                s->chain = t->ent[r].next;
                if (t->ent[r].tag == tag && floe_rows_equal(t->keys, r, s->pkeys, i, p->n_keys, p->null_equals_null)) {
                    s->bidx[np] = r;
                    s->pidx[np] = (uint32_t)i;
                    np++;
                    if (first_only) s->chain = 0;
                }
            }
            if (s->chain) break; /* full; resume this chain next time */
            if (na_scan && t->n_null_rows > 0) {
                s->phase = PH_SCAN;
                s->scan = 0;
                s->scan_all = false;
            } else {
                s->phase = PH_START;
                s->prow++;
                continue;
            }
        }
        if (s->phase == PH_SCAN) {
            int64_t limit = s->scan_all ? s->build->rows : t->n_null_rows;
            while (s->scan < limit && np < cap) {
                uint32_t r = s->scan_all ? (uint32_t)s->scan : t->null_rows[s->scan];
                s->scan++;
                if (nrest > 0 && !floe_rows_equal(t->keys + 1, r, s->pkeys + 1, i, nrest, false)) continue;
                s->bidx[np] = r;
                s->pidx[np] = (uint32_t)i;
                np++;
            }
            if (s->scan < limit) break;
            s->phase = PH_START;
            s->prow++;
        }
    }
    return np;
}

/* Filter and record np candidate pairs; *out gets the pair rows when the
 * join type outputs pairs. */
static floe_status process_pairs(hj_stream *s, int64_t np, floe_batch **out) {
    return floe_join_process_pairs(&s->p->head, s->p->type, s->p->filter, s->p->pair_schema, "HashJoin filter", s->build,
                                   s->pb, s->bidx, s->pidx, s->pmatched, &np, out);
}

/* After the whole probe batch: its unmatched (or matched) rows. */
static floe_status finish_probe_batch(hj_stream *s, floe_batch **out) {
    const hj_plan *p = s->p;
    if (!floe_join_tracks_right(p->type)) return NULL;
    const floe_plan *l = p->head.children[0], *r = p->head.children[1];
    int64_t n = s->pb->num_rows, k = 0;
    bool want = p->type == FLOE_JOIN_RIGHT_SEMI;
    bool na_plain = p->null_aware && !p->filter && p->n_keys == 1 && p->type == FLOE_JOIN_RIGHT_ANTI;
    const hj_table *t = s->t;
    if (na_plain && t->n_null_rows > 0) return NULL; /* a NULL in the subquery: nothing */
    uint32_t *rows = s->tmp;
    for (int64_t i = 0; i < n; i++) {
        if ((s->pmatched[i] != 0) != want) continue;
        if (na_plain && s->build->rows > 0 && floe_row_has_null(s->pkeys, p->n_keys, i)) continue;
        rows[k++] = (uint32_t)i;
    }
    if (k == 0) return NULL;
    bool with_left = p->type == FLOE_JOIN_RIGHT || p->type == FLOE_JOIN_FULL;
    return floe_join_gather(p->head.schema, l->schema, NULL, NULL, with_left, r->schema, s->pb, rows, true, k, out);
}

/* The last probe partition: build rows by their matched flags. */
static floe_status emit_build_rows(hj_stream *s, floe_batch **out) {
    const hj_plan *p = s->p;
    const floe_plan *l = p->head.children[0], *r = p->head.children[1];
    floe_join_build *b = s->build;
    const hj_table *t = s->t;
    bool want = p->type == FLOE_JOIN_LEFT_SEMI;
    bool na_plain = p->null_aware && !p->filter && p->n_keys == 1 && p->type == FLOE_JOIN_LEFT_ANTI;
    if (na_plain && atomic_load(&b->probe_null_key)) {
        s->emit_pos = b->rows;
        return NULL;
    }
    bool probe_any = atomic_load(&b->probe_any);
    int64_t k = 0;
    while (s->emit_pos < b->rows && k < s->cap) {
        int64_t i = s->emit_pos++;
        if ((atomic_load_explicit(&b->matched[i], memory_order_relaxed) != 0) != want) continue;
        if (na_plain && probe_any && floe_row_has_null(t->keys, p->n_keys, i)) continue;
        s->tmp[k++] = (uint32_t)i;
    }
    if (k == 0) return NULL;
    bool with_right = p->type == FLOE_JOIN_LEFT || p->type == FLOE_JOIN_FULL;
    return floe_join_gather(p->head.schema, l->schema, b->batch, s->tmp, true, r->schema, NULL, NULL, with_right,
                            k, out);
}

/* True when the build side alone decides that this partition outputs
 * nothing, so the probe side need not be read. */
static bool nothing_to_probe(const hj_stream *s) {
    const hj_plan *p = s->p;
    if (s->build->rows == 0)
        return p->type == FLOE_JOIN_INNER || p->type == FLOE_JOIN_LEFT || p->type == FLOE_JOIN_LEFT_SEMI ||
               p->type == FLOE_JOIN_LEFT_ANTI || p->type == FLOE_JOIN_RIGHT_SEMI;
    return p->null_aware && !p->filter && p->n_keys == 1 && p->type == FLOE_JOIN_RIGHT_ANTI &&
           s->t->n_null_rows > 0;
}

static floe_status hj_next_inner(hj_stream *s, floe_batch **out) {
    const hj_plan *p = s->p;
    if (!s->built) {
        bool track = floe_join_tracks_left(p->type);
        FLOE_TRY(floe_join_build_wait(s->build, &p->head, &s->ctx, track, hj_finish));
        s->t = s->build->table;
        s->built = true;
        s->cap = s->ctx.batch_size > 0 ? s->ctx.batch_size : 8192;
        s->bidx = floe_malloc_array((size_t)s->cap, sizeof *s->bidx);
        s->pidx = floe_malloc_array((size_t)s->cap, sizeof *s->pidx);
        s->tmp = floe_malloc_array((size_t)s->cap, sizeof *s->tmp);
        if (!s->bidx || !s->pidx || !s->tmp) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashJoin: pair buffers");
        if (nothing_to_probe(s)) {
            s->probe_done = true;
        } else {
            int32_t part = s->partition;
            FLOE_TRY(floe_plan_execute(p->head.children[1], part, &s->ctx, &s->probe));
        }
    }
    while (!s->probe_done) {
        FLOE_TRY(floe_cancel_check(s->ctx.cancel, "HashJoin"));
        if (!s->pb) {
            floe_batch *b;
            FLOE_TRY(floe_join_next_chunk(s->probe, &s->chunks, s->cap, &b));
            if (!b) {
                s->probe_done = true;
                if (floe_join_tracks_left(p->type) && s->build->rows > 0)
                    s->emit_build = atomic_fetch_add(&s->build->probes_done, 1) + 1 == s->build->n_probes;
                break;
            }
            FLOE_TRY(start_probe_batch(s, b));
        }
        if (s->prow < s->pb->num_rows) {
            int64_t np = gen_pairs(s);
            if (np > 0) FLOE_TRY(process_pairs(s, np, out));
            if (*out) return NULL;
            continue;
        }
        floe_status st = finish_probe_batch(s, out);
        drop_probe_batch(s);
        if (st || *out) return st;
    }
    while (s->emit_build && s->emit_pos < s->build->rows) {
        FLOE_TRY(floe_cancel_check(s->ctx.cancel, "HashJoin"));
        FLOE_TRY(emit_build_rows(s, out));
        if (*out) return NULL;
    }
    s->finished = true;
    return NULL;
}

static floe_status hj_next(floe_stream *s_, floe_batch **out) {
    hj_stream *s = (hj_stream *)s_;
    *out = NULL;
    if (s->failed) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashJoin: stream already failed");
    if (s->finished) return NULL;
    floe_status st = hj_next_inner(s, out);
    if (st) s->failed = true;
    return st;
}

static void hj_close(floe_stream *s_) {
    hj_stream *s = (hj_stream *)s_;
    drop_probe_batch(s);
    floe_join_chunker_clear(&s->chunks);
    floe_stream_close(s->probe);
    floe_join_build_release(s->shared, s->build);
    floe_free(s->bidx);
    floe_free(s->pidx);
    floe_free(s->tmp);
    floe_free(s);
}

/* COLLECT_LEFT: the build every probe partition of an execution shares. */
static floe_status hj_init_shared(const floe_plan *p, const floe_exec_ctx *ctx, void **state) {
    (void)ctx;
    floe_join_shared *sh;
    FLOE_TRY(floe_join_shared_new(p->n_partitions, p->children[0]->n_partitions, &sh));
    *state = sh;
    return NULL;
}

static floe_status hj_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx, floe_stream **out) {
    const hj_plan *p = (const hj_plan *)p_;
    void *shared = NULL;
    if (p->mode == FLOE_JOIN_COLLECT_LEFT) FLOE_TRY(floe_exec_shared(p_, ctx, &shared));
    hj_stream *s = floe_calloc(1, sizeof *s);
    if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "opening a HashJoin stream");
    s->base.next = hj_next;
    s->base.close = hj_close;
    s->p = p;
    s->ctx = *ctx;
    s->partition = partition;
    s->shared = shared;
    floe_status st = shared ? floe_join_build_acquire(s->shared, partition, &s->build)
                            : floe_join_build_private(partition, 1, &s->build);
    if (st) {
        floe_free(s);
        return st;
    }
    *out = &s->base;
    return NULL;
}

/* ------------------------------------------------------------------ node */

static floe_status hj_encode(const floe_plan *p_, floe_buf *out) {
    const hj_plan *p = (const hj_plan *)p_;
    FLOE_TRY(floe_codec_put_i64(out, p->type));
    FLOE_TRY(floe_codec_put_i64(out, p->mode));
    FLOE_TRY(floe_codec_put_i64(out, p->n_keys));
    for (int32_t i = 0; i < p->n_keys; i++) {
        FLOE_TRY(floe_codec_put_expr(out, p->lkeys[i]));
        FLOE_TRY(floe_codec_put_expr(out, p->rkeys[i]));
    }
    FLOE_TRY(floe_codec_put_i64(out, p->filter ? 1 : 0));
    if (p->filter) FLOE_TRY(floe_codec_put_expr(out, p->filter));
    return floe_codec_put_i64(out, (p->null_equals_null ? 1 : 0) | (p->null_aware ? 2 : 0));
}

static floe_status hj_decode(floe_reader *r, floe_plan *const *children, int32_t n_children, floe_plan **out) {
    int64_t type, mode, n, has_filter = 0, flags = 0;
    if (n_children != 2) return floe_error(FLOE_ERR_CORRUPT, "HashJoin with %d children", n_children);
    FLOE_TRY(floe_codec_get_i64(r, &type));
    FLOE_TRY(floe_codec_get_i64(r, &mode));
    FLOE_TRY(floe_codec_get_i64(r, &n));
    floe_join_type jt;
    FLOE_TRY(floe_join_type_from_i64(type, &jt));
    if (mode != FLOE_JOIN_COLLECT_LEFT && mode != FLOE_JOIN_PARTITIONED)
        return floe_error(FLOE_ERR_CORRUPT, "HashJoin: join mode %lld is unknown", (long long)mode);
    if (n < 1 || n > (int64_t)(r->len - r->pos))
        return floe_error(FLOE_ERR_CORRUPT, "HashJoin: key count %lld is impossible", (long long)n);
    floe_expr **lk = floe_calloc((size_t)n, sizeof *lk), **rk = floe_calloc((size_t)n, sizeof *rk);
    floe_expr *filter = NULL;
    floe_status st = lk && rk ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "decoding HashJoin");
    for (int64_t i = 0; i < n && !st; i++) {
        st = floe_codec_get_expr(r, &lk[i]);
        if (!st) st = floe_codec_get_expr(r, &rk[i]);
    }
    if (!st) st = floe_codec_get_i64(r, &has_filter);
    if (!st && has_filter) st = floe_codec_get_expr(r, &filter);
    if (!st) st = floe_codec_get_i64(r, &flags);
    if (!st && (flags & ~INT64_C(3))) st = floe_error(FLOE_ERR_CORRUPT, "HashJoin: flags %lld", (long long)flags);
    if (!st)
        st = floe_plan_hash_join(children[0], children[1], jt, (floe_join_mode)mode, lk, rk, (int32_t)n, filter,
                                 flags & 1, (flags & 2) != 0, out);
    for (int64_t i = 0; i < n; i++) {
        if (lk) floe_expr_release(lk[i]);
        if (rk) floe_expr_release(rk[i]);
    }
    floe_free(lk);
    floe_free(rk);
    floe_expr_release(filter);
    return st;
}

/* A copy of `e` with every column index moved by `by` (EXPLAIN shows the
 * right keys as columns of the joined row). */
static floe_status shift_columns(const floe_expr *e, int32_t by, floe_expr **out) {
    floe_expr *argv[8];
    floe_expr **args = e->n_args <= 8 ? argv : floe_calloc((size_t)e->n_args, sizeof *args);
    if (!args) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "explaining a join");
    int32_t got = 0;
    floe_status st = NULL;
    for (; got < e->n_args && !st; got++) st = shift_columns(e->args[got], by, &args[got]);
    if (st) got--;
    if (!st)
        st = floe_expr_make(e->kind, e->op, e->kind == FLOE_EXPR_COLUMN ? e->column + by : e->column, e->literal,
                            e->cast_type, e->func, args, e->n_args, out);
    for (int32_t i = 0; i < got; i++) floe_expr_release(args[i]);
    if (args != argv) floe_free(args);
    return st;
}

static floe_status hj_explain(const floe_plan *p_, floe_buf *out) {
    const hj_plan *p = (const hj_plan *)p_;
    FLOE_TRY(floe_buf_printf(out, "type=%s, mode=%s, on=[", floe_join_type_name(p->type),
                             p->mode == FLOE_JOIN_COLLECT_LEFT ? "CollectLeft" : "Partitioned"));
    int32_t nl = floe_schema_num_fields(p->head.children[0]->schema);
    for (int32_t i = 0; i < p->n_keys; i++) {
        floe_expr *rk;
        FLOE_TRY(floe_buf_append_str(out, i ? ", (" : "("));
        FLOE_TRY(floe_expr_to_string(p->lkeys[i], out));
        FLOE_TRY(floe_buf_append_str(out, " = "));
        FLOE_TRY(shift_columns(p->rkeys[i], nl, &rk));
        floe_status st = floe_expr_to_string(rk, out);
        floe_expr_release(rk);
        FLOE_TRY(st);
        FLOE_TRY(floe_buf_append_str(out, ")"));
    }
    FLOE_TRY(floe_buf_append_str(out, "]"));
    if (p->filter) {
        FLOE_TRY(floe_buf_append_str(out, ", filter="));
        FLOE_TRY(floe_expr_to_string(p->filter, out));
    }
    if (p->null_equals_null) FLOE_TRY(floe_buf_append_str(out, ", null_equals_null"));
    if (p->null_aware) FLOE_TRY(floe_buf_append_str(out, ", null_aware"));
    return NULL;
}

static floe_distribution hj_required_input(const floe_plan *p_, int32_t child) {
    const hj_plan *p = (const hj_plan *)p_;
    floe_distribution d = {FLOE_DIST_UNSPECIFIED, 0, NULL};
    if (p->mode == FLOE_JOIN_PARTITIONED) {
        d.kind = FLOE_DIST_HASH;
        d.n_exprs = p->n_keys;
        d.exprs = child == 0 ? p->lkeys : p->rkeys;
    }
    return d;
}

static void hj_free(floe_plan *p_) {
    hj_plan *p = (hj_plan *)p_;
    for (int32_t i = 0; i < p->n_keys; i++) {
        if (p->lkeys) floe_expr_release(p->lkeys[i]);
        if (p->rkeys) floe_expr_release(p->rkeys[i]);
        if (p->key_types) floe_type_release(p->key_types[i]);
    }
    floe_free(p->lkeys);
    floe_free(p->rkeys);
    floe_free(p->key_types);
    floe_free(p->lconv);
    floe_free(p->rconv);
    floe_expr_release(p->filter);
    floe_type_release(p->pair_schema);
}

/* A collected build side is read whole by every probe partition; when
 * the last probe partition emits the build rows nobody matched, the probe
 * partitions share that bookkeeping and must run in one process. */
static floe_child_read hj_child_read(const floe_plan *p_, int32_t child, floe_distribution *route) {
    (void)route;
    const hj_plan *p = (const hj_plan *)p_;
    if (p->mode != FLOE_JOIN_COLLECT_LEFT || child == 1) return FLOE_READ_LOCAL;
    return floe_join_tracks_left(p->type) && p->head.n_partitions > 1 ? FLOE_READ_SHARED : FLOE_READ_BROADCAST;
}

const floe_plan_vtable floe_hash_join_vt = {
    .name = "HashJoin",
    .execute = hj_execute,
    .encode_parts = hj_encode,
    .decode_parts = hj_decode,
    .explain_parts = hj_explain,
    .required_input = hj_required_input,
    .free_parts = hj_free,
    .init_shared = hj_init_shared,
    .free_shared = floe_join_shared_free,
    .child_read = hj_child_read,
};

/* Type the keys pairwise and record the conversions. */
static floe_status check_keys(hj_plan *p, const floe_plan *left, const floe_plan *right) {
    for (int32_t i = 0; i < p->n_keys; i++) {
        floe_type *lt = NULL, *rt = NULL, *ct = NULL;
        floe_status st = floe_expr_type(p->lkeys[i], left->schema, &lt);
        if (st) return floe_status_wrap(st, "HashJoin left key %d", i);
        st = floe_expr_type(p->rkeys[i], right->schema, &rt);
        if (st) st = floe_status_wrap_op(st, "HashJoin right key %d", i);
        if (!st) st = common_key_type(lt, rt, i, &ct);
        if (!st) {
            p->key_types[i] = ct;
            p->lconv[i] = !floe_type_compatible(lt, ct);
            p->rconv[i] = !floe_type_compatible(rt, ct);
        }
        floe_type_release(lt);
        floe_type_release(rt);
        if (st) return st;
    }
    return NULL;
}

floe_status floe_plan_hash_join(floe_plan *left, floe_plan *right, floe_join_type type, floe_join_mode mode,
                                floe_expr *const *left_keys, floe_expr *const *right_keys, int32_t n_keys,
                                floe_expr *filter, bool null_equals_null, bool null_aware, floe_plan **out) {
    *out = NULL;
    if ((unsigned)type >= FLOE_JOIN_TYPE_COUNT_)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashJoin: join type %d is unknown", (int)type);
    if (mode != FLOE_JOIN_COLLECT_LEFT && mode != FLOE_JOIN_PARTITIONED)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashJoin: join mode %d is unknown", (int)mode);
    if (n_keys < 1) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashJoin needs at least one key pair");
    if (mode == FLOE_JOIN_PARTITIONED && left->n_partitions != right->n_partitions)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashJoin (partitioned): left has %d partitions, right %d",
                          left->n_partitions, right->n_partitions);
    if (null_aware) {
        if (type != FLOE_JOIN_LEFT_ANTI && type != FLOE_JOIN_RIGHT_ANTI)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashJoin: null_aware needs an anti join, not %s",
                              floe_join_type_name(type));
        if (mode != FLOE_JOIN_COLLECT_LEFT)
            return floe_error(FLOE_ERR_UNSUPPORTED, "HashJoin: null_aware needs mode CollectLeft");
        if (null_equals_null)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "HashJoin: null_aware and null_equals_null exclude each other");
    }
    hj_plan *p = floe_calloc(1, sizeof *p);
    if (!p) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashJoin node");
    p->type = type;
    p->mode = mode;
    p->null_equals_null = null_equals_null;
    p->null_aware = null_aware;
    floe_schema *schema = NULL;
    floe_plan *children[2] = {left, right};
    floe_status st = floe_join_output_schema(left->schema, right->schema, type, &schema);
    if (st) {
        floe_free(p);
        return st;
    }
    st = floe_exec_plan_init(&p->head, &floe_hash_join_vt, schema, right->n_partitions, children, 2);
    floe_type_release(schema);
    if (!st) st = floe_join_output_schema(left->schema, right->schema, FLOE_JOIN_INNER, &p->pair_schema);
    if (!st) {
        p->lkeys = floe_calloc((size_t)n_keys, sizeof *p->lkeys);
        p->rkeys = floe_calloc((size_t)n_keys, sizeof *p->rkeys);
        p->key_types = floe_calloc((size_t)n_keys, sizeof *p->key_types);
        p->lconv = floe_calloc((size_t)n_keys, sizeof *p->lconv);
        p->rconv = floe_calloc((size_t)n_keys, sizeof *p->rconv);
        if (!p->lkeys || !p->rkeys || !p->key_types || !p->lconv || !p->rconv)
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "allocating a HashJoin node");
    }
    if (!st) {
        p->n_keys = n_keys;
        for (int32_t i = 0; i < n_keys; i++) {
            p->lkeys[i] = floe_expr_retain(left_keys[i]);
            p->rkeys[i] = floe_expr_retain(right_keys[i]);
        }
        st = check_keys(p, left, right);
    }
    if (!st && filter) {
        floe_type *ft;
        st = floe_expr_type(filter, p->pair_schema, &ft);
        if (st) st = floe_status_wrap(st, "HashJoin filter");
        else {
            if (ft->id != FLOE_TYPE_BOOL && ft->id != FLOE_TYPE_NULL)
                st = floe_error(FLOE_ERR_TYPE, "HashJoin filter must be bool, not %s", floe_type_id_name(ft->id));
            floe_type_release(ft);
        }
        if (!st) p->filter = floe_expr_retain(filter);
    }
    if (st) {
        floe_plan_release(&p->head);
        return st;
    }
    *out = &p->head;
    return NULL;
}

floe_join_type floe_hash_join_type(const floe_plan *p) { return ((const hj_plan *)p)->type; }
floe_join_mode floe_hash_join_mode(const floe_plan *p) { return ((const hj_plan *)p)->mode; }
int32_t floe_hash_join_num_keys(const floe_plan *p) { return ((const hj_plan *)p)->n_keys; }
const floe_expr *floe_hash_join_left_key(const floe_plan *p, int32_t i) { return ((const hj_plan *)p)->lkeys[i]; }
const floe_expr *floe_hash_join_right_key(const floe_plan *p, int32_t i) { return ((const hj_plan *)p)->rkeys[i]; }
const floe_expr *floe_hash_join_filter(const floe_plan *p) { return ((const hj_plan *)p)->filter; }
bool floe_hash_join_null_equals_null(const floe_plan *p) { return ((const hj_plan *)p)->null_equals_null; }
bool floe_hash_join_null_aware(const floe_plan *p) { return ((const hj_plan *)p)->null_aware; }
