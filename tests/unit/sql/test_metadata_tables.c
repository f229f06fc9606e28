/*
 * test_metadata_tables.c — Iceberg metadata tables ("t$snapshots", ...) over
 * tables written by Spark, pyiceberg and others (shared test data), checked
 * against the tables' own metadata and DuckDB's recorded expectations.
 */
#include <string.h>

#include "base/buffer.h"
#include "floe/exec.h"
#include "floe/memory.h"
#include "floe_test.h"
#include "sql/metadata_tables.h"

#define DUCK "duckdb__duckdb-iceberg/data/persistent/"

static floe_ice_table *open_table(const char *td, const char *rel) {
    char path[4096];
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, floe_test_path(path, sizeof path, td, rel), true, &t));
    return t;
}

/* The rows of metadata table `which` as one batch (the plan also passes a
 * codec roundtrip and yields the same batch afterwards). */
static floe_batch *rows_of(const floe_ice_table *t, const char *which) {
    floe_plan *p = NULL, *copy = NULL;
    assert_ok(floe_sql_metadata_table(t, which, &p));
    assert_ok(floe_plan_roundtrip(p, &copy));
    floe_batch *b = NULL;
    if (floe_values_num_batches(p) == 0) {
        assert_int_equal(floe_values_num_batches(copy), 0);
        floe_array *cols[32];
        const floe_schema *s = floe_plan_schema(p);
        for (int32_t i = 0; i < s->n_children; i++)
            assert_ok(floe_array_new_nulls(s->children[i].type, 0, &cols[i]));
        assert_ok(floe_batch_new((floe_schema *)s, cols, s->n_children, 0, &b));
        for (int32_t i = 0; i < s->n_children; i++) floe_array_release(cols[i]);
    } else {
        assert_int_equal(floe_values_num_batches(p), 1);
        assert_true(floe_batch_equals(floe_values_batch(p, 0), floe_values_batch(copy, 0)));
        assert_ok(floe_batch_validate(floe_values_batch(p, 0)));
        b = floe_batch_retain(floe_values_batch(p, 0));
    }
    floe_plan_release(copy);
    floe_plan_release(p);
    return b;
}

static int32_t col(const floe_batch *b, const char *name) {
    int32_t i = floe_schema_find(b->schema, name);
    if (i < 0) fail_msg("no column '%s'", name);
    return i;
}

/* Cell text as floe_format_value prints it ("NULL" for a null). */
static const char *cell(const floe_batch *b, const char *name, int64_t row) {
    static char text[8192];
    floe_buf buf = FLOE_BUF_INIT;
    assert_ok(floe_format_value(b->columns[col(b, name)], row, &buf));
    snprintf(text, sizeof text, "%s", floe_buf_cstr(&buf));
    floe_buf_free(&buf);
    return text;
}

static bool is_null(const floe_batch *b, const char *name, int64_t row) {
    return floe_array_is_null(b->columns[col(b, name)], row);
}

static int64_t i64(const floe_batch *b, const char *name, int64_t row) {
    const floe_array *a = b->columns[col(b, name)];
    assert_false(floe_array_is_null(a, row));
    return a->type->id == FLOE_TYPE_INT32 ? floe_array_get_int32(a, row) : floe_array_get_int64(a, row);
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ---- snapshots and history ------------------------------------------------ */

static void snapshots_list_every_commit_with_parent_operation_and_summary(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "iceberg/lineitem_iceberg");
    floe_batch *b = rows_of(t, "snapshots");
    assert_int_equal(b->num_rows, 2);
    assert_int_equal(b->schema->children[col(b, "committed_at")].type->id, FLOE_TYPE_TIMESTAMP_US_TZ);
    assert_string_equal(cell(b, "committed_at", 0), "2025-05-02 12:21:19.06+00");
    assert_true(i64(b, "snapshot_id", 0) == 7817332053627255703LL);
    assert_true(is_null(b, "parent_id", 0));
    assert_string_equal(cell(b, "operation", 0), "append");
    assert_true(ends_with(cell(b, "manifest_list", 0),
                          "snap-7817332053627255703-1-787a5996-87e9-4d93-b258-066d524e82cc.avro"));
    assert_non_null(strstr(cell(b, "summary", 0), "\"added-records\":\"60175\""));
    /* "operation" is its own column, not repeated in the summary. */
    assert_null(strstr(cell(b, "summary", 0), "\"operation\""));
    assert_true(i64(b, "snapshot_id", 1) == 2354745328521181395LL);
    assert_true(i64(b, "parent_id", 1) == 7817332053627255703LL);
    assert_string_equal(cell(b, "operation", 1), "overwrite");
    assert_non_null(strstr(cell(b, "summary", 1), "\"deleted-records\":\"60175\""));
    floe_batch_release(b);
    floe_ice_table_free(t);
}

static void history_marks_ancestors_of_the_current_snapshot(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "iceberg/lineitem_iceberg");
    floe_batch *b = rows_of(t, "history");
    assert_int_equal(b->num_rows, 2);
    assert_string_equal(cell(b, "made_current_at", 1), "2025-05-02 12:21:20.005+00");
    assert_true(i64(b, "snapshot_id", 1) == 2354745328521181395LL);
    assert_true(i64(b, "parent_id", 1) == 7817332053627255703LL);
    assert_string_equal(cell(b, "is_current_ancestor", 0), "true");
    assert_string_equal(cell(b, "is_current_ancestor", 1), "true");
    floe_batch_release(b);
    floe_ice_table_free(t);

    /* Java's TableMetadataV2Valid: compare with a walk of the metadata's
     * own parent links. */
    t = open_table(td, "apache__iceberg/core/src/test/resources/TableMetadataV2Valid.json");
    b = rows_of(t, "history");
    assert_int_equal(b->num_rows, t->md->n_snapshot_log);
    for (int64_t r = 0; r < b->num_rows; r++) {
        int64_t id = i64(b, "snapshot_id", r);
        bool anc = false;
        for (int64_t cur = t->md->current_snapshot_id; cur != FLOE_ICE_NO_SNAPSHOT;) {
            if (cur == id) anc = true;
            const floe_ice_snapshot *s = floe_ice_tm_snapshot(t->md, cur);
            cur = s ? s->parent_snapshot_id : FLOE_ICE_NO_SNAPSHOT;
        }
        assert_string_equal(cell(b, "is_current_ancestor", r), anc ? "true" : "false");
    }
    floe_batch_release(b);
    floe_ice_table_free(t);
}

/* ---- manifests ------------------------------------------------------------- */

static void manifests_show_counts_as_duckdb_recorded_them(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "iceberg/lineitem_iceberg");
    floe_batch *b = rows_of(t, "manifests");
    /* DuckDB's iceberg_metadata.test: m1 added the 51793-row file, m0
     * deleted the 60175-row one. */
    assert_int_equal(b->num_rows, 2);
    for (int64_t r = 0; r < 2; r++) {
        assert_int_equal(i64(b, "content", r), 0);
        assert_true(i64(b, "added_snapshot_id", r) == 2354745328521181395LL);
        assert_int_equal(i64(b, "partition_spec_id", r), 0);
        assert_true(i64(b, "length", r) > 0);
        if (ends_with(cell(b, "path", r), "179b4fb1-0366-4f7d-ad35-99ee8da0abf5-m1.avro")) {
            assert_int_equal(i64(b, "added_data_files_count", r), 1);
            assert_int_equal(i64(b, "added_rows_count", r), 51793);
            assert_int_equal(i64(b, "deleted_data_files_count", r), 0);
        } else {
            assert_true(ends_with(cell(b, "path", r), "179b4fb1-0366-4f7d-ad35-99ee8da0abf5-m0.avro"));
            assert_int_equal(i64(b, "deleted_data_files_count", r), 1);
            assert_int_equal(i64(b, "deleted_rows_count", r), 60175);
        }
        assert_string_equal(cell(b, "partition_summaries", r), "[]"); /* unpartitioned */
    }
    floe_batch_release(b);
    floe_ice_table_free(t);
}

static void manifest_partition_summaries_print_bounds_in_human_form(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "hive_partitioned_table");
    floe_batch *b = rows_of(t, "manifests");
    assert_int_equal(b->num_rows, 2);
    bool saw_old_spec = false, saw_new_spec = false;
    for (int64_t r = 0; r < b->num_rows; r++) {
        const char *s = cell(b, "partition_summaries", r);
        if (i64(b, "partition_spec_id", r) == 0) {
            saw_old_spec = true;
            assert_string_equal(s, "[{contains_null: false, contains_nan: false, lower_bound: '2024-01-01', "
                                   "upper_bound: '2024-01-02'}]");
        } else {
            saw_new_spec = true;
            assert_non_null(strstr(s, "lower_bound: '2024-01-03', upper_bound: '2024-01-04'"));
            assert_non_null(strstr(s, "lower_bound: 'click', upper_bound: 'view'"));
        }
    }
    assert_true(saw_old_spec && saw_new_spec);
    floe_batch_release(b);
    floe_ice_table_free(t);
}

static void v1_manifests_named_by_the_snapshot_have_null_counts(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "iceberg_v1_deprecated/default/legacy_v1");
    floe_batch *b = rows_of(t, "snapshots");
    assert_int_equal(b->num_rows, 1);
    assert_true(is_null(b, "manifest_list", 0)); /* v1 "manifests" */
    floe_batch_release(b);
    b = rows_of(t, "manifests");
    assert_int_equal(b->num_rows, 1);
    assert_true(is_null(b, "length", 0));
    assert_true(is_null(b, "added_data_files_count", 0));
    assert_true(is_null(b, "added_rows_count", 0));
    assert_true(is_null(b, "partition_summaries", 0));
    floe_batch_release(b);
    floe_ice_table_free(t);
}

/* ---- files and partitions ---------------------------------------------------- */

static void files_of_an_unpartitioned_table_have_stats_and_no_partition_column(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "iceberg/lineitem_iceberg");
    floe_batch *b = rows_of(t, "files");
    assert_int_equal(b->num_rows, 1);
    assert_int_equal(floe_schema_find(b->schema, "partition"), -1);
    assert_true(ends_with(cell(b, "file_path", 0), "00000-5-dad9988f-2a3b-464c-adb6-6034de93da19-00001.parquet"));
    assert_string_equal(cell(b, "file_format", 0), "PARQUET");
    assert_int_equal(i64(b, "content", 0), 0);
    assert_int_equal(i64(b, "record_count", 0), 51793);
    assert_int_equal(i64(b, "file_size_in_bytes", 0), 1225526);
    assert_non_null(strstr(cell(b, "value_counts", 0), "1: 51793"));
    /* l_shipdate (id 11) bounds, decoded with the column's date type. */
    assert_non_null(strstr(cell(b, "lower_bounds", 0), "11: '1992-01-04'"));
    assert_non_null(strstr(cell(b, "upper_bounds", 0), "11: '1998-11-29'"));
    assert_string_equal(cell(b, "split_offsets", 0), "[4]");
    assert_true(is_null(b, "equality_ids", 0));
    floe_batch_release(b);
    floe_ice_table_free(t);
}

static void files_list_equality_deletes_with_their_ids(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "equality_deletes/warehouse/mydb/mytable_partitioned");
    floe_batch *b = rows_of(t, "files");
    int64_t data = 0, eq = 0;
    for (int64_t r = 0; r < b->num_rows; r++) {
        int64_t content = i64(b, "content", r);
        if (content == 0) {
            data++;
            assert_true(is_null(b, "equality_ids", r));
        } else {
            assert_int_equal(content, 2);
            eq++;
            assert_false(is_null(b, "equality_ids", r));
        }
        assert_int_equal(cell(b, "partition", r)[0], '{');
    }
    assert_true(data > 0 && eq > 0);
    floe_batch_release(b);
    floe_ice_table_free(t);
}

static void partitions_group_data_files_across_spec_evolution(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    /* Spec 0 partitions by event_date, spec 1 by event_date and
     * event_type: the partition struct has both; old files have NULL. */
    floe_ice_table *t = open_table(td, DUCK "hive_partitioned_table");
    floe_batch *files = rows_of(t, "files");
    floe_batch *b = rows_of(t, "partitions");
    const floe_type *pt = b->schema->children[col(b, "partition")].type;
    assert_int_equal(pt->id, FLOE_TYPE_STRUCT);
    assert_int_equal(pt->n_children, 2);
    assert_string_equal(pt->children[0].name, "event_date");
    assert_int_equal(pt->children[0].type->id, FLOE_TYPE_DATE32);
    assert_string_equal(pt->children[1].name, "event_type");
    assert_int_equal(b->num_rows, 6);
    assert_string_equal(cell(b, "partition", 0), "{event_date: 2024-01-01, event_type: NULL}");
    assert_string_equal(cell(b, "partition", 3), "{event_date: 2024-01-03, event_type: 'view'}");
    int64_t rows = 0, nfiles = 0, size = 0, file_rows = 0, file_size = 0;
    for (int64_t r = 0; r < b->num_rows; r++) {
        rows += i64(b, "record_count", r);
        nfiles += i64(b, "file_count", r);
        size += i64(b, "total_size", r);
    }
    for (int64_t r = 0; r < files->num_rows; r++) {
        file_rows += i64(files, "record_count", r);
        file_size += i64(files, "file_size_in_bytes", r);
    }
    assert_int_equal(nfiles, files->num_rows);
    assert_int_equal(rows, file_rows);
    assert_int_equal(size, file_size);
    floe_batch_release(b);
    floe_batch_release(files);
    floe_ice_table_free(t);
}

static void partitions_of_a_transformed_spec_sum_files_per_value(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    /* generated_bounds: 5,000 files, unpartitioned: one row of totals. */
    floe_ice_table *t = open_table(td, DUCK "generated_bounds");
    floe_batch *b = rows_of(t, "partitions");
    assert_int_equal(b->num_rows, 1);
    assert_int_equal(b->num_columns, 3);
    assert_int_equal(i64(b, "file_count", 0), 5000);
    floe_batch_release(b);
    floe_ice_table_free(t);
    /* legacy_v1: identity(category) over 2 files. */
    t = open_table(td, DUCK "iceberg_v1_deprecated/default/legacy_v1");
    b = rows_of(t, "partitions");
    assert_int_equal(b->num_rows, 2);
    assert_string_equal(cell(b, "partition", 0), "{category: 'alpha'}");
    assert_int_equal(i64(b, "record_count", 0), 2);
    assert_string_equal(cell(b, "partition", 1), "{category: 'beta'}");
    assert_int_equal(i64(b, "record_count", 1), 1);
    floe_batch_release(b);
    floe_ice_table_free(t);
    /* map_stats: day(timestamp) values are dates. */
    t = open_table(td, DUCK "map_stats/default.db/map_stats");
    b = rows_of(t, "partitions");
    assert_int_equal(b->num_rows, 2);
    assert_int_equal(b->schema->children[0].type->children[0].type->id, FLOE_TYPE_DATE32);
    assert_string_equal(cell(b, "partition", 0), "{_day: 2026-01-01}");
    assert_string_equal(cell(b, "partition", 1), "{_day: 2026-01-02}");
    floe_batch_release(b);
    floe_ice_table_free(t);
}

/* ---- refs, properties, empty tables, names -------------------------------------- */

static void refs_list_branches_and_tags_with_retention(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "struct_filter_issue");
    floe_batch *b = rows_of(t, "refs");
    assert_int_equal(b->num_rows, 2);
    for (int64_t r = 0; r < 2; r++) {
        if (strcmp(cell(b, "name", r), "main") == 0) {
            assert_string_equal(cell(b, "type", r), "BRANCH");
            assert_true(is_null(b, "max_reference_age_in_ms", r));
        } else {
            assert_string_equal(cell(b, "name", r), "redpanda.tag");
            assert_string_equal(cell(b, "type", r), "TAG");
            assert_true(i64(b, "max_reference_age_in_ms", r) == INT64_MAX);
        }
        assert_true(i64(b, "snapshot_id", r) == t->md->current_snapshot_id);
        assert_true(is_null(b, "min_snapshots_to_keep", r));
    }
    floe_batch_release(b);
    floe_ice_table_free(t);
}

static void properties_list_the_table_properties(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "iceberg/lineitem_iceberg");
    floe_batch *b = rows_of(t, "properties");
    assert_int_equal(b->num_rows, t->md->n_properties);
    bool found = false;
    for (int64_t r = 0; r < b->num_rows; r++)
        if (strcmp(cell(b, "key", r), "write.update.mode") == 0) {
            found = true;
            assert_string_equal(cell(b, "value", r), "merge-on-read");
        }
    assert_true(found);
    floe_batch_release(b);
    floe_ice_table_free(t);
}

static void metadata_log_entries_end_with_the_current_file(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "hive_partitioned_table");
    floe_batch *b = rows_of(t, "metadata_log_entries");
    assert_int_equal(b->num_rows, 4);
    assert_true(ends_with(cell(b, "file", 0), "metadata/v1.metadata.json"));
    assert_true(is_null(b, "latest_snapshot_id", 0)); /* before the first commit */
    assert_true(i64(b, "latest_snapshot_id", 1) == 2541674261311761067LL);
    assert_int_equal(i64(b, "latest_sequence_number", 1), 1);
    assert_int_equal(i64(b, "latest_schema_id", 1), 0);
    assert_true(ends_with(cell(b, "file", 3), "metadata/v4.metadata.json"));
    assert_true(i64(b, "latest_snapshot_id", 3) == t->md->current_snapshot_id);
    assert_int_equal(i64(b, "latest_sequence_number", 3), 2);
    floe_batch_release(b);
    floe_ice_table_free(t);
}

static void a_table_without_snapshots_has_empty_metadata_tables(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "apache__iceberg/core/src/test/resources/TableMetadataV2ValidMinimal.json");
    static const char *const which[] = {"snapshots", "history", "manifests", "files", "partitions", "refs"};
    for (size_t i = 0; i < sizeof which / sizeof *which; i++) {
        floe_batch *b = rows_of(t, which[i]);
        assert_int_equal(b->num_rows, 0);
        floe_batch_release(b);
    }
    floe_ice_table_free(t);
}

static void unknown_metadata_table_suggests_a_name(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, DUCK "iceberg/lineitem_iceberg");
    floe_plan *p = NULL;
    assert_error(floe_sql_metadata_table(t, "snapshot", &p), FLOE_ERR_NOT_FOUND, "did you mean 'snapshots'");
    assert_error(floe_sql_metadata_table(t, "bogus", &p), FLOE_ERR_NOT_FOUND, "unknown metadata table 'bogus'");
    assert_null(p);
    floe_ice_table_free(t);
}

FLOE_TEST_MAIN(cmocka_unit_test(snapshots_list_every_commit_with_parent_operation_and_summary),
               cmocka_unit_test(history_marks_ancestors_of_the_current_snapshot),
               cmocka_unit_test(manifests_show_counts_as_duckdb_recorded_them),
               cmocka_unit_test(manifest_partition_summaries_print_bounds_in_human_form),
               cmocka_unit_test(v1_manifests_named_by_the_snapshot_have_null_counts),
               cmocka_unit_test(files_of_an_unpartitioned_table_have_stats_and_no_partition_column),
               cmocka_unit_test(files_list_equality_deletes_with_their_ids),
               cmocka_unit_test(partitions_group_data_files_across_spec_evolution),
               cmocka_unit_test(partitions_of_a_transformed_spec_sum_files_per_value),
               cmocka_unit_test(refs_list_branches_and_tags_with_retention),
               cmocka_unit_test(properties_list_the_table_properties),
               cmocka_unit_test(metadata_log_entries_end_with_the_current_file),
               cmocka_unit_test(a_table_without_snapshots_has_empty_metadata_tables),
               cmocka_unit_test(unknown_metadata_table_suggests_a_name))
