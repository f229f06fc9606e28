/*
 * iceberg_schema.h — an Iceberg schema: a schema id, identifier field ids and
 * a struct type, plus an index over every nested field.
 *
 * The index is built once when the schema is made and is read-only after, so
 * a schema may be shared by threads.  It answers:
 *   - field by id (any depth), its parent's id and its full dotted name;
 *   - field by full dotted name, case-sensitively or not.  Names follow Iceberg
 *     Java: list elements are "a.element", map keys and values "m.key" and
 *     "m.value", and nested struct fields "a.element.x".  As in Java, the
 *     short forms that skip "element"/"value" when the element or value is a
 *     struct ("a.x", "m.x") are also accepted where they are not ambiguous.
 *
 * Table metadata keeps a list of schemas; look one up by schema_id.
 */
#ifndef FLOE_ICEBERG_SCHEMA_H
#define FLOE_ICEBERG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/iceberg_types.h"
#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct floe_ice_schema_index floe_ice_schema_index; /* private */

typedef struct floe_ice_schema {
    int32_t schema_id;
    int32_t n_identifier_field_ids;
    int32_t *identifier_field_ids;
    floe_ice_type *root;           /* a struct; owned */
    floe_ice_schema_index *index;  /* private */
} floe_ice_schema;

/* Make a schema from a struct type (ownership of `root` passes to the
 * schema, also on failure).  Checks that field ids are unique and >= 0,
 * full names are unique, and identifier fields exist, are primitive,
 * required, not float/double and not inside a list, map or optional struct. */
floe_status floe_ice_schema_new(int32_t schema_id, floe_ice_type *root, const int32_t *identifier_field_ids,
                                int32_t n_identifier_field_ids, floe_ice_schema **out) FLOE_WARN_UNUSED;
void floe_ice_schema_free(floe_ice_schema *s);

/* Rules for a schema floe is about to write into a table (not for internal
 * schemas such as position delete files, which use reserved ids): no ids
 * above FLOE_ICE_MAX_USER_FIELD_ID, no types newer than `format_version`,
 * and defaults only from v3.  Do not apply it to schemas read from existing
 * metadata: pyiceberg, for one, writes defaults into v2 tables. */
floe_status floe_ice_schema_validate_for_table(const floe_ice_schema *s, int format_version) FLOE_WARN_UNUSED;
floe_status floe_ice_schema_copy(const floe_ice_schema *s, floe_ice_schema **out) FLOE_WARN_UNUSED;

/* Same fields (ids, names, types, required) and identifier ids; the schema
 * id is not compared. */
bool floe_ice_schema_same_structure(const floe_ice_schema *a, const floe_ice_schema *b);

/* Number of fields at all depths (struct fields, elements, keys, values). */
int32_t floe_ice_schema_field_count(const floe_ice_schema *s);
/* Highest field id anywhere in the schema (0 for an empty schema). */
int32_t floe_ice_schema_highest_field_id(const floe_ice_schema *s);

/* The field with this id at any depth, or NULL. */
const floe_ice_field *floe_ice_schema_find_field(const floe_ice_schema *s, int32_t id);
/* The field with this full dotted name, or NULL (also NULL when a
 * case-insensitive lookup matches fields that differ only in case). */
const floe_ice_field *floe_ice_schema_find_by_name(const floe_ice_schema *s, const char *name, bool case_sensitive);
/* Full dotted name of a field ("a.element.x"), or NULL for an unknown id.
 * The string lives as long as the schema. */
const char *floe_ice_schema_field_name(const floe_ice_schema *s, int32_t id);
/* Id of the struct field, list or map that contains field `id`; -1 when
 * the field is top-level or unknown. */
int32_t floe_ice_schema_parent_id(const floe_ice_schema *s, int32_t id);
/* True if field `id` sits (at any depth) inside a list element or a map
 * key/value — such fields cannot be partition sources or identifiers. */
bool floe_ice_schema_in_list_or_map(const floe_ice_schema *s, int32_t id);

/* JSON (Appendix C): {"type":"struct","schema-id":N,"identifier-field-ids":[..],"fields":[..]}.
 * Errors are FLOE_ERR_CORRUPT naming the schema and field path, e.g.
 * "schema 2, field 'a.b': missing 'type'".  Text is floe_malloc'd. */
floe_status floe_ice_schema_from_json_text(const char *json, floe_ice_schema **out) FLOE_WARN_UNUSED;
floe_status floe_ice_schema_to_json_text(const floe_ice_schema *s, char **out) FLOE_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
