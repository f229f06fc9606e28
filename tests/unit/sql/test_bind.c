/*
 * test_bind.c — the binder: logical plans for many query shapes (checked
 * through floe_lplan_to_string), PostgreSQL typing of constants and
 * implicit conversions, and name errors with positions and suggestions.
 *
 * Tables are made directly through the catalog: t(id bigint, name string,
 * d date, amount decimal(10,2), flag boolean) and u(id bigint, t_id bigint,
 * qty int) in namespace "default", and db.w(k int) in namespace "db".
 */
#include "floe_test.h"

#include "base/buffer.h"
#include "floe/catalog.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "sql/bind.h"
#include "sql/logical.h"
#include "sql/parse.h"
#include "sql/pgnode.h"
#include "sql/session_internal.h"

typedef struct col_def {
    const char *name;
    floe_ice_type_id id;
    int32_t p, s;
} col_def;

static void make_table(floe_catalog *cat, const char *ns, const char *name, const col_def *cols, int n) {
    floe_ice_type *root = NULL;
    assert_ok(floe_ice_type_struct(&root));
    for (int i = 0; i < n; i++) {
        floe_ice_type *t = NULL;
        if (cols[i].id == FLOE_ICE_DECIMAL) assert_ok(floe_ice_type_decimal(cols[i].p, cols[i].s, &t));
        else assert_ok(floe_ice_type_new(cols[i].id, &t));
        assert_ok(floe_ice_struct_add_field(root, i + 1, cols[i].name, false, t, NULL));
    }
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_new(0, root, NULL, 0, &schema));
    char *loc = NULL;
    assert_ok(floe_catalog_default_location(cat, ns, name, &loc));
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_new(schema, NULL, NULL, loc, NULL, 0, 2, &md));
    floe_ice_table *tbl = NULL;
    assert_ok(floe_catalog_create_table(cat, ns, name, md, &tbl));
    floe_ice_table_free(tbl);
    floe_ice_table_metadata_free(md);
    floe_ice_schema_free(schema);
    floe_free(loc);
}

static int setup(void **state) {
    char dir[1024];
    floe_test_tmpdir(dir, sizeof dir, "sql_bind");
    floe_session *s = NULL;
    assert_ok(floe_session_open(dir, &s));
    floe_catalog *cat = floe_session_catalog(s);
    col_def t[] = {{"id", FLOE_ICE_LONG, 0, 0}, {"name", FLOE_ICE_STRING, 0, 0}, {"d", FLOE_ICE_DATE, 0, 0},
                   {"amount", FLOE_ICE_DECIMAL, 10, 2}, {"flag", FLOE_ICE_BOOLEAN, 0, 0}};
    col_def u[] = {{"id", FLOE_ICE_LONG, 0, 0}, {"t_id", FLOE_ICE_LONG, 0, 0}, {"qty", FLOE_ICE_INT, 0, 0}};
    col_def w[] = {{"k", FLOE_ICE_INT, 0, 0}};
    make_table(cat, "default", "t", t, 5);
    make_table(cat, "default", "u", u, 3);
    assert_ok(floe_catalog_create_namespace(cat, "db", true));
    make_table(cat, "db", "w", w, 1);
    *state = s;
    return 0;
}

static int teardown(void **state) {
    floe_session_close(*state);
    return 0;
}

/* Bind the (single) statement and return the plan text (floe_malloc'd). */
static floe_status bind_text(floe_session *s, const char *sql, char **out) {
    *out = NULL;
    floe_sql_script *script = NULL;
    FLOE_TRY(floe_sql_parse(sql, &script));
    s->script = script;
    s->stmt = &script->stmts[0];
    floe_lplan *p = NULL;
    floe_status st = floe_sql_bind_query(s, script->stmts[0].node, &p);
    floe_buf b = FLOE_BUF_INIT;
    if (!st) st = floe_lplan_to_string(p, &b);
    if (!st) *out = (char *)floe_buf_detach(&b, NULL);
    floe_buf_free(&b);
    floe_lplan_free(p);
    s->script = NULL;
    s->stmt = NULL;
    floe_sql_script_free(script);
    return st;
}

static char *plan_of(floe_session *s, const char *sql) {
    char *text = NULL;
    assert_ok(bind_text(s, sql, &text));
    return text;
}

static void expect_plan(void **state, const char *sql, const char *want) {
    char *got = plan_of(*state, sql);
    if (strcmp(got, want) != 0) fail_msg("plan of %s:\n%s\nwanted:\n%s", sql, got, want);
    floe_free(got);
}

/* Only check that every needle appears in the plan text. */
static void expect_contains(void **state, const char *sql, const char *const *needles, int n) {
    char *got = plan_of(*state, sql);
    for (int i = 0; i < n; i++)
        if (!strstr(got, needles[i])) fail_msg("plan of %s lacks '%s':\n%s", sql, needles[i], got);
    floe_free(got);
}

static void expect_bind_error(void **state, const char *sql, floe_code code, const char *needle) {
    char *text = NULL;
    assert_error(bind_text(*state, sql, &text), code, needle);
    assert_null(text);
}

/* `*` is the table's columns; its metadata columns (_file, _pos, _spec_id,
 * _row_id, _last_updated_sequence_number) follow in the scan, for queries
 * that name them (projection pruning drops them otherwise). */
static void select_star_scans_every_field(void **state) {
    expect_plan(state, "SELECT * FROM t",
                "Project: #0 AS id, #1 AS name, #2 AS d, #3 AS amount, #4 AS flag -> (id int64, name string, "
                "d date32, amount decimal(10, 2), flag bool)\n"
                "  IcebergScan: default.t fields=[1, 2, 3, 4, 5, 2147483646, 2147483645, 2147483643, 2147483540, "
                "2147483539] -> (id int64, name string, d date32, amount decimal(10, 2), flag bool, _file string, "
                "_pos int64, _spec_id int32, _row_id int64, _last_updated_sequence_number int64)\n");
    expect_plan(state, "SELECT _pos, _file FROM t",
                "Project: #6 AS _pos, #5 AS _file -> (_pos int64, _file string)\n"
                "  IcebergScan: default.t fields=[1, 2, 3, 4, 5, 2147483646, 2147483645, 2147483643, 2147483540, "
                "2147483539] -> (id int64, name string, d date32, amount decimal(10, 2), flag bool, _file string, "
                "_pos int64, _spec_id int32, _row_id int64, _last_updated_sequence_number int64)\n");
}

static void where_string_literal_becomes_date(void **state) {
    const char *n[] = {"Filter: (#2 >= 2024-01-15)", "IcebergScan: default.t"};
    expect_contains(state, "SELECT id FROM t WHERE d >= '2024-01-15'", n, 2);
}

static void constants_are_typed_like_postgres(void **state) {
    expect_plan(state, "SELECT 1 AS a, 3000000000 AS b, 1.50 AS c, 'x' AS s, -7 AS neg",
                "Project: 1 AS a, 3000000000 AS b, 1.50 AS c, 'x' AS s, -7 AS neg -> (a int32, b int64, c decimal(3, "
                "2), s string, neg int32)\n"
                "  Physical: Values -> ()\n");
}

static void group_by_ordinal_alias_and_aggregates(void **state) {
    const char *n[] = {
        "Aggregate: keys=[#1 AS name] aggs=[count(*) AS count_0, sum(#3) AS sum_1, avg(#3) AS avg_2]",
        "Project: #0 AS name, #1 AS n, (#2 + 1) AS s1, #3 AS avg",
        "Filter: (#1 > 1)",
    };
    expect_contains(state,
                    "SELECT name, count(*) AS n, sum(amount) + 1 AS s1, avg(amount) FROM t GROUP BY 1 HAVING "
                    "count(*) > 1",
                    n, 3);
    const char *m[] = {"Aggregate: keys=[#1 AS name] aggs=[count(DISTINCT #0) AS count_0]"};
    expect_contains(state, "SELECT name AS nm, count(DISTINCT id) FROM t GROUP BY nm", m, 1);
}

static void ungrouped_column_is_an_error(void **state) {
    expect_bind_error(state, "SELECT name, id FROM t GROUP BY name", FLOE_ERR_INVALID_ARGUMENT,
                      "column \"t.id\" must appear in the GROUP BY clause");
    expect_bind_error(state, "SELECT id FROM t WHERE count(*) > 1", FLOE_ERR_INVALID_ARGUMENT,
                      "aggregate functions are not allowed in WHERE");
}

static void order_by_defaults_nulls_like_postgres(void **state) {
    const char *n[] = {"Sort: #1 DESC NULLS FIRST, #0 ASC NULLS LAST", "Limit: offset=2 fetch=10"};
    expect_contains(state, "SELECT id, name FROM t ORDER BY name DESC, 1 LIMIT 10 OFFSET 2", n, 2);
    /* An ORDER BY expression not in the list is computed, then dropped. */
    const char *m[] = {"Project: #0 AS id", "Sort: #1 ASC NULLS FIRST", "Project: #0 AS id, #2 AS sort_0"};
    expect_contains(state, "SELECT id FROM t ORDER BY d NULLS FIRST", m, 3);
}

static void joins_split_equalities_into_keys(void **state) {
    const char *n[] = {"Join: Inner keys=[#0 = #1] predicate=(#12 > 2)"};
    expect_contains(state, "SELECT t.id, u.qty FROM t JOIN u ON t.id = u.t_id AND u.qty > 2", n, 1);
    /* Comma joins take their keys from WHERE; one-sided conditions filter
     * their input. */
    const char *m[] = {"Join: Inner keys=[#0 = #1]", "Filter: (#2 > 5)"};
    expect_contains(state, "SELECT * FROM t, u WHERE t.id = u.t_id AND u.qty > 5", m, 2);
    /* USING: a projection puts the merged id first (PostgreSQL's column order) */
    const char *k[] = {"Join: Left keys=[#0 = #0]", "Project: #0 AS id, #2 AS name"};
    expect_contains(state, "SELECT * FROM t LEFT JOIN u USING (id)", k, 2);
}

static void in_and_exists_subqueries_become_semi_joins(void **state) {
    const char *n[] = {"Join: LeftSemi keys=[#0 = #0]"};
    expect_contains(state, "SELECT id FROM t WHERE id IN (SELECT t_id FROM u)", n, 1);
    const char *m[] = {"Join: LeftAnti null_aware keys=[#0 = #0]"};
    expect_contains(state, "SELECT id FROM t WHERE id NOT IN (SELECT t_id FROM u)", m, 1);
    /* Correlated EXISTS: the correlation becomes the key. */
    const char *k[] = {"Join: LeftSemi keys=[#0 = #1]", "Filter: (#2 > 3)"};
    expect_contains(state, "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.t_id = t.id AND u.qty > 3)", k,
                    2);
    const char *a[] = {"Join: LeftAnti keys=[#0 = #1]"};
    expect_contains(state, "SELECT id FROM t WHERE NOT EXISTS (SELECT * FROM u WHERE t.id = u.t_id)", a, 1);
}

static void scalar_subquery_joins_one_row(void **state) {
    const char *n[] = {"Join: Inner", "Aggregate: keys=[] aggs=[max(#2) AS max_0]", "Filter: (CAST(#0 AS int32) > #5)"};
    char *got = plan_of(*state, "SELECT id FROM t WHERE id > (SELECT max(qty) FROM u)");
    /* The key comparison types depend on int widening; check the shape. */
    assert_non_null(strstr(got, n[0]));
    assert_non_null(strstr(got, n[1]));
    floe_free(got);
}

static void union_distinct_and_values(void **state) {
    const char *n[] = {"Distinct", "Union", "Physical: Values -> (column1 int64, column2 string)"};
    expect_contains(state, "SELECT id, name FROM t UNION VALUES (1::bigint, 'a'), (2, NULL)", n, 3);
    const char *m[] = {"Sort: #0 DESC NULLS FIRST", "Union"};
    expect_contains(state, "SELECT id FROM t UNION ALL SELECT t_id FROM u ORDER BY 1 DESC", m, 2);
}

static void functions_and_operators_map_to_calls(void **state) {
    const char *n[] = {"date_part('year', #2)", "textcat(#1, 'x')", "like(#1, 'a%')", "NOT ", "add_interval(#2, 0, 90, 0)",
                       "CASE"};
    expect_contains(state,
                    "SELECT extract(year FROM d), name || 'x', d + interval '90' day, CASE WHEN flag THEN 1 ELSE 2 END "
                    "FROM t WHERE name LIKE 'a%' AND name NOT LIKE 'b%'",
                    n, 6);
    const char *m[] = {"IN"};
    expect_contains(state, "SELECT id FROM t WHERE id BETWEEN 1 AND 5 AND name IN ('a', 'b')", m, 1);
}

static void generate_series_and_with(void **state) {
    expect_plan(state, "SELECT g FROM generate_series(1, 10, 2) g",
                "Project: #0 AS g -> (g int64)\n  GenerateSeries: 1..10 step 2 -> (g int64)\n");
    const char *n[] = {"IcebergScan: db.w"};
    expect_contains(state, "WITH x AS (SELECT k FROM db.w) SELECT * FROM x WHERE k > 1", n, 1);
}

static void unknown_names_suggest_close_ones(void **state) {
    expect_bind_error(state, "SELECT nme FROM t", FLOE_ERR_NOT_FOUND,
                      "line 1, column 8: unknown column 'nme' (did you mean 'name'?)");
    expect_bind_error(state, "SELECT * FROM tt", FLOE_ERR_NOT_FOUND, "line 1, column 15");
    expect_bind_error(state, "SELECT * FROM tt", FLOE_ERR_NOT_FOUND, "did you mean 'default.t'");
    expect_bind_error(state, "SELECT id FROM t, u", FLOE_ERR_INVALID_ARGUMENT, "ambiguous");
    expect_bind_error(state, "SELECT * FROM generate_seires(1, 2)", FLOE_ERR_NOT_FOUND,
                      "did you mean 'generate_series'");
    expect_bind_error(state, "SELECT lowr(name) FROM t", FLOE_ERR_NOT_FOUND, "did you mean 'lower'");
}

static void is_complete_ignores_quoted_semicolons(void **state) {
    (void)state;
    assert_true(floe_sql_is_complete("SELECT 1;"));
    assert_true(floe_sql_is_complete("SELECT 1; -- done\n"));
    assert_false(floe_sql_is_complete("SELECT ';"));
    assert_false(floe_sql_is_complete("SELECT 1 /* ; */"));
    assert_false(floe_sql_is_complete("SELECT \"a;\""));
    assert_true(floe_sql_is_complete("SELECT 'it''s;';"));
    assert_false(floe_sql_is_complete(""));
}

static void options_set_show_and_suggest(void **state) {
    floe_session *s = *state;
    assert_ok(floe_session_set(s, "batch_size", "1024"));
    char *v = NULL;
    assert_ok(floe_session_show(s, "batch_size", &v));
    assert_string_equal(v, "1024");
    floe_free(v);
    assert_ok(floe_session_set(s, "batch_size", "default"));
    assert_ok(floe_session_show(s, "batch_size", &v));
    assert_string_equal(v, "8192");
    floe_free(v);
    assert_error(floe_session_set(s, "batch_sise", "1"), FLOE_ERR_NOT_FOUND, "did you mean 'batch_size'");
    assert_error(floe_session_set(s, "target_partitions", "0"), FLOE_ERR_INVALID_ARGUMENT, "between 1 and");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
FLOE_TEST_MAIN(T(select_star_scans_every_field), T(where_string_literal_becomes_date),
               T(constants_are_typed_like_postgres), T(group_by_ordinal_alias_and_aggregates),
               T(ungrouped_column_is_an_error), T(order_by_defaults_nulls_like_postgres),
               T(joins_split_equalities_into_keys), T(in_and_exists_subqueries_become_semi_joins),
               T(scalar_subquery_joins_one_row), T(union_distinct_and_values),
               T(functions_and_operators_map_to_calls), T(generate_series_and_with),
               T(unknown_names_suggest_close_ones), cmocka_unit_test(is_complete_ignores_quoted_semicolons),
               T(options_set_show_and_suggest))
