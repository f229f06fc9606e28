/* params.h — $n parameters put into statement text (params.c). */
#ifndef FLOE_SQL_PARAMS_H
#define FLOE_SQL_PARAMS_H

#include <stdint.h>

#include "base/buffer.h"
#include "floe/status.h"

/* The highest $n in `sql` outside strings, quoted names and comments (0
 * when none). */
int32_t floe_sql_params_count(const char *sql);

/* `sql` appended to `out` with each $n replaced by values[n-1] as a quoted
 * literal (NULL → NULL), cast to types[n-1] when `types` and that entry
 * are not NULL (an SQL type name: "bigint", "double precision").  A $n
 * past `n` is an error naming it. */
floe_status floe_sql_params_substitute(const char *sql, int32_t n, const char *const *values,
                                       const char *const *types, floe_buf *out) FLOE_WARN_UNUSED;

#endif
