/* select_no_rows.h — SELECTs known to have no rows (select_no_rows.c). */
#ifndef FLOE_SQL_SELECT_NO_ROWS_H
#define FLOE_SQL_SELECT_NO_ROWS_H

#include <jansson.h>
#include <stdbool.h>

/* Whether the SelectStmt body `sel` (libpg_query's JSON) has no rows
 * whatever the catalog holds, because it reads, through inner joins, a
 * pg_catalog relation floe never has rows in.  False when unsure. */
bool floe_sql_select_no_rows(const json_t *sel);

#endif
