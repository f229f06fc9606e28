/*
 * test_orc_data_files.c — Iceberg tables whose data files are ORC (Iceberg
 * Java and Hive write them with write.format.default=orc).  ORC's own
 * example written by Iceberg, complextypes_iceberg.orc (every type carries
 * the iceberg.id attribute; lists, maps and structs nested four deep), is
 * appended to a catalog table with the same schema; SQL reads it by field
 * id, beside a Parquet file INSERTed into the same table, with filters
 * (stripe and row-group statistics) and after a column rename.
 */
#include <string.h>

#include "floe/catalog.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "floe_test.h"
#include "sql_capture.h"

/* The file's schema, as Iceberg Java wrote it (ids as floe_ice_tm_new
 * assigns them too: Java's assignFreshIds order). */
static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"int_array\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":7,"
    "\"element\":\"int\",\"element-required\":false}},"
    "{\"id\":3,\"name\":\"int_array_array\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":8,"
    "\"element\":{\"type\":\"list\",\"element-id\":9,\"element\":\"int\",\"element-required\":false},"
    "\"element-required\":false}},"
    "{\"id\":4,\"name\":\"int_map\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":10,\"key\":\"string\","
    "\"value-id\":11,\"value\":\"int\",\"value-required\":false}},"
    "{\"id\":5,\"name\":\"int_map_array\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":12,"
    "\"element\":{\"type\":\"map\",\"key-id\":13,\"key\":\"string\",\"value-id\":14,\"value\":\"int\","
    "\"value-required\":false},\"element-required\":false}},"
    "{\"id\":6,\"name\":\"nested_struct\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":15,\"name\":\"a\",\"required\":false,\"type\":\"int\"},"
    "{\"id\":16,\"name\":\"b\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":19,"
    "\"element\":\"int\",\"element-required\":false}},"
    "{\"id\":17,\"name\":\"c\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":20,\"name\":\"d\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":21,\"element\":"
    "{\"type\":\"list\",\"element-id\":22,\"element\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":23,\"name\":\"e\",\"required\":false,\"type\":\"int\"},"
    "{\"id\":24,\"name\":\"f\",\"required\":false,\"type\":\"string\"}]},\"element-required\":false},"
    "\"element-required\":false}}]}},"
    "{\"id\":18,\"name\":\"g\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":25,\"key\":\"string\","
    "\"value-id\":26,\"value\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":27,\"name\":\"h\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":28,\"name\":\"i\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":29,"
    "\"element\":\"double\",\"element-required\":false}}]}}]},\"value-required\":false}}]}}]}";

static void append_file(floe_catalog *c, const char *path, const char *format, int64_t rows) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    int64_t size = ftell(f);
    fclose(f);
    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.file_path = path;
    df.file_format = format;
    df.record_count = rows;
    df.file_size_in_bytes = size;
    floe_ice_type *ptype = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(floe_ice_tm_default_spec(t->md), floe_ice_tm_current_schema(t->md),
                                                     false, &ptype));
    floe_ice_data_file_codec *codec = NULL;
    assert_ok(floe_ice_data_file_codec_new(ptype, t->md->format_version, &codec));
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_ok(floe_ice_data_file_encode(codec, &df, &bytes, &len));
    const uint8_t *files[1] = {bytes};
    assert_ok(floe_catalog_append(c, "db", "t", files, &len, 1, NULL, 0, 4, NULL));
    floe_free(bytes);
    floe_ice_data_file_codec_free(codec);
    floe_ice_type_free(ptype);
    floe_ice_table_free(t);
}

static void orc_data_files_written_by_iceberg_read_by_field_id(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(td);
    char wh[1024], path[1200], cmd[3000];
    floe_test_tmpdir(wh, sizeof wh, "orc_data_files");
    snprintf(path, sizeof path, "%s/complextypes_iceberg.orc", wh);
    snprintf(cmd, sizeof cmd, "cp '%s/apache__orc/examples/complextypes_iceberg.orc' '%s'", td, path);
    assert_int_equal(system(cmd), 0);
    floe_session *s = NULL;
    assert_ok(floe_session_open(wh, &s));
    floe_catalog *c = floe_session_catalog(s);
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &schema));
    char *loc = NULL;
    assert_ok(floe_catalog_default_location(c, "db", "t", &loc));
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_new(schema, NULL, NULL, loc, NULL, 0, 2, &md));
    assert_ok(floe_catalog_create_table(c, "db", "t", md, NULL));
    floe_ice_table_metadata_free(md);
    floe_ice_schema_free(schema);
    floe_free(loc);
    append_file(c, path, "ORC", 1);

    char *got = sql_query_text(s, "SELECT * FROM db.t");
    assert_string_equal(got, "8|[-1]|[[-1, -2], []]|{'k1': -1}|[{}, {'k1': 1}, {}, {}]|"
                             "{a: -1, b: [-1], c: {d: [[{e: -1, f: 'nonnullable'}]]}, g: {}}\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT id, (nested_struct).a FROM db.t WHERE id = 8");
    assert_string_equal(got, "8|-1\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT count(*) FROM db.t WHERE id > 8");
    assert_string_equal(got, "0\n");
    floe_free(got);
    /* a Parquet file beside it, and a rename: still by id */
    assert_ok(floe_session_execute(s, "INSERT INTO db.t (id) VALUES (9)", NULL));
    assert_ok(floe_session_execute(s, "ALTER TABLE db.t RENAME COLUMN id TO ident", NULL));
    got = sql_query_text(s, "SELECT ident, int_array, _pos FROM db.t ORDER BY ident");
    assert_string_equal(got, "8|[-1]|0\n9|NULL|0\n");
    floe_free(got);
    floe_session_close(s);
}

FLOE_TEST_MAIN(cmocka_unit_test(orc_data_files_written_by_iceberg_read_by_field_id))
