/*
 * csv_detect_types.c — read_csv's type classes: whether a sampled text
 * reads as a boolean, a bigint, a double, a date or a timestamp, as the
 * detector in csv_read.c asks of every value of its sample; and the
 * options' defaults (floe_csv_options_init, csv_read.h).
 */
#include "exec/scan/csv_detect_types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/scan/csv_read.h"
#include "exec/scan/csv_values.h"

void floe_csv_options_init(floe_csv_options *o) {
    memset(o, 0, sizeof *o);
    o->delim = -1;
    o->quote = -1;
    o->escape = -1;
    o->header = -1;
    o->nullstr = "";
    o->quoted_nulls = true;
    o->auto_detect = true;
}


static bool is_bool(const char *s, int64_t n) {
    return (n == 4 && !strncasecmp(s, "true", 4)) || (n == 5 && !strncasecmp(s, "false", 5)) ||
           (n == 1 && (s[0] == 't' || s[0] == 'T' || s[0] == 'f' || s[0] == 'F'));
}

static bool is_bigint(const char *s, int64_t n) {
    int64_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    if (i >= n || n - i > 19) return false;
    if (s[i] == '0' && n - i > 1) return false; /* DuckDB: leading zeros are text */
    for (int64_t j = i; j < n; j++)
        if (s[j] < '0' || s[j] > '9') return false;
    if (n - i == 19) {
        char buf[24];
        memcpy(buf, s + i, 19);
        buf[19] = 0;
        if (strcmp(buf, s[0] == '-' ? "9223372036854775808" : "9223372036854775807") > 0) return false;
    }
    return true;
}

static bool is_double(const char *s, int64_t n) {
    if (n == 0 || n > 60) return false;
    bool digit = false;
    for (int64_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') digit = true;
        else if (!(c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) return false;
    }
    if (!digit) return false;
    int64_t k = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (k + 1 < n && s[k] == '0' && s[k + 1] >= '0' && s[k + 1] <= '9') return false; /* as DuckDB */
    double d;
    if (floe_csv_fast_double(s, (size_t)n, &d)) return true; /* strtod reads all of it */
    char buf[64];
    memcpy(buf, s, (size_t)n);
    buf[n] = 0;
    char *end = NULL;
    errno = 0;
    (void)strtod(buf, &end);
    return end == buf + n;
}

static bool digits(const char *s, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return n > 0;
}

/* YYYY-MM-DD with a valid month and day. */
static bool is_date(const char *s, int64_t n) {
    if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4) || !digits(s + 5, 2) || !digits(s + 8, 2))
        return false;
    int m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
    return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

/* YYYY-MM-DD[ T]HH:MM[:SS[.fraction]] */
static bool is_timestamp(const char *s, int64_t n) {
    if (n < 16 || !is_date(s, 10) || (s[10] != ' ' && s[10] != 'T')) return false;
    if (!digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2)) return false;
    if (n == 16) return true;
    if (n < 19 || s[16] != ':' || !digits(s + 17, 2)) return false;
    if (n == 19) return true;
    return s[19] == '.' && digits(s + 20, n - 20);
}

bool floe_csv_fits(det_type t, const char *s, int64_t n) {
    switch (t) {
    case T_BOOL: return is_bool(s, n);
    case T_BIGINT: return is_bigint(s, n);
    case T_DOUBLE: return is_double(s, n);
    case T_DATE: return is_date(s, n);
    case T_TIMESTAMP: return is_timestamp(s, n);
    default: return true;
    }
}

floe_type *floe_csv_det_floe_type(det_type t) {
    static const floe_type_id ids[] = {FLOE_TYPE_BOOL, FLOE_TYPE_INT64, FLOE_TYPE_FLOAT64,
                                       FLOE_TYPE_DATE32, FLOE_TYPE_TIMESTAMP_US, FLOE_TYPE_STRING};
    return floe_type_primitive(ids[t]);
}

/* A given column type as the detector's class (VARCHAR: not judged). */
det_type floe_csv_det_of_type(const floe_type *t) {
    switch (t->id) {
    case FLOE_TYPE_BOOL: return T_BOOL;
    case FLOE_TYPE_INT32:
    case FLOE_TYPE_INT64: return T_BIGINT;
    case FLOE_TYPE_FLOAT32:
    case FLOE_TYPE_FLOAT64: return T_DOUBLE;
    case FLOE_TYPE_DATE32: return T_DATE;
    case FLOE_TYPE_TIMESTAMP_US: return T_TIMESTAMP;
    default: return T_VARCHAR;
    }
}
