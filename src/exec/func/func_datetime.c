/*
 * func_datetime.c — date and time scalar functions: date_part (EXTRACT),
 * date_trunc, add_interval (date/timestamp ± INTERVAL), date_diff,
 * make_date, make_timestamp, strftime (DuckDB's format letters), to_char
 * (PostgreSQL's patterns), to_timestamp, current_date, now, and the field
 * shortcuts year(x), month(x) ... .
 *
 * Values: dates are days since 1970-01-01, timestamps microseconds (or
 * nanoseconds for the _NS types) since the epoch, times microseconds since
 * midnight; the zoned types are UTC instants and are read in UTC (floe has
 * no session time zone).  Every calendar computation goes through one
 * decomposition, `dtv` = (days, microsecond of the day, extra nanoseconds),
 * made with floor division so values before 1970 land on the right day
 * and time (-1 µs is 1969-12-31 23:59:59.999999).  The calendar is the
 * proleptic Gregorian one with a year 0 (1 BC), as in DuckDB.
 *
 * Field and unit names ('year', 'month', ...) are ASCII case-insensitive
 * and accept the usual plurals and abbreviations.  date_part's result type
 * depends on the field (epoch is float64, others int64), so its field must
 * be a constant; date_trunc's unit and date_diff's may vary per row.
 * Results outside the type's range (make_date(2147483647, ...), adding
 * 10000 years) are FLOE_ERR_INVALID_ARGUMENT errors naming the function.
 */
#include <math.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "floe/interval.h"
#include "base/str.h"
#include "exec/func/functions.h"

#define US_PER_SEC INT64_C(1000000)
#define US_PER_MIN (60 * US_PER_SEC)
#define US_PER_HOUR (60 * US_PER_MIN)
#define US_PER_DAY (24 * US_PER_HOUR)

/* Division rounding toward minus infinity, and its remainder (the sign of
 * b), written with % so that no intermediate can overflow. */
static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
static int64_t floor_mod(int64_t a, int64_t b) {
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* -------------------------------------------------------- the calendar */

/* Days since 1970-01-01 of y-m-d, and back (400-year eras of 146097 days,
 * years counted from March so the leap day is last). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = floor_div(y, 400), yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int64_t *m, int64_t *d) {
    z += 719468;
    int64_t era = floor_div(z, 146097), doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yoe + era * 400 + (*m <= 2);
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static int64_t days_in_month(int64_t y, int64_t m) {
    static const int8_t dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dim[m - 1];
}
/* ISO day of week, Monday = 1 .. Sunday = 7 (1970-01-01 was a Thursday). */
static int64_t iso_dow(int64_t days) { return floor_mod(days + 3, 7) + 1; }

/* ISO 8601 week-numbering year and week of a day: the week belongs to
 * the year its Thursday falls in. */
static void iso_week(int64_t days, int64_t *iso_year, int64_t *week) {
    int64_t thursday = days - iso_dow(days) + 4, y, m, d;
    civil_from_days(thursday, &y, &m, &d);
    *iso_year = y;
    *week = (thursday - days_from_civil(y, 1, 1)) / 7 + 1;
}

/* ------------------------------------------------------ decomposition */

typedef struct dtv {
    int64_t days; /* since 1970-01-01 */
    int64_t us;   /* microsecond of the day, 0 .. US_PER_DAY-1 */
    int64_t ns;   /* nanoseconds below the microsecond (ns types) */
} dtv;

static bool is_ns(floe_type_id t) { return t == FLOE_TYPE_TIMESTAMP_NS || t == FLOE_TYPE_TIMESTAMP_NS_TZ; }
static bool is_tz(floe_type_id t) { return t == FLOE_TYPE_TIMESTAMP_US_TZ || t == FLOE_TYPE_TIMESTAMP_NS_TZ; }

static dtv dt_get(const floe_array *a, int64_t i) {
    dtv v = {0, 0, 0};
    int64_t x = fn_get_i64(a, i);
    switch (a->type->id) {
    case FLOE_TYPE_DATE32: v.days = x; break;
    case FLOE_TYPE_TIME64_US: v.us = x; break;
    case FLOE_TYPE_TIMESTAMP_NS: case FLOE_TYPE_TIMESTAMP_NS_TZ: {
        int64_t us = floor_div(x, 1000);
        v.ns = floor_mod(x, 1000);
        v.days = floor_div(us, US_PER_DAY);
        v.us = floor_mod(us, US_PER_DAY);
        break;
    }
    default:
        v.days = floor_div(x, US_PER_DAY);
        v.us = floor_mod(x, US_PER_DAY);
        break;
    }
    return v;
}

/* Back to a value of type `t`; false when it does not fit. */
static bool dt_put(dtv v, floe_type_id t, int64_t *out) {
    int64_t x;
    switch (t) {
    case FLOE_TYPE_DATE32:
        *out = v.days;
        return v.days >= INT32_MIN && v.days <= INT32_MAX;
    case FLOE_TYPE_TIME64_US: *out = v.us; return true;
    default:
        if (__builtin_mul_overflow(v.days, US_PER_DAY, &x) || __builtin_add_overflow(x, v.us, &x)) return false;
        if (is_ns(t) && (__builtin_mul_overflow(x, 1000, &x) || __builtin_add_overflow(x, v.ns, &x))) return false;
        *out = x;
        return true;
    }
}

/* ------------------------------------------------------- field names */

enum { F_MICROSECOND, F_MILLISECOND, F_SECOND, F_MINUTE, F_HOUR, F_DAY, F_WEEK, F_MONTH, F_QUARTER, F_YEAR,
       F_DECADE, F_CENTURY, F_MILLENNIUM, F_DOW, F_ISODOW, F_DOY, F_ISOYEAR, F_EPOCH, F_NANOSECOND };

static const struct {
    const char *name;
    int field;
} field_names[] = {
    {"microsecond", F_MICROSECOND}, {"microseconds", F_MICROSECOND}, {"us", F_MICROSECOND}, {"usec", F_MICROSECOND},
    {"millisecond", F_MILLISECOND}, {"milliseconds", F_MILLISECOND}, {"ms", F_MILLISECOND}, {"msec", F_MILLISECOND},
    {"second", F_SECOND}, {"seconds", F_SECOND}, {"s", F_SECOND}, {"sec", F_SECOND}, {"secs", F_SECOND},
    {"minute", F_MINUTE}, {"minutes", F_MINUTE}, {"m", F_MINUTE}, {"min", F_MINUTE}, {"mins", F_MINUTE},
    {"hour", F_HOUR}, {"hours", F_HOUR}, {"h", F_HOUR}, {"hr", F_HOUR}, {"hrs", F_HOUR},
    {"day", F_DAY}, {"days", F_DAY}, {"d", F_DAY}, {"dayofmonth", F_DAY},
    {"week", F_WEEK}, {"weeks", F_WEEK}, {"w", F_WEEK}, {"weekofyear", F_WEEK},
    {"month", F_MONTH}, {"months", F_MONTH}, {"mon", F_MONTH}, {"mons", F_MONTH},
    {"quarter", F_QUARTER}, {"quarters", F_QUARTER},
    {"year", F_YEAR}, {"years", F_YEAR}, {"y", F_YEAR}, {"yr", F_YEAR}, {"yrs", F_YEAR},
    {"decade", F_DECADE}, {"decades", F_DECADE},
    {"century", F_CENTURY}, {"centuries", F_CENTURY},
    {"millennium", F_MILLENNIUM}, {"millennia", F_MILLENNIUM}, {"millenniums", F_MILLENNIUM},
    {"dow", F_DOW}, {"dayofweek", F_DOW}, {"weekday", F_DOW},
    {"isodow", F_ISODOW}, {"doy", F_DOY}, {"dayofyear", F_DOY}, {"isoyear", F_ISOYEAR},
    {"epoch", F_EPOCH}, {"nanosecond", F_NANOSECOND}, {"nanoseconds", F_NANOSECOND}, {"ns", F_NANOSECOND},
};
#define N_FIELD_NAMES (sizeof field_names / sizeof field_names[0])

/* The field named by s, or an error naming the function and the field. */
static floe_status parse_field(const floe_func_def *def, floe_strview s, int max_field, int *out) {
    char low[24];
    if (s.len > 0 && s.len < (int32_t)sizeof low) {
        for (int32_t i = 0; i < s.len; i++) low[i] = floe_ascii_lower(s.data[i]);
        low[s.len] = 0;
        for (size_t k = 0; k < N_FIELD_NAMES; k++)
            if (strcmp(field_names[k].name, low) == 0 && field_names[k].field <= max_field) {
                *out = field_names[k].field;
                return NULL;
            }
    }
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: unknown %s '%.*s'", def->name,
                      strcmp(def->name, "date_part") == 0 ? "field" : "unit", s.len > 40 ? 40 : s.len, s.data);
}

/* The value of `field` of v (of type t). */
static int64_t field_value(int field, dtv v) {
    int64_t y = 0, m = 1, d = 1, iy, w;
    if (field >= F_DAY && field != F_EPOCH && field != F_NANOSECOND) civil_from_days(v.days, &y, &m, &d);
    switch (field) {
    case F_NANOSECOND: return (v.us % US_PER_MIN) * 1000 + v.ns;
    case F_MICROSECOND: return v.us % US_PER_MIN;
    case F_MILLISECOND: return (v.us % US_PER_MIN) / 1000;
    case F_SECOND: return (v.us / US_PER_SEC) % 60;
    case F_MINUTE: return (v.us / US_PER_MIN) % 60;
    case F_HOUR: return v.us / US_PER_HOUR;
    case F_DAY: return d;
    case F_WEEK: iso_week(v.days, &iy, &w); return w;
    case F_ISOYEAR: iso_week(v.days, &iy, &w); return iy;
    case F_MONTH: return m;
    case F_QUARTER: return (m - 1) / 3 + 1;
    case F_YEAR: return y;
    case F_DECADE: return y / 10;
    case F_CENTURY: return y > 0 ? (y - 1) / 100 + 1 : -((-y) / 100 + 1);
    case F_MILLENNIUM: return y > 0 ? (y - 1) / 1000 + 1 : -((-y) / 1000 + 1);
    case F_DOW: return iso_dow(v.days) % 7;
    case F_ISODOW: return iso_dow(v.days);
    case F_DOY: return v.days - days_from_civil(y, 1, 1) + 1;
    default: return 0;
    }
}

/* ---------------------------------------------------------- date_part */

static bool is_time_arg(const floe_type *t) { return fn_is_datetime(t) || t->id == FLOE_TYPE_TIME64_US; }

static floe_status const_string(const floe_func_def *def, const floe_expr *const *args, int32_t k,
                                const char *what, floe_strview *out) {
    const floe_expr *e = args[k];
    if (e->kind != FLOE_EXPR_LITERAL ||
        (e->literal->type->id != FLOE_TYPE_STRING && e->literal->type->id != FLOE_TYPE_NULL))
        return fn_need_const(def, k, what);
    if (floe_array_is_null(e->literal, 0)) {
        out->data = NULL;
        out->len = 0;
        return NULL;
    }
    *out = floe_array_get_str(e->literal, 0);
    return NULL;
}

/* PostgreSQL's interval fields: years and months from the months, the
 * days as they are, hours / minutes / seconds of the time (signs kept,
 * truncated toward zero). */
static int64_t interval_field(int field, floe_interval v) {
    int64_t y = v.months / 12, us = v.micros;
    switch (field) {
    case F_MICROSECOND: return us % US_PER_MIN;
    case F_MINUTE: return us / US_PER_MIN % 60;
    case F_HOUR: return us / US_PER_HOUR;
    case F_DAY: return v.days;
    case F_MONTH: return v.months % 12;
    case F_QUARTER: return v.months % 12 / 3 + 1;
    case F_YEAR: return y;
    case F_DECADE: return y / 10;
    case F_CENTURY: return y / 100;
    case F_MILLENNIUM: return y / 1000;
    case F_NANOSECOND: return us % US_PER_MIN * 1000;
    default: return 0;
    }
}
static double interval_frac_field(int field, floe_interval v) {
    int64_t s = v.micros % US_PER_MIN;
    if (field == F_SECOND) return (double)s / 1e6;
    if (field == F_MILLISECOND) return (double)s / 1e3;
    /* epoch: a year is 365.25 days, a month 30 */
    double days = 365.25 * (v.months / 12) + 30.0 * (v.months % 12) + v.days;
    return days * 86400.0 + (double)v.micros / 1e6;
}

static floe_status type_date_part(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                  int32_t n, floe_type **out) {
    floe_strview f;
    int field = F_YEAR;
    if (!fn_is_string(t[0]) || (!is_time_arg(t[1]) && t[1]->id != FLOE_TYPE_INTERVAL)) return fn_type_error(def, t, n);
    FLOE_TRY(const_string(def, args, 0, "field", &f));
    if (f.data) FLOE_TRY(parse_field(def, f, F_NANOSECOND, &field));
    if (t[1]->id == FLOE_TYPE_INTERVAL) {
        if (field == F_WEEK || (field >= F_DOW && field != F_EPOCH))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unit \"%.*s\" not supported for type interval", f.len,
                              f.data);
        bool frac = field == F_SECOND || field == F_MILLISECOND || field == F_EPOCH;
        *out = floe_type_primitive(frac ? FLOE_TYPE_FLOAT64 : FLOE_TYPE_INT64);
        return NULL;
    }
    if (t[1]->id == FLOE_TYPE_TIME64_US && field > F_HOUR && field != F_EPOCH && field != F_NANOSECOND)
        return floe_error(FLOE_ERR_TYPE, "%s: field '%.*s' is not defined for time values", def->name, f.len, f.data);
    *out = floe_type_primitive(field == F_EPOCH ? FLOE_TYPE_FLOAT64 : FLOE_TYPE_INT64);
    return NULL;
}

static floe_status eval_date_part(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                  floe_type *rt, floe_array **out) {
    int field = F_YEAR;
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = NULL;
    if (floe_array_is_valid(a[0], 0)) st = parse_field(def, fn_get_str(a[0], 0), F_NANOSECOND, &field);
    if (!st) st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    if (st) {
        floe_buffer_release(valid);
        return st;
    }
    if (a[1]->type->id == FLOE_TYPE_INTERVAL) {
        for (int64_t i = 0; i < rows; i++) {
            if (valid && !floe_bit_get(valid->data, i)) continue;
            floe_interval v;
            memcpy(&v, floe_array_get_fixed(a[1], fn_at(a[1], i)), sizeof v);
            if (rt->id == FLOE_TYPE_FLOAT64) ((double *)vals->data)[i] = interval_frac_field(field, v);
            else ((int64_t *)vals->data)[i] = interval_field(field, v);
        }
        return fn_make_fixed(rt, rows, valid, vals, out);
    }
    for (int64_t i = 0; i < rows; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        dtv v = dt_get(a[1], i);
        if (field == F_EPOCH)
            ((double *)vals->data)[i] = (double)v.days * 86400.0 + (double)v.us / 1e6 + (double)v.ns / 1e9;
        else
            ((int64_t *)vals->data)[i] = field_value(field, v);
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* year(x), month(x), ...: date_part with the field fixed by def->tag. */
static floe_status type_field_fn(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                 int32_t n, floe_type **out) {
    (void)args;
    if (!is_time_arg(t[0])) return fn_type_error(def, t, n);
    if (t[0]->id == FLOE_TYPE_TIME64_US && def->tag > F_HOUR && def->tag != F_EPOCH && def->tag != F_NANOSECOND)
        return floe_error(FLOE_ERR_TYPE, "%s is not defined for time values", def->name);
    *out = floe_type_primitive(def->tag == F_EPOCH ? FLOE_TYPE_FLOAT64 : FLOE_TYPE_INT64);
    return NULL;
}

static floe_status eval_field_fn(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                 floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    if (st) {
        floe_buffer_release(valid);
        return st;
    }
    for (int64_t i = 0; i < rows; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        dtv v = dt_get(a[0], i);
        if (def->tag == F_EPOCH)
            ((double *)vals->data)[i] = (double)v.days * 86400.0 + (double)v.us / 1e6 + (double)v.ns / 1e9;
        else
            ((int64_t *)vals->data)[i] = field_value(def->tag, v);
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* --------------------------------------------------------- date_trunc */

/* Truncate v to the start of its `unit`.  Dates stay dates. */
static dtv trunc_to(int unit, dtv v) {
    int64_t y, m, d;
    switch (unit) {
    case F_NANOSECOND: return v;
    case F_MICROSECOND: v.ns = 0; return v;
    case F_MILLISECOND: v.ns = 0; v.us -= v.us % 1000; return v;
    case F_SECOND: v.ns = 0; v.us -= v.us % US_PER_SEC; return v;
    case F_MINUTE: v.ns = 0; v.us -= v.us % US_PER_MIN; return v;
    case F_HOUR: v.ns = 0; v.us -= v.us % US_PER_HOUR; return v;
    default: break;
    }
    v.ns = 0;
    v.us = 0;
    if (unit == F_DAY) return v;
    if (unit == F_WEEK) {
        v.days -= iso_dow(v.days) - 1;
        return v;
    }
    civil_from_days(v.days, &y, &m, &d);
    switch (unit) {
    case F_MONTH: break;
    case F_QUARTER: m = (m - 1) / 3 * 3 + 1; break;
    case F_YEAR: m = 1; break;
    case F_DECADE: m = 1; y = floor_div(y, 10) * 10; break;
    case F_CENTURY: m = 1; y = floor_div(y, 100) * 100; break;
    default: m = 1; y = floor_div(y, 1000) * 1000; break; /* millennium */
    }
    v.days = days_from_civil(y, m, 1);
    return v;
}

static floe_status type_date_trunc(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                   int32_t n, floe_type **out) {
    (void)args;
    if (!fn_is_string(t[0]) || !fn_is_datetime(t[1])) return fn_type_error(def, t, n);
    *out = floe_type_retain(t[1]);
    return NULL;
}

/* The unit for row i: parsed once when the argument is a constant. */
typedef struct unit_cache {
    bool known;
    int unit;
} unit_cache;

static floe_status row_unit(const floe_func_def *def, const floe_array *a, int64_t i, int max, unit_cache *c,
                            int *unit) {
    if (c->known) {
        *unit = c->unit;
        return NULL;
    }
    FLOE_TRY(parse_field(def, fn_get_str(a, i), max, unit));
    if (fn_const(a)) {
        c->known = true;
        c->unit = *unit;
    }
    return NULL;
}

/* "f: result for <value> is out of range for <type>". */
static floe_status range_error(const floe_func_def *def, const floe_array *a, int64_t i, const floe_type *rt) {
    floe_buf b;
    floe_buf_init(&b);
    floe_status st = floe_format_value(a, fn_at(a, i), &b);
    if (!st)
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: result for %s is out of range for %s", def->name,
                        floe_buf_cstr(&b), floe_type_id_name(rt->id));
    floe_buf_free(&b);
    return st;
}

static floe_status eval_date_trunc(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                   floe_type *rt, floe_array **out) {
    if (rt->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rt, rows, out);
    floe_buffer *valid = NULL, *vals = NULL;
    unit_cache uc = {false, 0};
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * rt->byte_width, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        int unit;
        int64_t x;
        st = row_unit(def, a[0], i, F_MILLENNIUM, &uc, &unit);
        if (st) break;
        if (!dt_put(trunc_to(unit, dt_get(a[1], i)), rt->id, &x)) {
            st = range_error(def, a[1], i, rt);
            break;
        }
        if (rt->id == FLOE_TYPE_DATE32) ((int32_t *)vals->data)[i] = (int32_t)x;
        else ((int64_t *)vals->data)[i] = x;
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* ------------------------------------------------------- add_interval */

static floe_status type_add_interval(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                     int32_t n, floe_type **out) {
    (void)args;
    if (!fn_is_datetime(t[0]) || !fn_is_int(t[1]) || !fn_is_int(t[2]) || !fn_is_int(t[3]))
        return fn_type_error(def, t, n);
    bool plain = t[0]->id == FLOE_TYPE_DATE32 || t[0]->id == FLOE_TYPE_NULL;
    *out = floe_type_primitive(plain ? FLOE_TYPE_TIMESTAMP_US : t[0]->id);
    return NULL;
}

/* v + months (day clamped to the month's length) + days + micros: the
 * one timestamp + interval (floe/interval.h), on whole microseconds. */
static bool add_interval(dtv v, int64_t months, int64_t days, int64_t micros, floe_type_id t, int64_t *out) {
    if (months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN) return false;
    floe_interval iv = {(int32_t)months, (int32_t)days, 0};
    int64_t us, x;
    if (__builtin_mul_overflow(v.days, US_PER_DAY, &us) || __builtin_add_overflow(us, v.us, &us)) return false;
    if (!floe_timestamp_add_interval(us, iv, &x)) return false;
    if (t == FLOE_TYPE_DATE32) x = floor_div(x, US_PER_DAY) * US_PER_DAY;
    dtv r = {floor_div(x, US_PER_DAY), floor_mod(x, US_PER_DAY), v.ns};
    if (!dt_put(r, t, &x)) return false;
    if (is_ns(t)) return !__builtin_mul_overflow(micros, 1000, &micros) && !__builtin_add_overflow(x, micros, out);
    return !__builtin_add_overflow(x, micros, out);
}

static floe_status eval_add_interval(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                     floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        if (!add_interval(dt_get(a[0], i), fn_get_i64(a[1], i), fn_get_i64(a[2], i), fn_get_i64(a[3], i), rt->id,
                          &((int64_t *)vals->data)[i]))
            st = range_error(def, a[0], i, rt);
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* ---------------------------------------------------------- date_diff */

static floe_status type_date_diff(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                  int32_t n, floe_type **out) {
    (void)args;
    if (!fn_is_string(t[0]) || !fn_is_datetime(t[1]) || !fn_is_datetime(t[2])) return fn_type_error(def, t, n);
    *out = floe_type_primitive(FLOE_TYPE_INT64);
    return NULL;
}

/* Units between a and b: boundaries crossed for calendar units and time
 * units (floor), whole weeks (days / 7, toward zero) for weeks, as DuckDB
 * counts them. */
static bool diff_units(int unit, dtv a, dtv b, int64_t *out) {
    __int128 ta = (__int128)a.days * US_PER_DAY + a.us, tb = (__int128)b.days * US_PER_DAY + b.us, r;
    int64_t ya, ma, da, yb, mb, db;
    switch (unit) {
    case F_NANOSECOND: r = (tb - ta) * 1000 + (b.ns - a.ns); break;
    case F_MICROSECOND: r = tb - ta; break;
    case F_MILLISECOND: case F_SECOND: case F_MINUTE: case F_HOUR: {
        int64_t u = unit == F_MILLISECOND ? 1000 : unit == F_SECOND ? US_PER_SEC : unit == F_MINUTE ? US_PER_MIN
                                                                                                  : US_PER_HOUR;
        /* floor division of 128-bit values by a positive unit */
        __int128 qa = ta / u - (ta % u < 0), qb = tb / u - (tb % u < 0);
        r = qb - qa;
        break;
    }
    case F_DAY: r = b.days - a.days; break;
    case F_WEEK: r = (b.days - a.days) / 7; break;
    default:
        civil_from_days(a.days, &ya, &ma, &da);
        civil_from_days(b.days, &yb, &mb, &db);
        switch (unit) {
        case F_MONTH: r = (yb * 12 + mb) - (ya * 12 + ma); break;
        case F_QUARTER: r = (yb * 4 + (mb - 1) / 3) - (ya * 4 + (ma - 1) / 3); break;
        case F_YEAR: r = yb - ya; break;
        case F_DECADE: r = floor_div(yb, 10) - floor_div(ya, 10); break;
        case F_CENTURY: r = floor_div(yb, 100) - floor_div(ya, 100); break;
        default: r = floor_div(yb, 1000) - floor_div(ya, 1000); break;
        }
    }
    if (r > INT64_MAX || r < INT64_MIN) return false;
    *out = (int64_t)r;
    return true;
}

static floe_status eval_date_diff(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                  floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    unit_cache uc = {false, 0};
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        int unit;
        st = row_unit(def, a[0], i, F_NANOSECOND, &uc, &unit);
        if (!st && (unit == F_EPOCH || unit == F_DOW || unit == F_ISODOW || unit == F_DOY || unit == F_ISOYEAR)) {
            floe_strview u = fn_get_str(a[0], i);
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: unknown unit '%.*s'", def->name, u.len > 40 ? 40 : u.len,
                            u.data);
        }
        if (!st && !diff_units(unit, dt_get(a[1], i), dt_get(a[2], i), &((int64_t *)vals->data)[i]))
            st = range_error(def, a[2], i, rt);
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* ---------------------------------------------------------- make_date */

static floe_status eval_make_date(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                  floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 4, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        int64_t y = fn_get_i64(a[0], i), m = fn_get_i64(a[1], i), d = fn_get_i64(a[2], i);
        /* |y| below 5.8 million keeps the day count inside int32. */
        if (m < 1 || m > 12 || d < 1 || y < -5000000 || y > 5000000 || d > days_in_month(y, m)) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: date field value out of range: %lld-%02lld-%02lld",
                            def->name, (long long)y, (long long)m, (long long)d);
            break;
        }
        ((int32_t *)vals->data)[i] = (int32_t)days_from_civil(y, m, d);
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* make_timestamp(y, m, d, h, mi, s): s may have a fraction (rounded to
 * the microsecond), as in PostgreSQL. */
static floe_status eval_make_timestamp(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                       floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        int64_t y = fn_get_i64(a[0], i), m = fn_get_i64(a[1], i), d = fn_get_i64(a[2], i);
        int64_t h = fn_get_i64(a[3], i), mi = fn_get_i64(a[4], i);
        double sec = fn_get_f64(a[5], i);
        int64_t x;
        if (m < 1 || m > 12 || d < 1 || y < -290000 || y > 290000 || d > days_in_month(y, m) || h < 0 || h > 23 ||
            mi < 0 || mi > 59 || !(sec >= 0 && sec < 60)) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                            "%s: date/time field value out of range: %lld-%02lld-%02lld %02lld:%02lld:%g", def->name,
                            (long long)y, (long long)m, (long long)d, (long long)h, (long long)mi, sec);
            break;
        }
        dtv v = {days_from_civil(y, m, d), h * US_PER_HOUR + mi * US_PER_MIN + llround(sec * 1e6), 0};
        if (v.us >= US_PER_DAY) { /* 59.9999996 s rounds up to the next day */
            v.us -= US_PER_DAY;
            v.days++;
        }
        if (!dt_put(v, rt->id, &x)) {
            st = range_error(def, a[0], i, rt);
            break;
        }
        ((int64_t *)vals->data)[i] = x;
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* ------------------------------------------------------- to_timestamp */

static floe_status eval_to_timestamp(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                     floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        double x = fn_get_f64(a[0], i) * 1e6;
        /* Round to the microsecond; refuse NaN, infinities and overflow. */
        if (!(x > -9.2e18 && x < 9.2e18)) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: %g seconds is out of the timestamp range", def->name,
                            fn_get_f64(a[0], i));
            break;
        }
        ((int64_t *)vals->data)[i] = (int64_t)llround(x);
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* ------------------------------------------------- current_date, now */

static floe_status eval_now(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                            floe_type *rt, floe_array **out) {
    (void)a, (void)n;
    struct timespec ts;
    floe_buffer *vals;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return floe_error(FLOE_ERR_IO, "%s: cannot read the clock", def->name);
    int64_t us = (int64_t)ts.tv_sec * US_PER_SEC + ts.tv_nsec / 1000;
    FLOE_TRY(floe_buffer_new(rows * rt->byte_width, &vals));
    for (int64_t i = 0; i < rows; i++) {
        if (rt->id == FLOE_TYPE_DATE32) ((int32_t *)vals->data)[i] = (int32_t)floor_div(us, US_PER_DAY);
        else ((int64_t *)vals->data)[i] = us;
    }
    return fn_make_fixed(rt, rows, NULL, vals, out);
}

/* ----------------------------------------------------------- strftime */

static const char *const day_names[7] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                         "Saturday"};
static const char *const month_names[12] = {"January", "February", "March", "April", "May", "June", "July",
                                           "August", "September", "October", "November", "December"};

static floe_status type_strftime(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                 int32_t n, floe_type **out) {
    (void)args;
    if (!is_time_arg(t[0]) || !fn_is_string(t[1])) return fn_type_error(def, t, n);
    *out = floe_type_primitive(FLOE_TYPE_STRING);
    return NULL;
}

/* Append v in decimal, zero-padded to `width` digits (printf is far too
 * slow for a per-row format). */
static floe_status put_num(floe_buf *o, int64_t v, int width) {
    char tmp[24];
    int n = 0;
    bool neg = v < 0;
    uint64_t u = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[sizeof tmp - 1 - n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n < width && n < 20) tmp[sizeof tmp - 1 - n++] = '0';
    if (neg) tmp[sizeof tmp - 1 - n++] = '-';
    return floe_buf_append(o, tmp + sizeof tmp - n, (size_t)n);
}

/* Append v formatted by fmt (strftime-style, DuckDB's specifiers). */
static floe_status format_dt(const floe_func_def *def, dtv v, floe_type_id t, floe_strview fmt, floe_buf *o) {
    int64_t y, m, d, iy, w;
    civil_from_days(v.days, &y, &m, &d);
    int64_t dow = iso_dow(v.days) % 7, hour = v.us / US_PER_HOUR;
    for (int32_t i = 0; i < fmt.len; i++) {
        if (fmt.data[i] != '%') {
            int32_t j = i;
            while (j < fmt.len && fmt.data[j] != '%') j++;
            FLOE_TRY(floe_buf_append(o, fmt.data + i, (size_t)(j - i)));
            i = j - 1;
            continue;
        }
        bool pad = true;
        if (i + 1 < fmt.len && fmt.data[i + 1] == '-') {
            pad = false;
            i++;
        }
        if (++i >= fmt.len)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: format '%.*s' ends with '%%'", def->name,
                              fmt.len > 60 ? 60 : fmt.len, fmt.data);
        int64_t num = 0;
        int width = 2;
        switch (fmt.data[i]) {
        case 'a': FLOE_TRY(floe_buf_append(o, day_names[dow], 3)); continue;
        case 'A': FLOE_TRY(floe_buf_append_str(o, day_names[dow])); continue;
        case 'b': case 'h': FLOE_TRY(floe_buf_append(o, month_names[m - 1], 3)); continue;
        case 'B': FLOE_TRY(floe_buf_append_str(o, month_names[m - 1])); continue;
        case 'p': FLOE_TRY(floe_buf_append_str(o, hour < 12 ? "AM" : "PM")); continue;
        case '%': FLOE_TRY(floe_buf_append_byte(o, '%')); continue;
        case 'z': if (is_tz(t)) FLOE_TRY(floe_buf_append_str(o, "+00")); continue;
        case 'Z': if (is_tz(t)) FLOE_TRY(floe_buf_append_str(o, "UTC")); continue;
        case 'F':
            FLOE_TRY(put_num(o, y, y >= 0 ? 4 : 1));
            FLOE_TRY(floe_buf_append_byte(o, '-'));
            FLOE_TRY(put_num(o, m, 2));
            FLOE_TRY(floe_buf_append_byte(o, '-'));
            FLOE_TRY(put_num(o, d, 2));
            continue;
        case 'T':
            FLOE_TRY(put_num(o, hour, 2));
            FLOE_TRY(floe_buf_append_byte(o, ':'));
            FLOE_TRY(put_num(o, v.us / US_PER_MIN % 60, 2));
            FLOE_TRY(floe_buf_append_byte(o, ':'));
            FLOE_TRY(put_num(o, v.us / US_PER_SEC % 60, 2));
            continue;
        case 'Y': case 'G':
            if (fmt.data[i] == 'G') iso_week(v.days, &y, &w);
            FLOE_TRY(put_num(o, y, y >= 0 && pad ? 4 : 1));
            continue;
        case 'd': num = d; break;
        case 'e': num = d; if (pad && d < 10) FLOE_TRY(floe_buf_append_byte(o, ' ')); pad = false; break;
        case 'm': num = m; break;
        case 'y': num = floor_mod(y, 100); break;
        case 'H': num = hour; break;
        case 'I': num = hour % 12 == 0 ? 12 : hour % 12; break;
        case 'M': num = v.us / US_PER_MIN % 60; break;
        case 'S': num = v.us / US_PER_SEC % 60; break;
        case 'j': num = v.days - days_from_civil(y, 1, 1) + 1; width = 3; break;
        case 'u': num = iso_dow(v.days); width = 1; break;
        case 'w': num = dow; width = 1; break;
        case 'V': iso_week(v.days, &iy, &w); num = w; break;
        case 'f': num = v.us % US_PER_SEC; width = 6; break;
        case 'g': num = v.us % US_PER_SEC / 1000; width = 3; break;
        case 'n': num = (v.us % US_PER_SEC) * 1000 + v.ns; width = 9; break;
        case 's': num = v.days * 86400 + v.us / US_PER_SEC; width = 1; break;
        default:
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: unknown format specifier '%%%c'", def->name, fmt.data[i]);
        }
        FLOE_TRY(put_num(o, num, pad ? width : 1));
    }
    return NULL;
}

/* ------------------------------------------------------------ to_char */

/* PostgreSQL's to_char(date/timestamp, pattern).  Keywords are matched
 * longest first; "FM" before one drops its padding; "..." is literal
 * text; anything else is copied.  Month and day names follow the case of
 * the keyword (MONTH, Month, month) and are blank-padded to 9 characters
 * unless FM is given. */
enum { K_HH24, K_HH12, K_HH, K_MI, K_SSSS, K_SS, K_MS, K_US, K_AMDOT, K_PMDOT, K_AM, K_PM, K_IYYY, K_YYYY, K_YYY,
       K_YY, K_Y, K_IW, K_ID, K_MONTH, K_MON, K_MM, K_DAY, K_DY, K_DDD, K_DD, K_D, K_WW, K_Q, K_CC, K_TZ, K_J };

static const struct {
    const char *kw;
    int id;
} pg_keywords[] = {
    {"HH24", K_HH24}, {"HH12", K_HH12}, {"HH", K_HH}, {"MI", K_MI}, {"SSSS", K_SSSS}, {"SS", K_SS},
    {"MS", K_MS}, {"US", K_US}, {"A.M.", K_AMDOT}, {"P.M.", K_PMDOT}, {"AM", K_AM}, {"PM", K_PM},
    {"IYYY", K_IYYY}, {"YYYY", K_YYYY}, {"YYY", K_YYY}, {"YY", K_YY}, {"Y", K_Y}, {"IW", K_IW}, {"ID", K_ID},
    {"MONTH", K_MONTH}, {"MON", K_MON}, {"MM", K_MM}, {"DAY", K_DAY}, {"DY", K_DY}, {"DDD", K_DDD},
    {"DD", K_DD}, {"D", K_D}, {"WW", K_WW}, {"Q", K_Q}, {"CC", K_CC}, {"TZ", K_TZ}, {"J", K_J},
};

/* Append a name in the case style of the keyword text `kw` (all upper,
 * capitalised or all lower), padded to `pad` characters. */
static floe_status put_name(floe_buf *o, const char *name, size_t len, const char *kw, int pad) {
    bool all_upper = kw[0] >= 'A' && kw[0] <= 'Z' && kw[1] >= 'A' && kw[1] <= 'Z';
    bool cap = kw[0] >= 'A' && kw[0] <= 'Z';
    for (size_t k = 0; k < len; k++) {
        char c = name[k];
        c = (all_upper || (cap && k == 0)) ? floe_ascii_upper(c) : floe_ascii_lower(c);
        FLOE_TRY(floe_buf_append_byte(o, (uint8_t)c));
    }
    for (int k = (int)len; k < pad; k++) FLOE_TRY(floe_buf_append_byte(o, ' '));
    return NULL;
}

static floe_status format_pg(const floe_func_def *def, dtv v, floe_type_id t, floe_strview fmt, floe_buf *o) {
    int64_t y, m, d, iy, w;
    civil_from_days(v.days, &y, &m, &d);
    int64_t hour = v.us / US_PER_HOUR, doy = v.days - days_from_civil(y, 1, 1) + 1, dow = iso_dow(v.days) % 7;
    for (int32_t i = 0; i < fmt.len;) {
        const char *p = fmt.data + i;
        int32_t left = fmt.len - i;
        if (p[0] == '"') { /* literal text, \" escapes a quote */
            int32_t j = 1;
            while (j < left && p[j] != '"') {
                if (p[j] == '\\' && j + 1 < left) j++;
                FLOE_TRY(floe_buf_append_byte(o, (uint8_t)p[j]));
                j++;
            }
            i += j < left ? j + 1 : j;
            continue;
        }
        bool fm = left >= 2 && (p[0] == 'F' || p[0] == 'f') && (p[1] == 'M' || p[1] == 'm');
        int32_t off = fm ? 2 : 0;
        int id = -1;
        size_t klen = 0;
        for (size_t k = 0; k < sizeof pg_keywords / sizeof pg_keywords[0]; k++) {
            size_t l = strlen(pg_keywords[k].kw);
            if ((size_t)(left - off) >= l && strncasecmp(p + off, pg_keywords[k].kw, l) == 0) {
                id = pg_keywords[k].id;
                klen = l;
                break;
            }
        }
        if (id < 0) {
            FLOE_TRY(floe_buf_append_byte(o, (uint8_t)p[0]));
            i++;
            continue;
        }
        const char *kw = p + off;
        int64_t num = 0;
        int width = 2;
        i += off + (int32_t)klen;
        switch (id) {
        case K_HH24: num = hour; break;
        case K_HH12: case K_HH: num = hour % 12 == 0 ? 12 : hour % 12; break;
        case K_MI: num = v.us / US_PER_MIN % 60; break;
        case K_SSSS: num = v.us / US_PER_SEC; width = 1; break;
        case K_SS: num = v.us / US_PER_SEC % 60; break;
        case K_MS: num = v.us % US_PER_SEC / 1000; width = 3; break;
        case K_US: num = v.us % US_PER_SEC; width = 6; break;
        case K_AM: case K_PM: case K_AMDOT: case K_PMDOT: {
            bool dots = id == K_AMDOT || id == K_PMDOT, lower = kw[0] >= 'a';
            const char *txt = hour < 12 ? (dots ? "A.M." : "AM") : (dots ? "P.M." : "PM");
            FLOE_TRY(put_name(o, txt, strlen(txt), lower ? "aa" : "AA", 0));
            continue;
        }
        case K_IYYY: iso_week(v.days, &iy, &w); num = iy; width = 4; break;
        case K_YYYY: num = y; width = 4; break;
        case K_YYY: num = floor_mod(y, 1000); width = 3; break;
        case K_YY: num = floor_mod(y, 100); break;
        case K_Y: num = floor_mod(y, 10); width = 1; break;
        case K_IW: iso_week(v.days, &iy, &w); num = w; break;
        case K_ID: num = iso_dow(v.days); width = 1; break;
        case K_MONTH: FLOE_TRY(put_name(o, month_names[m - 1], strlen(month_names[m - 1]), kw, fm ? 0 : 9)); continue;
        case K_MON: FLOE_TRY(put_name(o, month_names[m - 1], 3, kw, 0)); continue;
        case K_MM: num = m; break;
        case K_DAY: FLOE_TRY(put_name(o, day_names[dow], strlen(day_names[dow]), kw, fm ? 0 : 9)); continue;
        case K_DY: FLOE_TRY(put_name(o, day_names[dow], 3, kw, 0)); continue;
        case K_DDD: num = doy; width = 3; break;
        case K_DD: num = d; break;
        case K_D: num = dow + 1; width = 1; break;
        case K_WW: num = (doy - 1) / 7 + 1; break;
        case K_Q: num = (m - 1) / 3 + 1; width = 1; break;
        case K_CC: num = y > 0 ? (y - 1) / 100 + 1 : -((-y) / 100 + 1); break;
        case K_TZ:
            if (is_tz(t)) FLOE_TRY(put_name(o, "UTC", 3, kw, 0));
            continue;
        default: num = v.days + 2440588; width = 1; break; /* J: Julian day */
        }
        FLOE_TRY(put_num(o, num, fm ? 1 : width));
    }
    (void)def;
    return NULL;
}

static floe_status eval_strftime(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                 floe_type *rt, floe_array **out) {
    fn_strwriter w;
    floe_buffer *valid;
    FLOE_TRY(fn_validity(a, n, rows, &valid));
    FLOE_TRY(fn_sw_init(&w, rows, valid));
    floe_status st = NULL;
    if (fn_const(a[1]) && floe_array_is_valid(a[1], 0)) /* about the format's length per row */
        st = floe_buf_reserve(&w.data, (size_t)rows * (size_t)(fn_get_str(a[1], 0).len + 4));
    for (int64_t i = 0; i < rows && !st; i++) {
        if (fn_sw_valid(&w, i))
            st = (def->tag ? format_pg : format_dt)(def, dt_get(a[0], i), a[0]->type->id, fn_get_str(a[1], i), &w.data);
        if (!st) st = fn_sw_end_row(&w);
    }
    if (st) {
        fn_sw_free(&w);
        return st;
    }
    return fn_sw_finish(&w, rt, out);
}

const floe_func_def floe_datetime_funcs[] = {
    {"date_part", 2, 2, "date_part(string, date|timestamp|time)", type_date_part, eval_date_part, 0, NULL, 0},
    {"date_trunc", 2, 2, "date_trunc(string, date|timestamp)", type_date_trunc, eval_date_trunc, 0, NULL, 0},
    {"add_interval", 4, 4, "add_interval(date|timestamp, int months, int days, int micros)", type_add_interval,
     eval_add_interval, 0, NULL, 0},
    {"date_diff", 3, 3, "date_diff(string, date|timestamp, date|timestamp)", type_date_diff, eval_date_diff, 0, NULL,
     0},
    {"make_date", 3, 3, "make_date(int, int, int)", fn_type_simple, eval_make_date, 0, "III", FLOE_TYPE_DATE32},
    {"to_timestamp", 1, 1, "to_timestamp(numeric)", fn_type_simple, eval_to_timestamp, 0, "N",
     FLOE_TYPE_TIMESTAMP_US_TZ},
    {"strftime", 2, 2, "strftime(date|timestamp|time, string)", type_strftime, eval_strftime, 0, NULL, 0},
    {"to_char", 2, 2, "to_char(date|timestamp|time, string)", type_strftime, eval_strftime, 1, NULL, 0},
    {"make_timestamp", 6, 6, "make_timestamp(int, int, int, int, int, numeric)", fn_type_simple,
     eval_make_timestamp, 0, "IIIIIN", FLOE_TYPE_TIMESTAMP_US},
#define FIELD_FN(name, field) {name, 1, 1, name "(date|timestamp)", type_field_fn, eval_field_fn, field, NULL, 0}
    FIELD_FN("year", F_YEAR), FIELD_FN("quarter", F_QUARTER), FIELD_FN("month", F_MONTH), FIELD_FN("week", F_WEEK),
    FIELD_FN("weekofyear", F_WEEK), FIELD_FN("day", F_DAY), FIELD_FN("dayofmonth", F_DAY),
    FIELD_FN("dayofweek", F_DOW), FIELD_FN("isodow", F_ISODOW), FIELD_FN("dayofyear", F_DOY),
    FIELD_FN("isoyear", F_ISOYEAR), FIELD_FN("hour", F_HOUR), FIELD_FN("minute", F_MINUTE),
    FIELD_FN("second", F_SECOND), FIELD_FN("millisecond", F_MILLISECOND), FIELD_FN("microsecond", F_MICROSECOND),
    FIELD_FN("epoch", F_EPOCH), FIELD_FN("decade", F_DECADE), FIELD_FN("century", F_CENTURY),
    FIELD_FN("millennium", F_MILLENNIUM),
#undef FIELD_FN
    {"current_date", 0, 0, "current_date()", fn_type_simple, eval_now, 0, "A", FLOE_TYPE_DATE32},
    {"now", 0, 0, "now()", fn_type_simple, eval_now, 0, "A", FLOE_TYPE_TIMESTAMP_US_TZ},
    {"current_timestamp", 0, 0, "current_timestamp()", fn_type_simple, eval_now, 0, "A", FLOE_TYPE_TIMESTAMP_US_TZ},
    {0},
};
