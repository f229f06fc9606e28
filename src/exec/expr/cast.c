/*
 * cast.c — the casts expr.c's numeric and to-string paths do not cover:
 * text to dates, times, timestamps, decimals and booleans; dates and
 * timestamps among themselves; decimals to and from numbers and other
 * decimals; integers to booleans.
 *
 * Rules (PostgreSQL's, where it has one):
 *   - text is parsed in ISO forms ('2020-01-31', '2020-01-31 12:00:00[.ffffff]',
 *     'T' or ' ' between date and time, an offset for the tz types);
 *     a date-only text casts to a timestamp at midnight; bad text is an
 *     error naming the text and the type;
 *   - timestamps without and with zone hold the same UTC instant number,
 *     so casting between them keeps the value;
 *   - timestamp to date floors (pre-epoch times go to the earlier day);
 *   - decimals round half away from zero when scale shrinks or when cast
 *     to an integer, and a value that does not fit the precision is an
 *     error naming the value.
 * Row at a time through builders: casts of this kind are rare on hot paths.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/tz.h"
#include "floe/interval.h"
#include "exec/expr/cast.h"
#include "floe/iceberg_types.h"
#include "floe/iceberg_value.h"

#define DAY_US INT64_C(86400000000)

typedef __int128 i128;

static bool is_time_kind(floe_type_id id) {
    switch (id) {
    case FLOE_TYPE_DATE32: case FLOE_TYPE_TIME64_US: case FLOE_TYPE_TIMESTAMP_US: case FLOE_TYPE_TIMESTAMP_US_TZ:
    case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_NS_TZ: return true;
    default: return false;
    }
}
static bool is_ts(floe_type_id id) {
    return id == FLOE_TYPE_TIMESTAMP_US || id == FLOE_TYPE_TIMESTAMP_US_TZ || id == FLOE_TYPE_TIMESTAMP_NS ||
           id == FLOE_TYPE_TIMESTAMP_NS_TZ;
}
static bool is_ns(floe_type_id id) { return id == FLOE_TYPE_TIMESTAMP_NS || id == FLOE_TYPE_TIMESTAMP_NS_TZ; }
static bool is_intish(floe_type_id id) { return id == FLOE_TYPE_INT32 || id == FLOE_TYPE_INT64; }
static bool is_floatish(floe_type_id id) { return id == FLOE_TYPE_FLOAT32 || id == FLOE_TYPE_FLOAT64; }

bool floe_exec_cast_extra(const floe_type *from, const floe_type *to) {
    floe_type_id f = from->id, t = to->id;
    if (f == t && f != FLOE_TYPE_DECIMAL128) return false; /* identical: expr.c */
    if (is_time_kind(t)) {
        if (f == FLOE_TYPE_STRING) return true;
        if (t == FLOE_TYPE_DATE32) return is_ts(f);
        if (is_ts(t)) return f == FLOE_TYPE_DATE32 || is_ts(f);
        return false; /* time only from text */
    }
    if (t == FLOE_TYPE_DECIMAL128) return f == FLOE_TYPE_STRING || f == FLOE_TYPE_DECIMAL128 || is_intish(f) ||
                                          is_floatish(f);
    if (f == FLOE_TYPE_DECIMAL128) return is_intish(t) || is_floatish(t);
    if (t == FLOE_TYPE_BOOL) return f == FLOE_TYPE_STRING || is_intish(f);
    if (t == FLOE_TYPE_INTERVAL) return f == FLOE_TYPE_STRING;
    return false;
}

/* ---------------------------------------------------------------- text */

static floe_status parse_text(const floe_strview s, const floe_type *to, floe_ice_value *v);

/* Text to timestamptz: text without an offset is a wall-clock time in the
 * session zone (base/tz.h; UTC when none is set on this thread), as
 * PostgreSQL reads it.  Worker threads and ranks get the session's zone
 * through timezone_parse (sql/zone_rewrite.c, func_timezone.c), which sets
 * it around this cast.  *done: it had none (else the caller parses it with
 * its offset). */
static floe_status parse_local_tz(const floe_strview s, const floe_type *to, floe_ice_value *v, bool *done) {
    *done = false;
    const floe_tz *zone = floe_tz_session();
    if (to->id != FLOE_TYPE_TIMESTAMP_US_TZ && to->id != FLOE_TYPE_TIMESTAMP_NS_TZ) return NULL;
    /* an offset or zone after the time ('+02', '-05:00', 'Z', 'UTC'): the
     * caller reads it with that; no plain parse tried and failed per row */
    for (int32_t i = 11; i < s.len; i++) {
        char c = s.data[i];
        if (c == '+' || c == '-' || isalpha((unsigned char)c)) return NULL;
    }
    bool ns = to->id == FLOE_TYPE_TIMESTAMP_NS_TZ;
    floe_status st = parse_text(s, floe_type_primitive(ns ? FLOE_TYPE_TIMESTAMP_NS : FLOE_TYPE_TIMESTAMP_US), v);
    if (st) { /* not a plain timestamp: it has an offset (or is bad) */
        floe_status_free(st);
        return NULL;
    }
    int64_t unit = ns ? 1000000000 : 1000000;
    int64_t secs = v->v.i64 / unit, sub = v->v.i64 % unit;
    if (sub < 0) {
        secs--;
        sub += unit;
    }
    if (zone) v->v.i64 = floe_tz_local_to_utc(zone, secs) * unit + sub;
    *done = true;
    return NULL;
}

static floe_status parse_text(const floe_strview s, const floe_type *to, floe_ice_value *v) {
    bool local = false;
    FLOE_TRY(parse_local_tz(s, to, v, &local));
    if (local) return NULL;
    char buf[96];
    /* Trim; PostgreSQL accepts surrounding blanks. */
    const char *p = s.data, *e = s.data + s.len;
    while (p < e && isspace((unsigned char)*p)) p++;
    while (e > p && isspace((unsigned char)e[-1])) e--;
    size_t len = (size_t)(e - p);
    if (len >= sizeof buf)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type %s: \"%.*s...\"",
                          floe_type_pg_name(to->id), 60, p);
    memcpy(buf, p, len);
    buf[len] = 0;
    /* ISO with a blank between date and time. */
    if (len > 10 && buf[10] == ' ' && is_ts(to->id)) buf[10] = 'T';
    floe_ice_type_id iid;
    switch (to->id) {
    case FLOE_TYPE_DATE32: iid = FLOE_ICE_DATE; break;
    case FLOE_TYPE_TIME64_US: iid = FLOE_ICE_TIME; break;
    case FLOE_TYPE_TIMESTAMP_US: iid = FLOE_ICE_TIMESTAMP; break;
    case FLOE_TYPE_TIMESTAMP_US_TZ: iid = FLOE_ICE_TIMESTAMPTZ; break;
    case FLOE_TYPE_TIMESTAMP_NS: iid = FLOE_ICE_TIMESTAMP_NS; break;
    case FLOE_TYPE_TIMESTAMP_NS_TZ: iid = FLOE_ICE_TIMESTAMPTZ_NS; break;
    default: iid = FLOE_ICE_DECIMAL; break;
    }
    floe_ice_type *it = NULL;
    floe_status st = iid == FLOE_ICE_DECIMAL ? floe_ice_type_decimal(to->precision, to->scale, &it)
                                            : floe_ice_type_new(iid, &it);
    if (st) return st;
    st = floe_ice_value_parse(it, buf, v);
    if (st && is_ts(to->id) && len == 10) {
        /* A date alone: midnight of that day. */
        floe_status_free(st);
        floe_ice_type *dt = NULL;
        floe_ice_value dv;
        st = floe_ice_type_new(FLOE_ICE_DATE, &dt);
        if (!st) st = floe_ice_value_parse(dt, buf, &dv);
        floe_ice_type_free(dt);
        if (!st) {
            int64_t unit = is_ns(to->id) ? DAY_US * 1000 : DAY_US;
            v->v.i64 = (int64_t)dv.v.i32 * unit;
        }
    }
    floe_ice_type_free(it);
    if (st) {
        floe_status_free(st);
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type %s: \"%.*s\"",
                          floe_type_pg_name(to->id), (int)len, p);
    }
    return NULL;
}

static floe_status text_to_bool(floe_strview s, bool *out) {
    static const char *const yes[] = {"true", "t", "yes", "y", "on", "1"};
    static const char *const no[] = {"false", "f", "no", "n", "off", "0"};
    const char *p = s.data, *e = s.data + s.len;
    while (p < e && isspace((unsigned char)*p)) p++;
    while (e > p && isspace((unsigned char)e[-1])) e--;
    size_t len = (size_t)(e - p);
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (strlen(yes[i]) == len && strncasecmp(p, yes[i], len) == 0) { *out = true; return NULL; }
        if (strlen(no[i]) == len && strncasecmp(p, no[i], len) == 0) { *out = false; return NULL; }
    }
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type boolean: \"%.*s\"", (int)len, p);
}

/* ------------------------------------------------------------- decimals */

static i128 pow10_128(int n) {
    i128 r = 1;
    while (n-- > 0) r *= 10;
    return r;
}

static i128 dec_get(const floe_array *a, int64_t i) {
    floe_decimal128 d = floe_array_get_decimal(a, i);
    return (i128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
}

static floe_decimal128 dec_make(i128 v) {
    floe_decimal128 d = {(uint64_t)v, (int64_t)(v >> 64)};
    return d;
}

/* v / 10^k rounded half away from zero. */
static i128 div_round(i128 v, int k) {
    if (k <= 0) return v;
    i128 p = pow10_128(k), q = v / p, r = v % p;
    if (r < 0) r = -r;
    if (2 * r >= p) q += v < 0 ? -1 : 1;
    return q;
}

/* Text of an unscaled value at `scale` ("-12.345"), for messages. */
static const char *dec_text(i128 v, int scale, char buf[48]) {
    char d[48];
    int n = 0;
    unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    do {
        d[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u && n < 46);
    while (n <= scale && n < 46) d[n++] = '0';
    int k = 0;
    if (v < 0) buf[k++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        buf[k++] = d[i];
        if (i == scale && scale > 0) buf[k++] = '.';
    }
    buf[k] = 0;
    return buf;
}

/* PostgreSQL's message for a value too wide for numeric(p, s). */
static floe_status overflow(const char *value, const floe_type *to) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                      "numeric field overflow: %s does not fit numeric(%d,%d) (a field with precision %d, scale %d "
                      "must round to an absolute value less than 10^%d)",
                      value, to->precision, to->scale, to->precision, to->scale, to->precision - to->scale);
}

static floe_status fit(i128 v, const floe_type *to) {
    i128 lim = pow10_128(to->precision);
    char buf[48];
    if (v >= lim || v <= -lim) return overflow(dec_text(v, to->scale, buf), to);
    return NULL;
}

/* Decimal text ("-12.345", "1.5e3") to an unscaled value at `scale`,
 * rounding half away from zero past the scale, as PostgreSQL does. */
static floe_status parse_decimal(const char *p, size_t len, const floe_type *to, i128 *out) {
    const char *start = p, *e = p + len;
    while (p < e && isspace((unsigned char)*p)) p++;
    while (e > p && isspace((unsigned char)e[-1])) e--;
    const char *p0 = p; /* the trimmed text, for messages */
    bool neg = false;
    if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
    char digits[80];
    int nd = 0, point = -1;
    bool any = false;
    for (; p < e && (isdigit((unsigned char)*p) || *p == '.'); p++) {
        if (*p == '.') {
            if (point >= 0) goto bad;
            point = nd;
            continue;
        }
        any = true;
        if (nd == 0 && *p == '0' && point < 0) continue; /* leading zeros */
        if (nd >= (int)sizeof digits) goto bad;
        digits[nd++] = *p;
    }
    if (!any) goto bad;
    if (point < 0) point = nd;
    if (p < e && (*p == 'e' || *p == 'E')) {
        char *end;
        long x = strtol(p + 1, &end, 10);
        if (end != e || x > 100 || x < -100) goto bad;
        point += (int)x;
        p = e;
    }
    if (p != e) goto bad;
    /* value = 0.digits * 10^point; unscaled = digits shifted to `scale` */
    int keep = point + to->scale; /* digits before the rounding position */
    i128 v = 0;
    for (int i = 0; i < keep && i < nd; i++) {
        v = v * 10 + (digits[i] - '0');
        if (v >= pow10_128(38)) goto range;
    }
    for (int i = nd; i < keep; i++) {
        v *= 10;
        if (v >= pow10_128(38)) goto range;
    }
    if (keep >= 0 && keep < nd && digits[keep] >= '5') v += 1;
    *out = neg ? -v : v;
    if (v < pow10_128(to->precision)) return NULL;
range: {
    char txt[96];
    snprintf(txt, sizeof txt, "%.*s", (int)(e - p0 < 90 ? e - p0 : 90), p0);
    return overflow(txt, to);
}
bad:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type numeric: \"%.*s\"", (int)len, start);
}

/* Rescale an unscaled value from scale `from` to `to_scale` (overflow
 * checked against 38 digits on the way up). */
static floe_status rescale(i128 v, int from, int to_scale, i128 *out) {
    if (to_scale >= from) {
        int k = to_scale - from;
        i128 p = pow10_128(k), lim = pow10_128(38) / p;
        if (v >= lim || v <= -lim) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "numeric field overflow");
        *out = v * p;
    } else {
        *out = div_round(v, from - to_scale);
    }
    return NULL;
}

/* --------------------------------------------------------------- driver */

static floe_status cast_one(const floe_array *a, int64_t i, const floe_type *to, floe_builder *b) {
    floe_type_id f = a->type->id, t = to->id;
    if (f == FLOE_TYPE_STRING) {
        floe_strview s = floe_array_get_str(a, i);
        if (t == FLOE_TYPE_BOOL) {
            bool v;
            FLOE_TRY(text_to_bool(s, &v));
            return floe_builder_append_bool(b, v);
        }
        if (t == FLOE_TYPE_INTERVAL) {
            floe_interval v;
            FLOE_TRY(floe_interval_parse(s.data, s.len, 0, &v));
            return floe_builder_append_fixed(b, &v);
        }
        if (t == FLOE_TYPE_DECIMAL128) {
            i128 d;
            FLOE_TRY(parse_decimal(s.data, (size_t)s.len, to, &d));
            return floe_builder_append_decimal(b, dec_make(d));
        }
        floe_ice_value v;
        FLOE_TRY(parse_text(s, to, &v));
        if (t == FLOE_TYPE_DATE32) return floe_builder_append_int32(b, v.v.i32);
        return floe_builder_append_int64(b, v.v.i64);
    }
    if (t == FLOE_TYPE_BOOL) { /* from an integer */
        int64_t x = f == FLOE_TYPE_INT32 ? floe_array_get_int32(a, i) : floe_array_get_int64(a, i);
        return floe_builder_append_bool(b, x != 0);
    }
    if (t == FLOE_TYPE_DATE32) { /* from a timestamp: floor to the day */
        int64_t x = floe_array_get_int64(a, i);
        int64_t unit = is_ns(f) ? DAY_US * 1000 : DAY_US;
        int64_t d = floe_ice_floordiv(x, unit);
        if (d < INT32_MIN || d > INT32_MAX) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "timestamp out of date range");
        return floe_builder_append_int32(b, (int32_t)d);
    }
    if (is_ts(t)) {
        int64_t x;
        if (f == FLOE_TYPE_DATE32) {
            int64_t unit = is_ns(t) ? DAY_US * 1000 : DAY_US;
            if (__builtin_mul_overflow((int64_t)floe_array_get_int32(a, i), unit, &x))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "date %d is out of range for %s",
                                  floe_array_get_int32(a, i), floe_type_pg_name(t));
        } else {
            x = floe_array_get_int64(a, i);
            if (is_ns(f) && !is_ns(t)) x = floe_ice_floordiv(x, 1000);
            else if (!is_ns(f) && is_ns(t) && __builtin_mul_overflow(x, (int64_t)1000, &x))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "timestamp out of range for %s", floe_type_pg_name(t));
        }
        return floe_builder_append_int64(b, x);
    }
    if (t == FLOE_TYPE_DECIMAL128) {
        i128 v;
        if (f == FLOE_TYPE_DECIMAL128) {
            FLOE_TRY(rescale(dec_get(a, i), a->type->scale, to->scale, &v));
        } else if (is_intish(f)) {
            int64_t x = f == FLOE_TYPE_INT32 ? floe_array_get_int32(a, i) : floe_array_get_int64(a, i);
            FLOE_TRY(rescale((i128)x, 0, to->scale, &v));
        } else {
            /* Through the shortest text that reads back as the same
             * float (15 significant digits, as PostgreSQL), so 12.35
             * rounds to 12.4 rather than by its binary value 12.3499... */
            double d = f == FLOE_TYPE_FLOAT32 ? floe_array_get_float(a, i) : floe_array_get_double(a, i);
            if (!isfinite(d))
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot cast %g to decimal(%d, %d)", d, to->precision,
                                  to->scale);
            char txt[64];
            int m = snprintf(txt, sizeof txt, "%.*g", f == FLOE_TYPE_FLOAT32 ? 6 : 15, d);
            FLOE_TRY(parse_decimal(txt, (size_t)m, to, &v));
        }
        FLOE_TRY(fit(v, to));
        return floe_builder_append_decimal(b, dec_make(v));
    }
    /* decimal to a number */
    i128 v = dec_get(a, i);
    int sc = a->type->scale;
    if (is_floatish(t)) {
        long double d = (long double)v / powl(10.0L, sc);
        return t == FLOE_TYPE_FLOAT64 ? floe_builder_append_double(b, (double)d)
                                      : floe_builder_append_float(b, (float)d);
    }
    i128 q = div_round(v, sc);
    i128 lo = t == FLOE_TYPE_INT32 ? INT32_MIN : INT64_MIN, hi = t == FLOE_TYPE_INT32 ? INT32_MAX : INT64_MAX;
    char buf[48];
    if (q < lo || q > hi) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s out of range: %s",
                                            t == FLOE_TYPE_INT32 ? "integer" : "bigint", dec_text(v, sc, buf));
    return t == FLOE_TYPE_INT32 ? floe_builder_append_int32(b, (int32_t)q) : floe_builder_append_int64(b, (int64_t)q);
}

floe_status floe_exec_cast_extra_array(const floe_array *a, floe_type *to, int64_t n, floe_array **out) {
    floe_builder *b;
    FLOE_TRY(floe_builder_new(to, n, &b));
    floe_status st = NULL;
    for (int64_t i = 0; i < n && !st; i++) {
        if (floe_array_is_null(a, i)) st = floe_builder_append_null(b);
        else st = cast_one(a, i, to, b);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}
