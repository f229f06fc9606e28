/*
 * row_filter.c — may a stripe or row group match a predicate, going by its
 * ORC column statistics? (reader.h describes the rules.)  Anything unknown
 * answers "may match".
 */
#include <math.h>
#include <string.h>

#include "formats/orc/reader.h"

#define DAY_MS 86400000LL

typedef enum dom { D_INT, D_DOUBLE, D_BYTES, D_DECIMAL, D_NONE } dom;

static dom domain_of(int kind) {
    switch (kind) {
    case FLOE_ORC_BOOLEAN: case FLOE_ORC_BYTE: case FLOE_ORC_SHORT: case FLOE_ORC_INT:
    case FLOE_ORC_LONG: case FLOE_ORC_DATE: case FLOE_ORC_TIMESTAMP:
    case FLOE_ORC_TIMESTAMP_INSTANT: return D_INT;
    case FLOE_ORC_FLOAT: case FLOE_ORC_DOUBLE: return D_DOUBLE;
    case FLOE_ORC_STRING: case FLOE_ORC_VARCHAR: case FLOE_ORC_CHAR: case FLOE_ORC_BINARY: return D_BYTES;
    case FLOE_ORC_DECIMAL: return D_DECIMAL;
    default: return D_NONE;
    }
}

floe_status floe_orc_predicate_check(const floe_orc_column *col, const floe_orc_predicate *p) {
    dom d = domain_of(col->kind);
    if (d == D_NONE)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "a predicate cannot test a %s column",
                          floe_orc_kind_name(col->kind));
    if (p->op == FLOE_ORC_OP_IS_NULL || p->op == FLOE_ORC_OP_NOT_NULL) return NULL;
    int need = p->op == FLOE_ORC_OP_IN ? -1 : 1;
    if (!p->values || p->num_values < 1 || (need == 1 && p->num_values != 1))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "predicate needs %s value%s",
                          need == 1 ? "one" : "at least one", need == 1 ? "" : "s");
    for (int i = 0; i < p->num_values; i++) {
        floe_orc_value_kind k = p->values[i].kind;
        bool ok = (d == D_INT && k == FLOE_ORC_VAL_INT) ||
                  (d == D_DOUBLE && (k == FLOE_ORC_VAL_DOUBLE || k == FLOE_ORC_VAL_INT)) ||
                  (d == D_BYTES && k == FLOE_ORC_VAL_BYTES) ||
                  (d == D_DECIMAL && (k == FLOE_ORC_VAL_DECIMAL || k == FLOE_ORC_VAL_INT));
        if (!ok)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "value %d cannot be compared with a %s column",
                              i, floe_orc_kind_name(col->kind));
    }
    return NULL;
}

/* -1, 0, 1 comparisons over the column's domain */
static int cmp_i(int64_t a, int64_t b) { return a < b ? -1 : a > b; }
static int cmp_d(double a, double b) { return a < b ? -1 : a > b; }
static int cmp_b(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return al < bl ? -1 : al > bl;
}
static int cmp_128(__int128 a, __int128 b) { return a < b ? -1 : a > b; }

/* "123.45" -> unscaled at `scale`; lo rounds down, hi rounds up. */
static bool parse_decimal(const floe_orc_bytes *s, int scale, __int128 *lo, __int128 *hi) {
    if (!s->set) return false;
    const char *p = (const char *)s->data;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+') p++;
    __int128 v = 0;
    int frac = -1;
    bool inexact = false, any = false;
    for (; *p; p++) {
        if (*p == '.') {
            if (frac >= 0) return false;
            frac = 0;
            continue;
        }
        if (*p < '0' || *p > '9') return false;
        any = true;
        if (frac >= 0 && frac >= scale) {
            if (*p != '0') inexact = true;
            continue;
        }
        if (v > (__int128)1 << 120) return false;
        v = v * 10 + (*p - '0');
        if (frac >= 0) frac++;
    }
    if (!any) return false;
    for (int f = frac < 0 ? 0 : frac; f < scale; f++) v *= 10;
    if (neg) v = -v;
    *lo = *hi = v;
    if (inexact) {
        if (neg) *lo = v - 1;
        else *hi = v + 1;
    }
    return true;
}

bool floe_orc_stats_may_match(const floe_orc_column *col, floe_orc_ts_unit unit,
                              const floe_orc_stats *s, const floe_orc_predicate *p) {
    bool known_counts = s->has_num_values;
    if (p->op == FLOE_ORC_OP_IS_NULL) return !s->has_has_null || s->has_null;
    if (known_counts && s->num_values == 0 && s->has_has_null) return false; /* all null */
    if (p->op == FLOE_ORC_OP_NOT_NULL) return true;
    dom d = domain_of(col->kind);
    /* bounds: [lo, hi] in the predicate's domain */
    int64_t ilo = 0, ihi = 0;
    double dlo = 0, dhi = 0;
    __int128 xlo = 0, xhi = 0;
    const floe_orc_bytes *blo = NULL, *bhi = NULL;
    switch (col->kind) {
    case FLOE_ORC_BYTE: case FLOE_ORC_SHORT: case FLOE_ORC_INT: case FLOE_ORC_LONG: case FLOE_ORC_DATE:
        if ((s->kind != FLOE_ORC_STATS_INT && s->kind != FLOE_ORC_STATS_DATE) || !s->has_min || !s->has_max)
            return true;
        ilo = s->int_min;
        ihi = s->int_max;
        break;
    case FLOE_ORC_TIMESTAMP:
    case FLOE_ORC_TIMESTAMP_INSTANT: {
        if (s->kind != FLOE_ORC_STATS_TIMESTAMP || !s->has_min || !s->has_max) return true;
        int64_t mn = s->has_utc ? s->ts_min_utc : s->ts_min, mx = s->has_utc ? s->ts_max_utc : s->ts_max;
        int64_t per_ms = unit == FLOE_ORC_TS_NS ? 1000000 : 1000;
        if (mn < INT64_MIN / per_ms + 2 * DAY_MS || mx > INT64_MAX / per_ms - 2 * DAY_MS) return true;
        ilo = (mn - DAY_MS) * per_ms;
        ihi = (mx + DAY_MS + 1) * per_ms;
        break;
    }
    case FLOE_ORC_FLOAT: case FLOE_ORC_DOUBLE:
        if (s->kind != FLOE_ORC_STATS_DOUBLE || !s->has_min || !s->has_max) return true;
        dlo = s->dbl_min;
        dhi = s->dbl_max;
        if (isnan(dlo) || isnan(dhi)) return true;
        /* a float's bounds were widened to double by the writer */
        break;
    case FLOE_ORC_STRING: case FLOE_ORC_VARCHAR: case FLOE_ORC_CHAR:
        if (s->kind != FLOE_ORC_STATS_STRING) return true;
        blo = s->str_lower.set ? &s->str_lower : s->has_min ? &s->str_min : NULL;
        bhi = s->str_upper.set ? &s->str_upper : s->has_max ? &s->str_max : NULL;
        if (!blo || !bhi) return true;
        break;
    case FLOE_ORC_DECIMAL: {
        if (s->kind != FLOE_ORC_STATS_DECIMAL) return true;
        __int128 a, b;
        int scale = col->precision ? (int)col->scale : FLOE_ORC_HIVE11_DECIMAL_SCALE;
        if (!parse_decimal(&s->str_min, scale, &xlo, &a) || !parse_decimal(&s->str_max, scale, &b, &xhi))
            return true;
        break;
    }
    default:
        return true; /* boolean, binary: no usable bounds */
    }
    for (int i = 0; i < p->num_values; i++) {
        const floe_orc_value *v = &p->values[i];
        int c_lo, c_hi; /* value compared with lo and hi */
        if (d == D_INT) {
            c_lo = cmp_i(v->i, ilo);
            c_hi = cmp_i(v->i, ihi);
        } else if (d == D_DOUBLE) {
            double x = v->kind == FLOE_ORC_VAL_INT ? (double)v->i : v->d;
            if (isnan(x)) return true;
            c_lo = cmp_d(x, dlo);
            c_hi = cmp_d(x, dhi);
        } else if (d == D_BYTES) {
            c_lo = cmp_b(v->bytes, v->len, blo->data, blo->len);
            c_hi = cmp_b(v->bytes, v->len, bhi->data, bhi->len);
        } else {
            __int128 x = v->kind == FLOE_ORC_VAL_INT
                             ? (__int128)v->i
                             : (__int128)((unsigned __int128)(uint64_t)v->hi << 64 | v->lo);
            c_lo = cmp_128(x, xlo);
            c_hi = cmp_128(x, xhi);
        }
        bool m;
        switch (p->op) {
        case FLOE_ORC_OP_EQ:
        case FLOE_ORC_OP_IN: m = c_lo >= 0 && c_hi <= 0; break;
        case FLOE_ORC_OP_LT: m = c_lo > 0; break;   /* lo < v */
        case FLOE_ORC_OP_LE: m = c_lo >= 0; break;
        case FLOE_ORC_OP_GT: m = c_hi < 0; break;   /* hi > v */
        case FLOE_ORC_OP_GE: m = c_hi <= 0; break;
        default: m = true;
        }
        if (m) return true;
    }
    return false;
}

/* ---------------------------------------------------------- bloom filters */

/* Thomas Wang's 64-bit integer hash, as ORC's writers use for numbers. */
uint64_t floe_orc_bloom_hash_long(uint64_t key) {
    key = (~key) + (key << 21);
    key = key ^ (uint64_t)((int64_t)key >> 24);
    key = (key + (key << 3)) + (key << 8);
    key = key ^ (uint64_t)((int64_t)key >> 14);
    key = (key + (key << 2)) + (key << 4);
    key = key ^ (uint64_t)((int64_t)key >> 28);
    key = key + (key << 31);
    return key;
}

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* Murmur3's 64-bit variant (seed 104729), as ORC's writers use for bytes. */
uint64_t floe_orc_bloom_hash_bytes(const uint8_t *d, size_t len) {
    const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
    uint64_t h = 104729;
    size_t blocks = len / 8;
    for (size_t i = 0; i < blocks; i++) {
        uint64_t k;
        memcpy(&k, d + 8 * i, 8);
        k *= c1;
        k = rotl64(k, 31);
        k *= c2;
        h ^= k;
        h = rotl64(h, 27);
        h = h * 5 + 0x52dce729;
    }
    uint64_t k = 0;
    size_t tail = len & 7;
    for (size_t i = tail; i > 0; i--) k ^= (uint64_t)d[blocks * 8 + i - 1] << (8 * (i - 1));
    if (tail) {
        k *= c1;
        k = rotl64(k, 31);
        k *= c2;
        h ^= k;
    }
    h ^= (uint64_t)len;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static bool test_hash(const floe_orc_bloom_filter *bf, uint64_t h64) {
    uint64_t bits = (uint64_t)bf->num_words * 64;
    int32_t h1 = (int32_t)(uint32_t)(h64 & 0xffffffffu), h2 = (int32_t)(uint32_t)(h64 >> 32);
    for (uint32_t i = 1; i <= bf->num_hash_functions; i++) {
        int32_t c = (int32_t)((uint32_t)h1 + i * (uint32_t)h2);
        if (c < 0) c = ~c;
        uint64_t pos = (uint64_t)c % bits;
        if (!((bf->bitset[pos >> 6] >> (pos & 63)) & 1)) return false;
    }
    return true;
}

bool floe_orc_bloom_may_match(const floe_orc_column *col, const floe_orc_bloom_filter *bf,
                              bool utf8_filter, const floe_orc_predicate *p) {
    if (p->op != FLOE_ORC_OP_EQ && p->op != FLOE_ORC_OP_IN) return true;
    if (!bf->usable || !bf->num_words || !bf->num_hash_functions || !bf->bitset) return true;
    for (int i = 0; i < p->num_values; i++) {
        const floe_orc_value *v = &p->values[i];
        switch (col->kind) {
        case FLOE_ORC_BYTE: case FLOE_ORC_SHORT: case FLOE_ORC_INT: case FLOE_ORC_LONG: case FLOE_ORC_DATE:
            if (test_hash(bf, floe_orc_bloom_hash_long((uint64_t)v->i))) return true;
            break;
        case FLOE_ORC_FLOAT: case FLOE_ORC_DOUBLE: {
            double x = v->kind == FLOE_ORC_VAL_INT ? (double)v->i : v->d;
            if (isnan(x) || x == 0) return true; /* NaN payloads, -0.0 vs 0.0 */
            uint64_t bitsx;
            memcpy(&bitsx, &x, 8);
            if (test_hash(bf, floe_orc_bloom_hash_long(bitsx))) return true;
            break;
        }
        case FLOE_ORC_STRING: case FLOE_ORC_VARCHAR: case FLOE_ORC_CHAR:
            /* before ORC-101 strings were hashed in the writer's charset */
            if (!utf8_filter || test_hash(bf, floe_orc_bloom_hash_bytes(v->bytes, v->len))) return true;
            break;
        default:
            return true;
        }
    }
    return false;
}
