/*
 * test_func_struct.c — struct_extract(s, 'field'): the field's type, case
 * folding, errors for unknown fields and non-struct or non-constant
 * arguments, and values — including a null struct making its field null,
 * a sliced batch (struct offsets apply to the children) and nesting.
 */
#include "exec_util.h"

/* s struct<a int64, b struct<c int32>>, rows:
 *   0 {a 10, b {c 1}}   1 null   2 {a null, b null}   3 {a 13, b {c 3}}
 *   4 {a 14, b {c 4}} (a struct whose children hold values under a null
 *   parent: row 1's children are 11 / {c 2}). */
static floe_batch *struct_batch(void) {
    floe_field cf = {(char *)"c", floe_type_primitive(FLOE_TYPE_INT32), true, -1};
    floe_type *bt = NULL;
    assert_ok(floe_type_struct(&cf, 1, &bt));
    floe_field sf[2] = {{(char *)"a", floe_type_primitive(FLOE_TYPE_INT64), true, -1}, {(char *)"B", bt, true, -1}};
    floe_type *st = NULL;
    assert_ok(floe_type_struct(sf, 2, &st));
    floe_builder *b = NULL;
    assert_ok(floe_builder_new(st, 5, &b));
    floe_builder *ba = floe_builder_child(b, 0), *bb = floe_builder_child(b, 1), *bc = floe_builder_child(bb, 0);
    for (int i = 0; i < 5; i++) {
        if (i == 2) {
            assert_ok(floe_builder_append_null(ba));
            assert_ok(floe_builder_append_null(bb));
        } else {
            assert_ok(floe_builder_append_int64(ba, 10 + i));
            assert_ok(floe_builder_append_int32(bc, i + 1 - (i > 2)));
            assert_ok(floe_builder_append_valid(bb));
        }
        assert_ok(floe_builder_append_valid(b)); /* row 1 is made null below */
    }
    floe_array *a = NULL;
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    /* Clear row 1's struct validity by hand, keeping the children. */
    floe_buffer *v = NULL;
    assert_ok(floe_buffer_new(1, &v));
    v->data[0] = 0x1d; /* rows 0, 2, 3, 4 valid */
    floe_array *withnull = NULL;
    assert_ok(floe_array_new(a->type, a->length, a->offset, FLOE_NULL_COUNT_UNKNOWN, v, NULL, 0, a->children,
                             a->n_children, &withnull));
    floe_buffer_release(v);
    floe_array_release(a);
    floe_field top = {(char *)"s", st, true, -1};
    floe_schema *schema = NULL;
    assert_ok(floe_type_struct(&top, 1, &schema));
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(schema, &withnull, 1, 5, &batch));
    floe_array_release(withnull);
    floe_type_release(schema);
    floe_type_release(st);
    floe_type_release(bt);
    return batch;
}

static floe_expr *extract(floe_expr *base, const char *field) {
    floe_expr *name = NULL, *e = NULL;
    assert_ok(floe_expr_lit_string(field, &name));
    floe_expr *args[2] = {base, name};
    assert_ok(floe_expr_call("struct_extract", args, 2, &e));
    floe_expr_release(base);
    floe_expr_release(name);
    return e;
}

static floe_expr *col0(void) {
    floe_expr *e = NULL;
    assert_ok(floe_expr_column(0, &e));
    return e;
}

static void field_type_and_values_with_null_parent(void **state) {
    (void)state;
    floe_batch *b = struct_batch();
    floe_expr *e = extract(col0(), "a");
    floe_type *t = NULL;
    assert_ok(floe_expr_type(e, b->schema, &t));
    assert_int_equal(t->id, FLOE_TYPE_INT64);
    floe_type_release(t);
    floe_array *out = NULL;
    assert_ok(floe_expr_eval(e, b, &out));
    assert_int_equal(out->length, 5);
    assert_int_equal(floe_array_get_int64(out, 0), 10);
    assert_true(floe_array_is_null(out, 1)); /* the struct is null, its child is 11 */
    assert_true(floe_array_is_null(out, 2));
    assert_int_equal(floe_array_get_int64(out, 3), 13);
    assert_int_equal(floe_array_null_count(out), 2);
    assert_ok(floe_array_validate(out));
    floe_array_release(out);
    floe_expr_release(e);
    floe_batch_release(b);
}

static void nested_fields_case_folded_on_a_sliced_batch(void **state) {
    (void)state;
    floe_batch *b = struct_batch();
    floe_array *sl = NULL;
    assert_ok(floe_array_slice(b->columns[0], 1, 3, &sl)); /* rows 1, 2, 3 */
    floe_batch *sb = NULL;
    assert_ok(floe_batch_new(b->schema, &sl, 1, 3, &sb));
    floe_array_release(sl);
    floe_expr *e = extract(extract(col0(), "b"), "C"); /* "B" and "c" in the schema */
    floe_type *t = NULL;
    assert_ok(floe_expr_type(e, sb->schema, &t));
    assert_int_equal(t->id, FLOE_TYPE_INT32);
    floe_type_release(t);
    floe_array *out = NULL;
    assert_ok(floe_expr_eval(e, sb, &out));
    assert_int_equal(out->length, 3);
    assert_true(floe_array_is_null(out, 0)); /* row 1: null struct */
    assert_true(floe_array_is_null(out, 1)); /* row 2: null b */
    assert_int_equal(floe_array_get_int32(out, 2), 3);
    assert_ok(floe_array_validate(out));
    floe_array_release(out);
    floe_expr_release(e);
    floe_batch_release(sb);
    floe_batch_release(b);
}

static void unknown_field_and_wrong_arguments_are_errors(void **state) {
    (void)state;
    floe_batch *b = struct_batch();
    floe_type *t = NULL;
    floe_expr *e = extract(col0(), "aa");
    assert_error(floe_expr_type(e, b->schema, &t), FLOE_ERR_NOT_FOUND, "unknown field 'aa' (did you mean 'a'?)");
    floe_expr_release(e);
    /* not a struct */
    floe_expr *lit = NULL;
    assert_ok(floe_expr_lit_int32(1, &lit));
    e = extract(lit, "a");
    assert_error(floe_expr_type(e, b->schema, &t), FLOE_ERR_TYPE, "struct_extract");
    floe_expr_release(e);
    /* the name must be a constant */
    floe_expr *args[2] = {col0(), NULL};
    assert_ok(floe_expr_lit_string("a", &lit));
    floe_expr *up = NULL;
    assert_ok(floe_expr_call("upper", &lit, 1, &up));
    args[1] = up;
    assert_ok(floe_expr_call("struct_extract", args, 2, &e));
    assert_error(floe_expr_type(e, b->schema, &t), FLOE_ERR_TYPE, "must be a constant");
    floe_expr_release(e);
    floe_expr_release(args[0]);
    floe_expr_release(up);
    floe_expr_release(lit);
    floe_batch_release(b);
}

FLOE_TEST_MAIN(cmocka_unit_test(field_type_and_values_with_null_parent),
               cmocka_unit_test(nested_fields_case_folded_on_a_sliced_batch),
               cmocka_unit_test(unknown_field_and_wrong_arguments_are_errors))
