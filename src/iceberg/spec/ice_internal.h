/*
 * ice_internal.h — iceberg-layer internals shared between its modules and
 * with the table-metadata code: the jansson (json_t) forms of types, values,
 * schemas, partition specs and sort orders, and floe_buf appenders.
 *
 * The public headers (include/floe/iceberg_*.h) speak only JSON text so
 * that outside programs need no jansson; inside floe, metadata parsing walks
 * one json_t tree and calls these directly.
 *
 * Conventions: *_from_json never takes ownership of the json_t (callers keep
 * their reference); *_to_json returns a new reference.  Error messages name
 * the place (`ctx`, e.g. "schema 2") and the dotted field path.
 */
#ifndef FLOE_ICEBERG_ICE_INTERNAL_H
#define FLOE_ICEBERG_ICE_INTERNAL_H

#include <jansson.h>

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_schema.h"
#include "floe/iceberg_sort_order.h"
#include "floe/iceberg_transform.h"
#include "floe/iceberg_types.h"
#include "floe/iceberg_value.h"

/* Types.  `ctx` prefixes messages ("schema 2"); `path` is the dotted name
 * of the field whose type this is ("" at the top). */
floe_status floe_ice_type_from_json(json_t *j, const char *ctx, const char *path,
                                    floe_ice_type **out) FLOE_WARN_UNUSED;
floe_status floe_ice_type_to_json(const floe_ice_type *t, json_t **out) FLOE_WARN_UNUSED;
floe_status floe_ice_type_append(floe_buf *b, const floe_ice_type *t) FLOE_WARN_UNUSED;

/* Values (JSON single-value serialization, primitives only). */
floe_status floe_ice_value_to_json(const floe_ice_value *v, json_t **out) FLOE_WARN_UNUSED;
floe_status floe_ice_value_from_json(const floe_ice_type *type, json_t *j,
                                     floe_ice_value *out) FLOE_WARN_UNUSED;
floe_status floe_ice_value_append_string(floe_buf *b, const floe_ice_value *v) FLOE_WARN_UNUSED;
floe_status floe_ice_value_append_bytes(floe_buf *b, const floe_ice_value *v) FLOE_WARN_UNUSED;
/* Minimal two's complement big-endian bytes of a 128-bit integer (1..16
 * bytes written to `dst`, which must hold 16); returns the count. */
size_t floe_ice_int128_min_bytes(floe_int128 v, uint8_t dst[16]);
/* Decimal text ("14.20", "2E+20") of unscaled/scale, as Java's BigDecimal. */
floe_status floe_ice_decimal_append(floe_buf *b, floe_int128 unscaled, int32_t scale) FLOE_WARN_UNUSED;

/* Schemas.  A JSON schema object; "schema-id" defaults to 0 when absent
 * (v1).  Messages read "schema <id>, field 'a.b': ...". */
floe_status floe_ice_schema_from_json(json_t *j, floe_ice_schema **out) FLOE_WARN_UNUSED;
floe_status floe_ice_schema_to_json(const floe_ice_schema *s, json_t **out) FLOE_WARN_UNUSED;

/* Partition specs: the object form {"spec-id", "fields"}, and the bare
 * fields array used by v1 metadata's "partition-spec" and by manifests'
 * "partition-spec" key.  Fields without "field-id" (v1) get ids
 * `first_v1_field_id`, +1, ... (the reference implementation uses 1000). */
floe_status floe_ice_partition_spec_from_json(json_t *j, floe_ice_partition_spec **out) FLOE_WARN_UNUSED;
floe_status floe_ice_partition_fields_from_json(json_t *fields, int32_t spec_id,
                                                int32_t first_v1_field_id,
                                                floe_ice_partition_spec **out) FLOE_WARN_UNUSED;
floe_status floe_ice_partition_spec_to_json(const floe_ice_partition_spec *s,
                                            json_t **out) FLOE_WARN_UNUSED;
floe_status floe_ice_partition_fields_to_json(const floe_ice_partition_spec *s,
                                              json_t **out) FLOE_WARN_UNUSED;

/* Sort orders: one {"order-id", "fields"} object. */
floe_status floe_ice_sort_order_from_json(json_t *j, floe_ice_sort_order **out) FLOE_WARN_UNUSED;
floe_status floe_ice_sort_order_to_json(const floe_ice_sort_order *o, json_t **out) FLOE_WARN_UNUSED;

/* "source-id" or (v3) "source-ids" of a partition or sort field: a new
 * array of >= 1 ids.  Writing puts "source-id" for one id, else "source-ids". */
floe_status floe_ice_json_source_ids(json_t *obj, const char *ctx, int32_t **ids, int32_t *n) FLOE_WARN_UNUSED;
floe_status floe_ice_json_set_source_ids(json_t *obj, const int32_t *ids, int32_t n) FLOE_WARN_UNUSED;

/* Small shared helpers. */
floe_status floe_ice_json_parse_text(const char *text, const char *what, json_t **out) FLOE_WARN_UNUSED;
floe_status floe_ice_json_dump(json_t *j, char **out) FLOE_WARN_UNUSED;
/* Read an int32 member; `required` false leaves *out untouched when absent.
 * Messages: "<ctx>: missing '<key>'" / "'<key>' must be an integer". */
floe_status floe_ice_json_int32(json_t *obj, const char *key, bool required, const char *ctx,
                                int32_t *out) FLOE_WARN_UNUSED;

/* Open a file whose length the metadata records (a manifest: the list's
 * manifest_length) and run `read` on it.  The recorded length is trusted
 * first, which saves an object store a HEAD request per manifest; but some
 * writers record it wrong (short), so when `read` fails on a remote file
 * opened that way, the file is opened again at its real length and read
 * once more, and the second result stands. */
struct floe_ice_table;
floe_status floe_ice_table_read_recorded(const struct floe_ice_table *t, const char *recorded, int64_t size,
                                         floe_status (*read)(floe_input *in, void *arg),
                                         void *arg) FLOE_WARN_UNUSED;
/* A manifest of `t` read whole (floe_ice_manifest_read) through
 * floe_ice_table_read_recorded; `inherit` as floe_ice_manifest_read's. */
struct floe_ice_manifest_file;
struct floe_ice_manifest;
floe_status floe_ice_table_read_manifest(const struct floe_ice_table *t, const struct floe_ice_manifest_file *mf,
                                         const struct floe_ice_manifest_file *inherit,
                                         struct floe_ice_manifest **out) FLOE_WARN_UNUSED;

#endif
