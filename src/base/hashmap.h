/*
 * hashmap.h — open-addressing hash maps: string keys and 64-bit keys.
 *
 * Both maps use linear probing over a power-of-two table kept at most 3/4
 * full, and backward-shift deletion (no tombstones, so lookups never slow
 * down after many removals).  All memory comes from floe_malloc; running
 * out of it is reported as FLOE_ERR_OUT_OF_MEMORY and leaves the map as it
 * was.  Maps are not thread-safe.  Inserting or removing while iterating
 * is not allowed (it may move entries); pointers returned into a map's
 * storage stay valid only until the next insertion or removal.
 *
 * floe_strmap: byte-string keys (any bytes, copied and owned by the map,
 *   stored NUL-terminated) to void * values (not owned: free them yourself,
 *   or with floe_strmap_free_with).
 * floe_u64map: uint64_t keys to uint64_t values, with _ptr helpers for
 *   storing pointers.
 *
 *   floe_strmap m;  floe_strmap_init(&m);
 *   FLOE_TRY(floe_strmap_put_c(&m, "warehouse", val, NULL));
 *   void *v = floe_strmap_get_c(&m, "warehouse");
 *   size_t it = 0; floe_str k; void *x;
 *   while (floe_strmap_next(&m, &it, &k, &x)) ...
 *   floe_strmap_free(&m);
 */
#ifndef FLOE_BASE_HASHMAP_H
#define FLOE_BASE_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/str.h"
#include "floe/status.h"

/* ---- string keys -> void * -------------------------------------------- */

typedef struct floe_strmap_entry {
    char *key;      /* NULL marks an empty slot */
    size_t key_len;
    uint64_t hash;
    void *value;
} floe_strmap_entry;

typedef struct floe_strmap {
    floe_strmap_entry *slots;
    size_t cap;  /* 0 or a power of two */
    size_t size;
} floe_strmap;

#define FLOE_STRMAP_INIT {NULL, 0, 0}

void floe_strmap_init(floe_strmap *m);
/* Free the keys and the table (values are left alone). */
void floe_strmap_free(floe_strmap *m);
/* Same, calling free_value(value) for every entry first. */
void floe_strmap_free_with(floe_strmap *m, void (*free_value)(void *));
/* Make room for `n` entries in total without further growth. */
floe_status floe_strmap_reserve(floe_strmap *m, size_t n) FLOE_WARN_UNUSED;

/* Insert or replace.  When the key existed its value is replaced and the
 * previous one stored in *old (if old is not NULL); otherwise *old = NULL. */
floe_status floe_strmap_put(floe_strmap *m, floe_str key, void *value, void **old) FLOE_WARN_UNUSED;
floe_status floe_strmap_put_c(floe_strmap *m, const char *key, void *value, void **old) FLOE_WARN_UNUSED;
/* Find the value slot of `key`, inserting it with a NULL value if absent;
 * *inserted tells which.  The slot pointer is valid until the next change. */
floe_status floe_strmap_upsert(floe_strmap *m, floe_str key, void ***slot, bool *inserted) FLOE_WARN_UNUSED;

/* True and *value set when present (value may be NULL). */
bool floe_strmap_find(const floe_strmap *m, floe_str key, void **value);
/* The value, or NULL when absent (use find to tell a NULL value apart). */
void *floe_strmap_get(const floe_strmap *m, floe_str key);
void *floe_strmap_get_c(const floe_strmap *m, const char *key);
static inline bool floe_strmap_contains(const floe_strmap *m, floe_str key) {
    return floe_strmap_find(m, key, NULL);
}

/* Remove; true when the key was present, its value stored in *old. */
bool floe_strmap_remove(floe_strmap *m, floe_str key, void **old);
bool floe_strmap_remove_c(floe_strmap *m, const char *key, void **old);

static inline size_t floe_strmap_size(const floe_strmap *m) { return m->size; }

/* Iterate in table order: start with *iter = 0; returns false at the end.
 * key->ptr is the map's NUL-terminated copy. */
bool floe_strmap_next(const floe_strmap *m, size_t *iter, floe_str *key, void **value);

/* ---- uint64 keys -> uint64 (or pointer) values ------------------------- */

typedef struct floe_u64map_entry {
    uint64_t key;
    uint64_t value;
} floe_u64map_entry;

typedef struct floe_u64map {
    floe_u64map_entry *slots;
    uint8_t *used;  /* 1 per occupied slot (every key value is allowed) */
    size_t cap;
    size_t size;
} floe_u64map;

#define FLOE_U64MAP_INIT {NULL, NULL, 0, 0}

void floe_u64map_init(floe_u64map *m);
void floe_u64map_free(floe_u64map *m);
floe_status floe_u64map_reserve(floe_u64map *m, size_t n) FLOE_WARN_UNUSED;

/* Insert or replace (previous value in *old when old is not NULL and the
 * key existed; *existed, if given, tells whether it did). */
floe_status floe_u64map_put(floe_u64map *m, uint64_t key, uint64_t value, uint64_t *old,
                            bool *existed) FLOE_WARN_UNUSED;
/* Value slot of `key`, inserted with value 0 when absent (counters,
 * aggregation group ids).  Valid until the next change. */
floe_status floe_u64map_upsert(floe_u64map *m, uint64_t key, uint64_t **slot, bool *inserted) FLOE_WARN_UNUSED;
bool floe_u64map_get(const floe_u64map *m, uint64_t key, uint64_t *value);
bool floe_u64map_remove(floe_u64map *m, uint64_t key, uint64_t *old);
static inline size_t floe_u64map_size(const floe_u64map *m) { return m->size; }
bool floe_u64map_next(const floe_u64map *m, size_t *iter, uint64_t *key, uint64_t *value);

/* Pointer-valued convenience wrappers. */
static inline floe_status floe_u64map_put_ptr(floe_u64map *m, uint64_t key, void *value) {
    return floe_u64map_put(m, key, (uint64_t)(uintptr_t)value, NULL, NULL);
}
/* The pointer stored for key, or NULL when absent. */
static inline void *floe_u64map_get_ptr(const floe_u64map *m, uint64_t key) {
    uint64_t v;
    return floe_u64map_get(m, key, &v) ? (void *)(uintptr_t)v : NULL;
}

#endif
