/*
 * csv_detect_types.h — the classes read_csv's type detection sorts a
 * column's sample values into (csv_detect_types.c), used by csv_read.c
 * and by read_json for the dates and timestamps in its strings.
 */
#ifndef FLOE_EXEC_SCAN_CSV_DETECT_TYPES_H
#define FLOE_EXEC_SCAN_CSV_DETECT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/columnar.h"

/* From narrowest to widest: a column takes the first class every sampled
 * value fits. */
typedef enum { T_BOOL, T_BIGINT, T_DOUBLE, T_DATE, T_TIMESTAMP, T_VARCHAR } det_type;

/* Does the text s[0..n) read as class t? */
bool floe_csv_fits(det_type t, const char *s, int64_t n);
/* The column type of a class. */
floe_type *floe_csv_det_floe_type(det_type t);
/* A given column type as the detector's class (VARCHAR: not judged). */
det_type floe_csv_det_of_type(const floe_type *t);

#endif
