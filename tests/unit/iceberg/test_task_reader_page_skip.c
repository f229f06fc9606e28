/*
 * test_task_reader_page_skip.c — the task reader hands its residual's
 * simple AND-ed terms to the Parquet reader, which skips pages by the page
 * index.  Files written here (2000 rows, row groups of 500, pages of 50)
 * with position deletes: the rows that come back must be exactly those of
 * a read without skipping filtered in C, position deletes must still hit
 * the right rows after skipped pages (and in a task starting mid-file),
 * and the reader must actually have read fewer rows and skipped pages.
 */
#include "floe_test.h"

#include <string.h>

#include "floe/fileio.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"
#include "formats/parquet/file.h"
#include "formats/parquet/writer.h"

#define N 2000
#define RG 500
#define PAGE 50

static char dir[1024];
static char data_path[1200], del_path[1200];

/* id long (1), name string (2), s struct<x long (4)> (3); x = id * 10. */
static const char *schema_json =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":4,\"name\":\"x\",\"required\":false,\"type\":\"long\"}]}}]}";

static floe_schema *file_schema(void) {
    floe_field x = {(char *)"x", floe_type_primitive(FLOE_TYPE_INT64), true, 4};
    floe_type *st = NULL;
    assert_ok(floe_type_struct(&x, 1, &st));
    floe_field f[3] = {
        {(char *)"id", floe_type_primitive(FLOE_TYPE_INT64), false, 1},
        {(char *)"name", floe_type_primitive(FLOE_TYPE_STRING), true, 2},
        {(char *)"s", st, true, 3},
    };
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(f, 3, &s));
    floe_type_release(st);
    return s;
}

static void write_data(void) {
    floe_schema *s = file_schema();
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    o.row_group_rows = RG;
    o.page_rows = PAGE;
    o.write_page_index = true;
    floe_output *out = NULL;
    floe_pq_writer *w = NULL;
    assert_ok(floe_output_create_local(data_path, 1, &out));
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    for (int64_t b = 0; b < N; b += 250) {
        floe_builder *bi, *bn, *bs;
        assert_ok(floe_builder_new(s->children[0].type, 250, &bi));
        assert_ok(floe_builder_new(s->children[1].type, 250, &bn));
        assert_ok(floe_builder_new(s->children[2].type, 250, &bs));
        for (int64_t i = b; i < b + 250; i++) {
            char nm[32];
            snprintf(nm, sizeof nm, "n%05lld", (long long)i);
            assert_ok(floe_builder_append_int64(bi, i));
            assert_ok(floe_builder_append_string(bn, nm));
            assert_ok(floe_builder_append_int64(floe_builder_child(bs, 0), i * 10));
            assert_ok(floe_builder_append_valid(bs));
        }
        floe_array *cols[3];
        assert_ok(floe_builder_finish(bi, &cols[0]));
        assert_ok(floe_builder_finish(bn, &cols[1]));
        assert_ok(floe_builder_finish(bs, &cols[2]));
        floe_builder_free(bi);
        floe_builder_free(bn);
        floe_builder_free(bs);
        floe_batch *batch = NULL;
        assert_ok(floe_batch_new(s, cols, 3, 250, &batch));
        for (int i = 0; i < 3; i++) floe_array_release(cols[i]);
        assert_ok(floe_pq_writer_write(w, batch));
        floe_batch_release(batch);
    }
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_type_release(s);
}

/* A position delete file (file_path, pos) deleting `pos` of the data file. */
static void write_deletes(const int64_t *pos, int n) {
    floe_field f[2] = {
        {(char *)"file_path", floe_type_primitive(FLOE_TYPE_STRING), false, 2147483546},
        {(char *)"pos", floe_type_primitive(FLOE_TYPE_INT64), false, 2147483545},
    };
    floe_schema *s = NULL;
    assert_ok(floe_type_struct(f, 2, &s));
    floe_builder *bp, *bo;
    assert_ok(floe_builder_new(f[0].type, n, &bp));
    assert_ok(floe_builder_new(f[1].type, n, &bo));
    for (int i = 0; i < n; i++) {
        assert_ok(floe_builder_append_string(bp, data_path));
        assert_ok(floe_builder_append_int64(bo, pos[i]));
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(bp, &cols[0]));
    assert_ok(floe_builder_finish(bo, &cols[1]));
    floe_builder_free(bp);
    floe_builder_free(bo);
    floe_batch *batch = NULL;
    assert_ok(floe_batch_new(s, cols, 2, n, &batch));
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    floe_output *out = NULL;
    floe_pq_writer *w = NULL;
    assert_ok(floe_output_create_local(del_path, 1, &out));
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_batch_release(batch);
    floe_type_release(s);
}

/* Deleted positions: some in pages the filters below skip, some in pages
 * they read after skipped ones, one at the last row of a read page. */
static const int64_t deleted[] = {5, 620, 1203, 1210, 1249, 1399, 1500, 1777};
#define N_DELETED ((int)(sizeof deleted / sizeof deleted[0]))

static bool is_deleted(int64_t id) {
    for (int i = 0; i < N_DELETED; i++)
        if (deleted[i] == id) return true;
    return false;
}

static int setup(void **state) {
    (void)state;
    floe_test_tmpdir(dir, sizeof dir, "task_reader_page_skip");
    snprintf(data_path, sizeof data_path, "%s/data.parquet", dir);
    snprintf(del_path, sizeof del_path, "%s/deletes.parquet", dir);
    write_data();
    write_deletes(deleted, N_DELETED);
    return 0;
}

typedef struct read_result {
    int64_t n;
    int64_t ids[N];
    floe_ice_task_read_stats stats;
} read_result;

static int64_t file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* Read the data file as one task with `filter_json` (NULL: none) as its
 * residual and the position deletes; ids of the rows kept. */
static void read_task(const floe_ice_schema *schema, const char *filter_json, int64_t start, int64_t length,
                      read_result *res) {
    floe_ice_expr *bound = NULL;
    if (filter_json) {
        floe_ice_expr *e = NULL;
        assert_ok(floe_ice_expr_from_json_text(filter_json, &e));
        assert_ok(floe_ice_expr_bind(e, schema, true, &bound));
        floe_ice_expr_free(e);
    } else {
        bound = floe_ice_expr_true();
    }
    floe_ice_scan_delete del = {0};
    del.content = FLOE_ICE_CONTENT_POSITION_DELETES;
    del.path = del_path;
    del.resolved_path = del_path;
    del.format = "parquet";
    del.record_count = N_DELETED;
    del.file_size_in_bytes = file_size(del_path);
    del.content_offset = -1;
    del.content_size_in_bytes = -1;
    const floe_ice_scan_delete *dels[1] = {&del};
    floe_ice_scan_task task = {0};
    task.path = data_path;
    task.resolved_path = data_path;
    task.format = "parquet";
    task.record_count = N;
    task.file_size_in_bytes = file_size(data_path);
    task.start = start;
    task.length = length;
    task.n_splits = 1;
    task.residual = bound;
    task.n_deletes = 1;
    task.deletes = dels;
    floe_ice_task_read_options ro = {0};
    ro.schema = schema;
    ro.batch_size = 64;
    floe_ice_task_reader *r = NULL;
    assert_ok(floe_ice_task_reader_open(&ro, &task, &r));
    res->n = 0;
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_ice_task_reader_next(r, &b));
        if (!b) break;
        assert_ok(floe_batch_validate(b));
        for (int64_t i = 0; i < b->num_rows; i++) {
            int64_t id = floe_array_get_int64(b->columns[0], i);
            /* every column of the row is that row's */
            char nm[32];
            snprintf(nm, sizeof nm, "n%05lld", (long long)id);
            floe_strview sv = floe_array_get_str(b->columns[1], i);
            assert_int_equal(sv.len, strlen(nm));
            assert_memory_equal(sv.data, nm, sv.len);
            assert_int_equal(floe_array_get_int64(b->columns[2]->children[0], b->columns[2]->offset + i), id * 10);
            assert_true(res->n < N);
            res->ids[res->n++] = id;
        }
        floe_batch_release(b);
    }
    floe_ice_task_reader_stats(r, &res->stats);
    floe_ice_task_reader_close(r);
    floe_ice_expr_free(bound);
}

/* The ids a read without skipping gives, filtered by `keep` in C. */
static void check_equals_full_read(const floe_ice_schema *schema, const read_result *got, bool (*keep)(int64_t)) {
    read_result *all = floe_calloc(1, sizeof *all);
    read_task(schema, NULL, 0, -1, all);
    assert_int_equal(all->stats.pages_skipped, 0);
    assert_int_equal(all->n, N - N_DELETED);
    int64_t k = 0;
    for (int64_t i = 0; i < all->n; i++) {
        if (!keep(all->ids[i])) continue;
        assert_true(k < got->n);
        assert_int_equal(got->ids[k], all->ids[i]);
        k++;
    }
    assert_int_equal(k, got->n);
    floe_free(all);
}

static bool in_1200_1400(int64_t id) { return id >= 1200 && id < 1400; }
static bool x_le_6300_or_name(int64_t id) { return id * 10 <= 6300 && id >= 600; }
static bool in_list(int64_t id) { return id == 5 || id == 7 || id == 1210 || id == 1211 || id == 1998; }

static void skipped_pages_keep_position_deletes_on_the_right_rows(void **state) {
    (void)state;
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(schema_json, &schema));
    read_result *res = floe_calloc(1, sizeof *res);
    read_task(schema,
              "{\"type\":\"and\",\"left\":{\"type\":\"gt-eq\",\"term\":\"id\",\"value\":1200},"
              "\"right\":{\"type\":\"lt\",\"term\":\"id\",\"value\":1400}}",
              0, -1, res);
    /* Pages 1200..1399 only: four pages of 50 rows were decoded. */
    assert_int_equal(res->stats.rows_read, 200);
    assert_true(res->stats.pages_skipped > 0);
    assert_int_equal(res->n, 200 - 4); /* 1203, 1210, 1249, 1399 deleted */
    for (int64_t i = 0; i < res->n; i++) assert_false(is_deleted(res->ids[i]));
    check_equals_full_read(schema, res, in_1200_1400);
    floe_free(res);
    floe_ice_schema_free(schema);
}

static void struct_field_and_string_terms_skip_pages_too(void **state) {
    (void)state;
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(schema_json, &schema));
    read_result *res = floe_calloc(1, sizeof *res);
    /* s.x <= 6300 (id <= 630) and name >= "n00600" */
    read_task(schema,
              "{\"type\":\"and\",\"left\":{\"type\":\"lt-eq\",\"term\":\"s.x\",\"value\":6300},"
              "\"right\":{\"type\":\"gt-eq\",\"term\":\"name\",\"value\":\"n00600\"}}",
              0, -1, res);
    assert_int_equal(res->stats.rows_read, 50); /* the page 600..649 */
    assert_int_equal(res->n, 30);                /* 600..630 without 620 */
    check_equals_full_read(schema, res, x_le_6300_or_name);
    /* IN: pages 0..49, 1200..1249, 1950..1999 */
    read_task(schema, "{\"type\":\"in\",\"term\":\"id\",\"values\":[5,7,1210,1211,1998]}", 0, -1, res);
    assert_int_equal(res->stats.rows_read, 150);
    assert_int_equal(res->n, 3); /* 5 and 1210 are deleted */
    check_equals_full_read(schema, res, in_list);
    floe_free(res);
    floe_ice_schema_free(schema);
}

static bool from_1000_in_1200_1400(int64_t id) { return id >= 1000 && in_1200_1400(id); }

/* A split starting at the third row group: positions are still file rows. */
static void split_task_after_skipped_pages_numbers_rows_from_the_file_start(void **state) {
    (void)state;
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(schema_json, &schema));
    floe_pq_file *f = NULL;
    assert_ok(floe_pq_file_open_path(data_path, &f));
    assert_int_equal(f->meta->num_row_groups, N / RG);
    const floe_pq_column_meta *m = &f->meta->row_groups[2].columns[0].meta_data;
    int64_t start = m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
                            m->dictionary_page_offset < m->data_page_offset
                        ? m->dictionary_page_offset
                        : m->data_page_offset;
    floe_pq_file_close(f);
    read_result *res = floe_calloc(1, sizeof *res);
    read_task(schema,
              "{\"type\":\"and\",\"left\":{\"type\":\"gt-eq\",\"term\":\"id\",\"value\":1200},"
              "\"right\":{\"type\":\"lt\",\"term\":\"id\",\"value\":1400}}",
              start, file_size(data_path) - start, res);
    assert_int_equal(res->stats.rows_read, 200);
    assert_int_equal(res->n, 196);
    check_equals_full_read(schema, res, from_1000_in_1200_1400);
    floe_free(res);
    floe_ice_schema_free(schema);
}

FLOE_TEST_MAIN(cmocka_unit_test_setup(skipped_pages_keep_position_deletes_on_the_right_rows, setup),
               cmocka_unit_test_setup(struct_field_and_string_terms_skip_pages_too, setup),
               cmocka_unit_test_setup(split_task_after_skipped_pages_numbers_rows_from_the_file_start, setup))
