/*
 * regex.h — PostgreSQL's regular expressions on PCRE2: the translation of
 * PostgreSQL's ARE syntax (and SIMILAR TO patterns) into PCRE2 syntax, the
 * flag letters of regexp_* functions, and a process-wide cache of compiled
 * (JIT where available) patterns so a constant pattern is compiled once,
 * not once per row or batch.
 *
 * What is translated (ARE → PCRE2): \m \M (word start / end), \y \Y (word
 * boundary / not), \Z (end of string only: \z), \uXXXX and \UXXXXXXXX
 * (\x{...}), the "***=" (literal) and "***:" prefixes, leading embedded
 * options (?bceimnpqstwx); '.' matches a newline and '$' only the very end,
 * as in PostgreSQL's default (non newline-sensitive) mode.
 * Not translated (documented differences): collating elements [[.x.]] and
 * equivalence classes [[=x=]] (PCRE2 rejects them), PostgreSQL's
 * longest-leftmost preference for a whole RE whose first quantifier is
 * greedy (PCRE2 is Perl-like: the first alternative that matches wins),
 * and '[^x]' always matching a newline, also under the n / p flags.
 */
#ifndef FLOE_EXEC_REGEX_H
#define FLOE_EXEC_REGEX_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buffer.h"
#include "floe/status.h"
#include "floe/memory.h"
#include "floe/exec.h"

/* Options from PostgreSQL's flag letters (and embedded (?x) options). */
typedef struct fn_regex_opts {
    bool icase;    /* i */
    bool newline;  /* n / m: '.' stops at newlines, ^ $ match at them */
    bool dotnl;    /* '.' matches a newline (default true; p and n clear it) */
    bool multiline;/* ^ $ match at newlines (n, w) */
    bool expanded; /* x */
    bool literal;  /* q, or a "***=" prefix */
    bool global;   /* g (only where the function allows it) */
} fn_regex_opts;

/* The defaults (PostgreSQL's ARE, case-sensitive, not newline-sensitive). */
fn_regex_opts fn_regex_default_opts(void);

/* Apply flag letters `f` (n bytes) for function `fname`; `allow_g` says
 * whether 'g' is accepted (regexp_replace, regexp_matches).  Unknown
 * letters: FLOE_ERR_INVALID_ARGUMENT `invalid regular expression option:
 * "z"`. */
floe_status fn_regex_flags(const char *fname, const char *f, int64_t n, bool allow_g,
                           fn_regex_opts *o) FLOE_WARN_UNUSED;

/* Translate ARE pattern `p` (n bytes) into PCRE2 syntax, appending to
 * `out`; leading embedded options and prefixes update *o. */
floe_status fn_regex_translate(const char *p, int64_t n, fn_regex_opts *o, floe_buf *out) FLOE_WARN_UNUSED;

/* Translate a SIMILAR TO pattern into an ARE (PostgreSQL's
 * similar_to_escape: "^(?:...)$", % → .*, _ → ., '.' '^' '$' literal,
 * esc" separators → "){1,1}?(" and "){1,1}(?:", at most two).
 * esc: the escape character (-1 for none, '\\' by default). */
floe_status fn_similar_to_are(const char *p, int64_t n, int esc, floe_buf *out) FLOE_WARN_UNUSED;

/* A compiled pattern, shared (refcounted) between the cache and users. */
typedef struct fn_regex fn_regex;

/* The compiled form of ARE pattern `p` under options `o` (global is
 * ignored), from the cache or compiled now.  Errors:
 * FLOE_ERR_INVALID_ARGUMENT `invalid regular expression: <why> at
 * position <k> in "<pattern>"`.  Release with fn_regex_release. */
floe_status fn_regex_get(const char *p, int64_t n, const fn_regex_opts *o, fn_regex **out) FLOE_WARN_UNUSED;
void fn_regex_release(fn_regex *re);

/* Number of capture groups. */
int32_t fn_regex_groups(const fn_regex *re);

/* An ovector slot of a group that did not take part (PCRE2_UNSET). */
#define FN_UNSET (~(size_t)0)

/* Match state for one kernel call (one thread). */
typedef struct fn_match {
    fn_regex *re;
    void *md;           /* pcre2_match_data */
    const size_t *ov;   /* ovector: 2 * (groups + 1) byte offsets */
    bool checked;       /* the current subject's UTF-8 was checked */
    const char *subject;
} fn_match;

floe_status fn_match_init(fn_match *m, fn_regex *re) FLOE_WARN_UNUSED;
void fn_match_free(fn_match *m);
/* Find the first match in s[0..n) at or after byte `start`; true if
 * found (offsets in m->ov: ov[0], ov[1] the whole match, ov[2k], ov[2k+1]
 * group k, both ~0 for a group that did not take part).  Errors only
 * for malformed UTF-8 or resource limits. */
floe_status fn_match_find(fn_match *m, const char *s, int64_t n, int64_t start, bool *found) FLOE_WARN_UNUSED;

/* Next match of a global scan, after the one in m->ov (PostgreSQL's rule:
 * after an empty match the search goes on one character later). */
floe_status fn_match_next(fn_match *m, const char *s, int64_t n, bool *found) FLOE_WARN_UNUSED;

#endif
