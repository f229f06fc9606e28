/*
 * pg_catalog_empty.c — queries over the pg_catalog relations floe never
 * has rows in (row security policies, extended statistics, publications,
 * inheritance, triggers, rules, sequences; sql/select_no_rows.c decides),
 * as psql's \d t sends them.
 *
 * They read columns floe does not model (aclitem and int2vector arrays
 * compared with array literals, regclass casts of row values, subscripts
 * inside correlated subqueries), but their answer is known without them:
 * a SELECT without aggregates or grouping whose FROM reaches such a
 * relation through inner joins only has no rows, and so has a UNION of
 * such SELECTs.  The server answers those with no rows itself (text
 * columns named as the query names them); anything else goes to floe,
 * whose pg_catalog relations (src/sql/pg_catalog_tables.c) are built
 * from the catalog.
 */
#include <string.h>

#include "server/server_internal.h"
#include "sql/bind.h"
#include "sql/pgnode.h"
#include "sql/select_no_rows.h"
#include "sql/session_internal.h"

#define MAX_TARGETS 64

/* The leftmost SELECT of a set operation names the columns. */
static const json_t *first_select(const json_t *sel) {
    while (sel && floe_pg_get(sel, "larg")) sel = floe_pg_get(sel, "larg");
    return sel;
}

floe_status pg_catalog_empty(pg_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink, bool *handled) {
    (void)s;
    *handled = false;
    const json_t *sel = floe_pg_node_body(stmt->node);
    if (!floe_sql_select_no_rows(sel)) return NULL;
    const json_t *targets = floe_pg_get(first_select(sel), "targetList");
    int32_t n = floe_pg_list_len(targets);
    if (n < 1 || n > MAX_TARGETS) return NULL;
    const char *names[MAX_TARGETS];
    for (int32_t i = 0; i < n; i++) {
        const json_t *rt = floe_pg_as(floe_pg_list_at(targets, i), "ResTarget");
        const char *alias = floe_pg_get_str(rt, "name");
        const json_t *val = floe_pg_get(rt, "val");
        const json_t *cr = floe_pg_as(val, "ColumnRef");
        const json_t *fields = cr ? floe_pg_get(cr, "fields") : NULL;
        const json_t *last = fields ? floe_pg_list_at(fields, floe_pg_list_len(fields) - 1) : NULL;
        if (last && floe_pg_as(last, "A_Star")) return NULL; /* t.*: floe names the columns */
        const char *col = last ? floe_pg_string(last) : NULL;
        names[i] = alias ? alias : col ? col : "?column?";
    }
    *handled = true;
    return floe_session_emit_strings(sink, names, n, NULL, 0, "SELECT");
}
