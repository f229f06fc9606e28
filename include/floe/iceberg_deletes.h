/*
 * iceberg_deletes.h — applying Iceberg row-level deletes to a data file:
 * Puffin files, deletion vectors, position delete files and equality
 * delete files.
 *
 * Position deletes.  Everything that deletes rows of ONE data file by
 * position (v3 deletion vectors in Puffin files, v2 position delete
 * Parquet files, or both) is merged into a floe_ice_posdel — a sorted,
 * de-duplicated array of row positions.  A reader producing batches of the
 * data file asks, per batch covering rows [row_offset, row_offset + n),
 * for the surviving row indices (a selection vector) or clears the deleted
 * rows in a validity-style bit mask.  Both are a binary search plus a walk
 * over the deleted positions inside the batch: no per-row hashing.
 *
 *   floe_ice_posdel *pd;
 *   FLOE_TRY(floe_ice_posdel_new(&pd));
 *   for each delete file df of the task (content == POSITION_DELETES):
 *       FLOE_TRY(floe_ice_posdel_load(pd, io, &df, resolved_location_of_df,
 *                                     data_file->file_path, NULL, NULL));
 *   FLOE_TRY(floe_ice_posdel_finish(pd));
 *   per batch: floe_ice_posdel_select(pd, row_offset, n, sel, &n_sel);
 *   floe_ice_posdel_free(pd);
 *
 * Path matching: position delete files record data-file paths as the
 * writer saw them (absolute, odd prefixes).  They are compared with the
 * data file's path AS RECORDED IN THE MANIFEST (floe_ice_data_file.file_path,
 * not the resolved location), exact byte match, unless the caller supplies a
 * matcher.
 *
 * Equality deletes.  A floe_ice_eqdel is a hash set of key tuples for one
 * list of equality field ids.  Keys are normalised so that values equal
 * under Iceberg's type promotion compare equal (int/long/date/time/
 * timestamp -> int64, float/double -> double, decimals -> unscaled 128-bit
 * integer, strings/binary/fixed/uuid -> bytes); null equals null.  Key
 * types come from the delete file's own columns, so delete files whose
 * columns were since dropped from the table schema still load; the data
 * file's rows must then be read with those field ids projected from the
 * data file (even though the current schema no longer has them).
 *
 * Sets are built by one thread, then read-only: many threads may query one
 * finished posdel / eqdel at the same time.
 */
#ifndef FLOE_ICEBERG_DELETES_H
#define FLOE_ICEBERG_DELETES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/fileio.h"
#include "floe/iceberg_manifest.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reserved field ids of position delete files. */
#define FLOE_ICE_POSDEL_FILE_PATH_ID 2147483546
#define FLOE_ICE_POSDEL_POS_ID 2147483545

/* ---- Puffin --------------------------------------------------------------- */

#define FLOE_ICE_PUFFIN_DV_BLOB "deletion-vector-v1"

typedef struct floe_ice_puffin_blob {
    const char *type;               /* e.g. "deletion-vector-v1"; any string */
    int32_t n_fields;
    const int32_t *fields;
    int64_t snapshot_id;            /* -1 when absent */
    int64_t sequence_number;        /* -1 when absent */
    int64_t offset;                 /* of the (possibly compressed) blob */
    int64_t length;
    const char *compression_codec;  /* NULL = uncompressed; "zstd", "lz4" */
    int32_t n_properties;
    const char *const *property_keys;
    const char *const *property_values;
} floe_ice_puffin_blob;

typedef struct floe_ice_puffin {
    int32_t n_blobs;
    const floe_ice_puffin_blob *blobs;
    int32_t n_properties;           /* file-level properties */
    const char *const *property_keys;
    const char *const *property_values;
    struct floe_ice_puffin_private *priv;
} floe_ice_puffin;

/* Read and validate the footer of a Puffin file (magic at both ends, footer
 * flags, LZ4-compressed footer payload, blob ranges inside the file). */
floe_status floe_ice_puffin_open(floe_input *in, floe_ice_puffin **out) FLOE_WARN_UNUSED;
void floe_ice_puffin_free(floe_ice_puffin *p);

/* Value of a property of a blob, NULL when absent. */
const char *floe_ice_puffin_blob_property(const floe_ice_puffin_blob *b, const char *key);

/* Read blob `i`, decompressed; *data is floe_malloc'd (caller frees). */
floe_status floe_ice_puffin_read_blob(const floe_ice_puffin *p, floe_input *in, int32_t i,
                                      uint8_t **data, size_t *len) FLOE_WARN_UNUSED;

/* Writing: blobs are appended, then finish writes the footer. */
typedef struct floe_ice_puffin_writer floe_ice_puffin_writer;

typedef struct floe_ice_puffin_blob_spec {
    const char *type;
    const int32_t *fields;
    int32_t n_fields;
    int64_t snapshot_id;
    int64_t sequence_number;
    const char *compression_codec;  /* NULL / "zstd" / "lz4" */
    int32_t n_properties;
    const char *const *property_keys;
    const char *const *property_values;
} floe_ice_puffin_blob_spec;

/* `out` is borrowed; the caller closes it after finish. */
floe_status floe_ice_puffin_writer_open(floe_output *out, floe_ice_puffin_writer **w) FLOE_WARN_UNUSED;
/* Append a blob; *offset / *length (may be NULL) receive where it landed
 * (what a DV's content_offset / content_size_in_bytes must be). */
floe_status floe_ice_puffin_writer_add(floe_ice_puffin_writer *w, const floe_ice_puffin_blob_spec *spec,
                                       const uint8_t *data, size_t len, int64_t *offset,
                                       int64_t *length) FLOE_WARN_UNUSED;
/* Write the footer (compress_footer: LZ4 payload) and free the writer. */
floe_status floe_ice_puffin_writer_finish(floe_ice_puffin_writer *w, bool compress_footer) FLOE_WARN_UNUSED;
void floe_ice_puffin_writer_abort(floe_ice_puffin_writer *w);

/* ---- position deletes of one data file ------------------------------------- */

typedef struct floe_ice_posdel floe_ice_posdel;

/* Does the data-file path recorded in a position delete file (`path`,
 * `len` bytes, not NUL-terminated) name the data file being read? */
typedef bool (*floe_ice_path_match_fn)(void *ctx, const char *path, size_t len);

floe_status floe_ice_posdel_new(floe_ice_posdel **out) FLOE_WARN_UNUSED;
void floe_ice_posdel_free(floe_ice_posdel *pd);

/* Add positions (any order; duplicates fine).  Negative positions are
 * FLOE_ERR_CORRUPT. */
floe_status floe_ice_posdel_add(floe_ice_posdel *pd, const int64_t *pos, size_t n) FLOE_WARN_UNUSED;

/* Add a serialized deletion vector blob (length prefix, magic D1 D3 39 64,
 * portable 64-bit Roaring bitmap, CRC-32), as stored in a Puffin file. */
floe_status floe_ice_posdel_add_dv_blob(floe_ice_posdel *pd, const uint8_t *blob, size_t len) FLOE_WARN_UNUSED;

/* Serialize strictly ascending positions as a deletion-vector-v1 blob
 * (framing included, Roaring run-optimised as Java writes it); *out is
 * floe_malloc'd. */
floe_status floe_ice_dv_serialize(const int64_t *pos, size_t n, uint8_t **out, size_t *len) FLOE_WARN_UNUSED;

/* Add the deletion vector at [offset, offset + length) of a Puffin file
 * (content_offset / content_size_in_bytes of the delete file entry).  The
 * footer is not needed, so legacy "bare" DV files work. */
floe_status floe_ice_posdel_add_dv(floe_ice_posdel *pd, floe_input *puffin, int64_t offset,
                                   int64_t length) FLOE_WARN_UNUSED;

/* Add the rows of a position delete Parquet file that name the data file:
 * those whose file_path equals `data_file_path` exactly, or, when `match`
 * is given, those it accepts (data_file_path is then ignored).  The file is
 * read through the Parquet reader projecting the two reserved field ids;
 * the usual sort by (file_path, pos) is used to skip ahead but not
 * trusted. */
floe_status floe_ice_posdel_add_file(floe_ice_posdel *pd, floe_input *delete_file, const char *data_file_path,
                                     floe_ice_path_match_fn match, void *match_ctx) FLOE_WARN_UNUSED;

/* Add one batch of position delete rows — column 0 file_path (string),
 * column 1 pos (long) — as floe_ice_posdel_add_file adds a Parquet file's:
 * for position delete files of other formats, which the task reader reads
 * through its sources.  `what` names the file in errors. */
floe_status floe_ice_posdel_add_batch(floe_ice_posdel *pd, const floe_batch *rows, const char *data_file_path,
                                      floe_ice_path_match_fn match, void *match_ctx,
                                      const char *what) FLOE_WARN_UNUSED;

/* Every row of a position delete Parquet file, in file order, handed to
 * `fn` one batch at a time: column 0 file_path (string or binary), column
 * 1 pos (int64 or int32), either may hold nulls.  For listing deletes
 * ($position_deletes), not for applying them. */
typedef floe_status (*floe_ice_posdel_rows_fn)(void *ctx, const floe_batch *rows);
floe_status floe_ice_posdel_read_rows(floe_input *delete_file, floe_ice_posdel_rows_fn fn,
                                      void *ctx) FLOE_WARN_UNUSED;

/* Dispatch on a delete file entry (content must be POSITION_DELETES): a
 * DV when content_offset is set (its cardinality must equal record_count),
 * else a position delete file.  `location`
 * is where to open it (the resolved path); `data_file_path` the data
 * file's path as recorded in its manifest.  An entry whose
 * referenced_data_file is set and differs from data_file_path adds
 * nothing (when no matcher is given). */
floe_status floe_ice_posdel_load(floe_ice_posdel *pd, floe_fileio *io, const floe_ice_data_file *delete_file,
                                 const char *location, const char *data_file_path,
                                 floe_ice_path_match_fn match, void *match_ctx) FLOE_WARN_UNUSED;

/* Sort and de-duplicate; call once after the last add, before queries. */
floe_status floe_ice_posdel_finish(floe_ice_posdel *pd) FLOE_WARN_UNUSED;

/* After finish: number of distinct deleted positions and the sorted array. */
int64_t floe_ice_posdel_count(const floe_ice_posdel *pd);
const int64_t *floe_ice_posdel_positions(const floe_ice_posdel *pd);
bool floe_ice_posdel_contains(const floe_ice_posdel *pd, int64_t pos);

/* For the batch of rows [row_offset, row_offset + n): write the indices
 * (0..n-1) of rows NOT deleted to `sel` (room for n) and their number to
 * *n_sel. */
void floe_ice_posdel_select(const floe_ice_posdel *pd, int64_t row_offset, uint32_t n, uint32_t *sel,
                            uint32_t *n_sel);

/* Clear bit i of `bits` (LSB-first, like validity bitmaps) for every
 * deleted row i of the batch; returns the number of deleted rows in it. */
uint32_t floe_ice_posdel_clear_bits(const floe_ice_posdel *pd, int64_t row_offset, uint32_t n, uint8_t *bits);

/* ---- equality deletes --------------------------------------------------------- */

typedef struct floe_ice_eqdel floe_ice_eqdel;

/* An empty set for keys over `field_ids` (the delete files' equality_ids,
 * in that order; copied). */
floe_status floe_ice_eqdel_new(const int32_t *field_ids, int32_t n_field_ids,
                               floe_ice_eqdel **out) FLOE_WARN_UNUSED;
void floe_ice_eqdel_free(floe_ice_eqdel *ed);

/* Add the rows of an equality delete Parquet file (its columns projected by
 * the set's field ids; the file's equality_ids must be the same list). */
floe_status floe_ice_eqdel_add_file(floe_ice_eqdel *ed, floe_input *delete_file) FLOE_WARN_UNUSED;
/* Same through FileIO. */
floe_status floe_ice_eqdel_load(floe_ice_eqdel *ed, floe_fileio *io, const char *location) FLOE_WARN_UNUSED;

/* Add key rows from arrays: cols[k] holds field_ids[k] (n_rows slots). */
floe_status floe_ice_eqdel_add_rows(floe_ice_eqdel *ed, floe_array *const *cols, int64_t n_rows) FLOE_WARN_UNUSED;

/* Number of distinct key tuples. */
int64_t floe_ice_eqdel_count(const floe_ice_eqdel *ed);

/* The field ids of the keys. */
const int32_t *floe_ice_eqdel_field_ids(const floe_ice_eqdel *ed, int32_t *n);

/* Mark deleted rows of a data batch: cols[k] holds field_ids[k] for the
 * batch's n_rows rows (NULL: the data file lacks the column, all null).
 * Sets deleted[i] = 1 for each deleted row (others untouched, so several
 * sets can be applied in turn); returns in *n_deleted the rows newly
 * marked.  Nested columns are FLOE_ERR_TYPE; values of types that cannot
 * be equal (a string against a long) simply never match. */
floe_status floe_ice_eqdel_mark(const floe_ice_eqdel *ed, const floe_array *const *cols, int64_t n_rows,
                                uint8_t *deleted, int64_t *n_deleted) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
