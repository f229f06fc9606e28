/*
 * pg_params.c — parameters of the extended query protocol: the SQL layer's
 * $n substitution (src/sql/params.c) with each parameter cast to the type
 * Parse named by OID (pg_oid_sql_name; none for an unknown OID, so the
 * literal takes its type from where it stands, as an unknown-typed
 * parameter does in PostgreSQL).
 */
#include "floe/memory.h"
#include "server/pg_types.h"
#include "server/server_internal.h"
#include "sql/params.h"

int32_t pg_params_count(const char *sql) {
    return floe_sql_params_count(sql);
}

floe_status pg_params_substitute(const char *sql, int32_t n, const char *const *values, const int32_t *oids,
                                 floe_buf *out) {
    const char **types = NULL;
    if (oids && n > 0) {
        types = floe_calloc((size_t)n, sizeof(char *));
        if (!types) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory in parameter types");
        for (int32_t i = 0; i < n; i++) types[i] = pg_oid_sql_name(oids[i]);
    }
    floe_status st = floe_sql_params_substitute(sql, n, values, types, out);
    floe_free(types);
    return st;
}
