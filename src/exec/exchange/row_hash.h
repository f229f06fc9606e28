/*
 * row_hash.h — hashing and comparing key rows, shared by the hash
 * aggregate, repartition and the hash joins.
 *
 * floe_hash_rows (exec_ops.h) hashes whole key columns at once; the
 * helpers here are what a hash table needs next to it: the hash of one
 * value or byte string, the combiner, and equality of key rows that agrees
 * with the hash (equal rows always hash equal).  Equality is SQL grouping
 * equality: -0.0 equals 0.0 and NaN equals NaN for floats, strings by
 * bytes.  Arrays compared must have the same type (the planner casts keys
 * to a common type first); types are not checked here.
 *
 * Hashes are deterministic across processes and runs: no seed, no address
 * mixing, so a row goes to the same partition on every node.
 */
#ifndef FLOE_EXEC_ROW_HASH_H
#define FLOE_EXEC_ROW_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"
#include "floe/columnar.h"

/* The hash a NULL key value contributes (a fixed value).  Values are
 * mixed with base/hash.h: floe_hash_u64 for numbers, floe_hash_bytes with
 * FLOE_HASH_SEED for byte strings, floe_hash_combine across columns. */
#define FLOE_HASH_NULL UINT64_C(0x7b2f4f7c4c1f3a65)

/* Hash of value `i` of `a` alone, FLOE_HASH_NULL when null; equal to what
 * floe_hash_rows gives a one-column row.  Fails only on nested types other
 * than STRUCT. */
uint64_t floe_hash_value(const floe_array *a, int64_t i);

/* True if key type `t` can be hashed and compared (scalars and structs of
 * them; not LIST or MAP). */
bool floe_hash_type_supported(const floe_type *t);

/* Value i of `a` equals value j of `b` (same type, both non-null). */
bool floe_values_equal(const floe_array *a, int64_t i, const floe_array *b, int64_t j);

/* Key row i of a[0..n) equals key row j of b[0..n).  A NULL on either side
 * makes the rows unequal unless null_equals_null (then NULL = NULL). */
bool floe_rows_equal(floe_array *const *a, int64_t i, floe_array *const *b, int64_t j, int32_t n,
                     bool null_equals_null);

/* True if any of the n key columns is NULL at row i. */
bool floe_row_has_null(floe_array *const *cols, int32_t n, int64_t i);

#endif
