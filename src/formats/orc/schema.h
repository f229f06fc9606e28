/*
 * schema.h — an ORC file's type tree, and the floe type of each ORC type.
 *
 * ORC flattens its schema into a list of Types in pre-order: column id i is
 * types[i], id 0 is the root struct, and a compound type lists its
 * children's ids.  floe_orc_schema_build checks that shape (children's ids
 * follow their parent's in strict pre-order, so every id is reached exactly
 * once and the tree cannot loop) and builds a tree of floe_orc_column with
 * names, dotted paths and attributes.  The root is normally a struct whose
 * fields are the file's columns; a file whose root is another type (ORC
 * allows it) is read as one column named "_col0".
 *
 * Attributes: ORC files written by Iceberg carry "iceberg.id" (the field
 * id), "iceberg.required" ("true"), "iceberg.long-type", "iceberg.binary-type",
 * "iceberg.struct-type", "iceberg.timestamp-unit" and so on; all are kept
 * (floe_orc_column_attribute) and iceberg.id / iceberg.required are parsed.
 *
 * Paths name fields like the Parquet reader's: struct fields by name, a
 * list's element "element", a map's "key" and "value", a union's variants
 * "0", "1" ... ("s.b", "ls.element.a", "m.value.x", "u.1").
 *
 * The floe type of an ORC type (floe_orc_column_type) is the one place the
 * mapping is decided, so the Iceberg layer can check types against it:
 *   boolean -> bool; tinyint, smallint, int -> int32; bigint -> int64;
 *   float -> float32; double -> float64; string, varchar, char -> string;
 *   binary -> binary; date -> date32; decimal(p, s) -> decimal128(p, s)
 *   (a Hive 0.11 decimal, which has no precision, -> decimal128(38, 6):
 *   values with more fraction digits are cut to 6, as ORC's C++ reader
 *   does);
 *   timestamp -> timestamp_us (ns with FLOE_ORC_TS_NS), read as if UTC
 *   (wall clock, as Iceberg's timestamp); timestamp with local time zone ->
 *   timestamp_us_tz (ns_tz); struct -> struct; array -> list<element>;
 *   map -> map<key, value>; uniontype<a, b, ...> -> struct<tag: int32,
 *   0: a, 1: b, ...> where tag is the variant's index and only that
 *   variant's child is non-null in a row (a null union has a null struct).
 * Iceberg's own attributes refine that as Iceberg's readers do: bigint
 * with iceberg.long-type TIME -> time64_us; binary with iceberg.binary-type
 * UUID -> uuid, FIXED -> fixed[iceberg.length] (a value of another length
 * is a corrupt-data error); a timestamp with iceberg.timestamp-unit NANOS
 * is read in nanoseconds whatever the unit asked.
 * Fields are nullable unless iceberg.required is "true"; field ids come
 * from iceberg.id.
 */
#ifndef FLOE_FORMATS_ORC_SCHEMA_H
#define FLOE_FORMATS_ORC_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"
#include "floe/status.h"
#include "formats/orc/orc_meta.h"

#define FLOE_ORC_HIVE11_DECIMAL_SCALE 6

/* Timestamp unit of the batches. */
typedef enum floe_orc_ts_unit {
    FLOE_ORC_TS_US = 0,   /* microseconds (nanoseconds truncated toward -inf) */
    FLOE_ORC_TS_NS = 1    /* nanoseconds (out of int64 range is an error) */
} floe_orc_ts_unit;

typedef struct floe_orc_column floe_orc_column;
struct floe_orc_column {
    uint32_t id;                /* ORC column id (pre-order index) */
    uint32_t last_id;           /* largest id in this subtree */
    int kind;                   /* floe_orc_kind */
    const char *name;           /* field name ("" for the root) */
    char *path;                 /* dotted path from the root ("" for the root) */
    floe_orc_column *parent;
    floe_orc_column **children;
    int num_children;
    uint32_t max_length;        /* char/varchar */
    uint32_t precision, scale;  /* decimal (precision 0: unknown) */
    const floe_orc_attribute *attributes;
    int num_attributes;
    int32_t iceberg_id;         /* -1 if none */
    bool iceberg_required;
};

typedef struct floe_orc_schema {
    floe_orc_column *columns;   /* by id: columns[id] */
    uint32_t num_columns;
    floe_orc_column *root;      /* columns[0] */
} floe_orc_schema;

/* Build from the footer's types (borrowed: names and attributes point into
 * the footer's arena, so the footer must outlive the schema). */
floe_status floe_orc_schema_build(const floe_orc_footer *footer, floe_orc_schema **out) FLOE_WARN_UNUSED;
void floe_orc_schema_free(floe_orc_schema *s);

/* Lookups; NULL when absent. */
const floe_orc_column *floe_orc_schema_find_path(const floe_orc_schema *s, const char *path);
const floe_orc_column *floe_orc_schema_find_iceberg_id(const floe_orc_schema *s, int32_t id);
const char *floe_orc_column_attribute(const floe_orc_column *c, const char *key);

/* The floe type of a column (one reference for the caller). */
floe_status floe_orc_column_type(const floe_orc_column *c, floe_orc_ts_unit unit,
                                 floe_type **out) FLOE_WARN_UNUSED;
/* A field for the column: its name, type, nullability and Iceberg id. */
floe_status floe_orc_column_field(const floe_orc_column *c, floe_orc_ts_unit unit,
                                  floe_field *out) FLOE_WARN_UNUSED;
/* ORC's own spelling of a type: "struct<a:int,b:array<string>>",
 * "decimal(10,2)", "varchar(20)". */
floe_status floe_orc_column_type_string(const floe_orc_column *c, struct floe_buf *out) FLOE_WARN_UNUSED;

#endif
