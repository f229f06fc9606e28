/*
 * tz.h — time zone offsets for ORC timestamps, from the system's tzdata.
 *
 * ORC TIMESTAMP values are seconds since 2015-01-01 00:00:00 in the
 * writer's time zone (the stripe footer names it, e.g.
 * "America/Los_Angeles"), and a reader that wants the writer's wall clock
 * (what Iceberg's `timestamp` and ORC's own tools show) needs that zone's
 * UTC offset at any instant.  floe reads the zone's TZif file (RFC 8536)
 * from $TZDIR or /usr/share/zoneinfo: its transitions, and past the last
 * one its POSIX TZ rule ("PST8PDT,M3.2.0,M11.1.0"), so dates after 2037
 * get daylight saving time right too.  No libc time zone state (TZ,
 * localtime) is touched, so this is thread-safe.
 */
#ifndef FLOE_FORMATS_ORC_TZ_H
#define FLOE_FORMATS_ORC_TZ_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/status.h"

typedef struct floe_orc_tz floe_orc_tz;

/* Load zone `name`.  "UTC", "GMT", "Z", "Etc/UTC" and the like need no
 * file.  An unknown or unreadable zone is FLOE_ERR_NOT_FOUND naming it; a
 * malformed TZif file is FLOE_ERR_CORRUPT. */
floe_status floe_orc_tz_load(const char *name, floe_orc_tz **out) FLOE_WARN_UNUSED;
void floe_orc_tz_free(floe_orc_tz *tz);
const char *floe_orc_tz_name(const floe_orc_tz *tz);
bool floe_orc_tz_is_utc(const floe_orc_tz *tz);

/* The zone's offset from UTC in seconds (east positive) at UTC instant t. */
int64_t floe_orc_tz_offset(const floe_orc_tz *tz, int64_t t);

/* The same, and an interval [*from, *until) around t where it holds, so
 * callers converting many instants can skip the lookup while inside it. */
int64_t floe_orc_tz_offset_range(const floe_orc_tz *tz, int64_t t, int64_t *from, int64_t *until);

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t floe_orc_days_from_civil(int64_t y, unsigned m, unsigned d);

#endif
