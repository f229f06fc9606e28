/*
 * agg_packed.c — HashAggregate's table for group keys that fit 16 bytes
 * (see agg_packed.h for the layout).
 *
 * The table is open addressing with linear probing over 32-bit group ids
 * (load <= 1/2); the packed keys themselves sit in one array indexed by
 * group id, so a probe compares two words.  The hash is a multiply-xorshift
 * mix of the two words: it only has to spread keys over this one table
 * (Repartition keeps using floe_hash_rows, so partitioning does not
 * depend on it).
 */
#include "exec/agg/agg_packed.h"

#include <math.h>
#include <string.h>

#include "floe/memory.h"

enum { PK_NONE, PK_BOOL, PK_FIXED, PK_F32, PK_F64, PK_STR };

#define PK_BYTES 16
#define PK_EMPTY UINT32_MAX

bool floe_pk_layout_init(floe_pk_layout *l, floe_type *const *types, int32_t n) {
    memset(l, 0, sizeof *l);
    if (n < 1 || n > FLOE_PK_MAX_COLS) return false;
    l->n_cols = n;
    int32_t fixed = 0, n_str = 0;
    for (int32_t c = 0; c < n; c++) {
        const floe_type *t = types[c];
        if (t->id == FLOE_TYPE_NULL) {
            l->kind[c] = PK_NONE;
        } else if (t->id == FLOE_TYPE_BOOL) {
            l->kind[c] = PK_BOOL;
            fixed += 1;
        } else if (floe_type_is_binary_like(t)) {
            l->kind[c] = PK_STR;
            n_str++;
        } else if (floe_type_is_nested(t) || t->byte_width <= 0 || t->byte_width >= PK_BYTES) {
            return false;
        } else {
            l->kind[c] = t->id == FLOE_TYPE_FLOAT32 ? PK_F32 : t->id == FLOE_TYPE_FLOAT64 ? PK_F64 : PK_FIXED;
            l->width[c] = (uint8_t)t->byte_width;
            fixed += 1 + t->byte_width;
        }
        if (fixed > PK_BYTES) return false;
    }
    int32_t str_w = 0;
    if (n_str) {
        str_w = (PK_BYTES - fixed) / n_str - 1; /* each string slot: tag + str_w bytes */
        if (str_w < 1) return false;
    }
    int32_t off = 0;
    for (int32_t c = 0; c < n; c++) {
        l->off[c] = (uint8_t)off;
        if (l->kind[c] == PK_STR) l->width[c] = (uint8_t)str_w;
        if (l->kind[c] == PK_BOOL) off += 1;
        else if (l->kind[c] != PK_NONE) off += 1 + l->width[c];
    }
    return true;
}

#define ROWOF(k) (rows ? (int64_t)rows[k] : (int64_t)(k))

void floe_pk_encode(const floe_pk_layout *l, floe_array *const *cols, const uint32_t *rows, int64_t n,
                    uint64_t *keys, bool *fits) {
    *fits = true;
    memset(keys, 0, (size_t)n * PK_BYTES); /* NULL slots and padding stay zero */
    uint8_t *kb = (uint8_t *)keys;
    for (int32_t c = 0; c < l->n_cols; c++) {
        const floe_array *a = cols[c];
        int kind = l->kind[c];
        if (kind == PK_NONE) continue;
        const uint8_t *vb = a->validity && floe_array_null_count(a) ? a->validity->data : NULL;
        int64_t ao = a->offset;
        uint8_t *base = kb + l->off[c];
        switch (kind) {
        case PK_BOOL: {
            const uint8_t *bits = a->buffers[0]->data;
            for (int64_t k = 0; k < n; k++) {
                int64_t r = ao + ROWOF(k);
                if (!vb || floe_bit_get(vb, r)) base[k * PK_BYTES] = (uint8_t)(1 + floe_bit_get(bits, r));
            }
            break;
        }
        case PK_STR: {
            const int32_t *o = (const int32_t *)a->buffers[0]->data + ao;
            const uint8_t *d = a->buffers[1] ? a->buffers[1]->data : NULL;
            uint32_t w = l->width[c];
            for (int64_t k = 0; k < n; k++) {
                int64_t r = ROWOF(k);
                if (vb && !floe_bit_get(vb, ao + r)) continue;
                int32_t s = o[r];
                uint32_t len = (uint32_t)(o[r + 1] - s);
                if (len > w) {
                    *fits = false;
                    return;
                }
                uint8_t *p = base + k * PK_BYTES;
                p[0] = (uint8_t)(len + 1);
                for (uint32_t j = 0; j < len; j++) p[1 + j] = d[s + j];
            }
            break;
        }
        case PK_F32: {
            const float *v = (const float *)a->buffers[0]->data + ao;
            for (int64_t k = 0; k < n; k++) {
                int64_t r = ROWOF(k);
                if (vb && !floe_bit_get(vb, ao + r)) continue;
                float f = v[r];
                if (f == 0) f = 0.0f;
                if (isnan(f)) f = NAN;
                uint8_t *p = base + k * PK_BYTES;
                p[0] = 1;
                memcpy(p + 1, &f, 4);
            }
            break;
        }
        case PK_F64: {
            const double *v = (const double *)a->buffers[0]->data + ao;
            for (int64_t k = 0; k < n; k++) {
                int64_t r = ROWOF(k);
                if (vb && !floe_bit_get(vb, ao + r)) continue;
                double f = v[r];
                if (f == 0) f = 0.0;
                if (isnan(f)) f = NAN;
                uint8_t *p = base + k * PK_BYTES;
                p[0] = 1;
                memcpy(p + 1, &f, 8);
            }
            break;
        }
        default: { /* PK_FIXED */
            uint32_t w = l->width[c];
            const uint8_t *v = a->buffers[0]->data + ao * (int64_t)w;
#define FIXED_LOOP(W)                                                  \
    for (int64_t k = 0; k < n; k++) {                                  \
        int64_t r = ROWOF(k);                                          \
        if (vb && !floe_bit_get(vb, ao + r)) continue;                 \
        uint8_t *p = base + k * PK_BYTES;                              \
        p[0] = 1;                                                      \
        memcpy(p + 1, v + r * (W), (W));                               \
    }
            if (w == 4) FIXED_LOOP(4)
            else if (w == 8) FIXED_LOOP(8)
            else FIXED_LOOP(w)
#undef FIXED_LOOP
            break;
        }
        }
    }
}

static inline uint64_t pk_hash(uint64_t a, uint64_t b) {
    uint64_t h = a * UINT64_C(0x9e3779b97f4a7c15) ^ (b + UINT64_C(0x632be59bd9b4e019)) * UINT64_C(0xc2b2ae3d27d4eb4f);
    h ^= h >> 29;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    return h ^ (h >> 32);
}

/* Room for `extra` more groups (key array and slots, load <= 1/2). */
static floe_status pk_reserve(floe_pk_table *t, int64_t extra) {
    int64_t need = t->n + extra;
    if (need >= (int64_t)PK_EMPTY) return floe_error(FLOE_ERR_UNSUPPORTED, "HashAggregate: more than 4 billion groups");
    if (need > t->cap) {
        int64_t cap = t->cap ? t->cap : 64;
        while (cap < need) cap *= 2;
        uint64_t *k = floe_realloc(t->keys, (size_t)cap * PK_BYTES);
        if (!k) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: packed keys of %lld groups", (long long)cap);
        t->keys = k;
        t->cap = cap;
    }
    uint64_t slots = t->slots ? t->mask + 1 : 0;
    if ((uint64_t)need * 2 > slots) {
        uint64_t ns = slots ? slots : 128;
        while ((uint64_t)need * 2 > ns) ns *= 2;
        uint32_t *s = floe_malloc_array((size_t)ns, sizeof *s);
        if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: growing the hash table to %llu slots", (unsigned long long)ns);
        memset(s, 0xff, (size_t)ns * sizeof *s);
        uint64_t mask = ns - 1;
        for (int64_t g = 0; g < t->n; g++) {
            uint64_t pos = pk_hash(t->keys[2 * g], t->keys[2 * g + 1]) & mask;
            while (s[pos] != PK_EMPTY) pos = (pos + 1) & mask;
            s[pos] = (uint32_t)g;
        }
        floe_free(t->slots);
        t->slots = s;
        t->mask = mask;
    }
    return NULL;
}

floe_status floe_pk_probe(floe_pk_table *t, const uint64_t *keys, int64_t n, uint32_t *ids) {
    if (!t->slots) FLOE_TRY(pk_reserve(t, 1));
    /* The table grows when a new group would pass the load limit, not by
     * the batch size up front: few groups keep a table that stays in L1. */
    uint32_t *slots = t->slots;
    uint64_t mask = t->mask, *tk = t->keys;
    for (int64_t k = 0; k < n; k++) {
        uint64_t a = keys[2 * k], b = keys[2 * k + 1];
        uint64_t h = pk_hash(a, b), pos = h & mask;
        for (;;) {
            uint32_t id = slots[pos];
            if (id == PK_EMPTY) {
                if ((uint64_t)(t->n + 1) * 2 > mask + 1 || t->n + 1 > t->cap) {
                    FLOE_TRY(pk_reserve(t, 1));
                    slots = t->slots;
                    mask = t->mask;
                    tk = t->keys;
                    pos = h & mask;
                    continue;
                }
                id = (uint32_t)t->n++;
                tk[2 * (uint64_t)id] = a;
                tk[2 * (uint64_t)id + 1] = b;
                slots[pos] = id;
                ids[k] = id;
                break;
            }
            if (tk[2 * (uint64_t)id] == a && tk[2 * (uint64_t)id + 1] == b) {
                ids[k] = id;
                break;
            }
            pos = (pos + 1) & mask;
        }
    }
    return NULL;
}

void floe_pk_table_free(floe_pk_table *t) {
    if (!t) return;
    floe_free(t->slots);
    floe_free(t->keys);
    memset(t, 0, sizeof *t);
}

floe_status floe_pk_decode(const floe_pk_layout *l, const floe_pk_table *t, floe_type *const *types, int64_t g0,
                           int64_t m, floe_array **out) {
    const uint8_t *kb = (const uint8_t *)t->keys;
    for (int32_t c = 0; c < l->n_cols; c++) out[c] = NULL;
    floe_status st = NULL;
    for (int32_t c = 0; c < l->n_cols && !st; c++) {
        floe_builder *b = NULL;
        st = floe_builder_new(types[c], m, &b);
        for (int64_t i = 0; i < m && !st; i++) {
            const uint8_t *p = kb + (size_t)(g0 + i) * PK_BYTES + l->off[c];
            if (l->kind[c] == PK_NONE || p[0] == 0) st = floe_builder_append_null(b);
            else if (l->kind[c] == PK_BOOL) st = floe_builder_append_bool(b, p[0] == 2);
            else if (l->kind[c] == PK_STR) st = floe_builder_append_binary(b, p + 1, p[0] - 1);
            else st = floe_builder_append_values(b, p + 1, 1, NULL);
        }
        if (!st) st = floe_builder_finish(b, &out[c]);
        floe_builder_free(b);
    }
    if (st)
        for (int32_t c = 0; c < l->n_cols; c++) {
            floe_array_release(out[c]);
            out[c] = NULL;
        }
    return st;
}
