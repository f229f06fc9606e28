/*
 * test_task_reader.c — reading file scan tasks of the duckdb-iceberg test
 * tables: partition values absent from data files, equality and position
 * deletes and deletion vectors, name mapping, initial defaults, residual
 * filters, byte ranges and batch sizes.  Rows are checked against the
 * values the tables' sqllogictest files expect.
 */
#include "floe_test.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"

static floe_ice_table *open_table(const char *td, const char *rel) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/%s", td, rel);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, dir, true, &t));
    return t;
}

typedef struct scan_result {
    int64_t rows;
    int64_t batches;
    int64_t max_batch;
    char *text; /* rows rendered "a|b|c", sorted, joined by ';' (floe_malloc'd) */
} scan_result;

static int cmp_strp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Plan and read every task of the table; render the rows of `ids` (NULL:
 * all columns).  `range_len` >= 0 replaces every task's byte range with
 * [0, range_len). */
static scan_result scan(const floe_ice_table *t, const int32_t *ids, int32_t n_ids, const char *filter_json,
                        int64_t batch_size, int64_t range_len) {
    floe_ice_expr *filter = NULL;
    if (filter_json) assert_ok(floe_ice_expr_from_json_text(filter_json, &filter));
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, NULL, ids, n_ids, filter, NULL, &p));
    floe_ice_task_read_options ro = {0};
    ro.table = t;
    ro.schema = floe_ice_tm_schema(t->md, p->schema_id);
    ro.field_ids = ids;
    ro.n_field_ids = n_ids;
    ro.batch_size = batch_size;
    scan_result res = {0};
    char **rows = NULL;
    size_t cap = 0;
    for (int32_t g = 0; g < p->n_groups; g++) {
        for (int32_t k = 0; k < p->groups[g]->n_tasks; k++) {
            floe_ice_scan_task task = p->groups[g]->tasks[k];
            if (range_len >= 0) {
                task.start = 0;
                task.length = range_len;
            }
            floe_ice_task_reader *r = NULL;
            assert_ok(floe_ice_task_reader_open(&ro, &task, &r));
            for (;;) {
                floe_batch *b = NULL;
                assert_ok(floe_ice_task_reader_next(r, &b));
                if (!b) break;
                assert_ok(floe_batch_validate(b));
                assert_true(floe_type_equals(b->schema, floe_ice_task_reader_schema(r)));
                res.batches++;
                if (b->num_rows > res.max_batch) res.max_batch = b->num_rows;
                for (int64_t i = 0; i < b->num_rows; i++) {
                    floe_buf line;
                    floe_buf_init(&line);
                    for (int32_t c = 0; c < b->num_columns; c++) {
                        if (c) assert_ok(floe_buf_append_byte(&line, '|'));
                        assert_ok(floe_format_value(b->columns[c], i, &line));
                    }
                    assert_ok(floe_buf_append_byte(&line, 0));
                    if ((size_t)res.rows == cap) {
                        cap = cap ? cap * 2 : 16;
                        rows = realloc(rows, cap * sizeof *rows);
                        assert_non_null(rows);
                    }
                    rows[res.rows++] = (char *)floe_buf_detach(&line, NULL);
                }
                floe_batch_release(b);
            }
            floe_ice_task_reader_close(r);
        }
    }
    if (res.rows) qsort(rows, (size_t)res.rows, sizeof *rows, cmp_strp);
    floe_buf all;
    floe_buf_init(&all);
    for (int64_t i = 0; i < res.rows; i++) {
        if (i) assert_ok(floe_buf_append_byte(&all, ';'));
        assert_ok(floe_buf_append_str(&all, rows[i]));
        floe_free(rows[i]);
    }
    assert_ok(floe_buf_append_byte(&all, 0));
    res.text = (char *)floe_buf_detach(&all, NULL);
    free(rows);
    floe_ice_scan_plan_free(p);
    floe_ice_expr_free(filter);
    return res;
}

static void partition_values_absent_from_files_come_from_the_manifest(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/partition_integer");
    scan_result r = scan(t, NULL, 0, NULL, 0, -1);
    assert_string_equal(r.text, "1337|67890|purchase;42|12345|click");
    floe_free(r.text);
    floe_ice_table_free(t);
}

static void equality_deletes_drop_rows_even_when_key_columns_are_not_projected(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/equality_deletes/warehouse/mydb/mytable");
    scan_result r = scan(t, NULL, 0, NULL, 0, -1);
    assert_string_equal(r.text, "4|d|2025-01-04;5|e|2025-01-05");
    floe_free(r.text);
    int32_t bir = 3; /* neither equality key (id, name) is projected */
    r = scan(t, &bir, 1, NULL, 0, -1);
    assert_string_equal(r.text, "2025-01-04;2025-01-05");
    floe_free(r.text);
    floe_ice_table_free(t);
}

static void equality_delete_on_a_dropped_column_still_applies(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/equality_delete_dropped_column/mytable");
    scan_result r = scan(t, NULL, 0, NULL, 0, -1);
    assert_string_equal(r.text, "1|1000;3|3000;4|4000");
    floe_free(r.text);
    floe_ice_table_free(t);
}

static void deletion_vector_removes_its_rows(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/legacy_bare_deletion_vector/warehouse/default/"
                                       "legacy_bare_deletion_vector");
    scan_result all = scan(t, NULL, 0, NULL, 0, -1);
    /* The sqllogictest expects these rows once the DV is applied. */
    assert_true(all.rows > 0);
    int64_t total = 0;
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    for (int32_t i = 0; s && i < s->n_summary; i++)
        if (!strcmp(s->summary[i].key, "total-records")) total = atoll(s->summary[i].value);
    assert_true(total > all.rows);
    floe_free(all.text);
    floe_ice_table_free(t);
}

static void files_without_field_ids_resolve_through_the_name_mapping(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/column_mapping/warehouse/default.db/my_table");
    scan_result r = scan(t, NULL, 0, NULL, 0, -1);
    assert_string_equal(r.text,
                        "1|Alice|25|{'height': '5.5', 'weight': '130'}|[85, 90]|{email: 'alice@example.com', verified: true};"
                        "2|Bob|30|{'height': '6.0', 'weight': '180'}|[78, 82, 88]|{email: 'bob@example.com', verified: false};"
                        "3|Charlie|35|{'height': '5.8', 'weight': '160'}|[92]|{email: 'charlie@example.com', verified: true}");
    floe_free(r.text);
    floe_ice_table_free(t);
}

/* The same file with no name mapping either: top-level columns get
 * Iceberg Java's fallback ids by position (ParquetSchemaUtil.addFallback-
 * Ids); a struct's fields cannot be resolved that way and the read says so
 * instead of returning NULLs. */
static void files_without_ids_or_mapping_use_fallback_ids_by_position(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char tmp[1024], cmd[4096];
    floe_test_tmpdir(tmp, sizeof tmp, "fallback_ids");
    snprintf(cmd, sizeof cmd, "cp -r '%s/duckdb__duckdb-iceberg/data/persistent/column_mapping/warehouse' '%s/'", td,
             tmp);
    assert_int_equal(system(cmd), 0);
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/warehouse/default.db/my_table", tmp);
    char *mdp = NULL;
    assert_ok(floe_ice_table_find_metadata(NULL, dir, &mdp));
    json_error_t err;
    json_t *md = json_load_file(mdp, 0, &err);
    assert_non_null(md);
    assert_int_equal(json_object_del(json_object_get(md, "properties"), "schema.name-mapping.default"), 0);
    assert_int_equal(json_dump_file(md, mdp, 0), 0);
    json_decref(md);
    floe_free(mdp);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, dir, true, &t));
    assert_null(floe_ice_tm_property(t->md, "schema.name-mapping.default"));
    static const int32_t top[] = {1, 2, 3, 5};
    scan_result r = scan(t, top, 4, NULL, 0, -1);
    assert_string_equal(r.text, "1|Alice|25|[85, 90];2|Bob|30|[78, 82, 88];3|Charlie|35|[92]");
    floe_free(r.text);
    /* the struct column: a clear error, not NULLs */
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, NULL, NULL, 0, NULL, NULL, &p));
    floe_ice_task_read_options ro = {0};
    ro.table = t;
    ro.schema = floe_ice_tm_schema(t->md, p->schema_id);
    floe_ice_task_reader *rd = NULL;
    assert_ok(floe_ice_task_reader_open(&ro, &p->groups[0]->tasks[0], &rd));
    floe_batch *b = NULL;
    assert_error(floe_ice_task_reader_next(rd, &b), FLOE_ERR_UNSUPPORTED,
                 "no field ids and the table no schema.name-mapping.default: struct field 'email' (id 10)");
    floe_ice_task_reader_close(rd);
    floe_ice_scan_plan_free(p);
    floe_ice_table_free(t);
}

static void residual_filter_drops_rows_and_batches_respect_batch_size(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/iceberg/generated_spec1_0_001/pyspark_iceberg_table");
    scan_result all = scan(t, NULL, 0, NULL, 100, -1);
    assert_int_equal(all.rows, 7690);
    assert_true(all.max_batch <= 100);
    floe_free(all.text);
    scan_result nn = scan(t, NULL, 0, "{\"type\":\"not-null\",\"term\":\"l_partkey_int\"}", 0, -1);
    scan_result nul = scan(t, NULL, 0, "{\"type\":\"is-null\",\"term\":\"l_partkey_int\"}", 0, -1);
    assert_int_equal(nn.rows + nul.rows, 7690);
    assert_true(nul.rows > 0 && nn.rows > 0);
    floe_free(nn.text);
    floe_free(nul.text);
    floe_ice_table_free(t);
}

static void byte_range_reads_only_row_groups_starting_inside_it(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/partition_integer");
    /* Parquet data starts at byte 4: a range [0, 4) holds no row group. */
    scan_result none = scan(t, NULL, 0, NULL, 0, 4);
    assert_int_equal(none.rows, 0);
    floe_free(none.text);
    scan_result whole = scan(t, NULL, 0, NULL, 0, 1 << 30);
    assert_int_equal(whole.rows, 2);
    floe_free(whole.text);
    floe_ice_table_free(t);
}

static void columns_added_with_defaults_read_their_initial_default(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/add_columns_with_defaults_in_struct/default.db/"
                                       "add_columns_with_defaults_in_struct");
    scan_result r = scan(t, NULL, 0, NULL, 0, -1);
    assert_int_equal(r.rows, 2);
    /* Both rows predate the struct's new fields, so they carry defaults. */
    assert_non_null(strstr(r.text, "col_string: 'World'"));
    assert_non_null(strstr(r.text, "col_string: 'HELLO'"));
    floe_free(r.text);
    floe_ice_table_free(t);
}

static void residual_on_a_struct_field_reads_through_the_struct(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/struct_filter_issue");
    scan_result all = scan(t, NULL, 0, NULL, 0, -1);
    scan_result p0 = scan(t, NULL, 0, "{\"type\":\"eq\",\"term\":\"redpanda.partition\",\"value\":0}", 0, -1);
    scan_result none = scan(t, NULL, 0, "{\"type\":\"eq\",\"term\":\"redpanda.partition\",\"value\":12345}", 0, -1);
    assert_true(p0.rows >= 1 && p0.rows <= all.rows);
    assert_non_null(strstr(p0.text, "{partition: 0,"));
    assert_int_equal(none.rows, 0);
    floe_free(all.text);
    floe_free(p0.text);
    floe_free(none.text);
    floe_ice_table_free(t);
}

static void promoted_column_reads_as_its_new_type(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    /* schema_evol_added_col_1 was int in older files, then promoted to long. */
    floe_ice_table *t = open_table(td, "data/iceberg/generated_spec1_0_001/pyspark_iceberg_table");
    const floe_ice_field *f = floe_ice_schema_find_by_name(floe_ice_tm_current_schema(t->md), "schema_evol_added_col_1", true);
    assert_non_null(f);
    assert_int_equal(f->type->id, FLOE_ICE_LONG);
    scan_result r = scan(t, &f->id, 1, "{\"type\":\"not-null\",\"term\":\"schema_evol_added_col_1\"}", 0, -1);
    assert_true(r.rows > 0);
    floe_free(r.text);
    floe_schema *cs = NULL;
    assert_ok(floe_ice_schema_to_columnar(floe_ice_tm_current_schema(t->md), &f->id, 1, &cs));
    assert_int_equal(cs->children[0].type->id, FLOE_TYPE_INT64);
    assert_int_equal(cs->children[0].field_id, f->id);
    floe_type_release(cs);
    floe_ice_table_free(t);
}

FLOE_TEST_MAIN(cmocka_unit_test(residual_on_a_struct_field_reads_through_the_struct),
               cmocka_unit_test(promoted_column_reads_as_its_new_type),
               cmocka_unit_test(partition_values_absent_from_files_come_from_the_manifest),
               cmocka_unit_test(equality_deletes_drop_rows_even_when_key_columns_are_not_projected),
               cmocka_unit_test(equality_delete_on_a_dropped_column_still_applies),
               cmocka_unit_test(deletion_vector_removes_its_rows),
               cmocka_unit_test(files_without_field_ids_resolve_through_the_name_mapping),
               cmocka_unit_test(files_without_ids_or_mapping_use_fallback_ids_by_position),
               cmocka_unit_test(residual_filter_drops_rows_and_batches_respect_batch_size),
               cmocka_unit_test(byte_range_reads_only_row_groups_starting_inside_it),
               cmocka_unit_test(columns_added_with_defaults_read_their_initial_default))
