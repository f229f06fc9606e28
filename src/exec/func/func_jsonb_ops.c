/*
 * func_jsonb_ops.c — PostgreSQL 15's jsonb operators that build a new
 * value (the binder maps them, bind_operator.c):
 *
 *   jsonb - text      the object without that key; an array without the
 *                     string elements equal to it
 *   jsonb - text[]    the same for each key (ARRAY[...] or '{a,b}'::text[])
 *   jsonb - integer   the array without that element (negative: from the
 *                     end; out of range: unchanged)
 *   jsonb #- text[]   the value without what the path names (object keys,
 *                     array indexes), unchanged when the path misses
 *   jsonb || jsonb    objects merged (the right side's keys win), arrays
 *                     concatenated, a non-array beside an array appended or
 *                     prepended, anything else a two-element array
 *
 * Values are JSON text (json_text.h); the result is written as raw text
 * and then normalized, so it prints as PostgreSQL prints jsonb.  Errors are
 * PostgreSQL's ("cannot delete from scalar", "path element at position 1
 * is not an integer: ...").
 */
#include <stdlib.h>
#include <string.h>

#include "exec/func/functions.h"
#include "exec/func/json_text.h"

enum { JB_DELETE, JB_DELETE_PATH, JB_CONCAT };

static floe_status type_jsonb_op(const floe_func_def *def, const floe_expr *const *args, floe_type *const *t,
                                 int32_t n, floe_type **out) {
    (void)args;
    bool ok = fn_is_string(t[0]);
    bool list_of_text = t[1]->id == FLOE_TYPE_LIST && fn_is_string(t[1]->children[0].type);
    if (def->tag == JB_DELETE) ok = ok && (fn_is_string(t[1]) || fn_is_int(t[1]) || list_of_text);
    else if (def->tag == JB_DELETE_PATH) ok = ok && (fn_is_string(t[1]) || list_of_text);
    else ok = ok && fn_is_string(t[1]);
    if (!ok) return fn_type_error(def, t, n);
    *out = floe_type_primitive(FLOE_TYPE_STRING);
    return NULL;
}

/* (json_text.h) */
floe_status jt_text_array_at(const floe_array *a, int64_t i, floe_buf *store, floe_buf *idx, int64_t *cnt) {
    if (a->type->id != FLOE_TYPE_LIST) return jt_parse_text_array(fn_get_str(a, i), store, idx, cnt);
    floe_buf_clear(store);
    floe_buf_clear(idx);
    int64_t s, e;
    floe_array_get_range(a, fn_at(a, i), &s, &e);
    const floe_array *c = a->children[0];
    *cnt = 0;
    for (int64_t j = s; j < e; j++) {
        int64_t pair[2] = {(int64_t)store->len, -1};
        if (!floe_array_is_null(c, j)) {
            floe_strview v = floe_array_get_str(c, j);
            FLOE_TRY(floe_buf_append(store, v.data, (size_t)v.len));
            pair[1] = v.len;
        }
        FLOE_TRY(floe_buf_append(idx, pair, sizeof pair));
        (*cnt)++;
    }
    return NULL;
}

/* Whether JSON string value `k` (with its quotes) unescapes to key[0..n). */
static bool key_is(const char *s, jt_span k, const char *key, int64_t n, floe_buf *tmp, floe_status *st) {
    floe_buf_clear(tmp);
    *st = jt_unescape(s, k, tmp);
    return !*st && (int64_t)tmp->len == n && (n == 0 || !memcmp(tmp->data, key, (size_t)n));
}

/* Members / elements of a container, collected by jt_each. */
typedef struct kv_list {
    jt_span *k, *v;
    int64_t n, cap;
    bool oom;
} kv_list;

static bool collect(void *ctx, const char *s, jt_span key, jt_span val) {
    (void)s;
    kv_list *l = ctx;
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 16;
        jt_span *k = floe_realloc(l->k, (size_t)cap * sizeof *k), *v = k ? floe_realloc(l->v, (size_t)cap * sizeof *v) : NULL;
        if (k) l->k = k;
        if (!k || !v) {
            l->oom = true;
            return true;
        }
        l->v = v;
        l->cap = cap;
    }
    l->k[l->n] = key;
    l->v[l->n] = val;
    l->n++;
    return false;
}

static floe_status members(const char *s, jt_span v, kv_list *l) {
    memset(l, 0, sizeof *l);
    FLOE_TRY(jt_each(s, v, collect, l));
    return l->oom ? floe_error(FLOE_ERR_OUT_OF_MEMORY, "jsonb: out of memory") : NULL;
}

static void members_free(kv_list *l) {
    floe_free(l->k);
    floe_free(l->v);
}

static floe_status put_span(floe_buf *o, const char *s, jt_span v) {
    return floe_buf_append(o, s + v.start, (size_t)(v.end - v.start));
}

/* One container member: "key": value, or the value alone in an array. */
static floe_status put_member(floe_buf *o, bool obj, bool *first, const char *s, jt_span k, jt_span v) {
    if (!*first) FLOE_TRY(floe_buf_append_byte(o, ','));
    *first = false;
    if (obj) {
        FLOE_TRY(put_span(o, s, k));
        FLOE_TRY(floe_buf_append_byte(o, ':'));
    }
    return put_span(o, s, v);
}

/* An array index given as path text: PostgreSQL's integer rule. */
static floe_status path_index(const char *p, int64_t n, int64_t pos, int64_t *out) {
    char buf[32];
    char *end = NULL;
    bool ok = n > 0 && n < (int64_t)sizeof buf;
    if (ok) {
        memcpy(buf, p, (size_t)n);
        buf[n] = 0;
        *out = strtoll(buf, &end, 10);
        ok = end && *end == 0 && *out > INT32_MIN && *out < INT32_MAX;
    }
    if (!ok)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "path element at position %lld is not an integer: \"%.*s\"",
                          (long long)pos, (int)(n > 100 ? 100 : n), p);
    return NULL;
}

/* v with path[k..cnt) removed, appended to o. */
static floe_status del_path(const char *s, jt_span v, const char *store, const int64_t *idx, int64_t k, int64_t cnt,
                            floe_buf *o, floe_buf *tmp) {
    jt_kind kind = jt_kind_of(s, v);
    if ((kind != JT_OBJECT && kind != JT_ARRAY) || k == cnt) return put_span(o, s, v);
    const char *p = store + idx[2 * k];
    int64_t pn = idx[2 * k + 1];
    if (pn < 0) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "path element at position %lld is null", (long long)k + 1);
    kv_list l;
    FLOE_TRY(members(s, v, &l));
    floe_status st = NULL;
    int64_t target = -1;
    if (kind == JT_ARRAY) {
        st = path_index(p, pn, k + 1, &target);
        if (!st && target < 0) target += l.n;
    }
    bool first = true;
    if (!st) st = floe_buf_append_byte(o, kind == JT_OBJECT ? '{' : '[');
    for (int64_t j = 0; j < l.n && !st; j++) {
        bool hit = kind == JT_ARRAY ? j == target : key_is(s, l.k[j], p, pn, tmp, &st);
        if (st) break;
        if (hit && k + 1 == cnt) continue;
        if (!hit) {
            st = put_member(o, kind == JT_OBJECT, &first, s, l.k[j], l.v[j]);
            continue;
        }
        if (!first) st = floe_buf_append_byte(o, ',');
        first = false;
        if (!st && kind == JT_OBJECT) st = put_span(o, s, l.k[j]);
        if (!st && kind == JT_OBJECT) st = floe_buf_append_byte(o, ':');
        if (!st) st = del_path(s, l.v[j], store, idx, k + 1, cnt, o, tmp);
    }
    if (!st) st = floe_buf_append_byte(o, kind == JT_OBJECT ? '}' : ']');
    members_free(&l);
    return st;
}

/* jsonb - key(s) / - index: the raw result text of row i into o. */
static floe_status del_keys(const floe_array *arg, int64_t i, const char *s, jt_span v, floe_buf *o, floe_buf *store,
                            floe_buf *idx, floe_buf *tmp) {
    jt_kind kind = jt_kind_of(s, v);
    bool by_index = fn_is_int(arg->type);
    if (kind != JT_OBJECT && kind != JT_ARRAY) return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot delete from scalar");
    if (by_index && kind == JT_OBJECT)
        return floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot delete from object using integer index");
    int64_t cnt = 1, target = 0;
    if (arg->type->id == FLOE_TYPE_LIST) {
        FLOE_TRY(jt_text_array_at(arg, i, store, idx, &cnt));
    } else if (!by_index) {
        floe_strview k = fn_get_str(arg, i);
        floe_buf_clear(store);
        floe_buf_clear(idx);
        int64_t pair[2] = {0, k.len};
        FLOE_TRY(floe_buf_append(store, k.data, (size_t)k.len));
        FLOE_TRY(floe_buf_append(idx, pair, sizeof pair));
    }
    kv_list l;
    FLOE_TRY(members(s, v, &l));
    floe_status st = NULL;
    if (by_index) {
        target = fn_get_i64(arg, i);
        if (target < 0) target += l.n;
    }
    bool first = true;
    st = floe_buf_append_byte(o, kind == JT_OBJECT ? '{' : '[');
    for (int64_t j = 0; j < l.n && !st; j++) {
        bool drop = false;
        if (by_index) {
            drop = j == target;
        } else if (kind == JT_OBJECT || jt_kind_of(s, l.v[j]) == JT_STRING) {
            jt_span key = kind == JT_OBJECT ? l.k[j] : l.v[j];
            for (int64_t q = 0; q < cnt && !drop && !st; q++) {
                const int64_t *pair = (const int64_t *)idx->data + 2 * q;
                if (pair[1] >= 0) drop = key_is(s, key, (const char *)store->data + pair[0], pair[1], tmp, &st);
            }
        }
        if (!st && !drop) st = put_member(o, kind == JT_OBJECT, &first, s, l.k[j], l.v[j]);
    }
    if (!st) st = floe_buf_append_byte(o, kind == JT_OBJECT ? '}' : ']');
    members_free(&l);
    return st;
}

/* Append the elements of array v (without brackets). */
static floe_status put_elements(floe_buf *o, bool *first, const char *s, jt_span v) {
    kv_list l;
    FLOE_TRY(members(s, v, &l));
    floe_status st = NULL;
    for (int64_t j = 0; j < l.n && !st; j++) st = put_member(o, false, first, s, l.k[j], l.v[j]);
    members_free(&l);
    return st;
}

/* jsonb || jsonb (PostgreSQL's jsonb_concat). */
static floe_status concat(const char *a, jt_span va, const char *b, jt_span vb, floe_buf *o) {
    jt_kind ka = jt_kind_of(a, va), kb = jt_kind_of(b, vb);
    bool first = true;
    floe_status st = NULL;
    if (ka == JT_OBJECT && kb == JT_OBJECT) {
        /* both member lists; normalizing keeps the last of a duplicate key */
        kv_list la, lb;
        FLOE_TRY(members(a, va, &la));
        st = members(b, vb, &lb);
        if (st) {
            members_free(&la);
            return st;
        }
        st = floe_buf_append_byte(o, '{');
        for (int64_t j = 0; j < la.n && !st; j++) st = put_member(o, true, &first, a, la.k[j], la.v[j]);
        for (int64_t j = 0; j < lb.n && !st; j++) st = put_member(o, true, &first, b, lb.k[j], lb.v[j]);
        if (!st) st = floe_buf_append_byte(o, '}');
        members_free(&la);
        members_free(&lb);
        return st;
    }
    jt_span none = {0, 0};
    st = floe_buf_append_byte(o, '[');
    if (!st && ka == JT_ARRAY) st = put_elements(o, &first, a, va);
    else if (!st) st = put_member(o, false, &first, a, none, va);
    if (!st && kb == JT_ARRAY) st = put_elements(o, &first, b, vb);
    else if (!st) st = put_member(o, false, &first, b, none, vb);
    if (!st) st = floe_buf_append_byte(o, ']');
    return st;
}

static floe_status eval_jsonb_op(const floe_func_def *def, floe_array *const *a, int32_t n, int64_t rows,
                                 floe_type *rt, floe_array **out) {
    floe_buffer *valid = NULL;
    FLOE_TRY(fn_validity(a, n, rows, &valid));
    fn_strwriter w;
    floe_status st = fn_sw_init(&w, rows, valid);
    floe_buf raw = FLOE_BUF_INIT, norm = FLOE_BUF_INIT, store = FLOE_BUF_INIT, idx = FLOE_BUF_INIT,
             tmp = FLOE_BUF_INIT;
    for (int64_t i = 0; i < rows && !st; i++) {
        if (!fn_sw_valid(&w, i)) {
            st = fn_sw_append(&w, "", 0);
            continue;
        }
        floe_strview sv = fn_get_str(a[0], i);
        const char *s = sv.data ? sv.data : "";
        jt_span v;
        st = jt_validate(s, sv.len, &v);
        if (st) break;
        floe_buf_clear(&raw);
        floe_buf_clear(&norm);
        const char *src = (const char *)raw.data;
        if (def->tag == JB_DELETE) {
            st = del_keys(a[1], i, s, v, &raw, &store, &idx, &tmp);
        } else if (def->tag == JB_DELETE_PATH) {
            int64_t cnt = 0;
            jt_kind kind = jt_kind_of(s, v);
            st = jt_text_array_at(a[1], i, &store, &idx, &cnt);
            if (!st && kind != JT_OBJECT && kind != JT_ARRAY)
                st = floe_error(FLOE_ERR_INVALID_ARGUMENT, "cannot delete path in scalar");
            if (!st) st = del_path(s, v, (const char *)store.data, (const int64_t *)idx.data, 0, cnt, &raw, &tmp);
        } else {
            floe_strview ov = fn_get_str(a[1], i);
            const char *o = ov.data ? ov.data : "";
            jt_span w2;
            st = jt_validate(o, ov.len, &w2);
            if (!st) st = concat(s, v, o, w2, &raw);
        }
        jt_span rv;
        src = (const char *)raw.data;
        if (!st) st = jt_validate(src ? src : "", (int64_t)raw.len, &rv);
        if (!st) st = jt_normalize(src, rv, &norm);
        if (!st) st = fn_sw_append(&w, (const char *)norm.data, (int64_t)norm.len);
    }
    if (!st) st = fn_sw_finish(&w, rt, out);
    else fn_sw_free(&w);
    floe_buf_free(&raw);
    floe_buf_free(&norm);
    floe_buf_free(&store);
    floe_buf_free(&idx);
    floe_buf_free(&tmp);
    return st;
}

const floe_func_def floe_jsonb_op_funcs[] = {
    {"__jsonb_delete", 2, 2, "jsonb - text | text[] | integer", type_jsonb_op, eval_jsonb_op, JB_DELETE, NULL, 0},
    {"__jsonb_delete_path", 2, 2, "jsonb #- text[]", type_jsonb_op, eval_jsonb_op, JB_DELETE_PATH, NULL, 0},
    {"__jsonb_concat", 2, 2, "jsonb || jsonb", type_jsonb_op, eval_jsonb_op, JB_CONCAT, NULL, 0},
    {0},
};
