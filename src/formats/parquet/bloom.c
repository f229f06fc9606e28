/*
 * bloom.c — Parquet split block Bloom filters (BloomFilter.md) for the
 * writer: xxHash64 of each value's PLAIN bytes, sized from the number of
 * distinct hashes and the wanted false-positive rate, serialized as the
 * BloomFilterHeader followed by the bitset.
 *
 * A filter answers "certainly absent" for values never inserted, so a
 * wrong bit here would make readers skip row groups that hold the value:
 * the layout (block choice from the hash's high half, eight salted bits
 * from its low half) follows the spec exactly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floe/memory.h"
#include "formats/parquet/writer_internal.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t rd64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint32_t rd32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t xx_round(uint64_t acc, uint64_t in) {
    acc += in * P2;
    return rotl64(acc, 31) * P1;
}

static inline uint64_t xx_merge(uint64_t acc, uint64_t v) {
    acc ^= xx_round(0, v);
    return acc * P1 + P4;
}

uint64_t pqw_xxh64(const void *data, size_t len) {
    const uint8_t *p = data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
        const uint8_t *limit = end - 32;
        do {
            v1 = xx_round(v1, rd64(p));
            v2 = xx_round(v2, rd64(p + 8));
            v3 = xx_round(v3, rd64(p + 16));
            v4 = xx_round(v4, rd64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xx_merge(h, v1);
        h = xx_merge(h, v2);
        h = xx_merge(h, v3);
        h = xx_merge(h, v4);
    } else {
        h = P5;
    }
    h += (uint64_t)len;
    while (p + 8 <= end) {
        h ^= xx_round(0, rd64(p));
        h = rotl64(h, 27) * P1 + P4;
        p += 8;
    }
    if (p + 4 <= end) {
        h ^= (uint64_t)rd32(p) * P1;
        h = rotl64(h, 23) * P2 + P3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)*p * P5;
        h = rotl64(h, 11) * P1;
        p++;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

static const uint32_t SALT[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

void pqw_bloom_insert(uint32_t *words, uint32_t n_blocks, uint64_t h) {
    uint32_t block = (uint32_t)(((h >> 32) * (uint64_t)n_blocks) >> 32);
    uint32_t key = (uint32_t)h;
    uint32_t *b = words + (size_t)block * 8;
    for (int i = 0; i < 8; i++) b[i] |= 1u << ((key * SALT[i]) >> 27);
}

bool pqw_bloom_check(const uint32_t *words, uint32_t n_blocks, uint64_t h) {
    uint32_t block = (uint32_t)(((h >> 32) * (uint64_t)n_blocks) >> 32);
    uint32_t key = (uint32_t)h;
    const uint32_t *b = words + (size_t)block * 8;
    for (int i = 0; i < 8; i++)
        if (!(b[i] & (1u << ((key * SALT[i]) >> 27)))) return false;
    return true;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Bitset bytes for `ndv` distinct values at false-positive rate fpp: the
 * spec's sizing for an SBBF, rounded up to a power of two, 32 ..
 * max_bytes. */
static uint32_t filter_bytes(uint64_t ndv, double fpp, int64_t max_bytes) {
    double bits = -8.0 * (double)ndv / log(1.0 - pow(fpp, 1.0 / 8.0));
    uint64_t want = (uint64_t)(bits / 8.0) + 1, bytes = 32;
    while (bytes < want && bytes < (uint64_t)max_bytes) bytes <<= 1;
    if (bytes > (uint64_t)max_bytes) bytes >>= 1;
    return bytes < 32 ? 32 : (uint32_t)bytes;
}

floe_status pqw_bloom_build(uint64_t *hashes, size_t n, double fpp, int64_t max_bytes,
                            floe_buf *out) {
    floe_buf_clear(out);
    qsort(hashes, n, sizeof *hashes, cmp_u64);
    size_t ndv = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || hashes[i] != hashes[i - 1]) hashes[ndv++] = hashes[i];
    if (fpp <= 0 || fpp >= 1) fpp = 0.01;
    if (max_bytes < 32) max_bytes = 32;
    if (max_bytes > (1 << 27)) max_bytes = 1 << 27;
    uint32_t bytes = filter_bytes(ndv, fpp, max_bytes);
    floe_pq_bloom_filter_header hdr = {(int32_t)bytes, 1, 1, 1};
    FLOE_TRY(floe_pq_encode_bloom_filter_header(&hdr, out));
    size_t at = out->len;
    uint8_t *bits = floe_buf_extend(out, bytes);
    if (!bits) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building a Bloom filter");
    memset(bits, 0, bytes);
    uint32_t *words = floe_malloc(bytes);
    if (!words) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory building a Bloom filter");
    memset(words, 0, bytes);
    uint32_t n_blocks = bytes / 32;
    for (size_t i = 0; i < ndv; i++) pqw_bloom_insert(words, n_blocks, hashes[i]);
    memcpy(out->data + at, words, bytes); /* little-endian words, as the spec stores them */
    floe_free(words);
    return NULL;
}
