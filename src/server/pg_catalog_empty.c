/*
 * pg_catalog_empty.c — queries over the pg_catalog relations floe never
 * has rows in (row security policies, extended statistics, publications,
 * inheritance, triggers, rules), as psql's \d t sends them.
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
#include "sql/session_internal.h"

#define MAX_TARGETS 64

static bool always_empty(const char *schema, const char *rel) {
    static const char *const names[] = {"pg_policy",      "pg_statistic_ext", "pg_publication",
                                        "pg_publication_rel", "pg_publication_namespace", "pg_inherits",
                                        "pg_trigger",     "pg_rewrite",       "pg_statistic_ext_data"};
    if (!rel || (schema && strcmp(schema, "pg_catalog") != 0)) return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(rel, names[i])) return true;
    return false;
}

/* Whether a FROM item reaches an always-empty relation by inner joins. */
static bool item_empty(const json_t *item) {
    const char *kind = floe_pg_node_kind(item);
    const json_t *b = floe_pg_node_body(item);
    if (!kind) return false;
    if (!strcmp(kind, "RangeVar")) return always_empty(floe_pg_get_str(b, "schemaname"), floe_pg_get_str(b, "relname"));
    if (!strcmp(kind, "JoinExpr")) {
        const char *jt = floe_pg_get_str(b, "jointype");
        bool inner = !jt || !strcmp(jt, "JOIN_INNER");
        bool left = inner || !strcmp(jt, "JOIN_LEFT"); /* a LEFT JOIN is empty when its left side is */
        bool right = inner || !strcmp(jt, "JOIN_RIGHT");
        return (left && item_empty(floe_pg_get(b, "larg"))) || (right && item_empty(floe_pg_get(b, "rarg")));
    }
    return false;
}

static bool select_empty(const json_t *sel) {
    if (!sel) return false;
    const char *op = floe_pg_get_str(sel, "op");
    if (op && strcmp(op, "SETOP_NONE") != 0) {
        if (strcmp(op, "SETOP_UNION") != 0) return false;
        return select_empty(floe_pg_get(sel, "larg")) && select_empty(floe_pg_get(sel, "rarg"));
    }
    if (floe_pg_get(sel, "groupClause") || floe_pg_get(sel, "havingClause") || floe_pg_get(sel, "withClause") ||
        floe_pg_get(sel, "valuesLists") || bind_has_aggregate(floe_pg_get(sel, "targetList")))
        return false;
    const json_t *from = floe_pg_get(sel, "fromClause");
    for (int32_t i = 0; i < floe_pg_list_len(from); i++)
        if (item_empty(floe_pg_list_at(from, i))) return true;
    return false;
}

/* The leftmost SELECT of a set operation names the columns. */
static const json_t *first_select(const json_t *sel) {
    while (sel && floe_pg_get(sel, "larg")) sel = floe_pg_get(sel, "larg");
    return sel;
}

floe_status pg_catalog_empty(pg_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink, bool *handled) {
    (void)s;
    *handled = false;
    const json_t *sel = floe_pg_node_body(stmt->node);
    if (!select_empty(sel)) return NULL;
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
        const char *col = fields ? floe_pg_string(floe_pg_list_at(fields, floe_pg_list_len(fields) - 1)) : NULL;
        names[i] = alias ? alias : col ? col : "?column?";
    }
    *handled = true;
    return floe_session_emit_strings(sink, names, n, NULL, 0, "SELECT");
}
