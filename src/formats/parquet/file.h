/*
 * file.h — opening a Parquet file: magic, footer, metadata, schema, indexes.
 *
 * A Parquet file is "PAR1", the column chunks, the Thrift FileMetaData, its
 * length as a 4-byte little-endian integer and "PAR1" again.  Opening reads
 * the last 64 KiB in one request (almost every footer fits, so one round
 * trip on S3), reads the rest of the footer only if needed, decodes it and
 * builds the schema.  Files using Parquet Modular Encryption ("PARE" magic,
 * or encrypted column metadata under a plaintext footer) are refused with
 * FLOE_ERR_UNSUPPORTED "encrypted Parquet is not supported".
 *
 * Page indexes (ColumnIndex, OffsetIndex) are read on demand per column chunk.
 *
 * Every error message starts with the file's path and names the offset
 * involved.  After open, a floe_pq_file is read-only and may be shared by
 * threads (its reads go through floe_input, which is thread-safe).
 */
#ifndef FLOE_FORMATS_PARQUET_FILE_H
#define FLOE_FORMATS_PARQUET_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/fileio.h"
#include "floe/status.h"
#include "formats/parquet/parquet_meta.h"
#include "formats/parquet/schema.h"

/* Bytes read from the end of the file on open. */
#define FLOE_PQ_FOOTER_SPECULATIVE_READ 65536

typedef struct floe_pq_file {
    floe_input *in;
    bool owns_input;
    const char *path;              /* in->path, for messages */
    uint64_t size;                 /* file size */
    uint64_t footer_offset;        /* where FileMetaData starts */
    uint32_t footer_len;           /* its length */
    floe_pq_file_metadata *meta;
    floe_pq_schema *schema;
} floe_pq_file;

/* Open over an input the caller keeps ownership of (it must outlive the
 * file; close the file first). */
floe_status floe_pq_file_open(floe_input *in, floe_pq_file **out) FLOE_WARN_UNUSED;
/* Open a local file; the floe_pq_file owns the input. */
floe_status floe_pq_file_open_path(const char *path, floe_pq_file **out) FLOE_WARN_UNUSED;
void floe_pq_file_close(floe_pq_file *f);

/* The checked row group / column chunk (NULL if the indexes are out of range). */
const floe_pq_column_chunk *floe_pq_file_chunk(const floe_pq_file *f, int row_group,
                                                int column);

/* Byte range of a column chunk's pages (dictionary page included), checked
 * to lie between the head magic and the footer.  UNSUPPORTED for a chunk
 * stored in another file (file_path set). */
floe_status floe_pq_file_chunk_range(const floe_pq_file *f, int row_group, int column,
                                     uint64_t *offset, uint64_t *length) FLOE_WARN_UNUSED;

/* Read and decode a chunk's ColumnIndex / OffsetIndex.  *out is NULL (and
 * the call succeeds) when the chunk has none.  Free with
 * floe_pq_column_index_free / floe_pq_offset_index_free. */
floe_status floe_pq_file_read_column_index(const floe_pq_file *f, int row_group, int column,
                                           floe_pq_column_index **out) FLOE_WARN_UNUSED;
floe_status floe_pq_file_read_offset_index(const floe_pq_file *f, int row_group, int column,
                                           floe_pq_offset_index **out) FLOE_WARN_UNUSED;

#endif
