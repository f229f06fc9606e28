/*
 * bind_csv.h — read_csv / read_csv_auto (bind_csv.c) and COPY (copy.c).
 */
#ifndef FLOE_SQL_BIND_CSV_H
#define FLOE_SQL_BIND_CSV_H

#include <jansson.h>

#include "floe/exec.h"
#include "floe/session.h"

/* A type spelled as DuckDB's read_csv takes it ('INTEGER', 'DECIMAL(10,2)',
 * 'VARCHAR', 'DOUBLE', ...). */
floe_status floe_sql_csv_type(const char *text, floe_type **out) FLOE_WARN_UNUSED;

/* read_csv(path [, options]): a Values node holding the rows. */
floe_status floe_sql_bind_read_csv(floe_session *s, const char *fname, const json_t *args, int32_t loc,
                                   floe_plan **out) FLOE_WARN_UNUSED;

/* COPY (query) | t TO 'file' (...) and COPY t [(cols)] FROM 'file' (...). */
floe_status floe_sql_exec_copy(floe_session *s, const json_t *body, const floe_result_sink *sink) FLOE_WARN_UNUSED;

#endif
