/* The block codecs: round trips, multi-member/multi-frame inputs, Hadoop LZ4
 * framing, and corrupt, truncated or wrongly sized inputs reported as such. */
#include "floe_test.h"

#include <zlib.h>
#include <zstd.h>
#include <lz4.h>

#include "floe/memory.h"
#include "formats/compress.h"

static const floe_codec all_codecs[] = {
    FLOE_CODEC_NONE, FLOE_CODEC_SNAPPY, FLOE_CODEC_GZIP, FLOE_CODEC_DEFLATE,
    FLOE_CODEC_ZSTD, FLOE_CODEC_LZ4_HADOOP, FLOE_CODEC_LZ4_RAW, FLOE_CODEC_BROTLI,
};
#define NCODECS (sizeof all_codecs / sizeof all_codecs[0])

static uint8_t *make_text(size_t n) {
    static const char *words[] = {"iceberg ", "parquet ", "snapshot ", "manifest ", "floe "};
    uint8_t *p = floe_malloc(n);
    size_t i = 0, w = 0;
    while (i < n) {
        const char *s = words[w++ % 5];
        for (; *s && i < n; s++) p[i++] = (uint8_t)*s;
    }
    return p;
}

static uint8_t *make_random(size_t n) {
    uint8_t *p = floe_malloc(n);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (uint8_t)x;
    }
    return p;
}

static void round_trip(floe_codec c, const uint8_t *data, size_t n) {
    floe_buf z = FLOE_BUF_INIT;
    assert_ok(floe_compress(c, 0, data, n, &z));
    assert_true(z.len <= floe_compress_bound(c, n) || c == FLOE_CODEC_NONE);
    /* exact */
    uint8_t *back = floe_malloc(n ? n : 1);
    assert_ok(floe_decompress_exact(c, z.data, z.len, back, n));
    assert_memory_equal(back, data, n);
    /* grow, appending after existing bytes */
    floe_buf g = FLOE_BUF_INIT;
    assert_ok(floe_buf_append(&g, "xy", 2));
    assert_ok(floe_decompress_grow(c, z.data, z.len, &g));
    assert_int_equal(g.len, n + 2);
    assert_memory_equal(g.data + 2, data, n);
    floe_free(back);
    floe_buf_free(&g);
    floe_buf_free(&z);
}

static void every_codec_round_trips_text_and_random_data(void **state) {
    (void)state;
    size_t sizes[] = {0, 1, 100, 70000, 300000};
    for (size_t k = 0; k < NCODECS; k++) {
        for (size_t i = 0; i < 5; i++) {
            uint8_t *t = make_text(sizes[i]);
            uint8_t *r = make_random(sizes[i]);
            if (sizes[i] == 0 && all_codecs[k] == FLOE_CODEC_LZ4_HADOOP) {
                /* An empty hadoop block is only its 8-byte header. */
            }
            round_trip(all_codecs[k], t, sizes[i]);
            round_trip(all_codecs[k], r, sizes[i]);
            floe_free(t);
            floe_free(r);
        }
    }
}

static void compression_levels_are_honoured(void **state) {
    (void)state;
    uint8_t *t = make_text(100000);
    floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
    assert_ok(floe_compress(FLOE_CODEC_ZSTD, 1, t, 100000, &a));
    assert_ok(floe_compress(FLOE_CODEC_ZSTD, 19, t, 100000, &b));
    assert_true(b.len <= a.len);
    uint8_t *back = floe_malloc(100000);
    assert_ok(floe_decompress_exact(FLOE_CODEC_ZSTD, b.data, b.len, back, 100000));
    assert_memory_equal(back, t, 100000);
    floe_buf_clear(&a);
    assert_error(floe_compress(FLOE_CODEC_GZIP, 42, t, 10, &a), FLOE_ERR_INVALID_ARGUMENT, "level");
    floe_free(back);
    floe_free(t);
    floe_buf_free(&a);
    floe_buf_free(&b);
}

static void concatenated_gzip_members_decode_as_one(void **state) {
    (void)state;
    floe_buf z = FLOE_BUF_INIT;
    assert_ok(floe_compress(FLOE_CODEC_GZIP, 0, (const uint8_t *)"hello ", 6, &z));
    assert_ok(floe_compress(FLOE_CODEC_GZIP, 9, (const uint8_t *)"world", 5, &z));
    uint8_t out[11];
    assert_ok(floe_decompress_exact(FLOE_CODEC_GZIP, z.data, z.len, out, 11));
    assert_memory_equal(out, "hello world", 11);
    floe_buf g = FLOE_BUF_INIT;
    assert_ok(floe_decompress_grow(FLOE_CODEC_GZIP, z.data, z.len, &g));
    assert_string_equal(floe_buf_cstr(&g), "hello world");
    floe_buf_free(&g);
    floe_buf_free(&z);
}

static void concatenated_zstd_frames_and_unknown_size_decode(void **state) {
    (void)state;
    floe_buf z = FLOE_BUF_INIT;
    assert_ok(floe_compress(FLOE_CODEC_ZSTD, 0, (const uint8_t *)"frame one|", 10, &z));
    /* A streaming frame does not record its content size. */
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_inBuffer in = {"frame two", 9, 0};
    uint8_t tmp[256];
    ZSTD_outBuffer ob = {tmp, sizeof tmp, 0};
    assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &ob, &in, ZSTD_e_continue)));
    assert_int_equal(ZSTD_compressStream2(cc, &ob, &in, ZSTD_e_end), 0);
    ZSTD_freeCCtx(cc);
    assert_int_equal(ZSTD_getFrameContentSize(tmp, ob.pos), ZSTD_CONTENTSIZE_UNKNOWN);
    assert_ok(floe_buf_append(&z, tmp, ob.pos));
    uint8_t out[19];
    assert_ok(floe_decompress_exact(FLOE_CODEC_ZSTD, z.data, z.len, out, 19));
    assert_memory_equal(out, "frame one|frame two", 19);
    floe_buf g = FLOE_BUF_INIT;
    assert_ok(floe_decompress_grow(FLOE_CODEC_ZSTD, z.data, z.len, &g));
    assert_string_equal(floe_buf_cstr(&g), "frame one|frame two");
    floe_buf_free(&g);
    floe_buf_free(&z);
}

static void hadoop_framed_lz4_with_several_blocks_decodes(void **state) {
    (void)state;
    uint8_t *t = make_text(5000);
    floe_buf z = FLOE_BUF_INIT;
    /* Two hadoop blocks: 3000 + 2000 bytes. */
    size_t parts[2][2] = {{0, 3000}, {3000, 2000}};
    for (int i = 0; i < 2; i++) {
        char blk[8192];
        int n = LZ4_compress_default((const char *)t + parts[i][0], blk, (int)parts[i][1], sizeof blk);
        assert_true(n > 0);
        uint32_t u = (uint32_t)parts[i][1], k = (uint32_t)n;
        uint8_t h[8] = {u >> 24, u >> 16, u >> 8, u, k >> 24, k >> 16, k >> 8, k};
        assert_ok(floe_buf_append(&z, h, 8));
        assert_ok(floe_buf_append(&z, blk, (size_t)n));
    }
    uint8_t *out = floe_malloc(5000);
    assert_ok(floe_decompress_exact(FLOE_CODEC_LZ4_HADOOP, z.data, z.len, out, 5000));
    assert_memory_equal(out, t, 5000);
    floe_buf g = FLOE_BUF_INIT;
    assert_ok(floe_decompress_grow(FLOE_CODEC_LZ4_HADOOP, z.data, z.len, &g));
    assert_int_equal(g.len, 5000);
    /* A bare raw block under the legacy codec falls back to raw decoding. */
    floe_buf r = FLOE_BUF_INIT;
    assert_ok(floe_compress(FLOE_CODEC_LZ4_RAW, 0, t, 5000, &r));
    assert_ok(floe_decompress_exact(FLOE_CODEC_LZ4_HADOOP, r.data, r.len, out, 5000));
    assert_memory_equal(out, t, 5000);
    floe_free(out);
    floe_free(t);
    floe_buf_free(&g);
    floe_buf_free(&r);
    floe_buf_free(&z);
}

static void corrupt_and_truncated_inputs_are_errors_naming_the_codec(void **state) {
    (void)state;
    uint8_t *t = make_text(20000);
    uint8_t *out = floe_malloc(20000);
    for (size_t k = 0; k < NCODECS; k++) {
        floe_codec c = all_codecs[k];
        if (c == FLOE_CODEC_NONE) continue;
        floe_buf z = FLOE_BUF_INIT;
        assert_ok(floe_compress(c, 0, t, 20000, &z));
        /* truncated */
        floe_status st = floe_decompress_exact(c, z.data, z.len / 2, out, 20000);
        assert_non_null(st);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
        assert_non_null(strstr(floe_status_message(st), floe_codec_name(c)));
        floe_status_free(st);
        floe_buf g = FLOE_BUF_INIT;
        st = floe_decompress_grow(c, z.data, z.len / 2, &g);
        assert_non_null(st);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
        assert_int_equal(g.len, 0);
        floe_status_free(st);
        /* garbage: every byte flipped; must error or (never) crash */
        for (size_t i = 0; i < z.len; i++) z.data[i] ^= 0x5a;
        st = floe_decompress_exact(c, z.data, z.len, out, 20000);
        assert_non_null(st);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
        floe_status_free(st);
        st = floe_decompress_grow(c, z.data, z.len, &g);
        if (st) floe_status_free(st);
        floe_buf_free(&g);
        floe_buf_free(&z);
    }
    floe_free(out);
    floe_free(t);
}

static void exact_size_mismatch_is_detected(void **state) {
    (void)state;
    uint8_t *t = make_text(10000);
    uint8_t *out = floe_malloc(10001);
    for (size_t k = 0; k < NCODECS; k++) {
        floe_codec c = all_codecs[k];
        floe_buf z = FLOE_BUF_INIT;
        assert_ok(floe_compress(c, 0, t, 10000, &z));
        assert_error(floe_decompress_exact(c, z.data, z.len, out, 9999), FLOE_ERR_CORRUPT,
                     floe_codec_name(c));
        assert_error(floe_decompress_exact(c, z.data, z.len, out, 10001), FLOE_ERR_CORRUPT,
                     floe_codec_name(c));
        floe_buf_free(&z);
    }
    floe_free(out);
    floe_free(t);
}

static void empty_input_is_corrupt_for_framed_codecs(void **state) {
    (void)state;
    uint8_t out[4];
    assert_error(floe_decompress_exact(FLOE_CODEC_ZSTD, NULL, 0, out, 4), FLOE_ERR_CORRUPT, "zstd");
    assert_error(floe_decompress_exact(FLOE_CODEC_GZIP, NULL, 0, out, 4), FLOE_ERR_CORRUPT, "gzip");
    assert_error(floe_decompress_exact(FLOE_CODEC_SNAPPY, NULL, 0, out, 4), FLOE_ERR_CORRUPT, "snappy");
    assert_ok(floe_decompress_exact(FLOE_CODEC_NONE, NULL, 0, out, 0));
}

FLOE_TEST_MAIN(cmocka_unit_test(every_codec_round_trips_text_and_random_data),
               cmocka_unit_test(compression_levels_are_honoured),
               cmocka_unit_test(concatenated_gzip_members_decode_as_one),
               cmocka_unit_test(concatenated_zstd_frames_and_unknown_size_decode),
               cmocka_unit_test(hadoop_framed_lz4_with_several_blocks_decodes),
               cmocka_unit_test(corrupt_and_truncated_inputs_are_errors_naming_the_codec),
               cmocka_unit_test(exact_size_mismatch_is_detected),
               cmocka_unit_test(empty_input_is_corrupt_for_framed_codecs))
