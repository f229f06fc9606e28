/* INSERT OVERWRITE's commit (dynamic partition overwrite): only the
 * partitions the new files were written to are replaced, an unpartitioned
 * table is replaced whole, rewritten manifests carry DELETED and EXISTING
 * entries with the right ids and sequence numbers (also as python3-avro
 * reads them), time travel still reads the old rows, and concurrent
 * appends either conflict (same partition, after the snapshot the
 * statement read) or are kept when the overwrite retries. */
#include "table_commit_util.h"

#include <pthread.h>

/* Replace partitions with `n` records against base snapshot `base`. */
static floe_status overwrite(floe_catalog *c, uint8_t **recs, size_t *lens, int32_t n, int64_t base, int retries,
                             int64_t *sid) {
    const char *kv[2] = {"floe.statement", "insert overwrite"};
    return floe_catalog_replace_partitions(c, "db", "t", (const uint8_t *const *)recs, lens, n, base, kv, 1, retries,
                                           sid);
}

static void free_recs(uint8_t **recs, int n) {
    for (int i = 0; i < n; i++) floe_free(recs[i]);
}

/* Table with cat=a (ids 0-4, 5-7), cat=b (10-12), cat=c (20-21) in two
 * appends: manifest 1 = {a0, b0}, manifest 2 = {a1, c0}. */
static floe_catalog *three_partitions(const char *test, int format_version, int64_t *s1, int64_t *s2) {
    floe_catalog *c = ct_setup(test, CT_CAT, format_version);
    size_t lens[2];
    uint8_t *recs[2] = {ct_write(c, "a0", 0, 5, "a", 0, &lens[0]), ct_write(c, "b0", 10, 3, "b", 0, &lens[1])};
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)recs, lens, 2, NULL, 0, 0, s1));
    free_recs(recs, 2);
    recs[0] = ct_write(c, "a1", 5, 3, "a", 0, &lens[0]);
    recs[1] = ct_write(c, "c0", 20, 2, "c", 0, &lens[1]);
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)recs, lens, 2, NULL, 0, 0, s2));
    free_recs(recs, 2);
    return c;
}

static void overwrite_replaces_only_the_written_partitions(void **state) {
    (void)state;
    int64_t s1, s2;
    floe_catalog *c = three_partitions("ow_partitions", 2, &s1, &s2);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 13);
    assert_int_equal(sum, 0 + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 10 + 11 + 12 + 20 + 21);

    size_t lens[2];
    uint8_t *recs[2] = {ct_write(c, "a-new", 100, 3, "a", 0, &lens[0]), ct_write(c, "c-new", 200, 1, "c", 0, &lens[1])};
    int64_t s3 = -1;
    assert_ok(overwrite(c, recs, lens, 2, s2, 0, &s3));
    free_recs(recs, 2);

    /* Partition b survives; a and c hold only the new rows. */
    assert_int_equal(ct_read_rows(c, -1, &sum), 7);
    assert_int_equal(sum, 10 + 11 + 12 + 100 + 101 + 102 + 200);
    /* Time travel to the snapshot before still reads the old rows. */
    assert_int_equal(ct_read_rows(c, s2, &sum), 13);
    assert_int_equal(ct_read_rows(c, s1, NULL), 8);

    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    assert_true(s->snapshot_id == s3 && s->parent_snapshot_id == s2);
    assert_int_equal(s->sequence_number, 3);
    assert_string_equal(s->operation, "overwrite");
    assert_string_equal(ct_summary(s, "replace-partitions"), "true");
    assert_string_equal(ct_summary(s, "floe.statement"), "insert overwrite");
    assert_string_equal(ct_summary(s, "added-data-files"), "2");
    assert_string_equal(ct_summary(s, "added-records"), "4");
    assert_string_equal(ct_summary(s, "deleted-data-files"), "3");
    assert_string_equal(ct_summary(s, "deleted-records"), "10");
    assert_string_equal(ct_summary(s, "changed-partition-count"), "2");
    assert_string_equal(ct_summary(s, "total-records"), "7");
    assert_string_equal(ct_summary(s, "total-data-files"), "3");
    assert_string_equal(ct_summary(s, "total-delete-files"), "0");
    assert_null(ct_summary(s, "removed-delete-files"));
    /* Sizes add up: total = parent total + added - removed. */
    const floe_ice_snapshot *prev = floe_ice_tm_snapshot(t->md, s2);
    long long total = atoll(ct_summary(s, "total-files-size")), ptotal = atoll(ct_summary(prev, "total-files-size"));
    assert_true(atoll(ct_summary(s, "removed-files-size")) > 0);
    assert_true(total == ptotal + atoll(ct_summary(s, "added-files-size")) - atoll(ct_summary(s, "removed-files-size")));
    floe_ice_table_free(t);

    /* The list: the new manifest, then both old manifests rewritten in
     * their order (s2's {a1, c0} first, as appends put theirs first, then
     * s1's {a0, b0}). */
    ct_manifests cm;
    ct_manifests_load(c, &cm);
    assert_int_equal(cm.n, 3);
    assert_true(cm.mfs[0].added_snapshot_id == s3 && cm.mfs[0].added_files_count == 2);
    assert_true(cm.mfs[1].added_snapshot_id == s3 && cm.mfs[1].existing_files_count == 0 &&
                cm.mfs[1].deleted_files_count == 2 && cm.mfs[1].added_files_count == 0);
    assert_int_equal(cm.mfs[1].deleted_rows_count, 5);
    assert_true(cm.mfs[2].added_snapshot_id == s3 && cm.mfs[2].existing_files_count == 1 &&
                cm.mfs[2].deleted_files_count == 1);
    assert_int_equal(cm.mfs[2].sequence_number, 3);
    assert_int_equal(cm.mfs[2].min_sequence_number, 1); /* the EXISTING b0 */
    assert_int_equal(cm.mfs[1].min_sequence_number, 3); /* nothing live left */
    for (size_t i = 1; i < 3; i++) {
        int64_t file_seq = i == 1 ? 2 : 1;
        assert_int_equal(cm.m[i]->n_entries, 2);
        for (size_t k = 0; k < 2; k++) {
            const floe_ice_manifest_entry *e = &cm.m[i]->entries[k];
            bool is_b = e->file.partition[0].v.bytes.len == 1 && e->file.partition[0].v.bytes.data[0] == 'b';
            if (is_b) {
                assert_int_equal(e->status, FLOE_ICE_STATUS_EXISTING);
                assert_true(e->snapshot_id == s1); /* kept, explicitly written */
            } else {
                assert_int_equal(e->status, FLOE_ICE_STATUS_DELETED);
                assert_true(e->snapshot_id == s3);
            }
            /* Sequence numbers are the file's own, not the rewrite's. */
            assert_int_equal(e->sequence_number, file_seq);
            assert_int_equal(e->file_sequence_number, file_seq);
        }
    }
    ct_manifests_free(&cm);
    floe_catalog_close(c);
}

/* Rename the manifests of the current snapshot that snapshot `sid` added:
 * to <path>.away, or back. */
static void move_manifests_of(floe_catalog *c, int64_t sid, bool away) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_manifest_list *l = NULL;
    floe_ice_manifest_file *v1 = NULL;
    const floe_ice_manifest_file *mfs = NULL;
    size_t n = 0;
    assert_ok(floe_ice_snapshot_manifests(t, floe_ice_tm_current_snapshot(t->md), &l, &v1, &mfs, &n));
    int moved = 0;
    for (size_t i = 0; i < n; i++) {
        if (mfs[i].added_snapshot_id != sid) continue;
        char other[2100];
        snprintf(other, sizeof other, "%s.away", mfs[i].manifest_path);
        assert_int_equal(away ? rename(mfs[i].manifest_path, other) : rename(other, mfs[i].manifest_path), 0);
        moved++;
    }
    assert_int_equal(moved, 1);
    floe_ice_manifest_list_free(l);
    floe_free(v1);
    floe_ice_table_free(t);
}

static void manifests_that_cannot_hold_the_partition_are_not_read(void **state) {
    (void)state;
    int64_t s1, s2;
    floe_catalog *c = three_partitions("ow_prune", 2, &s1, &s2);
    /* s1's manifest holds cat a..b: replacing cat=c must not open it (it
     * is carried over by path). */
    move_manifests_of(c, s1, true);
    size_t len;
    uint8_t *rec = ct_write(c, "c-new", 300, 2, "c", 0, &len);
    assert_ok(overwrite(c, &rec, &len, 1, s2, 0, NULL));
    floe_free(rec);
    move_manifests_of(c, s1, false);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 13);
    assert_int_equal(sum, 0 + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 10 + 11 + 12 + 300 + 301);
    floe_catalog_close(c);
}

static void two_field_spec_replaces_exact_tuples_only(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("ow_two_fields", CT_CAT_DAY, 2);
    ct_append(c, "a-d1", 0, 2, "a", 1);
    ct_append(c, "a-d2", 10, 2, "a", 2);
    int64_t base = ct_append(c, "b-d1", 20, 2, "b", 1);
    /* Replace (a, day 1) only: (a, day 2) and (b, day 1) share one field
     * each with it and survive. */
    size_t len;
    uint8_t *rec = ct_write(c, "a-d1-new", 100, 1, "a", 1, &len);
    assert_ok(overwrite(c, &rec, &len, 1, base, 0, NULL));
    floe_free(rec);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 5);
    assert_int_equal(sum, 10 + 11 + 20 + 21 + 100);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    assert_string_equal(ct_summary(s, "deleted-data-files"), "1");
    assert_string_equal(ct_summary(s, "changed-partition-count"), "1");
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

static void unpartitioned_overwrite_replaces_everything(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("ow_unpartitioned", CT_UNPARTITIONED, 2);
    size_t len;
    ct_append(c, "f0", 0, 4, "a", 0);
    ct_append(c, "f1", 4, 4, "b", 1);
    int64_t base = ct_current(c);
    uint8_t *rec = ct_write(c, "new", 50, 2, "z", 3, &len);
    assert_ok(overwrite(c, &rec, &len, 1, base, 0, NULL));
    floe_free(rec);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 2);
    assert_int_equal(sum, 101);
    assert_int_equal(ct_read_rows(c, base, NULL), 8);

    /* A second overwrite drops the manifests left holding only DELETED
     * entries: the list is the new manifest and the rewritten one. */
    rec = ct_write(c, "newer", 60, 3, "y", 3, &len);
    assert_ok(overwrite(c, &rec, &len, 1, -1, 0, NULL));
    floe_free(rec);
    assert_int_equal(ct_read_rows(c, -1, &sum), 3);
    assert_int_equal(sum, 183);
    ct_manifests cm;
    ct_manifests_load(c, &cm);
    assert_int_equal(cm.n, 2);
    assert_int_equal(cm.mfs[0].added_files_count, 1);
    assert_int_equal(cm.mfs[1].deleted_files_count, 1);
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(cm.t->md);
    assert_string_equal(ct_summary(s, "total-records"), "3");
    assert_string_equal(ct_summary(s, "changed-partition-count"), "1");
    ct_manifests_free(&cm);
    floe_catalog_close(c);
}

static void concurrent_append_into_a_replaced_partition_conflicts(void **state) {
    (void)state;
    int64_t s1, s2;
    floe_catalog *c = three_partitions("ow_conflict", 2, &s1, &s2);
    floe_catalog *other = NULL;
    assert_ok(floe_catalog_open_sqlite(floe_catalog_warehouse(c), &other));
    /* The statement read s2; meanwhile another writer adds to cat=a. */
    size_t len;
    int64_t s3 = ct_append(other, "a-late", 30, 2, "a", 0);
    int avro = ct_count_avro(c);

    uint8_t *rec = ct_write(c, "a-new", 100, 1, "a", 0, &len);
    floe_status st = overwrite(c, &rec, &len, 1, s2, 5, NULL);
    assert_non_null(st);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    char want[64];
    snprintf(want, sizeof want, "snapshot %lld", (long long)s3);
    assert_non_null(strstr(floe_status_message(st), want));
    assert_non_null(strstr(floe_status_message(st), "partition cat=a"));
    floe_status_free(st);
    floe_free(rec);

    /* Nothing changed and nothing was left behind. */
    assert_true(ct_current(c) == s3);
    assert_int_equal(ct_count_avro(c), avro);
    assert_int_equal(ct_read_rows(c, -1, NULL), 15);

    /* The same overwrite based on the newer snapshot is fine. */
    rec = ct_write(c, "a-new2", 100, 1, "a", 0, &len);
    assert_ok(overwrite(c, &rec, &len, 1, s3, 0, NULL));
    floe_free(rec);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 6);
    assert_int_equal(sum, 10 + 11 + 12 + 20 + 21 + 100);
    floe_catalog_close(other);
    floe_catalog_close(c);
}

static void unpartitioned_overwrite_conflicts_with_any_append(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("ow_conflict_unpart", CT_UNPARTITIONED, 2);
    size_t len;
    int64_t base = ct_append(c, "f0", 0, 4, "a", 0);
    ct_append(c, "f1", 4, 4, "b", 0);
    uint8_t *rec = ct_write(c, "new", 50, 2, "z", 0, &len);
    assert_error(overwrite(c, &rec, &len, 1, base, 0, NULL), FLOE_ERR_CONFLICT, "(unpartitioned)");
    /* A base that is not an ancestor (never existed) conflicts too. */
    assert_error(overwrite(c, &rec, &len, 1, 12345, 0, NULL), FLOE_ERR_CONFLICT, "no longer an ancestor");
    floe_free(rec);
    assert_int_equal(ct_read_rows(c, -1, NULL), 8);
    floe_catalog_close(c);
}

static void losing_overwrite_retries_and_keeps_the_winners_rows(void **state) {
    (void)state;
    int64_t s1, s2;
    floe_catalog *c = three_partitions("ow_retry", 2, &s1, &s2);
    floe_catalog *other = NULL;
    assert_ok(floe_catalog_open_sqlite(floe_catalog_warehouse(c), &other));
    size_t len;
    uint8_t *rec = ct_write(c, "a-new", 100, 2, "a", 0, &len);

    /* Prepare on s2, let another writer append to cat=b first: the swap
     * loses.  The retry through the catalog rebuilds on the winner. */
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_table_metadata *md = NULL;
    floe_ice_append_files w;
    assert_ok(floe_ice_tm_replace_partitions_snapshot(t, (const uint8_t *const *)&rec, &len, 1, s2, NULL, 0, &md, &w));
    assert_int_equal(w.n_rewritten, 2);
    ct_append(other, "b-late", 40, 3, "b", 0);
    int avro = ct_count_avro(c);
    assert_error(floe_catalog_commit(c, "db", "t", t->metadata_location, md, NULL), FLOE_ERR_CONFLICT, "");
    floe_ice_append_files_discard(t, &w);
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);
    assert_int_equal(ct_count_avro(c), avro - 4); /* manifest, two rewrites, list */

    int64_t s4 = -1;
    assert_ok(overwrite(c, &rec, &len, 1, s2, 3, &s4));
    floe_free(rec);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 3 + 3 + 2 + 2);
    assert_int_equal(sum, 10 + 11 + 12 + 40 + 41 + 42 + 20 + 21 + 100 + 101);
    floe_catalog_close(other);
    floe_catalog_close(c);
}

/* One thread replaces cat=a while others append to cat=b: every append
 * and the overwrite land (the overwrite retrying as needed), and no
 * losing attempt leaves a file behind. */
#define N_APPENDERS 2
#define N_APPENDS 3

typedef struct racer {
    floe_catalog *c;
    uint8_t *recs[N_APPENDS];
    size_t lens[N_APPENDS];
    int n;
    int64_t base;
    bool overwrite;
    floe_status st;
} racer;

static void *race(void *arg) {
    racer *r = arg;
    for (int i = 0; i < r->n && !r->st; i++) {
        if (r->overwrite)
            r->st = overwrite(r->c, &r->recs[i], &r->lens[i], 1, r->base, 50, NULL);
        else
            r->st = floe_catalog_append(r->c, "db", "t", (const uint8_t *const *)&r->recs[i], &r->lens[i], 1, NULL, 0,
                                        50, NULL);
    }
    return NULL;
}

static void overwrite_racing_appends_to_other_partitions_all_land(void **state) {
    (void)state;
    int64_t s1, s2;
    floe_catalog *c = three_partitions("ow_race", 2, &s1, &s2);
    racer r[N_APPENDERS + 1];
    memset(r, 0, sizeof r);
    int64_t want = 10 + 11 + 12 + 20 + 21 + 1000;
    for (int k = 0; k <= N_APPENDERS; k++) {
        assert_ok(floe_catalog_open_sqlite(floe_catalog_warehouse(c), &r[k].c));
        r[k].base = s2;
        if (k == N_APPENDERS) {
            r[k].overwrite = true;
            r[k].n = 1;
            r[k].recs[0] = ct_write(c, "a-new", 1000, 1, "a", 0, &r[k].lens[0]);
            continue;
        }
        r[k].n = N_APPENDS;
        for (int i = 0; i < N_APPENDS; i++) {
            char tag[32];
            snprintf(tag, sizeof tag, "b-%d-%d", k, i);
            int64_t id = 300 + 10 * k + i;
            r[k].recs[i] = ct_write(c, tag, id, 1, "b", 0, &r[k].lens[i]);
            want += id;
        }
    }
    pthread_t th[N_APPENDERS + 1];
    for (int k = 0; k <= N_APPENDERS; k++) assert_int_equal(pthread_create(&th[k], NULL, race, &r[k]), 0);
    for (int k = 0; k <= N_APPENDERS; k++) assert_int_equal(pthread_join(th[k], NULL), 0);
    for (int k = 0; k <= N_APPENDERS; k++) {
        assert_ok(r[k].st);
        free_recs(r[k].recs, r[k].n);
        floe_catalog_close(r[k].c);
    }
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 3 + 2 + 1 + N_APPENDERS * N_APPENDS);
    assert_int_equal(sum, want);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_int_equal(t->md->n_snapshots, 2 + 1 + N_APPENDERS * N_APPENDS);
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

static void v1_table_overwrite_rewrites_v1_manifests(void **state) {
    (void)state;
    int64_t s1, s2;
    floe_catalog *c = three_partitions("ow_v1", 1, &s1, &s2);
    size_t len;
    uint8_t *rec = ct_write(c, "b-new", 500, 2, "b", 0, &len);
    int64_t s3 = -1;
    assert_ok(overwrite(c, &rec, &len, 1, s2, 0, &s3));
    floe_free(rec);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 12);
    assert_int_equal(sum, 0 + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 20 + 21 + 500 + 501);
    assert_int_equal(ct_read_rows(c, s2, NULL), 13);
    ct_manifests cm;
    ct_manifests_load(c, &cm);
    assert_int_equal(cm.t->md->format_version, 1);
    /* New manifest, s2's manifest kept, s1's rewritten (b0 deleted). */
    assert_int_equal(cm.n, 3);
    assert_true(cm.mfs[1].added_snapshot_id == s2);
    assert_true(cm.mfs[2].added_snapshot_id == s3);
    int deleted = 0;
    for (size_t k = 0; k < cm.m[2]->n_entries; k++) {
        const floe_ice_manifest_entry *e = &cm.m[2]->entries[k];
        if (e->status == FLOE_ICE_STATUS_DELETED) {
            deleted++;
            assert_true(e->snapshot_id == s3);
        } else {
            assert_int_equal(e->status, FLOE_ICE_STATUS_EXISTING);
            assert_true(e->snapshot_id == s1);
        }
    }
    assert_int_equal(deleted, 1);
    assert_string_equal(ct_summary(floe_ice_tm_current_snapshot(cm.t->md), "total-records"), "12");
    ct_manifests_free(&cm);
    floe_catalog_close(c);
}

static void empty_overwrite_commits_nothing_and_v3_takes_row_ids(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("ow_empty", CT_CAT, 2);
    int64_t sid = 7;
    assert_ok(floe_catalog_replace_partitions(c, "db", "t", NULL, NULL, 0, -1, NULL, 0, 0, &sid));
    assert_int_equal(sid, -1);
    assert_int_equal(ct_current(c), -1);
    /* An overwrite of an empty table is an append. */
    size_t len;
    uint8_t *rec = ct_write(c, "a", 0, 3, "a", 0, &len);
    assert_ok(overwrite(c, &rec, &len, 1, -1, 0, &sid));
    floe_free(rec);
    assert_true(sid > 0);
    assert_int_equal(ct_read_rows(c, -1, NULL), 3);
    floe_catalog_close(c);

    /* v3: the overwrite takes row ids (next-row-id advances by the new
     * data manifest's rows). */
    c = ct_setup("ow_v3", CT_CAT, 3);
    rec = ct_write(c, "a", 0, 3, "a", 0, &len);
    assert_ok(overwrite(c, &rec, &len, 1, -1, 0, &sid));
    floe_free(rec);
    assert_int_equal(ct_read_rows(c, -1, NULL), 3);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_int_equal(t->md->next_row_id, 3);
    assert_int_equal(floe_ice_tm_current_snapshot(t->md)->first_row_id, 0);
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

static void manifests_go_to_write_metadata_path(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("ow_metadata_path", CT_CAT, 2);
    char dir[1200], cmd[1300];
    snprintf(dir, sizeof dir, "%s/elsewhere/meta/", floe_catalog_warehouse(c));
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const char *kv[2] = {"write.metadata.path", dir};
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_set_properties(t->md, kv, 1, &md));
    assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, md, NULL));
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);

    ct_append(c, "a0", 0, 3, "a", 0);
    ct_append(c, "b0", 10, 3, "b", 0);
    size_t len;
    uint8_t *rec = ct_write(c, "a-new", 100, 1, "a", 0, &len);
    assert_ok(overwrite(c, &rec, &len, 1, -1, 0, NULL));
    floe_free(rec);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 4);
    assert_int_equal(sum, 10 + 11 + 12 + 100);
    ct_manifests cm;
    ct_manifests_load(c, &cm);
    size_t dl = strlen(dir) - 1; /* without the trailing '/' */
    const char *list = floe_ice_tm_current_snapshot(cm.t->md)->manifest_list;
    assert_int_equal(strncmp(list, dir, dl), 0);
    assert_int_equal(list[dl], '/');
    assert_null(strstr(list + dl, "//"));
    for (size_t i = 0; i < cm.n; i++) assert_int_equal(strncmp(cm.mfs[i].manifest_path, dir, dl), 0);
    ct_manifests_free(&cm);
    floe_catalog_close(c);
}

/* python3-avro (when installed) reads the rewritten manifests: DELETED
 * entries are status 2 with the overwrite's snapshot id. */
static void python_avro_reads_rewritten_manifests(void **state) {
    (void)state;
    if (system("/usr/bin/python3 -c 'import avro' >/dev/null 2>&1") != 0) skip();
    int64_t s1, s2;
    floe_catalog *c = three_partitions("ow_pyavro", 2, &s1, &s2);
    size_t len;
    uint8_t *rec = ct_write(c, "a-new", 100, 3, "a", 0, &len);
    int64_t s3 = -1;
    assert_ok(overwrite(c, &rec, &len, 1, s2, 0, &s3));
    floe_free(rec);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(t->md);
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -W ignore -c '\n"
             "import avro.datafile, avro.io, sys\n"
             "def rd(p): return list(avro.datafile.DataFileReader(open(p, \"rb\"), avro.io.DatumReader()))\n"
             "lst = rd(sys.argv[1]); sid = int(sys.argv[2])\n"
             "assert len(lst) == 3, lst\n"
             "st = {}\n"
             "for m in lst:\n"
             "    assert m[\"added_snapshot_id\"] == sid, m\n"
             "    for e in rd(m[\"manifest_path\"]):\n"
             "        k = (e[\"status\"], e[\"data_file\"][\"partition\"][\"cat\"])\n"
             "        st[k] = st.get(k, 0) + 1\n"
             "        if e[\"status\"] == 2: assert e[\"snapshot_id\"] == sid and e[\"sequence_number\"] in (1, 2), e\n"
             "        if e[\"status\"] == 0: assert e[\"sequence_number\"] in (1, 2) and e[\"file_sequence_number\"] is not None, e\n"
             "assert st == {(1, \"a\"): 1, (2, \"a\"): 2, (0, \"b\"): 1, (0, \"c\"): 1}, st\n"
             "' '%s' %lld",
             s->manifest_list, (long long)s3);
    assert_int_equal(system(cmd), 0);
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

FLOE_TEST_MAIN(cmocka_unit_test(overwrite_replaces_only_the_written_partitions),
               cmocka_unit_test(manifests_that_cannot_hold_the_partition_are_not_read),
               cmocka_unit_test(two_field_spec_replaces_exact_tuples_only),
               cmocka_unit_test(unpartitioned_overwrite_replaces_everything),
               cmocka_unit_test(concurrent_append_into_a_replaced_partition_conflicts),
               cmocka_unit_test(unpartitioned_overwrite_conflicts_with_any_append),
               cmocka_unit_test(losing_overwrite_retries_and_keeps_the_winners_rows),
               cmocka_unit_test(overwrite_racing_appends_to_other_partitions_all_land),
               cmocka_unit_test(v1_table_overwrite_rewrites_v1_manifests),
               cmocka_unit_test(empty_overwrite_commits_nothing_and_v3_takes_row_ids),
               cmocka_unit_test(manifests_go_to_write_metadata_path),
               cmocka_unit_test(python_avro_reads_rewritten_manifests))
