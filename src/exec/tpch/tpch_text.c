/*
 * tpch_text.c — the TPC-H text pool and string helpers (see tpch_text.h).
 *
 * The pool follows clause 4.2.2.14: sentences picked from five weighted
 * templates (noun phrase, verb phrase, prepositional phrase, terminator),
 * each phrase from its own weighted template, each word from the weighted
 * lists of tpch_dists.c; a terminator follows its last word directly and
 * sentences are separated by one space.  The spec's pool is 300 MB; ours
 * is TPCH_TEXT_POOL_SIZE (16 MiB), built once per process in a fraction
 * of a second.  Comments are substrings at random offsets either way, with
 * the same word frequencies; only how often one exact substring recurs
 * differs, which no query depends on.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "exec/tpch/tpch_text.h"
#include "floe/memory.h"

const char *tpch_pick(const tpch_dist *d, tpch_rng *r) {
    int64_t u = tpch_rng_range(r, 1, d->total);
    for (int32_t i = 0; i < d->n; i++) {
        u -= d->words[i].weight;
        if (u <= 0) return d->words[i].text;
    }
    return d->words[d->n - 1].text; /* not reached when total is right */
}

static void put(char *buf, int32_t *n, const char *s) {
    size_t l = strlen(s);
    memcpy(buf + *n, s, l);
    *n += (int32_t)l;
}

/* A noun or verb phrase from template `t` (letters N J D V X, the rest
 * copied as is). */
static void phrase(const char *t, tpch_rng *r, char *buf, int32_t *n) {
    for (; *t; t++) {
        switch (*t) {
        case 'N': put(buf, n, tpch_pick(&tpch_nouns, r)); break;
        case 'J': put(buf, n, tpch_pick(&tpch_adjectives, r)); break;
        case 'D': put(buf, n, tpch_pick(&tpch_adverbs, r)); break;
        case 'V': put(buf, n, tpch_pick(&tpch_verbs, r)); break;
        case 'X': put(buf, n, tpch_pick(&tpch_auxiliaries, r)); break;
        default: buf[(*n)++] = *t; break;
        }
    }
}

/* One sentence and its trailing space into buf (256 bytes is plenty: the
 * longest template with the longest words is under 200); returns its
 * length. */
static int32_t sentence(tpch_rng *r, char *buf) {
    int32_t n = 0;
    for (const char *t = tpch_pick(&tpch_grammar, r); *t; t++) {
        switch (*t) {
        case 'N': phrase(tpch_pick(&tpch_np, r), r, buf, &n); break;
        case 'V': phrase(tpch_pick(&tpch_vp, r), r, buf, &n); break;
        case 'P':
            put(buf, &n, tpch_pick(&tpch_prepositions, r));
            put(buf, &n, " the ");
            phrase(tpch_pick(&tpch_np, r), r, buf, &n);
            break;
        case 'T':
            if (n > 0 && buf[n - 1] == ' ') n--;
            put(buf, &n, tpch_pick(&tpch_terminators, r));
            break;
        default: buf[n++] = *t; break;
        }
    }
    buf[n++] = ' ';
    return n;
}

void tpch_text_fill(char *out, size_t size, uint64_t seed) {
    tpch_rng r;
    tpch_rng_seed(&r, 0x7465787470ULL /* "textp" */, seed);
    char buf[256];
    size_t pos = 0;
    while (pos < size) {
        int32_t n = sentence(&r, buf);
        size_t take = (size_t)n < size - pos ? (size_t)n : size - pos;
        memcpy(out + pos, buf, take);
        pos += take;
    }
}

/* ---- the process-wide pool --------------------------------------------- */

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static char *pool_text;

static void build_pool(void) {
    /* The pool lives as long as the process: charge it to the root. */
    floe_mem_tracker *prev = floe_mem_set_current(NULL);
    char *p = floe_malloc(TPCH_TEXT_POOL_SIZE);
    floe_mem_set_current(prev);
    if (p) tpch_text_fill(p, TPCH_TEXT_POOL_SIZE, 19920101);
    pool_text = p;
}

floe_status tpch_text_pool(const char **pool) {
    pthread_once(&pool_once, build_pool);
    *pool = pool_text;
    if (!pool_text) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "TPC-H text pool (%d bytes)", TPCH_TEXT_POOL_SIZE);
    return NULL;
}

/* ---- small strings ------------------------------------------------------ */

static const char k_alphabet[65] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";

int32_t tpch_vstring(tpch_rng *r, int32_t lo, int32_t hi, char *out) {
    int32_t len = (int32_t)tpch_rng_range(r, lo, hi);
    uint64_t bits = 0;
    for (int32_t i = 0; i < len; i++) {
        /* Ten 6-bit symbols per draw. */
        if (i % 10 == 0) bits = tpch_rng_next(r);
        out[i] = k_alphabet[bits & 63];
        bits >>= 6;
    }
    return len;
}

static void digits(char *out, int64_t v, int32_t width) {
    for (int32_t i = width - 1; i >= 0; i--) {
        out[i] = (char)('0' + v % 10);
        v /= 10;
    }
}

void tpch_phone(tpch_rng *r, int64_t nation, char out[15]) {
    digits(out, nation + 10, 2);
    out[2] = '-';
    digits(out + 3, tpch_rng_range(r, 100, 999), 3);
    out[6] = '-';
    digits(out + 7, tpch_rng_range(r, 100, 999), 3);
    out[10] = '-';
    digits(out + 11, tpch_rng_range(r, 1000, 9999), 4);
}

int32_t tpch_keyed_name(const char *prefix, int64_t v, char *out) {
    size_t pl = strlen(prefix);
    memcpy(out, prefix, pl);
    int32_t w = 9;
    for (int64_t x = 1000000000; x <= v && w < 19; x *= 10) w++;
    digits(out + pl, v, w);
    return (int32_t)pl + w;
}
