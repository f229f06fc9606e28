/*
 * str.h — string views and the string helpers the whole engine shares.
 *
 * A floe_str is a non-owning (pointer, length) view: it is not NUL
 * terminated and never freed through the view.  Views are passed by value;
 * they stay valid as long as the bytes they point into.
 *
 * Comparison helpers are byte-wise; the "i" variants fold ASCII letters
 * only (SQL identifiers and config keys), never locale-dependent.  Number
 * parsing is strict: the whole text must be the number, no surrounding
 * spaces (trim first if spaces are allowed), and failures return a
 * floe_status quoting the offending text.
 */
#ifndef FLOE_BASE_STR_H
#define FLOE_BASE_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "floe/status.h"

typedef struct floe_str {
    const char *ptr;
    size_t len;
} floe_str;

/* A view of a string literal (length computed at compile time). */
#define FLOE_STR_LIT(s) ((floe_str){(s), sizeof(s) - 1})
/* For printf: printf("%.*s", FLOE_STR_FMT(s)). */
#define FLOE_STR_FMT(s) (int)(s).len, (s).ptr

static inline floe_str floe_str_make(const char *p, size_t n) {
    floe_str s = {p, n};
    return s;
}
/* A view of a C string; NULL gives the empty view. */
static inline floe_str floe_str_c(const char *s) {
    floe_str v = {s ? s : "", s ? strlen(s) : 0};
    return v;
}
static inline bool floe_str_empty(floe_str s) { return s.len == 0; }

/* ASCII-only case mapping, independent of the C locale. */
static inline char floe_ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c; }
static inline char floe_ascii_upper(char c) { return (c >= 'a' && c <= 'z') ? (char)(c - 32) : c; }
static inline bool floe_ascii_isspace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
static inline bool floe_ascii_isdigit(char c) { return c >= '0' && c <= '9'; }
/* Convert n bytes in place. */
void floe_ascii_lower_inplace(char *s, size_t n);
void floe_ascii_upper_inplace(char *s, size_t n);
/* A floe_malloc'd, NUL-terminated lower/upper-case copy (NULL if OOM). */
char *floe_str_lower_dup(floe_str s);
char *floe_str_upper_dup(floe_str s);

/* A floe_malloc'd NUL-terminated copy of the view (NULL if OOM). */
char *floe_str_dup(floe_str s);

bool floe_str_eq(floe_str a, floe_str b);
bool floe_str_eq_c(floe_str a, const char *b);
/* Byte-wise order: negative, zero or positive like memcmp (shorter first). */
int floe_str_cmp(floe_str a, floe_str b);
/* ASCII case-insensitive equality and order. */
bool floe_str_ieq(floe_str a, floe_str b);
bool floe_str_ieq_c(floe_str a, const char *b);
int floe_str_icmp(floe_str a, floe_str b);

bool floe_str_starts_with(floe_str s, floe_str prefix);
bool floe_str_ends_with(floe_str s, floe_str suffix);
bool floe_str_istarts_with(floe_str s, floe_str prefix);
bool floe_str_iends_with(floe_str s, floe_str suffix);

/* Index of the first `c` at or after `from`, or -1. */
ptrdiff_t floe_str_find_char(floe_str s, char c, size_t from);
/* Index of the first occurrence of `needle`, or -1 (empty needle: 0). */
ptrdiff_t floe_str_find(floe_str s, floe_str needle);

/* Sub-view [off, off+len), clamped to the view. */
floe_str floe_str_sub(floe_str s, size_t off, size_t len);
/* Remove leading/trailing ASCII whitespace. */
floe_str floe_str_trim(floe_str s);
floe_str floe_str_trim_left(floe_str s);
floe_str floe_str_trim_right(floe_str s);

/* Split iteration without allocation:
 *   floe_str rest = s, part;
 *   while (floe_str_split_next(&rest, ',', &part)) use(part);
 * "a,,b" yields "a", "", "b"; "" yields one empty part; "a," yields "a", "".
 * Returns false when no parts remain. */
bool floe_str_split_next(floe_str *rest, char sep, floe_str *part);
/* Split into a floe_malloc'd array of views (free with floe_free). */
floe_status floe_str_split(floe_str s, char sep, floe_str **parts, size_t *count) FLOE_WARN_UNUSED;

/* Strict parsers.  Accepted forms:
 *   int64:  [+-]digits (decimal), range checked;
 *   uint64: [+]digits;
 *   double: what strtod accepts (decimal, exponent, inf, nan) without
 *           leading spaces or trailing bytes; overflow is an error;
 *   bool:   true/false, t/f, yes/no, y/n, on/off, 1/0 (ASCII case-insensitive).
 * `what` names the value in the message ("option 'threads'"); may be NULL.
 * On error *out is unchanged. */
floe_status floe_parse_int64(floe_str s, const char *what, int64_t *out) FLOE_WARN_UNUSED;
floe_status floe_parse_uint64(floe_str s, const char *what, uint64_t *out) FLOE_WARN_UNUSED;
floe_status floe_parse_double(floe_str s, const char *what, double *out) FLOE_WARN_UNUSED;
floe_status floe_parse_bool(floe_str s, const char *what, bool *out) FLOE_WARN_UNUSED;

/* True when the bytes are well-formed UTF-8 (no overlong forms, no UTF-16
 * surrogates, nothing above U+10FFFF).  On failure *bad_offset (if not
 * NULL) receives the offset of the first byte of the bad sequence. */
bool floe_utf8_valid(const void *p, size_t n, size_t *bad_offset);
/* Same, as a status naming `what` and the offset (FLOE_ERR_CORRUPT). */
floe_status floe_utf8_check(const void *p, size_t n, const char *what) FLOE_WARN_UNUSED;

/* Optimal string alignment distance (insert, delete, substitute, swap two
 * adjacent bytes; each costs 1), over bytes; the _ci variant folds ASCII
 * case.  Returns SIZE_MAX if memory for
 * long inputs cannot be had. */
size_t floe_str_edit_distance(floe_str a, floe_str b);
size_t floe_str_edit_distance_ci(floe_str a, floe_str b);
/* For "did you mean": index of the candidate closest to `name` (ASCII case
 * folded) whose distance is at most max(1, name.len / 3), or -1 if none is
 * that close.  Ties go to the earlier candidate. */
ptrdiff_t floe_str_closest(floe_str name, const char *const *candidates, size_t n);
/* An error "unknown <kind> '<name>'" with " (did you mean '<closest>'?)"
 * appended when a candidate is close enough, e.g.
 *   unknown column 'l_quantty' (did you mean 'l_quantity'?) */
floe_status floe_unknown_name_error(floe_code code, const char *kind, floe_str name,
                                    const char *const *candidates, size_t n) FLOE_WARN_UNUSED;

#endif
