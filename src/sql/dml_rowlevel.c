/*
 * dml_rowlevel.c — the statements that change single rows:
 *
 *   DELETE FROM t [AS a] [USING ...] WHERE ...     (what the metadata-only
 *                                                   path of dml.c cannot do)
 *   UPDATE t [AS a] SET c = expr, ... [FROM ...] [WHERE ...]
 *   MERGE INTO t [AS a] USING source [AS s] ON cond
 *     WHEN MATCHED [AND ...] THEN UPDATE SET ... | DELETE | DO NOTHING
 *     WHEN NOT MATCHED [BY TARGET] [AND ...] THEN INSERT [(cols)] VALUES (...) | DO NOTHING
 *     WHEN NOT MATCHED BY SOURCE [AND ...] THEN UPDATE SET ... | DELETE | DO NOTHING
 *   TRUNCATE [TABLE] t [, ...]
 *
 * Each statement becomes a query over the target (and its USING / FROM
 * tables) that yields, per affected row, the row's data file and position
 * (the _file and _pos metadata columns), what to do with it (_op, the
 * FLOE_ROW_OP_* bits of exec_write.h) and, for UPDATE, the row's new
 * values — every table column in schema order, an assigned one from its
 * SET expression (all read before any is assigned, as SQL says), the others
 * as they were.  That query runs under IcebergWrite in delta mode and one
 * row-delta commit (floe_sql_plan_delta_write), so a row-level change is an
 * ordinary plan: parallel on threads, shipped to ranks under MPI, all or
 * nothing.
 *
 * Write modes follow Iceberg's table properties write.delete.mode and
 * write.update.mode:
 *   merge-on-read (floe's default, for format version 2 and up): the
 *     deleted positions go to position delete files, one per data file,
 *     and updated rows to new data files — the work is proportional to the
 *     rows changed, and compaction folds the deletes back later.  Iceberg
 *     Java's default is copy-on-write; floe picks merge-on-read because a
 *     statement that changes a few rows of a large table then writes a few
 *     rows, not the table (Trino does the same).
 *   copy-on-write: a first query finds the data files holding a matching
 *     row; a second reads exactly those files (`_file IN (...)` pushed into
 *     the scan) at the same snapshot and writes every row again — changed
 *     or, for DELETE, left out — and the commit replaces the files.  With
 *     a join (USING, FROM, MERGE) the second query joins each row of those
 *     files to its change (cow_join).
 *     Version 1 tables have no delete files: always copy-on-write.
 *
 * Conflicts: the commit is validated against commits after the snapshot
 * the statement read, with the target scan's pushed filter as the rows it
 * read and the isolation level of write.delete.isolation-level /
 * write.update.isolation-level (serializable by default).
 *
 * MERGE joins the target with the source (inner, or outer on the side
 * whose unmatched rows a clause acts on); each row takes the first WHEN
 * clause whose kind and condition hold — a CASE over the clauses gives its
 * _op and, per column, its new value — and a target row two source rows
 * would change fails the statement (FLOE_DELTA_UNIQUE), as the SQL
 * standard says.
 *
 * Tags as PostgreSQL: "DELETE n", "UPDATE n", "MERGE n", "TRUNCATE TABLE".
 */
#include <stdio.h>
#include <string.h>

#include "floe/catalog.h"
#include "floe/exec_write.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_scan.h"
#include "floe/memory.h"
#include "sql/dml.h"
#include "sql/dml_internal.h"
#include "sql/optimize_internal.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

static floe_status oom(void) { return floe_error(FLOE_ERR_OUT_OF_MEMORY, "row-level change: out of memory"); }

/* ------------------------------------------------------------ parse trees */

static json_t *pg_string(const char *s) { return json_pack("{s:{s:s}}", "String", "sval", s); }

/* qual.name as a ColumnRef. */
static json_t *colref(const char *qual, const char *name) {
    json_t *a = pg_string(qual), *b = pg_string(name);
    if (!a || !b) {
        json_decref(a);
        json_decref(b);
        return NULL;
    }
    return json_pack("{s:{s:[o,o]}}", "ColumnRef", "fields", a, b);
}

static json_t *int_const(int v) { return json_pack("{s:{s:{s:i}}}", "A_Const", "ival", "ival", v); }
static json_t *null_const(void) { return json_pack("{s:{s:b}}", "A_Const", "isnull", 1); }
static json_t *str_const(const char *v) { return json_pack("{s:{s:{s:s}}}", "A_Const", "sval", "sval", v); }

/* CASE WHEN cond THEN a ELSE b END (all consumed). */
static json_t *case_when(json_t *cond, json_t *a, json_t *b) {
    if (!cond || !a || !b) {
        json_decref(cond);
        json_decref(a);
        json_decref(b);
        return NULL;
    }
    return json_pack("{s:{s:[{s:{s:o,s:o}}],s:o}}", "CaseExpr", "args", "CaseWhen", "expr", cond, "result", a,
                     "defresult", b);
}

/* A SelectStmt: targets (a JSON array of values, consumed, named
 * t0, t1, ...), FROM `from` (consumed), WHERE `where` (consumed, may be
 * NULL), DISTINCT when asked. */
static json_t *select_stmt(json_t *targets, json_t *from, json_t *where, bool distinct) {
    json_t *list = json_array(), *sel = NULL;
    if (!list || !targets || !from) goto fail;
    for (size_t i = 0; i < json_array_size(targets); i++) {
        char name[24];
        snprintf(name, sizeof name, "t%zu", i);
        json_t *rt = json_pack("{s:{s:s,s:O}}", "ResTarget", "name", name, "val", json_array_get(targets, i));
        if (!rt || json_array_append_new(list, rt) != 0) goto fail;
    }
    sel = json_pack("{s:o,s:o,s:s,s:s}", "targetList", list, "fromClause", from, "op", "SETOP_NONE", "limitOption",
                    "LIMIT_OPTION_DEFAULT");
    list = from = NULL;
    if (!sel) goto fail;
    if (where && json_object_set_new(sel, "whereClause", where) != 0) {
        where = NULL;
        goto fail;
    }
    where = NULL;
    if (distinct) {
        json_t *d = json_array();
        if (!d || json_array_append_new(d, json_object()) != 0 || json_object_set_new(sel, "distinctClause", d) != 0)
            goto fail;
    }
    json_decref(targets);
    return json_pack("{s:o}", "SelectStmt", sel);
fail:
    json_decref(list);
    json_decref(from);
    json_decref(where);
    json_decref(targets);
    json_decref(sel);
    return NULL;
}

/* The FROM list: the target's RangeVar, then `more` (USING / FROM items). */
static json_t *from_list(const json_t *relation, const json_t *more) {
    json_t *l = json_pack("[{s:O}]", "RangeVar", relation);
    for (int32_t i = 0; l && i < floe_pg_list_len(more); i++)
        if (json_array_append_new(l, json_deep_copy(floe_pg_list_at(more, i))) != 0) {
            json_decref(l);
            return NULL;
        }
    return l;
}

static json_t *copy_or_null(const json_t *j) { return j ? json_deep_copy(j) : NULL; }

/* Does a parse tree hold a subquery?  Copy-on-write puts a plain WHERE
 * into CASE expressions, where subqueries cannot go: with one it takes
 * the join path (cow_join), which keeps the WHERE a WHERE. */
static bool has_sublink(const json_t *j) {
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) {
            if (strcmp(k, "SubLink") == 0 || has_sublink(v)) return true;
        }
    } else if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j); i++)
            if (has_sublink(json_array_get(j, i))) return true;
    }
    return false;
}

/* --------------------------------------------------------------- the table */

static const char *table_prop(const floe_ice_table_metadata *md, const char *key) {
    for (int32_t i = 0; i < md->n_properties; i++)
        if (strcmp(md->properties[i].key, key) == 0) return md->properties[i].value;
    return NULL;
}

/* write.<op>.mode: true for copy-on-write. */
static floe_status write_mode(const floe_dml_target *t, const char *op, bool *cow) {
    char key[64];
    snprintf(key, sizeof key, "write.%s.mode", op);
    const char *v = table_prop(t->table->md, key);
    *cow = false;
    if (t->table->md->format_version < 2) {
        *cow = true; /* no delete files before v2 */
        return NULL;
    }
    if (!v || strcmp(v, "merge-on-read") == 0) return NULL;
    if (strcmp(v, "copy-on-write") == 0) {
        *cow = true;
        return NULL;
    }
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table %s: property %s is '%s'; expected merge-on-read or "
                      "copy-on-write", t->label, key, v);
}

static floe_status isolation_of(const floe_dml_target *t, const char *op, floe_isolation_level *out) {
    char key[64];
    snprintf(key, sizeof key, "write.%s.isolation-level", op);
    const char *v = table_prop(t->table->md, key);
    *out = FLOE_ISOLATION_SERIALIZABLE;
    if (!v || strcmp(v, "serializable") == 0) return NULL;
    if (strcmp(v, "snapshot") == 0) {
        *out = FLOE_ISOLATION_SNAPSHOT;
        return NULL;
    }
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "table %s: property %s is '%s'; expected serializable or snapshot",
                      t->label, key, v);
}

/* The name the statement's own clauses use for the target: its alias, else
 * the table's name (s.t.branch_b is read as t, as a scan binds it). */
static const char *qualifier(const floe_dml_target *t, const json_t *relation) {
    const char *alias = floe_pg_get_str(floe_pg_get(relation, "alias"), "aliasname");
    if (alias) return alias;
    return t->branch_named ? t->name : floe_pg_get_str(relation, "relname");
}

static bool same_table(const floe_ice_table *a_, const floe_ice_table *b_) {
    const floe_ice_table_metadata *a = a_->md, *b = b_->md;
    if (a->table_uuid && b->table_uuid) return strcmp(a->table_uuid, b->table_uuid) == 0;
    return a->location && b->location && strcmp(a->location, b->location) == 0;
}

/* Does scan `p` of the target read the ref the change changes?  On main,
 * the scans of the current snapshot (and of 'main' by name); on a branch
 * named with the table (s.t.branch_b), the scans of that branch — a plain
 * s.t elsewhere in the statement still reads main, as in Spark; on the
 * session's write.branch the plain scans too (Spark reads the WAP
 * branch). */
static bool reads_changed_ref(const floe_lplan *p, const floe_dml_target *t, const char *branch) {
    if (p->snapshot.kind == FLOE_ICE_SELECT_CURRENT) return !t->branch_named;
    if (p->snapshot.kind == FLOE_ICE_SELECT_REF)
        return p->snapshot.ref && strcmp(p->snapshot.ref, branch ? branch : "main") == 0;
    return false;
}

/* Every scan of the changed ref reads snapshot `id` (copy-on-write's
 * second query reads what the first did, a branch's scans its head). */
static void pin_snapshot(floe_lplan *p, const floe_dml_target *t, const char *branch, int64_t id) {
    if (!p) return;
    if (p->kind == FLOE_L_ICEBERG_SCAN && p->table && p->table->md && same_table(p->table, t->table) && id >= 0 &&
        reads_changed_ref(p, t, branch)) {
        p->snapshot.kind = FLOE_ICE_SELECT_ID;
        p->snapshot.snapshot_id = id;
    }
    for (int32_t i = 0; i < p->n_inputs; i++) pin_snapshot(p->inputs[i], t, branch, id);
}

/* The first scan of the target in an optimized plan. */
static const floe_lplan *target_scan(const floe_lplan *p, const floe_ice_table *t) {
    if (!p) return NULL;
    if (p->kind == FLOE_L_ICEBERG_SCAN && p->table && p->table->md && same_table(p->table, t)) return p;
    for (int32_t i = 0; i < p->n_inputs; i++) {
        const floe_lplan *s = target_scan(p->inputs[i], t);
        if (s) return s;
    }
    return NULL;
}

/* ----------------------------------------------------------- running them */

typedef struct change {
    floe_dml_target t;
    const char *what;              /* "DELETE", "UPDATE" */
    bool cow;
    floe_isolation_level isolation;
    int64_t base;                  /* the snapshot read; -1 none */
    const char *branch;            /* the branch changed (session's
                                    * target_branch); NULL: main */
    floe_plan **explain;           /* EXPLAIN: the write plan goes here, nothing runs */
} change;

/* Format version 3: every position delete (a DV, or a file from before an
 * upgrade) that applies to a data file of snapshot `snapshot`, for the
 * writers to merge into the new DVs.  The strings point into *plan. */
static floe_status old_deletes_of(const floe_ice_table *t, int64_t snapshot, floe_ice_scan_plan **plan,
                                  floe_delta_old_delete **out, int32_t *n) {
    *plan = NULL;
    *out = NULL;
    *n = 0;
    if (snapshot < 0) return NULL;
    floe_ice_snapshot_selector sel = {FLOE_ICE_SELECT_ID, snapshot, NULL, 0};
    floe_ice_scan_options opts;
    floe_ice_scan_options_init(&opts);
    FLOE_TRY(floe_ice_scan_plan_new(t, &sel, NULL, 0, NULL, &opts, plan));
    int32_t cap = 0;
    for (int32_t g = 0; g < (*plan)->n_groups; g++)
        for (int32_t i = 0; i < (*plan)->groups[g]->n_tasks; i++) cap += (*plan)->groups[g]->tasks[i].n_deletes;
    floe_delta_old_delete *old = floe_calloc((size_t)cap + 1, sizeof *old);
    if (!old) return oom();
    for (int32_t g = 0; g < (*plan)->n_groups; g++)
        for (int32_t i = 0; i < (*plan)->groups[g]->n_tasks; i++) {
            const floe_ice_scan_task *task = &(*plan)->groups[g]->tasks[i];
            if (task->split_index != 0) continue; /* a file's splits share its deletes */
            for (int32_t k = 0; k < task->n_deletes; k++) {
                const floe_ice_scan_delete *d = task->deletes[k];
                if (d->content != FLOE_ICE_CONTENT_POSITION_DELETES) continue;
                floe_delta_old_delete *o = &old[(*n)++];
                o->data_file = task->path;
                o->location = d->resolved_path ? d->resolved_path : d->path;
                o->format = d->format ? d->format : "parquet";
                o->record_count = d->record_count;
                o->file_size = d->file_size_in_bytes;
                o->content_offset = d->is_dv ? d->content_offset : -1;
                o->content_size = d->is_dv ? d->content_size_in_bytes : -1;
                o->referenced_data_file = d->referenced_data_file;
            }
        }
    *out = old;
    return NULL;
}

/* Bind `q` (consumed) and shape it with `map` (see floe_sql_bind_delta_input),
 * then plan and run the write; *rows: the rows changed. */
static floe_status run_change(floe_session *s, change *c, json_t *q, const int32_t *map, int32_t flags,
                              const char *const *removed, int32_t n_removed, int64_t *rows) {
    *rows = 0;
    if (!q) return oom();
    floe_lplan *lp = NULL, *shaped = NULL;
    floe_status st = floe_sql_bind_query(s, q, &lp);
    json_decref(q);
    if (st) return st;
    if (c->base < 0) c->base = floe_dml_snapshot_read(lp, c->t.table);
    pin_snapshot(lp, &c->t, c->branch, c->base);
    st = floe_sql_bind_delta_input(s, c->t.table, c->t.label, map, lp, &shaped);
    if (!st) st = floe_sql_optimize(&shaped, &s->opts);
    char *filter_json = NULL;
    if (!st) {
        const floe_lplan *scan = target_scan(shaped, c->t.table);
        if (scan && scan->pushed) st = floe_ice_expr_to_json_text(scan->pushed, &filter_json);
    }
    floe_plan *phys = NULL, *plan = NULL;
    floe_ice_scan_plan *sp = NULL;
    floe_delta_old_delete *old = NULL;
    int32_t n_old = 0;
    if (!st) st = floe_sql_physical(shaped, &s->opts, false, &phys);
    floe_lplan_free(shaped);
    if (!st && c->t.table->md->format_version >= 3 && (flags & FLOE_DELTA_DELETES))
        st = old_deletes_of(c->t.table, c->base, &sp, &old, &n_old);
    if (!st)
        st = floe_sql_plan_delta_write(s, phys, c->t.table, c->t.ns, c->t.name, flags, c->base, c->isolation,
                                       filter_json, removed, n_removed, old, n_old, &plan);
    floe_free(old);
    floe_ice_scan_plan_free(sp);
    floe_plan_release(phys);
    floe_free(filter_json);
    if (!st && c->explain) {
        *c->explain = plan; /* EXPLAIN: shown, not run */
        plan = NULL;
    }
    if (!st && plan) st = floe_dml_run_write(s, plan, rows);
    floe_plan_release(plan);
    return st;
}

/* The distinct data files (column 0) a query's rows come from. */
typedef struct file_list {
    char **paths;
    int32_t n, cap;
} file_list;

static void file_list_free(file_list *l) {
    for (int32_t i = 0; i < l->n; i++) floe_free(l->paths[i]);
    floe_free(l->paths);
    memset(l, 0, sizeof *l);
}

static floe_status collect_files(void *arg, const floe_batch *b) {
    file_list *l = arg;
    const floe_array *a = b->columns[0];
    for (int64_t i = 0; i < b->num_rows; i++) {
        if (floe_array_is_null(a, i)) continue;
        if (l->n == l->cap) {
            int32_t cap = l->cap ? l->cap * 2 : 16;
            char **g = floe_realloc(l->paths, (size_t)cap * sizeof *g);
            if (!g) return oom();
            l->paths = g;
            l->cap = cap;
        }
        floe_strview v = floe_array_get_str(a, i);
        if (!(l->paths[l->n] = floe_strndup(v.data, (size_t)v.len))) return oom();
        l->n++;
    }
    return NULL;
}

/* Copy-on-write's first query: the files holding a row that matches. */
static floe_status touched_files(floe_session *s, change *c, const json_t *relation, const json_t *where,
                                 file_list *out) {
    json_t *targets = json_pack("[o]", colref(qualifier(&c->t, relation), "_file"));
    json_t *q = select_stmt(targets, from_list(relation, NULL), copy_or_null(where), true);
    if (!q) return oom();
    floe_lplan *lp = NULL;
    floe_status st = floe_sql_bind_query(s, q, &lp);
    json_decref(q);
    if (st) return st;
    if (c->base < 0) c->base = floe_dml_snapshot_read(lp, c->t.table);
    pin_snapshot(lp, &c->t, c->branch, c->base);
    floe_plan *phys = NULL;
    st = floe_sql_optimize(&lp, &s->opts);
    if (!st) st = floe_sql_physical(lp, &s->opts, true, &phys);
    floe_lplan_free(lp);
    floe_result_sink sink = {out, NULL, collect_files, NULL, NULL};
    int64_t n = 0;
    if (!st) st = floe_session_run_plan(s, phys, &sink, &n);
    floe_plan_release(phys);
    return st;
}

/* `col IN (items)` (both consumed). */
static json_t *in_list(json_t *col, json_t *items) {
    json_t *op = pg_string("=");
    if (!items || !col || !op) {
        json_decref(items);
        json_decref(col);
        json_decref(op);
        return NULL;
    }
    return json_pack("{s:{s:s,s:[o],s:o,s:o}}", "A_Expr", "kind", "AEXPR_IN", "name", op, "lexpr", col, "rexpr",
                     items);
}

/* `q._file IN ('a', 'b', ...)` for the files a copy-on-write rewrites. */
static json_t *file_in(const char *qual, const file_list *files) {
    json_t *items = json_array();
    for (int32_t i = 0; items && i < files->n; i++)
        if (json_array_append_new(items, str_const(files->paths[i])) != 0) {
            json_decref(items);
            return NULL;
        }
    return in_list(colref(qual, "_file"), items);
}

/* The row-level prefix of a change's query: qual._file, qual._pos, `op`
 * (consumed), qual._row_id, qual._last_updated_sequence_number. */
static json_t *delta_targets(const char *qual, json_t *op) {
    return json_pack("[o,o,o,o,o]", colref(qual, "_file"), colref(qual, "_pos"), op, colref(qual, "_row_id"),
                     colref(qual, "_last_updated_sequence_number"));
}

static floe_status open_change(floe_session *s, const json_t *body, const char *what, const char *op, change *c) {
    memset(c, 0, sizeof *c);
    c->what = what;
    c->base = -1;
    FLOE_TRY(floe_dml_target_of(s, floe_pg_get(body, "relation"), &c->t));
    /* On a branch every scan of it reads its head (a branch SET
     * write.branch names before its first write starts at main's). */
    c->branch = s->target_branch;
    if (c->branch) {
        const floe_ice_table_metadata *md = c->t.table->md;
        const floe_ice_snapshot_ref *r = floe_ice_tm_ref(md, c->branch);
        c->base = r ? r->snapshot_id : md->current_snapshot_id;
    }
    FLOE_TRY(write_mode(&c->t, op, &c->cow));
    return isolation_of(&c->t, op, &c->isolation);
}

static floe_status finish_change(floe_status st, change *c, const floe_result_sink *sink, int64_t rows) {
    if (st && c->t.table) st = floe_status_wrap(st, "%s %s", c->what, c->t.label);
    floe_dml_target_clear(&c->t);
    FLOE_TRY(st);
    char tag[48];
    snprintf(tag, sizeof tag, "%s %lld", c->what, (long long)rows);
    return floe_dml_end_tag(sink, tag, rows);
}

/* ------------------------------------------- copy-on-write with joins */

/* Copy-on-write of a change whose rows come from a join (DELETE ... USING,
 * UPDATE ... FROM, MERGE): `q` (consumed) is the merge-on-read query —
 * per affected row its _file, _pos, _op, lineage and new values (columns
 * t0, t1, t2, t3, t4, t5 ...).  A first query over it finds the data
 * files holding a row to delete or update (and, when `unique`, a target
 * row two source rows would change); the second reads exactly those
 * files, each row LEFT JOINed to its change by (_file, _pos): changed rows
 * take their new values (or are dropped, counted), the others are written
 * as they were; MERGE's inserted rows (t2 = WRITE | COUNT, no file) are
 * added by a UNION ALL.  The commit then replaces the files. */

static json_t *func_call(const char *name, json_t *arg, bool star, bool distinct) {
    json_t *f = json_pack("{s:[o]}", "funcname", pg_string(name));
    if (!f) {
        json_decref(arg);
        return NULL;
    }
    if (star) json_object_set_new(f, "agg_star", json_true());
    if (arg) json_object_set_new(f, "args", json_pack("[o]", arg));
    if (distinct) json_object_set_new(f, "agg_distinct", json_true());
    return json_pack("{s:o}", "FuncCall", f);
}

/* `m.t2 IN (a, b)` */
static json_t *op_in(const char *m, int a, int b) {
    return in_list(colref(m, "t2"), json_pack("[o,o]", int_const(a), int_const(b)));
}

static json_t *subselect(json_t *q, const char *alias) {
    if (!q) return NULL;
    return json_pack("{s:{s:o,s:{s:s}}}", "RangeSubselect", "subquery", q, "alias", "aliasname", alias);
}

/* `a = b` of two column refs */
static json_t *eq_cols(json_t *a, json_t *b) {
    json_t *op = pg_string("=");
    if (!a || !b || !op) {
        json_decref(a);
        json_decref(b);
        json_decref(op);
        return NULL;
    }
    return json_pack("{s:{s:s,s:[o],s:o,s:o}}", "A_Expr", "kind", "AEXPR_OP", "name", op, "lexpr", a, "rexpr", b);
}

static json_t *and2(json_t *a, json_t *b) {
    if (!a || !b) {
        json_decref(a);
        json_decref(b);
        return NULL;
    }
    return json_pack("{s:{s:s,s:[o,o]}}", "BoolExpr", "boolop", "AND_EXPR", "args", a, b);
}

/* `CASE WHEN m.t2 = v THEN a ... ELSE d END` over pairs (v, result). */
static json_t *case_op(const char *m, const int *vals, json_t **results, int n, json_t *dflt) {
    json_t *args = json_array();
    bool ok = args && dflt;
    for (int i = 0; i < n; i++) {
        json_t *test = eq_cols(colref(m, "t2"), int_const(vals[i]));
        json_t *w = test && results[i] ? json_pack("{s:{s:o,s:o}}", "CaseWhen", "expr", test, "result", results[i])
                                       : NULL;
        if (!w) {
            if (!test) json_decref(results[i]);
            else json_decref(test);
            ok = false;
        } else if (ok && json_array_append_new(args, w) != 0) {
            ok = false;
        } else if (!ok) {
            json_decref(w);
        }
    }
    if (!ok) {
        json_decref(args);
        json_decref(dflt);
        return NULL;
    }
    return json_pack("{s:{s:o,s:o}}", "CaseExpr", "args", args, "defresult", dflt);
}

typedef struct touched {
    file_list files;
    bool twice;                   /* a row is changed by two source rows */
} touched;

static floe_status collect_touched(void *arg, const floe_batch *b) {
    touched *t = arg;
    for (int64_t i = 0; i < b->num_rows; i++)
        if (!floe_array_is_null(b->columns[1], i) && !floe_array_is_null(b->columns[2], i) &&
            floe_array_get_int64(b->columns[1], i) != floe_array_get_int64(b->columns[2], i))
            t->twice = true;
    return collect_files(&t->files, b);
}

static floe_status run_select(floe_session *s, change *c, json_t *q, const floe_result_sink *sink) {
    if (!q) return oom();
    floe_lplan *lp = NULL;
    floe_status st = floe_sql_bind_query(s, q, &lp);
    json_decref(q);
    if (st) return st;
    if (c->base < 0) c->base = floe_dml_snapshot_read(lp, c->t.table);
    pin_snapshot(lp, &c->t, c->branch, c->base);
    floe_plan *phys = NULL;
    st = floe_sql_optimize(&lp, &s->opts);
    if (!st) st = floe_sql_physical(lp, &s->opts, true, &phys);
    floe_lplan_free(lp);
    int64_t n = 0;
    if (!st) st = floe_session_run_plan(s, phys, sink, &n);
    floe_plan_release(phys);
    return st;
}

static floe_status cow_join(floe_session *s, change *c, const json_t *relation, json_t *q, bool unique,
                            bool inserts, int64_t *rows) {
    *rows = 0;
    if (!q) return oom();
    const char *qual = qualifier(&c->t, relation);
    const floe_ice_schema *schema = floe_ice_tm_current_schema(c->t.table->md);
    int32_t nt = schema->root->n_fields;
    enum { DEL = FLOE_ROW_OP_DELETE, UPD = FLOE_ROW_OP_DELETE | FLOE_ROW_OP_WRITE };
    /* 1: SELECT m.t0, count(*), count(DISTINCT m.t1) FROM (q) m WHERE m.t2 IN (DEL, UPD) GROUP BY m.t0 */
    touched tc;
    memset(&tc, 0, sizeof tc);
    json_t *targets = json_pack("[o,o,o]", colref("m", "t0"), func_call("count", NULL, true, false),
                                func_call("count", colref("m", "t1"), false, true));
    json_t *from = json_pack("[o]", subselect(json_deep_copy(q), "m"));
    json_t *q1 = select_stmt(targets, from, op_in("m", DEL, UPD), false);
    json_t *group = json_pack("[o]", colref("m", "t0"));
    floe_status st = q1 && group ? NULL : oom();
    if (!st) {
        json_object_set_new(floe_pg_node_body(q1), "groupClause", group);
        group = NULL;
    }
    json_decref(group);
    floe_result_sink sink = {&tc, NULL, collect_touched, NULL, NULL};
    if (!st) st = run_select(s, c, q1, &sink);
    else json_decref(q1);
    if (!st && unique && tc.twice)
        st = floe_error(FLOE_ERR_CONSTRAINT, "%s cannot affect a row a second time: a row of %s matches more than "
                        "one source row", c->what, c->t.label);
    json_t *q2 = NULL;
    if (!st && tc.files.n > 0) {
        /* 2: every row of the touched files, joined to its change */
        json_t *changes = unique ? json_deep_copy(q)
                                 : select_stmt(json_pack("[o,o,o]", colref("m0", "t0"), colref("m0", "t1"),
                                                         colref("m0", "t2")),
                                               json_pack("[o]", subselect(json_deep_copy(q), "m0")), NULL, true);
        json_t *sub = NULL;
        if (changes) {
            /* only the rows it deletes or updates */
            json_t *inner = select_stmt(json_pack("[{s:{s:[{s:{}}]}}]", "ColumnRef", "fields", "A_Star"),
                                        json_pack("[o]", subselect(changes, "m1")), op_in("m1", DEL, UPD), false);
            sub = subselect(inner, "m");
        }
        json_t *on = and2(eq_cols(colref(qual, "_file"), colref("m", "t0")),
                          eq_cols(colref(qual, "_pos"), colref("m", "t1")));
        json_t *join = sub && on ? json_pack("[{s:{s:s,s:{s:O},s:o,s:o}}]", "JoinExpr", "jointype", "JOIN_LEFT", "larg",
                                             "RangeVar", relation, "rarg", sub, "quals", on)
                                 : NULL;
        if (!join) {
            json_decref(sub);
            json_decref(on);
        }
        int vals[2] = {UPD, DEL};
        json_t *res[2] = {int_const(FLOE_ROW_OP_WRITE | FLOE_ROW_OP_COUNT), int_const(FLOE_ROW_OP_COUNT)};
        json_t *t2 = delta_targets(qual, case_op("m", vals, res, 2, int_const(FLOE_ROW_OP_WRITE)));
        for (int32_t i = 0; t2 && i < nt; i++) {
            const char *name = schema->root->fields[i].name;
            json_t *v = colref(qual, name);
            if (unique) {
                char col[24];
                snprintf(col, sizeof col, "t%d", (int)(FLOE_DELTA_PREFIX + i));
                int uv[1] = {UPD};
                json_t *r1[1] = {colref("m", col)};
                v = case_op("m", uv, r1, 1, v);
            }
            if (!v || json_array_append_new(t2, v) != 0) {
                json_decref(t2);
                t2 = NULL;
            }
        }
        q2 = select_stmt(t2, join, file_in(qual, &tc.files), false);
        if (!q2) st = oom();
    }
    if (!st && inserts) {
        /* MERGE's inserted rows, as the merge-on-read query gives them */
        json_t *ins = select_stmt(json_pack("[{s:{s:[{s:{}}]}}]", "ColumnRef", "fields", "A_Star"),
                                  json_pack("[o]", subselect(json_deep_copy(q), "m")),
                                  eq_cols(colref("m", "t2"), int_const(FLOE_ROW_OP_WRITE | FLOE_ROW_OP_COUNT)), false);
        if (!ins) st = oom();
        else if (!q2) q2 = ins;
        else {
            json_t *u = json_pack("{s:{s:s,s:b,s:o,s:o,s:s}}", "SelectStmt", "op", "SETOP_UNION", "all", 1, "larg",
                                  floe_pg_node_body(q2), "rarg", floe_pg_node_body(ins), "limitOption",
                                  "LIMIT_OPTION_DEFAULT");
            /* the bodies moved into the union: free only the wrappers */
            json_incref(floe_pg_node_body(q2));
            json_incref(floe_pg_node_body(ins));
            json_decref(q2);
            json_decref(ins);
            q2 = u;
            if (!u) st = oom();
        }
    }
    if (!st && q2) {
        int32_t *map = floe_calloc((size_t)nt + 1, sizeof *map);
        if (!map) st = oom();
        for (int32_t i = 0; map && i < nt; i++) map[i] = FLOE_DELTA_PREFIX + i;
        if (!st) {
            st = run_change(s, c, q2, map, FLOE_DELTA_ROWS, (const char *const *)tc.files.paths, tc.files.n, rows);
            q2 = NULL;
        }
        floe_free(map);
    }
    json_decref(q2);
    json_decref(q);
    file_list_free(&tc.files);
    return st;
}

/* ------------------------------------------------------------------ DELETE */

static floe_status delete_rows(floe_session *s, const json_t *body, change *c, int64_t *rows) {
    const json_t *relation = floe_pg_get(body, "relation"), *where = floe_pg_get(body, "whereClause");
    const json_t *using = floe_pg_get(body, "usingClause");
    const char *qual = qualifier(&c->t, relation);
    if (!c->cow) {
        json_t *targets = delta_targets(qual, int_const(FLOE_ROW_OP_DELETE));
        json_t *q = select_stmt(targets, from_list(relation, using), copy_or_null(where), false);
        return run_change(s, c, q, NULL, FLOE_DELTA_ROWS | FLOE_DELTA_DELETES, NULL, 0, rows);
    }
    if (floe_pg_list_len(using) > 0 || has_sublink(where)) {
        json_t *targets = delta_targets(qual, int_const(FLOE_ROW_OP_DELETE));
        json_t *q = select_stmt(targets, from_list(relation, using), copy_or_null(where), false);
        return cow_join(s, c, relation, q, false, false, rows);
    }
    file_list files = {0};
    floe_status st = touched_files(s, c, relation, where, &files);
    if (!st && files.n > 0) {
        /* Every row of the touched files: the matching ones counted and
         * left out, the others written again. */
        const floe_ice_schema *schema = floe_ice_tm_current_schema(c->t.table->md);
        json_t *targets = delta_targets(qual, case_when(copy_or_null(where), int_const(FLOE_ROW_OP_COUNT),
                                                        int_const(FLOE_ROW_OP_WRITE)));
        int32_t nt = schema->root->n_fields;
        int32_t *map = floe_calloc((size_t)nt + 1, sizeof *map);
        if (!map) st = oom();
        for (int32_t i = 0; !st && i < nt; i++) {
            map[i] = FLOE_DELTA_PREFIX + i;
            if (!targets || json_array_append_new(targets, colref(qual, schema->root->fields[i].name)) != 0) st = oom();
        }
        if (!st) {
            json_t *q = select_stmt(targets, from_list(relation, NULL), file_in(qual, &files), false);
            targets = NULL;
            st = run_change(s, c, q, map, FLOE_DELTA_ROWS, (const char *const *)files.paths, files.n, rows);
        }
        json_decref(targets);
        floe_free(map);
    }
    file_list_free(&files);
    return st;
}

floe_status floe_sql_exec_delete_rows(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    change c;
    int64_t rows = 0;
    floe_status st = open_change(s, body, "DELETE", "delete", &c);
    if (!st) st = delete_rows(s, body, &c, &rows);
    return finish_change(st, &c, sink, rows);
}

/* ------------------------------------------------------------------ UPDATE */

/* The SET list as one value per table column: sets[t] the expression
 * assigned to column t (borrowed), or NULL when it keeps its value;
 * to_null[t]: SET t = DEFAULT of a column whose default is NULL. */
static floe_status assignments(floe_session *s, const json_t *body, const floe_ice_type *root, const char *label,
                               const json_t **sets, bool *to_null) {
    const json_t *list = floe_pg_get(body, "targetList");
    for (int32_t i = 0; i < floe_pg_list_len(list); i++) {
        const json_t *rt = floe_pg_as(floe_pg_list_at(list, i), "ResTarget");
        const char *name = floe_pg_get_str(rt, "name");
        int32_t loc = (int32_t)floe_pg_get_int(rt, "location", -1);
        if (!name) return floe_error(FLOE_ERR_SYNTAX, "UPDATE: an assignment without a column");
        if (floe_pg_get(rt, "indirection"))
            return floe_session_error_at(s, loc, FLOE_ERR_UNSUPPORTED,
                                         "UPDATE of a part of a column (%s.x, %s[1]) is not supported", name, name);
        int32_t col = -1;
        for (int32_t t = 0; t < root->n_fields && col < 0; t++)
            if (strcmp(root->fields[t].name, name) == 0) col = t;
        if (col < 0)
            return floe_session_error_at(s, loc, FLOE_ERR_NOT_FOUND, "column \"%s\" of relation \"%s\" does not exist",
                                         name, label);
        if (sets[col] || to_null[col])
            return floe_session_error_at(s, loc, FLOE_ERR_INVALID_ARGUMENT, "multiple assignments to same column \"%s\"",
                                         name);
        const json_t *val = floe_pg_get(rt, "val");
        const json_t *multi = floe_pg_as(val, "MultiAssignRef");
        if (multi) {
            /* SET (a, b) = (x, y): the colno-th of the row's values. */
            const json_t *row = floe_pg_as(floe_pg_get(multi, "source"), "RowExpr");
            int64_t k = floe_pg_get_int(multi, "colno", 0);
            if (!row || k < 1 || k > floe_pg_list_len(floe_pg_get(row, "args")))
                return floe_session_error_at(s, loc, FLOE_ERR_UNSUPPORTED,
                                             "UPDATE ... SET (columns) = (SELECT ...) is not supported");
            val = floe_pg_list_at(floe_pg_get(row, "args"), (int32_t)(k - 1));
        }
        if (floe_pg_as(val, "SetToDefault")) {
            const floe_ice_field *f = &root->fields[col];
            if (f->write_default && !f->write_default->is_null)
                return floe_session_error_at(s, loc, FLOE_ERR_UNSUPPORTED,
                                             "UPDATE ... SET %s = DEFAULT of a column with a write-default is not "
                                             "supported yet", name);
            if (f->required)
                return floe_session_error_at(s, loc, FLOE_ERR_CONSTRAINT,
                                             "column '%s' of table %s is required (NOT NULL) and has no default", name,
                                             label);
            to_null[col] = true;
            continue;
        }
        sets[col] = val;
    }
    return NULL;
}

static floe_status update_rows(floe_session *s, const json_t *body, change *c, int64_t *rows) {
    const json_t *relation = floe_pg_get(body, "relation"), *where = floe_pg_get(body, "whereClause");
    const json_t *from = floe_pg_get(body, "fromClause");
    const char *qual = qualifier(&c->t, relation);
    const floe_ice_schema *schema = floe_ice_tm_current_schema(c->t.table->md);
    if (!schema) return floe_error(FLOE_ERR_CORRUPT, "table %s has no current schema", c->t.label);
    int32_t nt = schema->root->n_fields;
    const json_t **sets = floe_calloc((size_t)nt + 1, sizeof *sets);
    bool *to_null = floe_calloc((size_t)nt + 1, sizeof *to_null);
    int32_t *map = floe_calloc((size_t)nt + 1, sizeof *map);
    file_list files = {0};
    floe_status st = sets && to_null && map ? NULL : oom();
    if (!st) st = assignments(s, body, schema->root, c->t.label, sets, to_null);
    /* copy-on-write with FROM: the merge-on-read query, then cow_join */
    bool joined = c->cow && (floe_pg_list_len(from) > 0 || has_sublink(where));
    bool cow = c->cow && !joined;
    if (!st && cow) st = touched_files(s, c, relation, where, &files);
    if (!st && cow && files.n == 0) goto done; /* nothing matches */
    json_t *targets = NULL;
    if (!st) {
        json_t *op = cow ? case_when(copy_or_null(where), int_const(FLOE_ROW_OP_WRITE | FLOE_ROW_OP_COUNT),
                                        int_const(FLOE_ROW_OP_WRITE))
                            : int_const(FLOE_ROW_OP_DELETE | FLOE_ROW_OP_WRITE);
        targets = delta_targets(qual, op);
        if (!targets) st = oom();
    }
    for (int32_t i = 0; !st && i < nt; i++) {
        map[i] = FLOE_DELTA_PREFIX + i;
        json_t *v = NULL;
        const char *name = schema->root->fields[i].name;
        if (!sets[i] && !to_null[i]) v = colref(qual, name);
        else {
            json_t *nv = to_null[i] ? null_const() : json_deep_copy(sets[i]);
            /* copy-on-write: only the matching rows take the new value */
            v = cow ? case_when(copy_or_null(where), nv, colref(qual, name)) : nv;
        }
        if (!v || json_array_append_new(targets, v) != 0) st = oom();
    }
    if (!st) {
        json_t *q = cow ? select_stmt(targets, from_list(relation, NULL), file_in(qual, &files), false)
                        : select_stmt(targets, from_list(relation, from), copy_or_null(where), false);
        targets = NULL;
        int32_t flags = cow ? FLOE_DELTA_ROWS : FLOE_DELTA_ROWS | FLOE_DELTA_DELETES | FLOE_DELTA_UNIQUE;
        if (joined) st = cow_join(s, c, relation, q, true, false, rows);
        else st = run_change(s, c, q, map, flags, (const char *const *)files.paths, files.n, rows);
    }
    json_decref(targets);
done:
    file_list_free(&files);
    floe_free(sets);
    floe_free(to_null);
    floe_free(map);
    return st;
}

floe_status floe_sql_exec_update(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    if (floe_pg_list_len(floe_pg_get(body, "returningList")) > 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "UPDATE ... RETURNING is not supported");
    if (floe_pg_get(body, "withClause")) return floe_error(FLOE_ERR_UNSUPPORTED, "UPDATE with WITH is not supported");
    change c;
    int64_t rows = 0;
    floe_status st = open_change(s, body, "UPDATE", "update", &c);
    if (!st) st = update_rows(s, body, &c, &rows);
    return finish_change(st, &c, sink, rows);
}

/* ------------------------------------------------------------------- MERGE */

#define SOURCE_MARK "__floe_source_row"

typedef enum when_kind { WHEN_MATCHED, WHEN_NOT_MATCHED, WHEN_BY_SOURCE } when_kind;

/* A boolean test that the joined row is of `kind` (consumed parts). */
static json_t *kind_test(when_kind kind, const char *tq, const char *sq) {
    const char *type = kind == WHEN_NOT_MATCHED ? "IS_NULL" : "IS_NOT_NULL";
    json_t *t = json_pack("{s:{s:o,s:s}}", "NullTest", "arg", colref(tq, "_file"), "nulltesttype", type);
    if (kind == WHEN_NOT_MATCHED) return t;
    json_t *src = json_pack("{s:{s:o,s:s}}", "NullTest", "arg", colref(sq, SOURCE_MARK), "nulltesttype",
                            kind == WHEN_MATCHED ? "IS_NOT_NULL" : "IS_NULL");
    if (kind == WHEN_BY_SOURCE) {
        json_decref(t);
        return src;
    }
    if (!t || !src) {
        json_decref(t);
        json_decref(src);
        return NULL;
    }
    return json_pack("{s:{s:s,s:[o,o]}}", "BoolExpr", "boolop", "AND_EXPR", "args", t, src);
}

/* kind test AND the clause's own condition (if any). */
static json_t *clause_test(when_kind kind, const json_t *cond, const char *tq, const char *sq) {
    json_t *k = kind_test(kind, tq, sq);
    if (!cond || !k) return k;
    json_t *c = json_deep_copy(cond);
    if (!c) {
        json_decref(k);
        return NULL;
    }
    return json_pack("{s:{s:s,s:[o,o]}}", "BoolExpr", "boolop", "AND_EXPR", "args", k, c);
}

typedef struct merge_clause {
    when_kind kind;
    const char *cmd;              /* CMD_UPDATE, CMD_DELETE, CMD_INSERT, CMD_NOTHING */
    const json_t *cond;           /* may be NULL */
    const json_t **values;        /* per table column: its new value (borrowed), NULL: none */
    bool *to_null;                /* per table column: NULL (INSERT leaves it out, SET c = DEFAULT) */
} merge_clause;

/* The clause's values: UPDATE's SET list, INSERT's column list and VALUES. */
static floe_status clause_values(floe_session *s, const json_t *wc, const floe_ice_type *root, const char *label,
                                 merge_clause *m) {
    int32_t nt = root->n_fields;
    m->values = floe_calloc((size_t)nt + 1, sizeof *m->values);
    m->to_null = floe_calloc((size_t)nt + 1, sizeof *m->to_null);
    if (!m->values || !m->to_null) return oom();
    if (strcmp(m->cmd, "CMD_UPDATE") == 0) return assignments(s, wc, root, label, m->values, m->to_null);
    if (strcmp(m->cmd, "CMD_INSERT") != 0) return NULL;
    const json_t *cols = floe_pg_get(wc, "targetList"), *vals = floe_pg_get(wc, "values");
    int32_t nc = floe_pg_list_len(cols), nv = floe_pg_list_len(vals);
    if (nc == 0 && nv > nt)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "MERGE: INSERT has more expressions (%d) than table %s has "
                          "columns (%d)", (int)nv, label, (int)nt);
    if (nc > 0 && nc != nv)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "MERGE: INSERT has %d target columns and %d expressions",
                          (int)nc, (int)nv);
    for (int32_t t = 0; t < nt; t++) m->to_null[t] = true;
    for (int32_t i = 0; i < nv; i++) {
        int32_t col = i;
        if (nc > 0) {
            const json_t *rt = floe_pg_as(floe_pg_list_at(cols, i), "ResTarget");
            const char *name = floe_pg_get_str(rt, "name");
            int32_t loc = (int32_t)floe_pg_get_int(rt, "location", -1);
            col = -1;
            for (int32_t t = 0; name && t < nt && col < 0; t++)
                if (strcmp(root->fields[t].name, name) == 0) col = t;
            if (col < 0)
                return floe_session_error_at(s, loc, FLOE_ERR_NOT_FOUND,
                                             "column \"%s\" of relation \"%s\" does not exist", name ? name : "?",
                                             label);
            if (m->values[col])
                return floe_session_error_at(s, loc, FLOE_ERR_INVALID_ARGUMENT,
                                             "column \"%s\" specified more than once", name);
        }
        const json_t *v = floe_pg_list_at(vals, i);
        if (floe_pg_as(v, "SetToDefault")) continue; /* NULL */
        m->values[col] = v;
        m->to_null[col] = false;
    }
    for (int32_t t = 0; t < nt; t++) {
        const floe_ice_field *f = &root->fields[t];
        if (m->to_null[t] && f->write_default && !f->write_default->is_null)
            return floe_error(FLOE_ERR_UNSUPPORTED, "MERGE: INSERT leaving out column '%s', which has a "
                              "write-default, is not supported yet", f->name);
    }
    return NULL;
}

static int op_of(const char *cmd) {
    if (strcmp(cmd, "CMD_UPDATE") == 0) return FLOE_ROW_OP_DELETE | FLOE_ROW_OP_WRITE;
    if (strcmp(cmd, "CMD_DELETE") == 0) return FLOE_ROW_OP_DELETE;
    if (strcmp(cmd, "CMD_INSERT") == 0) return FLOE_ROW_OP_WRITE | FLOE_ROW_OP_COUNT;
    return 0; /* DO NOTHING */
}

/* CASE WHEN test_1 THEN r_1 ... ELSE dflt END over the clauses whose
 * result `pick` gives (NULL: the clause is left out). */
typedef json_t *(*arm_fn)(const merge_clause *m, int32_t col, const char *tq);

static json_t *arm_op(const merge_clause *m, int32_t col, const char *tq) {
    (void)col;
    (void)tq;
    return int_const(op_of(m->cmd));
}

static json_t *arm_value(const merge_clause *m, int32_t col, const char *tq) {
    (void)tq;
    if (strcmp(m->cmd, "CMD_UPDATE") != 0 && strcmp(m->cmd, "CMD_INSERT") != 0) return NULL;
    if (m->to_null[col]) return null_const();
    if (!m->values[col]) return NULL; /* UPDATE keeps it: the ELSE */
    return json_deep_copy(m->values[col]);
}

static json_t *clause_case(const merge_clause *ms, int32_t n, int32_t col, arm_fn arm, json_t *dflt, const char *tq,
                           const char *sq, bool *oom_) {
    json_t *args = json_array();
    if (!args || !dflt) goto fail;
    for (int32_t i = 0; i < n; i++) {
        json_t *r = arm(&ms[i], col, tq);
        if (!r) {
            if (arm == arm_op) goto fail;
            /* a clause that does not set this column: the row keeps it */
            if (!(r = json_deep_copy(dflt))) goto fail;
        }
        json_t *test = clause_test(ms[i].kind, ms[i].cond, tq, sq);
        json_t *w = test ? json_pack("{s:{s:o,s:o}}", "CaseWhen", "expr", test, "result", r) : NULL;
        if (!test) json_decref(r);
        if (!w || json_array_append_new(args, w) != 0) goto fail;
    }
    if (n == 0) {
        json_decref(args);
        return dflt;
    }
    return json_pack("{s:{s:o,s:o}}", "CaseExpr", "args", args, "defresult", dflt);
fail:
    json_decref(args);
    json_decref(dflt);
    *oom_ = true;
    return NULL;
}

/* FROM target <join> (SELECT *, true AS mark FROM source) AS s ON cond. */
static json_t *merge_from(const json_t *relation, const json_t *source, const char *sq, const json_t *on,
                          const char *jointype) {
    json_t *star = json_pack("{s:{s:[{s:{}}]}}", "ColumnRef", "fields", "A_Star");
    json_t *mark = json_pack("{s:{s:s,s:{s:{s:{s:b}}}}}", "ResTarget", "name", SOURCE_MARK, "val", "A_Const",
                             "boolval", "boolval", 1);
    json_t *inner = star && mark ? json_pack("{s:{s:[{s:{s:o}},o],s:[O],s:s,s:s}}", "SelectStmt", "targetList",
                                             "ResTarget", "val", star, mark, "fromClause", source, "op", "SETOP_NONE",
                                             "limitOption", "LIMIT_OPTION_DEFAULT")
                                 : NULL;
    if (!inner) {
        if (!star || !mark) {
            json_decref(star);
            json_decref(mark);
        }
        return NULL;
    }
    json_t *sub = json_pack("{s:{s:o,s:{s:s}}}", "RangeSubselect", "subquery", inner, "alias", "aliasname", sq);
    json_t *quals = json_deep_copy(on);
    if (!sub || !quals) {
        json_decref(sub);
        json_decref(quals);
        return NULL;
    }
    return json_pack("[{s:{s:s,s:{s:O},s:o,s:o}}]", "JoinExpr", "jointype", jointype, "larg", "RangeVar", relation,
                     "rarg", sub, "quals", quals);
}

/* The source's name in the statement's clauses. */
static const char *source_name(const json_t *source) {
    const json_t *body = floe_pg_node_body(source);
    const char *alias = floe_pg_get_str(floe_pg_get(body, "alias"), "aliasname");
    if (alias) return alias;
    return floe_pg_as(source, "RangeVar") ? floe_pg_get_str(body, "relname") : NULL;
}

static floe_status merge_rows(floe_session *s, const floe_sql_stmt *stmt, const json_t *body, change *c,
                              int64_t *rows) {
    const json_t *relation = floe_pg_get(body, "relation"), *source = floe_pg_get(body, "sourceRelation");
    const json_t *on = floe_pg_get(body, "joinCondition"), *whens = floe_pg_get(body, "mergeWhenClauses");
    const char *tq = qualifier(&c->t, relation), *sq = source_name(source);
    if (!sq) return floe_error(FLOE_ERR_SYNTAX, "MERGE: the source needs a name (USING (SELECT ...) AS s)");
    const floe_ice_schema *schema = floe_ice_tm_current_schema(c->t.table->md);
    if (!schema) return floe_error(FLOE_ERR_CORRUPT, "table %s has no current schema", c->t.label);
    int32_t nw = floe_pg_list_len(whens), nt = schema->root->n_fields;
    /* The pre-pass's record of each WHEN clause, in order. */
    const char **kinds = floe_calloc((size_t)nw + 1, sizeof *kinds);
    merge_clause *ms = floe_calloc((size_t)nw + 1, sizeof *ms);
    int32_t *map = floe_calloc((size_t)nt + 1, sizeof *map);
    floe_status st = kinds && ms && map ? NULL : oom();
    int32_t k = 0;
    for (int32_t i = 0; !st && stmt && i < stmt->n_clauses; i++)
        if (stmt->clauses[i].kind == FLOE_SQL_MERGE_WHEN && k < nw) kinds[k++] = stmt->clauses[i].text;
    bool has_not_matched = false, has_by_source = false;
    for (int32_t i = 0; !st && i < nw; i++) {
        const json_t *wc = floe_pg_as(floe_pg_list_at(whens, i), "MergeWhenClause");
        merge_clause *m = &ms[i];
        m->cmd = floe_pg_get_str(wc, "commandType");
        m->cond = floe_pg_get(wc, "condition");
        bool matched = floe_pg_get_bool(wc, "matched");
        m->kind = matched ? WHEN_MATCHED : WHEN_NOT_MATCHED;
        if (kinds[i] && strcmp(kinds[i], "not matched by source") == 0) m->kind = WHEN_BY_SOURCE;
        if (!m->cmd) st = floe_error(FLOE_ERR_SYNTAX, "MERGE: a WHEN clause without an action");
        else if (m->kind == WHEN_BY_SOURCE && strcmp(m->cmd, "CMD_INSERT") == 0)
            st = floe_error(FLOE_ERR_SYNTAX, "MERGE: WHEN NOT MATCHED BY SOURCE cannot INSERT");
        if (!st) st = clause_values(s, wc, schema->root, c->t.label, m);
        has_not_matched = has_not_matched || m->kind == WHEN_NOT_MATCHED;
        has_by_source = has_by_source || m->kind == WHEN_BY_SOURCE;
    }
    const char *jointype = has_not_matched && has_by_source ? "JOIN_FULL"
                           : has_not_matched                ? "JOIN_RIGHT"
                           : has_by_source                  ? "JOIN_LEFT"
                                                            : "JOIN_INNER";
    json_t *targets = NULL;
    bool failed = false;
    if (!st) {
        targets = json_pack("[o,o]", colref(tq, "_file"), colref(tq, "_pos"));
        json_t *op = clause_case(ms, nw, 0, arm_op, int_const(0), tq, sq, &failed);
        if (!targets || !op || json_array_append_new(targets, op) != 0 ||
            json_array_append_new(targets, colref(tq, "_row_id")) != 0 ||
            json_array_append_new(targets, colref(tq, "_last_updated_sequence_number")) != 0)
            st = oom();
    }
    for (int32_t t = 0; !st && t < nt; t++) {
        map[t] = FLOE_DELTA_PREFIX + t;
        json_t *v = clause_case(ms, nw, t, arm_value, colref(tq, schema->root->fields[t].name), tq, sq, &failed);
        if (!v || json_array_append_new(targets, v) != 0) st = oom();
    }
    if (!st) {
        json_t *q = select_stmt(targets, merge_from(relation, source, sq, on, jointype), NULL, false);
        targets = NULL;
        if (c->cow) st = cow_join(s, c, relation, q, true, true, rows);
        else st = run_change(s, c, q, map, FLOE_DELTA_ROWS | FLOE_DELTA_DELETES | FLOE_DELTA_UNIQUE, NULL, 0, rows);
    }
    json_decref(targets);
    for (int32_t i = 0; ms && i < nw; i++) {
        floe_free(ms[i].values);
        floe_free(ms[i].to_null);
    }
    floe_free(ms);
    floe_free(kinds);
    floe_free(map);
    return st;
}

floe_status floe_sql_exec_merge(floe_session *s, const floe_sql_stmt *stmt, const json_t *body,
                                const floe_result_sink *sink) {
    if (floe_pg_list_len(floe_pg_get(body, "returningList")) > 0)
        return floe_error(FLOE_ERR_UNSUPPORTED, "MERGE ... RETURNING is not supported");
    if (floe_pg_get(body, "withClause")) return floe_error(FLOE_ERR_UNSUPPORTED, "MERGE with WITH is not supported");
    change c;
    int64_t rows = 0;
    floe_status st = open_change(s, body, "MERGE", "merge", &c);
    if (!st) st = merge_rows(s, stmt, body, &c, &rows);
    return finish_change(st, &c, sink, rows);
}

/* ------------------------------------------- the metadata-only DELETE's count */

static floe_status collect_count(void *arg, const floe_batch *b) {
    int64_t *n = arg;
    if (b->num_rows > 0 && !floe_array_is_null(b->columns[0], 0)) *n = floe_array_get_int64(b->columns[0], 0);
    return NULL;
}

static const char *summary_value(const floe_ice_snapshot *snap, const char *key) {
    for (int32_t i = 0; snap && i < snap->n_summary; i++)
        if (strcmp(snap->summary[i].key, key) == 0) return snap->summary[i].value;
    return NULL;
}

floe_status floe_sql_deleted_rows(floe_session *s, const json_t *body, floe_dml_target *t, int64_t snapshot_id,
                                  int64_t *rows) {
    floe_ice_table *now = NULL;
    FLOE_TRY(floe_catalog_load_table(s->catalog, t->ns, t->name, &now));
    const floe_ice_snapshot *snap = floe_ice_tm_snapshot(now->md, snapshot_id);
    const floe_ice_snapshot *parent = snap ? floe_ice_tm_snapshot(now->md, snap->parent_snapshot_id) : NULL;
    const char *dels = summary_value(parent, "total-delete-files");
    floe_status st = NULL;
    if (parent && (!dels || strcmp(dels, "0") != 0)) {
        /* Deletes applied to the removed files: their record counts say too
         * much.  The rows removed are exactly the rows the filter matched
         * in the snapshot the delete replaced. */
        const json_t *relation = floe_pg_get(body, "relation"), *where = floe_pg_get(body, "whereClause");
        change c;
        memset(&c, 0, sizeof c);
        c.t = *t;
        c.t.table = now;
        c.base = parent->snapshot_id;
        json_t *q = select_stmt(json_pack("[o]", func_call("count", NULL, true, false)), from_list(relation, NULL),
                                copy_or_null(where), false);
        int64_t n = -1;
        floe_result_sink sink = {&n, NULL, collect_count, NULL, NULL};
        st = run_select(s, &c, q, &sink);
        if (!st && n >= 0) *rows = n;
    }
    floe_ice_table_free(now);
    return st;
}

/* ----------------------------------------------------------------- EXPLAIN */

floe_status floe_sql_plan_rowlevel(floe_session *s, const floe_sql_stmt *stmt, const json_t *node, floe_plan **out) {
    *out = NULL;
    const char *kind = floe_pg_node_kind(node);
    const json_t *body = floe_pg_node_body(node);
    bool del = kind && strcmp(kind, "DeleteStmt") == 0, upd = kind && strcmp(kind, "UpdateStmt") == 0;
    const char *what = del ? "DELETE" : upd ? "UPDATE" : "MERGE";
    change c;
    int64_t rows = 0;
    floe_status st = open_change(s, body, what, del ? "delete" : upd ? "update" : "merge", &c);
    c.explain = out;
    if (!st && del) st = delete_rows(s, body, &c, &rows);
    else if (!st && upd) st = update_rows(s, body, &c, &rows);
    else if (!st) st = merge_rows(s, stmt, body, &c, &rows);
    if (st && c.t.table) st = floe_status_wrap(st, "%s %s", what, c.t.label);
    floe_dml_target_clear(&c.t);
    if (st) {
        floe_plan_release(*out);
        *out = NULL;
    }
    return st;
}

/* ---------------------------------------------------------------- TRUNCATE */

floe_status floe_sql_exec_truncate(floe_session *s, const json_t *body, const floe_result_sink *sink) {
    const json_t *rels = floe_pg_get(body, "relations");
    if (floe_pg_get_bool(body, "restart_seqs"))
        return floe_error(FLOE_ERR_UNSUPPORTED, "TRUNCATE ... RESTART IDENTITY is not supported (tables have no "
                          "sequences)");
    /* Check every table first, so a bad name truncates nothing. */
    int32_t n = floe_pg_list_len(rels);
    floe_dml_target *ts = floe_calloc((size_t)n + 1, sizeof *ts);
    char **branches = floe_calloc((size_t)n + 1, sizeof *branches); /* each table's write branch, NULL: main */
    floe_status st = ts && branches ? NULL : oom();
    for (int32_t i = 0; !st && i < n; i++) {
        st = floe_dml_target_of(s, floe_pg_as(floe_pg_list_at(rels, i), "RangeVar"), &ts[i]);
        if (!st && s->target_branch && !(branches[i] = floe_strdup(s->target_branch))) st = oom();
    }
    floe_ice_expr *all = st ? NULL : floe_ice_expr_true();
    if (!st && !all) st = oom();
    for (int32_t i = 0; !st && i < n; i++) {
        int64_t snap = -1, rows = 0;
        int32_t retries = floe_catalog_retry_settings(ts[i].table->md).num_retries;
        st = floe_catalog_delete_where_branch(s->catalog, ts[i].ns, ts[i].name, branches[i], all, retries, &snap, &rows);
        if (st) st = floe_status_wrap(st, "TRUNCATE %s", ts[i].label);
    }
    floe_ice_expr_free(all);
    for (int32_t i = 0; ts && i < n; i++) floe_dml_target_clear(&ts[i]);
    for (int32_t i = 0; branches && i < n; i++) floe_free(branches[i]);
    floe_free(branches);
    floe_free(ts);
    FLOE_TRY(st);
    return floe_dml_end_tag(sink, "TRUNCATE TABLE", 0);
}
