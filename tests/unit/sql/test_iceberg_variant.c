/*
 * test_iceberg_variant.c — an Iceberg v3 table with a variant column,
 * read through SQL.  Its data files are parquet-testing's shredded_variant
 * Parquet files (field id 1 `id`, field id 2 `var`, a VARIANT group —
 * mixed rows, a partially shredded object, a shredded array, a variant
 * null) in a snapshot written by hand (manifest, manifest list and v3
 * metadata JSON) and registered with the catalog, beside a file written
 * before the column was added (no field 2: its rows read NULL).  The variant reads by field id
 * whatever it is called in the file, prints as JSON, extracts with ->,
 * ->> and variant_get, IS NULL holds for SQL NULL only (also as a scan
 * filter), and writing the column is refused by name.
 */
#include <string.h>
#include <sys/stat.h>

#include "floe/catalog.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "floe_test.h"
#include "formats/parquet/writer.h"
#include "sql_capture.h"

#define SDIR "apache__parquet-testing/shredded_variant"

static const char *TABLE_SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"int\"},"
    "{\"id\":2,\"name\":\"doc\",\"required\":false,\"type\":\"variant\"}]}";

static int64_t file_size(const char *path) {
    struct stat sb;
    if (stat(path, &sb) != 0) fail_msg("no file %s", path);
    return (int64_t)sb.st_size;
}

/* A v3 table over data files paths[0..n) (rows[i] each), written by hand:
 * one manifest, a manifest list, v1.metadata.json; returns its path. */
static void write_table(const char *dir, const char *const *paths, const int64_t *rows, int n, char *md_path,
                        size_t cap) {
    char p[4200];
    snprintf(p, sizeof p, "mkdir -p '%s/metadata'", dir);
    assert_int_equal(system(p), 0);
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(TABLE_SCHEMA, &schema));
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_ice_partition_spec_new(0, &spec));
    snprintf(p, sizeof p, "%s/metadata/m0.avro", dir);
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(p, 1, &out));
    floe_ice_manifest_writer_options o = {3, FLOE_ICE_MANIFEST_DATA, schema, spec, 7};
    floe_ice_manifest_writer *w = NULL;
    assert_ok(floe_ice_manifest_writer_open(out, &o, &w));
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        floe_ice_manifest_entry e;
        memset(&e, 0, sizeof e);
        e.status = FLOE_ICE_STATUS_ADDED;
        e.snapshot_id = 7;
        e.sequence_number = e.file_sequence_number = 1;
        floe_ice_data_file_init(&e.file);
        e.file.content = FLOE_ICE_CONTENT_DATA;
        e.file.file_path = paths[i];
        e.file.file_format = "parquet";
        e.file.record_count = rows[i];
        e.file.file_size_in_bytes = file_size(paths[i]);
        total += rows[i];
        assert_ok(floe_ice_manifest_writer_add(w, &e));
    }
    floe_ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    assert_ok(floe_ice_manifest_writer_finish(w, &mf));
    mf.manifest_length = (int64_t)out->bytes_written;
    assert_ok(floe_output_close(out));
    mf.manifest_path = p;
    mf.content = FLOE_ICE_MANIFEST_DATA;
    mf.sequence_number = mf.min_sequence_number = 1;
    mf.added_snapshot_id = 7;
    char list[4200];
    snprintf(list, sizeof list, "%s/metadata/snap-7.avro", dir);
    assert_ok(floe_output_create_local(list, 1, &out));
    floe_ice_manifest_list_options lo = {3, 7, FLOE_ICE_NO_SNAPSHOT, 1, true, 0};
    assert_ok(floe_ice_manifest_list_write(out, &lo, &mf, 1));
    assert_ok(floe_output_close(out));
    snprintf(md_path, cap, "%s/metadata/v1.metadata.json", dir);
    FILE *f = fopen(md_path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"format-version\":3,\"next-row-id\":%lld,\"table-uuid\":\"00000000-0000-0000-0000-0000000000v3\","
            "\"location\":\"%s\",\"last-sequence-number\":1,\"last-updated-ms\":1,\"last-column-id\":2,"
            "\"current-schema-id\":0,\"schemas\":[%s],\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,"
            "\"fields\":[]}],\"last-partition-id\":999,\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
            "\"fields\":[]}],\"properties\":{},\"current-snapshot-id\":7,\"snapshots\":[{\"snapshot-id\":7,"
            "\"sequence-number\":1,\"timestamp-ms\":1,\"first-row-id\":0,\"added-rows\":%lld,\"manifest-list\":\"%s\","
            "\"summary\":{\"operation\":\"append\"}}],\"snapshot-log\":[],\"metadata-log\":[]}\n",
            (long long)total, dir, TABLE_SCHEMA, (long long)total, list);
    fclose(f);
    floe_free(mf.partitions);
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(schema);
}

/* An old data file: only `id` (field id 1), ids 100 and 101. */
static void write_old_file(const char *path) {
    floe_field f;
    assert_ok(floe_field_init(&f, "id", floe_type_primitive(FLOE_TYPE_INT32), false, 1));
    floe_schema *s;
    assert_ok(floe_type_struct(&f, 1, &s));
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT32), 2, &b));
    assert_ok(floe_builder_append_int32(b, 100));
    assert_ok(floe_builder_append_int32(b, 101));
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    floe_batch *batch;
    assert_ok(floe_batch_new(s, &a, 1, 2, &batch));
    floe_pq_write_options o;
    floe_pq_write_options_init(&o);
    floe_output *out = NULL;
    floe_pq_writer *w = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    assert_ok(floe_pq_writer_open(out, s, &o, &w));
    assert_ok(floe_pq_writer_write(w, batch));
    assert_ok(floe_pq_writer_close(w, NULL));
    floe_batch_release(batch);
    floe_array_release(a);
    floe_type_release(s);
    floe_field_clear(&f);
}

static void variant_table_reads_through_sql(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    char wh[1024];
    floe_test_tmpdir(wh, sizeof wh, "iceberg_variant");
    floe_session *s = NULL;
    assert_ok(floe_session_open(wh, &s));
    floe_catalog *c = floe_session_catalog(s);
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    char old[2048], p83[2048], p134[2048], p136[2048], p129[2048], tdir[2048], md[4300];
    snprintf(old, sizeof old, "%s/old.parquet", wh);
    write_old_file(old);
    snprintf(p83, sizeof p83, "%s/" SDIR "/case-083.parquet", dir);   /* 0: NULL, 1..3 objects */
    snprintf(p134, sizeof p134, "%s/" SDIR "/case-134.parquet", dir); /* partially shredded */
    snprintf(p136, sizeof p136, "%s/" SDIR "/case-136.parquet", dir); /* a shredded nested array */
    snprintf(p129, sizeof p129, "%s/" SDIR "/case-129.parquet", dir); /* a variant null */
    const char *paths[5] = {old, p83, p134, p136, p129};
    const int64_t rows[5] = {2, 4, 1, 1, 1};
    snprintf(tdir, sizeof tdir, "%s/db/t", wh);
    write_table(tdir, paths, rows, 5, md, sizeof md);
    assert_ok(floe_catalog_register_table(c, "db", "t", md, NULL));

    char *got = sql_query_text(s, "SELECT id, doc FROM db.t ORDER BY id, doc::text");
    assert_string_equal(got,
                        "0|NULL\n"
                        "1|[[\"comedy\",\"drama\"],[]]\n"
                        "1|null\n"
                        "1|{\"a\":null,\"b\":\"iceberg\",\"d\":\"2024-01-30\"}\n"
                        "1|{\"c\":{\"b\":\"iceberg\"}}\n"
                        "2|{\"c\":8,\"d\":-0.0}\n"
                        "3|{\"c\":{\"a\":34,\"b\":\"\"},\"d\":0.0}\n"
                        "100|NULL\n"
                        "101|NULL\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT id, doc->'c'->>'b', variant_get(doc, '$.c.a', 'int'), doc->>'d', doc->0->>1, "
                            "variant_typeof(doc) FROM db.t WHERE doc IS NOT NULL ORDER BY id, doc::text");
    assert_string_equal(got,
                        "1|NULL|NULL|NULL|drama|array\n"
                        "1|NULL|NULL|NULL|NULL|null\n"
                        "1|NULL|NULL|2024-01-30|NULL|object\n"
                        "1|iceberg|NULL|NULL|NULL|object\n"
                        "2|NULL|NULL|-0.0|NULL|object\n"
                        "3||34|0.0|NULL|object\n");
    floe_free(got);
    /* IS NULL is SQL NULL only: the old file's rows and case 83's row 0. */
    got = sql_query_text(s, "SELECT id FROM db.t WHERE doc IS NULL ORDER BY id");
    assert_string_equal(got, "0\n100\n101\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT count(*), count(doc), sum(CASE WHEN is_variant_null(doc) THEN 1 ELSE 0 END) FROM db.t");
    assert_string_equal(got, "9|6|1\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT id FROM db.t WHERE variant_get(doc, '$.c.a', 'bigint') = 34");
    assert_string_equal(got, "3\n");
    floe_free(got);
    /* A renamed column still reads by id. */
    assert_ok(floe_session_execute(s, "ALTER TABLE db.t RENAME COLUMN doc TO body", NULL));
    got = sql_query_text(s, "SELECT body->>'d' FROM db.t WHERE id = 2");
    assert_string_equal(got, "-0.0\n");
    floe_free(got);
    /* Writing the column is refused by name. */
    floe_status st = floe_session_execute(s, "INSERT INTO db.t (id) VALUES (7)", NULL);
    if (!st) fail_msg("INSERT into a table with a variant column succeeded");
    assert_non_null(strstr(floe_status_message(st), "variant"));
    floe_status_free(st);
    floe_session_close(s);
}

FLOE_TEST_MAIN(cmocka_unit_test(variant_table_reads_through_sql))
