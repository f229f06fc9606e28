/*
 * agg_fn_sketch.c — approximate aggregates with mergeable sketches:
 * approx_count_distinct(x) (DuckDB) as a HyperLogLog of 2^14 one-byte
 * registers (standard error about 0.8%), with the small-range (linear
 * counting) correction.  Registers are allocated at a group's first
 * value; two sketches merge by taking each register's maximum, so PARTIAL
 * states (the registers' bytes) combine exactly across threads and ranks.
 * Values are hashed with floe_hash_rows (equal values, equal hashes)
 * and mixed once more (splitmix64's finalizer) for the register bits.
 */
#include <math.h>
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
    uint64_t *h = floe_malloc_array((size_t)(x->length ? x->length : 1), sizeof *h);
    if (!h) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "approx_count_distinct: hashes");
    floe_status st = floe_hash_rows(&x, 1, x->length, h);
    for (int64_t k = 0; k < n && !st; k++) {
        int64_t r = AGG_ROW(rows, base, k);
        if (floe_array_is_null(x, r)) continue;
        hll_state *s = (hll_state *)(states + (size_t)ids[k] * stride);
        st = hll_regs(s);
        if (st) break;
        uint64_t v = mix64(h[r]);
        uint32_t j = (uint32_t)(v >> (64 - HLL_P));
        uint64_t w = (v << HLL_P) | (1ULL << (HLL_P - 1)); /* guard bit: rank <= 64 - P + 1 */
        uint8_t rank = (uint8_t)(__builtin_clzll(w) + 1);
        if (rank > s->reg[j]) s->reg[j] = rank;
    }
    floe_free(h);
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

const agg_func floe_agg_sketch_funcs[] = {
    {.name = "approx_count_distinct", .fast = FLOE_AGG_NAMED, .min_args = 1, .max_args = 1, .resolve = hll_resolve,
     .update = hll_update, .combine = hll_combine, .finalize = hll_finalize, .destroy = hll_destroy,
     .serialize = hll_serialize, .deserialize = hll_deserialize},
    {.name = NULL},
};
