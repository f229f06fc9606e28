/*
 * iceberg_manifest.h — Iceberg manifests and manifest lists (Avro files),
 * read and written for format versions 1, 2 and 3; the data_file record on
 * its own as Avro bytes; and the live data and delete files of a snapshot.
 *
 * Reading resolves every field by its Iceberg field id (falling back to the
 * name, so legacy names such as added_data_files_count and writers that
 * omit ids both work), applies the spec's inheritance rules (snapshot id,
 * data and file sequence numbers from the manifest list when null; v3
 * first_row_id), and types the partition tuple from the manifest's own Avro
 * partition struct (floe_ice_table_live_files then gives values the spec's
 * type where the storage agrees, e.g. a day stored as a plain int becomes
 * a date).  A decoded manifest (or list) owns one arena holding
 * every string and array it points to; it is immutable and may be shared.
 *
 * Writing produces what Iceberg Java and PyIceberg produce: header keys
 * "schema", "schema-id", "partition-spec", "partition-spec-id",
 * "format-version", "content" (manifests) and "snapshot-id",
 * "parent-snapshot-id", "sequence-number", "format-version", v3
 * "first-row-id" (lists), and embedded Avro schemas carrying every field id
 * (the partition struct's ids come from the spec).
 */
#ifndef FLOE_ICEBERG_MANIFEST_H
#define FLOE_ICEBERG_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/fileio.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_schema.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/iceberg_types.h"
#include "floe/iceberg_value.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum floe_ice_content {
    FLOE_ICE_CONTENT_DATA = 0,
    FLOE_ICE_CONTENT_POSITION_DELETES = 1,
    FLOE_ICE_CONTENT_EQUALITY_DELETES = 2
} floe_ice_content;

typedef enum floe_ice_manifest_content {
    FLOE_ICE_MANIFEST_DATA = 0,
    FLOE_ICE_MANIFEST_DELETES = 1
} floe_ice_manifest_content;

typedef enum floe_ice_entry_status {
    FLOE_ICE_STATUS_EXISTING = 0,
    FLOE_ICE_STATUS_ADDED = 1,
    FLOE_ICE_STATUS_DELETED = 2
} floe_ice_entry_status;

/* "data", "position_deletes", "equality_deletes" / "data", "deletes". */
const char *floe_ice_content_name(floe_ice_content c);
const char *floe_ice_manifest_content_name(floe_ice_manifest_content c);

/* column id -> count (column_sizes, value_counts, ...). */
typedef struct floe_ice_count_map {
    int32_t n;
    int32_t *keys;
    int64_t *values;
} floe_ice_count_map;

/* column id -> Appendix D bytes (lower_bounds, upper_bounds). */
typedef struct floe_ice_bound_map {
    int32_t n;
    int32_t *keys;
    const uint8_t **values;
    uint32_t *lens;
} floe_ice_bound_map;

/* The spec's data_file struct.  Optional fields have a has_ flag (maps and
 * lists: n < 0 means null, n == 0 an empty map/list; pointers NULL = null). */
typedef struct floe_ice_data_file {
    floe_ice_content content;
    const char *file_path;
    const char *file_format;        /* as written ("PARQUET", "parquet", ...) */
    int32_t spec_id;                /* the manifest's partition spec */
    int32_t n_partition;
    const int32_t *partition_ids;   /* partition field ids, in tuple order */
    floe_ice_value *partition;      /* the tuple (byte values are views) */
    int64_t record_count;
    int64_t file_size_in_bytes;
    floe_ice_count_map column_sizes, value_counts, null_value_counts, nan_value_counts;
    floe_ice_bound_map lower_bounds, upper_bounds;
    const uint8_t *key_metadata;    /* NULL = null */
    uint32_t key_metadata_len;
    int32_t n_split_offsets;        /* -1 = null */
    int64_t *split_offsets;
    int32_t n_equality_ids;         /* -1 = null */
    int32_t *equality_ids;
    bool has_sort_order_id;
    int32_t sort_order_id;
    bool has_first_row_id;          /* v3 (after inheritance when read from a manifest) */
    int64_t first_row_id;
    const char *referenced_data_file; /* NULL = null */
    bool has_content_offset;        /* v3 deletion vectors */
    int64_t content_offset;
    bool has_content_size_in_bytes;
    int64_t content_size_in_bytes;
} floe_ice_data_file;

/* An empty data_file: counts 0, every optional field null. */
void floe_ice_data_file_init(floe_ice_data_file *f);

/* Decode a bound of column `field_id` (Appendix D) typed by `schema`.
 * FLOE_ERR_NOT_FOUND when the file has no such bound or column. */
floe_status floe_ice_data_file_bound(const floe_ice_data_file *f, const floe_ice_schema *schema, int32_t field_id,
                                     bool upper, floe_ice_value *out) FLOE_WARN_UNUSED;

typedef struct floe_ice_manifest_entry {
    floe_ice_entry_status status;
    int64_t snapshot_id;            /* inherited when null */
    int64_t sequence_number;        /* data sequence number; inherited; -1 unknown */
    int64_t file_sequence_number;   /* inherited; -1 unknown */
    floe_ice_data_file file;
} floe_ice_manifest_entry;

typedef struct floe_ice_field_summary {
    bool contains_null;
    int8_t contains_nan;            /* 1, 0, or -1 = null */
    const uint8_t *lower_bound;     /* NULL = null */
    uint32_t lower_len;
    const uint8_t *upper_bound;
    uint32_t upper_len;
} floe_ice_field_summary;

/* One manifest_file record of a manifest list.  Counts are -1 when null. */
typedef struct floe_ice_manifest_file {
    const char *manifest_path;
    int64_t manifest_length;
    int32_t partition_spec_id;
    floe_ice_manifest_content content;
    int64_t sequence_number;        /* 0 for v1 lists */
    int64_t min_sequence_number;
    int64_t added_snapshot_id;
    int32_t added_files_count, existing_files_count, deleted_files_count;
    int64_t added_rows_count, existing_rows_count, deleted_rows_count;
    int32_t n_partitions;           /* -1 = null */
    floe_ice_field_summary *partitions;
    const uint8_t *key_metadata;
    uint32_t key_metadata_len;
    bool has_first_row_id;          /* v3 */
    int64_t first_row_id;
} floe_ice_manifest_file;

/* ---- manifest lists ------------------------------------------------------ */

typedef struct floe_ice_manifest_list {
    int format_version;             /* from the header, else inferred */
    int32_t n_files;
    floe_ice_manifest_file *files;
    struct floe_ice_ml_private *priv;
} floe_ice_manifest_list;

floe_status floe_ice_manifest_list_read(floe_input *in, floe_ice_manifest_list **out) FLOE_WARN_UNUSED;
void floe_ice_manifest_list_free(floe_ice_manifest_list *l);

typedef struct floe_ice_manifest_list_options {
    int format_version;             /* 1, 2 or 3 */
    int64_t snapshot_id;
    int64_t parent_snapshot_id;     /* FLOE_ICE_NO_SNAPSHOT: none */
    int64_t sequence_number;        /* v2+ */
    bool has_first_row_id;          /* v3 */
    int64_t first_row_id;
} floe_ice_manifest_list_options;

/* Write a complete manifest list of `n` records to `out` (not closed). */
floe_status floe_ice_manifest_list_write(floe_output *out, const floe_ice_manifest_list_options *opts,
                                         const floe_ice_manifest_file *files, int32_t n) FLOE_WARN_UNUSED;

/* ---- manifests ------------------------------------------------------------- */

typedef struct floe_ice_manifest {
    int format_version;
    floe_ice_manifest_content content;
    int32_t spec_id;
    int32_t schema_id;              /* -1 when not recorded */
    size_t n_entries;
    floe_ice_manifest_entry *entries;
    struct floe_ice_mf_private *priv;
} floe_ice_manifest;

/* Read a manifest.  `mf` (may be NULL) is its manifest-list record, the
 * source of inherited snapshot ids, sequence numbers and first row ids. */
floe_status floe_ice_manifest_read(floe_input *in, const floe_ice_manifest_file *mf,
                                   floe_ice_manifest **out) FLOE_WARN_UNUSED;
void floe_ice_manifest_free(floe_ice_manifest *m);

typedef struct floe_ice_manifest_writer floe_ice_manifest_writer;

typedef struct floe_ice_manifest_writer_options {
    int format_version;                   /* 1, 2 or 3 */
    floe_ice_manifest_content content;    /* deletes: v2+ only */
    const floe_ice_schema *schema;        /* table schema (header "schema") */
    const floe_ice_partition_spec *spec;  /* partition struct and header */
    int64_t snapshot_id;                  /* v1: written into every entry */
} floe_ice_manifest_writer_options;

/* Start a manifest on `out` (not owned; the caller closes it after finish).
 * Schema and spec must outlive the writer. */
floe_status floe_ice_manifest_writer_open(floe_output *out, const floe_ice_manifest_writer_options *opts,
                                          floe_ice_manifest_writer **w) FLOE_WARN_UNUSED;
/* Append an entry.  Snapshot id / sequence numbers of -1 are written as null
 * (to be inherited; v1 writes the writer's snapshot id).  The partition
 * tuple must have the spec's field count. */
floe_status floe_ice_manifest_writer_add(floe_ice_manifest_writer *w,
                                         const floe_ice_manifest_entry *e) FLOE_WARN_UNUSED;
/* Flush and free the writer (also on error).  `summary` (may be NULL)
 * receives counts, partition summaries are not filled; the caller sets
 * path and length. */
floe_status floe_ice_manifest_writer_finish(floe_ice_manifest_writer *w,
                                            floe_ice_manifest_file *summary) FLOE_WARN_UNUSED;
void floe_ice_manifest_writer_abort(floe_ice_manifest_writer *w);

/* ---- data_file as Avro bytes (the writer -> commit hand-off) ------------ */

typedef struct floe_ice_data_file_codec floe_ice_data_file_codec;

/* A codec for data_file records of `format_version` whose partition tuple
 * has type `partition_type` (a struct, e.g. from
 * floe_ice_partition_spec_partition_type; copied). */
floe_status floe_ice_data_file_codec_new(const floe_ice_type *partition_type, int format_version,
                                         floe_ice_data_file_codec **out) FLOE_WARN_UNUSED;
void floe_ice_data_file_codec_free(floe_ice_data_file_codec *c);
/* The Avro schema of the record as JSON text (field ids included;
 * floe_malloc'd). */
floe_status floe_ice_data_file_codec_schema_json(const floe_ice_data_file_codec *c, char **out) FLOE_WARN_UNUSED;
floe_status floe_ice_data_file_encode(const floe_ice_data_file_codec *c, const floe_ice_data_file *f,
                                      uint8_t **out, size_t *out_len) FLOE_WARN_UNUSED;
/* Decode; strings, arrays and byte values live in `arena` (a floe_arena,
 * see base/arena.h), which the caller owns; partition_ids point into the
 * codec, which must outlive the result. */
struct floe_arena;
floe_status floe_ice_data_file_decode(const floe_ice_data_file_codec *c, const uint8_t *data, size_t len,
                                      struct floe_arena *arena, floe_ice_data_file *out) FLOE_WARN_UNUSED;

/* ---- live files of a snapshot --------------------------------------------- */

typedef struct floe_ice_live_file {
    floe_ice_data_file file;          /* paths as recorded */
    const char *resolved_path;        /* through floe_ice_table_resolve_path */
    int64_t snapshot_id;
    int64_t sequence_number;
    int64_t file_sequence_number;
    floe_ice_entry_status status;
    const char *manifest_path;        /* as recorded in the manifest list */
} floe_ice_live_file;

typedef struct floe_ice_live_files {
    size_t n;
    floe_ice_live_file *files;        /* manifest-list order, then entry order */
    size_t n_manifests;
    struct floe_ice_lf_private *priv;
} floe_ice_live_files;

/* The manifests of `snap`: the records of its manifest list, or for v1
 * snapshots that name their manifests directly, records made from those
 * paths (added by the snapshot, sizes unknown).  *files and *n describe
 * them; they live in *list or *v1_files, which the caller frees with
 * floe_ice_manifest_list_free and floe_free (one of them is set). */
floe_status floe_ice_snapshot_manifests(const floe_ice_table *t, const floe_ice_snapshot *snap,
                                        floe_ice_manifest_list **list,
                                        floe_ice_manifest_file **v1_files,
                                        const floe_ice_manifest_file **files,
                                        size_t *n) FLOE_WARN_UNUSED;

/* Every live (status != DELETED) data and delete file of `snap`, reading
 * manifests in parallel on `pool` (NULL: the default pool). */
struct floe_threadpool;
floe_status floe_ice_table_live_files(const floe_ice_table *t, const floe_ice_snapshot *snap,
                                      struct floe_threadpool *pool, floe_ice_live_files **out) FLOE_WARN_UNUSED;
void floe_ice_live_files_free(floe_ice_live_files *lf);

#ifdef __cplusplus
}
#endif
#endif
