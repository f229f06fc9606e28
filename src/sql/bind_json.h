/*
 * bind_json.h — read_json / read_json_auto / read_ndjson (bind_json.c).
 */
#ifndef FLOE_SQL_BIND_JSON_H
#define FLOE_SQL_BIND_JSON_H

#include <jansson.h>

#include "floe/exec.h"
#include "floe/session.h"

/* read_json(path [, options]): a Values node holding the rows. */
floe_status floe_sql_bind_read_json(floe_session *s, const char *fname, const json_t *args, int32_t loc,
                                    floe_plan **out) FLOE_WARN_UNUSED;

#endif
