/*
 * format.c — one value of any type as human-readable text (the CLI's table
 * and CSV output, SQL casts to string, error messages).
 *
 * Calendar arithmetic uses floor division throughout so that instants
 * before 1970 (negative counts) print as the right day and time of day:
 * -1 µs is "1969-12-31 23:59:59.999999", not a negative fraction.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/tz.h"
#include "columnar/internal.h"
#include "floe/interval.h"
#include "floe/variant.h"

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int64_t floor_mod(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

/* Proleptic Gregorian civil date from days since 1970-01-01, using the
 * 400-year era decomposition (eras are 146097 days long). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
    z += 719468; /* days from 0000-03-01 to 1970-01-01 */
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;                                     /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399]    */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);              /* [0, 365]    */
    int64_t mp = (5 * doy + 2) / 153;                                   /* [0, 11], March = 0 */
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static floe_status append_date(int64_t days, floe_buf *out) {
    int64_t y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 0) return floe_buf_printf(out, "-%04lld-%02d-%02d", (long long)-y, m, d);
    return floe_buf_printf(out, "%04lld-%02d-%02d", (long long)y, m, d);
}

floe_status floe_format_date32(int32_t days, floe_buf *out) { return append_date(days, out); }

/* HH:MM:SS.fraction with every digit (6 or 9). */
static floe_status append_time_of_day_fixed(int64_t v, int64_t units_per_second, int digits, floe_buf *out) {
    int64_t secs = floor_div(v, units_per_second);
    int64_t frac = floor_mod(v, units_per_second);
    return floe_buf_printf(out, "%02lld:%02lld:%02lld.%0*lld", (long long)(secs / 3600), (long long)(secs / 60 % 60),
                           (long long)(secs % 60), digits, (long long)frac);
}

floe_status floe_format_time_us_iso(int64_t micros, floe_buf *out) {
    return append_time_of_day_fixed(floor_mod(micros, 86400LL * 1000000), 1000000, 6, out);
}

floe_status floe_format_timestamp_iso(int64_t value, int64_t units_per_second, floe_buf *out) {
    int64_t per_day = units_per_second * 86400;
    FLOE_TRY(append_date(floor_div(value, per_day), out));
    FLOE_TRY(floe_buf_append_byte(out, 'T'));
    return append_time_of_day_fixed(floor_mod(value, per_day), units_per_second, units_per_second == 1000000 ? 6 : 9,
                                    out);
}

/* HH:MM:SS[.fraction] for `v` units into a day, as PostgreSQL and DuckDB
 * show times: the fraction (of up to `digits` = 6 or 9 places) without
 * its trailing zeros, and none at all on a whole second. */
static floe_status append_time_of_day(int64_t v, int64_t units_per_second, int digits, floe_buf *out) {
    int64_t secs = floor_div(v, units_per_second);
    int64_t frac = floor_mod(v, units_per_second);
    FLOE_TRY(floe_buf_printf(out, "%02lld:%02lld:%02lld", (long long)(secs / 3600), (long long)(secs / 60 % 60),
                             (long long)(secs % 60)));
    if (!frac) return NULL;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    return floe_buf_printf(out, ".%0*lld", digits, (long long)frac);
}

floe_status floe_format_time_us(int64_t micros, floe_buf *out) {
    /* A time outside one day is corrupt data; show it reduced into the day
     * rather than printing negative fields. */
    return append_time_of_day(floor_mod(micros, 86400LL * 1000000), 1000000, 6, out);
}

/* PostgreSQL's offset text: +02, -03:30, +00:53:28 (minutes and seconds
 * only when not zero). */
static floe_status append_offset(int64_t off, floe_buf *out) {
    char sign = off < 0 ? '-' : '+';
    if (off < 0) off = -off;
    FLOE_TRY(floe_buf_printf(out, "%c%02lld", sign, (long long)(off / 3600)));
    if (off % 3600) FLOE_TRY(floe_buf_printf(out, ":%02lld", (long long)(off / 60 % 60)));
    if (off % 60) FLOE_TRY(floe_buf_printf(out, ":%02lld", (long long)(off % 60)));
    return NULL;
}

floe_status floe_format_timestamp(int64_t value, int64_t units_per_second, bool utc, floe_buf *out) {
    /* A timestamptz is shown as the wall clock of the session zone. */
    const floe_tz *zone = utc ? floe_tz_session() : NULL;
    int64_t off = zone ? floe_tz_offset(zone, floor_div(value, units_per_second)) : 0;
    if (off) {
        if ((off > 0 && value > INT64_MAX - off * units_per_second) ||
            (off < 0 && value < INT64_MIN - off * units_per_second))
            off = 0; /* out of range as local time: shown in UTC */
        else value += off * units_per_second;
    }
    int64_t per_day = units_per_second * 86400;
    int64_t days = floor_div(value, per_day);
    int64_t rem = floor_mod(value, per_day);
    FLOE_TRY(append_date(days, out));
    FLOE_TRY(floe_buf_append_byte(out, ' '));
    FLOE_TRY(append_time_of_day(rem, units_per_second, units_per_second == 1000000 ? 6 : 9, out));
    return utc ? append_offset(off, out) : NULL;
}

floe_status floe_format_decimal(floe_decimal128 v, int32_t scale, floe_buf *out) {
    unsigned __int128 u = ((unsigned __int128)(uint64_t)v.hi << 64) | v.lo;
    bool neg = v.hi < 0;
    if (neg) u = ~u + 1; /* magnitude; correct for the minimum too */
    char digits[48];
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale && n < 45) digits[n++] = '0'; /* at least one digit before the point */
    char text[64];
    int t = 0;
    if (neg) text[t++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        text[t++] = digits[i];
        if (i == scale && scale > 0) text[t++] = '.';
    }
    return floe_buf_append(out, text, (size_t)t);
}

floe_status floe_format_uuid(const uint8_t b[16], floe_buf *out) {
    static const char hex[] = "0123456789abcdef";
    char s[36];
    int k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s[k++] = '-';
        s[k++] = hex[b[i] >> 4];
        s[k++] = hex[b[i] & 15];
    }
    return floe_buf_append(out, s, sizeof s);
}

/* Shortest text that reads back as the same value, laid out like Python's
 * repr: plain digits for decimal exponents -5..15 (with ".0" when integral,
 * so floats never look like integers), scientific notation otherwise. */
static floe_status append_real(double v, bool single, floe_buf *out) {
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
    if (exp < -5 || exp >= 16) {
        /* "1.5e+20" as C prints it; already in s. */
        return floe_buf_append_str(out, s);
    }
    int decimals = prec - 1 - exp;
    snprintf(s, sizeof s, "%.*f", decimals > 0 ? decimals : 0, v);
    FLOE_TRY(floe_buf_append_str(out, s));
    if (!strchr(s, '.')) return floe_buf_append_str(out, ".0");
    return NULL;
}

floe_status floe_format_double(double v, floe_buf *out) { return append_real(v, false, out); }
floe_status floe_format_float(float v, floe_buf *out) { return append_real(v, true, out); }

static floe_status append_hex(const uint8_t *p, int64_t n, floe_buf *out) {
    static const char hex[] = "0123456789abcdef";
    uint8_t *d = floe_buf_extend(out, (size_t)(2 + 2 * n));
    if (!d) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory formatting binary");
    d[0] = '\\';
    d[1] = 'x';
    for (int64_t i = 0; i < n; i++) {
        d[2 + 2 * i] = (uint8_t)hex[p[i] >> 4];
        d[3 + 2 * i] = (uint8_t)hex[p[i] & 15];
    }
    return NULL;
}

/* A string inside a nested value: single-quoted, quotes doubled. */
static floe_status append_quoted(const char *s, int32_t n, floe_buf *out) {
    FLOE_TRY(floe_buf_append_byte(out, '\''));
    int32_t start = 0;
    for (int32_t i = 0; i < n; i++) {
        if (s[i] != '\'') continue;
        FLOE_TRY(floe_buf_append(out, s + start, (size_t)(i + 1 - start)));
        start = i; /* the quote is written again: doubled */
    }
    FLOE_TRY(floe_buf_append(out, s + start, (size_t)(n - start)));
    return floe_buf_append_byte(out, '\'');
}

static floe_status format_rec(const floe_array *a, int64_t i, bool nested, floe_buf *out, int depth);

static floe_status format_nested(const floe_array *a, int64_t i, floe_buf *out, int depth) {
    const floe_type *t = a->type;
    if (t->id == FLOE_TYPE_STRUCT) {
        FLOE_TRY(floe_buf_append_byte(out, '{'));
        for (int32_t c = 0; c < a->n_children; c++) {
            if (c) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(floe_buf_printf(out, "%s: ", t->children[c].name));
            FLOE_TRY(format_rec(a->children[c], a->offset + i, true, out, depth + 1));
        }
        return floe_buf_append_byte(out, '}');
    }
    int64_t start, end;
    floe_array_get_range(a, i, &start, &end);
    const floe_array *c = a->children[0];
    if (t->id == FLOE_TYPE_LIST) {
        FLOE_TRY(floe_buf_append_byte(out, '['));
        for (int64_t j = start; j < end; j++) {
            if (j > start) FLOE_TRY(floe_buf_append_str(out, ", "));
            FLOE_TRY(format_rec(c, j, true, out, depth + 1));
        }
        return floe_buf_append_byte(out, ']');
    }
    /* MAP: entries struct; its slot j is slot (offset + j) of key/value. */
    FLOE_TRY(floe_buf_append_byte(out, '{'));
    for (int64_t j = start; j < end; j++) {
        if (j > start) FLOE_TRY(floe_buf_append_str(out, ", "));
        FLOE_TRY(format_rec(c->children[0], c->offset + j, true, out, depth + 1));
        FLOE_TRY(floe_buf_append_str(out, ": "));
        FLOE_TRY(format_rec(c->children[1], c->offset + j, true, out, depth + 1));
    }
    return floe_buf_append_byte(out, '}');
}

static floe_status format_rec(const floe_array *a, int64_t i, bool nested, floe_buf *out, int depth) {
    if (depth > FLOE_MAX_NESTING) return floe_error(FLOE_ERR_UNSUPPORTED, "value nested too deeply to print");
    if (floe_array_is_null(a, i)) return floe_buf_append_str(out, "NULL");
    const floe_type *t = a->type;
    switch (t->id) {
    case FLOE_TYPE_NULL:
        return floe_buf_append_str(out, "NULL");
    case FLOE_TYPE_BOOL:
        return floe_buf_append_str(out, floe_array_get_bool(a, i) ? "true" : "false");
    case FLOE_TYPE_INT32:
        return floe_buf_printf(out, "%d", floe_array_get_int32(a, i));
    case FLOE_TYPE_INT64:
        return floe_buf_printf(out, "%lld", (long long)floe_array_get_int64(a, i));
    case FLOE_TYPE_FLOAT32:
        return floe_format_float(floe_array_get_float(a, i), out);
    case FLOE_TYPE_FLOAT64:
        return floe_format_double(floe_array_get_double(a, i), out);
    case FLOE_TYPE_DECIMAL128:
        return floe_format_decimal(floe_array_get_decimal(a, i), t->scale, out);
    case FLOE_TYPE_DATE32:
        return floe_format_date32(floe_array_get_int32(a, i), out);
    case FLOE_TYPE_TIME64_US:
        return floe_format_time_us(floe_array_get_int64(a, i), out);
    case FLOE_TYPE_TIMESTAMP_US:
    case FLOE_TYPE_TIMESTAMP_US_TZ:
        return floe_format_timestamp(floe_array_get_int64(a, i), 1000000,
                                     t->id == FLOE_TYPE_TIMESTAMP_US_TZ, out);
    case FLOE_TYPE_TIMESTAMP_NS:
    case FLOE_TYPE_TIMESTAMP_NS_TZ:
        return floe_format_timestamp(floe_array_get_int64(a, i), 1000000000,
                                     t->id == FLOE_TYPE_TIMESTAMP_NS_TZ, out);
    case FLOE_TYPE_STRING: {
        floe_strview v = floe_array_get_str(a, i);
        if (nested) return append_quoted(v.data, v.len, out);
        return floe_buf_append(out, v.data, (size_t)v.len);
    }
    case FLOE_TYPE_BINARY: {
        floe_strview v = floe_array_get_str(a, i);
        return append_hex((const uint8_t *)v.data, v.len, out);
    }
    case FLOE_TYPE_FIXED_BINARY:
        return append_hex(floe_array_get_fixed(a, i), t->byte_width, out);
    case FLOE_TYPE_UUID:
        return floe_format_uuid(floe_array_get_fixed(a, i), out);
    case FLOE_TYPE_INTERVAL: {
        floe_interval v;
        memcpy(&v, floe_array_get_fixed(a, i), sizeof v);
        return floe_interval_format(v, out);
    }
    case FLOE_TYPE_STRUCT:
    case FLOE_TYPE_LIST:
    case FLOE_TYPE_MAP:
        return format_nested(a, i, out, depth);
    case FLOE_TYPE_VARIANT: {
        floe_variant_meta m;
        floe_variant v;
        FLOE_TRY(floe_variant_array_get(a, i, &m, &v));
        return floe_variant_to_json(&m, &v, out);
    }
    default:
        return floe_error(FLOE_ERR_INTERNAL, "cannot format type %d", (int)t->id);
    }
}

floe_status floe_format_value(const floe_array *a, int64_t i, floe_buf *out) {
    return format_rec(a, i, false, out, 0);
}
