/*
 * func_interval.c — the kernels behind interval arithmetic (the binder
 * turns `a + b`, `-a`, `a * n`, `ts - ts`, `time + a` into these calls,
 * see bind_operator.c) and the interval functions: make_interval,
 * justify_days / justify_hours / justify_interval, date_bin, and
 * __generate_series_ts: generate_series(timestamp[tz], timestamp[tz],
 * interval) as the list of its values, which the binder unnests; time -
 * time (time_diff) and date ± time (date_add_time / date_sub_time).  The value itself and
 * its rounding rules are floe/interval.h.
 *
 * date/timestamp ± interval is the datetime family's add_interval fed by
 * interval_months / interval_days / interval_micros, so all of floe adds
 * months, days and microseconds to a date one way.
 */
#include <math.h>
#include <string.h>

#include "exec/func/functions.h"
#include "floe/interval.h"

static floe_interval iv_get(const floe_array *a, int64_t i) {
    floe_interval v;
    memcpy(&v, floe_array_get_fixed(a, fn_at(a, i)), sizeof v);
    return v;
}

static floe_status out_of_range(const floe_func_def *def) {
    (void)def;
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "interval out of range");
}

/* One pass over the rows for kernels giving an interval: row() computes
 * row i, false = out of range. */
typedef bool (*iv_row_fn)(const floe_func_def *def, floe_array *const *a, int64_t i, floe_interval *out,
                          floe_status *err);

static floe_status eval_iv(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows, floe_type *rt,
                           iv_row_fn row, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 16, &vals);
    if (!st) memset(vals->data, 0, (size_t)rows * 16);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        floe_interval v;
        floe_status err = NULL;
        if (!row(def, a, i, &v, &err)) st = err ? err : out_of_range(def);
        else memcpy(vals->data + i * 16, &v, 16);
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* ------------------------------------------------ interval arithmetic */

static bool row_addsub(const floe_func_def *def, floe_array *const *a, int64_t i, floe_interval *o, floe_status *e) {
    (void)e;
    return def->tag ? floe_interval_sub(iv_get(a[0], i), iv_get(a[1], i), o)
                    : floe_interval_add(iv_get(a[0], i), iv_get(a[1], i), o);
}
static floe_status eval_addsub(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                               floe_type *rt, floe_array **out) {
    return eval_iv(def, a, n, rows, rt, row_addsub, out);
}

static bool row_neg(const floe_func_def *def, floe_array *const *a, int64_t i, floe_interval *o, floe_status *e) {
    (void)def;
    (void)e;
    return floe_interval_neg(iv_get(a[0], i), o);
}
static floe_status eval_neg(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows, floe_type *rt,
                            floe_array **out) {
    return eval_iv(def, a, n, rows, rt, row_neg, out);
}

static bool row_muldiv(const floe_func_def *def, floe_array *const *a, int64_t i, floe_interval *o, floe_status *e) {
    double f = fn_get_f64(a[1], i);
    if (def->tag && f == 0) {
        *e = floe_error(FLOE_ERR_INVALID_ARGUMENT, "division by zero");
        return false;
    }
    return def->tag ? floe_interval_div(iv_get(a[0], i), f, o) : floe_interval_mul(iv_get(a[0], i), f, o);
}
static floe_status eval_muldiv(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                               floe_type *rt, floe_array **out) {
    return eval_iv(def, a, n, rows, rt, row_muldiv, out);
}

static bool row_justify(const floe_func_def *def, floe_array *const *a, int64_t i, floe_interval *o, floe_status *e) {
    (void)e;
    floe_interval v = iv_get(a[0], i);
    *o = def->tag == 0 ? floe_interval_justify_days(v) : def->tag == 1 ? floe_interval_justify_hours(v)
                                                                         : floe_interval_justify(v);
    return true;
}
static floe_status eval_justify(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                floe_type *rt, floe_array **out) {
    return eval_iv(def, a, n, rows, rt, row_justify, out);
}

/* make_interval(years, months, weeks, days, hours, mins, secs): missing
 * trailing arguments are 0 (the binder places named ones). */
static bool row_make(const floe_func_def *def, floe_array *const *a, int64_t i, floe_interval *o, floe_status *e) {
    (void)def;
    (void)e;
    int64_t f[6] = {0, 0, 0, 0, 0, 0};
    double secs = 0;
    int32_t n = def->max_args; /* the kernel sees every argument: the binder pads with zeros */
    for (int32_t k = 0; k < 6 && k < n; k++) f[k] = fn_get_i64(a[k], i);
    if (n == 7) secs = fn_get_f64(a[6], i);
    __int128 months = (__int128)f[0] * 12 + f[1], days = (__int128)f[2] * 7 + f[3];
    double us = rint(((double)f[4] * 3600 + (double)f[5] * 60 + secs) * 1e6);
    if (isnan(us) || us >= 9223372036854775808.0 || us < -9223372036854775808.0) return false;
    if (months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN) return false;
    o->months = (int32_t)months;
    o->days = (int32_t)days;
    o->micros = (int64_t)us;
    return true;
}
static floe_status eval_make(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows, floe_type *rt,
                             floe_array **out) {
    if (n != 7) return floe_error(FLOE_ERR_INTERNAL, "make_interval: %d arguments after binding", (int)n);
    return eval_iv(def, a, n, rows, rt, row_make, out);
}

/* ----------------------------------------------- parts, for add_interval */

/* A function of 8-byte results (interval parts, times of day): `row`
 * computes row i's value; NULL in any argument gives NULL. */
typedef int64_t (*i64_row_fn)(const floe_func_def *def, floe_array *const *a, int64_t i);

static floe_status eval_i64(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows, floe_type *rt,
                            i64_row_fn row, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    if (st) {
        floe_buffer_release(valid);
        return st;
    }
    int64_t *v = (int64_t *)vals->data;
    for (int64_t i = 0; i < rows; i++) v[i] = valid && !floe_bit_get(valid->data, i) ? 0 : row(def, a, i);
    return fn_make_fixed(rt, rows, valid, vals, out);
}

static int64_t row_part(const floe_func_def *def, floe_array *const *a, int64_t i) {
    floe_interval x = iv_get(a[0], i);
    return def->tag == 0 ? x.months : def->tag == 1 ? x.days : x.micros;
}
static floe_status eval_part(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows, floe_type *rt,
                             floe_array **out) {
    return eval_i64(def, a, n, rows, rt, row_part, out);
}

/* ------------------------------------------- timestamp - timestamp */

static bool is_ts(const floe_type *t) {
    return t->id == FLOE_TYPE_TIMESTAMP_US || t->id == FLOE_TYPE_TIMESTAMP_US_TZ || t->id == FLOE_TYPE_TIMESTAMP_NS ||
           t->id == FLOE_TYPE_TIMESTAMP_NS_TZ || t->id == FLOE_TYPE_NULL;
}
static bool is_ns(const floe_type *t) {
    return t->id == FLOE_TYPE_TIMESTAMP_NS || t->id == FLOE_TYPE_TIMESTAMP_NS_TZ;
}

static floe_status type_ts_diff(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                int32_t n, floe_type **out) {
    (void)args;
    if (!is_ts(t[0]) || !is_ts(t[1])) return fn_type_error(def, t, n);
    *out = floe_type_primitive(FLOE_TYPE_INTERVAL);
    return NULL;
}

/* PostgreSQL's timestamp_mi: the difference in microseconds, whole days
 * moved out of the time part (justify_hours); never months. */
static bool row_ts_diff(const floe_func_def *def, floe_array *const *a, int64_t i, floe_interval *o, floe_status *e) {
    (void)def;
    (void)e;
    int64_t x = fn_get_i64(a[0], i), y = fn_get_i64(a[1], i), d;
    if (is_ns(a[0]->type)) x /= 1000;
    if (is_ns(a[1]->type)) y /= 1000;
    if (__builtin_sub_overflow(x, y, &d)) return false;
    floe_interval v = {0, 0, d};
    *o = floe_interval_justify_hours(v);
    return true;
}
static bool row_age(const floe_func_def *def, floe_array *const *a, int64_t i, floe_interval *o, floe_status *e) {
    (void)def;
    (void)e;
    int64_t x = fn_get_i64(a[0], i), y = fn_get_i64(a[1], i);
    if (a[0]->type->id == FLOE_TYPE_DATE32) x *= FLOE_US_PER_DAY;
    else if (is_ns(a[0]->type)) x /= 1000;
    if (a[1]->type->id == FLOE_TYPE_DATE32) y *= FLOE_US_PER_DAY;
    else if (is_ns(a[1]->type)) y /= 1000;
    *o = floe_timestamp_age(x, y);
    return true;
}
static floe_status eval_age(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows, floe_type *rt,
                            floe_array **out) {
    return eval_iv(def, a, n, rows, rt, row_age, out);
}

static floe_status eval_ts_diff(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                floe_type *rt, floe_array **out) {
    return eval_iv(def, a, n, rows, rt, row_ts_diff, out);
}

/* ---------------------------------------------------- time ± interval */

/* time + interval: the interval's time part, wrapped around midnight
 * (months and days do not move a time of day). */
static int64_t row_time_add(const floe_func_def *def, floe_array *const *a, int64_t i) {
    int64_t us = iv_get(a[1], i).micros % FLOE_US_PER_DAY;
    if (def->tag) us = -us;
    int64_t r = (fn_get_i64(a[0], i) + us) % FLOE_US_PER_DAY;
    return r < 0 ? r + FLOE_US_PER_DAY : r;
}
static floe_status eval_time_add(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                 floe_type *rt, floe_array **out) {
    return eval_i64(def, a, n, rows, rt, row_time_add, out);
}

/* ------------------------------------- time - time, date ± time */

/* time - time: an interval of the difference in microseconds. */
static bool row_time_diff(const floe_func_def *def, floe_array *const *a, int64_t i, floe_interval *o, floe_status *e) {
    (void)def;
    (void)e;
    o->months = 0;
    o->days = 0;
    o->micros = fn_get_i64(a[0], i) - fn_get_i64(a[1], i);
    return true;
}
static floe_status eval_time_diff(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                  floe_type *rt, floe_array **out) {
    return eval_iv(def, a, n, rows, rt, row_time_diff, out);
}

/* date + time, date - time: the timestamp at that time of day (before
 * the date's midnight for -). */
static int64_t row_date_time(const floe_func_def *def, floe_array *const *a, int64_t i) {
    int64_t t = fn_get_i64(a[1], i);
    return fn_get_i64(a[0], i) * FLOE_US_PER_DAY + (def->tag ? -t : t);
}
static floe_status eval_date_time(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                  floe_type *rt, floe_array **out) {
    return eval_i64(def, a, n, rows, rt, row_date_time, out);
}

/* date_bin(stride, source, origin): the start of the stride-wide bin of
 * source, bins counted from origin (rounding down, also before origin), as
 * PostgreSQL 15; a stride of months is refused, as one of zero or less. */
static floe_status type_date_bin(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                 int32_t n, floe_type **out) {
    (void)args;
    floe_type_id s = t[1]->id, o = t[2]->id;
    bool ts = s == FLOE_TYPE_TIMESTAMP_US || s == FLOE_TYPE_TIMESTAMP_US_TZ;
    if ((t[0]->id != FLOE_TYPE_INTERVAL && t[0]->id != FLOE_TYPE_NULL) || !ts || (o != s && o != FLOE_TYPE_NULL))
        return fn_type_error(def, t, n);
    *out = floe_type_primitive(s);
    return NULL;
}

static floe_status eval_date_bin(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                 floe_type *rt, floe_array **out) {
    (void)def;
    if (a[0]->type->id == FLOE_TYPE_NULL || a[2]->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rt, rows, out);
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        floe_interval iv = iv_get(a[0], i);
        int64_t stride, src = fn_get_i64(a[1], i), origin = fn_get_i64(a[2], i), diff, q;
        if (iv.months != 0) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "timestamps cannot be binned into intervals containing months or years");
        } else if (__builtin_mul_overflow((int64_t)iv.days, (int64_t)86400000000, &stride) ||
                   __builtin_add_overflow(stride, iv.micros, &stride) || __builtin_sub_overflow(src, origin, &diff)) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "interval out of range");
        } else if (stride <= 0) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "stride must be greater than zero");
        } else {
            q = diff / stride - (diff % stride < 0); /* floor */
            ((int64_t *)vals->data)[i] = origin + q * stride;
        }
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* ------------------------- generate_series(timestamp, timestamp, interval) */

static floe_status type_series(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t, int32_t n,
                               floe_type **out) {
    (void)args;
    bool us0 = t[0]->id == FLOE_TYPE_TIMESTAMP_US || t[0]->id == FLOE_TYPE_TIMESTAMP_US_TZ;
    if (!us0 || t[1]->id != t[0]->id || t[2]->id != FLOE_TYPE_INTERVAL) return fn_type_error(def, t, n);
    floe_field e = {0};
    floe_status st = floe_field_init(&e, "element", floe_type_primitive(t[0]->id), true, -1);
    if (!st) st = floe_type_list(&e, out);
    floe_field_clear(&e);
    return st;
}

/* One list a row: start, start + step, ... while not past stop (NULL
 * arguments: an empty set, a NULL list); a zero step is an error as in
 * PostgreSQL. */
static floe_status eval_series(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows, floe_type *rt,
                               floe_array **out) {
    (void)def;
    (void)n;
    floe_builder *b = NULL;
    FLOE_TRY(floe_builder_new(rt, rows, &b));
    floe_builder *c = floe_builder_child(b, 0);
    floe_status st = NULL;
    for (int64_t i = 0; i < rows && !st; i++) {
        if (fn_null(a[0], i) || fn_null(a[1], i) || fn_null(a[2], i)) {
            st = floe_builder_append_null(b);
            continue;
        }
        int64_t cur = fn_get_i64(a[0], i), stop = fn_get_i64(a[1], i);
        floe_interval step = iv_get(a[2], i), zero = {0, 0, 0};
        int sign = floe_interval_cmp(step, zero);
        if (sign == 0) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "step size cannot equal zero");
            break;
        }
        while (!st && (sign > 0 ? cur <= stop : cur >= stop)) {
            st = floe_builder_append_int64(c, cur);
            if (!st && !floe_timestamp_add_interval(cur, step, &cur))
                break; /* past the end of the timestamp range: the series ends */
        }
        if (!st) st = floe_builder_append_list(b);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

const floe_func_def floe_interval_funcs[] = {
    {"__generate_series_ts", 3, 3, "generate_series(timestamp, timestamp, interval)", type_series, eval_series, 0,
     NULL, 0},
    {"date_bin", 3, 3, "date_bin(interval, timestamp, timestamp)", type_date_bin, eval_date_bin, 0, NULL, 0},
    {"interval_add", 2, 2, "interval_add(interval, interval)", fn_type_simple, eval_addsub, 0, "VV",
     FLOE_TYPE_INTERVAL},
    {"interval_sub", 2, 2, "interval_sub(interval, interval)", fn_type_simple, eval_addsub, 1, "VV",
     FLOE_TYPE_INTERVAL},
    {"interval_neg", 1, 1, "interval_neg(interval)", fn_type_simple, eval_neg, 0, "V", FLOE_TYPE_INTERVAL},
    {"interval_mul", 2, 2, "interval_mul(interval, numeric)", fn_type_simple, eval_muldiv, 0, "VN",
     FLOE_TYPE_INTERVAL},
    {"interval_div", 2, 2, "interval_div(interval, numeric)", fn_type_simple, eval_muldiv, 1, "VN",
     FLOE_TYPE_INTERVAL},
    {"interval_months", 1, 1, "interval_months(interval)", fn_type_simple, eval_part, 0, "V", FLOE_TYPE_INT64},
    {"interval_days", 1, 1, "interval_days(interval)", fn_type_simple, eval_part, 1, "V", FLOE_TYPE_INT64},
    {"interval_micros", 1, 1, "interval_micros(interval)", fn_type_simple, eval_part, 2, "V", FLOE_TYPE_INT64},
    {"timestamp_diff", 2, 2, "timestamp_diff(timestamp, timestamp)", type_ts_diff, eval_ts_diff, 0, NULL, 0},
    {"age", 2, 2, "age(timestamp, timestamp)", fn_type_simple, eval_age, 0, "TT", FLOE_TYPE_INTERVAL},
    {"time_add_interval", 2, 2, "time_add_interval(time, interval)", fn_type_simple, eval_time_add, 0, "HV",
     FLOE_TYPE_TIME64_US},
    {"time_sub_interval", 2, 2, "time_sub_interval(time, interval)", fn_type_simple, eval_time_add, 1, "HV",
     FLOE_TYPE_TIME64_US},
    {"time_diff", 2, 2, "time - time", fn_type_simple, eval_time_diff, 0, "HH", FLOE_TYPE_INTERVAL},
    {"date_add_time", 2, 2, "date + time", fn_type_simple, eval_date_time, 0, "AH", FLOE_TYPE_TIMESTAMP_US},
    {"date_sub_time", 2, 2, "date - time", fn_type_simple, eval_date_time, 1, "AH", FLOE_TYPE_TIMESTAMP_US},
    {"justify_days", 1, 1, "justify_days(interval)", fn_type_simple, eval_justify, 0, "V", FLOE_TYPE_INTERVAL},
    {"justify_hours", 1, 1, "justify_hours(interval)", fn_type_simple, eval_justify, 1, "V", FLOE_TYPE_INTERVAL},
    {"justify_interval", 1, 1, "justify_interval(interval)", fn_type_simple, eval_justify, 2, "V",
     FLOE_TYPE_INTERVAL},
    {"make_interval", 0, 7, "make_interval(years, months, weeks, days, hours, mins, secs)", fn_type_simple,
     eval_make, 0, "IIIIIIN", FLOE_TYPE_INTERVAL},
    {0},
};
