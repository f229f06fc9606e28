/*
 * pgnode.h — small accessors for libpg_query's JSON parse trees.
 *
 * A node is a one-key object naming its type: {"ColumnRef": {...}}.  Fields
 * holding their type's default (0, false, "", empty list) are omitted by
 * libpg_query, so every getter takes NULL and missing fields gracefully:
 * a missing int is the given default, a missing string is NULL, a missing
 * list has length 0.
 */
#ifndef FLOE_SQL_PGNODE_H
#define FLOE_SQL_PGNODE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/status.h"

/* The node's type name ("SelectStmt"), or NULL for anything else. */
const char *floe_pg_node_kind(const json_t *node);
/* The node's body object (the value under its type name), or NULL. */
json_t *floe_pg_node_body(const json_t *node);
/* The body when the node is of type `kind`, else NULL. */
json_t *floe_pg_as(const json_t *node, const char *kind);
/* A field of an object (NULL-safe). */
json_t *floe_pg_get(const json_t *obj, const char *field);
/* A string field, or NULL. */
const char *floe_pg_get_str(const json_t *obj, const char *field);
/* An integer field (or `dflt` when absent). */
int64_t floe_pg_get_int(const json_t *obj, const char *field, int64_t dflt);
/* A boolean field (false when absent). */
bool floe_pg_get_bool(const json_t *obj, const char *field);
/* The "location" of a node (its body's), or -1. */
int32_t floe_pg_location(const json_t *node);

/* Lists (JSON arrays): length 0 for NULL / non-arrays. */
int32_t floe_pg_list_len(const json_t *list);
json_t *floe_pg_list_at(const json_t *list, int32_t i);

/* A {"String": {"sval": "x"}} node's text ("" when sval is omitted), or
 * NULL for other nodes. */
const char *floe_pg_string(const json_t *node);
/* The names of a list of String nodes joined by '.' ("pg_catalog.int4"). */
floe_status floe_pg_name_list(const json_t *list, floe_buf *out) FLOE_WARN_UNUSED;

/* A_Const values. */
typedef enum floe_pg_const_kind {
    FLOE_PG_CONST_NONE = 0, /* not an A_Const */
    FLOE_PG_CONST_NULL,
    FLOE_PG_CONST_INT,      /* ival (fits int32 in PostgreSQL's scanner)   */
    FLOE_PG_CONST_FLOAT,    /* fval: text of a numeric literal (1.5, 1e3,
                               or an integer too big for int32)            */
    FLOE_PG_CONST_STRING,   /* sval                                        */
    FLOE_PG_CONST_BOOL,     /* boolval                                     */
    FLOE_PG_CONST_BITSTRING
} floe_pg_const_kind;

typedef struct floe_pg_const {
    floe_pg_const_kind kind;
    int64_t ival;          /* INT; BOOL as 0/1 */
    const char *text;      /* FLOAT, STRING, BITSTRING (borrowed)           */
} floe_pg_const;

/* Read an A_Const node (kind NONE when `node` is not one). */
floe_pg_const floe_pg_const_of(const json_t *node);

/* floe_pg_const_of, with an integer's value right when it is 0 or
 * negative: libpg_query's JSON writes those as "ival": {} (-5 loses its
 * value), so it is read from `sql` (the script the node's location
 * points into; NULL reads 0). */
floe_pg_const floe_pg_const_of_sql(const json_t *node, const char *sql);

/* A TypeName node: its last name, lower case ("int4", "numeric",
 * "timestamptz", "varchar", "string") — the pg_catalog qualifier dropped —
 * its integer type modifiers, and whether it is an array type. */
typedef struct floe_pg_type_name {
    char name[64];
    int32_t n_mods;
    int64_t mods[4];
    bool is_array;
    int32_t array_dims; /* T[][]: 2 — a list of lists, as floe's lists nest */
    int32_t location;
} floe_pg_type_name;
floe_status floe_pg_type_name_of(const json_t *type_name, floe_pg_type_name *out) FLOE_WARN_UNUSED;

/* The floe type for a SQL type name (see helper-interfaces: boolean, int,
 * bigint, smallint → int32, real/float4, double/float8, decimal(p,s),
 * date, time, timestamp, timestamptz, text/varchar/string, bytea/binary,
 * uuid).  `sql` (may be NULL) is the statement text, used only to tell
 * `float` (float32 in floe) from `double precision`, which PostgreSQL's
 * grammar both turns into float8.  Unknown: FLOE_ERR_NOT_FOUND with a
 * suggestion.  T[] is list<T>; nested types: see below. */
floe_status floe_pg_type_to_floe(const floe_pg_type_name *tn, const char *sql, floe_type **out) FLOE_WARN_UNUSED;

/* Nested types (type_text.c).  parse.c's pre-pass replaces a Spark-style
 * type — array<T>, map<K, V>, struct<a: T, ...> — by this placeholder
 * name at the same position; floe_pg_type_to_floe then reads the type
 * from the statement text there (floe_pg_nested_type_at). */
#define FLOE_PG_NESTED_TYPE_NAME "<>"
floe_status floe_pg_nested_type_at(const char *sql, int32_t location, floe_type **out) FLOE_WARN_UNUSED;
/* End (exclusive byte offset) of the nested type whose keyword starts at
 * `start`: past the '>' matching the first '<' and any [] suffixes; -1
 * when the text is not a balanced <...>. */
int32_t floe_pg_nested_type_end(const char *sql, int32_t start);

#endif
