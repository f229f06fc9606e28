/*
 * tpch_text.h — random numbers and strings for the TPC-H generator:
 * a counter-based random stream per (column group, row key), the text pool
 * that comments are cut from (the grammar of spec clause 4.2.2.14), and
 * the spec's random v-strings (4.2.2.7) and phone numbers (4.2.2.9).
 *
 * Why counter-based: dbgen gives every column its own linear-congruential
 * stream and skips ahead to a row's first seed so that any chunk of a
 * table can be generated on its own.  Seeding a small stream from a hash
 * of (stream id, row key) gives the same property with no skip-ahead
 * arithmetic at all: a row's values depend on its key alone, so a table
 * comes out identical whatever the number of partitions generating it.
 *
 * Internal to src/exec.
 */
#ifndef FLOE_EXEC_TPCH_TEXT_H
#define FLOE_EXEC_TPCH_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "exec/tpch/tpch_dists.h"
#include "floe/status.h"

/* A small random stream (SplitMix64 over a seeded counter). */
typedef struct tpch_rng {
    uint64_t s;
} tpch_rng;

static inline uint64_t tpch_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The stream of row `key` of column group `stream`. */
static inline void tpch_rng_seed(tpch_rng *r, uint64_t stream, uint64_t key) {
    r->s = tpch_mix64(tpch_mix64(stream * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL) ^ key);
}

static inline uint64_t tpch_rng_next(tpch_rng *r) {
    r->s += 0x9e3779b97f4a7c15ULL;
    return tpch_mix64(r->s);
}

/* Uniform in [lo, hi] (lo <= hi), by the multiply-shift reduction. */
static inline int64_t tpch_rng_range(tpch_rng *r, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(((unsigned __int128)tpch_rng_next(r) * span) >> 64);
}

/* A word of a weighted list: uniform in [1, total], the first word whose
 * running weight reaches it. */
const char *tpch_pick(const tpch_dist *d, tpch_rng *r);

/* The text pool: TPCH_TEXT_POOL_SIZE bytes of sentences from the grammar,
 * built once per process from a fixed seed (thread-safe, immutable after;
 * charged to the root memory tracker).  A comment of spec length [lo, hi]
 * is a substring of it at a random offset (4.2.2.10). */
#define TPCH_TEXT_POOL_SIZE (16 * 1024 * 1024)
floe_status tpch_text_pool(const char **pool) FLOE_WARN_UNUSED;

/* Build `size` bytes of grammar text from `seed` into `out` (used by the
 * pool; exposed for tests). */
void tpch_text_fill(char *out, size_t size, uint64_t seed);

/* Where a comment of length [lo, hi] starts in the pool and its length. */
static inline void tpch_text_pick(tpch_rng *r, int32_t lo, int32_t hi, int64_t *offset, int32_t *len) {
    *len = (int32_t)tpch_rng_range(r, lo, hi);
    *offset = tpch_rng_range(r, 0, TPCH_TEXT_POOL_SIZE - hi);
}

/* A random v-string of length [lo, hi] (at most 64 bytes) into out;
 * returns its length.  Characters from a 64-symbol alphabet. */
int32_t tpch_vstring(tpch_rng *r, int32_t lo, int32_t hi, char *out);

/* A phone number for nation `nation` (0..24): "CC-LLL-LLL-LLLL" with
 * CC = nation + 10 (15 bytes, no terminator). */
void tpch_phone(tpch_rng *r, int64_t nation, char out[15]);

/* `prefix` followed by `v` with at least 9 digits, leading zeros
 * ("Supplier#000000042"); returns the length. */
int32_t tpch_keyed_name(const char *prefix, int64_t v, char *out);

#endif
