/*
 * pg_types.c — type OIDs and value encodings (see pg_types.h).
 *
 * Text forms follow PostgreSQL 15 with DateStyle ISO, IntervalStyle
 * postgres, the session's TimeZone and extra_float_digits 1 (the default
 * since 12): booleans t/f, floats in their shortest exact form ("1", "0.1",
 * "1e+20"), timestamps without trailing fraction zeros, timestamptz in the
 * session zone with its offset ("+00", "+02", "-03:30"), arrays as {a,b},
 * bytea as \x hex.  Binary forms: big-endian integers and IEEE floats,
 * dates as days and timestamps as microseconds since 2000-01-01.
 */
#include "server/pg_types.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tz.h"
#include "exec/expr/cast_list.h"
#include "floe/interval.h"
#include "server/pgwire.h"

/* 2000-01-01 (PostgreSQL's epoch) minus 1970-01-01. */
#define PG_EPOCH_DAYS 10957
#define PG_EPOCH_MICROS (PG_EPOCH_DAYS * 86400LL * 1000000)

pg_type_info pg_type_of(const floe_type *t) {
    pg_type_info r = {PG_OID_TEXT, -1, -1};
    switch (t->id) {
    case FLOE_TYPE_BOOL: r.oid = PG_OID_BOOL; r.len = 1; break;
    case FLOE_TYPE_INT32: r.oid = PG_OID_INT4; r.len = 4; break;
    case FLOE_TYPE_INT64: r.oid = PG_OID_INT8; r.len = 8; break;
    case FLOE_TYPE_FLOAT32: r.oid = PG_OID_FLOAT4; r.len = 4; break;
    case FLOE_TYPE_FLOAT64: r.oid = PG_OID_FLOAT8; r.len = 8; break;
    case FLOE_TYPE_DECIMAL128:
        r.oid = PG_OID_NUMERIC;
        r.typmod = ((t->precision << 16) | t->scale) + 4;
        break;
    case FLOE_TYPE_DATE32: r.oid = PG_OID_DATE; r.len = 4; break;
    case FLOE_TYPE_TIME64_US: r.oid = PG_OID_TIME; r.len = 8; break;
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_NS: r.oid = PG_OID_TIMESTAMP; r.len = 8; break;
    case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: r.oid = PG_OID_TIMESTAMPTZ; r.len = 8; break;
    case FLOE_TYPE_INTERVAL: r.oid = PG_OID_INTERVAL; r.len = 16; break;
    case FLOE_TYPE_BINARY:
    case FLOE_TYPE_FIXED_BINARY: r.oid = PG_OID_BYTEA; break;
    case FLOE_TYPE_UUID: r.oid = PG_OID_UUID; r.len = 16; break;
    case FLOE_TYPE_VARIANT: r.oid = PG_OID_JSON; break;
    default: break; /* strings, nested values, NULL: text */
    }
    return r;
}

/* Shortest text that reads back exactly, laid out as PostgreSQL's
 * float8out / float4out do: positional for decimal exponents -4 .. 14
 * (float4: -4 .. 5), otherwise "1.5e+20" (at least two exponent digits). */
static floe_status append_pg_real(double v, bool single, floe_buf *out) {
    if (isnan(v)) return floe_buf_append_str(out, "NaN");
    if (isinf(v)) return floe_buf_append_str(out, v < 0 ? "-Infinity" : "Infinity");
    char s[64];
    int prec = 1;
    for (; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*e", prec - 1, v);
        if (single ? strtof(s, NULL) == (float)v : strtod(s, NULL) == v) break;
    }
    if (prec > 17) prec = 17;
    int exp = atoi(strchr(s, 'e') + 1);
    if (exp < -4 || exp >= (single ? 6 : 15)) {
        /* C writes "1.5e+20"; PostgreSQL the same. */
        return floe_buf_append_str(out, s);
    }
    int decimals = prec - 1 - exp;
    snprintf(s, sizeof s, "%.*f", decimals > 0 ? decimals : 0, v);
    return floe_buf_append_str(out, s);
}

/* PostgreSQL's text of a timestamp: microseconds (PostgreSQL has no finer
 * unit), fraction zeros dropped; utc adds "+00" (append_timestamptz does
 * other zones). */
static floe_status append_timestamp(int64_t micros, bool utc, floe_buf *out) {
    FLOE_TRY(floe_format_timestamp(micros, 1000000, false, out));
    return utc ? floe_buf_append_str(out, "+00") : NULL;
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

static int64_t ts_micros(const floe_array *a, int64_t i) {
    int64_t v = floe_array_get_int64(a, i);
    if (a->type->id == FLOE_TYPE_TIMESTAMP_NS || a->type->id == FLOE_TYPE_TIMESTAMP_NS_TZ) v = floor_div(v, 1000);
    return v;
}

static floe_status append_hex(const uint8_t *p, int64_t n, floe_buf *out) {
    static const char hex[] = "0123456789abcdef";
    FLOE_TRY(floe_buf_append_str(out, "\\x"));
    FLOE_TRY(floe_buf_reserve(out, (size_t)n * 2));
    for (int64_t k = 0; k < n; k++) {
        out->data[out->len++] = (uint8_t)hex[p[k] >> 4];
        out->data[out->len++] = (uint8_t)hex[p[k] & 15];
    }
    out->data[out->len] = 0;
    return NULL;
}

/* A timestamptz in the session's zone, as PostgreSQL prints it: the wall
 * time there and the offset, "+01", "+05:30", "-00:53:28". */
static floe_status append_timestamptz(int64_t micros, const floe_tz *tz, floe_buf *out) {
    if (!tz || floe_tz_is_utc(tz)) return append_timestamp(micros, true, out);
    int64_t off = floe_tz_offset(tz, floor_div(micros, 1000000));
    FLOE_TRY(append_timestamp(micros + off * 1000000, false, out));
    int64_t a = off < 0 ? -off : off;
    FLOE_TRY(floe_buf_printf(out, "%c%02d", off < 0 ? '-' : '+', (int)(a / 3600)));
    if (a % 3600) FLOE_TRY(floe_buf_printf(out, ":%02d", (int)(a / 60 % 60)));
    if (a % 60) FLOE_TRY(floe_buf_printf(out, ":%02d", (int)(a % 60)));
    return NULL;
}

floe_status pg_encode_text(const floe_array *a, int64_t i, const floe_tz *tz, floe_buf *out) {
    switch (a->type->id) {
    case FLOE_TYPE_BOOL: return floe_buf_append_str(out, floe_array_get_bool(a, i) ? "t" : "f");
    case FLOE_TYPE_INT32: return floe_buf_printf(out, "%" PRId32, floe_array_get_int32(a, i));
    case FLOE_TYPE_INT64: return floe_buf_printf(out, "%" PRId64, floe_array_get_int64(a, i));
    case FLOE_TYPE_FLOAT32: return append_pg_real(floe_array_get_float(a, i), true, out);
    case FLOE_TYPE_FLOAT64: return append_pg_real(floe_array_get_double(a, i), false, out);
    case FLOE_TYPE_DATE32: return floe_format_date32(floe_array_get_int32(a, i), out);
    case FLOE_TYPE_TIME64_US: {
        int64_t v = floe_array_get_int64(a, i) % (86400LL * 1000000);
        return floe_format_time_us(v < 0 ? v + 86400LL * 1000000 : v, out);
    }
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_NS: return append_timestamp(ts_micros(a, i), false, out);
    case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: return append_timestamptz(ts_micros(a, i), tz, out);
    case FLOE_TYPE_STRING: {
        floe_strview v = floe_array_get_str(a, i);
        return floe_buf_append(out, v.data, (size_t)v.len);
    }
    case FLOE_TYPE_BINARY: {
        floe_strview v = floe_array_get_str(a, i);
        return append_hex((const uint8_t *)v.data, v.len, out);
    }
    case FLOE_TYPE_FIXED_BINARY: return append_hex(floe_array_get_fixed(a, i), a->type->byte_width, out);
    case FLOE_TYPE_LIST: { /* PostgreSQL's array text: {1,2,NULL}, {} */
        floe_array *one = NULL, *text = NULL;
        floe_status st = floe_array_slice(a, i, 1, &one);
        if (!st) st = floe_cast_list_to_text(one, 1, &text);
        if (!st) {
            floe_strview v = floe_array_get_str(text, 0);
            st = floe_buf_append(out, v.data, (size_t)v.len);
        }
        floe_array_release(text);
        floe_array_release(one);
        return st;
    }
    default: return floe_format_value(a, i, out); /* decimal, uuid, interval, nested, variant */
    }
}

bool pg_binary_supported(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_BOOL: case FLOE_TYPE_INT32: case FLOE_TYPE_INT64: case FLOE_TYPE_FLOAT32:
    case FLOE_TYPE_FLOAT64: case FLOE_TYPE_DATE32: case FLOE_TYPE_TIME64_US: case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_US_TZ: case FLOE_TYPE_TIMESTAMP_NS_TZ:
    case FLOE_TYPE_STRING: case FLOE_TYPE_BINARY: case FLOE_TYPE_FIXED_BINARY: case FLOE_TYPE_UUID:
    case FLOE_TYPE_INTERVAL:
        return true;
    default: return false;
    }
}

static floe_status put_be(floe_buf *out, uint64_t v, int bytes) {
    uint8_t b[8];
    for (int k = 0; k < bytes; k++) b[k] = (uint8_t)(v >> (8 * (bytes - 1 - k)));
    return floe_buf_append(out, b, (size_t)bytes);
}

floe_status pg_encode_binary(const floe_array *a, int64_t i, floe_buf *out) {
    switch (a->type->id) {
    case FLOE_TYPE_BOOL: return floe_buf_append_byte(out, floe_array_get_bool(a, i) ? 1 : 0);
    case FLOE_TYPE_INT32: return put_be(out, (uint32_t)floe_array_get_int32(a, i), 4);
    case FLOE_TYPE_INT64:
    case FLOE_TYPE_TIME64_US: return put_be(out, (uint64_t)floe_array_get_int64(a, i), 8);
    case FLOE_TYPE_FLOAT32: {
        float f = floe_array_get_float(a, i);
        uint32_t u;
        memcpy(&u, &f, 4);
        return put_be(out, u, 4);
    }
    case FLOE_TYPE_FLOAT64: {
        double d = floe_array_get_double(a, i);
        uint64_t u;
        memcpy(&u, &d, 8);
        return put_be(out, u, 8);
    }
    case FLOE_TYPE_DATE32: return put_be(out, (uint32_t)(floe_array_get_int32(a, i) - PG_EPOCH_DAYS), 4);
    case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS_TZ:
        return put_be(out, (uint64_t)(ts_micros(a, i) - PG_EPOCH_MICROS), 8);
    case FLOE_TYPE_STRING: case FLOE_TYPE_BINARY: {
        floe_strview v = floe_array_get_str(a, i);
        return floe_buf_append(out, v.data, (size_t)v.len);
    }
    case FLOE_TYPE_FIXED_BINARY: case FLOE_TYPE_UUID:
        return floe_buf_append(out, floe_array_get_fixed(a, i), (size_t)a->type->byte_width);
    case FLOE_TYPE_INTERVAL: {
        /* PostgreSQL: int64 time, int32 day, int32 month. */
        floe_interval v;
        memcpy(&v, floe_array_get_fixed(a, i), sizeof v);
        FLOE_TRY(put_be(out, (uint64_t)v.micros, 8));
        FLOE_TRY(put_be(out, (uint32_t)v.days, 4));
        return put_be(out, (uint32_t)v.months, 4);
    }
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "binary output of type %s is not supported (ask for text)",
                          floe_type_id_name(a->type->id));
    }
}

static int64_t rd_be(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int k = 0; k < n; k++) v = v << 8 | p[k];
    if (n < 8 && (p[0] & 0x80)) v |= ~0ULL << (8 * n); /* sign-extend */
    return (int64_t)v;
}

floe_status pg_param_binary_to_text(int32_t oid, const uint8_t *p, int32_t len, floe_buf *out) {
    switch (oid) {
    case PG_OID_INT2: case PG_OID_INT4: case PG_OID_INT8: {
        int want = oid == PG_OID_INT2 ? 2 : oid == PG_OID_INT4 ? 4 : 8;
        if (len != want) break;
        return floe_buf_printf(out, "%" PRId64, rd_be(p, want));
    }
    case PG_OID_FLOAT4: case PG_OID_FLOAT8: {
        if (len != (oid == PG_OID_FLOAT4 ? 4 : 8)) break;
        double d;
        if (len == 4) {
            uint32_t u = (uint32_t)rd_be(p, 4);
            float f;
            memcpy(&f, &u, 4);
            d = f;
        } else {
            uint64_t u = (uint64_t)rd_be(p, 8);
            memcpy(&d, &u, 8);
        }
        if (isnan(d)) return floe_buf_append_str(out, "NaN");
        if (isinf(d)) return floe_buf_append_str(out, d < 0 ? "-Infinity" : "Infinity");
        return floe_buf_printf(out, "%.17g", d);
    }
    case PG_OID_BOOL:
        if (len != 1) break;
        return floe_buf_append_str(out, p[0] ? "true" : "false");
    case PG_OID_TEXT: case PG_OID_VARCHAR: case PG_OID_BPCHAR: case PG_OID_UNKNOWN: case PG_OID_JSON: case 0:
        return floe_buf_append(out, p, (size_t)len);
    case PG_OID_BYTEA: return append_hex(p, len, out);
    default:
        return floe_error(FLOE_ERR_UNSUPPORTED, "binary parameters of type OID %d are not supported (send text)",
                          (int)oid);
    }
    return floe_error(FLOE_ERR_CORRUPT, "binary parameter of type OID %d has %d bytes", (int)oid, (int)len);
}

const char *pg_oid_sql_name(int32_t oid) {
    switch (oid) {
    case PG_OID_BOOL: return "boolean";
    case PG_OID_BYTEA: return "bytea";
    case PG_OID_INT8: return "bigint";
    case PG_OID_INT2: return "smallint";
    case PG_OID_INT4: return "integer";
    case PG_OID_TEXT: case PG_OID_VARCHAR: case PG_OID_BPCHAR: case PG_OID_JSON: return "text";
    case PG_OID_FLOAT4: return "real";
    case PG_OID_FLOAT8: return "double precision";
    case PG_OID_NUMERIC: return "numeric";
    case PG_OID_DATE: return "date";
    case PG_OID_TIME: return "time";
    case PG_OID_TIMESTAMP: return "timestamp";
    case PG_OID_TIMESTAMPTZ: return "timestamptz";
    case PG_OID_INTERVAL: return "interval";
    case PG_OID_UUID: return "uuid";
    default: return NULL;
    }
}
