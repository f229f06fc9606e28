/*
 * cast_list.c — casts between text and lists in PostgreSQL's array text
 * form, for expr.c's CAST:
 *
 *   text → list   '{1,2,3}'::int[], '{a,"b c",NULL}'::text[], nested
 *                 '{{1,2},{3}}' for a list of lists: elements separated by
 *                 commas, blanks around unquoted ones dropped, "..." quoting
 *                 with backslash escapes, unquoted NULL (any case) a NULL.
 *                 The pieces become a list of text of the target's shape,
 *                 which the ordinary nested cast converts element-wise (so
 *                 '{1,x}'::int[] fails as 'x'::int does).  A bad literal is
 *                 PostgreSQL's "malformed array literal" naming the text.
 *   list → text   {1,2,3}: elements as their own ::text (booleans t / f),
 *                 quoted when empty, "NULL", or holding blanks or any of
 *                 {}",\ ; NULL elements as NULL; lists of lists nest.
 */
#include <ctype.h>
#include <string.h>

#include "base/buffer.h"
#include "exec/expr/cast_list.h"
#include "floe/memory.h"

/* ------------------------------------------------------- text → list */

/* The target's shape with text leaves: list<...list<string>>. */
static floe_status text_shape(const floe_type *to, floe_type **out) {
    *out = NULL;
    if (to->id != FLOE_TYPE_LIST) {
        if (floe_type_is_nested(to) && to->id != FLOE_TYPE_VARIANT) return floe_error(FLOE_ERR_UNSUPPORTED, "nested");
        *out = floe_type_primitive(FLOE_TYPE_STRING);
        return NULL;
    }
    floe_type *inner = NULL;
    FLOE_TRY(text_shape(to->children[0].type, &inner));
    floe_field e = {0};
    floe_status st = floe_field_init(&e, "element", inner, true, -1);
    if (!st) st = floe_type_list(&e, out);
    floe_field_clear(&e);
    floe_type_release(inner);
    return st;
}

typedef struct parser {
    const char *s;
    int64_t n, i;
    floe_buf piece;
} parser;

static void skip_blanks(parser *p) {
    while (p->i < p->n && isspace((unsigned char)p->s[p->i])) p->i++;
}

static floe_status malformed(const parser *p, const char *why) {
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "malformed array literal: \"%.*s\" (%s)", (int)(p->n > 200 ? 200 : p->n),
                      p->s, why);
}

/* One element (not a sub-list) into b: quoted, or unquoted up to , or }. */
static floe_status parse_scalar(parser *p, floe_builder *b) {
    p->piece.len = 0;
    if (p->s[p->i] == '"') {
        p->i++;
        for (;;) {
            if (p->i >= p->n) return malformed(p, "unterminated quoted string");
            char ch = p->s[p->i++];
            if (ch == '"') break;
            if (ch == '\\') {
                if (p->i >= p->n) return malformed(p, "unexpected end of input");
                ch = p->s[p->i++];
            }
            FLOE_TRY(floe_buf_append(&p->piece, &ch, 1));
        }
        skip_blanks(p);
        return floe_builder_append_binary(b, p->piece.len ? (const char *)p->piece.data : "", (int64_t)p->piece.len);
    }
    int64_t last_text = 0; /* piece length without trailing blanks */
    bool escaped = false;
    while (p->i < p->n && p->s[p->i] != ',' && p->s[p->i] != '}') {
        char ch = p->s[p->i++];
        if (ch == '{' || ch == '"') return malformed(p, "unexpected character");
        if (ch == '\\') {
            if (p->i >= p->n) return malformed(p, "unexpected end of input");
            ch = p->s[p->i++];
            escaped = true;
        }
        FLOE_TRY(floe_buf_append(&p->piece, &ch, 1));
        if (escaped || !isspace((unsigned char)ch)) last_text = (int64_t)p->piece.len;
        escaped = false;
    }
    p->piece.len = (size_t)last_text;
    if (last_text == 0) return malformed(p, "empty element");
    if (last_text == 4 && !strncasecmp((const char *)p->piece.data, "null", 4)) return floe_builder_append_null(b);
    return floe_builder_append_binary(b, p->piece.data, last_text);
}

/* A {...} list into list builder b of type t (depth levels of lists). */
static floe_status parse_list(parser *p, floe_builder *b, const floe_type *t) {
    skip_blanks(p);
    if (p->i >= p->n || p->s[p->i] != '{') return malformed(p, "array value must start with \"{\"");
    p->i++;
    floe_builder *eb = floe_builder_child(b, 0);
    const floe_type *et = t->children[0].type;
    skip_blanks(p);
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
        return floe_builder_append_list(b);
    }
    for (;;) {
        skip_blanks(p);
        if (p->i >= p->n) return malformed(p, "unexpected end of input");
        if (et->id == FLOE_TYPE_LIST) {
            if (p->s[p->i] == 'N' || p->s[p->i] == 'n') {
                /* a NULL sub-list */
                if (p->n - p->i < 4 || strncasecmp(p->s + p->i, "null", 4)) return malformed(p, "unexpected character");
                p->i += 4;
                FLOE_TRY(floe_builder_append_null(eb));
            } else {
                FLOE_TRY(parse_list(p, eb, et));
            }
            skip_blanks(p);
        } else {
            if (p->s[p->i] == '{') return malformed(p, "nested braces for a one-level array");
            FLOE_TRY(parse_scalar(p, eb));
        }
        if (p->i >= p->n) return malformed(p, "unexpected end of input");
        char ch = p->s[p->i++];
        if (ch == '}') break;
        if (ch != ',') return malformed(p, "unexpected character");
    }
    return floe_builder_append_list(b);
}

floe_status floe_cast_text_to_list_shape(const floe_array *a, const floe_type *to, int64_t n, floe_array **out) {
    *out = NULL;
    floe_type *shape = NULL;
    floe_status st = text_shape(to, &shape);
    if (st) {
        floe_status_free(st);
        floe_buf tn = FLOE_BUF_INIT;
        st = floe_type_to_string(to, &tn);
        if (!st) st = floe_error(FLOE_ERR_UNSUPPORTED, "cannot cast text to %s (only to arrays of scalars, "
                                 "nested or not; build other values with ROW(...), struct_pack or map(...))",
                                 floe_buf_cstr(&tn));
        floe_buf_free(&tn);
        return st;
    }
    floe_builder *b = NULL;
    st = floe_builder_new(shape, n, &b);
    parser p = {0};
    floe_buf_init(&p.piece);
    for (int64_t r = 0; r < n && !st; r++) {
        if (floe_array_is_null(a, r)) {
            st = floe_builder_append_null(b);
            continue;
        }
        floe_strview v = floe_array_get_str(a, r);
        p.s = v.data;
        p.n = v.len;
        p.i = 0;
        st = parse_list(&p, b, shape);
        skip_blanks(&p);
        if (!st && p.i < p.n) st = malformed(&p, "junk after closing right brace");
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_buf_free(&p.piece);
    floe_type_release(shape);
    return st;
}

/* ------------------------------------------------------- list → text */

static bool needs_quotes(const char *s, size_t n) {
    if (n == 0 || (n == 4 && !strncasecmp(s, "null", 4))) return true;
    for (size_t i = 0; i < n; i++)
        if (strchr("{}\",\\", s[i]) || isspace((unsigned char)s[i])) return true;
    return false;
}

floe_status floe_cast_column_to_text(const floe_array *el, floe_array **out) {
    *out = NULL;
    floe_field f = {0};
    floe_schema *sc = NULL;
    floe_batch *b = NULL;
    floe_expr *col = NULL, *cast = NULL;
    floe_array *cols[1] = {(floe_array *)el};
    floe_status st = floe_field_init(&f, "e", el->type, true, -1);
    if (!st) st = floe_type_struct(&f, 1, &sc);
    if (!st) st = floe_batch_new(sc, cols, 1, el->length, &b);
    if (!st) st = floe_expr_column(0, &col);
    if (!st) st = floe_expr_cast(col, floe_type_primitive(FLOE_TYPE_STRING), &cast);
    if (!st) st = floe_expr_eval(cast, b, out);
    floe_expr_release(cast);
    floe_expr_release(col);
    floe_batch_release(b);
    floe_type_release(sc);
    floe_field_clear(&f);
    return st;
}

/* Slot r of list l into out; leaf text (for non-list leaves) from text. */
static floe_status put_text(const floe_array *l, int64_t r, const floe_array *text, floe_buf *out) {
    int64_t b, e;
    floe_array_get_range(l, r, &b, &e);
    const floe_array *el = l->children[0];
    FLOE_TRY(floe_buf_append_str(out, "{"));
    for (int64_t j = b; j < e; j++) {
        if (j > b) FLOE_TRY(floe_buf_append_str(out, ","));
        if (floe_array_is_null(el, j)) {
            FLOE_TRY(floe_buf_append_str(out, "NULL"));
        } else if (el->type->id == FLOE_TYPE_LIST) {
            FLOE_TRY(put_text(el, j, text, out));
        } else if (el->type->id == FLOE_TYPE_BOOL) {
            FLOE_TRY(floe_buf_append_str(out, floe_array_get_bool(el, j) ? "t" : "f"));
        } else {
            floe_strview v = floe_array_get_str(text, j);
            if (!needs_quotes(v.data, (size_t)v.len)) {
                FLOE_TRY(floe_buf_append(out, v.data, (size_t)v.len));
                continue;
            }
            FLOE_TRY(floe_buf_append_str(out, "\""));
            for (int32_t k = 0; k < v.len; k++) {
                if (v.data[k] == '"' || v.data[k] == '\\') FLOE_TRY(floe_buf_append_str(out, "\\"));
                FLOE_TRY(floe_buf_append(out, v.data + k, 1));
            }
            FLOE_TRY(floe_buf_append_str(out, "\""));
        }
    }
    return floe_buf_append_str(out, "}");
}

/* The innermost non-list element array under l. */
static const floe_array *leaf_of(const floe_array *l) {
    const floe_array *el = l->children[0];
    return el->type->id == FLOE_TYPE_LIST ? leaf_of(el) : el;
}

floe_status floe_cast_list_to_text(const floe_array *a, int64_t n, floe_array **out) {
    *out = NULL;
    const floe_array *leaf = leaf_of(a);
    floe_array *text = NULL;
    floe_status st = NULL;
    if (leaf->type->id != FLOE_TYPE_BOOL && leaf->type->id != FLOE_TYPE_NULL) st = floe_cast_column_to_text(leaf, &text);
    floe_builder *b = NULL;
    if (!st) st = floe_builder_new(floe_type_primitive(FLOE_TYPE_STRING), n, &b);
    floe_buf tmp = FLOE_BUF_INIT;
    for (int64_t r = 0; r < n && !st; r++) {
        if (floe_array_is_null(a, r)) {
            st = floe_builder_append_null(b);
            continue;
        }
        tmp.len = 0;
        st = put_text(a, r, text, &tmp);
        if (!st) st = floe_builder_append_binary(b, tmp.len ? (const char *)tmp.data : "", (int64_t)tmp.len);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    floe_buf_free(&tmp);
    floe_array_release(text);
    return st;
}
