/*
 * hash_agg_internal.h — what the pieces of HashAggregate share (the node
 * is exec_ops.h's floe_plan_hash_aggregate; hash_agg.c describes how it
 * works):
 *
 *   hash_agg.c     the node: result types, accumulator choice, codec,
 *                  EXPLAIN, required distribution, constructor
 *   agg_stream.c   execution: the stream, its state rows, consuming
 *                  batches (keys and arguments, group ids, DISTINCT)
 *   agg_table.c    the general group table and the key encoding
 *   agg_packed.c   the table of keys packed into 16 bytes (agg_packed.h)
 *   agg_kernels.c  folding argument columns into the state rows (the
 *                  benchmarked loops)
 *   agg_emit.c     output batches: keys decoded, final values or PARTIAL
 *                  state columns
 *   agg_spill.c    under a memory limit: PARTIAL flushes its groups early,
 *                  SINGLE / FINAL spill them as state batches partitioned
 *                  by key hash and re-aggregate each partition
 *   agg_generic.c  the registry's entries (agg_func.h) inside the node:
 *                  their states, FILTER'd and collected (DISTINCT /
 *                  ORDER BY / holistic) rows
 */
#ifndef FLOE_EXEC_AGG_HASH_AGG_INTERNAL_H
#define FLOE_EXEC_AGG_HASH_AGG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buffer.h"
#include "base/threadpool.h"
#include "exec/agg/agg_func.h"
#include "exec/agg/agg_packed.h"
#include "exec/expr/agg_cse.h"
#include "exec/plan_internal.h"
#include "floe/exec_ops.h"
#include "floe/memory.h"

typedef __int128 i128;

/* ---- the node (hash_agg.c) ------------------------------------------------------ */

typedef struct agg_plan {
    floe_plan head;
    floe_agg_mode mode;
    int32_t n_groups;
    floe_expr **groups;      /* as given (FINAL: over input_schema) */
    char **group_names;
    floe_expr **key_cols;    /* FINAL: #0..#n-1 over the child (required input) */
    int32_t n_calls;
    floe_agg_call *calls;    /* deep copies: args retained, names owned */
    floe_schema *input_schema; /* FINAL only */
    floe_type **arg_types;   /* per call: the argument's type (NULL for count(*)) */
    floe_type **arg2_types;  /* per call: the second argument's type, or NULL */
    floe_type **ord0_types;  /* per call: the first ORDER BY key's type, or NULL */
    floe_cse *cse;           /* not FINAL: subexpressions shared by the keys and
                                arguments (derived, never encoded); NULL: none */
} agg_plan;

/* ---- accumulators (hash_agg.c) ---------------------------------------------------- */

typedef enum acc_kind {
    ACC_COUNT_STAR, ACC_COUNT, ACC_SUM_I64, ACC_SUM_I128, ACC_SUM_F64, ACC_AVG_F64, ACC_AVG_I128,
    ACC_MIN, ACC_MAX, ACC_BOOL_AND, ACC_BOOL_OR, ACC_NULL,
    ACC_GENERIC,  /* a streaming registry entry: its callbacks (agg_func.h) */
    ACC_HOLISTIC  /* a holistic registry entry: collected rows, finalize_rows */
} acc_kind;

/* The rows of a call kept until the input ends (holistic entries, and
 * calls with DISTINCT or ORDER BY that the fast DISTINCT table does not
 * serve): per batch the call's argument and ORDER BY columns of the rows
 * that count, with their groups (agg_generic.c). */
typedef struct collector {
    int32_t ncols;         /* arguments then ORDER BY keys */
    floe_array **parts;    /* n_parts * ncols columns */
    int64_t n_parts, parts_cap;
    uint32_t *gids;        /* per collected row */
    int64_t n, cap;
} collector;

/* Physical class of a min/max value. */
typedef enum phys { PHYS_I32, PHYS_I64, PHYS_F32, PHYS_F64, PHYS_I128, PHYS_BOOL, PHYS_FIXED, PHYS_BYTES } phys;

typedef struct bval { /* a min/max string value owned by its group */
    uint8_t *p;
    int32_t len, cap;
} bval;

typedef struct acc {
    acc_kind kind;
    phys ph;               /* MIN/MAX */
    size_t esz;            /* bytes per group in v */
    int32_t scale;         /* AVG_I128: the sum's decimal scale */
    const floe_agg_call *call;
    floe_type *arg_type;   /* borrowed from the plan */
    floe_type *out_type;   /* one reference: the final result type */
    floe_type *state_type; /* one reference: the first state column's type */
    /* Fields in the per-group state row (see layout_accs): the value (sum,
     * min/max, bool; esz bytes), the count (COUNT*, sums, AVG) and the
     * "a value was folded in" flag (sum of ints, min/max, bool; the others
     * use count > 0). */
    size_t off_v, off_c, off_s, stride;
    uint8_t *pv, *pc, *ps; /* the fields of group 0 */
    struct gtable *dset;   /* DISTINCT: seen (group, value) pairs */
    int32_t twin;          /* a later call summing the same argument the same
                              way (sum(x) and avg(x)), folded in the same loop;
                              -1: none */
    bool is_twin;          /* folded by an earlier call's loop when it can */
    /* registry entries */
    agg_info info;         /* GENERIC / HOLISTIC: the resolved call */
    collector *col;        /* rows collected until the end (see collector) */
    floe_array *res;       /* HOLISTIC: the result of every group, at the end */
} acc;

/* Decide the accumulator for a call over `arg` (NULL: count(*)) and its
 * state column types.  Fills kind, ph, esz, scale, out_type, state_type. */
floe_status hagg_acc_setup(acc *a, const agg_plan *p, int32_t i) FLOE_WARN_UNUSED;
/* Does the call keep its rows until the end (a collector)? */
bool hagg_call_collects(const floe_agg_call *c);
/* State columns of the call: 2 for avg (sum, count), else 1. */
int hagg_acc_state_cols(const acc *a);

/* Accumulator state is row-wise: every group has one `stride`-byte row
 * holding each call's value, count and "seen" flag at fixed offsets, so
 * folding a batch touches one or two cache lines per row however many
 * aggregates there are.  acc.pv / pc / ps point at group 0's fields. */
#define AV(T, a, g) (*(T *)((a)->pv + (size_t)(g) * (a)->stride))
#define ACNT(a, g) (*(int64_t *)((a)->pc + (size_t)(g) * (a)->stride))
#define ASEEN(a, g) (*((a)->ps + (size_t)(g) * (a)->stride))

static inline bool needs_cnt(acc_kind k) {
    return k == ACC_COUNT_STAR || k == ACC_COUNT || k == ACC_SUM_I128 || k == ACC_SUM_F64 || k == ACC_AVG_F64 ||
           k == ACC_AVG_I128;
}
static inline bool needs_seen(acc_kind k) {
    return k == ACC_SUM_I64 || k == ACC_MIN || k == ACC_MAX || k == ACC_BOOL_AND || k == ACC_BOOL_OR;
}

static inline i128 load_i128(const uint8_t *p) {
    i128 x;
    memcpy(&x, p, 16);
    return x;
}

/* ---- the group key table and key encoding (agg_table.c) ---------------------------- */

typedef struct gtable {
    uint64_t *slots;   /* SLOT(hash, id) or EMPTY */
    uint64_t mask;     /* slots - 1 */
    uint64_t *hashes;  /* per group (for rehashing) */
    uint32_t kw;       /* fixed key width, or 0: variable (koff) */
    uint64_t *koff;    /* variable: per group + 1, key bytes [koff[g], koff[g+1]) */
    uint8_t *keys;
    uint64_t keys_len, keys_cap;
    int64_t n, cap;    /* groups, capacity of the per-group arrays */
    /* Interval key columns are encoded by their total ('1 mon' and
     * '30 days' are one group); the value each group first met is kept
     * here, n_iv per group, for the output (agg_stream.c, agg_emit.c). */
    uint8_t *iv_first;
    int32_t n_iv;
    int64_t iv_cap;
} gtable;

/* Scratch space reused from batch to batch. */
typedef struct scratch {
    uint8_t *bytes;
    size_t bytes_cap;
    uint32_t *offs, *pos;   /* n + 1, n */
    uint64_t *hashes;
    uint32_t *ids, *rows, *sub_ids;
    uint8_t *is_new;
    uint64_t *pkeys;        /* packed keys: 2 words a row */
    int64_t cap;            /* rows */
} scratch;

void hagg_gt_free(gtable *t);
/* Room for `extra` more groups: per-group arrays and slots (load <= 1/2). */
floe_status hagg_gt_reserve(gtable *t, int64_t extra) FLOE_WARN_UNUSED;
/* Find or insert n encoded keys (key r: bytes [offs[r], offs[r+1]) of
 * `keys`, hash hashes[r]); ids[r] = its group; is_new[r] (optional) = the
 * key was inserted by this call.  hagg_gt_reserve(t, n) must have been
 * called. */
floe_status hagg_gt_probe(gtable *t, int64_t n, const uint64_t *hashes, const uint8_t *keys, const uint32_t *offs,
                          uint32_t *ids, uint8_t *is_new) FLOE_WARN_UNUSED;
/* Bytes of the fixed-width encoding of key columns of these types (tag +
 * value, zeros for NULL), or 0 when some column is variable width. */
uint32_t hagg_fixed_key_width(floe_type *const *types, int32_t n, bool prefix);
void hagg_scratch_free(scratch *s);
floe_status hagg_scratch_reserve(scratch *s, int64_t n) FLOE_WARN_UNUSED;
/* Can a column of this type be a group key? */
bool hagg_key_type_ok(const floe_type *t);
/* Encode rows rows[0..n) (rows NULL: 0..n-1) of the key columns into
 * s->bytes / s->offs, each prefixed by the u32 prefix[k] when given.  kw
 * > 0: every key is kw bytes (hagg_fixed_key_width), NULLs zero-filled. */
floe_status hagg_encode_keys(scratch *s, floe_array *const *cols, int32_t nc, const uint32_t *rows, int64_t n,
                             const uint32_t *prefix, uint32_t kw) FLOE_WARN_UNUSED;

/* ---- streams (agg_stream.c) ------------------------------------------------------- */

/* Rows folded per pass over the aggregates (their state rows stay in
 * cache between one aggregate and the next). */
#define AGG_CHUNK 1024

/* With at most FEW_GROUPS groups, a chunk's rows are first ordered by
 * group (agg_kernels.c, "few groups: by group"). */
#define FEW_GROUPS 256

typedef struct chunk_order {
    int32_t n_used;                   /* groups present in the chunk */
    uint32_t group[AGG_CHUNK];        /* those groups, by id */
    uint32_t start[AGG_CHUNK + 1];    /* rows of group[i]: order[start[i] .. start[i+1]) */
    uint32_t order[AGG_CHUNK];        /* the chunk's batch rows, grouped */
    uint32_t cnt[FEW_GROUPS];         /* scratch: rows per group id */
} chunk_order;

typedef struct agg_stream {
    floe_stream base;
    const agg_plan *p;
    floe_stream *child;
    const floe_cancel *cancel;
    int64_t batch_size;
    gtable gt;
    bool packed;          /* groups live in pt (keys fit 16 bytes), not gt */
    floe_pk_layout pl;
    floe_pk_table pt;
    floe_type **key_types; /* borrowed from the schema */
    bool sel_input;       /* the child is a Filter read with selections */
    struct chunk_order *co; /* few groups: a chunk's rows by group */
    bool *twin_done;      /* per call: folded in already for this chunk */
    acc *accs;
    uint8_t *states;      /* acc_cap rows of `stride` bytes */
    size_t stride;
    int64_t acc_cap;      /* groups the state rows hold */
    int64_t init_rows;    /* rows zeroed so far (= groups created) */
    floe_array **args;    /* per call: the current batch's argument */
    floe_array **args2;   /* per call: the second argument, or NULL */
    floe_array **filt;    /* per call: the FILTER predicate's values, or NULL */
    floe_array **ords;    /* per call and ORDER BY key (ord_at[i] + k) */
    int32_t *ord_at;      /* per call: its first slot in ords */
    uint32_t *frows, *fids; /* scratch: a filtered call's rows and groups */
    int64_t fcap;
    bool collected;       /* the collectors were finished */
    scratch sc;
    floe_array **keys;    /* the current batch's key columns (for errors) */
    bool consumed;        /* input fully aggregated */
    int64_t emitted;      /* groups already output */
    floe_status err;      /* sticky failure */
    /* under a memory limit (agg_spill.c) */
    bool merging;         /* input batches are state batches (FINAL, or
                             spilled partitions being re-aggregated) */
    bool mem_known;       /* mem / limit read (at the first next) */
    floe_mem_tracker *mem; /* the query's tracker */
    int64_t limit;        /* its limit; 0: none (never spill) */
    const char *temp_dir;
    struct floe_exec_metrics *metrics; /* EXPLAIN ANALYZE: spill counters */
    int32_t partition;
    floe_schema *state_schema; /* keys + state columns: what spills */
    struct hagg_spill *spill; /* spilled partitions; NULL: none */
    bool flushing;        /* PARTIAL: emitting its groups early */
    floe_batch *pending;  /* the batch read when memory ran short */
    uint32_t *pending_sel;
    int64_t pending_m;
} agg_stream;

/* Groups so far (1 without group keys: the one group always exists). */
int64_t hagg_n_groups_of(const agg_stream *s);
/* The overflow error of call `a` at row r, naming the row's group. */
floe_status hagg_overflow_error(const agg_stream *s, const acc *a, int64_t r, const char *what) FLOE_WARN_UNUSED;
/* The node's execute slot: one stream per partition. */
floe_status hagg_execute(const floe_plan *p_, int32_t partition, const floe_exec_ctx *ctx,
                         floe_stream **out) FLOE_WARN_UNUSED;

/* Fold the rows sel[0..m) of batch b (sel NULL: all m rows) in (merging:
 * b is a state batch). */
floe_status hagg_consume_batch(agg_stream *s, floe_batch *b, const uint32_t *sel, int64_t m) FLOE_WARN_UNUSED;

/* ---- under a memory limit (agg_spill.c) ------------------------------------------ */

/* Bits of the group hash each level of spill files splits by: 2^4 files. */
#define HAGG_SPILL_BITS 4
#define HAGG_SPILL_FANOUT (1 << HAGG_SPILL_BITS)

/* Can the groups leave memory (no call keeps collected rows or a
 * DISTINCT table, and there are group keys)? */
bool hagg_can_spill(const agg_stream *s);
/* Would m more rows (at most m new groups) take the query's memory too
 * close to its limit? */
bool hagg_under_pressure(const agg_stream *s, int64_t m);
/* Forget every group (their states freed); the stream starts afresh. */
void hagg_reset_groups(agg_stream *s);
/* Write the groups to the spill files of the current level, then reset. */
floe_status hagg_spill_groups(agg_stream *s) FLOE_WARN_UNUSED;
/* The input ended after a spill: the rest spilled too, then the next
 * output batch of the partitions re-aggregated one by one (NULL: done). */
floe_status hagg_spill_next(agg_stream *s, floe_batch **out) FLOE_WARN_UNUSED;
void hagg_spill_free(agg_stream *s);
/* The PARTIAL state layout of the node (keys then state columns). */
floe_status hagg_state_schema(const agg_plan *p, floe_schema **out) FLOE_WARN_UNUSED;

/* ---- folding rows in (agg_kernels.c) ---------------------------------------------- */

/* Order rows rows[0..n) (NULL: base..base+n-1) of groups ids[0..n) (all
 * below n_groups <= FEW_GROUPS) by group. */
void hagg_order_chunk(chunk_order *co, int64_t n_groups, const uint32_t *ids, const uint32_t *rows, int64_t base,
                      int64_t n);
/* One aggregate over an ordered chunk; *done false: not handled (the
 * caller runs hagg_acc_update).  *twin_done: a->twin was folded in too. */
floe_status hagg_acc_update_grouped(agg_stream *s, acc *a, const floe_array *arr, const chunk_order *co,
                                    bool *done, bool *twin_done) FLOE_WARN_UNUSED;
/* Fold rows rows[0..n) (NULL: base..base+n-1) of `arr` into groups
 * ids[0..n). */
floe_status hagg_acc_update(agg_stream *s, acc *a, const floe_array *arr, const uint32_t *ids, const uint32_t *rows,
                            int64_t base, int64_t n) FLOE_WARN_UNUSED;
/* FINAL: fold rows base..base+n-1 of the state columns (cols[0], and
 * cols[1] for avg) into groups ids[0..n). */
floe_status hagg_acc_merge(agg_stream *s, acc *a, floe_array *const *cols, const uint32_t *ids, int64_t base,
                           int64_t n) FLOE_WARN_UNUSED;

/* ---- registry entries: collected rows, generic states (agg_generic.c) ---------------------------------------------- */

/* Keep rows rows[0..n) (NULL: 0..n-1) of cols (ncols) with groups ids[0..n). */
floe_status hagg_collect_add(collector *c, floe_array *const *cols, const uint32_t *rows, const uint32_t *ids,
                             int64_t n) FLOE_WARN_UNUSED;
/* The input ended: sort call i's rows, then fold them into its state
 * rows (GENERIC and the fast kinds) or compute a->res (HOLISTIC). */
floe_status hagg_collect_finish(agg_stream *s, int32_t i) FLOE_WARN_UNUSED;
void hagg_collect_free(collector *c);
/* GENERIC: fold rows into the call's states (both arguments). */
floe_status hagg_generic_update(agg_stream *s, acc *a, floe_array *const *args, const uint32_t *ids,
                                const uint32_t *rows, int64_t base, int64_t n) FLOE_WARN_UNUSED;
/* GENERIC, FINAL: combine rows base..base+n-1 of the state column into
 * groups ids[0..n). */
floe_status hagg_generic_merge(agg_stream *s, acc *a, const floe_array *col, const uint32_t *ids, int64_t base,
                               int64_t n) FLOE_WARN_UNUSED;
/* GENERIC / HOLISTIC output of groups [g0, g0+m): final values, or
 * (state) the serialized states. */
floe_status hagg_generic_emit(agg_stream *s, acc *a, int64_t g0, int64_t m, bool state,
                              floe_array **out) FLOE_WARN_UNUSED;

/* ---- output (agg_emit.c) ---------------------------------------------------------- */

/* The next output batch of up to batch_size groups, or NULL when done. */
floe_status hagg_emit_batch(agg_stream *s, floe_batch **out) FLOE_WARN_UNUSED;
/* Groups [g0, g0+m) as one batch of `schema`: keys, then final values or
 * (state) the state columns. */
floe_status hagg_emit_range(agg_stream *s, int64_t g0, int64_t m, bool state, floe_schema *schema,
                            floe_batch **out) FLOE_WARN_UNUSED;

#endif
