/* The row-level change commit (floe_catalog_row_delta): real Parquet
 * position delete files committed for live data files hide their rows
 * through scan planning and the task reader; each delete file takes the
 * spec and partition of its data file (an old spec's data gets an old-spec
 * delete manifest), a reference and file_path bounds; removed data files
 * go (copy-on-write) with the delete files that applied only to them;
 * files that are not live are conflicts naming them and commit nothing;
 * the summary counts what Java's SnapshotSummary counts. */
#include "table_commit_util.h"

#include "floe/iceberg_expr.h"
#include "iceberg/snapshot/snapshot_producer.h"

#define POS_PATH_ID 2147483546
#define POS_POS_ID 2147483545

/* The path of data file <tag> of db.t (as ct_write names it). */
static void data_path(floe_catalog *c, const char *tag, char *out, size_t cap) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    snprintf(out, cap, "%s/data/%s.parquet", t->md->location, tag);
    floe_ice_table_free(t);
}

typedef enum ref_kind {
    REF_FIELD,   /* referenced_data_file set, no bounds */
    REF_BOUNDS,  /* equal file_path bounds only */
    REF_NONE     /* neither (a partition-scoped file) */
} ref_kind;

/* A Parquet position delete file <location>/data/<tag>.parquet deleting
 * rows pos[0..n) of data file `target`, as a data_file record encoded with
 * the default spec's partition type — its partition all nulls, which the
 * commit must replace with the target's. */
static uint8_t *write_pos_deletes(floe_catalog *c, const char *tag, const char *target, const int64_t *pos, int n,
                                  ref_kind ref, size_t *len) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char path[2048], dir[2100];
    snprintf(path, sizeof path, "%s/data/%s.parquet", t->md->location, tag);
    snprintf(dir, sizeof dir, "mkdir -p '%s/data'", t->md->location);
    assert_int_equal(system(dir), 0);
    floe_field f[2];
    assert_ok(floe_field_init(&f[0], "file_path", floe_type_primitive(FLOE_TYPE_STRING), false, POS_PATH_ID));
    assert_ok(floe_field_init(&f[1], "pos", floe_type_primitive(FLOE_TYPE_INT64), false, POS_POS_ID));
    floe_schema *schema;
    assert_ok(floe_type_struct(f, 2, &schema));
    floe_builder *b[2];
    floe_array *cols[2];
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &b[0]));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), n, &b[1]));
    for (int i = 0; i < n; i++) {
        assert_ok(floe_builder_append_string(b[0], target));
        assert_ok(floe_builder_append_int64(b[1], pos[i]));
    }
    for (int k = 0; k < 2; k++) {
        assert_ok(floe_builder_finish(b[k], &cols[k]));
        floe_builder_free(b[k]);
    }
    floe_batch *batch;
    assert_ok(floe_batch_new(schema, cols, 2, n, &batch));
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
    for (int k = 0; k < 2; k++) {
        floe_array_release(cols[k]);
        floe_field_clear(&f[k]);
    }
    floe_type_release(schema);

    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.content = FLOE_ICE_CONTENT_POSITION_DELETES;
    df.file_path = path;
    df.file_format = "PARQUET";
    df.record_count = res->record_count;
    df.file_size_in_bytes = res->file_size;
    if (ref == REF_FIELD) df.referenced_data_file = target;
    int32_t keys[1] = {POS_PATH_ID};
    const uint8_t *vals[1] = {(const uint8_t *)target};
    uint32_t lens[1] = {(uint32_t)strlen(target)};
    if (ref == REF_BOUNDS) {
        df.lower_bounds = (floe_ice_bound_map){1, keys, vals, lens};
        df.upper_bounds = (floe_ice_bound_map){1, keys, vals, lens};
    }
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(t->md);
    floe_ice_type *ptype = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(spec, floe_ice_tm_current_schema(t->md), false, &ptype));
    floe_ice_value part[4];
    for (int32_t k = 0; k < spec->n_fields && k < 4; k++) part[k] = floe_ice_null(ptype->fields[k].type->id);
    df.n_partition = spec->n_fields;
    df.partition = part;
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

/* A change of n_data added files, n_del delete files and n_rm removed paths. */
static floe_row_delta delta(uint8_t **data, size_t *dlens, int32_t n_data, uint8_t **dels, size_t *del_lens,
                            int32_t n_del, const char **removed, int32_t n_rm, int64_t base) {
    floe_row_delta d;
    memset(&d, 0, sizeof d);
    d.data_files = (const uint8_t *const *)data;
    d.data_lens = dlens;
    d.n_data = n_data;
    d.delete_files = (const uint8_t *const *)dels;
    d.delete_lens = del_lens;
    d.n_deletes = n_del;
    d.removed_paths = (const char *const *)removed;
    d.n_removed = n_rm;
    d.base_snapshot_id = base;
    d.conflict_filter = NULL;
    d.isolation = FLOE_ISOLATION_SERIALIZABLE;
    return d;
}

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
    data_path(c, "a0", a0, sizeof a0);
    data_path(c, "b0", b0, sizeof b0);

    /* Rows 1 and 3 of a0 by reference, row 0 of b0 by bounds only. */
    const int64_t pa[2] = {1, 3}, pb[1] = {0};
    size_t lens[2];
    uint8_t *dels[2] = {write_pos_deletes(c, "del-a0", a0, pa, 2, REF_FIELD, &lens[0]),
                        write_pos_deletes(c, "del-b0", b0, pb, 1, REF_BOUNDS, &lens[1])};
    floe_row_delta d = delta(NULL, NULL, 0, dels, lens, 2, NULL, 0, s2);
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
        assert_int_equal(f->lower_bounds.keys[0], POS_PATH_ID);
        assert_int_equal(f->upper_bounds.keys[0], POS_PATH_ID);
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
    data_path(c, "old", old_path, sizeof old_path);
    data_path(c, "new", new_path, sizeof new_path);
    const int64_t p_old[2] = {0, 2}, p_new[1] = {1};
    size_t lens[2];
    uint8_t *dels[2] = {write_pos_deletes(c, "del-old", old_path, p_old, 2, REF_FIELD, &lens[0]),
                        write_pos_deletes(c, "del-new", new_path, p_new, 1, REF_FIELD, &lens[1])};
    floe_row_delta d = delta(NULL, NULL, 0, dels, lens, 2, NULL, 0, base);
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
    data_path(c, "a0", a0, sizeof a0);
    data_path(c, "b0", b0, sizeof b0);

    const int64_t keep[3] = {0, 2, 4};
    size_t len = 0;
    uint8_t *rec = ct_write_ids(c, "a0-rewritten", keep, 3, "a", 0, &len);
    const char *rm[1] = {a0};
    floe_row_delta d = delta(&rec, &len, 1, NULL, NULL, 0, rm, 1, s2);
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
    uint8_t *del = write_pos_deletes(c, "del-b0", b0, pb, 1, REF_FIELD, &len);
    d = delta(NULL, NULL, 0, &del, &len, 1, NULL, 0, s3);
    int64_t s4 = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &s4));
    floe_free(del);
    assert_int_equal(ct_read_rows(c, -1, &sum), 5);
    assert_int_equal(sum, 6 + 22);
    const char *rm_b[1] = {b0};
    d = delta(NULL, NULL, 0, NULL, NULL, 0, rm_b, 1, s4);
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
    data_path(c, "a0", a0, sizeof a0);
    data_path(c, "nowhere", gone, sizeof gone);
    int avro = ct_count_avro(c);

    const char *rm[1] = {gone};
    floe_row_delta d = delta(NULL, NULL, 0, NULL, NULL, 0, rm, 1, s1);
    floe_status st = floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 3, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), gone));
    floe_status_free(st);

    const int64_t pos[1] = {0};
    size_t len = 0;
    uint8_t *del = write_pos_deletes(c, "del-gone", gone, pos, 1, REF_FIELD, &len);
    d = delta(NULL, NULL, 0, &del, &len, 1, NULL, 0, s1);
    st = floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 3, NULL);
    assert_int_equal(floe_status_code(st), FLOE_ERR_CONFLICT);
    assert_non_null(strstr(floe_status_message(st), gone));
    floe_status_free(st);
    floe_free(del);

    /* A delete file naming no single data file, and one for a file the
     * same change removes. */
    del = write_pos_deletes(c, "del-none", a0, pos, 1, REF_NONE, &len);
    d = delta(NULL, NULL, 0, &del, &len, 1, NULL, 0, s1);
    assert_error(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "names no single data file");
    floe_free(del);
    del = write_pos_deletes(c, "del-a0", a0, pos, 1, REF_FIELD, &len);
    const char *rm_a[1] = {a0};
    d = delta(NULL, NULL, 0, &del, &len, 1, rm_a, 1, s1);
    assert_error(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "which the same change removes");
    floe_free(del);
    assert_int_equal(ct_current(c), s1);
    assert_int_equal(ct_count_avro(c), avro);

    int64_t sid = 7;
    d = delta(NULL, NULL, 0, NULL, NULL, 0, NULL, 0, s1);
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &sid));
    assert_int_equal(sid, -1);
    assert_int_equal(ct_current(c), s1);
    assert_int_equal(ct_read_rows(c, -1, NULL), 5);
    floe_catalog_close(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(position_deletes_hide_rows),
        cmocka_unit_test(deletes_follow_the_spec_of_their_data),
        cmocka_unit_test(removed_files_and_their_orphan_deletes),
        cmocka_unit_test(files_not_live_and_bad_deletes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
