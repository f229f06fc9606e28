/* Format version 3 commits: row lineage and deletion vectors.
 *   - appends: each snapshot's first-row-id is the table's next-row-id,
 *     its new data manifest gets that first_row_id in the list (existing
 *     manifests keep theirs), added-rows counts its rows, next-row-id
 *     advances; _row_id reads as first_row_id + _pos, distinct across
 *     appends, _last_updated_sequence_number as the data sequence number;
 *   - a copy-on-write rewrite: the rewritten manifest and the new one get
 *     fresh ids, the EXISTING entries keep the ids they inherited;
 *   - a table upgraded from v2: the first v3 commit assigns ids to the old
 *     manifests too;
 *   - DVs (floe_ice_dv_serialize + the Puffin writer) hide their rows; a
 *     second DV for the same data file replaces the first in the same
 *     commit (one live DV per file), as it does a v2 position delete file
 *     scoped to that file; Parquet position deletes are refused. */
#include "table_commit_util.h"

#include <jansson.h>

#include "floe/iceberg_deletes.h"
#include "floe/iceberg_metadata_columns.h"
#include "iceberg/update/table_update_internal.h"

/* The current snapshot's rows as (id, _row_id, _last_updated_sequence_number),
 * sorted by id, NULL as -1; returns the count. */
typedef struct lineage_row {
    int64_t id, row_id, seq;
} lineage_row;

static int cmp_row(const void *a, const void *b) {
    const lineage_row *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static int read_lineage(floe_catalog *c, lineage_row *out, int cap) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_scan_options so;
    floe_ice_scan_options_init(&so);
    floe_ice_snapshot_selector sel = {FLOE_ICE_SELECT_CURRENT, 0, NULL, 0};
    floe_ice_scan_plan *p = NULL;
    assert_ok(floe_ice_scan_plan_new(t, &sel, NULL, 0, NULL, &so, &p));
    static const int32_t ids[3] = {1, FLOE_ICE_MD_ROW_ID_ID, FLOE_ICE_MD_LAST_UPDATED_SEQ_ID};
    floe_ice_task_read_options ro = {t, floe_ice_tm_current_schema(t->md), ids, 3, 0};
    int n = 0;
    for (int32_t g = 0; g < p->n_groups; g++)
        for (int32_t k = 0; k < p->groups[g]->n_tasks; k++) {
            floe_ice_task_reader *r = NULL;
            assert_ok(floe_ice_task_reader_open(&ro, &p->groups[g]->tasks[k], &r));
            for (;;) {
                floe_batch *b = NULL;
                assert_ok(floe_ice_task_reader_next(r, &b));
                if (!b) break;
                const int64_t *v[3];
                for (int col = 0; col < 3; col++) v[col] = (const int64_t *)floe_array_values(b->columns[col]);
                for (int64_t i = 0; i < b->num_rows; i++) {
                    assert_true(n < cap);
                    /* NULL (no lineage) reads as -1 */
                    int64_t x[3];
                    for (int col = 0; col < 3; col++) x[col] = floe_array_is_null(b->columns[col], i) ? -1 : v[col][i];
                    out[n++] = (lineage_row){x[0], x[1], x[2]};
                }
                floe_batch_release(b);
            }
            floe_ice_task_reader_close(r);
        }
    floe_ice_scan_plan_free(p);
    floe_ice_table_free(t);
    qsort(out, (size_t)n, sizeof *out, cmp_row);
    return n;
}

static int64_t next_row_id(floe_catalog *c) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_true(t->md->has_next_row_id);
    int64_t n = t->md->next_row_id;
    floe_ice_table_free(t);
    return n;
}

/* A DV of data file `target` deleting positions pos[0..n) (ascending) in a
 * new Puffin file <location>/data/<tag>.puffin, as a data_file record. */
static uint8_t *write_dv(floe_catalog *c, const char *tag, const char *target, const int64_t *pos, int n,
                         size_t *len) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    char path[2048];
    snprintf(path, sizeof path, "%s/data/%s.puffin", t->md->location, tag);
    uint8_t *blob = NULL;
    size_t blob_len = 0;
    assert_ok(floe_ice_dv_serialize(pos, (size_t)n, &blob, &blob_len));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_ice_puffin_writer *w = NULL;
    assert_ok(floe_ice_puffin_writer_open(out, &w));
    static const int32_t fields[1] = {FLOE_ICE_MD_POS_ID};
    const char *keys[2] = {"referenced-data-file", "cardinality"};
    char card[32];
    snprintf(card, sizeof card, "%d", n);
    const char *vals[2] = {target, card};
    floe_ice_puffin_blob_spec spec = {FLOE_ICE_PUFFIN_DV_BLOB, fields, 1, -1, -1, NULL, 2, keys, vals};
    int64_t off = -1, blen = -1;
    assert_ok(floe_ice_puffin_writer_add(w, &spec, blob, blob_len, &off, &blen));
    assert_ok(floe_ice_puffin_writer_finish(w, false));
    int64_t size = (int64_t)out->bytes_written;
    assert_ok(floe_output_close(out));
    floe_free(blob);

    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.content = FLOE_ICE_CONTENT_POSITION_DELETES;
    df.file_path = path;
    df.file_format = "PUFFIN";
    df.record_count = n;
    df.file_size_in_bytes = size;
    df.referenced_data_file = target;
    df.has_content_offset = true;
    df.content_offset = off;
    df.has_content_size_in_bytes = true;
    df.content_size_in_bytes = blen;
    const floe_ice_partition_spec *ps = floe_ice_tm_default_spec(t->md);
    floe_ice_type *ptype = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(ps, floe_ice_tm_current_schema(t->md), false, &ptype));
    floe_ice_value part[4];
    for (int32_t k = 0; k < ps->n_fields && k < 4; k++) part[k] = floe_ice_null(ptype->fields[k].type->id);
    df.n_partition = ps->n_fields;
    df.partition = part;
    floe_ice_data_file_codec *codec = NULL;
    assert_ok(floe_ice_data_file_codec_new(ptype, t->md->format_version, &codec));
    uint8_t *bytes = NULL;
    assert_ok(floe_ice_data_file_encode(codec, &df, &bytes, len));
    floe_ice_data_file_codec_free(codec);
    floe_ice_type_free(ptype);
    floe_ice_table_free(t);
    return bytes;
}

static void appends_assign_row_ids(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("v3_append", CT_CAT, 3);
    assert_int_equal(next_row_id(c), 0);
    int64_t s1 = ct_append(c, "a0", 0, 5, "a", 0);
    assert_int_equal(next_row_id(c), 5);
    size_t lens[2];
    uint8_t *recs[2] = {ct_write(c, "b0", 10, 3, "b", 0, &lens[0]), ct_write(c, "b1", 20, 2, "b", 0, &lens[1])};
    int64_t s2 = -1;
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)recs, lens, 2, NULL, 0, 0, &s2));
    for (int i = 0; i < 2; i++) floe_free(recs[i]);
    assert_int_equal(next_row_id(c), 10);

    ct_manifests cm;
    ct_manifests_load(c, &cm);
    const floe_ice_snapshot *a = floe_ice_tm_snapshot(cm.t->md, s1), *b = floe_ice_tm_snapshot(cm.t->md, s2);
    assert_true(a->has_first_row_id && a->has_added_rows && b->has_first_row_id && b->has_added_rows);
    assert_int_equal(a->first_row_id, 0);
    assert_int_equal(a->added_rows, 5);
    assert_int_equal(b->first_row_id, 5);
    assert_int_equal(b->added_rows, 5);
    assert_int_equal(cm.n, 2);
    for (size_t i = 0; i < cm.n; i++) {
        assert_true(cm.mfs[i].has_first_row_id);
        assert_int_equal(cm.mfs[i].first_row_id, cm.mfs[i].added_snapshot_id == s1 ? 0 : 5);
        /* The entries inherit: none carries its own. */
        for (size_t k = 0; k < cm.m[i]->n_entries; k++) assert_true(cm.m[i]->entries[k].file.has_first_row_id);
    }
    ct_manifests_free(&cm);

    lineage_row r[16];
    assert_int_equal(read_lineage(c, r, 16), 10);
    for (int i = 0; i < 5; i++) assert_true(r[i].id == i && r[i].row_id == i && r[i].seq == 1);
    /* b0 then b1 in the second manifest: 5 + pos, then 8 + pos. */
    for (int i = 0; i < 3; i++) assert_true(r[5 + i].id == 10 + i && r[5 + i].row_id == 5 + i && r[5 + i].seq == 2);
    for (int i = 0; i < 2; i++) assert_true(r[8 + i].id == 20 + i && r[8 + i].row_id == 8 + i && r[8 + i].seq == 2);
    floe_catalog_close(c);
}

/* A copy-on-write rewrite of a0 in a manifest that also holds a1: the
 * rewritten manifest (a1 EXISTING with its inherited id) and the new data
 * manifest get fresh first_row_ids; the ids of a1's rows do not change. */
static void rewrites_keep_inherited_ids(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("v3_rewrite", CT_CAT, 3);
    size_t lens[2];
    uint8_t *recs[2] = {ct_write(c, "a0", 0, 4, "a", 0, &lens[0]), ct_write(c, "a1", 10, 2, "a", 0, &lens[1])};
    int64_t s1 = -1;
    assert_ok(floe_catalog_append(c, "db", "t", (const uint8_t *const *)recs, lens, 2, NULL, 0, 0, &s1));
    for (int i = 0; i < 2; i++) floe_free(recs[i]);
    char a0[2048];
    ct_data_path(c, "a0", a0, sizeof a0);
    const int64_t keep[2] = {1, 3};
    size_t len = 0;
    uint8_t *rec = ct_write_ids(c, "a0-cow", keep, 2, "a", 0, &len);
    const char *rm[1] = {a0};
    floe_row_delta d = ct_delta(&rec, &len, 1, NULL, NULL, 0, rm, 1, s1);
    int64_t s2 = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &s2));
    floe_free(rec);
    /* new manifest 2 rows at 6, rewritten manifest (2 existing) at 8. */
    assert_int_equal(next_row_id(c), 10);
    ct_manifests cm;
    ct_manifests_load(c, &cm);
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(cm.t->md);
    assert_int_equal(s->first_row_id, 6);
    assert_int_equal(s->added_rows, 4);
    assert_int_equal(cm.n, 2);
    assert_int_equal(cm.mfs[0].first_row_id, 6);
    assert_int_equal(cm.mfs[1].first_row_id, 8);
    ct_manifests_free(&cm);
    lineage_row r[8];
    assert_int_equal(read_lineage(c, r, 8), 4);
    assert_true(r[0].id == 1 && r[0].row_id == 6 && r[0].seq == 2);
    assert_true(r[1].id == 3 && r[1].row_id == 7 && r[1].seq == 2);
    assert_true(r[2].id == 10 && r[2].row_id == 4 && r[2].seq == 1);
    assert_true(r[3].id == 11 && r[3].row_id == 5 && r[3].seq == 1);
    floe_catalog_close(c);
}

/* Make db.t format version 3 as an upgrade does: next-row-id 0, the old
 * snapshots left without row ids. */
static void upgrade_to_v3(floe_catalog *c) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    json_t *root = NULL;
    assert_ok(floe_ice_tm_edit_begin(t->md, &root));
    assert_int_equal(json_object_set_new(root, "format-version", json_integer(3)), 0);
    assert_int_equal(json_object_set_new(root, "next-row-id", json_integer(0)), 0);
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_edit_finish(t->md, root, &md));
    assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, md, NULL));
    floe_ice_table_metadata_free(md);
    floe_ice_table_free(t);
}

/* DVs: one hides its rows; a second for the same file replaces it; in a
 * table upgraded from v2 a DV replaces the v2 position delete file of its
 * data file (and the first v3 commit gives the old manifests row ids);
 * Parquet position deletes and two DVs for one file are refused. */
static void deletion_vectors_replace_older_deletes(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("v3_dv", CT_CAT, 2);
    int64_t s1 = ct_append(c, "a0", 0, 6, "a", 0);
    char a0[2048];
    ct_data_path(c, "a0", a0, sizeof a0);
    const int64_t p_v2[1] = {5};
    size_t len = 0;
    uint8_t *del = ct_write_pos_deletes(c, "v2-del", a0, p_v2, 1, CT_REF_FIELD, &len);
    floe_row_delta d = ct_delta(NULL, NULL, 0, &del, &len, 1, NULL, 0, s1);
    int64_t s2 = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &s2));
    assert_int_equal(ct_read_rows(c, -1, NULL), 5);
    upgrade_to_v3(c);
    int64_t s3 = ct_append(c, "b0", 10, 3, "b", 0);
    /* The first v3 commit numbered a0's manifest (6 rows) after b0's. */
    assert_int_equal(next_row_id(c), 9);
    lineage_row r[8];
    assert_int_equal(read_lineage(c, r, 8), 8);
    for (int i = 0; i < 5; i++) assert_true(r[i].id == i && r[i].row_id == 3 + i && r[i].seq == 1);
    for (int i = 0; i < 3; i++) assert_true(r[5 + i].id == 10 + i && r[5 + i].row_id == i && r[5 + i].seq == 3);

    floe_free(del);

    /* A Parquet position delete file is refused in v3. */
    del = ct_write_pos_deletes(c, "v3-del", a0, p_v2, 1, CT_REF_FIELD, &len);
    d = ct_delta(NULL, NULL, 0, &del, &len, 1, NULL, 0, s3);
    assert_error(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "must be deletion vectors");
    floe_free(del);

    /* DV 1 of a0 (the v2 file's row 5 merged in) and of b0. */
    const int64_t pa[3] = {0, 2, 5}, pb[1] = {1};
    size_t dl[2];
    uint8_t *dvs[2] = {write_dv(c, "dv-a0-1", a0, pa, 3, &dl[0]), NULL};
    char b0[2048];
    ct_data_path(c, "b0", b0, sizeof b0);
    dvs[1] = write_dv(c, "dv-b0-1", b0, pb, 1, &dl[1]);
    d = ct_delta(NULL, NULL, 0, dvs, dl, 2, NULL, 0, s3);
    int64_t s4 = -1;
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, &s4));
    for (int i = 0; i < 2; i++) floe_free(dvs[i]);
    int64_t sum = 0;
    assert_int_equal(ct_read_rows(c, -1, &sum), 5);
    assert_int_equal(sum, 1 + 3 + 4 + 10 + 12);
    ct_manifests cm;
    ct_manifests_load(c, &cm);
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(cm.t->md);
    assert_string_equal(s->operation, "delete");
    assert_string_equal(ct_summary(s, "added-dvs"), "2");
    assert_string_equal(ct_summary(s, "added-delete-files"), "2");
    assert_string_equal(ct_summary(s, "added-position-deletes"), "4");
    assert_null(ct_summary(s, "added-position-delete-files"));
    assert_string_equal(ct_summary(s, "removed-position-delete-files"), "1");
    assert_string_equal(ct_summary(s, "removed-delete-files"), "1");
    assert_string_equal(ct_summary(s, "total-delete-files"), "2");
    assert_string_equal(ct_summary(s, "total-position-deletes"), "4");
    assert_true(s->has_first_row_id);
    int live = 0;
    for (size_t i = 0; i < cm.n; i++) {
        if (cm.mfs[i].content == FLOE_ICE_MANIFEST_DELETES) assert_false(cm.mfs[i].has_first_row_id);
        for (size_t k = 0; k < cm.m[i]->n_entries; k++) {
            const floe_ice_manifest_entry *e = &cm.m[i]->entries[k];
            if (e->file.content == FLOE_ICE_CONTENT_DATA || e->status == FLOE_ICE_STATUS_DELETED) continue;
            assert_string_equal(e->file.file_format, "PUFFIN");
            assert_false(e->file.has_first_row_id);
            live++;
        }
    }
    assert_int_equal(live, 2);
    ct_manifests_free(&cm);

    /* DV 2 of a0: the union of what DV 1 held and row 3. */
    const int64_t pa2[4] = {0, 2, 3, 5};
    uint8_t *dv2 = write_dv(c, "dv-a0-2", a0, pa2, 4, &len);
    d = ct_delta(NULL, NULL, 0, &dv2, &len, 1, NULL, 0, s4);
    assert_ok(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL));
    assert_int_equal(ct_read_rows(c, -1, &sum), 4);
    assert_int_equal(sum, 1 + 4 + 10 + 12);
    ct_manifests_load(c, &cm);
    s = floe_ice_tm_current_snapshot(cm.t->md);
    assert_string_equal(ct_summary(s, "added-dvs"), "1");
    assert_string_equal(ct_summary(s, "removed-dvs"), "1");
    assert_string_equal(ct_summary(s, "total-delete-files"), "2");
    assert_string_equal(ct_summary(s, "total-position-deletes"), "5");
    int dvs_of_a0 = 0;
    for (size_t i = 0; i < cm.n; i++)
        for (size_t k = 0; k < cm.m[i]->n_entries; k++) {
            const floe_ice_manifest_entry *e = &cm.m[i]->entries[k];
            if (e->file.content == FLOE_ICE_CONTENT_DATA || e->status == FLOE_ICE_STATUS_DELETED) continue;
            if (strcmp(e->file.referenced_data_file, a0) == 0) {
                dvs_of_a0++;
                assert_non_null(strstr(e->file.file_path, "dv-a0-2"));
                assert_int_equal(e->file.record_count, 4);
            }
        }
    assert_int_equal(dvs_of_a0, 1);
    ct_manifests_free(&cm);

    /* Two DVs for one file in one change. */
    const int64_t p3[1] = {4};
    uint8_t *two[2] = {dv2, write_dv(c, "dv-a0-3", a0, p3, 1, &dl[1])};
    dl[0] = len;
    d = ct_delta(NULL, NULL, 0, two, dl, 2, NULL, 0, -1);
    assert_error(floe_catalog_row_delta(c, "db", "t", &d, NULL, 0, 0, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "a data file has one DV");
    floe_free(two[0]);
    floe_free(two[1]);
    floe_catalog_close(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(appends_assign_row_ids),
        cmocka_unit_test(rewrites_keep_inherited_ids),
        cmocka_unit_test(deletion_vectors_replace_older_deletes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
