/*
 * schema.h — a Parquet file's schema as a tree the reader can use.
 *
 * The footer stores the schema as a flat, depth-first list of SchemaElements
 * (each group says how many children follow).  floe_pq_schema_build() turns
 * it into two views:
 *
 *   - the leaf COLUMNS, in file order (column i of every row group): each
 *     with its path, physical type, max definition/repetition levels and the
 *     engine-facing value kind (int8 ... timestamp ns, decimal, string ...);
 *
 *   - the logical FIELD tree the engine exposes: structs, lists and maps with
 *     Parquet's encoding levels removed.  LIST follows the standard 3-level
 *     layout and the backward-compatibility rules of LogicalTypes.md (legacy
 *     2-level lists, `array` / `<name>_tuple` element groups, repeated fields
 *     without annotation = required list of required elements); MAP accepts
 *     MAP and MAP_KEY_VALUE annotations, optional keys (written by old
 *     Presto/Trino) and a key_value group without a value (read as a list of
 *     the keys, as Arrow does).  A group annotated VARIANT is a VARIANT
 *     node whose children (metadata, value, typed_value and what is
 *     shredded below it) are converted as a struct's are; the engine reads
 *     it as one variant column (variant_unshred.h).
 *
 * Levels.  For every field node: `def_level` is the definition level at which
 * the node is present (non-null) and `rep_level` the repetition level of the
 * innermost list it is inside.  For a LIST/MAP node, `elem_def_level` is the
 * definition level at which the list has at least one element and
 * `elem_rep_level` the repetition level that starts a new element of it.
 * Nullable nodes are null when a leaf's def < def_level (and their parent is
 * present), lists are empty when def_level <= def < elem_def_level.
 *
 * The schema points into the floe_pq_file_metadata it was built from, which
 * must outlive it.
 */
#ifndef FLOE_FORMATS_PARQUET_SCHEMA_H
#define FLOE_FORMATS_PARQUET_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/status.h"
#include "formats/parquet/parquet_meta.h"

/* What a node holds, as the engine sees it. */
typedef enum floe_pq_kind {
    FLOE_PQ_KIND_BOOL,
    FLOE_PQ_KIND_INT8,
    FLOE_PQ_KIND_INT16,
    FLOE_PQ_KIND_INT32,
    FLOE_PQ_KIND_INT64,
    FLOE_PQ_KIND_UINT8,
    FLOE_PQ_KIND_UINT16,
    FLOE_PQ_KIND_UINT32,
    FLOE_PQ_KIND_UINT64,
    FLOE_PQ_KIND_FLOAT16,   /* FIXED[2] */
    FLOE_PQ_KIND_FLOAT,
    FLOE_PQ_KIND_DOUBLE,
    FLOE_PQ_KIND_DECIMAL,   /* INT32, INT64, FIXED or BYTE_ARRAY; precision/scale */
    FLOE_PQ_KIND_DATE,      /* INT32 days since 1970-01-01 */
    FLOE_PQ_KIND_TIME_MS,   /* INT32 */
    FLOE_PQ_KIND_TIME_US,   /* INT64 */
    FLOE_PQ_KIND_TIME_NS,   /* INT64 */
    FLOE_PQ_KIND_TIMESTAMP_MS,
    FLOE_PQ_KIND_TIMESTAMP_US,
    FLOE_PQ_KIND_TIMESTAMP_NS, /* INT64, or INT96 (Impala/Spark legacy; read as µs by default) */
    FLOE_PQ_KIND_STRING,    /* BYTE_ARRAY UTF-8: STRING, ENUM, JSON, UTF8 */
    FLOE_PQ_KIND_BINARY,    /* BYTE_ARRAY (incl. BSON) */
    FLOE_PQ_KIND_FIXED,     /* FIXED_LEN_BYTE_ARRAY (incl. INTERVAL) */
    FLOE_PQ_KIND_UUID,      /* FIXED[16] */
    FLOE_PQ_KIND_NULL,      /* logical UNKNOWN: only nulls */
    FLOE_PQ_KIND_STRUCT,
    FLOE_PQ_KIND_LIST,
    FLOE_PQ_KIND_MAP,
    FLOE_PQ_KIND_VARIANT    /* a VARIANT group: metadata, value, typed_value */
} floe_pq_kind;

const char *floe_pq_kind_name(floe_pq_kind k);

typedef struct floe_pq_field floe_pq_field;

/* A leaf column (a primitive SchemaElement). */
typedef struct floe_pq_column {
    int index;                       /* position among leaves = in each row group */
    int schema_index;                /* position in FileMetaData.schema */
    const floe_pq_schema_element *element;
    const char *path;                /* physical path, dotted: "a.list.element" */
    const char **path_parts;         /* the same, one name per level */
    int path_len;
    floe_pq_type physical;
    int32_t type_length;             /* FIXED_LEN_BYTE_ARRAY width, else 0 */
    floe_pq_kind kind;
    bool utc;                        /* TIMESTAMP/TIME adjusted to UTC */
    int32_t precision, scale;        /* DECIMAL */
    /* Set when the column's annotation does not fit its physical type
     * ("annotation TIMESTAMP(MILLIS,utc) is not valid on INT32", "converted
     * type DECIMAL(4,6): scale 6 exceeds precision 4"): reading the column
     * is then a CORRUPT error saying so (kind is the physical type's, for
     * tools that only show the schema).  NULL for a readable column. */
    const char *invalid;
    int16_t max_def_level;
    int16_t max_rep_level;
    const floe_pq_field *field;      /* the logical leaf field it feeds */
} floe_pq_column;

/* A node of the logical tree. */
struct floe_pq_field {
    const char *name;
    floe_pq_kind kind;
    bool nullable;
    bool has_field_id;
    int32_t field_id;
    int16_t def_level, rep_level;
    int16_t elem_def_level, elem_rep_level; /* LIST and MAP */
    /* STRUCT: its fields; LIST: one child, the element; MAP: two children,
     * key and value. */
    floe_pq_field **children;
    int num_children;
    const floe_pq_field *parent;
    /* Leaves (not STRUCT/LIST/MAP): */
    const floe_pq_column *column;
    /* The SchemaElement this node came from: for a LIST/MAP the annotated
     * group (or the bare repeated field), otherwise the node's own. */
    const floe_pq_schema_element *element;
    /* VARIANT: set when the group's layout is not one the Variant
     * shredding spec allows ("typed_value INT32 (INTEGER(32,false)) is not
     * a shredded variant type"); reading the column is then an error
     * saying so.  NULL for a readable variant. */
    const char *invalid;
};

typedef struct floe_pq_schema floe_pq_schema;

/* Build from FileMetaData.schema; checks the tree is well formed (children
 * counts add up, the root is not repeated, leaves have a physical type,
 * FIXED widths are positive, nesting depth is bounded).  Errors are CORRUPT
 * or UNSUPPORTED naming the element.  A leaf whose logical or converted
 * type does not fit its physical type is not an error here: its column is
 * marked `invalid`, and reading it fails naming the annotation, so the
 * file's other columns (and tools showing the schema) still work. */
floe_status floe_pq_schema_build(const floe_pq_file_metadata *md,
                                 floe_pq_schema **out) FLOE_WARN_UNUSED;
void floe_pq_schema_free(floe_pq_schema *s);

int floe_pq_schema_num_columns(const floe_pq_schema *s);
const floe_pq_column *floe_pq_schema_column(const floe_pq_schema *s, int i);
/* The root's logical fields (the top-level columns of the table). */
const floe_pq_field *floe_pq_schema_root(const floe_pq_schema *s);

/* Leaf by dotted physical path ("a.b", "tags.list.element"); NULL if none. */
const floe_pq_column *floe_pq_schema_find_column(const floe_pq_schema *s, const char *path);
/* Logical field (any node) carrying an Iceberg field id; NULL if none. */
const floe_pq_field *floe_pq_schema_find_field_id(const floe_pq_schema *s, int32_t field_id);
/* Leaf column whose own SchemaElement carries the field id; NULL if none. */
const floe_pq_column *floe_pq_schema_find_column_by_field_id(const floe_pq_schema *s,
                                                             int32_t field_id);

/* Whether values of `col` compared the legacy way (signed integers, bytes
 * as signed chars) are in the column's true order: then min/max written by
 * writers that predate ColumnOrder can be trusted. */
bool floe_pq_column_legacy_order_ok(const floe_pq_column *col);

/* The min/max statistics of a chunk or page of `col` that may be trusted for
 * pruning, or false when there are none.  min_value/max_value are used when
 * present (ordered per the column's type); the legacy min/max only when the
 * legacy signed comparison is the column's true order (signed integers,
 * floats, dates, times, timestamps, INT32/INT64 decimals), or when they are
 * equal (then the single value is exact whatever the order).  Bounds may be
 * inexact (truncated strings); is_*_exact says so. */
bool floe_pq_column_stats_bounds(const floe_pq_column *col, const floe_pq_statistics *s,
                                 const floe_pq_bytes **min, const floe_pq_bytes **max);

#endif
