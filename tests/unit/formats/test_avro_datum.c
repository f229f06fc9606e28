/* Avro values: encode → container file → decode round trips for every type,
 * single-datum encoding, schema resolution (Iceberg field ids, defaults,
 * promotions, unions), and malformed bytes reported with their offset. */
#include "floe_test.h"

#include "floe/fileio.h"
#include "floe/memory.h"
#include "formats/avro/avro.h"

static floe_avro_schema *parse_ok(const char *json) {
    floe_avro_schema *s = NULL;
    assert_ok(floe_avro_schema_parse(json, strlen(json), &s));
    return s;
}

static const char *all_types_schema =
    "{\"type\":\"record\",\"name\":\"All\",\"namespace\":\"t\",\"fields\":["
    "{\"name\":\"n\",\"type\":\"null\",\"field-id\":1},"
    "{\"name\":\"b\",\"type\":\"boolean\",\"field-id\":2},"
    "{\"name\":\"i\",\"type\":\"int\",\"field-id\":3},"
    "{\"name\":\"l\",\"type\":\"long\",\"field-id\":4},"
    "{\"name\":\"f\",\"type\":\"float\",\"field-id\":5},"
    "{\"name\":\"d\",\"type\":\"double\",\"field-id\":6},"
    "{\"name\":\"by\",\"type\":\"bytes\",\"field-id\":7},"
    "{\"name\":\"s\",\"type\":\"string\",\"field-id\":8},"
    "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"Color\",\"symbols\":[\"RED\",\"GREEN\"]},\"field-id\":9},"
    "{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"F4\",\"size\":4},\"field-id\":10},"
    "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"items\":\"long\",\"element-id\":21},\"field-id\":11},"
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":[\"null\",\"string\"],\"key-id\":22,\"value-id\":23},\"field-id\":12},"
    "{\"name\":\"opt\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Inner\",\"fields\":["
    "   {\"name\":\"x\",\"type\":\"int\",\"field-id\":31}]}],\"default\":null,\"field-id\":13},"
    "{\"name\":\"dec\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2},\"field-id\":14},"
    "{\"name\":\"day\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"},\"field-id\":15},"
    "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"},\"field-id\":16},"
    "{\"name\":\"uid\",\"type\":{\"type\":\"fixed\",\"name\":\"U\",\"size\":16,\"logicalType\":\"uuid\"},\"field-id\":17},"
    "{\"name\":\"tm\",\"type\":{\"type\":\"long\",\"logicalType\":\"time-micros\"},\"field-id\":18}"
    "]}";

/* Build record number k of the all-types schema in `a`. */
static floe_avro_value make_all(floe_arena *a, int k) {
    floe_avro_value *f = floe_arena_calloc(a, 18, sizeof *f);
    floe_avro_value *arr = floe_arena_calloc(a, 3, sizeof *arr);
    floe_avro_value *kv = floe_arena_calloc(a, 4, sizeof *kv);
    floe_avro_value *inner = floe_arena_calloc(a, 1, sizeof *inner);
    static const uint8_t dec[2] = {0xfb, 0x2e}; /* -1234 → -12.34 */
    static const uint8_t uid[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                    1, 2, 3, 4, 5, 6, 7, 8};
    f[0] = floe_avro_null();
    f[1] = floe_avro_long(FLOE_AVRO_BOOLEAN, k & 1);
    f[2] = floe_avro_long(FLOE_AVRO_INT, -2147483647 - 1 + k);
    f[3] = floe_avro_long(FLOE_AVRO_LONG, INT64_MAX - k);
    f[4] = floe_avro_double(FLOE_AVRO_FLOAT, 1.5 * k);
    f[5] = floe_avro_double(FLOE_AVRO_DOUBLE, -0.1 * k);
    f[6] = floe_avro_bytes(FLOE_AVRO_BYTES, "\x00\xff\x01", 3);
    f[7] = floe_avro_bytes(FLOE_AVRO_STRING, "h\xc3\xa9llo \"q\"", 10);
    f[8] = floe_avro_long(FLOE_AVRO_ENUM, k % 2);
    f[9] = floe_avro_bytes(FLOE_AVRO_FIXED, "abcd", 4);
    arr[0] = floe_avro_long(FLOE_AVRO_LONG, 1);
    arr[1] = floe_avro_long(FLOE_AVRO_LONG, -1);
    arr[2] = floe_avro_long(FLOE_AVRO_LONG, k);
    f[10] = floe_avro_items(FLOE_AVRO_ARRAY, arr, (size_t)(k % 4));
    kv[0] = floe_avro_bytes(FLOE_AVRO_STRING, "k1", 2);
    kv[1] = floe_avro_bytes(FLOE_AVRO_STRING, "v1", 2);
    kv[2] = floe_avro_bytes(FLOE_AVRO_STRING, "k2", 2);
    kv[3] = floe_avro_null();
    f[11] = floe_avro_items(FLOE_AVRO_MAP, kv, 2);
    inner[0] = floe_avro_long(FLOE_AVRO_INT, k);
    f[12] = k % 3 ? floe_avro_items(FLOE_AVRO_RECORD, inner, 1) : floe_avro_null();
    f[13] = floe_avro_bytes(FLOE_AVRO_BYTES, dec, 2);
    f[14] = floe_avro_long(FLOE_AVRO_INT, 19723); /* 2024-01-01 */
    f[15] = floe_avro_long(FLOE_AVRO_LONG, 1704067200123456LL);
    f[16] = floe_avro_bytes(FLOE_AVRO_FIXED, uid, 16);
    f[17] = floe_avro_long(FLOE_AVRO_LONG, 45296000001LL); /* 12:34:56.000001 */
    return floe_avro_items(FLOE_AVRO_RECORD, f, 18);
}

static void write_file(const char *path, const floe_avro_schema *s, floe_avro_codec codec, int n,
                       size_t block) {
    floe_output *out;
    assert_ok(floe_output_create_local(path, 1, &out));
    floe_avro_meta meta[2] = {{"format-version", (uint8_t *)"2", 1},
                              {"schema", (uint8_t *)"{\"type\":\"struct\"}", 17}};
    floe_avro_writer_options o = {codec, 0, block};
    floe_avro_writer *w;
    assert_ok(floe_avro_writer_open(out, s, meta, 2, &o, &w));
    floe_arena a;
    floe_arena_init(&a, 0);
    for (int k = 0; k < n; k++) {
        floe_avro_value v = make_all(&a, k);
        assert_ok(floe_avro_writer_append(w, &v));
        floe_arena_reset(&a);
    }
    assert_int_equal(floe_avro_writer_records(w), n);
    assert_ok(floe_avro_writer_finish(w));
    assert_ok(floe_output_close(out));
    floe_arena_destroy(&a);
}

static void assert_same(const floe_avro_schema *s, const floe_avro_value *a, const floe_avro_value *b) {
    floe_buf x = FLOE_BUF_INIT, y = FLOE_BUF_INIT;
    assert_ok(floe_avro_value_to_json(s, a, &x));
    assert_ok(floe_avro_value_to_json(s, b, &y));
    assert_string_equal(floe_buf_cstr(&x), floe_buf_cstr(&y));
    floe_buf_free(&x);
    floe_buf_free(&y);
}

static void every_type_round_trips_through_a_container_file_with_every_codec(void **state) {
    (void)state;
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "avro_round_trip");
    floe_avro_schema *s = parse_ok(all_types_schema);
    floe_avro_codec codecs[] = {FLOE_AVRO_CODEC_NULL, FLOE_AVRO_CODEC_DEFLATE,
                                FLOE_AVRO_CODEC_SNAPPY, FLOE_AVRO_CODEC_ZSTD};
    for (int c = 0; c < 4; c++) {
        snprintf(path, sizeof path, "%s/all-%s.avro", dir, floe_avro_codec_name(codecs[c]));
        write_file(path, s, codecs[c], 500, 1000); /* small blocks: many of them */
        floe_input *in;
        floe_avro_reader *r;
        assert_ok(floe_input_open_local(path, &in));
        assert_ok(floe_avro_reader_open(in, NULL, &r));
        assert_int_equal(floe_avro_reader_codec(r), codecs[c]);
        size_t len;
        const uint8_t *fv = floe_avro_reader_meta(r, "format-version", &len);
        assert_non_null(fv);
        assert_int_equal(len, 1);
        assert_memory_equal(fv, "2", 1);
        /* The embedded schema kept its ids. */
        const floe_avro_schema *ws = floe_avro_reader_writer_schema(r);
        assert_int_equal(ws->fields[12].field_id, 13);
        assert_int_equal(ws->fields[10].type->element_id, 21);
        assert_int_equal(ws->fields[11].type->value_id, 23);
        assert_int_equal(floe_avro_optional_inner(ws->fields[12].type)->fields[0].field_id, 31);
        floe_arena a, b;
        floe_arena_init(&a, 0);
        floe_arena_init(&b, 0);
        int k = 0, has;
        for (;;) {
            floe_avro_value v;
            assert_ok(floe_avro_reader_next(r, &a, &v, &has));
            if (!has) break;
            floe_avro_value want = make_all(&b, k);
            assert_same(s, &want, &v);
            assert_int_equal(v.u.items[12].branch, k % 3 ? 1 : 0);
            floe_arena_reset(&a);
            floe_arena_reset(&b);
            k++;
        }
        assert_int_equal(k, 500);
        assert_true(floe_avro_reader_blocks(r) > 10);
        floe_arena_destroy(&a);
        floe_arena_destroy(&b);
        floe_avro_reader_close(r);
        floe_input_close(in);
    }
    floe_avro_schema_free(s);
}

static void json_rendering_is_plain_and_readable(void **state) {
    (void)state;
    floe_avro_schema *s = parse_ok(all_types_schema);
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_avro_value v = make_all(&a, 1);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_avro_value_to_json(s, &v, &b));
    assert_string_equal(floe_buf_cstr(&b),
        "{\"n\":null,\"b\":true,\"i\":-2147483647,\"l\":9223372036854775806,\"f\":1.5,\"d\":-0.1,"
        "\"by\":\"\\u0000\\u00ff\\u0001\",\"s\":\"h\xc3\xa9llo \\\"q\\\"\",\"e\":\"GREEN\",\"fx\":\"abcd\","
        "\"arr\":[1],\"m\":{\"k1\":\"v1\",\"k2\":null},\"opt\":{\"x\":1},\"dec\":-12.34,"
        "\"day\":\"2024-01-01\",\"ts\":\"2024-01-01T00:00:00.123456Z\","
        "\"uid\":\"12345678-9abc-def0-0102-030405060708\",\"tm\":\"12:34:56.000001\"}");
    floe_buf_free(&b);
    floe_arena_destroy(&a);
    floe_avro_schema_free(s);
}

static void single_datum_encodes_and_decodes(void **state) {
    (void)state;
    floe_avro_schema *s = parse_ok(all_types_schema);
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_avro_value v = make_all(&a, 2);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_avro_encode_datum(s, &v, &b));
    floe_avro_value back;
    size_t used;
    assert_ok(floe_avro_decode_datum(s, NULL, b.data, b.len, &a, &back, &used));
    assert_int_equal(used, b.len);
    assert_same(s, &v, &back);
    /* Every truncation is an error naming a byte offset, never a crash. */
    for (size_t n = 0; n < b.len; n++) {
        floe_status st = floe_avro_decode_datum(s, NULL, b.data, n, &a, &back, &used);
        assert_non_null(st);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
        assert_non_null(strstr(floe_status_message(st), "datum byte"));
        floe_status_free(st);
    }
    /* Wrong value shapes are type errors naming the field. */
    v.u.items[7] = floe_avro_long(FLOE_AVRO_LONG, 1);
    floe_buf_clear(&b);
    assert_error(floe_avro_encode_datum(s, &v, &b), FLOE_ERR_TYPE, "field 's'");
    assert_int_equal(b.len, 0);
    floe_buf_free(&b);
    floe_arena_destroy(&a);
    floe_avro_schema_free(s);
}

static void malformed_bytes_are_corrupt_with_offsets(void **state) {
    (void)state;
    floe_avro_schema *s = parse_ok("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                                   "{\"name\":\"a\",\"type\":\"long\"},"
                                   "{\"name\":\"u\",\"type\":[\"null\",\"string\"]}]}");
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_avro_value v;
    /* union index 5 */
    assert_error(floe_avro_decode_datum(s, NULL, (const uint8_t *)"\x02\x0a", 2, &a, &v, NULL),
                 FLOE_ERR_CORRUPT, "datum byte 2: union branch 5 out of range");
    /* negative string length */
    assert_error(floe_avro_decode_datum(s, NULL, (const uint8_t *)"\x02\x02\x03", 3, &a, &v, NULL),
                 FLOE_ERR_CORRUPT, "negative string length");
    /* string longer than the data */
    assert_error(floe_avro_decode_datum(s, NULL, (const uint8_t *)"\x02\x02\x40xy", 5, &a, &v, NULL),
                 FLOE_ERR_CORRUPT, "runs past the end");
    /* an 11-byte varint */
    const uint8_t longv[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0};
    assert_error(floe_avro_decode_datum(s, NULL, longv, sizeof longv, &a, &v, NULL), FLOE_ERR_CORRUPT,
                 "varint");
    /* huge array counts of zero-size items can't spin forever */
    floe_avro_schema *nulls = parse_ok("{\"type\":\"array\",\"items\":\"null\"}");
    const uint8_t huge[] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0};
    assert_error(floe_avro_decode_datum(nulls, NULL, huge, sizeof huge, &a, &v, NULL), FLOE_ERR_CORRUPT,
                 "item counts");
    floe_avro_schema_free(nulls);
    floe_arena_destroy(&a);
    floe_avro_schema_free(s);
}

/* Decode bytes written with `wjson` as `rjson`; returns the JSON rendering. */
static void resolve(const char *wjson, const floe_avro_value *v, const char *rjson, const char *want) {
    floe_avro_schema *w = parse_ok(wjson), *r = parse_ok(rjson);
    floe_buf b = FLOE_BUF_INIT, j = FLOE_BUF_INIT;
    assert_ok(floe_avro_encode_datum(w, v, &b));
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_avro_value out;
    assert_ok(floe_avro_decode_datum(w, r, b.data, b.len, &a, &out, NULL));
    assert_ok(floe_avro_value_to_json(r, &out, &j));
    assert_string_equal(floe_buf_cstr(&j), want);
    floe_arena_destroy(&a);
    floe_buf_free(&b);
    floe_buf_free(&j);
    floe_avro_schema_free(w);
    floe_avro_schema_free(r);
}

static void field_ids_beat_names_in_resolution(void **state) {
    (void)state;
    /* The writer calls id 1 "b" and id 2 "a"; the reader's "a" is id 1. */
    floe_avro_value f[3] = {floe_avro_long(FLOE_AVRO_INT, 10), floe_avro_long(FLOE_AVRO_INT, 20),
                            floe_avro_bytes(FLOE_AVRO_STRING, "gone", 4)};
    floe_avro_value v = floe_avro_items(FLOE_AVRO_RECORD, f, 3);
    resolve("{\"type\":\"record\",\"name\":\"w\",\"fields\":["
            "{\"name\":\"b\",\"type\":\"int\",\"field-id\":1},"
            "{\"name\":\"a\",\"type\":\"int\",\"field-id\":2},"
            "{\"name\":\"dropped\",\"type\":\"string\",\"field-id\":3}]}",
            &v,
            "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
            "{\"name\":\"a\",\"type\":\"int\",\"field-id\":1},"
            "{\"name\":\"renamed\",\"type\":\"int\",\"field-id\":2},"
            "{\"name\":\"added\",\"type\":[\"null\",\"long\"],\"field-id\":4}]}",
            "{\"a\":10,\"renamed\":20,\"added\":null}");
    /* A writer field without an id still matches by name; one whose id
     * differs never does, even with the same name (it is another field). */
    floe_avro_value g[2] = {floe_avro_long(FLOE_AVRO_INT, 1), floe_avro_long(FLOE_AVRO_INT, 2)};
    floe_avro_value v2 = floe_avro_items(FLOE_AVRO_RECORD, g, 2);
    resolve("{\"type\":\"record\",\"name\":\"w\",\"fields\":["
            "{\"name\":\"x\",\"type\":\"int\"},"
            "{\"name\":\"y\",\"type\":\"int\",\"field-id\":5}]}",
            &v2,
            "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
            "{\"name\":\"x\",\"type\":\"int\",\"field-id\":9},"
            "{\"name\":\"y\",\"type\":[\"null\",\"int\"],\"field-id\":6}]}",
            "{\"x\":1,\"y\":null}");
    /* Without ids, names (and aliases) decide. */
    resolve("{\"type\":\"record\",\"name\":\"w\",\"fields\":["
            "{\"name\":\"b\",\"type\":\"int\"},{\"name\":\"a\",\"type\":\"int\"},"
            "{\"name\":\"old\",\"type\":\"string\"}]}",
            &v,
            "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
            "{\"name\":\"a\",\"type\":\"int\"},"
            "{\"name\":\"new\",\"type\":\"string\",\"aliases\":[\"old\"]}]}",
            "{\"a\":20,\"new\":\"gone\"}");
}

static void defaults_and_promotions_apply(void **state) {
    (void)state;
    floe_avro_value f[4] = {floe_avro_long(FLOE_AVRO_INT, 7), floe_avro_long(FLOE_AVRO_LONG, 8),
                            floe_avro_double(FLOE_AVRO_FLOAT, 0.5),
                            floe_avro_bytes(FLOE_AVRO_STRING, "s", 1)};
    floe_avro_value v = floe_avro_items(FLOE_AVRO_RECORD, f, 4);
    resolve("{\"type\":\"record\",\"name\":\"w\",\"fields\":["
            "{\"name\":\"i\",\"type\":\"int\"},{\"name\":\"l\",\"type\":\"long\"},"
            "{\"name\":\"f\",\"type\":\"float\"},{\"name\":\"s\",\"type\":\"string\"}]}",
            &v,
            "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
            "{\"name\":\"i\",\"type\":\"double\"},{\"name\":\"l\",\"type\":\"float\"},"
            "{\"name\":\"f\",\"type\":\"double\"},{\"name\":\"s\",\"type\":\"bytes\"},"
            "{\"name\":\"d1\",\"type\":\"int\",\"default\":42},"
            "{\"name\":\"d2\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[\"x\",\"y\"]},"
            "{\"name\":\"d3\",\"type\":[\"string\",\"null\"],\"default\":\"dflt\"},"
            "{\"name\":\"i2\",\"type\":[\"null\",\"long\"],\"default\":null,\"aliases\":[\"i\"]}]}",
            "{\"i\":7.0,\"l\":8.0,\"f\":0.5,\"s\":\"s\",\"d1\":42,\"d2\":[\"x\",\"y\"],\"d3\":\"dflt\",\"i2\":null}");
    /* A required reader field the writer lacks, without a default, is an error. */
    floe_avro_schema *w = parse_ok("{\"type\":\"record\",\"name\":\"w\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}");
    floe_avro_schema *r = parse_ok("{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"b\",\"type\":\"int\"}]}");
    floe_avro_resolver *res;
    assert_error(floe_avro_resolver_new(w, r, &res), FLOE_ERR_TYPE, "'schema.b'");
    floe_avro_schema_free(w);
    floe_avro_schema_free(r);
}

static void unions_resolve_between_writer_and_reader(void **state) {
    (void)state;
    floe_avro_value v = floe_avro_long(FLOE_AVRO_INT, 5);
    /* writer plain int → reader optional long */
    resolve("\"int\"", &v, "[\"null\",\"long\"]", "5");
    /* writer [null,int] → reader long (non-null branch occurs) */
    v.branch = 1;
    resolve("[\"null\",\"int\"]", &v, "\"long\"", "5");
    /* writer [null,string] with a null → reader [string,null] */
    floe_avro_value n = floe_avro_null();
    resolve("[\"null\",\"string\"]", &n, "[\"string\",\"null\"]", "null");
    /* a writer branch the reader cannot take fails only when it occurs */
    floe_avro_schema *w = parse_ok("[\"null\",\"string\"]"), *r = parse_ok("\"null\"");
    floe_arena a;
    floe_arena_init(&a, 0);
    floe_avro_value out;
    assert_ok(floe_avro_decode_datum(w, r, (const uint8_t *)"\x00", 1, &a, &out, NULL));
    assert_error(floe_avro_decode_datum(w, r, (const uint8_t *)"\x02\x02x", 3, &a, &out, NULL),
                 FLOE_ERR_TYPE, "does not match");
    floe_arena_destroy(&a);
    floe_avro_schema_free(w);
    floe_avro_schema_free(r);
}

static void render(const char *schema_json, floe_avro_value v, const char *want) {
    floe_avro_schema *s = parse_ok(schema_json);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_avro_value_to_json(s, &v, &b));
    assert_string_equal(floe_buf_cstr(&b), want);
    floe_buf_free(&b);
    floe_avro_schema_free(s);
}

static void logical_types_render_readably_at_the_edges(void **state) {
    (void)state;
    const char *dec = "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":38,\"scale\":2}";
    render(dec, floe_avro_bytes(FLOE_AVRO_BYTES, "\x05", 1), "0.05");
    render(dec, floe_avro_bytes(FLOE_AVRO_BYTES, "\xfb", 1), "-0.05");
    render(dec, floe_avro_bytes(FLOE_AVRO_BYTES, "", 0), "0");
    render(dec, floe_avro_bytes(FLOE_AVRO_BYTES, "\x00\x80", 2), "1.28");
    /* 2^127 - 1 → 170141183460469231731687303715884105727 */
    render(dec, floe_avro_bytes(FLOE_AVRO_BYTES, "\x7f\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 16),
           "1701411834604692317316873037158841057.27");
    render(dec, floe_avro_bytes(FLOE_AVRO_BYTES, "\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 16),
           "-1701411834604692317316873037158841057.28");
    const char *ts = "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}";
    render(ts, floe_avro_long(FLOE_AVRO_LONG, -1), "\"1969-12-31T23:59:59.999Z\"");
    render(ts, floe_avro_long(FLOE_AVRO_LONG, 951782400000LL), "\"2000-02-29T00:00:00.000Z\"");
    render("{\"type\":\"long\",\"logicalType\":\"local-timestamp-nanos\"}",
           floe_avro_long(FLOE_AVRO_LONG, 1), "\"1970-01-01T00:00:00.000000001\"");
    render("{\"type\":\"int\",\"logicalType\":\"date\"}", floe_avro_long(FLOE_AVRO_INT, -719162),
           "\"0001-01-01\"");
    render("{\"type\":\"int\",\"logicalType\":\"time-millis\"}", floe_avro_long(FLOE_AVRO_INT, 86399999),
           "\"23:59:59.999\"");
    render("{\"type\":\"fixed\",\"name\":\"D\",\"size\":12,\"logicalType\":\"duration\"}",
           floe_avro_bytes(FLOE_AVRO_FIXED, "\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00", 12),
           "{\"months\":1,\"days\":2,\"millis\":3}");
    render("\"double\"", floe_avro_double(FLOE_AVRO_DOUBLE, 1.0 / 0.0), "\"Infinity\"");
    render("\"double\"", floe_avro_double(FLOE_AVRO_DOUBLE, 1e300), "1e+300");
    render("\"float\"", floe_avro_double(FLOE_AVRO_FLOAT, (float)0.1), "0.1");
}

static void writer_refuses_defaults_strict_readers_reject(void **state) {
    (void)state;
    floe_avro_schema *bad = parse_ok("{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                                     "{\"name\":\"a\",\"type\":[\"long\",\"null\"],\"default\":null}]}");
    floe_avro_schema *good = parse_ok("{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                                      "{\"name\":\"a\",\"type\":[\"null\",\"long\"],\"default\":null},"
                                      "{\"name\":\"b\",\"type\":{\"type\":\"array\",\"items\":\"int\"},\"default\":[1]},"
                                      "{\"name\":\"c\",\"type\":\"string\",\"default\":\"x\"}]}");
    assert_error(floe_avro_schema_check_defaults(bad), FLOE_ERR_INVALID_ARGUMENT, "schema field 'r.a'");
    assert_ok(floe_avro_schema_check_defaults(good));
    char dir[1024], path[1200];
    floe_test_tmpdir(dir, sizeof dir, "avro_defaults");
    snprintf(path, sizeof path, "%s/bad.avro", dir);
    floe_output *out;
    floe_avro_writer *w;
    assert_ok(floe_output_create_local(path, 1, &out));
    assert_error(floe_avro_writer_open(out, bad, NULL, 0, NULL, &w), FLOE_ERR_INVALID_ARGUMENT, "default");
    floe_output_abort(out);
    floe_avro_schema_free(bad);
    floe_avro_schema_free(good);
}

FLOE_TEST_MAIN(cmocka_unit_test(every_type_round_trips_through_a_container_file_with_every_codec),
               cmocka_unit_test(json_rendering_is_plain_and_readable),
               cmocka_unit_test(logical_types_render_readably_at_the_edges),
               cmocka_unit_test(single_datum_encodes_and_decodes),
               cmocka_unit_test(malformed_bytes_are_corrupt_with_offsets),
               cmocka_unit_test(field_ids_beat_names_in_resolution),
               cmocka_unit_test(defaults_and_promotions_apply),
               cmocka_unit_test(unions_resolve_between_writer_and_reader),
               cmocka_unit_test(writer_refuses_defaults_strict_readers_reject))
