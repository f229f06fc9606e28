/*
 * bind_cte.c — WITH: the names a query's WITH list declares, how each
 * reference to one binds, and WITH RECURSIVE.
 *
 * A WITH query referenced once is bound afresh where it is referenced
 * (inlined, so filters reach the scans inside it).  One referenced more
 * than once, or marked MATERIALIZED, is bound once on its first reference
 * and computed once: each reference is a CTE_SCAN of its key and the
 * query level's plan is wrapped in MATERIALIZE_CTE(definition, plan)
 * (src/exec/basic/cte.c), as PostgreSQL 12+ decides; NOT MATERIALIZED
 * always inlines.  References are counted in the parse tree up front (a
 * RangeVar of the name anywhere in the statement after the declaration;
 * a nested WITH redefining the name is counted too, which at worst
 * materializes where inlining would have done).
 *
 * WITH RECURSIVE: a WITH query that refers to itself must be
 * `non-recursive-term UNION [ALL] recursive-term`.  The non-recursive
 * term is bound first and fixes the column types and names; within the
 * recursive term the name binds to a CTE_SCAN of the working table
 * (cte_worktable).  PostgreSQL's checks are made on the parse tree with
 * its messages: no reference in the non-recursive term, none inside a
 * subquery expression or on the nullable side of an outer join, only
 * one, no aggregates, no ORDER BY / LIMIT / OFFSET on the union; a
 * recursive column whose type makes the union's type differ from the
 * non-recursive term's is an error, any other difference a cast.  The
 * iteration limit is the session's max_recursion_depth.  SEARCH and
 * CYCLE clauses add their columns around the two terms
 * (bind_cte_search.c).
 */
#include <string.h>

#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/bind_query_internal.h"
#include "sql/pgnode.h"

typedef struct bind_cte {
    const char *name;
    const json_t *cte;      /* the CommonTableExpr body */
    const json_t *query;    /* its ctequery */
    struct bind_cte *prev;
    int32_t location;
    int64_t key;            /* its held rows' key (materialized, working table) */
    bool recursive;         /* WITH RECURSIVE and it refers to itself */
    bool materialize;       /* computed once */
    bool bound;             /* materialize: def/scope made */
    floe_lplan *def;        /* materialize: its plan, until the wrap */
    bind_scope scope;       /* materialize: its output names */
    /* While its recursive term is bound: the working table. */
    bool in_recursive_term;
    int32_t work_refs;
    floe_schema *work_schema;
    bind_scope work_scope;
} bind_cte;

/* Keys of held rows: unique within a statement's plan, numbered from 1
 * per statement (bind_cte_keys_reset) so EXPLAIN reads the same every
 * time.  Two per WITH query: its materialized rows, its working table. */
static _Thread_local int64_t t_next_key = 1;

void bind_cte_keys_reset(void) { t_next_key = 1; }

/* ---- the parse tree ------------------------------------------------------ */

/* RangeVars naming `name` (unqualified) anywhere under node. */
static int32_t count_refs(const json_t *node, const char *name) {
    int32_t n = 0;
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) n += count_refs(json_array_get(node, i), name);
        return n;
    }
    if (!json_is_object(node)) return 0;
    json_t *rv = floe_pg_as(node, "RangeVar");
    if (rv) {
        const char *rel = floe_pg_get_str(rv, "relname");
        return rel && !floe_pg_get_str(rv, "schemaname") && strcmp(rel, name) == 0;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)node, key, v) n += count_refs(v, name);
    return n;
}

typedef enum rec_ctx { REC_OK = 0, REC_SUBLINK, REC_OUTER } rec_ctx;

/* PostgreSQL's checks of where a recursive term refers to its query. */
static floe_status check_rec_refs(floe_session *s, const json_t *node, const char *name, rec_ctx ctx) {
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            FLOE_TRY(check_rec_refs(s, json_array_get(node, i), name, ctx));
        return NULL;
    }
    if (!json_is_object(node)) return NULL;
    json_t *rv = floe_pg_as(node, "RangeVar");
    if (rv) {
        const char *rel = floe_pg_get_str(rv, "relname");
        if (!rel || floe_pg_get_str(rv, "schemaname") || strcmp(rel, name) != 0 || ctx == REC_OK) return NULL;
        return bind_error(s, floe_pg_location(node), FLOE_ERR_UNSUPPORTED,
                          "recursive reference to query \"%s\" must not appear within %s", name,
                          ctx == REC_SUBLINK ? "a subquery" : "an outer join");
    }
    json_t *sl = floe_pg_as(node, "SubLink");
    if (sl) {
        FLOE_TRY(check_rec_refs(s, floe_pg_get(sl, "testexpr"), name, ctx));
        return check_rec_refs(s, floe_pg_get(sl, "subselect"), name, ctx == REC_OK ? REC_SUBLINK : ctx);
    }
    json_t *j = floe_pg_as(node, "JoinExpr");
    if (j) {
        const char *t = floe_pg_get_str(j, "jointype");
        bool left = t && (!strcmp(t, "JOIN_LEFT") || !strcmp(t, "JOIN_FULL"));
        bool right = t && (!strcmp(t, "JOIN_RIGHT") || !strcmp(t, "JOIN_FULL"));
        rec_ctx outer = ctx == REC_OK ? REC_OUTER : ctx;
        FLOE_TRY(check_rec_refs(s, floe_pg_get(j, "larg"), name, right ? outer : ctx));
        FLOE_TRY(check_rec_refs(s, floe_pg_get(j, "rarg"), name, left ? outer : ctx));
        return check_rec_refs(s, floe_pg_get(j, "quals"), name, ctx);
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)node, key, v) FLOE_TRY(check_rec_refs(s, v, name, ctx));
    return NULL;
}

/* PostgreSQL's name of a type in its messages (nested types as floe
 * writes them). */
static const char *pg_type_name(const floe_type *t, char *buf, size_t n) {
    if (!floe_type_is_nested(t)) return floe_type_pg_name(t->id);
    floe_buf b = FLOE_BUF_INIT;
    if (!floe_type_to_string(t, &b)) snprintf(buf, n, "%s", floe_buf_cstr(&b));
    else snprintf(buf, n, "?");
    floe_buf_free(&b);
    return buf;
}

/* ---- binding --------------------------------------------------------------- */

/* The WITH query's column list renames its first columns. */
static floe_status apply_column_names(floe_session *s, const bind_cte *c, bind_scope *sc) {
    const json_t *names = floe_pg_get(c->cte, "aliascolnames");
    int32_t k = floe_pg_list_len(names);
    if (k > sc->n)
        return bind_error(s, c->location, FLOE_ERR_INVALID_ARGUMENT,
                          "WITH query \"%s\" has %d columns available but %d columns specified", c->name, (int)sc->n,
                          (int)k);
    for (int32_t i = 0; i < k; i++) {
        const char *nm = floe_pg_string(floe_pg_list_at(names, i));
        char *dup = floe_strdup(nm ? nm : "?");
        if (!dup) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        floe_free(sc->cols[i].name);
        sc->cols[i].name = dup;
    }
    return NULL;
}

/* `schema` with its names from sc and nullability widened by `other` (may
 * be NULL). */
static floe_status renamed_schema(const floe_schema *schema, const floe_schema *other, const bind_scope *sc,
                                  floe_schema **out) {
    int32_t n = floe_schema_num_fields(schema);
    floe_field *f = floe_calloc((size_t)n + 1, sizeof *f);
    floe_status st = f ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; !st && i < n; i++) {
        const floe_field *a = floe_schema_field(schema, i);
        bool nullable = a->nullable || (other && floe_schema_field(other, i)->nullable);
        st = floe_field_init(&f[i], i < sc->n ? sc->cols[i].name : a->name, a->type, nullable, -1);
    }
    if (!st) st = floe_type_struct(f, n, out);
    for (int32_t i = 0; f && i < n; i++) floe_field_clear(&f[i]);
    floe_free(f);
    return st;
}

/* Cast the recursive term's columns to the non-recursive term's types, as
 * PostgreSQL does when the union's type is the non-recursive one. */
static floe_status fit_recursive_term(floe_session *s, const bind_cte *c, const floe_schema *anchor,
                                      floe_lplan **rec) {
    int32_t n = floe_schema_num_fields(anchor);
    if (floe_schema_num_fields((*rec)->schema) != n)
        return bind_error(s, c->location, FLOE_ERR_INVALID_ARGUMENT, "each UNION query must have the same number of columns");
    bool need = false;
    for (int32_t i = 0; i < n; i++) {
        floe_type *a = floe_schema_field(anchor, i)->type, *b = floe_schema_field((*rec)->schema, i)->type;
        if (floe_type_equals(a, b)) continue;
        floe_type *common = bind_set_common_type(a, b);
        bool same = common && floe_type_equals(common, a);
        char t1[64], t2[64];
        floe_status st = NULL;
        if (!common)
            st = bind_error(s, c->location, FLOE_ERR_TYPE, "UNION types %s and %s cannot be matched",
                            pg_type_name(a, t1, sizeof t1), pg_type_name(b, t2, sizeof t2));
        else if (!same)
            st = bind_error(s, c->location, FLOE_ERR_TYPE,
                            "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall",
                            c->name, (int)i + 1, pg_type_name(a, t1, sizeof t1), pg_type_name(common, t2, sizeof t2));
        floe_type_release(common);
        if (st) return st;
        need = true;
    }
    if (!need) return NULL;
    floe_expr **ex = floe_calloc((size_t)n + 1, sizeof *ex);
    char **names = floe_calloc((size_t)n + 1, sizeof *names);
    floe_status st = (ex && names) ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; !st && i < n; i++) {
        const floe_field *f = floe_schema_field((*rec)->schema, i);
        floe_type *a = floe_schema_field(anchor, i)->type;
        floe_expr *col = NULL;
        st = floe_expr_column(i, &col);
        if (!st && floe_type_equals(f->type, a)) ex[i] = floe_expr_retain(col);
        else if (!st && f->type->id == FLOE_TYPE_NULL) st = floe_expr_lit_null(a, &ex[i]);
        else if (!st) st = floe_expr_cast(col, a, &ex[i]);
        floe_expr_release(col);
        names[i] = f->name;
    }
    floe_lplan *p = NULL;
    if (!st) {
        st = bind_make_project(*rec, ex, names, n, &p);
        *rec = p;
    }
    if (ex) bind_expr_list_free(ex, n);
    floe_free(names);
    return st;
}

/* `anchor UNION [ALL] recursive` of WITH RECURSIVE query c. */
static floe_status bind_recursive(floe_session *s, bind_cte *c, bind_result *out) {
    memset(out, 0, sizeof *out);
    const json_t *body = bind_select_body(c->query);
    const char *op = floe_pg_get_str(body, "op");
    if (!body || !op || strcmp(op, "SETOP_UNION") != 0)
        return bind_error(s, c->location, FLOE_ERR_SYNTAX,
                          "recursive query \"%s\" does not have the form non-recursive-term UNION [ALL] recursive-term",
                          c->name);
    if (floe_pg_get(body, "sortClause"))
        return bind_error(s, floe_pg_location(floe_pg_list_at(floe_pg_get(body, "sortClause"), 0)),
                          FLOE_ERR_UNSUPPORTED, "ORDER BY in a recursive query is not implemented");
    if (floe_pg_get(body, "limitOffset"))
        return bind_error(s, floe_pg_location(floe_pg_get(body, "limitOffset")), FLOE_ERR_UNSUPPORTED,
                          "OFFSET in a recursive query is not implemented");
    if (floe_pg_get(body, "limitCount"))
        return bind_error(s, floe_pg_location(floe_pg_get(body, "limitCount")), FLOE_ERR_UNSUPPORTED,
                          "LIMIT in a recursive query is not implemented");
    const json_t *larg = floe_pg_get(body, "larg"), *rarg = floe_pg_get(body, "rarg");
    bool sc = bind_sc_present(c->cte);
    if (sc) FLOE_TRY(bind_sc_check_form(s, c->cte, body, c->location));
    if (count_refs(larg, c->name) > 0)
        return bind_error(s, c->location, FLOE_ERR_UNSUPPORTED,
                          "recursive reference to query \"%s\" must not appear within its non-recursive term", c->name);
    const json_t *rbody = bind_select_body(rarg);
    FLOE_TRY(check_rec_refs(s, rarg, c->name, REC_OK));
    if (rbody && (bind_has_aggregate(floe_pg_get(rbody, "targetList")) || bind_has_aggregate(floe_pg_get(rbody, "havingClause"))))
        return bind_error(s, c->location, FLOE_ERR_UNSUPPORTED,
                          "aggregate functions are not allowed in a recursive query's recursive term");

    bind_result a, r;
    memset(&r, 0, sizeof r);
    bind_cte *saved = s->ctes;
    s->ctes = c->prev;
    floe_status st = bind_select(s, larg, &a);
    s->ctes = saved;
    if (st) return st;
    st = apply_column_names(s, c, &a.scope);
    int32_t n_own = a.scope.n;
    json_t *rarg_sc = NULL; /* with SEARCH / CYCLE: rarg selecting the added columns too */
    if (!st && sc) st = bind_sc_anchor(s, c->cte, &a, c->location);
    if (!st && sc) st = bind_sc_recursive_term(s, c->cte, c->name, rarg, c->location, &rarg_sc);
    if (!st) st = renamed_schema(a.plan->schema, NULL, &a.scope, &c->work_schema);
    if (!st) st = bind_scope_append(&c->work_scope, &a.scope);
    if (!st) {
        saved = s->ctes;
        s->ctes = c;
        c->in_recursive_term = true;
        c->work_refs = 0;
        st = bind_select(s, rarg_sc ? rarg_sc : rarg, &r);
        c->in_recursive_term = false;
        s->ctes = saved;
    }
    json_decref(rarg_sc);
    if (!st) st = fit_recursive_term(s, c, a.plan->schema, &r.plan);
    if (!st && sc) st = bind_sc_recursive(s, c->cte, &a.scope, n_own, &r.plan);
    if (!st && sc) st = fit_recursive_term(s, c, a.plan->schema, &r.plan);
    floe_schema *schema = NULL;
    if (!st) st = renamed_schema(a.plan->schema, r.plan->schema, &a.scope, &schema);
    floe_lplan *p = NULL;
    if (!st) {
        floe_lplan *in[2] = {a.plan, r.plan};
        st = floe_lplan_new(FLOE_L_RECURSIVE_UNION, schema, in, 2, &p);
        if (!st) {
            a.plan = r.plan = NULL;
            p->cte_key = c->key + 1; /* the working table's */
            p->cte_distinct = !floe_pg_get_bool(body, "all");
            p->cte_max_iterations = s->opts.max_recursion_depth > 0 ? s->opts.max_recursion_depth : 100000;
            if (!(p->table_name = floe_strdup(c->name))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
    }
    floe_type_release(schema);
    floe_type_release(c->work_schema);
    c->work_schema = NULL;
    bind_scope_free(&c->work_scope);
    if (!st) {
        out->plan = p;
        out->scope = a.scope;
        memset(&a.scope, 0, sizeof a.scope);
    } else {
        floe_lplan_free(p);
    }
    bind_result_free(&a);
    bind_result_free(&r);
    return st;
}

/* Bind WITH query c's body (with its column names). */
static floe_status bind_cte_body(floe_session *s, bind_cte *c, bind_result *out) {
    if (c->recursive) return bind_recursive(s, c, out);
    /* The body sees only the WITH queries declared before it. */
    bind_cte *saved = s->ctes;
    s->ctes = c->prev;
    floe_status st = bind_select(s, c->query, out);
    s->ctes = saved;
    if (!st) st = apply_column_names(s, c, &out->scope);
    if (st) bind_result_free(out);
    return st;
}

/* A leaf reading rows held under c's key. */
static floe_status cte_scan(bind_cte *c, floe_schema *schema, const bind_scope *sc, bool worktable, bind_result *out) {
    memset(out, 0, sizeof *out);
    floe_status st = floe_lplan_new(FLOE_L_CTE_SCAN, schema, NULL, 0, &out->plan);
    if (!st) {
        out->plan->cte_key = worktable ? c->key + 1 : c->key;
        out->plan->cte_worktable = worktable;
        if (!(out->plan->table_name = floe_strdup(c->name))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    for (int32_t i = 0; !st && i < sc->n; i++) st = bind_scope_add(&out->scope, NULL, sc->cols[i].name, false);
    if (st) bind_result_free(out);
    return st;
}

floe_status bind_cte_lookup(floe_session *s, const char *name, bind_result *out, bool *found) {
    *found = false;
    for (bind_cte *c = s->ctes; c; c = c->prev) {
        if (!c->name || strcmp(c->name, name) != 0) continue;
        *found = true;
        if (c->in_recursive_term) {
            if (++c->work_refs > 1)
                return bind_error(s, c->location, FLOE_ERR_UNSUPPORTED,
                                  "recursive reference to query \"%s\" must not appear more than once", c->name);
            return cte_scan(c, c->work_schema, &c->work_scope, true, out);
        }
        if (!c->materialize) return bind_cte_body(s, c, out);
        if (!c->bound) {
            bind_result def;
            FLOE_TRY(bind_cte_body(s, c, &def));
            floe_schema *schema = NULL;
            floe_status st = renamed_schema(def.plan->schema, NULL, &def.scope, &schema);
            if (st) {
                bind_result_free(&def);
                return st;
            }
            floe_type_release(def.plan->schema);
            def.plan->schema = schema;
            c->def = def.plan;
            c->scope = def.scope;
            c->bound = true;
        }
        return cte_scan(c, c->def->schema, &c->scope, false, out);
    }
    return NULL;
}

/* ---- a query level's WITH list --------------------------------------------- */

floe_status bind_with_begin(floe_session *s, const json_t *with, const json_t *body, struct bind_cte **frames_out) {
    *frames_out = NULL;
    bool recursive = floe_pg_get_bool(with, "recursive");
    json_t *ctes = floe_pg_get(with, "ctes");
    int32_t n = floe_pg_list_len(ctes);
    bind_cte *frames = floe_calloc((size_t)n + 1, sizeof(bind_cte));
    if (!frames) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < n; i++) {
        bind_cte *c = &frames[i];
        c->cte = floe_pg_as(floe_pg_list_at(ctes, i), "CommonTableExpr");
        c->name = floe_pg_get_str(c->cte, "ctename");
        c->query = floe_pg_get(c->cte, "ctequery");
        c->location = floe_pg_location(floe_pg_list_at(ctes, i));
        c->key = t_next_key;
        t_next_key += 2;
        c->prev = s->ctes;
        s->ctes = c;
    }
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < n; i++) {
        bind_cte *c = &frames[i];
        if (!c->name) continue;
        c->recursive = recursive && count_refs(c->query, c->name) > 0;
        /* SEARCH / CYCLE (bind_cte_search.c) need a recursive query. */
        if (bind_sc_present(c->cte) && !c->recursive)
            st = bind_error(s, c->location, FLOE_ERR_SYNTAX, "WITH query is not recursive");
        /* References: the query's own text (not its WITH list) and the
         * WITH queries declared after it. */
        int32_t refs = 0;
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)body, key, v) if (strcmp(key, "withClause") != 0) refs += count_refs(v, c->name);
        for (int32_t j = i + 1; j < n; j++) refs += count_refs(frames[j].query, c->name);
        const char *m = floe_pg_get_str(c->cte, "ctematerialized");
        if (m && !strcmp(m, "CTEMaterializeAlways")) c->materialize = true;
        else if (m && !strcmp(m, "CTEMaterializeNever")) c->materialize = false;
        else c->materialize = refs > 1;
    }
    *frames_out = frames;
    return st;
}

/* Wrap *plan in the MATERIALIZE_CTE of each materialized WITH query that
 * was referenced, the first declared outermost (a later one's definition
 * may read an earlier one), and free the frames. */
floe_status bind_with_end(floe_session *s, struct bind_cte *frames, const json_t *with, floe_status st,
                          floe_lplan **plan) {
    (void)s;
    int32_t n = floe_pg_list_len(floe_pg_get(with, "ctes"));
    for (int32_t i = n - 1; i >= 0; i--) {
        bind_cte *c = &frames[i];
        if (!c->bound) continue;
        if (!st && *plan) {
            floe_lplan *in[2] = {c->def, *plan};
            floe_lplan *w = NULL;
            st = floe_lplan_new(FLOE_L_MATERIALIZE_CTE, (*plan)->schema, in, 2, &w);
            if (!st) {
                c->def = NULL;
                *plan = w;
                w->cte_key = c->key;
                if (!(w->table_name = floe_strdup(c->name))) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            }
        }
        floe_lplan_free(c->def);
        bind_scope_free(&c->scope);
    }
    floe_free(frames);
    return st;
}
