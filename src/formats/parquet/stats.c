/*
 * stats.c — column statistics for the Parquet writer: min/max in the order
 * the column's type defines (parquet.thrift, ColumnOrder TYPE_ORDER), null
 * and NaN counts, and truncation of long binary bounds.
 *
 * Orders: integers (and decimals stored as INT32/INT64, dates, times,
 * timestamps) compare signed; strings, binary, fixed and uuid compare as
 * unsigned bytes; decimals stored as FIXED_LEN_BYTE_ARRAY compare as
 * big-endian two's complement.  Floats skip NaN (counted instead), so an
 * all-NaN page has no bounds, and a zero bound is written as -0.0 (min) or
 * +0.0 (max) as the spec asks.
 */
#include <math.h>
#include <string.h>

#include "formats/parquet/writer_internal.h"

void pqw_stats_init(pqw_stats *s, pqw_order order, int32_t width) {
    memset(s, 0, sizeof *s);
    s->order = order;
    s->width = width;
}

void pqw_stats_reset(pqw_stats *s) {
    s->null_count = s->nan_count = s->value_count = 0;
    s->has_bounds = false;
    floe_buf_clear(&s->bmin);
    floe_buf_clear(&s->bmax);
}

void pqw_stats_free(pqw_stats *s) {
    floe_buf_free(&s->bmin);
    floe_buf_free(&s->bmax);
}

void pqw_stats_bools(pqw_stats *s, const uint8_t *v, int64_t n) {
    if (n <= 0) return;
    bool any_t = false, any_f = false;
    for (int64_t i = 0; i < n; i++) {
        any_t |= v[i] != 0;
        any_f |= v[i] == 0;
    }
    if (!s->has_bounds) {
        s->min.i = any_f ? 0 : 1;
        s->max.i = any_t ? 1 : 0;
        s->has_bounds = true;
    } else {
        if (any_f) s->min.i = 0;
        if (any_t) s->max.i = 1;
    }
    s->value_count += n;
}

/* The integer orders share one loop over int64 min/max. */
#define INT_STATS(NAME, T)                                                   \
    void NAME(pqw_stats *s, const T *v, int64_t n) {                         \
        if (n <= 0) return;                                                  \
        T lo = v[0], hi = v[0];                                              \
        for (int64_t i = 1; i < n; i++) {                                    \
            lo = v[i] < lo ? v[i] : lo;                                      \
            hi = v[i] > hi ? v[i] : hi;                                      \
        }                                                                    \
        if (!s->has_bounds || lo < s->min.i) s->min.i = lo;                  \
        if (!s->has_bounds || hi > s->max.i) s->max.i = hi;                  \
        s->has_bounds = true;                                                \
        s->value_count += n;                                                 \
    }
INT_STATS(pqw_stats_i32, int32_t)
INT_STATS(pqw_stats_i64, int64_t)

#define FLOAT_STATS(NAME, T)                                                 \
    void NAME(pqw_stats *s, const T *v, int64_t n) {                         \
        if (n <= 0) return;                                                  \
        int64_t nan = 0;                                                     \
        bool any = false;                                                    \
        double lo = 0, hi = 0;                                               \
        for (int64_t i = 0; i < n; i++) {                                    \
            T x = v[i];                                                      \
            if (isnan(x)) {                                                  \
                nan++;                                                       \
                continue;                                                    \
            }                                                                \
            if (!any) {                                                      \
                lo = hi = x;                                                 \
                any = true;                                                  \
            } else {                                                         \
                lo = x < lo ? x : lo;                                        \
                hi = x > hi ? x : hi;                                        \
            }                                                                \
        }                                                                    \
        s->nan_count += nan;                                                 \
        s->value_count += n;                                                 \
        if (!any) return;                                                    \
        if (!s->has_bounds || lo < s->min.d) s->min.d = lo;                  \
        if (!s->has_bounds || hi > s->max.d) s->max.d = hi;                  \
        s->has_bounds = true;                                                \
    }
FLOAT_STATS(pqw_stats_float, float)
FLOAT_STATS(pqw_stats_double, double)

/* Unsigned bytes; a proper prefix sorts first. */
static int cmp_unsigned(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t m = alen < blen ? alen : blen;
    int c = m ? memcmp(a, b, m) : 0;
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

/* Big-endian two's complement of equal width: the sign byte signed, the
 * rest unsigned. */
static int cmp_signed_be(const uint8_t *a, const uint8_t *b, size_t w) {
    if (w == 0) return 0;
    int8_t x = (int8_t)a[0], y = (int8_t)b[0];
    if (x != y) return x < y ? -1 : 1;
    return w > 1 ? memcmp(a + 1, b + 1, w - 1) : 0;
}

int pqw_stats_compare(const pqw_stats *s, const uint8_t *a, size_t alen, const uint8_t *b,
                      size_t blen) {
    switch (s->order) {
    case PQW_ORD_SIGNED_BE:
        return cmp_signed_be(a, b, alen < blen ? alen : blen);
    case PQW_ORD_I32: {
        int32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PQW_ORD_I64: {
        int64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PQW_ORD_FLOAT: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PQW_ORD_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PQW_ORD_BOOL:
        return (int)a[0] - (int)b[0];
    default:
        return cmp_unsigned(a, alen, b, blen);
    }
}

static floe_status set_buf(floe_buf *b, const void *p, size_t n) {
    floe_buf_clear(b);
    return floe_buf_append(b, p, n);
}

/* Offer one byte value as a bound. */
static floe_status offer_bytes(pqw_stats *s, const uint8_t *v, size_t n) {
    if (!s->has_bounds) {
        FLOE_TRY(set_buf(&s->bmin, v, n));
        FLOE_TRY(set_buf(&s->bmax, v, n));
        s->has_bounds = true;
        return NULL;
    }
    if (pqw_stats_compare(s, v, n, s->bmin.data, s->bmin.len) < 0)
        FLOE_TRY(set_buf(&s->bmin, v, n));
    else if (pqw_stats_compare(s, v, n, s->bmax.data, s->bmax.len) > 0)
        FLOE_TRY(set_buf(&s->bmax, v, n));
    return NULL;
}

floe_status pqw_stats_fixed(pqw_stats *s, const uint8_t *v, int64_t n) {
    size_t w = (size_t)s->width;
    if (n <= 0) return NULL;
    /* Find the extremes first, then copy them once. */
    const uint8_t *lo = v, *hi = v;
    for (int64_t i = 1; i < n; i++) {
        const uint8_t *x = v + (size_t)i * w;
        if (pqw_stats_compare(s, x, w, lo, w) < 0) lo = x;
        else if (pqw_stats_compare(s, x, w, hi, w) > 0) hi = x;
    }
    s->value_count += n;
    FLOE_TRY(offer_bytes(s, lo, w));
    return offer_bytes(s, hi, w);
}

floe_status pqw_stats_binary(pqw_stats *s, const floe_strview *v, int64_t n) {
    if (n <= 0) return NULL;
    const floe_strview *lo = &v[0], *hi = &v[0];
    for (int64_t i = 1; i < n; i++) {
        if (cmp_unsigned((const uint8_t *)v[i].data, (size_t)v[i].len,
                         (const uint8_t *)lo->data, (size_t)lo->len) < 0)
            lo = &v[i];
        else if (cmp_unsigned((const uint8_t *)v[i].data, (size_t)v[i].len,
                              (const uint8_t *)hi->data, (size_t)hi->len) > 0)
            hi = &v[i];
    }
    s->value_count += n;
    FLOE_TRY(offer_bytes(s, (const uint8_t *)lo->data, (size_t)lo->len));
    return offer_bytes(s, (const uint8_t *)hi->data, (size_t)hi->len);
}

floe_status pqw_stats_merge(pqw_stats *into, const pqw_stats *from) {
    into->null_count += from->null_count;
    into->nan_count += from->nan_count;
    into->value_count += from->value_count;
    if (!from->has_bounds) return NULL;
    switch (into->order) {
    case PQW_ORD_BOOL:
    case PQW_ORD_I32:
    case PQW_ORD_I64:
        if (!into->has_bounds || from->min.i < into->min.i) into->min.i = from->min.i;
        if (!into->has_bounds || from->max.i > into->max.i) into->max.i = from->max.i;
        into->has_bounds = true;
        return NULL;
    case PQW_ORD_FLOAT:
    case PQW_ORD_DOUBLE:
        if (!into->has_bounds || from->min.d < into->min.d) into->min.d = from->min.d;
        if (!into->has_bounds || from->max.d > into->max.d) into->max.d = from->max.d;
        into->has_bounds = true;
        return NULL;
    case PQW_ORD_NONE:
        return NULL;
    default:
        FLOE_TRY(offer_bytes(into, from->bmin.data, from->bmin.len));
        return offer_bytes(into, from->bmax.data, from->bmax.len);
    }
}

floe_status pqw_stats_bounds(const pqw_stats *s, floe_buf *min, floe_buf *max) {
    floe_buf_clear(min);
    floe_buf_clear(max);
    if (!s->has_bounds) return NULL;
    switch (s->order) {
    case PQW_ORD_BOOL: {
        uint8_t lo = (uint8_t)s->min.i, hi = (uint8_t)s->max.i;
        FLOE_TRY(floe_buf_append(min, &lo, 1));
        return floe_buf_append(max, &hi, 1);
    }
    case PQW_ORD_I32: {
        int32_t lo = (int32_t)s->min.i, hi = (int32_t)s->max.i;
        FLOE_TRY(floe_buf_append(min, &lo, 4));
        return floe_buf_append(max, &hi, 4);
    }
    case PQW_ORD_I64:
        FLOE_TRY(floe_buf_append(min, &s->min.i, 8));
        return floe_buf_append(max, &s->max.i, 8);
    case PQW_ORD_FLOAT: {
        float lo = (float)s->min.d, hi = (float)s->max.d;
        if (lo == 0) lo = -0.0f;
        if (hi == 0) hi = 0.0f;
        FLOE_TRY(floe_buf_append(min, &lo, 4));
        return floe_buf_append(max, &hi, 4);
    }
    case PQW_ORD_DOUBLE: {
        double lo = s->min.d, hi = s->max.d;
        if (lo == 0) lo = -0.0;
        if (hi == 0) hi = 0.0;
        FLOE_TRY(floe_buf_append(min, &lo, 8));
        return floe_buf_append(max, &hi, 8);
    }
    case PQW_ORD_NONE:
        return NULL;
    default:
        FLOE_TRY(floe_buf_append(min, s->bmin.data, s->bmin.len));
        return floe_buf_append(max, s->bmax.data, s->bmax.len);
    }
}

/* Length of the longest prefix of v[0..n) that is <= limit bytes and, for
 * UTF-8, does not split a character. */
static size_t cut_point(const uint8_t *v, size_t n, size_t limit, bool utf8) {
    if (n <= limit) return n;
    size_t k = limit;
    if (utf8)
        while (k > 0 && (v[k] & 0xC0) == 0x80) k--; /* v[k] continues a character */
    return k;
}

void pqw_truncate_min(floe_buf *v, int32_t limit, bool utf8, bool *exact) {
    *exact = true;
    if (limit <= 0 || v->len <= (size_t)limit) return;
    size_t k = cut_point(v->data, v->len, (size_t)limit, utf8);
    v->len = k;
    v->data[k] = 0;
    *exact = false;
}

/* Decode the UTF-8 character starting at p (len bytes available); returns
 * its length, or 0 when malformed. */
static size_t utf8_char(const uint8_t *p, size_t len, uint32_t *cp) {
    uint8_t c = p[0];
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
             : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!n || n > len) return 0;
    uint32_t v = n == 1 ? c : n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (p[i] & 0x3Fu);
    }
    *cp = v;
    return n;
}

static size_t utf8_put(uint8_t *p, uint32_t cp) {
    if (cp < 0x80) {
        p[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        p[0] = (uint8_t)(0xC0 | (cp >> 6));
        p[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        p[0] = (uint8_t)(0xE0 | (cp >> 12));
        p[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        p[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    p[0] = (uint8_t)(0xF0 | (cp >> 18));
    p[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    p[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    p[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* UTF-8 max: drop characters from the end of the prefix until one can be
 * incremented to a valid character (skipping the surrogate range); the
 * result is a valid string greater than every string with that prefix. */
static bool truncate_max_utf8(floe_buf *v, size_t k) {
    while (k > 0) {
        size_t start = k - 1;
        while (start > 0 && (v->data[start] & 0xC0) == 0x80) start--;
        uint32_t cp;
        size_t n = utf8_char(v->data + start, k - start, &cp);
        if (n != k - start) return false; /* malformed: give up, keep whole */
        uint32_t next = cp + 1;
        if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
        if (next <= 0x10FFFF) {
            uint8_t tmp[4];
            size_t m = utf8_put(tmp, next);       /* may be longer than n */
            if (start + m > v->len) return false; /* does not fit: keep whole */
            memcpy(v->data + start, tmp, m);
            v->len = start + m;
            v->data[v->len] = 0;
            return true;
        }
        k = start;
    }
    return false;
}

void pqw_truncate_max(floe_buf *v, int32_t limit, bool utf8, bool *exact) {
    *exact = true;
    if (limit <= 0 || v->len <= (size_t)limit) return;
    size_t k = cut_point(v->data, v->len, (size_t)limit, utf8);
    if (utf8) {
        if (truncate_max_utf8(v, k)) *exact = false;
        return;
    }
    /* Bytes: increment the last byte that is not 0xff, dropping those after. */
    while (k > 0 && v->data[k - 1] == 0xFF) k--;
    if (k == 0) return; /* all 0xff: no shorter upper bound; keep it whole */
    v->data[k - 1]++;
    v->len = k;
    v->data[k] = 0;
    *exact = false;
}
