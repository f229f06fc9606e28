/*
 * bind_union_sublink.c — a correlated IN / EXISTS / ANY over a UNION:
 *
 *   x op ANY (A UNION [ALL] B)  =  x op ANY (A) OR x op ANY (B)
 *   EXISTS (A UNION [ALL] B)    =  EXISTS (A) OR EXISTS (B)
 *
 * which holds in three values too (TRUE on a match in either; FALSE when
 * neither matches nor compares a NULL; else NULL), so each branch is
 * decorrelated on its own (bind_decorrelate.c) and a nested UNION splits
 * again.  ALL arrives as NOT of ANY.  INTERSECT / EXCEPT, a UNION with
 * its own ORDER BY / LIMIT / WITH, and scalar subqueries over set
 * operations stay refused.
 */
#include <string.h>

#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

bool bind_is_plain_union(const json_t *sub) {
    const char *op = floe_pg_get_str(sub, "op");
    return op && !strcmp(op, "SETOP_UNION") && !floe_pg_get(sub, "sortClause") && !floe_pg_get(sub, "limitCount") &&
           !floe_pg_get(sub, "limitOffset") && !floe_pg_get(sub, "withClause");
}

floe_status bind_union_sublink(bind_ectx *c, const json_t *sub, bool exists, const json_t *testexpr, floe_cmp_op cmp,
                               int32_t loc, floe_expr **out) {
    static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
    json_t *args = json_array();
    for (int k = 0; args && k < 2; k++) {
        json_t *branch = floe_pg_get(sub, k ? "rarg" : "larg");
        json_t *sl = exists ? json_pack("{s:{s:s,s:{s:O},s:i}}", "SubLink", "subLinkType", "EXISTS_SUBLINK", "subselect",
                                        "SelectStmt", branch, "location", loc)
                            : json_pack("{s:{s:s,s:O,s:[{s:{s:s}}],s:{s:O},s:i}}", "SubLink", "subLinkType",
                                        "ANY_SUBLINK", "testexpr", testexpr, "operName", "String", "sval",
                                        ops[(int)cmp], "subselect", "SelectStmt", branch, "location", loc);
        if (!branch || !sl || json_array_append_new(args, sl)) {
            json_decref(args);
            args = NULL;
        }
    }
    json_t *or = args ? json_pack("{s:{s:s,s:o,s:i}}", "BoolExpr", "boolop", "OR_EXPR", "args", args, "location", loc)
                      : NULL;
    if (!or) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding a subquery: out of memory");
    floe_status st = bind_expr(c, or, out);
    json_decref(or);
    return st;
}
