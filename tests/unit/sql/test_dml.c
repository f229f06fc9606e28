/*
 * test_dml.c — INSERT / INSERT OVERWRITE / CREATE TABLE AS / DELETE through
 * floe_session_execute: the write plan's shape (EXPLAIN INSERT), the
 * planner giving nodes the distribution and ordering they require, the
 * Spark syntax the parser's pre-pass accepts, result tags, and a failed
 * INSERT leaving no data file behind.  (Row-level behaviour is in
 * tests/sql/insert_*.slt and write_*.slt.)
 */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buffer.h"
#include "floe/exec_ops.h"
#include "floe/exec_scan.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "floe_test.h"
#include "sql/logical.h"
#include "sql/parse.h"

/* ---- a sink that prints results as text ------------------------------------ */

typedef struct capture {
    floe_buf text; /* rows "v|v\n", then "-- TAG n\n" */
} capture;

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
    e->sink.batch = cap_batch;
    e->sink.end = cap_end;
}

static void env_close(env *e) {
    floe_session_close(e->s);
    floe_buf_free(&e->cap.text);
}

static const char *run(env *e, const char *sql) {
    floe_buf_clear(&e->cap.text);
    floe_status st = floe_session_execute(e->s, sql, &e->sink);
    if (st) fail_msg("%s: [%s] %s", sql, floe_code_name(floe_status_code(st)), floe_status_message(st));
    return floe_buf_cstr(&e->cap.text);
}

static void assert_contains(const char *text, const char *want) {
    if (!strstr(text, want)) fail_msg("expected '%s' in:\n%s", want, text);
}

static void assert_lacks(const char *text, const char *unwanted) {
    if (strstr(text, unwanted)) fail_msg("did not expect '%s' in:\n%s", unwanted, text);
}

/* Files named *.parquet under dir, recursively. */
static int count_parquet(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) n += count_parquet(path);
        else if (strlen(ent->d_name) > 8 && strcmp(ent->d_name + strlen(ent->d_name) - 8, ".parquet") == 0) n++;
    }
    closedir(d);
    return n;
}

/* ---- tests ------------------------------------------------------------------- */

static void explain_insert_shows_the_write_plan(void **state) {
    (void)state;
    env e;
    env_open(&e, "dml_explain");
    run(&e, "SET target_partitions = 3; CREATE TABLE f (a int, b string) PARTITIONED BY (bucket(4, a), b);"
            "CREATE TABLE c (a int, b string) PARTITIONED BY (b) WITH ('write.fanout.enabled' = 'false');"
            "CREATE TABLE u (a int, b string);"
            "CREATE TABLE n (a int, b string) PARTITIONED BY (b) WITH ('write.distribution-mode' = 'none')");
    /* fanout: hash on the partition columns (#2, #3 after a, b), no sort;
     * the partition values are computed from the table columns */
    const char *t = run(&e, "EXPLAIN INSERT INTO f (b, a) SELECT 'x', 1");
    assert_contains(t, "IcebergCommit: table=default.f, kind=append");
    assert_contains(t, "CoalescePartitions");
    assert_contains(t, "IcebergWrite:");
    assert_contains(t, "Repartition: Hash([#2, #3], 3)");
    assert_contains(t, "iceberg_transform('bucket[4]', #0)");
    assert_contains(t, "iceberg_transform('identity', #1)");
    assert_lacks(t, "Sort:");
    /* clustered: the same, plus a sort on the partition column */
    t = run(&e, "EXPLAIN INSERT INTO c SELECT 1, 'x'");
    assert_contains(t, "Repartition: Hash([#2], 3)");
    assert_contains(t, "Sort:");
    assert_true(strstr(t, "Sort:") < strstr(t, "Repartition:")); /* the sort is above the exchange */
    /* unpartitioned: round robin to the writers */
    t = run(&e, "EXPLAIN INSERT INTO u VALUES (1, 'x')");
    assert_contains(t, "RoundRobin(3)");
    /* distribution mode none: no exchange at all */
    t = run(&e, "EXPLAIN INSERT INTO n VALUES (1, 'x')");
    assert_lacks(t, "Repartition");
    /* INSERT OVERWRITE commits by replacing partitions */
    t = run(&e, "EXPLAIN INSERT OVERWRITE TABLE f SELECT 1, 'x'");
    assert_contains(t, "kind=replace");
    /* nothing was written by any EXPLAIN */
    assert_string_equal(run(&e, "SELECT count(*) FROM \"f$snapshots\""), "0\n-- SELECT 1\n");
    env_close(&e);
}

static floe_expr *col(int32_t i) {
    floe_expr *c = NULL;
    assert_ok(floe_expr_column(i, &c));
    return c;
}

static void planner_provides_the_required_distribution_once(void **state) {
    (void)state;
    /* A partitioned hash join requires both inputs hash-distributed on
     * their keys: the planner puts a Repartition under each side, and a
     * second pass adds nothing (the requirement is seen as met). */
    floe_plan *l = NULL, *r = NULL, *j = NULL, *p1 = NULL, *p2 = NULL;
    assert_ok(floe_plan_generate_series(1, 100, 1, 4, "x", &l));
    assert_ok(floe_plan_generate_series(1, 50, 1, 4, "y", &r));
    floe_expr *lk = col(0), *rk = col(0);
    assert_ok(floe_plan_hash_join(l, r, FLOE_JOIN_INNER, FLOE_JOIN_PARTITIONED, &lk, &rk, 1, NULL, false, false, &j));
    assert_ok(floe_sql_enforce_requirements(j, 4, &p1));
    assert_string_equal(floe_plan_type_name(p1), "HashJoin");
    for (int32_t i = 0; i < 2; i++) {
        const floe_plan *k = floe_plan_child(p1, i);
        assert_string_equal(floe_plan_type_name(k), "Repartition");
        assert_int_equal(floe_plan_partitions(k), 4);
        assert_int_equal(floe_repartition_kind_of(k), FLOE_REPARTITION_HASH);
    }
    assert_ok(floe_sql_enforce_requirements(p1, 4, &p2));
    assert_ptr_equal(p1, p2); /* unchanged: the same node */
    /* and the rebuilt join still joins */
    floe_exec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.batch_size = 1024;
    floe_batch **bs = NULL;
    int64_t nb = 0, rows = 0;
    assert_ok(floe_exec_collect(p1, &ctx, &bs, &nb));
    for (int64_t i = 0; i < nb; i++) rows += bs[i]->num_rows;
    assert_int_equal(rows, 50);
    floe_exec_batches_free(bs, nb);
    floe_expr_release(lk);
    floe_expr_release(rk);
    floe_plan_release(l);
    floe_plan_release(r);
    floe_plan_release(j);
    floe_plan_release(p1);
    floe_plan_release(p2);
}

static void spark_insert_syntax_parses_as_insert(void **state) {
    (void)state;
    floe_sql_script *s = NULL;
    assert_ok(floe_sql_parse("INSERT OVERWRITE TABLE t SELECT 1; insert overwrite t values (2);"
                             "INSERT INTO TABLE t VALUES (3); SELECT 'insert overwrite table x'", &s));
    assert_int_equal(s->n_stmts, 4);
    for (int i = 0; i < 3; i++) assert_string_equal(s->stmts[i].kind, "InsertStmt");
    assert_non_null(floe_sql_stmt_clause(&s->stmts[0], FLOE_SQL_INSERT_OVERWRITE, -1));
    assert_non_null(floe_sql_stmt_clause(&s->stmts[1], FLOE_SQL_INSERT_OVERWRITE, -1));
    assert_null(floe_sql_stmt_clause(&s->stmts[2], FLOE_SQL_INSERT_OVERWRITE, -1));
    assert_null(floe_sql_stmt_clause(&s->stmts[3], FLOE_SQL_INSERT_OVERWRITE, -1));
    /* the original text is kept for messages */
    assert_string_equal(s->stmts[0].text, "INSERT OVERWRITE TABLE t SELECT 1");
    floe_sql_script_free(s);
}

static void statements_report_postgres_tags(void **state) {
    (void)state;
    env e;
    env_open(&e, "dml_tags");
    assert_string_equal(run(&e, "CREATE TABLE t (a int, p int) PARTITIONED BY (p)"), "-- CREATE TABLE 0\n");
    assert_string_equal(run(&e, "INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)"), "-- INSERT 0 3 3\n");
    assert_string_equal(run(&e, "INSERT INTO t SELECT a, p FROM t WHERE a < 0"), "-- INSERT 0 0 0\n");
    assert_string_equal(run(&e, "CREATE TABLE c AS SELECT * FROM t"), "-- SELECT 3 3\n");
    assert_string_equal(run(&e, "CREATE TABLE IF NOT EXISTS c AS SELECT * FROM t"), "-- CREATE TABLE AS 0\n");
    assert_string_equal(run(&e, "INSERT OVERWRITE t VALUES (9, 2)"), "-- INSERT 0 1 1\n");
    assert_string_equal(run(&e, "DELETE FROM t WHERE p = 1"), "-- DELETE 2 2\n");
    assert_string_equal(run(&e, "SELECT a, p FROM t"), "9|2\n-- SELECT 1\n");
    env_close(&e);
}

static void failed_insert_leaves_no_data_files(void **state) {
    (void)state;
    env e;
    env_open(&e, "dml_cleanup");
    run(&e, "SET target_partitions = 4; CREATE TABLE t (id int NOT NULL, g int) PARTITIONED BY (g);"
            "INSERT INTO t SELECT CAST(k AS int), CAST(k % 5 AS int) FROM generate_series(1, 100) g(k)");
    char data[4200];
    snprintf(data, sizeof data, "%s/default/t/data", e.dir);
    int before = count_parquet(data);
    assert_true(before >= 5);
    assert_error(floe_session_execute(e.s,
                                      "INSERT INTO t SELECT CASE WHEN k = 77777 THEN NULL ELSE CAST(k AS int) END, "
                                      "CAST(k % 50 AS int) FROM generate_series(1, 100000) g(k)",
                                      &e.sink),
                 FLOE_ERR_CONSTRAINT, "NULL value in required column 'id'");
    assert_int_equal(count_parquet(data), before);
    /* CREATE TABLE AS that fails is dropped with its files */
    assert_error(floe_session_execute(e.s, "CREATE TABLE c PARTITIONED BY (g) AS SELECT g, 10 / (id - 50) AS x FROM t",
                                      &e.sink),
                 FLOE_ERR_INVALID_ARGUMENT, "");
    snprintf(data, sizeof data, "%s/default/c/data", e.dir);
    assert_int_equal(count_parquet(data), 0);
    assert_error(floe_session_execute(e.s, "SELECT * FROM c", &e.sink), FLOE_ERR_NOT_FOUND, "does not exist");
    env_close(&e);
}

FLOE_TEST_MAIN(cmocka_unit_test(explain_insert_shows_the_write_plan),
               cmocka_unit_test(planner_provides_the_required_distribution_once),
               cmocka_unit_test(spark_insert_syntax_parses_as_insert),
               cmocka_unit_test(statements_report_postgres_tags),
               cmocka_unit_test(failed_insert_leaves_no_data_files))
