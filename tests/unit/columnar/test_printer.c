/* The result printer writes psql-like tables, RFC 4180 CSV and escaped JSON lines. */
#include "columnar/printer.h"
#include "columnar_util.h"

/* (id int32, name string, price decimal(6,2), data binary, tags list<string>, m map<string,int32>) */
static floe_batch *sample(int first_id, int rows) {
    floe_type *dec, *tags, *m;
    assert_ok(floe_type_decimal(6, 2, &dec));
    floe_field el = fld("element", floe_type_primitive(FLOE_TYPE_STRING), true, -1);
    assert_ok(floe_type_list(&el, &tags));
    floe_field k = fld("key", floe_type_primitive(FLOE_TYPE_STRING), false, -1);
    floe_field v = fld("value", floe_type_primitive(FLOE_TYPE_INT32), true, -1);
    assert_ok(floe_type_map(&k, &v, false, &m));
    floe_field fs[6] = {fld("id", floe_type_primitive(FLOE_TYPE_INT32), false, 1),
                        fld("name", floe_type_primitive(FLOE_TYPE_STRING), true, 2),
                        fld("price", dec, true, 3),
                        fld("data", floe_type_primitive(FLOE_TYPE_BINARY), true, 4),
                        fld("tags", tags, true, 5),
                        fld("m", m, true, 6)};
    floe_type *schema;
    assert_ok(floe_type_struct(fs, 6, &schema));
    static const char *names[] = {"plain", "has,comma", "say \"hi\"", "line\nbreak", "", "tab\there é",
                                  "ctl\x01", "back\\slash"};
    floe_builder *b[6];
    for (int c = 0; c < 6; c++) assert_ok(floe_builder_new(schema->children[c].type, 0, &b[c]));
    for (int r = 0; r < rows; r++) {
        int id = first_id + r;
        assert_ok(floe_builder_append_int32(b[0], id));
        if (id % 9 == 8) assert_ok(floe_builder_append_null(b[1]));
        else assert_ok(floe_builder_append_string(b[1], names[id % 8]));
        if (id % 3 == 2) assert_ok(floe_builder_append_null(b[2]));
        else assert_ok(floe_builder_append_decimal(b[2], floe_decimal128_from_int64(id * 1001 - 500)));
        assert_ok(floe_builder_append_binary(b[3], "\x00\xfa\x10\x20", id % 5));
        assert_ok(floe_builder_append_string(floe_builder_child(b[4], 0), "a"));
        if (id % 2) assert_ok(floe_builder_append_null(floe_builder_child(b[4], 0)));
        assert_ok(floe_builder_append_list(b[4]));
        assert_ok(floe_builder_append_string(floe_builder_map_keys(b[5]), "k\"q"));
        assert_ok(floe_builder_append_int32(floe_builder_map_values(b[5]), id));
        assert_ok(floe_builder_append_map(b[5]));
    }
    floe_array *cols[6];
    for (int c = 0; c < 6; c++) {
        assert_ok(floe_builder_finish(b[c], &cols[c]));
        floe_builder_free(b[c]);
    }
    floe_batch *batch;
    assert_ok(floe_batch_new(schema, cols, 6, rows, &batch));
    for (int c = 0; c < 6; c++) floe_array_release(cols[c]);
    floe_type_release(schema);
    floe_type_release(dec);
    floe_type_release(tags);
    floe_type_release(m);
    return batch;
}

/* Print batches with the given options into a buffer, returned as a string (caller frees). */
static char *print_all(const floe_print_options *o, floe_batch **batches, int n) {
    floe_buf out = FLOE_BUF_INIT;
    floe_printer *p;
    assert_ok(floe_printer_new(o, NULL, &out, &p));
    assert_ok(floe_printer_begin(p, batches[0]->schema));
    for (int i = 0; i < n; i++) assert_ok(floe_printer_add_batch(p, batches[i]));
    assert_ok(floe_printer_end(p));
    floe_printer_free(p);
    size_t len;
    char *s = (char *)floe_buf_detach(&out, &len);
    return s ? s : floe_strdup("");
}

static void table_aligns_numbers_right_and_counts_rows(void **state) {
    (void)state;
    floe_batch *b = sample(0, 3);
    floe_print_options o;
    floe_print_options_init(&o, FLOE_PRINT_TABLE);
    char *s = print_all(&o, &b, 1);
    assert_string_equal(s,
                        " id |   name    | price |  data  |    tags     |     m\n"
                        "----+-----------+-------+--------+-------------+------------\n"
                        "  0 | plain     | -5.00 | \\x     | ['a']       | {'k\"q': 0}\n"
                        "  1 | has,comma |  5.01 | \\x00   | ['a', NULL] | {'k\"q': 1}\n"
                        "  2 | say \"hi\"  |  NULL | \\x00fa | ['a']       | {'k\"q': 2}\n"
                        "(3 rows)\n");
    floe_free(s);
    floe_batch_release(b);
}

static void table_escapes_newlines_and_counts_code_points(void **state) {
    (void)state;
    floe_batch *b = sample(3, 3), *p;
    int32_t cols[] = {1};
    assert_ok(floe_batch_project(b, cols, 1, &p));
    floe_print_options o;
    floe_print_options_init(&o, FLOE_PRINT_TABLE);
    o.null_text = "";
    char *s = print_all(&o, &p, 1);
    assert_string_equal(s,
                        "    name\n"
                        "-------------\n"
                        " line\\nbreak\n"
                        "\n"
                        " tab\\there é\n"
                        "(3 rows)\n");
    floe_free(s);
    floe_batch_release(p);
    floe_batch_release(b);
}

static void table_streams_rows_past_the_buffer_limit(void **state) {
    (void)state;
    floe_batch *b1 = sample(0, 2), *b2 = sample(10, 2), *p1, *p2;
    int32_t cols[] = {0};
    assert_ok(floe_batch_project(b1, cols, 1, &p1));
    assert_ok(floe_batch_project(b2, cols, 1, &p2));
    floe_batch *both[2] = {p1, p2};
    floe_print_options o;
    floe_print_options_init(&o, FLOE_PRINT_TABLE);
    o.table_buffer_rows = 2;
    char *s = print_all(&o, both, 2);
    /* Widths come from the first two rows; later wider values overflow. */
    assert_string_equal(s, " id\n----\n  0\n  1\n 10\n 11\n(4 rows)\n");
    floe_free(s);
    floe_batch *one = p1;
    floe_batch *empty;
    assert_ok(floe_batch_slice(one, 0, 0, &empty));
    o.table_buffer_rows = 100;
    s = print_all(&o, &empty, 1);
    assert_string_equal(s, " id\n----\n(0 rows)\n");
    floe_free(s);
    floe_batch *single;
    assert_ok(floe_batch_slice(one, 1, 1, &single));
    s = print_all(&o, &single, 1);
    assert_string_equal(s, " id\n----\n  1\n(1 row)\n");
    floe_free(s);
    floe_batch_release(single);
    floe_batch_release(empty);
    floe_batch_release(p1);
    floe_batch_release(p2);
    floe_batch_release(b1);
    floe_batch_release(b2);
}

static void csv_quotes_per_rfc4180_and_separates_null_from_empty(void **state) {
    (void)state;
    floe_batch *b = sample(0, 9);
    floe_print_options o;
    floe_print_options_init(&o, FLOE_PRINT_CSV);
    char *s = print_all(&o, &b, 1);
    assert_string_equal(s,
                        "id,name,price,data,tags,m\n"
                        "0,plain,-5.00,\\x,['a'],\"{'k\"\"q': 0}\"\n"
                        "1,\"has,comma\",5.01,\\x00,\"['a', NULL]\",\"{'k\"\"q': 1}\"\n"
                        "2,\"say \"\"hi\"\"\",,\\x00fa,['a'],\"{'k\"\"q': 2}\"\n"
                        "3,\"line\nbreak\",25.03,\\x00fa10,\"['a', NULL]\",\"{'k\"\"q': 3}\"\n"
                        "4,\"\",35.04,\\x00fa1020,['a'],\"{'k\"\"q': 4}\"\n"
                        "5,tab\there é,,\\x,\"['a', NULL]\",\"{'k\"\"q': 5}\"\n"
                        "6,ctl\x01,55.06,\\x00,['a'],\"{'k\"\"q': 6}\"\n"
                        "7,back\\slash,65.07,\\x00fa,\"['a', NULL]\",\"{'k\"\"q': 7}\"\n"
                        "8,,,\\x00fa10,['a'],\"{'k\"\"q': 8}\"\n");
    floe_free(s);
    floe_batch_release(b);
}

static void jsonl_escapes_strings_and_keeps_numbers_exact(void **state) {
    (void)state;
    floe_batch *b = sample(0, 9);
    floe_print_options o;
    floe_print_options_init(&o, FLOE_PRINT_JSONL);
    char *s = print_all(&o, &b, 1);
    assert_string_equal(s,
                        "{\"id\":0,\"name\":\"plain\",\"price\":-5.00,\"data\":\"\",\"tags\":[\"a\"],\"m\":{\"k\\\"q\":0}}\n"
                        "{\"id\":1,\"name\":\"has,comma\",\"price\":5.01,\"data\":\"AA==\",\"tags\":[\"a\",null],\"m\":{\"k\\\"q\":1}}\n"
                        "{\"id\":2,\"name\":\"say \\\"hi\\\"\",\"price\":null,\"data\":\"APo=\",\"tags\":[\"a\"],\"m\":{\"k\\\"q\":2}}\n"
                        "{\"id\":3,\"name\":\"line\\nbreak\",\"price\":25.03,\"data\":\"APoQ\",\"tags\":[\"a\",null],\"m\":{\"k\\\"q\":3}}\n"
                        "{\"id\":4,\"name\":\"\",\"price\":35.04,\"data\":\"APoQIA==\",\"tags\":[\"a\"],\"m\":{\"k\\\"q\":4}}\n"
                        "{\"id\":5,\"name\":\"tab\\there é\",\"price\":null,\"data\":\"\",\"tags\":[\"a\",null],\"m\":{\"k\\\"q\":5}}\n"
                        "{\"id\":6,\"name\":\"ctl\\u0001\",\"price\":55.06,\"data\":\"AA==\",\"tags\":[\"a\"],\"m\":{\"k\\\"q\":6}}\n"
                        "{\"id\":7,\"name\":\"back\\\\slash\",\"price\":65.07,\"data\":\"APo=\",\"tags\":[\"a\",null],\"m\":{\"k\\\"q\":7}}\n"
                        "{\"id\":8,\"name\":null,\"price\":null,\"data\":\"APoQ\",\"tags\":[\"a\"],\"m\":{\"k\\\"q\":8}}\n");
    floe_free(s);
    floe_batch_release(b);
}

static void jsonl_renders_floats_temporals_and_structs(void **state) {
    (void)state;
    floe_field fx[2] = {fld("x", floe_type_primitive(FLOE_TYPE_FLOAT64), true, -1),
                        fld("d", floe_type_primitive(FLOE_TYPE_DATE32), true, -1)};
    floe_type *st, *schema;
    assert_ok(floe_type_struct(fx, 2, &st));
    floe_field f = fld("s", st, true, -1);
    assert_ok(floe_type_struct(&f, 1, &schema));
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(st, 0, &b));
    assert_ok(floe_builder_append_double(floe_builder_child(b, 0), 2.5));
    assert_ok(floe_builder_append_int32(floe_builder_child(b, 1), -1));
    assert_ok(floe_builder_append_valid(b));
    assert_ok(floe_builder_append_double(floe_builder_child(b, 0), __builtin_nan("")));
    assert_ok(floe_builder_append_null(floe_builder_child(b, 1)));
    assert_ok(floe_builder_append_valid(b));
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    floe_batch *batch;
    assert_ok(floe_batch_new(schema, &a, 1, 2, &batch));
    floe_print_options o;
    floe_print_options_init(&o, FLOE_PRINT_JSONL);
    char *s = print_all(&o, &batch, 1);
    assert_string_equal(s, "{\"s\":{\"x\":2.5,\"d\":\"1969-12-31\"}}\n{\"s\":{\"x\":\"NaN\",\"d\":null}}\n");
    floe_free(s);
    floe_batch_release(batch);
    floe_array_release(a);
    floe_type_release(st);
    floe_type_release(schema);
}

static void printer_writes_to_a_file_and_parses_format_names(void **state) {
    (void)state;
    floe_print_format f;
    assert_ok(floe_print_format_parse("csv", &f));
    assert_int_equal(f, FLOE_PRINT_CSV);
    assert_ok(floe_print_format_parse("jsonl", &f));
    assert_int_equal(f, FLOE_PRINT_JSONL);
    assert_error(floe_print_format_parse("xml", &f), FLOE_ERR_INVALID_ARGUMENT, "'xml'");
    FILE *fp = tmpfile();
    assert_non_null(fp);
    floe_batch *b = sample(0, 1), *p;
    int32_t cols[] = {0};
    assert_ok(floe_batch_project(b, cols, 1, &p));
    floe_print_options o;
    floe_print_options_init(&o, FLOE_PRINT_CSV);
    floe_printer *pr;
    assert_ok(floe_printer_new(&o, fp, NULL, &pr));
    assert_ok(floe_printer_begin(pr, p->schema));
    assert_ok(floe_printer_add_batch(pr, p));
    assert_ok(floe_printer_end(pr));
    assert_int_equal(floe_printer_rows(pr), 1);
    floe_printer_free(pr);
    rewind(fp);
    char line[64] = {0};
    assert_int_equal(fread(line, 1, sizeof line - 1, fp), 5);
    assert_string_equal(line, "id\n0\n");
    fclose(fp);
    floe_batch_release(p);
    floe_batch_release(b);
}

FLOE_TEST_MAIN(cmocka_unit_test(table_aligns_numbers_right_and_counts_rows),
               cmocka_unit_test(table_escapes_newlines_and_counts_code_points),
               cmocka_unit_test(table_streams_rows_past_the_buffer_limit),
               cmocka_unit_test(csv_quotes_per_rfc4180_and_separates_null_from_empty),
               cmocka_unit_test(jsonl_escapes_strings_and_keeps_numbers_exact),
               cmocka_unit_test(jsonl_renders_floats_temporals_and_structs),
               cmocka_unit_test(printer_writes_to_a_file_and_parses_format_names))
