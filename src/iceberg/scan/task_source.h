/*
 * task_source.h — a data file of a scan task, in whatever format Iceberg
 * names (Parquet, Avro, ORC), as what the task reader needs of it: its
 * top-level columns (name and field id), and batches of a chosen few of
 * them, with the file row number of every row returned.
 *
 * The task reader (task_reader.c) does everything that does not depend on
 * the format — choosing columns by field id or through the name mapping,
 * conforming each column to the table schema (nested field ids, promotions,
 * defaults), position / equality deletes, the residual filter — over the
 * batches a source hands it.  A source only decodes: a column's array
 * carries the file's own types, with the field ids the file records on
 * nested fields (-1 where it has none), so the reader can resolve them.
 *
 * Sources may skip rows they can prove cannot match the residual (Parquet
 * page skipping from the page index); the row spans say which file rows a
 * batch holds, so position deletes still meet the right rows.
 */
#ifndef FLOE_ICEBERG_SCAN_TASK_SOURCE_H
#define FLOE_ICEBERG_SCAN_TASK_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_task_reader.h"

/* File rows [first_row, first_row + num_rows). */
typedef struct floe_ice_row_span {
    int64_t first_row;
    int64_t num_rows;
} floe_ice_row_span;

/* What a source may use to read less (all optional). */
typedef struct floe_ice_source_hints {
    int64_t start, length;        /* the task's byte range (length < 0: the whole file) */
    int64_t batch_size;           /* rows per batch (> 0) */
    const floe_ice_expr *residual; /* bound, AND-ed simple terms may skip rows; NULL: none */
    /* The top-level column of field id `id` when the reader found it
     * through the name mapping (ids of nested fields are not mapped):
     * -1 when unknown.  by_id: the file's own field ids hold, at any depth. */
    int32_t (*column_of)(void *ctx, int32_t id);
    void *ctx;
    bool by_id;
} floe_ice_source_hints;

typedef struct floe_ice_source floe_ice_source;

typedef struct floe_ice_source_vt {
    const char *format; /* "parquet", "avro", "orc" */
    /* Start reading top-level columns cols[0..n) (indices into the file's
     * columns; batches hold them in this order). */
    floe_status (*start)(floe_ice_source *s, const int32_t *cols, int32_t n,
                         const floe_ice_source_hints *hints) FLOE_WARN_UNUSED;
    /* The next batch (*out NULL at the end) and the file rows it holds
     * (spans borrowed until the next call; *nspans 0: rows from the last
     * batch's end on, as a plain sequence). */
    floe_status (*next)(floe_ice_source *s, floe_batch **out, const floe_ice_row_span **spans,
                        int *nspans) FLOE_WARN_UNUSED;
    /* Page and row-group skipping figures (zero when it skips nothing). */
    void (*stats)(const floe_ice_source *s, floe_ice_task_read_stats *out);
    void (*close)(floe_ice_source *s);
} floe_ice_source_vt;

/* Every source starts with this head. */
struct floe_ice_source {
    const floe_ice_source_vt *vt;
    int32_t n_columns;            /* top-level columns of the file */
    const char *const *names;     /* their names */
    const int32_t *field_ids;     /* their field ids, -1 where the file has none */
    bool any_field_id;            /* some top-level column has one */
};

/* Open the file `location` (of `size` bytes, <= 0 unknown) through `io`
 * (NULL: local paths only) as a source of its format ("parquet", "avro",
 * "orc" — case-insensitive; anything else is FLOE_ERR_UNSUPPORTED naming it). */
floe_status floe_ice_source_open(const char *format, floe_fileio *io, const char *location, int64_t size,
                                 floe_ice_source **out) FLOE_WARN_UNUSED;

/* How every source opens its file: a plain path locally when there is no
 * FileIO, else through `io` (with the recorded size when known). */
floe_status floe_ice_source_open_input(floe_fileio *io, const char *location, int64_t size,
                                       floe_input **in) FLOE_WARN_UNUSED;

/* The formats, one file each. */
floe_status floe_ice_parquet_source_open(floe_fileio *io, const char *location, int64_t size,
                                         floe_ice_source **out) FLOE_WARN_UNUSED;
floe_status floe_ice_avro_source_open(floe_fileio *io, const char *location, int64_t size,
                                      floe_ice_source **out) FLOE_WARN_UNUSED;
floe_status floe_ice_orc_source_open(floe_fileio *io, const char *location, int64_t size,
                                     floe_ice_source **out) FLOE_WARN_UNUSED;

static inline void floe_ice_source_close(floe_ice_source *s) {
    if (s) s->vt->close(s);
}

#endif
