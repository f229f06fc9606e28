/*
 * join_common.h — what HashJoin and NestedLoopJoin share: the collected
 * left ("build") side of one execution, the matched-row bookkeeping that
 * lets the last probe partition emit unmatched build rows, and gathering
 * joined output batches.
 *
 * COLLECT_LEFT: every probe (right) partition of one execution uses the
 * same floe_join_build, held by the node's per-execution state (a
 * floe_join_shared, see floe_execution).  Once every probe partition has
 * opened and closed its stream the build is freed, before the execution
 * ends.  Another execution of the same node has a build of its own.
 *
 * The build reads the left partitions as units of work: whichever probe
 * streams are waiting take unread partitions and read them, so a waiting
 * stream helps instead of blocking a pool worker on work nobody runs.
 * The thread finishing the last unit concatenates the rows and runs the
 * node's `finish` (the hash table), then wakes the others.
 */
#ifndef FLOE_EXEC_JOIN_COMMON_H
#define FLOE_EXEC_JOIN_COMMON_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/exec.h"
#include "floe/exec_ops.h"

typedef struct floe_join_build floe_join_build;

/* Node-specific work on the collected rows (build a hash table ...):
 * called once, by one thread, with b->batch set (NULL when the left side
 * is empty).  Stores its product in b->table / b->free_table. */
typedef floe_status (*floe_join_finish_fn)(floe_join_build *b, const floe_plan *node);

struct floe_join_build {
    _Atomic int32_t refs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* units: left partitions [unit_base, unit_base + n_units) */
    int32_t unit_base, n_units, next_unit, units_done;
    floe_batch ***unit_batches;
    int64_t *unit_n;
    bool ready;        /* batch, table and matched are final */
    floe_status err;   /* the first failure (copied to every stream) */
    atomic_bool failed; /* err is set: unit readers stop early */
    /* results */
    floe_batch *batch; /* all left rows; NULL when none */
    int64_t rows;
    void *table;
    void (*free_table)(void *table);
    /* bookkeeping for unmatched build rows */
    atomic_uchar *matched;      /* per build row, when track_matched */
    _Atomic int32_t probes_done;
    atomic_bool probe_null_key; /* null-aware: a probe row had a NULL key */
    atomic_bool probe_any;      /* a probe row was seen */
    int32_t n_probes;
};

/* A COLLECT_LEFT node's per-execution state: the build its probe
 * partitions share, and which of them have opened. */
typedef struct floe_join_shared {
    pthread_mutex_t mu;
    floe_join_build *build; /* NULL once every probe partition has closed */
    int32_t n_probes, n_opened, n_open;
    bool *opened;
} floe_join_shared;

/* The state for a node with `n_probes` probe partitions reading left
 * partitions [0, n_units) (the node's init_shared), and its free_shared. */
floe_status floe_join_shared_new(int32_t n_probes, int32_t n_units, floe_join_shared **out) FLOE_WARN_UNUSED;
void floe_join_shared_free(void *sh);

/* The shared build for probe partition `part` (each partition once). */
floe_status floe_join_build_acquire(floe_join_shared *sh, int32_t part, floe_join_build **out) FLOE_WARN_UNUSED;
/* A build of one probe partition's own, reading left partitions
 * [unit_base, unit_base + n_units) (PARTITIONED joins). */
floe_status floe_join_build_private(int32_t unit_base, int32_t n_units, floe_join_build **out) FLOE_WARN_UNUSED;
/* Drop a stream's hold (sh: NULL for a private build). */
void floe_join_build_release(floe_join_shared *sh, floe_join_build *b);

/* Make the build ready: read unread units (helping), wait for the others,
 * finish once.  Returns a copy of the build's error if it failed. */
floe_status floe_join_build_wait(floe_join_build *b, const floe_plan *node, const floe_exec_ctx *ctx,
                                 bool track_matched, floe_join_finish_fn finish) FLOE_WARN_UNUSED;

static inline void floe_join_mark(floe_join_build *b, uint32_t row) {
    if (!atomic_load_explicit(&b->matched[row], memory_order_relaxed))
        atomic_store_explicit(&b->matched[row], 1, memory_order_relaxed);
}

/* A joined batch of n rows with `schema`: left columns gathered from lb
 * at lidx (NULL lb: all NULL) when with_left, then right columns from rb
 * at ridx likewise when with_right. */
floe_status floe_join_gather(const floe_schema *schema, const floe_schema *left, const floe_batch *lb,
                             const uint32_t *lidx, bool with_left, const floe_schema *right,
                             const floe_batch *rb, const uint32_t *ridx, bool with_right, int64_t n,
                             floe_batch **out) FLOE_WARN_UNUSED;

/* What both joins do with np candidate pairs (build row bidx[j], probe
 * row pidx[j] of pb): keep those passing `filter` (over `pair_schema`,
 * left ++ right; may be NULL; its error is wrapped with `what`), compacting
 * bidx/pidx; mark matched build rows and, when pmatched is set, matched
 * probe rows; and for join types that output pairs, *out the joined rows
 * in `node`'s schema (else *out stays NULL).  *np becomes the pairs kept. */
floe_status floe_join_process_pairs(const floe_plan *node, floe_join_type type, const floe_expr *filter,
                                    const floe_schema *pair_schema, const char *what, floe_join_build *build,
                                    const floe_batch *pb, uint32_t *bidx, uint32_t *pidx, uint8_t *pmatched,
                                    int64_t *np, floe_batch **out) FLOE_WARN_UNUSED;

/* Join types that output build (left) rows that found no match, or only
 * build rows; and that output probe rows that found no match. */
static inline bool floe_join_tracks_left(floe_join_type t) {
    return t == FLOE_JOIN_LEFT || t == FLOE_JOIN_FULL || t == FLOE_JOIN_LEFT_SEMI || t == FLOE_JOIN_LEFT_ANTI;
}
static inline bool floe_join_tracks_right(floe_join_type t) {
    return t == FLOE_JOIN_RIGHT || t == FLOE_JOIN_FULL || t == FLOE_JOIN_RIGHT_SEMI || t == FLOE_JOIN_RIGHT_ANTI;
}
/* Join types whose output rows are (left, right) pairs. */
static inline bool floe_join_outputs_pairs(floe_join_type t) {
    return t == FLOE_JOIN_INNER || t == FLOE_JOIN_LEFT || t == FLOE_JOIN_RIGHT || t == FLOE_JOIN_FULL;
}

/* Hands out a probe stream's non-empty batches in slices of at most
 * `cap` rows, so per-batch buffers of a join stay bounded. */
typedef struct floe_join_chunker {
    floe_batch *rest; /* a long batch being handed out */
    int64_t off;
} floe_join_chunker;
floe_status floe_join_next_chunk(floe_stream *in, floe_join_chunker *c, int64_t cap,
                                 floe_batch **out) FLOE_WARN_UNUSED;
static inline void floe_join_chunker_clear(floe_join_chunker *c) {
    floe_batch_release(c->rest);
    c->rest = NULL;
}

/* Codec helper: a join type read back, range-checked. */
floe_status floe_join_type_from_i64(int64_t v, floe_join_type *out) FLOE_WARN_UNUSED;

#endif
