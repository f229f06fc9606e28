/*
 * scan_internal.h — pieces of scan planning shared between its files: the
 * planner's compact form of a manifest (manifest_scan.c), the process-wide
 * cache that holds manifests in that form (manifest_cache.c), and the
 * planner itself (scan_plan.c).
 *
 * Why a second form: the full floe_ice_manifest keeps every data_file field
 * decoded (every metrics map as arrays, every bound copied), several hundred
 * bytes per entry.  Planning a million files needs far less per entry: the
 * path, sizes, the partition tuple (shared by the runs of entries with equal
 * tuples that manifests are made of), sequence numbers, split offsets, the
 * delete-file fields, and the column metrics only for the few columns a
 * filter or the plan statistics look at.  The compact form keeps exactly
 * that, the metrics as one small indexed blob per entry that is searched by
 * column id when needed, so a cache of a given budget holds several times
 * more manifests and planning touches several times less memory.
 */
#ifndef FLOE_ICEBERG_SCAN_INTERNAL_H
#define FLOE_ICEBERG_SCAN_INTERNAL_H

#include "floe/iceberg_expr.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_table_metadata.h"

/* ---- the compact manifest ------------------------------------------------ */

/* The data_file fields only delete files need. */
typedef struct floe_ice_scan_del_fields {
    int32_t n_equality_ids;           /* -1 = null */
    const int32_t *equality_ids;
    const char *referenced_data_file; /* NULL = null */
    bool has_content_offset, has_content_size_in_bytes;
    int64_t content_offset;           /* v3 deletion vectors */
    int64_t content_size_in_bytes;
} floe_ice_scan_del_fields;

/* One manifest entry. */
typedef struct floe_ice_scan_entry {
    const char *path;                 /* file_path, NUL-terminated */
    const char *format;               /* file_format as written ("" when null); shared */
    const floe_ice_value *partition;  /* the manifest's n_partition values, typed by its
                                       * Avro partition struct; runs of equal tuples share one */
    const uint8_t *metrics;           /* column metrics (floe_ice_scan_metrics_find), NULL: none */
    const int64_t *split_offsets;
    const floe_ice_scan_del_fields *del; /* delete files only, else NULL */
    int64_t record_count;
    int64_t file_size_in_bytes;
    int64_t sequence_number;          /* data sequence number, inherited; -1 unknown */
    int64_t file_sequence_number;     /* inherited; -1 unknown */
    int64_t first_row_id;             /* when has_first_row_id (v3, inherited) */
    int32_t n_split_offsets;          /* -1 = null */
    uint8_t status;                   /* floe_ice_entry_status */
    uint8_t content;                  /* floe_ice_content */
    bool has_first_row_id;
} floe_ice_scan_entry;

typedef struct floe_ice_scan_manifest {
    floe_ice_manifest_content content;
    int32_t spec_id;                  /* the list's, else the header's */
    int32_t n_partition;              /* values in every entry's tuple */
    const int32_t *partition_ids;     /* their partition field ids */
    size_t n_entries;
    const floe_ice_scan_entry *entries;
    struct floe_ice_smf_private *priv;
} floe_ice_scan_manifest;

/* Read manifest `in` (not owned) into the compact form.  `mf` (may be NULL)
 * is its manifest-list record, the source of inherited values, exactly as
 * for floe_ice_manifest_read; errors are the same, naming the manifest and
 * entry.  Everything lives in allocations charged to the current tracker. */
floe_status floe_ice_scan_manifest_read(floe_input *in, const floe_ice_manifest_file *mf,
                                        floe_ice_scan_manifest **out) FLOE_WARN_UNUSED;
void floe_ice_scan_manifest_free(floe_ice_scan_manifest *m);

/* The metrics of column `field_id` in an entry's metrics blob: counts -1
 * and bounds NULL when the file records none for it.  Returns false (and
 * leaves *out as unknown) when no metrics map mentions the column.
 *
 * The blob (built by manifest_scan.c, never read from input): u32 n, then
 * n {i32 field_id, u32 offset} sorted by field id, then at each offset a
 * flags byte (1 value count, 2 null count, 4 NaN count, 8 lower bound,
 * 16 upper bound), the present counts as zigzag varints in that order,
 * and the present bounds as varint length + bytes. */
bool floe_ice_scan_metrics_find(const uint8_t *blob, int32_t field_id, floe_ice_field_metrics *out);

/* ---- the process-wide manifest cache ------------------------------------ */

typedef struct floe_ice_cached_manifest floe_ice_cached_manifest;

/* Get manifest `mf` of table `t` in compact form (from the cache, or read
 * and inserted).  *m stays valid until floe_ice_manifest_cache_release(*h). */
floe_status floe_ice_manifest_cache_get(const floe_ice_table *t, const floe_ice_manifest_file *mf,
                                        floe_ice_cached_manifest **h, const floe_ice_scan_manifest **m) FLOE_WARN_UNUSED;
void floe_ice_manifest_cache_release(floe_ice_cached_manifest *h);

#endif
