/*
 * hash.h — fast 64-bit non-cryptographic hashing for hash tables, hash
 * joins, aggregation and repartitioning.
 *
 * floe_hash_bytes follows the "multiply-and-fold" design popularised by
 * wyhash: input words are xored with odd constants and multiplied into a
 * 128-bit product whose halves are folded together.  It is fast for short
 * keys (one or two multiplies) and streams three independent lanes for long
 * ones.  NOT suitable against adversarial inputs or for anything security
 * related.  Results are stable across runs and platforms of the same
 * endianness (floe only targets little-endian), so they may be used to
 * partition data between processes, but never persisted.
 */
#ifndef FLOE_BASE_HASH_H
#define FLOE_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Default seed used by the engine's hash tables. */
#define FLOE_HASH_SEED 0x2d358dccaa6c78a5ull

/* Hash `n` bytes at `p` (p may be NULL when n == 0) with a seed. */
uint64_t floe_hash_bytes(const void *p, size_t n, uint64_t seed);

/* Hash a NUL-terminated string with FLOE_HASH_SEED. */
uint64_t floe_hash_cstr(const char *s);

/* Bijective mixer of one 64-bit value: all input bits affect all output
 * bits, and distinct inputs give distinct outputs. */
static inline uint64_t floe_hash_u64(uint64_t x) {
    /* The splitmix64 finaliser, offset so that 0 does not map to 0. */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Combine a running hash with the hash of the next component (multi-column
 * keys).  Order-dependent: combine(combine(s, a), b) != combine(combine(s, b), a). */
static inline uint64_t floe_hash_combine(uint64_t h, uint64_t v) {
    return floe_hash_u64(h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)));
}

#endif
