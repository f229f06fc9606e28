/* Parquet VARIANT columns: every case of parquet-testing's shredded_variant/cases.json reads as its expected variant (or fails, for the error cases); unshredded variants written as plain groups read zero-copy, inside structs and lists, with SQL NULL apart from variant null; corrupt bytes, bad layouts and paths into a variant are errors naming the column. */
#include "../../tools/pq_fixture.h"
#include "formats/parquet/reader.h"
#include "variant_util.h"

#define SDIR "apache__parquet-testing/shredded_variant"

/* Read column `col` of every row of `path` into *rows (a concatenation of
 * the batches' arrays); any error is returned. */
static floe_status read_column(const char *path, const char *col, floe_array **rows) {
    const char *cols[1] = {col};
    floe_pq_read_options o;
    memset(&o, 0, sizeof o);
    o.columns = cols;
    o.num_columns = 1;
    o.batch_size = 3; /* several batches per file where there are rows */
    floe_pq_reader *r = NULL;
    FLOE_TRY(floe_pq_reader_open_path(path, &o, &r));
    floe_array *parts[64];
    int n = 0;
    floe_status st = NULL;
    for (;;) {
        floe_batch *b = NULL;
        st = floe_pq_reader_next(r, &b);
        if (st || !b) break;
        if (n < 64) parts[n++] = floe_array_retain(b->columns[0]);
        floe_batch_release(b);
    }
    if (!st && n) st = floe_array_concat(parts, n, rows);
    else if (!st) st = floe_array_new_nulls(floe_type_primitive(FLOE_TYPE_VARIANT), 0, rows);
    for (int i = 0; i < n; i++) floe_array_release(parts[i]);
    floe_pq_reader_close(r);
    return st;
}

/* Row i of a variant array equals the variant in file `bin` (metadata
 * bytes followed by value bytes). */
static void expect_row(const floe_array *a, int64_t i, const char *bin, int case_no) {
    size_t n;
    uint8_t *b = vt_slurp(bin, &n);
    floe_variant_meta em, gm;
    floe_variant ev, gv;
    assert_ok(floe_variant_meta_open(b, n, false, &em));
    assert_ok(floe_variant_open(b + em.size, n - em.size, true, &ev));
    assert_ok(floe_variant_check(b, em.size, b + em.size, n - em.size));
    if (floe_array_is_null(a, i)) fail_msg("case %d row %lld: SQL NULL, expected a variant", case_no, (long long)i);
    assert_ok(floe_variant_array_get(a, i, &gm, &gv));
    bool eq;
    assert_ok(floe_variant_equal(&gm, &gv, &em, &ev, &eq));
    if (!eq) {
        floe_buf g = FLOE_BUF_INIT, e = FLOE_BUF_INIT;
        assert_ok(floe_variant_to_json(&gm, &gv, &g));
        assert_ok(floe_variant_to_json(&em, &ev, &e));
        fail_msg("case %d row %lld: read %s, expected %s", case_no, (long long)i, floe_buf_cstr(&g), floe_buf_cstr(&e));
    }
    floe_free(b);
}

static void every_shredded_case(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    char p[2048];
    snprintf(p, sizeof p, "%s/" SDIR "/cases.json", dir);
    json_error_t je;
    json_t *cases = json_load_file(p, 0, &je);
    if (!cases) fail_msg("%s: %s", p, je.text);
    int read = 0, errors = 0, rows = 0, empty = 0;
    size_t k;
    json_t *c;
    json_array_foreach(cases, k, c) {
        int no = (int)json_integer_value(json_object_get(c, "case_number"));
        const char *file = json_string_value(json_object_get(c, "parquet_file"));
        if (!file) { /* case 3 has no files */
            empty++;
            continue;
        }
        snprintf(p, sizeof p, "%s/" SDIR "/%s", dir, file);
        floe_array *a = NULL;
        floe_status st = read_column(p, "var", &a);
        if (json_object_get(c, "error_message")) {
            if (!st) fail_msg("case %d (%s) read, expected: %s", no, file,
                              json_string_value(json_object_get(c, "error_message")));
            assert_true(floe_status_code(st) == FLOE_ERR_CORRUPT || floe_status_code(st) == FLOE_ERR_UNSUPPORTED);
            assert_non_null(strstr(floe_status_message(st), "var"));
            floe_status_free(st);
            errors++;
            continue;
        }
        if (st) fail_msg("case %d (%s): %s", no, file, floe_status_message(st));
        assert_int_equal(a->type->id, FLOE_TYPE_VARIANT);
        assert_ok(floe_array_validate(a));
        json_t *one = json_object_get(c, "variant_file"), *many = json_object_get(c, "variant_files");
        if (one) {
            assert_int_equal(a->length, 1);
            snprintf(p, sizeof p, "%s/" SDIR "/%s", dir, json_string_value(one));
            expect_row(a, 0, p, no);
            rows++;
        } else {
            assert_int_equal((int64_t)json_array_size(many), a->length);
            for (size_t r = 0; r < json_array_size(many); r++) {
                json_t *f = json_array_get(many, r);
                if (json_is_null(f)) {
                    if (!floe_array_is_null(a, (int64_t)r)) fail_msg("case %d row %zu: expected SQL NULL", no, r);
                } else {
                    snprintf(p, sizeof p, "%s/" SDIR "/%s", dir, json_string_value(f));
                    expect_row(a, (int64_t)r, p, no);
                }
                rows++;
            }
        }
        floe_array_release(a);
        read++;
    }
    json_decref(cases);
    assert_int_equal(empty, 1);
    assert_int_equal(errors, 6);
    assert_int_equal(read, 131);
    assert_int_equal(rows, 138);
}

/* The error cases fail for the reason the case names. */
static void shredded_errors_say_why(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    static const struct {
        const char *file, *why;
    } cases[] = {
        {"case-040.parquet", "'element': value and typed_value are both set"},
        {"case-042.parquet", "'var': value and typed_value are both set"},
        {"case-087.parquet", "value is a int32, not an object"},
        {"case-128.parquet", "value is a null, not an object"},
        {"case-127.parquet", "'var.typed_value': unsupported shredded value type INT32 (INT(32,unsigned))"},
        {"case-137.parquet", "unsupported shredded value type FIXED_LEN_BYTE_ARRAY(4)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char p[2048];
        snprintf(p, sizeof p, "%s/" SDIR "/%s", dir, cases[i].file);
        floe_array *a = NULL;
        floe_status st = read_column(p, "var", &a);
        if (!st) fail_msg("%s read", cases[i].file);
        if (!strstr(floe_status_message(st), cases[i].why))
            fail_msg("%s: '%s' lacks '%s'", cases[i].file, floe_status_message(st), cases[i].why);
        floe_status_free(st);
        /* The file's other columns still read. */
        assert_ok(read_column(p, "id", &a));
        floe_array_release(a);
    }
}

/* A batch: id, v variant (NULL in row 1, a variant null in row 2),
 * s struct<w variant>, l list<variant>. */
static floe_batch *plain_batch(void) {
    static const uint8_t meta[] = {0x11, 0x02, 0x00, 0x01, 0x02, 'a', 'b'};
    static const uint8_t obj[] = {0x02, 2, 0, 1, 0, 2, 3, 3 << 2, 42, 1 << 2}; /* {"a":42,"b":true} */
    static const uint8_t vnull[] = {0x00};
    floe_type *bin = floe_type_primitive(FLOE_TYPE_BINARY);
    floe_field mv[2];
    assert_ok(floe_field_init(&mv[0], "metadata", bin, false, -1));
    assert_ok(floe_field_init(&mv[1], "value", bin, false, -1));
    floe_type *vt;
    assert_ok(floe_type_struct(mv, 2, &vt));
    floe_field wf, ef;
    assert_ok(floe_field_init(&wf, "w", vt, true, -1));
    assert_ok(floe_field_init(&ef, "element", vt, true, -1));
    floe_type *st, *lt;
    assert_ok(floe_type_struct(&wf, 1, &st));
    assert_ok(floe_type_list(&ef, &lt));
    floe_field cols[4];
    assert_ok(floe_field_init(&cols[0], "id", floe_type_primitive(FLOE_TYPE_INT32), false, 1));
    assert_ok(floe_field_init(&cols[1], "v", vt, true, 2));
    assert_ok(floe_field_init(&cols[2], "s", st, true, 3));
    assert_ok(floe_field_init(&cols[3], "l", lt, true, 4));
    floe_schema *schema;
    assert_ok(floe_type_struct(cols, 4, &schema));
    floe_builder *b;
    assert_ok(floe_builder_new(schema, 4, &b));
    for (int r = 0; r < 4; r++) {
        assert_ok(floe_builder_append_int32(floe_builder_child(b, 0), r));
        floe_builder *v = floe_builder_child(b, 1);
        if (r == 1) {
            assert_ok(floe_builder_append_null(v));
        } else {
            assert_ok(floe_builder_append_binary(floe_builder_child(v, 0), meta, sizeof meta));
            if (r == 2) assert_ok(floe_builder_append_binary(floe_builder_child(v, 1), vnull, 1));
            else assert_ok(floe_builder_append_binary(floe_builder_child(v, 1), obj, sizeof obj));
            assert_ok(floe_builder_append_valid(v));
        }
        floe_builder *s = floe_builder_child(b, 2), *w = floe_builder_child(s, 0);
        assert_ok(floe_builder_append_binary(floe_builder_child(w, 0), meta, sizeof meta));
        assert_ok(floe_builder_append_binary(floe_builder_child(w, 1), obj, sizeof obj));
        assert_ok(floe_builder_append_valid(w));
        assert_ok(floe_builder_append_valid(s));
        floe_builder *l = floe_builder_child(b, 3), *e = floe_builder_child(l, 0);
        for (int k = 0; k < r; k++) {
            assert_ok(floe_builder_append_binary(floe_builder_child(e, 0), meta, sizeof meta));
            assert_ok(floe_builder_append_binary(floe_builder_child(e, 1), k ? vnull : obj, k ? 1 : sizeof obj));
            assert_ok(floe_builder_append_valid(e));
        }
        assert_ok(floe_builder_append_list(l));
        assert_ok(floe_builder_append_valid(b));
    }
    floe_array *all;
    assert_ok(floe_builder_finish(b, &all));
    floe_builder_free(b);
    floe_batch *batch;
    assert_ok(floe_batch_from_struct(all, &batch));
    floe_array_release(all);
    for (int i = 0; i < 4; i++) floe_field_clear(&cols[i]);
    floe_field_clear(&mv[0]);
    floe_field_clear(&mv[1]);
    floe_field_clear(&wf);
    floe_field_clear(&ef);
    floe_type_release(vt);
    floe_type_release(st);
    floe_type_release(lt);
    floe_type_release(schema);
    return batch;
}

static char *text_of(const floe_array *a, int64_t i) {
    floe_buf b = FLOE_BUF_INIT;
    if (floe_array_is_null(a, i)) assert_ok(floe_buf_append_str(&b, "NULL"));
    else assert_ok(floe_format_value(a, i, &b));
    size_t n;
    char *s = (char *)floe_buf_detach(&b, &n);
    return s;
}

static void unshredded_groups_read_anywhere(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "pq_variant_plain");
    snprintf(path, sizeof path, "%s/plain.parquet", dir);
    floe_batch *batch = plain_batch();
    static const char *const groups[] = {"v", "w", "element"};
    assert_ok(pqfx_write_variant(path, batch, groups, 3));
    floe_batch_release(batch);
    floe_pq_reader *r;
    assert_ok(floe_pq_reader_open_path(path, NULL, &r));
    const floe_schema *s = floe_pq_reader_schema(r);
    assert_int_equal(s->children[1].type->id, FLOE_TYPE_VARIANT);
    assert_int_equal(s->children[1].field_id, 2);
    assert_int_equal(s->children[2].type->children[0].type->id, FLOE_TYPE_VARIANT);
    assert_int_equal(s->children[3].type->children[0].type->id, FLOE_TYPE_VARIANT);
    floe_batch *b;
    assert_ok(floe_pq_reader_next(r, &b));
    assert_int_equal(b->num_rows, 4);
    assert_ok(floe_batch_validate(b));
    static const char *const want[4][3] = {
        {"{\"a\":42,\"b\":true}", "{w: {\"a\":42,\"b\":true}}", "[]"},
        {"NULL", "{w: {\"a\":42,\"b\":true}}", "[{\"a\":42,\"b\":true}]"},
        {"null", "{w: {\"a\":42,\"b\":true}}", "[{\"a\":42,\"b\":true}, null]"},
        {"{\"a\":42,\"b\":true}", "{w: {\"a\":42,\"b\":true}}", "[{\"a\":42,\"b\":true}, null, null]"},
    };
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++) {
            char *t = text_of(b->columns[c + 1], i);
            if (strcmp(t, want[i][c])) fail_msg("row %d column %d: %s, expected %s", i, c + 1, t, want[i][c]);
            floe_free(t);
        }
    /* Unshredded: the file's value column is the variant's, not a copy
     * (one value buffer, no validity of its own added). */
    const floe_array *v = b->columns[1];
    assert_true(floe_array_is_null(v, 1));
    assert_false(floe_array_is_null(v, 2));
    floe_batch_release(b);
    floe_pq_reader_close(r);
    /* A path into a variant is not a column; a field id inside one is not either. */
    const char *bad[1] = {"v.metadata"};
    floe_pq_read_options o;
    memset(&o, 0, sizeof o);
    o.columns = bad;
    o.num_columns = 1;
    assert_error(floe_pq_reader_open_path(path, &o, &r), FLOE_ERR_NOT_FOUND, "no column 'v.metadata'");
}

/* Bad bytes in a file are errors naming the column and the row. */
static void corrupt_variant_bytes_in_a_file(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "pq_variant_corrupt");
    static const struct {
        const uint8_t *m;
        int mn;
        const uint8_t *v;
        int vn;
        const char *why;
    } cases[] = {
        {(const uint8_t *)"\x01\x00\x00", 3, (const uint8_t *)"\x54", 1, "unknown primitive type id 21"},
        {(const uint8_t *)"\x02\x00\x00", 3, (const uint8_t *)"\x00", 1, "variant metadata version 2"},
        {(const uint8_t *)"\x01\x00\x00", 3, (const uint8_t *)"\x18\x01", 2, "int64 needs 9 bytes, 2 left"},
        {(const uint8_t *)"\x01\x00\x00", 3, (const uint8_t *)"\x00\x00", 2, "1 bytes after a null"},
        {(const uint8_t *)"\x01\x00\x00", 3, (const uint8_t *)"\x05\xc3", 2, "string is not UTF-8"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(path, sizeof path, "%s/bad%zu.parquet", dir, k);
        floe_type *bin = floe_type_primitive(FLOE_TYPE_BINARY);
        floe_field mv[2];
        assert_ok(floe_field_init(&mv[0], "metadata", bin, false, -1));
        assert_ok(floe_field_init(&mv[1], "value", bin, false, -1));
        floe_type *vt;
        assert_ok(floe_type_struct(mv, 2, &vt));
        floe_field col;
        assert_ok(floe_field_init(&col, "doc", vt, true, -1));
        floe_schema *schema;
        assert_ok(floe_type_struct(&col, 1, &schema));
        floe_builder *b;
        assert_ok(floe_builder_new(schema, 2, &b));
        for (int r = 0; r < 2; r++) {
            floe_builder *v = floe_builder_child(b, 0);
            const uint8_t *m = r ? cases[k].m : (const uint8_t *)"\x01\x00\x00";
            const uint8_t *x = r ? cases[k].v : (const uint8_t *)"\x00";
            assert_ok(floe_builder_append_binary(floe_builder_child(v, 0), m, r ? cases[k].mn : 3));
            assert_ok(floe_builder_append_binary(floe_builder_child(v, 1), x, r ? cases[k].vn : 1));
            assert_ok(floe_builder_append_valid(v));
            assert_ok(floe_builder_append_valid(b));
        }
        floe_array *all;
        floe_batch *batch;
        assert_ok(floe_builder_finish(b, &all));
        assert_ok(floe_batch_from_struct(all, &batch));
        static const char *const g[] = {"doc"};
        assert_ok(pqfx_write_variant(path, batch, g, 1));
        floe_array *a = NULL;
        floe_status st = read_column(path, "doc", &a);
        if (!st) fail_msg("case %zu read", k);
        if (!strstr(floe_status_message(st), cases[k].why) ||
            !strstr(floe_status_message(st), "variant column 'doc', row 1 of the batch"))
            fail_msg("case %zu: '%s' lacks '%s'", k, floe_status_message(st), cases[k].why);
        floe_status_free(st);
        floe_batch_release(batch);
        floe_array_release(all);
        floe_builder_free(b);
        floe_type_release(schema);
        floe_field_clear(&col);
        floe_type_release(vt);
        floe_field_clear(&mv[0]);
        floe_field_clear(&mv[1]);
    }
}

/* Layouts the shredding spec does not allow make the column unreadable,
 * by name, and the schema still builds. */
static void bad_layouts_are_named(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "pq_variant_layout");
    snprintf(path, sizeof path, "%s/layout.parquet", dir);
    floe_type *bin = floe_type_primitive(FLOE_TYPE_BINARY);
    floe_field mv[3];
    assert_ok(floe_field_init(&mv[0], "metadata", bin, false, -1));
    assert_ok(floe_field_init(&mv[1], "value", bin, false, -1));
    assert_ok(floe_field_init(&mv[2], "extra", floe_type_primitive(FLOE_TYPE_INT32), true, -1));
    floe_type *vt;
    assert_ok(floe_type_struct(mv, 3, &vt));
    floe_field cols[2];
    assert_ok(floe_field_init(&cols[0], "id", floe_type_primitive(FLOE_TYPE_INT32), false, -1));
    assert_ok(floe_field_init(&cols[1], "doc", vt, true, -1));
    floe_schema *schema;
    assert_ok(floe_type_struct(cols, 2, &schema));
    floe_builder *b;
    assert_ok(floe_builder_new(schema, 1, &b));
    assert_ok(floe_builder_append_int32(floe_builder_child(b, 0), 7));
    assert_ok(floe_builder_append_null(floe_builder_child(b, 1)));
    assert_ok(floe_builder_append_valid(b));
    floe_array *all;
    floe_batch *batch;
    assert_ok(floe_builder_finish(b, &all));
    assert_ok(floe_batch_from_struct(all, &batch));
    static const char *const g[] = {"doc"};
    assert_ok(pqfx_write_variant(path, batch, g, 1));
    floe_array *a = NULL;
    assert_error(read_column(path, "doc", &a), FLOE_ERR_CORRUPT,
                 "column 'doc': 'doc' has a field 'extra' (a variant group holds metadata, value and typed_value)");
    assert_ok(read_column(path, "id", &a));
    floe_array_release(a);
    floe_batch_release(batch);
    floe_array_release(all);
    floe_builder_free(b);
    floe_type_release(schema);
    for (int i = 0; i < 2; i++) floe_field_clear(&cols[i]);
    for (int i = 0; i < 3; i++) floe_field_clear(&mv[i]);
    floe_type_release(vt);
}

FLOE_TEST_MAIN(cmocka_unit_test(every_shredded_case), cmocka_unit_test(shredded_errors_say_why),
               cmocka_unit_test(unshredded_groups_read_anywhere), cmocka_unit_test(corrupt_variant_bytes_in_a_file),
               cmocka_unit_test(bad_layouts_are_named))
