/*
 * cast.h — casts beyond numbers and text (see cast.c): dates, times,
 * timestamps, decimals and booleans.  expr.c asks floe_exec_cast_extra
 * first and hands such casts here.
 */
#ifndef FLOE_EXEC_CAST_H
#define FLOE_EXEC_CAST_H

#include <stdbool.h>

#include "floe/columnar.h"

/* Does cast.c implement CAST(from AS to)? */
bool floe_exec_cast_extra(const floe_type *from, const floe_type *to);
/* Cast the first n slots of `a` to `to` (NULL stays NULL). */
floe_status floe_exec_cast_extra_array(const floe_array *a, floe_type *to, int64_t n,
                                       floe_array **out) FLOE_WARN_UNUSED;

#endif
