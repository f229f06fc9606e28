/*
 * fn_util.h — helpers for the scalar function tests: literals in a word,
 * calls built from a name and arguments, and evaluation rendered as text
 * ("a|NULL|c") so expectations read like query results.
 */
#ifndef FLOE_TEST_FN_UTIL_H
#define FLOE_TEST_FN_UTIL_H

#include <stdarg.h>

#include "exec_util.h"

/* Literals (each a new reference; call() consumes them). */
static inline floe_expr *S(const char *v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_string(v, &e));
    return e;
}
static inline floe_expr *I(int64_t v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_int64(v, &e));
    return e;
}
static inline floe_expr *I32(int32_t v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_int32(v, &e));
    return e;
}
static inline floe_expr *F(double v) {
    floe_expr *e;
    assert_ok(floe_expr_lit_double(v, &e));
    return e;
}
static inline floe_expr *NULLOF(floe_type_id id) {
    floe_expr *e;
    assert_ok(floe_expr_lit_null(floe_type_primitive(id), &e));
    return e;
}
/* A literal of an int-backed type (date days, timestamp units). */
static inline floe_expr *TYPED(floe_type_id id, int64_t v) {
    floe_builder *b;
    floe_array *a;
    floe_expr *e;
    assert_ok(floe_builder_new(floe_type_primitive(id), 1, &b));
    if (id == FLOE_TYPE_DATE32 || id == FLOE_TYPE_INT32) assert_ok(floe_builder_append_int32(b, (int32_t)v));
    else assert_ok(floe_builder_append_int64(b, v));
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    assert_ok(floe_expr_literal(a, &e));
    floe_array_release(a);
    return e;
}
static inline floe_expr *DEC(int64_t unscaled, int32_t p, int32_t s) {
    floe_type *t;
    floe_builder *b;
    floe_array *a;
    floe_expr *e;
    assert_ok(floe_type_decimal(p, s, &t));
    assert_ok(floe_builder_new(t, 1, &b));
    assert_ok(floe_builder_append_decimal(b, floe_decimal128_from_int64(unscaled)));
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    floe_type_release(t);
    assert_ok(floe_expr_literal(a, &e));
    floe_array_release(a);
    return e;
}
static inline floe_expr *COL(int32_t i) {
    floe_expr *e;
    assert_ok(floe_expr_column(i, &e));
    return e;
}

/* name(args...) with n arguments; consumes the argument references. */
static inline floe_expr *call(const char *name, int n, ...) {
    floe_expr *args[16];
    floe_expr *e;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) args[i] = va_arg(ap, floe_expr *);
    va_end(ap);
    assert_ok(floe_expr_call(name, args, n, &e));
    for (int i = 0; i < n; i++) floe_expr_release(args[i]);
    return e;
}

/* A batch whose columns are string arrays given as NULL-terminated
 * char* lists ("\x01" marks a SQL NULL), all `rows` long. */
#define SNULL "\x01"
static inline floe_batch *str_batch(int ncols, int64_t rows, const char *const *const *cols) {
    floe_field f[8];
    floe_array *arrs[8];
    floe_schema *s;
    floe_batch *b;
    for (int c = 0; c < ncols; c++) {
        char name[16];
        snprintf(name, sizeof name, "s%d", c);
        assert_ok(floe_field_init(&f[c], name, floe_type_primitive(FLOE_TYPE_STRING), true, -1));
        floe_builder *bl;
        assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), rows, &bl));
        for (int64_t r = 0; r < rows; r++) {
            if (strcmp(cols[c][r], SNULL) == 0) assert_ok(floe_builder_append_null(bl));
            else assert_ok(floe_builder_append_string(bl, cols[c][r]));
        }
        assert_ok(floe_builder_finish(bl, &arrs[c]));
        floe_builder_free(bl);
    }
    assert_ok(floe_type_struct(f, ncols, &s));
    assert_ok(floe_batch_new(s, arrs, ncols, rows, &b));
    for (int c = 0; c < ncols; c++) {
        floe_field_clear(&f[c]);
        floe_array_release(arrs[c]);
    }
    floe_type_release(s);
    return b;
}

/* A one-row batch with one int32 column: for calls over literals. */
static inline floe_batch *one_row(void) {
    int32_t v[1] = {0};
    return int_batch(v, NULL, 1);
}

/* Evaluate e over `batch` (consuming e) and render the result column as
 * "v1|v2|..." with NULL for nulls; *type_out (if not NULL) gets the
 * result type's text.  Returns a static buffer. */
static inline const char *render(floe_expr *e, const floe_batch *batch, char *type_out) {
    static char text[1 << 16];
    floe_array *a;
    floe_type *t;
    floe_buf b;
    floe_buf_init(&b);
    assert_ok(floe_expr_type(e, batch->schema, &t));
    assert_ok(floe_expr_eval(e, batch, &a));
    assert_int_equal(a->length, batch->num_rows);
    assert_true(floe_type_equals(a->type, t));
    assert_ok(floe_array_validate(a));
    for (int64_t i = 0; i < a->length; i++) {
        if (i) assert_ok(floe_buf_append_str(&b, "|"));
        if (floe_array_is_null(a, i)) assert_ok(floe_buf_append_str(&b, "NULL"));
        else assert_ok(floe_format_value(a, i, &b));
    }
    if (type_out) {
        floe_buf tb;
        floe_buf_init(&tb);
        assert_ok(floe_type_to_string(t, &tb));
        snprintf(type_out, 64, "%s", floe_buf_cstr(&tb));
        floe_buf_free(&tb);
    }
    snprintf(text, sizeof text, "%s", floe_buf_cstr(&b));
    floe_buf_free(&b);
    floe_array_release(a);
    floe_type_release(t);
    floe_expr_release(e);
    return text;
}

/* Evaluate a call over literals (one row) and compare its text. */
#define EXPECT(expected, e)                                                    \
    do {                                                                       \
        floe_batch *b1_ = one_row();                                           \
        assert_string_equal(render((e), b1_, NULL), (expected));               \
        floe_batch_release(b1_);                                               \
    } while (0)
/* Same, also checking the result type's text. */
#define EXPECT_T(expected, type, e)                                            \
    do {                                                                       \
        char t_[64];                                                           \
        floe_batch *b1_ = one_row();                                           \
        assert_string_equal(render((e), b1_, t_), (expected));                 \
        assert_string_equal(t_, (type));                                       \
        floe_batch_release(b1_);                                               \
    } while (0)

/* The error of typing-then-evaluating e over one row (e consumed). */
static inline floe_status eval_status(floe_expr *e) {
    floe_batch *b = one_row();
    floe_type *t = NULL;
    floe_array *a = NULL;
    floe_status st = floe_expr_type(e, b->schema, &t);
    if (!st) st = floe_expr_eval(e, b, &a);
    floe_array_release(a);
    floe_type_release(t);
    floe_batch_release(b);
    floe_expr_release(e);
    return st;
}
#define EXPECT_ERR(code, needle, e) assert_error(eval_status(e), (code), (needle))

#endif
