/*
 * test_table_update_spec.c — partition spec evolution and sort order
 * replacement on table metadata: field ids, names, v1 void fields, spec
 * and field id reuse, every refused change, and that the base metadata is
 * never touched.
 */
#include "floe_test.h"

#include "floe/iceberg_table_update.h"
#include "floe/memory.h"

static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
    "{\"id\":3,\"name\":\"category\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":4,\"name\":\"data\",\"required\":false,\"type\":\"string\"}]}";

static const char *SPEC_DAY =
    "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,\"name\":\"ts_day\",\"transform\":\"day\"}]}";

static floe_ice_table_metadata *table(int format_version) {
    floe_ice_schema *s = NULL;
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &s));
    assert_ok(floe_ice_partition_spec_from_json_text(SPEC_DAY, &spec));
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_new(s, spec, NULL, "/tmp/wh/db/t", NULL, 0, format_version, &md));
    floe_ice_schema_free(s);
    floe_ice_partition_spec_free(spec);
    return md;
}

static void check_reads_back_equal(const floe_ice_table_metadata *md) {
    char *a = NULL, *b = NULL;
    floe_ice_table_metadata *md2 = NULL;
    assert_ok(floe_ice_table_metadata_to_json(md, 0, &a));
    assert_ok(floe_ice_table_metadata_parse(a, strlen(a), "written", &md2));
    assert_ok(floe_ice_table_metadata_to_json(md2, 0, &b));
    assert_string_equal(a, b);
    floe_free(a);
    floe_free(b);
    floe_ice_table_metadata_free(md2);
}

static floe_ice_spec_change add(const char *col, floe_ice_transform_kind k, int32_t param, const char *name) {
    floe_ice_spec_change c = {FLOE_ICE_SPEC_ADD_FIELD, col, floe_ice_transform_make(k, param), name, NULL};
    return c;
}
static floe_ice_spec_change drop_term(const char *col, floe_ice_transform_kind k, int32_t param) {
    floe_ice_spec_change c = {FLOE_ICE_SPEC_REMOVE_FIELD, col, floe_ice_transform_make(k, param), NULL, NULL};
    return c;
}
static floe_ice_spec_change drop_name(const char *name) {
    floe_ice_spec_change c = {FLOE_ICE_SPEC_REMOVE_FIELD, NULL, floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0),
                              name, NULL};
    return c;
}
static floe_ice_spec_change rename_field(const char *name, const char *to) {
    floe_ice_spec_change c = {FLOE_ICE_SPEC_RENAME_FIELD, NULL, floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0),
                              name, to};
    return c;
}

/* One change, result checked to read back and the base left alone. */
static floe_ice_table_metadata *update(const floe_ice_table_metadata *md, const floe_ice_spec_change *c, int32_t n) {
    char *before = NULL, *after = NULL;
    assert_ok(floe_ice_table_metadata_to_json(md, 0, &before));
    floe_ice_table_metadata *out = NULL;
    assert_ok(floe_ice_tm_update_spec(md, c, n, &out));
    assert_non_null(out);
    assert_ok(floe_ice_table_metadata_to_json(md, 0, &after));
    assert_string_equal(before, after);
    floe_free(before);
    floe_free(after);
    check_reads_back_equal(out);
    return out;
}

/* The default spec as "name:transform:source:field-id, ..." */
static void expect_default_spec(const floe_ice_table_metadata *md, int32_t spec_id, const char *want) {
    assert_int_equal(md->default_spec_id, spec_id);
    const floe_ice_partition_spec *s = floe_ice_tm_default_spec(md);
    assert_non_null(s);
    char buf[1024] = "";
    size_t len = 0;
    for (int32_t i = 0; i < s->n_fields; i++) {
        char tb[80];
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s:%s:%d:%d", i ? ", " : "", s->fields[i].name,
                                floe_ice_transform_format(&s->fields[i].transform, tb, sizeof tb),
                                (int)s->fields[i].source_id, (int)s->fields[i].field_id);
    }
    assert_string_equal(buf, want);
}

static void adding_a_field_takes_the_next_id_and_update_spec_names(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(2);
    floe_ice_spec_change c[] = {add("id", FLOE_ICE_TRANSFORM_BUCKET, 16, NULL),
                                add("data", FLOE_ICE_TRANSFORM_TRUNCATE, 4, NULL),
                                add("category", FLOE_ICE_TRANSFORM_IDENTITY, 0, NULL)};
    floe_ice_table_metadata *out = update(md, c, 3);
    expect_default_spec(out, 1, "ts_day:day:2:1000, id_bucket_16:bucket[16]:1:1001, data_trunc_4:truncate[4]:4:1002, "
                                "category:identity:3:1003");
    assert_int_equal(out->last_partition_id, 1003);
    assert_int_equal(out->n_specs, 2);
    assert_non_null(floe_ice_tm_spec(out, 0)); /* the old spec stays: old files use it */
    assert_int_equal(md->default_spec_id, 0);
    floe_ice_table_metadata_free(out);
    floe_ice_table_metadata_free(md);
}

static void an_explicit_name_is_kept(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(2);
    floe_ice_spec_change c[] = {add("id", FLOE_ICE_TRANSFORM_BUCKET, 8, "shard")};
    floe_ice_table_metadata *out = update(md, c, 1);
    expect_default_spec(out, 1, "ts_day:day:2:1000, shard:bucket[8]:1:1001");
    floe_ice_table_metadata_free(out);
    floe_ice_table_metadata_free(md);
}

static void dropping_a_v2_field_removes_it_by_term_or_by_name(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(2);
    floe_ice_spec_change by_term[] = {drop_term("ts", FLOE_ICE_TRANSFORM_DAY, 0)};
    floe_ice_table_metadata *a = update(md, by_term, 1);
    expect_default_spec(a, 1, "");
    assert_int_equal(a->last_partition_id, 1000);
    floe_ice_spec_change by_name[] = {drop_name("ts_day")};
    floe_ice_table_metadata *b = update(md, by_name, 1);
    expect_default_spec(b, 1, "");
    floe_ice_table_metadata_free(a);
    floe_ice_table_metadata_free(b);
    floe_ice_table_metadata_free(md);
}

static void dropping_a_v1_field_leaves_a_void_transform_in_place(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(1);
    floe_ice_spec_change c[] = {drop_name("ts_day"), add("category", FLOE_ICE_TRANSFORM_IDENTITY, 0, NULL)};
    floe_ice_table_metadata *a = update(md, c, 2);
    expect_default_spec(a, 1, "ts_day:void:2:1000, category:identity:3:1001");
    assert_false(floe_ice_partition_spec_is_unpartitioned(floe_ice_tm_default_spec(a)));
    /* day(ts) again: a new id (v1 does not recycle), the void steps aside. */
    floe_ice_spec_change again[] = {add("ts", FLOE_ICE_TRANSFORM_DAY, 0, NULL)};
    floe_ice_table_metadata *b = update(a, again, 1);
    expect_default_spec(b, 2, "ts_day_1000:void:2:1000, category:identity:3:1001, ts_day:day:2:1002");
    assert_int_equal(b->last_partition_id, 1002);
    /* The v1 "partition-spec" written is the new default. */
    char *json = NULL;
    assert_ok(floe_ice_table_metadata_to_json(b, 0, &json));
    assert_non_null(strstr(json, "\"partition-spec\":[{\"name\":\"ts_day_1000\""));
    floe_free(json);
    floe_ice_table_metadata_free(a);
    floe_ice_table_metadata_free(b);
    floe_ice_table_metadata_free(md);
}

static void replacing_a_field_drops_and_adds_in_one_spec(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(2);
    floe_ice_spec_change c[] = {drop_name("ts_day"), add("ts", FLOE_ICE_TRANSFORM_HOUR, 0, NULL)};
    floe_ice_table_metadata *out = update(md, c, 2);
    expect_default_spec(out, 1, "ts_hour:hour:2:1001");
    floe_ice_table_metadata_free(out);
    floe_ice_table_metadata_free(md);
}

static void dropping_and_adding_the_same_term_keeps_the_field(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(2);
    floe_ice_spec_change c[] = {drop_term("ts", FLOE_ICE_TRANSFORM_DAY, 0), add("ts", FLOE_ICE_TRANSFORM_DAY, 0, "d")};
    floe_ice_table_metadata *out = update(md, c, 2);
    expect_default_spec(out, 1, "d:day:2:1000");
    assert_int_equal(out->last_partition_id, 1000);
    floe_ice_table_metadata_free(out);
    floe_ice_table_metadata_free(md);
}

static void v2_recycles_field_ids_and_reuses_an_equivalent_spec(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(2);
    floe_ice_spec_change drop[] = {drop_name("ts_day")};
    floe_ice_table_metadata *a = update(md, drop, 1);
    floe_ice_spec_change add_back[] = {add("ts", FLOE_ICE_TRANSFORM_DAY, 0, NULL)};
    floe_ice_table_metadata *b = update(a, add_back, 1);
    /* Same field id as before, and spec 0 again rather than a spec 2. */
    expect_default_spec(b, 0, "ts_day:day:2:1000");
    assert_int_equal(b->n_specs, 2);
    assert_int_equal(b->last_partition_id, 1000);
    floe_ice_table_metadata_free(a);
    floe_ice_table_metadata_free(b);
    floe_ice_table_metadata_free(md);
}

static void renaming_a_field_keeps_its_id(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(2);
    floe_ice_spec_change c[] = {rename_field("ts_day", "day")};
    floe_ice_table_metadata *out = update(md, c, 1);
    expect_default_spec(out, 1, "day:day:2:1000");
    floe_ice_table_metadata_free(out);
    floe_ice_table_metadata_free(md);
}

static void refused_changes_name_the_problem(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(2), *out = NULL;
    floe_ice_spec_change c1[] = {add("nope", FLOE_ICE_TRANSFORM_IDENTITY, 0, NULL)};
    assert_error(floe_ice_tm_update_spec(md, c1, 1, &out), FLOE_ERR_NOT_FOUND, "unknown column 'nope'");
    floe_ice_spec_change c2[] = {add("ts", FLOE_ICE_TRANSFORM_DAY, 0, NULL)};
    assert_error(floe_ice_tm_update_spec(md, c2, 1, &out), FLOE_ERR_ALREADY_EXISTS, "already partitioned by day(ts)");
    floe_ice_spec_change c3[] = {drop_name("ts_dya")};
    assert_error(floe_ice_tm_update_spec(md, c3, 1, &out), FLOE_ERR_NOT_FOUND, "ts_day");
    floe_ice_spec_change c4[] = {drop_term("id", FLOE_ICE_TRANSFORM_BUCKET, 16)};
    assert_error(floe_ice_tm_update_spec(md, c4, 1, &out), FLOE_ERR_NOT_FOUND, "no such field");
    floe_ice_spec_change c5[] = {add("category", FLOE_ICE_TRANSFORM_DAY, 0, NULL)};
    assert_error(floe_ice_tm_update_spec(md, c5, 1, &out), FLOE_ERR_TYPE, "cannot apply to column 'category'");
    floe_ice_spec_change c6[] = {add("ts", FLOE_ICE_TRANSFORM_HOUR, 0, NULL)};
    assert_error(floe_ice_tm_update_spec(md, c6, 1, &out), FLOE_ERR_INVALID_ARGUMENT, "redundant");
    floe_ice_spec_change c7[] = {add("id", FLOE_ICE_TRANSFORM_BUCKET, 4, NULL), add("id", FLOE_ICE_TRANSFORM_BUCKET, 4, "b")};
    assert_error(floe_ice_tm_update_spec(md, c7, 2, &out), FLOE_ERR_ALREADY_EXISTS, "added twice");
    floe_ice_spec_change c8[] = {add("id", FLOE_ICE_TRANSFORM_BUCKET, 4, "data")};
    assert_error(floe_ice_tm_update_spec(md, c8, 1, &out), FLOE_ERR_INVALID_ARGUMENT, "conflicts with a schema column");
    floe_ice_spec_change c9[] = {add("id", FLOE_ICE_TRANSFORM_BUCKET, 4, "ts_day")};
    assert_error(floe_ice_tm_update_spec(md, c9, 1, &out), FLOE_ERR_ALREADY_EXISTS, "'ts_day' already exists");
    floe_ice_spec_change c10[] = {add("id", FLOE_ICE_TRANSFORM_BUCKET, 4, NULL), drop_name("id_bucket_4")};
    assert_error(floe_ice_tm_update_spec(md, c10, 2, &out), FLOE_ERR_INVALID_ARGUMENT, "added by the same change");
    floe_ice_spec_change c11[] = {rename_field("ts_day", "x"), drop_name("ts_day")};
    assert_error(floe_ice_tm_update_spec(md, c11, 2, &out), FLOE_ERR_INVALID_ARGUMENT, "rename and drop");
    assert_null(out);
    assert_int_equal(md->n_specs, 1);
    floe_ice_table_metadata_free(md);
}

static void sort_orders_are_added_reused_and_cleared(void **state) {
    (void)state;
    floe_ice_table_metadata *md = table(2);
    floe_ice_sort_order *o = NULL;
    assert_ok(floe_ice_sort_order_new(42, &o));
    assert_ok(floe_ice_sort_order_add(o, 3, floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0), FLOE_ICE_DESC,
                                      FLOE_ICE_NULLS_LAST));
    assert_ok(floe_ice_sort_order_add(o, 1, floe_ice_transform_make(FLOE_ICE_TRANSFORM_BUCKET, 4), FLOE_ICE_ASC,
                                      FLOE_ICE_NULLS_FIRST));
    floe_ice_table_metadata *a = NULL, *b = NULL, *c = NULL;
    assert_ok(floe_ice_tm_set_sort_order(md, o, &a));
    check_reads_back_equal(a);
    assert_int_equal(a->default_sort_order_id, 1);
    assert_int_equal(a->n_sort_orders, 2);
    const floe_ice_sort_order *got = floe_ice_tm_sort_order(a, 1);
    assert_non_null(got);
    assert_true(floe_ice_sort_order_same_fields(got, o));
    /* The same order again: the same id, no new order. */
    assert_ok(floe_ice_tm_set_sort_order(a, o, &b));
    assert_int_equal(b->default_sort_order_id, 1);
    assert_int_equal(b->n_sort_orders, 2);
    floe_ice_sort_order *unsorted = NULL;
    assert_ok(floe_ice_sort_order_new(0, &unsorted));
    assert_ok(floe_ice_tm_set_sort_order(b, unsorted, &c));
    assert_int_equal(c->default_sort_order_id, 0);
    assert_int_equal(c->n_sort_orders, 2);
    assert_int_equal(md->default_sort_order_id, 0);
    /* A source the schema lacks. */
    floe_ice_sort_order *bad = NULL;
    floe_ice_table_metadata *none = NULL;
    assert_ok(floe_ice_sort_order_new(1, &bad));
    assert_ok(floe_ice_sort_order_add(bad, 99, floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0), FLOE_ICE_ASC,
                                      FLOE_ICE_NULLS_FIRST));
    assert_error(floe_ice_tm_set_sort_order(md, bad, &none), FLOE_ERR_INVALID_ARGUMENT, "99");
    assert_null(none);
    floe_ice_sort_order_free(bad);
    floe_ice_sort_order_free(unsorted);
    floe_ice_sort_order_free(o);
    floe_ice_table_metadata_free(a);
    floe_ice_table_metadata_free(b);
    floe_ice_table_metadata_free(c);
    floe_ice_table_metadata_free(md);
}

FLOE_TEST_MAIN(cmocka_unit_test(adding_a_field_takes_the_next_id_and_update_spec_names),
               cmocka_unit_test(an_explicit_name_is_kept),
               cmocka_unit_test(dropping_a_v2_field_removes_it_by_term_or_by_name),
               cmocka_unit_test(dropping_a_v1_field_leaves_a_void_transform_in_place),
               cmocka_unit_test(replacing_a_field_drops_and_adds_in_one_spec),
               cmocka_unit_test(dropping_and_adding_the_same_term_keeps_the_field),
               cmocka_unit_test(v2_recycles_field_ids_and_reuses_an_equivalent_spec),
               cmocka_unit_test(renaming_a_field_keeps_its_id),
               cmocka_unit_test(refused_changes_name_the_problem),
               cmocka_unit_test(sort_orders_are_added_reused_and_cleared))
