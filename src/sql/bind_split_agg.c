/*
 * bind_split_agg.c — an aggregating query level with subqueries in its
 * select list, HAVING or ORDER BY, split in two so that the subqueries
 * see a plain (non-aggregating) query:
 *
 *   SELECT k, count(*), EXISTS (SELECT 1 FROM u WHERE u.k = t.k)
 *   FROM t WHERE w GROUP BY k HAVING sum(v) > (SELECT ...) ORDER BY ...
 *
 * becomes
 *
 *   SELECT k, __a0, EXISTS (SELECT 1 FROM u WHERE u.k = t.k)
 *   FROM (SELECT k, count(*) AS __a0, sum(v) AS __a1
 *         FROM t WHERE w GROUP BY k) AS <grouped>
 *   WHERE __a1 > (SELECT ...) ORDER BY ...
 *
 * The grouped derived table's column of a group key that is a column of
 * the FROM keeps that column's qualifier and name (t.k stays t.k), so the
 * upper level and its subqueries — correlated ones included — resolve
 * names as they did; a group key that is an expression becomes a column
 * __g<i>, and the upper level's copies of that expression read it.  The
 * aggregate calls (outside nested subqueries, which are their own level)
 * become columns __a<j>.  The subqueries are then bound by the ordinary
 * machinery (bind_subquery.c, bind_decorrelate.c), their correlations
 * reading the grouped rows.  GROUPING SETS keep the one-level form.
 *
 * An aggregate inside one of those subqueries whose arguments (FILTER,
 * ORDER BY) read only columns qualified by this level's FROM names, none
 * of the subquery's own, is this level's (PostgreSQL: such an aggregate
 * belongs to the outer level): `(SELECT max(b) FROM u WHERE u.x =
 * sum(t.v))` becomes a column __a<j> of the grouped level, which the
 * subquery reads as an outer column; it also makes a level without GROUP
 * BY aggregate.  Unqualified columns are left to the subquery's binding,
 * and set operations, FROM items and WITH queries of the subquery are not
 * searched.
 */
#include <stdio.h>
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_expr_internal.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

/* Does the parse tree hold a SubLink (not looking into one)? */
bool bind_has_sublink(const json_t *j) {
    if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j); i++)
            if (bind_has_sublink(json_array_get(j, i))) return true;
        return false;
    }
    if (!json_is_object(j)) return false;
    if (floe_pg_as(j, "SubLink")) return true;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)j, k, v) if (bind_has_sublink(v)) return true;
    return false;
}

/* ---- aggregates of this level inside its subqueries ------------------------ */

/* The names FROM list `fl` gives its relations (aliases, else table
 * names), appended to names[0..*n) (at most cap). */
static void from_names(const json_t *fl, const char **names, int32_t *n, int32_t cap) {
    for (int32_t i = 0; i < floe_pg_list_len(fl); i++) {
        const json_t *it = floe_pg_list_at(fl, i);
        const json_t *b = floe_pg_node_body(it);
        const json_t *j = floe_pg_as(it, "JoinExpr");
        if (j) {
            json_t *two = json_pack("[O,O]", floe_pg_get(j, "larg"), floe_pg_get(j, "rarg"));
            if (two) from_names(two, names, n, cap);
            json_decref(two);
            const char *al = floe_pg_get_str(floe_pg_node_body(floe_pg_get(j, "alias")), "aliasname");
            if (!al) al = floe_pg_get_str(floe_pg_get(j, "alias"), "aliasname");
            if (al && *n < cap) names[(*n)++] = al;
            continue;
        }
        json_t *alias = floe_pg_get(b, "alias");
        const char *al = floe_pg_get_str(floe_pg_node_body(alias), "aliasname");
        if (!al) al = floe_pg_get_str(alias, "aliasname");
        if (!al && floe_pg_as(it, "RangeVar")) al = floe_pg_get_str(b, "relname");
        if (al && *n < cap) names[(*n)++] = al;
    }
}

static bool in_names(const char *x, const char *const *names, int32_t n) {
    for (int32_t i = 0; x && i < n; i++)
        if (!strcmp(x, names[i])) return true;
    return false;
}

/* Does `node` read columns, every one qualified by a name of `outer` and
 * none of `inner`?  *any: it reads one. */
static bool outer_only(const json_t *node, const char *const *outer, int32_t no, const char *const *inner, int32_t ni,
                       bool *any) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            if (!outer_only(json_array_get(node, i), outer, no, inner, ni, any)) return false;
        return true;
    }
    if (!json_is_object(node)) return true;
    if (floe_pg_as(node, "SubLink")) return false;
    json_t *cr = floe_pg_as(node, "ColumnRef");
    if (cr) {
        json_t *fl = floe_pg_get(cr, "fields");
        const char *q = floe_pg_list_len(fl) == 2 ? floe_pg_string(floe_pg_list_at(fl, 0)) : NULL;
        *any = true;
        return q && in_names(q, outer, no) && !in_names(q, inner, ni);
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)node, k, v) if (!outer_only(v, outer, no, inner, ni, any)) return false;
    return true;
}

#define MAX_NAMES 64

static bool is_agg_call(const json_t *node);

/* Is `node` an aggregate call of the level whose FROM names are `outer`,
 * standing in a subquery whose FROM names are `inner`: its arguments (and
 * FILTER / ORDER BY) read only columns qualified by the outer level's
 * names (PostgreSQL: an aggregate of only outer-level columns belongs to
 * that level)?  Unqualified columns are left to the subquery. */
static bool is_outer_agg(const json_t *node, const char *const *outer, int32_t no, const char *const *inner,
                         int32_t ni) {
    if (!is_agg_call(node)) return false;
    const json_t *fc = floe_pg_as(node, "FuncCall");
    bool any = false;
    return outer_only(floe_pg_get(fc, "args"), outer, no, inner, ni, &any) &&
           outer_only(floe_pg_get(fc, "agg_filter"), outer, no, inner, ni, &any) &&
           outer_only(floe_pg_get(fc, "agg_order"), outer, no, inner, ni, &any) && any;
}

/* A subquery's plain SELECT body (set operations are not looked into). */
static const json_t *sub_select(const json_t *subselect) {
    const json_t *b = bind_select_body(subselect);
    const char *op = floe_pg_get_str(b, "op");
    return b && (!op || !strcmp(op, "SETOP_NONE")) ? b : NULL;
}

/* Parts of a subquery not searched for our aggregates: its FROM items and
 * WITH queries are levels of their own. */
static bool skipped(const char *key) { return !strcmp(key, "fromClause") || !strcmp(key, "withClause"); }

/* Does a SubLink under `node` (one level down) hold an aggregate of the
 * level whose FROM names are `outer`? */
static bool has_outer_agg_in(const json_t *node, const char *const *outer, int32_t no, const char *const *inner,
                             int32_t ni, bool in_sub) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            if (has_outer_agg_in(json_array_get(node, i), outer, no, inner, ni, in_sub)) return true;
        return false;
    }
    if (!json_is_object(node)) return false;
    json_t *sl = floe_pg_as(node, "SubLink");
    if (sl) {
        if (in_sub) return false; /* deeper levels: not looked at */
        if (has_outer_agg_in(floe_pg_get(sl, "testexpr"), outer, no, inner, ni, false)) return true;
        const json_t *sub = sub_select(floe_pg_get(sl, "subselect"));
        const char *names[MAX_NAMES];
        int32_t n = 0;
        from_names(floe_pg_get(sub, "fromClause"), names, &n, MAX_NAMES);
        return sub && has_outer_agg_in(sub, outer, no, names, n, true);
    }
    if (in_sub && is_outer_agg(node, outer, no, inner, ni)) return true;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)node, k, v) {
        if (in_sub && skipped(k)) continue;
        if (has_outer_agg_in(v, outer, no, inner, ni, in_sub)) return true;
    }
    return false;
}

static bool has_outer_agg(const json_t *body, const json_t *node) {
    const char *outer[MAX_NAMES];
    int32_t no = 0;
    from_names(floe_pg_get(body, "fromClause"), outer, &no, MAX_NAMES);
    return no > 0 && has_outer_agg_in(node, outer, no, NULL, 0, false);
}

bool bind_agg_needs_split(const json_t *body) {
    json_t *tl = floe_pg_get(body, "targetList"), *hv = floe_pg_get(body, "havingClause");
    json_t *sl = floe_pg_get(body, "sortClause"), *gl = floe_pg_get(body, "groupClause");
    /* an aggregate of ours inside a subquery makes us aggregate too */
    bool agg = floe_pg_list_len(gl) > 0 || hv || bind_has_aggregate(tl) || bind_has_aggregate(sl) ||
               has_outer_agg(body, tl) || has_outer_agg(body, sl);
    if (!agg || bind_group_has_sets(body) || bind_has_sublink(gl)) return false;
    /* DISTINCT ON and windows over aggregates keep the one-level form */
    json_t *dc = floe_pg_get(body, "distinctClause");
    if (dc && floe_pg_node_kind(floe_pg_list_at(dc, 0))) return false;
    return bind_has_sublink(tl) || bind_has_sublink(hv) || bind_has_sublink(sl);
}

/* Parse trees equal but for their "location" members. */
static bool same_tree(const json_t *a, const json_t *b) {
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        size_t na = 0, nb = 0;
        json_object_foreach((json_t *)a, k, v) {
            if (!strcmp(k, "location")) continue;
            na++;
            if (!same_tree(v, json_object_get(b, k))) return false;
        }
        json_object_foreach((json_t *)b, k, v) if (strcmp(k, "location") != 0) nb++;
        return na == nb;
    }
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b)) return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same_tree(json_array_get(a, i), json_array_get(b, i))) return false;
        return true;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

static json_t *column_ref(const char *name) {
    return json_pack("{s:{s:[{s:{s:s}}]}}", "ColumnRef", "fields", "String", "sval", name);
}

/* The split's state: the group keys (parse trees, borrowed) and the
 * aggregate calls found so far (borrowed), and the grouped level's select
 * list being built. */
typedef struct split {
    const json_t **keys;
    bool *key_is_column; /* the key is a FROM column: read by its own name */
    int32_t n_keys;
    const json_t **aggs;
    int32_t n_aggs, cap_aggs;
    const char *outer[MAX_NAMES]; /* the level's FROM names */
    int32_t n_outer;
    bool oom;
} split;

static bool is_agg_call(const json_t *node) {
    json_t *fc = floe_pg_as(node, "FuncCall");
    return fc && !floe_pg_get(fc, "over") && bind_has_aggregate(node) && !bind_has_aggregate(floe_pg_get(fc, "args")) &&
           !bind_has_aggregate(floe_pg_get(fc, "agg_filter")) && !bind_has_aggregate(floe_pg_get(fc, "agg_order"));
}

/* The grouped column of aggregate call `node` (added once). */
static json_t *agg_ref(split *sp, const json_t *node) {
    char nm[32];
    int32_t j = 0;
    while (j < sp->n_aggs && !same_tree(node, sp->aggs[j])) j++;
    if (j == sp->n_aggs) {
        if (sp->n_aggs == sp->cap_aggs) {
            int32_t cap = sp->cap_aggs ? 2 * sp->cap_aggs : 8;
            const json_t **v = floe_realloc(sp->aggs, (size_t)cap * sizeof *v);
            if (!v) {
                sp->oom = true;
                return NULL;
            }
            sp->aggs = v;
            sp->cap_aggs = cap;
        }
        sp->aggs[sp->n_aggs++] = node;
    }
    snprintf(nm, sizeof nm, "__a%d", (int)j);
    json_t *r = column_ref(nm);
    if (!r) sp->oom = true;
    return r;
}

/* A copy of subquery `node` (FROM names `inner`) with the aggregates of
 * our level in it replaced by their grouped columns, which it then reads
 * as outer columns; its FROM, WITH and own subqueries are copied as they
 * are.  NULL: out of memory (sp->oom). */
static json_t *lift_sub(split *sp, const json_t *node, const char *const *inner, int32_t ni) {
    if (json_is_array(node)) {
        json_t *out = json_array();
        for (size_t i = 0; out && i < json_array_size(node); i++)
            if (json_array_append_new(out, lift_sub(sp, json_array_get(node, i), inner, ni)) != 0) {
                json_decref(out);
                out = NULL;
            }
        if (!out) sp->oom = true;
        return out;
    }
    if (!json_is_object(node) || floe_pg_as(node, "SubLink")) return json_deep_copy(node);
    if (is_outer_agg(node, sp->outer, sp->n_outer, inner, ni)) return agg_ref(sp, node);
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)node, k, v) {
        json_t *l = skipped(k) ? json_deep_copy(v) : lift_sub(sp, v, inner, ni);
        if (!out || !l || json_object_set_new(out, k, l) != 0) {
            sp->oom = true;
            json_decref(out);
            return NULL;
        }
    }
    if (!out) sp->oom = true;
    return out;
}

/* A copy of `node` for the upper level: aggregate calls and expression
 * group keys replaced by their grouped columns (not inside SubLinks).
 * NULL: out of memory (sp->oom). */
static json_t *lift(split *sp, const json_t *node) {
    if (json_is_array(node)) {
        json_t *out = json_array();
        for (size_t i = 0; out && i < json_array_size(node); i++)
            if (json_array_append_new(out, lift(sp, json_array_get(node, i))) != 0) {
                json_decref(out);
                out = NULL;
            }
        if (!out) sp->oom = true;
        return out;
    }
    if (!json_is_object(node)) return json_deep_copy(node);
    char nm[32];
    for (int32_t i = 0; i < sp->n_keys; i++) {
        if (sp->key_is_column[i] || !same_tree(node, sp->keys[i])) continue;
        snprintf(nm, sizeof nm, "__g%d", (int)i);
        return column_ref(nm);
    }
    if (is_agg_call(node)) return agg_ref(sp, node);
    if (floe_pg_as(node, "SubLink")) {
        /* the subquery is its own level; only the tested value and the
         * aggregates of ours in it are ours */
        json_t *out = json_deep_copy(node);
        json_t *body = floe_pg_node_body(out);
        /* (lifted from the original: sp keeps pointers into it) */
        json_t *te = floe_pg_get(floe_pg_node_body(node), "testexpr");
        if (out && te) {
            json_t *l = lift(sp, te);
            if (!l || json_object_set_new(body, "testexpr", l) != 0) sp->oom = true;
        }
        const json_t *orig = floe_pg_get(floe_pg_node_body(node), "subselect");
        const json_t *sub = sub_select(orig);
        if (out && sub) {
            const char *inner[MAX_NAMES];
            int32_t ni = 0;
            from_names(floe_pg_get(sub, "fromClause"), inner, &ni, MAX_NAMES);
            json_t *l = lift_sub(sp, orig, inner, ni);
            if (!l || json_object_set_new(body, "subselect", l) != 0) sp->oom = true;
        }
        if (!out) sp->oom = true;
        return out;
    }
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)node, k, v) {
        json_t *l = lift(sp, v);
        if (!out || !l || json_object_set_new(out, k, l) != 0) {
            sp->oom = true;
            json_decref(out);
            return NULL;
        }
    }
    if (!out) sp->oom = true;
    return out;
}

/* The group key of GROUP BY item g: an ordinal or an output alias stands
 * for that select item's expression. */
static const json_t *group_key(floe_session *s, const json_t *g, const json_t *tl) {
    int64_t ord = 0;
    int32_t nt = floe_pg_list_len(tl);
    if (bind_const_int(s, g, &ord) && ord >= 1 && ord <= nt)
        return floe_pg_get(floe_pg_as(floe_pg_list_at(tl, (int32_t)ord - 1), "ResTarget"), "val");
    json_t *fl = floe_pg_get(floe_pg_as(g, "ColumnRef"), "fields");
    const char *bare = floe_pg_list_len(fl) == 1 ? floe_pg_string(floe_pg_list_at(fl, 0)) : NULL;
    for (int32_t k = 0; bare && k < nt; k++) {
        json_t *rt = floe_pg_as(floe_pg_list_at(tl, k), "ResTarget");
        const char *nm = floe_pg_get_str(rt, "name");
        if (nm && !strcmp(nm, bare)) return floe_pg_get(rt, "val");
    }
    return g;
}

/* The FROM column a ColumnRef names (qualifier and name), or -1. */
static int32_t from_column(const bind_scope *sc, const json_t *node) {
    json_t *fl = floe_pg_get(floe_pg_as(node, "ColumnRef"), "fields");
    int32_t n = floe_pg_list_len(fl);
    if (n < 1 || n > 2) return -1;
    const char *name = floe_pg_string(floe_pg_list_at(fl, n - 1));
    const char *qual = n == 2 ? floe_pg_string(floe_pg_list_at(fl, 0)) : NULL;
    if (!name) return -1;
    int32_t found = -1;
    for (int32_t i = 0; i < sc->n; i++) {
        const bind_col *c = &sc->cols[i];
        if (c->hidden || !c->name || strcmp(c->name, name) != 0) continue;
        if (qual && (!c->qual || strcmp(c->qual, qual) != 0)) continue;
        if (found >= 0) return -1; /* ambiguous: leave it to the binder */
        found = i;
    }
    return found;
}

floe_status bind_split_aggregate(floe_session *s, const json_t *body, bind_result *out) {
    memset(out, 0, sizeof(*out));
    json_t *tl = floe_pg_get(body, "targetList"), *gl = floe_pg_get(body, "groupClause");
    int32_t ng = floe_pg_list_len(gl);
    split sp;
    memset(&sp, 0, sizeof sp);
    from_names(floe_pg_get(body, "fromClause"), sp.outer, &sp.n_outer, MAX_NAMES);
    sp.keys = floe_calloc((size_t)ng + 1, sizeof *sp.keys);
    sp.key_is_column = floe_calloc((size_t)ng + 1, sizeof *sp.key_is_column);
    int32_t *key_col = floe_calloc((size_t)ng + 1, sizeof *key_col);
    bind_result from, grouped;
    memset(&from, 0, sizeof from);
    memset(&grouped, 0, sizeof grouped);
    json_t *upper = NULL, *lower = NULL;
    floe_status st = sp.keys && sp.key_is_column && key_col ? NULL
                                                             : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    /* the FROM's names, to tell which keys are its columns */
    if (!st && floe_pg_list_len(floe_pg_get(body, "fromClause")) > 0) st = bind_from(s, floe_pg_get(body, "fromClause"), &from);
    for (int32_t i = 0; i < ng && !st; i++) {
        const json_t *g = group_key(s, floe_pg_list_at(gl, i), tl);
        int32_t dup = -1;
        for (int32_t k = 0; k < sp.n_keys && dup < 0; k++)
            if (same_tree(g, sp.keys[k])) dup = k;
        if (dup >= 0) continue;
        key_col[sp.n_keys] = from_column(&from.scope, g);
        sp.key_is_column[sp.n_keys] = key_col[sp.n_keys] >= 0;
        sp.keys[sp.n_keys++] = g;
    }
    /* The upper level: the query without GROUP BY, HAVING as WHERE. */
    if (!st) {
        upper = json_object();
        static const char *const lifted[] = {"targetList", "sortClause", "distinctClause", "windowClause"};
        static const char *const copied[] = {"limitCount", "limitOffset", "limitOption", "op"};
        for (size_t i = 0; upper && i < 4; i++) {
            json_t *v = floe_pg_get(body, lifted[i]);
            if (v && json_object_set_new(upper, lifted[i], lift(&sp, v)) != 0) sp.oom = true;
        }
        for (size_t i = 0; upper && i < 4; i++) {
            json_t *v = floe_pg_get(body, copied[i]);
            if (v && json_object_set(upper, copied[i], v) != 0) sp.oom = true;
        }
        json_t *hv = floe_pg_get(body, "havingClause");
        if (upper && hv && json_object_set_new(upper, "whereClause", lift(&sp, hv)) != 0) sp.oom = true;
        /* an item whose expression was replaced keeps its output name */
        json_t *utl = json_object_get(upper, "targetList");
        for (int32_t i = 0; upper && i < floe_pg_list_len(tl); i++) {
            json_t *rt = floe_pg_as(floe_pg_list_at(tl, i), "ResTarget");
            json_t *urt = floe_pg_as(json_array_get(utl, (size_t)i), "ResTarget");
            if (rt && urt && !floe_pg_get_str(rt, "name") &&
                json_object_set_new(urt, "name", json_string(bind_default_name(floe_pg_get(rt, "val")))) != 0)
                sp.oom = true;
        }
        if (!upper || sp.oom) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    /* The lower level: FROM, WHERE, GROUP BY; the keys, then the aggregates. */
    if (!st) {
        lower = json_object();
        json_t *ltl = json_array();
        if (!lower || !ltl || json_object_set_new(lower, "targetList", ltl) != 0) sp.oom = true;
        static const char *const kept[] = {"fromClause", "whereClause", "groupClause"};
        for (size_t i = 0; !sp.oom && i < 3; i++) {
            json_t *v = floe_pg_get(body, kept[i]);
            if (v && json_object_set(lower, kept[i], v) != 0) sp.oom = true;
        }
        char nm[32];
        for (int32_t i = 0; !sp.oom && i < sp.n_keys + sp.n_aggs; i++) {
            snprintf(nm, sizeof nm, i < sp.n_keys ? "__g%d" : "__a%d", (int)(i < sp.n_keys ? i : i - sp.n_keys));
            const json_t *v = i < sp.n_keys ? sp.keys[i] : sp.aggs[i - sp.n_keys];
            json_t *rt = json_pack("{s:{s:O,s:s}}", "ResTarget", "val", v, "name", nm);
            if (!rt || json_array_append_new(ltl, rt) != 0) sp.oom = true;
        }
        if (sp.oom) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    /* The upper level reads the grouped rows (its FROM, also for the
     * subqueries' distinct outer values). */
    if (!st) {
        json_t *fc = json_pack("[{s:{s:{s:O},s:{s:{s:s}}}}]", "RangeSubselect", "subquery", "SelectStmt", lower,
                               "alias", "Alias", "aliasname", "?grouped?");
        if (!fc || json_object_set_new(upper, "fromClause", fc) != 0)
            st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    if (!st) st = bind_simple_select_over(s, lower, NULL, &grouped); /* (not split again) */
    /* the grouped columns' names: a FROM column key keeps its own */
    for (int32_t i = 0; i < grouped.scope.n && !st; i++) {
        bind_col *c = &grouped.scope.cols[i];
        floe_free(c->qual);
        c->qual = NULL;
        if (i < sp.n_keys && sp.key_is_column[i]) {
            const bind_col *fcol = &from.scope.cols[key_col[i]];
            floe_free(c->name);
            c->name = floe_strdup(fcol->name);
            c->qual = fcol->qual ? floe_strdup(fcol->qual) : NULL;
            if (!c->name || (fcol->qual && !c->qual)) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
    }
    if (!st) st = bind_simple_select_over(s, upper, &grouped, out);
    bind_result_free(&grouped);
    bind_result_free(&from);
    json_decref(upper);
    json_decref(lower);
    floe_free(sp.keys);
    floe_free(sp.key_is_column);
    floe_free(sp.aggs);
    floe_free(key_col);
    return st;
}
