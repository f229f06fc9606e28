/*
 * value.c — typed single values (see floe/iceberg_value.h): constructors,
 * ordering, the spec's Appendix D binary and JSON single-value forms, and
 * the ISO-8601 / decimal / uuid / hex text forms they are built from.
 *
 * All calendar arithmetic is proleptic Gregorian in UTC with floor
 * semantics, so values before 1970 format and parse correctly.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

#define MICROS_PER_SECOND 1000000LL
#define MICROS_PER_DAY 86400000000LL
#define NANOS_PER_DAY 86400000000000LL

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory handling an Iceberg value"); }

/* ---- constructors ------------------------------------------------------- */

static floe_ice_value mk(floe_ice_type_id t) {
    floe_ice_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    return v;
}

floe_ice_value floe_ice_null(floe_ice_type_id type) {
    floe_ice_value v = mk(type);
    v.is_null = true;
    return v;
}
floe_ice_value floe_ice_bool(bool b) { floe_ice_value v = mk(FLOE_ICE_BOOLEAN); v.v.b = b; return v; }
floe_ice_value floe_ice_int(int32_t x) { floe_ice_value v = mk(FLOE_ICE_INT); v.v.i32 = x; return v; }
floe_ice_value floe_ice_long(int64_t x) { floe_ice_value v = mk(FLOE_ICE_LONG); v.v.i64 = x; return v; }
floe_ice_value floe_ice_float(float x) { floe_ice_value v = mk(FLOE_ICE_FLOAT); v.v.f32 = x; return v; }
floe_ice_value floe_ice_double(double x) { floe_ice_value v = mk(FLOE_ICE_DOUBLE); v.v.f64 = x; return v; }
floe_ice_value floe_ice_decimal(floe_int128 unscaled, int32_t scale) {
    floe_ice_value v = mk(FLOE_ICE_DECIMAL);
    v.v.dec = unscaled;
    v.scale = scale;
    return v;
}
floe_ice_value floe_ice_date(int32_t d) { floe_ice_value v = mk(FLOE_ICE_DATE); v.v.i32 = d; return v; }
floe_ice_value floe_ice_time(int64_t x) { floe_ice_value v = mk(FLOE_ICE_TIME); v.v.i64 = x; return v; }
floe_ice_value floe_ice_timestamp(int64_t x) { floe_ice_value v = mk(FLOE_ICE_TIMESTAMP); v.v.i64 = x; return v; }
floe_ice_value floe_ice_timestamptz(int64_t x) { floe_ice_value v = mk(FLOE_ICE_TIMESTAMPTZ); v.v.i64 = x; return v; }
floe_ice_value floe_ice_timestamp_ns(int64_t x) { floe_ice_value v = mk(FLOE_ICE_TIMESTAMP_NS); v.v.i64 = x; return v; }
floe_ice_value floe_ice_timestamptz_ns(int64_t x) { floe_ice_value v = mk(FLOE_ICE_TIMESTAMPTZ_NS); v.v.i64 = x; return v; }
static floe_ice_value mk_bytes(floe_ice_type_id t, const void *p, size_t n) {
    floe_ice_value v = mk(t);
    v.v.bytes.data = p;
    v.v.bytes.len = n;
    return v;
}
floe_ice_value floe_ice_string(const char *s, size_t len) { return mk_bytes(FLOE_ICE_STRING, s, len); }
floe_ice_value floe_ice_string_z(const char *s) { return mk_bytes(FLOE_ICE_STRING, s, strlen(s)); }
floe_ice_value floe_ice_uuid(const uint8_t b[16]) { floe_ice_value v = mk(FLOE_ICE_UUID); memcpy(v.v.uuid, b, 16); return v; }
floe_ice_value floe_ice_fixed(const uint8_t *d, size_t n) { return mk_bytes(FLOE_ICE_FIXED, d, n); }
floe_ice_value floe_ice_binary(const uint8_t *d, size_t n) { return mk_bytes(FLOE_ICE_BINARY, d, n); }

static bool has_bytes(floe_ice_type_id t) {
    return t == FLOE_ICE_STRING || t == FLOE_ICE_FIXED || t == FLOE_ICE_BINARY;
}

floe_status floe_ice_value_copy(const floe_ice_value *src, floe_ice_value *dst) {
    floe_ice_value c = *src;
    c.owns_bytes = false;
    if (!src->is_null && has_bytes(src->type)) {
        /* One extra NUL so a copied string is also a C string. */
        uint8_t *p = floe_malloc(src->v.bytes.len + 1);
        if (!p) return oom();
        if (src->v.bytes.len) memcpy(p, src->v.bytes.data, src->v.bytes.len);
        p[src->v.bytes.len] = 0;
        c.v.bytes.data = p;
        c.owns_bytes = true;
    }
    *dst = c;
    return NULL;
}

void floe_ice_value_free(floe_ice_value *v) {
    if (!v) return;
    if (v->owns_bytes) floe_free((void *)v->v.bytes.data);
    floe_ice_type_id t = v->type;
    *v = floe_ice_null(t);
}

/* ---- promotion ---------------------------------------------------------- */

floe_status floe_ice_value_promote(const floe_ice_value *v, const floe_ice_type *to, floe_ice_value *out) {
    if (v->type == to->id && (to->id != FLOE_ICE_DECIMAL || v->scale == to->scale)) {
        *out = *v;
        out->owns_bytes = false;
        return NULL;
    }
    if (v->is_null || v->type == FLOE_ICE_UNKNOWN) {
        *out = floe_ice_null(to->id);
        return NULL;
    }
    *out = floe_ice_null(to->id);
    switch (v->type) {
    case FLOE_ICE_INT:
        if (to->id != FLOE_ICE_LONG) break;
        *out = floe_ice_long(v->v.i32);
        return NULL;
    case FLOE_ICE_FLOAT:
        if (to->id != FLOE_ICE_DOUBLE) break;
        *out = floe_ice_double((double)v->v.f32);
        return NULL;
    case FLOE_ICE_DECIMAL:
        /* Only precision widens; the scale is fixed by the spec. */
        break;
    case FLOE_ICE_DATE: {
        int64_t unit = to->id == FLOE_ICE_TIMESTAMP ? MICROS_PER_DAY : to->id == FLOE_ICE_TIMESTAMP_NS ? NANOS_PER_DAY : 0;
        if (!unit) break;
        int64_t x;
        if (__builtin_mul_overflow((int64_t)v->v.i32, unit, &x))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "date %d is out of range for %s", v->v.i32,
                              floe_ice_type_id_name(to->id));
        *out = floe_ice_long(x);
        out->type = to->id;
        return NULL;
    }
    default: break;
    }
    return floe_error(FLOE_ERR_TYPE, "cannot promote a %s value to %s", floe_ice_type_id_name(v->type),
                      floe_ice_type_id_name(to->id));
}

/* ---- comparison --------------------------------------------------------- */

/* Map IEEE bits to an integer with the same total order. */
static int64_t double_key(double d) {
    int64_t bits;
    if (isnan(d)) d = signbit(d) ? -NAN : NAN; /* all NaNs of a sign are equal */
    memcpy(&bits, &d, 8);
    return bits < 0 ? (int64_t)((uint64_t)bits ^ 0x7fffffffffffffffULL) : bits;
}
static int32_t float_key(float f) {
    int32_t bits;
    if (isnan(f)) f = signbit(f) ? -NAN : NAN;
    memcpy(&bits, &f, 4);
    return bits < 0 ? (int32_t)((uint32_t)bits ^ 0x7fffffffU) : bits;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

static int bytes_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
    size_t n = na < nb ? na : nb;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return CMP(na, nb);
}

static floe_int128 pow10_tab(int k);

/* Compare a*10^sa with b*10^sb (decimals with scales). */
static int decimal_cmp(floe_int128 a, int32_t sa, floe_int128 b, int32_t sb) {
    if (sa == sb) return CMP(a, b);
    if ((a < 0) != (b < 0)) return a < 0 ? -1 : 1;
    /* Bring to the larger scale; if that overflows, the rescaled value is
     * larger in magnitude than anything the other can hold. */
    bool swap = sa > sb;
    floe_int128 lo = swap ? b : a, hi = swap ? a : b; /* lo has the smaller scale */
    int diff = swap ? sa - sb : sb - sa;
    int r;
    if (diff > 38) {
        r = lo == 0 ? CMP(0, hi) : (lo > 0 ? 1 : -1);
    } else {
        floe_int128 p = pow10_tab(diff), scaled;
        if (__builtin_mul_overflow(lo, p, &scaled)) r = lo > 0 ? 1 : -1;
        else r = CMP(scaled, hi);
    }
    return swap ? -r : r;
}

int floe_ice_value_compare(const floe_ice_value *a, const floe_ice_value *b) {
    if (a->is_null || b->is_null) return CMP(!a->is_null, !b->is_null);
    if (a->type != b->type) return CMP(a->type, b->type);
    switch (a->type) {
    case FLOE_ICE_BOOLEAN: return CMP(a->v.b, b->v.b);
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE: return CMP(a->v.i32, b->v.i32);
    case FLOE_ICE_LONG:
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS: return CMP(a->v.i64, b->v.i64);
    case FLOE_ICE_FLOAT: return CMP(float_key(a->v.f32), float_key(b->v.f32));
    case FLOE_ICE_DOUBLE: return CMP(double_key(a->v.f64), double_key(b->v.f64));
    case FLOE_ICE_DECIMAL: return decimal_cmp(a->v.dec, a->scale, b->v.dec, b->scale);
    case FLOE_ICE_UUID: return bytes_cmp(a->v.uuid, 16, b->v.uuid, 16);
    case FLOE_ICE_STRING:
    case FLOE_ICE_FIXED:
    case FLOE_ICE_BINARY:
        return bytes_cmp(a->v.bytes.data, a->v.bytes.len, b->v.bytes.data, b->v.bytes.len);
    default: return 0; /* unknown is always null; the rest have no values */
    }
}

bool floe_ice_value_equals(const floe_ice_value *a, const floe_ice_value *b) {
    if (a->type != b->type || a->is_null != b->is_null) return false;
    return floe_ice_value_compare(a, b) == 0;
}

/* 64-bit mixing (splitmix64 finalizer) over a value's canonical bytes. */
static uint64_t mix64(uint64_t h) {
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

static uint64_t hash_bytes64(const uint8_t *p, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return mix64(h ^ n);
}

uint64_t floe_ice_value_hash64(const floe_ice_value *v, uint64_t seed) {
    uint64_t h = mix64(seed ^ ((uint64_t)v->type << 56) ^ 0x9e3779b97f4a7c15ULL);
    if (v->is_null) return mix64(h ^ 0x6e756c6cULL);
    switch (v->type) {
    case FLOE_ICE_BOOLEAN: return mix64(h ^ (v->v.b ? 1 : 2));
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE: return mix64(h ^ (uint64_t)(int64_t)v->v.i32);
    case FLOE_ICE_FLOAT:
    case FLOE_ICE_DOUBLE: {
        /* Equal under the total order means equal bits, except all NaNs
         * compare equal; fold them together. */
        double d = v->type == FLOE_ICE_FLOAT ? (double)v->v.f32 : v->v.f64;
        uint64_t bits;
        if (isnan(d)) bits = signbit(d) ? 0xfff8000000000000ULL : 0x7ff8000000000000ULL;
        else if (v->type == FLOE_ICE_FLOAT) bits = (uint64_t)float_key(v->v.f32);
        else memcpy(&bits, &d, 8);
        return mix64(h ^ bits);
    }
    case FLOE_ICE_DECIMAL: {
        /* Decimals equal across scales must hash alike: strip trailing
         * decimal zeros first. */
        floe_int128 u = v->v.dec;
        int64_t sc = v->scale;
        while (u != 0 && u % 10 == 0) {
            u /= 10;
            sc--;
        }
        if (u == 0) sc = 0;
        uint64_t lo = (uint64_t)u, hi = (uint64_t)((unsigned __int128)u >> 64);
        return mix64(mix64(h ^ lo) ^ hi ^ (uint64_t)sc);
    }
    case FLOE_ICE_UUID: return hash_bytes64(v->v.uuid, 16, h);
    case FLOE_ICE_STRING:
    case FLOE_ICE_FIXED:
    case FLOE_ICE_BINARY: return hash_bytes64(v->v.bytes.data, v->v.bytes.len, h);
    default: return mix64(h ^ (uint64_t)v->v.i64);
    }
}

/* ---- 128-bit helpers ---------------------------------------------------- */

static floe_int128 pow10_tab(int k) {
    floe_int128 p = 1;
    for (int i = 0; i < k; i++) p *= 10;
    return p;
}

size_t floe_ice_int128_min_bytes(floe_int128 v, uint8_t dst[16]) {
    uint8_t be[16];
    unsigned __int128 u = (unsigned __int128)v;
    for (int i = 15; i >= 0; i--) {
        be[i] = (uint8_t)u;
        u >>= 8;
    }
    /* Drop leading bytes that only repeat the sign of the next byte. */
    int start = 0;
    while (start < 15) {
        uint8_t b = be[start], next = be[start + 1];
        if ((b == 0x00 && !(next & 0x80)) || (b == 0xff && (next & 0x80))) start++;
        else break;
    }
    size_t n = (size_t)(16 - start);
    memcpy(dst, be + start, n);
    return n;
}

/* Digits of |v| into buf (no sign); returns the count. */
static int u128_digits(unsigned __int128 u, char buf[48]) {
    char tmp[48];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    return n;
}

static unsigned __int128 u128_abs(floe_int128 v) {
    return v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
}

/* Java BigDecimal.toString(): plain when scale >= 0 and the adjusted
 * exponent is >= -6, otherwise scientific ("2E+20", "1.5E-8"). */
floe_status floe_ice_decimal_append(floe_buf *b, floe_int128 unscaled, int32_t scale) {
    char d[48];
    int nd = u128_digits(u128_abs(unscaled), d);
    if (unscaled < 0) FLOE_TRY(floe_buf_append_byte(b, '-'));
    int64_t adjusted = -(int64_t)scale + (nd - 1);
    if (scale >= 0 && adjusted >= -6) {
        if (scale == 0) return floe_buf_append(b, d, (size_t)nd);
        if (nd > scale) {
            FLOE_TRY(floe_buf_append(b, d, (size_t)(nd - scale)));
            FLOE_TRY(floe_buf_append_byte(b, '.'));
            return floe_buf_append(b, d + nd - scale, (size_t)scale);
        }
        FLOE_TRY(floe_buf_append_str(b, "0."));
        for (int i = 0; i < scale - nd; i++) FLOE_TRY(floe_buf_append_byte(b, '0'));
        return floe_buf_append(b, d, (size_t)nd);
    }
    FLOE_TRY(floe_buf_append_byte(b, (uint8_t)d[0]));
    if (nd > 1) {
        FLOE_TRY(floe_buf_append_byte(b, '.'));
        FLOE_TRY(floe_buf_append(b, d + 1, (size_t)nd - 1));
    }
    return floe_buf_printf(b, "E%c%lld", adjusted >= 0 ? '+' : '-', (long long)(adjusted < 0 ? -adjusted : adjusted));
}

/* Parse decimal text ("14.20", "-0.05", "2E+20") to unscaled at `scale`,
 * checking it fits `precision` (0 = no check). */
static floe_status parse_decimal(const char *s, int32_t precision, int32_t scale, floe_int128 *out) {
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    unsigned __int128 u = 0;
    int sig = 0, frac = 0, ndig = 0;
    bool dot = false;
    for (;; p++) {
        if (*p == '.' && !dot) {
            dot = true;
            continue;
        }
        if (!isdigit((unsigned char)*p)) break;
        ndig++;
        if (dot) frac++;
        if (u == 0 && *p == '0') continue;
        if (++sig > 38) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decimal '%s' has more than 38 digits", s);
        u = u * 10 + (unsigned)(*p - '0');
    }
    if (ndig == 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid decimal '%s'", s);
    long exp = 0;
    if (*p == 'e' || *p == 'E') {
        char *end;
        errno = 0;
        exp = strtol(p + 1, &end, 10);
        if (end == p + 1 || errno || exp > 1000 || exp < -1000)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid decimal exponent in '%s'", s);
        p = end;
    }
    if (*p) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid decimal '%s'", s);
    long vscale = frac - exp; /* value = u * 10^-vscale */
    if (u != 0) {
        while (vscale > scale) {
            if (u % 10 != 0)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decimal '%s' has more than %d fraction digits", s, scale);
            u /= 10;
            vscale--;
        }
        while (vscale < scale) {
            if (u > (~(unsigned __int128)0) / 10) goto too_big;
            u *= 10;
            vscale++;
        }
    }
    char d[48];
    int nd = u128_digits(u, d);
    if (nd > 38 || (precision > 0 && u != 0 && nd > precision)) goto too_big;
    *out = neg ? -(floe_int128)u : (floe_int128)u;
    return NULL;
too_big:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "decimal '%s' does not fit decimal(%d,%d)", s,
                      precision ? precision : 38, scale);
}

/* ---- calendar ----------------------------------------------------------- */

/* Days from 1970-01-01 of a civil date (H. Hinnant's era arithmetic). */
int64_t floe_ice_days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void floe_ice_civil_from_days(int64_t z, int64_t *year, int *month, int *day) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int d = (int)(doy - (153 * mp + 2) / 5 + 1);
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = y + (m <= 2);
    *month = m;
    *day = d;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static int days_in_month(int64_t y, int m) {
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

static floe_status append_date(floe_buf *b, int64_t days) {
    int64_t y;
    int m, d;
    floe_ice_civil_from_days(days, &y, &m, &d);
    if (y > 9999) return floe_buf_printf(b, "+%lld-%02d-%02d", (long long)y, m, d);
    if (y < 0) return floe_buf_printf(b, "-%04lld-%02d-%02d", (long long)-y, m, d);
    return floe_buf_printf(b, "%04lld-%02d-%02d", (long long)y, m, d);
}

/* "HH:MM:SS.ffffff" (digits = 6) or ".fffffffff" (9) of a time of day. */
static floe_status append_tod(floe_buf *b, int64_t units, int64_t per_sec, int digits) {
    int64_t secs = units / per_sec, frac = units % per_sec;
    return floe_buf_printf(b, "%02d:%02d:%02d.%0*lld", (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60),
                           digits, (long long)frac);
}

static floe_status append_timestamp(floe_buf *b, int64_t v, bool nanos, bool tz) {
    int64_t per_day = nanos ? NANOS_PER_DAY : MICROS_PER_DAY;
    int64_t days = floe_ice_floordiv(v, per_day), tod = floe_ice_floormod(v, per_day);
    FLOE_TRY(append_date(b, days));
    FLOE_TRY(floe_buf_append_byte(b, 'T'));
    FLOE_TRY(append_tod(b, tod, nanos ? 1000000000LL : MICROS_PER_SECOND, nanos ? 9 : 6));
    return tz ? floe_buf_append_str(b, "+00:00") : NULL;
}

/* A cursor over text being parsed. */
typedef struct {
    const char *p;
} cur;

static bool take_digits(cur *c, int n, int64_t *out) {
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)c->p[i])) return false;
        v = v * 10 + (c->p[i] - '0');
    }
    c->p += n;
    *out = v;
    return true;
}

static bool parse_date_at(cur *c, int64_t *days) {
    int64_t y, m, d;
    bool neg = false;
    if (*c->p == '+' || *c->p == '-') neg = *c->p++ == '-';
    const char *start = c->p;
    while (isdigit((unsigned char)*c->p)) c->p++;
    int ny = (int)(c->p - start);
    if (ny < 4 || ny > 9) return false;
    c->p = start;
    if (!take_digits(c, ny, &y)) return false;
    if (neg) y = -y;
    if (*c->p++ != '-' || !take_digits(c, 2, &m) || *c->p++ != '-' || !take_digits(c, 2, &d)) return false;
    if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, (int)m)) return false;
    *days = floe_ice_days_from_civil(y, (int)m, (int)d);
    return true;
}

/* HH:MM[:SS[.f{1,9}]] -> nanoseconds of the day. */
static bool parse_tod_at(cur *c, int64_t *nanos) {
    int64_t h, mi, s = 0, frac = 0;
    if (!take_digits(c, 2, &h) || *c->p++ != ':' || !take_digits(c, 2, &mi)) return false;
    if (*c->p == ':') {
        c->p++;
        if (!take_digits(c, 2, &s)) return false;
        if (*c->p == '.') {
            c->p++;
            int n = 0;
            while (isdigit((unsigned char)*c->p)) {
                if (n < 9) frac = frac * 10 + (*c->p - '0');
                n++;
                c->p++;
            }
            if (n == 0 || n > 9) return false;
            for (; n < 9; n++) frac *= 10;
        }
    }
    if (h > 23 || mi > 59 || s > 59) return false;
    *nanos = ((h * 60 + mi) * 60 + s) * 1000000000LL + frac;
    return true;
}

/* Z, +HH:MM, -HH:MM, +HHMM, +HH -> offset seconds east of UTC. */
static bool parse_offset_at(cur *c, int64_t *secs) {
    if (*c->p == 'Z' || *c->p == 'z') {
        c->p++;
        *secs = 0;
        return true;
    }
    if (*c->p != '+' && *c->p != '-') return false;
    int sign = *c->p++ == '-' ? -1 : 1;
    int64_t h, m = 0;
    if (!take_digits(c, 2, &h)) return false;
    if (*c->p == ':') c->p++;
    if (isdigit((unsigned char)*c->p) && !take_digits(c, 2, &m)) return false;
    if (h > 18 || m > 59) return false;
    *secs = sign * (h * 3600 + m * 60);
    return true;
}

/* A timestamp: date [T or space] time [offset].  Returns UTC nanos or
 * micros (floor of sub-micro digits) as asked. */
static floe_status parse_timestamp(const char *s, bool tz, bool nanos, int64_t *out) {
    cur c = {s};
    int64_t days, tod, off = 0;
    if (!parse_date_at(&c, &days) || (*c.p != 'T' && *c.p != 't' && *c.p != ' ')) goto bad;
    c.p++;
    if (!parse_tod_at(&c, &tod)) goto bad;
    bool has_off = *c.p != 0;
    if (has_off && !parse_offset_at(&c, &off)) goto bad;
    if (*c.p) goto bad;
    if (tz && !has_off)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "timestamp '%s' has no zone offset (required for %s)", s,
                          nanos ? "timestamptz_ns" : "timestamptz");
    if (!tz && has_off)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "timestamp '%s' has a zone offset (not allowed for %s)", s,
                          nanos ? "timestamp_ns" : "timestamp");
    /* nanos since epoch fits int64 only for 1677..2262; compute in the
     * requested unit to cover the micros range (+-290k years). */
    __int128 total = (__int128)days * NANOS_PER_DAY + tod - (__int128)off * 1000000000LL;
    if (!nanos) {
        __int128 q = total / 1000;
        if (total % 1000 != 0 && total < 0) q--;
        total = q;
    }
    if (total > INT64_MAX || total < INT64_MIN)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "timestamp '%s' is out of range", s);
    *out = (int64_t)total;
    return NULL;
bad:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid timestamp '%s'", s);
}

/* ---- uuid and hex ------------------------------------------------------- */

static const char hexdig[] = "0123456789abcdef";

static floe_status append_uuid(floe_buf *b, const uint8_t u[16]) {
    char s[37];
    int k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s[k++] = '-';
        s[k++] = hexdig[u[i] >> 4];
        s[k++] = hexdig[u[i] & 15];
    }
    s[k] = 0;
    return floe_buf_append(b, s, 36);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool parse_uuid(const char *s, uint8_t out[16]) {
    if (strlen(s) != 36) return false;
    int k = 0;
    for (int i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i++] != '-') return false;
            continue;
        }
        int hi = hexval(s[i]), lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[k++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    return true;
}

static floe_status append_hex(floe_buf *b, const uint8_t *d, size_t n) {
    uint8_t *p = floe_buf_extend(b, n * 2);
    if (!p && n) return oom();
    for (size_t i = 0; i < n; i++) {
        p[2 * i] = (uint8_t)hexdig[d[i] >> 4];
        p[2 * i + 1] = (uint8_t)hexdig[d[i] & 15];
    }
    return NULL;
}

/* Hex text to a new block (owned by the value). */
static floe_status parse_hex(const char *s, floe_ice_type_id t, floe_ice_value *out) {
    size_t n = strlen(s);
    if (n % 2) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "hex value '%s' has an odd number of digits", s);
    uint8_t *p = floe_malloc(n / 2 + 1);
    if (!p) return oom();
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            floe_free(p);
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid hex value '%s'", s);
        }
        p[i] = (uint8_t)(hi << 4 | lo);
    }
    p[n / 2] = 0;
    *out = mk_bytes(t, p, n / 2);
    out->owns_bytes = true;
    return NULL;
}

/* ---- floating point text ------------------------------------------------ */

/* Java's Double.toString / Float.toString: the shortest digits that read
 * back as the same value, written plainly for 1e-3 <= |x| < 1e7 ("1.0",
 * "0.34234", "1234567.0") and in computerized scientific notation otherwise
 * ("1.0E10", "1.5E-5"). */
static floe_status append_real(floe_buf *b, double d, bool is_float) {
    if (isnan(d)) return floe_buf_append_str(b, "NaN");
    if (isinf(d)) return floe_buf_append_str(b, d < 0 ? "-Infinity" : "Infinity");
    if (signbit(d)) FLOE_TRY(floe_buf_append_byte(b, '-'));
    d = fabs(d);
    if (d == 0) return floe_buf_append_str(b, "0.0");
    char s[48];
    int maxp = is_float ? 9 : 17;
    for (int prec = 1; prec <= maxp; prec++) {
        snprintf(s, sizeof s, "%.*e", prec - 1, d);
        if (is_float ? strtof(s, NULL) == (float)d : strtod(s, NULL) == d) break;
    }
    /* s is "d.ddde[+-]XX": collect the digits and the exponent. */
    char digits[24];
    int nd = 0;
    const char *p = s;
    for (; *p && *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = 0;
    if (exp >= -3 && exp < 7) {
        if (exp < 0) {
            FLOE_TRY(floe_buf_append_str(b, "0."));
            for (int i = 0; i < -exp - 1; i++) FLOE_TRY(floe_buf_append_byte(b, '0'));
            return floe_buf_append(b, digits, (size_t)nd);
        }
        int ip = exp + 1; /* digits before the point */
        for (int i = 0; i < ip; i++) FLOE_TRY(floe_buf_append_byte(b, (uint8_t)(i < nd ? digits[i] : '0')));
        FLOE_TRY(floe_buf_append_byte(b, '.'));
        if (nd > ip) return floe_buf_append(b, digits + ip, (size_t)(nd - ip));
        return floe_buf_append_byte(b, '0');
    }
    FLOE_TRY(floe_buf_append_byte(b, (uint8_t)digits[0]));
    FLOE_TRY(floe_buf_append_byte(b, '.'));
    if (nd > 1) FLOE_TRY(floe_buf_append(b, digits + 1, (size_t)nd - 1));
    else FLOE_TRY(floe_buf_append_byte(b, '0'));
    return floe_buf_printf(b, "E%d", exp);
}

/* ---- binary single-value form ------------------------------------------- */

static floe_status unsupported(floe_ice_type_id t, const char *what) {
    return floe_error(FLOE_ERR_UNSUPPORTED, "%s of type '%s' is not supported", what, floe_ice_type_id_name(t));
}

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

floe_status floe_ice_value_append_bytes(floe_buf *b, const floe_ice_value *v) {
    if (v->is_null) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot serialize a null %s value",
                                      floe_ice_type_id_name(v->type));
    uint8_t tmp[16];
    switch (v->type) {
    case FLOE_ICE_BOOLEAN: return floe_buf_append_byte(b, v->v.b ? 1 : 0);
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE: put_le(tmp, (uint32_t)v->v.i32, 4); return floe_buf_append(b, tmp, 4);
    case FLOE_ICE_LONG:
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS: put_le(tmp, (uint64_t)v->v.i64, 8); return floe_buf_append(b, tmp, 8);
    case FLOE_ICE_FLOAT: {
        uint32_t bits;
        memcpy(&bits, &v->v.f32, 4);
        put_le(tmp, bits, 4);
        return floe_buf_append(b, tmp, 4);
    }
    case FLOE_ICE_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &v->v.f64, 8);
        put_le(tmp, bits, 8);
        return floe_buf_append(b, tmp, 8);
    }
    case FLOE_ICE_DECIMAL: {
        size_t n = floe_ice_int128_min_bytes(v->v.dec, tmp);
        return floe_buf_append(b, tmp, n);
    }
    case FLOE_ICE_UUID: return floe_buf_append(b, v->v.uuid, 16);
    case FLOE_ICE_STRING:
    case FLOE_ICE_FIXED:
    case FLOE_ICE_BINARY: return floe_buf_append(b, v->v.bytes.data, v->v.bytes.len);
    default: return unsupported(v->type, "binary serialization");
    }
}

floe_status floe_ice_value_to_bytes(const floe_ice_value *v, uint8_t **out, size_t *out_len) {
    floe_buf b = FLOE_BUF_INIT;
    *out = NULL;
    *out_len = 0;
    floe_status st = floe_ice_value_append_bytes(&b, v);
    if (!st && !b.data) st = floe_buf_reserve(&b, 0); /* empty string: still a block */
    if (st) {
        floe_buf_free(&b);
        return st;
    }
    *out = floe_buf_detach(&b, out_len);
    return NULL;
}

static floe_status bad_len(const floe_ice_type *t, size_t len) {
    return floe_error(FLOE_ERR_CORRUPT, "%zu-byte single value is invalid for type '%s'", len,
                      floe_ice_type_id_name(t->id));
}

floe_status floe_ice_value_from_bytes(const floe_ice_type *t, const uint8_t *d, size_t len, floe_ice_value *out) {
    *out = floe_ice_null(t->id);
    switch (t->id) {
    case FLOE_ICE_BOOLEAN:
        if (len != 1) return bad_len(t, len);
        *out = floe_ice_bool(d[0] != 0);
        return NULL;
    case FLOE_ICE_INT:
    case FLOE_ICE_DATE:
        if (len != 4) return bad_len(t, len);
        *out = t->id == FLOE_ICE_INT ? floe_ice_int((int32_t)get_le(d, 4)) : floe_ice_date((int32_t)get_le(d, 4));
        return NULL;
    case FLOE_ICE_LONG:
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMP_NS: {
        /* 4 bytes: written as int (long) or date (timestamps) before promotion. */
        int64_t v;
        if (len == 8) v = (int64_t)get_le(d, 8);
        else if (len == 4) {
            int64_t w = (int32_t)get_le(d, 4);
            int64_t unit = t->id == FLOE_ICE_LONG ? 1 : t->id == FLOE_ICE_TIMESTAMP ? MICROS_PER_DAY : NANOS_PER_DAY;
            if (__builtin_mul_overflow(w, unit, &v))
                return floe_error(FLOE_ERR_CORRUPT, "date bound %lld is out of range for type '%s'", (long long)w,
                                  floe_ice_type_id_name(t->id));
        } else return bad_len(t, len);
        *out = floe_ice_long(v);
        out->type = t->id;
        return NULL;
    }
    case FLOE_ICE_TIME:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMPTZ_NS:
        if (len != 8) return bad_len(t, len);
        *out = floe_ice_long((int64_t)get_le(d, 8));
        out->type = t->id;
        return NULL;
    case FLOE_ICE_FLOAT: {
        if (len != 4) return bad_len(t, len);
        uint32_t bits = (uint32_t)get_le(d, 4);
        float f;
        memcpy(&f, &bits, 4);
        *out = floe_ice_float(f);
        return NULL;
    }
    case FLOE_ICE_DOUBLE: {
        if (len == 4) {
            uint32_t bits = (uint32_t)get_le(d, 4);
            float f;
            memcpy(&f, &bits, 4);
            *out = floe_ice_double((double)f);
            return NULL;
        }
        if (len != 8) return bad_len(t, len);
        uint64_t bits = get_le(d, 8);
        double x;
        memcpy(&x, &bits, 8);
        *out = floe_ice_double(x);
        return NULL;
    }
    case FLOE_ICE_DECIMAL: {
        if (len < 1 || len > 16) return bad_len(t, len);
        unsigned __int128 u = (d[0] & 0x80) ? ~(unsigned __int128)0 : 0;
        for (size_t i = 0; i < len; i++) u = u << 8 | d[i];
        *out = floe_ice_decimal((floe_int128)u, t->scale);
        return NULL;
    }
    case FLOE_ICE_UUID:
        if (len != 16) return bad_len(t, len);
        *out = floe_ice_uuid(d);
        return NULL;
    case FLOE_ICE_FIXED:
        /* Bounds of fixed columns may be truncated, never longer. */
        if (t->length > 0 && len > (size_t)t->length) return bad_len(t, len);
        *out = floe_ice_fixed(d, len);
        return NULL;
    case FLOE_ICE_STRING: *out = floe_ice_string((const char *)d, len); return NULL;
    case FLOE_ICE_BINARY: *out = floe_ice_binary(d, len); return NULL;
    default: return unsupported(t->id, "binary deserialization");
    }
}

/* ---- text forms --------------------------------------------------------- */

floe_status floe_ice_value_append_string(floe_buf *b, const floe_ice_value *v) {
    if (v->is_null) return floe_buf_append_str(b, "null");
    switch (v->type) {
    case FLOE_ICE_BOOLEAN: return floe_buf_append_str(b, v->v.b ? "true" : "false");
    case FLOE_ICE_INT: return floe_buf_printf(b, "%d", v->v.i32);
    case FLOE_ICE_LONG: return floe_buf_printf(b, "%lld", (long long)v->v.i64);
    case FLOE_ICE_FLOAT: return append_real(b, v->v.f32, true);
    case FLOE_ICE_DOUBLE: return append_real(b, v->v.f64, false);
    case FLOE_ICE_DECIMAL: return floe_ice_decimal_append(b, v->v.dec, v->scale);
    case FLOE_ICE_DATE: return append_date(b, v->v.i32);
    case FLOE_ICE_TIME: return append_tod(b, floe_ice_floormod(v->v.i64, MICROS_PER_DAY), MICROS_PER_SECOND, 6);
    case FLOE_ICE_TIMESTAMP: return append_timestamp(b, v->v.i64, false, false);
    case FLOE_ICE_TIMESTAMPTZ: return append_timestamp(b, v->v.i64, false, true);
    case FLOE_ICE_TIMESTAMP_NS: return append_timestamp(b, v->v.i64, true, false);
    case FLOE_ICE_TIMESTAMPTZ_NS: return append_timestamp(b, v->v.i64, true, true);
    case FLOE_ICE_STRING: return floe_buf_append(b, v->v.bytes.data, v->v.bytes.len);
    case FLOE_ICE_UUID: return append_uuid(b, v->v.uuid);
    case FLOE_ICE_FIXED:
    case FLOE_ICE_BINARY: return append_hex(b, v->v.bytes.data, v->v.bytes.len);
    default: return unsupported(v->type, "a value");
    }
}

static floe_status buf_to_cstr(floe_buf *b, floe_status st, char **out) {
    if (!st && !b->data) st = floe_buf_reserve(b, 0);
    if (st) {
        floe_buf_free(b);
        *out = NULL;
        return st;
    }
    *out = (char *)floe_buf_detach(b, NULL);
    return NULL;
}

floe_status floe_ice_value_to_string(const floe_ice_value *v, char **out) {
    floe_buf b = FLOE_BUF_INIT;
    return buf_to_cstr(&b, floe_ice_value_append_string(&b, v), out);
}

floe_status floe_ice_value_parse(const floe_ice_type *t, const char *s, floe_ice_value *out) {
    *out = floe_ice_null(t->id);
    if (!s) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "no text to parse as %s", floe_ice_type_id_name(t->id));
    char *end;
    switch (t->id) {
    case FLOE_ICE_BOOLEAN:
        if (strcasecmp(s, "true") == 0) *out = floe_ice_bool(true);
        else if (strcasecmp(s, "false") == 0) *out = floe_ice_bool(false);
        else break;
        return NULL;
    case FLOE_ICE_INT:
    case FLOE_ICE_LONG: {
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (end == s || *end || errno) break;
        if (t->id == FLOE_ICE_INT) {
            if (x < INT32_MIN || x > INT32_MAX) break;
            *out = floe_ice_int((int32_t)x);
        } else {
            *out = floe_ice_long(x);
        }
        return NULL;
    }
    case FLOE_ICE_FLOAT:
    case FLOE_ICE_DOUBLE: {
        double x;
        if (strcmp(s, "NaN") == 0) x = NAN;
        else if (strcmp(s, "Infinity") == 0) x = INFINITY;
        else if (strcmp(s, "-Infinity") == 0) x = -INFINITY;
        else {
            errno = 0;
            x = t->id == FLOE_ICE_FLOAT ? (double)strtof(s, &end) : strtod(s, &end);
            if (end == s || *end) break;
        }
        *out = t->id == FLOE_ICE_FLOAT ? floe_ice_float((float)x) : floe_ice_double(x);
        return NULL;
    }
    case FLOE_ICE_DECIMAL: {
        floe_int128 u = 0;
        FLOE_TRY(parse_decimal(s, t->precision, t->scale, &u));
        *out = floe_ice_decimal(u, t->scale);
        return NULL;
    }
    case FLOE_ICE_DATE: {
        cur c = {s};
        int64_t days;
        if (!parse_date_at(&c, &days) || *c.p || days < INT32_MIN || days > INT32_MAX) break;
        *out = floe_ice_date((int32_t)days);
        return NULL;
    }
    case FLOE_ICE_TIME: {
        cur c = {s};
        int64_t ns;
        if (!parse_tod_at(&c, &ns) || *c.p) break;
        *out = floe_ice_time(ns / 1000);
        return NULL;
    }
    case FLOE_ICE_TIMESTAMP:
    case FLOE_ICE_TIMESTAMPTZ:
    case FLOE_ICE_TIMESTAMP_NS:
    case FLOE_ICE_TIMESTAMPTZ_NS: {
        bool tz = t->id == FLOE_ICE_TIMESTAMPTZ || t->id == FLOE_ICE_TIMESTAMPTZ_NS;
        bool ns = t->id == FLOE_ICE_TIMESTAMP_NS || t->id == FLOE_ICE_TIMESTAMPTZ_NS;
        int64_t x = 0;
        FLOE_TRY(parse_timestamp(s, tz, ns, &x));
        *out = floe_ice_long(x);
        out->type = t->id;
        return NULL;
    }
    case FLOE_ICE_STRING: {
        floe_ice_value tmp = floe_ice_string_z(s);
        return floe_ice_value_copy(&tmp, out);
    }
    case FLOE_ICE_UUID: {
        uint8_t u[16];
        if (!parse_uuid(s, u)) break;
        *out = floe_ice_uuid(u);
        return NULL;
    }
    case FLOE_ICE_FIXED:
    case FLOE_ICE_BINARY:
        FLOE_TRY(parse_hex(s, t->id, out));
        if (t->id == FLOE_ICE_FIXED && t->length > 0 && out->v.bytes.len != (size_t)t->length) {
            size_t n = out->v.bytes.len;
            floe_ice_value_free(out);
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "fixed[%d] value '%s' has %zu bytes", t->length, s, n);
        }
        return NULL;
    default: return unsupported(t->id, "parsing a value");
    }
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid %s value '%s'", floe_ice_type_id_name(t->id), s);
}

/* ---- JSON single-value form --------------------------------------------- */

floe_status floe_ice_value_to_json(const floe_ice_value *v, json_t **out) {
    *out = NULL;
    if (v->is_null) {
        *out = json_null();
        return NULL;
    }
    switch (v->type) {
    case FLOE_ICE_BOOLEAN: *out = json_boolean(v->v.b); break;
    case FLOE_ICE_INT: *out = json_integer(v->v.i32); break;
    case FLOE_ICE_LONG: *out = json_integer(v->v.i64); break;
    case FLOE_ICE_FLOAT:
    case FLOE_ICE_DOUBLE: {
        double d = v->type == FLOE_ICE_FLOAT ? (double)v->v.f32 : v->v.f64;
        if (!isfinite(d))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s value %s cannot be written as JSON",
                              floe_ice_type_id_name(v->type), isnan(d) ? "NaN" : "infinite");
        if (v->type == FLOE_ICE_FLOAT) {
            /* Write the shortest decimal that reads back as this float, so
             * 0.34234f is stored as 0.34234 rather than its double expansion. */
            floe_buf b = FLOE_BUF_INIT;
            floe_status st = append_real(&b, d, true);
            if (!st) d = strtod(floe_buf_cstr(&b), NULL);
            floe_buf_free(&b);
            FLOE_TRY(st);
        }
        *out = json_real(d);
        break;
    }
    default: {
        floe_buf b = FLOE_BUF_INIT;
        floe_status st = floe_ice_value_append_string(&b, v);
        if (st) {
            floe_buf_free(&b);
            return st;
        }
        *out = json_stringn(floe_buf_cstr(&b), b.len);
        floe_buf_free(&b);
        if (!*out && v->type == FLOE_ICE_STRING)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "string value is not valid UTF-8");
    }
    }
    return *out ? NULL : oom();
}

static floe_status json_type_err(const floe_ice_type *t, const char *want) {
    char *ts = NULL;
    floe_status st = floe_ice_type_to_string(t, &ts);
    if (st) return st;
    st = floe_error(FLOE_ERR_CORRUPT, "JSON value for type '%s' must be %s", ts, want);
    floe_free(ts);
    return st;
}

floe_status floe_ice_value_from_json(const floe_ice_type *t, json_t *j, floe_ice_value *out) {
    *out = floe_ice_null(t->id);
    if (!j) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "no JSON value");
    if (json_is_null(j)) return NULL;
    switch (t->id) {
    case FLOE_ICE_BOOLEAN:
        if (!json_is_boolean(j)) return json_type_err(t, "a boolean");
        *out = floe_ice_bool(json_is_true(j));
        return NULL;
    case FLOE_ICE_INT:
        if (!json_is_integer(j) || json_integer_value(j) < INT32_MIN || json_integer_value(j) > INT32_MAX)
            return json_type_err(t, "a 32-bit integer");
        *out = floe_ice_int((int32_t)json_integer_value(j));
        return NULL;
    case FLOE_ICE_LONG:
        if (!json_is_integer(j)) return json_type_err(t, "an integer");
        *out = floe_ice_long(json_integer_value(j));
        return NULL;
    case FLOE_ICE_FLOAT:
    case FLOE_ICE_DOUBLE:
        if (!json_is_number(j)) return json_type_err(t, "a number");
        *out = t->id == FLOE_ICE_FLOAT ? floe_ice_float((float)json_number_value(j))
                                       : floe_ice_double(json_number_value(j));
        return NULL;
    case FLOE_ICE_UNKNOWN:
    case FLOE_ICE_VARIANT:
    case FLOE_ICE_GEOMETRY:
    case FLOE_ICE_GEOGRAPHY: return unsupported(t->id, "a JSON value");
    default:
        if (floe_ice_type_is_nested(t)) return unsupported(t->id, "a JSON value");
        if (!json_is_string(j)) return json_type_err(t, "a string");
        {
            /* Bad text inside stored JSON is corrupt metadata, not a bad
             * argument: re-issue the parser's message under that code. */
            floe_status st = floe_ice_value_parse(t, json_string_value(j), out);
            if (st && floe_status_code(st) == FLOE_ERR_INVALID_ARGUMENT) {
                floe_status c = floe_error(FLOE_ERR_CORRUPT, "%s", floe_status_message(st));
                floe_status_free(st);
                return c;
            }
            return st;
        }
    }
}

floe_status floe_ice_value_to_json_text(const floe_ice_value *v, char **out) {
    *out = NULL;
    json_t *j = NULL;
    FLOE_TRY(floe_ice_value_to_json(v, &j));
    floe_status st = floe_ice_json_dump(j, out);
    json_decref(j);
    return st;
}

floe_status floe_ice_value_from_json_text(const floe_ice_type *t, const char *text, floe_ice_value *out) {
    *out = floe_ice_null(t->id);
    json_t *j = NULL;
    FLOE_TRY(floe_ice_json_parse_text(text, "JSON value", &j));
    floe_status st = floe_ice_value_from_json(t, j, out);
    json_decref(j);
    return st;
}
