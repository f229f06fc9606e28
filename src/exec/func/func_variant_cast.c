/*
 * func_variant_cast.c — a variant value as a value of a SQL type (what
 * variant_get's type argument and CAST(variant AS type) ask for), and the
 * type names variant_get accepts.
 *
 * The rules, per target (anything else "does not fit": variant_get and
 * CAST fail naming the value, try_variant_get gives NULL):
 *   boolean       booleans; integers (0 false, else true); the strings
 *                 true/false, t/f, yes/no, on/off, 1/0
 *   int, bigint   integers in range; decimals rounded half away from zero,
 *                 floats truncated toward zero (as floe's CAST does), if in
 *                 range; booleans as 1/0; integer text
 *   real, double  any number (the nearest value); numeric text
 *   decimal(p,s)  integers and decimals rescaled (rounded half away from
 *                 zero), floats rounded to s digits, numeric text — if the
 *                 result has at most p digits
 *   text          a string's contents; anything else its JSON text, a
 *                 JSON string's quotes dropped (dates, times, timestamps,
 *                 uuids, base64 binary)
 *   date          dates; timestamps' day (UTC for timestamptz); ISO text
 *   time          times; ISO text
 *   timestamp[tz] timestamps of either zone and unit (the same instant
 *                 number, as floe's CAST between them), dates at midnight,
 *                 ISO text
 *   uuid          uuids; uuid text
 *   bytea         binary
 * A variant null is SQL NULL for every target.  Text goes through floe's
 * own CAST from text (exec/expr/cast.c), one value at a time: strings
 * inside variants cast to dates or decimals are the rare case.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/str.h"
#include "exec/expr/cast.h"
#include "exec/func/func_variant.h"
#include "floe/memory.h"

typedef __int128 i128;

#define DAY_US INT64_C(86400000000)

/* ------------------------------------------------------------ type names */

static const struct {
    const char *name;
    floe_type_id id;
} type_names[] = {
    {"boolean", FLOE_TYPE_BOOL},       {"bool", FLOE_TYPE_BOOL},
    {"tinyint", FLOE_TYPE_INT32},      {"smallint", FLOE_TYPE_INT32},    {"int2", FLOE_TYPE_INT32},
    {"int", FLOE_TYPE_INT32},          {"integer", FLOE_TYPE_INT32},     {"int4", FLOE_TYPE_INT32},
    {"int32", FLOE_TYPE_INT32},        {"bigint", FLOE_TYPE_INT64},      {"long", FLOE_TYPE_INT64},
    {"int8", FLOE_TYPE_INT64},         {"int64", FLOE_TYPE_INT64},       {"float", FLOE_TYPE_FLOAT32},
    {"real", FLOE_TYPE_FLOAT32},       {"float4", FLOE_TYPE_FLOAT32},    {"float32", FLOE_TYPE_FLOAT32},
    {"double", FLOE_TYPE_FLOAT64},     {"double precision", FLOE_TYPE_FLOAT64},
    {"float8", FLOE_TYPE_FLOAT64},     {"float64", FLOE_TYPE_FLOAT64},   {"string", FLOE_TYPE_STRING},
    {"text", FLOE_TYPE_STRING},        {"varchar", FLOE_TYPE_STRING},    {"character varying", FLOE_TYPE_STRING},
    {"date", FLOE_TYPE_DATE32},        {"date32", FLOE_TYPE_DATE32},     {"time", FLOE_TYPE_TIME64_US},
    {"time64_us", FLOE_TYPE_TIME64_US}, {"timestamp", FLOE_TYPE_TIMESTAMP_US},
    {"timestamp_ntz", FLOE_TYPE_TIMESTAMP_US}, {"timestamp without time zone", FLOE_TYPE_TIMESTAMP_US},
    {"timestamp_us", FLOE_TYPE_TIMESTAMP_US}, {"timestamptz", FLOE_TYPE_TIMESTAMP_US_TZ},
    {"timestamp_ltz", FLOE_TYPE_TIMESTAMP_US_TZ}, {"timestamp with time zone", FLOE_TYPE_TIMESTAMP_US_TZ},
    {"timestamp_us_tz", FLOE_TYPE_TIMESTAMP_US_TZ}, {"timestamp_ns", FLOE_TYPE_TIMESTAMP_NS},
    {"timestamptz_ns", FLOE_TYPE_TIMESTAMP_NS_TZ}, {"timestamp_ns_tz", FLOE_TYPE_TIMESTAMP_NS_TZ},
    {"uuid", FLOE_TYPE_UUID},          {"binary", FLOE_TYPE_BINARY},     {"bytea", FLOE_TYPE_BINARY},
    {"varbinary", FLOE_TYPE_BINARY},   {"variant", FLOE_TYPE_VARIANT},
};

floe_status fv_parse_type(const char *s, size_t n, floe_type **out) {
    *out = NULL;
    char t[64];
    size_t k = 0;
    if (n >= sizeof t)
        return floe_error(FLOE_ERR_TYPE, "unknown type '%.*s...' for a variant", 40, s);
    /* Lowercase, blanks collapsed, none around parentheses and commas. */
    for (size_t i = 0; i < n && k + 1 < sizeof t; i++) {
        char c = floe_ascii_lower(s[i]);
        if (floe_ascii_isspace(c)) {
            if (k && t[k - 1] != ' ' && t[k - 1] != '(' && t[k - 1] != ',') t[k++] = ' ';
            continue;
        }
        if ((c == '(' || c == ',' || c == ')') && k && t[k - 1] == ' ') k--;
        t[k++] = c;
    }
    while (k && t[k - 1] == ' ') k--;
    t[k] = 0;
    for (size_t i = 0; k && i < sizeof type_names / sizeof type_names[0]; i++)
        if (!strcmp(t, type_names[i].name)) {
            *out = floe_type_primitive(type_names[i].id);
            return NULL;
        }
    /* varchar(n), decimal, decimal(p), decimal(p,s), numeric(...) */
    int p = 0, sc = 0, used = 0;
    if (k && (sscanf(t, "varchar(%d)%n", &p, &used) == 1 || sscanf(t, "character varying(%d)%n", &p, &used) == 1) &&
        (size_t)used == k) {
        *out = floe_type_primitive(FLOE_TYPE_STRING);
        return NULL;
    }
    const char *num = k >= 7 && (!strncmp(t, "decimal", 7) || !strncmp(t, "numeric", 7)) ? t + 7 : NULL;
    if (num) {
        size_t rest = k - 7;
        if (rest == 0) return floe_type_decimal(10, 0, out); /* Spark's default */
        if ((sscanf(num, "(%d,%d)%n", &p, &sc, &used) == 2 || (sc = 0, sscanf(num, "(%d)%n", &p, &used) == 1)) &&
            (size_t)used == rest)
            return floe_type_decimal(p, sc, out);
    }
    return floe_error(FLOE_ERR_TYPE,
                      "unknown type '%.*s' for a variant (expected boolean, int, bigint, real, double, decimal(p,s), "
                      "string, date, time, timestamp, timestamptz, uuid, binary or variant)",
                      (int)(n > 64 ? 64 : n), s);
}

/* -------------------------------------------------------------- numbers */

static i128 pow10_128(int n) {
    i128 p = 1;
    while (n-- > 0) p *= 10;
    return p;
}

/* v / 10^k rounded half away from zero. */
static i128 div_round(i128 v, int k) {
    if (k <= 0) return v;
    i128 d = pow10_128(k), q = v / d, r = v % d;
    if (r < 0) r = -r;
    if (2 * r >= d) q += v < 0 ? -1 : 1;
    return q;
}

static i128 dec_value(floe_decimal128 d) { return (i128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo); }

static floe_decimal128 dec_make(i128 v) {
    floe_decimal128 d = {(uint64_t)v, (int64_t)(v >> 64)};
    return d;
}

static bool is_int_kind(floe_variant_kind k) {
    return k == FLOE_VARIANT_INT8 || k == FLOE_VARIANT_INT16 || k == FLOE_VARIANT_INT32 || k == FLOE_VARIANT_INT64;
}
static bool is_dec_kind(floe_variant_kind k) {
    return k == FLOE_VARIANT_DECIMAL4 || k == FLOE_VARIANT_DECIMAL8 || k == FLOE_VARIANT_DECIMAL16;
}
static bool is_real_kind(floe_variant_kind k) { return k == FLOE_VARIANT_FLOAT || k == FLOE_VARIANT_DOUBLE; }
static double real_of(const floe_variant *v) { return v->kind == FLOE_VARIANT_FLOAT ? (double)v->u.f : v->u.d; }

/* An exact number: unscaled value and scale (integers scale 0). */
static bool exact_of(const floe_variant *v, i128 *u, int *scale) {
    if (is_int_kind(v->kind)) {
        *u = v->u.i;
        *scale = 0;
        return true;
    }
    if (is_dec_kind(v->kind)) {
        *u = dec_value(v->u.dec.unscaled);
        *scale = v->u.dec.scale;
        return true;
    }
    return false;
}

static bool to_i64(const floe_variant *v, floe_type_id to, int64_t *out) {
    i128 u;
    int scale;
    double lim = to == FLOE_TYPE_INT32 ? 2147483648.0 : 9223372036854775808.0;
    if (exact_of(v, &u, &scale)) {
        u = div_round(u, scale);
    } else if (is_real_kind(v->kind)) {
        double d = real_of(v);
        if (!(d >= -lim && d < lim)) return false;
        u = (i128)(int64_t)d;
    } else if (v->kind == FLOE_VARIANT_TRUE || v->kind == FLOE_VARIANT_FALSE) {
        u = v->kind == FLOE_VARIANT_TRUE;
    } else if (v->kind == FLOE_VARIANT_STRING) {
        int64_t x;
        floe_status st = floe_parse_int64(floe_str_trim(floe_str_make((const char *)v->u.bytes.p, v->u.bytes.len)),
                                          NULL, &x);
        if (st) {
            floe_status_free(st);
            return false;
        }
        u = x;
    } else {
        return false;
    }
    if (to == FLOE_TYPE_INT32 ? (u < INT32_MIN || u > INT32_MAX) : (u < INT64_MIN || u > INT64_MAX)) return false;
    *out = (int64_t)u;
    return true;
}

static bool to_f64(const floe_variant *v, double *out) {
    i128 u;
    int scale;
    if (exact_of(v, &u, &scale)) {
        *out = (double)u / (double)pow10_128(scale);
        return true;
    }
    if (is_real_kind(v->kind)) {
        *out = real_of(v);
        return true;
    }
    if (v->kind == FLOE_VARIANT_STRING) {
        floe_status st = floe_parse_double(floe_str_trim(floe_str_make((const char *)v->u.bytes.p, v->u.bytes.len)),
                                           NULL, out);
        if (!st) return true;
        floe_status_free(st);
    }
    return false;
}

static bool to_decimal(const floe_variant *v, const floe_type *to, i128 *out) {
    i128 u;
    int scale;
    if (exact_of(v, &u, &scale)) {
        if (scale > to->scale) {
            u = div_round(u, scale - to->scale);
        } else {
            i128 m = pow10_128(to->scale - scale), r;
            if (__builtin_mul_overflow(u, m, &r)) return false;
            u = r;
        }
    } else if (is_real_kind(v->kind)) {
        double d = real_of(v);
        if (!isfinite(d) || fabs(d) >= 1e38) return false;
        char s[96];
        snprintf(s, sizeof s, "%.*f", (int)to->scale, d);
        u = 0;
        bool neg = s[0] == '-';
        for (const char *p = s + neg; *p; p++)
            if (*p >= '0' && *p <= '9') u = u * 10 + (*p - '0');
        if (neg) u = -u;
    } else {
        return false;
    }
    i128 lim = pow10_128(to->precision);
    if (u >= lim || u <= -lim) return false;
    *out = u;
    return true;
}

/* ----------------------------------------------------------------- text */

floe_status fv_text(const floe_variant_meta *m, const floe_variant *v, floe_buf *out) {
    if (v->kind == FLOE_VARIANT_STRING) return floe_buf_append(out, v->u.bytes.p, v->u.bytes.len);
    size_t start = out->len;
    FLOE_TRY(floe_variant_to_json(m, v, out));
    switch (v->kind) {
    case FLOE_VARIANT_DATE: case FLOE_VARIANT_TIME: case FLOE_VARIANT_TIMESTAMP_TZ: case FLOE_VARIANT_TIMESTAMP_NTZ:
    case FLOE_VARIANT_TIMESTAMP_TZ_NS: case FLOE_VARIANT_TIMESTAMP_NTZ_NS: case FLOE_VARIANT_UUID:
    case FLOE_VARIANT_BINARY:
        /* "..." without escapes: drop the quotes. */
        memmove(out->data + start, out->data + start + 1, out->len - start - 2);
        out->len -= 2;
        out->data[out->len] = 0;
        return NULL;
    default: return NULL;
    }
}

/* A string variant through floe's CAST from text (one value). */
static floe_status cast_text(const floe_variant *v, floe_builder *b, bool *fits) {
    floe_type *to = (floe_type *)floe_builder_type(b);
    *fits = false;
    if (!floe_exec_cast_extra(floe_type_primitive(FLOE_TYPE_STRING), to)) return NULL;
    floe_builder *sb = NULL;
    floe_array *s = NULL, *c = NULL;
    floe_status st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 1, &sb);
    if (!st) st = floe_builder_append_binary(sb, v->u.bytes.p, v->u.bytes.len);
    if (!st) st = floe_builder_finish(sb, &s);
    floe_builder_free(sb);
    if (!st) {
        floe_status cs = floe_exec_cast_extra_array(s, to, 1, &c);
        if (cs) floe_status_free(cs); /* unparseable text: does not fit */
        else if (!floe_array_is_null(c, 0)) {
            st = floe_builder_append_array(b, c, 0, 1);
            *fits = !st;
        }
    }
    floe_array_release(s);
    floe_array_release(c);
    return st;
}

static int hexval(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = (uint8_t)floe_ascii_lower((char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool uuid_text(const uint8_t *p, uint32_t n, uint8_t out[16]) {
    if (n != 36) return false;
    int k = 0;
    for (uint32_t i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (p[i] != '-') return false;
            continue;
        }
        int h = hexval(p[i]), l = i + 1 < 36 ? hexval(p[i + 1]) : -1;
        if (h < 0 || l < 0) return false;
        out[k++] = (uint8_t)(h << 4 | l);
        i++;
    }
    return k == 16;
}

/* ------------------------------------------------------------- dispatch */

static bool is_ts_kind(floe_variant_kind k, bool *ns) {
    *ns = k == FLOE_VARIANT_TIMESTAMP_TZ_NS || k == FLOE_VARIANT_TIMESTAMP_NTZ_NS;
    return *ns || k == FLOE_VARIANT_TIMESTAMP_TZ || k == FLOE_VARIANT_TIMESTAMP_NTZ;
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

floe_status fv_convert(const floe_variant_meta *m, const floe_variant *v, floe_builder *b, floe_buf *tmp,
                       bool *fits) {
    const floe_type *to = floe_builder_type(b);
    *fits = true;
    if (v->kind == FLOE_VARIANT_NULL) return floe_builder_append_null(b);
    bool ns;
    switch (to->id) {
    case FLOE_TYPE_BOOL:
        if (v->kind == FLOE_VARIANT_TRUE || v->kind == FLOE_VARIANT_FALSE)
            return floe_builder_append_bool(b, v->kind == FLOE_VARIANT_TRUE);
        if (is_int_kind(v->kind)) return floe_builder_append_bool(b, v->u.i != 0);
        if (v->kind == FLOE_VARIANT_STRING) {
            bool x;
            floe_status st = floe_parse_bool(floe_str_trim(floe_str_make((const char *)v->u.bytes.p, v->u.bytes.len)),
                                             NULL, &x);
            if (!st) return floe_builder_append_bool(b, x);
            floe_status_free(st);
        }
        break;
    case FLOE_TYPE_INT32: case FLOE_TYPE_INT64: {
        int64_t x;
        if (!to_i64(v, to->id, &x)) break;
        return to->id == FLOE_TYPE_INT32 ? floe_builder_append_int32(b, (int32_t)x) : floe_builder_append_int64(b, x);
    }
    case FLOE_TYPE_FLOAT32: case FLOE_TYPE_FLOAT64: {
        double d;
        if (!to_f64(v, &d)) break;
        return to->id == FLOE_TYPE_FLOAT32 ? floe_builder_append_float(b, (float)d) : floe_builder_append_double(b, d);
    }
    case FLOE_TYPE_DECIMAL128: {
        i128 u;
        if (to_decimal(v, to, &u)) return floe_builder_append_decimal(b, dec_make(u));
        if (v->kind == FLOE_VARIANT_STRING) return cast_text(v, b, fits);
        break;
    }
    case FLOE_TYPE_STRING:
        floe_buf_clear(tmp);
        FLOE_TRY(fv_text(m, v, tmp));
        return floe_builder_append_binary(b, tmp->data, (int64_t)tmp->len);
    case FLOE_TYPE_DATE32:
        if (v->kind == FLOE_VARIANT_DATE) return floe_builder_append_int32(b, (int32_t)v->u.i);
        if (is_ts_kind(v->kind, &ns)) {
            int64_t d = floor_div(v->u.i, ns ? DAY_US * 1000 : DAY_US);
            if (d < INT32_MIN || d > INT32_MAX) break;
            return floe_builder_append_int32(b, (int32_t)d);
        }
        if (v->kind == FLOE_VARIANT_STRING) return cast_text(v, b, fits);
        break;
    case FLOE_TYPE_TIME64_US:
        if (v->kind == FLOE_VARIANT_TIME) return floe_builder_append_int64(b, v->u.i);
        if (v->kind == FLOE_VARIANT_STRING) return cast_text(v, b, fits);
        break;
    case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ: case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ: {
        bool want_ns = to->id == FLOE_TYPE_TIMESTAMP_NS || to->id == FLOE_TYPE_TIMESTAMP_NS_TZ;
        int64_t x;
        if (is_ts_kind(v->kind, &ns)) {
            if (ns == want_ns) x = v->u.i;
            else if (ns) x = floor_div(v->u.i, 1000);
            else if (__builtin_mul_overflow(v->u.i, (int64_t)1000, &x)) break;
        } else if (v->kind == FLOE_VARIANT_DATE) {
            if (__builtin_mul_overflow(v->u.i, want_ns ? DAY_US * 1000 : DAY_US, &x)) break;
        } else if (v->kind == FLOE_VARIANT_STRING) {
            return cast_text(v, b, fits);
        } else {
            break;
        }
        return floe_builder_append_int64(b, x);
    }
    case FLOE_TYPE_UUID: {
        uint8_t u[16];
        if (v->kind == FLOE_VARIANT_UUID) return floe_builder_append_fixed(b, v->u.bytes.p);
        if (v->kind == FLOE_VARIANT_STRING && uuid_text(v->u.bytes.p, v->u.bytes.len, u))
            return floe_builder_append_fixed(b, u);
        break;
    }
    case FLOE_TYPE_BINARY:
        if (v->kind == FLOE_VARIANT_BINARY) return floe_builder_append_binary(b, v->u.bytes.p, v->u.bytes.len);
        break;
    default:
        return floe_error(FLOE_ERR_INTERNAL, "variant conversion to %s", floe_type_id_name(to->id));
    }
    *fits = false;
    return NULL;
}
