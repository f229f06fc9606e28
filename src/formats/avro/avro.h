/*
 * avro.h — floe's Avro: schemas, a generic datum model, binary encoding
 * with schema resolution, and object container files (read and write).
 *
 * Iceberg keeps manifests and manifest lists in Avro container files whose
 * schemas carry "field-id" (and "element-id", "key-id", "value-id") on every
 * field.  Those attributes must survive parsing and re-writing, and records
 * written by any Iceberg version must decode into one reader model, so:
 *
 *   - a schema keeps every attribute it was given (field ids, docs, unknown
 *     keys) and writes them back out;
 *   - decoding always goes through a resolution plan between the writer's
 *     schema and the reader's (expected) schema; record fields match by
 *     field-id when both sides have one, else by name or alias (never by
 *     name to a writer field with a different id); missing fields take
 *     their default (or null when optional); promotions follow the Avro
 *     spec (int→long→float→double, string↔bytes); a writer union branch
 *     the reader cannot take is an error only if a value uses it;
 *   - container files are read one block at a time (bounded memory) through
 *     floe_input, and written through floe_output with arbitrary metadata.
 *
 * Decoded values (floe_avro_value) live in a floe_arena (base/arena.h) the caller
 * owns; nothing in a value points into a reader's buffers or resolver, so
 * values outlive the reader.
 */
#ifndef FLOE_FORMATS_AVRO_H
#define FLOE_FORMATS_AVRO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/arena.h"
#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/status.h"

/* ---- schemas ----------------------------------------------------------- */

typedef enum floe_avro_type {
    FLOE_AVRO_NULL = 0,
    FLOE_AVRO_BOOLEAN,
    FLOE_AVRO_INT,
    FLOE_AVRO_LONG,
    FLOE_AVRO_FLOAT,
    FLOE_AVRO_DOUBLE,
    FLOE_AVRO_BYTES,
    FLOE_AVRO_STRING,
    FLOE_AVRO_RECORD,
    FLOE_AVRO_ENUM,
    FLOE_AVRO_ARRAY,
    FLOE_AVRO_MAP,
    FLOE_AVRO_UNION,
    FLOE_AVRO_FIXED
} floe_avro_type;

/* Logical types floe understands.  An unknown or ill-formed logicalType is
 * kept as an attribute (so it is written back) and the schema behaves as its
 * underlying type, as the spec requires. */
typedef enum floe_avro_logical {
    FLOE_AVRO_LT_NONE = 0,
    FLOE_AVRO_LT_DECIMAL,        /* bytes or fixed; precision, scale */
    FLOE_AVRO_LT_UUID,           /* string or fixed(16) */
    FLOE_AVRO_LT_DATE,           /* int: days since 1970-01-01 */
    FLOE_AVRO_LT_TIME_MILLIS,    /* int */
    FLOE_AVRO_LT_TIME_MICROS,    /* long */
    FLOE_AVRO_LT_TIMESTAMP_MILLIS,
    FLOE_AVRO_LT_TIMESTAMP_MICROS,
    FLOE_AVRO_LT_TIMESTAMP_NANOS,
    FLOE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS,
    FLOE_AVRO_LT_LOCAL_TIMESTAMP_MICROS,
    FLOE_AVRO_LT_LOCAL_TIMESTAMP_NANOS,
    FLOE_AVRO_LT_DURATION        /* fixed(12): months, days, millis (u32 LE) */
} floe_avro_logical;

typedef struct floe_avro_schema floe_avro_schema;

/* "No id": Iceberg ids are non-negative 32-bit ints. */
#define FLOE_AVRO_NO_ID INT64_MIN

typedef struct floe_avro_field {
    char *name;
    floe_avro_schema *type;
    json_t *default_value; /* NULL: no default */
    char *doc;             /* NULL: none */
    char **aliases;
    size_t n_aliases;
    int64_t field_id;      /* "field-id", or FLOE_AVRO_NO_ID */
    json_t *attrs;         /* every other attribute (incl. field-id), or NULL */
} floe_avro_field;

struct floe_avro_schema {
    floe_avro_type type;
    floe_avro_logical logical;
    int precision, scale;   /* decimal */

    /* named types (record, enum, fixed) */
    char *name;             /* short name as written */
    char *space;            /* namespace given explicitly on this type, or NULL */
    char *fullname;         /* namespace-qualified */
    char *doc;
    char **aliases;
    size_t n_aliases;
    int is_error;           /* declared with type "error" */

    floe_avro_field *fields; /* record */
    size_t n_fields;

    char **symbols;          /* enum */
    size_t n_symbols;
    char *enum_default;      /* or NULL */

    floe_avro_schema *items; /* array */
    floe_avro_schema *values; /* map */
    int64_t element_id, key_id, value_id; /* Iceberg ids, or FLOE_AVRO_NO_ID */

    floe_avro_schema **branches; /* union */
    size_t n_branches;

    size_t fixed_size;

    json_t *attrs;           /* every other attribute (incl. unknown logicalType), or NULL */

    /* Set on the root only: every node of this schema, for freeing. */
    struct floe_avro_pool *pool;
};

/* Parse a schema from JSON text / a jansson value.  Errors name the path in
 * the schema, e.g. "schema field 'data_file.partition': ...". */
floe_status floe_avro_schema_parse(const char *json, size_t len,
                                   floe_avro_schema **out) FLOE_WARN_UNUSED;
floe_status floe_avro_schema_from_json(json_t *j, floe_avro_schema **out) FLOE_WARN_UNUSED;
void floe_avro_schema_free(floe_avro_schema *s);

/* The schema as JSON, every attribute kept.  Named types are written in
 * full the first time and by name afterwards.  pretty: indent by 2. */
floe_status floe_avro_schema_to_json(const floe_avro_schema *s, int pretty,
                                     floe_buf *out) FLOE_WARN_UNUSED;
json_t *floe_avro_schema_to_jansson(const floe_avro_schema *s); /* NULL on OOM */

/* Check every field default against its type as strict readers do (a
 * union's default must fit its first branch).  Reading is lenient; the
 * writer calls this so floe never writes a schema Java would reject. */
floe_status floe_avro_schema_check_defaults(const floe_avro_schema *s) FLOE_WARN_UNUSED;

const char *floe_avro_type_name(floe_avro_type t);
/* For ["null", X] (either order): X; else NULL. */
const floe_avro_schema *floe_avro_optional_inner(const floe_avro_schema *s);
/* Index of a record field by name, or -1. */
int floe_avro_field_index(const floe_avro_schema *record, const char *name);
/* Index of a record field by Iceberg field id, or -1. */
int floe_avro_field_index_by_id(const floe_avro_schema *record, int64_t id);

/* ---- values -------------------------------------------------------------- */

/* One value, shaped by the schema it was decoded with (the reader schema).
 *  - null: nothing; boolean/int/long/enum (symbol index): u.l;
 *    float/double: u.d;
 *  - bytes/string/fixed: u.p with len bytes (strings are also NUL-terminated);
 *  - record: u.items[len] in schema field order;
 *  - array: u.items[len];
 *  - map: u.items[2*len] as key (string), value, key, value ...;
 *  - a union value is the selected branch's value with `branch` set to the
 *    branch index in the union; elsewhere branch is -1.  When encoding, a
 *    branch of -1 picks the first branch whose type fits the value. */
typedef struct floe_avro_value {
    floe_avro_type type;
    int32_t branch;
    uint32_t len;
    union {
        int64_t l;
        double d;
        const uint8_t *p;
        struct floe_avro_value *items;
    } u;
} floe_avro_value;

/* How values decoded with one writer schema become values of a reader
 * schema.  Built once per (writer, reader) pair; immutable afterwards and
 * safe to share between threads.  Both schemas must outlive it. */
typedef struct floe_avro_resolver floe_avro_resolver;

floe_status floe_avro_resolver_new(const floe_avro_schema *writer, const floe_avro_schema *reader,
                                   floe_avro_resolver **out) FLOE_WARN_UNUSED;
void floe_avro_resolver_free(floe_avro_resolver *r);

/* Decode one datum from its binary encoding.  `reader` may be NULL (decode
 * as the writer schema).  *consumed, if given, receives the bytes used. */
floe_status floe_avro_decode_datum(const floe_avro_schema *writer, const floe_avro_schema *reader,
                                   const uint8_t *data, size_t len, floe_arena *arena,
                                   floe_avro_value *out, size_t *consumed) FLOE_WARN_UNUSED;
/* The same with a prebuilt resolver (hot path). */
floe_status floe_avro_decode_resolved(const floe_avro_resolver *r, const uint8_t *data, size_t len,
                                      floe_arena *arena, floe_avro_value *out,
                                      size_t *consumed) FLOE_WARN_UNUSED;

/* Append the binary encoding of `v` (shaped by `schema`) to `out`. */
floe_status floe_avro_encode_datum(const floe_avro_schema *schema, const floe_avro_value *v,
                                   floe_buf *out) FLOE_WARN_UNUSED;

/* Render `v` as one line of JSON (see datum.c for the conventions: unions
 * as the bare value, bytes as strings of code points 0-255, logical types
 * as readable text). */
floe_status floe_avro_value_to_json(const floe_avro_schema *schema, const floe_avro_value *v,
                                    floe_buf *out) FLOE_WARN_UNUSED;

/* Convenience constructors for building values to encode. */
static inline floe_avro_value floe_avro_null(void) {
    floe_avro_value v = {FLOE_AVRO_NULL, -1, 0, {0}};
    return v;
}
static inline floe_avro_value floe_avro_long(floe_avro_type t, int64_t x) {
    floe_avro_value v = {t, -1, 0, {0}};
    v.u.l = x;
    return v;
}
static inline floe_avro_value floe_avro_double(floe_avro_type t, double x) {
    floe_avro_value v = {t, -1, 0, {0}};
    v.u.d = x;
    return v;
}
static inline floe_avro_value floe_avro_bytes(floe_avro_type t, const void *p, size_t n) {
    floe_avro_value v = {t, -1, (uint32_t)n, {0}};
    v.u.p = (const uint8_t *)p;
    return v;
}
static inline floe_avro_value floe_avro_items(floe_avro_type t, floe_avro_value *items, size_t n) {
    floe_avro_value v = {t, -1, (uint32_t)n, {0}};
    v.u.items = items;
    return v;
}

/* ---- object container files --------------------------------------------- */

typedef enum floe_avro_codec {
    FLOE_AVRO_CODEC_NULL = 0,
    FLOE_AVRO_CODEC_DEFLATE,
    FLOE_AVRO_CODEC_SNAPPY,
    FLOE_AVRO_CODEC_ZSTD
} floe_avro_codec;

const char *floe_avro_codec_name(floe_avro_codec c); /* "null", "deflate", ... */
floe_status floe_avro_codec_parse(const char *name, floe_avro_codec *out) FLOE_WARN_UNUSED;

typedef struct floe_avro_meta {
    char *key;
    uint8_t *value; /* NUL-terminated for convenience */
    size_t len;
} floe_avro_meta;

typedef struct floe_avro_reader floe_avro_reader;

/* Read the header of the container file `in` (not owned; must outlive the
 * reader).  `reader_schema` (may be NULL) is the expected schema: records are
 * resolved into it.  The reader schema must outlive the reader. */
floe_status floe_avro_reader_open(floe_input *in, const floe_avro_schema *reader_schema,
                                  floe_avro_reader **out) FLOE_WARN_UNUSED;
void floe_avro_reader_close(floe_avro_reader *r);

const floe_avro_schema *floe_avro_reader_writer_schema(const floe_avro_reader *r);
/* The schema values come out in: the reader schema, else the writer's. */
const floe_avro_schema *floe_avro_reader_schema(const floe_avro_reader *r);
floe_avro_codec floe_avro_reader_codec(const floe_avro_reader *r);
size_t floe_avro_reader_meta_count(const floe_avro_reader *r);
const floe_avro_meta *floe_avro_reader_meta_at(const floe_avro_reader *r, size_t i);
/* The value of metadata key `key` (NUL-terminated; len in *len), or NULL. */
const uint8_t *floe_avro_reader_meta(const floe_avro_reader *r, const char *key, size_t *len);

/* Next record into `out` (allocated in `arena`); *has_row = 0 at the end. */
floe_status floe_avro_reader_next(floe_avro_reader *r, floe_arena *arena,
                                  floe_avro_value *out, int *has_row) FLOE_WARN_UNUSED;
/* Blocks and records seen so far (the totals once next() reported the end). */
uint64_t floe_avro_reader_blocks(const floe_avro_reader *r);
uint64_t floe_avro_reader_records(const floe_avro_reader *r);

typedef struct floe_avro_writer floe_avro_writer;

typedef struct floe_avro_writer_options {
    floe_avro_codec codec;  /* default null */
    int level;              /* codec level; 0 = default */
    size_t block_size;      /* flush a block at this many uncompressed bytes; 0 = 64 KiB */
} floe_avro_writer_options;

/* Start a container file on `out` (not owned).  `meta` holds extra header
 * keys (avro.schema and avro.codec are written by the writer and must not
 * be given).  The schema must outlive the writer. */
floe_status floe_avro_writer_open(floe_output *out, const floe_avro_schema *schema,
                                  const floe_avro_meta *meta, size_t n_meta,
                                  const floe_avro_writer_options *opts,
                                  floe_avro_writer **w) FLOE_WARN_UNUSED;
floe_status floe_avro_writer_append(floe_avro_writer *w, const floe_avro_value *v) FLOE_WARN_UNUSED;
/* Append a datum already in binary form (from floe_avro_encode_datum). */
floe_status floe_avro_writer_append_encoded(floe_avro_writer *w, const uint8_t *data,
                                            size_t len) FLOE_WARN_UNUSED;
/* Flush the last block and free the writer (also on error).  The caller
 * then closes (or aborts) the floe_output. */
floe_status floe_avro_writer_finish(floe_avro_writer *w) FLOE_WARN_UNUSED;
void floe_avro_writer_abort(floe_avro_writer *w);
uint64_t floe_avro_writer_records(const floe_avro_writer *w);

#endif
