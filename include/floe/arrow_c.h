/*
 * arrow_c.h — the Arrow C Data Interface: handing floe arrays and batches to
 * other libraries (DuckDB, pyarrow, ...) and taking theirs, without copying.
 *
 * The ArrowSchema / ArrowArray / ArrowArrayStream structs are the ABI fixed
 * by the Arrow specification, in arrow_abi.h.
 *
 * Mapping of floe types to format strings:
 *   NULL "n", BOOL "b", INT32 "i", INT64 "l", FLOAT32 "f", FLOAT64 "g",
 *   DECIMAL128 "d:P,S", DATE32 "tdD", TIME64_US "ttu",
 *   TIMESTAMP_US "tsu:", TIMESTAMP_US_TZ "tsu:UTC",
 *   TIMESTAMP_NS "tsn:", TIMESTAMP_NS_TZ "tsn:UTC",
 *   STRING "u", BINARY "z", FIXED_BINARY "w:L",
 *   UUID "w:16" with the canonical extension metadata
 *        ARROW:extension:name = "arrow.uuid", ARROW:extension:metadata = ""
 *        (so pyarrow >= 18 and others see a real uuid; others see 16 bytes),
 *   STRUCT "+s", LIST "+l", MAP "+m" (ARROW_FLAG_MAP_KEYS_SORTED from
 *   floe_type.keys_sorted).
 * Field nullability travels as ARROW_FLAG_NULLABLE.  Iceberg field ids
 * travel in each child schema's metadata as "PARQUET:field_id" = decimal
 * text, the convention pyarrow uses for Parquet field ids.
 *
 * On import, any timestamp zone string that is non-empty (e.g. "UTC",
 * "+00:00", "America/New_York") maps to the *_TZ type: Arrow stores UTC
 * instants whatever the zone.  Formats floe has no type for (int8, large
 * strings, views, unions, dictionaries, ...) give FLOE_ERR_UNSUPPORTED.
 */
#ifndef FLOE_ARROW_C_H
#define FLOE_ARROW_C_H

#include <stdint.h>

#include "floe/arrow_abi.h"
#include "floe/columnar.h"

#ifdef __cplusplus
extern "C" {
#endif


/* ---------------------------------------------------------------- export
 * The exported structs hold references to the floe objects, so the floe
 * side may be released at once; the consumer calls out->release when done
 * (which frees everything and sets release to NULL).  On error *out is left
 * released (release == NULL). */

/* One field (name, type, nullability, field id) as an ArrowSchema. */
floe_status floe_arrow_export_field(const floe_field *field, struct ArrowSchema *out) FLOE_WARN_UNUSED;
/* A type with an empty name, nullable. */
floe_status floe_arrow_export_type(const floe_type *type, struct ArrowSchema *out) FLOE_WARN_UNUSED;
/* A schema as a "+s" ArrowSchema whose children are its fields. */
floe_status floe_arrow_export_schema(const floe_schema *schema, struct ArrowSchema *out) FLOE_WARN_UNUSED;
floe_status floe_arrow_export_array(const floe_array *array, struct ArrowArray *out) FLOE_WARN_UNUSED;
/* A batch as a non-null struct array plus its schema ("+s"). */
floe_status floe_arrow_export_batch(const floe_batch *batch, struct ArrowArray *out_array,
                                    struct ArrowSchema *out_schema) FLOE_WARN_UNUSED;

/* ---------------------------------------------------------------- import
 * Imports MOVE the structs: floe takes ownership and calls their release
 * callbacks itself (at once for a schema; for an array, when the last floe
 * buffer referencing it is released).  This happens on failure too.  On
 * return in->release is NULL.  Imported arrays are checked with
 * floe_array_validate, so decreasing or negative offsets, offsets past a
 * child's length, null map keys and invalid UTF-8 are errors, not crashes.
 * The interface carries no buffer sizes: floe derives them from length,
 * offset and the last offset, and must trust the producer that its buffers
 * are that large (as every Arrow consumer does). */

/* An ArrowSchema as a field (fills *out; floe_field_clear it later). */
floe_status floe_arrow_import_field(struct ArrowSchema *in, floe_field *out) FLOE_WARN_UNUSED;
/* A "+s" ArrowSchema as a floe schema (STRUCT type). */
floe_status floe_arrow_import_schema(struct ArrowSchema *in, floe_schema **out) FLOE_WARN_UNUSED;
/* An ArrowArray of the given type (from floe_arrow_import_field, say). */
floe_status floe_arrow_import_array(struct ArrowArray *in, floe_type *type, floe_array **out) FLOE_WARN_UNUSED;
/* A struct ArrowArray plus its "+s" ArrowSchema as a batch; the top-level
 * struct must have no nulls. */
floe_status floe_arrow_import_batch(struct ArrowArray *in_array, struct ArrowSchema *in_schema,
                                    floe_batch **out) FLOE_WARN_UNUSED;

/* ------------------------------------------------------------- streams
 * The Arrow C Stream Interface: a pull-based sequence of batches with one
 * schema, for handing a whole query result or scan to another engine. */


/* Where an exported stream pulls its batches from.  next() sets *out to a
 * new batch reference, or to NULL at the end; close() (may be NULL) is
 * called once when the consumer releases the stream. */
typedef struct floe_batch_source {
    floe_status (*next)(void *ctx, floe_batch **out);
    void (*close)(void *ctx);
    void *ctx;
} floe_batch_source;

/* Export a stream of batches of `schema` (retained).  Errors from next()
 * are reported to the consumer as EIO/ENOMEM/EINVAL with the floe message
 * from get_last_error().  Each batch must have a schema compatible with
 * `schema`. */
floe_status floe_arrow_export_stream(floe_schema *schema, floe_batch_source source,
                                     struct ArrowArrayStream *out) FLOE_WARN_UNUSED;

/* Import: read another library's stream as floe batches.  The stream is
 * moved (in->release becomes NULL) and released by floe_arrow_stream_close. */
typedef struct floe_arrow_stream_reader floe_arrow_stream_reader;
floe_status floe_arrow_stream_open(struct ArrowArrayStream *in, floe_arrow_stream_reader **out) FLOE_WARN_UNUSED;
const floe_schema *floe_arrow_stream_schema(const floe_arrow_stream_reader *r);
/* The next batch, or *out = NULL at the end of the stream. */
floe_status floe_arrow_stream_next(floe_arrow_stream_reader *r, floe_batch **out) FLOE_WARN_UNUSED;
void floe_arrow_stream_close(floe_arrow_stream_reader *r);  /* NULL-safe */

#ifdef __cplusplus
}
#endif
#endif
