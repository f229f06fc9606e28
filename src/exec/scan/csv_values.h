/*
 * csv_values.h — fast paths that parse a CSV field's text straight into a
 * typed value (csv_read.c's record loop).  Each accepts only plain text
 * whose value is certain to equal what CAST(text AS type) gives — the
 * same bits for doubles as strtod — and returns false for anything else
 * (blanks, exponents it does not handle, out-of-range values, bad text),
 * which the caller then casts the general way, so results and error
 * messages are those of the cast.
 */
#ifndef FLOE_EXEC_SCAN_CSV_VALUES_H
#define FLOE_EXEC_SCAN_CSV_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/columnar.h"

/* [+-]digits as int64 (strtoll's value). */
bool floe_csv_fast_int64(const char *s, size_t n, int64_t *out);
/* [+-](digits[.digits] | .digits)[(e|E)[+-]digits]: exact when the
 * significant digits fit 2^53 and the power of ten is at most 22 (one
 * correctly rounded IEEE operation, so strtod's bits); else false. */
bool floe_csv_fast_double(const char *s, size_t n, double *out);
/* [+-]digits[.digits] as an unscaled value at `scale` (more fraction
 * digits: rounded half away from zero on the first dropped digit, as
 * the cast and PostgreSQL), |value| < 10^precision; else false. */
bool floe_csv_fast_decimal(const char *s, size_t n, int precision, int scale, floe_decimal128 *out);
/* YYYY-MM-DD (a valid day) as days since 1970-01-01. */
bool floe_csv_fast_date(const char *s, size_t n, int32_t *out);
/* YYYY-MM-DD[ Tt]HH:MM[:SS[.f{1,6}]] (no offset) as microseconds since
 * 1970-01-01 00:00. */
bool floe_csv_fast_timestamp(const char *s, size_t n, int64_t *out);
/* true/t/yes/y/on/1, false/f/no/n/off/0, any case. */
bool floe_csv_fast_bool(const char *s, size_t n, bool *out);

/* How many of the n bytes at p equal c (8 bytes at a time). */
int64_t floe_csv_count_byte(const uint8_t *p, size_t n, uint8_t c);

#endif
