/* The row-level change commit (floe_catalog_row_delta): real Parquet
 * position delete files committed for live data files hide their rows
 * through scan planning and the task reader; each delete file takes the
 * spec and partition of its data file (an old spec's data gets an old-spec
 * delete manifest), a reference and file_path bounds; removed data files
 * go (copy-on-write) with the delete files that applied only to them;
 * files that are not live are conflicts naming them and commit nothing;
 * the summary counts what Java's SnapshotSummary counts.  Changes built on
 * the same base: disjoint partitions both commit, the same data file (or
 * data the filter may match, under serializable isolation; a delete file
 * scoped to the file's partition and bounds) is a final conflict. */
#include "table_commit_util.h"

#include "floe/iceberg_expr.h"
#include "iceberg/snapshot/snapshot_producer.h"

/* The delete files live in the current snapshot, with their manifest's
 * spec id (up to `cap`). */
static int live_deletes(floe_catalog *c, floe_ice_manifest_entry *out, int32_t *spec_ids, int cap, ct_manifests *cm) {
    ct_manifests_load(c, cm);
    int n = 0;
    for (size_t i = 0; i < cm->n; i++)
        for (size_t k = 0; k < cm->m[i]->n_entries; k++) {
            const floe_ice_manifest_entry *e = &cm->m[i]->entries[k];
            if (e->file.content == FLOE_ICE_CONTENT_DATA || e->status == FLOE_ICE_STATUS_DELETED) continue;
            assert_int_equal(cm->mfs[i].content, FLOE_ICE_MANIFEST_DELETES);
            assert_int_equal(cm->mfs[i].partition_spec_id, cm->m[i]->spec_id);
            if (n < cap) out[n] = *e, spec_ids[n] = cm->m[i]->spec_id;
            n++;
        }
    return n;
}

static void position_deletes_hide_rows(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("rd_pos", CT_CAT, 2);
    ct_append(c, "a0", 0, 5, "a", 0);
    int64_t s2 = ct_append(c, "b0", 10, 3, "b", 0);
    char a0[2048], b0[2048];
    ct_data_path(c, "a0", a0, sizeof a0);
    ct_data_path(c, "b0", b0, sizeof b0);

    /* Rows 1 and 3 of a0 by reference (with its writer's truncated
     * bounds), row 0 of b0 by bounds only. */
    const int64_t pa[2] = {1, 3}, pb[1] = {0};
    size_t lens[2];
    uint8_t *dels[2] = {ct_write_pos_deletes(c, "del-a0", a0, pa, 2, CT_REF_TRUNCATED, &lens[0]),
                        ct_write_pos_deletes(c, "del-b0", b0, pb, 1, CT_REF_BOUNDS, &lens[1])};
    floe_row_delta d = ct_delta(NULL, NULL, 0, dels, lens, 2, NULL, 0, s2);
    int64_t sid = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &sid));
    for (int i = 0; i < 2; i++) floe_free(dels[i]);
    assert_true(sid > 0);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 5);
    assert_int_equal(sum, 0 + 2 + 4 + 11 + 12);
    assert_int_equal(ct_read_rows(c, s2, NULL), 8); /* time travel: all rows */

    ct_manifests cm;
    floe_ice_manifest_entry e[4];
    int32_t specs[4];
    assert_int_equal(live_deletes(c, e, specs, 4, &cm), 2);
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(cm.t->md);
    assert_true(s->snapshot_id == sid && s->parent_snapshot_id == s2);
    assert_string_equal(s->operation, "delete");
    assert_string_equal(ct_summary(s, "added-delete-files"), "2");
    assert_string_equal(ct_summary(s, "added-position-delete-files"), "2");
    assert_string_equal(ct_summary(s, "added-position-deletes"), "3");
    assert_string_equal(ct_summary(s, "changed-partition-count"), "2");
    assert_string_equal(ct_summary(s, "total-delete-files"), "2");
    assert_string_equal(ct_summary(s, "total-position-deletes"), "3");
    assert_string_equal(ct_summary(s, "total-records"), "8");
    assert_string_equal(ct_summary(s, "total-data-files"), "2");
    assert_null(ct_summary(s, "added-data-files"));
    assert_null(ct_summary(s, "added-dvs"));
    for (int i = 0; i < 2; i++) {
        /* Each took its data file's partition, a reference and bounds. */
        const floe_ice_data_file *f = &e[i].file;
        bool is_a = strstr(f->file_path, "del-a0") != NULL;
        assert_int_equal(specs[i], 0);
        assert_int_equal(f->n_partition, 1);
        assert_false(f->partition[0].is_null);
        assert_int_equal(f->partition[0].v.bytes.len, 1);
        assert_memory_equal(f->partition[0].v.bytes.data, is_a ? "a" : "b", 1);
        assert_string_equal(f->referenced_data_file, is_a ? a0 : b0);
        assert_int_equal(f->lower_bounds.n, 1);
        assert_int_equal(f->lower_bounds.keys[0], CT_POS_PATH_ID);
        assert_int_equal(f->upper_bounds.keys[0], CT_POS_PATH_ID);
        assert_int_equal(f->lower_bounds.lens[0], strlen(is_a ? a0 : b0));
        assert_memory_equal(f->lower_bounds.values[0], is_a ? a0 : b0, f->lower_bounds.lens[0]);
        assert_memory_equal(f->upper_bounds.values[0], is_a ? a0 : b0, f->upper_bounds.lens[0]);
    }
    ct_manifests_free(&cm);
    floe_catalog_close(c);
}

/* A delete file for data written under an older spec lands in a delete
 * manifest of that spec, with the old tuple; one for new data in one of
 * the new spec. */
static void deletes_follow_the_spec_of_their_data(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("rd_specs", CT_CAT, 2);
    ct_append(c, "old", 0, 4, "a", 3);
    /* Evolve: partition by cat and day(ts). */
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_spec_change ch = {FLOE_ICE_SPEC_ADD_FIELD, "ts", floe_ice_transform_make(FLOE_ICE_TRANSFORM_DAY, 0), NULL,
                               NULL};
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_update_spec(t->md, &ch, 1, &md));
    assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, md, NULL));
    int32_t new_spec = md->default_spec_id;
    assert_int_not_equal(new_spec, 0);
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);
    int64_t base = ct_append(c, "new", 10, 3, "a", 3);

    char old_path[2048], new_path[2048];
    ct_data_path(c, "old", old_path, sizeof old_path);
    ct_data_path(c, "new", new_path, sizeof new_path);
    const int64_t p_old[2] = {0, 2}, p_new[1] = {1};
    size_t lens[2];
    uint8_t *dels[2] = {ct_write_pos_deletes(c, "del-old", old_path, p_old, 2, CT_REF_FIELD, &lens[0]),
                        ct_write_pos_deletes(c, "del-new", new_path, p_new, 1, CT_REF_FIELD, &lens[1])};
    floe_row_delta d = ct_delta(NULL, NULL, 0, dels, lens, 2, NULL, 0, base);
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL));
    for (int i = 0; i < 2; i++) floe_free(dels[i]);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 4);
    assert_int_equal(sum, 1 + 3 + 10 + 12);

    ct_manifests cm;
    floe_ice_manifest_entry e[4];
    int32_t specs[4];
    assert_int_equal(live_deletes(c, e, specs, 4, &cm), 2);
    int n_manifests = 0;
    for (size_t i = 0; i < cm.n; i++) n_manifests += cm.mfs[i].content == FLOE_ICE_MANIFEST_DELETES;
    assert_int_equal(n_manifests, 2); /* one delete manifest per spec */
    for (int i = 0; i < 2; i++) {
        bool old = strstr(e[i].file.file_path, "del-old") != NULL;
        assert_int_equal(specs[i], old ? 0 : new_spec);
        assert_int_equal(e[i].file.n_partition, old ? 1 : 2);
        assert_memory_equal(e[i].file.partition[0].v.bytes.data, "a", 1);
        if (!old) assert_int_equal(e[i].file.partition[1].v.i32, 3);
    }
    ct_manifests_free(&cm);
    floe_catalog_close(c);
}

/* Copy-on-write: a0 removed and its surviving rows added back in a new
 * file (operation overwrite); then a delete of b0's rows by delete file,
 * and removing b0 takes that delete file along. */
static void removed_files_and_their_orphan_deletes(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("rd_cow", CT_CAT, 2);
    ct_append(c, "a0", 0, 5, "a", 0);
    int64_t s2 = ct_append(c, "b0", 10, 3, "b", 0);
    char a0[2048], b0[2048];
    ct_data_path(c, "a0", a0, sizeof a0);
    ct_data_path(c, "b0", b0, sizeof b0);

    const int64_t keep[3] = {0, 2, 4};
    size_t len = 0;
    uint8_t *rec = ct_write_ids(c, "a0-rewritten", keep, 3, "a", 0, &len);
    const char *rm[1] = {a0};
    floe_row_delta d = ct_delta(&rec, &len, 1, NULL, NULL, 0, rm, 1, s2);
    int64_t s3 = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &s3));
    floe_free(rec);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 6);
    assert_int_equal(sum, 6 + 33);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    assert_true(s->snapshot_id == s3);
    assert_string_equal(s->operation, "overwrite");
    assert_string_equal(ct_summary(s, "added-data-files"), "1");
    assert_string_equal(ct_summary(s, "deleted-data-files"), "1");
    assert_string_equal(ct_summary(s, "added-records"), "3");
    assert_string_equal(ct_summary(s, "deleted-records"), "5");
    assert_string_equal(ct_summary(s, "total-records"), "6");
    floe_ice_table_free(t);

    /* b0 row 1 deleted by a delete file, then b0 removed whole. */
    const int64_t pb[1] = {1};
    uint8_t *del = ct_write_pos_deletes(c, "del-b0", b0, pb, 1, CT_REF_FIELD, &len);
    d = ct_delta(NULL, NULL, 0, &del, &len, 1, NULL, 0, s3);
    int64_t s4 = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &s4));
    floe_free(del);
    assert_int_equal(ct_read_rows(c, -1, &sum), 5);
    assert_int_equal(sum, 6 + 22);
    const char *rm_b[1] = {b0};
    d = ct_delta(NULL, NULL, 0, NULL, NULL, 0, rm_b, 1, s4);
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL));
    assert_int_equal(ct_read_rows(c, -1, &sum), 3);
    assert_int_equal(sum, 6);
    ct_manifests cm;
    floe_ice_manifest_entry e[2];
    int32_t specs[2];
    assert_int_equal(live_deletes(c, e, specs, 2, &cm), 0);
    s = floe_ice_tm_current_snapshot(cm.t->md);
    assert_string_equal(s->operation, "delete");
    assert_string_equal(ct_summary(s, "deleted-data-files"), "1");
    assert_string_equal(ct_summary(s, "removed-delete-files"), "1");
    assert_string_equal(ct_summary(s, "removed-position-delete-files"), "1");
    assert_string_equal(ct_summary(s, "removed-position-deletes"), "1");
    assert_string_equal(ct_summary(s, "total-delete-files"), "0");
    assert_string_equal(ct_summary(s, "total-position-deletes"), "0");
    assert_string_equal(ct_summary(s, "total-data-files"), "1");
    ct_manifests_free(&cm);
    floe_catalog_close(c);
}

/* Files that are not live: conflicts naming them; nothing committed and
 * no manifest left behind.  Bad delete files: invalid arguments.  An
 * empty change: no snapshot. */
static void files_not_live_and_bad_deletes(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("rd_errors", CT_CAT, 2);
    int64_t s1 = ct_append(c, "a0", 0, 5, "a", 0);
    char a0[2048], gone[2048];
    ct_data_path(c, "a0", a0, sizeof a0);
    ct_data_path(c, "nowhere", gone, sizeof gone);
    int avro = ct_count_avro(c);

    const char *rm[1] = {gone};
    floe_row_delta d = ct_delta(NULL, NULL, 0, NULL, NULL, 0, rm, 1, s1);
    floe_status st = floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 3, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), gone));
    floe_status_free(st);

    const int64_t pos[1] = {0};
    size_t len = 0;
    uint8_t *del = ct_write_pos_deletes(c, "del-gone", gone, pos, 1, CT_REF_FIELD, &len);
    d = ct_delta(NULL, NULL, 0, &del, &len, 1, NULL, 0, s1);
    st = floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 3, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), gone));
    floe_status_free(st);
    floe_free(del);

    /* A delete file naming no single data file, and one for a file the
     * same change removes. */
    del = ct_write_pos_deletes(c, "del-none", a0, pos, 1, CT_REF_NONE, &len);
    d = ct_delta(NULL, NULL, 0, &del, &len, 1, NULL, 0, s1);
    assert_error(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "names no single data file");
    floe_free(del);
    del = ct_write_pos_deletes(c, "del-a0", a0, pos, 1, CT_REF_FIELD, &len);
    const char *rm_a[1] = {a0};
    d = ct_delta(NULL, NULL, 0, &del, &len, 1, rm_a, 1, s1);
    assert_error(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "which the same change removes");
    floe_free(del);
    assert_int_equal(ct_current(c), s1);
    assert_int_equal(ct_count_avro(c), avro);

    int64_t sid = 7;
    d = ct_delta(NULL, NULL, 0, NULL, NULL, 0, NULL, 0, s1);
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &sid));
    assert_int_equal(sid, -1);
    assert_int_equal(ct_current(c), s1);
    assert_int_equal(ct_read_rows(c, -1, NULL), 5);
    floe_catalog_close(c);
}

/* ---- concurrent commits ------------------------------------------------------ */

static floe_ice_expr *cat_eq(const char *cat) {
    floe_ice_value v = floe_ice_string_z(cat);
    return floe_ice_expr_literal(FLOE_ICE_EXPR_EQ, "cat", &v);
}

/* Two changes built on the same snapshot: copy-on-write in partition a,
 * then deletes in partition b, each serializable with its partition's
 * filter: both commit.  A third on the same base that read the whole table
 * (no filter) conflicts with the data the first added; under snapshot
 * isolation it commits. */
static void disjoint_partitions_both_commit(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("rd_disjoint", CT_CAT, 2);
    ct_append(c, "a0", 0, 5, "a", 0);
    int64_t base = ct_append(c, "b0", 10, 3, "b", 0);
    char a0[2048], b0[2048];
    ct_data_path(c, "a0", a0, sizeof a0);
    ct_data_path(c, "b0", b0, sizeof b0);

    const int64_t keep[2] = {0, 1};
    size_t len = 0;
    uint8_t *rec = ct_write_ids(c, "a0-cow", keep, 2, "a", 0, &len);
    const char *rm[1] = {a0};
    floe_row_delta d1 = ct_delta(&rec, &len, 1, NULL, NULL, 0, rm, 1, base);
    floe_ice_expr *fa = cat_eq("a");
    d1.conflict_filter = fa;
    int64_t s1 = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d1, NULL, 0, 0, &s1));
    floe_free(rec);

    const int64_t pb[1] = {2};
    size_t dlen = 0;
    uint8_t *del = ct_write_pos_deletes(c, "del-b0", b0, pb, 1, CT_REF_FIELD, &dlen);
    floe_row_delta d2 = ct_delta(NULL, NULL, 0, &del, &dlen, 1, NULL, 0, base);
    floe_ice_expr *fb = cat_eq("b");
    d2.conflict_filter = fb;
    int64_t s2 = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d2, NULL, 0, 0, &s2));
    floe_free(del);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 4);
    assert_int_equal(sum, 0 + 1 + 10 + 11);

    /* An insert into partition c that read the whole table at `base`:
     * a0-cow is data it never saw. */
    const int64_t ids[1] = {100};
    uint8_t *rec3 = ct_write_ids(c, "c0", ids, 1, "c", 0, &len);
    floe_row_delta d3 = ct_delta(&rec3, &len, 1, NULL, NULL, 0, NULL, 0, base);
    floe_status st = floe_catalog_row_delta(c, "db", "t", &d3, NULL, 0, 2, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), "a0-cow.parquet"));
    assert_non_null(strstr(floe_status_message(st), "serializable"));
    floe_status_free(st);
    assert_int_equal(ct_current(c), s2);
    d3.isolation = FLOE_ISOLATION_SNAPSHOT;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d3, NULL, 0, 0, NULL));
    floe_free(rec3);
    assert_int_equal(ct_read_rows(c, -1, &sum), 5);
    assert_int_equal(sum, 122);
    floe_ice_expr_free(fa);
    floe_ice_expr_free(fb);
    floe_catalog_close(c);
}

/* Two changes on the same base touching the same data file: the second
 * fails with a conflict naming the file, commits nothing, and leaves the
 * first's files and rows as they were. */
static void same_data_file_conflicts(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("rd_same_file", CT_CAT, 2);
    int64_t base = ct_append(c, "a0", 0, 5, "a", 0);
    char a0[2048];
    ct_data_path(c, "a0", a0, sizeof a0);
    const int64_t p1[1] = {1}, p2[1] = {2};
    size_t l1 = 0, l2 = 0;
    uint8_t *del1 = ct_write_pos_deletes(c, "del-1", a0, p1, 1, CT_REF_FIELD, &l1);
    uint8_t *del2 = ct_write_pos_deletes(c, "del-2", a0, p2, 1, CT_REF_BOUNDS, &l2);
    floe_row_delta d1 = ct_delta(NULL, NULL, 0, &del1, &l1, 1, NULL, 0, base);
    int64_t s1 = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d1, NULL, 0, 0, &s1));
    int avro = ct_count_avro(c);

    /* Deletes for the same file. */
    floe_row_delta d2 = ct_delta(NULL, NULL, 0, &del2, &l2, 1, NULL, 0, base);
    floe_status st = floe_catalog_row_delta(c, "db", "t", &d2, NULL, 0, 3, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), a0));
    assert_non_null(strstr(floe_status_message(st), "del-1.parquet"));
    assert_non_null(strstr(floe_status_message(st), "adds deletes for"));
    floe_status_free(st);

    /* Copy-on-write of the same file. */
    const int64_t keep[1] = {0};
    size_t len = 0;
    uint8_t *rec = ct_write_ids(c, "a0-cow", keep, 1, "a", 0, &len);
    const char *rm[1] = {a0};
    floe_row_delta d3 = ct_delta(&rec, &len, 1, NULL, NULL, 0, rm, 1, base);
    st = floe_catalog_row_delta(c, "db", "t", &d3, NULL, 0, 3, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), a0));
    assert_non_null(strstr(floe_status_message(st), "removes"));
    floe_status_free(st);

    /* Nothing committed, nothing left behind, the first change intact. */
    assert_int_equal(ct_current(c), s1);
    assert_int_equal(ct_count_avro(c), avro);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 4);
    assert_int_equal(sum, 0 + 2 + 3 + 4);

    /* After a copy-on-write removed a0 (built on s1), a change still
     * naming a0 finds it gone. */
    d3.base_snapshot_id = s1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d3, NULL, 0, 0, NULL));
    st = floe_catalog_row_delta(c, "db", "t", &d2, NULL, 0, 3, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), a0));
    assert_non_null(strstr(floe_status_message(st), "not a live data file"));
    floe_status_free(st);
    floe_free(rec);
    floe_free(del1);
    floe_free(del2);
    floe_catalog_close(c);
}

/* A concurrent append: a conflict under serializable isolation when its
 * data may match the filter (by partition or by metrics), none when it
 * cannot or under snapshot isolation; a base that is no ancestor is a
 * conflict. */
static void concurrent_appends_and_isolation(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("rd_isolation", CT_CAT, 2);
    int64_t base = ct_append(c, "a0", 0, 5, "a", 0);
    ct_append(c, "b-new", 10, 2, "b", 0);  /* partition b */
    ct_append(c, "a-new", 50, 2, "a", 0);  /* partition a, ids 50..51 */
    char a0[2048];
    ct_data_path(c, "a0", a0, sizeof a0);
    const int64_t pos[1] = {0};
    size_t len = 0;
    uint8_t *del = ct_write_pos_deletes(c, "del-a0", a0, pos, 1, CT_REF_FIELD, &len);
    floe_row_delta d = ct_delta(NULL, NULL, 0, &del, &len, 1, NULL, 0, base);

    /* cat = 'a' and id < 5: a-new cannot match by its bounds, b-new by its
     * partition. */
    floe_ice_value five = floe_ice_long(5);
    floe_ice_expr *narrow = floe_ice_expr_and(cat_eq("a"), floe_ice_expr_literal(FLOE_ICE_EXPR_LT, "id", &five));
    floe_ice_expr *wide = cat_eq("a");
    d.conflict_filter = wide;
    floe_status st = floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), "a-new.parquet"));
    floe_status_free(st);

    int64_t cur = ct_current(c);
    d.base_snapshot_id = 12345; /* not in the history */
    st = floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), "no longer an ancestor"));
    floe_status_free(st);
    assert_int_equal(ct_current(c), cur);

    d.base_snapshot_id = base;
    d.conflict_filter = narrow;
    int64_t sid = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &sid));
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 8);
    assert_int_equal(sum, 10 + 21 + 101);

    /* A delete of row 1 that read `base` conflicts with the delete just
     * made (whatever the isolation); one that read `sid`, with a later
     * append under serializable isolation only. */
    const int64_t pos1[1] = {1};
    size_t len1 = 0;
    uint8_t *del1 = ct_write_pos_deletes(c, "del-a0-1", a0, pos1, 1, CT_REF_FIELD, &len1);
    floe_row_delta d2 = ct_delta(NULL, NULL, 0, &del1, &len1, 1, NULL, 0, base);
    d2.isolation = FLOE_ISOLATION_SNAPSHOT;
    st = floe_catalog_row_delta(c, "db", "t", &d2, NULL, 0, 0, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), "del-a0.parquet"));
    floe_status_free(st);
    ct_append(c, "a-later", 60, 1, "a", 0);
    d2.base_snapshot_id = sid;
    d2.isolation = FLOE_ISOLATION_SERIALIZABLE;
    assert_error(floe_catalog_row_delta(c, "db", "t", &d2, NULL, 0, 0, NULL), FLOE_ERR_CONFLICT, "a-later.parquet");
    d2.isolation = FLOE_ISOLATION_SNAPSHOT;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d2, NULL, 0, 0, NULL));
    assert_int_equal(ct_read_rows(c, -1, &sum), 8);
    assert_int_equal(sum, 10 + 21 + 101 + 60 - 1);
    floe_free(del);
    floe_free(del1);
    floe_ice_expr_free(narrow);
    floe_ice_expr_free(wide);
    floe_catalog_close(c);
}

/* Delete files added since the base that do not name one file: an
 * equality delete file conflicts with removing any data file of its
 * partition; a position delete file without a reference, with the data
 * files of its partition whose path lies within its file_path bounds.
 * (The delete files are only listed, never read.) */
static void partition_scoped_deletes_conflict_by_partition_and_bounds(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("rd_scoped", CT_CAT, 2);
    ct_append(c, "a0", 0, 2, "a", 0);
    ct_append(c, "a1", 10, 2, "a", 0);
    int64_t base = ct_append(c, "b0", 20, 2, "b", 0);
    char a0[2048], a1[2048], b0[2048], past_a0[2100];
    ct_data_path(c, "a0", a0, sizeof a0);
    ct_data_path(c, "a1", a1, sizeof a1);
    ct_data_path(c, "b0", b0, sizeof b0);
    snprintf(past_a0, sizeof past_a0, "%s~", a0); /* a0 <= path <= a0~ holds a0 only */

    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_data_file dfs[2];
    floe_ice_value parts[2] = {floe_ice_string_z("b"), floe_ice_string_z("a")};
    int32_t eq_id = 1;
    int32_t keys[1] = {CT_POS_PATH_ID};
    const uint8_t *lo[1] = {(const uint8_t *)a0}, *hi[1] = {(const uint8_t *)past_a0};
    uint32_t lo_len[1] = {(uint32_t)strlen(a0)}, hi_len[1] = {(uint32_t)strlen(past_a0)};
    for (int i = 0; i < 2; i++) {
        floe_ice_data_file_init(&dfs[i]);
        dfs[i].file_path = i == 0 ? "/nowhere/eq-b.parquet" : "/nowhere/pos-a.parquet";
        dfs[i].file_format = "PARQUET";
        dfs[i].record_count = 1;
        dfs[i].file_size_in_bytes = 100;
        dfs[i].n_partition = 1;
        dfs[i].partition = &parts[i];
    }
    dfs[0].content = FLOE_ICE_CONTENT_EQUALITY_DELETES;
    dfs[0].n_equality_ids = 1;
    dfs[0].equality_ids = &eq_id;
    dfs[1].content = FLOE_ICE_CONTENT_POSITION_DELETES;
    dfs[1].lower_bounds = (floe_ice_bound_map){1, keys, lo, lo_len};
    dfs[1].upper_bounds = (floe_ice_bound_map){1, keys, hi, hi_len};
    floe_ice_producer p;
    assert_ok(floe_ice_producer_init(&p, t, "row delta"));
    assert_ok(floe_ice_producer_add_delete_files(&p, dfs, 2));
    floe_ice_table_metadata *md = NULL;
    floe_ice_append_files w;
    memset(&w, 0, sizeof w);
    assert_ok(floe_ice_producer_commit(&p, "delete", NULL, 0, NULL, 0, &md, &w));
    floe_ice_producer_destroy(&p);
    assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, md, NULL));
    floe_ice_append_files_clear(&w);
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);

    const char *rm_b[1] = {b0}, *rm_a0[1] = {a0}, *rm_a1[1] = {a1};
    floe_row_delta d = ct_delta(NULL, NULL, 0, NULL, NULL, 0, rm_b, 1, base);
    assert_error(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL), FLOE_ERR_CONFLICT, "eq-b.parquet");
    d.removed_paths = rm_a0;
    assert_error(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL), FLOE_ERR_CONFLICT, "pos-a.parquet");
    d.removed_paths = rm_a1; /* outside pos-a's bounds */
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL));
    floe_catalog_close(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(position_deletes_hide_rows),
        cmocka_unit_test(deletes_follow_the_spec_of_their_data),
        cmocka_unit_test(removed_files_and_their_orphan_deletes),
        cmocka_unit_test(files_not_live_and_bad_deletes),
        cmocka_unit_test(disjoint_partitions_both_commit),
        cmocka_unit_test(same_data_file_conflicts),
        cmocka_unit_test(concurrent_appends_and_isolation),
        cmocka_unit_test(partition_scoped_deletes_conflict_by_partition_and_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
