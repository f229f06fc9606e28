/*
 * data_writer_internal.h — what the pieces of the Iceberg data writer
 * (write_settings.c, location_provider.c, write_metrics.c, data_writer.c)
 * share: the resolved settings struct, metrics modes, file locations and
 * the conversion of a Parquet write result into a data_file record.
 *
 * The public face is include/floe/iceberg_data_writer.h.
 */
#ifndef FLOE_ICEBERG_DATA_WRITER_INTERNAL_H
#define FLOE_ICEBERG_DATA_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/iceberg_data_writer.h"
#include "floe/iceberg_manifest.h"
#include "formats/compress.h"
#include "formats/parquet/writer.h"

/* A column's metrics mode, as Iceberg Java's MetricsModes. */
typedef enum floe_ice_metrics_kind {
    FLOE_ICE_METRICS_NONE = 0,
    FLOE_ICE_METRICS_COUNTS,
    FLOE_ICE_METRICS_TRUNCATE,
    FLOE_ICE_METRICS_FULL
} floe_ice_metrics_kind;

typedef struct floe_ice_metrics_mode {
    floe_ice_metrics_kind kind;
    int32_t length; /* TRUNCATE only, > 0 */
} floe_ice_metrics_mode;

/* Parse "none", "counts", "full", "truncate(N)" (case-insensitive, N > 0,
 * as MetricsModes.fromString).  false when it does not parse. */
bool floe_ice_metrics_mode_parse(const char *text, floe_ice_metrics_mode *out);

struct floe_ice_write_settings {
    /* table and layout */
    char *table_location;        /* trailing '/' stripped */
    char *data_path;             /* write.data.path or <location>/data, no trailing '/' */
    bool object_storage;
    bool partitioned_paths;
    char *object_context;        /* "<parent>/<name>" when data_path is outside the table; else NULL */
    int32_t format_version;
    int32_t spec_id;
    int32_t sort_order_id;
    bool unpartitioned;          /* no fields or only void ones: no partition directory */

    /* rolling and distribution */
    int64_t target_file_size;
    bool fanout;
    floe_ice_distribution_mode distribution;

    /* Parquet */
    floe_codec codec;
    int level;
    int64_t row_group_bytes, page_bytes, page_rows, dict_bytes, bloom_max_bytes;
    bool data_page_v2;
    bool dictionary;
    int32_t n_bloom;
    int32_t *bloom_ids;          /* leaf field ids with a Bloom filter */
    char *schema_json;           /* footer "iceberg.schema" */

    /* metrics: every field id of the schema with its mode, sorted by id */
    int32_t n_modes;
    int32_t *mode_ids;
    floe_ice_metrics_mode *modes;

    /* records */
    floe_ice_schema *schema;             /* copies of the target's */
    floe_ice_partition_spec *spec;       /* (an empty spec when it had none) */
    floe_ice_type *partition_type;
    floe_ice_data_file_codec *df_codec; /* encode is read-only: shared by threads */
    floe_schema *write_schema;          /* floe_ice_write_schema of the table schema */
};

/* The metrics mode of field `id` (NONE for an id the schema lacks). */
floe_ice_metrics_mode floe_ice_write_settings_mode(const floe_ice_write_settings *s, int32_t id);

/* Check a partition tuple against the spec's partition type in `schema`,
 * relabelling values whose representation matches (int days as date, long
 * micros/nanos as time or timestamps; a null takes the field's type).
 * FLOE_ERR_TYPE naming the field otherwise. */
floe_status floe_ice_partition_values_check(const floe_ice_partition_spec *spec, const floe_ice_schema *schema,
                                            floe_ice_value *values, int32_t n) FLOE_WARN_UNUSED;

/* Location of a new data file `filename` for a tuple whose partition path
 * is `partition_path` (ignored when the spec is unpartitioned), following
 * Java's DefaultLocationProvider / ObjectStoreLocationProvider.
 * floe_malloc'd. */
floe_status floe_ice_data_file_location(const floe_ice_write_settings *s, const char *partition_path,
                                        const char *filename, char **out) FLOE_WARN_UNUSED;

/* The object-storage entropy directories of `key` (Java's computeHash):
 * the low 20 bits of murmur3_32(key) in binary, split "bbbb/bbbb/bbbb/bbbbbbbb".
 * `out` must hold 24 bytes. */
void floe_ice_object_store_hash(const char *key, char out[24]);

/* Fill the metrics fields of `f` (column sizes, counts, bounds) from a
 * Parquet write result, per the settings' metrics modes and the table
 * schema.  Arrays and bound bytes are allocated in `arena`. */
struct floe_arena;
floe_status floe_ice_metrics_from_parquet(const floe_ice_write_settings *s, const floe_ice_schema *schema,
                                          const floe_pq_write_result *r, struct floe_arena *arena,
                                          floe_ice_data_file *f) FLOE_WARN_UNUSED;

/* Iceberg's truncated bounds (UnicodeUtil / BinaryUtil): the lower bound is
 * the first `w` code points (strings) or bytes (binary); the upper bound is
 * truncated the same way then incremented at the last position that can
 * be (false: no upper bound exists).  Results are prefixes or copies
 * written into `out` (capacity >= len + 4). */
size_t floe_ice_truncate_lower(const uint8_t *v, size_t len, int32_t w, bool is_string);
bool floe_ice_truncate_upper(const uint8_t *v, size_t len, int32_t w, bool is_string, uint8_t *out,
                             size_t *out_len);

#endif
