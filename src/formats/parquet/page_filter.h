/*
 * page_filter.h — which rows of a row group may match simple predicates,
 * going by the page index (ColumnIndex + OffsetIndex).
 *
 * The reader binds each floe_pq_predicate (reader.h) to its leaf column once
 * (pq_pred_bind), then per row group asks pq_page_filter_rows() for the row
 * ranges that may match all of them.  Page statistics are decoded into the
 * engine domain of the column (the values the reader emits), so predicate
 * values compare directly.  Everything here errs on the side of keeping
 * rows: whatever is unknown or suspicious keeps the page.
 */
#ifndef FLOE_FORMATS_PARQUET_PAGE_FILTER_H
#define FLOE_FORMATS_PARQUET_PAGE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/status.h"
#include "formats/parquet/file.h"
#include "formats/parquet/reader.h"

/* Sorted, disjoint, non-empty row ranges [lo[i], hi[i]) of a row group. */
typedef struct pq_ranges {
    int64_t *lo, *hi;
    int n, cap;
} pq_ranges;

void pq_ranges_init(pq_ranges *r);
void pq_ranges_free(pq_ranges *r);
/* Append [lo, hi), merging with the last range when they touch; ranges
 * must be appended in order. */
floe_status pq_ranges_add(pq_ranges *r, int64_t lo, int64_t hi) FLOE_WARN_UNUSED;
/* a := a ∩ b. */
floe_status pq_ranges_intersect(pq_ranges *a, const pq_ranges *b) FLOE_WARN_UNUSED;
int64_t pq_ranges_rows(const pq_ranges *r);

/* A value in a column's engine domain (internal form of floe_pq_value). */
typedef enum pq_dom { PQ_DOM_NONE, PQ_DOM_INT, PQ_DOM_DOUBLE, PQ_DOM_BYTES, PQ_DOM_DEC } pq_dom;
typedef struct pq_sval {
    pq_dom k;
    int64_t i;
    double d;
    const uint8_t *p;
    size_t n;
    __int128 q;
} pq_sval;

/* A predicate bound to its leaf column; values copied. */
typedef struct pq_pred {
    const floe_pq_column *col;
    floe_pq_pred_op op;
    pq_sval *vals;
    int nvals;
    uint8_t *bytes;       /* owns the BYTES values */
} pq_pred;

/* Check `p` against leaf `col` and copy its values.  INVALID_ARGUMENT
 * naming the column for a wrong value count or a value kind that does not
 * compare with the column. */
floe_status pq_pred_bind(const floe_pq_column *col, const floe_pq_predicate *p,
                         pq_pred *out) FLOE_WARN_UNUSED;
void pq_pred_free(pq_pred *p);

/* Decode a page/chunk bound of `col` into its engine domain; false when it
 * has no usable value (NaN, INT96, FLOAT16, wrong length ...). */
bool pq_stat_value(const floe_pq_column *col, const floe_pq_bytes *b, pq_sval *out);

/* May page `i` of a chunk with this ColumnIndex hold a row for which `p` is
 * TRUE?  `trusted`: whether the index's min/max order can be relied on. */
bool pq_page_may_match(const pq_pred *p, const floe_pq_column_index *ci, uint32_t i,
                       bool trusted);

/* The rows of row group `rg` that may match every predicate, into `out`
 * (reset first).  *pruned is false when no predicate could narrow anything
 * (then out holds the whole row group).  Reads the page indexes of the
 * predicate columns; a page index that is missing or does not fit the row
 * group is treated as absent. */
floe_status pq_page_filter_rows(const floe_pq_file *f, int rg, const pq_pred *preds, int npreds,
                                pq_ranges *out, bool *pruned) FLOE_WARN_UNUSED;

/* Whether the OffsetIndex `oi` describes a chunk of `num_rows` rows whose
 * pages lie in [chunk_off, chunk_off + chunk_len): first rows start at 0 and
 * increase, every page lies inside the chunk, in increasing offsets. */
bool pq_offset_index_fits(const floe_pq_offset_index *oi, int64_t num_rows, uint64_t chunk_off,
                          uint64_t chunk_len);

#endif
