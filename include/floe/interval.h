/*
 * interval.h — PostgreSQL's interval value (FLOE_TYPE_INTERVAL): months,
 * days and microseconds kept apart, because a month and a day have no
 * fixed length until added to a date.  Slot layout: 16 bytes, months
 * int32, days int32, micros int64 (little-endian, as the struct).
 *
 * Comparison, equality and hashing use the total as PostgreSQL does
 * (1 month = 30 days, 1 day = 24 hours): '1 mon' = '30 days'.
 */
#ifndef FLOE_INTERVAL_H
#define FLOE_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct floe_buf;

typedef struct floe_interval {
    int32_t months;
    int32_t days;
    int64_t micros;
} floe_interval;

#define FLOE_US_PER_DAY INT64_C(86400000000)

/* The total in microseconds as PostgreSQL orders intervals (128 bits). */
static inline __int128 floe_interval_total(floe_interval v) {
    return ((__int128)v.months * 30 + v.days) * FLOE_US_PER_DAY + v.micros;
}
static inline int floe_interval_cmp(floe_interval a, floe_interval b) {
    __int128 x = floe_interval_total(a), y = floe_interval_total(b);
    return x < y ? -1 : x > y;
}
/* A hash that is equal for intervals with equal totals. */
uint64_t floe_interval_hash(floe_interval v);

/* Parse PostgreSQL's interval input: '1 day 2 hours', '2 weeks ago',
 * '1-2' (years-months), '04:05:06.5', '@ 1 minute', ISO 8601
 * 'P1Y2M3DT4H5M6S'.  `field_mask` is the type modifier of INTERVAL '90'
 * DAY (PostgreSQL's bits: YEAR 4, MONTH 2, DAY 8, HOUR 1024, MINUTE 2048,
 * SECOND 4096), naming the unit of a bare number; 0 = seconds.  Errors
 * are PostgreSQL's messages (invalid input syntax, field value out of
 * range). */
floe_status floe_interval_parse(const char *text, int64_t len, int64_t field_mask, floe_interval *out) FLOE_WARN_UNUSED;
/* Append the text in PostgreSQL's default IntervalStyle (postgres):
 * '1 year 2 mons 3 days 04:05:06.5', '-1 days +02:00:00', '00:00:00'. */
floe_status floe_interval_format(floe_interval v, struct floe_buf *out) FLOE_WARN_UNUSED;

/* Arithmetic; each returns false when the result is out of range. */
bool floe_interval_add(floe_interval a, floe_interval b, floe_interval *out);
bool floe_interval_sub(floe_interval a, floe_interval b, floe_interval *out);
bool floe_interval_neg(floe_interval a, floe_interval *out);
/* interval * factor with PostgreSQL's cascading of month and day
 * fractions down to days and microseconds. */
bool floe_interval_mul(floe_interval a, double factor, floe_interval *out);
bool floe_interval_div(floe_interval a, double divisor, floe_interval *out); /* divisor != 0 */
/* ts + v for a timestamp in microseconds since the epoch, as PostgreSQL:
 * months first (the day of month clamped to the new month's length),
 * then days, then microseconds.  False when out of range. */
bool floe_timestamp_add_interval(int64_t ts_us, floe_interval v, int64_t *out);

/* PostgreSQL's age(a, b): the "symbolic" difference — years, months and
 * days counted on the calendar (borrowing the days of the earlier
 * timestamp's month), then the time — not a count of microseconds. */
floe_interval floe_timestamp_age(int64_t a_us, int64_t b_us);

/* justify_hours (24 h → 1 day), justify_days (30 days → 1 month),
 * justify_interval (both, with signs made consistent). */
floe_interval floe_interval_justify_hours(floe_interval a);
floe_interval floe_interval_justify_days(floe_interval a);
floe_interval floe_interval_justify(floe_interval a);

#ifdef __cplusplus
}
#endif
#endif
