/*
 * agg_packed.h — group keys packed into 16 bytes, for HashAggregate.
 *
 * Most GROUP BY keys are a few small columns: flags, short codes, ints,
 * dates.  When every key column has a fixed slot in 16 bytes, a key row is
 * two uint64 words built column by column, hashed with a few multiplies
 * and compared as two words — no variable-length encoding, no byte-string
 * hashing, no key store.
 *
 * Layout: each key column owns a slot of 1 + w bytes at a fixed offset.
 * The first byte is a tag, 0 for NULL (the rest of the slot then zero):
 *   BOOL               1 byte: 0 NULL, 1 false, 2 true
 *   fixed-width types  tag 1, then the value's w bytes (floats with -0.0
 *                      as 0.0 and one NaN, the grouping semantics of SQL)
 *   STRING, BINARY     tag = length + 1, then up to L bytes, zero padded;
 *                      L is what the 16 bytes leave (shared evenly by the
 *                      string columns)
 *   NULL type          no slot (always NULL)
 * Equal keys have equal words.  A batch holding a longer string does not
 * fit (floe_pk_encode says so) and the aggregate moves its groups to the
 * general table (floe_pk_decode gives their keys back as columns).
 */
#ifndef FLOE_EXEC_AGG_PACKED_H
#define FLOE_EXEC_AGG_PACKED_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/status.h"

#define FLOE_PK_MAX_COLS 16

typedef struct floe_pk_layout {
    int32_t n_cols;
    uint8_t kind[FLOE_PK_MAX_COLS];  /* private: how column c is stored */
    uint8_t off[FLOE_PK_MAX_COLS];   /* byte offset of column c's slot */
    uint8_t width[FLOE_PK_MAX_COLS]; /* value bytes (strings: at most) */
} floe_pk_layout;

/* The layout for key columns of these types, or false when they do not
 * fit 16 bytes (or a type has no packed form). */
bool floe_pk_layout_init(floe_pk_layout *l, floe_type *const *types, int32_t n);

/* Pack rows rows[0..n) (rows NULL: 0..n-1) of the key columns into
 * keys[2k], keys[2k+1].  *fits false: some string is too long (keys then
 * hold nothing useful). */
void floe_pk_encode(const floe_pk_layout *l, floe_array *const *cols, const uint32_t *rows, int64_t n,
                    uint64_t *keys, bool *fits);

/* Groups keyed by packed keys: ids are dense, in order of first sight. */
typedef struct floe_pk_table {
    uint32_t *slots; /* group id or UINT32_MAX (empty) */
    uint64_t mask;   /* slots - 1 */
    uint64_t *keys;  /* 2 words per group */
    int64_t n, cap;  /* groups; capacity of keys in groups */
} floe_pk_table;

/* The group of each of n packed keys into ids[0..n), inserting new ones. */
floe_status floe_pk_probe(floe_pk_table *t, const uint64_t *keys, int64_t n, uint32_t *ids) FLOE_WARN_UNUSED;

void floe_pk_table_free(floe_pk_table *t);

/* The key columns (types as given to floe_pk_layout_init) of groups
 * [g0, g0 + m): out[c] one reference each. */
floe_status floe_pk_decode(const floe_pk_layout *l, const floe_pk_table *t, floe_type *const *types, int64_t g0,
                           int64_t m, floe_array **out) FLOE_WARN_UNUSED;

#endif
