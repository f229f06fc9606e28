/*
 * agg_kernels.c — HashAggregate's update kernels: folding a chunk of
 * argument rows into the groups' state rows.  One loop per (aggregate,
 * physical type) for arguments without NULLs; with few groups the chunk
 * is first ordered by group so each group's running value stays in a
 * register, and sum(x) and avg(x) of the same x share one loop; FINAL
 * merges PARTIAL state columns.  These loops are what the aggregate
 * benchmarks measure.
 */
#include <math.h>
#include <string.h>

#include "floe/interval.h"
#include "exec/agg/hash_agg_internal.h"
#include "floe/memory.h"

static int interval_cmp_bytes(const uint8_t *x, const uint8_t *y) {
    floe_interval a, b;
    memcpy(&a, x, sizeof a);
    memcpy(&b, y, sizeof b);
    return floe_interval_cmp(a, b);
}

/* ----------------------------------------------------- folding rows in */

#define ROW(k) (rows ? (int64_t)rows[k] : base + (int64_t)(k))
#define VALID(r) (!vb || floe_bit_get(vb, off + (r)))

static inline int cmp_f64(double x, double y) { /* NaN is the largest value */
    if (isnan(x) || isnan(y)) return isnan(x) ? (isnan(y) ? 0 : 1) : -1;
    return x < y ? -1 : x > y;
}

static floe_status set_bytes(bval *b, const char *p, int32_t len) {
    if (len > b->cap) {
        int32_t cap = len < 16 ? 16 : len;
        uint8_t *n = floe_realloc(b->p, (size_t)cap);
        if (!n) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: min/max value of %d bytes", len);
        b->p = n;
        b->cap = cap;
    }
    if (len) memcpy(b->p, p, (size_t)len);
    b->len = len;
    return NULL;
}

static int cmp_bytes(const uint8_t *a, int32_t al, const char *b, int32_t bl) {
    int32_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, (size_t)n) : 0;
    return c ? c : (al > bl) - (al < bl);
}

/* min/max over values of physical class ph. */
static floe_status minmax_update(acc *a, const floe_array *arr, const uint32_t *ids, const uint32_t *rows, int64_t base,
                                 int64_t n) {
    const uint8_t *vb = arr->validity ? arr->validity->data : NULL;
    int64_t off = arr->offset;
    bool mx = a->kind == ACC_MAX;
#define MINMAX_LOOP(T, GET, LESS)                                                     \
    do {                                                                              \
        for (int64_t k = 0; k < n; k++) {                                             \
            int64_t r = ROW(k);                                                       \
            if (!VALID(r)) continue;                                                  \
            uint32_t g = ids[k];                                                      \
            T x = GET;                                                                \
            T *v = &AV(T, a, g);                                                      \
            if (!ASEEN(a, g) || (mx ? LESS(*v, x) : LESS(x, *v))) {                   \
                *v = x;                                                               \
                ASEEN(a, g) = 1;                                                      \
            }                                                                         \
        }                                                                             \
    } while (0)
#define LT(x, y) ((x) < (y))
#define FLT(x, y) (cmp_f64((x), (y)) < 0)
    switch (a->ph) {
    case PHYS_I32: MINMAX_LOOP(int32_t, ((const int32_t *)arr->buffers[0]->data)[off + r], LT); break;
    case PHYS_I64: MINMAX_LOOP(int64_t, ((const int64_t *)arr->buffers[0]->data)[off + r], LT); break;
    case PHYS_F32: MINMAX_LOOP(float, ((const float *)arr->buffers[0]->data)[off + r], FLT); break;
    case PHYS_F64: MINMAX_LOOP(double, ((const double *)arr->buffers[0]->data)[off + r], FLT); break;
    case PHYS_I128: {
        const uint8_t *src = arr->buffers[0]->data;
        MINMAX_LOOP(i128, load_i128(src + (off + r) * 16), LT);
        break;
    }
    case PHYS_BOOL: MINMAX_LOOP(uint8_t, (uint8_t)floe_bit_get(arr->buffers[0]->data, off + r), LT); break;
    case PHYS_FIXED: {
        size_t w = a->esz;
        bool iv = arr->type->id == FLOE_TYPE_INTERVAL; /* ordered by the total, not the bytes */
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            const uint8_t *x = floe_array_get_fixed(arr, r);
            uint8_t *cur = &AV(uint8_t, a, g);
            int c = !ASEEN(a, g) ? 0 : iv ? interval_cmp_bytes(x, cur) : memcmp(x, cur, w);
            if (!ASEEN(a, g) || (mx ? c > 0 : c < 0)) {
                memcpy(cur, x, w);
                ASEEN(a, g) = 1;
            }
        }
        break;
    }
    case PHYS_BYTES: {
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            bval *v = &AV(bval, a, g);
            floe_strview x = floe_array_get_str(arr, r);
            int c = ASEEN(a, g) ? cmp_bytes(v->p, v->len, x.data, x.len) : 0;
            if (!ASEEN(a, g) || (mx ? c < 0 : c > 0)) {
                FLOE_TRY(set_bytes(v, x.data, x.len));
                ASEEN(a, g) = 1;
            }
        }
        break;
    }
    }
#undef MINMAX_LOOP
#undef LT
#undef FLT
    return NULL;
}

/* Value r of an integer or decimal array as a 128-bit integer. */
static inline i128 get_i128(const floe_array *arr, floe_type_id id, int64_t r) {
    if (id == FLOE_TYPE_INT32) return floe_array_get_int32(arr, r);
    if (id == FLOE_TYPE_INT64) return floe_array_get_int64(arr, r);
    return load_i128(arr->buffers[0]->data + (arr->offset + r) * 16);
}
static inline double get_f64(const floe_array *arr, floe_type_id id, int64_t r) {
    return id == FLOE_TYPE_FLOAT32 ? (double)floe_array_get_float(arr, r) : floe_array_get_double(arr, r);
}

/* The loop of acc_update_dense: BODY sees row r of the array and group
 * g, once per row, without a test on `rows` inside the loop. */
#define FOLD(BODY)                                                 \
    do {                                                           \
        if (rows) {                                                \
            for (int64_t k = 0; k < n; k++) {                      \
                int64_t r = rows[k];                               \
                uint32_t g = ids[k];                               \
                BODY;                                              \
            }                                                      \
        } else {                                                   \
            for (int64_t k = 0; k < n; k++) {                      \
                int64_t r = base + k;                              \
                uint32_t g = ids[k];                               \
                BODY;                                              \
            }                                                      \
        }                                                          \
    } while (0)

/* hagg_acc_update for an argument without NULLs: one loop per (aggregate,
 * physical type), no per-row type dispatch or validity test.  Integer
 * arguments summed in 128 bits need no overflow test: |x| < 2^63 and a
 * group's count is below 2^63.  *done false: not handled here. */
static floe_status acc_update_dense(agg_stream *s, acc *a, const floe_array *arr, const uint32_t *ids,
                                    const uint32_t *rows, int64_t base, int64_t n, bool *done) {
    floe_type_id id = arr->type->id;
    const uint8_t *data = arr->buffers[0] ? arr->buffers[0]->data : NULL; /* none: struct, variant (counted) */
    int64_t off = arr->offset;
    *done = true;
    switch (a->kind) {
    case ACC_COUNT:
        FOLD((void)r; ACNT(a, g)++);
        return NULL;
    case ACC_SUM_I64:
        if (id == FLOE_TYPE_INT32) {
            const int32_t *v = (const int32_t *)data + off;
            FOLD(int64_t *x = &AV(int64_t, a, g);
                 if (__builtin_add_overflow(*x, (int64_t)v[r], x)) return hagg_overflow_error(s, a, r, "int64");
                 ASEEN(a, g) = 1);
            return NULL;
        }
        if (id == FLOE_TYPE_INT64) {
            const int64_t *v = (const int64_t *)data + off;
            FOLD(int64_t *x = &AV(int64_t, a, g);
                 if (__builtin_add_overflow(*x, v[r], x)) return hagg_overflow_error(s, a, r, "int64");
                 ASEEN(a, g) = 1);
            return NULL;
        }
        break;
    case ACC_SUM_I128:
    case ACC_AVG_I128:
        if (id == FLOE_TYPE_INT32) {
            const int32_t *v = (const int32_t *)data + off;
            FOLD(AV(i128, a, g) += v[r]; ACNT(a, g)++);
            return NULL;
        }
        if (id == FLOE_TYPE_INT64) {
            const int64_t *v = (const int64_t *)data + off;
            FOLD(AV(i128, a, g) += v[r]; ACNT(a, g)++);
            return NULL;
        }
        if (id == FLOE_TYPE_DECIMAL128) {
            const uint8_t *v = data + off * 16;
            FOLD(i128 *x = &AV(i128, a, g);
                 if (__builtin_add_overflow(*x, load_i128(v + r * 16), x)) return hagg_overflow_error(s, a, r, "decimal(38)");
                 ACNT(a, g)++);
            return NULL;
        }
        break;
    case ACC_SUM_F64:
    case ACC_AVG_F64:
        if (id == FLOE_TYPE_FLOAT64) {
            const double *v = (const double *)data + off;
            FOLD(AV(double, a, g) += v[r]; ACNT(a, g)++);
            return NULL;
        }
        if (id == FLOE_TYPE_FLOAT32) {
            const float *v = (const float *)data + off;
            FOLD(AV(double, a, g) += (double)v[r]; ACNT(a, g)++);
            return NULL;
        }
        break;
    default:
        break;
    }
    *done = false;
    return NULL;
}
#undef FOLD

/* ------------------------------------------------- few groups: by group */

/* With few groups, consecutive rows keep updating the same handful of
 * state rows, and each update waits for the previous one's store.  So a
 * chunk's rows are first ordered by group (a stable counting sort), and
 * each aggregate then runs over one group's rows at a time with the
 * running value in a register, storing it once per group and chunk.  The
 * rows of a group are still added in their original order, starting from
 * the group's state: results and overflow errors are exactly those of the
 * row-at-a-time loops. */
/* FEW_GROUPS and chunk_order are in hash_agg_internal.h: the stream allocates one. */

/* Order rows rows[0..n) (NULL: base..base+n-1) of groups ids[0..n) (all
 * below n_groups <= FEW_GROUPS) by group. */
void hagg_order_chunk(chunk_order *co, int64_t n_groups, const uint32_t *ids, const uint32_t *rows, int64_t base,
                        int64_t n) {
    memset(co->cnt, 0, (size_t)n_groups * sizeof co->cnt[0]);
    for (int64_t k = 0; k < n; k++) co->cnt[ids[k]]++;
    uint32_t pos = 0;
    int32_t used = 0;
    for (int64_t g = 0; g < n_groups; g++) {
        uint32_t c = co->cnt[g];
        if (!c) continue;
        co->group[used] = (uint32_t)g;
        co->start[used++] = pos;
        co->cnt[g] = pos; /* now: the next slot of group g */
        pos += c;
    }
    co->start[used] = pos;
    co->n_used = used;
    for (int64_t k = 0; k < n; k++) co->order[co->cnt[ids[k]]++] = rows ? rows[k] : (uint32_t)(base + k);
}

/* Sum of 128-bit decimals or of doubles into a and its twin t in one
 * loop: one load per row, each running value checked as in its own loop.
 * *done false: not this case. */
static floe_status twin_sums(agg_stream *s, acc *a, acc *t, const floe_array *arr, const chunk_order *co, bool *done) {
    floe_type_id id = arr->type->id;
    const uint32_t *order = co->order;
    bool i128_kind = a->kind == ACC_SUM_I128 || a->kind == ACC_AVG_I128;
    if (i128_kind && id == FLOE_TYPE_DECIMAL128) {
        const uint8_t *x = arr->buffers[0]->data + arr->offset * 16;
        for (int32_t u = 0; u < co->n_used; u++) {
            uint32_t g = co->group[u], j0 = co->start[u], j1 = co->start[u + 1];
            i128 v = AV(i128, a, g), w = AV(i128, t, g);
            for (uint32_t j = j0; j < j1; j++) {
                int64_t r = order[j];
                i128 y = load_i128(x + r * 16);
                if (__builtin_add_overflow(v, y, &v)) return hagg_overflow_error(s, a, r, "decimal(38)");
                if (__builtin_add_overflow(w, y, &w)) return hagg_overflow_error(s, t, r, "decimal(38)");
            }
            AV(i128, a, g) = v;
            AV(i128, t, g) = w;
            ACNT(a, g) += j1 - j0;
            ACNT(t, g) += j1 - j0;
        }
        *done = true;
    } else if (!i128_kind && id == FLOE_TYPE_FLOAT64) {
        const double *x = (const double *)arr->buffers[0]->data + arr->offset;
        for (int32_t u = 0; u < co->n_used; u++) {
            uint32_t g = co->group[u], j0 = co->start[u], j1 = co->start[u + 1];
            double v = AV(double, a, g), w = AV(double, t, g);
            for (uint32_t j = j0; j < j1; j++) {
                double y = x[order[j]];
                v += y;
                w += y;
            }
            AV(double, a, g) = v;
            AV(double, t, g) = w;
            ACNT(a, g) += j1 - j0;
            ACNT(t, g) += j1 - j0;
        }
        *done = true;
    }
    return NULL;
}

/* One aggregate over an ordered chunk; *done false: not handled (the
 * caller runs hagg_acc_update).  Handles arguments without NULLs only.
 * *twin_done: a->twin was folded in too. */
floe_status hagg_acc_update_grouped(agg_stream *s, acc *a, const floe_array *arr, const chunk_order *co,
                                      bool *done, bool *twin_done) {
    *done = true;
    *twin_done = false;
    if (a->twin >= 0 && arr && arr->type->id != FLOE_TYPE_NULL && floe_array_null_count(arr) == 0) {
        FLOE_TRY(twin_sums(s, a, &s->accs[a->twin], arr, co, twin_done));
        if (*twin_done) return NULL;
    }
    if (a->kind == ACC_COUNT_STAR || (a->kind == ACC_COUNT && arr && arr->type->id != FLOE_TYPE_NULL &&
                                      floe_array_null_count(arr) == 0)) {
        for (int32_t u = 0; u < co->n_used; u++) ACNT(a, co->group[u]) += co->start[u + 1] - co->start[u];
        return NULL;
    }
    if (!arr || arr->type->id == FLOE_TYPE_NULL || floe_array_null_count(arr) != 0) {
        *done = false;
        return NULL;
    }
    floe_type_id id = arr->type->id;
    const uint8_t *data = arr->buffers[0] ? arr->buffers[0]->data : NULL;
    int64_t off = arr->offset;
    const uint32_t *order = co->order;
    /* BODY folds row r into the local `v`; INIT / STORE move the group's
     * state in and out. */
#define BY_GROUP(T, INIT, BODY, STORE)                                      \
    for (int32_t u = 0; u < co->n_used; u++) {                              \
        uint32_t g = co->group[u], j0 = co->start[u], j1 = co->start[u + 1]; \
        T v = INIT;                                                         \
        for (uint32_t j = j0; j < j1; j++) {                                \
            int64_t r = order[j];                                           \
            BODY;                                                           \
        }                                                                   \
        STORE;                                                              \
        ACNT_OR_SEEN;                                                       \
    }
    switch (a->kind) {
    case ACC_SUM_I64:
#define ACNT_OR_SEEN ASEEN(a, g) = 1
        if (id == FLOE_TYPE_INT32) {
            const int32_t *x = (const int32_t *)data + off;
            BY_GROUP(int64_t, AV(int64_t, a, g),
                     if (__builtin_add_overflow(v, (int64_t)x[r], &v)) return hagg_overflow_error(s, a, r, "int64"),
                     AV(int64_t, a, g) = v)
            return NULL;
        }
        if (id == FLOE_TYPE_INT64) {
            const int64_t *x = (const int64_t *)data + off;
            BY_GROUP(int64_t, AV(int64_t, a, g),
                     if (__builtin_add_overflow(v, x[r], &v)) return hagg_overflow_error(s, a, r, "int64"),
                     AV(int64_t, a, g) = v)
            return NULL;
        }
        break;
#undef ACNT_OR_SEEN
#define ACNT_OR_SEEN ACNT(a, g) += j1 - j0
    case ACC_SUM_I128:
    case ACC_AVG_I128:
        if (id == FLOE_TYPE_INT32) {
            const int32_t *x = (const int32_t *)data + off;
            BY_GROUP(i128, AV(i128, a, g), v += x[r], AV(i128, a, g) = v)
            return NULL;
        }
        if (id == FLOE_TYPE_INT64) {
            const int64_t *x = (const int64_t *)data + off;
            BY_GROUP(i128, AV(i128, a, g), v += x[r], AV(i128, a, g) = v)
            return NULL;
        }
        if (id == FLOE_TYPE_DECIMAL128) {
            const uint8_t *x = data + off * 16;
            BY_GROUP(i128, AV(i128, a, g),
                     if (__builtin_add_overflow(v, load_i128(x + r * 16), &v)) return hagg_overflow_error(s, a, r, "decimal(38)"),
                     AV(i128, a, g) = v)
            return NULL;
        }
        break;
    case ACC_SUM_F64:
    case ACC_AVG_F64:
        if (id == FLOE_TYPE_FLOAT64) {
            const double *x = (const double *)data + off;
            BY_GROUP(double, AV(double, a, g), v += x[r], AV(double, a, g) = v)
            return NULL;
        }
        if (id == FLOE_TYPE_FLOAT32) {
            const float *x = (const float *)data + off;
            BY_GROUP(double, AV(double, a, g), v += (double)x[r], AV(double, a, g) = v)
            return NULL;
        }
        break;
#undef ACNT_OR_SEEN
    default:
        break;
    }
#undef BY_GROUP
    *done = false;
    return NULL;
}

/* Fold rows rows[0..n) (NULL: base..base+n-1) of `arr` into groups
 * ids[0..n). */
floe_status hagg_acc_update(agg_stream *s, acc *a, const floe_array *arr, const uint32_t *ids, const uint32_t *rows,
                              int64_t base, int64_t n) {
    const uint8_t *vb = arr && arr->validity && floe_array_null_count(arr) ? arr->validity->data : NULL;
    int64_t off = arr ? arr->offset : 0;
    floe_type_id id = arr ? arr->type->id : FLOE_TYPE_NULL;
    if (!vb && arr && id != FLOE_TYPE_NULL) {
        bool done = false;
        floe_status st = acc_update_dense(s, a, arr, ids, rows, base, n, &done);
        if (st || done) return st;
    }
    switch (a->kind) {
    case ACC_COUNT_STAR:
        for (int64_t k = 0; k < n; k++) ACNT(a, ids[k])++;
        return NULL;
    case ACC_COUNT:
        if (id == FLOE_TYPE_NULL) return NULL;
        for (int64_t k = 0; k < n; k++)
            if (VALID(ROW(k))) ACNT(a, ids[k])++;
        return NULL;
    case ACC_SUM_I64:
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            int64_t x = id == FLOE_TYPE_INT32 ? floe_array_get_int32(arr, r) : floe_array_get_int64(arr, r);
            int64_t *v = &AV(int64_t, a, g);
            if (__builtin_add_overflow(*v, x, v)) return hagg_overflow_error(s, a, r, "int64");
            ASEEN(a, g) = 1;
        }
        return NULL;
    case ACC_SUM_I128:
    case ACC_AVG_I128:
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            i128 *v = &AV(i128, a, g);
            if (__builtin_add_overflow(*v, get_i128(arr, id, r), v)) return hagg_overflow_error(s, a, r, "decimal(38)");
            ACNT(a, g)++; /* cnt > 0 doubles as "seen" */
        }
        return NULL;
    case ACC_SUM_F64:
    case ACC_AVG_F64:
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            AV(double, a, g) += get_f64(arr, id, r);
            ACNT(a, g)++;
        }
        return NULL;
    case ACC_MIN:
    case ACC_MAX:
        return minmax_update(a, arr, ids, rows, base, n);
    case ACC_BOOL_AND:
    case ACC_BOOL_OR: {
        bool and_ = a->kind == ACC_BOOL_AND;
        for (int64_t k = 0; k < n; k++) {
            int64_t r = ROW(k);
            if (!VALID(r)) continue;
            uint32_t g = ids[k];
            bool x = floe_array_get_bool(arr, r);
            uint8_t *v = &AV(uint8_t, a, g);
            *v = ASEEN(a, g) ? (and_ ? (*v && x) : (*v || x)) : x;
            ASEEN(a, g) = 1;
        }
        return NULL;
    }
    case ACC_NULL:
    case ACC_GENERIC: /* registry entries: agg_generic.c */
    case ACC_HOLISTIC:
        return NULL;
    }
    return NULL;
}

/* FINAL: fold rows base..base+n-1 of the state columns (cols[0], and
 * cols[1] for avg) into groups ids[0..n). */
floe_status hagg_acc_merge(agg_stream *s, acc *a, floe_array *const *cols, const uint32_t *ids, int64_t base,
                             int64_t n) {
    if (a->kind == ACC_COUNT_STAR || a->kind == ACC_COUNT) {
        const floe_array *c = cols[0];
        const uint8_t *vb = c->validity ? c->validity->data : NULL;
        int64_t off = c->offset;
        for (int64_t k = 0; k < n; k++)
            if (VALID(base + k) &&
                __builtin_add_overflow(ACNT(a, ids[k]), floe_array_get_int64(c, base + k), &ACNT(a, ids[k])))
                return hagg_overflow_error(s, a, base + k, "count");
        return NULL;
    }
    if (a->kind == ACC_AVG_F64 || a->kind == ACC_AVG_I128) {
        const floe_array *sum = cols[0], *cnt = cols[1];
        for (int64_t k = 0; k < n; k++) {
            uint32_t g = ids[k];
            int64_t r = base + k;
            if (floe_array_is_null(cnt, r)) continue;
            int64_t c = floe_array_get_int64(cnt, r);
            if (c == 0 || floe_array_is_null(sum, r)) continue;
            ACNT(a, g) += c;
            if (a->kind == ACC_AVG_F64) {
                AV(double, a, g) += floe_array_get_double(sum, r);
            } else {
                i128 *v = &AV(i128, a, g);
                if (__builtin_add_overflow(*v, get_i128(sum, FLOE_TYPE_DECIMAL128, r), v))
                    return hagg_overflow_error(s, a, r, "decimal(38)");
            }
        }
        return NULL;
    }
    return hagg_acc_update(s, a, cols[0], ids, NULL, base, n);
}
