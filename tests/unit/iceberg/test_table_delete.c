/* The metadata-only DELETE: whole files removed when the filter selects
 * whole partitions (identity, day and bucket specs, through strict
 * projection) or when a file's column bounds prove every row matches;
 * a file that may hold both kinds of rows is refused and the table left
 * unchanged; no match makes no snapshot.  Delete files follow their data:
 * a position delete file goes with the one data file it names, an
 * equality delete file stays while its partition keeps data, and an
 * overwrite of its partition removes it.  Time travel still reads the
 * old rows; python3-avro reads the rewritten manifests. */
#include "table_commit_util.h"

#include "floe/iceberg_expr.h"
#include "iceberg/snapshot/snapshot_producer.h"

/* DELETE FROM db.t WHERE `filter` (consumed); returns the snapshot id. */
static int64_t delete_where(floe_catalog *c, floe_ice_expr *filter, int64_t *rows) {
    assert_non_null(filter);
    int64_t sid = -2;
    assert_ok(floe_catalog_delete_where(c, "db", "t", filter, 0, &sid, rows));
    floe_ice_expr_free(filter);
    return sid;
}

static floe_ice_expr *cmp_long(floe_ice_expr_op op, const char *col, int64_t v) {
    floe_ice_value x = floe_ice_long(v);
    return floe_ice_expr_literal(op, col, &x);
}

static floe_ice_expr *cat_eq(const char *cat) {
    floe_ice_value x = floe_ice_string_z(cat);
    return floe_ice_expr_literal(FLOE_ICE_EXPR_EQ, "cat", &x);
}

static void delete_whole_identity_partitions(void **state) {
    (void)state;
    for (int v = 1; v <= 2; v++) {
        floe_catalog *c = ct_setup(v == 1 ? "del_identity_v1" : "del_identity_v2", CT_CAT, v);
        ct_append(c, "a0", 0, 5, "a", 0);
        ct_append(c, "a1", 5, 3, "a", 0);
        ct_append(c, "b0", 10, 3, "b", 0);
        int64_t s4 = ct_append(c, "c0", 20, 2, "c", 0);

        int64_t rows = -1;
        int64_t sid = delete_where(c, cat_eq("a"), &rows);
        assert_true(sid > 0);
        assert_int_equal(rows, 8);
        int64_t sum = 0;
        assert_int_equal(ct_read_rows(c, -1, &sum), 5);
        assert_int_equal(sum, 10 + 11 + 12 + 20 + 21);
        assert_int_equal(ct_read_rows(c, s4, NULL), 13); /* time travel */

        floe_ice_table *t = NULL;
        assert_ok(floe_catalog_load_table(c, "db", "t", &t));
        const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
        assert_string_equal(s->operation, "delete");
        assert_true(s->parent_snapshot_id == s4);
        assert_string_equal(ct_summary(s, "deleted-data-files"), "2");
        assert_string_equal(ct_summary(s, "deleted-records"), "8");
        assert_string_equal(ct_summary(s, "changed-partition-count"), "1");
        assert_string_equal(ct_summary(s, "total-records"), "5");
        assert_string_equal(ct_summary(s, "total-data-files"), "2");
        assert_null(ct_summary(s, "added-data-files"));
        floe_ice_table_free(t);

        /* IN over two partitions removes both. */
        floe_ice_value set[2] = {floe_ice_string_z("b"), floe_ice_string_z("c")};
        assert_true(delete_where(c, floe_ice_expr_set(FLOE_ICE_EXPR_IN, "cat", set, 2), &rows) > 0);
        assert_int_equal(rows, 5);
        assert_int_equal(ct_read_rows(c, -1, NULL), 0);
        floe_catalog_close(c);
    }
}

static void delete_whole_day_partition_by_timestamp_range(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("del_day", CT_DAY, 2);
    ct_append(c, "d0", 0, 3, "x", 19000);
    ct_append(c, "d1a", 10, 3, "x", 19001);
    ct_append(c, "d1b", 13, 2, "y", 19001);
    ct_append(c, "d2", 20, 1, "x", 19002);
    /* ts >= day 19001 and ts < day 19002: exactly partition 19001. */
    floe_ice_value lo = floe_ice_timestamp(19001LL * CT_DAY_US), hi = floe_ice_timestamp(19002LL * CT_DAY_US);
    floe_ice_expr *f = floe_ice_expr_and(floe_ice_expr_literal(FLOE_ICE_EXPR_GT_EQ, "ts", &lo),
                                         floe_ice_expr_literal(FLOE_ICE_EXPR_LT, "ts", &hi));
    int64_t rows = 0;
    assert_true(delete_where(c, f, &rows) > 0);
    assert_int_equal(rows, 5);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 4);
    assert_int_equal(sum, 0 + 1 + 2 + 20);
    floe_catalog_close(c);
}

static void delete_on_one_field_of_a_two_field_spec(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("del_two_fields", CT_CAT_DAY, 2);
    ct_append(c, "a-d1", 0, 2, "a", 1);
    ct_append(c, "a-d2", 10, 2, "a", 2);
    ct_append(c, "b-d1", 20, 2, "b", 1);
    /* cat = 'a' covers (a, any day); a day range covers (any cat, day 1). */
    int64_t rows = 0;
    assert_true(delete_where(c, cat_eq("a"), &rows) > 0);
    assert_int_equal(rows, 4);
    floe_ice_value lo = floe_ice_timestamp(1 * CT_DAY_US), hi = floe_ice_timestamp(2 * CT_DAY_US);
    floe_ice_expr *f = floe_ice_expr_and(floe_ice_expr_literal(FLOE_ICE_EXPR_GT_EQ, "ts", &lo),
                                         floe_ice_expr_literal(FLOE_ICE_EXPR_LT, "ts", &hi));
    assert_true(delete_where(c, f, &rows) > 0);
    assert_int_equal(rows, 2);
    assert_int_equal(ct_read_rows(c, -1, NULL), 0);
    floe_catalog_close(c);
}

static void delete_through_bucket_partitions_and_bounds(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("del_bucket", CT_BUCKET4, 2);
    /* One file per bucket; bucket(5)'s file holds only id 5. */
    floe_ice_transform bucket = floe_ice_transform_make(FLOE_ICE_TRANSFORM_BUCKET, 4);
    floe_ice_value b5v, in5 = floe_ice_long(5);
    assert_ok(floe_ice_transform_apply(&bucket, &in5, &b5v));
    int64_t ids[4][3];
    int n[4] = {0, 0, 0, 0};
    ids[b5v.v.i32][n[b5v.v.i32]++] = 5;
    for (int64_t id = 100; id < 200; id++) {
        floe_ice_value in = floe_ice_long(id), b;
        assert_ok(floe_ice_transform_apply(&bucket, &in, &b));
        if (b.v.i32 != b5v.v.i32 && n[b.v.i32] < 3) ids[b.v.i32][n[b.v.i32]++] = id;
    }
    for (int k = 0; k < 4; k++) {
        assert_true(n[k] > 0);
        char tag[32];
        snprintf(tag, sizeof tag, "bucket%d", k);
        size_t len;
        uint8_t *rec = ct_write_ids(c, tag, ids[k], n[k], "x", 0, &len);
        int64_t sid = -1;
        assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)&rec, &len, 1, NULL, 0, 0, &sid));
        floe_free(rec);
    }
    /* id != 5: the other buckets wholly (strict projection), bucket(5)'s
     * file not at all (its bounds are 5..5). */
    int64_t rows = 0;
    assert_true(delete_where(c, cmp_long(FLOE_ICE_EXPR_NOT_EQ, "id", 5), &rows) > 0);
    assert_int_equal(rows, n[0] + n[1] + n[2] + n[3] - 1);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 1);
    assert_int_equal(sum, 5);
    /* id = 5: the inclusive projection keeps only bucket(5); its bounds
     * prove every row matches. */
    assert_true(delete_where(c, cmp_long(FLOE_ICE_EXPR_EQ, "id", 5), &rows) > 0);
    assert_int_equal(rows, 1);
    assert_int_equal(ct_read_rows(c, -1, NULL), 0);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_string_equal(ct_summary(floe_ice_tm_current_snapshot(t->md), "total-records"), "0");
    assert_string_equal(ct_summary(floe_ice_tm_current_snapshot(t->md), "total-data-files"), "0");
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

static void delete_file_whose_bounds_lie_inside_the_range(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("del_metrics", CT_UNPARTITIONED, 2);
    ct_append(c, "f0", 0, 10, "a", 0);
    ct_append(c, "f1", 10, 10, "b", 0);
    ct_append(c, "f2", 20, 10, "c", 0);
    int64_t rows = 0;
    floe_ice_expr *f = floe_ice_expr_and(cmp_long(FLOE_ICE_EXPR_GT_EQ, "id", 10), cmp_long(FLOE_ICE_EXPR_LT, "id", 20));
    assert_true(delete_where(c, f, &rows) > 0);
    assert_int_equal(rows, 10);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 20);
    assert_int_equal(sum, 45 + 245);
    /* A string predicate decided by bounds too (cat is 'c' throughout f2). */
    assert_true(delete_where(c, cat_eq("c"), &rows) > 0);
    assert_int_equal(rows, 10);
    assert_int_equal(ct_read_rows(c, -1, &sum), 10);
    assert_int_equal(sum, 45);
    floe_catalog_close(c);
}

static void manifests_the_filter_cannot_match_are_not_read(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("del_prune", CT_CAT, 2);
    int64_t s1 = ct_append(c, "a0", 0, 3, "a", 0);
    ct_append(c, "c0", 20, 2, "c", 0);
    /* Hide s1's manifest (cat a..a): DELETE WHERE cat = 'c' must not need it. */
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_manifest_list *l = NULL;
    floe_ice_manifest_file *v1 = NULL;
    const floe_ice_manifest_file *mfs = NULL;
    size_t n = 0;
    assert_ok(floe_ice_snapshot_manifests(t, floe_ice_tm_current_snapshot(t->md), &l, &v1, &mfs, &n));
    char path[2048], away[2100];
    for (size_t i = 0; i < n; i++)
        if (mfs[i].added_snapshot_id == s1) snprintf(path, sizeof path, "%s", mfs[i].manifest_path);
    snprintf(away, sizeof away, "%s.away", path);
    floe_ice_manifest_list_free(l);
    floe_free(v1);
    floe_ice_table_free(t);
    assert_int_equal(rename(path, away), 0);
    int64_t rows = 0;
    assert_true(delete_where(c, cat_eq("c"), &rows) > 0);
    assert_int_equal(rows, 2);
    assert_int_equal(rename(away, path), 0);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 3);
    assert_int_equal(sum, 3);
    floe_catalog_close(c);
}

static void partial_match_is_refused_and_table_unchanged(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("del_partial", CT_CAT, 2);
    ct_append(c, "a0", 0, 10, "a", 0);
    ct_append(c, "b0", 10, 10, "b", 0);
    int64_t before = ct_current(c);
    int avro = ct_count_avro(c);
    floe_ice_expr *f = cmp_long(FLOE_ICE_EXPR_LT, "id", 15);
    int64_t sid = 0, rows = 0;
    floe_status st = floe_catalog_delete_where(c, "db", "t", f, 3, &sid, &rows);
    assert_non_null(st);
    assert_int_equal(floe_status_code(st), FLOE_ERR_UNSUPPORTED);
    assert_non_null(strstr(floe_status_message(st), "a row-level delete is needed"));
    assert_non_null(strstr(floe_status_message(st), "/data/b0.parquet may hold rows that do not match"));
    floe_status_free(st);
    floe_ice_expr_free(f);
    assert_int_equal(sid, -1);
    assert_true(ct_current(c) == before);
    assert_int_equal(ct_count_avro(c), avro);
    assert_int_equal(ct_read_rows(c, -1, NULL), 20);
    floe_catalog_close(c);
}

static void no_match_makes_no_snapshot(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("del_none", CT_CAT, 2);
    int64_t rows = 7;
    /* An empty table, then one with rows none of which match. */
    assert_int_equal(delete_where(c, cmp_long(FLOE_ICE_EXPR_GT, "id", 1000), &rows), -1);
    assert_int_equal(rows, 0);
    ct_append(c, "a0", 0, 10, "a", 0);
    int64_t before = ct_current(c);
    int avro = ct_count_avro(c);
    assert_int_equal(delete_where(c, cmp_long(FLOE_ICE_EXPR_GT, "id", 1000), &rows), -1);
    assert_int_equal(delete_where(c, cat_eq("zzz"), &rows), -1);
    assert_int_equal(rows, 0);
    assert_true(ct_current(c) == before);
    assert_int_equal(ct_count_avro(c), avro);
    /* An unknown column is a clear bind error. */
    floe_ice_value x = floe_ice_long(1);
    floe_ice_expr *f = floe_ice_expr_literal(FLOE_ICE_EXPR_EQ, "nope", &x);
    assert_error(floe_catalog_delete_where(c, "db", "t", f, 0, NULL, NULL), FLOE_ERR_NOT_FOUND, "nope");
    floe_ice_expr_free(f);
    floe_catalog_close(c);
}

static void losing_delete_replans_on_the_winners_files(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("del_retry", CT_CAT, 2);
    ct_append(c, "a0", 0, 3, "a", 0);
    ct_append(c, "b0", 10, 3, "b", 0);
    floe_catalog *other = NULL;
    assert_ok(floe_catalog_open_sqlite(floe_catalog_warehouse(c), &other));

    /* Plan the delete, let another writer add to cat=a and cat=b first:
     * the swap loses, and the catalog call re-plans on the new files. */
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_expr *f = cat_eq("a");
    floe_ice_table_metadata *md = NULL;
    floe_ice_append_files w;
    int64_t files = 0, rows = 0;
    assert_ok(floe_ice_tm_delete_snapshot(t, f, &md, &w, &files, &rows));
    assert_non_null(md);
    assert_int_equal(files, 1);
    assert_int_equal(rows, 3);
    ct_append(other, "a1", 5, 2, "a", 0);
    ct_append(other, "b1", 15, 2, "b", 0);
    int avro = ct_count_avro(c);
    assert_error(floe_catalog_commit(c, "db", "t", t->metadata_location, md, NULL), FLOE_ERR_CONFLICT, "");
    floe_ice_append_files_discard(t, &w);
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);
    assert_int_equal(ct_count_avro(c), avro - 2); /* its rewritten manifest and list */

    int64_t sid = -1;
    assert_ok(floe_catalog_delete_where(c, "db", "t", f, 3, &sid, &rows));
    floe_ice_expr_free(f);
    assert_true(sid > 0);
    assert_int_equal(rows, 5);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 5);
    assert_int_equal(sum, 10 + 11 + 12 + 15 + 16);

    /* With no filter at all (true) every file goes. */
    assert_true(delete_where(c, floe_ice_expr_true(), &rows) > 0);
    assert_int_equal(rows, 5);
    assert_int_equal(ct_read_rows(c, -1, NULL), 0);
    floe_catalog_close(other);
    floe_catalog_close(c);
}

/* ---- delete files --------------------------------------------------------- */

#define POS_PATH_ID 2147483546
#define POS_POS_ID 2147483545

/* A position delete file (rows `pos` of data file `target`) or an
 * equality delete file on id (values `ids`), in partition cat=`cat`. */
static void write_delete_file(floe_ice_table *t, const char *tag, bool positional, const char *target,
                              const int64_t *vals, int n, const char *cat, char *path, size_t path_cap,
                              floe_ice_data_file *df, floe_ice_value *part, int32_t *eq_id) {
    snprintf(path, path_cap, "%s/data/%s.parquet", t->md->location, tag);
    floe_field f[2];
    int nf = positional ? 2 : 1;
    if (positional) {
        assert_ok(floe_field_init(&f[0], "file_path", floe_type_primitive(FLOE_TYPE_STRING), false, POS_PATH_ID));
        assert_ok(floe_field_init(&f[1], "pos", floe_type_primitive(FLOE_TYPE_INT64), false, POS_POS_ID));
    } else {
        assert_ok(floe_field_init(&f[0], "id", floe_type_primitive(FLOE_TYPE_INT64), false, 1));
    }
    floe_schema *schema;
    assert_ok(floe_type_struct(f, nf, &schema));
    floe_builder *b[2];
    floe_array *cols[2];
    if (positional) {
        assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &b[0]));
        assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &b[1]));
        for (int i = 0; i < n; i++) {
            assert_ok(floe_builder_append_string(b[0], target));
            assert_ok(floe_builder_append_int64(b[1], vals[i]));
        }
    } else {
        assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &b[0]));
        for (int i = 0; i < n; i++) assert_ok(floe_builder_append_int64(b[0], vals[i]));
    }
    for (int k = 0; k < nf; k++) {
        assert_ok(floe_builder_finish(b[k], &cols[k]));
        floe_builder_free(b[k]);
    }
    floe_batch *batch;
    assert_ok(floe_batch_new(schema, cols, nf, n, &batch));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    floe_output *out;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_pq_writer *w;
    assert_ok(floe_pq_writer_open(out, schema, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    floe_pq_write_result *res = NULL;
    assert_ok(floe_pq_writer_close(w, &res));
    floe_batch_release(batch);
    for (int k = 0; k < nf; k++) {
        floe_array_release(cols[k]);
        floe_field_clear(&f[k]);
    }
    floe_type_release(schema);

    floe_ice_data_file_init(df);
    df->content = positional ? FLOE_ICE_CONTENT_POSITION_DELETES : FLOE_ICE_CONTENT_EQUALITY_DELETES;
    df->file_path = path;
    df->file_format = "PARQUET";
    df->record_count = res->record_count;
    df->file_size_in_bytes = res->file_size;
    *part = floe_ice_string_z(cat);
    df->n_partition = 1;
    df->partition = part;
    if (positional) {
        /* file_path bounds naming the one data file (as Java writes them). */
        static int32_t keys[1] = {POS_PATH_ID};
        static const uint8_t *lo[1];
        static uint32_t lens[1];
        lo[0] = (const uint8_t *)target;
        lens[0] = (uint32_t)strlen(target);
        df->lower_bounds = (floe_ice_bound_map){1, keys, lo, lens};
        df->upper_bounds = (floe_ice_bound_map){1, keys, lo, lens};
    } else {
        *eq_id = 1;
        df->n_equality_ids = 1;
        df->equality_ids = eq_id;
    }
    floe_pq_write_result_free(res);
}

static void delete_files_follow_their_data(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("del_deletes", CT_CAT, 2);
    size_t lens[3];
    uint8_t *recs[3] = {ct_write(c, "a0", 0, 5, "a", 0, &lens[0]), ct_write(c, "b0", 10, 3, "b", 0, &lens[1]),
                        ct_write(c, "b1", 13, 3, "b", 0, &lens[2])};
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)recs, lens, 3, NULL, 0, 0, NULL));
    for (int i = 0; i < 3; i++) floe_free(recs[i]);

    /* A row delta: position deletes of a0 rows 0 and 1, equality deletes
     * of ids 11 and 14 in partition b. */
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char target[2048], ppath[2048], epath[2048];
    snprintf(target, sizeof target, "%s/data/a0.parquet", t->md->location);
    floe_ice_data_file dfs[2];
    floe_ice_value parts[2];
    int32_t eq_id = 0;
    const int64_t pos[2] = {0, 1}, eq[2] = {11, 14};
    write_delete_file(t, "pos-a", true, target, pos, 2, "a", ppath, sizeof ppath, &dfs[0], &parts[0], &eq_id);
    write_delete_file(t, "eq-b", false, NULL, eq, 2, "b", epath, sizeof epath, &dfs[1], &parts[1], &eq_id);
    floe_ice_producer p;
    assert_ok(floe_ice_producer_init(&p, t, "row delta"));
    assert_ok(floe_ice_producer_add_delete_files(&p, dfs, 2));
    floe_ice_table_metadata *md = NULL;
    floe_ice_append_files w;
    memset(&w, 0, sizeof w);
    assert_ok(floe_ice_producer_commit(&p, "delete", NULL, 0, NULL, 0, &md, &w));
    floe_ice_producer_destroy(&p);
    assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, md, NULL));
    int64_t s2 = md->current_snapshot_id;
    assert_string_equal(ct_summary(floe_ice_tm_current_snapshot(md), "total-delete-files"), "2");
    floe_ice_append_files_clear(&w);
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 7);
    assert_int_equal(sum, 2 + 3 + 4 + 10 + 12 + 13 + 15);

    /* b0 goes by its bounds; b1 remains in partition b, so the equality
     * deletes stay (and still hide 14). */
    int64_t rows = 0;
    floe_ice_expr *f = floe_ice_expr_and(cat_eq("b"), cmp_long(FLOE_ICE_EXPR_LT_EQ, "id", 12));
    assert_true(delete_where(c, f, &rows) > 0);
    assert_int_equal(rows, 3);
    assert_int_equal(ct_read_rows(c, -1, &sum), 5);
    assert_int_equal(sum, 2 + 3 + 4 + 13 + 15);
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    assert_null(ct_summary(s, "removed-delete-files"));
    assert_string_equal(ct_summary(s, "total-delete-files"), "2");
    floe_ice_table_free(t);

    /* Partition a wholly: a0 takes its position deletes with it. */
    assert_true(delete_where(c, cat_eq("a"), &rows) > 0);
    assert_int_equal(rows, 5);
    assert_int_equal(ct_read_rows(c, -1, &sum), 2);
    assert_int_equal(sum, 13 + 15);
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    s = floe_ice_tm_current_snapshot(t->md);
    assert_string_equal(ct_summary(s, "removed-delete-files"), "1");
    assert_string_equal(ct_summary(s, "removed-position-deletes"), "2");
    assert_string_equal(ct_summary(s, "total-delete-files"), "1");
    assert_string_equal(ct_summary(s, "total-position-deletes"), "0");
    assert_string_equal(ct_summary(s, "total-equality-deletes"), "2");
    floe_ice_table_free(t);

    /* Overwriting partition b removes b1 and the equality deletes. */
    size_t len;
    uint8_t *rec = ct_write(c, "b-new", 50, 2, "b", 0, &len);
    assert_ok(floe_catalog_replace_partitions(c, "db", "t", (const uint8_t *const *)&rec, &len, 1, -1, NULL, 0, 0,
                                              NULL));
    floe_free(rec);
    assert_int_equal(ct_read_rows(c, -1, &sum), 2);
    assert_int_equal(sum, 101);
    ct_manifests cm;
    ct_manifests_load(c, &cm);
    s = floe_ice_tm_current_snapshot(cm.t->md);
    assert_string_equal(ct_summary(s, "deleted-data-files"), "1");
    assert_string_equal(ct_summary(s, "removed-equality-delete-files"), "1");
    assert_string_equal(ct_summary(s, "removed-equality-deletes"), "2");
    assert_string_equal(ct_summary(s, "total-delete-files"), "0");
    assert_string_equal(ct_summary(s, "total-equality-deletes"), "0");
    /* The delete manifest was rewritten with the equality deletes DELETED
     * (the position deletes' DELETED entry of the previous commit is not
     * carried over). */
    int deleted_deletes = 0;
    for (size_t i = 0; i < cm.n; i++)
        for (size_t k = 0; k < cm.m[i]->n_entries; k++)
            if (cm.m[i]->entries[k].file.content != FLOE_ICE_CONTENT_DATA) {
                assert_int_equal(cm.mfs[i].content, FLOE_ICE_MANIFEST_DELETES);
                assert_int_equal(cm.m[i]->entries[k].status, FLOE_ICE_STATUS_DELETED);
                deleted_deletes++;
            }
    assert_int_equal(deleted_deletes, 1);
    ct_manifests_free(&cm);
    /* Time travel to the row delta still applies its deletes. */
    assert_int_equal(ct_read_rows(c, s2, &sum), 7);
    assert_int_equal(sum, 2 + 3 + 4 + 10 + 12 + 13 + 15);
    floe_catalog_close(c);
}

/* python3-avro (when installed) reads the delete's rewritten manifest. */
static void python_avro_reads_the_delete_manifests(void **state) {
    (void)state;
    if (system("/usr/bin/python3 -c 'import avro' >/dev/null 2>&1") != 0) skip();
    floe_catalog *c = ct_setup("del_pyavro", CT_CAT, 2);
    size_t lens[2];
    uint8_t *recs[2] = {ct_write(c, "a0", 0, 5, "a", 0, &lens[0]), ct_write(c, "b0", 10, 3, "b", 0, &lens[1])};
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)recs, lens, 2, NULL, 0, 0, NULL));
    floe_free(recs[0]);
    floe_free(recs[1]);
    int64_t rows = 0, sid = delete_where(c, cat_eq("b"), &rows);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -W ignore -c '\n"
             "import avro.datafile, avro.io, sys\n"
             "def rd(p): return list(avro.datafile.DataFileReader(open(p, \"rb\"), avro.io.DatumReader()))\n"
             "lst = rd(sys.argv[1]); sid = int(sys.argv[2])\n"
             "assert len(lst) == 1 and lst[0][\"deleted_files_count\"] == 1 and lst[0][\"existing_files_count\"] == 1, lst\n"
             "es = sorted((e[\"status\"], e[\"data_file\"][\"partition\"][\"cat\"], e[\"snapshot_id\"] == sid) for e in rd(lst[0][\"manifest_path\"]))\n"
             "assert es == [(0, \"a\", False), (2, \"b\", True)], es\n"
             "' '%s' %lld",
             floe_ice_tm_current_snapshot(t->md)->manifest_list, (long long)sid);
    assert_int_equal(system(cmd), 0);
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

FLOE_TEST_MAIN(cmocka_unit_test(delete_whole_identity_partitions),
               cmocka_unit_test(delete_whole_day_partition_by_timestamp_range),
               cmocka_unit_test(delete_on_one_field_of_a_two_field_spec),
               cmocka_unit_test(delete_through_bucket_partitions_and_bounds),
               cmocka_unit_test(delete_file_whose_bounds_lie_inside_the_range),
               cmocka_unit_test(manifests_the_filter_cannot_match_are_not_read),
               cmocka_unit_test(partial_match_is_refused_and_table_unchanged),
               cmocka_unit_test(no_match_makes_no_snapshot),
               cmocka_unit_test(losing_delete_replans_on_the_winners_files),
               cmocka_unit_test(delete_files_follow_their_data),
               cmocka_unit_test(python_avro_reads_the_delete_manifests))
