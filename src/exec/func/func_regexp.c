/*
 * func_regexp.c — PostgreSQL 15's regular-expression functions on PCRE2
 * (regex.h translates the ARE syntax and caches compiled patterns):
 * regexp_like (also behind ~ ~* !~ !~*), regexp_replace, regexp_match,
 * regexp_count, regexp_instr, regexp_substr, regexp_split_to_array,
 * similar_to_escape (behind SIMILAR TO) and the regular-expression form of
 * substring(s FROM pattern), and __regexp_matches: regexp_matches' rows
 * as one list of text[] a row, which the binder unnests (bind_unnest.c;
 * regexp_split_to_table is unnest(regexp_split_to_array(...)) the same
 * way).  The plain regexp_matches / regexp_split_to_table entries are
 * reached only where no set-returning function may stand.
 *
 * Every function is strict (a NULL argument gives NULL).  Positions are in
 * characters, 1-based, as PostgreSQL's; matching works on UTF-8 bytes.  A
 * constant pattern is looked up once per batch (and compiled once per
 * process, regex.c's cache); a pattern column re-looks up only when the
 * pattern (or the flags) change from the previous row.
 */
#include <string.h>

#include "exec/func/functions.h"
#include "exec/func/regex.h"

enum { R_LIKE, R_REPLACE, R_MATCH, R_COUNT, R_INSTR, R_SUBSTR, R_SPLIT, R_SUBSTRING, R_SIMILAR, R_SRF, R_MATCHES };

/* ------------------------------------------------------------- types */

static floe_status list_of_strings(floe_type **out) {
    floe_field e = {0};
    floe_status st = floe_field_init(&e, "element", floe_type_primitive(FLOE_TYPE_STRING), true, -1);
    if (!st) st = floe_type_list(&e, out);
    floe_field_clear(&e);
    return st;
}

static floe_status type_regexp(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                               int32_t n, floe_type **out) {
    (void)args;
    if (def->tag == R_SRF)
        return floe_error(FLOE_ERR_UNSUPPORTED,
                          "%s is a set-returning function, which floe does not support yet (use %s)", def->name,
                          !strcmp(def->name, "regexp_matches") ? "regexp_match, or regexp_count / regexp_substr "
                                                                 "with an occurrence number"
                                                               : "regexp_split_to_array");
    size_t nk = strlen(def->kinds);
    /* regexp_replace(s, p, r, start, ...) vs regexp_replace(s, p, r, flags) */
    for (int32_t i = 0; i < n; i++) {
        char k = def->kinds[(size_t)i < nk ? (size_t)i : nk - 1];
        if (def->tag == R_REPLACE && i == 3) k = n == 4 && fn_is_string(types[3]) ? 'S' : 'I';
        if (!fn_kind_ok(k, types[i])) return fn_type_error(def, types, n);
    }
    if (def->tag == R_MATCH || def->tag == R_SPLIT) return list_of_strings(out);
    if (def->tag == R_MATCHES) {
        /* one text[] per match: the list unnest() expands (bind_unnest.c) */
        floe_type *inner = NULL;
        FLOE_TRY(list_of_strings(&inner));
        floe_field e = {0};
        floe_status st = floe_field_init(&e, "element", inner, true, -1);
        if (!st) st = floe_type_list(&e, out);
        floe_field_clear(&e);
        floe_type_release(inner);
        return st;
    }
    *out = floe_type_primitive(def->result);
    return NULL;
}

/* ------------------------------------------------------ pattern state */

/* The compiled pattern for the current row, kept while rows repeat it. */
typedef struct rx_state {
    fn_regex *re;
    fn_match m;
    floe_buf key; /* the pattern bytes the current `re` was built from */
    fn_regex_opts o;
    bool have;
} rx_state;

static void rx_free(rx_state *r) {
    fn_match_free(&r->m);
    fn_regex_release(r->re);
    floe_buf_free(&r->key);
    memset(r, 0, sizeof *r);
}

static bool same_opts(const fn_regex_opts *a, const fn_regex_opts *b) {
    return a->icase == b->icase && a->dotnl == b->dotnl && a->multiline == b->multiline &&
           a->expanded == b->expanded && a->literal == b->literal;
}

static floe_status rx_row(rx_state *r, floe_strview pat, const fn_regex_opts *o) {
    if (r->have && same_opts(&r->o, o) && r->key.len == (size_t)pat.len &&
        (pat.len == 0 || !memcmp(r->key.data, pat.data, (size_t)pat.len)))
        return NULL;
    fn_match_free(&r->m);
    fn_regex_release(r->re);
    r->re = NULL;
    r->have = false;
    FLOE_TRY(fn_regex_get(pat.data, pat.len, o, &r->re));
    FLOE_TRY(fn_match_init(&r->m, r->re));
    floe_buf_clear(&r->key);
    FLOE_TRY(floe_buf_append(&r->key, pat.data, (size_t)pat.len));
    r->o = *o;
    r->have = true;
    return NULL;
}

/* ------------------------------------------------------------ helpers */

static int64_t char_pos(const char *s, size_t byte_off) { return fn_utf8_count(s, (int64_t)byte_off) + 1; }

/* Append the text of the replacement for the match in m (PostgreSQL's
 * \1..\9, \& and \\; any other backslash is kept as it is). */
static floe_status add_replacement(floe_buf *o, const fn_match *m, int32_t groups, const char *s,
                                   floe_strview rep) {
    for (int64_t i = 0; i < rep.len; i++) {
        char c = rep.data[i];
        if (c == '\\' && i + 1 < rep.len) {
            char d = rep.data[i + 1];
            int g = -1;
            if (d >= '1' && d <= '9') g = d - '0';
            else if (d == '&') g = 0;
            if (g >= 0) {
                if (g <= groups && m->ov[2 * g] != FN_UNSET)
                    FLOE_TRY(floe_buf_append(o, s + m->ov[2 * g], m->ov[2 * g + 1] - m->ov[2 * g]));
                i++;
                continue;
            }
            if (d == '\\') {
                FLOE_TRY(floe_buf_append_byte(o, '\\'));
                i++;
                continue;
            }
        }
        FLOE_TRY(floe_buf_append_byte(o, (uint8_t)c));
    }
    return NULL;
}

static floe_status bad_param(const char *name, int64_t v) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid value for parameter \"%s\": %lld", name, (long long)v);
}

/* The byte offset of 1-based character position `start` (error below 1). */
static floe_status start_byte(const char *s, int64_t n, int64_t start, int64_t *out) {
    if (start < 1) return bad_param("start", start);
    *out = fn_utf8_advance(s, n, start - 1);
    if (start - 1 > 0 && *out >= n && fn_utf8_count(s, n) < start - 1) *out = n + 1; /* past the end */
    return NULL;
}

/* ------------------------------------------------------------ kernels */

/* Argument layout per function: where the flags, start, N, ... sit. */
typedef struct rx_args {
    int flags, start, nth, endopt, subexpr, rep;
} rx_args;

static rx_args layout(const floe_func_def *def, floe_array *const *a, int32_t n) {
    rx_args l = {-1, -1, -1, -1, -1, -1};
    switch (def->tag) {
    case R_LIKE: case R_MATCH: case R_SPLIT: case R_MATCHES: l.flags = n > 2 ? 2 : -1; break;
    case R_REPLACE:
        l.rep = 2;
        if (n == 4 && a[3]->type->id != FLOE_TYPE_INT32 && a[3]->type->id != FLOE_TYPE_INT64) l.flags = 3;
        else {
            l.start = n > 3 ? 3 : -1;
            l.nth = n > 4 ? 4 : -1;
            l.flags = n > 5 ? 5 : -1;
        }
        break;
    case R_COUNT: l.start = n > 2 ? 2 : -1, l.flags = n > 3 ? 3 : -1; break;
    case R_INSTR:
        l.start = n > 2 ? 2 : -1, l.nth = n > 3 ? 3 : -1, l.endopt = n > 4 ? 4 : -1;
        l.flags = n > 5 ? 5 : -1, l.subexpr = n > 6 ? 6 : -1;
        break;
    case R_SUBSTR:
        l.start = n > 2 ? 2 : -1, l.nth = n > 3 ? 3 : -1, l.flags = n > 4 ? 4 : -1, l.subexpr = n > 5 ? 5 : -1;
        break;
    default: break;
    }
    return l;
}

static floe_status eval_regexp(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                               floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL;
    floe_builder *b = NULL;
    rx_state r = {0};
    floe_buf tmp = FLOE_BUF_INIT;
    rx_args l = layout(def, a, n);
    FLOE_TRY(fn_validity(a, n, rows, &valid));
    floe_status st = floe_builder_new(rt, rows, &b);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) {
            st = floe_builder_append_null(b);
            continue;
        }
        floe_strview s = fn_get_str(a[0], i), pat = {0};
        if (def->tag != R_SIMILAR) pat = fn_get_str(a[1], i);
        fn_regex_opts o = fn_regex_default_opts();
        if (def->tag == R_SIMILAR) {
            /* similar_to_escape(pattern [, escape]): the ARE text. */
            int esc = '\\';
            if (n > 1) {
                floe_strview e = fn_get_str(a[1], i);
                if (e.len == 0) esc = -1;
                else if (fn_utf8_count(e.data, e.len) != 1 || (unsigned char)e.data[0] >= 0x80)
                    st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid escape string: escape string must be "
                                    "empty or one character");
                else esc = e.data[0];
            }
            floe_buf_clear(&tmp);
            if (!st) st = fn_similar_to_are(s.data, s.len, esc, &tmp);
            if (!st) st = floe_builder_append_binary(b, tmp.data, (int64_t)tmp.len);
            continue;
        }
        if (l.flags >= 0) {
            floe_strview f = fn_get_str(a[l.flags], i);
            st = fn_regex_flags(def->tag == R_MATCHES ? "regexp_matches" : def->name, f.data, f.len,
                                def->tag == R_REPLACE || def->tag == R_MATCHES, &o);
        }
        if (!st) st = rx_row(&r, pat, &o);
        if (st) break;
        int64_t start = 0, nth = 1, endopt = 0, subexpr = 0;
        if (l.start >= 0) st = start_byte(s.data, s.len, fn_get_i64(a[l.start], i), &start);
        if (!st && l.nth >= 0) {
            nth = fn_get_i64(a[l.nth], i);
            if (nth < (def->tag == R_REPLACE ? 0 : 1)) st = bad_param("n", nth);
        }
        if (!st && l.endopt >= 0) {
            endopt = fn_get_i64(a[l.endopt], i);
            if (endopt != 0 && endopt != 1) st = bad_param("endoption", endopt);
        }
        if (!st && l.subexpr >= 0) {
            subexpr = fn_get_i64(a[l.subexpr], i);
            if (subexpr < 0) st = bad_param("subexpr", subexpr);
        }
        if (st) break;
        int32_t groups = fn_regex_groups(r.re);
        bool found = false;
        switch (def->tag) {
        case R_LIKE:
            st = fn_match_find(&r.m, s.data, s.len, 0, &found);
            if (!st) st = floe_builder_append_bool(b, found);
            break;
        case R_SUBSTRING:
            /* substring(s FROM pattern): the first group, else the match */
            st = fn_match_find(&r.m, s.data, s.len, 0, &found);
            if (!st && !found) st = floe_builder_append_null(b);
            else if (!st) {
                int g = groups > 0 ? 1 : 0;
                if (r.m.ov[2 * g] == FN_UNSET) st = floe_builder_append_null(b);
                else st = floe_builder_append_binary(b, s.data + r.m.ov[2 * g], (int64_t)(r.m.ov[2 * g + 1] - r.m.ov[2 * g]));
            }
            break;
        case R_MATCH:
            st = fn_match_find(&r.m, s.data, s.len, 0, &found);
            if (!st && !found) st = floe_builder_append_null(b);
            else if (!st) {
                floe_builder *c = floe_builder_child(b, 0);
                for (int g = groups ? 1 : 0; g <= groups && !st; g++) {
                    if (r.m.ov[2 * g] == FN_UNSET) st = floe_builder_append_null(c);
                    else st = floe_builder_append_binary(c, s.data + r.m.ov[2 * g], (int64_t)(r.m.ov[2 * g + 1] - r.m.ov[2 * g]));
                }
                if (!st) st = floe_builder_append_list(b);
            }
            break;
        case R_MATCHES: {
            /* regexp_matches: every match with 'g', else the first; each
             * as regexp_match's array */
            floe_builder *c = floe_builder_child(b, 0), *cc = floe_builder_child(c, 0);
            st = fn_match_find(&r.m, s.data, s.len, 0, &found);
            while (!st && found) {
                for (int g = groups ? 1 : 0; g <= groups && !st; g++) {
                    if (r.m.ov[2 * g] == FN_UNSET) st = floe_builder_append_null(cc);
                    else st = floe_builder_append_binary(cc, s.data + r.m.ov[2 * g], (int64_t)(r.m.ov[2 * g + 1] - r.m.ov[2 * g]));
                }
                if (!st) st = floe_builder_append_list(c);
                if (!st && !o.global) break;
                if (!st) st = fn_match_next(&r.m, s.data, s.len, &found);
            }
            if (!st) st = floe_builder_append_list(b);
            break;
        }
        case R_REPLACE: {
            /* All matches with 'g' or N = 0; else the N-th (default first). */
            bool all = o.global || (l.nth >= 0 && nth == 0);
            floe_strview rep = fn_get_str(a[l.rep], i);
            floe_buf_clear(&tmp);
            size_t copied = 0;
            int64_t k = 0;
            st = fn_match_find(&r.m, s.data, s.len, start, &found);
            while (!st && found) {
                k++;
                if (all || k == nth) {
                    st = floe_buf_append(&tmp, s.data + copied, r.m.ov[0] - copied);
                    if (!st) st = add_replacement(&tmp, &r.m, groups, s.data, rep);
                    copied = r.m.ov[1];
                    if (!all) break;
                }
                if (!st) st = fn_match_next(&r.m, s.data, s.len, &found);
            }
            if (!st) st = floe_buf_append(&tmp, s.data + copied, (size_t)s.len - copied);
            if (!st) st = floe_builder_append_binary(b, tmp.data, (int64_t)tmp.len);
            break;
        }
        case R_COUNT: {
            int64_t k = 0;
            st = fn_match_find(&r.m, s.data, s.len, start, &found);
            while (!st && found) {
                k++;
                st = fn_match_next(&r.m, s.data, s.len, &found);
            }
            if (!st) st = floe_builder_append_int32(b, (int32_t)k);
            break;
        }
        case R_INSTR: case R_SUBSTR: {
            int64_t k = 0;
            st = fn_match_find(&r.m, s.data, s.len, start, &found);
            while (!st && found && ++k < nth) st = fn_match_next(&r.m, s.data, s.len, &found);
            bool ok = !st && found && subexpr <= groups && r.m.ov[2 * subexpr] != FN_UNSET;
            if (st) break;
            if (def->tag == R_INSTR) {
                int64_t pos = 0;
                if (ok) pos = char_pos(s.data, endopt ? r.m.ov[2 * subexpr + 1] : r.m.ov[2 * subexpr]);
                st = floe_builder_append_int32(b, (int32_t)pos);
            } else if (!ok) {
                st = floe_builder_append_null(b);
            } else {
                st = floe_builder_append_binary(b, s.data + r.m.ov[2 * subexpr],
                                                (int64_t)(r.m.ov[2 * subexpr + 1] - r.m.ov[2 * subexpr]));
            }
            break;
        }
        case R_SPLIT: {
            /* PostgreSQL ignores empty matches at the start, at the end and
             * right after the previous match. */
            floe_builder *c = floe_builder_child(b, 0);
            size_t piece = 0, prev_end = 0;
            st = fn_match_find(&r.m, s.data, s.len, 0, &found);
            while (!st && found) {
                size_t ms = r.m.ov[0], me = r.m.ov[1];
                if (ms < (size_t)s.len && me > prev_end) {
                    st = floe_builder_append_binary(c, s.data + piece, (int64_t)(ms - piece));
                    piece = me;
                }
                prev_end = me;
                if (!st) st = fn_match_next(&r.m, s.data, s.len, &found);
            }
            if (!st) st = floe_builder_append_binary(c, s.data + piece, (int64_t)((size_t)s.len - piece));
            if (!st) st = floe_builder_append_list(b);
            break;
        }
        default: st = floe_error(FLOE_ERR_INTERNAL, "%s: no kernel", def->name);
        }
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_buffer_release(valid);
    floe_buf_free(&tmp);
    rx_free(&r);
    return st;
}

#define STR FLOE_TYPE_STRING
const floe_func_def floe_regexp_funcs[] = {
    {"regexp_like", 2, 3, "regexp_like(string, string[, flags])", type_regexp, eval_regexp, R_LIKE, "S",
     FLOE_TYPE_BOOL},
    {"regexp_replace", 3, 6, "regexp_replace(string, string, string[, start[, N]][, flags])", type_regexp,
     eval_regexp, R_REPLACE, "SSSIIS", STR},
    {"regexp_match", 2, 3, "regexp_match(string, string[, flags])", type_regexp, eval_regexp, R_MATCH, "S", STR},
    {"regexp_count", 2, 4, "regexp_count(string, string[, start[, flags]])", type_regexp, eval_regexp, R_COUNT,
     "SSIS", FLOE_TYPE_INT32},
    {"regexp_instr", 2, 7, "regexp_instr(string, string[, start[, N[, endoption[, flags[, subexpr]]]]])",
     type_regexp, eval_regexp, R_INSTR, "SSIIISI", FLOE_TYPE_INT32},
    {"regexp_substr", 2, 6, "regexp_substr(string, string[, start[, N[, flags[, subexpr]]]])", type_regexp,
     eval_regexp, R_SUBSTR, "SSIISI", STR},
    {"regexp_split_to_array", 2, 3, "regexp_split_to_array(string, string[, flags])", type_regexp, eval_regexp,
     R_SPLIT, "S", STR},
    {"__regexp_substring", 2, 2, "substring(string FROM pattern)", type_regexp, eval_regexp, R_SUBSTRING, "S",
     STR},
    {"similar_to_escape", 1, 2, "similar_to_escape(string[, string])", type_regexp, eval_regexp, R_SIMILAR, "S",
     STR},
    {"__regexp_matches", 2, 3, "regexp_matches(string, string[, flags])", type_regexp, eval_regexp, R_MATCHES,
     "S", STR},
    {"regexp_matches", 2, 3, "regexp_matches(string, string[, flags])", type_regexp, eval_regexp, R_SRF, "S", STR},
    {"regexp_split_to_table", 2, 3, "regexp_split_to_table(string, string[, flags])", type_regexp, eval_regexp,
     R_SRF, "S", STR},
    {0},
};
