/*
 * func_timezone.c — timezone(zone, ts), which is also what
 * `ts AT TIME ZONE zone` parses to, in PostgreSQL 15's two directions:
 *
 *   timestamp   -> timestamptz: ts is a wall-clock time in `zone`; the
 *                  result is that instant (DST gaps and overlaps resolved
 *                  as PostgreSQL does, see floe_tz_local_to_utc);
 *   timestamptz -> timestamp:   the wall-clock time in `zone` at the instant.
 *
 * A date is read as a timestamptz (midnight in the session zone, which in
 * floe is UTC), as PostgreSQL's preferred-type rule makes it.  Zones are
 * looked up by base/tz.c (tzdata names, abbreviations, POSIX offsets); a
 * constant zone is looked up once per batch.
 */
#include <string.h>

#include "base/buffer.h"
#include "base/tz.h"
#include "floe/interval.h"
#include "exec/expr/cast.h"
#include "exec/func/functions.h"

static bool is_tz_type(floe_type_id t) { return t == FLOE_TYPE_TIMESTAMP_US_TZ || t == FLOE_TYPE_TIMESTAMP_NS_TZ; }

static floe_status type_timezone(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                 int32_t n, floe_type **out) {
    (void)args;
    floe_type_id id = t[1]->id, r;
    if (!fn_is_string(t[0]) && t[0]->id != FLOE_TYPE_NULL) return fn_type_error(def, t, n);
    switch (id) {
    case FLOE_TYPE_TIMESTAMP_US: r = FLOE_TYPE_TIMESTAMP_US_TZ; break;
    case FLOE_TYPE_TIMESTAMP_NS: r = FLOE_TYPE_TIMESTAMP_NS_TZ; break;
    case FLOE_TYPE_TIMESTAMP_US_TZ: case FLOE_TYPE_DATE32: r = FLOE_TYPE_TIMESTAMP_US; break;
    case FLOE_TYPE_TIMESTAMP_NS_TZ: r = FLOE_TYPE_TIMESTAMP_NS; break;
    case FLOE_TYPE_NULL: r = FLOE_TYPE_TIMESTAMP_US_TZ; break;
    default: return fn_type_error(def, t, n);
    }
    *out = floe_type_primitive(r);
    return NULL;
}

static int64_t floor_div64(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a % b < 0) != (b < 0)); }

/* Shift v (in units per second) by `delta` seconds; false on overflow. */
static bool shift(int64_t v, int64_t delta, int64_t per_sec, int64_t *out) {
    int64_t d;
    return !__builtin_mul_overflow(delta, per_sec, &d) && !__builtin_add_overflow(v, d, out);
}

static floe_status convert(const floe_tz *tz, floe_type_id in, int64_t v, int64_t *out) {
    int64_t per_sec = (in == FLOE_TYPE_TIMESTAMP_NS || in == FLOE_TYPE_TIMESTAMP_NS_TZ) ? 1000000000 : 1000000;
    if (in == FLOE_TYPE_DATE32) {
        v *= 86400 * per_sec; /* an int32 day count times this fits in int64 */
        in = FLOE_TYPE_TIMESTAMP_US_TZ;
    }
    int64_t secs = floor_div64(v, per_sec);
    /* instant -> wall clock adds the offset; wall clock -> instant subtracts it */
    int64_t delta = is_tz_type(in) ? floe_tz_offset(tz, secs) : floe_tz_local_to_utc(tz, secs) - secs;
    if (!shift(v, delta, per_sec, out))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "timezone: timestamp out of range");
    return NULL;
}

/* The zone of the last row looked up, so that a column of one zone (the
 * usual case: a constant) is parsed once per batch, not once per row. */
typedef struct {
    floe_tz *tz;
    floe_strview name;
} zone_cache;

static floe_status zone_cache_get(zone_cache *zc, floe_strview z, const floe_tz **out) {
    if (!zc->tz || z.len != zc->name.len || memcmp(z.data, zc->name.data, (size_t)z.len)) {
        floe_tz_free(zc->tz);
        zc->tz = NULL;
        FLOE_TRY(floe_tz_lookup_sql(z.data, (size_t)z.len, &zc->tz));
        zc->name = z;
    }
    *out = zc->tz;
    return NULL;
}

static floe_status eval_timezone(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                 floe_type *rt, floe_array **out) {
    (void)def;
    floe_buffer *valid = NULL, *vals = NULL;
    zone_cache zc = {NULL, {NULL, 0}};
    floe_type_id in = a[1]->type->id;
    if (in == FLOE_TYPE_NULL || a[0]->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rt, rows, out);
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        const floe_tz *tz = NULL;
        st = zone_cache_get(&zc, fn_get_str(a[0], i), &tz);
        if (st) break;
        int64_t v = in == FLOE_TYPE_DATE32 ? floe_array_get_int32(a[1], fn_at(a[1], i))
                                           : floe_array_get_int64(a[1], fn_at(a[1], i));
        st = convert(tz, in, v, &((int64_t *)vals->data)[i]);
    }
    floe_tz_free(zc.tz);
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* timezone_text(zone, tstz): the text of a timestamptz in `zone`, as a
 * cast to text shows it in the session zone (+02, -03:30).  What
 * sql/zone_rewrite.c turns CAST(tstz AS text) into, so that every thread
 * and rank formats in the session's zone, not only the session's thread. */
static floe_status type_timezone_text(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                      int32_t n, floe_type **out) {
    (void)args;
    if ((!fn_is_string(t[0]) && t[0]->id != FLOE_TYPE_NULL) ||
        (!is_tz_type(t[1]->id) && t[1]->id != FLOE_TYPE_NULL))
        return fn_type_error(def, t, n);
    *out = floe_type_primitive(FLOE_TYPE_STRING);
    return NULL;
}

static floe_status eval_timezone_text(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                      floe_type *rt, floe_array **out) {
    (void)def;
    if (a[1]->type->id == FLOE_TYPE_NULL || a[0]->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rt, rows, out);
    floe_buffer *valid = NULL;
    FLOE_TRY(fn_validity(a, n, rows, &valid));
    fn_strwriter w;
    FLOE_TRY(fn_sw_init(&w, rows, valid));
    int64_t units = a[1]->type->id == FLOE_TYPE_TIMESTAMP_NS_TZ ? 1000000000 : 1000000;
    zone_cache zc = {NULL, {NULL, 0}};
    const floe_tz *outer = floe_tz_session();
    floe_buf text = FLOE_BUF_INIT;
    floe_status st = NULL;
    for (int64_t i = 0; i < rows && !st; i++) {
        if (fn_sw_valid(&w, i)) {
            const floe_tz *tz = NULL;
            st = zone_cache_get(&zc, fn_get_str(a[0], i), &tz);
            if (st) break;
            floe_buf_clear(&text);
            floe_tz_set_session(tz); /* the formatter's zone, for this value */
            st = floe_format_timestamp(floe_array_get_int64(a[1], fn_at(a[1], i)), units, true, &text);
            floe_tz_set_session(outer);
            if (!st) st = fn_sw_add(&w, text.data, text.len);
        }
        if (!st) st = fn_sw_end_row(&w);
    }
    floe_tz_free(zc.tz);
    floe_buf_free(&text);
    if (st) {
        fn_sw_free(&w);
        return st;
    }
    return fn_sw_finish(&w, rt, out);
}

/* timezone_parse(zone, text) / timezone_parse_ns: CAST(text AS timestamptz)
 * with `zone` as the session zone, so that text without an offset is a
 * wall-clock time there (PostgreSQL reads it in the session's TimeZone).
 * sql/zone_rewrite.c makes these of such casts, so every thread and rank
 * reads in the session's zone, not only the session's thread.  The zone is
 * a constant there; a zone that changes from row to row is refused. */
static floe_status type_timezone_parse_as(const floe_func_def *def, floe_type *const *t, int32_t n,
                                          floe_type_id r, floe_type **out) {
    if ((!fn_is_string(t[0]) && t[0]->id != FLOE_TYPE_NULL) || (!fn_is_string(t[1]) && t[1]->id != FLOE_TYPE_NULL))
        return fn_type_error(def, t, n);
    *out = floe_type_primitive(r);
    return NULL;
}
static floe_status type_timezone_parse(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                       int32_t n, floe_type **out) {
    (void)args;
    return type_timezone_parse_as(def, t, n, FLOE_TYPE_TIMESTAMP_US_TZ, out);
}
static floe_status type_timezone_parse_ns(const floe_func_def *def, const floe_expr *const *args,
                                          floe_type *const *t, int32_t n, floe_type **out) {
    (void)args;
    return type_timezone_parse_as(def, t, n, FLOE_TYPE_TIMESTAMP_NS_TZ, out);
}

static floe_status eval_timezone_parse(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                       floe_type *rt, floe_array **out) {
    (void)n;
    if (a[1]->type->id == FLOE_TYPE_NULL || a[0]->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rt, rows, out);
    /* the zone: one for the batch (rows whose zone is NULL are NULL) */
    floe_strview zone = {NULL, 0};
    bool have = false;
    for (int64_t i = 0; i < rows; i++) {
        if (fn_null(a[0], i)) continue;
        floe_strview z = fn_get_str(a[0], i);
        if (!have) {
            zone = z;
            have = true;
        } else if (z.len != zone.len || memcmp(z.data, zone.data, (size_t)z.len)) {
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: the zone must be the same for every row", def->name);
        }
        if (fn_const(a[0])) break;
    }
    if (!have) return floe_array_new_nulls(rt, rows, out);
    floe_tz *tz = NULL;
    FLOE_TRY(floe_tz_lookup_sql(zone.data, (size_t)zone.len, &tz));
    const floe_tz *outer = floe_tz_session();
    floe_array *text = NULL;
    floe_tz_set_session(tz);
    floe_status st = floe_exec_cast_extra_array(a[1], rt, a[1]->length, &text);
    floe_tz_set_session(outer);
    floe_tz_free(tz);
    if (st) return st;
    if (text->length == rows && (fn_const(a[0]) || floe_array_null_count(a[0]) == 0)) {
        *out = text;
        return NULL;
    }
    /* a constant text spread to every row; NULL zones make NULL rows */
    floe_builder *b = NULL;
    st = floe_builder_new(rt, rows, &b);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (fn_null(a[0], i) || fn_null(text, i)) st = floe_builder_append_null(b);
        else st = floe_builder_append_int64(b, floe_array_get_int64(text, fn_at(text, i)));
    }
    floe_array_release(text);
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/* add_interval_zone(zone, tstz, months, days, micros): timestamptz +
 * interval as PostgreSQL 15 adds it under a session zone — months and days
 * on the wall clock in `zone` (so a day across a DST change is 23 or 25
 * hours, and the result keeps the local time of day), the micros on the
 * instant.  With no months or days the wall clock is never consulted, so a
 * time in a repeated (fall-back) hour keeps its offset.  sql/zone_rewrite.c
 * makes these of add_interval over a timestamptz. */
static floe_status type_add_interval_zone(const floe_func_def *def, const floe_expr *const *args,
                                          floe_type *const *t, int32_t n, floe_type **out) {
    (void)args;
    if ((!fn_is_string(t[0]) && t[0]->id != FLOE_TYPE_NULL) || !is_tz_type(t[1]->id) || !fn_is_int(t[2]) ||
        !fn_is_int(t[3]) || !fn_is_int(t[4]))
        return fn_type_error(def, t, n);
    *out = floe_type_primitive(t[1]->id);
    return NULL;
}

static bool add_in_zone(const floe_tz *tz, bool ns, int64_t v, int64_t months, int64_t days, int64_t micros,
                        int64_t *out) {
    int64_t per_sec = ns ? 1000000000 : 1000000;
    if (months != 0 || days != 0) {
        if (months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN) return false;
        int64_t secs = floor_div64(v, per_sec), frac = v - secs * per_sec, local_us, moved_us, base;
        if (__builtin_add_overflow(secs, floe_tz_offset(tz, secs), &secs) ||
            __builtin_mul_overflow(secs, (int64_t)1000000, &local_us))
            return false;
        floe_interval iv = {(int32_t)months, (int32_t)days, 0};
        if (!floe_timestamp_add_interval(local_us, iv, &moved_us)) return false;
        int64_t utc = floe_tz_local_to_utc(tz, floor_div64(moved_us, 1000000));
        if (__builtin_mul_overflow(utc, per_sec, &base) || __builtin_add_overflow(base, frac, &v)) return false;
    }
    if (ns && __builtin_mul_overflow(micros, (int64_t)1000, &micros)) return false;
    return !__builtin_add_overflow(v, micros, out);
}

static floe_status eval_add_interval_zone(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                          floe_type *rt, floe_array **out) {
    (void)def;
    if (a[0]->type->id == FLOE_TYPE_NULL || a[1]->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rt, rows, out);
    floe_buffer *valid = NULL, *vals = NULL;
    zone_cache zc = {NULL, {NULL, 0}};
    bool ns = a[1]->type->id == FLOE_TYPE_TIMESTAMP_NS_TZ;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        const floe_tz *tz = NULL;
        st = zone_cache_get(&zc, fn_get_str(a[0], i), &tz);
        if (st) break;
        if (!add_in_zone(tz, ns, fn_get_i64(a[1], i), fn_get_i64(a[2], i), fn_get_i64(a[3], i), fn_get_i64(a[4], i),
                         &((int64_t *)vals->data)[i]))
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "timestamp out of range");
    }
    floe_tz_free(zc.tz);
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

const floe_func_def floe_timezone_funcs[] = {
    {"add_interval_zone", 5, 5, "add_interval_zone(string, timestamptz, int, int, int)", type_add_interval_zone,
     eval_add_interval_zone, 0, NULL, 0},
    {"timezone", 2, 2, "timezone(string, date|timestamp|timestamptz)", type_timezone, eval_timezone, 0, NULL, 0},
    {"timezone_text", 2, 2, "timezone_text(string, timestamptz)", type_timezone_text, eval_timezone_text, 0, NULL, 0},
    {"timezone_parse", 2, 2, "timezone_parse(string, string)", type_timezone_parse, eval_timezone_parse, 0, NULL, 0},
    {"timezone_parse_ns", 2, 2, "timezone_parse_ns(string, string)", type_timezone_parse_ns, eval_timezone_parse, 0,
     NULL, 0},
    {0},
};
