/*
 * test_partition_clause.c — PARTITIONED BY (...) text to Iceberg partition
 * specs: every transform in Spark's and Trino's spellings, names as
 * Iceberg Java gives them, and errors that name the culprit and where.
 */
#include <string.h>

#include "floe/memory.h"
#include "floe_test.h"
#include "sql/ddl.h"

static floe_ice_schema *test_schema(void) {
    static const char *json =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"data\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
        "{\"id\":4,\"name\":\"d\",\"required\":false,\"type\":\"date\"},"
        "{\"id\":5,\"name\":\"amount\",\"required\":false,\"type\":\"decimal(10,2)\"},"
        "{\"id\":6,\"name\":\"Mixed Case\",\"required\":false,\"type\":\"int\"},"
        "{\"id\":7,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
        "  {\"id\":8,\"name\":\"x\",\"required\":false,\"type\":\"int\"}]}},"
        "{\"id\":9,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":10,"
        "  \"element\":\"string\",\"element-required\":false}},"
        "{\"id\":11,\"name\":\"flag\",\"required\":false,\"type\":\"boolean\"}"
        "]}";
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(json, &s));
    return s;
}

static floe_ice_partition_spec *parse_ok(const floe_ice_schema *s, const char *text) {
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_sql_parse_partitioning(text, s, NULL, 0, &spec));
    return spec;
}

static void expect_field(const floe_ice_partition_spec *spec, int32_t i, int32_t source, const char *name,
                         const char *transform) {
    char buf[64];
    assert_true(i < spec->n_fields);
    assert_int_equal(spec->fields[i].source_id, source);
    assert_int_equal(spec->fields[i].field_id, 1000 + i);
    assert_string_equal(spec->fields[i].name, name);
    assert_string_equal(floe_ice_transform_format(&spec->fields[i].transform, buf, sizeof buf), transform);
}

static void every_transform_parses_with_javas_default_names(void **state) {
    (void)state;
    floe_ice_schema *s = test_schema();
    floe_ice_partition_spec *spec =
        parse_ok(s, "data, bucket(16, id), truncate(4, amount), year(ts), month(d), void(flag)");
    assert_int_equal(spec->spec_id, 0);
    assert_int_equal(spec->n_fields, 6);
    expect_field(spec, 0, 2, "data", "identity");
    expect_field(spec, 1, 1, "id_bucket", "bucket[16]");
    expect_field(spec, 2, 5, "amount_trunc", "truncate[4]");
    expect_field(spec, 3, 3, "ts_year", "year");
    expect_field(spec, 4, 4, "d_month", "month");
    expect_field(spec, 5, 11, "flag_null", "void");
    floe_ice_partition_spec_free(spec);

    spec = parse_ok(s, "day(ts), identity(id)");
    expect_field(spec, 0, 3, "ts_day", "day");
    expect_field(spec, 1, 1, "id", "identity");
    floe_ice_partition_spec_free(spec);

    spec = parse_ok(s, "hour(ts)");
    expect_field(spec, 0, 3, "ts_hour", "hour");
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(s);
}

static void spark_plural_and_trino_argument_orders_are_accepted(void **state) {
    (void)state;
    floe_ice_schema *s = test_schema();
    /* Spark: years/months/days/hours, date, date_hour; Trino: bucket(col, N),
     * truncate(col, W). */
    floe_ice_partition_spec *spec = parse_ok(s, "years(ts), months(d), bucket(id, 8), truncate(data, 3)");
    expect_field(spec, 0, 3, "ts_year", "year");
    expect_field(spec, 1, 4, "d_month", "month");
    expect_field(spec, 2, 1, "id_bucket", "bucket[8]");
    expect_field(spec, 3, 2, "data_trunc", "truncate[3]");
    floe_ice_partition_spec_free(spec);

    spec = parse_ok(s, "days(ts)");
    expect_field(spec, 0, 3, "ts_day", "day");
    floe_ice_partition_spec_free(spec);
    spec = parse_ok(s, "date(ts)");
    expect_field(spec, 0, 3, "ts_day", "day");
    floe_ice_partition_spec_free(spec);
    spec = parse_ok(s, "HOURS(ts)"); /* unquoted names fold to lower case */
    expect_field(spec, 0, 3, "ts_hour", "hour");
    floe_ice_partition_spec_free(spec);
    spec = parse_ok(s, "date_hour( TS )");
    expect_field(spec, 0, 3, "ts_hour", "hour");
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(s);
}

static void quoted_and_nested_columns_resolve(void **state) {
    (void)state;
    floe_ice_schema *s = test_schema();
    floe_ice_partition_spec *spec = parse_ok(s, "\"Mixed Case\", bucket(4, s.x)");
    expect_field(spec, 0, 6, "Mixed Case", "identity");
    expect_field(spec, 1, 8, "s.x_bucket", "bucket[4]");
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(s);
}

static void unknown_transforms_and_columns_are_named_with_a_suggestion(void **state) {
    (void)state;
    floe_ice_schema *s = test_schema();
    floe_ice_partition_spec *spec = NULL;
    assert_error(floe_sql_parse_partitioning("id, buckets(4, id)", s, NULL, 0, &spec), FLOE_ERR_NOT_FOUND,
                 "PARTITIONED BY, character 5: unknown partition transform 'buckets' (did you mean 'bucket'?)");
    assert_error(floe_sql_parse_partitioning("day(tss)", s, NULL, 0, &spec), FLOE_ERR_NOT_FOUND,
                 "character 5: unknown column 'tss' (did you mean 'ts'?)");
    assert_error(floe_sql_parse_partitioning("id data", s, NULL, 0, &spec), FLOE_ERR_SYNTAX,
                 "character 4: expected ',' between partition fields, found 'data'");
    /* Quoted names keep their case: "mixed case" is not "Mixed Case". */
    assert_error(floe_sql_parse_partitioning("\"mixed case\"", s, NULL, 0, &spec), FLOE_ERR_NOT_FOUND,
                 "unknown column 'mixed case' (did you mean 'Mixed Case'?)");
    assert_null(spec);
    floe_ice_schema_free(s);
}

static void transforms_that_do_not_fit_the_column_type_are_type_errors(void **state) {
    (void)state;
    floe_ice_schema *s = test_schema();
    floe_ice_partition_spec *spec = NULL;
    assert_error(floe_sql_parse_partitioning("year(data)", s, NULL, 0, &spec), FLOE_ERR_TYPE,
                 "year() cannot apply to column 'data' of type string");
    assert_error(floe_sql_parse_partitioning("id, hour(d)", s, NULL, 0, &spec), FLOE_ERR_TYPE,
                 "character 5: hour() cannot apply to column 'd' of type date");
    assert_error(floe_sql_parse_partitioning("truncate(4, flag)", s, NULL, 0, &spec), FLOE_ERR_TYPE,
                 "column 'flag' of type boolean");
    assert_error(floe_sql_parse_partitioning("s", s, NULL, 0, &spec), FLOE_ERR_TYPE, "cannot partition by column 's'");
    assert_error(floe_sql_parse_partitioning("tags", s, NULL, 0, &spec), FLOE_ERR_TYPE, "column 'tags'");
    floe_ice_schema_free(s);
}

static void bad_parameters_and_syntax_are_reported_where_they_are(void **state) {
    (void)state;
    floe_ice_schema *s = test_schema();
    floe_ice_partition_spec *spec = NULL;
    assert_error(floe_sql_parse_partitioning("bucket(0, id)", s, NULL, 0, &spec), FLOE_ERR_INVALID_ARGUMENT,
                 "character 8: bucket: 0 must be between 1 and 2147483647");
    assert_error(floe_sql_parse_partitioning("bucket(99999999999, id)", s, NULL, 0, &spec),
                 FLOE_ERR_INVALID_ARGUMENT, "must be between 1 and");
    assert_error(floe_sql_parse_partitioning("bucket(id)", s, NULL, 0, &spec), FLOE_ERR_SYNTAX,
                 "bucket() needs a bucket count: bucket(N, id)");
    assert_error(floe_sql_parse_partitioning("truncate(id)", s, NULL, 0, &spec), FLOE_ERR_SYNTAX,
                 "truncate() needs a width");
    assert_error(floe_sql_parse_partitioning("year(4, ts)", s, NULL, 0, &spec), FLOE_ERR_SYNTAX,
                 "year() takes only a column");
    assert_error(floe_sql_parse_partitioning("bucket(4, id, data)", s, NULL, 0, &spec), FLOE_ERR_SYNTAX,
                 "bucket() takes one column");
    assert_error(floe_sql_parse_partitioning("bucket(4, 5, id)", s, NULL, 0, &spec), FLOE_ERR_SYNTAX,
                 "one number and one column");
    assert_error(floe_sql_parse_partitioning("day(ts", s, NULL, 0, &spec), FLOE_ERR_SYNTAX,
                 "expected ',' or ')', found end of clause");
    assert_error(floe_sql_parse_partitioning("", s, NULL, 0, &spec), FLOE_ERR_SYNTAX, "at least one column");
    assert_error(floe_sql_parse_partitioning("id,", s, NULL, 0, &spec), FLOE_ERR_SYNTAX,
                 "expected a column name, found end of clause");
    assert_error(floe_sql_parse_partitioning("id; drop", s, NULL, 0, &spec), FLOE_ERR_SYNTAX, "found ';'");
    assert_error(floe_sql_parse_partitioning("4x", s, NULL, 0, &spec), FLOE_ERR_SYNTAX, "found '4x'");
    assert_error(floe_sql_parse_partitioning("\"id", s, NULL, 0, &spec), FLOE_ERR_SYNTAX, "found '\"id'");
    assert_null(spec);
    floe_ice_schema_free(s);
}

static void repeated_fields_and_shadowing_names_are_rejected(void **state) {
    (void)state;
    floe_ice_schema *s = test_schema();
    floe_ice_partition_spec *spec = NULL;
    assert_error(floe_sql_parse_partitioning("day(ts), days(ts)", s, NULL, 0, &spec), FLOE_ERR_INVALID_ARGUMENT,
                 "character 10: column 'ts' is partitioned by days() twice");
    assert_error(floe_sql_parse_partitioning("bucket(4, id), bucket(8, id)", s, NULL, 0, &spec),
                 FLOE_ERR_INVALID_ARGUMENT, "partition field 'id_bucket' is defined twice");
    assert_null(spec);
    /* A partition field may not take the name of another column. */
    static const char *json = "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
                              "{\"id\":1,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
                              "{\"id\":2,\"name\":\"ts_day\",\"required\":false,\"type\":\"date\"}]}";
    floe_ice_schema *s2 = NULL;
    assert_ok(floe_ice_schema_from_json_text(json, &s2));
    assert_error(floe_sql_parse_partitioning("day(ts)", s2, NULL, 0, &spec), FLOE_ERR_INVALID_ARGUMENT,
                 "PARTITIONED BY");
    floe_ice_schema_free(s2);
    floe_ice_schema_free(s);
}

static void positions_are_lines_and_columns_of_the_statement(void **state) {
    (void)state;
    floe_ice_schema *s = test_schema();
    const char *sql = "CREATE TABLE t (id bigint)\nPARTITIONED BY (id, yeer(ts))";
    const char *text = strchr(sql, '(');
    text = strchr(text + 1, '(') + 1; /* the clause's '(' */
    floe_ice_partition_spec *spec = NULL;
    assert_error(floe_sql_parse_partitioning("id, yeer(ts)", s, sql, (int32_t)(text - sql), &spec),
                 FLOE_ERR_NOT_FOUND, "line 2, column 21: unknown partition transform 'yeer' (did you mean 'year'?)");
    floe_ice_schema_free(s);
}

FLOE_TEST_MAIN(cmocka_unit_test(every_transform_parses_with_javas_default_names),
               cmocka_unit_test(spark_plural_and_trino_argument_orders_are_accepted),
               cmocka_unit_test(quoted_and_nested_columns_resolve),
               cmocka_unit_test(unknown_transforms_and_columns_are_named_with_a_suggestion),
               cmocka_unit_test(transforms_that_do_not_fit_the_column_type_are_type_errors),
               cmocka_unit_test(bad_parameters_and_syntax_are_reported_where_they_are),
               cmocka_unit_test(repeated_fields_and_shadowing_names_are_rejected),
               cmocka_unit_test(positions_are_lines_and_columns_of_the_statement))
