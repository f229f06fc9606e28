/*
 * hash.c — floe_hash_bytes (see hash.h).
 *
 * Structure: the seed is first scrambled once; inputs up to 16 bytes are
 * loaded as two possibly overlapping 64-bit words (no loop, no branch on
 * every length); longer inputs are consumed 48 bytes at a time by three
 * independent lanes (so the multiplies pipeline), then 16 at a time, and
 * the final 16 bytes are read ending exactly at the last byte.  Every path
 * finishes with two folded 128-bit multiplies that mix in the length.
 * All loads are memcpy-based, so unaligned input is fine and nothing is
 * read outside [p, p+n).
 */
#include "base/hash.h"

#include <string.h>

/* Odd constants with roughly half their bits set, from the fractional
 * parts of sqrt(2), sqrt(3), sqrt(5) and the golden ratio. */
#define K0 0x6a09e667f3bcc909ull
#define K1 0xbb67ae8584caa73bull
#define K2 0x3c6ef372fe94f82bull
#define K3 0x9e3779b97f4a7c15ull

/* Multiply to 128 bits and fold the halves together. */
static inline uint64_t fold_mul(uint64_t a, uint64_t b) {
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t load32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

uint64_t floe_hash_bytes(const void *data, size_t n, uint64_t seed) {
    const uint8_t *p = data;
    uint64_t a, b;
    seed ^= fold_mul(seed ^ K0, K1);
    if (n <= 16) {
        if (n >= 4) {
            /* Two overlapping 32-bit reads from each end cover 4..16 bytes. */
            size_t mid = (n >> 3) << 2; /* 0 for n < 8, 4 for n >= 8 */
            a = (load32(p) << 32) | load32(p + mid);
            b = (load32(p + n - 4) << 32) | load32(p + n - 4 - mid);
        } else if (n > 0) {
            a = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | p[n - 1];
            b = 0;
        } else {
            a = b = 0;
        }
    } else {
        size_t left = n;
        if (left > 48) {
            uint64_t lane1 = seed, lane2 = seed;
            do {
                seed = fold_mul(load64(p) ^ K1, load64(p + 8) ^ seed);
                lane1 = fold_mul(load64(p + 16) ^ K2, load64(p + 24) ^ lane1);
                lane2 = fold_mul(load64(p + 32) ^ K3, load64(p + 40) ^ lane2);
                p += 48;
                left -= 48;
            } while (left > 48);
            seed ^= lane1 ^ lane2;
        }
        while (left > 16) {
            seed = fold_mul(load64(p) ^ K1, load64(p + 8) ^ seed);
            p += 16;
            left -= 16;
        }
        /* The last 16 bytes of the input, overlapping what was mixed. */
        a = load64(p + left - 16);
        b = load64(p + left - 8);
    }
    a ^= K1;
    b ^= seed;
    __uint128_t r = (__uint128_t)a * b;
    a = (uint64_t)r;
    b = (uint64_t)(r >> 64);
    return fold_mul(a ^ K0 ^ (uint64_t)n, b ^ K1);
}

uint64_t floe_hash_cstr(const char *s) { return floe_hash_bytes(s, strlen(s), FLOE_HASH_SEED); }
