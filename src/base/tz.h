/*
 * tz.h — time zone offsets from the system's tzdata: ORC's writer zones
 * and SQL's AT TIME ZONE / timezone(zone, ts).
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
#ifndef FLOE_BASE_TZ_H
#define FLOE_BASE_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/status.h"

typedef struct floe_tz floe_tz;

/* Load zone `name`.  "UTC", "GMT", "Z", "Etc/UTC" and the like need no
 * file.  An unknown or unreadable zone is FLOE_ERR_NOT_FOUND naming it; a
 * malformed TZif file is FLOE_ERR_CORRUPT. */
floe_status floe_tz_load(const char *name, floe_tz **out) FLOE_WARN_UNUSED;
void floe_tz_free(floe_tz *tz);
const char *floe_tz_name(const floe_tz *tz);
bool floe_tz_is_utc(const floe_tz *tz);

/* The zone's offset from UTC in seconds (east positive) at UTC instant t. */
int64_t floe_tz_offset(const floe_tz *tz, int64_t t);

/* The same, and an interval [*from, *until) around t where it holds, so
 * callers converting many instants can skip the lookup while inside it. */
int64_t floe_tz_offset_range(const floe_tz *tz, int64_t t, int64_t *from, int64_t *until);

/* A zone named in SQL, looked up as PostgreSQL 15 does: an abbreviation
 * of its default set ('UTC', 'PST', 'CET': a fixed offset), a tzdata name
 * in any letter case ('Europe/Berlin', 'europe/berlin'), or a POSIX zone
 * ('+02', 'UTC+3', '<+0530>-5:30', 'EST5EDT,M3.2.0,M11.1.0'), where
 * positive offsets are WEST of Greenwich.  Anything else is
 * FLOE_ERR_INVALID_ARGUMENT with PostgreSQL's text, time zone "x" not
 * recognized. */
floe_status floe_tz_lookup_sql(const char *name, size_t len, floe_tz **out) FLOE_WARN_UNUSED;

/* The UTC instant of wall-clock time `local` (seconds, as if UTC) in the
 * zone.  A time skipped by a spring-forward change is read with the offset
 * before it (02:30 in Berlin on 2024-03-31 is 01:30 UTC); a time repeated
 * by a fall-back change is read as the later one (standard time), both as
 * PostgreSQL does. */
int64_t floe_tz_local_to_utc(const floe_tz *tz, int64_t local);

/* The SQL session zone (SET TimeZone) of the statement running on this
 * thread, or NULL for UTC.  The session sets it for each statement; what
 * reads it on that thread: the value formatter (timestamptz shown in the
 * zone with its offset), timestamptz literals and text casts without an
 * offset, and the planner's rewrite of zone-dependent casts into explicit
 * timezone() calls, which is how the zone reaches other threads and
 * ranks.  The zone is borrowed: the session keeps it alive. */
void floe_tz_set_session(const floe_tz *tz);
const floe_tz *floe_tz_session(void);

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t floe_tz_days_from_civil(int64_t y, unsigned m, unsigned d);

#endif
