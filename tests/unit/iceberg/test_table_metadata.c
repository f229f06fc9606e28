/*
 * test_table_metadata.c — Iceberg table metadata: every valid fixture from
 * the Java, Rust, Go and C++ implementations and every metadata file of the
 * duckdb-iceberg tables loads and survives write -> read unchanged; every
 * invalid fixture fails with a message saying what is wrong; gzip and zstd
 * metadata; snapshot lookups; locating tables and remapping moved paths.
 */
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <sys/stat.h>

#include "floe_test.h"

#include <jansson.h>

#include "base/buffer.h"
#include "floe/iceberg_table_metadata.h"
#include "floe/memory.h"
#include "formats/compress.h"

static uint8_t *slurp(const char *path, size_t *len) {
    floe_input *in = NULL;
    assert_ok(floe_input_open_local(path, &in));
    uint8_t *data = NULL;
    assert_ok(floe_input_read_all(in, &data, len));
    floe_input_close(in);
    return data;
}

/* Load, write, re-read, re-write: the two written texts must be equal and
 * the re-read metadata must agree on the essentials. */
static void check_round_trip(const char *path) {
    floe_ice_table_metadata *md = NULL, *md2 = NULL;
    floe_status st = floe_ice_table_metadata_read(NULL, path, &md);
    if (st) fail_msg("%s: %s", path, floe_status_message(st));
    char *a = NULL, *b = NULL;
    assert_ok(floe_ice_table_metadata_to_json(md, 0, &a));
    assert_ok(floe_ice_table_metadata_parse(a, strlen(a), "rewritten", &md2));
    assert_ok(floe_ice_table_metadata_to_json(md2, 0, &b));
    if (strcmp(a, b) != 0) fail_msg("%s: write -> read -> write differs:\n%s\n%s", path, a, b);
    assert_int_equal(md->format_version, md2->format_version);
    assert_int_equal(md->n_snapshots, md2->n_snapshots);
    assert_true(md->current_snapshot_id == md2->current_snapshot_id);
    assert_int_equal(md->n_schemas, md2->n_schemas);
    floe_free(a);
    floe_free(b);
    floe_ice_table_metadata_free(md);
    floe_ice_table_metadata_free(md2);
}

static const char *const valid_globs[] = {
    "apache__iceberg/core/src/test/resources/TableMetadata*Valid*.json",
    "apache__iceberg/core/src/test/resources/TableMetadata*Statistics*.json",
    "apache__iceberg-rust/crates/iceberg/testdata/table_metadata/TableMetadata*Valid*.json",
    "apache__iceberg-rust/crates/iceberg/testdata/table_metadata/TableMetadataV1Compat.json",
    "apache__iceberg-rust/crates/iceberg/testdata/example_*table_metadata*.json",
    "apache__iceberg-go/table/testdata/TableMetadata*.json",
    "apache__iceberg-cpp/src/iceberg/test/resources/TableMetadata*Valid*.json",
    "apache__iceberg-cpp/src/iceberg/test/resources/TableMetadataStatisticsFiles.json",
};

static void valid_fixtures_load_and_round_trip(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    int n = 0;
    for (size_t g = 0; g < sizeof valid_globs / sizeof *valid_globs; g++) {
        char pat[4096];
        glob_t gl;
        snprintf(pat, sizeof pat, "%s/%s", td, valid_globs[g]);
        if (glob(pat, 0, NULL, &gl) != 0) fail_msg("no fixtures match %s", pat);
        for (size_t i = 0; i < gl.gl_pathc; i++) {
            if (strstr(gl.gl_pathv[i], "NoValid")) continue; /* "V1NoValidSchema" is an invalid case */
            check_round_trip(gl.gl_pathv[i]);
            n++;
        }
        globfree(&gl);
    }
    assert_true(n >= 15);
}

static int n_duck;
static int visit_duck(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)ftw;
    size_t l = strlen(path);
    /* big_query_error's v0.metadata.json is BigQuery's placeholder (only
     * "properties" and "current-snapshot-id"), not table metadata: it must
     * fail, and does so with a reason. */
    if (flag == FTW_F && strstr(path, "big_query_error/metadata/v0.metadata.json")) {
        floe_ice_table_metadata *md = NULL;
        assert_error(floe_ice_table_metadata_read(NULL, path, &md), FLOE_ERR_CORRUPT, "missing 'format-version'");
        return 0;
    }
    if (flag == FTW_F && l > 14 && strcmp(path + l - 14, ".metadata.json") == 0 && !strstr(path, "/bad_data/")) {
        check_round_trip(path);
        n_duck++;
    }
    return 0;
}

static void every_duckdb_iceberg_metadata_file_loads(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg", td);
    n_duck = 0;
    assert_int_equal(nftw(dir, visit_duck, 16, FTW_PHYS), 0);
    assert_true(n_duck >= 100);
}

static void invalid_fixtures_fail_with_a_reason(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    static const struct {
        const char *file;
        floe_code code;
        const char *needle;
    } cases[] = {
        {"apache__iceberg/core/src/test/resources/TableMetadataV2MissingSchemas.json", FLOE_ERR_CORRUPT, "missing 'schemas'"},
        {"apache__iceberg/core/src/test/resources/TableMetadataV2MissingPartitionSpecs.json", FLOE_ERR_CORRUPT,
         "missing 'partition-specs'"},
        {"apache__iceberg/core/src/test/resources/TableMetadataV2MissingLastPartitionId.json", FLOE_ERR_CORRUPT,
         "missing 'last-partition-id'"},
        {"apache__iceberg/core/src/test/resources/TableMetadataV2MissingSortOrder.json", FLOE_ERR_CORRUPT,
         "missing 'sort-orders'"},
        {"apache__iceberg/core/src/test/resources/TableMetadataV2CurrentSchemaNotFound.json", FLOE_ERR_CORRUPT,
         "current-schema-id 2 is not one of"},
        {"apache__iceberg/core/src/test/resources/TableMetadataUnsupportedVersion.json", FLOE_ERR_UNSUPPORTED,
         "unsupported format-version 42"},
        {"apache__iceberg/core/src/test/resources/TableMetadataV1MissingSchemaType.json", FLOE_ERR_CORRUPT,
         "missing 'type'"},
        {"apache__iceberg-rust/crates/iceberg/testdata/table_metadata/TableMetadataV1NoValidSchema.json", FLOE_ERR_CORRUPT,
         "'current-schema-id' is required"},
        {"apache__iceberg-rust/crates/iceberg/testdata/table_metadata/TableMetadataV1SchemasWithoutCurrentId.json",
         FLOE_ERR_CORRUPT, "'current-schema-id' is required"},
        {"apache__iceberg-rust/crates/iceberg/testdata/table_metadata/TableMetadataV1PartitionSpecsWithoutDefaultId.json",
         FLOE_ERR_CORRUPT, "'default-spec-id' is required"},
        {"apache__iceberg-cpp/src/iceberg/test/resources/TableMetadataV2MissingSortOrder.json", FLOE_ERR_CORRUPT,
         "missing 'sort-orders'"},
        {"duckdb__duckdb-iceberg/data/persistent/bad_data/bad_iceberg_metadata.json", FLOE_ERR_CORRUPT, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", td, cases[i].file);
        floe_ice_table_metadata *md = NULL;
        floe_status st = floe_ice_table_metadata_read(NULL, p, &md);
        if (!st) fail_msg("%s loaded, expected an error", cases[i].file);
        if (floe_status_code(st) != cases[i].code || (cases[i].needle && !strstr(floe_status_message(st), cases[i].needle)))
            fail_msg("%s: got [%s] %s", cases[i].file, floe_code_name(floe_status_code(st)), floe_status_message(st));
        /* The message names the file. */
        assert_non_null(strstr(floe_status_message(st), "table metadata '"));
        floe_status_free(st);
    }
}

static void bad_json_and_wrong_types_are_reported(void **state) {
    (void)state;
    floe_ice_table_metadata *md = NULL;
    assert_error(floe_ice_table_metadata_parse("{\"format-version\": 2,", 21, "t.json", &md), FLOE_ERR_CORRUPT,
                 "invalid JSON");
    const char *j = "{\"format-version\":1,\"location\":5,\"last-updated-ms\":1,\"last-column-id\":1}";
    assert_error(floe_ice_table_metadata_parse(j, strlen(j), "t.json", &md), FLOE_ERR_CORRUPT,
                 "'location' must be a string");
    j = "[1,2]";
    assert_error(floe_ice_table_metadata_parse(j, strlen(j), "t.json", &md), FLOE_ERR_CORRUPT, "not a JSON object");
    uint8_t gz[] = {0x1f, 0x8b, 8, 0, 0, 0};
    assert_error(floe_ice_table_metadata_parse_bytes(gz, sizeof gz, "x.gz.metadata.json", &md), FLOE_ERR_CORRUPT,
                 "x.gz.metadata.json");
    assert_error(floe_ice_table_metadata_parse_bytes((const uint8_t *)"{}", 2, "x.gz.metadata.json", &md),
                 FLOE_ERR_CORRUPT, "not gzip");
}

static void gzip_and_zstd_metadata_read(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char p[4096];
    floe_ice_table_metadata *md = NULL;
    snprintf(p, sizeof p, "%s/duckdb__duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg_gz/metadata/v2.gz.metadata.json", td);
    assert_ok(floe_ice_table_metadata_read(NULL, p, &md));
    assert_int_equal(md->format_version, 1);
    assert_non_null(floe_ice_tm_current_snapshot(md));
    floe_ice_table_metadata_free(md);

    snprintf(p, sizeof p, "%s/apache__iceberg-go/table/testdata/TableMetadataV2Valid.zstd.metadata.json", td);
    assert_ok(floe_ice_table_metadata_read(NULL, p, &md));
    assert_int_equal(md->format_version, 2);
    floe_ice_table_metadata_free(md);

    /* floe-compressed copies of a plain fixture give identical metadata. */
    snprintf(p, sizeof p, "%s/apache__iceberg/core/src/test/resources/TableMetadataV2Valid.json", td);
    size_t len;
    uint8_t *raw = slurp(p, &len);
    char *want = NULL;
    assert_ok(floe_ice_table_metadata_parse((const char *)raw, len, p, &md));
    assert_ok(floe_ice_table_metadata_to_json(md, 0, &want));
    floe_ice_table_metadata_free(md);
    floe_codec codecs[] = {FLOE_CODEC_GZIP, FLOE_CODEC_ZSTD};
    for (int i = 0; i < 2; i++) {
        floe_buf b = FLOE_BUF_INIT;
        assert_ok(floe_compress(codecs[i], 0, raw, len, &b));
        char *got = NULL;
        assert_ok(floe_ice_table_metadata_parse_bytes(b.data, b.len, "c.metadata.json", &md));
        assert_ok(floe_ice_table_metadata_to_json(md, 0, &got));
        assert_string_equal(got, want);
        floe_free(got);
        floe_ice_table_metadata_free(md);
        floe_buf_free(&b);
    }
    floe_free(want);
    floe_free(raw);
}

static void v2_fixture_fields_and_snapshot_lookups(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char p[4096];
    snprintf(p, sizeof p, "%s/apache__iceberg/core/src/test/resources/TableMetadataV2Valid.json", td);
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_table_metadata_read(NULL, p, &md));
    assert_string_equal(md->table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
    assert_string_equal(md->location, "s3://bucket/test/location");
    assert_true(md->last_sequence_number == 34);
    assert_int_equal(md->last_column_id, 3);
    assert_int_equal(md->current_schema_id, 1);
    assert_int_equal(floe_ice_tm_current_schema(md)->identifier_field_ids[1], 2);
    assert_int_equal(md->last_partition_id, 1000);
    assert_int_equal(floe_ice_tm_sort_order(md, 3)->n_fields, 2);
    const floe_ice_snapshot *s = floe_ice_tm_current_snapshot(md);
    assert_non_null(s);
    assert_true(s->snapshot_id == 3055729675574597004LL);
    assert_true(s->parent_snapshot_id == 3051729675574597004LL);
    assert_string_equal(s->manifest_list, "s3://a/b/2.avro");
    assert_string_equal(s->operation, "append");
    assert_true(s->has_schema_id && s->schema_id == 1);
    /* No "refs": "main" is implied by current-snapshot-id. */
    assert_true(md->refs_implied);
    const floe_ice_snapshot *r = NULL;
    assert_ok(floe_ice_tm_snapshot_by_ref(md, "main", &r));
    assert_ptr_equal(r, s);
    assert_error(floe_ice_tm_snapshot_by_ref(md, "nope", &r), FLOE_ERR_NOT_FOUND, "nope");
    /* Time travel through the snapshot log. */
    assert_ok(floe_ice_tm_snapshot_as_of(md, 1515100955770LL, &r));
    assert_true(r->snapshot_id == 3051729675574597004LL);
    assert_ok(floe_ice_tm_snapshot_as_of(md, 1555100955769LL, &r));
    assert_true(r->snapshot_id == 3051729675574597004LL);
    assert_ok(floe_ice_tm_snapshot_as_of(md, 1555100955770LL, &r));
    assert_ptr_equal(r, s);
    assert_error(floe_ice_tm_snapshot_as_of(md, 1515100955769LL, &r), FLOE_ERR_NOT_FOUND, "no snapshot");
    floe_ice_table_metadata_free(md);
}

static void refs_tags_and_v3_fields_read(void **state) {
    (void)state;
    const char *j =
        "{\"format-version\":3,\"table-uuid\":\"u\",\"location\":\"/t\",\"last-sequence-number\":2,"
        "\"last-updated-ms\":5,\"last-column-id\":1,\"current-schema-id\":0,"
        "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"long\"}]}],"
        "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],\"last-partition-id\":999,"
        "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{\"k\":\"v\"},"
        "\"current-snapshot-id\":2,\"next-row-id\":30,"
        "\"refs\":{\"main\":{\"snapshot-id\":2,\"type\":\"branch\",\"min-snapshots-to-keep\":3},"
        "\"v1\":{\"snapshot-id\":1,\"type\":\"tag\",\"max-ref-age-ms\":1000}},"
        "\"snapshots\":[{\"snapshot-id\":1,\"sequence-number\":1,\"timestamp-ms\":3,\"summary\":{\"operation\":\"append\","
        "\"added-records\":\"10\"},\"manifest-list\":\"/t/metadata/s1.avro\",\"first-row-id\":0,\"added-rows\":10},"
        "{\"snapshot-id\":2,\"parent-snapshot-id\":1,\"sequence-number\":2,\"timestamp-ms\":4,\"summary\":{\"operation\":"
        "\"overwrite\"},\"manifest-list\":\"/t/metadata/s2.avro\",\"first-row-id\":10,\"added-rows\":20}],"
        "\"snapshot-log\":[{\"timestamp-ms\":3,\"snapshot-id\":1},{\"timestamp-ms\":4,\"snapshot-id\":2}],"
        "\"metadata-log\":[{\"timestamp-ms\":2,\"metadata-file\":\"/t/metadata/v1.metadata.json\"}],"
        "\"encryption-keys\":[{\"key-id\":\"k1\",\"encrypted-key-metadata\":\"AAA=\"}]}";
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_table_metadata_parse(j, strlen(j), "v3", &md));
    assert_true(md->has_next_row_id && md->next_row_id == 30);
    assert_string_equal(floe_ice_tm_property(md, "k"), "v");
    const floe_ice_snapshot *s = NULL;
    assert_ok(floe_ice_tm_snapshot_by_ref(md, "v1", &s));
    assert_true(s->snapshot_id == 1 && s->has_first_row_id && s->added_rows == 10);
    assert_string_equal(s->summary[0].key, "added-records");
    const floe_ice_snapshot_ref *r = floe_ice_tm_ref(md, "v1");
    assert_true(r->is_tag && r->max_ref_age_ms == 1000 && r->min_snapshots_to_keep == -1);
    assert_int_equal(floe_ice_tm_ref(md, "main")->min_snapshots_to_keep, 3);
    assert_string_equal(md->metadata_log[0].file, "/t/metadata/v1.metadata.json");
    assert_non_null(strstr(md->encryption_keys_json, "k1"));
    char *a = NULL;
    assert_ok(floe_ice_table_metadata_to_json(md, 1, &a));
    assert_non_null(strstr(a, "\"encryption-keys\""));
    assert_non_null(strstr(a, "\"type\": \"tag\""));
    floe_free(a);
    floe_ice_table_metadata_free(md);
}

static void snapshot_ids_beyond_64_bits_wrap_as_java_reads_them(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char p[4096];
    snprintf(p, sizeof p, "%s/duckdb__duckdb-iceberg/data/persistent/equality_delete_dropped_column/mytable/metadata/v2.metadata.json", td);
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_table_metadata_read(NULL, p, &md));
    /* 9876543210123456789 - 2^64 */
    assert_true(md->current_snapshot_id == -8570200863586094827LL);
    assert_non_null(floe_ice_tm_current_snapshot(md));
    floe_ice_table_metadata_free(md);
}

static void tables_are_located_by_hint_or_highest_version(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    static const struct {
        const char *dir, *want;
    } cases[] = {
        {"data/persistent/iceberg/lineitem_iceberg_gz_no_hint", "metadata/v2.gz.metadata.json"},
        {"data/persistent/iceberg/lineitem_iceberg_gz", "metadata/v2.gz.metadata.json"},
        {"data/persistent/iceberg/lineitem_iceberg_no_hint/", "metadata/v2.metadata.json"},
        {"data/persistent/is_null_is_not_null", "metadata/00001-43ceeb9a-cd0d-4556-b1e2-513b5bf88ff8.metadata.json"},
        {"data/persistent/big_query_error", "metadata/v1749025517.metadata.json"},
        {"data/persistent/legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector",
         "metadata/00002-legacy-bare-dv.metadata.json"},
        {"data/persistent/partition_time/default.db/partition_time/metadata",
         "metadata/00001-44546aa6-1ee5-48c5-9e3b-bc6c0bc0a60c.metadata.json"},
        {"data/persistent/equality_delete_cross_partition/warehouse/ns/t", "metadata/vfinal.metadata.json"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/%s", td, cases[i].dir);
        char *got = NULL;
        assert_ok(floe_ice_table_find_metadata(NULL, dir, &got));
        if (!strstr(got, cases[i].want)) fail_msg("%s: found %s, want %s", cases[i].dir, got, cases[i].want);
        floe_free(got);
    }
    char *got = NULL;
    assert_error(floe_ice_table_find_metadata(NULL, "/nonexistent/table", &got), FLOE_ERR_NOT_FOUND, "/nonexistent");
}

static void write_text(const char *dir, const char *name, const char *text) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A Hadoop-style writer commits v<N+1>.metadata.json and only then
 * rewrites version-hint.text: a reader that trusts a lagging hint reads an
 * old snapshot.  Java's HadoopTableOperations looks for newer versions
 * after the hint; so does floe (plain and gzip names alike). */
static void a_lagging_version_hint_is_passed_by_newer_versions(void **state) {
    (void)state;
    char dir[1024], mdir[1100];
    floe_test_tmpdir(dir, sizeof dir, "lagging_hint");
    snprintf(mdir, sizeof mdir, "%s/metadata", dir);
    assert_int_equal(mkdir(mdir, 0755), 0);
    write_text(mdir, "version-hint.text", "2\n");
    write_text(mdir, "v1.metadata.json", "{}");
    write_text(mdir, "v2.metadata.json", "{}");
    char *got = NULL;
    assert_ok(floe_ice_table_find_metadata(NULL, dir, &got));
    assert_non_null(strstr(got, "/v2.metadata.json"));
    floe_free(got);
    write_text(mdir, "v3.metadata.json", "{}");
    write_text(mdir, "v4.gz.metadata.json", "{}");
    assert_ok(floe_ice_table_find_metadata(NULL, dir, &got));
    if (!strstr(got, "/v4.gz.metadata.json")) fail_msg("a hint of 2 with v3 and v4 present found %s", got);
    floe_free(got);
    /* a gap ends the search: v6 alone is not reached from v4 */
    write_text(mdir, "v6.metadata.json", "{}");
    assert_ok(floe_ice_table_find_metadata(NULL, dir, &got));
    assert_non_null(strstr(got, "/v4.gz.metadata.json"));
    floe_free(got);
}

static void moved_paths_resolve_to_the_table_root(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    static const struct {
        const char *table, *recorded, *want_suffix;
    } cases[] = {
        /* repo-relative location */
        {"data/persistent/partition_integer", "data/persistent/partition_integer/metadata/x.avro",
         "duckdb__duckdb-iceberg/data/persistent/partition_integer/metadata/x.avro"},
        /* "./lineitem_iceberg" */
        {"data/persistent/iceberg/lineitem_iceberg", "./lineitem_iceberg/data/f.parquet",
         "persistent/iceberg/lineitem_iceberg/data/f.parquet"},
        /* file://relative */
        {"data/persistent/map_stats/default.db/map_stats", "file://data/persistent/map_stats/default.db/map_stats/data/a.parquet",
         "persistent/map_stats/default.db/map_stats/data/a.parquet"},
        /* file:///absolute elsewhere */
        {"data/persistent/equality_delete_dropped_column/mytable", "file:///tmp/dropped_eq_col/_build/warehouse/ns/t/data/d.parquet",
         "equality_delete_dropped_column/mytable/data/d.parquet"},
    };
    floe_fileio *io = NULL;
    assert_ok(floe_fileio_new(NULL, 0, &io));
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/%s", td, cases[i].table);
        floe_ice_table *t = NULL;
        assert_ok(floe_ice_table_open(io, dir, true, &t));
        char *got = NULL;
        assert_ok(floe_ice_table_resolve_path(t, cases[i].recorded, &got));
        size_t gl = strlen(got), wl = strlen(cases[i].want_suffix);
        if (gl < wl || strcmp(got + gl - wl, cases[i].want_suffix) != 0)
            fail_msg("%s: %s -> %s, want ...%s", cases[i].table, cases[i].recorded, got, cases[i].want_suffix);
        floe_free(got);
        /* Without allow_moved_paths nothing changes. */
        t->allow_moved_paths = false;
        assert_ok(floe_ice_table_resolve_path(t, cases[i].recorded, &got));
        assert_string_equal(got, cases[i].recorded);
        floe_free(got);
        floe_ice_table_free(t);
    }
    /* A typo'd location and a file outside the table directory: found
     * through the common ancestor and by probing. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/duckdb__duckdb-iceberg/data/persistent/column_mapping/warehouse/default.db/my_table", td);
    floe_ice_table *t = NULL;
    assert_ok(floe_ice_table_open(io, dir, true, &t));
    char *got = NULL;
    assert_ok(floe_ice_table_resolve_path(t, "data/persistent/column_mapping/warehouse/example/mock_data.parquet", &got));
    struct stat sb;
    if (stat(got, &sb) != 0) fail_msg("resolved %s does not exist", got);
    floe_free(got);
    floe_ice_table_free(t);
    floe_fileio_free(io);
}


/* Replace every member of the root, of the first snapshot and of the first
 * schema with values of every wrong type: each variant must parse or fail
 * cleanly (the sanitizer build checks "cleanly"), and required root keys
 * must fail. */
static void mutated_metadata_never_crashes(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char p[4096];
    snprintf(p, sizeof p, "%s/apache__iceberg/core/src/test/resources/TableMetadataV2Valid.json", td);
    json_t *orig = json_load_file(p, 0, NULL);
    assert_non_null(orig);
    json_t *bad[] = {json_string("x"), json_real(1.5), json_array(), json_object(), json_null(), json_integer(-7)};
    const char *paths[] = {"", "snapshots", "schemas"};
    int failures = 0, runs = 0;
    for (int w = 0; w < 3; w++) {
        json_t *probe = json_deep_copy(orig);
        json_t *obj = w == 0 ? probe : json_array_get(json_object_get(probe, paths[w]), 0);
        const char *key;
        json_t *val;
        void *tmp;
        json_object_foreach_safe(obj, tmp, key, val) {
            for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
                json_t *copy = json_deep_copy(orig);
                json_t *target = w == 0 ? copy : json_array_get(json_object_get(copy, paths[w]), 0);
                json_object_set(target, key, bad[b]);
                char *text = json_dumps(copy, 0);
                floe_ice_table_metadata *md = NULL;
                floe_status st = floe_ice_table_metadata_parse(text, strlen(text), "mutant", &md);
                runs++;
                if (st) {
                    failures++;
                    assert_true(strlen(floe_status_message(st)) > 0);
                    floe_status_free(st);
                } else {
                    char *out = NULL;
                    assert_ok(floe_ice_table_metadata_to_json(md, 0, &out));
                    floe_free(out);
                    floe_ice_table_metadata_free(md);
                }
                free(text);
                json_decref(copy);
            }
            (void)val;
        }
        json_decref(probe);
    }
    /* Required root keys with a string where an integer belongs must fail. */
    static const char *const required[] = {"format-version", "last-sequence-number", "last-updated-ms", "last-column-id",
                                           "current-schema-id", "default-spec-id", "last-partition-id"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++) {
        json_t *copy = json_deep_copy(orig);
        json_object_set_new(copy, required[i], json_string("x"));
        char *text = json_dumps(copy, 0);
        floe_ice_table_metadata *md = NULL;
        floe_status st = floe_ice_table_metadata_parse(text, strlen(text), "mutant", &md);
        if (!st) fail_msg("'%s' as a string was accepted", required[i]);
        assert_non_null(strstr(floe_status_message(st), required[i]));
        floe_status_free(st);
        free(text);
        json_decref(copy);
    }
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) json_decref(bad[b]);
    json_decref(orig);
    assert_true(runs > 100 && failures > 30);
}

FLOE_TEST_MAIN(cmocka_unit_test(mutated_metadata_never_crashes),
               cmocka_unit_test(valid_fixtures_load_and_round_trip),
               cmocka_unit_test(every_duckdb_iceberg_metadata_file_loads),
               cmocka_unit_test(invalid_fixtures_fail_with_a_reason),
               cmocka_unit_test(bad_json_and_wrong_types_are_reported),
               cmocka_unit_test(gzip_and_zstd_metadata_read),
               cmocka_unit_test(v2_fixture_fields_and_snapshot_lookups),
               cmocka_unit_test(refs_tags_and_v3_fields_read),
               cmocka_unit_test(snapshot_ids_beyond_64_bits_wrap_as_java_reads_them),
               cmocka_unit_test(tables_are_located_by_hint_or_highest_version),
               cmocka_unit_test(a_lagging_version_hint_is_passed_by_newer_versions),
               cmocka_unit_test(moved_paths_resolve_to_the_table_root))
