/*
 * func_json.c — PostgreSQL 15's json and jsonb functions and operators,
 * over string columns holding JSON text (json_text.h says why and how):
 *
 *   casts          x::json (validated, kept as given), x::jsonb (validated,
 *                  normalized) — __json_in / __jsonb_in, bound by the cast
 *   operators      -> ->> (key or index), #> #>> (path '{a,0}' or ARRAY[]),
 *                  ? ?| ?& (jsonb key existence), @> <@ (jsonb containment);
 *                  - #- || are func_jsonb_ops.c's
 *   functions      json(b)_extract_path(_text), json(b)_typeof,
 *                  json(b)_array_length, to_json(b), json(b)_build_object,
 *                  json(b)_build_array, jsonb_pretty
 *
 * All are strict but the builders (a NULL value is JSON null).  Text from
 * a plain text column is validated where it is read, so an operator over
 * text that is not JSON fails with "invalid input syntax for type json".
 * Values given to to_json / json_build_* are converted by their SQL type:
 * a string becomes a JSON string even when it holds JSON text (floe does
 * not know a string column is json), which is where floe differs from
 * PostgreSQL.  The set-returning ones (json_object_keys, json_each,
 * json_array_elements) are registered only to say they are unsupported.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/func/functions.h"
#include "exec/func/json_text.h"

enum {
    J_IN, JB_IN, J_GET, J_GET_TEXT, J_PATH, J_PATH_TEXT, J_EXISTS, J_EXISTS_ANY, J_EXISTS_ALL, J_CONTAINS,
    J_CONTAINED, J_EXTRACT, J_EXTRACT_TEXT, J_TYPEOF, J_ARRAY_LENGTH, J_TO_JSON, JB_TO_JSON, J_BUILD_OBJECT,
    JB_BUILD_OBJECT, J_BUILD_ARRAY, JB_BUILD_ARRAY, JB_PRETTY, J_SRF
};

/* ------------------------------------------------------------- types */

static floe_status type_json(const floe_func_def *def, const floe_expr *const *args, floe_type *const *types,
                             int32_t n, floe_type **out) {
    (void)args;
    if (def->tag == J_SRF)
        return floe_error(FLOE_ERR_UNSUPPORTED, "%s is a set-returning function, which floe does not support yet",
                          def->name);
    for (int32_t i = 0; i < n; i++) {
        bool ok;
        if (def->tag >= J_TO_JSON && def->tag <= JB_BUILD_ARRAY) ok = true; /* any value */
        else if (i == 0) ok = fn_is_string(types[0]);
        else if (def->tag == J_GET || def->tag == J_GET_TEXT) ok = fn_is_string(types[i]) || fn_is_int(types[i]);
        else if (def->tag == J_EXISTS_ANY || def->tag == J_EXISTS_ALL || def->tag == J_PATH || def->tag == J_PATH_TEXT)
            ok = fn_is_string(types[i]) ||
                 (types[i]->id == FLOE_TYPE_LIST && fn_is_string(types[i]->children[0].type)); /* text[] */
        else ok = fn_is_string(types[i]);
        if (!ok) return fn_type_error(def, types, n);
    }
    *out = floe_type_primitive(def->result);
    return NULL;
}

/* ------------------------------------------------------------ helpers */

/* (json_text.h) */
floe_status jt_parse_text_array(floe_strview t, floe_buf *store, floe_buf *idx, int64_t *count) {
    floe_buf_clear(store);
    floe_buf_clear(idx);
    *count = 0;
    int64_t i = 0;
    while (i < t.len && (t.data[i] == ' ' || t.data[i] == '\t' || t.data[i] == '\n')) i++;
    if (i >= t.len || t.data[i] != '{') goto bad;
    i++;
    for (;;) {
        while (i < t.len && (t.data[i] == ' ' || t.data[i] == '\t')) i++;
        if (i < t.len && t.data[i] == '}' && *count == 0) {
            i++;
            break;
        }
        int64_t pair[2] = {(int64_t)store->len, 0};
        if (i < t.len && t.data[i] == '"') {
            for (i++; i < t.len && t.data[i] != '"'; i++) {
                if (t.data[i] == '\\' && i + 1 < t.len) i++;
                FLOE_TRY(floe_buf_append_byte(store, (uint8_t)t.data[i]));
            }
            if (i >= t.len) goto bad;
            i++;
        } else {
            int64_t s = i;
            while (i < t.len && t.data[i] != ',' && t.data[i] != '}') {
                if (t.data[i] == '"' || t.data[i] == '{') goto bad;
                if (t.data[i] == '\\' && i + 1 < t.len) i++;
                FLOE_TRY(floe_buf_append_byte(store, (uint8_t)t.data[i]));
                i++;
            }
            /* trailing blanks of an unquoted element are not part of it */
            while (store->len > (size_t)pair[0] && (store->data[store->len - 1] == ' ' || store->data[store->len - 1] == '\t'))
                store->len--;
            if (i == s) goto bad;
        }
        pair[1] = (int64_t)store->len - pair[0];
        FLOE_TRY(floe_buf_append(idx, pair, sizeof pair));
        (*count)++;
        while (i < t.len && (t.data[i] == ' ' || t.data[i] == '\t')) i++;
        if (i < t.len && t.data[i] == ',') {
            i++;
            continue;
        }
        if (i < t.len && t.data[i] == '}') {
            i++;
            break;
        }
        goto bad;
    }
    while (i < t.len && (t.data[i] == ' ' || t.data[i] == '\t' || t.data[i] == '\n')) i++;
    if (i == t.len) return NULL;
bad:
    return floe_error(FLOE_ERR_INVALID_ARGUMENT, "malformed array literal: \"%.*s\"", (int)(t.len > 100 ? 100 : t.len),
                      t.data);
}

/* One path step: a key of an object, an integer index of an array. */
static floe_status step(const char *s, jt_span v, const char *k, int64_t kl, jt_span *out, bool *found) {
    *found = false;
    jt_kind kind = jt_kind_of(s, v);
    if (kind == JT_OBJECT) return jt_field(s, v, k, kl, out, found);
    if (kind != JT_ARRAY || kl == 0 || kl > 20) return NULL;
    char tmp[24], *end = NULL;
    memcpy(tmp, k, (size_t)kl);
    tmp[kl] = 0;
    long long idx = strtoll(tmp, &end, 10);
    if (*end) return NULL;
    return jt_index(s, v, idx, out, found);
}

/* The result of ->> / #>>: strings unescaped, null as SQL NULL. */
static floe_status put_text(floe_builder *b, const char *s, jt_span v, floe_buf *tmp) {
    jt_kind k = jt_kind_of(s, v);
    if (k == JT_NULL) return floe_builder_append_null(b);
    if (k != JT_STRING) return floe_builder_append_binary(b, s + v.start, v.end - v.start);
    floe_buf_clear(tmp);
    FLOE_TRY(jt_unescape(s, v, tmp));
    return floe_builder_append_binary(b, tmp->data, (int64_t)tmp->len);
}

floe_status jt_value_json(const floe_array *a, int64_t i, floe_buf *out, floe_buf *tmp) {
    if (fn_null(a, i)) return floe_buf_append_str(out, "null");
    switch (a->type->id) {
    case FLOE_TYPE_STRING: {
        floe_strview s = fn_get_str(a, i);
        return jt_escape(s.data, s.len, out);
    }
    case FLOE_TYPE_BOOL: return floe_buf_append_str(out, floe_array_get_bool(a, fn_at(a, i)) ? "true" : "false");
    case FLOE_TYPE_INT32: case FLOE_TYPE_INT64: case FLOE_TYPE_DECIMAL128:
        return floe_format_value(a, fn_at(a, i), out);
    case FLOE_TYPE_FLOAT32: case FLOE_TYPE_FLOAT64: {
        double d = fn_get_f64(a, i);
        if (!isfinite(d)) {
            floe_buf_clear(tmp);
            FLOE_TRY(floe_format_value(a, fn_at(a, i), tmp));
            return jt_escape((const char *)tmp->data, (int64_t)tmp->len, out);
        }
        return floe_format_value(a, fn_at(a, i), out);
    }
    case FLOE_TYPE_LIST: { /* a JSON array of the elements, as PostgreSQL's array_to_json */
        int64_t b, e;
        floe_array_get_range(a, fn_at(a, i), &b, &e);
        FLOE_TRY(floe_buf_append_byte(out, '['));
        for (int64_t j = b; j < e; j++) {
            if (j > b) FLOE_TRY(floe_buf_append_byte(out, ','));
            FLOE_TRY(jt_value_json(a->children[0], j, out, tmp));
        }
        return floe_buf_append_byte(out, ']');
    }
    case FLOE_TYPE_STRUCT: { /* an object of the fields, as row_to_json */
        int64_t slot = a->offset + fn_at(a, i); /* slot r of a struct is slot offset + r of a child */
        FLOE_TRY(floe_buf_append_byte(out, '{'));
        for (int32_t k = 0; k < a->n_children; k++) {
            if (k) FLOE_TRY(floe_buf_append_byte(out, ','));
            const char *name = a->type->children[k].name ? a->type->children[k].name : "";
            FLOE_TRY(jt_escape(name, (int64_t)strlen(name), out));
            FLOE_TRY(floe_buf_append_byte(out, ':'));
            FLOE_TRY(jt_value_json(a->children[k], slot, out, tmp));
        }
        return floe_buf_append_byte(out, '}');
    }
    default: {
        /* dates, times, timestamps (ISO 8601 with 'T'), other values as text */
        floe_buf_clear(tmp);
        FLOE_TRY(floe_format_value(a, fn_at(a, i), tmp));
        bool ts = a->type->id == FLOE_TYPE_TIMESTAMP_US || a->type->id == FLOE_TYPE_TIMESTAMP_US_TZ ||
                  a->type->id == FLOE_TYPE_TIMESTAMP_NS || a->type->id == FLOE_TYPE_TIMESTAMP_NS_TZ;
        if (ts) {
            char *sp = memchr(tmp->data, ' ', tmp->len);
            if (sp) *sp = 'T';
            /* PostgreSQL drops trailing zeros of the fraction */
            char *dot = memchr(tmp->data, '.', tmp->len);
            if (dot && !memchr(dot, '+', tmp->len - (size_t)(dot - (char *)tmp->data))) {
                while (tmp->len && tmp->data[tmp->len - 1] == '0') tmp->len--;
                if (tmp->len && tmp->data[tmp->len - 1] == '.') tmp->len--;
            }
        }
        return jt_escape((const char *)tmp->data, (int64_t)tmp->len, out);
    }
    }
}

/* jsonb containment (PostgreSQL's @>): objects by key, arrays as sets of
 * elements, scalars by value; a top-level array contains a scalar it
 * holds. */
static floe_status contains(const char *a, jt_span va, const char *b, jt_span vb, bool top, bool *out);

typedef struct cont_ctx {
    const char *a, *b;
    jt_span va;
    bool ok;
    floe_status st;
} cont_ctx;

static bool scalar_equal(const char *a, jt_span va, const char *b, jt_span vb) {
    jt_kind ka = jt_kind_of(a, va), kb = jt_kind_of(b, vb);
    if (ka != kb) return false;
    if (ka == JT_NUMBER) return strtod(a + va.start, NULL) == strtod(b + vb.start, NULL);
    if (ka == JT_STRING) {
        floe_buf x = FLOE_BUF_INIT, y = FLOE_BUF_INIT;
        bool eq = !jt_unescape(a, va, &x) && !jt_unescape(b, vb, &y) && x.len == y.len &&
                  (x.len == 0 || !memcmp(x.data, y.data, x.len));
        floe_buf_free(&x);
        floe_buf_free(&y);
        return eq;
    }
    return true;
}

static bool obj_member_cb(void *ctx, const char *s, jt_span key, jt_span val);
static bool arr_elem_cb(void *ctx, const char *s, jt_span key, jt_span val);

static bool obj_member_cb(void *ctx, const char *s, jt_span key, jt_span val) {
    cont_ctx *c = ctx;
    floe_buf k = FLOE_BUF_INIT;
    jt_span got;
    bool found = false, in = false;
    c->st = jt_unescape(s, key, &k);
    if (!c->st) c->st = jt_field(c->a, c->va, k.data ? (const char *)k.data : "", (int64_t)k.len, &got, &found);
    if (!c->st && found) c->st = contains(c->a, got, s, val, false, &in);
    floe_buf_free(&k);
    if (c->st || !in) {
        c->ok = false;
        return true;
    }
    return false;
}

typedef struct any_ctx {
    const char *b;
    jt_span vb;
    bool found;
    floe_status st;
} any_ctx;

static bool any_cb(void *ctx, const char *s, jt_span key, jt_span val) {
    (void)key;
    any_ctx *c = ctx;
    jt_kind kb = jt_kind_of(c->b, c->vb), ka = jt_kind_of(s, val);
    bool in = false;
    if (kb == JT_OBJECT || kb == JT_ARRAY) {
        if (ka == kb) c->st = contains(s, val, c->b, c->vb, false, &in);
    } else {
        in = scalar_equal(s, val, c->b, c->vb);
    }
    if (c->st || in) {
        c->found = in;
        return true;
    }
    return false;
}

static bool arr_elem_cb(void *ctx, const char *s, jt_span key, jt_span val) {
    (void)key;
    cont_ctx *c = ctx;
    any_ctx x = {s, val, false, NULL};
    c->st = jt_each(c->a, c->va, any_cb, &x);
    if (!c->st) c->st = x.st;
    if (c->st || !x.found) {
        c->ok = false;
        return true;
    }
    return false;
}

static floe_status contains(const char *a, jt_span va, const char *b, jt_span vb, bool top, bool *out) {
    jt_kind ka = jt_kind_of(a, va), kb = jt_kind_of(b, vb);
    *out = false;
    if (ka == JT_ARRAY && kb != JT_ARRAY && kb != JT_OBJECT && top) {
        any_ctx x = {b, vb, false, NULL};
        FLOE_TRY(jt_each(a, va, any_cb, &x));
        *out = x.found;
        return x.st;
    }
    if (ka != kb) return NULL;
    if (ka != JT_OBJECT && ka != JT_ARRAY) {
        *out = scalar_equal(a, va, b, vb);
        return NULL;
    }
    cont_ctx c = {a, b, va, true, NULL};
    FLOE_TRY(jt_each(b, vb, ka == JT_OBJECT ? obj_member_cb : arr_elem_cb, &c));
    *out = c.ok && !c.st;
    return c.st;
}

/* jsonb_pretty: four-space indents, one member or element a line. */
static floe_status pretty(const char *s, jt_span v, int depth, floe_buf *out);

typedef struct pretty_ctx {
    floe_buf *out;
    int depth;
    bool first, obj;
    floe_status st;
} pretty_ctx;

static floe_status indent(floe_buf *out, int depth) {
    FLOE_TRY(floe_buf_append_byte(out, '\n'));
    for (int k = 0; k < depth; k++) FLOE_TRY(floe_buf_append_str(out, "    "));
    return NULL;
}

static bool pretty_cb(void *ctx, const char *s, jt_span key, jt_span val) {
    pretty_ctx *p = ctx;
    if (!p->first) p->st = floe_buf_append_byte(p->out, ',');
    p->first = false;
    if (!p->st) p->st = indent(p->out, p->depth + 1);
    if (!p->st && p->obj) {
        p->st = floe_buf_append(p->out, s + key.start, (size_t)(key.end - key.start));
        if (!p->st) p->st = floe_buf_append_str(p->out, ": ");
    }
    if (!p->st) p->st = pretty(s, val, p->depth + 1, p->out);
    return p->st != NULL;
}

static floe_status pretty(const char *s, jt_span v, int depth, floe_buf *out) {
    jt_kind k = jt_kind_of(s, v);
    if (k != JT_OBJECT && k != JT_ARRAY) return floe_buf_append(out, s + v.start, (size_t)(v.end - v.start));
    pretty_ctx p = {out, depth, true, k == JT_OBJECT, NULL};
    FLOE_TRY(floe_buf_append_byte(out, k == JT_OBJECT ? '{' : '['));
    FLOE_TRY(jt_each(s, v, pretty_cb, &p));
    FLOE_TRY(p.st);
    FLOE_TRY(indent(out, depth)); /* also for an empty container, as PostgreSQL */
    return floe_buf_append_byte(out, k == JT_OBJECT ? '}' : ']');
}

/* ------------------------------------------------------------ kernels */

static floe_status eval_build(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                              floe_type *rt, floe_builder *b) {
    (void)rt;
    bool obj = def->tag == J_BUILD_OBJECT || def->tag == JB_BUILD_OBJECT;
    bool jsonb = def->tag == JB_BUILD_OBJECT || def->tag == JB_BUILD_ARRAY || def->tag == JB_TO_JSON;
    if (obj && n % 2)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: argument list must have even number of elements",
                          def->name);
    floe_buf t = FLOE_BUF_INIT, tmp = FLOE_BUF_INIT, norm = FLOE_BUF_INIT;
    floe_status st = NULL;
    for (int64_t i = 0; i < rows && !st; i++) {
        floe_buf_clear(&t);
        if (def->tag == J_TO_JSON || def->tag == JB_TO_JSON) {
            if (fn_null(a[0], i)) {
                st = floe_builder_append_null(b);
                continue;
            }
            st = jt_value_json(a[0], i, &t, &tmp);
        } else {
            st = floe_buf_append_byte(&t, obj ? '{' : '[');
            for (int32_t k = 0; k < n && !st; k++) {
                if (k) st = floe_buf_append_str(&t, obj && k % 2 ? " : " : ", ");
                if (st) break;
                if (obj && k % 2 == 0) {
                    if (fn_null(a[k], i)) {
                        st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "%s: argument %d: key must not be null",
                                        def->name, k + 1);
                        break;
                    }
                    floe_buf_clear(&tmp);
                    if (a[k]->type->id == FLOE_TYPE_STRING) {
                        floe_strview s = fn_get_str(a[k], i);
                        st = jt_escape(s.data, s.len, &t);
                    } else {
                        st = floe_format_value(a[k], fn_at(a[k], i), &tmp);
                        if (!st) st = jt_escape((const char *)tmp.data, (int64_t)tmp.len, &t);
                    }
                } else {
                    st = jt_value_json(a[k], i, &t, &tmp);
                }
            }
            if (!st) st = floe_buf_append_byte(&t, obj ? '}' : ']');
        }
        if (!st && jsonb) {
            jt_span v = {0, (int64_t)t.len};
            floe_buf_clear(&norm);
            st = jt_normalize((const char *)t.data, v, &norm);
            if (!st) st = floe_builder_append_binary(b, norm.data, (int64_t)norm.len);
        } else if (!st) {
            st = floe_builder_append_binary(b, t.data, (int64_t)t.len);
        }
    }
    floe_buf_free(&t);
    floe_buf_free(&tmp);
    floe_buf_free(&norm);
    return st;
}

static floe_status eval_json(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                             floe_type *rt, floe_array **out) {
    floe_builder *b = NULL;
    FLOE_TRY(floe_builder_new(rt, rows, &b));
    floe_status st = NULL;
    if (def->tag >= J_TO_JSON && def->tag <= JB_BUILD_ARRAY) {
        st = eval_build(def, a, n, rows, rt, b);
        goto done;
    }
    floe_buffer *valid = NULL;
    floe_buf tmp = FLOE_BUF_INIT, store = FLOE_BUF_INIT, idx = FLOE_BUF_INIT;
    st = fn_validity(a, n, rows, &valid);
    for (int64_t i = 0; i < rows && !st; i++) {
        if (valid && !floe_bit_get(valid->data, i)) {
            st = floe_builder_append_null(b);
            continue;
        }
        floe_strview sv = fn_get_str(a[0], i);
        const char *s = sv.data ? sv.data : "";
        jt_span v, got;
        bool found = false;
        st = jt_validate(s, sv.len, &v);
        if (st) break;
        switch (def->tag) {
        case J_IN: st = floe_builder_append_binary(b, s, sv.len); break;
        case JB_IN:
            floe_buf_clear(&tmp);
            st = jt_normalize(s, v, &tmp);
            if (!st) st = floe_builder_append_binary(b, tmp.data, (int64_t)tmp.len);
            break;
        case JB_PRETTY:
            floe_buf_clear(&tmp);
            st = pretty(s, v, 0, &tmp);
            if (!st) st = floe_builder_append_binary(b, tmp.data, (int64_t)tmp.len);
            break;
        case J_GET: case J_GET_TEXT:
            if (a[1]->type->id == FLOE_TYPE_STRING) {
                floe_strview k = fn_get_str(a[1], i);
                st = jt_field(s, v, k.data, k.len, &got, &found);
            } else {
                st = jt_index(s, v, fn_get_i64(a[1], i), &got, &found);
            }
            if (st) break;
            if (!found) st = floe_builder_append_null(b);
            else if (def->tag == J_GET) st = floe_builder_append_binary(b, s + got.start, got.end - got.start);
            else st = put_text(b, s, got, &tmp);
            break;
        case J_PATH: case J_PATH_TEXT: case J_EXTRACT: case J_EXTRACT_TEXT: {
            int64_t cnt = 0;
            bool text = def->tag == J_PATH_TEXT || def->tag == J_EXTRACT_TEXT;
            if (def->tag == J_PATH || def->tag == J_PATH_TEXT) {
                st = jt_text_array_at(a[1], i, &store, &idx, &cnt);
            } else {
                /* json_extract_path(j, VARIADIC keys) */
                floe_buf_clear(&store);
                floe_buf_clear(&idx);
                for (int32_t k = 1; k < n && !st; k++) {
                    floe_strview kv = fn_get_str(a[k], i);
                    int64_t pair[2] = {(int64_t)store.len, kv.len};
                    st = floe_buf_append(&store, kv.data, (size_t)kv.len);
                    if (!st) st = floe_buf_append(&idx, pair, sizeof pair);
                    cnt++;
                }
            }
            got = v;
            found = true;
            for (int64_t k = 0; k < cnt && !st && found; k++) {
                const int64_t *pair = (const int64_t *)idx.data + 2 * k;
                jt_span nx;
                if (pair[1] < 0) { /* a NULL path element: no value */
                    found = false;
                    break;
                }
                st = step(s, got, (const char *)store.data + pair[0], pair[1], &nx, &found);
                got = nx;
            }
            if (st) break;
            if (!found) st = floe_builder_append_null(b);
            else if (!text) st = floe_builder_append_binary(b, s + got.start, got.end - got.start);
            else st = put_text(b, s, got, &tmp);
            break;
        }
        case J_EXISTS: case J_EXISTS_ANY: case J_EXISTS_ALL: {
            /* a top-level key, or a string element of a top-level array */
            int64_t cnt = 1;
            const char *keys[1];
            int64_t one[2];
            if (def->tag == J_EXISTS) {
                floe_strview k = fn_get_str(a[1], i);
                keys[0] = k.data;
                one[0] = 0, one[1] = k.len;
            } else {
                st = jt_text_array_at(a[1], i, &store, &idx, &cnt);
            }
            if (st) break;
            int64_t hits = 0;
            for (int64_t k = 0; k < cnt && !st; k++) {
                const char *kp = def->tag == J_EXISTS ? keys[0] : (const char *)store.data + ((int64_t *)idx.data)[2 * k];
                int64_t kl = def->tag == J_EXISTS ? one[1] : ((int64_t *)idx.data)[2 * k + 1];
                bool f = false;
                jt_kind kind = jt_kind_of(s, v);
                if (kl < 0) { /* a NULL key is skipped, as PostgreSQL does */
                    hits += def->tag == J_EXISTS_ALL;
                    continue;
                }
                if (kind == JT_OBJECT) {
                    st = jt_field(s, v, kp, kl, &got, &f);
                } else if (kind == JT_ARRAY || kind == JT_STRING) {
                    floe_buf q = FLOE_BUF_INIT;
                    st = jt_escape(kp ? kp : "", kl, &q);
                    jt_span qv = {0, (int64_t)q.len};
                    any_ctx x = {(const char *)q.data, qv, false, NULL};
                    if (!st && kind == JT_ARRAY) st = jt_each(s, v, any_cb, &x);
                    else if (!st) x.found = scalar_equal(s, v, x.b, qv);
                    f = x.found;
                    floe_buf_free(&q);
                }
                hits += f;
            }
            if (!st) {
                bool r = def->tag == J_EXISTS_ALL ? hits == cnt : hits > 0;
                st = floe_builder_append_bool(b, r);
            }
            break;
        }
        case J_CONTAINS: case J_CONTAINED: {
            floe_strview ov = fn_get_str(a[1], i);
            const char *o = ov.data ? ov.data : "";
            jt_span w;
            bool r = false;
            st = jt_validate(o, ov.len, &w);
            if (!st)
                st = def->tag == J_CONTAINS ? contains(s, v, o, w, true, &r) : contains(o, w, s, v, true, &r);
            if (!st) st = floe_builder_append_bool(b, r);
            break;
        }
        case J_TYPEOF: {
            static const char *const names[] = {"object", "array", "string", "number", "boolean", "boolean", "null"};
            st = floe_builder_append_string(b, names[jt_kind_of(s, v)]);
            break;
        }
        case J_ARRAY_LENGTH: {
            int64_t len;
            st = jt_array_length(s, v, &len);
            if (!st && len < 0)
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot get array length of a %s",
                                jt_kind_of(s, v) == JT_OBJECT ? "non-array" : "scalar");
            if (!st) st = floe_builder_append_int32(b, (int32_t)len);
            break;
        }
        default: st = floe_error(FLOE_ERR_INTERNAL, "%s: no kernel", def->name);
        }
    }
    floe_buffer_release(valid);
    floe_buf_free(&tmp);
    floe_buf_free(&store);
    floe_buf_free(&idx);
done:
    if (!st) st = floe_builder_finish(b, out);
    floe_builder_free(b);
    return st;
}

#define STR FLOE_TYPE_STRING
#define BOOL FLOE_TYPE_BOOL
const floe_func_def floe_json_funcs[] = {
    {"__json_in", 1, 1, "json(string)", type_json, eval_json, J_IN, "S", STR},
    {"__jsonb_in", 1, 1, "jsonb(string)", type_json, eval_json, JB_IN, "S", STR},
    {"__json_get", 2, 2, "json -> (string | int)", type_json, eval_json, J_GET, "S", STR},
    {"__json_get_text", 2, 2, "json ->> (string | int)", type_json, eval_json, J_GET_TEXT, "S", STR},
    {"__json_path", 2, 2, "json #> text[]", type_json, eval_json, J_PATH, "S", STR},
    {"__json_path_text", 2, 2, "json #>> text[]", type_json, eval_json, J_PATH_TEXT, "S", STR},
    {"__jsonb_exists", 2, 2, "jsonb ? string", type_json, eval_json, J_EXISTS, "S", BOOL},
    {"__jsonb_exists_any", 2, 2, "jsonb ?| text[]", type_json, eval_json, J_EXISTS_ANY, "S", BOOL},
    {"__jsonb_exists_all", 2, 2, "jsonb ?& text[]", type_json, eval_json, J_EXISTS_ALL, "S", BOOL},
    {"__jsonb_contains", 2, 2, "jsonb @> jsonb", type_json, eval_json, J_CONTAINS, "S", BOOL},
    {"__jsonb_contained", 2, 2, "jsonb <@ jsonb", type_json, eval_json, J_CONTAINED, "S", BOOL},
    {"json_extract_path", 1, -1, "json_extract_path(json, string, ...)", type_json, eval_json, J_EXTRACT, "S", STR},
    {"jsonb_extract_path", 1, -1, "jsonb_extract_path(jsonb, string, ...)", type_json, eval_json, J_EXTRACT, "S", STR},
    {"json_extract_path_text", 1, -1, "json_extract_path_text(json, string, ...)", type_json, eval_json,
     J_EXTRACT_TEXT, "S", STR},
    {"jsonb_extract_path_text", 1, -1, "jsonb_extract_path_text(jsonb, string, ...)", type_json, eval_json,
     J_EXTRACT_TEXT, "S", STR},
    {"json_typeof", 1, 1, "json_typeof(json)", type_json, eval_json, J_TYPEOF, "S", STR},
    {"jsonb_typeof", 1, 1, "jsonb_typeof(jsonb)", type_json, eval_json, J_TYPEOF, "S", STR},
    {"json_array_length", 1, 1, "json_array_length(json)", type_json, eval_json, J_ARRAY_LENGTH, "S",
     FLOE_TYPE_INT32},
    {"jsonb_array_length", 1, 1, "jsonb_array_length(jsonb)", type_json, eval_json, J_ARRAY_LENGTH, "S",
     FLOE_TYPE_INT32},
    {"jsonb_pretty", 1, 1, "jsonb_pretty(jsonb)", type_json, eval_json, JB_PRETTY, "S", STR},
    {"to_json", 1, 1, "to_json(any)", type_json, eval_json, J_TO_JSON, "A", STR},
    {"row_to_json", 1, 1, "row_to_json(record)", type_json, eval_json, J_TO_JSON, "A", STR},
    {"to_jsonb", 1, 1, "to_jsonb(any)", type_json, eval_json, JB_TO_JSON, "A", STR},
    {"json_build_object", 0, -1, "json_build_object(key, value, ...)", type_json, eval_json, J_BUILD_OBJECT, "A",
     STR},
    {"jsonb_build_object", 0, -1, "jsonb_build_object(key, value, ...)", type_json, eval_json, JB_BUILD_OBJECT,
     "A", STR},
    {"json_build_array", 0, -1, "json_build_array(value, ...)", type_json, eval_json, J_BUILD_ARRAY, "A", STR},
    {"jsonb_build_array", 0, -1, "jsonb_build_array(value, ...)", type_json, eval_json, JB_BUILD_ARRAY, "A", STR},
    {"json_object_keys", 1, 1, "json_object_keys(json)", type_json, eval_json, J_SRF, "S", STR},
    {"jsonb_object_keys", 1, 1, "jsonb_object_keys(jsonb)", type_json, eval_json, J_SRF, "S", STR},
    {"json_each", 1, 1, "json_each(json)", type_json, eval_json, J_SRF, "S", STR},
    {"jsonb_each", 1, 1, "jsonb_each(jsonb)", type_json, eval_json, J_SRF, "S", STR},
    {"json_array_elements", 1, 1, "json_array_elements(json)", type_json, eval_json, J_SRF, "S", STR},
    {"jsonb_array_elements", 1, 1, "jsonb_array_elements(jsonb)", type_json, eval_json, J_SRF, "S", STR},
    {0},
};
