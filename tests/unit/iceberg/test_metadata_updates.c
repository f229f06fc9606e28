/*
 * test_metadata_updates.c — REST requirements and updates
 * (src/iceberg/rest/metadata_updates.h): for metadata changes made by floe's
 * own producers and by other writers (Spark, PyIceberg), applying
 * diff(base, next) to base gives next; requirements hold against the base
 * and fail (CONFLICT) against a table that moved; malformed updates and
 * requirements are clear errors.
 */
#include "table_commit_util.h"

#include <inttypes.h>

#include <jansson.h>

#include "floe/iceberg_table_update.h"
#include "iceberg/rest/metadata_updates.h"
#include "iceberg/update/table_update_internal.h"

/* ---- helpers ------------------------------------------------------------------ */

/* Set while comparing a rollback: a snapshot-log entry for a snapshot that
 * was not added by the request is stamped with the time it is applied. */
static bool ignore_log_times;

/* The metadata as JSON text without what the committing catalog maintains
 * (last-updated-ms, metadata-log). */
static char *norm(const floe_ice_table_metadata *md) {
    json_t *root = NULL;
    assert_ok(floe_ice_tm_edit_begin(md, &root));
    json_object_del(root, "last-updated-ms");
    json_object_del(root, "metadata-log");
    json_t *log = json_object_get(root, "snapshot-log");
    for (size_t i = 0; ignore_log_times && i < json_array_size(log); i++)
        json_object_del(json_array_get(log, i), "timestamp-ms");
    char *txt = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    assert_non_null(txt);
    return txt;
}

/* diff(base, next), check the requirements against base, apply to base,
 * compare with next.  Returns the updates (caller decrefs), and the
 * requirements through *reqs when not NULL. */
static json_t *round_trip(const floe_ice_table_metadata *base, const floe_ice_table_metadata *next, json_t **reqs) {
    json_t *r = NULL, *u = NULL;
    assert_ok(floe_ice_md_diff(base, next, &r, &u));
    assert_true(json_is_array(r));
    assert_true(json_is_array(u));
    assert_ok(floe_ice_md_check_requirements(base, r));
    floe_ice_table_metadata *got = NULL;
    assert_ok(floe_ice_md_apply_updates(base, u, &got));
    char *a = norm(next), *b = norm(got);
    if (strcmp(a, b) != 0) {
        char *ut = json_dumps(u, JSON_INDENT(1));
        fprintf(stderr, "apply(diff) differs from next\n next: %s\n got:  %s\n updates: %s\n", a, b, ut);
        free(ut);
        fail_msg("apply(diff) differs from next");
    }
    free(a);
    free(b);
    floe_ice_table_metadata_free(got);
    if (reqs) *reqs = r;
    else json_decref(r);
    return u;
}

static json_t *jparse(const char *text) {
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    if (!j) fail_msg("bad test JSON: %s: %s", err.text, text);
    return j;
}

/* Number of updates with `action`. */
static int count_action(json_t *updates, const char *action) {
    int n = 0;
    for (size_t i = 0; i < json_array_size(updates); i++) {
        const char *a = json_string_value(json_object_get(json_array_get(updates, i), "action"));
        if (a && strcmp(a, action) == 0) n++;
    }
    return n;
}

/* The requirement of `type` (and for assert-ref-snapshot-id, of `ref`), or NULL. */
static json_t *find_req(json_t *reqs, const char *type, const char *ref) {
    for (size_t i = 0; i < json_array_size(reqs); i++) {
        json_t *r = json_array_get(reqs, i);
        if (strcmp(json_string_value(json_object_get(r, "type")), type) != 0) continue;
        if (ref && strcmp(json_string_value(json_object_get(r, "ref")), ref) != 0) continue;
        return r;
    }
    return NULL;
}

static floe_ice_table_metadata *new_table(int format_version) {
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(CT_SCHEMA, &s));
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_ice_partition_spec_new(0, &spec));
    assert_ok(floe_ice_partition_spec_add(spec, 2, 1000, "cat", floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0)));
    const char *props[] = {"owner", "test", "write.format.default", "parquet"};
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_new(s, spec, NULL, "/tmp/floe-md-updates/t", props, 2, format_version, &md));
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(s);
    return md;
}

/* Apply `updates_text` to md; the error it must give. */
static void expect_apply_error(const floe_ice_table_metadata *md, const char *updates_text, floe_code code,
                               const char *needle) {
    json_t *u = jparse(updates_text);
    floe_ice_table_metadata *out = NULL;
    assert_error(floe_ice_md_apply_updates(md, u, &out), code, needle);
    assert_null(out);
    json_decref(u);
}

static void expect_requirement_error(const floe_ice_table_metadata *md, const char *reqs_text, floe_code code,
                                     const char *needle) {
    json_t *r = jparse(reqs_text);
    assert_error(floe_ice_md_check_requirements(md, r), code, needle);
    json_decref(r);
}

/* ---- floe's own changes ---------------------------------------------------------- */

static void schema_and_property_changes_round_trip(void **state) {
    (void)state;
    for (int fv = 1; fv <= 2; fv++) {
        floe_ice_table_metadata *v0 = new_table(fv), *v1 = NULL, *v2 = NULL, *v3 = NULL, *v4 = NULL, *v5 = NULL;
        floe_ice_type *t = NULL;
        assert_ok(floe_ice_type_new(FLOE_ICE_DOUBLE, &t));
        assert_ok(floe_ice_tm_add_column(v0, NULL, "price", t, false, "the price", &v1));
        floe_ice_type_free(t);
        json_t *reqs = NULL;
        json_t *u = round_trip(v0, v1, &reqs);
        assert_int_equal(count_action(u, "add-schema"), 1);
        /* The schema just added becomes current: -1, as Java sends it. */
        json_t *set = json_array_get(u, 1);
        assert_string_equal(json_string_value(json_object_get(set, "action")), "set-current-schema");
        assert_int_equal(json_integer_value(json_object_get(set, "schema-id")), -1);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(u, 0), "last-column-id")), 4);
        assert_string_equal(json_string_value(json_object_get(find_req(reqs, "assert-table-uuid", NULL), "uuid")),
                            v0->table_uuid);
        assert_int_equal(json_integer_value(json_object_get(find_req(reqs, "assert-last-assigned-field-id", NULL),
                                                            "last-assigned-field-id")), 3);
        assert_int_equal(json_integer_value(json_object_get(find_req(reqs, "assert-current-schema-id", NULL),
                                                            "current-schema-id")), 0);
        assert_null(find_req(reqs, "assert-ref-snapshot-id", NULL));
        json_decref(u);
        json_decref(reqs);

        assert_ok(floe_ice_tm_rename_column(v1, "price", "cost", &v2));
        json_decref(round_trip(v1, v2, NULL));
        assert_ok(floe_ice_tm_drop_column(v2, "ts", &v3));
        json_decref(round_trip(v2, v3, NULL));
        const char *kv[] = {"owner", "someone else", "commit.retry.num-retries", "7"};
        assert_ok(floe_ice_tm_set_properties(v3, kv, 2, &v4));
        u = round_trip(v3, v4, &reqs);
        assert_int_equal(json_array_size(u), 1);
        assert_int_equal(json_array_size(reqs), 1); /* the UUID only */
        json_decref(u);
        json_decref(reqs);
        const char *gone[] = {"write.format.default"};
        assert_ok(floe_ice_tm_remove_properties(v4, gone, 1, &v5));
        u = round_trip(v4, v5, NULL);
        assert_int_equal(count_action(u, "remove-properties"), 1);
        json_decref(u);
        /* Several changes at once: the whole way from v0 to v5. */
        json_decref(round_trip(v0, v5, NULL));
        /* Nothing changed: no updates. */
        u = round_trip(v5, v5, NULL);
        assert_int_equal(json_array_size(u), 0);
        json_decref(u);
        floe_ice_table_metadata *all[] = {v0, v1, v2, v3, v4, v5};
        for (int i = 0; i < 6; i++) floe_ice_table_metadata_free(all[i]);
    }
}

/* Append through floe's producer, check the round trip, commit. */
static floe_ice_table_metadata *append_round_trip(floe_catalog *c, const char *tag, int64_t first, const char *cat,
                                                  json_t **reqs_out) {
    size_t len = 0;
    uint8_t *rec = ct_write(c, tag, first, 3, cat, 1, &len);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_table_metadata *next = NULL;
    floe_ice_append_files w = {0};
    assert_ok(floe_ice_tm_append_snapshot(t, (const uint8_t *const *)&rec, &len, 1, NULL, 0, &next, &w));
    json_t *u = round_trip(t->md, next, reqs_out);
    assert_int_equal(count_action(u, "add-snapshot"), 1);
    assert_int_equal(count_action(u, "set-snapshot-ref"), 1);
    json_decref(u);
    assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, next, NULL));
    floe_ice_append_files_clear(&w);
    floe_ice_table_free(t);
    floe_free(rec);
    return next;
}

static void appends_and_overwrites_round_trip(void **state) {
    (void)state;
    for (int fv = 1; fv <= 2; fv++) {
        floe_catalog *c = ct_setup(fv == 1 ? "mdu_append_v1" : "mdu_append_v2", CT_CAT, fv);
        json_t *reqs = NULL;
        floe_ice_table_metadata *m1 = append_round_trip(c, "a0", 0, "a", &reqs);
        /* First snapshot: main must not exist yet. */
        json_t *r = find_req(reqs, "assert-ref-snapshot-id", "main");
        assert_non_null(r);
        assert_true(json_is_null(json_object_get(r, "snapshot-id")));
        json_decref(reqs);
        floe_ice_table_metadata *m2 = append_round_trip(c, "b0", 10, "b", &reqs);
        r = find_req(reqs, "assert-ref-snapshot-id", "main");
        assert_int_equal(json_integer_value(json_object_get(r, "snapshot-id")), m1->current_snapshot_id);
        json_decref(reqs);

        /* INSERT OVERWRITE of partition a. */
        size_t len = 0;
        uint8_t *rec = ct_write(c, "a1", 20, 2, "a", 2, &len);
        floe_ice_table *t = NULL;
        assert_ok(floe_catalog_load_table(c, "db", "t", &t));
        floe_ice_table_metadata *m3 = NULL;
        floe_ice_append_files w = {0};
        assert_ok(floe_ice_tm_replace_partitions_snapshot(t, (const uint8_t *const *)&rec, &len, 1,
                                                          t->md->current_snapshot_id, NULL, 0, &m3, &w));
        json_t *u = round_trip(t->md, m3, NULL);
        json_t *snap = json_object_get(json_array_get(u, 0), "snapshot");
        assert_string_equal(json_string_value(json_object_get(json_object_get(snap, "summary"), "operation")),
                            "overwrite");
        json_decref(u);
        /* Applied on the server's copy and committed, the table reads as it
         * would have with the producer's own metadata. */
        json_t *rq = NULL;
        assert_ok(floe_ice_md_diff(t->md, m3, &rq, &u));
        floe_ice_table_metadata *applied = NULL;
        assert_ok(floe_ice_md_apply_updates(t->md, u, &applied));
        assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, applied, NULL));
        assert_int_equal(ct_read_rows(c, -1, NULL), 5); /* b's 3 rows + the 2 new a rows */
        json_decref(rq);
        json_decref(u);
        floe_ice_table_metadata_free(applied);
        floe_ice_append_files_clear(&w);
        floe_ice_table_free(t);
        floe_free(rec);

        /* Everything at once: a schema change and a snapshot in one diff. */
        assert_ok(floe_catalog_load_table(c, "db", "t", &t));
        floe_ice_table_metadata *m4 = NULL;
        assert_ok(floe_ice_tm_rename_column(t->md, "cat", "category", &m4));
        json_decref(round_trip(m1, m4, NULL));
        floe_ice_table_metadata_free(m4);
        floe_ice_table_free(t);
        floe_ice_table_metadata_free(m1);
        floe_ice_table_metadata_free(m2);
        floe_ice_table_metadata_free(m3);
        floe_catalog_close(c);
    }
}

static void expired_snapshots_take_their_refs_and_history(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("mdu_expire", CT_UNPARTITIONED, 2);
    floe_ice_table_metadata *m1 = append_round_trip(c, "a0", 0, "a", NULL);
    floe_ice_table_metadata *m2 = append_round_trip(c, "a1", 5, "a", NULL);
    floe_ice_table_metadata *m3 = append_round_trip(c, "a2", 10, "a", NULL);
    char upd[512];
    /* A tag on the first snapshot, then that snapshot removed: the tag
     * goes, and the log loses the entry and everything before it. */
    snprintf(upd, sizeof upd,
             "[{\"action\":\"set-snapshot-ref\",\"ref-name\":\"v1\",\"type\":\"tag\",\"snapshot-id\":%" PRId64 "},"
             "{\"action\":\"remove-snapshots\",\"snapshot-ids\":[%" PRId64 "]}]",
             m1->current_snapshot_id, m1->current_snapshot_id);
    json_t *u = jparse(upd);
    floe_ice_table_metadata *out = NULL;
    assert_ok(floe_ice_md_apply_updates(m3, u, &out));
    json_decref(u);
    assert_int_equal(out->n_snapshots, 2);
    assert_null(floe_ice_tm_ref(out, "v1"));
    assert_int_equal(out->n_snapshot_log, 2);
    assert_int_equal(out->snapshot_log[0].snapshot_id, m2->current_snapshot_id);
    assert_int_equal(out->current_snapshot_id, m3->current_snapshot_id);
    /* The expiry as a diff gives the same. */
    u = round_trip(m3, out, NULL);
    assert_int_equal(count_action(u, "remove-snapshots"), 1);
    json_decref(u);

    /* Removing the current snapshot takes "main" and the current id. */
    snprintf(upd, sizeof upd, "[{\"action\":\"remove-snapshots\",\"snapshot-ids\":[%" PRId64 "]}]",
             m3->current_snapshot_id);
    u = jparse(upd);
    floe_ice_table_metadata *out2 = NULL;
    assert_ok(floe_ice_md_apply_updates(out, u, &out2));
    json_decref(u);
    assert_null(floe_ice_tm_ref(out2, "main"));
    assert_int_equal(out2->current_snapshot_id, FLOE_ICE_NO_SNAPSHOT);
    assert_int_equal(out2->n_snapshot_log, 0);
    floe_ice_table_metadata_free(out2);

    /* A branch and a rollback of main, as updates and back as a diff. */
    snprintf(upd, sizeof upd,
             "[{\"action\":\"set-snapshot-ref\",\"ref-name\":\"dev\",\"type\":\"branch\",\"snapshot-id\":%" PRId64
             ",\"min-snapshots-to-keep\":2,\"max-ref-age-ms\":86400000},"
             "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":\"branch\",\"snapshot-id\":%" PRId64 "}]",
             m3->current_snapshot_id, m2->current_snapshot_id);
    u = jparse(upd);
    assert_ok(floe_ice_md_apply_updates(out, u, &out2));
    json_decref(u);
    const floe_ice_snapshot_ref *dev = floe_ice_tm_ref(out2, "dev");
    assert_non_null(dev);
    assert_int_equal(dev->min_snapshots_to_keep, 2);
    assert_int_equal(dev->max_ref_age_ms, 86400000);
    assert_int_equal(out2->current_snapshot_id, m2->current_snapshot_id);
    assert_int_equal(out2->snapshot_log[out2->n_snapshot_log - 1].snapshot_id, m2->current_snapshot_id);
    json_t *reqs = NULL;
    ignore_log_times = true;
    u = round_trip(out, out2, &reqs);
    ignore_log_times = false;
    json_t *r = find_req(reqs, "assert-ref-snapshot-id", "dev");
    assert_non_null(r);
    assert_true(json_is_null(json_object_get(r, "snapshot-id")));
    json_decref(u);
    json_decref(reqs);
    floe_ice_table_metadata_free(out2);

    floe_ice_table_metadata_free(out);
    floe_ice_table_metadata_free(m1);
    floe_ice_table_metadata_free(m2);
    floe_ice_table_metadata_free(m3);
    floe_catalog_close(c);
}

static void specs_orders_location_and_statistics_round_trip(void **state) {
    (void)state;
    floe_ice_table_metadata *v0 = new_table(2);
    json_t *u = jparse(
        "[{\"action\":\"add-spec\",\"spec\":{\"fields\":[{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":3}]}},"
        "{\"action\":\"set-default-spec\",\"spec-id\":-1},"
        "{\"action\":\"add-sort-order\",\"sort-order\":{\"order-id\":1,\"fields\":[{\"transform\":\"identity\","
        "\"source-id\":1,\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}},"
        "{\"action\":\"set-default-sort-order\",\"sort-order-id\":-1},"
        "{\"action\":\"set-location\",\"location\":\"/tmp/floe-md-updates/moved\"},"
        "{\"action\":\"upgrade-format-version\",\"format-version\":3}]");
    floe_ice_table_metadata *v1 = NULL;
    assert_ok(floe_ice_md_apply_updates(v0, u, &v1));
    json_decref(u);
    assert_int_equal(v1->default_spec_id, 1);
    assert_int_equal(v1->last_partition_id, 1001); /* the server assigned the field id */
    assert_int_equal(floe_ice_tm_default_spec(v1)->fields[0].field_id, 1001);
    assert_int_equal(v1->default_sort_order_id, 1);
    assert_string_equal(v1->location, "/tmp/floe-md-updates/moved");
    assert_int_equal(v1->format_version, 3);
    json_t *reqs = NULL;
    u = round_trip(v0, v1, &reqs);
    assert_non_null(find_req(reqs, "assert-last-assigned-partition-id", NULL));
    assert_non_null(find_req(reqs, "assert-default-spec-id", NULL));
    assert_non_null(find_req(reqs, "assert-default-sort-order-id", NULL));
    json_decref(u);
    json_decref(reqs);

    /* Without ids (they are read-only in the OpenAPI), a spec or order the
     * table already has is reused; a new order takes the next id. */
    u = jparse("[{\"action\":\"add-spec\",\"spec\":{\"fields\":[{\"name\":\"cat\",\"transform\":\"identity\","
               "\"source-id\":2}]}},{\"action\":\"set-default-spec\",\"spec-id\":-1},"
               "{\"action\":\"add-sort-order\",\"sort-order\":{\"fields\":[{\"transform\":\"identity\","
               "\"source-id\":1,\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}},"
               "{\"action\":\"add-sort-order\",\"sort-order\":{\"fields\":[{\"transform\":\"identity\","
               "\"source-id\":1,\"direction\":\"desc\",\"null-order\":\"nulls-last\"}]}},"
               "{\"action\":\"set-default-sort-order\",\"sort-order-id\":-1}]");
    floe_ice_table_metadata *reused = NULL;
    assert_ok(floe_ice_md_apply_updates(v1, u, &reused));
    json_decref(u);
    assert_int_equal(reused->n_specs, 2);
    assert_int_equal(reused->default_spec_id, 0);
    assert_int_equal(reused->n_sort_orders, 3);
    assert_int_equal(reused->default_sort_order_id, 2);
    json_decref(round_trip(v1, reused, NULL));
    floe_ice_table_metadata_free(reused);

    /* Statistics ride along with a snapshot (made here by hand). */
    u = jparse("[{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":77,\"sequence-number\":1,"
               "\"timestamp-ms\":1700000000000,\"manifest-list\":\"/tmp/x/snap-77.avro\","
               "\"summary\":{\"operation\":\"append\"},\"schema-id\":0,\"first-row-id\":0,\"added-rows\":5}},"
               "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":\"branch\",\"snapshot-id\":77},"
               "{\"action\":\"set-statistics\",\"statistics\":{\"snapshot-id\":77,\"statistics-path\":\"/tmp/x/s.puffin\","
               "\"file-size-in-bytes\":100,\"file-footer-size-in-bytes\":20,\"blob-metadata\":[{\"type\":"
               "\"apache-datasketches-theta-v1\",\"snapshot-id\":77,\"sequence-number\":1,\"fields\":[1]}]}},"
               "{\"action\":\"set-partition-statistics\",\"partition-statistics\":{\"snapshot-id\":77,"
               "\"statistics-path\":\"/tmp/x/p.parquet\",\"file-size-in-bytes\":50}}]");
    floe_ice_table_metadata *v2 = NULL;
    assert_ok(floe_ice_md_apply_updates(v1, u, &v2));
    json_decref(u);
    assert_int_equal(v2->n_statistics, 1);
    assert_int_equal(v2->n_partition_statistics, 1);
    assert_int_equal(v2->last_sequence_number, 1);
    assert_int_equal(v2->next_row_id, 5);
    assert_int_equal(v2->snapshot_log[0].timestamp_ms, 1700000000000LL); /* the snapshot's own time */
    json_decref(round_trip(v1, v2, NULL));
    /* And away again. */
    u = jparse("[{\"action\":\"remove-statistics\",\"snapshot-id\":77},"
               "{\"action\":\"remove-partition-statistics\",\"snapshot-id\":77}]");
    floe_ice_table_metadata *v3 = NULL;
    assert_ok(floe_ice_md_apply_updates(v2, u, &v3));
    json_decref(u);
    assert_int_equal(v3->n_statistics, 0);
    assert_int_equal(v3->n_partition_statistics, 0);
    json_decref(round_trip(v2, v3, NULL));
    /* A tag dropped on its own. */
    u = jparse("[{\"action\":\"set-snapshot-ref\",\"ref-name\":\"release\",\"type\":\"tag\",\"snapshot-id\":77}]");
    floe_ice_table_metadata *v4 = NULL, *v5 = NULL;
    assert_ok(floe_ice_md_apply_updates(v3, u, &v4));
    json_decref(u);
    u = jparse("[{\"action\":\"remove-snapshot-ref\",\"ref-name\":\"release\"}]");
    assert_ok(floe_ice_md_apply_updates(v4, u, &v5));
    json_decref(u);
    assert_null(floe_ice_tm_ref(v5, "release"));
    assert_int_equal(v5->current_snapshot_id, 77);
    u = round_trip(v4, v5, NULL);
    assert_int_equal(count_action(u, "remove-snapshot-ref"), 1);
    json_decref(u);
    floe_ice_table_metadata_free(v0);
    floe_ice_table_metadata_free(v1);
    floe_ice_table_metadata_free(v2);
    floe_ice_table_metadata_free(v3);
    floe_ice_table_metadata_free(v4);
    floe_ice_table_metadata_free(v5);

    /* v1 -> v2. */
    v0 = new_table(1);
    u = jparse("[{\"action\":\"upgrade-format-version\",\"format-version\":2}]");
    assert_ok(floe_ice_md_apply_updates(v0, u, &v1));
    json_decref(u);
    assert_int_equal(v1->format_version, 2);
    json_decref(round_trip(v0, v1, NULL));
    floe_ice_table_metadata_free(v0);
    floe_ice_table_metadata_free(v1);
}

/* A create transaction: the diff from nothing asserts the table does not
 * exist, and applied to nothing gives the new table. */
static void create_transaction_round_trips(void **state) {
    (void)state;
    for (int fv = 1; fv <= 3; fv++) {
        floe_ice_table_metadata *md = new_table(fv);
        json_t *reqs = NULL;
        json_t *u = round_trip(NULL, md, &reqs);
        assert_int_equal(json_array_size(reqs), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 0), "type")), "assert-create");
        assert_error(floe_ice_md_check_requirements(md, reqs), FLOE_ERR_CONFLICT, "table already exists");
        assert_int_equal(count_action(u, "assign-uuid"), 1);
        assert_int_equal(count_action(u, "upgrade-format-version"), 1);
        json_decref(u);
        json_decref(reqs);
        floe_ice_table_metadata_free(md);
    }
    /* With data already in it (a table registered with its history). */
    floe_catalog *c = ct_setup("mdu_create", CT_CAT, 2);
    floe_ice_table_metadata *m1 = append_round_trip(c, "a0", 0, "a", NULL);
    floe_ice_table_metadata *m2 = append_round_trip(c, "b0", 5, "b", NULL);
    json_decref(round_trip(NULL, m2, NULL));
    floe_ice_table_metadata_free(m1);
    floe_ice_table_metadata_free(m2);
    floe_catalog_close(c);
    /* A create as Java's clients send it, with server-assigned ids and no UUID. */
    json_t *u = jparse("[{\"action\":\"upgrade-format-version\",\"format-version\":2},"
                       "{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,"
                       "\"name\":\"x\",\"required\":false,\"type\":\"int\"}]},\"last-column-id\":1},"
                       "{\"action\":\"set-current-schema\",\"schema-id\":-1},"
                       "{\"action\":\"set-location\",\"location\":\"s3://b/t\"},"
                       "{\"action\":\"set-properties\",\"updates\":{\"owner\":\"me\"}}]");
    floe_ice_table_metadata *out = NULL;
    assert_ok(floe_ice_md_apply_updates(NULL, u, &out));
    json_decref(u);
    assert_int_equal(out->format_version, 2);
    assert_non_null(out->table_uuid);
    assert_int_equal(out->current_schema_id, 0);
    assert_int_equal(out->last_column_id, 1);
    assert_non_null(floe_ice_tm_default_spec(out));
    assert_string_equal(floe_ice_tm_property(out, "owner"), "me");
    floe_ice_table_metadata_free(out);
    expect_apply_error(NULL, "[{\"action\":\"set-location\",\"location\":\"s3://b/t\"}]", FLOE_ERR_INVALID_ARGUMENT,
                       "the updates add no schema");
}

/* ---- requirements --------------------------------------------------------------- */

static void stale_ref_requirement_is_a_conflict(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("mdu_stale", CT_UNPARTITIONED, 2);
    floe_ice_table_metadata *m1 = append_round_trip(c, "a0", 0, "a", NULL);
    /* A writer prepares its append on m1 ... */
    size_t len = 0;
    uint8_t *rec = ct_write(c, "late", 50, 2, "x", 1, &len);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_table_metadata *mine = NULL;
    floe_ice_append_files w = {0};
    assert_ok(floe_ice_tm_append_snapshot(t, (const uint8_t *const *)&rec, &len, 1, NULL, 0, &mine, &w));
    json_t *reqs = NULL, *u = NULL;
    assert_ok(floe_ice_md_diff(t->md, mine, &reqs, &u));
    /* ... another commits first: the requirement no longer holds. */
    floe_ice_table_metadata *m2 = append_round_trip(c, "a1", 10, "a", NULL);
    char buf[160];
    const char *needle = buf;
    snprintf(buf, sizeof buf, "requirement failed: branch main has changed: expected id %" PRId64 " != %" PRId64,
             m1->current_snapshot_id, m2->current_snapshot_id);
    assert_error(floe_ice_md_check_requirements(m2, reqs), FLOE_ERR_CONFLICT, needle);
    assert_ok(floe_ice_md_check_requirements(m1, reqs));
    /* Applying the stale updates anyway would reuse sequence number 2. */
    floe_ice_table_metadata *out = NULL;
    assert_error(floe_ice_md_apply_updates(m2, u, &out), FLOE_ERR_INVALID_ARGUMENT, "sequence number");
    json_decref(reqs);
    json_decref(u);
    floe_ice_append_files_discard(t, &w);
    floe_ice_table_metadata_free(mine);
    floe_ice_table_free(t);
    floe_free(rec);
    floe_ice_table_metadata_free(m1);
    floe_ice_table_metadata_free(m2);
    floe_catalog_close(c);
}

static void failed_requirements_name_what_changed(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2);
    expect_requirement_error(md, "[{\"type\":\"assert-table-uuid\",\"uuid\":\"00000000-0000-4000-8000-000000000000\"}]",
                             FLOE_ERR_CONFLICT, "requirement failed: UUID does not match");
    expect_requirement_error(md, "[{\"type\":\"assert-create\"}]", FLOE_ERR_CONFLICT,
                             "requirement failed: table already exists");
    expect_requirement_error(md, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":5}]",
                             FLOE_ERR_CONFLICT, "branch or tag main is missing, expected 5");
    expect_requirement_error(md, "[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":3}]",
                             FLOE_ERR_CONFLICT, "current schema changed: expected id 3 != 0");
    expect_requirement_error(md, "[{\"type\":\"assert-last-assigned-field-id\",\"last-assigned-field-id\":9}]",
                             FLOE_ERR_CONFLICT, "last assigned field id changed: expected id 9 != 3");
    expect_requirement_error(md, "[{\"type\":\"assert-last-assigned-partition-id\",\"last-assigned-partition-id\":1}]",
                             FLOE_ERR_CONFLICT, "last assigned partition id changed");
    expect_requirement_error(md, "[{\"type\":\"assert-default-spec-id\",\"default-spec-id\":1}]", FLOE_ERR_CONFLICT,
                             "default partition spec changed");
    expect_requirement_error(md, "[{\"type\":\"assert-default-sort-order-id\",\"default-sort-order-id\":1}]",
                             FLOE_ERR_CONFLICT, "default sort order changed");
    /* The table does not exist: only assert-create holds. */
    json_t *r = jparse("[{\"type\":\"assert-create\"}]");
    assert_ok(floe_ice_md_check_requirements(NULL, r));
    json_decref(r);
    char text[200];
    snprintf(text, sizeof text, "[{\"type\":\"assert-table-uuid\",\"uuid\":\"%s\"}]", md->table_uuid);
    expect_requirement_error(NULL, text, FLOE_ERR_CONFLICT, "table does not exist");
    /* The right UUID, in upper case, holds (UUIDs compare case-blind). */
    char upper[40];
    snprintf(upper, sizeof upper, "%s", md->table_uuid);
    for (char *p = upper; *p; p++)
        if (*p >= 'a' && *p <= 'f') *p = (char)(*p - 'a' + 'A');
    snprintf(text, sizeof text, "[{\"type\":\"assert-table-uuid\",\"uuid\":\"%s\"}]", upper);
    r = jparse(text);
    assert_ok(floe_ice_md_check_requirements(md, r));
    json_decref(r);
    /* Malformed requirements are client bugs, not conflicts — even after a failed one. */
    expect_requirement_error(md, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\"}]", FLOE_ERR_INVALID_ARGUMENT,
                             "'snapshot-id' is missing");
    expect_requirement_error(md, "[{\"type\":\"assert-create\"},{\"type\":\"assert-everything\"}]",
                             FLOE_ERR_INVALID_ARGUMENT, "unknown type 'assert-everything'");
    expect_requirement_error(md, "[{\"type\":\"assert-default-spec-id\",\"default-spec-id\":\"0\"}]",
                             FLOE_ERR_INVALID_ARGUMENT, "must be an integer");
    expect_requirement_error(md, "[17]", FLOE_ERR_INVALID_ARGUMENT, "requirement 0: not an object");
    expect_requirement_error(md, "{\"type\":\"assert-create\"}", FLOE_ERR_INVALID_ARGUMENT, "must be an array");
    floe_ice_table_metadata_free(md);
}

/* ---- malformed updates ------------------------------------------------------------ */

static void malformed_updates_are_clear_errors(void **state) {
    (void)state;
    floe_ice_table_metadata *md = new_table(2);
    const floe_code BAD = FLOE_ERR_INVALID_ARGUMENT;
    expect_apply_error(md, "[{\"action\":\"drop-everything\"}]", BAD, "update 0: unknown action 'drop-everything'");
    expect_apply_error(md, "[{\"action\":\"add-view-version\",\"view-version\":{}}]", BAD, "unknown action");
    expect_apply_error(md, "[{\"updates\":{}}]", BAD, "update 0: missing 'action'");
    expect_apply_error(md, "[\"set-location\"]", BAD, "update 0: not an object");
    expect_apply_error(md, "{}", BAD, "'updates' must be an array");
    expect_apply_error(md, "[{\"action\":\"set-location\"}]", BAD, "update 0 (set-location): missing 'location'");
    expect_apply_error(md, "[{\"action\":\"set-properties\",\"updates\":{\"a\":1}}]", BAD,
                       "value of property 'a' must be a string");
    expect_apply_error(md, "[{\"action\":\"remove-properties\",\"removals\":\"a\"}]", BAD, "must be an array");
    expect_apply_error(md, "[{\"action\":\"set-current-schema\",\"schema-id\":-1}]", BAD,
                       "no schema was added in this request");
    expect_apply_error(md, "[{\"action\":\"set-current-schema\",\"schema-id\":4}]", BAD, "schema 4 does not exist");
    expect_apply_error(md, "[{\"action\":\"set-default-spec\",\"spec-id\":2}]", BAD, "partition spec 2 does not exist");
    expect_apply_error(md, "[{\"action\":\"set-default-sort-order\",\"sort-order-id\":-1}]", BAD,
                       "no sort order was added");
    expect_apply_error(md,
                       "[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,"
                       "\"name\":\"x\",\"required\":false,\"type\":\"int\"}]}}]",
                       BAD, "schema id 0 is already in use by a different schema");
    expect_apply_error(md, "[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1}]}}]", BAD,
                       "update 0 (add-schema)");
    expect_apply_error(md, "[{\"action\":\"add-schema\"}]", BAD, "missing 'schema'");
    expect_apply_error(md, "[{\"action\":\"add-spec\",\"spec\":{\"fields\":[{\"name\":\"z\",\"transform\":\"identity\","
                           "\"source-id\":99}]}}]",
                       BAD, "update 0 (add-spec)");
    expect_apply_error(md, "[{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":1}}]", BAD,
                       "missing 'timestamp-ms'");
    expect_apply_error(md, "[{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":1,\"timestamp-ms\":1}}]", BAD,
                       "missing 'manifest-list'");
    const char *snap = "{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":1,\"timestamp-ms\":1,"
                       "\"sequence-number\":1,\"manifest-list\":\"/x.avro\",\"summary\":{\"operation\":\"append\"}}}";
    char two[1024];
    snprintf(two, sizeof two, "[%s,%s]", snap, snap);
    expect_apply_error(md, two, BAD, "update 1 (add-snapshot): snapshot 1 already exists");
    expect_apply_error(md, "[{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":\"branch\","
                           "\"snapshot-id\":12345}]",
                       BAD, "snapshot 12345, which does not exist");
    snprintf(two, sizeof two, "[%s,{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":\"tag\",\"snapshot-id\":1}]",
             snap);
    expect_apply_error(md, two, BAD, "\"main\" must be a branch");
    snprintf(two, sizeof two, "[%s,{\"action\":\"set-snapshot-ref\",\"ref-name\":\"b\",\"type\":\"twig\",\"snapshot-id\":1}]",
             snap);
    expect_apply_error(md, two, BAD, "ref type must be");
    snprintf(two, sizeof two, "[%s,{\"action\":\"set-snapshot-ref\",\"ref-name\":\"b\",\"snapshot-id\":1}]", snap);
    expect_apply_error(md, two, BAD, "update 1 (set-snapshot-ref): missing 'type'");
    expect_apply_error(md, "[{\"action\":\"assign-uuid\",\"uuid\":\"00000000-0000-4000-8000-000000000000\"}]", BAD,
                       "cannot be changed");
    expect_apply_error(md, "[{\"action\":\"upgrade-format-version\",\"format-version\":1}]", BAD, "cannot downgrade");
    expect_apply_error(md, "[{\"action\":\"upgrade-format-version\",\"format-version\":9}]", BAD, "not supported");
    expect_apply_error(md, "[{\"action\":\"remove-schemas\",\"schema-ids\":[0]}]", BAD, "cannot remove the current schema");
    expect_apply_error(md, "[{\"action\":\"remove-snapshots\",\"snapshot-ids\":[\"1\"]}]", BAD, "must hold integers");
    expect_apply_error(md, "[{\"action\":\"set-statistics\",\"statistics\":{\"snapshot-id\":1}}]", BAD,
                       "missing 'statistics-path'");
    /* Ids with a fixed meaning. */
    expect_apply_error(md, "[{\"action\":\"add-sort-order\",\"sort-order\":{\"order-id\":0,\"fields\":[{\"transform\":"
                           "\"identity\",\"source-id\":1,\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}}]",
                       BAD, "reserved for the unsorted order");
    /* The diff refuses two unrelated tables. */
    floe_ice_table_metadata *other = new_table(2);
    json_t *r = NULL, *u = NULL;
    assert_error(floe_ice_md_diff(md, other, &r, &u), BAD, "table UUIDs differ");
    assert_null(r);
    assert_null(u);
    floe_ice_table_metadata_free(other);
    floe_ice_table_metadata_free(md);
}

/* Every member of every update (and of the objects inside them) removed,
 * or replaced by a value of each wrong type: apply and check must answer
 * with success or an error, never crash (the sanitizer build watches). */
static void mutated_updates_never_crash(void **state) {
    (void)state;
    floe_catalog *c = ct_setup("mdu_mutate", CT_CAT, 2);
    floe_ice_table_metadata *m1 = append_round_trip(c, "a0", 0, "a", NULL);
    floe_ice_table_metadata *m2 = append_round_trip(c, "b0", 5, "b", NULL);
    floe_ice_table_metadata *m3 = NULL;
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_INT, &t));
    assert_ok(floe_ice_tm_add_column(m2, NULL, "n", t, false, NULL, &m3));
    floe_ice_type_free(t);
    json_t *reqs = NULL, *ups = NULL;
    assert_ok(floe_ice_md_diff(m1, m3, &reqs, &ups));
    json_t *extra = jparse(
        "[{\"action\":\"add-spec\",\"spec\":{\"fields\":[{\"name\":\"d\",\"transform\":\"day\",\"source-id\":3}]}},"
        "{\"action\":\"add-sort-order\",\"sort-order\":{\"order-id\":3,\"fields\":[{\"transform\":\"identity\","
        "\"source-id\":1,\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}},"
        "{\"action\":\"set-statistics\",\"statistics\":{\"snapshot-id\":1,\"statistics-path\":\"/s\","
        "\"file-size-in-bytes\":1,\"file-footer-size-in-bytes\":1,\"blob-metadata\":[]}},"
        "{\"action\":\"remove-snapshots\",\"snapshot-ids\":[1]},{\"action\":\"remove-properties\",\"removals\":[\"a\"]},"
        "{\"action\":\"upgrade-format-version\",\"format-version\":3},"
        "{\"action\":\"add-encryption-key\",\"encryption-key\":{\"key-id\":\"k\",\"encrypted-key-metadata\":\"AA==\"}}]");
    json_array_extend(ups, extra);
    json_decref(extra);
    json_t *bad_values[] = {NULL, json_null(), json_string("x"), json_integer(-7), json_array(), json_object(),
                            json_real(1.5)};
    int runs = 0;
    for (size_t i = 0; i < json_array_size(ups); i++) {
        json_t *orig = json_array_get(ups, i);
        /* The update's members, then the members of its object members. */
        const char *k1;
        json_t *v1;
        json_object_foreach(orig, k1, v1) {
            for (int depth = 0; depth < 2; depth++) {
                json_t *inner = depth ? v1 : orig;
                if (!json_is_object(inner)) continue;
                const char *k2;
                json_t *v2;
                json_object_foreach(inner, k2, v2) {
                    if (depth == 0 && strcmp(k2, k1) != 0) continue;
                    for (size_t b = 0; b < sizeof bad_values / sizeof bad_values[0]; b++) {
                        json_t *copy = json_deep_copy(ups);
                        json_t *cu = json_array_get(copy, i);
                        json_t *target = depth ? json_object_get(cu, k1) : cu;
                        if (bad_values[b]) json_object_set(target, k2, bad_values[b]);
                        else json_object_del(target, k2);
                        floe_ice_table_metadata *out = NULL;
                        floe_status st = floe_ice_md_apply_updates(m1, copy, &out);
                        if (st) {
                            assert_null(out);
                            assert_true(strlen(floe_status_message(st)) > 0);
                        }
                        floe_status_free(st);
                        floe_ice_table_metadata_free(out);
                        json_decref(copy);
                        runs++;
                    }
                }
            }
        }
    }
    /* The same for requirements. */
    for (size_t i = 0; i < json_array_size(reqs); i++) {
        const char *k;
        json_t *v;
        json_object_foreach(json_array_get(reqs, i), k, v) {
            for (size_t b = 0; b < sizeof bad_values / sizeof bad_values[0]; b++) {
                json_t *copy = json_deep_copy(reqs);
                if (bad_values[b]) json_object_set(json_array_get(copy, i), k, bad_values[b]);
                else json_object_del(json_array_get(copy, i), k);
                floe_status_free(floe_ice_md_check_requirements(m1, copy));
                floe_status_free(floe_ice_md_check_requirements(NULL, copy));
                json_decref(copy);
                runs++;
            }
        }
    }
    assert_true(runs > 100);
    for (size_t b = 1; b < sizeof bad_values / sizeof bad_values[0]; b++) json_decref(bad_values[b]);
    json_decref(reqs);
    json_decref(ups);
    floe_ice_table_metadata_free(m1);
    floe_ice_table_metadata_free(m2);
    floe_ice_table_metadata_free(m3);
    floe_catalog_close(c);
}

/* ---- metadata written by other systems ---------------------------------------------- */

static floe_ice_table_metadata *read_md(const char *td, const char *rel) {
    char path[2048];
    snprintf(path, sizeof path, "%s/duckdb__duckdb-iceberg/data/persistent/%s", td, rel);
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_table_metadata_read(NULL, path, &md));
    return md;
}

/* Consecutive versions written by Spark / Iceberg Java / PyIceberg: each
 * commit, replayed as a REST diff, gives the version the writer wrote. */
static void foreign_commits_replay_as_updates(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    static const char *const chains[][8] = {
        {"equality_deletes/warehouse/mydb/mytable/metadata/v1.metadata.json", "v2", "v3", "v4", "v5", "v6", "v7", NULL},
        {"equality_deletes/warehouse/mydb/mytable_partitioned/metadata/v1.metadata.json", "v2", "v3", "v4", "v5", "v6",
         NULL},
        {"hive_partitioned_table/metadata/v1.metadata.json", "v2", "v3", "v4", NULL},
        {"iceberg_v1_deprecated/default/legacy_v1/metadata/v1.metadata.json", "v2", NULL},
        {"add_columns_with_defaults/default.db/add_columns_with_defaults/metadata/"
         "00000-d099e962-c779-4b0d-84d3-bfca774862f4.metadata.json",
         "00001-af871980-15f9-44a3-9761-ba6ac5225b74", "00002-2d907d9d-0f96-4bf3-9548-edfd9194704c",
         "00003-3f1801a5-7dfb-4072-b14a-39cd12f9279b", NULL},
    };
    int spec_changes = 0, schema_changes = 0;
    /* equality_deletes v4 -> v5 holds two rollbacks whose log times the
     * protocol cannot carry (the server stamps them); the ids must match. */
    ignore_log_times = true;
    for (size_t k = 0; k < sizeof chains / sizeof chains[0]; k++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", chains[k][0]);
        *strrchr(dir, '/') = 0;
        floe_ice_table_metadata *prev = read_md(td, chains[k][0]);
        for (int i = 1; chains[k][i]; i++) {
            char rel[1200];
            snprintf(rel, sizeof rel, "%s/%s.metadata.json", dir, chains[k][i]);
            floe_ice_table_metadata *cur = read_md(td, rel);
            json_t *reqs = NULL;
            json_t *u = round_trip(prev, cur, &reqs);
            spec_changes += count_action(u, "add-spec");
            schema_changes += count_action(u, "add-schema");
            /* A commit that moved main is refused on the newer version. */
            if (count_action(u, "set-snapshot-ref") && prev->current_snapshot_id != cur->current_snapshot_id)
                assert_error(floe_ice_md_check_requirements(cur, reqs), FLOE_ERR_CONFLICT, "requirement failed");
            json_decref(u);
            json_decref(reqs);
            floe_ice_table_metadata_free(prev);
            prev = cur;
        }
        floe_ice_table_metadata_free(prev);
    }
    ignore_log_times = false;
    assert_true(spec_changes >= 1);  /* hive_partitioned_table's spec evolution */
    assert_true(schema_changes >= 1); /* the PyIceberg added columns */
}

/* floe's own edits on tables other systems wrote: the diff applies to
 * them, and a schema change made on an older version still applies to the
 * newer one (its requirements hold there). */
static void floe_edits_apply_to_foreign_metadata(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    static const char *const files[] = {
        "equality_deletes/warehouse/mydb/mytable/metadata/v1.metadata.json",
        "hive_partitioned_table/metadata/v4.metadata.json",
        "iceberg_v1_deprecated/default/legacy_v1/metadata/v2.metadata.json",
        "add_columns_with_defaults/default.db/add_columns_with_defaults/metadata/"
        "00003-3f1801a5-7dfb-4072-b14a-39cd12f9279b.metadata.json",
    };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        floe_ice_table_metadata *base = read_md(td, files[k]), *a = NULL, *b = NULL;
        floe_ice_type *t = NULL;
        assert_ok(floe_ice_type_new(FLOE_ICE_STRING, &t));
        assert_ok(floe_ice_tm_add_column(base, NULL, "floe_note", t, false, NULL, &a));
        floe_ice_type_free(t);
        const char *kv[] = {"floe.touched", "yes"};
        assert_ok(floe_ice_tm_set_properties(a, kv, 1, &b));
        json_decref(round_trip(base, a, NULL));
        json_decref(round_trip(base, b, NULL));
        floe_ice_table_metadata_free(a);
        floe_ice_table_metadata_free(b);
        floe_ice_table_metadata_free(base);
    }
    /* A column added on v1 of a Spark table, sent after Spark wrote v7. */
    floe_ice_table_metadata *v1 = read_md(td, "equality_deletes/warehouse/mydb/mytable/metadata/v1.metadata.json");
    floe_ice_table_metadata *v7 = read_md(td, "equality_deletes/warehouse/mydb/mytable/metadata/v7.metadata.json");
    floe_ice_table_metadata *mine = NULL, *out = NULL;
    floe_ice_type *t = NULL;
    assert_ok(floe_ice_type_new(FLOE_ICE_LONG, &t));
    assert_ok(floe_ice_tm_add_column(v1, NULL, "extra", t, false, NULL, &mine));
    floe_ice_type_free(t);
    json_t *reqs = NULL, *u = NULL;
    assert_ok(floe_ice_md_diff(v1, mine, &reqs, &u));
    assert_ok(floe_ice_md_check_requirements(v7, reqs));
    assert_ok(floe_ice_md_apply_updates(v7, u, &out));
    assert_non_null(floe_ice_schema_find_by_name(floe_ice_tm_current_schema(out), "extra", true));
    assert_int_equal(out->n_snapshots, v7->n_snapshots);
    assert_int_equal(out->current_snapshot_id, v7->current_snapshot_id);
    assert_int_equal(out->last_column_id, v7->last_column_id + 1);
    json_decref(reqs);
    json_decref(u);
    floe_ice_table_metadata_free(out);
    floe_ice_table_metadata_free(mine);
    floe_ice_table_metadata_free(v1);
    floe_ice_table_metadata_free(v7);
}

FLOE_TEST_MAIN(cmocka_unit_test(schema_and_property_changes_round_trip),
               cmocka_unit_test(appends_and_overwrites_round_trip),
               cmocka_unit_test(expired_snapshots_take_their_refs_and_history),
               cmocka_unit_test(specs_orders_location_and_statistics_round_trip),
               cmocka_unit_test(create_transaction_round_trips),
               cmocka_unit_test(stale_ref_requirement_is_a_conflict),
               cmocka_unit_test(failed_requirements_name_what_changed),
               cmocka_unit_test(malformed_updates_are_clear_errors),
               cmocka_unit_test(mutated_updates_never_crash),
               cmocka_unit_test(foreign_commits_replay_as_updates),
               cmocka_unit_test(floe_edits_apply_to_foreign_metadata))
