/*
 * test_scan_iceberg.c — the IcebergScan leaf over the duckdb-iceberg test
 * tables: rows equal reading the plan's tasks directly with the task
 * reader (deletes, residuals, projections), partitions cover every row
 * exactly once, task order holds for any concurrency and read-ahead, the
 * node survives the plan codec, empty tables, missing and corrupt inputs,
 * cancellation, EXPLAIN and the ordering claim.
 */
#include <unistd.h>

#include "exec_util.h"
#include "floe/exec_scan.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_task_reader.h"
#include "formats/parquet/writer.h"

static floe_threadpool *pool;

static int setup(void **state) {
    (void)state;
    return floe_threadpool_create(2, &pool) ? -1 : 0;
}
static int teardown(void **state) {
    (void)state;
    floe_threadpool_destroy(pool);
    return 0;
}

#define LINEITEM "data/persistent/iceberg/lineitem_iceberg"
#define SPEC2 "data/iceberg/generated_spec2_0_001/pyspark_iceberg_table"
#define EQ_DELETES "data/persistent/equality_deletes/warehouse/mydb/mytable"

static floe_ice_table *open_table(const char *td, const char *rel) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/%s", td, rel);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, dir, true, &t));
    return t;
}

/* Rows rendered as text lines, in the order read. */
typedef struct rows {
    char **v;
    int64_t n, cap;
} rows;

static void rows_add_batch(rows *r, const floe_batch *b) {
    assert_ok(floe_batch_validate(b));
    for (int64_t i = 0; i < b->num_rows; i++) {
        floe_buf line;
        floe_buf_init(&line);
        for (int32_t c = 0; c < b->num_columns; c++) {
            if (c) assert_ok(floe_buf_append_byte(&line, '|'));
            assert_ok(floe_format_value(b->columns[c], i, &line));
        }
        assert_ok(floe_buf_append_byte(&line, 0));
        if (r->n == r->cap) {
            r->cap = r->cap ? r->cap * 2 : 64;
            r->v = realloc(r->v, (size_t)r->cap * sizeof *r->v);
            assert_non_null(r->v);
        }
        r->v[r->n++] = (char *)floe_buf_detach(&line, NULL);
    }
}

static void rows_free(rows *r) {
    for (int64_t i = 0; i < r->n; i++) floe_free(r->v[i]);
    free(r->v);
    memset(r, 0, sizeof *r);
}

static int cmp_strp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void rows_sort(rows *r) {
    if (r->n) qsort(r->v, (size_t)r->n, sizeof *r->v, cmp_strp);
}

static void assert_rows_equal(const rows *a, const rows *b) {
    assert_int_equal(a->n, b->n);
    for (int64_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0) fail_msg("row %lld differs: '%s' vs '%s'", (long long)i, a->v[i], b->v[i]);
}

/* Read the tasks of one group directly with the task reader, in order. */
static void read_group_directly(const floe_ice_table *t, const floe_ice_schema *schema, const int32_t *ids,
                                int32_t n_ids, const floe_ice_scan_group *g, rows *out) {
    floe_ice_task_read_options ro = {0};
    ro.table = t;
    ro.schema = schema;
    ro.field_ids = ids;
    ro.n_field_ids = n_ids;
    for (int32_t k = 0; k < g->n_tasks; k++) {
        floe_ice_task_reader *r = NULL;
        assert_ok(floe_ice_task_reader_open(&ro, &g->tasks[k], &r));
        for (;;) {
            floe_batch *b = NULL;
            assert_ok(floe_ice_task_reader_next(r, &b));
            if (!b) break;
            rows_add_batch(out, b);
            floe_batch_release(b);
        }
        floe_ice_task_reader_close(r);
    }
}

/* Every row of a scan at `sel` read directly (all groups of a one-group plan). */
static void read_directly_at(const floe_ice_table *t, const floe_ice_snapshot_selector *sel, const int32_t *ids,
                             int32_t n_ids, const floe_ice_expr *filter, rows *out) {
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, sel, ids, n_ids, filter, NULL, &p));
    const floe_ice_schema *schema = floe_ice_tm_schema(t->md, p->schema_id);
    if (sel && sel->kind != FLOE_ICE_SELECT_CURRENT) /* time travel: the snapshot's own schema */
        schema = floe_ice_tm_snapshot_schema(t->md, floe_ice_tm_snapshot(t->md, p->snapshot_id));
    for (int32_t g = 0; g < p->n_groups; g++) read_group_directly(t, schema, ids, n_ids, p->groups[g], out);
    floe_ice_scan_plan_free(p);
}

static void read_directly(const floe_ice_table *t, const int32_t *ids, int32_t n_ids, const floe_ice_expr *filter,
                          rows *out) {
    read_directly_at(t, NULL, ids, n_ids, filter, out);
}

/* Read one partition of a node with the given context. */
static floe_status read_partition(const floe_plan *p, int32_t part, const floe_exec_ctx *ctx, rows *out) {
    floe_stream *s;
    FLOE_TRY(test_execute(p, part, ctx, &s));
    floe_status st = NULL;
    for (;;) {
        floe_batch *b = NULL;
        if ((st = floe_stream_next(s, &b)) || !b) break;
        assert_true(floe_type_equals(b->schema, floe_plan_schema(p)));
        rows_add_batch(out, b);
        floe_batch_release(b);
    }
    floe_stream_close(s);
    return st;
}

static void read_all(const floe_plan *p, const floe_exec_ctx *ctx, rows *out) {
    for (int32_t i = 0; i < floe_plan_partitions(p); i++) assert_ok(read_partition(p, i, ctx, out));
}

static int32_t field_id(const floe_ice_table *t, const char *name) {
    const floe_ice_field *f = floe_ice_schema_find_by_name(floe_ice_tm_current_schema(t->md), name, true);
    assert_non_null(f);
    return f->id;
}

/* ------------------------------------------------------------------ tests */

static void scan_reads_the_same_rows_as_the_task_reader(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, LINEITEM);
    int32_t ids[3] = {field_id(t, "l_comment"), field_id(t, "l_orderkey"), field_id(t, "l_linenumber")};
    floe_plan *p;
    assert_ok(floe_iceberg_scan_new(t, NULL, ids, 3, NULL, 3, &p));
    assert_string_equal(floe_plan_type_name(p), "IcebergScan");
    assert_true(floe_plan_partitions(p) >= 1 && floe_plan_partitions(p) <= 3);
    assert_int_equal(floe_iceberg_scan_num_groups(p), floe_plan_partitions(p));
    /* Output columns in the asked order, named by the table. */
    assert_int_equal(floe_schema_num_fields(floe_plan_schema(p)), 3);
    assert_string_equal(floe_schema_field(floe_plan_schema(p), 0)->name, "l_comment");
    assert_string_equal(floe_schema_field(floe_plan_schema(p), 2)->name, "l_linenumber");
    floe_exec_ctx ctx = test_ctx(pool, 4096);
    rows got = {0}, want = {0};
    read_all(p, &ctx, &got);
    read_directly(t, ids, 3, NULL, &want);
    assert_true(got.n > 50000); /* lineitem sf0.01, after a delete */
    rows_sort(&got);
    rows_sort(&want);
    assert_rows_equal(&got, &want);
    rows_free(&got);
    rows_free(&want);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void partitions_cover_every_row_exactly_once_with_deletes(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, SPEC2);
    floe_plan *p;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 4, &p));
    /* NULL projection: every column of the read schema, made explicit. */
    assert_int_equal(floe_iceberg_scan_num_field_ids(p), floe_ice_tm_current_schema(t->md)->root->n_fields);
    floe_exec_ctx ctx = test_ctx(pool, 1000);
    rows got = {0}, want = {0};
    int64_t total = 0;
    for (int32_t i = 0; i < floe_plan_partitions(p); i++) {
        int64_t before = got.n;
        assert_ok(read_partition(p, i, &ctx, &got));
        /* The partition holds exactly what its group's tasks hold. */
        floe_ice_scan_group *g = NULL;
        size_t len;
        const uint8_t *bytes = floe_iceberg_scan_group(p, i, &len);
        assert_ok(floe_ice_scan_group_deserialize(bytes, len, &g));
        rows direct = {0};
        read_group_directly(t, floe_ice_tm_current_schema(t->md), floe_iceberg_scan_field_ids(p),
                            floe_iceberg_scan_num_field_ids(p), g, &direct);
        assert_int_equal(direct.n, got.n - before);
        for (int64_t k = 0; k < direct.n; k++) assert_string_equal(direct.v[k], got.v[before + k]);
        rows_free(&direct);
        floe_ice_scan_group_free(g);
        total += got.n - before;
    }
    read_directly(t, NULL, 0, NULL, &want);
    assert_int_equal(total, want.n);
    rows_sort(&got);
    rows_sort(&want);
    assert_rows_equal(&got, &want);
    /* The count Spark recorded for the final table state. */
    char path[4096];
    snprintf(path, sizeof path, "%s/duckdb__duckdb-iceberg/data/iceberg/generated_spec2_0_001/expected_results/last/count.csv", td);
    FILE *f = fopen(path, "r");
    if (f) {
        char line[128] = {0}, num[128] = {0};
        while (fgets(line, sizeof line, f))
            if (line[0] >= '0' && line[0] <= '9') memcpy(num, line, sizeof num);
        fclose(f);
        assert_int_equal(atoll(num), want.n);
    }
    rows_free(&got);
    rows_free(&want);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void zero_column_scan_counts_the_rows_deletes_included(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    const char *tables[2] = {EQ_DELETES, SPEC2};
    for (int k = 0; k < 2; k++) {
        floe_ice_table *t = open_table(td, tables[k]);
        int32_t none[1] = {0};
        floe_plan *p;
        assert_ok(floe_iceberg_scan_new(t, NULL, none, 0, NULL, 2, &p));
        assert_int_equal(floe_schema_num_fields(floe_plan_schema(p)), 0);
        assert_int_equal(floe_iceberg_scan_num_field_ids(p), 0);
        floe_exec_ctx ctx = test_ctx(pool, 100);
        floe_batch **bs;
        int64_t n, total = 0;
        assert_ok(floe_exec_collect(p, &ctx, &bs, &n));
        for (int64_t i = 0; i < n; i++) {
            assert_int_equal(bs[i]->num_columns, 0);
            total += bs[i]->num_rows;
        }
        floe_exec_batches_free(bs, n);
        rows want = {0};
        read_directly(t, NULL, 0, NULL, &want);
        assert_int_equal(total, want.n);
        rows_free(&want);
        floe_plan_release(p);
        floe_ice_table_free(t);
    }
}

static void time_travel_reads_the_old_snapshot_in_its_own_schema(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/iceberg/generated_spec1_0_001/pyspark_iceberg_table");
    floe_ice_snapshot_selector sel = {FLOE_ICE_SELECT_ID, 9145725745960929259LL, NULL, 0};
    const floe_ice_schema *old = floe_ice_tm_snapshot_schema(t->md, floe_ice_tm_snapshot(t->md, sel.snapshot_id));
    assert_non_null(old);
    assert_true(old->root->n_fields < floe_ice_tm_current_schema(t->md)->root->n_fields);
    floe_plan *p, *copy;
    assert_ok(floe_iceberg_scan_new(t, &sel, NULL, 0, NULL, 2, &p));
    assert_int_equal(floe_schema_num_fields(floe_plan_schema(p)), old->root->n_fields);
    assert_ok(floe_plan_roundtrip(p, &copy));
    floe_exec_ctx ctx = test_ctx(pool, 500);
    rows got = {0}, want = {0};
    read_all(copy, &ctx, &got);
    read_directly_at(t, &sel, NULL, 0, NULL, &want);
    assert_int_equal(got.n, 6005);
    rows_sort(&got);
    rows_sort(&want);
    assert_rows_equal(&got, &want);
    rows_free(&got);
    rows_free(&want);
    floe_plan_release(copy);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void task_order_holds_for_any_concurrency_and_read_ahead(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, EQ_DELETES);
    floe_plan *p;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 1, &p)); /* one group, every task */
    floe_ice_scan_group *g = NULL;
    size_t len;
    const uint8_t *bytes = floe_iceberg_scan_group(p, 0, &len);
    assert_ok(floe_ice_scan_group_deserialize(bytes, len, &g));
    assert_true(g->n_tasks >= 2);
    rows want = {0};
    read_group_directly(t, floe_ice_tm_current_schema(t->md), floe_iceberg_scan_field_ids(p),
                        floe_iceberg_scan_num_field_ids(p), g, &want);
    floe_threadpool *one;
    assert_ok(floe_threadpool_create(1, &one));
    const int32_t settings[][2] = {{1, 1}, {2, 2}, {3, 1}, {8, 4}, {0, 0}};
    for (size_t k = 0; k < sizeof settings / sizeof *settings; k++) {
        for (int pl = 0; pl < 2; pl++) {
            floe_exec_ctx ctx = test_ctx(pl ? one : pool, 1); /* one-row batches: many steps */
            ctx.scan_concurrency = settings[k][0];
            ctx.read_ahead = settings[k][1];
            rows got = {0};
            assert_ok(read_partition(p, 0, &ctx, &got));
            assert_rows_equal(&got, &want);
            rows_free(&got);
        }
    }
    floe_threadpool_destroy(one);
    rows_free(&want);
    floe_ice_scan_group_free(g);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void scan_inside_a_task_of_a_one_thread_pool_makes_progress(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, EQ_DELETES);
    floe_plan *p;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 2, &p));
    /* Collect over several partitions runs each as a pool task on the one
     * worker while the scans' prefetch tasks queue behind them. */
    floe_threadpool *one;
    assert_ok(floe_threadpool_create(1, &one));
    floe_exec_ctx ctx = test_ctx(one, 2);
    rows got = {0}, want = {0};
    floe_batch **bs;
    int64_t n;
    assert_ok(floe_exec_collect(p, &ctx, &bs, &n));
    for (int64_t i = 0; i < n; i++) rows_add_batch(&got, bs[i]);
    floe_exec_batches_free(bs, n);
    read_directly(t, NULL, 0, NULL, &want);
    rows_sort(&got);
    rows_sort(&want);
    assert_rows_equal(&got, &want);
    rows_free(&got);
    rows_free(&want);
    floe_threadpool_destroy(one);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void filter_is_pushed_into_planning_and_residuals(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, LINEITEM);
    floe_ice_expr *filter = NULL;
    assert_ok(floe_ice_expr_from_json_text("{\"type\":\"lt\",\"term\":\"l_orderkey\",\"value\":100}", &filter));
    int32_t ids[2] = {field_id(t, "l_orderkey"), field_id(t, "l_partkey")};
    floe_plan *p;
    assert_ok(floe_iceberg_scan_new(t, NULL, ids, 2, filter, 2, &p));
    floe_exec_ctx ctx = test_ctx(pool, 0);
    rows got = {0}, want = {0};
    read_all(p, &ctx, &got);
    read_directly(t, ids, 2, filter, &want);
    assert_true(got.n > 0 && got.n < 1000);
    for (int64_t i = 0; i < got.n; i++) assert_true(atoll(got.v[i]) < 100);
    rows_sort(&got);
    rows_sort(&want);
    assert_rows_equal(&got, &want);
    /* The node keeps nothing of the table it was planned from. */
    floe_ice_table_free(t);
    floe_ice_expr_free(filter);
    floe_buf e;
    floe_buf_init(&e);
    assert_ok(floe_plan_explain(p, &e));
    assert_non_null(strstr(floe_buf_cstr(&e), "filter="));
    assert_non_null(strstr(floe_buf_cstr(&e), "l_orderkey"));
    floe_buf_free(&e);
    assert_true(floe_iceberg_scan_stats(p)->rows > 0);
    rows again = {0};
    read_all(p, &ctx, &again);
    assert_int_equal(again.n, got.n);
    rows_free(&again);
    rows_free(&got);
    rows_free(&want);
    floe_plan_release(p);
}

static void roundtrip_through_the_codec_gives_the_same_rows(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, SPEC2);
    floe_plan *p, *copy;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 2, &p));
    assert_ok(floe_plan_roundtrip(p, &copy));
    assert_string_equal(floe_iceberg_scan_metadata_location(copy), t->metadata_location);
    assert_string_equal(floe_iceberg_scan_root(copy), t->root);
    assert_true(floe_iceberg_scan_allow_moved_paths(copy));
    assert_string_equal(floe_iceberg_scan_schema_json(copy), floe_iceberg_scan_schema_json(p));
    assert_int_equal(floe_plan_partitions(copy), floe_plan_partitions(p));
    assert_true(floe_type_equals(floe_plan_schema(copy), floe_plan_schema(p)));
    /* Statistics exist only where the scan was planned. */
    assert_non_null(floe_iceberg_scan_stats(p));
    assert_null(floe_iceberg_scan_stats(copy));
    assert_true(floe_iceberg_scan_stats(p)->rows > 0);
    floe_exec_ctx ctx = test_ctx(pool, 777);
    for (int32_t i = 0; i < floe_plan_partitions(p); i++) {
        rows a = {0}, b = {0};
        assert_ok(read_partition(p, i, &ctx, &a));
        assert_ok(read_partition(copy, i, &ctx, &b));
        assert_rows_equal(&a, &b);
        rows_free(&a);
        rows_free(&b);
    }
    floe_plan_release(copy);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

/* A table opened through a configured FileIO: the scan node carries its
 * properties as parts (through the codec, byte for byte), reads through a
 * FileIO made from them, and EXPLAIN shows them only redacted. */
static void fileio_properties_travel_with_the_node_and_explain_redacts_them(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/%s", td, SPEC2);
    floe_property props[] = {{"s3.region", "eu-west-1"},
                             {"s3.access-key-id", "AKIASCANTEST"},
                             {"s3.secret-access-key", "scan-secret-Zq9Xw0"},
                             {"floe.credentials-id", "rest:http://cat#db.t"}};
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(props, 4, &io));
    floe_ice_table *t = NULL, *plain = NULL;
    assert_ok(floe_ice_table_open(io, dir, true, &t));
    plain = open_table(td, SPEC2);
    floe_plan *p, *copy, *local;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 2, &p));
    assert_ok(floe_iceberg_scan_new(plain, NULL, NULL, 0, NULL, 2, &local));
    size_t n = 0;
    const floe_property *got = floe_iceberg_scan_io_properties(local, &n);
    assert_int_equal(n, 0); /* a local table has none */
    assert_null(got);
    assert_ok(floe_plan_roundtrip(p, &copy)); /* encode -> decode -> encode identical */
    got = floe_iceberg_scan_io_properties(copy, &n);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(got[i].key, props[i].key);
        assert_string_equal(got[i].value, props[i].value);
    }
    /* The same rows through the node's own FileIO as through none. */
    floe_exec_ctx ctx = test_ctx(pool, 777);
    for (int32_t i = 0; i < floe_plan_partitions(local); i++) {
        rows a = {0}, b = {0};
        assert_ok(read_partition(local, i, &ctx, &a));
        assert_ok(read_partition(copy, i, &ctx, &b));
        assert_rows_equal(&a, &b);
        rows_free(&a);
        rows_free(&b);
    }
    floe_buf e = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(copy, &e));
    const char *x = floe_buf_cstr(&e);
    assert_non_null(strstr(x, ", io=[s3.region=eu-west-1, s3.access-key-id=***, s3.secret-access-key=***"));
    assert_null(strstr(x, "scan-secret"));
    assert_null(strstr(x, "AKIASCANTEST"));
    floe_buf_clear(&e);
    assert_ok(floe_plan_explain(local, &e));
    assert_null(strstr(floe_buf_cstr(&e), "io=["));
    floe_buf_free(&e);
    floe_plan_release(copy);
    floe_plan_release(local);
    floe_plan_release(p);
    floe_ice_table_free(t);
    floe_ice_table_free(plain);
    floe_fileio_free(io);
}

static void empty_table_gives_one_empty_partition(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, "data/persistent/custom_write_paths");
    floe_plan *p, *copy;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 4, &p));
    assert_int_equal(floe_plan_partitions(p), 1);
    assert_int_equal(p->n_ordering, 0);
    floe_exec_ctx ctx = test_ctx(pool, 100);
    rows got = {0};
    read_all(p, &ctx, &got);
    assert_int_equal(got.n, 0);
    assert_ok(floe_plan_roundtrip(p, &copy));
    read_all(copy, &ctx, &got);
    assert_int_equal(got.n, 0);
    floe_buf e;
    floe_buf_init(&e);
    assert_ok(floe_plan_explain(p, &e));
    assert_non_null(strstr(floe_buf_cstr(&e), "snapshot=none"));
    floe_buf_free(&e);
    floe_plan_release(copy);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void missing_data_file_is_an_error_naming_it(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char tmp[1024], cmd[4096];
    floe_test_tmpdir(tmp, sizeof tmp, "scan_iceberg_missing");
    snprintf(cmd, sizeof cmd, "cp -r '%s/duckdb__duckdb-iceberg/data/persistent/partition_integer' '%s/t'", td, tmp);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/t", tmp);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, cmd, true, &t));
    floe_plan *p;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 1, &p));
    /* Remove the data file of partition_col=42 after planning. */
    snprintf(cmd, sizeof cmd, "rm -f %s/t/data/partition_col=42/*.parquet", tmp);
    assert_int_equal(system(cmd), 0);
    floe_exec_ctx ctx = test_ctx(pool, 100);
    rows got = {0};
    floe_status st = read_partition(p, 0, &ctx, &got);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "partition_col=42/"));
    assert_non_null(strstr(floe_status_message(st), ".parquet"));
    floe_code code = floe_status_code(st);
    floe_status_free(st);
    rows_free(&got);
    /* collect reports it too: never an empty or partial success */
    floe_batch *all = NULL;
    assert_error(run_plan(p, &ctx, &all), code, "partition_col=42/");
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void corrupt_data_file_is_an_error_naming_it(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char tmp[1024], cmd[4096];
    floe_test_tmpdir(tmp, sizeof tmp, "scan_iceberg_corrupt");
    snprintf(cmd, sizeof cmd, "cp -r '%s/duckdb__duckdb-iceberg/data/persistent/partition_integer' '%s/t'", td, tmp);
    assert_int_equal(system(cmd), 0);
    /* Overwrite the middle of every data file of partition_col=1337. */
    snprintf(cmd, sizeof cmd,
             "for f in %s/t/data/partition_col=1337/*.parquet; do s=$(stat -c %%s \"$f\"); "
             "head -c $s /dev/zero | tr '\\0' 'x' | dd of=\"$f\" bs=1 seek=4 count=$((s-12)) conv=notrunc 2>/dev/null; done",
             tmp);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/t", tmp);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, cmd, true, &t));
    floe_plan *p;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 1, &p));
    floe_exec_ctx ctx = test_ctx(pool, 100);
    rows got = {0};
    floe_status st = read_partition(p, 0, &ctx, &got);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "partition_col=1337/"));
    floe_status_free(st);
    rows_free(&got);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void cancelled_scan_returns_cancelled_and_closing_early_is_clean(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, LINEITEM);
    floe_plan *p;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 1, &p));
    floe_cancel cancel;
    floe_cancel_init(&cancel, NULL);
    floe_exec_ctx ctx = test_ctx(pool, 1000);
    ctx.cancel = &cancel;
    ctx.scan_concurrency = 2;
    ctx.read_ahead = 3;
    floe_stream *s;
    floe_batch *b;
    assert_ok(test_execute(p, 0, &ctx, &s));
    assert_ok(floe_stream_next(s, &b));
    assert_non_null(b);
    floe_batch_release(b);
    floe_cancel_set(&cancel);
    assert_error(floe_stream_next(s, &b), FLOE_ERR_CANCELLED, "IcebergScan");
    floe_stream_close(s);
    /* Close with read-ahead in flight, without cancelling. */
    floe_exec_ctx ctx2 = test_ctx(pool, 500);
    ctx2.scan_concurrency = 2;
    ctx2.read_ahead = 4;
    assert_ok(test_execute(p, 0, &ctx2, &s));
    assert_ok(floe_stream_next(s, &b));
    floe_batch_release(b);
    usleep(20000);
    floe_stream_close(s);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void explain_shows_table_snapshot_projection_and_groups(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, LINEITEM);
    int32_t ids[2] = {field_id(t, "l_orderkey"), field_id(t, "l_shipdate")};
    floe_plan *p, *copy;
    assert_ok(floe_iceberg_scan_new(t, NULL, ids, 2, NULL, 2, &p));
    floe_buf e;
    floe_buf_init(&e);
    assert_ok(floe_plan_explain(p, &e));
    const char *x = floe_buf_cstr(&e);
    assert_non_null(strstr(x, "IcebergScan: table="));
    assert_non_null(strstr(x, "lineitem_iceberg"));
    assert_non_null(strstr(x, "snapshot=2354745328521181395"));
    assert_non_null(strstr(x, "projection=[l_orderkey, l_shipdate]"));
    /* one live data file: one group, whatever was asked */
    assert_non_null(strstr(x, "groups=1 [#0: files=1 tasks=1 bytes=1225526 rows=51793]"));
    assert_null(strstr(x, "filter=")); /* no filter, none shown */
    assert_non_null(strstr(x, "partitions=1"));
    floe_buf_clear(&e);
    /* A decoded node explains from its parts alone. */
    assert_ok(floe_plan_roundtrip(p, &copy));
    assert_ok(floe_plan_explain(copy, &e));
    assert_non_null(strstr(floe_buf_cstr(&e), "projection=[l_orderkey, l_shipdate]"));
    assert_non_null(strstr(floe_buf_cstr(&e), "groups=1 [#0: files=1 tasks=1 bytes=1225526 rows=51793]"));
    floe_buf_free(&e);
    floe_plan_release(copy);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void unsorted_table_claims_no_ordering(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, LINEITEM);
    floe_plan *p;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 2, &p));
    assert_int_equal(p->n_ordering, 0);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

static void bad_parts_are_rejected_at_construction(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    floe_ice_table *t = open_table(td, LINEITEM);
    floe_plan *p, *q;
    assert_ok(floe_iceberg_scan_new(t, NULL, NULL, 0, NULL, 1, &p));
    size_t len;
    const uint8_t *g = floe_iceberg_scan_group(p, 0, &len);
    uint8_t *bad = malloc(len);
    memcpy(bad, g, len);
    const uint8_t *groups[1] = {bad};
    size_t half = len / 2;
    const char *schema = floe_iceberg_scan_schema_json(p);
    int32_t id = 1;
    assert_error(floe_plan_iceberg_scan(t->metadata_location, t->root, true, schema, &id, 1, groups, &half, 1, NULL, 0, &q),
                 FLOE_ERR_CORRUPT, "group 0");
    assert_error(floe_plan_iceberg_scan(t->metadata_location, t->root, true, "{\"type\":", &id, 1, groups, &len, 1, NULL, 0, &q),
                 FLOE_ERR_CORRUPT, "schema");
    int32_t no_such = 9999;
    assert_error(floe_plan_iceberg_scan(t->metadata_location, t->root, true, schema, &no_such, 1, groups, &len, 1, NULL, 0, &q),
                 FLOE_ERR_INVALID_ARGUMENT, "9999");
    assert_error(floe_plan_iceberg_scan(t->metadata_location, t->root, true, schema, &id, 1, groups, &len, 0, NULL, 0, &q),
                 FLOE_ERR_INVALID_ARGUMENT, "groups");
    /* The metadata location may be a file: URI. */
    char uri[4200];
    snprintf(uri, sizeof uri, "file://%s", t->metadata_location);
    assert_ok(floe_plan_iceberg_scan(uri, t->root, true, schema, &id, 1, groups, &len, 1, NULL, 0, &q));
    floe_exec_ctx uctx = test_ctx(pool, 100000);
    floe_batch *ub = NULL;
    assert_ok(run_plan(q, &uctx, &ub));
    assert_non_null(ub);
    assert_true(ub->num_rows > 50000);
    floe_batch_release(ub);
    floe_plan_release(q);
    /* A metadata file that is gone fails when executing, naming it. */
    assert_ok(floe_plan_iceberg_scan("/nonexistent/v1.metadata.json", NULL, false, schema, &id, 1, groups, &len, 1, NULL, 0, &q));
    floe_exec_ctx ctx = test_ctx(pool, 100);
    floe_batch *all = NULL;
    floe_status st = run_plan(q, &ctx, &all);
    assert_non_null(st);
    assert_non_null(strstr(floe_status_message(st), "/nonexistent/v1.metadata.json"));
    floe_status_free(st);
    floe_plan_release(q);
    free(bad);
    floe_plan_release(p);
    floe_ice_table_free(t);
}

/* ---- a sorted table written here: the ordering claim ---------------------- */

/* One data file of the synthetic table: ids [lo, hi), and whether its
 * manifest entry records sort order 1. */
typedef struct sorted_file {
    int64_t lo, hi;
    bool sorted;
    int64_t nulls; /* null count the manifest records for id (-1: none recorded) */
} sorted_file;

static const char sorted_schema_json[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"}]}";

/* Write data file `i` (ids ascending, s = "v<id>") and return its size. */
static int64_t write_sorted_data(const char *dir, int i, const sorted_file *f) {
    char path[1200];
    snprintf(path, sizeof path, "%s/data/f%d.parquet", dir, i);
    floe_field fl[2];
    floe_schema *sc;
    assert_ok(floe_field_init(&fl[0], "id", floe_type_primitive(FLOE_TYPE_INT64), false, 1));
    assert_ok(floe_field_init(&fl[1], "s", floe_type_primitive(FLOE_TYPE_STRING), true, 2));
    assert_ok(floe_type_struct(fl, 2, &sc));
    floe_field_clear(&fl[0]);
    floe_field_clear(&fl[1]);
    floe_builder *bi, *bs;
    int64_t n = f->hi - f->lo;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &bi));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &bs));
    for (int64_t v = f->lo; v < f->hi; v++) {
        char txt[32];
        snprintf(txt, sizeof txt, "v%lld", (long long)v);
        assert_ok(floe_builder_append_int64(bi, v));
        assert_ok(floe_builder_append_string(bs, txt));
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(bi, &cols[0]));
    assert_ok(floe_builder_finish(bs, &cols[1]));
    floe_builder_free(bi);
    floe_builder_free(bs);
    floe_batch *b;
    assert_ok(floe_batch_new(sc, cols, 2, n, &b));
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_output *out;
    floe_pq_writer *w;
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    assert_ok(floe_output_create_local(path, 1, &out));
    assert_ok(floe_pq_writer_open(out, sc, &o, &w));
    assert_ok(floe_pq_writer_write(w, b));
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    int64_t size = res->file_size;
    floe_pq_write_result_free(res);
    floe_batch_release(b);
    floe_type_release(sc);
    return size;
}

/* A v2 table in `dir` with sort order 1 = id ASC NULLS FIRST, one data
 * manifest listing `files` in order; returns its metadata path. */
static void write_sorted_table(const char *dir, const sorted_file *files, int n, char *md_path, size_t cap) {
    char path[1200];
    snprintf(path, sizeof path, "mkdir -p '%s/metadata' '%s/data'", dir, dir);
    assert_int_equal(system(path), 0);
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(sorted_schema_json, &schema));
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_ice_partition_spec_new(0, &spec));
    snprintf(path, sizeof path, "%s/metadata/m0.avro", dir);
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_manifest_writer_options o = {2, FLOE_ICE_MANIFEST_DATA, schema, spec, 7};
    floe_ice_manifest_writer *w = NULL;
    assert_ok(floe_ice_manifest_writer_open(out, &o, &w));
    for (int i = 0; i < n; i++) {
        char fp[1200];
        snprintf(fp, sizeof fp, "%s/data/f%d.parquet", dir, i);
        int64_t size = write_sorted_data(dir, i, &files[i]);
        floe_ice_manifest_entry e;
        memset(&e, 0, sizeof e);
        e.status = FLOE_ICE_STATUS_ADDED;
        e.snapshot_id = 7;
        e.sequence_number = 1;
        e.file_sequence_number = 1;
        floe_ice_data_file_init(&e.file);
        e.file.content = FLOE_ICE_CONTENT_DATA;
        e.file.file_path = fp;
        e.file.file_format = "PARQUET";
        e.file.record_count = files[i].hi - files[i].lo;
        e.file.file_size_in_bytes = size;
        int32_t key = 1;
        int64_t nulls = files[i].nulls, lo = files[i].lo, hi = files[i].hi - 1;
        uint8_t lob[8], hib[8];
        memcpy(lob, &lo, 8); /* little-endian hosts only, as the rest of the tests */
        memcpy(hib, &hi, 8);
        const uint8_t *lov = lob, *hiv = hib;
        uint32_t len8 = 8;
        e.file.lower_bounds = (floe_ice_bound_map){1, &key, &lov, &len8};
        e.file.upper_bounds = (floe_ice_bound_map){1, &key, &hiv, &len8};
        if (nulls >= 0) e.file.null_value_counts = (floe_ice_count_map){1, &key, &nulls};
        e.file.has_sort_order_id = files[i].sorted;
        e.file.sort_order_id = 1;
        assert_ok(floe_ice_manifest_writer_add(w, &e));
    }
    floe_ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    assert_ok(floe_ice_manifest_writer_finish(w, &mf));
    mf.manifest_length = (int64_t)out->bytes_written;
    assert_ok(floe_output_close(out));
    mf.manifest_path = path;
    mf.partition_spec_id = 0;
    mf.content = FLOE_ICE_MANIFEST_DATA;
    mf.sequence_number = 1;
    mf.min_sequence_number = 1;
    mf.added_snapshot_id = 7;
    mf.n_partitions = 0;
    char lpath[1200];
    snprintf(lpath, sizeof lpath, "%s/metadata/snap-7.avro", dir);
    assert_ok(floe_output_create_local(lpath, 1, &out));
    floe_ice_manifest_list_options lo = {2, 7, FLOE_ICE_NO_SNAPSHOT, 1, false, 0};
    assert_ok(floe_ice_manifest_list_write(out, &lo, &mf, 1));
    assert_ok(floe_output_close(out));
    snprintf(md_path, cap, "%s/metadata/v1.metadata.json", dir);
    FILE *f = fopen(md_path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"format-version\":2,\"table-uuid\":\"00000000-0000-0000-0000-000000000003\",\"location\":\"%s\","
            "\"last-sequence-number\":1,\"last-updated-ms\":1,\"last-column-id\":2,\"current-schema-id\":0,"
            "\"schemas\":[%s],\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
            "\"last-partition-id\":999,\"default-sort-order-id\":1,\"sort-orders\":[{\"order-id\":0,\"fields\":[]},"
            "{\"order-id\":1,\"fields\":[{\"transform\":\"identity\",\"source-id\":1,\"direction\":\"asc\","
            "\"null-order\":\"nulls-first\"}]}],\"properties\":{},\"current-snapshot-id\":7,\"snapshots\":[{"
            "\"snapshot-id\":7,\"sequence-number\":1,\"timestamp-ms\":1,\"manifest-list\":\"%s\",\"summary\":"
            "{\"operation\":\"append\"}}],\"snapshot-log\":[],\"metadata-log\":[]}\n",
            dir, sorted_schema_json, lpath);
    fclose(f);
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(schema);
}

/* Plan the table at `md` with `ids` and `parts` groups; the node's
 * ordering length.  When claimed, every partition must come out sorted. */
static int32_t claimed_ordering(const char *md, const int32_t *ids, int32_t n_ids, int32_t parts) {
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(NULL, md, false, &t));
    floe_plan *p, *copy;
    assert_ok(floe_iceberg_scan_new(t, NULL, ids, n_ids, NULL, parts, &p));
    int32_t n = p->n_ordering;
    if (n) {
        assert_false(p->ordering[0].descending);
        assert_true(p->ordering[0].nulls_first);
        assert_int_equal(p->ordering[0].expr->kind, FLOE_EXPR_COLUMN);
        int32_t key = p->ordering[0].expr->column;
        assert_ok(floe_plan_roundtrip(p, &copy)); /* the claim travels with the node */
        assert_int_equal(copy->n_ordering, n);
        floe_exec_ctx ctx = test_ctx(pool, 7);
        for (int32_t i = 0; i < floe_plan_partitions(copy); i++) {
            floe_stream *s;
            assert_ok(test_execute(copy, i, &ctx, &s));
            int64_t prev = INT64_MIN;
            for (;;) {
                floe_batch *b;
                assert_ok(floe_stream_next(s, &b));
                if (!b) break;
                for (int64_t r = 0; r < b->num_rows; r++) {
                    int64_t v = floe_array_get_int64(b->columns[key], r);
                    assert_true(v >= prev);
                    prev = v;
                }
                floe_batch_release(b);
            }
            floe_stream_close(s);
        }
        floe_plan_release(copy);
    }
    floe_plan_release(p);
    floe_ice_table_free(t);
    return n;
}

static void sorted_files_that_cannot_overlap_claim_the_sort_order(void **state) {
    (void)state;
    char dir[1024], md[1200];
    floe_test_tmpdir(dir, sizeof dir, "scan_iceberg_sorted");
    const sorted_file files[3] = {{0, 100, true, 0}, {100, 200, true, 0}, {200, 300, true, 0}};
    write_sorted_table(dir, files, 3, md, sizeof md);
    const int32_t s_id[2] = {2, 1}, only_s[1] = {2};
    assert_int_equal(claimed_ordering(md, NULL, 0, 1), 1);  /* one group, files in order */
    assert_int_equal(claimed_ordering(md, NULL, 0, 3), 1);  /* a file per group */
    assert_int_equal(claimed_ordering(md, s_id, 2, 2), 1);  /* key is column #1 here */
    assert_int_equal(claimed_ordering(md, only_s, 1, 1), 0); /* key not projected */
}

static void overlapping_or_unsorted_files_claim_no_order(void **state) {
    (void)state;
    char dir[1024], md[1200];
    floe_test_tmpdir(dir, sizeof dir, "scan_iceberg_overlap");
    const sorted_file overlap[3] = {{0, 100, true, 0}, {50, 150, true, 0}, {200, 300, true, 0}};
    write_sorted_table(dir, overlap, 3, md, sizeof md);
    assert_int_equal(claimed_ordering(md, NULL, 0, 1), 0);
    floe_test_tmpdir(dir, sizeof dir, "scan_iceberg_unsorted_file");
    const sorted_file unsorted[3] = {{0, 100, true, 0}, {100, 200, false, 0}, {200, 300, true, 0}};
    write_sorted_table(dir, unsorted, 3, md, sizeof md);
    assert_int_equal(claimed_ordering(md, NULL, 0, 1), 0);
    floe_test_tmpdir(dir, sizeof dir, "scan_iceberg_reversed");
    const sorted_file reversed[2] = {{100, 200, true, 0}, {0, 100, true, 0}};
    write_sorted_table(dir, reversed, 2, md, sizeof md);
    assert_int_equal(claimed_ordering(md, NULL, 0, 1), 0);
    /* NULLS FIRST: nulls (or an unknown null count) only in the first file */
    floe_test_tmpdir(dir, sizeof dir, "scan_iceberg_nulls_first_ok");
    const sorted_file first_nulls[2] = {{0, 100, true, 3}, {100, 200, true, 0}};
    write_sorted_table(dir, first_nulls, 2, md, sizeof md);
    assert_int_equal(claimed_ordering(md, NULL, 0, 1), 1);
    floe_test_tmpdir(dir, sizeof dir, "scan_iceberg_nulls_later");
    const sorted_file later_nulls[2] = {{0, 100, true, 0}, {100, 200, true, 3}};
    write_sorted_table(dir, later_nulls, 2, md, sizeof md);
    assert_int_equal(claimed_ordering(md, NULL, 0, 1), 0);
    floe_test_tmpdir(dir, sizeof dir, "scan_iceberg_nulls_unknown");
    const sorted_file unknown_nulls[2] = {{0, 100, true, 0}, {100, 200, true, -1}};
    write_sorted_table(dir, unknown_nulls, 2, md, sizeof md);
    assert_int_equal(claimed_ordering(md, NULL, 0, 1), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
FLOE_TEST_MAIN(T(scan_reads_the_same_rows_as_the_task_reader), T(partitions_cover_every_row_exactly_once_with_deletes),
               T(task_order_holds_for_any_concurrency_and_read_ahead),
               T(zero_column_scan_counts_the_rows_deletes_included),
               T(time_travel_reads_the_old_snapshot_in_its_own_schema),
               T(scan_inside_a_task_of_a_one_thread_pool_makes_progress), T(filter_is_pushed_into_planning_and_residuals),
               T(roundtrip_through_the_codec_gives_the_same_rows),
               T(fileio_properties_travel_with_the_node_and_explain_redacts_them),
               T(empty_table_gives_one_empty_partition),
               T(missing_data_file_is_an_error_naming_it), T(corrupt_data_file_is_an_error_naming_it),
               T(cancelled_scan_returns_cancelled_and_closing_early_is_clean),
               T(explain_shows_table_snapshot_projection_and_groups), T(unsorted_table_claims_no_ordering),
               T(bad_parts_are_rejected_at_construction), T(sorted_files_that_cannot_overlap_claim_the_sort_order),
               T(overlapping_or_unsorted_files_claim_no_order))
