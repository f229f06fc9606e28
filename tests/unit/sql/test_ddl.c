/*
 * test_ddl.c — CREATE/DROP/ALTER/SHOW/DESCRIBE through floe_session_execute
 * on a SQLite catalog in a scratch warehouse, checked against the Iceberg
 * metadata the catalog then loads.
 */
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buffer.h"
#include "floe/catalog.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "floe_test.h"
#include "sql/ddl.h"
#include "sql/session_internal.h"

/* ---- a sink that prints results as text ------------------------------------ */

typedef struct capture {
    floe_buf text; /* "col|col\n" header, "v|v\n" rows, "-- TAG n\n" */
} capture;

static floe_status cap_begin(void *arg, const floe_schema *schema) {
    capture *c = arg;
    for (int32_t i = 0; i < schema->n_children; i++)
        FLOE_TRY(floe_buf_printf(&c->text, "%s%s", i ? "|" : "", schema->children[i].name));
    return floe_buf_append_byte(&c->text, '\n');
}

static floe_status cap_batch(void *arg, const floe_batch *b) {
    capture *c = arg;
    for (int64_t r = 0; r < b->num_rows; r++) {
        for (int32_t i = 0; i < b->num_columns; i++) {
            if (i) FLOE_TRY(floe_buf_append_byte(&c->text, '|'));
            FLOE_TRY(floe_format_value(b->columns[i], r, &c->text));
        }
        FLOE_TRY(floe_buf_append_byte(&c->text, '\n'));
    }
    return NULL;
}

static floe_status cap_end(void *arg, const char *tag, int64_t rows) {
    capture *c = arg;
    return floe_buf_printf(&c->text, "-- %s %lld\n", tag, (long long)rows);
}

typedef struct env {
    char dir[4096];
    floe_session *s;
    capture cap;
    floe_result_sink sink;
} env;

static void env_open(env *e, const char *name) {
    memset(e, 0, sizeof *e);
    floe_test_tmpdir(e->dir, sizeof e->dir, name);
    assert_ok(floe_session_open(e->dir, &e->s));
    e->sink.arg = &e->cap;
    e->sink.begin = cap_begin;
    e->sink.batch = cap_batch;
    e->sink.end = cap_end;
}

static void env_close(env *e) {
    floe_session_close(e->s);
    floe_buf_free(&e->cap.text);
}

/* Run SQL that must succeed; return what it printed. */
static const char *run(env *e, const char *sql) {
    floe_buf_clear(&e->cap.text);
    floe_status st = floe_session_execute(e->s, sql, &e->sink);
    if (st) fail_msg("%s: [%s] %s", sql, floe_code_name(floe_status_code(st)), floe_status_message(st));
    return floe_buf_cstr(&e->cap.text);
}

static floe_ice_table *load(env *e, const char *ns, const char *name) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(floe_session_catalog(e->s), ns, name, &t));
    return t;
}

static const floe_ice_field *column(const floe_ice_table *t, const char *name) {
    const floe_ice_field *f = floe_ice_schema_find_by_name(floe_ice_tm_current_schema(t->md), name, true);
    if (!f) fail_msg("no column '%s'", name);
    return f;
}

static void expect_type(const floe_ice_field *f, const char *want) {
    char *s = NULL;
    assert_ok(floe_ice_type_to_string(f->type, &s));
    assert_string_equal(s, want);
    floe_free(s);
}

/* ---- CREATE ----------------------------------------------------------------------- */

static void create_table_maps_sql_types_to_iceberg_types(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_types");
    assert_string_equal(run(&e, "CREATE SCHEMA db"), "-- CREATE SCHEMA 0\n");
    assert_string_equal(run(&e, "CREATE TABLE db.t (id bigint NOT NULL, n int, s smallint, r real, f float, "
                                "dp double precision, price decimal(10,2), d date, tm time, ts timestamp, "
                                "tz timestamptz, name varchar(20), txt text, b bytea, u uuid, ok boolean, "
                                "tags text[], \"Mixed\" int)"),
                        "-- CREATE TABLE 0\n");
    floe_ice_table *t = load(&e, "db", "t");
    assert_int_equal(t->md->format_version, 2);
    static const char *const want[][2] = {
        {"id", "long"}, {"n", "int"}, {"s", "int"}, {"r", "float"}, {"f", "float"}, {"dp", "double"},
        {"price", "decimal(10,2)"}, {"d", "date"}, {"tm", "time"}, {"ts", "timestamp"}, {"tz", "timestamptz"},
        {"name", "string"}, {"txt", "string"}, {"b", "binary"}, {"u", "uuid"}, {"ok", "boolean"},
        {"tags", "list<string>"}, {"Mixed", "int"}};
    const floe_ice_schema *sc = floe_ice_tm_current_schema(t->md);
    assert_int_equal(sc->root->n_fields, 18);
    for (int i = 0; i < 18; i++) {
        assert_string_equal(sc->root->fields[i].name, want[i][0]);
        assert_int_equal(sc->root->fields[i].id, i + 1); /* fresh ids in order */
        expect_type(&sc->root->fields[i], want[i][1]);
    }
    assert_true(column(t, "id")->required);
    assert_false(column(t, "n")->required);
    assert_true(floe_ice_partition_spec_is_unpartitioned(floe_ice_tm_default_spec(t->md)));
    floe_ice_table_free(t);
    env_close(&e);
}

static void create_table_with_partitioning_properties_and_key(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_partitioned");
    run(&e, "CREATE TABLE events (id bigint, ts timestamptz, kind varchar, PRIMARY KEY (id))\n"
            "PARTITIONED BY (bucket(16, id), day(ts), kind)\n"
            "WITH ('write.parquet.compression-codec' = 'zstd', format_version = 1, owner = me, answer = 42, "
            "neg = -3)");
    floe_ice_table *t = load(&e, "default", "events");
    assert_int_equal(t->md->format_version, 1);
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(t->md);
    assert_int_equal(spec->n_fields, 3);
    assert_string_equal(spec->fields[0].name, "id_bucket");
    assert_int_equal(spec->fields[0].transform.param, 16);
    assert_int_equal(spec->fields[0].source_id, column(t, "id")->id);
    assert_string_equal(spec->fields[1].name, "ts_day");
    assert_int_equal(spec->fields[1].source_id, column(t, "ts")->id);
    assert_string_equal(spec->fields[2].name, "kind");
    assert_int_equal(spec->fields[2].field_id, 1002);
    assert_string_equal(floe_ice_tm_property(t->md, "write.parquet.compression-codec"), "zstd");
    assert_string_equal(floe_ice_tm_property(t->md, "owner"), "me");
    assert_string_equal(floe_ice_tm_property(t->md, "answer"), "42");
    assert_string_equal(floe_ice_tm_property(t->md, "neg"), "-3");
    assert_null(floe_ice_tm_property(t->md, "format_version"));
    /* PRIMARY KEY: required identifier field. */
    const floe_ice_schema *sc = floe_ice_tm_current_schema(t->md);
    assert_int_equal(sc->n_identifier_field_ids, 1);
    assert_int_equal(sc->identifier_field_ids[0], column(t, "id")->id);
    assert_true(column(t, "id")->required);
    /* The table lives at the catalog's default location. */
    char path[4200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/default/events/metadata", e.dir);
    assert_int_equal(stat(path, &sb), 0);
    floe_ice_table_free(t);
    env_close(&e);
}

static void create_table_if_not_exists_and_duplicates(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_dup");
    run(&e, "CREATE TABLE t (a int)");
    assert_string_equal(run(&e, "CREATE TABLE IF NOT EXISTS t (b int)"), "-- CREATE TABLE 0\n");
    floe_ice_table *t = load(&e, "default", "t");
    column(t, "a"); /* the first definition stays */
    floe_ice_table_free(t);
    assert_error(floe_session_execute(e.s, "CREATE TABLE t (a int)", &e.sink), FLOE_ERR_ALREADY_EXISTS,
                 "table default.t already exists");
    assert_error(floe_session_execute(e.s, "CREATE TABLE u (a int, b int, a text)", &e.sink),
                 FLOE_ERR_ALREADY_EXISTS, "line 1, column 31: column 'a' is specified more than once");
    assert_error(floe_session_execute(e.s, "CREATE TABLE nosuch.t (a int)", &e.sink), FLOE_ERR_NOT_FOUND,
                 "schema 'nosuch' does not exist");
    assert_error(floe_session_execute(e.s, "CREATE SCHEMA \"default\"", &e.sink), FLOE_ERR_ALREADY_EXISTS, "");
    run(&e, "CREATE SCHEMA IF NOT EXISTS \"default\"");
    env_close(&e);
}

static void unsupported_create_forms_are_refused_with_their_position(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_unsupported");
    assert_error(floe_session_execute(e.s, "CREATE TABLE t (a int DEFAULT 3)", &e.sink), FLOE_ERR_UNSUPPORTED,
                 "line 1, column 23: column 'a': DEFAULT constraints are not supported");
    assert_error(floe_session_execute(e.s, "CREATE TABLE t (a int, UNIQUE (a))", &e.sink), FLOE_ERR_UNSUPPORTED,
                 "UNIQUE constraints are not supported");
    assert_error(floe_session_execute(e.s, "CREATE TEMP TABLE t (a int)", &e.sink), FLOE_ERR_UNSUPPORTED,
                 "TEMPORARY");
    assert_error(floe_session_execute(e.s, "CREATE MATERIALIZED VIEW t AS SELECT 1 AS a", &e.sink),
                 FLOE_ERR_UNSUPPORTED, "materialized views are not supported");
    assert_error(floe_session_execute(e.s, "CREATE TABLE t (a nosuchtype)", &e.sink), FLOE_ERR_NOT_FOUND,
                 "line 1, column 19: unknown type 'nosuchtype'");
    assert_error(floe_session_execute(e.s, "CREATE TABLE t (a int, ts timestamp)\n  PARTITIONED BY (a, yeer(ts))",
                                      &e.sink),
                 FLOE_ERR_NOT_FOUND, "line 2, column 22: unknown partition transform 'yeer' (did you mean 'year'?)");
    assert_error(floe_session_execute(e.s, "CREATE TABLE t (a int) PARTITIONED BY (year(a))", &e.sink),
                 FLOE_ERR_TYPE, "year() cannot apply to column 'a' of type int");
    assert_error(floe_session_execute(e.s, "CREATE TABLE t (a int) WITH (format_version = 7)", &e.sink),
                 FLOE_ERR_INVALID_ARGUMENT, "format_version must be 1, 2 or 3");
    assert_error(floe_session_execute(e.s, "CREATE TABLE \"a/b\" (a int)", &e.sink), FLOE_ERR_INVALID_ARGUMENT,
                 "may not contain '/'");
    assert_error(floe_session_execute(e.s, "CREATE TABLE \"t$x\" (a int)", &e.sink), FLOE_ERR_INVALID_ARGUMENT,
                 "may not contain '$'");
    assert_error(floe_session_execute(e.s, "CREATE TABLE other.\"default\".t (a int)", &e.sink), FLOE_ERR_NOT_FOUND,
                 "unknown catalog 'other'");
    /* Nothing was created by any of them. */
    assert_string_equal(run(&e, "SHOW TABLES"), "table_name\n-- SHOW 0\n");
    env_close(&e);
}

/* ---- SHOW and DESCRIBE ----------------------------------------------------------- */

static void show_and_describe_list_what_exists(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_show");
    run(&e, "CREATE SCHEMA sales; CREATE TABLE sales.orders (id bigint NOT NULL, amount decimal(12,2), "
            "tags text[]); CREATE TABLE sales.customers (id int)");
    assert_string_equal(run(&e, "SHOW SCHEMAS"), "schema_name\ndefault\nsales\n-- SHOW 2\n");
    assert_string_equal(run(&e, "SHOW TABLES FROM sales"), "table_name\ncustomers\norders\n-- SHOW 2\n");
    assert_string_equal(run(&e, "SHOW TABLES"), "table_name\n-- SHOW 0\n");
    assert_string_equal(run(&e, "DESCRIBE sales.orders"),
                        "column_name|data_type|nullable|comment\n"
                        "id|bigint|NO|NULL\n"
                        "amount|decimal(12,2)|YES|NULL\n"
                        "tags|varchar[]|YES|NULL\n"
                        "-- DESCRIBE 3\n");
    const char *out = run(&e, "DESCRIBE sales.\"orders$snapshots\"");
    assert_non_null(strstr(out, "committed_at|timestamptz|NO|NULL\n"));
    assert_non_null(strstr(out, "summary|varchar|YES|NULL\n"));
    out = run(&e, "DESCRIBE sales.\"orders$files\"");
    assert_non_null(strstr(out, "split_offsets|bigint[]|YES|NULL\n"));
    assert_non_null(strstr(out, "column_sizes|map<int32, int64>|YES|NULL\n"));
    assert_error(floe_session_execute(e.s, "SHOW TABLES FROM sale", &e.sink), FLOE_ERR_NOT_FOUND,
                 "schema 'sale' does not exist (did you mean 'sales'?)");
    assert_error(floe_session_execute(e.s, "DESCRIBE sales.order", &e.sink), FLOE_ERR_NOT_FOUND, "did you mean");
    env_close(&e);
}

/* ---- ALTER ------------------------------------------------------------------------ */

static void alter_table_evolves_the_schema_by_id(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_alter");
    run(&e, "CREATE TABLE t (id int NOT NULL, price real, note text, old text)");
    floe_ice_table *t = load(&e, "default", "t");
    int32_t id_id = column(t, "id")->id, note_id = column(t, "note")->id;
    floe_ice_table_free(t);

    assert_string_equal(run(&e, "ALTER TABLE t ADD COLUMN qty bigint, DROP COLUMN old, "
                                "ALTER COLUMN id TYPE bigint, ALTER COLUMN price SET DATA TYPE double precision, "
                                "ALTER COLUMN id DROP NOT NULL"),
                        "-- ALTER TABLE 0\n");
    run(&e, "ALTER TABLE t RENAME COLUMN note TO comment");
    t = load(&e, "default", "t");
    expect_type(column(t, "id"), "long");
    assert_false(column(t, "id")->required);
    assert_int_equal(column(t, "id")->id, id_id);
    expect_type(column(t, "price"), "double");
    expect_type(column(t, "qty"), "long");
    assert_int_equal(column(t, "comment")->id, note_id); /* renamed, same id */
    assert_null(floe_ice_schema_find_by_name(floe_ice_tm_current_schema(t->md), "old", true));
    assert_true(column(t, "qty")->id > 4); /* never reuses the dropped id */
    /* One commit for the whole statement, one for the rename. */
    assert_int_equal(t->md->n_metadata_log, 2);
    floe_ice_table_free(t);

    /* An empty table may take a required column and a NOT NULL. */
    run(&e, "ALTER TABLE t ADD COLUMN must int NOT NULL; ALTER TABLE t ALTER COLUMN qty SET NOT NULL");
    t = load(&e, "default", "t");
    assert_true(column(t, "must")->required);
    assert_true(column(t, "qty")->required);
    floe_ice_table_free(t);

    /* IF [NOT] EXISTS forms change nothing when there is nothing to do. */
    run(&e, "ALTER TABLE t ADD COLUMN IF NOT EXISTS qty text, DROP COLUMN IF EXISTS nosuch");
    run(&e, "ALTER TABLE IF EXISTS nosuch ADD COLUMN x int");
    t = load(&e, "default", "t");
    expect_type(column(t, "qty"), "long");
    floe_ice_table_free(t);

    assert_error(floe_session_execute(e.s, "ALTER TABLE t ALTER COLUMN qty TYPE int", &e.sink), FLOE_ERR_TYPE,
                 "cannot change column 'qty' from long to int");
    assert_error(floe_session_execute(e.s, "ALTER TABLE t DROP COLUMN nosuch", &e.sink), FLOE_ERR_NOT_FOUND,
                 "unknown column 'nosuch'");
    assert_error(floe_session_execute(e.s, "ALTER TABLE t ADD COLUMN qty int", &e.sink), FLOE_ERR_ALREADY_EXISTS,
                 "");
    assert_error(floe_session_execute(e.s, "ALTER TABLE t ALTER COLUMN qty TYPE bigint USING qty + 1", &e.sink),
                 FLOE_ERR_UNSUPPORTED, "USING is not supported");
    assert_error(floe_session_execute(e.s, "ALTER TABLE t ALTER COLUMN qty SET DEFAULT 1", &e.sink),
                 FLOE_ERR_UNSUPPORTED, "ALTER TABLE ColumnDefault is not supported");
    assert_error(floe_session_execute(e.s, "ALTER TABLE nosuch ADD COLUMN x int", &e.sink), FLOE_ERR_NOT_FOUND,
                 "line 1, column 13:");
    /* A failing command in a list leaves the table as it was. */
    assert_error(floe_session_execute(e.s, "ALTER TABLE t ADD COLUMN fresh int, DROP COLUMN nosuch", &e.sink),
                 FLOE_ERR_NOT_FOUND, "");
    t = load(&e, "default", "t");
    assert_null(floe_ice_schema_find_by_name(floe_ice_tm_current_schema(t->md), "fresh", true));
    floe_ice_table_free(t);
    env_close(&e);
}

static void alter_table_sets_and_resets_properties(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_props");
    run(&e, "CREATE TABLE t (a int) WITH (keep = 'yes')");
    run(&e, "ALTER TABLE t SET ('write.target-file-size-bytes' = '1048576', flag = true, n = 5)");
    floe_ice_table *t = load(&e, "default", "t");
    assert_string_equal(floe_ice_tm_property(t->md, "write.target-file-size-bytes"), "1048576");
    assert_string_equal(floe_ice_tm_property(t->md, "flag"), "true");
    assert_string_equal(floe_ice_tm_property(t->md, "n"), "5");
    assert_string_equal(floe_ice_tm_property(t->md, "keep"), "yes");
    floe_ice_table_free(t);
    run(&e, "ALTER TABLE t RESET ('write.target-file-size-bytes', flag, notset)");
    t = load(&e, "default", "t");
    assert_null(floe_ice_tm_property(t->md, "write.target-file-size-bytes"));
    assert_null(floe_ice_tm_property(t->md, "flag"));
    assert_string_equal(floe_ice_tm_property(t->md, "n"), "5");
    floe_ice_table_free(t);
    /* format_version: an upgrade (Spark's), never a downgrade; not a property */
    assert_error(floe_session_execute(e.s, "ALTER TABLE t SET (format_version = 1)", &e.sink),
                 FLOE_ERR_INVALID_ARGUMENT, "Cannot downgrade v2 table to v1");
    assert_error(floe_session_execute(e.s, "ALTER TABLE t RESET (format_version)", &e.sink), FLOE_ERR_UNSUPPORTED,
                 "format version");
    run(&e, "ALTER TABLE t SET (format_version = 3)");
    t = load(&e, "default", "t");
    assert_int_equal(t->md->format_version, 3);
    assert_true(t->md->has_next_row_id);
    assert_null(floe_ice_tm_property(t->md, "format_version"));
    assert_string_equal(floe_ice_tm_property(t->md, "n"), "5");
    floe_ice_table_free(t);
    /* $properties shows them. */
    assert_non_null(strstr(run(&e, "DESCRIBE \"t$properties\""), "key|varchar|NO|NULL"));
    env_close(&e);
}

static void rename_and_move_tables(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_rename");
    run(&e, "CREATE SCHEMA other; CREATE TABLE t (a int)");
    run(&e, "ALTER TABLE t RENAME TO u");
    assert_string_equal(run(&e, "SHOW TABLES"), "table_name\nu\n-- SHOW 1\n");
    run(&e, "ALTER TABLE u SET SCHEMA other");
    assert_string_equal(run(&e, "SHOW TABLES"), "table_name\n-- SHOW 0\n");
    assert_string_equal(run(&e, "SHOW TABLES FROM other"), "table_name\nu\n-- SHOW 1\n");
    floe_ice_table *t = load(&e, "other", "u");
    column(t, "a");
    floe_ice_table_free(t);
    run(&e, "ALTER TABLE IF EXISTS nosuch RENAME TO v");
    assert_error(floe_session_execute(e.s, "ALTER TABLE other.u SET SCHEMA nosuch", &e.sink), FLOE_ERR_NOT_FOUND,
                 "schema 'nosuch' does not exist");
    assert_error(floe_session_execute(e.s, "ALTER TABLE other.x RENAME TO y", &e.sink), FLOE_ERR_NOT_FOUND, "");
    env_close(&e);
}

/* ---- DROP ------------------------------------------------------------------------- */

static bool exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void drop_table_and_schema(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_drop");
    run(&e, "CREATE SCHEMA s; CREATE TABLE s.a (x int); CREATE TABLE s.b (x int); CREATE TABLE s.c (x int)");
    assert_error(floe_session_execute(e.s, "DROP TABLE s.a, s.nosuch", &e.sink), FLOE_ERR_NOT_FOUND, "");
    assert_string_equal(run(&e, "SHOW TABLES FROM s"), "table_name\na\nb\nc\n-- SHOW 3\n"); /* none dropped */
    assert_string_equal(run(&e, "DROP TABLE s.a"), "-- DROP TABLE 0\n");
    run(&e, "DROP TABLE IF EXISTS s.a, s.nosuch");
    char path[4200];
    snprintf(path, sizeof path, "%s/s/b/metadata", e.dir);
    assert_true(exists(path));
    /* PURGE: the parser's pre-pass removes the word from what PostgreSQL's
     * grammar sees; the statement text keeps it. */
    floe_sql_script *script = NULL;
    assert_ok(floe_sql_parse("DROP TABLE s.b", &script));
    floe_sql_stmt stmt = script->stmts[0];
    char *text = stmt.text;
    stmt.text = "DROP TABLE s.b PURGE -- gone";
    bool handled = false;
    assert_ok(floe_sql_exec_utility(e.s, &stmt, &e.sink, &handled));
    assert_true(handled);
    stmt.text = text;
    floe_sql_script_free(script);
    assert_false(exists(path));
    /* A table called purge is not a PURGE. */
    run(&e, "CREATE TABLE s.purge (x int)");
    snprintf(path, sizeof path, "%s/s/purge/metadata", e.dir);
    run(&e, "DROP TABLE s.purge");
    assert_true(exists(path));
    assert_error(floe_session_execute(e.s, "DROP SCHEMA s", &e.sink), FLOE_ERR_CONFLICT, "");
    assert_string_equal(run(&e, "DROP SCHEMA s CASCADE"), "-- DROP SCHEMA 0\n");
    assert_string_equal(run(&e, "SHOW SCHEMAS"), "schema_name\ndefault\n-- SHOW 1\n");
    run(&e, "DROP SCHEMA IF EXISTS s");
    assert_error(floe_session_execute(e.s, "DROP SCHEMA s", &e.sink), FLOE_ERR_NOT_FOUND, "schema 's' does not exist");
    assert_error(floe_session_execute(e.s, "DROP VIEW v", &e.sink), FLOE_ERR_NOT_FOUND, "view default.v does not exist");
    env_close(&e);
}

/* ---- concurrent commits ------------------------------------------------------------ */

typedef struct writer {
    const char *dir;
    int which;
    floe_status st;
} writer;

static void *write_properties(void *arg) {
    writer *w = arg;
    floe_session *s = NULL;
    w->st = floe_session_open(w->dir, &s);
    for (int i = 0; i < 10 && !w->st; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "ALTER TABLE t SET ('w%d.k%d' = 'v')", w->which, i);
        w->st = floe_session_execute(s, sql, NULL);
    }
    floe_session_close(s);
    return NULL;
}

static void concurrent_alters_all_land_through_retries(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_concurrent");
    run(&e, "CREATE TABLE t (a int)");
    pthread_t th[2];
    writer w[2] = {{e.dir, 0, NULL}, {e.dir, 1, NULL}};
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, write_properties, &w[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) assert_ok(w[i].st);
    floe_ice_table *t = load(&e, "default", "t");
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 10; k++) {
            char key[32];
            snprintf(key, sizeof key, "w%d.k%d", i, k);
            if (!floe_ice_tm_property(t->md, key)) fail_msg("property %s was lost", key);
        }
    floe_ice_table_free(t);
    env_close(&e);
}

static void statements_that_are_not_ddl_are_left_alone(void **state) {
    (void)state;
    env e;
    env_open(&e, "ddl_other");
    floe_sql_script *script = NULL;
    assert_ok(floe_sql_parse("SELECT 1; SHOW batch_size", &script));
    for (int32_t i = 0; i < script->n_stmts; i++) {
        bool handled = true;
        assert_ok(floe_sql_exec_utility(e.s, &script->stmts[i], &e.sink, &handled));
        assert_false(handled);
    }
    floe_sql_script_free(script);
    env_close(&e);
}

FLOE_TEST_MAIN(cmocka_unit_test(create_table_maps_sql_types_to_iceberg_types),
               cmocka_unit_test(create_table_with_partitioning_properties_and_key),
               cmocka_unit_test(create_table_if_not_exists_and_duplicates),
               cmocka_unit_test(unsupported_create_forms_are_refused_with_their_position),
               cmocka_unit_test(show_and_describe_list_what_exists),
               cmocka_unit_test(alter_table_evolves_the_schema_by_id),
               cmocka_unit_test(alter_table_sets_and_resets_properties),
               cmocka_unit_test(rename_and_move_tables),
               cmocka_unit_test(drop_table_and_schema),
               cmocka_unit_test(concurrent_alters_all_land_through_retries),
               cmocka_unit_test(statements_that_are_not_ddl_are_left_alone))
