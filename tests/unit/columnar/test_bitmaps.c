/* Bitmap copy and count agree with a bit-by-bit reference for every alignment. */
#include "columnar_util.h"

static void copy_matches_reference_for_all_offsets(void **state) {
    (void)state;
    uint8_t src[32], dst[32], ref[32];
    uint32_t seed = 12345;
    for (size_t i = 0; i < sizeof src; i++) {
        seed = seed * 1103515245u + 12345u;
        src[i] = (uint8_t)(seed >> 16);
    }
    for (int so = 0; so < 16; so++)
        for (int d = 0; d < 16; d++)
            for (int len = 0; len <= 120; len += 7) {
                memset(dst, 0xa5, sizeof dst);
                memcpy(ref, dst, sizeof ref);
                floe_bitmap_copy(dst, d, src, so, len);
                for (int i = 0; i < len; i++) floe_bit_put(ref, d + i, floe_bit_get(src, so + i));
                if (memcmp(dst, ref, sizeof dst) != 0)
                    fail_msg("copy src_off %d dst_off %d len %d differs", so, d, len);
            }
}

static void count_matches_reference_for_all_offsets(void **state) {
    (void)state;
    uint8_t bits[40];
    for (size_t i = 0; i < sizeof bits; i++) bits[i] = (uint8_t)(i * 37 + 11);
    for (int off = 0; off < 20; off++)
        for (int len = 0; len <= 300; len += 13) {
            int64_t want = 0;
            for (int i = 0; i < len; i++) want += floe_bit_get(bits, off + i);
            assert_int_equal(floe_bitmap_count(bits, off, len), want);
        }
}

FLOE_TEST_MAIN(cmocka_unit_test(copy_matches_reference_for_all_offsets),
               cmocka_unit_test(count_matches_reference_for_all_offsets))
