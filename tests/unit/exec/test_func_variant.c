/* The variant functions: variant_get / try_variant_get over constant and per-row paths with every target type (text inside variants through CAST from text, decimals rounded, floats truncated, timestamps across units), variant_extract(_text) by field and by (negative) index, variant_typeof, is_variant_null; variant results share the input's metadata column; strict casts fail naming the value. */
#include "base/buffer.h"
#include "fn_util.h"
#include "floe/variant.h"

/* Dictionary: a b d n s t u w (sorted). */
static const char *const NAMES[] = {"a", "b", "d", "n", "s", "t", "u", "w"};
#define NN 8

typedef struct fld {
    const char *name;
    floe_buf v;
} fld;

static uint32_t id_of(const char *n) {
    for (uint32_t i = 0; i < NN; i++)
        if (!strcmp(NAMES[i], n)) return i;
    fail_msg("no name %s", n);
    return 0;
}

/* An object from n fields whose values are encoded in f[i].v. */
static void put_obj(floe_buf *out, fld *f, uint32_t n) {
    floe_buf vals = FLOE_BUF_INIT;
    floe_variant_field_ref r[NN];
    for (uint32_t i = 0; i < n; i++) {
        r[i].id = id_of(f[i].name);
        r[i].name = f[i].name;
        r[i].name_len = (uint32_t)strlen(f[i].name);
        r[i].off = (uint32_t)vals.len;
        r[i].len = (uint32_t)f[i].v.len;
        assert_ok(floe_buf_append(&vals, f[i].v.data, f[i].v.len));
        floe_buf_free(&f[i].v);
    }
    assert_ok(floe_variant_sort_fields(r, n));
    assert_ok(floe_variant_put_object(out, r, n, vals.data, vals.len));
    floe_buf_free(&vals);
}

/* Rows:
 *   0 {"a":1.5,"b":[10,"x",null],"d":"2024-02-29","n":"12.345","s":"TRUE","t":"12:00:00",
 *      "u":"f24f9b64-81fa-49d1-b74e-8c09a6e31c56","w":"2024-02-29T10:00:00.000000001"(ntz ns)}
 *   1 variant null
 *   2 SQL NULL
 *   3 {"a":2.5 (decimal),"b":[],"d":1 (date),"w":-1 µs (timestamptz)}
 *   4 42 (int8)
 * Column 1 holds per-row paths. */
static floe_batch *variants(void) {
    floe_strview dict[NN];
    for (int i = 0; i < NN; i++) dict[i] = (floe_strview){NAMES[i], 1};
    floe_buf meta = FLOE_BUF_INIT;
    assert_ok(floe_variant_put_metadata(&meta, dict, NN, true));
    floe_buf rows[5];
    for (int i = 0; i < 5; i++) floe_buf_init(&rows[i]);
    {
        fld f[8];
        memset(f, 0, sizeof f);
        f[0].name = "a";
        assert_ok(floe_variant_put_double(&f[0].v, 1.5));
        f[1].name = "b";
        floe_buf el = FLOE_BUF_INIT;
        uint32_t ends[3];
        assert_ok(floe_variant_put_int(&el, FLOE_VARIANT_INT8, 10));
        ends[0] = (uint32_t)el.len;
        assert_ok(floe_variant_put_string(&el, "x", 1));
        ends[1] = (uint32_t)el.len;
        assert_ok(floe_variant_put_null(&el));
        ends[2] = (uint32_t)el.len;
        assert_ok(floe_variant_put_array(&f[1].v, ends, 3, el.data, el.len));
        floe_buf_free(&el);
        f[2].name = "d";
        assert_ok(floe_variant_put_string(&f[2].v, "2024-02-29", 10));
        f[3].name = "n";
        assert_ok(floe_variant_put_string(&f[3].v, "12.345", 6));
        f[4].name = "s";
        assert_ok(floe_variant_put_string(&f[4].v, "TRUE", 4));
        f[5].name = "t";
        assert_ok(floe_variant_put_string(&f[5].v, "12:00:00", 8));
        f[6].name = "u";
        assert_ok(floe_variant_put_string(&f[6].v, "f24f9b64-81fa-49d1-b74e-8c09a6e31c56", 36));
        f[7].name = "w";
        assert_ok(floe_variant_put_int(&f[7].v, FLOE_VARIANT_TIMESTAMP_NTZ_NS, INT64_C(1709200800000000001)));
        put_obj(&rows[0], f, 8);
    }
    assert_ok(floe_variant_put_null(&rows[1]));
    {
        fld f[4];
        memset(f, 0, sizeof f);
        f[0].name = "w";
        assert_ok(floe_variant_put_int(&f[0].v, FLOE_VARIANT_TIMESTAMP_TZ, -1));
        f[1].name = "a";
        assert_ok(floe_variant_put_decimal(&f[1].v, FLOE_VARIANT_DECIMAL8, floe_decimal128_from_int64(25), 1));
        f[2].name = "b";
        assert_ok(floe_variant_put_array(&f[2].v, NULL, 0, NULL, 0));
        f[3].name = "d";
        assert_ok(floe_variant_put_int(&f[3].v, FLOE_VARIANT_DATE, 1));
        put_obj(&rows[3], f, 4);
    }
    assert_ok(floe_variant_put_int(&rows[4], FLOE_VARIANT_INT8, 42));
    floe_builder *vb, *pb;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_VARIANT), 5, &vb));
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 5, &pb));
    static const char *const paths[5] = {"$.b[1]", "$", "$.a", "$['d']", "$[0]"};
    for (int i = 0; i < 5; i++) {
        if (i == 2) assert_ok(floe_builder_append_null(vb));
        else assert_ok(floe_builder_append_variant(vb, meta.data, meta.len, rows[i].data, rows[i].len));
        assert_ok(floe_builder_append_string(pb, paths[i]));
        floe_buf_free(&rows[i]);
    }
    floe_array *cols[2];
    assert_ok(floe_builder_finish(vb, &cols[0]));
    assert_ok(floe_builder_finish(pb, &cols[1]));
    floe_builder_free(vb);
    floe_builder_free(pb);
    floe_field f[2];
    assert_ok(floe_field_init(&f[0], "v", floe_type_primitive(FLOE_TYPE_VARIANT), true, -1));
    assert_ok(floe_field_init(&f[1], "p", floe_type_primitive(FLOE_TYPE_STRING), true, -1));
    floe_schema *s;
    floe_batch *b;
    assert_ok(floe_type_struct(f, 2, &s));
    assert_ok(floe_batch_new(s, cols, 2, 5, &b));
    floe_type_release(s);
    for (int i = 0; i < 2; i++) {
        floe_field_clear(&f[i]);
        floe_array_release(cols[i]);
    }
    floe_buf_free(&meta);
    return b;
}

#define GET(path, type) call("variant_get", 3, COL(0), S(path), S(type))
#define TRY(path, type) call("try_variant_get", 3, COL(0), S(path), S(type))

static void targets(void **state) {
    (void)state;
    floe_batch *b = variants();
    char t[64];
    assert_string_equal(render(GET("$.a", "bigint"), b, t), "1|NULL|NULL|3|NULL");
    assert_string_equal(t, "int64");
    assert_string_equal(render(GET("$.a", "decimal(5,2)"), b, t), "1.50|NULL|NULL|2.50|NULL");
    assert_string_equal(t, "decimal(5, 2)");
    assert_string_equal(render(GET("$.a", "real"), b, NULL), "1.5|NULL|NULL|2.5|NULL");
    assert_string_equal(render(GET("$.a", "text"), b, NULL), "1.5|NULL|NULL|2.5|NULL");
    assert_string_equal(render(TRY("$", "int"), b, NULL), "NULL|NULL|NULL|NULL|42");
    /* text inside a variant through CAST from text */
    assert_string_equal(render(GET("$.d", "date"), b, NULL), "2024-02-29|NULL|NULL|1970-01-02|NULL");
    assert_string_equal(render(GET("$.n", "decimal(4,1)"), b, NULL), "12.3|NULL|NULL|NULL|NULL");
    assert_string_equal(render(GET("$.n", "double"), b, NULL), "12.345|NULL|NULL|NULL|NULL");
    assert_string_equal(render(GET("$.s", "boolean"), b, NULL), "true|NULL|NULL|NULL|NULL");
    assert_string_equal(render(GET("$.t", "time"), b, NULL), "12:00:00|NULL|NULL|NULL|NULL");
    assert_string_equal(render(GET("$.u", "uuid"), b, NULL),
                        "f24f9b64-81fa-49d1-b74e-8c09a6e31c56|NULL|NULL|NULL|NULL");
    assert_string_equal(render(GET("$.d", "timestamp"), b, NULL),
                        "2024-02-29 00:00:00|NULL|NULL|1970-01-02 00:00:00|NULL");
    /* timestamps across units and zones (floor to µs, same instant number) */
    assert_string_equal(render(GET("$.w", "timestamptz"), b, NULL),
                        "2024-02-29 10:00:00+00|NULL|NULL|1969-12-31 23:59:59.999999+00|NULL");
    assert_string_equal(render(GET("$.w", "timestamp_ns"), b, NULL),
                        "2024-02-29 10:00:00.000000001|NULL|NULL|1969-12-31 23:59:59.999999|NULL");
    assert_string_equal(render(GET("$.w", "date"), b, NULL), "2024-02-29|NULL|NULL|1969-12-31|NULL");
    assert_string_equal(render(GET("$.w", "text"), b, NULL),
                        "2024-02-29T10:00:00.000000001|NULL|NULL|1969-12-31T23:59:59.999999+00:00|NULL");
    /* what does not fit: NULL for try_, an error naming it otherwise */
    assert_string_equal(render(TRY("$.d", "int"), b, NULL), "NULL|NULL|NULL|NULL|NULL");
    assert_string_equal(render(TRY("$.s", "date"), b, NULL), "NULL|NULL|NULL|NULL|NULL");
    assert_string_equal(render(TRY("$.b", "bigint"), b, NULL), "NULL|NULL|NULL|NULL|NULL");
    assert_string_equal(render(TRY("$.a", "decimal(2,1)"), b, NULL), "1.5|NULL|NULL|2.5|NULL");
    assert_string_equal(render(TRY("$.a", "decimal(1,1)"), b, NULL), "NULL|NULL|NULL|NULL|NULL");
    floe_expr *e = GET("$.s", "date");
    floe_array *a = NULL;
    assert_error(floe_expr_eval(e, b, &a), FLOE_ERR_INVALID_ARGUMENT,
                 "variant_get: the variant value \"TRUE\" (string) at '$.s' cannot be cast to date");
    floe_expr_release(e);
    floe_batch_release(b);
}

static void paths_fields_and_indexes(void **state) {
    (void)state;
    floe_batch *b = variants();
    /* a variant result; per-row paths */
    assert_string_equal(render(call("variant_get", 2, COL(0), S("$.b")), b, NULL),
                        "[10,\"x\",null]|NULL|NULL|[]|NULL");
    assert_string_equal(render(call("variant_get", 2, COL(0), COL(1)), b, NULL), "\"x\"|null|NULL|\"1970-01-02\"|NULL");
    assert_string_equal(render(call("try_variant_get", 3, COL(0), COL(1), S("text")), b, NULL),
                        "x|NULL|NULL|1970-01-02|NULL");
    /* -> and ->> */
    floe_expr *bb = call("variant_extract", 2, COL(0), S("b"));
    assert_string_equal(render(call("variant_extract", 2, floe_expr_retain(bb), I(-2)), b, NULL),
                        "\"x\"|NULL|NULL|NULL|NULL");
    assert_string_equal(render(call("variant_extract", 2, floe_expr_retain(bb), I32(2)), b, NULL),
                        "null|NULL|NULL|NULL|NULL");
    assert_string_equal(render(call("variant_extract_text", 2, floe_expr_retain(bb), I(2)), b, NULL),
                        "NULL|NULL|NULL|NULL|NULL");
    assert_string_equal(render(call("variant_extract_text", 2, floe_expr_retain(bb), I(0)), b, NULL),
                        "10|NULL|NULL|NULL|NULL");
    assert_string_equal(render(call("variant_extract", 2, floe_expr_retain(bb), I(3)), b, NULL),
                        "NULL|NULL|NULL|NULL|NULL");
    assert_string_equal(render(call("variant_extract", 2, floe_expr_retain(bb), I(-4)), b, NULL),
                        "NULL|NULL|NULL|NULL|NULL");
    floe_expr_release(bb);
    assert_string_equal(render(call("variant_extract_text", 2, COL(0), S("d")), b, NULL),
                        "2024-02-29|NULL|NULL|1970-01-02|NULL");
    assert_string_equal(render(call("variant_extract", 2, COL(0), NULLOF(FLOE_TYPE_STRING)), b, NULL),
                        "NULL|NULL|NULL|NULL|NULL");
    assert_string_equal(render(call("variant_typeof", 1, COL(0)), b, NULL), "object|null|NULL|object|int8");
    assert_string_equal(render(call("is_variant_null", 1, COL(0)), b, NULL), "false|true|false|false|false");
    /* a variant result keeps the input's metadata column */
    floe_expr *e = call("variant_get", 2, COL(0), S("$.b"));
    floe_array *a = NULL;
    assert_ok(floe_expr_eval(e, b, &a));
    assert_ptr_equal(a->children[0]->buffers[1], b->columns[0]->children[0]->buffers[1]);
    floe_array_release(a);
    floe_expr_release(e);
    /* a bad per-row path is an error naming it */
    floe_array *p = NULL;
    floe_builder *pb;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 5, &pb));
    for (int i = 0; i < 5; i++) assert_ok(floe_builder_append_string(pb, i == 3 ? "$.[" : "$"));
    assert_ok(floe_builder_finish(pb, &p));
    floe_builder_free(pb);
    floe_batch *b2;
    floe_array *cols[2] = {b->columns[0], p};
    assert_ok(floe_batch_new(b->schema, cols, 2, 5, &b2));
    e = call("variant_get", 2, COL(0), COL(1));
    assert_error(floe_expr_eval(e, b2, &a), FLOE_ERR_INVALID_ARGUMENT, "invalid variant path '$.['");
    floe_expr_release(e);
    floe_batch_release(b2);
    floe_array_release(p);
    floe_batch_release(b);
}

static void types_are_checked(void **state) {
    (void)state;
    EXPECT_ERR(FLOE_ERR_TYPE, "function variant_get(int64, string) does not exist", call("variant_get", 2, I(1), S("$")));
    EXPECT_ERR(FLOE_ERR_TYPE, "unknown type 'map<string, int>' for a variant",
               call("variant_get", 3, NULLOF(FLOE_TYPE_NULL), S("$"), S("map<string, int>")));
    EXPECT_ERR(FLOE_ERR_INVALID_ARGUMENT, "a path starts with '$'",
               call("variant_get", 3, NULLOF(FLOE_TYPE_NULL), S("a"), S("int")));
    EXPECT("NULL", call("variant_get", 3, NULLOF(FLOE_TYPE_NULL), S("$"), S("Decimal( 10 , 2 )")));
    EXPECT("NULL", call("variant_get", 3, NULLOF(FLOE_TYPE_NULL), S("$"), S("timestamp with time zone")));
    EXPECT("NULL", call("variant_extract_text", 2, NULLOF(FLOE_TYPE_NULL), I(0)));
    EXPECT("false", call("is_variant_null", 1, NULLOF(FLOE_TYPE_NULL)));
    EXPECT_ERR(FLOE_ERR_TYPE, "function variant_typeof(string) does not exist", call("variant_typeof", 1, S("x")));
}

FLOE_TEST_MAIN(cmocka_unit_test(targets), cmocka_unit_test(paths_fields_and_indexes),
               cmocka_unit_test(types_are_checked))
