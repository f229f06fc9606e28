/*
 * bind_agg_sublink.c — subqueries inside an aggregate's argument, FILTER
 * or ORDER BY, computed per input row below the aggregate:
 *
 *   SELECT k, sum((SELECT max(v) FROM u WHERE u.k = t.k)),
 *          count(*) FILTER (WHERE t.v IN (SELECT v FROM u))
 *   FROM t WHERE w GROUP BY k
 *
 * is bound as
 *
 *   SELECT k, sum(__s0), count(*) FILTER (WHERE __s1)
 *   FROM (SELECT *, (SELECT max(v) ...) AS __s0, t.v IN (SELECT v FROM u) AS __s1
 *         FROM t WHERE w) AS <pre>
 *   GROUP BY k
 *
 * The lower level is a plain (non-aggregating) query, where subqueries of
 * any shape — correlated ones included — are values (bind_subquery.c,
 * bind_decorrelate.c).  Its `*` columns keep the FROM's qualifiers and
 * names, so the aggregating level resolves t.k and k as before.  A query
 * that also has subqueries outside its aggregates' arguments (select
 * list, HAVING, ORDER BY) is refused with an error naming that.
 */
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

/* Is `node` an aggregate call itself (not only holding one)? */
static bool is_agg_call(const json_t *node) {
    json_t *fc = floe_pg_as(node, "FuncCall");
    return fc && !floe_pg_get(fc, "over") && bind_has_aggregate(node) && !bind_has_aggregate(floe_pg_get(fc, "args")) &&
           !bind_has_aggregate(floe_pg_get(fc, "agg_filter")) && !bind_has_aggregate(floe_pg_get(fc, "agg_order"));
}

static const char *const agg_parts[] = {"args", "agg_filter", "agg_order"};

/* Does some aggregate call under node (not inside a SubLink) hold a
 * SubLink in its argument, FILTER or ORDER BY? */
static bool agg_holds_sublink(const json_t *node) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            if (agg_holds_sublink(json_array_get(node, i))) return true;
        return false;
    }
    if (!json_is_object(node) || floe_pg_as(node, "SubLink")) return false;
    if (is_agg_call(node)) {
        json_t *fc = floe_pg_as(node, "FuncCall");
        for (size_t i = 0; i < 3; i++)
            if (bind_has_sublink(floe_pg_get(fc, agg_parts[i]))) return true;
        return false;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)node, k, v) if (agg_holds_sublink(v)) return true;
    return false;
}

bool bind_agg_has_arg_sublink(const json_t *body) {
    static const char *const parts[] = {"targetList", "havingClause", "sortClause"};
    for (size_t i = 0; i < 3; i++)
        if (agg_holds_sublink(floe_pg_get(body, parts[i]))) return true;
    return false;
}

/* The lower level's select list being built: `*`, then one item per
 * subquery moved down. */
typedef struct moved {
    json_t *targets;
    int32_t n;
    bool oom;
} moved;

/* In place: every outermost SubLink under node becomes a column __s<i>
 * and its tree (moved) an item of the lower select list. */
static void move_sublinks(moved *m, json_t *node) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            json_t *v = json_array_get(node, i);
            if (!floe_pg_as(v, "SubLink")) {
                move_sublinks(m, v);
                continue;
            }
            char nm[32];
            snprintf(nm, sizeof nm, "__s%d", (int)m->n++);
            json_t *rt = json_pack("{s:{s:O,s:s}}", "ResTarget", "val", v, "name", nm);
            json_t *cr = json_pack("{s:{s:[{s:{s:s}}]}}", "ColumnRef", "fields", "String", "sval", nm);
            if (!rt || !cr || json_array_append_new(m->targets, rt) || json_array_set_new(node, i, cr)) m->oom = true;
        }
        return;
    }
    if (!json_is_object(node)) return;
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(node, tmp, k, v) {
        if (!floe_pg_as(v, "SubLink")) {
            move_sublinks(m, v);
            continue;
        }
        char nm[32];
        snprintf(nm, sizeof nm, "__s%d", (int)m->n++);
        json_t *rt = json_pack("{s:{s:O,s:s}}", "ResTarget", "val", v, "name", nm);
        json_t *cr = json_pack("{s:{s:[{s:{s:s}}]}}", "ColumnRef", "fields", "String", "sval", nm);
        if (!rt || !cr || json_array_append_new(m->targets, rt) || json_object_set_new(node, k, cr)) m->oom = true;
    }
}

/* In place: the aggregate calls' parts under node have their subqueries
 * moved down. */
static void move_agg_sublinks(moved *m, json_t *node) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) move_agg_sublinks(m, json_array_get(node, i));
        return;
    }
    if (!json_is_object(node) || floe_pg_as(node, "SubLink")) return;
    if (is_agg_call(node)) {
        json_t *fc = floe_pg_as(node, "FuncCall");
        for (size_t i = 0; i < 3; i++) {
            json_t *part = floe_pg_get(fc, agg_parts[i]);
            if (floe_pg_as(part, "SubLink")) { /* a FILTER that is one subquery */
                json_t *wrap = json_pack("[O]", part);
                if (!wrap) m->oom = true;
                else {
                    move_sublinks(m, wrap);
                    if (json_object_set(fc, agg_parts[i], json_array_get(wrap, 0))) m->oom = true;
                    json_decref(wrap);
                }
            } else if (part) {
                move_sublinks(m, part);
            }
        }
        return;
    }
    const char *k;
    json_t *v;
    json_object_foreach(node, k, v) move_agg_sublinks(m, v);
}

floe_status bind_agg_arg_sublinks(floe_session *s, const json_t *body, bind_result *out) {
    memset(out, 0, sizeof *out);
    int32_t loc = floe_pg_location(floe_pg_list_at(floe_pg_get(body, "targetList"), 0));
    if (bind_group_has_sets(body) || bind_has_sublink(floe_pg_get(body, "groupClause")))
        return bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                          "a subquery in an aggregate's argument of a query with GROUPING SETS or subqueries in "
                          "GROUP BY is not supported");
    moved m = {json_array(), 0, false};
    json_t *upper = json_deep_copy(body);
    json_t *star = json_pack("{s:{s:{s:{s:[{s:{}}]}}}}", "ResTarget", "val", "ColumnRef", "fields", "A_Star");
    if (!m.targets || !upper || !star || json_array_append_new(m.targets, star)) m.oom = true;
    else move_agg_sublinks(&m, upper);
    floe_status st = m.oom ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory") : NULL;
    if (!st && bind_agg_needs_split(upper))
        st = bind_error(s, loc, FLOE_ERR_UNSUPPORTED,
                        "a subquery in an aggregate's argument together with subqueries elsewhere in an aggregating "
                        "query's select list, HAVING or ORDER BY is not supported");
    /* the lower level: SELECT *, <subqueries> FROM ... WHERE ... */
    json_t *lower = st ? NULL : json_pack("{s:O}", "targetList", m.targets);
    static const char *const kept[] = {"fromClause", "whereClause"};
    for (size_t i = 0; lower && i < 2; i++) {
        json_t *v = floe_pg_get(body, kept[i]);
        if (v && json_object_set(lower, kept[i], v)) m.oom = true;
    }
    if (!st && (!lower || m.oom)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    bind_result from, pre;
    memset(&from, 0, sizeof from);
    memset(&pre, 0, sizeof pre);
    if (!st && floe_pg_list_len(floe_pg_get(body, "fromClause")) > 0) st = bind_from(s, floe_pg_get(body, "fromClause"), &from);
    if (!st) st = bind_simple_select_over(s, lower, NULL, &pre);
    /* The `*` columns take back the FROM's qualifiers and names: they are
     * its visible columns, in order. */
    int32_t j = 0;
    for (int32_t i = 0; !st && i < from.scope.n; i++) {
        const bind_col *fc = &from.scope.cols[i];
        if (fc->hidden || fc->system) continue;
        if (j >= pre.scope.n - m.n) {
            st = floe_error(FLOE_ERR_INTERNAL, "aggregate subqueries: the FROM's columns do not line up");
            break;
        }
        bind_col *pc = &pre.scope.cols[j++];
        floe_free(pc->qual);
        floe_free(pc->name);
        pc->qual = fc->qual ? floe_strdup(fc->qual) : NULL;
        pc->name = floe_strdup(fc->name);
        if (!pc->name || (fc->qual && !pc->qual)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    if (!st && j != pre.scope.n - m.n)
        st = floe_error(FLOE_ERR_INTERNAL, "aggregate subqueries: the FROM's columns do not line up");
    for (int32_t i = j; !st && i < pre.scope.n; i++) { /* __s<i>: hidden from `*` */
        floe_free(pre.scope.cols[i].qual);
        pre.scope.cols[i].qual = NULL;
        pre.scope.cols[i].system = true;
    }
    /* the aggregating level over it, WHERE already applied */
    if (!st) {
        json_object_del(upper, "whereClause");
        json_object_del(upper, "fromClause");
        st = bind_simple_select_over(s, upper, &pre, out);
    }
    bind_result_free(&pre);
    bind_result_free(&from);
    json_decref(lower);
    json_decref(upper);
    json_decref(m.targets);
    return st;
}
