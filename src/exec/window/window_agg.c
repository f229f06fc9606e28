/*
 * window_agg.c — window aggregates (count, sum, avg, min, max, bool_and,
 * bool_or over each row's frame) and the value gather the Window node's
 * functions share.
 *
 * Each aggregate is a row of `k_ops`: init (empty state), add (one input
 * row), combine (merge two states, in row order) and result (append the
 * final value).  States of one fixed layout (wst) make any aggregate fit
 * one segment tree over the sorted rows: leaves are single rows, inner
 * nodes their children combined, and a frame — up to three ranges after
 * EXCLUDE — is O(log n) combines.  Running, sliding and whole-partition
 * frames all cost O(n log n) per partition, never O(n * frame).  The table
 * has the shape of an aggregate registry's entries, so it can later be
 * served by one.
 *
 * Results match the HashAggregate node (hash_agg.c): integer sums in 128
 * bits, an error when the result leaves int64; decimal sums at the
 * argument's scale in decimal(38); avg as float64 (sum / 10^scale / n);
 * min / max of any orderable type by sort_keys.h order.
 */
#include <math.h>
#include <string.h>

#include "exec/sort/sort_keys.h"
#include "exec/window/window_internal.h"
#include "floe/memory.h"

typedef struct wst {
    __int128 isum; /* integer / decimal sums; bool_*: TRUE values */
    double fsum;   /* float sums */
    int64_t cnt;   /* non-NULL values (rows for count(*)) */
    int64_t best;  /* min / max: the row of the best value, -1: none */
} wst;

typedef struct wagg_in {
    const floe_array *arg; /* NULL for count(*) */
    const floe_type *type; /* result type */
    int32_t scale;         /* decimal argument scale */
    bool is_min;
    const char *name;
} wagg_in;

typedef struct wagg_ops {
    void (*init)(wst *s);
    void (*add)(const wagg_in *in, wst *s, int64_t row);
    void (*combine)(const wagg_in *in, wst *dst, const wst *src);
    floe_status (*result)(const wagg_in *in, const wst *s, floe_builder *b, int64_t *pick);
} wagg_ops;

static __int128 load_i128(const floe_array *a, int64_t i) {
    floe_decimal128 d = floe_array_get_decimal(a, i);
    return (__int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
}

static void st_init(wst *s) {
    memset(s, 0, sizeof *s);
    s->best = -1;
}

/* count(*), count(x) */
static void count_add(const wagg_in *in, wst *s, int64_t row) {
    if (!in->arg || !floe_array_is_null(in->arg, row)) s->cnt++;
}
static void count_combine(const wagg_in *in, wst *d, const wst *s) {
    (void)in;
    d->cnt += s->cnt;
}
static floe_status count_result(const wagg_in *in, const wst *s, floe_builder *b, int64_t *pick) {
    (void)in, (void)pick;
    return floe_builder_append_int64(b, s->cnt);
}

/* sum / avg: integers and decimals in 128 bits, floats in double */
static void sum_add(const wagg_in *in, wst *s, int64_t row) {
    const floe_array *a = in->arg;
    if (floe_array_is_null(a, row)) return;
    s->cnt++;
    switch (a->type->id) {
    case FLOE_TYPE_INT32: s->isum += floe_array_get_int32(a, row); break;
    case FLOE_TYPE_INT64: s->isum += floe_array_get_int64(a, row); break;
    case FLOE_TYPE_DECIMAL128: s->isum += load_i128(a, row); break;
    case FLOE_TYPE_FLOAT32: s->fsum += floe_array_get_float(a, row); break;
    case FLOE_TYPE_FLOAT64: s->fsum += floe_array_get_double(a, row); break;
    default: break;
    }
}
static void sum_combine(const wagg_in *in, wst *d, const wst *s) {
    (void)in;
    d->cnt += s->cnt;
    d->isum += s->isum;
    d->fsum += s->fsum;
}
static floe_status sum_result(const wagg_in *in, const wst *s, floe_builder *b, int64_t *pick) {
    (void)pick;
    if (s->cnt == 0) return floe_builder_append_null(b);
    switch (in->type->id) {
    case FLOE_TYPE_INT64:
        if (s->isum > INT64_MAX || s->isum < INT64_MIN)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "window aggregate %s: the sum does not fit int64", in->name);
        return floe_builder_append_int64(b, (int64_t)s->isum);
    case FLOE_TYPE_DECIMAL128: {
        const __int128 lim = (__int128)10000000000000000000ULL * (__int128)10000000000000000000ULL; /* 10^38 */
        if (s->isum >= lim || s->isum <= -lim)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "window aggregate %s: the sum does not fit decimal(38)", in->name);
        floe_decimal128 d = {(uint64_t)(unsigned __int128)s->isum, (int64_t)(s->isum >> 64)};
        return floe_builder_append_decimal(b, d);
    }
    default: return floe_builder_append_double(b, s->fsum);
    }
}
static floe_status avg_result(const wagg_in *in, const wst *s, floe_builder *b, int64_t *pick) {
    (void)pick;
    if (s->cnt == 0) return floe_builder_append_null(b);
    floe_type_id id = in->arg->type->id;
    if (id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64) return floe_builder_append_double(b, s->fsum / (double)s->cnt);
    return floe_builder_append_double(b, (double)s->isum / pow(10.0, in->scale) / (double)s->cnt);
}

/* min / max: the row of the best value */
static const floe_sort_key k_asc = {NULL, false, false};
static bool better(const wagg_in *in, int64_t x, int64_t y) {
    int c = floe_sk_compare_one(&k_asc, in->arg, x, in->arg, y);
    return in->is_min ? c < 0 : c > 0;
}
static void minmax_add(const wagg_in *in, wst *s, int64_t row) {
    if (floe_array_is_null(in->arg, row)) return;
    if (s->best < 0 || better(in, row, s->best)) s->best = row;
}
static void minmax_combine(const wagg_in *in, wst *d, const wst *s) {
    if (s->best >= 0 && (d->best < 0 || better(in, s->best, d->best))) d->best = s->best;
}
static floe_status minmax_result(const wagg_in *in, const wst *s, floe_builder *b, int64_t *pick) {
    (void)in, (void)b;
    *pick = s->best;
    return NULL;
}

/* bool_and / bool_or */
static void bool_add(const wagg_in *in, wst *s, int64_t row) {
    if (floe_array_is_null(in->arg, row)) return;
    s->cnt++;
    if (floe_array_get_bool(in->arg, row)) s->isum++;
}
static floe_status bool_and_result(const wagg_in *in, const wst *s, floe_builder *b, int64_t *pick) {
    (void)in, (void)pick;
    if (s->cnt == 0) return floe_builder_append_null(b);
    return floe_builder_append_bool(b, s->isum == s->cnt);
}
static floe_status bool_or_result(const wagg_in *in, const wst *s, floe_builder *b, int64_t *pick) {
    (void)in, (void)pick;
    if (s->cnt == 0) return floe_builder_append_null(b);
    return floe_builder_append_bool(b, s->isum > 0);
}

/* One entry per floe_agg_fn, in enum order. */
static const wagg_ops k_ops[FLOE_AGG_FN_COUNT_] = {
    [FLOE_AGG_COUNT_STAR] = {st_init, count_add, count_combine, count_result},
    [FLOE_AGG_COUNT] = {st_init, count_add, count_combine, count_result},
    [FLOE_AGG_SUM] = {st_init, sum_add, sum_combine, sum_result},
    [FLOE_AGG_MIN] = {st_init, minmax_add, minmax_combine, minmax_result},
    [FLOE_AGG_MAX] = {st_init, minmax_add, minmax_combine, minmax_result},
    [FLOE_AGG_AVG] = {st_init, sum_add, sum_combine, avg_result},
    [FLOE_AGG_BOOL_AND] = {st_init, bool_add, sum_combine, bool_and_result},
    [FLOE_AGG_BOOL_OR] = {st_init, bool_add, sum_combine, bool_or_result},
};

floe_status floe_win_aggregate(floe_agg_fn fn, const floe_array *arg, const floe_type *type, int64_t n,
                               const win_range *ranges, const uint8_t *nr, floe_array **out) {
    *out = NULL;
    if ((unsigned)fn >= FLOE_AGG_FN_COUNT_ || !k_ops[fn].init)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "window aggregate %d", (int)fn);
    const wagg_ops *ops = &k_ops[fn];
    wagg_in in = {arg, type, arg && arg->type->id == FLOE_TYPE_DECIMAL128 ? arg->type->scale : 0, fn == FLOE_AGG_MIN,
                  floe_agg_fn_name(fn)};
    bool minmax = fn == FLOE_AGG_MIN || fn == FLOE_AGG_MAX;
    if (arg && arg->type->id == FLOE_TYPE_NULL) {
        /* An untyped NULL argument: every value is NULL. */
        if (fn == FLOE_AGG_COUNT) in.arg = arg;
        else return floe_array_new_nulls((floe_type *)type, n, out);
    }
    /* The tree: node k covers leaves of its subtree; leaf i is tree[n + i]. */
    wst *tree = floe_malloc_array((size_t)(2 * n + 1), sizeof *tree);
    int64_t *pick = minmax ? floe_malloc_array((size_t)(n ? n : 1), sizeof *pick) : NULL;
    floe_builder *b = NULL;
    floe_status st = NULL;
    if (!tree || (minmax && !pick)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "window aggregate over %lld rows", (long long)n);
    if (!st && !minmax) st = floe_builder_new((floe_type *)type, n, &b);
    if (st) goto done;
    for (int64_t i = 0; i < n; i++) {
        ops->init(&tree[n + i]);
        ops->add(&in, &tree[n + i], i);
    }
    for (int64_t k = n - 1; k >= 1; k--) {
        tree[k] = tree[2 * k];
        ops->combine(&in, &tree[k], &tree[2 * k + 1]);
    }
    for (int64_t i = 0; i < n && !st; i++) {
        wst acc;
        ops->init(&acc);
        for (int j = 0; j < nr[i]; j++) {
            /* [lo, hi) in order: left pieces into acc, right pieces kept
             * aside and combined after (order matters for float sums). */
            int64_t lo = ranges[i * 3 + j].lo + n, hi = ranges[i * 3 + j].hi + n;
            wst right;
            ops->init(&right);
            while (lo < hi) {
                if (lo & 1) ops->combine(&in, &acc, &tree[lo++]);
                if (hi & 1) {
                    wst t = tree[--hi];
                    ops->combine(&in, &t, &right);
                    right = t;
                }
                lo >>= 1;
                hi >>= 1;
            }
            ops->combine(&in, &acc, &right);
        }
        int64_t pk = -1;
        st = ops->result(&in, &acc, b, &pk);
        if (minmax) pick[i] = pk;
    }
    if (!st && minmax) st = floe_win_gather(arg, NULL, pick, n, out);
    else if (!st) st = floe_builder_finish(b, out);
done:
    floe_builder_free(b);
    floe_free(tree);
    floe_free(pick);
    return st;
}

floe_status floe_win_gather(const floe_array *src, const floe_array *alt, const int64_t *idx, int64_t n,
                            floe_array **out) {
    *out = NULL;
    int64_t len = src->length, alen = alt ? alt->length : 0;
    floe_array *nul = NULL, *all = NULL;
    uint32_t *ix = floe_malloc_array((size_t)(n ? n : 1), sizeof *ix);
    if (!ix) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "Window: gathering %lld values", (long long)n);
    if (len + alen + 1 > (int64_t)UINT32_MAX) {
        floe_free(ix);
        return floe_error(FLOE_ERR_UNSUPPORTED, "Window: more than %u rows in one partition", UINT32_MAX);
    }
    /* Sources: src, then alt, then one NULL. */
    floe_status st = floe_array_new_nulls(src->type, 1, &nul);
    if (!st) {
        floe_array *parts[3] = {(floe_array *)src, alt ? (floe_array *)alt : nul, nul};
        st = floe_array_concat(parts, alt ? 3 : 2, &all);
    }
    for (int64_t i = 0; !st && i < n; i++) ix[i] = (uint32_t)(idx[i] < 0 ? len + alen : idx[i]);
    if (!st) st = floe_array_take(all, ix, n, out);
    floe_array_release(nul);
    floe_array_release(all);
    floe_free(ix);
    return st;
}
