/* Parquet encodings: hand-built byte vectors decode to known values, round
 * trips through the encoders, and corrupt input is reported with an offset. */
#include "floe_test.h"

#include "floe/memory.h"
#include "formats/parquet/encoding.h"

static void rle_run_and_bitpacked_run_decode(void **state) {
    (void)state;
    /* RLE run of 5 x value 3 (bw 2), then one bit-packed group of 8:
     * 0..7 mod 4 = 0,1,2,3,0,1,2,3 -> bytes 0b11100100 twice. */
    const uint8_t data[] = {5 << 1, 3, (1 << 1) | 1, 0xE4, 0xE4};
    pq_rle d;
    assert_ok(pq_rle_init(&d, data, sizeof data, 2, 100));
    uint32_t out[13];
    assert_ok(pq_rle_get_u32(&d, out, 13));
    const uint32_t want[13] = {3, 3, 3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3};
    assert_memory_equal(out, want, sizeof want);
    assert_error(pq_rle_get_u32(&d, out, 1), FLOE_ERR_CORRUPT, "offset 105");
}

static void rle_decodes_in_pieces_across_runs(void **state) {
    (void)state;
    /* bw 3: a bit-packed run of 16 values 0..7,0..7 split into odd pieces. */
    uint32_t v[40];
    for (int i = 0; i < 40; i++) v[i] = (uint32_t)(i % 8);
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(pq_rle_encode(&b, v, 40, 3));
    pq_rle d;
    assert_ok(pq_rle_init(&d, b.data, b.len, 3, 0));
    uint16_t out[40];
    assert_ok(pq_rle_get_u16(&d, out, 3));
    assert_ok(pq_rle_get_u16(&d, out + 3, 30));
    assert_ok(pq_rle_get_u16(&d, out + 33, 7));
    for (int i = 0; i < 40; i++) assert_int_equal(out[i], i % 8);
    floe_buf_free(&b);
}

static void rle_encoder_round_trips_every_width(void **state) {
    (void)state;
    enum { N = 1000 };
    uint32_t v[N], got[N];
    for (int bw = 0; bw <= 32; bw++) {
        uint64_t mask = bw == 32 ? 0xffffffffu : ((1ull << bw) - 1);
        uint64_t x = 88172645463325252ull;
        for (int i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* Mix long repeats with noise so both run kinds appear. */
            v[i] = (i / 50) % 2 ? (uint32_t)(mask & 5) : (uint32_t)(x & mask);
        }
        floe_buf b = FLOE_BUF_INIT;
        assert_ok(pq_rle_encode(&b, v, N, bw));
        pq_rle d;
        assert_ok(pq_rle_init(&d, b.data, b.len, bw, 0));
        assert_ok(pq_rle_get_u32(&d, got, 7));
        assert_ok(pq_rle_get_u32(&d, got + 7, N - 7));
        assert_memory_equal(got, v, sizeof v);
        floe_buf_free(&b);
    }
}

static void rle_rejects_width_above_32(void **state) {
    (void)state;
    pq_rle d;
    const uint8_t data[] = {2, 1};
    assert_error(pq_rle_init(&d, data, 2, 33, 7), FLOE_ERR_CORRUPT, "bit width 33");
}

static void rle_truncated_run_value_is_corrupt(void **state) {
    (void)state;
    /* RLE run header for bw 16 needs two value bytes, only one present. */
    const uint8_t data[] = {4 << 1, 0x01};
    pq_rle d;
    assert_ok(pq_rle_init(&d, data, sizeof data, 16, 1000));
    uint32_t out[4];
    assert_error(pq_rle_get_u32(&d, out, 4), FLOE_ERR_CORRUPT, "offset 1001");
}

static void rle_truncated_header_is_corrupt(void **state) {
    (void)state;
    const uint8_t data[] = {0x80, 0x80};
    pq_rle d;
    assert_ok(pq_rle_init(&d, data, sizeof data, 1, 50));
    uint32_t out[1];
    assert_error(pq_rle_get_u32(&d, out, 1), FLOE_ERR_CORRUPT, "run header at offset 50");
}

static void rle_trimmed_final_bitpacked_run_gives_present_values(void **state) {
    (void)state;
    /* Header claims 2 groups (16 values of bw 8) but only 3 bytes follow. */
    const uint8_t data[] = {(2 << 1) | 1, 10, 20, 30};
    pq_rle d;
    assert_ok(pq_rle_init(&d, data, sizeof data, 8, 0));
    uint32_t out[4];
    assert_ok(pq_rle_get_u32(&d, out, 3));
    assert_int_equal(out[2], 30);
    assert_error(pq_rle_get_u32(&d, out, 1), FLOE_ERR_CORRUPT, "ran out");
}

static void packed_dictionary_index_out_of_range_is_corrupt(void **state) {
    (void)state;
    /* 16 packed 4-bit indices, all 1 except index 11 = 9: found by the
     * wide check (16 values) and by its scalar tail (13 values). */
    const uint8_t data[] = {(2 << 1) | 1, 0x11, 0x11, 0x11, 0x11, 0x11, 0x91, 0x11, 0x11};
    uint32_t idx[16];
    pq_rle d;
    assert_ok(pq_rle_init(&d, data, sizeof data, 4, 0));
    assert_error(pq_rle_get_u32_max(&d, idx, 16, 5), FLOE_ERR_CORRUPT, "index 9 out of range");
    assert_ok(pq_rle_init(&d, data, sizeof data, 4, 0));
    assert_error(pq_rle_get_u32_max(&d, idx, 13, 5), FLOE_ERR_CORRUPT, "index 9 out of range");
    assert_ok(pq_rle_init(&d, data, sizeof data, 4, 0));
    assert_ok(pq_rle_get_u32_max(&d, idx, 11, 5)); /* stops before the bad one */
    assert_int_equal(idx[10], 1);
    assert_ok(pq_rle_init(&d, data, sizeof data, 4, 0));
    assert_ok(pq_rle_get_u32_max(&d, idx, 16, 16)); /* 4 bits always fit 16 */
    assert_int_equal(idx[11], 9);
}

static void dictionary_index_out_of_range_is_corrupt(void **state) {
    (void)state;
    const uint8_t data[] = {3 << 1, 9};
    pq_rle d;
    assert_ok(pq_rle_init(&d, data, sizeof data, 4, 0));
    uint32_t idx[3];
    assert_error(pq_rle_get_u32_max(&d, idx, 3, 5), FLOE_ERR_CORRUPT, "index 9 out of range");
    uint32_t bad[2] = {1, 7};
    int32_t dict[3] = {10, 20, 30};
    int32_t out[2];
    assert_error(pq_dict_gather_fixed((const uint8_t *)dict, 3, 4, bad, 2, out, 4242),
                 FLOE_ERR_CORRUPT, "offset 4242");
}

static void levels_above_maximum_are_corrupt(void **state) {
    (void)state;
    const uint8_t data[] = {2 << 1, 3};
    pq_rle d;
    assert_ok(pq_rle_init(&d, data, sizeof data, 2, 0));
    int16_t out[2];
    assert_error(pq_rle_get_i16_max(&d, out, 2, 2), FLOE_ERR_CORRUPT, "maximum 2");
}

static void prefixed_rle_checks_its_length(void **state) {
    (void)state;
    const uint8_t data[] = {2, 0, 0, 0, 6 << 1, 1, 0xff};
    pq_rle d;
    size_t used;
    assert_ok(pq_rle_init_prefixed(&d, data, sizeof data, 1, 0, &used));
    assert_int_equal(used, 6);
    uint8_t b[6];
    assert_ok(pq_rle_get_u8(&d, b, 6));
    for (int i = 0; i < 6; i++) assert_int_equal(b[i], 1);
    const uint8_t bad[] = {9, 0, 0, 0, 1};
    assert_error(pq_rle_init_prefixed(&d, bad, sizeof bad, 1, 20, &used), FLOE_ERR_CORRUPT,
                 "offset 20");
}

static void legacy_bitpacked_levels_are_msb_first(void **state) {
    (void)state;
    /* Spec example: 0..7 with bw 3 -> 00000101 00111001 01110111. */
    const uint8_t data[] = {0x05, 0x39, 0x77};
    int16_t out[8];
    size_t used;
    assert_ok(pq_bitpacked_legacy_decode(data, 3, 3, 0, out, 8, &used));
    assert_int_equal(used, 3);
    for (int i = 0; i < 8; i++) assert_int_equal(out[i], i);
    assert_error(pq_bitpacked_legacy_decode(data, 2, 3, 77, out, 8, &used), FLOE_ERR_CORRUPT,
                 "offset 77");
}

static void plain_fixed_bool_and_binary_decode(void **state) {
    (void)state;
    const uint8_t ints[] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    pq_plain p;
    pq_plain_init(&p, ints, sizeof ints, 0);
    int32_t iv[2];
    assert_ok(pq_plain_fixed(&p, 4, iv, 2));
    assert_int_equal(iv[0], 1);
    assert_int_equal(iv[1], -1);
    assert_error(pq_plain_fixed(&p, 4, iv, 1), FLOE_ERR_CORRUPT, "offset 8");

    const uint8_t bools[] = {0x0D, 0x01}; /* 1,0,1,1,0,0,0,0, 1 */
    pq_plain_init(&p, bools, sizeof bools, 0);
    uint8_t bv[9];
    assert_ok(pq_plain_bool(&p, bv, 3));
    assert_ok(pq_plain_bool(&p, bv + 3, 6));
    const uint8_t wantb[9] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
    assert_memory_equal(bv, wantb, 9);

    const uint8_t bin[] = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
    pq_plain_init(&p, bin, sizeof bin, 0);
    int32_t off[4] = {0};
    floe_buf data = FLOE_BUF_INIT;
    assert_ok(pq_plain_binary(&p, off, &data, 3));
    assert_int_equal(off[1], 2);
    assert_int_equal(off[2], 2);
    assert_int_equal(off[3], 5);
    assert_memory_equal(data.data, "hiabc", 5);
    floe_buf_free(&data);

    const uint8_t trunc[] = {9, 0, 0, 0, 'x'};
    pq_plain_init(&p, trunc, sizeof trunc, 300);
    off[0] = 0;
    assert_error(pq_plain_binary(&p, off, &data, 1), FLOE_ERR_CORRUPT, "offset 300");
    floe_buf_free(&data);
}

static void dictionary_gather_binary_copies_entries(void **state) {
    (void)state;
    const int32_t doff[] = {0, 3, 3, 5};
    const uint8_t ddata[32] = "fooba"; /* PQ_GATHER_SLACK readable bytes after the end */
    const uint32_t idx[] = {2, 0, 1, 2};
    int32_t off[5] = {0};
    floe_buf out = FLOE_BUF_INIT;
    assert_ok(pq_dict_gather_binary(doff, ddata, 3, idx, 4, off, &out, 0));
    assert_int_equal(off[4], 7);
    assert_memory_equal(out.data, "bafooba", 7);
    floe_buf_free(&out);
}

static void delta_binary_packed_spec_example_decodes(void **state) {
    (void)state;
    /* Values 1..5: header 128 4 5 zigzag(1)=2, block: min delta 1
     * (zigzag 2), widths 0 0 0 0, no miniblock bytes. */
    const uint8_t data[] = {0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0};
    pq_delta d;
    assert_ok(pq_delta_init(&d, data, sizeof data, 1, 0));
    int32_t out[5];
    assert_ok(pq_delta_get_i32(&d, out, 5));
    for (int i = 0; i < 5; i++) assert_int_equal(out[i], i + 1);
    const uint8_t *end;
    assert_ok(pq_delta_finish(&d, &end));
    assert_ptr_equal(end, data + sizeof data);
    pq_delta_free(&d);
}

static void delta_binary_packed_round_trips_with_wraparound(void **state) {
    (void)state;
    enum { N = 1000 };
    int64_t v[N], got[N];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = i % 3 == 0 ? INT64_MIN : i % 3 == 1 ? INT64_MAX : (int64_t)x;
    }
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(pq_delta_encode(&b, v, N));
    pq_delta d;
    assert_ok(pq_delta_init(&d, b.data, b.len, 0, 0));
    assert_ok(pq_delta_get_i64(&d, got, 33));
    assert_ok(pq_delta_get_i64(&d, got + 33, N - 33));
    assert_memory_equal(got, v, sizeof v);
    const uint8_t *end;
    assert_ok(pq_delta_finish(&d, &end));
    assert_ptr_equal(end, b.data + b.len);
    pq_delta_free(&d);
    floe_buf_free(&b);

    int32_t w[N], gw[N];
    for (int i = 0; i < N; i++) w[i] = i % 2 ? INT32_MIN : INT32_MAX - i;
    assert_ok(pq_delta_encode_i32(&b, w, N));
    assert_ok(pq_delta_init(&d, b.data, b.len, 1, 0));
    assert_ok(pq_delta_get_i32(&d, gw, N));
    assert_memory_equal(gw, w, sizeof w);
    pq_delta_free(&d);
    floe_buf_free(&b);
}

static void delta_corrupt_headers_are_rejected(void **state) {
    (void)state;
    pq_delta d;
    /* Block size not a multiple of 128. */
    const uint8_t bad_block[] = {100, 4, 5, 2};
    assert_error(pq_delta_init(&d, bad_block, sizeof bad_block, 0, 9), FLOE_ERR_CORRUPT,
                 "offset 9");
    /* Varint overflowing 64 bits. */
    const uint8_t overflow[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    assert_error(pq_delta_init(&d, overflow, sizeof overflow, 0, 0), FLOE_ERR_CORRUPT,
                 "truncated");
    /* Huge value count with no data. */
    const uint8_t huge[] = {0x80, 0x01, 4, 0xff, 0xff, 0xff, 0xff, 0x0f, 2};
    assert_error(pq_delta_init(&d, huge, sizeof huge, 0, 0), FLOE_ERR_CORRUPT, "claims");
    /* Miniblock width 40 in an INT32 stream. */
    const uint8_t wide[] = {0x80, 0x01, 4, 3, 2, 2, 40, 0, 0, 0};
    assert_ok(pq_delta_init(&d, wide, sizeof wide, 1, 0));
    int32_t out[3];
    assert_error(pq_delta_get_i32(&d, out, 3), FLOE_ERR_CORRUPT, "bit width 40");
    pq_delta_free(&d);
    /* Truncated miniblock: width 8 needs 32 bytes. */
    const uint8_t trunc[] = {0x80, 0x01, 4, 3, 2, 2, 8, 0, 0, 0, 1};
    assert_ok(pq_delta_init(&d, trunc, sizeof trunc, 1, 0));
    assert_error(pq_delta_get_i32(&d, out, 3), FLOE_ERR_CORRUPT, "truncated");
    pq_delta_free(&d);
}

static void delta_length_and_delta_byte_array_decode(void **state) {
    (void)state;
    /* DLBA of "Hello", "World", "Foobar", "ABCDEF" per the spec example. */
    floe_buf b = FLOE_BUF_INIT;
    const int32_t lens[] = {5, 5, 6, 6};
    assert_ok(pq_delta_encode_i32(&b, lens, 4));
    assert_ok(floe_buf_append_str(&b, "HelloWorldFoobarABCDEF"));
    pq_dlba l;
    assert_ok(pq_dlba_init(&l, b.data, b.len, 0));
    int32_t off[5] = {0};
    floe_buf out = FLOE_BUF_INIT;
    assert_ok(pq_dlba_get(&l, off, &out, 1));
    assert_ok(pq_dlba_get(&l, off + 1, &out, 3));
    assert_int_equal(off[4], 22);
    assert_memory_equal(out.data, "HelloWorldFoobarABCDEF", 22);
    pq_dlba_free(&l);
    floe_buf_free(&out);
    floe_buf_free(&b);

    /* DBA of axis, axle, babble, babyhood. */
    const int32_t pre[] = {0, 2, 0, 3};
    const int32_t suf[] = {4, 2, 6, 5};
    assert_ok(pq_delta_encode_i32(&b, pre, 4));
    assert_ok(pq_delta_encode_i32(&b, suf, 4));
    assert_ok(floe_buf_append_str(&b, "axislebabbleyhood"));
    pq_dba a;
    assert_ok(pq_dba_init(&a, b.data, b.len, 0));
    off[0] = 0;
    assert_ok(pq_dba_get(&a, off, &out, 4));
    assert_memory_equal(out.data, "axisaxlebabblebabyhood", 22);
    assert_int_equal(off[2], 8);
    pq_dba_free(&a);
    floe_buf_free(&out);
    floe_buf_free(&b);

    /* A prefix longer than the previous value is corrupt. */
    const int32_t badpre[] = {0, 9};
    const int32_t badsuf[] = {1, 1};
    assert_ok(pq_delta_encode_i32(&b, badpre, 2));
    assert_ok(pq_delta_encode_i32(&b, badsuf, 2));
    assert_ok(floe_buf_append_str(&b, "ab"));
    assert_ok(pq_dba_init(&a, b.data, b.len, 0));
    off[0] = 0;
    assert_error(pq_dba_get(&a, off, &out, 2), FLOE_ERR_CORRUPT, "prefix length 9");
    pq_dba_free(&a);
    floe_buf_free(&out);
    floe_buf_free(&b);

    /* Lengths totalling more than the bytes present. */
    const int32_t big[] = {100};
    assert_ok(pq_delta_encode_i32(&b, big, 1));
    assert_ok(floe_buf_append_str(&b, "short"));
    assert_error(pq_dlba_init(&l, b.data, b.len, 0), FLOE_ERR_CORRUPT, "100 bytes");
    floe_buf_free(&b);
}

static void byte_stream_split_round_trips(void **state) {
    (void)state;
    double v[7] = {1.5, -2.25, 3e100, 0, -0.0, 42, 1e-300};
    floe_buf b = FLOE_BUF_INIT;
    assert_ok(pq_bss_encode(&b, v, 8, 7));
    double got[7];
    assert_ok(pq_bss_decode(b.data, b.len, 8, 7, 0, 3, got, 0));
    assert_ok(pq_bss_decode(b.data, b.len, 8, 7, 3, 4, got + 3, 0));
    assert_memory_equal(got, v, sizeof v);
    const uint8_t spec[] = {0xAA, 0xBB, 0x00, 0x11, 0x22, 0x33}; /* 2 values of 3 bytes */
    uint8_t three[6];
    assert_ok(pq_bss_decode(spec, 6, 3, 2, 0, 2, three, 0));
    const uint8_t want[6] = {0xAA, 0x00, 0x22, 0xBB, 0x11, 0x33};
    assert_memory_equal(three, want, 6);
    assert_error(pq_bss_decode(b.data, b.len - 1, 8, 7, 0, 7, got, 64), FLOE_ERR_CORRUPT,
                 "offset 64");
    floe_buf_free(&b);
}

static void unpack64_handles_wide_values(void **state) {
    (void)state;
    uint64_t v[9] = {~0ull, 1, 0x8000000000000001ull, 12345678901234567ull, 0, 7, 1ull << 62,
                     3, 99};
    for (int bw = 57; bw <= 64; bw++) {
        uint64_t mask = bw == 64 ? ~0ull : ((1ull << bw) - 1), got[9];
        floe_buf b = FLOE_BUF_INIT;
        assert_ok(pq_pack64(&b, v, 9, bw));
        pq_unpack64(b.data, b.len, 0, bw, got, 9);
        for (int i = 0; i < 9; i++) assert_true(got[i] == (v[i] & mask));
        floe_buf_free(&b);
    }
}

static void utf8_check_finds_the_bad_value(void **state) {
    (void)state;
    const uint8_t data[] = "plain ascii text" "caf\xc3\xa9" "\xc3\x28" "\xed\xa0\x80" "\xf0\x9f\x98\x80";
    /* values: ascii(16), "café"(5), bad 2-byte(2), surrogate(3), emoji(4) */
    const int32_t off[] = {0, 16, 21, 23, 26, 30};
    assert_int_equal(pq_utf8_check(off, data, 2), 2);
    assert_int_equal(pq_utf8_check(off, data, 3), 2);
    assert_int_equal(pq_utf8_check(off + 3, data, 1), 0); /* surrogate alone */
    assert_int_equal(pq_utf8_check(off + 4, data, 1), 1); /* emoji is fine */
    const uint8_t overlong[] = "\xc0\xaf";
    const int32_t o2[] = {0, 2};
    assert_int_equal(pq_utf8_check(o2, overlong, 1), 0);
}

FLOE_TEST_MAIN(cmocka_unit_test(utf8_check_finds_the_bad_value),
               cmocka_unit_test(rle_run_and_bitpacked_run_decode),
               cmocka_unit_test(rle_decodes_in_pieces_across_runs),
               cmocka_unit_test(rle_encoder_round_trips_every_width),
               cmocka_unit_test(rle_rejects_width_above_32),
               cmocka_unit_test(rle_truncated_run_value_is_corrupt),
               cmocka_unit_test(rle_truncated_header_is_corrupt),
               cmocka_unit_test(rle_trimmed_final_bitpacked_run_gives_present_values),
               cmocka_unit_test(dictionary_index_out_of_range_is_corrupt),
               cmocka_unit_test(packed_dictionary_index_out_of_range_is_corrupt),
               cmocka_unit_test(levels_above_maximum_are_corrupt),
               cmocka_unit_test(prefixed_rle_checks_its_length),
               cmocka_unit_test(legacy_bitpacked_levels_are_msb_first),
               cmocka_unit_test(plain_fixed_bool_and_binary_decode),
               cmocka_unit_test(dictionary_gather_binary_copies_entries),
               cmocka_unit_test(delta_binary_packed_spec_example_decodes),
               cmocka_unit_test(delta_binary_packed_round_trips_with_wraparound),
               cmocka_unit_test(delta_corrupt_headers_are_rejected),
               cmocka_unit_test(delta_length_and_delta_byte_array_decode),
               cmocka_unit_test(byte_stream_split_round_trips),
               cmocka_unit_test(unpack64_handles_wide_values))
