/* Appending data files as a new snapshot: Parquet files written by floe's
 * writer, handed over as Avro data_file records, appended to a table of the
 * SQLite catalog, and read back through scan planning and the task reader;
 * summaries, sequence numbers, kept files across appends, and concurrent
 * appenders that lose the compare-and-swap and retry. */
#include "floe_test.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "floe/catalog.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_table_update.h"
#include "floe/iceberg_task_reader.h"
#include "floe/iceberg_transform.h"
#include "floe/memory.h"
#include "formats/parquet/writer.h"

static const char *SCHEMA =
    "{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"data\",\"required\":false,\"type\":\"string\"}]}";

/* A catalog with table db.t; `truncate_width` > 0 partitions it by
 * truncate(width, id). */
static floe_catalog *setup_table(const char *test, int32_t truncate_width, int format_version) {
    char wh[1024];
    floe_test_tmpdir(wh, sizeof wh, test);
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    floe_ice_schema *s = NULL;
    char *loc = NULL;
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &s));
    assert_ok(floe_catalog_default_location(c, "db", "t", &loc));
    floe_ice_partition_spec *spec = NULL;
    if (truncate_width > 0) {
        assert_ok(floe_ice_partition_spec_new(0, &spec));
        assert_ok(floe_ice_partition_spec_add(spec, 1, 1000, "id_trunc",
                                              floe_ice_transform_make(FLOE_ICE_TRANSFORM_TRUNCATE, truncate_width)));
    }
    assert_ok(floe_ice_tm_new(s, spec, NULL, loc, NULL, 0, format_version, &md));
    floe_ice_partition_spec_free(spec);
    assert_ok(floe_catalog_create_table(c, "db", "t", md, NULL));
    floe_ice_table_metadata_free(md);
    floe_ice_schema_free(s);
    floe_free(loc);
    return c;
}

static floe_catalog *setup(const char *test) { return setup_table(test, 0, 2); }

/* Write rows id = first .. first+n-1 (data "r<id>") to a new Parquet file
 * of the table and return its data_file record as Avro bytes. */
static uint8_t *write_part_file(floe_catalog *c, const char *tag, int64_t first, int64_t n, floe_ice_value *part,
                                size_t *len) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char path[2048];
    snprintf(path, sizeof path, "%s/data/%s.parquet", t->md->location, tag);
    char dir[2048];
    snprintf(dir, sizeof dir, "mkdir -p '%s/data'", t->md->location);
    assert_int_equal(system(dir), 0);

    floe_field f[2];
    assert_ok(floe_field_init(&f[0], "id", floe_type_primitive(FLOE_TYPE_INT64), false, 1));
    assert_ok(floe_field_init(&f[1], "data", floe_type_primitive(FLOE_TYPE_STRING), true, 2));
    floe_schema *schema;
    assert_ok(floe_type_struct(f, 2, &schema));
    floe_builder *bi, *bd;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &bi));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &bd));
    for (int64_t i = 0; i < n; i++) {
        char s[32];
        snprintf(s, sizeof s, "r%lld", (long long)(first + i));
        assert_ok(floe_builder_append_int64(bi, first + i));
        assert_ok(floe_builder_append_string(bd, s));
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(bi, &cols[0]));
    assert_ok(floe_builder_finish(bd, &cols[1]));
    floe_builder_free(bi);
    floe_builder_free(bd);
    floe_batch *b;
    assert_ok(floe_batch_new(schema, cols, 2, n, &b));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    floe_output *out;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_writer *w;
    assert_ok(floe_pq_writer_open(out, schema, &o, &w));
    assert_ok(floe_pq_writer_write(w, b));
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    floe_batch_release(b);
    floe_array_release(cols[0]);
    floe_array_release(cols[1]);
    floe_type_release(schema);
    floe_field_clear(&f[0]);
    floe_field_clear(&f[1]);

    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.file_path = path;
    df.file_format = "PARQUET";
    df.record_count = res->record_count;
    df.file_size_in_bytes = res->file_size;
    if (part) df.n_partition = 1, df.partition = part;
    assert_int_equal(res->record_count, n);
    floe_ice_type *ptype = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(floe_ice_tm_default_spec(t->md),
                                                     floe_ice_tm_current_schema(t->md), false, &ptype));
    floe_ice_data_file_codec *codec = NULL;
    assert_ok(floe_ice_data_file_codec_new(ptype, t->md->format_version, &codec));
    uint8_t *bytes = NULL;
    assert_ok(floe_ice_data_file_encode(codec, &df, &bytes, len));
    floe_ice_data_file_codec_free(codec);
    floe_ice_type_free(ptype);
    floe_pq_write_result_free(res);
    floe_ice_table_free(t);
    return bytes;
}

static uint8_t *write_data_file(floe_catalog *c, const char *tag, int64_t first, int64_t n, size_t *len) {
    return write_part_file(c, tag, first, n, NULL, len);
}

/* Read the whole current snapshot: row count and sum of ids. */
static int64_t read_rows(floe_catalog *c, int64_t *id_sum) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_scan_options so;
    floe_ice_scan_options_init(&so);
    floe_ice_snapshot_selector sel = {FLOE_ICE_SELECT_CURRENT, 0, NULL, 0};
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, &sel, NULL, 0, NULL, &so, &p));
    int64_t rows = 0, sum = 0;
    floe_ice_task_read_options ro = {t, floe_ice_tm_current_schema(t->md), NULL, 0, 0};
    for (int32_t g = 0; g < p->n_groups; g++) {
        for (int32_t k = 0; k < p->groups[g]->n_tasks; k++) {
            floe_ice_task_reader *r = NULL;
            assert_ok(floe_ice_task_reader_open(&ro, &p->groups[g]->tasks[k], &r));
            for (;;) {
                floe_batch *b = NULL;
                assert_ok(floe_ice_task_reader_next(r, &b));
                if (!b) break;
                rows += b->num_rows;
                const int64_t *ids = (const int64_t *)floe_array_values(b->columns[0]);
                for (int64_t i = 0; i < b->num_rows; i++) sum += ids[i];
                floe_batch_release(b);
            }
            floe_ice_task_reader_close(r);
        }
    }
    assert_int_equal(p->stats.rows, rows);
    floe_ice_scan_plan_free(p);
    floe_ice_table_free(t);
    if (id_sum) *id_sum = sum;
    return rows;
}

static const char *summary(const floe_ice_snapshot *s, const char *key) {
    for (int32_t i = 0; i < s->n_summary; i++)
        if (strcmp(s->summary[i].key, key) == 0) return s->summary[i].value;
    return NULL;
}

/* .avro files in the table's metadata directory (manifests and lists). */
static int count_avro(floe_catalog *c) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/metadata", t->md->location);
    floe_ice_table_free(t);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".avro") == 0) n++;
    }
    closedir(d);
    return n;
}

static void append_creates_snapshot_read_back_with_java_summary(void **state) {
    (void)state;
    floe_catalog *c = setup("append_first");
    size_t lens[2];
    uint8_t *recs[2] = {write_data_file(c, "a", 0, 3, &lens[0]), write_data_file(c, "b", 3, 4, &lens[1])};
    const char *kv[2] = {"floe.statement", "insert"};
    int64_t sid = 0;
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)recs, lens, 2, kv, 1, 0, &sid));
    floe_free(recs[0]);
    floe_free(recs[1]);

    int64_t sum = 0;
    assert_int_equal(read_rows(c, &sum), 7);
    assert_int_equal(sum, 0 + 1 + 2 + 3 + 4 + 5 + 6);

    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    assert_non_null(s);
    assert_true(s->snapshot_id == sid && sid > 0);
    assert_true(s->parent_snapshot_id == FLOE_ICE_NO_SNAPSHOT);
    assert_int_equal(s->sequence_number, 1);
    assert_int_equal(t->md->last_sequence_number, 1);
    assert_string_equal(s->operation, "append");
    assert_string_equal(summary(s, "added-data-files"), "2");
    assert_string_equal(summary(s, "added-records"), "7");
    assert_string_equal(summary(s, "total-records"), "7");
    assert_string_equal(summary(s, "total-data-files"), "2");
    assert_string_equal(summary(s, "total-delete-files"), "0");
    assert_string_equal(summary(s, "changed-partition-count"), "1");
    assert_string_equal(summary(s, "added-files-size"), summary(s, "total-files-size"));
    assert_string_equal(summary(s, "floe.statement"), "insert");
    const floe_ice_snapshot_ref *main_ref = floe_ice_tm_ref(t->md, "main");
    assert_non_null(main_ref);
    assert_true(main_ref->snapshot_id == sid);
    assert_int_equal(t->md->n_snapshot_log, 1);
    assert_true(t->md->snapshot_log[0].snapshot_id == sid);

    /* The manifest list: one manifest of two ADDED files inheriting seq 1. */
    floe_ice_live_files *lf = NULL;
    assert_ok(floe_ice_table_live_files(t, s, NULL, &lf));
    assert_int_equal(lf->n, 2);
    assert_int_equal(lf->n_manifests, 1);
    for (size_t i = 0; i < lf->n; i++) {
        assert_int_equal(lf->files[i].status, FLOE_ICE_STATUS_ADDED);
        assert_int_equal(lf->files[i].sequence_number, 1);
        assert_int_equal(lf->files[i].file_sequence_number, 1);
        assert_true(lf->files[i].snapshot_id == sid);
    }
    floe_ice_live_files_free(lf);
    floe_ice_table_free(t);
    assert_int_equal(count_avro(c), 2);
    floe_catalog_close(c);
}

static void second_append_keeps_first_files_and_adds_totals(void **state) {
    (void)state;
    floe_catalog *c = setup("append_second");
    size_t len;
    uint8_t *rec = write_data_file(c, "a", 0, 10, &len);
    int64_t first = 0, second = 0;
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)&rec, &len, 1, NULL, 0, 0, &first));
    floe_free(rec);
    rec = write_data_file(c, "b", 10, 5, &len);
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)&rec, &len, 1, NULL, 0, 0, &second));
    floe_free(rec);
    assert_int_equal(read_rows(c, NULL), 15);

    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    assert_true(s->snapshot_id == second && s->parent_snapshot_id == first);
    assert_int_equal(s->sequence_number, 2);
    assert_string_equal(summary(s, "added-records"), "5");
    assert_string_equal(summary(s, "total-records"), "15");
    assert_string_equal(summary(s, "total-data-files"), "2");
    assert_int_equal(t->md->n_snapshots, 2);
    assert_int_equal(t->md->n_snapshot_log, 2);

    /* New manifest first, the old one kept with its own sequence number. */
    floe_ice_manifest_list *l = NULL;
    floe_ice_manifest_file *v1 = NULL;
    const floe_ice_manifest_file *mf = NULL;
    size_t n = 0;
    assert_ok(floe_ice_snapshot_manifests(t, s, &l, &v1, &mf, &n));
    assert_int_equal(n, 2);
    assert_int_equal(mf[0].sequence_number, 2);
    assert_true(mf[0].added_snapshot_id == second);
    assert_true(mf[0].added_rows_count == 5 && mf[0].added_files_count == 1);
    assert_int_equal(mf[1].sequence_number, 1);
    assert_true(mf[1].added_snapshot_id == first);
    floe_ice_manifest_list_free(l);
    floe_free(v1);

    /* The first snapshot still reads its 10 rows (time travel). */
    floe_ice_live_files *lf = NULL;
    assert_ok(floe_ice_table_live_files(t, floe_ice_tm_snapshot(t->md, first), NULL, &lf));
    assert_int_equal(lf->n, 1);
    assert_int_equal(lf->files[0].file.record_count, 10);
    floe_ice_live_files_free(lf);
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

static void losing_commit_conflicts_then_retry_lands_and_cleans_up(void **state) {
    (void)state;
    floe_catalog *a = setup("append_conflict");
    char wh[1024];
    snprintf(wh, sizeof wh, "%s", floe_catalog_warehouse(a));
    floe_catalog *b = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &b));
    size_t la, lb;
    uint8_t *ra = write_data_file(a, "a", 0, 6, &la);
    uint8_t *rb = write_data_file(b, "b", 6, 4, &lb);

    /* a prepares on the empty table, b commits first: a's swap must fail. */
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(a, "db", "t", &t));
    floe_ice_table_metadata *md = NULL;
    floe_ice_append_files w;
    assert_ok(floe_ice_tm_append_snapshot(t, (const uint8_t *const *)&ra, &la, 1, NULL, 0, &md, &w));
    assert_ok(floe_catalog_append(b, "db", "t", (const uint8_t *const *)&rb, &lb, 1, NULL, 0, 0, NULL));
    assert_error(floe_catalog_commit(a, "db", "t", t->metadata_location, md, NULL), FLOE_ERR_CONFLICT, "");
    floe_ice_append_files_discard(t, &w);
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);
    assert_int_equal(count_avro(a), 2); /* only b's manifest and list */

    /* Without retries the catalog call reports the conflict... is not
     * reachable deterministically here, so retry through the catalog: the
     * rebuilt append lands on top of b's. */
    assert_ok(floe_catalog_append(a, "db", "t", (const uint8_t *const *)&ra, &la, 1, NULL, 0, 3, NULL));
    int64_t sum = 0;
    assert_int_equal(read_rows(a, &sum), 10);
    assert_int_equal(sum, 45);
    assert_int_equal(count_avro(a), 4);
    floe_free(ra);
    floe_free(rb);
    floe_catalog_close(b);
    floe_catalog_close(a);
}

#define N_WORKERS 2
#define N_APPENDS 4

typedef struct worker {
    floe_catalog *c;
    uint8_t *recs[N_APPENDS];
    size_t lens[N_APPENDS];
    floe_status st;
} worker;

static void *append_worker(void *arg) {
    worker *w = arg;
    for (int i = 0; i < N_APPENDS && !w->st; i++)
        w->st = floe_catalog_append(w->c, "db", "t", (const uint8_t *const *)&w->recs[i], &w->lens[i], 1, NULL, 0,
                                    50, NULL);
    return NULL;
}

static void racing_catalog_handles_all_land_with_exact_rows(void **state) {
    (void)state;
    floe_catalog *c0 = setup("append_race");
    worker w[N_WORKERS];
    memset(w, 0, sizeof w);
    int64_t next = 0, want_sum = 0;
    for (int k = 0; k < N_WORKERS; k++) {
        assert_ok(floe_catalog_open_sqlite(floe_catalog_warehouse(c0), &w[k].c));
        for (int i = 0; i < N_APPENDS; i++) {
            char tag[32];
            snprintf(tag, sizeof tag, "w%d-%d", k, i);
            w[k].recs[i] = write_data_file(c0, tag, next, 3, &w[k].lens[i]);
            want_sum += next + (next + 1) + (next + 2);
            next += 3;
        }
    }
    pthread_t th[N_WORKERS];
    for (int k = 0; k < N_WORKERS; k++) assert_int_equal(pthread_create(&th[k], NULL, append_worker, &w[k]), 0);
    for (int k = 0; k < N_WORKERS; k++) assert_int_equal(pthread_join(th[k], NULL), 0);
    for (int k = 0; k < N_WORKERS; k++) {
        assert_ok(w[k].st);
        for (int i = 0; i < N_APPENDS; i++) floe_free(w[k].recs[i]);
        floe_catalog_close(w[k].c);
    }
    int64_t sum = 0;
    assert_int_equal(read_rows(c0, &sum), next);
    assert_int_equal(sum, want_sum);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c0, "db", "t", &t));
    assert_int_equal(t->md->n_snapshots, N_WORKERS * N_APPENDS);
    assert_int_equal(t->md->last_sequence_number, N_WORKERS * N_APPENDS);
    char want[32];
    snprintf(want, sizeof want, "%lld", (long long)next);
    assert_string_equal(summary(floe_ice_tm_current_snapshot(t->md), "total-records"), want);
    floe_ice_table_free(t);
    /* Losing attempts left nothing: one manifest and one list per snapshot. */
    assert_int_equal(count_avro(c0), 2 * N_WORKERS * N_APPENDS);
    floe_catalog_close(c0);
}

static void partitioned_append_summarizes_partitions(void **state) {
    (void)state;
    floe_catalog *c = setup_table("append_partitioned", 10, 2);
    floe_ice_value p0 = floe_ice_long(0), p10 = floe_ice_long(10);
    size_t lens[3];
    uint8_t *recs[3] = {write_part_file(c, "p0", 0, 3, &p0, &lens[0]), write_part_file(c, "p10a", 10, 3, &p10, &lens[1]),
                        write_part_file(c, "p10b", 13, 3, &p10, &lens[2])};
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)recs, lens, 3, NULL, 0, 0, NULL));
    for (int i = 0; i < 3; i++) floe_free(recs[i]);
    int64_t sum = 0;
    assert_int_equal(read_rows(c, &sum), 9);
    assert_int_equal(sum, 0 + 1 + 2 + 10 + 11 + 12 + 13 + 14 + 15);

    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    assert_string_equal(summary(s, "changed-partition-count"), "2");
    assert_string_equal(summary(s, "added-data-files"), "3");
    floe_ice_manifest_list *l = NULL;
    floe_ice_manifest_file *v1 = NULL;
    const floe_ice_manifest_file *mf = NULL;
    size_t n = 0;
    assert_ok(floe_ice_snapshot_manifests(t, s, &l, &v1, &mf, &n));
    assert_int_equal(n, 1);
    assert_int_equal(mf[0].n_partitions, 1);
    const floe_ice_field_summary *ps = &mf[0].partitions[0];
    assert_false(ps->contains_null);
    assert_int_equal(ps->contains_nan, 0);
    assert_int_equal(ps->lower_len, 8);
    assert_int_equal(ps->upper_len, 8);
    assert_memory_equal(ps->lower_bound, "\0\0\0\0\0\0\0\0", 8);
    assert_memory_equal(ps->upper_bound, "\x0a\0\0\0\0\0\0\0", 8);
    floe_ice_manifest_list_free(l);
    floe_free(v1);

    /* Every file kept its partition value. */
    floe_ice_live_files *lf = NULL;
    assert_ok(floe_ice_table_live_files(t, s, NULL, &lf));
    assert_int_equal(lf->n, 3);
    int64_t psum = 0;
    for (size_t i = 0; i < lf->n; i++) {
        assert_int_equal(lf->files[i].file.n_partition, 1);
        psum += lf->files[i].file.partition[0].v.i64;
    }
    assert_int_equal(psum, 20);
    floe_ice_live_files_free(lf);
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

static void v1_table_appends_twice(void **state) {
    (void)state;
    floe_catalog *c = setup_table("append_v1", 0, 1);
    for (int i = 0; i < 2; i++) {
        size_t len;
        char tag[16];
        snprintf(tag, sizeof tag, "f%d", i);
        uint8_t *rec = write_data_file(c, tag, i * 4, 4, &len);
        assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)&rec, &len, 1, NULL, 0, 0, NULL));
        floe_free(rec);
    }
    assert_int_equal(read_rows(c, NULL), 8);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_int_equal(t->md->format_version, 1);
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    assert_int_equal(s->sequence_number, 0);
    assert_string_equal(summary(s, "total-records"), "8");
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

/* python3-avro (when installed) reads every manifest and list written. */
static void python_avro_reads_the_manifests(void **state) {
    (void)state;
    if (system("/usr/bin/python3 -c 'import avro' >/dev/null 2>&1") != 0) skip();
    floe_catalog *c = setup("append_pyavro");
    size_t len;
    uint8_t *rec = write_data_file(c, "a", 0, 5, &len);
    for (int i = 0; i < 2; i++)
        assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)&rec, &len, 1, NULL, 0, 0, NULL));
    floe_free(rec);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char cmd[4096];
    /* Two manifests of one ADDED 5-row file each; the last list holds both. */
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -W ignore -c '\n"
             "import avro.datafile, avro.io, glob, sys\n"
             "d = sys.argv[1]\n"
             "rows = [r for f in glob.glob(d + \"/*-m0.avro\") for r in avro.datafile.DataFileReader(open(f, \"rb\"), avro.io.DatumReader())]\n"
             "assert len(rows) == 2 and all(r[\"status\"] == 1 and r[\"data_file\"][\"record_count\"] == 5 for r in rows), rows\n"
             "ls = [list(avro.datafile.DataFileReader(open(f, \"rb\"), avro.io.DatumReader())) for f in glob.glob(d + \"/snap-*.avro\")]\n"
             "assert sorted(len(l) for l in ls) == [1, 2], ls\n"
             "' '%s/metadata'",
             t->md->location);
    assert_int_equal(system(cmd), 0);
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

static void bad_or_delete_records_fail_and_leave_no_files(void **state) {
    (void)state;
    floe_catalog *c = setup("append_bad");
    const uint8_t junk[3] = {0xff, 0xff, 0xff};
    const uint8_t *recs[1] = {junk};
    size_t len = sizeof junk;
    floe_status st = floe_catalog_append(c, "db", "t", recs, &len, 1, NULL, 0, 2, NULL);
    assert_non_null(st);
    assert_true(strstr(floe_status_message(st), "data file record 1 of 1") != NULL);
    floe_status_free(st);

    /* A delete file is refused: appends carry data files only. */
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_type *ptype = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(floe_ice_tm_default_spec(t->md),
                                                     floe_ice_tm_current_schema(t->md), false, &ptype));
    floe_ice_data_file_codec *codec = NULL;
    assert_ok(floe_ice_data_file_codec_new(ptype, 2, &codec));
    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.content = FLOE_ICE_CONTENT_POSITION_DELETES;
    df.file_path = "/nowhere/d.parquet";
    df.file_format = "PARQUET";
    uint8_t *bytes = NULL;
    assert_ok(floe_ice_data_file_encode(codec, &df, &bytes, &len));
    const uint8_t *drec[1] = {bytes};
    assert_error(floe_catalog_append(c, "db", "t", drec, &len, 1, NULL, 0, 0, NULL), FLOE_ERR_UNSUPPORTED,
                 "only data files");
    floe_free(bytes);
    floe_ice_data_file_codec_free(codec);
    floe_ice_type_free(ptype);
    floe_ice_table_free(t);

    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_null(floe_ice_tm_current_snapshot(t->md));
    floe_ice_table_free(t);
    assert_int_equal(count_avro(c), 0);
    floe_catalog_close(c);
}

FLOE_TEST_MAIN(cmocka_unit_test(append_creates_snapshot_read_back_with_java_summary),
               cmocka_unit_test(second_append_keeps_first_files_and_adds_totals),
               cmocka_unit_test(losing_commit_conflicts_then_retry_lands_and_cleans_up),
               cmocka_unit_test(racing_catalog_handles_all_land_with_exact_rows),
               cmocka_unit_test(partitioned_append_summarizes_partitions),
               cmocka_unit_test(v1_table_appends_twice),
               cmocka_unit_test(python_avro_reads_the_manifests),
               cmocka_unit_test(bad_or_delete_records_fail_and_leave_no_files))
