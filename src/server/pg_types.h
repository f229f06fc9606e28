/*
 * pg_types.h — floe's column types as PostgreSQL sees them: type OIDs and
 * sizes for RowDescription, values in PostgreSQL's text output form and in
 * binary form for DataRow, and parameter values sent in binary turned
 * into SQL literal text.
 */
#ifndef FLOE_SERVER_PG_TYPES_H
#define FLOE_SERVER_PG_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/status.h"

enum {
    PG_OID_BOOL = 16, PG_OID_BYTEA = 17, PG_OID_INT8 = 20, PG_OID_INT2 = 21, PG_OID_INT4 = 23,
    PG_OID_TEXT = 25, PG_OID_JSON = 114, PG_OID_FLOAT4 = 700, PG_OID_FLOAT8 = 701, PG_OID_UNKNOWN = 705,
    PG_OID_BPCHAR = 1042, PG_OID_VARCHAR = 1043, PG_OID_DATE = 1082, PG_OID_TIME = 1083,
    PG_OID_TIMESTAMP = 1114, PG_OID_TIMESTAMPTZ = 1184, PG_OID_INTERVAL = 1186, PG_OID_NUMERIC = 1700,
    PG_OID_UUID = 2950
};

typedef struct pg_type_info {
    int32_t oid;
    int16_t len;    /* typlen: bytes, -1 variable */
    int32_t typmod; /* -1, or numeric's (precision << 16 | scale) + 4 */
} pg_type_info;

/* The PostgreSQL type a floe column is sent as (nested types and
 * anything unusual as text, variants as json). */
pg_type_info pg_type_of(const floe_type *t);

/* Append value i of `a` (not null) in PostgreSQL's text output form;
 * timestamptz values in zone `tz` (the session's SET TimeZone; NULL: UTC). */
struct floe_tz;
floe_status pg_encode_text(const floe_array *a, int64_t i, const struct floe_tz *tz, floe_buf *out) FLOE_WARN_UNUSED;
/* True when values of `t` can be sent in binary. */
bool pg_binary_supported(const floe_type *t);
/* Append value i (not null) in PostgreSQL's binary form. */
floe_status pg_encode_binary(const floe_array *a, int64_t i, floe_buf *out) FLOE_WARN_UNUSED;

/* A parameter sent in binary as type `oid` → its text form (appended). */
floe_status pg_param_binary_to_text(int32_t oid, const uint8_t *p, int32_t len, floe_buf *out) FLOE_WARN_UNUSED;
/* The SQL type name a parameter of `oid` is cast to, or NULL (unknown,
 * 0: the literal is left untyped and takes its type from the context). */
const char *pg_oid_sql_name(int32_t oid);

#endif
