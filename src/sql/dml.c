/*
 * dml.c — the statements that change a table's rows:
 *
 *   INSERT INTO [db.]t [(col, ...)] SELECT ... | VALUES ...
 *   INSERT OVERWRITE [TABLE] t SELECT ...    (Spark; dynamic: the
 *        partitions the query writes are replaced, the others kept)
 *   CREATE TABLE t [(col, ...)] [PARTITIONED BY (...)] [WITH (...)] AS SELECT ...
 *   DELETE FROM t [WHERE ...]                (whole files / partitions here;
 *                                             rows: dml_rowlevel.c)
 *
 * An INSERT is one plan (dml.h): the query, the rows shaped for the table
 * (bind_insert.c), the writers and one commit (plan_write.c).  Running it
 * either commits one snapshot or nothing: a failure anywhere makes the
 * commit node delete every file the statement wrote.  CREATE TABLE AS
 * creates the table first and drops it again when the insert fails, so it
 * is all or nothing too.
 *
 * DELETE tries metadata only first: when its WHERE translates EXACTLY into
 * an Iceberg expression (the optimizer's scan pushdown decides that: a
 * conjunct it cannot push exactly stays in a FILTER above the scan) and
 * every file's rows match all or none, the catalog removes the files whose
 * rows all match.  Anything finer is a row-level delete (dml_rowlevel.c),
 * as are DELETE ... USING, UPDATE and TRUNCATE.
 *
 * Result tags follow PostgreSQL: "INSERT 0 <rows>", "SELECT <rows>" for
 * CREATE TABLE AS, "DELETE <rows>".
 */
#include <stdio.h>
#include <string.h>

#include "floe/catalog.h"
#include "floe/iceberg_view.h"
#include "floe/memory.h"
#include "sql/bind.h"
#include "sql/ddl.h"
#include "sql/dml.h"
#include "sql/dml_internal.h"
#include "sql/optimize_internal.h"
#include "sql/pgnode.h"
#include "sql/ref_ident.h"
#include "sql/session_internal.h"

#define DEFAULT_NAMESPACE "default"
#define CATALOG_NAME "floe"
#define NAME_MAX_LEN FLOE_DML_NAME_MAX
/* DELETE's commit attempts when other writers win. */
#define DELETE_RETRIES 4

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "DML: out of memory"); }

/* ------------------------------------------------------------ the target */

typedef floe_dml_target target;

floe_status floe_dml_target_of(floe_session *s, const json_t *rv, floe_dml_target *t) {
    memset(t, 0, sizeof *t);
    const char *cat = floe_pg_get_str(rv, "catalogname"), *ns = floe_pg_get_str(rv, "schemaname"),
               *name = floe_pg_get_str(rv, "relname");
    t->location = (int32_t)floe_pg_get_int(rv, "location", -1);
    if (!name) return floe_error(FLOE_ERR_INTERNAL, "DML: statement without a table");
    floe_sql_ref_ident ri;
    FLOE_TRY(floe_sql_ref_ident_resolve(s->catalog, cat, ns, name, &ri));
    const char *branch = s->write_branch;
    if (ri.ref) {
        if (ri.is_tag)
            return floe_session_error_at(s, t->location, FLOE_ERR_INVALID_ARGUMENT,
                                         "%s is a tag, not a branch. Tags cannot be targets for producing snapshots",
                                         ri.ref);
        cat = NULL;
        ns = ri.ns;
        name = ri.name;
        branch = ri.ref;
        t->branch_named = true;
    }
    if (cat && strcmp(cat, CATALOG_NAME) != 0)
        return floe_session_error_at(s, t->location, FLOE_ERR_NOT_FOUND,
                                     "unknown catalog '%s' (the only catalog is '%s')", cat, CATALOG_NAME);
    if (!ns) ns = DEFAULT_NAMESPACE;
    if (strlen(ns) > NAME_MAX_LEN || strlen(name) > NAME_MAX_LEN)
        return floe_session_error_at(s, t->location, FLOE_ERR_INVALID_ARGUMENT, "name '%s.%s' is too long", ns, name);
    if (strchr(name, '$'))
        return floe_session_error_at(s, t->location, FLOE_ERR_UNSUPPORTED,
                                     "%s.%s is a metadata table; it cannot be written", ns, name);
    snprintf(t->ns, sizeof t->ns, "%s", ns);
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->label, sizeof t->label, "%s.%s", ns, name);
    floe_status st = floe_catalog_load_table(s->catalog, t->ns, t->name, &t->table);
    if (st && floe_status_code(st) == FLOE_ERR_NOT_FOUND) {
        /* PostgreSQL writes through simple views; Iceberg views are read-only. */
        floe_ice_view *v = NULL;
        floe_status vst = floe_catalog_load_view(s->catalog, t->ns, t->name, &v);
        floe_ice_view_free(v);
        if (!vst) {
            floe_status_free(st);
            return floe_session_error_at(s, t->location, FLOE_ERR_UNSUPPORTED,
                                         "cannot change view %s.%s: views are read-only (write to its tables)", t->ns,
                                         t->name);
        }
        floe_status_free(vst);
    }
    /* The branch this statement writes (Spark: the identifier's, else the
     * session's spark.wap.branch).  An identifier names an existing branch
     * only (SparkTable: "Cannot use branch (does not exist)"); the session
     * setting creates it from main on first write, as Java's toBranch. */
    if (!st && ri.ref && strcmp(ri.ref, "main") != 0 && !floe_ice_tm_ref(t->table->md, ri.ref))
        st = floe_error(FLOE_ERR_NOT_FOUND, "Cannot use branch (does not exist): %s", ri.ref);
    const floe_ice_snapshot_ref *bref = !st && branch ? floe_ice_tm_ref(t->table->md, branch) : NULL;
    if (bref && bref->is_tag)
        st = floe_error(FLOE_ERR_INVALID_ARGUMENT,
                        "%s is a tag, not a branch. Tags cannot be targets for producing snapshots", branch);
    if (!st && branch && strcmp(branch, "main") != 0) {
        /* Appends, overwrites, TRUNCATE and row-level changes commit to a
         * branch; the DDL that rewrites a whole table changes main only. */
        const char *kind = s->stmt ? s->stmt->kind : NULL;
        static const char *const branch_kinds[] = {"InsertStmt", "ExplainStmt", "CopyStmt",  "DeleteStmt",
                                                   "UpdateStmt", "MergeStmt",   "TruncateStmt"};
        bool ok = !kind;
        for (size_t k = 0; !ok && k < sizeof branch_kinds / sizeof *branch_kinds; k++)
            ok = strcmp(kind, branch_kinds[k]) == 0;
        if (!ok)
            st = floe_error(FLOE_ERR_UNSUPPORTED,
                            "writing to branch %s: only INSERT [OVERWRITE], COPY FROM, DELETE, UPDATE, MERGE and "
                            "TRUNCATE can write to a "
                            "branch other than main (RESET write.branch to change main)",
                            branch);
        floe_free(s->target_branch);
        s->target_branch = st ? NULL : floe_strdup(branch);
        if (!st && !s->target_branch) st = oom();
    }
    if (st) {
        floe_ice_table_free(t->table);
        t->table = NULL;
        int32_t line = 0, col = 0;
        if (t->location >= 0 && s->script) {
            floe_sql_line_col(s->script->sql, t->location, &line, &col);
            return floe_status_wrap(st, "line %d, column %d", (int)line, (int)col);
        }
        return st;
    }
    return NULL;
}

void floe_dml_target_clear(floe_dml_target *t) {
    floe_ice_table_free(t->table);
    t->table = NULL;
}

/* ------------------------------------------------------- running a write */

/* Reads the commit node's one row: rows written. */
typedef struct commit_result {
    int64_t rows;
    bool seen;
} commit_result;

static floe_status collect_batch(void *arg, const floe_batch *b) {
    commit_result *r = arg;
    if (b->num_rows > 0 && b->num_columns > 0 && !floe_array_is_null(b->columns[0], 0)) {
        r->rows += floe_array_get_int64(b->columns[0], 0);
        r->seen = true;
    }
    return NULL;
}

floe_status floe_dml_run_write(floe_session *s, const floe_plan *plan, int64_t *rows) {
    commit_result r = {0, false};
    floe_result_sink sink = {&r, NULL, collect_batch, NULL, NULL};
    int64_t n = 0;
    FLOE_TRY(floe_session_run_plan(s, plan, &sink, &n));
    if (!r.seen) return floe_error(FLOE_ERR_INTERNAL, "the write's commit returned no result row");
    *rows = r.rows;
    return NULL;
}

floe_status floe_dml_end_tag(const floe_result_sink *sink, const char *tag, int64_t rows) {
    if (sink && sink->end) return sink->end(sink->arg, tag, rows);
    return NULL;
}

/* --------------------------------------------------------------- INSERT */

/* The snapshot of table `t` the plan reads (a scan of the same table), or
 * -1 when it reads none. */
int64_t floe_dml_snapshot_read(const floe_lplan *p, const floe_ice_table *t) {
    if (!p) return -1;
    if (p->kind == FLOE_L_ICEBERG_SCAN && p->table && p->table->md) {
        const floe_ice_table_metadata *a = p->table->md, *b = t->md;
        bool same = (a->table_uuid && b->table_uuid) ? strcmp(a->table_uuid, b->table_uuid) == 0
                                                     : (a->location && b->location && strcmp(a->location, b->location) == 0);
        if (same) {
            const floe_ice_snapshot *snap = NULL;
            switch (p->snapshot.kind) {
            case FLOE_ICE_SELECT_ID: return p->snapshot.snapshot_id;
            case FLOE_ICE_SELECT_REF: /* s.t.branch_b, FOR SYSTEM_VERSION AS OF 'b' */
                floe_status_free(floe_ice_tm_snapshot_by_ref(a, p->snapshot.ref, &snap));
                return snap ? snap->snapshot_id : -1;
            case FLOE_ICE_SELECT_AS_OF:
                floe_status_free(floe_ice_tm_snapshot_as_of(a, p->snapshot.timestamp_ms, &snap));
                return snap ? snap->snapshot_id : -1;
            default: return a->current_snapshot_id;
            }
        }
    }
    for (int32_t i = 0; i < p->n_inputs; i++) {
        int64_t id = floe_dml_snapshot_read(p->inputs[i], t);
        if (id != -1) return id;
    }
    return -1;
}

/* The query of an INSERT: its SELECT, with the statement's WITH moved
 * into it (PostgreSQL puts WITH on the InsertStmt). *owned: a copy to
 * decref, or NULL. */
static floe_status insert_query(floe_session *s, const json_t *body, const json_t **query, json_t **owned) {
    *owned = NULL;
    *query = floe_pg_get(body, "selectStmt");
    if (!*query)
        return floe_session_error_at(s, s->stmt ? s->stmt->location : -1, FLOE_ERR_UNSUPPORTED,
                                     "INSERT ... DEFAULT VALUES is not supported");
    json_t *with = floe_pg_get(body, "withClause");
    if (!with) return NULL;
    json_t *copy = json_deep_copy(*query);
    json_t *sel = copy ? floe_pg_node_body(copy) : NULL;
    if (!sel) {
        if (copy) json_decref(copy);
        return oom();
    }
    if (floe_pg_get(sel, "withClause")) {
        json_decref(copy);
        return floe_error(FLOE_ERR_UNSUPPORTED, "INSERT with WITH both before and inside its query");
    }
    json_object_set(sel, "withClause", with);
    *owned = copy;
    *query = copy;
    return NULL;
}

/* The INSERT column list: names and locations (floe_malloc'd arrays of
 * borrowed names). */
static floe_status insert_columns(const json_t *body, const char ***names, int32_t **locs, int32_t *n) {
    json_t *cols = floe_pg_get(body, "cols");
    *n = floe_pg_list_len(cols);
    *names = NULL;
    *locs = NULL;
    if (*n == 0) return NULL;
    *names = floe_calloc((size_t)*n, sizeof **names);
    *locs = floe_calloc((size_t)*n, sizeof **locs);
    if (!*names || !*locs) return oom();
    for (int32_t i = 0; i < *n; i++) {
        const json_t *rt = floe_pg_as(floe_pg_list_at(cols, i), "ResTarget");
        if (floe_pg_get(rt, "indirection"))
            return floe_error(FLOE_ERR_UNSUPPORTED, "INSERT into a part of a column (a.b, a[1]) is not supported");
        (*names)[i] = floe_pg_get_str(rt, "name");
        (*locs)[i] = (int32_t)floe_pg_get_int(rt, "location", -1);
        if (!(*names)[i]) return floe_error(FLOE_ERR_SYNTAX, "INSERT: a target column has no name");
    }
    return NULL;
}

/* Bind, optimize and plan the rows of a write into `t`, then the write
 * plan around them. */
static floe_status plan_rows_and_write(floe_session *s, target *t, const char *const *cols, const int32_t *locs,
                                       int32_t n_cols, floe_lplan *query, floe_commit_kind kind, floe_plan **out) {
    int64_t base = -1;
    if (kind == FLOE_COMMIT_REPLACE_PARTITIONS) {
        base = floe_dml_snapshot_read(query, t->table);
        if (base == -1) base = t->table->md->current_snapshot_id;
        /* On a branch: the conflict check starts at the branch head. */
        const floe_ice_snapshot_ref *ref = s->target_branch ? floe_ice_tm_ref(t->table->md, s->target_branch) : NULL;
        if (ref) base = ref->snapshot_id;
        if (base < 0) base = -1;
    }
    floe_lplan *rows = NULL;
    FLOE_TRY(floe_sql_bind_write_input(s, t->table, t->label, cols, locs, n_cols, query, &rows));
    floe_plan *phys = NULL;
    floe_status st = floe_sql_optimize(&rows, &s->opts);
    if (!st) st = floe_sql_physical(rows, &s->opts, false, &phys);
    floe_lplan_free(rows);
    if (!st) st = floe_sql_plan_write(s, phys, t->table, t->ns, t->name, kind, base, out);
    floe_plan_release(phys);
    return st;
}

static floe_status plan_insert(floe_session *s, const json_t *body, target *t, floe_plan **out) {
    *out = NULL;
    if (floe_pg_get(body, "onConflictClause"))
        return floe_error(FLOE_ERR_UNSUPPORTED, "INSERT ... ON CONFLICT is not supported");
    if (floe_pg_list_len(floe_pg_get(body, "returningList")) > 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "INSERT ... RETURNING is not supported");
    const char *ov = floe_pg_get_str(body, "override");
    if (ov && strcmp(ov, "OVERRIDING_NOT_SET") != 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "INSERT ... OVERRIDING is not supported");
    bool overwrite = s->stmt && floe_sql_stmt_clause(s->stmt, FLOE_SQL_INSERT_OVERWRITE, -1) != NULL;
    const json_t *query = NULL;
    json_t *owned = NULL;
    const char **names = NULL;
    int32_t *locs = NULL, n_cols = 0;
    floe_lplan *lp = NULL;
    floe_status st = floe_dml_target_of(s, floe_pg_get(body, "relation"), t);
    if (!st) st = insert_query(s, body, &query, &owned);
    if (!st) st = insert_columns(body, &names, &locs, &n_cols);
    if (!st) st = floe_sql_bind_query(s, query, &lp);
    if (!st) {
        st = plan_rows_and_write(s, t, names, locs, n_cols, lp,
                                 overwrite ? FLOE_COMMIT_REPLACE_PARTITIONS : FLOE_COMMIT_APPEND, out);
        lp = NULL;
    }
    floe_lplan_free(lp);
    floe_free(names);
    floe_free(locs);
    if (owned) json_decref(owned);
    return st;
}

floe_status floe_sql_plan_insert(floe_session *s, const json_t *insert, floe_plan **out) {
    target t;
    memset(&t, 0, sizeof t);
    floe_status st = plan_insert(s, floe_pg_node_body(insert), &t, out);
    floe_dml_target_clear(&t);
    return st;
}

static floe_status exec_insert(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    target t;
    memset(&t, 0, sizeof t);
    floe_plan *plan = NULL;
    int64_t rows = 0;
    floe_status st = plan_insert(s, body, &t, &plan);
    if (!st) st = floe_dml_run_write(s, plan, &rows);
    floe_plan_release(plan);
    if (st && t.table) st = floe_status_wrap(st, "INSERT INTO %s", t.label);
    floe_dml_target_clear(&t);
    FLOE_TRY(st);
    char tag[48];
    snprintf(tag, sizeof tag, "INSERT 0 %lld", (long long)rows);
    return floe_dml_end_tag(sink, tag, rows);
}

/* ------------------------------------------------------ CREATE TABLE AS */

/* The query's output schema with the names of CREATE TABLE t (a, b) AS. */
static floe_status renamed_columns(const floe_schema *q, const json_t *names, floe_schema **out) {
    int32_t n = floe_schema_num_fields(q), nn = floe_pg_list_len(names);
    if (nn > n)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "CREATE TABLE AS specifies %d column names but the query has %d "
                          "columns", (int)nn, (int)n);
    floe_field *fields = floe_calloc((size_t)n + 1, sizeof *fields);
    if (!fields) return oom();
    floe_status st = NULL;
    for (int32_t i = 0; !st && i < n; i++) {
        const floe_field *f = floe_schema_field(q, i);
        const char *name = i < nn ? floe_pg_string(floe_pg_list_at(names, i)) : f->name;
        if (!name || !*name || strcmp(name, "?column?") == 0)
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "CREATE TABLE AS: query column %d needs a name (AS name)",
                            (int)i + 1);
        else
            st = floe_field_init(&fields[i], name, f->type, true, -1);
    }
    if (!st) st = floe_type_struct(fields, n, out);
    for (int32_t i = 0; i < n; i++) floe_field_clear(&fields[i]);
    floe_free(fields);
    return st;
}

static floe_status exec_ctas(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                             const floe_result_sink *sink) {
    const char *objtype = floe_pg_get_str(body, "objtype");
    if (objtype && strcmp(objtype, "OBJECT_TABLE") != 0)
        return floe_session_error_at(s, stmt->location, FLOE_ERR_UNSUPPORTED, "materialized views are not supported");
    if (floe_pg_get_bool(body, "is_select_into"))
        return floe_session_error_at(s, stmt->location, FLOE_ERR_UNSUPPORTED,
                                     "SELECT ... INTO is not supported; use CREATE TABLE ... AS SELECT");
    const json_t *into = floe_pg_as(floe_pg_get(body, "into"), "IntoClause");
    if (!into) into = floe_pg_get(body, "into");
    if (!into) return floe_error(FLOE_ERR_INTERNAL, "CREATE TABLE AS without INTO");
    floe_lplan *lp = NULL;
    FLOE_TRY(floe_sql_bind_query(s, floe_pg_get(body, "query"), &lp));
    floe_schema *cols = NULL;
    char *ns = NULL, *name = NULL;
    bool created = false;
    floe_status st = renamed_columns(lp->schema, floe_pg_get(into, "colNames"), &cols);
    if (!st)
        st = floe_sql_create_table_for(s, stmt, into, cols, floe_pg_get_bool(body, "if_not_exists"), &ns, &name,
                                       &created);
    int64_t rows = 0;
    if (!st && created && !floe_pg_get_bool(into, "skipData")) {
        target t;
        memset(&t, 0, sizeof t);
        snprintf(t.ns, sizeof t.ns, "%s", ns);
        snprintf(t.name, sizeof t.name, "%s", name);
        snprintf(t.label, sizeof t.label, "%s.%s", ns, name);
        floe_plan *plan = NULL;
        st = floe_catalog_load_table(s->catalog, ns, name, &t.table);
        if (!st) {
            st = plan_rows_and_write(s, &t, NULL, NULL, 0, lp, FLOE_COMMIT_APPEND, &plan);
            lp = NULL;
        }
        if (!st) st = floe_dml_run_write(s, plan, &rows);
        floe_plan_release(plan);
        floe_dml_target_clear(&t);
        if (st) {
            /* All or nothing: the table goes away with the failed insert. */
            floe_status dst = floe_catalog_drop_table(s->catalog, ns, name, true);
            if (dst) st = floe_status_wrap(st, "(and dropping the new table failed too: %s)", floe_status_message(dst));
            floe_status_free(dst);
            st = floe_status_wrap(st, "CREATE TABLE %s.%s AS", ns, name);
        }
    }
    floe_lplan_free(lp);
    floe_type_release(cols);
    floe_free(ns);
    floe_free(name);
    FLOE_TRY(st);
    char tag[48];
    snprintf(tag, sizeof tag, "SELECT %lld", (long long)rows);
    return floe_dml_end_tag(sink, created ? tag : "CREATE TABLE AS", rows);
}

/* --------------------------------------------------------------- DELETE */

/* SELECT * FROM <relation> [WHERE <where>] as a parse tree (new). */
static json_t *select_star(const json_t *relation, const json_t *where) {
    json_t *star = json_pack("{s:{s:[{s:{}}]}}", "ColumnRef", "fields", "A_Star");
    json_t *rt = star ? json_pack("{s:{s:o}}", "ResTarget", "val", star) : NULL;
    json_t *sel = rt ? json_pack("{s:[o],s:[{s:O}],s:s,s:s}", "targetList", rt, "fromClause", "RangeVar", relation,
                                 "op", "SETOP_NONE", "limitOption", "LIMIT_OPTION_DEFAULT")
                     : NULL;
    if (sel && where && json_object_set(sel, "whereClause", (json_t *)where) != 0) {
        json_decref(sel);
        return NULL;
    }
    return sel ? json_pack("{s:o}", "SelectStmt", sel) : NULL;
}

/* The scan under a chain of Project / Filter nodes; *filter is a FILTER
 * left in that chain (a condition the scan does not apply exactly). */
static floe_lplan *find_scan(floe_lplan *p, floe_lplan **filter) {
    *filter = NULL;
    while (p && (p->kind == FLOE_L_PROJECT || p->kind == FLOE_L_FILTER) && p->n_inputs == 1) {
        if (p->kind == FLOE_L_FILTER && p->predicate) *filter = p;
        p = p->inputs[0];
    }
    return p && p->kind == FLOE_L_ICEBERG_SCAN ? p : NULL;
}

/* The metadata-only path cannot do it: the row-level one will. */
static floe_status row_level(const target *t, const char *why) {
    return floe_error(FLOE_ERR_UNSUPPORTED, "DELETE FROM %s: the condition does not select whole files or partitions "
                      "(%s); " ROW_LEVEL_MARK, t->label, why);
}

/* The exact Iceberg filter of DELETE's WHERE (NULL WHERE: true). */
static floe_status delete_filter(floe_session *s, const json_t *body, const target *t, floe_ice_expr **out) {
    *out = NULL;
    const json_t *where = floe_pg_get(body, "whereClause");
    if (!where) {
        *out = floe_ice_expr_true();
        return *out ? NULL : oom();
    }
    json_t *q = select_star(floe_pg_get(body, "relation"), where);
    if (!q) return oom();
    floe_lplan *lp = NULL;
    floe_status st = floe_sql_bind_query(s, q, &lp);
    json_decref(q);
    if (!st) st = floe_sql_optimize(&lp, &s->opts);
    if (!st) {
        floe_lplan *filter = NULL, *scan = find_scan(lp, &filter);
        if (!scan) {
            st = row_level(t, "it is not a condition on the table's columns alone");
        } else if (filter) {
            floe_buf text = FLOE_BUF_INIT;
            if (floe_expr_to_string(filter->predicate, &text)) floe_buf_clear(&text);
            st = row_level(t, floe_buf_cstr(&text));
            floe_buf_free(&text);
        } else {
            *out = scan->pushed ? floe_ice_expr_copy(scan->pushed) : floe_ice_expr_true();
            if (!*out) st = oom();
        }
    }
    floe_lplan_free(lp);
    return st;
}

static floe_status exec_delete(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    if (floe_pg_list_len(floe_pg_get(body, "returningList")) > 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "DELETE ... RETURNING is not supported");
    if (floe_pg_get(body, "withClause")) return floe_error(FLOE_ERR_UNSUPPORTED, "DELETE with WITH is not supported");
    if (floe_pg_list_len(floe_pg_get(body, "usingClause")) > 0) return floe_sql_exec_delete_rows(s, body, sink);
    target t;
    memset(&t, 0, sizeof t);
    floe_ice_expr *filter = NULL;
    int64_t snap = -1, rows = 0;
    floe_status st = floe_dml_target_of(s, floe_pg_get(body, "relation"), &t);
    /* A branch other than main: the row-level path, which commits to it
     * (the metadata-only delete moves main). */
    if (!st && s->target_branch) {
        floe_dml_target_clear(&t);
        return floe_sql_exec_delete_rows(s, body, sink);
    }
    /* Whole files or partitions first: metadata only, nothing rewritten.
     * When the condition selects rows inside files, a row-level delete. */
    if (!st) st = delete_filter(s, body, &t, &filter);
    if (!st) st = floe_catalog_delete_where(s->catalog, t.ns, t.name, filter, DELETE_RETRIES, &snap, &rows);
    if (!st && snap >= 0) st = floe_sql_deleted_rows(s, body, &t, snap, &rows);
    if (filter) floe_ice_expr_free(filter);
    floe_dml_target_clear(&t);
    if (st && floe_status_code(st) == FLOE_ERR_UNSUPPORTED && strstr(floe_status_message(st), ROW_LEVEL_MARK)) {
        floe_status_free(st);
        return floe_sql_exec_delete_rows(s, body, sink);
    }
    FLOE_TRY(st);
    char tag[48];
    snprintf(tag, sizeof tag, "DELETE %lld", (long long)rows);
    return floe_dml_end_tag(sink, tag, rows);
}

/* ---------------------------------------------------------------- entry */

floe_status floe_sql_exec_dml(floe_session *s, const floe_sql_stmt *stmt, const floe_result_sink *sink,
                              bool *handled) {
    *handled = false;
    const char *kind = stmt->kind;
    const json_t *body = floe_pg_node_body(stmt->node);
    if (strcmp(kind, "InsertStmt") == 0) {
        *handled = true;
        return exec_insert(s, body, sink);
    }
    if (strcmp(kind, "CreateTableAsStmt") == 0) {
        *handled = true;
        return exec_ctas(s, stmt, body, sink);
    }
    if (strcmp(kind, "DeleteStmt") == 0) {
        *handled = true;
        return exec_delete(s, body, sink);
    }
    if (strcmp(kind, "UpdateStmt") == 0) {
        *handled = true;
        return floe_sql_exec_update(s, body, sink);
    }
    if (strcmp(kind, "MergeStmt") == 0) {
        *handled = true;
        return floe_sql_exec_merge(s, stmt, body, sink);
    }
    if (strcmp(kind, "TruncateStmt") == 0) {
        *handled = true;
        return floe_sql_exec_truncate(s, body, sink);
    }
    return NULL;
}
