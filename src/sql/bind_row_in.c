/*
 * bind_row_in.c — (a, b, ...) IN (subquery) as a value, in three-valued
 * logic: TRUE when some row of the subquery equals the row in every part,
 * else NULL when some row is equal or unknown in every part (no part
 * definitely different), else FALSE; NOT IN is its negation.  The WHERE
 * form that needs only TRUE is a semi join (bind_subquery.c); this is
 * for NOT IN, for a select list, and for a correlated subquery.
 *
 * It is written as two EXISTS, which the decorrelation already handles
 * for any correlation shape:
 *   CASE WHEN EXISTS (SELECT 1 FROM (sub) AS r(c1, c2) WHERE a = r.c1 AND b = r.c2) THEN true
 *        WHEN EXISTS (SELECT 1 FROM (sub) AS r(c1, c2) WHERE (a = r.c1 AND b = r.c2) IS NULL) THEN NULL
 *        ELSE false END
 * The template is parsed by libpg_query with placeholder names, then the
 * query's own subquery and row parts are put in their places; every
 * location in the template becomes the subquery's, so errors point there.
 *
 * (a, b) [NOT] IN ((x1, y1), (x2, y2)), a list of rows, is
 * [NOT] ((a = x1 AND b = y1) OR (a = x2 AND b = y2)), which is
 * PostgreSQL's three-valued answer as it stands (bind_row_in_list).
 */
#include <pg_query.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buffer.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

#define ROW_IN_ALIAS "?row_in"

/* What a template node stands for: a ColumnRef "?lK" the row's part K,
 * "?rK" the subquery's select item K (inlined form), "?w" its WHERE.
 * NULL when it is no placeholder. */
static const json_t *placeholder(const json_t *v, const json_t *parts, const json_t *sub) {
    json_t *cr = floe_pg_as(v, "ColumnRef");
    const json_t *fields = cr ? floe_pg_get(cr, "fields") : NULL;
    const char *name = floe_pg_list_len(fields) == 1 ? floe_pg_string(floe_pg_list_at(fields, 0)) : NULL;
    if (!name || name[0] != '?') return NULL;
    json_t *sel = floe_pg_as(sub, "SelectStmt");
    if (!strcmp(name, "?w")) return floe_pg_get(sel, "whereClause");
    int32_t k = (int32_t)strtol(name + 2, NULL, 10) - 1;
    if (name[1] == 'l') return floe_pg_list_at(parts, k);
    if (name[1] == 'r')
        return floe_pg_get(floe_pg_as(floe_pg_list_at(floe_pg_get(sel, "targetList"), k), "ResTarget"), "val");
    return NULL;
}

/* Put the parts in the template, in place: placeholders become copies of
 * what they stand for, the placeholder subquery (a RangeSubselect's) a
 * copy of the query's, an EXISTS's SELECT takes the subquery's FROM when
 * inlined; template locations become loc. */
static floe_status splice(json_t *node, const json_t *parts, const json_t *sub, bool inlined, int32_t loc) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            json_t *v = json_array_get(node, i);
            const json_t *p = placeholder(v, parts, sub);
            if (p) {
                if (json_array_set_new(node, i, json_deep_copy(p)))
                    return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            } else {
                FLOE_TRY(splice(v, parts, sub, inlined, loc));
            }
        }
        return NULL;
    }
    if (!json_is_object(node)) return NULL;
    const char *key;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(node, tmp, key, v) {
        const json_t *p = placeholder(v, parts, sub);
        json_t *copy = NULL;
        if (p) copy = json_deep_copy(p);
        else if (!strcmp(key, "subquery") && floe_pg_as(v, "SelectStmt")) copy = json_deep_copy(sub);
        else if (!strcmp(key, "location") && json_is_integer(v)) json_integer_set(v, loc);
        else FLOE_TRY(splice(v, parts, sub, inlined, loc));
        if (copy && json_object_set_new(node, key, copy))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        json_t *from = inlined && !strcmp(key, "subselect") ? floe_pg_get(floe_pg_as(sub, "SelectStmt"), "fromClause") : NULL;
        json_t *inner = from ? floe_pg_as(v, "SelectStmt") : NULL;
        if (inner && json_object_set_new(inner, "fromClause", json_deep_copy(from)))
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    return NULL;
}

/* May the subquery's rows be tested in place (its FROM and WHERE moved
 * into the EXISTS, which also lets it read the outer query's columns)?
 * Only a plain SELECT ... FROM ... WHERE: no grouping, aggregate,
 * DISTINCT, LIMIT, WITH, VALUES or set operation. */
static bool inlinable(const json_t *subselect) {
    json_t *sel = floe_pg_as(subselect, "SelectStmt");
    const char *op = sel ? floe_pg_get_str(sel, "op") : NULL;
    static const char *const blockers[] = {"groupClause", "havingClause", "distinctClause", "limitCount", "limitOffset",
                                           "windowClause", "withClause", "valuesLists", "sortClause", "intoClause"};
    if (!sel || (op && strcmp(op, "SETOP_NONE") != 0) || !floe_pg_get(sel, "fromClause")) return false;
    for (size_t i = 0; i < sizeof blockers / sizeof blockers[0]; i++)
        if (floe_pg_get(sel, blockers[i])) return false;
    return !bind_has_aggregate(floe_pg_get(sel, "targetList"));
}

/* The subquery's select list length when it plainly has one (no *, no
 * set operation); -1 when only binding it would tell. */
static int32_t plain_width(const json_t *subselect) {
    json_t *sel = floe_pg_as(subselect, "SelectStmt");
    const char *op = sel ? floe_pg_get_str(sel, "op") : NULL;
    json_t *tl = sel ? floe_pg_get(sel, "targetList") : NULL;
    if (!tl || (op && strcmp(op, "SETOP_NONE") != 0)) return -1;
    for (int32_t i = 0; i < floe_pg_list_len(tl); i++) {
        json_t *rt = floe_pg_as(floe_pg_list_at(tl, i), "ResTarget");
        json_t *cr = floe_pg_as(floe_pg_get(rt, "val"), "ColumnRef");
        json_t *f = cr ? floe_pg_get(cr, "fields") : NULL;
        for (int32_t k = 0; k < floe_pg_list_len(f); k++)
            if (floe_pg_as(floe_pg_list_at(f, k), "A_Star")) return -1;
    }
    return floe_pg_list_len(tl);
}

/* The parsed template's one select item, from its text; *root owns it. */
static floe_status parse_template(const char *sql, json_t **root, json_t **sel) {
    PgQueryParseResult r = pg_query_parse(sql);
    json_error_t jerr;
    floe_status st = NULL;
    *sel = NULL;
    if (r.error) st = floe_error(FLOE_ERR_INTERNAL, "row IN: template: %s", r.error->message);
    else if (!(*root = json_loads(r.parse_tree, 0, &jerr)))
        st = floe_error(FLOE_ERR_INTERNAL, "row IN: unreadable parse tree: %s", jerr.text);
    pg_query_free_parse_result(r);
    if (!st) *sel = json_object_get(json_array_get(json_object_get(*root, "stmts"), 0), "stmt");
    if (!st && !floe_pg_as(*sel, "SelectStmt")) st = floe_error(FLOE_ERR_INTERNAL, "row IN: unexpected template tree");
    return st;
}

/* Is `qual` a relation name or alias the subquery's FROM declares? */
static bool from_declares(const json_t *node, const char *qual) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            if (from_declares(json_array_get(node, i), qual)) return true;
        return false;
    }
    if (!json_is_object(node)) return false;
    json_t *rv = floe_pg_as(node, "RangeVar");
    json_t *alias = floe_pg_get(rv ? rv : floe_pg_as(node, "RangeSubselect"), "alias"); /* an Alias body */
    const char *an = alias ? floe_pg_get_str(alias, "aliasname") : NULL;
    const char *rel = rv ? floe_pg_get_str(rv, "relname") : NULL;
    if ((an && !strcasecmp(an, qual)) || (!an && rel && !strcasecmp(rel, qual))) return true;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)node, key, v) if (from_declares(v, qual)) return true;
    return false;
}

/* The qualifier of the one visible column `name` of the query around
 * the row (its own scope, else the correlated outer one); NULL when none
 * or several. */
static const char *outer_qual(const bind_ectx *c, const char *name) {
    const bind_scope *scopes[2] = {c->sc, c->outer};
    for (int k = 0; k < 2; k++) {
        const char *q = NULL;
        int found = 0;
        for (int32_t i = 0; scopes[k] && i < scopes[k]->n; i++) {
            const bind_col *col = &scopes[k]->cols[i];
            if (col->hidden || !col->name || strcasecmp(col->name, name)) continue;
            found++;
            q = col->qual;
        }
        if (found) return found == 1 ? q : NULL;
    }
    return NULL;
}

/* An unqualified column of the row's parts naming a column of the
 * subquery's FROM would, inlined, read that one instead of the outer
 * query's: qualify it with its relation's name, in place (node is a
 * copy).  False when that cannot be done (no or an ambiguous qualifier,
 * one the FROM also declares) or the FROM alone does not bind. */
static bool qualify_shadowed(bind_ectx *c, const json_t *subselect, json_t *node, const floe_schema *from) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            if (!qualify_shadowed(c, subselect, json_array_get(node, i), from)) return false;
        return true;
    }
    if (!json_is_object(node)) return true;
    json_t *cr = floe_pg_as(node, "ColumnRef");
    json_t *fields = cr ? floe_pg_get(cr, "fields") : NULL;
    const char *name = floe_pg_list_len(fields) == 1 ? floe_pg_string(floe_pg_list_at(fields, 0)) : NULL;
    if (name) {
        if (!from) return false;
        bool clash = false;
        for (int32_t i = 0; i < floe_schema_num_fields(from) && !clash; i++) {
            const char *f = floe_schema_field(from, i)->name;
            clash = f && !strcasecmp(f, name);
        }
        if (!clash) return true;
        const char *q = outer_qual(c, name);
        const json_t *inner_from = floe_pg_get(floe_pg_as(subselect, "SelectStmt"), "fromClause");
        if (!q || from_declares(inner_from, q)) return false;
        json_t *qs = json_pack("{s:{s:s}}", "String", "sval", q);
        return qs && !json_array_insert_new(fields, 0, qs);
    }
    const char *key;
    json_t *v;
    json_object_foreach(node, key, v) {
        if (floe_pg_as(v, "SelectStmt") || !strcmp(key, "subselect")) continue; /* its own scope */
        if (!qualify_shadowed(c, subselect, v, from)) return false;
    }
    return true;
}

/* The subquery's FROM as SELECT * FROM <it>, bound on its own: its
 * columns' names (NULL in *plan when it does not bind alone). */
static void from_columns(bind_ectx *c, const json_t *subselect, floe_lplan **plan) {
    json_t *root = NULL, *sel = NULL;
    *plan = NULL;
    floe_status st = parse_template("SELECT * FROM \"?t\"", &root, &sel);
    if (!st && json_object_set_new(floe_pg_as(sel, "SelectStmt"), "fromClause",
                                   json_deep_copy(floe_pg_get(floe_pg_as(subselect, "SelectStmt"), "fromClause"))))
        st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    bind_result r;
    if (!st && !(st = bind_select(c->s, sel, &r))) {
        *plan = r.plan;
        r.plan = NULL;
        bind_result_free(&r);
    }
    floe_status_free(st);
    json_decref(root);
}

static floe_status bind_form(bind_ectx *c, const json_t *parts, const json_t *subselect, int32_t n, bool inlined,
                             int32_t loc, floe_expr **out) {
    floe_buf sql, cols, conj;
    floe_buf_init(&sql);
    floe_buf_init(&cols);
    floe_buf_init(&conj);
    floe_status st = NULL;
    bool has_where = inlined && floe_pg_get(floe_pg_as(subselect, "SelectStmt"), "whereClause");
    for (int32_t i = 0; i < n && !st; i++) {
        st = floe_buf_printf(&cols, "%s\"?c%d\"", i ? ", " : "", i + 1);
        if (!st && inlined) st = floe_buf_printf(&conj, "%s\"?l%d\" = \"?r%d\"", i ? " AND " : "", i + 1, i + 1);
        else if (!st)
            st = floe_buf_printf(&conj, "%s\"?l%d\" = \"" ROW_IN_ALIAS "\".\"?c%d\"", i ? " AND " : "", i + 1, i + 1);
    }
    /* inlined: EXISTS (SELECT 1 FROM <its FROM> WHERE <its WHERE> AND ...) */
    const char *from = inlined ? "" : "FROM (SELECT 1) AS \"" ROW_IN_ALIAS "\"(";
    const char *from_end = inlined ? "" : ")";
    const char *where = has_where ? "\"?w\" AND " : "";
    if (!st)
        st = floe_buf_printf(&sql,
                             "SELECT CASE WHEN EXISTS (SELECT 1 %s%s%s WHERE %s(%s)) THEN true "
                             "WHEN EXISTS (SELECT 1 %s%s%s WHERE %s(%s) IS NULL) THEN NULL ELSE false END",
                             from, inlined ? "" : floe_buf_cstr(&cols), from_end, where, floe_buf_cstr(&conj),
                             from, inlined ? "" : floe_buf_cstr(&cols), from_end, where, floe_buf_cstr(&conj));
    json_t *root = NULL, *top = NULL;
    if (!st) st = parse_template(floe_buf_cstr(&sql), &root, &top);
    floe_buf_free(&sql);
    floe_buf_free(&cols);
    floe_buf_free(&conj);
    json_t *sel = st ? NULL : floe_pg_as(top, "SelectStmt");
    json_t *val = sel ? floe_pg_get(floe_pg_as(floe_pg_list_at(floe_pg_get(sel, "targetList"), 0), "ResTarget"), "val") : NULL;
    if (!st && !val) st = floe_error(FLOE_ERR_INTERNAL, "row IN: unexpected template tree");
    if (!st) st = splice(val, parts, subselect, inlined, loc);
    if (!st) st = bind_expr(c, val, out);
    json_decref(root);
    return st;
}

floe_status bind_row_in_value(bind_ectx *c, const json_t *sublink_body, const json_t *row, int32_t loc, floe_expr **out) {
    *out = NULL;
    const json_t *parts = floe_pg_get(row, "args");
    const json_t *subselect = floe_pg_get(sublink_body, "subselect");
    int32_t n = floe_pg_list_len(parts), w = plain_width(subselect);
    if (w >= 0 && w != n)
        return bind_error(c->s, loc, FLOE_ERR_INVALID_ARGUMENT, "subquery has too %s columns", w > n ? "many" : "few");
    /* The subquery as a derived table first; reading outer columns
     * (NOT_FOUND), its rows tested in place when that is the same. */
    floe_status st = bind_form(c, parts, subselect, n, false, loc, out);
    const char *why = "(a row IN a correlated subquery needs a plain SELECT ... FROM ... WHERE, and the row's "
                      "columns distinct from its FROM's or qualified)";
    if (!st || floe_status_code(st) != FLOE_ERR_NOT_FOUND) return st;
    if (w != n || !inlinable(subselect)) return floe_status_wrap(st, "%s", why);
    floe_lplan *from = NULL;
    from_columns(c, subselect, &from);
    json_t *own = json_deep_copy(parts);
    bool ok = own && qualify_shadowed(c, subselect, own, from ? from->schema : NULL);
    floe_lplan_free(from);
    if (!ok) {
        json_decref(own);
        return floe_status_wrap(st, "%s", why);
    }
    floe_status_free(st);
    st = bind_form(c, own, subselect, n, true, loc, out);
    json_decref(own);
    return st;
}

/* (a, b) [NOT] IN (row, ...) rewritten as an OR of AND-ed equalities. */
floe_status bind_row_in_list(bind_ectx *c, const json_t *row, const json_t *items, bool negate, int32_t loc,
                             floe_expr **out) {
    *out = NULL;
    const json_t *parts = floe_pg_get(row, "args");
    int32_t n = floe_pg_list_len(parts), k = floe_pg_list_len(items);
    json_t *ors = json_array();
    floe_status st = ors ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; !st && i < k; i++) {
        const json_t *item = floe_pg_list_at(items, i);
        json_t *ir = floe_pg_as(item, "RowExpr");
        const json_t *iparts = ir ? floe_pg_get(ir, "args") : NULL;
        if (floe_pg_list_len(iparts) != n) {
            int32_t at = floe_pg_location(item);
            st = bind_error(c->s, at >= 0 ? at : loc, FLOE_ERR_INVALID_ARGUMENT,
                            "unequal number of entries in row expressions (IN list item %d is not a row of %d values)",
                            (int)i + 1, (int)n);
            break;
        }
        json_t *ands = json_array();
        for (int32_t j = 0; ands && j < n; j++) {
            json_t *eq = json_pack("{s:{s:s,s:[{s:{s:s}}],s:O,s:O,s:i}}", "A_Expr", "kind", "AEXPR_OP", "name", "String",
                                   "sval", "=", "lexpr", floe_pg_list_at(parts, j), "rexpr",
                                   floe_pg_list_at(iparts, j), "location", loc);
            if (!eq || json_array_append_new(ands, eq)) {
                json_decref(ands);
                ands = NULL;
            }
        }
        json_t *conj = ands ? json_pack("{s:{s:s,s:o,s:i}}", "BoolExpr", "boolop", "AND_EXPR", "args", ands, "location", loc)
                            : NULL;
        if (!conj || json_array_append_new(ors, conj)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    json_t *any = st ? NULL : json_pack("{s:{s:s,s:O,s:i}}", "BoolExpr", "boolop", "OR_EXPR", "args", ors, "location", loc);
    json_t *top = any && negate ? json_pack("{s:{s:s,s:[o],s:i}}", "BoolExpr", "boolop", "NOT_EXPR", "args", any,
                                            "location", loc)
                                : any;
    if (!st && !top) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    if (!st) st = bind_expr(c, top, out);
    json_decref(top);
    json_decref(ors);
    return st;
}
