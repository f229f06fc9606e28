/*
 * scan_parquet_internal.h — what the ParquetScan's files share: the node's
 * parts (scan_parquet.c) and its pruning by statistics and page index
 * (scan_parquet_prune.c).  Internal to src/exec/scan/.
 */
#ifndef FLOE_EXEC_SCAN_SCAN_PARQUET_INTERNAL_H
#define FLOE_EXEC_SCAN_SCAN_PARQUET_INTERNAL_H

#include "exec/plan_internal.h"
#include "floe/exec_scan.h"
#include "formats/parquet/file.h"
#include "formats/parquet/reader.h"

typedef struct pq_partition {
    int32_t n_parts;
    floe_pq_scan_part *parts;
} pq_partition;

typedef struct parquet_plan {
    floe_plan head;
    pq_partition *partitions; /* head.n_partitions */
    floe_expr *prune;         /* may be NULL */
    char **keys;              /* Hive keys; each part has a value per key */
    int32_t n_keys;
    int32_t *col_key;         /* derived: per output column, its key or -1 (read from the file) */
    floe_schema *file_schema; /* derived: the output columns read from the files */
    int64_t est_rows;         /* derived, plan time only: rows of the footers read (-1 unknown) */
    int64_t *col_ndv;         /* derived, plan time only: per column, a bound on its distinct
                               * values from integer min/max statistics (-1 unknown); or NULL */
} parquet_plan;

/* Output column i's Hive key, or -1 when it is read from the file. */
static inline int32_t key_of(const parquet_plan *p, int32_t i) { return p->col_key ? p->col_key[i] : -1; }

/* A statistics bound or a literal, in a domain where they compare: signed
 * 64-bit integers, doubles, or unsigned byte strings. */
typedef enum { PQS_NONE = 0, PQS_I64, PQS_F64, PQS_BYTES } pqs_kind;
typedef struct pqs_sval {
    pqs_kind k;
    int64_t i;
    double d;
    const uint8_t *p;
    uint32_t n;
} pqs_sval;

/* A chunk statistic (plain-encoded bytes of the physical type) as a value
 * of the engine type `t` the reader makes of this column. */
pqs_sval pqs_stat_value(const floe_pq_column *col, const floe_pq_bytes *b, const floe_type *t);

/* The row groups of [begin, end) in `f` that p's pruning predicate may
 * match, into rgs (n out). */
floe_status pqs_select_row_groups(const parquet_plan *p, const floe_pq_file *f, int32_t begin, int32_t end, int *rgs,
                                  int *n) FLOE_WARN_UNUSED;

/* The conjuncts of the pruning predicate the Parquet reader's page index
 * filter understands, for reading `f`. */
typedef struct pqs_page_preds {
    floe_pq_predicate *preds;
    floe_pq_value *vals;      /* storage for every predicate's values */
    int n, nvals;
} pqs_page_preds;

floe_status pqs_page_preds_make(const parquet_plan *p, const floe_pq_file *f, pqs_page_preds *pp) FLOE_WARN_UNUSED;
void pqs_page_preds_free(pqs_page_preds *pp);

#endif
