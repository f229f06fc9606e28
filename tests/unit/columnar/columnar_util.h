/*
 * columnar_util.h — small helpers shared by the columnar unit tests:
 * building arrays from C literals and reading values back as text.
 */
#ifndef FLOE_TEST_COLUMNAR_UTIL_H
#define FLOE_TEST_COLUMNAR_UTIL_H

#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/memory.h"
#include "floe_test.h"

/* int32 array from values; valid[i] == 0 makes slot i null (valid may be NULL). */
static inline floe_array *make_int32(const int32_t *v, const int *valid, int64_t n) {
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT32), n, &b));
    for (int64_t i = 0; i < n; i++) {
        if (valid && !valid[i]) assert_ok(floe_builder_append_null(b));
        else assert_ok(floe_builder_append_int32(b, v[i]));
    }
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

/* string array; a NULL entry makes a null slot. */
static inline floe_array *make_strings(const char *const *v, int64_t n) {
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &b));
    for (int64_t i = 0; i < n; i++) {
        if (!v[i]) assert_ok(floe_builder_append_null(b));
        else assert_ok(floe_builder_append_string(b, v[i]));
    }
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    return a;
}

/* The formatter's text of slot i, in a static buffer (tests are single-threaded). */
static inline const char *fmt_at(const floe_array *a, int64_t i) {
    static char text[4096];
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_format_value(a, i, &b));
    snprintf(text, sizeof text, "%s", floe_buf_cstr(&b));
    floe_buf_free(&b);
    return text;
}

/* All slots as "v0|v1|..." for compact comparisons. */
static inline const char *fmt_all(const floe_array *a) {
    static char text[8192];
    floe_buf b = FLOE_BUF_INIT;
    for (int64_t i = 0; i < a->length; i++) {
        if (i) assert_ok(floe_buf_append_byte(&b, '|'));
        assert_ok(floe_format_value(a, i, &b));
    }
    snprintf(text, sizeof text, "%s", floe_buf_cstr(&b));
    floe_buf_free(&b);
    return text;
}

/* A field with a borrowed name; the type reference is kept by the field. */
static inline floe_field fld(const char *name, floe_type *t, bool nullable, int32_t id) {
    floe_field f = {.name = (char *)name, .type = t, .nullable = nullable, .field_id = id};
    return f;
}

#endif
