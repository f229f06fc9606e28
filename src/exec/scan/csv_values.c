/*
 * csv_values.c — the typed fast paths of the CSV reader (see
 * csv_values.h).  Every function here either returns the exact value the
 * general cast (src/exec/expr) would give for the same text, or false;
 * it never reports errors, so anything unusual goes to the cast, which
 * accepts more (blanks around, exponents, 'Infinity', offsets) and words
 * the errors.
 */
#include "exec/scan/csv_values.h"

#include <string.h>

#include "floe/iceberg_value.h"

typedef __int128 i128;

static inline bool dig(char c) { return c >= '0' && c <= '9'; }

bool floe_csv_fast_int64(const char *s, size_t n, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '-' || s[0] == '+')) neg = s[i++] == '-';
    if (i == n || n - i > 19) return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (!dig(s[i])) return false;
        v = v * 10 + (uint64_t)(s[i] - '0'); /* 19 digits fit uint64 */
    }
    if (v > (uint64_t)INT64_MAX + neg) return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Powers of ten exactly representable as doubles. */
static const double pow10d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool floe_csv_fast_double(const char *s, size_t n, double *out) {
    /* The cast refuses text of 64 bytes or more. */
    if (n == 0 || n >= 64) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') neg = s[i++] == '-';
    uint64_t w = 0;
    int nsig = 0, e10 = 0;
    bool any = false;
    for (; i < n && dig(s[i]); i++) {
        any = true;
        if (nsig == 0 && s[i] == '0') continue;
        if (nsig == 19) return false;
        w = w * 10 + (uint64_t)(s[i] - '0');
        nsig++;
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && dig(s[i]); i++) {
            any = true;
            e10--;
            if (nsig == 0 && s[i] == '0') continue;
            if (nsig == 19) return false;
            w = w * 10 + (uint64_t)(s[i] - '0');
            nsig++;
        }
    }
    if (!any) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        if (i == n) return false;
        int x = 0;
        for (; i < n; i++) {
            if (!dig(s[i])) return false;
            if (x < 10000) x = x * 10 + (s[i] - '0');
        }
        e10 += eneg ? -x : x;
    }
    if (i != n) return false;
    double d;
    if (w == 0) d = 0.0;
    else if (w > ((uint64_t)1 << 53) || e10 < -22 || e10 > 22) return false;
    else if (e10 >= 0) d = (double)w * pow10d[e10];
    else d = (double)w / pow10d[-e10];
    *out = neg ? -d : d;
    return true;
}

bool floe_csv_fast_decimal(const char *s, size_t n, int precision, int scale, floe_decimal128 *out) {
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) return false;
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '-' || s[0] == '+')) neg = s[i++] == '-';
    char digits[40];
    int nd = 0, point = -1;
    bool any = false;
    for (; i < n; i++) {
        if (s[i] == '.') {
            if (point >= 0) return false;
            point = nd;
            continue;
        }
        if (!dig(s[i])) return false;
        any = true;
        if (nd == 0 && s[i] == '0' && point < 0) continue; /* leading zeros */
        if (nd == (int)sizeof digits) return false;
        digits[nd++] = s[i];
    }
    if (!any) return false;
    if (point < 0) point = nd;
    /* value = 0.digits * 10^point; the unscaled value keeps `keep`
     * digits and rounds on the next one (half away from zero). */
    int keep = point + scale;
    if (keep > 38) return false;
    i128 v = 0;
    for (int k = 0; k < keep; k++) v = v * 10 + (k < nd ? digits[k] - '0' : 0);
    if (keep >= 0 && keep < nd && digits[keep] >= '5') v += 1;
    i128 lim = 1;
    for (int k = 0; k < precision; k++) lim *= 10;
    if (v >= lim) return false;
    if (neg) v = -v;
    out->lo = (uint64_t)v;
    out->hi = (int64_t)(v >> 64);
    return true;
}

static inline int two(const char *s) { return (s[0] - '0') * 10 + (s[1] - '0'); }

static bool date10(const char *s, int64_t *days) {
    if (s[4] != '-' || s[7] != '-') return false;
    for (int k = 0; k < 10; k++)
        if (k != 4 && k != 7 && !dig(s[k])) return false;
    int y = two(s) * 100 + two(s + 2), m = two(s + 5), d = two(s + 8);
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1) return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > dm[m - 1] + (m == 2 && leap)) return false;
    *days = floe_ice_days_from_civil(y, m, d);
    return true;
}

bool floe_csv_fast_date(const char *s, size_t n, int32_t *out) {
    int64_t days;
    if (n != 10 || !date10(s, &days)) return false;
    *out = (int32_t)days;
    return true;
}

bool floe_csv_fast_timestamp(const char *s, size_t n, int64_t *out) {
    int64_t days;
    if (n < 16 || n > 26 || !date10(s, &days)) return false;
    if (s[10] != ' ' && s[10] != 'T' && s[10] != 't') return false;
    if (!dig(s[11]) || !dig(s[12]) || s[13] != ':' || !dig(s[14]) || !dig(s[15])) return false;
    int h = two(s + 11), mi = two(s + 14), sec = 0;
    int64_t frac = 0;
    if (n > 16) {
        if (n < 19 || s[16] != ':' || !dig(s[17]) || !dig(s[18])) return false;
        sec = two(s + 17);
        if (n > 19) {
            if (s[19] != '.' || n == 20) return false;
            size_t k = 20;
            for (; k < n; k++) {
                if (!dig(s[k])) return false;
                frac = frac * 10 + (s[k] - '0');
            }
            for (; k < 26; k++) frac *= 10;
        }
    }
    if (h > 23 || mi > 59 || sec > 59) return false;
    *out = days * 86400000000LL + ((int64_t)(h * 60 + mi) * 60 + sec) * 1000000LL + frac;
    return true;
}

bool floe_csv_fast_bool(const char *s, size_t n, bool *out) {
    char b[6];
    if (n == 0 || n > 5) return false;
    for (size_t i = 0; i < n; i++) b[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    b[n] = 0;
    static const char *const yes[] = {"true", "t", "yes", "y", "on", "1"};
    static const char *const no[] = {"false", "f", "no", "n", "off", "0"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (strcmp(b, yes[i]) == 0) { *out = true; return true; }
        if (strcmp(b, no[i]) == 0) { *out = false; return true; }
    }
    return false;
}

int64_t floe_csv_count_byte(const uint8_t *p, size_t n, uint8_t c) {
    const uint64_t ones = 0x0101010101010101ull, low7 = 0x7f7f7f7f7f7f7f7full;
    const uint64_t pat = ones * c, m16 = 0x00ff00ff00ff00ffull;
    int64_t count = 0;
    size_t i = 0;
    while (i + 8 <= n) {
        /* Per-byte counters over at most 255 words, then summed. */
        uint64_t acc = 0;
        for (int k = 0; k < 255 && i + 8 <= n; k++, i += 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            uint64_t x = w ^ pat; /* zero bytes where w has c */
            acc += (~(((x & low7) + low7) | x | low7)) >> 7;
        }
        acc = (acc & m16) + ((acc >> 8) & m16);
        count += (int64_t)((acc * 0x0001000100010001ull) >> 48);
    }
    for (; i < n; i++) count += p[i] == c;
    return count;
}
