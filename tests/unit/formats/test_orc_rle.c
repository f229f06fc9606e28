/* ORC's encodings one by one: the specification's examples for byte,
 * boolean and integer RLE v1/v2 (all four sub-encodings), bit unpacking at
 * every width, varints up to 128 bits, truncated runs as errors, the
 * protobuf primitives, and time zone offsets past the tzdata table. */
#include "floe_test.h"

#include <sys/stat.h>

#include "formats/orc/orc_meta.h"
#include "formats/orc/proto.h"
#include "formats/orc/reader.h"
#include "formats/orc/rle.h"
#include "base/tz.h"

static void read_ints(const uint8_t *d, size_t n, bool v2, bool sign, int64_t *out, size_t k) {
    floe_orc_int_rle r;
    floe_orc_int_rle_init(&r, d, n, v2, sign);
    assert_ok(floe_orc_int_rle_read(&r, out, k));
    assert_true(r.p == d + n); /* consumed exactly */
}

static void test_rle_v2_spec_examples(void **state) {
    (void)state;
    int64_t v[32];
    const uint8_t sr[] = {0x0a, 0x27, 0x10};
    read_ints(sr, sizeof sr, true, false, v, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(v[i], 10000);
    const uint8_t direct[] = {0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef};
    read_ints(direct, sizeof direct, true, false, v, 4);
    assert_int_equal(v[0], 23713);
    assert_int_equal(v[1], 43806);
    assert_int_equal(v[2], 57005);
    assert_int_equal(v[3], 48879);
    const uint8_t patched[] = {0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70,
                               0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82,
                               0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8};
    read_ints(patched, sizeof patched, true, false, v, 20);
    const int64_t want_p[] = {2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090,
                              2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170, 2180, 2190};
    for (int i = 0; i < 20; i++) assert_int_equal(v[i], want_p[i]);
    const uint8_t delta[] = {0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46};
    read_ints(delta, sizeof delta, true, false, v, 10);
    const int64_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};
    for (int i = 0; i < 10; i++) assert_int_equal(v[i], primes[i]);
    /* signed short repeat: zigzag 3 -> -2 */
    const uint8_t neg[] = {0x00, 0x03};
    read_ints(neg, sizeof neg, true, true, v, 3);
    for (int i = 0; i < 3; i++) assert_int_equal(v[i], -2);
    /* several runs back to back, read across run boundaries */
    uint8_t two[sizeof sr + sizeof delta];
    memcpy(two, sr, sizeof sr);
    memcpy(two + sizeof sr, delta, sizeof delta);
    floe_orc_int_rle r;
    floe_orc_int_rle_init(&r, two, sizeof two, true, false);
    assert_ok(floe_orc_int_rle_read(&r, v, 3));
    assert_ok(floe_orc_int_rle_skip(&r, 3));
    assert_ok(floe_orc_int_rle_read(&r, v, 9));
    assert_int_equal(v[0], 3);
    assert_int_equal(v[8], 29);
    assert_error(floe_orc_int_rle_read(&r, v, 1), FLOE_ERR_CORRUPT, "ends after 15 values");
}

static void test_rle_v2_corrupt(void **state) {
    (void)state;
    int64_t v[600];
    floe_orc_int_rle r;
    const uint8_t direct[] = {0x5e, 0x03, 0x5c, 0xa1, 0xab};
    floe_orc_int_rle_init(&r, direct, sizeof direct, true, false);
    assert_error(floe_orc_int_rle_read(&r, v, 4), FLOE_ERR_CORRUPT, "truncated DIRECT run");
    /* a patch gap past the run */
    /* PATCHED_BASE of 2 values, 8-bit, one patch (gap 2 bits, patch 8 bits)
     * whose gap 3 points past the run */
    const uint8_t patched[] = {0x8e, 0x01, 0x07, 0x21, 0x00, 0x01, 0x02, 0xc0, 0x40};
    floe_orc_int_rle_init(&r, patched, sizeof patched, true, false);
    assert_error(floe_orc_int_rle_read(&r, v, 2), FLOE_ERR_CORRUPT, "patch past the end");
    const uint8_t delta[] = {0xc6, 0x09, 0x02};
    floe_orc_int_rle_init(&r, delta, sizeof delta, true, false);
    assert_error(floe_orc_int_rle_read(&r, v, 10), FLOE_ERR_CORRUPT, "DELTA");
}

/* Pack n values of `w` bits big-endian, as ORC writers do. */
static size_t pack_be(const uint64_t *v, int n, int w, uint8_t *out) {
    size_t bits = 0;
    memset(out, 0, ((size_t)n * (size_t)w + 7) / 8 + 8);
    for (int i = 0; i < n; i++)
        for (int b = w - 1; b >= 0; b--, bits++)
            if ((v[i] >> b) & 1) out[bits / 8] |= (uint8_t)(0x80 >> (bits % 8));
    return (bits + 7) / 8;
}

static void test_unpack_every_width(void **state) {
    (void)state;
    uint64_t seed = 88172645463325252ull;
    uint64_t v[100];
    uint8_t buf[900];
    int64_t out[100];
    static const int widths[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                 17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64};
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++) {
        int w = widths[wi];
        for (int n = 1; n <= 100; n += 33) {
            for (int i = 0; i < n; i++) {
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                v[i] = w == 64 ? seed : seed & ((1ull << w) - 1);
            }
            pack_be(v, n, w, buf);
            floe_orc_unpack_be(buf, w, n, out);
            for (int i = 0; i < n; i++)
                if ((uint64_t)out[i] != v[i]) fail_msg("width %d n %d value %d", w, n, i);
        }
    }
}

static void test_rle_v1_byte_bool(void **state) {
    (void)state;
    int64_t v[100];
    const uint8_t run[] = {0x61, 0x00, 0x07};
    read_ints(run, sizeof run, false, false, v, 100);
    assert_int_equal(v[99], 7);
    const uint8_t down[] = {0x61, 0xff, 0x64};
    read_ints(down, sizeof down, false, false, v, 100);
    assert_int_equal(v[0], 100);
    assert_int_equal(v[99], 1);
    const uint8_t lit[] = {0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b};
    read_ints(lit, sizeof lit, false, false, v, 5);
    assert_int_equal(v[4], 11);
    const uint8_t lit_signed[] = {0xfe, 0x03, 0x04}; /* zigzag: -2, 2 */
    read_ints(lit_signed, sizeof lit_signed, false, true, v, 2);
    assert_int_equal(v[0], -2);
    assert_int_equal(v[1], 2);

    uint8_t b[100];
    floe_orc_byte_rle br;
    const uint8_t zeros[] = {0x61, 0x00};
    floe_orc_byte_rle_init(&br, zeros, sizeof zeros);
    assert_ok(floe_orc_byte_rle_read(&br, b, 100));
    assert_int_equal(b[99], 0);
    assert_error(floe_orc_byte_rle_read(&br, b, 1), FLOE_ERR_CORRUPT, "ends after 100");
    const uint8_t two[] = {0xfe, 0x44, 0x45};
    floe_orc_byte_rle_init(&br, two, sizeof two);
    assert_ok(floe_orc_byte_rle_read(&br, b, 2));
    assert_int_equal(b[1], 0x45);

    const uint8_t bools[] = {0xff, 0x80};
    floe_orc_bool_rle bl;
    floe_orc_bool_rle_init(&bl, bools, sizeof bools);
    uint8_t bits[2] = {0xff, 0xff};
    assert_ok(floe_orc_bool_rle_read(&bl, bits, 3, 8)); /* at an unaligned bit offset */
    assert_int_equal(bits[0], 0x0f);                    /* bits 0-2 kept, bit 3 true, 4-7 false */
    assert_int_equal(bits[1], 0xf8);
    /* 8 x 0xaa via a run, read as 5 + 59 bits */
    const uint8_t alt[] = {0x05, 0xaa};
    floe_orc_bool_rle_init(&bl, alt, sizeof alt);
    uint8_t out[8] = {0};
    assert_ok(floe_orc_bool_rle_read(&bl, out, 0, 5));
    assert_ok(floe_orc_bool_rle_skip(&bl, 3));
    assert_ok(floe_orc_bool_rle_read(&bl, out + 1, 0, 56));
    assert_int_equal(out[0] & 0x1f, 0x15); /* 1,0,1,0,1 LSB first */
    assert_int_equal(out[1], 0x55);
}

static void test_varints(void **state) {
    (void)state;
    const uint8_t d[] = {0x80, 0x80, 0x01};
    const uint8_t *p = d;
    uint64_t u;
    assert_true(floe_orc_read_uvarint(&p, d + 3, &u));
    assert_int_equal(u, 16384);
    p = d;
    assert_false(floe_orc_read_uvarint(&p, d + 2, &u)); /* truncated */
    /* 2^100 - 1 zigzagged is 2^101 - 2: the 128-bit decimal varint */
    uint8_t big[20];
    unsigned __int128 z = ((unsigned __int128)1 << 101) - 2;
    int n = 0;
    do {
        big[n++] = (uint8_t)((z & 0x7f) | (z >> 7 ? 0x80 : 0));
        z >>= 7;
    } while (z);
    p = big;
    __int128 x;
    assert_true(floe_orc_read_varint128(&p, big + n, &x));
    assert_true(x == (((__int128)1 << 100) - 1));
    uint8_t over[20];
    memset(over, 0xff, 19);
    over[19] = 0x01;
    p = over;
    assert_false(floe_orc_read_varint128(&p, over + 20, &x));
}

static void test_protobuf(void **state) {
    (void)state;
    /* PostScript: footerLength=300, compression=ZLIB, blockSize=262144,
     * version=[0,12] packed, unknown field 99 (string), magic "ORC" */
    const uint8_t ps[] = {0x08, 0xac, 0x02, 0x10, 0x01, 0x18, 0x80, 0x80, 0x10, 0x22, 0x02, 0x00,
                          0x0c, 0x9a, 0x06, 0x01, 0x78, 0x82, 0xf4, 0x03, 0x03, 'O', 'R', 'C'};
    floe_orc_postscript p;
    assert_ok(floe_orc_decode_postscript(ps, sizeof ps, &p));
    assert_int_equal(p.footer_length, 300);
    assert_int_equal(p.compression, FLOE_ORC_COMP_ZLIB);
    assert_int_equal(p.block_size, 262144);
    assert_int_equal(p.num_version, 2);
    assert_int_equal(p.version[1], 12);
    assert_true(p.has_magic);
    assert_error(floe_orc_decode_postscript(ps, sizeof ps - 1, &p), FLOE_ERR_CORRUPT, "PostScript");
    const uint8_t badmagic[] = {0x82, 0xf4, 0x03, 0x03, 'O', 'R', 'X'};
    assert_error(floe_orc_decode_postscript(badmagic, sizeof badmagic, &p), FLOE_ERR_CORRUPT, "magic");
    const uint8_t group[] = {0x0b};
    assert_error(floe_orc_decode_postscript(group, sizeof group, &p), FLOE_ERR_CORRUPT, "PostScript");
    assert_int_equal(floe_orc_pb_count(ps, sizeof ps, 4, true), 2);
}

static void test_time_zones(void **state) {
    (void)state;
    struct stat sb;
    if (stat("/usr/share/zoneinfo/America/Los_Angeles", &sb) != 0) skip();
    floe_tz *tz;
    assert_ok(floe_tz_load("America/Los_Angeles", &tz));
    int64_t d = floe_tz_days_from_civil(2038, 5, 5) * 86400 + 12 * 3600;
    assert_int_equal(floe_tz_offset(tz, d), -7 * 3600); /* PDT past 2037, from the rule */
    d = floe_tz_days_from_civil(2038, 12, 25) * 86400;
    assert_int_equal(floe_tz_offset(tz, d), -8 * 3600);
    d = floe_tz_days_from_civil(1990, 7, 1) * 86400;
    assert_int_equal(floe_tz_offset(tz, d), -7 * 3600); /* from the table */
    floe_tz_free(tz);
    assert_ok(floe_tz_load("UTC", &tz));
    assert_true(floe_tz_is_utc(tz));
    floe_tz_free(tz);
    assert_error(floe_tz_load("../etc/passwd", &tz), FLOE_ERR_NOT_FOUND, "unknown time zone");
    assert_error(floe_tz_load("Mars/Olympus", &tz), FLOE_ERR_NOT_FOUND, "Mars/Olympus");
}

/* The hashes and bit positions ORC's own Java and C++ tests pin down
 * (TestBloomFilter#testLongHash, #testBasicOperations, TestMurmur3). */
static void test_bloom_hashes(void **state) {
    (void)state;
    assert_int_equal((int64_t)floe_orc_bloom_hash_long(0), 0);
    assert_int_equal((int64_t)floe_orc_bloom_hash_long((uint64_t)-1), 6614246905173314819LL);
    assert_int_equal((int64_t)floe_orc_bloom_hash_long((uint64_t)-2), -5218250166726157773LL);
    assert_int_equal((int64_t)floe_orc_bloom_hash_long(790302201), 1499534499340523007LL);
    assert_int_equal((int64_t)floe_orc_bloom_hash_long(18000000000LL), -1097054448615658549LL);
    assert_int_equal((int64_t)floe_orc_bloom_hash_long((uint64_t)-9223372036854775807LL),
                     -9102499068535824902LL);
    const char *text = "It was the best of times, it was the worst of times,"
                       " it was the age of wisdom, it was the age of foolishness,"
                       " it was the epoch of belief, it was the epoch of incredulity,"
                       " it was the season of Light, it was the season of Darkness,"
                       " it was the spring of hope, it was the winter of despair,"
                       " we had everything before us, we had nothing before us,"
                       " we were all going direct to Heaven,"
                       " we were all going direct the other way.";
    assert_int_equal(floe_orc_bloom_hash_bytes((const uint8_t *)text, strlen(text)), 305830725663368540ULL);

    /* a filter for 128 entries at fpp 0.05: 832 bits, 5 hash functions;
     * adding 1 sets bits 567, 288, 246, 306, 228, adding 1.1 sets 522, 692,
     * 12, 370, 753 */
    uint64_t words[13] = {0};
    const int ones[] = {567, 288, 246, 306, 228}, dbl[] = {522, 692, 12, 370, 753};
    for (int i = 0; i < 5; i++) words[ones[i] / 64] |= 1ull << (ones[i] % 64);
    for (int i = 0; i < 5; i++) words[dbl[i] / 64] |= 1ull << (dbl[i] % 64);
    floe_orc_bloom_filter bf = {.usable = true, .num_hash_functions = 5, .bitset = words, .num_words = 13};
    floe_orc_column icol = {.kind = FLOE_ORC_LONG}, dcol = {.kind = FLOE_ORC_DOUBLE};
    floe_orc_column scol = {.kind = FLOE_ORC_STRING};
    floe_orc_value v = {.kind = FLOE_ORC_VAL_INT, .i = 1};
    floe_orc_predicate p = {.op = FLOE_ORC_OP_EQ, .values = &v, .num_values = 1};
    assert_true(floe_orc_bloom_may_match(&icol, &bf, true, &p));
    v.i = 11; /* 228, 285, 342, 399, 456: only 228 set */
    assert_false(floe_orc_bloom_may_match(&icol, &bf, true, &p));
    floe_orc_value two[2] = {{.kind = FLOE_ORC_VAL_INT, .i = 11}, {.kind = FLOE_ORC_VAL_INT, .i = 1}};
    floe_orc_predicate in = {.op = FLOE_ORC_OP_IN, .values = two, .num_values = 2};
    assert_true(floe_orc_bloom_may_match(&icol, &bf, true, &in));
    floe_orc_value d = {.kind = FLOE_ORC_VAL_DOUBLE, .d = 1.1};
    p.values = &d;
    assert_true(floe_orc_bloom_may_match(&dcol, &bf, true, &p));
    d.d = 11.11;
    assert_false(floe_orc_bloom_may_match(&dcol, &bf, true, &p));
    d.d = 0.0; /* -0.0 hashes apart: never ruled out */
    assert_true(floe_orc_bloom_may_match(&dcol, &bf, true, &p));
    /* strings only through UTF-8 filters; anything through unusable ones */
    floe_orc_value sv = {.kind = FLOE_ORC_VAL_BYTES, .bytes = (const uint8_t *)"x", .len = 1};
    p.values = &sv;
    assert_true(floe_orc_bloom_may_match(&scol, &bf, false, &p));
    v.i = 11;
    p.values = &v;
    bf.usable = false;
    assert_true(floe_orc_bloom_may_match(&icol, &bf, true, &p));
    p.op = FLOE_ORC_OP_LT;
    bf.usable = true;
    assert_true(floe_orc_bloom_may_match(&icol, &bf, true, &p));
}

FLOE_TEST_MAIN(cmocka_unit_test(test_bloom_hashes), cmocka_unit_test(test_rle_v2_spec_examples), cmocka_unit_test(test_rle_v2_corrupt),
               cmocka_unit_test(test_unpack_every_width), cmocka_unit_test(test_rle_v1_byte_bool),
               cmocka_unit_test(test_varints), cmocka_unit_test(test_protobuf),
               cmocka_unit_test(test_time_zones))
