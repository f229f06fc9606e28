/* Schemas: the field index (by id, by Java-style dotted names with
 * element/key/value, case-insensitive, parents, highest id), validation of
 * ids, names and identifier fields, JSON round trips, errors naming the
 * schema and field path, and every schema in the shared test tables. */
#include <dirent.h>
#include <jansson.h>

#include "floe_test.h"

#include "floe/iceberg_schema.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

static const char *SAMPLE =
    "{\"type\":\"struct\",\"schema-id\":2,\"identifier-field-ids\":[1,9],\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"Data\",\"required\":false,\"type\":\"string\",\"doc\":\"payload\"},"
    "{\"id\":3,\"name\":\"points\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":4,"
    "\"element-required\":true,\"element\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":5,\"name\":\"x\",\"required\":true,\"type\":\"double\"},"
    "{\"id\":6,\"name\":\"y\",\"required\":true,\"type\":\"double\"}]}}},"
    "{\"id\":7,\"name\":\"attrs\",\"required\":true,\"type\":{\"type\":\"map\",\"key-id\":10,\"key\":\"string\","
    "\"value-id\":11,\"value-required\":false,\"value\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":12,\"name\":\"v\",\"required\":false,\"type\":\"int\"}]}}},"
    "{\"id\":8,\"name\":\"loc\",\"required\":true,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":9,\"name\":\"zip\",\"required\":true,\"type\":\"string\"}]}},"
    "{\"id\":13,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":14,"
    "\"element-required\":false,\"element\":\"string\"}}]}";

static floe_ice_schema *sample(void) {
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(SAMPLE, &s));
    return s;
}

static int32_t id_of(const floe_ice_schema *s, const char *name, bool cs) {
    const floe_ice_field *f = floe_ice_schema_find_by_name(s, name, cs);
    return f ? f->id : -1;
}

static void index_finds_fields_by_id_at_any_depth(void **state) {
    (void)state;
    floe_ice_schema *s = sample();
    assert_int_equal(s->schema_id, 2);
    assert_int_equal(floe_ice_schema_field_count(s), 14);
    assert_int_equal(floe_ice_schema_highest_field_id(s), 14);
    assert_string_equal(floe_ice_schema_find_field(s, 6)->name, "y");
    assert_string_equal(floe_ice_schema_find_field(s, 2)->doc, "payload");
    assert_null(floe_ice_schema_find_field(s, 99));
    assert_string_equal(floe_ice_schema_field_name(s, 4), "points.element");
    assert_string_equal(floe_ice_schema_field_name(s, 5), "points.element.x");
    assert_string_equal(floe_ice_schema_field_name(s, 10), "attrs.key");
    assert_string_equal(floe_ice_schema_field_name(s, 11), "attrs.value");
    assert_string_equal(floe_ice_schema_field_name(s, 12), "attrs.value.v");
    assert_string_equal(floe_ice_schema_field_name(s, 9), "loc.zip");
    assert_string_equal(floe_ice_schema_field_name(s, 14), "tags.element");
    assert_int_equal(floe_ice_schema_parent_id(s, 1), -1);
    assert_int_equal(floe_ice_schema_parent_id(s, 4), 3);
    assert_int_equal(floe_ice_schema_parent_id(s, 5), 4);
    assert_int_equal(floe_ice_schema_parent_id(s, 12), 11);
    assert_int_equal(floe_ice_schema_parent_id(s, 99), -1);
    assert_true(floe_ice_schema_in_list_or_map(s, 5));
    assert_true(floe_ice_schema_in_list_or_map(s, 10));
    assert_false(floe_ice_schema_in_list_or_map(s, 9));
    assert_false(floe_ice_schema_in_list_or_map(s, 3));
    floe_ice_schema_free(s);
}

static void names_follow_java_with_short_aliases(void **state) {
    (void)state;
    floe_ice_schema *s = sample();
    assert_int_equal(id_of(s, "points.element.x", true), 5);
    assert_int_equal(id_of(s, "points.x", true), 5);          /* short form: element is a struct */
    assert_int_equal(id_of(s, "points.element", true), 4);
    assert_int_equal(id_of(s, "attrs.key", true), 10);
    assert_int_equal(id_of(s, "attrs.value.v", true), 12);
    assert_int_equal(id_of(s, "attrs.v", true), 12);           /* short form: value is a struct */
    assert_int_equal(id_of(s, "tags.element", true), 14);
    assert_int_equal(id_of(s, "tags", true), 13);
    assert_int_equal(id_of(s, "loc.zip", true), 9);
    assert_int_equal(id_of(s, "zip", true), -1);
    assert_int_equal(id_of(s, "data", true), -1);
    assert_int_equal(id_of(s, "Data", true), 2);
    assert_int_equal(id_of(s, "data", false), 2);
    assert_int_equal(id_of(s, "DATA", false), 2);
    assert_int_equal(id_of(s, "POINTS.ELEMENT.X", false), 5);
    floe_ice_schema_free(s);
}

static void case_insensitive_lookup_refuses_ambiguous_names(void **state) {
    (void)state;
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(
        "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\"},"
        "{\"id\":2,\"name\":\"A\",\"required\":true,\"type\":\"int\"}]}",
        &s));
    assert_int_equal(s->schema_id, 0); /* v1 schemas may omit the id */
    assert_int_equal(id_of(s, "a", true), 1);
    assert_int_equal(id_of(s, "A", true), 2);
    assert_int_equal(id_of(s, "a", false), -1);
    floe_ice_schema_free(s);
}

static void json_round_trip_is_identical_in_meaning(void **state) {
    (void)state;
    floe_ice_schema *s = sample(), *back = NULL;
    char *txt = NULL, *txt2 = NULL;
    assert_ok(floe_ice_schema_to_json_text(s, &txt));
    assert_non_null(strstr(txt, "{\"type\":\"struct\",\"schema-id\":2,\"identifier-field-ids\":[1,9],\"fields\":["));
    assert_ok(floe_ice_schema_from_json_text(txt, &back));
    assert_int_equal(back->schema_id, 2);
    assert_true(floe_ice_schema_same_structure(s, back));
    assert_ok(floe_ice_schema_to_json_text(back, &txt2));
    assert_string_equal(txt, txt2);
    floe_ice_schema *copy = NULL;
    assert_ok(floe_ice_schema_copy(s, &copy));
    assert_true(floe_ice_schema_same_structure(s, copy));
    assert_string_equal(floe_ice_schema_field_name(copy, 12), "attrs.value.v");
    floe_free(txt);
    floe_free(txt2);
    floe_ice_schema_free(s);
    floe_ice_schema_free(back);
    floe_ice_schema_free(copy);
}

static void malformed_schema_json_names_the_path(void **state) {
    (void)state;
    floe_ice_schema *s = NULL;
    assert_error(floe_ice_schema_from_json_text(
                     "{\"type\":\"struct\",\"schema-id\":2,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,"
                     "\"type\":{\"type\":\"struct\",\"fields\":[{\"id\":2,\"name\":\"b\",\"required\":true}]}}]}",
                     &s),
                 FLOE_ERR_CORRUPT, "schema 2, field 'a.b': missing 'type'");
    assert_error(floe_ice_schema_from_json_text("{\"type\":\"struct\",\"schema-id\":1}", &s), FLOE_ERR_CORRUPT,
                 "schema 1: missing 'fields'");
    assert_error(floe_ice_schema_from_json_text("{\"type\":\"struct\",\"schema-id\":1,\"fields\":[{\"id\":1,"
                                                "\"required\":true,\"type\":\"int\"}]}",
                                                &s),
                 FLOE_ERR_CORRUPT, "schema 1, field '#0': missing 'name'");
    assert_error(floe_ice_schema_from_json_text("{\"type\":\"struct\",\"schema-id\":\"x\",\"fields\":[]}", &s),
                 FLOE_ERR_CORRUPT, "'schema-id' must be");
    assert_error(floe_ice_schema_from_json_text("{\"type\":\"list\",\"fields\":[]}", &s), FLOE_ERR_CORRUPT,
                 "'type' must be \"struct\"");
    assert_error(floe_ice_schema_from_json_text("[1,2", &s), FLOE_ERR_CORRUPT, "invalid JSON");
    assert_null(s);
}

static void duplicate_ids_and_names_are_rejected(void **state) {
    (void)state;
    floe_ice_schema *s = NULL;
    assert_error(floe_ice_schema_from_json_text(
                     "{\"schema-id\":4,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\"},"
                     "{\"id\":1,\"name\":\"b\",\"required\":true,\"type\":\"int\"}]}",
                     &s),
                 FLOE_ERR_CORRUPT, "schema 4: field id 1 is used by both");
    assert_error(floe_ice_schema_from_json_text(
                     "{\"schema-id\":4,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\"},"
                     "{\"id\":2,\"name\":\"a\",\"required\":true,\"type\":\"int\"}]}",
                     &s),
                 FLOE_ERR_CORRUPT, "multiple fields for name 'a'");
    /* Reserved ids are legal in a schema (position delete files use them)
     * but not in a table's schema; nor are types newer than the table. */
    assert_ok(floe_ice_schema_from_json_text(
        "{\"schema-id\":4,\"fields\":[{\"id\":2147483546,\"name\":\"file_path\",\"required\":true,\"type\":\"string\"},"
        "{\"id\":1,\"name\":\"t\",\"required\":false,\"type\":\"timestamp_ns\"}]}",
        &s));
    assert_error(floe_ice_schema_validate_for_table(s, 3), FLOE_ERR_INVALID_ARGUMENT, "ids above 2147483447 are reserved");
    floe_ice_schema_free(s);
    assert_ok(floe_ice_schema_from_json_text(
        "{\"schema-id\":4,\"fields\":[{\"id\":1,\"name\":\"t\",\"required\":false,\"type\":\"timestamp_ns\"}]}", &s));
    assert_ok(floe_ice_schema_validate_for_table(s, 3));
    assert_error(floe_ice_schema_validate_for_table(s, 2), FLOE_ERR_INVALID_ARGUMENT, "'t' has type 'timestamp_ns', which needs format version 3");
    floe_ice_schema_free(s);
    assert_ok(floe_ice_schema_from_json_text(
        "{\"schema-id\":4,\"fields\":[{\"id\":1,\"name\":\"n\",\"required\":false,\"type\":\"int\",\"write-default\":3}]}", &s));
    assert_ok(floe_ice_schema_validate_for_table(s, 3));
    assert_error(floe_ice_schema_validate_for_table(s, 2), FLOE_ERR_INVALID_ARGUMENT, "'n' has a default value");
    floe_ice_schema_free(s);
    assert_error(floe_ice_schema_from_json_text(
                     "{\"schema-id\":4,\"fields\":[{\"id\":-2,\"name\":\"a\",\"required\":true,\"type\":\"int\"}]}", &s),
                 FLOE_ERR_CORRUPT, "'id' must be");
}

static void identifier_fields_must_be_required_primitives_outside_collections(void **state) {
    (void)state;
    static const struct { const char *ids, *why; } bad[] = {
        {"[99]", "does not exist"},       {"[3]", "is not a primitive"}, {"[2]", "is optional"},
        {"[5]", "is nested in a list"},   {"[15]", "is a float"},      {"[17]", "optional struct"},
    };
    const char *fmt =
        "{\"schema-id\":1,\"identifier-field-ids\":%s,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"opt\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":3,\"name\":\"points\",\"required\":true,\"type\":{\"type\":\"list\",\"element-id\":4,"
        "\"element-required\":true,\"element\":{\"type\":\"struct\",\"fields\":["
        "{\"id\":5,\"name\":\"x\",\"required\":true,\"type\":\"int\"}]}}},"
        "{\"id\":15,\"name\":\"f\",\"required\":true,\"type\":\"float\"},"
        "{\"id\":16,\"name\":\"o\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
        "{\"id\":17,\"name\":\"k\",\"required\":true,\"type\":\"int\"}]}}]}";
    char buf[2048];
    floe_ice_schema *s = NULL;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(buf, sizeof buf, fmt, bad[i].ids);
        assert_error(floe_ice_schema_from_json_text(buf, &s), FLOE_ERR_CORRUPT, bad[i].why);
    }
    snprintf(buf, sizeof buf, fmt, "[1]");
    assert_ok(floe_ice_schema_from_json_text(buf, &s));
    floe_ice_schema_free(s);
}

/* Round-trip every schema of every metadata JSON under `dir`. */
static int round_trip_dir(const char *dir) {
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
            count += round_trip_dir(path);
            continue;
        }
        size_t n = strlen(e->d_name);
        if (n < 14 || strcmp(e->d_name + n - 14, ".metadata.json") != 0) continue;
        json_error_t err;
        json_t *md = json_load_file(path, 0, &err);
        if (!md) continue; /* deliberately malformed test files */
        json_t *schemas = json_object_get(md, "schemas");
        json_t *one = json_object_get(md, "schema");
        size_t ns = json_is_array(schemas) ? json_array_size(schemas) : 0;
        for (size_t i = 0; i < ns + (one ? 1 : 0); i++) {
            json_t *js = i < ns ? json_array_get(schemas, i) : one;
            floe_ice_schema *s = NULL, *back = NULL;
            floe_status st = floe_ice_schema_from_json(js, &s);
            if (st && floe_status_code(st) == FLOE_ERR_UNSUPPORTED) {
                floe_status_free(st);
                continue;
            }
            if (st) fail_msg("%s: %s", path, floe_status_message(st));
            json_t *out = NULL;
            assert_ok(floe_ice_schema_to_json(s, &out));
            assert_ok(floe_ice_schema_from_json(out, &back));
            if (!floe_ice_schema_same_structure(s, back)) fail_msg("%s: schema %d changed in a round trip", path, s->schema_id);
            /* Defaults survive the trip as the same values. */
            for (int32_t id = 0; id <= floe_ice_schema_highest_field_id(s); id++) {
                const floe_ice_field *a = floe_ice_schema_find_field(s, id), *b = floe_ice_schema_find_field(back, id);
                if (!a) continue;
                assert_non_null(b);
                assert_true((a->initial_default == NULL) == (b->initial_default == NULL));
                if (a->initial_default) assert_true(floe_ice_value_equals(a->initial_default, b->initial_default));
                if (a->write_default) assert_true(floe_ice_value_equals(a->write_default, b->write_default));
            }
            json_decref(out);
            floe_ice_schema_free(s);
            floe_ice_schema_free(back);
            count++;
        }
        json_decref(md);
    }
    closedir(d);
    return count;
}

static void every_schema_in_the_shared_tables_round_trips(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    int n = round_trip_dir(dir);
    printf("round-tripped %d schemas\n", n);
    assert_true(n > 50);
}

FLOE_TEST_MAIN(cmocka_unit_test(index_finds_fields_by_id_at_any_depth),
               cmocka_unit_test(names_follow_java_with_short_aliases),
               cmocka_unit_test(case_insensitive_lookup_refuses_ambiguous_names),
               cmocka_unit_test(json_round_trip_is_identical_in_meaning),
               cmocka_unit_test(malformed_schema_json_names_the_path),
               cmocka_unit_test(duplicate_ids_and_names_are_rejected),
               cmocka_unit_test(identifier_fields_must_be_required_primitives_outside_collections),
               cmocka_unit_test(every_schema_in_the_shared_tables_round_trips))
