/*
 * test_iceberg_write.c — the write plan nodes end to end: hand-built plans
 * Values -> Projection (table columns + iceberg_transform partition
 * values) -> [Repartition] -> IcebergWrite -> Coalesce -> IcebergCommit
 * over a real SQLite catalog table, read back through scan planning and
 * the task reader.  Fanout with many interleaved partitions, clustered
 * sorted and unsorted input, NULLs in a required column, a tiny memory
 * budget, a failing child and a cancelled statement (nothing committed,
 * no files left), the codec round trip, the required input distribution
 * and ordering, and the write job registry.
 */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "exec_util.h"
#include "floe/catalog.h"
#include "floe/exec_ops.h"
#include "floe/exec_write.h"
#include "floe/fileio.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_table_update.h"
#include "floe/iceberg_task_reader.h"
#include "floe/iceberg_transform.h"

#define DAY_US INT64_C(86400000000)

static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"cat\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"}]}";

static const char *SPEC_NONE = "{\"spec-id\":0,\"fields\":[]}";
static const char *SPEC_CAT_BUCKET =
    "{\"spec-id\":0,\"fields\":["
    "{\"source-id\":2,\"field-id\":1000,\"name\":\"cat\",\"transform\":\"identity\"},"
    "{\"source-id\":1,\"field-id\":1001,\"name\":\"id_bucket\",\"transform\":\"bucket[4]\"}]}";
static const char *SPEC_CAT = "{\"spec-id\":0,\"fields\":["
                              "{\"source-id\":2,\"field-id\":1000,\"name\":\"cat\",\"transform\":\"identity\"}]}";
static const char *SPEC_DAY = "{\"spec-id\":0,\"fields\":["
                              "{\"source-id\":3,\"field-id\":1000,\"name\":\"ts_day\",\"transform\":\"day\"}]}";

typedef struct fx {
    char wh[1024];
    floe_catalog *c;
    char *location;
    const char *spec_json;
    floe_ice_partition_spec *spec;
    char job[64];
    const char *order; /* the sort order JSON write_plan's writer gets (NULL: none) */
} fx;

static void fx_setup(fx *f, const char *test, const char *spec_json) {
    memset(f, 0, sizeof *f);
    floe_test_tmpdir(f->wh, sizeof f->wh, test);
    assert_ok(floe_catalog_open_sqlite(f->wh, &f->c));
    assert_ok(floe_catalog_create_namespace(f->c, "db", false));
    floe_ice_schema *s = NULL;
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &s));
    assert_ok(floe_ice_partition_spec_from_json_text(spec_json, &f->spec));
    assert_ok(floe_catalog_default_location(f->c, "db", "t", &f->location));
    assert_ok(floe_ice_tm_new(s, f->spec, NULL, f->location, NULL, 0, 2, &md));
    assert_ok(floe_catalog_create_table(f->c, "db", "t", md, NULL));
    floe_ice_table_metadata_free(md);
    floe_ice_schema_free(s);
    f->spec_json = spec_json;
    char *job = floe_write_job_new_id();
    assert_non_null(job);
    snprintf(f->job, sizeof f->job, "%s", job);
    floe_free(job);
}

static void fx_free(fx *f) {
    floe_catalog_close(f->c);
    floe_free(f->location);
    floe_ice_partition_spec_free(f->spec);
}

/* ---- input rows ---------------------------------------------------- */

/* Rows id = first .. first+n-1: cat "c<id % ncat>" and ts on day
 * id % ndays; `null_id_at` >= 0 makes that id's id NULL. */
static floe_batch *rows_batch(int64_t first, int64_t n, int ncat, int ndays, int64_t null_id_at) {
    floe_field f[3];
    floe_schema *s;
    assert_ok(floe_field_init(&f[0], "id", floe_type_primitive(FLOE_TYPE_INT64), true, -1));
    assert_ok(floe_field_init(&f[1], "cat", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    assert_ok(floe_field_init(&f[2], "ts", floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), true, -1));
    assert_ok(floe_type_struct(f, 3, &s));
    for (int i = 0; i < 3; i++) floe_field_clear(&f[i]);
    floe_builder *b[3];
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &b[0]));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &b[1]));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), n, &b[2]));
    for (int64_t i = first; i < first + n; i++) {
        char cat[32];
        snprintf(cat, sizeof cat, "c%d", (int)(i % ncat));
        if (i == null_id_at) assert_ok(floe_builder_append_null(b[0]));
        else assert_ok(floe_builder_append_int64(b[0], i));
        assert_ok(floe_builder_append_string(b[1], cat));
        assert_ok(floe_builder_append_int64(b[2], (i % ndays) * DAY_US + 3600000000LL * (i % 24)));
    }
    floe_array *cols[3];
    for (int i = 0; i < 3; i++) {
        assert_ok(floe_builder_finish(b[i], &cols[i]));
        floe_builder_free(b[i]);
    }
    floe_batch *out;
    assert_ok(floe_batch_new(s, cols, 3, n, &out));
    for (int i = 0; i < 3; i++) floe_array_release(cols[i]);
    floe_type_release(s);
    return out;
}

/* A Values node over `nb` batches of `per` rows (batch k from k*per). */
static floe_plan *values_of(int nb, int64_t per, int ncat, int ndays, int64_t null_id_at, int parts) {
    floe_batch *bs[64];
    assert_true(nb <= 64);
    for (int k = 0; k < nb; k++) bs[k] = rows_batch(k * per, per, ncat, ndays, null_id_at);
    floe_plan *v;
    assert_ok(floe_plan_values(bs[0]->schema, bs, nb, parts, &v));
    for (int k = 0; k < nb; k++) floe_batch_release(bs[k]);
    return v;
}

/* The write plan over `input` (consumed): table columns, then one
 * iceberg_transform per spec field; `hash_parts` > 0 puts a hash
 * Repartition on the partition columns under the writer. */
static floe_plan *write_plan_io(fx *f, floe_plan *input, const char *const *props, int32_t n_props, int hash_parts,
                                floe_commit_kind kind, int64_t base_snapshot, const floe_property *io, size_t n_io) {
    floe_expr *ex[8];
    const char *names[8] = {"id", "cat", "ts"};
    char pname[8][16];
    int n = 3;
    for (int i = 0; i < 3; i++) assert_ok(floe_expr_column(i, &ex[i]));
    for (int32_t j = 0; j < f->spec->n_fields; j++) {
        const floe_ice_partition_field *pf = &f->spec->fields[j];
        char tb[64];
        floe_expr *args[2];
        assert_ok(floe_expr_lit_string(floe_ice_transform_format(&pf->transform, tb, sizeof tb), &args[0]));
        assert_ok(floe_expr_column(pf->source_id - 1, &args[1]));
        assert_ok(floe_expr_call("iceberg_transform", args, 2, &ex[n]));
        floe_expr_release(args[0]);
        floe_expr_release(args[1]);
        snprintf(pname[j], sizeof pname[j], "p%d", (int)j);
        names[n++] = pname[j];
    }
    floe_plan *proj, *below, *w, *co, *commit;
    assert_ok(floe_plan_projection(input, ex, names, n, &proj));
    floe_plan_release(input);
    for (int i = 0; i < n; i++) floe_expr_release(ex[i]);
    below = proj;
    if (hash_parts > 0) {
        floe_expr *keys[8];
        for (int32_t j = 0; j < f->spec->n_fields; j++) assert_ok(floe_expr_column(3 + j, &keys[j]));
        assert_ok(floe_plan_repartition(proj, FLOE_REPARTITION_HASH, keys, f->spec->n_fields, hash_parts, &below));
        for (int32_t j = 0; j < f->spec->n_fields; j++) floe_expr_release(keys[j]);
        floe_plan_release(proj);
    }
    assert_ok(floe_plan_iceberg_write_io(below, f->location, 2, SCHEMA, f->spec_json, 0, props, n_props, f->job, io,
                                         n_io, f->order, &w));
    floe_plan_release(below);
    assert_ok(floe_plan_coalesce(w, &co));
    floe_plan_release(w);
    assert_ok(floe_plan_iceberg_commit_io(co, f->wh, "db", "t", kind, base_snapshot, f->job, 3, io, n_io, &commit));
    floe_plan_release(co);
    return commit;
}

static floe_plan *write_plan_kind(fx *f, floe_plan *input, const char *const *props, int32_t n_props, int hash_parts,
                                  floe_commit_kind kind, int64_t base_snapshot) {
    return write_plan_io(f, input, props, n_props, hash_parts, kind, base_snapshot, NULL, 0);
}

static floe_plan *write_plan(fx *f, floe_plan *input, const char *const *props, int32_t n_props, int hash_parts) {
    return write_plan_kind(f, input, props, n_props, hash_parts, FLOE_COMMIT_APPEND, -1);
}

/* Run a commit plan; on success the result row's rows/files/snapshot. */
static floe_status run_commit(const floe_plan *p, const floe_cancel *cancel, int64_t *rows, int64_t *files,
                              int64_t *snap) {
    floe_exec_ctx ctx = test_ctx(NULL, 64);
    ctx.cancel = cancel;
    floe_batch *b = NULL;
    floe_status st = run_plan(p, &ctx, &b);
    if (st) return st;
    assert_non_null(b);
    assert_int_equal(b->num_rows, 1);
    if (rows) *rows = floe_array_get_int64(b->columns[0], 0);
    if (files) *files = floe_array_get_int64(b->columns[1], 0);
    if (snap) *snap = floe_array_is_null(b->columns[2], 0) ? -1 : floe_array_get_int64(b->columns[2], 0);
    floe_batch_release(b);
    return NULL;
}

/* ---- reading back --------------------------------------------------- */

typedef struct readback {
    int64_t rows, id_sum, files;
    int64_t snapshot_id;
    char job[64]; /* the snapshot's floe.job-id */
} readback;

/* The Iceberg value of row i of column `col` of a table batch. */
static floe_ice_value table_value(const floe_batch *b, int col, int64_t i) {
    const floe_array *a = b->columns[col];
    if (floe_array_is_null(a, i)) return floe_ice_null(col == 0 ? FLOE_ICE_LONG : col == 1 ? FLOE_ICE_STRING : FLOE_ICE_TIMESTAMP);
    if (col == 0) return floe_ice_long(floe_array_get_int64(a, i));
    if (col == 2) return floe_ice_timestamp(floe_array_get_int64(a, i));
    floe_strview v = floe_array_get_str(a, i);
    return floe_ice_string(v.data, (size_t)v.len);
}

/* Read the current snapshot; every row's partition (by the spec's
 * transforms) must equal its file's partition tuple. */
static readback read_table(fx *f) {
    readback r;
    memset(&r, 0, sizeof r);
    r.snapshot_id = -1;
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(f->c, "db", "t", &t));
    const floe_ice_snapshot *snap = floe_ice_tm_current_snapshot(t->md);
    if (!snap) {
        floe_ice_table_free(t);
        return r;
    }
    r.snapshot_id = snap->snapshot_id;
    for (int32_t i = 0; i < snap->n_summary; i++)
        if (strcmp(snap->summary[i].key, "floe.job-id") == 0) snprintf(r.job, sizeof r.job, "%s", snap->summary[i].value);
    floe_ice_scan_options so;
    floe_ice_scan_options_init(&so);
    floe_ice_snapshot_selector sel = {FLOE_ICE_SELECT_CURRENT, 0, NULL, 0};
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, &sel, NULL, 0, NULL, &so, &p));
    floe_ice_task_read_options ro = {t, floe_ice_tm_current_schema(t->md), NULL, 0, 0};
    for (int32_t g = 0; g < p->n_groups; g++) {
        for (int32_t k = 0; k < p->groups[g]->n_tasks; k++) {
            const floe_ice_scan_task *task = &p->groups[g]->tasks[k];
            if (task->split_index == 0) r.files++;
            assert_int_equal(task->n_partition, f->spec->n_fields);
            floe_ice_task_reader *rd = NULL;
            assert_ok(floe_ice_task_reader_open(&ro, task, &rd));
            for (;;) {
                floe_batch *b = NULL;
                assert_ok(floe_ice_task_reader_next(rd, &b));
                if (!b) break;
                r.rows += b->num_rows;
                for (int64_t i = 0; i < b->num_rows; i++) {
                    r.id_sum += floe_array_get_int64(b->columns[0], i);
                    for (int32_t j = 0; j < f->spec->n_fields; j++) {
                        const floe_ice_partition_field *pf = &f->spec->fields[j];
                        floe_ice_value in = table_value(b, pf->source_id - 1, i), want;
                        assert_ok(floe_ice_transform_apply(&pf->transform, &in, &want));
                        if (!floe_ice_value_equals(&want, &task->partition[j])) {
                            char *a = NULL, *c = NULL;
                            assert_ok(floe_ice_value_to_string(&want, &a));
                            assert_ok(floe_ice_value_to_string(&task->partition[j], &c));
                            fail_msg("row of %s: partition field %d is %s, the file says %s", task->path, j, a, c);
                        }
                    }
                }
                floe_batch_release(b);
            }
            floe_ice_task_reader_close(rd);
        }
    }
    floe_ice_scan_plan_free(p);
    floe_ice_table_free(t);
    return r;
}

static int64_t parquet_count;
static int count_parquet_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
    (void)sb;
    (void)ftw;
    size_t l = strlen(path);
    if (type == FTW_F && l > 8 && strcmp(path + l - 8, ".parquet") == 0) parquet_count++;
    return 0;
}

/* Parquet files anywhere under the table's location. */
static int64_t parquet_files(const fx *f) {
    parquet_count = 0;
    struct stat st;
    if (stat(f->location, &st) != 0) return 0;
    assert_int_equal(nftw(f->location, count_parquet_cb, 16, FTW_PHYS), 0);
    return parquet_count;
}

static int64_t sum_to(int64_t n) { return n * (n - 1) / 2; }

/* ---- tests ---------------------------------------------------------- */

static void fanout_writes_many_interleaved_partitions_one_file_each(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_fanout", SPEC_CAT_BUCKET);
    /* 10 categories x 4 buckets, every batch touching all 40 tuples. */
    floe_plan *p = write_plan(&f, values_of(8, 500, 10, 3, -1, 2), NULL, 0, 3);
    int64_t rows = 0, files = 0, snap = 0;
    assert_ok(run_commit(p, NULL, &rows, &files, &snap));
    assert_int_equal(rows, 4000);
    assert_int_equal(files, 40);
    readback r = read_table(&f);
    assert_int_equal(r.rows, 4000);
    assert_int_equal(r.id_sum, sum_to(4000));
    assert_int_equal(r.files, 40); /* hash-distributed: one writer per tuple */
    assert_int_equal(r.snapshot_id, snap);
    assert_string_equal(r.job, f.job);
    assert_int_equal(parquet_files(&f), 40);
    floe_plan_release(p);
    fx_free(&f);
}

static void unpartitioned_and_day_partitioned_tables_are_written_and_read_back(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_unpart", SPEC_NONE);
    floe_plan *p = write_plan(&f, values_of(4, 100, 3, 3, -1, 2), NULL, 0, 0);
    int64_t files = 0;
    assert_ok(run_commit(p, NULL, NULL, &files, NULL));
    assert_int_equal(files, 2); /* one per writer */
    readback r = read_table(&f);
    assert_int_equal(r.rows, 400);
    assert_int_equal(r.id_sum, sum_to(400));
    floe_plan_release(p);
    fx_free(&f);

    fx_setup(&f, "iw_day", SPEC_DAY);
    p = write_plan(&f, values_of(4, 100, 3, 5, -1, 1), NULL, 0, 0);
    assert_ok(run_commit(p, NULL, NULL, &files, NULL));
    assert_int_equal(files, 5);
    r = read_table(&f);
    assert_int_equal(r.rows, 400);
    assert_int_equal(r.files, 5);
    floe_plan_release(p);
    fx_free(&f);
}

/* Every transform, alone and in a multi-field spec: each row lands in a
 * file whose partition tuple is the transform of its values. */
static void every_transform_partitions_rows_as_the_spec_says(void **state) {
    (void)state;
    static const struct { const char *fields; int64_t tuples; } specs[] = {
        {"{\"source-id\":1,\"field-id\":1000,\"name\":\"id_trunc\",\"transform\":\"truncate[100]\"}", 6},
        {"{\"source-id\":2,\"field-id\":1000,\"name\":\"cat_trunc\",\"transform\":\"truncate[1]\"}", 1},
        {"{\"source-id\":2,\"field-id\":1000,\"name\":\"cat_bucket\",\"transform\":\"bucket[3]\"}", -1},
        {"{\"source-id\":3,\"field-id\":1000,\"name\":\"ts_year\",\"transform\":\"year\"}", 2},
        {"{\"source-id\":3,\"field-id\":1000,\"name\":\"ts_month\",\"transform\":\"month\"}", 3},
        {"{\"source-id\":3,\"field-id\":1000,\"name\":\"ts_hour\",\"transform\":\"hour\"}", -1},
        {"{\"source-id\":2,\"field-id\":1000,\"name\":\"cat_null\",\"transform\":\"void\"}", 1},
        {"{\"source-id\":3,\"field-id\":1000,\"name\":\"ts_month\",\"transform\":\"month\"},"
         "{\"source-id\":1,\"field-id\":1001,\"name\":\"id_trunc\",\"transform\":\"truncate[300]\"},"
         "{\"source-id\":2,\"field-id\":1002,\"name\":\"cat\",\"transform\":\"identity\"}", -1},
    };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        char spec[1024], name[32];
        snprintf(spec, sizeof spec, "{\"spec-id\":0,\"fields\":[%s]}", specs[k].fields);
        snprintf(name, sizeof name, "iw_transform%d", (int)k);
        fx f;
        fx_setup(&f, name, spec);
        /* 600 rows; ts spans day 0 .. 59 (Jan, Feb, Mar 1970) except
         * that ndays 400 reaches 1971 for the year case. */
        floe_plan *p = write_plan(&f, values_of(3, 200, 4, k == 3 ? 400 : 60, -1, 2), NULL, 0, 2);
        int64_t files = 0;
        assert_ok(run_commit(p, NULL, NULL, &files, NULL));
        readback r = read_table(&f); /* checks every row's partition */
        assert_int_equal(r.rows, 600);
        assert_int_equal(r.id_sum, sum_to(600));
        if (specs[k].tuples > 0) assert_int_equal(r.files, specs[k].tuples);
        assert_int_equal(r.files, files);
        floe_plan_release(p);
        fx_free(&f);
    }
}

/* Batches whose categories run c0 c0 ... c1 c1 ... in order, a category
 * spanning batch boundaries. */
static floe_plan *sorted_values(int64_t per_cat, int ncat, int64_t batch_rows) {
    int64_t total = per_cat * ncat;
    floe_batch *all = NULL;
    floe_batch *parts[32];
    assert_true(ncat <= 32);
    for (int c = 0; c < ncat; c++) {
        /* rows of category c: ids c, c+ncat, ... so cat = id % ncat = c */
        floe_batch *b = rows_batch(0, per_cat * ncat, ncat, 2, -1);
        uint32_t *idx = floe_malloc((size_t)per_cat * sizeof *idx);
        for (int64_t i = 0; i < per_cat; i++) idx[i] = (uint32_t)(i * ncat + c);
        assert_ok(floe_batch_take(b, idx, per_cat, &parts[c]));
        floe_free(idx);
        floe_batch_release(b);
    }
    assert_ok(floe_batch_concat(parts, ncat, &all));
    for (int c = 0; c < ncat; c++) floe_batch_release(parts[c]);
    floe_batch *bs[64];
    int nb = 0;
    for (int64_t at = 0; at < total; at += batch_rows)
        assert_ok(floe_batch_slice(all, at, at + batch_rows <= total ? batch_rows : total - at, &bs[nb++]));
    floe_plan *v;
    assert_ok(floe_plan_values(all->schema, bs, nb, 1, &v));
    for (int i = 0; i < nb; i++) floe_batch_release(bs[i]);
    floe_batch_release(all);
    return v;
}

static const char *const CLUSTERED[] = {"write.fanout.enabled", "false"};

static void clustered_writer_takes_sorted_input_one_file_per_partition(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_clustered", SPEC_CAT);
    floe_plan *p = write_plan(&f, sorted_values(70, 6, 50), CLUSTERED, 1, 0);
    int64_t rows = 0, files = 0;
    assert_ok(run_commit(p, NULL, &rows, &files, NULL));
    assert_int_equal(rows, 420);
    assert_int_equal(files, 6);
    readback r = read_table(&f);
    assert_int_equal(r.rows, 420);
    assert_int_equal(r.id_sum, sum_to(420));
    assert_int_equal(r.files, 6);
    floe_plan_release(p);
    fx_free(&f);
}

static void clustered_writer_fails_on_unsorted_input_and_leaves_nothing(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_unsorted", SPEC_CAT);
    /* ids in order: categories c0 c1 c2 c0 ... interleave. */
    floe_plan *p = write_plan(&f, values_of(3, 30, 3, 2, -1, 1), CLUSTERED, 1, 0);
    assert_error(run_commit(p, NULL, NULL, NULL, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "clustered writer: input is not sorted by partition (cat=c0 seen again)");
    readback r = read_table(&f);
    assert_int_equal(r.snapshot_id, -1);
    assert_int_equal(parquet_files(&f), 0);
    floe_plan_release(p);
    fx_free(&f);

    /* Sorted within each batch but a category comes back in a later one. */
    fx_setup(&f, "iw_unsorted2", SPEC_CAT);
    floe_batch *bs[3] = {NULL};
    floe_batch *a = rows_batch(0, 4, 2, 2, -1); /* c0 c1 c0 c1 */
    uint32_t i0[2] = {0, 2}, i1[2] = {1, 3};
    assert_ok(floe_batch_take(a, i0, 2, &bs[0])); /* c0 c0 */
    assert_ok(floe_batch_take(a, i1, 2, &bs[1])); /* c1 c1 */
    assert_ok(floe_batch_take(a, i0, 2, &bs[2])); /* c0 again */
    floe_plan *v;
    assert_ok(floe_plan_values(a->schema, bs, 3, 1, &v));
    for (int i = 0; i < 3; i++) floe_batch_release(bs[i]);
    floe_batch_release(a);
    p = write_plan(&f, v, CLUSTERED, 1, 0);
    assert_error(run_commit(p, NULL, NULL, NULL, NULL), FLOE_ERR_INVALID_ARGUMENT, "(cat=c0 seen again)");
    assert_int_equal(read_table(&f).snapshot_id, -1);
    assert_int_equal(parquet_files(&f), 0);
    floe_plan_release(p);
    fx_free(&f);
}

static void null_in_a_required_column_fails_and_commits_nothing(void **state) {
    (void)state;
    const char *specs[2] = {SPEC_CAT_BUCKET, SPEC_NONE};
    for (int k = 0; k < 2; k++) {
        fx f;
        char name[32], msg[1200];
        snprintf(name, sizeof name, "iw_required%d", k);
        fx_setup(&f, name, specs[k]);
        /* The NULL is in the last batch: files exist by then. */
        floe_plan *p = write_plan(&f, values_of(5, 100, 4, 2, 470, 1), NULL, 0, 0);
        snprintf(msg, sizeof msg, "NULL value in required column 'id' of table %s", f.location);
        const char *want = msg;
        assert_error(run_commit(p, NULL, NULL, NULL, NULL), FLOE_ERR_CONSTRAINT, want);
        assert_int_equal(read_table(&f).snapshot_id, -1);
        assert_int_equal(parquet_files(&f), 0);
        floe_plan_release(p);
        fx_free(&f);
    }
}

static void a_tiny_memory_budget_flushes_more_files_with_the_same_rows(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_budget", SPEC_CAT);
    static const char *const props[] = {"floe.write.fanout-memory-bytes", "1"};
    floe_plan *p = write_plan(&f, values_of(6, 200, 3, 2, -1, 1), props, 1, 0);
    int64_t files = 0;
    assert_ok(run_commit(p, NULL, NULL, &files, NULL));
    assert_true(files > 3);
    readback r = read_table(&f);
    assert_int_equal(r.rows, 1200);
    assert_int_equal(r.id_sum, sum_to(1200));
    assert_int_equal(r.files, files);
    floe_plan_release(p);
    fx_free(&f);

    fx_setup(&f, "iw_budget_bad", SPEC_CAT);
    static const char *const bad[] = {"floe.write.fanout-memory-bytes", "lots"};
    floe_plan *v = values_of(1, 10, 3, 2, -1, 1), *proj = NULL, *w = NULL;
    floe_expr *ex[4];
    const char *names[4] = {"id", "cat", "ts", "p0"};
    for (int i = 0; i < 3; i++) assert_ok(floe_expr_column(i, &ex[i]));
    assert_ok(floe_expr_column(1, &ex[3]));
    assert_ok(floe_plan_projection(v, ex, names, 4, &proj));
    assert_error(floe_plan_iceberg_write(proj, f.location, 2, SCHEMA, f.spec_json, 0, bad, 1, f.job, &w),
                 FLOE_ERR_INVALID_ARGUMENT, "floe.write.fanout-memory-bytes: bad value 'lots'");
    for (int i = 0; i < 4; i++) floe_expr_release(ex[i]);
    floe_plan_release(proj);
    floe_plan_release(v);
    fx_free(&f);
}

static void a_failing_child_commits_nothing_and_leaves_no_files(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_child_fails", SPEC_CAT);
    /* Filter: 1000 / (id - 350) > -1000000 divides by zero at id 350,
     * after the writers opened their files; the other writer (batches
     * 0, 2, 4) may well have finished and handed its files out. */
    floe_plan *v = values_of(6, 100, 3, 2, -1, 2), *flt = NULL;
    floe_expr *id, *k, *diff, *thousand, *q, *lim, *pred;
    assert_ok(floe_expr_column(0, &id));
    assert_ok(floe_expr_lit_int64(350, &k));
    assert_ok(floe_expr_arith(FLOE_ARITH_SUB, id, k, &diff));
    assert_ok(floe_expr_lit_int64(1000, &thousand));
    assert_ok(floe_expr_arith(FLOE_ARITH_DIV, thousand, diff, &q));
    assert_ok(floe_expr_lit_int64(-1000000, &lim));
    assert_ok(floe_expr_cmp(FLOE_CMP_GT, q, lim, &pred));
    assert_ok(floe_plan_filter(v, pred, &flt));
    floe_expr_release(id);
    floe_expr_release(k);
    floe_expr_release(diff);
    floe_expr_release(thousand);
    floe_expr_release(q);
    floe_expr_release(lim);
    floe_expr_release(pred);
    floe_plan_release(v);
    floe_plan *p = write_plan(&f, flt, NULL, 0, 0);
    assert_error(run_commit(p, NULL, NULL, NULL, NULL), FLOE_ERR_INVALID_ARGUMENT, "division by zero");
    assert_int_equal(read_table(&f).snapshot_id, -1);
    assert_int_equal(parquet_files(&f), 0);
    floe_plan_release(p);
    fx_free(&f);
}

static void a_failed_commit_deletes_every_file_written(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_commit_fails", SPEC_CAT_BUCKET);
    floe_plan *p = write_plan(&f, values_of(4, 100, 3, 2, -1, 2), NULL, 0, 2);
    /* The table disappears from the catalog before the commit. */
    assert_ok(floe_catalog_drop_table(f.c, "db", "t", false));
    assert_error(run_commit(p, NULL, NULL, NULL, NULL), FLOE_ERR_NOT_FOUND, "IcebergCommit of db.t");
    assert_int_equal(parquet_files(&f), 0);
    floe_plan_release(p);
    fx_free(&f);
}

static void a_cancelled_statement_never_commits(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_cancelled", SPEC_CAT);
    floe_plan *p = write_plan(&f, values_of(3, 100, 3, 2, -1, 1), NULL, 0, 0);
    floe_cancel c;
    floe_cancel_init(&c, NULL);
    floe_cancel_set(&c);
    assert_error(run_commit(p, &c, NULL, NULL, NULL), FLOE_ERR_CANCELLED, "");
    assert_int_equal(read_table(&f).snapshot_id, -1);
    assert_int_equal(parquet_files(&f), 0);
    floe_plan_release(p);
    fx_free(&f);
}

static void an_empty_input_commits_no_snapshot(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_empty", SPEC_CAT);
    floe_plan *p = write_plan(&f, values_of(1, 0, 3, 2, -1, 1), NULL, 0, 0);
    int64_t rows = -1, files = -1, snap = 0;
    assert_ok(run_commit(p, NULL, &rows, &files, &snap));
    assert_int_equal(rows, 0);
    assert_int_equal(files, 0);
    assert_int_equal(snap, -1);
    assert_int_equal(read_table(&f).snapshot_id, -1);
    floe_plan_release(p);
    fx_free(&f);
}

/* Ids first .. first+n-1 all in category `cat` (a one-category batch). */
static floe_plan *values_in_category(int64_t first, int64_t n, int cat) {
    floe_batch *b = rows_batch(first, n, 1, 2, -1); /* cat "c0" */
    floe_array *cols[3] = {b->columns[0], NULL, b->columns[2]};
    floe_builder *bl;
    char name[16];
    snprintf(name, sizeof name, "c%d", cat);
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &bl));
    for (int64_t i = 0; i < n; i++) assert_ok(floe_builder_append_string(bl, name));
    assert_ok(floe_builder_finish(bl, &cols[1]));
    floe_builder_free(bl);
    floe_batch *c;
    assert_ok(floe_batch_new(b->schema, cols, 3, n, &c));
    floe_array_release(cols[1]);
    floe_plan *v;
    assert_ok(floe_plan_values(c->schema, &c, 1, 1, &v));
    floe_batch_release(c);
    floe_batch_release(b);
    return v;
}

static void replace_partitions_swaps_only_the_partitions_written(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_overwrite", SPEC_CAT);
    /* ids 0..299 over c0, c1, c2 (100 each). */
    floe_plan *p = write_plan(&f, values_of(3, 100, 3, 2, -1, 1), NULL, 0, 0);
    int64_t base = 0;
    assert_ok(run_commit(p, NULL, NULL, NULL, &base));
    floe_plan_release(p);
    /* Overwrite c1 with 10 rows (ids 1000..1009). */
    char *job = floe_write_job_new_id();
    snprintf(f.job, sizeof f.job, "%s", job);
    floe_free(job);
    p = write_plan_kind(&f, values_in_category(1000, 10, 1), NULL, 0, 0, FLOE_COMMIT_REPLACE_PARTITIONS, base);
    int64_t rows = 0, files = 0, snap = -1;
    assert_ok(run_commit(p, NULL, &rows, &files, &snap));
    assert_int_equal(rows, 10);
    assert_int_equal(files, 1);
    assert_true(snap >= 0 && snap != base);
    readback r = read_table(&f);
    int64_t c1_sum = 0;
    for (int64_t i = 0; i < 300; i++)
        if (i % 3 == 1) c1_sum += i;
    assert_int_equal(r.rows, 210);
    assert_int_equal(r.id_sum, sum_to(300) - c1_sum + (sum_to(1010) - sum_to(1000)));
    assert_int_equal(r.files, 3);
    assert_string_equal(r.job, f.job);
    floe_plan_release(p);
    fx_free(&f);
}

static void codec_roundtrip_of_both_nodes_gives_the_same_result(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_codec", SPEC_CAT_BUCKET);
    static const char *const props[] = {"write.target-file-size-bytes", "100000000", "floe.write.fanout-memory-bytes",
                                        "1000000"};
    floe_plan *p = write_plan(&f, values_of(4, 100, 3, 2, -1, 2), props, 2, 2);
    floe_plan *copy = NULL;
    assert_ok(floe_plan_roundtrip(p, &copy));
    /* The parts survive. */
    const floe_plan *w = floe_plan_child(floe_plan_child(copy, 0), 0);
    assert_string_equal(floe_plan_type_name(w), "IcebergWrite");
    assert_string_equal(floe_iceberg_write_location(w), f.location);
    assert_int_equal(floe_iceberg_write_format_version(w), 2);
    assert_string_equal(floe_iceberg_write_schema_json(w), SCHEMA);
    assert_string_equal(floe_iceberg_write_spec_json(w), SPEC_CAT_BUCKET);
    assert_int_equal(floe_iceberg_write_num_properties(w), 2);
    assert_string_equal(floe_iceberg_write_properties(w)[3], "1000000");
    assert_string_equal(floe_iceberg_write_job_id(w), f.job);
    assert_string_equal(floe_iceberg_commit_catalog_uri(copy), f.wh);
    assert_string_equal(floe_iceberg_commit_namespace(copy), "db");
    assert_string_equal(floe_iceberg_commit_table(copy), "t");
    assert_int_equal(floe_iceberg_commit_kind(copy), FLOE_COMMIT_APPEND);
    assert_int_equal(floe_iceberg_commit_base_snapshot_id(copy), -1);
    assert_string_equal(floe_iceberg_commit_job_id(copy), f.job);
    assert_int_equal(floe_iceberg_commit_max_retries(copy), 3);
    /* The decoded plan writes what the original writes (the same job id
     * would give the same file names, so the original runs on a twin
     * table). */
    fx g;
    fx_setup(&g, "iw_codec_twin", SPEC_CAT_BUCKET);
    snprintf(g.job, sizeof g.job, "%s", f.job);
    floe_plan *twin = write_plan(&g, values_of(4, 100, 3, 2, -1, 2), props, 2, 2);
    int64_t rows1 = 0, files1 = 0, rows2 = 0, files2 = 0;
    assert_ok(run_commit(twin, NULL, &rows1, &files1, NULL));
    assert_ok(run_commit(copy, NULL, &rows2, &files2, NULL));
    assert_int_equal(rows1, 400);
    assert_int_equal(rows2, 400);
    assert_int_equal(files1, files2);
    readback r = read_table(&f), r2 = read_table(&g);
    assert_int_equal(r.rows, 400);
    assert_int_equal(r.id_sum, sum_to(400));
    assert_int_equal(r.files, files1);
    assert_int_equal(r2.id_sum, r.id_sum);
    assert_int_equal(r2.files, r.files);
    floe_plan_release(twin);
    fx_free(&g);
    floe_buf e = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(copy, &e));
    assert_non_null(strstr(floe_buf_cstr(&e), "IcebergCommit: table=db.t, kind=append"));
    assert_non_null(strstr(floe_buf_cstr(&e), "IcebergWrite: location="));
    assert_non_null(strstr(floe_buf_cstr(&e), "mode=fanout, spec=[identity(2), bucket[4](1)]"));
    floe_buf_free(&e);
    floe_plan_release(copy);
    floe_plan_release(p);
    fx_free(&f);
}

/* The table's FileIO properties ride along in both nodes: through the
 * codec byte for byte, into the writers' FileIO (here a local table, so
 * the S3 settings are inert), and into EXPLAIN only redacted. */
static void fileio_properties_travel_with_both_nodes_and_explain_redacts_them(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_io_props", SPEC_CAT);
    floe_property io[] = {{"s3.endpoint", "http://127.0.0.1:9"},
                          {"s3.access-key-id", "AKIAWRITETEST"},
                          {"s3.secret-access-key", "write-secret-Zq9Xw0"},
                          {"floe.credentials-id", "rest:http://cat#db.t"}};
    floe_plan *commit = write_plan_io(&f, values_of(2, 50, 3, 1, -1, 2), NULL, 0, 2, FLOE_COMMIT_APPEND, -1, io, 4);
    floe_plan *copy = NULL;
    assert_ok(floe_plan_roundtrip(commit, &copy)); /* encode -> decode -> encode identical */
    size_t nw = 0, nc = 0;
    const floe_property *pw = floe_iceberg_write_io_properties(floe_plan_child(floe_plan_child(copy, 0), 0), &nw);
    const floe_property *pc = floe_iceberg_commit_io_properties(copy, &nc);
    assert_int_equal(nw, 4);
    assert_int_equal(nc, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(pw[i].key, io[i].key);
        assert_string_equal(pw[i].value, io[i].value);
        assert_string_equal(pc[i].key, io[i].key);
        assert_string_equal(pc[i].value, io[i].value);
    }
    floe_buf e = FLOE_BUF_INIT;
    assert_ok(floe_plan_explain(copy, &e));
    const char *x = floe_buf_cstr(&e);
    assert_non_null(strstr(x, "max_retries=3, io=[s3.endpoint=http://127.0.0.1:9, s3.access-key-id=***"));
    assert_non_null(strstr(x, "job="));
    assert_null(strstr(x, "write-secret"));
    assert_null(strstr(x, "AKIAWRITETEST"));
    floe_buf_free(&e);
    /* The decoded plan writes and commits through its FileIO. */
    int64_t rows = 0, files = 0;
    assert_ok(run_commit(copy, NULL, &rows, &files, NULL));
    assert_int_equal(rows, 100);
    readback r = read_table(&f);
    assert_int_equal(r.rows, 100);
    assert_int_equal(r.id_sum, sum_to(100));
    floe_plan_release(copy);
    floe_plan_release(commit);
    fx_free(&f);
}

/* A write-audit-publish id travels with the commit node (MPI ranks decode
 * it); only an append can be staged. */
static void a_wap_id_travels_with_the_commit_node(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_wap", SPEC_CAT_BUCKET);
    floe_plan *p = write_plan(&f, values_of(1, 10, 3, 1, -1, 2), NULL, 0, 0);
    const floe_plan *co = floe_plan_child(p, 0);
    floe_plan *commit = NULL, *over = NULL, *back = NULL;
    assert_ok(floe_plan_iceberg_commit((floe_plan *)co, f.wh, "db", "t", FLOE_COMMIT_APPEND, -1, f.job, 3, &commit));
    assert_null(floe_iceberg_commit_wap_id(commit));
    assert_ok(floe_iceberg_commit_set_wap_id(commit, "audit-7"));
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_plan_encode(commit, &b));
    assert_ok(floe_plan_decode(b.data, b.len, &back));
    assert_string_equal(floe_iceberg_commit_wap_id(back), "audit-7");
    assert_ok(floe_plan_iceberg_commit((floe_plan *)co, f.wh, "db", "t", FLOE_COMMIT_REPLACE_PARTITIONS, -1, f.job, 3, &over));
    assert_error(floe_iceberg_commit_set_wap_id(over, "x"), FLOE_ERR_UNSUPPORTED, "only an append");
    floe_buf_free(&b);
    floe_plan_release(back);
    floe_plan_release(over);
    floe_plan_release(commit);
    floe_plan_release(p);
    floe_write_job_forget(f.job);
    fx_free(&f);
}

/* Corrupt FileIO property counts in an encoded node are errors. */
static void a_corrupt_fileio_property_count_is_rejected(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_io_corrupt", SPEC_CAT_BUCKET);
    floe_property io[] = {{"s3.region", "eu-west-1"}};
    floe_plan *p = write_plan(&f, values_of(1, 10, 3, 1, -1, 2), NULL, 0, 0);
    const floe_plan *co = floe_plan_child(p, 0);
    floe_plan *commit = NULL;
    assert_ok(floe_plan_iceberg_commit_io((floe_plan *)co, f.wh, "db", "t", FLOE_COMMIT_APPEND, -1, f.job, 3, io, 1,
                                          &commit));
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_plan_encode(commit, &b));
    /* the commit's parts end with: count 1, "s3.region", "eu-west-1" */
    size_t count_at = b.len - (8 + 8 + 9 + 8 + 9);
    assert_int_equal(b.data[count_at], 1);
    floe_plan *back = NULL;
    b.data[count_at] = 0x7f;
    assert_error(floe_plan_decode(b.data, b.len, &back), FLOE_ERR_CORRUPT, "FileIO properties");
    b.data[count_at] = 1;
    assert_ok(floe_plan_decode(b.data, b.len, &back));
    floe_plan_release(back);
    assert_error(floe_plan_decode(b.data, b.len - 3, &back), FLOE_ERR_CORRUPT, "truncated");
    /* Any flipped byte of the property part: an error or a plan that
     * encodes again, never a crash (run under ASan). */
    for (size_t i = count_at; i < b.len; i++) {
        b.data[i] ^= 0xff;
        floe_status st = floe_plan_decode(b.data, b.len, &back);
        if (st) {
            assert_null(back);
            floe_status_free(st);
        } else {
            floe_buf again = FLOE_BUF_INIT;
            assert_ok(floe_plan_encode(back, &again));
            floe_buf_free(&again);
            floe_plan_release(back);
        }
        b.data[i] ^= 0xff;
    }
    floe_buf_free(&b);
    floe_plan_release(commit);
    floe_plan_release(p);
    floe_write_job_forget(f.job);
    fx_free(&f);
}

/* The writer node of a plan built by write_plan. */
static const floe_plan *writer_of(const floe_plan *commit) { return floe_plan_child(floe_plan_child(commit, 0), 0); }

static void required_input_and_ordering_follow_the_table(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_required_input", SPEC_CAT_BUCKET);
    /* Partitioned, fanout, mode hash (default): hash on the partition
     * columns, no ordering. */
    floe_plan *p = write_plan(&f, values_of(1, 10, 3, 2, -1, 1), NULL, 0, 0);
    const floe_sort_key *keys = NULL;
    floe_distribution d = floe_plan_required_input(writer_of(p), 0);
    assert_int_equal(d.kind, FLOE_DIST_HASH);
    assert_int_equal(d.n_exprs, 2);
    assert_int_equal(d.exprs[0]->kind, FLOE_EXPR_COLUMN);
    assert_int_equal(d.exprs[0]->column, 3);
    assert_int_equal(d.exprs[1]->column, 4);
    assert_int_equal(floe_plan_required_ordering(writer_of(p), 0, &keys), 0);
    assert_int_equal(floe_plan_required_input(p, 0).kind, FLOE_DIST_SINGLE);
    floe_plan_release(p);

    /* Clustered: the same distribution and an ordering on the columns. */
    p = write_plan(&f, values_of(1, 10, 3, 2, -1, 1), CLUSTERED, 1, 0);
    assert_int_equal(floe_plan_required_input(writer_of(p), 0).kind, FLOE_DIST_HASH);
    assert_int_equal(floe_plan_required_ordering(writer_of(p), 0, &keys), 2);
    assert_int_equal(keys[0].expr->column, 3);
    assert_int_equal(keys[1].expr->column, 4);
    assert_false(keys[0].descending);
    floe_plan_release(p);

    /* Mode none: anything goes. */
    static const char *const none[] = {"write.distribution-mode", "none"};
    p = write_plan(&f, values_of(1, 10, 3, 2, -1, 1), none, 1, 0);
    assert_int_equal(floe_plan_required_input(writer_of(p), 0).kind, FLOE_DIST_UNSPECIFIED);
    floe_plan_release(p);
    fx_free(&f);

    /* Unpartitioned, mode hash: round robin (HASH without expressions). */
    fx_setup(&f, "iw_required_input2", SPEC_NONE);
    static const char *const hash[] = {"write.distribution-mode", "hash"};
    p = write_plan(&f, values_of(1, 10, 3, 2, -1, 1), hash, 1, 0);
    d = floe_plan_required_input(writer_of(p), 0);
    assert_int_equal(d.kind, FLOE_DIST_HASH);
    assert_int_equal(d.n_exprs, 0);
    assert_int_equal(floe_plan_required_ordering(writer_of(p), 0, &keys), 0);
    floe_plan_release(p);
    fx_free(&f);
}

/* The table's sort order: partition keys, then the order's fields (a
 * transform computed by iceberg_transform), also for fanout writers and
 * unpartitioned tables; kept through the codec; an order the node cannot
 * compute asks for nothing. */
static void a_sort_order_is_required_after_the_partition_columns(void **state) {
    (void)state;
    static const char *ORDER = "{\"order-id\":1,\"fields\":["
                               "{\"transform\":\"identity\",\"source-id\":3,\"direction\":\"desc\",\"null-order\":\"nulls-last\"},"
                               "{\"transform\":\"bucket[4]\",\"source-id\":1,\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}";
    static const char *BAD = "{\"order-id\":2,\"fields\":["
                             "{\"transform\":\"identity\",\"source-id\":99,\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}";
    fx f;
    fx_setup(&f, "iw_sort_order", SPEC_CAT);
    floe_plan *p = write_plan(&f, values_of(1, 10, 3, 2, -1, 1), NULL, 0, 0);
    const floe_sort_key *keys = NULL;
    assert_int_equal(floe_plan_required_ordering(writer_of(p), 0, &keys), 0); /* fanout, no order */
    floe_plan_release(p);
    f.order = ORDER;
    p = write_plan(&f, values_of(1, 10, 3, 2, -1, 1), NULL, 0, 0);
    const floe_plan *w = writer_of(p);
    assert_int_equal(floe_plan_required_ordering(w, 0, &keys), 3);
    assert_int_equal(keys[0].expr->column, 3); /* the partition value of cat */
    assert_false(keys[0].descending);
    assert_int_equal(keys[1].expr->kind, FLOE_EXPR_COLUMN);
    assert_int_equal(keys[1].expr->column, 2); /* ts */
    assert_true(keys[1].descending);
    assert_false(keys[1].nulls_first);
    assert_int_equal(keys[2].expr->kind, FLOE_EXPR_CALL);
    assert_true(keys[2].nulls_first);
    floe_plan *copy = NULL;
    assert_ok(floe_plan_roundtrip(p, &copy));
    assert_int_equal(floe_plan_required_ordering(writer_of(copy), 0, &keys), 3);
    assert_true(keys[1].descending);
    floe_plan_release(copy);
    floe_plan_release(p);
    f.order = BAD;
    p = write_plan(&f, values_of(1, 10, 3, 2, -1, 1), NULL, 0, 0);
    assert_int_equal(floe_plan_required_ordering(writer_of(p), 0, &keys), 0);
    floe_plan_release(p);
    fx_free(&f);

    fx_setup(&f, "iw_sort_order2", SPEC_NONE);
    f.order = ORDER;
    p = write_plan(&f, values_of(1, 10, 3, 2, -1, 1), NULL, 0, 0);
    assert_int_equal(floe_plan_required_ordering(writer_of(p), 0, &keys), 2);
    assert_int_equal(keys[0].expr->column, 2);
    floe_plan_release(p);
    fx_free(&f);
}

static void constructors_check_their_input_columns(void **state) {
    (void)state;
    fx f;
    fx_setup(&f, "iw_ctor", SPEC_CAT);
    floe_plan *v = values_of(1, 10, 3, 2, -1, 1), *w = NULL, *c = NULL;
    /* No partition column. */
    assert_error(floe_plan_iceberg_write(v, f.location, 2, SCHEMA, f.spec_json, 0, NULL, 0, f.job, &w),
                 FLOE_ERR_TYPE, "the input has 3 columns, expected 3 table columns and 1 partition values");
    /* The commit wants IcebergWrite's columns. */
    assert_error(floe_plan_iceberg_commit(v, f.wh, "db", "t", FLOE_COMMIT_APPEND, -1, f.job, 0, &c), FLOE_ERR_TYPE,
                 "IcebergCommit: the input has 3 columns");
    floe_plan_release(v);
    fx_free(&f);
}

static void write_jobs_delete_created_files_on_abort_and_keep_them_on_forget(void **state) {
    (void)state;
    char dir[1024], a[1100], b[1100];
    floe_test_tmpdir(dir, sizeof dir, "iw_jobs");
    snprintf(a, sizeof a, "%s/a.bin", dir);
    snprintf(b, sizeof b, "%s/b.bin", dir);
    char *j1 = floe_write_job_new_id(), *j2 = floe_write_job_new_id();
    assert_int_equal(strlen(j1), 36);
    assert_int_equal(j1[14], '4');
    assert_string_not_equal(j1, j2);
    FILE *fa = fopen(a, "w"), *fb = fopen(b, "w");
    fclose(fa);
    fclose(fb);
    /* The writers' FileIO settings: the first call wins (a later writer
     * of the same job cannot change them). */
    floe_property io[] = {{"s3.region", "eu-west-1"}}, bad[] = {{"s3.multipart.part-size-bytes", "1"}};
    assert_ok(floe_write_job_set_io(j1, io, 1));
    assert_ok(floe_write_job_set_io(j1, bad, 1));
    floe_write_job_created(j1, a);
    floe_write_job_created(j1, "/nonexistent/dir/x.parquet");
    floe_write_job_created(j2, b);
    assert_int_equal(floe_write_job_abort(j1), 2); /* a missing file counts as gone */
    struct stat st;
    assert_int_not_equal(stat(a, &st), 0);
    assert_int_equal(floe_write_job_abort(j1), 0); /* forgotten */
    floe_write_job_forget(j2);
    assert_int_equal(floe_write_job_abort(j2), 0);
    assert_int_equal(stat(b, &st), 0);
    floe_free(j1);
    floe_free(j2);
}

FLOE_TEST_MAIN(cmocka_unit_test(fanout_writes_many_interleaved_partitions_one_file_each),
               cmocka_unit_test(unpartitioned_and_day_partitioned_tables_are_written_and_read_back),
               cmocka_unit_test(every_transform_partitions_rows_as_the_spec_says),
               cmocka_unit_test(clustered_writer_takes_sorted_input_one_file_per_partition),
               cmocka_unit_test(clustered_writer_fails_on_unsorted_input_and_leaves_nothing),
               cmocka_unit_test(null_in_a_required_column_fails_and_commits_nothing),
               cmocka_unit_test(a_tiny_memory_budget_flushes_more_files_with_the_same_rows),
               cmocka_unit_test(a_failing_child_commits_nothing_and_leaves_no_files),
               cmocka_unit_test(a_failed_commit_deletes_every_file_written),
               cmocka_unit_test(a_cancelled_statement_never_commits),
               cmocka_unit_test(an_empty_input_commits_no_snapshot),
               cmocka_unit_test(replace_partitions_swaps_only_the_partitions_written),
               cmocka_unit_test(codec_roundtrip_of_both_nodes_gives_the_same_result),
               cmocka_unit_test(fileio_properties_travel_with_both_nodes_and_explain_redacts_them),
               cmocka_unit_test(a_corrupt_fileio_property_count_is_rejected),
               cmocka_unit_test(a_wap_id_travels_with_the_commit_node),
               cmocka_unit_test(required_input_and_ordering_follow_the_table),
               cmocka_unit_test(a_sort_order_is_required_after_the_partition_columns),
               cmocka_unit_test(constructors_check_their_input_columns),
               cmocka_unit_test(write_jobs_delete_created_files_on_abort_and_keep_them_on_forget))
