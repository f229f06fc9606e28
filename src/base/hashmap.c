/*
 * hashmap.c — linear-probing hash maps with backward-shift deletion (see
 * hashmap.h).
 *
 * Backward shift: after emptying slot i, later entries of the same probe
 * run are moved back into the hole when their home slot does not lie
 * cyclically in (i, j], so every entry stays reachable from its home slot
 * without tombstones.
 */
#include "base/hashmap.h"

#include <string.h>

#include "base/hash.h"
#include "floe/memory.h"

#define MIN_CAP 16

/* True when home slot `k` lies cyclically within (i, j]: the entry at j may
 * then not move to i. */
static inline bool home_between(size_t i, size_t k, size_t j) {
    return i <= j ? (i < k && k <= j) : (i < k || k <= j);
}

/* The capacity (power of two, >= MIN_CAP) holding n entries at <= 3/4 load,
 * or 0 on overflow. */
static size_t cap_for(size_t n) {
    size_t cap = MIN_CAP;
    while (cap - cap / 4 < n) {
        if (cap > SIZE_MAX / 4) return 0;
        cap *= 2;
    }
    return cap;
}

static floe_status oom(const char *what, size_t cap) {
    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory growing a %s to %zu slots", what, cap);
}

/* ======================= string keys ==================================== */

static uint64_t str_hash(floe_str k) { return floe_hash_bytes(k.ptr, k.len, FLOE_HASH_SEED); }

void floe_strmap_init(floe_strmap *m) {
    m->slots = NULL;
    m->cap = 0;
    m->size = 0;
}

void floe_strmap_free_with(floe_strmap *m, void (*free_value)(void *)) {
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].key) continue;
        if (free_value) free_value(m->slots[i].value);
        floe_free(m->slots[i].key);
    }
    floe_free(m->slots);
    floe_strmap_init(m);
}

void floe_strmap_free(floe_strmap *m) { floe_strmap_free_with(m, NULL); }

static floe_status strmap_resize(floe_strmap *m, size_t cap) {
    floe_strmap_entry *slots = floe_calloc(cap, sizeof *slots);
    if (!slots) return oom("string map", cap);
    size_t mask = cap - 1;
    for (size_t i = 0; i < m->cap; i++) {
        floe_strmap_entry *e = &m->slots[i];
        if (!e->key) continue;
        size_t j = e->hash & mask;
        while (slots[j].key) j = (j + 1) & mask;
        slots[j] = *e;
    }
    floe_free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return NULL;
}

floe_status floe_strmap_reserve(floe_strmap *m, size_t n) {
    size_t cap = cap_for(n);
    if (!cap) return oom("string map", SIZE_MAX);
    return cap > m->cap ? strmap_resize(m, cap) : NULL;
}

/* Slot index holding `key`, or -1. */
static ptrdiff_t strmap_lookup(const floe_strmap *m, floe_str key, uint64_t h) {
    if (!m->cap) return -1;
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const floe_strmap_entry *e = &m->slots[i];
        if (!e->key) return -1;
        if (e->hash == h && e->key_len == key.len && memcmp(e->key, key.ptr, key.len) == 0)
            return (ptrdiff_t)i;
    }
}

floe_status floe_strmap_upsert(floe_strmap *m, floe_str key, void ***slot, bool *inserted) {
    if (!key.ptr) key.ptr = "";
    uint64_t h = str_hash(key);
    ptrdiff_t at = strmap_lookup(m, key, h);
    if (at >= 0) {
        *slot = &m->slots[at].value;
        if (inserted) *inserted = false;
        return NULL;
    }
    if (m->size + 1 > m->cap - m->cap / 4) FLOE_TRY(floe_strmap_reserve(m, m->size + 1));
    char *copy = floe_str_dup(key);
    if (!copy) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory copying a %zu-byte map key", key.len);
    size_t mask = m->cap - 1, i = h & mask;
    while (m->slots[i].key) i = (i + 1) & mask;
    m->slots[i] = (floe_strmap_entry){copy, key.len, h, NULL};
    m->size++;
    *slot = &m->slots[i].value;
    if (inserted) *inserted = true;
    return NULL;
}

floe_status floe_strmap_put(floe_strmap *m, floe_str key, void *value, void **old) {
    void **slot;
    bool inserted;
    FLOE_TRY(floe_strmap_upsert(m, key, &slot, &inserted));
    if (old) *old = inserted ? NULL : *slot;
    *slot = value;
    return NULL;
}

floe_status floe_strmap_put_c(floe_strmap *m, const char *key, void *value, void **old) {
    return floe_strmap_put(m, floe_str_c(key), value, old);
}

bool floe_strmap_find(const floe_strmap *m, floe_str key, void **value) {
    if (!key.ptr) key.ptr = "";
    ptrdiff_t at = strmap_lookup(m, key, str_hash(key));
    if (at < 0) return false;
    if (value) *value = m->slots[at].value;
    return true;
}

void *floe_strmap_get(const floe_strmap *m, floe_str key) {
    void *v = NULL;
    return floe_strmap_find(m, key, &v) ? v : NULL;
}

void *floe_strmap_get_c(const floe_strmap *m, const char *key) {
    return floe_strmap_get(m, floe_str_c(key));
}

bool floe_strmap_remove(floe_strmap *m, floe_str key, void **old) {
    if (!key.ptr) key.ptr = "";
    ptrdiff_t at = strmap_lookup(m, key, str_hash(key));
    if (at < 0) return false;
    size_t i = (size_t)at, mask = m->cap - 1;
    if (old) *old = m->slots[i].value;
    floe_free(m->slots[i].key);
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t k = m->slots[j].hash & mask;
        if (home_between(i, k, j)) continue;
        m->slots[i] = m->slots[j];
        i = j;
    }
    m->slots[i].key = NULL;
    m->size--;
    return true;
}

bool floe_strmap_remove_c(floe_strmap *m, const char *key, void **old) {
    return floe_strmap_remove(m, floe_str_c(key), old);
}

bool floe_strmap_next(const floe_strmap *m, size_t *iter, floe_str *key, void **value) {
    for (size_t i = *iter; i < m->cap; i++) {
        const floe_strmap_entry *e = &m->slots[i];
        if (!e->key) continue;
        if (key) *key = floe_str_make(e->key, e->key_len);
        if (value) *value = e->value;
        *iter = i + 1;
        return true;
    }
    *iter = m->cap;
    return false;
}

/* ======================= uint64 keys ==================================== */

void floe_u64map_init(floe_u64map *m) {
    m->slots = NULL;
    m->used = NULL;
    m->cap = 0;
    m->size = 0;
}

void floe_u64map_free(floe_u64map *m) {
    floe_free(m->slots); /* `used` lives in the same block */
    floe_u64map_init(m);
}

static floe_status u64map_resize(floe_u64map *m, size_t cap) {
    /* One block: the entries, then one byte per slot. */
    if (cap > SIZE_MAX / (sizeof(floe_u64map_entry) + 1)) return oom("integer map", cap);
    floe_u64map_entry *slots = floe_calloc(cap, sizeof(floe_u64map_entry) + 1);
    if (!slots) return oom("integer map", cap);
    uint8_t *used = (uint8_t *)(slots + cap);
    size_t mask = cap - 1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i]) continue;
        size_t j = floe_hash_u64(m->slots[i].key) & mask;
        while (used[j]) j = (j + 1) & mask;
        slots[j] = m->slots[i];
        used[j] = 1;
    }
    floe_free(m->slots);
    m->slots = slots;
    m->used = used;
    m->cap = cap;
    return NULL;
}

floe_status floe_u64map_reserve(floe_u64map *m, size_t n) {
    size_t cap = cap_for(n);
    if (!cap) return oom("integer map", SIZE_MAX);
    return cap > m->cap ? u64map_resize(m, cap) : NULL;
}

static ptrdiff_t u64map_lookup(const floe_u64map *m, uint64_t key) {
    if (!m->cap) return -1;
    size_t mask = m->cap - 1;
    for (size_t i = floe_hash_u64(key) & mask;; i = (i + 1) & mask) {
        if (!m->used[i]) return -1;
        if (m->slots[i].key == key) return (ptrdiff_t)i;
    }
}

floe_status floe_u64map_upsert(floe_u64map *m, uint64_t key, uint64_t **slot, bool *inserted) {
    ptrdiff_t at = u64map_lookup(m, key);
    if (at >= 0) {
        *slot = &m->slots[at].value;
        if (inserted) *inserted = false;
        return NULL;
    }
    if (m->size + 1 > m->cap - m->cap / 4) FLOE_TRY(floe_u64map_reserve(m, m->size + 1));
    size_t mask = m->cap - 1, i = floe_hash_u64(key) & mask;
    while (m->used[i]) i = (i + 1) & mask;
    m->used[i] = 1;
    m->slots[i].key = key;
    m->slots[i].value = 0;
    m->size++;
    *slot = &m->slots[i].value;
    if (inserted) *inserted = true;
    return NULL;
}

floe_status floe_u64map_put(floe_u64map *m, uint64_t key, uint64_t value, uint64_t *old, bool *existed) {
    uint64_t *slot;
    bool inserted;
    FLOE_TRY(floe_u64map_upsert(m, key, &slot, &inserted));
    if (old && !inserted) *old = *slot;
    if (existed) *existed = !inserted;
    *slot = value;
    return NULL;
}

bool floe_u64map_get(const floe_u64map *m, uint64_t key, uint64_t *value) {
    ptrdiff_t at = u64map_lookup(m, key);
    if (at < 0) return false;
    if (value) *value = m->slots[at].value;
    return true;
}

bool floe_u64map_remove(floe_u64map *m, uint64_t key, uint64_t *old) {
    ptrdiff_t at = u64map_lookup(m, key);
    if (at < 0) return false;
    size_t i = (size_t)at, mask = m->cap - 1;
    if (old) *old = m->slots[i].value;
    for (size_t j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
        size_t k = floe_hash_u64(m->slots[j].key) & mask;
        if (home_between(i, k, j)) continue;
        m->slots[i] = m->slots[j];
        i = j;
    }
    m->used[i] = 0;
    m->size--;
    return true;
}

bool floe_u64map_next(const floe_u64map *m, size_t *iter, uint64_t *key, uint64_t *value) {
    for (size_t i = *iter; i < m->cap; i++) {
        if (!m->used[i]) continue;
        if (key) *key = m->slots[i].key;
        if (value) *value = m->slots[i].value;
        *iter = i + 1;
        return true;
    }
    *iter = m->cap;
    return false;
}
