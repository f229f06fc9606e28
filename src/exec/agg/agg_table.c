/*
 * agg_table.c — HashAggregate's general group table: an open-addressing
 * table (linear probing, load <= 1/2, each slot tagged with hash bits)
 * over encoded keys copied into a key store, and the key encoding (see
 * hash_agg.c, "Key encoding") into per-batch scratch space.  Also the
 * tables of (group, value) pairs of DISTINCT calls.
 */
#include <math.h>
#include <string.h>

#include "floe/interval.h"
#include "exec/agg/hash_agg_internal.h"
#include "floe/memory.h"

/* ------------------------------------------------- the group key table */

/* A slot: the high 32 bits of the key's hash and the group id (low 32
 * bits), so a probe rejects most non-matching slots without touching the
 * group's key.  All ones = empty (ids stay below UINT32_MAX). */
#define EMPTY UINT64_MAX
#define SLOT(h, id) (((h) & UINT64_C(0xffffffff00000000)) | (uint64_t)(id))

/* gtable is in hash_agg_internal.h: the stream holds one. */

void hagg_gt_free(gtable *t) {
    if (!t) return;
    floe_free(t->slots);
    floe_free(t->hashes);
    floe_free(t->koff);
    floe_free(t->keys);
    floe_free(t->iv_first);
    memset(t, 0, sizeof *t);
}

static void *grow(void *p, size_t n, size_t esz) { return floe_realloc(p, n * esz != 0 ? n * esz : 1); }

/* Room for `extra` more groups: per-group arrays and slots (load <= 1/2). */
floe_status hagg_gt_reserve(gtable *t, int64_t extra) {
    int64_t need = t->n + extra;
    if (need > (int64_t)UINT32_MAX - 1) return floe_error(FLOE_ERR_UNSUPPORTED, "HashAggregate: more than 4 billion groups");
    if (need > t->cap) {
        int64_t cap = t->cap ? t->cap : 64;
        while (cap < need) cap *= 2;
        uint64_t *h = grow(t->hashes, (size_t)cap, sizeof *h);
        if (h) t->hashes = h;
        uint64_t *k = t->kw ? t->koff : grow(t->koff, (size_t)cap + 1, sizeof *k);
        if (k) t->koff = k;
        if (!h || (!t->kw && !k))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: growing the group table to %lld groups", (long long)cap);
        if (t->cap == 0 && !t->kw) t->koff[0] = 0;
        t->cap = cap;
    }
    uint64_t slots = t->slots ? t->mask + 1 : 0;
    if ((uint64_t)need * 2 > slots) {
        uint64_t ns = slots ? slots : 128;
        while ((uint64_t)need * 2 > ns) ns *= 2;
        uint64_t *s = floe_malloc_array((size_t)ns, sizeof *s);
        if (!s) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: growing the hash table to %llu slots", (unsigned long long)ns);
        memset(s, 0xff, (size_t)ns * sizeof *s);
        uint64_t mask = ns - 1;
        for (int64_t g = 0; g < t->n; g++) {
            uint64_t pos = t->hashes[g] & mask;
            while (s[pos] != EMPTY) pos = (pos + 1) & mask;
            s[pos] = SLOT(t->hashes[g], g);
        }
        floe_free(t->slots);
        t->slots = s;
        t->mask = mask;
    }
    return NULL;
}

/* memcmp for the short keys group tables mostly hold, without a call. */
static inline bool keys_equal(const uint8_t *a, const uint8_t *b, uint32_t len) {
    while (len >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return false;
        a += 8;
        b += 8;
        len -= 8;
    }
    while (len--)
        if (*a++ != *b++) return false;
    return true;
}

static inline const uint8_t *gt_key(const gtable *t, uint32_t id, uint32_t *len) {
    if (t->kw) {
        *len = t->kw;
        return t->keys + (uint64_t)id * t->kw;
    }
    *len = (uint32_t)(t->koff[id + 1] - t->koff[id]);
    return t->keys + t->koff[id];
}

static floe_status gt_insert_key(gtable *t, uint32_t id, const uint8_t *key, uint32_t len) {
    uint64_t at = t->keys_len;
    if (at + len > t->keys_cap) {
        uint64_t cap = t->keys_cap ? t->keys_cap : 4096;
        while (cap < at + len) cap *= 2;
        uint8_t *k = floe_realloc(t->keys, (size_t)cap);
        if (!k) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: growing the key store to %llu bytes", (unsigned long long)cap);
        t->keys = k;
        t->keys_cap = cap;
    }
    if (len) memcpy(t->keys + at, key, len);
    t->keys_len = at + len;
    if (!t->kw) t->koff[id + 1] = at + len;
    return NULL;
}

/* Find or insert n encoded keys (key r: bytes [offs[r], offs[r+1]) of
 * `keys`, hash hashes[r]); ids[r] = its group; is_new[r] (optional) = the
 * key was inserted by this call.  hagg_gt_reserve(t, n) must have been called. */
floe_status hagg_gt_probe(gtable *t, int64_t n, const uint64_t *hashes, const uint8_t *keys, const uint32_t *offs,
                            uint32_t *ids, uint8_t *is_new) {
    for (int64_t r = 0; r < n; r++) {
        if (r + 16 < n) __builtin_prefetch(&t->slots[hashes[r + 16] & t->mask]); /* hide the cache miss */
        uint64_t h = hashes[r];
        const uint8_t *key = keys + offs[r];
        uint32_t len = offs[r + 1] - offs[r];
        uint64_t pos = h & t->mask, tag = h & UINT64_C(0xffffffff00000000);
        uint32_t id;
        bool inserted = false;
        for (;;) {
            uint64_t e = t->slots[pos];
            if (e == EMPTY) {
                id = (uint32_t)t->n;
                FLOE_TRY(gt_insert_key(t, id, key, len));
                t->hashes[id] = h;
                t->slots[pos] = SLOT(h, id);
                t->n++;
                inserted = true;
                break;
            }
            if ((e & UINT64_C(0xffffffff00000000)) == tag) {
                id = (uint32_t)e;
                uint32_t glen;
                const uint8_t *gk = gt_key(t, id, &glen);
                if (glen == len && keys_equal(gk, key, len)) break;
            }
            pos = (pos + 1) & t->mask;
        }
        ids[r] = id;
        if (is_new) is_new[r] = inserted;
    }
    return NULL;
}

/* Bytes of the fixed-width encoding of key columns of these types (tag +
 * value, zeros for NULL), or 0 when some column is variable width. */
uint32_t hagg_fixed_key_width(floe_type *const *types, int32_t n, bool prefix) {
    uint32_t w = prefix ? 4 : 0;
    for (int32_t c = 0; c < n; c++) {
        const floe_type *t = types[c];
        if (floe_type_is_binary_like(t) || floe_type_is_nested(t)) return 0;
        w += 1 + (t->id == FLOE_TYPE_BOOL ? 1 : (uint32_t)(t->byte_width > 0 ? t->byte_width : 0));
    }
    return w ? w : 1;
}

/* --------------------------------------------------------- key encoding */

static inline void put_double(uint8_t *p, double d) {
    if (d == 0) d = 0.0;
    if (isnan(d)) d = NAN;
    memcpy(p, &d, 8);
}
static inline void put_float(uint8_t *p, float f) {
    if (f == 0) f = 0.0f;
    if (isnan(f)) f = NAN;
    memcpy(p, &f, 4);
}

/* scratch is in hash_agg_internal.h: the stream holds one. */

void hagg_scratch_free(scratch *s) {
    floe_free(s->bytes);
    floe_free(s->offs);
    floe_free(s->pos);
    floe_free(s->hashes);
    floe_free(s->ids);
    floe_free(s->rows);
    floe_free(s->sub_ids);
    floe_free(s->is_new);
    floe_free(s->pkeys);
}

floe_status hagg_scratch_reserve(scratch *s, int64_t n) {
    if (n <= s->cap) return NULL;
    int64_t cap = s->cap ? s->cap : 1024;
    while (cap < n) cap *= 2;
    void *p[8] = {floe_realloc(s->offs, (size_t)(cap + 1) * 4), floe_realloc(s->pos, (size_t)cap * 4),
                  floe_realloc(s->hashes, (size_t)cap * 8), floe_realloc(s->ids, (size_t)cap * 4),
                  floe_realloc(s->rows, (size_t)cap * 4), floe_realloc(s->sub_ids, (size_t)cap * 4),
                  floe_realloc(s->is_new, (size_t)cap), floe_realloc(s->pkeys, (size_t)cap * 16)};
    if (p[0]) s->offs = p[0];
    if (p[1]) s->pos = p[1];
    if (p[2]) s->hashes = p[2];
    if (p[3]) s->ids = p[3];
    if (p[4]) s->rows = p[4];
    if (p[5]) s->sub_ids = p[5];
    if (p[6]) s->is_new = p[6];
    if (p[7]) s->pkeys = p[7];
    for (int i = 0; i < 8; i++)
        if (!p[i]) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: scratch space for %lld rows", (long long)cap);
    s->cap = cap;
    return NULL;
}

bool hagg_key_type_ok(const floe_type *t) { return !floe_type_is_nested(t); }

/* Encode rows rows[0..n) (rows NULL: 0..n-1) of the key columns into
 * s->bytes / s->offs, each prefixed by the u32 prefix[k] when given.  kw
 * > 0: every key is kw bytes (hagg_fixed_key_width), NULLs zero-filled. */
floe_status hagg_encode_keys(scratch *s, floe_array *const *cols, int32_t nc, const uint32_t *rows, int64_t n,
                               const uint32_t *prefix, uint32_t kw) {
    uint32_t *offs = s->offs, *pos = s->pos;
    /* pass 1: lengths */
    if (kw) {
        if ((uint64_t)n * kw > UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "HashAggregate: group keys of one batch exceed 4 GiB");
        for (int64_t k = 0; k < n; k++) offs[k + 1] = kw;
    } else {
        for (int64_t k = 0; k < n; k++) offs[k + 1] = (prefix ? 4 : 0) + (uint32_t)nc;
    }
    for (int32_t c = 0; c < nc && !kw; c++) {
        const floe_array *a = cols[c];
        const floe_type *t = a->type;
        if (t->id == FLOE_TYPE_NULL) continue;
        const uint8_t *vb = a->validity ? a->validity->data : NULL;
        if (floe_type_is_binary_like(t)) {
            const int32_t *o = floe_array_offsets(a);
            for (int64_t k = 0; k < n; k++) {
                int64_t r = rows ? rows[k] : k;
                if (!vb || floe_bit_get(vb, a->offset + r)) offs[k + 1] += 4 + (uint32_t)(o[r + 1] - o[r]);
            }
        } else {
            uint32_t w = t->id == FLOE_TYPE_BOOL ? 1 : (uint32_t)t->byte_width;
            for (int64_t k = 0; k < n; k++) {
                int64_t r = rows ? rows[k] : k;
                if (!vb || floe_bit_get(vb, a->offset + r)) offs[k + 1] += w;
            }
        }
    }
    offs[0] = 0;
    uint64_t total = 0;
    for (int64_t k = 0; k < n; k++) {
        total += offs[k + 1];
        if (total > UINT32_MAX) return floe_error(FLOE_ERR_UNSUPPORTED, "HashAggregate: group keys of one batch exceed 4 GiB");
        offs[k + 1] = (uint32_t)total;
    }
    if (total > s->bytes_cap) {
        size_t cap = s->bytes_cap ? s->bytes_cap : 4096;
        while (cap < total) cap *= 2;
        uint8_t *b = floe_realloc(s->bytes, cap);
        if (!b) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "HashAggregate: %zu bytes of keys", cap);
        s->bytes = b;
        s->bytes_cap = cap;
    }
    uint8_t *out = s->bytes;
    for (int64_t k = 0; k < n; k++) {
        pos[k] = offs[k];
        if (prefix) {
            memcpy(out + pos[k], &prefix[k], 4);
            pos[k] += 4;
        }
    }
    /* pass 2: values, column by column */
    for (int32_t c = 0; c < nc; c++) {
        const floe_array *a = cols[c];
        const floe_type *t = a->type;
        const uint8_t *vb = a->validity ? a->validity->data : NULL;
        bool null_type = t->id == FLOE_TYPE_NULL;
        uint32_t w = t->id == FLOE_TYPE_BOOL ? 1 : t->byte_width > 0 ? (uint32_t)t->byte_width : 0;
        for (int64_t k = 0; k < n; k++) {
            int64_t r = rows ? rows[k] : k;
            uint8_t *p = out + pos[k];
            if (null_type || (vb && !floe_bit_get(vb, a->offset + r))) {
                if (kw) memset(p, 0, 1 + w);
                else *p = 0;
                pos[k] += kw ? 1 + w : 1;
                continue;
            }
            *p++ = 1;
            switch (t->id) {
            case FLOE_TYPE_BOOL: *p = floe_array_get_bool(a, r); pos[k] += 2; break;
            case FLOE_TYPE_FLOAT32: put_float(p, floe_array_get_float(a, r)); pos[k] += 5; break;
            case FLOE_TYPE_FLOAT64: put_double(p, floe_array_get_double(a, r)); pos[k] += 9; break;
            case FLOE_TYPE_STRING:
            case FLOE_TYPE_BINARY: {
                floe_strview v = floe_array_get_str(a, r);
                uint32_t len = (uint32_t)v.len;
                memcpy(p, &len, 4);
                if (len) memcpy(p + 4, v.data, len);
                pos[k] += 5 + len;
                break;
            }
            case FLOE_TYPE_INTERVAL: { /* the total: equal totals, one group */
                floe_interval v;
                memcpy(&v, floe_array_get_fixed(a, r), sizeof v);
                __int128 tot = floe_interval_total(v);
                memcpy(p, &tot, 16);
                pos[k] += 17;
                break;
            }
            default:
                memcpy(p, floe_array_get_fixed(a, r), (size_t)t->byte_width);
                pos[k] += 1 + (uint32_t)t->byte_width;
                break;
            }
        }
    }
    return NULL;
}
