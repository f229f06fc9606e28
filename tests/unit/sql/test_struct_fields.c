/*
 * test_struct_fields.c — struct fields in SQL: (col).field and col.field,
 * nested ((s).b.c, s.b.c, rel.s.b.c), in SELECT and WHERE, the column
 * named after the field, null structs giving null fields, and errors for
 * unknown fields and fields of non-structs.  Over a Parquet file written
 * here, read with read_parquet.
 */
#include "floe_test.h"

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "formats/parquet/writer.h"

static char dir[1024];
static char path[1200];

typedef struct text_sink {
    floe_buf rows;
    char cols[256];
} text_sink;

static floe_status ts_begin(void *arg, const floe_schema *schema) {
    text_sink *t = arg;
    t->cols[0] = 0;
    for (int32_t i = 0; i < floe_schema_num_fields(schema); i++) {
        if (i) strncat(t->cols, ",", sizeof t->cols - strlen(t->cols) - 1);
        strncat(t->cols, floe_schema_field(schema, i)->name, sizeof t->cols - strlen(t->cols) - 1);
    }
    return NULL;
}

static floe_status ts_batch(void *arg, const floe_batch *b) {
    text_sink *t = arg;
    for (int64_t r = 0; r < b->num_rows; r++) {
        for (int32_t c = 0; c < b->num_columns; c++) {
            if (c) FLOE_TRY(floe_buf_append_byte(&t->rows, '|'));
            FLOE_TRY(floe_format_value(b->columns[c], r, &t->rows));
        }
        FLOE_TRY(floe_buf_append_byte(&t->rows, '\n'));
    }
    return NULL;
}

/* id int64, s struct<a int64, b struct<c string>>:
 *   1 {a 10, b {c 'x'}}   2 null   3 {a null, b null}   4 {a 40, b {c 'y'}} */
static void write_file(void) {
    floe_field cf = {(char *)"c", floe_type_primitive(FLOE_TYPE_STRING), true, -1};
    floe_type *bt = NULL;
    assert_ok(floe_type_struct(&cf, 1, &bt));
    floe_field sf[2] = {{(char *)"a", floe_type_primitive(FLOE_TYPE_INT64), true, -1}, {(char *)"b", bt, true, -1}};
    floe_type *st = NULL;
    assert_ok(floe_type_struct(sf, 2, &st));
    floe_field top[2] = {{(char *)"id", floe_type_primitive(FLOE_TYPE_INT64), false, -1}, {(char *)"s", st, true, -1}};
    floe_schema *schema = NULL;
    assert_ok(floe_type_struct(top, 2, &schema));
    floe_builder *bi = NULL, *bs = NULL;
    assert_ok(floe_builder_new(top[0].type, 4, &bi));
    assert_ok(floe_builder_new(st, 4, &bs));
    floe_builder *ba = floe_builder_child(bs, 0), *bb = floe_builder_child(bs, 1), *bc = floe_builder_child(bb, 0);
    for (int i = 1; i <= 4; i++) {
        assert_ok(floe_builder_append_int64(bi, i));
        if (i == 2) {
            assert_ok(floe_builder_append_null(bs));
        } else if (i == 3) {
            assert_ok(floe_builder_append_null(ba));
            assert_ok(floe_builder_append_null(bb));
            assert_ok(floe_builder_append_valid(bs));
        } else {
            assert_ok(floe_builder_append_int64(ba, i * 10));
            assert_ok(floe_builder_append_string(bc, i == 1 ? "x" : "y"));
            assert_ok(floe_builder_append_valid(bb));
            assert_ok(floe_builder_append_valid(bs));
        }
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(bi, &cols[0]));
    assert_ok(floe_builder_finish(bs, &cols[1]));
    floe_builder_free(bi);
    floe_builder_free(bs);
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(schema, cols, 2, 4, &batch));
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    floe_output *out = NULL;
    floe_pq_writer *w = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    assert_ok(floe_pq_writer_open(out, schema, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_batch_release(batch);
    floe_type_release(schema);
    floe_type_release(st);
    floe_type_release(bt);
}

static int setup(void **state) {
    floe_test_tmpdir(dir, sizeof dir, "sql_struct_fields");
    snprintf(path, sizeof path, "%s/s.parquet", dir);
    write_file();
    floe_session *s = NULL;
    assert_ok(floe_session_open(dir, &s));
    *state = s;
    return 0;
}

static int teardown(void **state) {
    floe_session_close(*state);
    return 0;
}

/* Run "SELECT <what> FROM read_parquet(path) t <rest>" and compare the
 * rows (and the column names when `cols` is not NULL). */
static void expect(floe_session *s, const char *what, const char *rest, const char *want, const char *cols) {
    char sql[2048];
    snprintf(sql, sizeof sql, "SELECT %s FROM read_parquet('%s') t %s", what, path, rest);
    text_sink t = {0};
    floe_buf_init(&t.rows);
    floe_result_sink k = {&t, ts_begin, ts_batch, NULL, NULL};
    floe_status st = floe_session_execute(s, sql, &k);
    if (st) fail_msg("%s: %s", sql, floe_status_message(st));
    if (strcmp(floe_buf_cstr(&t.rows), want) != 0)
        fail_msg("%s:\n got: %s\nwant: %s", sql, floe_buf_cstr(&t.rows), want);
    if (cols && strcmp(t.cols, cols) != 0) fail_msg("%s: columns %s, want %s", sql, t.cols, cols);
    floe_buf_free(&t.rows);
}

static void fields_in_select_both_forms_nested(void **state) {
    floe_session *s = *state;
    expect(s, "id, (s).a, (s).b.c", "ORDER BY id", "1|10|x\n2|NULL|NULL\n3|NULL|NULL\n4|40|y\n", "id,a,c");
    expect(s, "s.a, s.b.c, t.s.b.c", "ORDER BY id", "10|x|x\nNULL|NULL|NULL\nNULL|NULL|NULL\n40|y|y\n", NULL);
    expect(s, "((s).b).c", "WHERE id = 4", "y\n", NULL);
    /* a whole nested struct, and a field of an expression's struct */
    expect(s, "(s).b IS NULL", "ORDER BY id", "false\ntrue\ntrue\nfalse\n", NULL);
}

static void fields_in_where_and_expressions(void **state) {
    floe_session *s = *state;
    expect(s, "id", "WHERE (s).a > 15", "4\n", NULL);
    expect(s, "id", "WHERE s.b.c = 'x' OR (s).a IS NULL ORDER BY id", "1\n2\n3\n", NULL);
    expect(s, "sum((s).a) + 1", "", "51\n", NULL);
}

static void unknown_fields_and_non_structs_are_errors(void **state) {
    floe_session *s = *state;
    char sql[2048];
    text_sink t = {0};
    floe_buf_init(&t.rows);
    floe_result_sink k = {&t, ts_begin, ts_batch, NULL, NULL};
    snprintf(sql, sizeof sql, "SELECT (s).aa FROM read_parquet('%s')", path);
    assert_error(floe_session_execute(s, sql, &k), FLOE_ERR_NOT_FOUND, "unknown field 'aa' (did you mean 'a'?)");
    snprintf(sql, sizeof sql, "SELECT (id).a FROM read_parquet('%s')", path);
    assert_error(floe_session_execute(s, sql, &k), FLOE_ERR_TYPE, "not a struct");
    /* id.a: neither relation id nor a struct column id */
    snprintf(sql, sizeof sql, "SELECT id.a FROM read_parquet('%s')", path);
    assert_error(floe_session_execute(s, sql, &k), FLOE_ERR_NOT_FOUND, "id");
    snprintf(sql, sizeof sql, "SELECT s.zz FROM read_parquet('%s')", path);
    assert_error(floe_session_execute(s, sql, &k), FLOE_ERR_NOT_FOUND, "unknown field 'zz'");
    floe_buf_free(&t.rows);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
FLOE_TEST_MAIN(T(fields_in_select_both_forms_nested), T(fields_in_where_and_expressions),
               T(unknown_fields_and_non_structs_are_errors))
