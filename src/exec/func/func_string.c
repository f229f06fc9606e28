/*
 * func_string.c — string scalar functions: case mapping, lengths,
 * substring/left/right, trimming and padding, concatenation, searching,
 * splitting, and LIKE/ILIKE.
 *
 * Strings are UTF-8; positions and lengths count characters (code
 * points), as in PostgreSQL, while octet_length counts bytes.  Malformed
 * UTF-8 never makes a scan stop or overrun: a stray byte counts as one
 * character.  Every function here returns NULL when any argument is NULL,
 * except concat, which skips NULLs, and concat_ws, which skips them after
 * its separator.
 *
 * Each kernel is one loop over the rows writing into one growing output
 * buffer (fn_strwriter) or a preallocated values buffer; a constant
 * argument (a literal, one slot) is read through fn_get_str like any
 * other, and LIKE compiles a constant pattern once per batch.
 */
/* memmem: _GNU_SOURCE comes from the build flags */
#include <string.h>

#include "exec/func/functions.h"

/* ------------------------------------------------------------ helpers */

/* Run a string-producing kernel body over the valid rows.  `row_fn`
 * appends row i's result to w->data (it may also fn_sw_set_null). */
typedef floe_status (*row_fn)(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                              void *ctx);

static floe_status map_rows(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                            floe_type *rt, row_fn fn, void *ctx, floe_array **out) {
    fn_strwriter w;
    floe_buffer *valid;
    FLOE_TRY(fn_validity(a, n, rows, &valid));
    FLOE_TRY(fn_sw_init(&w, rows, valid));
    floe_status st = fn_sw_reserve_like(&w, a[0]);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (fn_sw_valid(&w, i)) st = fn(def, a, i, &w, ctx);
        if (!st) st = fn_sw_end_row(&w);
    }
    if (st) {
        fn_sw_free(&w);
        return st;
    }
    return fn_sw_finish(&w, rt, out);
}

/* A BOOL or INT64 result over the rows where all args are valid. */
typedef int64_t (*val_fn)(const floe_func_def *def, floe_array *const *a, int64_t i, floe_status *st, void *ctx);

static floe_status map_values(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                              floe_type *rt, val_fn fn, void *ctx, floe_array **out) {
    floe_buffer *valid = NULL, *vals = NULL;
    bool is_bool = rt->id == FLOE_TYPE_BOOL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(is_bool ? (rows + 7) / 8 : rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        int64_t v = fn(def, a, i, &st, ctx);
        if (is_bool) floe_bit_put(vals->data, i, v != 0);
        else ((int64_t *)vals->data)[i] = v;
    }
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

/* Byte offset of the start of the character before byte offset `end`. */
static int64_t utf8_prev(const char *s, int64_t end) {
    int64_t i = end - 1;
    int back = 0;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80 && back < 3) {
        i--;
        back++;
    }
    /* A lead byte must announce the continuation bytes we skipped. */
    if (back && fn_utf8_len((unsigned char)s[i]) != back + 1) return end - 1;
    return i;
}

/* The length or count argument `n` asks for a result over 2 GiB. */
static floe_status too_large(const floe_func_def *def, int64_t n) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: the result for %lld is too large", def->name, (long long)n);
}

/* --------------------------------------------- lower, upper, reverse */

static floe_status row_case(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                            void *ctx) {
    (void)ctx;
    floe_strview s = fn_get_str(a[0], i);
    return fn_utf8_case(s.data, s.len, def->tag, &w->data);
}

static floe_status row_reverse(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                               void *ctx) {
    (void)def, (void)ctx;
    floe_strview s = fn_get_str(a[0], i);
    uint8_t *o = floe_buf_extend(&w->data, (size_t)s.len);
    if (!o && s.len) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "reverse");
    int64_t out_end = s.len;
    for (int64_t p = 0; p < s.len;) {
        int l = fn_utf8_len((unsigned char)s.data[p]);
        if (l > s.len - p) l = (int)(s.len - p);
        out_end -= l;
        memcpy(o + out_end, s.data + p, (size_t)l);
        p += l;
    }
    return NULL;
}

/* --------------------------------------------------- length, octets */

static int64_t val_length(const floe_func_def *def, floe_array *const *a, int64_t i, floe_status *st, void *ctx) {
    (void)st, (void)ctx;
    floe_strview s = fn_get_str(a[0], i);
    if (def->tag == 1 || a[0]->type->id == FLOE_TYPE_BINARY) return s.len;
    return fn_utf8_count(s.data, s.len);
}

/* ---------------------------------------------- substring, left, right */

/* Characters [from, to) of s (0-based, clamped), appended. */
static floe_status append_chars(fn_strwriter *w, floe_strview s, int64_t from, int64_t to) {
    if (from < 0) from = 0;
    if (to <= from) return NULL;
    int64_t b0 = fn_utf8_advance(s.data, s.len, from);
    int64_t b1 = b0 + fn_utf8_advance(s.data + b0, s.len - b0, to - from);
    return fn_sw_add(w, s.data + b0, (size_t)(b1 - b0));
}

static floe_status row_substring(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                                 void *ctx) {
    (void)ctx;
    floe_strview s = fn_get_str(a[0], i);
    int64_t start = fn_get_i64(a[1], i), end = INT64_MAX;
    if (a[2]) {
        int64_t len = fn_get_i64(a[2], i);
        if (len < 0)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: negative substring length %lld not allowed",
                              def->name, (long long)len);
        if (__builtin_add_overflow(start, len, &end)) end = INT64_MAX;
    }
    /* 1-based positions [start, end) → 0-based [start-1, end-1), written
     * so that extreme arguments cannot overflow. */
    return append_chars(w, s, start < 1 ? 0 : start - 1, end < 1 ? 0 : end == INT64_MAX ? INT64_MAX : end - 1);
}

static floe_status row_left_right(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                                  void *ctx) {
    (void)ctx;
    floe_strview s = fn_get_str(a[0], i);
    int64_t k = fn_get_i64(a[1], i);
    int64_t len = fn_utf8_count(s.data, s.len);
    if (def->tag == 0) /* left: first k, or all but the last -k */
        return append_chars(w, s, 0, k >= 0 ? k : len + k);
    if (k == INT64_MIN) k = -INT64_MAX; /* so -k exists */
    return append_chars(w, s, k >= 0 ? len - k : -k, len); /* right */
}

/* ----------------------------------------------------------- trimming */

static bool in_set(const char *c, int len, floe_strview set) {
    for (int64_t p = 0; p < set.len;) {
        int l = fn_utf8_len((unsigned char)set.data[p]);
        if (l == len && memcmp(set.data + p, c, (size_t)len) == 0) return true;
        p += l;
    }
    return false;
}

static floe_status row_trim(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                            void *ctx) {
    (void)ctx;
    floe_strview s = fn_get_str(a[0], i), set = {" ", 1};
    if (a[1]) set = fn_get_str(a[1], i); /* the optional character set */
    int64_t b = 0, e = s.len;
    if (def->tag != 2) /* trim, ltrim */
        while (b < e) {
            int l = fn_utf8_len((unsigned char)s.data[b]);
            if (l > e - b) l = (int)(e - b);
            if (!in_set(s.data + b, l, set)) break;
            b += l;
        }
    if (def->tag != 1) /* trim, rtrim */
        while (e > b) {
            int64_t p = utf8_prev(s.data, e);
            if (p < b) p = b;
            if (!in_set(s.data + p, (int)(e - p), set)) break;
            e = p;
        }
    return fn_sw_add(w, s.data + b, (size_t)(e - b));
}

/* ------------------------------------------------- concat and textcat */

/* out_fn: a boolean as PostgreSQL's output function writes it (t / f: concat,
 * concat_ws) rather than its text cast (true / false: ||). */
static floe_status append_text(fn_strwriter *w, const floe_array *a, int64_t i, bool out_fn) {
    if (out_fn && a->type->id == FLOE_TYPE_BOOL)
        return fn_sw_add(w, floe_array_get_bool(a, fn_at(a, i)) ? "t" : "f", 1);
    if (floe_type_is_binary_like(a->type)) {
        floe_strview s = fn_get_str(a, i);
        return fn_sw_add(w, s.data, (size_t)s.len);
    }
    return floe_format_value(a, fn_at(a, i), &w->data);
}

/* concat (tag 0), textcat (1) and concat_ws (2: a[0] is the separator). */
static floe_status eval_concat(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                               floe_type *rt, floe_array **out) {
    fn_strwriter w;
    floe_buffer *valid = NULL;
    /* textcat is NULL if either side is, concat_ws if the separator is;
     * otherwise NULL arguments are skipped. */
    if (def->tag) FLOE_TRY(fn_validity(a, def->tag == 1 ? n : 1, rows, &valid));
    FLOE_TRY(fn_sw_init(&w, rows, valid));
    floe_status st = NULL;
    int64_t hint = 0;
    for (int32_t k = 0; k < n; k++)
        if (floe_type_is_binary_like(a[k]->type) && !fn_const(a[k]) && a[k]->length)
            hint += floe_array_offsets(a[k])[a[k]->length] - floe_array_offsets(a[k])[0];
    if (hint) st = floe_buf_reserve(&w.data, (size_t)hint);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (fn_sw_valid(&w, i)) {
            bool first = true;
            for (int32_t k = def->tag == 2; k < n && !st; k++) {
                if (fn_null(a[k], i)) continue;
                if (def->tag == 2 && !first) st = append_text(&w, a[0], i, true);
                if (!st) st = append_text(&w, a[k], i, def->tag != 1);
                first = false;
            }
        }
        if (!st) st = fn_sw_end_row(&w);
    }
    if (st) {
        fn_sw_free(&w);
        return st;
    }
    return fn_sw_finish(&w, rt, out);
}

/* ------------------------------------------------------------ replace */

static floe_status row_replace(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                               void *ctx) {
    (void)def, (void)ctx;
    floe_strview s = fn_get_str(a[0], i), from = fn_get_str(a[1], i), to = fn_get_str(a[2], i);
    if (from.len == 0) return fn_sw_add(w, s.data, (size_t)s.len);
    const char *p = s.data, *end = s.data + s.len;
    for (;;) {
        const char *m = memmem(p, (size_t)(end - p), from.data, (size_t)from.len);
        if (!m) break;
        FLOE_TRY(fn_sw_add(w, p, (size_t)(m - p)));
        FLOE_TRY(fn_sw_add(w, to.data, (size_t)to.len));
        p = m + from.len;
    }
    return fn_sw_add(w, p, (size_t)(end - p));
}

/* ------------------------------------------------- strpos and friends */

static int64_t val_strpos(const floe_func_def *def, floe_array *const *a, int64_t i, floe_status *st, void *ctx) {
    (void)def, (void)st, (void)ctx;
    floe_strview s = fn_get_str(a[0], i), sub = fn_get_str(a[1], i);
    if (sub.len == 0) return 1;
    const char *m = memmem(s.data, (size_t)s.len, sub.data, (size_t)sub.len);
    return m ? fn_utf8_count(s.data, m - s.data) + 1 : 0;
}

static int64_t val_affix(const floe_func_def *def, floe_array *const *a, int64_t i, floe_status *st, void *ctx) {
    (void)st, (void)ctx;
    floe_strview s = fn_get_str(a[0], i), x = fn_get_str(a[1], i);
    if (x.len > s.len) return 0;
    switch (def->tag) {
    case 0: return memcmp(s.data, x.data, (size_t)x.len) == 0;                    /* starts_with */
    case 1: return memcmp(s.data + s.len - x.len, x.data, (size_t)x.len) == 0;    /* ends_with */
    default: return x.len == 0 || memmem(s.data, (size_t)s.len, x.data, (size_t)x.len) != NULL;
    }
}

/* ------------------------------------------------------ padding, repeat */

/* Append `count` characters cycling through fill (non-empty). */
static floe_status append_fill(fn_strwriter *w, floe_strview fill, int64_t count) {
    int64_t p = 0;
    while (count > 0) {
        if (p >= fill.len) p = 0;
        int l = fn_utf8_len((unsigned char)fill.data[p]);
        if (l > fill.len - p) l = (int)(fill.len - p);
        FLOE_TRY(fn_sw_add(w, fill.data + p, (size_t)l));
        p += l;
        count--;
    }
    return NULL;
}

static floe_status row_pad(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                           void *ctx) {
    (void)ctx;
    floe_strview s = fn_get_str(a[0], i), fill = {" ", 1};
    if (a[2]) fill = fn_get_str(a[2], i); /* the optional fill */
    int64_t n = fn_get_i64(a[1], i);
    if (n <= 0) return NULL;
    if (n > INT32_MAX / 4) return too_large(def, n);
    int64_t len = fn_utf8_count(s.data, s.len);
    if (len >= n || fill.len == 0) return append_chars(w, s, 0, n);
    if (def->tag == 0) FLOE_TRY(append_fill(w, fill, n - len)); /* lpad */
    FLOE_TRY(fn_sw_add(w, s.data, (size_t)s.len));
    if (def->tag == 1) FLOE_TRY(append_fill(w, fill, n - len)); /* rpad */
    return NULL;
}

static floe_status row_repeat(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                              void *ctx) {
    (void)ctx;
    floe_strview s = fn_get_str(a[0], i);
    int64_t n = fn_get_i64(a[1], i), bytes;
    if (n <= 0 || s.len == 0) return NULL;
    if (__builtin_mul_overflow(n, (int64_t)s.len, &bytes) || bytes > INT32_MAX)
        return too_large(def, n);
    for (int64_t k = 0; k < n; k++) FLOE_TRY(fn_sw_add(w, s.data, (size_t)s.len));
    return NULL;
}

/* --------------------------------------------------------- split_part */

static floe_status row_split_part(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                                  void *ctx) {
    (void)ctx;
    floe_strview s = fn_get_str(a[0], i), d = fn_get_str(a[1], i);
    int64_t n = fn_get_i64(a[2], i);
    if (n == 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: field position must not be zero", def->name);
    if (d.len == 0) /* the whole string is the only field */
        return n == 1 || n == -1 ? fn_sw_add(w, s.data, (size_t)s.len) : NULL;
    /* Count the fields, then pick the n-th (from the end when negative). */
    int64_t nfields = 1;
    for (const char *p = s.data, *end = s.data + s.len;;) {
        const char *m = memmem(p, (size_t)(end - p), d.data, (size_t)d.len);
        if (!m) break;
        nfields++;
        p = m + d.len;
    }
    int64_t want = n > 0 ? n - 1 : nfields + n;
    if (want < 0 || want >= nfields) return NULL;
    const char *p = s.data, *end = s.data + s.len;
    for (int64_t k = 0; k < want; k++) p = (const char *)memmem(p, (size_t)(end - p), d.data, (size_t)d.len) + d.len;
    const char *m = memmem(p, (size_t)(end - p), d.data, (size_t)d.len);
    return fn_sw_add(w, p, (size_t)((m ? m : end) - p));
}

/* --------------------------------------------------------------- LIKE */

enum { PK_LIT = 0, PK_ONE = 1, PK_ANY = 2 };
enum { LM_GENERAL, LM_EXACT, LM_PREFIX, LM_SUFFIX, LM_CONTAINS, LM_SEGMENTS };

/* A compiled pattern: per position a kind and (for PK_LIT) a byte;
 * consecutive '%' collapse to one PK_ANY.  `mode` names a fast path when
 * the pattern is literal text with '%' only at the ends, or (LM_SEGMENTS)
 * literal runs separated by '%' and no '_' ('%special%requests%'): such a
 * pattern matches when its first run is a prefix (unless it starts with
 * '%'), its last a suffix (unless it ends with '%'), and the runs between
 * occur in order without overlapping — the leftmost occurrence of each is
 * always the best choice, so memmem finds them without backtracking. */
typedef struct like_pat {
    floe_buf lit, kind;
    int mode;
    int64_t lit_from, lit_len; /* the literal part for the fast modes */
    floe_buf segs;             /* LM_SEGMENTS: int64 (from, len) per literal run */
    bool lead, trail;          /* LM_SEGMENTS: the pattern starts / ends with '%' */
} like_pat;

static void like_pat_free(like_pat *pt) {
    floe_buf_free(&pt->lit);
    floe_buf_free(&pt->kind);
    floe_buf_free(&pt->segs);
}

/* Record the literal runs of a '%'-only pattern for LM_SEGMENTS.  A run
 * starting with a UTF-8 continuation byte (an invalid pattern) keeps the
 * general matcher, which steps whole characters. */
static floe_status like_segments(like_pat *pt) {
    const uint8_t *kind = pt->kind.data, *lit = pt->lit.data;
    int64_t len = (int64_t)pt->kind.len;
    floe_buf_clear(&pt->segs);
    for (int64_t i = 0; i < len;) {
        if (kind[i] == PK_ANY) {
            i++;
            continue;
        }
        int64_t j = i;
        while (j < len && kind[j] == PK_LIT) j++;
        if ((lit[i] & 0xC0) == 0x80) return NULL;
        int64_t seg[2] = {i, j - i};
        FLOE_TRY(floe_buf_append(&pt->segs, seg, sizeof seg));
        i = j;
    }
    pt->lead = len && kind[0] == PK_ANY;
    pt->trail = len && kind[len - 1] == PK_ANY;
    pt->mode = LM_SEGMENTS;
    return NULL;
}

static floe_status like_compile(const char *p, int64_t n, floe_strview esc, const char *fname, like_pat *out) {
    floe_buf_clear(&out->lit);
    floe_buf_clear(&out->kind);
    for (int64_t i = 0; i < n;) {
        int l = fn_utf8_len((unsigned char)p[i]);
        if (l > n - i) l = (int)(n - i);
        uint8_t k = PK_LIT;
        if (esc.len && l == esc.len && memcmp(p + i, esc.data, (size_t)l) == 0) {
            i += l;
            if (i >= n)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: pattern '%.*s' must not end with the escape character",
                                  fname, (int)(n > 200 ? 200 : n), p);
            l = fn_utf8_len((unsigned char)p[i]);
            if (l > n - i) l = (int)(n - i);
        } else if (p[i] == '%') {
            k = PK_ANY;
        } else if (p[i] == '_') {
            k = PK_ONE;
        }
        if (k == PK_LIT) {
            for (int j = 0; j < l; j++) {
                FLOE_TRY(floe_buf_append_byte(&out->lit, (uint8_t)p[i + j]));
                FLOE_TRY(floe_buf_append_byte(&out->kind, PK_LIT));
            }
        } else if (!(k == PK_ANY && out->kind.len && out->kind.data[out->kind.len - 1] == PK_ANY)) {
            FLOE_TRY(floe_buf_append_byte(&out->lit, 0));
            FLOE_TRY(floe_buf_append_byte(&out->kind, k));
        }
        i += l;
    }
    /* Classify for the fast paths. */
    int64_t len = (int64_t)out->kind.len, n_any = 0, n_one = 0;
    for (int64_t i = 0; i < len; i++) {
        n_any += out->kind.data[i] == PK_ANY;
        n_one += out->kind.data[i] == PK_ONE;
    }
    bool lead = len && out->kind.data[0] == PK_ANY, trail = len && out->kind.data[len - 1] == PK_ANY;
    out->mode = LM_GENERAL;
    if (n_one == 0 && n_any == lead + trail && !(len == 1 && lead)) {
        out->lit_from = lead;
        out->lit_len = len - lead - trail;
        out->mode = lead && trail ? LM_CONTAINS : lead ? LM_SUFFIX : trail ? LM_PREFIX : LM_EXACT;
    } else if (n_one == 0) {
        FLOE_TRY(like_segments(out));
    }
    return NULL;
}

/* Wildcard match with backtracking to the last '%': O(n*m) worst case,
 * linear for typical patterns.  '_' consumes one UTF-8 character. */
static bool like_match_general(const like_pat *pt, const char *s, int64_t n) {
    const uint8_t *lit = pt->lit.data, *kind = pt->kind.data;
    int64_t m = (int64_t)pt->kind.len, pi = 0, si = 0, star = -1, back = 0;
    while (si < n) {
        if (pi < m && kind[pi] == PK_LIT && lit[pi] == (uint8_t)s[si]) {
            pi++;
            si++;
        } else if (pi < m && kind[pi] == PK_ONE) {
            si += fn_utf8_len((unsigned char)s[si]);
            pi++;
        } else if (pi < m && kind[pi] == PK_ANY) {
            star = pi++;
            back = si;
        } else if (star >= 0) {
            pi = star + 1;
            back += fn_utf8_len((unsigned char)s[back]);
            si = back;
        } else {
            return false;
        }
    }
    while (pi < m && kind[pi] == PK_ANY) pi++;
    return pi == m;
}

/* LM_SEGMENTS: anchored first and last runs, the others leftmost in order. */
static bool like_match_segments(const like_pat *pt, const char *s, int64_t n) {
    const int64_t *seg = (const int64_t *)pt->segs.data;
    int64_t ns = (int64_t)(pt->segs.len / (2 * sizeof *seg)), first = 0, last = ns;
    const char *lit = (const char *)pt->lit.data, *p = s, *end = s + n;
    if (!pt->lead) { /* the first run is a prefix */
        if (n < seg[1] || memcmp(s, lit + seg[0], (size_t)seg[1]) != 0) return false;
        p += seg[1];
        first = 1;
    }
    if (!pt->trail && last > first) { /* the last run is a suffix, after the prefix */
        int64_t from = seg[2 * (ns - 1)], len = seg[2 * (ns - 1) + 1];
        if (end - p < len || memcmp(end - len, lit + from, (size_t)len) != 0) return false;
        end -= len;
        last = ns - 1;
    }
    for (int64_t k = first; k < last; k++) {
        int64_t from = seg[2 * k], len = seg[2 * k + 1];
        const char *m = memmem(p, (size_t)(end - p), lit + from, (size_t)len);
        if (!m) return false;
        p = m + len;
    }
    return true;
}

static bool like_match(const like_pat *pt, const char *s, int64_t n) {
    const char *lit = (const char *)pt->lit.data + pt->lit_from;
    int64_t ll = pt->lit_len;
    switch (pt->mode) {
    case LM_EXACT: return n == ll && (ll == 0 || memcmp(s, lit, (size_t)ll) == 0); /* lit is NULL for '' */
    case LM_PREFIX: return n >= ll && memcmp(s, lit, (size_t)ll) == 0;
    case LM_SUFFIX: return n >= ll && memcmp(s + n - ll, lit, (size_t)ll) == 0;
    case LM_CONTAINS: return ll == 0 || memmem(s, (size_t)n, lit, (size_t)ll) != NULL;
    case LM_SEGMENTS: return like_match_segments(pt, s, n);
    default: return like_match_general(pt, s, n);
    }
}

/* ILIKE folds case on both sides (the pattern's literal runs in place). */
static floe_status fold_pattern(like_pat *pt, floe_buf *tmp) {
    for (size_t i = 0; i < pt->kind.len;) {
        size_t j = i;
        while (j < pt->kind.len && pt->kind.data[j] == PK_LIT) j++;
        if (j > i) {
            floe_buf_clear(tmp);
            FLOE_TRY(fn_utf8_case((const char *)pt->lit.data + i, (int64_t)(j - i), false, tmp));
            memcpy(pt->lit.data + i, tmp->data, j - i);
        }
        i = j + 1;
    }
    return NULL;
}

typedef struct like_state {
    like_pat pat;
    floe_buf folded, tmp;
    bool compiled; /* constant pattern already compiled */
} like_state;

static floe_status like_prepare(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i,
                                like_state *ls) {
    if (ls->compiled) return NULL;
    floe_strview p = fn_get_str(a[1], i), esc = {"\\", 1};
    if (n > 2) {
        esc = fn_get_str(a[2], i);
        if (esc.len > 0 && fn_utf8_len((unsigned char)esc.data[0]) != esc.len)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: escape string '%.*s' must be empty or one character",
                              def->name, esc.len > 40 ? 40 : esc.len, esc.data);
    }
    FLOE_TRY(like_compile(p.data, p.len, esc, def->name, &ls->pat));
    if (def->tag) FLOE_TRY(fold_pattern(&ls->pat, &ls->tmp));
    ls->compiled = fn_const(a[1]) && (n < 3 || fn_const(a[2]));
    return NULL;
}

static floe_status eval_like(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                             floe_type *rt, floe_array **out) {
    like_state ls;
    memset(&ls, 0, sizeof ls);
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new((rows + 7) / 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) continue;
        st = like_prepare(def, a, n, i, &ls);
        if (st) break;
        floe_strview s = fn_get_str(a[0], i);
        if (def->tag) {
            floe_buf_clear(&ls.folded);
            st = fn_utf8_case(s.data, s.len, false, &ls.folded);
            s.data = (const char *)ls.folded.data;
        }
        if (!st && like_match(&ls.pat, s.data ? s.data : "", s.len)) floe_bit_set(vals->data, i);
    }
    like_pat_free(&ls.pat);
    floe_buf_free(&ls.folded);
    floe_buf_free(&ls.tmp);
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

bool floe_like_pure_prefix(const char *pattern, char escape, char **prefix) {
    like_pat pt;
    char esc[1] = {escape};
    floe_strview e = {esc, escape ? 1 : 0};
    bool ok = false;
    *prefix = NULL;
    memset(&pt, 0, sizeof pt);
    floe_status st = like_compile(pattern, (int64_t)strlen(pattern), e, "like", &pt);
    if (st) {
        floe_status_free(st);
    } else if (pt.mode == LM_PREFIX || (pt.kind.len == 1 && pt.kind.data[0] == PK_ANY)) {
        int64_t len = pt.mode == LM_PREFIX ? pt.lit_len : 0;
        *prefix = floe_malloc((size_t)len + 1);
        if (*prefix) {
            memcpy(*prefix, pt.lit.data, (size_t)len);
            (*prefix)[len] = 0;
            ok = true;
        }
    }
    like_pat_free(&pt);
    return ok;
}

/* ------------------------------------------ initcap, translate, chr */

/* Upper-case the first letter of each run of letters and digits, lower
 * the rest (PostgreSQL's initcap; non-ASCII letters count as letters). */
static floe_status row_initcap(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                               void *ctx) {
    (void)def, (void)ctx;
    floe_strview s = fn_get_str(a[0], i);
    bool in_word = false;
    for (int64_t p = 0; p < s.len;) {
        unsigned char c = (unsigned char)s.data[p];
        int l = fn_utf8_len(c);
        if (l > s.len - p) l = (int)(s.len - p);
        bool alnum = c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
        FLOE_TRY(fn_utf8_case(s.data + p, l, !in_word, &w->data));
        in_word = alnum;
        p += l;
    }
    return NULL;
}

/* translate(s, from, to): each character of `from` found in s becomes
 * the character at the same position in `to`, or is deleted when `to` is
 * shorter. */
static floe_status row_translate(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w,
                                 void *ctx) {
    (void)def, (void)ctx;
    floe_strview s = fn_get_str(a[0], i), from = fn_get_str(a[1], i), to = fn_get_str(a[2], i);
    for (int64_t p = 0; p < s.len;) {
        int l = fn_utf8_len((unsigned char)s.data[p]);
        if (l > s.len - p) l = (int)(s.len - p);
        int64_t k = 0, q = 0;
        bool found = false;
        while (q < from.len) { /* k-th character of from at byte q */
            int fl = fn_utf8_len((unsigned char)from.data[q]);
            if (fl == l && memcmp(from.data + q, s.data + p, (size_t)l) == 0) {
                found = true;
                break;
            }
            q += fl;
            k++;
        }
        if (!found) {
            FLOE_TRY(fn_sw_add(w, s.data + p, (size_t)l));
        } else {
            int64_t t = fn_utf8_advance(to.data, to.len, k);
            if (t < to.len) {
                int tl = fn_utf8_len((unsigned char)to.data[t]);
                if (tl > to.len - t) tl = (int)(to.len - t);
                FLOE_TRY(fn_sw_add(w, to.data + t, (size_t)tl));
            }
        }
        p += l;
    }
    return NULL;
}

/* chr(code): the character with that Unicode code point. */
static floe_status row_chr(const floe_func_def *def, floe_array *const *a, int64_t i, fn_strwriter *w, void *ctx) {
    (void)ctx;
    int64_t cp = fn_get_i64(a[0], i);
    unsigned char o[4];
    int n;
    /* PostgreSQL's messages (UTF-8 database) */
    if (cp < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: character number must be positive", def->name);
    if (cp == 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: null character not permitted", def->name);
    if (cp > 0x10FFFF)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: requested character too large for encoding: %lld", def->name,
                          (long long)cp);
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: requested character not valid for encoding: %lld", def->name,
                          (long long)cp);
    if (cp < 0x80) { o[0] = (unsigned char)cp; n = 1; }
    else if (cp < 0x800) { o[0] = (unsigned char)(0xC0 | (cp >> 6)); o[1] = (unsigned char)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        o[0] = (unsigned char)(0xF0 | (cp >> 18));
        o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return fn_sw_add(w, o, (size_t)n);
}

/* ascii(s): code point of the first character, 0 for ''. */
static int64_t val_ascii(const floe_func_def *def, floe_array *const *a, int64_t i, floe_status *st, void *ctx) {
    (void)def, (void)st, (void)ctx;
    floe_strview s = fn_get_str(a[0], i);
    if (s.len == 0) return 0;
    const unsigned char *p = (const unsigned char *)s.data;
    int l = fn_utf8_len(p[0]);
    if (l == 1 || l > s.len) return p[0];
    int64_t cp = p[0] & (0x7F >> l);
    for (int k = 1; k < l; k++) cp = (cp << 6) | (p[k] & 0x3F);
    return cp;
}

static floe_status eval_ascii(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                              floe_type *rt, floe_array **out) {
    return map_values(def, a, n, rows, rt, val_ascii, NULL, out);
}

/* ------------------------------------------------------------- table */

/* Which row function a map-style entry uses (by tag ranges). */
enum { T_LOWER, T_UPPER, T_REVERSE, T_SUBSTR, T_LEFT, T_RIGHT, T_TRIM, T_LTRIM, T_RTRIM, T_REPLACE,
       T_LPAD, T_RPAD, T_REPEAT, T_SPLIT, T_INITCAP, T_TRANSLATE, T_CHR };

static floe_status eval_map(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                            floe_type *rt, floe_array **out) {
    /* def->tag holds the T_ code; the row functions read their own
     * sub-selector from a local copy of the definition.  Missing optional
     * arguments are NULL in args[]. */
    floe_func_def d = *def;
    row_fn fn = NULL;
    floe_array *args[3] = {a[0], n > 1 ? a[1] : NULL, n > 2 ? a[2] : NULL};
    switch (def->tag) {
    case T_LOWER: d.tag = 0; fn = row_case; break;
    case T_UPPER: d.tag = 1; fn = row_case; break;
    case T_REVERSE: fn = row_reverse; break;
    case T_SUBSTR: fn = row_substring; break;
    case T_LEFT: d.tag = 0; fn = row_left_right; break;
    case T_RIGHT: d.tag = 1; fn = row_left_right; break;
    case T_TRIM: case T_LTRIM: case T_RTRIM:
        d.tag = def->tag - T_TRIM;
        fn = row_trim;
        break;
    case T_REPLACE: fn = row_replace; break;
    case T_LPAD: case T_RPAD:
        d.tag = def->tag - T_LPAD;
        fn = row_pad;
        break;
    case T_REPEAT: fn = row_repeat; break;
    case T_INITCAP: fn = row_initcap; break;
    case T_TRANSLATE: fn = row_translate; break;
    case T_CHR: fn = row_chr; break;
    default: fn = row_split_part; break;
    }
    return map_rows(&d, args, n, rows, rt, fn, NULL, out);
}

static floe_status eval_length(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                               floe_type *rt, floe_array **out) {
    return map_values(def, a, n, rows, rt, val_length, NULL, out);
}
static floe_status eval_strpos(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                               floe_type *rt, floe_array **out) {
    return map_values(def, a, n, rows, rt, val_strpos, NULL, out);
}
static floe_status eval_affix(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                              floe_type *rt, floe_array **out) {
    return map_values(def, a, n, rows, rt, val_affix, NULL, out);
}

#define STR FLOE_TYPE_STRING
const floe_func_def floe_string_funcs[] = {
    {"lower", 1, 1, "lower(string)", fn_type_simple, eval_map, T_LOWER, "S", STR},
    {"upper", 1, 1, "upper(string)", fn_type_simple, eval_map, T_UPPER, "S", STR},
    {"reverse", 1, 1, "reverse(string)", fn_type_simple, eval_map, T_REVERSE, "S", STR},
    {"length", 1, 1, "length(string)", fn_type_simple, eval_length, 0, "B", FLOE_TYPE_INT64},
    {"char_length", 1, 1, "char_length(string)", fn_type_simple, eval_length, 0, "B", FLOE_TYPE_INT64},
    {"octet_length", 1, 1, "octet_length(string)", fn_type_simple, eval_length, 1, "B", FLOE_TYPE_INT64},
    {"substring", 2, 3, "substring(string, int[, int])", fn_type_simple, eval_map, T_SUBSTR, "SII", STR},
    {"substr", 2, 3, "substr(string, int[, int])", fn_type_simple, eval_map, T_SUBSTR, "SII", STR},
    {"left", 2, 2, "left(string, int)", fn_type_simple, eval_map, T_LEFT, "SI", STR},
    {"right", 2, 2, "right(string, int)", fn_type_simple, eval_map, T_RIGHT, "SI", STR},
    {"trim", 1, 2, "trim(string[, string])", fn_type_simple, eval_map, T_TRIM, "SS", STR},
    {"btrim", 1, 2, "btrim(string[, string])", fn_type_simple, eval_map, T_TRIM, "SS", STR},
    {"ltrim", 1, 2, "ltrim(string[, string])", fn_type_simple, eval_map, T_LTRIM, "SS", STR},
    {"rtrim", 1, 2, "rtrim(string[, string])", fn_type_simple, eval_map, T_RTRIM, "SS", STR},
    {"concat", 1, -1, "concat(any, ...)", fn_type_simple, eval_concat, 0, "A", STR},
    {"textcat", 2, 2, "textcat(any, any)", fn_type_simple, eval_concat, 1, "AA", STR},
    {"concat_ws", 2, -1, "concat_ws(string, any, ...)", fn_type_simple, eval_concat, 2, "SA", STR},
    {"replace", 3, 3, "replace(string, string, string)", fn_type_simple, eval_map, T_REPLACE, "SSS", STR},
    {"strpos", 2, 2, "strpos(string, string)", fn_type_simple, eval_strpos, 0, "SS", FLOE_TYPE_INT64},
    {"lpad", 2, 3, "lpad(string, int[, string])", fn_type_simple, eval_map, T_LPAD, "SIS", STR},
    {"rpad", 2, 3, "rpad(string, int[, string])", fn_type_simple, eval_map, T_RPAD, "SIS", STR},
    {"repeat", 2, 2, "repeat(string, int)", fn_type_simple, eval_map, T_REPEAT, "SI", STR},
    {"starts_with", 2, 2, "starts_with(string, string)", fn_type_simple, eval_affix, 0, "SS", FLOE_TYPE_BOOL},
    {"ends_with", 2, 2, "ends_with(string, string)", fn_type_simple, eval_affix, 1, "SS", FLOE_TYPE_BOOL},
    {"contains", 2, 2, "contains(string, string)", fn_type_simple, eval_affix, 2, "SS", FLOE_TYPE_BOOL},
    {"split_part", 3, 3, "split_part(string, string, int)", fn_type_simple, eval_map, T_SPLIT, "SSI", STR},
    {"initcap", 1, 1, "initcap(string)", fn_type_simple, eval_map, T_INITCAP, "S", STR},
    {"translate", 3, 3, "translate(string, string, string)", fn_type_simple, eval_map, T_TRANSLATE, "SSS", STR},
    {"chr", 1, 1, "chr(int)", fn_type_simple, eval_map, T_CHR, "I", STR},
    {"ascii", 1, 1, "ascii(string)", fn_type_simple, eval_ascii, 0, "S", FLOE_TYPE_INT64},
    {"like", 2, 3, "like(string, string[, string])", fn_type_simple, eval_like, 0, "SSS", FLOE_TYPE_BOOL},
    {"ilike", 2, 3, "ilike(string, string[, string])", fn_type_simple, eval_like, 1, "SSS", FLOE_TYPE_BOOL},
    {0},
};
