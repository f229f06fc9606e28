/* The Iceberg type model: type strings parse and print per Appendix C,
 * nested types build, copy and compare, the JSON forms round-trip, v3 types
 * are recognised but reported unsupported for values, and promotion follows
 * the schema-evolution table. */
#include "floe_test.h"

#include "floe/iceberg_types.h"
#include "floe/memory.h"
#include "iceberg/spec/ice_internal.h"

static floe_ice_type *parse(const char *s) {
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_parse(s, &t));
    return t;
}

static void assert_prints(const floe_ice_type *t, const char *want) {
    char *s = NULL;
    assert_ok(floe_ice_type_to_string(t, &s));
    assert_string_equal(s, want);
    floe_free(s);
}

static void every_primitive_type_string_round_trips(void **state) {
    (void)state;
    static const char *names[] = {"boolean", "int", "long", "float", "double", "date", "time", "timestamp",
                                  "timestamptz", "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary",
                                  "unknown", "variant", "geometry", "geography", "decimal(9,2)", "fixed[16]",
                                  "geometry(srid:4326)", "geography(srid:4326,spherical)"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        floe_ice_type *t = parse(names[i]);
        assert_true(floe_ice_type_is_primitive(t));
        assert_prints(t, names[i]);
        floe_ice_type_free(t);
    }
}

static void decimal_and_fixed_parameters_parse_with_spaces(void **state) {
    (void)state;
    floe_ice_type *t = parse("decimal(9, 2)");
    assert_int_equal(t->id, FLOE_ICE_DECIMAL);
    assert_int_equal(t->precision, 9);
    assert_int_equal(t->scale, 2);
    assert_prints(t, "decimal(9,2)");
    floe_ice_type_free(t);
    t = parse(" DECIMAL( 38 , 0 ) ");
    assert_int_equal(t->precision, 38);
    floe_ice_type_free(t);
    t = parse("fixed[16]");
    assert_int_equal(t->id, FLOE_ICE_FIXED);
    assert_int_equal(t->length, 16);
    floe_ice_type_free(t);
    t = parse("geography(srid:4326, Vincenty)");
    assert_string_equal(t->crs, "srid:4326");
    assert_string_equal(t->algorithm, "vincenty");
    floe_ice_type_free(t);
}

static void bad_type_strings_are_rejected_with_the_text(void **state) {
    (void)state;
    floe_ice_type *t = NULL;
    assert_error(floe_ice_type_parse("integer", &t), FLOE_ERR_INVALID_ARGUMENT, "'integer'");
    assert_error(floe_ice_type_parse("decimal(39,2)", &t), FLOE_ERR_INVALID_ARGUMENT, "precision 39");
    assert_error(floe_ice_type_parse("decimal(9)", &t), FLOE_ERR_INVALID_ARGUMENT, "decimal(P,S)");
    assert_error(floe_ice_type_parse("decimal(9,2", &t), FLOE_ERR_INVALID_ARGUMENT, "decimal(9,2");
    assert_error(floe_ice_type_parse("fixed[0]", &t), FLOE_ERR_INVALID_ARGUMENT, "fixed");
    assert_error(floe_ice_type_parse("fixed[x]", &t), FLOE_ERR_INVALID_ARGUMENT, "fixed[L]");
    assert_error(floe_ice_type_parse("int(3)", &t), FLOE_ERR_INVALID_ARGUMENT, "no parameters");
    assert_error(floe_ice_type_parse("geography(srid:4326,flat)", &t), FLOE_ERR_INVALID_ARGUMENT, "flat");
    assert_error(floe_ice_type_parse("", &t), FLOE_ERR_INVALID_ARGUMENT, "unknown type");
    assert_null(t);
}

static floe_ice_type *sample_nested(void) {
    floe_ice_type *st = NULL, *inner = NULL, *lst = NULL, *map = NULL, *tmp = NULL;
    assert_ok(floe_ice_type_struct(&st));
    assert_ok(floe_ice_type_new(FLOE_ICE_LONG, &tmp));
    assert_ok(floe_ice_struct_add_field(st, 1, "id", true, tmp, "row id"));
    assert_ok(floe_ice_type_struct(&inner));
    assert_ok(floe_ice_type_new(FLOE_ICE_DOUBLE, &tmp));
    assert_ok(floe_ice_struct_add_field(inner, 4, "x", false, tmp, NULL));
    assert_ok(floe_ice_type_list(3, true, inner, &lst));
    assert_ok(floe_ice_struct_add_field(st, 2, "points", false, lst, NULL));
    floe_ice_type *k = NULL, *v = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_STRING, &k));
    assert_ok(floe_ice_type_decimal(9, 2, &v));
    assert_ok(floe_ice_type_map(6, k, 7, false, v, &map));
    assert_ok(floe_ice_struct_add_field(st, 5, "prices", true, map, NULL));
    return st;
}

static void nested_types_build_print_copy_and_compare(void **state) {
    (void)state;
    floe_ice_type *t = sample_nested();
    assert_prints(t, "struct<1: id: required long, 2: points: optional list<struct<4: x: optional double>>, "
                     "5: prices: required map<string, decimal(9,2)>>");
    const floe_ice_field *pts = &t->fields[1];
    assert_string_equal(floe_ice_list_element(pts->type)->name, "element");
    assert_int_equal(floe_ice_list_element(pts->type)->id, 3);
    assert_true(floe_ice_map_key(t->fields[2].type)->required);
    assert_int_equal(floe_ice_map_value(t->fields[2].type)->id, 7);
    floe_ice_type *c = NULL;
    assert_ok(floe_ice_type_copy(t, &c));
    assert_true(floe_ice_type_equals(t, c));
    assert_string_equal(c->fields[0].doc, "row id");
    c->fields[2].type->fields[1].required = true;
    assert_false(floe_ice_type_equals(t, c));
    floe_ice_type_free(c);
    floe_ice_type_free(t);
}

static void nested_type_json_round_trips(void **state) {
    (void)state;
    floe_ice_type *t = sample_nested();
    json_t *j = NULL;
    assert_ok(floe_ice_type_to_json(t, &j));
    char *txt = json_dumps(j, JSON_COMPACT);
    assert_non_null(strstr(txt, "{\"type\":\"list\",\"element-id\":3,\"element\":{\"type\":\"struct\""));
    assert_non_null(strstr(txt, "\"key-id\":6,\"key\":\"string\",\"value-id\":7,\"value\":\"decimal(9,2)\","
                                "\"value-required\":false"));
    assert_non_null(strstr(txt, "\"doc\":\"row id\""));
    free(txt);
    floe_ice_type *back = NULL;
    assert_ok(floe_ice_type_from_json(j, "type", "", &back));
    assert_true(floe_ice_type_equals(t, back));
    assert_string_equal(back->fields[0].doc, "row id");
    json_decref(j);
    floe_ice_type_free(back);
    floe_ice_type_free(t);
}

static void type_json_errors_name_the_field_path(void **state) {
    (void)state;
    json_error_t e;
    json_t *j = json_loads("{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,"
                           "\"type\":{\"type\":\"struct\",\"fields\":[{\"id\":2,\"name\":\"b\",\"required\":false}]}}]}",
                           0, &e);
    assert_non_null(j);
    floe_ice_type *t = NULL;
    assert_error(floe_ice_type_from_json(j, "schema 2", "", &t), FLOE_ERR_CORRUPT,
                 "schema 2, field 'a.b': missing 'type'");
    json_decref(j);
    j = json_loads("{\"type\":\"list\",\"element-id\":1,\"element\":\"strung\",\"element-required\":true}", 0, &e);
    assert_error(floe_ice_type_from_json(j, "schema 0", "tags", &t), FLOE_ERR_CORRUPT,
                 "schema 0, field 'tags.element': unknown or invalid type 'strung'");
    json_decref(j);
    j = json_loads("{\"type\":\"map\",\"key-id\":1,\"key\":\"string\",\"value\":\"int\",\"value-required\":true}", 0, &e);
    assert_error(floe_ice_type_from_json(j, "schema 0", "m", &t), FLOE_ERR_CORRUPT, "field 'm': missing 'value-id'");
    json_decref(j);
    j = json_loads("{\"type\":\"struct\",\"fields\":[{\"id\":-4,\"name\":\"a\",\"required\":true,\"type\":\"int\"}]}", 0, &e);
    assert_error(floe_ice_type_from_json(j, "schema 0", "", &t), FLOE_ERR_CORRUPT, "field 'a': 'id' must be");
    json_decref(j);
    assert_null(t);
}

static void defaults_are_kept_typed_and_written_back(void **state) {
    (void)state;
    json_error_t e;
    json_t *j = json_loads(
        "{\"type\":\"struct\",\"fields\":["
        "{\"id\":1,\"name\":\"d\",\"required\":false,\"type\":\"decimal(16, 2)\",\"initial-default\":\"12345.00\","
        "\"write-default\":\"1.50\"},"
        "{\"id\":2,\"name\":\"l\",\"required\":false,\"type\":\"long\",\"initial-default\":-9223372036854775808},"
        "{\"id\":3,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":[]},\"initial-default\":{}},"
        "{\"id\":4,\"name\":\"n\",\"required\":false,\"type\":\"string\",\"initial-default\":null}]}",
        0, &e);
    assert_non_null(j);
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_from_json(j, "schema 0", "", &t));
    const floe_ice_field *d = &t->fields[0];
    assert_non_null(d->initial_default);
    assert_int_equal(d->initial_default->type, FLOE_ICE_DECIMAL);
    assert_true(d->initial_default->v.dec == 1234500);
    assert_true(d->write_default->v.dec == 150);
    assert_true(t->fields[1].initial_default->v.i64 == INT64_MIN);
    assert_string_equal(t->fields[2].initial_default_json, "{}");
    assert_null(t->fields[3].initial_default);
    json_t *out = NULL;
    assert_ok(floe_ice_type_to_json(t, &out));
    char *txt = json_dumps(out, JSON_COMPACT);
    assert_non_null(strstr(txt, "\"initial-default\":\"12345.00\",\"write-default\":\"1.50\""));
    assert_non_null(strstr(txt, "\"initial-default\":-9223372036854775808"));
    assert_non_null(strstr(txt, "\"initial-default\":{}"));
    free(txt);
    json_decref(out);
    json_decref(j);
    floe_ice_type_free(t);

    j = json_loads("{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"v\",\"required\":false,\"type\":\"variant\","
                   "\"initial-default\":1}]}",
                   0, &e);
    assert_error(floe_ice_type_from_json(j, "schema 3", "", &t), FLOE_ERR_CORRUPT, "must be null");
    json_decref(j);
    j = json_loads("{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"i\",\"required\":false,\"type\":\"int\","
                   "\"initial-default\":\"x\"}]}",
                   0, &e);
    assert_error(floe_ice_type_from_json(j, "schema 3", "", &t), FLOE_ERR_CORRUPT, "field 'i': 'initial-default'");
    json_decref(j);
}

static void v3_types_are_recognised_but_unsupported_for_values(void **state) {
    (void)state;
    floe_ice_type *t = sample_nested();
    assert_int_equal(floe_ice_type_min_format_version(t), 1);
    assert_ok(floe_ice_type_check_supported(t, "table"));
    floe_ice_type *v = parse("variant");
    assert_ok(floe_ice_struct_add_field(t, 9, "payload", false, v, NULL));
    assert_int_equal(floe_ice_type_min_format_version(t), 3);
    assert_error(floe_ice_type_check_supported(t, "table"), FLOE_ERR_UNSUPPORTED, "table, field 'payload': type 'variant' is not supported");
    floe_ice_type_free(t);
    t = parse("timestamp_ns");
    assert_int_equal(floe_ice_type_min_format_version(t), 3);
    floe_ice_type_free(t);
}

static bool promotes(const char *from, const char *to, int version) {
    floe_ice_type *a = parse(from), *b = parse(to);
    bool r = floe_ice_type_can_promote(a, b, version);
    floe_ice_type_free(a);
    floe_ice_type_free(b);
    return r;
}

static void promotion_follows_the_schema_evolution_table(void **state) {
    (void)state;
    assert_true(promotes("int", "long", 1));
    assert_true(promotes("float", "double", 2));
    assert_true(promotes("decimal(9,2)", "decimal(18,2)", 1));
    assert_false(promotes("decimal(9,2)", "decimal(18,3)", 1));
    assert_false(promotes("decimal(18,2)", "decimal(9,2)", 1));
    assert_true(promotes("int", "int", 1));
    assert_false(promotes("long", "int", 3));
    assert_false(promotes("int", "string", 3));
    assert_false(promotes("double", "float", 3));
    assert_false(promotes("date", "timestamp", 2));
    assert_true(promotes("date", "timestamp", 3));
    assert_true(promotes("date", "timestamp_ns", 3));
    assert_false(promotes("date", "timestamptz", 3));
    assert_false(promotes("date", "timestamptz_ns", 3));
    assert_true(promotes("unknown", "string", 3));
    assert_false(promotes("unknown", "string", 2));
    assert_false(promotes("fixed[4]", "fixed[8]", 3));
}

FLOE_TEST_MAIN(cmocka_unit_test(every_primitive_type_string_round_trips),
               cmocka_unit_test(decimal_and_fixed_parameters_parse_with_spaces),
               cmocka_unit_test(bad_type_strings_are_rejected_with_the_text),
               cmocka_unit_test(nested_types_build_print_copy_and_compare),
               cmocka_unit_test(nested_type_json_round_trips),
               cmocka_unit_test(type_json_errors_name_the_field_path),
               cmocka_unit_test(defaults_are_kept_typed_and_written_back),
               cmocka_unit_test(v3_types_are_recognised_but_unsupported_for_values),
               cmocka_unit_test(promotion_follows_the_schema_evolution_table))
