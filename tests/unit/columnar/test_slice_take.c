/* Slicing is zero-copy with offsets; take, concat and projection keep every type's values. */
#include "columnar_util.h"

/* A batch (id int32, name string, tags list<string>, attrs map<string,int32>,
 * flag bool, pt struct<x: float64>) of 6 rows with nulls sprinkled in. */
static floe_batch *sample_batch(void) {
    floe_type *tags, *attrs, *pt;
    floe_field el = fld("element", floe_type_primitive(FLOE_TYPE_STRING), true, -1);
    assert_ok(floe_type_list(&el, &tags));
    floe_field k = fld("key", floe_type_primitive(FLOE_TYPE_STRING), false, -1);
    floe_field v = fld("value", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    assert_ok(floe_type_map(&k, &v, false, &attrs));
    floe_field x = fld("x", floe_type_primitive(FLOE_TYPE_FLOAT64), true, -1);
    assert_ok(floe_type_struct(&x, 1, &pt));
    floe_field fs[6] = {
        fld("id", floe_type_primitive(FLOE_TYPE_INT32), false, 1),
        fld("name", floe_type_primitive(FLOE_TYPE_STRING), true, 2),
        fld("tags", tags, true, 3),
        fld("attrs", attrs, true, 4),
        fld("flag", floe_type_primitive(FLOE_TYPE_BOOL), true, 5),
        fld("pt", pt, true, 6),
    };
    floe_type *schema;
    assert_ok(floe_type_struct(fs, 6, &schema));
    floe_builder *bs[6];
    for (int c = 0; c < 6; c++) assert_ok(floe_builder_new(schema->children[c].type, 0, &bs[c]));
    for (int r = 0; r < 6; r++) {
        assert_ok(floe_builder_append_int32(bs[0], r));
        if (r == 2) assert_ok(floe_builder_append_null(bs[1]));
        else {
            char s[32];
            snprintf(s, sizeof s, "n%d", r);
            assert_ok(floe_builder_append_string(bs[1], s));
        }
        if (r == 3) assert_ok(floe_builder_append_null(bs[2]));
        else {
            for (int j = 0; j < r % 3; j++) {
                char s[32];
                snprintf(s, sizeof s, "t%d%d", r, j);
                assert_ok(floe_builder_append_string(floe_builder_child(bs[2], 0), s));
            }
            assert_ok(floe_builder_append_list(bs[2]));
        }
        if (r == 1) assert_ok(floe_builder_append_null(bs[3]));
        else {
            assert_ok(floe_builder_append_string(floe_builder_map_keys(bs[3]), "k"));
            assert_ok(floe_builder_append_int32(floe_builder_map_values(bs[3]), r * 10));
            assert_ok(floe_builder_append_map(bs[3]));
        }
        if (r == 4) assert_ok(floe_builder_append_null(bs[4]));
        else assert_ok(floe_builder_append_bool(bs[4], r % 2));
        if (r == 5) assert_ok(floe_builder_append_null(bs[5]));
        else {
            assert_ok(floe_builder_append_double(floe_builder_child(bs[5], 0), r + 0.5));
            assert_ok(floe_builder_append_valid(bs[5]));
        }
    }
    floe_array *cols[6];
    for (int c = 0; c < 6; c++) {
        assert_ok(floe_builder_finish(bs[c], &cols[c]));
        floe_builder_free(bs[c]);
    }
    floe_batch *b;
    assert_ok(floe_batch_new(schema, cols, 6, 6, &b));
    for (int c = 0; c < 6; c++) floe_array_release(cols[c]);
    floe_type_release(schema);
    floe_type_release(tags);
    floe_type_release(attrs);
    floe_type_release(pt);
    return b;
}

/* Row r of a batch as "c0;c1;..." */
static const char *row_text(const floe_batch *b, int64_t r) {
    static char text[1024];
    floe_buf out = FLOE_BUF_INIT;
    for (int32_t c = 0; c < b->num_columns; c++) {
        if (c) assert_ok(floe_buf_append_byte(&out, ';'));
        assert_ok(floe_format_value(b->columns[c], r, &out));
    }
    snprintf(text, sizeof text, "%s", floe_buf_cstr(&out));
    floe_buf_free(&out);
    return text;
}

static void sample_rows_format_as_expected(void **state) {
    (void)state;
    floe_batch *b = sample_batch();
    assert_ok(floe_batch_validate(b));
    assert_string_equal(row_text(b, 0), "0;n0;[];{'k': 0};false;{x: 0.5}");
    assert_string_equal(row_text(b, 2), "2;NULL;['t20', 't21'];{'k': 20};false;{x: 2.5}");
    assert_string_equal(row_text(b, 5), "5;n5;['t50', 't51'];{'k': 50};true;NULL");
    floe_batch_release(b);
}

static void slice_shares_buffers_and_applies_offset(void **state) {
    (void)state;
    floe_batch *b = sample_batch(), *s, *s2;
    assert_ok(floe_batch_slice(b, 2, 3, &s));
    assert_int_equal(s->num_rows, 3);
    assert_ptr_equal(s->columns[1]->buffers[1], b->columns[1]->buffers[1]);
    assert_int_equal(s->columns[1]->offset, 2);
    assert_int_equal(floe_array_null_count(s->columns[1]), 1);
    assert_ok(floe_batch_validate(s));
    /* A slice of a slice. */
    assert_ok(floe_batch_slice(s, 1, 2, &s2));
    assert_string_equal(row_text(s2, 0), "3;n3;NULL;{'k': 30};true;{x: 3.5}");
    assert_string_equal(row_text(s2, 1), "4;n4;['t40'];{'k': 40};NULL;{x: 4.5}");
    floe_batch_release(s2);
    assert_error(floe_batch_slice(s, 2, 2, &s2), FLOE_ERR_INVALID_ARGUMENT, "outside");
    assert_null(s2);
    floe_batch_release(s);
    floe_batch_release(b);
}

static void take_gathers_rows_of_every_column(void **state) {
    (void)state;
    floe_batch *b = sample_batch(), *s, *t;
    assert_ok(floe_batch_slice(b, 1, 5, &s)); /* take from an offset view */
    uint32_t idx[] = {4, 1, 1, 0};
    assert_ok(floe_batch_take(s, idx, 4, &t));
    assert_ok(floe_batch_validate(t));
    assert_int_equal(t->num_rows, 4);
    char want[1024];
    snprintf(want, sizeof want, "%s", row_text(b, 5));
    assert_string_equal(row_text(t, 0), want);
    snprintf(want, sizeof want, "%s", row_text(b, 2));
    assert_string_equal(row_text(t, 1), want);
    assert_string_equal(row_text(t, 2), want);
    snprintf(want, sizeof want, "%s", row_text(b, 1));
    assert_string_equal(row_text(t, 3), want);
    uint32_t bad[] = {5};
    floe_batch *u;
    assert_error(floe_batch_take(s, bad, 1, &u), FLOE_ERR_INVALID_ARGUMENT, "outside 5 rows");
    floe_batch_release(t);
    floe_batch_release(s);
    floe_batch_release(b);
}

static void take_of_struct_slice_respects_parent_offset(void **state) {
    (void)state;
    floe_batch *b = sample_batch();
    floe_array *st, *sl, *t;
    assert_ok(floe_batch_to_struct(b, &st));
    assert_ok(floe_array_slice(st, 3, 3, &sl));
    uint32_t idx[] = {2, 0};
    assert_ok(floe_array_take(sl, idx, 2, &t));
    assert_ok(floe_array_validate(t));
    assert_string_equal(fmt_at(t, 1), "{id: 3, name: 'n3', tags: NULL, attrs: {'k': 30}, flag: true, pt: {x: 3.5}}");
    floe_batch *back;
    assert_ok(floe_batch_from_struct(sl, &back));
    assert_string_equal(row_text(back, 0), "3;n3;NULL;{'k': 30};true;{x: 3.5}");
    floe_batch_release(back);
    floe_array_release(t);
    floe_array_release(sl);
    floe_array_release(st);
    floe_batch_release(b);
}

static void concat_joins_batches_including_slices(void **state) {
    (void)state;
    floe_batch *b = sample_batch(), *s1, *s2, *c;
    assert_ok(floe_batch_slice(b, 4, 2, &s1));
    assert_ok(floe_batch_slice(b, 1, 3, &s2));
    floe_batch *parts[3] = {s1, s2, b};
    assert_ok(floe_batch_concat(parts, 3, &c));
    assert_ok(floe_batch_validate(c));
    assert_int_equal(c->num_rows, 11);
    char want[1024];
    int64_t map[] = {4, 5, 1, 2, 3, 0, 1, 2, 3, 4, 5};
    for (int64_t r = 0; r < 11; r++) {
        snprintf(want, sizeof want, "%s", row_text(b, map[r]));
        assert_string_equal(row_text(c, r), want);
    }
    floe_batch_release(c);
    floe_batch_release(s1);
    floe_batch_release(s2);
    floe_batch_release(b);
}

static void project_reorders_columns_zero_copy(void **state) {
    (void)state;
    floe_batch *b = sample_batch(), *p;
    int32_t cols[] = {4, 0};
    assert_ok(floe_batch_project(b, cols, 2, &p));
    assert_int_equal(p->num_columns, 2);
    assert_string_equal(p->schema->children[0].name, "flag");
    assert_int_equal(p->schema->children[1].field_id, 1);
    assert_ptr_equal(p->columns[1], b->columns[0]);
    int32_t bad[] = {6};
    floe_batch *q;
    assert_error(floe_batch_project(b, bad, 1, &q), FLOE_ERR_INVALID_ARGUMENT, "outside 6");
    floe_batch_release(p);
    floe_batch_release(b);
}

static void batch_new_rejects_mismatched_columns(void **state) {
    (void)state;
    floe_field f = fld("a", floe_type_primitive(FLOE_TYPE_INT64), true, -1);
    floe_type *schema;
    assert_ok(floe_type_struct(&f, 1, &schema));
    int32_t v[] = {1, 2};
    floe_array *a = make_int32(v, NULL, 2);
    floe_batch *b;
    assert_error(floe_batch_new(schema, &a, 1, 2, &b), FLOE_ERR_TYPE, "column 'a'");
    assert_error(floe_batch_new(schema, &a, 1, 3, &b), FLOE_ERR_INVALID_ARGUMENT, "has 2 rows");
    floe_array_release(a);
    floe_type_release(schema);
}

static void array_slice_then_concat_of_bits_unaligned(void **state) {
    (void)state;
    floe_builder *bb;
    floe_array *a, *s1, *s2, *c;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_BOOL), 0, &bb));
    for (int i = 0; i < 37; i++) {
        if (i % 5 == 0) assert_ok(floe_builder_append_null(bb));
        else assert_ok(floe_builder_append_bool(bb, i % 3 == 0));
    }
    assert_ok(floe_builder_finish(bb, &a));
    floe_builder_free(bb);
    assert_ok(floe_array_slice(a, 3, 20, &s1));
    assert_ok(floe_array_slice(a, 11, 26, &s2));
    floe_array *parts[2] = {s1, s2};
    assert_ok(floe_array_concat(parts, 2, &c));
    assert_int_equal(c->length, 46);
    for (int64_t i = 0; i < 46; i++) {
        int64_t src = i < 20 ? 3 + i : 11 + (i - 20);
        assert_int_equal(floe_array_is_null(c, i), src % 5 == 0);
        if (src % 5) assert_int_equal(floe_array_get_bool(c, i), src % 3 == 0);
    }
    assert_int_equal(floe_array_null_count(c), floe_array_null_count(s1) + floe_array_null_count(s2));
    floe_array_release(c);
    floe_array_release(s1);
    floe_array_release(s2);
    floe_array_release(a);
}

static void dictionary_gather_with_dense_indices_and_nulls(void **state) {
    (void)state;
    const char *dict_v[] = {"red", "green", "blue"};
    floe_array *dict = make_strings(dict_v, 3), *a;
    floe_builder *b;
    assert_ok(floe_builder_new(dict->type, 0, &b));
    uint32_t idx[] = {2, 0, 0, 1};
    uint8_t valid[1] = {0x2d}; /* 1 0 1 1 0 1 */
    assert_ok(floe_builder_append_take_dense(b, dict, idx, 6, valid));
    assert_ok(floe_builder_append_take(b, dict, idx + 3, 1));
    uint32_t bad[] = {3};
    assert_error(floe_builder_append_take(b, dict, bad, 1), FLOE_ERR_INVALID_ARGUMENT, "outside 3 slots");
    assert_ok(floe_builder_finish(b, &a));
    assert_ok(floe_array_validate(a));
    assert_string_equal(fmt_all(a), "blue|NULL|red|red|NULL|green|green");
    floe_array_release(a);
    floe_builder_free(b);
    floe_array_release(dict);
}

static void equality_ignores_offsets_and_sees_value_changes(void **state) {
    (void)state;
    floe_batch *b = sample_batch(), *s, *t, *c;
    assert_ok(floe_batch_slice(b, 2, 3, &s));
    uint32_t idx[] = {2, 3, 4};
    assert_ok(floe_batch_take(b, idx, 3, &t));
    assert_true(floe_batch_equals(s, t));
    assert_ptr_not_equal(s->columns[2]->buffers[0], t->columns[2]->buffers[0]);
    uint32_t other[] = {2, 3, 3};
    assert_ok(floe_batch_take(b, other, 3, &c));
    assert_false(floe_batch_equals(s, c));
    assert_true(floe_array_equals(s->columns[0], t->columns[0]));
    assert_false(floe_array_equals(s->columns[0], c->columns[0]));
    assert_false(floe_array_equals(s->columns[0], s->columns[1]));
    floe_batch_release(c);
    floe_batch_release(t);
    floe_batch_release(s);
    floe_batch_release(b);
}

FLOE_TEST_MAIN(cmocka_unit_test(sample_rows_format_as_expected),
               cmocka_unit_test(dictionary_gather_with_dense_indices_and_nulls),
               cmocka_unit_test(equality_ignores_offsets_and_sees_value_changes),
               cmocka_unit_test(slice_shares_buffers_and_applies_offset),
               cmocka_unit_test(take_gathers_rows_of_every_column),
               cmocka_unit_test(take_of_struct_slice_respects_parent_offset),
               cmocka_unit_test(concat_joins_batches_including_slices),
               cmocka_unit_test(project_reorders_columns_zero_copy),
               cmocka_unit_test(batch_new_rejects_mismatched_columns),
               cmocka_unit_test(array_slice_then_concat_of_bits_unaligned))
