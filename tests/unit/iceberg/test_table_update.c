/*
 * test_table_update.c — making new table metadata: fresh ids for a new
 * table (as Iceberg Java assigns them), every schema change with its error
 * cases, properties, and that every result reads back equal and leaves the
 * metadata it came from untouched.
 */
#include "floe_test.h"

#include <jansson.h>

#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/update/table_update_internal.h"

/* Ids chosen far from 1..n so that fresh assignment is visible. */
static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":7,\"identifier-field-ids\":[10],\"fields\":["
    "{\"id\":10,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":20,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "  {\"id\":30,\"name\":\"x\",\"required\":true,\"type\":\"int\"},"
    "  {\"id\":40,\"name\":\"l\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":50,"
    "   \"element-required\":true,\"element\":{\"type\":\"struct\",\"fields\":["
    "     {\"id\":60,\"name\":\"a\",\"required\":false,\"type\":\"float\"}]}}}]}},"
    "{\"id\":70,\"name\":\"data\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":80,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":90,\"name\":\"price\",\"required\":false,\"type\":\"decimal(9,2)\"},"
    "{\"id\":95,\"name\":\"m\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":96,\"key\":\"string\","
    "  \"value-id\":97,\"value-required\":false,\"value\":\"int\"}}]}";

static const char *SPEC =
    "{\"spec-id\":5,\"fields\":["
    "{\"source-id\":10,\"field-id\":1005,\"name\":\"id_bucket\",\"transform\":\"bucket[16]\"},"
    "{\"source-id\":80,\"field-id\":1009,\"name\":\"ts_day\",\"transform\":\"day\"}]}";

static const char *ORDER =
    "{\"order-id\":3,\"fields\":[{\"transform\":\"identity\",\"source-id\":70,"
    "\"direction\":\"desc\",\"null-order\":\"nulls-last\"}]}";

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

static floe_ice_table_metadata *new_table(int format_version) {
    floe_ice_schema *s = NULL;
    floe_ice_partition_spec *spec = NULL;
    floe_ice_sort_order *order = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &s));
    assert_ok(floe_ice_partition_spec_from_json_text(SPEC, &spec));
    assert_ok(floe_ice_sort_order_from_json_text(ORDER, &order));
    const char *props[] = {"owner", "floe", "write.format.default", "parquet"};
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_new(s, spec, order, "/tmp/wh/db/t/", props, 2, format_version, &md));
    floe_ice_schema_free(s);
    floe_ice_partition_spec_free(spec);
    floe_ice_sort_order_free(order);
    check_reads_back_equal(md);
    return md;
}

static int32_t id_of(const floe_ice_table_metadata *md, const char *name) {
    const floe_ice_field *f = floe_ice_schema_find_by_name(floe_ice_tm_current_schema(md), name, true);
    return f ? f->id : -1;
}

static const floe_ice_field *field(const floe_ice_table_metadata *md, const char *name) {
    const floe_ice_field *f = floe_ice_schema_find_by_name(floe_ice_tm_current_schema(md), name, true);
    if (!f) fail_msg("no column '%s'", name);
    return f;
}

/* The same table after one append of `rows` rows (a snapshot whose summary
 * says so); built with the edit machinery the catalog also uses. */
static floe_ice_table_metadata *with_snapshot(const floe_ice_table_metadata *md, const char *rows) {
    json_t *tree = NULL;
    assert_ok(floe_ice_tm_edit_begin(md, &tree));
    json_t *snap = json_pack("{s:I, s:I, s:I, s:s, s:{s:s, s:s}, s:i}", "snapshot-id", (json_int_t)42,
                             "sequence-number", (json_int_t)1, "timestamp-ms", (json_int_t)md->last_updated_ms,
                             "manifest-list", "/tmp/wh/db/t/metadata/snap-42.avro", "summary", "operation",
                             "append", "total-records", rows, "schema-id", 0);
    assert_non_null(snap);
    assert_int_equal(json_array_append_new(json_object_get(tree, "snapshots"), snap), 0);
    assert_int_equal(json_object_set_new(tree, "current-snapshot-id", json_integer(42)), 0);
    assert_int_equal(json_object_set_new(tree, "last-sequence-number", json_integer(1)), 0);
    assert_int_equal(json_object_set_new(json_object_get(tree, "refs"), "main",
                                         json_pack("{s:I, s:s}", "snapshot-id", (json_int_t)42, "type", "branch")),
                     0);
    floe_ice_table_metadata *out = NULL;
    assert_ok(floe_ice_tm_edit_finish(md, tree, &out));
    return out;
}

/* ---- new tables ------------------------------------------------------------- */

static void new_table_assigns_fresh_ids_like_iceberg_java(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2);
    assert_int_equal(md->format_version, 2);
    assert_int_equal(md->n_schemas, 1);
    assert_int_equal(md->current_schema_id, 0);
    /* A struct's own fields first, then nested ones. */
    assert_int_equal(id_of(md, "id"), 1);
    assert_int_equal(id_of(md, "s"), 2);
    assert_int_equal(id_of(md, "data"), 3);
    assert_int_equal(id_of(md, "ts"), 4);
    assert_int_equal(id_of(md, "price"), 5);
    assert_int_equal(id_of(md, "m"), 6);
    assert_int_equal(id_of(md, "s.x"), 7);
    assert_int_equal(id_of(md, "s.l"), 8);
    assert_int_equal(id_of(md, "s.l.element"), 9);
    assert_int_equal(id_of(md, "s.l.element.a"), 10);
    assert_int_equal(id_of(md, "m.key"), 11);
    assert_int_equal(id_of(md, "m.value"), 12);
    assert_int_equal(md->last_column_id, 12);
    const floe_ice_schema *s = floe_ice_tm_current_schema(md);
    assert_int_equal(s->n_identifier_field_ids, 1);
    assert_int_equal(s->identifier_field_ids[0], 1);
    floe_ice_table_metadata_free(md);
}

static void new_table_renumbers_partition_and_sort_fields(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2);
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(md);
    assert_int_equal(md->default_spec_id, 0);
    assert_int_equal(spec->n_fields, 2);
    assert_int_equal(spec->fields[0].source_id, 1);
    assert_int_equal(spec->fields[0].field_id, 1000);
    assert_string_equal(spec->fields[0].name, "id_bucket");
    assert_int_equal(spec->fields[1].source_id, 4);
    assert_int_equal(spec->fields[1].field_id, 1001);
    assert_int_equal(md->last_partition_id, 1001);
    assert_int_equal(md->default_sort_order_id, 1);
    assert_int_equal(md->n_sort_orders, 2);
    const floe_ice_sort_order *o = floe_ice_tm_sort_order(md, 1);
    assert_non_null(o);
    assert_int_equal(o->fields[0].source_id, 3);
    assert_int_equal(o->fields[0].direction, FLOE_ICE_DESC);
    assert_true(floe_ice_sort_order_is_unsorted(floe_ice_tm_sort_order(md, 0)));
    floe_ice_table_metadata_free(md);
}

static void new_table_has_uuid_location_properties_and_no_snapshots(void **state) {
    (void)state;
    floe_ice_table_metadata *a = new_table(2), *b = new_table(2);
    assert_non_null(a->table_uuid);
    assert_int_equal(strlen(a->table_uuid), 36);
    assert_int_equal(a->table_uuid[14], '4'); /* version 4 */
    assert_string_not_equal(a->table_uuid, b->table_uuid);
    assert_string_equal(a->location, "/tmp/wh/db/t");
    assert_string_equal(floe_ice_tm_property(a, "owner"), "floe");
    assert_string_equal(floe_ice_tm_property(a, "write.format.default"), "parquet");
    assert_int_equal(a->current_snapshot_id, FLOE_ICE_NO_SNAPSHOT);
    assert_int_equal(a->n_snapshots, 0);
    assert_int_equal(a->last_sequence_number, 0);
    assert_int_equal(a->n_metadata_log, 0);
    assert_true(a->last_updated_ms > 1600000000000LL);
    assert_true(floe_ice_tm_is_empty(a));
    floe_ice_table_metadata_free(a);
    floe_ice_table_metadata_free(b);
}

static void new_table_in_format_versions_1_and_3(void **state) {
    (void)state;
    floe_ice_table_metadata *v1 = new_table(1), *v3 = new_table(3);
    assert_int_equal(v1->format_version, 1);
    assert_int_equal(v3->format_version, 3);
    assert_true(v3->has_next_row_id);
    assert_int_equal(v3->next_row_id, 0);
    assert_int_equal(id_of(v1, "s.l.element.a"), 10);
    floe_ice_table_metadata_free(v1);
    floe_ice_table_metadata_free(v3);
}

static void new_table_unpartitioned_and_unsorted_by_default(void **state) {
    (void)state;
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &s));
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_new(s, NULL, NULL, "s3://bucket/t", NULL, 0, 2, &md));
    assert_true(floe_ice_partition_spec_is_unpartitioned(floe_ice_tm_default_spec(md)));
    assert_int_equal(md->last_partition_id, 999);
    assert_int_equal(md->default_sort_order_id, 0);
    assert_int_equal(md->n_sort_orders, 1);
    assert_int_equal(md->n_properties, 0);
    check_reads_back_equal(md);
    floe_ice_table_metadata_free(md);
    floe_ice_schema_free(s);
}

static void new_table_rejects_bad_input(void **state) {
    (void)state;
    floe_ice_schema *s = NULL, *ns = NULL;
    floe_ice_partition_spec *bad_spec = NULL, *bad_transform = NULL;
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &s));
    assert_ok(floe_ice_partition_spec_from_json_text(
        "{\"spec-id\":0,\"fields\":[{\"source-id\":11,\"field-id\":1000,\"name\":\"z\",\"transform\":\"identity\"}]}",
        &bad_spec));
    assert_ok(floe_ice_partition_spec_from_json_text(
        "{\"spec-id\":0,\"fields\":[{\"source-id\":70,\"field-id\":1000,\"name\":\"d\",\"transform\":\"day\"}]}",
        &bad_transform));
    assert_error(floe_ice_tm_new(s, bad_spec, NULL, "/t", NULL, 0, 2, &md), FLOE_ERR_INVALID_ARGUMENT,
                 "source column id 11");
    assert_error(floe_ice_tm_new(s, bad_transform, NULL, "/t", NULL, 0, 2, &md), FLOE_ERR_INVALID_ARGUMENT, "d");
    assert_error(floe_ice_tm_new(s, NULL, NULL, "", NULL, 0, 2, &md), FLOE_ERR_INVALID_ARGUMENT, "location");
    assert_error(floe_ice_tm_new(s, NULL, NULL, "/t", NULL, 0, 4, &md), FLOE_ERR_UNSUPPORTED, "format version 4");
    const char *props[] = {"", "x"};
    assert_error(floe_ice_tm_new(s, NULL, NULL, "/t", props, 1, 2, &md), FLOE_ERR_INVALID_ARGUMENT, "property");
    assert_ok(floe_ice_schema_from_json_text(
        "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"t\",\"required\":false,\"type\":\"timestamp_ns\"}]}", &ns));
    assert_error(floe_ice_tm_new(ns, NULL, NULL, "/t", NULL, 0, 2, &md), FLOE_ERR_INVALID_ARGUMENT,
                 "format version 3");
    assert_null(md);
    floe_ice_schema_free(s);
    floe_ice_schema_free(ns);
    floe_ice_partition_spec_free(bad_spec);
    floe_ice_partition_spec_free(bad_transform);
}

/* ---- add column ----------------------------------------------------------- */

static void add_column_takes_next_id_and_adds_a_schema(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *md2 = NULL;
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_INT, &t));
    assert_ok(floe_ice_tm_add_column(md, NULL, "n", t, false, "a count", &md2));
    assert_int_equal(id_of(md2, "n"), 13);
    assert_string_equal(field(md2, "n")->doc, "a count");
    assert_int_equal(md2->last_column_id, 13);
    assert_int_equal(md2->n_schemas, 2);
    assert_int_equal(md2->current_schema_id, 1);
    assert_true(md2->last_updated_ms >= md->last_updated_ms);
    /* The base is untouched and its schema is kept as schema 0. */
    assert_int_equal(md->n_schemas, 1);
    assert_int_equal(id_of(md, "n"), -1);
    assert_int_equal(floe_ice_tm_schema(md2, 0)->root->n_fields, 6);
    /* Everything else is carried over. */
    assert_string_equal(md2->table_uuid, md->table_uuid);
    assert_int_equal(floe_ice_tm_default_spec(md2)->n_fields, 2);
    assert_int_equal(md2->default_sort_order_id, 1);
    assert_string_equal(floe_ice_tm_property(md2, "owner"), "floe");
    check_reads_back_equal(md2);
    floe_ice_type_free(t);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(md2);
}

static void add_nested_column_gets_fresh_ids_for_every_field(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *md2 = NULL;
    floe_ice_type *st = NULL, *q = NULL, *r = NULL, *el = NULL;
    assert_ok(floe_ice_type_struct(&st));
    assert_ok(floe_ice_type_new(FLOE_ICE_INT, &q));
    assert_ok(floe_ice_struct_add_field(st, 500, "q", true, q, NULL));
    assert_ok(floe_ice_type_new(FLOE_ICE_STRING, &el));
    assert_ok(floe_ice_type_list(501, false, el, &r));
    assert_ok(floe_ice_struct_add_field(st, 502, "r", false, r, NULL));
    assert_ok(floe_ice_tm_add_column(md, NULL, "p", st, false, NULL, &md2));
    assert_int_equal(id_of(md2, "p"), 13);
    assert_int_equal(id_of(md2, "p.q"), 14);
    assert_int_equal(id_of(md2, "p.r"), 15);
    assert_int_equal(id_of(md2, "p.r.element"), 16);
    assert_int_equal(md2->last_column_id, 16);
    check_reads_back_equal(md2);
    floe_ice_type_free(st);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(md2);
}

static void add_column_inside_structs_and_list_elements(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *md2 = NULL, *md3 = NULL;
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_DOUBLE, &t));
    assert_ok(floe_ice_tm_add_column(md, "s", "y", t, false, NULL, &md2));
    assert_int_equal(id_of(md2, "s.y"), 13);
    assert_ok(floe_ice_tm_add_column(md2, "s.l", "b", t, false, NULL, &md3));
    assert_int_equal(id_of(md3, "s.l.element.b"), 14);
    assert_int_equal(md3->n_schemas, 3);
    assert_int_equal(md3->current_schema_id, 2);
    check_reads_back_equal(md3);
    floe_ice_type_free(t);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(md2);
    floe_ice_table_metadata_free(md3);
}

static void add_column_errors_name_the_problem(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *out = NULL;
    floe_ice_type *t = NULL, *ns = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_INT, &t));
    assert_ok(floe_ice_type_new(FLOE_ICE_TIMESTAMP_NS, &ns));
    assert_error(floe_ice_tm_add_column(md, NULL, "data", t, false, NULL, &out), FLOE_ERR_ALREADY_EXISTS,
                 "column 'data' already exists");
    assert_error(floe_ice_tm_add_column(md, "s", "x", t, false, NULL, &out), FLOE_ERR_ALREADY_EXISTS, "'s.x'");
    assert_error(floe_ice_tm_add_column(md, "data", "z", t, false, NULL, &out), FLOE_ERR_INVALID_ARGUMENT,
                 "not a struct");
    assert_error(floe_ice_tm_add_column(md, "ss", "z", t, false, NULL, &out), FLOE_ERR_NOT_FOUND,
                 "unknown column 'ss' (did you mean 's'?)");
    assert_error(floe_ice_tm_add_column(md, NULL, "", t, false, NULL, &out), FLOE_ERR_INVALID_ARGUMENT, "name");
    assert_error(floe_ice_tm_add_column(md, NULL, "t", ns, false, NULL, &out), FLOE_ERR_INVALID_ARGUMENT,
                 "format version 3");
    /* A partition field's name cannot be taken by a new column. */
    assert_error(floe_ice_tm_add_column(md, NULL, "ts_day", t, false, NULL, &out), FLOE_ERR_INVALID_ARGUMENT,
                 "ts_day");
    assert_null(out);
    floe_ice_type_free(t);
    floe_ice_type_free(ns);
    floe_ice_table_metadata_free(md);
}

static void required_column_only_while_the_table_is_empty(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *out = NULL;
    floe_ice_table_metadata *full = with_snapshot(md, "5"), *emptied = with_snapshot(md, "0");
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_INT, &t));
    assert_false(floe_ice_tm_is_empty(full));
    assert_true(floe_ice_tm_is_empty(emptied));
    assert_ok(floe_ice_tm_add_column(md, NULL, "r", t, true, NULL, &out));
    assert_true(field(out, "r")->required);
    floe_ice_table_metadata_free(out);
    assert_ok(floe_ice_tm_add_column(emptied, NULL, "r", t, true, NULL, &out));
    floe_ice_table_metadata_free(out);
    out = NULL;
    assert_error(floe_ice_tm_add_column(full, NULL, "r", t, true, NULL, &out), FLOE_ERR_INVALID_ARGUMENT,
                 "holds rows");
    /* Optional columns are fine on a table with rows, and snapshots stay. */
    assert_ok(floe_ice_tm_add_column(full, NULL, "r", t, false, NULL, &out));
    assert_int_equal(out->current_snapshot_id, 42);
    assert_int_equal(out->last_sequence_number, 1);
    assert_non_null(floe_ice_tm_ref(out, "main"));
    check_reads_back_equal(out);
    floe_ice_type_free(t);
    floe_ice_table_metadata_free(out);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(full);
    floe_ice_table_metadata_free(emptied);
}

/* ---- drop column ---------------------------------------------------------- */

static void drop_column_keeps_ids_unique_forever(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *md2 = NULL, *md3 = NULL;
    assert_ok(floe_ice_tm_drop_column(md, "price", &md2));
    assert_int_equal(id_of(md2, "price"), -1);
    assert_int_equal(md2->last_column_id, 12);
    assert_int_equal(md2->current_schema_id, 1);
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_decimal(9, 2, &t));
    assert_ok(floe_ice_tm_add_column(md2, NULL, "price", t, false, NULL, &md3));
    /* Not the dropped column's id 5: old data files must not match. */
    assert_int_equal(id_of(md3, "price"), 13);
    check_reads_back_equal(md3);
    floe_ice_type_free(t);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(md2);
    floe_ice_table_metadata_free(md3);
}

static void drop_nested_and_struct_columns(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *md2 = NULL, *md3 = NULL;
    assert_ok(floe_ice_tm_drop_column(md, "s.x", &md2));
    assert_int_equal(id_of(md2, "s.x"), -1);
    assert_int_equal(id_of(md2, "s.l"), 8);
    assert_ok(floe_ice_tm_drop_column(md2, "s", &md3));
    assert_int_equal(id_of(md3, "s.l"), -1);
    assert_int_equal(floe_ice_tm_current_schema(md3)->root->n_fields, 5);
    check_reads_back_equal(md3);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(md2);
    floe_ice_table_metadata_free(md3);
}

static void drop_column_refuses_used_columns(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *out = NULL;
    assert_error(floe_ice_tm_drop_column(md, "id", &out), FLOE_ERR_INVALID_ARGUMENT, "'id' is an identifier field");
    assert_error(floe_ice_tm_drop_column(md, "ts", &out), FLOE_ERR_INVALID_ARGUMENT, "partition field 'ts_day'");
    assert_error(floe_ice_tm_drop_column(md, "data", &out), FLOE_ERR_INVALID_ARGUMENT, "sort order");
    assert_error(floe_ice_tm_drop_column(md, "s.l.element", &out), FLOE_ERR_INVALID_ARGUMENT, "list elements");
    assert_error(floe_ice_tm_drop_column(md, "m.key", &out), FLOE_ERR_INVALID_ARGUMENT, "map keys");
    assert_error(floe_ice_tm_drop_column(md, "pricee", &out), FLOE_ERR_NOT_FOUND, "did you mean 'price'");
    assert_error(floe_ice_tm_drop_column(md, "Price", &out), FLOE_ERR_NOT_FOUND, "did you mean 'price'");
    assert_null(out);
    floe_ice_table_metadata_free(md);

    /* A struct holding a partition source cannot go either, nor the last column. */
    floe_ice_schema *s = NULL;
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_ice_schema_from_json_text(
        "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"st\",\"required\":false,\"type\":{\"type\":\"struct\","
        "\"fields\":[{\"id\":2,\"name\":\"k\",\"required\":false,\"type\":\"int\"}]}}]}",
        &s));
    assert_ok(floe_ice_partition_spec_from_json_text(
        "{\"spec-id\":0,\"fields\":[{\"source-id\":2,\"field-id\":1000,\"name\":\"k\",\"transform\":\"identity\"}]}",
        &spec));
    assert_ok(floe_ice_tm_new(s, spec, NULL, "/t", NULL, 0, 2, &md));
    assert_error(floe_ice_tm_drop_column(md, "st", &out), FLOE_ERR_INVALID_ARGUMENT, "partition field 'k'");
    floe_ice_table_metadata_free(md);
    assert_ok(floe_ice_tm_new(s, NULL, NULL, "/t", NULL, 0, 2, &md));
    assert_error(floe_ice_tm_drop_column(md, "st", &out), FLOE_ERR_INVALID_ARGUMENT, "only column");
    floe_ice_table_metadata_free(md);
    floe_ice_schema_free(s);
    floe_ice_partition_spec_free(spec);
}

/* ---- rename column ------------------------------------------------------------ */

static void rename_column_keeps_the_id_and_renaming_back_reuses_the_schema(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *md2 = NULL, *md3 = NULL, *md4 = NULL;
    assert_ok(floe_ice_tm_rename_column(md, "data", "payload", &md2));
    assert_int_equal(id_of(md2, "payload"), 3);
    assert_int_equal(id_of(md2, "data"), -1);
    assert_int_equal(md2->current_schema_id, 1);
    assert_ok(floe_ice_tm_rename_column(md2, "s.l.element.a", "alpha", &md3));
    assert_int_equal(id_of(md3, "s.l.element.alpha"), 10);
    assert_int_equal(md3->current_schema_id, 2);
    assert_ok(floe_ice_tm_rename_column(md3, "payload", "data", &md4));
    assert_int_equal(md4->current_schema_id, 3);
    floe_ice_table_metadata_free(md4);
    assert_ok(floe_ice_tm_rename_column(md2, "payload", "data", &md4));
    /* Identical to schema 0 again: schema 0 becomes current, nothing added. */
    assert_int_equal(md4->current_schema_id, 0);
    assert_int_equal(md4->n_schemas, 2);
    check_reads_back_equal(md4);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(md2);
    floe_ice_table_metadata_free(md3);
    floe_ice_table_metadata_free(md4);
}

static void rename_column_errors(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *out = NULL;
    assert_error(floe_ice_tm_rename_column(md, "ts", "data", &out), FLOE_ERR_ALREADY_EXISTS, "'data'");
    assert_error(floe_ice_tm_rename_column(md, "s.l.element", "e", &out), FLOE_ERR_INVALID_ARGUMENT, "renamed");
    assert_error(floe_ice_tm_rename_column(md, "dta", "e", &out), FLOE_ERR_NOT_FOUND, "did you mean 'data'");
    assert_error(floe_ice_tm_rename_column(md, "data", "", &out), FLOE_ERR_INVALID_ARGUMENT, "empty");
    assert_error(floe_ice_tm_rename_column(md, "price", "ts_day", &out), FLOE_ERR_INVALID_ARGUMENT, "ts_day");
    assert_null(out);
    floe_ice_table_metadata_free(md);
}

/* ---- column types ---------------------------------------------------------------- */

static void update_column_type_allows_legal_promotions(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    floe_ice_type *lng = NULL, *dbl = NULL, *dec = NULL, *i32 = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_LONG, &lng));
    assert_ok(floe_ice_type_new(FLOE_ICE_DOUBLE, &dbl));
    assert_ok(floe_ice_type_decimal(18, 2, &dec));
    assert_ok(floe_ice_type_new(FLOE_ICE_INT, &i32));
    assert_ok(floe_ice_tm_update_column_type(md, "s.x", lng, &a));
    assert_int_equal(field(a, "s.x")->type->id, FLOE_ICE_LONG);
    assert_int_equal(field(a, "s.x")->id, 7);
    assert_ok(floe_ice_tm_update_column_type(a, "s.l.element.a", dbl, &b));
    assert_int_equal(field(b, "s.l.element.a")->type->id, FLOE_ICE_DOUBLE);
    assert_ok(floe_ice_tm_update_column_type(b, "price", dec, &c));
    assert_int_equal(field(c, "price")->type->precision, 18);
    assert_int_equal(field(c, "price")->type->scale, 2);
    assert_ok(floe_ice_tm_update_column_type(md, "m.value", lng, &d));
    assert_int_equal(field(d, "m.value")->type->id, FLOE_ICE_LONG);
    assert_int_equal(c->n_schemas, 4);
    assert_int_equal(c->last_column_id, 12);
    check_reads_back_equal(c);
    floe_ice_table_metadata_free(d);
    /* The same type is no change: the current schema stays. */
    assert_ok(floe_ice_tm_update_column_type(md, "s.x", i32, &d));
    assert_int_equal(d->current_schema_id, 0);
    assert_int_equal(d->n_schemas, 1);
    floe_ice_type_free(lng);
    floe_ice_type_free(dbl);
    floe_ice_type_free(dec);
    floe_ice_type_free(i32);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(a);
    floe_ice_table_metadata_free(b);
    floe_ice_table_metadata_free(c);
    floe_ice_table_metadata_free(d);
}

static void update_column_type_refuses_anything_else(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *out = NULL;
    floe_ice_type *i32 = NULL, *str = NULL, *dec = NULL, *dec_small = NULL, *ts = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_INT, &i32));
    assert_ok(floe_ice_type_new(FLOE_ICE_STRING, &str));
    assert_ok(floe_ice_type_decimal(18, 3, &dec));
    assert_ok(floe_ice_type_decimal(5, 2, &dec_small));
    assert_ok(floe_ice_type_new(FLOE_ICE_TIMESTAMP, &ts));
    assert_error(floe_ice_tm_update_column_type(md, "data", i32, &out), FLOE_ERR_TYPE,
                 "cannot change column 'data' from string to int");
    assert_error(floe_ice_tm_update_column_type(md, "id", i32, &out), FLOE_ERR_TYPE, "from long to int");
    assert_error(floe_ice_tm_update_column_type(md, "s.x", str, &out), FLOE_ERR_TYPE, "from int to string");
    assert_error(floe_ice_tm_update_column_type(md, "price", dec, &out), FLOE_ERR_TYPE,
                 "from decimal(9,2) to decimal(18,3)");
    assert_error(floe_ice_tm_update_column_type(md, "price", dec_small, &out), FLOE_ERR_TYPE, "decimal(5,2)");
    assert_error(floe_ice_tm_update_column_type(md, "s", i32, &out), FLOE_ERR_TYPE, "'s' from struct");
    assert_error(floe_ice_tm_update_column_type(md, "ts", ts, &out), FLOE_ERR_TYPE, "timestamptz to timestamp");
    assert_error(floe_ice_tm_update_column_type(md, "nope", i32, &out), FLOE_ERR_NOT_FOUND, "unknown column 'nope'");
    assert_null(out);
    floe_ice_type_free(i32);
    floe_ice_type_free(str);
    floe_ice_type_free(dec);
    floe_ice_type_free(dec_small);
    floe_ice_type_free(ts);
    floe_ice_table_metadata_free(md);
}

/* ---- required / optional ------------------------------------------------------ */

static void set_column_required_and_optional(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *a = NULL, *b = NULL;
    assert_ok(floe_ice_tm_set_column_required(md, "s.x", false, &a));
    assert_false(field(a, "s.x")->required);
    assert_true(field(md, "s.x")->required);
    assert_ok(floe_ice_tm_set_column_required(a, "data", true, &b)); /* empty table */
    assert_true(field(b, "data")->required);
    check_reads_back_equal(b);
    floe_ice_table_metadata_free(a);
    floe_ice_table_metadata_free(b);

    floe_ice_table_metadata *full = with_snapshot(md, "3"), *out = NULL;
    assert_ok(floe_ice_tm_set_column_required(full, "s.x", false, &out));
    floe_ice_table_metadata_free(out);
    out = NULL;
    assert_error(floe_ice_tm_set_column_required(full, "data", true, &out), FLOE_ERR_INVALID_ARGUMENT, "holds rows");
    assert_error(floe_ice_tm_set_column_required(md, "id", false, &out), FLOE_ERR_INVALID_ARGUMENT,
                 "identifier field");
    assert_error(floe_ice_tm_set_column_required(md, "m.key", false, &out), FLOE_ERR_INVALID_ARGUMENT,
                 "map keys are always required");
    assert_error(floe_ice_tm_set_column_required(md, "dat", false, &out), FLOE_ERR_NOT_FOUND, "did you mean");
    assert_null(out);
    /* No change is accepted. */
    assert_ok(floe_ice_tm_set_column_required(full, "data", false, &out));
    assert_int_equal(out->current_schema_id, 0);
    floe_ice_table_metadata_free(out);
    floe_ice_table_metadata_free(full);
    floe_ice_table_metadata_free(md);
}

/* ---- properties ------------------------------------------------------------------ */

static void properties_are_set_replaced_and_removed(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *a = NULL, *b = NULL;
    const char *kv[] = {"owner", "someone", "commit.retry.num-retries", "7"};
    assert_ok(floe_ice_tm_set_properties(md, kv, 2, &a));
    assert_string_equal(floe_ice_tm_property(a, "owner"), "someone");
    assert_string_equal(floe_ice_tm_property(a, "commit.retry.num-retries"), "7");
    assert_string_equal(floe_ice_tm_property(a, "write.format.default"), "parquet");
    assert_string_equal(floe_ice_tm_property(md, "owner"), "floe");
    assert_int_equal(a->n_schemas, 1);
    const char *keys[] = {"owner", "not-set"};
    assert_ok(floe_ice_tm_remove_properties(a, keys, 2, &b));
    assert_null(floe_ice_tm_property(b, "owner"));
    assert_string_equal(floe_ice_tm_property(b, "commit.retry.num-retries"), "7");
    assert_int_equal(b->n_properties, 2);
    check_reads_back_equal(b);
    floe_ice_table_metadata *out = NULL;
    const char *bad[] = {"k", NULL};
    assert_error(floe_ice_tm_set_properties(md, bad, 1, &out), FLOE_ERR_INVALID_ARGUMENT, "no value");
    assert_null(out);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(a);
    floe_ice_table_metadata_free(b);
}

static void metadata_log_keeps_at_most_the_configured_entries(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2), *out = NULL;
    json_t *tree = NULL;
    assert_ok(floe_ice_tm_edit_begin(md, &tree));
    char name[64];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "/m/%05d.metadata.json", i);
        assert_ok(floe_ice_tm_edit_add_metadata_log(tree, name, 1000 + i, 3));
    }
    assert_ok(floe_ice_tm_edit_finish(md, tree, &out));
    assert_int_equal(out->n_metadata_log, 3);
    assert_string_equal(out->metadata_log[0].file, "/m/00002.metadata.json");
    assert_int_equal(out->metadata_log[2].timestamp_ms, 1004);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(out);
}

static void v1_tables_evolve_and_keep_their_v1_form(void **state) {
    (void)state;
    floe_ice_table_metadata *v1 = new_table(1), *out = NULL;
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_STRING, &t));
    assert_ok(floe_ice_tm_add_column(v1, NULL, "extra", t, false, NULL, &out));
    assert_int_equal(out->format_version, 1);
    assert_int_equal(id_of(out, "extra"), 13);
    char *txt = NULL;
    assert_ok(floe_ice_table_metadata_to_json(out, 0, &txt));
    /* v1 writes the current schema as "schema" too: the new one. */
    assert_non_null(strstr(txt, "\"schema\":{\"type\":\"struct\",\"schema-id\":1"));
    floe_free(txt);
    check_reads_back_equal(out);
    floe_ice_type_free(t);
    floe_ice_table_metadata_free(v1);
    floe_ice_table_metadata_free(out);
}

/* Metadata Iceberg Java wrote (its TableMetadataV2Valid fixture). */
static void metadata_from_iceberg_java_evolves(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char path[4096];
    snprintf(path, sizeof path, "%s/apache__iceberg/core/src/test/resources/TableMetadataV2Valid.json", td);
    floe_ice_table_metadata *md = NULL, *out = NULL;
    assert_ok(floe_ice_table_metadata_read(NULL, path, &md));
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_LONG, &t));
    assert_ok(floe_ice_tm_add_column(md, NULL, "w", t, false, NULL, &out));
    assert_int_equal(id_of(out, "w"), 4);
    assert_int_equal(out->last_column_id, 4);
    assert_int_equal(out->current_schema_id, 2);
    assert_int_equal(out->n_schemas, 3);
    assert_int_equal(out->n_snapshots, md->n_snapshots);
    assert_true(out->current_snapshot_id == md->current_snapshot_id);
    assert_string_equal(out->table_uuid, md->table_uuid);
    check_reads_back_equal(out);
    floe_ice_table_metadata_free(out);
    out = NULL;
    /* Snapshots without a total-records summary count as holding rows. */
    assert_error(floe_ice_tm_add_column(md, NULL, "w", t, true, NULL, &out), FLOE_ERR_INVALID_ARGUMENT, "holds rows");
    assert_error(floe_ice_tm_drop_column(md, "z", &out), FLOE_ERR_INVALID_ARGUMENT, "sort order");
    assert_error(floe_ice_tm_drop_column(md, "x", &out), FLOE_ERR_INVALID_ARGUMENT, "identifier field");
    assert_ok(floe_ice_tm_set_column_required(md, "z", false, &out));
    assert_false(field(out, "z")->required);
    floe_ice_type_free(t);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(out);
}

FLOE_TEST_MAIN(cmocka_unit_test(new_table_assigns_fresh_ids_like_iceberg_java),
               cmocka_unit_test(new_table_renumbers_partition_and_sort_fields),
               cmocka_unit_test(new_table_has_uuid_location_properties_and_no_snapshots),
               cmocka_unit_test(new_table_in_format_versions_1_and_3),
               cmocka_unit_test(new_table_unpartitioned_and_unsorted_by_default),
               cmocka_unit_test(new_table_rejects_bad_input),
               cmocka_unit_test(add_column_takes_next_id_and_adds_a_schema),
               cmocka_unit_test(add_nested_column_gets_fresh_ids_for_every_field),
               cmocka_unit_test(add_column_inside_structs_and_list_elements),
               cmocka_unit_test(add_column_errors_name_the_problem),
               cmocka_unit_test(required_column_only_while_the_table_is_empty),
               cmocka_unit_test(drop_column_keeps_ids_unique_forever),
               cmocka_unit_test(drop_nested_and_struct_columns),
               cmocka_unit_test(drop_column_refuses_used_columns),
               cmocka_unit_test(rename_column_keeps_the_id_and_renaming_back_reuses_the_schema),
               cmocka_unit_test(rename_column_errors),
               cmocka_unit_test(update_column_type_allows_legal_promotions),
               cmocka_unit_test(update_column_type_refuses_anything_else),
               cmocka_unit_test(set_column_required_and_optional),
               cmocka_unit_test(properties_are_set_replaced_and_removed),
               cmocka_unit_test(metadata_log_keeps_at_most_the_configured_entries),
               cmocka_unit_test(v1_tables_evolve_and_keep_their_v1_form),
               cmocka_unit_test(metadata_from_iceberg_java_evolves))
