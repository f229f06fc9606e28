/* Projection of fields inside lists and maps: a file written by floe's
 * writer with list<struct<a, b>>, map<string, struct<x, y>> and a list
 * inside a struct, read by path and by field id; the output column is the
 * outermost list or map pruned to what was asked, with the same values as
 * a full read, and only the asked-for leaves fetched. */
#include "floe_test.h"
#include "base/buffer.h"
#include "floe/columnar.h"
#include "floe/memory.h"
#include "formats/parquet/file.h"
#include "formats/parquet/reader.h"
#include "formats/parquet/writer.h"

#define ROWS 300

static floe_field fld(const char *name, floe_type *t, bool nullable, int32_t id) {
    floe_field f = {(char *)name, t, nullable, id};
    return f;
}

/* id int64 (1); ls list<struct<a int64 (11), b string (12)>> (10, elem 13);
 * m map<string (21), struct<x int64 (23), y string (24)> (22)> (20);
 * s struct<t list<struct<p int64 (33), q int64 (34)>> (31, elem 32)> (30) */
static floe_schema *make_schema(void) {
    floe_type *ab = NULL, *ls = NULL, *xy = NULL, *m = NULL, *pq = NULL, *t = NULL, *s = NULL;
    floe_field f2[2] = {fld("a", floe_type_primitive(FLOE_TYPE_INT64), true, 11),
                        fld("b", floe_type_primitive(FLOE_TYPE_STRING), true, 12)};
    assert_ok(floe_type_struct(f2, 2, &ab));
    floe_field e = fld("element", ab, true, 13);
    assert_ok(floe_type_list(&e, &ls));
    floe_field g2[2] = {fld("x", floe_type_primitive(FLOE_TYPE_INT64), true, 23),
                        fld("y", floe_type_primitive(FLOE_TYPE_STRING), true, 24)};
    assert_ok(floe_type_struct(g2, 2, &xy));
    floe_field k = fld("key", floe_type_primitive(FLOE_TYPE_STRING), false, 21);
    floe_field v = fld("value", xy, true, 22);
    assert_ok(floe_type_map(&k, &v, false, &m));
    floe_field h2[2] = {fld("p", floe_type_primitive(FLOE_TYPE_INT64), true, 33),
                        fld("q", floe_type_primitive(FLOE_TYPE_INT64), true, 34)};
    assert_ok(floe_type_struct(h2, 2, &pq));
    floe_field te = fld("element", pq, true, 32);
    assert_ok(floe_type_list(&te, &t));
    floe_field tf = fld("t", t, true, 31);
    assert_ok(floe_type_struct(&tf, 1, &s));
    floe_field top[4] = {fld("id", floe_type_primitive(FLOE_TYPE_INT64), false, 1),
                         fld("ls", ls, true, 10), fld("m", m, true, 20), fld("s", s, true, 30)};
    floe_schema *sc = NULL;
    assert_ok(floe_type_struct(top, 4, &sc));
    floe_type *all[] = {ab, ls, xy, m, pq, t, s};
    for (int i = 0; i < 7; i++) floe_type_release(all[i]);
    return sc;
}

static floe_batch *make_batch(floe_schema *sc) {
    floe_builder *b[4];
    for (int c = 0; c < 4; c++) assert_ok(floe_builder_new(sc->children[c].type, ROWS, &b[c]));
    char buf[32];
    for (int64_t i = 0; i < ROWS; i++) {
        assert_ok(floe_builder_append_int64(b[0], i));
        /* ls: null when i % 7 == 3, else i % 3 structs {a: i*10+k, b: "b<i>"} */
        if (i % 7 == 3) {
            assert_ok(floe_builder_append_null(b[1]));
        } else {
            floe_builder *st = floe_builder_child(b[1], 0);
            for (int k = 0; k < i % 3; k++) {
                assert_ok(floe_builder_append_int64(floe_builder_child(st, 0), i * 10 + k));
                snprintf(buf, sizeof buf, "b%lld", (long long)i);
                assert_ok(floe_builder_append_string(floe_builder_child(st, 1), buf));
                assert_ok(floe_builder_append_valid(st));
            }
            assert_ok(floe_builder_append_list(b[1]));
        }
        /* m: {"k<i>": {x: i, y: "y<i>"}} or empty when i % 5 == 0 */
        if (i % 5) {
            snprintf(buf, sizeof buf, "k%lld", (long long)i);
            assert_ok(floe_builder_append_string(floe_builder_map_keys(b[2]), buf));
            floe_builder *vs = floe_builder_map_values(b[2]);
            assert_ok(floe_builder_append_int64(floe_builder_child(vs, 0), i));
            snprintf(buf, sizeof buf, "y%lld", (long long)i);
            assert_ok(floe_builder_append_string(floe_builder_child(vs, 1), buf));
            assert_ok(floe_builder_append_valid(vs));
        }
        assert_ok(floe_builder_append_map(b[2]));
        /* s: {t: [{p: i, q: -i}]} */
        floe_builder *tl = floe_builder_child(b[3], 0);
        floe_builder *pqb = floe_builder_child(tl, 0);
        assert_ok(floe_builder_append_int64(floe_builder_child(pqb, 0), i));
        assert_ok(floe_builder_append_int64(floe_builder_child(pqb, 1), -i));
        assert_ok(floe_builder_append_valid(pqb));
        assert_ok(floe_builder_append_list(tl));
        assert_ok(floe_builder_append_valid(b[3]));
    }
    floe_array *a[4];
    for (int c = 0; c < 4; c++) {
        assert_ok(floe_builder_finish(b[c], &a[c]));
        floe_builder_free(b[c]);
    }
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(sc, a, 4, ROWS, &batch));
    for (int c = 0; c < 4; c++) floe_array_release(a[c]);
    return batch;
}

static void write_file(const char *path) {
    floe_schema *sc = make_schema();
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.page_rows = 50;
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_writer *w = NULL;
    assert_ok(floe_pq_writer_open(out, sc, &o, &w));
    floe_batch *b = make_batch(sc);
    assert_ok(floe_pq_writer_write(w, b));
    floe_batch_release(b);
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_type_release(sc);
}

/* Read with options; one text line per row of output column `col`. */
static char **read_col(const char *path, floe_pq_read_options *ro, int col, int *ncols,
                       floe_schema **schema_copy, uint64_t *bytes) {
    floe_pq_file *f = NULL;
    assert_ok(floe_pq_file_open_path(path, &f));
    uint64_t before = f->in->bytes_read;
    floe_pq_reader *r = NULL;
    assert_ok(floe_pq_reader_open(f, ro, &r));
    floe_schema *s = floe_pq_reader_schema(r);
    *ncols = floe_schema_num_fields(s);
    if (schema_copy) {
        floe_type_retain(s);
        *schema_copy = s;
    }
    char **rows = floe_calloc(ROWS, sizeof *rows);
    int64_t at = 0;
    floe_buf line = FLOE_BUF_INIT;
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_pq_reader_next(r, &b));
        if (!b) break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            floe_buf_clear(&line);
            assert_ok(floe_format_value(b->columns[col], i, &line));
            assert_true(at < ROWS);
            rows[at++] = floe_strdup(floe_buf_cstr(&line));
        }
        floe_batch_release(b);
    }
    assert_int_equal(at, ROWS);
    floe_buf_free(&line);
    floe_pq_reader_close(r);
    if (bytes) *bytes = f->in->bytes_read - before;
    floe_pq_file_close(f);
    return rows;
}

static void free_rows(char **rows) {
    for (int i = 0; i < ROWS; i++) floe_free(rows[i]);
    floe_free(rows);
}

static char g_path[700];

static int setup(void **state) {
    (void)state;
    char dir[512];
    floe_test_tmpdir(dir, sizeof dir, "pq_nested_proj");
    snprintf(g_path, sizeof g_path, "%s/n.parquet", dir);
    write_file(g_path);
    return 0;
}

static void list_of_struct_field_reads_only_that_leaf(void **state) {
    (void)state;
    const char *cols[] = {"ls.element.a"};
    floe_pq_read_options ro = {0};
    ro.columns = cols;
    ro.num_columns = 1;
    int nc;
    floe_schema *s = NULL;
    uint64_t few = 0, all = 0;
    char **got = read_col(g_path, &ro, 0, &nc, &s, &few);
    assert_int_equal(nc, 1);
    const floe_field *f = floe_schema_field(s, 0);
    assert_string_equal(f->name, "ls");
    assert_int_equal(f->type->id, FLOE_TYPE_LIST);
    const floe_type *et = f->type->children[0].type;
    assert_int_equal(et->id, FLOE_TYPE_STRUCT);
    assert_int_equal(et->n_children, 1);
    assert_string_equal(et->children[0].name, "a");
    floe_type_release(s);
    /* The values are those of the full column without b. */
    const char *full_cols[] = {"ls"};
    ro.columns = full_cols;
    char **full = read_col(g_path, &ro, 0, &nc, NULL, &all);
    for (int i = 0; i < ROWS; i++) {
        if (i % 7 == 3) {
            assert_string_equal(got[i], full[i]); /* null */
            continue;
        }
        /* rebuild the expectation from the data */
        char want[256] = "[";
        for (int k = 0; k < i % 3; k++) {
            char one[64];
            snprintf(one, sizeof one, "%s{a: %d}", k ? ", " : "", i * 10 + k);
            strcat(want, one);
        }
        strcat(want, "]");
        if (strcmp(got[i], want) != 0) fail_msg("row %d: got %s want %s (full %s)", i, got[i], want, full[i]);
    }
    assert_true(few < all); /* b's pages were not fetched */
    free_rows(got);
    free_rows(full);
}

static void two_fields_under_one_list_merge_into_one_column(void **state) {
    (void)state;
    const char *cols[] = {"id", "ls.element.b", "ls.element.a"};
    floe_pq_read_options ro = {0};
    ro.columns = cols;
    ro.num_columns = 3;
    int nc;
    floe_schema *s = NULL;
    char **got = read_col(g_path, &ro, 1, &nc, &s, NULL);
    assert_int_equal(nc, 2);
    const floe_type *et = floe_schema_field(s, 1)->type->children[0].type;
    assert_int_equal(et->n_children, 2);
    /* the file's order, not the request's */
    assert_string_equal(et->children[0].name, "a");
    assert_string_equal(et->children[1].name, "b");
    floe_type_release(s);
    const char *full_cols[] = {"id", "ls"};
    ro.columns = full_cols;
    ro.num_columns = 2;
    char **full = read_col(g_path, &ro, 1, &nc, NULL, NULL);
    for (int i = 0; i < ROWS; i++) assert_string_equal(got[i], full[i]);
    free_rows(got);
    free_rows(full);
}

static void map_value_field_by_field_id_keeps_the_keys(void **state) {
    (void)state;
    int32_t ids[] = {24};
    floe_pq_read_options ro = {0};
    ro.field_ids = ids;
    ro.num_field_ids = 1;
    int nc;
    floe_schema *s = NULL;
    char **got = read_col(g_path, &ro, 0, &nc, &s, NULL);
    assert_int_equal(nc, 1);
    const floe_field *f = floe_schema_field(s, 0);
    assert_string_equal(f->name, "m");
    assert_int_equal(f->field_id, 20);
    assert_int_equal(f->type->id, FLOE_TYPE_MAP);
    floe_type_release(s);
    for (int i = 0; i < ROWS; i++) {
        char want[64];
        if (i % 5) snprintf(want, sizeof want, "{'k%d': {y: 'y%d'}}", i, i);
        else snprintf(want, sizeof want, "{}");
        if (strcmp(got[i], want) != 0) fail_msg("row %d: got %s want %s", i, got[i], want);
    }
    free_rows(got);
}

static void list_inside_struct_projects_through_both(void **state) {
    (void)state;
    const char *cols[] = {"s.t.element.q"};
    floe_pq_read_options ro = {0};
    ro.columns = cols;
    ro.num_columns = 1;
    int nc;
    floe_schema *s = NULL;
    char **got = read_col(g_path, &ro, 0, &nc, &s, NULL);
    assert_string_equal(floe_schema_field(s, 0)->name, "s.t");
    floe_type_release(s);
    for (int i = 0; i < ROWS; i++) {
        char want[64];
        snprintf(want, sizeof want, "[{q: %d}]", -i);
        if (strcmp(got[i], want) != 0) fail_msg("row %d: got %s want %s", i, got[i], want);
    }
    free_rows(got);
    /* Unknown nested names are still NOT_FOUND. */
    const char *bad[] = {"ls.element.zz"};
    ro.columns = bad;
    floe_pq_reader *r = NULL;
    assert_error(floe_pq_reader_open_path(g_path, &ro, &r), FLOE_ERR_NOT_FOUND, "ls.element.zz");
}

static void nested_projection_with_page_skipping(void **state) {
    (void)state;
    const char *cols[] = {"ls.element.a", "id"};
    floe_pq_value v = {0};
    v.kind = FLOE_PQ_VAL_INT;
    v.i = 200;
    floe_pq_predicate p = {"id", -1, FLOE_PQ_OP_GE, &v, 1};
    floe_pq_read_options ro = {0};
    ro.columns = cols;
    ro.num_columns = 2;
    ro.predicates = &p;
    ro.num_predicates = 1;
    floe_pq_reader *r = NULL;
    assert_ok(floe_pq_reader_open_path(g_path, &ro, &r));
    int64_t rows = 0;
    floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
    for (;;) {
        floe_batch *bt = NULL;
        assert_ok(floe_pq_reader_next(r, &bt));
        if (!bt) break;
        for (int64_t i = 0; i < bt->num_rows; i++) {
            floe_buf_clear(&a);
            floe_buf_clear(&b);
            assert_ok(floe_format_value(bt->columns[1], i, &b));
            int64_t id = atoll(floe_buf_cstr(&b));
            assert_ok(floe_format_value(bt->columns[0], i, &a));
            char want[256] = "[";
            if (id % 7 == 3) strcpy(want, "NULL");
            else {
                for (int k = 0; k < id % 3; k++) {
                    char one[64];
                    snprintf(one, sizeof one, "%s{a: %lld}", k ? ", " : "", (long long)(id * 10 + k));
                    strcat(want, one);
                }
                strcat(want, "]");
            }
            if (strcmp(floe_buf_cstr(&a), want) != 0)
                fail_msg("id %lld: got %s want %s", (long long)id, floe_buf_cstr(&a), want);
            rows++;
        }
        floe_batch_release(bt);
    }
    floe_pq_skip_stats st;
    floe_pq_reader_skip_stats(r, &st);
    assert_true(rows >= 100 && rows < ROWS);
    assert_true(st.pages_skipped > 0);
    floe_buf_free(&a);
    floe_buf_free(&b);
    floe_pq_reader_close(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(list_of_struct_field_reads_only_that_leaf),
        cmocka_unit_test(two_fields_under_one_list_merge_into_one_column),
        cmocka_unit_test(map_value_field_by_field_id_keeps_the_keys),
        cmocka_unit_test(list_inside_struct_projects_through_both),
        cmocka_unit_test(nested_projection_with_page_skipping),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
