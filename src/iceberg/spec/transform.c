/*
 * transform.c — Iceberg partition transforms (see floe/iceberg_transform.h):
 * parsing and printing, which source types each accepts and what it
 * produces, applying one to a value, and the human-readable partition
 * value form used in partition paths.
 *
 * Time transforms floor toward negative infinity, so one microsecond before
 * the epoch is year/month/day/hour -1 (Java's TestTimestamps vectors).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"
#include "iceberg/spec/murmur3.h"

#define MICROS_PER_HOUR 3600000000LL
#define MICROS_PER_DAY 86400000000LL

static const char *const kind_names[] = {"identity", "bucket", "truncate", "year", "month",
                                         "day",      "hour",   "void",     "unknown"};

floe_ice_transform floe_ice_transform_make(floe_ice_transform_kind kind, int32_t param) {
    floe_ice_transform t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.param = param;
    snprintf(t.name, sizeof t.name, "%s", kind_names[kind]);
    return t;
}

floe_status floe_ice_transform_parse(const char *text, floe_ice_transform *out) {
    *out = floe_ice_transform_make(FLOE_ICE_TRANSFORM_VOID, 0);
    if (!text || !*text) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "empty transform name");
    size_t n = strlen(text);
    if (n >= FLOE_ICE_TRANSFORM_NAME_MAX)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "transform name '%.40s...' is too long", text);
    const char *br = strchr(text, '[');
    size_t base = br ? (size_t)(br - text) : n;
    for (int k = FLOE_ICE_TRANSFORM_IDENTITY; k <= FLOE_ICE_TRANSFORM_VOID; k++) {
        if (strlen(kind_names[k]) != base || strncasecmp(text, kind_names[k], base) != 0) continue;
        bool wants_param = k == FLOE_ICE_TRANSFORM_BUCKET || k == FLOE_ICE_TRANSFORM_TRUNCATE;
        if (!wants_param) {
            if (br) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "transform '%s' takes no parameter", text);
            *out = floe_ice_transform_make((floe_ice_transform_kind)k, 0);
            return NULL;
        }
        char *end;
        errno = 0;
        long v = br ? strtol(br + 1, &end, 10) : 0;
        if (!br || end == br + 1 || !isdigit((unsigned char)br[1]) || *end != ']' || end[1] || errno || v < 1 ||
            v > INT32_MAX)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid transform '%s': expected %s[<positive int>]", text,
                              kind_names[k]);
        *out = floe_ice_transform_make((floe_ice_transform_kind)k, (int32_t)v);
        return NULL;
    }
    /* Unknown: keep the text so it can be written back unchanged. */
    *out = floe_ice_transform_make(FLOE_ICE_TRANSFORM_UNKNOWN, 0);
    memcpy(out->name, text, n + 1);
    return NULL;
}

const char *floe_ice_transform_format(const floe_ice_transform *t, char *buf, size_t cap) {
    if (t->kind == FLOE_ICE_TRANSFORM_BUCKET || t->kind == FLOE_ICE_TRANSFORM_TRUNCATE)
        snprintf(buf, cap, "%s[%d]", kind_names[t->kind], t->param);
    else if (t->kind == FLOE_ICE_TRANSFORM_UNKNOWN)
        snprintf(buf, cap, "%s", t->name);
    else
        snprintf(buf, cap, "%s", kind_names[t->kind]);
    return buf;
}

bool floe_ice_transform_equals(const floe_ice_transform *a, const floe_ice_transform *b) {
    if (a->kind != b->kind) return false;
    if (a->kind == FLOE_ICE_TRANSFORM_UNKNOWN) return strcmp(a->name, b->name) == 0;
    return a->param == b->param;
}

/* ---- applicability and result types ------------------------------------- */

static bool is_timestamp(floe_ice_type_id id) {
    return id == FLOE_ICE_TIMESTAMP || id == FLOE_ICE_TIMESTAMPTZ || id == FLOE_ICE_TIMESTAMP_NS ||
           id == FLOE_ICE_TIMESTAMPTZ_NS;
}

int floe_ice_transform_result_type_id(const floe_ice_transform *t, floe_ice_type_id s) {
    bool prim = s <= FLOE_ICE_GEOGRAPHY;
    switch (t->kind) {
    case FLOE_ICE_TRANSFORM_IDENTITY:
        return prim && s != FLOE_ICE_VARIANT && s != FLOE_ICE_GEOMETRY && s != FLOE_ICE_GEOGRAPHY ? (int)s : -1;
    case FLOE_ICE_TRANSFORM_BUCKET:
        switch (s) {
        case FLOE_ICE_INT: case FLOE_ICE_LONG: case FLOE_ICE_DECIMAL: case FLOE_ICE_DATE: case FLOE_ICE_TIME:
        case FLOE_ICE_TIMESTAMP: case FLOE_ICE_TIMESTAMPTZ: case FLOE_ICE_TIMESTAMP_NS:
        case FLOE_ICE_TIMESTAMPTZ_NS: case FLOE_ICE_STRING: case FLOE_ICE_UUID: case FLOE_ICE_FIXED:
        case FLOE_ICE_BINARY: return FLOE_ICE_INT;
        default: return -1;
        }
    case FLOE_ICE_TRANSFORM_TRUNCATE:
        return s == FLOE_ICE_INT || s == FLOE_ICE_LONG || s == FLOE_ICE_DECIMAL || s == FLOE_ICE_STRING ||
                       s == FLOE_ICE_BINARY
                   ? (int)s
                   : -1;
    case FLOE_ICE_TRANSFORM_YEAR:
    case FLOE_ICE_TRANSFORM_MONTH: return s == FLOE_ICE_DATE || is_timestamp(s) ? FLOE_ICE_INT : -1;
    case FLOE_ICE_TRANSFORM_DAY: return s == FLOE_ICE_DATE || is_timestamp(s) ? FLOE_ICE_DATE : -1;
    case FLOE_ICE_TRANSFORM_HOUR: return is_timestamp(s) ? FLOE_ICE_INT : -1;
    case FLOE_ICE_TRANSFORM_VOID: return (int)s; /* "source type or int" */
    default: return -1;
    }
}

bool floe_ice_transform_can_apply(const floe_ice_transform *t, const floe_ice_type *src) {
    return floe_ice_transform_result_type_id(t, src->id) >= 0;
}

floe_status floe_ice_transform_result_type(const floe_ice_transform *t, const floe_ice_type *src,
                                           floe_ice_type **out) {
    *out = NULL;
    int r = floe_ice_transform_result_type_id(t, src->id);
    if (r < 0) {
        char tb[80];
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "transform '%s' cannot apply to type '%s'",
                          floe_ice_transform_format(t, tb, sizeof tb), floe_ice_type_id_name(src->id));
    }
    if (r == (int)src->id) return floe_ice_type_copy(src, out);
    return floe_ice_type_new((floe_ice_type_id)r, out);
}

bool floe_ice_transform_preserves_order(const floe_ice_transform *t) {
    switch (t->kind) {
    case FLOE_ICE_TRANSFORM_IDENTITY:
    case FLOE_ICE_TRANSFORM_TRUNCATE:
    case FLOE_ICE_TRANSFORM_YEAR:
    case FLOE_ICE_TRANSFORM_MONTH:
    case FLOE_ICE_TRANSFORM_DAY:
    case FLOE_ICE_TRANSFORM_HOUR: return true;
    default: return false;
    }
}

/* Coarseness rank of the time transforms: hour < day < month < year. */
static int time_rank(floe_ice_transform_kind k) {
    switch (k) {
    case FLOE_ICE_TRANSFORM_HOUR: return 1;
    case FLOE_ICE_TRANSFORM_DAY: return 2;
    case FLOE_ICE_TRANSFORM_MONTH: return 3;
    case FLOE_ICE_TRANSFORM_YEAR: return 4;
    default: return 0;
    }
}

bool floe_ice_transform_satisfies_order_of(const floe_ice_transform *a, const floe_ice_transform *b,
                                           floe_ice_type_id src) {
    if (a->kind == FLOE_ICE_TRANSFORM_UNKNOWN || b->kind == FLOE_ICE_TRANSFORM_UNKNOWN) return false;
    if (floe_ice_transform_equals(a, b)) return true;
    if (!floe_ice_transform_preserves_order(a) || !floe_ice_transform_preserves_order(b)) return false;
    if (a->kind == FLOE_ICE_TRANSFORM_IDENTITY) return true;
    int ra = time_rank(a->kind), rb = time_rank(b->kind);
    if (ra && rb) return ra <= rb;
    if (a->kind == FLOE_ICE_TRANSFORM_TRUNCATE && b->kind == FLOE_ICE_TRANSFORM_TRUNCATE) {
        if (src == FLOE_ICE_STRING || src == FLOE_ICE_BINARY) return a->param >= b->param;
        return b->param % a->param == 0;
    }
    return false;
}

/* ---- kernels ------------------------------------------------------------ */

int32_t floe_ice_days_to_year(int32_t days) {
    int64_t y;
    int m, d;
    floe_ice_civil_from_days(days, &y, &m, &d);
    return (int32_t)(y - 1970);
}

int32_t floe_ice_days_to_month(int32_t days) {
    int64_t y;
    int m, d;
    floe_ice_civil_from_days(days, &y, &m, &d);
    return (int32_t)((y - 1970) * 12 + (m - 1));
}

int32_t floe_ice_micros_to_day(int64_t micros) { return (int32_t)floe_ice_floordiv(micros, MICROS_PER_DAY); }
int32_t floe_ice_micros_to_hour(int64_t micros) { return (int32_t)floe_ice_floordiv(micros, MICROS_PER_HOUR); }
int32_t floe_ice_micros_to_year(int64_t micros) { return floe_ice_days_to_year(floe_ice_micros_to_day(micros)); }
int32_t floe_ice_micros_to_month(int64_t micros) { return floe_ice_days_to_month(floe_ice_micros_to_day(micros)); }

size_t floe_ice_utf8_prefix_len(const uint8_t *s, size_t len, int32_t w) {
    size_t i = 0;
    for (int32_t cp = 0; cp < w && i < len; cp++) {
        /* Step over one code point: a lead byte then its continuation bytes. */
        i++;
        while (i < len && (s[i] & 0xC0) == 0x80) i++;
    }
    return i;
}

/* ---- batch kernels ------------------------------------------------------ */

static bool is_nanos(floe_ice_type_id id) { return id == FLOE_ICE_TIMESTAMP_NS || id == FLOE_ICE_TIMESTAMPTZ_NS; }

/* int32 sources: int, date. */
static bool apply_fixed32(const floe_ice_transform *t, floe_ice_type_id src, const int32_t *in, size_t n, void *out) {
    int32_t *o = out;
    switch (t->kind) {
    case FLOE_ICE_TRANSFORM_IDENTITY: memcpy(out, in, n * sizeof *in); return true;
    case FLOE_ICE_TRANSFORM_BUCKET:
        for (size_t i = 0; i < n; i++) o[i] = floe_ice_bucket_of_hash(floe_ice_hash_int(in[i]), t->param);
        return true;
    case FLOE_ICE_TRANSFORM_TRUNCATE:
        if (src != FLOE_ICE_INT) return false;
        for (size_t i = 0; i < n; i++) o[i] = (int32_t)floe_ice_truncate_long(in[i], t->param);
        return true;
    case FLOE_ICE_TRANSFORM_YEAR:
        for (size_t i = 0; i < n; i++) o[i] = floe_ice_days_to_year(in[i]);
        return src == FLOE_ICE_DATE;
    case FLOE_ICE_TRANSFORM_MONTH:
        for (size_t i = 0; i < n; i++) o[i] = floe_ice_days_to_month(in[i]);
        return src == FLOE_ICE_DATE;
    case FLOE_ICE_TRANSFORM_DAY:
        if (src != FLOE_ICE_DATE) return false;
        memcpy(out, in, n * sizeof *in);
        return true;
    default: return false;
    }
}

/* int64 sources: long, time, timestamps (micros or nanos). */
static bool apply_fixed64(const floe_ice_transform *t, floe_ice_type_id src, const int64_t *in, size_t n, void *out) {
    int32_t *o = out;
    int64_t div = is_nanos(src) ? 1000 : 1; /* to micros */
    switch (t->kind) {
    case FLOE_ICE_TRANSFORM_IDENTITY: memcpy(out, in, n * sizeof *in); return true;
    case FLOE_ICE_TRANSFORM_BUCKET:
        for (size_t i = 0; i < n; i++)
            o[i] = floe_ice_bucket_of_hash(floe_ice_hash_long(div == 1 ? in[i] : floe_ice_floordiv(in[i], div)), t->param);
        return true;
    case FLOE_ICE_TRANSFORM_TRUNCATE: {
        if (src != FLOE_ICE_LONG) return false;
        int64_t *o64 = out;
        /* Values within W of INT64_MIN wrap around, as in Java (and apply). */
        for (size_t i = 0; i < n; i++) {
            int64_t r = in[i] % t->param;
            if (r < 0) r += t->param;
            o64[i] = (int64_t)((uint64_t)in[i] - (uint64_t)r);
        }
        return true;
    }
    case FLOE_ICE_TRANSFORM_YEAR:
    case FLOE_ICE_TRANSFORM_MONTH:
    case FLOE_ICE_TRANSFORM_DAY:
    case FLOE_ICE_TRANSFORM_HOUR:
        if (src == FLOE_ICE_LONG || src == FLOE_ICE_TIME) return false;
        for (size_t i = 0; i < n; i++) {
            int64_t us = div == 1 ? in[i] : floe_ice_floordiv(in[i], div);
            switch (t->kind) {
            case FLOE_ICE_TRANSFORM_YEAR: o[i] = floe_ice_micros_to_year(us); break;
            case FLOE_ICE_TRANSFORM_MONTH: o[i] = floe_ice_micros_to_month(us); break;
            case FLOE_ICE_TRANSFORM_DAY: o[i] = floe_ice_micros_to_day(us); break;
            default: o[i] = floe_ice_micros_to_hour(us); break;
            }
        }
        return true;
    default: return false;
    }
}

floe_status floe_ice_transform_apply_fixed(const floe_ice_transform *t, floe_ice_type_id src, const void *values,
                                           size_t n, void *out) {
    bool ok = false;
    if (floe_ice_transform_result_type_id(t, src) >= 0) {
        if (src == FLOE_ICE_INT || src == FLOE_ICE_DATE) ok = apply_fixed32(t, src, values, n, out);
        else if (src == FLOE_ICE_LONG || src == FLOE_ICE_TIME || src == FLOE_ICE_TIMESTAMP ||
                 src == FLOE_ICE_TIMESTAMPTZ || is_nanos(src))
            ok = apply_fixed64(t, src, values, n, out);
    }
    if (ok) return NULL;
    char tb[80];
    return floe_error(FLOE_ERR_TYPE, "transform '%s' has no fixed-width kernel for type '%s'",
                      floe_ice_transform_format(t, tb, sizeof tb), floe_ice_type_id_name(src));
}

void floe_ice_bucket_bytes(int32_t num_buckets, const int32_t *offsets, const uint8_t *data, size_t width, size_t n,
                           int32_t *out) {
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = offsets ? data + offsets[i] : data + i * width;
        size_t len = offsets ? (size_t)(offsets[i + 1] - offsets[i]) : width;
        out[i] = floe_ice_bucket_of_hash(floe_ice_hash_bytes(p, len), num_buckets);
    }
}

void floe_ice_truncate_bytes_lengths(int32_t width, bool is_string, const int32_t *offsets, const uint8_t *data,
                                     size_t n, int32_t *out_len) {
    for (size_t i = 0; i < n; i++) {
        size_t len = (size_t)(offsets[i + 1] - offsets[i]);
        if (is_string) out_len[i] = (int32_t)floe_ice_utf8_prefix_len(data + offsets[i], len, width);
        else out_len[i] = (int32_t)(len < (size_t)width ? len : (size_t)width);
    }
}

static floe_status not_applicable(const floe_ice_transform *t, floe_ice_type_id id) {
    char tb[80];
    return floe_error(FLOE_ERR_TYPE, "transform '%s' cannot apply to a %s value",
                      floe_ice_transform_format(t, tb, sizeof tb), floe_ice_type_id_name(id));
}

/* Microseconds of a timestamp value (nanosecond types floored). */
static int64_t ts_micros(const floe_ice_value *v) {
    if (v->type == FLOE_ICE_TIMESTAMP_NS || v->type == FLOE_ICE_TIMESTAMPTZ_NS)
        return floe_ice_floordiv(v->v.i64, 1000);
    return v->v.i64;
}

static floe_status apply_truncate(const floe_ice_transform *t, const floe_ice_value *in, floe_ice_value *out) {
    int64_t w = t->param;
    *out = *in;
    out->owns_bytes = false;
    switch (in->type) {
    case FLOE_ICE_INT: out->v.i32 = (int32_t)floe_ice_truncate_long(in->v.i32, w); return NULL;
    case FLOE_ICE_LONG: {
        /* v - floormod(v, w) steps below INT64_MIN for values near it; Java
         * wraps around, and partition values must match what it wrote. */
        int64_t r = in->v.i64 % w;
        if (r < 0) r += w;
        out->v.i64 = (int64_t)((uint64_t)in->v.i64 - (uint64_t)r);
        return NULL;
    }
    case FLOE_ICE_DECIMAL: {
        floe_int128 r = in->v.dec % w;
        if (r < 0) r += w;
        /* Unsigned arithmetic: a corrupt 16-byte bound may sit at the very
         * bottom of the 128-bit range (real decimals have <= 38 digits). */
        out->v.dec = (floe_int128)((unsigned __int128)in->v.dec - (unsigned __int128)r);
        return NULL;
    }
    case FLOE_ICE_STRING:
        out->v.bytes.len = floe_ice_utf8_prefix_len(in->v.bytes.data, in->v.bytes.len, t->param);
        return NULL;
    case FLOE_ICE_BINARY:
        if (out->v.bytes.len > (size_t)w) out->v.bytes.len = (size_t)w;
        return NULL;
    default: return not_applicable(t, in->type);
    }
}

floe_status floe_ice_transform_apply(const floe_ice_transform *t, const floe_ice_value *in, floe_ice_value *out) {
    int r = floe_ice_transform_result_type_id(t, in->type);
    if (r < 0) {
        *out = floe_ice_null(in->type);
        if (t->kind == FLOE_ICE_TRANSFORM_UNKNOWN)
            return floe_error(FLOE_ERR_UNSUPPORTED, "transform '%s' is not supported", t->name);
        return not_applicable(t, in->type);
    }
    if (in->is_null || t->kind == FLOE_ICE_TRANSFORM_VOID) {
        *out = floe_ice_null((floe_ice_type_id)r);
        return NULL;
    }
    switch (t->kind) {
    case FLOE_ICE_TRANSFORM_IDENTITY:
        *out = *in;
        out->owns_bytes = false;
        return NULL;
    case FLOE_ICE_TRANSFORM_BUCKET: {
        int32_t h;
        FLOE_TRY(floe_ice_hash_value(in, &h));
        *out = floe_ice_int(floe_ice_bucket_of_hash(h, t->param));
        return NULL;
    }
    case FLOE_ICE_TRANSFORM_TRUNCATE: return apply_truncate(t, in, out);
    case FLOE_ICE_TRANSFORM_YEAR:
        *out = floe_ice_int(in->type == FLOE_ICE_DATE ? floe_ice_days_to_year(in->v.i32)
                                                      : floe_ice_micros_to_year(ts_micros(in)));
        return NULL;
    case FLOE_ICE_TRANSFORM_MONTH:
        *out = floe_ice_int(in->type == FLOE_ICE_DATE ? floe_ice_days_to_month(in->v.i32)
                                                      : floe_ice_micros_to_month(ts_micros(in)));
        return NULL;
    case FLOE_ICE_TRANSFORM_DAY:
        *out = floe_ice_date(in->type == FLOE_ICE_DATE ? in->v.i32 : floe_ice_micros_to_day(ts_micros(in)));
        return NULL;
    case FLOE_ICE_TRANSFORM_HOUR: *out = floe_ice_int(floe_ice_micros_to_hour(ts_micros(in))); return NULL;
    default: return not_applicable(t, in->type);
    }
}

/* ---- human-readable partition values ------------------------------------ */

static floe_status append_year_str(floe_buf *b, int64_t y) {
    if (y < 0) return floe_buf_printf(b, "-%04lld", (long long)-y);
    return floe_buf_printf(b, "%04lld", (long long)y);
}

static floe_status append_base64(floe_buf *b, const uint8_t *d, size_t n) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        char q[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=',
                     i + 2 < n ? tab[v & 63] : '='};
        FLOE_TRY(floe_buf_append(b, q, 4));
    }
    return NULL;
}

/* Java's ISO_LOCAL_TIME as Iceberg's DateTimeUtil uses it: "HH:MM:SS"
 * with the fraction of the second in as few digits as it needs. */
static floe_status append_java_time(floe_buf *b, int64_t nanos_of_day) {
    int64_t secs = nanos_of_day / 1000000000LL, frac = nanos_of_day % 1000000000LL;
    FLOE_TRY(floe_buf_printf(b, "%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60)));
    if (frac == 0) return NULL;
    int digits = 9;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    return floe_buf_printf(b, ".%0*lld", digits, (long long)frac);
}

static floe_status append_day(floe_buf *b, int64_t days) {
    int64_t y;
    int m, d;
    floe_ice_civil_from_days(days, &y, &m, &d);
    FLOE_TRY(append_year_str(b, y));
    return floe_buf_printf(b, "-%02d-%02d", m, d);
}

static floe_status append_java_timestamp(floe_buf *b, int64_t v, bool nanos, bool tz) {
    int64_t per_day = nanos ? 86400000000000LL : MICROS_PER_DAY;
    int64_t days = floe_ice_floordiv(v, per_day), tod = floe_ice_floormod(v, per_day);
    FLOE_TRY(append_day(b, days));
    FLOE_TRY(floe_buf_append_byte(b, 'T'));
    FLOE_TRY(append_java_time(b, nanos ? tod : tod * 1000));
    return tz ? floe_buf_append_str(b, "+00:00") : NULL;
}

/* Identity (and truncate) values in Java's toHumanString form: ISO dates,
 * times and timestamps ("+00:00" for the tz types), base64 for binary. */
static floe_status append_identity_human(floe_buf *b, const floe_ice_value *v) {
    switch (v->type) {
    case FLOE_ICE_DATE: return append_day(b, v->v.i32);
    case FLOE_ICE_TIME: return append_java_time(b, floe_ice_floormod(v->v.i64, MICROS_PER_DAY) * 1000);
    case FLOE_ICE_TIMESTAMP: return append_java_timestamp(b, v->v.i64, false, false);
    case FLOE_ICE_TIMESTAMPTZ: return append_java_timestamp(b, v->v.i64, false, true);
    case FLOE_ICE_TIMESTAMP_NS: return append_java_timestamp(b, v->v.i64, true, false);
    case FLOE_ICE_TIMESTAMPTZ_NS: return append_java_timestamp(b, v->v.i64, true, true);
    case FLOE_ICE_FIXED:
    case FLOE_ICE_BINARY: return append_base64(b, v->v.bytes.data, v->v.bytes.len);
    default: return floe_ice_value_append_string(b, v);
    }
}

/* The value as a plain integer ordinal (year/month/hour results are ints;
 * day results are dates, but readers must accept ints too). */
static bool ordinal_of(const floe_ice_value *v, int64_t *out) {
    if (v->type == FLOE_ICE_INT || v->type == FLOE_ICE_DATE) {
        *out = v->v.i32;
        return true;
    }
    if (v->type == FLOE_ICE_LONG) {
        *out = v->v.i64;
        return true;
    }
    return false;
}

static floe_status append_human(floe_buf *b, const floe_ice_transform *t, const floe_ice_value *v) {
    if (v->is_null) return floe_buf_append_str(b, "null");
    int64_t n;
    switch (t->kind) {
    case FLOE_ICE_TRANSFORM_YEAR:
        if (!ordinal_of(v, &n)) break;
        return append_year_str(b, 1970 + n);
    case FLOE_ICE_TRANSFORM_MONTH: {
        if (!ordinal_of(v, &n)) break;
        FLOE_TRY(append_year_str(b, 1970 + floe_ice_floordiv(n, 12)));
        return floe_buf_printf(b, "-%02d", (int)floe_ice_floormod(n, 12) + 1);
    }
    case FLOE_ICE_TRANSFORM_DAY:
        if (!ordinal_of(v, &n)) break;
        return append_day(b, n);
    case FLOE_ICE_TRANSFORM_HOUR: {
        if (!ordinal_of(v, &n)) break;
        FLOE_TRY(append_day(b, floe_ice_floordiv(n, 24)));
        return floe_buf_printf(b, "-%02d", (int)floe_ice_floormod(n, 24));
    }
    case FLOE_ICE_TRANSFORM_BUCKET:
    case FLOE_ICE_TRANSFORM_VOID:
    case FLOE_ICE_TRANSFORM_UNKNOWN: return floe_ice_value_append_string(b, v);
    default: return append_identity_human(b, v);
    }
    char tb[80];
    return floe_error(FLOE_ERR_TYPE, "a %s value is not a result of transform '%s'", floe_ice_type_id_name(v->type),
                      floe_ice_transform_format(t, tb, sizeof tb));
}

floe_status floe_ice_transform_human_string(const floe_ice_transform *t, const floe_ice_value *v, char **out) {
    floe_buf b = FLOE_BUF_INIT;
    *out = NULL;
    floe_status st = append_human(&b, t, v);
    /* Terminate explicitly: not every append (base64 of binary values
     * goes through floe_buf_append) leaves a NUL after the bytes. */
    if (!st) st = floe_buf_append_byte(&b, 0);
    if (st) {
        floe_buf_free(&b);
        return st;
    }
    *out = (char *)floe_buf_detach(&b, NULL);
    return NULL;
}
