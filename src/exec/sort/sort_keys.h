/*
 * sort_keys.h — ordering of key rows, shared by Sort (full and top-N) and
 * SortPreservingMerge: comparing rows of evaluated key arrays, a stable
 * index sort, and the codec/EXPLAIN form of a sort key list.
 *
 * Order per key: NULLs first or last as the key says (independent of
 * ASC/DESC, as in PostgreSQL's NULLS FIRST/LAST); floats order NaN after
 * every number (all NaNs equal) and -0.0 equal to 0.0, like PostgreSQL
 * and DuckDB; strings and binary bytewise (UTF-8 byte order is code point
 * order); decimals by value at the column's scale; bools false < true.
 */
#ifndef FLOE_EXEC_SORT_KEYS_H
#define FLOE_EXEC_SORT_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/exec.h"

/* The node of both Sort and SortPreservingMerge (the accessors in
 * exec_ops.h read either). */
typedef struct floe_sort_plan {
    floe_plan head;
    int32_t n_keys;
    floe_sort_key *keys; /* one expression reference each */
    int64_t fetch;       /* -1: all rows */
} floe_sort_plan;

/* Check that every key expression types against `schema` to an orderable
 * (non-nested) type; FLOE_ERR_TYPE naming the key otherwise. */
/* Has values of type t an order (scalars; lists and structs of them)? */
bool floe_sk_type_orderable(const floe_type *t);

floe_status floe_sk_check(const char *node, const floe_sort_key *keys, int32_t n,
                          const floe_schema *schema) FLOE_WARN_UNUSED;

/* Evaluate the n key expressions over `b` into out[0..n) (one reference
 * each; nothing is left allocated on failure). */
floe_status floe_sk_eval(const floe_sort_key *keys, int32_t n, const floe_batch *b,
                         floe_array **out) FLOE_WARN_UNUSED;
void floe_sk_release(floe_array **arrays, int32_t n);

/* Compare key row i of a[0..n) with key row j of b[0..n) in output order:
 * < 0 when row i sorts first, 0 when the keys tie. */
int floe_sk_compare(const floe_sort_key *keys, int32_t n, floe_array *const *a, int64_t i,
                    floe_array *const *b, int64_t j);

/* Compare only key k (0-based) of the two rows; same conventions. */
int floe_sk_compare_one(const floe_sort_key *key, const floe_array *a, int64_t i, const floe_array *b,
                        int64_t j);

/* Stable sort of idx[0..n) by cmp(ctx, x, y) (< 0: x first). */
typedef int (*floe_sk_cmp_fn)(void *ctx, uint32_t x, uint32_t y);
floe_status floe_sk_stable_sort(uint32_t *idx, int64_t n, floe_sk_cmp_fn cmp, void *ctx) FLOE_WARN_UNUSED;

/* The row order of `n` rows whose evaluated key arrays are keys[0..n_keys)
 * (each of n slots): *order (floe_malloc'd, n entries) lists row indices
 * in sorted order; ties keep input order.  n must fit in uint32. */
floe_status floe_sk_sort_rows(const floe_sort_key *keys, int32_t n_keys, floe_array *const *key_arrays,
                              int64_t n, uint32_t **order) FLOE_WARN_UNUSED;

/* A stream merging k streams, each sorted by p's keys, into one sorted
 * stream (ties: the lower input first), as SortPreservingMerge does with
 * its child's partitions; the external sort merges its spilled runs with
 * it.  Takes the streams (closed with it, also on failure); p->fetch
 * limits the rows when >= 0. */
floe_status floe_sk_merge_streams(const floe_sort_plan *p, floe_stream **in, int32_t k, const floe_exec_ctx *ctx,
                                  floe_stream **out) FLOE_WARN_UNUSED;

/* Codec: count, then per key the expression and two flags. */
floe_status floe_sk_encode(floe_buf *out, const floe_sort_key *keys, int32_t n) FLOE_WARN_UNUSED;
/* *keys is floe_malloc'd with one expression reference each; free with
 * floe_sk_free_keys. */
floe_status floe_sk_decode(floe_reader *r, floe_sort_key **keys, int32_t *n) FLOE_WARN_UNUSED;
/* A copy of a key list (expressions retained). */
floe_status floe_sk_copy_keys(const floe_sort_key *keys, int32_t n, floe_sort_key **out) FLOE_WARN_UNUSED;
void floe_sk_free_keys(floe_sort_key *keys, int32_t n);

/* EXPLAIN: "keys=[#1 DESC NULLS LAST, #0 ASC NULLS FIRST]" and, when
 * fetch >= 0, ", fetch=10". */
floe_status floe_sk_explain(floe_buf *out, const floe_sort_key *keys, int32_t n, int64_t fetch) FLOE_WARN_UNUSED;

#endif
