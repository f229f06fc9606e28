/*
 * func_text.c — PostgreSQL's text functions beyond the everyday ones in
 * func_string.c: digests (md5, sha256), bytea encodings (encode, decode
 * with hex / base64 / escape), bit_length, to_hex, quoting (quote_ident,
 * quote_literal, quote_nullable) and format().
 *
 * Results match PostgreSQL 15's: md5 is lowercase hex text, sha256 is
 * bytea, encode(..., 'base64') breaks lines every 76 characters,
 * to_hex prints negatives as two's complement of the argument's width,
 * quote_ident quotes what is not a plain lowercase identifier or is a
 * keyword other than an unreserved one, quote_literal writes E'...' when
 * the text holds a backslash.  NULL arguments give NULL except where
 * PostgreSQL says otherwise (quote_nullable, format's value arguments).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/digest.h"
#include "exec/func/functions.h"

/* ------------------------------------------------------------ helpers */

typedef floe_status (*text_row_fn)(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i,
                                   fn_strwriter *w);

/* Run row_fn over the rows where the first n_strict arguments are all
 * valid (the others may be NULL); the result is NULL elsewhere. */
static floe_status map_text(const floe_func_def *def, floe_array *const *a, int32_t n, int32_t n_strict,
                            int64_t rows, floe_type *rt, text_row_fn fn, floe_array **out) {
    fn_strwriter w;
    floe_buffer *valid = NULL;
    if (n_strict > 0) FLOE_TRY(fn_validity(a, n_strict, rows, &valid));
    FLOE_TRY(fn_sw_init(&w, rows, valid));
    floe_status st = NULL;
    for (int64_t i = 0; i < rows && !st; i++) {
        if (fn_sw_valid(&w, i)) st = fn(def, a, n, i, &w);
        if (!st) st = fn_sw_end_row(&w);
    }
    if (st) {
        fn_sw_free(&w);
        return st;
    }
    return fn_sw_finish(&w, rt, out);
}

static const char HEX[] = "0123456789abcdef";

static floe_status add_hex(fn_strwriter *w, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char h[2] = {HEX[p[i] >> 4], HEX[p[i] & 15]};
        FLOE_TRY(fn_sw_add(w, h, 2));
    }
    return NULL;
}

/* The text of any value (quote_literal(42), format('%s', 2.5)). */
static floe_status value_text(const floe_array *a, int64_t i, floe_buf *out) {
    floe_buf_clear(out);
    if (a->type->id == FLOE_TYPE_STRING) {
        floe_strview s = fn_get_str(a, i);
        return floe_buf_append(out, s.data, (size_t)s.len);
    }
    return floe_format_value(a, fn_at(a, i), out);
}

/* ----------------------------------------------------- md5, sha256 */

static floe_status row_md5(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i, fn_strwriter *w) {
    (void)def, (void)n;
    floe_strview s = fn_get_str(a[0], i);
    uint8_t d[16];
    floe_md5(s.data, (size_t)s.len, d);
    return add_hex(w, d, sizeof d);
}

static floe_status row_sha256(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i,
                              fn_strwriter *w) {
    (void)def, (void)n;
    floe_strview s = fn_get_str(a[0], i);
    uint8_t d[32];
    floe_sha256(s.data, (size_t)s.len, d);
    return fn_sw_add(w, d, sizeof d);
}

/* ------------------------------------------------- encode, decode */

enum { ENC_HEX, ENC_BASE64, ENC_ESCAPE };

static floe_status encoding_of(const floe_func_def *def, floe_strview f, int *out) {
    if (f.len == 3 && !strncasecmp(f.data, "hex", 3)) *out = ENC_HEX;
    else if (f.len == 6 && !strncasecmp(f.data, "base64", 6)) *out = ENC_BASE64;
    else if (f.len == 6 && !strncasecmp(f.data, "escape", 6)) *out = ENC_ESCAPE;
    else
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: unrecognized encoding: \"%.*s\"", def->name, (int)f.len,
                          f.data);
    return NULL;
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static floe_status row_encode(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i,
                              fn_strwriter *w) {
    (void)n;
    floe_strview s = fn_get_str(a[0], i);
    const uint8_t *p = (const uint8_t *)s.data;
    int enc;
    FLOE_TRY(encoding_of(def, fn_get_str(a[1], i), &enc));
    if (enc == ENC_HEX) return add_hex(w, p, (size_t)s.len);
    if (enc == ENC_ESCAPE) {
        /* NUL and high bytes as \ooo, a backslash doubled */
        for (int64_t k = 0; k < s.len; k++) {
            char o[5];
            if (p[k] == 0 || p[k] >= 0x80) {
                snprintf(o, sizeof o, "\\%03o", p[k]);
                FLOE_TRY(fn_sw_add(w, o, 4));
            } else if (p[k] == '\\') {
                FLOE_TRY(fn_sw_add(w, "\\\\", 2));
            } else {
                FLOE_TRY(fn_sw_add(w, p + k, 1));
            }
        }
        return NULL;
    }
    /* base64, a newline after every 76 characters as PostgreSQL */
    int line = 0;
    for (int64_t k = 0; k < s.len; k += 3) {
        uint32_t v = (uint32_t)p[k] << 16;
        if (k + 1 < s.len) v |= (uint32_t)p[k + 1] << 8;
        if (k + 2 < s.len) v |= p[k + 2];
        char q[4] = {B64[v >> 18 & 63], B64[v >> 12 & 63], k + 1 < s.len ? B64[v >> 6 & 63] : '=',
                     k + 2 < s.len ? B64[v & 63] : '='};
        if (line >= 76) {
            FLOE_TRY(fn_sw_add(w, "\n", 1));
            line = 0;
        }
        FLOE_TRY(fn_sw_add(w, q, 4));
        line += 4;
    }
    return NULL;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int b64val(char c) {
    const char *p = c ? strchr(B64, c) : NULL;
    return p ? (int)(p - B64) : -1;
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static floe_status row_decode(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i,
                              fn_strwriter *w) {
    (void)n;
    floe_strview s = fn_get_str(a[0], i);
    int enc;
    FLOE_TRY(encoding_of(def, fn_get_str(a[1], i), &enc));
    if (enc == ENC_HEX) {
        for (int64_t k = 0; k < s.len;) {
            if (blank(s.data[k])) { k++; continue; }
            int hi = hexval(s.data[k]), lo = k + 1 < s.len ? hexval(s.data[k + 1]) : -2;
            if (hi < 0 || lo == -1)
                return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid hexadecimal digit: \"%c\"",
                                  hi < 0 ? s.data[k] : s.data[k + 1]);
            if (lo == -2) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid hexadecimal data: odd number of digits");
            uint8_t b = (uint8_t)(hi << 4 | lo);
            FLOE_TRY(fn_sw_add(w, &b, 1));
            k += 2;
        }
        return NULL;
    }
    if (enc == ENC_ESCAPE) {
        for (int64_t k = 0; k < s.len; k++) {
            uint8_t b = (uint8_t)s.data[k];
            if (b == '\\') {
                if (k + 1 < s.len && s.data[k + 1] == '\\') {
                    k++;
                } else if (k + 3 < s.len && s.data[k + 1] >= '0' && s.data[k + 1] <= '3' && s.data[k + 2] >= '0' &&
                           s.data[k + 2] <= '7' && s.data[k + 3] >= '0' && s.data[k + 3] <= '7') {
                    b = (uint8_t)((s.data[k + 1] - '0') << 6 | (s.data[k + 2] - '0') << 3 | (s.data[k + 3] - '0'));
                    k += 3;
                } else {
                    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid input syntax for type bytea");
                }
            }
            FLOE_TRY(fn_sw_add(w, &b, 1));
        }
        return NULL;
    }
    /* base64: blanks skipped, '=' only as padding at the end */
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (int64_t k = 0; k < s.len; k++) {
        char c = s.data[k];
        if (blank(c)) continue;
        if (c == '=') { pad++; continue; }
        int v = b64val(c);
        if (v < 0 || pad)
            return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid symbol \"%c\" found while decoding base64 sequence", c);
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            uint8_t b = (uint8_t)(acc >> bits);
            FLOE_TRY(fn_sw_add(w, &b, 1));
        }
    }
    if (bits >= 6 || (pad && (bits / 2 != pad)))
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "invalid base64 end sequence");
    return NULL;
}

/* ------------------------------------------------ bit_length, to_hex */

static floe_status eval_bit_length(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                   floe_type *rt, floe_array **out) {
    (void)def;
    floe_buffer *valid = NULL, *vals = NULL;
    floe_status st = fn_validity(a, n, rows, &valid);
    if (!st) st = floe_buffer_new(rows * 8, &vals);
    for (int64_t i = 0; i < rows && !st; i++)
        if (!valid || floe_bit_get(valid->data, i)) ((int64_t *)vals->data)[i] = fn_get_str(a[0], i).len * 8;
    if (st) {
        floe_buffer_release(valid);
        floe_buffer_release(vals);
        return st;
    }
    return fn_make_fixed(rt, rows, valid, vals, out);
}

static floe_status row_to_hex(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i,
                              fn_strwriter *w) {
    (void)def, (void)n;
    int64_t v = fn_get_i64(a[0], i);
    uint64_t u = a[0]->type->id == FLOE_TYPE_INT32 ? (uint64_t)(uint32_t)(int32_t)v : (uint64_t)v;
    char t[24];
    int k = snprintf(t, sizeof t, "%llx", (unsigned long long)u);
    return fn_sw_add(w, t, (size_t)k);
}

/* --------------------------------------------------------- quoting */

/* PostgreSQL 15's keywords other than the unreserved ones
 * (pg_get_keywords() where catcode <> 'U'): quote_ident quotes them. */
static const char *const quoted_keywords[] = {"all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization", "between", "bigint", "binary", "bit", "boolean", "both", "case", "cast", "char", "character", "check", "coalesce", "collate", "collation", "column", "concurrently", "constraint", "create", "cross", "current_catalog", "current_date", "current_role", "current_schema", "current_time", "current_timestamp", "current_user", "dec", "decimal", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "exists", "extract", "false", "fetch", "float", "for", "foreign", "freeze", "from", "full", "grant", "greatest", "group", "grouping", "having", "ilike", "in", "initially", "inner", "inout", "int", "integer", "intersect", "interval", "into", "is", "isnull", "join", "lateral", "leading", "least", "left", "like", "limit", "localtime", "localtimestamp", "national", "natural", "nchar", "none", "normalize", "not", "notnull", "null", "nullif", "numeric", "offset", "on", "only", "or", "order", "out", "outer", "overlaps", "overlay", "placing", "position", "precision", "primary", "real", "references", "returning", "right", "row", "select", "session_user", "setof", "similar", "smallint", "some", "substring", "symmetric", "table", "tablesample", "then", "time", "timestamp", "to", "trailing", "treat", "trim", "true", "union", "unique", "user", "using", "values", "varchar", "variadic", "verbose", "when", "where", "window", "with", "xmlattributes", "xmlconcat", "xmlelement", "xmlexists", "xmlforest", "xmlnamespaces", "xmlparse", "xmlpi", "xmlroot", "xmlserialize", "xmltable"};

static int kw_cmp(const void *k, const void *e) { return strcmp(k, *(const char *const *)e); }

static floe_status add_ident(fn_strwriter *w, floe_strview s) {
    bool plain = s.len > 0 && ((s.data[0] >= 'a' && s.data[0] <= 'z') || s.data[0] == '_');
    for (int64_t k = 0; k < s.len && plain; k++) {
        char c = s.data[k];
        plain = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    }
    if (plain && s.len < 64) {
        char word[64];
        memcpy(word, s.data, (size_t)s.len);
        word[s.len] = 0;
        plain = !bsearch(word, quoted_keywords, sizeof quoted_keywords / sizeof *quoted_keywords,
                         sizeof *quoted_keywords, kw_cmp);
    }
    if (plain) return fn_sw_add(w, s.data, (size_t)s.len);
    FLOE_TRY(fn_sw_add(w, "\"", 1));
    for (int64_t k = 0; k < s.len; k++) {
        if (s.data[k] == '"') FLOE_TRY(fn_sw_add(w, "\"", 1));
        FLOE_TRY(fn_sw_add(w, s.data + k, 1));
    }
    return fn_sw_add(w, "\"", 1);
}

/* 'text' with quotes doubled; E'...' with backslashes doubled when the
 * text has one (PostgreSQL's quote_literal). */
static floe_status add_literal(fn_strwriter *w, const char *p, size_t len) {
    if (memchr(p, '\\', len)) FLOE_TRY(fn_sw_add(w, "E", 1));
    FLOE_TRY(fn_sw_add(w, "'", 1));
    for (size_t k = 0; k < len; k++) {
        if (p[k] == '\'' || p[k] == '\\') FLOE_TRY(fn_sw_add(w, p + k, 1));
        FLOE_TRY(fn_sw_add(w, p + k, 1));
    }
    return fn_sw_add(w, "'", 1);
}

static floe_status row_quote_ident(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i,
                                   fn_strwriter *w) {
    (void)def, (void)n;
    return add_ident(w, fn_get_str(a[0], i));
}

static floe_status row_quote_literal(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i,
                                     fn_strwriter *w) {
    (void)def, (void)n;
    if (fn_null(a[0], i)) return fn_sw_add(w, "NULL", 4); /* quote_nullable */
    floe_buf t;
    floe_buf_init(&t);
    floe_status st = value_text(a[0], i, &t);
    if (!st) st = add_literal(w, (const char *)t.data, t.len);
    floe_buf_free(&t);
    return st;
}

/* ---------------------------------------------------------- format */

/* format(fmt, args...): %s (text, NULL as empty), %I (identifier), %L
 * (literal, NULL as NULL), %% ; an optional argument position n$ and
 * width with the - flag, as PostgreSQL's. */
static floe_status row_format(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t i,
                              fn_strwriter *w) {
    floe_strview f = fn_get_str(a[0], i);
    floe_buf t;
    floe_buf_init(&t);
    floe_status st = NULL;
    int32_t next = 1; /* the next argument without a position */
    for (int64_t k = 0; k < f.len && !st; k++) {
        if (f.data[k] != '%') {
            st = fn_sw_add(w, f.data + k, 1);
            continue;
        }
        if (++k >= f.len) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: unterminated format() type specifier", def->name);
            break;
        }
        if (f.data[k] == '%') {
            st = fn_sw_add(w, "%", 1);
            continue;
        }
        /* [n$][-][width] */
        int64_t num = 0, pos = -1, width = 0;
        bool left = false;
        int64_t k0 = k;
        while (k < f.len && f.data[k] >= '0' && f.data[k] <= '9' && num < 100000000) num = num * 10 + (f.data[k++] - '0');
        if (k < f.len && f.data[k] == '$' && k > k0) {
            if (num == 0) {
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: format specifies argument 0, but arguments are numbered from 1", def->name);
                break;
            }
            pos = num;
            k++;
            num = 0;
            k0 = k;
        } else {
            k = k0;
            num = 0;
        }
        while (k < f.len && f.data[k] == '-') { left = true; k++; }
        if (k < f.len && f.data[k] == '*') {
            st = floe_error(FLOE_ERR_UNSUPPORTED, "%s: a width from an argument (*) is not supported", def->name);
            break;
        }
        while (k < f.len && f.data[k] >= '0' && f.data[k] <= '9' && width < 100000000) width = width * 10 + (f.data[k++] - '0');
        if (k >= f.len) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: unterminated format() type specifier", def->name);
            break;
        }
        char ty = f.data[k];
        if (ty != 's' && ty != 'I' && ty != 'L') {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: unrecognized format() type specifier \"%c\"", def->name, ty);
            break;
        }
        int32_t arg = pos > 0 ? (int32_t)pos : next;
        if (arg >= n) {
            st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: too few arguments for format()", def->name);
            break;
        }
        next = arg + 1;
        /* the value's text into its own writer slot: build in t, pad */
        fn_strwriter *sw = w;
        size_t before = sw->data.len;
        if (fn_null(a[arg], i)) {
            if (ty == 'I') {
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: null values cannot be formatted as an SQL identifier",
                                def->name);
                break;
            }
            if (ty == 'L') st = fn_sw_add(w, "NULL", 4);
        } else {
            /* format() writes values by their output function: a boolean is t / f */
            if (a[arg]->type->id == FLOE_TYPE_BOOL) {
                floe_buf_clear(&t);
                st = floe_buf_append_str(&t, floe_array_get_bool(a[arg], fn_at(a[arg], i)) ? "t" : "f");
            } else {
                st = value_text(a[arg], i, &t);
            }
            if (!st) {
                floe_strview v = {(const char *)t.data, (int32_t)t.len};
                if (ty == 's') st = fn_sw_add(w, t.data, t.len);
                else if (ty == 'I') st = add_ident(w, v);
                else st = add_literal(w, (const char *)t.data, t.len);
            }
        }
        /* pad to the width, in characters */
        int64_t chars = fn_utf8_count((const char *)sw->data.data + before, (int64_t)(sw->data.len - before));
        for (int64_t p = chars; !st && p < width; p++) {
            if (left) {
                st = fn_sw_add(w, " ", 1);
            } else {
                /* insert a blank before the value */
                st = fn_sw_add(w, " ", 1);
                if (!st) {
                    memmove(sw->data.data + before + 1, sw->data.data + before, sw->data.len - before - 1);
                    sw->data.data[before] = ' ';
                }
            }
        }
    }
    floe_buf_free(&t);
    return st;
}

/* ------------------------------------------------------------ kernels */

enum { T_MD5, T_SHA256, T_ENCODE, T_DECODE, T_TO_HEX, T_QUOTE_IDENT, T_QUOTE_LITERAL, T_QUOTE_NULLABLE, T_FORMAT };

static floe_status eval_text(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                             floe_type *rt, floe_array **out) {
    switch (def->tag) {
    case T_MD5: return map_text(def, a, n, n, rows, rt, row_md5, out);
    case T_SHA256: return map_text(def, a, n, n, rows, rt, row_sha256, out);
    case T_ENCODE: return map_text(def, a, n, n, rows, rt, row_encode, out);
    case T_DECODE: return map_text(def, a, n, n, rows, rt, row_decode, out);
    case T_TO_HEX: return map_text(def, a, n, n, rows, rt, row_to_hex, out);
    case T_QUOTE_IDENT: return map_text(def, a, n, n, rows, rt, row_quote_ident, out);
    case T_QUOTE_LITERAL: return map_text(def, a, n, n, rows, rt, row_quote_literal, out);
    case T_QUOTE_NULLABLE: return map_text(def, a, n, 0, rows, rt, row_quote_literal, out);
    default: return map_text(def, a, n, 1, rows, rt, row_format, out);
    }
}

#define STR FLOE_TYPE_STRING
#define BIN FLOE_TYPE_BINARY
const floe_func_def floe_text_funcs[] = {
    {"md5", 1, 1, "md5(string)", fn_type_simple, eval_text, T_MD5, "B", STR},
    {"sha256", 1, 1, "sha256(bytea)", fn_type_simple, eval_text, T_SHA256, "B", BIN},
    {"encode", 2, 2, "encode(bytea, string)", fn_type_simple, eval_text, T_ENCODE, "BS", STR},
    {"decode", 2, 2, "decode(string, string)", fn_type_simple, eval_text, T_DECODE, "SS", BIN},
    {"bit_length", 1, 1, "bit_length(string)", fn_type_simple, eval_bit_length, 0, "B", FLOE_TYPE_INT64},
    {"to_hex", 1, 1, "to_hex(int)", fn_type_simple, eval_text, T_TO_HEX, "I", STR},
    {"quote_ident", 1, 1, "quote_ident(string)", fn_type_simple, eval_text, T_QUOTE_IDENT, "S", STR},
    {"quote_literal", 1, 1, "quote_literal(any)", fn_type_simple, eval_text, T_QUOTE_LITERAL, "A", STR},
    {"quote_nullable", 1, 1, "quote_nullable(any)", fn_type_simple, eval_text, T_QUOTE_NULLABLE, "A", STR},
    {"format", 1, -1, "format(string, any, ...)", fn_type_simple, eval_text, T_FORMAT, "SA", STR},
    {0},
};
