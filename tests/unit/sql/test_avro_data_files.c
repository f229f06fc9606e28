/*
 * test_avro_data_files.c — Iceberg tables whose data files are Avro (as
 * Iceberg Java and Hive write with write.format.default=avro), alone and
 * beside Parquet files in one snapshot.  An Avro file written as Iceberg
 * Java does (field ids on record fields, element-id / key-id / value-id,
 * a non-string-key map as an array of key/value records, decimals as
 * bytes, timestamptz as timestamp-micros with adjust-to-utc, optional
 * fields as ["null", T]) is appended to a catalog table through the
 * catalog API; SQL then reads it by field id: a column the file names
 * differently, columns in another order, a column the table no longer has,
 * a column the file lacks (NULL), filters, and an INSERTed Parquet file in
 * the same snapshot.  Position and equality delete files in Avro apply to
 * it like Parquet ones.  A file without field ids and no name mapping
 * reads by the schema's names, as Iceberg Java's Avro reader does.
 */
#include <string.h>

#include "base/buffer.h"
#include "floe/catalog.h"
#include "floe/iceberg_manifest.h"
#include "floe/iceberg_expr.h"
#include "floe/iceberg_metadata_columns.h"
#include "floe/iceberg_partition_spec.h"
#include "floe/iceberg_scan.h"
#include "floe/iceberg_task_reader.h"
#include "floe/iceberg_table_update.h"
#include "floe/memory.h"
#include "floe/session.h"
#include "floe_test.h"
#include "sql_capture.h"
#include "formats/avro/avro.h"

/* Ids as floe_ice_tm_new assigns them (Java's assignFreshIds: a struct's
 * own fields first, then each one's nested fields). */
static const char *TABLE_SCHEMA =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"price\",\"required\":false,\"type\":\"decimal(9,2)\"},"
    "{\"id\":4,\"name\":\"day\",\"required\":false,\"type\":\"date\"},"
    "{\"id\":5,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":6,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":11,"
    "\"element\":\"string\",\"element-required\":false}},"
    "{\"id\":7,\"name\":\"attrs\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":12,\"key\":\"string\","
    "\"value-id\":13,\"value\":\"int\",\"value-required\":false}},"
    "{\"id\":8,\"name\":\"point\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":14,\"name\":\"x\",\"required\":true,\"type\":\"double\"},"
    "{\"id\":15,\"name\":\"y\",\"required\":false,\"type\":\"double\"}]}},"
    "{\"id\":9,\"name\":\"flag\",\"required\":false,\"type\":\"boolean\"},"
    "{\"id\":10,\"name\":\"counts\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":16,\"key\":\"int\","
    "\"value-id\":17,\"value\":\"long\",\"value-required\":true}}]}";

/* The file's schema, as Iceberg's AvroSchemaUtil writes it — in another
 * order, `name` called `label`, `flag` (id 9) missing, and a column
 * (`extra`, id 99) the table does not have. */
static const char *FILE_SCHEMA =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"label\",\"type\":[\"null\",\"string\"],\"default\":null,\"field-id\":2},"
    "{\"name\":\"id\",\"type\":\"long\",\"field-id\":1},"
    "{\"name\":\"price\",\"type\":[\"null\",{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,"
    "\"scale\":2}],\"default\":null,\"field-id\":3},"
    "{\"name\":\"day\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}],\"default\":null,"
    "\"field-id\":4},"
    "{\"name\":\"ts\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-micros\","
    "\"adjust-to-utc\":true}],\"default\":null,\"field-id\":5},"
    "{\"name\":\"tags\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"string\"],\"element-id\":11}],"
    "\"default\":null,\"field-id\":6},"
    "{\"name\":\"attrs\",\"type\":[\"null\",{\"type\":\"map\",\"values\":[\"null\",\"int\"],\"key-id\":12,"
    "\"value-id\":13}],\"default\":null,\"field-id\":7},"
    "{\"name\":\"point\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"r11\",\"fields\":["
    "{\"name\":\"x\",\"type\":\"double\",\"field-id\":14},"
    "{\"name\":\"y\",\"type\":[\"null\",\"double\"],\"default\":null,\"field-id\":15}]}],\"default\":null,"
    "\"field-id\":8},"
    "{\"name\":\"counts\",\"type\":[\"null\",{\"type\":\"array\",\"logicalType\":\"map\",\"items\":{"
    "\"type\":\"record\",\"name\":\"k16_v17\",\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":16},"
    "{\"name\":\"value\",\"type\":\"long\",\"field-id\":17}]}}],\"default\":null,\"field-id\":10},"
    "{\"name\":\"extra\",\"type\":[\"null\",\"string\"],\"default\":null,\"field-id\":99}]}";


#define STR(x) floe_avro_bytes(FLOE_AVRO_STRING, x, strlen(x))
#define LONG(t, x) floe_avro_long(t, x)
#define NUL floe_avro_null()

/* Three records; returns the file's size. */
static int64_t write_avro_file(const char *path) {
    floe_avro_schema *schema = NULL;
    assert_ok(floe_avro_schema_parse(FILE_SCHEMA, strlen(FILE_SCHEMA), &schema));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_avro_writer *w = NULL;
    assert_ok(floe_avro_writer_open(out, schema, NULL, 0, NULL, &w));
    static const uint8_t p1234[2] = {0x04, 0xd2}; /* 12.34 */
    static const uint8_t pm5[1] = {0xfb};         /* -0.05 */

    /* row 1: everything set */
    floe_avro_value tags1[2] = {STR("x"), NUL};
    floe_avro_value attrs1[4] = {STR("k"), LONG(FLOE_AVRO_INT, 5), STR("n"), NUL};
    floe_avro_value pt1[2] = {floe_avro_double(FLOE_AVRO_DOUBLE, 1.5), NUL};
    floe_avro_value kv1a[2] = {LONG(FLOE_AVRO_INT, 1), LONG(FLOE_AVRO_LONG, 10)};
    floe_avro_value kv1b[2] = {LONG(FLOE_AVRO_INT, 2), LONG(FLOE_AVRO_LONG, 20)};
    floe_avro_value counts1[2] = {floe_avro_items(FLOE_AVRO_RECORD, kv1a, 2), floe_avro_items(FLOE_AVRO_RECORD, kv1b, 2)};
    floe_avro_value r1[10] = {STR("a"),
                              LONG(FLOE_AVRO_LONG, 1),
                              floe_avro_bytes(FLOE_AVRO_BYTES, p1234, 2),
                              LONG(FLOE_AVRO_INT, 19000),
                              LONG(FLOE_AVRO_LONG, 1700000000000000LL),
                              floe_avro_items(FLOE_AVRO_ARRAY, tags1, 2),
                              floe_avro_items(FLOE_AVRO_MAP, attrs1, 2),
                              floe_avro_items(FLOE_AVRO_RECORD, pt1, 2),
                              floe_avro_items(FLOE_AVRO_ARRAY, counts1, 2),
                              STR("gone")};
    /* row 2: only the id */
    floe_avro_value r2[10] = {NUL, LONG(FLOE_AVRO_LONG, 2), NUL, NUL, NUL, NUL, NUL, NUL, NUL, NUL};
    /* row 3: empty collections, a negative decimal */
    floe_avro_value pt3[2] = {floe_avro_double(FLOE_AVRO_DOUBLE, -2), floe_avro_double(FLOE_AVRO_DOUBLE, 3)};
    floe_avro_value r3[10] = {STR("c"),
                              LONG(FLOE_AVRO_LONG, 3),
                              floe_avro_bytes(FLOE_AVRO_BYTES, pm5, 1),
                              NUL,
                              NUL,
                              floe_avro_items(FLOE_AVRO_ARRAY, NULL, 0),
                              floe_avro_items(FLOE_AVRO_MAP, NULL, 0),
                              floe_avro_items(FLOE_AVRO_RECORD, pt3, 2),
                              floe_avro_items(FLOE_AVRO_ARRAY, NULL, 0),
                              NUL};
    floe_avro_value rows[3] = {floe_avro_items(FLOE_AVRO_RECORD, r1, 10), floe_avro_items(FLOE_AVRO_RECORD, r2, 10),
                               floe_avro_items(FLOE_AVRO_RECORD, r3, 10)};
    for (int i = 0; i < 3; i++) assert_ok(floe_avro_writer_append(w, &rows[i]));
    assert_ok(floe_avro_writer_finish(w));
    assert_ok(floe_output_close(out));
    floe_avro_schema_free(schema);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    int64_t size = ftell(f);
    fclose(f);
    return size;
}

/* Append the Avro file to db.t as one snapshot. */
static void append_avro(floe_catalog *c, const char *path, int64_t size, int64_t rows) {
    floe_ice_table *t = NULL;
    assert_ok(floe_catalog_load_table(c, "db", "t", &t));
    floe_ice_data_file df;
    floe_ice_data_file_init(&df);
    df.file_path = path;
    df.file_format = "AVRO";
    df.record_count = rows;
    df.file_size_in_bytes = size;
    const floe_ice_partition_spec *spec = floe_ice_tm_default_spec(t->md);
    floe_ice_type *ptype = NULL;
    assert_ok(floe_ice_partition_spec_partition_type(spec, floe_ice_tm_current_schema(t->md), false, &ptype));
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

static void avro_data_files_read_by_field_id_beside_parquet(void **state) {
    (void)state;
    char wh[1024], path[1200];
    floe_test_tmpdir(wh, sizeof wh, "avro_data_files");
    floe_session *s = NULL;
    assert_ok(floe_session_open(wh, &s));
    floe_catalog *c = floe_session_catalog(s);
    assert_ok(floe_catalog_create_namespace(c, "db", false));
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(TABLE_SCHEMA, &schema));
    char *loc = NULL;
    assert_ok(floe_catalog_default_location(c, "db", "t", &loc));
    floe_ice_table_metadata *md = NULL;
    assert_ok(floe_ice_tm_new(schema, NULL, NULL, loc, NULL, 0, 2, &md));
    assert_ok(floe_catalog_create_table(c, "db", "t", md, NULL));
    floe_ice_table_metadata_free(md);
    floe_ice_schema_free(schema);
    snprintf(path, sizeof path, "%s/data-00000.avro", wh);
    floe_free(loc);
    append_avro(c, path, write_avro_file(path), 3);

    char *got = sql_query_text(s, "SELECT id, name, price, day, ts, tags, attrs, point, flag, counts FROM db.t ORDER BY id");
    assert_string_equal(got,
                        "1|a|12.34|2022-01-08|2023-11-14 22:13:20+00|['x', NULL]|{'k': 5, 'n': NULL}|"
                        "{x: 1.5, y: NULL}|NULL|{1: 10, 2: 20}\n"
                        "2|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL\n"
                        "3|c|-0.05|NULL|NULL|[]|{}|{x: -2.0, y: 3.0}|NULL|{}\n");
    floe_free(got);
    /* a filter and a nested field, through the scan */
    got = sql_query_text(s, "SELECT id, (point).x FROM db.t WHERE price > 0 OR name = 'c' ORDER BY id");
    assert_string_equal(got, "1|1.5\n3|-2.0\n");
    floe_free(got);

    /* A Parquet file in the same table (an INSERT): one snapshot reads both
     * formats; and a column renamed afterwards still reads by id. */
    assert_ok(floe_session_execute(s, "INSERT INTO db.t (id, name, flag) VALUES (4, 'parquet', true)", NULL));
    assert_ok(floe_session_execute(s, "ALTER TABLE db.t RENAME COLUMN name TO title", NULL));
    got = sql_query_text(s, "SELECT id, title, flag FROM db.t ORDER BY id");
    assert_string_equal(got, "1|a|NULL\n2|NULL|NULL\n3|c|NULL\n4|parquet|true\n");
    floe_free(got);
    got = sql_query_text(s, "SELECT count(*), sum(id) FROM db.t");
    assert_string_equal(got, "4|10\n");
    floe_free(got);
    floe_session_close(s);
}

/* ---- delete files in Avro ------------------------------------------------ */

/* A scan task over one whole data file of `format`, residual TRUE. */
static floe_ice_scan_task whole_file_task(const char *path, const char *format, int64_t rows, int64_t size,
                                          const floe_ice_expr *always) {
    floe_ice_scan_task task;
    memset(&task, 0, sizeof task);
    task.path = task.resolved_path = path;
    task.format = format;
    task.record_count = rows;
    task.file_size_in_bytes = size;
    task.length = size;
    task.n_splits = 1;
    task.residual = always;
    return task;
}


static const char *POSDEL_SCHEMA =
    "{\"type\":\"record\",\"name\":\"position_delete\",\"fields\":["
    "{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":2147483546},"
    "{\"name\":\"pos\",\"type\":\"long\",\"field-id\":2147483545}]}";
static const char *EQDEL_SCHEMA =
    "{\"type\":\"record\",\"name\":\"eq_delete\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"long\",\"field-id\":1}]}";

static void write_rows(const char *path, const char *schema_json, floe_avro_value *rows, int n) {
    floe_avro_schema *schema = NULL;
    assert_ok(floe_avro_schema_parse(schema_json, strlen(schema_json), &schema));
    floe_output *out = NULL;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_avro_writer *w = NULL;
    assert_ok(floe_avro_writer_open(out, schema, NULL, 0, NULL, &w));
    for (int i = 0; i < n; i++) assert_ok(floe_avro_writer_append(w, &rows[i]));
    assert_ok(floe_avro_writer_finish(w));
    assert_ok(floe_output_close(out));
    floe_avro_schema_free(schema);
}

/* An Avro position delete file (rows for this data file and for another)
 * and an Avro equality delete file apply to the Avro data file's task as
 * Parquet ones would. */
static void avro_position_and_equality_delete_files_apply(void **state) {
    (void)state;
    char wh[1024], data[1200], pd[1200], ed[1200];
    floe_test_tmpdir(wh, sizeof wh, "avro_delete_files");
    snprintf(data, sizeof data, "%s/data.avro", wh);
    snprintf(pd, sizeof pd, "%s/pos-deletes.avro", wh);
    snprintf(ed, sizeof ed, "%s/eq-deletes.avro", wh);
    int64_t size = write_avro_file(data);
    floe_avro_value p0[2] = {STR(data), LONG(FLOE_AVRO_LONG, 0)};
    floe_avro_value p1[2] = {STR("/elsewhere/other.avro"), LONG(FLOE_AVRO_LONG, 1)};
    floe_avro_value prow[2] = {floe_avro_items(FLOE_AVRO_RECORD, p0, 2), floe_avro_items(FLOE_AVRO_RECORD, p1, 2)};
    write_rows(pd, POSDEL_SCHEMA, prow, 2);
    floe_avro_value e0[1] = {LONG(FLOE_AVRO_LONG, 3)};
    floe_avro_value erow[1] = {floe_avro_items(FLOE_AVRO_RECORD, e0, 1)};
    write_rows(ed, EQDEL_SCHEMA, erow, 1);

    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(TABLE_SCHEMA, &schema));
    static const int32_t eq_ids[1] = {1};
    floe_ice_scan_delete dels[2] = {
        {FLOE_ICE_CONTENT_POSITION_DELETES, false, pd, pd, "AVRO", 2, 0, 0, 2, 2, 0, NULL, NULL, -1, -1},
        {FLOE_ICE_CONTENT_EQUALITY_DELETES, false, ed, ed, "avro", 1, 0, 0, 2, 2, 1, eq_ids, NULL, -1, -1},
    };
    const floe_ice_scan_delete *dp[2] = {&dels[0], &dels[1]};
    floe_ice_expr *always = NULL;
    assert_ok(floe_ice_expr_from_json_text("true", &always));
    floe_ice_scan_task task = whole_file_task(data, "AVRO", 3, size, always);
    task.sequence_number = task.file_sequence_number = 1;
    task.n_deletes = 2;
    task.deletes = dp;
    static const int32_t ids[2] = {1, 2};
    floe_ice_task_read_options ro = {0};
    ro.schema = schema;
    ro.field_ids = ids;
    ro.n_field_ids = 2;
    floe_ice_task_reader *r = NULL;
    assert_ok(floe_ice_task_reader_open(&ro, &task, &r));
    int64_t rows = 0;
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_ice_task_reader_next(r, &b));
        if (!b) break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            assert_int_equal(floe_array_get_int64(b->columns[0], i), 2); /* 1: position-deleted, 3: by equality */
            assert_true(floe_array_is_null(b->columns[1], i));
            rows++;
        }
        floe_batch_release(b);
    }
    assert_int_equal(rows, 1);
    floe_ice_task_reader_close(r);
    floe_ice_expr_free(always);
    floe_ice_schema_free(schema);
}

/* An Avro data file without field ids, read with no name mapping (no
 * table here): Iceberg Java's ProjectionDatumReader maps the read schema's
 * names (MappingUtil.create), at every depth, rather than positions (that
 * fallback is Parquet's); an equality delete file without ids finds its
 * key by name too. */
static void avro_files_without_ids_or_mapping_match_by_name(void **state) {
    (void)state;
    static const char *DATA_JSON =
        "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
        "{\"name\":\"point\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"p\",\"fields\":["
        "{\"name\":\"y\",\"type\":[\"null\",\"double\"],\"default\":null},"
        "{\"name\":\"x\",\"type\":\"double\"}]}],\"default\":null},"
        "{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null},"
        "{\"name\":\"id\",\"type\":\"long\"}]}";
    static const char *EQ_JSON =
        "{\"type\":\"record\",\"name\":\"d\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";
    char wh[1024], data[1200], ed[1200];
    floe_test_tmpdir(wh, sizeof wh, "avro_no_ids");
    snprintf(data, sizeof data, "%s/data.avro", wh);
    snprintf(ed, sizeof ed, "%s/eq.avro", wh);
    floe_avro_value p1[2] = {floe_avro_double(FLOE_AVRO_DOUBLE, 2.5), floe_avro_double(FLOE_AVRO_DOUBLE, 1.5)};
    floe_avro_value p3[2] = {NUL, floe_avro_double(FLOE_AVRO_DOUBLE, -1)};
    floe_avro_value r1[3] = {floe_avro_items(FLOE_AVRO_RECORD, p1, 2), STR("a"), LONG(FLOE_AVRO_LONG, 1)};
    floe_avro_value r2[3] = {NUL, STR("b"), LONG(FLOE_AVRO_LONG, 2)};
    floe_avro_value r3[3] = {floe_avro_items(FLOE_AVRO_RECORD, p3, 2), NUL, LONG(FLOE_AVRO_LONG, 3)};
    floe_avro_value rows[3] = {floe_avro_items(FLOE_AVRO_RECORD, r1, 3), floe_avro_items(FLOE_AVRO_RECORD, r2, 3),
                               floe_avro_items(FLOE_AVRO_RECORD, r3, 3)};
    write_rows(data, DATA_JSON, rows, 3);
    floe_avro_value e0[1] = {LONG(FLOE_AVRO_LONG, 3)};
    floe_avro_value erow[1] = {floe_avro_items(FLOE_AVRO_RECORD, e0, 1)};
    write_rows(ed, EQ_JSON, erow, 1);

    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(TABLE_SCHEMA, &schema));
    static const int32_t eq_ids[1] = {1};
    floe_ice_scan_delete del = {FLOE_ICE_CONTENT_EQUALITY_DELETES, false, ed, ed, "AVRO", 1, 0, 0, 2, 2, 1, eq_ids,
                                NULL, -1, -1};
    const floe_ice_scan_delete *dp[1] = {&del};
    floe_ice_expr *always = NULL;
    assert_ok(floe_ice_expr_from_json_text("true", &always));
    floe_ice_scan_task task = whole_file_task(data, "AVRO", 3, -1, always);
    task.sequence_number = task.file_sequence_number = 1;
    task.n_deletes = 1;
    task.deletes = dp;
    static const int32_t ids[3] = {1, 2, 8};
    floe_ice_task_read_options ro = {0};
    ro.schema = schema;
    ro.field_ids = ids;
    ro.n_field_ids = 3;
    floe_ice_task_reader *r = NULL;
    assert_ok(floe_ice_task_reader_open(&ro, &task, &r));
    floe_buf text;
    floe_buf_init(&text);
    for (;;) {
        floe_batch *b = NULL;
        assert_ok(floe_ice_task_reader_next(r, &b));
        if (!b) break;
        for (int64_t i = 0; i < b->num_rows; i++)
            for (int32_t c = 0; c < 3; c++) {
                assert_ok(floe_format_value(b->columns[c], i, &text));
                assert_ok(floe_buf_append_byte(&text, c == 2 ? ';' : '|'));
            }
        floe_batch_release(b);
    }
    assert_ok(floe_buf_append_byte(&text, 0));
    assert_string_equal((const char *)text.data, "1|a|{x: 1.5, y: 2.5};2|b|NULL;");
    floe_buf_free(&text);
    floe_ice_task_reader_close(r);
    floe_ice_expr_free(always);
    floe_ice_schema_free(schema);
}

/* ---- metadata columns and row lineage -------------------------------------- */

/* _file, _pos, _spec_id, and v3 row lineage: a file without _row_id values
 * inherits first_row_id + _pos and the file's data sequence number; one
 * that carries them (rows a compaction rewrote) keeps its own, except
 * where they are NULL.  A task without first_row_id (a table that predates
 * row lineage) gives NULL. */
static const char *LINEAGE_SCHEMA =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"long\",\"field-id\":1},"
    "{\"name\":\"_row_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":2147483540},"
    "{\"name\":\"_last_updated_sequence_number\",\"type\":[\"null\",\"long\"],\"default\":null,"
    "\"field-id\":2147483539}]}";

static void read_lineage(const char *path, int64_t size, bool has_first_row_id, char *text, size_t cap) {
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(TABLE_SCHEMA, &schema));
    floe_ice_expr *always = NULL;
    assert_ok(floe_ice_expr_from_json_text("true", &always));
    floe_ice_scan_task task = whole_file_task(path, "avro", 3, size, always);
    task.spec_id = 4;
    task.sequence_number = task.file_sequence_number = 7;
    task.has_first_row_id = has_first_row_id;
    task.first_row_id = 100;
    static const int32_t ids[5] = {1, FLOE_ICE_MD_POS_ID, FLOE_ICE_MD_ROW_ID_ID, FLOE_ICE_MD_LAST_UPDATED_SEQ_ID,
                                   FLOE_ICE_MD_SPEC_ID_ID};
    floe_ice_task_read_options ro = {0};
    ro.schema = schema;
    ro.field_ids = ids;
    ro.n_field_ids = 5;
    floe_ice_task_reader *r = NULL;
    assert_ok(floe_ice_task_reader_open(&ro, &task, &r));
    floe_buf b;
    floe_buf_init(&b);
    for (;;) {
        floe_batch *batch = NULL;
        assert_ok(floe_ice_task_reader_next(r, &batch));
        if (!batch) break;
        assert_int_equal(batch->num_columns, 5);
        for (int64_t i = 0; i < batch->num_rows; i++)
            for (int32_t c = 0; c < 5; c++) {
                assert_ok(floe_format_value(batch->columns[c], i, &b));
                assert_ok(floe_buf_append_byte(&b, c == 4 ? ';' : '|'));
            }
        floe_batch_release(batch);
    }
    assert_ok(floe_buf_append_byte(&b, 0));
    snprintf(text, cap, "%s", (const char *)b.data);
    floe_buf_free(&b);
    floe_ice_task_reader_close(r);
    floe_ice_expr_free(always);
    floe_ice_schema_free(schema);
}

static void metadata_columns_and_row_lineage_are_filled(void **state) {
    (void)state;
    char wh[1024], plain[1200], own[1200], text[1024];
    floe_test_tmpdir(wh, sizeof wh, "avro_lineage");
    snprintf(plain, sizeof plain, "%s/data.avro", wh);
    snprintf(own, sizeof own, "%s/compacted.avro", wh);
    int64_t size = write_avro_file(plain);
    read_lineage(plain, size, true, text, sizeof text);
    assert_string_equal(text, "1|0|100|7|4;2|1|101|7|4;3|2|102|7|4;");
    read_lineage(plain, size, false, text, sizeof text);
    assert_string_equal(text, "1|0|NULL|NULL|4;2|1|NULL|NULL|4;3|2|NULL|NULL|4;");
    /* a file with its own lineage columns, one row's values NULL */
    floe_avro_value a[3] = {LONG(FLOE_AVRO_LONG, 1), LONG(FLOE_AVRO_LONG, 555), LONG(FLOE_AVRO_LONG, 3)};
    floe_avro_value b[3] = {LONG(FLOE_AVRO_LONG, 2), NUL, NUL};
    floe_avro_value c[3] = {LONG(FLOE_AVRO_LONG, 3), LONG(FLOE_AVRO_LONG, 557), LONG(FLOE_AVRO_LONG, 5)};
    floe_avro_value rows[3] = {floe_avro_items(FLOE_AVRO_RECORD, a, 3), floe_avro_items(FLOE_AVRO_RECORD, b, 3),
                               floe_avro_items(FLOE_AVRO_RECORD, c, 3)};
    write_rows(own, LINEAGE_SCHEMA, rows, 3);
    FILE *f = fopen(own, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    int64_t own_size = ftell(f);
    fclose(f);
    read_lineage(own, own_size, true, text, sizeof text);
    assert_string_equal(text, "1|0|555|3|4;2|1|101|7|4;3|2|557|5|4;");
}

/* v3 geometry and geography columns read as their WKB bytes; unknown
 * reads as NULL; a variant is the spec's record of metadata and value, a
 * variant the file lacks is NULL, and bad variant bytes are an error. */
static void v3_geometry_reads_as_wkb_and_variant_as_its_record(void **state) {
    (void)state;
    static const char *SCHEMA_JSON =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"shape\",\"required\":false,\"type\":\"geometry\"},"
        "{\"id\":3,\"name\":\"area\",\"required\":false,\"type\":\"geography(srid:4326, karney)\"},"
        "{\"id\":4,\"name\":\"nothing\",\"required\":false,\"type\":\"unknown\"},"
        "{\"id\":5,\"name\":\"doc\",\"required\":false,\"type\":\"variant\"},"
        "{\"id\":6,\"name\":\"later\",\"required\":false,\"type\":\"variant\"}]}";
    static const char *FILE_JSON =
        "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
        "{\"name\":\"id\",\"type\":\"long\",\"field-id\":1},"
        "{\"name\":\"shape\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":2},"
        "{\"name\":\"area\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"field-id\":3},"
        "{\"name\":\"doc\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"r5\",\"fields\":["
        "{\"name\":\"metadata\",\"type\":\"bytes\"},{\"name\":\"value\",\"type\":\"bytes\"}]}],"
        "\"default\":null,\"field-id\":5}]}";
    /* POINT(1 2), little-endian WKB */
    static const uint8_t pt[21] = {1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0x40};
    char wh[1024], path[1200];
    floe_test_tmpdir(wh, sizeof wh, "avro_geometry");
    snprintf(path, sizeof path, "%s/geo.avro", wh);
    /* {"a":[1,"x"]} over the dictionary ["a"] */
    static const uint8_t meta[] = {0x11, 0x01, 0x00, 0x01, 'a'};
    static const uint8_t val[] = {0x02, 1, 0, 0, 9, 0x03, 2, 0, 2, 4, 3 << 2, 1, (1 << 2) | 1, 'x'};
    floe_avro_value doc0[2] = {floe_avro_bytes(FLOE_AVRO_BYTES, meta, sizeof meta),
                               floe_avro_bytes(FLOE_AVRO_BYTES, val, sizeof val)};
    floe_avro_value r0[4] = {LONG(FLOE_AVRO_LONG, 1), floe_avro_bytes(FLOE_AVRO_BYTES, pt, sizeof pt), NUL,
                             floe_avro_items(FLOE_AVRO_RECORD, doc0, 2)};
    floe_avro_value rows[1] = {floe_avro_items(FLOE_AVRO_RECORD, r0, 4)};
    write_rows(path, FILE_JSON, rows, 1);
    floe_ice_schema *schema = NULL;
    assert_ok(floe_ice_schema_from_json_text(SCHEMA_JSON, &schema));
    floe_ice_expr *always = NULL;
    assert_ok(floe_ice_expr_from_json_text("true", &always));
    floe_ice_scan_task task = whole_file_task(path, "avro", 1, -1, always);
    static const int32_t ids[4] = {1, 2, 3, 4};
    floe_ice_task_read_options ro = {0};
    ro.schema = schema;
    ro.field_ids = ids;
    ro.n_field_ids = 4;
    floe_ice_task_reader *r = NULL;
    assert_ok(floe_ice_task_reader_open(&ro, &task, &r));
    floe_batch *b = NULL;
    assert_ok(floe_ice_task_reader_next(r, &b));
    assert_non_null(b);
    assert_int_equal(b->columns[1]->type->id, FLOE_TYPE_BINARY);
    floe_strview v = floe_array_get_str(b->columns[1], 0);
    assert_int_equal(v.len, sizeof pt);
    assert_memory_equal(v.data, pt, sizeof pt);
    assert_true(floe_array_is_null(b->columns[2], 0));
    assert_true(floe_array_is_null(b->columns[3], 0));
    floe_batch_release(b);
    floe_ice_task_reader_close(r);
    static const int32_t with_variant[3] = {1, 5, 6};
    ro.field_ids = with_variant;
    ro.n_field_ids = 3;
    assert_ok(floe_ice_task_reader_open(&ro, &task, &r));
    assert_ok(floe_ice_task_reader_next(r, &b));
    assert_non_null(b);
    assert_int_equal(b->columns[1]->type->id, FLOE_TYPE_VARIANT);
    floe_buf js = FLOE_BUF_INIT;
    assert_ok(floe_format_value(b->columns[1], 0, &js));
    assert_string_equal(floe_buf_cstr(&js), "{\"a\":[1,\"x\"]}");
    floe_buf_free(&js);
    assert_int_equal(b->columns[2]->type->id, FLOE_TYPE_VARIANT);
    assert_true(floe_array_is_null(b->columns[2], 0)); /* not in the file: NULL */
    floe_batch_release(b);
    floe_ice_task_reader_close(r);
    /* The same file with a value that is not a variant. */
    static const uint8_t bad[] = {0x02, 1, 7, 0, 1, 0};
    doc0[1] = floe_avro_bytes(FLOE_AVRO_BYTES, bad, sizeof bad);
    write_rows(path, FILE_JSON, rows, 1);
    assert_ok(floe_ice_task_reader_open(&ro, &task, &r));
    floe_status st = floe_ice_task_reader_next(r, &b);
    if (!st) fail_msg("a bad variant read");
    assert_non_null(strstr(floe_status_message(st), "field 5 ('doc'): variant at slot 0"));
    assert_non_null(strstr(floe_status_message(st), "id 7, outside the metadata's 1 names"));
    floe_status_free(st);
    floe_ice_task_reader_close(r);
    floe_ice_expr_free(always);
    floe_ice_schema_free(schema);
}

FLOE_TEST_MAIN(cmocka_unit_test(avro_data_files_read_by_field_id_beside_parquet),
               cmocka_unit_test(v3_geometry_reads_as_wkb_and_variant_as_its_record),
               cmocka_unit_test(avro_position_and_equality_delete_files_apply),
               cmocka_unit_test(avro_files_without_ids_or_mapping_match_by_name),
               cmocka_unit_test(metadata_columns_and_row_lineage_are_filled))
