/*
 * agg_fn_sketch.c — approximate aggregates with mergeable sketches:
 * approx_count_distinct(x) (DuckDB) as a HyperLogLog of 2^14 one-byte
 * registers (standard error about 0.8%), with the small-range (linear
 * counting) correction.  Registers are allocated at a group's first
 * value; two sketches merge by taking each register's maximum, so PARTIAL
 * states (the registers' bytes) combine exactly across threads and ranks.
 * Values are hashed with floe_hash_rows (equal values, equal hashes)
 * and mixed once more (splitmix64's finalizer) for the register bits.
 *
 * approx_quantile(x, q) (DuckDB) keeps a KLL-style compactor sketch:
 * level l holds values of weight 2^l, at most KLL_K of them; a full level
 * is sorted and every other value (alternating the starting one) moves up
 * a level, halving its count.  Merging appends level to level and
 * compacts again, so states combine across threads and ranks.  The
 * estimate interpolates at rank q * (n - 1) among the weighted values
 * (exact while fewer than KLL_K values were seen); the rank error is
 * about 1% of n.  Numeric x only; integer x gives the estimate rounded to
 * the nearest integer (x's type), others double precision.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg/agg_func.h"
#include "floe/memory.h"

#define HLL_P 14
#define HLL_M (1u << HLL_P)

typedef struct hll_state {
    uint8_t *reg; /* HLL_M registers, or NULL: no value yet */
} hll_state;

static floe_status hll_resolve(agg_info *ai) {
    if (floe_type_is_nested(ai->arg_types[0]) && ai->arg_types[0]->id != FLOE_TYPE_NULL)
        return floe_error(FLOE_ERR_TYPE, "approx_count_distinct(%s) is not supported",
                          floe_type_id_name(ai->arg_types[0]->id));
    ai->out_type = floe_type_primitive(FLOE_TYPE_INT64);
    ai->state_size = sizeof(hll_state);
    return NULL;
}

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static floe_status hll_regs(hll_state *s) {
    if (!s->reg && !(s->reg = floe_calloc(HLL_M, 1)))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "approx_count_distinct: a sketch");
    return NULL;
}

static floe_status hll_update(const agg_info *ai, uint8_t *states, size_t stride, const uint32_t *ids,
                              floe_array *const *args, const uint32_t *rows, int64_t base, int64_t n) {
    (void)ai;
    floe_array *x = args[0];
    if (x->type->id == FLOE_TYPE_NULL || n == 0) return NULL;
    /* hash only rows base..base+n-1 when the rows are a range (a chunk) */
    floe_array *part = NULL;
    int64_t first = rows ? 0 : base;
    if (!rows) FLOE_TRY(floe_array_slice(x, base, n, &part));
    floe_array *hx = rows ? x : part;
    uint64_t *h = floe_malloc_array((size_t)(hx->length ? hx->length : 1), sizeof *h);
    floe_status st = h ? floe_hash_rows(&hx, 1, hx->length, h)
                       : floe_error(FLOE_ERR_OUT_OF_MEMORY, "approx_count_distinct: hashes");
    for (int64_t k = 0; k < n && !st; k++) {
        int64_t r = AGG_ROW(rows, base, k);
        if (floe_array_is_null(x, r)) continue;
        hll_state *s = (hll_state *)(states + (size_t)ids[k] * stride);
        st = hll_regs(s);
        if (st) break;
        uint64_t v = mix64(h[r - first]);
        uint32_t j = (uint32_t)(v >> (64 - HLL_P));
        uint64_t w = (v << HLL_P) | (1ULL << (HLL_P - 1)); /* guard bit: rank <= 64 - P + 1 */
        uint8_t rank = (uint8_t)(__builtin_clzll(w) + 1);
        if (rank > s->reg[j]) s->reg[j] = rank;
    }
    floe_free(h);
    floe_array_release(part);
    return st;
}

static floe_status hll_combine(const agg_info *ai, uint8_t *dst, const uint8_t *src) {
    (void)ai;
    hll_state *a = (hll_state *)dst;
    const hll_state *b = (const hll_state *)src;
    if (!b->reg) return NULL;
    FLOE_TRY(hll_regs(a));
    for (uint32_t j = 0; j < HLL_M; j++)
        if (b->reg[j] > a->reg[j]) a->reg[j] = b->reg[j];
    return NULL;
}

static floe_status hll_finalize(const agg_info *ai, const uint8_t *st, floe_builder *out) {
    (void)ai;
    const hll_state *s = (const hll_state *)st;
    if (!s->reg) return floe_builder_append_int64(out, 0);
    double sum = 0, m = HLL_M;
    uint32_t zeros = 0;
    for (uint32_t j = 0; j < HLL_M; j++) {
        sum += ldexp(1.0, -(int)s->reg[j]);
        zeros += s->reg[j] == 0;
    }
    double e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
    if (e <= 2.5 * m && zeros) e = m * log(m / zeros);
    return floe_builder_append_int64(out, (int64_t)llround(e));
}

static void hll_destroy(const agg_info *ai, uint8_t *st) {
    (void)ai;
    floe_free(((hll_state *)st)->reg);
}

static floe_status hll_serialize(const agg_info *ai, const uint8_t *st, floe_buf *out) {
    (void)ai;
    const hll_state *s = (const hll_state *)st;
    return s->reg ? floe_buf_append(out, s->reg, HLL_M) : NULL;
}

static floe_status hll_deserialize(const agg_info *ai, const uint8_t *bytes, size_t len, uint8_t *st) {
    (void)ai;
    hll_state *s = (hll_state *)st;
    if (len == 0) return NULL;
    if (len != HLL_M) return floe_error(FLOE_ERR_CORRUPT, "approx_count_distinct: a sketch of %zu bytes", len);
    FLOE_TRY(hll_regs(s));
    memcpy(s->reg, bytes, HLL_M);
    return NULL;
}

/* ------------------------------------------------------ approx_quantile */

#define KLL_K 256
#define KLL_LEVELS 48

typedef struct kll {
    double q;                    /* the fraction asked for */
    int32_t n_levels;
    uint64_t flips;              /* per level: the next compaction's start */
    int32_t len[KLL_LEVELS];
    double *lv[KLL_LEVELS];      /* KLL_K + 1 values each */
} kll;

typedef struct kll_state {
    kll *k; /* NULL: no value yet */
} kll_state;

static floe_status aq_resolve(agg_info *ai) {
    if (!floe_agg_is_numeric(ai->arg_types[0]) && ai->arg_types[0]->id != FLOE_TYPE_NULL)
        return floe_error(FLOE_ERR_TYPE, "approx_quantile(%s) is not supported (numbers only)",
                          floe_type_id_name(ai->arg_types[0]->id));
    if (!floe_agg_is_numeric(ai->arg_types[1]))
        return floe_error(FLOE_ERR_TYPE, "approx_quantile: the quantile must be a number, not %s",
                          floe_type_id_name(ai->arg_types[1]->id));
    floe_type_id id = ai->arg_types[0]->id;
    ai->out_type = floe_type_primitive(id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64 ? id : FLOE_TYPE_FLOAT64);
    ai->state_size = sizeof(kll_state);
    return NULL;
}

static floe_status kll_new(kll_state *s, double q) {
    if (s->k) return NULL;
    if (!(s->k = floe_calloc(1, sizeof *s->k))) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "approx_quantile: a sketch");
    s->k->q = q;
    return NULL;
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static floe_status kll_push(kll *k, int32_t l, double v);

/* Level l is full: move every other value up. */
static floe_status kll_compact(kll *k, int32_t l) {
    if (l + 1 >= KLL_LEVELS) return floe_error(FLOE_ERR_UNSUPPORTED, "approx_quantile: too many values");
    qsort(k->lv[l], (size_t)k->len[l], sizeof(double), cmp_dbl);
    int32_t start = (int32_t)((k->flips >> l) & 1);
    k->flips ^= 1ULL << l;
    int32_t n = k->len[l];
    k->len[l] = 0;
    double *vals = k->lv[l];
    for (int32_t i = start; i < n; i += 2) FLOE_TRY(kll_push(k, l + 1, vals[i])); /* n == KLL_K: even */
    return NULL;
}

static floe_status kll_push(kll *k, int32_t l, double v) {
    if (!k->lv[l] && !(k->lv[l] = floe_malloc_array(KLL_K + 1, sizeof(double))))
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "approx_quantile: a sketch level");
    if (l >= k->n_levels) k->n_levels = l + 1;
    k->lv[l][k->len[l]++] = v;
    return k->len[l] >= KLL_K ? kll_compact(k, l) : NULL;
}

static floe_status aq_update(const agg_info *ai, uint8_t *states, size_t stride, const uint32_t *ids,
                             floe_array *const *args, const uint32_t *rows, int64_t base, int64_t n) {
    (void)ai;
    const floe_array *x = args[0], *q = args[1];
    if (x->type->id == FLOE_TYPE_NULL) return NULL;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = AGG_ROW(rows, base, k);
        if (floe_array_is_null(x, r)) continue;
        kll_state *s = (kll_state *)(states + (size_t)ids[k] * stride);
        if (!s->k) {
            if (floe_array_is_null(q, r)) continue;
            double f = floe_agg_num(q, r);
            if (!(f >= 0 && f <= 1))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "approx_quantile: the quantile %g is not between 0 and 1", f);
            FLOE_TRY(kll_new(s, f));
        }
        FLOE_TRY(kll_push(s->k, 0, floe_agg_num(x, r)));
    }
    return NULL;
}

static floe_status aq_combine(const agg_info *ai, uint8_t *dst, const uint8_t *src) {
    (void)ai;
    kll_state *a = (kll_state *)dst;
    const kll_state *b = (const kll_state *)src;
    if (!b->k) return NULL;
    FLOE_TRY(kll_new(a, b->k->q));
    for (int32_t l = 0; l < b->k->n_levels; l++)
        for (int32_t i = 0; i < b->k->len[l]; i++) FLOE_TRY(kll_push(a->k, l, b->k->lv[l][i]));
    return NULL;
}

typedef struct wv {
    double v, w;
} wv;

static int cmp_wv(const void *a, const void *b) { return cmp_dbl(&((const wv *)a)->v, &((const wv *)b)->v); }

static floe_status aq_finalize(const agg_info *ai, const uint8_t *st, floe_builder *out) {
    const kll *k = ((const kll_state *)st)->k;
    if (!k) return floe_builder_append_null(out);
    int64_t m = 0;
    for (int32_t l = 0; l < k->n_levels; l++) m += k->len[l];
    wv *a = floe_malloc_array((size_t)(m ? m : 1), sizeof *a);
    if (!a) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "approx_quantile: the estimate");
    int64_t j = 0;
    double total = 0;
    for (int32_t l = 0; l < k->n_levels; l++)
        for (int32_t i = 0; i < k->len[l]; i++) {
            a[j].v = k->lv[l][i];
            a[j++].w = ldexp(1.0, l);
            total += ldexp(1.0, l);
        }
    qsort(a, (size_t)m, sizeof *a, cmp_wv);
    /* value i covers ranks [c_i, c_i + w_i); its centre is c_i + (w_i - 1) / 2 */
    double rank = k->q * (total - 1), c = 0, est = a[m - 1].v, prev_mid = -1, prev_v = a[0].v;
    for (int64_t i = 0; i < m; i++) {
        double mid = c + (a[i].w - 1) / 2;
        if (mid >= rank) {
            est = i == 0 || mid == prev_mid ? a[i].v : prev_v + (a[i].v - prev_v) * (rank - prev_mid) / (mid - prev_mid);
            break;
        }
        prev_mid = mid;
        prev_v = a[i].v;
        c += a[i].w;
    }
    floe_free(a);
    floe_type_id id = ai->out_type->id;
    if (id == FLOE_TYPE_INT32) return floe_builder_append_int32(out, (int32_t)llround(est));
    if (id == FLOE_TYPE_INT64) return floe_builder_append_int64(out, (int64_t)llround(est));
    return floe_builder_append_double(out, est);
}

static void aq_destroy(const agg_info *ai, uint8_t *st) {
    (void)ai;
    kll *k = ((kll_state *)st)->k;
    if (!k) return;
    for (int32_t l = 0; l < KLL_LEVELS; l++) floe_free(k->lv[l]);
    floe_free(k);
}

/* Serialized: q, flips, n_levels, then per level its count and values. */
static floe_status aq_serialize(const agg_info *ai, const uint8_t *st, floe_buf *out) {
    (void)ai;
    const kll *k = ((const kll_state *)st)->k;
    if (!k) return NULL;
    FLOE_TRY(floe_buf_append(out, &k->q, 8));
    FLOE_TRY(floe_buf_append(out, &k->flips, 8));
    FLOE_TRY(floe_buf_append(out, &k->n_levels, 4));
    for (int32_t l = 0; l < k->n_levels; l++) {
        FLOE_TRY(floe_buf_append(out, &k->len[l], 4));
        if (k->len[l]) FLOE_TRY(floe_buf_append(out, k->lv[l], (size_t)k->len[l] * 8));
    }
    return NULL;
}

static floe_status aq_deserialize(const agg_info *ai, const uint8_t *p, size_t len, uint8_t *st) {
    (void)ai;
    kll_state *s = (kll_state *)st;
    if (len == 0) return NULL;
    const uint8_t *end = p + len;
    double q;
    int32_t nl;
    if (len < 20) return floe_error(FLOE_ERR_CORRUPT, "approx_quantile: a sketch of %zu bytes", len);
    memcpy(&q, p, 8);
    FLOE_TRY(kll_new(s, q));
    memcpy(&s->k->flips, p + 8, 8);
    memcpy(&nl, p + 16, 4);
    p += 20;
    if (nl < 0 || nl > KLL_LEVELS) return floe_error(FLOE_ERR_CORRUPT, "approx_quantile: %d levels", nl);
    for (int32_t l = 0; l < nl; l++) {
        int32_t n;
        if (end - p < 4) return floe_error(FLOE_ERR_CORRUPT, "approx_quantile: truncated sketch");
        memcpy(&n, p, 4);
        p += 4;
        if (n < 0 || n > KLL_K || end - p < (ptrdiff_t)n * 8)
            return floe_error(FLOE_ERR_CORRUPT, "approx_quantile: truncated sketch");
        for (int32_t i = 0; i < n; i++) {
            double v;
            memcpy(&v, p + (size_t)i * 8, 8);
            FLOE_TRY(kll_push(s->k, l, v));
        }
        p += (size_t)n * 8;
    }
    return NULL;
}

const agg_func floe_agg_sketch_funcs[] = {
    {"approx_quantile", .fast = FLOE_AGG_NAMED, .min_args = 2, .max_args = 2, .resolve = aq_resolve,
     .update = aq_update, .combine = aq_combine, .finalize = aq_finalize, .destroy = aq_destroy,
     .serialize = aq_serialize, .deserialize = aq_deserialize},
    {"approx_count_distinct", .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1, .resolve = hll_resolve,
     .update = hll_update, .combine = hll_combine, .finalize = hll_finalize, .destroy = hll_destroy,
     .serialize = hll_serialize, .deserialize = hll_deserialize},
    {.name = NULL},
};
