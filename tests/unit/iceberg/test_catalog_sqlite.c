/*
 * test_catalog_sqlite.c — the SQLite (JDBC / PyIceberg schema) catalog:
 * namespaces, creating, loading, listing, renaming and dropping tables,
 * commits as compare-and-swap (a losing handle gets FLOE_ERR_CONFLICT and
 * leaves no file behind; threads retrying land every commit exactly once),
 * purging every file a table references, and a database other SQLite
 * clients read with the JDBC schema.
 */
#include <dirent.h>
#include <pthread.h>
#include <sqlite3.h>
#include <unistd.h>

#include "floe_test.h"

#include <jansson.h>

#include "floe/catalog.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "iceberg/update/table_update_internal.h"

static const char *SCHEMA =
    "{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"data\",\"required\":false,\"type\":\"string\"}]}";

static floe_ice_table_metadata *new_md(floe_catalog *c, const char *ns, const char *name) {
    floe_ice_schema *s = NULL;
    char *loc = NULL;
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &s));
    assert_ok(floe_catalog_default_location(c, ns, name, &loc));
    assert_ok(floe_ice_tm_new(s, NULL, NULL, loc, NULL, 0, 2, &md));
    floe_free(loc);
    floe_ice_schema_free(s);
    return md;
}

static void create(floe_catalog *c, const char *ns, const char *name) {
    floe_ice_table_metadata *md = new_md(c, ns, name);
    assert_ok(floe_catalog_create_table(c, ns, name, md, NULL));
    floe_ice_table_metadata_free(md);
}

/* Regular files below `dir` (recursively), or -1 if it does not exist. */
static int count_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) n += count_files(p) > 0 ? count_files(p) : 0;
        else n++;
    }
    closedir(d);
    return n;
}

static bool file_exists(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* One column of one row of the catalog database, read with plain SQLite. */
static char *db_value(const char *wh, const char *sql) {
    char path[2048];
    snprintf(path, sizeof path, "%s/floe_catalog.db", wh);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    char *out = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

/* Add a snapshot with one fake data file (its own manifest and manifest
 * list) to table ns.name, committing it.  Paths are returned for checks. */
static void append_fake_snapshot(floe_catalog *c, const char *ns, const char *name, int64_t snap_id,
                                 char data_path[1024], char manifest_path[1024], char list_path[1024]) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, ns, name, &t));
    const floe_ice_table_metadata *md = t->md;
    snprintf(data_path, 1024, "%s/data/f-%lld.parquet", md->location, (long long)snap_id);
    snprintf(manifest_path, 1024, "%s/metadata/m-%lld.avro", md->location, (long long)snap_id);
    snprintf(list_path, 1024, "%s/metadata/snap-%lld.avro", md->location, (long long)snap_id);

    floe_output *out = NULL;
    assert_ok(floe_output_create_local(data_path, 1, &out));
    assert_ok(floe_output_write(out, "PAR1", 4));
    assert_ok(floe_output_close(out));

    assert_ok(floe_output_create_local(manifest_path, 1, &out));
    floe_ice_manifest_writer *w = NULL;
    floe_ice_manifest_writer_options o = {2, FLOE_ICE_MANIFEST_DATA, floe_ice_tm_current_schema(md),
                                          floe_ice_tm_default_spec(md), snap_id};
    assert_ok(floe_ice_manifest_writer_open(out, &o, &w));
    floe_ice_manifest_entry e = {FLOE_ICE_STATUS_ADDED, -1, -1, -1, {0}};
    floe_ice_data_file_init(&e.file);
    e.file.content = FLOE_ICE_CONTENT_DATA;
    e.file.file_path = data_path;
    e.file.file_format = "PARQUET";
    e.file.record_count = 1;
    e.file.file_size_in_bytes = 4;
    assert_ok(floe_ice_manifest_writer_add(w, &e));
    floe_ice_manifest_file mf;
    assert_ok(floe_ice_manifest_writer_finish(w, &mf));
    mf.manifest_length = (int64_t)out->bytes_written;
    assert_ok(floe_output_close(out));
    mf.manifest_path = manifest_path;
    mf.sequence_number = md->last_sequence_number + 1;
    mf.min_sequence_number = mf.sequence_number;
    mf.added_snapshot_id = snap_id;
    mf.n_partitions = 0;
    mf.partitions = NULL;

    assert_ok(floe_output_create_local(list_path, 1, &out));
    floe_ice_manifest_list_options lo = {2, snap_id, md->current_snapshot_id, mf.sequence_number, false, 0};
    assert_ok(floe_ice_manifest_list_write(out, &lo, &mf, 1));
    assert_ok(floe_output_close(out));

    json_t *tree = NULL;
    assert_ok(floe_ice_tm_edit_begin(md, &tree));
    json_t *snap = json_pack("{s:I, s:I, s:I, s:s, s:{s:s}}", "snapshot-id", (json_int_t)snap_id, "sequence-number",
                             (json_int_t)mf.sequence_number, "timestamp-ms", (json_int_t)floe_ice_now_ms(),
                             "manifest-list", list_path, "summary", "operation", "append");
    if (md->current_snapshot_id != FLOE_ICE_NO_SNAPSHOT)
        json_object_set_new(snap, "parent-snapshot-id", json_integer(md->current_snapshot_id));
    json_array_append_new(json_object_get(tree, "snapshots"), snap);
    json_object_set_new(tree, "current-snapshot-id", json_integer(snap_id));
    json_object_set_new(tree, "last-sequence-number", json_integer(mf.sequence_number));
    json_object_set_new(json_object_get(tree, "refs"), "main",
                        json_pack("{s:I, s:s}", "snapshot-id", (json_int_t)snap_id, "type", "branch"));
    floe_ice_table_metadata *next = NULL;
    assert_ok(floe_ice_tm_edit_finish(md, tree, &next));
    assert_ok(floe_catalog_commit(c, ns, name, t->metadata_location, next, NULL));
    floe_ice_table_metadata_free(next);
    floe_ice_table_free(t);
}

/* ---- opening ---------------------------------------------------------------- */

static void open_creates_the_database_with_the_jdbc_schema(void **state) {
    (void)state;
    char wh[1024], p[1200];
    floe_test_tmpdir(wh, sizeof wh, "catalog_open");
    strcat(wh, "/nested/wh/"); /* created, trailing '/' dropped */
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    wh[strlen(wh) - 1] = '\0';
    assert_string_equal(floe_catalog_warehouse(c), wh);
    snprintf(p, sizeof p, "%s/floe_catalog.db", wh);
    assert_true(file_exists(p));
    char *cols = db_value(wh, "SELECT group_concat(name, ',') FROM pragma_table_info('iceberg_tables')");
    /* iceberg_type: JdbcCatalog's V1 schema, which holds views too. */
    assert_string_equal(cols,
                        "catalog_name,table_namespace,table_name,metadata_location,previous_metadata_location,iceberg_type");
    free(cols);
    cols = db_value(wh, "SELECT group_concat(name, ',') FROM pragma_table_info('iceberg_namespace_properties')");
    assert_string_equal(cols, "catalog_name,namespace,property_key,property_value");
    free(cols);
    char *pk = db_value(wh, "SELECT group_concat(name, ',') FROM pragma_table_info('iceberg_tables') WHERE pk > 0");
    assert_string_equal(pk, "catalog_name,table_namespace,table_name");
    free(pk);
    char *mode = db_value(wh, "PRAGMA journal_mode");
    assert_string_equal(mode, "wal");
    free(mode);
    floe_catalog_close(c);
    /* Reopening an existing catalog works. */
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    floe_catalog_close(c);
    floe_catalog_close(NULL);
    assert_error(floe_catalog_open_sqlite("s3://bucket/wh", &c), FLOE_ERR_UNSUPPORTED, "local directory");
    assert_error(floe_catalog_open_sqlite("", &c), FLOE_ERR_INVALID_ARGUMENT, "warehouse");
}

/* ---- namespaces ---------------------------------------------------------------- */

static void namespaces_are_created_listed_and_dropped(void **state) {
    (void)state;
    char wh[1024];
    floe_test_tmpdir(wh, sizeof wh, "catalog_ns");
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "sales", false));
    assert_ok(floe_catalog_create_namespace(c, "analytics", false));
    assert_error(floe_catalog_create_namespace(c, "sales", false), FLOE_ERR_ALREADY_EXISTS,
                 "namespace 'sales' already exists");
    assert_ok(floe_catalog_create_namespace(c, "sales", true));
    /* PyIceberg's marker row. */
    char *v = db_value(wh, "SELECT property_value FROM iceberg_namespace_properties WHERE catalog_name = 'floe' AND "
                           "namespace = 'sales' AND property_key = 'exists'");
    assert_string_equal(v, "true");
    free(v);

    char **names = NULL;
    int32_t n = 0;
    assert_ok(floe_catalog_list_namespaces(c, &names, &n));
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "analytics");
    assert_string_equal(names[1], "sales");
    floe_catalog_names_free(names, n);

    bool ex = false;
    assert_ok(floe_catalog_namespace_exists(c, "sales", &ex));
    assert_true(ex);
    assert_ok(floe_catalog_namespace_exists(c, "nope", &ex));
    assert_false(ex);

    assert_ok(floe_catalog_drop_namespace(c, "analytics", false));
    assert_ok(floe_catalog_namespace_exists(c, "analytics", &ex));
    assert_false(ex);
    assert_error(floe_catalog_drop_namespace(c, "saless", false), FLOE_ERR_NOT_FOUND,
                 "namespace 'saless' does not exist (did you mean 'sales'?)");
    assert_ok(floe_catalog_drop_namespace(c, "saless", true));

    create(c, "sales", "orders");
    assert_error(floe_catalog_drop_namespace(c, "sales", false), FLOE_ERR_CONFLICT, "not empty: it holds 1 table");
    assert_error(floe_catalog_create_namespace(c, "a.b", false), FLOE_ERR_INVALID_ARGUMENT, "'.'");
    assert_error(floe_catalog_create_namespace(c, "a/b", false), FLOE_ERR_INVALID_ARGUMENT, "'/'");
    assert_error(floe_catalog_create_namespace(c, "", false), FLOE_ERR_INVALID_ARGUMENT, "empty");
    assert_error(floe_catalog_list_tables(c, "sale", &names, &n), FLOE_ERR_NOT_FOUND, "did you mean 'sales'");
    floe_catalog_close(c);
}

/* ---- tables ---------------------------------------------------------------------- */

static void tables_are_created_loaded_and_listed(void **state) {
    (void)state;
    char wh[1024], p[2048];
    floe_test_tmpdir(wh, sizeof wh, "catalog_tables");
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));

    char *loc = NULL;
    assert_ok(floe_catalog_default_location(c, "db", "orders", &loc));
    snprintf(p, sizeof p, "%s/db/orders", wh);
    assert_string_equal(loc, p);
    floe_free(loc);

    floe_ice_table_metadata *md = new_md(c, "db", "orders");
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_create_table(c, "db", "orders", md, &t));
    /* <location>/metadata/00000-<uuid>.metadata.json */
    snprintf(p, sizeof p, "%s/db/orders/metadata/00000-", wh);
    assert_int_equal(strncmp(t->metadata_location, p, strlen(p)), 0);
    assert_int_equal(strlen(t->metadata_location), strlen(p) + 36 + strlen(".metadata.json"));
    snprintf(p, sizeof p, "%s/db/orders", wh);
    assert_string_equal(t->root, p);
    assert_true(file_exists(t->metadata_location));

    floe_ice_table *l = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "orders", &l));
    assert_string_equal(l->metadata_location, t->metadata_location);
    assert_string_equal(l->root, t->root);
    char *a = NULL, *b = NULL;
    assert_ok(floe_ice_table_metadata_to_json(md, 0, &a));
    assert_ok(floe_ice_table_metadata_to_json(l->md, 0, &b));
    assert_string_equal(a, b);
    floe_free(a);
    floe_free(b);
    char *row = db_value(wh, "SELECT metadata_location FROM iceberg_tables WHERE table_name = 'orders'");
    assert_string_equal(row, l->metadata_location);
    free(row);
    floe_ice_table_free(l);

    assert_error(floe_catalog_create_table(c, "db", "orders", md, NULL), FLOE_ERR_ALREADY_EXISTS,
                 "table db.orders already exists");
    assert_error(floe_catalog_create_table(c, "nodb", "orders", md, NULL), FLOE_ERR_NOT_FOUND,
                 "namespace 'nodb' does not exist");
    snprintf(p, sizeof p, "%s/db/orders/metadata", wh);
    assert_int_equal(count_files(p), 1); /* the refused creates wrote nothing */

    create(c, "db", "customers");
    char **names = NULL;
    int32_t n = 0;
    assert_ok(floe_catalog_list_tables(c, "db", &names, &n));
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "customers");
    assert_string_equal(names[1], "orders");
    floe_catalog_names_free(names, n);

    bool ex = false;
    assert_ok(floe_catalog_table_exists(c, "db", "orders", &ex));
    assert_true(ex);
    assert_ok(floe_catalog_table_exists(c, "db", "order", &ex));
    assert_false(ex);
    assert_error(floe_catalog_load_table(c, "db", "ordres", &l), FLOE_ERR_NOT_FOUND,
                 "table db.ordres does not exist (did you mean 'db.orders'?)");
    assert_error(floe_catalog_load_table(c, "dbb", "orders", &l), FLOE_ERR_NOT_FOUND, "did you mean 'db'");
    assert_null(l);
    floe_ice_table_free(t);
    floe_ice_table_metadata_free(md);
    floe_catalog_close(c);
}

static void tables_are_renamed_and_dropped(void **state) {
    (void)state;
    char wh[1024], p[2048];
    floe_test_tmpdir(wh, sizeof wh, "catalog_rename");
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    assert_ok(floe_catalog_create_namespace(c, "other", false));
    create(c, "db", "a");
    create(c, "db", "b");

    assert_ok(floe_catalog_rename_table(c, "db", "a", "other", "a2"));
    bool ex = true;
    assert_ok(floe_catalog_table_exists(c, "db", "a", &ex));
    assert_false(ex);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "other", "a2", &t));
    /* Renaming does not move data: the location stays. */
    snprintf(p, sizeof p, "%s/db/a", wh);
    assert_string_equal(t->md->location, p);
    floe_ice_table_free(t);
    assert_error(floe_catalog_rename_table(c, "db", "b", "other", "a2"), FLOE_ERR_ALREADY_EXISTS,
                 "table other.a2 already exists");
    assert_error(floe_catalog_rename_table(c, "db", "b", "nope", "b"), FLOE_ERR_NOT_FOUND,
                 "namespace 'nope' does not exist");
    assert_error(floe_catalog_rename_table(c, "db", "zz", "db", "y"), FLOE_ERR_NOT_FOUND, "table db.zz does not exist");

    /* Drop without purge keeps the files. */
    assert_ok(floe_catalog_drop_table(c, "db", "b", false));
    assert_ok(floe_catalog_table_exists(c, "db", "b", &ex));
    assert_false(ex);
    snprintf(p, sizeof p, "%s/db/b/metadata", wh);
    assert_int_equal(count_files(p), 1);
    assert_error(floe_catalog_drop_table(c, "db", "b", false), FLOE_ERR_NOT_FOUND, "table db.b does not exist");
    assert_error(floe_catalog_drop_table(c, "db", "b", true), FLOE_ERR_NOT_FOUND, "table db.b does not exist");
    /* Now the namespace is empty and can go. */
    assert_ok(floe_catalog_drop_namespace(c, "db", false));
    floe_catalog_close(c);
}

/* ---- commits ---------------------------------------------------------------------- */

static void commit_swaps_metadata_and_logs_the_base(void **state) {
    (void)state;
    char wh[1024];
    floe_test_tmpdir(wh, sizeof wh, "catalog_commit");
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create(c, "db", "t");

    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    const char *kv[] = {"k", "v1"};
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_set_properties(t->md, kv, 1, &md));
    char *loc1 = NULL;
    assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, md, &loc1));
    assert_non_null(strstr(loc1, "/db/t/metadata/00001-"));
    floe_ice_table_metadata_free(md);

    floe_ice_table *t1 = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t1));
    assert_string_equal(t1->metadata_location, loc1);
    assert_string_equal(floe_ice_tm_property(t1->md, "k"), "v1");
    assert_int_equal(t1->md->n_metadata_log, 1);
    assert_string_equal(t1->md->metadata_log[0].file, t->metadata_location);
    assert_true(t1->md->metadata_log[0].timestamp_ms == t->md->last_updated_ms);
    char *prev = db_value(wh, "SELECT previous_metadata_location FROM iceberg_tables WHERE table_name = 't'");
    assert_string_equal(prev, t->metadata_location);
    free(prev);

    /* A second commit on top; and a stale base is a conflict. */
    kv[1] = "v2";
    assert_ok(floe_ice_tm_set_properties(t1->md, kv, 1, &md));
    char *loc2 = NULL;
    assert_ok(floe_catalog_commit(c, "db", "t", t1->metadata_location, md, &loc2));
    assert_non_null(strstr(loc2, "/db/t/metadata/00002-"));
    assert_error(floe_catalog_commit(c, "db", "t", t1->metadata_location, md, NULL), FLOE_ERR_CONFLICT,
                 "lost a race");
    assert_error(floe_catalog_commit(c, "db", "nope", t1->metadata_location, md, NULL), FLOE_ERR_NOT_FOUND,
                 "table db.nope does not exist");
    floe_ice_table_metadata_free(md);
    floe_ice_table *t2 = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t2));
    assert_int_equal(t2->md->n_metadata_log, 2);
    assert_string_equal(t2->md->metadata_log[1].file, loc1);
    assert_string_equal(floe_ice_tm_property(t2->md, "k"), "v2");

    /* Metadata of another table cannot be committed here. */
    floe_ice_table_metadata *alien = new_md(c, "db", "t");
    assert_error(floe_catalog_commit(c, "db", "t", t2->metadata_location, alien, NULL), FLOE_ERR_INVALID_ARGUMENT,
                 "table-uuid");
    floe_ice_table_metadata_free(alien);

    char dir[2048];
    snprintf(dir, sizeof dir, "%s/db/t/metadata", wh);
    assert_int_equal(count_files(dir), 3);
    floe_free(loc1);
    floe_free(loc2);
    floe_ice_table_free(t);
    floe_ice_table_free(t1);
    floe_ice_table_free(t2);
    floe_catalog_close(c);
}

static void metadata_log_honours_previous_versions_max(void **state) {
    (void)state;
    char wh[1024];
    floe_test_tmpdir(wh, sizeof wh, "catalog_prevmax");
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create(c, "db", "t");
    for (int i = 0; i < 5; i++) {
        floe_ice_table *t = NULL;
        floe_ice_table_metadata *md = NULL;
        assert_ok(floe_catalog_load_table(c, "db", "t", &t));
        const char *kv[] = {"write.metadata.previous-versions-max", "2"};
        assert_ok(floe_ice_tm_set_properties(t->md, kv, 1, &md));
        assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, md, NULL));
        floe_ice_table_metadata_free(md);
        floe_ice_table_free(t);
    }
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_int_equal(t->md->n_metadata_log, 2);
    assert_non_null(strstr(t->md->metadata_log[1].file, "/00004-"));
    assert_non_null(strstr(t->metadata_location, "/00005-"));
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/db/t/metadata", wh);
    assert_int_equal(count_files(dir), 6); /* old files stay by default */

    /* With delete-after-commit, files that fall off the log are deleted
     * (those that fell off before stay: nothing refers to them any more). */
    char *dropped[3];
    for (int i = 0; i < 3; i++) {
        dropped[i] = floe_strdup(t->md->metadata_log[0].file); /* the next to fall off */
        floe_ice_table_metadata *md = NULL;
        const char *kv[] = {"write.metadata.delete-after-commit.enabled", "true", "n", i == 0 ? "0" : i == 1 ? "1" : "2"};
        assert_ok(floe_ice_tm_set_properties(t->md, kv, 2, &md));
        assert_ok(floe_catalog_commit(c, "db", "t", t->metadata_location, md, NULL));
        floe_ice_table_metadata_free(md);
        floe_ice_table_free(t);
        assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    }
    /* 00003, 00004 and 00005 fell off the log in turn and were deleted. */
    for (int i = 0; i < 3; i++) {
        assert_false(file_exists(dropped[i]));
        floe_free(dropped[i]);
    }
    assert_true(file_exists(t->md->metadata_log[0].file));
    assert_true(file_exists(t->md->metadata_log[1].file));
    assert_non_null(strstr(t->metadata_location, "/00008-"));
    assert_int_equal(count_files(dir), 6); /* 00000-00002, 00006-00008 */
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

static void a_losing_handle_gets_a_conflict(void **state) {
    (void)state;
    char wh[1024], dir[2048];
    floe_test_tmpdir(wh, sizeof wh, "catalog_cas");
    floe_catalog *a = NULL, *b = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &a));
    assert_ok(floe_catalog_open_sqlite(wh, &b));
    assert_ok(floe_catalog_create_namespace(a, "db", false));
    create(a, "db", "t");
    floe_ice_table *ta = NULL, *tb = NULL;
    assert_ok(floe_catalog_load_table(a, "db", "t", &ta));
    assert_ok(floe_catalog_load_table(b, "db", "t", &tb)); /* b sees a's table */
    floe_ice_table_metadata *ma = NULL, *mb = NULL;
    const char *kva[] = {"writer", "a"}, *kvb[] = {"writer", "b"};
    assert_ok(floe_ice_tm_set_properties(ta->md, kva, 1, &ma));
    assert_ok(floe_ice_tm_set_properties(tb->md, kvb, 1, &mb));
    assert_ok(floe_catalog_commit(a, "db", "t", ta->metadata_location, ma, NULL));
    assert_error(floe_catalog_commit(b, "db", "t", tb->metadata_location, mb, NULL), FLOE_ERR_CONFLICT,
                 "commit to table db.t lost a race");
    snprintf(dir, sizeof dir, "%s/db/t/metadata", wh);
    assert_int_equal(count_files(dir), 2); /* the loser left nothing */
    /* Reload, re-apply, retry: b wins now. */
    floe_ice_table_free(tb);
    floe_ice_table_metadata_free(mb);
    assert_ok(floe_catalog_load_table(b, "db", "t", &tb));
    assert_string_equal(floe_ice_tm_property(tb->md, "writer"), "a");
    assert_ok(floe_ice_tm_set_properties(tb->md, kvb, 1, &mb));
    assert_ok(floe_catalog_commit(b, "db", "t", tb->metadata_location, mb, NULL));
    floe_ice_table *tc = NULL;
    assert_ok(floe_catalog_load_table(a, "db", "t", &tc));
    assert_string_equal(floe_ice_tm_property(tc->md, "writer"), "b");
    floe_ice_table_free(ta);
    floe_ice_table_free(tb);
    floe_ice_table_free(tc);
    floe_ice_table_metadata_free(ma);
    floe_ice_table_metadata_free(mb);
    floe_catalog_close(a);
    floe_catalog_close(b);
}

#define N_THREADS 4
#define N_COMMITS 6

typedef struct worker {
    floe_catalog *c;
    int id;
    int conflicts;
    floe_status st;
} worker;

/* Each commit adds one property; a conflict reloads and re-applies. */
static void *commit_worker(void *arg) {
    worker *w = arg;
    for (int j = 0; j < N_COMMITS && !w->st; j++) {
        char key[32];
        snprintf(key, sizeof key, "w%d-%d", w->id, j);
        const char *kv[] = {key, "x"};
        for (;;) {
            floe_ice_table *t = NULL;
            floe_ice_table_metadata *md = NULL;
            floe_status st = floe_catalog_load_table(w->c, "db", "t", &t);
            if (!st) st = floe_ice_tm_set_properties(t->md, kv, 1, &md);
            if (!st) st = floe_catalog_commit(w->c, "db", "t", t->metadata_location, md, NULL);
            floe_ice_table_metadata_free(md);
            floe_ice_table_free(t);
            if (st && floe_status_code(st) == FLOE_ERR_CONFLICT) {
                floe_status_free(st);
                w->conflicts++;
                continue;
            }
            w->st = st;
            break;
        }
    }
    return NULL;
}

static void concurrent_commits_with_retry_all_land_once(void **state) {
    (void)state;
    char wh[1024], dir[2048];
    floe_test_tmpdir(wh, sizeof wh, "catalog_threads");
    floe_catalog *a = NULL, *b = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &a));
    assert_ok(floe_catalog_open_sqlite(wh, &b));
    assert_ok(floe_catalog_create_namespace(a, "db", false));
    create(a, "db", "t");
    /* Two handles (two SQLite connections), each shared by two threads. */
    pthread_t th[N_THREADS];
    worker w[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        w[i] = (worker){i % 2 ? b : a, i, 0, NULL};
        assert_int_equal(pthread_create(&th[i], NULL, commit_worker, &w[i]), 0);
    }
    int conflicts = 0;
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(th[i], NULL);
        assert_ok(w[i].st);
        conflicts += w[i].conflicts;
    }
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(a, "db", "t", &t));
    assert_int_equal(t->md->n_properties, N_THREADS * N_COMMITS);
    for (int i = 0; i < N_THREADS; i++)
        for (int j = 0; j < N_COMMITS; j++) {
            char key[32];
            snprintf(key, sizeof key, "w%d-%d", i, j);
            assert_non_null(floe_ice_tm_property(t->md, key));
        }
    assert_int_equal(t->md->n_metadata_log, N_THREADS * N_COMMITS);
    char want[32];
    snprintf(want, sizeof want, "/%05d-", N_THREADS * N_COMMITS);
    assert_non_null(strstr(t->metadata_location, want));
    /* One file per landed commit plus the first: losers cleaned up. */
    snprintf(dir, sizeof dir, "%s/db/t/metadata", wh);
    assert_int_equal(count_files(dir), N_THREADS * N_COMMITS + 1);
    printf("%d conflicts retried\n", conflicts);
    floe_ice_table_free(t);
    floe_catalog_close(a);
    floe_catalog_close(b);
}

typedef struct creator {
    floe_catalog *c;
    floe_ice_table_metadata *md;
    floe_status st;
} creator;

static void *create_worker(void *arg) {
    creator *w = arg;
    w->st = floe_catalog_create_table(w->c, "db", "t", w->md, NULL);
    return NULL;
}

static void racing_creates_register_one_table(void **state) {
    (void)state;
    char wh[1024], dir[2048];
    floe_test_tmpdir(wh, sizeof wh, "catalog_create_race");
    floe_catalog *a = NULL, *b = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &a));
    assert_ok(floe_catalog_open_sqlite(wh, &b));
    assert_ok(floe_catalog_create_namespace(a, "db", false));
    pthread_t th[N_THREADS];
    creator w[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        w[i] = (creator){i % 2 ? b : a, new_md(a, "db", "t"), NULL};
        assert_int_equal(pthread_create(&th[i], NULL, create_worker, &w[i]), 0);
    }
    int won = 0;
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(th[i], NULL);
        if (!w[i].st) won++;
        else assert_error(w[i].st, FLOE_ERR_ALREADY_EXISTS, "table db.t already exists");
        floe_ice_table_metadata_free(w[i].md);
    }
    assert_int_equal(won, 1);
    snprintf(dir, sizeof dir, "%s/db/t/metadata", wh);
    assert_int_equal(count_files(dir), 1); /* losers removed their files */
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(b, "db", "t", &t));
    floe_ice_table_free(t);
    floe_catalog_close(a);
    floe_catalog_close(b);
}

/* ---- purge ---------------------------------------------------------------------- */

static void drop_purge_deletes_every_referenced_file(void **state) {
    (void)state;
    char wh[1024], p[2048];
    floe_test_tmpdir(wh, sizeof wh, "catalog_purge");
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create(c, "db", "t");
    create(c, "db", "keep");
    char d1[1024], m1[1024], l1[1024], d2[1024], m2[1024], l2[1024];
    append_fake_snapshot(c, "db", "t", 101, d1, m1, l1);
    append_fake_snapshot(c, "db", "t", 102, d2, m2, l2);
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    assert_int_equal(t->md->n_snapshots, 2);
    floe_ice_table_free(t);
    snprintf(p, sizeof p, "%s/db/t", wh);
    assert_int_equal(count_files(p), 2 + 2 + 2 + 3); /* data, manifests, lists, metadata */

    assert_ok(floe_catalog_drop_table(c, "db", "t", true));
    assert_false(file_exists(d1));
    assert_false(file_exists(d2));
    assert_false(file_exists(m1));
    assert_false(file_exists(l2));
    assert_false(file_exists(p)); /* the emptied directories went too */
    snprintf(p, sizeof p, "%s/db/keep/metadata", wh);
    assert_int_equal(count_files(p), 1);
    bool ex = true;
    assert_ok(floe_catalog_table_exists(c, "db", "t", &ex));
    assert_false(ex);
    floe_catalog_close(c);
}

static void drop_purge_reports_what_it_could_not_delete(void **state) {
    (void)state;
    char wh[1024];
    floe_test_tmpdir(wh, sizeof wh, "catalog_purge_err");
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create(c, "db", "t");
    char d1[1024], m1[1024], l1[1024];
    append_fake_snapshot(c, "db", "t", 7, d1, m1, l1);
    assert_int_equal(unlink(l1), 0); /* the manifest list is gone */
    assert_error(floe_catalog_drop_table(c, "db", "t", true), FLOE_ERR_NOT_FOUND, "could not be listed or deleted");
    /* Still dropped, and what could be found was deleted. */
    bool ex = true;
    assert_ok(floe_catalog_table_exists(c, "db", "t", &ex));
    assert_false(ex);
    char p[2048];
    snprintf(p, sizeof p, "%s/db/t/metadata", wh);
    assert_int_equal(count_files(p), 1); /* only the unreferenced-now manifest m1 */
    assert_true(file_exists(m1));
    floe_catalog_close(c);
}

/* Rows another client wrote: a namespace known only through its tables
 * (Java's JdbcCatalog creates no property row), and rows of another
 * catalog name in the same database, which floe must not see. */
static void rows_written_by_other_clients(void **state) {
    (void)state;
    char wh[1024], sql[4096], dbp[1200];
    floe_test_tmpdir(wh, sizeof wh, "catalog_foreign");
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create(c, "db", "t");
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    snprintf(dbp, sizeof dbp, "%s/floe_catalog.db", wh);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(dbp, &db), SQLITE_OK);
    snprintf(sql, sizeof sql,
             "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
             "previous_metadata_location) VALUES ('floe', 'javans', 'jt', '%s', NULL);"
             "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
             "previous_metadata_location) VALUES ('other', 'hidden', 'h', '%s', NULL);"
             "INSERT INTO iceberg_namespace_properties VALUES ('other', 'hidden2', 'exists', 'true');",
             t->metadata_location, t->metadata_location);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    char **names = NULL;
    int32_t n = 0;
    assert_ok(floe_catalog_list_namespaces(c, &names, &n));
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "db");
    assert_string_equal(names[1], "javans");
    floe_catalog_names_free(names, n);
    bool ex = false;
    assert_ok(floe_catalog_namespace_exists(c, "javans", &ex));
    assert_true(ex);
    assert_ok(floe_catalog_namespace_exists(c, "hidden", &ex));
    assert_false(ex);
    floe_ice_table *jt = NULL;
    assert_ok(floe_catalog_load_table(c, "javans", "jt", &jt));
    assert_string_equal(jt->md->table_uuid, t->md->table_uuid);
    floe_ice_table_free(jt);
    assert_error(floe_catalog_load_table(c, "hidden", "h", &jt), FLOE_ERR_NOT_FOUND, "namespace 'hidden'");
    assert_error(floe_catalog_drop_namespace(c, "javans", false), FLOE_ERR_CONFLICT, "not empty");
    assert_ok(floe_catalog_drop_table(c, "javans", "jt", false));
    assert_ok(floe_catalog_namespace_exists(c, "javans", &ex));
    assert_false(ex); /* it existed only through its table */
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

/* ---- other clients ---------------------------------------------------------------- */

static void python_sqlite3_reads_the_catalog(void **state) {
    (void)state;
    if (system("python3 -c 'import sqlite3' >/dev/null 2>&1") != 0) {
        printf("SKIP: python3 with sqlite3 not available\n");
        skip();
    }
    char wh[1024], cmd[4096];
    floe_test_tmpdir(wh, sizeof wh, "catalog_python");
    floe_catalog *c = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create(c, "db", "t");
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    /* Read while our connection is open (WAL), as PyIceberg would; check
     * the row and that the metadata it points to is the table's. */
    snprintf(cmd, sizeof cmd,
             "python3 - <<'EOF'\n"
             "import sqlite3, json, sys\n"
             "db = sqlite3.connect('%s/floe_catalog.db')\n"
             "rows = db.execute('SELECT catalog_name, table_namespace, table_name, metadata_location, "
             "previous_metadata_location FROM iceberg_tables').fetchall()\n"
             "assert len(rows) == 1, rows\n"
             "cat, ns, name, loc, prev = rows[0]\n"
             "assert (cat, ns, name, prev) == ('floe', 'db', 't', None), rows\n"
             "assert loc == '%s', loc\n"
             "md = json.load(open(loc))\n"
             "assert md['format-version'] == 2 and md['location'].endswith('/db/t'), md\n"
             "props = db.execute(\"SELECT property_key, property_value FROM iceberg_namespace_properties "
             "WHERE namespace = 'db'\").fetchall()\n"
             "assert props == [('exists', 'true')], props\n"
             "EOF",
             wh, t->metadata_location);
    assert_int_equal(system(cmd), 0);
    floe_ice_table_free(t);
    floe_catalog_close(c);
}

/* A catalog reopens from its URI, in both forms, and sees the same tables;
 * a database apart from the warehouse puts tables under the warehouse. */
static void catalog_uri_reopens_the_same_catalog(void **state) {
    (void)state;
    char wh[1024], db[1100], tables[1100], uri[4096];
    floe_test_tmpdir(wh, sizeof wh, "catalog_uri");
    floe_catalog *c = NULL, *again = NULL;
    assert_ok(floe_catalog_open_sqlite(wh, &c));
    assert_string_equal(floe_catalog_uri(c), wh);
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create(c, "db", "t");
    assert_ok(floe_catalog_open_uri(floe_catalog_uri(c), &again));
    bool exists = false;
    assert_ok(floe_catalog_table_exists(again, "db", "t", &exists));
    assert_true(exists);
    floe_catalog_close(again);
    floe_catalog_close(c);

    /* The database file apart from the tables. */
    snprintf(db, sizeof db, "%s/apart.db", wh);
    snprintf(tables, sizeof tables, "%s/tables", wh);
    assert_ok(floe_catalog_open_sqlite_db(db, tables, &c));
    snprintf(uri, sizeof uri, "sqlite:%s?warehouse=%s", db, tables);
    assert_string_equal(floe_catalog_uri(c), uri);
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    create(c, "db", "u");
    char *loc = NULL;
    assert_ok(floe_catalog_default_location(c, "db", "u", &loc));
    snprintf(uri, sizeof uri, "%s/db/u", tables);
    assert_string_equal(loc, uri);
    floe_free(loc);
    assert_ok(floe_catalog_open_uri(floe_catalog_uri(c), &again));
    assert_ok(floe_catalog_table_exists(again, "db", "u", &exists));
    assert_true(exists);
    assert_ok(floe_catalog_table_exists(again, "db", "t", &exists));
    assert_false(exists); /* a different database */
    floe_catalog_close(again);
    floe_catalog_close(c);
    assert_true(file_exists(db));

    /* Malformed URIs and remote databases are refused, naming the problem. */
    assert_error(floe_catalog_open_uri("sqlite:/x.db", &c), FLOE_ERR_INVALID_ARGUMENT, "?warehouse=");
    assert_error(floe_catalog_open_uri("sqlite:?warehouse=/tmp", &c), FLOE_ERR_INVALID_ARGUMENT, "sqlite:");
    assert_error(floe_catalog_open_uri("s3://bucket/wh", &c), FLOE_ERR_UNSUPPORTED, "local file");
    assert_error(floe_catalog_open_sqlite_db("s3://b/x.db", "s3://b/wh", &c), FLOE_ERR_INVALID_ARGUMENT,
                 "local file");
    assert_null(c);
}

FLOE_TEST_MAIN(cmocka_unit_test(open_creates_the_database_with_the_jdbc_schema),
               cmocka_unit_test(catalog_uri_reopens_the_same_catalog),
               cmocka_unit_test(namespaces_are_created_listed_and_dropped),
               cmocka_unit_test(tables_are_created_loaded_and_listed),
               cmocka_unit_test(tables_are_renamed_and_dropped),
               cmocka_unit_test(commit_swaps_metadata_and_logs_the_base),
               cmocka_unit_test(metadata_log_honours_previous_versions_max),
               cmocka_unit_test(a_losing_handle_gets_a_conflict),
               cmocka_unit_test(concurrent_commits_with_retry_all_land_once),
               cmocka_unit_test(racing_creates_register_one_table),
               cmocka_unit_test(drop_purge_deletes_every_referenced_file),
               cmocka_unit_test(drop_purge_reports_what_it_could_not_delete),
               cmocka_unit_test(rows_written_by_other_clients),
               cmocka_unit_test(python_sqlite3_reads_the_catalog))
