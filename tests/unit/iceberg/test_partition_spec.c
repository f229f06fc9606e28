/* Partition specs: JSON forms (object, bare v1 field lists, v3 source-ids,
 * unknown transforms kept), validation against a schema, the partition
 * tuple type, partition paths with Java's URL escaping, equivalence, and
 * every spec in the shared test tables. */
#include <dirent.h>
#include <jansson.h>

#include "floe_test.h"

#include "floe/iceberg_partition_spec.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"data\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"price\",\"required\":false,\"type\":\"decimal(9,2)\"},"
    "{\"id\":4,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":5,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":6,"
    "\"element-required\":true,\"element\":\"string\"}},"
    "{\"id\":7,\"name\":\"loc\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":8,\"name\":\"city\",\"required\":false,\"type\":\"string\"}]}},"
    "{\"id\":9,\"name\":\"d\",\"required\":false,\"type\":\"date\"},"
    "{\"id\":10,\"name\":\"flag\",\"required\":false,\"type\":\"boolean\"}]}";

static floe_ice_schema *schema(void) {
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &s));
    return s;
}

static floe_ice_partition_spec *spec_of(const char *json) {
    floe_ice_partition_spec *p = NULL;
    assert_ok(floe_ice_partition_spec_from_json_text(json, &p));
    return p;
}

static void spec_json_round_trips(void **state) {
    (void)state;
    floe_ice_partition_spec *p = spec_of(
        "{\"spec-id\":3,\"fields\":[{\"source-id\":4,\"field-id\":1000,\"name\":\"ts_day\",\"transform\":\"day\"},"
        "{\"source-id\":1,\"field-id\":1001,\"name\":\"id_bucket\",\"transform\":\"bucket[16]\"},"
        "{\"source-ids\":[1,2],\"field-id\":1002,\"name\":\"z\",\"transform\":\"zorder\"}]}");
    assert_int_equal(p->spec_id, 3);
    assert_int_equal(p->n_fields, 3);
    assert_int_equal(p->fields[0].source_id, 4);
    assert_int_equal(p->fields[1].transform.kind, FLOE_ICE_TRANSFORM_BUCKET);
    assert_int_equal(p->fields[1].transform.param, 16);
    assert_int_equal(p->fields[2].n_source_ids, 2);
    assert_int_equal(p->fields[2].source_ids[1], 2);
    assert_int_equal(p->fields[2].transform.kind, FLOE_ICE_TRANSFORM_UNKNOWN);
    assert_int_equal(floe_ice_partition_spec_last_field_id(p), 1002);
    char *txt = NULL;
    assert_ok(floe_ice_partition_spec_to_json_text(p, &txt));
    assert_string_equal(txt,
                        "{\"spec-id\":3,\"fields\":["
                        "{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":4,\"field-id\":1000},"
                        "{\"name\":\"id_bucket\",\"transform\":\"bucket[16]\",\"source-id\":1,\"field-id\":1001},"
                        "{\"name\":\"z\",\"transform\":\"zorder\",\"source-ids\":[1,2],\"field-id\":1002}]}");
    floe_ice_partition_spec *back = spec_of(txt), *copy = NULL;
    assert_true(floe_ice_partition_spec_equivalent(p, back));
    assert_ok(floe_ice_partition_spec_copy(p, &copy));
    assert_true(floe_ice_partition_spec_equivalent(p, copy));
    assert_int_equal(copy->fields[2].field_id, 1002);
    floe_free(txt);
    floe_ice_partition_spec_free(p);
    floe_ice_partition_spec_free(back);
    floe_ice_partition_spec_free(copy);
}

static void v1_field_lists_get_ids_from_1000(void **state) {
    (void)state;
    json_error_t e;
    json_t *arr = json_loads("[{\"source-id\":2,\"name\":\"data\",\"transform\":\"identity\"},"
                             "{\"source-id\":4,\"name\":\"ts_hour\",\"transform\":\"hour\"}]",
                             0, &e);
    floe_ice_partition_spec *p = NULL;
    assert_ok(floe_ice_partition_fields_from_json(arr, 0, FLOE_ICE_PARTITION_DATA_ID_START, &p));
    assert_int_equal(p->fields[0].field_id, 1000);
    assert_int_equal(p->fields[1].field_id, 1001);
    json_t *out = NULL;
    assert_ok(floe_ice_partition_fields_to_json(p, &out));
    assert_int_equal(json_array_size(out), 2);
    json_decref(out);
    json_decref(arr);
    floe_ice_partition_spec_free(p);
}

static void malformed_spec_json_is_corrupt_with_context(void **state) {
    (void)state;
    floe_ice_partition_spec *p = NULL;
    assert_error(floe_ice_partition_spec_from_json_text("{\"fields\":[]}", &p), FLOE_ERR_CORRUPT, "missing 'spec-id'");
    assert_error(floe_ice_partition_spec_from_json_text("{\"spec-id\":1}", &p), FLOE_ERR_CORRUPT,
                 "partition spec 1: missing 'fields'");
    assert_error(floe_ice_partition_spec_from_json_text(
                     "{\"spec-id\":1,\"fields\":[{\"field-id\":1000,\"name\":\"a\",\"transform\":\"day\"}]}", &p),
                 FLOE_ERR_CORRUPT, "partition spec 1, field 'a': missing 'source-id'");
    assert_error(floe_ice_partition_spec_from_json_text(
                     "{\"spec-id\":1,\"fields\":[{\"source-id\":1,\"field-id\":1000,\"name\":\"a\","
                     "\"transform\":\"bucket[-1]\"}]}",
                     &p),
                 FLOE_ERR_CORRUPT, "partition spec 1, field 'a': invalid transform 'bucket[-1]'");
    assert_error(floe_ice_partition_spec_from_json_text(
                     "{\"spec-id\":1,\"fields\":[{\"source-id\":1,\"field-id\":1000,\"transform\":\"day\"}]}", &p),
                 FLOE_ERR_CORRUPT, "field #0: missing 'name'");
    assert_null(p);
}

static void validation_checks_sources_transforms_and_names(void **state) {
    (void)state;
    floe_ice_schema *s = schema();
    static const struct { const char *json, *why; } bad[] = {
        {"{\"source-id\":99,\"field-id\":1000,\"name\":\"x\",\"transform\":\"identity\"}", "source column 99 does not exist"},
        {"{\"source-id\":7,\"field-id\":1000,\"name\":\"x\",\"transform\":\"identity\"}", "is not a primitive"},
        {"{\"source-id\":6,\"field-id\":1000,\"name\":\"x\",\"transform\":\"identity\"}", "inside a list or map"},
        {"{\"source-id\":2,\"field-id\":1000,\"name\":\"x\",\"transform\":\"hour\"}", "transform 'hour' cannot apply to type 'string'"},
        {"{\"source-id\":10,\"field-id\":1000,\"name\":\"x\",\"transform\":\"bucket[2]\"}", "cannot apply to type 'boolean'"},
        {"{\"source-id\":4,\"field-id\":1000,\"name\":\"data\",\"transform\":\"day\"}", "name conflicts with a schema column"},
        {"{\"source-id\":1,\"field-id\":1000,\"name\":\"data\",\"transform\":\"identity\"}", "name conflicts"},
        {"{\"source-id\":1,\"field-id\":1000,\"name\":\"\",\"transform\":\"identity\"}", "empty name"},
    };
    char buf[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(buf, sizeof buf, "{\"spec-id\":1,\"fields\":[%s]}", bad[i].json);
        floe_ice_partition_spec *p = spec_of(buf);
        assert_error(floe_ice_partition_spec_validate(p, s), FLOE_ERR_INVALID_ARGUMENT, bad[i].why);
        floe_ice_partition_spec_free(p);
    }
    floe_ice_partition_spec *p = spec_of(
        "{\"spec-id\":1,\"fields\":[{\"source-id\":1,\"field-id\":1000,\"name\":\"a\",\"transform\":\"identity\"},"
        "{\"source-id\":2,\"field-id\":1001,\"name\":\"a\",\"transform\":\"truncate[2]\"}]}");
    assert_error(floe_ice_partition_spec_validate(p, s), FLOE_ERR_INVALID_ARGUMENT, "partition spec 1, field 'a': name is used twice");
    floe_ice_partition_spec_free(p);
    p = spec_of("{\"spec-id\":1,\"fields\":[{\"source-id\":1,\"field-id\":1000,\"name\":\"a\",\"transform\":\"identity\"},"
                "{\"source-id\":2,\"field-id\":1000,\"name\":\"b\",\"transform\":\"identity\"}]}");
    assert_error(floe_ice_partition_spec_validate(p, s), FLOE_ERR_INVALID_ARGUMENT, "field id 1000 is used twice");
    floe_ice_partition_spec_free(p);
    /* Valid: identity may reuse its own column's name; nested struct sources;
     * unknown transforms pass. */
    p = spec_of("{\"spec-id\":1,\"fields\":[{\"source-id\":2,\"field-id\":1000,\"name\":\"data\",\"transform\":\"identity\"},"
                "{\"source-id\":8,\"field-id\":1001,\"name\":\"city_trunc\",\"transform\":\"truncate[3]\"},"
                "{\"source-id\":4,\"field-id\":1002,\"name\":\"ts_day\",\"transform\":\"day\"},"
                "{\"source-id\":1,\"field-id\":1003,\"name\":\"odd\",\"transform\":\"custom[3]\"}]}");
    assert_ok(floe_ice_partition_spec_validate(p, s));
    floe_ice_partition_spec_free(p);
    floe_ice_schema_free(s);
}

static void partition_type_uses_result_types_and_field_ids(void **state) {
    (void)state;
    floe_ice_schema *s = schema();
    floe_ice_partition_spec *p = spec_of(
        "{\"spec-id\":1,\"fields\":[{\"source-id\":4,\"field-id\":1000,\"name\":\"ts_day\",\"transform\":\"day\"},"
        "{\"source-id\":1,\"field-id\":1001,\"name\":\"id_bucket\",\"transform\":\"bucket[16]\"},"
        "{\"source-id\":3,\"field-id\":1002,\"name\":\"price_t\",\"transform\":\"truncate[100]\"},"
        "{\"source-id\":9,\"field-id\":1003,\"name\":\"d_month\",\"transform\":\"month\"},"
        "{\"source-id\":2,\"field-id\":1004,\"name\":\"gone\",\"transform\":\"void\"}]}");
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(p, s, false, &t));
    char *str = NULL;
    assert_ok(floe_ice_type_to_string(t, &str));
    assert_string_equal(str, "struct<1000: ts_day: optional date, 1001: id_bucket: optional int, "
                             "1002: price_t: optional decimal(9,2), 1003: d_month: optional int, "
                             "1004: gone: optional string>");
    floe_free(str);
    floe_ice_type_free(t);
    floe_ice_partition_spec_free(p);
    /* A dropped source column: an error, or "unknown" when lenient. */
    p = spec_of("{\"spec-id\":2,\"fields\":[{\"source-id\":42,\"field-id\":1000,\"name\":\"old\",\"transform\":\"identity\"}]}");
    assert_error(floe_ice_partition_spec_partition_type(p, s, false, &t), FLOE_ERR_INVALID_ARGUMENT, "source column 42");
    assert_ok(floe_ice_partition_spec_partition_type(p, s, true, &t));
    assert_int_equal(t->fields[0].type->id, FLOE_ICE_UNKNOWN);
    assert_int_equal(t->fields[0].id, 1000);
    floe_ice_type_free(t);
    floe_ice_partition_spec_free(p);
    floe_ice_schema_free(s);
}

static void partition_paths_escape_like_java(void **state) {
    (void)state;
    floe_ice_partition_spec *p = NULL;
    assert_ok(floe_ice_partition_spec_new(0, &p));
    assert_ok(floe_ice_partition_spec_add(p, 1, 1000, "a", floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0)));
    assert_ok(floe_ice_partition_spec_add(p, 4, 1001, "ts_day", floe_ice_transform_make(FLOE_ICE_TRANSFORM_DAY, 0)));
    floe_ice_value vals[2] = {floe_ice_long(1), floe_ice_date(17501)};
    char *path = NULL;
    assert_ok(floe_ice_partition_path(p, vals, 2, &path));
    assert_string_equal(path, "a=1/ts_day=2017-12-01");
    floe_free(path);
    vals[0] = floe_ice_null(FLOE_ICE_LONG);
    vals[1] = floe_ice_date(-1);
    assert_ok(floe_ice_partition_path(p, vals, 2, &path));
    assert_string_equal(path, "a=null/ts_day=1969-12-31");
    floe_free(path);
    assert_error(floe_ice_partition_path(p, vals, 1, &path), FLOE_ERR_INVALID_ARGUMENT, "2 fields but 1 values");
    floe_ice_partition_spec_free(p);

    assert_ok(floe_ice_partition_spec_new(0, &p));
    assert_ok(floe_ice_partition_spec_add(p, 2, 1000, "da ta/x", floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0)));
    assert_ok(floe_ice_partition_spec_add(p, 4, 1001, "ts", floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0)));
    assert_ok(floe_ice_partition_spec_add(p, 4, 1002, "h", floe_ice_transform_make(FLOE_ICE_TRANSFORM_HOUR, 0)));
    floe_ice_value v3[3] = {floe_ice_string_z("a b/c=d&e\xc3\xa9*._-~"), floe_ice_timestamptz(1512123175038194LL),
                            floe_ice_int(420034)};
    assert_ok(floe_ice_partition_path(p, v3, 3, &path));
    assert_string_equal(path, "da+ta%2Fx=a+b%2Fc%3Dd%26e%C3%A9*._-%7E/ts=2017-12-01T10%3A12%3A55.038194%2B00%3A00/h=2017-12-01-10");
    floe_free(path);
    floe_ice_partition_spec_free(p);
}

static void default_names_follow_java_and_fields_are_found_by_id(void **state) {
    (void)state;
    static const struct { const char *tr, *want; } v[] = {
        {"identity", "ts"}, {"bucket[16]", "ts_bucket"}, {"truncate[4]", "ts_trunc"}, {"year", "ts_year"},
        {"month", "ts_month"}, {"day", "ts_day"}, {"hour", "ts_hour"}, {"void", "ts_null"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        floe_ice_transform t;
        char *name = NULL;
        assert_ok(floe_ice_transform_parse(v[i].tr, &t));
        assert_ok(floe_ice_partition_default_name(&t, "ts", &name));
        assert_string_equal(name, v[i].want);
        floe_free(name);
    }
    floe_ice_partition_spec *p = spec_of(
        "{\"spec-id\":1,\"fields\":[{\"source-id\":4,\"field-id\":1000,\"name\":\"ts_day\",\"transform\":\"day\"},"
        "{\"source-id\":1,\"field-id\":1003,\"name\":\"b\",\"transform\":\"bucket[2]\"}]}");
    assert_string_equal(floe_ice_partition_spec_find_field(p, 1003)->name, "b");
    assert_null(floe_ice_partition_spec_find_field(p, 1001));
    floe_ice_partition_spec_free(p);
}

static void unpartitioned_and_equivalence(void **state) {
    (void)state;
    floe_ice_partition_spec *a = spec_of("{\"spec-id\":0,\"fields\":[]}");
    assert_true(floe_ice_partition_spec_is_unpartitioned(a));
    floe_ice_partition_spec *b = spec_of(
        "{\"spec-id\":1,\"fields\":[{\"source-id\":1,\"field-id\":1000,\"name\":\"x\",\"transform\":\"void\"}]}");
    assert_true(floe_ice_partition_spec_is_unpartitioned(b));
    assert_false(floe_ice_partition_spec_equivalent(a, b));
    floe_ice_partition_spec *c = spec_of(
        "{\"spec-id\":7,\"fields\":[{\"source-id\":1,\"field-id\":1005,\"name\":\"x\",\"transform\":\"void\"}]}");
    assert_true(floe_ice_partition_spec_equivalent(b, c));
    floe_ice_partition_spec_free(a);
    floe_ice_partition_spec_free(b);
    floe_ice_partition_spec_free(c);
}

/* Parse, validate and round-trip every partition spec in the test tables. */
static int specs_in(const char *dir) {
    int count = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) {
            count += specs_in(path);
            continue;
        }
        size_t n = strlen(e->d_name);
        if (n < 14 || strcmp(e->d_name + n - 14, ".metadata.json") != 0) continue;
        json_error_t err;
        json_t *md = json_load_file(path, 0, &err);
        if (!md) continue;
        json_t *specs = json_object_get(md, "partition-specs");
        int32_t cur = 0;
        json_t *jcur = json_object_get(md, "current-schema-id");
        if (json_is_integer(jcur)) cur = (int32_t)json_integer_value(jcur);
        floe_ice_schema *schema = NULL;
        json_t *schemas = json_object_get(md, "schemas");
        for (size_t i = 0; i < json_array_size(schemas); i++) {
            json_t *js = json_array_get(schemas, i);
            if (json_integer_value(json_object_get(js, "schema-id")) == cur) assert_ok(floe_ice_schema_from_json(js, &schema));
        }
        if (!schema && json_object_get(md, "schema")) assert_ok(floe_ice_schema_from_json(json_object_get(md, "schema"), &schema));
        for (size_t i = 0; i < json_array_size(specs); i++) {
            floe_ice_partition_spec *p = NULL, *back = NULL;
            floe_status st = floe_ice_partition_spec_from_json(json_array_get(specs, i), &p);
            if (st) fail_msg("%s: %s", path, floe_status_message(st));
            json_t *out = NULL;
            assert_ok(floe_ice_partition_spec_to_json(p, &out));
            assert_ok(floe_ice_partition_spec_from_json(out, &back));
            assert_true(floe_ice_partition_spec_equivalent(p, back));
            floe_ice_type *pt = NULL;
            if (schema) {
                assert_ok(floe_ice_partition_spec_partition_type(p, schema, true, &pt));
                assert_int_equal(pt->n_fields, p->n_fields);
                floe_ice_type_free(pt);
            }
            json_decref(out);
            floe_ice_partition_spec_free(p);
            floe_ice_partition_spec_free(back);
            count++;
        }
        floe_ice_schema_free(schema);
        json_decref(md);
    }
    closedir(d);
    return count;
}

static void every_spec_in_the_shared_tables_round_trips(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    int n = specs_in(dir);
    printf("round-tripped %d partition specs\n", n);
    assert_true(n > 20);
}

FLOE_TEST_MAIN(cmocka_unit_test(spec_json_round_trips),
               cmocka_unit_test(v1_field_lists_get_ids_from_1000),
               cmocka_unit_test(malformed_spec_json_is_corrupt_with_context),
               cmocka_unit_test(validation_checks_sources_transforms_and_names),
               cmocka_unit_test(partition_type_uses_result_types_and_field_ids),
               cmocka_unit_test(partition_paths_escape_like_java),
               cmocka_unit_test(default_names_follow_java_and_fields_are_found_by_id),
               cmocka_unit_test(unpartitioned_and_equivalence),
               cmocka_unit_test(every_spec_in_the_shared_tables_round_trips))
