/*
 * json_text.c — validating, walking and normalizing JSON text (see
 * json_text.h).  Recursive descent over the bytes, depth-limited; nothing
 * is built but the normalized form, which sorts each object's members.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/func/json_text.h"

#define MAX_DEPTH 1000

typedef struct jt_scan {
    const char *s;
    int64_t n, i;
    int depth;
} jt_scan;

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static void skip_ws(jt_scan *j) {
    while (j->i < j->n && blank(j->s[j->i])) j->i++;
}

/* The error PostgreSQL gives, with its detail. */
static floe_status syntax(jt_scan *j) {
    if (j->i >= j->n)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT,
                          "invalid input syntax for type json: the input string ended unexpectedly");
    /* The token: a run of word characters, or one character. */
    int64_t e = j->i + 1;
    while (e < j->n && ((j->s[e] >= 'a' && j->s[e] <= 'z') || (j->s[e] >= 'A' && j->s[e] <= 'Z') ||
                        (j->s[e] >= '0' && j->s[e] <= '9') || (unsigned char)j->s[e] >= 0x80) &&
           ((j->s[j->i] >= 'a' && j->s[j->i] <= 'z') || (j->s[j->i] >= 'A' && j->s[j->i] <= 'Z') ||
            (j->s[j->i] >= '0' && j->s[j->i] <= '9') || (unsigned char)j->s[j->i] >= 0x80))
        e++;
    if (e - j->i > 40) e = j->i + 40;
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type json: token \"%.*s\" is invalid",
                      (int)(e - j->i), j->s + j->i);
}

static int hexv(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static floe_status skip_string(jt_scan *j) {
    j->i++; /* the quote */
    while (j->i < j->n) {
        unsigned char c = (unsigned char)j->s[j->i];
        if (c == '"') {
            j->i++;
            return NULL;
        }
        if (c < 0x20) return syntax(j);
        if (c == '\\') {
            if (j->i + 1 >= j->n) {
                j->i = j->n;
                return syntax(j);
            }
            char e = j->s[j->i + 1];
            if (e == 'u') {
                for (int k = 0; k < 4; k++)
                    if (j->i + 2 + k >= j->n || hexv(j->s[j->i + 2 + k]) < 0) {
                        j->i += 2 + k;
                        return syntax(j);
                    }
                j->i += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || !e) {
                j->i++;
                return syntax(j);
            }
            j->i += 2;
            continue;
        }
        j->i++;
    }
    return syntax(j);
}

static bool digit(char c) { return c >= '0' && c <= '9'; }

static floe_status skip_number(jt_scan *j) {
    int64_t i = j->i;
    const char *s = j->s;
    if (i < j->n && s[i] == '-') i++;
    if (i >= j->n || !digit(s[i])) goto bad;
    if (s[i] == '0') i++;
    else
        while (i < j->n && digit(s[i])) i++;
    if (i < j->n && s[i] == '.') {
        i++;
        if (i >= j->n || !digit(s[i])) goto bad;
        while (i < j->n && digit(s[i])) i++;
    }
    if (i < j->n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < j->n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= j->n || !digit(s[i])) goto bad;
        while (i < j->n && digit(s[i])) i++;
    }
    /* A number must end at a delimiter ("1x" is one bad token). */
    if (i < j->n && !blank(s[i]) && !strchr(",]}:", s[i])) goto bad;
    j->i = i;
    return NULL;
bad:
    return syntax(j);
}

static floe_status skip_value(jt_scan *j) {
    skip_ws(j);
    if (j->i >= j->n) return syntax(j);
    char c = j->s[j->i];
    if (c == '"') return skip_string(j);
    if (c == '-' || digit(c)) return skip_number(j);
    if (c == '{' || c == '[') {
        if (++j->depth > MAX_DEPTH)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type json: nested deeper than %d",
                              MAX_DEPTH);
        char close = c == '{' ? '}' : ']';
        j->i++;
        skip_ws(j);
        if (j->i < j->n && j->s[j->i] == close) {
            j->i++;
            j->depth--;
            return NULL;
        }
        for (;;) {
            if (c == '{') {
                skip_ws(j);
                if (j->i >= j->n || j->s[j->i] != '"') return syntax(j);
                FLOE_TRY(skip_string(j));
                skip_ws(j);
                if (j->i >= j->n || j->s[j->i] != ':') return syntax(j);
                j->i++;
            }
            FLOE_TRY(skip_value(j));
            skip_ws(j);
            if (j->i < j->n && j->s[j->i] == ',') {
                j->i++;
                continue;
            }
            if (j->i < j->n && j->s[j->i] == close) {
                j->i++;
                j->depth--;
                return NULL;
            }
            return syntax(j);
        }
    }
    static const char *const words[] = {"true", "false", "null"};
    for (int w = 0; w < 3; w++) {
        size_t l = strlen(words[w]);
        if (j->i + (int64_t)l <= j->n && !memcmp(j->s + j->i, words[w], l)) {
            int64_t e = j->i + (int64_t)l;
            if (e < j->n && ((j->s[e] >= 'a' && j->s[e] <= 'z') || digit(j->s[e]))) break;
            j->i = e;
            return NULL;
        }
    }
    return syntax(j);
}

floe_status jt_validate(const char *s, int64_t n, jt_span *out) {
    jt_scan j = {s, n, 0, 0};
    FLOE_TRY(skip_value(&j));
    skip_ws(&j);
    int64_t end = j.i;
    while (end > 0 && blank(s[end - 1])) end--;
    if (j.i < n) return syntax(&j);
    jt_scan k = {s, n, 0, 0};
    skip_ws(&k);
    out->start = k.i;
    out->end = end;
    return NULL;
}

jt_kind jt_kind_of(const char *s, jt_span v) {
    switch (s[v.start]) {
    case '{': return JT_OBJECT;
    case '[': return JT_ARRAY;
    case '"': return JT_STRING;
    case 't': return JT_TRUE;
    case 'f': return JT_FALSE;
    case 'n': return JT_NULL;
    default: return JT_NUMBER;
    }
}

floe_status jt_each(const char *s, jt_span v, jt_each_fn cb, void *ctx) {
    jt_scan j = {s, v.end, v.start + 1, 0};
    bool obj = s[v.start] == '{';
    char close = obj ? '}' : ']';
    skip_ws(&j);
    if (j.i < j.n && s[j.i] == close) return NULL;
    for (;;) {
        jt_span key = {0, 0}, val;
        skip_ws(&j);
        if (obj) {
            key.start = j.i;
            FLOE_TRY(skip_string(&j));
            key.end = j.i;
            skip_ws(&j);
            j.i++; /* ':' */
            skip_ws(&j);
        }
        val.start = j.i;
        FLOE_TRY(skip_value(&j));
        val.end = j.i;
        if (cb(ctx, s, key, val)) return NULL;
        skip_ws(&j);
        if (j.i >= j.n || s[j.i] != ',') return NULL;
        j.i++;
    }
}

/* Whether the string at span k, unescaped, equals key. */
static bool key_equals(const char *s, jt_span k, const char *key, int64_t klen) {
    /* Fast path: no escapes. */
    int64_t inner = k.end - k.start - 2;
    if (!memchr(s + k.start + 1, '\\', (size_t)inner)) return inner == klen && !memcmp(s + k.start + 1, key, (size_t)klen);
    floe_buf b = FLOE_BUF_INIT;
    bool eq = !jt_unescape(s, k, &b) && (int64_t)b.len == klen && !memcmp(b.data, key, (size_t)klen);
    floe_buf_free(&b);
    return eq;
}

typedef struct find_ctx {
    const char *key;
    int64_t klen, idx, count;
    jt_span got;
    bool found;
} find_ctx;

static bool find_key_cb(void *ctx, const char *s, jt_span key, jt_span val) {
    find_ctx *f = ctx;
    if (key_equals(s, key, f->key, f->klen)) f->got = val, f->found = true; /* the last one wins */
    return false;
}

floe_status jt_field(const char *s, jt_span v, const char *key, int64_t klen, jt_span *out, bool *found) {
    *found = false;
    if (jt_kind_of(s, v) != JT_OBJECT) return NULL;
    find_ctx f = {key, klen, 0, 0, {0, 0}, false};
    FLOE_TRY(jt_each(s, v, find_key_cb, &f));
    *found = f.found;
    *out = f.got;
    return NULL;
}

static bool count_cb(void *ctx, const char *s, jt_span key, jt_span val) {
    (void)s, (void)key, (void)val;
    ((find_ctx *)ctx)->count++;
    return false;
}

static bool index_cb(void *ctx, const char *s, jt_span key, jt_span val) {
    (void)s, (void)key;
    find_ctx *f = ctx;
    if (f->count++ == f->idx) {
        f->got = val;
        f->found = true;
        return true;
    }
    return false;
}

floe_status jt_array_length(const char *s, jt_span v, int64_t *out) {
    *out = -1;
    if (jt_kind_of(s, v) != JT_ARRAY) return NULL;
    find_ctx f = {0};
    FLOE_TRY(jt_each(s, v, count_cb, &f));
    *out = f.count;
    return NULL;
}

floe_status jt_index(const char *s, jt_span v, int64_t idx, jt_span *out, bool *found) {
    *found = false;
    if (jt_kind_of(s, v) != JT_ARRAY) return NULL;
    if (idx < 0) {
        int64_t len;
        FLOE_TRY(jt_array_length(s, v, &len));
        idx += len;
        if (idx < 0) return NULL;
    }
    find_ctx f = {0};
    f.idx = idx;
    FLOE_TRY(jt_each(s, v, index_cb, &f));
    *found = f.found;
    *out = f.got;
    return NULL;
}

static void put_utf8(uint32_t cp, floe_buf *out, floe_status *st) {
    uint8_t b[4];
    int n;
    if (cp < 0x80) b[0] = (uint8_t)cp, n = 1;
    else if (cp < 0x800) b[0] = (uint8_t)(0xC0 | cp >> 6), b[1] = (uint8_t)(0x80 | (cp & 63)), n = 2;
    else if (cp < 0x10000)
        b[0] = (uint8_t)(0xE0 | cp >> 12), b[1] = (uint8_t)(0x80 | (cp >> 6 & 63)), b[2] = (uint8_t)(0x80 | (cp & 63)),
        n = 3;
    else
        b[0] = (uint8_t)(0xF0 | cp >> 18), b[1] = (uint8_t)(0x80 | (cp >> 12 & 63)),
        b[2] = (uint8_t)(0x80 | (cp >> 6 & 63)), b[3] = (uint8_t)(0x80 | (cp & 63)), n = 4;
    if (!*st) *st = floe_buf_append(out, b, (size_t)n);
}

floe_status jt_unescape(const char *s, jt_span v, floe_buf *out) {
    floe_status st = NULL;
    for (int64_t i = v.start + 1; i < v.end - 1 && !st; i++) {
        char c = s[i];
        if (c != '\\') {
            /* a run of plain bytes */
            int64_t e = i;
            while (e < v.end - 1 && s[e] != '\\') e++;
            st = floe_buf_append(out, s + i, (size_t)(e - i));
            i = e - 1;
            continue;
        }
        char e = s[++i];
        switch (e) {
        case 'b': st = floe_buf_append_byte(out, '\b'); break;
        case 'f': st = floe_buf_append_byte(out, '\f'); break;
        case 'n': st = floe_buf_append_byte(out, '\n'); break;
        case 'r': st = floe_buf_append_byte(out, '\r'); break;
        case 't': st = floe_buf_append_byte(out, '\t'); break;
        case 'u': {
            uint32_t cp = 0;
            for (int k = 1; k <= 4; k++) cp = cp << 4 | (uint32_t)hexv(s[i + k]);
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 < v.end && s[i + 1] == '\\' && s[i + 2] == 'u') {
                uint32_t lo = 0;
                for (int k = 3; k <= 6; k++) lo = lo << 4 | (uint32_t)hexv(s[i + k]);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            if (cp == 0)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "unsupported Unicode escape sequence: \\u0000 cannot "
                                  "be converted to text");
            if (cp >= 0xD800 && cp <= 0xDFFF)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type json: a Unicode "
                                  "surrogate pair is incomplete");
            put_utf8(cp, out, &st);
            break;
        }
        default: st = floe_buf_append_byte(out, (uint8_t)e); break; /* \" \\ \/ */
        }
    }
    return st;
}

floe_status jt_escape(const char *p, int64_t n, floe_buf *out) {
    FLOE_TRY(floe_buf_append_byte(out, '"'));
    int64_t run = 0;
    for (int64_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        FLOE_TRY(floe_buf_append(out, p + run, (size_t)(i - run)));
        run = i + 1;
        switch (c) {
        case '"': FLOE_TRY(floe_buf_append_str(out, "\\\"")); break;
        case '\\': FLOE_TRY(floe_buf_append_str(out, "\\\\")); break;
        case '\b': FLOE_TRY(floe_buf_append_str(out, "\\b")); break;
        case '\f': FLOE_TRY(floe_buf_append_str(out, "\\f")); break;
        case '\n': FLOE_TRY(floe_buf_append_str(out, "\\n")); break;
        case '\r': FLOE_TRY(floe_buf_append_str(out, "\\r")); break;
        case '\t': FLOE_TRY(floe_buf_append_str(out, "\\t")); break;
        default: FLOE_TRY(floe_buf_printf(out, "\\u%04x", c)); break;
        }
    }
    FLOE_TRY(floe_buf_append(out, p + run, (size_t)(n - run)));
    return floe_buf_append_byte(out, '"');
}

/* A JSON number as PostgreSQL's numeric prints it: exponent applied,
 * display scale = fraction digits - exponent (at least 0), no -0. */
static floe_status norm_number(const char *s, int64_t n, floe_buf *out) {
    int64_t i = 0;
    bool neg = s[0] == '-';
    if (neg) i++;
    char digits[512];
    int64_t nd = 0, intlen = 0;
    for (; i < n && digit(s[i]); i++)
        if (nd < (int64_t)sizeof digits) digits[nd++] = s[i], intlen++;
    if (i < n && s[i] == '.')
        for (i++; i < n && digit(s[i]); i++)
            if (nd < (int64_t)sizeof digits) digits[nd++] = s[i];
    long exp = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) exp = strtol(s + i + 1, NULL, 10);
    if (nd >= (int64_t)sizeof digits || exp > 1000 || exp < -1000) return floe_buf_append(out, s, (size_t)n);
    int64_t pos = intlen + exp; /* decimal point after digits[pos) */
    bool zero = true;
    for (int64_t k = 0; k < nd; k++)
        if (digits[k] != '0') zero = false;
    if (neg && !zero) FLOE_TRY(floe_buf_append_byte(out, '-'));
    /* integer part, leading zeros dropped */
    bool any = false;
    for (int64_t k = 0; k < pos; k++) {
        char d = k < nd ? digits[k] : '0';
        if (d == '0' && !any) continue;
        any = true;
        FLOE_TRY(floe_buf_append_byte(out, (uint8_t)d));
    }
    if (!any) FLOE_TRY(floe_buf_append_byte(out, '0'));
    if (nd > pos) {
        FLOE_TRY(floe_buf_append_byte(out, '.'));
        for (int64_t k = pos; k < nd; k++) FLOE_TRY(floe_buf_append_byte(out, (uint8_t)(k < 0 ? '0' : digits[k])));
    }
    return NULL;
}

typedef struct member {
    size_t kstart, klen; /* unescaped key in the keys buffer */
    size_t vstart, vlen; /* normalized value in the values buffer */
    int64_t order;
} member;

typedef struct norm_ctx {
    floe_buf keys, vals;
    member *m;
    int64_t n, cap;
    floe_status st;
    bool obj;
} norm_ctx;

static int member_cmp(const member *x, const member *y, const uint8_t *k) {
    if (x->klen != y->klen) return x->klen < y->klen ? -1 : 1;
    int c = memcmp(k + x->kstart, k + y->kstart, x->klen);
    if (c) return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

static bool norm_cb(void *ctx, const char *s, jt_span key, jt_span val) {
    norm_ctx *c = ctx;
    if (c->n == c->cap) {
        int64_t cap = c->cap ? c->cap * 2 : 8;
        member *m = floe_realloc(c->m, (size_t)cap * sizeof *m);
        if (!m) {
            c->st = floe_error(FLOE_ERR_OUT_OF_MEMORY, "normalizing jsonb");
            return true;
        }
        c->m = m, c->cap = cap;
    }
    member *m = &c->m[c->n];
    m->order = c->n;
    m->kstart = c->keys.len;
    if (c->obj) c->st = jt_unescape(s, key, &c->keys);
    m->klen = c->keys.len - m->kstart;
    m->vstart = c->vals.len;
    if (!c->st) c->st = jt_normalize(s, val, &c->vals);
    m->vlen = c->vals.len - m->vstart;
    c->n++;
    return c->st != NULL;
}

floe_status jt_normalize(const char *s, jt_span v, floe_buf *out) {
    switch (jt_kind_of(s, v)) {
    case JT_STRING: {
        floe_buf t = FLOE_BUF_INIT;
        floe_status st = jt_unescape(s, v, &t);
        if (!st) st = jt_escape(t.data ? (const char *)t.data : "", (int64_t)t.len, out);
        floe_buf_free(&t);
        return st;
    }
    case JT_NUMBER: return norm_number(s + v.start, v.end - v.start, out);
    case JT_TRUE: case JT_FALSE: case JT_NULL: return floe_buf_append(out, s + v.start, (size_t)(v.end - v.start));
    default: break;
    }
    norm_ctx c = {FLOE_BUF_INIT, FLOE_BUF_INIT, NULL, 0, 0, NULL, jt_kind_of(s, v) == JT_OBJECT};
    floe_status st = jt_each(s, v, norm_cb, &c);
    if (!st) st = c.st;
    if (!st && c.obj && c.n > 1) {
        /* Sort by (length, bytes, position), then keep the last of equal
         * keys.  An insertion sort: objects are small, and C11's qsort has
         * no context argument for the keys buffer. */
        for (int64_t a = 1; a < c.n; a++) {
            member x = c.m[a];
            int64_t b = a - 1;
            while (b >= 0 && member_cmp(&c.m[b], &x, c.keys.data) > 0) {
                c.m[b + 1] = c.m[b];
                b--;
            }
            c.m[b + 1] = x;
        }
    }
    char open = c.obj ? '{' : '[', close = c.obj ? '}' : ']';
    if (!st) st = floe_buf_append_byte(out, (uint8_t)open);
    bool first = true;
    for (int64_t k = 0; k < c.n && !st; k++) {
        const member *m = &c.m[k];
        if (c.obj && k + 1 < c.n && m->klen == c.m[k + 1].klen &&
            !memcmp(c.keys.data + m->kstart, c.keys.data + c.m[k + 1].kstart, m->klen))
            continue; /* a later duplicate wins */
        if (!first) st = floe_buf_append_str(out, ", ");
        first = false;
        if (!st && c.obj) {
            st = jt_escape((const char *)c.keys.data + m->kstart, (int64_t)m->klen, out);
            if (!st) st = floe_buf_append_str(out, ": ");
        }
        if (!st) st = floe_buf_append(out, c.vals.data + m->vstart, m->vlen);
    }
    if (!st) st = floe_buf_append_byte(out, (uint8_t)close);
    floe_buf_free(&c.keys);
    floe_buf_free(&c.vals);
    floe_free(c.m);
    return st;
}
