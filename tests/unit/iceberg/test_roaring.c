/* Portable Roaring bitmaps: CRoaring / Iceberg Java fixtures decode to the
 * documented members, synthetic bitmaps cover every container kind and
 * 32-bit key boundaries, the encoder round-trips, and corrupt bytes fail
 * with an offset. */
#include "floe_test.h"

#include <stdlib.h>
#include <string.h>

#include "floe/fileio.h"
#include "floe/memory.h"
#include "iceberg/deletes/roaring.h"

#define DELETES_DIR "apache__iceberg/core/src/test/resources/org/apache/iceberg/deletes/"

static uint8_t *load(const char *dir, const char *name, size_t *len) {
    char p[4096];
    snprintf(p, sizeof p, "%s/" DELETES_DIR "%s", dir, name);
    floe_input *in;
    assert_ok(floe_input_open_local(p, &in));
    uint8_t *d;
    assert_ok(floe_input_read_all(in, &d, len));
    floe_input_close(in);
    return d;
}

static void croaring_64bit_fixtures_decode_to_documented_values(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    size_t len;
    floe_i64vec v = {0};
    uint8_t *d = load(dir, "64mapempty.bin", &len);
    assert_ok(floe_roaring64_decode(d, len, &v));
    assert_int_equal(v.n, 0);
    floe_free(d);

    d = load(dir, "64map32bitvals.bin", &len);
    assert_ok(floe_roaring64_decode(d, len, &v));
    assert_int_equal(v.n, 10);
    for (int i = 0; i < 10; i++) assert_int_equal(v.v[i], i);
    floe_free(d);
    v.n = 0;

    d = load(dir, "64mapspreadvals.bin", &len);
    assert_ok(floe_roaring64_decode(d, len, &v));
    assert_int_equal(v.n, 100);
    for (int64_t hi = 0; hi < 10; hi++)
        for (int64_t lo = 0; lo < 10; lo++) assert_int_equal(v.v[hi * 10 + lo], (hi << 32) + lo);
    floe_free(d);
    floe_i64vec_free(&v);
}

static void high_keys_beyond_int64_positions_are_rejected(void **state) {
    (void)state;
    FLOE_NEED_TESTDATA(dir);
    size_t len;
    floe_i64vec v = {0};
    uint8_t *d = load(dir, "64maphighvals.bin", &len);
    assert_error(floe_roaring64_decode(d, len, &v), FLOE_ERR_CORRUPT, "invalid unsigned key");
    floe_free(d);
    floe_i64vec_free(&v);
}

static void encoded_positions(const int64_t *pos, size_t n, floe_buf *b) {
    floe_buf_init(b);
    assert_ok(floe_roaring64_encode(pos, n, b));
}

static void round_trip(const int64_t *pos, size_t n) {
    floe_buf b;
    encoded_positions(pos, n, &b);
    floe_i64vec v = {0};
    assert_ok(floe_roaring64_decode(b.data, b.len, &v));
    assert_int_equal(v.n, n);
    if (n) assert_memory_equal(v.v, pos, n * sizeof(int64_t));
    floe_i64vec_free(&v);
    floe_buf_free(&b);
}

static void every_container_kind_round_trips_across_32bit_keys(void **state) {
    (void)state;
    size_t cap = 200000, n = 0;
    int64_t *p = floe_malloc(cap * sizeof(int64_t));
    /* array container, run container, bitmap container (alternate bits),
     * in high keys 0, 1 and 7, and the very edges of a 32-bit bitmap */
    for (int64_t hi = 0; hi < 8; hi += (hi == 1 ? 6 : 1)) {
        int64_t b = hi << 32;
        p[n++] = b + 3;
        p[n++] = b + 9;
        for (int64_t x = 65536 + 10; x < 65536 + 3000; x++) p[n++] = b + x;
        for (int64_t x = 2 * 65536; x < 3 * 65536; x += 2) p[n++] = b + x;
        p[n++] = b + 0xFFFFFFFFll;
    }
    p[n++] = ((int64_t)INT32_MAX << 32) | 5; /* the largest key positions allow */
    round_trip(p, n);
    round_trip(p, 0);
    int64_t one = 1ll << 32;
    round_trip(&one, 1);
    floe_free(p);
}

static void runs_use_the_run_cookie_and_dense_sets_use_bitmaps(void **state) {
    (void)state;
    int64_t p[5000];
    for (int i = 0; i < 5000; i++) p[i] = i;
    floe_buf b;
    encoded_positions(p, 5000, &b);
    /* 8 count + 4 key + cookie(4) + run bitset(1) + header(4) + run(2+4) */
    assert_int_equal(b.len, 8 + 4 + 4 + 1 + 4 + 6);
    assert_int_equal(b.data[12] | (b.data[13] << 8), 12347);
    floe_buf_free(&b);
    for (int i = 0; i < 5000; i++) p[i] = 2 * i;
    encoded_positions(p, 5000, &b);
    assert_int_equal(b.len, 8 + 4 + 8 + 4 + 4 + 8192);
    floe_buf_free(&b);
}

static void no_run_cookie_format_decodes(void **state) {
    (void)state;
    /* 32-bit bitmap, cookie 12346, 1 container key 2 with values {1, 4} */
    uint8_t d[] = {0x3A, 0x30, 0, 0, 1, 0, 0, 0, 2, 0, 1, 0, 24, 0, 0, 0, 1, 0, 4, 0};
    floe_i64vec v = {0};
    size_t used;
    assert_ok(floe_roaring32_decode(d, sizeof d, 3, &v, &used));
    assert_int_equal(used, sizeof d);
    assert_int_equal(v.n, 2);
    assert_int_equal(v.v[0], (3ll << 32) | (2 << 16) | 1);
    assert_int_equal(v.v[1], (3ll << 32) | (2 << 16) | 4);
    floe_i64vec_free(&v);
}

static void corrupt_bitmaps_fail_with_offsets(void **state) {
    (void)state;
    floe_i64vec v = {0};
    size_t used;
    uint8_t bad_cookie[] = {1, 2, 3, 4};
    assert_error(floe_roaring32_decode(bad_cookie, 4, 0, &v, &used), FLOE_ERR_CORRUPT, "unknown cookie");
    uint8_t trunc[] = {0x3A, 0x30, 0, 0, 1, 0, 0, 0, 2, 0, 1, 0, 24, 0, 0, 0, 1, 0};
    assert_error(floe_roaring32_decode(trunc, sizeof trunc, 0, &v, &used), FLOE_ERR_CORRUPT, "at byte 16");
    uint8_t unsorted[] = {0x3A, 0x30, 0, 0, 1, 0, 0, 0, 2, 0, 1, 0, 24, 0, 0, 0, 4, 0, 1, 0};
    assert_error(floe_roaring32_decode(unsorted, sizeof unsorted, 0, &v, &used), FLOE_ERR_CORRUPT, "not ascending");
    /* run container whose runs exceed the cardinality in the header */
    uint8_t runs[] = {0x3B, 0x30, 0, 0, 1, 0, 0, 1, 0, 1, 0, 10, 0};
    assert_error(floe_roaring32_decode(runs, sizeof runs, 0, &v, &used), FLOE_ERR_CORRUPT, "run container");
    uint8_t count[] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
    assert_error(floe_roaring64_decode(count, sizeof count, &v), FLOE_ERR_CORRUPT, "cannot fit");
    floe_buf b;
    int64_t p[3] = {1, 2, 3};
    encoded_positions(p, 3, &b);
    assert_ok(floe_buf_append_byte(&b, 0));
    assert_error(floe_roaring64_decode(b.data, b.len, &v), FLOE_ERR_CORRUPT, "trailing");
    for (size_t cut = 0; cut + 1 < b.len; cut++) {
        v.n = 0;
        floe_status st = floe_roaring64_decode(b.data, cut, &v);
        assert_int_equal(floe_status_code(st), FLOE_ERR_CORRUPT);
        floe_status_free(st);
    }
    floe_buf_free(&b);
    int64_t unsorted_pos[2] = {5, 4};
    floe_buf_init(&b);
    assert_error(floe_roaring64_encode(unsorted_pos, 2, &b), FLOE_ERR_INVALID_ARGUMENT, "ascending");
    floe_buf_free(&b);
    floe_i64vec_free(&v);
}

FLOE_TEST_MAIN(cmocka_unit_test(croaring_64bit_fixtures_decode_to_documented_values),
               cmocka_unit_test(high_keys_beyond_int64_positions_are_rejected),
               cmocka_unit_test(every_container_kind_round_trips_across_32bit_keys),
               cmocka_unit_test(runs_use_the_run_cookie_and_dense_sets_use_bitmaps),
               cmocka_unit_test(no_run_cookie_format_decodes),
               cmocka_unit_test(corrupt_bitmaps_fail_with_offsets))
