/*
 * reader.h — reading a Parquet file as a stream of floe record batches.
 *
 *   floe_pq_reader *r;
 *   FLOE_TRY(floe_pq_reader_open_path("x.parquet", &opts, &r));
 *   for (;;) {
 *       floe_batch *b;
 *       FLOE_TRY(floe_pq_reader_next(r, &b));   // b == NULL: end of stream
 *       if (!b) break;
 *       ... floe_batch_release(b);
 *   }
 *   floe_pq_reader_close(r);
 *
 * Projection: by logical dotted path ("id", "s.b") or by Iceberg field id;
 * a projected field may sit inside structs but not inside a list or map (its
 * array has one slot per row; a null parent struct makes it null).  Output
 * columns come in the order asked, named by their path.  Without a
 * projection every top-level field is read.  Only the selected leaf columns
 * are ever fetched.
 *
 * Batches hold at most batch_size rows and never span row groups, so the
 * last batch of each row group may be short.  In a row group whose byte
 * array columns average more than 1 GiB / batch_size bytes per row (going
 * by the chunk sizes in the footer), batches are made smaller so a column's
 * bytes stay within Arrow's int32 offsets.
 *
 * I/O: for each row group, the byte ranges of the selected column chunks are
 * sorted and merged when the gap between them is at most max_gap bytes, and
 * each merged range is fetched with one read; the compressed chunks of one
 * row group stay in memory while its batches are produced.
 *
 * A reader is used by one thread at a time; several readers may share one
 * floe_pq_file.
 */
#ifndef FLOE_FORMATS_PARQUET_READER_H
#define FLOE_FORMATS_PARQUET_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/status.h"
#include "formats/parquet/file.h"

#define FLOE_PQ_DEFAULT_BATCH_SIZE 8192
#define FLOE_PQ_DEFAULT_MAX_GAP (1u << 20)

typedef struct floe_pq_read_options {
    const char *const *columns;   /* dotted logical paths; NULL = all */
    int num_columns;
    const int32_t *field_ids;     /* Iceberg field ids, used when columns is NULL */
    int num_field_ids;
    const int *row_groups;        /* row group indexes; NULL = all, in order */
    int num_row_groups;
    int64_t batch_size;           /* rows per batch; 0 = FLOE_PQ_DEFAULT_BATCH_SIZE */
    int64_t max_gap;              /* coalescing gap in bytes; 0 = default, <0 = never merge */
    bool skip_crc;                /* don't verify page CRCs */
    bool int96_as_us;             /* INT96 -> timestamp µs (else ns; out-of-range is an error) */
} floe_pq_read_options;

typedef struct floe_pq_reader floe_pq_reader;

/* Read from an open file (borrowed: it must outlive the reader).  opts may
 * be NULL for defaults. */
floe_status floe_pq_reader_open(floe_pq_file *file, const floe_pq_read_options *opts,
                                floe_pq_reader **out) FLOE_WARN_UNUSED;
/* Open a local file; the reader owns it. */
floe_status floe_pq_reader_open_path(const char *path, const floe_pq_read_options *opts,
                                     floe_pq_reader **out) FLOE_WARN_UNUSED;
void floe_pq_reader_close(floe_pq_reader *r);

/* The schema of the batches (borrowed; lives as long as the reader). */
floe_schema *floe_pq_reader_schema(const floe_pq_reader *r);

/* The next batch (one reference for the caller), or *out = NULL at the end. */
floe_status floe_pq_reader_next(floe_pq_reader *r, floe_batch **out) FLOE_WARN_UNUSED;

#endif
