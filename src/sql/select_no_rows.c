/*
 * select_no_rows.c — SELECTs whose answer is known to have no rows without
 * running them: those that read, through inner joins, one of the
 * pg_catalog relations floe never has rows in (pg_sequence, pg_description,
 * pg_attrdef, pg_trigger, ...; pg_catalog_tables.c lists them).
 *
 * Client libraries' catalog queries lean on such relations in places floe
 * could not otherwise bind — SQLAlchemy's column reflection has a scalar
 * subquery over pg_sequence with columns floe does not model, psql's \d a
 * UNION over pg_policy and pg_inherits — and their answer is known:
 * the server answers a whole statement of this kind with no rows
 * (server/pg_catalog_empty.c), and the binder takes a subquery of this kind
 * for what it yields over no rows (NULL, false, ...).
 */
#include <string.h>

#include "sql/bind.h"
#include "sql/pg_catalog_tables.h"
#include "sql/pgnode.h"
#include "sql/select_no_rows.h"

/* Whether a FROM item reaches an always-empty relation by inner joins (or
 * as the preserved side's partner it cannot be: only the sides an outer
 * join keeps rows of count). */
static bool item_no_rows(const json_t *item) {
    const char *kind = floe_pg_node_kind(item);
    const json_t *b = floe_pg_node_body(item);
    if (!kind) return false;
    if (!strcmp(kind, "RangeVar")) {
        const char *ns = floe_pg_get_str(b, "schemaname"), *rel = floe_pg_get_str(b, "relname");
        return rel && (!ns || !strcmp(ns, "pg_catalog")) && floe_sql_pg_catalog_always_empty(rel);
    }
    if (!strcmp(kind, "JoinExpr")) {
        const char *jt = floe_pg_get_str(b, "jointype");
        bool inner = !jt || !strcmp(jt, "JOIN_INNER");
        bool left = inner || !strcmp(jt, "JOIN_LEFT"); /* a LEFT JOIN is empty when its left side is */
        bool right = inner || !strcmp(jt, "JOIN_RIGHT");
        return (left && item_no_rows(floe_pg_get(b, "larg"))) || (right && item_no_rows(floe_pg_get(b, "rarg")));
    }
    if (!strcmp(kind, "RangeSubselect")) return floe_sql_select_no_rows(floe_pg_node_body(floe_pg_get(b, "subquery")));
    return false;
}

bool floe_sql_select_no_rows(const json_t *sel) {
    if (!sel) return false;
    const char *op = floe_pg_get_str(sel, "op");
    if (op && strcmp(op, "SETOP_NONE") != 0) {
        if (!strcmp(op, "SETOP_UNION"))
            return floe_sql_select_no_rows(floe_pg_get(sel, "larg")) && floe_sql_select_no_rows(floe_pg_get(sel, "rarg"));
        if (!strcmp(op, "SETOP_INTERSECT"))
            return floe_sql_select_no_rows(floe_pg_get(sel, "larg")) || floe_sql_select_no_rows(floe_pg_get(sel, "rarg"));
        return floe_sql_select_no_rows(floe_pg_get(sel, "larg")); /* EXCEPT */
    }
    /* An aggregate without GROUP BY yields a row over no rows; HAVING
     * without GROUP BY aggregates the same way. */
    if (floe_pg_get(sel, "havingClause") || floe_pg_get(sel, "withClause") || floe_pg_get(sel, "valuesLists") ||
        (!floe_pg_get(sel, "groupClause") && bind_has_aggregate(floe_pg_get(sel, "targetList"))))
        return false;
    const json_t *from = floe_pg_get(sel, "fromClause");
    for (int32_t i = 0; i < floe_pg_list_len(from); i++)
        if (item_no_rows(floe_pg_list_at(from, i))) return true;
    return false;
}
