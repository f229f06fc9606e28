/*
 * s3_xml.c — the little XML the S3 client reads and writes: the text of
 * named elements of a response (entities decoded) and escaped text for
 * CompleteMultipartUpload.
 */
#include <string.h>

#include "base/buffer.h"
#include "floe/status.h"
#include "io/s3_internal.h"

/* ---- minimal XML reading -------------------------------------------------------
 * S3 responses are small, flat documents.  We only need the text of named
 * elements that never nest inside themselves, so a careful substring scan
 * is enough: find "<Tag" followed by '>', whitespace or '/', then the
 * matching "</Tag>".  Text is entity-decoded separately. */

const char *s3_xml_next(const char *p, const char *end, const char *tag, const char **text,
                            size_t *text_len) {
    size_t tl = strlen(tag);
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt) return NULL;
        p = lt + 1;
        if ((size_t)(end - p) < tl + 1 || memcmp(p, tag, tl) != 0) continue;
        char after = p[tl];
        if (after != '>' && after != '/' && after != ' ' && after != '\t' && after != '\n' &&
            after != '\r')
            continue;
        const char *gt = memchr(p + tl, '>', (size_t)(end - (p + tl)));
        if (!gt) return NULL;
        if (gt[-1] == '/') { /* <Tag/> */
            *text = gt;
            *text_len = 0;
            return gt + 1;
        }
        const char *start = gt + 1;
        const char *q = start;
        while (q < end) {
            const char *close = memchr(q, '<', (size_t)(end - q));
            if (!close) return NULL;
            if ((size_t)(end - close) >= tl + 3 && close[1] == '/' &&
                memcmp(close + 2, tag, tl) == 0 && close[2 + tl] == '>') {
                *text = start;
                *text_len = (size_t)(close - start);
                return close + 3 + tl;
            }
            q = close + 1;
        }
        return NULL;
    }
    return NULL;
}

static void utf8_put(floe_buf *b, unsigned long cp) {
    uint8_t u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xC0 | (cp >> 6));
        u[1] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xE0 | (cp >> 12));
        u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (uint8_t)(0xF0 | (cp >> 18));
        u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 4;
    }
    memcpy(b->data + b->len, u, n);
    b->len += n;
    b->data[b->len] = 0;
}

/* Decode XML text (the five named entities and numeric references) into
 * `b`, replacing its contents.  Malformed references are FLOE_ERR_CORRUPT. */
static floe_status xml_text(floe_buf *b, const char *s, size_t n) {
    floe_buf_clear(b);
    FLOE_TRY(floe_buf_reserve(b, n + 4));
    size_t i = 0;
    while (i < n) {
        if (s[i] != '&') {
            b->data[b->len++] = (uint8_t)s[i++];
            continue;
        }
        const char *semi = memchr(s + i, ';', n - i);
        if (!semi || semi - (s + i) > 12)
            return floe_error(FLOE_ERR_CORRUPT, "bad XML entity in S3 response near '%.12s'", s + i);
        const char *e = s + i + 1;
        size_t el = (size_t)(semi - e);
        unsigned long cp = 0;
        if (el == 3 && memcmp(e, "amp", 3) == 0) cp = '&';
        else if (el == 2 && memcmp(e, "lt", 2) == 0) cp = '<';
        else if (el == 2 && memcmp(e, "gt", 2) == 0) cp = '>';
        else if (el == 4 && memcmp(e, "quot", 4) == 0) cp = '"';
        else if (el == 4 && memcmp(e, "apos", 4) == 0) cp = '\'';
        else if (el >= 2 && e[0] == '#') {
            int hexa = (e[1] == 'x' || e[1] == 'X');
            size_t k = hexa ? 2 : 1;
            if (k >= el) return floe_error(FLOE_ERR_CORRUPT, "bad XML character reference in S3 response");
            for (; k < el; k++) {
                int d;
                char c = e[k];
                if (c >= '0' && c <= '9') d = c - '0';
                else if (hexa && c >= 'a' && c <= 'f') d = c - 'a' + 10;
                else if (hexa && c >= 'A' && c <= 'F') d = c - 'A' + 10;
                else return floe_error(FLOE_ERR_CORRUPT, "bad XML character reference in S3 response");
                cp = cp * (hexa ? 16u : 10u) + (unsigned long)d;
                if (cp > 0x10FFFF)
                    return floe_error(FLOE_ERR_CORRUPT, "XML character reference out of range in S3 response");
            }
            if (cp == 0) return floe_error(FLOE_ERR_CORRUPT, "XML character reference to NUL in S3 response");
        } else {
            return floe_error(FLOE_ERR_CORRUPT, "unknown XML entity '&%.*s;' in S3 response", (int)el, e);
        }
        utf8_put(b, cp);
        i = (size_t)(semi - s) + 1;
    }
    b->data[b->len] = 0;
    return NULL;
}

/* The decoded text of the first <tag> in [p, end), or empty with *found 0. */
floe_status s3_xml_get(const char *p, const char *end, const char *tag, floe_buf *out,
                           int *found) {
    const char *t;
    size_t tl;
    *found = 0;
    floe_buf_clear(out);
    if (!s3_xml_next(p, end, tag, &t, &tl)) return NULL;
    *found = 1;
    return xml_text(out, t, tl);
}

floe_status s3_xml_escape(floe_buf *b, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': FLOE_TRY(floe_buf_append_str(b, "&amp;")); break;
        case '<': FLOE_TRY(floe_buf_append_str(b, "&lt;")); break;
        case '>': FLOE_TRY(floe_buf_append_str(b, "&gt;")); break;
        default: FLOE_TRY(floe_buf_append_byte(b, (uint8_t)*s));
        }
    }
    return NULL;
}
