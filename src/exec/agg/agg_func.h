/*
 * agg_func.h — the aggregate function registry: one table entry per
 * aggregate (in the style of DuckDB's AggregateFunction), found by name.
 *
 * Adding an aggregate is adding one entry (agg_registry.c's table) with
 * its callbacks; nothing in the hash aggregate switches on the function.
 * The seven original functions (count, sum, min, max, avg, bool_and,
 * bool_or) are entries too, but their `fast` field names the hand-written
 * kernels of agg_kernels.c (benchmarked) and their callbacks are NULL.
 *
 * Two kinds of entries:
 *
 *   streaming   a fixed-size state per group (state_size bytes, inline in
 *               the hash aggregate's per-group state row; it may hold a
 *               pointer to memory it owns, freed by destroy).  update folds
 *               a batch of rows into the states of their groups; combine
 *               merges one state into another (PARTIAL → FINAL, and a
 *               window segment tree can use it to merge tree nodes);
 *               finalize appends the result.  Between PARTIAL and FINAL
 *               (threads, MPI ranks) a state travels as one BINARY column
 *               "<name>" holding serialize's bytes (NULL: the empty state);
 *               FINAL deserializes each into a scratch state and combines.
 *   holistic    (AGGF_HOLISTIC: median, percentile_*, mode, string_agg,
 *               array_agg) no state: the hash aggregate collects the
 *               group's rows (arguments and ORDER BY keys), sorts them, and
 *               finalize_rows computes the result from the group's rows in
 *               order.  Such calls (and any call with DISTINCT or ORDER BY)
 *               run in SINGLE mode after a hash repartition on the group
 *               keys (floe_agg_call_needs_single), so every row of a group
 *               meets in one place — across threads and MPI ranks alike.
 *
 * Contract of a streaming entry:
 *   - the all-zero state is "no row yet" unless `init` is given (then init
 *     prepares a zeroed state);
 *   - update skips rows it does not count (NULL arguments for the strict
 *     aggregates); rows[k] (NULL: base + k) is the batch row of the k-th
 *     input, ids[k] its group: the state of group g is at
 *     states + g * stride;
 *   - combine(dst, src) leaves src valid (the caller destroys it);
 *   - finalize appends exactly one slot (NULL when nothing was folded in,
 *     as SQL wants for everything but counts);
 *   - serialize / deserialize round-trip a state exactly (same bytes on
 *     every machine: little-endian fixed-width fields).
 */
#ifndef FLOE_EXEC_AGG_AGG_FUNC_H
#define FLOE_EXEC_AGG_AGG_FUNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/exec_ops.h"

/* Entry flags. */
#define AGGF_HOLISTIC 1u     /* finalize_rows over the group's collected rows */
#define AGGF_WITHIN_GROUP 2u /* ordered-set (percentile_cont ...): needs exactly
                                one WITHIN GROUP (ORDER BY key); its value is
                                the aggregated input */
#define AGGF_SORTS_ARG 4u    /* holistic: rows sorted by argument 0 (median) */
#define AGGF_KEEPS_NULLS 8u  /* not strict: rows with NULL arguments count
                                (array_agg) */
#define AGGF_STAR 16u        /* f(*) allowed (count) */

struct agg_func;

/* A call resolved against its argument types (one per call and stream). */
typedef struct agg_info {
    const struct agg_func *fn;
    int32_t n_args;               /* 0..2 */
    floe_type *arg_types[2];      /* borrowed */
    int32_t n_order;              /* holistic: ORDER BY keys after the args */
    floe_type *order_types[4];    /* borrowed: the first keys' types */
    floe_type *out_type;          /* one reference (resolve sets it) */
    size_t state_size;            /* streaming: bytes of state (resolve) */
} agg_info;

typedef struct agg_func {
    const char *name;
    floe_agg_fn fast;             /* a built-in kernel, or FLOE_AGG_NAMED */
    int8_t min_args, max_args;
    uint32_t flags;
    /* Check the argument types; set out_type and state_size.  A clear
     * FLOE_ERR_TYPE naming the function for types it does not take. */
    floe_status (*resolve)(agg_info *ai);
    /* streaming (see the contract above); init and destroy optional */
    void (*init)(const agg_info *ai, uint8_t *state);
    floe_status (*update)(const agg_info *ai, uint8_t *states, size_t stride, const uint32_t *ids,
                          floe_array *const *args, const uint32_t *rows, int64_t base, int64_t n);
    floe_status (*combine)(const agg_info *ai, uint8_t *dst, const uint8_t *src);
    floe_status (*finalize)(const agg_info *ai, const uint8_t *state, floe_builder *out);
    void (*destroy)(const agg_info *ai, uint8_t *state);
    floe_status (*serialize)(const agg_info *ai, const uint8_t *state, floe_buf *out);
    floe_status (*deserialize)(const agg_info *ai, const uint8_t *bytes, size_t len, uint8_t *state);
    /* holistic: the group's rows idx[0..n) of cols (the arguments, then the
     * ORDER BY key values), in ORDER BY order; append one slot. */
    floe_status (*finalize_rows)(const agg_info *ai, floe_array *const *cols, const uint32_t *idx, int64_t n,
                                 floe_builder *out);
} agg_func;

/* The entry named `name` (lower case, as SQL spells it; aliases such as
 * "every", "min_by", "stddev" included), or NULL. */
const agg_func *floe_agg_lookup(const char *name);
/* The entry of a call (by fn, or by func for FLOE_AGG_NAMED); NULL when
 * unknown. */
const agg_func *floe_agg_func_of(const floe_agg_call *c);
/* Resolve a call of entry f over argument types (n of them) and ORDER BY
 * key types (order[0 .. min(n_order, 4)) are read; an entry uses the
 * first one only); fills *ai (release ai->out_type). */
floe_status floe_agg_resolve(const agg_func *f, floe_type *const *args, int32_t n, floe_type *const *order,
                             int32_t n_order, agg_info *ai) FLOE_WARN_UNUSED;

/* The entry tables of the families (agg_fn_*.c), ended by a NULL name. */
extern const agg_func floe_agg_stat_funcs[];
extern const agg_func floe_agg_misc_funcs[];
extern const agg_func floe_agg_list_funcs[];
extern const agg_func floe_agg_sketch_funcs[];
extern const agg_func floe_agg_json_funcs[]; /* agg_fn_json.c */
extern const agg_func floe_agg_interval_funcs[]; /* agg_fn_interval.c: sum / avg of intervals */

/* Helpers for the entries. */
/* A numeric argument as a double (ints, floats, decimals). */
double floe_agg_num(const floe_array *a, int64_t r);
bool floe_agg_is_numeric(const floe_type *t);
/* serialize / deserialize of a plain state (no pointers): its bytes. */
floe_status floe_agg_pod_serialize(const agg_info *ai, const uint8_t *state, floe_buf *out) FLOE_WARN_UNUSED;
floe_status floe_agg_pod_deserialize(const agg_info *ai, const uint8_t *bytes, size_t len,
                                     uint8_t *state) FLOE_WARN_UNUSED;
/* The row of the k-th input of an update (rows NULL: base + k). */
#define AGG_ROW(rows, base, k) ((rows) ? (int64_t)(rows)[k] : (int64_t)(base) + (k))

#endif
