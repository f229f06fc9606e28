/*
 * iceberg_table_metadata.h — Iceberg table metadata (the metadata.json
 * file): format versions 1, 2 and 3, read and written as JSON; snapshots,
 * refs and the logs; locating a table's current metadata file; and mapping
 * the paths a table records to where the table actually is now.
 *
 * A floe_ice_table_metadata is immutable once loaded and may be shared by
 * threads.  Everything it points to is owned by it and freed by
 * floe_ice_table_metadata_free().
 *
 * Reading follows the spec and Iceberg Java's parser: v1's single "schema"
 * and "partition-spec" forms are accepted (and written back in v1), and
 * fields the spec requires in v2+ (schemas, current-schema-id,
 * partition-specs, default-spec-id, last-partition-id, sort-orders,
 * default-sort-order-id, last-sequence-number) are required there.  Invalid
 * metadata is FLOE_ERR_CORRUPT (FLOE_ERR_UNSUPPORTED for an unknown format
 * version) with a message naming the file and what is wrong.  A missing
 * "refs" gets "main" from current-snapshot-id; "encryption-keys" and
 * statistics' blob metadata are kept as JSON and written back verbatim.
 * Compressed files are read: gzip (".gz.metadata.json" or the gzip magic)
 * and zstd (the zstd magic).
 */
#ifndef FLOE_ICEBERG_TABLE_METADATA_H
#define FLOE_ICEBERG_TABLE_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/fileio.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_schema.h"
#include "floe/iceberg_sort_order.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FLOE_ICE_MAX_FORMAT_VERSION 3
/* "no snapshot" (current-snapshot-id -1 or null, no parent). */
#define FLOE_ICE_NO_SNAPSHOT (-1)

typedef struct floe_ice_kv {
    char *key;
    char *value;
} floe_ice_kv;

typedef struct floe_ice_snapshot {
    int64_t snapshot_id;
    int64_t parent_snapshot_id;   /* FLOE_ICE_NO_SNAPSHOT when none */
    int64_t sequence_number;      /* 0 in v1 */
    int64_t timestamp_ms;
    char *manifest_list;          /* NULL for a v1 snapshot with "manifests" */
    char **manifests;             /* v1 "manifests" (no manifest list) */
    int32_t n_manifests;
    char *operation;              /* summary "operation", NULL when absent */
    floe_ice_kv *summary;         /* every summary entry but "operation" */
    int32_t n_summary;
    bool has_summary;
    bool has_schema_id;
    int32_t schema_id;
    bool has_first_row_id;        /* v3 */
    int64_t first_row_id;
    bool has_added_rows;          /* v3 */
    int64_t added_rows;
    char *key_id;                 /* v3 encryption key id, or NULL */
} floe_ice_snapshot;

typedef struct floe_ice_snapshot_ref {
    char *name;
    bool is_tag;                  /* "tag", else "branch" */
    int64_t snapshot_id;
    int64_t max_ref_age_ms;       /* -1 when absent */
    int64_t max_snapshot_age_ms;  /* -1 when absent (branches only) */
    int32_t min_snapshots_to_keep;/* -1 when absent (branches only) */
} floe_ice_snapshot_ref;

/* A snapshot-log entry (snapshot_id, file NULL) or metadata-log entry (file). */
typedef struct floe_ice_log_entry {
    int64_t timestamp_ms;
    int64_t snapshot_id;
    char *file;
} floe_ice_log_entry;

/* "statistics" (Puffin, with blob metadata) or "partition-statistics". */
typedef struct floe_ice_statistics_file {
    int64_t snapshot_id;
    char *path;
    int64_t file_size_in_bytes;
    int64_t file_footer_size_in_bytes; /* -1 for partition statistics */
    char *key_metadata;                /* NULL when absent */
    char *blob_metadata_json;          /* the "blob-metadata" array as JSON; NULL for partition stats */
} floe_ice_statistics_file;

typedef struct floe_ice_table_metadata {
    int format_version;
    char *table_uuid;             /* NULL when absent (old v1) */
    char *location;
    int64_t last_sequence_number;
    int64_t last_updated_ms;
    int32_t last_column_id;

    floe_ice_schema **schemas;
    int32_t n_schemas;
    int32_t current_schema_id;

    floe_ice_partition_spec **specs;
    int32_t n_specs;
    int32_t default_spec_id;
    int32_t last_partition_id;

    floe_ice_sort_order **sort_orders;
    int32_t n_sort_orders;
    int32_t default_sort_order_id;

    floe_ice_kv *properties;
    int32_t n_properties;

    int64_t current_snapshot_id;  /* FLOE_ICE_NO_SNAPSHOT when none */
    floe_ice_snapshot *snapshots;
    int32_t n_snapshots;
    floe_ice_log_entry *snapshot_log;
    int32_t n_snapshot_log;
    floe_ice_log_entry *metadata_log;
    int32_t n_metadata_log;
    floe_ice_snapshot_ref *refs;
    int32_t n_refs;
    bool refs_implied;            /* "refs" was absent: "main" was derived */

    floe_ice_statistics_file *statistics;
    int32_t n_statistics;
    floe_ice_statistics_file *partition_statistics;
    int32_t n_partition_statistics;

    bool has_next_row_id;         /* v3 */
    int64_t next_row_id;
    char *encryption_keys_json;   /* "encryption-keys" array as JSON, or NULL */

    struct floe_ice_tm_private *priv; /* allocation bookkeeping */
} floe_ice_table_metadata;

/* Parse metadata JSON text (not compressed).  `name` (a file name, may be
 * NULL) prefixes error messages. */
floe_status floe_ice_table_metadata_parse(const char *json, size_t len, const char *name,
                                          floe_ice_table_metadata **out) FLOE_WARN_UNUSED;
/* Parse metadata bytes that may be gzip- or zstd-compressed (detected by
 * magic; a ".gz.metadata.json" name must be gzip). */
floe_status floe_ice_table_metadata_parse_bytes(const uint8_t *data, size_t len, const char *name,
                                                floe_ice_table_metadata **out) FLOE_WARN_UNUSED;
/* Read and parse a metadata file through `io` (NULL: local files only). */
floe_status floe_ice_table_metadata_read(floe_fileio *io, const char *location,
                                         floe_ice_table_metadata **out) FLOE_WARN_UNUSED;
void floe_ice_table_metadata_free(floe_ice_table_metadata *md);
/* Another holder of parsed metadata `md` (which nobody may change): each
 * holder calls floe_ice_table_metadata_free once, and the last one frees
 * it.  NULL for metadata not made by the parser. */
floe_ice_table_metadata *floe_ice_table_metadata_retain(floe_ice_table_metadata *md);

/* A copy of parsed (or derived) metadata `base` for a commit to change
 * without a JSON round trip: its snapshots, snapshot_log, metadata_log and
 * refs are its own, each with room for one more entry (strings for new
 * entries from floe_ice_tm_derived_strdup); everything else is shared with
 * base's owner (held by a reference) and must not be changed.  Freed with
 * floe_ice_table_metadata_free.  Costs a copy of those four lists. */
floe_status floe_ice_tm_derive(const floe_ice_table_metadata *base, floe_ice_table_metadata **out) FLOE_WARN_UNUSED;
/* `s` copied into derived metadata `md`'s own storage; NULL when out of
 * memory or `md` is not derived. */
char *floe_ice_tm_derived_strdup(floe_ice_table_metadata *md, const char *s);
/* `size` zeroed bytes in derived metadata `md`'s own storage (or NULL). */
void *floe_ice_tm_derived_alloc(floe_ice_table_metadata *md, size_t size);

/* The metadata as JSON text (floe_malloc'd), in Iceberg Java's key order.
 * pretty: indented by 2.  Reading it back gives equal metadata. */
floe_status floe_ice_table_metadata_to_json(const floe_ice_table_metadata *md, int pretty,
                                            char **out) FLOE_WARN_UNUSED;

/* ---- lookups (NULL when absent) ----------------------------------------- */
const floe_ice_schema *floe_ice_tm_schema(const floe_ice_table_metadata *md, int32_t schema_id);
const floe_ice_schema *floe_ice_tm_current_schema(const floe_ice_table_metadata *md);
const floe_ice_partition_spec *floe_ice_tm_spec(const floe_ice_table_metadata *md, int32_t spec_id);
const floe_ice_partition_spec *floe_ice_tm_default_spec(const floe_ice_table_metadata *md);
const floe_ice_sort_order *floe_ice_tm_sort_order(const floe_ice_table_metadata *md, int32_t order_id);
const char *floe_ice_tm_property(const floe_ice_table_metadata *md, const char *key);
const floe_ice_snapshot *floe_ice_tm_snapshot(const floe_ice_table_metadata *md, int64_t snapshot_id);
/* NULL when the table has no current snapshot. */
const floe_ice_snapshot *floe_ice_tm_current_snapshot(const floe_ice_table_metadata *md);
const floe_ice_snapshot_ref *floe_ice_tm_ref(const floe_ice_table_metadata *md, const char *name);
/* The snapshot a branch or tag points to; FLOE_ERR_NOT_FOUND names the ref. */
floe_status floe_ice_tm_snapshot_by_ref(const floe_ice_table_metadata *md, const char *name,
                                        const floe_ice_snapshot **out) FLOE_WARN_UNUSED;
/* The snapshot that was current at `timestamp_ms`: the last snapshot-log
 * entry at or before it (as Iceberg Java's SnapshotUtil.snapshotIdAsOfTime).
 * FLOE_ERR_NOT_FOUND when the table had no snapshot then. */
floe_status floe_ice_tm_snapshot_as_of(const floe_ice_table_metadata *md, int64_t timestamp_ms,
                                       const floe_ice_snapshot **out) FLOE_WARN_UNUSED;
/* The schema a snapshot was written with (its schema-id, else current). */
const floe_ice_schema *floe_ice_tm_snapshot_schema(const floe_ice_table_metadata *md,
                                                   const floe_ice_snapshot *snap);

/* ---- a table on storage: locating metadata, remapping paths ------------- */

typedef struct floe_ice_table {
    floe_ice_table_metadata *md;  /* owned */
    char *metadata_location;      /* the metadata file read */
    char *root;                   /* the directory holding metadata/ (no trailing '/') */
    bool allow_moved_paths;
    floe_fileio *io;              /* not owned */
} floe_ice_table;

/* Find the current metadata file of a table given its directory (the
 * directory holding metadata/, or metadata/ itself) or a metadata file path:
 * metadata/version-hint.text when present (a version number N meaning
 * vN[.gz].metadata.json or NNNNN-*.metadata.json, or a file name with or
 * without ".metadata.json"), else the highest-numbered vN[.gz].metadata.json
 * or NNNNN-uuid[.gz].metadata.json.  *out is floe_malloc'd. */
floe_status floe_ice_table_find_metadata(floe_fileio *io, const char *dir_or_file,
                                         char **out) FLOE_WARN_UNUSED;

/* Locate (as above) and load a table.  `io` may be NULL (local files); it
 * must outlive the table.  With allow_moved_paths, paths recorded in the
 * metadata and manifests are remapped to the table's actual root (see
 * floe_ice_table_resolve_path). */
floe_status floe_ice_table_open(floe_fileio *io, const char *dir_or_file, bool allow_moved_paths,
                                floe_ice_table **out) FLOE_WARN_UNUSED;
void floe_ice_table_free(floe_ice_table *t);

/* Map a path recorded in the table (manifest list, manifest, data or delete
 * file) to one that can be opened.  Without allow_moved_paths the path is
 * returned unchanged.  With it, a path under the recorded `location`
 * (compared after dropping "file:", "file://", "file:///" and "./") is
 * re-rooted at the table root; otherwise the path is re-rooted at the
 * table root through their common ancestor directory or through the first
 * suffix of the path that exists under the root; failing all of that it is
 * returned unchanged.  *out is floe_malloc'd. */
floe_status floe_ice_table_resolve_path(const floe_ice_table *t, const char *recorded,
                                        char **out) FLOE_WARN_UNUSED;

/* Open a file the table records (resolved as above) through the table's
 * FileIO, or as a local file when it has none.  size > 0 is the size the
 * metadata records, which spares S3 a HEAD request. */
floe_status floe_ice_table_open_input(const floe_ice_table *t, const char *recorded, int64_t size,
                                      floe_input **in) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
