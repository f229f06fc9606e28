/*
 * test_task_reader_fileio.c — the task reader opens every file of a task
 * (data file, equality delete files, position deletes / deletion vectors)
 * through the table's FileIO, so tables on S3 read end to end.  Here the
 * locations are rewritten to file:// URIs, which only a FileIO opens (the
 * plain local reader does not know the scheme); the S3 path itself is
 * covered by tests/scripts/iceberg_s3_scan.sh against the s3rver peer.
 */
#include "floe_test.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/buffer.h"
#include "floe/fileio.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_task_reader.h"
#include "floe/memory.h"

static floe_ice_table *open_table(const char *td, const char *rel, floe_fileio *io) {
    char dir[PATH_MAX], abs[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/%s", td, rel);
    assert_non_null(realpath(dir, abs)); /* file:// needs an absolute path */
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(io, abs, true, &t));
    return t;
}

static int cmp_strp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "file://" + path, kept in `pool` (freed by the caller). */
static const char *as_uri(const char *path, char **pool, int *n) {
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_buf_printf(&b, "file://%s", path));
    pool[*n] = (char *)floe_buf_detach(&b, NULL);
    return pool[(*n)++];
}

/* Plan the table and read every task with all its locations (data file and
 * delete files) rewritten as file:// URIs; rows rendered "a|b", sorted,
 * joined by ';'.  Returns NULL and sets *err when a reader fails. */
static char *read_as_uris(const floe_ice_table *t, const char *override_data, floe_status *err) {
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, NULL, NULL, 0, NULL, NULL, &p));
    floe_ice_task_read_options ro = {0};
    ro.table = t;
    ro.schema = floe_ice_tm_schema(t->md, p->schema_id);
    char *pool[256];
    int n_pool = 0;
    char *rows[64];
    int n_rows = 0;
    *err = NULL;
    for (int32_t g = 0; g < p->n_groups && !*err; g++) {
        for (int32_t k = 0; k < p->groups[g]->n_tasks && !*err; k++) {
            floe_ice_scan_task task = p->groups[g]->tasks[k];
            assert_true(task.n_deletes < 32);
            floe_ice_scan_delete dels[32];
            const floe_ice_scan_delete *dptr[32];
            for (int32_t d = 0; d < task.n_deletes; d++) {
                dels[d] = *task.deletes[d];
                dels[d].resolved_path = as_uri(dels[d].resolved_path, pool, &n_pool);
                dptr[d] = &dels[d];
            }
            task.deletes = dptr;
            task.resolved_path = override_data ? override_data : as_uri(task.resolved_path, pool, &n_pool);
            assert_true(n_pool < 200);
            floe_ice_task_reader *r = NULL;
            *err = floe_ice_task_reader_open(&ro, &task, &r);
            while (!*err) {
                floe_batch *b = NULL;
                *err = floe_ice_task_reader_next(r, &b);
                if (*err || !b) break;
                for (int64_t i = 0; i < b->num_rows; i++) {
                    floe_buf line = FLOE_BUF_INIT;
                    for (int32_t c = 0; c < b->num_columns; c++) {
                        if (c) assert_ok(floe_buf_append_byte(&line, '|'));
                        assert_ok(floe_format_value(b->columns[c], i, &line));
                    }
                    assert_true(n_rows < 64);
                    rows[n_rows++] = (char *)floe_buf_detach(&line, NULL);
                }
                floe_batch_release(b);
            }
            floe_ice_task_reader_close(r);
        }
    }
    char *text = NULL;
    if (!*err) {
        qsort(rows, (size_t)n_rows, sizeof *rows, cmp_strp);
        floe_buf all = FLOE_BUF_INIT;
        for (int i = 0; i < n_rows; i++) {
            if (i) assert_ok(floe_buf_append_byte(&all, ';'));
            assert_ok(floe_buf_append_str(&all, rows[i]));
        }
        assert_ok(floe_buf_append_byte(&all, 0));
        text = (char *)floe_buf_detach(&all, NULL);
    }
    for (int i = 0; i < n_rows; i++) floe_free(rows[i]);
    for (int i = 0; i < n_pool; i++) floe_free(pool[i]);
    floe_ice_scan_plan_free(p);
    return text;
}

static void data_and_equality_delete_files_open_through_the_tables_fileio(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(NULL, 0, &io));
    floe_ice_table *t = open_table(td, "data/persistent/equality_deletes/warehouse/mydb/mytable", io);
    floe_status err = NULL;
    char *text = read_as_uris(t, NULL, &err);
    assert_ok(err);
    /* The same rows the local paths give: the deletes were applied. */
    assert_string_equal(text, "4|d|2025-01-04;5|e|2025-01-05");
    floe_free(text);
    floe_ice_table_free(t);
    floe_fileio_free(io);
}

static void deletion_vectors_open_through_the_tables_fileio(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(NULL, 0, &io));
    floe_ice_table *t = open_table(td, "data/persistent/legacy_bare_deletion_vector/warehouse/default/"
                                       "legacy_bare_deletion_vector", io);
    floe_status err = NULL;
    char *text = read_as_uris(t, NULL, &err);
    assert_ok(err);
    assert_string_equal(text, "1|legacy;3|legacy");
    floe_free(text);
    floe_ice_table_free(t);
    floe_fileio_free(io);
}

static void uri_locations_read_even_when_the_table_has_no_fileio(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/equality_delete_dropped_column/mytable", NULL);
    floe_status err = NULL;
    char *text = read_as_uris(t, NULL, &err);
    assert_ok(err);
    assert_string_equal(text, "1|1000;3|3000;4|4000");
    floe_free(text);
    floe_ice_table_free(t);
}

static void a_missing_data_file_is_an_error_naming_its_location(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(NULL, 0, &io));
    floe_ice_table *t = open_table(td, "data/persistent/equality_deletes/warehouse/mydb/mytable", io);
    floe_status err = NULL;
    char *text = read_as_uris(t, "file:///nonexistent-floe-dir/gone.parquet", &err);
    assert_null(text);
    assert_non_null(err);
    assert_non_null(strstr(floe_status_message(err), "file:///nonexistent-floe-dir/gone.parquet"));
    floe_status_free(err);
    floe_ice_table_free(t);
    floe_fileio_free(io);
}

FLOE_TEST_MAIN(cmocka_unit_test(data_and_equality_delete_files_open_through_the_tables_fileio),
               cmocka_unit_test(deletion_vectors_open_through_the_tables_fileio),
               cmocka_unit_test(uri_locations_read_even_when_the_table_has_no_fileio),
               cmocka_unit_test(a_missing_data_file_is_an_error_naming_its_location))
