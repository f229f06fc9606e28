/*
 * func_array.c — PostgreSQL's functions between text and arrays (floe's
 * lists, FLOE_TYPE_LIST):
 *
 *   string_to_array(text, delim [, null_string])  list<string>: the text cut
 *       at every delim; a NULL delim cuts it into characters, an empty delim
 *       keeps it whole, empty text is an empty list; pieces equal to
 *       null_string become NULL.  NULL text: NULL.
 *   array_to_string(list, delim [, null_string])  the elements' text joined
 *       by delim; NULL elements are skipped, or written as null_string when
 *       it is given (not NULL).  A NULL list or delim: NULL.
 *   cardinality(list)                             the element count (int32,
 *       as PostgreSQL's integer), NULL for a NULL list.
 *
 * Elements print as PostgreSQL's text output would for the scalar types
 * (booleans as t / f); floe_format_value does the rest.
 */
#include <string.h>

#include "exec/expr/cast_list.h"
#include "exec/func/functions.h"

/* -------------------------------------------------------------- types */

static floe_status s2a_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types, int32_t n,
                            floe_type **out) {
    (void)args;
    *out = NULL;
    for (int32_t i = 0; i < n; i++)
        if (!fn_is_string(types[i])) return fn_type_error(def, types, n);
    floe_field e = {0};
    floe_status st = floe_field_init(&e, "element", floe_type_primitive(FLOE_TYPE_STRING), true, -1);
    if (!st) st = floe_type_list(&e, out);
    floe_field_clear(&e);
    return st;
}

static floe_status a2s_type(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types, int32_t n,
                            floe_type **out) {
    (void)args;
    *out = NULL;
    if (types[0]->id != FLOE_TYPE_LIST && types[0]->id != FLOE_TYPE_NULL) return fn_type_error(def, types, n);
    for (int32_t i = 1; i < n; i++)
        if (!fn_is_string(types[i])) return fn_type_error(def, types, n);
    if (def->tag) { /* cardinality */
        *out = floe_type_primitive(FLOE_TYPE_INT32);
        return NULL;
    }
    *out = floe_type_primitive(FLOE_TYPE_STRING);
    return NULL;
}

/* ----------------------------------------------------- string_to_array */

/* Does slot i of the optional text argument a (NULL: absent) hold text? */
static bool opt_text(const floe_array *a, int64_t i, floe_strview *v) {
    if (!a || a->type->id == FLOE_TYPE_NULL || fn_null(a, i)) return false;
    *v = fn_get_str(a, i);
    return true;
}

static floe_status add_piece(floe_builder *eb, const char *p, int64_t len, bool has_null, floe_strview nul) {
    if (has_null && nul.len == len && (len == 0 || memcmp(p, nul.data, (size_t)len) == 0))
        return floe_builder_append_null(eb);
    return floe_builder_append_binary(eb, len ? p : "", len);
}

static floe_status s2a_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows, floe_type *rtype,
                            floe_array **out) {
    (void)def;
    *out = NULL;
    floe_builder *b = NULL;
    FLOE_TRY(floe_builder_new(rtype, rows, &b));
    floe_builder *eb = floe_builder_child(b, 0);
    floe_status st = NULL;
    for (int64_t i = 0; i < rows && !st; i++) {
        floe_strview s, d, nul = {0};
        if (!opt_text(args[0], i, &s)) {
            st = floe_builder_append_null(b);
            continue;
        }
        bool has_d = opt_text(args[1], i, &d);
        bool has_null = opt_text(n > 2 ? args[2] : NULL, i, &nul);
        if (s.len == 0) {
            /* empty text: an empty array */
        } else if (!has_d) {
            for (int64_t k = 0; k < s.len && !st;) {
                int64_t c = fn_utf8_len((unsigned char)s.data[k]);
                if (c > s.len - k) c = s.len - k;
                st = add_piece(eb, s.data + k, c, has_null, nul);
                k += c;
            }
        } else if (d.len == 0) {
            st = add_piece(eb, s.data, s.len, has_null, nul);
        } else {
            int64_t from = 0;
            for (int64_t k = 0; k + d.len <= s.len && !st;) {
                if (memcmp(s.data + k, d.data, (size_t)d.len) == 0) {
                    st = add_piece(eb, s.data + from, k - from, has_null, nul);
                    k += d.len;
                    from = k;
                } else {
                    k++;
                }
            }
            if (!st) st = add_piece(eb, s.data + from, s.len - from, has_null, nul);
        }
        if (!st) st = floe_builder_append_list(b);
    }
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

/* ----------------------------------------------------- array_to_string */

static floe_status elem_text(const floe_array *c, int64_t j, floe_buf *out) {
    if (c->type->id == FLOE_TYPE_BOOL) return floe_buf_append_str(out, floe_array_get_bool(c, j) ? "t" : "f");
    if (floe_type_is_binary_like(c->type) && c->type->id == FLOE_TYPE_STRING) {
        floe_strview v = floe_array_get_str(c, j);
        return floe_buf_append(out, v.data, (size_t)v.len);
    }
    return floe_format_value(c, j, out);
}

/* array_to_string.  Floats print as their ::text cast does (PostgreSQL's
 * float8out: 2, not 2.0): the element column is cast once per batch
 * (floe_cast_column_to_text), so array_to_string and CAST agree. */
static floe_status a2s_eval(const floe_func_def *def, floe_array *const *args, int32_t n, int64_t rows, floe_type *rtype,
                            floe_array **out) {
    *out = NULL;
    const floe_array *l = args[0];
    bool card = def->tag != 0;
    if (l->type->id == FLOE_TYPE_NULL) return floe_array_new_nulls(rtype, rows, out);
    if (card) {
        floe_builder *b = NULL;
        FLOE_TRY(floe_builder_new(rtype, rows, &b));
        floe_status st = NULL;
        for (int64_t i = 0; i < rows && !st; i++) {
            if (fn_null(l, i)) {
                st = floe_builder_append_null(b);
                continue;
            }
            int64_t s, e;
            floe_array_get_range(l, fn_at(l, i), &s, &e);
            st = floe_builder_append_int32(b, (int32_t)(e - s));
        }
        if (!st) st = floe_builder_finish(b, out);
        floe_builder_free(b);
        return st;
    }
    fn_strwriter w;
    floe_buf text = FLOE_BUF_INIT;
    floe_status st = fn_sw_init(&w, rows, NULL);
    const floe_array *c = l->children[0];
    floe_array *ftext = NULL;
    if (!st && (c->type->id == FLOE_TYPE_FLOAT64 || c->type->id == FLOE_TYPE_FLOAT32)) {
        st = floe_cast_column_to_text(c, &ftext);
        if (!st) c = ftext;
    }
    for (int64_t i = 0; i < rows && !st; i++) {
        floe_strview d, nul = {0};
        if (fn_null(l, i) || !opt_text(args[1], i, &d)) {
            st = fn_sw_set_null(&w, i);
            if (!st) st = fn_sw_append(&w, "", 0);
            continue;
        }
        bool has_null = opt_text(n > 2 ? args[2] : NULL, i, &nul);
        int64_t s, e;
        floe_array_get_range(l, fn_at(l, i), &s, &e);
        text.len = 0;
        bool first = true;
        for (int64_t j = s; j < e && !st; j++) {
            bool is_null = floe_array_is_null(c, j);
            if (is_null && !has_null) continue;
            if (!first) st = floe_buf_append(&text, d.data, (size_t)d.len);
            first = false;
            if (!st) st = is_null ? floe_buf_append(&text, nul.data, (size_t)nul.len) : elem_text(c, j, &text);
        }
        if (!st) st = fn_sw_append(&w, text.len ? (const void *)text.data : "", text.len);
    }
    if (!st) st = fn_sw_finish(&w, rtype, out);
    fn_sw_free(&w);
    floe_buf_free(&text);
    floe_array_release(ftext);
    return st;
}

const floe_func_def floe_array_funcs[] = {
    {"string_to_array", 2, 3, "string_to_array(string, string[, string])", s2a_type, s2a_eval, 0, NULL, FLOE_TYPE_NULL},
    {"array_to_string", 2, 3, "array_to_string(list, string[, string])", a2s_type, a2s_eval, 0, NULL, FLOE_TYPE_NULL},
    {"cardinality", 1, 1, "cardinality(list)", a2s_type, a2s_eval, 1, NULL, FLOE_TYPE_NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, NULL, FLOE_TYPE_NULL},
};
