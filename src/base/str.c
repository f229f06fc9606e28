/*
 * str.c — string views, strict number parsing, UTF-8 validation and edit
 * distance (see str.h).
 */
#include "base/str.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "floe/memory.h"

/* ---- case mapping and copies ------------------------------------------ */

void floe_ascii_lower_inplace(char *s, size_t n) {
    for (size_t i = 0; i < n; i++) s[i] = floe_ascii_lower(s[i]);
}

void floe_ascii_upper_inplace(char *s, size_t n) {
    for (size_t i = 0; i < n; i++) s[i] = floe_ascii_upper(s[i]);
}

char *floe_str_dup(floe_str s) {
    char *out = floe_malloc(s.len + 1);
    if (!out) return NULL;
    if (s.len) memcpy(out, s.ptr, s.len);
    out[s.len] = '\0';
    return out;
}

char *floe_str_lower_dup(floe_str s) {
    char *out = floe_str_dup(s);
    if (out) floe_ascii_lower_inplace(out, s.len);
    return out;
}

char *floe_str_upper_dup(floe_str s) {
    char *out = floe_str_dup(s);
    if (out) floe_ascii_upper_inplace(out, s.len);
    return out;
}

/* ---- comparison -------------------------------------------------------- */

bool floe_str_eq(floe_str a, floe_str b) {
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

bool floe_str_eq_c(floe_str a, const char *b) { return floe_str_eq(a, floe_str_c(b)); }

int floe_str_cmp(floe_str a, floe_str b) {
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
    if (c) return c;
    return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

static bool ieq_n(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (floe_ascii_lower(a[i]) != floe_ascii_lower(b[i])) return false;
    return true;
}

bool floe_str_ieq(floe_str a, floe_str b) { return a.len == b.len && ieq_n(a.ptr, b.ptr, a.len); }

bool floe_str_ieq_c(floe_str a, const char *b) { return floe_str_ieq(a, floe_str_c(b)); }

int floe_str_icmp(floe_str a, floe_str b) {
    size_t n = a.len < b.len ? a.len : b.len;
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)floe_ascii_lower(a.ptr[i]);
        unsigned char y = (unsigned char)floe_ascii_lower(b.ptr[i]);
        if (x != y) return x < y ? -1 : 1;
    }
    return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

bool floe_str_starts_with(floe_str s, floe_str p) {
    return s.len >= p.len && (p.len == 0 || memcmp(s.ptr, p.ptr, p.len) == 0);
}

bool floe_str_ends_with(floe_str s, floe_str p) {
    return s.len >= p.len && (p.len == 0 || memcmp(s.ptr + s.len - p.len, p.ptr, p.len) == 0);
}

bool floe_str_istarts_with(floe_str s, floe_str p) {
    return s.len >= p.len && ieq_n(s.ptr, p.ptr, p.len);
}

bool floe_str_iends_with(floe_str s, floe_str p) {
    return s.len >= p.len && ieq_n(s.ptr + s.len - p.len, p.ptr, p.len);
}

/* ---- searching, slicing, trimming, splitting --------------------------- */

ptrdiff_t floe_str_find_char(floe_str s, char c, size_t from) {
    if (from >= s.len) return -1;
    const char *hit = memchr(s.ptr + from, c, s.len - from);
    return hit ? hit - s.ptr : -1;
}

ptrdiff_t floe_str_find(floe_str s, floe_str needle) {
    if (needle.len == 0) return 0;
    if (needle.len > s.len) return -1;
    const char *hit = memmem(s.ptr, s.len, needle.ptr, needle.len);
    return hit ? hit - s.ptr : -1;
}

floe_str floe_str_sub(floe_str s, size_t off, size_t len) {
    if (off > s.len) off = s.len;
    if (len > s.len - off) len = s.len - off;
    return floe_str_make(s.ptr + off, len);
}

floe_str floe_str_trim_left(floe_str s) {
    while (s.len && floe_ascii_isspace(s.ptr[0])) {
        s.ptr++;
        s.len--;
    }
    return s;
}

floe_str floe_str_trim_right(floe_str s) {
    while (s.len && floe_ascii_isspace(s.ptr[s.len - 1])) s.len--;
    return s;
}

floe_str floe_str_trim(floe_str s) { return floe_str_trim_right(floe_str_trim_left(s)); }

/* `rest.ptr == NULL` marks "no parts left": after the last part is taken
 * the rest becomes the NULL view, so a trailing separator still yields a
 * final empty part. */
bool floe_str_split_next(floe_str *rest, char sep, floe_str *part) {
    if (!rest->ptr) return false;
    ptrdiff_t at = floe_str_find_char(*rest, sep, 0);
    if (at < 0) {
        *part = *rest;
        rest->ptr = NULL;
        rest->len = 0;
        return true;
    }
    *part = floe_str_make(rest->ptr, (size_t)at);
    rest->ptr += at + 1;
    rest->len -= (size_t)at + 1;
    return true;
}

floe_status floe_str_split(floe_str s, char sep, floe_str **parts, size_t *count) {
    size_t n = 1;
    for (size_t i = 0; i < s.len; i++) n += s.ptr[i] == sep;
    floe_str *out = floe_malloc_array(n, sizeof *out);
    if (!out) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory splitting a %zu-byte string", s.len);
    if (!s.ptr) s.ptr = "";
    floe_str rest = s, part;
    size_t i = 0;
    while (floe_str_split_next(&rest, sep, &part)) out[i++] = part;
    *parts = out;
    *count = i;
    return NULL;
}

/* ---- strict number parsing --------------------------------------------- */

/* Quote at most 64 bytes of `s` for an error message, replacing control
 * bytes so a message stays one printable line. */
static const char *quote(floe_str s, char *buf, size_t cap) {
    size_t n = s.len < 64 ? s.len : 64;
    if (n > cap - 4) n = cap - 4;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (n < s.len) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

static floe_status parse_error(const char *kind, floe_str s, const char *what, const char *why) {
    char q[80];
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s%s'%s' is not a valid %s%s%s", what ? what : "",
                      what ? ": " : "", quote(s, q, sizeof q), kind, why ? ": " : "", why ? why : "");
}

/* Digits of an unsigned decimal into *v; an error on junk or > limit. */
static floe_status parse_digits(floe_str s, floe_str digits, uint64_t limit, const char *kind,
                                const char *what, uint64_t *v) {
    if (digits.len == 0) return parse_error(kind, s, what, "no digits");
    uint64_t acc = 0;
    for (size_t i = 0; i < digits.len; i++) {
        char c = digits.ptr[i];
        if (!floe_ascii_isdigit(c)) return parse_error(kind, s, what, "unexpected character");
        unsigned d = (unsigned)(c - '0');
        if (acc > (limit - d) / 10) return parse_error(kind, s, what, "out of range");
        acc = acc * 10 + d;
    }
    *v = acc;
    return NULL;
}

floe_status floe_parse_int64(floe_str s, const char *what, int64_t *out) {
    bool neg = false;
    floe_str digits = s;
    if (digits.len && (digits.ptr[0] == '-' || digits.ptr[0] == '+')) {
        neg = digits.ptr[0] == '-';
        digits = floe_str_sub(digits, 1, SIZE_MAX);
    }
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v;
    FLOE_TRY(parse_digits(s, digits, limit, "64-bit integer", what, &v));
    /* -(INT64_MIN) is not representable: negate in unsigned arithmetic. */
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return NULL;
}

floe_status floe_parse_uint64(floe_str s, const char *what, uint64_t *out) {
    floe_str digits = s;
    if (digits.len && digits.ptr[0] == '+') digits = floe_str_sub(digits, 1, SIZE_MAX);
    return parse_digits(s, digits, UINT64_MAX, "unsigned 64-bit integer", what, out);
}

floe_status floe_parse_double(floe_str s, const char *what, double *out) {
    const char *kind = "number";
    if (s.len == 0) return parse_error(kind, s, what, "empty");
    if (floe_ascii_isspace(s.ptr[0])) return parse_error(kind, s, what, "leading space");
    /* strtod needs a NUL-terminated string. */
    char small[64];
    char *text = s.len < sizeof small ? small : floe_malloc(s.len + 1);
    if (!text) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "out of memory parsing a number");
    memcpy(text, s.ptr, s.len);
    text[s.len] = '\0';
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    bool whole = end == text + s.len && end != text;
    bool overflow = errno == ERANGE && isinf(v);
    if (text != small) floe_free(text);
    if (!whole) return parse_error(kind, s, what, "unexpected character");
    if (overflow) return parse_error(kind, s, what, "out of range");
    *out = v;
    return NULL;
}

floe_status floe_parse_bool(floe_str s, const char *what, bool *out) {
    static const char *const yes[] = {"true", "t", "yes", "y", "on", "1"};
    static const char *const no[] = {"false", "f", "no", "n", "off", "0"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (floe_str_ieq_c(s, yes[i])) {
            *out = true;
            return NULL;
        }
        if (floe_str_ieq_c(s, no[i])) {
            *out = false;
            return NULL;
        }
    }
    return parse_error("boolean", s, what, "expected true or false");
}

/* ---- UTF-8 ------------------------------------------------------------- */

bool floe_utf8_valid(const void *data, size_t n, size_t *bad_offset) {
    const unsigned char *p = data;
    size_t i = 0;
    while (i < n) {
        /* Fast path: eight ASCII bytes at a time. */
        if (n - i >= 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if ((w & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        unsigned char c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the 2nd byte */
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;      /* overlong */
            else if (c == 0xED) hi = 0x9F; /* surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;      /* overlong */
            else if (c == 0xF4) hi = 0x8F; /* above U+10FFFF */
        } else {
            goto bad;
        }
        if (n - i < len) goto bad;
        if (p[i + 1] < lo || p[i + 1] > hi) goto bad;
        for (size_t k = 2; k < len; k++)
            if ((p[i + k] & 0xC0) != 0x80) goto bad;
        i += len;
    }
    return true;
bad:
    if (bad_offset) *bad_offset = i;
    return false;
}

floe_status floe_utf8_check(const void *p, size_t n, const char *what) {
    size_t off = 0;
    if (floe_utf8_valid(p, n, &off)) return NULL;
    return floe_error(FLOE_ERR_CORRUPT, "%s: invalid UTF-8 at byte offset %zu (byte 0x%02x)",
                      what ? what : "string", off, ((const unsigned char *)p)[off]);
}

/* ---- edit distance ----------------------------------------------------- */

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and transpositions of two adjacent characters each cost 1 (so the typo
 * "titel" is one edit from "title").  Three rolling rows. */
static size_t edit_distance(floe_str a, floe_str b, bool fold) {
    if (a.len < b.len) {
        floe_str t = a;
        a = b;
        b = t;
    }
    if (b.len == 0) return a.len;
    size_t small[3 * 129];
    size_t *mem = b.len < 129 ? small : floe_malloc_array(3 * (b.len + 1), sizeof(size_t));
    if (!mem) return SIZE_MAX;
    size_t *prev2 = mem, *prev = mem + (b.len + 1), *cur = mem + 2 * (b.len + 1);
    for (size_t j = 0; j <= b.len; j++) prev[j] = j;
    for (size_t i = 1; i <= a.len; i++) {
        cur[0] = i;
        char ca = fold ? floe_ascii_lower(a.ptr[i - 1]) : a.ptr[i - 1];
        for (size_t j = 1; j <= b.len; j++) {
            char cb = fold ? floe_ascii_lower(b.ptr[j - 1]) : b.ptr[j - 1];
            size_t best = prev[j - 1] + (ca != cb);
            if (prev[j] + 1 < best) best = prev[j] + 1;
            if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
            if (i > 1 && j > 1) {
                char pa = fold ? floe_ascii_lower(a.ptr[i - 2]) : a.ptr[i - 2];
                char pb = fold ? floe_ascii_lower(b.ptr[j - 2]) : b.ptr[j - 2];
                if (ca == pb && pa == cb && prev2[j - 2] + 1 < best) best = prev2[j - 2] + 1;
            }
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    size_t d = prev[b.len];
    if (mem != small) floe_free(mem);
    return d;
}

size_t floe_str_edit_distance(floe_str a, floe_str b) { return edit_distance(a, b, false); }

size_t floe_str_edit_distance_ci(floe_str a, floe_str b) { return edit_distance(a, b, true); }

ptrdiff_t floe_str_closest(floe_str name, const char *const *candidates, size_t n) {
    size_t limit = name.len / 3 > 1 ? name.len / 3 : 1;
    ptrdiff_t best = -1;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i]) continue;
        size_t d = edit_distance(name, floe_str_c(candidates[i]), true);
        if (d <= limit && d < best_d) {
            best = (ptrdiff_t)i;
            best_d = d;
        }
    }
    return best;
}

floe_status floe_unknown_name_error(floe_code code, const char *kind, floe_str name,
                                    const char *const *candidates, size_t n) {
    char q[80];
    ptrdiff_t best = floe_str_closest(name, candidates, n);
    if (best < 0) return floe_error(code, "unknown %s '%s'", kind ? kind : "name", quote(name, q, sizeof q));
    return floe_error(code, "unknown %s '%s' (did you mean '%s'?)", kind ? kind : "name", quote(name, q, sizeof q),
                      candidates[best]);
}
