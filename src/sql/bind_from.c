/*
 * bind_from.c — the FROM clause: catalog tables (with time travel and
 * "t$snapshots" metadata tables), table functions (generate_series,
 * read_parquet, iceberg_scan, tpch_gen), subqueries, and joins (ON / USING /
 * NATURAL, comma lists as cross joins).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "floe/catalog.h"
#include "floe/exec_scan.h"
#include "floe/exec_tpch.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"
#include "floe/iceberg_metadata_columns.h"
#include "sql/bind.h"
#include "sql/bind_view.h"
#include "sql/bind_csv.h"
#include "sql/bind_json.h"
#include "sql/bind_query_internal.h"
#include "iceberg/snapshot/snapshot_branch.h"
#include "sql/metadata_tables.h"
#include "sql/pg_catalog_tables.h"
#include "sql/ref_ident.h"
#include "sql/pgnode.h"

/* ------------------------------------------------------------ helpers */

floe_status bind_make_project(floe_lplan *input, floe_expr *const *exprs, char *const *names, int32_t n,
                              floe_lplan **out) {
    *out = NULL;
    floe_field *f = floe_calloc((size_t)n + 1, sizeof(floe_field));
    floe_lplan *p = NULL;
    floe_schema *schema = NULL;
    floe_status st = f ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    int32_t k = 0;
    for (; k < n && !st; k++) {
        floe_type *t = NULL;
        st = floe_expr_type(exprs[k], input->schema, &t);
        if (!st) {
            /* Nullable unless it is a non-null input column read as is. */
            bool nullable = true;
            if (exprs[k]->kind == FLOE_EXPR_COLUMN)
                nullable = floe_schema_field(input->schema, exprs[k]->column)->nullable;
            else if (exprs[k]->kind == FLOE_EXPR_LITERAL)
                nullable = floe_array_is_null(exprs[k]->literal, 0);
            st = floe_field_init(&f[k], names[k], t, nullable, -1);
        }
        floe_type_release(t);
    }
    if (!st) st = floe_type_struct(f, n, &schema);
    for (int32_t i = 0; f && i < n; i++) floe_field_clear(&f[i]);
    floe_free(f);
    if (st) {
        floe_lplan_free(input);
        return st;
    }
    floe_lplan *in[1] = {input};
    st = floe_lplan_new(FLOE_L_PROJECT, schema, in, 1, &p);
    floe_type_release(schema);
    if (st) return st;
    p->exprs = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    p->names = floe_calloc((size_t)n + 1, sizeof(char *));
    if (!p->exprs || !p->names) {
        floe_lplan_free(p);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    p->n_exprs = n;
    for (int32_t i = 0; i < n; i++) {
        p->exprs[i] = floe_expr_retain(exprs[i]);
        p->names[i] = floe_strdup(names[i]);
        if (!p->names[i]) {
            floe_lplan_free(p);
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
    }
    *out = p;
    return NULL;
}

/* Split an ON condition into equi keys (left col expr = right col expr)
 * and the rest. */
static floe_status split_join_condition(floe_lplan *j, floe_expr *on, int32_t n_left) {
    floe_expr **parts = NULL;
    int32_t n = 0;
    FLOE_TRY(bind_conjuncts(on, &parts, &n));
    floe_expr **rest = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    j->left_keys = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    j->right_keys = floe_calloc((size_t)n + 1, sizeof(floe_expr *));
    floe_status st = (!rest || !j->left_keys || !j->right_keys)
                         ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory")
                         : NULL;
    int32_t n_rest = 0;
    for (int32_t i = 0; i < n && !st; i++) {
        floe_expr *e = parts[i];
        if (e->kind == FLOE_EXPR_CMP && e->op == FLOE_CMP_EQ) {
            int32_t lo0 = INT32_MAX, hi0 = -1, lo1 = INT32_MAX, hi1 = -1;
            bind_expr_column_range(e->args[0], &lo0, &hi0);
            bind_expr_column_range(e->args[1], &lo1, &hi1);
            floe_expr *lk = NULL, *rk = NULL;
            if (hi0 >= 0 && hi1 >= 0 && hi0 < n_left && lo1 >= n_left) {
                lk = e->args[0];
                rk = e->args[1];
            } else if (hi0 >= 0 && hi1 >= 0 && hi1 < n_left && lo0 >= n_left) {
                lk = e->args[1];
                rk = e->args[0];
            }
            if (lk) {
                j->left_keys[j->n_keys] = floe_expr_retain(lk);
                st = bind_expr_shift(rk, -n_left, &j->right_keys[j->n_keys]);
                if (st) {
                    floe_expr_release(j->left_keys[j->n_keys]);
                    j->left_keys[j->n_keys] = NULL;
                } else {
                    j->n_keys++;
                }
                continue;
            }
        }
        rest[n_rest++] = floe_expr_retain(e);
    }
    if (!st) st = bind_and_all(rest, n_rest, &j->predicate);
    bind_expr_list_free(rest, n_rest);
    bind_expr_list_free(parts, n);
    return st;
}

floe_status bind_make_join(floe_lplan *left, floe_lplan *right, floe_join_type type, floe_expr *on,
                           floe_lplan **out) {
    *out = NULL;
    floe_schema *schema = NULL;
    floe_status st = floe_join_output_schema(left->schema, right->schema, type, &schema);
    if (st) {
        floe_lplan_free(left);
        floe_lplan_free(right);
        return st;
    }
    int32_t n_left = floe_schema_num_fields(left->schema);
    floe_lplan *in[2] = {left, right};
    floe_lplan *j = NULL;
    st = floe_lplan_new(FLOE_L_JOIN, schema, in, 2, &j);
    floe_type_release(schema);
    if (st) return st;
    j->join_type = type;
    if (on && !(on->kind == FLOE_EXPR_LITERAL && !floe_array_is_null(on->literal, 0) &&
                on->literal->type->id == FLOE_TYPE_BOOL && floe_array_get_bool(on->literal, 0))) {
        st = split_join_condition(j, on, n_left);
        if (st) {
            floe_lplan_free(j);
            return st;
        }
    }
    *out = j;
    return NULL;
}

/* ------------------------------------------------------------ tables */

/* A node over a physical plan (VALUES, metadata tables, Parquet). */
static floe_status physical_node(floe_lkind kind, floe_plan *phys, floe_lplan **out) {
    floe_status st = floe_lplan_new(kind, (floe_schema *)floe_plan_schema(phys), NULL, 0, out);
    if (st) {
        floe_plan_release(phys);
        return st;
    }
    (*out)->physical = phys;
    return NULL;
}

/* Parse "YYYY-MM-DD HH:MM:SS[.fff][+zz]" (UTC unless zoned) or epoch ms. */
static floe_status as_of_millis(floe_session *s, const floe_sql_clause *c, int64_t *ms) {
    if (!c->is_string) return floe_parse_int64(floe_str_c(c->text), "FOR SYSTEM_TIME AS OF", ms);
    floe_expr *lit = NULL;
    bind_ectx ec;
    bind_ectx_init(&ec, s, NULL, NULL, "AS OF");
    floe_expr *str = NULL;
    floe_status st = floe_expr_lit_string(c->text, &str);
    if (!st) st = bind_coerce(&ec, str, floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ), -1, &lit);
    if (!st) *ms = floe_ice_floordiv(floe_array_get_int64(lit->literal, 0), 1000);
    floe_expr_release(str);
    floe_expr_release(lit);
    bind_ectx_clear(&ec);
    return st;
}

/* The snapshot selector of FOR SYSTEM_VERSION / SYSTEM_TIME AS OF (none:
 * the current snapshot) and the snapshot it selects (*snap NULL: the
 * current one); a snapshot id, ref or time the table does not have is an
 * error.  sel->ref is allocated (floe_free it). */
static floe_status as_of_select(floe_session *s, const floe_ice_table *t, const char *display,
                                const floe_sql_clause *version, const floe_sql_clause *time,
                                floe_ice_snapshot_selector *sel, const floe_ice_snapshot **snap) {
    memset(sel, 0, sizeof *sel);
    *snap = NULL;
    if (version && !version->is_string) {
        sel->kind = FLOE_ICE_SELECT_ID;
        FLOE_TRY(floe_parse_int64(floe_str_c(version->text), "FOR SYSTEM_VERSION AS OF", &sel->snapshot_id));
        if (!(*snap = floe_ice_tm_snapshot(t->md, sel->snapshot_id)))
            return floe_error(FLOE_ERR_NOT_FOUND, "table %s has no snapshot %lld", display, (long long)sel->snapshot_id);
    } else if (version) {
        sel->kind = FLOE_ICE_SELECT_REF;
        if (!(sel->ref = floe_strdup(version->text))) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        return floe_ice_tm_snapshot_by_ref(t->md, version->text, snap);
    } else if (time) {
        sel->kind = FLOE_ICE_SELECT_AS_OF;
        FLOE_TRY(as_of_millis(s, time, &sel->timestamp_ms));
        return floe_ice_tm_snapshot_as_of(t->md, sel->timestamp_ms, snap);
    }
    return NULL;
}

/* A metadata table of one snapshot ($files, $manifests, ...) read AS OF:
 * built on the table as it was at that snapshot (its metadata with that
 * snapshot current), as Spark's time travel on metadata tables.  Those
 * of the whole table ($snapshots, $refs, $all_files, ...) take no AS OF. */
static floe_status metadata_as_of(floe_session *s, floe_ice_table *t, const char *display, const char *which,
                                  const floe_sql_clause *version, const floe_sql_clause *time) {
    if (!version && !time) return NULL;
    if (!floe_sql_metadata_table_of_snapshot(which))
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "metadata table %s covers the whole table, not one snapshot; it cannot be read AS OF",
                          display);
    floe_ice_snapshot_selector sel;
    const floe_ice_snapshot *snap = NULL;
    floe_status st = as_of_select(s, t, display, version, time, &sel, &snap);
    floe_free((char *)sel.ref);
    FLOE_TRY(st);
    if (!snap) return NULL;
    floe_ice_table_metadata *view = NULL;
    FLOE_TRY(floe_ice_tm_snapshot_view(t->md, snap->snapshot_id, &view));
    floe_ice_table_metadata_free(t->md);
    t->md = view;
    return NULL;
}

/* The ICEBERG_SCAN node of an open table (ownership of `t` passes in). */
static floe_status iceberg_node(floe_session *s, floe_ice_table *t, const char *display,
                                const floe_sql_clause *version, const floe_sql_clause *time, int32_t location,
                                floe_lplan **out) {
    *out = NULL;
    floe_ice_snapshot_selector sel;
    const floe_ice_schema *schema = floe_ice_tm_current_schema(t->md);
    const floe_ice_snapshot *snap = NULL;
    floe_status st = as_of_select(s, t, display, version, time, &sel, &snap);
    char *ref = (char *)sel.ref;
    if (!st && snap) schema = floe_ice_tm_snapshot_schema(t->md, snap);
    if (!st && !schema) st = floe_error(FLOE_ERR_CORRUPT, "table %s has no schema", display);
    /* The table's columns, then its metadata columns (_file, _pos, _row_id
     * ...; iceberg_metadata_columns.h) that no column of its own hides:
     * found by name, never part of `*` (bind_scope_mark_system), and read
     * only when a query names them (projection pruning drops the rest). */
    int32_t nf = schema ? schema->root->n_fields : 0, n_ids = 0;
    int32_t *ids = st ? NULL : floe_calloc((size_t)nf + (size_t)floe_ice_metadata_field_count() + 1, sizeof *ids);
    if (!st && !ids) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; !st && i < nf; i++) ids[n_ids++] = schema->root->fields[i].id;
    for (int32_t m = 0; !st && m < floe_ice_metadata_field_count(); m++) {
        const floe_ice_field *mf = floe_ice_metadata_field_at(m);
        if (!floe_ice_schema_find_by_name(schema, mf->name, true)) ids[n_ids++] = mf->id;
    }
    floe_schema *cs = NULL;
    if (!st) st = floe_ice_schema_to_columnar(schema, ids, n_ids, &cs);
    floe_lplan *p = NULL;
    if (!st) st = floe_lplan_new(FLOE_L_ICEBERG_SCAN, cs, NULL, 0, &p);
    floe_type_release(cs);
    if (st) {
        floe_free(ids);
        floe_free(ref);
        floe_ice_table_free(t);
        return bind_at(s, location, st);
    }
    p->table = t;
    p->snapshot = sel;
    p->table_name = floe_strdup(display);
    p->field_ids = ids;
    p->n_field_ids = n_ids;
    if (!p->table_name) {
        floe_lplan_free(p);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    *out = p;
    return NULL;
}

/* The scope of an Iceberg scan: its metadata columns are system columns. */
static floe_status iceberg_scope(const floe_lplan *p, const char *qual, bind_scope *out) {
    FLOE_TRY(bind_scope_from_schema(p->schema, qual, out));
    for (int32_t i = 0; i < p->n_field_ids && i < out->n; i++)
        if (floe_ice_metadata_field(p->field_ids[i])) out->cols[i].system = true;
    return NULL;
}

static floe_status bind_range_var(floe_session *s, const json_t *rv, bind_result *out) {
    int32_t loc = (int32_t)floe_pg_get_int(rv, "location", -1);
    const char *rel = floe_pg_get_str(rv, "relname");
    const char *ns = floe_pg_get_str(rv, "schemaname");
    /* s.t.branch_b / s.t.tag_x: the ref, read as FOR SYSTEM_VERSION AS OF
     * 'b' reads it (ref_ident.h). */
    floe_sql_ref_ident ri;
    FLOE_TRY(bind_at(s, loc, floe_sql_ref_ident_resolve(s->catalog, floe_pg_get_str(rv, "catalogname"), ns, rel, &ri)));
    if (ri.ref) {
        ns = ri.ns;
        rel = ri.name;
    } else if (floe_pg_get_str(rv, "catalogname") && strcmp(floe_pg_get_str(rv, "catalogname"), "floe") != 0)
        return bind_error(s, loc, FLOE_ERR_NOT_FOUND, "unknown catalog '%s' (the catalog is 'floe')",
                          floe_pg_get_str(rv, "catalogname"));
    if (!rel) return bind_error(s, loc, FLOE_ERR_SYNTAX, "table name missing");
    if (!ns) {
        bool found = false;
        FLOE_TRY(bind_cte_lookup(s, rel, out, &found));
        if (found) {
            const char *q = floe_pg_get_str(floe_pg_get(rv, "alias"), "aliasname");
            for (int32_t i = 0; i < out->scope.n; i++) {
                floe_free(out->scope.cols[i].qual);
                out->scope.cols[i].qual = floe_strdup(q ? q : rel);
                if (!out->scope.cols[i].qual) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            }
            return NULL;
        }
    }
    if (floe_sql_is_pg_catalog_relation(ns, rel)) {
        /* PostgreSQL's system relations, built now from the catalog */
        floe_plan *phys = NULL;
        FLOE_TRY(bind_at(s, loc, floe_sql_pg_catalog_table(s, ns, rel, &phys)));
        FLOE_TRY(physical_node(FLOE_L_PHYSICAL, phys, &out->plan));
        const char *q = floe_pg_get_str(floe_pg_get(rv, "alias"), "aliasname");
        return bind_scope_from_schema(out->plan->schema, q ? q : rel, &out->scope);
    }
    if (!ns) ns = s->default_ns ? s->default_ns : "default";
    char name[512];
    snprintf(name, sizeof name, "%s", rel);
    char *dollar = strchr(name, '$');
    if (dollar) *dollar = 0;
    floe_ice_table *t = NULL;
    floe_status st = floe_catalog_load_table(s->catalog, ns, name, &t);
    if (st && !dollar && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        /* Not a table: a view of that name is expanded in its place. */
        bool is_view = false;
        floe_status vst = bind_view_ref(s, ns, name, loc, &is_view, out);
        if (is_view || vst) {
            floe_status_free(st);
            FLOE_TRY(vst);
            json_t *alias = floe_pg_get(rv, "alias");
            const char *vq = floe_pg_get_str(alias, "aliasname");
            return bind_view_qualify(out, vq ? vq : rel);
        }
    }
    if (st) return bind_at(s, loc, st);
    char display[1100];
    snprintf(display, sizeof display, "%s.%s", ns, rel);
    json_t *alias = floe_pg_get(rv, "alias");
    const char *qual = floe_pg_get_str(alias, "aliasname");
    if (!qual) qual = rel;
    if (dollar) {
        floe_plan *phys = NULL;
        const floe_sql_stmt *stmt = s->stmt;
        st = metadata_as_of(s, t, display, dollar + 1,
                            stmt ? floe_sql_stmt_clause(stmt, FLOE_SQL_AS_OF_VERSION, loc) : NULL,
                            stmt ? floe_sql_stmt_clause(stmt, FLOE_SQL_AS_OF_TIME, loc) : NULL);
        if (!st) st = floe_sql_metadata_table(t, dollar + 1, &phys);
        floe_ice_table_free(t);
        if (st) return bind_at(s, loc, st);
        FLOE_TRY(physical_node(FLOE_L_PHYSICAL, phys, &out->plan));
    } else {
        const floe_sql_stmt *stmt = s->stmt;
        const floe_sql_clause *v = stmt ? floe_sql_stmt_clause(stmt, FLOE_SQL_AS_OF_VERSION, loc) : NULL;
        const floe_sql_clause *tm = stmt ? floe_sql_stmt_clause(stmt, FLOE_SQL_AS_OF_TIME, loc) : NULL;
        floe_sql_clause ref_clause = {FLOE_SQL_AS_OF_VERSION, loc, (char *)ri.ref, true};
        if (ri.ref && (v || tm)) {
            floe_ice_table_free(t);
            return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT,
                              "%s.%s.%s%s already selects a %s; it cannot be combined with AS OF", ns, rel,
                              ri.is_tag ? "tag_" : "branch_", ri.ref, ri.is_tag ? "tag" : "branch");
        }
        if (ri.ref && !floe_ice_tm_ref(t->md, ri.ref)) {
            floe_ice_table_free(t);
            /* Iceberg's SparkCatalog */
            return bind_error(s, loc, FLOE_ERR_NOT_FOUND, "Cannot find snapshot associated with %s name: %s",
                              ri.is_tag ? "tag" : "branch", ri.ref);
        }
        if (ri.ref) v = &ref_clause;
        st = iceberg_node(s, t, display, v, tm, loc, &out->plan);
        if (st) return bind_at(s, loc, st);
    }
    if (out->plan->kind == FLOE_L_ICEBERG_SCAN) return iceberg_scope(out->plan, qual, &out->scope);
    return bind_scope_from_schema(out->plan->schema, qual, &out->scope);
}

/* ---------------------------------------------------- table functions */

/* A constant argument of a table function, evaluated now. */
floe_status bind_table_func_const_arg(floe_session *s, const json_t *node, floe_array **out) {
    bind_scope empty;
    memset(&empty, 0, sizeof(empty));
    floe_schema *es = NULL;
    FLOE_TRY(floe_type_struct(NULL, 0, &es));
    bind_ectx c;
    bind_ectx_init(&c, s, &empty, es, "table function arguments");
    floe_type_release(es);
    floe_expr *e = NULL;
    floe_status st = bind_expr(&c, node, &e);
    if (!st) st = bind_eval_const(e, out);
    floe_expr_release(e);
    bind_ectx_clear(&c);
    return bind_at(s, floe_pg_location(node), st);
}

static floe_status const_int_arg(floe_session *s, const json_t *node, const char *what, int64_t *v) {
    floe_array *a = NULL;
    FLOE_TRY(bind_table_func_const_arg(s, node, &a));
    floe_status st = NULL;
    if (floe_array_is_null(a, 0)) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s must not be NULL", what);
    else if (a->type->id == FLOE_TYPE_INT32) *v = floe_array_get_int32(a, 0);
    else if (a->type->id == FLOE_TYPE_INT64) *v = floe_array_get_int64(a, 0);
    else st = floe_error(FLOE_ERR_TYPE, "%s must be an integer, not %s", what, floe_type_id_name(a->type->id));
    floe_array_release(a);
    return bind_at(s, floe_pg_location(node), st);
}

/* Strings of a constant string or ARRAY['a', 'b'] argument. */
static floe_status string_list_arg(floe_session *s, const json_t *node, char ***out, int32_t *n) {
    *out = NULL;
    *n = 0;
    json_t *arr = floe_pg_as(node, "A_ArrayExpr");
    json_t *items = arr ? floe_pg_get(arr, "elements") : NULL;
    int32_t cnt = arr ? floe_pg_list_len(items) : 1;
    char **v = floe_calloc((size_t)cnt + 1, sizeof(char *));
    if (!v) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    floe_status st = NULL;
    for (int32_t i = 0; i < cnt && !st; i++) {
        json_t *x = arr ? floe_pg_list_at(items, i) : (json_t *)node;
        floe_array *a = NULL;
        st = bind_table_func_const_arg(s, x, &a);
        if (!st && (a->type->id != FLOE_TYPE_STRING || floe_array_is_null(a, 0)))
            st = bind_error(s, floe_pg_location(x), FLOE_ERR_TYPE, "expected a file path string");
        if (!st) {
            floe_strview sv = floe_array_get_str(a, 0);
            v[i] = floe_strndup(sv.data, (size_t)sv.len);
            if (!v[i]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
        floe_array_release(a);
    }
    if (st) {
        for (int32_t i = 0; i < cnt; i++) floe_free(v[i]);
        floe_free(v);
        return st;
    }
    *out = v;
    *n = cnt;
    return NULL;
}

/* tpch_gen('lineitem', 0.1): the rows of a TPC-H table (floe/exec_tpch.h)
 * in target_partitions partitions. */
static floe_status bind_tpch_gen(floe_session *s, const json_t *args, int32_t n, int32_t loc, bind_result *out) {
    if (n != 2) return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "tpch_gen takes two arguments (a table name and a scale factor)");
    floe_array *t = NULL, *f = NULL;
    FLOE_TRY(bind_table_func_const_arg(s, floe_pg_list_at(args, 0), &t));
    floe_status st = bind_table_func_const_arg(s, floe_pg_list_at(args, 1), &f);
    char *name = NULL;
    double sf = 0;
    if (!st && (t->type->id != FLOE_TYPE_STRING || floe_array_is_null(t, 0)))
        st = bind_error(s, floe_pg_location(floe_pg_list_at(args, 0)), FLOE_ERR_TYPE, "tpch_gen: the table name must be a string");
    if (!st && floe_array_is_null(f, 0)) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "tpch_gen: the scale factor must not be NULL");
    else if (!st && f->type->id == FLOE_TYPE_INT32) sf = floe_array_get_int32(f, 0);
    else if (!st && f->type->id == FLOE_TYPE_INT64) sf = (double)floe_array_get_int64(f, 0);
    else if (!st && f->type->id == FLOE_TYPE_FLOAT64) sf = floe_array_get_double(f, 0);
    else if (!st && f->type->id == FLOE_TYPE_DECIMAL128) {
        floe_decimal128 d = floe_array_get_decimal(f, 0);
        double p10 = 1;
        for (int32_t i = 0; i < f->type->scale; i++) p10 *= 10;
        sf = (double)(int64_t)d.lo / p10;
        if (d.hi != ((int64_t)d.lo < 0 ? -1 : 0)) st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "tpch_gen: scale factor out of range");
    } else if (!st)
        st = floe_error(FLOE_ERR_TYPE, "tpch_gen: the scale factor must be a number, not %s", floe_type_id_name(f->type->id));
    if (!st) {
        floe_strview sv = floe_array_get_str(t, 0);
        name = floe_strndup(sv.data, (size_t)sv.len);
        if (!name) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    floe_plan *phys = NULL;
    if (!st) st = floe_plan_tpch_gen(name, sf, s->opts.target_partitions, &phys);
    floe_free(name);
    floe_array_release(t);
    floe_array_release(f);
    if (st) return bind_at(s, loc, st);
    return physical_node(FLOE_L_PHYSICAL, phys, &out->plan);
}

static floe_status bind_table_function(floe_session *s, const json_t *rf, bind_result *out) {
    json_t *fns = floe_pg_get(rf, "functions");
    json_t *pair = floe_pg_get(floe_pg_as(floe_pg_list_at(fns, 0), "List"), "items");
    json_t *fc = floe_pg_as(floe_pg_list_at(pair, 0), "FuncCall");
    json_t *alias = floe_pg_get(rf, "alias");
    int32_t loc = (int32_t)floe_pg_get_int(fc, "location", -1);
    if (!fc || floe_pg_list_len(fns) != 1)
        return bind_error(s, loc, FLOE_ERR_UNSUPPORTED, "this table function form is not supported");
    /* (LATERAL over columns to the left: bind_lateral_series; a call
     * reading none is the same as without LATERAL) */
    json_t *names = floe_pg_get(fc, "funcname");
    const char *fname = floe_pg_string(floe_pg_list_at(names, floe_pg_list_len(names) - 1));
    json_t *args = floe_pg_get(fc, "args");
    int32_t n = floe_pg_list_len(args);
    const char *qual = floe_pg_get_str(alias, "aliasname");
    floe_status st = NULL;
    if (fname && !strcmp(fname, "generate_series")) {
        if (n < 2 || n > 3) return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "generate_series takes 2 or 3 arguments");
        int64_t a, b, step = 1;
        FLOE_TRY(const_int_arg(s, floe_pg_list_at(args, 0), "generate_series start", &a));
        FLOE_TRY(const_int_arg(s, floe_pg_list_at(args, 1), "generate_series stop", &b));
        if (n == 3) FLOE_TRY(const_int_arg(s, floe_pg_list_at(args, 2), "generate_series step", &step));
        if (step == 0) return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "generate_series step must not be zero");
        /* The column is named after the alias when there is one, as in
         * PostgreSQL (SELECT g FROM generate_series(1, 3) g). */
        const char *col = qual ? qual : "generate_series";
        json_t *colnames = floe_pg_get(alias, "colnames");
        if (floe_pg_list_len(colnames) > 0) col = floe_pg_string(floe_pg_list_at(colnames, 0));
        floe_field f;
        floe_schema *schema = NULL;
        st = floe_field_init(&f, col, floe_type_primitive(FLOE_TYPE_INT64), false, -1);
        if (st) return st;
        st = floe_type_struct(&f, 1, &schema);
        floe_field_clear(&f);
        if (!st) st = floe_lplan_new(FLOE_L_GENERATE_SERIES, schema, NULL, 0, &out->plan);
        floe_type_release(schema);
        if (st) return st;
        out->plan->start = a;
        out->plan->stop = b;
        out->plan->step = step;
        return bind_scope_from_schema(out->plan->schema, qual ? qual : "generate_series", &out->scope);
    }
    if (fname && !strcmp(fname, "read_parquet")) {
        /* read_parquet(paths [, hive_partitioning => true|false]) */
        floe_hive_mode hive = FLOE_HIVE_AUTO;
        for (int32_t i = 1; i < n; i++) {
            json_t *a = floe_pg_list_at(args, i);
            json_t *named = floe_pg_as(a, "NamedArgExpr");
            const char *an = named ? floe_pg_get_str(named, "name") : NULL;
            if (!named)
                return bind_error(s, floe_pg_location(a), FLOE_ERR_INVALID_ARGUMENT,
                                  "read_parquet takes one argument (a path, glob or ARRAY of them) and named options");
            if (!an || strcmp(an, "hive_partitioning") != 0) {
                const char *cands[] = {"hive_partitioning"};
                return bind_at(s, floe_pg_location(a),
                               floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "read_parquet option", floe_str_c(an), cands, 1));
            }
            floe_array *v = NULL;
            json_t *av = floe_pg_get(named, "arg");
            FLOE_TRY(bind_table_func_const_arg(s, av, &v));
            if (v->type->id != FLOE_TYPE_BOOL || floe_array_is_null(v, 0))
                st = bind_error(s, floe_pg_location(av), FLOE_ERR_TYPE, "hive_partitioning must be true or false");
            else hive = floe_array_get_bool(v, 0) ? FLOE_HIVE_ON : FLOE_HIVE_OFF;
            floe_array_release(v);
            FLOE_TRY(st);
        }
        if (n < 1 || floe_pg_as(floe_pg_list_at(args, 0), "NamedArgExpr"))
            return bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "read_parquet takes one argument (a path, glob or ARRAY of them)");
        char **paths = NULL;
        int32_t np = 0;
        FLOE_TRY(string_list_arg(s, floe_pg_list_at(args, 0), &paths, &np));
        floe_plan *phys = NULL;
        st = floe_parquet_scan_new_hive((const char *const *)paths, np, s->opts.target_partitions, hive, &phys);
        for (int32_t i = 0; i < np; i++) floe_free(paths[i]);
        floe_free(paths);
        if (st) return bind_at(s, loc, st);
        FLOE_TRY(physical_node(FLOE_L_PARQUET_SCAN, phys, &out->plan));
        return bind_scope_from_schema(out->plan->schema, qual ? qual : "read_parquet", &out->scope);
    }
    if (fname && (!strcmp(fname, "read_csv") || !strcmp(fname, "read_csv_auto"))) {
        floe_plan *phys = NULL;
        FLOE_TRY(floe_sql_bind_read_csv(s, fname, args, loc, &phys));
        FLOE_TRY(physical_node(FLOE_L_PHYSICAL, phys, &out->plan));
        return bind_scope_from_schema(out->plan->schema, qual ? qual : fname, &out->scope);
    }
    if (fname && (!strcmp(fname, "read_json") || !strcmp(fname, "read_json_auto") || !strcmp(fname, "read_ndjson") ||
                  !strcmp(fname, "read_ndjson_auto"))) {
        floe_plan *phys = NULL;
        FLOE_TRY(floe_sql_bind_read_json(s, fname, args, loc, &phys));
        FLOE_TRY(physical_node(FLOE_L_PHYSICAL, phys, &out->plan));
        return bind_scope_from_schema(out->plan->schema, qual ? qual : fname, &out->scope);
    }
    if (fname && !strcmp(fname, "iceberg_scan")) {
        const char *path = NULL;
        bool allow_moved = false;
        int64_t snapshot_id = 0;
        bool has_snapshot = false;
        floe_array *patharr = NULL;
        for (int32_t i = 0; i < n && !st; i++) {
            json_t *a = floe_pg_list_at(args, i);
            json_t *named = floe_pg_as(a, "NamedArgExpr");
            if (!named) {
                if (i != 0) {
                    st = bind_error(s, floe_pg_location(a), FLOE_ERR_INVALID_ARGUMENT,
                                    "iceberg_scan takes one path and named options");
                    break;
                }
                st = bind_table_func_const_arg(s, a, &patharr);
                if (!st && (patharr->type->id != FLOE_TYPE_STRING || floe_array_is_null(patharr, 0)))
                    st = bind_error(s, floe_pg_location(a), FLOE_ERR_TYPE, "iceberg_scan: the path must be a string");
                continue;
            }
            const char *an = floe_pg_get_str(named, "name");
            json_t *av = floe_pg_get(named, "arg");
            if (an && !strcmp(an, "allow_moved_paths")) {
                floe_array *v = NULL;
                st = bind_table_func_const_arg(s, av, &v);
                if (!st && (v->type->id != FLOE_TYPE_BOOL || floe_array_is_null(v, 0)))
                    st = bind_error(s, floe_pg_location(av), FLOE_ERR_TYPE, "allow_moved_paths must be true or false");
                if (!st) allow_moved = floe_array_get_bool(v, 0);
                floe_array_release(v);
            } else if (an && !strcmp(an, "snapshot_id")) {
                st = const_int_arg(s, av, "snapshot_id", &snapshot_id);
                has_snapshot = true;
            } else {
                const char *cands[] = {"allow_moved_paths", "snapshot_id"};
                st = bind_at(s, floe_pg_location(a),
                             floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "iceberg_scan option", floe_str_c(an), cands, 2));
            }
        }
        if (!st && !patharr) st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "iceberg_scan needs a path");
        char *pathz = NULL;
        if (!st) {
            floe_strview sv = floe_array_get_str(patharr, 0);
            pathz = floe_strndup(sv.data, (size_t)sv.len);
            path = pathz;
            if (!pathz) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        }
        floe_ice_table *t = NULL;
        if (!st) st = bind_at(s, loc, floe_ice_table_open(s->io, path, allow_moved, &t));
        floe_array_release(patharr);
        if (!st) {
            floe_sql_clause vc = {FLOE_SQL_AS_OF_VERSION, loc, NULL, false};
            char idtext[32];
            snprintf(idtext, sizeof idtext, "%lld", (long long)snapshot_id);
            vc.text = idtext;
            /* FOR SYSTEM_VERSION / SYSTEM_TIME AS OF after the call. */
            const floe_sql_clause *av = s->stmt ? floe_sql_stmt_clause(s->stmt, FLOE_SQL_AS_OF_VERSION, loc) : NULL;
            const floe_sql_clause *at = s->stmt ? floe_sql_stmt_clause(s->stmt, FLOE_SQL_AS_OF_TIME, loc) : NULL;
            if ((av || at) && has_snapshot) {
                floe_ice_table_free(t);
                st = bind_error(s, loc, FLOE_ERR_INVALID_ARGUMENT, "iceberg_scan: give snapshot_id or AS OF, not both");
            } else {
                st = iceberg_node(s, t, path, has_snapshot ? &vc : av, at, loc, &out->plan);
            }
        }
        floe_free(pathz);
        if (st) return st;
        return iceberg_scope(out->plan, qual ? qual : "iceberg_scan", &out->scope);
    }
    if (fname && !strcmp(fname, "tpch_gen")) {
        FLOE_TRY(bind_tpch_gen(s, args, n, loc, out));
        return bind_scope_from_schema(out->plan->schema, qual ? qual : "tpch_gen", &out->scope);
    }
    const char *cands[] = {"generate_series", "read_parquet", "read_csv", "read_json", "read_ndjson", "iceberg_scan", "tpch_gen", "unnest"};
    return bind_at(s, loc, floe_unknown_name_error(FLOE_ERR_NOT_FOUND, "table function", floe_str_c(fname), cands, 8));
}

/* Column aliases: t(a, b) renames the first columns. */
static floe_status apply_alias(floe_session *s, const json_t *alias, bind_result *r) {
    if (!alias) return NULL;
    const char *q = floe_pg_get_str(alias, "aliasname");
    /* Hidden columns (a join's USING copies) lose their name: the alias
     * replaces the relation names inside it. */
    int32_t visible = 0;
    for (int32_t i = 0; q && i < r->scope.n; i++) {
        floe_free(r->scope.cols[i].qual);
        r->scope.cols[i].qual = r->scope.cols[i].hidden ? NULL : floe_strdup(q);
        if (!r->scope.cols[i].hidden && !r->scope.cols[i].qual)
            return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    for (int32_t i = 0; i < r->scope.n; i++) visible += !r->scope.cols[i].hidden;
    json_t *cols = floe_pg_get(alias, "colnames");
    int32_t n = floe_pg_list_len(cols);
    if (n > visible)
        return bind_error(s, -1, FLOE_ERR_INVALID_ARGUMENT, "%s has %d columns but %d column aliases were given",
                          q ? q : "relation", (int)visible, (int)n);
    for (int32_t i = 0, k = 0; k < n && i < r->scope.n; i++) {
        if (r->scope.cols[i].hidden) continue;
        const char *nm = floe_pg_string(floe_pg_list_at(cols, k++));
        floe_free(r->scope.cols[i].name);
        r->scope.cols[i].name = floe_strdup(nm ? nm : "?column?");
        if (!r->scope.cols[i].name) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    return NULL;
}

static void result_free(bind_result *r) {
    floe_lplan_free(r->plan);
    bind_scope_free(&r->scope);
    r->plan = NULL;
}

static floe_status bind_from_item(floe_session *s, const json_t *node, bind_result *out);

static floe_join_type join_type_of(const char *t) {
    if (t && !strcmp(t, "JOIN_LEFT")) return FLOE_JOIN_LEFT;
    if (t && !strcmp(t, "JOIN_RIGHT")) return FLOE_JOIN_RIGHT;
    if (t && !strcmp(t, "JOIN_FULL")) return FLOE_JOIN_FULL;
    return FLOE_JOIN_INNER;
}

/* Widening order of the number types (0: not a number). */
static int num_rank(floe_type_id id) {
    switch (id) {
    case FLOE_TYPE_INT32: return 1;
    case FLOE_TYPE_INT64: return 2;
    case FLOE_TYPE_DECIMAL128: return 3;
    case FLOE_TYPE_FLOAT32: return 4;
    case FLOE_TYPE_FLOAT64: return 5;
    default: return 0;
    }
}

/* JOIN ... USING / NATURAL: put a projection over the join whose first
 * columns are the merged ones, in USING order — the left value for INNER
 * and LEFT joins, the right one for RIGHT joins, COALESCE(left, right) for
 * FULL joins (PostgreSQL's rule) — followed by every column of the join.
 * In the scope the merged columns are unqualified and visible; the sides'
 * copies are hidden but still reached as a.k / b.k and listed by a.* (so
 * `SELECT *` shows each merged column once, first). */
static floe_status merge_using(bind_result *out, bind_scope *sc, floe_join_type type, int32_t nl, int32_t nu,
                               const int32_t *lidx, const int32_t *ridx) {
    floe_lplan *j = out->plan;
    int32_t nj = floe_schema_num_fields(j->schema), n = nu + nj;
    floe_expr **exprs = floe_calloc((size_t)n, sizeof(floe_expr *));
    char **names = floe_calloc((size_t)n, sizeof(char *));
    bind_scope ns;
    memset(&ns, 0, sizeof ns);
    floe_status st = exprs && names ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    for (int32_t i = 0; i < nu && !st; i++) {
        floe_expr *a = NULL, *b = NULL;
        st = floe_expr_column(lidx[i], &a);
        if (!st) st = floe_expr_column(nl + ridx[i], &b);
        if (!st && type == FLOE_JOIN_FULL) {
            floe_type *ta = NULL, *tb = NULL;
            st = floe_expr_type(a, j->schema, &ta);
            if (!st) st = floe_expr_type(b, j->schema, &tb);
            if (!st && !floe_type_equals(ta, tb)) {
                /* k int FULL JOIN k bigint: both as the wider type */
                floe_expr *cb = NULL;
                if (num_rank(tb->id) > num_rank(ta->id)) {
                    st = floe_expr_cast(a, tb, &cb);
                    floe_expr_release(a);
                    a = cb;
                } else {
                    st = floe_expr_cast(b, ta, &cb);
                    floe_expr_release(b);
                    b = cb;
                }
            }
            floe_type_release(ta);
            floe_type_release(tb);
            floe_expr *ab[2] = {a, b};
            if (!st) st = floe_expr_coalesce(ab, 2, &exprs[i]);
        } else if (!st) {
            exprs[i] = floe_expr_retain(type == FLOE_JOIN_RIGHT ? b : a);
        }
        floe_expr_release(a);
        floe_expr_release(b);
        if (!st) st = bind_scope_add(&ns, NULL, sc->cols[lidx[i]].name, false);
        if (!st) names[i] = floe_strdup(sc->cols[lidx[i]].name);
        if (!st && !names[i]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    for (int32_t k = 0; k < nj && !st; k++) {
        st = floe_expr_column(k, &exprs[nu + k]);
        if (!st) names[nu + k] = floe_strdup(floe_schema_field(j->schema, k)->name);
        if (!st && !names[nu + k]) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    if (!st) st = bind_scope_append(&ns, sc);
    for (int32_t i = 0; i < nu && !st; i++) {
        bind_col *lc = &ns.cols[nu + lidx[i]], *rc = &ns.cols[nu + nl + ridx[i]];
        lc->hidden = rc->hidden = true;
        lc->using_side = rc->using_side = true;
    }
    floe_lplan *p = NULL;
    if (!st) {
        out->plan = NULL;
        st = bind_make_project(j, exprs, names, n, &p);
    }
    bind_expr_list_free(exprs, exprs ? n : 0);
    for (int32_t i = 0; names && i < n; i++) floe_free(names[i]);
    floe_free(names);
    if (st) {
        bind_scope_free(&ns);
        return st;
    }
    out->plan = p;
    bind_scope_free(sc);
    *sc = ns;
    return NULL;
}

/* An inner join's ON condition with subqueries: a filter over the cross
 * join *out (scope *sc), whose subqueries are bound as WHERE's are
 * (bind_decorrelate.c; their distinct outer values from the join without
 * its ON), and the columns they added dropped again. */
static floe_status join_filter_with_subqueries(floe_session *s, const json_t *je, bind_result *out, bind_scope *sc) {
    json_t *cross = json_deep_copy(je);
    json_t *fl = cross ? json_pack("[{s:o}]", "JoinExpr", cross) : NULL;
    if (!fl || json_object_del(cross, "quals") != 0) {
        json_decref(fl);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
    }
    int32_t n = floe_schema_num_fields(out->plan->schema), nsc = sc->n;
    bind_ectx c;
    bind_ectx_init(&c, s, sc, out->plan->schema, "JOIN/ON");
    c.plan = &out->plan;
    c.from_clause = fl;
    floe_expr *pred = NULL;
    floe_status st = bind_predicate(&c, floe_pg_get(je, "quals"), &pred);
    if (!st && c.n_extras > 0)
        st = bind_error(s, floe_pg_location(floe_pg_get(je, "quals")), FLOE_ERR_UNSUPPORTED,
                        "this subquery in JOIN/ON is not supported");
    bind_ectx_clear(&c);
    floe_lplan *f = NULL;
    if (!st) {
        st = bind_filter_node(out->plan, pred, &f);
        out->plan = f;
    }
    floe_expr_release(pred);
    json_decref(fl);
    if (!st && floe_schema_num_fields(out->plan->schema) > n) {
        floe_expr **pe = floe_calloc((size_t)n + 1, sizeof *pe);
        char **pn = floe_calloc((size_t)n + 1, sizeof *pn);
        if (!pe || !pn) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        for (int32_t i = 0; i < n && !st; i++) {
            st = floe_expr_column(i, &pe[i]);
            pn[i] = floe_schema_field(out->plan->schema, i)->name;
        }
        floe_lplan *p = NULL;
        if (!st) {
            st = bind_make_project(out->plan, pe, pn, n, &p);
            out->plan = p;
        }
        if (pe) bind_expr_list_free(pe, n);
        floe_free(pn);
    }
    for (int32_t i = nsc; i < sc->n; i++) {
        floe_free(sc->cols[i].qual);
        floe_free(sc->cols[i].name);
    }
    if (sc->n > nsc) sc->n = nsc;
    return st;
}

/* JOIN [LATERAL] unnest(...) ON cond: the Unnest per left row, then the
 * condition; a LEFT join keeps left rows whose lists are empty, which is
 * its meaning only when the condition is true. */
static floe_status join_unnest(floe_session *s, const json_t *je, bind_result *l, const json_t *rf,
                               floe_join_type type, bind_result *out) {
    json_t *quals = floe_pg_get(je, "quals");
    json_t *qc = floe_pg_as(quals, "A_Const");
    bool on_true = !quals || (qc && floe_pg_get_bool(floe_pg_get(qc, "boolval"), "boolval"));
    floe_status st = NULL;
    if (type != FLOE_JOIN_INNER && type != FLOE_JOIN_LEFT)
        st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "only INNER and LEFT joins with unnest() are supported");
    else if (type == FLOE_JOIN_LEFT && !on_true)
        st = bind_error(s, floe_pg_location(quals), FLOE_ERR_UNSUPPORTED, "LEFT JOIN unnest() is supported with ON true only");
    else if (floe_pg_list_len(floe_pg_get(je, "usingClause")) > 0 || floe_pg_get_bool(je, "isNatural"))
        st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "USING / NATURAL with unnest() is not supported");
    if (st) {
        result_free(l);
        return st;
    }
    bind_result x;
    FLOE_TRY(bind_unnest_from(s, l, rf, type == FLOE_JOIN_LEFT, &x));
    floe_expr *on = NULL;
    if (quals && !on_true) {
        bind_ectx c;
        bind_ectx_init(&c, s, &x.scope, x.plan->schema, "JOIN/ON");
        st = bind_predicate(&c, quals, &on);
        bind_ectx_clear(&c);
    }
    if (!st && on) {
        st = bind_filter_node(x.plan, on, &out->plan);
        x.plan = NULL;
    } else if (!st) {
        out->plan = x.plan;
        x.plan = NULL;
    }
    floe_expr_release(on);
    out->scope = x.scope;
    if (st) {
        result_free(out);
        return st;
    }
    return apply_alias(s, floe_pg_get(je, "alias"), out);
}

static floe_status bind_join(floe_session *s, const json_t *je, bind_result *out) {
    bind_result l, r;
    memset(&l, 0, sizeof(l));
    memset(&r, 0, sizeof(r));
    const char *jt = floe_pg_get_str(je, "jointype");
    if (jt && strcmp(jt, "JOIN_INNER") && strcmp(jt, "JOIN_LEFT") && strcmp(jt, "JOIN_RIGHT") && strcmp(jt, "JOIN_FULL"))
        return bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "join type %s is not supported", jt);
    floe_join_type type = join_type_of(jt);
    bool sub_on = false; /* an inner join ON with subqueries */
    FLOE_TRY(bind_from_item(s, floe_pg_get(je, "larg"), &l));
    json_t *lrf = floe_pg_as(floe_pg_get(je, "rarg"), "RangeFunction");
    if (lrf && bind_is_unnest(lrf)) return join_unnest(s, je, &l, lrf, type, out);
    if (lrf && bind_is_lateral_series(lrf)) {
        /* JOIN generate_series(t.a, t.b) ON ...: per left row, then ON. */
        const char *jts = floe_pg_get_str(je, "jointype");
        bind_result x;
        floe_status st = jts && strcmp(jts, "JOIN_INNER")
                             ? bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "only an inner join with generate_series over columns is supported")
                             : bind_lateral_series(s, &l, lrf, &x);
        if (st) {
            result_free(&l);
            return st;
        }
        floe_expr *on = NULL;
        if (floe_pg_get(je, "quals")) {
            bind_ectx c;
            bind_ectx_init(&c, s, &x.scope, x.plan->schema, "JOIN/ON");
            st = bind_predicate(&c, floe_pg_get(je, "quals"), &on);
            bind_ectx_clear(&c);
        }
        if (!st && on) {
            st = bind_filter_node(x.plan, on, &out->plan);
            x.plan = NULL;
        } else if (!st) {
            out->plan = x.plan;
            x.plan = NULL;
        }
        floe_expr_release(on);
        out->scope = x.scope;
        if (st) {
            result_free(out);
            return st;
        }
        return apply_alias(s, floe_pg_get(je, "alias"), out);
    }
    json_t *lrs = floe_pg_as(floe_pg_get(je, "rarg"), "RangeSubselect");
    if (lrs && floe_pg_get_bool(lrs, "lateral")) {
        /* LATERAL: over the left item (bind_decorrelate.c). */
        json_t *prefix = json_array();
        floe_status st = prefix && json_array_append(prefix, floe_pg_get(je, "larg")) == 0
                             ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        if (!st && (floe_pg_list_len(floe_pg_get(je, "usingClause")) > 0 || floe_pg_get_bool(je, "isNatural")))
            st = bind_error(s, -1, FLOE_ERR_UNSUPPORTED, "USING / NATURAL with a LATERAL subquery is not supported");
        if (!st) st = bind_lateral(s, &l, prefix, lrs, type, floe_pg_get(je, "quals"), out);
        else result_free(&l);
        json_decref(prefix);
        if (st) return st;
        return apply_alias(s, floe_pg_get(je, "alias"), out);
    }
    floe_status st = bind_from_item(s, floe_pg_get(je, "rarg"), &r);
    if (st) {
        result_free(&l);
        return st;
    }
    /* an outer join's ON with subqueries: each computed on its side
     * first (bind_join_sublink.c) */
    json_t *side_quals = NULL;
    if (type != FLOE_JOIN_INNER && bind_has_sublink(floe_pg_get(je, "quals")))
        st = bind_outer_join_on_sublinks(s, je, &l, &r, &side_quals);
    if (st) {
        result_free(&l);
        result_free(&r);
        return st;
    }
    int32_t nl = l.scope.n;
    bind_scope sc;
    memset(&sc, 0, sizeof(sc));
    st = bind_scope_append(&sc, &l.scope);
    if (!st) st = bind_scope_append(&sc, &r.scope);
    floe_expr *on = NULL;
    floe_schema *both = NULL;
    if (!st) st = floe_join_output_schema(l.plan->schema, r.plan->schema, FLOE_JOIN_INNER, &both);
    json_t *using = floe_pg_get(je, "usingClause");
    bool natural = floe_pg_get_bool(je, "isNatural");
    /* USING / NATURAL: the positions of the merged columns on each side. */
    int32_t nu = 0, *lidx = NULL, *ridx = NULL;
    bool merged = !st && (floe_pg_list_len(using) > 0 || natural);
    if (merged) {
        /* USING (a, b): l.a = r.a AND ...; NATURAL: the columns both sides
         * name, in the left side's order (none: a cross join). */
        int32_t cap = (natural ? nl : floe_pg_list_len(using)) + 1;
        const char **cols = floe_calloc((size_t)cap, sizeof(char *));
        lidx = floe_calloc((size_t)cap, sizeof(int32_t));
        ridx = floe_calloc((size_t)cap, sizeof(int32_t));
        if (!cols || !lidx || !ridx) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        if (!st && natural) {
            for (int32_t i = 0; i < nl; i++)
                for (int32_t k = 0; k < r.scope.n; k++)
                    if (!l.scope.cols[i].hidden && !r.scope.cols[k].hidden && !l.scope.cols[i].system &&
                        !r.scope.cols[k].system &&
                        !strcmp(l.scope.cols[i].name, r.scope.cols[k].name)) {
                        cols[nu++] = l.scope.cols[i].name;
                        break;
                    }
        } else if (!st) {
            nu = floe_pg_list_len(using);
            for (int32_t i = 0; i < nu; i++) cols[i] = floe_pg_string(floe_pg_list_at(using, i));
        }
        floe_expr **conds = floe_calloc((size_t)nu + 1, sizeof(floe_expr *));
        if (!conds && !st) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
        bind_ectx c;
        bind_ectx_init(&c, s, &sc, both, "USING");
        for (int32_t i = 0; i < nu && !st; i++) {
            int32_t li = -1, ri = -1;
            for (int32_t k = 0; k < nl; k++)
                if (!l.scope.cols[k].hidden && !l.scope.cols[k].system && !strcmp(l.scope.cols[k].name, cols[i])) {
                    if (li >= 0) {
                        st = bind_error(s, -1, FLOE_ERR_INVALID_ARGUMENT,
                                        "common column name \"%s\" appears more than once in left table", cols[i]);
                        break;
                    }
                    li = k;
                }
            for (int32_t k = 0; k < r.scope.n && !st; k++)
                if (!r.scope.cols[k].hidden && !r.scope.cols[k].system && !strcmp(r.scope.cols[k].name, cols[i])) {
                    if (ri >= 0) {
                        st = bind_error(s, -1, FLOE_ERR_INVALID_ARGUMENT,
                                        "common column name \"%s\" appears more than once in right table", cols[i]);
                        break;
                    }
                    ri = k;
                }
            for (int32_t k = 0; k < i && !st; k++)
                if (!strcmp(cols[k], cols[i]))
                    st = bind_error(s, -1, FLOE_ERR_INVALID_ARGUMENT,
                                    "column name \"%s\" appears more than once in USING clause", cols[i]);
            if (st) break;
            if (li < 0 || ri < 0) {
                st = bind_error(s, -1, FLOE_ERR_NOT_FOUND,
                                "column \"%s\" specified in USING clause does not exist in %s table", cols[i],
                                li < 0 ? "left" : "right");
                break;
            }
            lidx[i] = li;
            ridx[i] = ri;
            floe_expr *a = NULL, *b = NULL;
            st = floe_expr_column(li, &a);
            if (!st) st = floe_expr_column(nl + ri, &b);
            if (!st) st = floe_expr_cmp(FLOE_CMP_EQ, a, b, &conds[i]);
            floe_expr_release(a);
            floe_expr_release(b);
        }
        if (!st) st = bind_and_all(conds, nu, &on);
        bind_expr_list_free(conds, nu);
        floe_free(cols);
        bind_ectx_clear(&c);
    } else if (!st && floe_pg_get(je, "quals") && type == FLOE_JOIN_INNER && bind_has_sublink(floe_pg_get(je, "quals"))) {
        sub_on = true; /* a filter over the cross join, below */
    } else if (!st && floe_pg_get(je, "quals")) {
        bind_ectx c;
        bind_ectx_init(&c, s, &sc, both, "JOIN/ON");
        st = bind_predicate(&c, side_quals ? side_quals : floe_pg_get(je, "quals"), &on);
        if (!st && c.n_extras > 0)
            st = bind_error(s, floe_pg_location(floe_pg_get(je, "quals")), FLOE_ERR_UNSUPPORTED,
                            "subqueries in JOIN/ON are not supported");
        bind_ectx_clear(&c);
    }
    floe_type_release(both);
    json_decref(side_quals);
    if (!st) {
        floe_lplan *lp = l.plan, *rp = r.plan;
        l.plan = r.plan = NULL;
        st = bind_make_join(lp, rp, type, on, &out->plan);
    }
    if (!st && sub_on) st = join_filter_with_subqueries(s, je, out, &sc);
    floe_expr_release(on);
    result_free(&l);
    result_free(&r);
    if (!st && merged && nu > 0) st = merge_using(out, &sc, type, nl, nu, lidx, ridx);
    floe_free(lidx);
    floe_free(ridx);
    if (st) {
        result_free(out);
        bind_scope_free(&sc);
        return st;
    }
    out->scope = sc;
    json_t *alias = floe_pg_get(je, "alias");
    /* Under an alias the sides' names are gone: (a JOIN b USING (k)) AS t
     * has t.k, the merged column, and no a.k (apply_alias). */
    for (int32_t i = 0; alias && i < out->scope.n; i++) out->scope.cols[i].using_side = false;
    return apply_alias(s, alias, out);
}

static floe_status bind_from_item(floe_session *s, const json_t *node, bind_result *out) {
    memset(out, 0, sizeof(*out));
    const char *kind = floe_pg_node_kind(node);
    json_t *body = floe_pg_node_body(node);
    floe_status st;
    if (!kind) return bind_error(s, -1, FLOE_ERR_SYNTAX, "FROM item missing");
    if (!strcmp(kind, "RangeVar")) {
        st = bind_range_var(s, body, out);
        if (!st) st = apply_alias(s, floe_pg_get(body, "alias"), out);
    } else if (!strcmp(kind, "RangeFunction") && bind_is_unnest(body)) {
        /* unnest(...) with nothing to its left; names its own columns */
        st = bind_unnest_from(s, NULL, body, false, out);
    } else if (!strcmp(kind, "RangeFunction")) {
        st = bind_table_function(s, body, out);
        /* generate_series named its column after the alias already. */
        if (!st) {
            json_t *alias = floe_pg_get(body, "alias");
            st = apply_alias(s, alias, out);
        }
    } else if (!strcmp(kind, "RangeSubselect")) {
        /* (LATERAL with items to its left: bind_lateral, from bind_from
         * and bind_join; with none, it reads nothing to its left) */
        st = bind_select(s, floe_pg_get(body, "subquery"), out);
        json_t *alias = floe_pg_get(body, "alias");
        if (!st) st = apply_alias(s, alias, out);
    } else if (!strcmp(kind, "JoinExpr")) {
        st = bind_join(s, body, out);
    } else {
        return bind_error(s, floe_pg_location(node), FLOE_ERR_UNSUPPORTED, "FROM item %s is not supported", kind);
    }
    if (st) result_free(out);
    return st;
}

floe_status bind_from(floe_session *s, const json_t *from_list, bind_result *out) {
    memset(out, 0, sizeof(*out));
    int32_t n = floe_pg_list_len(from_list);
    for (int32_t i = 0; i < n; i++) {
        bind_result item;
        json_t *rs = floe_pg_as(floe_pg_list_at(from_list, i), "RangeSubselect");
        json_t *rf = floe_pg_as(floe_pg_list_at(from_list, i), "RangeFunction");
        if (out->plan && rf && bind_is_unnest(rf)) {
            /* unnest(t.xs): per row of the items before it (bind_unnest.c). */
            bind_result left = *out;
            memset(out, 0, sizeof(*out));
            FLOE_TRY(bind_unnest_from(s, &left, rf, false, out));
            continue;
        }
        if (out->plan && rf && bind_is_lateral_series(rf)) {
            /* generate_series(t.a, t.b): per row of the items before it. */
            bind_result left = *out;
            memset(out, 0, sizeof(*out));
            floe_status st = bind_lateral_series(s, &left, rf, out);
            if (st) return st;
            continue;
        }
        if (out->plan && rs && floe_pg_get_bool(rs, "lateral")) {
            /* LATERAL: over the items before it (bind_decorrelate.c). */
            json_t *prefix = json_array();
            floe_status st = prefix ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            for (int32_t k = 0; k < i && !st; k++)
                if (json_array_append(prefix, floe_pg_list_at(from_list, k)) != 0)
                    st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "binding: out of memory");
            bind_result left = *out;
            memset(out, 0, sizeof(*out));
            if (!st) st = bind_lateral(s, &left, prefix, rs, FLOE_JOIN_INNER, NULL, out);
            else result_free(&left);
            json_decref(prefix);
            if (st) return st;
            continue;
        }
        floe_status st = bind_from_item(s, floe_pg_list_at(from_list, i), &item);
        if (st) {
            result_free(out);
            return st;
        }
        if (!out->plan) {
            *out = item;
            continue;
        }
        /* A comma: a cross join (WHERE conditions are attached later). */
        st = bind_scope_append(&out->scope, &item.scope);
        bind_scope_free(&item.scope);
        floe_lplan *j = NULL;
        if (!st) st = bind_make_join(out->plan, item.plan, FLOE_JOIN_INNER, NULL, &j);
        else floe_lplan_free(item.plan);
        out->plan = j;
        if (st) {
            result_free(out);
            return st;
        }
    }
    return NULL;
}
