/*
 * interval.c — the interval value (include/floe/interval.h): PostgreSQL's
 * text input and its default output style, total-based hashing, and the
 * arithmetic whose rounding rules (fractions of months and days cascading
 * down) every caller must share.
 */
#include "floe/interval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "base/hash.h"
#include "base/str.h"

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

uint64_t floe_interval_hash(floe_interval v) {
    unsigned __int128 t = (unsigned __int128)floe_interval_total(v);
    return floe_hash_combine(floe_hash_u64((uint64_t)t), (uint64_t)(t >> 64));
}

/* ------------------------------------------------------------- input */

/* Accumulated fields, wide so overflow is caught once at the end. */
typedef struct acc {
    __int128 months, days, micros;
} acc;

/* PostgreSQL's AdjustFractSeconds: a fraction of a unit of `scale`
 * seconds, as microseconds rounded. */
static void fract_seconds(acc *a, double frac, double scale) {
    if (frac == 0) return;
    a->micros += (__int128)llrint(frac * scale * 1e6);
}
/* AdjustFractDays: whole days of the fraction, the rest as seconds. */
static void fract_days(acc *a, double frac, double scale) {
    if (frac == 0) return;
    double d = frac * scale;
    int64_t whole = (int64_t)d;
    a->days += whole;
    fract_seconds(a, d - (double)whole, 86400);
}

/* Add val + frac of `unit`; false for an unknown unit. */
static bool add_unit(acc *a, const char *unit, int64_t val, double frac) {
    if (!strcmp(unit, "microsecond") || !strcmp(unit, "us") || !strcmp(unit, "usec") || !strcmp(unit, "microsecon")) {
        a->micros += val + (__int128)llrint(frac);
    } else if (!strcmp(unit, "millisecond") || !strcmp(unit, "ms") || !strcmp(unit, "msec") ||
               !strcmp(unit, "millisecon")) {
        a->micros += (__int128)val * 1000 + (__int128)llrint(frac * 1000);
    } else if (!strcmp(unit, "second") || !strcmp(unit, "s") || !strcmp(unit, "sec")) {
        a->micros += (__int128)val * 1000000 + (__int128)llrint(frac * 1e6);
    } else if (!strcmp(unit, "minute") || !strcmp(unit, "m") || !strcmp(unit, "min")) {
        a->micros += (__int128)val * 60000000;
        fract_seconds(a, frac, 60);
    } else if (!strcmp(unit, "hour") || !strcmp(unit, "h") || !strcmp(unit, "hr")) {
        a->micros += (__int128)val * 3600000000;
        fract_seconds(a, frac, 3600);
    } else if (!strcmp(unit, "day") || !strcmp(unit, "d")) {
        a->days += val;
        fract_seconds(a, frac, 86400);
    } else if (!strcmp(unit, "week") || !strcmp(unit, "w")) {
        a->days += (__int128)val * 7;
        fract_days(a, frac, 7);
    } else if (!strcmp(unit, "month") || !strcmp(unit, "mon")) {
        a->months += val;
        fract_days(a, frac, 30);
    } else if (!strcmp(unit, "year") || !strcmp(unit, "y") || !strcmp(unit, "yr")) {
        a->months += (__int128)val * 12 + (__int128)llrint(frac * 12);
    } else if (!strcmp(unit, "decade") || !strcmp(unit, "dec")) {
        a->months += (__int128)val * 120 + (__int128)llrint(frac * 120);
    } else if (!strcmp(unit, "century") || !strcmp(unit, "centurie") || !strcmp(unit, "c") || !strcmp(unit, "cent")) {
        a->months += (__int128)val * 1200 + (__int128)llrint(frac * 1200);
    } else if (!strcmp(unit, "millennium") || !strcmp(unit, "millennia") || !strcmp(unit, "mil")) {
        a->months += (__int128)val * 12000 + (__int128)llrint(frac * 12000);
    } else {
        return false;
    }
    return true;
}

/* The unit of a bare number, from INTERVAL '..' <qualifier>'s mask. */
static const char *mask_unit(int64_t m) {
    if (m & 4096) return "second";
    if (m & 2048) return "minute";
    if (m & 1024) return "hour";
    if (m & 8) return "day";
    if (m & 2) return "month";
    if (m & 4) return "year";
    return "second";
}

/* A number: optional sign, digits, optional fraction.  *val gets the
 * integer part, *frac the signed fraction. */
static bool number(const char **pp, const char *end, int64_t *val, double *frac, bool *neg) {
    const char *p = *pp;
    *neg = false;
    if (p < end && (*p == '+' || *p == '-')) *neg = *p++ == '-';
    const char *d = p;
    __int128 v = 0;
    while (p < end && floe_ascii_isdigit(*p)) {
        v = v * 10 + (*p++ - '0');
        if (v > INT64_MAX) return false;
    }
    double f = 0;
    if (p < end && *p == '.') {
        p++;
        double scale = 0.1;
        while (p < end && floe_ascii_isdigit(*p)) {
            f += (*p++ - '0') * scale;
            scale /= 10;
        }
    }
    if (p == d || (p == d + 1 && *d == '.')) return false;
    *val = *neg ? -(int64_t)v : (int64_t)v;
    *frac = *neg ? -f : f;
    *pp = p;
    return true;
}

static bool parse_iso(const char *p, const char *end, acc *a) {
    bool time = false, any = false;
    p++; /* the P */
    while (p < end) {
        if (*p == 'T' || *p == 't') {
            time = true;
            p++;
            continue;
        }
        int64_t v;
        double f;
        bool neg;
        if (!number(&p, end, &v, &f, &neg) || p >= end) return false;
        char u = floe_ascii_lower(*p++);
        const char *unit = NULL;
        if (!time) unit = u == 'y' ? "year" : u == 'm' ? "month" : u == 'w' ? "week" : u == 'd' ? "day" : NULL;
        else unit = u == 'h' ? "hour" : u == 'm' ? "minute" : u == 's' ? "second" : NULL;
        if (!unit || !add_unit(a, unit, v, f)) return false;
        any = true;
    }
    return any;
}

/* hh:mm[:ss[.fff]] with a sign applied to all of it; p at the hours.
 * False for bad syntax; *range when minutes or seconds pass 59. */
static bool parse_time(const char **pp, const char *end, bool neg, int64_t hours, acc *a, bool *range) {
    const char *p = *pp + 1; /* past the ':' */
    int64_t mins = 0;
    const char *d = p;
    while (p < end && floe_ascii_isdigit(*p)) mins = mins * 10 + (*p++ - '0');
    if (p == d || p - d > 9) return false;
    if (mins > 59) *range = true;
    __int128 us = ((__int128)(hours < 0 ? -hours : hours) * 3600 + mins * 60) * 1000000;
    if (p < end && *p == ':') {
        p++;
        int64_t secs = 0;
        d = p;
        while (p < end && floe_ascii_isdigit(*p)) secs = secs * 10 + (*p++ - '0');
        if (p == d || p - d > 9) return false;
        if (secs > 59) *range = true;
        us += (__int128)secs * 1000000;
        if (p < end && *p == '.') {
            p++;
            double f = 0, scale = 0.1;
            while (p < end && floe_ascii_isdigit(*p)) {
                f += (*p++ - '0') * scale;
                scale /= 10;
            }
            us += llrint(f * 1e6);
        }
    }
    a->micros += neg ? -us : us;
    *pp = p;
    return true;
}

floe_status floe_interval_parse(const char *text, int64_t len, int64_t field_mask, floe_interval *out) {
    const char *p = text, *end = text + len;
    acc a = {0, 0, 0};
    bool any = false, ago = false, range = false;
    while (p < end && floe_ascii_isspace(*p)) p++;
    while (end > p && floe_ascii_isspace(end[-1])) end--;
    if (p < end && *p == '@') p++;
    if (p < end && (*p == 'P' || *p == 'p')) {
        if (!parse_iso(p, end, &a)) goto bad;
        goto done;
    }
    while (p < end) {
        while (p < end && floe_ascii_isspace(*p)) p++;
        if (p >= end) break;
        if (is_alpha(*p)) {
            /* Only "ago" stands alone. */
            const char *w = p;
            while (p < end && is_alpha(*p)) p++;
            if (p - w == 3 && floe_ascii_lower(w[0]) == 'a' && floe_ascii_lower(w[1]) == 'g' && floe_ascii_lower(w[2]) == 'o' && any && !ago) {
                ago = true;
                continue;
            }
            goto bad;
        }
        if (ago) goto bad;
        int64_t v;
        double f;
        bool neg;
        if (!number(&p, end, &v, &f, &neg)) goto bad;
        if (p < end && *p == ':') {
            if (f != 0) goto bad;
            if (!parse_time(&p, end, neg, v, &a, &range)) goto bad;
            if (range) goto out_of_range;
            any = true;
            continue;
        }
        if (p < end && *p == '-' && f == 0 && p + 1 < end && floe_ascii_isdigit(p[1])) {
            /* years-months */
            p++;
            int64_t m = 0;
            const char *d = p;
            while (p < end && floe_ascii_isdigit(*p)) m = m * 10 + (*p++ - '0');
            if (p - d > 9 || m > 11) goto bad;
            a.months += (__int128)v * 12 + (neg ? -m : m);
            any = true;
            continue;
        }
        while (p < end && floe_ascii_isspace(*p)) p++;
        char unit[16] = {0};
        size_t ul = 0;
        while (p < end && is_alpha(*p)) {
            if (ul + 1 >= sizeof unit) goto bad;
            unit[ul++] = floe_ascii_lower(*p++);
        }
        if (ul == 0) {
            strcpy(unit, mask_unit(field_mask));
        } else if (!strcmp(unit, "ago")) {
            strcpy(unit, mask_unit(field_mask));
            p -= 3;
        } else if (ul > 1 && unit[ul - 1] == 's' && strcmp(unit, "ms") && strcmp(unit, "us")) {
            unit[--ul] = 0;
        }
        if (!add_unit(&a, unit, v, f)) goto bad;
        any = true;
    }
    if (!any) goto bad;
done:
    if (ago) {
        a.months = -a.months;
        a.days = -a.days;
        a.micros = -a.micros;
    }
    if (a.months > INT32_MAX || a.months < INT32_MIN || a.days > INT32_MAX || a.days < INT32_MIN ||
        a.micros > INT64_MAX || a.micros < INT64_MIN)
        goto out_of_range;
    out->months = (int32_t)a.months;
    out->days = (int32_t)a.days;
    out->micros = (int64_t)a.micros;
    return NULL;
out_of_range:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "interval field value out of range: \"%.*s\"", (int)len, text);
bad:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type interval: \"%.*s\"", (int)len, text);
}

/* ------------------------------------------------------------ output */

/* One "N unit[s]" part, PostgreSQL's AddPostgresIntPart. */
static floe_status int_part(floe_buf *o, int64_t v, const char *unit, bool *zero, bool *before) {
    if (v == 0) return NULL;
    FLOE_TRY(floe_buf_printf(o, "%s%s%lld %s%s", *zero ? "" : " ", (*before && v > 0) ? "+" : "", (long long)v,
                             unit, v != 1 ? "s" : ""));
    *before = v < 0;
    *zero = false;
    return NULL;
}

floe_status floe_interval_format(floe_interval v, floe_buf *o) {
    bool zero = true, before = false;
    FLOE_TRY(int_part(o, v.months / 12, "year", &zero, &before));
    FLOE_TRY(int_part(o, v.months % 12, "mon", &zero, &before));
    FLOE_TRY(int_part(o, v.days, "day", &zero, &before));
    if (zero || v.micros != 0) {
        bool minus = v.micros < 0;
        uint64_t us = minus ? (uint64_t)0 - (uint64_t)v.micros : (uint64_t)v.micros;
        uint64_t h = us / 3600000000u, m = us / 60000000u % 60, s = us / 1000000u % 60, f = us % 1000000u;
        FLOE_TRY(floe_buf_printf(o, "%s%s%02llu:%02llu:%02llu", zero ? "" : " ", minus ? "-" : before ? "+" : "",
                                 (unsigned long long)h, (unsigned long long)m, (unsigned long long)s));
        if (f) {
            char frac[8];
            int n = 6;
            for (int k = 5; k >= 0; k--, f /= 10) frac[k] = (char)('0' + f % 10);
            while (n > 0 && frac[n - 1] == '0') n--;
            FLOE_TRY(floe_buf_printf(o, ".%.*s", n, frac));
        }
    }
    return NULL;
}

/* -------------------------------------------------------- arithmetic */

static bool fits(__int128 m, __int128 d, __int128 us, floe_interval *out) {
    if (m > INT32_MAX || m < INT32_MIN || d > INT32_MAX || d < INT32_MIN || us > INT64_MAX || us < INT64_MIN)
        return false;
    out->months = (int32_t)m;
    out->days = (int32_t)d;
    out->micros = (int64_t)us;
    return true;
}

bool floe_interval_add(floe_interval a, floe_interval b, floe_interval *out) {
    return fits((__int128)a.months + b.months, (__int128)a.days + b.days, (__int128)a.micros + b.micros, out);
}
bool floe_interval_sub(floe_interval a, floe_interval b, floe_interval *out) {
    return fits((__int128)a.months - b.months, (__int128)a.days - b.days, (__int128)a.micros - b.micros, out);
}
bool floe_interval_neg(floe_interval a, floe_interval *out) {
    return fits(-(__int128)a.months, -(__int128)a.days, -(__int128)a.micros, out);
}

/* Round to microseconds, PostgreSQL's TSROUND. */
static double tsround(double x) { return rint(x * 1e6) / 1e6; }

/* PostgreSQL's interval_mul / interval_div: months and days are truncated
 * and their fractions cascade down, months' to days at 30 days a month,
 * days' to seconds. */
static bool scale(floe_interval a, double factor, bool divide, floe_interval *out) {
    double m = divide ? a.months / factor : a.months * factor;
    double d = divide ? a.days / factor : a.days * factor;
    if (isnan(m) || m > INT32_MAX || m < INT32_MIN || isnan(d) || d > INT32_MAX || d < INT32_MIN) return false;
    int32_t rm = (int32_t)m, rd = (int32_t)d;
    double month_rem_days = tsround((m - rm) * 30);
    double sec_rem = tsround((d - rd + month_rem_days - (int)month_rem_days) * 86400);
    int64_t days = rd;
    if (fabs(sec_rem) >= 86400) {
        days += (int)(sec_rem / 86400);
        sec_rem -= (int)(sec_rem / 86400) * 86400.0;
    }
    days += (int)month_rem_days;
    double t = rint((divide ? (double)a.micros / factor : (double)a.micros * factor) + sec_rem * 1e6);
    if (isnan(t) || t >= 9223372036854775808.0 || t < -9223372036854775808.0) return false;
    return fits(rm, days, (__int128)(int64_t)t, out);
}

bool floe_interval_mul(floe_interval a, double factor, floe_interval *out) { return scale(a, factor, false, out); }
bool floe_interval_div(floe_interval a, double divisor, floe_interval *out) { return scale(a, divisor, true, out); }

floe_interval floe_interval_justify_hours(floe_interval a) {
    int64_t whole = a.micros / FLOE_US_PER_DAY;
    a.micros -= whole * FLOE_US_PER_DAY;
    a.days += (int32_t)whole;
    if (a.days > 0 && a.micros < 0) {
        a.micros += FLOE_US_PER_DAY;
        a.days--;
    } else if (a.days < 0 && a.micros > 0) {
        a.micros -= FLOE_US_PER_DAY;
        a.days++;
    }
    return a;
}

floe_interval floe_interval_justify_days(floe_interval a) {
    int32_t whole = a.days / 30;
    a.days -= whole * 30;
    a.months += whole;
    if (a.months > 0 && a.days < 0) {
        a.days += 30;
        a.months--;
    } else if (a.months < 0 && a.days > 0) {
        a.days -= 30;
        a.months++;
    }
    return a;
}

floe_interval floe_interval_justify(floe_interval a) {
    if ((a.days > 0 && a.micros > 0) || (a.days < 0 && a.micros < 0)) {
        int32_t wm = a.days / 30;
        a.days -= wm * 30;
        a.months += wm;
    }
    int64_t wd = a.micros / FLOE_US_PER_DAY;
    a.micros -= wd * FLOE_US_PER_DAY;
    a.days += (int32_t)wd;
    int32_t wm = a.days / 30;
    a.days -= wm * 30;
    a.months += wm;
    if (a.months > 0 && (a.days < 0 || (a.days == 0 && a.micros < 0))) {
        a.days += 30;
        a.months--;
    } else if (a.months < 0 && (a.days > 0 || (a.days == 0 && a.micros > 0))) {
        a.days -= 30;
        a.months++;
    }
    if (a.days > 0 && a.micros < 0) {
        a.micros += FLOE_US_PER_DAY;
        a.days--;
    } else if (a.days < 0 && a.micros > 0) {
        a.micros -= FLOE_US_PER_DAY;
        a.days++;
    }
    return a;
}

/* ------------------------------------------------ timestamp + interval */

static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* Days since 1970-01-01 of a civil date and back (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = floor_div(y, 400), yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}
static void civil_from_days(int64_t z, int64_t *y, int64_t *m, int64_t *d) {
    z += 719468;
    int64_t era = floor_div(z, 146097), doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp + (mp < 10 ? 3 : -9);
    *y = yoe + era * 400 + (*m <= 2);
}

bool floe_timestamp_add_interval(int64_t ts, floe_interval v, int64_t *out) {
    int64_t days = floor_div(ts, FLOE_US_PER_DAY), us = ts - days * FLOE_US_PER_DAY;
    if (v.months) {
        int64_t y, m, d;
        civil_from_days(days, &y, &m, &d);
        int64_t total = y * 12 + (m - 1) + v.months;
        y = floor_div(total, 12);
        m = total - y * 12 + 1;
        if (y < -5000000 || y > 5000000) return false;
        static const int8_t dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int64_t n = dim[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
        days = days_from_civil(y, m, d < n ? d : n);
    }
    days += v.days;
    if (days < -INT64_C(106000000) || days > INT64_C(106000000)) return false;
    int64_t x = days * FLOE_US_PER_DAY + us;
    return !__builtin_add_overflow(x, v.micros, out);
}

static int64_t month_days(int64_t y, int64_t m) {
    static const int8_t dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return dim[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
}

floe_interval floe_timestamp_age(int64_t a, int64_t b) {
    int64_t f[2][7]; /* year, month, day, hour, minute, second, microsecond */
    int64_t ts[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        int64_t days = floor_div(ts[k], FLOE_US_PER_DAY), us = ts[k] - days * FLOE_US_PER_DAY;
        civil_from_days(days, &f[k][0], &f[k][1], &f[k][2]);
        f[k][3] = us / 3600000000;
        f[k][4] = us / 60000000 % 60;
        f[k][5] = us / 1000000 % 60;
        f[k][6] = us % 1000000;
    }
    int64_t d[7];
    bool flip = a < b;
    for (int i = 0; i < 7; i++) d[i] = flip ? f[1][i] - f[0][i] : f[0][i] - f[1][i];
    const int64_t *early = flip ? f[0] : f[1];
    while (d[6] < 0) { d[6] += 1000000; d[5]--; }
    while (d[5] < 0) { d[5] += 60; d[4]--; }
    while (d[4] < 0) { d[4] += 60; d[3]--; }
    while (d[3] < 0) { d[3] += 24; d[2]--; }
    while (d[2] < 0) { d[2] += month_days(early[0], early[1]); d[1]--; }
    while (d[1] < 0) { d[1] += 12; d[0]--; }
    if (flip)
        for (int i = 0; i < 7; i++) d[i] = -d[i];
    floe_interval v;
    v.months = (int32_t)(d[0] * 12 + d[1]);
    v.days = (int32_t)d[2];
    v.micros = ((d[3] * 60 + d[4]) * 60 + d[5]) * 1000000 + d[6];
    return v;
}
