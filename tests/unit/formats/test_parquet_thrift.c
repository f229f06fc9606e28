/* Thrift compact protocol: every wire type round-trips, unknown fields of any
 * type are skipped, and truncated or malformed input fails with an offset. */
#include "floe_test.h"

#include <math.h>

#include "base/buffer.h"
#include "formats/parquet/thrift.h"

/* A struct with one field of every type, plus nesting, written by the
 * encoder.  Field ids are chosen so both header forms (delta and long id)
 * are used. */
static void write_everything(floe_buf *b) {
    floe_thrift_writer w;
    floe_thrift_writer_init(&w, b);
    floe_thrift_write_struct_begin(&w);
    floe_thrift_write_field_bool(&w, 1, true);
    floe_thrift_write_field_bool(&w, 2, false);
    floe_thrift_write_field(&w, FLOE_THRIFT_I8, 3);
    floe_thrift_write_i8(&w, -5);
    floe_thrift_write_field(&w, FLOE_THRIFT_I16, 4);
    floe_thrift_write_i16(&w, -32768);
    floe_thrift_write_field_i32(&w, 5, INT32_MIN);
    floe_thrift_write_field_i64(&w, 6, INT64_MAX);
    floe_thrift_write_field(&w, FLOE_THRIFT_DOUBLE, 7);
    floe_thrift_write_double(&w, -2.5);
    floe_thrift_write_field_string(&w, 8, "hello");
    /* list<i32> with a long-form size (>= 15 elements) */
    floe_thrift_write_field(&w, FLOE_THRIFT_LIST, 9);
    floe_thrift_write_list(&w, FLOE_THRIFT_I32, 20);
    for (int i = 0; i < 20; i++) floe_thrift_write_i32(&w, i * 1000 - 7);
    /* set<bool> */
    floe_thrift_write_field(&w, FLOE_THRIFT_SET, 10);
    floe_thrift_write_set(&w, FLOE_THRIFT_TRUE, 3);
    floe_thrift_write_bool_elem(&w, true);
    floe_thrift_write_bool_elem(&w, false);
    floe_thrift_write_bool_elem(&w, true);
    /* map<string,i64> */
    floe_thrift_write_field(&w, FLOE_THRIFT_MAP, 11);
    floe_thrift_write_map(&w, FLOE_THRIFT_BINARY, FLOE_THRIFT_I64, 2);
    floe_thrift_write_string(&w, "a");
    floe_thrift_write_i64(&w, 1);
    floe_thrift_write_string(&w, "b");
    floe_thrift_write_i64(&w, -1);
    /* nested struct with its own ids, then a far id (long header form) */
    floe_thrift_write_field(&w, FLOE_THRIFT_STRUCT, 12);
    floe_thrift_write_struct_begin(&w);
    floe_thrift_write_field_i32(&w, 1, 42);
    floe_thrift_write_field(&w, FLOE_THRIFT_MAP, 2); /* empty map */
    floe_thrift_write_map(&w, FLOE_THRIFT_I32, FLOE_THRIFT_I32, 0);
    floe_thrift_write_struct_end(&w);
    floe_thrift_write_field(&w, FLOE_THRIFT_UUID, 13);
    {
        uint8_t u[16];
        for (int i = 0; i < 16; i++) u[i] = (uint8_t)(0xa0 + i);
        floe_thrift_write_uuid(&w, u);
    }
    floe_thrift_write_field_i32(&w, 300, 7); /* id jump > 15: long form */
    floe_thrift_write_field_i32(&w, 200, 8); /* id going down: long form */
    floe_thrift_write_struct_end(&w);
    assert_null(floe_thrift_writer_status(&w));
}

static void every_wire_type_round_trips(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    write_everything(&b);
    floe_thrift_reader r;
    floe_thrift_reader_init(&r, b.data, b.len, 0);
    assert_ok(floe_thrift_struct_enter(&r));
    int16_t last = 0, id;
    floe_thrift_type t;
    int seen = 0;
    for (;;) {
        assert_ok(floe_thrift_read_field(&r, &last, &t, &id));
        if (t == FLOE_THRIFT_STOP) break;
        seen++;
        switch (id) {
        case 1: assert_int_equal(t, FLOE_THRIFT_TRUE); break;
        case 2: assert_int_equal(t, FLOE_THRIFT_FALSE); break;
        case 3: { int8_t v; assert_ok(floe_thrift_read_i8(&r, &v)); assert_int_equal(v, -5); break; }
        case 4: { int16_t v; assert_ok(floe_thrift_read_i16(&r, &v)); assert_int_equal(v, -32768); break; }
        case 5: { int32_t v; assert_ok(floe_thrift_read_i32(&r, &v)); assert_int_equal(v, INT32_MIN); break; }
        case 6: { int64_t v; assert_ok(floe_thrift_read_i64(&r, &v)); assert_true(v == INT64_MAX); break; }
        case 7: { double v; assert_ok(floe_thrift_read_double(&r, &v)); assert_true(v == -2.5); break; }
        case 8: {
            const uint8_t *p; uint32_t n;
            assert_ok(floe_thrift_read_binary(&r, &p, &n));
            assert_int_equal(n, 5);
            assert_memory_equal(p, "hello", 5);
            break;
        }
        case 9: {
            floe_thrift_type et; uint32_t n;
            assert_ok(floe_thrift_read_list(&r, &et, &n));
            assert_int_equal(et, FLOE_THRIFT_I32);
            assert_int_equal(n, 20);
            for (int i = 0; i < 20; i++) {
                int32_t v; assert_ok(floe_thrift_read_i32(&r, &v)); assert_int_equal(v, i * 1000 - 7);
            }
            break;
        }
        case 10: {
            floe_thrift_type et; uint32_t n; bool v;
            assert_ok(floe_thrift_read_list(&r, &et, &n));
            assert_int_equal(et, FLOE_THRIFT_TRUE);
            assert_int_equal(n, 3);
            assert_ok(floe_thrift_read_bool_elem(&r, &v)); assert_true(v);
            assert_ok(floe_thrift_read_bool_elem(&r, &v)); assert_false(v);
            assert_ok(floe_thrift_read_bool_elem(&r, &v)); assert_true(v);
            break;
        }
        case 11: {
            floe_thrift_type kt, vt; uint32_t n; const uint8_t *p; uint32_t len; int64_t v;
            assert_ok(floe_thrift_read_map(&r, &kt, &vt, &n));
            assert_int_equal(kt, FLOE_THRIFT_BINARY);
            assert_int_equal(vt, FLOE_THRIFT_I64);
            assert_int_equal(n, 2);
            assert_ok(floe_thrift_read_binary(&r, &p, &len)); assert_int_equal(p[0], 'a');
            assert_ok(floe_thrift_read_i64(&r, &v)); assert_int_equal(v, 1);
            assert_ok(floe_thrift_read_binary(&r, &p, &len)); assert_int_equal(p[0], 'b');
            assert_ok(floe_thrift_read_i64(&r, &v)); assert_int_equal(v, -1);
            break;
        }
        case 12: {
            assert_int_equal(t, FLOE_THRIFT_STRUCT);
            assert_ok(floe_thrift_struct_enter(&r));
            int16_t l2 = 0, id2; floe_thrift_type t2; int32_t v;
            assert_ok(floe_thrift_read_field(&r, &l2, &t2, &id2));
            assert_int_equal(id2, 1);
            assert_ok(floe_thrift_read_i32(&r, &v)); assert_int_equal(v, 42);
            assert_ok(floe_thrift_read_field(&r, &l2, &t2, &id2));
            assert_int_equal(t2, FLOE_THRIFT_MAP);
            floe_thrift_type kt, vt; uint32_t n;
            assert_ok(floe_thrift_read_map(&r, &kt, &vt, &n));
            assert_int_equal(n, 0);
            assert_ok(floe_thrift_read_field(&r, &l2, &t2, &id2));
            assert_int_equal(t2, FLOE_THRIFT_STOP);
            floe_thrift_struct_leave(&r);
            break;
        }
        case 13: {
            const uint8_t *u;
            assert_int_equal(t, FLOE_THRIFT_UUID);
            assert_ok(floe_thrift_read_uuid(&r, &u));
            assert_int_equal(u[0], 0xa0);
            assert_int_equal(u[15], 0xaf);
            break;
        }
        case 300: { int32_t v; assert_ok(floe_thrift_read_i32(&r, &v)); assert_int_equal(v, 7); break; }
        case 200: { int32_t v; assert_ok(floe_thrift_read_i32(&r, &v)); assert_int_equal(v, 8); break; }
        default: fail_msg("unexpected field id %d", id);
        }
    }
    floe_thrift_struct_leave(&r);
    assert_int_equal(seen, 15);
    assert_int_equal(floe_thrift_remaining(&r), 0);
    assert_int_equal(r.depth, 0);
    floe_buf_free(&b);
}

static void unknown_fields_of_every_type_are_skipped(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    /* The whole "everything" struct is one unknown struct field of an outer
     * struct whose only known field comes after it. */
    floe_thrift_writer w;
    floe_thrift_writer_init(&w, &b);
    floe_thrift_write_struct_begin(&w);
    floe_thrift_write_field(&w, FLOE_THRIFT_STRUCT, 1);
    assert_null(floe_thrift_writer_status(&w));
    write_everything(&b); /* appends a complete struct */
    floe_thrift_write_field(&w, FLOE_THRIFT_LIST, 2);
    floe_thrift_write_list(&w, FLOE_THRIFT_DOUBLE, 2);
    floe_thrift_write_double(&w, 1.0);
    floe_thrift_write_double(&w, 2.0);
    floe_thrift_write_field_string(&w, 3, "known");
    floe_thrift_write_struct_end(&w);
    assert_null(floe_thrift_writer_status(&w));

    floe_thrift_reader r;
    floe_thrift_reader_init(&r, b.data, b.len, 0);
    assert_ok(floe_thrift_struct_enter(&r));
    int16_t last = 0, id;
    floe_thrift_type t;
    const uint8_t *p = NULL;
    uint32_t n = 0;
    for (;;) {
        assert_ok(floe_thrift_read_field(&r, &last, &t, &id));
        if (t == FLOE_THRIFT_STOP) break;
        if (id == 3) assert_ok(floe_thrift_read_binary(&r, &p, &n));
        else assert_ok(floe_thrift_skip(&r, t));
    }
    assert_non_null(p);
    assert_int_equal(n, 5);
    assert_memory_equal(p, "known", 5);
    assert_int_equal(floe_thrift_remaining(&r), 0);
    floe_buf_free(&b);
}

/* Skip the whole message as one struct. */
static floe_status skip_message(const uint8_t *p, size_t n) {
    floe_thrift_reader r;
    floe_thrift_reader_init(&r, p, n, 1000);
    return floe_thrift_skip(&r, FLOE_THRIFT_STRUCT);
}

static void every_truncation_fails_with_an_offset(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    write_everything(&b);
    assert_ok(skip_message(b.data, b.len));
    for (size_t n = 0; n < b.len; n++) {
        /* Copy so ASan catches any read past the shortened end. */
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, b.data, n);
        floe_status st = skip_message(copy, n);
        if (!st) fail_msg("truncation to %zu of %zu bytes decoded", n, b.len);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
        const char *at = strstr(floe_status_message(st), "at offset ");
        if (!at) fail_msg("truncation to %zu: no offset in: %s", n, floe_status_message(st));
        unsigned long off = strtoul(at + 10, NULL, 10);
        assert_true(off >= 1000 && off <= 1000 + n);
        floe_status_free(st);
        free(copy);
    }
    floe_buf_free(&b);
}

static void malformed_values_are_rejected(void **state) {
    (void)state;
    floe_thrift_reader r;
    int32_t v32;
    int16_t v16;
    uint64_t u;
    /* i32 that does not fit: zigzag of 2^31 */
    const uint8_t big32[] = {0x80, 0x80, 0x80, 0x80, 0x10};
    floe_thrift_reader_init(&r, big32, sizeof big32, 0);
    assert_error(floe_thrift_read_i32(&r, &v32), FLOE_ERR_CORRUPT, "out of range at offset 0");
    /* i16 that does not fit */
    const uint8_t big16[] = {0x80, 0x80, 0x04};
    floe_thrift_reader_init(&r, big16, sizeof big16, 0);
    assert_error(floe_thrift_read_i16(&r, &v16), FLOE_ERR_CORRUPT, "out of range");
    /* an 11-byte varint */
    const uint8_t longv[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    floe_thrift_reader_init(&r, longv, sizeof longv, 0);
    assert_error(floe_thrift_read_varint(&r, &u), FLOE_ERR_CORRUPT, "varint");
    /* a binary claiming more bytes than there are */
    const uint8_t bin[] = {0x08, 'a', 'b'};
    const uint8_t *p;
    uint32_t n;
    floe_thrift_reader_init(&r, bin, sizeof bin, 500);
    assert_error(floe_thrift_read_binary(&r, &p, &n), FLOE_ERR_CORRUPT,
                 "binary of 8 bytes but only 2 left at offset 500");
    /* a list claiming a billion elements */
    const uint8_t lst[] = {0xf5, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0x00};
    floe_thrift_type et;
    floe_thrift_reader_init(&r, lst, sizeof lst, 0);
    assert_error(floe_thrift_read_list(&r, &et, &n), FLOE_ERR_CORRUPT, "list of 1000000000");
    /* an invalid field type */
    const uint8_t badt[] = {0x1e};
    int16_t last = 0, id;
    floe_thrift_type t;
    floe_thrift_reader_init(&r, badt, sizeof badt, 0);
    assert_error(floe_thrift_read_field(&r, &last, &t, &id), FLOE_ERR_CORRUPT,
                 "invalid field type 14");
}

static void nesting_is_limited(void **state) {
    (void)state;
    /* 100 nested structs: field 1 of type struct, repeatedly. */
    uint8_t deep[200];
    for (int i = 0; i < 100; i++) deep[i] = 0x1c;
    for (int i = 100; i < 200; i++) deep[i] = 0x00;
    assert_error(skip_message(deep, sizeof deep), FLOE_ERR_CORRUPT, "nesting deeper than 64");
    /* 100 nested lists of lists */
    uint8_t lists[100];
    for (int i = 0; i < 99; i++) lists[i] = 0x19;
    lists[99] = 0x00;
    floe_thrift_reader r;
    floe_thrift_reader_init(&r, lists, sizeof lists, 0);
    assert_error(floe_thrift_skip(&r, FLOE_THRIFT_LIST), FLOE_ERR_CORRUPT, "nesting deeper");
}

static void writer_uses_short_and_long_forms(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    floe_thrift_writer w;
    floe_thrift_writer_init(&w, &b);
    floe_thrift_write_struct_begin(&w);
    floe_thrift_write_field_i32(&w, 1, 1);   /* 0x15 0x02 */
    floe_thrift_write_field_i32(&w, 17, -1); /* delta 16: 0x05 <zigzag 17 = 0x22> 0x01 */
    floe_thrift_write_field_bool(&w, 18, true); /* 0x11 */
    floe_thrift_write_field(&w, FLOE_THRIFT_LIST, 19);
    floe_thrift_write_list(&w, FLOE_THRIFT_BINARY, 0); /* 0x19 0x08 */
    floe_thrift_write_struct_end(&w);             /* 0x00 */
    assert_null(floe_thrift_writer_status(&w));
    const uint8_t want[] = {0x15, 0x02, 0x05, 0x22, 0x01, 0x11, 0x19, 0x08, 0x00};
    assert_int_equal(b.len, sizeof want);
    assert_memory_equal(b.data, want, sizeof want);
    floe_buf_free(&b);
}

static void unbalanced_writer_reports_misuse(void **state) {
    (void)state;
    floe_buf b = FLOE_BUF_INIT;
    floe_thrift_writer w;
    floe_thrift_writer_init(&w, &b);
    floe_thrift_write_struct_end(&w);
    assert_error(floe_thrift_writer_status(&w), FLOE_ERR_INTERNAL, "misuse");
    floe_buf_free(&b);
}

FLOE_TEST_MAIN(cmocka_unit_test(every_wire_type_round_trips),
               cmocka_unit_test(unknown_fields_of_every_type_are_skipped),
               cmocka_unit_test(every_truncation_fails_with_an_offset),
               cmocka_unit_test(malformed_values_are_rejected),
               cmocka_unit_test(nesting_is_limited),
               cmocka_unit_test(writer_uses_short_and_long_forms),
               cmocka_unit_test(unbalanced_writer_reports_misuse))
