/* Avro schemas: parsing, validation errors that name where, and writing
 * back with every attribute (Iceberg ids above all) kept. */
#include "floe_test.h"

#include <dirent.h>

#include "floe/memory.h"
#include "formats/avro/avro.h"

static floe_avro_schema *parse_ok(const char *json) {
    floe_avro_schema *s = NULL;
    assert_ok(floe_avro_schema_parse(json, strlen(json), &s));
    return s;
}

static const char *manifest_entry_schema =
    "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
    "{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
    "{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":1},"
    "{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
    "  {\"name\":\"file_path\",\"type\":\"string\",\"doc\":\"Location URI\",\"field-id\":100},"
    "  {\"name\":\"partition\",\"type\":{\"type\":\"record\",\"name\":\"r102\",\"fields\":["
    "     {\"name\":\"day\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}],\"default\":null,\"field-id\":1000}]},"
    "   \"field-id\":102},"
    "  {\"name\":\"column_sizes\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\","
    "     \"name\":\"k117_v118\",\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":117},"
    "     {\"name\":\"value\",\"type\":\"long\",\"field-id\":118}]},\"logicalType\":\"map\",\"element-id\":108}],"
    "   \"default\":null,\"field-id\":108},"
    "  {\"name\":\"props\",\"type\":{\"type\":\"map\",\"values\":\"string\",\"key-id\":7,\"value-id\":8},\"field-id\":9}"
    "]},\"field-id\":2}]}";

static void field_ids_and_attributes_survive_a_round_trip(void **state) {
    (void)state;
    floe_avro_schema *s = parse_ok(manifest_entry_schema);
    assert_int_equal(s->type, FLOE_AVRO_RECORD);
    assert_int_equal(s->n_fields, 3);
    assert_int_equal(s->fields[1].field_id, 1);
    const floe_avro_schema *df = s->fields[2].type;
    assert_int_equal(df->fields[0].field_id, 100);
    assert_string_equal(df->fields[0].doc, "Location URI");
    const floe_avro_schema *cs = floe_avro_optional_inner(df->fields[2].type);
    assert_non_null(cs);
    assert_int_equal(cs->type, FLOE_AVRO_ARRAY);
    assert_int_equal(cs->element_id, 108);
    assert_int_equal(df->fields[3].type->key_id, 7);
    assert_int_equal(df->fields[3].type->value_id, 8);
    const floe_avro_schema *day = floe_avro_optional_inner(df->fields[1].type->fields[0].type);
    assert_int_equal(day->logical, FLOE_AVRO_LT_DATE);

    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_avro_schema_to_json(s, 0, &b));
    /* The written JSON is semantically the input: compare as JSON values. */
    json_t *a = json_loads(manifest_entry_schema, 0, NULL), *w = json_loads(floe_buf_cstr(&b), 0, NULL);
    assert_non_null(w);
    if (!json_equal(a, w)) fail_msg("schema changed on the way through:\n%s", floe_buf_cstr(&b));
    json_decref(a);
    json_decref(w);
    /* And it parses again to the same ids. */
    floe_avro_schema *s2 = parse_ok(floe_buf_cstr(&b));
    assert_int_equal(s2->fields[2].type->fields[1].type->fields[0].field_id, 1000);
    floe_avro_schema_free(s2);
    floe_buf_free(&b);
    floe_avro_schema_free(s);
}

static void errors_name_the_field_path(void **state) {
    (void)state;
    floe_avro_schema *s = NULL;
    const char *bad =
        "{\"type\":\"record\",\"name\":\"e\",\"fields\":[{\"name\":\"data_file\",\"type\":"
        "{\"type\":\"record\",\"name\":\"r2\",\"fields\":[{\"name\":\"partition\",\"type\":\"nosuch\"}]}}]}";
    assert_error(floe_avro_schema_parse(bad, strlen(bad), &s), FLOE_ERR_CORRUPT,
                 "schema field 'data_file.partition': unknown type 'nosuch'");
    const char *nofields = "{\"type\":\"record\",\"name\":\"x\"}";
    assert_error(floe_avro_schema_parse(nofields, strlen(nofields), &s), FLOE_ERR_CORRUPT, "'fields'");
    assert_error(floe_avro_schema_parse("{", 1, &s), FLOE_ERR_CORRUPT, "schema JSON");
    const char *nested_union = "[\"null\",[\"int\"]]";
    assert_error(floe_avro_schema_parse(nested_union, strlen(nested_union), &s), FLOE_ERR_CORRUPT, "union");
    const char *dup = "[\"int\",\"int\"]";
    assert_error(floe_avro_schema_parse(dup, strlen(dup), &s), FLOE_ERR_CORRUPT, "two 'int'");
    assert_null(s);
}

static void recursive_and_namespaced_types_resolve_references(void **state) {
    (void)state;
    floe_avro_schema *s = parse_ok(
        "{\"type\":\"record\",\"name\":\"Node\",\"namespace\":\"a.b\",\"fields\":["
        "{\"name\":\"label\",\"type\":\"string\"},"
        "{\"name\":\"kids\",\"type\":{\"type\":\"array\",\"items\":\"Node\"}},"
        "{\"name\":\"next\",\"type\":[\"null\",\"a.b.Node\"]},"
        "{\"name\":\"md5\",\"type\":{\"type\":\"fixed\",\"name\":\"MD5\",\"namespace\":\"x\",\"size\":16}},"
        "{\"name\":\"md5b\",\"type\":\"x.MD5\"}]}");
    assert_string_equal(s->fullname, "a.b.Node");
    assert_ptr_equal(s->fields[1].type->items, s);
    assert_ptr_equal(s->fields[2].type->branches[1], s);
    assert_ptr_equal(s->fields[4].type, s->fields[3].type);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_avro_schema_to_json(s, 0, &b));
    /* Second uses are written by name. */
    assert_non_null(strstr(floe_buf_cstr(&b), "\"items\":\"a.b.Node\""));
    assert_non_null(strstr(floe_buf_cstr(&b), "\"type\":\"x.MD5\""));
    floe_avro_schema *s2 = parse_ok(floe_buf_cstr(&b));
    assert_ptr_equal(s2->fields[1].type->items, s2);
    floe_avro_schema_free(s2);
    floe_buf_free(&b);
    floe_avro_schema_free(s);
}

static void logical_types_parse_and_unknown_ones_fall_back(void **state) {
    (void)state;
    floe_avro_schema *s = parse_ok(
        "{\"type\":\"record\",\"name\":\"L\",\"fields\":["
        "{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}},"
        "{\"name\":\"u\",\"type\":{\"type\":\"string\",\"logicalType\":\"uuid\"}},"
        "{\"name\":\"t\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}},"
        "{\"name\":\"lt\",\"type\":{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"}},"
        "{\"name\":\"w\",\"type\":{\"type\":\"long\",\"logicalType\":\"wibble\",\"x\":1}},"
        "{\"name\":\"bad\",\"type\":{\"type\":\"int\",\"logicalType\":\"timestamp-millis\"}},"
        "{\"name\":\"dur\",\"type\":{\"type\":\"fixed\",\"name\":\"D\",\"size\":12,\"logicalType\":\"duration\"}}]}");
    assert_int_equal(s->fields[0].type->logical, FLOE_AVRO_LT_DECIMAL);
    assert_int_equal(s->fields[0].type->precision, 9);
    assert_int_equal(s->fields[0].type->scale, 2);
    assert_int_equal(s->fields[1].type->logical, FLOE_AVRO_LT_UUID);
    assert_int_equal(s->fields[2].type->logical, FLOE_AVRO_LT_TIMESTAMP_NANOS);
    assert_int_equal(s->fields[3].type->logical, FLOE_AVRO_LT_LOCAL_TIMESTAMP_MICROS);
    assert_int_equal(s->fields[4].type->logical, FLOE_AVRO_LT_NONE);
    assert_int_equal(s->fields[4].type->type, FLOE_AVRO_LONG);
    assert_int_equal(s->fields[5].type->logical, FLOE_AVRO_LT_NONE); /* wrong base type */
    assert_int_equal(s->fields[6].type->logical, FLOE_AVRO_LT_DURATION);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_avro_schema_to_json(s, 0, &b));
    assert_non_null(strstr(floe_buf_cstr(&b), "\"logicalType\":\"wibble\""));
    assert_non_null(strstr(floe_buf_cstr(&b), "\"x\":1"));
    assert_non_null(strstr(floe_buf_cstr(&b), "\"precision\":9"));
    floe_buf_free(&b);
    floe_avro_schema_free(s);
}

/* avro-c's schema_tests: every pass/ file parses, every fail/ file doesn't. */
static void avro_c_schema_tests_pass_and_fail_as_expected(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    const char *kinds[2] = {"pass", "fail"};
    int counted[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/apache__avro/lang/c/tests/schema_tests/%s", td, kinds[k]);
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            FILE *f = fopen(path, "rb");
            assert_non_null(f);
            char text[65536];
            size_t n = fread(text, 1, sizeof text, f);
            fclose(f);
            floe_avro_schema *s = NULL;
            floe_status st = floe_avro_schema_parse(text, n, &s);
            if (k == 0 && st) fail_msg("%s: %s", e->d_name, floe_status_message(st));
            if (k == 1 && !st) fail_msg("%s parsed but should fail", e->d_name);
            floe_status_free(st);
            floe_avro_schema_free(s);
            counted[k]++;
        }
        closedir(d);
    }
    assert_true(counted[0] >= 20);
    assert_true(counted[1] >= 10);
}

FLOE_TEST_MAIN(cmocka_unit_test(field_ids_and_attributes_survive_a_round_trip),
               cmocka_unit_test(errors_name_the_field_path),
               cmocka_unit_test(recursive_and_namespaced_types_resolve_references),
               cmocka_unit_test(logical_types_parse_and_unknown_ones_fall_back),
               cmocka_unit_test(avro_c_schema_tests_pass_and_fail_as_expected))
