/*
 * iceberg_types.h — the Iceberg type model: primitive and nested types.
 *
 * A floe_ice_type is a tree.  Primitive types carry their parameters
 * (decimal precision/scale, fixed length, geo CRS).  Nested types keep their
 * children as floe_ice_field records so that struct fields, list elements and
 * map keys/values are handled alike (as in Iceberg Java, whose list element
 * is the field "element" and whose map has the fields "key" and "value"):
 *
 *   struct:  fields[0..n_fields)           (ids, names, required, docs, defaults)
 *   list:    fields[0] = element           (name "element")
 *   map:     fields[0] = key, fields[1] = value  (names "key", "value"; key required)
 *
 * Every type owns its children; floe_ice_type_free() frees a whole tree.
 * The v3 types variant, geometry, geography and unknown parse and print, but
 * value operations (serialization, hashing, transforms) report them as
 * FLOE_ERR_UNSUPPORTED.
 *
 * Type strings follow the spec's JSON forms: "int", "decimal(9,2)",
 * "fixed[16]", "timestamptz_ns", "geometry(srid:4326)".  Nested types print
 * in Java's style: "struct<1: a: required int, 2: b: optional string>",
 * "list<int>", "map<string, double>".
 */
#ifndef FLOE_ICEBERG_TYPES_H
#define FLOE_ICEBERG_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum floe_ice_type_id {
    FLOE_ICE_UNKNOWN = 0,   /* v3: always null, "unknown" */
    FLOE_ICE_BOOLEAN,
    FLOE_ICE_INT,
    FLOE_ICE_LONG,
    FLOE_ICE_FLOAT,
    FLOE_ICE_DOUBLE,
    FLOE_ICE_DECIMAL,
    FLOE_ICE_DATE,
    FLOE_ICE_TIME,
    FLOE_ICE_TIMESTAMP,
    FLOE_ICE_TIMESTAMPTZ,
    FLOE_ICE_TIMESTAMP_NS,  /* v3 */
    FLOE_ICE_TIMESTAMPTZ_NS,/* v3 */
    FLOE_ICE_STRING,
    FLOE_ICE_UUID,
    FLOE_ICE_FIXED,
    FLOE_ICE_BINARY,
    FLOE_ICE_VARIANT,       /* v3, unsupported for values */
    FLOE_ICE_GEOMETRY,      /* v3, unsupported for values */
    FLOE_ICE_GEOGRAPHY,     /* v3, unsupported for values */
    FLOE_ICE_STRUCT,
    FLOE_ICE_LIST,
    FLOE_ICE_MAP
} floe_ice_type_id;

#define FLOE_ICE_TYPE_ID_COUNT (FLOE_ICE_MAP + 1)

/* Largest field id a table may use; ids above are reserved for metadata
 * columns (_file, _pos, ...). */
#define FLOE_ICE_MAX_USER_FIELD_ID 2147483447

struct floe_ice_value; /* iceberg_value.h */
typedef struct floe_ice_type floe_ice_type;

/* A struct field, list element or map key/value. */
typedef struct floe_ice_field {
    int32_t id;
    char *name;
    bool required;
    char *doc;             /* NULL when absent */
    floe_ice_type *type;   /* owned */
    /* Defaults (v3; pyiceberg writes them in v2 too).  For a primitive field
     * the default is kept as a typed value (`*_default`, owned, NULL when
     * absent or null).  For a nested field only an object/array is legal and
     * it is kept as compact JSON text (`*_default_json`, NULL when absent). */
    struct floe_ice_value *initial_default;
    struct floe_ice_value *write_default;
    char *initial_default_json;
    char *write_default_json;
} floe_ice_field;

struct floe_ice_type {
    floe_ice_type_id id;
    int32_t precision;   /* decimal */
    int32_t scale;       /* decimal */
    int32_t length;      /* fixed */
    char *crs;           /* geometry/geography; NULL = default OGC:CRS84 */
    char *algorithm;     /* geography edge algorithm; NULL = spherical */
    int32_t n_fields;    /* struct: fields; list: 1; map: 2 */
    floe_ice_field *fields;
};

/* ---- construction (all allocate; free with floe_ice_type_free) ---------- */

/* A parameterless primitive (not decimal, fixed or a nested type). */
floe_status floe_ice_type_new(floe_ice_type_id id, floe_ice_type **out) FLOE_WARN_UNUSED;
/* decimal(P,S): 1 <= P <= 38.  The spec does not bound S by P, and its JSON
 * form provides for negative scales ("2E+20"), so S may be negative. */
floe_status floe_ice_type_decimal(int32_t precision, int32_t scale,
                                  floe_ice_type **out) FLOE_WARN_UNUSED;
floe_status floe_ice_type_fixed(int32_t length, floe_ice_type **out) FLOE_WARN_UNUSED;
/* An empty struct; add fields with floe_ice_struct_add_field. */
floe_status floe_ice_type_struct(floe_ice_type **out) FLOE_WARN_UNUSED;
/* Append a field; takes ownership of `type` (freed on failure too). */
floe_status floe_ice_struct_add_field(floe_ice_type *st, int32_t id, const char *name,
                                      bool required, floe_ice_type *type,
                                      const char *doc) FLOE_WARN_UNUSED;
/* list<element>; takes ownership of `element` (freed on failure too). */
floe_status floe_ice_type_list(int32_t element_id, bool element_required,
                               floe_ice_type *element, floe_ice_type **out) FLOE_WARN_UNUSED;
/* map<key, value>; takes ownership of both (freed on failure too). */
floe_status floe_ice_type_map(int32_t key_id, floe_ice_type *key, int32_t value_id,
                              bool value_required, floe_ice_type *value,
                              floe_ice_type **out) FLOE_WARN_UNUSED;

void floe_ice_type_free(floe_ice_type *t);
floe_status floe_ice_type_copy(const floe_ice_type *t, floe_ice_type **out) FLOE_WARN_UNUSED;
/* Free what a field owns (not the field record itself). */
void floe_ice_field_clear(floe_ice_field *f);
floe_status floe_ice_field_copy(const floe_ice_field *src, floe_ice_field *dst) FLOE_WARN_UNUSED;

/* ---- inspection --------------------------------------------------------- */

static inline bool floe_ice_type_is_nested(const floe_ice_type *t) {
    return t->id == FLOE_ICE_STRUCT || t->id == FLOE_ICE_LIST || t->id == FLOE_ICE_MAP;
}
static inline bool floe_ice_type_is_primitive(const floe_ice_type *t) {
    return !floe_ice_type_is_nested(t);
}
static inline const floe_ice_field *floe_ice_list_element(const floe_ice_type *t) {
    return t->id == FLOE_ICE_LIST ? &t->fields[0] : NULL;
}
static inline const floe_ice_field *floe_ice_map_key(const floe_ice_type *t) {
    return t->id == FLOE_ICE_MAP ? &t->fields[0] : NULL;
}
static inline const floe_ice_field *floe_ice_map_value(const floe_ice_type *t) {
    return t->id == FLOE_ICE_MAP ? &t->fields[1] : NULL;
}

/* "int", "decimal", "struct", ... (the bare name, without parameters). */
const char *floe_ice_type_id_name(floe_ice_type_id id);
/* Structural equality: ids, names, required flags, parameters and element
 * types (docs and defaults are ignored). */
bool floe_ice_type_equals(const floe_ice_type *a, const floe_ice_type *b);
/* The first format version that allows this type anywhere in the tree
 * (1, or 3 for unknown/variant/geometry/geography/timestamp(tz)_ns). */
int floe_ice_type_min_format_version(const floe_ice_type *t);
/* FLOE_ERR_UNSUPPORTED naming the type if it is one floe cannot read or
 * write values of (variant, geometry, geography) anywhere in the tree.
 * `what` names the place for the message (e.g. "column 'a'"). */
floe_status floe_ice_type_check_supported(const floe_ice_type *t, const char *what) FLOE_WARN_UNUSED;
/* Parse a primitive type string ("int", "decimal(9, 2)", "fixed[16]",
 * "geography(srid:4326,spherical)").  Case-insensitive, surrounding
 * blanks allowed.  FLOE_ERR_INVALID_ARGUMENT names the bad text. */
floe_status floe_ice_type_parse(const char *text, floe_ice_type **out) FLOE_WARN_UNUSED;
/* The type as a string (floe_malloc'd; caller floe_free's it). */
floe_status floe_ice_type_to_string(const floe_ice_type *t, char **out) FLOE_WARN_UNUSED;

/* May a column of type `from` be changed to type `to` by schema evolution
 * in a table of `format_version`?  Identical types are allowed.
 *   int -> long, float -> double, decimal(P,S) -> decimal(P',S) with P' > P;
 *   v3+: date -> timestamp / timestamp_ns (not the tz variants), unknown -> any. */
bool floe_ice_type_can_promote(const floe_ice_type *from, const floe_ice_type *to,
                               int format_version);

#ifdef __cplusplus
}
#endif
#endif
