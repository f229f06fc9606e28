/* Builders produce Arrow-layout arrays for every scalar type, per value and in bulk. */
#include "columnar_util.h"

static void int32_values_and_nulls_round_trip(void **state) {
    (void)state;
    int32_t v[] = {1, -2, 3, 0, 5};
    int valid[] = {1, 1, 0, 1, 1};
    floe_array *a = make_int32(v, valid, 5);
    assert_int_equal(a->length, 5);
    assert_int_equal(floe_array_null_count(a), 1);
    assert_true(floe_array_is_null(a, 2));
    assert_false(floe_array_is_null(a, 1));
    assert_int_equal(floe_array_get_int32(a, 1), -2);
    assert_int_equal(floe_array_get_int32(a, 4), 5);
    /* Validity is LSB-first: slot 2 null => bits 0b11011. */
    assert_int_equal(a->validity->data[0] & 0x1f, 0x1b);
    assert_ok(floe_array_validate(a));
    floe_array_release(a);
}

static void all_valid_array_has_no_validity_bitmap(void **state) {
    (void)state;
    int32_t v[] = {7, 8, 9};
    floe_array *a = make_int32(v, NULL, 3);
    assert_null(a->validity);
    assert_int_equal(floe_array_null_count(a), 0);
    floe_array_release(a);
}

static void buffers_are_64_byte_aligned_and_padded(void **state) {
    (void)state;
    int32_t v[] = {1, 2, 3};
    floe_array *a = make_int32(v, NULL, 3);
    assert_int_equal((uintptr_t)a->buffers[0]->data % 64, 0);
    assert_int_equal(a->buffers[0]->capacity % 64, 0);
    assert_int_equal(a->buffers[0]->size, 12);
    for (int64_t i = 12; i < a->buffers[0]->capacity; i++) assert_int_equal(a->buffers[0]->data[i], 0);
    floe_array_release(a);
}

static void every_scalar_type_appends_and_formats(void **state) {
    (void)state;
    floe_type *dec, *fixed;
    assert_ok(floe_type_decimal(10, 2, &dec));
    assert_ok(floe_type_fixed_binary(3, &fixed));
    struct {
        floe_type *t;
        const char *want;
    } cases[] = {
        {floe_type_primitive(FLOE_TYPE_BOOL), "true|false|NULL"},
        {floe_type_primitive(FLOE_TYPE_INT32), "42|-1|NULL"},
        {floe_type_primitive(FLOE_TYPE_INT64), "9000000000|-1|NULL"},
        {floe_type_primitive(FLOE_TYPE_FLOAT32), "1.5|-1.0|NULL"},
        {floe_type_primitive(FLOE_TYPE_FLOAT64), "0.1|-1.0|NULL"},
        {dec, "123.45|-0.01|NULL"},
        {floe_type_primitive(FLOE_TYPE_DATE32), "2024-02-29|1969-12-31|NULL"},
        {floe_type_primitive(FLOE_TYPE_TIME64_US), "13:45:01.000002|23:59:59.999999|NULL"},
        {floe_type_primitive(FLOE_TYPE_TIMESTAMP_US), "2001-09-09 01:46:40|1969-12-31 23:59:59.999999|NULL"},
        {floe_type_primitive(FLOE_TYPE_TIMESTAMP_US_TZ), "2001-09-09 01:46:40+00|1969-12-31 23:59:59.999999+00|NULL"},
        {floe_type_primitive(FLOE_TYPE_TIMESTAMP_NS), "1970-01-01 00:00:01|1969-12-31 23:59:59.999999999|NULL"},
        {floe_type_primitive(FLOE_TYPE_STRING), "héllo||NULL"},
        {floe_type_primitive(FLOE_TYPE_BINARY), "\\x00ff|\\x|NULL"},
        {fixed, "\\x616263|\\x000102|NULL"},
        {floe_type_primitive(FLOE_TYPE_UUID),
         "00112233-4455-6677-8899-aabbccddeeff|ffffffff-ffff-ffff-ffff-ffffffffffff|NULL"},
    };
    static const uint8_t uuid1[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                      0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
    uint8_t uuid2[16];
    memset(uuid2, 0xff, 16);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        floe_builder *b;
        floe_array *a;
        assert_ok(floe_builder_new(cases[c].t, 0, &b));
        switch (cases[c].t->id) {
        case FLOE_TYPE_BOOL:
            assert_ok(floe_builder_append_bool(b, true));
            assert_ok(floe_builder_append_bool(b, false));
            break;
        case FLOE_TYPE_INT32:
            assert_ok(floe_builder_append_int32(b, 42));
            assert_ok(floe_builder_append_int32(b, -1));
            break;
        case FLOE_TYPE_INT64:
            assert_ok(floe_builder_append_int64(b, 9000000000LL));
            assert_ok(floe_builder_append_int64(b, -1));
            break;
        case FLOE_TYPE_FLOAT32:
            assert_ok(floe_builder_append_float(b, 1.5f));
            assert_ok(floe_builder_append_float(b, -1.0f));
            break;
        case FLOE_TYPE_FLOAT64:
            assert_ok(floe_builder_append_double(b, 0.1));
            assert_ok(floe_builder_append_double(b, -1.0));
            break;
        case FLOE_TYPE_DECIMAL128:
            assert_ok(floe_builder_append_decimal(b, floe_decimal128_from_int64(12345)));
            assert_ok(floe_builder_append_decimal(b, floe_decimal128_from_int64(-1)));
            break;
        case FLOE_TYPE_DATE32:
            assert_ok(floe_builder_append_int32(b, 19782));
            assert_ok(floe_builder_append_int32(b, -1));
            break;
        case FLOE_TYPE_TIME64_US:
            assert_ok(floe_builder_append_int64(b, (13 * 3600 + 45 * 60 + 1) * 1000000LL + 2));
            assert_ok(floe_builder_append_int64(b, 86400LL * 1000000 - 1));
            break;
        case FLOE_TYPE_TIMESTAMP_US:
        case FLOE_TYPE_TIMESTAMP_US_TZ:
            assert_ok(floe_builder_append_int64(b, 1000000000LL * 1000000));
            assert_ok(floe_builder_append_int64(b, -1));
            break;
        case FLOE_TYPE_TIMESTAMP_NS:
            assert_ok(floe_builder_append_int64(b, 1000000000LL));
            assert_ok(floe_builder_append_int64(b, -1));
            break;
        case FLOE_TYPE_STRING:
            assert_ok(floe_builder_append_string(b, "héllo"));
            assert_ok(floe_builder_append_binary(b, "", 0));
            break;
        case FLOE_TYPE_BINARY:
            assert_ok(floe_builder_append_binary(b, "\x00\xff", 2));
            assert_ok(floe_builder_append_binary(b, "", 0));
            break;
        case FLOE_TYPE_FIXED_BINARY:
            assert_ok(floe_builder_append_fixed(b, "abc"));
            assert_ok(floe_builder_append_binary(b, "\x00\x01\x02", 3));
            break;
        case FLOE_TYPE_UUID:
            assert_ok(floe_builder_append_fixed(b, uuid1));
            assert_ok(floe_builder_append_fixed(b, uuid2));
            break;
        default:
            fail();
        }
        assert_ok(floe_builder_append_null(b));
        assert_ok(floe_builder_finish(b, &a));
        assert_ok(floe_array_validate(a));
        assert_string_equal(fmt_all(a), cases[c].want);
        assert_int_equal(floe_array_null_count(a), 1);
        floe_array_release(a);
        floe_builder_free(b);
    }
    floe_type_release(dec);
    floe_type_release(fixed);
}

static void null_type_array_is_all_nulls(void **state) {
    (void)state;
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_NULL), 0, &b));
    assert_ok(floe_builder_append_nulls(b, 4));
    assert_ok(floe_builder_finish(b, &a));
    assert_int_equal(a->length, 4);
    assert_int_equal(floe_array_null_count(a), 4);
    assert_true(floe_array_is_null(a, 3));
    assert_ok(floe_array_validate(a));
    floe_array_release(a);
    floe_builder_free(b);
}

static void wrong_value_kind_is_a_type_error(void **state) {
    (void)state;
    floe_builder *b;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 0, &b));
    assert_error(floe_builder_append_int64(b, 1), FLOE_ERR_TYPE, "string builder");
    assert_error(floe_builder_append_list(b), FLOE_ERR_TYPE, "list slot");
    floe_builder_free(b);
}

static void bulk_values_with_validity_bitmap(void **state) {
    (void)state;
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT64), 0, &b));
    int64_t first[] = {10, 11};
    assert_ok(floe_builder_append_int64_values(b, first, 2, NULL));
    int64_t vals[10];
    for (int i = 0; i < 10; i++) vals[i] = 100 + i;
    uint8_t valid[2] = {0xf5, 0x03}; /* slots 1 and 3 null */
    assert_ok(floe_builder_append_int64_values(b, vals, 10, valid));
    assert_ok(floe_builder_finish(b, &a));
    assert_int_equal(a->length, 12);
    assert_int_equal(floe_array_null_count(a), 2);
    assert_true(floe_array_is_null(a, 3));
    assert_true(floe_array_is_null(a, 5));
    assert_int_equal(floe_array_get_int64(a, 0), 10);
    assert_int_equal(floe_array_get_int64(a, 11), 109);
    assert_ok(floe_array_validate(a));
    floe_array_release(a);
    floe_builder_free(b);
}

static void dense_values_are_spread_to_valid_slots(void **state) {
    (void)state;
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT32), 0, &b));
    assert_ok(floe_builder_append_int32(b, 1)); /* unaligned start for the bitmap copy */
    int32_t dense[] = {7, 8, 9};
    uint8_t valid[1] = {0x0d}; /* 1 0 1 1 0 */
    assert_ok(floe_builder_append_values_dense(b, dense, 5, valid));
    assert_ok(floe_builder_finish(b, &a));
    assert_string_equal(fmt_all(a), "1|7|NULL|8|9|NULL");
    floe_array_release(a);
    floe_builder_free(b);
}

static void extend_values_lets_decoder_write_in_place(void **state) {
    (void)state;
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_FLOAT64), 0, &b));
    void *p;
    assert_ok(floe_builder_extend_values(b, 3, &p));
    double *d = p;
    d[0] = 1.25;
    d[1] = 2.5;
    d[2] = -0.0;
    assert_ok(floe_builder_set_null(b, 1));
    assert_ok(floe_builder_finish(b, &a));
    assert_string_equal(fmt_all(a), "1.25|NULL|-0.0");
    floe_array_release(a);
    floe_builder_free(b);
}

static void bool_bits_and_binary_bulk(void **state) {
    (void)state;
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_BOOL), 0, &b));
    uint8_t bits[2] = {0xa5, 0x01}; /* from bit 2: 1,0,0,1,0,1,1 */
    assert_ok(floe_builder_append_bool_bits(b, bits, 2, 7, NULL));
    assert_ok(floe_builder_finish(b, &a));
    assert_string_equal(fmt_all(a), "true|false|false|true|false|true|true");
    floe_array_release(a);
    floe_builder_free(b);

    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 0, &b));
    assert_ok(floe_builder_append_string(b, "x"));
    int32_t offs[] = {3, 5, 5, 8};
    const uint8_t data[] = "...abXXXcde";
    uint8_t valid[1] = {0x05};
    assert_ok(floe_builder_append_binary_values(b, offs, data, 3, valid));
    assert_ok(floe_builder_finish(b, &a));
    assert_ok(floe_array_validate(a));
    assert_string_equal(fmt_all(a), "x|ab|NULL|XXX");
    floe_strview v = floe_array_get_str(a, 3);
    assert_int_equal(v.len, 3);
    assert_memory_equal(v.data, "XXX", 3);
    floe_array_release(a);
    int32_t bad[] = {0, 4, 2};
    assert_error(floe_builder_append_binary_values(b, bad, data, 2, NULL), FLOE_ERR_INVALID_ARGUMENT, "less than");
    floe_builder_free(b);
}

static void string_views_append_per_slot_and_dense(void **state) {
    (void)state;
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_BINARY), 0, &b));
    floe_strview views[3] = {{"ab", 2}, {"zzz", 3}, {"", 0}};
    uint8_t valid[1] = {0x05}; /* 1 0 1 */
    assert_ok(floe_builder_append_strviews(b, views, 3, valid));
    floe_strview dense[2] = {{"\x01", 1}, {"\x02\x03", 2}};
    assert_ok(floe_builder_append_strviews_dense(b, dense, 3, valid));
    assert_ok(floe_builder_finish(b, &a));
    assert_ok(floe_array_validate(a));
    assert_string_equal(fmt_all(a), "\\x6162|NULL|\\x|\\x01|NULL|\\x0203");
    floe_array_release(a);
    floe_builder_free(b);
}

static void builder_is_reusable_after_finish(void **state) {
    (void)state;
    floe_builder *b;
    floe_array *a1, *a2;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), 4, &b));
    assert_ok(floe_builder_reserve(b, 100, 1000));
    assert_ok(floe_builder_append_string(b, "one"));
    assert_ok(floe_builder_finish(b, &a1));
    assert_int_equal(floe_builder_length(b), 0);
    assert_ok(floe_builder_append_null(b));
    assert_ok(floe_builder_append_string(b, "two"));
    assert_ok(floe_builder_finish(b, &a2));
    assert_string_equal(fmt_all(a1), "one");
    assert_string_equal(fmt_all(a2), "NULL|two");
    floe_array_release(a1);
    floe_array_release(a2);
    floe_builder_free(b);
}

static void many_appends_grow_buffers(void **state) {
    (void)state;
    floe_builder *b;
    floe_array *a;
    assert_ok(floe_builder_new(floe_type_primitive(FLOE_TYPE_INT32), 0, &b));
    for (int32_t i = 0; i < 100000; i++) {
        if (i % 7 == 0) assert_ok(floe_builder_append_null(b));
        else assert_ok(floe_builder_append_int32(b, i));
    }
    assert_ok(floe_builder_finish(b, &a));
    assert_int_equal(a->length, 100000);
    assert_int_equal(floe_array_null_count(a), (100000 + 6) / 7);
    assert_int_equal(floe_array_get_int32(a, 99999), 99999);
    assert_ok(floe_array_validate(a));
    floe_array_release(a);
    floe_builder_free(b);
}

static int wrap_released;
static void count_release(void *ctx, const uint8_t *data) {
    assert_ptr_equal(ctx, &wrap_released);
    assert_non_null(data);
    wrap_released++;
}

static void wrapped_buffer_calls_release_once_when_last_reference_goes(void **state) {
    (void)state;
    static int32_t memory[4] = {1, 2, 3, 4};
    wrap_released = 0;
    floe_buffer *buf;
    assert_ok(floe_buffer_wrap(memory, sizeof memory, count_release, &wrap_released, &buf));
    floe_array *a, *s;
    assert_ok(floe_array_new(floe_type_primitive(FLOE_TYPE_INT32), 4, 0, 0, NULL, &buf, 1, NULL, 0, &a));
    floe_buffer_release(buf);
    assert_ok(floe_array_slice(a, 1, 2, &s));
    floe_array_release(a);
    assert_int_equal(wrap_released, 0);
    assert_string_equal(fmt_all(s), "2|3");
    floe_array_release(s);
    assert_int_equal(wrap_released, 1);
}

FLOE_TEST_MAIN(cmocka_unit_test(int32_values_and_nulls_round_trip),
               cmocka_unit_test(all_valid_array_has_no_validity_bitmap),
               cmocka_unit_test(buffers_are_64_byte_aligned_and_padded),
               cmocka_unit_test(every_scalar_type_appends_and_formats),
               cmocka_unit_test(null_type_array_is_all_nulls),
               cmocka_unit_test(wrong_value_kind_is_a_type_error),
               cmocka_unit_test(bulk_values_with_validity_bitmap),
               cmocka_unit_test(dense_values_are_spread_to_valid_slots),
               cmocka_unit_test(extend_values_lets_decoder_write_in_place),
               cmocka_unit_test(bool_bits_and_binary_bulk),
               cmocka_unit_test(string_views_append_per_slot_and_dense),
               cmocka_unit_test(builder_is_reusable_after_finish),
               cmocka_unit_test(many_appends_grow_buffers),
               cmocka_unit_test(wrapped_buffer_calls_release_once_when_last_reference_goes))
