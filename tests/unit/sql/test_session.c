/*
 * test_session.c — SQL end to end through floe_session_execute: results
 * streamed to a sink (rows rendered as text), command tags, options,
 * EXPLAIN, COPY TO Parquet read back with read_parquet, errors with
 * positions, and Iceberg tables of the shared test data (iceberg_scan with
 * time travel).
 */
#include "floe_test.h"

#include "base/buffer.h"
#include "floe/memory.h"
#include "floe/session.h"

/* A sink that renders every row as "a|b|c\n" and remembers the tag. */
typedef struct text_sink {
    floe_buf rows;
    char tag[64];
    int64_t n;
    char cols[256];
} text_sink;

static floe_status ts_begin(void *arg, const floe_schema *schema) {
    text_sink *t = arg;
    t->cols[0] = 0;
    for (int32_t i = 0; i < floe_schema_num_fields(schema); i++) {
        if (i) strncat(t->cols, ",", sizeof t->cols - strlen(t->cols) - 1);
        strncat(t->cols, floe_schema_field(schema, i)->name, sizeof t->cols - strlen(t->cols) - 1);
    }
    return NULL;
}

static floe_status ts_batch(void *arg, const floe_batch *b) {
    text_sink *t = arg;
    for (int64_t r = 0; r < b->num_rows; r++) {
        for (int32_t c = 0; c < b->num_columns; c++) {
            if (c) FLOE_TRY(floe_buf_append_byte(&t->rows, '|'));
            FLOE_TRY(floe_format_value(b->columns[c], r, &t->rows));
        }
        FLOE_TRY(floe_buf_append_byte(&t->rows, '\n'));
    }
    return NULL;
}

static floe_status ts_end(void *arg, const char *tag, int64_t rows) {
    text_sink *t = arg;
    snprintf(t->tag, sizeof t->tag, "%s", tag);
    t->n = rows;
    return NULL;
}

static floe_result_sink sink_of(text_sink *t) {
    floe_buf_init(&t->rows);
    t->tag[0] = 0;
    t->n = -1;
    floe_result_sink s = {t, ts_begin, ts_batch, ts_end, NULL};
    return s;
}

static int setup(void **state) {
    char dir[1024];
    floe_test_tmpdir(dir, sizeof dir, "sql_session");
    floe_session *s = NULL;
    assert_ok(floe_session_open(dir, &s));
    *state = s;
    return 0;
}

static int teardown(void **state) {
    floe_session_close(*state);
    return 0;
}

/* Run SQL and compare the rendered rows. */
static void expect_rows(floe_session *s, const char *sql, const char *want) {
    text_sink t;
    floe_result_sink k = sink_of(&t);
    floe_status st = floe_session_execute(s, sql, &k);
    if (st) fail_msg("%s: %s", sql, floe_status_message(st));
    if (strcmp(floe_buf_cstr(&t.rows), want) != 0)
        fail_msg("%s:\n got: %s\nwant: %s", sql, floe_buf_cstr(&t.rows), want);
    floe_buf_free(&t.rows);
}

static void constant_select_returns_one_row(void **state) {
    floe_session *s = *state;
    text_sink t;
    floe_result_sink k = sink_of(&t);
    assert_ok(floe_session_execute(s, "SELECT 1 + 1 AS two, 'x' || 'y' AS xy, 2.50 * 2 AS d", &k));
    assert_string_equal(floe_buf_cstr(&t.rows), "2|xy|5.00\n");
    assert_string_equal(t.cols, "two,xy,d");
    assert_string_equal(t.tag, "SELECT");
    assert_int_equal(t.n, 1);
    floe_buf_free(&t.rows);
}

static void aggregates_over_generate_series(void **state) {
    expect_rows(*state, "SELECT count(*), sum(g), min(g), max(g) FROM generate_series(1, 100) g", "100|5050|1|100\n");
    expect_rows(*state, "SELECT g % 3 AS k, count(*) AS n FROM generate_series(1, 10) g GROUP BY 1 ORDER BY k",
                "0|3\n1|4\n2|3\n");
    expect_rows(*state, "SELECT g FROM generate_series(1, 10) g WHERE g > 3 ORDER BY g DESC LIMIT 3 OFFSET 1",
                "9\n8\n7\n");
}

static void values_order_nulls_like_postgres(void **state) {
    expect_rows(*state, "SELECT column1 FROM (VALUES (2), (NULL), (1)) v ORDER BY 1", "1\n2\nNULL\n");
    expect_rows(*state, "SELECT column1 FROM (VALUES (2), (NULL), (1)) v ORDER BY 1 DESC", "NULL\n2\n1\n");
    expect_rows(*state, "SELECT a, b FROM (VALUES (1, 'x'), (2, 'y')) AS v(a, b) WHERE b = 'y'", "2|y\n");
}

static void date_arithmetic_and_set_operations(void **state) {
    expect_rows(*state, "SELECT DATE '2024-02-28' + 1, DATE '2024-03-01' - DATE '2024-02-01', DATE '2024-03-01' - 1",
                "2024-02-29|29|2024-02-29\n");
    expect_rows(*state,
                "SELECT x FROM (VALUES (1), (2), (NULL), (3)) a(x) EXCEPT SELECT y FROM (VALUES (2), (NULL)) b(y) "
                "ORDER BY 1",
                "1\n3\n");
    expect_rows(*state,
                "SELECT x FROM (VALUES (1), (2), (NULL)) a(x) INTERSECT SELECT y FROM (VALUES (2), (NULL), (2)) b(y) "
                "ORDER BY 1",
                "2\nNULL\n");
    expect_rows(*state, "SELECT '\\x0102ff'::bytea", "\\x0102ff\n");
}

static void correlated_scalar_subqueries_aggregate_per_key(void **state) {
    expect_rows(*state,
                "SELECT a.x, (SELECT count(*) FROM (VALUES (1, 10), (1, 20), (2, 30)) b(k, v) WHERE b.k = a.x) "
                "FROM (VALUES (1), (2), (3)) a(x) ORDER BY 1",
                "1|2\n2|1\n3|0\n");
    expect_rows(*state,
                "SELECT a.x FROM (VALUES (1, 14), (2, 40), (3, 1)) a(x, y) WHERE a.y < (SELECT avg(v) FROM "
                "(VALUES (1, 10), (1, 20), (2, 30)) b(k, v) WHERE b.k = a.x)",
                "1\n");
}

static void set_show_reset_through_sql(void **state) {
    floe_session *s = *state;
    expect_rows(s, "SET batch_size = 100; SHOW batch_size", "100\n");
    expect_rows(s, "RESET batch_size; SHOW batch_size", "8192\n");
    text_sink t;
    floe_result_sink k = sink_of(&t);
    assert_error(floe_session_execute(s, "SET batch_sise TO 5", &k), FLOE_ERR_NOT_FOUND, "did you mean 'batch_size'");
    floe_buf_free(&t.rows);
}

static void syntax_and_name_errors_have_positions(void **state) {
    floe_session *s = *state;
    text_sink t;
    floe_result_sink k = sink_of(&t);
    assert_error(floe_session_execute(s, "SELECT 1;\nSELECT * FORM x", &k), FLOE_ERR_SYNTAX, "line 2, column 10");
    assert_error(floe_session_execute(s, "SELECT nope FROM generate_series(1, 2) g", &k), FLOE_ERR_NOT_FOUND,
                 "line 1, column 8: unknown column 'nope'");
    assert_error(floe_session_execute(s, "SELECT * FROM missing_table", &k), FLOE_ERR_NOT_FOUND, "missing_table");
    floe_buf_free(&t.rows);
}

static void explain_lists_the_plan(void **state) {
    floe_session *s = *state;
    text_sink t;
    floe_result_sink k = sink_of(&t);
    assert_ok(floe_session_execute(s, "EXPLAIN SELECT g FROM generate_series(1, 10) g WHERE g > 5", &k));
    assert_string_equal(t.cols, "plan");
    assert_non_null(strstr(floe_buf_cstr(&t.rows), "GenerateSeries"));
    assert_non_null(strstr(floe_buf_cstr(&t.rows), "Filter"));
    assert_string_equal(t.tag, "EXPLAIN");
    floe_buf_clear(&t.rows);
    assert_ok(floe_session_execute(s, "EXPLAIN ANALYZE SELECT count(*) FROM generate_series(1, 10) g", &k));
    assert_non_null(strstr(floe_buf_cstr(&t.rows), "rows="));
    floe_buf_free(&t.rows);
}

static void copy_to_parquet_reads_back(void **state) {
    floe_session *s = *state;
    char dir[1024], sql[2400];
    floe_test_tmpdir(dir, sizeof dir, "sql_session_copy");
    snprintf(sql, sizeof sql, "COPY (SELECT g AS id, g * 2 AS twice FROM generate_series(1, 1000) g) TO '%s/out.parquet'",
             dir);
    text_sink t;
    floe_result_sink k = sink_of(&t);
    assert_ok(floe_session_execute(s, sql, &k));
    assert_string_equal(t.tag, "COPY 1000");
    floe_buf_free(&t.rows);
    snprintf(sql, sizeof sql, "SELECT count(*), sum(twice) FROM read_parquet('%s/*.parquet')", dir);
    expect_rows(s, sql, "1000|1001000\n");
}

static void iceberg_scan_with_time_travel(void **state) {
    FLOE_NEED_TESTDATA(td);
    floe_session *s = *state;
    char sql[2400];
    const char *t = "duckdb__duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg";
    snprintf(sql, sizeof sql, "SELECT count(*) FROM iceberg_scan('%s/%s', allow_moved_paths => true)", td, t);
    expect_rows(s, sql, "51793\n");
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM iceberg_scan('%s/%s', allow_moved_paths => true, snapshot_id => 7817332053627255703)",
             td, t);
    expect_rows(s, sql, "60175\n");
    snprintf(sql, sizeof sql,
             "SELECT l_returnflag, count(*) FROM iceberg_scan('%s/%s', allow_moved_paths => true) "
             "WHERE l_shipdate <= date '1998-12-01' - interval '90' day GROUP BY 1 ORDER BY 1",
             td, t);
    text_sink ts;
    floe_result_sink k = sink_of(&ts);
    assert_ok(floe_session_execute(s, sql, &k));
    assert_int_equal(ts.n, 3);
    floe_buf_free(&ts.rows);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup_teardown(constant_select_returns_one_row, setup, teardown),
               cmocka_unit_test_setup_teardown(aggregates_over_generate_series, setup, teardown),
               cmocka_unit_test_setup_teardown(values_order_nulls_like_postgres, setup, teardown),
               cmocka_unit_test_setup_teardown(date_arithmetic_and_set_operations, setup, teardown),
               cmocka_unit_test_setup_teardown(correlated_scalar_subqueries_aggregate_per_key, setup, teardown),
               cmocka_unit_test_setup_teardown(set_show_reset_through_sql, setup, teardown),
               cmocka_unit_test_setup_teardown(syntax_and_name_errors_have_positions, setup, teardown),
               cmocka_unit_test_setup_teardown(explain_lists_the_plan, setup, teardown),
               cmocka_unit_test_setup_teardown(copy_to_parquet_reads_back, setup, teardown),
               cmocka_unit_test_setup_teardown(iceberg_scan_with_time_travel, setup, teardown))
