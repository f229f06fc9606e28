/*
 * orc_json.h — a tiny JSON reader for the ORC tests' expected rows.
 *
 * apache/orc's examples/expected/<name>.jsn.gz hold one JSON value per
 * row.  Numbers must be compared by their text (decimals have up to 38
 * digits, longs 19), which no JSON library here keeps, so this parses into
 * a small tree whose numbers stay text.  Only what those files use:
 * objects, arrays, strings with the usual escapes, numbers, true, false,
 * null.  Header-only, for tests.
 */
#ifndef FLOE_TEST_ORC_JSON_H
#define FLOE_TEST_ORC_JSON_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef enum { OJ_NULL, OJ_BOOL, OJ_NUM, OJ_STR, OJ_ARR, OJ_OBJ } oj_kind;

typedef struct oj {
    oj_kind kind;
    bool b;
    char *s;          /* NUM: text; STR: unescaped (UTF-8), length slen */
    size_t slen;
    struct oj *items; /* ARR/OBJ */
    char **keys;      /* OBJ */
    size_t n;
} oj;

static void oj_free(oj *v) {
    free(v->s);
    for (size_t i = 0; i < v->n; i++) {
        oj_free(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

static void oj_ws(const char **p) {
    while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r') (*p)++;
}

static bool oj_parse(const char **p, oj *out);

static void oj_put_utf8(char *buf, size_t *n, unsigned cp) {
    if (cp < 0x80) buf[(*n)++] = (char)cp;
    else if (cp < 0x800) {
        buf[(*n)++] = (char)(0xc0 | cp >> 6);
        buf[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        buf[(*n)++] = (char)(0xe0 | cp >> 12);
        buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        buf[(*n)++] = (char)(0xf0 | cp >> 18);
        buf[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        buf[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static bool oj_string(const char **p, char **out, size_t *len) {
    const char *q = *p + 1;
    char *buf = malloc(strlen(q) + 1);
    size_t n = 0;
    while (*q && *q != '"') {
        if (*q == '\\') {
            q++;
            char c = *q++;
            if (c == 'n') buf[n++] = '\n';
            else if (c == 't') buf[n++] = '\t';
            else if (c == 'r') buf[n++] = '\r';
            else if (c == 'b') buf[n++] = '\b';
            else if (c == 'f') buf[n++] = '\f';
            else if (c == 'u') {
                unsigned cp = (unsigned)strtoul((char[5]){q[0], q[1], q[2], q[3], 0}, NULL, 16);
                q += 4;
                if (cp >= 0xd800 && cp < 0xdc00 && q[0] == '\\' && q[1] == 'u') {
                    unsigned lo = (unsigned)strtoul((char[5]){q[2], q[3], q[4], q[5], 0}, NULL, 16);
                    q += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                }
                oj_put_utf8(buf, &n, cp);
            } else buf[n++] = c;
        } else {
            buf[n++] = *q++;
        }
    }
    if (*q != '"') {
        free(buf);
        return false;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    *p = q + 1;
    return true;
}

static bool oj_parse(const char **p, oj *out) {
    memset(out, 0, sizeof *out);
    oj_ws(p);
    const char *q = *p;
    if (*q == '{' || *q == '[') {
        bool obj = *q == '{';
        out->kind = obj ? OJ_OBJ : OJ_ARR;
        size_t cap = 8;
        out->items = calloc(cap, sizeof *out->items);
        if (obj) out->keys = calloc(cap, sizeof *out->keys);
        (*p)++;
        oj_ws(p);
        if (**p == (obj ? '}' : ']')) {
            (*p)++;
            return true;
        }
        for (;;) {
            if (out->n == cap) {
                cap *= 2;
                out->items = realloc(out->items, cap * sizeof *out->items);
                if (obj) out->keys = realloc(out->keys, cap * sizeof *out->keys);
            }
            if (obj) {
                oj_ws(p);
                size_t kl;
                if (**p != '"' || !oj_string(p, &out->keys[out->n], &kl)) return false;
                oj_ws(p);
                if (**p != ':') return false;
                (*p)++;
            }
            if (!oj_parse(p, &out->items[out->n])) return false;
            out->n++;
            oj_ws(p);
            if (**p == ',') {
                (*p)++;
                continue;
            }
            if (**p == (obj ? '}' : ']')) {
                (*p)++;
                return true;
            }
            return false;
        }
    }
    if (*q == '"') {
        out->kind = OJ_STR;
        return oj_string(p, &out->s, &out->slen);
    }
    if (!strncmp(q, "null", 4)) {
        out->kind = OJ_NULL;
        *p += 4;
        return true;
    }
    if (!strncmp(q, "true", 4) || !strncmp(q, "false", 5)) {
        out->kind = OJ_BOOL;
        out->b = q[0] == 't';
        *p += out->b ? 4 : 5;
        return true;
    }
    const char *e = q;
    while (*e && strchr("+-0123456789.eENaInfity", *e)) e++;
    if (e == q) return false;
    out->kind = OJ_NUM;
    out->s = strndup(q, (size_t)(e - q));
    out->slen = (size_t)(e - q);
    *p = e;
    return true;
}

static const oj *oj_get(const oj *o, const char *key) {
    if (o->kind != OJ_OBJ) return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key)) return &o->items[i];
    return NULL;
}

#endif
