/*
 * memory.c — the tracked allocator (see include/floe/memory.h).
 *
 * Each block carries a 16-byte header in front of the caller's bytes: the
 * usable size and the tracker charged.  16 bytes keeps the malloc alignment
 * guarantee (max_align_t) for the pointer handed out.  Accounting is a few
 * relaxed atomic adds per allocation, cheap next to malloc itself; hot loops
 * allocate per batch, never per row.
 */
#include "floe/memory.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    size_t size;
    floe_mem_tracker *tracker;
} block_header;

_Static_assert(sizeof(block_header) == 16, "header must keep 16-byte alignment");

static floe_mem_tracker root_tracker = {.name = "process"};
static _Thread_local floe_mem_tracker *current_tracker;
static _Thread_local bool exempt; /* floe_mem_set_exempt */

bool floe_mem_set_exempt(bool on) {
    bool prev = exempt;
    exempt = on;
    return prev;
}

floe_mem_tracker *floe_mem_root(void) { return &root_tracker; }

void floe_mem_tracker_init(floe_mem_tracker *t, const char *name) {
    t->name = name;
    t->parent = &root_tracker;
    atomic_store(&t->current, 0);
    atomic_store(&t->peak, 0);
    atomic_store(&t->allocations, 0);
    atomic_store(&t->limit, 0);
    atomic_store(&t->denied, 0);
    atomic_store(&t->refs, 0);
    t->counted = false;
}

floe_mem_tracker *floe_mem_tracker_new(const char *name, floe_mem_tracker *parent) {
    /* Plain malloc: the tracker itself is bookkeeping, not charged to any
     * tracker (it may outlive them all). */
    floe_mem_tracker *t = malloc(sizeof *t);
    if (!t) return NULL;
    floe_mem_tracker_init(t, name);
    t->counted = true;
    atomic_store(&t->refs, 1);
    if (parent) {
        t->parent = parent;
        if (parent->counted) atomic_fetch_add(&parent->refs, 1);
    }
    return t;
}

/* One reference fewer; the last one frees the tracker and lets go of its
 * counted parent in turn. */
static void unref(floe_mem_tracker *t) {
    while (t && t->counted && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
        floe_mem_tracker *parent = t->parent;
        free(t);
        t = parent;
    }
}

void floe_mem_tracker_drop(floe_mem_tracker *t) { unref(t); }

void floe_mem_set_limit(floe_mem_tracker *t, int64_t bytes) {
    atomic_store(&t->limit, bytes > 0 ? bytes : 0);
    atomic_store(&t->denied, 0);
}

int64_t floe_mem_limit(const floe_mem_tracker *t) {
    int64_t best = 0;
    for (floe_mem_tracker *x = (floe_mem_tracker *)t; x; x = x->parent) {
        int64_t l = atomic_load_explicit(&x->limit, memory_order_relaxed);
        if (l > 0 && (best == 0 || l < best)) best = l;
    }
    return best;
}

int64_t floe_mem_available(const floe_mem_tracker *t) {
    int64_t left = INT64_MAX;
    for (floe_mem_tracker *x = (floe_mem_tracker *)t; x; x = x->parent) {
        int64_t l = atomic_load_explicit(&x->limit, memory_order_relaxed);
        if (l <= 0) continue;
        int64_t room = l - atomic_load_explicit(&x->current, memory_order_relaxed);
        if (room < left) left = room;
    }
    return left < 0 ? 0 : left;
}

/* Would charging n more bytes to t pass a limit on its chain?  Counts the
 * refusal on the tracker that says no. */
static bool over_limit(floe_mem_tracker *t, int64_t n) {
    for (; t; t = t->parent) {
        int64_t l = atomic_load_explicit(&t->limit, memory_order_relaxed);
        if (l > 0 && atomic_load_explicit(&t->current, memory_order_relaxed) + n > l) {
            atomic_fetch_add_explicit(&t->denied, 1, memory_order_relaxed);
            return true;
        }
    }
    return false;
}

floe_mem_tracker *floe_mem_set_current(floe_mem_tracker *t) {
    floe_mem_tracker *prev = current_tracker;
    current_tracker = t;
    return prev;
}

floe_mem_tracker *floe_mem_current(void) {
    return current_tracker ? current_tracker : &root_tracker;
}

int64_t floe_mem_current_bytes(const floe_mem_tracker *t) {
    return atomic_load(&((floe_mem_tracker *)t)->current);
}

int64_t floe_mem_peak_bytes(const floe_mem_tracker *t) {
    return atomic_load(&((floe_mem_tracker *)t)->peak);
}

void floe_mem_reset_peak(floe_mem_tracker *t) {
    atomic_store(&t->peak, atomic_load(&t->current));
}

static void charge(floe_mem_tracker *t, int64_t delta) {
    for (; t; t = t->parent) {
        int64_t now = atomic_fetch_add_explicit(&t->current, delta, memory_order_relaxed) + delta;
        if (delta > 0) {
            atomic_fetch_add_explicit(&t->allocations, 1, memory_order_relaxed);
            int64_t peak = atomic_load_explicit(&t->peak, memory_order_relaxed);
            while (now > peak &&
                   !atomic_compare_exchange_weak_explicit(&t->peak, &peak, now,
                                                          memory_order_relaxed,
                                                          memory_order_relaxed)) {
            }
        }
    }
}

bool floe_mem_try_reserve(floe_mem_tracker *t, int64_t bytes) {
    if (!t) t = floe_mem_current();
    if (bytes <= 0) return true;
    if (over_limit(t, bytes)) return false;
    charge(t, bytes);
    return true;
}

void floe_mem_release(floe_mem_tracker *t, int64_t bytes) {
    if (!t) t = floe_mem_current();
    if (bytes > 0) charge(t, -bytes);
}

void floe_mem_format(int64_t bytes, char *buf, size_t cap) {
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        snprintf(buf, cap, "%lld bytes", (long long)bytes);
        return;
    }
    double v = (double)bytes / 1024.0;
    int u = 0;
    while (v >= 1024.0 && u < 3) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, cap, "%.1f %s", v, units[u]);
}

int64_t floe_mem_physical(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0) return 0;
    return (int64_t)pages * (int64_t)size;
}

/* A block charged to a counted tracker keeps it alive. */
static inline void hold(floe_mem_tracker *t) {
    if (t->counted) atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

/* Refused by a limit?  Only blocks of FLOE_MEM_DENY_MIN bytes or more. */
static bool refuse(size_t n) {
    return n >= FLOE_MEM_DENY_MIN && !exempt && over_limit(floe_mem_current(), (int64_t)n);
}

void *floe_malloc(size_t n) {
    if (n > SIZE_MAX - sizeof(block_header)) return NULL;
    if (refuse(n)) return NULL;
    block_header *h = malloc(sizeof(block_header) + n);
    if (!h) return NULL;
    h->size = n;
    h->tracker = floe_mem_current();
    hold(h->tracker);
    charge(h->tracker, (int64_t)n);
    return h + 1;
}

/* Uses calloc rather than malloc + memset: for large blocks the C library
 * maps fresh zero pages and nothing has to be touched up front (hash
 * tables and bitmaps are often allocated much larger than first used). */
void *floe_calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    size_t n = count * size;
    if (n > SIZE_MAX - sizeof(block_header)) return NULL;
    if (refuse(n)) return NULL;
    block_header *h = calloc(1, sizeof(block_header) + n);
    if (!h) return NULL;
    h->size = n;
    h->tracker = floe_mem_current();
    hold(h->tracker);
    charge(h->tracker, (int64_t)n);
    return h + 1;
}

void *floe_malloc_array(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    return floe_malloc(count * size);
}

void *floe_realloc(void *p, size_t n) {
    if (!p) return floe_malloc(n);
    if (n > SIZE_MAX - sizeof(block_header)) return NULL;
    block_header *h = (block_header *)p - 1;
    size_t old = h->size;
    floe_mem_tracker *t = h->tracker;
    if (n > old && n - old >= FLOE_MEM_DENY_MIN && !exempt && over_limit(t, (int64_t)(n - old))) return NULL;
    block_header *nh = realloc(h, sizeof(block_header) + n);
    if (!nh) return NULL;
    nh->size = n;
    charge(t, (int64_t)n - (int64_t)old);
    return nh + 1;
}

void floe_free(void *p) {
    if (!p) return;
    block_header *h = (block_header *)p - 1;
    floe_mem_tracker *t = h->tracker;
    charge(t, -(int64_t)h->size);
    free(h);
    unref(t);
}

char *floe_strdup(const char *s) { return s ? floe_strndup(s, strlen(s)) : NULL; }

char *floe_strndup(const char *s, size_t n) {
    if (!s) return NULL;
    size_t len = strnlen(s, n);
    char *out = floe_malloc(len + 1);
    if (!out) return NULL;
    memcpy(out, s, len);
    out[len] = '\0';
    return out;
}

void floe_memory_tune_process(void) {
    /* 32 MiB is glibc's largest mmap threshold on 64-bit; blocks below it
     * come from the heap and are reused.  Trim only past 1 GiB of free top
     * so steady-state scans stop faulting pages in and out. */
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
}
