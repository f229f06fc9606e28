/* Logical and converted type annotations that do not fit their physical
 * type (TIMESTAMP on INT32, UINT_64 on INT32, DATE on BYTE_ARRAY, DECIMAL
 * with scale > precision, STRING on INT64 ...) make reading the column an
 * error naming the file, the column and the annotation — never a silent
 * read as the physical type; the file's other columns still read.  Valid
 * but unusual annotations (converted types alone, INT_8 on INT32,
 * TIME_MILLIS, UUID, FLOAT16, INTERVAL, GEOMETRY, an unknown logical type
 * with a converted type to fall back on) read as they are meant. */
#include "floe_test.h"
#include "base/buffer.h"
#include "floe/columnar.h"
#include "formats/parquet/column_reader.h"
#include "formats/parquet/reader.h"
#include "../../tools/pq_fixture.h"

static void fixture_path(const char *name, char *path, size_t cap) {
    char dir[1024];
    floe_test_tmpdir(dir, sizeof dir, name);
    snprintf(path, cap, "%s/%s.parquet", dir, name);
    assert_ok(pqfx_write_named(name, path));
}

static void invalid_annotations_name_file_column_and_annotation(void **state) {
    (void)state;
    static const struct {
        const char *fixture, *column, *annotation, *physical;
    } cases[] = {
        {"bad_timestamp_int32", "column 'ts'", "TIMESTAMP(MILLIS,utc)", "INT32"},
        {"bad_uint64_int32", "column 'u'", "UINT_64", "INT32"},
        {"bad_date_binary", "column 'd'", "DATE", "BYTE_ARRAY"},
        {"bad_decimal_scale", "column 'dec'", "DECIMAL(4,6)", "scale 6 exceeds precision 4"},
        {"bad_string_int64", "column 's'", "STRING", "INT64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1200];
        fixture_path(cases[i].fixture, path, sizeof path);
        floe_pq_reader *r = NULL;
        floe_status st = floe_pq_reader_open_path(path, NULL, &r);
        if (!st) fail_msg("%s: read without an error", cases[i].fixture);
        const char *msg = floe_status_message(st);
        if (floe_status_code(st) != FLOE_ERR_CORRUPT || !strstr(msg, path) || !strstr(msg, cases[i].column) ||
            !strstr(msg, cases[i].annotation) || !strstr(msg, cases[i].physical))
            fail_msg("%s: [%s] %s", cases[i].fixture, floe_code_name(floe_status_code(st)), msg);
        floe_status_free(st);
        /* The valid column still reads. */
        const char *ok[] = {"ok"};
        floe_pq_read_options o = {0};
        o.columns = ok;
        o.num_columns = 1;
        assert_ok(floe_pq_reader_open_path(path, &o, &r));
        floe_batch *b = NULL;
        assert_ok(floe_pq_reader_next(r, &b));
        assert_int_equal(b->num_rows, PQFX_ROWS);
        assert_int_equal(floe_array_get_int32(b->columns[0], 7), 7);
        floe_batch_release(b);
        floe_pq_reader_close(r);
    }
}

/* ---------------------------------------------- schema-level combinations */

static floe_pq_schema_element leaf(floe_pq_type t, int len) {
    floe_pq_schema_element e;
    memset(&e, 0, sizeof e);
    e.name = "c";
    e.has_repetition = true;
    e.repetition = FLOE_PQ_OPTIONAL;
    e.has_type = true;
    e.type = t;
    e.has_type_length = len > 0;
    e.type_length = len;
    e.converted_type = FLOE_PQ_CT_NONE;
    return e;
}

static floe_pq_schema_element lt(floe_pq_schema_element e, floe_pq_logical_kind k) {
    e.logical = pqfx_lt(k);
    return e;
}

static floe_pq_schema_element ct(floe_pq_schema_element e, floe_pq_converted_type c) {
    e.converted_type = c;
    return e;
}

static floe_pq_schema_element unit(floe_pq_schema_element e, floe_pq_time_unit u) {
    e.logical.unit = u;
    return e;
}

static floe_pq_schema_element bits(floe_pq_schema_element e, int w, bool sgn) {
    e.logical.bit_width = (int8_t)w;
    e.logical.is_signed = sgn;
    return e;
}

static floe_pq_schema_element dec(floe_pq_schema_element e, int p, int s) {
    e.logical = pqfx_lt_decimal(p, s);
    return e;
}

/* The engine type of the single leaf `e`, or the error reading it. */
static floe_status leaf_type(floe_pq_schema_element e, floe_type_id *id) {
    floe_pq_schema_element els[2];
    memset(&els[0], 0, sizeof els[0]);
    els[0].name = "root";
    els[0].has_num_children = true;
    els[0].num_children = 1;
    els[0].converted_type = FLOE_PQ_CT_NONE;
    els[1] = e;
    floe_pq_file_metadata md;
    memset(&md, 0, sizeof md);
    md.schema = els;
    md.num_schema = 2;
    floe_pq_schema *s = NULL;
    FLOE_TRY(floe_pq_schema_build(&md, &s));
    floe_type *t = NULL;
    floe_status st = pq_leaf_type(floe_pq_schema_column(s, 0), 0, &t);
    if (!st) *id = t->id;
    floe_type_release(t);
    floe_pq_schema_free(s);
    return st;
}

static void annotations_must_fit_the_physical_type(void **state) {
    (void)state;
    const struct {
        floe_pq_schema_element e;
        const char *needle;
    } bad[] = {
        {unit(lt(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_LT_TIME), FLOE_PQ_UNIT_MICROS), "TIME(MICROS,local) is not valid on INT32"},
        {unit(lt(leaf(FLOE_PQ_INT64, 0), FLOE_PQ_LT_TIME), FLOE_PQ_UNIT_MILLIS), "TIME(MILLIS,local) is not valid on INT64"},
        {unit(lt(leaf(FLOE_PQ_INT96, 0), FLOE_PQ_LT_TIMESTAMP), FLOE_PQ_UNIT_NANOS), "TIMESTAMP(NANOS,local) is not valid on INT96"},
        {bits(lt(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_LT_INTEGER), 64, true), "INT(64,signed) is not valid on INT32"},
        {bits(lt(leaf(FLOE_PQ_INT64, 0), FLOE_PQ_LT_INTEGER), 8, false), "INT(8,unsigned) is not valid on INT64"},
        {bits(lt(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_LT_INTEGER), 7, true), "INT(7,signed) is not valid on INT32"},
        {lt(leaf(FLOE_PQ_FIXED_LEN_BYTE_ARRAY, 8), FLOE_PQ_LT_UUID), "UUID is not valid on FIXED_LEN_BYTE_ARRAY(8)"},
        {lt(leaf(FLOE_PQ_FIXED_LEN_BYTE_ARRAY, 4), FLOE_PQ_LT_FLOAT16), "FLOAT16 is not valid on FIXED_LEN_BYTE_ARRAY(4)"},
        {lt(leaf(FLOE_PQ_FIXED_LEN_BYTE_ARRAY, 4), FLOE_PQ_LT_JSON), "JSON is not valid on FIXED_LEN_BYTE_ARRAY(4)"},
        {lt(leaf(FLOE_PQ_BOOLEAN, 0), FLOE_PQ_LT_STRING), "STRING is not valid on BOOLEAN"},
        {lt(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_LT_BSON), "BSON is not valid on INT32"},
        {lt(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_LT_LIST), "LIST is not valid on INT32"},
        {lt(leaf(FLOE_PQ_BYTE_ARRAY, 0), FLOE_PQ_LT_VARIANT), "VARIANT is not valid on BYTE_ARRAY"},
        {lt(leaf(FLOE_PQ_INT64, 0), FLOE_PQ_LT_GEOMETRY), "GEOMETRY is not valid on INT64"},
        {dec(leaf(FLOE_PQ_DOUBLE, 0), 10, 2), "DECIMAL(10,2) is not valid on DOUBLE"},
        {dec(leaf(FLOE_PQ_INT32, 0), 10, 0), "DECIMAL(10,0): precision 10 is too large for INT32"},
        {dec(leaf(FLOE_PQ_INT64, 0), 19, 0), "DECIMAL(19,0): precision 19 is too large for INT64"},
        {dec(leaf(FLOE_PQ_INT32, 0), 0, 0), "DECIMAL(0,0): precision 0"},
        {dec(leaf(FLOE_PQ_BYTE_ARRAY, 0), 5, -1), "DECIMAL(5,-1): negative scale"},
        {ct(leaf(FLOE_PQ_INT64, 0), FLOE_PQ_CT_DATE), "converted type DATE is not valid on INT64"},
        {ct(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_CT_UTF8), "converted type UTF8 is not valid on INT32"},
        {ct(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_CT_LIST), "converted type LIST is not valid on INT32"},
        {ct(leaf(FLOE_PQ_INT96, 0), FLOE_PQ_CT_TIMESTAMP_MICROS), "converted type TIMESTAMP_MICROS is not valid on INT96"},
        {ct(leaf(FLOE_PQ_FIXED_LEN_BYTE_ARRAY, 8), FLOE_PQ_CT_INTERVAL), "converted type INTERVAL is not valid on FIXED_LEN_BYTE_ARRAY(8)"},
        {ct(leaf(FLOE_PQ_INT64, 0), FLOE_PQ_CT_INT_16), "converted type INT_16 is not valid on INT64"},
        {ct(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_CT_DECIMAL), "converted type DECIMAL(0,0): precision 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        floe_type_id id = FLOE_TYPE_NULL;
        floe_status st = leaf_type(bad[i].e, &id);
        if (!st) fail_msg("case %zu (%s): read as %s", i, bad[i].needle, floe_type_id_name(id));
        if (floe_status_code(st) != FLOE_ERR_CORRUPT || !strstr(floe_status_message(st), bad[i].needle) ||
            !strstr(floe_status_message(st), "column 'c'"))
            fail_msg("case %zu: [%s] %s (want '%s')", i, floe_code_name(floe_status_code(st)), floe_status_message(st),
                     bad[i].needle);
        floe_status_free(st);
    }
    floe_pq_schema_element unknown_lt = ct(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_CT_INT_16);
    unknown_lt.logical.kind = FLOE_PQ_LT_UNRECOGNIZED;
    unknown_lt.logical.raw_id = 99;
    floe_pq_schema_element unknown_alone = leaf(FLOE_PQ_INT64, 0);
    unknown_alone.logical.kind = FLOE_PQ_LT_UNRECOGNIZED;
    unknown_alone.logical.raw_id = 99;
    const struct {
        floe_pq_schema_element e;
        floe_type_id want;
    } good[] = {
        {ct(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_CT_INT_8), FLOE_TYPE_INT32},
        {ct(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_CT_UINT_32), FLOE_TYPE_INT64},
        {ct(leaf(FLOE_PQ_INT64, 0), FLOE_PQ_CT_UINT_64), FLOE_TYPE_DECIMAL128},
        {ct(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_CT_TIME_MILLIS), FLOE_TYPE_TIME64_US},
        {ct(leaf(FLOE_PQ_INT64, 0), FLOE_PQ_CT_TIMESTAMP_MILLIS), FLOE_TYPE_TIMESTAMP_US_TZ},
        {ct(leaf(FLOE_PQ_BYTE_ARRAY, 0), FLOE_PQ_CT_JSON), FLOE_TYPE_STRING},
        {ct(leaf(FLOE_PQ_FIXED_LEN_BYTE_ARRAY, 12), FLOE_PQ_CT_INTERVAL), FLOE_TYPE_FIXED_BINARY},
        {lt(leaf(FLOE_PQ_FIXED_LEN_BYTE_ARRAY, 16), FLOE_PQ_LT_UUID), FLOE_TYPE_UUID},
        {lt(leaf(FLOE_PQ_FIXED_LEN_BYTE_ARRAY, 2), FLOE_PQ_LT_FLOAT16), FLOE_TYPE_FLOAT32},
        {lt(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_LT_UNKNOWN), FLOE_TYPE_NULL},
        {lt(leaf(FLOE_PQ_BYTE_ARRAY, 0), FLOE_PQ_LT_GEOMETRY), FLOE_TYPE_BINARY},
        {lt(leaf(FLOE_PQ_BYTE_ARRAY, 0), FLOE_PQ_LT_GEOGRAPHY), FLOE_TYPE_BINARY},
        {unit(lt(leaf(FLOE_PQ_INT32, 0), FLOE_PQ_LT_TIME), FLOE_PQ_UNIT_MILLIS), FLOE_TYPE_TIME64_US},
        {dec(leaf(FLOE_PQ_FIXED_LEN_BYTE_ARRAY, 17), 40, 40), FLOE_TYPE_FLOAT64},
        {unknown_lt, FLOE_TYPE_INT32},   /* an unknown logical type: the converted type */
        {unknown_alone, FLOE_TYPE_INT64}, /* ... or the physical type */
        {leaf(FLOE_PQ_INT96, 0), FLOE_TYPE_TIMESTAMP_US_TZ},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        floe_type_id id = FLOE_TYPE_NULL;
        floe_status st = leaf_type(good[i].e, &id);
        if (st) fail_msg("good case %zu: %s", i, floe_status_message(st));
        if (id != good[i].want)
            fail_msg("good case %zu: %s, want %s", i, floe_type_id_name(id), floe_type_id_name(good[i].want));
    }
}

static void unusual_annotations_read_as_meant(void **state) {
    (void)state;
    char path[1200];
    fixture_path("unusual", path, sizeof path);
    floe_pq_reader *r = NULL;
    assert_ok(floe_pq_reader_open_path(path, NULL, &r));
    floe_batch *b = NULL;
    assert_ok(floe_pq_reader_next(r, &b));
    static const char *const want[][2] = {
        {"i8_ct", "-128"}, {"u8_ct", "128"}, {"u32_lt", "3999999982"}, {"time_ms_ct", "06:12:18.024"},
        {"date_ct", "2024-03-18"}, {"ts_ms_ct", "2023-11-20 22:13:20.129+00"}, {"utf8_ct", "s6"},
        {"uuid", "66676869-6a6b-6c6d-6e6f-707172737475"}, {"half", "5.9604645e-08"},
    };
    floe_buf got = FLOE_BUF_INIT;
    const floe_schema *s = floe_pq_reader_schema(r);
    assert_int_equal(floe_schema_num_fields(s), 9);
    for (int c = 0; c < 9; c++) {
        assert_string_equal(floe_schema_field(s, c)->name, want[c][0]);
        floe_buf_clear(&got);
        assert_ok(floe_format_value(b->columns[c], 6, &got));
        if (strcmp(floe_buf_cstr(&got), want[c][1]))
            fail_msg("%s: got %s, want %s", want[c][0], floe_buf_cstr(&got), want[c][1]);
    }
    floe_buf_free(&got);
    floe_batch_release(b);
    floe_pq_reader_close(r);
}

FLOE_TEST_MAIN(cmocka_unit_test(invalid_annotations_name_file_column_and_annotation),
               cmocka_unit_test(annotations_must_fit_the_physical_type),
               cmocka_unit_test(unusual_annotations_read_as_meant))
