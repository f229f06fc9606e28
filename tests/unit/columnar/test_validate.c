/* floe_array_validate rejects corrupt offsets, short buffers, bad UTF-8, null map keys and short children. */
#include "columnar_util.h"

/* A string array over hand-made offsets and data (copied into floe buffers). */
static floe_array *strings_over(const int32_t *offsets, int n, const char *data, int64_t data_len) {
    floe_buffer *bufs[2];
    assert_ok(floe_buffer_copy(offsets, (int64_t)(n + 1) * 4, &bufs[0]));
    assert_ok(floe_buffer_copy(data, data_len, &bufs[1]));
    floe_array *a;
    assert_ok(floe_array_new(floe_type_primitive(FLOE_TYPE_STRING), n, 0, FLOE_NULL_COUNT_UNKNOWN, NULL, bufs, 2,
                             NULL, 0, &a));
    floe_buffer_release(bufs[0]);
    floe_buffer_release(bufs[1]);
    return a;
}

static void good_strings_pass(void **state) {
    (void)state;
    int32_t o[] = {0, 2, 2, 5};
    floe_array *a = strings_over(o, 3, "hié", 5);
    assert_ok(floe_array_validate(a));
    floe_array_release(a);
}

static void decreasing_offsets_are_corrupt(void **state) {
    (void)state;
    int32_t o[] = {0, 3, 1, 4};
    floe_array *a = strings_over(o, 3, "abcd", 4);
    assert_error(floe_array_validate(a), FLOE_ERR_CORRUPT, "offset 1 at slot 2 is less than 3");
    floe_array_release(a);
}

static void offsets_past_the_data_are_corrupt(void **state) {
    (void)state;
    int32_t o[] = {0, 3, 40};
    floe_array *a = strings_over(o, 2, "abcd", 4);
    assert_error(floe_array_validate(a), FLOE_ERR_CORRUPT, "last offset 40 is beyond the 4 data bytes");
    floe_array_release(a);
    int32_t neg[] = {-1, 2};
    a = strings_over(neg, 1, "ab", 2);
    assert_error(floe_array_validate(a), FLOE_ERR_CORRUPT, "first offset -1 is negative");
    floe_array_release(a);
}

static void invalid_utf8_is_corrupt(void **state) {
    (void)state;
    int32_t o[] = {0, 1, 3};
    floe_array *a = strings_over(o, 2, "a\xc0\xaf", 3); /* overlong '/' */
    assert_error(floe_array_validate(a), FLOE_ERR_CORRUPT, "slot 1 is not valid UTF-8");
    floe_array_release(a);
    int32_t o2[] = {0, 3};
    a = strings_over(o2, 1, "\xed\xa0\x80", 3); /* a surrogate */
    assert_error(floe_array_validate(a), FLOE_ERR_CORRUPT, "not valid UTF-8");
    floe_array_release(a);
}

static void short_values_buffer_is_corrupt(void **state) {
    (void)state;
    floe_buffer *buf;
    assert_ok(floe_buffer_new(12, &buf));
    floe_array *a;
    assert_ok(floe_array_new(floe_type_primitive(FLOE_TYPE_INT64), 2, 0, 0, NULL, &buf, 1, NULL, 0, &a));
    assert_error(floe_array_validate(a), FLOE_ERR_CORRUPT, "values buffer has 12 bytes, needs 16");
    floe_array_release(a);
    /* Sliced so the offset pushes past the end. */
    assert_ok(floe_array_new(floe_type_primitive(FLOE_TYPE_INT32), 2, 2, 0, NULL, &buf, 1, NULL, 0, &a));
    assert_error(floe_array_validate(a), FLOE_ERR_CORRUPT, "needs 16");
    floe_array_release(a);
    floe_buffer_release(buf);
}

static void wrong_null_count_is_corrupt(void **state) {
    (void)state;
    floe_buffer *vals, *valid;
    assert_ok(floe_buffer_new(16, &vals));
    assert_ok(floe_buffer_new(1, &valid));
    valid->data[0] = 0x0b; /* 1 null in 4 */
    floe_array *a;
    assert_ok(floe_array_new(floe_type_primitive(FLOE_TYPE_INT32), 4, 0, 2, valid, &vals, 1, NULL, 0, &a));
    assert_error(floe_array_validate(a), FLOE_ERR_CORRUPT, "null count says 2, the bitmap 1");
    floe_array_release(a);
    floe_buffer_release(vals);
    floe_buffer_release(valid);
}

static void list_offsets_past_child_and_short_struct_children(void **state) {
    (void)state;
    int32_t v[] = {1, 2};
    floe_array *child = make_int32(v, NULL, 2);
    floe_type *lt;
    floe_field el = fld("element", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    assert_ok(floe_type_list(&el, &lt));
    int32_t offs[] = {0, 1, 3};
    floe_buffer *ob;
    assert_ok(floe_buffer_copy(offs, sizeof offs, &ob));
    floe_array *list;
    assert_ok(floe_array_new(lt, 2, 0, 0, NULL, &ob, 1, &child, 1, &list));
    assert_error(floe_array_validate(list), FLOE_ERR_CORRUPT, "last offset 3 is beyond the 2 child slots");
    floe_array_release(list);

    floe_type *st;
    floe_field sf = fld("x", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    assert_ok(floe_type_struct(&sf, 1, &st));
    floe_array *s;
    assert_ok(floe_array_new(st, 3, 0, 0, NULL, NULL, 0, &child, 1, &s));
    assert_error(floe_array_validate(s), FLOE_ERR_CORRUPT, "field 'x' has 2 slots, the struct needs 3");
    floe_array_release(s);
    /* A child of the wrong type names the path. */
    const char *sv[] = {"a", "b", "c"};
    floe_array *strs = make_strings(sv, 3);
    assert_ok(floe_array_new(st, 3, 0, 0, NULL, NULL, 0, &strs, 1, &s));
    assert_error(floe_array_validate(s), FLOE_ERR_CORRUPT, "array 'x': child array is string");
    floe_array_release(s);
    floe_array_release(strs);
    floe_buffer_release(ob);
    floe_array_release(child);
    floe_type_release(lt);
    floe_type_release(st);
}

static void null_map_key_in_range_is_corrupt(void **state) {
    (void)state;
    floe_type *m;
    floe_field k = fld("key", floe_type_primitive(FLOE_TYPE_INT32), false, -1);
    floe_field v = fld("value", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    assert_ok(floe_type_map(&k, &v, false, &m));
    int32_t kv[] = {1, 0};
    int kvalid[] = {1, 0};
    floe_array *keys = make_int32(kv, kvalid, 2), *vals = make_int32(kv, NULL, 2);
    floe_array *kids[2] = {keys, vals};
    floe_array *entries;
    assert_ok(floe_array_new(m->children[0].type, 2, 0, 0, NULL, NULL, 0, kids, 2, &entries));
    int32_t offs[] = {0, 1, 2};
    floe_buffer *ob;
    assert_ok(floe_buffer_copy(offs, sizeof offs, &ob));
    floe_array *map, *first;
    assert_ok(floe_array_new(m, 2, 0, 0, NULL, &ob, 1, &entries, 1, &map));
    assert_error(floe_array_validate(map), FLOE_ERR_CORRUPT, "map has a null key");
    /* The slice that does not reach the null key is fine. */
    assert_ok(floe_array_slice(map, 0, 1, &first));
    assert_ok(floe_array_validate(first));
    floe_array_release(first);
    floe_array_release(map);
    floe_array_release(entries);
    floe_array_release(keys);
    floe_array_release(vals);
    floe_buffer_release(ob);
    floe_type_release(m);
}

static void array_new_checks_buffer_and_child_counts(void **state) {
    (void)state;
    floe_array *a;
    assert_error(floe_array_new(floe_type_primitive(FLOE_TYPE_STRING), 0, 0, 0, NULL, NULL, 0, NULL, 0, &a),
                 FLOE_ERR_INVALID_ARGUMENT, "needs 2 buffers");
    assert_null(a);
}

FLOE_TEST_MAIN(cmocka_unit_test(good_strings_pass),
               cmocka_unit_test(decreasing_offsets_are_corrupt),
               cmocka_unit_test(offsets_past_the_data_are_corrupt),
               cmocka_unit_test(invalid_utf8_is_corrupt),
               cmocka_unit_test(short_values_buffer_is_corrupt),
               cmocka_unit_test(wrong_null_count_is_corrupt),
               cmocka_unit_test(list_offsets_past_child_and_short_struct_children),
               cmocka_unit_test(null_map_key_in_range_is_corrupt),
               cmocka_unit_test(array_new_checks_buffer_and_child_counts))
