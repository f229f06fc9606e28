/*
 * test_parse.c — floe_sql_parse: statement splitting and spans, syntax
 * errors with line and column, the pre-pass that cuts floe's
 * non-PostgreSQL clauses out (and leaves strings and comments alone), and
 * the JSON node accessors.
 */
#include "floe_test.h"

#include "floe/memory.h"
#include "sql/parse.h"
#include "sql/pgnode.h"

static floe_sql_script *parse_ok(const char *sql) {
    floe_sql_script *s = NULL;
    assert_ok(floe_sql_parse(sql, &s));
    assert_non_null(s);
    return s;
}

static void script_splits_into_statements_with_spans(void **state) {
    (void)state;
    const char *sql = "SELECT 1;\n  select 'a;b' -- c;\n ;CREATE TABLE t (a int)";
    floe_sql_script *s = parse_ok(sql);
    assert_int_equal(s->n_stmts, 3);
    assert_string_equal(s->stmts[0].kind, "SelectStmt");
    assert_string_equal(s->stmts[0].text, "SELECT 1");
    assert_int_equal(s->stmts[0].location, 0);
    assert_string_equal(s->stmts[1].kind, "SelectStmt");
    assert_true(strncmp(s->stmts[1].text, "select 'a;b'", 12) == 0);
    assert_string_equal(s->stmts[2].kind, "CreateStmt");
    assert_string_equal(s->stmts[2].text, "CREATE TABLE t (a int)");
    floe_sql_script_free(s);
}

static void empty_script_has_no_statements(void **state) {
    (void)state;
    floe_sql_script *s = parse_ok("  -- nothing\n ; ");
    assert_int_equal(s->n_stmts, 0);
    floe_sql_script_free(s);
}

static void syntax_error_names_line_and_column(void **state) {
    (void)state;
    floe_sql_script *s = NULL;
    assert_error(floe_sql_parse("SELECT a FORM t", &s), FLOE_ERR_SYNTAX,
                 "line 1, column 15: syntax error at or near \"t\"");
    assert_error(floe_sql_parse("SELECT 1;\nSELECT * FROM\n  WHERE x", &s), FLOE_ERR_SYNTAX,
                 "line 3, column 3: syntax error at or near \"WHERE\"");
    assert_error(floe_sql_parse("SELECT (1", &s), FLOE_ERR_SYNTAX, "line 1, column 10: syntax error at end of input");
    assert_null(s);
}

static void partitioned_by_is_cut_out_and_recorded(void **state) {
    (void)state;
    const char *sql = "CREATE TABLE db.t (id bigint, ts timestamp) PARTITIONED BY (bucket(16, id), days(ts)) "
                      "WITH ('write.format.default' = 'parquet', format_version = '2')";
    floe_sql_script *s = parse_ok(sql);
    assert_int_equal(s->n_stmts, 1);
    const floe_sql_stmt *st = &s->stmts[0];
    assert_string_equal(st->kind, "CreateStmt");
    const floe_sql_clause *c = floe_sql_stmt_clause(st, FLOE_SQL_PARTITIONED_BY, -1);
    assert_non_null(c);
    assert_string_equal(c->text, "bucket(16, id), days(ts)");
    /* The quoted property key arrives as the DefElem's name. */
    c = floe_sql_stmt_clause(st, FLOE_SQL_PROPERTY_KEY, -1);
    assert_non_null(c);
    assert_string_equal(c->text, "write.format.default");
    json_t *opts = floe_pg_get(floe_pg_node_body(st->node), "options");
    assert_int_equal(floe_pg_list_len(opts), 2);
    json_t *d0 = floe_pg_as(floe_pg_list_at(opts, 0), "DefElem");
    assert_string_equal(floe_pg_get_str(d0, "defname"), "write.format.default");
    /* The statement's text is the original. */
    assert_non_null(strstr(st->text, "PARTITIONED BY (bucket(16, id)"));
    floe_sql_script_free(s);
}

static void time_travel_records_table_location(void **state) {
    (void)state;
    const char *sql = "SELECT * FROM db.t FOR SYSTEM_VERSION AS OF 123 AS x JOIN u FOR SYSTEM_TIME AS OF "
                      "TIMESTAMP '2024-01-02 03:04:05' ON true";
    floe_sql_script *s = parse_ok(sql);
    const floe_sql_stmt *st = &s->stmts[0];
    const floe_sql_clause *v = floe_sql_stmt_clause(st, FLOE_SQL_AS_OF_VERSION, -1);
    assert_non_null(v);
    assert_string_equal(v->text, "123");
    assert_false(v->is_string);
    assert_int_equal(v->location, 14); /* "db" */
    const floe_sql_clause *t = floe_sql_stmt_clause(st, FLOE_SQL_AS_OF_TIME, -1);
    assert_non_null(t);
    assert_string_equal(t->text, "2024-01-02 03:04:05");
    assert_true(t->is_string);
    assert_int_equal(t->location, (int)(strstr(sql, "u FOR") - sql));
    /* The RangeVar's location is the clause's. */
    json_t *from = floe_pg_get(floe_pg_node_body(st->node), "fromClause");
    json_t *join = floe_pg_as(floe_pg_list_at(from, 0), "JoinExpr");
    assert_int_equal(floe_pg_location(floe_pg_get(join, "larg")), 14);
    floe_sql_script_free(s);
}

static void time_travel_after_table_function_uses_call_location(void **state) {
    (void)state;
    const char *sql = "SELECT count(*) FROM iceberg_scan('/x', allow_moved_paths => true) FOR SYSTEM_VERSION AS OF 42";
    floe_sql_script *s = parse_ok(sql);
    const floe_sql_clause *v = floe_sql_stmt_clause(&s->stmts[0], FLOE_SQL_AS_OF_VERSION, -1);
    assert_non_null(v);
    assert_string_equal(v->text, "42");
    assert_int_equal(v->location, (int)(strstr(sql, "iceberg_scan") - sql));
    floe_sql_script_free(s);
}

static void strings_and_comments_are_untouched(void **state) {
    (void)state;
    const char *sql = "SELECT 'PARTITIONED BY (x)' AS a /* FOR SYSTEM_VERSION AS OF 1 */, 'k' = 'v' FROM t";
    floe_sql_script *s = parse_ok(sql);
    assert_int_equal(s->stmts[0].n_clauses, 0);
    json_t *tl = floe_pg_get(floe_pg_node_body(s->stmts[0].node), "targetList");
    json_t *rt = floe_pg_as(floe_pg_list_at(tl, 0), "ResTarget");
    floe_pg_const c = floe_pg_const_of(floe_pg_get(rt, "val"));
    assert_int_equal(c.kind, FLOE_PG_CONST_STRING);
    assert_string_equal(c.text, "PARTITIONED BY (x)");
    floe_sql_script_free(s);
}

static void describe_and_show_tables_from(void **state) {
    (void)state;
    floe_sql_script *s = parse_ok("describe db.t; SHOW TABLES FROM db; SHOW TABLES");
    assert_int_equal(s->n_stmts, 3);
    assert_true(s->stmts[0].describe);
    assert_string_equal(s->stmts[0].kind, "SelectStmt");
    assert_string_equal(s->stmts[0].text, "describe db.t");
    assert_false(s->stmts[1].describe);
    const floe_sql_clause *c = floe_sql_stmt_clause(&s->stmts[1], FLOE_SQL_SHOW_FROM, -1);
    assert_non_null(c);
    assert_string_equal(c->text, "db");
    assert_string_equal(s->stmts[1].kind, "VariableShowStmt");
    assert_null(floe_sql_stmt_clause(&s->stmts[2], FLOE_SQL_SHOW_FROM, -1));
    floe_sql_script_free(s);
}

static void constants_and_type_names_are_read(void **state) {
    (void)state;
    floe_sql_script *s = parse_ok("SELECT 0, 7, 3000000000, 1.5, true, NULL, CAST(1 AS decimal(10,2)), 1::float, "
                                  "2::double precision, 3::bigint");
    json_t *tl = floe_pg_get(floe_pg_node_body(s->stmts[0].node), "targetList");
    floe_pg_const c[6];
    for (int i = 0; i < 6; i++)
        c[i] = floe_pg_const_of(floe_pg_get(floe_pg_as(floe_pg_list_at(tl, i), "ResTarget"), "val"));
    assert_int_equal(c[0].kind, FLOE_PG_CONST_INT);
    assert_int_equal(c[0].ival, 0);
    assert_int_equal(c[1].ival, 7);
    assert_int_equal(c[2].kind, FLOE_PG_CONST_FLOAT);
    assert_string_equal(c[2].text, "3000000000");
    assert_string_equal(c[3].text, "1.5");
    assert_int_equal(c[4].kind, FLOE_PG_CONST_BOOL);
    assert_int_equal(c[4].ival, 1);
    assert_int_equal(c[5].kind, FLOE_PG_CONST_NULL);
    floe_type_id want[] = {FLOE_TYPE_DECIMAL128, FLOE_TYPE_FLOAT32, FLOE_TYPE_FLOAT64, FLOE_TYPE_INT64};
    for (int i = 0; i < 4; i++) {
        json_t *tc = floe_pg_as(floe_pg_get(floe_pg_as(floe_pg_list_at(tl, 6 + i), "ResTarget"), "val"), "TypeCast");
        floe_pg_type_name tn;
        assert_ok(floe_pg_type_name_of(floe_pg_get(tc, "typeName"), &tn));
        floe_type *t = NULL;
        assert_ok(floe_pg_type_to_floe(&tn, s->sql, &t));
        assert_int_equal(t->id, want[i]);
        if (i == 0) {
            assert_int_equal(t->precision, 10);
            assert_int_equal(t->scale, 2);
        }
        floe_type_release(t);
    }
    floe_sql_script_free(s);
}

static void unknown_type_suggests_close_name(void **state) {
    (void)state;
    floe_pg_type_name tn;
    memset(&tn, 0, sizeof(tn));
    strcpy(tn.name, "integr");
    floe_type *t = NULL;
    assert_error(floe_pg_type_to_floe(&tn, NULL, &t), FLOE_ERR_NOT_FOUND, "did you mean 'integer'");
}

static void partition_field_and_write_order_statements_are_cut_out(void **state) {
    (void)state;
    const char *sql = "ALTER TABLE IF EXISTS db.\"T\" ADD PARTITION FIELD bucket(16, id) AS b;\n"
                      "alter table t\n  write locally ordered by ts desc nulls last;\n"
                      "ALTER TABLE t ADD COLUMN partition int;\n"
                      "SELECT 'ALTER TABLE t DROP PARTITION FIELD x'";
    floe_sql_script *s = parse_ok(sql);
    assert_int_equal(s->n_stmts, 4);
    const floe_sql_stmt *st = &s->stmts[0];
    assert_string_equal(st->kind, "AlterTableStmt");
    const floe_sql_clause *c = floe_sql_stmt_clause(st, FLOE_SQL_TABLE_EVOLUTION, -1);
    assert_non_null(c);
    assert_string_equal(c->text, "ADD PARTITION FIELD bucket(16, id) AS b");
    assert_int_equal(c->location, (int32_t)(strstr(sql, "ADD PARTITION") - sql));
    const json_t *body = floe_pg_node_body(st->node);
    assert_true(floe_pg_get_bool(body, "missing_ok"));
    assert_string_equal(floe_pg_get_str(floe_pg_get(body, "relation"), "relname"), "T");
    assert_string_equal(st->text, "ALTER TABLE IF EXISTS db.\"T\" ADD PARTITION FIELD bucket(16, id) AS b");
    c = floe_sql_stmt_clause(&s->stmts[1], FLOE_SQL_TABLE_EVOLUTION, -1);
    assert_non_null(c);
    assert_string_equal(c->text, "write locally ordered by ts desc nulls last");
    /* A column called partition, and the words in a string, stay. */
    assert_null(floe_sql_stmt_clause(&s->stmts[2], FLOE_SQL_TABLE_EVOLUTION, -1));
    assert_null(floe_sql_stmt_clause(&s->stmts[3], FLOE_SQL_TABLE_EVOLUTION, -1));
    assert_string_equal(s->stmts[3].kind, "SelectStmt");
    floe_sql_script_free(s);
}

FLOE_TEST_MAIN(cmocka_unit_test(script_splits_into_statements_with_spans),
               cmocka_unit_test(empty_script_has_no_statements),
               cmocka_unit_test(syntax_error_names_line_and_column),
               cmocka_unit_test(partitioned_by_is_cut_out_and_recorded),
               cmocka_unit_test(time_travel_records_table_location),
               cmocka_unit_test(time_travel_after_table_function_uses_call_location),
               cmocka_unit_test(strings_and_comments_are_untouched),
               cmocka_unit_test(describe_and_show_tables_from),
               cmocka_unit_test(constants_and_type_names_are_read),
               cmocka_unit_test(unknown_type_suggests_close_name),
               cmocka_unit_test(partition_field_and_write_order_statements_are_cut_out))
