/*
 * regex.c — PostgreSQL regular expressions on PCRE2 (see regex.h): ARE →
 * PCRE2 translation, SIMILAR TO → ARE, flag letters, the compiled-pattern
 * cache and matching.
 *
 * The cache is process-wide (a small table under a mutex): kernels run per
 * batch on pool threads, and a constant pattern should be compiled (and
 * JIT-compiled) once, not per batch.  pcre2_code is read-only after
 * compilation, so threads share it; each kernel call has its own match
 * data.  Entries are refcounted so an eviction never frees a pattern a
 * running kernel still uses.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "exec/func/regex.h"

/* ------------------------------------------------------------ options */

fn_regex_opts fn_regex_default_opts(void) {
    fn_regex_opts o = {0};
    o.dotnl = true;
    return o;
}

/* One option letter, shared by flag arguments and embedded (?...) options. */
static bool apply_letter(char c, fn_regex_opts *o) {
    switch (c) {
    case 'i': o->icase = true; return true;
    case 'c': o->icase = false; return true;
    case 'n': case 'm': o->newline = true, o->dotnl = false, o->multiline = true; return true;
    case 'p': o->dotnl = false, o->multiline = false; return true;
    case 'w': o->dotnl = true, o->multiline = true; return true;
    case 's': o->newline = false, o->dotnl = true, o->multiline = false; return true;
    case 'x': o->expanded = true; return true;
    case 't': o->expanded = false; return true;
    case 'q': o->literal = true; return true;
    case 'e': case 'b': return true; /* ERE / BRE flavours: read as ARE */
    default: return false;
    }
}

floe_status fn_regex_flags(const char *fname, const char *f, int64_t n, bool allow_g, fn_regex_opts *o) {
    for (int64_t i = 0; i < n; i++) {
        if (f[i] == 'g') {
            if (!allow_g)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s() does not support the \"global\" option", fname);
            o->global = true;
            continue;
        }
        if (f[i] == 'b' || f[i] == 'e' || !apply_letter(f[i], o))
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid regular expression option: \"%.*s\"",
                              (int)(f[i] & 0x80 ? 1 : 1), f + i);
    }
    return NULL;
}

/* -------------------------------------------------------- translation */

static int hexdig(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

floe_status fn_regex_translate(const char *p, int64_t n, fn_regex_opts *o, floe_buf *out) {
    int64_t i = 0;
    /* Director prefixes: ***= the rest is literal, ***: the rest is an ARE. */
    if (n >= 4 && !memcmp(p, "***=", 4)) {
        o->literal = true;
        i = 4;
    }
    if (n >= 4 && !memcmp(p, "***:", 4)) i = 4;
    /* Leading embedded options (?letters). */
    if (i + 2 < n && p[i] == '(' && p[i + 1] == '?') {
        int64_t k = i + 2;
        fn_regex_opts t = *o;
        bool ok = true;
        while (k < n && p[k] != ')' && ok) ok = apply_letter(p[k++], &t);
        if (ok && k < n && k > i + 2) {
            *o = t;
            i = k + 1;
        }
    }
    if (o->literal) {
        /* Every ASCII punctuation character escaped (PCRE2_LITERAL does not
         * combine with the UCP option). */
        for (; i < n; i++) {
            unsigned char c = (unsigned char)p[i];
            bool word = c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            if (!word) FLOE_TRY(floe_buf_append_byte(out, '\\'));
            FLOE_TRY(floe_buf_append_byte(out, c));
        }
        return NULL;
    }
    bool in_bracket = false;
    while (i < n) {
        char c = p[i];
        if (in_bracket) {
            /* Copy up to the closing ']', keeping [:class:] whole. */
            if (c == '[' && i + 1 < n && (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
                char d = p[i + 1];
                int64_t k = i + 2;
                while (k + 1 < n && !(p[k] == d && p[k + 1] == ']')) k++;
                int64_t end = k + 1 < n ? k + 2 : n;
                FLOE_TRY(floe_buf_append(out, p + i, (size_t)(end - i)));
                i = end;
                continue;
            }
            if (c == '\\' && i + 1 < n) {
                FLOE_TRY(floe_buf_append(out, p + i, 2));
                i += 2;
                continue;
            }
            if (c == ']') in_bracket = false;
            FLOE_TRY(floe_buf_append_byte(out, (uint8_t)c));
            i++;
            continue;
        }
        if (c == '[') {
            /* '[' then an optional '^' then a literal ']' if first. */
            in_bracket = true;
            FLOE_TRY(floe_buf_append_byte(out, '['));
            i++;
            if (i < n && p[i] == '^') FLOE_TRY(floe_buf_append_byte(out, (uint8_t)p[i++]));
            if (i < n && p[i] == ']') {
                FLOE_TRY(floe_buf_append(out, "\\]", 2));
                i++;
            }
            continue;
        }
        if (c == '\\' && i + 1 < n) {
            char e = p[i + 1];
            const char *rep = NULL;
            switch (e) {
            case 'm': rep = "\\b(?=\\w)"; break;
            case 'M': rep = "\\b(?<=\\w)"; break;
            case 'y': rep = "\\b"; break;
            case 'Y': rep = "\\B"; break;
            case 'Z': rep = "\\z"; break;
            case 'B': rep = "\\\\"; break;
            default: break;
            }
            if (rep) {
                FLOE_TRY(floe_buf_append_str(out, rep));
                i += 2;
                continue;
            }
            if (e == 'u' || e == 'U') {
                int want = e == 'u' ? 4 : 8, k = 0;
                while (k < want && i + 2 + k < n && hexdig(p[i + 2 + k]) >= 0) k++;
                if (k == want) {
                    FLOE_TRY(floe_buf_printf(out, "\\x{%.*s}", want, p + i + 2));
                    i += 2 + want;
                    continue;
                }
            }
            FLOE_TRY(floe_buf_append(out, p + i, 2));
            i += 2;
            continue;
        }
        FLOE_TRY(floe_buf_append_byte(out, (uint8_t)c));
        i++;
    }
    return NULL;
}

floe_status fn_similar_to_are(const char *p, int64_t n, int esc, floe_buf *out) {
    FLOE_TRY(floe_buf_append_str(out, "^(?:"));
    /* does the pattern have a separator (esc followed by a double quote)? */
    bool lazy_part = false;
    for (int64_t i = 0; esc >= 0 && i + 1 < n; i++)
        if ((unsigned char)p[i] == (unsigned char)esc) {
            if (p[i + 1] == '"') lazy_part = true;
            i++;
        }
    bool after_esc = false, in_bracket = false;
    int seps = 0; /* escape-double-quote separators so far */
    for (int64_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (after_esc && c == '"' && !in_bracket) {
            /* esc" splits the pattern into ^(?:A){1,1}?(B){1,1}(?:C)$: B
             * is what substring(... SIMILAR ...) returns, A matches as
             * little as it can (its quantifiers lazy below), B as much */
            if (++seps > 2)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                                  "SQL regular expression may not contain more than two escape-double-quote separators");
            FLOE_TRY(floe_buf_append_str(out, seps == 1 ? "){1,1}?(" : "){1,1}(?:"));
            after_esc = false;
        } else if (after_esc) {
            /* An escaped character is literal. */
            FLOE_TRY(floe_buf_append_byte(out, '\\'));
            FLOE_TRY(floe_buf_append_byte(out, c));
            after_esc = false;
        } else if (esc >= 0 && c == (unsigned char)esc) {
            after_esc = true;
        } else if (in_bracket) {
            if (c == '\\') FLOE_TRY(floe_buf_append_byte(out, '\\'));
            FLOE_TRY(floe_buf_append_byte(out, c));
            if (c == ']') in_bracket = false;
        } else if (c == '[') {
            in_bracket = true;
            FLOE_TRY(floe_buf_append_byte(out, c));
        } else if (c == '%') {
            /* before a first separator that is still to come: lazy (PCRE
             * has no ARE-style whole-part greediness) */
            FLOE_TRY(floe_buf_append_str(out, seps == 0 && lazy_part ? ".*?" : ".*"));
        } else if ((c == '*' || c == '+' || c == '?') && seps == 0 && lazy_part) {
            FLOE_TRY(floe_buf_append_byte(out, c));
            FLOE_TRY(floe_buf_append_byte(out, '?'));
        } else if (c == '_') {
            FLOE_TRY(floe_buf_append_byte(out, '.'));
        } else if (c == '(') {
            FLOE_TRY(floe_buf_append_str(out, "(?:"));
        } else if (c == '\\' || c == '.' || c == '^' || c == '$') {
            FLOE_TRY(floe_buf_append_byte(out, '\\'));
            FLOE_TRY(floe_buf_append_byte(out, c));
        } else {
            FLOE_TRY(floe_buf_append_byte(out, c));
        }
    }
    if (after_esc)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid escape string: a SIMILAR TO pattern must not end "
                          "with the escape character");
    return floe_buf_append_str(out, ")$");
}

/* -------------------------------------------------------------- cache */

struct fn_regex {
    _Atomic int32_t refs;
    pcre2_code *code;
    int32_t groups;
};

#define CACHE_SLOTS 64
static struct {
    char *key; /* options byte + pattern */
    size_t key_len;
    fn_regex *re;
} cache[CACHE_SLOTS];
static size_t cache_next; /* round-robin victim */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

void fn_regex_release(fn_regex *re) {
    if (!re || atomic_fetch_sub(&re->refs, 1) != 1) return;
    pcre2_code_free(re->code);
    floe_free(re);
}

int32_t fn_regex_groups(const fn_regex *re) { return re->groups; }

static floe_status compile(const char *p, int64_t n, const fn_regex_opts *o0, fn_regex **out) {
    fn_regex_opts o = *o0;
    floe_buf t = FLOE_BUF_INIT;
    floe_status st = fn_regex_translate(p, n, &o, &t);
    if (st) {
        floe_buf_free(&t);
        return st;
    }
    uint32_t flags = PCRE2_UTF | PCRE2_UCP;
    if (o.icase) flags |= PCRE2_CASELESS;
    if (o.dotnl) flags |= PCRE2_DOTALL;
    if (o.multiline) flags |= PCRE2_MULTILINE;
    else flags |= PCRE2_DOLLAR_ENDONLY;
    if (o.expanded) flags |= PCRE2_EXTENDED;
    if (o.literal) flags &= ~(uint32_t)PCRE2_EXTENDED;
    int err = 0;
    PCRE2_SIZE eoff = 0;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)(t.data ? (const char *)t.data : ""), t.len, flags, &err, &eoff,
                                     NULL);
    floe_buf_free(&t);
    if (!code) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(err, msg, sizeof msg) < 0) strcpy((char *)msg, "error");
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "invalid regular expression: %s (at offset %zu of the translated pattern) in \"%.*s\"",
                          (const char *)msg, (size_t)eoff, (int)(n > 200 ? 200 : n), p);
    }
    (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* falls back to the interpreter */
    fn_regex *re = floe_calloc(1, sizeof *re);
    if (!re) {
        pcre2_code_free(code);
        return floe_error(FLOE_ERR_OUT_OF_MEMORY, "compiling a regular expression");
    }
    uint32_t cap = 0;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &cap);
    atomic_init(&re->refs, 1);
    re->code = code;
    re->groups = (int32_t)cap;
    *out = re;
    return NULL;
}

floe_status fn_regex_get(const char *p, int64_t n, const fn_regex_opts *o, fn_regex **out) {
    *out = NULL;
    /* The key: the options that change compilation, then the pattern. */
    char ob = (char)('@' | (o->icase ? 1 : 0) | (o->dotnl ? 2 : 0) | (o->multiline ? 4 : 0) |
                     (o->expanded ? 8 : 0) | (o->literal ? 16 : 0));
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < CACHE_SLOTS; i++) {
        if (cache[i].re && cache[i].key_len == (size_t)n + 1 && cache[i].key[0] == ob &&
            !memcmp(cache[i].key + 1, p, (size_t)n)) {
            atomic_fetch_add(&cache[i].re->refs, 1);
            *out = cache[i].re;
            pthread_mutex_unlock(&cache_mu);
            return NULL;
        }
    }
    pthread_mutex_unlock(&cache_mu);
    fn_regex *re = NULL;
    FLOE_TRY(compile(p, n, o, &re));
    char *key = floe_malloc((size_t)n + 1);
    if (key) {
        key[0] = ob;
        if (n) memcpy(key + 1, p, (size_t)n);
        atomic_fetch_add(&re->refs, 1); /* the cache's reference */
        pthread_mutex_lock(&cache_mu);
        size_t v = cache_next++ % CACHE_SLOTS;
        fn_regex *old = cache[v].re;
        char *old_key = cache[v].key;
        cache[v].key = key;
        cache[v].key_len = (size_t)n + 1;
        cache[v].re = re;
        pthread_mutex_unlock(&cache_mu);
        fn_regex_release(old);
        floe_free(old_key);
    }
    *out = re;
    return NULL;
}

/* ------------------------------------------------------------ matching */

floe_status fn_match_init(fn_match *m, fn_regex *re) {
    memset(m, 0, sizeof *m);
    m->re = re;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
    if (!md) return floe_error(FLOE_ERR_OUT_OF_MEMORY, "regular expression match data");
    m->md = md;
    m->ov = pcre2_get_ovector_pointer(md);
    return NULL;
}

void fn_match_free(fn_match *m) {
    if (m->md) pcre2_match_data_free(m->md);
    memset(m, 0, sizeof *m);
}

floe_status fn_match_find(fn_match *m, const char *s, int64_t n, int64_t start, bool *found) {
    *found = false;
    if (start > n) return NULL;
    /* Check a subject's UTF-8 once, not at every match of a global scan. */
    uint32_t opts = 0;
    if (m->checked && m->subject == s) opts |= PCRE2_NO_UTF_CHECK;
    static const char empty[1] = "";
    int rc = pcre2_match(m->re->code, (PCRE2_SPTR)(s ? s : empty), (PCRE2_SIZE)n, (PCRE2_SIZE)start, opts,
                         m->md, NULL);
    m->subject = s;
    m->checked = rc >= 0 || rc == PCRE2_ERROR_NOMATCH;
    if (rc == PCRE2_ERROR_NOMATCH) return NULL;
    if (rc < 0) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(rc, msg, sizeof msg) < 0) strcpy((char *)msg, "error");
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "regular expression failed: %s", (const char *)msg);
    }
    *found = true;
    return NULL;
}

floe_status fn_match_next(fn_match *m, const char *s, int64_t n, bool *found) {
    /* As PostgreSQL: after an empty match, search from one character on
     * (the character stays unmatched); after another, from its end. */
    int64_t st = (int64_t)m->ov[0], en = (int64_t)m->ov[1];
    int64_t next = en;
    if (st == en) {
        if (en >= n) {
            *found = false;
            return NULL;
        }
        unsigned char c = (unsigned char)s[en];
        next = en + (c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4);
        if (next > n) next = n;
    }
    return fn_match_find(m, s, n, next, found);
}
