/* Write settings from table properties (Iceberg Java's names, defaults and
 * MetricsConfig rules), refusal of values that do not parse, partition
 * paths as PartitionSpec.partitionToPath builds them, and data file
 * locations of the default and object-storage layouts (Java's own test
 * vectors from TestLocationProvider and TestPartitionPaths). */
#include "floe_test.h"

#include <string.h>

#include "floe/iceberg_data_writer.h"
#include "floe/iceberg_sort_order.h"
#include "floe/memory.h"
#include "iceberg/write/data_writer_internal.h"

static const char *SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"int\"},"
    "{\"id\":2,\"name\":\"data\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
    "{\"id\":4,\"name\":\"\\\"esc\\\"#1\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":5,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":6,\"name\":\"x\",\"required\":false,\"type\":\"int\"},"
    "{\"id\":7,\"name\":\"y\",\"required\":false,\"type\":\"int\"}]}},"
    "{\"id\":8,\"name\":\"d\",\"required\":false,\"type\":\"date\"},"
    "{\"id\":9,\"name\":\"l\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":10,"
    "\"element-required\":false,\"element\":\"long\"}},"
    "{\"id\":11,\"name\":\"bin\",\"required\":false,\"type\":\"binary\"},"
    "{\"id\":12,\"name\":\"dec\",\"required\":false,\"type\":\"decimal(9,2)\"}]}";

static floe_ice_schema *schema(void) {
    floe_ice_schema *s = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA, &s));
    return s;
}

static floe_ice_write_target target(const floe_ice_schema *s, const char *const *props, int32_t n) {
    floe_ice_write_target t = {0};
    t.location = "s3://bucket/db/tbl";
    t.format_version = 2;
    t.schema = s;
    t.properties = props;
    t.n_properties = n;
    return t;
}

static floe_ice_write_settings *settings(const floe_ice_schema *s, const char *const *props, int32_t n) {
    floe_ice_write_target t = target(s, props, n);
    floe_ice_write_settings *ws = NULL;
    assert_ok(floe_ice_write_settings_new(&t, &ws));
    return ws;
}

static void assert_mode(const floe_ice_write_settings *s, int32_t id, floe_ice_metrics_kind k, int32_t len) {
    floe_ice_metrics_mode m = floe_ice_write_settings_mode(s, id);
    assert_int_equal(m.kind, k);
    if (k == FLOE_ICE_METRICS_TRUNCATE) assert_int_equal(m.length, len);
}

/* ---- properties ---------------------------------------------------------------------- */

static void defaults_are_javas(void **state) {
    (void)state;
    floe_ice_schema *sc = schema();
    floe_ice_write_settings *s = settings(sc, NULL, 0);
    assert_int_equal(floe_ice_write_settings_target_file_size(s), 536870912);
    assert_true(floe_ice_write_settings_fanout(s));
    assert_int_equal(floe_ice_write_settings_distribution(s), FLOE_ICE_DIST_HASH);
    assert_int_equal(s->codec, FLOE_CODEC_ZSTD);
    assert_int_equal(s->level, 0);
    assert_int_equal(s->row_group_bytes, 134217728);
    assert_int_equal(s->page_bytes, 1048576);
    assert_int_equal(s->page_rows, 20000);
    assert_int_equal(s->dict_bytes, 2097152);
    assert_false(s->data_page_v2);
    assert_false(s->object_storage);
    assert_true(s->partitioned_paths);
    assert_string_equal(s->data_path, "s3://bucket/db/tbl/data");
    assert_int_equal(s->n_bloom, 0);
    for (int32_t id = 1; id <= 12; id++) assert_mode(s, id, FLOE_ICE_METRICS_TRUNCATE, 16);
    floe_ice_write_settings_free(s);
    floe_ice_schema_free(sc);
}

static void every_property_is_read(void **state) {
    (void)state;
    floe_ice_schema *sc = schema();
    const char *props[] = {"write.format.default", "PARQUET",
                           "write.target-file-size-bytes", "1000",
                           "write.distribution-mode", "range",
                           "write.fanout.enabled", "FALSE",
                           "write.data.path", "s3://other/place/",
                           "write.object-storage.enabled", "true",
                           "write.object-storage.partitioned-paths", "false",
                           "write.parquet.compression-codec", "SNAPPY",
                           "write.parquet.compression-level", "3",
                           "write.parquet.row-group-size-bytes", "4096",
                           "write.parquet.page-size-bytes", "1024",
                           "write.parquet.page-row-limit", "100",
                           "write.parquet.dict-size-bytes", "2048",
                           "write.parquet.page-version", "v2",
                           "write.parquet.bloom-filter-enabled.column.data", "true",
                           "write.parquet.bloom-filter-enabled.column.s.x", "true",
                           "write.parquet.bloom-filter-enabled.column.nope", "true",
                           "write.parquet.bloom-filter-max-bytes", "4096"};
    floe_ice_write_settings *s = settings(sc, props, 18);
    assert_int_equal(floe_ice_write_settings_target_file_size(s), 1000);
    assert_int_equal(floe_ice_write_settings_distribution(s), FLOE_ICE_DIST_RANGE);
    assert_false(floe_ice_write_settings_fanout(s));
    assert_string_equal(s->data_path, "s3://other/place");
    assert_true(s->object_storage);
    assert_false(s->partitioned_paths);
    assert_string_equal(s->object_context, "db/tbl");
    assert_int_equal(s->codec, FLOE_CODEC_SNAPPY);
    assert_int_equal(s->level, 3);
    assert_int_equal(s->row_group_bytes, 4096);
    assert_int_equal(s->page_bytes, 1024);
    assert_int_equal(s->page_rows, 100);
    assert_int_equal(s->dict_bytes, 2048);
    assert_true(s->data_page_v2);
    assert_int_equal(s->bloom_max_bytes, 4096);
    assert_int_equal(s->n_bloom, 2); /* unknown columns are skipped, as Java does */
    assert_int_equal(s->bloom_ids[0], 2);
    assert_int_equal(s->bloom_ids[1], 6);
    floe_ice_write_settings_free(s);

    static const struct {
        const char *name;
        floe_codec codec;
    } codecs[] = {{"zstd", FLOE_CODEC_ZSTD},    {"gzip", FLOE_CODEC_GZIP},   {"lz4", FLOE_CODEC_LZ4_RAW},
                  {"lz4_raw", FLOE_CODEC_LZ4_RAW}, {"brotli", FLOE_CODEC_BROTLI}, {"uncompressed", FLOE_CODEC_NONE},
                  {"none", FLOE_CODEC_NONE}};
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
        const char *p[] = {"write.parquet.compression-codec", codecs[i].name};
        s = settings(sc, p, 1);
        assert_int_equal(s->codec, codecs[i].codec);
        floe_ice_write_settings_free(s);
    }
    floe_ice_schema_free(sc);
}

static void bad_values_name_the_property_and_value(void **state) {
    (void)state;
    floe_ice_schema *sc = schema();
    static const struct {
        const char *key, *value;
        floe_code code;
    } cases[] = {
        {"write.target-file-size-bytes", "abc", FLOE_ERR_INVALID_ARGUMENT},
        {"write.target-file-size-bytes", "0", FLOE_ERR_INVALID_ARGUMENT},
        {"write.target-file-size-bytes", "12x", FLOE_ERR_INVALID_ARGUMENT},
        {"write.fanout.enabled", "yes", FLOE_ERR_INVALID_ARGUMENT},
        {"write.distribution-mode", "random", FLOE_ERR_INVALID_ARGUMENT},
        {"write.format.default", "orc", FLOE_ERR_UNSUPPORTED},
        {"write.format.default", "csv", FLOE_ERR_INVALID_ARGUMENT},
        {"write.parquet.compression-codec", "lzma", FLOE_ERR_INVALID_ARGUMENT},
        {"write.parquet.compression-codec", "lzo", FLOE_ERR_UNSUPPORTED},
        {"write.parquet.compression-level", "high", FLOE_ERR_INVALID_ARGUMENT},
        {"write.parquet.row-group-size-bytes", "-1", FLOE_ERR_INVALID_ARGUMENT},
        {"write.parquet.row-group-size-bytes", "4294967296", FLOE_ERR_INVALID_ARGUMENT},
        {"write.parquet.page-size-bytes", "1.5", FLOE_ERR_INVALID_ARGUMENT},
        {"write.parquet.page-row-limit", "0", FLOE_ERR_INVALID_ARGUMENT},
        {"write.parquet.dict-size-bytes", "", FLOE_ERR_INVALID_ARGUMENT},
        {"write.parquet.page-version", "v3", FLOE_ERR_INVALID_ARGUMENT},
        {"write.parquet.bloom-filter-enabled.column.data", "maybe", FLOE_ERR_INVALID_ARGUMENT},
        {"write.object-storage.enabled", "1", FLOE_ERR_INVALID_ARGUMENT},
        {"write.object-storage.path", "s3://x", FLOE_ERR_INVALID_ARGUMENT},
        {"write.folder-storage.path", "s3://x", FLOE_ERR_INVALID_ARGUMENT},
        {"write.metadata.metrics.default", "truncate(0)", FLOE_ERR_INVALID_ARGUMENT},
        {"write.metadata.metrics.default", "truncate(x)", FLOE_ERR_INVALID_ARGUMENT},
        {"write.metadata.metrics.default", "truncate(16", FLOE_ERR_INVALID_ARGUMENT},
        {"write.metadata.metrics.default", "everything", FLOE_ERR_INVALID_ARGUMENT},
        {"write.metadata.metrics.column.data", "truncate(-1)", FLOE_ERR_INVALID_ARGUMENT},
        {"write.metadata.metrics.max-inferred-column-defaults", "many", FLOE_ERR_INVALID_ARGUMENT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p[] = {cases[i].key, cases[i].value};
        floe_ice_write_target t = target(sc, p, 1);
        floe_ice_write_settings *s = NULL;
        floe_status st = floe_ice_write_settings_new(&t, &s);
        assert_non_null(st);
        assert_null(s);
        if (floe_status_code(st) != cases[i].code || !strstr(floe_status_message(st), cases[i].key) ||
            !strstr(floe_status_message(st), cases[i].value))
            fail_msg("%s = '%s': %s", cases[i].key, cases[i].value, floe_status_message(st));
        floe_status_free(st);
    }
    floe_ice_schema_free(sc);
}

/* ---- metrics modes ----------------------------------------------------------------------- */

static void metrics_modes_parse_as_java(void **state) {
    (void)state;
    floe_ice_metrics_mode m;
    assert_true(floe_ice_metrics_mode_parse("None", &m));
    assert_int_equal(m.kind, FLOE_ICE_METRICS_NONE);
    assert_true(floe_ice_metrics_mode_parse("COUNTS", &m));
    assert_int_equal(m.kind, FLOE_ICE_METRICS_COUNTS);
    assert_true(floe_ice_metrics_mode_parse("full", &m));
    assert_int_equal(m.kind, FLOE_ICE_METRICS_FULL);
    assert_true(floe_ice_metrics_mode_parse("Truncate(8)", &m));
    assert_int_equal(m.kind, FLOE_ICE_METRICS_TRUNCATE);
    assert_int_equal(m.length, 8);
    assert_false(floe_ice_metrics_mode_parse("truncate(0)", &m));
    assert_false(floe_ice_metrics_mode_parse("truncate( 8)", &m));
    assert_false(floe_ice_metrics_mode_parse("truncate()", &m));
    assert_false(floe_ice_metrics_mode_parse("truncate(99999999999)", &m));
    assert_false(floe_ice_metrics_mode_parse(" none", &m));
}

static void column_overrides_resolve_nested_names_and_ignore_unknown_ones(void **state) {
    (void)state;
    floe_ice_schema *sc = schema();
    const char *props[] = {"write.metadata.metrics.default", "counts",
                           "write.metadata.metrics.column.s.x", "full",
                           "write.metadata.metrics.column.l.element", "truncate(4)",
                           "write.metadata.metrics.column.data", "none",
                           "write.metadata.metrics.column.missing", "full"};
    floe_ice_write_settings *s = settings(sc, props, 5);
    assert_mode(s, 1, FLOE_ICE_METRICS_COUNTS, 0);
    assert_mode(s, 2, FLOE_ICE_METRICS_NONE, 0);
    assert_mode(s, 6, FLOE_ICE_METRICS_FULL, 0);
    assert_mode(s, 7, FLOE_ICE_METRICS_COUNTS, 0);
    assert_mode(s, 10, FLOE_ICE_METRICS_TRUNCATE, 4);
    floe_ice_write_settings_free(s);
    floe_ice_schema_free(sc);
}

static void wide_tables_give_the_default_to_the_first_columns_only(void **state) {
    (void)state;
    floe_ice_schema *sc = schema();
    /* 10 metrics-eligible ids (1,2,3,4,6,7,8,10,11,12) > 5: Java's
     * limitFieldIds takes a struct's primitive fields before descending,
     * so the first five are the top-level primitives 1, 2, 3, 4, 8. */
    const char *props[] = {"write.metadata.metrics.max-inferred-column-defaults", "5"};
    floe_ice_write_settings *s = settings(sc, props, 1);
    int32_t on[] = {1, 2, 3, 4, 8};
    int32_t off[] = {6, 7, 10, 11, 12};
    for (int i = 0; i < 5; i++) assert_mode(s, on[i], FLOE_ICE_METRICS_TRUNCATE, 16);
    for (int i = 0; i < 5; i++) assert_mode(s, off[i], FLOE_ICE_METRICS_NONE, 0);
    floe_ice_write_settings_free(s);

    /* at the limit exactly, every column keeps the default */
    const char *at[] = {"write.metadata.metrics.max-inferred-column-defaults", "10"};
    s = settings(sc, at, 1);
    assert_mode(s, 12, FLOE_ICE_METRICS_TRUNCATE, 16);
    floe_ice_write_settings_free(s);

    /* an explicit default applies everywhere regardless of the limit */
    const char *expl[] = {"write.metadata.metrics.max-inferred-column-defaults", "2",
                          "write.metadata.metrics.default", "full"};
    s = settings(sc, expl, 2);
    assert_mode(s, 12, FLOE_ICE_METRICS_FULL, 0);
    floe_ice_write_settings_free(s);

    /* a negative limit falls back to 100, as Java */
    const char *neg[] = {"write.metadata.metrics.max-inferred-column-defaults", "-3"};
    s = settings(sc, neg, 1);
    assert_mode(s, 12, FLOE_ICE_METRICS_TRUNCATE, 16);
    floe_ice_write_settings_free(s);
    floe_ice_schema_free(sc);
}

static void sorted_columns_get_at_least_truncate16(void **state) {
    (void)state;
    floe_ice_schema *sc = schema();
    floe_ice_sort_order *o = NULL;
    assert_ok(floe_ice_sort_order_new(1, &o));
    assert_ok(floe_ice_sort_order_add(o, 3, floe_ice_transform_make(FLOE_ICE_TRANSFORM_DAY, 0), FLOE_ICE_ASC,
                                      FLOE_ICE_NULLS_FIRST));
    assert_ok(floe_ice_sort_order_add(o, 1, floe_ice_transform_make(FLOE_ICE_TRANSFORM_BUCKET, 4), FLOE_ICE_ASC,
                                      FLOE_ICE_NULLS_FIRST));
    assert_ok(floe_ice_sort_order_add(o, 2, floe_ice_transform_make(FLOE_ICE_TRANSFORM_IDENTITY, 0), FLOE_ICE_ASC,
                                      FLOE_ICE_NULLS_FIRST));
    const char *props[] = {"write.metadata.metrics.default", "none",
                           "write.metadata.metrics.column.data", "counts"};
    floe_ice_write_target t = target(sc, props, 2);
    t.sort_order = o;
    t.sort_order_id = 1;
    floe_ice_write_settings *s = NULL;
    assert_ok(floe_ice_write_settings_new(&t, &s));
    assert_mode(s, 3, FLOE_ICE_METRICS_TRUNCATE, 16); /* day preserves order */
    assert_mode(s, 1, FLOE_ICE_METRICS_NONE, 0);      /* bucket does not */
    assert_mode(s, 2, FLOE_ICE_METRICS_COUNTS, 0);    /* the override wins */
    assert_mode(s, 4, FLOE_ICE_METRICS_NONE, 0);
    assert_int_equal(s->sort_order_id, 1);
    floe_ice_write_settings_free(s);
    floe_ice_sort_order_free(o);
    floe_ice_schema_free(sc);
}

/* ---- partition paths ------------------------------------------------------------------------ */

static char *path_of(const floe_ice_schema *sc, const char *spec_json, const floe_ice_value *v, int32_t n) {
    floe_ice_partition_spec *spec = NULL;
    assert_ok(floe_ice_partition_spec_from_json_text(spec_json, &spec));
    char *p = NULL;
    assert_ok(floe_ice_write_partition_path(spec, sc, v, n, &p));
    floe_ice_partition_spec_free(spec);
    return p;
}

#define FIELD(src, id, name, tr) \
    "{\"source-id\":" #src ",\"field-id\":" #id ",\"name\":\"" name "\",\"transform\":\"" tr "\"}"

static void partition_paths_match_java(void **state) {
    (void)state;
    floe_ice_schema *sc = schema();
    char *p;
    /* TestPartitionPaths.testPartitionPath: 2017-12-01T10:12:55.038194 */
    floe_ice_value v2[2] = {floe_ice_int(420034), floe_ice_int(6)};
    p = path_of(sc, "{\"spec-id\":0,\"fields\":[" FIELD(3, 1000, "ts_hour", "hour") "," FIELD(1, 1001, "id_bucket", "bucket[10]") "]}", v2, 2);
    assert_string_equal(p, "ts_hour=2017-12-01-10/id_bucket=6");
    floe_free(p);
    /* testEscapedStrings */
    floe_ice_value es[2] = {floe_ice_string_z("a/b/c/d"), floe_ice_string_z("a/b/c/d")};
    p = path_of(sc, "{\"spec-id\":0,\"fields\":[" FIELD(2, 1000, "data", "identity") "," FIELD(2, 1001, "data_trunc", "truncate[10]") "]}", es, 2);
    assert_string_equal(p, "data=a%2Fb%2Fc%2Fd/data_trunc=a%2Fb%2Fc%2Fd");
    floe_free(p);
    /* testEscapedFieldNames */
    p = path_of(sc, "{\"spec-id\":0,\"fields\":[" FIELD(4, 1000, "\\\"esc\\\"#1", "identity") "]}", es, 1);
    assert_string_equal(p, "%22esc%22%231=a%2Fb%2Fc%2Fd");
    floe_free(p);
    /* spaces, unicode, reserved characters and null */
    floe_ice_value sp[1] = {floe_ice_string_z("a b+c\xC3\xA9~*.-_")};
    p = path_of(sc, "{\"spec-id\":0,\"fields\":[" FIELD(2, 1000, "data", "identity") "]}", sp, 1);
    assert_string_equal(p, "data=a+b%2Bc%C3%A9%7E*.-_");
    floe_free(p);
    floe_ice_value nul[1] = {floe_ice_null(FLOE_ICE_STRING)};
    p = path_of(sc, "{\"spec-id\":0,\"fields\":[" FIELD(2, 1000, "data", "identity") "]}", nul, 1);
    assert_string_equal(p, "data=null");
    floe_free(p);
    /* every time transform, identity of dates/timestamps/binary/decimal, void */
    floe_ice_value t6[6] = {floe_ice_int(47), floe_ice_int(575), floe_ice_date(17501), floe_ice_date(17486),
                            floe_ice_timestamp(1512123175038194LL), floe_ice_null(FLOE_ICE_INT)};
    p = path_of(sc,
                "{\"spec-id\":0,\"fields\":[" FIELD(3, 1000, "ts_year", "year") "," FIELD(3, 1001, "ts_month", "month") ","
                FIELD(3, 1002, "ts_day", "day") "," FIELD(8, 1003, "d", "identity") "," FIELD(3, 1004, "ts", "identity") ","
                FIELD(1, 1005, "id_null", "void") "]}",
                t6, 6);
    assert_string_equal(p, "ts_year=2017/ts_month=2017-12/ts_day=2017-12-01/d=2017-11-16/"
                           "ts=2017-12-01T10%3A12%3A55.038194/id_null=null");
    floe_free(p);
    /* days and timestamps may arrive as plain int / long (the batch kernels' output) */
    floe_ice_value plain[2] = {floe_ice_int(17501), floe_ice_long(1512123175038194LL)};
    p = path_of(sc, "{\"spec-id\":0,\"fields\":[" FIELD(3, 1000, "ts_day", "day") "," FIELD(3, 1001, "ts", "identity") "]}", plain, 2);
    assert_string_equal(p, "ts_day=2017-12-01/ts=2017-12-01T10%3A12%3A55.038194");
    floe_free(p);
    floe_ice_value bd[2] = {floe_ice_binary((const uint8_t *)"\x00\x01\xfe\xff", 4), floe_ice_decimal(1420, 2)};
    p = path_of(sc, "{\"spec-id\":0,\"fields\":[" FIELD(11, 1000, "bin", "identity") "," FIELD(12, 1001, "dec", "identity") "]}", bd, 2);
    assert_string_equal(p, "bin=AAH%2B%2Fw%3D%3D/dec=14.20");
    floe_free(p);
    /* unpartitioned: empty */
    p = path_of(sc, "{\"spec-id\":0,\"fields\":[]}", NULL, 0);
    assert_string_equal(p, "");
    floe_free(p);
    floe_ice_schema_free(sc);
}

/* ---- locations ------------------------------------------------------------------------------- */

static char *loc(const floe_ice_write_settings *s, const char *part, const char *file) {
    char *l = NULL;
    assert_ok(floe_ice_data_file_location(s, part, file, &l));
    return l;
}

static void object_storage_hash_matches_java_vectors(void **state) {
    (void)state;
    char h[24];
    floe_ice_object_store_hash("a", h);
    assert_string_equal(h, "0101/0110/1001/10110010");
    floe_ice_object_store_hash("b", h);
    assert_string_equal(h, "1110/0111/1110/00000011");
    floe_ice_object_store_hash("c", h);
    assert_string_equal(h, "0010/1101/0110/01011111");
    floe_ice_object_store_hash("d", h);
    assert_string_equal(h, "1001/0001/0100/01110011");
    floe_ice_object_store_hash("test.parquet", h);
    assert_string_equal(h, "0110/1010/0011/11101000");
}

static floe_ice_write_settings *settings_spec(const floe_ice_schema *sc, const char *spec_json,
                                              const char *const *props, int32_t n, floe_ice_partition_spec **spec) {
    assert_ok(floe_ice_partition_spec_from_json_text(spec_json, spec));
    floe_ice_write_target t = target(sc, props, n);
    t.spec = *spec;
    floe_ice_write_settings *s = NULL;
    assert_ok(floe_ice_write_settings_new(&t, &s));
    return s;
}

static void layouts_follow_javas_location_providers(void **state) {
    (void)state;
    floe_ice_schema *sc = schema();
    const char *spec_json = "{\"spec-id\":0,\"fields\":[" FIELD(2, 1000, "data", "identity") "]}";
    floe_ice_partition_spec *spec = NULL;
    char *l;

    /* default: <location>/data/<partition>/<file> */
    floe_ice_write_settings *s = settings_spec(sc, spec_json, NULL, 0, &spec);
    l = loc(s, "data=val", "f.parquet");
    assert_string_equal(l, "s3://bucket/db/tbl/data/data=val/f.parquet");
    floe_free(l);
    floe_ice_write_settings_free(s);
    floe_ice_partition_spec_free(spec);

    /* write.data.path (trailing slash dropped) */
    const char *dp[] = {"write.data.path", "/mnt/x/"};
    s = settings_spec(sc, spec_json, dp, 1, &spec);
    l = loc(s, "data=val", "f.parquet");
    assert_string_equal(l, "/mnt/x/data=val/f.parquet");
    floe_free(l);
    floe_ice_write_settings_free(s);
    floe_ice_partition_spec_free(spec);

    /* object storage, partitioned paths: the hash covers "<partition>/<file>" */
    const char *os[] = {"write.object-storage.enabled", "true"};
    s = settings_spec(sc, spec_json, os, 1, &spec);
    l = loc(s, "data%231=val%231", "test.parquet");
    char h[24], want[256];
    floe_ice_object_store_hash("data%231=val%231/test.parquet", h);
    snprintf(want, sizeof want, "s3://bucket/db/tbl/data/%s/data%%231=val%%231/test.parquet", h);
    assert_string_equal(l, want);
    floe_free(l);
    floe_ice_write_settings_free(s);
    floe_ice_partition_spec_free(spec);

    /* object storage without partition paths: Java's testExcludePartitionInPath */
    const char *ex[] = {"write.object-storage.enabled", "true", "write.object-storage.partitioned-paths", "false"};
    s = settings_spec(sc, spec_json, ex, 2, &spec);
    l = loc(s, "data=val", "test.parquet");
    assert_string_equal(l, "s3://bucket/db/tbl/data/0110/1010/0011/11101000-test.parquet");
    floe_free(l);
    floe_ice_write_settings_free(s);
    floe_ice_partition_spec_free(spec);

    /* object storage, data path outside the table: table context added */
    const char *out[] = {"write.object-storage.enabled", "true", "write.data.path", "s3://other/base"};
    s = settings_spec(sc, spec_json, out, 2, &spec);
    l = loc(s, "data=val", "f.parquet");
    floe_ice_object_store_hash("data=val/f.parquet", h);
    snprintf(want, sizeof want, "s3://other/base/%s/db/tbl/data=val/f.parquet", h);
    assert_string_equal(l, want);
    floe_free(l);
    floe_ice_write_settings_free(s);
    floe_ice_partition_spec_free(spec);

    /* unpartitioned (also: only void fields): no partition directory */
    const char *void_spec = "{\"spec-id\":0,\"fields\":[" FIELD(2, 1000, "data_null", "void") "]}";
    s = settings_spec(sc, void_spec, os, 1, &spec);
    l = loc(s, "data_null=null", "a");
    assert_string_equal(l, "s3://bucket/db/tbl/data/0101/0110/1001/10110010/a");
    floe_free(l);
    floe_ice_write_settings_free(s);
    floe_ice_partition_spec_free(spec);
    floe_ice_schema_free(sc);
}

FLOE_TEST_MAIN(cmocka_unit_test(defaults_are_javas), cmocka_unit_test(every_property_is_read),
               cmocka_unit_test(bad_values_name_the_property_and_value),
               cmocka_unit_test(metrics_modes_parse_as_java),
               cmocka_unit_test(column_overrides_resolve_nested_names_and_ignore_unknown_ones),
               cmocka_unit_test(wide_tables_give_the_default_to_the_first_columns_only),
               cmocka_unit_test(sorted_columns_get_at_least_truncate16),
               cmocka_unit_test(partition_paths_match_java),
               cmocka_unit_test(object_storage_hash_matches_java_vectors),
               cmocka_unit_test(layouts_follow_javas_location_providers))
