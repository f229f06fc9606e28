/* Struct, list and map builders produce valid Arrow nesting and print as {a: 1, b: [1, 2]}. */
#include "columnar_util.h"

/* struct<a: int32, b: list<int32>> */
static floe_type *struct_of_list_type(void) {
    floe_type *list, *st;
    floe_field el = fld("element", floe_type_primitive(FLOE_TYPE_INT32), true, 3);
    assert_ok(floe_type_list(&el, &list));
    floe_field fs[2] = {fld("a", floe_type_primitive(FLOE_TYPE_INT32), true, 1), fld("b", list, true, 2)};
    assert_ok(floe_type_struct(fs, 2, &st));
    floe_type_release(list);
    return st;
}

static void struct_of_list_builds_and_formats(void **state) {
    (void)state;
    floe_type *t = struct_of_list_type();
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(t, 0, &b));
    floe_builder *fa = floe_builder_child(b, 0), *fb = floe_builder_child(b, 1);
    floe_builder *el = floe_builder_child(fb, 0);
    /* {a: 1, b: [1, 2]} */
    assert_ok(floe_builder_append_int32(fa, 1));
    assert_ok(floe_builder_append_int32(el, 1));
    assert_ok(floe_builder_append_int32(el, 2));
    assert_ok(floe_builder_append_list(fb));
    assert_ok(floe_builder_append_valid(b));
    /* NULL */
    assert_ok(floe_builder_append_null(b));
    /* {a: NULL, b: []} */
    assert_ok(floe_builder_append_null(fa));
    assert_ok(floe_builder_append_list(fb));
    assert_ok(floe_builder_append_valid(b));
    /* {a: 4, b: NULL} then {a: 5, b: [NULL]} */
    assert_ok(floe_builder_append_int32(fa, 4));
    assert_ok(floe_builder_append_null(fb));
    assert_ok(floe_builder_append_valid(b));
    assert_ok(floe_builder_append_int32(fa, 5));
    assert_ok(floe_builder_append_null(el));
    assert_ok(floe_builder_append_list(fb));
    assert_ok(floe_builder_append_valid(b));
    assert_ok(floe_builder_finish(b, &a));
    assert_ok(floe_array_validate(a));
    assert_string_equal(fmt_all(a), "{a: 1, b: [1, 2]}|NULL|{a: NULL, b: []}|{a: 4, b: NULL}|{a: 5, b: [NULL]}");
    assert_int_equal(floe_array_null_count(a), 1);
    assert_int_equal(a->children[1]->children[0]->length, 3);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(t);
}

static void struct_slot_with_missing_field_value_is_rejected(void **state) {
    (void)state;
    floe_type *t = struct_of_list_type();
    floe_builder *b;
    assert_ok(floe_builder_new(t, 0, &b));
    assert_ok(floe_builder_append_int32(floe_builder_child(b, 0), 1));
    assert_error(floe_builder_append_valid(b), FLOE_ERR_INVALID_ARGUMENT, "struct field 'b'");
    floe_builder_free(b);
    floe_type_release(t);
}

static floe_type *map_type(void) {
    floe_type *m;
    floe_field k = fld("key", floe_type_primitive(FLOE_TYPE_STRING), false, 5);
    floe_field v = fld("value", floe_type_primitive(FLOE_TYPE_INT64), true, 6);
    assert_ok(floe_type_map(&k, &v, false, &m));
    return m;
}

static void map_builds_with_keys_and_values(void **state) {
    (void)state;
    floe_type *t = map_type();
    assert_int_equal(t->children[0].type->id, FLOE_TYPE_STRUCT);
    assert_false(t->children[0].nullable);
    assert_false(t->children[0].type->children[0].nullable);
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(t, 0, &b));
    floe_builder *k = floe_builder_map_keys(b), *v = floe_builder_map_values(b);
    assert_ok(floe_builder_append_string(k, "x"));
    assert_ok(floe_builder_append_int64(v, 1));
    assert_ok(floe_builder_append_string(k, "it's"));
    assert_ok(floe_builder_append_null(v));
    assert_ok(floe_builder_append_map(b));
    assert_ok(floe_builder_append_null(b));
    assert_ok(floe_builder_append_map(b)); /* empty map */
    assert_ok(floe_builder_finish(b, &a));
    assert_ok(floe_array_validate(a));
    assert_string_equal(fmt_all(a), "{'x': 1, 'it''s': NULL}|NULL|{}");
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(t);
}

static void null_map_key_is_a_constraint_error(void **state) {
    (void)state;
    floe_type *t = map_type();
    floe_builder *b;
    assert_ok(floe_builder_new(t, 0, &b));
    assert_ok(floe_builder_append_null(floe_builder_map_keys(b)));
    assert_ok(floe_builder_append_int64(floe_builder_map_values(b), 1));
    assert_error(floe_builder_append_map(b), FLOE_ERR_CONSTRAINT, "map key is null");
    floe_builder_free(b);
    floe_type_release(t);
}

static void unclosed_list_elements_fail_finish(void **state) {
    (void)state;
    floe_type *t;
    floe_field el = fld("element", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    assert_ok(floe_type_list(&el, &t));
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(t, 0, &b));
    assert_ok(floe_builder_append_int32(floe_builder_child(b, 0), 1));
    assert_error(floe_builder_finish(b, &a), FLOE_ERR_INVALID_ARGUMENT, "after the last closed slot");
    floe_builder_free(b);
    floe_type_release(t);
}

static void list_of_map_of_struct_nests_deeply(void **state) {
    (void)state;
    /* list<map<string, struct<x: int32>>> */
    floe_type *inner, *m, *l;
    floe_field x = fld("x", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    assert_ok(floe_type_struct(&x, 1, &inner));
    floe_field k = fld("key", floe_type_primitive(FLOE_TYPE_STRING), false, -1);
    floe_field v = fld("value", inner, true, -1);
    assert_ok(floe_type_map(&k, &v, true, &m));
    floe_field el = fld("element", m, true, -1);
    assert_ok(floe_type_list(&el, &l));
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(l, 0, &b));
    floe_builder *mb = floe_builder_child(b, 0);
    floe_builder *vb = floe_builder_map_values(mb);
    assert_ok(floe_builder_append_string(floe_builder_map_keys(mb), "p"));
    assert_ok(floe_builder_append_int32(floe_builder_child(vb, 0), 7));
    assert_ok(floe_builder_append_valid(vb));
    assert_ok(floe_builder_append_map(mb));
    assert_ok(floe_builder_append_null(mb));
    assert_ok(floe_builder_append_list(b));
    assert_ok(floe_builder_finish(b, &a));
    assert_ok(floe_array_validate(a));
    assert_string_equal(fmt_at(a, 0), "[{'p': {x: 7}}, NULL]");
    floe_buf tb = FLOE_BUF_INIT;
    assert_ok(floe_type_to_string(l, &tb));
    assert_string_equal(floe_buf_cstr(&tb), "list<map<string, struct<x: int32>>>");
    floe_buf_free(&tb);
    floe_array_release(a);
    floe_builder_free(b);
    floe_type_release(inner);
    floe_type_release(m);
    floe_type_release(l);
}

static void type_equality_and_compatibility(void **state) {
    (void)state;
    floe_type *a = struct_of_list_type(), *b = struct_of_list_type(), *c;
    assert_true(floe_type_equals(a, b));
    floe_field fs[2] = {fld("renamed", floe_type_primitive(FLOE_TYPE_INT32), false, 9), a->children[1]};
    assert_ok(floe_type_struct(fs, 2, &c));
    assert_false(floe_type_equals(a, c));
    assert_true(floe_type_compatible(a, c));
    assert_int_equal(floe_schema_find(c, "renamed"), 0);
    assert_int_equal(floe_schema_find_id(a, 2), 1);
    assert_int_equal(floe_schema_find(a, "zz"), -1);
    floe_type *d1, *d2;
    assert_ok(floe_type_decimal(10, 2, &d1));
    assert_ok(floe_type_decimal(10, 3, &d2));
    assert_false(floe_type_compatible(d1, d2));
    floe_type_release(d2);
    assert_error(floe_type_decimal(39, 0, &d2), FLOE_ERR_INVALID_ARGUMENT, "precision 39");
    floe_type_release(d1);
    floe_type_release(a);
    floe_type_release(b);
    floe_type_release(c);
}

static void nulls_array_of_nested_type_is_valid(void **state) {
    (void)state;
    floe_type *t = struct_of_list_type();
    floe_array *a;
    assert_ok(floe_array_new_nulls(t, 3, &a));
    assert_ok(floe_array_validate(a));
    assert_int_equal(floe_array_null_count(a), 3);
    assert_string_equal(fmt_all(a), "NULL|NULL|NULL");
    floe_array_release(a);
    floe_type_release(t);
}

FLOE_TEST_MAIN(cmocka_unit_test(struct_of_list_builds_and_formats),
               cmocka_unit_test(struct_slot_with_missing_field_value_is_rejected),
               cmocka_unit_test(map_builds_with_keys_and_values),
               cmocka_unit_test(null_map_key_is_a_constraint_error),
               cmocka_unit_test(unclosed_list_elements_fail_finish),
               cmocka_unit_test(list_of_map_of_struct_nests_deeply),
               cmocka_unit_test(type_equality_and_compatibility),
               cmocka_unit_test(nulls_array_of_nested_type_is_valid))
