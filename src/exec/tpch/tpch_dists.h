/*
 * tpch_dists.h — the value lists of the TPC-H specification (v3.0.1,
 * clauses 4.2.2.13 and 4.2.3) that the TpchGen node draws from: the words
 * of the comment grammar with their weights, the 92 part-name colours,
 * part types and containers, market segments, order priorities, ship
 * instructions and modes, and the fixed NATION and REGION rows.
 *
 * Internal to src/exec (tpch_gen.c, tpch_text.c).  Everything here is
 * immutable data.
 */
#ifndef FLOE_EXEC_TPCH_DISTS_H
#define FLOE_EXEC_TPCH_DISTS_H

#include <stdint.h>

/* A word with its relative weight in a distribution. */
typedef struct tpch_word {
    const char *text;
    int32_t weight;
} tpch_word;

/* A weighted list: words[0..n), weights summing to `total`. */
typedef struct tpch_dist {
    const tpch_word *words;
    int32_t n;
    int32_t total;
} tpch_dist;

/* The comment grammar (4.2.2.14).  `grammar`, `np` and `vp` hold
 * templates whose letters stand for the other lists: N noun (phrase),
 * V verb (phrase), P prepositional phrase, T terminator, J adjective,
 * D adverb, X auxiliary; "," and spaces are copied. */
extern const tpch_dist tpch_nouns, tpch_verbs, tpch_adjectives, tpch_adverbs, tpch_prepositions,
    tpch_auxiliaries, tpch_terminators, tpch_grammar, tpch_np, tpch_vp;

/* Uniform lists. */
#define TPCH_N_COLORS 92
extern const char *const tpch_colors[TPCH_N_COLORS];
extern const char *const tpch_type_s1[6], *const tpch_type_s2[5], *const tpch_type_s3[5];
extern const char *const tpch_container_s1[5], *const tpch_container_s2[8];
extern const char *const tpch_segments[5];
extern const char *const tpch_priorities[5];
extern const char *const tpch_instructions[4];
extern const char *const tpch_modes[7];

/* NATION (n_nationkey = index) and REGION (r_regionkey = index). */
typedef struct tpch_nation {
    const char *name;
    int32_t region;
} tpch_nation;
extern const tpch_nation tpch_nations[25];
extern const char *const tpch_regions[5];

#endif
