/*
 * manifest_cache.c — a process-wide cache of decoded manifests keyed by
 * their resolved path (and the first_row_id they inherit, v3).  Manifests are immutable once committed, so a
 * decoded copy can serve every later plan of any snapshot that lists it.
 * Manifests are held in the planner's compact form (scan_internal.h), a
 * fraction of the full form's size.
 *
 * Each entry owns a memory tracker (parent: the root) under which its
 * manifest was decoded, so its size is exact whatever other threads
 * allocate.  Entries are reference-counted: eviction (least recently used
 * first, when the decoded bytes exceed the budget) unlinks an entry, and the
 * last holder frees it.  Entries and the map are allocated with the root as
 * the current tracker so they may outlive the query that read them.
 *
 * Two threads missing the same path both read it; the second insert loses
 * and frees its copy (simpler than waiting, and rare).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/hashmap.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/scan/scan_internal.h"
#include "floe/iceberg_scan.h"

struct floe_ice_cached_manifest {
    floe_mem_tracker tracker;        /* what the decoded manifest costs */
    floe_ice_scan_manifest *m;
    char *key;
    int64_t bytes;
    int refs;                        /* holders, + 1 while in the map */
    bool in_map;
    struct floe_ice_cached_manifest *prev, *next; /* LRU list, newest first */
};

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static floe_strmap cache_map;
static bool cache_init;
static floe_ice_cached_manifest *lru_head, *lru_tail;
static int64_t cache_budget = 256LL * 1024 * 1024;
static floe_ice_manifest_cache_stats cache_stats;

static void entry_free(floe_ice_cached_manifest *e) {
    floe_mem_tracker *prev = floe_mem_set_current(&e->tracker);
    floe_ice_scan_manifest_free(e->m);
    floe_mem_set_current(NULL);
    floe_free(e->key);
    floe_free(e);
    floe_mem_set_current(prev);
}

static void lru_unlink(floe_ice_cached_manifest *e) {
    if (e->prev) e->prev->next = e->next;
    else lru_head = e->next;
    if (e->next) e->next->prev = e->prev;
    else lru_tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push(floe_ice_cached_manifest *e) {
    e->prev = NULL;
    e->next = lru_head;
    if (lru_head) lru_head->prev = e;
    lru_head = e;
    if (!lru_tail) lru_tail = e;
}

/* Unlink `e` from map and list; returns true when the caller must free it.
 * Called with the lock held. */
static bool drop_locked(floe_ice_cached_manifest *e) {
    floe_strmap_remove_c(&cache_map, e->key, NULL);
    lru_unlink(e);
    e->in_map = false;
    cache_stats.bytes -= e->bytes;
    cache_stats.entries--;
    return --e->refs == 0;
}

/* Evict from the tail until within budget; victims freed after unlocking. */
static void evict_locked(floe_ice_cached_manifest **victims, size_t *nv, size_t cap) {
    while (lru_tail && cache_stats.bytes > cache_budget && *nv < cap) {
        floe_ice_cached_manifest *e = lru_tail;
        cache_stats.evictions++;
        if (drop_locked(e)) victims[(*nv)++] = e;
    }
}

void floe_ice_manifest_cache_set_budget(int64_t bytes) {
    floe_ice_cached_manifest *victims[64];
    size_t nv;
    pthread_mutex_lock(&cache_mu);
    cache_budget = bytes < 0 ? 0 : bytes;
    pthread_mutex_unlock(&cache_mu);
    do {
        nv = 0;
        pthread_mutex_lock(&cache_mu);
        evict_locked(victims, &nv, 64);
        pthread_mutex_unlock(&cache_mu);
        for (size_t i = 0; i < nv; i++) entry_free(victims[i]);
    } while (nv == 64);
}

void floe_ice_manifest_cache_clear(void) {
    for (;;) {
        floe_ice_cached_manifest *e = NULL;
        bool do_free = false;
        pthread_mutex_lock(&cache_mu);
        if (lru_tail) {
            e = lru_tail;
            do_free = drop_locked(e);
        }
        bool empty = lru_tail == NULL;
        if (empty && cache_init) {
            floe_mem_tracker *prev = floe_mem_set_current(NULL);
            floe_strmap_free(&cache_map);
            floe_mem_set_current(prev);
            cache_init = false;
        }
        pthread_mutex_unlock(&cache_mu);
        if (do_free) entry_free(e);
        if (empty) break;
    }
}

void floe_ice_manifest_cache_stats_get(floe_ice_manifest_cache_stats *out) {
    pthread_mutex_lock(&cache_mu);
    *out = cache_stats;
    pthread_mutex_unlock(&cache_mu);
}

void floe_ice_manifest_cache_release(floe_ice_cached_manifest *h) {
    if (!h) return;
    pthread_mutex_lock(&cache_mu);
    bool do_free = --h->refs == 0;
    pthread_mutex_unlock(&cache_mu);
    if (do_free) entry_free(h);
}

typedef struct read_arg {
    const floe_ice_manifest_file *mf;
    floe_ice_cached_manifest *e;
} read_arg;

static floe_status read_into_entry(floe_input *in, void *varg) {
    read_arg *a = varg;
    const floe_ice_manifest_file *mf = a->mf;
    floe_mem_tracker *prev = floe_mem_set_current(&a->e->tracker);
    floe_status st =
        floe_ice_scan_manifest_read(in, mf->added_snapshot_id >= 0 || mf->sequence_number > 0 ? mf : NULL, &a->e->m);
    floe_mem_set_current(prev);
    return st;
}

static floe_status read_manifest(const floe_ice_table *t, const floe_ice_manifest_file *mf, floe_ice_cached_manifest *e) {
    read_arg a = {mf, e};
    floe_status st = floe_ice_table_read_recorded(t, mf->manifest_path, mf->manifest_length, read_into_entry, &a);
    if (st) return floe_status_wrap(st, "manifest %s", mf->manifest_path);
    e->bytes = floe_mem_current_bytes(&e->tracker);
    return NULL;
}

static floe_status lookup_or_read(const floe_ice_table *t, const floe_ice_manifest_file *mf, const char *path,
                                  floe_ice_cached_manifest **h, const floe_ice_scan_manifest **m);

floe_status floe_ice_manifest_cache_get(const floe_ice_table *t, const floe_ice_manifest_file *mf,
                                        floe_ice_cached_manifest **h, const floe_ice_scan_manifest **m) {
    *h = NULL;
    *m = NULL;
    /* Keyed by the resolved path: two moved tables may record the same
     * relative manifest path for different files.  And by the list
     * record's first_row_id, which the entries inherit: one manifest has
     * none in the lists before a table's upgrade to v3 and one after (and
     * may have others in other branches). */
    char *resolved = NULL;
    FLOE_TRY(floe_ice_table_resolve_path(t, mf->manifest_path, &resolved));
    floe_status st = NULL;
    if (mf->has_first_row_id) {
        size_t n = strlen(resolved) + 32;
        char *key = floe_malloc(n);
        if (!key) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory caching manifest %s", mf->manifest_path);
        else snprintf(key, n, "%s\x01%" PRId64, resolved, mf->first_row_id);
        floe_free(resolved);
        resolved = key;
    }
    if (!st) st = lookup_or_read(t, mf, resolved, h, m);
    floe_free(resolved);
    return st;
}

static floe_status lookup_or_read(const floe_ice_table *t, const floe_ice_manifest_file *mf, const char *path,
                                  floe_ice_cached_manifest **h, const floe_ice_scan_manifest **m) {
    pthread_mutex_lock(&cache_mu);
    if (!cache_init) {
        floe_strmap_init(&cache_map);
        cache_init = true;
    }
    floe_ice_cached_manifest *e = floe_strmap_get_c(&cache_map, path);
    if (e) {
        e->refs++;
        lru_unlink(e);
        lru_push(e);
        cache_stats.hits++;
        pthread_mutex_unlock(&cache_mu);
        *h = e;
        *m = e->m;
        return NULL;
    }
    cache_stats.misses++;
    pthread_mutex_unlock(&cache_mu);

    floe_mem_tracker *prev = floe_mem_set_current(NULL);
    e = floe_calloc(1, sizeof *e);
    char *key = floe_strdup(path);
    floe_mem_set_current(prev);
    if (!e || !key) {
        floe_free(e);
        floe_free(key);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory caching manifest %s", mf->manifest_path);
    }
    floe_mem_tracker_init(&e->tracker, "manifest-cache");
    e->key = key;
    e->refs = 1;
    floe_status st = read_manifest(t, mf, e);
    if (st) {
        entry_free(e);
        return st;
    }
    floe_ice_cached_manifest *victims[16];
    size_t nv = 0;
    floe_ice_cached_manifest *loser = NULL;
    pthread_mutex_lock(&cache_mu);
    if (cache_budget > 0 && e->bytes <= cache_budget) {
        if (!cache_init) {
            floe_strmap_init(&cache_map);
            cache_init = true;
        }
        floe_ice_cached_manifest *other = floe_strmap_get_c(&cache_map, key);
        if (other) {
            /* Someone else read it meanwhile: keep theirs. */
            other->refs++;
            loser = e;
            e = other;
        } else {
            prev = floe_mem_set_current(NULL);
            floe_status pst = floe_strmap_put_c(&cache_map, key, e, NULL);
            floe_mem_set_current(prev);
            if (pst) floe_status_free(pst); /* uncached, still usable */
            else {
                e->refs++;
                e->in_map = true;
                lru_push(e);
                cache_stats.bytes += e->bytes;
                cache_stats.entries++;
                evict_locked(victims, &nv, 16);
            }
        }
    }
    pthread_mutex_unlock(&cache_mu);
    for (size_t i = 0; i < nv; i++) entry_free(victims[i]);
    if (loser) entry_free(loser);
    *h = e;
    *m = e->m;
    return NULL;
}
