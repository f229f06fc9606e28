/*
 * variant_json.c — a variant value as JSON text (the rules are listed in
 * floe/variant.h): what SQL's CAST(v AS varchar) returns, what the table
 * printer and floe_format_value show, and what JSON lines output embeds.
 *
 * Values that JSON has no type for are strings in ISO forms (dates, times,
 * timestamps in UTC with 'T' and "+00:00"), base64 (binary) or the usual
 * text (uuid); decimals keep exactly their scale's digits.  Walking is
 * recursive with the depth bounded; every element is decoded through the
 * checked accessors of variant.c, so corrupt bytes give an error.
 */
#include <math.h>
#include <string.h>

#include "base/buffer.h"
#include "base/str.h"
#include "floe/variant.h"

static floe_status json_string(floe_buf *b, const uint8_t *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    size_t bad;
    if (!floe_utf8_valid(s, n, &bad))
        return floe_error(FLOE_ERR_CORRUPT, "variant string is not UTF-8 (byte %zu of %zu)", bad, n);
    FLOE_TRY(floe_buf_reserve(b, n + 2));
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        FLOE_TRY(floe_buf_append(b, s + start, i - start));
        start = i + 1;
        char e[7] = {'\\', 0, 0, 0, 0, 0, 0};
        size_t el = 2;
        switch (c) {
        case '"': e[1] = '"'; break;
        case '\\': e[1] = '\\'; break;
        case '\n': e[1] = 'n'; break;
        case '\r': e[1] = 'r'; break;
        case '\t': e[1] = 't'; break;
        case '\b': e[1] = 'b'; break;
        case '\f': e[1] = 'f'; break;
        default:
            e[1] = 'u';
            e[2] = '0';
            e[3] = '0';
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
            el = 6;
        }
        FLOE_TRY(floe_buf_append(b, e, el));
    }
    FLOE_TRY(floe_buf_append(b, s + start, n - start));
    return floe_buf_append_byte(b, '"');
}

static floe_status base64(floe_buf *b, const uint8_t *p, size_t n) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint8_t *d = floe_buf_extend(b, 2 + (n + 2) / 3 * 4);
    if (!d) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory writing base64");
    *d++ = '"';
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *d++ = (uint8_t)tab[v >> 18];
        *d++ = (uint8_t)tab[(v >> 12) & 63];
        *d++ = (uint8_t)tab[(v >> 6) & 63];
        *d++ = (uint8_t)tab[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        *d++ = (uint8_t)tab[v >> 18];
        *d++ = (uint8_t)tab[(v >> 12) & 63];
        *d++ = i + 1 < n ? (uint8_t)tab[(v >> 6) & 63] : '=';
        *d++ = '=';
    }
    *d = '"';
    return NULL;
}

/* "2024-11-07T12:33:54.123456[+00:00]", every fraction digit, as Spark's
 * variant JSON writes it. */
static floe_status timestamp(floe_buf *b, int64_t v, int64_t per_second, bool utc) {
    FLOE_TRY(floe_buf_append_byte(b, '"'));
    FLOE_TRY(floe_format_timestamp_iso(v, per_second, b));
    return floe_buf_append_str(b, utc ? "+00:00\"" : "\"");
}

static floe_status real(floe_buf *b, double v, bool single) {
    if (isnan(v)) return floe_buf_append_str(b, "\"NaN\"");
    if (isinf(v)) return floe_buf_append_str(b, v < 0 ? "\"-Infinity\"" : "\"Infinity\"");
    return single ? floe_format_float((float)v, b) : floe_format_double(v, b);
}

static floe_status to_json(const floe_variant_meta *m, const floe_variant *v, floe_buf *b, int depth) {
    if (depth > FLOE_VARIANT_MAX_DEPTH)
        return floe_error(FLOE_ERR_CORRUPT, "variant value nested deeper than %d levels", FLOE_VARIANT_MAX_DEPTH);
    switch (v->kind) {
    case FLOE_VARIANT_NULL: return floe_buf_append_str(b, "null");
    case FLOE_VARIANT_TRUE: return floe_buf_append_str(b, "true");
    case FLOE_VARIANT_FALSE: return floe_buf_append_str(b, "false");
    case FLOE_VARIANT_INT8: case FLOE_VARIANT_INT16: case FLOE_VARIANT_INT32: case FLOE_VARIANT_INT64:
        return floe_buf_printf(b, "%lld", (long long)v->u.i);
    case FLOE_VARIANT_DOUBLE: return real(b, v->u.d, false);
    case FLOE_VARIANT_FLOAT: return real(b, v->u.f, true);
    case FLOE_VARIANT_DECIMAL4: case FLOE_VARIANT_DECIMAL8: case FLOE_VARIANT_DECIMAL16:
        return floe_format_decimal(v->u.dec.unscaled, v->u.dec.scale, b);
    case FLOE_VARIANT_DATE:
        FLOE_TRY(floe_buf_append_byte(b, '"'));
        FLOE_TRY(floe_format_date32((int32_t)v->u.i, b));
        return floe_buf_append_byte(b, '"');
    case FLOE_VARIANT_TIME:
        FLOE_TRY(floe_buf_append_byte(b, '"'));
        FLOE_TRY(floe_format_time_us_iso(v->u.i, b));
        return floe_buf_append_byte(b, '"');
    case FLOE_VARIANT_TIMESTAMP_TZ: return timestamp(b, v->u.i, 1000000, true);
    case FLOE_VARIANT_TIMESTAMP_NTZ: return timestamp(b, v->u.i, 1000000, false);
    case FLOE_VARIANT_TIMESTAMP_TZ_NS: return timestamp(b, v->u.i, 1000000000, true);
    case FLOE_VARIANT_TIMESTAMP_NTZ_NS: return timestamp(b, v->u.i, 1000000000, false);
    case FLOE_VARIANT_BINARY: return base64(b, v->u.bytes.p, v->u.bytes.len);
    case FLOE_VARIANT_STRING: return json_string(b, v->u.bytes.p, v->u.bytes.len);
    case FLOE_VARIANT_UUID:
        FLOE_TRY(floe_buf_append_byte(b, '"'));
        FLOE_TRY(floe_format_uuid(v->u.bytes.p, b));
        return floe_buf_append_byte(b, '"');
    case FLOE_VARIANT_OBJECT: case FLOE_VARIANT_ARRAY: {
        bool obj = v->kind == FLOE_VARIANT_OBJECT;
        FLOE_TRY(floe_buf_append_byte(b, obj ? '{' : '['));
        for (uint32_t i = 0; i < v->u.nest.n; i++) {
            if (i) FLOE_TRY(floe_buf_append_byte(b, ','));
            if (obj) {
                uint32_t id;
                floe_strview name;
                FLOE_TRY(floe_variant_field_id(v, i, &id));
                FLOE_TRY(floe_variant_meta_name(m, id, &name));
                FLOE_TRY(json_string(b, (const uint8_t *)name.data, (size_t)name.len));
                FLOE_TRY(floe_buf_append_byte(b, ':'));
            }
            floe_variant c;
            FLOE_TRY(floe_variant_element(v, i, &c));
            FLOE_TRY(to_json(m, &c, b, depth + 1));
        }
        return floe_buf_append_byte(b, obj ? '}' : ']');
    }
    }
    return floe_error(FLOE_ERR_INTERNAL, "variant kind %d", (int)v->kind);
}

floe_status floe_variant_to_json(const floe_variant_meta *m, const floe_variant *v, floe_buf *out) {
    return to_json(m, v, out, 0);
}

floe_status floe_variant_bytes_to_json(const uint8_t *meta, size_t meta_len, const uint8_t *value,
                                       size_t value_len, floe_buf *out) {
    floe_variant_meta m;
    floe_variant v;
    FLOE_TRY(floe_variant_meta_open(meta, meta_len, true, &m));
    FLOE_TRY(floe_variant_open(value, value_len, true, &v));
    return to_json(&m, &v, out, 0);
}
