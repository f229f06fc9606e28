/*
 * memory.h — floe's allocator: malloc with accounting.
 *
 * Every allocation made through floe_malloc() and friends is charged to a
 * memory tracker: the process-wide root tracker always, and also the calling
 * thread's current tracker (one per query, set by the runtime around each
 * task).  A tracker knows its current and peak bytes, which EXPLAIN ANALYZE
 * and the benchmarks report.  The block remembers which tracker paid for it,
 * so it may be freed on any thread.
 *
 * Memory from floe_malloc() must be released with floe_free(), never free().
 * A tracker made with floe_mem_tracker_new() is counted: every block
 * charged to it holds a reference, so a block may outlive the query (or
 * operator) it was allocated for — a send buffer still in flight, a cached
 * object — and the tracker goes only when its owner has dropped it and the
 * last such block is freed.  An embedded tracker (floe_mem_tracker_init) is
 * not counted and must outlive every block charged to it.  State meant to
 * outlive a query (caches of immutable manifests, say) is still better
 * allocated with the root as the current tracker (floe_mem_set_current(NULL)
 * around it), so the query's figures do not count it.
 * Allocation failure returns NULL; callers turn that into FLOE_ERR_OUT_OF_MEMORY.
 *
 * Limits: a tracker may carry a byte limit (SET memory_limit puts one on
 * the query's tracker).  An allocation of FLOE_MEM_DENY_MIN bytes or more
 * that would take a limited tracker on its chain past its limit is refused
 * (NULL); smaller ones (status messages, small structs) are charged but
 * never refused, so error paths keep working.  Operators that can spill
 * ask first: floe_mem_try_reserve() charges bytes they are about to need
 * without allocating them, or says no, and they spill instead of failing.
 */
#ifndef FLOE_MEMORY_H
#define FLOE_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct floe_mem_tracker {
    const char *name;
    struct floe_mem_tracker *parent; /* charged too; NULL for the root */
    _Atomic int64_t current;
    _Atomic int64_t peak;
    _Atomic int64_t allocations;     /* count of allocations made */
    _Atomic int64_t limit;           /* bytes; 0: none */
    _Atomic int64_t denied;          /* allocations and reservations refused */
    _Atomic int64_t refs;            /* counted trackers: 1 for the owner + 1
                                      * per live block (+1 per counted child);
                                      * 0 for embedded ones, never counted */
    bool counted;                    /* made by floe_mem_tracker_new */
} floe_mem_tracker;

/* Allocations smaller than this are never refused by a limit. */
#define FLOE_MEM_DENY_MIN 8192

/* The process-wide tracker every allocation is charged to. */
floe_mem_tracker *floe_mem_root(void);

/* Initialise a tracker (e.g. one per query) whose parent is the root. */
void floe_mem_tracker_init(floe_mem_tracker *t, const char *name);

/* A counted tracker on the heap, charged onwards to parent (NULL: the root;
 * a counted parent is kept alive while this one lives).  NULL when out of
 * memory.  The owner lets go with floe_mem_tracker_drop(); the tracker is
 * freed once no block charged to it remains. */
floe_mem_tracker *floe_mem_tracker_new(const char *name, floe_mem_tracker *parent);
void floe_mem_tracker_drop(floe_mem_tracker *t);

/* Make `t` the calling thread's current tracker; returns the previous one,
 * which the caller restores when its task ends.  NULL means the root. */
floe_mem_tracker *floe_mem_set_current(floe_mem_tracker *t);
floe_mem_tracker *floe_mem_current(void);

int64_t floe_mem_current_bytes(const floe_mem_tracker *t);
int64_t floe_mem_peak_bytes(const floe_mem_tracker *t);
/* Reset peak to current (between benchmark iterations, say). */
void floe_mem_reset_peak(floe_mem_tracker *t);

/* Set t's limit in bytes (0: none) and clear its refusal count. */
void floe_mem_set_limit(floe_mem_tracker *t, int64_t bytes);
/* The tightest limit on t's chain (0: none), and how many bytes may still
 * be charged to t before one on the chain is reached (INT64_MAX: none). */
int64_t floe_mem_limit(const floe_mem_tracker *t);
int64_t floe_mem_available(const floe_mem_tracker *t);
/* Charge `bytes` to t (NULL: the current tracker) if no limit on its chain
 * is passed; false (nothing charged, the refusal counted) otherwise.
 * Release what was reserved with floe_mem_release on the same tracker. */
bool floe_mem_try_reserve(floe_mem_tracker *t, int64_t bytes);
void floe_mem_release(floe_mem_tracker *t, int64_t bytes);
/* While on, the calling thread's allocations are never refused by a limit
 * (still charged): for an operator spending room it had reserved and just
 * released (a sort writing a run), which another thread could otherwise
 * take in between.  Returns the previous setting, to restore. */
bool floe_mem_set_exempt(bool on);
/* "256.0 MiB", "4.0 GiB", "512 bytes" into buf. */
void floe_mem_format(int64_t bytes, char *buf, size_t cap);
/* Physical memory of the machine in bytes (0 when it cannot be read). */
int64_t floe_mem_physical(void);

void *floe_malloc(size_t n);
void *floe_calloc(size_t count, size_t size);
void *floe_realloc(void *p, size_t n);
void floe_free(void *p);
char *floe_strdup(const char *s);
char *floe_strndup(const char *s, size_t n);

/* Tune the C allocator for an engine process (call once, early, from main):
 * keep freed memory in the heap instead of returning it to the kernel.
 * Scans allocate and free batch buffers of a few MiB at a high rate; with
 * glibc's defaults each one is a fresh mmap whose pages fault in again on
 * first touch, which on some virtual machines costs tens of microseconds
 * per page and dominated decode time (10x on the lineitem read benchmark).
 * Changes process-wide malloc settings, so a library never calls it by
 * itself; embedding programs may. */
void floe_memory_tune_process(void);

/* Allocate an array of `count` elements of `size` bytes, NULL on overflow. */
void *floe_malloc_array(size_t count, size_t size);

#ifdef __cplusplus
}
#endif
#endif
