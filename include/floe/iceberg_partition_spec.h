/*
 * iceberg_partition_spec.h — partition specs: how a row's partition tuple is
 * derived from its columns.
 *
 * A spec has an id and a list of fields, each with its source column id(s),
 * a partition field id (1000, 1001, ... by convention; the partition tuple's
 * struct field ids), a name and a transform.  Table metadata keeps a list of
 * specs; look one up by spec_id.
 *
 * The partition type is a struct of each field's transform result type,
 * using the partition field ids and names; all its fields are optional.
 * A partition path is "name=value/name=value" with names and human-readable
 * values URL-encoded as Java's URLEncoder does ("a b" -> "a+b", "/" -> "%2F").
 */
#ifndef FLOE_ICEBERG_PARTITION_SPEC_H
#define FLOE_ICEBERG_PARTITION_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/iceberg_schema.h"
#include "floe/iceberg_transform.h"
#include "floe/iceberg_types.h"
#include "floe/iceberg_value.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Partition field ids start here (v1 specs, which do not store them, are
 * numbered from it in order). */
#define FLOE_ICE_PARTITION_DATA_ID_START 1000

typedef struct floe_ice_partition_field {
    int32_t source_id;      /* == source_ids[0] */
    int32_t n_source_ids;   /* 1, or more for v3 multi-argument transforms */
    int32_t *source_ids;    /* owned */
    int32_t field_id;
    char *name;             /* owned */
    floe_ice_transform transform;
} floe_ice_partition_field;

typedef struct floe_ice_partition_spec {
    int32_t spec_id;
    int32_t n_fields;
    floe_ice_partition_field *fields;
} floe_ice_partition_spec;

/* An empty (unpartitioned) spec; add fields with floe_ice_partition_spec_add. */
floe_status floe_ice_partition_spec_new(int32_t spec_id, floe_ice_partition_spec **out) FLOE_WARN_UNUSED;
floe_status floe_ice_partition_spec_add(floe_ice_partition_spec *spec, int32_t source_id, int32_t field_id,
                                        const char *name, floe_ice_transform transform) FLOE_WARN_UNUSED;
void floe_ice_partition_spec_free(floe_ice_partition_spec *spec);
floe_status floe_ice_partition_spec_copy(const floe_ice_partition_spec *spec,
                                         floe_ice_partition_spec **out) FLOE_WARN_UNUSED;

/* The field with this partition field id, or NULL. */
const floe_ice_partition_field *floe_ice_partition_spec_find_field(const floe_ice_partition_spec *spec,
                                                                   int32_t field_id);
/* The default partition field name Iceberg Java's PartitionSpec.Builder
 * gives a transform of column `source_name`: "id" (identity), "id_bucket",
 * "data_trunc", "ts_year", "ts_month", "ts_day", "ts_hour", "id_null"
 * (void).  floe_malloc'd. */
floe_status floe_ice_partition_default_name(const floe_ice_transform *t, const char *source_name,
                                            char **out) FLOE_WARN_UNUSED;

/* No fields, or only void transforms. */
bool floe_ice_partition_spec_is_unpartitioned(const floe_ice_partition_spec *spec);
/* Highest partition field id (FLOE_ICE_PARTITION_DATA_ID_START - 1 if none). */
int32_t floe_ice_partition_spec_last_field_id(const floe_ice_partition_spec *spec);
/* Spec equivalence (spec text): same number of fields and, for each, the
 * same source ids, transform and name (field ids and spec ids ignored). */
bool floe_ice_partition_spec_equivalent(const floe_ice_partition_spec *a, const floe_ice_partition_spec *b);

/* Check the spec against a schema: each source exists, is primitive and not
 * inside a list or map, and the transform applies to it (unknown transforms
 * pass: readers must tolerate them); names are non-empty and unique and do
 * not shadow a schema column unless that is an identity of the same column;
 * field ids are unique.  FLOE_ERR_INVALID_ARGUMENT naming the field. */
floe_status floe_ice_partition_spec_validate(const floe_ice_partition_spec *spec,
                                             const floe_ice_schema *schema) FLOE_WARN_UNUSED;

/* The partition tuple type (a struct), newly allocated.  A field with an
 * unknown transform or a source missing from the schema (a dropped column)
 * is an error unless `lenient`, in which case it is typed "unknown" so that
 * the tuple still lines up by field id (readers ignore such fields). */
floe_status floe_ice_partition_spec_partition_type(const floe_ice_partition_spec *spec,
                                                   const floe_ice_schema *schema, bool lenient,
                                                   floe_ice_type **out) FLOE_WARN_UNUSED;

/* "a=1/ts_day=2017-12-01" for a tuple of n_fields partition values (the
 * transform results, in field order).  floe_malloc'd. */
floe_status floe_ice_partition_path(const floe_ice_partition_spec *spec, const floe_ice_value *values,
                                    int32_t n_values, char **out) FLOE_WARN_UNUSED;
/* Java's URLEncoder.encode(s, UTF-8), appended into a new string. */
floe_status floe_ice_url_encode(const char *s, size_t len, char **out) FLOE_WARN_UNUSED;

/* JSON (Appendix C): {"spec-id": 0, "fields": [{"source-id", "field-id",
 * "name", "transform"}...]}.  "source-ids" (v3) is read and written when a
 * field has several sources.  Missing "field-id"s (v1) are numbered from
 * 1000.  Text is floe_malloc'd. */
floe_status floe_ice_partition_spec_from_json_text(const char *json,
                                                   floe_ice_partition_spec **out) FLOE_WARN_UNUSED;
floe_status floe_ice_partition_spec_to_json_text(const floe_ice_partition_spec *spec,
                                                 char **out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
