/* The Variant encoding: every parquet-testing vector decodes, validates and prints as its expected JSON; corrupt bytes are errors naming where; objects with 1..4-byte ids and offsets, large objects, unsorted dictionaries and paths work; the encoder round-trips; variant arrays print, slice, take and cross the Arrow C interface. */
#include "columnar_util.h"
#include "floe/arrow_c.h"
#include "variant_util.h"

#define VDIR "apache__parquet-testing/variant"

/* Every vector and the exact JSON floe prints for it.  The JSON of
 * data_dictionary.json agrees (checked below) except where Spark printed
 * other text for the same value: the time (Spark's "12:33:54:123456"), the
 * timestamps (Spark's session zone and no trailing zeros), float digits. */
static const struct {
    const char *name, *json;
} vectors[] = {
    {"array_empty", "[]"},
    {"array_nested", "[{\"id\":1,\"thing\":{\"names\":[\"Contrarian\",\"Spider\"]}},null,"
                     "{\"id\":2,\"names\":[\"Apple\",\"Ray\",null],\"type\":\"if\"}]"},
    {"array_primitive", "[2,1,5,9]"},
    {"long_string", "\"This string is for sure and certainly longer than 64 bytes and it also includes several "
                    "non ascii characters such as \xf0\x9f\x90\xa2, \xf0\x9f\x92\x96, \xe2\x99\xa5\xef\xb8\x8f, "
                    "\xf0\x9f\x8e\xa3 and \xf0\x9f\xa4\xa6!!\""},
    {"object_empty", "{}"},
    {"object_nested", "{\"id\":1,\"observation\":{\"location\":\"In the Volcano\",\"time\":\"12:34:56\",\"value\":"
                      "{\"humidity\":456,\"temperature\":123}},\"species\":{\"name\":\"lava monster\","
                      "\"population\":6789}}"},
    {"object_primitive", "{\"boolean_false_field\":false,\"boolean_true_field\":true,\"double_field\":1.23456789,"
                         "\"int_field\":1,\"null_field\":null,\"string_field\":\"Apache Parquet\","
                         "\"timestamp_field\":\"2025-04-16T12:34:56.78\"}"},
    {"primitive_binary", "\"AxM33q2+78r+\""},
    {"primitive_boolean_false", "false"},
    {"primitive_boolean_true", "true"},
    {"primitive_date", "\"2025-04-16\""},
    {"primitive_decimal16", "12345678912345678.90"},
    {"primitive_decimal4", "12.34"},
    {"primitive_decimal8", "12345678.90"},
    {"primitive_double", "1234567890.1234"},
    {"primitive_float", "1234567936.0"},
    {"primitive_int16", "1234"},
    {"primitive_int32", "123456"},
    {"primitive_int64", "1234567890123456789"},
    {"primitive_int8", "42"},
    {"primitive_null", "null"},
    {"primitive_string", "\"This string is longer than 64 bytes and therefore does not fit in a short_string and "
                         "it also includes several non ascii characters such as \xf0\x9f\x90\xa2, "
                         "\xf0\x9f\x92\x96, \xe2\x99\xa5\xef\xb8\x8f, \xf0\x9f\x8e\xa3 and \xf0\x9f\xa4\xa6!!\""},
    {"primitive_time", "\"12:33:54.123456\""},
    {"primitive_timestamp", "\"2025-04-16T16:34:56.780000+00:00\""},
    {"primitive_timestamp_nanos", "\"2024-11-07T12:33:54.123456789+00:00\""},
    {"primitive_timestampntz", "\"2025-04-16T12:34:56.780000\""},
    {"primitive_timestampntz_nanos", "\"2024-11-07T12:33:54.123456789\""},
    {"primitive_uuid", "\"f24f9b64-81fa-49d1-b74e-8c09a6e31c56\""},
    {"short_string", "\"Less than 64 bytes (\xe2\x9d\xa4\xef\xb8\x8f with utf8)\""},
};
#define N_VECTORS (sizeof vectors / sizeof vectors[0])

typedef struct vec {
    uint8_t *m, *v;
    size_t mn, vn;
} vec;

static vec load(const char *dir, const char *name) {
    char p[2048];
    vec x;
    snprintf(p, sizeof p, "%s/" VDIR "/%s.metadata", dir, name);
    x.m = vt_slurp(p, &x.mn);
    snprintf(p, sizeof p, "%s/" VDIR "/%s.value", dir, name);
    x.v = vt_slurp(p, &x.vn);
    return x;
}

static void unload(vec *x) {
    floe_free(x->m);
    floe_free(x->v);
}

static void every_vector_prints_its_json(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    char p[2048];
    /* data_dictionary.json as shipped has a trailing comma; drop it. */
    snprintf(p, sizeof p, "%s/" VDIR "/data_dictionary.json", dir);
    size_t dn;
    char *dict = (char *)vt_slurp(p, &dn);
    dict[dn] = 0;
    char *last = strrchr(dict, ',');
    char *close = strrchr(dict, '}');
    if (last && close && last < close && strspn(last + 1, " \t\r\n") == (size_t)(close - last - 1)) *last = ' ';
    json_error_t je;
    json_t *expect = json_loads(dict, 0, &je);
    if (!expect) fail_msg("data_dictionary.json: %s (line %d)", je.text, je.line);
    int compared = 0;
    for (size_t i = 0; i < N_VECTORS; i++) {
        vec x = load(dir, vectors[i].name);
        floe_status st;
        char *js = vt_json(x.m, x.mn, x.v, x.vn, &st);
        if (!js) fail_msg("%s: %s", vectors[i].name, floe_status_message(st));
        if (strcmp(js, vectors[i].json)) fail_msg("%s: got %s, expected %s", vectors[i].name, js, vectors[i].json);
        /* The same document as data_dictionary.json, unless Spark spelled
         * the value differently (see the table). */
        json_t *want = json_object_get(expect, vectors[i].name);
        bool spelled = strstr(vectors[i].name, "time") || strstr(vectors[i].name, "float");
        if (want && !spelled) {
            json_t *got = json_loads(js, JSON_DECODE_ANY, &je);
            if (!got) fail_msg("%s: floe's JSON does not parse: %s", vectors[i].name, je.text);
            if (!vt_json_like(got, want)) fail_msg("%s: %s differs from data_dictionary.json", vectors[i].name, js);
            json_decref(got);
            compared++;
        }
        floe_free(js);
        unload(&x);
    }
    assert_int_equal(compared, 22);
    /* Every expectation in the dictionary has a vector here. */
    const char *k;
    json_t *v;
    json_object_foreach(expect, k, v) {
        bool have = false;
        for (size_t i = 0; i < N_VECTORS; i++) have |= !strcmp(vectors[i].name, k);
        if (!have) fail_msg("no test for vector %s", k);
    }
    json_decref(expect);
    floe_free(dict);
}

/* Every prefix of every vector is an error, never a read past the end;
 * flipped bytes give a value or an error. */
static void truncated_and_flipped_vectors_fail_cleanly(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    for (size_t i = 0; i < N_VECTORS; i++) {
        vec x = load(dir, vectors[i].name);
        for (size_t n = 0; n < x.vn; n++) {
            uint8_t *cut = floe_malloc(n + 1); /* exactly n bytes for ASan */
            memcpy(cut, x.v, n);
            floe_status st = floe_variant_check(x.m, x.mn, cut, n);
            if (!st) fail_msg("%s: %zu of %zu value bytes accepted", vectors[i].name, n, x.vn);
            assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
            floe_status_free(st);
            floe_free(cut);
        }
        for (size_t n = 0; n < x.mn; n++) {
            uint8_t *cut = floe_malloc(n + 1);
            memcpy(cut, x.m, n);
            floe_status st = floe_variant_check(cut, n, x.v, x.vn);
            if (!st) fail_msg("%s: %zu of %zu metadata bytes accepted", vectors[i].name, n, x.mn);
            floe_status_free(st);
            floe_free(cut);
        }
        for (size_t k = 0; k < x.vn && k < 64; k++)
            for (int bit = 0; bit < 8; bit++) {
                x.v[k] ^= (uint8_t)(1 << bit);
                floe_status st;
                char *js = vt_json(x.m, x.mn, x.v, x.vn, &st);
                floe_free(js);
                floe_status_free(st);
                x.v[k] ^= (uint8_t)(1 << bit);
            }
        unload(&x);
    }
}

static void expect_corrupt(const uint8_t *m, size_t mn, const uint8_t *v, size_t vn, const char *needle) {
    floe_status st = floe_variant_check(m, mn, v, vn);
    if (!st) fail_msg("accepted, expected an error with '%s'", needle);
    if (!strstr(floe_status_message(st), needle))
        fail_msg("message '%s' lacks '%s'", floe_status_message(st), needle);
    floe_status_free(st);
}

static void corrupt_values_name_what_and_where(void **state) {
    (void)state;
    static const uint8_t empty_meta[] = {0x01, 0x00, 0x00};
    static const uint8_t meta_ab[] = {0x11, 0x02, 0x00, 0x01, 0x02, 'a', 'b'};
    /* primitive type id 21 */
    static const uint8_t unknown[] = {21 << 2};
    expect_corrupt(empty_meta, 3, unknown, 1, "unknown primitive type id 21");
    /* int64 with 3 of its 8 bytes */
    static const uint8_t short_int[] = {6 << 2, 1, 2, 3};
    expect_corrupt(empty_meta, 3, short_int, 4, "int64 needs 9 bytes, 4 left");
    /* decimal scale 39 */
    static const uint8_t bad_scale[] = {8 << 2, 39, 1, 0, 0, 0};
    expect_corrupt(empty_meta, 3, bad_scale, 6, "decimal scale 39 exceeds 38");
    /* trailing bytes after a value */
    static const uint8_t trailing[] = {0, 0};
    expect_corrupt(empty_meta, 3, trailing, 2, "1 bytes after a null");
    /* an object field id outside the dictionary: {id 5: null} */
    static const uint8_t bad_id[] = {0x02, 1, 5, 0, 1, 0};
    expect_corrupt(meta_ab, sizeof meta_ab, bad_id, sizeof bad_id, "id 5, outside the metadata's 2 names");
    /* fields out of name order: {b: null, a: null} */
    static const uint8_t unsorted[] = {0x02, 2, 1, 0, 0, 1, 2, 0, 0};
    expect_corrupt(meta_ab, sizeof meta_ab, unsorted, sizeof unsorted, "'a' comes after 'b'");
    static const uint8_t dup[] = {0x02, 2, 0, 0, 0, 1, 2, 0, 0};
    expect_corrupt(meta_ab, sizeof meta_ab, dup, sizeof dup, "'a' repeats 'a'");
    /* an array element starting past the values: [<offset 3>] of 1 byte */
    static const uint8_t past[] = {0x03, 1, 3, 1, 0};
    expect_corrupt(empty_meta, 3, past, sizeof past, "starts at offset 3, past its 1 value bytes");
    /* an element running past the values: [string of 9 bytes] with 2 value bytes */
    static const uint8_t run[] = {0x03, 1, 0, 2, 16 << 2, 9};
    expect_corrupt(empty_meta, 3, run, sizeof run, "variant value, byte 4");
    /* an array claiming 200 elements in 3 bytes */
    static const uint8_t many[] = {0x03, 200, 0};
    expect_corrupt(empty_meta, 3, many, sizeof many, "array of 200 elements");
    /* a string that is not UTF-8 */
    static const uint8_t latin1[] = {(2 << 2) | 1, 0xE9, 'x'};
    expect_corrupt(empty_meta, 3, latin1, sizeof latin1, "string is not UTF-8");
    /* metadata: version 2, a sorted flag over unsorted names, a bad offset */
    static const uint8_t v2[] = {0x02, 0x00, 0x00};
    floe_status st = floe_variant_check(v2, 3, trailing, 1);
    assert_int_equal(floe_status_code(st), FLOE_ERR_UNSUPPORTED);
    floe_status_free(st);
    static const uint8_t lies[] = {0x11, 0x02, 0x00, 0x01, 0x02, 'b', 'a'};
    expect_corrupt(lies, sizeof lies, trailing, 1, "flagged sorted, but name 1 ('a') does not follow 'b'");
    static const uint8_t back[] = {0x01, 0x02, 0x00, 0x02, 0x01, 'b', 'a'};
    expect_corrupt(back, sizeof back, trailing, 1, "dictionary offset 2 (1) is less than the one before (2)");
    static const uint8_t first[] = {0x01, 0x01, 0x01, 0x02, 'b', 'a'};
    expect_corrupt(first, sizeof first, trailing, 1, "first dictionary offset is 1");
    /* nesting deeper than the limit: [[[...null...]]] */
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(floe_variant_put_null(&b));
    for (int d = 0; d < 200; d++) {
        floe_buf o = FLOE_BUF_INIT;
        uint32_t end = (uint32_t)b.len;
        assert_ok(floe_variant_put_array(&o, &end, 1, b.data, b.len));
        floe_buf_free(&b);
        b = o;
    }
    expect_corrupt(empty_meta, 3, b.data, b.len, "nested deeper than 128 levels");
    floe_buf_free(&b);
}

/* Objects whose ids and offsets take 1, 2, 3 and 4 bytes, with more than
 * 255 fields (is_large), over sorted and unsorted dictionaries. */
static void wide_objects_round_trip(void **state) {
    (void)state;
    static const uint32_t counts[] = {3, 300, 70000};
    for (size_t c = 0; c < 3; c++) {
        for (int sorted = 0; sorted < 2; sorted++) {
            uint32_t n = counts[c];
            char *names = floe_malloc((size_t)n * 8);
            floe_strview *dict = floe_calloc(n, sizeof *dict);
            /* Names "k0000000".."": sorted order is numeric order; the
             * unsorted dictionary lists them backwards. */
            for (uint32_t i = 0; i < n; i++) {
                uint32_t k = sorted ? i : n - 1 - i;
                char nm[16];
                snprintf(nm, sizeof nm, "k%07u", k % 10000000u);
                memcpy(names + (size_t)i * 8, nm, 8);
                dict[i].data = names + (size_t)i * 8;
                dict[i].len = 8;
            }
            floe_buf meta = FLOE_BUF_INIT, vals = FLOE_BUF_INIT, obj = FLOE_BUF_INIT;
            assert_ok(floe_variant_put_metadata(&meta, dict, n, sorted));
            floe_variant_field_ref *f = floe_calloc(n, sizeof *f);
            for (uint32_t i = 0; i < n; i++) {
                f[i].id = i;
                f[i].name = dict[i].data;
                f[i].name_len = 8;
                f[i].off = (uint32_t)vals.len;
                uint32_t k = sorted ? i : n - 1 - i;
                /* A long string now and then, so offsets pass 2^16 and 2^24. */
                if (k % 1000 == 7) {
                    char big[300];
                    memset(big, 'x', sizeof big);
                    assert_ok(floe_variant_put_string(&vals, big, sizeof big));
                } else {
                    assert_ok(floe_variant_put_int(&vals, FLOE_VARIANT_INT32, (int64_t)k));
                }
                f[i].len = (uint32_t)(vals.len - f[i].off);
            }
            assert_ok(floe_variant_sort_fields(f, n));
            assert_ok(floe_variant_put_object(&obj, f, n, vals.data, vals.len));
            assert_ok(floe_variant_check(meta.data, meta.len, obj.data, obj.len));
            floe_variant_meta m;
            floe_variant v;
            assert_ok(floe_variant_meta_open(meta.data, meta.len, true, &m));
            assert_ok(floe_variant_open(obj.data, obj.len, true, &v));
            assert_int_equal(v.kind, FLOE_VARIANT_OBJECT);
            assert_int_equal(v.u.nest.n, n);
            assert_int_equal(v.u.nest.id_size, n > 65535 ? 3 : n > 255 ? 2 : 1);
            assert_int_equal(v.u.nest.off_size, vals.len > 0xFFFFFF ? 4 : vals.len > 0xFFFF ? 3 : vals.len > 0xFF ? 2 : 1);
            assert_int_equal(v.data[0] >> 6 & 1, n > 255); /* is_large */
            for (uint32_t k = 0; k < n; k += n / 50 + 1) {
                char name[16];
                snprintf(name, sizeof name, "k%07u", k);
                floe_variant x;
                bool found;
                assert_ok(floe_variant_find_field(&m, &v, name, 8, &x, &found));
                assert_true(found);
                if (k % 1000 == 7) assert_int_equal(x.kind, FLOE_VARIANT_STRING);
                else assert_int_equal(x.u.i, k);
                assert_int_equal(floe_variant_meta_find(&m, name, 8), sorted ? k : n - 1 - k);
            }
            floe_variant x;
            bool found;
            assert_ok(floe_variant_find_field(&m, &v, "k9999999", 8, &x, &found));
            assert_false(found);
            assert_int_equal(floe_variant_meta_find(&m, "nope", 4), -1);
            floe_buf_free(&meta);
            floe_buf_free(&vals);
            floe_buf_free(&obj);
            floe_free(f);
            floe_free(dict);
            floe_free(names);
        }
    }
    /* 4-byte offsets: one value of 17 MB in an array. */
    floe_buf big = FLOE_BUF_INIT, arr = FLOE_BUF_INIT;
    size_t len = 17u << 20;
    char *s = floe_malloc(len);
    memset(s, 'y', len);
    assert_ok(floe_variant_put_binary(&big, s, len));
    assert_ok(floe_variant_put_null(&big));
    uint32_t ends[2] = {(uint32_t)big.len - 1, (uint32_t)big.len};
    assert_ok(floe_variant_put_array(&arr, ends, 2, big.data, big.len));
    static const uint8_t empty_meta[] = {0x01, 0x00, 0x00};
    assert_ok(floe_variant_check(empty_meta, 3, arr.data, arr.len));
    floe_variant v, e;
    assert_ok(floe_variant_open(arr.data, arr.len, true, &v));
    assert_int_equal(v.u.nest.off_size, 4);
    assert_ok(floe_variant_element(&v, 1, &e));
    assert_int_equal(e.kind, FLOE_VARIANT_NULL);
    floe_free(s);
    floe_buf_free(&big);
    floe_buf_free(&arr);
}

/* Every primitive the encoder writes decodes to itself and prints per the
 * JSON rules (decimals exact, NaN quoted, escapes, pre-epoch instants). */
static void primitives_encode_and_print(void **state) {
    (void)state;
    static const uint8_t meta[] = {0x01, 0x00, 0x00};
    floe_decimal128 minus5 = floe_decimal128_from_int64(-5), big = {0, 1}; /* 2^64 */
    uint8_t u[16] = {0xf2, 0x4f, 0x9b, 0x64, 0x81, 0xfa, 0x49, 0xd1, 0xb7, 0x4e, 0x8c, 0x09, 0xa6, 0xe3, 0x1c, 0x56};
    struct {
        int kind;
        int64_t i;
        double d;
        const char *json;
    } cases[] = {
        {FLOE_VARIANT_INT8, -128, 0, "-128"},
        {FLOE_VARIANT_INT16, 32767, 0, "32767"},
        {FLOE_VARIANT_INT64, INT64_MIN, 0, "-9223372036854775808"},
        {FLOE_VARIANT_DATE, -1, 0, "\"1969-12-31\""},
        {FLOE_VARIANT_TIME, 86399999999LL, 0, "\"23:59:59.999999\""},
        {FLOE_VARIANT_TIMESTAMP_TZ, -1, 0, "\"1969-12-31T23:59:59.999999+00:00\""},
        {FLOE_VARIANT_TIMESTAMP_NTZ_NS, 1, 0, "\"1970-01-01T00:00:00.000000001\""},
        {FLOE_VARIANT_DOUBLE, 0, 1.5e20, "1.5e+20"},
        {FLOE_VARIANT_DOUBLE, 0, -0.0, "-0.0"},
        {FLOE_VARIANT_DOUBLE, 0, NAN, "\"NaN\""},
        {FLOE_VARIANT_DOUBLE, 0, -INFINITY, "\"-Infinity\""},
        {FLOE_VARIANT_FLOAT, 0, 0.1, "0.1"},
        {100, 0, 0, "-0.05"},
        {101, 0, 0, "18446744073709551616"},
        {102, 0, 0, "\"a\\\"b\\\\c\\n\\u0001\""},
        {103, 0, 0, "\"AAEC/w==\""},
        {104, 0, 0, "\"f24f9b64-81fa-49d1-b74e-8c09a6e31c56\""},
        {105, 0, 0, "true"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        floe_buf b = FLOE_BUF_INIT, j = FLOE_BUF_INIT;
        switch (cases[k].kind) {
        case FLOE_VARIANT_DOUBLE: assert_ok(floe_variant_put_double(&b, cases[k].d)); break;
        case FLOE_VARIANT_FLOAT: assert_ok(floe_variant_put_float(&b, (float)cases[k].d)); break;
        case 100: assert_ok(floe_variant_put_decimal(&b, FLOE_VARIANT_DECIMAL4, minus5, 2)); break;
        case 101: assert_ok(floe_variant_put_decimal(&b, FLOE_VARIANT_DECIMAL16, big, 0)); break;
        case 102: assert_ok(floe_variant_put_string(&b, "a\"b\\c\n\x01", 7)); break;
        case 103: assert_ok(floe_variant_put_binary(&b, "\x00\x01\x02\xff", 4)); break;
        case 104: assert_ok(floe_variant_put_uuid(&b, u)); break;
        case 105: assert_ok(floe_variant_put_bool(&b, true)); break;
        default: assert_ok(floe_variant_put_int(&b, (floe_variant_kind)cases[k].kind, cases[k].i)); break;
        }
        assert_ok(floe_variant_check(meta, 3, b.data, b.len));
        assert_ok(floe_variant_bytes_to_json(meta, 3, b.data, b.len, &j));
        assert_string_equal(floe_buf_cstr(&j), cases[k].json);
        floe_buf_free(&b);
        floe_buf_free(&j);
    }
    floe_buf b = FLOE_BUF_INIT;
    assert_error(floe_variant_put_int(&b, FLOE_VARIANT_INT8, 128), FLOE_ERR_INVALID_ARGUMENT, "does not fit");
    assert_error(floe_variant_put_decimal(&b, FLOE_VARIANT_DECIMAL4, big, 0), FLOE_ERR_INVALID_ARGUMENT,
                 "does not fit");
    /* A 64-byte string is a long string, 63 bytes a short one. */
    char s64[64];
    memset(s64, 'z', 64);
    assert_ok(floe_variant_put_string(&b, s64, 63));
    assert_int_equal(b.data[0], (63 << 2) | 1);
    floe_buf_clear(&b);
    assert_ok(floe_variant_put_string(&b, s64, 64));
    assert_int_equal(b.data[0], 16 << 2);
    floe_buf_free(&b);
}

static void paths_parse_and_find(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    static const struct {
        const char *vec, *path, *json; /* json NULL: not found */
    } cases[] = {
        {"object_nested", "$", NULL},
        {"object_nested", "$.observation.value.humidity", "456"},
        {"object_nested", "$['species'][\"name\"]", "\"lava monster\""},
        {"object_nested", "$.species.color", NULL},
        {"object_nested", "$.id.x", NULL},
        {"object_nested", "$[0]", NULL},
        {"array_nested", "$[0].thing.names[1]", "\"Spider\""},
        {"array_nested", "$[1]", "null"},
        {"array_nested", "$[2].names[2]", "null"},
        {"array_nested", "$[3]", NULL},
        {"array_nested", "$[4294967295]", NULL},
        {"array_nested", "$.id", NULL},
        {"object_primitive", "$['null_field']", "null"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        vec x = load(dir, cases[k].vec);
        floe_variant_meta m;
        floe_variant v, out;
        floe_variant_path p;
        bool found;
        assert_ok(floe_variant_meta_open(x.m, x.mn, true, &m));
        assert_ok(floe_variant_open(x.v, x.vn, true, &v));
        assert_ok(floe_variant_path_parse(cases[k].path, strlen(cases[k].path), &p));
        assert_ok(floe_variant_path_get(&m, &v, &p, &out, &found));
        if (!strcmp(cases[k].path, "$")) {
            assert_true(found);
            assert_int_equal(out.size, x.vn);
        } else if (!cases[k].json) {
            if (found) fail_msg("%s %s: found", cases[k].vec, cases[k].path);
        } else {
            if (!found) fail_msg("%s %s: not found", cases[k].vec, cases[k].path);
            floe_buf j = FLOE_BUF_INIT;
            assert_ok(floe_variant_to_json(&m, &out, &j));
            assert_string_equal(floe_buf_cstr(&j), cases[k].json);
            floe_buf_free(&j);
        }
        floe_variant_path_free(&p);
        unload(&x);
    }
    static const struct {
        const char *path, *why;
    } bad[] = {
        {"", "character 1: a path starts with '$'"},
        {"a.b", "a path starts with '$'"},
        {"$.", "character 2: a name must follow '.'"},
        {"$..a", "a name must follow '.'"},
        {"$[", "takes a non-negative index"},
        {"$[-1]", "takes a non-negative index"},
        {"$[1", "takes a non-negative index"},
        {"$[99999999999]", "takes a non-negative index"},
        {"$['a'", "must end with a quote and ']'"},
        {"$[\"a']", "must end with a quote and ']'"},
        {"$a", "character 2: expected '.', '[' or the end"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        floe_variant_path p;
        assert_error(floe_variant_path_parse(bad[k].path, strlen(bad[k].path), &p), FLOE_ERR_INVALID_ARGUMENT,
                     bad[k].why);
    }
    floe_variant_path p;
    assert_ok(floe_variant_path_parse("$['a.b[0]'].c[7]", 16, &p));
    assert_int_equal(p.n, 3);
    assert_int_equal(p.segs[0].len, 6);
    assert_memory_equal(p.segs[0].name, "a.b[0]", 6);
    assert_true(p.segs[2].is_index);
    assert_int_equal(p.segs[2].index, 7);
    floe_variant_path_free(&p);
}

static void equality_is_exact(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    for (size_t i = 0; i < N_VECTORS; i++)
        for (size_t j = 0; j < N_VECTORS; j++) {
            vec a = load(dir, vectors[i].name), b = load(dir, vectors[j].name);
            floe_variant_meta ma, mb;
            floe_variant va, vb;
            bool eq;
            assert_ok(floe_variant_meta_open(a.m, a.mn, true, &ma));
            assert_ok(floe_variant_meta_open(b.m, b.mn, true, &mb));
            assert_ok(floe_variant_open(a.v, a.vn, true, &va));
            assert_ok(floe_variant_open(b.v, b.vn, true, &vb));
            assert_ok(floe_variant_equal(&ma, &va, &mb, &vb, &eq));
            /* boolean true/false are different kinds; nothing else repeats */
            if (eq != (i == j)) fail_msg("%s vs %s: equal = %d", vectors[i].name, vectors[j].name, eq);
            unload(&a);
            unload(&b);
        }
}

/* A VARIANT array: built, printed as JSON (alone and inside a struct),
 * sliced, taken, validated, and exported/imported through Arrow as
 * arrow.parquet.variant. */
static void variant_arrays(void **state) {
    (void)state;
    floe_type *vt = floe_type_primitive(FLOE_TYPE_VARIANT);
    assert_non_null(vt);
    assert_int_equal(vt->n_children, 2);
    assert_string_equal(vt->children[0].name, "metadata");
    assert_true(floe_type_is_nested(vt));
    floe_buf tn = FLOE_BUF_INIT;
    assert_ok(floe_type_to_string(vt, &tn));
    assert_string_equal(floe_buf_cstr(&tn), "variant");
    floe_buf_free(&tn);
    static const uint8_t meta[] = {0x11, 0x01, 0x00, 0x01, 'a'};
    floe_buf v1 = FLOE_BUF_INIT, v2 = FLOE_BUF_INIT, val = FLOE_BUF_INIT;
    assert_ok(floe_variant_put_string(&val, "it's", 4));
    floe_variant_field_ref f = {0, "a", 1, 0, (uint32_t)val.len};
    assert_ok(floe_variant_put_object(&v1, &f, 1, val.data, val.len));
    assert_ok(floe_variant_put_null(&v2));
    floe_builder *b;
    assert_ok(floe_builder_new(vt, 4, &b));
    assert_ok(floe_builder_append_variant(b, meta, sizeof meta, v1.data, v1.len));
    assert_ok(floe_builder_append_null(b));
    assert_ok(floe_builder_append_variant(b, meta, sizeof meta, v2.data, v2.len));
    floe_array *a;
    assert_ok(floe_builder_finish(b, &a));
    floe_builder_free(b);
    assert_ok(floe_array_validate(a));
    floe_buf out = FLOE_BUF_INIT;
    assert_ok(floe_format_value(a, 0, &out));
    assert_string_equal(floe_buf_cstr(&out), "{\"a\":\"it's\"}");
    floe_buf_clear(&out);
    assert_ok(floe_format_value(a, 2, &out));
    assert_string_equal(floe_buf_cstr(&out), "null"); /* a variant null, not SQL NULL */
    assert_true(floe_array_is_null(a, 1));
    floe_buf_clear(&out);
    /* take and slice keep the bytes */
    uint32_t idx[3] = {2, 0, 1};
    floe_array *t, *s;
    assert_ok(floe_array_take(a, idx, 3, &t));
    assert_ok(floe_array_slice(t, 1, 2, &s));
    assert_ok(floe_format_value(s, 0, &out));
    assert_string_equal(floe_buf_cstr(&out), "{\"a\":\"it's\"}");
    assert_true(floe_array_is_null(s, 1));
    floe_buf_clear(&out);
    /* inside a struct */
    floe_field fld;
    assert_ok(floe_field_init(&fld, "v", vt, true, -1));
    floe_type *st;
    assert_ok(floe_type_struct(&fld, 1, &st));
    floe_array *sa;
    assert_ok(floe_array_new(st, 3, 0, 0, NULL, NULL, 0, &a, 1, &sa));
    assert_ok(floe_format_value(sa, 0, &out));
    assert_string_equal(floe_buf_cstr(&out), "{v: {\"a\":\"it's\"}}");
    floe_buf_clear(&out);
    /* Arrow C Data Interface */
    struct ArrowSchema as;
    struct ArrowArray aa;
    assert_ok(floe_arrow_export_field(&fld, &as));
    assert_string_equal(as.format, "+s");
    assert_int_equal(as.n_children, 2);
    assert_ok(floe_arrow_export_array(a, &aa));
    floe_field back;
    assert_ok(floe_arrow_import_field(&as, &back));
    assert_int_equal(back.type->id, FLOE_TYPE_VARIANT);
    floe_array *ia;
    assert_ok(floe_arrow_import_array(&aa, back.type, &ia));
    assert_true(floe_array_equals(a, ia));
    floe_field_clear(&back);
    /* a variant with a null value child where it is valid is refused */
    floe_array *kids[2] = {a->children[0], NULL};
    floe_builder *nb;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_BINARY), 3, &nb));
    assert_ok(floe_builder_append_binary(nb, "\x00", 1));
    assert_ok(floe_builder_append_null(nb));
    assert_ok(floe_builder_append_null(nb));
    assert_ok(floe_builder_finish(nb, &kids[1]));
    floe_builder_free(nb);
    floe_array *broken;
    assert_ok(floe_array_new(vt, 3, 0, FLOE_NULL_COUNT_UNKNOWN, a->validity, NULL, 0, kids, 2, &broken));
    assert_error(floe_array_validate(broken), FLOE_ERR_CORRUPT, "variant at slot 2 has a null value");
    floe_array_release(broken);
    floe_array_release(kids[1]);
    floe_array_release(ia);
    floe_array_release(sa);
    floe_type_release(st);
    floe_field_clear(&fld);
    floe_array_release(s);
    floe_array_release(t);
    floe_array_release(a);
    floe_buf_free(&out);
    floe_buf_free(&v1);
    floe_buf_free(&v2);
    floe_buf_free(&val);
}

FLOE_TEST_MAIN(cmocka_unit_test(every_vector_prints_its_json),
               cmocka_unit_test(truncated_and_flipped_vectors_fail_cleanly),
               cmocka_unit_test(corrupt_values_name_what_and_where), cmocka_unit_test(wide_objects_round_trip),
               cmocka_unit_test(primitives_encode_and_print), cmocka_unit_test(paths_parse_and_find),
               cmocka_unit_test(equality_is_exact), cmocka_unit_test(variant_arrays))
