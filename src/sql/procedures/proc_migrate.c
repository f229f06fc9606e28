/*
 * proc_migrate.c — snapshot(source_table, table, location, properties,
 * parallelism) and migrate(table, source_table, properties, drop_backup,
 * backup_table_name, parallelism): Spark's SnapshotTableProcedure and
 * MigrateTableProcedure for a folder of Parquet files, named as add_files
 * names one: source_table => '`parquet`.`/path/to/dir`'.
 *
 * Both make a new Iceberg table and register the folder's files as its
 * data files in one append (proc_add_files_from: nothing copied).  The
 * schema is the files' own, as read_parquet(…, hive_partitioning => true)
 * sees them (columns of the first file, Hive k=v folders as columns after
 * them), and the table is partitioned by identity on those folder
 * columns.  The table is made by running CREATE TABLE … AS SELECT … WITH
 * NO DATA on the session, so it is typed and placed exactly as that
 * statement would.
 *   - snapshot: the table lives elsewhere (location, else the catalog's
 *     default) and, as Spark's, gets gc.enabled = false: its data files
 *     belong to the source too, so expire_snapshots and remove_orphan_files
 *     refuse to delete any.
 *   - migrate: the folder becomes the table (its location); Spark's
 *     source is a Hive table of the same name, here the folder, so the
 *     new table's name is `table` and the folder `source_table`.  There is
 *     no old table to keep as a backup: drop_backup and backup_table_name
 *     are accepted and change nothing.
 * On a failure while adding the files the new table is dropped again
 * (never purged: the files are the user's).
 *
 * Results (Spark's): imported_files_count (snapshot), migrated_files_count
 * (migrate).
 */
#include <stdio.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/catalog.h"
#include "floe/memory.h"
#include "sql/procedures/proc_add_files.h"
#include "sql/procedures/procedure.h"
#include "sql/session_internal.h"

#define NAME_CAP 256

/* Append `s` to b as an SQL literal ('…', quotes doubled). */
static floe_status put_literal(floe_buf *b, const char *s) {
    FLOE_TRY(floe_buf_printf(b, "'"));
    for (const char *p = s; *p; p++) FLOE_TRY(floe_buf_printf(b, *p == '\'' ? "''" : "%c", *p));
    return floe_buf_printf(b, "'");
}

/* Append `s` as a quoted identifier ("…", quotes doubled). */
static floe_status put_ident(floe_buf *b, const char *s) {
    FLOE_TRY(floe_buf_printf(b, "\""));
    for (const char *p = s; *p; p++) FLOE_TRY(floe_buf_printf(b, *p == '"' ? "\"\"" : "%c", *p));
    return floe_buf_printf(b, "\"");
}

/* The k=v folder names on the way to the first file below `dir` that is
 * not hidden: the partition columns, in folder order. */
typedef struct first_file {
    size_t root_len;
    char *rel; /* the first file's path below dir (smallest) */
    bool iceberg; /* metadata/….metadata.json: the folder is a table already */
} first_file;

static floe_status on_file(void *ctx, const floe_file_info *info) {
    first_file *f = ctx;
    const char *rel = info->location + f->root_len;
    size_t n = strlen(rel);
    if (strncmp(rel, "metadata/", 9) == 0 && n > 14 && strcmp(rel + n - 14, ".metadata.json") == 0) f->iceberg = true;
    for (const char *p = rel; *p;) { /* hidden, as add_files skips them */
        if (*p == '_' || *p == '.') return NULL;
        const char *slash = strchr(p, '/');
        if (!slash) break;
        p = slash + 1;
    }
    if (f->rel && strcmp(f->rel, rel) <= 0) return NULL;
    floe_free(f->rel);
    f->rel = floe_strdup(rel);
    return f->rel ? NULL : floe_error(FLOE_ERR_OUT_OF_MEMORY, "migrate: out of memory");
}

/* CREATE TABLE ns.name [PARTITIONED BY (k, …)] WITH (location, props) AS
 * SELECT * FROM read_parquet(<every .parquet below dir>, hive_partitioning => true) WITH NO DATA. */
static floe_status create_sql(floe_proc_call *call, const char *ns, const char *name, const char *dir,
                              const char *location, const floe_proc_arg *props, bool snapshot, floe_buf *b) {
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dl--;
    char *root = floe_malloc(dl + 2);
    if (!root) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "migrate: out of memory");
    memcpy(root, dir, dl);
    root[dl] = '/';
    root[dl + 1] = 0;
    first_file f = {dl + 1, NULL, false};
    floe_fileio *io = NULL;
    floe_status st = floe_fileio_new(NULL, 0, &io);
    if (!st) st = floe_fileio_list(io, root, on_file, &f);
    floe_fileio_free(io);
    if (!st && !f.rel)
        st = floe_proc_error(call, floe_proc_get(call, "source_table"), FLOE_ERR_NOT_FOUND, "%s: no files under '%s'",
                             call->def->name, dir);
    if (!st && f.iceberg)
        st = floe_proc_error(call, floe_proc_get(call, "source_table"), FLOE_ERR_INVALID_ARGUMENT,
                             "%s: '%s' already holds an Iceberg table (metadata/*.metadata.json); register_table "
                             "enters it", call->def->name, dir);
    if (!st) st = floe_buf_printf(b, "CREATE TABLE ");
    if (!st) st = put_ident(b, ns);
    if (!st) st = floe_buf_printf(b, ".");
    if (!st) st = put_ident(b, name);
    /* The folders on the way to the first file: the partition columns. */
    bool any = false;
    for (const char *p = f.rel; !st && p && strchr(p, '/');) {
        const char *slash = strchr(p, '/'), *eq = memchr(p, '=', (size_t)(slash - p));
        if (eq) {
            char *col = floe_strndup(p, (size_t)(eq - p));
            st = col ? floe_buf_printf(b, any ? ", " : " PARTITIONED BY (") : NULL;
            if (!st && col) st = put_ident(b, col);
            if (!col) st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "migrate: out of memory");
            floe_free(col);
            any = true;
        }
        p = slash + 1;
    }
    if (!st && any) st = floe_buf_printf(b, ")");
    floe_buf opts = FLOE_BUF_INIT;
    if (!st && location) {
        st = floe_buf_printf(&opts, "'location' = ");
        if (!st) st = put_literal(&opts, location);
    }
    if (!st && snapshot) st = floe_buf_printf(&opts, "%s'gc.enabled' = 'false'", opts.len ? ", " : "");
    for (int32_t i = 0; !st && props->given && i < props->n; i++) {
        if (snapshot && strcmp(props->strs[2 * i], "gc.enabled") == 0) continue;
        st = floe_buf_printf(&opts, "%s", opts.len ? ", " : "");
        if (!st) st = put_literal(&opts, props->strs[2 * i]);
        if (!st) st = floe_buf_printf(&opts, " = ");
        if (!st) st = put_literal(&opts, props->strs[2 * i + 1]);
    }
    if (!st && opts.len) st = floe_buf_printf(b, " WITH (%s)", floe_buf_cstr(&opts));
    floe_buf_free(&opts);
    if (!st) st = floe_buf_printf(b, " AS SELECT * FROM read_parquet(");
    char *glob = NULL;
    if (!st) {
        glob = floe_malloc(dl + 16);
        if (glob) snprintf(glob, dl + 16, "%.*s/**/*.parquet", (int)dl, dir);
        st = glob ? put_literal(b, glob) : floe_error(FLOE_ERR_OUT_OF_MEMORY, "migrate: out of memory");
    }
    if (!st) st = floe_buf_printf(b, ", hive_partitioning => true) WITH NO DATA");
    floe_free(glob);
    floe_free(f.rel);
    floe_free(root);
    return st;
}

/* Run one statement on the CALL's session, keeping the CALL's own
 * statement state. */
static floe_status run_nested(floe_session *s, const char *sql) {
    const floe_sql_script *script = s->script;
    const floe_sql_stmt *stmt = s->stmt;
    int64_t t = s->stmt_time_us;
    char *branch = s->target_branch;
    s->target_branch = NULL;
    floe_result_sink none;
    memset(&none, 0, sizeof none);
    floe_status st = floe_session_execute(s, sql, &none);
    floe_free(s->target_branch);
    s->target_branch = branch;
    s->script = script;
    s->stmt = stmt;
    s->stmt_time_us = t;
    return st;
}

static floe_status import(floe_proc_call *call, bool snapshot) {
    const floe_proc_arg *sa = floe_proc_get(call, "source_table"), *ta = floe_proc_get(call, "table");
    const floe_proc_arg *par = floe_proc_get(call, "parallelism");
    if (par->given && par->i64 <= 0)
        return floe_proc_error(call, par, FLOE_ERR_INVALID_ARGUMENT, "Parallelism should be larger than 0");
    char ns[NAME_CAP], name[NAME_CAP];
    FLOE_TRY(floe_proc_table_name(call, ta, ns, NAME_CAP, name, NAME_CAP));
    char *dir = NULL;
    FLOE_TRY(proc_parquet_source(call, sa, &dir));
    const floe_proc_arg *loc = snapshot ? floe_proc_get(call, "location") : NULL;
    bool exists = false;
    floe_status st = floe_catalog_table_exists(call->s->catalog, ns, name, &exists);
    if (!st && exists)
        st = floe_proc_error(call, ta, FLOE_ERR_ALREADY_EXISTS, "Cannot create table %s.%s: it already exists", ns,
                             name);
    floe_buf sql = FLOE_BUF_INIT;
    if (!st)
        st = create_sql(call, ns, name, dir, snapshot ? (loc->given ? loc->str : NULL) : dir,
                        floe_proc_get(call, "properties"), snapshot, &sql);
    if (!st) st = run_nested(call->s, floe_buf_cstr(&sql));
    bool created = !st;
    int64_t added = 0, parts = 0;
    if (!st) st = proc_add_files_from(call, ns, name, sa, dir, NULL, true, &added, &parts);
    if (st && created) {
        floe_status dst = floe_catalog_drop_table(call->s->catalog, ns, name, false);
        if (dst) st = floe_status_wrap(st, "(and dropping the new table failed too: %s)", floe_status_message(dst));
        floe_status_free(dst);
    }
    floe_buf_free(&sql);
    floe_free(dir);
    if (st) return floe_status_wrap(st, "%s into %s.%s", call->def->name, ns, name);
    FLOE_TRY(floe_proc_add_row(call));
    return floe_proc_add_long(call, added);
}

static floe_status snapshot_proc(floe_proc_call *call) { return import(call, true); }
static floe_status migrate_proc(floe_proc_call *call) { return import(call, false); }

static const floe_proc_param k_snapshot_params[] = {
    {"source_table", FLOE_PROC_STRING, true},
    {"table", FLOE_PROC_STRING, true},
    {"location", FLOE_PROC_STRING, false},
    {"properties", FLOE_PROC_MAP, false},
    {"parallelism", FLOE_PROC_LONG, false},
};
static const floe_proc_column k_snapshot_columns[] = {{"imported_files_count", FLOE_PROC_LONG}};
const floe_proc_def floe_proc_snapshot = {"snapshot", k_snapshot_params, 5, k_snapshot_columns, 1, snapshot_proc,
                                          true};

static const floe_proc_param k_migrate_params[] = {
    {"table", FLOE_PROC_STRING, true},
    {"source_table", FLOE_PROC_STRING, true},
    {"properties", FLOE_PROC_MAP, false},
    {"drop_backup", FLOE_PROC_BOOL, false},
    {"backup_table_name", FLOE_PROC_STRING, false},
    {"parallelism", FLOE_PROC_LONG, false},
};
static const floe_proc_column k_migrate_columns[] = {{"migrated_files_count", FLOE_PROC_LONG}};
const floe_proc_def floe_proc_migrate = {"migrate", k_migrate_params, 6, k_migrate_columns, 1, migrate_proc, true};
